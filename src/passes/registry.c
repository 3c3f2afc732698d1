/* Every pass litegpu has, in the order `litegpu help` lists them. */
#include "passes/passes_impl.h"

static const lg_pass *const registry[] = {
    &lgp_fold_constants, &lgp_remove_identities, &lgp_merge_reshapes, &lgp_cancel_transposes,
    &lgp_remove_dead, &lgp_sink_transposes,
    &lgp_op_version_computed,
    &lgp_unfuse_activation, &lgp_transpose_conv_zerostuff, &lgp_transpose_conv_zerostuff_overlap, &lgp_padv2_maxpool_zero, &lgp_split_multi_axis_reduce, &lgp_pow_to_mul, &lgp_pow_exp_log, &lgp_strided_subsample_pool, &lgp_resize_align_corners, &lgp_mirror_pad_edges,
    &lgp_gather_const_to_slices, &lgp_squeeze_to_reshape, &lgp_pack_unpack_split, &lgp_broadcast_to_tile, &lgp_select_const_condition, &lgp_elu_select_free, &lgp_softmax_beta, &lgp_log_softmax, &lgp_relu_0_to_1, &lgp_int64_to_int32, &lgp_densify_const, &lgp_layerscale_into_fc, &lgp_fc_output_reshape,
    &lgp_harden_fp16, &lgp_harden_fp16_split,
    &lgp_reduce_rank,
    &lgp_gather_flatten_indices, &lgp_padv2_const_border,
    &lgp_distinct_operands, &lgp_broadcast_rank, &lgp_add_n_chain, &lgp_compare_per_consumer, &lgp_space_depth_batch1, &lgp_slice_plain, &lgp_pad_rank4,
};

uint32_t lg_pass_count(void) { return (uint32_t)(sizeof registry / sizeof registry[0]); }

const lg_pass *lg_pass_at(uint32_t i) { return i < lg_pass_count() ? registry[i] : NULL; }

const lg_pass *lg_pass_find(const char *name) {
    for (uint32_t i = 0; name && i < lg_pass_count(); i++)
        if (strcmp(registry[i]->name, name) == 0) return registry[i];
    return NULL;
}
