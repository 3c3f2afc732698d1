/* The judging rule of lg/compare.h (lg_judge, shared by compare and verify) and the undefined
 * statistics, on hand-computed cases; the library's two-model defaults. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kt.h"
#include "lg/compare.h"
#include "tf.h"

/* ref = {1, 2, 3, 4}: mean 2.5, population std sqrt((2.25+0.25+0.25+2.25)/4) = sqrt(1.25).
   test = ref +- e alternately: rms error e, score e / sqrt(1.25). The tolerance 0.05 is met
   by e = 0.05 (score 0.0447) and missed by e = 0.06 (score 0.0537). */
LG_TEST(judge_varying_output_against_its_std) {
    float ref[4] = {1, 2, 3, 4}, t1[4], t2[4];
    for (int i = 0; i < 4; i++) {
        t1[i] = ref[i] + (i % 2 ? -0.05f : 0.05f);
        t2[i] = ref[i] + (i % 2 ? -0.06f : 0.06f);
    }
    lg_metrics m;
    lg_verdict v;
    lg_judge_values(ref, t1, 4, NULL, &m, &v);
    CHECK_NEAR(m.ref_std, sqrt(1.25), 1e-12);
    CHECK_NEAR(m.rms, 0.05, 1e-6);
    CHECK_NEAR(v.scale, sqrt(1.25), 1e-12);
    CHECK_NEAR(v.score, 0.05 / sqrt(1.25), 1e-6);
    CHECK(v.pass && !v.constant_ref && !v.flat_ref);
    CHECK(v.severity < 1);
    lg_judge_values(ref, t2, 4, NULL, &m, &v);
    CHECK_NEAR(v.score, 0.06 / sqrt(1.25), 1e-6);
    CHECK(!v.pass && v.severity > 1);
    CHECK(strstr(v.why, "0.05") != NULL); /* the threshold is printed as it is */
    /* --tol: the same error passes at 0.06 */
    lg_judge_options o = {0.06, 0, 0, 0};
    lg_judge_values(ref, t2, 4, &o, &m, &v);
    CHECK(v.pass);
}

/* One value: the scale is its magnitude. 0.12 -> 0.1219 is a relative error of 0.0158 (the
   old rule for outputs under 8 values failed it at 1e-2); 0.12 -> 0.129 is 0.075 (fails). */
LG_TEST(judge_one_value_against_its_magnitude) {
    float ref = 0.12f, ok = 0.1219f, bad = 0.129f;
    lg_metrics m;
    lg_verdict v;
    lg_judge_values(&ref, &ok, 1, NULL, &m, &v);
    CHECK(v.constant_ref && !v.flat_ref); /* one value is not a warning */
    CHECK_NEAR(v.scale, 0.12, 1e-7);
    CHECK_NEAR(v.score, 0.0019 / 0.12, 1e-5);
    CHECK(v.pass);
    CHECK(isnan(m.pearson)); /* undefined, not 0 */
    lg_judge_values(&ref, &bad, 1, NULL, &m, &v);
    CHECK(!v.pass);
}

/* The floor 2^-14: values ~1e-20 that f16 flushes to 0 are negligible (the selfie
   segmentation false alarm); values ~1e-3 (above the floor) that become 0 are not. */
LG_TEST(judge_floor_negligible_outputs) {
    float ref[8], zero[8] = {0};
    for (int i = 0; i < 8; i++) ref[i] = (float)(i - 3) * 1e-20f;
    lg_metrics m;
    lg_verdict v;
    lg_judge_values(ref, zero, 8, NULL, &m, &v);
    CHECK_NEAR(v.scale, LG_JUDGE_FLOOR, 0);
    CHECK(v.pass && v.flat_ref);
    for (int i = 0; i < 8; i++) ref[i] = (float)(i - 3) * 1e-3f;
    lg_judge_values(ref, zero, 8, NULL, &m, &v);
    CHECK(!v.pass && !v.flat_ref); /* std sqrt(5.25) 1e-3 ~ 2.3e-3 > floor; rms ~ std */
}

/* inf/NaN that the reference does not have: always a failure, severity infinite. */
LG_TEST(judge_new_nonfinite_fails) {
    float ref[8] = {1, 2, 3, 4, 5, 6, 7, 8}, test[8] = {1, 2, 3, 4, 5, 6, 7, INFINITY};
    lg_metrics m;
    lg_verdict v;
    lg_judge_values(ref, test, 8, NULL, &m, &v);
    CHECK(v.new_nonfinite && !v.pass && isinf(v.severity));
    CHECK(strstr(v.why, "inf/NaN") != NULL);
    /* a reference inf matched by the test is not new */
    ref[7] = INFINITY;
    lg_judge_values(ref, test, 8, NULL, &m, &v);
    CHECK(!v.new_nonfinite && v.pass);
}

/* Undefined statistics are NaN: Pearson of a constant tensor, cosine/max_rel/nmse of an
   all-zero reference; defined ones stay numbers. */
LG_TEST(metrics_undefined_are_nan) {
    float z[4] = {0, 0, 0, 0}, c[4] = {0.5f, 0.5f, 0.5f, 0.5f}, d[4] = {0.5f, 0.5f, 0.5f, 0.6f};
    lg_metrics m;
    lg_metrics_compute(z, z, 4, &m);
    CHECK(isnan(m.pearson) && isnan(m.cosine) && isnan(m.max_rel) && isnan(m.nmse));
    CHECK_NEAR(m.max_abs, 0, 0);
    lg_metrics_compute(c, d, 4, &m);
    CHECK(isnan(m.pearson));                       /* ref constant */
    CHECK_NEAR(m.max_rel, 0.1 / 0.5, 1e-6);        /* defined */
    lg_verdict v;
    lg_judge(&m, NULL, &v);
    /* constant 0.5: scale 0.5, rms = 0.1 / 2 (one of four values off by 0.1) = 0.05, score 0.1 */
    CHECK(v.constant_ref && v.flat_ref);
    CHECK_NEAR(v.score, 0.1, 1e-6);
    CHECK(!v.pass);
}

/* --corr and max_rel as extra criteria, off by default. ref = 0..15, test = ref with the
   last two swapped: rms sqrt(2/16) = 0.354, std sqrt((16^2-1)/12) = 4.61: score 0.077, so
   tol 0.1 passes; Pearson = 1 - 6 sum d^2 / (n (n^2-1)) = 1 - 12/4080 = 0.99706 (Spearman's
   formula is exact for a permutation of 0..n-1): corr 0.999 fails it, 0.99 does not. */
LG_TEST(judge_optional_corr) {
    float ref[16], test[16];
    for (int i = 0; i < 16; i++) ref[i] = test[i] = (float)i;
    test[14] = 15;
    test[15] = 14;
    lg_metrics m;
    lg_verdict v;
    lg_judge_options o = {0.1, 0, 0, 0};
    lg_judge_values(ref, test, 16, &o, &m, &v);
    CHECK_NEAR(m.pearson, 1 - 12.0 / 4080.0, 1e-9);
    CHECK(v.pass);
    o.corr = 0.999;
    lg_judge_values(ref, test, 16, &o, &m, &v);
    CHECK(!v.pass && strstr(v.why, "correlation") != NULL);
    o.corr = 0.99;
    lg_judge_values(ref, test, 16, &o, &m, &v);
    CHECK(v.pass);
}

/* The two-model golden input defaults to the pattern fill: a LayerNorm and a model that
   outputs zeros agree on a constant input (the LayerNorm of a constant is 0) but not on the
   pattern. Without random cases the golden input alone decides. */
static void ln_or_zero(kt_model *t, bool ln) {
    static lg_reducer_options keep = {true};
    lg_builder *b = &t->b;
    int32_t axis1[1] = {1};
    float eps_v = 1e-6f, zero_v = 0;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 64));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 64));
    if (!ln) {
        int z = lg_b_const_f32(b, "zero", LG_DIMS(1), &zero_v);
        lg_b_op(b, LG_OP_MUL, LG_IDS(x, z), LG_IDS(y));
    } else {
        int ax = lg_b_const_i32(b, "axis", LG_DIMS(1), axis1);
        int eps = lg_b_const_f32(b, "eps", LG_DIMS(1), &eps_v);
        int mu = lg_b_tensor(b, "mu", LG_FLOAT32, LG_DIMS(1, 1));
        int d = lg_b_tensor(b, "d", LG_FLOAT32, LG_DIMS(1, 64));
        int sq = lg_b_tensor(b, "sq", LG_FLOAT32, LG_DIMS(1, 64));
        int var = lg_b_tensor(b, "var", LG_FLOAT32, LG_DIMS(1, 1));
        int ve = lg_b_tensor(b, "ve", LG_FLOAT32, LG_DIMS(1, 1));
        int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 1));
        lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(x, ax), LG_IDS(mu), LG_OPTS_REDUCER_OPTIONS, &keep);
        lg_b_op(b, LG_OP_SUB, LG_IDS(x, mu), LG_IDS(d));
        lg_b_op(b, LG_OP_MUL, LG_IDS(d, d), LG_IDS(sq));
        lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(sq, ax), LG_IDS(var), LG_OPTS_REDUCER_OPTIONS, &keep);
        lg_b_op(b, LG_OP_ADD, LG_IDS(var, eps), LG_IDS(ve));
        lg_b_op(b, LG_OP_RSQRT, LG_IDS(ve), LG_IDS(r));
        lg_b_op(b, LG_OP_MUL, LG_IDS(d, r), LG_IDS(y));
    }
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

LG_TEST(compare_models_default_golden_is_not_constant) {
    kt_model a, z;
    kt_init(&a);
    kt_init(&z);
    ln_or_zero(&a, true);
    ln_or_zero(&z, false);
    CHECK_OK(a.b.status, &a.b.err);
    CHECK_OK(z.b.status, &z.b.err);
    lg_models_options o = {LG_PREC_F32, 0, 1, 1e-4, 1e-3, 1, LG_INT_TFLITE};
    lg_models_report *r = NULL;
    lg_error err;
    if (a.b.status == LG_OK && z.b.status == LG_OK) CHECK_OK(lg_compare_models(a.m, z.m, NULL, &o, &r, &err), &err);
    if (r) {
        CHECK_EQ_INT(r->n_cases, 1);
        CHECK(!r->ok); /* the half fill gave 0 == 0 here */
        lg_models_report_free(r);
        r = NULL;
    }
    /* near miss: a constant golden given explicitly still agrees (what half did) */
    float half[64];
    for (int i = 0; i < 64; i++) half[i] = 0.5f;
    const float *g[1] = {half};
    if (a.b.status == LG_OK && z.b.status == LG_OK) CHECK_OK(lg_compare_models(a.m, z.m, g, &o, &r, &err), &err);
    if (r) {
        CHECK(r->ok);
        lg_models_report_free(r);
    }
    kt_free(&a);
    kt_free(&z);
}

/* An interface mismatch names both types and shapes. */
LG_TEST(compare_models_mismatch_names_both) {
    kt_model a, b;
    kt_init(&a);
    kt_init(&b);
    float zero_v = 0;
    int xa = lg_b_tensor(&a.b, "x", LG_FLOAT32, LG_DIMS(1, 64));
    int ya = lg_b_tensor(&a.b, "y", LG_FLOAT32, LG_DIMS(1, 64));
    int za = lg_b_const_f32(&a.b, "zero", LG_DIMS(1), &zero_v);
    lg_b_op(&a.b, LG_OP_MUL, LG_IDS(xa, za), LG_IDS(ya));
    lg_b_io(&a.b, LG_IDS(xa), LG_IDS(ya));
    int xb = lg_b_tensor(&b.b, "x", LG_FLOAT32, LG_DIMS(1, 32));
    int yb = lg_b_tensor(&b.b, "y", LG_FLOAT32, LG_DIMS(1, 32));
    int zb = lg_b_const_f32(&b.b, "zero", LG_DIMS(1), &zero_v);
    lg_b_op(&b.b, LG_OP_MUL, LG_IDS(xb, zb), LG_IDS(yb));
    lg_b_io(&b.b, LG_IDS(xb), LG_IDS(yb));
    CHECK_OK(a.b.status, &a.b.err);
    CHECK_OK(b.b.status, &b.b.err);
    lg_models_report *r = NULL;
    lg_error err;
    if (a.b.status == LG_OK && b.b.status == LG_OK) {
        CHECK_EQ_INT(lg_compare_models(a.m, b.m, NULL, NULL, &r, &err), LG_ERR_INVALID_ARG);
        CHECK(strstr(err.msg, "[1, 64]") != NULL && strstr(err.msg, "[1, 32]") != NULL);
        CHECK(strstr(err.msg, "input 0") != NULL);
    }
    lg_models_report_free(r);
    kt_free(&a);
    kt_free(&b);
}

/* Precision mode: a negligible output (x * 1e-20, flushed to 0 by half) does not make the
   verdict; the failing output is the worst. Model: x [1, 64]; out 0 = x * 1e-20, out 1 =
   (x + 1024) - 1024 (fails, see test_compare.c). Alone, the tiny output passes. */
LG_TEST(compare_negligible_output_is_not_the_verdict) {
    kt_model t;
    kt_init(&t);
    lg_builder *b = &t.b;
    float tiny_v = 1e-20f, big_v = 1024.0f;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 64));
    int tk = lg_b_const_f32(b, "tk", LG_DIMS(1), &tiny_v);
    int big = lg_b_const_f32(b, "big", LG_DIMS(1), &big_v);
    int tiny = lg_b_tensor(b, "tiny", LG_FLOAT32, LG_DIMS(1, 64));
    int up = lg_b_tensor(b, "up", LG_FLOAT32, LG_DIMS(1, 64));
    int back = lg_b_tensor(b, "back", LG_FLOAT32, LG_DIMS(1, 64));
    lg_b_op(b, LG_OP_MUL, LG_IDS(x, tk), LG_IDS(tiny));
    lg_b_op(b, LG_OP_ADD, LG_IDS(x, big), LG_IDS(up));
    lg_b_op(b, LG_OP_SUB, LG_IDS(up, big), LG_IDS(back));
    lg_b_io(b, LG_IDS(x), LG_IDS(tiny, back));
    CHECK_OK(b->status, &b->err);
    float in[64];
    for (int i = 0; i < 64; i++) in[i] = (float)((i * 37) % 64) / 64.0f + 1.0f / 256.0f;
    const float *inputs[1] = {in};
    lg_compare_options o = {LG_PREC_F16, 0, 0, 1, 0, 0};
    lg_precision_report *r = NULL;
    lg_error err;
    if (b->status == LG_OK) CHECK_OK(lg_compare_precision(t.m, inputs, &o, &r, &err), &err);
    if (r) {
        CHECK(r->outputs[0].v.pass);           /* 1e-20 scale: negligible */
        CHECK(!r->outputs[1].v.pass);
        CHECK_EQ_INT(r->worst_output, 1);
        CHECK(!r->ok);
        CHECK_EQ_INT(r->first_divergent_op, 1); /* the ADD, not the tiny MUL */
        CHECK_EQ_INT(r->n_flat_outputs, 1);     /* the tiny output, std ~ 3e-21 < floor */
        lg_precision_report_free(r);
    }
    kt_free(&t);
}
