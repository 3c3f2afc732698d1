/* Comparison metrics on hand-computed cases. */
#include <math.h>
#include <stdlib.h>

#include "lg/compare.h"
#include "lg/lg.h"
#include "tf.h"

LG_TEST(metrics_identical) {
    float a[4] = {1, -2, 3, 4};
    lg_metrics m;
    lg_metrics_compute(a, a, 4, &m);
    CHECK_NEAR(m.max_abs, 0, 0);
    CHECK_NEAR(m.cosine, 1, 1e-12);
    CHECK_NEAR(m.pearson, 1, 1e-12);
    CHECK_NEAR(m.nmse, 0, 0);
    CHECK_EQ_INT(m.ref_argmax, 3);
}

LG_TEST(metrics_hand_values) {
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 6};
    lg_metrics m;
    lg_metrics_compute(a, b, 4, &m);
    CHECK_NEAR(m.max_abs, 2, 0);
    CHECK_NEAR(m.max_rel, 0.5, 1e-12);            /* 2 / max|a| = 2/4 */
    CHECK_NEAR(m.nmse, 4.0 / 30.0, 1e-12);        /* 2^2 / (1+4+9+16) */
    CHECK_NEAR(m.cosine, 38.0 / sqrt(30.0 * 50.0), 1e-12);
    /* pearson: a - 2.5 = (-1.5,-.5,.5,1.5); b - 3 = (-2,-1,0,3); cov 3+.5+0+4.5 = 8;
       var a = 5; var b = 4+1+0+9 = 14 */
    CHECK_NEAR(m.pearson, 8.0 / sqrt(5.0 * 14.0), 1e-12);
}

LG_TEST(metrics_nonfinite_is_uncorrelated) {
    float a[3] = {1, 2, 3}, b[3] = {1, INFINITY, 3};
    lg_metrics m;
    lg_metrics_compute(a, b, 3, &m);
    CHECK_EQ_INT(m.test_inf, 1);
    CHECK(m.pearson <= 0);
}

/* lg_compare_precision names as the worst output the one that fails, not a one-value output
   whose correlation is undefined. Model: x [1, 64] in [0, 1); output 0 = the mean of x * 0.1
   ([1, 1]: f16 moves it by a few 1e-4 relative: score = that relative error, within 0.05);
   output 1 = (x + 1024) - 1024 (64 values: the half spacing at 1024 is 1, so f16 gives 0
   below 0.5 and 1 above: a correlation near 0.87; the std of x is sqrt(1/12) and
   for x uniform in [0, 1): the error is min(x, 1 - x), rms sqrt(1/12), so score ~ 1: fails). */
LG_TEST(compare_worst_output_is_the_failing_one) {
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    if (!m) return;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    static lg_reducer_options keep = {true};
    int32_t axis1[1] = {1};
    float tenth_v = 0.1f, big_v = 1024.0f;
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 64));
    int ax = lg_b_const_i32(&b, "axis", LG_DIMS(1), axis1);
    int tenth = lg_b_const_f32(&b, "tenth", LG_DIMS(1), &tenth_v);
    int big = lg_b_const_f32(&b, "big", LG_DIMS(1), &big_v);
    int xt = lg_b_tensor(&b, "xt", LG_FLOAT32, LG_DIMS(1, 64));
    int mean = lg_b_tensor(&b, "mean", LG_FLOAT32, LG_DIMS(1, 1));
    int up = lg_b_tensor(&b, "up", LG_FLOAT32, LG_DIMS(1, 64));
    int back = lg_b_tensor(&b, "back", LG_FLOAT32, LG_DIMS(1, 64));
    lg_b_op(&b, LG_OP_MUL, LG_IDS(x, tenth), LG_IDS(xt));
    lg_b_op_opts(&b, LG_OP_MEAN, LG_IDS(xt, ax), LG_IDS(mean), LG_OPTS_REDUCER_OPTIONS, &keep);
    lg_b_op(&b, LG_OP_ADD, LG_IDS(x, big), LG_IDS(up));
    lg_b_op(&b, LG_OP_SUB, LG_IDS(up, big), LG_IDS(back));
    lg_b_io(&b, LG_IDS(x), LG_IDS(mean, back));
    CHECK_OK(b.status, &b.err);
    float in[64];
    for (int i = 0; i < 64; i++) in[i] = (float)((i * 37) % 64) / 64.0f + 1.0f / 256.0f;
    const float *inputs[1] = {in};
    lg_compare_options o = {LG_PREC_F16, 0, 0, 1, 0, 0};
    lg_precision_report *r = NULL;
    if (b.status == LG_OK) CHECK_OK(lg_compare_precision(m, inputs, &o, &r, &err), &err);
    if (r) {
        CHECK(!r->ok);
        CHECK_EQ_INT(r->n_outputs, 2);
        CHECK(r->outputs[0].m.max_rel < 1e-2);   /* the mean passes ... */
        CHECK(r->outputs[0].v.pass);
        CHECK(isnan(r->outputs[0].m.pearson));   /* ... and has no correlation (one value) */
        CHECK(r->outputs[1].m.pearson > 0.5 && r->outputs[1].m.pearson < 0.999); /* fails */
        CHECK_EQ_INT(r->worst_output, 1);
        lg_precision_report_free(r);
    }
    lg_model_free(m);
}
