/* The per-op rules of the GPU delegates (gpu_compatibility.cc and both parsers' own checks):
   the table from builtin code to the rule function of its op family (check_ops_*.c), and the
   fused-activation rule every op with a fused activation gets. See rules.def for each rule's
   source. */
#include <string.h>

#include "check/check_impl.h"
#include "ir/schema_gen.h"
#include "lg/ops.h"

/* ------------------------------------------------------------------ the table */

/* Builtin code -> rule. No entry: the op has no per-op rule beyond the driver's (parser,
   version, tensors, field rules). CONCATENATION, PACK, UNPACK, PRELU and SPLIT have none on
   purpose (a CONCATENATION without options is fine: TFLite's parser allocates default
   params). */
static const lgc_op_rule op_rules[LG_OP_MAX + 1] = {
    /* elementwise (check_ops_elementwise.c) */
    [LG_OP_ABS] = lgc_rule_unary, [LG_OP_CEIL] = lgc_rule_unary, [LG_OP_COS] = lgc_rule_unary,
    [LG_OP_ELU] = lgc_rule_unary, [LG_OP_EXP] = lgc_rule_unary, [LG_OP_FLOOR] = lgc_rule_unary,
    [LG_OP_GELU] = lgc_rule_unary, [LG_OP_LOG] = lgc_rule_unary,
    [LG_OP_LOGICAL_NOT] = lgc_rule_unary, [LG_OP_LOGISTIC] = lgc_rule_unary,
    [LG_OP_NEG] = lgc_rule_unary, [LG_OP_ROUND] = lgc_rule_unary, [LG_OP_RSQRT] = lgc_rule_unary,
    [LG_OP_SIGN] = lgc_rule_unary, [LG_OP_SIN] = lgc_rule_unary, [LG_OP_SQRT] = lgc_rule_unary,
    [LG_OP_SQUARE] = lgc_rule_unary, [LG_OP_TANH] = lgc_rule_unary,
    [LG_OP_HARD_SWISH] = lgc_rule_unary, [LG_OP_STABLEHLO_CBRT] = lgc_rule_unary,
    [LG_OP_BITCAST] = lgc_rule_unary,
    [LG_OP_RELU] = lgc_rule_relu, [LG_OP_RELU6] = lgc_rule_relu,
    [LG_OP_LEAKY_RELU] = lgc_rule_relu, [LG_OP_RELU_N1_TO_1] = lgc_rule_relu,
    [LG_OP_RELU_0_TO_1] = lgc_rule_relu,
    [LG_OP_ADD] = lgc_rule_add_mul, [LG_OP_MUL] = lgc_rule_add_mul,
    [LG_OP_ADD_N] = lgc_rule_add_n,
    [LG_OP_SUB] = lgc_rule_binary, [LG_OP_DIV] = lgc_rule_binary,
    [LG_OP_ATAN2] = lgc_rule_binary, [LG_OP_FLOOR_DIV] = lgc_rule_binary,
    [LG_OP_FLOOR_MOD] = lgc_rule_binary, [LG_OP_MAXIMUM] = lgc_rule_binary,
    [LG_OP_MINIMUM] = lgc_rule_binary, [LG_OP_POW] = lgc_rule_binary,
    [LG_OP_SQUARED_DIFFERENCE] = lgc_rule_binary, [LG_OP_RIGHT_SHIFT] = lgc_rule_binary,
    [LG_OP_STABLEHLO_REMAINDER] = lgc_rule_binary, [LG_OP_STABLEHLO_SHIFT_LEFT] = lgc_rule_binary,
    [LG_OP_EQUAL] = lgc_rule_binary, [LG_OP_NOT_EQUAL] = lgc_rule_binary,
    [LG_OP_GREATER] = lgc_rule_binary, [LG_OP_GREATER_EQUAL] = lgc_rule_binary,
    [LG_OP_LESS] = lgc_rule_binary, [LG_OP_LESS_EQUAL] = lgc_rule_binary,
    [LG_OP_LOGICAL_AND] = lgc_rule_binary, [LG_OP_LOGICAL_OR] = lgc_rule_binary,
    [LG_OP_BITWISE_XOR] = lgc_rule_binary,
    [LG_OP_CAST] = lgc_rule_cast,
    [LG_OP_SELECT] = lgc_rule_select, [LG_OP_SELECT_V2] = lgc_rule_select,
    [LG_OP_STABLEHLO_CLAMP] = lgc_rule_stablehlo_clamp,
    /* conv, matmul, pooling (check_ops_conv.c) */
    [LG_OP_CONV_2D] = lgc_rule_conv_2d,
    [LG_OP_DEPTHWISE_CONV_2D] = lgc_rule_depthwise_conv_2d,
    [LG_OP_TRANSPOSE_CONV] = lgc_rule_transpose_conv,
    [LG_OP_FULLY_CONNECTED] = lgc_rule_fully_connected,
    [LG_OP_BATCH_MATMUL] = lgc_rule_batch_matmul,
    [LG_OP_AVERAGE_POOL_2D] = lgc_rule_pool_2d, [LG_OP_MAX_POOL_2D] = lgc_rule_pool_2d,
    /* shape (check_ops_shape.c) */
    [LG_OP_PAD] = lgc_rule_pad, [LG_OP_PADV2] = lgc_rule_pad, [LG_OP_MIRROR_PAD] = lgc_rule_pad,
    [LG_OP_RESHAPE] = lgc_rule_reshape,
    [LG_OP_SLICE] = lgc_rule_slice, [LG_OP_STRIDED_SLICE] = lgc_rule_slice,
    [LG_OP_TRANSPOSE] = lgc_rule_transpose,
    [LG_OP_TILE] = lgc_rule_tile,
    [LG_OP_GATHER] = lgc_rule_gather,
    [LG_OP_SPLIT_V] = lgc_rule_split_v,
    [LG_OP_DEPTH_TO_SPACE] = lgc_rule_space_depth, [LG_OP_SPACE_TO_DEPTH] = lgc_rule_space_depth,
    [LG_OP_RESIZE_BILINEAR] = lgc_rule_resize, [LG_OP_RESIZE_NEAREST_NEIGHBOR] = lgc_rule_resize,
    [LG_OP_REVERSE_V2] = lgc_rule_reverse_v2,
    [LG_OP_DYNAMIC_UPDATE_SLICE] = lgc_rule_dynamic_update_slice,
    [LG_OP_EMBEDDING_LOOKUP] = lgc_rule_embedding_lookup,
    [LG_OP_STABLEHLO_BROADCAST_IN_DIM] = lgc_rule_broadcast_in_dim,
    /* reductions (check_ops_reduce.c) */
    [LG_OP_MEAN] = lgc_rule_reduce, [LG_OP_SUM] = lgc_rule_reduce,
    [LG_OP_REDUCE_MAX] = lgc_rule_reduce, [LG_OP_REDUCE_MIN] = lgc_rule_reduce,
    [LG_OP_REDUCE_PROD] = lgc_rule_reduce, [LG_OP_REDUCE_ALL] = lgc_rule_reduce,
    [LG_OP_REDUCE_ANY] = lgc_rule_reduce,
    [LG_OP_CUMSUM] = lgc_rule_cumsum,
    [LG_OP_TOPK_V2] = lgc_rule_topk_v2,
    /* the rest (check_ops_misc.c) */
    [LG_OP_SOFTMAX] = lgc_rule_softmax,
    [LG_OP_ONE_HOT] = lgc_rule_one_hot,
    [LG_OP_LSTM] = lgc_rule_lstm,
    [LG_OP_QUANTIZE] = lgc_rule_quantize,
    [LG_OP_DEQUANTIZE] = lgc_rule_dequantize,
    [LG_OP_DENSIFY] = lgc_rule_densify,
};

/* ------------------------------------------------------------------ fused activation */

/* ActivationFunctionType: NONE 0, RELU 1, RELU_N1_TO_1 2, RELU6 3, TANH 4, SIGN_BIT 5.
   SIGMOID is not in the schema enum; gpu_compatibility.cc lists it by the C enum value 6. */
static int act_ok(int a) { return a >= 0 && a <= 4 ? 1 : a == 5 ? 0 : a == 6 ? 1 : 0; }

static const char *act_name(int a) {
    static const char *const n[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"};
    return a >= 0 && a <= 5 ? n[a] : "unknown";
}

/* The ops whose fused activation the delegates check (gpu_compatibility.cc: the cases that
   call IsActivationSupported; both parsers' PreCheckMaybeFuseActivation). Which ops carry a
   fused activation in their options is the op table's knowledge (LG_OPF_FUSED_ACT); which of
   them the GPU checks is this rule's. */
static int act_checked(int32_t code) {
    switch (code) {
    case LG_OP_CONV_2D: case LG_OP_DEPTHWISE_CONV_2D: case LG_OP_AVERAGE_POOL_2D:
    case LG_OP_MAX_POOL_2D: case LG_OP_L2_POOL_2D: case LG_OP_FULLY_CONNECTED:
    case LG_OP_CONCATENATION: case LG_OP_ADD: case LG_OP_MUL: case LG_OP_SUB: case LG_OP_DIV:
    case LG_OP_TRANSPOSE_CONV:
        return 1;
    default:
        return 0;
    }
}

/* The fused activation of op x, read from the options kind the op table gives its code (a
   table of another kind, or none, reads as the schema's defaults: NONE); 0 if the rule does
   not look at the op. */
static int fused_activation_of(const opx *x, int *act) {
    const lg_op_info *e = lg_op_info_builtin(x->code);
    if (!act_checked(x->code) || !e || !(e->flags & LG_OPF_FUSED_ACT)) return 0;
    const lgi_table_desc *t = lgi_opts_table(e->opts_kind);
    if (!t || t->size > 512) return 0;
    for (const lgi_field_desc *f = t->fields; f->name; f++) {
        if (strcmp(f->name, "fused_activation_function") != 0) continue;
        union { uint8_t b[512]; double d; void *p; } buf;
        const void *o = lgc_opts(x->op, e->opts_kind, buf.b, t->size);
        *act = (int)lgi_field_get_f64(o, f);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ dispatch */

void lgc_check_op(ck *c, const opx *x) {
    int act;
    if (fused_activation_of(x, &act) && !act_ok(act))
        lgc_add(c, R_FUSED_ACTIVATION, x, NULL, "%s has fused activation %s (%d)", x->name, act_name(act), act);
    if (x->code < 0 || x->code > LG_OP_MAX || !op_rules[x->code]) return;
    op_rules[x->code](c, x);
}
