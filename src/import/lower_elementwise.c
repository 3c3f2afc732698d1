/* Lowerings of the elementwise ONNX ops: activations, arithmetic, comparisons, logic, Where,
 * Cast, Identity/Dropout, Constant. Every lowering is exact in fp32: where TFLite has no op,
 * the ONNX definition is composed from ops that compute it (Elu with alpha, Selu, Softsign,
 * HardSigmoid), and Erf is a rational polynomial exact to fp32 (never a sigmoid form). */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "import/import_impl.h"

static lg_onnx_str op_type(li_ctx *c) { return c->node->op_type; }
static bool is(li_ctx *c, const char *s) { return lg_onnx_str_eq(op_type(c), s); }

static bool is_float(li_ctx *c, const li_val *v) { return li_type(c, v->t) == LG_FLOAT32; }

static lg_status need_float(li_ctx *c, const li_val *v) {
    if (v && !is_float(c, v))
        return li_unsupported(c, "input of type %s (float only)", lg_onnx_dtype_name(v->onnx_type));
    return c->st;
}

/* ------------------------------------------------------------------ unary */

static const struct { const char *onnx; int32_t code; bool float_only; } unary_map[] = {
    {"Relu", LG_OP_RELU, false},      {"Sigmoid", LG_OP_LOGISTIC, true}, {"Tanh", LG_OP_TANH, true},
    {"Exp", LG_OP_EXP, true},         {"Log", LG_OP_LOG, true},          {"Sqrt", LG_OP_SQRT, true},
    {"Neg", LG_OP_NEG, false},        {"Abs", LG_OP_ABS, false},         {"Floor", LG_OP_FLOOR, true},
    {"Ceil", LG_OP_CEIL, true},       {"Round", LG_OP_ROUND, true},      {"Sin", LG_OP_SIN, true},
    {"Cos", LG_OP_COS, true},         {"Not", LG_OP_LOGICAL_NOT, false}, {"Sign", LG_OP_SIGN, false},
    {"HardSwish", LG_OP_HARD_SWISH, true},
};

static lg_status lower_unary(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    for (size_t i = 0; i < sizeof unary_map / sizeof unary_map[0]; i++) {
        if (!is(c, unary_map[i].onnx)) continue;
        if (unary_map[i].float_only) LG_TRY(need_float(c, x));
        if (unary_map[i].code == LG_OP_RELU && !is_float(c, x)) {
            /* integer Relu: max(x, 0) */
            int32_t y = li_binary(c, LG_OP_MAXIMUM, x->t, li_kscalar_like(c, x->t, 0));
            return li_out(c, 0, y, x->onnx_type);
        }
        return li_out(c, 0, li_unary(c, unary_map[i].code, x->t), x->onnx_type);
    }
    return li_unsupported(c, "no lowering");
}

static lg_status lower_leaky_relu(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    lg_leaky_relu_options o = {0};
    o.alpha = li_attr_f(c->node, "alpha", 0.01f);
    return li_out(c, 0, li_op(c, LG_OP_LEAKY_RELU, &x->t, 1, &o, -1), x->onnx_type);
}

static lg_status lower_prelu(li_ctx *c) {
    const li_val *x = li_need(c, 0), *s = li_need(c, 1);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    return li_out(c, 0, li_binary(c, LG_OP_PRELU, x->t, s->t), x->onnx_type);
}

/* y = alpha * elu(x) where x < 0 (TFLite ELU: expm1f(x) for x < 0), else x. */
static int32_t elu_alpha(li_ctx *c, int32_t x, float alpha) {
    int32_t e = li_unary(c, LG_OP_ELU, x);
    if (alpha == 1.0f) return e;
    int32_t neg = li_binary(c, LG_OP_MUL, e, li_kf(c, alpha));
    int32_t lt = li_binary(c, LG_OP_LESS, x, li_kf(c, 0));
    return LI_OP(c, LG_OP_SELECT_V2, NULL, -1, lt, neg, x);
}

static lg_status lower_elu(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    return li_out(c, 0, elu_alpha(c, x->t, li_attr_f(c->node, "alpha", 1.0f)), x->onnx_type);
}

static lg_status lower_selu(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    float alpha = li_attr_f(c->node, "alpha", 1.67326319217681884765625f);
    float gamma = li_attr_f(c->node, "gamma", 1.05070102214813232421875f);
    int32_t e = elu_alpha(c, x->t, alpha);
    return li_out(c, 0, li_binary(c, LG_OP_MUL, e, li_kf(c, gamma)), x->onnx_type);
}

static lg_status lower_thresholded_relu(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    float alpha = li_attr_f(c->node, "alpha", 1.0f);
    int32_t gt = li_binary(c, LG_OP_GREATER, x->t, li_kf(c, alpha));
    int32_t y = LI_OP(c, LG_OP_SELECT_V2, NULL, -1, gt, x->t, li_kf(c, 0));
    return li_out(c, 0, y, x->onnx_type);
}

/* max(0, min(1, alpha x + beta)): RELU_0_TO_1 clamps to [0, 1] exactly. */
static lg_status lower_hard_sigmoid(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    float alpha = li_attr_f(c->node, "alpha", 0.2f), beta = li_attr_f(c->node, "beta", 0.5f);
    int32_t y = li_binary(c, LG_OP_MUL, x->t, li_kf(c, alpha));
    y = li_binary(c, LG_OP_ADD, y, li_kf(c, beta));
    return li_out(c, 0, li_unary(c, LG_OP_RELU_0_TO_1, y), x->onnx_type);
}

/* softplus = max(x, 0) + log(1 + exp(-|x|)): ln(exp(x) + 1) without the overflow. */
static lg_status lower_softplus(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    int32_t a = li_unary(c, LG_OP_ABS, x->t);
    int32_t e = li_unary(c, LG_OP_EXP, li_unary(c, LG_OP_NEG, a));
    int32_t l = li_unary(c, LG_OP_LOG, li_binary(c, LG_OP_ADD, e, li_kf(c, 1)));
    return li_out(c, 0, li_binary(c, LG_OP_ADD, li_unary(c, LG_OP_RELU, x->t), l), x->onnx_type);
}

static lg_status lower_softsign(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    int32_t d = li_binary(c, LG_OP_ADD, li_unary(c, LG_OP_ABS, x->t), li_kf(c, 1));
    return li_out(c, 0, li_binary(c, LG_OP_DIV, x->t, d), x->onnx_type);
}

static lg_status lower_reciprocal(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    return li_out(c, 0, li_binary(c, LG_OP_DIV, li_kf(c, 1), x->t), x->onnx_type);
}

static lg_status lower_isnan(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    return li_out(c, 0, li_binary(c, LG_OP_NOT_EQUAL, x->t, x->t), LG_ONNX_BOOL);
}

/* erf(x) = x p(x^2) / q(x^2) on x clamped to [-4, 4] (erf is +-1 in fp32 beyond): the
   rational approximation of Eigen's generic_fast_erf_float / XLA's ErfImpl32 (the same
   coefficients, e.g. tensorflow/compiler/xla/client/lib/math.cc), within a few ulp of the
   correctly rounded erff over the whole range (tests/unit/test_import_elementwise.c). */
int32_t li_erf(li_ctx *c, int32_t x) {
    static const float alpha[] = {-2.72614225801306e-10f, 2.77068142495902e-08f, -2.10102402082508e-06f,
                                  -5.69250639462346e-05f, -7.34990630326855e-04f, -2.95459980854025e-03f,
                                  -1.60960333262415e-02f};
    static const float beta[] = {-1.45660718464996e-05f, -2.13374055278905e-04f, -1.68282697438203e-03f,
                                 -7.37332916720468e-03f, -1.42647390514189e-02f};
    int32_t v = li_binary(c, LG_OP_MINIMUM, x, li_kf(c, 4.0f));
    v = li_binary(c, LG_OP_MAXIMUM, v, li_kf(c, -4.0f));
    int32_t x2 = li_binary(c, LG_OP_MUL, v, v);
    int32_t p = li_kf(c, alpha[0]);
    for (size_t i = 1; i < sizeof alpha / sizeof alpha[0]; i++)
        p = li_binary(c, LG_OP_ADD, li_binary(c, LG_OP_MUL, p, x2), li_kf(c, alpha[i]));
    int32_t q = li_kf(c, beta[0]);
    for (size_t i = 1; i < sizeof beta / sizeof beta[0]; i++)
        q = li_binary(c, LG_OP_ADD, li_binary(c, LG_OP_MUL, q, x2), li_kf(c, beta[i]));
    return li_binary(c, LG_OP_DIV, li_binary(c, LG_OP_MUL, v, p), q);
}

static lg_status lower_erf(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    return li_out(c, 0, li_erf(c, x->t), x->onnx_type);
}

static lg_status lower_gelu(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    lg_gelu_options o = {0};
    if (li_attr_is(c->node, "approximate", "tanh", "none")) o.approximate = true;
    else if (!li_attr_is(c->node, "approximate", "none", "none")) return li_unsupported(c, "approximate mode");
    return li_out(c, 0, li_op(c, LG_OP_GELU, &x->t, 1, &o, -1), x->onnx_type);
}

/* ------------------------------------------------------------------ binary and variadic */

static const struct { const char *onnx; int32_t code; bool to_bool; } binary_map[] = {
    {"Add", LG_OP_ADD, false},          {"Sub", LG_OP_SUB, false},
    {"Mul", LG_OP_MUL, false},          {"Div", LG_OP_DIV, false},
    {"Equal", LG_OP_EQUAL, true},       {"Greater", LG_OP_GREATER, true},
    {"Less", LG_OP_LESS, true},         {"GreaterOrEqual", LG_OP_GREATER_EQUAL, true},
    {"LessOrEqual", LG_OP_LESS_EQUAL, true}, {"And", LG_OP_LOGICAL_AND, true},
    {"Or", LG_OP_LOGICAL_OR, true},     {"Xor", LG_OP_NOT_EQUAL, true},
};

static lg_status lower_binary(li_ctx *c) {
    const li_val *a = li_need(c, 0), *b = li_need(c, 1);
    LI_TRY(c);
    if (li_type(c, a->t) != li_type(c, b->t)) return li_bad(c, LG_ERR_FORMAT, "inputs of different types");
    for (size_t i = 0; i < sizeof binary_map / sizeof binary_map[0]; i++) {
        if (!is(c, binary_map[i].onnx)) continue;
        int32_t code = binary_map[i].code;
        lg_dtype ty = li_type(c, a->t);
        if (code == LG_OP_DIV && ty != LG_FLOAT32 && ty != LG_INT32)
            return li_unsupported(c, "Div of %s", lg_onnx_dtype_name(a->onnx_type));
        if ((code == LG_OP_ADD || code == LG_OP_SUB || code == LG_OP_MUL) && ty != LG_FLOAT32 &&
            ty != LG_INT32)
            return li_unsupported(c, "%.*s of %s", LG_ONNX_STR(op_type(c)), lg_onnx_dtype_name(a->onnx_type));
        if (code == LG_OP_DIV && ty == LG_INT32) {
            /* ONNX integer Div truncates toward zero (C semantics); TFLite's int DIV is the
               same for the reference kernel, but it refuses a divisor of 0: keep it. */
        }
        int32_t y = li_binary(c, code, a->t, b->t);
        return li_out(c, 0, y, binary_map[i].to_bool ? LG_ONNX_BOOL : a->onnx_type);
    }
    return li_unsupported(c, "no lowering");
}

/* Mod. fmod = 0 (integers only; ONNX: a float input needs fmod = 1): the remainder with the
   sign of the divisor, TFLite's FLOOR_MOD (tensorflow/lite/kernels/floor_mod.cc:
   r = a % b, r + b when r != 0 and its sign differs from b's). fmod = 1, the sign of the
   dividend (C fmod):
   - floats: fmod(x, y) = sign(x) fmod(|x|, |y|) (C11 7.12.10.1: x - n y with the sign of x,
     |r| < |y|). FLOOR_MOD of |x|, |y| is fmodf of non-negative operands, which is exact and
     never adjusted; the sign is restored by a select on x < 0 (NEG is exact). So exact; a NaN,
     an infinite x or y = 0 give NaN as fmod does.
   - integers: r = FLOOR_MOD(x, y) has y's sign when r != 0; C's truncated remainder is r - y
     when r != 0 and x, y differ in sign (|r| < |y|, same signs: no overflow), else r. */
static lg_status lower_mod(li_ctx *c) {
    const li_val *a = li_need(c, 0), *b = li_need(c, 1);
    LI_TRY(c);
    lg_dtype ty = li_type(c, a->t);
    if (ty != li_type(c, b->t)) return li_bad(c, LG_ERR_FORMAT, "inputs of different types");
    if (ty != LG_FLOAT32 && ty != LG_INT32)
        return li_unsupported(c, "Mod of %s", lg_onnx_dtype_name(a->onnx_type));
    bool fm = li_attr_i(c->node, "fmod", 0) != 0;
    if (ty == LG_FLOAT32 && !fm) return li_bad(c, LG_ERR_FORMAT, "Mod of floats with fmod = 0 (ONNX requires fmod = 1)");
    if (!fm) return li_out(c, 0, li_binary(c, LG_OP_FLOOR_MOD, a->t, b->t), a->onnx_type);
    if (ty == LG_FLOAT32) {
        int32_t r = li_binary(c, LG_OP_FLOOR_MOD, li_unary(c, LG_OP_ABS, a->t), li_unary(c, LG_OP_ABS, b->t));
        int32_t neg = li_binary(c, LG_OP_LESS, a->t, li_kf(c, 0));
        int32_t y = LI_OP(c, LG_OP_SELECT_V2, NULL, -1, neg, li_unary(c, LG_OP_NEG, r), r);
        return li_out(c, 0, y, a->onnx_type);
    }
    int32_t zero = li_ki(c, 0);
    int32_t r = li_binary(c, LG_OP_FLOOR_MOD, a->t, b->t);
    int32_t differ = li_binary(c, LG_OP_NOT_EQUAL, li_binary(c, LG_OP_LESS, a->t, zero), li_binary(c, LG_OP_LESS, b->t, zero));
    int32_t fix = li_binary(c, LG_OP_LOGICAL_AND, li_binary(c, LG_OP_NOT_EQUAL, r, zero), differ);
    int32_t y = LI_OP(c, LG_OP_SELECT_V2, NULL, -1, fix, li_binary(c, LG_OP_SUB, r, b->t), r);
    return li_out(c, 0, y, a->onnx_type);
}

static lg_status lower_pow(li_ctx *c) {
    const li_val *a = li_need(c, 0), *b = li_need(c, 1);
    LI_TRY(c);
    LG_TRY(need_float(c, a));
    int32_t e = li_cast(c, b->t, LG_FLOAT32);
    return li_out(c, 0, li_binary(c, LG_OP_POW, a->t, e), a->onnx_type);
}

static lg_status lower_variadic(li_ctx *c) {
    const li_val *a = li_need(c, 0);
    LI_TRY(c);
    int32_t code = is(c, "Max") ? LG_OP_MAXIMUM : is(c, "Min") ? LG_OP_MINIMUM : LG_OP_ADD;
    int32_t y = a->t;
    uint32_t n = c->node->n_inputs;
    for (uint32_t k = 1; k < n; k++) {
        const li_val *b = li_need(c, k);
        LI_TRY(c);
        y = li_binary(c, code, y, b->t);
    }
    if (is(c, "Mean")) {
        LG_TRY(need_float(c, a));
        if (n > 1) y = li_binary(c, LG_OP_DIV, y, li_kf(c, (float)n));
    }
    return li_out(c, 0, y, a->onnx_type);
}

static lg_status lower_where(li_ctx *c) {
    const li_val *cond = li_need(c, 0), *x = li_need(c, 1), *y = li_need(c, 2);
    LI_TRY(c);
    return li_out(c, 0, LI_OP(c, LG_OP_SELECT_V2, NULL, -1, cond->t, x->t, y->t), x->onnx_type);
}

/* Clip: min/max attributes before opset 11, optional inputs since. */
static lg_status lower_clip(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    int32_t y = x->t;
    if (c->opset < 11) {
        LG_TRY(need_float(c, x));
        const lg_onnx_attr *lo = li_attr(c->node, "min"), *hi = li_attr(c->node, "max");
        if (lo) y = li_binary(c, LG_OP_MAXIMUM, y, li_kf(c, lo->f));
        if (hi) y = li_binary(c, LG_OP_MINIMUM, y, li_kf(c, hi->f));
        return li_out(c, 0, y, x->onnx_type);
    }
    const li_val *lo = li_in(c, 1), *hi = li_in(c, 2);
    if (lo) y = li_binary(c, LG_OP_MAXIMUM, y, lo->t);
    if (hi) y = li_binary(c, LG_OP_MINIMUM, y, hi->t);
    return li_out(c, 0, y, x->onnx_type);
}

/* ------------------------------------------------------------------ Cast, Identity, Constant */

static lg_status lower_cast(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    int64_t to = li_attr_i(c->node, "to", -1);
    int ty = li_tfl_type((int32_t)to);
    if (ty < 0) return li_unsupported(c, "Cast to %s", lg_onnx_dtype_name((int)to));
    if (li_attr_i(c->node, "saturate", 1) != 1) return li_unsupported(c, "saturate=0");
    return li_out(c, 0, li_cast(c, x->t, (lg_dtype)ty), (int32_t)to);
}

static lg_status lower_identity(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    if (is(c, "Dropout") && li_has_out(c, 1)) {
        /* inference: the mask is all true */
        lg_shape s = li_shape(c, x->t);
        int64_t d[LG_MAX_RANK], n = 1;
        for (int i = 0; i < s.rank; i++) n *= (d[i] = s.dim[i]);
        uint8_t *ones = malloc((size_t)(n ? n : 1));
        if (!ones) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        memset(ones, 1, (size_t)(n ? n : 1));
        int32_t m = li_konst(c, LG_BOOL, d, (uint32_t)s.rank, ones, (uint64_t)n);
        free(ones);
        LG_TRY(li_out(c, 1, m, LG_ONNX_BOOL));
    }
    if (is(c, "Dropout") && c->opset >= 12) {
        const li_val *tm = li_in(c, 2);
        int64_t v[1];
        uint32_t n = 0;
        if (tm && !(li_const_ints(c, tm->t, v, 1, &n) && n == 1 && v[0] == 0))
            return li_unsupported(c, "training_mode");
    }
    return li_out(c, 0, x->t, x->onnx_type);
}

static lg_status lower_constant(li_ctx *c) {
    const lg_onnx_node *n = c->node;
    const lg_onnx_attr *a;
    int32_t t = -1, ot = 0;
    if ((a = li_attr(n, "value")) && a->t) {
        LG_TRY(li_tensor_const(c, a->t, &t, &ot));
    } else if ((a = li_attr(n, "value_float"))) {
        t = li_kf(c, a->f);
        ot = LG_ONNX_FLOAT;
    } else if ((a = li_attr(n, "value_floats"))) {
        int64_t d = a->n_floats;
        t = li_kf32(c, &d, 1, a->floats);
        ot = LG_ONNX_FLOAT;
    } else if ((a = li_attr(n, "value_int"))) {
        t = li_ki(c, a->i);
        ot = LG_ONNX_INT64;
    } else if ((a = li_attr(n, "value_ints"))) {
        t = li_ki32(c, a->ints, a->n_ints);
        ot = LG_ONNX_INT64;
    } else {
        return li_unsupported(c, "this kind of value");
    }
    return li_out(c, 0, t, ot);
}

const li_op_entry li_ops_elementwise[] = {
    {"Relu", 1, 99, lower_unary},      {"Sigmoid", 1, 99, lower_unary},   {"Tanh", 1, 99, lower_unary},
    {"Exp", 1, 99, lower_unary},       {"Log", 1, 99, lower_unary},       {"Sqrt", 1, 99, lower_unary},
    {"Neg", 1, 99, lower_unary},       {"Abs", 1, 99, lower_unary},       {"Floor", 1, 99, lower_unary},
    {"Ceil", 1, 99, lower_unary},      {"Round", 11, 99, lower_unary},    {"Sin", 7, 99, lower_unary},
    {"Cos", 7, 99, lower_unary},       {"Not", 1, 99, lower_unary},       {"Sign", 9, 99, lower_unary},
    {"HardSwish", 14, 99, lower_unary},
    {"LeakyRelu", 6, 99, lower_leaky_relu}, {"PRelu", 7, 99, lower_prelu},
    {"Elu", 6, 99, lower_elu},         {"Selu", 6, 99, lower_selu},
    {"ThresholdedRelu", 10, 99, lower_thresholded_relu},
    {"HardSigmoid", 6, 99, lower_hard_sigmoid}, {"Softplus", 1, 99, lower_softplus},
    {"Softsign", 1, 99, lower_softsign}, {"Reciprocal", 6, 99, lower_reciprocal},
    {"IsNaN", 9, 99, lower_isnan},     {"Erf", 9, 99, lower_erf},         {"Gelu", 20, 99, lower_gelu},
    {"Add", 7, 99, lower_binary},      {"Sub", 7, 99, lower_binary},      {"Mul", 7, 99, lower_binary},
    {"Div", 7, 99, lower_binary},      {"Equal", 7, 99, lower_binary},    {"Greater", 7, 99, lower_binary},
    {"Less", 7, 99, lower_binary},     {"GreaterOrEqual", 12, 99, lower_binary},
    {"LessOrEqual", 12, 99, lower_binary}, {"And", 7, 99, lower_binary},  {"Or", 7, 99, lower_binary},
    {"Xor", 7, 99, lower_binary},      {"Pow", 7, 99, lower_pow},
    {"Mod", 10, 99, lower_mod},
    {"Max", 8, 99, lower_variadic},    {"Min", 8, 99, lower_variadic},    {"Sum", 8, 99, lower_variadic},
    {"Mean", 8, 99, lower_variadic},   {"Where", 9, 99, lower_where},     {"Clip", 6, 99, lower_clip},
    {"Cast", 6, 99, lower_cast},       {"Identity", 1, 99, lower_identity},
    {"Dropout", 7, 99, lower_identity}, {"Constant", 9, 99, lower_constant},
    {NULL, 0, 0, NULL},
};
