/* Infer functions of the elementwise rows (src/ops/infer_elementwise.c): elementwise.def
   (arithmetic, activations, comparisons, selection, casts, quantization, normalization,
   reductions) and stablehlo.def. */
#ifndef LGI_INFER_ELEMENTWISE_H
#define LGI_INFER_ELEMENTWISE_H
#include "ops/ops_impl.h"

/* ---- TFLite builtins (elementwise.def) */
LG_INTERNAL lg_status lgo_ew_unary(lg_infer_ctx *c);        /* output = input 0 */
LG_INTERNAL lg_status lgo_ew_binary(lg_infer_ctx *c);       /* lgo_broadcast(in0, in1) */
LG_INTERNAL lg_status lgo_ew_prelu(lg_infer_ctx *c);        /* broadcast, = input's shape */
LG_INTERNAL lg_status lgo_ew_add_n(lg_infer_ctx *c);        /* all inputs one shape */
LG_INTERNAL lg_status lgo_ew_select(lg_infer_ctx *c);       /* SELECT (v1) */
LG_INTERNAL lg_status lgo_ew_select_v2(lg_infer_ctx *c);    /* three-way broadcast */
LG_INTERNAL lg_status lgo_ew_cast(lg_infer_ctx *c);         /* shape; type from options */
LG_INTERNAL lg_status lgo_ew_complex(lg_infer_ctx *c);      /* IMAG, REAL, COMPLEX_ABS */
LG_INTERNAL lg_status lgo_ew_softmax(lg_infer_ctx *c);      /* rank >= 1 */
LG_INTERNAL lg_status lgo_ew_lrn(lg_infer_ctx *c);          /* rank 4 */
LG_INTERNAL lg_status lgo_ew_reduce(lg_infer_ctx *c);       /* MEAN, SUM, REDUCE_* */
LG_INTERNAL lg_status lgo_ew_arg_minmax(lg_infer_ctx *c);   /* ARG_MAX, ARG_MIN */
LG_INTERNAL lg_status lgo_ew_cumsum(lg_infer_ctx *c);

/* ---- STABLEHLO_* (stablehlo.def) */
LG_INTERNAL lg_status lgo_hlo_same(lg_infer_ctx *c);        /* every input one shape */
LG_INTERNAL lg_status lgo_hlo_clamp(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_select(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_first(lg_infer_ctx *c);       /* output 0 = input 0 */
LG_INTERNAL lg_status lgo_hlo_reshape(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_transpose(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_concatenate(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_broadcast_in_dim(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_slice(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_pad(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_iota(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_dot_general(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_dynamic_slice(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_scatter(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_reduce(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_sort(lg_infer_ctx *c);
LG_INTERNAL lg_status lgo_hlo_rng_bit_generator(lg_infer_ctx *c);

#endif
