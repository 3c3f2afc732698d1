/* The integer GEMM and depthwise kernels for AVX2 (k_quant_gemm.h): 8 int32 lanes.
 *
 * GEMM: a register tile of 6 rows x 16 channels (one packed panel, two vectors; 12
 * accumulators), each k pair one vpmaddwd per vector and row: the broadcast pair of the row's
 * int16 activations times the panel's 8 weight pairs, summed into int32 lanes exactly
 * (|product| <= 255 * 255, a pair sum <= 130050), then added (wrapping) to the accumulator.
 * Depthwise: channels in lanes (NHWC: contiguous), int32 products (vpmulld of values <= 255 in
 * magnitude). The requantization (rq8) is lgq_rq_one on 8 lanes:
 *   TFLite: SaturatingRoundingDoublingHighMul(x << lsh, m) = (x * m + 2^30) >> 31 (the rounding
 *     of fixedpoint.h rewritten: for x * m < 0, trunc((p + 1 - 2^30) / 2^31) = floor((p + 2^30)
 *     / 2^31); the one saturating case needs m = INT32_MIN, which QuantizeMultiplier never
 *     gives), from the 64-bit products of vpmuldq on the even and the odd lanes; then
 *     RoundingDivideByPOT with variable shifts;
 *   XNNPACK: float(acc) * scale, clamp, vcvtps2dq (round to nearest even: the default MXCSR
 *     mode, as rintf), + zero point, integer clamp. */
#include "run/k_quant_gemm.h"

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#ifdef __clang__
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#define MR 6

/* the requantization constants as vectors */
typedef struct rqv {
    __m256 flo, fhi;
    __m256i zp, lo, hi;
} rqv;
static inline rqv rq_consts(const lgq_rq *q) {
    rqv v;
    v.flo = _mm256_set1_ps(q->flo);
    v.fhi = _mm256_set1_ps(q->fhi);
    v.zp = _mm256_set1_epi32(q->zp);
    v.lo = _mm256_set1_epi32(q->lo);
    v.hi = _mm256_set1_epi32(q->hi);
    return v;
}

static inline __m256i srdhm8(__m256i a, __m256i b) {
    const __m256i nudge = _mm256_set1_epi64x((int64_t)1 << 30);
    __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(a, b), nudge);
    __m256i po = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), nudge);
    pe = _mm256_srli_epi64(pe, 31); /* bits 31..62 in the low half */
    po = _mm256_slli_epi64(po, 1);  /* bits 31..62 in the high half */
    return _mm256_blend_epi32(pe, po, 0xAA);
}

static inline __m256i rdbpot8(__m256i x, __m256i e) {
    const __m256i one = _mm256_set1_epi32(1), zero = _mm256_setzero_si256();
    const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, e), one);
    const __m256i rem = _mm256_and_si256(x, mask);
    /* cmpgt gives -1 where true: subtracting it adds 1 */
    const __m256i thr = _mm256_sub_epi32(_mm256_srai_epi32(mask, 1), _mm256_cmpgt_epi32(zero, x));
    return _mm256_sub_epi32(_mm256_srav_epi32(x, e), _mm256_cmpgt_epi32(rem, thr));
}

/* channels [c, c + 8) */
static inline __m256i rq8(const lgq_rq *q, const rqv *v, int64_t c, __m256i acc) {
    __m256i r;
    if (q->xnn) {
        __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_loadu_ps(q->fs + c));
        f = _mm256_min_ps(_mm256_max_ps(f, v->flo), v->fhi);
        r = _mm256_cvtps_epi32(f);
    } else {
        const __m256i ls = _mm256_loadu_si256((const __m256i *)(q->lsh + c));
        const __m256i m = _mm256_loadu_si256((const __m256i *)(q->mult + c));
        const __m256i rs = _mm256_loadu_si256((const __m256i *)(q->rsh + c));
        r = rdbpot8(srdhm8(_mm256_sllv_epi32(acc, ls), m), rs);
    }
    r = _mm256_add_epi32(r, v->zp);
    return _mm256_min_epi32(_mm256_max_epi32(r, v->lo), v->hi);
}

/* 16 requantized lanes (a: channels 0-7, b: 8-15, in the type's range) as bytes; cnt <= 16 of
   them stored */
static inline void store16(const lgq_rq *q, __m256i a, __m256i b, uint8_t *y, int64_t cnt) {
    __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8);
    __m128i lo = _mm256_castsi256_si128(p), hi = _mm256_extracti128_si256(p, 1);
    __m128i bytes = q->out_u8 ? _mm_packus_epi16(lo, hi) : _mm_packs_epi16(lo, hi);
    if (cnt >= 16) {
        _mm_storeu_si128((__m128i *)(void *)y, bytes);
    } else {
        uint8_t tmp[16];
        _mm_storeu_si128((__m128i *)(void *)tmp, bytes);
        memcpy(y, tmp, (size_t)cnt);
    }
}

void lgq_requant_row_avx2(const lgq_rq *q, int64_t c0, const int32_t *acc, int64_t n, void *y) {
    const rqv v = rq_consts(q);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i a = rq8(q, &v, c0 + i, _mm256_loadu_si256((const __m256i *)(acc + i)));
        __m256i b = rq8(q, &v, c0 + i + 8, _mm256_loadu_si256((const __m256i *)(acc + i + 8)));
        store16(q, a, b, (uint8_t *)y + i, 16);
    }
    for (; i < n; i++) {
        int32_t r = lgq_rq_one(q, acc[i], c0 + i);
        if (q->out_u8) ((uint8_t *)y)[i] = (uint8_t)r;
        else ((int8_t *)y)[i] = (int8_t)r;
    }
}

void lgq_widen_avx2(const void *x, int u8, int16_t *d, int64_t n) {
    int64_t i = 0;
    if (u8) {
        const uint8_t *s = x;
        for (; i + 16 <= n; i += 16)
            _mm256_storeu_si256((__m256i *)(void *)(d + i), _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(s + i))));
        for (; i < n; i++) d[i] = s[i];
    } else {
        const int8_t *s = x;
        for (; i + 16 <= n; i += 16)
            _mm256_storeu_si256((__m256i *)(void *)(d + i), _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(s + i))));
        for (; i < n; i++) d[i] = s[i];
    }
}

/* mr rows (a constant at every call: the loops unroll, the accumulators stay in registers) of
   one panel wp (16 channels from c0, cnt of them real) */
static inline __attribute__((always_inline)) void tile(const int mr, int64_t kp2, const int16_t *a, int64_t lda,
                                                       const int16_t *wp, const int32_t *bias, const lgq_rq *q,
                                                       const rqv *v, int64_t c0, int64_t cnt, uint8_t *y,
                                                       int64_t ldy) {
    __m256i c0v[MR], c1v[MR];
    const __m256i b0 = _mm256_loadu_si256((const __m256i *)(bias + c0));
    const __m256i b1 = _mm256_loadu_si256((const __m256i *)(bias + c0 + 8));
    const int16_t *ap[MR];
#pragma GCC unroll 6
    for (int r = 0; r < MR; r++) {
        c0v[r] = b0;
        c1v[r] = b1;
        ap[r] = a + (r < mr ? r : 0) * lda;
    }
    for (int64_t kk = 0; kk < kp2; kk++) {
        const __m256i w0 = _mm256_loadu_si256((const __m256i *)(const void *)(wp + kk * 32));
        const __m256i w1 = _mm256_loadu_si256((const __m256i *)(const void *)(wp + kk * 32 + 16));
#pragma GCC unroll 6
        for (int r = 0; r < MR; r++) {
            if (r >= mr) break;
            int32_t pr;
            memcpy(&pr, ap[r] + 2 * kk, sizeof pr);
            const __m256i x = _mm256_set1_epi32(pr);
            c0v[r] = _mm256_add_epi32(c0v[r], _mm256_madd_epi16(x, w0));
            c1v[r] = _mm256_add_epi32(c1v[r], _mm256_madd_epi16(x, w1));
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < MR; r++) {
        if (r >= mr) break;
        store16(q, rq8(q, v, c0, c0v[r]), rq8(q, v, c0 + 8, c1v[r]), y + r * ldy + c0, cnt);
    }
}

void lgq_gemm_avx2(const lgq_gemm_w *w, const lgq_rq *q, int64_t m, const int16_t *a, int64_t lda, void *y,
                   int64_t ldy) {
    const rqv v = rq_consts(q);
    const int64_t kp2 = w->kp / 2;
    uint8_t *yb = y;
    for (int64_t c0 = 0; c0 < w->n; c0 += LGQ_NR) {
        const int16_t *wp = w->w + (c0 / LGQ_NR) * w->kp * LGQ_NR;
        const int64_t cnt = w->n - c0 < LGQ_NR ? w->n - c0 : LGQ_NR;
        int64_t r0 = 0;
        for (; r0 + MR <= m; r0 += MR) tile(MR, kp2, a + r0 * lda, lda, wp, w->bias, q, &v, c0, cnt, yb + r0 * ldy, ldy);
        switch (m - r0) {
        case 1: tile(1, kp2, a + r0 * lda, lda, wp, w->bias, q, &v, c0, cnt, yb + r0 * ldy, ldy); break;
        case 2: tile(2, kp2, a + r0 * lda, lda, wp, w->bias, q, &v, c0, cnt, yb + r0 * ldy, ldy); break;
        case 3: tile(3, kp2, a + r0 * lda, lda, wp, w->bias, q, &v, c0, cnt, yb + r0 * ldy, ldy); break;
        case 4: tile(4, kp2, a + r0 * lda, lda, wp, w->bias, q, &v, c0, cnt, yb + r0 * ldy, ldy); break;
        case 5: tile(5, kp2, a + r0 * lda, lda, wp, w->bias, q, &v, c0, cnt, yb + r0 * ldy, ldy); break;
        default: break;
        }
    }
}

/* ---- depthwise (depth multiplier 1) */

static inline __m256i load8x(const void *p, const int u8) {
    const __m128i b = _mm_loadl_epi64((const __m128i *)p);
    return u8 ? _mm256_cvtepu8_epi32(b) : _mm256_cvtepi8_epi32(b);
}

/* channels [c0, c0 + 8 * nv) of one pixel (all inside the row): nv named accumulators */
static inline __attribute__((always_inline)) void dw_block(const int nv, const int u8, const int32_t *bias,
                                                           const int32_t *w, int64_t cp, int64_t taps,
                                                           const lgq_rq *q, const rqv *v, const void *const *xp,
                                                           int64_t c0, uint8_t *y) {
    __m256i a0 = _mm256_loadu_si256((const __m256i *)(bias + c0)), a1 = a0, a2 = a0, a3 = a0;
    if (nv > 1) a1 = _mm256_loadu_si256((const __m256i *)(bias + c0 + 8));
    if (nv > 2) a2 = _mm256_loadu_si256((const __m256i *)(bias + c0 + 16));
    if (nv > 3) a3 = _mm256_loadu_si256((const __m256i *)(bias + c0 + 24));
    for (int64_t t = 0; t < taps; t++) {
        const uint8_t *xs = (const uint8_t *)xp[t] + c0;
        const int32_t *wt = w + t * cp + c0;
        a0 = _mm256_add_epi32(a0, _mm256_mullo_epi32(load8x(xs, u8), _mm256_loadu_si256((const __m256i *)wt)));
        if (nv > 1)
            a1 = _mm256_add_epi32(a1, _mm256_mullo_epi32(load8x(xs + 8, u8), _mm256_loadu_si256((const __m256i *)(wt + 8))));
        if (nv > 2)
            a2 = _mm256_add_epi32(a2, _mm256_mullo_epi32(load8x(xs + 16, u8), _mm256_loadu_si256((const __m256i *)(wt + 16))));
        if (nv > 3)
            a3 = _mm256_add_epi32(a3, _mm256_mullo_epi32(load8x(xs + 24, u8), _mm256_loadu_si256((const __m256i *)(wt + 24))));
    }
    a0 = rq8(q, v, c0, a0);
    if (nv == 1) { store16(q, a0, a0, y + c0, 8); return; }
    store16(q, a0, rq8(q, v, c0 + 8, a1), y + c0, 16);
    if (nv == 3) { a2 = rq8(q, v, c0 + 16, a2); store16(q, a2, a2, y + c0 + 16, 8); }
    if (nv == 4) store16(q, rq8(q, v, c0 + 16, a2), rq8(q, v, c0 + 24, a3), y + c0 + 16, 16);
}

/* every pixel: blocks of 32 channels, one of 8-24, then the last < 8 channels in scalar code
   over the same packing. The fields are read once (byte stores may alias them). */
static inline __attribute__((always_inline)) void dw_rows(const int u8, const lgq_dw *d, const void *const *x,
                                                          int64_t npix, void *y, int64_t ys) {
    const rqv v = rq_consts(&d->rq);
    const lgq_rq q = d->rq;
    const int32_t *bias = d->bias, *w = d->w;
    const int64_t cp = d->cp, taps = d->taps, c = d->c, c8 = c / 8 * 8;
    for (int64_t p = 0; p < npix; p++) {
        const void *const *xp = x + p * taps;
        uint8_t *yp = (uint8_t *)y + p * ys;
        int64_t c0 = 0;
        for (; c0 + 32 <= c8; c0 += 32) dw_block(4, u8, bias, w, cp, taps, &q, &v, xp, c0, yp);
        switch ((c8 - c0) / 8) {
        case 3: dw_block(3, u8, bias, w, cp, taps, &q, &v, xp, c0, yp); break;
        case 2: dw_block(2, u8, bias, w, cp, taps, &q, &v, xp, c0, yp); break;
        case 1: dw_block(1, u8, bias, w, cp, taps, &q, &v, xp, c0, yp); break;
        default: break;
        }
        if (c8 < c) {
            int32_t acc[8];
            for (int64_t j = c8; j < c; j++) {
                uint32_t sum = (uint32_t)bias[j];
                for (int64_t t = 0; t < taps; t++) {
                    const int32_t xv = u8 ? ((const uint8_t *)xp[t])[j] : ((const int8_t *)xp[t])[j];
                    sum += (uint32_t)(w[t * cp + j] * xv);
                }
                acc[j - c8] = (int32_t)sum;
            }
            lgq_requant_row_avx2(&q, c8, acc, c - c8, yp + c8);
        }
    }
}

void lgq_dw_row_avx2(const lgq_dw *d, const void *const *x, int64_t npix, void *y, int64_t ys) {
    if (d->in_u8) dw_rows(1, d, x, npix, y, ys);
    else dw_rows(0, d, x, npix, y, ys);
}

#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
typedef int lgq_gemm_avx2_unused; /* ISO C: a translation unit is not empty */
#endif
