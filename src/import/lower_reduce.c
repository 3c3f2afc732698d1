/* Lowerings of reductions, Softmax/LogSoftmax, pools and the norms.
 *
 *  - Reduce*: axes from the attribute (before opset 13 for ReduceSum, 18 for the others) or
 *    the input; empty axes reduce everything unless noop_with_empty_axes.
 *  - Softmax/LogSoftmax: before opset 13 the input is flattened to 2-D at `axis`; since,
 *    `axis` is one dimension (moved last by a TRANSPOSE when it is not).
 *  - MaxPool/AveragePool: PAD (-inf for max, 0 for average) + VALID pool between TRANSPOSEs;
 *    ceil_mode extends the end padding; an average's divisor (padding counted or not) is
 *    corrected by a constant per-position factor when it is not the window size.
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

static lg_status lower_argmax(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    if (li_attr_i(c->node, "select_last_index", 0)) return li_unsupported(c, "select_last_index");
    int r = li_rank(c, x->t);
    int64_t axis = li_norm_axis(li_attr_i(c->node, "axis", 0), r);
    bool keep = li_attr_i(c->node, "keepdims", 1) != 0;
    lg_arg_max_options o = {LG_INT32};
    int32_t at = li_ki(c, axis), y;
    if (is(c, "ArgMax")) y = LI_OP(c, LG_OP_ARG_MAX, &o, LG_INT32, x->t, at);
    else y = LI_OP(c, LG_OP_ARG_MIN, (const lg_arg_min_options *)(const void *)&o, LG_INT32, x->t, at);
    if (keep) {
        lg_shape s = li_shape(c, x->t);
        int64_t d[LG_MAX_RANK];
        for (int i = 0; i < r; i++) d[i] = i == axis ? 1 : s.dim[i];
        y = li_reshape(c, y, d, (uint32_t)r);
    }
    return li_out(c, 0, y, LG_ONNX_INT64);
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

static lg_status lower_pool(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    if (li_type(c, x->t) != LG_FLOAT32) return li_unsupported(c, "non-float input");
    bool maxp = is(c, "MaxPool");
    if (maxp && li_has_out(c, 1)) return li_unsupported(c, "the Indices output");
    int r = li_rank(c, x->t);
    if (r != 3 && r != 4) return li_unsupported(c, "%d-D pooling (1-D and 2-D)", r - 2);
    int nsp = r - 2, off = 2 - nsp;
    int64_t v[8], k[2] = {1, 1}, s[2] = {1, 1}, pb[2] = {0, 0}, pe[2] = {0, 0}, in[2] = {1, 1};
    int n = li_attr_ints(c->node, "kernel_shape", v, 8);
    if (n != nsp) return li_bad(c, LG_ERR_FORMAT, "kernel_shape");
    for (int i = 0; i < nsp; i++) k[off + i] = v[i], in[off + i] = li_dim(c, x->t, 2 + i);
    if ((n = li_attr_ints(c->node, "strides", v, 8)) >= 0) {
        if (n != nsp) return li_bad(c, LG_ERR_FORMAT, "strides");
        for (int i = 0; i < nsp; i++) s[off + i] = v[i];
    }
    if ((n = li_attr_ints(c->node, "pads", v, 8)) >= 0) {
        if (n != 2 * nsp) return li_bad(c, LG_ERR_FORMAT, "pads");
        for (int i = 0; i < nsp; i++) pb[off + i] = v[i], pe[off + i] = v[nsp + i];
    }
    if ((n = li_attr_ints(c->node, "dilations", v, 8)) >= 0)
        for (int i = 0; i < n; i++)
            if (v[i] != 1) return li_unsupported(c, "dilations");
    if (li_attr_i(c->node, "storage_order", 0) != 0) return li_unsupported(c, "storage_order 1");
    bool ceil_mode = li_attr_i(c->node, "ceil_mode", 0) != 0;
    bool count_pad = li_attr_i(c->node, "count_include_pad", 0) != 0;
    const lg_onnx_attr *ap = li_attr(c->node, "auto_pad");
    if (ap && !lg_onnx_str_eq(ap->s, "NOTSET")) {
        bool upper = lg_onnx_str_eq(ap->s, "SAME_UPPER"), valid = lg_onnx_str_eq(ap->s, "VALID");
        if (!upper && !valid && !lg_onnx_str_eq(ap->s, "SAME_LOWER")) return li_bad(c, LG_ERR_FORMAT, "auto_pad");
        for (int i = 0; i < 2; i++) {
            pb[i] = pe[i] = 0;
            if (valid) continue;
            int64_t out = (in[i] + s[i] - 1) / s[i], total = (out - 1) * s[i] + k[i] - in[i];
            if (total < 0) total = 0;
            pb[i] = upper ? total / 2 : total - total / 2;
            pe[i] = total - pb[i];
        }
    }
    /* output size (ONNX: floor or ceil of (in + pads - k) / s, + 1) and the end padding
       the VALID pool needs to produce it */
    int64_t out[2], pe2[2];
    for (int i = 0; i < 2; i++) {
        int64_t span = in[i] + pb[i] + pe[i] - k[i];
        if (span < 0) return li_bad(c, LG_ERR_FORMAT, "kernel larger than the padded input");
        out[i] = (ceil_mode ? (span + s[i] - 1) / s[i] : span / s[i]) + 1;
        /* torch/onnx: the last window must start inside the input or the begin padding */
        if (ceil_mode && (out[i] - 1) * s[i] >= in[i] + pb[i]) out[i]--;
        pe2[i] = (out[i] - 1) * s[i] + k[i] - in[i] - pb[i];
        if (pe2[i] < 0) pe2[i] = 0;
    }
    int32_t t = r == 4 ? x->t : li_reshape(c, x->t, (const int64_t[]){li_dim(c, x->t, 0), li_dim(c, x->t, 1), 1, li_dim(c, x->t, 2)}, 4);
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
    if (!maxp && padded) {
        /* the divisor: window positions inside [0, in) (count_include_pad 0) or inside the
           explicit padding [-pb, in + pe) (1); the pool divided by k_h * k_w */
        float *f = malloc((size_t)(out[0] * out[1]) * sizeof *f);
        if (!f) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        bool all_one = true;
        for (int64_t oy = 0; oy < out[0]; oy++)
            for (int64_t ox = 0; ox < out[1]; ox++) {
                int64_t cnt[2];
                for (int i = 0; i < 2; i++) {
                    int64_t o0 = i ? ox : oy, st = o0 * s[i] - pb[i], en = st + k[i];
                    int64_t lo = count_pad ? -pb[i] : 0, hi = count_pad ? in[i] + pe[i] : in[i];
                    if (st < lo) st = lo;
                    if (en > hi) en = hi;
                    cnt[i] = en > st ? en - st : 1;
                }
                double fac = (double)(k[0] * k[1]) / (double)(cnt[0] * cnt[1]);
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
    return li_out(c, 0, y, x->onnx_type);
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

const li_op_entry li_ops_reduce[] = {
    {"ReduceMean", 1, 99, lower_reduce},      {"ReduceSum", 1, 99, lower_reduce},
    {"ReduceMax", 1, 99, lower_reduce},       {"ReduceMin", 1, 99, lower_reduce},
    {"ReduceProd", 1, 99, lower_reduce},      {"ReduceSumSquare", 1, 99, lower_reduce},
    {"ReduceL1", 1, 99, lower_reduce},        {"ReduceL2", 1, 99, lower_reduce},
    {"ReduceLogSum", 1, 99, lower_reduce},    {"ReduceLogSumExp", 1, 99, lower_reduce},
    {"ArgMax", 1, 99, lower_argmax},          {"ArgMin", 1, 99, lower_argmax},
    {"Softmax", 1, 99, lower_softmax},        {"LogSoftmax", 1, 99, lower_softmax},
    {"MaxPool", 1, 99, lower_pool},           {"AveragePool", 1, 99, lower_pool},
    {"GlobalAveragePool", 1, 99, lower_global_pool}, {"GlobalMaxPool", 1, 99, lower_global_pool},
    {"LayerNormalization", 17, 99, lower_layernorm},
    {"InstanceNormalization", 6, 99, lower_instnorm},
    {"GroupNormalization", 18, 99, lower_groupnorm},
    {NULL, 0, 0, NULL},
};
