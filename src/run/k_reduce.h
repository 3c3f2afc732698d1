/* The reduce kernel family (internal): reductions (MEAN, SUM, REDUCE_*), ARG_MAX/ARG_MIN,
 * TOPK_V2 (k_reduce.c; SUM and MEAN in LG_PREC_F16 in k_reduce_half.c); row normalizations SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION,
 * LOCAL_RESPONSE_NORMALIZATION (k_reduce_norm.c); RESIZE_BILINEAR and
 * RESIZE_NEAREST_NEIGHBOR (k_reduce_resize.c). The table lgk_reduce_kernels lives in
 * k_reduce.c. */
#ifndef LGI_RUN_K_REDUCE_H
#define LGI_RUN_K_REDUCE_H

#include "run/kernel.h"

/* The op's options struct if the op carries options of that kind, else NULL (TFLite then
   uses zeroed defaults, and so do we). */
static inline const void *lgk_red_opts(const lgk_node *n, lg_opts_kind kind) {
    return n->opts && n->op && n->op->opts_kind == kind ? n->opts : NULL;
}

/* for (i = 0; i < n; i++) BODY, written as blocks of 8 with a fixed trip count plus a tail so
   that GCC's -O2 (very-cheap) vectorizer takes it; use with restrict pointers. Same order of
   operations per element as the plain loop. */
#define LGK_RED_LOOP(n, BODY)                                                                  \
    do {                                                                                       \
        const int64_t n_ = (n);                                                                \
        int64_t b_ = 0;                                                                        \
        for (; b_ + 8 <= n_; b_ += 8)                                                          \
            for (int j_ = 0; j_ < 8; j_++) {                                                   \
                const int64_t i = b_ + j_;                                                     \
                BODY;                                                                          \
            }                                                                                  \
        for (int64_t i = b_; i < n_; i++) { BODY; }                                            \
    } while (0)

/* Check the op has exactly n_in inputs and n_out outputs, all present. */
LG_INTERNAL lg_status lgk_red_arity(const lgk_node *n, uint32_t n_in, uint32_t n_out, lg_error *err);
/* Fail (LG_ERR_FORMAT) if a dimension of tensor t is negative (unresolved dynamic shape). */
LG_INTERNAL lg_status lgk_red_static_shape(const lgk_node *n, const lgk_tensor *t, lg_error *err);
/* Check that output o is declared with a type whose storage type is want. */
LG_INTERNAL lg_status lgk_red_out_type(const lgk_node *n, uint32_t o, lg_dtype want, lg_error *err);

/* k_reduce_half.c: SUM and MEAN in LG_PREC_F16, the GPU delegate's reduce kernel with half
   accumulators (see that file). */
#define LGK_RED_HALF_MAX_WG 64
typedef struct lgk_red_half {
    int64_t n;                    /* elements folded into each output */
    int64_t wg;                   /* threads of the work group (1: one thread, no tree) */
    int64_t c;                    /* channels when the channel axis is reduced, else 0 */
    int mean;
    uint32_t rank;
    int32_t shape[LG_MAX_RANK];
    uint8_t reduced[LG_MAX_RANK];
} lgk_red_half;
LG_INTERNAL void lgk_red_half_plan(lgk_red_half *p, const int32_t *shape, uint32_t rank, const uint8_t *reduced,
                                   int mean);
/* y[o] for every output o (row-major over the kept dims); rel: scratch of p->n int64. */
LG_INTERNAL void lgk_red_half_eval(const lgk_red_half *p, const float *x, float *y, int64_t *rel);

/* k_reduce_norm.c */
LG_INTERNAL lg_status lgk_softmax_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_softmax_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_log_softmax_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_log_softmax_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_l2norm_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_l2norm_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_lrn_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_lrn_eval(lgk_node *n, lg_error *err);

/* k_reduce_resize.c */
LG_INTERNAL lg_status lgk_resize_bilinear_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_resize_bilinear_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_resize_nearest_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_resize_nearest_eval(lgk_node *n, lg_error *err);

#endif
