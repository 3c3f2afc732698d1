/* The rule-trigger models of `litegpu check`, built once for both of their users:
 *
 *   tests/unit/test_check_rules.c     asserts, rule by rule, what lg_check_model reports on
 *                                     each model (LGM_IO_ANY);
 *   tests/tools/make_rule_models.c    writes the LGM_DELEGATE models as .tflite files for
 *                                     tests/e2e/test_check_vs_delegate.sh, which runs them
 *                                     through the real ML Drift delegate (LGM_IO_LITERT).
 *
 * One function per model, lgm_<rule>_<variant>(b, io), adds the model to an empty builder.
 * Names follow the ML Drift target: a trigger is a model on which `check --target mldrift`
 * reports the rule, a near-miss a close one it must not report (the unit test asserts the
 * classic target's outcome on the same models as well). Every constant holds real data (a
 * small fixed ramp, lgm_ramp_f32), so the delegate computes something meaningful.
 *
 * io says where the two users differ: LiteRT.js feeds and reads only float32 and int32 graph
 * inputs and outputs, so with LGM_IO_LITERT a FLOAT16, INT8, BOOL or INT64 tensor is made
 * inside the graph (CAST, QUANTIZE/DEQUANTIZE, GREATER) and read back through a CAST or a
 * DEQUANTIZE; with LGM_IO_ANY the op under test reads and writes the graph I/O directly (so
 * the op the finding names is op 0 and no conversion op adds findings of its own). Models
 * whose I/O is already float32/int32 ignore io.
 *
 * Shapes: every stored output shape is the one TFLite's kernel Prepare computes (and
 * lg_model_validate_ops infers; tests/unit/test_rule_models.c checks it), except in the
 * models flagged LGM_INVALID: triggers of rules that can only fire on a model TFLite itself
 * refuses (non-broadcastable ADD, LOGISTIC with 2 inputs, stride 0, axis 4 of a rank-4
 * tensor...). Their comments say what TFLite refuses; the delegate's verdict on them is the
 * failed compile.
 *
 * Include as "../models/rule_models.h"; link tests/models/rule_models*.c. */
#ifndef LG_TESTS_RULE_MODELS_H
#define LG_TESTS_RULE_MODELS_H
#include <stddef.h>
#include <stdint.h>

#include "lg/lg.h"

typedef enum lgm_io {
    LGM_IO_ANY = 0,    /* graph I/O of any type (the unit tests) */
    LGM_IO_LITERT = 1  /* float32/int32 graph I/O only (the delegate run) */
} lgm_io;

typedef void (*lgm_build_fn)(lg_builder *b, lgm_io io);

enum {
    LGM_DELEGATE = 1u << 0, /* written by make_rule_models for the delegate run */
    LGM_INVALID = 1u << 1   /* a model TFLite refuses (see above): not shape-checked */
};

/* X(fn, rule, variant, flags, check_args): every model of the library, the delegate's in
   the order of its manifest. check_args: extra `litegpu check` arguments, or NULL. */
#define LGM_MODELS(X)                                                                          \
    X(op_unsupported_trigger, "op-unsupported", "trigger", LGM_DELEGATE, NULL)                 \
    X(op_unsupported_trigger2, "op-unsupported", "trigger2", LGM_DELEGATE, NULL)               \
    X(op_unsupported_trigger3, "op-unsupported", "trigger3", LGM_DELEGATE, NULL)               \
    X(op_unsupported_nearmiss, "op-unsupported", "nearmiss", LGM_DELEGATE, NULL)               \
    X(op_unsupported_nearmiss2, "op-unsupported", "nearmiss2", LGM_DELEGATE, NULL)             \
    X(op_unsupported_nearmiss3, "op-unsupported", "nearmiss3", LGM_DELEGATE, NULL)             \
    X(op_no_compat_case_trigger, "op-no-compat-case", "trigger", LGM_DELEGATE, NULL)           \
    X(op_no_compat_case_trigger2, "op-no-compat-case", "trigger2", LGM_DELEGATE, NULL)         \
    X(op_no_compat_case_nearmiss, "op-no-compat-case", "nearmiss", LGM_DELEGATE, NULL)         \
    X(custom_op_unsupported_trigger, "custom-op-unsupported", "trigger", LGM_DELEGATE, NULL)   \
    X(custom_op_unsupported_nearmiss, "custom-op-unsupported", "nearmiss", LGM_DELEGATE, NULL) \
    X(custom_op_unsupported_nearmiss2, "custom-op-unsupported", "nearmiss2", 0, NULL)          \
    X(op_version_trigger, "op-version", "trigger", LGM_DELEGATE, NULL)                         \
    X(op_version_trigger2, "op-version", "trigger2", LGM_DELEGATE, NULL)                       \
    X(op_version_nearmiss, "op-version", "nearmiss", LGM_DELEGATE, NULL)                       \
    X(op_version_nearmiss2, "op-version", "nearmiss2", LGM_DELEGATE, NULL)                     \
    X(op_version_nearmiss3, "op-version", "nearmiss3", LGM_DELEGATE, NULL)                     \
    X(op_version_nearmiss4, "op-version", "nearmiss4", 0, NULL)                                \
    X(tensor_rank_trigger, "tensor-rank", "trigger", LGM_DELEGATE, NULL)                       \
    X(tensor_rank_nearmiss, "tensor-rank", "nearmiss", LGM_DELEGATE, NULL)                     \
    X(tensor_dtype_trigger, "tensor-dtype", "trigger", LGM_DELEGATE, NULL)                     \
    X(tensor_dtype_nearmiss, "tensor-dtype", "nearmiss", LGM_DELEGATE, NULL)                   \
    X(tensor_dtype_nearmiss2, "tensor-dtype", "nearmiss2", LGM_DELEGATE, NULL)                 \
    X(quant_per_channel_runtime_trigger, "quant-per-channel-runtime", "trigger", LGM_DELEGATE, NULL)     \
    X(quant_per_channel_runtime_nearmiss, "quant-per-channel-runtime", "nearmiss", LGM_DELEGATE, NULL)   \
    X(quant_per_channel_runtime_nearmiss2, "quant-per-channel-runtime", "nearmiss2", LGM_DELEGATE, NULL) \
    X(fused_activation_trigger, "fused-activation", "trigger", LGM_DELEGATE, NULL)             \
    X(fused_activation_nearmiss, "fused-activation", "nearmiss", LGM_DELEGATE, NULL)           \
    X(fused_activation_nearmiss2, "fused-activation", "nearmiss2", LGM_DELEGATE, NULL)         \
    X(fused_activation_nearmiss3, "fused-activation", "nearmiss3", LGM_DELEGATE, NULL)         \
    X(fused_activation_nearmiss4, "fused-activation", "nearmiss4", LGM_DELEGATE, NULL)         \
    X(fused_activation_nearmiss5, "fused-activation", "nearmiss5", LGM_DELEGATE, NULL)         \
    X(broadcast_trigger, "broadcast", "trigger", LGM_DELEGATE | LGM_INVALID, NULL)             \
    X(broadcast_trigger2, "broadcast", "trigger2", LGM_DELEGATE | LGM_INVALID, NULL)           \
    X(broadcast_nearmiss, "broadcast", "nearmiss", LGM_DELEGATE, NULL)                         \
    X(broadcast_nearmiss2, "broadcast", "nearmiss2", LGM_DELEGATE, NULL)                       \
    X(broadcast_nearmiss3, "broadcast", "nearmiss3", LGM_DELEGATE, NULL)                       \
    X(broadcast_nearmiss4, "broadcast", "nearmiss4", LGM_DELEGATE, NULL)                       \
    X(broadcast_nearmiss5, "broadcast", "nearmiss5", LGM_DELEGATE, NULL)                       \
    X(broadcast_nearmiss6, "broadcast", "nearmiss6", LGM_DELEGATE, NULL)                       \
    X(input_count_trigger, "input-count", "trigger", LGM_DELEGATE | LGM_INVALID, NULL)         \
    X(input_count_trigger2, "input-count", "trigger2", LGM_DELEGATE, NULL)                     \
    X(input_count_nearmiss, "input-count", "nearmiss", LGM_DELEGATE, NULL)                     \
    X(input_count_nearmiss2, "input-count", "nearmiss2", LGM_DELEGATE, NULL)                   \
    X(input_count_nearmiss3, "input-count", "nearmiss3", LGM_DELEGATE, NULL)                   \
    X(input_count_trigger3, "input-count", "trigger3", LGM_DELEGATE, NULL)                     \
    X(input_count_nearmiss4, "input-count", "nearmiss4", LGM_DELEGATE, NULL)                   \
    X(const_axes_trigger, "const-axes", "trigger", LGM_DELEGATE, NULL)                         \
    X(const_axes_trigger2, "const-axes", "trigger2", LGM_DELEGATE, NULL)                       \
    X(const_axes_nearmiss, "const-axes", "nearmiss", LGM_DELEGATE, NULL)                       \
    X(dynamic_tensor_trigger, "dynamic-tensor", "trigger", LGM_DELEGATE, NULL)                 \
    X(dynamic_tensor_trigger2, "dynamic-tensor", "trigger2", LGM_DELEGATE, NULL)               \
    X(dynamic_tensor_nearmiss, "dynamic-tensor", "nearmiss", LGM_DELEGATE, NULL)               \
    X(dynamic_tensor_nearmiss2, "dynamic-tensor", "nearmiss2", LGM_DELEGATE, NULL)             \
    X(dynamic_input_trigger, "dynamic-input", "trigger", LGM_DELEGATE, NULL)                   \
    X(dynamic_input_nearmiss, "dynamic-input", "nearmiss", LGM_DELEGATE, NULL)                 \
    X(identical_inputs_trigger, "identical-inputs", "trigger", LGM_DELEGATE, NULL)             \
    X(identical_inputs_trigger2, "identical-inputs", "trigger2", LGM_DELEGATE, NULL)           \
    X(identical_inputs_nearmiss, "identical-inputs", "nearmiss", LGM_DELEGATE, NULL)           \
    X(identical_inputs_nearmiss2, "identical-inputs", "nearmiss2", LGM_DELEGATE, NULL)         \
    X(identical_inputs_nearmiss3, "identical-inputs", "nearmiss3", LGM_DELEGATE, NULL)         \
    X(identical_inputs_trigger3, "identical-inputs", "trigger3", LGM_DELEGATE, NULL)           \
    X(identical_inputs_nearmiss4, "identical-inputs", "nearmiss4", LGM_DELEGATE, NULL)         \
    X(op_params_trigger, "op-params", "trigger", LGM_DELEGATE, NULL)                           \
    X(op_params_trigger2, "op-params", "trigger2", LGM_DELEGATE | LGM_INVALID, NULL)           \
    X(op_params_trigger3, "op-params", "trigger3", LGM_DELEGATE, NULL)                         \
    X(op_params_nearmiss, "op-params", "nearmiss", LGM_DELEGATE, NULL)                         \
    X(op_params_nearmiss2, "op-params", "nearmiss2", LGM_DELEGATE, NULL)                       \
    X(op_params_nearmiss3, "op-params", "nearmiss3", LGM_DELEGATE, NULL)                       \
    X(op_params_nearmiss4, "op-params", "nearmiss4", LGM_DELEGATE, NULL)                       \
    X(resize_flags_trigger, "resize-flags", "trigger", LGM_DELEGATE, NULL)                     \
    X(resize_flags_nearmiss, "resize-flags", "nearmiss", LGM_DELEGATE, NULL)                   \
    X(strided_slice_masks_trigger, "strided-slice-masks", "trigger", LGM_DELEGATE, NULL)       \
    X(strided_slice_masks_trigger2, "strided-slice-masks", "trigger2", LGM_DELEGATE, NULL)     \
    X(strided_slice_masks_trigger3, "strided-slice-masks", "trigger3", LGM_DELEGATE, NULL)     \
    X(strided_slice_masks_nearmiss, "strided-slice-masks", "nearmiss", LGM_DELEGATE, NULL)     \
    X(strided_slice_reverse_trigger, "strided-slice-reverse", "trigger", LGM_DELEGATE, NULL)   \
    X(strided_slice_reverse_trigger2, "strided-slice-reverse", "trigger2", LGM_DELEGATE, NULL) \
    X(strided_slice_reverse_nearmiss, "strided-slice-reverse", "nearmiss", LGM_DELEGATE, NULL) \
    X(slice_rank_trigger, "slice-rank", "trigger", LGM_DELEGATE, NULL)                         \
    X(slice_rank_trigger2, "slice-rank", "trigger2", LGM_DELEGATE, NULL)                       \
    X(slice_rank_nearmiss, "slice-rank", "nearmiss", LGM_DELEGATE, NULL)                       \
    X(slice_rank_nearmiss2, "slice-rank", "nearmiss2", LGM_DELEGATE, NULL)                     \
    X(slice_rank_nearmiss3, "slice-rank", "nearmiss3", LGM_DELEGATE, NULL)                     \
    X(slice_rank_nearmiss4, "slice-rank", "nearmiss4", LGM_DELEGATE, NULL)                     \
    X(slice_rank_nearmiss5, "slice-rank", "nearmiss5", LGM_DELEGATE, NULL)                     \
    X(slice_rank_nearmiss6, "slice-rank", "nearmiss6", LGM_DELEGATE, NULL)                     \
    X(transpose_perm_trigger, "transpose-perm", "trigger", LGM_DELEGATE, NULL)                 \
    X(transpose_perm_nearmiss, "transpose-perm", "nearmiss", LGM_DELEGATE, NULL)               \
    X(softmax_beta_trigger, "softmax-beta", "trigger", LGM_DELEGATE, NULL)                     \
    X(softmax_beta_nearmiss, "softmax-beta", "nearmiss", LGM_DELEGATE, NULL)                   \
    X(depthwise_shape_trigger, "depthwise-shape", "trigger", LGM_DELEGATE, NULL)               \
    X(depthwise_shape_nearmiss, "depthwise-shape", "nearmiss", LGM_DELEGATE, NULL)             \
    X(mirror_pad_mode_trigger, "mirror-pad-mode", "trigger", LGM_DELEGATE, NULL)               \
    X(mirror_pad_mode_nearmiss, "mirror-pad-mode", "nearmiss", LGM_DELEGATE, NULL)             \
    X(pad_shape_trigger, "pad-shape", "trigger", LGM_DELEGATE, NULL)                           \
    X(pad_shape_trigger2, "pad-shape", "trigger2", LGM_DELEGATE, NULL)                         \
    X(pad_shape_nearmiss, "pad-shape", "nearmiss", LGM_DELEGATE, NULL)                         \
    X(pad_shape_nearmiss2, "pad-shape", "nearmiss2", LGM_DELEGATE, NULL)                       \
    X(reduce_axes_trigger, "reduce-axes", "trigger", LGM_DELEGATE | LGM_INVALID, NULL)         \
    X(reduce_axes_nearmiss, "reduce-axes", "nearmiss", LGM_DELEGATE, NULL)                     \
    X(mali_transpose_conv_trigger, "mali-transpose-conv", "trigger", LGM_DELEGATE, NULL)       \
    X(mali_transpose_conv_trigger2, "mali-transpose-conv", "trigger2", LGM_DELEGATE, NULL)     \
    X(mali_transpose_conv_nearmiss, "mali-transpose-conv", "nearmiss", LGM_DELEGATE, NULL)     \
    X(const_only_inputs_trigger, "const-only-inputs", "trigger", LGM_DELEGATE, NULL)           \
    X(const_only_inputs_nearmiss, "const-only-inputs", "nearmiss", LGM_DELEGATE, NULL)         \
    X(padv2_nonzero_trigger, "padv2-nonzero", "trigger", LGM_DELEGATE, NULL)                   \
    X(padv2_nonzero_nearmiss, "padv2-nonzero", "nearmiss", LGM_DELEGATE, NULL)                 \
    X(large_multi_axis_reduce_trigger, "large-multi-axis-reduce", "trigger", LGM_DELEGATE, NULL)     \
    X(large_multi_axis_reduce_trigger2, "large-multi-axis-reduce", "trigger2", LGM_DELEGATE, NULL)   \
    X(large_multi_axis_reduce_nearmiss, "large-multi-axis-reduce", "nearmiss", LGM_DELEGATE, NULL)   \
    X(large_multi_axis_reduce_nearmiss2, "large-multi-axis-reduce", "nearmiss2", LGM_DELEGATE, NULL) \
    X(large_multi_axis_reduce_nearmiss3, "large-multi-axis-reduce", "nearmiss3", LGM_DELEGATE, NULL) \
    X(large_multi_axis_reduce_nearmiss4, "large-multi-axis-reduce", "nearmiss4", LGM_DELEGATE, NULL) \
    X(fc_2d_broadcast_trigger, "fc-2d-broadcast", "trigger", LGM_DELEGATE, NULL)               \
    X(fc_2d_broadcast_nearmiss, "fc-2d-broadcast", "nearmiss", LGM_DELEGATE, NULL)             \
    X(resize_align_corners_trigger, "resize-align-corners", "trigger", LGM_DELEGATE, NULL)     \
    X(resize_align_corners_nearmiss, "resize-align-corners", "nearmiss", LGM_DELEGATE, NULL)   \
    X(graph_size_trigger, "graph-size", "trigger", LGM_DELEGATE, "--max-gpu-ops 4")            \
    X(graph_size_trigger2, "graph-size", "trigger2", 0, "--max-gpu-ops 4")                     \
    X(graph_size_nearmiss, "graph-size", "nearmiss", LGM_DELEGATE, NULL)                       \
    X(cast_types_nearmiss, "cast-types", "nearmiss", LGM_DELEGATE, NULL)                       \
    X(cast_types_nearmiss2, "cast-types", "nearmiss2", LGM_DELEGATE, NULL)                     \
    X(cast_types_nearmiss3, "cast-types", "nearmiss3", LGM_DELEGATE, NULL)                     \
    X(cast_types_nearmiss4, "cast-types", "nearmiss4", 0, NULL)                                \
    X(cast_types_nearmiss5, "cast-types", "nearmiss5", 0, NULL)                                \
    X(compare_consumer_nearmiss, "compare-consumer", "nearmiss", LGM_DELEGATE, NULL)           \
    X(compare_consumer_nearmiss2, "compare-consumer", "nearmiss2", 0, NULL)                    \
    X(compare_consumer_nearmiss3, "compare-consumer", "nearmiss3", 0, NULL)                    \
    X(int64_tensor_trigger, "int64-tensor", "trigger", LGM_DELEGATE, NULL)                     \
    X(int64_tensor_nearmiss, "int64-tensor", "nearmiss", LGM_DELEGATE, NULL)                   \
    X(gather_const_indices_trigger, "gather-const-indices", "trigger", LGM_DELEGATE, NULL)     \
    X(gather_const_indices_trigger2, "gather-const-indices", "trigger2", LGM_DELEGATE, NULL)   \
    X(gather_const_indices_trigger3, "gather-const-indices", "trigger3", LGM_DELEGATE, NULL)   \
    X(gather_const_indices_nearmiss, "gather-const-indices", "nearmiss", LGM_DELEGATE, NULL)   \
    X(gather_const_indices_nearmiss2, "gather-const-indices", "nearmiss2", LGM_DELEGATE, NULL) \
    X(field_banned_op_trigger, "field-banned-op", "trigger", LGM_DELEGATE, NULL)               \
    X(field_banned_op_trigger2, "field-banned-op", "trigger2", LGM_DELEGATE, NULL)             \
    X(field_banned_op_trigger3, "field-banned-op", "trigger3", LGM_DELEGATE, NULL)             \
    X(field_banned_op_nearmiss, "field-banned-op", "nearmiss", LGM_DELEGATE, NULL)             \
    X(webgpu_pad_layout_trigger, "webgpu-pad-layout", "trigger", 0, NULL)                      \
    X(webgpu_pad_layout_trigger2, "webgpu-pad-layout", "trigger2", 0, NULL)                    \
    X(webgpu_pad_layout_nearmiss, "webgpu-pad-layout", "nearmiss", 0, NULL)                    \
    X(webgpu_space_depth_batch_trigger, "webgpu-space-depth-batch", "trigger", LGM_DELEGATE, NULL)     \
    X(webgpu_space_depth_batch_trigger2, "webgpu-space-depth-batch", "trigger2", LGM_DELEGATE, NULL)   \
    X(webgpu_space_depth_batch_nearmiss, "webgpu-space-depth-batch", "nearmiss", LGM_DELEGATE, NULL)   \
    X(webgpu_space_depth_batch_nearmiss2, "webgpu-space-depth-batch", "nearmiss2", LGM_DELEGATE, NULL) \
    X(clean_cnn, "", "clean", 0, NULL)                                                         \
    X(dequantize_int8_conv, "", "dequantize-int8", 0, NULL)                                    \
    X(fp16_layernorm, "", "fp16-layernorm", 0, NULL)

#define LGM_DECLARE_(fn, rule, variant, flags, args) void lgm_##fn(lg_builder *b, lgm_io io);
LGM_MODELS(LGM_DECLARE_)
#undef LGM_DECLARE_

/* The table of LGM_MODELS. */
typedef struct lgm_case {
    const char *name;       /* the function's name without lgm_ */
    const char *rule;       /* rule id ("" for the models that serve no one rule) */
    const char *variant;    /* trigger, trigger2, nearmiss, ... */
    unsigned flags;         /* LGM_DELEGATE, LGM_INVALID */
    const char *check_args; /* extra `litegpu check` arguments, or NULL */
    lgm_build_fn build;
} lgm_case;

extern const lgm_case lgm_cases[];
extern const size_t lgm_n_cases;

/* A new model built by fn; NULL (err filled) when the model or the builder failed. */
lg_model *lgm_build(lgm_build_fn fn, lgm_io io, lg_error *err);

/* The constant data: 4096 values (k * 37 mod 17 - 8) / 64, as float32 and FLOAT16 bits. */
enum { LGM_RAMP_N = 4096 };
const float *lgm_ramp_f32(void);
const uint16_t *lgm_ramp_f16(void);
#endif
