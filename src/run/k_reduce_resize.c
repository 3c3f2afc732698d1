/* Reference kernels, reduce family: RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (NHWC,
 * the size input a constant INT32 [new_height, new_width]), as TFLite's reference kernels.
 *
 * Bilinear, per axis (in = input size, out = output size):
 *   scale = in / out, or (in - 1) / (out - 1) with align_corners and out > 1
 *   src   = (o + 0.5) * scale - 0.5 with half_pixel_centers, else o * scale
 *   i0    = max(floor(src), 0), i1 = min(ceil(src), in - 1), d = src - i0
 *   y = v00 (1-dy)(1-dx) + v10 dy (1-dx) + v01 (1-dy) dx + v11 dy dx
 * (align_corners together with half_pixel_centers is rejected, as TFLite does.)
 * In LG_PREC_F16 the taps are blended as a GPU shader does, mix(mix(v00, v01, dx),
 * mix(v10, v11, dx), dy) with mix(a, b, t) = a + (b - a) * t, every difference, product and
 * sum rounded to half (the fractions dx, dy stay fp32). Where the source index is clamped
 * (i0 == i1) this returns the pixel exactly, while TFLite's reference expression can be off
 * by an ulp (e.g. v * 1.25 + v * -0.25).
 * fp32 arithmetic (LG_PREC_F32, LG_PREC_F32_F16) is XNNPACK's as LiteRT.js runs it (TFLite's
 * XNNPACK delegate: align_corners -> XNN_FLAG_ALIGN_CORNERS, neither flag -> "TensorFlow legacy"
 * mode, half_pixel_centers -> XNNPACK's default), reproducing its results bit for bit: per axis,
 * in float,
 *   src = o * scale                                   (legacy, align_corners)
 *   src = min(max(o * scale + (0.5 * scale - 0.5), 0), in - 1)   (half_pixel_centers)
 *   i0 = (int)src, i1 = min(i0 + 1, in - 1), a = src - i0
 * (XNNPACK's indirection init), then per pixel (its f32-ibilinear kernel, no FMA)
 *   top = (v01 - v00) * ax + v00, bottom = (v11 - v10) * ax + v10, y = (bottom - top) * ay + top.
 * Same bilinear formula: the half-pixel source differs from TFLite's only in rounding, and where
 * TFLite's source lies outside [0, in - 1] both give the edge pixel (XNNPACK exactly, with a = 0).
 *
 * Nearest, per axis: i = min(align_corners ? round((o + offset) * scale)
 *                                          : floor((o + offset) * scale), in - 1),
 * offset = 0.5 with half_pixel_centers (then also i = max(i, 0)), round half away from 0. */
#include "run/simd.h"
#include "run/k_reduce.h"

/* Every product and sum is its own fp32 operation (XNNPACK's arithmetic on wasm has no FMA):
   GCC in ISO C mode does not contract a*b+c into an FMA; clang does by default, so say it. */
#ifdef __clang__
#pragma clang fp contract(off)
#endif

typedef struct resize_state {
    int64_t batch, ih, iw, oh, ow, ch;
    uint32_t es;
    /* bilinear: per output row / column the two source indices and the fraction */
    int32_t *y0, *y1, *x0, *x1;
    float *dy, *dx;
    /* nearest: the source index */
    int32_t *ny, *nx;
} resize_state;

static lg_status resize_common(lgk_node *n, int32_t *oh, int32_t *ow, lg_error *err) {
    LG_TRY(lgk_red_arity(n, 2, 1, err));
    const lgk_tensor *x = n->in[0], *sz = n->in[1];
    LG_TRY(lgk_red_static_shape(n, x, err));
    if (x->rank != 4) return lgk_fail(n, LG_ERR_FORMAT, err, "input must have rank 4 (NHWC), not %u", x->rank);
    if (sz->type != LG_INT32)
        return lgk_fail(n, LG_ERR_FORMAT, err, "size (input 1) must be INT32, not %s", lg_dtype_name(sz->ir->type));
    if (sz->rank != 1 || sz->shape[0] != 2)
        return lgk_fail(n, LG_ERR_FORMAT, err, "size (input 1) must be a 1-D tensor of 2 values");
    int64_t v[2];
    uint32_t cnt = 0;
    LG_TRY(lgk_const_ints(n, 1, v, 2, &cnt, err));
    if (v[0] < 0 || v[1] < 0 || v[0] > INT32_MAX || v[1] > INT32_MAX)
        return lgk_fail(n, LG_ERR_FORMAT, err, "bad output size %lld x %lld", (long long)v[0], (long long)v[1]);
    *oh = (int32_t)v[0];
    *ow = (int32_t)v[1];
    LG_TRY(lgk_red_out_type(n, 0, x->type, err));
    int32_t oshape[4] = {x->shape[0], *oh, *ow, x->shape[3]};
    LG_TRY(lgk_set_output(n, 0, x->type, oshape, 4, err));
    resize_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    s->batch = x->shape[0];
    s->ih = x->shape[1];
    s->iw = x->shape[2];
    s->ch = x->shape[3];
    s->oh = *oh;
    s->ow = *ow;
    s->es = lgk_elem_size(x->type);
    n->state = s;
    return LG_OK;
}

/* ------------------------------------------------------------------ bilinear */

static float bilinear_scale(int64_t in, int64_t out, int align) {
    if (align && out > 1) return (float)(in - 1) / (float)(out - 1);
    return (float)in / (float)out;
}

static void bilinear_axis(int64_t in, int64_t out, float scale, int half, int32_t *i0, int32_t *i1,
                          float *d) {
    for (int64_t o = 0; o < out; o++) {
        float src = half ? ((float)o + 0.5f) * scale - 0.5f : (float)o * scale;
        float fl = floorf(src);
        int64_t lo = (int64_t)fl, hi = (int64_t)ceilf(src);
        if (lo < 0) lo = 0;
        if (lo > in - 1) lo = in - 1; /* never for valid scales; keeps reads in bounds */
        if (hi > in - 1) hi = in - 1;
        if (hi < 0) hi = 0;
        i0[o] = (int32_t)lo;
        i1[o] = (int32_t)hi;
        d[o] = src - (float)lo;
    }
}

/* XNNPACK's per-axis source indices and fractions (xnn_indirection_init_resize_bilinear2d_hwc_f32);
   `half` selects its half-pixel mode, else o * scale (its legacy and align_corners modes) */
static void bilinear_axis_xnn(int64_t in, int64_t out, float scale, int half, int32_t *i0, int32_t *i1,
                              float *d) {
    const float offset = 0.5f * scale - 0.5f;
    const float hi = (float)(in - 1);
    for (int64_t o = 0; o < out; o++) {
        float src = (float)o * scale;
        if (half) {
            src = src + offset;
            src = src < 0.0f ? 0.0f : src;
            src = src > hi ? hi : src;
        }
        int64_t lo = (int64_t)src;
        if (lo > in - 1) lo = in - 1; /* never for valid scales; keeps reads in bounds */
        i0[o] = (int32_t)lo;
        i1[o] = (int32_t)(lo + 1 < in - 1 ? lo + 1 : in - 1);
        d[o] = src - (float)lo;
    }
}

lg_status lgk_resize_bilinear_prepare(lgk_node *n, lg_error *err) {
    int32_t oh, ow;
    LG_TRY(resize_common(n, &oh, &ow, err));
    const lgk_tensor *x = n->in[0];
    if (x->type != LG_FLOAT32)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "input type %s is not supported (float only)", lg_dtype_name(x->ir->type));
    if (oh <= 0 || ow <= 0)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output size %d x %d must be positive", oh, ow);
    const lg_resize_bilinear_options *o = lgk_red_opts(n, LG_OPTS_RESIZE_BILINEAR_OPTIONS);
    int align = o ? o->align_corners : 0, half = o ? o->half_pixel_centers : 0;
    if (align && half)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                        "align_corners and half_pixel_centers are both set (TFLite rejects this too)");
    resize_state *s = n->state;
    if (s->ih == 0 || s->iw == 0) {
        if (s->batch && s->ch)
            return lgk_fail(n, LG_ERR_FORMAT, err, "cannot resize an empty %lld x %lld image", (long long)s->ih,
                            (long long)s->iw);
        return LG_OK; /* no output elements */
    }
    s->y0 = lgk_alloc(n, (size_t)oh * 4);
    s->y1 = lgk_alloc(n, (size_t)oh * 4);
    s->dy = lgk_alloc(n, (size_t)oh * 4);
    s->x0 = lgk_alloc(n, (size_t)ow * 4);
    s->x1 = lgk_alloc(n, (size_t)ow * 4);
    s->dx = lgk_alloc(n, (size_t)ow * 4);
    if (!s->y0 || !s->y1 || !s->dy || !s->x0 || !s->x1 || !s->dx) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    if (n->ctx->prec == LG_PREC_F16) {
        bilinear_axis(s->ih, oh, bilinear_scale(s->ih, oh, align), half, s->y0, s->y1, s->dy);
        bilinear_axis(s->iw, ow, bilinear_scale(s->iw, ow, align), half, s->x0, s->x1, s->dx);
        /* the shader's interpolation weights are halves too (so each product is exact) */
        for (int32_t i = 0; i < oh; i++) s->dy[i] = lg_round_half(s->dy[i]);
        for (int32_t i = 0; i < ow; i++) s->dx[i] = lg_round_half(s->dx[i]);
        lgk_claim_half(n);
    } else {
        bilinear_axis_xnn(s->ih, oh, bilinear_scale(s->ih, oh, align), half, s->y0, s->y1, s->dy);
        bilinear_axis_xnn(s->iw, ow, bilinear_scale(s->iw, ow, align), half, s->x0, s->x1, s->dx);
    }
    return LG_OK;
}

typedef struct resize_job {
    const lgk_node *n;
    const resize_state *s;
    const uint8_t *x;
    uint8_t *y;
} resize_job;

/* One output pixel in fp32: XNNPACK's f32-ibilinear order (p01 is the right neighbour of p00 in
   the top row, p10 the pixel below p00). */
static void bilinear_px(float *restrict o, const float *restrict p00, const float *restrict p10,
                        const float *restrict p01, const float *restrict p11, float ay, float ax, int64_t C) {
    LGK_RED_LOOP(C, {
        const float top = (p01[i] - p00[i]) * ax + p00[i];
        const float bot = (p11[i] - p10[i]) * ax + p10[i];
        o[i] = (bot - top) * ay + top;
    });
}

/* one job item = one output row (b, y) */
static void bilinear_rows(void *ud, int64_t begin, int64_t end) {
    const resize_job *j = ud;
    const resize_state *s = j->s;
    const lgk_ctx *c = j->n->ctx;
    const int f16 = c->prec == LG_PREC_F16;
    const int64_t C = s->ch;
    const float *in = (const float *)j->x;
    float *out = (float *)j->y;
    for (int64_t r = begin; r < end; r++) {
        const int64_t b = r / s->oh, oy = r % s->oh;
        const float dy = s->dy[oy];
        const float *row0 = in + (b * s->ih + s->y0[oy]) * s->iw * C;
        const float *row1 = in + (b * s->ih + s->y1[oy]) * s->iw * C;
        float *o = out + r * s->ow * C;
        if (f16) {
            /* a GPU's mix(mix(v00, v01, dx), mix(v10, v11, dx), dy), each a + (b - a) * t with the
               difference rounded to half and the multiply-add rounded once (lgk_mac) */
            lgk_simd_bilerp_row_h(o, row0, row1, s->x0, s->x1, s->dx, dy, s->ow, C);
            continue;
        }
        for (int64_t ox = 0; ox < s->ow; ox++, o += C) {
            const float dx = s->dx[ox];
            const float *p00 = row0 + s->x0[ox] * C, *p01 = row0 + s->x1[ox] * C;
            const float *p10 = row1 + s->x0[ox] * C, *p11 = row1 + s->x1[ox] * C;
            bilinear_px(o, p00, p10, p01, p11, dy, dx, C);
        }
    }
}

lg_status lgk_resize_bilinear_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const resize_state *s = n->state;
    if (n->out[0]->numel == 0) return LG_OK;
    resize_job j = {n, s, n->in[0]->data, n->out[0]->data};
    lgk_parallel_for(n->ctx, s->batch * s->oh, 1, bilinear_rows, &j);
    return LG_OK;
}

/* ------------------------------------------------------------------ nearest neighbor */

static void nearest_axis(int64_t in, int64_t out, int align, int half, int32_t *idx) {
    const float scale = (align && out > 1) ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
    const float offset = half ? 0.5f : 0.0f;
    for (int64_t o = 0; o < out; o++) {
        float v = ((float)o + offset) * scale;
        int64_t i = align ? (int64_t)roundf(v) : (int64_t)floorf(v);
        if (i > in - 1) i = in - 1;
        if (half && i < 0) i = 0;
        if (i < 0) i = 0; /* only reachable for in == 0, which has no output */
        idx[o] = (int32_t)i;
    }
}

lg_status lgk_resize_nearest_prepare(lgk_node *n, lg_error *err) {
    int32_t oh, ow;
    LG_TRY(resize_common(n, &oh, &ow, err));
    const lgk_tensor *x = n->in[0];
    if (x->type != LG_FLOAT32 && x->type != LG_INT8 && x->type != LG_UINT8 && x->type != LG_INT16)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "input type %s is not supported", lg_dtype_name(x->ir->type));
    const lg_resize_nearest_neighbor_options *o = lgk_red_opts(n, LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS);
    int align = o ? o->align_corners : 0, half = o ? o->half_pixel_centers : 0;
    resize_state *s = n->state;
    if ((s->ih == 0 || s->iw == 0) && n->out[0]->numel)
        return lgk_fail(n, LG_ERR_FORMAT, err, "cannot resize an empty %lld x %lld image", (long long)s->ih, (long long)s->iw);
    s->ny = lgk_alloc(n, (size_t)(oh ? oh : 1) * 4);
    s->nx = lgk_alloc(n, (size_t)(ow ? ow : 1) * 4);
    if (!s->ny || !s->nx) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    nearest_axis(s->ih, oh, align, half, s->ny);
    nearest_axis(s->iw, ow, align, half, s->nx);
    return LG_OK;
}

static void nearest_rows(void *ud, int64_t begin, int64_t end) {
    const resize_job *j = ud;
    const resize_state *s = j->s;
    const size_t px = (size_t)s->ch * s->es;
    for (int64_t r = begin; r < end; r++) {
        const int64_t b = r / s->oh, oy = r % s->oh;
        const uint8_t *row = j->x + (size_t)((b * s->ih + s->ny[oy]) * s->iw) * px;
        uint8_t *o = j->y + (size_t)(r * s->ow) * px;
        for (int64_t ox = 0; ox < s->ow; ox++, o += px) memcpy(o, row + (size_t)s->nx[ox] * px, px);
    }
}

lg_status lgk_resize_nearest_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const resize_state *s = n->state;
    if (n->out[0]->numel == 0) return LG_OK;
    resize_job j = {n, s, n->in[0]->data, n->out[0]->data};
    lgk_parallel_for(n->ctx, s->batch * s->oh, 1, nearest_rows, &j);
    return LG_OK;
}
