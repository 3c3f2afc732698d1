/* AVERAGE_POOL_2D and MAX_POOL_2D (TFLite's reference semantics: the average divides by the
 * number of in-bounds cells; the max starts from the lowest float). */
#include "run/k_conv.h"

lg_status lgk_pool_prepare(lgk_node *n, lg_error *err) {
    lg_status st;
    const lg_pool2d_options *o = lgk_cv_opts(n, LG_OPTS_POOL2D_OPTIONS, "Pool2DOptions", err, &st);
    if (!o) return st;
    if (n->n_in != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 1 input, got %u", n->n_in);
    LG_TRY(lgk_cv_float_in(n, 0, 4, "input", err));
    LG_TRY(lgk_cv_one_output(n, err));
    const lgk_tensor *x = n->in[0];
    lgk_pool_args a;
    memset(&a, 0, sizeof a);
    a.max = n->code == LG_OP_MAX_POOL_2D;
    a.h = x->shape[1]; a.w_ = x->shape[2]; a.c = x->shape[3];
    a.fh = o->filter_height; a.fw = o->filter_width; a.sh = o->stride_h; a.sw = o->stride_w;
    if (a.fh < 1 || a.fw < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "filter %lldx%lld must be >= 1", (long long)a.fh, (long long)a.fw);
    if (a.sh < 1 || a.sw < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "stride %lldx%lld must be >= 1", (long long)a.sh, (long long)a.sw);
    if (o->padding != LG_PADDING_SAME && o->padding != LG_PADDING_VALID)
        return lgk_fail(n, LG_ERR_FORMAT, err, "unknown padding %d", o->padding);
    LG_TRY(lgk_cv_clamp(n, o->fused_activation_function, &a.cl, err));
    a.oh = lgk_cv_out_size(o->padding, a.h, a.fh, a.sh, 1);
    a.ow = lgk_cv_out_size(o->padding, a.w_, a.fw, a.sw, 1);
    a.ph = lgk_cv_pad(a.sh, 1, a.h, a.fh, a.oh);
    a.pw = lgk_cv_pad(a.sw, 1, a.w_, a.fw, a.ow);
    int32_t shp[4] = {x->shape[0], (int32_t)a.oh, (int32_t)a.ow, (int32_t)a.c};
    LG_TRY(lgk_set_output(n, 0, LG_FLOAT32, shp, 4, err));
    if (!a.max && x->shape[0] > 0 && a.c > 0) {
        /* TFLite fails on a window with no input cell (it would divide by zero) */
        for (int64_t oy = 0; oy < a.oh; oy++) {
            int64_t y0 = oy * a.sh - a.ph;
            if (y0 >= a.h || y0 + a.fh <= 0) return lgk_fail(n, LG_ERR_FORMAT, err, "output row %lld averages no input cell", (long long)oy);
        }
        for (int64_t ox = 0; ox < a.ow; ox++) {
            int64_t x0 = ox * a.sw - a.pw;
            if (x0 >= a.w_ || x0 + a.fw <= 0) return lgk_fail(n, LG_ERR_FORMAT, err, "output column %lld averages no input cell", (long long)ox);
        }
    }
    a.half = n->ctx->prec == LG_PREC_F16;
    lgk_pool_args *ps = lgk_alloc(n, sizeof *ps);
    if (!ps) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    *ps = a;
    n->state = ps;
    return LG_OK;
}

static void pool_range(void *ud, int64_t r0, int64_t r1) { lgk_cv_pool_rows(ud, r0, r1); }

lg_status lgk_pool_eval(lgk_node *n, lg_error *err) {
    (void)err;
    lgk_pool_args a = *(const lgk_pool_args *)n->state;
    a.in = n->in[0]->data;
    a.out = n->out[0]->data;
    int64_t rows = (int64_t)n->out[0]->shape[0] * a.oh;
    if (rows == 0 || a.ow == 0 || a.c == 0) return LG_OK;
    lgk_parallel_for(n->ctx, rows, 1, pool_range, &a);
    return LG_OK;
}
