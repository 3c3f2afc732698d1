/* Internal to src/passes: the passes of the registry and the helpers they share. */
#ifndef LGI_PASSES_IMPL_H
#define LGI_PASSES_IMPL_H

#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "lg/ops.h"
#include "lg/passes.h"

extern const lg_pass lgp_fold_constants;
extern const lg_pass lgp_remove_identities;
extern const lg_pass lgp_merge_reshapes;
extern const lg_pass lgp_cancel_transposes;
extern const lg_pass lgp_remove_dead;
extern const lg_pass lgp_sink_transposes;
extern const lg_pass lgp_op_version_computed;
extern const lg_pass lgp_gather_flatten_indices, lgp_padv2_const_border;
extern const lg_pass lgp_unfuse_activation, lgp_transpose_conv_zerostuff, lgp_transpose_conv_zerostuff_overlap, lgp_padv2_maxpool_zero, lgp_split_multi_axis_reduce, lgp_pow_to_mul, lgp_pow_exp_log, lgp_strided_subsample_pool, lgp_resize_align_corners, lgp_mirror_pad_edges;
extern const lg_pass lgp_gather_const_to_slices, lgp_squeeze_to_reshape, lgp_pack_unpack_split, lgp_broadcast_to_tile, lgp_select_const_condition, lgp_elu_select_free, lgp_softmax_beta, lgp_log_softmax, lgp_relu_0_to_1, lgp_int64_to_int32, lgp_densify_const, lgp_layerscale_into_fc, lgp_fc_output_reshape;
extern const lg_pass lgp_harden_fp16, lgp_harden_fp16_split;
extern const lg_pass lgp_reduce_rank;
extern const lg_pass lgp_distinct_operands, lgp_broadcast_rank, lgp_add_n_chain, lgp_compare_per_consumer, lgp_space_depth_batch1, lgp_slice_plain, lgp_pad_rank4;

/* The op's builtin code (-1 if its opcode is bad). */
static inline int32_t lgp_code(const lg_pass_ctx *c, uint32_t op) {
    return lg_op_builtin(c->m, &c->m->subgraphs[c->sg].ops[op]);
}
static inline lg_op *lgp_op(const lg_pass_ctx *c, uint32_t op) {
    return &c->m->subgraphs[c->sg].ops[op];
}
static inline lg_tensor *lgp_tensor(const lg_pass_ctx *c, int32_t t) {
    return &c->m->subgraphs[c->sg].tensors[t];
}

/* Same type, same stored shape, same quantization. */
LG_INTERNAL bool lgp_same_layout(const lg_tensor *a, const lg_tensor *b);
/* Constant data of tensor t as float32 values (FLOAT32 / FLOAT16 constants), or false. */
LG_INTERNAL bool lgp_const_all_equal(const lg_pass_ctx *c, int32_t t, float v);
/* Constant INT32/INT64 values of t into out (at most max); false if not such a constant. */
LG_INTERNAL bool lgp_const_ints(const lg_pass_ctx *c, int32_t t, int64_t *out, uint32_t max,
                                uint32_t *n);

/* Remove op `op` whose output 0 carries the same value as tensor `in` (an identity):
   consumers of the output read `in` instead. When the output is a graph output, the op that
   produces `in` writes the output tensor directly (so the model's interface keeps its
   tensors and names) if `in` has no other use and is not itself a graph input or output;
   otherwise nothing changes and false is returned through *done. */
LG_INTERNAL lg_status lgp_bypass(lg_pass_ctx *c, const lg_graph *g, uint32_t op, int32_t in,
                                 bool *done);

/* The sign of t's values proven from its producers (range.c): no value below 0 (-0 and NaN
   may occur), or every value > 0 in real arithmetic (fp32 may round a tiny one to 0). */
LG_INTERNAL bool lgp_nonneg(const lg_pass_ctx *c, const lg_graph *g, int32_t t);
LG_INTERNAL bool lgp_positive(const lg_pass_ctx *c, const lg_graph *g, int32_t t);
/* Fold op i now, whatever fold-constants' policy says (its inputs must be constant): run it
   alone through the interpreter, its outputs become constants of their own types, the op is
   removed (a failure to run is a skip with a note). densify-const uses it for DENSIFY. */
LG_INTERNAL lg_status lgp_fold_op(lg_pass_ctx *c, uint32_t i);

/* Record a skip with a note. */
LG_INTERNAL void lgp_skip(lg_pass_ctx *c, const char *fmt, ...) LGI_PRINTF(2, 3);

#endif
