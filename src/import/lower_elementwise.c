/* Lowerings of the elementwise ONNX ops: activations, arithmetic, comparisons, logic, Where,
 * Cast, Identity/Dropout, Constant. Every lowering is exact in fp32: where TFLite has no op,
 * the ONNX definition is composed from ops that compute it (Elu with alpha, Selu, Celu,
 * Softsign, HardSigmoid, Shrink, IsInf), Erf is a rational polynomial exact to fp32 (never a
 * sigmoid form), and the trigonometric/hyperbolic functions TFLite lacks are forms without
 * cancellation within a few ulp (lower_trig). The opset 1-6 versions are read as their
 * Changelog.md entries define them (legacy_rhs, lower_prelu, lower_cast, the table). */
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

/* PRelu. Since opset 7 the slope broadcasts unidirectionally to x (numpy rules). PRelu-1 and
   PRelu-6 (onnx/docs/Changelog.md) had no broadcasting: "If Slope is of size 1, the value is
   shared across different channels", else one value per channel (Caffe2's PRelu, dimension 1
   of NCHW; PyTorch's opset-6 exporter emits a [C] slope for [N, C, ...] inputs): that slope is
   reshaped to [C, 1, ...] and broadcasts the same. Other old slope shapes are refused. */
static lg_status lower_prelu(li_ctx *c) {
    const li_val *x = li_need(c, 0), *s = li_need(c, 1);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    int32_t st = s->t;
    if (c->opset < 7) {
        lg_shape xs = li_shape(c, x->t), ss = li_shape(c, st);
        int64_t d[LG_MAX_RANK];
        if (lg_shape_numel(&ss) == 1) {
            st = li_reshape(c, st, (const int64_t[]){1}, 1);
        } else if (ss.rank == 1 && xs.rank >= 2 && ss.dim[0] == xs.dim[1]) {
            d[0] = ss.dim[0];
            for (int i = 1; i < xs.rank - 1; i++) d[i] = 1;
            st = li_reshape(c, st, d, (uint32_t)(xs.rank - 1));
        } else {
            return li_unsupported(c, "opset %lld form with a slope of %lld values for an input of rank %d: PRelu-1/6 "
                                     "take one slope or one per channel (dimension 1)",
                                  (long long)c->opset, (long long)lg_shape_numel(&ss), xs.rank);
        }
    }
    return li_out(c, 0, li_binary(c, LG_OP_PRELU, x->t, st), x->onnx_type);
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
    /* Selu-1's defaults were 1.6732 and 1.0507; Selu-6 gave them to float precision
       (Changelog.md) */
    bool v1 = c->opset < 6;
    float alpha = li_attr_f(c->node, "alpha", v1 ? 1.6732f : 1.67326319217681884765625f);
    float gamma = li_attr_f(c->node, "gamma", v1 ? 1.0507f : 1.05070102214813232421875f);
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

/* IsInf-10: x == +inf (detect_positive, default 1) or x == -inf (detect_negative, default 1);
   EQUAL is an IEEE comparison (NaN is not infinite), so exact. Neither: all false. */
static lg_status lower_isinf(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    bool pos = li_attr_i(c->node, "detect_positive", 1) != 0, neg = li_attr_i(c->node, "detect_negative", 1) != 0;
    int32_t y = -1;
    if (pos) y = li_binary(c, LG_OP_EQUAL, x->t, li_kf(c, INFINITY));
    if (neg) {
        int32_t n = li_binary(c, LG_OP_EQUAL, x->t, li_kf(c, -INFINITY));
        y = y < 0 ? n : li_binary(c, LG_OP_LOGICAL_OR, y, n);
    }
    if (!pos && !neg) {
        lg_shape s = li_shape(c, x->t);
        int64_t d[LG_MAX_RANK], n = lg_shape_numel(&s);
        for (int i = 0; i < s.rank; i++) d[i] = s.dim[i];
        uint8_t *z = calloc((size_t)(n > 0 ? n : 1), 1);
        if (!z) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        y = li_konst(c, LG_BOOL, d, (uint32_t)s.rank, z, (uint64_t)n);
        free(z);
    }
    return li_out(c, 0, y, LG_ONNX_BOOL);
}

/* Shrink-9: y = x + bias where x < -lambd, x - bias where x > lambd, else 0: two SELECT_V2
   over the branches computed as the spec writes them, so exact (NaN compares false: 0, as
   the spec's "otherwise"). Integers (INT32, INT64 inside): x < -lambd is x < ceil(-lambd)
   and x > lambd is x > floor(lambd) for any lambd; a bias that is not a whole number has no
   integer result, refused. */
static lg_status lower_shrink(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    float lambd = li_attr_f(c->node, "lambd", 0.5f), bias = li_attr_f(c->node, "bias", 0.0f);
    lg_dtype ty = li_type(c, x->t);
    int32_t lo, hi, b;
    if (ty == LG_FLOAT32) {
        lo = li_kf(c, -lambd), hi = li_kf(c, lambd), b = li_kf(c, bias);
    } else if (ty == LG_INT32) {
        if (bias != floorf(bias) || fabsf(bias) > 2147483520.0f || fabsf(lambd) > 2147483520.0f)
            return li_unsupported(c, "Shrink of %s with bias %g, lambd %g (whole numbers within int32 for integers)",
                                  lg_onnx_dtype_name(x->onnx_type), (double)bias, (double)lambd);
        lo = li_ki(c, (int64_t)ceilf(-lambd)), hi = li_ki(c, (int64_t)floorf(lambd)), b = li_ki(c, (int64_t)bias);
    } else {
        return li_unsupported(c, "Shrink of %s (float and 32/64-bit integers)", lg_onnx_dtype_name(x->onnx_type));
    }
    int32_t zero = li_kscalar_like(c, x->t, 0);
    int32_t up = LI_OP(c, LG_OP_SELECT_V2, NULL, -1, li_binary(c, LG_OP_GREATER, x->t, hi), li_binary(c, LG_OP_SUB, x->t, b), zero);
    int32_t y = LI_OP(c, LG_OP_SELECT_V2, NULL, -1, li_binary(c, LG_OP_LESS, x->t, lo), li_binary(c, LG_OP_ADD, x->t, b), up);
    return li_out(c, 0, y, x->onnx_type);
}

/* Celu-12: max(0, x) + min(0, alpha (exp(x / alpha) - 1)), i.e. x for x >= 0 and
   alpha expm1(x / alpha) below (alpha > 0): alpha ELU(x / alpha) selected on x < 0 (TFLite's
   ELU is expm1f below 0, tensorflow/lite/kernels/elu.cc). */
static lg_status lower_celu(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, x));
    float alpha = li_attr_f(c->node, "alpha", 1.0f);
    if (!(alpha > 0.0f) || isinf(alpha)) return li_unsupported(c, "alpha %g (a positive finite alpha)", (double)alpha);
    int32_t e = li_unary(c, LG_OP_ELU, alpha == 1.0f ? x->t : li_binary(c, LG_OP_DIV, x->t, li_kf(c, alpha)));
    if (alpha != 1.0f) e = li_binary(c, LG_OP_MUL, e, li_kf(c, alpha));
    int32_t y = LI_OP(c, LG_OP_SELECT_V2, NULL, -1, li_binary(c, LG_OP_LESS, x->t, li_kf(c, 0)), e, x->t);
    return li_out(c, 0, y, x->onnx_type);
}

/* ------------------------------------------------------------------ trigonometric, hyperbolic */

/* TFLite has SIN, COS, ATAN2, EXP, LOG, SQRT and ELU (expm1f below 0); the other ONNX
   functions are composed from them in forms where nothing cancels, each within a few ulp of
   the correctly rounded value (tests/unit/test_import_misc.c measures them against double
   precision over their ranges):
   - tan = sin / cos; atan = atan2(x, 1);
   - asin = atan2(x, sqrt((1 - x)(1 + x))), acos = atan2(sqrt((1 - x)(1 + x)), x):
     (1 - x)(1 + x) is 1 - x^2 without the cancellation near |x| = 1 (1 - x is exact there,
     Sterbenz's lemma); beyond 1 the square root of a negative is NaN, as asin's;
   - log1p(t) = t where 1 + t rounds to 1, else t log(1 + t) / ((1 + t) - 1), whose rounding
     errors cancel (Goldberg, "What every computer scientist should know about floating-point
     arithmetic", 1991, Theorem 4);
   - asinh(x) = sign(x) log1p(a + a^2 / (1 + sqrt(1 + a^2))), a = |x| (log(a + sqrt(a^2 + 1))
     rewritten); a > 2^12: log(a) + ln 2 (the next term, 1 / (4 a^2), is below half an ulp);
   - acosh(x) = log1p((x - 1) + sqrt((x - 1)(x + 1))), x > 2^12: log(x) + ln 2; NaN below 1;
   - atanh(x) = sign(x) atanh(a): a < 1/2: log1p(2a / (1 - a)) / 2, else
     log((1 + a) / (1 - a)) / 2 (1 - a exact); 1 gives inf, beyond 1 NaN;
   - sinh(x) = sign(x) s(a): a < 1: u = expm1(-a) (ELU), s = -u (2 + u) / (2 (1 + u)) (e^-a
     = 1 + u, e^a = 1 / (1 + u): the difference without cancellation); a >= 1:
     e = exp(a / 2), s = (e / 2) e - (1 / 2) / (e e), e^a as e^2 so that it overflows where
     sinh does, not before;
   - cosh(x) = (e / 2) e + (1 / 2) / (e e), e = exp(|x| / 2). */

static int32_t k1(li_ctx *c) { return li_kf(c, 1.0f); }
static int32_t add(li_ctx *c, int32_t a, int32_t b) { return li_binary(c, LG_OP_ADD, a, b); }
static int32_t sub(li_ctx *c, int32_t a, int32_t b) { return li_binary(c, LG_OP_SUB, a, b); }
static int32_t mul(li_ctx *c, int32_t a, int32_t b) { return li_binary(c, LG_OP_MUL, a, b); }
static int32_t dvd(li_ctx *c, int32_t a, int32_t b) { return li_binary(c, LG_OP_DIV, a, b); }
static int32_t sel(li_ctx *c, int32_t cond, int32_t a, int32_t b) { return LI_OP(c, LG_OP_SELECT_V2, NULL, -1, cond, a, b); }

static int32_t log1p_of(li_ctx *c, int32_t t) {
    int32_t u = add(c, t, k1(c)), d = sub(c, u, k1(c));
    int32_t l = dvd(c, mul(c, t, li_unary(c, LG_OP_LOG, u)), d);
    return sel(c, li_binary(c, LG_OP_EQUAL, d, li_kf(c, 0)), t, l);
}

/* y for x >= 0 given, the odd extension: -y(|x|) where x < 0 */
static int32_t odd(li_ctx *c, int32_t x, int32_t y) {
    return sel(c, li_binary(c, LG_OP_LESS, x, li_kf(c, 0)), li_unary(c, LG_OP_NEG, y), y);
}

/* sqrt((1 - x)(1 + x)) */
static int32_t sqrt_1mx2(li_ctx *c, int32_t x) {
    return li_unary(c, LG_OP_SQRT, mul(c, sub(c, k1(c), x), add(c, k1(c), x)));
}

/* log(v) + ln 2 where v > 2^12, else small */
static int32_t log2v_above(li_ctx *c, int32_t v, int32_t small) {
    int32_t big = add(c, li_unary(c, LG_OP_LOG, v), li_kf(c, 0.693147180559945309f));
    return sel(c, li_binary(c, LG_OP_GREATER, v, li_kf(c, 4096.0f)), big, small);
}

static lg_status lower_trig(li_ctx *c) {
    const li_val *xv = li_need(c, 0);
    LI_TRY(c);
    LG_TRY(need_float(c, xv));
    int32_t x = xv->t, y;
    if (is(c, "Tan")) {
        y = dvd(c, li_unary(c, LG_OP_SIN, x), li_unary(c, LG_OP_COS, x));
    } else if (is(c, "Atan")) {
        y = li_binary(c, LG_OP_ATAN2, x, k1(c));
    } else if (is(c, "Asin")) {
        y = li_binary(c, LG_OP_ATAN2, x, sqrt_1mx2(c, x));
    } else if (is(c, "Acos")) {
        y = li_binary(c, LG_OP_ATAN2, sqrt_1mx2(c, x), x);
    } else if (is(c, "Asinh")) {
        int32_t a = li_unary(c, LG_OP_ABS, x), a2 = mul(c, a, a);
        int32_t r = add(c, k1(c), li_unary(c, LG_OP_SQRT, add(c, k1(c), a2)));
        y = odd(c, x, log2v_above(c, a, log1p_of(c, add(c, a, dvd(c, a2, r)))));
    } else if (is(c, "Acosh")) {
        int32_t xm = sub(c, x, k1(c));
        int32_t t = add(c, xm, li_unary(c, LG_OP_SQRT, mul(c, xm, add(c, x, k1(c)))));
        y = log2v_above(c, x, log1p_of(c, t));
    } else if (is(c, "Atanh")) {
        int32_t a = li_unary(c, LG_OP_ABS, x), om = sub(c, k1(c), a), half = li_kf(c, 0.5f);
        int32_t small = mul(c, half, log1p_of(c, dvd(c, add(c, a, a), om)));
        int32_t large = mul(c, half, li_unary(c, LG_OP_LOG, dvd(c, add(c, k1(c), a), om)));
        y = odd(c, x, sel(c, li_binary(c, LG_OP_LESS, a, half), small, large));
    } else {
        /* Sinh, Cosh */
        int32_t a = li_unary(c, LG_OP_ABS, x), half = li_kf(c, 0.5f);
        int32_t e = li_unary(c, LG_OP_EXP, mul(c, a, half));
        int32_t hi = mul(c, mul(c, half, e), e), lo = dvd(c, half, mul(c, e, e));
        if (is(c, "Cosh")) {
            y = add(c, hi, lo);
        } else {
            int32_t u = li_unary(c, LG_OP_ELU, li_unary(c, LG_OP_NEG, a));
            int32_t num = mul(c, li_unary(c, LG_OP_NEG, u), add(c, li_kf(c, 2.0f), u));
            int32_t small = dvd(c, num, mul(c, li_kf(c, 2.0f), add(c, k1(c), u)));
            y = odd(c, x, sel(c, li_binary(c, LG_OP_LESS, a, k1(c)), small, sub(c, hi, lo)));
        }
    }
    return li_out(c, 0, y, xv->onnx_type);
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

/* ------------------------------------------------------------------ opsets 1-6: limited broadcasting */

/* The right-hand operand of a binary op as the numpy-broadcasting lowering needs it.
   Before opset 7 (Add/Sub/Mul/Div-1 and -6, Pow-1, Equal/Greater/Less/And/Or/Xor-1;
   onnx/docs/Changelog.md) there is no numpy broadcasting: without broadcast=1 the two shapes
   are equal; with broadcast=1, B "can either be of element size 1 ... or having its shape as
   a contiguous subset of the first tensor's shape. The starting of the mutually equal shape
   is specified by the argument axis, and if it is not set, suffix matching is assumed"
   (Add-6). So B reshaped to A's rank, its dims at [axis, axis + rank B) and ones elsewhere,
   broadcasts (opset 7 rules) to exactly the elements the old rule pairs; the output has A's
   shape. A size-1 dim of B against a larger one of A (what PyTorch's opset-6 exporter emits,
   e.g. B [2, 1] with axis 0 for A [2, 3]) is the same expansion. */
static int32_t legacy_rhs(li_ctx *c, const li_val *a, const li_val *b) {
    if (c->opset >= 7 || !LI_OK(c)) return b->t;
    lg_shape sa = li_shape(c, a->t), sb = li_shape(c, b->t);
    bool same = sa.rank == sb.rank;
    for (int i = 0; i < sa.rank && same; i++) same = sa.dim[i] == sb.dim[i];
    if (same) return b->t;
    if (li_attr_i(c->node, "broadcast", 0) == 0) {
        li_bad(c, LG_ERR_FORMAT, "opset %lld form: inputs of different shapes without broadcast=1", (long long)c->opset);
        return -1;
    }
    if (sb.rank > sa.rank) {
        li_bad(c, LG_ERR_FORMAT, "opset %lld form: B of rank %d broadcast to A of rank %d", (long long)c->opset, sb.rank, sa.rank);
        return -1;
    }
    if (lg_shape_numel(&sb) == 1) return b->t; /* size 1: broadcasts as it is */
    int64_t axis = li_attr_i(c->node, "axis", sa.rank - sb.rank);
    if (axis < 0) axis += sa.rank;
    if (axis < 0 || axis + sb.rank > sa.rank) {
        li_bad(c, LG_ERR_FORMAT, "opset %lld form: axis %lld for B of rank %d and A of rank %d", (long long)c->opset,
               (long long)li_attr_i(c->node, "axis", 0), sb.rank, sa.rank);
        return -1;
    }
    int64_t d[LG_MAX_RANK];
    for (int i = 0; i < sa.rank; i++) d[i] = 1;
    for (int i = 0; i < sb.rank; i++) {
        if (sb.dim[i] != 1 && sb.dim[i] != sa.dim[axis + i]) {
            li_bad(c, LG_ERR_FORMAT, "opset %lld form: B's dimension %d (%lld) does not match A's dimension %lld (%lld)",
                   (long long)c->opset, i, (long long)sb.dim[i], (long long)(axis + i), (long long)sa.dim[axis + i]);
            return -1;
        }
        d[axis + i] = sb.dim[i];
    }
    return li_reshape(c, b->t, d, (uint32_t)sa.rank);
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

/* 8- and 16-bit integer arithmetic. TFLite's ADD/SUB/MUL/DIV/FLOOR_MOD of INT8, UINT8 and INT16
   are quantized kernels (they rescale by the tensors' scales) or absent; the exact integer
   result instead: the operands CAST to INT32, the op, CAST back keeping the low bits
   (tensorflow/lite/kernels/cast.cc: static_cast), which is numpy's wrapping arithmetic (ONNX's
   reference): reduction modulo 2^8 or 2^16 commutes with +, - and *; a quotient or remainder
   of two such values is within their range (but -128 / -1, which wraps as numpy's). */
static bool small_int(lg_dtype t) { return t == LG_INT8 || t == LG_UINT8 || t == LG_INT16; }

static lg_status lower_binary(li_ctx *c) {
    const li_val *a = li_need(c, 0), *b = li_need(c, 1);
    LI_TRY(c);
    if (li_type(c, a->t) != li_type(c, b->t)) return li_bad(c, LG_ERR_FORMAT, "inputs of different types");
    for (size_t i = 0; i < sizeof binary_map / sizeof binary_map[0]; i++) {
        if (!is(c, binary_map[i].onnx)) continue;
        int32_t code = binary_map[i].code;
        lg_dtype ty = li_type(c, a->t);
        bool arith = code == LG_OP_ADD || code == LG_OP_SUB || code == LG_OP_MUL || code == LG_OP_DIV;
        /* ONNX integer Div truncates toward zero (C semantics), as TFLite's int32 DIV. */
        if (arith && small_int(ty)) {
            int32_t y = li_binary(c, code, li_cast(c, a->t, LG_INT32), li_cast(c, legacy_rhs(c, a, b), LG_INT32));
            return li_out(c, 0, li_cast(c, y, ty), a->onnx_type);
        }
        if (arith && ty != LG_FLOAT32 && ty != LG_INT32)
            return li_unsupported(c, "%.*s of %s", LG_ONNX_STR(op_type(c)), lg_onnx_dtype_name(a->onnx_type));
        int32_t y = li_binary(c, code, a->t, legacy_rhs(c, a, b));
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
    if (ty != LG_FLOAT32 && ty != LG_INT32 && !small_int(ty))
        return li_unsupported(c, "Mod of %s", lg_onnx_dtype_name(a->onnx_type));
    bool fm = li_attr_i(c->node, "fmod", 0) != 0;
    if (ty == LG_FLOAT32 && !fm) return li_bad(c, LG_ERR_FORMAT, "Mod of floats with fmod = 0 (ONNX requires fmod = 1)");
    if (ty == LG_FLOAT32) {
        int32_t r = li_binary(c, LG_OP_FLOOR_MOD, li_unary(c, LG_OP_ABS, a->t), li_unary(c, LG_OP_ABS, b->t));
        int32_t neg = li_binary(c, LG_OP_LESS, a->t, li_kf(c, 0));
        int32_t y = LI_OP(c, LG_OP_SELECT_V2, NULL, -1, neg, li_unary(c, LG_OP_NEG, r), r);
        return li_out(c, 0, y, a->onnx_type);
    }
    /* integers in INT32 (8/16-bit ones widened and narrowed back, small_int) */
    int32_t at = li_cast(c, a->t, LG_INT32), bt = li_cast(c, b->t, LG_INT32);
    int32_t r = li_binary(c, LG_OP_FLOOR_MOD, at, bt), y = r;
    if (fm) {
        int32_t zero = li_ki(c, 0);
        int32_t differ = li_binary(c, LG_OP_NOT_EQUAL, li_binary(c, LG_OP_LESS, at, zero), li_binary(c, LG_OP_LESS, bt, zero));
        int32_t fix = li_binary(c, LG_OP_LOGICAL_AND, li_binary(c, LG_OP_NOT_EQUAL, r, zero), differ);
        y = LI_OP(c, LG_OP_SELECT_V2, NULL, -1, fix, li_binary(c, LG_OP_SUB, r, bt), r);
    }
    return li_out(c, 0, li_cast(c, y, ty), a->onnx_type);
}

/* Pow: the result has the base's type (Pow-12 added integer bases and an exponent type of its
   own; Changelog.md). TFLite's POW takes two float32 or two int32 operands
   (tensorflow/lite/kernels/pow.cc Prepare; the int32 kernel is reference_ops::Pow,
   std::pow(int, int) in double, exact for every result that fits int32, and refuses negative
   exponents as numpy's integer power does).
   - float base: an integer exponent is cast to float (exact for |e| <= 2^24);
   - integer base, integer exponent: the int32 POW;
   - integer base, float exponent: powf of the base as float, CAST back (truncation toward
     zero, as ONNX's reference np.power(x, y).astype(x.dtype)); exact while the base and the
     result are within 2^24, fp32's integers. */
static lg_status lower_pow(li_ctx *c) {
    const li_val *a = li_need(c, 0), *b = li_need(c, 1);
    LI_TRY(c);
    lg_dtype ta = li_type(c, a->t), tb = li_type(c, b->t);
    if (ta != LG_FLOAT32 && ta != LG_INT32)
        return li_unsupported(c, "Pow of a %s base (float and 32/64-bit integer bases)", lg_onnx_dtype_name(a->onnx_type));
    int32_t e = legacy_rhs(c, a, b), y;
    if (ta == LG_FLOAT32) {
        y = li_binary(c, LG_OP_POW, a->t, li_cast(c, e, LG_FLOAT32));
    } else if (tb == LG_FLOAT32) {
        y = li_cast(c, li_binary(c, LG_OP_POW, li_cast(c, a->t, LG_FLOAT32), e), LG_INT32);
    } else {
        y = li_binary(c, LG_OP_POW, a->t, li_cast(c, e, LG_INT32)); /* 8/16-bit exponents widened */
    }
    return li_out(c, 0, y, a->onnx_type);
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

static lg_status cast_to(li_ctx *c, const li_val *x, int64_t to) {
    int ty = li_tfl_type((int32_t)to);
    if (ty < 0) return li_unsupported(c, "%.*s to %s", LG_ONNX_STR(op_type(c)), lg_onnx_dtype_name((int)to));
    if (li_attr_i(c->node, "saturate", 1) != 1) return li_unsupported(c, "saturate=0");
    return li_out(c, 0, li_cast(c, x->t, (lg_dtype)ty), (int32_t)to);
}

/* Cast. Cast-1 names the type with a string ("FLOAT", "INT64": the TensorProto DataType
   names), Cast-6 with its number (Changelog.md). */
static lg_status lower_cast(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    int64_t to = li_attr_i(c->node, "to", -1);
    const lg_onnx_attr *a = li_attr(c->node, "to");
    if (c->opset < 6 && a && a->s.n) {
        to = -1;
        for (int t = 1; t < LG_ONNX_DTYPE_COUNT; t++)
            if (lg_onnx_str_eq(a->s, lg_onnx_dtype_name(t))) to = t;
        if (to < 0) return li_bad(c, LG_ERR_FORMAT, "to = \"%.*s\" is not a type", LG_ONNX_STR(a->s));
    }
    return cast_to(c, x, to);
}

/* CastLike-15: Cast to the second input's type (its ONNX type, INT64 included). */
static lg_status lower_cast_like(li_ctx *c) {
    const li_val *x = li_need(c, 0), *like = li_need(c, 1);
    LI_TRY(c);
    return cast_to(c, x, like->onnx_type);
}

/* Identity; Dropout at inference. Dropout-1 and -6 (Changelog.md) have is_test (default 0):
   is_test=0 is the training form (random dropout), refused; from opset 7 the mode is the
   runtime's, inference here; since opset 12 training_mode is an input. */
static lg_status lower_identity(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    if (is(c, "Dropout") && c->opset < 7 && li_attr_i(c->node, "is_test", 0) == 0)
        return li_unsupported(c, "opset %lld form with is_test=0 (training: random dropout)", (long long)c->opset);
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
        if (tm && !(li_const_ints(c, tm->t, v, 1, &n) && n == 1 && v[0] == 0)) {
            /* training_mode with a constant ratio 0 keeps every element and scales by
               1 / (1 - 0): the identity (ONNX Dropout-12 reference: mask = uniform >= ratio).
               torchvision's Swin calls F.dropout(attn, p=0.0) without training=, which exports
               exactly this. */
            const li_val *rv = li_in(c, 1);
            const float *r = rv ? li_const_f32(c, rv->t) : NULL;
            if (!r || lg_tensor_numel(li_t(c, rv->t)) != 1 || r[0] != 0) {
                if (!li_is_const(c, tm->t)) return li_unsupported(c, "training_mode is computed at run time (it must be constant)");
                return li_unsupported(c, "training_mode with a ratio other than a constant 0 (random dropout)");
            }
        }
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

/* Opset ranges (onnx/docs/Changelog.md). Entries from opset 1 where the first versions differ
   only by consumed_inputs ("legacy optimization attribute", no effect on the values): Relu,
   LeakyRelu, Elu, Selu (its defaults handled), HardSigmoid, Reciprocal, Clip, Sum, Max, Min,
   Mean (before opset 8 all inputs have one shape, a case of the later broadcasting), Dropout
   and Constant-1 (a `value` tensor, as Constant-9). The binary ops' limited broadcasting
   before opset 7: legacy_rhs; PRelu's: lower_prelu; Cast-1's string type: lower_cast. */
const li_op_entry li_ops_elementwise[] = {
    {"Relu", 1, 99, lower_unary},      {"Sigmoid", 1, 99, lower_unary},   {"Tanh", 1, 99, lower_unary},
    {"Exp", 1, 99, lower_unary},       {"Log", 1, 99, lower_unary},       {"Sqrt", 1, 99, lower_unary},
    {"Neg", 1, 99, lower_unary},       {"Abs", 1, 99, lower_unary},       {"Floor", 1, 99, lower_unary},
    {"Ceil", 1, 99, lower_unary},      {"Round", 11, 99, lower_unary},    {"Sin", 7, 99, lower_unary},
    {"Cos", 7, 99, lower_unary},       {"Not", 1, 99, lower_unary},       {"Sign", 9, 99, lower_unary},
    {"HardSwish", 14, 99, lower_unary},
    {"Tan", 7, 99, lower_trig},        {"Atan", 7, 99, lower_trig},       {"Asin", 7, 99, lower_trig},
    {"Acos", 7, 99, lower_trig},       {"Sinh", 9, 99, lower_trig},       {"Cosh", 9, 99, lower_trig},
    {"Asinh", 9, 99, lower_trig},      {"Acosh", 9, 99, lower_trig},      {"Atanh", 9, 99, lower_trig},
    {"LeakyRelu", 1, 99, lower_leaky_relu}, {"PRelu", 1, 99, lower_prelu},
    {"Elu", 1, 99, lower_elu},         {"Selu", 1, 99, lower_selu},       {"Celu", 12, 99, lower_celu},
    {"ThresholdedRelu", 10, 99, lower_thresholded_relu},
    {"HardSigmoid", 1, 99, lower_hard_sigmoid}, {"Softplus", 1, 99, lower_softplus},
    {"Softsign", 1, 99, lower_softsign}, {"Reciprocal", 1, 99, lower_reciprocal},
    {"IsNaN", 9, 99, lower_isnan},     {"IsInf", 10, 99, lower_isinf},    {"Shrink", 9, 99, lower_shrink},
    {"Erf", 9, 99, lower_erf},         {"Gelu", 20, 99, lower_gelu},
    {"Add", 1, 99, lower_binary},      {"Sub", 1, 99, lower_binary},      {"Mul", 1, 99, lower_binary},
    {"Div", 1, 99, lower_binary},      {"Equal", 1, 99, lower_binary},    {"Greater", 1, 99, lower_binary},
    {"Less", 1, 99, lower_binary},     {"GreaterOrEqual", 12, 99, lower_binary},
    {"LessOrEqual", 12, 99, lower_binary}, {"And", 1, 99, lower_binary},  {"Or", 1, 99, lower_binary},
    {"Xor", 1, 99, lower_binary},      {"Pow", 1, 99, lower_pow},
    {"Mod", 10, 99, lower_mod},
    {"Max", 1, 99, lower_variadic},    {"Min", 1, 99, lower_variadic},    {"Sum", 1, 99, lower_variadic},
    {"Mean", 1, 99, lower_variadic},   {"Where", 9, 99, lower_where},     {"Clip", 1, 99, lower_clip},
    {"Cast", 1, 99, lower_cast},       {"CastLike", 15, 99, lower_cast_like},
    {"Identity", 1, 99, lower_identity},
    {"Dropout", 1, 99, lower_identity}, {"Constant", 1, 99, lower_constant},
    {NULL, 0, 0, NULL},
};
