/* The integer GEMM and depthwise kernels for AVX-512 F + BW + VL, with and without VNNI
 * (k_quant_gemm.h): 16 int32 lanes, masked loads and stores for the last channels.
 *
 * GEMM (k_quant_gemm_tile512.h): tiles of 8 rows x 32 channels; each k pair a vpdpwssd (VNNI)
 * or a vpmaddwd + vpaddd per vector and row, exact (k_quant_gemm.h). Depthwise: channels in
 * lanes, int32 products (vpmulld), 64 channels per block. The requantization (rq16) is
 * lgq_rq_one on 16 lanes, as k_quant_gemm_avx2.c's rq8 derives it; stores narrow the
 * requantized int32 (already in the type's range) with vpmovdb. */
#include "run/k_quant_gemm.h"

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#ifdef __clang__
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
#endif

#define MR 8

/* lanes [0, cnt) of 16 */
static inline __mmask16 lanes16(int64_t cnt) {
    return cnt >= 16 ? (__mmask16)0xffff : cnt <= 0 ? (__mmask16)0 : (__mmask16)((1u << cnt) - 1u);
}

typedef struct rqz {
    __m512 flo, fhi;
    __m512i zp, lo, hi;
} rqz;
static inline rqz rq_consts(const lgq_rq *q) {
    rqz v;
    v.flo = _mm512_set1_ps(q->flo);
    v.fhi = _mm512_set1_ps(q->fhi);
    v.zp = _mm512_set1_epi32(q->zp);
    v.lo = _mm512_set1_epi32(q->lo);
    v.hi = _mm512_set1_epi32(q->hi);
    return v;
}

/* (a * b + 2^30) >> 31 per lane from the 64-bit products of the even and the odd lanes */
static inline __m512i srdhm16(__m512i a, __m512i b) {
    const __m512i nudge = _mm512_set1_epi64((int64_t)1 << 30);
    __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(a, b), nudge);
    __m512i po = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), nudge);
    pe = _mm512_srli_epi64(pe, 31);
    po = _mm512_slli_epi64(po, 1);
    return _mm512_mask_blend_epi32((__mmask16)0xAAAA, pe, po);
}

/* RoundingDivideByPOT(x, e) per lane */
static inline __m512i rdbpot16(__m512i x, __m512i e) {
    const __m512i one = _mm512_set1_epi32(1), zero = _mm512_setzero_si512();
    const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, e), one);
    const __m512i rem = _mm512_and_si512(x, mask);
    __m512i thr = _mm512_srai_epi32(mask, 1);
    thr = _mm512_mask_add_epi32(thr, _mm512_cmplt_epi32_mask(x, zero), thr, one);
    const __m512i r = _mm512_srav_epi32(x, e);
    return _mm512_mask_add_epi32(r, _mm512_cmpgt_epi32_mask(rem, thr), r, one);
}

/* channels [c, c + 16) */
static inline __m512i rq16(const lgq_rq *q, const rqz *v, int64_t c, __m512i acc) {
    __m512i r;
    if (q->xnn) {
        __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_loadu_ps(q->fs + c));
        f = _mm512_min_ps(_mm512_max_ps(f, v->flo), v->fhi);
        r = _mm512_cvtps_epi32(f);
    } else {
        const __m512i ls = _mm512_loadu_si512((const void *)(q->lsh + c));
        const __m512i m = _mm512_loadu_si512((const void *)(q->mult + c));
        const __m512i rs = _mm512_loadu_si512((const void *)(q->rsh + c));
        r = rdbpot16(srdhm16(_mm512_sllv_epi32(acc, ls), m), rs);
    }
    r = _mm512_add_epi32(r, v->zp);
    return _mm512_min_epi32(_mm512_max_epi32(r, v->lo), v->hi);
}

void lgq_requant_row_avx512(const lgq_rq *q, int64_t c0, const int32_t *acc, int64_t n, void *y) {
    const rqz v = rq_consts(q);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 mk = lanes16(n - i);
        const __m512i x = _mm512_maskz_loadu_epi32(mk, acc + i);
        /* the per-channel arrays are read past n only where they are padded (k_quant_gemm.h):
           masked lanes are not stored */
        _mm512_mask_cvtepi32_storeu_epi8((uint8_t *)y + i, mk, rq16(q, &v, c0 + i, x));
    }
}

/* GEMM without VNNI */
#define KQ(name) name##_plain
#define KQ_MAC(acc, x, w) (acc) = _mm512_add_epi32((acc), _mm512_madd_epi16((x), (w)))
#include "run/k_quant_gemm_tile512.h"
#undef KQ
#undef KQ_MAC

/* ---- depthwise (depth multiplier 1) */

static inline __m512i load16x(const void *p, __mmask16 mk, const int u8) {
    const __m128i b = _mm_maskz_loadu_epi8(mk, p);
    return u8 ? _mm512_cvtepu8_epi32(b) : _mm512_cvtepi8_epi32(b);
}

/* channels [c0, c0 + cnt) of one pixel, cnt <= 16 * nv: nv accumulators (named: see
   k_quant_gemm_tile512.h), the lanes from cnt on masked off in the loads and the stores */
static inline __attribute__((always_inline)) void dw_block(const int nv, const int u8, const int32_t *bias,
                                                           const int32_t *w, int64_t cp, int64_t taps,
                                                           const lgq_rq *q, const rqz *v, const void *const *xp,
                                                           int64_t c0, int64_t cnt, uint8_t *y) {
    const __mmask16 m0 = lanes16(cnt), m1 = lanes16(cnt - 16), m2 = lanes16(cnt - 32), m3 = lanes16(cnt - 48);
    __m512i a0 = _mm512_loadu_si512((const void *)(bias + c0)), a1 = a0, a2 = a0, a3 = a0;
    if (nv > 1) a1 = _mm512_loadu_si512((const void *)(bias + c0 + 16));
    if (nv > 2) a2 = _mm512_loadu_si512((const void *)(bias + c0 + 32));
    if (nv > 3) a3 = _mm512_loadu_si512((const void *)(bias + c0 + 48));
    for (int64_t t = 0; t < taps; t++) {
        const uint8_t *xs = (const uint8_t *)xp[t] + c0;
        const int32_t *wt = w + t * cp + c0;
        a0 = _mm512_add_epi32(a0, _mm512_mullo_epi32(load16x(xs, m0, u8), _mm512_loadu_si512((const void *)wt)));
        if (nv > 1)
            a1 = _mm512_add_epi32(a1, _mm512_mullo_epi32(load16x(xs + 16, m1, u8), _mm512_loadu_si512((const void *)(wt + 16))));
        if (nv > 2)
            a2 = _mm512_add_epi32(a2, _mm512_mullo_epi32(load16x(xs + 32, m2, u8), _mm512_loadu_si512((const void *)(wt + 32))));
        if (nv > 3)
            a3 = _mm512_add_epi32(a3, _mm512_mullo_epi32(load16x(xs + 48, m3, u8), _mm512_loadu_si512((const void *)(wt + 48))));
    }
    _mm512_mask_cvtepi32_storeu_epi8(y + c0, m0, rq16(q, v, c0, a0));
    if (nv > 1) _mm512_mask_cvtepi32_storeu_epi8(y + c0 + 16, m1, rq16(q, v, c0 + 16, a1));
    if (nv > 2) _mm512_mask_cvtepi32_storeu_epi8(y + c0 + 32, m2, rq16(q, v, c0 + 32, a2));
    if (nv > 3) _mm512_mask_cvtepi32_storeu_epi8(y + c0 + 48, m3, rq16(q, v, c0 + 48, a3));
}

/* every pixel: blocks of 64 channels, then one block of the rest. The fields are read once
   (the byte stores may alias anything, so the compiler would reload them after each). */
static inline __attribute__((always_inline)) void dw_rows(const int u8, const lgq_dw *d, const void *const *x,
                                                          int64_t npix, void *y, int64_t ys) {
    const rqz v = rq_consts(&d->rq);
    const lgq_rq q = d->rq;
    const int32_t *bias = d->bias, *w = d->w;
    const int64_t cp = d->cp, taps = d->taps, c = d->c;
    for (int64_t p = 0; p < npix; p++) {
        const void *const *xp = x + p * taps;
        uint8_t *yp = (uint8_t *)y + p * ys;
        int64_t c0 = 0;
        for (; c0 + 64 <= c; c0 += 64) dw_block(4, u8, bias, w, cp, taps, &q, &v, xp, c0, 64, yp);
        const int64_t rem = c - c0;
        if (rem > 48) dw_block(4, u8, bias, w, cp, taps, &q, &v, xp, c0, rem, yp);
        else if (rem > 32) dw_block(3, u8, bias, w, cp, taps, &q, &v, xp, c0, rem, yp);
        else if (rem > 16) dw_block(2, u8, bias, w, cp, taps, &q, &v, xp, c0, rem, yp);
        else if (rem > 0) dw_block(1, u8, bias, w, cp, taps, &q, &v, xp, c0, rem, yp);
    }
}

void lgq_dw_row_avx512(const lgq_dw *d, const void *const *x, int64_t npix, void *y, int64_t ys) {
    if (d->in_u8) dw_rows(1, d, x, npix, y, ys);
    else dw_rows(0, d, x, npix, y, ys);
}

#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

/* GEMM with VNNI: the same tiles, vpdpwssd */
#ifdef __clang__
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512vnni")
#endif

#define KQ(name) name##_vnni
/* vpdpwssd acc, x, w (_mm512_dpwssd_epi32) as inline assembly: with the intrinsic GCC 12 copies
   every accumulator around each instruction (its tied operand); "+v" keeps it in place */
#define KQ_MAC(acc, x, w) __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(w))
#include "run/k_quant_gemm_tile512.h"
#undef KQ
#undef KQ_MAC

#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
typedef int lgq_gemm_avx512_unused; /* ISO C: a translation unit is not empty */
#endif
