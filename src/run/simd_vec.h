/* The vector basics of the run-time SIMD code, written once per width (no include guard on
 * purpose): the includer defines KC(name) (suffixes every name), KC_VW (lanes: 4 portable, SSE2
 * on x86-64 and NEON on arm64; 8 under target("avx2,f16c,fma"); 16 under target("avx512f")) and KC_F16C, and #undefs
 * VF/VI/VU when done. Included by simd.c (the shared helpers: half rounding, the resize's
 * bilinear row) and by the conv family's template k_conv_tmpl.h.
 *
 * KC(h) is exact round-to-nearest-even to binary16 and back, with subnormals, overflow to inf
 * and NaN as lg_round_half (tested bit for bit on all 2^32 floats). */

typedef float KC(vf) __attribute__((vector_size(KC_VW * 4)));
typedef int32_t KC(vi) __attribute__((vector_size(KC_VW * 4)));
typedef uint32_t KC(vu) __attribute__((vector_size(KC_VW * 4)));
#define VF KC(vf)
#define VI KC(vi)
#define VU KC(vu)

static inline VF KC(ld)(const float *p) {
    VF v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void KC(st)(float *p, VF v) { memcpy(p, &v, sizeof v); }
static inline VF KC(splat)(float a) {
#if KC_VW == 4
    return (VF){a, a, a, a};
#elif KC_VW == 8
    return (VF){a, a, a, a, a, a, a, a};
#else
    return (VF){a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a};
#endif
}
/* m ? a : b per lane (m is all ones or all zeros) */
static inline VF KC(sel)(VI m, VF a, VF b) { return (VF)((m & (VI)a) | (~m & (VI)b)); }
/* TFLite's clamp: min(max(v, lo), hi) with std::max/min (NaN passes through) */
static inline VF KC(clampv)(VF v, VF lo, VF hi) {
    v = KC(sel)(v < lo, lo, v);
    return KC(sel)(hi < v, hi, v);
}

#if KC_F16C && KC_VW == 16
static inline VF KC(h)(VF x) { return (VF)_mm512_cvtph_ps(_mm512_cvtps_ph((__m512)x, 0)); }
#elif KC_F16C
static inline VF KC(h)(VF x) { return (VF)_mm256_cvtph_ps(_mm256_cvtps_ph((__m256)x, 0)); }
#else
static inline VF KC(h)(VF x) {
    VU b = (VU)x;
    VU sign = b & 0x80000000u;
    VU ax = b & 0x7fffffffu;
    VI axi = (VI)ax;                                   /* >= 0: signed compares are safe */
    /* normal halves: round the 13 dropped mantissa bits to nearest even (carries into the
       exponent are right) */
    VU rn = (ax + 0xfffu + ((ax >> 13) & 1u)) & ~0x1fffu;
    /* below 2^-14 the half spacing is 2^-24: x + 0.5 has exactly that ulp, so the fp32 add
       rounds to a multiple of 2^-24 with ties to even */
    VF axf = (VF)ax;
    VF sub = (axf + 0.5f) - 0.5f;
    VI small = axi < 0x38800000;
    VU r = ((VU)small & (VU)sub) | (~(VU)small & rn);
    VI big = axi >= 0x477ff000;                        /* rounds past 65504: inf */
    r = ((VU)big & 0x7f800000u) | (~(VU)big & r);
    VI nan = axi > 0x7f800000;                         /* quiet NaN, payload's top 10 bits */
    r = ((VU)nan & ((ax & 0x7fe000u) | 0x7fc00000u)) | (~(VU)nan & r);
    return (VF)(r | sign);
}
#endif
