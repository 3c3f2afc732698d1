/* Shape family (internal): data-movement kernels shared across k_shape*.c.
 *
 * Every op of this family moves elements without arithmetic (except CUMSUM and RANGE, which
 * accumulate through lgk_add, and CONCATENATION's fused activation). Elements are copied by
 * their storage size (1, 2, 4 or 8 bytes), so each kernel serves every storage type. */
#ifndef LGI_RUN_K_SHAPE_H
#define LGI_RUN_K_SHAPE_H

#include "run/kernel.h"

/* Largest rank of the boxes lgks_copy walks (TILE doubles the rank). */
#define LGKS_BOX_MAX (2 * LG_MAX_RANK)

/* Copy an N-d box of elements: element (i0..ir-1) goes from src + sum(i_k * ss[k]) to
   dst + sum(i_k * ds[k]); strides are in bytes and may be 0 (broadcast) or negative.
   Dims that are contiguous in both are merged; a contiguous innermost run is one memcpy. */
LG_INTERNAL void lgks_copy(uint8_t *dst, const uint8_t *src, const int64_t *shape, const int64_t *ss,
                           const int64_t *ds, uint32_t rank, uint32_t es);
/* Fill n elements of es bytes with the element at val. */
LG_INTERNAL void lgks_fill(uint8_t *dst, int64_t n, const uint8_t *val, uint32_t es);
/* Row-major element strides of a shape (strides[rank-1] = 1). */
LG_INTERNAL void lgks_strides(const int32_t *shape, uint32_t rank, int64_t *strides);

/* Common input check: input i exists (unless optional) and holds data the kernels can read
   (a sparse or FLOAT64/BFLOAT16 constant is kept in its file form by the interpreter). */
LG_INTERNAL lg_status lgks_input(const lgk_node *n, uint32_t i, lg_error *err);
/* n_in in [lo, hi] and n_out in [olo, ohi], and every present input readable. */
LG_INTERNAL lg_status lgks_counts(const lgk_node *n, uint32_t lo, uint32_t hi, uint32_t olo, uint32_t ohi,
                                  lg_error *err);
/* The declared type of output o (storage) must be t, and for quantized integer types the
   quantization of output o must match that of input `in` (these ops never requantize). */
LG_INTERNAL lg_status lgks_out_like(const lgk_node *n, uint32_t o, const lgk_tensor *in, lg_error *err);
/* A constant integer scalar (or 1-element vector) input. */
LG_INTERNAL lg_status lgks_const_scalar(const lgk_node *n, uint32_t i, int64_t *v, lg_error *err);
/* Read element i of an index tensor (INT16/INT32/INT64/...). */
static inline int64_t lgks_idx(const uint8_t *p, lg_dtype t, int64_t i) {
    switch (t) {
    case LG_INT32: { int32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    case LG_INT64: { int64_t v; memcpy(&v, p + 8 * i, 8); return v; }
    case LG_INT16: { int16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case LG_UINT8: return p[i];
    case LG_INT8: return (int8_t)p[i];
    default: return 0;
    }
}
/* State of the ops whose output is computed at prepare (SHAPE, RANGE, WHERE, DENSIFY):
   lgks_state_eval copies it out. */
typedef struct lgks_blob {
    const void *data;
    uint64_t nbytes;
} lgks_blob;

/* "[1,2,3]" into buf. */
LG_INTERNAL const char *lgks_shape_str(char *buf, size_t size, const int32_t *shape, uint32_t rank);

/* ---- kernels (k_shape.c) */
LG_INTERNAL lg_status lgks_reshape_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_reshape_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_squeeze_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_expand_dims_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_copy_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_shape_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_state_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_fill_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_fill_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_range_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_where_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_cumsum_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_cumsum_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_one_hot_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_one_hot_eval(lgk_node *n, lg_error *err);

/* ---- k_shape_join.c: CONCATENATION, PACK, UNPACK, SPLIT, SPLIT_V */
LG_INTERNAL lg_status lgks_concat_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_pack_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_join_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_unpack_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_split_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_split_v_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_part_eval(lgk_node *n, lg_error *err);

/* ---- k_shape_box.c: ops that are one strided box copy */
LG_INTERNAL lg_status lgks_transpose_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_slice_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_strided_slice_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_tile_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_broadcast_to_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_reverse_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_space_to_depth_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_depth_to_space_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_box_eval(lgk_node *n, lg_error *err);

/* ---- k_shape_pad.c: PAD, PADV2, MIRROR_PAD */
LG_INTERNAL lg_status lgks_pad_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_pad_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_mirror_pad_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_mirror_pad_eval(lgk_node *n, lg_error *err);

/* ---- k_shape_gather.c: GATHER, GATHER_ND, EMBEDDING_LOOKUP */
LG_INTERNAL lg_status lgks_gather_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_gather_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_gather_nd_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_gather_nd_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_embedding_lookup_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgks_embedding_lookup_eval(lgk_node *n, lg_error *err);

/* ---- k_shape_densify.c */
LG_INTERNAL lg_status lgks_densify_prepare(lgk_node *n, lg_error *err);

#endif
