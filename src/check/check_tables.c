/* What each GPU delegate takes, as constant tables: the op lists of its parser and of the
 * shared compatibility check, the max op versions, the dtypes of runtime tensors, the
 * custom ops and composites, and the fix to suggest for an op no parser takes. Read-only
 * data only: concurrent lg_check_model calls share it safely.
 */
#include <string.h>

#include "check/check_impl.h"

/* ------------------------------------------------------------------ op sets */

/* gpu_compatibility.cc case labels (97, CUSTOM included). */
static const int32_t compat_ops[] = {
    LG_OP_ABS, LG_OP_ADD, LG_OP_ADD_N, LG_OP_ATAN2, LG_OP_AVERAGE_POOL_2D, LG_OP_BATCH_MATMUL,
    LG_OP_BITCAST, LG_OP_CAST, LG_OP_CEIL, LG_OP_CONCATENATION, LG_OP_CONV_2D, LG_OP_COS,
    LG_OP_CUMSUM, LG_OP_CUSTOM, LG_OP_DENSIFY, LG_OP_DEPTHWISE_CONV_2D, LG_OP_DEPTH_TO_SPACE,
    LG_OP_DEQUANTIZE, LG_OP_DIV, LG_OP_DYNAMIC_UPDATE_SLICE, LG_OP_ELU, LG_OP_EMBEDDING_LOOKUP,
    LG_OP_EQUAL, LG_OP_EXP, LG_OP_FLOOR, LG_OP_FLOOR_DIV, LG_OP_FLOOR_MOD, LG_OP_FULLY_CONNECTED,
    LG_OP_GATHER, LG_OP_GELU, LG_OP_GREATER, LG_OP_GREATER_EQUAL, LG_OP_HARD_SWISH,
    LG_OP_LEAKY_RELU, LG_OP_LESS, LG_OP_LESS_EQUAL, LG_OP_LOG, LG_OP_LOGICAL_AND,
    LG_OP_LOGICAL_NOT, LG_OP_LOGICAL_OR, LG_OP_LOGISTIC, LG_OP_LSTM, LG_OP_MAXIMUM,
    LG_OP_MAX_POOL_2D, LG_OP_MEAN, LG_OP_MINIMUM, LG_OP_MIRROR_PAD, LG_OP_MUL, LG_OP_NEG,
    LG_OP_NOT_EQUAL, LG_OP_ONE_HOT, LG_OP_PACK, LG_OP_PAD, LG_OP_PADV2, LG_OP_POW, LG_OP_PRELU,
    LG_OP_QUANTIZE, LG_OP_REDUCE_ALL, LG_OP_REDUCE_ANY, LG_OP_REDUCE_MAX, LG_OP_REDUCE_MIN,
    LG_OP_REDUCE_PROD, LG_OP_RELU, LG_OP_RELU6, LG_OP_RELU_N1_TO_1, LG_OP_RESHAPE,
    LG_OP_RESIZE_BILINEAR, LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_OP_REVERSE_V2, LG_OP_RIGHT_SHIFT,
    LG_OP_ROUND, LG_OP_RSQRT, LG_OP_SELECT, LG_OP_SELECT_V2, LG_OP_SIGN, LG_OP_SIN, LG_OP_SLICE,
    LG_OP_SOFTMAX, LG_OP_SPACE_TO_DEPTH, LG_OP_SPLIT, LG_OP_SPLIT_V, LG_OP_SQRT, LG_OP_SQUARE,
    LG_OP_SQUARED_DIFFERENCE, LG_OP_STABLEHLO_BROADCAST_IN_DIM, LG_OP_STABLEHLO_CBRT,
    LG_OP_STABLEHLO_CLAMP, LG_OP_STABLEHLO_REMAINDER, LG_OP_STABLEHLO_SHIFT_LEFT,
    LG_OP_STRIDED_SLICE, LG_OP_SUB, LG_OP_SUM, LG_OP_TANH, LG_OP_TILE, LG_OP_TOPK_V2,
    LG_OP_TRANSPOSE, LG_OP_TRANSPOSE_CONV,
};
/* The classic parser: compat minus these, plus RELU_0_TO_1 and UNPACK (81 codes). */
static const int32_t classic_minus[] = {
    LG_OP_ATAN2, LG_OP_BITCAST, LG_OP_CEIL, LG_OP_DYNAMIC_UPDATE_SLICE, LG_OP_EMBEDDING_LOOKUP,
    LG_OP_LOGICAL_NOT, LG_OP_LOGICAL_OR, LG_OP_REDUCE_ALL, LG_OP_REDUCE_ANY, LG_OP_REVERSE_V2,
    LG_OP_RIGHT_SHIFT, LG_OP_ROUND, LG_OP_STABLEHLO_BROADCAST_IN_DIM, LG_OP_STABLEHLO_CBRT,
    LG_OP_STABLEHLO_CLAMP, LG_OP_STABLEHLO_REMAINDER, LG_OP_STABLEHLO_SHIFT_LEFT, LG_OP_TOPK_V2,
};
/* ML Drift: compat minus DENSIFY, plus these (100 codes + STABLEHLO_COMPOSITE). */
static const int32_t mldrift_plus[] = {
    LG_OP_ARG_MAX, LG_OP_BITWISE_XOR, LG_OP_RELU_0_TO_1, LG_OP_UNPACK, LG_OP_STABLEHLO_COMPOSITE,
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int in_list(const int32_t *l, size_t n, int32_t op) {
    for (size_t i = 0; i < n; i++)
        if (l[i] == op) return 1;
    return 0;
}

int lgc_compat_has(int32_t op) { return in_list(compat_ops, N_OF(compat_ops), op); }

int lgc_parser_takes(lg_target t, int32_t op) {
    if (t == LG_TARGET_CLASSIC)
        return (lgc_compat_has(op) && !in_list(classic_minus, N_OF(classic_minus), op)) ||
               op == LG_OP_RELU_0_TO_1 || op == LG_OP_UNPACK;
    return (lgc_compat_has(op) && op != LG_OP_DENSIFY) || in_list(mldrift_plus, N_OF(mldrift_plus), op);
}

/* ------------------------------------------------------------------ versions */

/* Max op versions (CheckMaxSupportedOpVersion); 0 = no version check. */
int lgc_max_version(lg_target t, int32_t op) {
    int c = t == LG_TARGET_CLASSIC;
    switch (op) {
    case LG_OP_ADD: case LG_OP_ADD_N: return c ? 2 : 6;
    case LG_OP_MUL: return c ? 3 : 8;
    case LG_OP_SUB: case LG_OP_DIV: case LG_OP_POW: case LG_OP_SQUARED_DIFFERENCE:
    case LG_OP_ATAN2: case LG_OP_FLOOR_MOD: case LG_OP_RIGHT_SHIFT:
        return 2;
    case LG_OP_FLOOR_DIV: return c ? 2 : 3;
    case LG_OP_MAXIMUM: case LG_OP_MINIMUM: return c ? 2 : 4;
    case LG_OP_EQUAL: case LG_OP_NOT_EQUAL: case LG_OP_GREATER: case LG_OP_GREATER_EQUAL:
    case LG_OP_LESS: case LG_OP_LESS_EQUAL: case LG_OP_LOGICAL_AND: case LG_OP_LOGICAL_OR:
        return 2;
    case LG_OP_ABS: return c ? 2 : 5;
    case LG_OP_GELU: return c ? 2 : 3;
    case LG_OP_COS: case LG_OP_ELU: case LG_OP_EXP: case LG_OP_FLOOR: case LG_OP_LOG:
    case LG_OP_LOGISTIC: case LG_OP_NEG: case LG_OP_RSQRT: case LG_OP_SIGN: case LG_OP_SIN:
    case LG_OP_SQRT: case LG_OP_SQUARE: case LG_OP_TANH: case LG_OP_CEIL: case LG_OP_ROUND:
    case LG_OP_LOGICAL_NOT:
        return 2;
    case LG_OP_AVERAGE_POOL_2D: case LG_OP_MAX_POOL_2D: return 2;
    case LG_OP_CONCATENATION: return c ? 2 : 6;
    case LG_OP_CONV_2D: case LG_OP_DEPTHWISE_CONV_2D: return 6;
    case LG_OP_CUMSUM: return 1;
    case LG_OP_DEPTH_TO_SPACE: case LG_OP_SPACE_TO_DEPTH: return c ? 0 : 2;
    case LG_OP_DEQUANTIZE: return 3;
    case LG_OP_QUANTIZE: return 2;
    case LG_OP_FULLY_CONNECTED: return c ? 9 : 14;
    case LG_OP_GATHER: return c ? 1 : 0;
    case LG_OP_LSTM: return 4;
    case LG_OP_PAD: case LG_OP_PADV2: case LG_OP_MIRROR_PAD: return c ? 2 : 5;
    case LG_OP_PRELU: return 1;
    case LG_OP_RELU: case LG_OP_RELU6: case LG_OP_LEAKY_RELU: case LG_OP_RELU_N1_TO_1:
    case LG_OP_RELU_0_TO_1:
        return 2;
    case LG_OP_RESHAPE: return 1;
    case LG_OP_RESIZE_BILINEAR: case LG_OP_RESIZE_NEAREST_NEIGHBOR: return 3;
    case LG_OP_SELECT: case LG_OP_SELECT_V2: return 1;
    case LG_OP_SLICE: return c ? 2 : 8;
    case LG_OP_SOFTMAX: return c ? 2 : 4;
    case LG_OP_STRIDED_SLICE: return c ? 4 : 2;
    case LG_OP_TOPK_V2: case LG_OP_ONE_HOT: return 1;
    case LG_OP_TRANSPOSE: return c ? 4 : 9;
    case LG_OP_TRANSPOSE_CONV: return 3;
    default: return 0;
    }
}

/* ------------------------------------------------------------------ dtypes */

static int is_logical(int32_t op) {
    return op == LG_OP_LOGICAL_AND || op == LG_OP_LOGICAL_OR || op == LG_OP_LOGICAL_NOT ||
           op == LG_OP_BITWISE_XOR;
}

/* ML Drift IsIntSupportedOp. */
static int ml_int_op(int32_t op) {
    switch (op) {
    case LG_OP_ABS: case LG_OP_ADD: case LG_OP_ATAN2: case LG_OP_COS: case LG_OP_DIV:
    case LG_OP_FLOOR_DIV: case LG_OP_FLOOR_MOD: case LG_OP_MAXIMUM: case LG_OP_MINIMUM:
    case LG_OP_MUL: case LG_OP_NEG: case LG_OP_REDUCE_MAX: case LG_OP_REDUCE_MIN:
    case LG_OP_REDUCE_PROD: case LG_OP_RIGHT_SHIFT: case LG_OP_SIGN: case LG_OP_SIN:
    case LG_OP_STABLEHLO_CLAMP: case LG_OP_SUB: case LG_OP_SUM: case LG_OP_STABLEHLO_REMAINDER:
    case LG_OP_TILE:
        return 1;
    default: return 0;
    }
}

/* ML Drift SupportAllPrecisionOp. */
static int ml_all_precision_op(int32_t op) {
    switch (op) {
    case LG_OP_STABLEHLO_BROADCAST_IN_DIM: case LG_OP_BITCAST: case LG_OP_CAST:
    case LG_OP_CONCATENATION: case LG_OP_DYNAMIC_UPDATE_SLICE: case LG_OP_GATHER:
    case LG_OP_PACK: case LG_OP_PAD: case LG_OP_PADV2: case LG_OP_RESHAPE: case LG_OP_REVERSE_V2:
    case LG_OP_SELECT: case LG_OP_SELECT_V2: case LG_OP_SLICE: case LG_OP_STRIDED_SLICE:
    case LG_OP_TRANSPOSE:
        return 1;
    default: return 0;
    }
}

static int is_int(int t) { return t == LG_INT8 || t == LG_INT16 || t == LG_INT32 || t == LG_UINT8 ||
                                  t == LG_UINT16 || t == LG_UINT32; }

/* Is dtype t allowed for a runtime input (in = 1) or output (in = 0) of op on the target? */
int lgc_dtype_ok(const ck *c, int32_t op, int t, int in, int input_pos) {
    /* reported by the int64-tensor field rule where it applies (Mali, WebGPU); elsewhere the
       lists below decide (none of them takes INT64) */
    if (t == LG_INT64 && lgc_rule_applies(c, R_INT64_TENSOR)) return 1;
    if (lgc_is_float(t)) return 1;
    if (c->target == LG_TARGET_CLASSIC) {
        if (lgc_is_q8(t)) return 1; /* quantized ops are enabled by default */
        if (!in && t == LG_BOOL && lgc_is_compare(op)) return 1;
        if (op == LG_OP_CAST && (t == LG_BOOL || t == LG_INT32)) return 1;
        if (op == LG_OP_ONE_HOT && in && t == LG_INT32) return 1;
        if ((op == LG_OP_SELECT || op == LG_OP_SELECT_V2) && in && t == LG_BOOL) return 1;
        if (op == LG_OP_LOGICAL_AND && t == LG_BOOL) return 1;
        if (op == LG_OP_GATHER && in && t == LG_INT32) return 1;
        return 0;
    }
    /* ML Drift (bool tensors and quantized ops assumed enabled, as CompiledModel sets them) */
    if (in && (lgc_is_q8(t) || t == LG_INT4 || t == LG_INT2)) return 1;
    if (!in && lgc_is_q8(t)) return 1;
    if (!in && t == LG_INT32 && (op == LG_OP_ARG_MAX || op == LG_OP_TOPK_V2)) return 1;
    if ((op == LG_OP_REDUCE_ALL || op == LG_OP_REDUCE_ANY) && t == LG_BOOL) return 1;
    if (in && t == LG_INT32 &&
        (op == LG_OP_EMBEDDING_LOOKUP || op == LG_OP_ONE_HOT || op == LG_OP_DYNAMIC_UPDATE_SLICE))
        return 1;
    if (lgc_is_compare(op) && ((in && (is_int(t) || t == LG_BOOL)) || (!in && t == LG_BOOL))) return 1;
    if (is_logical(op) && (t == LG_BOOL || t == LG_INT8 || t == LG_INT16 || t == LG_INT32)) return 1;
    if (ml_int_op(op) && (t == LG_INT8 || t == LG_INT16 || t == LG_INT32)) return 1;
    if (ml_all_precision_op(op) && (is_int(t) || t == LG_BOOL || t == LG_BFLOAT16)) return 1;
    if ((op == LG_OP_SELECT || op == LG_OP_SELECT_V2) && in && input_pos == 0 && t == LG_BOOL) return 1;
    return 0;
}

/* ------------------------------------------------------------------ unsupported ops */

/* What to do instead of an op the GPU has no parser for (the seed's catalog). */
const char *lgc_fix_for_unsupported(int32_t op) {
    switch (op) {
    case LG_OP_GATHER_ND:
        return "remove the GATHER_ND at the source: strided subsample x[..., ::2, ::2] -> "
               "AVERAGE_POOL_2D(k=1, s=2); grid_sample -> tent-matmul; reflect/replicate pad -> "
               "zero PAD; bake position tables as constants";
    case LG_OP_BROADCAST_TO:
        return "CONCATENATION of the operand (or TILE), or fold the broadcast into the consumer's "
               "own broadcasting";
    case LG_OP_SQUEEZE: case LG_OP_EXPAND_DIMS:
        return "RESHAPE with a constant shape (exact)";
    case LG_OP_LOG_SOFTMAX: return "SOFTMAX then LOG, or move the log-softmax to the host";
    case LG_OP_SHAPE: case LG_OP_FILL: case LG_OP_RANGE: case LG_OP_ZEROS_LIKE:
        return "bake constant: the value depends only on static shapes";
    case LG_OP_WHERE: case LG_OP_SCATTER_ND: case LG_OP_NON_MAX_SUPPRESSION_V4:
    case LG_OP_NON_MAX_SUPPRESSION_V5: case LG_OP_ARG_MIN: case LG_OP_UNIQUE:
        return "split the graph here and run this part on the CPU (host-side post-processing)";
    case LG_OP_TOPK_V2: case LG_OP_ARG_MAX:
        return "end the GPU graph before the top-k/arg-max and do it on the host";
    case LG_OP_DENSIFY:
        return "store the weights dense (densify at export) so no DENSIFY op remains";
    case LG_OP_L2_NORMALIZATION:
        return "x * RSQRT(SUM(x*x)) with a scale-before-square (SafeRMS) form";
    case LG_OP_SPACE_TO_BATCH_ND: case LG_OP_BATCH_TO_SPACE_ND:
        return "use a dilated CONV_2D instead of the space-to-batch wrapping";
    case LG_OP_CONV_3D: case LG_OP_CONV_3D_TRANSPOSE:
        return "fold the depth axis into channels and use CONV_2D";
    case LG_OP_POW: return "exp(y * log(x)) with the base clamped to > 0";
    case LG_OP_ATAN2: case LG_OP_CEIL: case LG_OP_ROUND: case LG_OP_REVERSE_V2:
        return "re-author with ops the classic delegate takes, or target CompiledModel GPU";
    case LG_OP_UNIDIRECTIONAL_SEQUENCE_LSTM: case LG_OP_UNIDIRECTIONAL_SEQUENCE_RNN:
    case LG_OP_WHILE: case LG_OP_IF: case LG_OP_CALL_ONCE:
        return "unroll the loop at export, or split the graph and run this part on the CPU";
    default:
        return "split the graph here and run this part on the CPU, or re-author the op";
    }
}

/* ------------------------------------------------------------------ custom ops */

int lgc_custom_supported(lg_target t, const char *name) {
    static const char *const both[] = {"Convolution2DTransposeBias", "MaxPoolingWithArgmax2D",
                                       "MaxUnpooling2D", "Resampler"};
    static const char *const ml[] = {"custom_call.GroupNorm", "custom_call.LayerNorm",
                                     "custom_call.RmsNorm", "custom_call.PixelShuffle",
                                     "custom_call.absolute_positional_embedding",
                                     "custom_call.rotary_positional_embedding"};
    if (!name) return 0;
    for (size_t i = 0; i < sizeof both / sizeof both[0]; i++)
        if (strcmp(name, both[i]) == 0) return 1;
    if (t == LG_TARGET_MLDRIFT)
        for (size_t i = 0; i < sizeof ml / sizeof ml[0]; i++)
            if (strcmp(name, ml[i]) == 0) return 1;
    return 0;
}

int lgc_composite_supported(const char *name) {
    static const char *const ok[] = {"odml.group_norm", "odml.rms_norm", "odml.scaled_dot_product_attention",
                                     "custom_call.rotary_positional_embedding", "odml.cache_update", "odml.rope",
                                     "odml.runtime_bmm", "odml.sdpa_transposed", "moe"};
    if (!name) return 0;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(name, ok[i]) == 0) return 1;
    return 0;
}

int lgc_field_banned(int32_t op) {
    switch (op) {
    case LG_OP_GATHER: case LG_OP_TOPK_V2: case LG_OP_PACK: case LG_OP_SPLIT: case LG_OP_SPLIT_V:
    case LG_OP_CAST: case LG_OP_SELECT: case LG_OP_SELECT_V2:
    case LG_OP_POW: /* seed field notes, CPGA-Net: "POW is banned on Mali" */
        return 1;
    default:
        return lgc_is_compare(op);
    }
}
