/* Importer: the legacy (opset 1-6) forms, IsInf, Shrink, Celu, CastLike, the composed
   trigonometric/hyperbolic functions, integer Pow and 8-bit arithmetic, LRN (odd and even
   size), MeanVarianceNormalization, the slice-form pools (dilations, 3-D, integers, Indices),
   Conv 3-D and ConvTranspose's output_shape extension. Expected values derived by hand in
   the comments (or the double-precision libm function for the composed ones). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "test_import_util.h"
#include "tf.h"

/* import (optimized), run one float input, compare output 0 with want (n values) */
static void run1(ti_model *t, const float *x, const float *want, size_t n, double tol) {
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        float y[64];
        const float *in[1] = {x};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, n), 0);
        for (size_t i = 0; i < n; i++) {
            if (isnan(want[i])) CHECK(isnan(y[i]));
            else CHECK_NEAR(y[i], want[i], tol);
        }
    }
    lg_model_free(m);
}

/* the import fails with status st and a message containing what */
static void refused(ti_model *t, lg_status st, const char *what) {
    lg_model *m = NULL;
    lg_error err;
    lg_status got = ti_import(t, false, &m, NULL, &err);
    CHECK_EQ_INT(got, st);
    CHECK(m == NULL);
    if (got != LG_OK && !strstr(err.msg, what)) {
        CHECK(strstr(err.msg, what) != NULL);
        fprintf(stderr, "  message: %s\n", err.msg);
    }
    lg_model_free(m);
}

/* ------------------------------------------------------------------ opsets 1-6 */

static ti_model *legacy_add(int64_t bdim, int64_t axis, int broadcast) {
    ti_model *t = ti_new(6);
    ti_input(t, "a", LG_ONNX_FLOAT, (const int64_t[]){2, 3}, 2);
    ti_init(t, "b", LG_ONNX_FLOAT, (const int64_t[]){bdim}, 1, (const float[]){10, 20, 30});
    ti_node(t, "Add", "a,b", "y");
    if (broadcast >= 0) ti_attr_i(t, "broadcast", broadcast);
    if (axis >= 0) ti_attr_i(t, "axis", axis);
    ti_output(t, "y");
    return t;
}

/* Add-6, broadcast=1, axis=0: B [2] pairs with A's dim 0, y[i][j] = a[i][j] + b[i]
   (numpy would refuse [2, 3] + [2]); without axis, suffix matching: B [3] on dim 1 */
LG_TEST(import_legacy_add_broadcast_axis) {
    static const float a[6] = {1, 2, 3, 4, 5, 6};
    ti_model *t = legacy_add(2, 0, 1);
    run1(t, a, (const float[]){11, 12, 13, 24, 25, 26}, 6, 0);
    ti_free(t);
    t = legacy_add(3, -1, 1);
    run1(t, a, (const float[]){11, 22, 33, 14, 25, 36}, 6, 0);
    ti_free(t);
}

/* near miss: the same shapes without broadcast=1 are malformed before opset 7, and axis 1
   puts B [2] against A's dim 1 (3) */
LG_TEST(import_legacy_add_refused) {
    ti_model *t = legacy_add(2, 0, -1);
    refused(t, LG_ERR_FORMAT, "without broadcast=1");
    ti_free(t);
    t = legacy_add(2, 1, 1);
    refused(t, LG_ERR_FORMAT, "does not match A's dimension 1");
    ti_free(t);
}

/* PRelu-6: a [C] slope is per channel (dim 1): x [1, 2, 2] = {-2, 4 | -8, 2}, slope
   {0.5, 0.25}: {-1, 4, -2, 2}; a 3-value slope for 2 channels is refused with the reason */
LG_TEST(import_legacy_prelu_per_channel) {
    ti_model *t = ti_new(6);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 2, 2}, 3);
    ti_init(t, "s", LG_ONNX_FLOAT, (const int64_t[]){2}, 1, (const float[]){0.5f, 0.25f});
    ti_node(t, "PRelu", "x,s", "y");
    ti_output(t, "y");
    run1(t, (const float[]){-2, 4, -8, 2}, (const float[]){-1, 4, -2, 2}, 4, 0);
    ti_free(t);
    t = ti_new(6);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 2, 2}, 3);
    ti_init(t, "s", LG_ONNX_FLOAT, (const int64_t[]){3}, 1, (const float[]){0.5f, 0.25f, 1});
    ti_node(t, "PRelu", "x,s", "y");
    ti_output(t, "y");
    refused(t, LG_ERR_UNSUPPORTED, "one per channel");
    ti_free(t);
}

static ti_model *legacy_bn(int64_t opset, int is_test, int spatial, int64_t w) {
    ti_model *t = ti_new(opset);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 2, w}, 3);
    int64_t n = spatial ? 2 : 2 * w;
    ti_init(t, "sc", LG_ONNX_FLOAT, &n, 1, (const float[]){2, 1, 2, 1});
    ti_init(t, "b", LG_ONNX_FLOAT, &n, 1, (const float[]){1, 0, 1, 0});
    ti_init(t, "mu", LG_ONNX_FLOAT, &n, 1, (const float[]){1, 2, 1, 2});
    ti_init(t, "var", LG_ONNX_FLOAT, &n, 1, (const float[]){4, 1, 4, 1});
    ti_node(t, "BatchNormalization", "x,sc,b,mu,var", "y");
    ti_attr_f(t, "epsilon", 0.0f);
    if (is_test >= 0) ti_attr_i(t, "is_test", is_test);
    if (spatial >= 0) ti_attr_i(t, "spatial", spatial);
    ti_output(t, "y");
    return t;
}

/* BatchNormalization-6 with is_test=1: (x - mu) sc / sqrt(var) + b per channel; x [1, 2, 1]
   = {3, 4}: (3 - 1) 2 / 2 + 1 = 3, (4 - 2) 1 / 1 + 0 = 2. is_test=0 (the default) and
   spatial=0 are refused at opset 6 with their reasons; spatial=0 at opset 7 has per-activation
   parameters [C x W]: x [1, 2, 2] = {3, 5, 4, 6} with the parameters {2,1 | 2,1}... per
   position: (3-1)2/2+1 = 3, (5-2)1/1+0 = 3, (4-1)2/2+1 = 4, (6-2)1/1 = 4 */
LG_TEST(import_legacy_batchnorm) {
    ti_model *t = legacy_bn(6, 1, -1, 1);
    run1(t, (const float[]){3, 4}, (const float[]){3, 2}, 2, 1e-6);
    ti_free(t);
    t = legacy_bn(6, -1, -1, 1);
    refused(t, LG_ERR_UNSUPPORTED, "is_test=0");
    ti_free(t);
    t = legacy_bn(6, 1, 0, 2);
    refused(t, LG_ERR_UNSUPPORTED, "spatial=0");
    ti_free(t);
    t = legacy_bn(7, -1, 0, 2);
    run1(t, (const float[]){3, 5, 4, 6}, (const float[]){3, 3, 4, 4}, 4, 1e-6);
    ti_free(t);
}

/* Dropout-6: is_test=1 is the identity; without is_test (training) it is refused */
LG_TEST(import_legacy_dropout) {
    for (int k = 0; k < 2; k++) {
        ti_model *t = ti_new(6);
        ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2}, 1);
        ti_node(t, "Dropout", "x", "d");
        if (k == 0) ti_attr_i(t, "is_test", 1);
        ti_node(t, "Neg", "d", "y");
        ti_output(t, "y");
        if (k == 0) run1(t, (const float[]){1, -2}, (const float[]){-1, 2}, 2, 0);
        else refused(t, LG_ERR_UNSUPPORTED, "is_test=0");
        ti_free(t);
    }
}

/* Constant-1 (a value tensor) feeding Gemm-6 with broadcast=1: y = a @ B + c[j];
   a = [[1, 2], [3, 4]], B = [[1, 0], [1, 1]]: a @ B = [[3, 2], [7, 4]], c = {10, 20}.
   The same C without broadcast is malformed (Gemm-6's C is (M, N) then). */
LG_TEST(import_legacy_constant_gemm) {
    for (int bc = 1; bc >= 0; bc--) {
        ti_model *t = ti_new(6);
        ti_input(t, "a", LG_ONNX_FLOAT, (const int64_t[]){2, 2}, 2);
        ti_init(t, "B", LG_ONNX_FLOAT, (const int64_t[]){2, 2}, 2, (const float[]){1, 0, 1, 1});
        ti_node(t, "Constant", "", "c");
        ti_attr_t(t, "value", LG_ONNX_FLOAT, (const int64_t[]){2}, 1, (const float[]){10, 20});
        ti_node(t, "Gemm", "a,B,c", "y");
        ti_attr_i(t, "broadcast", bc);
        ti_output(t, "y");
        if (bc) run1(t, (const float[]){1, 2, 3, 4}, (const float[]){13, 22, 17, 24}, 4, 0);
        else refused(t, LG_ERR_FORMAT, "broadcast is 0");
        ti_free(t);
    }
}

/* Cast-1 names the type: "INT32"; 1.7 -> 1, -2.5 -> -2 (truncation) */
LG_TEST(import_legacy_cast_string) {
    ti_model *t = ti_new(5);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2}, 1);
    ti_node(t, "Cast", "x", "y");
    ti_attr_s(t, "to", "INT32");
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        int32_t y[2];
        const void *in[1] = {(const float[]){1.7f, -2.5f}};
        CHECK_EQ_INT(ti_run_typed(m, in, (const lg_dtype[]){LG_FLOAT32}, 1, 0, LG_INT32, y, 2), 0);
        CHECK_EQ_INT(y[0], 1);
        CHECK_EQ_INT(y[1], -2);
    }
    lg_model_free(m);
    ti_free(t);
}

/* Selu-1's defaults are 1.6732 and 1.0507, Selu-6's 1.67326319... and 1.05070102...:
   x = -1: gamma alpha (e^-1 - 1) */
LG_TEST(import_legacy_selu_defaults) {
    for (int v = 5; v <= 6; v++) {
        ti_model *t = ti_new(v);
        ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2}, 1);
        ti_node(t, "Selu", "x", "y");
        ti_output(t, "y");
        double al = v == 5 ? 1.6732 : 1.6732632423543772, ga = v == 5 ? 1.0507 : 1.0507009873554805;
        run1(t, (const float[]){1, -1}, (const float[]){(float)ga, (float)(ga * al * (exp(-1.0) - 1))}, 2, 2e-7);
        ti_free(t);
    }
}

/* ------------------------------------------------------------------ elementwise */

/* IsInf: {inf, -inf, 1, NaN} -> {1, 1, 0, 0}; detect_negative=0: {1, 0, 0, 0}; both 0: none */
LG_TEST(import_isinf) {
    for (int k = 0; k < 3; k++) {
        ti_model *t = ti_new(10);
        ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){4}, 1);
        ti_node(t, "IsInf", "x", "y");
        if (k >= 1) ti_attr_i(t, "detect_negative", 0);
        if (k >= 2) ti_attr_i(t, "detect_positive", 0);
        ti_output(t, "y");
        lg_model *m = NULL;
        lg_error err;
        CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
        if (m) {
            uint8_t y[4];
            const void *in[1] = {(const float[]){INFINITY, -INFINITY, 1, NAN}};
            CHECK_EQ_INT(ti_run_typed(m, in, (const lg_dtype[]){LG_FLOAT32}, 1, 0, LG_BOOL, y, 4), 0);
            static const uint8_t want[3][4] = {{1, 1, 0, 0}, {1, 0, 0, 0}, {0, 0, 0, 0}};
            for (int i = 0; i < 4; i++) CHECK_EQ_INT(y[i], want[k][i]);
        }
        lg_model_free(m);
        ti_free(t);
    }
}

/* Shrink lambd 1.5, bias 0.5: x < -1.5: x + 0.5, x > 1.5: x - 0.5, else 0 (NaN: 0):
   {-2, -1.5, 0, 1.5, 2, NaN} -> {-1.5, 0, 0, 0, 1.5, 0} */
LG_TEST(import_shrink_float) {
    ti_model *t = ti_new(9);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){6}, 1);
    ti_node(t, "Shrink", "x", "y");
    ti_attr_f(t, "lambd", 1.5f);
    ti_attr_f(t, "bias", 0.5f);
    ti_output(t, "y");
    run1(t, (const float[]){-2, -1.5f, 0, 1.5f, 2, NAN}, (const float[]){-1.5f, 0, 0, 0, 1.5f, 0}, 6, 0);
    ti_free(t);
}

/* INT32 Shrink lambd 1.5, bias 1: {-3, -2, -1, 1, 2, 3} -> {-2, -1, 0, 0, 1, 2}; a bias of
   0.5 has no integer result: refused */
LG_TEST(import_shrink_int) {
    for (int k = 0; k < 2; k++) {
        ti_model *t = ti_new(9);
        ti_input(t, "x", LG_ONNX_INT32, (const int64_t[]){6}, 1);
        ti_node(t, "Shrink", "x", "y");
        ti_attr_f(t, "lambd", 1.5f);
        ti_attr_f(t, "bias", k ? 0.5f : 1.0f);
        ti_output(t, "y");
        if (k) {
            refused(t, LG_ERR_UNSUPPORTED, "whole numbers");
        } else {
            lg_model *m = NULL;
            lg_error err;
            CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
            if (m) {
                int32_t y[6];
                const void *in[1] = {(const int32_t[]){-3, -2, -1, 1, 2, 3}};
                CHECK_EQ_INT(ti_run_typed(m, in, (const lg_dtype[]){LG_INT32}, 1, 0, LG_INT32, y, 6), 0);
                static const int32_t want[6] = {-2, -1, 0, 0, 1, 2};
                for (int i = 0; i < 6; i++) CHECK_EQ_INT(y[i], want[i]);
            }
            lg_model_free(m);
        }
        ti_free(t);
    }
}

/* Celu alpha 2: x < 0: 2 (exp(x / 2) - 1): -2 -> 2 (e^-1 - 1) = -1.26424112, 0 -> 0, 3 -> 3;
   alpha -1 refused */
LG_TEST(import_celu) {
    ti_model *t = ti_new(12);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){3}, 1);
    ti_node(t, "Celu", "x", "y");
    ti_attr_f(t, "alpha", 2.0f);
    ti_output(t, "y");
    run1(t, (const float[]){-2, 0, 3}, (const float[]){-1.26424112f, 0, 3}, 3, 2e-7);
    ti_free(t);
    t = ti_new(12);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){3}, 1);
    ti_node(t, "Celu", "x", "y");
    ti_attr_f(t, "alpha", -1.0f);
    ti_output(t, "y");
    refused(t, LG_ERR_UNSUPPORTED, "alpha");
    ti_free(t);
}

/* CastLike to an INT64 tensor's type: 1.5 -> 1, -1.5 -> -1, INT64 at the boundary */
LG_TEST(import_castlike) {
    ti_model *t = ti_new(15);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2}, 1);
    ti_init(t, "like", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){7});
    ti_node(t, "CastLike", "x,like", "y");
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        int64_t y[2];
        const void *in[1] = {(const float[]){1.5f, -1.5f}};
        CHECK_EQ_INT(ti_run_typed(m, in, (const lg_dtype[]){LG_FLOAT32}, 1, 0, LG_INT64, y, 2), 0);
        CHECK_EQ_INT(y[0], 1);
        CHECK_EQ_INT(y[1], -1);
    }
    lg_model_free(m);
    ti_free(t);
}

/* ---- the composed functions against double-precision libm */

#define NT 4001

typedef struct trig_case {
    const char *op;
    double lo, hi;
    double (*ref)(double);
} trig_case;

/* relative error of the lowering over [lo, hi] plus the tiny and huge values that break naive
   forms (sinh(1e-6) by exp differences, asinh(1e-20) by log(x + sqrt(x^2 + 1)),
   cosh(89) by exp(89) overflowing) */
static double trig_worst(const trig_case *k, float *x, size_t *n_out) {
    size_t n = 0;
    for (int i = 0; i < NT; i++) x[n++] = (float)(k->lo + (k->hi - k->lo) * i / (NT - 1));
    static const float extra[] = {1e-6f, -1e-6f, 1e-20f, 3e-3f, 0.4999f, 0.5f, 0.9999f, 4095.0f, 4097.0f, 88.0f, 89.0f};
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
        if (extra[i] >= k->lo && extra[i] <= k->hi) x[n++] = extra[i];
    *n_out = n;
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){(int64_t)n}, 1);
    ti_node(t, k->op, "x", "y");
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    double worst = 1.0;
    if (ti_import(t, false, &m, NULL, &err) == LG_OK) {
        float *y = malloc(n * sizeof *y);
        const float *in[1] = {x};
        if (ti_run(m, in, 1, 0, y, n) == 0) {
            worst = 0;
            for (size_t i = 0; i < n; i++) {
                double e = k->ref((double)x[i]);
                double d = fabs((double)y[i] - e) / fmax(fabs(e), 1e-30);
                if (!(d <= worst)) worst = d; /* NaN too */
            }
        }
        free(y);
    }
    lg_model_free(m);
    ti_free(t);
    return worst;
}

/* each within relative 3e-7 (a few fp32 ulp; measured 0.6e-7 to 2.0e-7) of the double-precision
   value over its range */
LG_TEST(import_trig_hyperbolic_exact_to_fp32) {
    static const trig_case cases[] = {
        {"Tan", -1.5, 1.5, tan},      {"Atan", -100, 100, atan},    {"Asin", -1, 1, asin},
        {"Acos", -1, 1, acos},        {"Sinh", -30, 30, sinh},      {"Cosh", -30, 30, cosh},
        {"Asinh", -1e5, 1e5, asinh},  {"Acosh", 1, 1e5, acosh},     {"Atanh", -0.999, 0.999, atanh},
    };
    float *x = malloc((NT + 16) * sizeof *x);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n;
        double w = trig_worst(&cases[i], x, &n);
        if (!(w < 3e-7)) fprintf(stderr, "  %s: worst relative error %g\n", cases[i].op, w);
        CHECK(w < 3e-7);
    }
    free(x);
}

/* the edges: Asin(1.5) and Acosh(0.5) are NaN, Atanh(1) = inf, Sinh(-0) = 0, Cosh(89) =
   e^89 / 2 = 2.2448064e38 is finite though e^89 is not in fp32, Asinh(-1e30) =
   -(30 ln 10 + ln 2) = -69.7706999 (1e30^2 overflows), Acos(-1) = pi */
LG_TEST(import_trig_edges) {
    static const struct { const char *op; float x, want; } k[] = {
        {"Asin", 1.5f, NAN}, {"Acosh", 0.5f, NAN}, {"Atanh", 1.0f, INFINITY}, {"Sinh", -0.0f, 0.0f},
        {"Cosh", 89.0f, 2.2448064e38f}, {"Asinh", -1e30f, -69.7706999f}, {"Acos", -1.0f, 3.14159274f},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        ti_model *t = ti_new(13);
        ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1}, 1);
        ti_node(t, k[i].op, "x", "y");
        ti_output(t, "y");
        double tol = isfinite(k[i].want) ? 3e-7 * fabs((double)k[i].want) : 0;
        if (isinf(k[i].want)) {
            lg_model *m = NULL;
            lg_error err;
            CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
            float y = 0;
            if (m) CHECK_EQ_INT(ti_run(m, (const float *const[]){&k[i].x}, 1, 0, &y, 1), 0);
            CHECK(isinf(y) && y > 0);
            lg_model_free(m);
        } else {
            run1(t, &k[i].x, &k[i].want, 1, tol);
        }
        ti_free(t);
    }
}

/* Pow of int32: {2, 3, -2} ^ {3, 2, 3} = {8, 9, -8} (int32 POW); int32 ^ float:
   {2, 3, 4} ^ {0.5, 2, 1.5} = {1.414.. -> 1, 9, 8} (truncated) */
LG_TEST(import_pow_integer_base) {
    for (int k = 0; k < 2; k++) {
        ti_model *t = ti_new(15);
        ti_input(t, "x", LG_ONNX_INT32, (const int64_t[]){3}, 1);
        ti_input(t, "e", k ? LG_ONNX_FLOAT : LG_ONNX_INT32, (const int64_t[]){3}, 1);
        ti_node(t, "Pow", "x,e", "y");
        ti_output(t, "y");
        lg_model *m = NULL;
        lg_error err;
        CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
        if (m) {
            int32_t y[3];
            const void *in[2] = {k ? (const void *)(const int32_t[]){2, 3, 4} : (const void *)(const int32_t[]){2, 3, -2},
                                 k ? (const void *)(const float[]){0.5f, 2, 1.5f} : (const void *)(const int32_t[]){3, 2, 3}};
            const lg_dtype ty[2] = {LG_INT32, k ? LG_FLOAT32 : LG_INT32};
            CHECK_EQ_INT(ti_run_typed(m, in, ty, 2, 0, LG_INT32, y, 3), 0);
            static const int32_t want[2][3] = {{8, 9, -8}, {1, 9, 8}};
            for (int i = 0; i < 3; i++) CHECK_EQ_INT(y[i], want[k][i]);
        }
        lg_model_free(m);
        ti_free(t);
    }
}

/* 8-bit arithmetic wraps as numpy's: UINT8 3 - 5 = 254, 200 * 2 = 144 (400 mod 256), 7 / 2 = 3;
   INT8 100 + 100 = -56; INT8 Mod fmod 0: -7 mod 3 = 2, 7 mod -3 = -2; fmod 1: -1, 1 */
LG_TEST(import_small_int_arithmetic) {
    static const struct { const char *op; int32_t ty; int fm; int8_t a[2], b[2], want[2]; } k[] = {
        {"Sub", LG_ONNX_UINT8, -1, {3, 7}, {5, 2}, {(int8_t)254, 5}},
        {"Mul", LG_ONNX_UINT8, -1, {(int8_t)200, 3}, {2, 5}, {(int8_t)144, 15}},
        {"Div", LG_ONNX_UINT8, -1, {7, (int8_t)250}, {2, 3}, {3, 83}},
        {"Add", LG_ONNX_INT8, -1, {100, -3}, {100, 1}, {-56, -2}},
        {"Mod", LG_ONNX_INT8, 0, {-7, 7}, {3, -3}, {2, -2}},
        {"Mod", LG_ONNX_INT8, 1, {-7, 7}, {3, -3}, {-1, 1}},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        ti_model *t = ti_new(14);
        ti_input(t, "a", k[i].ty, (const int64_t[]){2}, 1);
        ti_input(t, "b", k[i].ty, (const int64_t[]){2}, 1);
        ti_node(t, k[i].op, "a,b", "y");
        if (k[i].fm >= 0) ti_attr_i(t, "fmod", k[i].fm);
        ti_output(t, "y");
        lg_model *m = NULL;
        lg_error err;
        CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
        if (m) {
            int8_t y[2];
            lg_dtype ty = k[i].ty == LG_ONNX_UINT8 ? LG_UINT8 : LG_INT8;
            const void *in[2] = {k[i].a, k[i].b};
            CHECK_EQ_INT(ti_run_typed(m, in, (const lg_dtype[]){ty, ty}, 2, 0, ty, y, 2), 0);
            CHECK_EQ_INT(y[0], k[i].want[0]);
            CHECK_EQ_INT(y[1], k[i].want[1]);
        }
        lg_model_free(m);
        ti_free(t);
    }
}

/* Tile with repeats computed at run time: the error says so (the conformance test then
   freezes the parameter inputs) */
LG_TEST(import_tile_runtime_repeats_message) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2}, 1);
    ti_input(t, "r", LG_ONNX_INT64, (const int64_t[]){1}, 1);
    ti_node(t, "Tile", "x,r", "y");
    ti_output(t, "y");
    refused(t, LG_ERR_UNSUPPORTED, "computed at run time");
    ti_free(t);
}

/* ------------------------------------------------------------------ norms */

static ti_model *lrn_model(int64_t size, float alpha, const int64_t *dims, uint32_t rank) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, dims, rank);
    ti_node(t, "LRN", "x", "y");
    ti_attr_i(t, "size", size);
    ti_attr_f(t, "alpha", alpha);
    ti_attr_f(t, "beta", 1.0f);
    ti_attr_f(t, "bias", 1.0f);
    ti_output(t, "y");
    return t;
}

/* LRN size 3, alpha 3 (alpha / size = 1), beta 1, bias 1 over channels x = {1, 2, 3}:
   c0: 1 / (1 + 1 + 4) = 1/6, c1: 2 / (1 + 1 + 4 + 9) = 2/15, c2: 3 / (1 + 4 + 9) = 3/14;
   one LOCAL_RESPONSE_NORMALIZATION. Rank 3 ([1, 3, 1]) the same. */
LG_TEST(import_lrn_odd) {
    const float want[3] = {1.0f / 6, 2.0f / 15, 3.0f / 14};
    ti_model *t = lrn_model(3, 3.0f, (const int64_t[]){1, 3, 1, 1}, 4);
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) CHECK_EQ_INT(ti_count_ops(m, LG_OP_LOCAL_RESPONSE_NORMALIZATION), 1);
    lg_model_free(m);
    run1(t, (const float[]){1, 2, 3}, want, 3, 1e-7);
    ti_free(t);
    t = lrn_model(3, 3.0f, (const int64_t[]){1, 3, 1}, 3);
    run1(t, (const float[]){1, 2, 3}, want, 3, 1e-7);
    ti_free(t);
}

/* LRN size 2 (ONNX's window [c, c + 1]), alpha 2, beta 1, bias 1: c0: 1 / (1 + 1 + 4) = 1/6,
   c1: 2 / (1 + 4 + 9) = 1/7, c2: 3 / (1 + 9) = 3/10 (a symmetric window would give c1
   2/15: the near miss LRN's radius cannot express); no LOCAL_RESPONSE_NORMALIZATION */
LG_TEST(import_lrn_even) {
    ti_model *t = lrn_model(2, 2.0f, (const int64_t[]){1, 3, 1, 1}, 4);
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_LOCAL_RESPONSE_NORMALIZATION), 0);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_AVERAGE_POOL_2D), 1);
    }
    lg_model_free(m);
    run1(t, (const float[]){1, 2, 3}, (const float[]){1.0f / 6, 1.0f / 7, 0.3f}, 3, 1e-7);
    ti_free(t);
}

/* MVN over [0, 2, 3] of x [1, 1, 2, 2] = {1, 2, 3, 4}: mean 2.5, E[x^2] = 7.5,
   variance 7.5 - 6.25 = 1.25, sqrt 1.118034; (x - 2.5) / (1.118034 + 1e-9) */
LG_TEST(import_mean_variance_normalization) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 2, 2}, 4);
    ti_node(t, "MeanVarianceNormalization", "x", "y");
    ti_output(t, "y");
    run1(t, (const float[]){1, 2, 3, 4}, (const float[]){-1.34164079f, -0.44721360f, 0.44721360f, 1.34164079f}, 4, 3e-7);
    ti_free(t);
}

/* ------------------------------------------------------------------ pools */

static ti_model *pool_model(const char *op, int64_t opset, int32_t dtype, const int64_t *dims, uint32_t rank) {
    ti_model *t = ti_new(opset);
    ti_input(t, "x", dtype, dims, rank);
    ti_node(t, op, "x", "y");
    return t;
}

/* 2-D MaxPool, kernel 2x2, dilation 2, x 4x4 = 1..16: taps (i, j), (i, j+2), (i+2, j),
   (i+2, j+2): {11, 12, 15, 16}; no MAX_POOL_2D (TFLite's has no dilation) */
LG_TEST(import_maxpool_dilated_2d) {
    ti_model *t = pool_model("MaxPool", 12, LG_ONNX_FLOAT, (const int64_t[]){1, 1, 4, 4}, 4);
    ti_attr_ints(t, "kernel_shape", (const int64_t[]){2, 2}, 2);
    ti_attr_ints(t, "dilations", (const int64_t[]){2, 2}, 2);
    ti_output(t, "y");
    float x[16];
    for (int i = 0; i < 16; i++) x[i] = (float)(i + 1);
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) CHECK_EQ_INT(ti_count_ops(m, LG_OP_MAX_POOL_2D), 0);
    lg_model_free(m);
    run1(t, x, (const float[]){11, 12, 15, 16}, 4, 0);
    ti_free(t);
}

/* 1-D, kernel 2, dilation 2, stride 2, pads 1/1, x = {1, 5, 2, 4, 3}: padded
   [-inf, 1, 5, 2, 4, 3, -inf], windows at 0, 2, 4 with taps +0, +2: {5, 5, 4}. The same
   as an AveragePool (opset 19 has dilations; count_include_pad 0, the padding taps not
   counted): {5 / 1, (5 + 4) / 2, 4 / 1} = {5, 4.5, 4} */
LG_TEST(import_pool_dilated_1d) {
    for (int avg = 0; avg < 2; avg++) {
        ti_model *t = pool_model(avg ? "AveragePool" : "MaxPool", 19, LG_ONNX_FLOAT, (const int64_t[]){1, 1, 5}, 3);
        ti_attr_ints(t, "kernel_shape", (const int64_t[]){2}, 1);
        ti_attr_ints(t, "dilations", (const int64_t[]){2}, 1);
        ti_attr_ints(t, "strides", (const int64_t[]){2}, 1);
        ti_attr_ints(t, "pads", (const int64_t[]){1, 1}, 2);
        ti_output(t, "y");
        run1(t, (const float[]){1, 5, 2, 4, 3}, avg ? (const float[]){5, 4.5f, 4} : (const float[]){5, 5, 4}, 3, 0);
        ti_free(t);
    }
}

/* 3-D AveragePool kernel 2x2x2 on x [1, 1, 2, 2, 2] = 1..8 with pads D 1 before: out D 2;
   z = 0 sees the padding and x[0] (1..4): 10 / 4 = 2.5 (count_include_pad 0) or 10 / 8 =
   1.25 (1); z = 1 all eight: 36 / 8 = 4.5. 3-D MaxPool: {4, 8} */
LG_TEST(import_pool_3d) {
    float x[8];
    for (int i = 0; i < 8; i++) x[i] = (float)(i + 1);
    for (int k = 0; k < 3; k++) {
        ti_model *t = pool_model(k == 2 ? "MaxPool" : "AveragePool", 11, LG_ONNX_FLOAT, (const int64_t[]){1, 1, 2, 2, 2}, 5);
        ti_attr_ints(t, "kernel_shape", (const int64_t[]){2, 2, 2}, 3);
        ti_attr_ints(t, "pads", (const int64_t[]){1, 0, 0, 0, 0, 0}, 6);
        if (k == 1) ti_attr_i(t, "count_include_pad", 1);
        ti_output(t, "y");
        static const float want[3][2] = {{2.5f, 4.5f}, {1.25f, 4.5f}, {4, 8}};
        run1(t, x, want[k], 2, 0);
        ti_free(t);
    }
}

/* UINT8 MaxPool 1-D kernel 2 pads 1/0: padded with 0 (UINT8's lowest), [0, 1, 200, 3, 4]:
   {1, 200, 200, 4} */
LG_TEST(import_maxpool_uint8) {
    ti_model *t = pool_model("MaxPool", 12, LG_ONNX_UINT8, (const int64_t[]){1, 1, 4}, 3);
    ti_attr_ints(t, "kernel_shape", (const int64_t[]){2}, 1);
    ti_attr_ints(t, "pads", (const int64_t[]){1, 0}, 2);
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        uint8_t y[4];
        const void *in[1] = {(const uint8_t[]){1, 200, 3, 4}};
        CHECK_EQ_INT(ti_run_typed(m, in, (const lg_dtype[]){LG_UINT8}, 1, 0, LG_UINT8, y, 4), 0);
        static const uint8_t want[4] = {1, 200, 200, 4};
        for (int i = 0; i < 4; i++) CHECK_EQ_INT(y[i], want[i]);
    }
    lg_model_free(m);
    ti_free(t);
}

/* MaxPool's Indices, kernel 2x2 stride 1 over x [1, 2, 3, 3]: channel 0
   {1, 3, 3 / 2, 3, 0 / 0, 0, 1} has ties; the first maximum in row-major scan order:
   windows (0,0) {1, 3, 2, 3} -> (0,1) = 1, (0,1) {3, 3, 3, 0} -> 1, (1,0) {2, 3, 0, 0} -> 4,
   (1,1) {3, 0, 0, 1} -> 4; channel 1 = channel 0 + 10 adds 9 (its offset in the flattened
   input). storage_order 1 (column major, h + 3 w): (0,1) -> 3, (1,1) -> 4. */
LG_TEST(import_maxpool_indices) {
    float x[18] = {1, 3, 3, 2, 3, 0, 0, 0, 1};
    for (int i = 0; i < 9; i++) x[9 + i] = x[i] + 10;
    for (int order = 0; order < 2; order++) {
        ti_model *t = ti_new(12);
        ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 2, 3, 3}, 4);
        ti_node(t, "MaxPool", "x", "y,z");
        ti_attr_ints(t, "kernel_shape", (const int64_t[]){2, 2}, 2);
        if (order) ti_attr_i(t, "storage_order", 1);
        ti_output(t, "y");
        ti_output(t, "z");
        lg_model *m = NULL;
        lg_error err;
        CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
        if (m) {
            int64_t z[8];
            float y[8];
            const void *in[1] = {x};
            CHECK_EQ_INT(ti_run_typed(m, in, (const lg_dtype[]){LG_FLOAT32}, 1, 1, LG_INT64, z, 8), 0);
            CHECK_EQ_INT(ti_run(m, (const float *const[]){x}, 1, 0, y, 8), 0);
            static const int64_t want[2][4] = {{1, 1, 4, 4}, {3, 3, 4, 4}};
            for (int i = 0; i < 8; i++) {
                CHECK_EQ_INT(z[i], want[order][i % 4] + (i / 4) * 9);
                CHECK_EQ_INT(y[i], 3 + (i / 4) * 10);
            }
        }
        lg_model_free(m);
        ti_free(t);
    }
}

/* ------------------------------------------------------------------ Conv 3-D, ConvTranspose */

/* Conv 3-D, x [1, 1, 2, 2, 2] = 1..8, w [1, 1, 2, 1, 1] = {1, 10} (two depth taps), bias 0.5:
   y = x[d=0] + 10 x[d=1] + 0.5 = {51.5, 62.5, 73.5, 84.5}; with depth pads 1/1 (out depth 3):
   {10 x0 + .5 | x0 + 10 x1 + .5 | x1 + .5} */
LG_TEST(import_conv3d_depth_taps) {
    float x[8];
    for (int i = 0; i < 8; i++) x[i] = (float)(i + 1);
    for (int padded = 0; padded < 2; padded++) {
        ti_model *t = ti_new(11);
        ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 2, 2, 2}, 5);
        ti_init(t, "w", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 2, 1, 1}, 5, (const float[]){1, 10});
        ti_init(t, "b", LG_ONNX_FLOAT, (const int64_t[]){1}, 1, (const float[]){0.5f});
        ti_node(t, "Conv", "x,w,b", "y");
        if (padded) ti_attr_ints(t, "pads", (const int64_t[]){1, 0, 0, 1, 0, 0}, 6);
        ti_output(t, "y");
        if (!padded) {
            run1(t, x, (const float[]){51.5f, 62.5f, 73.5f, 84.5f}, 4, 0);
        } else {
            const float want[12] = {10.5f, 20.5f, 30.5f, 40.5f, 51.5f, 62.5f, 73.5f, 84.5f, 5.5f, 6.5f, 7.5f, 8.5f};
            run1(t, x, want, 12, 0);
        }
        ti_free(t);
    }
}

/* ConvTranspose x {1, 2} [1, 1, 1, 2], w {1, 1} [1, 1, 1, 2], bias 0.5: full output
   {1, 3, 2} + 0.5; output_shape [1, 4] is one past it: the extra position holds the bias,
   {1.5, 3.5, 2.5, 0.5} */
LG_TEST(import_convtranspose_output_shape_past_full) {
    ti_model *t = ti_new(11);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 1, 2}, 4);
    ti_init(t, "w", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 1, 2}, 4, (const float[]){1, 1});
    ti_init(t, "b", LG_ONNX_FLOAT, (const int64_t[]){1}, 1, (const float[]){0.5f});
    ti_node(t, "ConvTranspose", "x,w,b", "y");
    ti_attr_ints(t, "output_shape", (const int64_t[]){1, 4}, 2);
    ti_output(t, "y");
    run1(t, (const float[]){1, 2}, (const float[]){1.5f, 3.5f, 2.5f, 0.5f}, 4, 0);
    ti_free(t);
}

/* ConvTranspose 3-D, x [1, 1, 2, 1, 2] = {1, 3 | 2, 4} (two depths), w [1, 1, 2, 1, 1] =
   {1, 10} (two depth taps), bias 0.5: input depth iz through tap j lands at depth
   iz sd + j dd. Stride 2: depths {x0, 10 x0, x1, 10 x1} = {1, 3, 10, 30, 2, 4, 20, 40} + 0.5.
   Dilation 2 (stride 1) with pads 1 / 0 on depth: full {x0, x1, 10 x0, 10 x1}, the first depth
   cropped: {2, 4, 10, 30, 20, 40} + 0.5. */
LG_TEST(import_conv_transpose3d_depth_taps) {
    for (int k = 0; k < 2; k++) {
        ti_model *t = ti_new(11);
        ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 2, 1, 2}, 5);
        ti_init(t, "w", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 2, 1, 1}, 5, (const float[]){1, 10});
        ti_init(t, "b", LG_ONNX_FLOAT, (const int64_t[]){1}, 1, (const float[]){0.5f});
        ti_node(t, "ConvTranspose", "x,w,b", "y");
        if (k == 0) {
            ti_attr_ints(t, "strides", (const int64_t[]){2, 1, 1}, 3);
        } else {
            ti_attr_ints(t, "dilations", (const int64_t[]){2, 1, 1}, 3);
            ti_attr_ints(t, "pads", (const int64_t[]){1, 0, 0, 0, 0, 0}, 6);
        }
        ti_output(t, "y");
        static const float want0[8] = {1.5f, 3.5f, 10.5f, 30.5f, 2.5f, 4.5f, 20.5f, 40.5f};
        static const float want1[6] = {2.5f, 4.5f, 10.5f, 30.5f, 20.5f, 40.5f};
        run1(t, (const float[]){1, 3, 2, 4}, k ? want1 : want0, k ? 6 : 8, 0);
        ti_free(t);
    }
}

/* Dropout-12 with training_mode true: ratio 0 keeps every element and scales by 1/(1-0), the
   identity (torchvision's Swin exports F.dropout(p=0.0) so); ratio 0.5 is random: refused */
LG_TEST(import_dropout_training_ratio_zero) {
    for (int k = 0; k < 2; k++) {
        ti_model *t = ti_new(13);
        ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2}, 1);
        ti_init(t, "r", LG_ONNX_FLOAT, NULL, 0, (const float[]){k ? 0.5f : 0.0f});
        ti_init(t, "tm", LG_ONNX_BOOL, NULL, 0, (const uint8_t[]){1});
        ti_node(t, "Dropout", "x,r,tm", "d");
        ti_node(t, "Neg", "d", "y");
        ti_output(t, "y");
        if (k == 0) run1(t, (const float[]){1, -2}, (const float[]){-1, 2}, 2, 0);
        else refused(t, LG_ERR_UNSUPPORTED, "ratio other than a constant 0");
        ti_free(t);
    }
}
