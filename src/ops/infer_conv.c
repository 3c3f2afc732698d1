/* Shape inference for the conv family (conv.def), the few misc.def rows whose shapes are
 * static, and MediaPipe's custom ops (custom.def). Every rule follows the Prepare function
 * of the TFLite kernel named above it (tensorflow/lite/kernels/...), or MediaPipe's
 * mediapipe/util/tflite/operations/... for the custom ops. */
#include "ops/infer_conv.h"

/* ------------------------------------------------------------------ helpers */

/* Dimension d of s, -1 when the rank is unknown or too small. */
static int32_t dim(const lg_shape *s, int32_t d) { return d >= 0 && s->rank > d ? s->dim[d] : -1; }

static const lg_shape *in_shape(const lg_infer_ctx *c, uint32_t i) {
    static const lg_shape unknown = {-1, {0}};
    return lgo_has(c, i) ? &c->in[i].shape : &unknown;
}

/* Input i, when present and of known rank, must have rank `rank`. */
static lg_status want_rank(const lg_infer_ctx *c, uint32_t i, int32_t rank, const char *what) {
    if (!lgo_has(c, i)) return LG_OK;
    int32_t r = c->in[i].shape.rank;
    if (r >= 0 && r != rank)
        return lgo_fail(c, "%s (input %u) has rank %d, expected %d", what, i, r, rank);
    return LG_OK;
}

/* Two dimensions that must agree, when both are known. */
static lg_status same_dim(const lg_infer_ctx *c, int32_t a, int32_t b, const char *what) {
    if (a >= 0 && b >= 0 && a != b) return lgo_fail(c, "%s: %d vs %d", what, a, b);
    return LG_OK;
}

static lg_status check_padding(const lg_infer_ctx *c, int padding) {
    if (padding != LG_PADDING_SAME && padding != LG_PADDING_VALID)
        return lgo_fail(c, "unknown padding %d", padding);
    return LG_OK;
}

/* Strides, dilations and pooling windows are >= 1 (TFLite's ComputeOutSize turns a zero
   stride into an empty output; no kernel computes anything meaningful from it). */
static lg_status check_steps(const lg_infer_ctx *c, int32_t a, int32_t b, const char *what) {
    if (a < 1 || b < 1) return lgo_fail(c, "%s %dx%d must be >= 1", what, a, b);
    return LG_OK;
}

/* Output size along one dimension (tensorflow/lite/kernels/padding.h ComputeOutSize). SAME
   does not need the filter size. */
static int32_t win(int32_t in, int32_t k, int32_t stride, int32_t dilation, int padding) {
    if (padding == LG_PADDING_SAME) return in < 0 ? -1 : lgo_window_out(in, 1, stride, 1, padding);
    return lgo_window_out(in, k, stride, dilation, padding);
}

/* The bias (input i, optional) holds one value per output channel. */
static lg_status check_bias(const lg_infer_ctx *c, uint32_t i, int32_t oc) {
    if (!lgo_has(c, i) || oc < 0) return LG_OK;
    int64_t n = lg_shape_numel(&c->in[i].shape);
    if (n >= 0 && n != oc)
        return lgo_fail(c, "bias (input %u) has %lld values for %d output channels", i, (long long)n, oc);
    return LG_OK;
}

static void set_out(lg_infer_ctx *c, uint32_t o, int32_t rank, const int32_t *dims) {
    if (o < c->n_out) c->out[o] = lgo_shape(rank, dims);
}

/* Output o's shape from the integer values of input i (TRANSPOSE_CONV's output_shape, the
   random ops' shape): the values when constant (want_len values when want_len >= 0), else
   the rank when input i is a 1-D tensor of known length, else unknown. */
static lg_status shape_from_input(lg_infer_ctx *c, uint32_t i, int32_t want_len, uint32_t o,
                                  const char *what) {
    int64_t v[64];
    uint32_t n = 0;
    lg_status st;
    if (o >= c->n_out) return LG_OK;
    if (lgo_const_ints(c, i, v, 64, &n, &st)) {
        if (want_len >= 0 && n != (uint32_t)want_len)
            return lgo_fail(c, "%s (input %u) has %u values, expected %d", what, i, n, want_len);
        if (n > LG_MAX_RANK) return LG_OK; /* beyond the IR's ranks: left unknown */
        int32_t d[LG_MAX_RANK];
        for (uint32_t k = 0; k < n; k++) {
            if (v[k] < 0 || v[k] > INT32_MAX)
                return lgo_fail(c, "%s (input %u) value %u is %lld", what, i, k, (long long)v[k]);
            d[k] = (int32_t)v[k];
        }
        set_out(c, o, (int32_t)n, d);
        return LG_OK;
    }
    if (st != LG_OK) return st;
    const lg_shape *s = in_shape(c, i);
    int32_t len = s->rank == 1 ? s->dim[0] : -1;
    if (len >= 0 && want_len >= 0 && len != want_len)
        return lgo_fail(c, "%s (input %u) has %d values, expected %d", what, i, len, want_len);
    if (len >= 0 && len <= LG_MAX_RANK) c->out[o] = lgo_unknown_dims(len);
    return LG_OK;
}

/* ------------------------------------------------------------------ conv.def */

/* CONV_2D: input [b,h,w,ic], filter [oc,kh,kw,ic/groups], bias [oc] -> [b,oh,ow,oc]
   (tensorflow/lite/kernels/conv.cc Prepare: groups = ic / filter ic, both must divide). */
lg_status lgo_infer_conv2d(lg_infer_ctx *c) {
    const lg_conv2d_options *o = (const lg_conv2d_options *)c->opts;
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 4, "input"));
    LG_TRY(want_rank(c, 1, 4, "filter"));
    LG_TRY(check_padding(c, o->padding));
    LG_TRY(check_steps(c, o->stride_h, o->stride_w, "stride"));
    LG_TRY(check_steps(c, o->dilation_h_factor, o->dilation_w_factor, "dilation"));
    const lg_shape *x = in_shape(c, 0), *f = in_shape(c, 1);
    int32_t ic = dim(x, 3), oc = dim(f, 0), fic = dim(f, 3);
    if (fic == 0) return lgo_fail(c, "filter has 0 input channels");
    if (ic >= 0 && fic > 0) {
        if (ic % fic != 0)
            return lgo_fail(c, "input channels %d are not a multiple of the filter's %d", ic, fic);
        int32_t groups = ic / fic;
        if (oc >= 0 && groups > 0 && oc % groups != 0)
            return lgo_fail(c, "output channels %d are not a multiple of the %d groups", oc, groups);
    }
    LG_TRY(check_bias(c, 2, oc));
    int32_t d[4] = {dim(x, 0),
                    win(dim(x, 1), dim(f, 1), o->stride_h, o->dilation_h_factor, o->padding),
                    win(dim(x, 2), dim(f, 2), o->stride_w, o->dilation_w_factor, o->padding), oc};
    set_out(c, 0, 4, d);
    return LG_OK;
}

/* DEPTHWISE_CONV_2D: input [b,h,w,ic], filter [1,kh,kw,oc], oc a multiple of ic -> [b,oh,ow,oc]
   (tensorflow/lite/kernels/depthwise_conv.cc: the output channels are the filter's; the
   multiplier is derived from the shapes, depth_multiplier in the options is not used). */
lg_status lgo_infer_dwconv2d(lg_infer_ctx *c) {
    const lg_depthwise_conv2d_options *o = (const lg_depthwise_conv2d_options *)c->opts;
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 4, "input"));
    LG_TRY(want_rank(c, 1, 4, "filter"));
    LG_TRY(check_padding(c, o->padding));
    LG_TRY(check_steps(c, o->stride_h, o->stride_w, "stride"));
    LG_TRY(check_steps(c, o->dilation_h_factor, o->dilation_w_factor, "dilation"));
    const lg_shape *x = in_shape(c, 0), *f = in_shape(c, 1);
    int32_t ic = dim(x, 3), oc = dim(f, 3);
    LG_TRY(same_dim(c, dim(f, 0), 1, "filter dimension 0 (expected 1)"));
    if (ic == 0) return lgo_fail(c, "input has 0 channels");
    if (ic > 0 && oc >= 0 && oc % ic != 0)
        return lgo_fail(c, "filter channels %d are not a multiple of the input's %d", oc, ic);
    LG_TRY(check_bias(c, 2, oc));
    int32_t d[4] = {dim(x, 0),
                    win(dim(x, 1), dim(f, 1), o->stride_h, o->dilation_h_factor, o->padding),
                    win(dim(x, 2), dim(f, 2), o->stride_w, o->dilation_w_factor, o->padding), oc};
    set_out(c, 0, 4, d);
    return LG_OK;
}

/* TRANSPOSE_CONV: inputs output_shape [4], weights [oc,kh,kw,ic], input [b,h,w,ic], bias [oc];
   the output is output_shape's values, dynamic when it is not constant
   (tensorflow/lite/kernels/transpose_conv.cc Prepare / ResizeTensor). */
lg_status lgo_infer_transpose_conv(lg_infer_ctx *c) {
    const lg_transpose_conv_options *o = (const lg_transpose_conv_options *)c->opts;
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 1, "output_shape"));
    LG_TRY(want_rank(c, 1, 4, "weights"));
    LG_TRY(want_rank(c, 2, 4, "input"));
    LG_TRY(check_padding(c, o->padding));
    LG_TRY(check_steps(c, o->stride_h, o->stride_w, "stride"));
    LG_TRY(same_dim(c, dim(in_shape(c, 2), 3), dim(in_shape(c, 1), 3),
                    "input channels differ from the weights'"));
    LG_TRY(check_bias(c, 3, dim(in_shape(c, 1), 0)));
    return shape_from_input(c, 0, 4, 0, "output_shape");
}

/* CONV_3D: input [b,d,h,w,ic], filter [kd,kh,kw,ic,oc], bias [oc] -> [b,od,oh,ow,oc]
   (tensorflow/lite/kernels/conv3d.cc Prepare). */
lg_status lgo_infer_conv3d(lg_infer_ctx *c) {
    const lg_conv3d_options *o = (const lg_conv3d_options *)c->opts;
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 5, "input"));
    LG_TRY(want_rank(c, 1, 5, "filter"));
    LG_TRY(check_padding(c, o->padding));
    LG_TRY(check_steps(c, o->stride_h, o->stride_w, "stride"));
    LG_TRY(check_steps(c, o->stride_d, o->dilation_d_factor, "depth stride and dilation"));
    LG_TRY(check_steps(c, o->dilation_h_factor, o->dilation_w_factor, "dilation"));
    const lg_shape *x = in_shape(c, 0), *f = in_shape(c, 1);
    LG_TRY(same_dim(c, dim(x, 4), dim(f, 3), "input channels differ from the filter's"));
    int32_t oc = dim(f, 4);
    LG_TRY(check_bias(c, 2, oc));
    int32_t d[5] = {dim(x, 0),
                    win(dim(x, 1), dim(f, 0), o->stride_d, o->dilation_d_factor, o->padding),
                    win(dim(x, 2), dim(f, 1), o->stride_h, o->dilation_h_factor, o->padding),
                    win(dim(x, 3), dim(f, 2), o->stride_w, o->dilation_w_factor, o->padding), oc};
    set_out(c, 0, 5, d);
    return LG_OK;
}

/* CONV_3D_TRANSPOSE: inputs output_shape [5], filter (rank 5), input (rank 5), bias; the
   output is output_shape's values (tensorflow/lite/kernels/conv3d_transpose.cc). */
lg_status lgo_infer_conv3d_transpose(lg_infer_ctx *c) {
    const lg_conv3d_options *o = (const lg_conv3d_options *)c->opts;
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 1, "output_shape"));
    LG_TRY(want_rank(c, 1, 5, "filter"));
    LG_TRY(want_rank(c, 2, 5, "input"));
    LG_TRY(check_padding(c, o->padding));
    LG_TRY(check_steps(c, o->stride_h, o->stride_w, "stride"));
    return shape_from_input(c, 0, 5, 0, "output_shape");
}

/* FULLY_CONNECTED: weights [units, in]; keep_num_dims: [..., units] (the input's last
   dimension must be `in`); otherwise [numel(input) / in, units]
   (tensorflow/lite/kernels/fully_connected.cc PrepareImpl). A second output (the shuffled
   weights format's workspace) is left unknown. */
lg_status lgo_infer_fully_connected(lg_infer_ctx *c) {
    const lg_fully_connected_options *o = (const lg_fully_connected_options *)c->opts;
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 1, 2, "weights"));
    const lg_shape *x = in_shape(c, 0), *f = in_shape(c, 1);
    int32_t units = dim(f, 0), nin = dim(f, 1);
    LG_TRY(check_bias(c, 2, units));
    if (nin == 0) return lgo_fail(c, "weights have 0 input features");
    if (o->keep_num_dims) {
        if (x->rank < 0) return LG_OK;
        if (x->rank == 0) return lgo_fail(c, "keep_num_dims with a scalar input");
        LG_TRY(same_dim(c, x->dim[x->rank - 1], nin,
                        "keep_num_dims: the input's last dimension differs from the weights' inputs"));
        lg_shape s = *x;
        s.dim[s.rank - 1] = units;
        c->out[0] = s;
        return LG_OK;
    }
    int64_t n = lg_shape_numel(x);
    int32_t batch = -1;
    if (n >= 0 && nin > 0) {
        if (n % nin != 0)
            return lgo_fail(c, "input has %lld values, not a multiple of the weights' %d inputs",
                            (long long)n, nin);
        if (n / nin > INT32_MAX) return lgo_fail(c, "batch of %lld rows is too large", (long long)(n / nin));
        batch = (int32_t)(n / nin);
    }
    int32_t d[2] = {batch, units};
    set_out(c, 0, 2, d);
    return LG_OK;
}

/* BATCH_MATMUL: ranks 2..5; [..., m, k] x [..., k, n] (after adj_x / adj_y) with the batch
   dimensions broadcast (tensorflow/lite/kernels/batch_matmul.cc ResizeOutputTensor). */
lg_status lgo_infer_batch_matmul(lg_infer_ctx *c) {
    const lg_batch_mat_mul_options *o = (const lg_batch_mat_mul_options *)c->opts;
    lgo_all_unknown(c);
    const lg_shape *l = in_shape(c, 0), *r = in_shape(c, 1);
    for (uint32_t i = 0; i < 2; i++) {
        int32_t rk = in_shape(c, i)->rank;
        if (rk >= 0 && (rk < 2 || rk > 5))
            return lgo_fail(c, "operand %u has rank %d, expected 2 to 5", i, rk);
    }
    if (l->rank < 0 || r->rank < 0) return LG_OK;
    int32_t lr = l->dim[l->rank - 2], lc = l->dim[l->rank - 1];
    int32_t rr = r->dim[r->rank - 2], rc = r->dim[r->rank - 1];
    int32_t m = o->adj_x ? lc : lr, k = o->adj_x ? lr : lc;
    int32_t k2 = o->adj_y ? rc : rr, n = o->adj_y ? rr : rc;
    LG_TRY(same_dim(c, k, k2, "the inner (accumulation) dimensions differ"));
    lg_shape lb = *l, rb = *r, ob;
    lb.rank -= 2;
    rb.rank -= 2;
    LG_TRY(lgo_broadcast(c, &lb, &rb, &ob));
    ob.dim[ob.rank] = m;
    ob.dim[ob.rank + 1] = n;
    ob.rank += 2;
    c->out[0] = ob;
    return LG_OK;
}

/* AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D: [b,h,w,c] -> [b,oh,ow,c]
   (tensorflow/lite/kernels/pooling.cc GenericPrepare; l2_pool in pooling.cc too). */
lg_status lgo_infer_pool2d(lg_infer_ctx *c) {
    const lg_pool2d_options *o = (const lg_pool2d_options *)c->opts;
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 4, "input"));
    LG_TRY(check_padding(c, o->padding));
    LG_TRY(check_steps(c, o->stride_h, o->stride_w, "stride"));
    LG_TRY(check_steps(c, o->filter_height, o->filter_width, "filter"));
    const lg_shape *x = in_shape(c, 0);
    int32_t d[4] = {dim(x, 0), win(dim(x, 1), o->filter_height, o->stride_h, 1, o->padding),
                    win(dim(x, 2), o->filter_width, o->stride_w, 1, o->padding), dim(x, 3)};
    set_out(c, 0, 4, d);
    return LG_OK;
}

/* RESIZE_*: input [b,h,w,c], size [2] (new_height, new_width) -> [b,nh,nw,c]; dynamic when
   size is not constant (tensorflow/lite/kernels/resize_bilinear.cc and
   resize_nearest_neighbor.cc Prepare / ResizeOutputTensor). */
static lg_status infer_resize(lg_infer_ctx *c) {
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 4, "input"));
    LG_TRY(want_rank(c, 1, 1, "size"));
    const lg_shape *x = in_shape(c, 0);
    int64_t v[2];
    uint32_t n = 0;
    lg_status st;
    int32_t nh = -1, nw = -1;
    if (lgo_const_ints(c, 1, v, 2, &n, &st)) {
        if (n != 2) return lgo_fail(c, "size (input 1) has %u values, expected 2", n);
        if (v[0] < 0 || v[1] < 0 || v[0] > INT32_MAX || v[1] > INT32_MAX)
            return lgo_fail(c, "size %lldx%lld is not a size", (long long)v[0], (long long)v[1]);
        nh = (int32_t)v[0];
        nw = (int32_t)v[1];
    } else if (st != LG_OK) {
        return st;
    }
    int32_t d[4] = {dim(x, 0), nh, nw, dim(x, 3)};
    set_out(c, 0, 4, d);
    return LG_OK;
}

lg_status lgo_infer_resize_bilinear(lg_infer_ctx *c) {
    /* resize_bilinear.cc Prepare refuses align_corners with half_pixel_centers; that is a
       parameter, not a shape, and check reports it (rules.def resize-flags) rather than the
       reader refusing the file */
    return infer_resize(c);
}

lg_status lgo_infer_resize_nearest(lg_infer_ctx *c) { return infer_resize(c); }

/* NON_MAX_SUPPRESSION_V4 (5 inputs, outputs selected_indices [M], valid_outputs []) and V5
   (6 inputs, outputs selected_indices [M], selected_scores [M], valid_outputs []); M is the
   constant max_output_size, else dynamic (tensorflow/lite/kernels/non_max_suppression.cc). */
lg_status lgo_infer_nms(lg_infer_ctx *c) {
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 2, "boxes"));
    LG_TRY(want_rank(c, 1, 1, "scores"));
    LG_TRY(want_rank(c, 2, 0, "max_output_size"));
    const lg_shape *boxes = in_shape(c, 0), *scores = in_shape(c, 1);
    LG_TRY(same_dim(c, dim(boxes, 1), 4, "boxes dimension 1 (expected 4)"));
    LG_TRY(same_dim(c, dim(boxes, 0), dim(scores, 0), "boxes and scores count differently"));
    int64_t mo;
    lg_status st;
    int32_t m = -1;
    if (lgo_const_int(c, 2, &mo, &st)) {
        if (mo < 0 || mo > INT32_MAX) return lgo_fail(c, "max_output_size is %lld", (long long)mo);
        m = (int32_t)mo;
    } else if (st != LG_OK) {
        return st;
    }
    const bool v5 = c->code == LG_OP_NON_MAX_SUPPRESSION_V5;
    set_out(c, 0, 1, &m);
    if (c->n_out > 0) c->out_type[0] = LG_INT32;
    if (v5) {
        set_out(c, 1, 1, &m);
        set_out(c, 2, 0, NULL);
        if (c->n_out > 1) c->out_type[1] = LG_FLOAT32;
        if (c->n_out > 2) c->out_type[2] = LG_INT32;
    } else {
        set_out(c, 1, 0, NULL);
        if (c->n_out > 1) c->out_type[1] = LG_INT32;
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ misc.def */

/* RANDOM_STANDARD_NORMAL, RANDOM_UNIFORM: the output's shape is input 0's values
   (tensorflow/lite/kernels/random_ops.cc Prepare: dynamic unless the shape is constant). */
lg_status lgo_infer_random(lg_infer_ctx *c) {
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 1, "shape"));
    return shape_from_input(c, 0, -1, 0, "shape");
}

/* MULTINOMIAL: logits [batch, classes], num_samples (scalar) -> [batch, num_samples]
   (tensorflow/lite/kernels/multinomial.cc Prepare; dynamic unless num_samples is constant). */
lg_status lgo_infer_multinomial(lg_infer_ctx *c) {
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 2, "logits"));
    int64_t ns;
    lg_status st;
    int32_t d[2] = {dim(in_shape(c, 0), 0), -1};
    if (lgo_const_int(c, 1, &ns, &st)) {
        if (ns < 0 || ns > INT32_MAX) return lgo_fail(c, "num_samples is %lld", (long long)ns);
        d[1] = (int32_t)ns;
    } else if (st != LG_OK) {
        return st;
    }
    set_out(c, 0, 2, d);
    return LG_OK;
}

/* ------------------------------------------------------------------ custom.def */

/* The first n int32 fields of a custom op's options (MediaPipe passes TFLite's C param
   structs as raw little-endian bytes): 1 when they are all there. */
static int custom_i32s(const lg_infer_ctx *c, int32_t *v, uint32_t n) {
    if (!c->op || !c->op->custom_options || c->op->n_custom_options < 4 * n) return 0;
    for (uint32_t k = 0; k < n; k++) v[k] = (int32_t)lgi_rd_u32(c->op->custom_options + 4 * k);
    return 1;
}

/* TfLitePadding in raw custom options: 1 SAME, 2 VALID (0 unknown). */
enum { TFL_PADDING_SAME = 1, TFL_PADDING_VALID = 2 };

/* One output dimension of Convolution2DTransposeBias: stride * (in - 1) + k - pad, with
   pad = max(0, k - (in - 1) % stride - 1) for SAME, else 0. -2 when it is negative. */
static int32_t tconv_bias_out(int32_t in, int32_t k, int32_t stride, int same) {
    if (in < 0 || k < 0) return -1;
    int64_t pad = 0;
    if (same) {
        pad = (int64_t)k - (in - 1) % stride - 1;
        if (pad < 0) pad = 0;
    }
    int64_t o = (int64_t)stride * (in - 1) + k - pad;
    return o < 0 || o > INT32_MAX ? -2 : (int32_t)o;
}

/* Convolution2DTransposeBias: input [b,h,w,ic], weights [oc,kh,kw,ic], bias [oc]; custom
   options = TfLiteTransposeConvParams (padding, stride_width, stride_height as int32)
   (mediapipe/util/tflite/operations/transpose_conv_bias.cc Prepare). */
lg_status lgo_infer_tconv_bias(lg_infer_ctx *c) {
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 4, "input"));
    LG_TRY(want_rank(c, 1, 4, "weights"));
    LG_TRY(want_rank(c, 2, 1, "bias"));
    const lg_shape *x = in_shape(c, 0), *w = in_shape(c, 1);
    LG_TRY(same_dim(c, dim(w, 0), dim(in_shape(c, 2), 0), "bias length differs from the output channels"));
    LG_TRY(same_dim(c, dim(x, 3), dim(w, 3), "input channels differ from the weights'"));
    int32_t p[3], oh = -1, ow = -1;
    if (custom_i32s(c, p, 3)) {
        LG_TRY(check_steps(c, p[2], p[1], "stride (custom options)"));
        oh = tconv_bias_out(dim(x, 1), dim(w, 1), p[2], p[0] == TFL_PADDING_SAME);
        ow = tconv_bias_out(dim(x, 2), dim(w, 2), p[1], p[0] == TFL_PADDING_SAME);
        if (oh == -2 || ow == -2) return lgo_fail(c, "the output would have a negative size");
    }
    int32_t d[4] = {dim(x, 0), oh, ow, dim(w, 0)};
    set_out(c, 0, 4, d);
    return LG_OK;
}

/* The first five int32 fields of TfLitePoolParams: padding, stride_width, stride_height,
   filter_width, filter_height. */
enum { PP_PAD, PP_SW, PP_SH, PP_FW, PP_FH, PP_N };

/* MaxPoolingWithArgmax2D's output size: SAME ceil(in / s), VALID (in - f + s) / s, else 0
   (mediapipe/util/tflite/operations/max_pool_argmax.cc Prepare). -2 when negative. */
static int32_t argmax_out(int32_t in, int32_t f, int32_t s, int32_t pad) {
    if (in < 0) return -1;
    int64_t o = pad == TFL_PADDING_SAME ? ((int64_t)in + s - 1) / s
              : pad == TFL_PADDING_VALID ? ((int64_t)in - f + s) / s : 0;
    return o < 0 ? -2 : (int32_t)o;
}

/* MaxPoolingWithArgmax2D: [b,h,w,c] -> output and indices, both [b,oh,ow,c]. */
lg_status lgo_infer_maxpool_argmax(lg_infer_ctx *c) {
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 4, "input"));
    const lg_shape *x = in_shape(c, 0);
    int32_t p[PP_N], oh = -1, ow = -1;
    if (custom_i32s(c, p, PP_N)) {
        LG_TRY(check_steps(c, p[PP_SH], p[PP_SW], "stride (custom options)"));
        oh = argmax_out(dim(x, 1), p[PP_FH], p[PP_SH], p[PP_PAD]);
        ow = argmax_out(dim(x, 2), p[PP_FW], p[PP_SW], p[PP_PAD]);
        if (oh == -2 || ow == -2) return lgo_fail(c, "the window is larger than the input");
    }
    int32_t d[4] = {dim(x, 0), oh, ow, dim(x, 3)};
    set_out(c, 0, 4, d);
    set_out(c, 1, 4, d);
    return LG_OK;
}

/* MaxUnpooling2D: input and indices [b,h,w,c] -> [b, h * filter_height, w * filter_width, c]
   (mediapipe/util/tflite/operations/max_unpooling.cc Prepare). */
lg_status lgo_infer_max_unpooling(lg_infer_ctx *c) {
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 4, "input"));
    LG_TRY(want_rank(c, 1, 4, "indices"));
    const lg_shape *x = in_shape(c, 0);
    int32_t p[PP_N], oh = -1, ow = -1;
    if (custom_i32s(c, p, PP_N)) {
        LG_TRY(check_steps(c, p[PP_FH], p[PP_FW], "filter (custom options)"));
        int64_t h = dim(x, 1), w = dim(x, 2);
        if (h >= 0) oh = h * p[PP_FH] > INT32_MAX ? -2 : (int32_t)(h * p[PP_FH]);
        if (w >= 0) ow = w * p[PP_FW] > INT32_MAX ? -2 : (int32_t)(w * p[PP_FW]);
        if (oh == -2 || ow == -2) return lgo_fail(c, "the output is too large");
    }
    int32_t d[4] = {dim(x, 0), oh, ow, dim(x, 3)};
    set_out(c, 0, 4, d);
    return LG_OK;
}

/* Resampler: source [b,h,w,c], warp (rank 4) -> [b,h,w,c]
   (mediapipe/util/tflite/operations/resampler.cc Prepare). */
lg_status lgo_infer_resampler(lg_infer_ctx *c) {
    lgo_all_unknown(c);
    LG_TRY(want_rank(c, 0, 4, "source"));
    LG_TRY(want_rank(c, 1, 4, "warp"));
    if (c->n_out > 0) c->out[0] = *in_shape(c, 0);
    return LG_OK;
}

/* Output 0 has input 0's shape: TransformLandmarks (transform_landmarks.cc: v1 rank 4, v2
   rank 3, the output is input 0's shape in both). */
lg_status lgo_infer_like_input0(lg_infer_ctx *c) {
    lgo_all_unknown(c);
    if (c->n_out > 0) c->out[0] = *in_shape(c, 0);
    return LG_OK;
}
