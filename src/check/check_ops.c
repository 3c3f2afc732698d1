/* The per-op rules of the GPU delegates (gpu_compatibility.cc and both parsers' own checks),
   one case per op family; see rules.def for each rule's source. */
#include <stdio.h>
#include <string.h>

#include "check/check_impl.h"
#include "util/half.h"

/* ------------------------------------------------------------------ shared checks */

static int act_ok(int a) { return a >= 0 && a <= 4 ? 1 : a == 5 ? 0 : a == 6 ? 1 : 0; }
/* ActivationFunctionType: NONE 0, RELU 1, RELU_N1_TO_1 2, RELU6 3, TANH 4, SIGN_BIT 5.
   SIGMOID is not in the schema enum; gpu_compatibility.cc lists it by the C enum value 6. */

static int fused_activation_of(const lg_op *op, int *act) {
    if (!op->opts) return 0;
    switch (op->opts_kind) {
    case LG_OPTS_CONV2D_OPTIONS: *act = ((const lg_conv2d_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_DEPTHWISE_CONV2D_OPTIONS: *act = ((const lg_depthwise_conv2d_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_POOL2D_OPTIONS: *act = ((const lg_pool2d_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_FULLY_CONNECTED_OPTIONS: *act = ((const lg_fully_connected_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_CONCATENATION_OPTIONS: *act = ((const lg_concatenation_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_ADD_OPTIONS: *act = ((const lg_add_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_MUL_OPTIONS: *act = ((const lg_mul_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_SUB_OPTIONS: *act = ((const lg_sub_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_DIV_OPTIONS: *act = ((const lg_div_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_TRANSPOSE_CONV_OPTIONS: *act = ((const lg_transpose_conv_options *)op->opts)->fused_activation_function; return 1;
    default: return 0;
    }
}

static const char *act_name(int a) {
    static const char *const n[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"};
    return a >= 0 && a <= 5 ? n[a] : "unknown";
}

int lgc_is_compare(int32_t op) {
    return op == LG_OP_EQUAL || op == LG_OP_NOT_EQUAL || op == LG_OP_GREATER ||
           op == LG_OP_GREATER_EQUAL || op == LG_OP_LESS || op == LG_OP_LESS_EQUAL;
}

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

int lgc_is_float(int t) { return t == LG_FLOAT32 || t == LG_FLOAT16; }
int lgc_is_q8(int t) { return t == LG_INT8 || t == LG_UINT8; }
static int is_int(int t) { return t == LG_INT8 || t == LG_INT16 || t == LG_INT32 || t == LG_UINT8 ||
                                  t == LG_UINT16 || t == LG_UINT32; }

/* Is dtype t allowed for a runtime input (in = 1) or output (in = 0) of op on the target? */
int lgc_dtype_ok(const ck *c, int32_t op, int t, int in, int input_pos) {
    if (t == LG_INT64) return 1; /* reported by the int64-tensor field rule */
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

/* numpy broadcast compatibility of two shapes */
static int np_broadcastable(const lg_tensor *a, const lg_tensor *b) {
    uint32_t n = a->rank > b->rank ? a->rank : b->rank;
    for (uint32_t i = 0; i < n; i++) {
        int32_t da = i < a->rank ? a->shape[a->rank - 1 - i] : 1;
        int32_t db = i < b->rank ? b->shape[b->rank - 1 - i] : 1;
        if (da != db && da != 1 && db != 1) return 0;
    }
    return 1;
}

static void check_broadcast(ck *c, const opx *x) {
    if (x->op->n_inputs < 2 || x->op->inputs[0] < 0 || x->op->inputs[1] < 0) return;
    int32_t ia = x->op->inputs[0], ib = x->op->inputs[1];
    const lg_tensor *a = lgc_T(c, ia), *b = lgc_T(c, ib);
    char s1[64], s2[64];
    if (a->rank == b->rank || a->rank <= 1 || b->rank <= 1) {
        if (!np_broadcastable(a, b)) {
            lg_finding *f = lgc_add(c, R_BROADCAST, x, NULL, "shapes %s and %s do not broadcast",
                                lgc_shp(c, ia, s1, sizeof s1), lgc_shp(c, ib, s2, sizeof s2));
            lgc_with_tensor(f, ia);
            lgc_with_tensor(f, ib);
        }
        return;
    }
    const lg_tensor *hi = a->rank > b->rank ? a : b, *lo = a->rank > b->rank ? b : a;
    int ok;
    if (c->target == LG_TARGET_CLASSIC) {
        ok = 0;
        if (hi->rank == 4 && lo->rank == 3 && hi->shape[0] == 1 && np_broadcastable(hi, lo)) ok = 1;
        if (hi->rank == 4 && lo->rank == 2 && lo->shape[0] == 1 && lo->shape[1] == 1) ok = 1;
        if (hi->rank == 4 && lo->rank == 2 && lo->shape[0] == hi->shape[0] &&
            lo->shape[1] == hi->shape[3])
            ok = 1;
    } else {
        ok = hi->rank <= 4 && np_broadcastable(hi, lo);
    }
    if (!ok) {
        lg_finding *f = lgc_add(c, R_BROADCAST, x, NULL, "%s %s and %s: %s",
                            x->name, lgc_shp(c, ia, s1, sizeof s1), lgc_shp(c, ib, s2, sizeof s2),
                            c->target == LG_TARGET_CLASSIC
                                ? "the classic delegate only broadcasts 4D+3D (batch 1), 4D+[1,1] "
                                  "and 4D [b,h,w,c]+2D [b,c]"
                                : "not a numpy broadcast of rank <= 4 operands");
        lgc_with_tensor(f, ia);
        lgc_with_tensor(f, ib);
    }
}

/* Exactly (rt runtime inputs, cst constant inputs, outs outputs); -1 = any. */
static int need_io(ck *c, const opx *x, int rt, int cst, int outs) {
    int bad = (rt >= 0 && x->n_rt != rt) || (cst >= 0 && x->n_const != cst) ||
              (outs >= 0 && (int)x->op->n_outputs != outs);
    if (bad) {
        char want[96] = "";
        size_t k = 0;
        if (rt >= 0) k += (size_t)snprintf(want + k, sizeof want - k, "%d runtime", rt);
        if (cst >= 0) k += (size_t)snprintf(want + k, sizeof want - k, "%s%d constant", k ? ", " : "", cst);
        if (outs >= 0) snprintf(want + k, sizeof want - k, "%s%d output(s)", k ? ", " : "", outs);
        lgc_add(c, R_INPUT_COUNT, x, NULL, "%s has %d runtime and %d constant input(s), %u output(s); the GPU takes %s",
            x->name, x->n_rt, x->n_const, x->op->n_outputs, want);
        return 0;
    }
    return 1;
}

/* Input position k (among all inputs, optional included) is constant INT32. */
static int need_const_i32(ck *c, const opx *x, uint32_t k, const char *what) {
    if (k >= x->op->n_inputs || x->op->inputs[k] < 0) {
        lgc_add(c, R_CONST_AXES, x, NULL, "%s has no %s input", x->name, what);
        return 0;
    }
    int32_t t = x->op->inputs[k];
    if (!c->is_const[t]) {
        lg_finding *f = lgc_add(c, R_CONST_AXES, x, NULL, "%s is only supported with constant %s (tensor %d \"%s\" is computed at run time)",
                            x->name, what, t, lgc_tname(c, t));
        lgc_with_tensor(f, t);
        return 0;
    }
    if (lgc_T(c, t)->type != LG_INT32) {
        lg_finding *f = lgc_add(c, R_CONST_AXES, x, NULL, "%s supports int32 tensor for %s (tensor %d is %s)", x->name, what,
                            t, lg_dtype_name(lgc_T(c, t)->type));
        lgc_with_tensor(f, t);
        return 0;
    }
    return 1;
}

/* A shape-determining input computed at run time makes the graph dynamic. */
static void need_static(ck *c, const opx *x, uint32_t k, const char *what) {
    if (k < x->op->n_inputs && x->op->inputs[k] >= 0 && !c->is_const[x->op->inputs[k]]) {
        int32_t t = x->op->inputs[k];
        lg_finding *f = lgc_add(c, R_DYNAMIC_TENSOR, x, NULL,
                            "%s's %s (tensor %d \"%s\") is computed at run time, so its output "
                            "shape is dynamic", x->name, what, t, lgc_tname(c, t));
        lgc_with_tensor(f, t);
    }
}

/* ------------------------------------------------------------------ per-op rules */

static void check_conv_like(ck *c, const opx *x) {
    if (x->n_rt < 1 || x->n_rt > 2 || x->op->n_outputs != 1) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "%s has %d runtime input(s) and %u output(s); convolutions take 1-2 runtime inputs and 1 output",
            x->name, x->n_rt, x->op->n_outputs);
    } else if (x->n_rt == 1 && (x->op->n_inputs < 2 || x->op->inputs[1] < 0)) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "%s has no weights input", x->name);
    }
}

void lgc_check_op(ck *c, const opx *x) {
    const lg_op *op = x->op;
    int32_t code = x->code;
    char s1[64], s2[64];
    int act;
    if (fused_activation_of(op, &act) && !act_ok(act)) {
        lg_finding *f = lgc_add(c, R_FUSED_ACTIVATION, x, NULL, "%s has fused activation %s (%d)", x->name, act_name(act), act);
        (void)f;
    }
    switch (code) {
    case LG_OP_ABS: case LG_OP_CEIL: case LG_OP_COS: case LG_OP_ELU: case LG_OP_EXP:
    case LG_OP_FLOOR: case LG_OP_GELU: case LG_OP_LOG: case LG_OP_LOGICAL_NOT:
    case LG_OP_LOGISTIC: case LG_OP_NEG: case LG_OP_ROUND: case LG_OP_RSQRT: case LG_OP_SIGN:
    case LG_OP_SIN: case LG_OP_SQRT: case LG_OP_SQUARE: case LG_OP_TANH: case LG_OP_HARD_SWISH:
    case LG_OP_STABLEHLO_CBRT:
        need_io(c, x, 1, 0, 1);
        break;
    case LG_OP_RELU: case LG_OP_RELU6: case LG_OP_LEAKY_RELU: case LG_OP_RELU_N1_TO_1:
    case LG_OP_RELU_0_TO_1:
        if (c->target == LG_TARGET_MLDRIFT) need_io(c, x, 1, 0, 1);
        break;
    case LG_OP_ADD: case LG_OP_MUL:
        if (x->n_in != 2)
            lgc_add(c, R_INPUT_COUNT, x, NULL, "%s has %d inputs; the GPU takes exactly 2", x->name, x->n_in);
        if (op->n_inputs == 2) check_broadcast(c, x);
        if (c->target == LG_TARGET_MLDRIFT && x->n_rt == 2) {
            for (int i = 0; i < 2; i++)
                if (lgc_T(c, x->in[i])->rank > 5) {
                    lg_finding *f = lgc_add(c, R_BROADCAST, x, NULL, "%s operand %s has rank > 5", x->name,
                                        lgc_shp(c, x->in[i], s1, sizeof s1));
                    lgc_with_tensor(f, x->in[i]);
                }
        }
        break;
    case LG_OP_ADD_N:
        if (x->n_in != 2) lgc_add(c, R_INPUT_COUNT, x, NULL, "ADD_N has %d inputs; the GPU takes exactly 2", x->n_in);
        break;
    case LG_OP_SUB: case LG_OP_DIV: case LG_OP_ATAN2: case LG_OP_FLOOR_DIV: case LG_OP_FLOOR_MOD:
    case LG_OP_MAXIMUM: case LG_OP_MINIMUM: case LG_OP_POW: case LG_OP_SQUARED_DIFFERENCE:
    case LG_OP_RIGHT_SHIFT: case LG_OP_STABLEHLO_REMAINDER: case LG_OP_STABLEHLO_SHIFT_LEFT:
    case LG_OP_EQUAL: case LG_OP_NOT_EQUAL: case LG_OP_GREATER: case LG_OP_GREATER_EQUAL:
    case LG_OP_LESS: case LG_OP_LESS_EQUAL: case LG_OP_LOGICAL_AND: case LG_OP_LOGICAL_OR:
    case LG_OP_BITWISE_XOR:
        if (!((x->n_rt == 2 && x->n_const == 0) || (x->n_rt == 1 && x->n_const == 1)) ||
            op->n_outputs != 1)
            lgc_add(c, R_INPUT_COUNT, x, NULL, "Op can only handle 1 or 2 operand(s): %s has %d runtime and %d constant inputs",
                x->name, x->n_rt, x->n_const);
        if (c->target == LG_TARGET_MLDRIFT && op->n_inputs >= 2 && op->inputs[0] >= 0 &&
            op->inputs[0] == op->inputs[1]) {
            lg_finding *f = lgc_add(c, R_IDENTICAL_INPUTS, x, NULL,
                                "No support of few identical inputs in the same operation: %s(x, x) on tensor %d \"%s\"",
                                x->name, op->inputs[0], lgc_tname(c, op->inputs[0]));
            lgc_with_tensor(f, op->inputs[0]);
        }
        if (op->n_inputs >= 2 && op->inputs[0] >= 0 && op->inputs[1] >= 0 &&
            !np_broadcastable(lgc_T(c, op->inputs[0]), lgc_T(c, op->inputs[1]))) {
            lg_finding *f = lgc_add(c, R_BROADCAST, x, NULL, "Inputs dimensions sizes don't match, broadcasting isn't applicable: %s and %s",
                                lgc_shp(c, op->inputs[0], s1, sizeof s1), lgc_shp(c, op->inputs[1], s2, sizeof s2));
            lgc_with_tensor(f, op->inputs[0]);
            lgc_with_tensor(f, op->inputs[1]);
        }
        if (c->target == LG_TARGET_CLASSIC && lgc_is_compare(code)) {
            /* exactly 1 consumer, a CAST/SELECT/SELECT_V2 producing float */
            int32_t out = op->n_outputs ? op->outputs[0] : -1;
            int ok = 0;
            if (out >= 0 && c->n_consumers[out] == 1) {
                for (uint32_t j = 0; j < c->sg->n_ops; j++) {
                    const lg_op *u = &c->sg->ops[j];
                    int uses = 0;
                    for (uint32_t k = 0; k < u->n_inputs; k++) uses |= u->inputs[k] == out;
                    if (!uses) continue;
                    int32_t uc = lg_op_builtin(c->m, u);
                    if ((uc == LG_OP_CAST || uc == LG_OP_SELECT || uc == LG_OP_SELECT_V2) &&
                        u->n_outputs == 1 && u->outputs[0] >= 0 && lgc_is_float(lgc_T(c, u->outputs[0])->type))
                        ok = 1;
                }
            }
            if (!ok) {
                lg_finding *f = lgc_add(c, R_COMPARE_CONSUMER, x, NULL,
                                    "Not supported logical op case: %s output %d has %u consumer(s); the classic delegate needs exactly one CAST/SELECT producing float",
                                    x->name, out, out >= 0 ? c->n_consumers[out] : 0);
                lgc_with_tensor(f, out);
            }
        }
        break;
    case LG_OP_AVERAGE_POOL_2D: case LG_OP_MAX_POOL_2D: {
        need_io(c, x, 1, 0, 1);
        const lg_pool2d_options *o = op->opts;
        if (!o) { lgc_add(c, R_OP_PARAMS, x, NULL, "%s has no options", x->name); break; }
        if (o->filter_height <= 0 || o->filter_width <= 0 || o->stride_h <= 0 || o->stride_w <= 0)
            lgc_add(c, R_OP_PARAMS, x, NULL, "%s kernel %dx%d stride %dx%d: kernel and stride must be > 0", x->name,
                o->filter_height, o->filter_width, o->stride_h, o->stride_w);
        break;
    }
    case LG_OP_BATCH_MATMUL:
        if (x->n_in != 2 || op->n_outputs != 1) {
            lgc_add(c, R_INPUT_COUNT, x, NULL, "BATCH_MATMUL has %d inputs and %u outputs; the GPU takes 2 and 1", x->n_in, op->n_outputs);
            break;
        }
        if (x->n_rt == 1) {
            int32_t b = op->inputs[1];
            if (!c->is_const[b]) {
                lgc_add(c, R_OP_PARAMS, x, NULL, "Not supported batched mat mul case: the constant operand must be the second input");
            } else {
                uint32_t r = lgc_T(c, b)->rank;
                int ok = c->target == LG_TARGET_CLASSIC ? r == 2 : (r >= 2 && r <= 4);
                if (!ok) {
                    lg_finding *f = lgc_add(c, R_OP_PARAMS, x, NULL, "Not supported batched mat mul case: constant operand %s has rank %u (the %s delegate takes %s)",
                                        lgc_shp(c, b, s1, sizeof s1), r, lg_target_name(c->target),
                                        c->target == LG_TARGET_CLASSIC ? "rank 2" : "rank 2-4");
                    lgc_with_tensor(f, b);
                }
            }
        } else if (x->n_rt != 2) {
            lgc_add(c, R_INPUT_COUNT, x, NULL, "BATCH_MATMUL with %d runtime inputs", x->n_rt);
        }
        break;
    case LG_OP_BITCAST:
        need_io(c, x, 1, 0, 1);
        break;
    case LG_OP_CAST: {
        int32_t in = op->n_inputs ? op->inputs[0] : -1, out = op->n_outputs ? op->outputs[0] : -1;
        if (c->target == LG_TARGET_MLDRIFT) {
            need_io(c, x, 1, 0, 1);
            break;
        }
        if (!need_io(c, x, 1, 0, 1) || in < 0 || out < 0) break;
        int ti = lgc_T(c, in)->type, to = lgc_T(c, out)->type;
        int ok = (ti == LG_BOOL && lgc_is_float(to)) || (lgc_is_float(ti) && to == LG_BOOL) ||
                 ((ti == LG_FLOAT32 || ti == LG_INT32) && (to == LG_FLOAT32 || to == LG_INT32));
        if (!ok) {
            lg_finding *f = lgc_add(c, R_CAST_TYPES, x, NULL, "Not supported Cast case: %s -> %s", lg_dtype_name(ti), lg_dtype_name(to));
            lgc_with_tensor(f, in);
            lgc_with_tensor(f, out);
        } else if (ti == LG_BOOL) {
            int32_t p = c->producer[in];
            int from_cmp = p >= 0 && lgc_is_compare(lg_op_builtin(c->m, &c->sg->ops[p])) && c->n_consumers[in] == 1;
            int is_out = 0;
            for (uint32_t k = 0; k < c->sg->n_outputs; k++) is_out |= c->sg->outputs[k] == out;
            if (!from_cmp || is_out) {
                lg_finding *f = lgc_add(c, R_CAST_TYPES, x, NULL, "%s",
                                    is_out ? "Cast from bool not supported for outputs"
                                           : "a cast from bool must read a single comparison op with one consumer");
                lgc_with_tensor(f, in);
            }
        }
        break;
    }
    case LG_OP_CONCATENATION:
        /* no options is fine: TFLite's parser allocates default params */
        break;
    case LG_OP_CONV_2D: {
        check_conv_like(c, x);
        const lg_conv2d_options *o = op->opts;
        if (o && (o->stride_h <= 0 || o->stride_w <= 0 || o->dilation_h_factor <= 0 || o->dilation_w_factor <= 0))
            lgc_add(c, R_OP_PARAMS, x, NULL, "CONV_2D stride %dx%d dilation %dx%d: must be > 0", o->stride_h, o->stride_w,
                o->dilation_h_factor, o->dilation_w_factor);
        if (c->target == LG_TARGET_MLDRIFT && op->n_inputs > 0 && op->inputs[0] >= 0 && c->is_const[op->inputs[0]])
            lgc_add(c, R_OP_PARAMS, x, NULL, "CONV_2D input must be a runtime tensor");
        if (c->target == LG_TARGET_CLASSIC && op->n_inputs >= 2 && op->inputs[1] >= 0 && op->inputs[0] >= 0 &&
            !c->is_const[op->inputs[1]]) {
            const lg_tensor *w = lgc_T(c, op->inputs[1]), *in = lgc_T(c, op->inputs[0]);
            if (w->rank == 4 && in->rank == 4 && w->shape[3] != in->shape[3])
                lgc_add(c, R_OP_PARAMS, x, NULL, "No support of CONVOLUTION_2D with runtime grouped weights (weights in-channels %d, input channels %d)",
                    w->shape[3], in->shape[3]);
        }
        break;
    }
    case LG_OP_CUMSUM:
        if (x->n_in != 2 || op->n_outputs != 1) {
            lgc_add(c, R_INPUT_COUNT, x, NULL, "CUMSUM has %d inputs, %u outputs; the GPU takes 2 and 1", x->n_in, op->n_outputs);
            break;
        }
        if (!lgc_is_float(lgc_T(c, op->inputs[0])->type) || lgc_T(c, op->outputs[0])->type != lgc_T(c, op->inputs[0])->type)
            lgc_add(c, R_OP_PARAMS, x, NULL, "CUMSUM needs a float input and an output of the same type");
        need_const_i32(c, x, 1, "axis");
        break;
    case LG_OP_DENSIFY:
        need_io(c, x, 0, -1, 1);
        break;
    case LG_OP_DEPTHWISE_CONV_2D: {
        check_conv_like(c, x);
        const lg_depthwise_conv2d_options *o = op->opts;
        if (o && (o->stride_h <= 0 || o->stride_w <= 0 || o->dilation_h_factor <= 0 || o->dilation_w_factor <= 0))
            lgc_add(c, R_OP_PARAMS, x, NULL, "DEPTHWISE_CONV_2D stride %dx%d dilation %dx%d: must be > 0", o->stride_h,
                o->stride_w, o->dilation_h_factor, o->dilation_w_factor);
        if (op->n_inputs < 2 || op->n_outputs < 1 || op->inputs[0] < 0 || op->inputs[1] < 0) break;
        const lg_tensor *in = lgc_T(c, op->inputs[0]), *w = lgc_T(c, op->inputs[1]), *out = lgc_T(c, op->outputs[0]);
        int dm = o ? o->depth_multiplier : 1;
        const char *why = NULL;
        char buf[160];
        if (in->rank != 4 || w->rank != 4 || out->rank != 4) why = "input, filter and output must be rank 4";
        else if (in->shape[0] != out->shape[0]) why = "input and output batch differ";
        else if (w->shape[3] != out->shape[3]) why = "filter.dims[3] != output channels";
        else if (dm > 0 && out->shape[3] != in->shape[3] * dm) {
            snprintf(buf, sizeof buf, "output channels %d != input channels %d x depth_multiplier %d", out->shape[3], in->shape[3], dm);
            why = buf;
        } else if (op->n_inputs > 2 && op->inputs[2] >= 0 && lgc_numel_of(c, op->inputs[2]) != out->shape[3])
            why = "bias size != output channels";
        if (why) {
            lg_finding *f = lgc_add(c, R_DEPTHWISE_SHAPE, x, NULL, "DEPTHWISE_CONV_2D %s -> %s: %s", lgc_shp(c, op->inputs[0], s1, sizeof s1),
                                lgc_shp(c, op->outputs[0], s2, sizeof s2), why);
            lgc_with_tensor(f, op->inputs[0]);
            lgc_with_tensor(f, op->inputs[1]);
        }
        break;
    }
    case LG_OP_DEPTH_TO_SPACE: case LG_OP_SPACE_TO_DEPTH: {
        need_io(c, x, 1, 0, 1);
        int bs = 0;
        if (op->opts && code == LG_OP_DEPTH_TO_SPACE) bs = ((const lg_depth_to_space_options *)op->opts)->block_size;
        if (op->opts && code == LG_OP_SPACE_TO_DEPTH) bs = ((const lg_space_to_depth_options *)op->opts)->block_size;
        if (bs <= 1) lgc_add(c, R_OP_PARAMS, x, NULL, "%s block_size %d: %s", x->name, bs, bs == 1 ? "is a no-op" : "must be > 1");
        break;
    }
    case LG_OP_DEQUANTIZE: {
        if (x->n_in != 1 || op->n_outputs != 1) {
            lgc_add(c, R_INPUT_COUNT, x, NULL, "DEQUANTIZE has %d inputs, %u outputs; the GPU takes 1 and 1", x->n_in, op->n_outputs);
            break;
        }
        int32_t in = op->inputs[0];
        if (c->target == LG_TARGET_MLDRIFT && c->producer[in] >= 0 &&
            lg_op_builtin(c->m, &c->sg->ops[c->producer[in]]) == LG_OP_DENSIFY) {
            lg_finding *f = lgc_add(c, R_OP_PARAMS, x, "store the weights dense (densify at export): no DENSIFY, no DEQUANTIZE of it",
                                "Dequantize for Densify is not supported (its input comes from DENSIFY op %d)", c->producer[in]);
            lgc_with_tensor(f, in);
        }
        if (lgc_T(c, in)->type == LG_INT16) {
            lg_finding *f = lgc_add(c, R_OP_PARAMS, x, NULL, "DEQUANTIZE of an INT16 tensor");
            lgc_with_tensor(f, in);
        }
        if (c->target == LG_TARGET_MLDRIFT) {
            if (c->is_const[in] && (lgc_T(c, in)->rank < 2 || lgc_T(c, in)->rank > 4)) {
                lg_finding *f = lgc_add(c, R_OP_PARAMS, x, NULL, "DEQUANTIZE of a constant of rank %u (ML Drift takes rank 2-4)", lgc_T(c, in)->rank);
                lgc_with_tensor(f, in);
            }
            if (!c->is_const[in] && lgc_T(c, in)->quant && lgc_T(c, in)->quant->n_scale > 1) {
                lg_finding *f = lgc_add(c, R_OP_PARAMS, x, NULL, "DEQUANTIZE of a per-channel quantized runtime tensor");
                lgc_with_tensor(f, in);
            }
        }
        break;
    }
    case LG_OP_QUANTIZE:
        need_io(c, x, 1, 0, 1);
        if (op->n_outputs && op->outputs[0] >= 0 &&
            (!lgc_T(c, op->outputs[0])->quant || !lgc_T(c, op->outputs[0])->quant->n_scale))
            lgc_add(c, R_OP_PARAMS, x, NULL, "QUANTIZE output has no quantization parameters");
        break;
    case LG_OP_DYNAMIC_UPDATE_SLICE:
        if (x->n_in != 3) { lgc_add(c, R_INPUT_COUNT, x, NULL, "DYNAMIC_UPDATE_SLICE has %d inputs; the GPU takes 3", x->n_in); break; }
        if (c->target == LG_TARGET_MLDRIFT && c->is_const[op->inputs[2]])
            lgc_add(c, R_OP_PARAMS, x, NULL, "DYNAMIC_UPDATE_SLICE start indices must be a runtime tensor");
        if (lgc_T(c, op->inputs[0])->type != lgc_T(c, op->inputs[1])->type || lgc_T(c, op->inputs[1])->rank != lgc_T(c, op->inputs[0])->rank)
            lgc_add(c, R_OP_PARAMS, x, NULL, "DYNAMIC_UPDATE_SLICE operand and update must have the same type and rank");
        if (lgc_T(c, op->inputs[2])->rank != 1 || lgc_T(c, op->inputs[2])->type != LG_INT32)
            lgc_add(c, R_OP_PARAMS, x, NULL, "DYNAMIC_UPDATE_SLICE start indices must be 1-D INT32");
        break;
    case LG_OP_EMBEDDING_LOOKUP: {
        if (x->n_in != 2 || op->n_outputs != 1) { lgc_add(c, R_INPUT_COUNT, x, NULL, "EMBEDDING_LOOKUP has %d inputs; the GPU takes 2", x->n_in); break; }
        const lg_tensor *ids = lgc_T(c, op->inputs[0]), *val = lgc_T(c, op->inputs[1]), *out = lgc_T(c, op->outputs[0]);
        int ok = ids->rank == 1 && val->rank >= 2 && val->rank == out->rank;
        for (uint32_t i = 1; ok && i < val->rank; i++) ok = val->shape[i] == out->shape[i];
        int vt = val->type;
        if (!(vt == LG_INT8 || vt == LG_INT4 || vt == LG_INT2 || vt == LG_FLOAT32)) ok = 0;
        if (!ok) lgc_add(c, R_OP_PARAMS, x, NULL, "EMBEDDING_LOOKUP needs 1-D ids, a value table of rank >= 2 matching the output, of type FLOAT32/INT8/INT4/INT2");
        else if (c->target == LG_TARGET_MLDRIFT && vt != LG_FLOAT32 && (!val->quant || !val->quant->n_scale))
            lgc_add(c, R_OP_PARAMS, x, NULL, "EMBEDDING_LOOKUP: Empty quantization params (a %s table needs scales)", lg_dtype_name(vt));
        break;
    }
    case LG_OP_FULLY_CONNECTED: {
        const lg_fully_connected_options *o = op->opts;
        if (x->n_in < 1 || op->inputs[0] < 0) { lgc_add(c, R_INPUT_COUNT, x, NULL, "FULLY_CONNECTED has no input"); break; }
        if (x->n_rt > 2) lgc_add(c, R_INPUT_COUNT, x, NULL, "FULLY_CONNECTED has %d runtime inputs; the GPU takes at most 2", x->n_rt);
        if (c->is_const[op->inputs[0]]) lgc_add(c, R_OP_PARAMS, x, NULL, "FULLY_CONNECTED input 0 is constant; it must be computed at run time");
        if (o && o->weights_format != 0) lgc_add(c, R_OP_PARAMS, x, NULL, "FULLY_CONNECTED weights_format %d is not DEFAULT", o->weights_format);
        if (o && o->keep_num_dims && op->n_outputs && lgc_T(c, op->inputs[0])->rank != lgc_T(c, op->outputs[0])->rank)
            lgc_add(c, R_OP_PARAMS, x, NULL, "FULLY_CONNECTED keep_num_dims needs input rank == output rank");
        if (c->target == LG_TARGET_CLASSIC && op->n_inputs >= 2 && op->inputs[1] >= 0) {
            const lg_tensor *in = lgc_T(c, op->inputs[0]), *w = lgc_T(c, op->inputs[1]);
            if (in->rank >= 1 && w->rank == 2 && in->shape[in->rank - 1] != w->shape[1])
                lgc_add(c, R_OP_PARAMS, x, NULL, "Amount of input channels should match weights width (%d vs %d)",
                    in->shape[in->rank - 1], w->shape[1]);
        }
        break;
    }
    case LG_OP_GATHER:
        if (!((x->n_rt == 2 && x->n_const == 0) || (x->n_rt == 1 && x->n_const == 1)) || op->n_outputs != 1) {
            lgc_add(c, R_INPUT_COUNT, x, NULL, "GATHER has %d runtime and %d constant inputs", x->n_rt, x->n_const);
            break;
        }
        if (lgc_T(c, op->inputs[1])->rank != 1 || lgc_T(c, op->inputs[1])->type != LG_INT32) {
            lg_finding *f = lgc_add(c, R_OP_PARAMS, x, NULL, "GATHER indices %s %s: must be 1-D INT32",
                                lg_dtype_name(lgc_T(c, op->inputs[1])->type), lgc_shp(c, op->inputs[1], s1, sizeof s1));
            lgc_with_tensor(f, op->inputs[1]);
        } else if (c->is_const[op->inputs[1]] && lgc_numel_of(c, op->inputs[1]) >= 2) {
            lg_finding *f = lgc_add(c, R_GATHER_CONST_INDICES, x, NULL, "GATHER with %lld constant indices",
                                (long long)lgc_numel_of(c, op->inputs[1]));
            lgc_with_tensor(f, op->inputs[1]);
        }
        if (c->target == LG_TARGET_MLDRIFT && lgc_T(c, op->inputs[0])->type != lgc_T(c, op->outputs[0])->type)
            lgc_add(c, R_OP_PARAMS, x, NULL, "GATHER input and output types differ");
        break;
    case LG_OP_LSTM:
        if (!(x->n_in == 20 || x->n_in == 24 || (x->n_rt == 3 && x->n_const == 2)))
            lgc_add(c, R_OP_PARAMS, x, NULL, "LSTM with %d inputs: the GPU takes the full kernel (20/24 inputs) or the basic kernel (3 runtime + 2 constant)", x->n_in);
        break;
    case LG_OP_MEAN: case LG_OP_SUM: case LG_OP_REDUCE_MAX: case LG_OP_REDUCE_MIN:
    case LG_OP_REDUCE_PROD: case LG_OP_REDUCE_ALL: case LG_OP_REDUCE_ANY: {
        need_io(c, x, 1, 1, 1);
        if (!need_const_i32(c, x, 1, "axes")) break;
        int32_t in = op->inputs[0], ax = op->inputs[1];
        uint32_t r = lgc_T(c, in)->rank;
        int64_t n = lgc_numel_of(c, ax), extent = 1;
        int n_axes = 0;
        uint32_t seen = 0;
        for (int64_t i = 0; i < n && i < 16; i++) {
            int64_t a;
            if (!lgc_const_int(c, ax, (uint32_t)i, &a)) break;
            if (a < 0) a += r;
            if (a < 0 || a >= (int64_t)r || r > 4 || r < 1) {
                lg_finding *f = lgc_add(c, R_REDUCE_AXES, x, NULL, "%s axis %lld on an input of rank %u", x->name, (long long)a, r);
                lgc_with_tensor(f, in);
                break;
            }
            if (!(seen & (1u << a))) {
                seen |= 1u << a;
                n_axes++;
                extent *= lgc_T(c, in)->shape[a];
            }
        }
        if ((code == LG_OP_MEAN || code == LG_OP_SUM) && n_axes >= 2 && extent >= 65536) {
            lg_finding *f = lgc_add(c, R_LARGE_MULTI_AXIS_REDUCE, x, NULL, "%s over %d axes reduces %lld elements of %s at once (>= 65536)",
                                x->name, n_axes, (long long)extent, lgc_shp(c, in, s1, sizeof s1));
            lgc_with_tensor(f, in);
        }
        break;
    }
    case LG_OP_PAD: case LG_OP_PADV2: case LG_OP_MIRROR_PAD: {
        if (x->n_rt != 1 || op->n_outputs != 1)
            lgc_add(c, R_INPUT_COUNT, x, NULL, "%s has %d runtime inputs; the GPU takes 1", x->name, x->n_rt);
        if (op->n_inputs >= 2 && op->inputs[1] >= 0) {
            need_static(c, x, 1, "paddings");
            const lg_tensor *p = lgc_T(c, op->inputs[1]);
            if (!(p->rank == 2 && (p->shape[0] == 4 || p->shape[0] == 3) && p->shape[1] == 2)) {
                lg_finding *f = lgc_add(c, R_PAD_SHAPE, x, NULL, "%s paddings %s: the GPU takes 4x2 or 3x2 (rank-3 or rank-4 data)",
                                    x->name, lgc_shp(c, op->inputs[1], s1, sizeof s1));
                lgc_with_tensor(f, op->inputs[1]);
            }
        }
        if ((code == LG_OP_PAD || code == LG_OP_PADV2) && op->n_inputs >= 2 && op->inputs[0] >= 0 && op->inputs[1] >= 0 &&
            c->is_const[op->inputs[1]]) {
            const lg_tensor *d = lgc_T(c, op->inputs[0]);
            int64_t b0 = 0, a0 = 0;
            int pads_batch = lgc_const_int(c, op->inputs[1], 0, &b0) && lgc_const_int(c, op->inputs[1], 1, &a0) && (b0 || a0);
            if ((d->rank == 3 && d->shape[0] > 1) || (d->rank == 4 && pads_batch)) {
                lg_finding *f = lgc_add(c, R_WEBGPU_PAD_LAYOUT, x, NULL, "%s of %s %s", x->name, lgc_shp(c, op->inputs[0], s1, sizeof s1),
                                    d->rank == 3 ? "(a rank-3 tensor with a first dimension > 1)" : "pads the batch axis");
                lgc_with_tensor(f, op->inputs[0]);
            }
        }
        if (code == LG_OP_MIRROR_PAD && op->opts && ((const lg_mirror_pad_options *)op->opts)->mode != 0)
            lgc_add(c, R_MIRROR_PAD_MODE, x, NULL, "MIRROR_PAD mode SYMMETRIC");
        if (code == LG_OP_PADV2 && op->n_inputs >= 3 && op->inputs[2] >= 0) {
            double v = 0;
            int32_t cv = op->inputs[2];
            if (c->is_const[cv] && lgc_const_float(c, cv, 0, &v) && v != 0) {
                lg_finding *f = lgc_add(c, R_PADV2_NONZERO, x, NULL, "PADV2 pads with %g", v);
                lgc_with_tensor(f, cv);
            } else if (!c->is_const[cv]) {
                lgc_add(c, R_OP_PARAMS, x, NULL, "PADV2 constant value must be a constant float scalar");
            }
        }
        break;
    }
    case LG_OP_PACK: case LG_OP_UNPACK: case LG_OP_PRELU: case LG_OP_SPLIT:
        break;
    case LG_OP_SPLIT_V:
        if (c->target == LG_TARGET_MLDRIFT && !(x->n_rt == 1 && x->n_const == 2))
            lgc_add(c, R_INPUT_COUNT, x, NULL, "SPLIT_V has %d runtime and %d constant inputs; ML Drift takes 1 + 2", x->n_rt, x->n_const);
        break;
    case LG_OP_ONE_HOT: {
        if (c->target == LG_TARGET_MLDRIFT ? x->n_in < 4 : x->n_in != 4) {
            lgc_add(c, R_INPUT_COUNT, x, NULL, "ONE_HOT has %d inputs; the GPU takes 4", x->n_in);
            break;
        }
        if (op->n_outputs != 1) { lgc_add(c, R_INPUT_COUNT, x, NULL, "ONE_HOT has %u outputs", op->n_outputs); break; }
        const lg_tensor *ids = lgc_T(c, op->inputs[0]), *out = lgc_T(c, op->outputs[0]);
        int axis = op->opts ? ((const lg_one_hot_options *)op->opts)->axis : -1;
        if (axis != -1 && axis != (int)out->rank - 1)
            lgc_add(c, R_OP_PARAMS, x, NULL, "ONE_HOT axis %d: only -1 (the last dimension) is supported", axis);
        if (c->target == LG_TARGET_MLDRIFT) {
            /* ML Drift skips the shared check; its own parser checks the axis and 4-D ids */
            if (ids->rank == 4 && ids->shape[3] != 1)
                lgc_add(c, R_OP_PARAMS, x, NULL, "ONE_HOT 4-D indices need dims[3] == 1");
            break;
        }
        if (ids->type != LG_INT32) lgc_add(c, R_OP_PARAMS, x, NULL, "ONE_HOT indices must be INT32");
        if (!c->is_const[op->inputs[2]] || !c->is_const[op->inputs[3]] || lgc_numel_of(c, op->inputs[2]) != 1 ||
            lgc_numel_of(c, op->inputs[3]) != 1)
            lgc_add(c, R_OP_PARAMS, x, NULL, "ONE_HOT on/off values must be constant scalars");
        for (uint32_t d = 0; d + 1 < out->rank; d++) {
            int batch = out->rank > 3 && d == 0;
            if (!batch && out->shape[d] != 1) {
                lgc_add(c, R_OP_PARAMS, x, NULL, "ONE_HOT output %s: only the batch and channel dimensions may be larger than 1",
                    lgc_shp(c, op->outputs[0], s1, sizeof s1));
                break;
            }
        }
        break;
    }
    case LG_OP_RESHAPE:
        if (x->n_rt != 1 || op->n_outputs != 1)
            lgc_add(c, R_INPUT_COUNT, x, NULL, "RESHAPE has %d runtime inputs; the GPU takes 1 (the shape must be constant)", x->n_rt);
        need_static(c, x, 1, "shape");
        break;
    case LG_OP_RESIZE_BILINEAR: case LG_OP_RESIZE_NEAREST_NEIGHBOR:
        need_io(c, x, 1, -1, 1);
        need_static(c, x, 1, "size");
        if (code == LG_OP_RESIZE_BILINEAR && op->opts) {
            const lg_resize_bilinear_options *o = op->opts;
            if (o->align_corners && o->half_pixel_centers)
                lgc_add(c, R_RESIZE_FLAGS, x, NULL, "If half_pixel_centers is True, align_corners must be False.");
            else if (o->align_corners)
                lgc_add(c, R_RESIZE_ALIGN_CORNERS, x, NULL, "RESIZE_BILINEAR with align_corners=True");
        }
        break;
    case LG_OP_REVERSE_V2:
        need_io(c, x, 1, 1, 1);
        need_const_i32(c, x, 1, "axes");
        break;
    case LG_OP_SELECT: case LG_OP_SELECT_V2: {
        if (x->n_in != 3 || op->n_outputs != 1) { lgc_add(c, R_INPUT_COUNT, x, NULL, "%s has %d inputs; the GPU takes 3", x->name, x->n_in); break; }
        const lg_tensor *cond = lgc_T(c, op->inputs[0]), *out = lgc_T(c, op->outputs[0]);
        if (!(cond->type == LG_BOOL || lgc_is_float(cond->type)))
            lgc_add(c, R_OP_PARAMS, x, NULL, "%s condition is %s (BOOL/FLOAT16/FLOAT32 only)", x->name, lg_dtype_name(cond->type));
        if (!np_broadcastable(cond, out))
            lgc_add(c, R_OP_PARAMS, x, NULL, "%s condition %s does not broadcast to the output %s", x->name,
                lgc_shp(c, op->inputs[0], s1, sizeof s1), lgc_shp(c, op->outputs[0], s2, sizeof s2));
        for (int k = 1; k <= 2; k++) {
            int32_t t = op->inputs[k];
            const lg_tensor *v = lgc_T(c, t);
            int same = v->rank == out->rank;
            for (uint32_t i = 0; same && i < v->rank; i++) same = v->shape[i] == out->shape[i];
            if (!same && lgc_numel_of(c, t) != 1) {
                lg_finding *f = lgc_add(c, R_OP_PARAMS, x, NULL, "%s %s value %s must equal the output shape %s or be a scalar",
                                    x->name, k == 1 ? "true" : "false", lgc_shp(c, t, s1, sizeof s1), lgc_shp(c, op->outputs[0], s2, sizeof s2));
                lgc_with_tensor(f, t);
            } else if (c->target == LG_TARGET_CLASSIC && v->rank == 2 && !c->is_const[t] && lgc_numel_of(c, t) != 1) {
                lgc_add(c, R_OP_PARAMS, x, NULL, "2-D if/else tensor only supported if constant");
            }
        }
        break;
    }
    case LG_OP_SLICE: case LG_OP_STRIDED_SLICE: {
        int32_t in = op->n_inputs ? op->inputs[0] : -1;
        if (in < 0) break;
        uint32_t r = lgc_T(c, in)->rank;
        /* ML Drift checks SLICE in its own parser and STRIDED_SLICE with its own compat copy:
           both take rank 1-4 (rank-1/2 STRIDED_SLICE seen delegated and exact on WebGPU) */
        int ml = c->target == LG_TARGET_MLDRIFT, ml_slice = ml && code == LG_OP_SLICE;
        if (ml ? (r < 1 || r > 4) : (r != 3 && r != 4)) {
            lg_finding *f = lgc_add(c, R_SLICE_RANK, x, NULL, "%s input %s has rank %u (the GPU takes %s)", x->name,
                                lgc_shp(c, in, s1, sizeof s1), r, ml ? "1-4" : "3 or 4");
            lgc_with_tensor(f, in);
        }
        if (ml_slice && c->is_const[in]) lgc_add(c, R_OP_PARAMS, x, NULL, "%s input must be a runtime tensor", x->name);
        for (uint32_t k = 1; k < op->n_inputs; k++) need_static(c, x, k, k == 1 ? "begin" : k == 2 ? (code == LG_OP_SLICE ? "size" : "end") : "strides");
        if (code == LG_OP_STRIDED_SLICE) {
            const lg_strided_slice_options *o = op->opts;
            if (o && (o->ellipsis_mask || o->new_axis_mask || o->shrink_axis_mask))
                lgc_add(c, R_STRIDED_SLICE_MASKS, x, NULL, "STRIDED_SLICE ellipsis_mask %d new_axis_mask %d shrink_axis_mask %d",
                    o->ellipsis_mask, o->new_axis_mask, o->shrink_axis_mask);
            if (op->n_inputs >= 4 && op->inputs[3] >= 0 && c->is_const[op->inputs[3]]) {
                for (int64_t i = 0; i < lgc_numel_of(c, op->inputs[3]) && i < 8; i++) {
                    int64_t s;
                    if (lgc_const_int(c, op->inputs[3], (uint32_t)i, &s) && s <= 0) {
                        lgc_add(c, s == 0 ? R_OP_PARAMS : R_STRIDED_SLICE_REVERSE, x, NULL,
                            s == 0 ? "STRIDED_SLICE stride 0 on axis %lld" : "Reverse slices are not supported: stride %lld on axis %lld",
                            s == 0 ? (long long)i : (long long)s, (long long)i);
                        break;
                    }
                }
            }
        }
        break;
    }
    case LG_OP_SOFTMAX:
        need_io(c, x, 1, 0, 1);
        if (op->opts && ((const lg_softmax_options *)op->opts)->beta != 1.0f)
            lgc_add(c, R_SOFTMAX_BETA, x, NULL, "SOFTMAX beta %g", (double)((const lg_softmax_options *)op->opts)->beta);
        break;
    case LG_OP_TILE:
        need_io(c, x, 1, -1, 1);
        need_static(c, x, 1, "multiples");
        break;
    case LG_OP_TOPK_V2:
        if (x->n_rt != 1 || op->n_outputs != 2)
            lgc_add(c, R_INPUT_COUNT, x, NULL, "TOPK_V2 has %d runtime inputs and %u outputs; the GPU takes 1 and 2", x->n_rt, op->n_outputs);
        if (op->n_inputs >= 2 && op->inputs[1] >= 0 && (!c->is_const[op->inputs[1]] || lgc_numel_of(c, op->inputs[1]) != 1))
            lgc_add(c, R_OP_PARAMS, x, NULL, "TOPK_V2 k must be a constant scalar");
        break;
    case LG_OP_TRANSPOSE:
        need_io(c, x, 1, -1, 1);
        need_static(c, x, 1, "permutation");
        if (op->n_inputs >= 2 && op->inputs[1] >= 0) {
            int64_t n = lgc_numel_of(c, op->inputs[1]);
            if (n < 2 || n > 4) {
                lg_finding *f = lgc_add(c, R_TRANSPOSE_PERM, x, NULL, "TRANSPOSE permutation of length %lld", (long long)n);
                lgc_with_tensor(f, op->inputs[1]);
            }
        }
        break;
    case LG_OP_TRANSPOSE_CONV: {
        if (x->n_in < 3) { lgc_add(c, R_INPUT_COUNT, x, NULL, "TRANSPOSE_CONV has %d inputs", x->n_in); break; }
        const lg_transpose_conv_options *o = op->opts;
        if (o && (o->stride_h <= 0 || o->stride_w <= 0))
            lgc_add(c, R_OP_PARAMS, x, NULL, "TRANSPOSE_CONV stride %dx%d must be > 0", o->stride_h, o->stride_w);
        need_static(c, x, 0, "output shape");
        lg_finding *f = lgc_add(c, R_MALI_TRANSPOSE_CONV, x, NULL, "TRANSPOSE_CONV %s -> %s",
                            lgc_shp(c, op->inputs[2], s1, sizeof s1), op->n_outputs ? lgc_shp(c, op->outputs[0], s2, sizeof s2) : "?");
        lgc_with_tensor(f, op->inputs[2]);
        break;
    }
    case LG_OP_STABLEHLO_BROADCAST_IN_DIM:
        need_io(c, x, 1, 1, -1);
        break;
    case LG_OP_STABLEHLO_CLAMP:
        need_io(c, x, 3, 0, -1);
        break;
    default:
        break;
    }
}

