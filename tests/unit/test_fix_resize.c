/* The `fix` passes of src/passes/fix_resize.c: resize-align-corners, pow-to-mul, pow-exp-log.
   Each: a builder-made model that triggers it (the rule lg_check shows, where there is one),
   the pass run with parity proved by the runner, the ops expected; near-misses left alone;
   hand-derived values on small models. */
#include <math.h>
#include <stdlib.h>

#include "fixt.h"
#include "lg/ops.h"
#include "tf.h"

static void unchanged(const lg_model *m, const char *pass, bool skipped) {
    lg_pass_report *rep = NULL;
    lg_model *o = fixt_run(m, (const char *const[]){pass, NULL}, &rep, __FILE__, __LINE__);
    if (!o) return;
    CHECK(fixt_same_ops(m, o));
    const lg_pass_result *r = fixt_result(rep, pass);
    CHECK(r && r->delta.applied == 0);
    if (skipped) CHECK(r && r->delta.skipped >= 1 && r->delta.note[0]);
    lg_pass_report_free(rep);
    lg_model_free(o);
}

/* ------------------------------------------------------------------ resize-align-corners */

static lg_model *resize_model(lg_dims in, int32_t oh, int32_t ow, bool align, bool half) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, in);
    int sz = lg_b_const_i32(&b, "size", LG_DIMS(2), (const int32_t[]){oh, ow});
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(in.v[0], oh, ow, in.v[3]));
    lg_resize_bilinear_options ro = {align, half};
    lg_b_op_opts(&b, LG_OP_RESIZE_BILINEAR, LG_IDS(x, sz), LG_IDS(y), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &ro);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

static lg_model *resized(const lg_model *m, uint32_t fcs, uint32_t transposes) {
    for (int t = 0; t < 2; t++) CHECK(fixt_has(m, (lg_target)t, LG_GPU_MALI, "resize-align-corners"));
    lg_pass_report *rep = NULL;
    lg_model *o = FIXT_RUN(m, &rep, "resize-align-corners");
    if (!o) return NULL;
    CHECK_EQ_INT(fixt_applied(rep, "resize-align-corners"), 1);
    double rel = fixt_max_rel(rep, "resize-align-corners");
    CHECK(rel >= 0 && rel <= 1e-6);
    CHECK_EQ_INT(fixt_count(o, LG_OP_RESIZE_BILINEAR), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_FULLY_CONNECTED), fcs);
    CHECK_EQ_INT(fixt_count(o, LG_OP_TRANSPOSE), transposes);
    for (int t = 0; t < 2; t++) {
        CHECK(!fixt_has(o, (lg_target)t, LG_GPU_MALI, "resize-align-corners"));
        CHECK(fixt_ready(o, (lg_target)t, LG_GPU_MALI));
    }
    lg_pass_report_free(rep);
    return o;
}

/* [[0,1],[2,3]] -> 3x3 with align_corners: scale (2-1)/(3-1) = 0.5, the middle row and column
   halfway: [[0,.5,1],[1,1.5,2],[2,2.5,3]], all exact in fp32. */
LG_TEST(fix_resize_align_hand_values) {
    lg_model *m = resize_model(LG_DIMS(1, 2, 2, 1), 3, 3, true, false);
    lg_model *o = resized(m, 2, 3);
    if (o) {
        const float x[4] = {0, 1, 2, 3}, want[9] = {0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3};
        float got[9];
        const float *in[1] = {x};
        if (FIXT_EVAL(o, in, 0, got, 9) == 9)
            for (int k = 0; k < 9; k++) CHECK(got[k] == want[k]);
        lg_model_free(o);
    }
    lg_model_free(m);
}

/* Sizes that do not divide, batch 2, channels 3; one axis kept (its matrix the identity: one
   FULLY_CONNECTED, two TRANSPOSEs); a downscale. */
LG_TEST(fix_resize_align_forms) {
    lg_model *m = resize_model(LG_DIMS(2, 4, 5, 3), 7, 9, true, false);
    lg_model *o = resized(m, 2, 3);
    lg_model_free(o);
    lg_model_free(m);
    m = resize_model(LG_DIMS(1, 4, 5, 3), 4, 11, true, false);
    o = resized(m, 1, 2);
    lg_model_free(o);
    lg_model_free(m);
    m = resize_model(LG_DIMS(1, 6, 5, 2), 13, 5, true, false);
    o = resized(m, 1, 2);
    lg_model_free(o);
    lg_model_free(m);
    m = resize_model(LG_DIMS(1, 16, 12, 4), 5, 7, true, false);
    o = resized(m, 2, 3);
    lg_model_free(o);
    lg_model_free(m);
}

/* align_corners false, half_pixel_centers alone: no finding, not matched. Both flags
   (resize-flags): TFLite refuses the op itself, nothing to preserve: not matched. */
LG_TEST(fix_resize_align_near_misses) {
    lg_model *m = resize_model(LG_DIMS(1, 4, 5, 3), 7, 9, false, false);
    CHECK(!fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_MALI, "resize-align-corners"));
    unchanged(m, "resize-align-corners", false);
    lg_model_free(m);
    m = resize_model(LG_DIMS(1, 4, 5, 3), 7, 9, false, true);
    unchanged(m, "resize-align-corners", false);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ pow */

/* y = POW(x, e) of [1,2,2,2], x a graph input or EXP of one (positive). */
static lg_model *pow_model(float e, bool positive_base) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 2)), base = x;
    if (positive_base) {
        base = lg_b_tensor(&b, "ex", LG_FLOAT32, LG_DIMS(1, 2, 2, 2));
        lg_b_op(&b, LG_OP_EXP, LG_IDS(x), LG_IDS(base));
    }
    int ec = lg_b_const_f32(&b, "e", LG_DIMS(1), &e);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 2, 2, 2));
    lg_b_op(&b, LG_OP_POW, LG_IDS(base, ec), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* Each exponent: the ops written (MULs by repeated squaring: x^7 = x4 x2 x, 4 MULs), parity
   within the exact bound, and on negative bases the signs of the integer powers. */
LG_TEST(fix_pow_to_mul_forms) {
    const struct {
        float e;
        uint32_t mul, div, sqrt_, rsqrt;
    } cases[] = {
        {2, 1, 0, 0, 0}, {3, 2, 0, 0, 0}, {4, 2, 0, 0, 0}, {5, 3, 0, 0, 0}, {7, 4, 0, 0, 0},
        {8, 3, 0, 0, 0}, {0.5f, 0, 0, 1, 0}, {-0.5f, 0, 0, 0, 1}, {-1, 0, 1, 0, 0}, {-2, 1, 1, 0, 0},
        {-3, 2, 1, 0, 0},
    };
    const float x[8] = {-2, -1.5f, 0.5f, 3, 1, -1, 0.25f, 2};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        lg_model *m = pow_model(cases[k].e, false);
        lg_pass_report *rep = NULL;
        lg_model *o = FIXT_RUN(m, &rep, "pow-to-mul");
        if (!o) { lg_model_free(m); continue; }
        CHECK_EQ_INT(fixt_applied(rep, "pow-to-mul"), 1);
        double rel = fixt_max_rel(rep, "pow-to-mul");
        CHECK(rel >= 0 && rel <= 1e-6);
        CHECK_EQ_INT(fixt_count(o, LG_OP_POW), 0);
        CHECK_EQ_INT(fixt_count(o, LG_OP_MUL), cases[k].mul);
        CHECK_EQ_INT(fixt_count(o, LG_OP_DIV), cases[k].div);
        CHECK_EQ_INT(fixt_count(o, LG_OP_SQRT), cases[k].sqrt_);
        CHECK_EQ_INT(fixt_count(o, LG_OP_RSQRT), cases[k].rsqrt);
        CHECK(fixt_ready(o, LG_TARGET_MLDRIFT, LG_GPU_ANY));
        CHECK(fixt_ready(o, LG_TARGET_CLASSIC, LG_GPU_ANY));
        float got[8];
        const float *in[1] = {x};
        float e = cases[k].e;
        if (e == floorf(e) && FIXT_EVAL(o, in, 0, got, 8) == 8)
            for (int q = 0; q < 8; q++) {
                /* x^n by hand: n factors of x (or 1 / that), a sign for odd n of negatives */
                double want = 1;
                for (int f = 0; f < (int)fabsf(e); f++) want *= x[q];
                if (e < 0) want = 1 / want;
                CHECK_NEAR(got[q], want, 1e-6 * fabs(want));
            }
        lg_pass_report_free(rep);
        lg_model_free(o);
        lg_model_free(m);
    }
}

/* x^1: the POW goes, the graph output written by the base's producer (EXP) directly. */
LG_TEST(fix_pow_identity) {
    lg_model *m = pow_model(1, true);
    lg_pass_report *rep = NULL;
    lg_model *o = FIXT_RUN(m, &rep, "pow-to-mul");
    if (o) {
        CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
        CHECK_EQ_INT(lg_op_builtin(o, &o->subgraphs[0].ops[0]), LG_OP_EXP);
        CHECK(fixt_max_rel(rep, "pow-to-mul") == 0);
        lg_pass_report_free(rep);
        lg_model_free(o);
    }
    lg_model_free(m);
}

/* x^2.2 of x = EXP(in) > 0 -> EXP(LOG(x) * 2.2), within the declared 1e-5. On a base of any
   sign: reported, left alone. pow-to-mul does not take 2.2; pow-exp-log not 2. */
LG_TEST(fix_pow_exp_log) {
    lg_model *m = pow_model(2.2f, true);
    lg_pass_report *rep = NULL;
    lg_model *o = FIXT_RUN(m, &rep, "pow-exp-log");
    if (o) {
        CHECK_EQ_INT(fixt_applied(rep, "pow-exp-log"), 1);
        double rel = fixt_max_rel(rep, "pow-exp-log");
        CHECK(rel >= 0 && rel <= 1e-5);
        CHECK_EQ_INT(fixt_count(o, LG_OP_POW), 0);
        CHECK_EQ_INT(fixt_count(o, LG_OP_LOG), 1);
        CHECK_EQ_INT(fixt_count(o, LG_OP_EXP), 2);
        CHECK(fixt_ready(o, LG_TARGET_CLASSIC, LG_GPU_ANY));
        /* e^(2.2 ln e^v) = e^(2.2 v): v = 0 gives 1, v = 1 gives e^2.2 */
        const float x[8] = {0, 1, -1, 0.5f, 2, -2, 0.25f, 3};
        float got[8];
        const float *in[1] = {x};
        if (FIXT_EVAL(o, in, 0, got, 8) == 8)
            for (int q = 0; q < 8; q++) CHECK_NEAR(got[q], exp(2.2 * x[q]), 1e-5 * exp(2.2 * x[q]));
        lg_pass_report_free(rep);
        lg_model_free(o);
    }
    lg_model_free(m);
    m = pow_model(2.2f, false);
    unchanged(m, "pow-exp-log", true);
    unchanged(m, "pow-to-mul", false);
    lg_model_free(m);
    m = pow_model(2, false);
    unchanged(m, "pow-exp-log", false);
    lg_model_free(m);
}

/* A runtime exponent, an exponent tensor of differing values: not matched. */
LG_TEST(fix_pow_near_misses) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int e = lg_b_tensor(&b, "e", LG_FLOAT32, LG_DIMS(1, 4));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(&b, LG_OP_POW, LG_IDS(x, e), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x, e), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    unchanged(m, "pow-to-mul", false);
    lg_model_free(m);
    m = fixt_new(&b);
    x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    e = lg_b_const_f32(&b, "e", LG_DIMS(1, 4), (const float[]){2, 2, 3, 2});
    y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(&b, LG_OP_POW, LG_IDS(x, e), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    unchanged(m, "pow-to-mul", false);
    lg_model_free(m);
}
