/* The seed's fp16 failure classes, on small graphs built with the builder, through
 * lg_compare_precision (f32 vs emulated GPU f16):
 *   1. a NAFNet-style channel LayerNorm on |x| ~ 175 over 512 channels: the f16 variance
 *      (a mean of squares ~1.5e4 summed over 512 channels) overflows and compare names it;
 *   2. the same with the scale-before-square (SafeLayerNorm v2) form: no overflow, corr > 0.999;
 *   3. an RMSNorm on |x| ~ 274: the f16 output is all zeros (274^2 > 65504);
 *   4. a plain small conv net: f16 corr > 0.999.
 * Expected behaviour is derived from the magnitudes (65504 = the largest half), not from
 * running the code. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kt.h"
#include "lg/compare.h"
#include "tf.h"

#define C 512
#define H 2
#define W 4

static lg_reducer_options keep = {true};

/* lg_compare_precision of t's model (f32 against emulated f16, the default judge) on inputs;
   NULL after recording a failure when the model or the comparison fails. */
static lg_precision_report *compare_f16(kt_model *t, const float *const *inputs) {
    lg_compare_options o = {LG_PREC_F16, 0, 0, 1, 0, 0}; /* the default judge (compare.h) */
    lg_precision_report *r = NULL;
    lg_error err;
    CHECK_OK(t->b.status, &t->b.err);
    if (t->b.status == LG_OK) CHECK_OK(lg_compare_precision(t->m, inputs, &o, &r, &err), &err);
    return r;
}

static float *make_input(double amp, int n) {
    float *x = malloc((size_t)n * sizeof *x);
    for (int i = 0; i < n; i++) x[i] = (float)(amp * cos(0.37 * i + 0.1 * (i / C)));
    return x;
}

/* y = (x - mean) * rsqrt(mean((x - mean)^2) + eps) over the channel axis. Returns the op
   index of the variance MEAN through *var_op. */
static void add_layernorm(lg_builder *b, int x, int y, bool safe, int *var_op) {
    int32_t axis3[1] = {3};
    int ax = lg_b_const_i32(b, "axis", LG_DIMS(1), axis3);
    float eps_v = 1e-6f, one_v = 1.0f, eighth_v = 0.125f;
    int eps = lg_b_const_f32(b, "eps", LG_DIMS(1), &eps_v);
    int src = x;
    if (safe) {
        /* S = max(1, amax / 8) per row; xs = x / S (the scale cancels in d / sqrt(var)) */
        int one = lg_b_const_f32(b, "one", LG_DIMS(1), &one_v);
        int eighth = lg_b_const_f32(b, "eighth", LG_DIMS(1), &eighth_v);
        int ab = lg_b_tensor(b, "abs", LG_FLOAT32, LG_DIMS(1, H, W, C));
        int amax = lg_b_tensor(b, "amax", LG_FLOAT32, LG_DIMS(1, H, W, 1));
        int s8 = lg_b_tensor(b, "amax8", LG_FLOAT32, LG_DIMS(1, H, W, 1));
        int s = lg_b_tensor(b, "scale", LG_FLOAT32, LG_DIMS(1, H, W, 1));
        int xs = lg_b_tensor(b, "xs", LG_FLOAT32, LG_DIMS(1, H, W, C));
        lg_b_op(b, LG_OP_ABS, LG_IDS(x), LG_IDS(ab));
        lg_b_op_opts(b, LG_OP_REDUCE_MAX, LG_IDS(ab, ax), LG_IDS(amax), LG_OPTS_REDUCER_OPTIONS, &keep);
        lg_b_op(b, LG_OP_MUL, LG_IDS(amax, eighth), LG_IDS(s8));
        lg_b_op(b, LG_OP_MAXIMUM, LG_IDS(s8, one), LG_IDS(s));
        lg_b_op(b, LG_OP_DIV, LG_IDS(x, s), LG_IDS(xs));
        src = xs;
    }
    int mu = lg_b_tensor(b, "mean", LG_FLOAT32, LG_DIMS(1, H, W, 1));
    int d = lg_b_tensor(b, "centered", LG_FLOAT32, LG_DIMS(1, H, W, C));
    int sq = lg_b_tensor(b, "squared", LG_FLOAT32, LG_DIMS(1, H, W, C));
    int var = lg_b_tensor(b, "variance", LG_FLOAT32, LG_DIMS(1, H, W, 1));
    int ve = lg_b_tensor(b, "var_eps", LG_FLOAT32, LG_DIMS(1, H, W, 1));
    int r = lg_b_tensor(b, "rstd", LG_FLOAT32, LG_DIMS(1, H, W, 1));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(src, ax), LG_IDS(mu), LG_OPTS_REDUCER_OPTIONS, &keep);
    lg_b_op(b, LG_OP_SUB, LG_IDS(src, mu), LG_IDS(d));
    lg_b_op(b, LG_OP_MUL, LG_IDS(d, d), LG_IDS(sq));
    *var_op = lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(sq, ax), LG_IDS(var), LG_OPTS_REDUCER_OPTIONS, &keep);
    lg_b_op(b, LG_OP_ADD, LG_IDS(var, eps), LG_IDS(ve));
    lg_b_op(b, LG_OP_RSQRT, LG_IDS(ve), LG_IDS(r));
    lg_b_op(b, LG_OP_MUL, LG_IDS(d, r), LG_IDS(y));
}

static lg_precision_report *run_ln(bool safe, double amp, int *var_op) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(1, H, W, C));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(1, H, W, C));
    add_layernorm(&t.b, x, y, safe, var_op);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    float *in = make_input(amp, H * W * C);
    const float *inputs[1] = {in};
    lg_precision_report *r = compare_f16(&t, inputs);
    free(in);
    kt_free(&t);
    return r;
}

LG_TEST(fp16_class1_nafnet_layernorm_variance_overflows) {
    int var_op = -1;
    lg_precision_report *r = run_ln(false, 175.0, &var_op);
    if (!r) return;
    /* d^2 ~ 175^2/2 ~ 1.5e4 on average; 512 of them sum to ~7.8e6 > 65504: inf */
    CHECK_EQ_INT(r->first_divergent_op, var_op);
    CHECK(r->n_overflows >= 1);
    if (r->n_overflows) {
        CHECK_EQ_INT(r->overflows[0].op, var_op);
        CHECK_EQ_INT(r->overflows[0].reduced, C);
        CHECK(r->overflows[0].accum_estimate > 65504);
    }
    CHECK(!r->ok);
    lg_precision_report_free(r);
}

LG_TEST(fp16_class2_safe_layernorm_v2_holds) {
    int var_op = -1;
    lg_precision_report *r = run_ln(true, 175.0, &var_op);
    if (!r) return;
    /* xs = x / (175/8) stays within +-8; 512 squares of <= 64 sum to < 65504 */
    CHECK_EQ_INT(r->n_overflows, 0);
    CHECK(r->n_outputs == 1 && r->outputs[0].m.pearson > 0.999);
    CHECK(r->ok);
    lg_precision_report_free(r);
}

LG_TEST(fp16_class3_rmsnorm_collapses_to_zero) {
    kt_model t;
    kt_init(&t);
    lg_builder *b = &t.b;
    int32_t axis3[1] = {3};
    float eps_v = 1e-6f;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, H, W, C));
    int ax = lg_b_const_i32(b, "axis", LG_DIMS(1), axis3);
    int eps = lg_b_const_f32(b, "eps", LG_DIMS(1), &eps_v);
    int sq = lg_b_tensor(b, "sq", LG_FLOAT32, LG_DIMS(1, H, W, C));
    int ms = lg_b_tensor(b, "ms", LG_FLOAT32, LG_DIMS(1, H, W, 1));
    int me = lg_b_tensor(b, "ms_eps", LG_FLOAT32, LG_DIMS(1, H, W, 1));
    int r = lg_b_tensor(b, "rrms", LG_FLOAT32, LG_DIMS(1, H, W, 1));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, H, W, C));
    lg_b_op(b, LG_OP_MUL, LG_IDS(x, x), LG_IDS(sq));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(sq, ax), LG_IDS(ms), LG_OPTS_REDUCER_OPTIONS, &keep);
    lg_b_op(b, LG_OP_ADD, LG_IDS(ms, eps), LG_IDS(me));
    lg_b_op(b, LG_OP_RSQRT, LG_IDS(me), LG_IDS(r));
    lg_b_op(b, LG_OP_MUL, LG_IDS(x, r), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    /* every value +-274: 274^2 = 75076 > 65504 is inf in half, the mean is inf,
       rsqrt(inf) = 0, so y = x * 0 = 0 everywhere */
    float *in = malloc(H * W * C * sizeof *in);
    for (int i = 0; i < H * W * C; i++) in[i] = (i % 3 == 0) ? -274.0f : 274.0f;
    const float *inputs[1] = {in};
    if (kt_run(&t, LG_PREC_F16, 1, (const void *const *)inputs) == LG_OK) {
        lg_tensor_view v = kt_out(&t, 0);
        int zeros = 0;
        for (int64_t i = 0; i < v.numel; i++) zeros += ((const float *)v.data)[i] == 0.0f;
        CHECK_EQ_INT(zeros, H * W * C);
        lg_precision_report *rep = compare_f16(&t, inputs);
        if (rep) {
            CHECK(!rep->ok);
            CHECK(rep->n_overflows >= 1 && rep->overflows[0].op == 0); /* born in x*x */
            lg_precision_report_free(rep);
        }
    } else {
        tf_fail(__FILE__, __LINE__, "interpreter: %s", t.err.msg);
    }
    free(in);
    kt_free(&t);
}

LG_TEST(fp16_class4_small_convnet_holds) {
    kt_model t;
    kt_init(&t);
    lg_builder *b = &t.b;
    float w1[8 * 3 * 3 * 3], b1[8], w2[4 * 3 * 3 * 8], b2[4];
    uint64_t s = 7;
    for (size_t i = 0; i < sizeof w1 / 4; i++) { s = s * 6364136223846793005ull + 1; w1[i] = (float)((double)(s >> 40) / (1 << 24) - 0.5); }
    for (size_t i = 0; i < sizeof w2 / 4; i++) { s = s * 6364136223846793005ull + 1; w2[i] = (float)((double)(s >> 40) / (1 << 24) - 0.5) * 0.5f; }
    for (int i = 0; i < 8; i++) b1[i] = 0.01f * (float)i;
    for (int i = 0; i < 4; i++) b2[i] = -0.02f * (float)i;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 16, 16, 3));
    int k1 = lg_b_const_f32(b, "w1", LG_DIMS(8, 3, 3, 3), w1);
    int c1 = lg_b_const_f32(b, "b1", LG_DIMS(8), b1);
    int k2 = lg_b_const_f32(b, "w2", LG_DIMS(4, 3, 3, 8), w2);
    int c2 = lg_b_const_f32(b, "b2", LG_DIMS(4), b2);
    int h = lg_b_tensor(b, "h", LG_FLOAT32, LG_DIMS(1, 16, 16, 8));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_conv2d_options o1 = {0}, o2 = {0};
    o1.padding = LG_PADDING_SAME; o1.stride_w = o1.stride_h = 1; o1.dilation_w_factor = o1.dilation_h_factor = 1;
    o1.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU;
    o2 = o1;
    o2.stride_w = o2.stride_h = 2;
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, k1, c1), LG_IDS(h), LG_OPTS_CONV2D_OPTIONS, &o1);
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(h, k2, c2), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o2);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    float in[16 * 16 * 3];
    for (int i = 0; i < 16 * 16 * 3; i++) in[i] = (float)((i * 7919 + 13) % 1009) / 1009.0f;
    const float *inputs[1] = {in};
    lg_precision_report *r = compare_f16(&t, inputs);
    if (r) {
        CHECK_EQ_INT(r->n_overflows, 0);
        CHECK(r->outputs[0].m.pearson > 0.999);
        CHECK(r->ok);
        lg_precision_report_free(r);
    }
    kt_free(&t);
}
