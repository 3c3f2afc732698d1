/* The integer GEMM and depthwise kernels (k_quant_gemm.h): the packing done at prepare, the
 * portable C kernels (every level's definition, and what runs without AVX2) and the dispatch to
 * k_quant_gemm_avx2.c / k_quant_gemm_avx512.c. */
#include <stdatomic.h>

#include "run/k_quant_gemm.h"
#include "run/simd.h"

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define LGQ_X86 1
#else
#define LGQ_X86 0
#endif

/* ------------------------------------------------------------------ levels */

#if LGQ_X86
/* AVX-512 BW / VL / VNNI, asked once (the OS's ZMM state is part of the compiler's check);
   racing first calls store the same value. -1: not asked yet. */
static atomic_int cpu_bw = -1, cpu_vnni = -1;
static atomic_int vnni_on = 1;
static int has_bw(void) {
    int v = atomic_load_explicit(&cpu_bw, memory_order_relaxed);
    if (v < 0) {
        v = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
        atomic_store_explicit(&cpu_bw, v, memory_order_relaxed);
    }
    return v;
}
static int has_vnni(void) {
    int v = atomic_load_explicit(&cpu_vnni, memory_order_relaxed);
    if (v < 0) {
        v = __builtin_cpu_supports("avx512vnni");
        atomic_store_explicit(&cpu_vnni, v, memory_order_relaxed);
    }
    return v;
}
int lgq_simd_avx512(void) { return lgk_simd_avx512() && has_bw(); }
int lgq_simd_vnni(void) {
    return lgq_simd_avx512() && has_vnni() && atomic_load_explicit(&vnni_on, memory_order_relaxed);
}
void lgq_simd_vnni_override(int on) { atomic_store_explicit(&vnni_on, on ? 1 : 0, memory_order_relaxed); }
#else
int lgq_simd_avx512(void) { return 0; }
int lgq_simd_vnni(void) { return 0; }
void lgq_simd_vnni_override(int on) { (void)on; }
#endif

/* ------------------------------------------------------------------ packing */

static int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
static int32_t wrap32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }
static int32_t weight_at(const void *w, lg_dtype wt, int64_t i) {
    return wt == LG_UINT8 ? ((const uint8_t *)w)[i] : ((const int8_t *)w)[i];
}

size_t lgq_gemm_w_bytes(int64_t n, int64_t k) {
    const int64_t npan = round_up((n + LGQ_NR - 1) / LGQ_NR, 2), kp = round_up(k, 2);
    return (size_t)(npan * kp * LGQ_NR) * sizeof(int16_t) + (size_t)(npan * LGQ_NR) * sizeof(int32_t);
}

void lgq_gemm_pack(lgq_gemm_w *out, void *mem, const void *w, lg_dtype wt, int64_t sn, int64_t n, int64_t k,
                   int32_t w_off, int32_t x_off, const int64_t *bias) {
    const int64_t npan = round_up((n + LGQ_NR - 1) / LGQ_NR, 2), kp = round_up(k, 2);
    int16_t *pw = mem;
    int32_t *pb = (int32_t *)(void *)(pw + npan * kp * LGQ_NR);
    memset(mem, 0, lgq_gemm_w_bytes(n, k));
    for (int64_t c = 0; c < n; c++) {
        int16_t *dst = pw + (c / LGQ_NR) * kp * LGQ_NR + (c % LGQ_NR) * 2;
        int64_t sum = 0;
        for (int64_t i = 0; i < k; i++) {
            int32_t v = weight_at(w, wt, c * sn + i) + w_off;
            dst[(i / 2) * 2 * LGQ_NR + (i % 2)] = (int16_t)v;
            sum += v;
        }
        pb[c] = wrap32(bias[c] + (int64_t)x_off * sum);
    }
    out->n = n;
    out->k = k;
    out->kp = kp;
    out->npan = npan;
    out->w = pw;
    out->bias = pb;
}

size_t lgq_dw_bytes(int64_t c, int64_t taps) {
    const int64_t cp = round_up(c, 2 * LGQ_NR);
    return (size_t)((taps + 1) * cp) * sizeof(int32_t);
}

void lgq_dw_pack(lgq_dw *d, void *mem, const void *w, lg_dtype wt, int64_t c, int64_t taps, int64_t dm, int32_t w_off,
                 int32_t x_off, const int64_t *bias) {
    const int64_t cp = round_up(c, 2 * LGQ_NR);
    int32_t *pw = mem, *pb = pw + taps * cp;
    memset(mem, 0, lgq_dw_bytes(c, taps));
    for (int64_t ch = 0; ch < c; ch++) {
        int64_t sum = 0;
        for (int64_t t = 0; t < taps; t++) {
            int32_t v = weight_at(w, wt, t * c + ch) + w_off;
            pw[t * cp + ch] = v;
            sum += v;
        }
        pb[ch] = wrap32(bias[ch] + (int64_t)x_off * sum);
    }
    d->c = c;
    d->cp = cp;
    d->taps = taps;
    d->dm = dm;
    d->w = pw;
    d->bias = pb;
}

/* ------------------------------------------------------------------ portable kernels */

static void requant_row_c(const lgq_rq *q, int64_t c0, const int32_t *acc, int64_t n, void *y) {
    if (q->out_u8) {
        uint8_t *o = y;
        for (int64_t i = 0; i < n; i++) o[i] = (uint8_t)lgq_rq_one(q, acc[i], c0 + i);
    } else {
        int8_t *o = y;
        for (int64_t i = 0; i < n; i++) o[i] = (int8_t)lgq_rq_one(q, acc[i], c0 + i);
    }
}

/* Rows in blocks of 4, one panel of 16 channels at a time: uint32 accumulators (the int32 sum
   wraps as the vector lanes do; unsigned, so C defines it). Each product term fits an int:
   |wp * x| <= 255 * 255. */
void lgq_gemm_c(const lgq_gemm_w *w, const lgq_rq *q, int64_t m, const int16_t *a, int64_t lda, void *y, int64_t ldy) {
    const int64_t kp2 = w->kp / 2;
    for (int64_t c0 = 0; c0 < w->n; c0 += LGQ_NR) {
        const int16_t *wp = w->w + (c0 / LGQ_NR) * w->kp * LGQ_NR;
        const int64_t cnt = w->n - c0 < LGQ_NR ? w->n - c0 : LGQ_NR;
        for (int64_t r0 = 0; r0 < m; r0 += 4) {
            const int64_t mr = m - r0 < 4 ? m - r0 : 4;
            uint32_t acc[4][LGQ_NR];
            for (int64_t r = 0; r < 4; r++)
                for (int j = 0; j < LGQ_NR; j++) acc[r][j] = (uint32_t)w->bias[c0 + j];
            for (int64_t i = 0; i < kp2; i++) {
                const int16_t *wk = wp + i * 2 * LGQ_NR;
                for (int64_t r = 0; r < mr; r++) {
                    const int32_t a0 = a[(r0 + r) * lda + 2 * i], a1 = a[(r0 + r) * lda + 2 * i + 1];
                    for (int j = 0; j < LGQ_NR; j++)
                        acc[r][j] += (uint32_t)(wk[2 * j] * a0 + wk[2 * j + 1] * a1);
                }
            }
            for (int64_t r = 0; r < mr; r++) {
                int32_t v[LGQ_NR];
                for (int j = 0; j < LGQ_NR; j++) v[j] = (int32_t)acc[r][j];
                requant_row_c(q, c0, v, cnt, (char *)y + (r0 + r) * ldy + c0);
            }
        }
    }
}

/* Channels in blocks of 64; depth multiplier dm: output channel ch reads input channel
   ch / dm, followed incrementally (one division per block). */
void lgq_dw_row_c(const lgq_dw *d, const void *const *x, int64_t npix, void *y, int64_t ys) {
    enum { B = 64 };
    for (int64_t p = 0; p < npix; p++) {
        const void *const *xp = x + p * d->taps;
        for (int64_t c0 = 0; c0 < d->c; c0 += B) {
            const int64_t cnt = d->c - c0 < B ? d->c - c0 : B;
            uint32_t acc[B];
            int32_t v[B];
            for (int64_t j = 0; j < cnt; j++) acc[j] = (uint32_t)d->bias[c0 + j];
            for (int64_t t = 0; t < d->taps; t++) {
                const int32_t *wt = d->w + t * d->cp + c0;
                if (d->dm == 1 && d->in_u8) {
                    const uint8_t *xs = (const uint8_t *)xp[t] + c0;
                    for (int64_t j = 0; j < cnt; j++) acc[j] += (uint32_t)(wt[j] * (int32_t)xs[j]);
                } else if (d->dm == 1) {
                    const int8_t *xs = (const int8_t *)xp[t] + c0;
                    for (int64_t j = 0; j < cnt; j++) acc[j] += (uint32_t)(wt[j] * (int32_t)xs[j]);
                } else {
                    int64_t ic = c0 / d->dm, jj = c0 % d->dm;
                    for (int64_t j = 0; j < cnt; j++) {
                        int32_t xv = d->in_u8 ? ((const uint8_t *)xp[t])[ic] : ((const int8_t *)xp[t])[ic];
                        acc[j] += (uint32_t)(wt[j] * xv);
                        if (++jj == d->dm) { jj = 0; ic++; }
                    }
                }
            }
            for (int64_t j = 0; j < cnt; j++) v[j] = (int32_t)acc[j];
            requant_row_c(&d->rq, c0, v, cnt, (char *)y + p * ys + c0);
        }
    }
}

/* ------------------------------------------------------------------ dispatch */

void lgq_requant_row(const lgq_rq *q, int64_t c0, const int32_t *acc, int64_t n, void *y) {
#if LGQ_X86
    if (lgq_simd_avx512()) { lgq_requant_row_avx512(q, c0, acc, n, y); return; }
    if (lgk_simd_avx2()) { lgq_requant_row_avx2(q, c0, acc, n, y); return; }
#endif
    requant_row_c(q, c0, acc, n, y);
}

void lgq_gemm(const lgq_gemm_w *w, const lgq_rq *q, int64_t m, const int16_t *a, int64_t lda, void *y, int64_t ldy) {
    if (m <= 0 || w->n <= 0) return;
#if LGQ_X86
    if (lgq_simd_avx512()) {
        if (lgq_simd_vnni()) lgq_gemm_avx512_vnni(w, q, m, a, lda, y, ldy);
        else lgq_gemm_avx512_plain(w, q, m, a, lda, y, ldy);
        return;
    }
    if (lgk_simd_avx2()) { lgq_gemm_avx2(w, q, m, a, lda, y, ldy); return; }
#endif
    lgq_gemm_c(w, q, m, a, lda, y, ldy);
}

void lgq_widen(const void *x, int u8, int16_t *d, int64_t n) {
#if LGQ_X86
    if (lgk_simd_avx2()) { lgq_widen_avx2(x, u8, d, n); return; }
#endif
    if (u8)
        for (int64_t i = 0; i < n; i++) d[i] = ((const uint8_t *)x)[i];
    else
        for (int64_t i = 0; i < n; i++) d[i] = ((const int8_t *)x)[i];
}

void lgq_dw_row(const lgq_dw *d, const void *const *x, int64_t npix, void *y, int64_t ys) {
    if (npix <= 0 || d->c <= 0) return;
#if LGQ_X86
    if (d->dm == 1 && lgq_simd_avx512()) { lgq_dw_row_avx512(d, x, npix, y, ys); return; }
    if (d->dm == 1 && lgk_simd_avx2()) { lgq_dw_row_avx2(d, x, npix, y, ys); return; }
#endif
    lgq_dw_row_c(d, x, npix, y, ys);
}
