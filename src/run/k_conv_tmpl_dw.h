/* Part of the conv family's vector template (k_conv_tmpl.h includes it; no include guard on
 * purpose: compiled once per target with KC(name), KC_VW and KC_F16C set): depthwise convolution and pooling. */

/* ------------------------------------------------------------------ depthwise */

/* Arithmetic per output channel, taps in column-major order (kx outer, ky inner):
     fp32: acc = bias (or 0); acc = acc + x*w for every tap, x = 0 outside the image
           (XNNPACK's order and zero padding: LiteRT.js's results bit for bit);
     half: acc = 0; acc = h(acc + x*w) for the taps inside the image (TFLite skips the
           padding); then acc = h(acc + bias).
   `half` is a compile-time constant in the always_inline helpers. */

/* first and one-past-last tap k with 0 <= o + k*d < n */
static inline void KC(tap_range)(int64_t o, int64_t d, int64_t taps, int64_t n, int64_t *lo, int64_t *hi) {
    int64_t l = o >= 0 ? 0 : (-o + d - 1) / d;
    int64_t h = n - 1 - o < 0 ? 0 : (n - 1 - o) / d + 1;
    if (h > taps) h = taps;
    if (l > h) l = h;
    *lo = l;
    *hi = h;
}

#define KC_DW_INIT(bptr) (!half && bias ? KC(ld)(bptr) : z)
#define KC_DW_FIN(s, bptr)                            \
    do {                                              \
        if (half && bias) s = KC(h)(s + KC(ld)(bptr)); \
        if (act) s = KC(clampv)(s, lo, hi);           \
    } while (0)
#define KC_DW_MAC(s, x, w)                            \
    do {                                              \
        if (half) KC_MACH(s, x, w);                   \
        else s = s + (x) * (w);                       \
    } while (0)

/* One output pixel of a depth-multiplier-1 depthwise conv whose taps inside the image are
   [ky0,ky1) x [kx0,kx1) (the border pixels). Channel blocks of 4 vectors, then single vectors;
   the last vector overlaps the previous ones when C is not a multiple of the width
   (recomputing the same values); C < KC_VW goes through padded temporaries. */
static inline __attribute__((always_inline)) void KC(dw_px)(const lgk_dw_args *a, const float *img, float *o,
                                                           int64_t iy0, int64_t ix0, int64_t ky0, int64_t ky1,
                                                           int64_t kx0, int64_t kx1, const int half) {
    const int64_t C = a->c, rs = a->w_ * C, dy = a->dh * rs, dx = a->dw * C, kh = a->kh, kw = a->kw;
    const float *bias = a->bias, *w = a->w;
    const int act = a->cl.on;
    const VF z = KC(splat)(0), lo = KC(splat)(a->cl.lo), hi = KC(splat)(a->cl.hi);
    const int64_t o00 = iy0 * rs + ix0 * C; /* offset of tap (0, 0), channel 0 (maybe outside) */
    if (C >= KC_VW) {
        int64_t c = 0;
        for (; c + 4 * KC_VW <= C; c += 4 * KC_VW) {
            VF s0 = KC_DW_INIT(bias + c), s1 = KC_DW_INIT(bias + c + KC_VW);
            VF s2 = KC_DW_INIT(bias + c + 2 * KC_VW), s3 = KC_DW_INIT(bias + c + 3 * KC_VW);
            for (int64_t kx = 0; kx < kw; kx++)
                for (int64_t ky = 0; ky < kh; ky++) {
                    const float *wp = w + (ky * kw + kx) * C + c;
                    if (ky < ky0 || ky >= ky1 || kx < kx0 || kx >= kx1) {
                        if (!half) {
                            s0 = s0 + z * KC(ld)(wp);
                            s1 = s1 + z * KC(ld)(wp + KC_VW);
                            s2 = s2 + z * KC(ld)(wp + 2 * KC_VW);
                            s3 = s3 + z * KC(ld)(wp + 3 * KC_VW);
                        }
                        continue;
                    }
                    const float *ip = img + (o00 + ky * dy + kx * dx) + c;
                    KC_DW_MAC(s0, KC(ld)(ip), KC(ld)(wp));
                    KC_DW_MAC(s1, KC(ld)(ip + KC_VW), KC(ld)(wp + KC_VW));
                    KC_DW_MAC(s2, KC(ld)(ip + 2 * KC_VW), KC(ld)(wp + 2 * KC_VW));
                    KC_DW_MAC(s3, KC(ld)(ip + 3 * KC_VW), KC(ld)(wp + 3 * KC_VW));
                }
            KC_DW_FIN(s0, bias + c);
            KC_DW_FIN(s1, bias + c + KC_VW);
            KC_DW_FIN(s2, bias + c + 2 * KC_VW);
            KC_DW_FIN(s3, bias + c + 3 * KC_VW);
            KC(st)(o + c, s0);
            KC(st)(o + c + KC_VW, s1);
            KC(st)(o + c + 2 * KC_VW, s2);
            KC(st)(o + c + 3 * KC_VW, s3);
        }
        for (; c < C; c += KC_VW) {
            int64_t cc = c + KC_VW <= C ? c : C - KC_VW;
            VF s0 = KC_DW_INIT(bias + cc);
            for (int64_t kx = 0; kx < kw; kx++)
                for (int64_t ky = 0; ky < kh; ky++) {
                    const float *wp = w + (ky * kw + kx) * C + cc;
                    if (ky < ky0 || ky >= ky1 || kx < kx0 || kx >= kx1) {
                        if (!half) s0 = s0 + z * KC(ld)(wp);
                        continue;
                    }
                    KC_DW_MAC(s0, KC(ld)(img + (o00 + ky * dy + kx * dx) + cc), KC(ld)(wp));
                }
            KC_DW_FIN(s0, bias + cc);
            KC(st)(o + cc, s0);
        }
        return;
    }
    /* fewer channels than a vector */
    float ti[KC_VW] = {0}, tw[KC_VW] = {0}, tb[KC_VW] = {0}, t[KC_VW];
    if (bias) memcpy(tb, bias, (size_t)C * 4);
    const float *bsave = bias;
    bias = bias ? tb : NULL;
    VF s0 = KC_DW_INIT(tb);
    for (int64_t kx = 0; kx < kw; kx++)
        for (int64_t ky = 0; ky < kh; ky++) {
            memcpy(tw, w + (ky * kw + kx) * C, (size_t)C * 4);
            if (ky < ky0 || ky >= ky1 || kx < kx0 || kx >= kx1) {
                if (!half) s0 = s0 + z * KC(ld)(tw);
                continue;
            }
            memcpy(ti, img + (o00 + ky * dy + kx * dx), (size_t)C * 4);
            KC_DW_MAC(s0, KC(ld)(ti), KC(ld)(tw));
        }
    KC_DW_FIN(s0, tb);
    bias = bsave;
    KC(st)(t, s0);
    memcpy(o, t, (size_t)C * 4);
}

/* any depth multiplier: scalar, output channel ic*mult + m, same arithmetic */
static void KC(dw_px_mult)(const lgk_dw_args *a, const float *img, float *o, int64_t iy0, int64_t ix0,
                           int64_t ky0, int64_t ky1, int64_t kx0, int64_t kx1) {
    const int64_t C = a->c, M = a->mult, OC = C * M;
    for (int64_t oc = 0; oc < OC; oc++) o[oc] = !a->half && a->bias ? a->bias[oc] : 0;
    for (int64_t kx = 0; kx < a->kw; kx++)
        for (int64_t ky = 0; ky < a->kh; ky++) {
            int inside = ky >= ky0 && ky < ky1 && kx >= kx0 && kx < kx1;
            if (!inside && a->half) continue;
            const float *ip = inside ? img + ((iy0 + ky * a->dh) * a->w_ + ix0 + kx * a->dw) * C : NULL;
            const float *wp = a->w + (ky * a->kw + kx) * OC;
            for (int64_t ic = 0; ic < C; ic++) {
                float x = inside ? ip[ic] : 0.0f;
                for (int64_t m = 0; m < M; m++) {
                    int64_t oc = ic * M + m;
                    if (a->half) o[oc] = lg_round_half(o[oc] + x * wp[oc]);
                    else o[oc] = o[oc] + x * wp[oc];
                }
            }
        }
    for (int64_t oc = 0; oc < OC; oc++) {
        float v = o[oc];
        if (a->half && a->bias) v = lg_round_half(v + a->bias[oc]);
        o[oc] = a->cl.on ? KC(clamp1)(v, a->cl) : v;
    }
}

/* Interior pixels (every tap in bounds) of one output row, channels [c, c + KC_VW): the 3x3
   weights of the block stay in registers while the row's pixels stream past them. */
static inline __attribute__((always_inline)) void KC(dw_run)(const lgk_dw_args *a, const float *ip0, float *op0,
                                                            int64_t nox, int64_t c, const int half, const int k3) {
    const int64_t C = a->c, sx = a->sw * C, dx = a->dw * C, dy = a->dh * a->w_ * C;
    const float *w = a->w + c, *bias = a->bias ? a->bias + c : NULL;
    const VF z = KC(splat)(0), lo = KC(splat)(a->cl.lo), hi = KC(splat)(a->cl.hi);
    const int act = a->cl.on;
    const VF b0 = KC_DW_INIT(bias);
    const float *ip = ip0 + c;
    float *op = op0 + c;
    if (half) {
        /* eight pixels per step: eight independent chains hide the latency of the rounding
           (add, then two conversions); the tap order is the documented one */
        const int64_t kh = a->kh, kw = a->kw;
        for (; nox >= 8; nox -= 8, ip += 8 * sx, op += 8 * C) {
            VF s0 = z, s1 = z, s2 = z, s3 = z, s4 = z, s5 = z, s6 = z, s7 = z;
            for (int64_t kx = 0; kx < kw; kx++) {
                const float *cp = ip + kx * dx, *wp = w + kx * C;
                for (int64_t ky = 0; ky < kh; ky++, cp += dy, wp += kw * C) {
                    const VF wv = KC(ld)(wp);
                    KC_MACH(s0, KC(ld)(cp), wv);
                    KC_MACH(s1, KC(ld)(cp + sx), wv);
                    KC_MACH(s2, KC(ld)(cp + 2 * sx), wv);
                    KC_MACH(s3, KC(ld)(cp + 3 * sx), wv);
                    KC_MACH(s4, KC(ld)(cp + 4 * sx), wv);
                    KC_MACH(s5, KC(ld)(cp + 5 * sx), wv);
                    KC_MACH(s6, KC(ld)(cp + 6 * sx), wv);
                    KC_MACH(s7, KC(ld)(cp + 7 * sx), wv);
                }
            }
            KC_DW_FIN(s0, bias); KC_DW_FIN(s1, bias); KC_DW_FIN(s2, bias); KC_DW_FIN(s3, bias);
            KC_DW_FIN(s4, bias); KC_DW_FIN(s5, bias); KC_DW_FIN(s6, bias); KC_DW_FIN(s7, bias);
            KC(st)(op, s0); KC(st)(op + C, s1); KC(st)(op + 2 * C, s2); KC(st)(op + 3 * C, s3);
            KC(st)(op + 4 * C, s4); KC(st)(op + 5 * C, s5); KC(st)(op + 6 * C, s6); KC(st)(op + 7 * C, s7);
        }
    }
    if (k3) {
        /* wYX: weight of tap (ky = Y, kx = X) */
        const VF w00 = KC(ld)(w), w01 = KC(ld)(w + C), w02 = KC(ld)(w + 2 * C);
        const VF w10 = KC(ld)(w + 3 * C), w11 = KC(ld)(w + 4 * C), w12 = KC(ld)(w + 5 * C);
        const VF w20 = KC(ld)(w + 6 * C), w21 = KC(ld)(w + 7 * C), w22 = KC(ld)(w + 8 * C);
        int64_t x = 0;
        if (!half) /* two pixels per step: two independent chains */
            for (; x + 2 <= nox; x += 2, ip += 2 * sx, op += 2 * C) {
                const float *p0 = ip, *p1 = ip + dx, *p2 = ip + 2 * dx; /* columns kx = 0, 1, 2 */
                VF s = b0, t = b0;
                s = s + KC(ld)(p0) * w00; t = t + KC(ld)(p0 + sx) * w00;
                s = s + KC(ld)(p0 + dy) * w10; t = t + KC(ld)(p0 + sx + dy) * w10;
                s = s + KC(ld)(p0 + 2 * dy) * w20; t = t + KC(ld)(p0 + sx + 2 * dy) * w20;
                s = s + KC(ld)(p1) * w01; t = t + KC(ld)(p1 + sx) * w01;
                s = s + KC(ld)(p1 + dy) * w11; t = t + KC(ld)(p1 + sx + dy) * w11;
                s = s + KC(ld)(p1 + 2 * dy) * w21; t = t + KC(ld)(p1 + sx + 2 * dy) * w21;
                s = s + KC(ld)(p2) * w02; t = t + KC(ld)(p2 + sx) * w02;
                s = s + KC(ld)(p2 + dy) * w12; t = t + KC(ld)(p2 + sx + dy) * w12;
                s = s + KC(ld)(p2 + 2 * dy) * w22; t = t + KC(ld)(p2 + sx + 2 * dy) * w22;
                KC_DW_FIN(s, bias);
                KC_DW_FIN(t, bias);
                KC(st)(op, s);
                KC(st)(op + C, t);
            }
        for (; x < nox; x++, ip += sx, op += C) {
            const float *p0 = ip, *p1 = ip + dx, *p2 = ip + 2 * dx;
            VF s = b0;
            KC_DW_MAC(s, KC(ld)(p0), w00); KC_DW_MAC(s, KC(ld)(p0 + dy), w10); KC_DW_MAC(s, KC(ld)(p0 + 2 * dy), w20);
            KC_DW_MAC(s, KC(ld)(p1), w01); KC_DW_MAC(s, KC(ld)(p1 + dy), w11); KC_DW_MAC(s, KC(ld)(p1 + 2 * dy), w21);
            KC_DW_MAC(s, KC(ld)(p2), w02); KC_DW_MAC(s, KC(ld)(p2 + dy), w12); KC_DW_MAC(s, KC(ld)(p2 + 2 * dy), w22);
            KC_DW_FIN(s, bias);
            KC(st)(op, s);
        }
        return;
    }
    /* any kernel: 4 pixels at a time, one weight load feeding 4 products */
    const int64_t kh = a->kh, kw = a->kw;
    int64_t x = 0;
    for (; x + 4 <= nox; x += 4, ip += 4 * sx, op += 4 * C) {
        VF s0 = b0, s1 = b0, s2 = b0, s3 = b0;
        for (int64_t kx = 0; kx < kw; kx++) {
            const float *cp = ip + kx * dx, *wp = w + kx * C;
            for (int64_t ky = 0; ky < kh; ky++, cp += dy, wp += kw * C) {
                const VF wv = KC(ld)(wp);
                KC_DW_MAC(s0, KC(ld)(cp), wv);
                KC_DW_MAC(s1, KC(ld)(cp + sx), wv);
                KC_DW_MAC(s2, KC(ld)(cp + 2 * sx), wv);
                KC_DW_MAC(s3, KC(ld)(cp + 3 * sx), wv);
            }
        }
        KC_DW_FIN(s0, bias);
        KC_DW_FIN(s1, bias);
        KC_DW_FIN(s2, bias);
        KC_DW_FIN(s3, bias);
        KC(st)(op, s0);
        KC(st)(op + C, s1);
        KC(st)(op + 2 * C, s2);
        KC(st)(op + 3 * C, s3);
    }
    for (; x < nox; x++, ip += sx, op += C) {
        VF s = b0;
        for (int64_t kx = 0; kx < kw; kx++) {
            const float *cp = ip + kx * dx, *wp = w + kx * C;
            for (int64_t ky = 0; ky < kh; ky++, cp += dy, wp += kw * C) KC_DW_MAC(s, KC(ld)(cp), KC(ld)(wp));
        }
        KC_DW_FIN(s, bias);
        KC(st)(op, s);
    }
}

static void KC(dw_rows)(const lgk_dw_args *a, int64_t r0, int64_t r1) {
    const int64_t OC = a->c * a->mult, C = a->c;
    /* output columns whose taps are all inside the row: ix0 >= 0 and ix0 + (kw-1)*dw < W */
    int64_t xlo = (a->pw + a->sw - 1) / a->sw;
    int64_t xhi = a->w_ - 1 - (a->kw - 1) * a->dw + a->pw;
    xhi = xhi < 0 ? 0 : xhi / a->sw + 1;
    if (xhi > a->ow) xhi = a->ow;
    if (xlo > xhi) xlo = xhi;
    const int fast = a->mult == 1 && C >= KC_VW;
    const int k3 = a->kh == 3 && a->kw == 3;
    for (int64_t r = r0; r < r1; r++) {
        int64_t b = r / a->oh, oy = r % a->oh;
        const float *img = a->in + b * a->h * a->w_ * C;
        int64_t iy0 = oy * a->sh - a->ph, ky0, ky1;
        KC(tap_range)(iy0, a->dh, a->kh, a->h, &ky0, &ky1);
        float *orow = a->out + r * a->ow * OC;
        int64_t x0 = 0, x1 = 0; /* the fast interior columns [x0, x1) */
        if (fast && ky0 == 0 && ky1 == a->kh) {
            x0 = xlo;
            x1 = xhi;
        }
        for (int64_t ox = 0; ox < a->ow; ox++) {
            if (ox == x0 && x1 > x0) {
                const float *ip0 = img + (iy0 * a->w_ + x0 * a->sw - a->pw) * C;
                float *op0 = orow + x0 * OC;
                int64_t nox = x1 - x0;
                for (int64_t c = 0; c < C; c += KC_VW) {
                    int64_t cc = c + KC_VW <= C ? c : C - KC_VW; /* last block overlaps: same values */
                    if (a->half) {
                        if (k3) KC(dw_run)(a, ip0, op0, nox, cc, 1, 1);
                        else KC(dw_run)(a, ip0, op0, nox, cc, 1, 0);
                    } else {
                        if (k3) KC(dw_run)(a, ip0, op0, nox, cc, 0, 1);
                        else KC(dw_run)(a, ip0, op0, nox, cc, 0, 0);
                    }
                }
                ox = x1 - 1;
                continue;
            }
            int64_t ix0 = ox * a->sw - a->pw, kx0, kx1;
            KC(tap_range)(ix0, a->dw, a->kw, a->w_, &kx0, &kx1);
            float *o = orow + ox * OC;
            if (a->mult != 1) KC(dw_px_mult)(a, img, o, iy0, ix0, ky0, ky1, kx0, kx1);
            else if (a->half) KC(dw_px)(a, img, o, iy0, ix0, ky0, ky1, kx0, kx1, 1);
            else KC(dw_px)(a, img, o, iy0, ix0, ky0, ky1, kx0, kx1, 0);
        }
    }
}

#undef KC_DW_INIT
/* ------------------------------------------------------------------ pooling */

/* fp32 average: XNNPACK's arithmetic (LiteRT.js bit for bit). The window's fh*fw cells in
   column-major order (fx outer), zero outside the image, in chunks of 9 summed as the tree
   ((i0+i1)+i8 + (i6+i7)) + ((i2+i3) + (i4+i5)) and accumulated acc = acc + chunk from 0,
   then acc * (1/count) with count the cells inside the image. */
/* the window's cells column-major (fy fastest), zero outside the image or past the end */
typedef struct KC(cells) {
    int64_t fy, fx, e;
} KC(cells);
static inline VF KC(next_cell)(const lgk_pool_args *a, const float *img, int64_t iy0, int64_t ix0, int64_t n, int64_t c,
                               int64_t nc, KC(cells) *it) {
    VF v = KC(splat)(0);
    if (it->e < n) {
        int64_t iy = iy0 + it->fy, ix = ix0 + it->fx;
        if (iy >= 0 && iy < a->h && ix >= 0 && ix < a->w_) v = KC(ld_part)(img + (iy * a->w_ + ix) * a->c + c, nc);
        it->e++;
        if (++it->fy == a->fh) {
            it->fy = 0;
            it->fx++;
        }
    }
    return v;
}

static VF KC(avg_xnn)(const lgk_pool_args *a, const float *img, int64_t iy0, int64_t ix0, int64_t c, int64_t nc) {
    const int64_t n = a->fh * a->fw;
    KC(cells) it = {0, 0, 0};
    VF acc = KC(splat)(0);
    for (int64_t e = 0; e < n; e += 9) {
        VF i0 = KC(next_cell)(a, img, iy0, ix0, n, c, nc, &it), i1 = KC(next_cell)(a, img, iy0, ix0, n, c, nc, &it);
        VF i2 = KC(next_cell)(a, img, iy0, ix0, n, c, nc, &it), i3 = KC(next_cell)(a, img, iy0, ix0, n, c, nc, &it);
        VF i4 = KC(next_cell)(a, img, iy0, ix0, n, c, nc, &it), i5 = KC(next_cell)(a, img, iy0, ix0, n, c, nc, &it);
        VF i6 = KC(next_cell)(a, img, iy0, ix0, n, c, nc, &it), i7 = KC(next_cell)(a, img, iy0, ix0, n, c, nc, &it);
        VF i8 = KC(next_cell)(a, img, iy0, ix0, n, c, nc, &it);
        VF s018 = (i0 + i1) + i8, s23 = i2 + i3, s45 = i4 + i5, s67 = i6 + i7;
        VF s2345 = s23 + s45, s01678 = s018 + s67;
        acc = acc + (s2345 + s01678);
    }
    return acc;
}

static void KC(pool_rows)(const lgk_pool_args *a, int64_t r0, int64_t r1) {
    const int64_t C = a->c, rs = a->w_ * C;
    const VF lo = KC(splat)(a->cl.lo), hi = KC(splat)(a->cl.hi);
    const float init = a->max ? -3.40282347e+38f : 0.0f;
    for (int64_t r = r0; r < r1; r++) {
        int64_t b = r / a->oh, oy = r % a->oh;
        const float *img = a->in + b * a->h * rs;
        int64_t iy0 = oy * a->sh - a->ph, fy0, fy1;
        KC(tap_range)(iy0, 1, a->fh, a->h, &fy0, &fy1);
        for (int64_t ox = 0; ox < a->ow; ox++) {
            int64_t ix0 = ox * a->sw - a->pw, fx0, fx1;
            KC(tap_range)(ix0, 1, a->fw, a->w_, &fx0, &fx1);
            float cnt = (float)((fy1 - fy0) * (fx1 - fx0));
            float *o = a->out + (r * a->ow + ox) * C;
            for (int64_t c = 0; c < C; c += KC_VW) {
                int64_t nc = KC(mini)(KC_VW, C - c);
                VF s;
                if (!a->max && !a->half) {
                    s = KC(avg_xnn)(a, img, iy0, ix0, c, nc) * KC(splat)(1.0f / cnt);
                } else {
                    /* max: TFLite's max from the lowest float. half (LG_PREC_F16): the GPU
                       delegate's average pool, which sums in fp32 even in F16 precision
                       (tflite/delegates/gpu/common/tasks/pooling.cc,
                       GetAveragePoolingKernelCode: `float4 r`, `r += Read<float>`, rows then
                       columns, `TO_FLT4(r / window_size)`): a running fp32 sum in row-major
                       order, the division in fp32, one rounding to half at the output */
                    s = KC(splat)(init);
                    for (int64_t fy = fy0; fy < fy1; fy++) {
                        const float *ip = img + (iy0 + fy) * rs + (ix0 + fx0) * C + c;
                        for (int64_t fx = fx0; fx < fx1; fx++, ip += C) {
                            VF v = KC(ld_part)(ip, nc);
                            if (a->max) s = KC(sel)(s < v, v, s);
                            else s = s + v;
                        }
                    }
                    if (!a->max) s = s / cnt;
                }
                if (a->cl.on) s = KC(clampv)(s, lo, hi);
                KC(st_part)(o + c, s, nc);
            }
        }
    }
}
