/* Part of the conv family's vector template (k_conv_tmpl.h includes it; no include guard on
 * purpose: compiled once per target with KC(name), KC_VW and KC_F16C set): im2col and the dot products across pixels (fp32 convs with 1-4 outputs). */

/* ------------------------------------------------------------------ im2col */

/* copy n floats (vectors, the last one overlapping when n is not a multiple of the width) */
static inline void KC(copyf)(float *d, const float *src, int64_t n) {
    if (n >= KC_VW) {
        int64_t i = 0;
        for (; i + KC_VW <= n; i += KC_VW) KC(st)(d + i, KC(ld)(src + i));
        if (i < n) KC(st)(d + n - KC_VW, KC(ld)(src + n - KC_VW));
    } else {
        for (int64_t i = 0; i < n; i++) d[i] = src[i];
    }
}
static inline void KC(zerof)(float *d, int64_t n) {
    const VF z = KC(splat)(0);
    if (n >= KC_VW) {
        int64_t i = 0;
        for (; i + KC_VW <= n; i += KC_VW) KC(st)(d + i, z);
        if (i < n) KC(st)(d + n - KC_VW, z);
    } else {
        for (int64_t i = 0; i < n; i++) d[i] = 0;
    }
}

static void KC(im2col)(const lgk_im2col_args *a, int64_t p0, int64_t mt, float *col) {
    const int64_t ohw = a->oh * a->ow, fic = a->fic, ic = a->ic, kw = a->kw, K = a->kh * kw * fic;
    const int64_t seg = kw * fic;
    int64_t b = p0 / ohw, oy = (p0 % ohw) / a->ow, ox = p0 % a->ow; /* advanced, not divided, per pixel */
    for (int64_t p = p0; p < p0 + mt; p++) {
        int64_t iy0 = oy * a->sh - a->ph, ix0 = ox * a->sw - a->pw;
        float *dst = col + (p - p0) * K;
        const float *img = a->in + b * a->h * a->w_ * ic + a->c0;
        if (++ox == a->ow) {
            ox = 0;
            if (++oy == a->oh) {
                oy = 0;
                b++;
            }
        }
        int contiguous_x = a->dw == 1 && fic == ic && ix0 >= 0 && ix0 + kw <= a->w_;
        for (int64_t ky = 0; ky < a->kh; ky++, dst += seg) {
            int64_t iy = iy0 + ky * a->dh;
            if (iy < 0 || iy >= a->h) {
                KC(zerof)(dst, seg);
                continue;
            }
            const float *src = img + iy * a->w_ * ic;
            if (contiguous_x) {
                KC(copyf)(dst, src + ix0 * ic, seg);
                continue;
            }
            for (int64_t kx = 0; kx < kw; kx++) {
                int64_t ix = ix0 + kx * a->dw;
                if (ix < 0 || ix >= a->w_) KC(zerof)(dst + kx * fic, fic);
                else KC(copyf)(dst + kx * fic, src + ix * ic, fic);
            }
        }
    }
}


/* fp32 conv with 1-4 output channels, where the GEMM would waste most of its lanes; vectorized
   across 8 output pixels instead. The arithmetic is XNNPACK's (LiteRT.js bit for bit): for
   fewer than 8 outputs its "c4" kernels (the chain form, acc = bias; acc = acc + x*w in
   (ky, kx, c) order, is kept for other callers): four partial sums per output,
     a[0] = bias, a[1..3] = 0; each tap's channels in groups of 4, channel c of a group into
     a[c % 4] (a group's missing channels, and its channels whose weight is 0 in a last partial
     group, add +0); the result (a[0] + a[2]) + (a[1] + a[3]).
   Padding taps read zeros. Runs of interior pixels load 8 pixels' channels and transpose
   them 8x8 (AVX2); other pixels go one by one through a one-pixel im2col (colbuf, K floats). */

/* one output of a 1-pixel im2col row x (K = taps * ic floats) */
static inline float KC(dot1)(const float *x, const float *w, int64_t taps, int64_t ic, float bias, int c4) {
    if (!c4) {
        float acc = bias;
        for (int64_t k = 0; k < taps * ic; k++) acc = acc + x[k] * w[k];
        return acc;
    }
    float a[4] = {bias, 0.0f, 0.0f, 0.0f};
    for (int64_t t = 0; t < taps; t++, x += ic, w += ic)
        for (int64_t c0 = 0; c0 < ic; c0 += 4) {
            int full = c0 + 4 <= ic;
            for (int64_t j = 0; j < 4; j++) {
                int64_t c = c0 + j;
                float p = full || (c < ic && w[c] != 0.0f) ? x[c] * w[c] : 0.0f;
                a[j] = a[j] + p;
            }
        }
    return (a[0] + a[2]) + (a[1] + a[3]);
}

#if KC_VW == 8
static inline void KC(tr8)(VF *r) {
    __m256 t0 = _mm256_unpacklo_ps((__m256)r[0], (__m256)r[1]), t1 = _mm256_unpackhi_ps((__m256)r[0], (__m256)r[1]);
    __m256 t2 = _mm256_unpacklo_ps((__m256)r[2], (__m256)r[3]), t3 = _mm256_unpackhi_ps((__m256)r[2], (__m256)r[3]);
    __m256 t4 = _mm256_unpacklo_ps((__m256)r[4], (__m256)r[5]), t5 = _mm256_unpackhi_ps((__m256)r[4], (__m256)r[5]);
    __m256 t6 = _mm256_unpacklo_ps((__m256)r[6], (__m256)r[7]), t7 = _mm256_unpackhi_ps((__m256)r[6], (__m256)r[7]);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    r[0] = (VF)_mm256_permute2f128_ps(s0, s4, 0x20);
    r[1] = (VF)_mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = (VF)_mm256_permute2f128_ps(s2, s6, 0x20);
    r[3] = (VF)_mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = (VF)_mm256_permute2f128_ps(s0, s4, 0x31);
    r[5] = (VF)_mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = (VF)_mm256_permute2f128_ps(s2, s6, 0x31);
    r[7] = (VF)_mm256_permute2f128_ps(s3, s7, 0x31);
}

/* one tap for 8 pixels: x(j, c) = base[j*ls + c], c < ic; w(o, c) = w[o*ws + c]. acc holds
   N chains (c4 = 0) or N x 4 partial sums (c4 = 1, [o*4 + lane]). */
static inline void KC(tap8)(VF *acc, const float *base, int64_t ls, int64_t ic, const float *w, int64_t ws, int64_t N,
                            const int c4) {
    int64_t c = 0;
    for (; c + 8 <= ic; c += 8) {
        VF x[8];
        for (int j = 0; j < 8; j++) x[j] = KC(ld)(base + j * ls + c);
        KC(tr8)(x); /* x[i]: channel c + i of the 8 pixels */
        for (int64_t o = 0; o < N; o++) {
            const float *wo = w + o * ws + c;
            if (c4) {
                for (int i = 0; i < 8; i++) acc[o * 4 + (i & 3)] = acc[o * 4 + (i & 3)] + x[i] * KC(splat)(wo[i]);
            } else {
                VF a = acc[o];
                for (int i = 0; i < 8; i++) a = a + x[i] * KC(splat)(wo[i]);
                acc[o] = a;
            }
        }
    }
    if (c4) {
        /* the rest in groups of 4 (c is a multiple of 4 here) */
        for (; c < ic; c += 4) {
            int full = c + 4 <= ic;
            for (int64_t j = 0; j < 4; j++) {
                int64_t cc = c + j;
                const float *q = base + cc;
                VF x = KC(splat)(0);
                if (cc < ic) x = (VF){q[0], q[ls], q[2 * ls], q[3 * ls], q[4 * ls], q[5 * ls], q[6 * ls], q[7 * ls]};
                for (int64_t o = 0; o < N; o++) {
                    float wv = cc < ic ? w[o * ws + cc] : 0.0f;
                    VF p = full || (cc < ic && wv != 0.0f) ? x * KC(splat)(wv) : KC(splat)(0);
                    acc[o * 4 + j] = acc[o * 4 + j] + p;
                }
            }
        }
        return;
    }
    for (; c < ic; c++) {
        const float *q = base + c;
        VF x = {q[0], q[ls], q[2 * ls], q[3 * ls], q[4 * ls], q[5 * ls], q[6 * ls], q[7 * ls]};
        for (int64_t o = 0; o < N; o++) acc[o] = acc[o] + x * KC(splat)(w[o * ws + c]);
    }
}

/* one output channel, c4: the four partial sums in registers, channels in blocks of 8 */
static inline void KC(dot8_n1)(const lgk_im2col_args *a, const float *ip, int64_t sx, int64_t dy, const float *w,
                               const float *bias, lgk_clamp cl, float *out, int64_t ldo) {
    const int64_t ic = a->ic;
    const VF z = KC(splat)(0);
    VF p0 = KC(splat)(bias ? bias[0] : 0.0f), p1 = z, p2 = z, p3 = z;
    for (int64_t ky = 0; ky < a->kh; ky++)
        for (int64_t kx = 0; kx < a->kw; kx++) {
            const float *base = ip + ky * dy + kx * ic, *wt = w + (ky * a->kw + kx) * ic;
            int64_t c = 0;
            for (; c + 8 <= ic; c += 8) {
                VF x[8];
                for (int j = 0; j < 8; j++) x[j] = KC(ld)(base + j * sx + c);
                KC(tr8)(x);
                p0 = p0 + x[0] * KC(splat)(wt[c]);
                p1 = p1 + x[1] * KC(splat)(wt[c + 1]);
                p2 = p2 + x[2] * KC(splat)(wt[c + 2]);
                p3 = p3 + x[3] * KC(splat)(wt[c + 3]);
                p0 = p0 + x[4] * KC(splat)(wt[c + 4]);
                p1 = p1 + x[5] * KC(splat)(wt[c + 5]);
                p2 = p2 + x[6] * KC(splat)(wt[c + 6]);
                p3 = p3 + x[7] * KC(splat)(wt[c + 7]);
            }
            if (c < ic) {
                VF acc[4] = {p0, p1, p2, p3};
                for (; c < ic; c += 4) {
                    int full = c + 4 <= ic;
                    for (int64_t j = 0; j < 4; j++) {
                        int64_t cc = c + j;
                        VF pr = z;
                        if (cc < ic && (full || wt[cc] != 0.0f)) {
                            const float *q = base + cc;
                            VF x = {q[0], q[sx], q[2 * sx], q[3 * sx], q[4 * sx], q[5 * sx], q[6 * sx], q[7 * sx]};
                            pr = x * KC(splat)(wt[cc]);
                        }
                        acc[j] = acc[j] + pr;
                    }
                }
                p0 = acc[0]; p1 = acc[1]; p2 = acc[2]; p3 = acc[3];
            }
        }
    VF v = (p0 + p2) + (p1 + p3);
    if (cl.on) v = KC(clampv)(v, KC(splat)(cl.lo), KC(splat)(cl.hi));
    float t[8];
    KC(st)(t, v);
    for (int j = 0; j < 8; j++) out[j * ldo] = t[j];
}

/* 8 interior pixels starting at ip (pixel j at ip + j*sx; tap (ky, kx) at + ky*dy + kx*ic) */
static inline void KC(dot8)(const lgk_im2col_args *a, const float *ip, int64_t sx, int64_t dy, const float *w,
                            int64_t N, const float *bias, lgk_clamp cl, float *out, int64_t ldo, const int c4) {
    const int64_t ic = a->ic, K = a->kh * a->kw * ic;
    VF acc[16];
    for (int64_t o = 0; o < N; o++) {
        VF b = KC(splat)(bias ? bias[o] : 0.0f);
        if (c4) {
            acc[o * 4] = b;
            acc[o * 4 + 1] = acc[o * 4 + 2] = acc[o * 4 + 3] = KC(splat)(0);
        } else {
            acc[o] = b;
        }
    }
    for (int64_t ky = 0; ky < a->kh; ky++)
        for (int64_t kx = 0; kx < a->kw; kx++)
            KC(tap8)(acc, ip + ky * dy + kx * ic, sx, ic, w + (ky * a->kw + kx) * ic, K, N, c4);
    for (int64_t o = 0; o < N; o++) {
        VF v = c4 ? (acc[o * 4] + acc[o * 4 + 2]) + (acc[o * 4 + 1] + acc[o * 4 + 3]) : acc[o];
        if (cl.on) v = KC(clampv)(v, KC(splat)(cl.lo), KC(splat)(cl.hi));
        float t[8];
        KC(st)(t, v);
        for (int j = 0; j < 8; j++) out[j * ldo + o] = t[j];
    }
}
#endif

static void KC(conv_dot)(const lgk_im2col_args *a, const float *w, int64_t N, const float *bias, lgk_clamp cl,
                         float *out, int64_t ldo, int64_t p0, int64_t p1, float *colbuf) {
    const int64_t ohw = a->oh * a->ow, ic = a->ic, kw = a->kw, taps = a->kh * kw, K = taps * a->fic;
    const int64_t sx = a->sw * ic, rs = a->w_ * ic, dy = a->dh * rs;
    const int contiguous = a->dw == 1 && a->fic == ic;
    const int c4 = N < 8; /* always, for the 1-4 channels this path serves (lgk_cv_use_c4) */
    /* interior columns: ix0 >= 0 and ix0 + kw <= W */
    int64_t xlo = (a->pw + a->sw - 1) / a->sw, xhi = a->w_ - kw + a->pw;
    xhi = xhi < 0 ? 0 : xhi / a->sw + 1;
    if (xhi > a->ow) xhi = a->ow;
    if (xlo > xhi) xlo = xhi;
    int64_t p = p0;
    while (p < p1) {
        int64_t b = p / ohw, oy = (p % ohw) / a->ow, ox = p % a->ow;
        int64_t iy0 = oy * a->sh - a->ph;
        int rows_in = contiguous && iy0 >= 0 && iy0 + (a->kh - 1) * a->dh < a->h;
#if KC_VW == 8
        if (rows_in && ox >= xlo && ox + 8 <= xhi && p + 8 <= p1) {
            const float *img = a->in + b * a->h * rs + a->c0;
            const float *ip = img + iy0 * rs + (ox * a->sw - a->pw) * ic;
            if (N == 1) KC(dot8_n1)(a, ip, sx, dy, w, bias, cl, out + (p - p0) * ldo, ldo);
            else if (c4) KC(dot8)(a, ip, sx, dy, w, N, bias, cl, out + (p - p0) * ldo, ldo, 1);
            else KC(dot8)(a, ip, sx, dy, w, N, bias, cl, out + (p - p0) * ldo, ldo, 0);
            p += 8;
            continue;
        }
#else
        (void)rows_in; (void)sx; (void)dy; (void)xlo; (void)b; (void)ox;
#endif
        KC(im2col)(a, p, 1, colbuf);
        for (int64_t o = 0; o < N; o++) {
            float v = KC(dot1)(colbuf, w + o * K, taps, a->fic, bias ? bias[o] : 0.0f, c4);
            out[(p - p0) * ldo + o] = cl.on ? KC(clamp1)(v, cl) : v;
        }
        p++;
    }
}
