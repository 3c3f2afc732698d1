/* `fix` passes for the convolutions: activation unfusing and the zero-stuffed transposed conv.
 *
 *  unfuse-activation  An op whose fused activation the delegates refuse (rules.def
 *                     fused-activation: the op kinds of check_ops.c act_checked with an
 *                     activation outside NONE..TANH/SIGMOID) and TRANSPOSE_CONV with any fused
 *                     activation, which op_version.cc makes version 4 while both delegates take
 *                     at most 3 (op-version) -> the op without the activation, its version the
 *                     one op_version.c computes then (3 with a bias input, else 1), followed
 *                     by the standalone RELU / RELU_N1_TO_1 / RELU6 / TANH op (both parsers
 *                     take all four). Exact for the clamps (the same max/min on the same fp32
 *                     values). TANH: the standalone TANH is the activation's meaning, which the
 *                     GPU delegates apply; TFLite's CPU kernels ignore a fused TANH on these ops
 *                     (CalculateActivationRange gives no clamp for it), and litegpu's
 *                     interpreter refuses to guess, so parity cannot be measured on such an
 *                     original. SIGN_BIT has no standalone TFLite op (and the CPU kernels
 *                     ignore it too): reported, not rewritten. Quantized outputs are left alone.
 *
 *  transpose-conv-zerostuff (and -overlap)  TRANSPOSE_CONV (NHWC input [N,H,W,Ci],
 *                     constant weights [Co,kh,kw,Ci], output_shape [N,OH,OW,Co], stride sh x sw, SAME/VALID,
 *                     optional bias) -> the seed's ZeroStuffConvT2d (rules.def
 *                     mali-transpose-conv; op-version where the fused activation made it v4):
 *
 *                       Z  = RESIZE_NEAREST_NEIGHBOR(x, [H*sh, W*sw]) * M    (if sh*sw > 1)
 *                       P  = PAD(Z, [[0,0],[kh-1-ph, pb],[kw-1-pw, pr],[0,0]])
 *                       C  = CONV_2D(P, flip(w), bias), VALID, stride 1
 *                       y  = SLICE(C, [0,0,0,0], [N,OH,OW,Co])               (if C is larger)
 *
 *                     M [1,H*sh,W*sw,1] is 1 exactly where y % sh == 0 and x % sw == 0:
 *                     Z[iy*sh, ix*sw] = x[iy, ix] and 0 elsewhere. Only those stride-aligned
 *                     positions of the resize are read (the seed's PP-OCRv5 and RAFT notes:
 *                     Mali's nearest resize differs from TFLite's at the other positions, and
 *                     a mask there picked the wrong pixel). TFLite's nearest (align_corners
 *                     and half_pixel_centers false, reference_ops.h ResizeNearestNeighbor /
 *                     GetNearestNeighbor) reads floor(o * (H / (H*sh))) in float, checked here
 *                     to be iy at o = iy*sh for every iy before the rewrite is made.
 *
 *                     Why it is the same sum. TFLite's transpose_conv.cc (Prepare/Eval,
 *                     ComputePaddingHeightWidth on the OUTPUT size, padding.h) pads by
 *                     ph = max((in'-1)*sh + kh - OH, 0) / 2 with in' = ComputeOutSize(padding,
 *                     OH, kh, sh) (SAME ceil(OH/sh), VALID (OH-kh+sh)/sh), and the reference
 *                     kernel (reference/transpose_conv.h) scatters
 *                       y[iy*sh - ph + ky][ix*sw - pw + kx] += x[iy][ix] * w[ky][kx],
 *                     keeping the positions inside [0,OH) x [0,OW). So
 *                       y[oy] = sum_ky Z[oy + ph - ky] w[ky]
 *                             = sum_j Z[oy - (kh-1-ph) + j] w[kh-1-j]           (j = kh-1-ky)
 *                     a stride-1 correlation of Z padded by kh-1-ph >= 0 rows on top (ph <=
 *                     (kh-1)/2) with the spatially flipped kernel, output row oy. Rows past Z
 *                     read zeros: the bottom pad makes the conv at least OH tall (pb = OH +
 *                     kh-1 - (kh-1-ph) - H*sh, when positive), and the SLICE crops what is
 *                     more. The same for W. The products are the same, the zeros add nothing.
 *                     When the kernel is no larger than the stride (kh <= sh, kw <= sw: the
 *                     common k2s2 upsampler, a PixelShuffle as a transposed conv) each output
 *                     has one tap and the CONV_2D adds the same products in the same order:
 *                     bit-identical (transpose-conv-zerostuff, exact). A larger kernel overlaps
 *                     its taps, which the CONV_2D adds in the flipped order: the same math,
 *                     rounded differently, beyond the runner's 1e-6 on layers of a few hundred
 *                     channels (transpose-conv-zerostuff-overlap, approximate, its bound
 *                     below). An output_shape past the natural size (PyTorch's
 *                     output_padding) only grows pb: those rows get the bias, as in the
 *                     transposed conv. An input holding inf or NaN would spread through the
 *                     zero-stuffing (inf * 0), which the transposed conv does not do: outside
 *                     the exact claim.
 *
 *                     A fused RELU/RELU6/RELU_N1_TO_1 goes onto the CONV_2D (both delegates
 *                     take those there); TANH becomes a TANH op after the crop; SIGN_BIT is
 *                     refused. Weights stored as FLOAT16 behind a DEQUANTIZE stay FLOAT16
 *                     (flipped halves, a new DEQUANTIZE). 1-D transposed convs (H = 1, kh = 1,
 *                     sh = 1), any stride (5 included): the same rewrite; with sh = sw = 1 there
 *                     is nothing to stuff (no resize, no mask). TFLite has no grouped or
 *                     depthwise TRANSPOSE_CONV (converters emit those as several ops). Runtime
 *                     weights, quantized tensors, dynamic shapes: left alone. */
#include <math.h>
#include <stdlib.h>

#include "passes/fix_util.h"

/* ------------------------------------------------------------------ unfuse-activation */

/* check_ops.c act_checked: the ops whose fused activation the delegates check. */
static bool act_checked(int32_t code) {
    switch (code) {
    case LG_OP_CONV_2D: case LG_OP_DEPTHWISE_CONV_2D: case LG_OP_AVERAGE_POOL_2D:
    case LG_OP_MAX_POOL_2D: case LG_OP_L2_POOL_2D: case LG_OP_FULLY_CONNECTED:
    case LG_OP_CONCATENATION: case LG_OP_ADD: case LG_OP_MUL: case LG_OP_SUB: case LG_OP_DIV:
    case LG_OP_TRANSPOSE_CONV:
        return true;
    default:
        return false;
    }
}

/* check_ops.c act_ok: NONE..TANH and the C enum's SIGMOID (6) pass. */
static bool act_ok(int a) { return (a >= 0 && a <= 4) || a == 6; }

/* The checker reports the op: fused-activation, or TRANSPOSE_CONV made version 4 by its
   activation (op_version.c lgv_transpose_conv: any activation 1..5 -> 4 > the max of 3). */
static bool unfuse_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    int32_t code = lgp_code(c, i);
    if (!act_checked(code)) return false;
    int act = lgf_fused_act(c, i);
    if (!act_ok(act)) return true;
    return code == LG_OP_TRANSPOSE_CONV && act >= 1 && act <= 5;
}

/* Op i's options with the fused activation cleared. */
static lg_status clear_act(lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    union {
        lg_conv2d_options conv; lg_depthwise_conv2d_options dw; lg_pool2d_options pool;
        lg_fully_connected_options fc; lg_concatenation_options cat; lg_add_options add;
        lg_sub_options sub; lg_mul_options mul; lg_div_options div; lg_transpose_conv_options tc;
    } o;
    switch (op->opts_kind) {
#define ACT_CASE(kind, m)                                                                      \
    case kind:                                                                                 \
        memcpy(&o.m, op->opts, sizeof o.m);                                                    \
        o.m.fused_activation_function = 0;                                                     \
        break;
    ACT_CASE(LG_OPTS_CONV2D_OPTIONS, conv)
    ACT_CASE(LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, dw)
    ACT_CASE(LG_OPTS_POOL2D_OPTIONS, pool)
    ACT_CASE(LG_OPTS_FULLY_CONNECTED_OPTIONS, fc)
    ACT_CASE(LG_OPTS_CONCATENATION_OPTIONS, cat)
    ACT_CASE(LG_OPTS_ADD_OPTIONS, add)
    ACT_CASE(LG_OPTS_SUB_OPTIONS, sub)
    ACT_CASE(LG_OPTS_MUL_OPTIONS, mul)
    ACT_CASE(LG_OPTS_DIV_OPTIONS, div)
    ACT_CASE(LG_OPTS_TRANSPOSE_CONV_OPTIONS, tc)
#undef ACT_CASE
    default:
        return lgi_fail(c->err, LG_ERR_INTERNAL, "unfuse-activation: op %u has no activation options", i);
    }
    return lg_op_set_options(c->m, c->sg, i, op->opts_kind, &o, c->err);
}

static lg_status unfuse_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    int act = lgf_fused_act(c, i);
    int32_t act_code = lgf_act_op(act);
    const lg_op *op = lgp_op(c, i);
    if (act_code < 0) {
        lgp_skip(c, "op %u (%s): fused activation %d has no standalone TFLite op (SIGN_BIT, or "
                 "outside the enum; TFLite's CPU kernels ignore it)", i, lg_op_name(c->m, op), act);
        return LG_OK;
    }
    if (op->n_outputs != 1 || !lgf_is_float(c, op->outputs[0])) {
        lgp_skip(c, "op %u (%s): a quantized or multi-output op keeps its fused activation", i,
                 lg_op_name(c->m, op));
        return LG_OK;
    }
    int32_t y = op->outputs[0], y2 = -1;
    const lg_tensor *ty = lgp_tensor(c, y);
    int32_t shape[LG_MAX_RANK];
    uint32_t rank = ty->rank;
    memcpy(shape, ty->shape, rank * sizeof shape[0]);
    LG_TRY(lgf_tensor_like(c, y, "preact", shape, rank, &y2));
    LG_TRY(clear_act(c, i));
    LG_TRY(lg_op_set_output(c->m, c->sg, i, 0, y2, c->err));
    LG_TRY(lgf_set_version(c, i));
    LG_TRY(lgf_op(c, act_code, &y2, 1, &y, 1, NULL));
    LG_TRY(lg_subgraph_toposort(c->m, c->sg, NULL, c->err));
    c->delta->applied++;
    return LG_OK;
}

const lg_pass lgp_unfuse_activation = {
    "unfuse-activation",
    "a fused activation the GPU refuses (TRANSPOSE_CONV v4) becomes its own RELU/RELU6/"
    "RELU_N1_TO_1/TANH op",
    {"fused-activation", "op-version", NULL},
    true, 0, unfuse_match, unfuse_apply, false};

/* ------------------------------------------------------------------ transpose-conv-zerostuff */

typedef struct tconv {
    int32_t x, w, bias, y;
    int32_t n, h, wd, ci, co, kh, kw, oh, ow, sh, sw, ph, pw;
    int act;
} tconv;

/* padding.h ComputeOutSize (dilation 1). */
static int64_t out_size(int padding, int64_t in, int64_t k, int64_t s) {
    return padding == LG_PADDING_SAME ? (in + s - 1) / s : (in - k + s) / s;
}

/* padding.h ComputePaddingWithOffset: the leading pad (total / 2, total >= 0). */
static int32_t lead_pad(int64_t s, int64_t in, int64_t k, int64_t out) {
    int64_t total = (out - 1) * s + k - in;
    return total > 0 ? (int32_t)(total / 2) : 0;
}

/* TFLite's nearest resize (no flags) at o = iy*s reads iy for every iy: float arithmetic
   exactly as reference_ops.h GetNearestNeighbor and litegpu's kernel compute it. */
static bool nearest_aligned(int64_t in, int64_t s) {
    if (s == 1) return true;
    const float scale = (float)in / (float)(in * s);
    for (int64_t iy = 0; iy < in; iy++) {
        int64_t i = (int64_t)floorf((float)(iy * s) * scale);
        if (i > in - 1) i = in - 1;
        if (i != iy) return false;
    }
    return true;
}

static bool weights_ok(const lg_pass_ctx *c, const lg_graph *g, int32_t w) {
    if (lg_tensor_is_const(c->m, c->sg, w)) return lgf_is_float(c, w) && lgp_tensor(c, w)->type == LG_FLOAT32;
    int32_t p = lg_graph_producer(g, w);
    if (p < 0 || lgp_code(c, (uint32_t)p) != LG_OP_DEQUANTIZE) return false;
    const lg_op *dq = lgp_op(c, (uint32_t)p);
    return dq->n_inputs == 1 && dq->inputs[0] >= 0 && lg_tensor_is_const(c->m, c->sg, dq->inputs[0]) &&
           lgp_tensor(c, dq->inputs[0])->type == LG_FLOAT16;
}

static bool parse_tconv(const lg_pass_ctx *c, const lg_graph *g, uint32_t i, tconv *t) {
    const lg_op *op = lgp_op(c, i);
    if (lgp_code(c, i) != LG_OP_TRANSPOSE_CONV || op->n_inputs < 3 || op->n_inputs > 4 ||
        op->n_outputs != 1 || op->opts_kind != LG_OPTS_TRANSPOSE_CONV_OPTIONS || !op->opts)
        return false;
    const lg_transpose_conv_options *o = op->opts;
    memset(t, 0, sizeof *t);
    t->w = op->inputs[1];
    t->x = op->inputs[2];
    t->bias = op->n_inputs == 4 ? op->inputs[3] : -1;
    t->y = op->outputs[0];
    if (t->x < 0 || t->w < 0 || lgp_tensor(c, t->x)->type != LG_FLOAT32 || !lgf_is_float(c, t->x) ||
        !lgf_is_float(c, t->y) || lgp_tensor(c, t->y)->type != LG_FLOAT32 ||
        !lgf_static(c, t->x) || !lgf_static(c, t->y) || !weights_ok(c, g, t->w) ||
        lg_tensor_is_const(c->m, c->sg, t->x))
        return false;
    if (t->bias >= 0 && !lgf_is_float(c, t->bias)) return false;
    int64_t os[4];
    uint32_t n = 0;
    if (!lgp_const_ints(c, op->inputs[0], os, 4, &n) || n != 4) return false;
    const lg_tensor *tx = lgp_tensor(c, t->x), *tw = lgp_tensor(c, t->w), *ty = lgp_tensor(c, t->y);
    if (tx->rank != 4 || tw->rank != 4 || ty->rank != 4) return false;
    for (int d = 0; d < 4; d++)
        if (os[d] != ty->shape[d]) return false;
    t->n = tx->shape[0]; t->h = tx->shape[1]; t->wd = tx->shape[2]; t->ci = tx->shape[3];
    t->co = tw->shape[0]; t->kh = tw->shape[1]; t->kw = tw->shape[2];
    t->oh = ty->shape[1]; t->ow = ty->shape[2];
    if (tw->shape[3] != t->ci || ty->shape[0] != t->n || ty->shape[3] != t->co) return false;
    if (t->bias >= 0 && lg_tensor_numel(lgp_tensor(c, t->bias)) != t->co) return false;
    if (o->stride_h < 1 || o->stride_w < 1 || t->h < 1 || t->wd < 1 || t->kh < 1 || t->kw < 1 ||
        t->oh < 1 || t->ow < 1)
        return false;
    if (o->padding != LG_PADDING_SAME && o->padding != LG_PADDING_VALID) return false;
    t->sh = o->stride_h;
    t->sw = o->stride_w;
    t->act = o->fused_activation_function;
    /* transpose_conv.cc: the padding of the forward conv mapping the output back */
    t->ph = lead_pad(t->sh, t->oh, t->kh, out_size(o->padding, t->oh, t->kh, t->sh));
    t->pw = lead_pad(t->sw, t->ow, t->kw, out_size(o->padding, t->ow, t->kw, t->sw));
    /* sizes the rewrite allocates stay well inside int32 */
    int64_t zs = (int64_t)t->n * t->h * t->sh * t->wd * t->sw * t->ci;
    return zs > 0 && zs < ((int64_t)1 << 30) && (int64_t)t->h * t->sh < INT32_MAX / 2 &&
           (int64_t)t->wd * t->sw < INT32_MAX / 2;
}

/* Every output position receives at most one tap (kh <= sh and kw <= sw): the CONV_2D adds
   the same products in the same order (bias, then the input channels); else the taps of an
   output are added in the flipped order. */
static bool one_tap(const tconv *t) { return t->kh <= t->sh && t->kw <= t->sw; }

static bool tconv_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    tconv t;
    return parse_tconv(c, g, i, &t) && one_tap(&t);
}

static bool tconv_overlap_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    tconv t;
    return parse_tconv(c, g, i, &t) && !one_tap(&t);
}

/* Z = RESIZE_NEAREST_NEIGHBOR(x, [H*sh, W*sw]) * M: the zero-stuffed input. */
static lg_status zero_stuff(lg_pass_ctx *c, const tconv *t, int32_t *z) {
    int32_t hz = t->h * t->sh, wz = t->wd * t->sw;
    int32_t shape[4] = {t->n, hz, wz, t->ci}, r = -1, size = -1, mask = -1;
    LG_TRY(lgf_const_i32(c, t->y, "zs_size", (const int32_t[]){hz, wz}, 2, &size));
    LG_TRY(lgf_tensor(c, t->y, "zs_resize", LG_FLOAT32, shape, 4, &r));
    lg_resize_nearest_neighbor_options ro = {false, false};
    LG_TRY(lgf_op(c, LG_OP_RESIZE_NEAREST_NEIGHBOR, (const int32_t[]){t->x, size}, 2, &r, 1, &ro));
    float *m = malloc((size_t)hz * (size_t)wz * sizeof(float));
    if (!m) return lgi_fail(c->err, LG_ERR_NOMEM, "transpose-conv-zerostuff: out of memory");
    for (int32_t yy = 0; yy < hz; yy++)
        for (int32_t xx = 0; xx < wz; xx++)
            m[(size_t)yy * (size_t)wz + (size_t)xx] = (yy % t->sh == 0 && xx % t->sw == 0) ? 1.0f : 0.0f;
    int32_t mshape[4] = {1, hz, wz, 1};
    lg_status st = lgf_const(c, t->y, "zs_mask", LG_FLOAT32, mshape, 4, m, (uint64_t)hz * (uint64_t)wz * 4, &mask);
    free(m);
    LG_TRY(st);
    LG_TRY(lgf_tensor(c, t->y, "zs_stuffed", LG_FLOAT32, shape, 4, z));
    lg_mul_options mo = {0};
    return lgf_op(c, LG_OP_MUL, (const int32_t[]){r, mask}, 2, z, 1, &mo);
}

/* The weights flipped in both spatial axes: wf[o][a][b][i] = w[o][kh-1-a][kw-1-b][i]. */
static lg_status flipped_weights(lg_pass_ctx *c, const lg_graph *g, const tconv *t, int32_t *wf) {
    float *w = NULL;
    bool fp16 = false;
    if (!lgf_const_floats(c, g, t->w, &w, &fp16))
        return lgi_fail(c->err, LG_ERR_INTERNAL, "transpose-conv-zerostuff: weights vanished");
    size_t n = (size_t)t->co * (size_t)t->kh * (size_t)t->kw * (size_t)t->ci;
    float *f = malloc(n * sizeof(float));
    if (!f) {
        free(w);
        return lgi_fail(c->err, LG_ERR_NOMEM, "transpose-conv-zerostuff: out of memory");
    }
    for (int32_t o = 0; o < t->co; o++)
        for (int32_t a = 0; a < t->kh; a++)
            for (int32_t b = 0; b < t->kw; b++)
                memcpy(f + (((size_t)o * t->kh + a) * t->kw + b) * t->ci,
                       w + (((size_t)o * t->kh + (t->kh - 1 - a)) * t->kw + (t->kw - 1 - b)) * t->ci,
                       (size_t)t->ci * sizeof(float));
    free(w);
    int32_t shape[4] = {t->co, t->kh, t->kw, t->ci};
    lg_status st = lgf_weights(c, t->w, "flipped", shape, 4, f, fp16, wf);
    free(f);
    return st;
}

static lg_status tconv_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    tconv t;
    if (!parse_tconv(c, g, i, &t)) return LG_OK;
    bool tanh_after = t.act == LG_ACTIVATION_FUNCTION_TYPE_TANH;
    if (t.act != 0 && !tanh_after && lgf_act_op(t.act) < 0) {
        lgp_skip(c, "op %u (TRANSPOSE_CONV): fused activation %d has no GPU form", i, t.act);
        return LG_OK;
    }
    if (!nearest_aligned(t.h, t.sh) || !nearest_aligned(t.wd, t.sw)) {
        lgp_skip(c, "op %u (TRANSPOSE_CONV): the nearest resize by %dx%d would not read the "
                 "stride-aligned pixels exactly", i, t.sh, t.sw);
        return LG_OK;
    }
    int32_t cur = t.x;
    if (t.sh > 1 || t.sw > 1) LG_TRY(zero_stuff(c, &t, &cur));
    int32_t hz = t.h * t.sh, wz = t.wd * t.sw;
    int32_t pt = t.kh - 1 - t.ph, pl = t.kw - 1 - t.pw;
    int32_t pb = t.oh + t.kh - 1 - pt - hz, pr = t.ow + t.kw - 1 - pl - wz;
    if (pb < 0) pb = 0;
    if (pr < 0) pr = 0;
    if (pt || pb || pl || pr) {
        int32_t pads[8] = {0, 0, pt, pb, pl, pr, 0, 0}, pshape[4] = {t.n, pt + hz + pb, pl + wz + pr, t.ci};
        int32_t pv = -1, padded = -1, two[2] = {4, 2};
        LG_TRY(lgf_const(c, t.y, "zs_paddings", LG_INT32, two, 2, pads, sizeof pads, &pv));
        LG_TRY(lgf_tensor(c, t.y, "zs_padded", LG_FLOAT32, pshape, 4, &padded));
        LG_TRY(lgf_op(c, LG_OP_PAD, (const int32_t[]){cur, pv}, 2, &padded, 1, NULL));
        cur = padded;
    }
    int32_t hc = pt + hz + pb - t.kh + 1, wc = pl + wz + pr - t.kw + 1;
    bool crop = hc != t.oh || wc != t.ow;
    int32_t wf = -1, conv_out = t.y, cshape[4] = {t.n, hc, wc, t.co};
    LG_TRY(flipped_weights(c, g, &t, &wf));
    if (crop || tanh_after) LG_TRY(lgf_tensor(c, t.y, "zs_conv", LG_FLOAT32, cshape, 4, &conv_out));
    lg_conv2d_options co;
    lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &co, sizeof co);
    co.padding = LG_PADDING_VALID;
    co.stride_h = co.stride_w = 1;
    co.dilation_h_factor = co.dilation_w_factor = 1;
    co.fused_activation_function = (int8_t)(tanh_after ? 0 : t.act);
    /* a zero bias when there is none: TFLite's CONV_2D (LiteRT.js's too) refuses an absent
       bias ("Tensor at index 2 was optional but was expected"); adding 0 is exact */
    int32_t bias = t.bias;
    if (bias < 0) {
        float *zeros = calloc((size_t)t.co, sizeof *zeros);
        if (!zeros) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory for a zero bias");
        int32_t bshape[1] = {t.co};
        lg_status bst = lgf_const(c, t.y, "zs_bias", LG_FLOAT32, bshape, 1, zeros, (uint64_t)t.co * sizeof *zeros, &bias);
        free(zeros);
        LG_TRY(bst);
    }
    LG_TRY(lgf_op(c, LG_OP_CONV_2D, (const int32_t[]){cur, wf, bias}, 3, &conv_out, 1, &co));
    int32_t last = conv_out;
    if (crop) {
        int32_t begin = -1, size = -1, sliced = t.y, oshape[4] = {t.n, t.oh, t.ow, t.co};
        LG_TRY(lgf_const_i32(c, t.y, "zs_begin", (const int32_t[]){0, 0, 0, 0}, 4, &begin));
        LG_TRY(lgf_const_i32(c, t.y, "zs_crop", oshape, 4, &size));
        if (tanh_after) LG_TRY(lgf_tensor(c, t.y, "zs_cropped", LG_FLOAT32, oshape, 4, &sliced));
        LG_TRY(lgf_op(c, LG_OP_SLICE, (const int32_t[]){conv_out, begin, size}, 3, &sliced, 1, NULL));
        last = sliced;
    }
    if (tanh_after) LG_TRY(lgf_op(c, LG_OP_TANH, &last, 1, &t.y, 1, NULL));
    /* the DEQUANTIZE of fp16 weights read only here goes too (its index is below the new ops) */
    int32_t dq = lg_tensor_is_const(c->m, c->sg, t.w) ? -1 : lg_graph_producer(g, t.w);
    if (dq >= 0 && lg_graph_n_consumers(g, t.w) == 1 && !lg_graph_is_output(g, t.w)) {
        LG_TRY(lg_op_remove(c->m, c->sg, (uint32_t)(dq > (int32_t)i ? dq : (int32_t)i), c->err));
        LG_TRY(lg_op_remove(c->m, c->sg, (uint32_t)(dq > (int32_t)i ? (int32_t)i : dq), c->err));
        LG_TRY(lg_subgraph_toposort(c->m, c->sg, NULL, c->err));
        c->delta->applied++;
        c->delta->ops_removed += 2;
        return LG_OK;
    }
    return lgf_done(c, i);
}

const lg_pass lgp_transpose_conv_zerostuff = {
    "transpose-conv-zerostuff",
    "TRANSPOSE_CONV, kernel <= stride -> nearest resize x stride, stride mask, flipped CONV_2D, crop "
    "(ZeroStuffConvT)",
    {"mali-transpose-conv", "op-version", NULL},
    true, 0, tconv_match, tconv_apply, false};

/* The bound: each output's sum of kh*kw*Ci/(sh*sw) products is folded in another order. The
   difference is a rounding of the sum (about sqrt(n) ulps of its partial sums), measured
   from 1.2e-7 (16 products) to 7.4e-6 (18432: Ci 2048, 3x3, stride 2) of the output
   magnitude on the runner's inputs; 1e-4 covers sums of some 10^6 products. */
const lg_pass lgp_transpose_conv_zerostuff_overlap = {
    "transpose-conv-zerostuff-overlap",
    "TRANSPOSE_CONV, kernel > stride -> the same ZeroStuffConvT; the taps' sums are reordered "
    "(exact up to the order of fp32 additions)",
    {"mali-transpose-conv", "op-version", NULL},
    false, 1e-4, tconv_overlap_match, tconv_apply, true};
