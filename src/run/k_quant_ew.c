/* Integer elementwise kernels (k_quant.h): QUANTIZE between integer types (requantization),
 * ADD, SUB, MUL, RELU / RELU6 / RELU_N1_TO_1 / RELU_0_TO_1, LOGISTIC, TANH, ELU (TFLite's
 * int8 / uint8 look-up tables), HARD_SWISH, LEAKY_RELU and SOFTMAX.
 *
 * Sources (tflite/kernels/): quantize.cc + internal/reference/requantize.h; add.cc, sub.cc,
 * internal/reference/integer_ops/add.h, internal/reference/sub.h; mul.cc,
 * internal/reference/integer_ops/mul.h; activations.cc (ReluPrepare + QuantizedReluX,
 * TanhPrepare / SigmoidPrepare / EluPrepare with LUTPopulate of internal/common.h,
 * HardSwishPrepare + internal/reference/hard_swish.h, LeakyReluPrepare +
 * internal/reference/leaky_relu.h, SoftmaxPrepare + optimized_ops::Softmax with
 * PopulateSoftmaxLookupTable: the builtin kernel off aarch64, which LiteRT.js's wasm build is).
 */
#include "run/k_quant.h"

/* ------------------------------------------------------------------ shared */

typedef struct qew {
    lg_dtype it, it2, ot;
    int32_t in_zp, in2_zp, out_zp, lo, hi;
    int32_t m1, m2, mo;       /* multipliers */
    int s1, s2, so;           /* shifts */
    int left_shift;
    int sub;
    lgq_bcast bc;
    /* HARD_SWISH */
    int16_t hs_out_m, hs_relu_m;
    int hs_out_e, hs_relu_e;
    /* LUT (int8 / uint8), indexed by raw value + 128 for int8 */
    uint8_t lut[256];
    /* LG_INT_XNNPACK QUANTIZE: 1 float input (fq), or the 8-bit convert's multiplier */
    int xnn, fq;
    float fscale;
    /* SOFTMAX */
    float table[256];
    float out_scale;
    int64_t rows, len;
} qew;

static qew *qew_new(lgk_node *n, lg_error *err) {
    qew *q = lgk_alloc(n, sizeof *q);
    if (!q) lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    else memset(q, 0, sizeof *q);
    return q;
}

/* One input, one output of the input's shape; both quantized per tensor. */
static lg_status unary_io(lgk_node *n, qew *q, int same_type, lgq_tp *in, lgq_tp *out, lg_error *err) {
    if (n->n_in < 1 || !n->in[0] || n->n_out != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 1 input and 1 output");
    const lgk_tensor *x = n->in[0], *y = n->out[0];
    q->it = x->type;
    q->ot = lgk_storage_type(y->ir->type);
    if (!lgq_is_qtype(q->ot))
        return lgq_unsupported(n, err, "%s input with %s output is not supported", lg_dtype_name(q->it),
                               lg_dtype_name(y->ir->type));
    if (same_type && q->ot != q->it)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output is %s but input is %s", lg_dtype_name(y->ir->type),
                        lg_dtype_name(x->ir->type));
    LG_TRY(lgq_params(n, x, "input", in, err));
    LG_TRY(lgq_params(n, y, "output", out, err));
    q->in_zp = in->zp;
    q->out_zp = out->zp;
    lgq_type_range(q->ot, &q->lo, &q->hi);
    return lgk_set_output(n, 0, q->ot, x->shape, x->rank, err);
}

static int qmult(double m, int32_t *qm, int *s) { return lgq_quantize_multiplier(m, qm, s); }

/* ------------------------------------------------------------------ QUANTIZE (requantize) */

/* quantize.cc: int8/uint8 -> int8/uint8/int16, int16 -> int8/int16; multiplier
   QuantizeMultiplier(double(in_scale) / double(out_scale)); requantize.h: y = clamp(MBQM(x - zp_in)
   + zp_out) (the int8 <-> uint8 shift-by-128 fast path computes the same values). */
/* LG_INT_XNNPACK (the delegate takes float -> int8/uint8, and int8 -> int8 / uint8 -> uint8
   with s_in / s_out in [1/256, 128]; google/XNNPACK src/microparams-init.c,
   src/qs8-vcvt/, src/f32-qs8-vcvt/):
   float input: y = rne(clamp(x * (1 / s_out))) + zp_out (float multiply, magic-bias rounding);
   8-bit: m = lrintf(256 * (s_in / s_out)), y = asr((zp_out << 8) - m * zp_in + 0x80 + m * x, 8),
   clamped. */
static lg_status requant_xnn(lgk_node *n, qew *q, lg_error *err) {
    const lgk_tensor *x = n->in[0], *y = n->out[0];
    lgq_tp out;
    LG_TRY(lgq_params(n, y, "output", &out, err));
    q->ot = lgk_storage_type(y->ir->type);
    q->out_zp = out.zp;
    lgq_type_range(q->ot, &q->lo, &q->hi);
    if (x->type == LG_FLOAT32) {
        q->fq = 1;
        q->fscale = 1.0f / out.scale;
    } else {
        lgq_tp in;
        LG_TRY(lgq_params(n, x, "input", &in, err));
        q->in_zp = in.zp;
        q->mo = (int32_t)lrintf(256.0f * (in.scale / out.scale));
    }
    q->xnn = 1;
    LG_TRY(lgk_set_output(n, 0, q->ot, x->shape, x->rank, err));
    n->state = q;
    return LG_OK;
}

lg_status lgq_requant_prepare(lgk_node *n, lg_error *err) {
    qew *q = qew_new(n, err);
    if (!q) return LG_ERR_NOMEM;
    if (n->ctx->int_arith == LG_INT_XNNPACK && n->n_in == 1 && n->in[0] && n->n_out == 1) {
        const lgk_tensor *x = n->in[0], *y = n->out[0];
        lg_dtype ot = lgk_storage_type(y->ir->type);
        int q8 = lgq_has_quant(x) && x->ir->quant->n_scale == 1 && lgq_has_quant(y) && y->ir->quant->n_scale == 1 &&
                 x->type == ot && (ot == LG_INT8 || ot == LG_UINT8);
        if (q8) {
            float r = x->ir->quant->scale[0] / y->ir->quant->scale[0];
            q8 = r >= 1.0f / 256.0f && r <= 128.0f;
        }
        if (x->type == LG_FLOAT32 || q8) return requant_xnn(n, q, err);
    }
    lgq_tp in, out;
    LG_TRY(unary_io(n, q, 0, &in, &out, err));
    if (q->it == LG_INT16 && q->ot == LG_UINT8)
        return lgq_unsupported(n, err, "requantization INT16 -> UINT8 is not supported (TFLite: INT16 -> INT8, INT16)");
    if (n->in[0]->ir->quant->n_scale != 1 || n->out[0]->ir->quant->n_scale != 1)
        return lgq_unsupported(n, err, "per-channel requantization is not supported");
    if (!qmult((double)in.scale / (double)out.scale, &q->mo, &q->so) || q->so > 30)
        return lgk_fail(n, LG_ERR_FORMAT, err, "bad requantization scale %g / %g", (double)in.scale, (double)out.scale);
    n->state = q;
    return LG_OK;
}

lg_status lgq_requant_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const qew *q = n->state;
    const void *x = n->in[0]->data;
    void *y = n->out[0]->data;
    if (q->fq) {
        const float *f = x;
        const float lo = (float)(q->lo - q->out_zp), hi = (float)(q->hi - q->out_zp);
        for (int64_t i = 0; i < n->out[0]->numel; i++) {
            float v = f[i] * q->fscale;
            v = v < lo ? lo : v > hi ? hi : v;
            if (v != v) v = 0; /* NaN: not a case the delegate defines */
            lgq_put(y, q->ot, i, (int32_t)rintf(v) + q->out_zp);
        }
        return LG_OK;
    }
    if (q->xnn) {
        const int32_t bias = (int32_t)((uint32_t)q->out_zp << 8) - q->mo * q->in_zp + 0x80;
        for (int64_t i = 0; i < n->out[0]->numel; i++) {
            int32_t v = (bias + lgq_get(x, q->ot, i) * q->mo) >> 8;
            lgq_put(y, q->ot, i, lgq_clamp(v, q->lo, q->hi));
        }
        return LG_OK;
    }
    for (int64_t i = 0; i < n->out[0]->numel; i++) {
        int32_t v = lgq_mbqm(lgq_get(x, q->it, i) - q->in_zp, q->mo, q->so) + q->out_zp;
        lgq_put(y, q->ot, i, lgq_clamp(v, q->lo, q->hi));
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ ADD, SUB, MUL */

static lg_status binary_io(lgk_node *n, qew *q, lgq_tp *a, lgq_tp *b, lgq_tp *o, int act, lg_error *err) {
    if (n->n_in != 2 || !n->in[0] || !n->in[1] || n->n_out != 1)
        return lgk_fail(n, LG_ERR_FORMAT, err, "expected 2 inputs and 1 output");
    const lgk_tensor *x = n->in[0], *y = n->in[1], *z = n->out[0];
    q->it = x->type;
    q->it2 = y->type;
    q->ot = lgk_storage_type(z->ir->type);
    if (q->it2 != q->it || q->ot != q->it)
        return lgq_unsupported(n, err, "mixed types %s, %s -> %s are not supported", lg_dtype_name(x->ir->type),
                               lg_dtype_name(y->ir->type), lg_dtype_name(z->ir->type));
    LG_TRY(lgq_params(n, x, "input 0", a, err));
    LG_TRY(lgq_params(n, y, "input 1", b, err));
    LG_TRY(lgq_params(n, z, "output", o, err));
    if (q->it == LG_INT16 && (a->zp || b->zp || o->zp))
        return lgk_fail(n, LG_ERR_FORMAT, err, "int16 operands must have zero point 0");
    q->in_zp = a->zp;
    q->in2_zp = b->zp;
    q->out_zp = o->zp;
    LG_TRY(lgq_act_range(n, act, z, &q->lo, &q->hi, err));
    int32_t shape[LG_MAX_RANK];
    uint32_t rank;
    LG_TRY(lgq_bcast_init(n, &q->bc, shape, &rank, err));
    return lgk_set_output(n, 0, q->ot, shape, rank, err);
}

/* add.cc / sub.cc Prepare: left_shift 20 (8-bit) or 15 (int16), twice_max = 2 * max(s1, s2),
   input multipliers s_i / twice_max, output twice_max / (2^left_shift * s_out) (that
   denominator is a float product, exact). int16 ADD takes the general path only: its
   power-of-two path (pot_scale_int16 with every scale a power of two) is refused. */
lg_status lgq_addsub_prepare(lgk_node *n, lg_error *err) {
    qew *q = qew_new(n, err);
    if (!q) return LG_ERR_NOMEM;
    int act = 0, pot = 0;
    if (n->code == LG_OP_ADD && n->op->opts_kind == LG_OPTS_ADD_OPTIONS && n->opts) {
        act = ((const lg_add_options *)n->opts)->fused_activation_function;
        pot = ((const lg_add_options *)n->opts)->pot_scale_int16;
    } else if (n->code == LG_OP_SUB && n->op->opts_kind == LG_OPTS_SUB_OPTIONS && n->opts) {
        act = ((const lg_sub_options *)n->opts)->fused_activation_function;
        pot = ((const lg_sub_options *)n->opts)->pot_scale_int16;
    }
    lgq_tp a, b, o;
    LG_TRY(binary_io(n, q, &a, &b, &o, act, err));
    if (q->it == LG_INT16 && pot) {
        int e;
        int all_pot = frexpf(a.scale, &e) == 0.5f && frexpf(b.scale, &e) == 0.5f && frexpf(o.scale, &e) == 0.5f;
        if (all_pot)
            return lgq_unsupported(n, err, "int16 %s with power-of-two scales (pot_scale_int16) is not supported",
                                   n->name);
    }
    q->sub = n->code == LG_OP_SUB;
    if (n->ctx->int_arith == LG_INT_XNNPACK && q->it != LG_INT16) {
        /* XNNPACK (src/microparams-init.c xnn_init_qs8_add_minmax_scalar_params,
           src/xnnpack/requantization.h xnn_qs8_quantize_add; SUB negates b's scale):
           m_a, m_b = lrintf(|s / s_out| * 2^shift) with shift = 20 - exponent of the larger,
           acc = 2^(shift-1) - m_a zp_a - m_b zp_b + m_a a + m_b b, y = asr(acc, shift) + zp_out */
        const float ao = a.scale / o.scale, bo = b.scale / o.scale;
        const float mx = ao > bo ? ao : bo;
        if (!(mx >= 0x1.0p-10f && mx < 0x1.0p+8f) || !(ao >= 0x1.0p-10f) || !(bo >= 0x1.0p-10f))
            return lgq_unsupported(n, err, "input / output scale ratio outside XNNPACK's [2^-10, 2^8)");
        int e;
        (void)frexpf(mx, &e);
        q->so = 20 - (e - 1);
        q->m1 = (int32_t)lrintf(ldexpf(ao, q->so));
        q->m2 = (int32_t)lrintf(ldexpf(bo, q->so));
        if (q->sub) q->m2 = -q->m2;
        q->xnn = 1;
        n->state = q;
        return LG_OK;
    }
    q->left_shift = q->it == LG_INT16 ? 15 : 20;
    const double twice_max = 2 * (double)(a.scale > b.scale ? a.scale : b.scale);
    const double r1 = (double)a.scale / twice_max, r2 = (double)b.scale / twice_max;
    const double ro = twice_max / (double)((float)(1 << q->left_shift) * o.scale);
    if (!qmult(r1, &q->m1, &q->s1) || !qmult(r2, &q->m2, &q->s2) || !qmult(ro, &q->mo, &q->so) || q->so > 30)
        return lgk_fail(n, LG_ERR_FORMAT, err, "bad scales %g, %g -> %g", (double)a.scale, (double)b.scale,
                        (double)o.scale);
    n->state = q;
    return LG_OK;
}

/* Walk the broadcast: f(q, a, b) for each output element in order. */
#define BCAST_LOOP(Q, X, Y, BODY)                                                              \
    do {                                                                                       \
        const lgq_bcast *bc_ = &(Q)->bc;                                                       \
        int64_t idx_[LG_MAX_RANK] = {0}, oa_ = 0, ob_ = 0;                                     \
        for (int64_t i = 0; i < bc_->numel; i++) {                                             \
            const int32_t va = lgq_get(X, (Q)->it, oa_), vb = lgq_get(Y, (Q)->it2, ob_);        \
            BODY;                                                                              \
            for (int d = (int)bc_->rank - 1; d >= 0; d--) {                                    \
                oa_ += bc_->sa[d];                                                             \
                ob_ += bc_->sb[d];                                                             \
                if (++idx_[d] < bc_->dim[d]) break;                                            \
                oa_ -= bc_->sa[d] * bc_->dim[d];                                               \
                ob_ -= bc_->sb[d] * bc_->dim[d];                                               \
                idx_[d] = 0;                                                                   \
            }                                                                                  \
        }                                                                                      \
    } while (0)

/* integer_ops/add.h AddFunc, sub.h SubFunc: MultiplyByQuantizedMultiplierSmallerThanOneExp is
   MBQM with a shift <= 0 (the output of SUB may take a shift > 0: GreaterThanOne). */
static inline int32_t addsub1(const qew *q, int32_t va, int32_t vb) {
    const int32_t x1 = (int32_t)((uint32_t)(va - q->in_zp) << q->left_shift);
    const int32_t x2 = (int32_t)((uint32_t)(vb - q->in2_zp) << q->left_shift);
    const int32_t s1 = lgq_mbqm(x1, q->m1, q->s1), s2 = lgq_mbqm(x2, q->m2, q->s2);
    const int32_t raw = q->sub ? s1 - s2 : s1 + s2;
    return lgq_clamp(lgq_mbqm(raw, q->mo, q->so) + q->out_zp, q->lo, q->hi);
}

lg_status lgq_addsub_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const qew *q = n->state;
    void *z = n->out[0]->data;
    if (q->xnn) {
        const int32_t bias = (1 << (q->so - 1)) - q->m1 * q->in_zp - q->m2 * q->in2_zp;
        BCAST_LOOP(q, n->in[0]->data, n->in[1]->data, {
            int32_t acc = (bias + va * q->m1 + vb * q->m2) >> q->so;
            lgq_put(z, q->ot, i, lgq_clamp(acc + q->out_zp, q->lo, q->hi));
        });
        return LG_OK;
    }
    BCAST_LOOP(q, n->in[0]->data, n->in[1]->data, lgq_put(z, q->ot, i, addsub1(q, va, vb)));
    return LG_OK;
}

/* mul.cc: real multiplier s1 * s2 / s_out in float (then QuantizeMultiplier of the double);
   integer_ops/mul.h MulElementwise: MBQM((a - z1) * (b - z2)) + z_out, clamped. */
lg_status lgq_mul_prepare(lgk_node *n, lg_error *err) {
    qew *q = qew_new(n, err);
    if (!q) return LG_ERR_NOMEM;
    int act = n->op->opts_kind == LG_OPTS_MUL_OPTIONS && n->opts
                  ? ((const lg_mul_options *)n->opts)->fused_activation_function : 0;
    lgq_tp a, b, o;
    LG_TRY(binary_io(n, q, &a, &b, &o, act, err));
    float real = a.scale * b.scale / o.scale;
    /* XNNPACK (xnn_init_qs8_mul_minmax_scalar_params, the fp32 vmul kernels): y =
       rne(float((a - z_a)(b - z_b)) * (s_a s_b / s_out)) + z_out, all in float */
    q->xnn = n->ctx->int_arith == LG_INT_XNNPACK && q->it != LG_INT16;
    q->fscale = real;
    if (!qmult((double)real, &q->mo, &q->so) || q->so > 30)
        return lgk_fail(n, LG_ERR_FORMAT, err, "bad scales %g x %g -> %g", (double)a.scale, (double)b.scale,
                        (double)o.scale);
    n->state = q;
    return LG_OK;
}

lg_status lgq_mul_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const qew *q = n->state;
    void *z = n->out[0]->data;
    BCAST_LOOP(q, n->in[0]->data, n->in[1]->data, {
        int32_t p = (int32_t)((int64_t)(va - q->in_zp) * (int64_t)(vb - q->in2_zp));
        int32_t v;
        if (q->xnn) {
            float f = (float)p * q->fscale;
            f = f < -65536.0f ? -65536.0f : f > 65536.0f ? 65536.0f : f;
            v = (int32_t)rintf(f);
        } else {
            v = lgq_mbqm(p, q->mo, q->so);
        }
        lgq_put(z, q->ot, i, lgq_clamp(v + q->out_zp, q->lo, q->hi));
    });
    return LG_OK;
}

/* ------------------------------------------------------------------ RELU family */

/* activations.cc ReluPrepare: multiplier double(float(s_in / s_out)); QuantizedReluX: clamp
   [max(qmin, zp + (int)roundf(act_min / s_out)), min(qmax, zp + roundf(act_max / s_out))]
   (act_max +inf: qmax) of zp_out + MBQM(x - zp_in). */
lg_status lgq_relu_prepare(lgk_node *n, lg_error *err) {
    qew *q = qew_new(n, err);
    if (!q) return LG_ERR_NOMEM;
    lgq_tp in, out;
    LG_TRY(unary_io(n, q, 1, &in, &out, err));
    if (q->it == LG_INT16 && (in.zp || out.zp)) return lgk_fail(n, LG_ERR_FORMAT, err, "int16 needs zero point 0");
    float real = in.scale / out.scale;
    if (!qmult((double)real, &q->mo, &q->so) || q->so > 30)
        return lgk_fail(n, LG_ERR_FORMAT, err, "bad scales %g -> %g", (double)in.scale, (double)out.scale);
    float amin = 0, amax = INFINITY;
    switch (n->code) {
    case LG_OP_RELU6: amax = 6; break;
    case LG_OP_RELU_N1_TO_1: amin = -1; amax = 1; break;
    case LG_OP_RELU_0_TO_1: amax = 1; break;
    default: break;
    }
    int32_t lo = out.zp + (int32_t)roundf(amin / out.scale);
    if (lo > q->lo) q->lo = lo;
    if (amax != INFINITY) {
        int32_t hi = out.zp + (int32_t)roundf(amax / out.scale);
        if (hi < q->hi) q->hi = hi;
    }
    n->state = q;
    return LG_OK;
}

lg_status lgq_relu_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const qew *q = n->state;
    const void *x = n->in[0]->data;
    void *y = n->out[0]->data;
    for (int64_t i = 0; i < n->out[0]->numel; i++) {
        int32_t v = q->out_zp + lgq_mbqm(lgq_get(x, q->it, i) - q->in_zp, q->mo, q->so);
        lgq_put(y, q->ot, i, lgq_clamp(v, q->lo, q->hi));
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ LUT activations */

static float f_logistic(float v) { return 1.0f / (1.0f + expf(-v)); }
static float f_tanh(float v) { return tanhf(v); }
static float f_elu(float v) { return v < 0 ? expm1f(v) : v; }

/* internal/common.h LUTPopulateInt8: for each raw value v, round(f(s_in * (v - zp_in)) *
   (1 / s_out)) + zp_out, clamped; the arithmetic in float, TfLiteRound = roundf. */
static void lut_populate(qew *q, float in_scale, float out_scale, float (*f)(float)) {
    const float inv = 1 / out_scale;
    for (int32_t v = q->lo; v <= q->hi; v++) {
        const float deq = in_scale * (float)(v - q->in_zp);
        const float r = roundf(f(deq) * inv);
        const int32_t qv = (int32_t)(r + (float)q->out_zp);
        q->lut[(uint8_t)v] = (uint8_t)lgq_clamp(qv, q->lo, q->hi);
    }
}

/* HARD_SWISH (activations.cc HardSwishPrepare, reference/hard_swish.h) and LEAKY_RELU
   (LeakyReluPrepare, reference/leaky_relu.h) are tabulated too: they are functions of one
   8-bit value, computed here once per value with TFLite's fixed-point steps. */
static int16_t srdhm16(int16_t a, int16_t b) {
    if (a == b && a == INT16_MIN) return INT16_MAX;
    int32_t ab = (int32_t)a * (int32_t)b;
    int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
    return (int16_t)((ab + nudge) / (1 << 15));
}
static int16_t sdhm16(int16_t a, int16_t b) {
    if (a == b && a == INT16_MIN) return INT16_MAX;
    return (int16_t)(((int32_t)a * (int32_t)b) / (1 << 15));
}
static int16_t sat_lshift16(int16_t v, int amount) {
    int64_t r = (int64_t)v * ((int64_t)1 << amount);
    return (int16_t)(r > INT16_MAX ? INT16_MAX : r < INT16_MIN ? INT16_MIN : r);
}
static int16_t rdbpot16(int16_t x, int e) {
    if (e <= 0) return x;
    const int16_t mask = (int16_t)((1 << e) - 1);
    const int16_t rem = (int16_t)(x & mask);
    const int16_t thr = (int16_t)((mask >> 1) + (x < 0 ? 1 : 0));
    return (int16_t)((x >> e) + (rem > thr ? 1 : 0));
}
/* DownScaleInt32ToInt16Multiplier */
static int16_t down16(int32_t m) {
    if (m >= INT32_MAX - (1 << 15)) return INT16_MAX;
    return (int16_t)((m + (1 << 15)) >> 16);
}

static int32_t hard_swish1(const qew *q, int32_t v) {
    const int16_t in = (int16_t)(v - q->in_zp);
    const int16_t hires = (int16_t)(in * (1 << 7));
    const int16_t pre = srdhm16(hires, q->hs_out_m);
    int16_t r = hires;
    if (q->hs_relu_e > 0) r = sat_lshift16(r, q->hs_relu_e - 1);
    r = srdhm16(r, q->hs_relu_m);
    if (q->hs_relu_e > 0) r = sat_lshift16(r, 1);
    if (q->hs_relu_e < 0) r = rdbpot16(r, -q->hs_relu_e);
    r = (int16_t)((r + (1 << 15)) >> 1);
    const int16_t pre_out = sdhm16(r, pre);
    int16_t o = rdbpot16(pre_out, -q->hs_out_e);
    int32_t out = (int32_t)(int16_t)(o + q->out_zp);
    return lgq_clamp(out, q->lo, q->hi);
}

lg_status lgq_lut_prepare(lgk_node *n, lg_error *err) {
    qew *q = qew_new(n, err);
    if (!q) return LG_ERR_NOMEM;
    lgq_tp in, out;
    LG_TRY(unary_io(n, q, 1, &in, &out, err));
    if (q->it == LG_INT16)
        return lgq_unsupported(n, err, "int16 %s is not supported (int8 and uint8 are)", n->name);
    switch (n->code) {
    case LG_OP_LOGISTIC:
        if (out.scale != 1.0f / 256)
            return lgk_fail(n, LG_ERR_FORMAT, err, "output scale %g must be 1/256 (TFLite)", (double)out.scale);
        lut_populate(q, in.scale, out.scale, f_logistic);
        break;
    case LG_OP_TANH: lut_populate(q, in.scale, out.scale, f_tanh); break;
    case LG_OP_ELU: lut_populate(q, in.scale, out.scale, f_elu); break;
    case LG_OP_HARD_SWISH: {
        const float hires = (1.0f / 128.0f) * in.scale;
        const float reluish = 3.0f / 32768.0f;
        int32_t m;
        if (!qmult((double)(hires / out.scale), &m, &q->hs_out_e) || q->hs_out_e > 0)
            return lgq_unsupported(n, err, "output scale %g is too small for the input scale %g", (double)out.scale,
                                   (double)in.scale);
        q->hs_out_m = down16(m);
        if (!qmult((double)(hires / reluish), &m, &q->hs_relu_e))
            return lgk_fail(n, LG_ERR_FORMAT, err, "bad input scale %g", (double)in.scale);
        q->hs_relu_m = down16(m);
        for (int32_t v = q->lo; v <= q->hi; v++) q->lut[(uint8_t)v] = (uint8_t)hard_swish1(q, v);
        break;
    }
    case LG_OP_LEAKY_RELU: {
        float alpha = n->op->opts_kind == LG_OPTS_LEAKY_RELU_OPTIONS && n->opts
                          ? ((const lg_leaky_relu_options *)n->opts)->alpha : 0.0f;
        int32_t ma, mi;
        int sa, si;
        float ra = in.scale * alpha / out.scale, ri = in.scale / out.scale;
        int neg = ra < 0;
        if (n->ctx->int_arith == LG_INT_XNNPACK) {
            /* XNNPACK (xnn_init_qs8_lrelu_scalar_params, src/qs8-vlrelu/): multipliers
               lrintf(256 s_in/s_out) and lrintf(256 (s_in/s_out) alpha) (float),
               y = asr((zp_out << 8) + 0x80 + (x - zp_in) m, 8), clamped */
            const float ps = in.scale / out.scale, nsl = ps * alpha;
            const int32_t pm = (int32_t)lrintf(256.0f * ps), nm = (int32_t)lrintf(256.0f * nsl);
            const int32_t bias = (int32_t)((uint32_t)out.zp << 8) + 0x80;
            for (int32_t v = q->lo; v <= q->hi; v++) {
                int32_t xv = v - q->in_zp;
                q->lut[(uint8_t)v] = (uint8_t)lgq_clamp((bias + xv * (xv >= 0 ? pm : nm)) >> 8, q->lo, q->hi);
            }
            break;
        }
        if (!qmult(neg ? -(double)ra : (double)ra, &ma, &sa) || !qmult((double)ri, &mi, &si) || sa > 30 || si > 30)
            return lgk_fail(n, LG_ERR_FORMAT, err, "bad scales or alpha %g", (double)alpha);
        for (int32_t v = q->lo; v <= q->hi; v++) {
            int32_t x = v - q->in_zp, o = q->out_zp;
            if (x >= 0) o += lgq_mbqm(x, mi, si);
            else o += neg ? -lgq_mbqm(x, ma, sa) : lgq_mbqm(x, ma, sa);
            q->lut[(uint8_t)v] = (uint8_t)lgq_clamp(o, q->lo, q->hi);
        }
        break;
    }
    default: return lgq_unsupported(n, err, "no integer kernel");
    }
    n->state = q;
    return LG_OK;
}

lg_status lgq_lut_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const qew *q = n->state;
    const uint8_t *x = n->in[0]->data;
    uint8_t *y = n->out[0]->data;
    for (int64_t i = 0; i < n->out[0]->numel; i++) y[i] = q->lut[x[i]];
    return LG_OK;
}

/* ------------------------------------------------------------------ SOFTMAX */

/* activations.cc SoftmaxPrepare (kGenericOptimized, no TFLITE_SOFTMAX_USE_UINT16_LUT off
   aarch64): table[255 - v] = expf(-s_in * beta * v); optimized_ops::Softmax: per row, the max
   m, sum = sum_j table[255 - m + x_j] in float in order, inv = 1 / (sum * s_out),
   y_j = round(table[..] * inv) + zp (uint8: (int)(p + 0.5f)), clamped. int8 output needs zero
   point -128 and scale 1/256 (+- 0.1%). */
lg_status lgq_softmax_prepare(lgk_node *n, lg_error *err) {
    qew *q = qew_new(n, err);
    if (!q) return LG_ERR_NOMEM;
    lgq_tp in, out;
    LG_TRY(unary_io(n, q, 0, &in, &out, err));
    if (q->it == LG_INT16 || q->ot == LG_INT16)
        return lgq_unsupported(n, err, "int16 SOFTMAX is not supported (int8 and uint8 are)");
    if (q->ot != q->it)
        return lgq_unsupported(n, err, "%s -> %s is not supported", lg_dtype_name(q->it), lg_dtype_name(q->ot));
    if (q->ot == LG_INT8 && (out.zp != -128 || fabsf(out.scale - 1.0f / 256) > 0.001f / 256))
        return lgk_fail(n, LG_ERR_FORMAT, err, "int8 output must have zero point -128 and scale 1/256 (TFLite)");
    float beta = n->op->opts_kind == LG_OPTS_SOFTMAX_OPTIONS && n->opts ? ((const lg_softmax_options *)n->opts)->beta : 1.0f;
    const float scale = -in.scale * beta;
    for (int32_t v = 0; v <= 255; v++) q->table[255 - v] = expf(scale * (float)v);
    q->out_scale = out.scale;
    const lgk_tensor *x = n->in[0];
    if (x->rank < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "input must have rank >= 1");
    q->len = x->shape[x->rank - 1];
    q->rows = q->len ? x->numel / q->len : 0;
    n->state = q;
    return LG_OK;
}

lg_status lgq_softmax_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const qew *q = n->state;
    const void *x = n->in[0]->data;
    void *y = n->out[0]->data;
    for (int64_t r = 0; r < q->rows; r++) {
        const int64_t base = r * q->len;
        int32_t mx = q->it == LG_INT8 ? INT8_MIN : 0;
        for (int64_t j = 0; j < q->len; j++) {
            int32_t v = lgq_get(x, q->it, base + j);
            if (v > mx) mx = v;
        }
        const float *t = q->table + 255 - mx;
        float sum = 0.0f;
        for (int64_t j = 0; j < q->len; j++) sum += t[lgq_get(x, q->it, base + j)];
        const float inv = 1.0f / (sum * q->out_scale);
        for (int64_t j = 0; j < q->len; j++) {
            const float p = t[lgq_get(x, q->it, base + j)] * inv;
            int32_t v = q->it == LG_UINT8 ? (int32_t)(p + 0.5f) : (int32_t)roundf(p) + q->out_zp;
            lgq_put(y, q->ot, base + j, lgq_clamp(v, q->lo, q->hi));
        }
    }
    return LG_OK;
}
