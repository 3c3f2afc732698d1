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
 * to the portable product-then-sum (KC_MACH). The vector types and the basics (ld, st, splat,
 * sel, clampv, the half rounding KC(h)) come from the neutral simd_vec.h. */

#include "run/simd_vec.h"

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
