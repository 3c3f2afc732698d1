/* CONV_2D (im2col + the packed GEMM; grouped), TRANSPOSE_CONV and MediaPipe's
 * Convolution2DTransposeBias. */
#include <limits.h>

#include "run/k_conv.h"

/* ================================================================== CONV_2D */

typedef struct conv_state {
    int64_t nb, h, w, ic, oh, ow, oc, kh, kw, fic, groups, ocg, sh, sw, dh, dw, ph, pw;
    int64_t K;      /* kh * kw * fic */
    int64_t M;      /* nb * oh * ow output pixels */
    int64_t tile;   /* output pixels per im2col / GEMM tile */
    int direct;     /* 1x1, stride 1, no padding: the input is the GEMM's A */
    lgk_clamp cl;
    float *packed;  /* constant weights packed for lgk_cv_gemm(_hp) at prepare (group after group) */
    int64_t chunks; /* pieces of the output split across worker threads, each with its own tile */
} conv_state;

/* rows per GEMM tile: an im2col tile of ~128 KiB stays in L2 between its write and the GEMM.
   A group's packed weights (n x K) past 512 KiB do not stay in L2 from one tile to the next,
   and every tile reads all of them: then at least 64 rows per tile, so that they are read
   fewer times (7x7x512 3x3 convs: 49 rows in one tile instead of 16 + 16 + 16 + 1). The tiling
   does not change any output's arithmetic. */
static int64_t pick_tile(int64_t M, int64_t K, int64_t n) {
    int64_t t = (32 * 1024) / (K > 0 ? K : 1);
    if (t < 16) t = 16;
    if (n * K > 128 * 1024 && t < 64) t = 64;
    if (t > M) t = M;
    return t < 1 ? 1 : t;
}

lg_status lgk_conv2d_prepare(lgk_node *n, lg_error *err) {
    lg_status st;
    const lg_conv2d_options *o = lgk_cv_opts(n, LG_OPTS_CONV2D_OPTIONS, "Conv2DOptions", err, &st);
    if (!o) return st;
    if (n->n_in < 2 || n->n_in > 3) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 2 or 3 inputs, got %u", n->n_in);
    LG_TRY(lgk_cv_float_in(n, 0, 4, "input", err));
    LG_TRY(lgk_cv_float_in(n, 1, 4, "filter", err));
    LG_TRY(lgk_cv_one_output(n, err));
    const lgk_tensor *x = n->in[0], *f = n->in[1];
    conv_state s;
    memset(&s, 0, sizeof s);
    s.nb = x->shape[0]; s.h = x->shape[1]; s.w = x->shape[2]; s.ic = x->shape[3];
    s.oc = f->shape[0]; s.kh = f->shape[1]; s.kw = f->shape[2]; s.fic = f->shape[3];
    s.sh = o->stride_h; s.sw = o->stride_w; s.dh = o->dilation_h_factor; s.dw = o->dilation_w_factor;
    if (s.sh < 1 || s.sw < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "stride %lldx%lld must be >= 1", (long long)s.sh, (long long)s.sw);
    if (s.dh < 1 || s.dw < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "dilation %lldx%lld must be >= 1", (long long)s.dh, (long long)s.dw);
    if (o->padding != LG_PADDING_SAME && o->padding != LG_PADDING_VALID)
        return lgk_fail(n, LG_ERR_FORMAT, err, "unknown padding %d", o->padding);
    if (s.kh < 1 || s.kw < 1 || s.fic < 1)
        return lgk_fail(n, LG_ERR_FORMAT, err, "filter shape [%lld,%lld,%lld,%lld] is empty", (long long)s.oc,
                        (long long)s.kh, (long long)s.kw, (long long)s.fic);
    if (s.ic % s.fic != 0)
        return lgk_fail(n, LG_ERR_FORMAT, err, "input channels %lld are not a multiple of the filter's %lld",
                        (long long)s.ic, (long long)s.fic);
    s.groups = s.ic / s.fic;
    if (s.groups == 0 || s.oc % s.groups != 0)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output channels %lld are not a multiple of the %lld groups",
                        (long long)s.oc, (long long)s.groups);
    s.ocg = s.oc / s.groups;
    LG_TRY(lgk_cv_clamp(n, o->fused_activation_function, &s.cl, err));
    const lgk_tensor *bias;
    LG_TRY(lgk_cv_bias(n, 2, s.oc, &bias, err));
    s.oh = lgk_cv_out_size(o->padding, s.h, s.kh, s.sh, s.dh);
    s.ow = lgk_cv_out_size(o->padding, s.w, s.kw, s.sw, s.dw);
    s.ph = lgk_cv_pad(s.sh, s.dh, s.h, s.kh, s.oh);
    s.pw = lgk_cv_pad(s.sw, s.dw, s.w, s.kw, s.ow);
    int32_t shp[4] = {(int32_t)s.nb, (int32_t)s.oh, (int32_t)s.ow, (int32_t)s.oc};
    LG_TRY(lgk_set_output(n, 0, LG_FLOAT32, shp, 4, err));
    s.K = s.kh * s.kw * s.fic;
    s.M = s.nb * s.oh * s.ow;
    if (s.K > INT_MAX / 8 || s.ocg > INT_MAX / 8 || s.ic > INT_MAX / 8 || s.oc > INT_MAX / 8)
        return lgk_fail(n, LG_ERR_LIMIT, err, "conv too large for the GEMM");
    s.direct = s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.ph == 0 && s.pw == 0 && s.oh == s.h && s.ow == s.w;
    s.tile = pick_tile(s.M, s.K, s.ocg);
    const int half = n->ctx->prec == LG_PREC_F16;
    const int dot = s.ocg <= 4; /* fp32: lgk_cv_conv_dot; half: lgk_cv_gemm_hn (raw weights) */
    if (!dot && f->is_const) {
        uint64_t per = (uint64_t)lgk_cv_packed_floats(s.ocg, s.K);
        s.packed = lgk_alloc(n, (size_t)(per * (uint64_t)s.groups) * sizeof(float));
        if (!s.packed) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory packing the filter");
        for (int64_t g = 0; g < s.groups; g++)
            lgk_cv_pack_b((const float *)f->data + g * s.ocg * s.K, s.K, 1, s.ocg, s.K, s.packed + g * per);
    }
    /* one im2col tile per worker */
    s.chunks = n->ctx->threads > 1 ? n->ctx->threads : 1;
    uint64_t scratch = 0;
    if (!s.direct || (dot && !half)) scratch += (uint64_t)s.chunks * (uint64_t)s.tile * (uint64_t)s.K;
    if (!dot && !s.packed) scratch += (uint64_t)lgk_cv_packed_floats(s.ocg, s.K);
    n->scratch_bytes = scratch * sizeof(float);
    conv_state *ps = lgk_alloc(n, sizeof *ps);
    if (!ps) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    *ps = s;
    n->state = ps;
    lgk_claim_half(n); /* LG_PREC_F16: the half GEMM's outputs are halves */
    return LG_OK;
}

/* one group's work, split in chunks of output pixels across workers */
typedef struct conv_job {
    const conv_state *s;
    const float *in, *wg, *bg, *bp; /* input, the group's weights (raw), bias, packed weights */
    float *out, *cols;              /* the group's first output column; one im2col tile per chunk */
    int64_t g;
    int mode;                       /* 1 packed GEMM, 2 half, 3 dot products, 4 packed GEMM "c4" */
} conv_job;

static void conv_chunks(void *ud, int64_t c0, int64_t c1) {
    const conv_job *j = ud;
    const conv_state *s = j->s;
    lgk_im2col_args ia = {j->in, s->h, s->w, s->ic, j->g * s->fic, s->fic, s->oh, s->ow, s->kh, s->kw,
                          s->sh, s->sw, s->dh, s->dw, s->ph, s->pw};
    for (int64_t c = c0; c < c1; c++) {
        float *col = j->cols + c * s->tile * s->K;
        int64_t m0 = s->M * c / s->chunks, m1 = s->M * (c + 1) / s->chunks;
        if (j->mode == 3) {
            lgk_cv_conv_dot(&ia, j->wg, s->ocg, j->bg, s->cl, j->out + m0 * s->oc, s->oc, m0, m1, col);
            continue;
        }
        for (int64_t p0 = m0; p0 < m1; p0 += s->tile) {
            int64_t mt = m1 - p0 < s->tile ? m1 - p0 : s->tile;
            const float *a;
            int64_t lda;
            if (s->direct) {
                a = j->in + p0 * s->ic + j->g * s->fic;
                lda = s->ic;
            } else {
                lgk_cv_im2col(&ia, p0, mt, col);
                a = col;
                lda = s->K;
            }
            float *y = j->out + p0 * s->oc;
            if (j->mode == 2 && s->ocg <= 4) {
                lgk_cv_gemm_hn(mt, s->ocg, s->K, a, lda, j->wg, y, s->oc, j->bg, s->cl);
            } else if (j->mode == 2) {
                lgk_cv_gemm_hp(mt, s->ocg, s->K, a, lda, j->bp, y, s->oc, j->bg, s->cl);
            } else if (j->mode == 4) {
                lgk_cv_gemm_c4(mt, s->ocg, s->K, a, lda, j->bp, y, s->oc, j->bg, s->cl, s->fic);
            } else {
                lgk_cv_gemm(mt, s->ocg, s->K, a, lda, j->bp, y, s->oc, j->bg, s->cl);
            }
        }
    }
}

lg_status lgk_conv2d_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const conv_state *s = n->state;
    const float *in = n->in[0]->data, *w = n->in[1]->data;
    const float *bias = n->n_in > 2 && n->in[2] ? n->in[2]->data : NULL;
    float *out = n->out[0]->data;
    if (s->M == 0 || s->oc == 0) return LG_OK;
    const int half = n->ctx->prec == LG_PREC_F16;
    /* LG_PREC_F16: the half GEMM. fp32: XNNPACK's arithmetic, "c4" or one chain per output as
       LiteRT.js picks it (lgk_cv_use_c4); 1-4 output channels through dot products across
       pixels, more through the packed GEMM. */
    int mode = half ? 2 : s->ocg <= 4 ? 3 : lgk_cv_use_c4(s->ocg, s->direct) ? 4 : 1;
    const int packs = s->ocg > 4; /* 1-4 outputs use the raw weights (dot products, lgk_cv_gemm_hn) */
    const int64_t per = lgk_cv_packed_floats(s->ocg, s->K);
    /* scratch: [a group's weights packed (lgk_cv_pack_b), unless packed at prepare]
       [one im2col tile per chunk] */
    float *wbuf = n->scratch, *cols = wbuf;
    if (packs && !s->packed) cols += per;
    for (int64_t g = 0; g < s->groups; g++) {
        conv_job j;
        memset(&j, 0, sizeof j);
        j.s = s;
        j.in = in;
        j.wg = w + g * s->ocg * s->K;
        j.bg = bias ? bias + g * s->ocg : NULL;
        j.out = out + g * s->ocg;
        j.cols = cols;
        j.g = g;
        j.mode = mode;
        if (packs) {
            if (s->packed) {
                j.bp = s->packed + g * per;
            } else {
                lgk_cv_pack_b(j.wg, s->K, 1, s->ocg, s->K, wbuf);
                j.bp = wbuf;
            }
        }
        if (s->chunks == 1) conv_chunks(&j, 0, s->chunks);
        else lgk_parallel_for(n->ctx, s->chunks, 1, conv_chunks, &j);
    }
    return LG_OK;
}

/* ================================================================== transposed conv */

typedef struct tconv_state {
    int64_t nb, h, w, ic, oh, ow, oc, kh, kw, sh, sw, ph, pw;
    int bias_in;    /* input index of the bias, -1 if none */
    int x_in, w_in; /* input indices of the data and the weights */
    lgk_clamp cl;
} tconv_state;

static lg_status tconv_finish(lgk_node *n, tconv_state *s, lg_error *err) {
    if (s->kh < 1 || s->kw < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "filter is empty");
    if (s->ic > INT_MAX / 8 || s->oc * s->kh * s->kw > INT_MAX / 8)
        return lgk_fail(n, LG_ERR_LIMIT, err, "transposed conv too large for the GEMM");
    /* the weights as [kh*kw][ic][pad8(oc)]; half: also four outputs' accumulators */
    uint64_t scratch = (uint64_t)(s->kh * s->kw * s->ic) * (uint64_t)lgk_cv_pad8(s->oc);
    if (n->ctx->prec == LG_PREC_F16) scratch += 4 * (uint64_t)lgk_cv_pad8(s->oc);
    n->scratch_bytes = scratch * sizeof(float);
    tconv_state *ps = lgk_alloc(n, sizeof *ps);
    if (!ps) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    *ps = *s;
    n->state = ps;
    return LG_OK;
}

/* TRANSPOSE_CONV: inputs output_shape (constant), weights [oc,kh,kw,ic], input, [bias] */
lg_status lgk_tconv_prepare(lgk_node *n, lg_error *err) {
    lg_status st;
    const lg_transpose_conv_options *o = lgk_cv_opts(n, LG_OPTS_TRANSPOSE_CONV_OPTIONS, "TransposeConvOptions", err, &st);
    if (!o) return st;
    if (n->n_in < 3 || n->n_in > 4) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 3 or 4 inputs, got %u", n->n_in);
    LG_TRY(lgk_cv_float_in(n, 1, 4, "weights", err));
    LG_TRY(lgk_cv_float_in(n, 2, 4, "input", err));
    LG_TRY(lgk_cv_one_output(n, err));
    if (!n->in[0] || n->in[0]->type != LG_INT32)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output_shape (input 0) must be INT32");
    int64_t os[4];
    uint32_t cnt = 0;
    LG_TRY(lgk_const_ints(n, 0, os, 4, &cnt, err));
    if (cnt != 4) return lgk_fail(n, LG_ERR_FORMAT, err, "output_shape has %u values, expected 4", cnt);
    const lgk_tensor *wt = n->in[1], *x = n->in[2];
    tconv_state s;
    memset(&s, 0, sizeof s);
    s.nb = x->shape[0]; s.h = x->shape[1]; s.w = x->shape[2]; s.ic = x->shape[3];
    s.oc = wt->shape[0]; s.kh = wt->shape[1]; s.kw = wt->shape[2];
    if (wt->shape[3] != s.ic)
        return lgk_fail(n, LG_ERR_FORMAT, err, "weights have %d input channels, the input %lld", wt->shape[3], (long long)s.ic);
    for (int i = 0; i < 4; i++)
        if (os[i] < 0 || os[i] > INT32_MAX) return lgk_fail(n, LG_ERR_FORMAT, err, "bad output_shape value %lld", (long long)os[i]);
    if (os[0] != s.nb) return lgk_fail(n, LG_ERR_FORMAT, err, "output_shape batch %lld != input batch %lld", (long long)os[0], (long long)s.nb);
    if (os[3] != s.oc) return lgk_fail(n, LG_ERR_FORMAT, err, "output_shape channels %lld != weights' %lld", (long long)os[3], (long long)s.oc);
    s.oh = os[1]; s.ow = os[2];
    s.sh = o->stride_h; s.sw = o->stride_w;
    if (s.sh < 1 || s.sw < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "stride %lldx%lld must be >= 1", (long long)s.sh, (long long)s.sw);
    if (o->padding != LG_PADDING_SAME && o->padding != LG_PADDING_VALID)
        return lgk_fail(n, LG_ERR_FORMAT, err, "unknown padding %d", o->padding);
    /* TFLite: the padding of the forward conv that maps the output back to the input */
    s.ph = lgk_cv_pad(s.sh, 1, s.oh, s.kh, lgk_cv_out_size(o->padding, s.oh, s.kh, s.sh, 1));
    s.pw = lgk_cv_pad(s.sw, 1, s.ow, s.kw, lgk_cv_out_size(o->padding, s.ow, s.kw, s.sw, 1));
    LG_TRY(lgk_cv_clamp(n, o->fused_activation_function, &s.cl, err));
    const lgk_tensor *bias;
    LG_TRY(lgk_cv_bias(n, 3, s.oc, &bias, err));
    s.bias_in = bias ? 3 : -1;
    s.x_in = 2;
    s.w_in = 1;
    int32_t shp[4] = {(int32_t)os[0], (int32_t)os[1], (int32_t)os[2], (int32_t)os[3]};
    LG_TRY(lgk_set_output(n, 0, LG_FLOAT32, shp, 4, err));
    return tconv_finish(n, &s, err);
}

/* MediaPipe's Convolution2DTransposeBias: inputs input, weights [oc,kh,kw,ic], bias [oc];
   custom_options = the first fields of TfLiteTransposeConvParams as raw little-endian int32:
   padding (TfLitePadding: 1 SAME, 2 VALID), stride_width, stride_height. No activation. */
lg_status lgk_tconv_bias_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in != 3) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 3 inputs, got %u", n->n_in);
    LG_TRY(lgk_cv_float_in(n, 0, 4, "input", err));
    LG_TRY(lgk_cv_float_in(n, 1, 4, "weights", err));
    LG_TRY(lgk_cv_float_in(n, 2, 1, "bias", err));
    LG_TRY(lgk_cv_one_output(n, err));
    const lg_op *op = n->op;
    if (!op->custom_options || op->n_custom_options < 12)
        return lgk_fail(n, LG_ERR_FORMAT, err, "custom options have %u bytes, expected at least 12 (padding, strides)",
                        op->n_custom_options);
    int32_t pad = (int32_t)lgi_rd_u32(op->custom_options);
    int32_t sw = (int32_t)lgi_rd_u32(op->custom_options + 4);
    int32_t sh = (int32_t)lgi_rd_u32(op->custom_options + 8);
    if (pad != 1 && pad != 2) return lgk_fail(n, LG_ERR_FORMAT, err, "unknown padding %d (1 SAME, 2 VALID)", pad);
    if (sh < 1 || sw < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "stride %dx%d must be >= 1", sh, sw);
    const lgk_tensor *x = n->in[0], *wt = n->in[1];
    tconv_state s;
    memset(&s, 0, sizeof s);
    s.nb = x->shape[0]; s.h = x->shape[1]; s.w = x->shape[2]; s.ic = x->shape[3];
    s.oc = wt->shape[0]; s.kh = wt->shape[1]; s.kw = wt->shape[2];
    s.sh = sh; s.sw = sw;
    if (wt->shape[3] != s.ic)
        return lgk_fail(n, LG_ERR_FORMAT, err, "weights have %d input channels, the input %lld", wt->shape[3], (long long)s.ic);
    if (n->in[2]->numel != s.oc)
        return lgk_fail(n, LG_ERR_FORMAT, err, "bias has %lld values, expected %lld", (long long)n->in[2]->numel, (long long)s.oc);
    if (s.h < 1 || s.w < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "input is empty");
    int64_t tph = 0, tpw = 0;
    if (pad == 1) {
        tph = s.kh - (s.h - 1) % s.sh - 1;
        tpw = s.kw - (s.w - 1) % s.sw - 1;
        if (tph < 0) tph = 0;
        if (tpw < 0) tpw = 0;
    }
    s.oh = s.sh * (s.h - 1) + s.kh - tph;
    s.ow = s.sw * (s.w - 1) + s.kw - tpw;
    s.ph = tph / 2;
    s.pw = tpw / 2;
    if (s.oh > INT32_MAX || s.ow > INT32_MAX) return lgk_fail(n, LG_ERR_LIMIT, err, "output too large");
    s.cl.on = 0;
    s.cl.lo = -INFINITY;
    s.cl.hi = INFINITY;
    s.bias_in = 2;
    s.x_in = 0;
    s.w_in = 1;
    int32_t shp[4] = {(int32_t)s.nb, (int32_t)s.oh, (int32_t)s.ow, (int32_t)s.oc};
    LG_TRY(lgk_set_output(n, 0, LG_FLOAT32, shp, 4, err));
    return tconv_finish(n, &s, err);
}

/* fp32: a gather in XNNPACK's order (lgk_cv_tconv_rows), rows split across workers */
typedef struct tconv_job {
    lgk_tconv_args a;
    const float *in, *w, *wt, *bias;
    int64_t ocp;
    lgk_clamp cl;
    int c4;
} tconv_job;

static void tconv_range(void *ud, int64_t r0, int64_t r1) {
    const tconv_job *j = ud;
    lgk_cv_tconv_rows(&j->a, j->in, j->w, j->wt, j->ocp, j->bias, j->cl, j->c4, r0, r1);
}

static void tconv_f32(const lgk_node *n, const tconv_state *s, const float *in, const float *w, const float *bias,
                      float *out, float *scratch) {
    const int64_t ocp = lgk_cv_pad8(s->oc), taps = s->kh * s->kw;
    for (int64_t t = 0; t < taps; t++)
        for (int64_t i = 0; i < s->ic; i++) {
            float *row = scratch + (t * s->ic + i) * ocp;
            for (int64_t o = 0; o < s->oc; o++) row[o] = w[(o * taps + t) * s->ic + i];
            for (int64_t o = s->oc; o < ocp; o++) row[o] = 0;
        }
    tconv_job j;
    j.a = (lgk_tconv_args){out, s->h, s->w, s->ic, s->oc, s->oh, s->ow, s->kh, s->kw, s->sh, s->sw, s->ph, s->pw};
    j.in = in;
    j.w = w;
    j.wt = scratch;
    j.bias = bias;
    j.ocp = ocp;
    j.cl = s->cl;
    j.c4 = lgk_cv_use_c4(s->oc, 0);
    lgk_parallel_for(n->ctx, s->nb * s->oh, 1, tconv_range, &j);
}

/* half: each output gathers its input pixels in the order TFLite's scatter visits them (input
   row, then column ascending; channels ascending), accumulating in half. Output pixels ox,
   ox + sw, ox + 2sw, ox + 3sw of a row whose valid taps are the same read input columns ix,
   ix + 1, ix + 2, ix + 3 at every tap: they are accumulated together (lgk_cv_acc_h4), each in
   its own order, so the result is the pixel-by-pixel one. */

/* bit kx set when tap column kx of output column ox reads an input column (kw <= 64) */
static uint64_t tconv_kx_mask(const tconv_state *s, int64_t ox) {
    uint64_t m = 0;
    for (int64_t kx = 0; kx < s->kw; kx++) {
        int64_t tx = ox + s->pw - kx;
        if (tx >= 0 && tx % s->sw == 0 && tx / s->sw < s->w) m |= (uint64_t)1 << kx;
    }
    return m;
}

/* accumulate np (1 or 4) output pixels starting at column ox, sw apart, of row oy into acc */
static void tconv_f16_px(const tconv_state *s, const float *in, const float *wt, int64_t b, int64_t oy, int64_t ox,
                         int np, float *acc) {
    const int64_t ocp = lgk_cv_pad8(s->oc);
    memset(acc, 0, (size_t)(np * ocp) * sizeof(float));
    /* ky = oy + ph - iy*sh: iy ascending is ky descending */
    for (int64_t ky = s->kh - 1; ky >= 0; ky--) {
        int64_t ty = oy + s->ph - ky;
        if (ty < 0 || ty % s->sh) continue;
        int64_t iy = ty / s->sh;
        if (iy >= s->h) continue;
        for (int64_t kx = s->kw - 1; kx >= 0; kx--) {
            int64_t tx = ox + s->pw - kx;
            if (tx < 0 || tx % s->sw) continue;
            int64_t ix = tx / s->sw;
            if (ix >= s->w) continue;
            const float *x = in + ((b * s->h + iy) * s->w + ix) * s->ic;
            const float *wk = wt + (ky * s->kw + kx) * s->ic * ocp;
            if (np == 4) lgk_cv_acc_h4(acc, ocp, x, s->ic, s->ic, wk, ocp);
            else lgk_cv_acc_h(acc, ocp, x, s->ic, wk, ocp);
        }
    }
}

static void tconv_f16(const tconv_state *s, const float *in, const float *w, const float *bias, float *out,
                      float *scratch) {
    const int64_t ocp = lgk_cv_pad8(s->oc), taps = s->kh * s->kw;
    float *wt = scratch, *acc = scratch + taps * s->ic * ocp;
    for (int64_t t = 0; t < taps; t++)
        for (int64_t i = 0; i < s->ic; i++) {
            float *row = wt + (t * s->ic + i) * ocp;
            for (int64_t o = 0; o < s->oc; o++) row[o] = w[(o * taps + t) * s->ic + i];
            for (int64_t o = s->oc; o < ocp; o++) row[o] = 0;
        }
    for (int64_t b = 0; b < s->nb; b++)
        for (int64_t oy = 0; oy < s->oh; oy++)
            for (int64_t r = 0; r < s->sw && r < s->ow; r++)
                for (int64_t ox = r; ox < s->ow;) {
                    int np = 1;
                    if (s->kw <= 64 && ox + 3 * s->sw < s->ow) {
                        uint64_t m = tconv_kx_mask(s, ox);
                        if (m == tconv_kx_mask(s, ox + s->sw) && m == tconv_kx_mask(s, ox + 2 * s->sw) &&
                            m == tconv_kx_mask(s, ox + 3 * s->sw))
                            np = 4;
                    }
                    tconv_f16_px(s, in, wt, b, oy, ox, np, acc);
                    for (int p = 0; p < np; p++) {
                        const float *a = acc + p * ocp;
                        float *o = out + ((b * s->oh + oy) * s->ow + ox + p * s->sw) * s->oc;
                        for (int64_t c = 0; c < s->oc; c++) {
                            float v = a[c];
                            if (bias) v = lg_round_half(v + bias[c]);
                            if (s->cl.on) {
                                if (v < s->cl.lo) v = s->cl.lo;
                                if (s->cl.hi < v) v = s->cl.hi;
                            }
                            o[c] = v;
                        }
                    }
                    ox += np * s->sw;
                }
}

lg_status lgk_tconv_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const tconv_state *s = n->state;
    const float *in = n->in[s->x_in]->data, *w = n->in[s->w_in]->data;
    const float *bias = s->bias_in >= 0 ? n->in[s->bias_in]->data : NULL;
    float *out = n->out[0]->data;
    if (s->nb * s->oh * s->ow * s->oc == 0) return LG_OK;
    if (n->ctx->prec == LG_PREC_F16) tconv_f16(s, in, w, bias, out, n->scratch);
    else tconv_f32(n, s, in, w, bias, out, n->scratch);
    return LG_OK;
}
