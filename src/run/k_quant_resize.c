/* Integer RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (k_quant_more.h): int8, uint8, int16.
 *
 * Neither op requantizes: TFLite's kernels interpolate the raw integers (resize_bilinear.cc,
 * resize_nearest_neighbor.cc do not look at the quantization) and XNNPACK's resize requires
 * the input and output quantization to match (src/subgraph/static-resize-bilinear-2d.c
 * xnn_subgraph_check_quantization_parameter_matches), so a differing output quantization is
 * refused.
 *
 * RESIZE_BILINEAR, TFLite (resize_bilinear.cc Eval, kOptimized, the builtin registration):
 *   int8:  optimized_ops::ResizeBilinear(int8) = reference_ops::ResizeBilinearInteger
 *          (internal/reference/resize_bilinear.h): scales in Q10, rounded,
 *          scale_10 = (1024 * in + out / 2) / out (align_corners: (1024 (in-1) + (out-1)/2) /
 *          (out-1)); position v = o * scale_10 (half_pixel_centers: + scale_10 / 2 - 512),
 *          lower = max(v / 1024, 0), upper = min((v + 1023) / 1024, in - 1); the four products
 *          in int64 (Q20), rounded half away from zero ((s +- 2^19) / 2^20: the default build,
 *          TFLITE_SINGLE_ROUNDING off);
 *   int16: ResizeBilinearInteger as well;
 *   uint8: internal/optimized/resize_bilinear.h ResizeBilinearGenericSmallChannel: float
 *          positions (reference_ops::ComputeInterpolationValues), four float weights, the sum
 *          in that order + 0.5, truncated. Its 8x half-pixel special case (ResizeBilinear888-
 *          Uint8, depth % 8 == 0) accumulates exactly in 8.8 fixed point with the same +0.5
 *          and truncation; there every weight is a multiple of 1/16, so the float sum is exact
 *          too and both give the same bytes.
 * RESIZE_BILINEAR, XNNPACK (LG_INT_XNNPACK, int8 / uint8; the delegate takes them:
 *   xnnpack_delegate.cc VisitResizeBilinearNode): src/indirection.c
 *   xnn_indirection_init_resize_bilinear2d_hwc_q11 — float positions (align_corners or
 *   legacy: o * scale clamped to in - 1; half pixel: o * scale + (scale / 2 - 1/2) clamped to
 *   [0, in - 1]), weights lrintf(alpha * 2048); src/s8-ibilinear, src/u8-ibilinear
 *   (scalar and wasmsimd compute the same): t = (tl << 11) + (tr - tl) * ah,
 *   b = (bl << 11) + (br - bl) * ah, y = asr((t << 11) + (b - t) * av + 2^21, 22).
 * RESIZE_NEAREST_NEIGHBOR (resize_nearest_neighbor.cc, kGenericOptimized; XNNPACK does not
 *   take it): 8-bit without align_corners / half_pixel_centers:
 *   internal/optimized/optimized_ops.h ResizeNearestNeighbor (uint8_t): Q16 scale
 *   (in << 16) / out + 1, index min((o * scale) >> 16, in - 1); otherwise (and int16)
 *   reference_ops::GetNearestNeighbor in float.
 */
#include "run/k_quant_more.h"

typedef struct qresize {
    lg_dtype t;
    int xnn;                  /* XNNPACK's q11 arithmetic */
    int64_t nb, ih, iw, c, oh, ow;
    /* per output row / column: the two source indices and the weight */
    int32_t *y0, *y1, *x0, *x1;
    int32_t *wy, *wx;         /* Q10 positions (TFLite integer), Q11 alphas (XNNPACK) */
    float *fy, *fx;           /* TFLite uint8: float positions */
    const void *x;
    void *y;
} qresize;

/* Shared checks: [N,H,W,C] input with quantization, constant INT32 size [2], an output of the
   input's type and quantization. */
static lg_status resize_io(lgk_node *n, qresize *q, int32_t *oh, int32_t *ow, lg_error *err) {
    if (n->n_in != 2 || !n->in[0] || !n->in[1] || n->n_out != 1)
        return lgk_fail(n, LG_ERR_FORMAT, err, "expected input, size and 1 output");
    const lgk_tensor *x = n->in[0], *sz = n->in[1], *y = n->out[0];
    if (x->rank != 4) return lgk_fail(n, LG_ERR_FORMAT, err, "input must be rank 4, not %u", x->rank);
    if (sz->type != LG_INT32 || sz->numel != 2)
        return lgk_fail(n, LG_ERR_FORMAT, err, "size (tensor %d) must be INT32 with 2 values", sz->index);
    int64_t v[2];
    uint32_t cnt = 0;
    LG_TRY(lgk_const_ints(n, 1, v, 2, &cnt, err));
    if (v[0] < 1 || v[1] < 1 || v[0] > INT32_MAX || v[1] > INT32_MAX)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output size %lld x %lld must be positive", (long long)v[0],
                        (long long)v[1]);
    q->t = x->type;
    if (lgk_storage_type(y->ir->type) != q->t)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output is %s but input is %s", lg_dtype_name(y->ir->type),
                        lg_dtype_name(x->ir->type));
    lgq_tp in, out;
    LG_TRY(lgq_params(n, x, "input", &in, err));
    LG_TRY(lgq_params(n, y, "output", &out, err));
    if (in.scale != out.scale || in.zp != out.zp)
        return lgq_unsupported(n, err, "input (scale %g, zero point %d) and output (scale %g, zero point %d) "
                               "quantization differ: the integer resize does not requantize", (double)in.scale, in.zp,
                               (double)out.scale, out.zp);
    q->nb = x->shape[0]; q->ih = x->shape[1]; q->iw = x->shape[2]; q->c = x->shape[3];
    if ((q->ih == 0 || q->iw == 0) && q->nb * q->c > 0)
        return lgk_fail(n, LG_ERR_FORMAT, err, "cannot resize an empty %lld x %lld image", (long long)q->ih,
                        (long long)q->iw);
    *oh = (int32_t)v[0];
    *ow = (int32_t)v[1];
    q->oh = *oh;
    q->ow = *ow;
    int32_t shp[4] = {x->shape[0], *oh, *ow, x->shape[3]};
    return lgk_set_output(n, 0, q->t, shp, 4, err);
}

static int32_t *arr(lgk_node *n, int64_t count) {
    return lgk_alloc(n, (size_t)(count ? count : 1) * sizeof(int32_t));
}

/* ------------------------------------------------------------------ the axis tables */

/* ComputeInterpolationValuesInteger along one axis (Q10). */
static void axis_q10(int64_t in, int64_t out, int align, int half, int32_t *lo, int32_t *hi, int32_t *pos) {
    int32_t s10 = (int32_t)(((1 << 10) * in + out / 2) / out);
    if (align && out > 1) s10 = (int32_t)(((1 << 10) * (in - 1) + (out - 1) / 2) / (out - 1));
    for (int64_t o = 0; o < out; o++) {
        const int32_t v = half ? (int32_t)o * s10 + s10 / 2 - (1 << 9) : (int32_t)o * s10;
        const int32_t l = v / (1 << 10);
        const int32_t h = (v + (1 << 10) - 1) / (1 << 10);
        lo[o] = l > 0 ? l : 0;
        hi[o] = h < in - 1 ? h : (int32_t)(in - 1);
        pos[o] = v;
    }
}

/* reference_ops::ComputeInterpolationValues along one axis (float). */
static void axis_float(int64_t in, int64_t out, int align, int half, int32_t *lo, int32_t *hi, float *pos) {
    const float scale = (align && out > 1) ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
    for (int64_t o = 0; o < out; o++) {
        const float v = half ? ((float)o + 0.5f) * scale - 0.5f : (float)o * scale;
        const int32_t l = (int32_t)floorf(v), h = (int32_t)ceilf(v);
        lo[o] = l > 0 ? l : 0;
        hi[o] = h < in - 1 ? h : (int32_t)(in - 1);
        pos[o] = v;
    }
}

/* xnn_indirection_init_resize_bilinear2d_hwc_q11 along one axis. */
static void axis_xnn(int64_t in, int64_t out, int align, int half, int32_t *lo, int32_t *hi, int32_t *w) {
    const int32_t adj = align && out != 1;
    const float scale = (float)((int32_t)in - adj) / (float)((int32_t)out - adj);
    const float maxv = (float)(in - 1);
    const float offset = 0.5f * scale - 0.5f;
    for (int64_t o = 0; o < out; o++) {
        float v;
        if (align || !half) {
            v = (float)(int32_t)o * scale;
            v = v < maxv ? v : maxv;
        } else {
            v = (float)(int32_t)o * scale + offset;
            v = v > 0.0f ? v : 0.0f;
            v = v < maxv ? v : maxv;
        }
        const uint32_t t = (uint32_t)(int32_t)v;
        lo[o] = (int32_t)t;
        hi[o] = (int32_t)(t + 1 < (uint32_t)(in - 1) ? t + 1 : (uint32_t)(in - 1));
        w[o] = (int32_t)(int16_t)lrintf((v - (float)t) * 0x1.0p+11f);
    }
}

/* ------------------------------------------------------------------ RESIZE_BILINEAR */

lg_status lgq_resize_bilinear_prepare(lgk_node *n, lg_error *err) {
    qresize *q = lgk_alloc(n, sizeof *q);
    if (!q) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q, 0, sizeof *q);
    const lg_resize_bilinear_options *o =
        n->op->opts_kind == LG_OPTS_RESIZE_BILINEAR_OPTIONS ? n->opts : NULL;
    const int align = o ? o->align_corners : 0, half = o ? o->half_pixel_centers : 0;
    if (align && half)
        return lgk_fail(n, LG_ERR_FORMAT, err, "half_pixel_centers and align_corners cannot both be set (TFLite)");
    int32_t oh, ow;
    LG_TRY(resize_io(n, q, &oh, &ow, err));
    q->xnn = n->ctx->int_arith == LG_INT_XNNPACK && q->t != LG_INT16;
    q->y0 = arr(n, oh); q->y1 = arr(n, oh); q->x0 = arr(n, ow); q->x1 = arr(n, ow);
    if (!q->y0 || !q->y1 || !q->x0 || !q->x1) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    if (q->t == LG_UINT8 && !q->xnn) {
        q->fy = lgk_alloc(n, (size_t)oh * sizeof(float));
        q->fx = lgk_alloc(n, (size_t)ow * sizeof(float));
        if (!q->fy || !q->fx) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
        axis_float(q->ih, oh, align, half, q->y0, q->y1, q->fy);
        axis_float(q->iw, ow, align, half, q->x0, q->x1, q->fx);
    } else {
        q->wy = arr(n, oh);
        q->wx = arr(n, ow);
        if (!q->wy || !q->wx) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
        if (q->xnn) {
            axis_xnn(q->ih, oh, align, half, q->y0, q->y1, q->wy);
            axis_xnn(q->iw, ow, align, half, q->x0, q->x1, q->wx);
        } else {
            axis_q10(q->ih, oh, align, half, q->y0, q->y1, q->wy);
            axis_q10(q->iw, ow, align, half, q->x0, q->x1, q->wx);
        }
    }
    n->state = q;
    return LG_OK;
}

/* One output pixel's channels from the four source pixels. */
static void bilinear_px(const qresize *q, int64_t oy, int64_t ox, int64_t src[4], int64_t dst) {
    const lg_dtype t = q->t;
    if (q->xnn) {
        const int32_t ah = q->wx[ox], av = q->wy[oy];
        for (int64_t c = 0; c < q->c; c++) {
            const int32_t tl = lgq_get(q->x, t, src[0] + c), tr = lgq_get(q->x, t, src[1] + c);
            const int32_t bl = lgq_get(q->x, t, src[2] + c), br = lgq_get(q->x, t, src[3] + c);
            const int32_t vt = (int32_t)((uint32_t)tl << 11) + (tr - tl) * ah;
            const int32_t vb = (int32_t)((uint32_t)bl << 11) + (br - bl) * ah;
            const int32_t acc = (int32_t)((uint32_t)vt << 11) + (vb - vt) * av;
            lgq_put(q->y, t, dst + c, (acc + 0x00200000) >> 22);
        }
    } else if (q->fy) {
        const float dy = q->fy[oy] - (float)q->y0[oy], dx = q->fx[ox] - (float)q->x0[ox];
        const float s0 = (1 - dy) * (1 - dx), s1 = (1 - dy) * dx, s2 = dy * (1 - dx), s3 = dy * dx;
        for (int64_t c = 0; c < q->c; c++) {
            const float v = (float)lgq_get(q->x, t, src[0] + c) * s0 + (float)lgq_get(q->x, t, src[1] + c) * s1 +
                            (float)lgq_get(q->x, t, src[2] + c) * s2 + (float)lgq_get(q->x, t, src[3] + c) * s3 + 0.5f;
            lgq_put(q->y, t, dst + c, (int32_t)(uint8_t)(int32_t)v);
        }
    } else {
        const int64_t dy = q->wy[oy] - (int64_t)1024 * q->y0[oy], dx = q->wx[ox] - (int64_t)1024 * q->x0[ox];
        const int64_t w0 = (1024 - dy) * (1024 - dx), w1 = (1024 - dy) * dx, w2 = dy * (1024 - dx), w3 = dy * dx;
        for (int64_t c = 0; c < q->c; c++) {
            /* ll (y0,x0), lu (y1,x0), rl (y0,x1), ru (y1,x1), summed in that order */
            const int64_t s = lgq_get(q->x, t, src[0] + c) * w0 + lgq_get(q->x, t, src[2] + c) * w2 +
                              lgq_get(q->x, t, src[1] + c) * w1 + lgq_get(q->x, t, src[3] + c) * w3;
            const int64_t r = s > 0 ? (1 << 19) : -(1 << 19);
            lgq_put(q->y, t, dst + c, (int32_t)((s + r) / (1 << 20)));
        }
    }
}

static void bilinear_rows(void *ud, int64_t r0, int64_t r1) {
    const qresize *q = ud;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t b = r / q->oh, oy = r % q->oh;
        const int64_t row0 = (b * q->ih + q->y0[oy]) * q->iw, row1 = (b * q->ih + q->y1[oy]) * q->iw;
        for (int64_t ox = 0; ox < q->ow; ox++) {
            int64_t src[4] = {(row0 + q->x0[ox]) * q->c, (row0 + q->x1[ox]) * q->c, (row1 + q->x0[ox]) * q->c,
                              (row1 + q->x1[ox]) * q->c};
            bilinear_px(q, oy, ox, src, (r * q->ow + ox) * q->c);
        }
    }
}

lg_status lgq_resize_bilinear_eval(lgk_node *n, lg_error *err) {
    (void)err;
    qresize q = *(const qresize *)n->state;
    if (n->out[0]->numel == 0) return LG_OK;
    q.x = n->in[0]->data;
    q.y = n->out[0]->data;
    lgk_parallel_for(n->ctx, q.nb * q.oh, 1, bilinear_rows, &q);
    return LG_OK;
}

/* ------------------------------------------------------------------ RESIZE_NEAREST_NEIGHBOR */

/* reference_ops::GetNearestNeighbor */
static int32_t nearest_ref(int64_t o, int64_t in, int64_t out, int align, int half) {
    const float scale = (align && out > 1) ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
    const float offset = half ? 0.5f : 0.0f;
    int32_t v = align ? (int32_t)roundf(((float)o + offset) * scale) : (int32_t)floorf(((float)o + offset) * scale);
    if (v > in - 1) v = (int32_t)(in - 1);
    if (half && v < 0) v = 0;
    return v;
}

lg_status lgq_resize_nearest_prepare(lgk_node *n, lg_error *err) {
    qresize *q = lgk_alloc(n, sizeof *q);
    if (!q) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    memset(q, 0, sizeof *q);
    const lg_resize_nearest_neighbor_options *o =
        n->op->opts_kind == LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS ? n->opts : NULL;
    const int align = o ? o->align_corners : 0, half = o ? o->half_pixel_centers : 0;
    int32_t oh, ow;
    LG_TRY(resize_io(n, q, &oh, &ow, err));
    q->y0 = arr(n, oh);
    q->x0 = arr(n, ow);
    if (!q->y0 || !q->x0) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    const int fixed = q->t != LG_INT16 && !align && !half;
    /* the optimized uint8 kernel's Q16 scales ("+ 1 as an error factor") */
    const int64_t hs = (q->ih << 16) / oh + 1, ws = (q->iw << 16) / ow + 1;
    for (int64_t y = 0; y < oh; y++) {
        const int64_t f = (y * hs) >> 16;
        q->y0[y] = fixed ? (int32_t)(f < q->ih - 1 ? f : q->ih - 1) : nearest_ref(y, q->ih, oh, align, half);
    }
    for (int64_t x = 0; x < ow; x++) {
        const int64_t f = (x * ws) >> 16;
        q->x0[x] = fixed ? (int32_t)(f < q->iw - 1 ? f : q->iw - 1) : nearest_ref(x, q->iw, ow, align, half);
    }
    n->state = q;
    return LG_OK;
}

lg_status lgq_resize_nearest_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const qresize *q = n->state;
    const size_t es = lgk_elem_size(q->t), px = (size_t)q->c * es;
    const uint8_t *x = n->in[0]->data;
    uint8_t *y = n->out[0]->data;
    for (int64_t b = 0; b < q->nb; b++)
        for (int64_t oy = 0; oy < q->oh; oy++) {
            const uint8_t *row = x + (size_t)((b * q->ih + q->y0[oy]) * q->iw) * px;
            for (int64_t ox = 0; ox < q->ow; ox++, y += px) memcpy(y, row + (size_t)q->x0[ox] * px, px);
        }
    return LG_OK;
}
