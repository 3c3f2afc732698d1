/* litegpu quantize int8-static: clamps folded into the op that produces their input
 * (quant_static_impl.h, lgqs_fold_find / lgqs_fold_check).
 *
 * A clamp chain: an int8 producer P (a WEIGHTED, BINARY or UNARY row without fixed output
 * parameters) whose output x is read by one op only, a clamp -- MAXIMUM or MINIMUM of x and a
 * constant scalar, RELU [0, inf), RELU6 [0, 6], RELU_N1_TO_1 [-1, 1], RELU_0_TO_1 [0, 1] --
 * and so on while each output has one reader (ONNX's Clip(0, 6) arrives as
 * MINIMUM(MAXIMUM(x, 0), 6)). The chain is the clamp [a, b], the intersection of its bounds
 * and of P's own fused activation; P then writes the chain's last tensor z directly, with z's
 * parameters (s, zp), and the clamp ops are gone.
 *
 * Why this is exact on the int8 model, and only there. With x, the chain's tensors and z
 * sharing z's parameters (TFLite's restrict_same_input_output_scale for MAXIMUM / MINIMUM),
 * the clamp ops compute clamp(x_q, max(-128, q(a)), min(127, q(b))) on the raw integers, q(v)
 * = zp + TfLiteRound(v / s) (the constant's QUANTIZE; ReluPrepare's bounds), and P writes x_q
 * = clamp(requant(acc), lo_act, hi_act) with its fused activation's integer range. So the
 * fold is exact when some fused activation has exactly the chain's integer bounds, in both
 * arithmetics the file runs in: TFLite's CalculateActivationRangeQuantized (kernel_util.cc,
 * q(v) clamped) and XNNPACK's (the delegate's float bounds, lrintf(v / s + zp) clamped;
 * k_quant.c lgq_act_range). The natural activation (RELU6 for [0, 6], RELU for [0, inf),
 * RELU_N1_TO_1 for [-1, 1]) is tried first, then NONE: int8 saturation alone is the clamp
 * when both bounds fall at or outside [-128, 127] -- the producer's output range is the
 * clamp's (a RELU output's range starts at 0, so its zero point is -128 and q(0) = -128). A
 * chain no activation matches (Clip(0.5, 6): q(0.5) > -128) is not folded: its ops stay int8
 * MAXIMUM / MINIMUM (or float).
 * In float the same rewrite is not exact: TFLite's float MAXIMUM is el1 > el2 ? el1 : el2
 * (maximum_minimum.cc MaximumOp), so MAXIMUM(NaN, 0) is 0, while a fused RELU6
 * (ActivationFunctionWithMinMax: std::min(std::max(x, 0), 6)) keeps the NaN; the float model
 * keeps its ops. int8 has no NaN, and the integer clamp is the only thing left to compare.
 */
#include <math.h>
#include <string.h>

#include "lg/ops.h"
#include "passes/quant_static_impl.h"

/* kernel_util.cc Quantize: zp + (int32)TfLiteRound(v / s), in float (as k_quant.c). */
static int64_t q_tflite(float v, float s, int32_t zp) {
    if (isinf(v)) return v > 0 ? INT32_MAX : INT32_MIN;
    return (int64_t)zp + (int64_t)roundf(v / s);
}

bool lgqs_act_bounds(int act, bool xnnpack, float s, int32_t zp, int32_t *lo, int32_t *hi) {
    float a, b;
    switch (act) {
    case LG_ACTIVATION_FUNCTION_TYPE_NONE: *lo = -128; *hi = 127; return true;
    case LG_ACTIVATION_FUNCTION_TYPE_RELU: a = 0; b = INFINITY; break;
    case LG_ACTIVATION_FUNCTION_TYPE_RELU6: a = 0; b = 6; break;
    case LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1: a = -1; b = 1; break;
    default: return false;
    }
    if (xnnpack) { /* lrintf(clamp(v / s + zp, qmin, qmax)) */
        *lo = (int32_t)rintf(fminf(fmaxf(a / s + (float)zp, -128.0f), 127.0f));
        *hi = (int32_t)rintf(fminf(fmaxf(b / s + (float)zp, -128.0f), 127.0f));
        return true;
    }
    int64_t l = q_tflite(a, s, zp), h = isinf(b) ? 127 : q_tflite(b, s, zp);
    *lo = (int32_t)(l > -128 ? l : -128);
    *hi = (int32_t)(h < 127 ? h : 127);
    return true;
}

/* ------------------------------------------------------------------ the chains */

static void act_interval(int act, float *a, float *b) {
    *a = -INFINITY;
    *b = INFINITY;
    if (act == LG_ACTIVATION_FUNCTION_TYPE_RELU || act == LG_ACTIVATION_FUNCTION_TYPE_RELU6) *a = 0;
    if (act == LG_ACTIVATION_FUNCTION_TYPE_RELU6) *b = 6;
    if (act == LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1) *a = -1, *b = 1;
}

static bool same_shape(const lg_tensor *x, const lg_tensor *y) {
    if (x->rank != y->rank) return false;
    for (uint32_t d = 0; d < x->rank; d++)
        if (x->shape[d] != y->shape[d]) return false;
    return true;
}

/* Op u reads t (once) and clamps it: its bounds in [*a, *b]. */
static bool clamp_of(const lgqs_plan *p, uint32_t u, int32_t t, float *a, float *b) {
    const lg_op *op = &p->sg->ops[u];
    const int32_t code = lg_op_builtin(p->src, op);
    if (op->n_outputs != 1 || !lgqs_is_act(p, op->outputs[0])) return false;
    *a = -INFINITY;
    *b = INFINITY;
    switch (code) {
    case LG_OP_RELU: *a = 0; return op->n_inputs == 1 && op->inputs[0] == t;
    case LG_OP_RELU6: *a = 0; *b = 6; return op->n_inputs == 1 && op->inputs[0] == t;
    case LG_OP_RELU_N1_TO_1: *a = -1; *b = 1; return op->n_inputs == 1 && op->inputs[0] == t;
    case LG_OP_RELU_0_TO_1: *a = 0; *b = 1; return op->n_inputs == 1 && op->inputs[0] == t;
    case LG_OP_MAXIMUM: case LG_OP_MINIMUM: {
        if (op->n_inputs != 2) return false;
        const int32_t c = op->inputs[0] == t ? op->inputs[1] : op->inputs[0];
        if (c < 0 || c == t || (op->inputs[0] != t && op->inputs[1] != t) || !p->cderived[c]) return false;
        int64_t n = 0;
        const float *v = lgq_calib_values(p->cal, c, &n);
        if (!v || n != 1 || isnan(v[0])) return false;
        if (!same_shape(&p->sg->tensors[t], &p->sg->tensors[op->outputs[0]])) return false; /* no broadcast */
        if (code == LG_OP_MAXIMUM) *a = v[0];
        else *b = v[0];
        return true;
    }
    default: return false;
    }
}

/* Producer rows: the op computes its output with parameters of its own. */
static bool producer_row(const lgqs_op *e) {
    return e && (e->kind == LGQS_WEIGHTED || e->kind == LGQS_BINARY || (e->kind == LGQS_UNARY && !(e->fixed_scale > 0)));
}

void lgqs_fold_find(lgqs_plan *p) {
    for (uint32_t i = 0; i < p->n_ops; i++) {
        p->fold_z[i] = p->fold_of[i] = -1;
        p->fold_off[i] = 0;
        p->fold_act[i] = 0;
    }
    for (uint32_t i = 0; i < p->n_ops; i++) {
        const lg_op *op = &p->sg->ops[i];
        if (p->fold_of[i] >= 0 || !p->eligible[i] || op->n_outputs != 1) continue;
        if (!producer_row(lgqs_find(lg_op_builtin(p->src, op)))) continue;
        float a, b;
        act_interval(lgqs_fused_act(op), &a, &b);
        int32_t t = op->outputs[0], last = -1;
        for (;;) {
            uint32_t n = 0;
            const lg_use *u = lg_graph_uses(p->g, t, &n);
            if (n != 1 || lg_graph_is_output(p->g, t) || !p->eligible[u[0].op] || p->fold_of[u[0].op] >= 0) break;
            float ca, cb;
            if (!clamp_of(p, (uint32_t)u[0].op, t, &ca, &cb)) break;
            const float na = ca > a ? ca : a, nb = cb < b ? cb : b;
            if (!(na <= nb)) break; /* an empty clamp (a constant output): left alone */
            a = na;
            b = nb;
            p->fold_of[u[0].op] = (int32_t)i;
            last = u[0].op;
            t = p->sg->ops[last].outputs[0];
        }
        if (last < 0) continue;
        p->fold_z[i] = t;
        p->fold_ab[i][0] = a;
        p->fold_ab[i][1] = b;
    }
}

/* ------------------------------------------------------------------ the activation */

/* Options whose fused activation the int8 rewrite can set. */
static bool settable_act(const lg_op *op) {
    switch (op->opts_kind) {
    case LG_OPTS_CONV2D_OPTIONS: case LG_OPTS_DEPTHWISE_CONV2D_OPTIONS: case LG_OPTS_FULLY_CONNECTED_OPTIONS:
    case LG_OPTS_ADD_OPTIONS: case LG_OPTS_SUB_OPTIONS: case LG_OPTS_MUL_OPTIONS: case LG_OPTS_DIV_OPTIONS:
    case LG_OPTS_TRANSPOSE_CONV_OPTIONS:
        return op->opts != NULL;
    default: return false;
    }
}

static bool act_matches(int act, float s, int32_t zp, int32_t lo, int32_t hi) {
    int32_t l, h;
    for (int x = 0; x < 2; x++)
        if (!lgqs_act_bounds(act, x == 1, s, zp, &l, &h) || l != lo || h != hi) return false;
    return true;
}

/* The fused activation that is exactly the chain's integer clamp with z's parameters, or -1. */
static int fold_act_for(const lgqs_plan *p, uint32_t i) {
    const int32_t z = p->fold_z[i];
    const float s = p->scale[z], a = p->fold_ab[i][0], b = p->fold_ab[i][1];
    const int32_t zp = p->zp[z];
    const int64_t la = isinf(a) ? -128 : q_tflite(a, s, zp), hb = isinf(b) ? 127 : q_tflite(b, s, zp);
    const int32_t lo = (int32_t)(la > -128 ? (la < 127 ? la : 127) : -128);
    const int32_t hi = (int32_t)(hb < 127 ? (hb > -128 ? hb : -128) : 127);
    const lg_op *op = &p->sg->ops[i];
    const lgqs_op *e = lgqs_find(lg_op_builtin(p->src, op));
    if (e->act == 1 && settable_act(op)) {
        int natural = -1;
        if (a == 0 && isinf(b)) natural = LG_ACTIVATION_FUNCTION_TYPE_RELU;
        if (a == 0 && b == 6) natural = LG_ACTIVATION_FUNCTION_TYPE_RELU6;
        if (a == -1 && b == 1) natural = LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1;
        if (natural >= 0 && act_matches(natural, s, zp, lo, hi)) return natural;
    }
    /* NONE: the op's options must be able to say so (or have no activation at all) */
    if (!settable_act(op) && lgqs_fused_act(op) != LG_ACTIVATION_FUNCTION_TYPE_NONE) return -1;
    return act_matches(LG_ACTIVATION_FUNCTION_TYPE_NONE, s, zp, lo, hi) ? LG_ACTIVATION_FUNCTION_TYPE_NONE : -1;
}

bool lgqs_fold_check(lgqs_plan *p) {
    bool changed = false;
    for (uint32_t i = 0; i < p->n_ops; i++) {
        if (!lgqs_fold_active(p, i)) continue;
        const int act = fold_act_for(p, i);
        if (act >= 0) {
            p->fold_act[i] = (int8_t)act;
            continue;
        }
        p->fold_off[i] = 1;
        changed = true;
    }
    return changed;
}
