/* The fp32 GEMM (lgk_cv_gemm, k_conv.h) for x86-64 CPUs with AVX-512F: 16-lane vectors, so one
 * vector covers one 16-wide panel of lgk_cv_pack_b's layout, and a register tile of 8 rows x
 * 32 columns (two panels: 16 accumulators). Dispatched by k_conv_simd.c when
 * lgk_simd_avx512(); CPUs without AVX-512F (and LITEGPU_SIMD=avx2) run the AVX2 tiles of
 * k_conv_tmpl_gemm.h.
 *
 * The arithmetic is exactly that of the other widths, lane by lane: each output is one chain,
 * acc = bias (or 0), then acc = acc + a*w for k ascending, a product and an add per step (no
 * FMA: XNNPACK's order on wasm SIMD, so LiteRT.js's bits). What differs is only which outputs
 * are computed together and when:
 *   - wider tiles over output columns (32 instead of 16) and 8 rows instead of 6: no output's
 *     sequence of operations changes;
 *   - per block of 32 columns, k runs in blocks of KC (cache blocking, so that a block of the
 *     packed weights stays in L1 while all the row blocks use it): between two blocks an
 *     accumulator is stored to C as the fp32 value it is and loaded back, then its chain
 *     continues with the next k. No partial sums are formed or combined, so the order of the
 *     additions over k is the same; bias is the chain's start (first block), the clamp is
 *     applied after its end (last block) as before.
 * The weights of a column block are read front to back and prefetched PF k ahead: the large
 * convs' weights do not fit in the caches and come from DRAM on every run. Rows go in blocks
 * of at most 8 as even as they go, each height with its own unrolled kernel (no row past M is
 * computed); columns past N are computed on the packing's zero padding and not stored (masked
 * stores). */
#include "run/k_conv.h"

/* Every product and sum below is its own fp32 operation: GCC in ISO C mode does not contract
   a*b+c into an FMA; clang does by default, so say it. */
#ifdef __clang__
#pragma clang fp contract(off)
#endif

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#ifdef __clang__
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif

#define MR 8    /* rows per register tile */
#define KC 256  /* k per cache block: 256 x 32 packed floats = 32 KiB, within a 48 KiB L1 */
#define PF 96   /* the weights are prefetched this many k ahead (cold weights come from DRAM) */

/* lanes [0, cnt) of 16 */
static inline __mmask16 lanes(int64_t cnt) { return cnt >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << cnt) - 1u); }

/* TFLite's clamp min(max(v, lo), hi) with std::max/min: v < lo ? lo : v, then hi < v ? hi : v.
   _mm512_max_ps(lo, v) is lo > v ? lo : v, the same for every v (NaN passes: the comparison is
   false) and for signed zeros (-0 stays -0 against lo = 0); _mm512_min_ps(hi, v) likewise. */
static inline __m512 clamp16(__m512 v, __m512 lo, __m512 hi) { return _mm512_min_ps(hi, _mm512_max_ps(lo, v)); }

/* One register tile: rows r < mr of a (row stride lda, k from 0 to kn), one or two vectors of
   columns. v0: panel at b0 (k stride bs0: 16, or 8 for a last 8-wide panel, loaded with mask
   m0 (lanes of the panel)); v1 (nv == 2): the 16-wide panel at b1. Accumulators start at
   init0/init1 (the bias) when first, else at the values stored in C; after the block they are
   stored to C (masks m0, m1), clamped when last and cl.on. mr and nv are constants at every
   call, so the loops unroll and the accumulators live in registers. */
static inline __attribute__((always_inline)) void tile(const int mr, const int nv, const float *a, int64_t lda,
                                                       int64_t kn, const float *b0, int64_t bs0, __mmask16 m0,
                                                       const float *b1, __mmask16 m1, float *c, int64_t ldc,
                                                       int first, int last, __m512 init0, __m512 init1,
                                                       lgk_clamp cl) {
    __m512 c0[MR], c1[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) {
        if (r >= mr) break;
        c0[r] = first ? init0 : _mm512_maskz_loadu_ps(m0, c + r * ldc);
        if (nv == 2) c1[r] = first ? init1 : _mm512_maskz_loadu_ps(m1, c + r * ldc + 16);
    }
    const float *ap[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) ap[r] = a + (r < mr ? r : 0) * lda;
    for (int64_t k = 0; k < kn; k++) {
        _mm_prefetch((const char *)(b0 + (k + PF) * bs0), _MM_HINT_T0);
        if (nv == 2) _mm_prefetch((const char *)(b1 + (k + PF) * 16), _MM_HINT_T0);
        const __m512 w0 = bs0 == 16 ? _mm512_loadu_ps(b0 + k * 16) : _mm512_maskz_loadu_ps(m0, b0 + k * bs0);
        const __m512 w1 = nv == 2 ? _mm512_loadu_ps(b1 + k * 16) : w0;
#pragma GCC unroll 8
        for (int r = 0; r < MR; r++) {
            if (r >= mr) break;
            const __m512 x = _mm512_set1_ps(ap[r][k]);
            c0[r] = _mm512_add_ps(c0[r], _mm512_mul_ps(x, w0));
            if (nv == 2) c1[r] = _mm512_add_ps(c1[r], _mm512_mul_ps(x, w1));
        }
    }
    const __m512 lo = _mm512_set1_ps(cl.lo), hi = _mm512_set1_ps(cl.hi);
    const int clamp = last && cl.on;
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) {
        if (r >= mr) break;
        _mm512_mask_storeu_ps(c + r * ldc, m0, clamp ? clamp16(c0[r], lo, hi) : c0[r]);
        if (nv == 2) _mm512_mask_storeu_ps(c + r * ldc + 16, m1, clamp ? clamp16(c1[r], lo, hi) : c1[r]);
    }
}

/* The tiles of one column block (nv vectors; see tile) for all rows of the block of k. */
#define ROWS(NV, BS0)                                                                                     \
    for (int64_t blk = 0; blk < nblk; blk++) {                                                            \
        const int64_t m0 = M * blk / nblk, m1 = M * (blk + 1) / nblk;                                     \
        const float *a = A + m0 * lda + k0;                                                               \
        float *c = C + m0 * ldc + j0;                                                                     \
        switch (m1 - m0) {                                                                                \
        case 1: tile(1, NV, a, lda, kn, b0, BS0, mk0, b1, mk1, c, ldc, first, last, i0, i1, cl); break;   \
        case 2: tile(2, NV, a, lda, kn, b0, BS0, mk0, b1, mk1, c, ldc, first, last, i0, i1, cl); break;   \
        case 3: tile(3, NV, a, lda, kn, b0, BS0, mk0, b1, mk1, c, ldc, first, last, i0, i1, cl); break;   \
        case 4: tile(4, NV, a, lda, kn, b0, BS0, mk0, b1, mk1, c, ldc, first, last, i0, i1, cl); break;   \
        case 5: tile(5, NV, a, lda, kn, b0, BS0, mk0, b1, mk1, c, ldc, first, last, i0, i1, cl); break;   \
        case 6: tile(6, NV, a, lda, kn, b0, BS0, mk0, b1, mk1, c, ldc, first, last, i0, i1, cl); break;   \
        case 7: tile(7, NV, a, lda, kn, b0, BS0, mk0, b1, mk1, c, ldc, first, last, i0, i1, cl); break;   \
        default: tile(MR, NV, a, lda, kn, b0, BS0, mk0, b1, mk1, c, ldc, first, last, i0, i1, cl); break; \
        }                                                                                                 \
    }

void lgk_cv_gemm_avx512(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *Bp, float *C,
                        int64_t ldc, const float *bias, lgk_clamp cl) {
    if (M <= 0 || N <= 0) return;
    /* row blocks of 8 rows or fewer, as even as they go (49 rows: 7 x 7, not 6 x 8 + 1: a tile
       of one or two rows waits on its adds) */
    const int64_t nblk = (M + MR - 1) / MR;
    /* panel p (16 columns from 16p) starts at Bp + 16pK: every panel but the last is 16 wide;
       the last is 8 wide when it holds at most 8 columns */
    for (int64_t j0 = 0; j0 < N;) {
        const int64_t rem = N - j0, pw0 = rem <= 8 ? 8 : 16;
        const int two = rem > 16 && rem - 16 > 8; /* two 16-wide panels */
        const __mmask16 mk0 = lanes(rem), mk1 = two ? lanes(rem - 16) : mk0;
        const __m512 i0 = bias ? _mm512_maskz_loadu_ps(mk0, bias + j0) : _mm512_setzero_ps();
        const __m512 i1 = two && bias ? _mm512_maskz_loadu_ps(mk1, bias + j0 + 16) : i0;
        /* one pass even when K == 0 (the outputs are the bias) */
        for (int64_t k0 = 0; k0 == 0 || k0 < K; k0 += KC) {
            const int64_t kn = K - k0 < KC ? K - k0 : KC;
            const int first = k0 == 0, last = k0 + kn >= K;
            const float *b0 = Bp + j0 * K + k0 * pw0, *b1 = two ? Bp + (j0 + 16) * K + k0 * 16 : b0;
            if (two) {
                ROWS(2, 16)
            } else if (pw0 == 8) {
                ROWS(1, 8)
            } else {
                ROWS(1, 16)
            }
        }
        j0 += two ? 32 : 16;
    }
}
#undef ROWS

#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
typedef int lgk_conv_avx512_unused; /* ISO C: a translation unit is not empty */
#endif
