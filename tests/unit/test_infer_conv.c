/* Shape inference of the conv family (src/ops/infer_conv.c; rows in conv.def, misc.def,
 * custom.def): hand-derived shapes from each op's definition (the arithmetic in comments),
 * unknown-dimension propagation, contradictions that must fail and near misses that must
 * pass, the rows themselves, the corpus models' stored shapes, and the reference
 * interpreter's prepared shapes. */
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "lg/ops.h"
#include "lg/run.h"
#include "tf.h"

/* ------------------------------------------------------------------ helpers */

typedef struct im {
    lg_model *m;
    lg_builder b;
    int32_t op;
    lg_shape out[4];
    int8_t type[4];
    lg_error err;
} im;

static void im_init(im *t) {
    memset(t, 0, sizeof *t);
    CHECK_OK(lg_model_new(NULL, NULL, &t->m, &t->err), &t->err);
    lg_builder_init(&t->b, t->m, 0);
}

static void im_free(im *t) { lg_model_free(t->m); }

static int32_t ten(im *t, lg_dims s) { return lg_b_tensor(&t->b, "t", LG_FLOAT32, s); }
static int32_t cst_i(im *t, lg_dims s, const int32_t *v) { return lg_b_const_i32(&t->b, "c", s, v); }

/* Append the op and infer it from the stored shapes (in_shapes overrides them when given). */
static lg_status run_op(im *t, int32_t code, lg_dims ins, lg_dims outs, lg_opts_kind k, const void *o,
                        const lg_shape *in_shapes) {
    t->op = lg_b_op_opts(&t->b, code, ins, outs, k, o);
    if (t->b.status != LG_OK) {
        tf_fail(__FILE__, __LINE__, "builder: %s", t->b.err.msg);
        return t->b.status;
    }
    return lg_op_infer(t->m, 0, (uint32_t)t->op, in_shapes, LG_INFER_STATIC, t->out, t->type, 4, &t->err);
}

static lg_status run_custom(im *t, const char *name, lg_dims ins, lg_dims outs, const void *copts, uint32_t size) {
    t->op = lg_b_custom(&t->b, name, ins, outs, copts, size);
    if (t->b.status != LG_OK) {
        tf_fail(__FILE__, __LINE__, "builder: %s", t->b.err.msg);
        return t->b.status;
    }
    return lg_op_infer(t->m, 0, (uint32_t)t->op, NULL, LG_INFER_STATIC, t->out, t->type, 4, &t->err);
}

static void check_shape(const lg_shape *s, lg_dims want, int line) {
    char a[128];
    int ok = s->rank == (int32_t)want.n;
    for (uint32_t d = 0; ok && d < want.n; d++) ok = s->dim[d] == want.v[d];
    if (!ok) tf_fail(__FILE__, line, "inferred %s, expected rank %u", lg_shape_str(s, a, sizeof a), want.n);
}
#define CHECK_SHAPE(s, want) check_shape((s), (want), __LINE__)

static void check_fails(lg_status st, const lg_error *e, const char *substr, int line) {
    if (st != LG_ERR_INVALID_ARG) tf_fail(__FILE__, line, "status %d, expected LG_ERR_INVALID_ARG", (int)st);
    else if (!strstr(e->msg, substr)) tf_fail(__FILE__, line, "message \"%s\" lacks \"%s\"", e->msg, substr);
}
#define CHECK_FAILS(expr, t, substr) check_fails((expr), &(t)->err, (substr), __LINE__)

static lg_shape shp(lg_dims d) {
    lg_shape s;
    memset(&s, 0, sizeof s);
    s.rank = (int32_t)d.n;
    for (uint32_t i = 0; i < d.n; i++) s.dim[i] = d.v[i];
    return s;
}
static lg_shape unknown_rank(void) {
    lg_shape s;
    memset(&s, 0, sizeof s);
    s.rank = -1;
    return s;
}

static lg_conv2d_options conv_o(int pad, int sh, int sw, int dh, int dw) {
    lg_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = (int8_t)pad;
    o.stride_h = sh;
    o.stride_w = sw;
    o.dilation_h_factor = dh;
    o.dilation_w_factor = dw;
    return o;
}

/* ------------------------------------------------------------------ CONV_2D */

/* One CONV_2D with input x, filter f and bias b (absent, -1, when bias is 0) on a fresh
   model; ov overrides the input shapes when given. */
static lg_status conv_case(im *t, lg_dims x, lg_dims f, lg_dims b, int bias, const lg_conv2d_options *o,
                           const lg_shape *ov) {
    im_init(t);
    int32_t ix = ten(t, x), iw = ten(t, f), ib = bias ? ten(t, b) : -1, iy = ten(t, LG_DIMS(1));
    return run_op(t, LG_OP_CONV_2D, LG_IDS(ix, iw, ib), LG_IDS(iy), LG_OPTS_CONV2D_OPTIONS, o, ov);
}

LG_TEST(infer_conv2d_same_and_valid) {
    im t;
    /* SAME, stride 2: ceil(9 / 2) = 5 in both directions; oc = filter dim 0 = 8 */
    lg_conv2d_options o = conv_o(LG_PADDING_SAME, 2, 2, 1, 1);
    CHECK_OK(conv_case(&t, LG_DIMS(1, 9, 9, 3), LG_DIMS(8, 3, 3, 3), LG_DIMS(8), 1, &o, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 5, 5, 8));
    CHECK_EQ_INT(t.type[0], LG_FLOAT32); /* DTYPE SAME */
    im_free(&t);
    /* VALID, dilation 2 in h: effective kh = (3-1)*2+1 = 5, oh = (10-5)/1+1 = 6;
       stride 2 in w with kw 5: ow = floor((12-5)/2)+1 = 4 */
    o = conv_o(LG_PADDING_VALID, 1, 2, 2, 1);
    CHECK_OK(conv_case(&t, LG_DIMS(2, 10, 12, 4), LG_DIMS(6, 3, 5, 4), LG_DIMS(6), 1, &o, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(2, 6, 4, 6));
    im_free(&t);
    /* VALID with a window larger than the input: 0 (TFLite's (2 + 1 - 3) / 1 = 0) */
    o = conv_o(LG_PADDING_VALID, 1, 1, 1, 1);
    CHECK_OK(conv_case(&t, LG_DIMS(1, 2, 3, 1), LG_DIMS(1, 3, 3, 1), LG_DIMS(1), 0, &o, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 0, 1, 1));
    im_free(&t);
}

LG_TEST(infer_conv2d_groups_and_bias) {
    im t;
    lg_conv2d_options o = conv_o(LG_PADDING_VALID, 1, 1, 1, 1);
    /* grouped: 6 input channels, filter takes 3 -> 2 groups, 4 outputs (2 per group) */
    CHECK_OK(conv_case(&t, LG_DIMS(1, 4, 4, 6), LG_DIMS(4, 1, 1, 3), LG_DIMS(4), 1, &o, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 4, 4, 4));
    im_free(&t);
    /* 6 input channels, filter 4: not a multiple */
    CHECK_FAILS(conv_case(&t, LG_DIMS(1, 4, 4, 6), LG_DIMS(4, 1, 1, 4), LG_DIMS(4), 1, &o, NULL), &t, "multiple");
    im_free(&t);
    /* 2 groups but 3 output channels */
    CHECK_FAILS(conv_case(&t, LG_DIMS(1, 4, 4, 6), LG_DIMS(3, 1, 1, 3), LG_DIMS(3), 1, &o, NULL), &t, "groups");
    im_free(&t);
    /* bias of 7 for 8 outputs */
    CHECK_FAILS(conv_case(&t, LG_DIMS(1, 4, 4, 3), LG_DIMS(8, 1, 1, 3), LG_DIMS(7), 1, &o, NULL), &t, "bias");
    CHECK(strstr(t.err.msg, "CONV_2D") != NULL);
    im_free(&t);
    /* absent bias (-1) is fine */
    CHECK_OK(conv_case(&t, LG_DIMS(1, 4, 4, 3), LG_DIMS(8, 1, 1, 3), LG_DIMS(1), 0, &o, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 4, 4, 8));
    im_free(&t);
}

LG_TEST(infer_conv2d_errors) {
    im t;
    lg_conv2d_options o = conv_o(LG_PADDING_SAME, 1, 1, 1, 1);
    CHECK_FAILS(conv_case(&t, LG_DIMS(1, 4, 4, 3), LG_DIMS(8, 1, 3), LG_DIMS(8), 1, &o, NULL), &t, "rank 3");
    im_free(&t);
    CHECK_FAILS(conv_case(&t, LG_DIMS(4, 4, 3), LG_DIMS(8, 1, 1, 3), LG_DIMS(8), 1, &o, NULL), &t, "rank 3");
    im_free(&t);
    o = conv_o(LG_PADDING_SAME, 0, 1, 1, 1);
    CHECK_FAILS(conv_case(&t, LG_DIMS(1, 4, 4, 3), LG_DIMS(8, 1, 1, 3), LG_DIMS(8), 1, &o, NULL), &t, "stride");
    im_free(&t);
    o = conv_o(LG_PADDING_SAME, 1, 1, 1, 0);
    CHECK_FAILS(conv_case(&t, LG_DIMS(1, 4, 4, 3), LG_DIMS(8, 1, 1, 3), LG_DIMS(8), 1, &o, NULL), &t, "dilation");
    im_free(&t);
    o = conv_o(5, 1, 1, 1, 1);
    CHECK_FAILS(conv_case(&t, LG_DIMS(1, 4, 4, 3), LG_DIMS(8, 1, 1, 3), LG_DIMS(8), 1, &o, NULL), &t, "padding");
    im_free(&t);
}

LG_TEST(infer_conv2d_unknown_dims) {
    im t;
    lg_conv2d_options o = conv_o(LG_PADDING_SAME, 2, 2, 1, 1);
    /* batch and width unknown: they stay unknown, the rest as before */
    lg_shape ov[3] = {shp(LG_DIMS(-1, 9, -1, 3)), shp(LG_DIMS(8, 3, 3, 3)), shp(LG_DIMS(8))};
    CHECK_OK(conv_case(&t, LG_DIMS(1, 9, 9, 3), LG_DIMS(8, 3, 3, 3), LG_DIMS(8), 1, &o, ov), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(-1, 5, -1, 8));
    im_free(&t);
    /* input of unknown rank: still rank 4 (the kernel requires it), channels from the filter */
    ov[0] = unknown_rank();
    CHECK_OK(conv_case(&t, LG_DIMS(1, 9, 9, 3), LG_DIMS(8, 3, 3, 3), LG_DIMS(8), 1, &o, ov), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(-1, -1, -1, 8));
    im_free(&t);
    /* SAME does not need the filter's size: unknown kh still gives ceil(9/2) = 5 */
    ov[0] = shp(LG_DIMS(1, 9, 9, 3));
    ov[1] = shp(LG_DIMS(8, -1, 3, 3));
    CHECK_OK(conv_case(&t, LG_DIMS(1, 9, 9, 3), LG_DIMS(8, 3, 3, 3), LG_DIMS(8), 1, &o, ov), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 5, 5, 8));
    im_free(&t);
    /* VALID does: unknown kh gives an unknown height */
    o = conv_o(LG_PADDING_VALID, 2, 2, 1, 1);
    CHECK_OK(conv_case(&t, LG_DIMS(1, 9, 9, 3), LG_DIMS(8, 3, 3, 3), LG_DIMS(8), 1, &o, ov), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, -1, 4, 8)); /* (9-3)/2+1 = 4 */
    im_free(&t);
}

LG_TEST(infer_conv_chain_signature) {
    /* CONV_2D -> MAX_POOL_2D with a dynamic batch (shape_signature -1) propagated through
       lg_model_infer_shapes; static inference sees the stored 1 */
    im t;
    im_init(&t);
    int32_t x = ten(&t, LG_DIMS(1, 16, 16, 3)), w = ten(&t, LG_DIMS(4, 3, 3, 3));
    int32_t y = ten(&t, LG_DIMS(1, 8, 8, 4)), z = ten(&t, LG_DIMS(1, 4, 4, 4));
    CHECK_OK(lg_tensor_set_shape_signature(t.m, 0, (uint32_t)x, LG_DIMS(-1, 16, 16, 3).v, 4, &t.err), &t.err);
    lg_conv2d_options o = conv_o(LG_PADDING_SAME, 2, 2, 1, 1);
    lg_b_op_opts(&t.b, LG_OP_CONV_2D, LG_IDS(x, w, -1), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_pool2d_options p;
    memset(&p, 0, sizeof p);
    p.padding = LG_PADDING_VALID;
    p.stride_h = p.stride_w = 2;
    p.filter_height = p.filter_width = 2;
    lg_b_op_opts(&t.b, LG_OP_MAX_POOL_2D, LG_IDS(y), LG_IDS(z), LG_OPTS_POOL2D_OPTIONS, &p);
    CHECK_OK(t.b.status, &t.b.err);
    lg_shape s[4];
    CHECK_OK(lg_model_infer_shapes(t.m, 0, LG_INFER_SIGNATURE, s, &t.err), &t.err);
    /* the refinement keeps the stored batch 1 where inference says unknown (same rank) */
    CHECK_SHAPE(&s[y], LG_DIMS(1, 8, 8, 4));
    CHECK_SHAPE(&s[z], LG_DIMS(1, 4, 4, 4));
    /* op by op with the dynamic input: the batch stays unknown through both */
    lg_shape in0[3] = {shp(LG_DIMS(-1, 16, 16, 3)), shp(LG_DIMS(4, 3, 3, 3)), unknown_rank()};
    CHECK_OK(lg_op_infer(t.m, 0, 0, in0, 0, t.out, t.type, 4, &t.err), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(-1, 8, 8, 4));
    lg_shape in1[1] = {t.out[0]};
    CHECK_OK(lg_op_infer(t.m, 0, 1, in1, 0, t.out, t.type, 4, &t.err), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(-1, 4, 4, 4));
    im_free(&t);
}

/* ------------------------------------------------------------------ DEPTHWISE_CONV_2D */

static lg_status dw_case(im *t, lg_dims x, lg_dims f, int mult, int pad, int stride) {
    im_init(t);
    lg_depthwise_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = (int8_t)pad;
    o.stride_h = o.stride_w = stride;
    o.dilation_h_factor = o.dilation_w_factor = 1;
    o.depth_multiplier = mult;
    int32_t ix = ten(t, x), iw = ten(t, f), iy = ten(t, LG_DIMS(1));
    return run_op(t, LG_OP_DEPTHWISE_CONV_2D, LG_IDS(ix, iw, -1), LG_IDS(iy), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o,
                  NULL);
}

LG_TEST(infer_depthwise) {
    im t;
    /* VALID 3x3 stride 1 on 8x8: 6x6; 4 channels x multiplier 2 = filter's 8 */
    CHECK_OK(dw_case(&t, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 3, 3, 8), 2, LG_PADDING_VALID, 1), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 6, 6, 8));
    im_free(&t);
    /* the output channels come from the filter, not from depth_multiplier (TFLite derives
       the multiplier from the shapes): a stale multiplier of 1 still gives 8 */
    CHECK_OK(dw_case(&t, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 3, 3, 8), 1, LG_PADDING_SAME, 2), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 4, 4, 8));
    im_free(&t);
    CHECK_FAILS(dw_case(&t, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 3, 3, 6), 1, LG_PADDING_SAME, 1), &t, "multiple");
    im_free(&t);
    CHECK_FAILS(dw_case(&t, LG_DIMS(1, 8, 8, 4), LG_DIMS(2, 3, 3, 4), 1, LG_PADDING_SAME, 1), &t, "dimension 0");
    im_free(&t);
}

/* ------------------------------------------------------------------ transposed convs */

static lg_status tconv_case(im *t, const int32_t *os, uint32_t n_os, int os_const, lg_dims w, lg_dims x) {
    im_init(t);
    lg_transpose_conv_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_h = o.stride_w = 2;
    int32_t ios = os_const ? cst_i(t, (lg_dims){(const int32_t[]){(int32_t)n_os}, 1}, os)
                           : lg_b_tensor(&t->b, "os", LG_INT32, (lg_dims){(const int32_t[]){(int32_t)n_os}, 1});
    int32_t iw = ten(t, w), ix = ten(t, x), iy = ten(t, LG_DIMS(1));
    return run_op(t, LG_OP_TRANSPOSE_CONV, LG_IDS(ios, iw, ix), LG_IDS(iy), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o, NULL);
}

LG_TEST(infer_transpose_conv) {
    im t;
    static const int32_t os[4] = {1, 16, 15, 5};
    /* the output is the constant output_shape, whatever the strides say */
    CHECK_OK(tconv_case(&t, os, 4, 1, LG_DIMS(5, 3, 3, 4), LG_DIMS(1, 8, 8, 4)), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 16, 15, 5));
    CHECK_EQ_INT(t.type[0], -1); /* DTYPE ANY: input 0 is the int32 output_shape */
    im_free(&t);
    /* not constant: rank 4 from output_shape's length, every dimension unknown */
    CHECK_OK(tconv_case(&t, os, 4, 0, LG_DIMS(5, 3, 3, 4), LG_DIMS(1, 8, 8, 4)), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(-1, -1, -1, -1));
    im_free(&t);
    CHECK_FAILS(tconv_case(&t, os, 3, 1, LG_DIMS(5, 3, 3, 4), LG_DIMS(1, 8, 8, 4)), &t, "3 values");
    im_free(&t);
    CHECK_FAILS(tconv_case(&t, os, 4, 1, LG_DIMS(5, 3, 3, 4), LG_DIMS(1, 8, 8, 3)), &t, "channels");
    im_free(&t);
    static const int32_t neg[4] = {1, -16, 16, 5};
    CHECK_FAILS(tconv_case(&t, neg, 4, 1, LG_DIMS(5, 3, 3, 4), LG_DIMS(1, 8, 8, 4)), &t, "-16");
    im_free(&t);
}

LG_TEST(infer_conv3d) {
    im t;
    lg_conv3d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_VALID;
    o.stride_d = o.stride_h = o.stride_w = 1;
    o.dilation_d_factor = o.dilation_h_factor = o.dilation_w_factor = 1;
    /* VALID 3x3x3: 4-3+1 = 2, 8-3+1 = 6; oc = filter dim 4 = 5 */
    im_init(&t);
    int32_t x = ten(&t, LG_DIMS(1, 4, 8, 8, 2)), w = ten(&t, LG_DIMS(3, 3, 3, 2, 5)), y = ten(&t, LG_DIMS(1));
    CHECK_OK(run_op(&t, LG_OP_CONV_3D, LG_IDS(x, w), LG_IDS(y), LG_OPTS_CONV3D_OPTIONS, &o, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 2, 6, 6, 5));
    im_free(&t);
    /* SAME with stride_d 2 and stride_w 3: ceil(4/2) = 2, h 8, ceil(8/3) = 3 */
    o.padding = LG_PADDING_SAME;
    o.stride_d = 2;
    o.stride_w = 3;
    im_init(&t);
    x = ten(&t, LG_DIMS(1, 4, 8, 8, 2));
    w = ten(&t, LG_DIMS(3, 3, 3, 2, 5));
    y = ten(&t, LG_DIMS(1));
    CHECK_OK(run_op(&t, LG_OP_CONV_3D, LG_IDS(x, w), LG_IDS(y), LG_OPTS_CONV3D_OPTIONS, &o, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 2, 8, 3, 5));
    im_free(&t);
    im_init(&t);
    x = ten(&t, LG_DIMS(1, 4, 8, 8, 2));
    w = ten(&t, LG_DIMS(3, 3, 3, 3, 5));
    y = ten(&t, LG_DIMS(1));
    CHECK_FAILS(run_op(&t, LG_OP_CONV_3D, LG_IDS(x, w), LG_IDS(y), LG_OPTS_CONV3D_OPTIONS, &o, NULL), &t, "channels");
    im_free(&t);
    /* CONV_3D_TRANSPOSE: the constant output_shape */
    static const int32_t os[5] = {1, 8, 16, 16, 3};
    im_init(&t);
    int32_t ios = cst_i(&t, LG_DIMS(5), os);
    w = ten(&t, LG_DIMS(2, 2, 2, 3, 2));
    x = ten(&t, LG_DIMS(1, 4, 8, 8, 2));
    y = ten(&t, LG_DIMS(1));
    CHECK_OK(run_op(&t, LG_OP_CONV_3D_TRANSPOSE, LG_IDS(ios, w, x), LG_IDS(y), LG_OPTS_CONV3D_OPTIONS, &o, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 8, 16, 16, 3));
    im_free(&t);
}

/* ------------------------------------------------------------------ FULLY_CONNECTED */

static lg_status fc_case(im *t, lg_dims x, lg_dims w, int bias_n, bool keep, const lg_shape *ov) {
    im_init(t);
    lg_fully_connected_options o;
    memset(&o, 0, sizeof o);
    o.keep_num_dims = keep;
    int32_t ix = ten(t, x), iw = ten(t, w);
    int32_t ib = bias_n > 0 ? ten(t, (lg_dims){(const int32_t[]){bias_n}, 1}) : -1;
    int32_t iy = ten(t, LG_DIMS(1));
    return run_op(t, LG_OP_FULLY_CONNECTED, LG_IDS(ix, iw, ib), LG_IDS(iy), LG_OPTS_FULLY_CONNECTED_OPTIONS, &o, ov);
}

LG_TEST(infer_fully_connected) {
    im t;
    /* 2*3*4 = 24 values, 12 inputs per row: 2 rows of 5 units */
    CHECK_OK(fc_case(&t, LG_DIMS(2, 3, 4), LG_DIMS(5, 12), 5, false, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(2, 5));
    CHECK_EQ_INT(t.type[0], -1); /* DTYPE ANY */
    im_free(&t);
    /* keep_num_dims: [2,3,4] with 4 inputs -> [2,3,5] */
    CHECK_OK(fc_case(&t, LG_DIMS(2, 3, 4), LG_DIMS(5, 4), 0, true, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(2, 3, 5));
    im_free(&t);
    CHECK_FAILS(fc_case(&t, LG_DIMS(2, 3, 4), LG_DIMS(5, 3), 0, true, NULL), &t, "last dimension");
    im_free(&t);
    /* near miss: the same shapes without keep_num_dims are fine (24 = 8 rows of 3) */
    CHECK_OK(fc_case(&t, LG_DIMS(2, 3, 4), LG_DIMS(5, 3), 0, false, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(8, 5));
    im_free(&t);
    CHECK_FAILS(fc_case(&t, LG_DIMS(2, 3, 4), LG_DIMS(5, 7), 0, false, NULL), &t, "multiple");
    im_free(&t);
    CHECK_FAILS(fc_case(&t, LG_DIMS(2, 12), LG_DIMS(5, 12), 4, false, NULL), &t, "bias");
    im_free(&t);
    CHECK_FAILS(fc_case(&t, LG_DIMS(2, 12), LG_DIMS(5, 12, 1), 0, false, NULL), &t, "rank 3");
    im_free(&t);
    /* dynamic batch: [?, 12] -> [?, 5]; keep_num_dims [?, 7, 12] -> [?, 7, 5] */
    lg_shape ov[3] = {shp(LG_DIMS(-1, 12)), shp(LG_DIMS(5, 12)), unknown_rank()};
    CHECK_OK(fc_case(&t, LG_DIMS(2, 12), LG_DIMS(5, 12), 0, false, ov), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(-1, 5));
    im_free(&t);
    ov[0] = shp(LG_DIMS(-1, 7, 12));
    CHECK_OK(fc_case(&t, LG_DIMS(2, 7, 12), LG_DIMS(5, 12), 0, true, ov), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(-1, 7, 5));
    im_free(&t);
}

/* ------------------------------------------------------------------ BATCH_MATMUL */

static lg_status bmm_case(im *t, lg_dims l, lg_dims r, bool ax, bool ay) {
    im_init(t);
    lg_batch_mat_mul_options o;
    memset(&o, 0, sizeof o);
    o.adj_x = ax;
    o.adj_y = ay;
    int32_t il = ten(t, l), ir = ten(t, r), iy = ten(t, LG_DIMS(1));
    return run_op(t, LG_OP_BATCH_MATMUL, LG_IDS(il, ir), LG_IDS(iy), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o, NULL);
}

LG_TEST(infer_batch_matmul) {
    im t;
    /* batch dims [2,1] and [5] broadcast to [2,5]; [3,4] x [4,6] = [3,6] */
    CHECK_OK(bmm_case(&t, LG_DIMS(2, 1, 3, 4), LG_DIMS(5, 4, 6), false, false), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(2, 5, 3, 6));
    im_free(&t);
    /* adj_x: lhs [3,4,2] read as [3,2,4]; x [4,7] -> [3,2,7] */
    CHECK_OK(bmm_case(&t, LG_DIMS(3, 4, 2), LG_DIMS(4, 7), true, false), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(3, 2, 7));
    im_free(&t);
    /* adj_y: rhs [5,3] read as [3,5]; [2,3] x -> [2,5] */
    CHECK_OK(bmm_case(&t, LG_DIMS(2, 3), LG_DIMS(5, 3), false, true), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(2, 5));
    im_free(&t);
    /* near miss of the above without adj_y: [2,3] x [5,3] has k 3 vs 5 */
    CHECK_FAILS(bmm_case(&t, LG_DIMS(2, 3), LG_DIMS(5, 3), false, false), &t, "inner");
    im_free(&t);
    CHECK_FAILS(bmm_case(&t, LG_DIMS(2, 2, 3), LG_DIMS(3, 3, 4), false, false), &t, "broadcast");
    im_free(&t);
    CHECK_FAILS(bmm_case(&t, LG_DIMS(3), LG_DIMS(3, 4), false, false), &t, "rank 1");
    im_free(&t);
    CHECK_FAILS(bmm_case(&t, LG_DIMS(1, 1, 1, 1, 2, 3), LG_DIMS(3, 4), false, false), &t, "rank 6");
    im_free(&t);
}

/* ------------------------------------------------------------------ pooling and resize */

static lg_status pool_case(im *t, int32_t code, lg_dims x, int pad, int f, int s) {
    im_init(t);
    lg_pool2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = (int8_t)pad;
    o.filter_height = o.filter_width = f;
    o.stride_h = o.stride_w = s;
    int32_t ix = ten(t, x), iy = ten(t, LG_DIMS(1));
    return run_op(t, code, LG_IDS(ix), LG_IDS(iy), LG_OPTS_POOL2D_OPTIONS, &o, NULL);
}

LG_TEST(infer_pools) {
    static const int32_t codes[3] = {LG_OP_AVERAGE_POOL_2D, LG_OP_MAX_POOL_2D, LG_OP_L2_POOL_2D};
    for (int k = 0; k < 3; k++) {
        im t;
        /* 7x7, window 3, stride 2: VALID (7-3)/2+1 = 3; SAME ceil(7/2) = 4 */
        CHECK_OK(pool_case(&t, codes[k], LG_DIMS(1, 7, 7, 3), LG_PADDING_VALID, 3, 2), &t.err);
        CHECK_SHAPE(&t.out[0], LG_DIMS(1, 3, 3, 3));
        im_free(&t);
        CHECK_OK(pool_case(&t, codes[k], LG_DIMS(2, 7, 7, 3), LG_PADDING_SAME, 3, 2), &t.err);
        CHECK_SHAPE(&t.out[0], LG_DIMS(2, 4, 4, 3));
        im_free(&t);
        CHECK_FAILS(pool_case(&t, codes[k], LG_DIMS(1, 7, 7, 3), LG_PADDING_SAME, 0, 2), &t, "filter");
        im_free(&t);
        CHECK_FAILS(pool_case(&t, codes[k], LG_DIMS(7, 7, 3), LG_PADDING_SAME, 2, 2), &t, "rank 3");
        im_free(&t);
    }
}

static lg_status resize_case(im *t, int32_t code, lg_dims x, const int32_t *size, uint32_t n, int is_const,
                             bool ac, bool hp) {
    im_init(t);
    lg_resize_bilinear_options o; /* same layout as the nearest-neighbor options */
    lg_resize_nearest_neighbor_options on;
    o.align_corners = on.align_corners = ac;
    o.half_pixel_centers = on.half_pixel_centers = hp;
    int32_t ix = ten(t, x);
    lg_dims sd = {(const int32_t[]){(int32_t)n}, 1};
    int32_t is = is_const ? cst_i(t, sd, size) : lg_b_tensor(&t->b, "size", LG_INT32, sd);
    int32_t iy = ten(t, LG_DIMS(1));
    if (code == LG_OP_RESIZE_BILINEAR)
        return run_op(t, code, LG_IDS(ix, is), LG_IDS(iy), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &o, NULL);
    return run_op(t, code, LG_IDS(ix, is), LG_IDS(iy), LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS, &on, NULL);
}

LG_TEST(infer_resize) {
    static const int32_t size[3] = {8, 6, 1};
    static const int32_t codes[2] = {LG_OP_RESIZE_BILINEAR, LG_OP_RESIZE_NEAREST_NEIGHBOR};
    for (int k = 0; k < 2; k++) {
        im t;
        CHECK_OK(resize_case(&t, codes[k], LG_DIMS(1, 4, 4, 3), size, 2, 1, false, false), &t.err);
        CHECK_SHAPE(&t.out[0], LG_DIMS(1, 8, 6, 3));
        CHECK_EQ_INT(t.type[0], LG_FLOAT32);
        im_free(&t);
        CHECK_OK(resize_case(&t, codes[k], LG_DIMS(2, 4, 4, 3), size, 2, 0, false, false), &t.err);
        CHECK_SHAPE(&t.out[0], LG_DIMS(2, -1, -1, 3));
        im_free(&t);
        CHECK_FAILS(resize_case(&t, codes[k], LG_DIMS(1, 4, 4, 3), size, 3, 1, false, false), &t, "3 values");
        im_free(&t);
    }
    im t;
    /* both flags: a parameter TFLite's kernel refuses, but not a shape: inference gives the shape
       and check reports the flags (resize-flags), so the file is not refused at read time */
    CHECK_OK(resize_case(&t, LG_OP_RESIZE_BILINEAR, LG_DIMS(1, 4, 4, 3), size, 2, 1, true, true), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 8, 6, 3));
    im_free(&t);
    CHECK_OK(resize_case(&t, LG_OP_RESIZE_BILINEAR, LG_DIMS(1, 4, 4, 3), size, 2, 1, true, false), &t.err);
    im_free(&t);
    CHECK_OK(resize_case(&t, LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_DIMS(1, 4, 4, 3), size, 2, 1, true, true), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 8, 6, 3));
    im_free(&t);
}

/* ------------------------------------------------------------------ NMS, random */

static lg_status nms_case(im *t, int v5, lg_dims boxes, lg_dims scores, int max_const) {
    im_init(t);
    static const int32_t five = 5;
    static const float th = 0.5f;
    int32_t ib = ten(t, boxes), is = ten(t, scores);
    int32_t im_ = max_const ? cst_i(t, LG_SCALAR, &five) : lg_b_tensor(&t->b, "max", LG_INT32, LG_SCALAR);
    int32_t iou = lg_b_const_f32(&t->b, "iou", LG_SCALAR, &th), sth = lg_b_const_f32(&t->b, "st", LG_SCALAR, &th);
    int32_t o0 = lg_b_tensor(&t->b, "idx", LG_INT32, LG_DIMS(5));
    if (v5) {
        int32_t sig = lg_b_const_f32(&t->b, "sig", LG_SCALAR, &th);
        int32_t o1 = ten(t, LG_DIMS(5)), o2 = lg_b_tensor(&t->b, "n", LG_INT32, LG_SCALAR);
        return run_op(t, LG_OP_NON_MAX_SUPPRESSION_V5, LG_IDS(ib, is, im_, iou, sth, sig), LG_IDS(o0, o1, o2),
                      LG_OPTS_NONE, NULL, NULL);
    }
    int32_t o1 = lg_b_tensor(&t->b, "n", LG_INT32, LG_SCALAR);
    return run_op(t, LG_OP_NON_MAX_SUPPRESSION_V4, LG_IDS(ib, is, im_, iou, sth), LG_IDS(o0, o1), LG_OPTS_NONE,
                  NULL, NULL);
}

LG_TEST(infer_nms) {
    im t;
    CHECK_OK(nms_case(&t, 0, LG_DIMS(10, 4), LG_DIMS(10), 1), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(5));
    CHECK_SHAPE(&t.out[1], LG_SCALAR);
    CHECK_EQ_INT(t.type[0], LG_INT32);
    CHECK_EQ_INT(t.type[1], LG_INT32);
    im_free(&t);
    CHECK_OK(nms_case(&t, 1, LG_DIMS(10, 4), LG_DIMS(10), 1), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(5));
    CHECK_SHAPE(&t.out[1], LG_DIMS(5));
    CHECK_SHAPE(&t.out[2], LG_SCALAR);
    CHECK_EQ_INT(t.type[1], LG_FLOAT32);
    CHECK_EQ_INT(t.type[2], LG_INT32);
    im_free(&t);
    CHECK_OK(nms_case(&t, 1, LG_DIMS(10, 4), LG_DIMS(10), 0), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(-1));
    CHECK_SHAPE(&t.out[1], LG_DIMS(-1));
    im_free(&t);
    CHECK_FAILS(nms_case(&t, 0, LG_DIMS(10, 3), LG_DIMS(10), 1), &t, "expected 4");
    im_free(&t);
    CHECK_FAILS(nms_case(&t, 0, LG_DIMS(10, 4), LG_DIMS(9), 1), &t, "scores");
    im_free(&t);
}

LG_TEST(infer_random_ops) {
    im t;
    static const int32_t shape[3] = {2, 3, 7};
    im_init(&t);
    int32_t s = cst_i(&t, LG_DIMS(3), shape), y = ten(&t, LG_DIMS(1));
    CHECK_OK(run_op(&t, LG_OP_RANDOM_UNIFORM, LG_IDS(s), LG_IDS(y), LG_OPTS_NONE, NULL, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(2, 3, 7));
    im_free(&t);
    im_init(&t);
    s = lg_b_tensor(&t.b, "s", LG_INT32, LG_DIMS(3));
    y = ten(&t, LG_DIMS(1));
    CHECK_OK(run_op(&t, LG_OP_RANDOM_STANDARD_NORMAL, LG_IDS(s), LG_IDS(y), LG_OPTS_NONE, NULL, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(-1, -1, -1));
    im_free(&t);
    /* MULTINOMIAL: logits [4,10], 7 samples -> [4,7] */
    static const int32_t seven = 7;
    im_init(&t);
    int32_t lg = ten(&t, LG_DIMS(4, 10)), ns = cst_i(&t, LG_SCALAR, &seven);
    y = ten(&t, LG_DIMS(1));
    CHECK_OK(run_op(&t, LG_OP_MULTINOMIAL, LG_IDS(lg, ns), LG_IDS(y), LG_OPTS_NONE, NULL, NULL), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(4, 7));
    im_free(&t);
}

/* ------------------------------------------------------------------ MediaPipe custom ops */

static lg_status tcb_case(im *t, lg_dims x, lg_dims w, lg_dims b, const int32_t *opts, uint32_t nbytes) {
    im_init(t);
    int32_t ix = ten(t, x), iw = ten(t, w), ib = ten(t, b), iy = ten(t, LG_DIMS(1));
    return run_custom(t, "Convolution2DTransposeBias", LG_IDS(ix, iw, ib), LG_IDS(iy), opts, nbytes);
}

LG_TEST(infer_custom_tconv_bias) {
    im t;
    /* options: padding (1 SAME, 2 VALID), stride_width, stride_height.
       SAME, stride 2, k 4, in 8: pad = max(0, 4 - 7 % 2 - 1) = 2, out = 2*7 + 4 - 2 = 16 */
    static const int32_t same2[3] = {1, 2, 2};
    CHECK_OK(tcb_case(&t, LG_DIMS(1, 8, 8, 4), LG_DIMS(2, 4, 4, 4), LG_DIMS(2), same2, 12), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 16, 16, 2));
    CHECK_EQ_INT(t.type[0], LG_FLOAT32);
    im_free(&t);
    /* VALID: no padding, out = 2*7 + 4 = 18 */
    static const int32_t valid2[3] = {2, 2, 2};
    CHECK_OK(tcb_case(&t, LG_DIMS(1, 8, 8, 4), LG_DIMS(2, 4, 4, 4), LG_DIMS(2), valid2, 12), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 18, 18, 2));
    im_free(&t);
    /* width stride 1, height stride 2 (the field order): h 5, k 3: pad = max(0, 3 - 4 % 2 - 1) = 2,
       out = 2*4 + 3 - 2 = 9; w 8, k 3, stride 1: pad = 3 - 0 - 1 = 2, out = 7 + 3 - 2 = 8 */
    static const int32_t mixed[3] = {1, 1, 2};
    CHECK_OK(tcb_case(&t, LG_DIMS(1, 5, 8, 4), LG_DIMS(2, 3, 3, 4), LG_DIMS(2), mixed, 12), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 9, 8, 2));
    im_free(&t);
    /* options missing: the spatial dimensions are unknown */
    CHECK_OK(tcb_case(&t, LG_DIMS(1, 8, 8, 4), LG_DIMS(2, 4, 4, 4), LG_DIMS(2), same2, 8), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, -1, -1, 2));
    im_free(&t);
    CHECK_FAILS(tcb_case(&t, LG_DIMS(1, 8, 8, 4), LG_DIMS(2, 4, 4, 4), LG_DIMS(3), same2, 12), &t, "bias");
    im_free(&t);
    CHECK_FAILS(tcb_case(&t, LG_DIMS(1, 8, 8, 3), LG_DIMS(2, 4, 4, 4), LG_DIMS(2), same2, 12), &t, "channels");
    im_free(&t);
    static const int32_t zero_stride[3] = {1, 0, 2};
    CHECK_FAILS(tcb_case(&t, LG_DIMS(1, 8, 8, 4), LG_DIMS(2, 4, 4, 4), LG_DIMS(2), zero_stride, 12), &t, "stride");
    im_free(&t);
}

LG_TEST(infer_custom_pooling) {
    im t;
    /* TfLitePoolParams: padding, stride_w, stride_h, filter_w, filter_h, activation */
    static const int32_t same2[6] = {1, 2, 2, 2, 2, 0};
    im_init(&t);
    int32_t x = ten(&t, LG_DIMS(1, 8, 8, 3)), y = ten(&t, LG_DIMS(1)), ix = ten(&t, LG_DIMS(1));
    CHECK_OK(run_custom(&t, "MaxPoolingWithArgmax2D", LG_IDS(x), LG_IDS(y, ix), same2, 24), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 4, 4, 3)); /* ceil(8/2) */
    CHECK_SHAPE(&t.out[1], LG_DIMS(1, 4, 4, 3));
    im_free(&t);
    /* VALID, window 3 (w) x 2 (h), strides w 2 h 1 on 7x9: h (7-2+1)/1 = 6, w (9-3+2)/2 = 4 */
    static const int32_t valid[6] = {2, 2, 1, 3, 2, 0};
    im_init(&t);
    x = ten(&t, LG_DIMS(1, 7, 9, 3));
    y = ten(&t, LG_DIMS(1));
    ix = ten(&t, LG_DIMS(1));
    CHECK_OK(run_custom(&t, "MaxPoolingWithArgmax2D", LG_IDS(x), LG_IDS(y, ix), valid, 24), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 6, 4, 3));
    im_free(&t);
    /* MaxUnpooling2D: h * filter_h, w * filter_w; filter w 2, h 3 on 4x5 -> 12x10 */
    static const int32_t unp[6] = {1, 2, 3, 2, 3, 0};
    im_init(&t);
    x = ten(&t, LG_DIMS(1, 4, 5, 3));
    ix = ten(&t, LG_DIMS(1, 4, 5, 3));
    y = ten(&t, LG_DIMS(1));
    CHECK_OK(run_custom(&t, "MaxUnpooling2D", LG_IDS(x, ix), LG_IDS(y), unp, 24), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 12, 10, 3));
    im_free(&t);
    im_init(&t);
    x = ten(&t, LG_DIMS(1, 4, 5, 3));
    ix = ten(&t, LG_DIMS(4, 5, 3));
    y = ten(&t, LG_DIMS(1));
    CHECK_FAILS(run_custom(&t, "MaxUnpooling2D", LG_IDS(x, ix), LG_IDS(y), unp, 24), &t, "indices");
    im_free(&t);
    /* Resampler and TransformLandmarks keep input 0's shape */
    im_init(&t);
    x = ten(&t, LG_DIMS(1, 5, 6, 3));
    ix = ten(&t, LG_DIMS(1, 5, 6, 2));
    y = ten(&t, LG_DIMS(1));
    CHECK_OK(run_custom(&t, "Resampler", LG_IDS(x, ix), LG_IDS(y), NULL, 0), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 5, 6, 3));
    im_free(&t);
    im_init(&t);
    x = ten(&t, LG_DIMS(1, 80, 3));
    ix = ten(&t, LG_DIMS(1, 4, 4));
    y = ten(&t, LG_DIMS(1));
    CHECK_OK(run_custom(&t, "TransformLandmarks", LG_IDS(x, ix), LG_IDS(y), NULL, 0), &t.err);
    CHECK_SHAPE(&t.out[0], LG_DIMS(1, 80, 3));
    im_free(&t);
}

/* ------------------------------------------------------------------ the rows */

typedef struct row_want {
    int32_t code;
    lg_opts_kind opts;
    uint8_t min_in, max_in, min_out, max_out;
    int infer; /* 1: has an infer function */
} row_want;

LG_TEST(infer_conv_rows) {
    /* options per flatbuffer_conversions.cc ParseOpData; arity per the kernels' Prepare */
    static const row_want rows[] = {
        {LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, 2, 3, 1, 1, 1},
        {LG_OP_DEPTHWISE_CONV_2D, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, 2, 3, 1, 1, 1},
        {LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, 3, 4, 1, 1, 1},
        {LG_OP_CONV_3D, LG_OPTS_CONV3D_OPTIONS, 2, 3, 1, 1, 1},
        {LG_OP_CONV_3D_TRANSPOSE, LG_OPTS_CONV3D_OPTIONS, 3, 4, 1, 1, 1},
        {LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, 2, 3, 1, 2, 1},
        {LG_OP_BATCH_MATMUL, LG_OPTS_BATCH_MAT_MUL_OPTIONS, 2, 2, 1, 1, 1},
        {LG_OP_AVERAGE_POOL_2D, LG_OPTS_POOL2D_OPTIONS, 1, 1, 1, 1, 1},
        {LG_OP_MAX_POOL_2D, LG_OPTS_POOL2D_OPTIONS, 1, 1, 1, 1, 1},
        {LG_OP_L2_POOL_2D, LG_OPTS_POOL2D_OPTIONS, 1, 1, 1, 1, 1},
        {LG_OP_RESIZE_BILINEAR, LG_OPTS_RESIZE_BILINEAR_OPTIONS, 2, 2, 1, 1, 1},
        {LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS, 2, 2, 1, 1, 1},
        {LG_OP_NON_MAX_SUPPRESSION_V4, LG_OPTS_NON_MAX_SUPPRESSION_V4_OPTIONS, 5, 5, 2, 2, 1},
        {LG_OP_NON_MAX_SUPPRESSION_V5, LG_OPTS_NON_MAX_SUPPRESSION_V5_OPTIONS, 6, 6, 3, 3, 1},
        {LG_OP_LSTM, LG_OPTS_LSTM_OPTIONS, 5, 24, 1, 4, 0},
        {LG_OP_RNN, LG_OPTS_RNN_OPTIONS, 4, 5, 1, 2, 0},
        {LG_OP_SVDF, LG_OPTS_SVDF_OPTIONS, 4, 5, 1, 2, 0},
        {LG_OP_UNIDIRECTIONAL_SEQUENCE_RNN, LG_OPTS_SEQUENCE_RNN_OPTIONS, 4, 5, 1, 2, 0},
        {LG_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, LG_OPTS_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS, 18, 24, 1, 3, 0},
        {LG_OP_BIDIRECTIONAL_SEQUENCE_RNN, LG_OPTS_BIDIRECTIONAL_SEQUENCE_RNN_OPTIONS, 9, 12, 1, 2, 0},
        {LG_OP_BIDIRECTIONAL_SEQUENCE_LSTM, LG_OPTS_BIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS, 35, 48, 1, 6, 0},
        {LG_OP_EMBEDDING_LOOKUP_SPARSE, LG_OPTS_EMBEDDING_LOOKUP_SPARSE_OPTIONS, 4, 4, 1, 1, 0},
        {LG_OP_HASHTABLE_LOOKUP, LG_OPTS_NONE, 3, 3, 2, 2, 0},
        {LG_OP_LSH_PROJECTION, LG_OPTS_LSH_PROJECTION_OPTIONS, 2, 3, 1, 1, 0},
        {LG_OP_SKIP_GRAM, LG_OPTS_SKIP_GRAM_OPTIONS, 1, 1, 1, 1, 0},
        {LG_OP_CONCAT_EMBEDDINGS, LG_OPTS_CONCAT_EMBEDDINGS_OPTIONS, 0, LG_ARITY_ANY, 0, LG_ARITY_ANY, 0},
        {LG_OP_CALL, LG_OPTS_CALL_OPTIONS, 0, LG_ARITY_ANY, 0, LG_ARITY_ANY, 0},
        {LG_OP_CUSTOM, LG_OPTS_NONE, 0, LG_ARITY_ANY, 0, LG_ARITY_ANY, 0},
        {LG_OP_DELEGATE, LG_OPTS_NONE, 0, LG_ARITY_ANY, 0, LG_ARITY_ANY, 0},
        {LG_OP_IF, LG_OPTS_IF_OPTIONS, 1, LG_ARITY_ANY, 0, LG_ARITY_ANY, 0},
        {LG_OP_WHILE, LG_OPTS_WHILE_OPTIONS, 0, LG_ARITY_ANY, 0, LG_ARITY_ANY, 0},
        {LG_OP_CALL_ONCE, LG_OPTS_CALL_ONCE_OPTIONS, 0, 0, 0, 0, 0},
        {LG_OP_VAR_HANDLE, LG_OPTS_VAR_HANDLE_OPTIONS, 0, 0, 1, 1, 0},
        {LG_OP_READ_VARIABLE, LG_OPTS_READ_VARIABLE_OPTIONS, 1, 1, 1, 1, 0},
        {LG_OP_ASSIGN_VARIABLE, LG_OPTS_ASSIGN_VARIABLE_OPTIONS, 2, 2, 0, 0, 0},
        {LG_OP_HASHTABLE, LG_OPTS_HASHTABLE_OPTIONS, 0, 0, 1, 1, 0},
        {LG_OP_HASHTABLE_FIND, LG_OPTS_HASHTABLE_FIND_OPTIONS, 3, 3, 1, 1, 0},
        {LG_OP_HASHTABLE_IMPORT, LG_OPTS_HASHTABLE_IMPORT_OPTIONS, 3, 3, 0, 0, 0},
        {LG_OP_HASHTABLE_SIZE, LG_OPTS_HASHTABLE_SIZE_OPTIONS, 1, 1, 1, 1, 0},
        {LG_OP_RANDOM_STANDARD_NORMAL, LG_OPTS_RANDOM_OPTIONS, 1, 1, 1, 1, 1},
        {LG_OP_RANDOM_UNIFORM, LG_OPTS_RANDOM_OPTIONS, 1, 1, 1, 1, 1},
        {LG_OP_MULTINOMIAL, LG_OPTS_RANDOM_OPTIONS, 2, 2, 1, 1, 1},
        {LG_OP_RFFT2D, LG_OPTS_RFFT2D_OPTIONS, 2, 2, 1, 1, 0},
        {LG_OP_REDUCE_WINDOW, LG_OPTS_REDUCE_WINDOW_OPTIONS, 5, 5, 1, 1, 0},
        {LG_OP_PLACEHOLDER_FOR_GREATER_OP_CODES, LG_OPTS_NONE, 0, LG_ARITY_ANY, 0, LG_ARITY_ANY, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row_want *w = &rows[i];
        const lg_op_info *e = lg_op_info_builtin(w->code);
        CHECK(e != NULL && e->name != NULL);
        if (!e || !e->name) {
            tf_fail(__FILE__, __LINE__, "no row for builtin %d", (int)w->code);
            continue;
        }
        CHECK_EQ_INT(e->code, w->code);
        if (e->opts_kind != w->opts)
            tf_fail(__FILE__, __LINE__, "%s takes options %d, expected %d", e->name, (int)e->opts_kind, (int)w->opts);
        CHECK(e->opts_kind == LG_OPTS_NONE || lg_opts_name(e->opts_kind) != NULL);
        if (e->min_in != w->min_in || e->max_in != w->max_in || e->min_out != w->min_out || e->max_out != w->max_out)
            tf_fail(__FILE__, __LINE__, "%s arity %u..%u / %u..%u", e->name, e->min_in, e->max_in, e->min_out, e->max_out);
        CHECK(e->min_in <= e->max_in && e->min_out <= e->max_out);
        CHECK_EQ_INT(e->infer != NULL, w->infer);
    }
    /* the bias is optional exactly where TFLite takes an absent one */
    CHECK(lg_op_info_builtin(LG_OP_CONV_2D)->optional_in == (1u << 2));
    CHECK(lg_op_info_builtin(LG_OP_FULLY_CONNECTED)->optional_in == (1u << 2));
    CHECK(lg_op_info_builtin(LG_OP_TRANSPOSE_CONV)->optional_in == (1u << 3));
    CHECK((lg_op_info_builtin(LG_OP_LSTM)->optional_in & (1u << 18)) == 0); /* state: required */
    CHECK((lg_op_info_builtin(LG_OP_LSTM)->optional_in & (1u << 1)) != 0);  /* input_to_input */
    CHECK(lg_op_info_builtin(LG_OP_CONV_2D)->dtype == LG_DT_SAME);
    CHECK(lg_op_info_builtin(LG_OP_FULLY_CONNECTED)->dtype == LG_DT_ANY);
    CHECK(lg_op_info_builtin(LG_OP_RANDOM_UNIFORM)->flags & LG_OPF_RANDOM);
    CHECK(lg_op_info_builtin(LG_OP_WHILE)->flags & LG_OPF_SUBGRAPHS);

    static const char *const customs[] = {"Convolution2DTransposeBias", "MaxPoolingWithArgmax2D", "MaxUnpooling2D",
                                          "Resampler", "TransformLandmarks", "TransformTensorBilinear",
                                          "Landmarks2TransformMatrix", "custom_call.GroupNorm",
                                          "custom_call.LayerNorm", "custom_call.RmsNorm", "custom_call.PixelShuffle",
                                          "custom_call.absolute_positional_embedding",
                                          "custom_call.rotary_positional_embedding"};
    for (size_t i = 0; i < sizeof customs / sizeof customs[0]; i++) {
        const lg_op_info *e = lg_op_info_custom(customs[i]);
        if (!e) {
            tf_fail(__FILE__, __LINE__, "no row for custom op %s", customs[i]);
            continue;
        }
        CHECK_EQ_INT(e->code, LG_OP_CUSTOM);
        CHECK(e->opts_kind == LG_OPTS_NONE);
        CHECK(e->min_in <= e->max_in && e->min_out <= e->max_out);
    }
    CHECK(lg_op_info_custom("Convolution2DTransposeBia") == NULL); /* near miss: exact names only */
    CHECK(lg_op_info_custom("Convolution2DTransposeBias")->infer != NULL);
    CHECK(lg_op_info_custom("TransformTensorBilinear")->infer == NULL);
}

LG_TEST(infer_conv_arity_refused) {
    /* the driver holds ops to the rows: CONV_2D with 4 inputs, NMS V4 with 3 outputs */
    im t;
    im_init(&t);
    int32_t x = ten(&t, LG_DIMS(1, 4, 4, 3)), w = ten(&t, LG_DIMS(2, 1, 1, 3)), b = ten(&t, LG_DIMS(2));
    int32_t y = ten(&t, LG_DIMS(1, 4, 4, 2));
    lg_conv2d_options o = conv_o(LG_PADDING_SAME, 1, 1, 1, 1);
    CHECK_FAILS(run_op(&t, LG_OP_CONV_2D, LG_IDS(x, w, b, b), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o, NULL), &t,
                "inputs");
    CHECK_EQ_INT(lg_model_validate_ops(t.m, &t.err), LG_ERR_INVALID_ARG);
    im_free(&t);
    /* near miss: 3 inputs validate, including the stored output shape */
    im_init(&t);
    x = ten(&t, LG_DIMS(1, 4, 4, 3));
    w = ten(&t, LG_DIMS(2, 1, 1, 3));
    b = ten(&t, LG_DIMS(2));
    y = ten(&t, LG_DIMS(1, 4, 4, 2));
    CHECK_OK(run_op(&t, LG_OP_CONV_2D, LG_IDS(x, w, b), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o, NULL), &t.err);
    CHECK_OK(lg_model_validate_ops(t.m, &t.err), &t.err);
    im_free(&t);
    /* a stored output that disagrees ([1,4,4,3] for 2 channels) is refused */
    im_init(&t);
    x = ten(&t, LG_DIMS(1, 4, 4, 3));
    w = ten(&t, LG_DIMS(2, 1, 1, 3));
    y = ten(&t, LG_DIMS(1, 4, 4, 3));
    CHECK_OK(run_op(&t, LG_OP_CONV_2D, LG_IDS(x, w, -1), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o, NULL), &t.err);
    CHECK_EQ_INT(lg_model_validate_ops(t.m, &t.err), LG_ERR_INVALID_ARG);
    CHECK(strstr(t.err.msg, "[1,4,4,2]") != NULL);
    im_free(&t);
}

/* ------------------------------------------------------------------ corpus models */

static int in_family(const lg_op_info *e) {
    return e && (e->family == LG_FAM_CONV || e->family == LG_FAM_POOL || e->family == LG_FAM_RESIZE);
}

LG_TEST(infer_conv_corpus_models) {
    /* every conv/pool/resize op (and Convolution2DTransposeBias) of the corpus models,
       inferred from its stored inputs, must give its stored output exactly */
    static const char *models[5] = {"build/corpus/selfie_segmentation.tflite",
                                    "build/corpus/face_detection_short_range.tflite",
                                    "build/corpus/face_detection_full_range_sparse.tflite",
                                    "build/corpus/hand_landmark_lite.tflite", "build/corpus/pose_landmark_lite.tflite"};
    for (int mi = 0; mi < 5; mi++) {
        lg_model *m = NULL;
        lg_error err;
        if (lg_tflite_read_file(models[mi], NULL, &m, &err) != LG_OK) {
            fprintf(stderr, "  note: %s not readable (%s); skipped\n", models[mi], err.msg);
            continue;
        }
        const lg_subgraph *sg = &m->subgraphs[0];
        int n = 0, n_custom = 0, n_fc = 0;
        for (uint32_t i = 0; i < sg->n_ops; i++) {
            const lg_op *op = &sg->ops[i];
            const lg_op_info *e = lg_op_info_of(m, op);
            if (!in_family(e)) continue;
            lg_shape out[4];
            int8_t ty[4];
            lg_status st = lg_op_infer(m, 0, i, NULL, LG_INFER_STATIC, out, ty, 4, &err);
            if (st != LG_OK) {
                tf_fail(__FILE__, __LINE__, "%s op %u: %s", models[mi], i, err.msg);
                continue;
            }
            n++;
            for (uint32_t k = 0; k < op->n_inputs && k < 32; k++)
                if (op->inputs[k] < 0 && !(e->optional_in & (1u << k)))
                    tf_fail(__FILE__, __LINE__, "%s op %u (%s): absent input %u is not optional in the row",
                            models[mi], i, e->name, k);
            n_custom += lg_op_builtin(m, op) == LG_OP_CUSTOM;
            n_fc += lg_op_builtin(m, op) == LG_OP_FULLY_CONNECTED;
            for (uint32_t o = 0; o < op->n_outputs; o++) {
                lg_shape stored = lg_shape_of_tensor(&sg->tensors[op->outputs[o]], false);
                char a[96], b[96];
                int same = stored.rank == out[o].rank;
                for (int32_t d = 0; same && d < stored.rank; d++) same = stored.dim[d] == out[o].dim[d];
                if (!same)
                    tf_fail(__FILE__, __LINE__, "%s op %u (%s) output %u: stored %s, inferred %s", models[mi], i,
                            e->name, o, lg_shape_str(&stored, a, sizeof a), lg_shape_str(&out[o], b, sizeof b));
                if (ty[o] >= 0) CHECK_EQ_INT(ty[o], sg->tensors[op->outputs[o]].type);
            }
        }
        CHECK(n > 10);
        if (mi == 0) CHECK_EQ_INT(n_custom, 1); /* selfie: one Convolution2DTransposeBias */
        if (mi == 3) CHECK_EQ_INT(n_fc, 4);     /* hand_landmark_lite: 4 FULLY_CONNECTED */
        lg_model_free(m);
    }
}

/* ------------------------------------------------------------------ against the interpreter */

typedef struct xcase {
    const char *what;
    int32_t code;          /* LG_OP_CUSTOM: Convolution2DTransposeBias */
    lg_opts_kind kind;
    const void *opts;
    int32_t x[5];          /* runtime input shape (rank 4 unless x[4] set... see xrank) */
    uint32_t xrank;
    int32_t w[4];          /* constant operand (filter/weights/rhs); wrank 0: none */
    uint32_t wrank;
    int32_t bias;          /* bias length, 0: none */
    int32_t want[4];       /* hand-derived output shape */
    uint32_t wantrank;
} xcase;

static float g_zeros[1 << 14];

LG_TEST(infer_conv_matches_interpreter) {
    static lg_conv2d_options c_same2, c_valid;
    static lg_depthwise_conv2d_options dw;
    static lg_transpose_conv_options tc;
    static lg_fully_connected_options fc, fck;
    static lg_batch_mat_mul_options bm;
    static lg_pool2d_options pv, ps;
    static lg_resize_bilinear_options rb;
    static lg_resize_nearest_neighbor_options rn;
    c_same2 = conv_o(LG_PADDING_SAME, 2, 2, 1, 1);
    c_valid = conv_o(LG_PADDING_VALID, 1, 2, 2, 1);
    dw.padding = LG_PADDING_VALID;
    dw.stride_h = dw.stride_w = 1;
    dw.dilation_h_factor = dw.dilation_w_factor = 1;
    dw.depth_multiplier = 2;
    tc.padding = LG_PADDING_SAME;
    tc.stride_h = tc.stride_w = 2;
    fck.keep_num_dims = true;
    bm.adj_y = true;
    pv.padding = LG_PADDING_VALID;
    pv.filter_height = pv.filter_width = 3;
    pv.stride_h = pv.stride_w = 2;
    ps = pv;
    ps.padding = LG_PADDING_SAME;
    const xcase cases[] = {
        /* ceil(9/2) = 5 */
        {"conv same", LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &c_same2, {1, 9, 9, 3}, 4, {8, 3, 3, 3}, 4, 8, {1, 5, 5, 8}, 4},
        /* h: eff 5, 10-5+1 = 6; w: (12-5)/2+1 = 4 */
        {"conv valid", LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &c_valid, {2, 10, 12, 4}, 4, {6, 3, 5, 4}, 4, 0, {2, 6, 4, 6}, 4},
        {"depthwise", LG_OP_DEPTHWISE_CONV_2D, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &dw, {1, 8, 8, 4}, 4, {1, 3, 3, 8}, 4, 8, {1, 6, 6, 8}, 4},
        {"transpose conv", LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, &tc, {1, 8, 8, 4}, 4, {5, 3, 3, 4}, 4, 0, {1, 16, 16, 5}, 4},
        {"tconv bias", LG_OP_CUSTOM, LG_OPTS_NONE, NULL, {1, 5, 8, 4}, 4, {2, 3, 3, 4}, 4, 2, {1, 9, 8, 2}, 4},
        {"fc", LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &fc, {2, 3, 4}, 3, {5, 12}, 2, 5, {2, 5}, 2},
        {"fc keep", LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &fck, {2, 3, 4}, 3, {5, 4}, 2, 0, {2, 3, 5}, 3},
        /* [2,3,4] x adj_y [6,4] -> [2,3,6] (rhs broadcast over the batch) */
        {"bmm", LG_OP_BATCH_MATMUL, LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bm, {2, 3, 4}, 3, {6, 4}, 2, 0, {2, 3, 6}, 3},
        {"avg valid", LG_OP_AVERAGE_POOL_2D, LG_OPTS_POOL2D_OPTIONS, &pv, {1, 7, 7, 3}, 4, {0}, 0, 0, {1, 3, 3, 3}, 4},
        {"max same", LG_OP_MAX_POOL_2D, LG_OPTS_POOL2D_OPTIONS, &ps, {2, 7, 7, 3}, 4, {0}, 0, 0, {2, 4, 4, 3}, 4},
        {"bilinear", LG_OP_RESIZE_BILINEAR, LG_OPTS_RESIZE_BILINEAR_OPTIONS, &rb, {1, 4, 4, 3}, 4, {0}, 0, 0, {1, 8, 6, 3}, 4},
        {"nearest", LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS, &rn, {1, 4, 4, 3}, 4, {0}, 0, 0, {1, 8, 6, 3}, 4},
    };
    static const int32_t tconv_os[4] = {1, 16, 16, 5};
    static const int32_t tcb_opts[3] = {1, 1, 2}; /* SAME, stride_w 1, stride_h 2 */
    static const int32_t rsize[2] = {8, 6};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const xcase *c = &cases[k];
        im t;
        im_init(&t);
        int32_t x = lg_b_tensor(&t.b, "x", LG_FLOAT32, (lg_dims){c->x, c->xrank});
        int32_t w = c->wrank ? lg_b_const_f32(&t.b, "w", (lg_dims){c->w, c->wrank}, g_zeros) : -1;
        int32_t b = c->bias ? lg_b_const_f32(&t.b, "b", (lg_dims){&c->bias, 1}, g_zeros) : -1;
        int32_t y = lg_b_tensor(&t.b, "y", LG_FLOAT32, (lg_dims){c->want, c->wantrank});
        if (c->code == LG_OP_TRANSPOSE_CONV) {
            int32_t os = cst_i(&t, LG_DIMS(4), tconv_os);
            lg_b_op_opts(&t.b, c->code, LG_IDS(os, w, x), LG_IDS(y), c->kind, c->opts);
        } else if (c->code == LG_OP_CUSTOM) {
            lg_b_custom(&t.b, "Convolution2DTransposeBias", LG_IDS(x, w, b), LG_IDS(y), tcb_opts, 12);
        } else if (c->code == LG_OP_RESIZE_BILINEAR || c->code == LG_OP_RESIZE_NEAREST_NEIGHBOR) {
            int32_t s = cst_i(&t, LG_DIMS(2), rsize);
            lg_b_op_opts(&t.b, c->code, LG_IDS(x, s), LG_IDS(y), c->kind, c->opts);
        } else if (c->code == LG_OP_BATCH_MATMUL || !c->wrank) {
            lg_b_op_opts(&t.b, c->code, c->wrank ? LG_IDS(x, w) : LG_IDS(x), LG_IDS(y), c->kind, c->opts);
        } else {
            lg_b_op_opts(&t.b, c->code, LG_IDS(x, w, b), LG_IDS(y), c->kind, c->opts);
        }
        lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
        if (t.b.status != LG_OK) {
            tf_fail(__FILE__, __LINE__, "%s: builder: %s", c->what, t.b.err.msg);
            im_free(&t);
            continue;
        }
        lg_status st = lg_op_infer(t.m, 0, 0, NULL, LG_INFER_STATIC, t.out, t.type, 4, &t.err);
        if (st != LG_OK) tf_fail(__FILE__, __LINE__, "%s: infer: %s", c->what, t.err.msg);
        check_shape(&t.out[0], (lg_dims){c->want, c->wantrank}, __LINE__);
        lg_run_options ro;
        memset(&ro, 0, sizeof ro);
        ro.precision = LG_PREC_F32;
        lg_interp *it = NULL;
        st = lg_interp_create(t.m, &ro, &it, &t.err);
        if (st == LG_OK) {
            lg_tensor_view iv;
            lg_interp_input(it, 0, &iv);
            st = lg_interp_set_input(it, 0, LG_FLOAT32, g_zeros, iv.nbytes, &t.err);
        }
        if (st == LG_OK) st = lg_interp_invoke(it, &t.err);
        lg_tensor_view v;
        if (st == LG_OK) st = lg_interp_tensor(it, y, &v);
        if (st != LG_OK) {
            tf_fail(__FILE__, __LINE__, "%s: interpreter: %s", c->what, t.err.msg);
        } else {
            int same = (int32_t)v.rank == t.out[0].rank;
            for (uint32_t d = 0; same && d < v.rank; d++) same = v.shape[d] == t.out[0].dim[d];
            if (!same) tf_fail(__FILE__, __LINE__, "%s: the interpreter's shape differs from inference", c->what);
        }
        lg_interp_free(it);
        im_free(&t);
    }
}
