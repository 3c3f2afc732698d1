/* Integer unary kernels (k_quant_more.h): GELU (int8, uint8, int16), RSQRT, SQRT, ABS, LOG
 * (int8, int16). XNNPACK takes none of them quantized (xnnpack_delegate.cc VisitUnaryNode:
 * CheckTensorFloatType), so both --int-arith modes compute TFLite's builtin kernels:
 *
 *   GELU (activations.cc GeluPrepare / GeluEval; internal/reference/gelu.h): a look-up table,
 *     LUTPopulate (internal/common.h LUTPopulateInt8 for 8 bits: round(f(s_in (v - zp_in)) /
 *     s_out) + zp_out in float, clamped; LUTPopulateInt16 for int16) of
 *     GeluTransform(x) = 0.5 x erfc(-x / sqrt 2) or, approximate,
 *     GeluTransformApproximate(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in float.
 *   RSQRT (elementwise.cc GenericPrepare + RsqrtEvalQuantizedInt8): multiplier
 *     QuantizeMultiplier(1 / (sqrt(s_in) s_out)); per value v = x - zp_in (v == 0: 127; v < 0:
 *     an error, "Rsqrt is only defined for positive values"): GetInvSqrtQuantizedMultiplierExp
 *     (v, -1) -> (m, s); data = MBQM(1, m, s + 20); y = MBQM(data, M, shift - 20) + zp_out.
 *     int16: LUTPopulate<int16_t> of 1 / sqrt(x) (x <= 0: 32767 s_out), zero points 0.
 *   SQRT (SqrtEvalQuantized): y = (int)(sqrt(s_in (x - zp_in)) / s_out) + zp_out (truncated),
 *     clamped; a negative input is an error.
 *   ABS (AbsEvalQuantized): |x - zp_in| + zp_out when the scales are equal, else
 *     MBQM(|x - zp_in|, QuantizeMultiplier(s_in / s_out)) + zp_out; clamped.
 *   LOG (LogLUTPrepare): LUTPopulate of log(x) (x <= 0: the output's minimum real value).
 * int16 tensors need zero points 0 (GenericPrepare).
 */
#include "run/k_quant_fp.h"
#include "run/k_quant_more.h"

enum { U_GELU, U_RSQRT, U_SQRT, U_ABS, U_LOG };

typedef struct qunary {
    int op;
    int table;                /* lut8 / lut16 filled */
    lg_dtype t;
    int32_t in_zp, out_zp, lo, hi, mult;
    int shift;
    int rescale;              /* ABS: scales differ */
    float in_scale, out_scale;
    uint8_t lut8[256];        /* indexed by the raw byte */
    int16_t lut16[513];
} qunary;

/* ------------------------------------------------------------------ the transforms (float) */

/* gelu.h: kSqrt2dPi = M_2_SQRTPI * M_SQRT1_2 (a double product, then a float constant) */
static float gelu_exact(float x, const void *ud) {
    (void)ud;
    return 0.5f * x * erfcf(x * (float)(-0.70710678118654752440));
}
static float gelu_approx(float x, const void *ud) {
    (void)ud;
    const float k = (float)(1.12837916709551257390 * 0.70710678118654752440);
    return 0.5f * x * (1.f + tanhf(k * (x + 0.044715f * x * x * x)));
}
static float log_or_min(float x, const void *ud) {
    if (x <= 0.0f) return *(const float *)ud;
    return logf(x);
}
static float rsqrt_or_max(float x, const void *ud) {
    if (x <= 0.0f) return 32767 * *(const float *)ud;
    return 1.0f / sqrtf(x);
}

/* LUTPopulateInt8: v in [min, max] of the type, stored at the raw byte. */
static void lut8_populate(qunary *q, lgq_lut_ff f, const void *ud) {
    const float inverse_scale = 1 / q->out_scale;
    for (int32_t v = q->lo; v <= q->hi; v++) {
        const float dequantized = q->in_scale * (float)(v - q->in_zp);
        const float rescaled = roundf(f(dequantized, ud) * inverse_scale);
        const int32_t quantized = (int32_t)(rescaled + (float)q->out_zp);
        q->lut8[(uint8_t)v] = (uint8_t)lgq_clamp(quantized, q->lo, q->hi);
    }
}

static void lut_populate(qunary *q, lgq_lut_ff f, const void *ud) {
    if (q->t == LG_INT16) lgq_lut16_populate_f(q->in_scale, q->in_zp, q->out_scale, q->out_zp, f, ud, q->lut16);
    else lut8_populate(q, f, ud);
    q->table = 1;
}

/* ------------------------------------------------------------------ prepare */

static int unary_op(int32_t code) {
    switch (code) {
    case LG_OP_GELU: return U_GELU;
    case LG_OP_RSQRT: return U_RSQRT;
    case LG_OP_SQRT: return U_SQRT;
    case LG_OP_ABS: return U_ABS;
    default: return U_LOG;
    }
}

static lg_status unary_types(lgk_node *n, qunary *q, lg_error *err) {
    const lgk_tensor *x = n->in[0], *y = n->out[0];
    q->t = x->type;
    if (lgk_storage_type(y->ir->type) != q->t)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output is %s but input is %s", lg_dtype_name(y->ir->type),
                        lg_dtype_name(x->ir->type));
    /* GELU: int8, uint8, int16; the elementwise ops: int8, int16 (IsRsqrtSupportedType, ...) */
    if (q->t == LG_UINT8 && q->op != U_GELU)
        return lgq_unsupported(n, err, "UINT8 %s is not supported (TFLite takes INT8 and INT16)", n->name);
    lgq_tp in, out;
    LG_TRY(lgq_params(n, x, "input", &in, err));
    LG_TRY(lgq_params(n, y, "output", &out, err));
    if (q->t == LG_INT16 && q->op != U_GELU && (in.zp || out.zp))
        return lgk_fail(n, LG_ERR_FORMAT, err, "int16 %s needs zero points 0 (TFLite)", n->name);
    q->in_zp = in.zp;
    q->out_zp = out.zp;
    q->in_scale = in.scale;
    q->out_scale = out.scale;
    lgq_type_range(q->t, &q->lo, &q->hi);
    return lgk_set_output(n, 0, q->t, x->shape, x->rank, err);
}

lg_status lgq_unary_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in != 1 || !n->in[0] || n->n_out != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 1 input and 1 output");
    qunary *q = lgk_alloc(n, sizeof *q);
    if (!q) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q, 0, sizeof *q);
    q->op = unary_op(n->code);
    LG_TRY(unary_types(n, q, err));
    switch (q->op) {
    case U_GELU: {
        const lg_gelu_options *o = n->op->opts_kind == LG_OPTS_GELU_OPTIONS ? n->opts : NULL;
        lut_populate(q, o && o->approximate ? gelu_approx : gelu_exact, NULL);
        break;
    }
    case U_LOG: {
        /* the output's minimum real value: (type min - zp_out) * s_out */
        const float out_min = (float)(q->lo - q->out_zp) * q->out_scale;
        lut_populate(q, log_or_min, &out_min);
        break;
    }
    case U_RSQRT:
        if (q->t == LG_INT16) {
            lut_populate(q, rsqrt_or_max, &q->out_scale);
        } else {
            /* SetRsqrtOutputMultiplier: 1. / (std::sqrt(s_in) * s_out): sqrt of a float is a
               float, times a float, then divided in double */
            const double scale = 1. / (double)(sqrtf(q->in_scale) * q->out_scale);
            if (!lgq_quantize_multiplier(scale, &q->mult, &q->shift))
                return lgk_fail(n, LG_ERR_FORMAT, err, "bad scales %g -> %g", (double)q->in_scale, (double)q->out_scale);
        }
        break;
    case U_ABS:
        q->rescale = q->in_scale != q->out_scale;
        if (q->rescale && !lgq_quantize_multiplier((double)(q->in_scale / q->out_scale), &q->mult, &q->shift))
            return lgk_fail(n, LG_ERR_FORMAT, err, "bad scales %g -> %g", (double)q->in_scale, (double)q->out_scale);
        break;
    default: break;
    }
    n->state = q;
    return LG_OK;
}

/* ------------------------------------------------------------------ eval */

static int32_t rsqrt8(const qunary *q, int32_t x) {
    const int32_t value = x - q->in_zp;
    const int kshift = 20;
    if (value == 0) return q->hi;
    int32_t m;
    int s;
    lgq_inv_sqrt(value, -1, &m, &s);
    const int32_t data = lgq_mbqm(1, m, s + kshift);
    return lgq_clamp(lgq_mbqm(data, q->mult, q->shift - kshift) + q->out_zp, q->lo, q->hi);
}

lg_status lgq_unary_eval(lgk_node *n, lg_error *err) {
    const qunary *q = n->state;
    const void *x = n->in[0]->data;
    void *y = n->out[0]->data;
    const int64_t cnt = n->out[0]->numel;
    if (q->op == U_RSQRT || q->op == U_SQRT) {
        for (int64_t i = 0; i < cnt; i++)
            if (lgq_get(x, q->t, i) < q->in_zp)
                return lgk_fail(n, LG_ERR_INVALID_ARG, err, "element %lld is negative: %s is only defined for "
                                "non-negative values (TFLite fails too)", (long long)i, n->name);
    }
    if (q->table) {
        if (q->t == LG_INT16) {
            for (int64_t i = 0; i < cnt; i++) ((int16_t *)y)[i] = lgq_lut16(((const int16_t *)x)[i], q->lut16);
        } else {
            for (int64_t i = 0; i < cnt; i++) ((uint8_t *)y)[i] = q->lut8[((const uint8_t *)x)[i]];
        }
        return LG_OK;
    }
    for (int64_t i = 0; i < cnt; i++) {
        const int32_t v = lgq_get(x, q->t, i);
        int32_t r;
        if (q->op == U_RSQRT) {
            r = rsqrt8(q, v);
        } else if (q->op == U_SQRT) {
            const float deq = q->in_scale * (float)(v - q->in_zp);
            r = lgq_clamp((int32_t)(sqrtf(deq) / q->out_scale) + q->out_zp, q->lo, q->hi);
        } else { /* ABS */
            const int32_t a = v - q->in_zp < 0 ? q->in_zp - v : v - q->in_zp;
            r = q->rescale ? lgq_mbqm(a, q->mult, q->shift) + q->out_zp : a + q->out_zp;
            r = lgq_clamp(r, q->lo, q->hi);
        }
        lgq_put(y, q->t, i, r);
    }
    return LG_OK;
}
