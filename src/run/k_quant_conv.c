/* Integer CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and BATCH_MATMUL (k_quant.h).
 *
 * TFLite (tflite/kernels/conv.cc, depthwise_conv.cc, fully_connected.cc, batch_matmul.cc and
 * internal/reference/integer_ops/{conv,depthwise_conv,fully_connected}.h,
 * internal/reference/batch_matmul.h):
 *   acc = bias[c] + sum (w + w_offset) * (x + x_offset)      exact integers; padding taps skipped
 *   y   = clamp(MultiplyByQuantizedMultiplier(acc, M[c], shift[c]) + out_zp, act_lo, act_hi)
 * with x_offset = -input zero point, w_offset = -weight zero point (UINT8 weights; INT8 weights
 * are symmetric: TFLite requires zero points 0 for int8/int16 activations).
 *   int8 / int16 activations: INT8 weights per tensor or per output channel, multiplier
 *     QuantizeMultiplier(double(in_scale) * double(w_scale[c]) / double(out_scale))
 *     (kernel_util.cc PopulateConvolutionQuantizationParams; fully_connected.cc the same for
 *     its per-channel form);
 *   uint8 activations (and per-tensor int8 FULLY_CONNECTED): UINT8 / INT8 weights per tensor,
 *     QuantizeMultiplier(double(float(in_scale * w_scale)) / double(out_scale))
 *     (GetQuantizedConvolutionMultipler: the product is formed in float);
 *   int16 activations (16x8): int64 accumulator and bias (INT64, or INT32), zero points 0, the
 *     int64 MultiplyByQuantizedMultiplier (16-bit reduced multiplier, one rounding).
 * BATCH_MATMUL: int8 (or int16) x int8, per-tensor, no bias, output clamped to its type.
 *
 * Two implementations of the same arithmetic:
 *   - int8 / uint8 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED run the packed kernels of
 *     k_quant_gemm.h: weights packed at prepare with their offset applied and the input zero
 *     point folded into the bias (exact modulo 2^32, k_quant_gemm.h says why); conv as im2col
 *     (or the input rows themselves for 1x1 stride 1) tiles of int16 rows times the packed
 *     panels, depthwise as channel vectors over per-pixel tap pointers (a tap outside the
 *     input points at a row of the input zero point, which the folded bias cancels);
 *   - the direct loops below (conv_row, mm_row): one output at a time, the definition; they
 *     run int16 activations (16x8) and BATCH_MATMUL (non-constant rhs), and were the only path
 *     before (tests/unit/test_k_quant_speed.c holds the two to the same outputs).
 */
#include "run/k_quant_gemm.h"

typedef struct qconv {
    int kind;                 /* 0 conv, 1 depthwise, 2 fully connected, 3 batch matmul */
    int wide;                 /* int16 activations: int64 accumulators */
    int xnn;                  /* LG_INT_XNNPACK: float requantization (fs), rounded to even */
    float *fs;                /* per output channel: in_scale * w_scale / out_scale in float */
    lg_dtype it, ot, wt;      /* storage types */
    int32_t in_off, w_off, out_zp, lo, hi;
    int32_t *mult;            /* per output channel */
    int *shift;
    int64_t *bias;            /* per output channel (0 when absent) */
    /* conv geometry (NHWC) */
    int64_t nb, ih, iw, ic, oh, ow, oc, fh, fw, fic, sh, sw, dh, dw, ph, pw, dm;
    /* matrix products: y[b][m][nn] = sum_k x[b][m][k] * w[b][nn][k] (strides in elements) */
    int64_t m, nn, k, batches;
    int64_t xs_b, xs_m, xs_k, ws_b, ws_n, ws_k;
    const void *x, *w;
    void *y;
    /* the packed kernels (k_quant_gemm.h; int8 / uint8 activations): per group the packed
       weights and the requantization of its channels */
    int fast;
    int64_t groups, ocg, K, kp;   /* conv: K = fh * fw * fic, kp = K rounded up to even */
    int64_t tile, chunks;         /* rows per activation tile; pieces split across workers */
    int direct;                   /* conv 1x1, stride 1, no padding: the rows are the input's */
    lgq_gemm_w *gw;
    lgq_rq *grq;
    lgq_dw dwk;
    const uint8_t *zrow;          /* depthwise: ic bytes of the input zero point */
    int64_t *dwoff;               /* depthwise: tap t's input offset from tap 0 (bytes) */
} qconv;

/* Output channel c's requantization. XNNPACK (the qs8/qu8 GEMM and depthwise microkernels'
   "fp32" requantization, src/qs8-gemm/, src/qs8-dwconv/ in google/XNNPACK, wasm SIMD: float
   multiply, magic-bias rounding to nearest even, integer clamp): y = rne(float(acc) * scale). */
static inline int32_t qc_out(const qconv *q, int64_t acc, int64_t c) {
    if (q->xnn) {
        float y = (float)(int32_t)acc * q->fs[c];
        const float lo = (float)(q->lo - q->out_zp) - 1.0f, hi = (float)(q->hi - q->out_zp) + 1.0f;
        y = y < lo ? lo : y > hi ? hi : y;
        return lgq_clamp((int32_t)rintf(y) + q->out_zp, q->lo, q->hi);
    }
    int32_t v = q->wide ? lgq_mbqm64(acc, q->mult[c], q->shift[c]) : lgq_mbqm((int32_t)acc, q->mult[c], q->shift[c]);
    return lgq_clamp(v + q->out_zp, q->lo, q->hi);
}

/* ------------------------------------------------------------------ parameters */

/* The multipliers for `count` output channels from the weights' scales (per tensor or per
   channel). float_product: the per-tensor uint8 form of GetQuantizedConvolutionMultipler. */
static lg_status qc_multipliers(lgk_node *n, qconv *q, const lgq_tp *in, const lgq_tp *out, const lg_quant *wq,
                                int64_t count, int float_product, lg_error *err) {
    q->mult = lgk_alloc(n, (size_t)count * sizeof(int32_t));
    q->shift = lgk_alloc(n, (size_t)count * sizeof(int));
    if (!q->mult || !q->shift) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    for (int64_t c = 0; c < count; c++) {
        float ws = wq->n_scale > 1 ? wq->scale[c] : wq->scale[0];
        if (!(ws >= 0) || !isfinite(ws))
            return lgk_fail(n, LG_ERR_FORMAT, err, "weight scale %g of channel %lld is not a finite non-negative number",
                            (double)ws, (long long)c);
        double real = float_product ? (double)(in->scale * ws) / (double)out->scale
                                    : (double)in->scale * (double)ws / (double)out->scale;
        if (!lgq_quantize_multiplier(real, &q->mult[c], &q->shift[c]))
            return lgk_fail(n, LG_ERR_FORMAT, err, "requantization multiplier %g is not finite", real);
        if (q->shift[c] > 30)
            return lgq_unsupported(n, err, "requantization multiplier %g of channel %lld is too large", real, (long long)c);
    }
    /* XNNPACK's operators (src/operators/convolution-nhwc.c init_requantization_scale_*,
       fully-connected-nc.c, batch-matrix-multiply-nc.c): input_scale * kernel_scale /
       output_scale in float, per channel */
    q->xnn = n->ctx->int_arith == LG_INT_XNNPACK && !q->wide;
    if (q->xnn) {
        q->fs = lgk_alloc(n, (size_t)count * sizeof(float));
        if (!q->fs) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
        for (int64_t c = 0; c < count; c++) {
            float ws = wq->n_scale > 1 ? wq->scale[c] : wq->scale[0];
            q->fs[c] = in->scale * ws / out->scale;
        }
    }
    return LG_OK;
}

/* Weight quantization: per tensor, or per channel along `axis` with `count` scales (int8 only). */
static lg_status qc_weights(lgk_node *n, qconv *q, const lgk_tensor *w, int axis, int64_t count,
                            const lg_quant **wq_out, lg_error *err) {
    const lg_quant *wq = w->ir ? w->ir->quant : NULL;
    if (!wq || !wq->n_scale || !wq->scale)
        return lgk_fail(n, LG_ERR_FORMAT, err, "weights (tensor %d) have no quantization scale", w->index);
    if (wq->details_kind != LG_OPTS_NONE)
        return lgq_unsupported(n, err, "weights (tensor %d) use custom quantization details", w->index);
    if (!w->data)
        return lgq_unsupported(n, err, "weights (tensor %d) must be constant", w->index);
    q->wt = w->type;
    if (w->type != LG_INT8 && w->type != LG_UINT8)
        return lgq_unsupported(n, err, "%s weights (tensor %d) with %s activations are not supported; supported: "
                               "INT8, UINT8", lg_dtype_name(w->ir->type), w->index, lg_dtype_name(q->it));
    if ((q->it == LG_UINT8) != (w->type == LG_UINT8))
        return lgq_unsupported(n, err, "%s weights with %s activations are not supported (TFLite pairs uint8 with "
                               "uint8, int8/int16 with int8)", lg_dtype_name(w->type), lg_dtype_name(q->it));
    if (wq->n_scale > 1) {
        if (w->type != LG_INT8)
            return lgq_unsupported(n, err, "per-channel %s weights are not supported (TFLite: int8 only)",
                                   lg_dtype_name(w->type));
        if (wq->quantized_dimension != axis || (int64_t)wq->n_scale != count)
            return lgk_fail(n, LG_ERR_FORMAT, err, "weights (tensor %d) have %u scales on dimension %d; expected %lld "
                            "on dimension %d", w->index, wq->n_scale, wq->quantized_dimension, (long long)count, axis);
    }
    int64_t zp0 = wq->zero_point && wq->n_zero_point ? wq->zero_point[0] : 0;
    if (w->type == LG_INT8) {
        for (uint32_t i = 0; wq->zero_point && i < wq->n_zero_point; i++)
            if (wq->zero_point[i] != 0)
                return lgq_unsupported(n, err, "int8 weights (tensor %d) with zero point %lld: TFLite requires "
                                       "symmetric int8 weights", w->index, (long long)wq->zero_point[i]);
        q->w_off = 0;
    } else {
        if (zp0 < 0 || zp0 > 255)
            return lgk_fail(n, LG_ERR_FORMAT, err, "weights zero point %lld is outside the UINT8 range", (long long)zp0);
        q->w_off = -(int32_t)zp0;
    }
    *wq_out = wq;
    return LG_OK;
}

/* Bias at input 2 (optional): INT32 (INT64 or INT32 for int16 activations), `count` values. */
static lg_status qc_bias(lgk_node *n, qconv *q, int64_t count, lg_error *err) {
    q->bias = lgk_alloc(n, (size_t)(count ? count : 1) * sizeof(int64_t));
    if (!q->bias) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q->bias, 0, (size_t)(count ? count : 1) * sizeof(int64_t));
    if (n->n_in < 3 || !n->in[2]) return LG_OK;
    const lgk_tensor *b = n->in[2];
    if (b->type != LG_INT32 && !(q->wide && b->type == LG_INT64))
        return lgq_unsupported(n, err, "bias (tensor %d) is %s; %s activations take %s", b->index,
                               lg_dtype_name(b->ir->type), lg_dtype_name(q->it), q->wide ? "INT64 or INT32" : "INT32");
    if (b->numel != count)
        return lgk_fail(n, LG_ERR_FORMAT, err, "bias (tensor %d) has %lld values, expected %lld", b->index,
                        (long long)b->numel, (long long)count);
    if (!b->data) return lgq_unsupported(n, err, "bias (tensor %d) must be constant", b->index);
    for (int64_t c = 0; c < count; c++) q->bias[c] = lgk_get_int(b, c);
    return LG_OK;
}

/* Input and output quantization, the activation range, the int16 rules. */
static lg_status qc_io(lgk_node *n, qconv *q, int act, lgq_tp *in, lgq_tp *out, lg_error *err) {
    const lgk_tensor *x = n->in[0], *y = n->out[0];
    if (n->n_out != 1 && !(n->code == LG_OP_FULLY_CONNECTED && n->n_out == 2))
        return lgk_fail(n, LG_ERR_FORMAT, err, "expected 1 output, got %u", n->n_out);
    q->it = x->type;
    q->ot = lgk_storage_type(y->ir->type);
    if (q->ot != q->it)
        return lgq_unsupported(n, err, "%s input with %s output is not supported", lg_dtype_name(q->it),
                               lg_dtype_name(y->ir->type));
    LG_TRY(lgq_params(n, x, "input", in, err));
    LG_TRY(lgq_params(n, y, "output", out, err));
    q->wide = q->it == LG_INT16;
    if (q->wide && (in->zp != 0 || out->zp != 0))
        return lgk_fail(n, LG_ERR_FORMAT, err, "int16 activations must have zero point 0 (input %d, output %d)",
                        in->zp, out->zp);
    q->in_off = -in->zp;
    q->out_zp = out->zp;
    return lgq_act_range(n, act, y, &q->lo, &q->hi, err);
}

/* ------------------------------------------------------------------ the packed kernels' setup */

static int64_t qc_round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

/* The requantization of `groups` groups of `per` channels for the packed kernels: per group
   arrays padded to a multiple of 2 * LGQ_NR channels (k_quant_gemm.h), the same values as
   qc_out reads. */
static lg_status qc_fast_rq(lgk_node *n, qconv *q, int64_t groups, int64_t per, lg_error *err) {
    const int64_t pp = qc_round_up(per > 0 ? per : 1, 2 * LGQ_NR), tot = groups * pp;
    float *fs = lgk_alloc(n, (size_t)tot * sizeof(float));
    int32_t *mult = lgk_alloc(n, (size_t)tot * sizeof(int32_t));
    int32_t *lsh = lgk_alloc(n, (size_t)tot * sizeof(int32_t));
    int32_t *rsh = lgk_alloc(n, (size_t)tot * sizeof(int32_t));
    q->grq = lgk_alloc(n, (size_t)groups * sizeof(lgq_rq));
    if (!fs || !mult || !lsh || !rsh || !q->grq) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(fs, 0, (size_t)tot * sizeof(float));
    memset(mult, 0, (size_t)tot * sizeof(int32_t));
    memset(lsh, 0, (size_t)tot * sizeof(int32_t));
    memset(rsh, 0, (size_t)tot * sizeof(int32_t));
    for (int64_t g = 0; g < groups; g++) {
        for (int64_t j = 0; j < per; j++) {
            const int64_t c = g * per + j, i = g * pp + j;
            if (q->xnn) fs[i] = q->fs[c];
            mult[i] = q->mult[c];
            lsh[i] = q->shift[c] > 0 ? q->shift[c] : 0;
            rsh[i] = q->shift[c] > 0 ? 0 : -q->shift[c];
        }
        lgq_rq *r = &q->grq[g];
        memset(r, 0, sizeof *r);
        r->xnn = q->xnn;
        r->fs = fs + g * pp;
        r->mult = mult + g * pp;
        r->lsh = lsh + g * pp;
        r->rsh = rsh + g * pp;
        r->zp = q->out_zp;
        r->lo = q->lo;
        r->hi = q->hi;
        r->flo = (float)(q->lo - q->out_zp) - 1.0f;
        r->fhi = (float)(q->hi - q->out_zp) + 1.0f;
        r->out_u8 = q->ot == LG_UINT8;
    }
    return LG_OK;
}

/* Packs `groups` groups of `per` channels of k weights each (channel c at w + c * k). */
static lg_status qc_fast_gemm(lgk_node *n, qconv *q, int64_t groups, int64_t per, int64_t k, lg_error *err) {
    if (k < 1 || per < 1) return LG_OK; /* nothing to pack: the reference loop */
    LG_TRY(qc_fast_rq(n, q, groups, per, err));
    q->gw = lgk_alloc(n, (size_t)groups * sizeof(lgq_gemm_w));
    if (!q->gw) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    const void *w = n->in[1]->data;
    const size_t esz = 1; /* INT8 / UINT8 weights */
    for (int64_t g = 0; g < groups; g++) {
        void *mem = lgk_alloc(n, lgq_gemm_w_bytes(per, k));
        if (!mem) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory packing the weights");
        lgq_gemm_pack(&q->gw[g], mem, (const uint8_t *)w + (size_t)(g * per * k) * esz, q->wt, k, per, k, q->w_off,
                      q->in_off, q->bias + g * per);
    }
    q->kp = qc_round_up(k, 2);
    /* an activation tile of ~32 KiB of int16 (it stays in L1 / L2 while every panel of the
       weights meets it), at least 8 rows */
    int64_t t = (32 * 1024) / (q->kp * 2);
    q->tile = t < 8 ? 8 : t > 256 ? 256 : t;
    q->chunks = n->ctx->threads > 1 ? n->ctx->threads : 1;
    n->scratch_bytes = (uint64_t)q->chunks * (uint64_t)q->tile * (uint64_t)q->kp * sizeof(int16_t);
    q->fast = 1;
    return LG_OK;
}

/* ------------------------------------------------------------------ CONV_2D, DEPTHWISE_CONV_2D */

static int64_t out_size(int padding, int64_t in, int64_t f, int64_t s, int64_t d) {
    int64_t eff = (f - 1) * d + 1;
    if (padding == LG_PADDING_SAME) return (in + s - 1) / s;
    return in >= eff ? (in - eff + s) / s : 0;
}
/* tflite/kernels/padding.h ComputePaddingWithOffset: the leading pad */
static int64_t lead_pad(int64_t s, int64_t d, int64_t in, int64_t f, int64_t out) {
    int64_t eff = (f - 1) * d + 1;
    int64_t total = (out - 1) * s + eff - in;
    return total > 0 ? total / 2 : 0;
}

static lg_status conv_geometry(lgk_node *n, qconv *q, int padding, int sw, int sh, int dw, int dh, lg_error *err) {
    const lgk_tensor *x = n->in[0], *w = n->in[1];
    if (x->rank != 4 || w->rank != 4)
        return lgk_fail(n, LG_ERR_FORMAT, err, "input and weights must be rank 4 (got %u and %u)", x->rank, w->rank);
    if (sw < 1 || sh < 1 || dw < 1 || dh < 1)
        return lgk_fail(n, LG_ERR_FORMAT, err, "stride %dx%d and dilation %dx%d must be >= 1", sh, sw, dh, dw);
    if (padding != LG_PADDING_SAME && padding != LG_PADDING_VALID)
        return lgk_fail(n, LG_ERR_FORMAT, err, "unknown padding %d", padding);
    q->nb = x->shape[0]; q->ih = x->shape[1]; q->iw = x->shape[2]; q->ic = x->shape[3];
    q->fh = w->shape[1]; q->fw = w->shape[2];
    q->sh = sh; q->sw = sw; q->dh = dh; q->dw = dw;
    q->oh = out_size(padding, q->ih, q->fh, sh, dh);
    q->ow = out_size(padding, q->iw, q->fw, sw, dw);
    q->ph = lead_pad(sh, dh, q->ih, q->fh, q->oh);
    q->pw = lead_pad(sw, dw, q->iw, q->fw, q->ow);
    return LG_OK;
}

/* One output row (batch b, output y) of a conv or depthwise conv. */
static void conv_row(const qconv *q, int64_t r) {
    const int64_t b = r / q->oh, oy = r % q->oh;
    const int64_t iy0 = oy * q->sh - q->ph;
    for (int64_t ox = 0; ox < q->ow; ox++) {
        const int64_t ix0 = ox * q->sw - q->pw;
        const int64_t obase = ((b * q->oh + oy) * q->ow + ox) * q->oc;
        for (int64_t c = 0; c < q->oc; c++) {
            int64_t acc = 0;
            const int64_t group = q->kind == 0 ? c / (q->oc / (q->ic / q->fic)) : 0;
            const int64_t in_c = q->kind == 1 ? c / q->dm : 0;
            for (int64_t fy = 0; fy < q->fh; fy++) {
                const int64_t iy = iy0 + q->dh * fy;
                if (iy < 0 || iy >= q->ih) continue;
                for (int64_t fx = 0; fx < q->fw; fx++) {
                    const int64_t ix = ix0 + q->dw * fx;
                    if (ix < 0 || ix >= q->iw) continue;
                    const int64_t ibase = ((b * q->ih + iy) * q->iw + ix) * q->ic;
                    if (q->kind == 1) {
                        int32_t xv = lgq_get(q->x, q->it, ibase + in_c) + q->in_off;
                        int32_t wv = lgq_get(q->w, q->wt, (fy * q->fw + fx) * q->oc + c) + q->w_off;
                        acc += (int64_t)xv * wv;
                        continue;
                    }
                    const int64_t wbase = ((c * q->fh + fy) * q->fw + fx) * q->fic;
                    const int64_t xb = ibase + group * q->fic;
                    if (q->it == LG_INT8) {
                        const int8_t *xp = (const int8_t *)q->x + xb, *wp = (const int8_t *)q->w + wbase;
                        int32_t s = 0;
                        for (int64_t k = 0; k < q->fic; k++) s += (int32_t)wp[k] * ((int32_t)xp[k] + q->in_off);
                        acc += s;
                    } else if (q->it == LG_UINT8) {
                        const uint8_t *xp = (const uint8_t *)q->x + xb, *wp = (const uint8_t *)q->w + wbase;
                        int32_t s = 0;
                        for (int64_t k = 0; k < q->fic; k++)
                            s += ((int32_t)wp[k] + q->w_off) * ((int32_t)xp[k] + q->in_off);
                        acc += s;
                    } else {
                        const int16_t *xp = (const int16_t *)q->x + xb;
                        const int8_t *wp = (const int8_t *)q->w + wbase;
                        for (int64_t k = 0; k < q->fic; k++) acc += (int64_t)wp[k] * xp[k];
                    }
                }
            }
            acc += q->bias[c];
            if (!q->wide) acc = (int32_t)(uint32_t)(uint64_t)acc; /* TFLite's int32 accumulator */
            lgq_put(q->y, q->ot, obase + c, qc_out(q, acc, c));
        }
    }
}

static void conv_range(void *ud, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; r++) conv_row(ud, r);
}

/* ---- the packed kernels' convolutions */

typedef struct qjob {
    const qconv *q;
    void *scratch;
} qjob;

/* n INT8 / UINT8 values as int16; short runs (a few channels per tap) inline */
static inline void qc_widen(const void *s, int u8, int16_t *d, int64_t n) {
    if (n >= 16) {
        lgq_widen(s, u8, d, n);
    } else if (u8) {
        for (int64_t i = 0; i < n; i++) d[i] = ((const uint8_t *)s)[i];
    } else {
        for (int64_t i = 0; i < n; i++) d[i] = ((const int8_t *)s)[i];
    }
}

/* The int16 activation rows (k_quant_gemm.h) of output pixels [p0, p0 + mt) for group g:
   im2col in the weights' order (tap-major, then the group's fic channels); a tap outside the
   input reads the input zero point, which the folded bias cancels; the pad k is 0. */
static void conv_rows_a(const qconv *q, int64_t p0, int64_t mt, int64_t g, int16_t *a) {
    const int u8 = q->it == LG_UINT8;
    const int16_t zp = (int16_t)-q->in_off;
    const uint8_t *x = q->x;
    if (q->direct && q->groups == 1 && q->kp == q->K) {
        lgq_widen(x + p0 * q->ic, u8, a, mt * q->ic);
        return;
    }
    const int64_t hw = q->oh * q->ow;
    int64_t b = p0 / hw, oy = (p0 % hw) / q->ow, ox = p0 % q->ow;
    for (int64_t i = 0; i < mt; i++) {
        int16_t *row = a + i * q->kp;
        if (q->direct) {
            qc_widen(x + (p0 + i) * q->ic + g * q->fic, u8, row, q->fic);
        } else {
            const int64_t iy0 = oy * q->sh - q->ph, ix0 = ox * q->sw - q->pw;
            int16_t *d = row;
            for (int64_t fy = 0; fy < q->fh; fy++) {
                const int64_t iy = iy0 + fy * q->dh;
                const int in_y = iy >= 0 && iy < q->ih;
                const uint8_t *xr = x + ((b * q->ih + iy) * q->iw) * q->ic + g * q->fic;
                if (in_y && q->groups == 1 && q->dw == 1 && ix0 >= 0 && ix0 + q->fw <= q->iw) {
                    /* the filter row inside the input, one group, no dilation: its taps are
                       contiguous (fw pixels of ic channels) */
                    qc_widen(xr + ix0 * q->ic, u8, d, q->fw * q->ic);
                    d += q->fw * q->ic;
                    continue;
                }
                for (int64_t fx = 0; fx < q->fw; fx++, d += q->fic) {
                    const int64_t ix = ix0 + fx * q->dw;
                    if (in_y && ix >= 0 && ix < q->iw) {
                        qc_widen(xr + ix * q->ic, u8, d, q->fic);
                    } else {
                        for (int64_t k = 0; k < q->fic; k++) d[k] = zp;
                    }
                }
            }
        }
        if (q->kp > q->K) row[q->K] = 0;
        if (++ox == q->ow) {
            ox = 0;
            if (++oy == q->oh) { oy = 0; b++; }
        }
    }
}

/* pieces c0..c1 of the output pixels, each with its own activation tile */
static void fast_conv_chunks(void *ud, int64_t c0, int64_t c1) {
    const qjob *j = ud;
    const qconv *q = j->q;
    const int64_t M = q->nb * q->oh * q->ow;
    for (int64_t c = c0; c < c1; c++) {
        int16_t *a = (int16_t *)j->scratch + c * q->tile * q->kp;
        const int64_t m0 = M * c / q->chunks, m1 = M * (c + 1) / q->chunks;
        for (int64_t p0 = m0; p0 < m1; p0 += q->tile) {
            const int64_t mt = m1 - p0 < q->tile ? m1 - p0 : q->tile;
            for (int64_t g = 0; g < q->groups; g++) {
                conv_rows_a(q, p0, mt, g, a);
                lgq_gemm(&q->gw[g], &q->grq[g], mt, a, q->kp, (uint8_t *)q->y + p0 * q->oc + g * q->ocg, q->oc);
            }
        }
    }
}

/* depthwise: per output row, every pixel's taps as pointers into the input (or to the zero
   point row), then the channel-vector kernel */
static void fast_dw_chunks(void *ud, int64_t c0, int64_t c1) {
    const qjob *j = ud;
    const qconv *q = j->q;
    const int64_t rows = q->nb * q->oh, taps = q->fh * q->fw;
    const uint8_t *x = q->x;
    for (int64_t c = c0; c < c1; c++) {
        const void **ptrs = (const void **)j->scratch + c * q->ow * taps;
        const int64_t r0 = rows * c / q->chunks, r1 = rows * (c + 1) / q->chunks;
        for (int64_t r = r0; r < r1; r++) {
            const int64_t b = r / q->oh, oy = r % q->oh, iy0 = oy * q->sh - q->ph;
            const void **pp = ptrs;
            /* the filter rows all inside the input: the pixels whose columns are too take
               the taps at fixed offsets from their first one */
            const int rows_in = iy0 >= 0 && iy0 + (q->fh - 1) * q->dh < q->ih;
            for (int64_t ox = 0; ox < q->ow; ox++) {
                const int64_t ix0 = ox * q->sw - q->pw;
                if (rows_in && ix0 >= 0 && ix0 + (q->fw - 1) * q->dw < q->iw) {
                    const uint8_t *x0 = x + ((b * q->ih + iy0) * q->iw + ix0) * q->ic;
                    for (int64_t t = 0; t < taps; t++) *pp++ = x0 + q->dwoff[t];
                    continue;
                }
                for (int64_t fy = 0; fy < q->fh; fy++) {
                    const int64_t iy = iy0 + fy * q->dh;
                    const int in_y = iy >= 0 && iy < q->ih;
                    for (int64_t fx = 0; fx < q->fw; fx++) {
                        const int64_t ix = ix0 + fx * q->dw;
                        *pp++ = in_y && ix >= 0 && ix < q->iw ? (const void *)(x + ((b * q->ih + iy) * q->iw + ix) * q->ic)
                                                              : (const void *)q->zrow;
                    }
                }
            }
            lgq_dw_row(&q->dwk, ptrs, q->ow, (uint8_t *)q->y + r * q->ow * q->oc, q->oc);
        }
    }
}

/* FULLY_CONNECTED: the input rows widened tile by tile */
static void fast_fc_chunks(void *ud, int64_t c0, int64_t c1) {
    const qjob *j = ud;
    const qconv *q = j->q;
    const int u8 = q->it == LG_UINT8;
    const uint8_t *x = q->x;
    for (int64_t c = c0; c < c1; c++) {
        int16_t *a = (int16_t *)j->scratch + c * q->tile * q->kp;
        const int64_t m0 = q->m * c / q->chunks, m1 = q->m * (c + 1) / q->chunks;
        for (int64_t p0 = m0; p0 < m1; p0 += q->tile) {
            const int64_t mt = m1 - p0 < q->tile ? m1 - p0 : q->tile;
            if (q->kp == q->k) {
                lgq_widen(x + p0 * q->k, u8, a, mt * q->k);
            } else {
                for (int64_t i = 0; i < mt; i++) {
                    lgq_widen(x + (p0 + i) * q->k, u8, a + i * q->kp, q->k);
                    a[i * q->kp + q->k] = 0;
                }
            }
            lgq_gemm(&q->gw[0], &q->grq[0], mt, a, q->kp, (uint8_t *)q->y + p0 * q->nn, q->nn);
        }
    }
}

static void fast_run(const lgk_node *n, qjob *j, lgk_range_fn fn) {
    j->scratch = n->scratch;
    if (j->q->chunks == 1) fn(j, 0, 1);
    else lgk_parallel_for(n->ctx, j->q->chunks, 1, fn, j);
}

lg_status lgq_conv_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in < 2 || !n->in[0] || !n->in[1]) return lgk_fail(n, LG_ERR_FORMAT, err, "needs input and weights");
    const lg_conv2d_options *o = n->opts;
    if (!o || n->op->opts_kind != LG_OPTS_CONV2D_OPTIONS)
        return lgk_fail(n, LG_ERR_FORMAT, err, "missing Conv2DOptions");
    qconv *q = lgk_alloc(n, sizeof *q);
    if (!q) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q, 0, sizeof *q);
    lgq_tp in, out;
    LG_TRY(qc_io(n, q, o->fused_activation_function, &in, &out, err));
    LG_TRY(conv_geometry(n, q, o->padding, o->stride_w, o->stride_h, o->dilation_w_factor, o->dilation_h_factor, err));
    const lgk_tensor *w = n->in[1];
    q->oc = w->shape[0];
    q->fic = w->shape[3];
    if (q->fic < 1 || q->ic % q->fic != 0 || q->oc % (q->ic / q->fic) != 0)
        return lgk_fail(n, LG_ERR_FORMAT, err, "weights depth %lld does not divide input depth %lld into groups of "
                        "output channels %lld", (long long)q->fic, (long long)q->ic, (long long)q->oc);
    const lg_quant *wq;
    LG_TRY(qc_weights(n, q, w, 0, q->oc, &wq, err));
    LG_TRY(qc_multipliers(n, q, &in, &out, wq, q->oc, q->it == LG_UINT8, err));
    LG_TRY(qc_bias(n, q, q->oc, err));
    int32_t shp[4] = {(int32_t)q->nb, (int32_t)q->oh, (int32_t)q->ow, (int32_t)q->oc};
    LG_TRY(lgk_set_output(n, 0, q->ot, shp, 4, err));
    q->kind = 0;
    if (!q->wide) {
        q->groups = q->ic / q->fic;
        q->ocg = q->oc / q->groups;
        q->K = q->fh * q->fw * q->fic;
        q->direct = q->fh == 1 && q->fw == 1 && q->sh == 1 && q->sw == 1 && q->ph == 0 && q->pw == 0 &&
                    q->oh == q->ih && q->ow == q->iw;
        LG_TRY(qc_fast_gemm(n, q, q->groups, q->ocg, q->K, err));
    }
    n->state = q;
    return LG_OK;
}

lg_status lgq_dwconv_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in < 2 || !n->in[0] || !n->in[1]) return lgk_fail(n, LG_ERR_FORMAT, err, "needs input and weights");
    const lg_depthwise_conv2d_options *o = n->opts;
    if (!o || n->op->opts_kind != LG_OPTS_DEPTHWISE_CONV2D_OPTIONS)
        return lgk_fail(n, LG_ERR_FORMAT, err, "missing DepthwiseConv2DOptions");
    qconv *q = lgk_alloc(n, sizeof *q);
    if (!q) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q, 0, sizeof *q);
    lgq_tp in, out;
    LG_TRY(qc_io(n, q, o->fused_activation_function, &in, &out, err));
    LG_TRY(conv_geometry(n, q, o->padding, o->stride_w, o->stride_h, o->dilation_w_factor, o->dilation_h_factor, err));
    const lgk_tensor *w = n->in[1];
    q->oc = w->shape[3];
    if (w->shape[0] != 1 || q->ic < 1 || q->oc % q->ic != 0)
        return lgk_fail(n, LG_ERR_FORMAT, err, "weights [1,H,W,%lld] do not fit input depth %lld", (long long)q->oc,
                        (long long)q->ic);
    /* TFLite derives the multiplier from the shapes (depthwise_conv.cc) */
    q->dm = q->oc / q->ic;
    const lg_quant *wq;
    LG_TRY(qc_weights(n, q, w, 3, q->oc, &wq, err));
    LG_TRY(qc_multipliers(n, q, &in, &out, wq, q->oc, q->it == LG_UINT8, err));
    LG_TRY(qc_bias(n, q, q->oc, err));
    int32_t shp[4] = {(int32_t)q->nb, (int32_t)q->oh, (int32_t)q->ow, (int32_t)q->oc};
    LG_TRY(lgk_set_output(n, 0, q->ot, shp, 4, err));
    q->kind = 1;
    if (!q->wide) {
        const int64_t taps = q->fh * q->fw;
        LG_TRY(qc_fast_rq(n, q, 1, q->oc, err));
        void *mem = lgk_alloc(n, lgq_dw_bytes(q->oc, taps));
        uint8_t *z = lgk_alloc(n, (size_t)q->ic);
        if (!mem || !z) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory packing the weights");
        lgq_dw_pack(&q->dwk, mem, w->data, q->wt, q->oc, taps, q->dm, q->w_off, q->in_off, q->bias);
        q->dwk.in_u8 = q->it == LG_UINT8;
        q->dwk.rq = q->grq[0];
        memset(z, (int)(uint8_t)(-q->in_off), (size_t)q->ic);
        q->zrow = z;
        q->dwoff = lgk_alloc(n, (size_t)(taps > 0 ? taps : 1) * sizeof(int64_t));
        if (!q->dwoff) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
        for (int64_t fy = 0; fy < q->fh; fy++)
            for (int64_t fx = 0; fx < q->fw; fx++)
                q->dwoff[fy * q->fw + fx] = (fy * q->dh * q->iw + fx * q->dw) * q->ic;
        q->chunks = n->ctx->threads > 1 ? n->ctx->threads : 1;
        n->scratch_bytes = (uint64_t)q->chunks * (uint64_t)(q->ow * taps) * sizeof(void *);
        q->fast = 1;
    }
    n->state = q;
    return LG_OK;
}

static lg_status conv_eval(lgk_node *n) {
    qconv q = *(const qconv *)n->state;
    q.x = n->in[0]->data;
    q.w = n->in[1]->data;
    q.y = n->out[0]->data;
    int64_t rows = q.nb * q.oh;
    if (rows == 0 || q.ow == 0 || q.oc == 0) return LG_OK;
    if (q.fast) {
        qjob j = {&q, NULL};
        fast_run(n, &j, q.kind == 1 ? fast_dw_chunks : fast_conv_chunks);
        return LG_OK;
    }
    lgk_parallel_for(n->ctx, rows, 1, conv_range, &q);
    return LG_OK;
}

lg_status lgq_conv_eval(lgk_node *n, lg_error *err) { (void)err; return conv_eval(n); }
lg_status lgq_dwconv_eval(lgk_node *n, lg_error *err) { (void)err; return conv_eval(n); }

/* ------------------------------------------------------------------ matrix products */

static void mm_row(const qconv *q, int64_t r) {
    const int64_t b = r / q->m, mi = r % q->m;
    for (int64_t j = 0; j < q->nn; j++) {
        int64_t acc = 0;
        const int64_t xo = b * q->xs_b + mi * q->xs_m, wo = b * q->ws_b + j * q->ws_n;
        if (q->it == LG_INT8 && q->wt == LG_INT8 && q->xs_k == 1 && q->ws_k == 1) {
            const int8_t *xp = (const int8_t *)q->x + xo, *wp = (const int8_t *)q->w + wo;
            int32_t s = 0;
            for (int64_t k = 0; k < q->k; k++) s += ((int32_t)wp[k] + q->w_off) * ((int32_t)xp[k] + q->in_off);
            acc = s;
        } else {
            for (int64_t k = 0; k < q->k; k++)
                acc += (int64_t)(lgq_get(q->w, q->wt, wo + k * q->ws_k) + q->w_off) *
                       (lgq_get(q->x, q->it, xo + k * q->xs_k) + q->in_off);
        }
        const int64_t c = q->kind == 2 ? j : 0;
        acc += q->bias[c];
        if (!q->wide) acc = (int32_t)(uint32_t)(uint64_t)acc;
        lgq_put(q->y, q->ot, r * q->nn + j, qc_out(q, acc, c));
    }
}

static void mm_range(void *ud, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; r++) mm_row(ud, r);
}

lg_status lgq_fc_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in < 2 || !n->in[0] || !n->in[1]) return lgk_fail(n, LG_ERR_FORMAT, err, "needs input and weights");
    const lg_fully_connected_options *o = n->opts;
    if (!o || n->op->opts_kind != LG_OPTS_FULLY_CONNECTED_OPTIONS)
        return lgk_fail(n, LG_ERR_FORMAT, err, "missing FullyConnectedOptions");
    if (o->weights_format != 0)
        return lgq_unsupported(n, err, "weights format %d (shuffled) is not supported", o->weights_format);
    qconv *q = lgk_alloc(n, sizeof *q);
    if (!q) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q, 0, sizeof *q);
    lgq_tp in, out;
    LG_TRY(qc_io(n, q, o->fused_activation_function, &in, &out, err));
    const lgk_tensor *x = n->in[0], *w = n->in[1];
    if (w->rank != 2) return lgk_fail(n, LG_ERR_FORMAT, err, "weights must be rank 2, not %u", w->rank);
    q->nn = w->shape[0];
    q->k = w->shape[1];
    if (q->k < 1 || x->numel % q->k != 0)
        return lgk_fail(n, LG_ERR_FORMAT, err, "input of %lld values is not a multiple of the weights' depth %lld",
                        (long long)x->numel, (long long)q->k);
    q->m = x->numel / q->k;
    q->batches = 1;
    q->xs_m = q->k; q->xs_k = 1; q->ws_n = q->k; q->ws_k = 1;
    const lg_quant *wq;
    LG_TRY(qc_weights(n, q, w, 0, q->nn, &wq, err));
    /* fully_connected.cc: per channel from doubles, per tensor GetQuantizedConvolutionMultipler */
    LG_TRY(qc_multipliers(n, q, &in, &out, wq, q->nn, wq->n_scale == 1, err));
    LG_TRY(qc_bias(n, q, q->nn, err));
    int32_t shp[LG_MAX_RANK];
    uint32_t rank;
    if (o->keep_num_dims) {
        rank = x->rank;
        memcpy(shp, x->shape, sizeof shp);
        shp[rank - 1] = (int32_t)q->nn;
    } else {
        rank = 2;
        shp[0] = (int32_t)q->m;
        shp[1] = (int32_t)q->nn;
    }
    LG_TRY(lgk_set_output(n, 0, q->ot, shp, rank, err));
    if (n->n_out == 2 && n->out[1]) LG_TRY(lgk_set_output(n, 1, q->wt, w->shape, w->rank, err));
    q->kind = 2;
    if (!q->wide) {
        q->groups = 1;
        q->K = q->k;
        LG_TRY(qc_fast_gemm(n, q, 1, q->nn, q->k, err));
    }
    n->state = q;
    return LG_OK;
}

/* batch_matmul.cc: lhs [.., M, K] (adj_x: [.., K, M]), rhs [.., K, N] (adj_y: [.., N, K]),
   leading dims broadcast; quantized: per-tensor, real multiplier
   double(lhs_scale * rhs_scale) / double(out_scale) (the product in float), output clamped to
   its type. Broadcasting of the batch dims is limited here to equal batch dims or a rank-2
   rhs. */
lg_status lgq_bmm_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in != 2 || !n->in[0] || !n->in[1]) return lgk_fail(n, LG_ERR_FORMAT, err, "needs 2 inputs");
    const lg_batch_mat_mul_options *o = n->op->opts_kind == LG_OPTS_BATCH_MAT_MUL_OPTIONS ? n->opts : NULL;
    int adj_x = o && o->adj_x, adj_y = o && o->adj_y;
    qconv *q = lgk_alloc(n, sizeof *q);
    if (!q) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q, 0, sizeof *q);
    lgq_tp in, out, rp;
    LG_TRY(qc_io(n, q, LG_ACTIVATION_FUNCTION_TYPE_NONE, &in, &out, err));
    const lgk_tensor *x = n->in[0], *w = n->in[1];
    if (x->rank < 2 || w->rank < 2) return lgk_fail(n, LG_ERR_FORMAT, err, "inputs must be rank >= 2");
    if (w->type != LG_INT8 && !(q->it == LG_INT16 && w->type == LG_INT16))
        return lgq_unsupported(n, err, "%s x %s is not supported", lg_dtype_name(q->it), lg_dtype_name(w->type));
    LG_TRY(lgq_params(n, w, "rhs", &rp, err));
    if (q->it == LG_INT16 && rp.zp != 0) return lgk_fail(n, LG_ERR_FORMAT, err, "int16 rhs must have zero point 0");
    q->wt = w->type;
    q->w_off = -rp.zp;
    int64_t xm = x->shape[x->rank - 2], xk = x->shape[x->rank - 1];
    int64_t wk = w->shape[w->rank - 2], wn = w->shape[w->rank - 1];
    q->m = adj_x ? xk : xm;
    q->k = adj_x ? xm : xk;
    int64_t k2 = adj_y ? wn : wk;
    q->nn = adj_y ? wk : wn;
    if (k2 != q->k) return lgk_fail(n, LG_ERR_FORMAT, err, "inner dimensions %lld and %lld differ", (long long)q->k, (long long)k2);
    const int64_t xmk = xm * xk, wkn = wk * wn;
    int64_t bx = xmk > 0 ? x->numel / xmk : 0, bw = wkn > 0 ? w->numel / wkn : 0;
    if (x->rank != w->rank && w->rank != 2)
        return lgq_unsupported(n, err, "batch broadcasting between ranks %u and %u is not supported", x->rank, w->rank);
    for (uint32_t d = 0; x->rank == w->rank && d + 2 < x->rank; d++)
        if (x->shape[d] != w->shape[d])
            return lgq_unsupported(n, err, "broadcast batch dimensions are not supported");
    q->batches = bx;
    q->xs_b = xm * xk;
    q->xs_m = adj_x ? 1 : xk;
    q->xs_k = adj_x ? xm : 1;
    q->ws_b = bw == 1 ? 0 : wk * wn;
    q->ws_n = adj_y ? wn : 1;
    q->ws_k = adj_y ? 1 : wn;
    lg_quant fake;
    memset(&fake, 0, sizeof fake);
    fake.scale = &rp.scale;
    fake.n_scale = 1;
    LG_TRY(qc_multipliers(n, q, &in, &out, &fake, 1, 1, err));
    /* LiteRT's XNNPACK delegate does not take an int8 BATCH_MATMUL whose rhs has a non-zero
       zero point (tflite/delegates/xnnpack/xnnpack_delegate.cc VisitBatchMatMulNode: "non-zero
       zero point ... of input 1 is not supported"): TFLite's kernel computes it */
    if (q->w_off != 0) q->xnn = 0;
    q->bias = lgk_alloc(n, sizeof(int64_t));
    if (!q->bias) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    q->bias[0] = 0;
    int32_t shp[LG_MAX_RANK];
    memcpy(shp, x->shape, sizeof shp);
    shp[x->rank - 2] = (int32_t)q->m;
    shp[x->rank - 1] = (int32_t)q->nn;
    LG_TRY(lgk_set_output(n, 0, q->ot, shp, x->rank, err));
    q->kind = 3;
    n->state = q;
    return LG_OK;
}

static lg_status mm_eval(lgk_node *n) {
    qconv q = *(const qconv *)n->state;
    q.x = n->in[0]->data;
    q.w = n->in[1]->data;
    q.y = n->out[0]->data;
    if (q.kind == 2) {
        q.batches = 1;
    }
    int64_t rows = q.batches * q.m;
    if (rows == 0 || q.nn == 0) return LG_OK;
    if (q.fast) {
        qjob j = {&q, NULL};
        fast_run(n, &j, fast_fc_chunks);
        return LG_OK;
    }
    if (q.k == 0) {
        for (int64_t r = 0; r < rows; r++) mm_row(&q, r);
        return LG_OK;
    }
    lgk_parallel_for(n->ctx, rows, 4, mm_range, &q);
    return LG_OK;
}

lg_status lgq_fc_eval(lgk_node *n, lg_error *err) {
    (void)err;
    if (n->n_out == 2 && n->out[1] && n->out[1]->data && n->in[1]->data)
        memcpy(n->out[1]->data, n->in[1]->data, (size_t)n->out[1]->nbytes);
    return mm_eval(n);
}

lg_status lgq_bmm_eval(lgk_node *n, lg_error *err) { (void)err; return mm_eval(n); }
