/* The conv kernel family (internal): CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, the MediaPipe
 * custom op Convolution2DTransposeBias, FULLY_CONNECTED, BATCH_MATMUL, AVERAGE_POOL_2D and
 * MAX_POOL_2D.
 *
 * Files: k_conv.c (the table and shared helpers), k_conv_conv.c (conv, transposed conv),
 * k_conv_dw.c (depthwise), k_conv_fc.c (fully connected, batch matmul), k_conv_pool.c (pools),
 * k_conv_simd.c (the vector inner loops, compiled twice from k_conv_tmpl.h: portable width-4
 * vectors (SSE2 / NEON) and, on x86-64 CPUs that have them, AVX2 + F16C; picked at run time
 * by lgk_simd_avx2; the vector basics and the half rounding are the neutral simd.h/simd_vec.h),
 * k_conv_avx512.c (the fp32 GEMM's AVX-512F tiles, picked by lgk_simd_avx512), k_conv_dw_avx512.c
 * (the depthwise and pooling loops at 16 lanes).
 *
 * fp32 arithmetic (LG_PREC_F32, LG_PREC_F32_F16) is XNNPACK's as LiteRT.js runs it (wasm
 * SIMD: a product and an add per step, no FMA): bias first, then the taps in XNNPACK's order
 * with zeros for padding taps; "c4" partial sums where XNNPACK uses those kernels
 * (lgk_cv_use_c4); average pools in XNNPACK's chunks of 9 times 1/count. Every CPU and every
 * vector width computes the same bits, and they are LiteRT.js's own (checked op by op on the
 * corpus models). The matrix products are our packed GEMM, not OpenBLAS: 2-3x faster on these
 * small-K, small-N shapes and under our control of the summation order.
 *
 * LG_PREC_F16 rounds each multiply-add to half once, in a fixed order (acc = h(acc + a*b), a
 * GPU's fp16 FMA: the product of two halves is exact in fp32; TFLite's reference order: padding
 * taps skipped), then adds the bias
 * last (h(acc + bias)), exactly what lgk_mac/lgk_add do, vectorized; the rounding is
 * bit-identical to lg_round_half (F16C, or integer code elsewhere; tested on all 2^32 floats).
 * That is the GPU delegate's F16 accumulator: conv_generic.cc, depthwise_conv*.cc,
 * conv_constants.cc, convolution_transposed*.cc and fully_connected.cc accumulate in
 * ACCUM_FLT4, which tflite/delegates/gpu/cl/cl_operation.cc defines as half4 in F16 (float4
 * in F32 and F32_F16), and add the bias after (`TO_FLT4(r) + bias`). The average pool is the
 * exception: pooling.cc sums in float4 in every precision, so its F16 path sums in fp32 and
 * rounds once.
 */
#ifndef LGI_RUN_K_CONV_H
#define LGI_RUN_K_CONV_H

#include "run/kernel.h"
#include "run/simd.h"

/* ---- shared helpers (k_conv.c) */

/* Fused activation as a clamp [lo, hi] (on = 0 for NONE). TANH and SIGN_BIT are refused:
   TFLite's float conv kernels silently ignore them, GPU delegates apply them. */
typedef struct lgk_clamp {
    float lo, hi;
    int on;
} lgk_clamp;
LG_INTERNAL lg_status lgk_cv_clamp(const lgk_node *n, int act, lgk_clamp *c, lg_error *err);

/* TFLite's padding.h: output size for Padding SAME (0) / VALID (1), and the leading pad. */
LG_INTERNAL int64_t lgk_cv_out_size(int padding, int64_t in, int64_t filter, int64_t stride,
                                    int64_t dilation);
LG_INTERNAL int64_t lgk_cv_pad(int64_t stride, int64_t dilation, int64_t in, int64_t filter,
                               int64_t out);

/* The options struct of the op if its kind is `kind`, else fail (LG_ERR_FORMAT). */
LG_INTERNAL const void *lgk_cv_opts(const lgk_node *n, lg_opts_kind kind, const char *what,
                                    lg_error *err, lg_status *st);
/* Input i must be a float tensor of rank `rank` (rank < 0: any). Quantized and other types
   give LG_ERR_UNSUPPORTED naming the type. */
LG_INTERNAL lg_status lgk_cv_float_in(const lgk_node *n, uint32_t i, int rank, const char *what,
                                      lg_error *err);
/* Optional bias at input i: NULL if absent; else must be float with `count` elements. */
LG_INTERNAL lg_status lgk_cv_bias(const lgk_node *n, uint32_t i, int64_t count, const lgk_tensor **b,
                                  lg_error *err);
/* Exactly one output, float. */
LG_INTERNAL lg_status lgk_cv_one_output(const lgk_node *n, lg_error *err);

/* ---- vector inner loops (k_conv_simd.c), dispatched on the CPU */

/* y[r*ldy + c] = clamp(y[r*ldy + c] + bias[c]) for r < rows, c < n (bias may be NULL). */
LG_INTERNAL void lgk_cv_bias_act(float *y, int64_t rows, int64_t n, int64_t ldy, const float *bias,
                                 lgk_clamp cl);
/* Half-accumulated product (LG_PREC_F16): for m < M, n < N
     acc = 0; for k < K: acc = h(acc + A[m*sam + k*sak] * B[k*ldb + n]);
     if bias: acc = h(acc + bias[n]);  C[m*ldc + n] = clamp(acc).
   B must be readable up to column lgk_cv_pad8(N) of each row (pad it with zeros). */
LG_INTERNAL void lgk_cv_gemm_h(int64_t M, int64_t N, int64_t K, const float *A, int64_t sam,
                               int64_t sak, const float *B, int64_t ldb, float *C, int64_t ldc,
                               const float *bias, lgk_clamp cl);
/* The same half product with B packed by lgk_cv_pack_b (n = N, k = K) and A row-major (lda):
   the arithmetic of lgk_cv_gemm_h bit for bit, the register tiling of lgk_cv_gemm. */
LG_INTERNAL void lgk_cv_gemm_hp(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *bp,
                                float *C, int64_t ldc, const float *bias, lgk_clamp cl);
/* The same half product for N = 1..4 columns with W unpacked, [N][K] (row n = output n):
   vectors across rows, so no lane computes padding. */
LG_INTERNAL void lgk_cv_gemm_hn(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *W,
                                float *C, int64_t ldc, const float *bias, lgk_clamp cl);
/* Continue half accumulations: acc[j] = h(acc[j] + x[k] * B[k*ldb + j]) for k < K in order,
   j < n; n a multiple of 8. */
LG_INTERNAL void lgk_cv_acc_h(float *acc, int64_t n, const float *x, int64_t K, const float *B, int64_t ldb);
/* The same for four accumulators at once (rows of acc n apart) whose inputs are xs apart:
   acc[p*n + j] = h(acc[p*n + j] + x[p*xs + k] * B[k*ldb + j]) for p < 4, in the same order. */
LG_INTERNAL void lgk_cv_acc_h4(float *acc, int64_t n, const float *x, int64_t xs, int64_t K, const float *B,
                               int64_t ldb);
static inline int64_t lgk_cv_pad8(int64_t n) { return (n + 7) & ~(int64_t)7; }

/* The fp32 GEMM: C[m*ldc + n] = clamp(bias[n] + sum_k A[m*lda + k] * W(n, k)) (bias may be NULL:
   0), each output one chain in k order with a separate product and add per step (no FMA):
   XNNPACK's arithmetic on wasm SIMD, so LiteRT.js's fp32 results are reproduced bit for bit.
   W(n, k) = w[n*sn + k*sk] is packed once by lgk_cv_pack_b into lgk_cv_packed_floats(N, K)
   floats. Same bits with every vector width. */
static inline int64_t lgk_cv_packed_floats(int64_t n, int64_t k) { return k * ((n + 15) & ~(int64_t)15); }
LG_INTERNAL void lgk_cv_pack_b(const float *w, int64_t sn, int64_t sk, int64_t n, int64_t k, float *bp);
LG_INTERNAL void lgk_cv_gemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *bp, float *C,
                             int64_t ldc, const float *bias, lgk_clamp cl);
/* The same product with AVX-512F tiles (k_conv_avx512.c; x86-64 only): lgk_cv_gemm calls it when
   lgk_simd_avx512(). Same bits. */
LG_INTERNAL void lgk_cv_gemm_avx512(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *bp,
                                    float *C, int64_t ldc, const float *bias, lgk_clamp cl);
/* The same with XNNPACK's "c4" kernels' arithmetic, which LiteRT.js uses for some shapes
   (lgk_cv_use_c4): four partial sums per output over groups of 4 values of each seg-long
   segment of k (a conv tap's channels), combined as (p0 + p2) + (p1 + p3). */
LG_INTERNAL void lgk_cv_gemm_c4(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *bp,
                                float *C, int64_t ldc, const float *bias, lgk_clamp cl, int64_t seg);
/* Which arithmetic LiteRT.js's XNNPACK picks for a product with N outputs per group (checked on
   every N from 1 to 40 and the corpus models): "c4" below 8 outputs, and on its GEMM path
   (1x1 stride-1 unpadded convs, fully connected) also when N % 8 is neither 0 nor 7. */
static inline int lgk_cv_use_c4(int64_t n, int gemm_path) {
    return n < 8 || (gemm_path && n % 8 != 0 && n % 8 != 7);
}

/* im2col of output pixels [p0, p0+mt) (flattened batch * out_h * out_w) into col
   [mt][kh*kw*fic], channels [c0, c0+fic) of each input pixel; zeros where padded. */
typedef struct lgk_im2col_args {
    const float *in;             /* [N,H,W,ic] */
    int64_t h, w_, ic, c0, fic, oh, ow, kh, kw, sh, sw, dh, dw, ph, pw;
} lgk_im2col_args;
LG_INTERNAL void lgk_cv_im2col(const lgk_im2col_args *a, int64_t p0, int64_t mt, float *col);

/* fp32 conv for 1 to 4 output channels: out[(p-p0)*ldo + o] for pixels [p0, p1), o < N, as
   dot products over the taps (w is [N][kh*kw*fic]); colbuf holds kh*kw*fic floats. */
LG_INTERNAL void lgk_cv_conv_dot(const lgk_im2col_args *a, const float *w, int64_t N, const float *bias,
                                 lgk_clamp cl, float *out, int64_t ldo, int64_t p0, int64_t p1, float *colbuf);

/* Depthwise conv over output rows [r0, r1) of the flattened (batch * out_h) rows. */
typedef struct lgk_dw_args {
    const float *in, *w, *bias;  /* in [N,H,W,C], w [kh,kw,C*mult], bias [C*mult] or NULL */
    float *out;                  /* [N,OH,OW,C*mult] */
    int64_t h, w_, c, mult, oh, ow, kh, kw, sh, sw, dh, dw, ph, pw;
    lgk_clamp cl;
    int half;                    /* LG_PREC_F16 accumulation */
} lgk_dw_args;
LG_INTERNAL void lgk_cv_dw_rows(const lgk_dw_args *a, int64_t r0, int64_t r1);
/* The same loops at 16 lanes (k_conv_dw_avx512.c; x86-64 only): lgk_cv_dw_rows calls it when
   lgk_simd_avx512() and a->c * a->mult >= 16. Same bits. */
LG_INTERNAL void lgk_cv_dw_rows_avx512(const lgk_dw_args *a, int64_t r0, int64_t r1);

/* Pooling over output rows [r0, r1) of the flattened (batch * out_h) rows. */
typedef struct lgk_pool_args {
    const float *in;
    float *out;
    int64_t h, w_, c, oh, ow, fh, fw, sh, sw, ph, pw;
    lgk_clamp cl;
    int max;                     /* 1 max pool, 0 average pool */
    int half;                    /* LG_PREC_F16: the delegate's fp32 row-major sum (average pool) */
} lgk_pool_args;
LG_INTERNAL void lgk_cv_pool_rows(const lgk_pool_args *a, int64_t r0, int64_t r1);
/* The same at 16 lanes (k_conv_dw_avx512.c), when lgk_simd_avx512() and a->c >= 16. */
LG_INTERNAL void lgk_cv_pool_rows_avx512(const lgk_pool_args *a, int64_t r0, int64_t r1);

/* fp32 transposed conv over output rows [r0, r1) of the flattened (batch * out_h) rows as a
   gather (XNNPACK's arithmetic, see k_conv_tmpl_gemm.h); w: the weights [oc][kh][kw][ic]; wt the
   same as [kh*kw][ic][ocp] (ocp = lgk_cv_pad8(oc), zero padded); c4 selects the "c4" partial
   sums. */
typedef struct lgk_tconv_args {
    float *out;
    int64_t h, w_, ic, oc, oh, ow, kh, kw, sh, sw, ph, pw;
} lgk_tconv_args;
LG_INTERNAL void lgk_cv_tconv_rows(const lgk_tconv_args *a, const float *in, const float *w, const float *wt,
                                   int64_t ocp, const float *bias, lgk_clamp cl, int c4, int64_t r0, int64_t r1);

/* ---- kernels */
LG_INTERNAL lg_status lgk_conv2d_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_conv2d_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_tconv_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_tconv_bias_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_tconv_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_dwconv_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_dwconv_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_fc_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_fc_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_bmm_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_bmm_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_pool_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_pool_eval(lgk_node *n, lg_error *err);

#endif
