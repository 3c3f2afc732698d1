/* Lowerings of reductions, Softmax/LogSoftmax, pools and the norms.
 *
 *  - Reduce*: axes from the attribute (before opset 13 for ReduceSum, 18 for the others) or
 *    the input; empty axes reduce everything unless noop_with_empty_axes.
 *  - Softmax/LogSoftmax: before opset 13 the input is flattened to 2-D at `axis`; since,
 *    `axis` is one dimension (moved last by a TRANSPOSE when it is not).
 *  - MaxPool/AveragePool 1-D and 2-D: PAD (-inf for max, 0 for average) + VALID pool between
 *    TRANSPOSEs; ceil_mode extends the end padding; an average's divisor (padding counted or
 *    not) is corrected by a constant per-position factor when it is not the window size.
 *    Dilations, 3-D, a max of integers and MaxPool's Indices: PADV2 + per-axis STRIDED_SLICEs
 *    combined by MAXIMUM or ADD (pool_slices).
 *  - LRN: LOCAL_RESPONSE_NORMALIZATION (odd size) or an AVERAGE_POOL_2D square sum (even);
 *    MeanVarianceNormalization as its function body.
 *  - LayerNormalization / InstanceNormalization: MEAN, SUB, MUL, MEAN, ADD eps, RSQRT, MUL.
 *  - GroupNormalization: x [N, C, D...] reshaped to [N, G, C/G * D...], normalized over the
 *    last axis as above, then the scale and bias: per group ([G]) at opset 18-20, per
 *    channel ([C]) since opset 21 (the change of onnx/docs/Changelog.md, GroupNormalization-21),
 *    applied on the right view. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "import/import_impl.h"

static bool is(li_ctx *c, const char *s) { return lg_onnx_str_eq(c->node->op_type, s); }

/* ------------------------------------------------------------------ Reduce* */

static int32_t reduce_op(li_ctx *c, int32_t code, int32_t x, const int64_t *axes, uint32_t n, bool keep) {
    lg_reducer_options o = {keep};
    int32_t at = li_ki32(c, axes, n);
    return LI_OP(c, code, &o, -1, x, at);
}

static lg_status lower_reduce(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    int r = li_rank(c, x->t);
    int64_t axes[LG_MAX_RANK];
    uint32_t n = 0;
    bool attr_form = is(c, "ReduceSum") ? c->opset < 13 : c->opset < 18;
    if (attr_form) {
        int k = li_attr_ints(c->node, "axes", axes, LG_MAX_RANK);
        n = k > 0 ? (uint32_t)k : 0;
    } else {
        const li_val *a = li_in(c, 1);
        if (a && !li_const_ints(c, a->t, axes, LG_MAX_RANK, &n))
            return li_unsupported(c, "axes computed at run time");
    }
    bool keep = li_attr_i(c->node, "keepdims", 1) != 0;
    if (n == 0) {
        if (!attr_form && li_attr_i(c->node, "noop_with_empty_axes", 0))
            return li_out(c, 0, x->t, x->onnx_type);
        for (int i = 0; i < r; i++) axes[i] = i;
        n = (uint32_t)r;
    }
    for (uint32_t i = 0; i < n; i++) {
        axes[i] = li_norm_axis(axes[i], r);
        if (axes[i] < 0 || axes[i] >= r) return li_bad(c, LG_ERR_FORMAT, "axis");
    }
    int32_t t = x->t, y;
    bool fl = li_type(c, t) == LG_FLOAT32;
    if (is(c, "ReduceMean")) {
        if (!fl) return li_unsupported(c, "non-float input");
        y = reduce_op(c, LG_OP_MEAN, t, axes, n, keep);
    } else if (is(c, "ReduceSum")) {
        y = reduce_op(c, LG_OP_SUM, t, axes, n, keep);
    } else if (is(c, "ReduceMax")) {
        y = reduce_op(c, LG_OP_REDUCE_MAX, t, axes, n, keep);
    } else if (is(c, "ReduceMin")) {
        y = reduce_op(c, LG_OP_REDUCE_MIN, t, axes, n, keep);
    } else if (is(c, "ReduceProd")) {
        y = reduce_op(c, LG_OP_REDUCE_PROD, t, axes, n, keep);
    } else if (is(c, "ReduceSumSquare")) {
        y = reduce_op(c, LG_OP_SUM, li_binary(c, LG_OP_MUL, t, t), axes, n, keep);
    } else if (is(c, "ReduceL1")) {
        y = reduce_op(c, LG_OP_SUM, li_unary(c, LG_OP_ABS, t), axes, n, keep);
    } else if (!fl) {
        return li_unsupported(c, "non-float input");
    } else if (is(c, "ReduceL2")) {
        y = li_unary(c, LG_OP_SQRT, reduce_op(c, LG_OP_SUM, li_binary(c, LG_OP_MUL, t, t), axes, n, keep));
    } else if (is(c, "ReduceLogSum")) {
        y = li_unary(c, LG_OP_LOG, reduce_op(c, LG_OP_SUM, t, axes, n, keep));
    } else if (is(c, "ReduceLogSumExp")) {
        /* max + log(sum(exp(x - max))): the same value without overflow */
        int32_t mx = reduce_op(c, LG_OP_REDUCE_MAX, t, axes, n, true);
        int32_t e = li_unary(c, LG_OP_EXP, li_binary(c, LG_OP_SUB, t, mx));
        int32_t l = li_unary(c, LG_OP_LOG, reduce_op(c, LG_OP_SUM, e, axes, n, true));
        y = li_binary(c, LG_OP_ADD, l, mx);
        if (!keep) {
            lg_shape s = li_shape(c, y);
            int64_t d[LG_MAX_RANK];
            uint32_t k = 0;
            for (int i = 0; i < s.rank; i++) {
                bool red = false;
                for (uint32_t j = 0; j < n; j++) red |= axes[j] == i;
                if (!red) d[k++] = s.dim[i];
            }
            y = li_reshape(c, y, d, k);
        }
    } else {
        return li_unsupported(c, "no lowering");
    }
    return li_out(c, 0, y, x->onnx_type);
}

/* ------------------------------------------------------------------ Softmax */

static lg_status lower_softmax(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    if (li_type(c, x->t) != LG_FLOAT32) return li_unsupported(c, "non-float input");
    bool logsm = is(c, "LogSoftmax");
    lg_shape s = li_shape(c, x->t);
    int r = s.rank;
    int32_t t = x->t, y;
    lg_softmax_options so = {1.0f};
    lg_log_softmax_options lo = {0};
    if (r == 0) return li_bad(c, LG_ERR_FORMAT, "scalar input");
    if (c->opset < 13) {
        int64_t axis = li_norm_axis(li_attr_i(c->node, "axis", 1), r);
        int64_t d[2] = {1, 1};
        for (int i = 0; i < r; i++) d[i < axis ? 0 : 1] *= s.dim[i];
        int32_t f = li_reshape(c, t, d, 2);
        y = logsm ? li_op(c, LG_OP_LOG_SOFTMAX, &f, 1, &lo, -1) : li_op(c, LG_OP_SOFTMAX, &f, 1, &so, -1);
        int64_t back[LG_MAX_RANK];
        for (int i = 0; i < r; i++) back[i] = s.dim[i];
        return li_out(c, 0, li_reshape(c, y, back, (uint32_t)r), x->onnx_type);
    }
    int64_t axis = li_norm_axis(li_attr_i(c->node, "axis", -1), r);
    if (axis < 0 || axis >= r) return li_bad(c, LG_ERR_FORMAT, "axis");
    int perm[LG_MAX_RANK];
    for (int i = 0; i < r; i++) perm[i] = i;
    perm[axis] = r - 1;
    perm[r - 1] = (int)axis;
    t = li_transpose(c, t, perm, r);
    y = logsm ? li_op(c, LG_OP_LOG_SOFTMAX, &t, 1, &lo, -1) : li_op(c, LG_OP_SOFTMAX, &t, 1, &so, -1);
    return li_out(c, 0, li_transpose(c, y, perm, r), x->onnx_type);
}

/* ------------------------------------------------------------------ pools */

/* Pool geometry for nsp (1 to 3) spatial dims, mapped to the last of 3 slots (1-D: [1, 1, W],
   2-D: [1, H, W]); ek the effective (dilated) kernel (k - 1) d + 1. */
typedef struct pool_geom {
    int nsp;
    int64_t in[3], k[3], s[3], d[3], pb[3], pe[3], pe2[3], out[3], ek[3];
} pool_geom;

static lg_status pool_read(li_ctx *c, int32_t x, pool_geom *g) {
    int r = li_rank(c, x), nsp = r - 2, off = 3 - nsp;
    g->nsp = nsp;
    for (int i = 0; i < 3; i++) g->in[i] = g->k[i] = g->s[i] = g->d[i] = 1, g->pb[i] = g->pe[i] = 0;
    int64_t v[8];
    int n = li_attr_ints(c->node, "kernel_shape", v, 8);
    if (n != nsp) return li_bad(c, LG_ERR_FORMAT, "kernel_shape");
    for (int i = 0; i < nsp; i++) g->k[off + i] = v[i], g->in[off + i] = li_dim(c, x, 2 + i);
    if ((n = li_attr_ints(c->node, "strides", v, 8)) >= 0) {
        if (n != nsp) return li_bad(c, LG_ERR_FORMAT, "strides");
        for (int i = 0; i < nsp; i++) g->s[off + i] = v[i];
    }
    if ((n = li_attr_ints(c->node, "pads", v, 8)) >= 0) {
        if (n != 2 * nsp) return li_bad(c, LG_ERR_FORMAT, "pads");
        for (int i = 0; i < nsp; i++) g->pb[off + i] = v[i], g->pe[off + i] = v[nsp + i];
    }
    if ((n = li_attr_ints(c->node, "dilations", v, 8)) >= 0) {
        if (n != nsp) return li_bad(c, LG_ERR_FORMAT, "dilations");
        for (int i = 0; i < nsp; i++) g->d[off + i] = v[i];
    }
    for (int i = 0; i < 3; i++) {
        if (g->k[i] < 1 || g->s[i] < 1 || g->d[i] < 1 || g->pb[i] < 0 || g->pe[i] < 0 || g->k[i] > 4096)
            return li_bad(c, LG_ERR_FORMAT, "bad kernel_shape, strides, dilations or pads");
        g->ek[i] = (g->k[i] - 1) * g->d[i] + 1;
    }
    bool ceil_mode = li_attr_i(c->node, "ceil_mode", 0) != 0;
    const lg_onnx_attr *ap = li_attr(c->node, "auto_pad");
    if (ap && !lg_onnx_str_eq(ap->s, "NOTSET")) {
        bool upper = lg_onnx_str_eq(ap->s, "SAME_UPPER"), valid = lg_onnx_str_eq(ap->s, "VALID");
        if (!upper && !valid && !lg_onnx_str_eq(ap->s, "SAME_LOWER")) return li_bad(c, LG_ERR_FORMAT, "auto_pad");
        for (int i = 0; i < 3; i++) {
            g->pb[i] = g->pe[i] = 0;
            if (valid) continue;
            int64_t out = (g->in[i] + g->s[i] - 1) / g->s[i], total = (out - 1) * g->s[i] + g->ek[i] - g->in[i];
            if (total < 0) total = 0;
            g->pb[i] = upper ? total / 2 : total - total / 2;
            g->pe[i] = total - g->pb[i];
        }
    }
    /* output size (ONNX: floor or ceil of (in + pads - ek) / s, + 1) and the end padding
       the windows need to produce it */
    for (int i = 0; i < 3; i++) {
        int64_t span = g->in[i] + g->pb[i] + g->pe[i] - g->ek[i];
        if (span < 0) return li_bad(c, LG_ERR_FORMAT, "kernel larger than the padded input");
        g->out[i] = (ceil_mode ? (span + g->s[i] - 1) / g->s[i] : span / g->s[i]) + 1;
        /* torch/onnx: the last window must start inside the input or the begin padding */
        if (ceil_mode && (g->out[i] - 1) * g->s[i] >= g->in[i] + g->pb[i]) g->out[i]--;
        g->pe2[i] = (g->out[i] - 1) * g->s[i] + g->ek[i] - g->in[i] - g->pb[i];
        if (g->pe2[i] < 0) g->pe2[i] = 0;
    }
    return c->st;
}

/* The average's divisor at each output position, per axis (a product over the axes): the
   window taps inside [0, in) (count_include_pad 0) or inside the explicit padding
   [-pb, in + pe) (1). */
static int64_t pool_count(const pool_geom *g, int i, int64_t o, bool count_pad) {
    int64_t lo = count_pad ? -g->pb[i] : 0, hi = count_pad ? g->in[i] + g->pe[i] : g->in[i], n = 0;
    for (int64_t j = 0; j < g->k[i]; j++) {
        int64_t p = o * g->s[i] - g->pb[i] + j * g->d[i];
        if (p >= lo && p < hi) n++;
    }
    return n ? n : 1;
}

/* The lowest value of x's type (PADV2's pad for a max) */
static int32_t lowest_of(li_ctx *c, int32_t x) {
    switch (li_type(c, x)) {
    case LG_FLOAT32: return li_kf(c, -INFINITY);
    case LG_INT32: return li_kscalar_like(c, x, (double)INT32_MIN);
    case LG_INT16: return li_kscalar_like(c, x, (double)INT16_MIN);
    case LG_INT8: return li_kscalar_like(c, x, (double)INT8_MIN);
    default: return li_kscalar_like(c, x, 0); /* UINT8 */
    }
}

/* t[..., begin : begin + (n - 1) step + 1 : step, ...] on axis a */
static int32_t slice_axis(li_ctx *c, int32_t t, int a, int64_t begin, int64_t step, int64_t n) {
    int r = li_rank(c, t);
    int64_t b[LG_MAX_RANK], e[LG_MAX_RANK], st[LG_MAX_RANK];
    for (int q = 0; q < r; q++) b[q] = 0, e[q] = li_dim(c, t, q), st[q] = 1;
    b[a] = begin;
    e[a] = begin + (n - 1) * step + 1;
    st[a] = step;
    return li_slice(c, t, b, e, st, 0);
}

/* MaxPool's Indices: the position in the flattened input, ((n C + c) D + d) H + h) W + w
   (storage_order 0) or with the spatial dims in reverse order (1, column major), padding
   excluded. As a constant over the padded spatial positions ([1, 1, P...], -1 in the
   padding; the batch and channel part added at the end). */
static int32_t pool_index_table(li_ctx *c, const pool_geom *g, bool col_major) {
    int off = 3 - g->nsp;
    int64_t p[3], n = 1, stride[3], acc = 1;
    for (int i = 0; i < 3; i++) p[i] = g->in[i] + g->pb[i] + g->pe2[i], n *= p[i];
    for (int k = 0; k < 3; k++) {
        int i = col_major ? k : 2 - k; /* row major: W fastest */
        stride[i] = acc;
        acc *= g->in[i];
    }
    int32_t *v = malloc((size_t)n * sizeof *v);
    if (!v) {
        c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        return -1;
    }
    for (int64_t q0 = 0; q0 < p[0]; q0++)
        for (int64_t q1 = 0; q1 < p[1]; q1++)
            for (int64_t q2 = 0; q2 < p[2]; q2++) {
                int64_t q[3] = {q0 - g->pb[0], q1 - g->pb[1], q2 - g->pb[2]}, idx = 0;
                for (int i = 0; i < 3 && idx >= 0; i++)
                    idx = q[i] < 0 || q[i] >= g->in[i] ? -1 : idx + q[i] * stride[i];
                v[(q0 * p[1] + q1) * p[2] + q2] = (int32_t)idx;
            }
    int64_t d[5] = {1, 1, p[0], p[1], p[2]};
    int64_t *dd = d + off;
    dd[0] = dd[1] = 1;
    int32_t t = li_konst(c, LG_INT32, dd, (uint32_t)(2 + g->nsp), v, (uint64_t)n * 4);
    free(v);
    return t;
}

/* Pools TFLite has no op for (dilations, 3-D, a max of integers, MaxPool's Indices): PADV2
   (-inf or the type's lowest for a max, 0 for an average) to [-pb, in + pe2), then per
   spatial axis the combination (MAXIMUM or ADD) of the k STRIDED_SLICEs j d, j d + s, ...
   (j < k): a window is the product of its per-axis taps, so axis by axis gives each output the
   max (exactly) or the sum of its window; an average is then divided by its count
   (pool_count). Indices (*idx not NULL): the index table sliced alongside, a tap's index
   taken where its value is greater than the running max (SELECT_V2), the last axis first:
   the first maximum in row-major scan order, as ONNX's reference and onnxruntime's loops
   (each keeps a new value only when it is greater). */
static int32_t pool_slices(li_ctx *c, int32_t x, const pool_geom *g, bool maxp, bool count_pad, bool col_major,
                           int32_t *idx) {
    int r = li_rank(c, x), off = 3 - g->nsp;
    int32_t p32[2 * LG_MAX_RANK] = {0};
    bool padded = false;
    for (int i = 0; i < g->nsp; i++) {
        p32[2 * (2 + i)] = (int32_t)g->pb[off + i];
        p32[2 * (2 + i) + 1] = (int32_t)g->pe2[off + i];
        padded |= g->pb[off + i] || g->pe2[off + i];
    }
    int32_t t = x, ti = idx ? pool_index_table(c, g, col_major) : -1;
    if (padded) {
        int32_t pt = li_konst(c, LG_INT32, (const int64_t[]){r, 2}, 2, p32, (uint64_t)r * 8);
        t = LI_OP(c, LG_OP_PADV2, NULL, -1, t, pt, maxp ? lowest_of(c, x) : li_kscalar_like(c, x, 0));
    }
    for (int i = g->nsp - 1; i >= 0 && LI_OK(c); i--) {
        int a = 2 + i, gi = off + i;
        int32_t acc = -1, acci = -1;
        for (int64_t j = 0; j < g->k[gi] && LI_OK(c); j++) {
            int32_t sl = slice_axis(c, t, a, j * g->d[gi], g->s[gi], g->out[gi]);
            if (idx) {
                int32_t si = slice_axis(c, ti, a, j * g->d[gi], g->s[gi], g->out[gi]);
                acci = acc < 0 ? si : LI_OP(c, LG_OP_SELECT_V2, NULL, -1, li_binary(c, LG_OP_GREATER, sl, acc), si, acci);
            }
            acc = acc < 0 ? sl : li_binary(c, maxp ? LG_OP_MAXIMUM : LG_OP_ADD, acc, sl);
        }
        t = acc;
        ti = acci;
    }
    if (idx && LI_OK(c)) {
        /* + (n C + c) * the spatial size */
        int64_t N = li_dim(c, x, 0), C = li_dim(c, x, 1), sp = g->in[0] * g->in[1] * g->in[2];
        int32_t *bv = malloc((size_t)(N * C) * sizeof *bv);
        if (!bv) {
            c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
            return -1;
        }
        for (int64_t q = 0; q < N * C; q++) bv[q] = (int32_t)(q * sp);
        int64_t bd[LG_MAX_RANK] = {N, C, 1, 1, 1};
        int32_t bt = li_konst(c, LG_INT32, bd, (uint32_t)r, bv, (uint64_t)(N * C) * 4);
        free(bv);
        *idx = li_binary(c, LG_OP_ADD, ti, bt);
    }
    if (maxp || !LI_OK(c)) return t;
    int64_t n = g->out[0] * g->out[1] * g->out[2];
    float *f = malloc((size_t)n * sizeof *f);
    if (!f) {
        c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        return -1;
    }
    for (int64_t o0 = 0; o0 < g->out[0]; o0++)
        for (int64_t o1 = 0; o1 < g->out[1]; o1++)
            for (int64_t o2 = 0; o2 < g->out[2]; o2++)
                f[(o0 * g->out[1] + o1) * g->out[2] + o2] =
                    (float)(pool_count(g, 0, o0, count_pad) * pool_count(g, 1, o1, count_pad) * pool_count(g, 2, o2, count_pad));
    int32_t ft = li_kf32(c, g->out + off, (uint32_t)g->nsp, f);
    free(f);
    return li_binary(c, LG_OP_DIV, t, ft);
}

/* MaxPool/AveragePool in 1-D and 2-D as one VALID pool between TRANSPOSEs, after an explicit
   PAD (-inf for max, 0 for average); an average's divisor (padding counted or not) corrected
   by a constant per-position factor when it is not the window size. */
static int32_t pool_native(li_ctx *c, int32_t x, const pool_geom *g, bool maxp, bool count_pad) {
    int r = li_rank(c, x);
    const int64_t *k = g->k + 1, *s = g->s + 1, *pb = g->pb + 1, *pe2 = g->pe2 + 1, *out = g->out + 1;
    int32_t t = r == 4 ? x : li_reshape(c, x, (const int64_t[]){li_dim(c, x, 0), li_dim(c, x, 1), 1, li_dim(c, x, 2)}, 4);
    bool padded = pb[0] || pb[1] || pe2[0] || pe2[1];
    if (padded) {
        int32_t p32[8] = {0, 0, 0, 0, (int32_t)pb[0], (int32_t)pe2[0], (int32_t)pb[1], (int32_t)pe2[1]};
        int32_t pt = li_konst(c, LG_INT32, (const int64_t[]){4, 2}, 2, p32, sizeof p32);
        if (maxp) t = LI_OP(c, LG_OP_PADV2, NULL, -1, t, pt, li_kf(c, -INFINITY));
        else t = LI_OP(c, LG_OP_PAD, NULL, -1, t, pt);
    }
    lg_pool2d_options o;
    lg_opts_init(LG_OPTS_POOL2D_OPTIONS, &o, sizeof o);
    o.padding = LG_PADDING_VALID;
    o.stride_h = (int32_t)s[0], o.stride_w = (int32_t)s[1];
    o.filter_height = (int32_t)k[0], o.filter_width = (int32_t)k[1];
    int32_t y = li_op(c, maxp ? LG_OP_MAX_POOL_2D : LG_OP_AVERAGE_POOL_2D, (const int32_t[]){li_to_nhwc(c, t)}, 1, &o, -1);
    y = li_to_nchw(c, y);
    if (!maxp && padded && LI_OK(c)) {
        float *f = malloc((size_t)(out[0] * out[1]) * sizeof *f);
        if (!f) {
            c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
            return -1;
        }
        bool all_one = true;
        for (int64_t oy = 0; oy < out[0]; oy++)
            for (int64_t ox = 0; ox < out[1]; ox++) {
                /* the pool divided by k_h * k_w */
                double fac = (double)(k[0] * k[1]) / (double)(pool_count(g, 1, oy, count_pad) * pool_count(g, 2, ox, count_pad));
                f[oy * out[1] + ox] = (float)fac;
                if (fac != 1.0) all_one = false;
            }
        if (!all_one) {
            int32_t ft = li_kf32(c, (const int64_t[]){out[0], out[1]}, 2, f);
            y = li_binary(c, LG_OP_MUL, y, ft);
        }
        free(f);
    }
    if (r == 3) y = li_reshape(c, y, (const int64_t[]){li_dim(c, y, 0), li_dim(c, y, 1), li_dim(c, y, 3)}, 3);
    return y;
}

static lg_status lower_pool(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    bool maxp = is(c, "MaxPool"), with_idx = maxp && li_has_out(c, 1);
    int r = li_rank(c, x->t);
    if (r < 3 || r > 5) return li_unsupported(c, "%d-D pooling (1-D to 3-D)", r - 2);
    lg_dtype ty = li_type(c, x->t);
    bool ints = ty == LG_INT32 || ty == LG_INT16 || ty == LG_INT8 || ty == LG_UINT8;
    if (ty != LG_FLOAT32 && !(maxp && ints))
        return li_unsupported(c, "%s input (%s)", lg_onnx_dtype_name(x->onnx_type), maxp ? "float and integers" : "float");
    /* storage_order (MaxPool-8 on) only orders the Indices */
    bool col_major = li_attr_i(c->node, "storage_order", 0) != 0;
    pool_geom g;
    LG_TRY(pool_read(c, x->t, &g));
    bool count_pad = li_attr_i(c->node, "count_include_pad", 0) != 0;
    bool dilated = g.d[0] != 1 || g.d[1] != 1 || g.d[2] != 1;
    int32_t idx = -1;
    int32_t y = r == 5 || dilated || ty != LG_FLOAT32 || with_idx
                    ? pool_slices(c, x->t, &g, maxp, count_pad, col_major, with_idx ? &idx : NULL)
                    : pool_native(c, x->t, &g, maxp, count_pad);
    LG_TRY(li_out(c, 0, y, x->onnx_type));
    return li_out(c, 1, idx, LG_ONNX_INT64);
}

static lg_status lower_global_pool(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    if (li_type(c, x->t) != LG_FLOAT32) return li_unsupported(c, "non-float input");
    int r = li_rank(c, x->t);
    int64_t axes[LG_MAX_RANK];
    uint32_t n = 0;
    for (int i = 2; i < r; i++) axes[n++] = i;
    if (!n) return li_out(c, 0, x->t, x->onnx_type);
    int32_t y = reduce_op(c, is(c, "GlobalMaxPool") ? LG_OP_REDUCE_MAX : LG_OP_MEAN, x->t, axes, n, true);
    return li_out(c, 0, y, x->onnx_type);
}

/* ------------------------------------------------------------------ norms */

/* (x - mean) * rsqrt(mean((x - mean)^2) + eps) over axes; returns the normalized tensor and
   the mean and inverse std (keepdims) */
static int32_t normalize(li_ctx *c, int32_t x, const int64_t *axes, uint32_t n, float eps, int32_t *mean,
                         int32_t *inv) {
    int32_t mu = reduce_op(c, LG_OP_MEAN, x, axes, n, true);
    int32_t d = li_binary(c, LG_OP_SUB, x, mu);
    int32_t var = reduce_op(c, LG_OP_MEAN, li_binary(c, LG_OP_MUL, d, d), axes, n, true);
    int32_t is = li_unary(c, LG_OP_RSQRT, li_binary(c, LG_OP_ADD, var, li_kf(c, eps)));
    if (mean) *mean = mu;
    if (inv) *inv = is;
    return li_binary(c, LG_OP_MUL, d, is);
}

static lg_status lower_layernorm(li_ctx *c) {
    const li_val *x = li_need(c, 0), *sc = li_need(c, 1), *b = li_in(c, 2);
    LI_TRY(c);
    if (li_type(c, x->t) != LG_FLOAT32) return li_unsupported(c, "non-float input");
    if (li_attr_i(c->node, "stash_type", 1) != 1) return li_unsupported(c, "stash_type");
    int r = li_rank(c, x->t);
    int64_t axis = li_norm_axis(li_attr_i(c->node, "axis", -1), r);
    if (axis < 0 || axis >= r) return li_bad(c, LG_ERR_FORMAT, "axis");
    int64_t axes[LG_MAX_RANK];
    uint32_t n = 0;
    for (int64_t i = axis; i < r; i++) axes[n++] = i;
    int32_t mu, inv;
    int32_t y = normalize(c, x->t, axes, n, li_attr_f(c->node, "epsilon", 1e-5f), &mu, &inv);
    y = li_binary(c, LG_OP_MUL, y, sc->t);
    if (b) y = li_binary(c, LG_OP_ADD, y, b->t);
    LG_TRY(li_out(c, 0, y, x->onnx_type));
    LG_TRY(li_out(c, 1, mu, x->onnx_type));
    return li_out(c, 2, inv, x->onnx_type);
}

static lg_status lower_instnorm(li_ctx *c) {
    const li_val *x = li_need(c, 0), *sc = li_need(c, 1), *b = li_need(c, 2);
    LI_TRY(c);
    if (li_type(c, x->t) != LG_FLOAT32) return li_unsupported(c, "non-float input");
    int r = li_rank(c, x->t);
    if (r < 3) return li_bad(c, LG_ERR_FORMAT, "rank %d", r);
    int64_t axes[LG_MAX_RANK], d[LG_MAX_RANK];
    uint32_t n = 0;
    for (int i = 2; i < r; i++) axes[n++] = i;
    d[0] = li_dim(c, x->t, 1);
    for (int i = 1; i < r - 1; i++) d[i] = 1;
    int32_t y = normalize(c, x->t, axes, n, li_attr_f(c->node, "epsilon", 1e-5f), NULL, NULL);
    y = li_binary(c, LG_OP_MUL, y, li_reshape(c, sc->t, d, (uint32_t)(r - 1)));
    y = li_binary(c, LG_OP_ADD, y, li_reshape(c, b->t, d, (uint32_t)(r - 1)));
    return li_out(c, 0, y, x->onnx_type);
}

static lg_status lower_groupnorm(li_ctx *c) {
    const li_val *x = li_need(c, 0), *sc = li_need(c, 1), *b = li_need(c, 2);
    LI_TRY(c);
    if (li_type(c, x->t) != LG_FLOAT32) return li_unsupported(c, "non-float input");
    if (li_attr_i(c->node, "stash_type", 1) != 1) return li_unsupported(c, "stash_type");
    int r = li_rank(c, x->t);
    if (r < 2) return li_bad(c, LG_ERR_FORMAT, "rank %d (at least 2)", r);
    const lg_onnx_attr *ga = li_attr(c->node, "num_groups");
    if (!ga) return li_bad(c, LG_ERR_FORMAT, "no num_groups attribute");
    int64_t g = ga->i, xd[LG_MAX_RANK], k = 1;
    for (int i = 0; i < r; i++) {
        if ((xd[i] = li_dim(c, x->t, i)) < 0) return li_unsupported(c, "dynamic dim %d", i);
        if (i >= 2) k *= xd[i];
    }
    int64_t ch = xd[1];
    if (g <= 0 || ch % g != 0) return li_bad(c, LG_ERR_FORMAT, "num_groups %lld for %lld channels", (long long)g, (long long)ch);
    bool per_channel = c->opset >= 21;
    int64_t want = per_channel ? ch : g;
    lg_shape ss = li_shape(c, sc->t), bs = li_shape(c, b->t);
    if (ss.rank != 1 || ss.dim[0] != want || bs.rank != 1 || bs.dim[0] != want)
        return li_bad(c, LG_ERR_FORMAT, "scale and bias must be [%lld] (%s)", (long long)want,
                      per_channel ? "per channel since opset 21" : "per group before opset 21");
    int64_t gd[3] = {xd[0], g, ch / g * k};
    int32_t y = normalize(c, li_reshape(c, x->t, gd, 3), (const int64_t[]){2}, 1,
                          li_attr_f(c->node, "epsilon", 1e-5f), NULL, NULL);
    int64_t pd[LG_MAX_RANK];
    if (per_channel) {
        y = li_reshape(c, y, xd, (uint32_t)r);
        pd[0] = ch;
        for (int i = 1; i < r - 1; i++) pd[i] = 1;
        y = li_binary(c, LG_OP_MUL, y, li_reshape(c, sc->t, pd, (uint32_t)(r - 1)));
        y = li_binary(c, LG_OP_ADD, y, li_reshape(c, b->t, pd, (uint32_t)(r - 1)));
    } else {
        pd[0] = g;
        pd[1] = 1;
        y = li_binary(c, LG_OP_MUL, y, li_reshape(c, sc->t, pd, 2));
        y = li_binary(c, LG_OP_ADD, y, li_reshape(c, b->t, pd, 2));
        y = li_reshape(c, y, xd, (uint32_t)r);
    }
    return li_out(c, 0, y, x->onnx_type);
}

/* LRN (LRN-1 and -13, the same formula; the ONNX spec): for x [N, C, D1..Dk] the square sum
   over the channels max(0, c - floor((size - 1) / 2)) <= i <= min(C - 1, c + ceil((size - 1) / 2))
   and y = x / (bias + alpha / size * square_sum) ^ beta. The positions are independent: x is
   seen as [N, C, 1, M] (M = D1 * ... * Dk).
   - odd size: TFLite's LOCAL_RESPONSE_NORMALIZATION over the last axis of the NHWC form,
     y = x * (bias + alpha' * sum_{|i - c| <= radius} x_i^2) ^ -beta (tf.nn.
     local_response_normalization's definition; tensorflow/lite/kernels/local_response_norm.cc
     registers the optimized kernel, which sums that window, by default), so radius =
     (size - 1) / 2 and alpha' = alpha / size.
   - even size: the window has one channel more after c than before, which that op cannot
     express: an AVERAGE_POOL_2D (size x 1, VALID) of x^2 viewed as NHWC [N, C, M, 1] (the
     channels as the pool's height, no transpose), zero-padded by (size - 2) / 2 channels
     before and size / 2 after, is square_sum / size (a VALID window divides by its size), so
     alpha / size * square_sum is alpha times it; then bias +, POW beta and DIV: the spec's
     formula. */
static lg_status lower_lrn(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    if (li_type(c, x->t) != LG_FLOAT32) return li_unsupported(c, "non-float input");
    const lg_onnx_attr *sa = li_attr(c->node, "size");
    if (!sa || sa->i < 1 || sa->i > 65536) return li_bad(c, LG_ERR_FORMAT, "size must be given and positive");
    int64_t size = sa->i;
    float alpha = li_attr_f(c->node, "alpha", 1e-4f), beta = li_attr_f(c->node, "beta", 0.75f),
          bias = li_attr_f(c->node, "bias", 1.0f);
    lg_shape s = li_shape(c, x->t);
    if (s.rank < 2) return li_bad(c, LG_ERR_FORMAT, "input rank %d (N x C x ...)", s.rank);
    int64_t d[LG_MAX_RANK], m = 1;
    for (int i = 0; i < s.rank; i++) {
        d[i] = s.dim[i];
        if (i >= 2) m *= s.dim[i];
    }
    int32_t y;
    if (size % 2) {
        int32_t t = li_to_nhwc(c, li_reshape(c, x->t, (const int64_t[]){d[0], d[1], 1, m}, 4));
        lg_local_response_normalization_options o = {(int32_t)((size - 1) / 2), bias, alpha / (float)size, beta};
        y = li_op(c, LG_OP_LOCAL_RESPONSE_NORMALIZATION, &t, 1, &o, -1);
        y = li_to_nchw(c, y);
    } else {
        int32_t sq = li_reshape(c, li_binary(c, LG_OP_MUL, x->t, x->t), (const int64_t[]){d[0], d[1], m, 1}, 4);
        int32_t p32[8] = {0, 0, (int32_t)((size - 1) / 2), (int32_t)(size / 2), 0, 0, 0, 0};
        int32_t pt = li_konst(c, LG_INT32, (const int64_t[]){4, 2}, 2, p32, sizeof p32);
        lg_pool2d_options o;
        lg_opts_init(LG_OPTS_POOL2D_OPTIONS, &o, sizeof o);
        o.padding = LG_PADDING_VALID;
        o.stride_h = o.stride_w = 1;
        o.filter_height = (int32_t)size, o.filter_width = 1;
        int32_t p = LI_OP(c, LG_OP_PAD, NULL, -1, sq, pt);
        int32_t mean = li_op(c, LG_OP_AVERAGE_POOL_2D, &p, 1, &o, -1);
        int32_t den = li_binary(c, LG_OP_ADD, li_binary(c, LG_OP_MUL, mean, li_kf(c, alpha)), li_kf(c, bias));
        den = li_binary(c, LG_OP_POW, den, li_kf(c, beta));
        y = li_binary(c, LG_OP_DIV, li_reshape(c, x->t, (const int64_t[]){d[0], d[1], m, 1}, 4), den);
    }
    return li_out(c, 0, li_reshape(c, y, d, (uint32_t)s.rank), x->onnx_type);
}

/* MeanVarianceNormalization-9 and -13 (-13 adds bfloat16), a function in the spec whose body
   is: mean = ReduceMean(X, axes), variance = ReduceMean(X^2, axes) - mean^2,
   Y = (X - mean) / (Sqrt(variance) + 1e-9); axes default [0, 2, 3]. Lowered as that body. */
static lg_status lower_mvn(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    if (li_type(c, x->t) != LG_FLOAT32) return li_unsupported(c, "non-float input");
    int r = li_rank(c, x->t);
    int64_t axes[LG_MAX_RANK] = {0, 2, 3};
    int k = li_attr_ints(c->node, "axes", axes, LG_MAX_RANK);
    uint32_t n = k >= 0 ? (uint32_t)k : 3;
    for (uint32_t i = 0; i < n; i++) {
        axes[i] = li_norm_axis(axes[i], r);
        if (axes[i] < 0 || axes[i] >= r) return li_bad(c, LG_ERR_FORMAT, "axis %lld for rank %d", (long long)axes[i], r);
    }
    int32_t mu = reduce_op(c, LG_OP_MEAN, x->t, axes, n, true);
    int32_t ex2 = reduce_op(c, LG_OP_MEAN, li_binary(c, LG_OP_MUL, x->t, x->t), axes, n, true);
    int32_t var = li_binary(c, LG_OP_SUB, ex2, li_binary(c, LG_OP_MUL, mu, mu));
    int32_t sd = li_binary(c, LG_OP_ADD, li_unary(c, LG_OP_SQRT, var), li_kf(c, 1e-9f));
    return li_out(c, 0, li_binary(c, LG_OP_DIV, li_binary(c, LG_OP_SUB, x->t, mu), sd), x->onnx_type);
}

const li_op_entry li_ops_reduce[] = {
    {"ReduceMean", 1, 99, lower_reduce},      {"ReduceSum", 1, 99, lower_reduce},
    {"ReduceMax", 1, 99, lower_reduce},       {"ReduceMin", 1, 99, lower_reduce},
    {"ReduceProd", 1, 99, lower_reduce},      {"ReduceSumSquare", 1, 99, lower_reduce},
    {"ReduceL1", 1, 99, lower_reduce},        {"ReduceL2", 1, 99, lower_reduce},
    {"ReduceLogSum", 1, 99, lower_reduce},    {"ReduceLogSumExp", 1, 99, lower_reduce},
    /* ArgMax/ArgMin: lower_gather.c (select_last_index too) */
    {"Softmax", 1, 99, lower_softmax},        {"LogSoftmax", 1, 99, lower_softmax},
    {"MaxPool", 1, 99, lower_pool},           {"AveragePool", 1, 99, lower_pool},
    {"GlobalAveragePool", 1, 99, lower_global_pool}, {"GlobalMaxPool", 1, 99, lower_global_pool},
    {"LayerNormalization", 17, 99, lower_layernorm},
    {"InstanceNormalization", 1, 99, lower_instnorm}, /* -1: consumed_inputs only (Changelog.md) */
    {"GroupNormalization", 18, 99, lower_groupnorm},
    {"LRN", 1, 99, lower_lrn},
    {"MeanVarianceNormalization", 9, 99, lower_mvn},
    {NULL, 0, 0, NULL},
};
