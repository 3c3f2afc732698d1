/* The AVX-512 GEMM of k_quant_gemm_avx512.c, included twice: KQ(name) names this variant's
 * functions and the statement KQ_MAC(acc, x, w) sets acc to acc + the pairwise int16 products of x
 * and w in int32 lanes (vpdpwssd with VNNI, else vpmaddwd + vpaddd: the same exact sums,
 * wrapping alike).
 *
 * A register tile is mr <= 8 rows x nv <= 2 panels of 16 channels (16 accumulators); per k pair
 * the panels' weight pairs are loaded once and each row's broadcast activation pair meets
 * them. Panels in pairs outermost, so the pair's weights (kp * 64 bytes) are read by every
 * row block of the activation tile from the near caches. */

static inline __attribute__((always_inline)) void KQ(tile)(const int mr, const int nv, int64_t kp2, const int16_t *a,
                                                           int64_t lda, const int16_t *w0, const int16_t *w1,
                                                           const int32_t *bias, const lgq_rq *q, const rqz *v,
                                                           int64_t c0, int64_t cnt, uint8_t *y, int64_t ldy) {
    /* named accumulators, not an array: GCC 12 keeps an array of vpdpwssd accumulators in
       copies and stack slots; named ones stay in registers */
    const __m512i i0 = _mm512_loadu_si512((const void *)(bias + c0));
    const __m512i i1 = _mm512_loadu_si512((const void *)(bias + c0 + 16));
    __m512i a0 = i0, a1 = i0, a2 = i0, a3 = i0, a4 = i0, a5 = i0, a6 = i0, a7 = i0;
    __m512i b0 = i1, b1 = i1, b2 = i1, b3 = i1, b4 = i1, b5 = i1, b6 = i1, b7 = i1;
    /* rows past mr point at row 0 and are never used */
    const int16_t *p0 = a, *p1 = a + (mr > 1) * lda, *p2 = a + (mr > 2) * 2 * lda, *p3 = a + (mr > 3) * 3 * lda;
    const int16_t *p4 = a + (mr > 4) * 4 * lda, *p5 = a + (mr > 5) * 5 * lda, *p6 = a + (mr > 6) * 6 * lda;
    const int16_t *p7 = a + (mr > 7) * 7 * lda;
    for (int64_t kk = 0; kk < kp2; kk++) {
        const __m512i wv0 = _mm512_loadu_si512((const void *)(w0 + kk * 32));
        const __m512i wv1 = nv == 2 ? _mm512_loadu_si512((const void *)(w1 + kk * 32)) : wv0;
#define KQ_ROW(r)                                           \
        if (mr > r) {                                       \
            int32_t pr;                                     \
            memcpy(&pr, p##r + 2 * kk, sizeof pr);          \
            const __m512i x = _mm512_set1_epi32(pr);        \
            KQ_MAC(a##r, x, wv0);                            \
            if (nv == 2) KQ_MAC(b##r, x, wv1);              \
        }
        KQ_ROW(0) KQ_ROW(1) KQ_ROW(2) KQ_ROW(3) KQ_ROW(4) KQ_ROW(5) KQ_ROW(6) KQ_ROW(7)
#undef KQ_ROW
    }
    const __mmask16 m0 = lanes16(cnt), m1 = lanes16(cnt - 16);
#define KQ_OUT(r)                                                                                              \
    if (mr > r) {                                                                                              \
        _mm512_mask_cvtepi32_storeu_epi8(y + r * ldy + c0, m0, rq16(q, v, c0, a##r));                          \
        if (nv == 2) _mm512_mask_cvtepi32_storeu_epi8(y + r * ldy + c0 + 16, m1, rq16(q, v, c0 + 16, b##r));   \
    }
    KQ_OUT(0) KQ_OUT(1) KQ_OUT(2) KQ_OUT(3) KQ_OUT(4) KQ_OUT(5) KQ_OUT(6) KQ_OUT(7)
#undef KQ_OUT
}

#define KQ_ROWS(NV)                                                                                      \
    do {                                                                                                 \
        int64_t r0 = 0;                                                                                  \
        for (; r0 + MR <= m; r0 += MR)                                                                   \
            KQ(tile)(MR, NV, kp2, a + r0 * lda, lda, w0, w1, w->bias, q, &v, c0, cnt, yb + r0 * ldy, ldy); \
        const int16_t *ar = a + r0 * lda;                                                                \
        uint8_t *yr = yb + r0 * ldy;                                                                     \
        switch (m - r0) {                                                                                \
        case 1: KQ(tile)(1, NV, kp2, ar, lda, w0, w1, w->bias, q, &v, c0, cnt, yr, ldy); break;          \
        case 2: KQ(tile)(2, NV, kp2, ar, lda, w0, w1, w->bias, q, &v, c0, cnt, yr, ldy); break;          \
        case 3: KQ(tile)(3, NV, kp2, ar, lda, w0, w1, w->bias, q, &v, c0, cnt, yr, ldy); break;          \
        case 4: KQ(tile)(4, NV, kp2, ar, lda, w0, w1, w->bias, q, &v, c0, cnt, yr, ldy); break;          \
        case 5: KQ(tile)(5, NV, kp2, ar, lda, w0, w1, w->bias, q, &v, c0, cnt, yr, ldy); break;          \
        case 6: KQ(tile)(6, NV, kp2, ar, lda, w0, w1, w->bias, q, &v, c0, cnt, yr, ldy); break;          \
        case 7: KQ(tile)(7, NV, kp2, ar, lda, w0, w1, w->bias, q, &v, c0, cnt, yr, ldy); break;          \
        default: break;                                                                                  \
        }                                                                                                \
    } while (0)

void KQ(lgq_gemm_avx512)(const lgq_gemm_w *w, const lgq_rq *q, int64_t m, const int16_t *a, int64_t lda, void *y,
                         int64_t ldy) {
    const rqz v = rq_consts(q);
    const int64_t kp2 = w->kp / 2;
    uint8_t *yb = y;
    for (int64_t c0 = 0; c0 < w->n; c0 += 2 * LGQ_NR) {
        const int16_t *w0 = w->w + (c0 / LGQ_NR) * w->kp * LGQ_NR, *w1 = w0 + w->kp * LGQ_NR;
        const int64_t cnt = w->n - c0 < 2 * LGQ_NR ? w->n - c0 : 2 * LGQ_NR;
        if (cnt > LGQ_NR) KQ_ROWS(2);
        else KQ_ROWS(1);
    }
}
#undef KQ_ROWS
