/* The integer kernels of k_quant_more.h (k_quant_resize.c, k_quant_tconv.c, k_quant_unary.c,
 * k_quant_binary.c, k_quant_int16.c) and the gemmlowp helpers of k_quant_fp.h: hand-derived
 * values (the derivation next to each), in both integer arithmetics where they differ, and a
 * near miss for each rule. */
#include <string.h>

#include "lg/lg.h"
#include "lg/run.h"
#include "run/k_quant_fp.h"
#include "kt.h"
#include "tf.h"

/* ------------------------------------------------------------------ fixed point */

LG_TEST(k_quant_more_sign_bits_and_saturating_shift) {
    CHECK_EQ_INT(lgq_clz32(0), 32);
    CHECK_EQ_INT(lgq_clz32(1), 31);
    CHECK_EQ_INT(lgq_clz32(0x80000000u), 0);
    /* CountLeadingSignBits: 0 and -1 have 31 redundant sign bits, 1 and -2 have 30 */
    CHECK_EQ_INT(lgq_clrsb32(0), 31);
    CHECK_EQ_INT(lgq_clrsb32(-1), 31);
    CHECK_EQ_INT(lgq_clrsb32(1), 30);
    CHECK_EQ_INT(lgq_clrsb32(-2), 30);
    CHECK_EQ_INT(lgq_clrsb32(0x40000000), 0);
    CHECK_EQ_INT(lgq_clrsb32(INT32_MIN), 0);
    /* SaturatingRoundingMultiplyByPOT<2>: threshold 2^29 - 1 */
    CHECK_EQ_INT(lgq_sat_pot((1 << 29) - 1, 2), ((1 << 29) - 1) * 4);
    CHECK_EQ_INT(lgq_sat_pot(1 << 29, 2), INT32_MAX);
    CHECK_EQ_INT(lgq_sat_pot(-((1 << 29) - 1), 2), -((1 << 29) - 1) * 4);
    CHECK_EQ_INT(lgq_sat_pot(-(1 << 29), 2), INT32_MIN);
    /* RoundingHalfSum: (a + b +- 1) / 2 truncated */
    CHECK_EQ_INT(lgq_half_sum(3, 4), 4);
    CHECK_EQ_INT(lgq_half_sum(-3, -4), -4);
    CHECK_EQ_INT(lgq_half_sum(1, 0), 1);
    CHECK_EQ_INT(lgq_half_sum(2, 0), 1);
}

LG_TEST(k_quant_more_reciprocal_and_inv_sqrt) {
    int rs;
    /* x = 3: clz 30, bits over unit 31 - 30 = 1; (3 << 30) - 2^31 = 2^30 is 0.5 in F0, so the
       reciprocal is 1 / 1.5 = 2/3: 2^31 * 2/3 = 1431655765.3 (Newton-Raphson, within a few
       units) */
    int32_t r = lgq_reciprocal(3, 31, &rs);
    CHECK_EQ_INT(rs, 1);
    CHECK(r >= 1431655762 && r <= 1431655768);
    /* x = 4: (4 << 29) - 2^31 = 0 -> 1 / (1 + 0) saturates to the largest F0 */
    r = lgq_reciprocal(4, 31, &rs);
    CHECK_EQ_INT(rs, 2);
    CHECK(r >= INT32_MAX - 4);
    /* inv sqrt of 4: shift 11 - 13 pairs = -2, the input normalized to 2^28 (F3 0.5), so x
       converges to 1/sqrt(0.5) * sqrt(2)/2 = 1.0 = 2^28 in F3, then << 2 with shift 0 */
    int32_t m;
    int s;
    lgq_inv_sqrt(4, -1, &m, &s);
    CHECK_EQ_INT(s, 0);
    CHECK(m >= (1 << 30) - 16 && m <= (1 << 30) + 16);
    /* input <= 1: INT32_MAX, shift 0 */
    lgq_inv_sqrt(1, -1, &m, &s);
    CHECK_EQ_INT(m, INT32_MAX);
    CHECK_EQ_INT(s, 0);
    /* 64: clz 25, 12 bit pairs, 11 used: shift 11 - 11 = 0, input 64 << 22 = 2^28 again, so
       x = 1.0 in F3 = 2^28, which as a Q31 multiplier is 1/8 = 1 / sqrt(64) */
    lgq_inv_sqrt(64, -1, &m, &s);
    CHECK_EQ_INT(s, 0);
    CHECK(m >= (1 << 28) - 4 && m <= (1 << 28) + 4);
}

/* ------------------------------------------------------------------ one-op models */

static kt_tensor q(lg_dtype t, lg_dims shape, const void *data, const float *scale, const int64_t *zp) {
    kt_tensor k = KT_IN(t, shape, data);
    k.scale = scale;
    k.zp = zp;
    k.nq = 1;
    return k;
}
static kt_tensor qc(lg_dtype t, lg_dims shape, const void *data, const float *scale, const int64_t *zp) {
    kt_tensor k = q(t, shape, data, scale, zp);
    k.is_const = 1;
    return k;
}

static const float S1[1] = {1.0f}, S05[1] = {0.5f}, S025[1] = {0.25f}, S2[1] = {2.0f};
static const int64_t Z0[1] = {0};

/* run c with integer arithmetic a; output 0 must hold want */
static void expect_ints(const char *file, int line, const kt_op *c, lg_int_arith a, const int64_t *want, int64_t n) {
    kt_model t;
    kt_init(&t);
    kt_add_op(&t, c);
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.int_arith = a;
    lg_interp *it = NULL;
    lg_error err;
    memset(&err, 0, sizeof err);
    lg_status st = lg_interp_create(t.m, &ro, &it, &err);
    for (uint32_t i = 0; st == LG_OK && i < lg_interp_n_inputs(it); i++) {
        lg_tensor_view v;
        lg_interp_input(it, i, &v);
        st = lg_interp_set_input(it, i, v.type, t.in_data[i], v.nbytes, &err);
    }
    if (st == LG_OK) st = lg_interp_invoke(it, &err);
    if (st != LG_OK) {
        tf_fail(file, line, "%s run failed: %s", lg_int_arith_name(a), err.msg);
    } else {
        lg_tensor_view v;
        lg_interp_output(it, 0, &v);
        kt_check_view_ints(file, line, lg_int_arith_name(a), &v, c->out[0].type, want, n);
    }
    lg_interp_free(it);
    kt_free(&t);
}
#define EXPECT(c, a, want) expect_ints(__FILE__, __LINE__, (c), (a), (want), (int64_t)(sizeof(want) / sizeof((want)[0])))
#define EXPECT_BOTH(c, want) do { EXPECT(c, LG_INT_TFLITE, want); EXPECT(c, LG_INT_XNNPACK, want); } while (0)

/* ------------------------------------------------------------------ resize */

/* RESIZE_BILINEAR int8 {-3, 0} [1,1,2,1] -> [1,1,4,1], legacy (neither flag):
   TFLite Q10: scale_10 = (2048 + 2) / 4 = 512, positions 0, 512, 1024, 1536: x = 1 sits half
   way: (-3 * 512 * 1024 + 0) = -1572864, minus 2^19, / 2^20 = -2 (half away from zero);
   x = 2, 3: lower = upper = 1 -> 0. XNNPACK: scale 0.5, alpha 0.5 * 2048 = 1024:
   t = (-3 << 11) + 3 * 1024 = -3072, acc = t << 11 = -6291456, + 2^21 then asr 22 = -1 (ties
   up); x = 0: (-3 << 22) + 2^21 asr 22 = -3. */
LG_TEST(k_quant_more_bilinear_int8_roundings) {
    const int8_t x[2] = {-3, 0};
    const int32_t size[2] = {1, 4};
    lg_resize_bilinear_options o = {false, false};
    kt_op c = {LG_OP_RESIZE_BILINEAR, LG_OPTS_RESIZE_BILINEAR_OPTIONS, &o, 2, {
        q(LG_INT8, LG_DIMS(1, 1, 2, 1), x, S1, Z0), KT_CONST(LG_INT32, LG_DIMS(2), size),
    }, 1, {q(LG_INT8, LG_DIMS(1, 1, 4, 1), NULL, S1, Z0)}};
    const int64_t tfl[4] = {-3, -2, 0, 0}, xnn[4] = {-3, -1, 0, 0};
    EXPECT(&c, LG_INT_TFLITE, tfl);
    EXPECT(&c, LG_INT_XNNPACK, xnn);
    /* near miss: a 1.5 rounds up in both: {3, 0} -> {3, 2, 0, 0} */
    const int8_t x2[2] = {3, 0};
    c.in[0].data = x2;
    const int64_t both[4] = {3, 2, 0, 0};
    EXPECT_BOTH(&c, both);
    /* the output quantization must be the input's */
    c.out[0].scale = S2;
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_UNSUPPORTED, "does not requantize");
}

/* {0, 100} [1,1,2,1] -> 3 columns, legacy: TFLite scale_10 = (2048 + 1) / 3 = 683: column 1
   100 * 683 * 1024 / 2^20 = 66.7 -> 67; column 2 at 1366: lower 1, upper min(2, 1) = 1 -> 100.
   half_pixel_centers: v = o * 683 + 341 - 512 = -171, 512, 1195: column 0 lower = upper = 0
   (v / 1024 truncates to 0) -> 0 with weight 1024 + 171 on the same pixel; column 1: 50;
   column 2: lower 1, upper 1 -> 100. align_corners: scale_10 = 1024 * 1 / 2 = 512:
   columns 0, 50, 100. */
LG_TEST(k_quant_more_bilinear_flags) {
    const int8_t x[2] = {0, 100};
    const int32_t size[2] = {1, 3};
    lg_resize_bilinear_options o = {false, false};
    kt_op c = {LG_OP_RESIZE_BILINEAR, LG_OPTS_RESIZE_BILINEAR_OPTIONS, &o, 2, {
        q(LG_INT8, LG_DIMS(1, 1, 2, 1), x, S1, Z0), KT_CONST(LG_INT32, LG_DIMS(2), size),
    }, 1, {q(LG_INT8, LG_DIMS(1, 1, 3, 1), NULL, S1, Z0)}};
    const int64_t legacy[3] = {0, 67, 100}, mid[3] = {0, 50, 100};
    EXPECT(&c, LG_INT_TFLITE, legacy);
    o.half_pixel_centers = true;
    EXPECT(&c, LG_INT_TFLITE, mid);
    o.half_pixel_centers = false;
    o.align_corners = true;
    EXPECT(&c, LG_INT_TFLITE, mid);
    /* near miss: both flags is an invalid model (TFLite's Prepare) */
    o.half_pixel_centers = true;
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_FORMAT, "half_pixel_centers");
}

/* RESIZE_NEAREST_NEIGHBOR uint8 3 -> 7 columns: legacy floor(o * 3 / 7) = {0,0,0,1,1,2,2}
   (the optimized kernel's Q16 scale (3 << 16) / 7 + 1 = 28087 gives the same);
   half_pixel_centers floor((o + 0.5) * 3 / 7) = {0,0,1,1,1,2,2}. */
LG_TEST(k_quant_more_nearest) {
    const uint8_t x[3] = {10, 20, 30};
    const int32_t size[2] = {1, 7};
    lg_resize_nearest_neighbor_options o = {false, false};
    kt_op c = {LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS, &o, 2, {
        q(LG_UINT8, LG_DIMS(1, 1, 3, 1), x, S1, Z0), KT_CONST(LG_INT32, LG_DIMS(2), size),
    }, 1, {q(LG_UINT8, LG_DIMS(1, 1, 7, 1), NULL, S1, Z0)}};
    const int64_t legacy[7] = {10, 10, 10, 20, 20, 30, 30}, half[7] = {10, 10, 20, 20, 20, 30, 30};
    EXPECT_BOTH(&c, legacy);
    o.half_pixel_centers = true;
    EXPECT_BOTH(&c, half);
}

/* ------------------------------------------------------------------ TRANSPOSE_CONV */

/* x = 2 [1,1,1,1] (scale 1), weights {1,2,3,4} [1,2,2,1] at scale 0.25, VALID stride 2 ->
   [1,2,2,1]: acc = {2, 4, 6, 8}, times 0.25 = {0.5, 1, 1.5, 2}. TFLite (MBQM with (2^30, -1):
   SRDHM then a rounding shift, ties away): {1, 1, 2, 2}; XNNPACK (float, ties to even):
   {0, 1, 2, 2}. */
LG_TEST(k_quant_more_transpose_conv) {
    const int8_t x[1] = {2};
    const int8_t w[4] = {1, 2, 3, 4};
    const int32_t os[4] = {1, 2, 2, 1};
    lg_transpose_conv_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_VALID;
    o.stride_w = o.stride_h = 2;
    kt_op c = {LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o, 3, {
        KT_CONST(LG_INT32, LG_DIMS(4), os), qc(LG_INT8, LG_DIMS(1, 2, 2, 1), w, S025, Z0),
        q(LG_INT8, LG_DIMS(1, 1, 1, 1), x, S1, Z0),
    }, 1, {q(LG_INT8, LG_DIMS(1, 2, 2, 1), NULL, S1, Z0)}};
    const int64_t tfl[4] = {1, 1, 2, 2}, xnn[4] = {0, 1, 2, 2};
    EXPECT(&c, LG_INT_TFLITE, tfl);
    EXPECT(&c, LG_INT_XNNPACK, xnn);
    /* near miss: SAME with stride 3 over a 2x2 kernel -> [1,3,3,1]; XNNPACK's delegate refuses
       that geometry, so TFLite's kernel (and rounding) runs under LiteRT.js too: the taps land
       on rows / columns 0..1 (padding 0), row and column 2 stay 0 */
    const int32_t os3[4] = {1, 3, 3, 1};
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 3;
    c.in[0].data = os3;
    c.out[0].shape = LG_DIMS(1, 3, 3, 1);
    const int64_t s3[9] = {1, 1, 0, 2, 2, 0, 0, 0, 0};
    EXPECT_BOTH(&c, s3);
    /* uint8 with uint8 weights per tensor: x = 3 at zero point 1 (2), w = {5, 7, 4, 4} at zero
       point 4 ({1, 3, 0, 0}): acc {2, 6, 0, 0} * 0.25 = {0.5, 1.5, 0, 0} + zero point 10:
       TFLite {11, 12, 10, 10}, XNNPACK {10, 12, 10, 10} */
    const uint8_t xu[1] = {3}, wu[4] = {5, 7, 4, 4};
    const int64_t z1[1] = {1}, z4[1] = {4}, z10[1] = {10};
    kt_op u = {LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o, 3, {
        KT_CONST(LG_INT32, LG_DIMS(4), os), qc(LG_UINT8, LG_DIMS(1, 2, 2, 1), wu, S025, z4),
        q(LG_UINT8, LG_DIMS(1, 1, 1, 1), xu, S1, z1),
    }, 1, {q(LG_UINT8, LG_DIMS(1, 2, 2, 1), NULL, S1, z10)}};
    o.padding = LG_PADDING_VALID;
    o.stride_w = o.stride_h = 2;
    const int64_t utfl[4] = {11, 12, 10, 10}, uxnn[4] = {10, 12, 10, 10};
    EXPECT(&u, LG_INT_TFLITE, utfl);
    EXPECT(&u, LG_INT_XNNPACK, uxnn);
    /* int8 weights must be symmetric */
    const int64_t wz[1] = {1};
    c.in[1].zp = wz;
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_UNSUPPORTED, "symmetric");
}

/* ------------------------------------------------------------------ unary */

/* GELU int8, input scale 1/8, output 1/4096: x = -24 is -3: exact 0.5 * -3 * erfc(3 / sqrt 2)
   = -1.5 * 0.0026998 = -0.0040497 -> * 4096 = -16.59 -> -17; approximate: tanh(0.7978846 *
   (-3 - 0.044715 * 27)) = tanh(-3.356921) = -0.9975754, 0.5 * -3 * 0.0024246 = -0.0036369 ->
   -14.9 -> -15; x = 0 -> 0; x = 8 (1.0): 0.8413 * 4096 -> clamped 127. */
LG_TEST(k_quant_more_gelu) {
    const int8_t x[3] = {0, -24, 8};
    const float si[1] = {0.125f}, so[1] = {1.0f / 4096};
    lg_gelu_options o = {false};
    kt_op c = {LG_OP_GELU, LG_OPTS_GELU_OPTIONS, &o, 1, {q(LG_INT8, LG_DIMS(3), x, si, Z0)}, 1,
               {q(LG_INT8, LG_DIMS(3), NULL, so, Z0)}};
    const int64_t exact[3] = {0, -17, 127}, approx[3] = {0, -15, 127};
    EXPECT_BOTH(&c, exact);
    o.approximate = true;
    EXPECT_BOTH(&c, approx);
}

/* RSQRT int8, input scale 0.25, output 1/64: M = 1 / (sqrt(0.25) / 64) = 128. x = 0 -> 127
   (TFLite's value for 0); x = 1 (0.25): 2 * 64 = 128 -> 127; x = 4 (1.0) -> 64; x = 9 (2.25):
   64 / 1.5 = 42.67 -> 43; x = 16 (4.0) -> 32. A value below the zero point fails. */
LG_TEST(k_quant_more_rsqrt) {
    const int8_t x[5] = {0, 1, 4, 9, 16};
    const float so[1] = {1.0f / 64};
    kt_op c = {LG_OP_RSQRT, LG_OPTS_NONE, NULL, 1, {q(LG_INT8, LG_DIMS(5), x, S025, Z0)}, 1,
               {q(LG_INT8, LG_DIMS(5), NULL, so, Z0)}};
    const int64_t want[5] = {127, 127, 64, 43, 32};
    EXPECT_BOTH(&c, want);
    const int8_t neg[5] = {0, 1, 4, 9, -1};
    c.in[0].data = neg;
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_INVALID_ARG, "non-negative");
}

/* SQRT int8 truncates: scale 0.01 in and out; x = 50: sqrt(0.5) / 0.01 = 70.71 -> 70 (not 71);
   x = 100 -> 100; x = 2: 14.14 -> 14. ABS: input scale 0.5 zero point 3 into scale 1:
   |x - 3| * 0.5 with TFLite's rounding: x = 0 -> 1.5 -> 2, x = 8 -> 2.5 -> 3, x = 4 -> 0.5 -> 1;
   equal scales (no multiplier): |x - 3| + zp_out. */
LG_TEST(k_quant_more_sqrt_abs) {
    const int8_t x[3] = {50, 100, 2};
    const float s[1] = {0.01f};
    kt_op c = {LG_OP_SQRT, LG_OPTS_NONE, NULL, 1, {q(LG_INT8, LG_DIMS(3), x, s, Z0)}, 1,
               {q(LG_INT8, LG_DIMS(3), NULL, s, Z0)}};
    const int64_t sq[3] = {70, 100, 14};
    EXPECT_BOTH(&c, sq);
    const int8_t a[3] = {0, 8, 4};
    const int64_t z3[1] = {3}, zm10[1] = {-10};
    kt_op d = {LG_OP_ABS, LG_OPTS_NONE, NULL, 1, {q(LG_INT8, LG_DIMS(3), a, S05, z3)}, 1,
               {q(LG_INT8, LG_DIMS(3), NULL, S1, Z0)}};
    const int64_t ab[3] = {2, 3, 1};
    EXPECT_BOTH(&d, ab);
    d.out[0].scale = S05;
    d.out[0].zp = zm10;
    const int64_t ab2[3] = {-7, -5, -9};
    EXPECT_BOTH(&d, ab2);
    /* UINT8 is not an ABS type of TFLite */
    const uint8_t u[3] = {0, 1, 2};
    d.in[0] = q(LG_UINT8, LG_DIMS(3), u, S05, z3);
    d.out[0] = q(LG_UINT8, LG_DIMS(3), NULL, S1, Z0);
    kt_expect_fail(__FILE__, __LINE__, &d, LG_PREC_F32, LG_ERR_UNSUPPORTED, "UINT8");
}

/* LOG int8: input scale 0.1 zero point -128, output scale 0.1: x = -118 (1.0) -> 0;
   x = -101 (2.7): log 2.7 = 0.9933 -> 9.93 -> 10; x = -127 (0.1): -2.3026 -> -23;
   x = -128 (0): the output's minimum, (-128 - 0) * 0.1 -> -128. */
LG_TEST(k_quant_more_log) {
    const int8_t x[4] = {-118, -101, -127, -128};
    const float s[1] = {0.1f};
    const int64_t zi[1] = {-128};
    kt_op c = {LG_OP_LOG, LG_OPTS_NONE, NULL, 1, {q(LG_INT8, LG_DIMS(4), x, s, zi)}, 1,
               {q(LG_INT8, LG_DIMS(4), NULL, s, Z0)}};
    const int64_t want[4] = {0, 10, -23, -128};
    EXPECT_BOTH(&c, want);
}

/* ------------------------------------------------------------------ binary */

/* SQUARED_DIFFERENCE int8, inputs at scale 0.5, output 1: twice_max 1, input multipliers 0.5,
   output 1 / 2^14. a = 3, b = 0: x1 = MBQM(3 << 7, 0.5) = 192, d^2 = 36864, / 16384 = 2.25 -> 2
   (1.5^2); a = 5: 320^2 / 16384 = 6.25 -> 6; a = -3, b = 2: (-192 - 128)^2 -> 6; a = 1: 0.25 -> 0. */
LG_TEST(k_quant_more_squared_difference) {
    const int8_t a[4] = {3, 5, -3, 1}, b[4] = {0, 0, 2, 0};
    kt_op c = {LG_OP_SQUARED_DIFFERENCE, LG_OPTS_NONE, NULL, 2, {
        q(LG_INT8, LG_DIMS(4), a, S05, Z0), q(LG_INT8, LG_DIMS(4), b, S05, Z0),
    }, 1, {q(LG_INT8, LG_DIMS(4), NULL, S1, Z0)}};
    const int64_t want[4] = {2, 6, 6, 0};
    EXPECT_BOTH(&c, want);
    /* near miss: an output scale of 2^-15 needs the multiplier 2 (TFLite aborts) */
    const float tiny[1] = {1.0f / 32768};
    c.out[0].scale = tiny;
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_UNSUPPORTED, "too small");
}

/* DIV int8, all scales 1 (multiplier 1 = (2^30, 1)):
   6 / 3: reciprocal of 3 = 2/3 (rs 1), h = clrsb(6) = 28: SRDHM(6 << 28, 2/3) = 2^30,
     total shift 1 - 1 - 28: SRDHM(2^30, 2^30) = 2^29, RDBPOT(2^29, 28) = 2;
   7 / 2: reciprocal of 2 = 1 - 2^-31 (rs 1), h = 28: SRDHM(7 << 28, INT32_MAX) = 1879048191,
     SRDHM(., 2^30) = 939524096 = 3.5 * 2^28 -> 4 (ties away);
   -7 / 2: SRDHM(-7 << 28, INT32_MAX) = -1879048191 (truncated toward zero), SRDHM(., 2^30) =
     -939524095 (the negative nudge), which is just above -3.5 * 2^28 -> -3. */
LG_TEST(k_quant_more_div) {
    const int8_t a[3] = {6, 7, -7}, b[3] = {3, 2, 2};
    lg_div_options o = {LG_ACTIVATION_FUNCTION_TYPE_NONE};
    kt_op c = {LG_OP_DIV, LG_OPTS_DIV_OPTIONS, &o, 2, {
        q(LG_INT8, LG_DIMS(3), a, S1, Z0), q(LG_INT8, LG_DIMS(3), b, S1, Z0),
    }, 1, {q(LG_INT8, LG_DIMS(3), NULL, S1, Z0)}};
    const int64_t want[3] = {2, 4, -3};
    EXPECT_BOTH(&c, want);
    /* a zero divisor fails at run time, as div.cc's CheckNonZero */
    const int8_t bz[3] = {3, 0, 2};
    c.in[1].data = bz;
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_INVALID_ARG, "zero");
}

/* DIV with the output scale 2 (multiplier 0.5 = (2^30, 0)): 1 / 4: reciprocal of 4 saturates
   to INT32_MAX (rs 2), h = clrsb(1) = 30, SRDHM(2^30, INT32_MAX) = 2^30, SRDHM(2^30, 2^30) =
   2^29, and the rounding shift is 30 + 2 - 0 = 32: gemmlowp's mask (1ll << 32) - 1 truncates to
   -1 and the shift by 32 is a shift by 0 on wasm / x86, so 2^29 + 1 -> clamped to 127 (what
   LiteRT.js returns; the quotient is 0.125). Near miss 2 / 4: h = 29, shift 31: 2^29 / 2^31 =
   0.25 -> 0. */
LG_TEST(k_quant_more_div_wide_shift) {
    const int8_t a[2] = {1, 2}, b[2] = {4, 4};
    lg_div_options o = {LG_ACTIVATION_FUNCTION_TYPE_NONE};
    kt_op c = {LG_OP_DIV, LG_OPTS_DIV_OPTIONS, &o, 2, {
        q(LG_INT8, LG_DIMS(2), a, S1, Z0), q(LG_INT8, LG_DIMS(2), b, S1, Z0),
    }, 1, {q(LG_INT8, LG_DIMS(2), NULL, S2, Z0)}};
    const int64_t want[2] = {127, 0};
    EXPECT_BOTH(&c, want);
}

/* PRELU int8: input scale 0.5, alpha scale 0.25, output 0.5: M1 = 1, M2 = 0.25.
   x = 3 -> 3; x = -3, alpha 2: MBQM(-6, 0.25): SRDHM(-6, 2^30) = -3, RDBPOT(-3, 1) = -2
   (-1.5 away from zero); x = -1, alpha 2: SRDHM(-2, 2^30) = -1, RDBPOT(-1, 1) = -1 (-0.5). */
LG_TEST(k_quant_more_prelu) {
    const int8_t x[3] = {3, -3, -1}, al[1] = {2};
    kt_op c = {LG_OP_PRELU, LG_OPTS_NONE, NULL, 2, {
        q(LG_INT8, LG_DIMS(3), x, S05, Z0), qc(LG_INT8, LG_DIMS(1), al, S025, Z0),
    }, 1, {q(LG_INT8, LG_DIMS(3), NULL, S05, Z0)}};
    const int64_t want[3] = {3, -2, -1};
    EXPECT_BOTH(&c, want);
}

/* MAXIMUM / MINIMUM compare the raw integers when all three share the quantization; another
   quantization is refused (TFLite would compare integers of different meanings). */
LG_TEST(k_quant_more_minmax) {
    const int8_t a[3] = {-5, 0, 7}, b[3] = {-6, 1, 7};
    kt_op c = {LG_OP_MAXIMUM, LG_OPTS_NONE, NULL, 2, {
        q(LG_INT8, LG_DIMS(3), a, S05, Z0), q(LG_INT8, LG_DIMS(3), b, S05, Z0),
    }, 1, {q(LG_INT8, LG_DIMS(3), NULL, S05, Z0)}};
    const int64_t mx[3] = {-5, 1, 7}, mn[3] = {-6, 0, 7};
    EXPECT_BOTH(&c, mx);
    c.code = LG_OP_MINIMUM;
    EXPECT_BOTH(&c, mn);
    const int64_t z1[1] = {1};
    c.in[1].zp = z1;
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_UNSUPPORTED, "share their quantization");
}

/* PAD int8 pads with the output's zero point (pad.cc EvalInt); PADV2's constant_values must
   share the output's quantization. */
LG_TEST(k_quant_more_pad_zero_point) {
    const int8_t x[2] = {4, 9};
    const int32_t pads[2] = {1, 1};
    const int64_t zm5[1] = {-5};
    kt_op c = {LG_OP_PAD, LG_OPTS_NONE, NULL, 2, {
        q(LG_INT8, LG_DIMS(2), x, S05, zm5), KT_CONST(LG_INT32, LG_DIMS(1, 2), pads),
    }, 1, {q(LG_INT8, LG_DIMS(4), NULL, S05, zm5)}};
    const int64_t want[4] = {-5, 4, 9, -5};
    EXPECT_BOTH(&c, want);
    const int8_t cv[1] = {17};
    kt_op d = {LG_OP_PADV2, LG_OPTS_NONE, NULL, 3, {
        q(LG_INT8, LG_DIMS(2), x, S05, zm5), KT_CONST(LG_INT32, LG_DIMS(1, 2), pads),
        qc(LG_INT8, LG_SCALAR, cv, S05, zm5),
    }, 1, {q(LG_INT8, LG_DIMS(4), NULL, S05, zm5)}};
    const int64_t want2[4] = {17, 4, 9, 17};
    EXPECT_BOTH(&d, want2);
    d.in[2].zp = Z0;
    kt_expect_fail(__FILE__, __LINE__, &d, LG_PREC_F32, LG_ERR_UNSUPPORTED, "constant_values");
}

/* ------------------------------------------------------------------ int16 */

/* LOGISTIC int16, input scale 1/12288 (not a power of two): 1/12288 * 4096 * 3 = 1, doubled 14
   times to 16384 (> 32767 / 2 stops it), so x' = (x * 16384 + 2^13) >> 14 = x. x = 0: table[0]
   = 32768 -> (32768 << 9 + 2^9) >> 10 = 16384; x = 512: (table[1] << 9 + 512) >> 10 =
   (33451 + 1) / 2 = 16726; x = -512: (2^25 - 33451 * 512 + 511) >> 10 = 16428031 >> 10 = 16042
   (16043 * 1024 is one more: y(x) + y(-x) = 32768); x = 32767:
   uh = 63, frac 511: (61110 << 9) + 511 * (61279 - 61110) = 31374679, + 512 = 31375191 >> 10 =
   30639 (sigmoid(32767 / 12288) * 32768 = 30639.3). */
LG_TEST(k_quant_more_logistic_int16) {
    const int16_t x[4] = {0, 512, -512, 32767};
    const float si[1] = {1.0f / 12288}, so[1] = {1.0f / 32768};
    kt_op c = {LG_OP_LOGISTIC, LG_OPTS_NONE, NULL, 1, {q(LG_INT16, LG_DIMS(4), x, si, Z0)}, 1,
               {q(LG_INT16, LG_DIMS(4), NULL, so, Z0)}};
    const int64_t want[4] = {16384, 16726, 16042, 30639};
    EXPECT_BOTH(&c, want);
    /* TANH: x' = x, Q8 fraction: x = 256: (33451 << 8) - 2^23 + 32 = 174880 >> 8 = 683;
       x = -256: -(33451 << 8) + 2^23 + 31 = -174817 >> 8 = -683; x = 0 -> 32 >> 8 = 0 */
    const int16_t t[3] = {0, 256, -256};
    kt_op d = {LG_OP_TANH, LG_OPTS_NONE, NULL, 1, {q(LG_INT16, LG_DIMS(3), t, si, Z0)}, 1,
               {q(LG_INT16, LG_DIMS(3), NULL, so, Z0)}};
    const int64_t tw[3] = {0, 683, -683};
    EXPECT_BOTH(&d, tw);
    /* near miss: the power-of-two input scale 2^-12 takes TFLite's gemmlowp path: refused */
    const float pot[1] = {1.0f / 4096};
    c.in[0].scale = pot;
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_UNSUPPORTED, "power-of-two");
}

/* SOFTMAX int16 of a uniform row of 4: every exp is exp_lut at 32767 (index 511, offset 127):
   lut[511] = round(exp(-10/512) 32768) = 32134 less the midpoint bias 1 = 32133, lut[512] =
   32767, so 32133 + ((634 * 127 + 64) >> 7) = 32762; the sum 131048 (clz 15) normalizes to
   131048, x = 131048 - 98304 = 32744 for the 1/(1+x) table: lut[511] = 16400, lut[512] = 16384,
   16400 + ((-16 * 104 + 64) >> 7) = 16387; y = (32762 * 16387 + 2^15) >> 16 = 8192. */
LG_TEST(k_quant_more_softmax_int16) {
    const int16_t x[4] = {100, 100, 100, 100};
    const float si[1] = {0.001f}, so[1] = {1.0f / 32768};
    lg_softmax_options o = {1.0f};
    kt_op c = {LG_OP_SOFTMAX, LG_OPTS_SOFTMAX_OPTIONS, &o, 1, {q(LG_INT16, LG_DIMS(1, 4), x, si, Z0)}, 1,
               {q(LG_INT16, LG_DIMS(1, 4), NULL, so, Z0)}};
    const int64_t want[4] = {8192, 8192, 8192, 8192};
    EXPECT_BOTH(&c, want);
    /* near miss: TFLite requires the output scale 1/32768 */
    const float bad[1] = {1.0f / 16384};
    c.out[0].scale = bad;
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_FORMAT, "1/32768");
}

/* ------------------------------------------------------------------ BATCH_MATMUL delegation */

/* BATCH_MATMUL int8 [1,1,1] x [1,1,1]: x = 1 (scale 1), rhs w = 1 with zero point 0 at scale
   0.5: acc = 1, times 0.5 = 0.5 -> TFLite 1 (away from zero), XNNPACK 0 (to even). With the
   rhs w = 2 at zero point 1 (w - zp = 1, the same 0.5) XNNPACK's delegate refuses the node
   (xnnpack_delegate.cc VisitBatchMatMulNode: non-zero rhs zero point), so LiteRT.js runs
   TFLite's kernel: 1 in both arithmetics. */
LG_TEST(k_quant_more_bmm_rhs_zero_point_not_delegated) {
    const int8_t x[1] = {1}, w[1] = {1}, w2[1] = {2};
    lg_batch_mat_mul_options o = {false, false, false};
    kt_op c = {LG_OP_BATCH_MATMUL, LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o, 2, {
        q(LG_INT8, LG_DIMS(1, 1, 1), x, S1, Z0), qc(LG_INT8, LG_DIMS(1, 1, 1), w, S05, Z0),
    }, 1, {q(LG_INT8, LG_DIMS(1, 1, 1), NULL, S1, Z0)}};
    const int64_t one[1] = {1}, zero[1] = {0};
    EXPECT(&c, LG_INT_TFLITE, one);
    EXPECT(&c, LG_INT_XNNPACK, zero);
    const int64_t z1[1] = {1};
    c.in[1].data = w2;
    c.in[1].zp = z1;
    EXPECT_BOTH(&c, one);
}
