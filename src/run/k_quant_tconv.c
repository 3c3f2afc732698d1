/* Integer TRANSPOSE_CONV (k_quant_more.h): int8 activations with int8 weights [oc, kh, kw, ic]
 * symmetric per tensor or per output channel (dimension 0), or uint8 activations with uint8
 * weights per tensor (any zero point); optional INT32 bias.
 *
 * TFLite (tflite/kernels/transpose_conv.cc Prepare + EvalQuantizedPerChannel,
 * internal/reference/integer_ops/transpose_conv.h; the optimized TransposeConvV2 sums the same
 * integers in another order, which cannot change them):
 *   scatter: acc[b][iy*sh - ph + ky][ix*sw - pw + kx][oc] += (x + x_offset) * w (in-bounds
 *   taps only), then y = clamp(MultiplyByQuantizedMultiplier(acc + bias[oc], M[oc], shift[oc])
 *   + zp_out) with PopulateConvolutionQuantizationParams' multipliers
 *   QuantizeMultiplier(double(s_in) * double(s_w[oc]) / double(s_out)) (uint8:
 *   GetQuantizedConvolutionMultipler, double(float(s_in * s_w)) / double(s_out), and the
 *   weights' offset -zp_w in each product: EvalQuantized + reference_ops::TransposeConv) and the fused
 *   activation's range (CalculateActivationRangeQuantized). The padding is the forward conv's
 *   that maps the output back to the input (ComputePaddingHeightWidth: the leading half).
 * XNNPACK (LG_INT_XNNPACK; the delegate takes qint8 input with a per-channel qint8 filter and
 *   quint8 with a quint8 filter, VisitTransposeConvNode): src/operators/deconvolution-nhwc.c, scale[oc] =
 *   s_in * s_w[oc] / s_out in float, the qs8-qc8w fp32 requantization of the GEMM kernels:
 *   y = rne(float(acc + bias) * scale), clamped to the activation's range (as k_quant_conv.c).
 *   Where the delegate refuses the geometry (SAME with a stride above the kernel or an output
 *   that does not map back to the input's size, VALID with a kernel larger than the output:
 *   CalculateTransposeConvPaddings) TFLite's kernel runs, and so does its arithmetic here.
 * int16 activations are refused.
 */
#include "run/k_conv.h"
#include "run/k_quant_more.h"

typedef struct qtconv {
    int xnn;
    lg_dtype t;               /* INT8 or UINT8 (activations and weights) */
    int32_t in_off, w_off, out_zp, lo, hi;
    int32_t *mult;
    int *shift;
    float *fs;
    int32_t *bias;
    int64_t nb, ih, iw, ic, oh, ow, oc, kh, kw, sh, sw, ph, pw;
} qtconv;

static lg_status tconv_weights(lgk_node *n, qtconv *q, const lgq_tp *in, const lgq_tp *out, lg_error *err) {
    const lgk_tensor *w = n->in[1];
    const lg_quant *wq = w->ir ? w->ir->quant : NULL;
    if (w->type != q->t)
        return lgq_unsupported(n, err, "%s weights (tensor %d) with %s activations are not supported (int8 with "
                               "int8, uint8 with uint8)", lg_dtype_name(w->ir->type), w->index, lg_dtype_name(q->t));
    if (!wq || !wq->n_scale || !wq->scale)
        return lgk_fail(n, LG_ERR_FORMAT, err, "weights (tensor %d) have no quantization scale", w->index);
    if (!w->data) return lgq_unsupported(n, err, "weights (tensor %d) must be constant", w->index);
    if (wq->n_scale > 1 && (wq->quantized_dimension != 0 || (int64_t)wq->n_scale != q->oc))
        return lgk_fail(n, LG_ERR_FORMAT, err, "weights (tensor %d) have %u scales on dimension %d; expected %lld on "
                        "dimension 0", w->index, wq->n_scale, wq->quantized_dimension, (long long)q->oc);
    if (q->t == LG_UINT8) {
        const int64_t zp = wq->zero_point && wq->n_zero_point ? wq->zero_point[0] : 0;
        if (wq->n_scale > 1) return lgq_unsupported(n, err, "per-channel UINT8 weights are not supported (TFLite: int8 only)");
        if (zp < 0 || zp > 255)
            return lgk_fail(n, LG_ERR_FORMAT, err, "weights zero point %lld is outside the UINT8 range", (long long)zp);
        q->w_off = -(int32_t)zp;
    }
    for (uint32_t i = 0; q->t == LG_INT8 && wq->zero_point && i < wq->n_zero_point; i++)
        if (wq->zero_point[i] != 0)
            return lgq_unsupported(n, err, "int8 weights (tensor %d) with zero point %lld: TFLite requires symmetric "
                                   "int8 weights", w->index, (long long)wq->zero_point[i]);
    q->mult = lgk_alloc(n, (size_t)q->oc * sizeof(int32_t));
    q->shift = lgk_alloc(n, (size_t)q->oc * sizeof(int));
    q->fs = lgk_alloc(n, (size_t)q->oc * sizeof(float));
    if (!q->mult || !q->shift || !q->fs) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    for (int64_t c = 0; c < q->oc; c++) {
        const float ws = wq->n_scale > 1 ? wq->scale[c] : wq->scale[0];
        if (!(ws >= 0) || !isfinite(ws))
            return lgk_fail(n, LG_ERR_FORMAT, err, "weight scale %g of channel %lld is not a finite non-negative number",
                            (double)ws, (long long)c);
        const double real = q->t == LG_UINT8 ? (double)(in->scale * ws) / (double)out->scale
                                             : (double)in->scale * (double)ws / (double)out->scale;
        if (!lgq_quantize_multiplier(real, &q->mult[c], &q->shift[c]) || q->shift[c] > 30)
            return lgq_unsupported(n, err, "requantization multiplier %g of channel %lld is too large", real, (long long)c);
        q->fs[c] = in->scale * ws / out->scale;
        if (q->xnn && !(q->fs[c] < 256.0f))
            return lgq_unsupported(n, err, "requantization scale %g of channel %lld is >= 256 (XNNPACK refuses it)",
                                   (double)q->fs[c], (long long)c);
    }
    return LG_OK;
}

static lg_status tconv_bias(lgk_node *n, qtconv *q, lg_error *err) {
    q->bias = lgk_alloc(n, (size_t)q->oc * sizeof(int32_t));
    if (!q->bias) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q->bias, 0, (size_t)q->oc * sizeof(int32_t));
    if (n->n_in < 4 || !n->in[3]) return LG_OK;
    const lgk_tensor *b = n->in[3];
    if (b->type != LG_INT32)
        return lgq_unsupported(n, err, "bias (tensor %d) is %s; 8-bit activations take INT32", b->index,
                               lg_dtype_name(b->ir->type));
    if (b->numel != q->oc)
        return lgk_fail(n, LG_ERR_FORMAT, err, "bias (tensor %d) has %lld values, expected %lld", b->index,
                        (long long)b->numel, (long long)q->oc);
    if (!b->data) return lgq_unsupported(n, err, "bias (tensor %d) must be constant", b->index);
    const lg_quant *bq = b->ir ? b->ir->quant : NULL;
    if (bq && bq->zero_point && bq->n_zero_point && bq->zero_point[0] != 0)
        return lgk_fail(n, LG_ERR_FORMAT, err, "bias (tensor %d) zero point must be 0 (TFLite)", b->index);
    for (int64_t c = 0; c < q->oc; c++) q->bias[c] = ((const int32_t *)b->data)[c];
    return LG_OK;
}

/* inputs: output_shape (constant INT32 [4]), weights, input, [bias] */
lg_status lgq_tconv_prepare(lgk_node *n, lg_error *err) {
    const lg_transpose_conv_options *o = n->op->opts_kind == LG_OPTS_TRANSPOSE_CONV_OPTIONS ? n->opts : NULL;
    if (!o) return lgk_fail(n, LG_ERR_FORMAT, err, "missing TransposeConvOptions");
    if (n->n_in < 3 || n->n_in > 4 || !n->in[0] || !n->in[1] || !n->in[2] || n->n_out != 1)
        return lgk_fail(n, LG_ERR_FORMAT, err, "expected output_shape, weights, input, [bias] and 1 output");
    const lgk_tensor *x = n->in[2], *w = n->in[1], *y = n->out[0];
    if (x->type != LG_INT8 && x->type != LG_UINT8)
        return lgq_unsupported(n, err, "%s activations are not supported (INT8, UINT8)", lg_dtype_name(x->ir->type));
    if (lgk_storage_type(y->ir->type) != x->type)
        return lgq_unsupported(n, err, "%s input with %s output is not supported", lg_dtype_name(x->ir->type),
                               lg_dtype_name(y->ir->type));
    if (x->rank != 4 || w->rank != 4)
        return lgk_fail(n, LG_ERR_FORMAT, err, "input and weights must be rank 4 (got %u and %u)", x->rank, w->rank);
    if (n->in[0]->type != LG_INT32) return lgk_fail(n, LG_ERR_FORMAT, err, "output_shape (input 0) must be INT32");
    int64_t os[4];
    uint32_t cnt = 0;
    LG_TRY(lgk_const_ints(n, 0, os, 4, &cnt, err));
    if (cnt != 4) return lgk_fail(n, LG_ERR_FORMAT, err, "output_shape has %u values, expected 4", cnt);
    qtconv *q = lgk_alloc(n, sizeof *q);
    if (!q) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q, 0, sizeof *q);
    q->t = x->type;
    q->nb = x->shape[0]; q->ih = x->shape[1]; q->iw = x->shape[2]; q->ic = x->shape[3];
    q->oc = w->shape[0]; q->kh = w->shape[1]; q->kw = w->shape[2];
    if (w->shape[3] != q->ic)
        return lgk_fail(n, LG_ERR_FORMAT, err, "weights have %d input channels, the input %lld", w->shape[3],
                        (long long)q->ic);
    if (q->kh < 1 || q->kw < 1 || q->oc < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "filter is empty");
    for (int i = 0; i < 4; i++)
        if (os[i] < 0 || os[i] > INT32_MAX)
            return lgk_fail(n, LG_ERR_FORMAT, err, "bad output_shape value %lld", (long long)os[i]);
    if (os[0] != q->nb || os[3] != q->oc)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output_shape [%lld,..,%lld] does not match the batch %lld and the "
                        "weights' %lld channels", (long long)os[0], (long long)os[3], (long long)q->nb, (long long)q->oc);
    if (o->stride_h < 1 || o->stride_w < 1)
        return lgk_fail(n, LG_ERR_FORMAT, err, "stride %dx%d must be >= 1", o->stride_h, o->stride_w);
    if (o->padding != LG_PADDING_SAME && o->padding != LG_PADDING_VALID)
        return lgk_fail(n, LG_ERR_FORMAT, err, "unknown padding %d", o->padding);
    q->oh = os[1]; q->ow = os[2]; q->sh = o->stride_h; q->sw = o->stride_w;
    q->ph = lgk_cv_pad(q->sh, 1, q->oh, q->kh, lgk_cv_out_size(o->padding, q->oh, q->kh, q->sh, 1));
    q->pw = lgk_cv_pad(q->sw, 1, q->ow, q->kw, lgk_cv_out_size(o->padding, q->ow, q->kw, q->sw, 1));
    lgq_tp in, out;
    LG_TRY(lgq_params(n, x, "input", &in, err));
    LG_TRY(lgq_params(n, y, "output", &out, err));
    q->in_off = -in.zp;
    q->out_zp = out.zp;
    /* the delegate refuses (so TFLite's kernel runs): SAME with a stride above the kernel,
       an output whose SAME forward conv does not give the input's size, VALID with a kernel
       larger than the output (CalculateTransposeConvPaddings) */
    const int xnn_geometry = o->padding == LG_PADDING_SAME
                                 ? q->kh >= q->sh && q->kw >= q->sw && (q->oh + q->sh - 1) / q->sh == q->ih &&
                                       (q->ow + q->sw - 1) / q->sw == q->iw
                                 : q->kh <= q->oh && q->kw <= q->ow;
    q->xnn = n->ctx->int_arith == LG_INT_XNNPACK && xnn_geometry;
    if (q->xnn) LG_TRY(lgq_act_range(n, o->fused_activation_function, y, &q->lo, &q->hi, err));
    else LG_TRY(lgq_act_range_tflite(n, o->fused_activation_function, y, &q->lo, &q->hi, err));
    LG_TRY(tconv_weights(n, q, &in, &out, err));
    LG_TRY(tconv_bias(n, q, err));
    int32_t shp[4] = {(int32_t)os[0], (int32_t)os[1], (int32_t)os[2], (int32_t)os[3]};
    LG_TRY(lgk_set_output(n, 0, q->t, shp, 4, err));
    n->scratch_bytes = (uint64_t)(y->numel ? y->numel : 1) * sizeof(int32_t);
    n->state = q;
    return LG_OK;
}

static inline int32_t tconv_out(const qtconv *q, int32_t acc, int64_t c) {
    if (q->xnn) {
        float v = (float)acc * q->fs[c];
        const float lo = (float)(q->lo - q->out_zp) - 1.0f, hi = (float)(q->hi - q->out_zp) + 1.0f;
        v = v < lo ? lo : v > hi ? hi : v;
        return lgq_clamp((int32_t)rintf(v) + q->out_zp, q->lo, q->hi);
    }
    return lgq_clamp(lgq_mbqm(acc, q->mult[c], q->shift[c]) + q->out_zp, q->lo, q->hi);
}

/* The scatter of one input pixel's ic values into the accumulators it reaches. */
static void tconv_scatter(const qtconv *q, const void *x, const void *w, int32_t *acc, int64_t b, int64_t iy,
                          int64_t ix) {
    const int64_t xb = ((b * q->ih + iy) * q->iw + ix) * q->ic;
    const int64_t oy0 = iy * q->sh - q->ph, ox0 = ix * q->sw - q->pw;
    for (int64_t ky = 0; ky < q->kh; ky++) {
        const int64_t oy = oy0 + ky;
        if (oy < 0 || oy >= q->oh) continue;
        for (int64_t kx = 0; kx < q->kw; kx++) {
            const int64_t ox = ox0 + kx;
            if (ox < 0 || ox >= q->ow) continue;
            int32_t *ap = acc + ((b * q->oh + oy) * q->ow + ox) * q->oc;
            for (int64_t oc = 0; oc < q->oc; oc++) {
                const int64_t wb = ((oc * q->kh + ky) * q->kw + kx) * q->ic;
                int32_t s = 0;
                for (int64_t ic = 0; ic < q->ic; ic++)
                    s += (lgq_get(x, q->t, xb + ic) + q->in_off) * (lgq_get(w, q->t, wb + ic) + q->w_off);
                ap[oc] += s;
            }
        }
    }
}

lg_status lgq_tconv_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const qtconv *q = n->state;
    int32_t *acc = n->scratch;
    const int64_t total = n->out[0]->numel;
    if (total == 0) return LG_OK;
    memset(acc, 0, (size_t)total * sizeof(int32_t));
    for (int64_t b = 0; b < q->nb; b++)
        for (int64_t iy = 0; iy < q->ih; iy++)
            for (int64_t ix = 0; ix < q->iw; ix++) tconv_scatter(q, n->in[2]->data, n->in[1]->data, acc, b, iy, ix);
    for (int64_t i = 0; i < total; i++) {
        const int64_t c = i % q->oc;
        lgq_put(n->out[0]->data, q->t, i, tconv_out(q, acc[i] + q->bias[c], c));
    }
    return LG_OK;
}
