/* IEEE 754 binary16 <-> binary32, portable and exact (round to nearest, ties to even),
   with NaN, infinities and subnormals. Tested on all 65,536 halves. */
#ifndef LGI_HALF_H
#define LGI_HALF_H
#include <stdint.h>
#include <string.h>

static inline float lg_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);          /* inf / NaN (payload kept) */
    } else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (man << 13);  /* normal: rebias 15 -> 127 */
    } else if (man == 0) {
        bits = sign;                                        /* +-0 */
    } else {
        /* subnormal: man * 2^-24, normalize */
        int e = -1;
        do { man <<= 1; e++; } while (!(man & 0x400u));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ffu) << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline uint16_t lg_float_to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) {                               /* inf or NaN */
        if (ax == 0x7f800000u) return sign | 0x7c00u;
        return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu)); /* quiet NaN, keep payload */
    }
    if (ax >= 0x477ff000u) return sign | 0x7c00u;          /* >= 65520: rounds to inf */
    if (ax >= 0x38800000u) {                               /* normal half range (>= 2^-14) */
        uint32_t mant = ax & 0x7fffffu;
        uint32_t exp = (ax >> 23) - 112u;
        uint32_t h = (exp << 10) | (mant >> 13);
        uint32_t rest = mant & 0x1fffu;                    /* 13 dropped bits */
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++; /* RNE; may carry into exp */
        return (uint16_t)(sign | h);
    }
    if (ax < 0x33000000u) return sign;                     /* < 2^-25: rounds to 0 */
    /* subnormal half: value = m * 2^-24 */
    uint32_t exp = ax >> 23;                               /* 102..112 */
    uint32_t mant = (ax & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - exp;                           /* 14..24 */
    uint32_t h = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (h & 1u))) h++;
    return (uint16_t)(sign | h);
}

/* Round a float to the nearest half and back: lg_half_to_float(lg_float_to_half(f)),
   branch-free (the f16 emulation calls it for every product and partial sum).
   Normal range: add the rounding bias for 13 dropped mantissa bits with ties to even and
   clear them (a carry rounds up into the exponent); subnormal halves: (a + 0.5) - 0.5 in
   float rounds |f| to a multiple of 2^-24 with ties to even; >= 65520 becomes inf; NaN
   stays NaN with its payload truncated to 10 bits and quieted, as the conversion does. */
static inline float lg_round_half(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = x & 0x80000000u, ax = x & 0x7fffffffu;
    uint32_t rn = (ax + 0xfffu + ((ax >> 13) & 1u)) & ~0x1fffu;
    rn = ax >= 0x477ff000u ? 0x7f800000u : rn;
    rn = ax > 0x7f800000u ? ((ax & 0x7fe000u) | 0x7fc00000u) : rn;
    float a;
    memcpy(&a, &ax, 4);
    a = (a + 0.5f) - 0.5f;
    uint32_t rs;
    memcpy(&rs, &a, 4);
    uint32_t r = (ax >= 0x38800000u ? rn : rs) | sign;
    float out;
    memcpy(&out, &r, 4);
    return out;
}

#endif
