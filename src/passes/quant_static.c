/* litegpu quantize int8-static: the plan (quant_static.h has the rules and their sources).
 *
 *  1. Which ops can compute in int8: a row of quant_static_ops.def, its constraints (fused
 *     activation, constant weights with finite values, ranks the kernels take), not kept float
 *     by the caller or an exclude pattern.
 *  2. Which ones do, in op order: the computing ops (WEIGHTED, BINARY) whenever they can; the
 *     others (activations, data movement, joins) when one of their data inputs is int8 already,
 *     so that a float island is not widened by a QUANTIZE / DEQUANTIZE pair around an op that
 *     gains nothing in int8.
 *  3. The parameter groups: a data-movement output joins its input's group, a join's inputs
 *     join its output's (an input whose group has fixed parameters is requantized instead);
 *     a group's range is the union of its members' own ranges (data-movement and join
 *     outputs have none of their own), its parameters TFLite's asymmetric ones.
 *  4. Constraints that need the parameters (XNNPACK's ADD scale ratios, HARD_SWISH's output
 *     scale, a DIV divisor at its zero point, RSQRT / SQRT inputs below 0, ...): a constant
 *     ADD / SUB / MUL operand under XNNPACK's ratio floor gets a coarser scale; an op that fails
 *     another goes back to float; a clamp chain whose integer bounds no fused activation
 *     matches is not folded; and 2-4 are redone.
 * Clamp chains (MAXIMUM / MINIMUM with a constant, RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1 after
 * a single-use output) are found after step 1 and folded into their producer, which then
 * writes the chain's last tensor with a fused activation: quant_static_fold.c says when that is
 * exact. SAME rows (MAXIMUM / MINIMUM) keep their output's own range and requantize the inputs
 * that do not lie inside it (TFLite's ApplyConstraints).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/ops.h"
#include "passes/quant_static_impl.h"

/* ------------------------------------------------------------------ the table */

#define WEIGHTED LGQS_WEIGHTED
#define BINARY LGQS_BINARY
#define UNARY LGQS_UNARY
#define MOVE LGQS_MOVE
#define JOIN LGQS_JOIN
#define SAME LGQS_SAME
static const lgqs_op op_table[] = {
#define X(code, kind, slot, axis, fs, fzp, act, src) {LG_OP_##code, kind, slot, axis, fs, fzp, act, src},
#include "passes/quant_static_ops.def"
#undef X
};
#undef WEIGHTED
#undef BINARY
#undef UNARY
#undef MOVE
#undef JOIN
#undef SAME

const lgqs_op *lgqs_find(int32_t code) {
    for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; i++)
        if (op_table[i].code == code) return &op_table[i];
    return NULL;
}

bool lgqs_act_slot(const lgqs_op *e, int32_t code, uint32_t slot) {
    switch (e->kind) {
    case LGQS_WEIGHTED: return slot == (uint32_t)e->data_slot;
    case LGQS_BINARY: case LGQS_SAME: return slot <= 1;
    case LGQS_UNARY: case LGQS_MOVE: return slot == (uint32_t)e->data_slot;
    case LGQS_JOIN: return true;
    }
    (void)code;
    return false;
}

/* ------------------------------------------------------------------ parameters */

void lgq_asym_params(double lo, double hi, float *scale, int32_t *zp) {
    float mn = (float)lo, mx = (float)hi;
    if (!(mn < 0)) mn = 0; /* hold 0 (NaN too) */
    if (!(mx > 0)) mx = 0;
    if ((double)mx - (double)mn < LGQ_MIN_WIDTH) {
        if (mx > 0 || mn == 0) mx = mn + (float)LGQ_MIN_WIDTH;
        else mn = mx - (float)LGQ_MIN_WIDTH;
    }
    /* GetAsymmetricQuantizationParams: float arithmetic, quant_min -128, quant_max 127 */
    const float qmin = -128.0f, qmax = 127.0f;
    const float s = (mx - mn) / (qmax - qmin);
    const float zf = qmin - mn / s;
    *scale = s;
    *zp = zf < qmin ? -128 : zf > qmax ? 127 : (int32_t)roundf(zf);
}

/* ------------------------------------------------------------------ union-find */

int32_t lgqs_root(const lgqs_plan *p, int32_t t) {
    while (p->parent[t] != t) t = p->parent[t];
    return t;
}

static int32_t find(lgqs_plan *p, int32_t t) {
    int32_t r = lgqs_root(p, t);
    while (p->parent[t] != r) {
        int32_t n = p->parent[t];
        p->parent[t] = r;
        t = n;
    }
    return r;
}

/* The smaller index becomes the root: the same groups give the same roots on every run. */
static void unite(lgqs_plan *p, int32_t a, int32_t b) {
    int32_t ra = find(p, a), rb = find(p, b);
    if (ra == rb) return;
    if (ra < rb) p->parent[rb] = ra;
    else p->parent[ra] = rb;
}

/* ------------------------------------------------------------------ tensors */

bool lgqs_is_act(const lgqs_plan *p, int32_t t) {
    if (t < 0 || (uint32_t)t >= p->n_tensors) return false;
    const lg_tensor *x = &p->sg->tensors[t];
    return x->type == LG_FLOAT32 && !x->is_variable && !p->cderived[t];
}

/* Constants, and the outputs of ops whose every input is one (folded at load, as the
   interpreter and TFLite's delegates do). The ops are in topological order in a model. */
static void mark_const(lgqs_plan *p) {
    for (uint32_t t = 0; t < p->n_tensors; t++) p->cderived[t] = lg_tensor_is_const(p->src, 0, (int32_t)t);
    for (uint32_t i = 0; i < p->n_ops; i++) {
        const lg_op *op = &p->sg->ops[i];
        bool all = false;
        for (uint32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k];
            if (t < 0) continue;
            if (!p->cderived[t]) {
                all = false;
                break;
            }
            all = true;
        }
        p->op_const[i] = all;
        for (uint32_t k = 0; all && k < op->n_outputs; k++)
            if (op->outputs[k] >= 0 && !p->sg->tensors[op->outputs[k]].is_variable) p->cderived[op->outputs[k]] = 1;
    }
}

/* ------------------------------------------------------------------ 1. constraints */

int lgqs_fused_act(const lg_op *op) {
    if (!op->opts) return 0;
    switch (op->opts_kind) {
    case LG_OPTS_CONV2D_OPTIONS: return ((const lg_conv2d_options *)op->opts)->fused_activation_function;
    case LG_OPTS_DEPTHWISE_CONV2D_OPTIONS: return ((const lg_depthwise_conv2d_options *)op->opts)->fused_activation_function;
    case LG_OPTS_FULLY_CONNECTED_OPTIONS: return ((const lg_fully_connected_options *)op->opts)->fused_activation_function;
    case LG_OPTS_ADD_OPTIONS: return ((const lg_add_options *)op->opts)->fused_activation_function;
    case LG_OPTS_SUB_OPTIONS: return ((const lg_sub_options *)op->opts)->fused_activation_function;
    case LG_OPTS_MUL_OPTIONS: return ((const lg_mul_options *)op->opts)->fused_activation_function;
    case LG_OPTS_DIV_OPTIONS: return ((const lg_div_options *)op->opts)->fused_activation_function;
    case LG_OPTS_TRANSPOSE_CONV_OPTIONS: return ((const lg_transpose_conv_options *)op->opts)->fused_activation_function;
    case LG_OPTS_POOL2D_OPTIONS: return ((const lg_pool2d_options *)op->opts)->fused_activation_function;
    case LG_OPTS_CONCATENATION_OPTIONS: return ((const lg_concatenation_options *)op->opts)->fused_activation_function;
    default: return 0;
    }
}

static const char *act_name(int a) {
    switch (a) {
    case LG_ACTIVATION_FUNCTION_TYPE_TANH: return "TANH";
    case LG_ACTIVATION_FUNCTION_TYPE_SIGN_BIT: return "SIGN_BIT";
    case LG_ACTIVATION_FUNCTION_TYPE_RELU: return "RELU";
    case LG_ACTIVATION_FUNCTION_TYPE_RELU6: return "RELU6";
    case LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1: return "RELU_N1_TO_1";
    default: return "?";
    }
}

/* Constant FLOAT32 values of t with every one finite (weights, biases), else why. */
static const char *finite_const(const lgqs_plan *p, int32_t t, int64_t want, const char *what, char *buf, size_t n) {
    if (t < 0 || !p->cderived[t]) return snprintf(buf, n, "its %s are computed at run time", what), buf;
    if (p->sg->tensors[t].type != LG_FLOAT32)
        return snprintf(buf, n, "its %s are %s, not float", what, lg_dtype_name(p->sg->tensors[t].type)), buf;
    int64_t cnt = 0;
    const float *v = lgq_calib_values(p->cal, t, &cnt);
    if (!v || (want >= 0 && cnt != want))
        return snprintf(buf, n, "its %s (tensor %d) have no values the interpreter folded", what, t), buf;
    for (int64_t i = 0; i < cnt; i++)
        if (!isfinite(v[i])) return snprintf(buf, n, "its %s (tensor %d) hold inf or NaN", what, t), buf;
    return NULL;
}

/* TRANSPOSE_CONV's output_shape (input 0): a constant INT32 [4] (transpose_conv.cc). */
static const char *check_tconv(const lgqs_plan *p, const lg_op *op) {
    const int32_t os = op->inputs[0];
    if (os < 0 || !p->cderived[os] || p->sg->tensors[os].type != LG_INT32 || lg_tensor_numel(&p->sg->tensors[os]) != 4)
        return "its output_shape is not a constant INT32 [4]";
    if (op->opts_kind != LG_OPTS_TRANSPOSE_CONV_OPTIONS || !op->opts) return "it has no TransposeConvOptions";
    return NULL;
}

static const char *check_weighted(const lgqs_plan *p, const lgqs_op *e, const lg_op *op, char *buf, size_t n) {
    const uint32_t ds = (uint32_t)e->data_slot, bs = lgqs_bias_slot(e);
    if (op->n_inputs <= ds || op->inputs[ds] < 0 || op->inputs[1] < 0) return "it has no weights input";
    if (op->n_outputs != 1) return "it has more than one output (shuffled weights)";
    const lg_tensor *x = &p->sg->tensors[op->inputs[ds]], *w = &p->sg->tensors[op->inputs[1]];
    if (e->code == LG_OP_TRANSPOSE_CONV) {
        const char *why = check_tconv(p, op);
        if (why) return why;
    }
    if (e->code == LG_OP_FULLY_CONNECTED) {
        const lg_fully_connected_options *fo = op->opts_kind == LG_OPTS_FULLY_CONNECTED_OPTIONS ? op->opts : NULL;
        if (fo && fo->weights_format != 0) return "its weights are shuffled (weights_format)";
        if (w->rank != 2) return snprintf(buf, n, "its weights are rank %u, not 2", w->rank), buf;
    } else {
        if (!op->opts) return "it has no options";
        if (w->rank != 4 || x->rank != 4)
            return snprintf(buf, n, "input rank %u, weights rank %u: the int8 kernel takes 4 and 4", x->rank, w->rank), buf;
        if (e->code == LG_OP_DEPTHWISE_CONV_2D && w->shape[0] != 1) return "its depthwise weights are not [1, H, W, C]";
    }
    int64_t n_ch = w->shape[e->axis];
    const char *why = finite_const(p, op->inputs[1], lg_tensor_numel(w), "weights", buf, n);
    if (why) return why;
    if (op->n_inputs > bs && op->inputs[bs] >= 0) {
        char b2[120];
        why = finite_const(p, op->inputs[bs], n_ch, "bias", b2, sizeof b2);
        if (why) return snprintf(buf, n, "%s (one per output channel, %lld)", why, (long long)n_ch), buf;
    }
    return NULL;
}

static const char *check_other(const lgqs_plan *p, const lgqs_op *e, const lg_op *op, char *buf, size_t n) {
    switch (e->code) {
    case LG_OP_AVERAGE_POOL_2D: case LG_OP_MAX_POOL_2D:
        if (!op->opts || op->opts_kind != LG_OPTS_POOL2D_OPTIONS) return "it has no Pool2DOptions";
        if (p->sg->tensors[op->inputs[0]].rank != 4) return "its input is not rank 4";
        return NULL;
    case LG_OP_PADV2:
        if (op->n_inputs > 2 && op->inputs[2] >= 0) {
            int32_t cv = op->inputs[2];
            if (!p->cderived[cv] || p->sg->tensors[cv].type != LG_FLOAT32 || lg_tensor_numel(&p->sg->tensors[cv]) != 1)
                return snprintf(buf, n, "its constant_values (tensor %d) is not one constant float", cv), buf;
        }
        return NULL;
    case LG_OP_MEAN:
        if (op->n_inputs != 2 || op->inputs[1] < 0 || !p->cderived[op->inputs[1]]) return "its axes are not constant";
        return NULL;
    case LG_OP_SOFTMAX:
        if (p->sg->tensors[op->inputs[0]].rank < 1) return "its input is a scalar";
        return NULL;
    case LG_OP_REDUCE_MAX: case LG_OP_REDUCE_MIN:
        if (op->n_inputs != 2 || op->inputs[1] < 0 || !p->cderived[op->inputs[1]]) return "its axes are not constant";
        return NULL;
    case LG_OP_RESIZE_BILINEAR: {
        const lg_resize_bilinear_options *o = op->opts_kind == LG_OPTS_RESIZE_BILINEAR_OPTIONS ? op->opts : NULL;
        if (p->sg->tensors[op->inputs[0]].rank != 4) return "its input is not rank 4";
        if (op->n_inputs != 2 || op->inputs[1] < 0 || !p->cderived[op->inputs[1]]) return "its size is not constant";
        if (o && o->align_corners && o->half_pixel_centers) return "align_corners and half_pixel_centers are both set";
        return NULL;
    }
    case LG_OP_DIV:
        /* div.cc: an int8 divisor equal to its zero point fails the op (CheckNonZero); only a
           constant's quantized values are known (param_refusal checks them) */
        if (op->inputs[1] < 0 || !p->cderived[op->inputs[1]])
            return "its divisor is computed at run time: an int8 divisor can round to its zero point, and TFLite's "
                   "int8 DIV fails on a zero divisor (div.cc)";
        return finite_const(p, op->inputs[1], -1, "divisor values", buf, n);
    case LG_OP_PRELU: case LG_OP_SQUARED_DIFFERENCE: case LG_OP_MAXIMUM: case LG_OP_MINIMUM: {
        /* PRELU: alpha broadcasts to the input's shape (PreluPrepare); the others broadcast */
        const lg_tensor *x = &p->sg->tensors[op->inputs[0]], *y = &p->sg->tensors[op->outputs[0]];
        if (op->n_inputs != 2 || op->inputs[1] < 0) return "it does not have two inputs";
        if (e->code == LG_OP_PRELU && lg_tensor_numel(x) != lg_tensor_numel(y)) return "its alpha does not broadcast to the input";
        return NULL;
    }
    default: return NULL;
    }
}

/* Why op i cannot compute in int8, or NULL. */
static const char *op_refusal(const lgqs_plan *p, uint32_t i, char *buf, size_t n) {
    const lg_op *op = &p->sg->ops[i];
    int32_t code = lg_op_builtin(p->src, op);
    if (p->keep_float && p->keep_float[i])
        return p->keep_float[i] == LGQ_KEEP_EXCLUDED ? "excluded (--exclude)" : "kept float by the caller";
    const lgqs_op *e = lgqs_find(code);
    if (!e) {
        if (code == LG_OP_CUSTOM) return snprintf(buf, n, "custom op %s: no int8 kernel", lg_op_name(p->src, op)), buf;
        return snprintf(buf, n, "litegpu's int8 interpreter has no %s kernel (src/run/k_quant.c)", lg_op_name(p->src, op)), buf;
    }
    if (op->n_outputs < 1) return "it has no output";
    for (uint32_t k = 0; k < op->n_outputs; k++) {
        int32_t t = op->outputs[k];
        if (t < 0 || !lgqs_is_act(p, t))
            return snprintf(buf, n, "output %u is %s, not a float activation", k, t < 0 ? "absent" : lg_dtype_name(p->sg->tensors[t].type)), buf;
    }
    bool runtime = false;
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        if (!lgqs_act_slot(e, code, k)) continue;
        if (t < 0) return snprintf(buf, n, "input %u is absent", k), buf;
        const lg_tensor *x = &p->sg->tensors[t];
        if (x->type != LG_FLOAT32 || x->is_variable)
            return snprintf(buf, n, "input %u is %s%s, not float", k, x->is_variable ? "a variable " : "", lg_dtype_name(x->type)), buf;
        runtime |= !p->cderived[t];
    }
    if (!runtime) return "its data inputs are constants";
    int act = lgqs_fused_act(op);
    if (e->act == 2 && act != LG_ACTIVATION_FUNCTION_TYPE_NONE)
        return snprintf(buf, n, "fused %s: the int8 kernel takes none", act_name(act)), buf;
    if (e->act == 1 && act != LG_ACTIVATION_FUNCTION_TYPE_NONE && act != LG_ACTIVATION_FUNCTION_TYPE_RELU &&
        act != LG_ACTIVATION_FUNCTION_TYPE_RELU6 && act != LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1)
        return snprintf(buf, n, "fused %s: the int8 kernels take RELU, RELU6, RELU_N1_TO_1 (lgq_act_range)", act_name(act)), buf;
    return e->kind == LGQS_WEIGHTED ? check_weighted(p, e, op, buf, n) : check_other(p, e, op, buf, n);
}

static void set_eligible(lgqs_plan *p) {
    for (uint32_t i = 0; i < p->n_ops; i++) {
        p->why[i][0] = 0;
        p->eligible[i] = 0;
        if (p->op_const[i]) continue;
        char buf[160];
        const char *why = op_refusal(p, i, buf, sizeof buf);
        if (why) snprintf(p->why[i], sizeof p->why[i], "%s", why);
        else p->eligible[i] = 1;
    }
}

/* ------------------------------------------------------------------ 2. the int8 ops */

static bool io_int8(const lgqs_plan *p, int32_t t) {
    return p->o->int8_io && lgqs_is_act(p, t) && lg_graph_is_input(p->g, t);
}

/* In op order: the int8 form of each tensor is known before its readers are decided. */
static void decide(lgqs_plan *p) {
    uint8_t *int8 = p->member; /* scratch: tensor produced in int8 (reset by make_groups) */
    memset(int8, 0, p->n_tensors);
    for (uint32_t t = 0; t < p->n_tensors; t++) int8[t] = io_int8(p, (int32_t)t);
    for (uint32_t i = 0; i < p->n_ops; i++) {
        const lg_op *op = &p->sg->ops[i];
        p->op_int8[i] = 0;
        if (lgqs_folded(p, i)) {
            p->op_int8[i] = 1; /* computed by its producer, which writes the chain's last tensor */
            continue;
        }
        if (!p->eligible[i]) continue;
        int32_t code = lg_op_builtin(p->src, op);
        const lgqs_op *e = lgqs_find(code);
        bool go = e->kind == LGQS_WEIGHTED || e->kind == LGQS_BINARY;
        for (uint32_t k = 0; !go && k < op->n_inputs; k++)
            if (lgqs_act_slot(e, code, k) && op->inputs[k] >= 0 && int8[op->inputs[k]]) go = true;
        if (!go) {
            snprintf(p->why[i], sizeof p->why[i],
                     "its input stays float (a data-movement or activation op follows its input: no boundary op for it)");
            continue;
        }
        p->op_int8[i] = 1;
        for (uint32_t k = 0; k < op->n_outputs; k++) int8[lgqs_output(p, i, k)] = 1;
    }
    /* the tensors inside an active chain vanish */
    memset(p->gone, 0, p->n_tensors);
    for (uint32_t i = 0; i < p->n_ops; i++) {
        if (!lgqs_fold_active(p, i)) continue;
        for (int32_t t = p->sg->ops[i].outputs[0]; t != p->fold_z[i];) {
            p->gone[t] = 1;
            uint32_t n = 0;
            const lg_use *u = lg_graph_uses(p->g, t, &n);
            t = p->sg->ops[u[0].op].outputs[0];
        }
    }
}

int32_t lgqs_output(const lgqs_plan *p, uint32_t i, uint32_t k) {
    if (k == 0 && lgqs_fold_active(p, i)) return p->fold_z[i];
    return p->sg->ops[i].outputs[k];
}

bool lgqs_fold_active(const lgqs_plan *p, uint32_t i) {
    return p->fold_z && p->fold_z[i] >= 0 && !p->fold_off[i] && p->op_int8[i];
}

/* ------------------------------------------------------------------ 3. groups and parameters */

/* The range a member brings to its group: a constant's values, an activation's estimate. */
static bool own_range(const lgqs_plan *p, int32_t t, double *lo, double *hi) {
    if (!p->cal->seen[t]) return false;
    if (p->cderived[t]) {
        *lo = p->cal->min[t];
        *hi = p->cal->max[t];
    } else {
        *lo = p->cal->lo[t];
        *hi = p->cal->hi[t];
    }
    return true;
}

bool lgqs_folded(const lgqs_plan *p, uint32_t i) { return p->fold_of[i] >= 0 && lgqs_fold_active(p, (uint32_t)p->fold_of[i]); }

/* SAME (MAXIMUM / MINIMUM): the output keeps its own range; an activation input whose own range
   lies inside it (widened to hold 0, as its parameters will be) joins its group, another is
   requantized into it; constants are quantized with the output's parameters (emit). */
static void same_groups(lgqs_plan *p, const uint8_t *fixed_root, uint32_t i) {
    const lg_op *op = &p->sg->ops[i];
    const int32_t out = op->outputs[0];
    double olo = 0, ohi = 0;
    const bool has = own_range(p, out, &olo, &ohi);
    if (olo > 0) olo = 0;
    if (ohi < 0) ohi = 0;
    for (uint32_t k = 0; k < op->n_inputs && k < 2; k++) {
        const int32_t t = op->inputs[k];
        if (t < 0 || p->cderived[t]) continue;
        double lo, hi;
        if (!fixed_root[find(p, t)] && has && own_range(p, t, &lo, &hi) && lo >= olo && hi <= ohi && !fixed_root[find(p, out)])
            unite(p, t, out);
        else
            p->rq[p->n_rq++] = (lgqs_requant){(int32_t)i, k, t};
    }
}

static void make_groups(lgqs_plan *p, uint8_t *fixed_root, float *fs, int32_t *fz) {
    memset(p->member, 0, p->n_tensors);
    memset(p->derived, 0, p->n_tensors);
    memset(fixed_root, 0, p->n_tensors);
    for (uint32_t t = 0; t < p->n_tensors; t++) p->parent[t] = (int32_t)t;
    p->n_rq = 0;
    for (uint32_t t = 0; t < p->n_tensors; t++)
        if (p->o->int8_io && lgqs_is_act(p, (int32_t)t) && (lg_graph_is_input(p->g, (int32_t)t) || lg_graph_is_output(p->g, (int32_t)t)))
            p->member[t] = 1;
    for (uint32_t i = 0; i < p->n_ops; i++) {
        if (!p->op_int8[i] || lgqs_folded(p, i)) continue;
        const lg_op *op = &p->sg->ops[i];
        int32_t code = lg_op_builtin(p->src, op);
        const lgqs_op *e = lgqs_find(code);
        for (uint32_t k = 0; k < op->n_inputs; k++)
            if (lgqs_act_slot(e, code, k) && op->inputs[k] >= 0 && !(e->kind == LGQS_SAME && p->cderived[op->inputs[k]]))
                p->member[op->inputs[k]] = 1;
        for (uint32_t k = 0; k < op->n_outputs; k++) {
            int32_t o = lgqs_output(p, i, k);
            p->member[o] = 1;
            if (e->kind == LGQS_MOVE) {
                p->derived[o] = 1;
                unite(p, o, op->inputs[e->data_slot]);
            }
        }
    }
    /* fixed parameters: the outputs of LOGISTIC, TANH, SOFTMAX and what only moves them */
    for (uint32_t i = 0; i < p->n_ops; i++) {
        if (!p->op_int8[i] || lgqs_folded(p, i)) continue;
        const lgqs_op *e = lgqs_find(lg_op_builtin(p->src, &p->sg->ops[i]));
        if (!(e->fixed_scale > 0)) continue;
        int32_t r = find(p, p->sg->ops[i].outputs[0]);
        fixed_root[r] = 1;
        fs[r] = e->fixed_scale;
        fz[r] = e->fixed_zp;
    }
    for (uint32_t i = 0; i < p->n_ops; i++) {
        if (!p->op_int8[i] || lgqs_folded(p, i)) continue;
        const lg_op *op = &p->sg->ops[i];
        const lgqs_op *e = lgqs_find(lg_op_builtin(p->src, op));
        if (e->kind == LGQS_SAME) {
            same_groups(p, fixed_root, i);
            continue;
        }
        if (e->kind != LGQS_JOIN) continue;
        int32_t out = op->outputs[0];
        p->derived[out] = 1;
        for (uint32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k];
            if (t < 0) continue;
            if (fixed_root[find(p, t)]) {
                p->rq[p->n_rq++] = (lgqs_requant){(int32_t)i, k, t};
                continue;
            }
            unite(p, t, out); /* neither group is fixed: the union is not either */
        }
    }
}

/* TFLite's parameters of [lo, hi]; with min_s > 0 the range (widened to hold 0) is stretched
   about 0 until the scale is at least min_s (a constant operand of ADD / SUB / MUL whose own
   scale XNNPACK refuses against the output's: its values keep their signs and the zero point
   its place, at a coarser step). */
static void group_params(double lo, double hi, float min_s, float *scale, int32_t *zp) {
    lgq_asym_params(lo, hi, scale, zp);
    if (!(*scale < min_s)) return;
    double mn = lo < 0 ? lo : 0, mx = hi > 0 ? hi : 0;
    if (mx - mn < LGQ_MIN_WIDTH) mx = mn + LGQ_MIN_WIDTH;
    double f = 255.0 * (double)min_s / (mx - mn) * (1 + 1e-6);
    for (int k = 0; k < 4 && *scale < min_s; k++, f *= 1 + 1e-5) lgq_asym_params(mn * f, mx * f, scale, zp);
}

static lg_status make_params(lgqs_plan *p, lg_error *err) {
    uint32_t n = p->n_tensors ? p->n_tensors : 1;
    uint8_t *fixed = calloc(n, 1), *any = calloc(n, 1);
    float *fs = calloc(n, sizeof *fs);
    int32_t *fz = calloc(n, sizeof *fz);
    double *glo = calloc(n, sizeof *glo), *ghi = calloc(n, sizeof *ghi);
    if (!fixed || !any || !fs || !fz || !glo || !ghi) {
        free(fixed); free(any); free(fs); free(fz); free(glo); free(ghi);
        return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    }
    make_groups(p, fixed, fs, fz);
    for (uint32_t t = 0; t < p->n_tensors; t++) {
        double lo, hi;
        if (!p->member[t] || p->derived[t] || !own_range(p, (int32_t)t, &lo, &hi)) continue;
        int32_t r = find(p, (int32_t)t);
        if (!any[r] || lo < glo[r]) glo[r] = lo;
        if (!any[r] || hi > ghi[r]) ghi[r] = hi;
        any[r] = 1;
    }
    for (uint32_t k = 0; k < p->n_rq; k++) { /* a requantized input's values join a JOIN's group */
        double lo, hi;
        const lgqs_op *e = lgqs_find(lg_op_builtin(p->src, &p->sg->ops[p->rq[k].op]));
        if (e->kind != LGQS_JOIN || !own_range(p, p->rq[k].tensor, &lo, &hi)) continue;
        int32_t r = find(p, p->sg->ops[p->rq[k].op].outputs[0]);
        if (!any[r] || lo < glo[r]) glo[r] = lo;
        if (!any[r] || hi > ghi[r]) ghi[r] = hi;
        any[r] = 1;
    }
    float *mins = fs; /* reused: per root, the largest min_scale of its members (fixed roots keep theirs) */
    for (uint32_t t = 0; t < p->n_tensors; t++) {
        if (!p->member[t] || !(p->min_scale[t] > 0)) continue;
        int32_t r = find(p, (int32_t)t);
        if (!fixed[r] && p->min_scale[t] > mins[r]) mins[r] = p->min_scale[t];
    }
    for (uint32_t t = 0; t < p->n_tensors; t++) {
        if (!p->member[t]) continue;
        int32_t r = find(p, (int32_t)t);
        if (fixed[r]) {
            p->scale[t] = fs[r];
            p->zp[t] = fz[r];
        } else {
            group_params(any[r] ? glo[r] : 0, any[r] ? ghi[r] : 0, mins[r], &p->scale[t], &p->zp[t]);
        }
    }
    free(fixed); free(any); free(fs); free(fz); free(glo); free(ghi);
    return LG_OK;
}

/* ------------------------------------------------------------------ 4. constraints on parameters */

/* QUANTIZE of a constant (emit's quant8): TfLiteRound(v / s) + zp, clamped. */
static int32_t quant_const(float v, float s, int32_t zp) {
    double d = (double)roundf(v / s) + zp;
    return d < -128 ? -128 : d > 127 ? 127 : (int32_t)d;
}

/* XNNPACK's int8 ADD / SUB and MUL (LiteRT tflite/delegates/xnnpack/xnnpack_delegate.cc
   VisitBinaryNode: CheckTensorsInputOutputScale in [1/1024, 256) for ADD / SUB,
   CheckTensorsInputProductOutputScale in [1/65536, 256) for MUL); LiteRT.js gives such an op
   to TFLite's kernel instead, which `litegpu run --int-arith xnnpack` does not model (it
   refuses the ADD, computes the MUL as XNNPACK). A constant operand below the lower bound (a
   LayerNorm epsilon, a bias of small values beside a large output) is given a coarser scale,
   the smallest the bound takes (widen_const): its rounding error, at most half that step, is
   1/2048 of the output's own step; otherwise the op stays float. */
static bool widen_const(lgqs_plan *p, uint32_t i) {
    const lg_op *op = &p->sg->ops[i];
    const int32_t code = lg_op_builtin(p->src, op);
    if ((code != LG_OP_ADD && code != LG_OP_SUB && code != LG_OP_MUL) || op->n_inputs != 2) return false;
    const float so = p->scale[lgqs_output(p, i, 0)];
    bool any = false;
    for (uint32_t k = 0; k < 2; k++) {
        const int32_t c = op->inputs[k], x = op->inputs[1 - k];
        if (c < 0 || x < 0 || !p->cderived[c] || p->cderived[x]) continue;
        float need;
        if (code == LG_OP_MUL) {
            if (p->scale[c] * p->scale[x] / so >= 0x1.0p-16f) continue;
            need = so * 0x1.0p-16f / p->scale[x];
        } else {
            if (p->scale[c] / so >= 0x1.0p-10f) continue;
            need = so * 0x1.0p-10f;
        }
        need *= 1.0f + 0x1.0p-12f;
        if (!(need > p->min_scale[c]) || !isfinite(need)) continue;
        p->min_scale[c] = need;
        any = true;
    }
    return any;
}

/* The largest requantization scale of TRANSPOSE_CONV's channels, s_in * s_w[c] / s_out, with
   s_w[c] = max |w_c| / 127 as lgq_symmetric stores them (XNNPACK refuses >= 256:
   deconvolution-nhwc.c; k_quant_tconv.c). */
static double tconv_max_ratio(const lgqs_plan *p, const lg_op *op, float so) {
    int64_t n = 0;
    const float *w = lgq_calib_values(p->cal, op->inputs[1], &n);
    const int32_t oc = p->sg->tensors[op->inputs[1]].shape[0];
    if (!w || oc < 1 || n % oc) return 0;
    const int64_t per = n / oc;
    double worst = 0; /* per channel or per tensor, the largest max |w| gives the largest ratio */
    for (int64_t j = 0; j < (int64_t)oc * per; j++) worst = fmax(worst, fabs((double)w[j]));
    return (double)p->scale[op->inputs[2]] * (worst / 127.0) / (double)so;
}

/* HARD_SWISH (activations.cc HardSwishPrepare): the output multiplier (s_in / 128) / s_out must
   be below 1. SQUARED_DIFFERENCE (squared_difference.cc): (2 max(s1, s2))^2 / (2^14 s_out) < 1
   (QuantizeMultiplierSmallerThanOneExp). DIV (div.cc CheckNonZero): no quantized divisor value
   at the divisor's zero point. RSQRT, SQRT (elementwise.cc): a negative input is an error, so
   the input must have no value below 0: zero point -128. */
static const char *param_refusal(const lgqs_plan *p, uint32_t i, char *buf, size_t n) {
    const lg_op *op = &p->sg->ops[i];
    const int32_t code = lg_op_builtin(p->src, op);
    const int32_t out = lgqs_output(p, i, 0);
    const float so = p->scale[out];
    switch (code) {
    case LG_OP_ADD: case LG_OP_SUB: {
        const float ao = p->scale[op->inputs[0]] / so, bo = p->scale[op->inputs[1]] / so;
        const float mx = ao > bo ? ao : bo;
        if (!(mx >= 0x1.0p-10f && mx < 0x1.0p+8f) || !(ao >= 0x1.0p-10f) || !(bo >= 0x1.0p-10f))
            return snprintf(buf, n, "input / output scale ratios %.3g and %.3g: XNNPACK's int8 %s takes [2^-10, 2^8)", (double)ao,
                            (double)bo, lg_builtin_name(code)), buf;
        return NULL;
    }
    case LG_OP_MUL: {
        const float r = p->scale[op->inputs[0]] * p->scale[op->inputs[1]] / so;
        if (!(r >= 0x1.0p-16f && r < 0x1.0p+8f))
            return snprintf(buf, n, "input scale product / output scale %.3g: XNNPACK's int8 MUL takes [2^-16, 2^8)", (double)r), buf;
        return NULL;
    }
    case LG_OP_HARD_SWISH: {
        const float r = (1.0f / 128.0f) * p->scale[op->inputs[0]] / so;
        if (!(r < 0.999f)) return snprintf(buf, n, "output scale %.3g below input scale / 128 (HardSwishPrepare's limit)", (double)so), buf;
        return NULL;
    }
    case LG_OP_SQUARED_DIFFERENCE: {
        const double mx = 2.0 * fmax((double)p->scale[op->inputs[0]], (double)p->scale[op->inputs[1]]);
        if (!(mx * mx / ((double)(1 << 14) * so) < 1.0))
            return snprintf(buf, n, "output scale %.3g: the output multiplier (2 max s_in)^2 / (2^14 s_out) is >= 1 (squared_difference.cc)", (double)so), buf;
        return NULL;
    }
    case LG_OP_DIV: {
        int64_t cnt = 0;
        const int32_t d = op->inputs[1];
        const float *v = lgq_calib_values(p->cal, d, &cnt);
        for (int64_t k = 0; v && k < cnt; k++)
            if (quant_const(v[k], p->scale[d], p->zp[d]) == p->zp[d])
                return snprintf(buf, n, "divisor value %g quantizes to its zero point (scale %.3g): TFLite's int8 DIV fails on it", (double)v[k],
                                (double)p->scale[d]), buf;
        return NULL;
    }
    case LG_OP_RSQRT: case LG_OP_SQRT:
        if (p->zp[op->inputs[0]] != -128)
            return snprintf(buf, n, "its input's range goes below 0 (zero point %d): TFLite's int8 %s fails on a negative input",
                            (int)p->zp[op->inputs[0]], lg_builtin_name(code)), buf;
        return NULL;
    case LG_OP_TRANSPOSE_CONV: {
        const double r = tconv_max_ratio(p, op, so);
        if (!(r < 256.0)) return snprintf(buf, n, "requantization scale %.3g >= 256 (XNNPACK's deconvolution refuses it)", r), buf;
        return NULL;
    }
    default: return NULL;
    }
}

/* Widen the constants XNNPACK's scale ratios need, refuse the ops whose parameters fail a
   constraint; true when something changed (the plan is redone). */
static bool demote(lgqs_plan *p) {
    bool any = false;
    for (uint32_t i = 0; i < p->n_ops; i++) {
        if (!p->op_int8[i] || lgqs_folded(p, i)) continue;
        if (widen_const(p, i)) {
            any = true;
            continue;
        }
        char buf[160];
        const char *why = param_refusal(p, i, buf, sizeof buf);
        if (!why) continue;
        snprintf(p->why[i], sizeof p->why[i], "%s", why);
        p->eligible[i] = 0;
        any = true;
    }
    return lgqs_fold_check(p) || any;
}

/* ------------------------------------------------------------------ the plan */

void lgqs_plan_free(lgqs_plan *p) {
    lg_graph_free(p->g);
    free(p->op_const);
    free(p->eligible);
    free(p->op_int8);
    free(p->why);
    free(p->fold_z);
    free(p->fold_of);
    free(p->fold_ab);
    free(p->fold_act);
    free(p->fold_off);
    free(p->cderived);
    free(p->member);
    free(p->derived);
    free(p->gone);
    free(p->min_scale);
    free(p->parent);
    free(p->scale);
    free(p->zp);
    free(p->rq);
    p->g = NULL;
    p->op_const = p->eligible = p->op_int8 = p->fold_off = p->cderived = p->member = p->derived = p->gone = NULL;
    p->why = NULL;
    p->fold_z = p->fold_of = p->parent = p->zp = NULL;
    p->fold_ab = NULL;
    p->fold_act = NULL;
    p->scale = p->min_scale = NULL;
    p->rq = NULL;
}

lg_status lgqs_plan_make(lgqs_plan *p, lg_error *err) {
    p->sg = &p->src->subgraphs[0];
    p->n_ops = p->sg->n_ops;
    p->n_tensors = p->sg->n_tensors;
    if (p->cal->src != p->src || p->cal->n_tensors != p->n_tensors)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "int8-static: the calibration is of another model");
    LG_TRY(lg_graph_build(p->src, 0, &p->g, err));
    size_t no = p->n_ops ? p->n_ops : 1, nt = p->n_tensors ? p->n_tensors : 1;
    uint64_t n_in = 0;
    for (uint32_t i = 0; i < p->n_ops; i++) n_in += p->sg->ops[i].n_inputs;
    p->op_const = calloc(no, 1);
    p->eligible = calloc(no, 1);
    p->op_int8 = calloc(no, 1);
    p->why = calloc(no, sizeof *p->why);
    p->fold_z = calloc(no, sizeof *p->fold_z);
    p->fold_of = calloc(no, sizeof *p->fold_of);
    p->fold_ab = calloc(no, sizeof *p->fold_ab);
    p->fold_act = calloc(no, 1);
    p->fold_off = calloc(no, 1);
    p->cderived = calloc(nt, 1);
    p->member = calloc(nt, 1);
    p->derived = calloc(nt, 1);
    p->gone = calloc(nt, 1);
    p->min_scale = calloc(nt, sizeof *p->min_scale);
    p->parent = calloc(nt, sizeof *p->parent);
    p->scale = calloc(nt, sizeof *p->scale);
    p->zp = calloc(nt, sizeof *p->zp);
    p->rq = calloc(n_in ? n_in : 1, sizeof *p->rq);
    if (!p->op_const || !p->eligible || !p->op_int8 || !p->why || !p->fold_z || !p->fold_of || !p->fold_ab || !p->fold_act ||
        !p->fold_off || !p->cderived || !p->member || !p->derived || !p->gone || !p->min_scale || !p->parent || !p->scale ||
        !p->zp || !p->rq)
        return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    mark_const(p);
    set_eligible(p);
    lgqs_fold_find(p);
    /* each round refuses at least one more op or fold, or widens a constant's scale (at most
       once per constant and operand side in practice), so this ends */
    for (uint32_t round = 0; round <= 2 * p->n_ops + 16; round++) {
        decide(p);
        LG_TRY(make_params(p, err));
        if (!demote(p)) return LG_OK;
    }
    return lgi_fail(err, LG_ERR_INTERNAL, "int8-static: the op choice did not settle");
}
