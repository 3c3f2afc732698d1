/* fp16 hardening: the pattern matchers (include/lg/passes.h, "fp16 hardening").
 *
 * A norm is anchored at its RSQRT or SQRT (or the L2_NORMALIZATION op) and read backwards to
 * the statistic and forwards to the normalized output. The forms taken, with x the input and
 * every reduction keep_dims over the same constant axes:
 *
 *   statistic m2  mean((x - mean(x))^2)          our ONNX importer (lower_reduce.c normalize():
 *                                                MUL(d, d)), torch/ONNX opset 13 (POW(d, 2))
 *                 mean(SQUARED_DIFFERENCE(x, mean(x)))   the TF converter's keras LayerNorm
 *                                                (tf.nn.moments)
 *                 mean(x^2) - mean(x)^2          mhlo's unfused batch_norm_training, through
 *                                                which litert-torch lowers native_layer_norm
 *                                                (odml_torch/lowerings/_layer_norm.py; XLA's
 *                                                unfuse_batch_norm.cc: EX2 - EX*EX)
 *                 mean(x^2) | sum(x^2)           RMSNorm | L2 norm (x*x, SQUARE(x), POW(x, 2))
 *   root          RSQRT(m2 + eps), SQRT(m2 + eps), RSQRT(max(m2, eps)) (tf.math.l2_normalize),
 *                 max(SQRT(m2), eps) (torch F.normalize's clamp_min)
 *   output        t * r, r * t, t / root, t * (1 / root), with t = x - mean(x) or x
 *
 * A pattern whose normalized output is not one op (the keras form computes
 * x * (r * gamma) + (beta - mean * r * gamma)) still matches: its rewrite replaces the mean and
 * the root instead, which every later op reads.
 *
 * A global reduce is a MEAN over several axes, or a SUM, of >= LGP_FP16_GLOBAL_MIN elements per
 * value that is not part of a norm; a SUM that only feeds a MUL or DIV by a scalar constant (a
 * mean written as SUM / n) is matched with it. */
#include <math.h>
#include <stdlib.h>

#include "passes/fix_fp16.h"
#include "util/half.h"

typedef struct fm {
    const lg_model *m;
    uint32_t sg;
    const lg_graph *g;
} fm;

static const lg_subgraph *sgp(const fm *f) { return &f->m->subgraphs[f->sg]; }
static const lg_op *opp(const fm *f, int32_t op) { return &sgp(f)->ops[op]; }
static int32_t code_of(const fm *f, int32_t op) {
    return op < 0 ? -1 : lg_op_builtin(f->m, opp(f, op));
}
static int32_t prod(const fm *f, int32_t t) { return t < 0 ? -1 : lg_graph_producer(f->g, t); }
static const lg_tensor *tp(const fm *f, int32_t t) { return &sgp(f)->tensors[t]; }

static void add_op(lgp_fp16_match *mt, int32_t op) {
    if (op < 0) return;
    for (uint32_t i = 0; i < mt->n_ops; i++)
        if (mt->ops[i] == (uint32_t)op) return;
    if (mt->n_ops < LG_HARDEN_MAX_OPS) mt->ops[mt->n_ops++] = (uint32_t)op;
}

bool lgp_fp16_match_has(const lgp_fp16_match *mt, uint32_t op) {
    for (uint32_t i = 0; i < mt->n_ops; i++)
        if (mt->ops[i] == op) return true;
    return false;
}

/* A runtime FLOAT32 tensor of static shape, no quantization. */
static bool is_f32(const fm *f, int32_t t) {
    if (t < 0 || (uint32_t)t >= sgp(f)->n_tensors || lg_tensor_is_const(f->m, f->sg, t)) return false;
    const lg_tensor *x = tp(f, t);
    if (x->type != LG_FLOAT32 || x->rank > LG_MAX_RANK || lg_tensor_numel(x) <= 0) return false;
    if (x->quant && (x->quant->n_scale || x->quant->n_zero_point)) return false;
    for (uint32_t k = 0; k < x->n_shape_signature; k++)
        if (x->shape_signature[k] < 0) return false;
    return true;
}

/* A one-element float constant; its value in *v. */
static bool const_scalar(const fm *f, int32_t t, float *v) {
    if (t < 0 || !lg_tensor_is_const(f->m, f->sg, t)) return false;
    const lg_tensor *x = tp(f, t);
    const lg_buffer *b = lg_tensor_buffer(f->m, x);
    if (!b || lg_tensor_numel(x) != 1 || x->sparsity) return false;
    if (x->quant && (x->quant->n_scale || x->quant->n_zero_point)) return false;
    if (x->type == LG_FLOAT32 && b->size == 4) {
        uint32_t u = lgi_rd_u32(b->data);
        memcpy(v, &u, 4);
    } else if (x->type == LG_FLOAT16 && b->size == 2) {
        *v = lg_half_to_float(lgi_rd_u16(b->data));
    } else {
        return false;
    }
    return isfinite(*v);
}

/* The fused activation of an op (0 = NONE) for the options that carry one. */
static int fused_act(const lg_op *op) {
    if (!op->opts) return 0;
    switch (op->opts_kind) {
    case LG_OPTS_ADD_OPTIONS: return ((const lg_add_options *)op->opts)->fused_activation_function;
    case LG_OPTS_SUB_OPTIONS: return ((const lg_sub_options *)op->opts)->fused_activation_function;
    case LG_OPTS_MUL_OPTIONS: return ((const lg_mul_options *)op->opts)->fused_activation_function;
    case LG_OPTS_DIV_OPTIONS: return ((const lg_div_options *)op->opts)->fused_activation_function;
    case LG_OPTS_L2_NORM_OPTIONS:
        return ((const lg_l2_norm_options *)op->opts)->fused_activation_function;
    case LG_OPTS_CONV2D_OPTIONS:
        return ((const lg_conv2d_options *)op->opts)->fused_activation_function;
    case LG_OPTS_DEPTHWISE_CONV2D_OPTIONS:
        return ((const lg_depthwise_conv2d_options *)op->opts)->fused_activation_function;
    case LG_OPTS_FULLY_CONNECTED_OPTIONS:
        return ((const lg_fully_connected_options *)op->opts)->fused_activation_function;
    default: return 0;
    }
}

/* op is `code` with two inputs and one output, no fused activation. */
static bool binop(const fm *f, int32_t op, int32_t code, int32_t *a, int32_t *b) {
    if (op < 0 || code_of(f, op) != code) return false;
    const lg_op *o = opp(f, op);
    if (o->n_inputs != 2 || o->n_outputs != 1 || o->inputs[0] < 0 || o->inputs[1] < 0) return false;
    if (fused_act(o)) return false;
    *a = o->inputs[0];
    *b = o->inputs[1];
    return true;
}

/* op is a MEAN/SUM/... (`code`) with constant axes over a FLOAT32 input; the axes as a mask of
   the input's dimensions. */
static bool reducer(const fm *f, int32_t op, int32_t code, int32_t *in, uint32_t *mask, bool *keep) {
    if (op < 0 || code_of(f, op) != code) return false;
    const lg_op *o = opp(f, op);
    if (o->n_inputs != 2 || o->n_outputs != 1 || !is_f32(f, o->inputs[0])) return false;
    int64_t ax[LG_MAX_RANK];
    uint32_t n = 0;
    if (!lg_tensor_const_ints(f->m, tp(f, o->inputs[1]), ax, LG_MAX_RANK, &n) || n == 0) return false;
    const int32_t r = (int32_t)tp(f, o->inputs[0])->rank;
    *mask = 0;
    for (uint32_t k = 0; k < n; k++) {
        int64_t a = ax[k] < 0 ? ax[k] + r : ax[k];
        if (a < 0 || a >= r) return false;
        *mask |= 1u << a;
    }
    *keep = o->opts && o->opts_kind == LG_OPTS_REDUCER_OPTIONS && ((const lg_reducer_options *)o->opts)->keep_dims;
    *in = o->inputs[0];
    return true;
}

/* t is MEAN(x) over mask, keep_dims. */
static bool is_mean_of(const fm *f, int32_t t, uint32_t mask, int32_t x) {
    int32_t in;
    uint32_t mk;
    bool keep;
    return reducer(f, prod(f, t), LG_OP_MEAN, &in, &mk, &keep) && keep && mk == mask && in == x;
}

/* The base of a square: MUL(t, t), SQUARE(t), POW(t, 2); -1 otherwise. */
static int32_t square_of(const fm *f, int32_t op) {
    int32_t a, b;
    float e;
    int32_t code = code_of(f, op);
    if (code == LG_OP_MUL && binop(f, op, LG_OP_MUL, &a, &b)) return a == b ? a : -1;
    if (code == LG_OP_POW && binop(f, op, LG_OP_POW, &a, &b)) return const_scalar(f, b, &e) && e == 2.0f ? a : -1;
    if (code == LG_OP_SQUARE) {
        const lg_op *o = opp(f, op);
        return o->n_inputs == 1 && o->n_outputs == 1 ? o->inputs[0] : -1;
    }
    return -1;
}

/* The variance as mean(x^2) - mean(x)^2 (m2 = SUB(e2, mm)). */
static bool stat_moment2(const fm *f, int32_t p, lgp_fp16_match *mt) {
    int32_t e2, mm, in, mu;
    uint32_t mask;
    bool keep;
    if (!binop(f, p, LG_OP_SUB, &e2, &mm)) return false;
    int32_t pe = prod(f, e2), pm = prod(f, mm);
    if (!reducer(f, pe, LG_OP_MEAN, &in, &mask, &keep) || !keep) return false;
    int32_t x = square_of(f, prod(f, in));
    if (x < 0 || (mu = square_of(f, pm)) < 0 || !is_mean_of(f, mu, mask, x)) return false;
    mt->centered = mt->moment2 = true;
    mt->x = x;
    mt->mu = mu;
    mt->axes = mask;
    add_op(mt, p);
    add_op(mt, pe);
    add_op(mt, prod(f, in));
    add_op(mt, pm);
    add_op(mt, prod(f, mu));
    return true;
}

/* The statistic under the root (see the header comment); fills x, mu, d, axes, centred. */
static bool stat_of(const fm *f, int32_t m2, lgp_fp16_match *mt) {
    int32_t p = prod(f, m2), code = code_of(f, p), in, a, b;
    uint32_t mask;
    bool keep;
    if (code == LG_OP_SUB) return stat_moment2(f, p, mt);
    if (!(code == LG_OP_MEAN || code == LG_OP_SUM) || !reducer(f, p, code, &in, &mask, &keep) || !keep)
        return false;
    int32_t q = prod(f, in), base = square_of(f, q);
    mt->axes = mask;
    if (base >= 0) {
        int32_t pb = prod(f, base);
        if (code == LG_OP_MEAN && binop(f, pb, LG_OP_SUB, &a, &b) && is_mean_of(f, b, mask, a)) {
            mt->centered = true;
            mt->x = a;
            mt->mu = b;
            mt->d = base;
            add_op(mt, pb);
            add_op(mt, prod(f, b));
        } else {
            mt->x = base;
            mt->sum = code == LG_OP_SUM;
        }
        add_op(mt, p);
        add_op(mt, q);
        return true;
    }
    if (code == LG_OP_MEAN && binop(f, q, LG_OP_SQUARED_DIFFERENCE, &a, &b)) {
        if (is_mean_of(f, b, mask, a)) { mt->x = a; mt->mu = b; }
        else if (is_mean_of(f, a, mask, b)) { mt->x = b; mt->mu = a; }
        else return false;
        mt->centered = true;
        add_op(mt, p);
        add_op(mt, q);
        add_op(mt, prod(f, mt->mu));
        return true;
    }
    return false;
}

/* t is the tensor normalized: x (uncentred) or x - mu (centred; found if not yet known). */
static bool is_normalized(const fm *f, lgp_fp16_match *mt, int32_t t, int32_t *d_op) {
    int32_t a, b;
    *d_op = -1;
    if (!mt->centered) return t == mt->x;
    if (mt->d >= 0) return t == mt->d;
    if (binop(f, prod(f, t), LG_OP_SUB, &a, &b) && a == mt->x && b == mt->mu) {
        *d_op = prod(f, t);
        return true;
    }
    return false;
}

/* The normalized output: t * root_inverse or t / root (t from is_normalized). */
static void find_output(const fm *f, lgp_fp16_match *mt, int32_t root, bool root_is_inverse) {
    uint32_t nu;
    const lg_use *u = lg_graph_uses(f->g, root, &nu);
    float one;
    for (uint32_t k = 0; k < nu && mt->y < 0; k++) {
        int32_t a, b, d_op, op = u[k].op;
        if (root_is_inverse && binop(f, op, LG_OP_MUL, &a, &b)) {
            int32_t t = a == root ? b : a;
            if ((a == root) != (b == root) && is_normalized(f, mt, t, &d_op)) {
                mt->y = opp(f, op)->outputs[0];
                add_op(mt, op);
                add_op(mt, d_op);
                if (d_op >= 0) mt->d = t;
            }
        } else if (!root_is_inverse && binop(f, op, LG_OP_DIV, &a, &b) && b == root) {
            if (const_scalar(f, a, &one) && one == 1.0f) {
                mt->inv = opp(f, op)->outputs[0];
                add_op(mt, op);
                find_output(f, mt, mt->inv, true);
                if (mt->y < 0) { mt->inv = -1; mt->n_ops--; }
            } else if (is_normalized(f, mt, a, &d_op)) {
                mt->y = opp(f, op)->outputs[0];
                add_op(mt, op);
                add_op(mt, d_op);
                if (d_op >= 0) mt->d = a;
            }
        }
    }
}

static void init_match(lgp_fp16_match *mt, uint32_t op) {
    memset(mt, 0, sizeof *mt);
    mt->anchor = (int32_t)op;
    mt->x = mt->mu = mt->d = mt->r = mt->s = mt->c = mt->inv = mt->y = -1;
    mt->eps_op = mt->scale_op = mt->result = mt->reduce_out = mt->conv_op = mt->conv_out = -1;
    mt->scale = 1.0;
}

/* eps under the root: ADD(m2, eps) / MAXIMUM(m2, eps); returns m2. */
static int32_t peel_eps(const fm *f, int32_t in, lgp_fp16_match *mt) {
    int32_t pe = prod(f, in), a, b, code = code_of(f, pe);
    if ((code == LG_OP_ADD || code == LG_OP_MAXIMUM) && binop(f, pe, code, &a, &b)) {
        for (uint32_t side = 0; side < 2; side++) {
            int32_t k = side ? a : b, v = side ? b : a;
            if (const_scalar(f, k, &mt->eps) && mt->eps >= 0 && !lg_tensor_is_const(f->m, f->sg, v)) {
                mt->eps_kind = code == LG_OP_ADD ? LGP_EPS_ADD : LGP_EPS_MAX;
                mt->eps_op = pe;
                mt->eps_slot = side ? 0 : 1;
                add_op(mt, pe);
                return v;
            }
        }
    }
    return in;
}

/* A SQRT followed by MAXIMUM(s, eps) (clamp on the root); the clamp becomes the root. */
static int32_t peel_root_clamp(const fm *f, int32_t s, lgp_fp16_match *mt) {
    uint32_t nu;
    const lg_use *u = lg_graph_uses(f->g, s, &nu);
    int32_t a, b;
    if (nu != 1 || lg_graph_is_output(f->g, s) || !binop(f, u[0].op, LG_OP_MAXIMUM, &a, &b)) return s;
    int32_t k = a == s ? b : a;
    if (!const_scalar(f, k, &mt->eps) || !(mt->eps >= 0)) return s;
    mt->eps_kind = LGP_EPS_MAX_ROOT;
    mt->eps_op = u[0].op;
    mt->eps_slot = a == s ? 1 : 0;
    mt->c = opp(f, u[0].op)->outputs[0];
    add_op(mt, u[0].op);
    return mt->c;
}

static int64_t extent_of(const lg_tensor *x, uint32_t mask) {
    int64_t n = 1;
    for (uint32_t d = 0; d < x->rank; d++)
        if (mask & (1u << d)) n *= x->shape[d];
    return n;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Every use of t is an op of the match, and t is not a graph output. */
static bool uses_within(const fm *f, int32_t t, const lgp_fp16_match *mt) {
    if (lg_graph_is_output(f->g, t)) return false;
    uint32_t nu;
    const lg_use *u = lg_graph_uses(f->g, t, &nu);
    for (uint32_t k = 0; k < nu; k++)
        if (!lgp_fp16_match_has(mt, (uint32_t)u[k].op)) return false;
    return nu > 0;
}

/* A constant weight/bias input: a FLOAT32 constant, or DEQUANTIZE of a FLOAT16 constant. */
static bool const_weights(const fm *f, int32_t t) {
    if (t < 0) return false;
    const lg_tensor *x = tp(f, t);
    if (x->quant && (x->quant->n_scale || x->quant->n_zero_point)) return false;
    if (lg_tensor_is_const(f->m, f->sg, t)) return x->type == LG_FLOAT32 && !x->sparsity;
    int32_t p = prod(f, t);
    if (code_of(f, p) != LG_OP_DEQUANTIZE || x->type != LG_FLOAT32) return false;
    int32_t w = opp(f, p)->inputs[0];
    return w >= 0 && lg_tensor_is_const(f->m, f->sg, w) && tp(f, w)->type == LG_FLOAT16 && !tp(f, w)->sparsity;
}

/* The conv whose output only feeds the norm (through single-use RESHAPE/TRANSPOSE). */
static void find_conv(const fm *f, lgp_fp16_match *mt) {
    if (mt->l2_op || !uses_within(f, mt->x, mt)) return;
    int32_t t = mt->x;
    for (int hop = 0; hop < 4; hop++) {
        int32_t p = prod(f, t), code = code_of(f, p);
        if (p < 0) return;
        const lg_op *o = opp(f, p);
        if ((code == LG_OP_RESHAPE || code == LG_OP_TRANSPOSE) && o->n_outputs == 1 && o->n_inputs >= 1) {
            int32_t in = o->inputs[0];
            uint32_t nu;
            lg_graph_uses(f->g, in, &nu);
            if (in < 0 || nu != 1 || lg_graph_is_output(f->g, in) || lg_graph_n_consumers(f->g, in) != 1) return;
            t = in;
            continue;
        }
        if (code != LG_OP_CONV_2D && code != LG_OP_DEPTHWISE_CONV_2D && code != LG_OP_FULLY_CONNECTED) return;
        int act = fused_act(o);
        if ((act != 0 && act != 1) || o->n_outputs != 1 || o->n_inputs < 2 || !is_f32(f, o->inputs[0])) return;
        if (!const_weights(f, o->inputs[1])) return;
        if (o->n_inputs > 2 && o->inputs[2] >= 0 && !const_weights(f, o->inputs[2])) return;
        if (code == LG_OP_FULLY_CONNECTED && o->opts &&
            ((const lg_fully_connected_options *)o->opts)->weights_format != 0)
            return;
        mt->conv_op = p;
        mt->conv_out = t;
        return;
    }
}

/* t = x * POW(c, k): the scaled input of a pattern this pass already made safe (the rewrite's own
   form must never match again). */
static bool is_safe_scaled(const fm *f, int32_t t) {
    int32_t a, b, base, k;
    if (!binop(f, prod(f, t), LG_OP_MUL, &a, &b)) return false;
    for (int side = 0; side < 2; side++) {
        int32_t inv = side ? a : b;
        if (binop(f, prod(f, inv), LG_OP_POW, &base, &k) && lg_tensor_is_const(f->m, f->sg, base) &&
            !lg_tensor_is_const(f->m, f->sg, k))
            return true;
    }
    return false;
}

static bool finish_norm(const fm *f, lgp_fp16_match *mt) {
    if (!is_f32(f, mt->x) || is_safe_scaled(f, mt->x)) return false;
    const lg_tensor *x = tp(f, mt->x);
    mt->extent = extent_of(x, mt->axes);
    if (mt->centered) {
        /* one axis: a layer norm (the last axis, or NCHW's channels); several: instance/group */
        mt->kind = (mt->axes & (mt->axes - 1)) == 0 ? LG_FP16_LAYER_NORM : LG_FP16_INSTANCE_NORM;
    } else {
        mt->kind = mt->sum ? LG_FP16_L2_NORM : LG_FP16_RMS_NORM;
    }
    /* every statistic has the reduced shape (a broadcast eps would widen it) */
    const int32_t stats[] = {mt->mu, mt->r, mt->s, mt->c, mt->inv};
    for (uint32_t k = 0; k < sizeof stats / sizeof stats[0]; k++) {
        if (stats[k] < 0) continue;
        const lg_tensor *s = tp(f, stats[k]);
        if (s->rank != x->rank || s->type != LG_FLOAT32) return false;
        for (uint32_t d = 0; d < x->rank; d++)
            if (s->shape[d] != (mt->axes & (1u << d) ? 1 : x->shape[d])) return false;
    }
    if (mt->y >= 0 && !lgp_same_layout(tp(f, mt->y), x)) return false;
    if (mt->d >= 0 && !lgp_same_layout(tp(f, mt->d), x)) return false;
    if (mt->n_ops >= LG_HARDEN_MAX_OPS) return false;
    find_conv(f, mt);
    qsort(mt->ops, mt->n_ops, sizeof mt->ops[0], cmp_u32);
    return true;
}

static bool match_l2_op(const fm *f, uint32_t op, lgp_fp16_match *mt) {
    const lg_op *o = opp(f, (int32_t)op);
    if (o->n_inputs != 1 || o->n_outputs != 1 || fused_act(o) || !is_f32(f, o->inputs[0])) return false;
    if (!lgp_same_layout(tp(f, o->inputs[0]), tp(f, o->outputs[0]))) return false;
    mt->l2_op = mt->sum = true;
    mt->x = o->inputs[0];
    mt->y = o->outputs[0];
    mt->axes = 1u << (tp(f, mt->x)->rank - 1);
    /* tflite/kernels/internal/reference/l2normalization.h: x / max(sqrt(sum x^2), 1e-6) */
    mt->eps_kind = LGP_EPS_MAX_ROOT;
    mt->eps = 1e-6f;
    add_op(mt, (int32_t)op);
    return finish_norm(f, mt);
}

static bool match_norm(const fm *f, uint32_t op, lgp_fp16_match *mt) {
    int32_t code = code_of(f, (int32_t)op);
    if (code == LG_OP_L2_NORMALIZATION) return match_l2_op(f, op, mt);
    if (code != LG_OP_RSQRT && code != LG_OP_SQRT) return false;
    const lg_op *o = opp(f, (int32_t)op);
    if (o->n_inputs != 1 || o->n_outputs != 1 || o->inputs[0] < 0) return false;
    add_op(mt, (int32_t)op);
    int32_t m2 = peel_eps(f, o->inputs[0], mt);
    if (!stat_of(f, m2, mt)) return false;
    if (code == LG_OP_RSQRT) {
        mt->r = o->outputs[0];
        find_output(f, mt, mt->r, true);
    } else {
        mt->s = o->outputs[0];
        int32_t root = mt->eps_kind == LGP_EPS_NONE ? peel_root_clamp(f, mt->s, mt) : mt->s;
        find_output(f, mt, root, false);
    }
    /* a centred norm's SQUARED_DIFFERENCE or moment form with no output found keeps d = -1 */
    return finish_norm(f, mt);
}

/* ------------------------------------------------------------------ global reduce */

static bool part_of_norm(const fm *f, uint32_t op) {
    int32_t frontier[32], next[32];
    uint32_t nf = 1, depth;
    frontier[0] = (int32_t)op;
    for (depth = 0; depth < 5 && nf; depth++) {
        uint32_t nn = 0;
        for (uint32_t i = 0; i < nf; i++) {
            const lg_op *o = opp(f, frontier[i]);
            for (uint32_t k = 0; k < o->n_outputs; k++) {
                uint32_t nu;
                const lg_use *u = o->outputs[k] >= 0 ? lg_graph_uses(f->g, o->outputs[k], &nu) : NULL;
                for (uint32_t j = 0; u && j < nu; j++) {
                    int32_t c = code_of(f, u[j].op);
                    if (c == LG_OP_RSQRT || c == LG_OP_SQRT) {
                        lgp_fp16_match mt;
                        init_match(&mt, (uint32_t)u[j].op);
                        if (match_norm(f, (uint32_t)u[j].op, &mt) && lgp_fp16_match_has(&mt, op)) return true;
                    }
                    if (nn < 32) next[nn++] = u[j].op;
                }
            }
        }
        memcpy(frontier, next, nn * sizeof next[0]);
        nf = nn;
    }
    return false;
}

/* A SUM whose only use is MUL/DIV by a scalar constant. */
static void find_sum_scale(const fm *f, lgp_fp16_match *mt) {
    int32_t t = mt->reduce_out, a, b;
    uint32_t nu;
    const lg_use *u = lg_graph_uses(f->g, t, &nu);
    float k;
    if (nu != 1 || lg_graph_is_output(f->g, t)) return;
    int32_t op = u[0].op;
    if (binop(f, op, LG_OP_MUL, &a, &b) && (a == t) != (b == t) && const_scalar(f, a == t ? b : a, &k)) {
        mt->scale = k;
    } else if (binop(f, op, LG_OP_DIV, &a, &b) && a == t && b != t && const_scalar(f, b, &k) && k != 0) {
        mt->scale = 1.0 / (double)k;
    } else {
        return;
    }
    if (!lgp_same_layout(tp(f, opp(f, op)->outputs[0]), tp(f, t))) return;
    mt->scale_op = op;
    mt->result = opp(f, op)->outputs[0];
    add_op(mt, op);
}

static bool match_reduce(const fm *f, uint32_t op, lgp_fp16_match *mt) {
    int32_t code = code_of(f, (int32_t)op), in;
    uint32_t mask;
    bool keep;
    if (!reducer(f, (int32_t)op, code, &in, &mask, &keep)) return false;
    const lg_op *o = opp(f, (int32_t)op);
    if (!is_f32(f, o->outputs[0])) return false;
    int n_axes = 0;
    for (uint32_t d = 0; d < LG_MAX_RANK; d++) n_axes += (mask >> d) & 1;
    mt->extent = extent_of(tp(f, in), mask);
    if (mt->extent < LGP_FP16_GLOBAL_MIN || (code == LG_OP_MEAN && n_axes < 2)) return false;
    if (part_of_norm(f, op)) return false;
    mt->kind = LG_FP16_GLOBAL_REDUCE;
    mt->x = in;
    mt->axes = mask;
    mt->sum = code == LG_OP_SUM;
    mt->reduce_keep = keep;
    mt->reduce_out = mt->result = o->outputs[0];
    add_op(mt, (int32_t)op);
    if (mt->sum) find_sum_scale(f, mt);
    qsort(mt->ops, mt->n_ops, sizeof mt->ops[0], cmp_u32);
    return true;
}

/* ------------------------------------------------------------------ entry points */

bool lgp_fp16_match_at(const lg_model *m, uint32_t sg, const lg_graph *g, uint32_t op, lgp_fp16_match *out) {
    fm f = {m, sg, g};
    if (op >= m->subgraphs[sg].n_ops) return false;
    init_match(out, op);
    int32_t code = code_of(&f, (int32_t)op);
    if (code == LG_OP_MEAN || code == LG_OP_SUM) return match_reduce(&f, op, out);
    return match_norm(&f, op, out);
}

lg_status lgp_fp16_match_all(const lg_model *m, uint32_t sg, lgp_fp16_match **out, uint32_t *n,
                             lg_error *err) {
    *out = NULL;
    *n = 0;
    lg_graph *g = NULL;
    LG_TRY(lg_graph_build(m, sg, &g, err));
    uint32_t cap = 0;
    lgp_fp16_match mt;
    for (uint32_t i = 0; i < m->subgraphs[sg].n_ops; i++) {
        if (!lgp_fp16_match_at(m, sg, g, i, &mt)) continue;
        if (*n == cap) {
            uint32_t nc = cap ? cap * 2 : 8;
            lgp_fp16_match *p = realloc(*out, nc * sizeof *p);
            if (!p) {
                lg_graph_free(g);
                free(*out);
                *out = NULL;
                *n = 0;
                return lgi_fail(err, LG_ERR_NOMEM, "out of memory for the fp16 matches");
            }
            *out = p;
            cap = nc;
        }
        (*out)[(*n)++] = mt;
    }
    lg_graph_free(g);
    return LG_OK;
}

/* A tensor some op outside the match reads, or a graph output. */
static bool used_outside(const fm *f, int32_t t, const lgp_fp16_match *mt) {
    if (t < 0) return false;
    if (lg_graph_is_output(f->g, t)) return true;
    uint32_t nu;
    const lg_use *u = lg_graph_uses(f->g, t, &nu);
    for (uint32_t k = 0; k < nu; k++)
        if (!lgp_fp16_match_has(mt, (uint32_t)u[k].op)) return true;
    return false;
}

uint32_t lgp_fp16_results(const lg_model *m, uint32_t sg, const lg_graph *g, const lgp_fp16_match *mt,
                          int32_t *t) {
    fm f = {m, sg, g};
    uint32_t n = 0;
    if (mt->kind == LG_FP16_GLOBAL_REDUCE) {
        t[n++] = mt->result;
        return n;
    }
    if (mt->y >= 0) t[n++] = mt->y;
    const int32_t cand[] = {mt->mu, mt->d, mt->r, mt->s, mt->c, mt->inv};
    for (uint32_t k = 0; k < sizeof cand / sizeof cand[0]; k++)
        if (cand[k] != mt->y && used_outside(&f, cand[k], mt)) t[n++] = cand[k];
    return n;
}
