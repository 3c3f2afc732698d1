/* Integer AVERAGE_POOL_2D, MAX_POOL_2D, MEAN and CONCATENATION with requantization
 * (k_quant.h).
 *
 * Sources (tflite/kernels/): pooling.cc + internal/reference/integer_ops/pooling.h (int8,
 * int16) and internal/reference/pooling.h (uint8): the average is the sum of the in-bounds
 * cells divided by their count rounded half away from zero ((s + c/2) / c, (s - c/2) / c for
 * a negative sum), the max the largest cell; both clamped to the fused activation's range, no
 * requantization (input and output share scale and zero point);
 * reduce.cc: MEAN through reference_ops::QuantizedMeanOrSum (internal/reference/reduce.h),
 * except 4-D int8 / uint8 inputs with keep_dims reducing axes {1, 2}, which take
 * optimized_integer_ops::Mean / optimized_ops::Mean (internal/optimized/integer_ops/mean.h:
 * float bias and scale);
 * concatenation.cc: int8 inputs must share the output's scale and zero point (TFLite refuses
 * otherwise, so do we); uint8 inputs are rescaled by
 * internal/reference/concatenation.h ConcatenationWithScaling (float).
 */
#include "run/k_quant.h"

/* ------------------------------------------------------------------ pools */

typedef struct qpool {
    int max;
    lg_dtype t;
    int32_t lo, hi;
    int64_t nb, ih, iw, c, oh, ow, fh, fw, sh, sw, ph, pw;
    const void *x;
    void *y;
} qpool;

lg_status lgq_pool_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in != 1 || !n->in[0] || n->n_out != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 1 input and 1 output");
    const lg_pool2d_options *o = n->op->opts_kind == LG_OPTS_POOL2D_OPTIONS ? n->opts : NULL;
    if (!o) return lgk_fail(n, LG_ERR_FORMAT, err, "missing Pool2DOptions");
    const lgk_tensor *x = n->in[0], *y = n->out[0];
    if (x->rank != 4) return lgk_fail(n, LG_ERR_FORMAT, err, "input must be rank 4, not %u", x->rank);
    qpool *q = lgk_alloc(n, sizeof *q);
    if (!q) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q, 0, sizeof *q);
    q->max = n->code == LG_OP_MAX_POOL_2D;
    q->t = x->type;
    if (lgk_storage_type(y->ir->type) != q->t)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output is %s but input is %s", lg_dtype_name(y->ir->type),
                        lg_dtype_name(x->ir->type));
    lgq_tp in, out;
    LG_TRY(lgq_params(n, x, "input", &in, err));
    LG_TRY(lgq_params(n, y, "output", &out, err));
    if (in.scale != out.scale || in.zp != out.zp)
        return lgq_unsupported(n, err, "input (scale %g, zero point %d) and output (scale %g, zero point %d) "
                               "quantization differ: TFLite's integer pools do not requantize",
                               (double)in.scale, in.zp, (double)out.scale, out.zp);
    LG_TRY(lgq_act_range(n, o->fused_activation_function, y, &q->lo, &q->hi, err));
    if (o->filter_height < 1 || o->filter_width < 1 || o->stride_h < 1 || o->stride_w < 1)
        return lgk_fail(n, LG_ERR_FORMAT, err, "filter %dx%d and stride %dx%d must be >= 1", o->filter_height,
                        o->filter_width, o->stride_h, o->stride_w);
    if (o->padding != LG_PADDING_SAME && o->padding != LG_PADDING_VALID)
        return lgk_fail(n, LG_ERR_FORMAT, err, "unknown padding %d", o->padding);
    q->nb = x->shape[0]; q->ih = x->shape[1]; q->iw = x->shape[2]; q->c = x->shape[3];
    q->fh = o->filter_height; q->fw = o->filter_width; q->sh = o->stride_h; q->sw = o->stride_w;
    if (o->padding == LG_PADDING_SAME) {
        q->oh = (q->ih + q->sh - 1) / q->sh;
        q->ow = (q->iw + q->sw - 1) / q->sw;
    } else {
        q->oh = q->ih >= q->fh ? (q->ih - q->fh) / q->sh + 1 : 0;
        q->ow = q->iw >= q->fw ? (q->iw - q->fw) / q->sw + 1 : 0;
    }
    int64_t th = (q->oh - 1) * q->sh + q->fh - q->ih, tw = (q->ow - 1) * q->sw + q->fw - q->iw;
    q->ph = th > 0 ? th / 2 : 0;
    q->pw = tw > 0 ? tw / 2 : 0;
    int32_t shp[4] = {(int32_t)q->nb, (int32_t)q->oh, (int32_t)q->ow, (int32_t)q->c};
    LG_TRY(lgk_set_output(n, 0, q->t, shp, 4, err));
    n->state = q;
    return LG_OK;
}

static void pool_row(const qpool *q, int64_t r) {
    const int64_t b = r / q->oh, oy = r % q->oh;
    const int64_t y0 = oy * q->sh - q->ph;
    const int64_t fy0 = y0 < 0 ? -y0 : 0, fy1 = q->ih - y0 < q->fh ? q->ih - y0 : q->fh;
    for (int64_t ox = 0; ox < q->ow; ox++) {
        const int64_t x0 = ox * q->sw - q->pw;
        const int64_t fx0 = x0 < 0 ? -x0 : 0, fx1 = q->iw - x0 < q->fw ? q->iw - x0 : q->fw;
        const int64_t ob = ((b * q->oh + oy) * q->ow + ox) * q->c;
        for (int64_t c = 0; c < q->c; c++) {
            int32_t acc = q->max ? INT32_MIN : 0, cnt = 0;
            for (int64_t fy = fy0; fy < fy1; fy++)
                for (int64_t fx = fx0; fx < fx1; fx++) {
                    int32_t v = lgq_get(q->x, q->t, ((b * q->ih + y0 + fy) * q->iw + x0 + fx) * q->c + c);
                    if (q->max) acc = v > acc ? v : acc;
                    else acc += v;
                    cnt++;
                }
            if (!q->max) {
                if (cnt == 0) acc = 0;
                else acc = acc > 0 ? (acc + cnt / 2) / cnt : (acc - cnt / 2) / cnt;
            } else if (cnt == 0) {
                acc = q->lo;
            }
            lgq_put(q->y, q->t, ob + c, lgq_clamp(acc, q->lo, q->hi));
        }
    }
}

static void pool_range(void *ud, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; r++) pool_row(ud, r);
}

lg_status lgq_pool_eval(lgk_node *n, lg_error *err) {
    (void)err;
    qpool q = *(const qpool *)n->state;
    q.x = n->in[0]->data;
    q.y = n->out[0]->data;
    if (q.nb * q.oh == 0 || q.ow == 0 || q.c == 0) return LG_OK;
    lgk_parallel_for(n->ctx, q.nb * q.oh, 1, pool_range, &q);
    return LG_OK;
}

/* ------------------------------------------------------------------ MEAN */

typedef struct qmean {
    lg_dtype t;
    int optimized;            /* the 4-D {1,2} keep_dims form */
    int32_t in_zp, out_zp, lo, hi, mult, bias;
    int shift;
    int64_t count;            /* elements per output */
    int64_t outer, red, inner; /* optimized form: batches, H*W, channels */
    uint8_t reduced[LG_MAX_RANK];
    int32_t *sum;             /* scratch: one int32 per output (general form) */
} qmean;

lg_status lgq_mean_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in != 2 || !n->in[0] || !n->in[1] || n->n_out != 1)
        return lgk_fail(n, LG_ERR_FORMAT, err, "expected input, axes and 1 output");
    const lgk_tensor *x = n->in[0], *y = n->out[0];
    qmean *q = lgk_alloc(n, sizeof *q);
    if (!q) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q, 0, sizeof *q);
    q->t = x->type;
    if (lgk_storage_type(y->ir->type) != q->t)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output is %s but input is %s", lg_dtype_name(y->ir->type),
                        lg_dtype_name(x->ir->type));
    lgq_tp in, out;
    LG_TRY(lgq_params(n, x, "input", &in, err));
    LG_TRY(lgq_params(n, y, "output", &out, err));
    if (q->t == LG_INT16 && (in.zp || out.zp)) return lgk_fail(n, LG_ERR_FORMAT, err, "int16 needs zero point 0");
    q->in_zp = in.zp;
    q->out_zp = out.zp;
    lgq_type_range(q->t, &q->lo, &q->hi);
    int64_t axes[64];
    uint32_t na = 0;
    if (n->in[1]->numel > 0) LG_TRY(lgk_const_ints(n, 1, axes, 64, &na, err));
    for (uint32_t i = 0; i < na && x->rank > 0; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + (int64_t)x->rank : axes[i];
        if (a < 0 || a >= (int64_t)x->rank)
            return lgk_fail(n, LG_ERR_FORMAT, err, "axis %lld is out of range for rank %u", (long long)axes[i], x->rank);
        q->reduced[a] = 1;
    }
    const lg_reducer_options *o = n->op->opts_kind == LG_OPTS_REDUCER_OPTIONS ? n->opts : NULL;
    int keep = o ? o->keep_dims : 0;
    int32_t oshape[LG_MAX_RANK];
    uint32_t orank = 0;
    q->count = 1;
    for (uint32_t d = 0; d < x->rank; d++) {
        if (!q->reduced[d]) oshape[orank++] = x->shape[d];
        else {
            q->count *= x->shape[d];
            if (keep) oshape[orank++] = 1;
        }
    }
    LG_TRY(lgk_set_output(n, 0, q->t, oshape, orank, err));
    if (q->count == 0) return lgq_unsupported(n, err, "a MEAN over no element is not supported");
    q->optimized = keep && x->rank == 4 && q->t != LG_INT16 && q->reduced[1] && q->reduced[2] && !q->reduced[0] &&
                   !q->reduced[3];
    if (q->optimized) {
        /* optimized Mean: temp = zp_in * s_in / s_out (float), rounded half away; bias =
           zp_out - (int)temp; multiplier of s_in / (H*W * s_out) (float) */
        const float num = (float)(x->shape[1] * x->shape[2]);
        float temp = (float)in.zp * in.scale / out.scale;
        temp = temp > 0 ? temp + 0.5f : temp - 0.5f;
        q->bias = out.zp - (int32_t)temp;
        const float real = in.scale / (num * out.scale);
        if (!lgq_quantize_multiplier((double)real, &q->mult, &q->shift) || q->shift > 30)
            return lgk_fail(n, LG_ERR_FORMAT, err, "bad scales %g -> %g", (double)in.scale, (double)out.scale);
        q->outer = x->shape[0];
        q->red = (int64_t)x->shape[1] * x->shape[2];
        q->inner = x->shape[3];
    } else {
        /* reduce.cc PrepareMeanOrSum: multiplier of double(s_in) / double(s_out); reduce.h folds
           1 / count into it with shift = min(floor(log2(count)), 32, 31 + shift) */
        if (!lgq_quantize_multiplier((double)in.scale / (double)out.scale, &q->mult, &q->shift) || q->shift > 30)
            return lgk_fail(n, LG_ERR_FORMAT, err, "bad scales %g -> %g", (double)in.scale, (double)out.scale);
        int sh = 63;
        while (sh > 0 && !(((uint64_t)q->count >> sh) & 1)) sh--;
        if (sh > 32) sh = 32;
        if (sh > 31 + q->shift) sh = 31 + q->shift;
        q->mult = (int32_t)(((int64_t)q->mult << sh) / q->count);
        q->shift -= sh;
        n->scratch_bytes = (uint64_t)(y->numel ? y->numel : 1) * sizeof(int32_t);
    }
    n->state = q;
    return LG_OK;
}

lg_status lgq_mean_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const qmean *q = n->state;
    const lgk_tensor *x = n->in[0], *y = n->out[0];
    if (q->optimized) {
        for (int64_t b = 0; b < q->outer; b++)
            for (int64_t c = 0; c < q->inner; c++) {
                int32_t acc = 0;
                for (int64_t k = 0; k < q->red; k++) acc += lgq_get(x->data, q->t, (b * q->red + k) * q->inner + c);
                acc = lgq_mbqm(acc, q->mult, q->shift) + q->bias;
                lgq_put(y->data, q->t, b * q->inner + c, lgq_clamp(acc, q->lo, q->hi));
            }
        return LG_OK;
    }
    int32_t *sum = n->scratch;
    memset(sum, 0, (size_t)(y->numel ? y->numel : 1) * sizeof(int32_t));
    /* walk the input in order; the output index drops the reduced dims */
    int64_t idx[LG_MAX_RANK] = {0}, ostride[LG_MAX_RANK];
    int64_t s = 1;
    for (int d = (int)x->rank - 1; d >= 0; d--) {
        ostride[d] = q->reduced[d] ? 0 : s;
        if (!q->reduced[d]) s *= x->shape[d];
    }
    int64_t oi = 0;
    for (int64_t i = 0; i < x->numel; i++) {
        sum[oi] += lgq_get(x->data, q->t, i);
        for (int d = (int)x->rank - 1; d >= 0; d--) {
            oi += ostride[d];
            if (++idx[d] < x->shape[d]) break;
            oi -= ostride[d] * x->shape[d];
            idx[d] = 0;
        }
    }
    for (int64_t o = 0; o < y->numel; o++) {
        int32_t v = (int32_t)((int64_t)sum[o] - (int64_t)q->in_zp * q->count);
        v = lgq_mbqm(v, q->mult, q->shift) + q->out_zp;
        lgq_put(y->data, q->t, o, lgq_clamp(v, q->lo, q->hi));
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ CONCATENATION */

typedef struct qcat {
    lg_dtype t;
    int64_t outer, out_inner;
    int64_t *inner;           /* per input: elements per outer step */
    float *scale, *bias;      /* per input: s_in / s_out, -zp_in * scale */
    uint8_t *same;            /* per input: no rescaling */
    int32_t out_zp;
} qcat;

lg_status lgq_concat_prepare(lgk_node *n, lg_error *err) {
    const lg_concatenation_options *o = n->op->opts_kind == LG_OPTS_CONCATENATION_OPTIONS ? n->opts : NULL;
    if (!o || n->n_in < 1 || n->n_out != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "missing ConcatenationOptions");
    if (o->fused_activation_function != 0)
        return lgq_unsupported(n, err, "a fused activation on a quantized CONCATENATION is not supported");
    const lgk_tensor *x0 = n->in[0], *y = n->out[0];
    qcat *q = lgk_alloc(n, sizeof *q);
    if (!q) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q, 0, sizeof *q);
    q->t = x0->type;
    lgq_tp out;
    LG_TRY(lgq_params(n, y, "output", &out, err));
    if (q->t != LG_UINT8)
        return lgq_unsupported(n, err, "%s inputs whose scale or zero point differ from the output's: TFLite "
                               "rescales only UINT8 (its int8 kernel requires equal quantization)",
                               lg_dtype_name(q->t));
    int axis = o->axis < 0 ? o->axis + (int)x0->rank : o->axis;
    if (axis < 0 || axis >= (int)x0->rank) return lgk_fail(n, LG_ERR_FORMAT, err, "axis %d is out of range", o->axis);
    q->inner = lgk_alloc(n, n->n_in * sizeof(int64_t));
    q->scale = lgk_alloc(n, n->n_in * sizeof(float));
    q->bias = lgk_alloc(n, n->n_in * sizeof(float));
    q->same = lgk_alloc(n, n->n_in);
    if (!q->inner || !q->scale || !q->bias || !q->same) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    int32_t shp[LG_MAX_RANK];
    memcpy(shp, x0->shape, sizeof shp);
    shp[axis] = 0;
    q->outer = 1;
    for (int d = 0; d < axis; d++) q->outer *= x0->shape[d];
    const float inv = 1.f / out.scale;
    for (uint32_t i = 0; i < n->n_in; i++) {
        const lgk_tensor *x = n->in[i];
        if (!x || x->type != q->t || x->rank != x0->rank)
            return lgk_fail(n, LG_ERR_FORMAT, err, "input %u differs in type or rank from input 0", i);
        for (uint32_t d = 0; d < x->rank; d++)
            if ((int)d != axis && x->shape[d] != x0->shape[d])
                return lgk_fail(n, LG_ERR_FORMAT, err, "input %u differs in shape from input 0 off the axis", i);
        shp[axis] += x->shape[axis];
        lgq_tp p;
        LG_TRY(lgq_params(n, x, "input", &p, err));
        q->same[i] = p.scale == out.scale && p.zp == out.zp;
        q->scale[i] = p.scale * inv;
        q->bias[i] = -(float)p.zp * q->scale[i];
        q->inner[i] = q->outer ? x->numel / q->outer : 0;
    }
    q->out_zp = out.zp;
    LG_TRY(lgk_set_output(n, 0, q->t, shp, x0->rank, err));
    q->out_inner = q->outer ? y->numel / q->outer : 0;
    n->state = q;
    return LG_OK;
}

lg_status lgq_concat_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const qcat *q = n->state;
    uint8_t *yo = n->out[0]->data;
    for (int64_t a = 0; a < q->outer; a++)
        for (uint32_t i = 0; i < n->n_in; i++) {
            const uint8_t *x = (const uint8_t *)n->in[i]->data + a * q->inner[i];
            if (q->same[i]) {
                memcpy(yo, x, (size_t)q->inner[i]);
            } else {
                for (int64_t j = 0; j < q->inner[i]; j++) {
                    int32_t v = (int32_t)roundf((float)x[j] * q->scale[i] + q->bias[i]) + q->out_zp;
                    yo[j] = (uint8_t)lgq_clamp(v, 0, 255);
                }
            }
            yo += q->inner[i];
        }
    return LG_OK;
}
