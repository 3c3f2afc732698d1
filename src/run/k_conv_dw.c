/* DEPTHWISE_CONV_2D: a direct NHWC loop, channels innermost (k_conv_tmpl_dw.h). */
#include "run/k_conv.h"

lg_status lgk_dwconv_prepare(lgk_node *n, lg_error *err) {
    lg_status st;
    const lg_depthwise_conv2d_options *o =
        lgk_cv_opts(n, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, "DepthwiseConv2DOptions", err, &st);
    if (!o) return st;
    if (n->n_in < 2 || n->n_in > 3) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 2 or 3 inputs, got %u", n->n_in);
    LG_TRY(lgk_cv_float_in(n, 0, 4, "input", err));
    LG_TRY(lgk_cv_float_in(n, 1, 4, "filter", err));
    LG_TRY(lgk_cv_one_output(n, err));
    const lgk_tensor *x = n->in[0], *f = n->in[1];
    lgk_dw_args a;
    memset(&a, 0, sizeof a);
    int64_t nb = x->shape[0], oc = f->shape[3];
    a.h = x->shape[1]; a.w_ = x->shape[2]; a.c = x->shape[3];
    a.kh = f->shape[1]; a.kw = f->shape[2];
    if (f->shape[0] != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "filter dimension 0 is %d, expected 1", f->shape[0]);
    if (a.kh < 1 || a.kw < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "filter is empty");
    /* TFLite derives the multiplier from the shapes (the option is redundant) */
    if (a.c == 0 || oc % a.c != 0)
        return lgk_fail(n, LG_ERR_FORMAT, err, "filter channels %lld are not a multiple of input channels %lld",
                        (long long)oc, (long long)a.c);
    a.mult = oc / a.c;
    a.sh = o->stride_h; a.sw = o->stride_w; a.dh = o->dilation_h_factor; a.dw = o->dilation_w_factor;
    if (a.sh < 1 || a.sw < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "stride %lldx%lld must be >= 1", (long long)a.sh, (long long)a.sw);
    if (a.dh < 1 || a.dw < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "dilation %lldx%lld must be >= 1", (long long)a.dh, (long long)a.dw);
    if (o->padding != LG_PADDING_SAME && o->padding != LG_PADDING_VALID)
        return lgk_fail(n, LG_ERR_FORMAT, err, "unknown padding %d", o->padding);
    LG_TRY(lgk_cv_clamp(n, o->fused_activation_function, &a.cl, err));
    const lgk_tensor *bias;
    LG_TRY(lgk_cv_bias(n, 2, oc, &bias, err));
    a.oh = lgk_cv_out_size(o->padding, a.h, a.kh, a.sh, a.dh);
    a.ow = lgk_cv_out_size(o->padding, a.w_, a.kw, a.sw, a.dw);
    a.ph = lgk_cv_pad(a.sh, a.dh, a.h, a.kh, a.oh);
    a.pw = lgk_cv_pad(a.sw, a.dw, a.w_, a.kw, a.ow);
    int32_t shp[4] = {(int32_t)nb, (int32_t)a.oh, (int32_t)a.ow, (int32_t)oc};
    LG_TRY(lgk_set_output(n, 0, LG_FLOAT32, shp, 4, err));
    a.half = n->ctx->prec == LG_PREC_F16;
    lgk_dw_args *ps = lgk_alloc(n, sizeof *ps);
    if (!ps) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    *ps = a;
    n->state = ps;
    lgk_claim_half(n); /* LG_PREC_F16: every path ends in h(...) and a clamp to halves */
    return LG_OK;
}

static void dw_range(void *ud, int64_t r0, int64_t r1) { lgk_cv_dw_rows(ud, r0, r1); }

lg_status lgk_dwconv_eval(lgk_node *n, lg_error *err) {
    (void)err;
    lgk_dw_args a = *(const lgk_dw_args *)n->state;
    a.in = n->in[0]->data;
    a.w = n->in[1]->data;
    a.bias = n->n_in > 2 && n->in[2] ? n->in[2]->data : NULL;
    a.out = n->out[0]->data;
    int64_t rows = (int64_t)n->out[0]->shape[0] * a.oh;
    if (rows == 0 || a.ow == 0 || a.c == 0) return LG_OK;
    lgk_parallel_for(n->ctx, rows, 1, dw_range, &a);
    return LG_OK;
}
