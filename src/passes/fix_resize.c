/* `fix` passes for RESIZE_BILINEAR with align_corners and for POW with a constant exponent.
 *
 *  resize-align-corners  RESIZE_BILINEAR with align_corners=true and half_pixel_centers=false
 *                     (rules.def resize-align-corners, the field notes' Mali list) of NHWC fp32
 *                     data -> the same interpolation as two constant matrices,
 *                       out[n, y, x, c] = sum_i Rh[y, i] sum_j Rw[x, j] in[n, i, j, c],
 *                     each row of Rh / Rw holding the two bilinear weights of TFLite's
 *                     resize_bilinear (reference_ops.h ResizeBilinear, ComputeInterpolationValues:
 *                     scale = (in - 1) / (out - 1) in float, src = o * scale, i0 = floor(src),
 *                     i1 = min(ceil(src), in - 1), weights 1 - (src - i0) and src - i0, all in
 *                     float, as litegpu's kernel computes them): TRANSPOSE to put W last,
 *                     FULLY_CONNECTED(keep_num_dims) by Rw, TRANSPOSE to put H last,
 *                     FULLY_CONNECTED by Rh, TRANSPOSE back; an axis whose matrix is the
 *                     identity (same size) is skipped. Rank <= 4 throughout. The weights are the
 *                     kernel's own; the order of the roundings differs (w0*a + w1*b in the
 *                     matmul, (b - a) * w1 + a in the kernel): a few ulps of the magnitude,
 *                     within the runner's exact bound (measured in the unit tests). Both flags
 *                     together (resize-flags) are refused by TFLite itself: nothing to preserve.
 *  pow-to-mul         POW(x, e) with a constant exponent, every element e, of an output the
 *                     shape of x -> exact forms: e = 1 x; 2 MUL(x, x); 3..8 MULs by repeated
 *                     squaring (x2 = x*x, x4 = x2*x2, x8 = x4*x4, and products of those); 0.5
 *                     SQRT; -0.5 RSQRT; -1 DIV(1, x); -2..-8 DIV(1, x^n) (a constant first
 *                     operand is fine: the elementwise parsers set runtime_tensor_is_second,
 *                     model_builder.cc ElementwiseOperationParser). Integer powers of
 *                     negative bases stay right (the MULs carry the sign). Each MUL rounds once,
 *                     so x^n differs from powf by at most a few ulps (x^7: 4 roundings). The
 *                     seed's field notes report POW banned on Mali (CPGA-Net); no rule of
 *                     src/check flags POW (both parsers take it), so this removes no finding:
 *                     it is an fp16 hardening (x^2 as POW is exp(2 log x) on some GPUs).
 *  pow-exp-log        POW(x, e), any other constant e, where x > 0 is proven (range.c) ->
 *                     EXP(LOG(x) * e), the seed's gamma fix. Approximate: y = exp(t) with t =
 *                     e ln x rounded to fp32 carries |t| 2^-24 relative error, and a finite y
 *                     needs t < 88.7, so the error stays under (88.7 + 3 ulps of log/exp)
 *                     2^-24 < 1e-5 of y. Without the proof (x may be <= 0) the POW is reported,
 *                     not rewritten (exp(e log x) is NaN for x < 0). */
#include <math.h>
#include <stdlib.h>

#include "passes/fix_util.h"

/* ------------------------------------------------------------------ resize-align-corners */

typedef struct resize {
    int32_t x, y;
    int32_t n, h, w, ch, oh, ow;
} resize;

static bool parse_resize(const lg_pass_ctx *c, uint32_t i, resize *r) {
    const lg_op *op = lgp_op(c, i);
    if (lgp_code(c, i) != LG_OP_RESIZE_BILINEAR || op->n_inputs != 2 || op->n_outputs != 1 || !op->opts ||
        op->opts_kind != LG_OPTS_RESIZE_BILINEAR_OPTIONS)
        return false;
    const lg_resize_bilinear_options *o = op->opts;
    if (!o->align_corners || o->half_pixel_centers) return false;
    r->x = op->inputs[0];
    r->y = op->outputs[0];
    if (r->x < 0 || lgp_tensor(c, r->x)->type != LG_FLOAT32 || !lgf_is_float(c, r->x) || !lgf_static(c, r->x) ||
        !lgf_static(c, r->y) || lgp_tensor(c, r->x)->rank != 4 || lg_tensor_is_const(c->m, c->sg, r->x))
        return false;
    int64_t sz[2];
    uint32_t n = 0;
    if (!lgp_const_ints(c, op->inputs[1], sz, 2, &n) || n != 2 || sz[0] < 1 || sz[1] < 1) return false;
    const lg_tensor *tx = lgp_tensor(c, r->x);
    r->n = tx->shape[0]; r->h = tx->shape[1]; r->w = tx->shape[2]; r->ch = tx->shape[3];
    r->oh = (int32_t)sz[0];
    r->ow = (int32_t)sz[1];
    if (r->h < 1 || r->w < 1) return false;
    /* the matrices stay small constants (16 Mi weights at most) */
    return (int64_t)r->oh * r->h + (int64_t)r->ow * r->w <= ((int64_t)1 << 24);
}

static bool resize_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    resize r;
    return parse_resize(c, i, &r);
}

/* The [out, in] interpolation matrix of one axis with align_corners (k_reduce_resize.c). */
static float *axis_matrix(int32_t in, int32_t out, bool *identity) {
    float *m = calloc((size_t)in * (size_t)out, sizeof(float));
    if (!m) return NULL;
    const float scale = out > 1 ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
    *identity = in == out;
    for (int32_t o = 0; o < out; o++) {
        float src = (float)o * scale;
        int32_t i0 = (int32_t)floorf(src), i1;
        if (i0 > in - 1) i0 = in - 1;
        i1 = (int32_t)ceilf(src);
        if (i1 > in - 1) i1 = in - 1;
        float d = src - (float)i0;
        m[(size_t)o * in + i0] += 1.0f - d;
        m[(size_t)o * in + i1] += d;
        if (m[(size_t)o * in + o % in] != 1.0f) *identity = false;
    }
    return m;
}

static lg_status transpose_to(lg_pass_ctx *c, int32_t like, const char *sfx, int32_t in,
                              const int32_t *perm, int32_t *out) {
    const lg_tensor *t = lgp_tensor(c, in);
    int32_t shape[4], pt = -1;
    for (int k = 0; k < 4; k++) shape[k] = t->shape[perm[k]];
    if (*out < 0) LG_TRY(lgf_tensor_like(c, like, sfx, shape, 4, out));
    char ps[48];
    snprintf(ps, sizeof ps, "%s_perm", sfx);
    LG_TRY(lgf_const_i32(c, like, ps, perm, 4, &pt));
    return lgf_op(c, LG_OP_TRANSPOSE, (const int32_t[]){in, pt}, 2, out, 1, NULL);
}

/* FULLY_CONNECTED of in [a, b, c, k] by the constant m [units, k]: [a, b, c, units]. */
static lg_status fc_by(lg_pass_ctx *c, int32_t like, const char *sfx, int32_t in, const float *m,
                       int32_t units, int32_t *out) {
    const lg_tensor *t = lgp_tensor(c, in);
    int32_t k = t->shape[3], wshape[2] = {units, k}, shape[4] = {t->shape[0], t->shape[1], t->shape[2], units};
    int32_t wt = -1;
    char ws[48];
    snprintf(ws, sizeof ws, "%s_weights", sfx);
    LG_TRY(lgf_const(c, like, ws, LG_FLOAT32, wshape, 2, m, (uint64_t)units * (uint64_t)k * 4, &wt));
    LG_TRY(lgf_tensor_like(c, like, sfx, shape, 4, out));
    lg_fully_connected_options fo;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
    fo.keep_num_dims = true;
    return lgf_op(c, LG_OP_FULLY_CONNECTED, (const int32_t[]){in, wt, -1}, 3, out, 1, &fo);
}

static lg_status resize_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    resize r;
    if (!parse_resize(c, i, &r)) return LG_OK;
    bool id_h = false, id_w = false;
    float *rh = axis_matrix(r.h, r.oh, &id_h), *rw = axis_matrix(r.w, r.ow, &id_w);
    lg_status st = LG_OK;
    if (!rh || !rw) {
        st = lgi_fail(c->err, LG_ERR_NOMEM, "resize-align-corners: out of memory");
    } else if (id_h && id_w) {
        bool done = false;
        st = lgp_bypass(c, g, i, r.x, &done);
        if (st == LG_OK && done) {
            c->delta->applied++;
            c->delta->ops_removed++;
        } else if (st == LG_OK) {
            lgp_skip(c, "op %u (RESIZE_BILINEAR): an identity resize between interface tensors", i);
        }
    } else {
        /* [N,H,W,C] -T(0,1,3,2)-> [N,H,C,W] -Rw-> [N,H,C,OW] -T(0,3,2,1)-> [N,OW,C,H] -Rh->
           [N,OW,C,OH] -T(0,3,1,2)-> [N,OH,OW,C]; with one axis only, its two transposes. */
        int32_t cur = r.x, t = -1;
        if (!id_w) {
            if (st == LG_OK) st = transpose_to(c, r.y, "ac_w_in", cur, (const int32_t[]){0, 1, 3, 2}, &t);
            if (st == LG_OK) st = fc_by(c, r.y, "ac_w", t, rw, r.ow, &cur);
            int32_t back = id_h ? r.y : -1;
            if (st == LG_OK && id_h) st = transpose_to(c, r.y, "ac_w_out", cur, (const int32_t[]){0, 1, 3, 2}, &back);
            if (st == LG_OK && !id_h) st = transpose_to(c, r.y, "ac_h_in", cur, (const int32_t[]){0, 3, 2, 1}, &back);
            cur = back;
        } else if (st == LG_OK) {
            int32_t h_in = -1;
            st = transpose_to(c, r.y, "ac_h_in", cur, (const int32_t[]){0, 2, 3, 1}, &h_in);
            cur = h_in;
        }
        if (!id_h) {
            int32_t fh = -1, out = r.y;
            if (st == LG_OK) st = fc_by(c, r.y, "ac_h", cur, rh, r.oh, &fh);
            /* [N,OW,C,OH] -> [N,OH,OW,C], or [N,W,C,OH] -> [N,OH,W,C]: the same permutation */
            if (st == LG_OK) st = transpose_to(c, r.y, "ac_out", fh, (const int32_t[]){0, 3, 1, 2}, &out);
        }
        if (st == LG_OK) st = lgf_done(c, i);
    }
    free(rh);
    free(rw);
    return st;
}

const lg_pass lgp_resize_align_corners = {
    "resize-align-corners",
    "RESIZE_BILINEAR align_corners=True -> constant interpolation matrices (two FULLY_CONNECTED)",
    {"resize-align-corners", NULL},
    true, 0, resize_match, resize_apply, false};

/* ------------------------------------------------------------------ pow */

typedef struct powop {
    int32_t x, y;
    float e;
} powop;

static bool parse_pow(const lg_pass_ctx *c, const lg_graph *g, uint32_t i, powop *p) {
    const lg_op *op = lgp_op(c, i);
    if (lgp_code(c, i) != LG_OP_POW || op->n_inputs != 2 || op->n_outputs != 1) return false;
    p->x = op->inputs[0];
    p->y = op->outputs[0];
    /* a constant base is fold-constants' (the rewrite would leave constant-only ops) */
    if (!lgf_is_float(c, p->x) || !lgf_is_float(c, p->y) || op->inputs[1] < 0 ||
        lg_tensor_is_const(c->m, c->sg, p->x) || !lgp_same_layout(lgp_tensor(c, p->x), lgp_tensor(c, p->y)))
        return false;
    float *d = NULL;
    bool fp16;
    if (!lgf_const_floats(c, g, op->inputs[1], &d, &fp16)) return false;
    int64_t n = lg_tensor_numel(lgp_tensor(c, op->inputs[1]));
    bool same = n >= 1;
    for (int64_t k = 1; k < n && same; k++) same = d[k] == d[0];
    p->e = same ? d[0] : NAN;
    free(d);
    return same && isfinite(p->e);
}

/* The exponents pow-to-mul writes exactly: +-1..8, +-0.5. */
static bool exact_exponent(float e) {
    float a = fabsf(e);
    return (a == 0.5f) || (a >= 1 && a <= 8 && a == floorf(a));
}

static bool pow_mul_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    powop p;
    return parse_pow(c, g, i, &p) && exact_exponent(p.e);
}

static lg_status binop(lg_pass_ctx *c, int32_t code, int32_t a, int32_t b, int32_t like,
                       const char *sfx, int32_t *out) {
    const lg_tensor *t = lgp_tensor(c, like);
    int32_t shape[LG_MAX_RANK];
    memcpy(shape, t->shape, t->rank * sizeof shape[0]);
    if (*out < 0) LG_TRY(lgf_tensor_like(c, like, sfx, shape, t->rank, out));
    if (code == LG_OP_MUL) {
        lg_mul_options o = {0};
        return lgf_op(c, code, (const int32_t[]){a, b}, 2, out, 1, &o);
    }
    lg_div_options o = {0};
    return lgf_op(c, code, (const int32_t[]){a, b}, 2, out, 1, &o);
}

/* x^n (1 <= n <= 8) by repeated squaring into *out (a new tensor unless *out >= 0). */
static lg_status power(lg_pass_ctx *c, int32_t x, int n, int32_t like, int32_t *out) {
    if (n == 1) {
        *out = x;
        return LG_OK;
    }
    int32_t sq[4] = {x, -1, -1, -1}; /* x, x^2, x^4, x^8 */
    for (int b = 1; (1 << b) <= n; b++) {
        char sfx[32];
        snprintf(sfx, sizeof sfx, "pow%d", 1 << b);
        int32_t *dst = &sq[b];
        if ((1 << b) == n) dst = out; /* the final square */
        LG_TRY(binop(c, LG_OP_MUL, sq[b - 1], sq[b - 1], like, sfx, dst));
        sq[b] = *dst;
    }
    int top = 0;
    while ((2 << top) <= n) top++;
    if ((1 << top) == n) return LG_OK;
    /* n = 2^top + rest: multiply the lower powers in, the last product into *out */
    int32_t acc = sq[top];
    int rest = n - (1 << top);
    for (int b = top - 1; b >= 0; b--) {
        if (!(rest & (1 << b))) continue;
        rest &= ~(1 << b);
        int32_t dst = rest ? -1 : *out;
        char sfx[32];
        snprintf(sfx, sizeof sfx, "pow_acc%d", b);
        LG_TRY(binop(c, LG_OP_MUL, acc, sq[b], like, sfx, &dst));
        acc = dst;
    }
    *out = acc;
    return LG_OK;
}

static lg_status pow_mul_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    powop p;
    if (!parse_pow(c, g, i, &p) || !exact_exponent(p.e)) return LG_OK;
    if (p.e == 1) {
        bool done = false;
        LG_TRY(lgp_bypass(c, g, i, p.x, &done));
        if (done) {
            c->delta->applied++;
            c->delta->ops_removed++;
        } else {
            lgp_skip(c, "op %u (POW x^1): an identity between interface tensors is kept", i);
        }
        return LG_OK;
    }
    int32_t y = p.y;
    if (fabsf(p.e) == 0.5f) {
        LG_TRY(lgf_op(c, p.e > 0 ? LG_OP_SQRT : LG_OP_RSQRT, &p.x, 1, &y, 1, NULL));
        return lgf_done(c, i);
    }
    int n = (int)fabsf(p.e);
    if (p.e > 0) {
        LG_TRY(power(c, p.x, n, p.y, &y));
        return lgf_done(c, i);
    }
    int32_t xn = n == 1 ? p.x : -1, one = -1;
    if (n > 1) LG_TRY(power(c, p.x, n, p.y, &xn));
    LG_TRY(lgf_const_scalar(c, p.y, "one", 1.0f, &one));
    LG_TRY(binop(c, LG_OP_DIV, one, xn, p.y, "recip", &y));
    return lgf_done(c, i);
}

const lg_pass lgp_pow_to_mul = {
    "pow-to-mul",
    "POW by a constant integer (|n| <= 8) or +-0.5 -> MUL chains, SQRT, RSQRT, DIV",
    {"field-banned-op", NULL},
    true, 0, pow_mul_match, pow_mul_apply, false};

static bool pow_exp_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    powop p;
    return parse_pow(c, g, i, &p) && !exact_exponent(p.e) && p.e != 0;
}

static lg_status pow_exp_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    powop p;
    if (!parse_pow(c, g, i, &p)) return LG_OK;
    if (!lgp_positive(c, g, p.x)) {
        lgp_skip(c, "op %u (POW x^%g): the base is not proven > 0, so exp(%g log x) may be NaN where "
                 "POW is not", i, (double)p.e, (double)p.e);
        return LG_OK;
    }
    const lg_tensor *t = lgp_tensor(c, p.x);
    int32_t shape[LG_MAX_RANK], lg = -1, sc = -1, e = -1;
    memcpy(shape, t->shape, t->rank * sizeof shape[0]);
    LG_TRY(lgf_tensor_like(c, p.y, "log", shape, t->rank, &lg));
    LG_TRY(lgf_op(c, LG_OP_LOG, &p.x, 1, &lg, 1, NULL));
    LG_TRY(lgf_const_scalar(c, p.y, "exponent", p.e, &e));
    LG_TRY(binop(c, LG_OP_MUL, lg, e, p.y, "scaled_log", &sc));
    LG_TRY(lgf_op(c, LG_OP_EXP, &sc, 1, &p.y, 1, NULL));
    return lgf_done(c, i);
}

const lg_pass lgp_pow_exp_log = {
    "pow-exp-log",
    "POW by another constant, base proven > 0 -> EXP(LOG(x) * e) (approximate, the seed's gamma fix)",
    {"field-banned-op", NULL},
    false, 1e-5, pow_exp_match, pow_exp_apply, false};
