/* The conv family's vector inner loops, written once and compiled twice by k_conv_simd.c
 * (no include guard on purpose): with KC_VW 4 (portable: SSE2 on x86-64, NEON on arm64) and,
 * on x86-64, with KC_VW 8 under target("avx2,f16c"). KC(name) suffixes every name.
 *
 * Every lane performs the same sequence of fp32 operations whatever the width (no FMA, no
 * reassociation), so both builds give identical bits; tails use the same formulas. The half rounding KC(h) is exact round-to-nearest-even to binary16 and back, with
 * subnormals, overflow to inf and NaN as lg_round_half (tested bit for bit). */

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

/* ------------------------------------------------------------------ fp32 GEMM */

/* C[m*ldc + n] = clamp(bias[n] + sum_k A[m*lda + k] * W(n, k)), W packed by lgk_cv_pack_b in
   panels of 16 columns (the last one 8 or 16 wide, zero padded): panel-major, then k, then
   the panel's columns. Each output is one chain acc = bias (or 0); acc = acc + a*w for k
   ascending, a product and an add per step (no FMA), which is what XNNPACK computes on wasm
   SIMD, so fp32 results match LiteRT.js bit for bit. Register tiles: 6 rows x 16 columns
   (8 lanes) or 3 x 16 (4 lanes); rows past M repeat the last row and are not stored. */
#if KC_VW == 8
#define KC_MR 6
#else
#define KC_MR 3
#endif
#define KC_NV (16 / KC_VW) /* vectors across a 16-wide panel */

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

static void KC(gemm)(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *Bp, float *C,
                     int64_t ldc, const float *bias, lgk_clamp cl) {
    const VF z = KC(splat)(0), lo = KC(splat)(cl.lo), hi = KC(splat)(cl.hi);
    for (int64_t m0 = 0; m0 < M; m0 += KC_MR) {
        const int64_t mr = M - m0 < KC_MR ? M - m0 : KC_MR;
        const float *ar[KC_MR];
        for (int r = 0; r < KC_MR; r++) ar[r] = A + (m0 + (r < mr ? r : mr - 1)) * lda;
        const float *bp = Bp;
        for (int64_t j0 = 0; j0 < N;) {
            const int64_t rem = N - j0, pw = rem <= 8 ? 8 : 16, nv = pw / KC_VW; /* vectors in the panel */
            VF init[KC_NV], acc[KC_MR][KC_NV];
            for (int v = 0; v < KC_NV; v++) init[v] = bias && v < nv ? KC(ld_part)(bias + j0 + v * KC_VW, rem - v * KC_VW) : z;
            const float *b = bp;
#if KC_VW == 8
            const float *a0 = ar[0], *a1 = ar[1], *a2 = ar[2], *a3 = ar[3], *a4 = ar[4], *a5 = ar[5];
            if (nv == 2) {
                VF c00 = init[0], c01 = init[1], c10 = init[0], c11 = init[1], c20 = init[0], c21 = init[1];
                VF c30 = init[0], c31 = init[1], c40 = init[0], c41 = init[1], c50 = init[0], c51 = init[1];
                for (int64_t k = 0; k < K; k++, b += 16) {
                    const VF b0 = KC(ld)(b), b1 = KC(ld)(b + 8);
                    VF x;
                    x = KC(splat)(a0[k]); c00 = c00 + x * b0; c01 = c01 + x * b1;
                    x = KC(splat)(a1[k]); c10 = c10 + x * b0; c11 = c11 + x * b1;
                    x = KC(splat)(a2[k]); c20 = c20 + x * b0; c21 = c21 + x * b1;
                    x = KC(splat)(a3[k]); c30 = c30 + x * b0; c31 = c31 + x * b1;
                    x = KC(splat)(a4[k]); c40 = c40 + x * b0; c41 = c41 + x * b1;
                    x = KC(splat)(a5[k]); c50 = c50 + x * b0; c51 = c51 + x * b1;
                }
                acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11; acc[2][0] = c20; acc[2][1] = c21;
                acc[3][0] = c30; acc[3][1] = c31; acc[4][0] = c40; acc[4][1] = c41; acc[5][0] = c50; acc[5][1] = c51;
            } else {
                VF c0 = init[0], c1 = init[0], c2 = init[0], c3 = init[0], c4 = init[0], c5 = init[0];
                for (int64_t k = 0; k < K; k++, b += 8) {
                    const VF b0 = KC(ld)(b);
                    c0 = c0 + KC(splat)(a0[k]) * b0;
                    c1 = c1 + KC(splat)(a1[k]) * b0;
                    c2 = c2 + KC(splat)(a2[k]) * b0;
                    c3 = c3 + KC(splat)(a3[k]) * b0;
                    c4 = c4 + KC(splat)(a4[k]) * b0;
                    c5 = c5 + KC(splat)(a5[k]) * b0;
                }
                acc[0][0] = c0; acc[1][0] = c1; acc[2][0] = c2; acc[3][0] = c3; acc[4][0] = c4; acc[5][0] = c5;
            }
#else
            const float *a0 = ar[0], *a1 = ar[1], *a2 = ar[2];
            if (nv == 4) {
                VF c00 = init[0], c01 = init[1], c02 = init[2], c03 = init[3];
                VF c10 = init[0], c11 = init[1], c12 = init[2], c13 = init[3];
                VF c20 = init[0], c21 = init[1], c22 = init[2], c23 = init[3];
                for (int64_t k = 0; k < K; k++, b += 16) {
                    const VF b0 = KC(ld)(b), b1 = KC(ld)(b + 4), b2 = KC(ld)(b + 8), b3 = KC(ld)(b + 12);
                    VF x;
                    x = KC(splat)(a0[k]); c00 = c00 + x * b0; c01 = c01 + x * b1; c02 = c02 + x * b2; c03 = c03 + x * b3;
                    x = KC(splat)(a1[k]); c10 = c10 + x * b0; c11 = c11 + x * b1; c12 = c12 + x * b2; c13 = c13 + x * b3;
                    x = KC(splat)(a2[k]); c20 = c20 + x * b0; c21 = c21 + x * b1; c22 = c22 + x * b2; c23 = c23 + x * b3;
                }
                acc[0][0] = c00; acc[0][1] = c01; acc[0][2] = c02; acc[0][3] = c03;
                acc[1][0] = c10; acc[1][1] = c11; acc[1][2] = c12; acc[1][3] = c13;
                acc[2][0] = c20; acc[2][1] = c21; acc[2][2] = c22; acc[2][3] = c23;
            } else {
                VF c00 = init[0], c01 = init[1], c10 = init[0], c11 = init[1], c20 = init[0], c21 = init[1];
                for (int64_t k = 0; k < K; k++, b += 8) {
                    const VF b0 = KC(ld)(b), b1 = KC(ld)(b + 4);
                    VF x;
                    x = KC(splat)(a0[k]); c00 = c00 + x * b0; c01 = c01 + x * b1;
                    x = KC(splat)(a1[k]); c10 = c10 + x * b0; c11 = c11 + x * b1;
                    x = KC(splat)(a2[k]); c20 = c20 + x * b0; c21 = c21 + x * b1;
                }
                acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11; acc[2][0] = c20; acc[2][1] = c21;
            }
#endif
            for (int64_t r = 0; r < mr; r++) {
                float *c = C + (m0 + r) * ldc + j0;
                for (int64_t v = 0; v < nv; v++) {
                    VF o = acc[r][v];
                    if (cl.on) o = KC(clampv)(o, lo, hi);
                    KC(st_part)(c + v * KC_VW, o, rem - v * KC_VW);
                }
            }
            bp += K * pw;
            j0 += pw;
        }
    }
}
#undef KC_MR
#undef KC_NV

/* The same product with XNNPACK's "c4" arithmetic (see lgk_cv_gemm_c4): per output four
   partial sums, p[0] = bias, p[1..3] = 0; k runs through segments of seg values (a conv's
   taps), each in groups of 4 with value j of a group added to p[j] (a group's missing values,
   and in a last partial group those whose weight is 0, add +0); the output
   (p[0] + p[2]) + (p[1] + p[3]). Two rows x one vector of columns per step. */
static void KC(gemm_c4)(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *Bp, float *C,
                        int64_t ldc, const float *bias, lgk_clamp cl, int64_t seg) {
    const VF z = KC(splat)(0), lo = KC(splat)(cl.lo), hi = KC(splat)(cl.hi);
    for (int64_t m0 = 0; m0 < M; m0 += 3) {
        const int64_t mr = M - m0 < 3 ? M - m0 : 3;
        const float *a0 = A + m0 * lda, *a1 = a0 + (mr > 1 ? lda : 0), *a2 = a0 + (mr > 2 ? 2 : mr - 1) * lda;
        const float *bp = Bp;
        for (int64_t j0 = 0; j0 < N;) {
            const int64_t rem = N - j0, pw = rem <= 8 ? 8 : 16, nv = pw / KC_VW;
            for (int64_t v = 0; v < nv; v++) {
                const int64_t cnt = rem - v * KC_VW;
                if (cnt <= 0) break;
                const VF b0 = bias ? KC(ld_part)(bias + j0 + v * KC_VW, cnt) : z;
                /* pRJ: row R, partial sum J */
                VF p00 = b0, p01 = z, p02 = z, p03 = z, p10 = b0, p11 = z, p12 = z, p13 = z;
                VF p20 = b0, p21 = z, p22 = z, p23 = z;
                const float *bcol = bp + v * KC_VW;
                for (int64_t s0 = 0; s0 < K; s0 += seg) {
                    int64_t g = 0;
                    for (; g + 4 <= seg; g += 4) {
                        const int64_t k = s0 + g;
                        const float *bk = bcol + k * pw;
                        VF w = KC(ld)(bk);
                        p00 = p00 + KC(splat)(a0[k]) * w; p10 = p10 + KC(splat)(a1[k]) * w; p20 = p20 + KC(splat)(a2[k]) * w;
                        w = KC(ld)(bk + pw);
                        p01 = p01 + KC(splat)(a0[k + 1]) * w; p11 = p11 + KC(splat)(a1[k + 1]) * w; p21 = p21 + KC(splat)(a2[k + 1]) * w;
                        w = KC(ld)(bk + 2 * pw);
                        p02 = p02 + KC(splat)(a0[k + 2]) * w; p12 = p12 + KC(splat)(a1[k + 2]) * w; p22 = p22 + KC(splat)(a2[k + 2]) * w;
                        w = KC(ld)(bk + 3 * pw);
                        p03 = p03 + KC(splat)(a0[k + 3]) * w; p13 = p13 + KC(splat)(a1[k + 3]) * w; p23 = p23 + KC(splat)(a2[k + 3]) * w;
                    }
                    if (g < seg) { /* a last partial group */
                        VF q0[4], q1[4], q2[4];
                        for (int64_t j = 0; j < 4; j++) {
                            q0[j] = q1[j] = q2[j] = z;
                            if (g + j < seg) {
                                const int64_t k = s0 + g + j;
                                const VF w = KC(ld)(bcol + k * pw);
                                const VI nz = w != z;
                                q0[j] = KC(sel)(nz, KC(splat)(a0[k]) * w, z);
                                q1[j] = KC(sel)(nz, KC(splat)(a1[k]) * w, z);
                                q2[j] = KC(sel)(nz, KC(splat)(a2[k]) * w, z);
                            }
                        }
                        p00 = p00 + q0[0]; p01 = p01 + q0[1]; p02 = p02 + q0[2]; p03 = p03 + q0[3];
                        p10 = p10 + q1[0]; p11 = p11 + q1[1]; p12 = p12 + q1[2]; p13 = p13 + q1[3];
                        p20 = p20 + q2[0]; p21 = p21 + q2[1]; p22 = p22 + q2[2]; p23 = p23 + q2[3];
                    }
                }
                VF r[3] = {(p00 + p02) + (p01 + p03), (p10 + p12) + (p11 + p13), (p20 + p22) + (p21 + p23)};
                for (int64_t i = 0; i < mr; i++) {
                    VF o = r[i];
                    if (cl.on) o = KC(clampv)(o, lo, hi);
                    KC(st_part)(C + (m0 + i) * ldc + j0 + v * KC_VW, o, cnt);
                }
            }
            bp += K * pw;
            j0 += pw;
        }
    }
}

/* fp32 transposed conv as a gather, XNNPACK's arithmetic: each output acc = bias, then the
   taps that reach it with ky, then kx ascending, each tap's channels in order: one chain
   (seq), or four partial sums per tap's channel groups (c4, < 8 outputs; see gemm_c4).
   Vectorized over output channels with wt = the weights as [tap][ic][ocp]. */
/* one output pixel, vectorized over output channels */
static inline void KC(tconv_px)(const lgk_tconv_args *a, const float *in, const float *wt, int64_t ocp, const float *bias,
                                lgk_clamp cl, int c4, int64_t b, int64_t oy, int64_t ox) {
    const VF z = KC(splat)(0), lo = KC(splat)(cl.lo), hi = KC(splat)(cl.hi);
    const int64_t ic = a->ic, oc = a->oc;
    float *o = a->out + ((b * a->oh + oy) * a->ow + ox) * oc;
    int64_t c0 = 0;
    if (!c4) /* chains: 4 vectors of output channels at a time (independent chains) */
        for (; c0 + 4 * KC_VW <= oc; c0 += 4 * KC_VW) {
            VF q0 = bias ? KC(ld)(bias + c0) : z, q1 = bias ? KC(ld)(bias + c0 + KC_VW) : z;
            VF q2 = bias ? KC(ld)(bias + c0 + 2 * KC_VW) : z, q3 = bias ? KC(ld)(bias + c0 + 3 * KC_VW) : z;
            for (int64_t ky = 0; ky < a->kh; ky++) {
                const int64_t ty = oy + a->ph - ky;
                if (ty < 0 || ty % a->sh || ty / a->sh >= a->h) continue;
                for (int64_t kx = 0; kx < a->kw; kx++) {
                    const int64_t tx = ox + a->pw - kx;
                    if (tx < 0 || tx % a->sw || tx / a->sw >= a->w_) continue;
                    const float *x = in + ((b * a->h + ty / a->sh) * a->w_ + tx / a->sw) * ic;
                    const float *w = wt + (ky * a->kw + kx) * ic * ocp + c0;
                    for (int64_t c = 0; c < ic; c++, w += ocp) {
                        const VF xv = KC(splat)(x[c]);
                        q0 = q0 + xv * KC(ld)(w);
                        q1 = q1 + xv * KC(ld)(w + KC_VW);
                        q2 = q2 + xv * KC(ld)(w + 2 * KC_VW);
                        q3 = q3 + xv * KC(ld)(w + 3 * KC_VW);
                    }
                }
            }
            if (cl.on) {
                q0 = KC(clampv)(q0, lo, hi);
                q1 = KC(clampv)(q1, lo, hi);
                q2 = KC(clampv)(q2, lo, hi);
                q3 = KC(clampv)(q3, lo, hi);
            }
            KC(st)(o + c0, q0);
            KC(st)(o + c0 + KC_VW, q1);
            KC(st)(o + c0 + 2 * KC_VW, q2);
            KC(st)(o + c0 + 3 * KC_VW, q3);
        }
    for (; c0 < oc; c0 += KC_VW) {
        const int64_t cnt = oc - c0;
        const VF b0 = bias ? KC(ld_part)(bias + c0, cnt) : z;
        VF p0 = b0, p1 = z, p2 = z, p3 = z;
        for (int64_t ky = 0; ky < a->kh; ky++) {
            const int64_t ty = oy + a->ph - ky;
            if (ty < 0 || ty % a->sh) continue;
            const int64_t iy = ty / a->sh;
            if (iy >= a->h) continue;
            for (int64_t kx = 0; kx < a->kw; kx++) {
                const int64_t tx = ox + a->pw - kx;
                if (tx < 0 || tx % a->sw) continue;
                const int64_t ix = tx / a->sw;
                if (ix >= a->w_) continue;
                const float *x = in + ((b * a->h + iy) * a->w_ + ix) * ic;
                const float *w = wt + (ky * a->kw + kx) * ic * ocp + c0;
                if (!c4) {
                    for (int64_t c = 0; c < ic; c++) p0 = p0 + KC(splat)(x[c]) * KC(ld)(w + c * ocp);
                    continue;
                }
                int64_t c = 0;
                for (; c + 4 <= ic; c += 4) {
                    p0 = p0 + KC(splat)(x[c]) * KC(ld)(w + c * ocp);
                    p1 = p1 + KC(splat)(x[c + 1]) * KC(ld)(w + (c + 1) * ocp);
                    p2 = p2 + KC(splat)(x[c + 2]) * KC(ld)(w + (c + 2) * ocp);
                    p3 = p3 + KC(splat)(x[c + 3]) * KC(ld)(w + (c + 3) * ocp);
                }
                if (c < ic) {
                    VF q[4] = {z, z, z, z};
                    for (int64_t j = 0; c + j < ic; j++) {
                        const VF wv = KC(ld)(w + (c + j) * ocp);
                        q[j] = KC(sel)(wv != z, KC(splat)(x[c + j]) * wv, z);
                    }
                    p0 = p0 + q[0]; p1 = p1 + q[1]; p2 = p2 + q[2]; p3 = p3 + q[3];
                }
            }
        }
        VF v = c4 ? (p0 + p2) + (p1 + p3) : p0;
        if (cl.on) v = KC(clampv)(v, lo, hi);
        KC(st_part)(o + c0, v, cnt);
    }
}

#if KC_VW == 8
/* 8 outputs of one row and x phase (ox = ox0 + j*sw) with all their taps inside the image,
   for up to 4 output channels: lanes across the pixels, through tap8 (w: [oc][kh][kw][ic]) */
static inline void KC(tconv8)(const lgk_tconv_args *a, const float *in, const float *w, const float *bias, lgk_clamp cl,
                              int c4, int64_t b, int64_t oy, int64_t ox0) {
    const int64_t ic = a->ic, oc = a->oc, taps = a->kh * a->kw;
    VF acc[16];
    for (int64_t o = 0; o < oc; o++) {
        VF bv = KC(splat)(bias ? bias[o] : 0.0f);
        if (c4) {
            acc[o * 4] = bv;
            acc[o * 4 + 1] = acc[o * 4 + 2] = acc[o * 4 + 3] = KC(splat)(0);
        } else {
            acc[o] = bv;
        }
    }
    for (int64_t ky = 0; ky < a->kh; ky++) {
        const int64_t ty = oy + a->ph - ky;
        if (ty < 0 || ty % a->sh || ty / a->sh >= a->h) continue;
        const int64_t iy = ty / a->sh;
        for (int64_t kx = 0; kx < a->kw; kx++) {
            const int64_t tx = ox0 + a->pw - kx;
            if (tx < 0 || tx % a->sw) continue;
            const int64_t ix = tx / a->sw; /* lane j reads ix + j */
            const float *base = in + ((b * a->h + iy) * a->w_ + ix) * ic;
            if (c4) KC(tap8)(acc, base, ic, ic, w + (ky * a->kw + kx) * ic, taps * ic, oc, 1);
            else KC(tap8)(acc, base, ic, ic, w + (ky * a->kw + kx) * ic, taps * ic, oc, 0);
        }
    }
    for (int64_t o = 0; o < oc; o++) {
        VF v = c4 ? (acc[o * 4] + acc[o * 4 + 2]) + (acc[o * 4 + 1] + acc[o * 4 + 3]) : acc[o];
        if (cl.on) v = KC(clampv)(v, KC(splat)(cl.lo), KC(splat)(cl.hi));
        float t[8];
        KC(st)(t, v);
        for (int j = 0; j < 8; j++) a->out[((b * a->oh + oy) * a->ow + ox0 + j * a->sw) * oc + o] = t[j];
    }
}
#endif

/* fp32 transposed conv as a gather, XNNPACK's arithmetic: each output acc = bias, then the
   taps that reach it with ky, then kx ascending, each tap's channels in order: one chain
   (seq), or four partial sums per tap's channel groups (c4, < 8 outputs; see gemm_c4).
   Vectorized over output channels with wt = the weights as [tap][ic][ocp]; with at most 4
   output channels (AVX2), over 8 pixels of a row sharing their taps (w: the raw weights). */
static void KC(tconv_rows)(const lgk_tconv_args *a, const float *in, const float *w, const float *wt, int64_t ocp,
                           const float *bias, lgk_clamp cl, int c4, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; r++) {
        const int64_t b = r / a->oh, oy = r % a->oh;
#if KC_VW == 8
        if (a->oc <= 4) {
            /* per x phase: outputs ox = px + j*sw share the kx taps; a block of 8 is fast when
               every tap's input column is inside the row for all 8 */
            for (int64_t px = 0; px < a->sw && px < a->ow; px++) {
                int64_t n = (a->ow - px + a->sw - 1) / a->sw, j = 0;
                while (j < n) {
                    int inside = j + 8 <= n;
                    for (int64_t kx = 0; inside && kx < a->kw; kx++) {
                        int64_t t0 = px + j * a->sw + a->pw - kx; /* tx of the first lane */
                        if (t0 % a->sw) continue;                 /* (t0 % sw is the same for all lanes) */
                        int64_t i0 = t0 / a->sw;
                        if (t0 < 0 || i0 + 7 >= a->w_) inside = 0;
                    }
                    if (inside) {
                        KC(tconv8)(a, in, w, bias, cl, c4, b, oy, px + j * a->sw);
                        j += 8;
                    } else {
                        KC(tconv_px)(a, in, wt, ocp, bias, cl, c4, b, oy, px + j * a->sw);
                        j++;
                    }
                }
            }
            continue;
        }
#else
        (void)w;
#endif
        for (int64_t ox = 0; ox < a->ow; ox++) KC(tconv_px)(a, in, wt, ocp, bias, cl, c4, b, oy, ox);
    }
}

/* ------------------------------------------------------------------ half GEMM */

/* bias (half-rounded add), clamp and store cnt <= KC_VW lanes */
static inline void KC(fin_h)(float *c, VF v, int64_t cnt, const float *bias, lgk_clamp cl) {
    float t[KC_VW] = {0};
    if (bias) {
        VF bv;
        if (cnt == KC_VW) {
            bv = KC(ld)(bias);
        } else {
            memcpy(t, bias, (size_t)cnt * 4);
            bv = KC(ld)(t);
        }
        v = KC(h)(v + bv);
    }
    if (cl.on) v = KC(clampv)(v, KC(splat)(cl.lo), KC(splat)(cl.hi));
    if (cnt == KC_VW) {
        KC(st)(c, v);
    } else {
        KC(st)(t, v);
        memcpy(c, t, (size_t)cnt * 4);
    }
}

static inline int64_t KC(mini)(int64_t a, int64_t b) { return a < b ? a : b; }

/* One half multiply-add: h(acc + x*b), product and sum in fp32 (lgk_mac). In LG_PREC_F16 every
   operand is a half (tensors and weights are stored as halves), so x*b is exact in fp32 and an
   FMA gives the same bits as the product and the sum: the AVX2 build uses one (shorter chain,
   one instruction less), the portable build the two operations. */
#if KC_F16C
#define KC_MACH(acc, x, b) acc = KC(h)((VF)_mm256_fmadd_ps((__m256)(x), (__m256)(b), (__m256)(acc)))
#else
#define KC_MACH(acc, x, b) acc = KC(h)(acc + (x) * (b))
#endif

static void KC(gemm_h)(int64_t M, int64_t N, int64_t K, const float *A, int64_t sam, int64_t sak,
                       const float *B, int64_t ldb, float *C, int64_t ldc, const float *bias, lgk_clamp cl) {
    const VF z = KC(splat)(0);
    int64_t m = 0;
    for (; m + 4 <= M; m += 4) {
        const float *a0 = A + m * sam, *a1 = a0 + sam, *a2 = a1 + sam, *a3 = a2 + sam;
        for (int64_t n = 0; n < N; n += 2 * KC_VW) {
            VF c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z;
            const float *b = B + n;
            if (n + KC_VW < N) {
                for (int64_t k = 0; k < K; k++, b += ldb) {
                    VF b0 = KC(ld)(b), b1 = KC(ld)(b + KC_VW);
                    VF x0 = KC(splat)(a0[k * sak]), x1 = KC(splat)(a1[k * sak]), x2 = KC(splat)(a2[k * sak]),
                       x3 = KC(splat)(a3[k * sak]);
                    KC_MACH(c00, x0, b0); KC_MACH(c01, x0, b1);
                    KC_MACH(c10, x1, b0); KC_MACH(c11, x1, b1);
                    KC_MACH(c20, x2, b0); KC_MACH(c21, x2, b1);
                    KC_MACH(c30, x3, b0); KC_MACH(c31, x3, b1);
                }
            } else {
                for (int64_t k = 0; k < K; k++, b += ldb) {
                    VF b0 = KC(ld)(b);
                    KC_MACH(c00, KC(splat)(a0[k * sak]), b0);
                    KC_MACH(c10, KC(splat)(a1[k * sak]), b0);
                    KC_MACH(c20, KC(splat)(a2[k * sak]), b0);
                    KC_MACH(c30, KC(splat)(a3[k * sak]), b0);
                }
            }
            int64_t w0 = KC(mini)(KC_VW, N - n), w1 = N - n - KC_VW;
            const float *bb = bias ? bias + n : NULL, *bb1 = bias ? bias + n + KC_VW : NULL;
            float *cr = C + m * ldc + n;
            KC(fin_h)(cr, c00, w0, bb, cl);
            KC(fin_h)(cr + ldc, c10, w0, bb, cl);
            KC(fin_h)(cr + 2 * ldc, c20, w0, bb, cl);
            KC(fin_h)(cr + 3 * ldc, c30, w0, bb, cl);
            if (w1 > 0) {
                w1 = KC(mini)(KC_VW, w1);
                KC(fin_h)(cr + KC_VW, c01, w1, bb1, cl);
                KC(fin_h)(cr + ldc + KC_VW, c11, w1, bb1, cl);
                KC(fin_h)(cr + 2 * ldc + KC_VW, c21, w1, bb1, cl);
                KC(fin_h)(cr + 3 * ldc + KC_VW, c31, w1, bb1, cl);
            }
        }
    }
    for (; m < M; m++) {
        const float *a0 = A + m * sam;
        for (int64_t n = 0; n < N; n += 4 * KC_VW) {
            VF c0 = z, c1 = z, c2 = z, c3 = z;
            const float *b = B + n;
            int64_t nv = (KC(mini)(4 * KC_VW, N - n) + KC_VW - 1) / KC_VW;
            if (nv == 4) {
                for (int64_t k = 0; k < K; k++, b += ldb) {
                    const VF x = KC(splat)(a0[k * sak]);
                    KC_MACH(c0, x, KC(ld)(b));
                    KC_MACH(c1, x, KC(ld)(b + KC_VW));
                    KC_MACH(c2, x, KC(ld)(b + 2 * KC_VW));
                    KC_MACH(c3, x, KC(ld)(b + 3 * KC_VW));
                }
            } else {
                for (int64_t k = 0; k < K; k++, b += ldb) {
                    const VF x = KC(splat)(a0[k * sak]);
                    KC_MACH(c0, x, KC(ld)(b));
                    if (nv > 1) KC_MACH(c1, x, KC(ld)(b + KC_VW));
                    if (nv > 2) KC_MACH(c2, x, KC(ld)(b + 2 * KC_VW));
                }
            }
            VF cs[4] = {c0, c1, c2, c3};
            for (int64_t j = 0; j < nv; j++) {
                int64_t o = n + j * KC_VW;
                KC(fin_h)(C + m * ldc + o, cs[j], KC(mini)(KC_VW, N - o), bias ? bias + o : NULL, cl);
            }
        }
    }
}

/* The half product over packed panels (lgk_cv_pack_b, as gemm): gemm_h's arithmetic (one
   rounding per multiply-add from 0, then h(acc + bias), clamp) with gemm's register tiling:
   6 rows x 16 columns (12 accumulators) on AVX2, 3 x 16 with 4-lane vectors. Rows past M
   repeat the last row (computed, not stored). */
#if KC_VW == 8
#define KC_HMR 6
#else
#define KC_HMR 3
#endif
#define KC_HNV (16 / KC_VW)
static void KC(gemm_hp)(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *Bp, float *C,
                        int64_t ldc, const float *bias, lgk_clamp cl) {
    const VF z = KC(splat)(0);
    for (int64_t m0 = 0; m0 < M; m0 += KC_HMR) {
        const int64_t mr = M - m0 < KC_HMR ? M - m0 : KC_HMR;
        const float *ar[KC_HMR];
        for (int r = 0; r < KC_HMR; r++) ar[r] = A + (m0 + (r < mr ? r : mr - 1)) * lda;
        const float *bp = Bp;
        for (int64_t j0 = 0; j0 < N;) {
            const int64_t rem = N - j0, pw = rem <= 8 ? 8 : 16, nv = pw / KC_VW;
            VF acc[KC_HMR][KC_HNV];
            const float *b = bp;
#if KC_VW == 8
            const float *a0 = ar[0], *a1 = ar[1], *a2 = ar[2], *a3 = ar[3], *a4 = ar[4], *a5 = ar[5];
            if (nv == 2) {
                VF c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z, c40 = z, c41 = z, c50 = z, c51 = z;
                for (int64_t k = 0; k < K; k++, b += 16) {
                    const VF b0 = KC(ld)(b), b1 = KC(ld)(b + 8);
                    VF x;
                    x = KC(splat)(a0[k]); KC_MACH(c00, x, b0); KC_MACH(c01, x, b1);
                    x = KC(splat)(a1[k]); KC_MACH(c10, x, b0); KC_MACH(c11, x, b1);
                    x = KC(splat)(a2[k]); KC_MACH(c20, x, b0); KC_MACH(c21, x, b1);
                    x = KC(splat)(a3[k]); KC_MACH(c30, x, b0); KC_MACH(c31, x, b1);
                    x = KC(splat)(a4[k]); KC_MACH(c40, x, b0); KC_MACH(c41, x, b1);
                    x = KC(splat)(a5[k]); KC_MACH(c50, x, b0); KC_MACH(c51, x, b1);
                }
                acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11; acc[2][0] = c20; acc[2][1] = c21;
                acc[3][0] = c30; acc[3][1] = c31; acc[4][0] = c40; acc[4][1] = c41; acc[5][0] = c50; acc[5][1] = c51;
            } else {
                VF c0 = z, c1 = z, c2 = z, c3 = z, c4 = z, c5 = z;
                for (int64_t k = 0; k < K; k++, b += 8) {
                    const VF b0 = KC(ld)(b);
                    KC_MACH(c0, KC(splat)(a0[k]), b0);
                    KC_MACH(c1, KC(splat)(a1[k]), b0);
                    KC_MACH(c2, KC(splat)(a2[k]), b0);
                    KC_MACH(c3, KC(splat)(a3[k]), b0);
                    KC_MACH(c4, KC(splat)(a4[k]), b0);
                    KC_MACH(c5, KC(splat)(a5[k]), b0);
                }
                acc[0][0] = c0; acc[1][0] = c1; acc[2][0] = c2; acc[3][0] = c3; acc[4][0] = c4; acc[5][0] = c5;
            }
#else
            const float *a0 = ar[0], *a1 = ar[1], *a2 = ar[2];
            if (nv == 4) {
                VF c00 = z, c01 = z, c02 = z, c03 = z, c10 = z, c11 = z, c12 = z, c13 = z;
                VF c20 = z, c21 = z, c22 = z, c23 = z;
                for (int64_t k = 0; k < K; k++, b += 16) {
                    const VF b0 = KC(ld)(b), b1 = KC(ld)(b + 4), b2 = KC(ld)(b + 8), b3 = KC(ld)(b + 12);
                    VF x;
                    x = KC(splat)(a0[k]); KC_MACH(c00, x, b0); KC_MACH(c01, x, b1); KC_MACH(c02, x, b2); KC_MACH(c03, x, b3);
                    x = KC(splat)(a1[k]); KC_MACH(c10, x, b0); KC_MACH(c11, x, b1); KC_MACH(c12, x, b2); KC_MACH(c13, x, b3);
                    x = KC(splat)(a2[k]); KC_MACH(c20, x, b0); KC_MACH(c21, x, b1); KC_MACH(c22, x, b2); KC_MACH(c23, x, b3);
                }
                acc[0][0] = c00; acc[0][1] = c01; acc[0][2] = c02; acc[0][3] = c03;
                acc[1][0] = c10; acc[1][1] = c11; acc[1][2] = c12; acc[1][3] = c13;
                acc[2][0] = c20; acc[2][1] = c21; acc[2][2] = c22; acc[2][3] = c23;
            } else {
                VF c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z;
                for (int64_t k = 0; k < K; k++, b += 8) {
                    const VF b0 = KC(ld)(b), b1 = KC(ld)(b + 4);
                    VF x;
                    x = KC(splat)(a0[k]); KC_MACH(c00, x, b0); KC_MACH(c01, x, b1);
                    x = KC(splat)(a1[k]); KC_MACH(c10, x, b0); KC_MACH(c11, x, b1);
                    x = KC(splat)(a2[k]); KC_MACH(c20, x, b0); KC_MACH(c21, x, b1);
                }
                acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11; acc[2][0] = c20; acc[2][1] = c21;
            }
#endif
            for (int64_t r = 0; r < mr; r++) {
                float *c = C + (m0 + r) * ldc + j0;
                for (int64_t v = 0; v < nv; v++) {
                    const int64_t cnt = rem - v * KC_VW;
                    if (cnt <= 0) break;
                    KC(fin_h)(c + v * KC_VW, acc[r][v], KC(mini)(KC_VW, cnt), bias ? bias + j0 + v * KC_VW : NULL, cl);
                }
            }
            bp += K * pw;
            j0 += pw;
        }
    }
}
#undef KC_HMR
#undef KC_HNV

/* The half product for 1-4 output columns (lgk_cv_gemm_hn): vectors run across rows (pixels)
   instead of columns, so no lane is wasted on padding; W is [N][K] (row n = output n). A block
   of G vectors of rows is transposed eight k at a time into xt, then every chain (row vector
   g, column n) takes its eight multiply-adds in k order: G*N independent chains. */
#define KC_HN_G 8
static inline __attribute__((always_inline)) void KC(gemm_hn_t)(int64_t M, int64_t K, const float *A, int64_t lda,
                                                                const float *W, float *C, int64_t ldc,
                                                                const float *bias, lgk_clamp cl, const int G,
                                                                const int N) {
    const int64_t R = (int64_t)G * KC_VW;
    const VF z = KC(splat)(0);
    float xt[8][KC_HN_G * KC_VW];
    const float *ar[KC_HN_G * KC_VW];
    for (int64_t m0 = 0; m0 < M; m0 += R) {
        for (int64_t r = 0; r < R; r++) ar[r] = A + (m0 + r < M ? m0 + r : M - 1) * lda;
        VF acc[KC_HN_G][4];
        for (int g = 0; g < G; g++)
            for (int n = 0; n < N; n++) acc[g][n] = z;
        for (int64_t k0 = 0; k0 < K; k0 += 8) {
            const int64_t kb = K - k0 < 8 ? K - k0 : 8;
#if KC_VW == 8
            if (kb == 8) {
                for (int g = 0; g < G; g++) {
                    VF x[8];
                    for (int j = 0; j < 8; j++) x[j] = KC(ld)(ar[g * 8 + j] + k0);
                    KC(tr8)(x);
                    for (int kk = 0; kk < 8; kk++) KC(st)(&xt[kk][g * 8], x[kk]);
                }
            } else
#endif
            {
                for (int64_t r = 0; r < R; r++)
                    for (int64_t kk = 0; kk < kb; kk++) xt[kk][r] = ar[r][k0 + kk];
            }
            for (int64_t kk = 0; kk < kb; kk++)
                for (int n = 0; n < N; n++) {
                    const VF wv = KC(splat)(W[n * K + k0 + kk]);
                    for (int g = 0; g < G; g++) KC_MACH(acc[g][n], KC(ld)(&xt[kk][g * KC_VW]), wv);
                }
        }
        for (int g = 0; g < G; g++)
            for (int n = 0; n < N; n++) {
                VF v = acc[g][n];
                if (bias) v = KC(h)(v + KC(splat)(bias[n]));
                if (cl.on) v = KC(clampv)(v, KC(splat)(cl.lo), KC(splat)(cl.hi));
                float t[KC_VW];
                KC(st)(t, v);
                for (int i = 0; i < KC_VW; i++) {
                    int64_t r = m0 + g * KC_VW + i;
                    if (r < M) C[r * ldc + n] = t[i];
                }
            }
    }
}
static void KC(gemm_hn)(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *W, float *C,
                        int64_t ldc, const float *bias, lgk_clamp cl) {
    switch (N) {
    case 1: KC(gemm_hn_t)(M, K, A, lda, W, C, ldc, bias, cl, 8, 1); break;
    case 2: KC(gemm_hn_t)(M, K, A, lda, W, C, ldc, bias, cl, 4, 2); break;
    case 3: KC(gemm_hn_t)(M, K, A, lda, W, C, ldc, bias, cl, 2, 3); break;
    default: KC(gemm_hn_t)(M, K, A, lda, W, C, ldc, bias, cl, 2, 4); break;
    }
}
#undef KC_HN_G

/* Four accumulations at once (lgk_cv_acc_h4): acc[p*n + j] = h(acc[p*n + j] + x[p*xs + k] * B[k*ldb + j])
   for p < 4, k < K in order, j < n (a multiple of 8): eight independent chains per step. */
static void KC(acc_h4)(float *acc, int64_t n, const float *x, int64_t xs, int64_t K, const float *B, int64_t ldb) {
    const float *x0 = x, *x1 = x + xs, *x2 = x + 2 * xs, *x3 = x + 3 * xs;
    float *a0 = acc, *a1 = acc + n, *a2 = acc + 2 * n, *a3 = acc + 3 * n;
    int64_t j = 0;
    for (; j + 2 * KC_VW <= n; j += 2 * KC_VW) {
        VF s00 = KC(ld)(a0 + j), s01 = KC(ld)(a0 + j + KC_VW), s10 = KC(ld)(a1 + j), s11 = KC(ld)(a1 + j + KC_VW);
        VF s20 = KC(ld)(a2 + j), s21 = KC(ld)(a2 + j + KC_VW), s30 = KC(ld)(a3 + j), s31 = KC(ld)(a3 + j + KC_VW);
        const float *b = B + j;
        for (int64_t k = 0; k < K; k++, b += ldb) {
            const VF b0 = KC(ld)(b), b1 = KC(ld)(b + KC_VW);
            VF v;
            v = KC(splat)(x0[k]); KC_MACH(s00, v, b0); KC_MACH(s01, v, b1);
            v = KC(splat)(x1[k]); KC_MACH(s10, v, b0); KC_MACH(s11, v, b1);
            v = KC(splat)(x2[k]); KC_MACH(s20, v, b0); KC_MACH(s21, v, b1);
            v = KC(splat)(x3[k]); KC_MACH(s30, v, b0); KC_MACH(s31, v, b1);
        }
        KC(st)(a0 + j, s00); KC(st)(a0 + j + KC_VW, s01); KC(st)(a1 + j, s10); KC(st)(a1 + j + KC_VW, s11);
        KC(st)(a2 + j, s20); KC(st)(a2 + j + KC_VW, s21); KC(st)(a3 + j, s30); KC(st)(a3 + j + KC_VW, s31);
    }
    for (; j < n; j += KC_VW) {
        VF s0 = KC(ld)(a0 + j), s1 = KC(ld)(a1 + j), s2 = KC(ld)(a2 + j), s3 = KC(ld)(a3 + j);
        const float *b = B + j;
        for (int64_t k = 0; k < K; k++, b += ldb) {
            const VF b0 = KC(ld)(b);
            KC_MACH(s0, KC(splat)(x0[k]), b0);
            KC_MACH(s1, KC(splat)(x1[k]), b0);
            KC_MACH(s2, KC(splat)(x2[k]), b0);
            KC_MACH(s3, KC(splat)(x3[k]), b0);
        }
        KC(st)(a0 + j, s0); KC(st)(a1 + j, s1); KC(st)(a2 + j, s2); KC(st)(a3 + j, s3);
    }
}

/* acc[j] = h(acc[j] + x[k] * B[k*ldb + j]) for k < K in order, j < n (n a multiple of 8) */
static void KC(acc_h)(float *acc, int64_t n, const float *x, int64_t K, const float *B, int64_t ldb) {
    int64_t j = 0;
    for (; j + 2 * KC_VW <= n; j += 2 * KC_VW) {
        VF s0 = KC(ld)(acc + j), s1 = KC(ld)(acc + j + KC_VW);
        const float *b = B + j;
        for (int64_t k = 0; k < K; k++, b += ldb) {
            const VF xk = KC(splat)(x[k]);
            KC_MACH(s0, xk, KC(ld)(b));
            KC_MACH(s1, xk, KC(ld)(b + KC_VW));
        }
        KC(st)(acc + j, s0);
        KC(st)(acc + j + KC_VW, s1);
    }
    for (; j < n; j += KC_VW) {
        VF s0 = KC(ld)(acc + j);
        const float *b = B + j;
        for (int64_t k = 0; k < K; k++, b += ldb) KC_MACH(s0, KC(splat)(x[k]), KC(ld)(b));
        KC(st)(acc + j, s0);
    }
}

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
                    /* max: TFLite's max from the lowest float; half: a running sum in row-major
                       order, each sum rounded, then the division (fp32, rounded at the output) */
                    s = KC(splat)(init);
                    for (int64_t fy = fy0; fy < fy1; fy++) {
                        const float *ip = img + (iy0 + fy) * rs + (ix0 + fx0) * C + c;
                        for (int64_t fx = fx0; fx < fx1; fx++, ip += C) {
                            VF v = KC(ld_part)(ip, nc);
                            if (a->max) s = KC(sel)(s < v, v, s);
                            else s = KC(h)(s + v);
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

/* ------------------------------------------------------------------ half bilinear row */

/* One output row of RESIZE_BILINEAR in LG_PREC_F16 (lgk_cv_bilerp_row_h). Per channel, a GPU's
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

#undef KC_MACH
#undef KC_DW_FIN
#undef KC_DW_MAC
#undef VF
#undef VI
#undef VU
