/* The conv family's vector inner loops, written once and compiled twice by k_conv_simd.c
 * (no include guard on purpose): with KC_VW 4 (portable: SSE2 on x86-64, NEON on arm64) and,
 * on x86-64, with KC_VW 8 under target("avx2,f16c,fma"); the depthwise and pooling part also
 * with KC_VW 16 under target("avx512f") by k_conv_dw_avx512.c. KC(name) suffixes every name. This
 * file holds the shared helpers and includes the parts: k_conv_tmpl_dot.h (im2col, dot
 * products), k_conv_tmpl_gemm.h (fp32 GEMMs, fp32 transposed conv), k_conv_tmpl_half.h (the
 * LG_PREC_F16 products) and k_conv_tmpl_dw.h (depthwise, pooling).
 *
 * Every lane performs the same sequence of fp32 operations whatever the width (no
 * reassociation), so both builds give identical bits; tails use the same formulas. The fp32
 * paths use no FMA; the half multiply-add uses one in the AVX2 and AVX-512 builds, where it is bit-identical
 * to the portable product-then-sum (KC_MACH). The vector types and the basics (ld, st, splat,
 * sel, clampv, the half rounding KC(h)) come from the neutral simd_vec.h. */

#include "run/simd_vec.h"

/* the first cnt lanes of p, zeros after; store the first cnt lanes of v */
static inline VF KC(ld_part)(const float *p, int64_t cnt) {
    if (cnt >= KC_VW) return KC(ld)(p);
    float t[KC_VW] = {0};
    if (cnt > 0) memcpy(t, p, (size_t)cnt * sizeof(float));
    return KC(ld)(t);
}
static inline void KC(st_part)(float *p, VF v, int64_t cnt) {
    if (cnt <= 0) return;
    if (cnt >= KC_VW) {
        KC(st)(p, v);
        return;
    }
    float t[KC_VW];
    KC(st)(t, v);
    memcpy(p, t, (size_t)cnt * sizeof(float));
}

static inline int64_t KC(mini)(int64_t a, int64_t b) { return a < b ? a : b; }

/* One half multiply-add: h(acc + x*b), product and sum in fp32 (lgk_mac). In LG_PREC_F16 every
   operand is a half (tensors and weights are stored as halves), so x*b is exact in fp32 and an
   FMA gives the same bits as the product and the sum: the AVX2 and AVX-512 builds use one
   (shorter chain, one instruction less), the portable build the two operations. */
#if KC_F16C && KC_VW == 16
#define KC_MACH(acc, x, b) acc = KC(h)((VF)_mm512_fmadd_ps((__m512)(x), (__m512)(b), (__m512)(acc)))
#elif KC_F16C
#define KC_MACH(acc, x, b) acc = KC(h)((VF)_mm256_fmadd_ps((__m256)(x), (__m256)(b), (__m256)(acc)))
#else
#define KC_MACH(acc, x, b) acc = KC(h)(acc + (x) * (b))
#endif

static inline float KC(clamp1)(float v, lgk_clamp cl) {
    if (v < cl.lo) v = cl.lo;
    if (cl.hi < v) v = cl.hi;
    return v;
}

#ifndef KC_DW_ONLY
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
#endif


/* The loops, by family. KC_DW_ONLY (the AVX-512 build, k_conv_dw_avx512.c): depthwise and
   pooling alone. */
#ifndef KC_DW_ONLY
#include "run/k_conv_tmpl_dot.h"
#include "run/k_conv_tmpl_gemm.h"
#include "run/k_conv_tmpl_half.h"
#endif
#include "run/k_conv_tmpl_dw.h"

#undef KC_MACH
#undef KC_DW_FIN
#undef KC_DW_MAC
#undef VF
#undef VI
#undef VU
