/* Lowering of GridSample (opset 16-21; 4-D input, modes bilinear/linear and nearest, padding
 * zeros and border, align_corners 0 and 1) as a matrix product with sampling weights built
 * from the grid by elementwise ops:
 *
 *   out[n, c, p] = sum_{h, w} Wy[n, p, h] * Wx[n, p, w] * X[n, c, h, w]      (p = (ho, wo))
 *
 * i.e. BATCH_MATMUL(X as [N, C, H*W], A as [N, P, H*W], adj_y) with A = Wy (x) Wx.
 * Per axis, the grid coordinate g is unnormalized as PyTorch's grid_sampler_unnormalize and
 * the ONNX reference (onnx/reference/ops/op_grid_sample.py _gs_denormalize) do it:
 *   align_corners 1: ix = (g + 1) / 2 * (size - 1)      align_corners 0: ix = ((g + 1) size - 1) / 2
 * (the halving as a multiplication by 0.5: the same correctly rounded value), border padding
 * then clips ix to [0, size - 1] (clip_coordinates). Linear weight of tap i:
 *   ReLU(min(ix - (i - 1), (i + 1) - ix))
 * which is, for the two taps around ix (x0 = floor(ix)), exactly PyTorch's weights
 * (x0 + 1) - ix and ix - x0 (the other operand of the min is >= 1), and 0 elsewhere; taps
 * outside [0, size) simply do not exist, which is zeros padding. Nearest: the tap equal to
 * ROUND(ix) (half to even, as nearbyint) has weight 1. The sum runs over every pixel, so the
 * products with zero weights are exact zeros for finite inputs (an inf or NaN anywhere in X
 * would spread: 0 * inf). Not lowered: bicubic, reflection padding, 5-D. */
#include <stdio.h>
#include <stdlib.h>

#include "import/import_impl.h"

/* the sampling weights [N, P, size] of one axis from its grid coordinates g [N, P, 1] */
static int32_t axis_weights(li_ctx *c, int32_t g, int64_t size, bool align, bool border, bool nearest) {
    int32_t ix = li_binary(c, LG_OP_ADD, g, li_kf(c, 1.0f));
    if (align) {
        ix = li_binary(c, LG_OP_MUL, ix, li_kf(c, 0.5f));
        ix = li_binary(c, LG_OP_MUL, ix, li_kf(c, (float)(size - 1)));
    } else {
        ix = li_binary(c, LG_OP_MUL, ix, li_kf(c, (float)size));
        ix = li_binary(c, LG_OP_SUB, ix, li_kf(c, 1.0f));
        ix = li_binary(c, LG_OP_MUL, ix, li_kf(c, 0.5f));
    }
    if (border) {
        ix = li_binary(c, LG_OP_MAXIMUM, ix, li_kf(c, 0.0f));
        ix = li_binary(c, LG_OP_MINIMUM, ix, li_kf(c, (float)(size - 1)));
    }
    float *lo = malloc((size_t)size * 3 * sizeof *lo);
    if (!lo) {
        c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        return -1;
    }
    float *hi = lo + size, *at = hi + size;
    for (int64_t i = 0; i < size; i++) lo[i] = (float)(i - 1), hi[i] = (float)(i + 1), at[i] = (float)i;
    int64_t td[3] = {1, 1, size};
    int32_t w;
    if (nearest) {
        int32_t eq = li_binary(c, LG_OP_EQUAL, li_unary(c, LG_OP_ROUND, ix), li_kf32(c, td, 3, at));
        w = li_cast(c, eq, LG_FLOAT32);
    } else {
        int32_t a = li_binary(c, LG_OP_SUB, ix, li_kf32(c, td, 3, lo));
        int32_t b = li_binary(c, LG_OP_SUB, li_kf32(c, td, 3, hi), ix);
        w = li_unary(c, LG_OP_RELU, li_binary(c, LG_OP_MINIMUM, a, b));
    }
    free(lo);
    return w;
}

static lg_status lower_grid_sample(li_ctx *c) {
    const li_val *x = li_need(c, 0), *gr = li_need(c, 1);
    LI_TRY(c);
    if (li_rank(c, x->t) != 4) return li_unsupported(c, "a %d-D input (4-D only)", li_rank(c, x->t));
    if (li_type(c, x->t) != LG_FLOAT32 || li_type(c, gr->t) != LG_FLOAT32) return li_unsupported(c, "non-float input or grid");
    int64_t N = li_dim(c, x->t, 0), C = li_dim(c, x->t, 1), H = li_dim(c, x->t, 2), W = li_dim(c, x->t, 3);
    if (li_rank(c, gr->t) != 4 || li_dim(c, gr->t, 0) != N || li_dim(c, gr->t, 3) != 2)
        return li_bad(c, LG_ERR_FORMAT, "the grid must be [N, H_out, W_out, 2] for a 4-D input");
    int64_t Ho = li_dim(c, gr->t, 1), Wo = li_dim(c, gr->t, 2), P = Ho * Wo;
    bool nearest = li_attr_is(c->node, "mode", "nearest", NULL);
    bool linear = li_attr_is(c->node, "mode", c->opset >= 20 ? "linear" : "bilinear", c->opset >= 20 ? "linear" : "bilinear");
    if (!nearest && !linear) {
        const lg_onnx_attr *a = li_attr(c->node, "mode");
        return li_unsupported(c, "mode \"%.*s\"", a ? (int)a->s.n : 0, a ? a->s.s : "");
    }
    bool zeros = li_attr_is(c->node, "padding_mode", "zeros", "zeros");
    bool border = li_attr_is(c->node, "padding_mode", "border", "zeros");
    if (!zeros && !border) {
        const lg_onnx_attr *a = li_attr(c->node, "padding_mode");
        return li_unsupported(c, "padding_mode \"%.*s\"", a ? (int)a->s.n : 0, a ? a->s.s : "");
    }
    bool align = li_attr_i(c->node, "align_corners", 0) != 0;
    if (N * P * H * W > (1ll << 26))
        return li_unsupported(c, "a sampling matrix of %lld elements (at most 2^26)", (long long)(N * P * H * W));
    int64_t one[4] = {0, 0, 0, 0}, e[4] = {N, Ho, Wo, 1}, s[4] = {1, 1, 1, 1};
    int32_t gx = li_slice(c, gr->t, one, e, s, 0);
    one[3] = 1, e[3] = 2;
    int32_t gy = li_slice(c, gr->t, one, e, s, 0);
    int64_t pd[3] = {N, P, 1};
    gx = li_reshape(c, gx, pd, 3);
    gy = li_reshape(c, gy, pd, 3);
    int32_t wx = axis_weights(c, gx, W, align, border, nearest);
    int32_t wy = axis_weights(c, gy, H, align, border, nearest);
    LI_TRY(c);
    int64_t dy[4] = {N, P, H, 1}, dx[4] = {N, P, 1, W}, da[3] = {N, P, H * W}, dxr[3] = {N, C, H * W};
    int32_t a = li_binary(c, LG_OP_MUL, li_reshape(c, wy, dy, 4), li_reshape(c, wx, dx, 4));
    a = li_reshape(c, a, da, 3);
    lg_batch_mat_mul_options o;
    lg_opts_init(LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o, sizeof o);
    o.adj_y = true;
    int32_t y = LI_OP(c, LG_OP_BATCH_MATMUL, &o, -1, li_reshape(c, x->t, dxr, 3), a);
    int64_t od[4] = {N, C, Ho, Wo};
    return li_out(c, 0, li_reshape(c, y, od, 4), x->onnx_type);
}

const li_op_entry li_ops_grid[] = {
    {"GridSample", 16, 99, lower_grid_sample},
    {NULL, 0, 0, NULL},
};
