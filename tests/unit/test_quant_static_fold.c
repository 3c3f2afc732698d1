/* litegpu quantize int8-static: clamps folded into their producer (quant_static_fold.c), the
   MAXIMUM / MINIMUM parameter rule (the output's range, inputs requantized), the rows of the
   newer int8 kernels (RESIZE_BILINEAR, TRANSPOSE_CONV, RSQRT, DIV, GELU) with their near misses,
   and the constant operand widened for XNNPACK's ADD scale ratio. Every expected parameter and
   integer is derived by hand in the comments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lg/graph.h"
#include "lg/quantize.h"
#include "lg/run.h"
#include "passes/quant_static_impl.h"
#include "tf.h"

/* ------------------------------------------------------------------ helpers */

static int32_t find_t(const lg_model *m, const char *name) {
    const lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t t = 0; t < sg->n_tensors; t++)
        if (sg->tensors[t].name && strcmp(sg->tensors[t].name, name) == 0) return (int32_t)t;
    return -1;
}

static uint32_t n_ops_of(const lg_model *m, int32_t code) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++) n += lg_op_builtin(m, &m->subgraphs[0].ops[i]) == code;
    return n;
}

static const lg_op *first_op(const lg_model *m, int32_t code) {
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++)
        if (lg_op_builtin(m, &m->subgraphs[0].ops[i]) == code) return &m->subgraphs[0].ops[i];
    return NULL;
}

static bool params_are(const lg_model *m, int32_t t, float s, int32_t z) {
    if (t < 0) return false;
    const lg_tensor *x = &m->subgraphs[0].tensors[t];
    const lg_quant *q = x->quant;
    return x->type == LG_INT8 && q && q->n_scale == 1 && q->scale[0] == s && q->n_zero_point == 1 && q->zero_point[0] == z;
}

static lg_quant_options sopts(const void *const *const *cases, uint32_t n) {
    lg_quant_options o;
    memset(&o, 0, sizeof o);
    o.mode = LG_QUANT_INT8_STATIC;
    o.cases = cases;
    o.n_cases = n;
    o.no_measure = true;
    return o;
}

static lg_model *begin(lg_builder *b) {
    lg_model *m = NULL;
    lg_error e;
    if (lg_model_new(NULL, NULL, &m, &e) != LG_OK) return NULL;
    lg_builder_init(b, m, 0);
    return m;
}

static lg_model *end(lg_builder *b, lg_model *m) {
    if (b->status == LG_OK) return m;
    lg_model_free(m);
    return NULL;
}

/* Run q on x (FLOAT32 input 0) with arithmetic a; output k's floats into out[n]. */
static bool run_f32(const lg_model *q, lg_int_arith a, const float *x, size_t nx, uint32_t k, float *out, size_t n) {
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.int_arith = a;
    lg_interp *it = NULL;
    lg_error e;
    bool ok = lg_interp_create(q, &ro, &it, &e) == LG_OK && lg_interp_set_input(it, 0, LG_FLOAT32, x, nx * 4, &e) == LG_OK &&
              lg_interp_invoke(it, &e) == LG_OK;
    lg_tensor_view v;
    ok = ok && lg_interp_output(it, k, &v) == LG_OK && v.type == LG_FLOAT32 && (size_t)v.numel == n;
    if (ok) memcpy(out, v.data, n * 4);
    if (!ok) fprintf(stderr, "run_f32: %s\n", e.msg);
    lg_interp_free(it);
    return ok;
}

/* ------------------------------------------------------------------ activation bounds */

LG_TEST(qstatic_fold_act_bounds_by_hand) {
    int32_t lo, hi;
    /* s = 14/255, zp = -55: RELU6 -> q(0) = -55, q(6) = -55 + round(109.29) = 54, in both
       arithmetics (xnnpack: rintf(109.29 - 55) = 54) */
    const float s = 14.0f / 255.0f;
    for (int x = 0; x < 2; x++) {
        CHECK(lgqs_act_bounds(LG_ACTIVATION_FUNCTION_TYPE_RELU6, x == 1, s, -55, &lo, &hi));
        CHECK_EQ_INT(lo, -55);
        CHECK_EQ_INT(hi, 54);
        CHECK(lgqs_act_bounds(LG_ACTIVATION_FUNCTION_TYPE_RELU, x == 1, s, -55, &lo, &hi));
        CHECK_EQ_INT(lo, -55);
        CHECK_EQ_INT(hi, 127);
        /* RELU_N1_TO_1: -55 + round(-18.21) = -73, -55 + 18 = -37 */
        CHECK(lgqs_act_bounds(LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1, x == 1, s, -55, &lo, &hi));
        CHECK_EQ_INT(lo, -73);
        CHECK_EQ_INT(hi, -37);
        CHECK(lgqs_act_bounds(LG_ACTIVATION_FUNCTION_TYPE_NONE, x == 1, s, -55, &lo, &hi));
        CHECK(lo == -128 && hi == 127);
    }
    /* where the two differ: s = 4, zp = 1: 6 / 4 = 1.5 exactly. TFLite: 1 + round(1.5) = 3 (half
       away from zero); XNNPACK: rintf(1.5 + 1) = rintf(2.5) = 2 (half to even) */
    CHECK(lgqs_act_bounds(LG_ACTIVATION_FUNCTION_TYPE_RELU6, false, 4.0f, 1, &lo, &hi));
    CHECK_EQ_INT(hi, 3);
    CHECK(lgqs_act_bounds(LG_ACTIVATION_FUNCTION_TYPE_RELU6, true, 4.0f, 1, &lo, &hi));
    CHECK_EQ_INT(hi, 2);
    /* bounds outside int8 saturate: s = 0.01, zp = 0: q(6) = 600 -> 127 */
    CHECK(lgqs_act_bounds(LG_ACTIVATION_FUNCTION_TYPE_RELU6, false, 0.01f, 0, &lo, &hi));
    CHECK(lo == 0 && hi == 127);
    CHECK(!lgqs_act_bounds(LG_ACTIVATION_FUNCTION_TYPE_TANH, false, 0.01f, 0, &lo, &hi));
}

/* ------------------------------------------------------------------ Clip after a conv */

/* x [1,1,4,2] -> CONV_2D 1x1 (identity weights, zero bias, NONE) -> c -> MAXIMUM(c, lo) -> m
   -> MINIMUM(m, 6) -> z; y = CONCATENATION(z, x) on the channels [1,1,4,4]; with `tap` c is
   a graph output too. The concatenation puts z, x and y in one group, so z's parameters are
   wider than [0, 6] and the fused activation has to do the clamp. */
static lg_model *clip_model(float lo, bool tap) {
    lg_builder b;
    lg_model *m = begin(&b);
    if (!m) return NULL;
    static const float w[4] = {1, 0, 0, 1}, bias[2] = {0, 0}, six = 6;
    const float lov = lo;
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 1, 4, 2));
    int32_t wt = lg_b_const_f32(&b, "w", LG_DIMS(2, 1, 1, 2), w);
    int32_t bt = lg_b_const_f32(&b, "b", LG_DIMS(2), bias);
    int32_t c = lg_b_tensor(&b, "c", LG_FLOAT32, LG_DIMS(1, 1, 4, 2));
    int32_t k0 = lg_b_const_f32(&b, "lo", LG_SCALAR, &lov);
    int32_t k6 = lg_b_const_f32(&b, "six", LG_SCALAR, &six);
    int32_t mm = lg_b_tensor(&b, "m", LG_FLOAT32, LG_DIMS(1, 1, 4, 2));
    int32_t z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(1, 1, 4, 2));
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 1, 4, 4));
    lg_conv2d_options co;
    lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &co, sizeof co);
    co.padding = LG_PADDING_VALID;
    co.stride_w = co.stride_h = co.dilation_w_factor = co.dilation_h_factor = 1;
    lg_b_op_opts(&b, LG_OP_CONV_2D, LG_IDS(x, wt, bt), LG_IDS(c), LG_OPTS_CONV2D_OPTIONS, &co);
    lg_b_op(&b, LG_OP_MAXIMUM, LG_IDS(c, k0), LG_IDS(mm));
    lg_b_op(&b, LG_OP_MINIMUM, LG_IDS(mm, k6), LG_IDS(z));
    lg_concatenation_options cc;
    lg_opts_init(LG_OPTS_CONCATENATION_OPTIONS, &cc, sizeof cc);
    cc.axis = 3;
    lg_b_op_opts(&b, LG_OP_CONCATENATION, LG_IDS(z, x), LG_IDS(y), LG_OPTS_CONCATENATION_OPTIONS, &cc);
    if (tap) lg_b_io(&b, LG_IDS(x), LG_IDS(y, c));
    else lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    return end(&b, m);
}

/* Pixels (-4, 10), (3, 6.5), (1, 2), (0, 5): x in [-4, 10], so the group of z, x and y is
   [-4, 10]: s = 14/255, zp = round(-128 + 4 / s) = round(-128 + 72.86) = -55. x / s = 18.214 x:
   x_q = -73 - 55 = -128, 182 - 55 = 127, 55 - 55 = 0, 118 - 55 = 63, 18 - 55 = -37,
   36 - 55 = -19, -55, 91 - 55 = 36. The identity conv gives c_q = x_q (requantization by
   s / 127 / s x 127 = 1). */
static const float clip_x[8] = {-4, 10, 3, 6.5f, 1, 2, 0, 5};
static const void *const clip_case[1] = {clip_x};
static const void *const *const clip_cases[1] = {clip_case};

LG_TEST(qstatic_fold_clip_into_conv_relu6) {
    lg_model *m = clip_model(0, false), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = sopts(clip_cases, 1);
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (!q || !r) goto out;
    const float s = 14.0f / 255.0f;
    /* the clamp is the conv's RELU6: its integer range [q(0), q(6)] = [-55, 54] is the clamp of
       MAXIMUM(., q(0)) / MINIMUM(., q(6)) on z's parameters */
    CHECK_EQ_INT(n_ops_of(q, LG_OP_MAXIMUM) + n_ops_of(q, LG_OP_MINIMUM), 0);
    const lg_op *cv = first_op(q, LG_OP_CONV_2D);
    CHECK(cv && ((const lg_conv2d_options *)cv->opts)->fused_activation_function == LG_ACTIVATION_FUNCTION_TYPE_RELU6);
    /* it writes z (the clamp's output) with the group's parameters; c and m are gone */
    CHECK(cv && params_are(q, cv->outputs[0], s, -55));
    CHECK(cv && strcmp(q->subgraphs[0].tensors[cv->outputs[0]].name, "z") == 0);
    CHECK(find_t(q, "c") < 0 && find_t(q, "m") < 0);
    /* QUANTIZE x, CONV, CONCATENATION, DEQUANTIZE y; the folded clamps count as int8 ops */
    CHECK_EQ_INT(q->subgraphs[0].n_ops, 4);
    CHECK_EQ_INT(r->n_ops_int8, 4);
    CHECK_EQ_INT(r->n_ops_float, 0);
    CHECK_EQ_INT(r->n_requantize, 0);
    /* y per pixel (z0 z1 x0 x1) in steps of s above the zero point: z_q = clamp(x_q, -55, 54):
       (-4, 10) -> z (0, 109), x (-73, 182); (3, 6.5) -> z (55, 109), x (55, 118);
       (1, 2) -> (18, 36, 18, 36); (0, 5) -> (0, 91, 0, 91) */
    static const int want[16] = {0, 109, -73, 182, 55, 109, 55, 118, 18, 36, 18, 36, 0, 91, 0, 91};
    for (int a = 0; a < 2; a++) {
        float y[16];
        if (!run_f32(q, a ? LG_INT_XNNPACK : LG_INT_TFLITE, clip_x, 8, 0, y, 16)) {
            CHECK(false);
            continue;
        }
        for (int i = 0; i < 16; i++) CHECK(y[i] == (float)want[i] * s);
    }
out:
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(qstatic_fold_clip_near_miss_bound) {
    /* Clip(0.5, 6): q(0.5) = -55 + round(9.11) = -46 is no fused activation's bound (RELU6 and
       RELU start at -55, NONE at -128): not folded, MAXIMUM and MINIMUM stay int8 with TFLite's
       rule (the output's own range; the inputs requantized into it) */
    lg_model *m = clip_model(0.5f, false), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = sopts(clip_cases, 1);
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (!q || !r) goto out;
    CHECK_EQ_INT(n_ops_of(q, LG_OP_MAXIMUM), 1);
    CHECK_EQ_INT(n_ops_of(q, LG_OP_MINIMUM), 1);
    const lg_op *cv = first_op(q, LG_OP_CONV_2D);
    CHECK(cv && ((const lg_conv2d_options *)cv->opts)->fused_activation_function == LG_ACTIVATION_FUNCTION_TYPE_NONE);
    CHECK_EQ_INT(r->n_ops_int8, 4); /* CONV, MAXIMUM, MINIMUM, CONCATENATION */
    /* c = x in [-4, 10] (14/255, -55, its own range); m = max(c, 0.5) in [0.5, 10] -> [0, 10]:
       10/255, -128; c is not inside m's range: requantized; m is not inside z's [0, 6]
       (widened to hold 0; z's group is the concatenation's [-4, 10] but the rule reads the
       own ranges): requantized too */
    CHECK(params_are(q, find_t(q, "c"), 14.0f / 255.0f, -55));
    CHECK(params_are(q, find_t(q, "m"), 10.0f / 255.0f, -128));
    CHECK(params_are(q, find_t(q, "c_requant"), 10.0f / 255.0f, -128));
    CHECK(params_are(q, find_t(q, "m_requant"), 14.0f / 255.0f, -55));
    CHECK_EQ_INT(r->n_requantize, 2);
    /* the constants take the output's parameters: 0.5 in m's: round(12.75) - 128 = -115; 6 in
       z's: 54 */
    int32_t klo = find_t(q, "lo_int8"), k6 = find_t(q, "six_int8");
    CHECK(params_are(q, klo, 10.0f / 255.0f, -128) && params_are(q, k6, 14.0f / 255.0f, -55));
    if (klo >= 0 && k6 >= 0) {
        CHECK_EQ_INT(*(const int8_t *)lg_tensor_buffer(q, &q->subgraphs[0].tensors[klo])->data, -115);
        CHECK_EQ_INT(*(const int8_t *)lg_tensor_buffer(q, &q->subgraphs[0].tensors[k6])->data, 54);
    }
    /* pixel 0, channel 0: x = -4 -> c_q -128 -> in m's parameters -4.008 clamps to -128 (0) ->
       max with -115: -115 = 13 x 10/255 = 0.5098 -> in z's: 0.5098 / (14/255) = 9.29 -> 9 - 55 =
       -46 -> min with 54: -46; y[0] = 9 x 14/255 */
    float y[16];
    CHECK(run_f32(q, LG_INT_TFLITE, clip_x, 8, 0, y, 16) && y[0] == 9.0f * (14.0f / 255.0f));
out:
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(qstatic_fold_clip_near_miss_second_reader) {
    /* c is also a graph output: folding would lose it; the clamp ops stay (int8) and the conv
       keeps NONE */
    lg_model *m = clip_model(0, true), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_options o = sopts(clip_cases, 1);
    CHECK_OK(lg_quantize(m, &o, &q, NULL, &e), &e);
    if (q) {
        CHECK_EQ_INT(n_ops_of(q, LG_OP_MAXIMUM), 1);
        CHECK_EQ_INT(n_ops_of(q, LG_OP_MINIMUM), 1);
        const lg_op *cv = first_op(q, LG_OP_CONV_2D);
        CHECK(cv && ((const lg_conv2d_options *)cv->opts)->fused_activation_function == LG_ACTIVATION_FUNCTION_TYPE_NONE);
    }
    lg_model_free(q);
    /* and an excluded clamp op is not folded either: MAXIMUM stays float, the conv NONE */
    q = NULL;
    lg_model_free(m);
    m = clip_model(0, false);
    const char *ex[1] = {"MAXIMUM"};
    o.exclude = ex;
    o.n_exclude = 1;
    lg_quant_report *r = NULL;
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (q && r) {
        CHECK_EQ_INT(n_ops_of(q, LG_OP_MAXIMUM), 1);
        CHECK_EQ_INT(r->n_excluded, 1);
        const lg_op *cv = first_op(q, LG_OP_CONV_2D);
        CHECK(cv && ((const lg_conv2d_options *)cv->opts)->fused_activation_function == LG_ACTIVATION_FUNCTION_TYPE_NONE);
    }
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

/* x [1,1,4,2] -> CONV_2D (identity) -> c -> RELU -> y */
static lg_model *relu_model(int32_t relu_code) {
    lg_builder b;
    lg_model *m = begin(&b);
    if (!m) return NULL;
    static const float w[4] = {1, 0, 0, 1}, bias[2] = {0, 0};
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 1, 4, 2));
    int32_t wt = lg_b_const_f32(&b, "w", LG_DIMS(2, 1, 1, 2), w);
    int32_t bt = lg_b_const_f32(&b, "b", LG_DIMS(2), bias);
    int32_t c = lg_b_tensor(&b, "c", LG_FLOAT32, LG_DIMS(1, 1, 4, 2));
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 1, 4, 2));
    lg_conv2d_options co;
    lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &co, sizeof co);
    co.padding = LG_PADDING_VALID;
    co.stride_w = co.stride_h = co.dilation_w_factor = co.dilation_h_factor = 1;
    lg_b_op_opts(&b, LG_OP_CONV_2D, LG_IDS(x, wt, bt), LG_IDS(c), LG_OPTS_CONV2D_OPTIONS, &co);
    lg_b_op(&b, relu_code, LG_IDS(c), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    return end(&b, m);
}

LG_TEST(qstatic_fold_relu_ops) {
    lg_error e;
    lg_quant_options o = sopts(clip_cases, 1);
    /* RELU: y in [0, 10]: 10/255, -128; the conv writes y with its RELU (q(0) = -128: NONE
       would be exact as well, the natural one is kept). The conv requantizes from x's
       [-4, 10] to y's parameters: 4x finer than c's own range would give. */
    lg_model *m = relu_model(LG_OP_RELU), *q = NULL;
    CHECK_OK(lg_quantize(m, &o, &q, NULL, &e), &e);
    if (q) {
        CHECK_EQ_INT(n_ops_of(q, LG_OP_RELU), 0);
        const lg_op *cv = first_op(q, LG_OP_CONV_2D);
        CHECK(cv && ((const lg_conv2d_options *)cv->opts)->fused_activation_function == LG_ACTIVATION_FUNCTION_TYPE_RELU);
        CHECK(cv && params_are(q, cv->outputs[0], 10.0f / 255.0f, -128));
        /* x = 3: x_q = 0 (14/255, -55): 55 x 14/255 = 3.0196 -> / (10/255) = 77 -> -51; x = -4 -> 0 */
        float y[8];
        if (run_f32(q, LG_INT_XNNPACK, clip_x, 8, 0, y, 8)) {
            CHECK(y[0] == 0.0f);
            CHECK(y[2] == 77.0f * (10.0f / 255.0f));
        }
    }
    lg_model_free(q);
    lg_model_free(m);
    /* RELU_0_TO_1: y in [0, 1]: 1/255, -128; no fused activation is [0, 1], but int8
       saturation is: q(0) = -128, q(1) = 127: NONE */
    m = relu_model(LG_OP_RELU_0_TO_1);
    q = NULL;
    CHECK_OK(lg_quantize(m, &o, &q, NULL, &e), &e);
    if (q) {
        CHECK_EQ_INT(n_ops_of(q, LG_OP_RELU_0_TO_1), 0);
        const lg_op *cv = first_op(q, LG_OP_CONV_2D);
        CHECK(cv && ((const lg_conv2d_options *)cv->opts)->fused_activation_function == LG_ACTIVATION_FUNCTION_TYPE_NONE);
        CHECK(cv && params_are(q, cv->outputs[0], 1.0f / 255.0f, -128));
    }
    lg_model_free(q);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ MAXIMUM / MINIMUM */

/* int8 I/O: y = MAXIMUM(x1, x2), w = MINIMUM(x2, 100). */
static lg_model *minmax_model(void) {
    lg_builder b;
    lg_model *m = begin(&b);
    if (!m) return NULL;
    static const float big = 100;
    int32_t x1 = lg_b_tensor(&b, "x1", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t x2 = lg_b_tensor(&b, "x2", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t k = lg_b_const_f32(&b, "big", LG_SCALAR, &big);
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t w = lg_b_tensor(&b, "w", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(&b, LG_OP_MAXIMUM, LG_IDS(x1, x2), LG_IDS(y));
    lg_b_op(&b, LG_OP_MINIMUM, LG_IDS(x2, k), LG_IDS(w));
    lg_b_io(&b, LG_IDS(x1, x2), LG_IDS(y, w));
    return end(&b, m);
}

LG_TEST(qstatic_minmax_output_range_rule) {
    lg_model *m = minmax_model(), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    /* x1 = [-1, 1, 0.5, 0] (own range [-1, 1]: 2/255, zp round(-0.5) = -1); x2 = [0, 3, 0.25, 2];
       y = max = [0, 3, 0.5, 2] in [0, 3]: 3/255, -128. x2 lies inside y's range: one group;
       x1 does not: requantized into y's parameters. w = min(x2, 100) = x2: the constant 100
       does not widen anything, it is quantized with w's parameters and clamps to 127. */
    static const float x1[4] = {-1, 1, 0.5f, 0}, x2[4] = {0, 3, 0.25f, 2};
    const void *const c0[2] = {x1, x2};
    const void *const *const cases[1] = {c0};
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = sopts(cases, 1);
    o.int8_io = true;
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (!q || !r) goto out;
    const float s = 3.0f / 255.0f;
    CHECK(params_are(q, find_t(q, "y"), s, -128));
    CHECK(params_are(q, find_t(q, "x2"), s, -128));
    CHECK(params_are(q, find_t(q, "w"), s, -128));
    CHECK(params_are(q, find_t(q, "x1"), 2.0f / 255.0f, -1));
    CHECK(params_are(q, find_t(q, "x1_requant"), s, -128));
    CHECK_EQ_INT(r->n_requantize, 1);
    int32_t kb = find_t(q, "big_int8");
    CHECK(params_are(q, kb, s, -128));
    if (kb >= 0) CHECK_EQ_INT(*(const int8_t *)lg_tensor_buffer(q, &q->subgraphs[0].tensors[kb])->data, 127);
out:
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ the newer kernels' rows */

/* x [1,4] -> a = ADD(x, x) -> OP(a[, k]) -> y [1,4] (k a constant or, runtime, b = ADD(x, x)). */
static lg_model *unary_model(int32_t code, const float *kval, bool runtime_k) {
    lg_builder b;
    lg_model *m = begin(&b);
    if (!m) return NULL;
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_add_options ao;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(x, x), LG_IDS(a), LG_OPTS_ADD_OPTIONS, &ao);
    if (runtime_k) {
        int32_t k = lg_b_tensor(&b, "k", LG_FLOAT32, LG_DIMS(1, 4));
        lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(a, a), LG_IDS(k), LG_OPTS_ADD_OPTIONS, &ao);
        lg_b_op(&b, code, LG_IDS(a, k), LG_IDS(y));
    } else if (kval) {
        int32_t k = lg_b_const_f32(&b, "k", LG_SCALAR, kval);
        if (code == LG_OP_ADD) lg_b_op_opts(&b, code, LG_IDS(a, k), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &ao);
        else lg_b_op(&b, code, LG_IDS(a, k), LG_IDS(y));
    } else {
        lg_b_op(&b, code, LG_IDS(a), LG_IDS(y));
    }
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    return end(&b, m);
}

/* Quantize; the report's (first) float op and why, or NULL when every op is int8. */
static const char *why_float(lg_model *m, const float *x, lg_model **q, char *why, size_t n) {
    const void *const c0[1] = {x};
    const void *const *const cases[1] = {c0};
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = sopts(cases, 1);
    *q = NULL;
    if (lg_quantize(m, &o, q, &r, &e) != LG_OK) {
        snprintf(why, n, "refused: %.150s", e.msg);
        return why;
    }
    const char *res = NULL;
    if (r->n_ops_float) {
        snprintf(why, n, "%s", r->float_ops[0].why);
        res = why;
    }
    lg_quant_report_free(r);
    return res;
}

LG_TEST(qstatic_rsqrt_needs_nonnegative_input) {
    char why[200];
    lg_model *q = NULL;
    /* x in [0.5, 2]: a in [1, 4] -> [0, 4] (zp -128): RSQRT int8, output own range [0.5, 1] */
    static const float pos[4] = {0.5f, 1, 1.5f, 2}, neg[4] = {-0.5f, 1, 1.5f, 2};
    lg_model *m = unary_model(LG_OP_RSQRT, NULL, false);
    CHECK(why_float(m, pos, &q, why, sizeof why) == NULL);
    CHECK(q && n_ops_of(q, LG_OP_RSQRT) == 1 && first_op(q, LG_OP_RSQRT) &&
          q->subgraphs[0].tensors[first_op(q, LG_OP_RSQRT)->inputs[0]].type == LG_INT8);
    lg_model_free(q);
    /* near miss: a reaches -1: zp = round(-128 + 1 / (5/255)) = -77: a negative int8 value
       would fail TFLite's kernel, so RSQRT stays float */
    const char *w = why_float(m, neg, &q, why, sizeof why);
    CHECK(w && strstr(w, "negative input") != NULL);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(qstatic_div_by_constant_only) {
    char why[200];
    lg_model *q = NULL;
    static const float x[4] = {-1, 0.5f, 1, 2}, k = 2.5f;
    /* a / 2.5: the divisor is a constant: [0, 2.5] -> 2.5/255, zp -128, 2.5 -> 127 (not the zero
       point): DIV int8 */
    lg_model *m = unary_model(LG_OP_DIV, &k, false);
    CHECK(why_float(m, x, &q, why, sizeof why) == NULL);
    CHECK(q && n_ops_of(q, LG_OP_DIV) == 1);
    lg_model_free(q);
    lg_model_free(m);
    /* near miss: a runtime divisor (k = a + a) stays float */
    m = unary_model(LG_OP_DIV, NULL, true);
    const char *w = why_float(m, x, &q, why, sizeof why);
    CHECK(w && strstr(w, "divisor is computed at run time") != NULL);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(qstatic_gelu_and_eps_add) {
    char why[200];
    lg_model *q = NULL;
    static const float x[4] = {-2, -0.5f, 1, 2};
    lg_model *m = unary_model(LG_OP_GELU, NULL, false);
    CHECK(why_float(m, x, &q, why, sizeof why) == NULL);
    CHECK(q && n_ops_of(q, LG_OP_GELU) == 1);
    lg_model_free(q);
    lg_model_free(m);
    /* a + 1e-5 with a in [-4, 4] (8/255): the constant's own range [0, 1e-4] (the minimal
       width) gives 1e-4/255 = 3.9e-7, 1.25e-5 of y's scale (8/255 too), below XNNPACK's 2^-10:
       the constant gets the smallest scale allowed, s_y / 1024 (x (1 + 2^-12)); the ADD is
       int8 */
    static const float eps = 1e-5f;
    m = unary_model(LG_OP_ADD, &eps, false);
    CHECK(why_float(m, x, &q, why, sizeof why) == NULL);
    if (q) {
        int32_t k = find_t(q, "k_int8"), y = find_t(q, "y_int8");
        CHECK(k >= 0 && y >= 0);
        if (k >= 0 && y >= 0) {
            const float sk = q->subgraphs[0].tensors[k].quant->scale[0], sy = q->subgraphs[0].tensors[y].quant->scale[0];
            CHECK(sk / sy >= 0x1.0p-10f && sk / sy < 0x1.0p-10f * 1.01f);
            CHECK_EQ_INT(q->subgraphs[0].tensors[k].quant->zero_point[0], -128);
        }
    }
    lg_model_free(q);
    lg_model_free(m);
    /* near miss: a constant 1.0 ([0, 1]: 1/255, ratio 1/8) keeps its own parameters */
    static const float one = 1.0f;
    m = unary_model(LG_OP_ADD, &one, false);
    CHECK(why_float(m, x, &q, why, sizeof why) == NULL);
    if (q) CHECK(params_are(q, find_t(q, "k_int8"), 1.0f / 255.0f, -128));
    lg_model_free(q);
    lg_model_free(m);
}

/* x [1,2,2,1] -> RESIZE_BILINEAR to 4x4 -> y; x [1,2,2,1] -> TRANSPOSE_CONV (2x2 stride 2
   VALID, 1 channel, w = [1, 0.5, -0.5, 0.25], bias 0.125) -> t [1,4,4,1]. */
static lg_model *resize_tconv_model(void) {
    lg_builder b;
    lg_model *m = begin(&b);
    if (!m) return NULL;
    static const int32_t size[2] = {4, 4}, oshape[4] = {1, 4, 4, 1};
    static const float w[4] = {1, 0.5f, -0.5f, 0.25f}, bias[1] = {0.125f};
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 1));
    int32_t a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, 2, 2, 1));
    int32_t sz = lg_b_const_i32(&b, "size", LG_DIMS(2), size);
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 1));
    int32_t os = lg_b_const_i32(&b, "oshape", LG_DIMS(4), oshape);
    int32_t wt = lg_b_const_f32(&b, "tw", LG_DIMS(1, 2, 2, 1), w);
    int32_t bt = lg_b_const_f32(&b, "tb", LG_DIMS(1), bias);
    int32_t t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 4, 4, 1));
    lg_add_options ao;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(x, x), LG_IDS(a), LG_OPTS_ADD_OPTIONS, &ao);
    lg_resize_bilinear_options ro;
    lg_opts_init(LG_OPTS_RESIZE_BILINEAR_OPTIONS, &ro, sizeof ro);
    ro.half_pixel_centers = true;
    lg_b_op_opts(&b, LG_OP_RESIZE_BILINEAR, LG_IDS(a, sz), LG_IDS(y), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &ro);
    lg_transpose_conv_options to;
    lg_opts_init(LG_OPTS_TRANSPOSE_CONV_OPTIONS, &to, sizeof to);
    to.padding = LG_PADDING_VALID;
    to.stride_w = to.stride_h = 2;
    lg_b_op_v(&b, LG_OP_TRANSPOSE_CONV, 4, LG_IDS(os, wt, x, bt), LG_IDS(t), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &to);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y, t));
    return end(&b, m);
}

LG_TEST(qstatic_resize_bilinear_and_transpose_conv) {
    lg_model *m = resize_tconv_model(), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    /* x = [-1, 0, 0.5, 1]: [-1, 1]: 2/255, zp round(-128 + 127.5) = round(-0.5) = -1 (half away
       from zero); a = 2x in [-2, 2]: 4/255, zp -1 too; the resize keeps a's parameters (restrict same scale); the
       transposed conv reads x: weights per output channel (one: max |w| 1, scale 1/127), the
       bias INT32 with scale s_x / 127: 0.125 / (2/255/127) = 2023.9 -> 2024 */
    static const float x[4] = {-1, 0, 0.5f, 1};
    const void *const c0[1] = {x};
    const void *const *const cases[1] = {c0};
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = sopts(cases, 1);
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (!q || !r) goto out;
    CHECK_EQ_INT(r->n_ops_float, 0);
    const lg_op *rs = first_op(q, LG_OP_RESIZE_BILINEAR), *tc = first_op(q, LG_OP_TRANSPOSE_CONV);
    CHECK(rs && params_are(q, rs->inputs[0], 4.0f / 255.0f, -1) && params_are(q, rs->outputs[0], 4.0f / 255.0f, -1));
    CHECK(tc && params_are(q, tc->inputs[2], 2.0f / 255.0f, -1));
    if (tc) {
        const lg_tensor *w = &q->subgraphs[0].tensors[tc->inputs[1]], *bb = &q->subgraphs[0].tensors[tc->inputs[3]];
        CHECK(w->type == LG_INT8 && w->quant && w->quant->n_scale == 1 && w->quant->scale[0] == 1.0f / 127.0f);
        CHECK(bb->type == LG_INT32 && bb->quant && bb->quant->scale[0] == (2.0f / 255.0f) * (1.0f / 127.0f));
        int32_t b0 = 0;
        memcpy(&b0, lg_tensor_buffer(q, bb)->data, 4);
        CHECK_EQ_INT(b0, 2024);
        /* w = [1, 0.5, -0.5, 0.25] x 127: 127, 63.5 -> 64, -64, 31.75 -> 32 */
        const int8_t *d = (const int8_t *)lg_tensor_buffer(q, w)->data;
        CHECK(d[0] == 127 && d[1] == 64 && d[2] == -64 && d[3] == 32);
    }
out:
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}
