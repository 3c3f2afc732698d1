/* Integer binary kernels (k_quant_more.h): SQUARED_DIFFERENCE (int8), DIV (int8, uint8, int16),
 * PRELU (int8, uint8; int16 with int8 alpha), MAXIMUM / MINIMUM (int8, uint8, int16). XNNPACK
 * takes none of them quantized (xnnpack_delegate.cc VisitBinaryNode: DIV, MAXIMUM, MINIMUM,
 * PRELU, SQUARED_DIFFERENCE are CheckTensorFloatType), so both --int-arith modes compute
 * TFLite's builtin kernels. Inputs broadcast (numpy rules; TFLite's 4-D/5-D slow broadcasts
 * visit the same pairs).
 *
 *   SQUARED_DIFFERENCE (squared_difference.cc): left shift 7, twice_max = 2 max(s1, s2),
 *     input multipliers s_i / twice_max, output twice_max^2 / (2^14 s_out) (all
 *     QuantizeMultiplierSmallerThanOneExp: TFLite aborts on a multiplier >= 1, refused here);
 *     d = MBQM((a - z1) << 7) - MBQM((b - z2) << 7), y = clamp(MBQM(d * d) + z_out).
 *   DIV (div.cc, internal/reference/div.h DivElementwise / BroadcastDivSlowQuantized): the
 *     multiplier of s1 / (s2 s_out) (in float); per element a' = a - z1, b' = b - z2 (signs
 *     flipped if b' < 0; b' == 0 anywhere is an error, div.cc CheckNonZero),
 *     r = GetReciprocal(b', 31, &rs), h = CountLeadingSignBits(a'),
 *     q = SRDHM(a' << h, r), y = clamp(RDBPOT(SRDHM(q, M), h + rs - shift) + z_out) with the
 *     fused activation's range. That exponent can exceed 31 (|a'| <= 1 with a large divisor):
 *     gemmlowp's RoundingDivideByPOT then computes its mask as (1ll << e) - 1 and shifts by e,
 *     which wasm (LiteRT.js) and x86 take modulo 64 and 32; done so here.
 *   PRELU (activations.cc PreluPrepare, internal/reference/prelu.h): x' = x - z_in >= 0:
 *     MBQM(x', M1) with M1 = s_in / s_out; else MBQM(x' (alpha - z_alpha), M2) with
 *     M2 = s_in s_alpha / s_out (both products and quotients in float); + z_out, clamped.
 *   MAXIMUM / MINIMUM (maximum_minimum.cc): the larger / smaller raw integer. TFLite does not
 *     rescale, so the result is only the maximum of the values when both inputs and the
 *     output share scale and zero point (the converter's "same scale" constraint): other
 *     quantizations are refused.
 */
#include "run/k_quant_fp.h"
#include "run/k_quant_more.h"

enum { B_SQDIFF, B_DIV, B_PRELU, B_MAX, B_MIN };

typedef struct qbin {
    int op;
    lg_dtype ta, tb, to;
    int32_t za, zb, zo, lo, hi;
    int32_t m1, m2, mo;
    int s1, s2, so;
    lgq_bcast bc;
} qbin;

static lg_status bin_common(lgk_node *n, qbin *q, int op, lgq_tp *a, lgq_tp *b, lgq_tp *o, lg_error *err) {
    if (n->n_in != 2 || !n->in[0] || !n->in[1] || n->n_out != 1)
        return lgk_fail(n, LG_ERR_FORMAT, err, "expected 2 inputs and 1 output");
    const lgk_tensor *x = n->in[0], *y = n->in[1], *z = n->out[0];
    q->op = op;
    q->ta = x->type;
    q->tb = y->type;
    q->to = lgk_storage_type(z->ir->type);
    const int alpha_i8 = op == B_PRELU && q->ta == LG_INT16 && q->tb == LG_INT8;
    if ((q->tb != q->ta && !alpha_i8) || q->to != q->ta)
        return lgq_unsupported(n, err, "mixed types %s, %s -> %s are not supported", lg_dtype_name(x->ir->type),
                               lg_dtype_name(y->ir->type), lg_dtype_name(z->ir->type));
    LG_TRY(lgq_params(n, x, "input 0", a, err));
    LG_TRY(lgq_params(n, y, "input 1", b, err));
    LG_TRY(lgq_params(n, z, "output", o, err));
    q->za = a->zp;
    q->zb = b->zp;
    q->zo = o->zp;
    lgq_type_range(q->to, &q->lo, &q->hi);
    int32_t shape[LG_MAX_RANK];
    uint32_t rank;
    LG_TRY(lgq_bcast_init(n, &q->bc, shape, &rank, err));
    return lgk_set_output(n, 0, q->to, shape, rank, err);
}

static qbin *bin_new(lgk_node *n, lg_error *err) {
    qbin *q = lgk_alloc(n, sizeof *q);
    if (!q) lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    else memset(q, 0, sizeof *q);
    return q;
}

/* QuantizeMultiplierSmallerThanOneExp: TFLITE_CHECKs 0 < m < 1 */
static int qmult_below_one(double m, int32_t *qm, int *s) {
    return m > 0 && m < 1 && lgq_quantize_multiplier(m, qm, s) && *s <= 0;
}

/* ------------------------------------------------------------------ prepare */

lg_status lgq_sqdiff_prepare(lgk_node *n, lg_error *err) {
    qbin *q = bin_new(n, err);
    if (!q) return LG_ERR_NOMEM;
    lgq_tp a, b, o;
    LG_TRY(bin_common(n, q, B_SQDIFF, &a, &b, &o, err));
    if (q->ta != LG_INT8)
        return lgq_unsupported(n, err, "%s SQUARED_DIFFERENCE is not supported (TFLite: INT8 only)", lg_dtype_name(q->ta));
    const double twice_max = (double)(2 * (a.scale > b.scale ? a.scale : b.scale));
    const double r1 = (double)a.scale / twice_max, r2 = (double)b.scale / twice_max;
    const double ro = (twice_max * twice_max) / (double)((float)(1 << 14) * o.scale);
    if (!qmult_below_one(r1, &q->m1, &q->s1) || !qmult_below_one(r2, &q->m2, &q->s2) ||
        !qmult_below_one(ro, &q->mo, &q->so))
        return lgq_unsupported(n, err, "output scale %g is too small for input scales %g, %g (TFLite aborts on a "
                               "multiplier >= 1)", (double)o.scale, (double)a.scale, (double)b.scale);
    n->state = q;
    return LG_OK;
}

lg_status lgq_div_prepare(lgk_node *n, lg_error *err) {
    qbin *q = bin_new(n, err);
    if (!q) return LG_ERR_NOMEM;
    lgq_tp a, b, o;
    LG_TRY(bin_common(n, q, B_DIV, &a, &b, &o, err));
    const lg_div_options *opt = n->op->opts_kind == LG_OPTS_DIV_OPTIONS ? n->opts : NULL;
    LG_TRY(lgq_act_range_tflite(n, opt ? opt->fused_activation_function : 0, n->out[0], &q->lo, &q->hi, err));
    const float real = a.scale / (b.scale * o.scale);
    if (!lgq_quantize_multiplier((double)real, &q->mo, &q->so))
        return lgk_fail(n, LG_ERR_FORMAT, err, "bad scales %g / %g -> %g", (double)a.scale, (double)b.scale,
                        (double)o.scale);
    n->state = q;
    return LG_OK;
}

lg_status lgq_prelu_prepare(lgk_node *n, lg_error *err) {
    qbin *q = bin_new(n, err);
    if (!q) return LG_ERR_NOMEM;
    lgq_tp a, b, o;
    LG_TRY(bin_common(n, q, B_PRELU, &a, &b, &o, err));
    const lgk_tensor *x = n->in[0], *y = n->out[0];
    int same = y->rank == x->rank;
    for (uint32_t d = 0; same && d < x->rank; d++) same = y->shape[d] == x->shape[d];
    if (!same) return lgk_fail(n, LG_ERR_FORMAT, err, "alpha (tensor %d) does not broadcast to the input's shape", n->in[1]->index);
    const float r1 = a.scale / o.scale, r2 = a.scale * b.scale / o.scale;
    if (!lgq_quantize_multiplier((double)r1, &q->m1, &q->s1) || !lgq_quantize_multiplier((double)r2, &q->m2, &q->s2))
        return lgk_fail(n, LG_ERR_FORMAT, err, "bad scales %g, %g -> %g", (double)a.scale, (double)b.scale,
                        (double)o.scale);
    n->state = q;
    return LG_OK;
}

lg_status lgq_minmax_prepare(lgk_node *n, lg_error *err) {
    qbin *q = bin_new(n, err);
    if (!q) return LG_ERR_NOMEM;
    lgq_tp a, b, o;
    LG_TRY(bin_common(n, q, n->code == LG_OP_MAXIMUM ? B_MAX : B_MIN, &a, &b, &o, err));
    if (a.scale != o.scale || a.zp != o.zp || b.scale != o.scale || b.zp != o.zp)
        return lgq_unsupported(n, err, "inputs (scale %g zero point %d, scale %g zero point %d) and output (scale %g "
                               "zero point %d) must share their quantization: TFLite compares the raw integers",
                               (double)a.scale, a.zp, (double)b.scale, b.zp, (double)o.scale, o.zp);
    n->state = q;
    return LG_OK;
}

/* ------------------------------------------------------------------ elementwise */

static int32_t sqdiff1(const qbin *q, int32_t a, int32_t b) {
    const int32_t x1 = lgq_mbqm((a - q->za) * (1 << 7), q->m1, q->s1);
    const int32_t x2 = lgq_mbqm((b - q->zb) * (1 << 7), q->m2, q->s2);
    const int32_t d = x1 - x2;
    return lgq_clamp(lgq_mbqm(d * d, q->mo, q->so) + q->zo, q->lo, q->hi);
}

/* gemmlowp RoundingDivideByPOT with the shift counts taken modulo 64 (the mask) and 32 (the
   shift), as wasm and x86 execute it for an exponent outside [0, 31]. */
static int32_t rdbpot_wrapped(int32_t x, int e) {
    const int32_t mask = (int32_t)(uint32_t)((UINT64_C(1) << ((unsigned)e & 63)) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> ((unsigned)e & 31)) + (remainder > threshold ? 1 : 0);
}

static int32_t div1(const qbin *q, int32_t a, int32_t b) {
    int32_t x = a - q->za, y = b - q->zb;
    if (y < 0) {
        x = -x;
        y = -y;
    }
    int rs;
    const int32_t inv = lgq_reciprocal(y, 31, &rs);
    const int h = lgq_clrsb32(x);
    const int32_t uq = lgq_srdhm((int32_t)((uint32_t)x << h), inv);
    const int total_shift = q->so - rs - h;
    const int32_t r = rdbpot_wrapped(lgq_srdhm(uq, q->mo), -total_shift) + q->zo;
    return lgq_clamp(r, q->lo, q->hi);
}

static int32_t prelu1(const qbin *q, int32_t x, int32_t alpha) {
    const int32_t v = x - q->za;
    const int32_t r = v >= 0 ? lgq_mbqm(v, q->m1, q->s1) : lgq_mbqm(v * (alpha - q->zb), q->m2, q->s2);
    return lgq_clamp(r + q->zo, q->lo, q->hi);
}

static inline int32_t bin1(const qbin *q, int32_t a, int32_t b) {
    switch (q->op) {
    case B_SQDIFF: return sqdiff1(q, a, b);
    case B_DIV: return div1(q, a, b);
    case B_PRELU: return prelu1(q, a, b);
    case B_MAX: return a > b ? a : b;
    default: return a < b ? a : b;
    }
}

static lg_status bin_eval(lgk_node *n, lg_error *err) {
    const qbin *q = n->state;
    const void *x = n->in[0]->data, *y = n->in[1]->data;
    void *z = n->out[0]->data;
    if (q->op == B_DIV)
        for (int64_t i = 0; i < n->in[1]->numel; i++)
            if (lgq_get(y, q->tb, i) == q->zb)
                return lgk_fail(n, LG_ERR_INVALID_ARG, err, "divisor element %lld is zero (TFLite fails too)", (long long)i);
    const lgq_bcast *bc = &q->bc;
    int64_t idx[LG_MAX_RANK] = {0}, oa = 0, ob = 0;
    for (int64_t i = 0; i < bc->numel; i++) {
        lgq_put(z, q->to, i, bin1(q, lgq_get(x, q->ta, oa), lgq_get(y, q->tb, ob)));
        for (int d = (int)bc->rank - 1; d >= 0; d--) {
            oa += bc->sa[d];
            ob += bc->sb[d];
            if (++idx[d] < bc->dim[d]) break;
            oa -= bc->sa[d] * bc->dim[d];
            ob -= bc->sb[d] * bc->dim[d];
            idx[d] = 0;
        }
    }
    return LG_OK;
}

lg_status lgq_sqdiff_eval(lgk_node *n, lg_error *err) { return bin_eval(n, err); }
lg_status lgq_div_eval(lgk_node *n, lg_error *err) { return bin_eval(n, err); }
lg_status lgq_prelu_eval(lgk_node *n, lg_error *err) { return bin_eval(n, err); }
lg_status lgq_minmax_eval(lgk_node *n, lg_error *err) { return bin_eval(n, err); }
