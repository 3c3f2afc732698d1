/* Infer functions of the shape rows (src/ops/infer_shape.c: reshaping, slicing, gathering,
 * joining and splitting; src/ops/infer_shape_more.c: padding, tiling, broadcasting, shape
 * producers, scatter/segment ops, space/depth rearrangements, bitcast, dilate).
 *
 * The small static helpers below are shared by those two files only. */
#ifndef LGI_INFER_SHAPE_H
#define LGI_INFER_SHAPE_H
#include "ops/ops_impl.h"

/* Room for the values of a constant index/shape input (a shape, a permutation, paddings). */
#define LGIS_MAXV 64

/* Input i's shape; unknown rank for an absent input. */
static inline lg_shape lgis_in(const lg_infer_ctx *c, uint32_t i) {
    return lgo_has(c, i) ? c->in[i].shape : lgo_unknown();
}

/* Set output o when the op has it. */
static inline void lgis_set(lg_infer_ctx *c, uint32_t o, lg_shape s) {
    if (o < c->n_out) c->out[o] = s;
}

/* Number of values a 1-D (or scalar) index input holds according to its shape: -1 when the
   rank or the length is unknown. */
static inline int32_t lgis_len(const lg_infer_ctx *c, uint32_t i) {
    lg_shape s = lgis_in(c, i);
    if (s.rank == 0) return 1;
    if (s.rank != 1) return -1;
    return s.dim[0];
}

/* Constant integer values of input i (at most LGIS_MAXV): 1 when known, 0 when not
   constant; a malformed constant is an error through *st. */
static inline int lgis_ints(const lg_infer_ctx *c, uint32_t i, int64_t *v, uint32_t *n,
                            lg_status *st) {
    return lgo_const_ints(c, i, v, LGIS_MAXV, n, st);
}

/* Shape producers, reshaping, slicing, gathering, joining (infer_shape.c) */
LG_INTERNAL lg_status lgis_reshape(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_squeeze(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_expand_dims(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_transpose(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_strided_slice(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_slice(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_gather(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_gather_nd(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_concat(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_pack(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_unpack(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_split(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_split_v(lg_infer_ctx *c);

/* infer_shape_more.c */
LG_INTERNAL lg_status lgis_pad(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_tile(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_broadcast_to(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_broadcast_args(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_shape(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_rank(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_fill(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_range(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_where(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_one_hot(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_same(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_topk(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_unique(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_sparse_to_dense(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_scatter_nd(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_embedding_lookup(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_depth_to_space(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_space_to_depth(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_batch_to_space(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_space_to_batch(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_matrix_diag(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_segment_sum(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_unsorted_segment(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_dynamic_update_slice(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_bitcast(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_bucketize(lg_infer_ctx *c);
LG_INTERNAL lg_status lgis_dilate(lg_infer_ctx *c);

#endif
