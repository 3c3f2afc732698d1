/* The integer GEMM and depthwise microkernels of the int8 / uint8 CONV_2D, DEPTHWISE_CONV_2D and
 * FULLY_CONNECTED kernels (internal; k_quant_conv.c prepares and calls them).
 *
 * The arithmetic is TFLite's (k_quant_conv.c): acc = bias[c] + sum_k (w + w_offset) * (x + x_offset)
 * over the taps inside the input, in int32 (wrapping), then one requantization per output.
 * The rewrite, exact modulo 2^32 (every term is an integer and int32 addition is associative
 * and commutative modulo 2^32, so the order of the sums and any wrap in between do not change
 * the final int32):
 *   - the weights are stored with their offset applied, wp = w + w_offset (int16: -255..255 for
 *     uint8 weights, -128..127 for int8);
 *   - the input offset is folded into the bias at prepare, bias'[c] = bias[c] + x_offset *
 *     sum_k wp[c][k] (XNNPACK does the same at packing, google/XNNPACK src/packing.c
 *     xnn_pack_qu8_gemm_goi_w: "bias - izp * sum(w - kzp)");
 *   - a tap outside the input reads the input zero point instead of being skipped:
 *     wp * (zp + x_offset) = 0, so acc = bias'[c] + sum_k wp[c][k] * x[k] over all K taps.
 * The products are int16 x int16 (|wp * x| <= 255 * 255), summed pairwise into int32 lanes by
 * vpmaddwd (AVX2, AVX-512BW) or vpdpwssd (AVX-512 VNNI; the non-saturating form): both exact,
 * the lanes wrap as int32 addition does. (vpmaddubsw would saturate its int16 pair sums: not
 * used.) The requantization is the reference's per output channel, on vectors of channels
 * (lgq_rq): TFLite's MultiplyByQuantizedMultiplier or XNNPACK's fp32 form, bit for bit.
 *
 * The code levels (src/run/simd.h: run-time dispatch, LITEGPU_SIMD=portable|avx2|avx512 and
 * lgk_simd_override cap them): portable C, AVX2, AVX-512 (F + BW + VL; with VNNI when the CPU
 * has it, lgq_simd_vnni). All compute the same bits. */
#ifndef LGI_RUN_K_QUANT_GEMM_H
#define LGI_RUN_K_QUANT_GEMM_H

#include "run/k_quant.h"

/* Channels per packed weight panel (a 512-bit vector of int32 lanes, two 256-bit ones). */
#define LGQ_NR 16

/* Per output channel requantization (the arrays padded with zeros to a multiple of 2 * LGQ_NR
   channels, so vector loads past the last channel stay inside them). */
typedef struct lgq_rq {
    int xnn;               /* 1: XNNPACK's fp32 requantization, 0: TFLite's fixed point */
    const float *fs;       /* xnn: in_scale * w_scale / out_scale, per channel */
    const int32_t *mult;   /* tflite: Q31 multiplier, per channel */
    const int32_t *lsh;    /* tflite: max(shift, 0) */
    const int32_t *rsh;    /* tflite: max(-shift, 0) */
    int32_t zp, lo, hi;    /* output zero point, activation clamp */
    float flo, fhi;        /* xnn: the float clamp, (lo - zp) - 1 and (hi - zp) + 1 */
    int out_u8;            /* output UINT8 (else INT8) */
} lgq_rq;

/* One output's requantization, as k_quant_conv.c's reference (qc_out): the definition the
   vector forms must match. */
static inline int32_t lgq_rq_one(const lgq_rq *q, int32_t acc, int64_t c) {
    if (q->xnn) {
        float y = (float)acc * q->fs[c];
        y = y < q->flo ? q->flo : y > q->fhi ? q->fhi : y;
        return lgq_clamp((int32_t)rintf(y) + q->zp, q->lo, q->hi);
    }
    int32_t v = lgq_rdbpot(lgq_srdhm((int32_t)((uint32_t)acc << q->lsh[c]), q->mult[c]), q->rsh[c]);
    /* + zero point in int32, wrapping as TFLite's int32 addition does on its targets (and as
       the vector lanes do); only an accumulator near the int32 limits reaches the wrap */
    return lgq_clamp((int32_t)((uint32_t)v + (uint32_t)q->zp), q->lo, q->hi);
}

/* Requantize n accumulators of channels c0.. (acc[i] is channel c0 + i) and store them as
   bytes (y[i]). For tests and tails; the kernels requantize in registers. */
LG_INTERNAL void lgq_requant_row(const lgq_rq *q, int64_t c0, const int32_t *acc, int64_t n, void *y);

/* ---- GEMM: y[m][n] = requant(bias'[n] + sum_k wp[n][k] * a[m][k]) */

/* Weights packed at prepare: panel p holds channels [16p, 16p + 16) as [kp / 2][16][2] int16
   (the pair k = 2i, 2i + 1 of each channel side by side, as vpmaddwd takes them); channels past
   n and the pad k past K are 0. */
typedef struct lgq_gemm_w {
    int64_t n, k, kp;      /* channels, depth, kp = depth rounded up to even */
    int64_t npan;          /* panels: ceil(n / 16) rounded up to even (pairs of panels) */
    const int16_t *w;      /* npan * kp * 16 */
    const int32_t *bias;   /* bias' per channel, npan * 16 (0 past n) */
} lgq_gemm_w;

/* Bytes for the packing of n x k weights. */
LG_INTERNAL size_t lgq_gemm_w_bytes(int64_t n, int64_t k);
/* Packs n channels of k weights: weight (c, k) at w[c * sn + k] of type wt (INT8 / UINT8),
   stored as w + w_off; bias'[c] = bias[c] + x_off * sum_k (w + w_off), wrapped to int32.
   mem: lgq_gemm_w_bytes(n, k) bytes, 16-byte aligned. */
LG_INTERNAL void lgq_gemm_pack(lgq_gemm_w *out, void *mem, const void *w, lg_dtype wt, int64_t sn, int64_t n,
                               int64_t k, int32_t w_off, int32_t x_off, const int64_t *bias);

/* m rows of activations as int16 (row r: a[r * lda + k] for k < w->kp, the pad k 0) times the
   packed weights: output row r's w->n requantized bytes at y + r * ldy. */
LG_INTERNAL void lgq_gemm(const lgq_gemm_w *w, const lgq_rq *q, int64_t m, const int16_t *a, int64_t lda, void *y,
                          int64_t ldy);

/* Widens n INT8 / UINT8 values to int16. */
LG_INTERNAL void lgq_widen(const void *x, int u8, int16_t *d, int64_t n);

/* ---- depthwise: y[c] = requant(bias'[c] + sum_t wp[t][c] * x_t[c / dm]) */

typedef struct lgq_dw {
    int64_t c, cp;         /* output channels; cp = c rounded up to 2 * LGQ_NR */
    int64_t taps, dm;      /* filter taps (fh * fw), depth multiplier */
    const int32_t *w;      /* [taps][cp]: w + w_off (0 past c) */
    const int32_t *bias;   /* [cp]: bias' (bias + x_off * sum_t wp[t][c]) */
    int in_u8;             /* input UINT8 (else INT8) */
    lgq_rq rq;
} lgq_dw;

/* Bytes of the depthwise packing. */
LG_INTERNAL size_t lgq_dw_bytes(int64_t c, int64_t taps);
/* Packs weights w[t * c + ch] (type wt, [1, fh, fw, c]) and the bias as lgq_dw documents. */
LG_INTERNAL void lgq_dw_pack(lgq_dw *d, void *mem, const void *w, lg_dtype wt, int64_t c, int64_t taps, int64_t dm,
                             int32_t w_off, int32_t x_off, const int64_t *bias);
/* npix output pixels: pixel i's taps read the input pixels at x[i * taps + t] (each a pointer
   to channel 0 of an input pixel, or to a row of the input zero point for a tap outside the
   input); its c outputs go to y + i * ys (bytes). */
LG_INTERNAL void lgq_dw_row(const lgq_dw *d, const void *const *x, int64_t npix, void *y, int64_t ys);

/* ---- levels */

/* 1 when the AVX-512 kernels run: lgk_simd_avx512() and the CPU has AVX-512BW and VL. */
LG_INTERNAL int lgq_simd_avx512(void);
/* 1 when they use VNNI (vpdpwssd): lgq_simd_avx512() and the CPU has AVX512_VNNI, unless a
   test turned it off. */
LG_INTERNAL int lgq_simd_vnni(void);
/* Tests: 0 makes the AVX-512 kernels use vpmaddwd + vpaddd instead of vpdpwssd, 1 (the
   default) lets them use VNNI where the CPU has it. */
LG_INTERNAL void lgq_simd_vnni_override(int on);

/* The kernels of each level (k_quant_gemm.c portable, k_quant_gemm_avx2.c, _avx512.c). */
LG_INTERNAL void lgq_gemm_c(const lgq_gemm_w *w, const lgq_rq *q, int64_t m, const int16_t *a, int64_t lda, void *y,
                            int64_t ldy);
LG_INTERNAL void lgq_dw_row_c(const lgq_dw *d, const void *const *x, int64_t npix, void *y, int64_t ys);
LG_INTERNAL void lgq_gemm_avx2(const lgq_gemm_w *w, const lgq_rq *q, int64_t m, const int16_t *a, int64_t lda,
                               void *y, int64_t ldy);
LG_INTERNAL void lgq_dw_row_avx2(const lgq_dw *d, const void *const *x, int64_t npix, void *y, int64_t ys);
LG_INTERNAL void lgq_requant_row_avx2(const lgq_rq *q, int64_t c0, const int32_t *acc, int64_t n, void *y);
LG_INTERNAL void lgq_widen_avx2(const void *x, int u8, int16_t *d, int64_t n);
LG_INTERNAL void lgq_gemm_avx512_plain(const lgq_gemm_w *w, const lgq_rq *q, int64_t m, const int16_t *a,
                                       int64_t lda, void *y, int64_t ldy);
LG_INTERNAL void lgq_gemm_avx512_vnni(const lgq_gemm_w *w, const lgq_rq *q, int64_t m, const int16_t *a,
                                      int64_t lda, void *y, int64_t ldy);
LG_INTERNAL void lgq_dw_row_avx512(const lgq_dw *d, const void *const *x, int64_t npix, void *y, int64_t ys);
LG_INTERNAL void lgq_requant_row_avx512(const lgq_rq *q, int64_t c0, const int32_t *acc, int64_t n, void *y);

#endif
