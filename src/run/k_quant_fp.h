/* gemmlowp fixed point beyond k_quant.h's helpers (internal): what TFLite's DIV, RSQRT and
 * the int16 activations build on.
 *
 * Sources: gemmlowp fixedpoint/fixedpoint.h (SaturatingRoundingMultiplyByPOT, RoundingHalfSum,
 * one_over_one_plus_x_for_x_in_0_1, FixedPoint multiplication = SaturatingRoundingDoublingHigh-
 * Mul of the raws, Rescale); tflite/kernels/internal/common.h (CountLeadingZeros,
 * CountLeadingSignBits, GetReciprocal, GetInvSqrtQuantizedMultiplierExp, LUTLookup). */
#ifndef LGI_RUN_K_QUANT_FP_H
#define LGI_RUN_K_QUANT_FP_H

#include "run/k_quant.h"

/* CountLeadingZeros: 32 for 0. */
static inline int lgq_clz32(uint32_t x) {
    int n = 0;
    if (!x) return 32;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        n++;
    }
    return n;
}

/* CountLeadingSignBits (the clang form, which LiteRT's wasm build compiles; GCC's
   __builtin_clrsb gives the same values): 31 for 0 and -1. */
static inline int lgq_clrsb32(int32_t x) {
    if (x >= 0) return lgq_clz32((uint32_t)x) - 1;
    if (x == INT32_MIN) return 0;
    return lgq_clz32(2u * (uint32_t)(-x) - 1u);
}

/* SaturatingRoundingMultiplyByPOT<e> for e > 0: x * 2^e, saturated (e <= 0: RoundingDivideByPOT). */
static inline int32_t lgq_sat_pot(int32_t x, int e) {
    if (e <= 0) return lgq_rdbpot(x, -e);
    const int32_t threshold = (int32_t)(((int64_t)1 << (31 - e)) - 1);
    if (x > threshold) return INT32_MAX;
    if (x < -threshold) return INT32_MIN;
    return (int32_t)((uint32_t)x << e);
}

/* RoundingHalfSum(a, b): (a + b + sign) / 2 in 64 bits, truncated toward zero. */
static inline int32_t lgq_half_sum(int32_t a, int32_t b) {
    int64_t s = (int64_t)a + b;
    return (int32_t)((s + (s >= 0 ? 1 : -1)) / 2);
}

/* one_over_one_plus_x_for_x_in_0_1 (F0 -> F0): Newton-Raphson with 48/17 and -32/17 in F2,
   three iterations, then Rescale<0>(ExactMulByPot<-1>(x)). Raw adds wrap, as gemmlowp's. */
static inline int32_t lgq_one_over_one_plus_x(int32_t a) {
    const int32_t half_denominator = lgq_half_sum(a, INT32_MAX); /* F0::One() is INT32_MAX */
    const int32_t c48_17 = 1515870810, cm32_17 = -1010580540;   /* F2 */
    int32_t x = (int32_t)((uint32_t)c48_17 + (uint32_t)lgq_srdhm(half_denominator, cm32_17));
    for (int i = 0; i < 3; i++) {
        const int32_t hdx = lgq_srdhm(half_denominator, x);                 /* F0*F2 = F2 */
        const int32_t one_minus = (int32_t)((uint32_t)(1 << 29) - (uint32_t)hdx); /* F2::One() */
        x = (int32_t)((uint32_t)x + (uint32_t)lgq_sat_pot(lgq_srdhm(x, one_minus), 2)); /* F4 -> F2 */
    }
    return lgq_sat_pot(x, 1); /* F1 -> F0 */
}

/* GetReciprocal(x, x_integer_digits, &num_bits_over_unit), x > 0. */
static inline int32_t lgq_reciprocal(int32_t x, int x_integer_digits, int *num_bits_over_unit) {
    const int headroom_plus_one = lgq_clz32((uint32_t)x);
    *num_bits_over_unit = x_integer_digits - headroom_plus_one;
    const int32_t shifted_minus_one = (int32_t)(((uint32_t)x << headroom_plus_one) - (1u << 31));
    return lgq_one_over_one_plus_x(shifted_minus_one);
}

/* GetInvSqrtQuantizedMultiplierExp(input, reverse_shift, &m, &s): 1/sqrt(input) as a
   multiplier and shift (Newton-Raphson in F3, five iterations, times sqrt(2)/2). */
static inline void lgq_inv_sqrt(int32_t input, int reverse_shift, int32_t *out_inv_sqrt, int *out_shift) {
    if (input <= 1) {
        *out_inv_sqrt = INT32_MAX;
        *out_shift = 0;
        return;
    }
    *out_shift = 11;
    while (input >= (1 << 29)) {
        input /= 4;
        ++*out_shift;
    }
    const unsigned max_left_shift_bits = (unsigned)lgq_clz32((uint32_t)input) - 1;
    const unsigned max_left_shift_bit_pairs = max_left_shift_bits / 2;
    const unsigned left_shift_bit_pairs = max_left_shift_bit_pairs - 1;
    *out_shift -= (int)left_shift_bit_pairs;
    input = (int32_t)((uint32_t)input << (2 * left_shift_bit_pairs));
    const int32_t fixed_input = input >> 1;                     /* F3 */
    const int32_t half_input = lgq_rdbpot(fixed_input, 1);      /* SaturatingRoundingMultiplyByPOT<-1> */
    const int32_t half_three = (1 << 28) + (1 << 27);           /* F3 1.5 */
    int32_t x = 1 << 28;                                        /* F3::One() */
    for (int i = 0; i < 5; i++) {
        const int32_t x3 = lgq_sat_pot(lgq_srdhm(lgq_srdhm(x, x), x), 6); /* F9 -> F3 */
        const int32_t d = (int32_t)((uint32_t)lgq_srdhm(half_three, x) - (uint32_t)lgq_srdhm(half_input, x3));
        x = lgq_sat_pot(d, 3);                                  /* F6 -> F3 */
    }
    x = lgq_srdhm(x, 1518500250); /* times F0 sqrt(2)/2 */
    if (*out_shift < 0) {
        x = (int32_t)((uint32_t)x << -*out_shift);
        *out_shift = 0;
    }
    *out_inv_sqrt = x;
    *out_shift *= reverse_shift;
}

/* LUTLookup(int16 value, 513-entry lut): base + ((slope * (value & 0x7f) + 64) >> 7). */
static inline int16_t lgq_lut16(int16_t value, const int16_t *lut) {
    const uint16_t index = (uint16_t)(256 + (value >> 7));
    const int16_t offset = (int16_t)(value & 0x7f);
    const int16_t base = lut[index];
    const int16_t slope = (int16_t)(lut[index + 1] - lut[index]);
    const int delta = (slope * offset + 64) >> 7;
    return (int16_t)(base + delta);
}

/* LUTPopulateInt16 (internal/common.h): 512 samples of the transform over the input range,
   each corrected by half the interpolation error at the midpoint, plus the last value. The
   float form (FloatT float: GELU, LOG, RSQRT) calls ff; the double form (SOFTMAX's exp and
   1/(1+x) tables, the deprecated double LUTPopulate) calls fd. */
typedef float (*lgq_lut_ff)(float, const void *);
typedef double (*lgq_lut_fd)(double, const void *);
LG_INTERNAL void lgq_lut16_populate_f(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, lgq_lut_ff f,
                                      const void *ud, int16_t *lut);
LG_INTERNAL void lgq_lut16_populate_d(double in_scale, int32_t in_zp, double out_scale, int32_t out_zp, lgq_lut_fd f,
                                      const void *ud, int16_t *lut);

#endif
