/* The integer kernels' shared helpers (k_quant.h): QuantizeMultiplier, quantization
 * parameters, activation ranges, broadcasting, and the dispatch that gives an op with quantized
 * tensors its integer kernel. */
#include <stdarg.h>
#include <stdio.h>

#include "lg/ops.h"
#include "run/k_hybrid.h"
#include "run/k_quant.h"
#include "run/k_quant_more.h"

/* tflite/kernels/internal/quantization_util.cc QuantizeMultiplier (not TFLITE_EMULATE_FLOAT,
   not TFLITE_SINGLE_ROUNDING): q = frexp(m, &shift); q_fixed = TfLiteRound(q * 2^31) (std::round,
   half away from zero); q_fixed == 2^31 becomes 2^30 with shift + 1; shift < -31 flushes to 0. */
int lgq_quantize_multiplier(double m, int32_t *qm, int *shift) {
    *qm = 0;
    *shift = 0;
    if (m == 0.0) return 1;
    if (!(m > 0.0) || !isfinite(m)) return 0;
    int e = 0;
    double q = frexp(m, &e);
    int64_t q_fixed = (int64_t)round(q * (double)(1LL << 31));
    if (q_fixed == (1LL << 31)) {
        q_fixed /= 2;
        e++;
    }
    if (e < -31) {
        e = 0;
        q_fixed = 0;
    }
    *qm = (int32_t)q_fixed;
    *shift = e;
    return 1;
}

void lgq_type_range(lg_dtype t, int32_t *lo, int32_t *hi) {
    switch (t) {
    case LG_INT8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case LG_UINT8: *lo = 0; *hi = UINT8_MAX; break;
    default: *lo = INT16_MIN; *hi = INT16_MAX; break;
    }
}

int lgq_has_quant(const lgk_tensor *t) {
    const lg_quant *q = t && t->ir ? t->ir->quant : NULL;
    return q && q->n_scale && q->scale;
}

lg_status lgq_unsupported(const lgk_node *n, lg_error *err, const char *fmt, ...) {
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "%s", buf);
}

lg_status lgq_params(const lgk_node *n, const lgk_tensor *t, const char *what, lgq_tp *p, lg_error *err) {
    const lg_quant *q = t->ir ? t->ir->quant : NULL;
    if (!q || !q->n_scale || !q->scale)
        return lgk_fail(n, LG_ERR_FORMAT, err, "%s (tensor %d, %s) has no quantization scale", what, t->index,
                        lg_dtype_name(t->type));
    if (q->details_kind != LG_OPTS_NONE)
        return lgq_unsupported(n, err, "%s (tensor %d) uses custom quantization details", what, t->index);
    if (q->n_scale != 1)
        return lgq_unsupported(n, err, "%s (tensor %d) is quantized per channel (%u scales): this op takes one "
                               "scale", what, t->index, q->n_scale);
    int64_t zp = q->zero_point && q->n_zero_point ? q->zero_point[0] : 0;
    int32_t lo, hi;
    lgq_type_range(t->type, &lo, &hi);
    if (zp < lo || zp > hi)
        return lgk_fail(n, LG_ERR_FORMAT, err, "%s (tensor %d): zero point %lld is outside the %s range", what,
                        t->index, (long long)zp, lg_dtype_name(t->type));
    if (!(q->scale[0] > 0) || !isfinite(q->scale[0]))
        return lgk_fail(n, LG_ERR_FORMAT, err, "%s (tensor %d): scale %g must be positive and finite", what,
                        t->index, (double)q->scale[0]);
    p->scale = q->scale[0];
    p->zp = (int32_t)zp;
    return LG_OK;
}

/* kernel_util.cc Quantize: zero_point + (int32)TfLiteRound(f / scale), in float. */
static int32_t quantize_act(float f, const lgq_tp *p) {
    float tmp = roundf(f / p->scale);
    if (tmp < -2147483648.0f) tmp = -2147483648.0f;
    if (tmp > 2147483520.0f) tmp = 2147483520.0f;
    return p->zp + (int32_t)tmp;
}

lg_status lgq_act_range(const lgk_node *n, int act, const lgk_tensor *out, int32_t *lo, int32_t *hi,
                        lg_error *err) {
    lgq_tp p = {1.0f, 0};
    LG_TRY(lgq_params(n, out, "output", &p, err));
    int32_t qmin, qmax;
    lgq_type_range(out->type, &qmin, &qmax);
    *lo = qmin;
    *hi = qmax;
    if (n->ctx->int_arith == LG_INT_XNNPACK && act != LG_ACTIVATION_FUNCTION_TYPE_NONE) {
        /* XNNPACK (src/xnnpack/requantization.h xnn_qs8_quantize / xnn_qu8_quantize):
           lrintf(clamp(v / scale + zp)), the delegate's float range [0, inf), [0, 6], [-1, 1] */
        float a = act == LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1 ? -1.0f : 0.0f;
        float b = act == LG_ACTIVATION_FUNCTION_TYPE_RELU6 ? 6.0f : act == LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1 ? 1.0f : INFINITY;
        if (act != LG_ACTIVATION_FUNCTION_TYPE_RELU && act != LG_ACTIVATION_FUNCTION_TYPE_RELU6 &&
            act != LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1)
            return lgq_unsupported(n, err, "fused activation %d is not supported on a quantized op", act);
        float fa = fminf(fmaxf(a / p.scale + (float)p.zp, (float)qmin), (float)qmax);
        float fb = fminf(fmaxf(b / p.scale + (float)p.zp, (float)qmin), (float)qmax);
        *lo = (int32_t)rintf(fa);
        *hi = (int32_t)rintf(fb);
        return LG_OK;
    }
    switch (act) {
    case LG_ACTIVATION_FUNCTION_TYPE_NONE: return LG_OK;
    case LG_ACTIVATION_FUNCTION_TYPE_RELU: {
        int32_t z = quantize_act(0.0f, &p);
        *lo = z > qmin ? z : qmin;
        return LG_OK;
    }
    case LG_ACTIVATION_FUNCTION_TYPE_RELU6: {
        int32_t z = quantize_act(0.0f, &p), s = quantize_act(6.0f, &p);
        *lo = z > qmin ? z : qmin;
        *hi = s < qmax ? s : qmax;
        return LG_OK;
    }
    case LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1: {
        int32_t a = quantize_act(-1.0f, &p), b = quantize_act(1.0f, &p);
        *lo = a > qmin ? a : qmin;
        *hi = b < qmax ? b : qmax;
        return LG_OK;
    }
    default:
        return lgq_unsupported(n, err, "fused activation %d is not supported on a quantized op", act);
    }
}

lg_status lgq_bcast_init(const lgk_node *n, lgq_bcast *b, int32_t *shape, uint32_t *rank, lg_error *err) {
    const lgk_tensor *x = n->in[0], *y = n->in[1];
    lg_shape sa, sb, so;
    sa.rank = (int32_t)x->rank;
    sb.rank = (int32_t)y->rank;
    for (uint32_t d = 0; d < x->rank; d++) sa.dim[d] = x->shape[d];
    for (uint32_t d = 0; d < y->rank; d++) sb.dim[d] = y->shape[d];
    lg_error e2;
    if (lg_broadcast(&sa, &sb, &so, &e2) != LG_OK)
        return lgk_fail(n, LG_ERR_FORMAT, err, "input shapes (tensors %d and %d) do not broadcast", x->index,
                        y->index);
    memset(b, 0, sizeof *b);
    b->rank = (uint32_t)so.rank;
    b->numel = 1;
    for (uint32_t d = 0; d < b->rank; d++) {
        shape[d] = b->dim[d] = so.dim[d];
        b->numel *= so.dim[d];
    }
    *rank = b->rank;
    lgk_broadcast_strides(x, shape, b->rank, b->sa);
    lgk_broadcast_strides(y, shape, b->rank, b->sb);
    return LG_OK;
}

/* ------------------------------------------------------------------ dispatch */

static const lgk_kernel quant_kernels[] = {
    {LG_OP_CONV_2D, NULL, lgq_conv_prepare, lgq_conv_eval},
    {LG_OP_DEPTHWISE_CONV_2D, NULL, lgq_dwconv_prepare, lgq_dwconv_eval},
    {LG_OP_FULLY_CONNECTED, NULL, lgq_fc_prepare, lgq_fc_eval},
    {LG_OP_BATCH_MATMUL, NULL, lgq_bmm_prepare, lgq_bmm_eval},
    {LG_OP_QUANTIZE, NULL, lgq_requant_prepare, lgq_requant_eval},
    {LG_OP_ADD, NULL, lgq_addsub_prepare, lgq_addsub_eval},
    {LG_OP_SUB, NULL, lgq_addsub_prepare, lgq_addsub_eval},
    {LG_OP_MUL, NULL, lgq_mul_prepare, lgq_mul_eval},
    {LG_OP_LOGISTIC, NULL, lgq_act16_prepare, lgq_act16_eval},
    {LG_OP_TANH, NULL, lgq_act16_prepare, lgq_act16_eval},
    {LG_OP_HARD_SWISH, NULL, lgq_lut_prepare, lgq_lut_eval},
    {LG_OP_LEAKY_RELU, NULL, lgq_lut_prepare, lgq_lut_eval},
    {LG_OP_ELU, NULL, lgq_lut_prepare, lgq_lut_eval},
    {LG_OP_SOFTMAX, NULL, lgq_act16_prepare, lgq_act16_eval},
    {LG_OP_RELU, NULL, lgq_relu_prepare, lgq_relu_eval},
    {LG_OP_RELU6, NULL, lgq_relu_prepare, lgq_relu_eval},
    {LG_OP_RELU_N1_TO_1, NULL, lgq_relu_prepare, lgq_relu_eval},
    {LG_OP_RELU_0_TO_1, NULL, lgq_relu_prepare, lgq_relu_eval},
    {LG_OP_AVERAGE_POOL_2D, NULL, lgq_pool_prepare, lgq_pool_eval},
    {LG_OP_MAX_POOL_2D, NULL, lgq_pool_prepare, lgq_pool_eval},
    {LG_OP_MEAN, NULL, lgq_mean_prepare, lgq_mean_eval},
    {LG_OP_CONCATENATION, NULL, lgq_concat_prepare, lgq_concat_eval},
    LGQ_MORE_KERNELS
    {0, NULL, NULL, NULL},
};

static int quantized_in(const lgk_node *n, uint32_t i) {
    return i < n->n_in && n->in[i] && lgq_is_qtype(n->in[i]->type) && lgq_has_quant(n->in[i]);
}

/* Does CONCATENATION need requantization (an input whose scale or zero point differs from the
   output's)? Without it the raw copy of the shape kernels is exact. */
static int concat_rescales(const lgk_node *n) {
    if (n->n_out < 1 || !n->out[0] || !lgq_has_quant(n->out[0])) return 0;
    for (uint32_t i = 0; i < n->n_in; i++)
        if (n->in[i] && lgq_has_quant(n->in[i]) && !lg_tensor_same_quant(n->in[i]->ir, n->out[0]->ir)) return 1;
    return 0;
}

const lgk_kernel *lgk_quant_find(const lgk_node *n) {
    const lgk_kernel *hybrid = lgk_hybrid_find(n); /* float activations, INT8 weights (k_hybrid.h) */
    if (hybrid) return hybrid;
    int take;
    switch (n->code) {
    case LG_OP_CONV_2D: case LG_OP_DEPTHWISE_CONV_2D: case LG_OP_FULLY_CONNECTED: case LG_OP_BATCH_MATMUL:
        /* integer activations; float activations with integer weights are the hybrid kernels */
        take = n->n_in > 0 && n->in[0] && lgq_is_qtype(n->in[0]->type);
        break;
    case LG_OP_QUANTIZE:
        take = n->n_in > 0 && n->in[0] && lgq_is_qtype(n->in[0]->type);
        /* LG_INT_XNNPACK: float -> int8 / uint8 per tensor is XNNPACK's convert too */
        if (!take && n->ctx->int_arith == LG_INT_XNNPACK && n->n_in == 1 && n->in[0] &&
            n->in[0]->type == LG_FLOAT32 && n->n_out == 1 && n->out[0] && n->out[0]->ir->quant &&
            n->out[0]->ir->quant->n_scale == 1 && (n->out[0]->ir->type == LG_INT8 || n->out[0]->ir->type == LG_UINT8))
            take = 1;
        break;
    case LG_OP_CONCATENATION:
        take = quantized_in(n, 0) && concat_rescales(n);
        break;
    case LG_OP_AVERAGE_POOL_2D: case LG_OP_MAX_POOL_2D:
        take = n->n_in > 0 && n->in[0] && lgq_is_qtype(n->in[0]->type);
        break;
    case LG_OP_TRANSPOSE_CONV: /* inputs: output_shape, weights, the data */
        take = n->n_in > 2 && n->in[2] && lgq_is_qtype(n->in[2]->type);
        break;
    default:
        take = quantized_in(n, 0);
        break;
    }
    if (!take) return NULL;
    for (const lgk_kernel *e = quant_kernels; e->eval; e++)
        if (e->code == n->code) return e;
    return NULL;
}
