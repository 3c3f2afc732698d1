/* The loops of simd.c, once per width (no include guard on purpose: KC(name), KC_VW and
 * KC_F16C are set by simd.c). */
#include "run/simd_vec.h"

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

/* One output row of RESIZE_BILINEAR in LG_PREC_F16 (lgk_simd_bilerp_row_h). Per channel, a GPU's
   mix(mix(v00, v01, dx), mix(v10, v11, dx), dy) with each mix a + h(b - a)*t rounded once. */
static inline float KC(lerp1)(float a, float b, float t) { return lg_round_half(a + lg_round_half(b - a) * t); }
static void KC(bilerp_row_h)(float *o, const float *row0, const float *row1, const int32_t *x0,
                             const int32_t *x1, const float *dxs, float dy, int64_t ow, int64_t C) {
    const VF vy = KC(splat)(dy);
    for (int64_t ox = 0; ox < ow; ox++, o += C) {
        const float *p00 = row0 + (int64_t)x0[ox] * C, *p01 = row0 + (int64_t)x1[ox] * C;
        const float *p10 = row1 + (int64_t)x0[ox] * C, *p11 = row1 + (int64_t)x1[ox] * C;
        const float dx = dxs[ox];
        if (C < KC_VW) {
            for (int64_t k = 0; k < C; k++) {
                float top = KC(lerp1)(p00[k], p01[k], dx), bot = KC(lerp1)(p10[k], p11[k], dx);
                o[k] = KC(lerp1)(top, bot, dy);
            }
            continue;
        }
        const VF vx = KC(splat)(dx);
        for (int64_t c = 0; c < C; c += KC_VW) {
            int64_t k = c + KC_VW <= C ? c : C - KC_VW; /* the last block overlaps: same values */
            VF a = KC(ld)(p00 + k), b = KC(ld)(p01 + k), e = KC(ld)(p10 + k), f = KC(ld)(p11 + k);
            VF top = KC(h)(a + KC(h)(b - a) * vx);
            VF bot = KC(h)(e + KC(h)(f - e) * vx);
            KC(st)(o + k, KC(h)(top + KC(h)(bot - top) * vy));
        }
    }
}

#undef VF
#undef VI
#undef VU
