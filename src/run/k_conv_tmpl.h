/* The conv family's vector inner loops, written once and compiled twice by k_conv_simd.c
 * (no include guard on purpose): with KC_VW 4 (portable: SSE2 on x86-64, NEON on arm64) and,
 * on x86-64, with KC_VW 8 under target("avx2,f16c,fma"). KC(name) suffixes every name. This
 * file holds the shared helpers and includes the parts: k_conv_tmpl_dot.h (im2col, dot
 * products), k_conv_tmpl_gemm.h (fp32 GEMMs, fp32 transposed conv), k_conv_tmpl_half.h (the
 * LG_PREC_F16 products) and k_conv_tmpl_dw.h (depthwise, pooling).
 *
 * Every lane performs the same sequence of fp32 operations whatever the width (no
 * reassociation), so both builds give identical bits; tails use the same formulas. The fp32
 * paths use no FMA; the half multiply-add uses one in the AVX2 build, where it is bit-identical
 * to the portable product-then-sum (KC_MACH). The half rounding KC(h) is exact
 * round-to-nearest-even to binary16 and back, with subnormals, overflow to inf and NaN as
 * lg_round_half (tested bit for bit). */

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
#else
    return (VF){a, a, a, a, a, a, a, a};
#endif
}
/* m ? a : b per lane (m is all ones or all zeros) */
static inline VF KC(sel)(VI m, VF a, VF b) { return (VF)((m & (VI)a) | (~m & (VI)b)); }
/* TFLite's clamp: min(max(v, lo), hi) with std::max/min (NaN passes through) */
static inline VF KC(clampv)(VF v, VF lo, VF hi) {
    v = KC(sel)(v < lo, lo, v);
    return KC(sel)(hi < v, hi, v);
}

#if KC_F16C
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

static void KC(round_half)(float *p, int64_t n) {
    int64_t i = 0;
    for (; i + KC_VW <= n; i += KC_VW) KC(st)(p + i, KC(h)(KC(ld)(p + i)));
    if (i < n) {
        float t[KC_VW] = {0};
        memcpy(t, p + i, (size_t)(n - i) * 4);
        KC(st)(t, KC(h)(KC(ld)(t)));
        memcpy(p + i, t, (size_t)(n - i) * 4);
    }
}

static inline float KC(clamp1)(float v, lgk_clamp cl) {
    if (v < cl.lo) v = cl.lo;
    if (cl.hi < v) v = cl.hi;
    return v;
}

static void KC(bias_act)(float *y, int64_t rows, int64_t n, int64_t ldy, const float *bias, lgk_clamp cl) {
    VF lo = KC(splat)(cl.lo), hi = KC(splat)(cl.hi);
    for (int64_t r = 0; r < rows; r++) {
        float *p = y + r * ldy;
        int64_t c = 0;
        for (; c + KC_VW <= n; c += KC_VW) {
            VF v = KC(ld)(p + c);
            if (bias) v += KC(ld)(bias + c);
            if (cl.on) v = KC(clampv)(v, lo, hi);
            KC(st)(p + c, v);
        }
        for (; c < n; c++) {
            float v = p[c];
            if (bias) v += bias[c];
            if (cl.on) v = KC(clamp1)(v, cl);
            p[c] = v;
        }
    }
}


/* The loops, by family. Order matters: later parts use earlier helpers (ld_part/st_part from
   the GEMM part, KC_MACH from the half part). */
#include "run/k_conv_tmpl_dot.h"
#include "run/k_conv_tmpl_gemm.h"
#include "run/k_conv_tmpl_half.h"
#include "run/k_conv_tmpl_dw.h"

#undef KC_MACH
#undef KC_DW_FIN
#undef KC_DW_MAC
#undef VF
#undef VI
#undef VU
