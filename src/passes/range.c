/* The sign of a tensor's values, proven from the ops that produce it (passes_impl.h:
 * lgp_nonneg, lgp_positive). Used where a rewrite is exact only on non-negative or positive
 * values: PADV2(-inf) + MAX_POOL_2D -> PAD(0) (fix_pool.c, the seed's ZeroPadMaxPool), POW
 * -> EXP(y * LOG(x)).
 *
 * Non-negative means no value is below 0: -0 and NaN may occur (RELU(-0) is -0 in TFLite's
 * kernel, max(0, x) with the comparison x < 0; SQRT of a negative is NaN). Positive means
 * > 0 in real arithmetic: fp32 may still round a tiny value to 0 (EXP of a very negative
 * value, LOGISTIC far out, a product that underflows).
 *
 * The rules, per producer (x = input 0; "as x" = the same sign as x):
 *   constant: its values (FLOAT32/FLOAT16, or DEQUANTIZE of a FLOAT16 constant)
 *   RELU, RELU6, RELU_0_TO_1, ABS, SQUARE, SQUARED_DIFFERENCE, SOFTMAX  >= 0
 *   LOGISTIC, EXP  > 0
 *   a fused RELU or RELU6 on any op  >= 0 (or > 0 if the op's own result is)
 *   SQRT: as x (sqrt(-0) = -0); RSQRT: > 0 when x > 0 (rsqrt(-0) = -inf)
 *   data movement (RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE, SLICE, STRIDED_SLICE, GATHER,
 *   GATHER_ND, TILE, BROADCAST_TO, DEPTH_TO_SPACE, SPACE_TO_DEPTH, REVERSE_V2, MIRROR_PAD,
 *   SPLIT_V, UNPACK, RESIZE_NEAREST_NEIGHBOR), MAX_POOL_2D, AVERAGE_POOL_2D, MEAN, SUM,
 *   REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, RESIZE_BILINEAR (non-negative weights summing to 1):
 *   as x; SPLIT: as its input 1
 *   CONCATENATION, PACK, MINIMUM, SELECT/SELECT_V2 (inputs 1 and 2): the weakest input
 *   MAXIMUM: the strongest input
 *   PAD: as x, at most >= 0 (the pad is 0); PADV2: the weaker of x and the pad value
 *   ADD: >= 0 when both are, > 0 when also one of them is
 *   MUL, DIV: >= 0 when both are, > 0 when both are (MUL(x, x) of anything: >= 0)
 *   POW: as the base, when the base is >= 0
 * Anything else proves nothing. The walk stops after 32 producers deep or 512 visits (it
 * then proves nothing, never too much). */
#include <stdlib.h>

#include "passes/fix_util.h"

enum { S_ANY = 0, S_NONNEG = 1, S_POS = 2 };

typedef struct walk {
    const lg_pass_ctx *c;
    const lg_graph *g;
    uint32_t budget;
} walk;

static int sign_of(walk *w, int32_t t, int depth);

static int min2(int a, int b) { return a < b ? a : b; }
static int max2(int a, int b) { return a > b ? a : b; }

static int const_sign(walk *w, int32_t t) {
    float *d = NULL;
    bool fp16 = false;
    if (!lgf_const_floats(w->c, w->g, t, &d, &fp16)) return S_ANY;
    int64_t n = lg_tensor_numel(lgp_tensor(w->c, t));
    int s = S_POS;
    for (int64_t k = 0; k < n && s != S_ANY; k++) {
        if (!(d[k] >= 0)) s = S_ANY;          /* negative or NaN */
        else if (!(d[k] > 0)) s = S_NONNEG;   /* +0 or -0 */
    }
    free(d);
    return s;
}

static int in_sign(walk *w, const lg_op *op, uint32_t k, int depth) {
    if (k >= op->n_inputs || op->inputs[k] < 0) return S_ANY;
    return sign_of(w, op->inputs[k], depth + 1);
}

/* The sign of producer p's own result, before its fused activation. */
static int op_sign(walk *w, uint32_t p, int depth) {
    const lg_op *op = lgp_op(w->c, p);
    int32_t code = lgp_code(w->c, p);
    switch (code) {
    case LG_OP_RELU: case LG_OP_RELU6: case LG_OP_RELU_0_TO_1: case LG_OP_ABS:
    case LG_OP_SQUARE: case LG_OP_SQUARED_DIFFERENCE: case LG_OP_SOFTMAX:
        return S_NONNEG;
    case LG_OP_LOGISTIC: case LG_OP_EXP:
        return S_POS;
    case LG_OP_SQRT:
        return in_sign(w, op, 0, depth);
    case LG_OP_RSQRT:
        return in_sign(w, op, 0, depth) == S_POS ? S_POS : S_ANY;
    case LG_OP_RESHAPE: case LG_OP_SQUEEZE: case LG_OP_EXPAND_DIMS: case LG_OP_TRANSPOSE:
    case LG_OP_SLICE: case LG_OP_STRIDED_SLICE: case LG_OP_GATHER: case LG_OP_GATHER_ND:
    case LG_OP_TILE: case LG_OP_BROADCAST_TO: case LG_OP_DEPTH_TO_SPACE:
    case LG_OP_SPACE_TO_DEPTH: case LG_OP_REVERSE_V2: case LG_OP_MIRROR_PAD: case LG_OP_SPLIT_V:
    case LG_OP_UNPACK: case LG_OP_RESIZE_NEAREST_NEIGHBOR: case LG_OP_RESIZE_BILINEAR:
    case LG_OP_MAX_POOL_2D: case LG_OP_AVERAGE_POOL_2D: case LG_OP_MEAN: case LG_OP_SUM:
    case LG_OP_REDUCE_MAX: case LG_OP_REDUCE_MIN: case LG_OP_REDUCE_PROD:
        return in_sign(w, op, 0, depth);
    case LG_OP_SPLIT:
        return in_sign(w, op, 1, depth);
    case LG_OP_CONCATENATION: case LG_OP_PACK: case LG_OP_MINIMUM: {
        int s = S_POS;
        for (uint32_t k = 0; k < op->n_inputs && s != S_ANY; k++) s = min2(s, in_sign(w, op, k, depth));
        return op->n_inputs ? s : S_ANY;
    }
    case LG_OP_SELECT: case LG_OP_SELECT_V2:
        return min2(in_sign(w, op, 1, depth), in_sign(w, op, 2, depth));
    case LG_OP_MAXIMUM:
        return max2(in_sign(w, op, 0, depth), in_sign(w, op, 1, depth));
    case LG_OP_PAD:
        return min2(in_sign(w, op, 0, depth), S_NONNEG);
    case LG_OP_PADV2:
        return min2(in_sign(w, op, 0, depth), in_sign(w, op, 2, depth));
    case LG_OP_ADD: {
        int a = in_sign(w, op, 0, depth);
        int b = a == S_ANY ? S_ANY : in_sign(w, op, 1, depth);
        if (a == S_ANY || b == S_ANY) return S_ANY;
        return max2(a, b);
    }
    case LG_OP_MUL: case LG_OP_DIV: {
        if (code == LG_OP_MUL && op->n_inputs == 2 && op->inputs[0] == op->inputs[1]) return S_NONNEG;
        int a = in_sign(w, op, 0, depth);
        int b = a == S_ANY ? S_ANY : in_sign(w, op, 1, depth);
        return min2(a, b);
    }
    case LG_OP_POW:
        return in_sign(w, op, 0, depth);
    default:
        return S_ANY;
    }
}

static int sign_of(walk *w, int32_t t, int depth) {
    if (t < 0 || depth > 32 || w->budget == 0) return S_ANY;
    w->budget--;
    if (lg_tensor_is_const(w->c->m, w->c->sg, t)) return const_sign(w, t);
    int32_t p = lg_graph_producer(w->g, t);
    if (p < 0) return S_ANY;
    int32_t code = lgp_code(w->c, (uint32_t)p);
    if (code == LG_OP_DEQUANTIZE) return const_sign(w, t);
    int s = op_sign(w, (uint32_t)p, depth);
    int act = lgf_fused_act(w->c, (uint32_t)p);
    if (act == LG_ACTIVATION_FUNCTION_TYPE_RELU || act == LG_ACTIVATION_FUNCTION_TYPE_RELU6)
        return max2(s, S_NONNEG);
    if (act != LG_ACTIVATION_FUNCTION_TYPE_NONE) return S_ANY;
    return s;
}

bool lgp_nonneg(const lg_pass_ctx *c, const lg_graph *g, int32_t t) {
    walk w = {c, g, 512};
    return sign_of(&w, t, 0) >= S_NONNEG;
}

bool lgp_positive(const lg_pass_ctx *c, const lg_graph *g, int32_t t) {
    walk w = {c, g, 512};
    return sign_of(&w, t, 0) == S_POS;
}
