/* Lowerings of Conv, ConvTranspose, Gemm, MatMul and BatchNormalization.
 *
 * Conv and ConvTranspose keep NCHW outside and run the NHWC-only TFLite op between explicit
 * TRANSPOSEs (NCHW -> NHWC before, back after); 1-D forms are the 2-D op on [N, C, 1, W].
 * Padding: none -> VALID; exactly what TFLite's SAME computes (before = total / 2,
 * tensorflow/lite/kernels/padding.h ComputePaddingHeightWidth) -> SAME; anything else (asymmetric,
 * SAME_LOWER) -> an explicit PAD in NCHW then VALID. A BatchNormalization whose input is a
 * conv's only use is folded into the conv's weights and bias. 3-D Conv and ConvTranspose are
 * sums of 2-D ones over the depth taps (lower_conv3d, lower_conv_transpose3d). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "import/import_impl.h"

typedef struct conv_geom {
    int64_t in[3], k[3], s[3], d[3], pb[3], pe[3], op[3];
} conv_geom;

/* spatial attributes for nsp (1 to 3) spatial dims: 1-D and 2-D mapped to (H, W) in slots 0
   and 1 with H = 1 for 1-D (slot 2 unused: 1); 3-D (D, H, W) in slots 0 to 2 */
static lg_status read_geom(li_ctx *c, int nsp, int32_t x, const int64_t *kernel, conv_geom *g, bool transposed) {
    int64_t v[8];
    for (int i = 0; i < 3; i++) {
        g->s[i] = g->d[i] = 1;
        g->pb[i] = g->pe[i] = g->op[i] = 0;
        g->k[i] = 1;
        g->in[i] = 1;
    }
    int off = nsp == 3 ? 0 : 2 - nsp;
    for (int i = 0; i < nsp; i++) {
        g->in[off + i] = li_dim(c, x, 2 + i);
        g->k[off + i] = kernel[i];
    }
    int n;
    if ((n = li_attr_ints(c->node, "strides", v, 8)) >= 0) {
        if (n != nsp) return li_bad(c, LG_ERR_FORMAT, "strides has %d values", n);
        for (int i = 0; i < nsp; i++) g->s[off + i] = v[i];
    }
    if ((n = li_attr_ints(c->node, "dilations", v, 8)) >= 0) {
        if (n != nsp) return li_bad(c, LG_ERR_FORMAT, "dilations has %d values", n);
        for (int i = 0; i < nsp; i++) g->d[off + i] = v[i];
    }
    if ((n = li_attr_ints(c->node, "pads", v, 8)) >= 0) {
        if (n != 2 * nsp) return li_bad(c, LG_ERR_FORMAT, "pads has %d values", n);
        for (int i = 0; i < nsp; i++) {
            g->pb[off + i] = v[i];
            g->pe[off + i] = v[nsp + i];
        }
    }
    if (transposed && (n = li_attr_ints(c->node, "output_padding", v, 8)) >= 0) {
        if (n != nsp) return li_bad(c, LG_ERR_FORMAT, "output_padding has %d values", n);
        for (int i = 0; i < nsp; i++) g->op[off + i] = v[i];
    }
    for (int i = 0; i < 3; i++)
        if (g->s[i] < 1 || g->d[i] < 1 || g->pb[i] < 0 || g->pe[i] < 0 || g->k[i] < 1)
            return li_bad(c, LG_ERR_FORMAT, "bad strides, dilations, pads or kernel");
    const lg_onnx_attr *ap = li_attr(c->node, "auto_pad");
    if (ap && !lg_onnx_str_eq(ap->s, "NOTSET")) {
        bool upper = lg_onnx_str_eq(ap->s, "SAME_UPPER"), lower = lg_onnx_str_eq(ap->s, "SAME_LOWER");
        bool valid = lg_onnx_str_eq(ap->s, "VALID");
        if (!upper && !lower && !valid) return li_bad(c, LG_ERR_FORMAT, "auto_pad \"%.*s\"", LG_ONNX_STR(ap->s));
        for (int i = 0; i < 3; i++) {
            g->pb[i] = g->pe[i] = 0;
            if (valid) continue;
            int64_t eff = (g->k[i] - 1) * g->d[i] + 1, total;
            if (transposed) {
                /* output = input * stride (onnx ConvTranspose) */
                total = g->s[i] * (g->in[i] - 1) + g->op[i] + eff - g->in[i] * g->s[i];
            } else {
                int64_t out = (g->in[i] + g->s[i] - 1) / g->s[i];
                total = (out - 1) * g->s[i] + eff - g->in[i];
            }
            if (total < 0) total = 0;
            /* SAME_UPPER: the extra pad at the end */
            g->pb[i] = upper ? total / 2 : total - total / 2;
            g->pe[i] = total - g->pb[i];
        }
    }
    return c->st;
}

/* TFLite SAME padding before/after for one dim (padding.h) */
static void tfl_same(int64_t in, int64_t k, int64_t s, int64_t d, int64_t *b, int64_t *e) {
    int64_t eff = (k - 1) * d + 1, out = (in + s - 1) / s;
    int64_t total = (out - 1) * s + eff - in;
    if (total < 0) total = 0;
    *b = total / 2;
    *e = total - *b;
}

/* Choose VALID / SAME, or PAD x (rank 4, NCHW) with value pad_value and VALID. */
static int32_t conv_padding(li_ctx *c, int32_t x, const conv_geom *g, float pad_value, int8_t *padding,
                            bool allow_same) {
    bool zero = g->pb[0] == 0 && g->pe[0] == 0 && g->pb[1] == 0 && g->pe[1] == 0;
    *padding = LG_PADDING_VALID;
    if (zero) return x;
    bool same = allow_same;
    for (int i = 0; i < 2 && same; i++) {
        int64_t b, e;
        tfl_same(g->in[i], g->k[i], g->s[i], g->d[i], &b, &e);
        if (b != g->pb[i] || e != g->pe[i]) same = false;
    }
    if (same) {
        *padding = LG_PADDING_SAME;
        return x;
    }
    int64_t pads[8] = {0, 0, 0, 0, g->pb[0], g->pe[0], g->pb[1], g->pe[1]};
    int64_t pd[2] = {4, 2};
    int32_t pt = -1;
    {
        int32_t p32[8];
        for (int i = 0; i < 8; i++) p32[i] = (int32_t)pads[i];
        pt = li_konst(c, LG_INT32, pd, 2, p32, sizeof p32);
    }
    if (pad_value == 0.0f) return LI_OP(c, LG_OP_PAD, NULL, -1, x, pt);
    return LI_OP(c, LG_OP_PADV2, NULL, -1, x, pt, li_kf(c, pad_value));
}

/* x of rank 3 -> [N, C, 1, W]; rank 4 unchanged */
static int32_t to4(li_ctx *c, int32_t x) {
    if (li_rank(c, x) == 4) return x;
    int64_t d[4] = {li_dim(c, x, 0), li_dim(c, x, 1), 1, li_dim(c, x, 2)};
    return li_reshape(c, x, d, 4);
}

static int32_t from4(li_ctx *c, int32_t y, int rank) {
    if (rank == 4) return y;
    int64_t d[3] = {li_dim(c, y, 0), li_dim(c, y, 1), li_dim(c, y, 3)};
    return li_reshape(c, y, d, 3);
}

/* A BatchNormalization that is the only use of `v` with constant parameters: its per-channel
   scale a = gamma / sqrt(var + eps) and shift B - mean * a (double), and its node index. */
static int32_t bn_after(li_ctx *c, lg_onnx_str v, int64_t m, double *a, double *shift) {
    int32_t j = li_sole_consumer(c, v, c->node_index);
    if (j < 0) return -1;
    const lg_onnx_node *bn = &c->g->nodes[j];
    if (!lg_onnx_str_eq(bn->op_type, "BatchNormalization") || bn->domain.n || bn->n_inputs != 5) return -1;
    for (uint32_t k = 1; k < bn->n_outputs; k++)
        if (bn->outputs[k].n) return -1;
    if (li_attr_i(bn, "training_mode", 0) != 0 || li_attr_i(bn, "spatial", 1) != 1) return -1;
    if (c->opset < 7 && li_attr_i(bn, "is_test", 0) == 0) return -1; /* training form (lower_batchnorm) */
    const float *p[4];
    for (int k = 0; k < 4; k++) {
        const li_val *pv = li_find(c, bn->inputs[1 + k]);
        if (!pv || !(p[k] = li_const_f32(c, pv->t)) || lg_tensor_numel(li_t(c, pv->t)) != m) return -1;
    }
    double eps = li_attr_f(bn, "epsilon", 1e-5f);
    for (int64_t i = 0; i < m; i++) {
        a[i] = (double)p[0][i] / sqrt((double)p[3][i] + eps);
        shift[i] = (double)p[1][i] - (double)p[2][i] * a[i];
    }
    return j;
}

static void bn_report(li_ctx *c, int32_t j, const char *into) {
    c->skip[j] = true;
    if (!c->rep) return;
    lg_import_node *e = &c->rep->nodes[j];
    char buf[160];
    snprintf(buf, sizeof buf, "BatchNormalization -> (folded into the %s at node %u)", into, c->node_index);
    free(e->lowering);
    e->lowering = malloc(strlen(buf) + 1);
    if (e->lowering) strcpy(e->lowering, buf);
}

/* Conv in 3-D as CONV_2Ds over the depth taps: TFLite's CONV_3D has no GPU delegate kernel
   (and none in this interpreter). With xp the zero-padded input,
   y[n, m, z] = b[m] + sum_{j < kd} conv2d(xp[n, :, z sd + j dd], W[:, :, j])[m], so each tap j
   is one CONV_2D on the depth slices j dd, j dd + sd, ... folded into the batch
   ([N OD, Hp, Wp, C], VALID, the H and W strides and dilations, filter OHWI [M, kh, kw, C/group]:
   TFLite's grouped CONV_2D, tensorflow/lite/kernels/conv.cc Prepare, groups = input channels /
   filter channels), tap 0 with the bias, and the kd results are added: each output is the
   3-D convolution's sum of products (in another order). */
static lg_status lower_conv3d(li_ctx *c, const li_val *x, const li_val *w, const li_val *b) {
    const float *wf = li_const_f32(c, w->t);
    if (!wf) return li_unsupported(c, "3-D convolution with weights computed at run time");
    int64_t M = li_dim(c, w->t, 0), Cg = li_dim(c, w->t, 1), N = li_dim(c, x->t, 0);
    int64_t kern[3] = {li_dim(c, w->t, 2), li_dim(c, w->t, 3), li_dim(c, w->t, 4)}, ks[8];
    int nk = li_attr_ints(c->node, "kernel_shape", ks, 8);
    for (int i = 0; i < nk && i < 3; i++)
        if (ks[i] != kern[i]) return li_bad(c, LG_ERR_FORMAT, "kernel_shape does not match the weights");
    conv_geom g;
    LG_TRY(read_geom(c, 3, x->t, kern, &g, false));
    const float *bf = b ? li_const_f32(c, b->t) : NULL;
    if (b && lg_tensor_numel(li_t(c, b->t)) != M) return li_bad(c, LG_ERR_FORMAT, "bias of %lld values for %lld channels", (long long)lg_tensor_numel(li_t(c, b->t)), (long long)M);
    int64_t o[3];
    for (int i = 0; i < 3; i++) {
        int64_t span = g.in[i] + g.pb[i] + g.pe[i] - ((g.k[i] - 1) * g.d[i] + 1);
        if (span < 0) return li_bad(c, LG_ERR_FORMAT, "kernel larger than the padded input");
        o[i] = span / g.s[i] + 1;
    }
    int32_t xp = x->t;
    if (g.pb[0] || g.pe[0] || g.pb[1] || g.pe[1] || g.pb[2] || g.pe[2]) {
        int32_t p32[10] = {0, 0, 0, 0, (int32_t)g.pb[0], (int32_t)g.pe[0], (int32_t)g.pb[1], (int32_t)g.pe[1],
                           (int32_t)g.pb[2], (int32_t)g.pe[2]};
        int32_t pt = li_konst(c, LG_INT32, (const int64_t[]){5, 2}, 2, p32, sizeof p32);
        xp = LI_OP(c, LG_OP_PAD, NULL, -1, xp, pt);
    }
    static const int ndhwc[5] = {0, 2, 3, 4, 1}, ncdhw[5] = {0, 4, 1, 2, 3};
    int32_t xt = li_transpose(c, xp, ndhwc, 5);
    LI_TRY(c);
    int64_t hp = li_dim(c, xt, 2), wp = li_dim(c, xt, 3), C = li_dim(c, xt, 4);
    float *f = malloc((size_t)(M * g.k[1] * g.k[2] * Cg) * sizeof *f), *bias = calloc((size_t)M, sizeof *bias);
    if (!f || !bias) {
        free(f), free(bias);
        return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    }
    for (int64_t m = 0; m < M; m++) bias[m] = bf ? bf[m] : 0.0f;
    int32_t acc = -1;
    lg_conv2d_options co;
    lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &co, sizeof co);
    co.padding = LG_PADDING_VALID;
    co.stride_h = (int32_t)g.s[1], co.stride_w = (int32_t)g.s[2];
    co.dilation_h_factor = (int32_t)g.d[1], co.dilation_w_factor = (int32_t)g.d[2];
    for (int64_t j = 0; j < g.k[0] && LI_OK(c); j++) {
        int64_t sb[5] = {0, j * g.d[0], 0, 0, 0}, se[5] = {N, j * g.d[0] + (o[0] - 1) * g.s[0] + 1, hp, wp, C};
        int64_t ss[5] = {1, g.s[0], 1, 1, 1};
        int32_t sl = li_reshape(c, li_slice(c, xt, sb, se, ss, 0), (const int64_t[]){N * o[0], hp, wp, C}, 4);
        /* filter of tap j: F[m, y, z, ci] = W[m, ci, j, y, z] */
        for (int64_t m = 0; m < M; m++)
            for (int64_t ci = 0; ci < Cg; ci++)
                for (int64_t y = 0; y < g.k[1]; y++)
                    for (int64_t z = 0; z < g.k[2]; z++)
                        f[((m * g.k[1] + y) * g.k[2] + z) * Cg + ci] =
                            wf[(((m * Cg + ci) * g.k[0] + j) * g.k[1] + y) * g.k[2] + z];
        int32_t ft = li_kf32(c, (const int64_t[]){M, g.k[1], g.k[2], Cg}, 4, f);
        int32_t bt = j == 0 && bf ? li_kf32(c, &M, 1, bias) : -1;
        int32_t y = LI_OP(c, LG_OP_CONV_2D, &co, -1, sl, ft, bt);
        acc = acc < 0 ? y : li_binary(c, LG_OP_ADD, acc, y);
    }
    free(f);
    free(bias);
    LI_TRY(c);
    int32_t y = li_reshape(c, acc, (const int64_t[]){N, o[0], o[1], o[2], M}, 5);
    y = li_transpose(c, y, ncdhw, 5);
    if (b && !bf) y = li_binary(c, LG_OP_ADD, y, li_reshape(c, b->t, (const int64_t[]){M, 1, 1, 1}, 4));
    return li_out(c, 0, y, x->onnx_type);
}

static lg_status lower_conv(li_ctx *c) {
    const li_val *x = li_need(c, 0), *w = li_need(c, 1), *b = li_in(c, 2);
    LI_TRY(c);
    int r = li_rank(c, x->t);
    if (r < 3 || r > 5) return li_unsupported(c, "%d-D input (1-D to 3-D convolutions)", r - 2);
    if (li_type(c, x->t) != LG_FLOAT32) return li_unsupported(c, "non-float input");
    const float *wf = li_const_f32(c, w->t);
    if (li_type(c, w->t) != LG_FLOAT32) return li_unsupported(c, "non-float weights");
    if (li_rank(c, w->t) != r) return li_bad(c, LG_ERR_FORMAT, "weights of rank %d", li_rank(c, w->t));
    int64_t M = li_dim(c, w->t, 0), Cg = li_dim(c, w->t, 1), C = li_dim(c, x->t, 1);
    int64_t group = li_attr_i(c->node, "group", 1);
    if (group < 1 || Cg * group != C || M % group) return li_bad(c, LG_ERR_FORMAT, "group %lld does not fit the channels", (long long)group);
    if (r == 5) return lower_conv3d(c, x, w, b);
    int64_t kern[2] = {li_dim(c, w->t, 2), r == 4 ? li_dim(c, w->t, 3) : 0};
    int64_t ks[8];
    int nk = li_attr_ints(c->node, "kernel_shape", ks, 8);
    for (int i = 0; i < nk && i < r - 2; i++)
        if (ks[i] != kern[i]) return li_bad(c, LG_ERR_FORMAT, "kernel_shape does not match the weights");
    conv_geom g;
    LG_TRY(read_geom(c, r - 2, x->t, kern, &g, false));
    int64_t kh = g.k[0], kw = g.k[1];
    /* bias (+ folded batch norm) */
    double *a = calloc((size_t)M, sizeof *a), *sh = calloc((size_t)M, sizeof *sh);
    float *bias = calloc((size_t)M, sizeof *bias), *f = malloc((size_t)(M * Cg * kh * kw) * sizeof *f);
    lg_status st = LG_OK;
    if (!a || !sh || !bias || !f) st = c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    const float *bf = NULL;
    int32_t runtime_bias = -1;
    if (st == LG_OK && b) {
        bf = li_const_f32(c, b->t);
        if (!bf) runtime_bias = b->t;
    }
    int32_t bnj = -1;
    if (st == LG_OK && runtime_bias < 0 && wf) bnj = bn_after(c, c->node->outputs[0], M, a, sh);
    if (bnj < 0)
        for (int64_t m = 0; m < M; m++) a[m] = 1, sh[m] = 0;
    bool depthwise = group > 1 && group == C && Cg == 1;
    if (st == LG_OK) {
        for (int64_t m = 0; m < M && !wf; m++) bias[m] = bf ? bf[m] : 0.0f;
        for (int64_t m = 0; m < M && wf; m++) {
            bias[m] = (float)((bf ? (double)bf[m] : 0.0) * a[m] + sh[m]);
            for (int64_t ci = 0; ci < Cg; ci++)
                for (int64_t y = 0; y < kh; y++)
                    for (int64_t z = 0; z < kw; z++) {
                        float v = wf[((m * Cg + ci) * kh + y) * kw + z];
                        if (bnj >= 0) v = (float)((double)v * a[m]);
                        /* CONV_2D OHWI [M, kh, kw, Cg]; DEPTHWISE [1, kh, kw, M] */
                        if (depthwise) f[(y * kw + z) * M + m] = v;
                        else f[((m * kh + y) * kw + z) * Cg + ci] = v;
                    }
        }
    }
    int32_t ft = -1, bt = -1;
    if (st == LG_OK) {
        int64_t fd[4] = {depthwise ? 1 : M, kh, kw, depthwise ? M : Cg}, bd = M;
        if (wf) {
            ft = li_kf32(c, fd, 4, f);
        } else {
            /* weights computed at run time: [M, Cg, kh, kw] -> OHWI, or [1, kh, kw, M] */
            static const int ohwi[4] = {0, 2, 3, 1}, dw[4] = {1, 2, 3, 0};
            int32_t w4 = to4(c, w->t);
            ft = li_transpose(c, w4, depthwise ? dw : ohwi, 4);
        }
        bt = li_kf32(c, &bd, 1, bias);
    }
    free(a);
    free(sh);
    free(bias);
    free(f);
    LI_TRY(c);
    int8_t padding;
    int32_t x4 = to4(c, x->t);
    int32_t xp = conv_padding(c, x4, &g, 0.0f, &padding, true);
    int32_t xn = li_to_nhwc(c, xp), y;
    if (depthwise) {
        lg_depthwise_conv2d_options o;
        lg_opts_init(LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o, sizeof o);
        o.padding = padding;
        o.stride_h = (int32_t)g.s[0], o.stride_w = (int32_t)g.s[1];
        o.dilation_h_factor = (int32_t)g.d[0], o.dilation_w_factor = (int32_t)g.d[1];
        o.depth_multiplier = (int32_t)(M / C);
        y = LI_OP(c, LG_OP_DEPTHWISE_CONV_2D, &o, -1, xn, ft, bt);
    } else {
        lg_conv2d_options o;
        lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &o, sizeof o);
        o.padding = padding;
        o.stride_h = (int32_t)g.s[0], o.stride_w = (int32_t)g.s[1];
        o.dilation_h_factor = (int32_t)g.d[0], o.dilation_w_factor = (int32_t)g.d[1];
        y = LI_OP(c, LG_OP_CONV_2D, &o, -1, xn, ft, bt);
    }
    y = from4(c, li_to_nchw(c, y), r);
    if (runtime_bias >= 0) {
        int64_t bd[3] = {M, 1, 1};
        y = li_binary(c, LG_OP_ADD, y, li_reshape(c, runtime_bias, bd, (uint32_t)(r - 1)));
    }
    LG_TRY(li_out(c, 0, y, x->onnx_type));
    if (bnj >= 0) {
        LG_TRY(li_bind(c, c->g->nodes[bnj].outputs[0], y, x->onnx_type));
        bn_report(c, bnj, "Conv");
    }
    return c->st;
}

/* ConvTranspose: TRANSPOSE_CONV VALID to the full size (in - 1) * s + k_eff plus
   output_padding at the end, then the pads cropped by a slice. Dilation: the kernel with
   zeros inserted (exact). group > 1 (depthwise too): the NHWC input SPLIT (one STRIDED_SLICE
   per group past 8 groups) into the groups' channels, one TRANSPOSE_CONV per group (ONNX weights [C, M/group, kh, kw]: group g maps
   input channels [g C/group, (g+1) C/group) to output channels [g M/group, (g+1) M/group)),
   CONCATENATION of the groups' outputs on the channel axis; each output is the same sum over
   the same products as the group-1 form, so the result is exact. */

/* the constant filter of group gi: F[m, y*d, z*d, cl] = W[gi*Cg + cl, m, y, z] ([Mg, ekh, ekw, Cg]) */
static int32_t ct_filter(li_ctx *c, const float *wf, const conv_geom *g, const int64_t *ek, int64_t gi,
                         int64_t Cg, int64_t Mg) {
    size_t fn = (size_t)(Mg * ek[0] * ek[1] * Cg);
    float *f = calloc(fn ? fn : 1, sizeof *f);
    if (!f) {
        c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        return -1;
    }
    for (int64_t cl = 0; cl < Cg; cl++)
        for (int64_t m = 0; m < Mg; m++)
            for (int64_t y = 0; y < g->k[0]; y++)
                for (int64_t z = 0; z < g->k[1]; z++)
                    f[((m * ek[0] + y * g->d[0]) * ek[1] + z * g->d[1]) * Cg + cl] =
                        wf[(((gi * Cg + cl) * Mg + m) * g->k[0] + y) * g->k[1] + z];
    int64_t fd[4] = {Mg, ek[0], ek[1], Cg};
    int32_t ft = li_kf32(c, fd, 4, f);
    free(f);
    return ft;
}

/* ConvTranspose's geometry: read_geom, then output_shape (when given) sets the pads:
   total = s (in - 1) + output_padding + ek - output_shape split as auto_pad says (ONNX
   ConvTranspose) */
static lg_status ct_geom(li_ctx *c, int nsp, int32_t x, const int64_t *kern, conv_geom *g) {
    LG_TRY(read_geom(c, nsp, x, kern, g, true));
    int64_t os[8];
    int nos = li_attr_ints(c->node, "output_shape", os, 8);
    int off = nsp == 3 ? 0 : 2 - nsp;
    if (nos < 0) return c->st;
    if (nos != nsp) return li_bad(c, LG_ERR_FORMAT, "output_shape has %d values", nos);
    bool upper = li_attr_is(c->node, "auto_pad", "SAME_UPPER", "NOTSET");
    for (int i = 0; i < nsp; i++) {
        int j = off + i;
        int64_t eff = (g->k[j] - 1) * g->d[j] + 1;
        int64_t total = g->s[j] * (g->in[j] - 1) + g->op[j] + eff - os[i];
        if (total < 0) {
            /* an output_shape past the full output: the extra positions are at the end
               and hold only the bias, as output_padding's (what ONNX's conformance case
               test_convtranspose_output_shape expects: [10, 8] for a full [9, 7]) */
            if (-total > 4096) return li_bad(c, LG_ERR_FORMAT, "output_shape %lld far past the full output", (long long)os[i]);
            g->op[j] -= total;
            g->pb[j] = g->pe[j] = 0;
            continue;
        }
        g->pb[j] = upper ? total / 2 : total - total / 2;
        g->pe[j] = total - g->pb[j];
    }
    return c->st;
}

/* ConvTranspose in 3-D (group 1) as TRANSPOSE_CONVs over the depth taps: the input slice at
   depth iz, through tap j's 2-D filter W[:, :, j], lands at full-output depth iz sd + j dd. So
   per tap: one TRANSPOSE_CONV of all depth slices (folded into the batch, VALID, full H and W
   size), spread along depth by sd (a zero PAD after each slice, then the first (D - 1) sd + 1
   rows), shifted to j dd (a zero PAD), and the kd taps added; then the pads cropped and the
   bias added (the output_padding positions hold it too). Each output is the same sum of
   products as the 3-D transposed convolution's. */
static lg_status lower_conv_transpose3d(li_ctx *c, const li_val *x, const li_val *w, const li_val *b) {
    const float *wf = li_const_f32(c, w->t);
    if (!wf) return li_unsupported(c, "3-D ConvTranspose with weights computed at run time");
    if (li_attr_i(c->node, "group", 1) != 1) return li_unsupported(c, "grouped 3-D ConvTranspose");
    int64_t N = li_dim(c, x->t, 0), C = li_dim(c, x->t, 1), M = li_dim(c, w->t, 1), D = li_dim(c, x->t, 2);
    if (li_dim(c, w->t, 0) != C) return li_bad(c, LG_ERR_FORMAT, "weights do not match the input channels");
    int64_t kern[3] = {li_dim(c, w->t, 2), li_dim(c, w->t, 3), li_dim(c, w->t, 4)};
    conv_geom g;
    LG_TRY(ct_geom(c, 3, x->t, kern, &g));
    int64_t ek[3], full[3], out[3];
    for (int i = 0; i < 3; i++) {
        ek[i] = (g.k[i] - 1) * g.d[i] + 1;
        full[i] = (g.in[i] - 1) * g.s[i] + ek[i] + g.op[i];
        out[i] = full[i] - g.pb[i] - g.pe[i];
        if (out[i] < 1) return li_bad(c, LG_ERR_FORMAT, "empty output");
    }
    const float *bf = b ? li_const_f32(c, b->t) : NULL;
    if (b && lg_tensor_numel(li_t(c, b->t)) != M) return li_bad(c, LG_ERR_FORMAT, "bias of %lld values for %lld channels", (long long)lg_tensor_numel(li_t(c, b->t)), (long long)M);
    /* the 2-D view (H, W) of the geometry for ct_filter */
    conv_geom g2 = g;
    for (int i = 0; i < 2; i++) g2.k[i] = g.k[i + 1], g2.d[i] = g.d[i + 1], g2.s[i] = g.s[i + 1];
    static const int ndhwc[5] = {0, 2, 3, 4, 1}, ncdhw[5] = {0, 4, 1, 2, 3};
    int32_t xt = li_reshape(c, li_transpose(c, x->t, ndhwc, 5), (const int64_t[]){N * D, g.in[1], g.in[2], C}, 4);
    int32_t ost = li_ki32(c, (const int64_t[]){N * D, full[1], full[2], M}, 4);
    float *zb = calloc((size_t)M, sizeof *zb), *w2 = malloc((size_t)(C * M * g.k[1] * g.k[2]) * sizeof *w2);
    if (!zb || !w2) {
        free(zb), free(w2);
        return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    }
    int32_t zt = li_kf32(c, &M, 1, zb);
    lg_transpose_conv_options o;
    lg_opts_init(LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o, sizeof o);
    o.padding = LG_PADDING_VALID;
    o.stride_h = (int32_t)g.s[1], o.stride_w = (int32_t)g.s[2];
    int64_t F = full[1] * full[2] * M, L = (D - 1) * g.s[0] + 1;
    int32_t acc = -1;
    for (int64_t j = 0; j < g.k[0] && LI_OK(c); j++) {
        /* W[:, :, j] as [C, M, kh, kw] */
        for (int64_t ci = 0; ci < C; ci++)
            for (int64_t m = 0; m < M; m++)
                for (int64_t q = 0; q < g.k[1] * g.k[2]; q++)
                    w2[(ci * M + m) * g.k[1] * g.k[2] + q] = wf[((ci * M + m) * g.k[0] + j) * g.k[1] * g.k[2] + q];
        int32_t ft = ct_filter(c, w2, &g2, ek + 1, 0, C, M);
        int32_t t = LI_OP(c, LG_OP_TRANSPOSE_CONV, &o, LG_FLOAT32, ost, ft, xt, zt);
        if (g.s[0] > 1) {
            /* [N, D, 1, F] padded to [N, D, sd, F]: each slice followed by sd - 1 zero rows */
            int32_t p32[8] = {0, 0, 0, 0, 0, (int32_t)(g.s[0] - 1), 0, 0};
            t = LI_OP(c, LG_OP_PAD, NULL, -1, li_reshape(c, t, (const int64_t[]){N, D, 1, F}, 4),
                      li_konst(c, LG_INT32, (const int64_t[]){4, 2}, 2, p32, sizeof p32));
        }
        t = li_reshape(c, t, (const int64_t[]){N, D * g.s[0], F}, 3);
        t = li_slice(c, t, (const int64_t[]){0, 0, 0}, (const int64_t[]){N, L, F}, (const int64_t[]){1, 1, 1}, 0);
        int32_t q32[6] = {0, 0, (int32_t)(j * g.d[0]), (int32_t)(full[0] - j * g.d[0] - L), 0, 0};
        t = LI_OP(c, LG_OP_PAD, NULL, -1, t, li_konst(c, LG_INT32, (const int64_t[]){3, 2}, 2, q32, sizeof q32));
        acc = acc < 0 ? t : li_binary(c, LG_OP_ADD, acc, t);
    }
    free(zb);
    free(w2);
    LI_TRY(c);
    int32_t y = li_transpose(c, li_reshape(c, acc, (const int64_t[]){N, full[0], full[1], full[2], M}, 5), ncdhw, 5);
    int64_t sb[5] = {0, 0, g.pb[0], g.pb[1], g.pb[2]};
    int64_t se[5] = {N, M, g.pb[0] + out[0], g.pb[1] + out[1], g.pb[2] + out[2]}, ss[5] = {1, 1, 1, 1, 1};
    y = li_slice(c, y, sb, se, ss, 0);
    if (b) {
        int32_t bt = bf ? li_kf32(c, (const int64_t[]){M, 1, 1, 1}, 4, bf) : li_reshape(c, b->t, (const int64_t[]){M, 1, 1, 1}, 4);
        y = li_binary(c, LG_OP_ADD, y, bt);
    }
    return li_out(c, 0, y, x->onnx_type);
}

static lg_status lower_conv_transpose(li_ctx *c) {
    const li_val *x = li_need(c, 0), *w = li_need(c, 1), *b = li_in(c, 2);
    LI_TRY(c);
    int r = li_rank(c, x->t);
    if (r < 3 || r > 5) return li_unsupported(c, "%d-D input (1-D to 3-D)", r - 2);
    if (li_type(c, x->t) != LG_FLOAT32) return li_unsupported(c, "non-float input");
    const float *wf = li_const_f32(c, w->t);
    if (li_type(c, w->t) != LG_FLOAT32) return li_unsupported(c, "non-float weights");
    if (li_rank(c, w->t) != r) return li_bad(c, LG_ERR_FORMAT, "weights of rank %d", li_rank(c, w->t));
    if (r == 5) return lower_conv_transpose3d(c, x, w, b);
    int64_t G = li_attr_i(c->node, "group", 1);
    int64_t C = li_dim(c, x->t, 1), Mg = li_dim(c, w->t, 1);
    if (li_dim(c, w->t, 0) != C) return li_bad(c, LG_ERR_FORMAT, "weights do not match the input channels");
    if (G < 1 || G > 4096 || C % G) return li_bad(c, LG_ERR_FORMAT, "group %lld does not divide the %lld channels", (long long)G, (long long)C);
    int64_t Cg = C / G, M = Mg * G;
    int64_t kern[2] = {li_dim(c, w->t, 2), r == 4 ? li_dim(c, w->t, 3) : 0};
    conv_geom g;
    LG_TRY(ct_geom(c, r - 2, x->t, kern, &g));
    int64_t ek[2], full[2], out[2];
    for (int i = 0; i < 2; i++) {
        ek[i] = (g.k[i] - 1) * g.d[i] + 1;
        full[i] = (g.in[i] - 1) * g.s[i] + ek[i] + g.op[i];
        out[i] = full[i] - g.pb[i] - g.pe[i];
        if (out[i] < 1) return li_bad(c, LG_ERR_FORMAT, "empty output");
    }
    if (!wf && (g.d[0] != 1 || g.d[1] != 1)) return li_unsupported(c, "dilations with weights computed at run time");
    const float *bf = b ? li_const_f32(c, b->t) : NULL;
    int32_t runtime_bias = b && !bf ? b->t : -1;
    if (bf && lg_tensor_numel(li_t(c, b->t)) != M) return li_bad(c, LG_ERR_FORMAT, "bias of %lld values for %lld channels", (long long)lg_tensor_numel(li_t(c, b->t)), (long long)M);
    int32_t xn = li_to_nhwc(c, to4(c, x->t));
    /* runtime weights: [C, Mg, kh, kw] -> [Mg, kh, kw, C], each group a slice of the last axis */
    static const int p1230[4] = {1, 2, 3, 0};
    int32_t wall = wf ? -1 : li_transpose(c, to4(c, w->t), p1230, 4);
    int32_t *parts = calloc((size_t)G * 2, sizeof *parts);
    if (!parts) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    int32_t *xs = parts + G;
    if (G == 1) {
        xs[0] = xn;
    } else if (G > 8) {
        /* li_op_n takes at most 8 outputs: one STRIDED_SLICE per group */
        for (int64_t gi = 0; gi < G && LI_OK(c); gi++) {
            int64_t sb[4] = {0, 0, 0, gi * Cg}, ss[4] = {1, 1, 1, 1};
            int64_t se[4] = {li_dim(c, xn, 0), li_dim(c, xn, 1), li_dim(c, xn, 2), (gi + 1) * Cg};
            xs[gi] = li_slice(c, xn, sb, se, ss, 0);
        }
    } else {
        lg_split_options so = {(int32_t)G};
        int32_t ins[2] = {li_ki(c, 3), xn};
        int *types = malloc((size_t)G * sizeof *types);
        if (!types) {
            free(parts);
            return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        }
        for (int64_t gi = 0; gi < G; gi++) types[gi] = LG_FLOAT32;
        li_op_n(c, LG_OP_SPLIT, ins, 2, &so, types, xs, (uint32_t)G);
        free(types);
    }
    int64_t osh[4] = {li_dim(c, x->t, 0), full[0], full[1], Mg};
    int32_t ost = li_ki32(c, osh, 4);
    lg_transpose_conv_options o;
    lg_opts_init(LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o, sizeof o);
    o.padding = LG_PADDING_VALID;
    o.stride_h = (int32_t)g.s[0], o.stride_w = (int32_t)g.s[1];
    for (int64_t gi = 0; gi < G && LI_OK(c); gi++) {
        int32_t ft;
        if (wf) {
            ft = ct_filter(c, wf, &g, ek, gi, Cg, Mg);
        } else {
            int64_t sb[4] = {0, 0, 0, gi * Cg}, se[4] = {Mg, ek[0], ek[1], (gi + 1) * Cg}, ss[4] = {1, 1, 1, 1};
            ft = li_slice(c, wall, sb, se, ss, 0);
        }
        float *bias = calloc((size_t)Mg, sizeof *bias);
        if (!bias) {
            free(parts);
            return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        }
        for (int64_t m = 0; m < Mg; m++) bias[m] = bf ? bf[gi * Mg + m] : 0;
        int32_t bt = li_kf32(c, &Mg, 1, bias);
        free(bias);
        parts[gi] = LI_OP(c, LG_OP_TRANSPOSE_CONV, &o, LG_FLOAT32, ost, ft, xs[gi], bt);
    }
    int32_t y = parts[0];
    if (G > 1 && LI_OK(c)) {
        lg_concatenation_options co = {0};
        co.axis = 3;
        y = li_op(c, LG_OP_CONCATENATION, parts, (uint32_t)G, &co, -1);
    }
    free(parts);
    LI_TRY(c);
    y = li_to_nchw(c, y);
    int64_t sb[4] = {0, 0, g.pb[0], g.pb[1]}, se[4] = {osh[0], M, g.pb[0] + out[0], g.pb[1] + out[1]};
    int64_t ss[4] = {1, 1, 1, 1};
    y = li_slice(c, y, sb, se, ss, 0);
    y = from4(c, y, r);
    if (runtime_bias >= 0) {
        int64_t rd[3] = {M, 1, 1};
        y = li_binary(c, LG_OP_ADD, y, li_reshape(c, runtime_bias, rd, (uint32_t)(r - 1)));
    }
    return li_out(c, 0, y, x->onnx_type);
}

/* ------------------------------------------------------------------ Gemm, MatMul */

/* y = x @ B for a constant 2-D B [K, N] (scaled by alpha): FULLY_CONNECTED with weights
   B^T [N, K], keep_num_dims, bias (may be -1). */
static int32_t fc(li_ctx *c, int32_t x, const float *B, int64_t K, int64_t N, bool b_is_nk, float alpha,
                  int32_t bias) {
    float *wt = malloc((size_t)(K * N > 0 ? K * N : 1) * sizeof *wt);
    if (!wt) {
        c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        return -1;
    }
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++) wt[n * K + k] = (b_is_nk ? B[n * K + k] : B[k * N + n]) * alpha;
    int64_t wd[2] = {N, K};
    int32_t w = li_kf32(c, wd, 2, wt);
    free(wt);
    lg_fully_connected_options o;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &o, sizeof o);
    o.keep_num_dims = true;
    return LI_OP(c, LG_OP_FULLY_CONNECTED, &o, -1, x, w, bias);
}

static int32_t bmm(li_ctx *c, int32_t a, int32_t b) {
    lg_batch_mat_mul_options o;
    lg_opts_init(LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o, sizeof o);
    return LI_OP(c, LG_OP_BATCH_MATMUL, &o, -1, a, b);
}

static lg_status lower_matmul(li_ctx *c) {
    const li_val *a = li_need(c, 0), *b = li_need(c, 1);
    LI_TRY(c);
    if (li_type(c, a->t) != LG_FLOAT32 || li_type(c, b->t) != LG_FLOAT32) return li_unsupported(c, "non-float MatMul");
    int ra = li_rank(c, a->t), rb = li_rank(c, b->t);
    int32_t at = a->t, bt = b->t;
    lg_shape sa = li_shape(c, at), sb = li_shape(c, bt);
    /* numpy: a 1-D operand gains a dim that is removed afterwards */
    if (ra == 1) {
        int64_t d[2] = {1, sa.dim[0]};
        at = li_reshape(c, at, d, 2);
    }
    if (rb == 1) {
        int64_t d[2] = {sb.dim[0], 1};
        bt = li_reshape(c, bt, d, 2);
    }
    int32_t y;
    const float *bf = li_const_f32(c, bt);
    if (bf && li_rank(c, bt) == 2 && !li_is_const(c, at)) {
        y = fc(c, at, bf, li_dim(c, bt, 0), li_dim(c, bt, 1), false, 1.0f, -1);
    } else {
        y = bmm(c, at, bt);
    }
    LI_TRY(c);
    if (ra == 1 || rb == 1) {
        lg_shape s = li_shape(c, y);
        int64_t d[LG_MAX_RANK];
        int n = 0;
        for (int i = 0; i < s.rank; i++) {
            if (ra == 1 && i == s.rank - 2) continue;
            if (rb == 1 && i == s.rank - 1) continue;
            d[n++] = s.dim[i];
        }
        y = li_reshape(c, y, d, (uint32_t)n);
    }
    return li_out(c, 0, y, a->onnx_type);
}

static lg_status lower_gemm(li_ctx *c) {
    const li_val *a = li_need(c, 0), *b = li_need(c, 1), *cc = li_in(c, 2);
    LI_TRY(c);
    if (li_type(c, a->t) != LG_FLOAT32) return li_unsupported(c, "non-float Gemm");
    if (li_rank(c, a->t) != 2 || li_rank(c, b->t) != 2) return li_bad(c, LG_ERR_FORMAT, "Gemm operands must be 2-D");
    float alpha = li_attr_f(c->node, "alpha", 1.0f), beta = li_attr_f(c->node, "beta", 1.0f);
    bool ta = li_attr_i(c->node, "transA", 0) != 0, tb = li_attr_i(c->node, "transB", 0) != 0;
    int32_t at = a->t;
    static const int p10[2] = {1, 0};
    if (ta) at = li_transpose(c, at, p10, 2);
    int64_t K = li_dim(c, at, 1);
    int64_t N = tb ? li_dim(c, b->t, 0) : li_dim(c, b->t, 1);
    if (c->opset < 7 && cc) {
        /* Gemm-1 and -6 (Changelog.md): C is (M, N) unless broadcast=1 ("input tensor C will
           be broadcasted to match the dimension requirement"); Gemm-7 broadcasts C
           unidirectionally. So a C that does not broadcast to (M, N) is malformed, and one
           that does means the same. */
        lg_shape cs = li_shape(c, cc->t);
        int64_t want[2] = {li_dim(c, at, 0), N};
        bool exact = cs.rank == 2 && cs.dim[0] == want[0] && cs.dim[1] == want[1], fits = cs.rank <= 2;
        for (int i = 0; i < cs.rank && fits; i++)
            fits = cs.dim[i] == 1 || cs.dim[i] == want[2 - cs.rank + i];
        if (!exact && (!fits || li_attr_i(c->node, "broadcast", 0) == 0))
            return li_bad(c, LG_ERR_FORMAT, "opset %lld form: C does not have the output's shape (%lld, %lld)%s",
                          (long long)c->opset, (long long)want[0], (long long)want[1],
                          fits ? " and broadcast is 0" : "");
    }
    const float *bf = li_const_f32(c, b->t);
    int32_t y;
    int32_t bias = -1;
    bool bias_done = false;
    if (bf && !li_is_const(c, at)) {
        /* C of shape [N] or [1, N] (or a scalar) becomes FC's bias */
        if (cc) {
            const float *cf = li_const_f32(c, cc->t);
            lg_shape cs = li_shape(c, cc->t);
            int64_t cn = lg_shape_numel(&cs);
            if (cf && (cn == N || cn == 1) && (cs.rank <= 1 || (cs.rank == 2 && cs.dim[0] == 1))) {
                float *bb = malloc((size_t)N * sizeof *bb);
                if (!bb) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
                for (int64_t i = 0; i < N; i++) bb[i] = beta * cf[cn == 1 ? 0 : i];
                bias = li_kf32(c, &N, 1, bb);
                free(bb);
                bias_done = true;
            }
        }
        y = fc(c, at, bf, K, N, tb, alpha, bias);
    } else {
        int32_t bt = b->t;
        if (tb) bt = li_transpose(c, bt, p10, 2);
        y = bmm(c, at, bt);
        if (alpha != 1.0f) y = li_binary(c, LG_OP_MUL, y, li_kf(c, alpha));
    }
    if (cc && !bias_done) {
        int32_t ct = cc->t;
        if (beta != 1.0f) ct = li_binary(c, LG_OP_MUL, ct, li_kf(c, beta));
        y = li_binary(c, LG_OP_ADD, y, ct);
    }
    return li_out(c, 0, y, a->onnx_type);
}

/* ------------------------------------------------------------------ BatchNormalization */

/* (x - mean) * (gamma / sqrt(var + eps)) + beta with [C, 1, ...] constants: the inference form.
   Versions (onnx/docs/Changelog.md): BatchNormalization-1 and -6 have is_test (default 0, the
   training form that normalizes with the batch's statistics: refused) and spatial;
   BatchNormalization-7 drops is_test (inference is the form with only Y) and keeps spatial,
   whose 0 form has per-activation parameters of shape (C x D1 x ... x Dn), the same formula
   elementwise (here the constants keep that shape); BatchNormalization-9 removes spatial;
   -14 adds training_mode. BatchNormalization-6 does not say what shape spatial=0's
   parameters have: refused. */
static lg_status lower_batchnorm(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    for (uint32_t k = 1; k < c->node->n_outputs; k++)
        if (li_has_out(c, k)) return li_unsupported(c, "training outputs");
    if (li_attr_i(c->node, "training_mode", 0)) return li_unsupported(c, "training_mode");
    if (c->opset < 7 && li_attr_i(c->node, "is_test", 0) == 0)
        return li_unsupported(c, "opset %lld form with is_test=0 (training: the batch's own statistics)", (long long)c->opset);
    bool spatial = c->opset >= 9 || li_attr_i(c->node, "spatial", 1) != 0;
    if (!spatial && c->opset < 7)
        return li_unsupported(c, "opset %lld form with spatial=0 (its parameter shapes are defined from opset 7)", (long long)c->opset);
    int r = li_rank(c, x->t);
    if (r < 2) return li_bad(c, LG_ERR_FORMAT, "input rank %d", r);
    lg_shape xs = li_shape(c, x->t);
    int64_t C = li_dim(c, x->t, 1), per = C;
    if (!spatial)
        for (int i = 2; i < r; i++) per *= xs.dim[i];
    const float *p[4];
    for (int k = 0; k < 4; k++) {
        const li_val *v = li_need(c, 1 + (uint32_t)k);
        LI_TRY(c);
        p[k] = li_const_f32(c, v->t);
        if (!p[k]) return li_unsupported(c, "parameters computed at run time");
        if (lg_tensor_numel(li_t(c, v->t)) != per)
            return li_bad(c, LG_ERR_FORMAT, "parameter %d has %lld values, not %lld%s", k + 1,
                          (long long)lg_tensor_numel(li_t(c, v->t)), (long long)per, spatial ? "" : " (spatial=0: C x D1 x ... x Dn)");
    }
    C = per;
    double eps = li_attr_f(c->node, "epsilon", 1e-5f);
    float *sc = malloc((size_t)C * sizeof *sc), *mu = malloc((size_t)C * sizeof *mu), *be = malloc((size_t)C * sizeof *be);
    if (!sc || !mu || !be) {
        free(sc), free(mu), free(be);
        return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < C; i++) {
        sc[i] = (float)((double)p[0][i] / sqrt((double)p[3][i] + eps));
        mu[i] = p[2][i];
        be[i] = p[1][i];
    }
    int64_t d[LG_MAX_RANK];
    d[0] = li_dim(c, x->t, 1);
    for (int i = 1; i < r - 1; i++) d[i] = spatial ? 1 : xs.dim[i + 1];
    int32_t ks = li_kf32(c, d, (uint32_t)(r - 1), sc), km = li_kf32(c, d, (uint32_t)(r - 1), mu),
            kb = li_kf32(c, d, (uint32_t)(r - 1), be);
    free(sc), free(mu), free(be);
    int32_t y = li_binary(c, LG_OP_SUB, x->t, km);
    y = li_binary(c, LG_OP_MUL, y, ks);
    y = li_binary(c, LG_OP_ADD, y, kb);
    return li_out(c, 0, y, x->onnx_type);
}

const li_op_entry li_ops_conv[] = {
    {"Conv", 1, 99, lower_conv},
    {"ConvTranspose", 1, 99, lower_conv_transpose},
    {"MatMul", 1, 99, lower_matmul},
    {"Gemm", 1, 99, lower_gemm},                       /* Gemm-1/6: broadcast (lower_gemm) */
    {"BatchNormalization", 1, 99, lower_batchnorm},    /* -1/6/7: is_test, spatial (lower_batchnorm) */
    {NULL, 0, 0, NULL},
};
