/* The integer kernels (src/run/k_quant*.c): TFLite's fixed-point helpers with hand-derived
 * values, one-op int8 models through the interpreter in both integer arithmetics
 * (LG_INT_TFLITE, LG_INT_XNNPACK), and the quantized forms that are refused. */
#include <string.h>

#include "lg/lg.h"
#include "lg/run.h"
#include "run/k_quant.h"
#include "kt.h"
#include "tf.h"

/* ------------------------------------------------------------------ fixed point */

LG_TEST(k_quant_quantize_multiplier_matches_tflite) {
    int32_t m;
    int s;
    /* quantization_util_test.cc QuantizeMultiplierArray: 0.125 -> (2^30, -2), 0.5 -> (2^30, 0),
       1 -> (2^30, 1), 4 -> (2^30, 3), 0 -> (0, 0) */
    CHECK(lgq_quantize_multiplier(0.125, &m, &s)); CHECK_EQ_INT(m, 1 << 30); CHECK_EQ_INT(s, -2);
    CHECK(lgq_quantize_multiplier(0.5, &m, &s)); CHECK_EQ_INT(m, 1 << 30); CHECK_EQ_INT(s, 0);
    CHECK(lgq_quantize_multiplier(1.0, &m, &s)); CHECK_EQ_INT(m, 1 << 30); CHECK_EQ_INT(s, 1);
    CHECK(lgq_quantize_multiplier(4.0, &m, &s)); CHECK_EQ_INT(m, 1 << 30); CHECK_EQ_INT(s, 3);
    CHECK(lgq_quantize_multiplier(0.0, &m, &s)); CHECK_EQ_INT(m, 0); CHECK_EQ_INT(s, 0);
    /* 0.3 = 0.6 * 2^-1; round(0.6 * 2^31) = round(1288490188.8) = 1288490189 */
    CHECK(lgq_quantize_multiplier(0.3, &m, &s)); CHECK_EQ_INT(m, 1288490189); CHECK_EQ_INT(s, -1);
    /* 1 - 2^-40: q * 2^31 rounds up to 2^31, which becomes 2^30 with the shift one higher */
    CHECK(lgq_quantize_multiplier(1.0 - 0x1p-40, &m, &s)); CHECK_EQ_INT(m, 1 << 30); CHECK_EQ_INT(s, 1);
    /* 2^-40: shift -39 < -31 flushes to zero */
    CHECK(lgq_quantize_multiplier(0x1p-40, &m, &s)); CHECK_EQ_INT(m, 0); CHECK_EQ_INT(s, 0);
    /* near miss: a negative multiplier is refused */
    CHECK(!lgq_quantize_multiplier(-0.5, &m, &s));
}

LG_TEST(k_quant_gemmlowp_rounding) {
    /* SRDHM(a, 2^30) = a / 2 rounded, ties up: (2^60 + 2^30) / 2^31 truncates to 2^29 */
    CHECK_EQ_INT(lgq_srdhm(1 << 30, 1 << 30), 1 << 29);
    CHECK_EQ_INT(lgq_srdhm(1, 1 << 30), 1);   /* 0.5 -> 1 */
    CHECK_EQ_INT(lgq_srdhm(-1, 1 << 30), 0);  /* -0.5 -> 0: (-2^30 + 1 - 2^30) / 2^31 */
    CHECK_EQ_INT(lgq_srdhm(-3, 1 << 30), -1); /* -1.5 -> -1 */
    CHECK_EQ_INT(lgq_srdhm(INT32_MIN, INT32_MIN), INT32_MAX); /* the one overflow saturates */
    /* RoundingDivideByPOT: ties away from zero */
    CHECK_EQ_INT(lgq_rdbpot(5, 1), 3);
    CHECK_EQ_INT(lgq_rdbpot(-5, 1), -3);
    CHECK_EQ_INT(lgq_rdbpot(4, 1), 2);
    CHECK_EQ_INT(lgq_rdbpot(-6, 2), -2); /* -1.5 */
    CHECK_EQ_INT(lgq_rdbpot(-5, 2), -1); /* -1.25 */
    CHECK_EQ_INT(lgq_rdbpot(7, 0), 7);
    /* MultiplyByQuantizedMultiplier: 100 * 0.5 * 2^-1 = 25; 3 * 0.5 * 2^1 = 3 */
    CHECK_EQ_INT(lgq_mbqm(100, 1 << 30, -1), 25);
    CHECK_EQ_INT(lgq_mbqm(3, 1 << 30, 1), 3);
    /* the int64 (16x8) form: multiplier reduced to (2^30 + 2^15) >> 16 = 16384, one rounding:
       (1000 * 16384 + 2^15) >> 16 = 250 for 1000 * 0.5 * 2^-1 */
    CHECK_EQ_INT(lgq_mbqm64(1000, 1 << 30, -1), 250);
}

/* ------------------------------------------------------------------ one-op models */

static const float s1[1] = {1.0f};
static const int64_t z0[1] = {0};

/* a quantized tensor of a kt_op */
static kt_tensor qin(lg_dtype t, lg_dims shape, const void *data, const float *scale, const int64_t *zp) {
    kt_tensor k = KT_IN(t, shape, data);
    k.scale = scale;
    k.zp = zp;
    k.nq = 1;
    return k;
}

/* run c with the given integer arithmetic; returns the interpreter (the caller frees) or NULL */
static lg_interp *run_arith(const kt_op *c, lg_int_arith a, kt_model *t, lg_error *err) {
    kt_init(t);
    kt_add_op(t, c);
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.int_arith = a;
    lg_interp *it = NULL;
    if (lg_interp_create(t->m, &ro, &it, err) != LG_OK) return NULL;
    for (uint32_t i = 0; i < lg_interp_n_inputs(it); i++) {
        lg_tensor_view v;
        lg_interp_input(it, i, &v);
        if (lg_interp_set_input(it, i, v.type, t->in_data[i], v.nbytes, err) != LG_OK) { lg_interp_free(it); return NULL; }
    }
    if (lg_interp_invoke(it, err) != LG_OK) { lg_interp_free(it); return NULL; }
    return it;
}

static void expect_out(const char *file, int line, const kt_op *c, lg_int_arith a, const int64_t *want, int64_t n) {
    kt_model t;
    lg_error err;
    lg_interp *it = run_arith(c, a, &t, &err);
    if (!it) {
        tf_fail(file, line, "run failed: %s", err.msg);
    } else {
        lg_tensor_view v;
        lg_interp_output(it, 0, &v);
        kt_check_view_ints(file, line, lg_int_arith_name(a), &v, c->out[0].type, want, n);
        lg_interp_free(it);
    }
    kt_free(&t);
}
#define EXPECT_OUT(c, a, want) expect_out(__FILE__, __LINE__, (c), (a), (want), (int64_t)(sizeof(want) / sizeof((want)[0])))

/* CONV_2D 1x1, one input channel, per-channel weights {1, 3} at scales {0.5, 0.25}: the real
   multipliers are 0.5 and 0.25. x = {1, 3, -3, 7}:
   channel 0, x * 0.5: TFLite (SRDHM ties up) {1, 2, -1, 4}; XNNPACK (ties to even) {0, 2, -2, 4};
   channel 1, acc = 3x = {3, 9, -9, 21} times 0.25 = (2^30, shift -1): TFLite rounds twice,
   RDBPOT(SRDHM(acc, 2^30), 1): SRDHM gives {2, 5, -4, 11}, then {1, 3, -2, 6} (2.25 -> 3,
   5.25 -> 6: gemmlowp's double rounding); XNNPACK rounds 0.75, 2.25, -2.25, 5.25 once:
   {1, 2, -2, 5}. */
LG_TEST(k_quant_conv_per_channel_both_roundings) {
    const int8_t x[4] = {1, 3, -3, 7};
    const int8_t w[2] = {1, 3};
    const float ws[2] = {0.5f, 0.25f};
    const int64_t wz[2] = {0, 0};
    const int32_t b[2] = {0, 0};
    const float bs[2] = {0.5f, 0.25f};
    lg_conv2d_options co;
    memset(&co, 0, sizeof co);
    co.padding = LG_PADDING_VALID;
    co.stride_w = co.stride_h = 1;
    co.dilation_w_factor = co.dilation_h_factor = 1;
    kt_op c = {LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &co, 3, {
        qin(LG_INT8, LG_DIMS(1, 2, 2, 1), x, s1, z0),
        {LG_INT8, LG_DIMS(2, 1, 1, 1), w, 1, ws, wz, 2, 0},
        {LG_INT32, LG_DIMS(2), b, 1, bs, wz, 2, 0},
    }, 1, {qin(LG_INT8, LG_DIMS(1, 2, 2, 2), NULL, s1, z0)}};
    const int64_t tfl[8] = {1, 1, 2, 3, -1, -2, 4, 6};
    const int64_t xnn[8] = {0, 1, 2, 2, -2, -2, 4, 5};
    EXPECT_OUT(&c, LG_INT_TFLITE, tfl);
    EXPECT_OUT(&c, LG_INT_XNNPACK, xnn);
    /* near miss: int8 weights with a non-zero zero point (TFLite requires symmetric) */
    const int64_t wz1[2] = {0, 3};
    c.in[1].zp = wz1;
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_UNSUPPORTED, "CONV_2D");
}

/* ADD of a (scale 0.5) and b = 0 into scale 1: a = {3, -3, 1, -1} is {1.5, -1.5, 0.5, -0.5}.
   TFLite (add.cc: left shift 20, output multiplier 2^-20 with RoundingDivideByPOT, ties away
   from zero): {2, -2, 1, -1}. XNNPACK (multipliers 2^20, shift 21, bias 2^20, arithmetic
   shift: ties up): {2, -1, 1, 0}. */
LG_TEST(k_quant_add_both_roundings) {
    const int8_t a[4] = {3, -3, 1, -1}, b[4] = {0, 0, 0, 0};
    const float sh[1] = {0.5f};
    lg_add_options ao = {LG_ACTIVATION_FUNCTION_TYPE_NONE, false};
    kt_op c = {LG_OP_ADD, LG_OPTS_ADD_OPTIONS, &ao, 2, {
        qin(LG_INT8, LG_DIMS(4), a, sh, z0), qin(LG_INT8, LG_DIMS(4), b, sh, z0),
    }, 1, {qin(LG_INT8, LG_DIMS(4), NULL, s1, z0)}};
    const int64_t tfl[4] = {2, -2, 1, -1}, xnn[4] = {2, -1, 1, 0};
    EXPECT_OUT(&c, LG_INT_TFLITE, tfl);
    EXPECT_OUT(&c, LG_INT_XNNPACK, xnn);
}

/* LOGISTIC int8, input scale 1/16, output 1/256 zero point -128 (TFLite's LUT):
   x = 0: 0.5 * 256 = 128 -> 0; x = 16 (1.0): 0.7310586 * 256 = 187.15 -> 187 - 128 = 59;
   x = -16: 0.2689414 * 256 = 68.85 -> 69 - 128 = -59; x = 127: 255.9 -> 256 - 128, clamped 127. */
LG_TEST(k_quant_logistic_lut) {
    const int8_t x[4] = {0, 16, -16, 127};
    const float si[1] = {1.0f / 16}, so[1] = {1.0f / 256};
    const int64_t zo[1] = {-128};
    kt_op c = {LG_OP_LOGISTIC, LG_OPTS_NONE, NULL, 1, {qin(LG_INT8, LG_DIMS(4), x, si, z0)}, 1,
               {qin(LG_INT8, LG_DIMS(4), NULL, so, zo)}};
    const int64_t want[4] = {0, 59, -59, 127};
    EXPECT_OUT(&c, LG_INT_TFLITE, want);
    /* near miss: TFLite requires the output scale 1/256 */
    const float bad[1] = {1.0f / 128};
    c.out[0].scale = bad;
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_FORMAT, "1/256");
}

/* AVERAGE_POOL_2D int8 2x2 VALID: sums 7, -7, 5 over 4 cells: (7 + 2) / 4 = 2,
   (-7 - 2) / 4 = -2 (truncated), (5 + 2) / 4 = 1. */
LG_TEST(k_quant_average_pool_rounds_half_away) {
    const int8_t x[12] = {1, -1, 1, 2, -2, 1, 2, -2, 1, 2, -2, 2}; /* [1,2,2,3] */
    lg_pool2d_options po;
    memset(&po, 0, sizeof po);
    po.padding = LG_PADDING_VALID;
    po.stride_w = po.stride_h = 1;
    po.filter_width = po.filter_height = 2;
    kt_op c = {LG_OP_AVERAGE_POOL_2D, LG_OPTS_POOL2D_OPTIONS, &po, 1,
               {qin(LG_INT8, LG_DIMS(1, 2, 2, 3), x, s1, z0)}, 1, {qin(LG_INT8, LG_DIMS(1, 1, 1, 3), NULL, s1, z0)}};
    const int64_t want[3] = {2, -2, 1};
    EXPECT_OUT(&c, LG_INT_TFLITE, want);
    /* near miss: a pool whose output quantization differs would need requantization */
    const float s2[1] = {2.0f};
    c.out[0].scale = s2;
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_UNSUPPORTED, "AVERAGE_POOL_2D");
}

/* QUANTIZE int8 -> int8 from scale 1 to scale 2: x * 0.5 with TFLite's ties up
   {1, 3, -1, -3} -> {1, 2, 0, -1}; XNNPACK's 8.8 fixed point (m = 128, bias 0x80, asr 8) gives
   the same here. int8 -> uint8 (zero point 128, scale 1): x + 128. */
LG_TEST(k_quant_requantize) {
    const int8_t x[4] = {1, 3, -1, -3};
    const float s2[1] = {2.0f};
    kt_op c = {LG_OP_QUANTIZE, LG_OPTS_NONE, NULL, 1, {qin(LG_INT8, LG_DIMS(4), x, s1, z0)}, 1,
               {qin(LG_INT8, LG_DIMS(4), NULL, s2, z0)}};
    const int64_t want[4] = {1, 2, 0, -1};
    EXPECT_OUT(&c, LG_INT_TFLITE, want);
    EXPECT_OUT(&c, LG_INT_XNNPACK, want);
    const int64_t z128[1] = {128};
    c.out[0] = qin(LG_UINT8, LG_DIMS(4), NULL, s1, z128);
    const int64_t wu[4] = {129, 131, 127, 125};
    EXPECT_OUT(&c, LG_INT_TFLITE, wu);
}

/* near miss: an int8 CONCATENATION whose inputs differ in quantization (TFLite's int8 kernel
   refuses it; only uint8 is rescaled) is refused with one line naming the op */
LG_TEST(k_quant_concat_int8_rescale_refused) {
    const int8_t a[2] = {1, 2}, b[2] = {3, 4};
    const float s2[1] = {2.0f};
    lg_concatenation_options o = {0, 0};
    kt_op c = {LG_OP_CONCATENATION, LG_OPTS_CONCATENATION_OPTIONS, &o, 2,
               {qin(LG_INT8, LG_DIMS(2), a, s1, z0), qin(LG_INT8, LG_DIMS(2), b, s2, z0)}, 1,
               {qin(LG_INT8, LG_DIMS(4), NULL, s1, z0)}};
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_UNSUPPORTED, "CONCATENATION");
    /* the same scales: a raw copy */
    c.in[1].scale = s1;
    const int64_t want[4] = {1, 2, 3, 4};
    EXPECT_OUT(&c, LG_INT_TFLITE, want);
    /* uint8 with scale 2 -> 1: (q - 0) * 2 rounded */
    const uint8_t ua[2] = {1, 2}, ub[2] = {3, 4};
    c.in[0] = qin(LG_UINT8, LG_DIMS(2), ua, s1, z0);
    c.in[1] = qin(LG_UINT8, LG_DIMS(2), ub, s2, z0);
    c.out[0] = qin(LG_UINT8, LG_DIMS(4), NULL, s1, z0);
    const int64_t wu[4] = {1, 2, 6, 8};
    EXPECT_OUT(&c, LG_INT_TFLITE, wu);
}
