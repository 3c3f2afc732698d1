/* Importer: the Erf polynomial, the erf-GELU fusion and its near miss, Softplus. */
#include <math.h>
#include <stdlib.h>

#include "lg/lg.h"
#include "test_import_util.h"
#include "tf.h"

#define NX 2003

static void ramp(float *x) {
    for (int i = 0; i < NX - 3; i++) x[i] = -5.0f + 10.0f * (float)i / (float)(NX - 4);
    x[NX - 3] = 1e-30f; /* erf(x) ~ 2x/sqrt(pi) */
    x[NX - 2] = 30.0f;  /* clamped: 1 */
    x[NX - 1] = -0.0f;
}

/* erf lowered to x p(x^2)/q(x^2): within 3 ulp of double-precision erf everywhere
   (relative 4e-7), and no LOGISTIC (the sigmoid approximation is what we refuse). */
LG_TEST(import_erf_polynomial_exact_to_fp32) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){NX}, 1);
    ti_node(t, "Erf", "x", "y");
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_LOGISTIC), 0);
        float *x = malloc(NX * sizeof *x), *y = malloc(NX * sizeof *y);
        ramp(x);
        const float *in[1] = {x};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, NX), 0);
        double worst = 0;
        for (int i = 0; i < NX; i++) {
            double e = erf((double)x[i]), d = fabs((double)y[i] - e) / fmax(fabs(e), 1e-38);
            if (d > worst) worst = d;
        }
        CHECK(worst < 4e-7);
        CHECK(signbit(y[NX - 1]) && y[NX - 1] == 0.0f);
        free(x);
        free(y);
    }
    lg_model_free(m);
    ti_free(t);
}

static ti_model *gelu_graph(float half) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){NX}, 1);
    ti_init(t, "sqrt2", LG_ONNX_FLOAT, NULL, 0, (const float[]){1.4142135381698608f});
    ti_init(t, "one", LG_ONNX_FLOAT, NULL, 0, (const float[]){1.0f});
    ti_init(t, "half", LG_ONNX_FLOAT, NULL, 0, (const float[]){half});
    ti_node(t, "Div", "x,sqrt2", "d");
    ti_node(t, "Erf", "d", "e");
    ti_node(t, "Add", "one,e", "a"); /* operands in the other order */
    ti_node(t, "Mul", "x,a", "m");
    ti_node(t, "Mul", "m,half", "y");
    ti_output(t, "y");
    return t;
}

/* x * 0.5 * (1 + erf(x / sqrt 2)) becomes one GELU; values against the double formula */
LG_TEST(import_erf_gelu_fused) {
    ti_model *t = gelu_graph(0.5f);
    lg_model *m = NULL;
    lg_import_report *rep = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, &rep, &err), &err);
    if (m && rep) {
        CHECK_EQ_INT(m->subgraphs[0].n_ops, 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_GELU), 1);
        CHECK_STR(rep->nodes[0].lowering, "Div -> GELU");
        CHECK(strstr(rep->nodes[4].lowering, "part of the erf-GELU at node 0") != NULL);
        float *x = malloc(NX * sizeof *x), *y = malloc(NX * sizeof *y);
        ramp(x);
        const float *in[1] = {x};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, NX), 0);
        for (int i = 0; i < NX; i++) {
            double v = x[i], e = 0.5 * v * (1 + erf(v / sqrt(2.0)));
            CHECK_NEAR(y[i], e, 1e-6 * fmax(1.0, fabs(e)));
        }
        free(x);
        free(y);
    }
    lg_import_report_free(rep);
    lg_model_free(m);
    ti_free(t);
}

/* near miss: 0.6 instead of 0.5 is not GELU; lowered op by op (Erf as the polynomial) */
LG_TEST(import_erf_gelu_near_miss) {
    ti_model *t = gelu_graph(0.6f);
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_GELU), 0);
        float *x = malloc(NX * sizeof *x), *y = malloc(NX * sizeof *y);
        ramp(x);
        const float *in[1] = {x};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, NX), 0);
        for (int i = 0; i < NX; i++) {
            double v = x[i], e = 0.6 * v * (1 + erf(v / sqrt(2.0)));
            CHECK_NEAR(y[i], e, 2e-6 * fmax(1.0, fabs(e)));
        }
        free(x);
        free(y);
    }
    lg_model_free(m);
    ti_free(t);
}

/* softplus(100) = 100 (ln(e^100 + 1) overflows in fp32 if computed naively), softplus(0) =
   ln 2, softplus(-100) = e^-100 ~ 3.7e-44 (0 within tolerance) */
LG_TEST(import_softplus_no_overflow) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){3}, 1);
    ti_node(t, "Softplus", "x", "y");
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        float y[3];
        const float *in[1] = {(const float[]){100, 0, -100}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 3), 0);
        CHECK_NEAR(y[0], 100, 1e-5);
        CHECK_NEAR(y[1], 0.69314718, 1e-7);
        CHECK_NEAR(y[2], 0, 1e-30);
    }
    lg_model_free(m);
    ti_free(t);
}
