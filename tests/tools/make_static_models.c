/*
 * make_static_models -- float models for tests/e2e/test_quantize_static.sh (int8-static's
 * newer rows and the clamp folds), and the int8 reference of a fold.
 *
 *   make_static_models models DIR    writes DIR/qs_fold.tflite, qs_near.tflite, qs_ops.tflite
 *   make_static_models unfold IN OUT reads an int8 file and writes it with every fused RELU /
 *                                    RELU6 / RELU_N1_TO_1 of an INT8 CONV_2D, DEPTHWISE_CONV_2D
 *                                    or FULLY_CONNECTED spelled as int8 MAXIMUM / MINIMUM of the
 *                                    raw integers instead (the op writes NONE into a new tensor
 *                                    with its output's parameters; the bounds are INT8 scalar
 *                                    constants q(v) = TfLiteRound(v / s) + zp clamped, with the
 *                                    same parameters): what the clamp ops compute when x, the
 *                                    clamp and its output share parameters.
 *
 * The float models (inputs [1, 8, 8, 3]; weights w[i] = ((i * 37) % 23 - 11) / 16 * scale,
 * dyadic rationals, exact in float32):
 *   qs_fold  conv 3x3 -> MAXIMUM(., 0) -> MINIMUM(., 6)          (Clip(0, 6): RELU6)
 *            depthwise 3x3 -> RELU                               (a standalone RELU)
 *            conv 1x1 -> MINIMUM(., 1) -> MAXIMUM(., -1)         (Clip(-1, 1), the other order)
 *            outputs: the last clamp, and CONCATENATION(first clamp, a wide conv) so that the
 *            first clamp's parameters are wider than [0, 6] and its fused RELU6 clamps inside
 *   qs_near  conv -> MAXIMUM(., 0.5) -> MINIMUM(., 6)            (Clip(0.5, 6): no activation)
 *            conv -> c -> MAXIMUM(., 0) -> MINIMUM(., 6), c also a graph output (a second reader)
 *   qs_ops   conv -> t; RESIZE_BILINEAR(t, 16x16, half pixel); TRANSPOSE_CONV(t) 2x2 stride 2;
 *            s = their sum; GELU, ABS, SQRT(|s| + 1e-5), RSQRT(|s| + 1), LOG(|s| + 0.5),
 *            SQUARED_DIFFERENCE(gelu, s), DIV(s, 3), PRELU(s, alpha[4]), MAXIMUM(gelu, s / 3),
 *            REDUCE_MAX over H, W
 * Exit status: 0 on success, 1 on any failure (the message names the model).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/graph.h"
#include "lg/lg.h"

static int fail(const char *what, const lg_error *err) {
    fprintf(stderr, "make_static_models: %s: %s\n", what, err ? err->msg : "failed");
    return 1;
}

static lg_builder B;

static float wf(int i, float scale) { return (float)((i * 37) % 23 - 11) / 16.0f * scale; }

static int weights(const char *name, lg_dims d, float scale) {
    int64_t n = 1;
    for (uint32_t k = 0; k < d.n; k++) n *= d.v[k];
    float *w = malloc((size_t)n * sizeof *w);
    if (!w) return -1;
    for (int64_t i = 0; i < n; i++) w[i] = wf((int)i, scale);
    int t = lg_b_const_f32(&B, name, d, w);
    free(w);
    return t;
}

static int bias(const char *name, int n) {
    float b[16];
    for (int i = 0; i < n && i < 16; i++) b[i] = (float)(i % 5 - 2) / 8.0f;
    return lg_b_const_f32(&B, name, LG_DIMS(n), b);
}

static int scalar(const char *name, float v) { return lg_b_const_f32(&B, name, LG_SCALAR, &v); }

static int act(const char *name, lg_dims d) { return lg_b_tensor(&B, name, LG_FLOAT32, d); }

static int conv(const char *name, int x, int cin, int cout, int k, float scale) {
    char wn[64], bn[64];
    snprintf(wn, sizeof wn, "%s/w", name);
    snprintf(bn, sizeof bn, "%s/b", name);
    int w = weights(wn, LG_DIMS(cout, k, k, cin), scale), b = bias(bn, cout);
    int y = act(name, LG_DIMS(1, 8, 8, cout));
    lg_conv2d_options o;
    lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &o, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = o.dilation_w_factor = o.dilation_h_factor = 1;
    lg_b_op_opts(&B, LG_OP_CONV_2D, LG_IDS(x, w, b), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    return y;
}

/* MAXIMUM / MINIMUM of x [1,8,8,c] and a constant scalar */
static int clamp1(const char *name, int code, int x, int c, float v) {
    char kn[64];
    snprintf(kn, sizeof kn, "%s/k", name);
    int k = scalar(kn, v), y = act(name, LG_DIMS(1, 8, 8, c));
    lg_b_op(&B, code, LG_IDS(x, k), LG_IDS(y));
    return y;
}

static lg_model *begin(void) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) return NULL;
    lg_builder_init(&B, m, 0);
    return m;
}

static int save(lg_model *m, const char *dir, const char *name) {
    if (!m) return fail(name, NULL);
    if (B.status != LG_OK) {
        lg_model_free(m);
        return fail(name, &B.err);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    lg_write_options opt = {.force = true};
    lg_error err;
    lg_status st = lg_tflite_write_file(m, path, &opt, &err);
    lg_model_free(m);
    return st == LG_OK ? 0 : fail(name, &err);
}

static int m_fold(const char *dir) {
    lg_model *m = begin();
    if (!m) return fail("qs_fold", NULL);
    int x = act("x", LG_DIMS(1, 8, 8, 3));
    int c1 = conv("c1", x, 3, 8, 3, 1.0f);
    int a1 = clamp1("a1", LG_OP_MINIMUM, clamp1("m1", LG_OP_MAXIMUM, c1, 8, 0), 8, 6);
    /* depthwise 3x3 -> RELU */
    int dw = weights("dw/w", LG_DIMS(1, 3, 3, 8), 0.5f), db = bias("dw/b", 8);
    int d = act("dw", LG_DIMS(1, 8, 8, 8)), a2 = act("a2", LG_DIMS(1, 8, 8, 8));
    lg_depthwise_conv2d_options dwo;
    lg_opts_init(LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &dwo, sizeof dwo);
    dwo.padding = LG_PADDING_SAME;
    dwo.stride_w = dwo.stride_h = dwo.dilation_w_factor = dwo.dilation_h_factor = dwo.depth_multiplier = 1;
    lg_b_op_opts(&B, LG_OP_DEPTHWISE_CONV_2D, LG_IDS(a1, dw, db), LG_IDS(d), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &dwo);
    lg_b_op(&B, LG_OP_RELU, LG_IDS(d), LG_IDS(a2));
    int c3 = conv("c3", a2, 8, 4, 1, 0.25f);
    int a3 = clamp1("a3", LG_OP_MAXIMUM, clamp1("m3", LG_OP_MINIMUM, c3, 4, 1), 4, -1);
    /* the first clamp beside a wide tensor: one parameter group wider than [0, 6] */
    int wide = conv("wide", x, 3, 8, 3, 4.0f);
    int y = act("cat", LG_DIMS(1, 8, 8, 16));
    lg_concatenation_options co;
    lg_opts_init(LG_OPTS_CONCATENATION_OPTIONS, &co, sizeof co);
    co.axis = 3;
    lg_b_op_opts(&B, LG_OP_CONCATENATION, LG_IDS(a1, wide), LG_IDS(y), LG_OPTS_CONCATENATION_OPTIONS, &co);
    lg_b_io(&B, LG_IDS(x), LG_IDS(a3, y));
    return save(m, dir, "qs_fold.tflite");
}

static int m_near(const char *dir) {
    lg_model *m = begin();
    if (!m) return fail("qs_near", NULL);
    int x = act("x", LG_DIMS(1, 8, 8, 3));
    int c1 = conv("c1", x, 3, 4, 3, 1.0f);
    int a1 = clamp1("a1", LG_OP_MINIMUM, clamp1("m1", LG_OP_MAXIMUM, c1, 4, 0.5f), 4, 6);
    int c2 = conv("c2", x, 3, 4, 3, 2.0f);
    int a2 = clamp1("a2", LG_OP_MINIMUM, clamp1("m2", LG_OP_MAXIMUM, c2, 4, 0), 4, 6);
    lg_b_io(&B, LG_IDS(x), LG_IDS(a1, a2, c2));
    return save(m, dir, "qs_near.tflite");
}

static int unary(int code, const char *name, int x, lg_dims d) {
    int y = act(name, d);
    lg_b_op(&B, code, LG_IDS(x), LG_IDS(y));
    return y;
}

static int binary(int code, const char *name, int a, int b, lg_dims d) {
    int y = act(name, d);
    if (code == LG_OP_ADD || code == LG_OP_DIV) {
        lg_add_options o; /* AddOptions and DivOptions: the fused activation first */
        lg_div_options dvo;
        lg_opts_init(LG_OPTS_ADD_OPTIONS, &o, sizeof o);
        lg_opts_init(LG_OPTS_DIV_OPTIONS, &dvo, sizeof dvo);
        if (code == LG_OP_ADD) lg_b_op_opts(&B, code, LG_IDS(a, b), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &o);
        else lg_b_op_opts(&B, code, LG_IDS(a, b), LG_IDS(y), LG_OPTS_DIV_OPTIONS, &dvo);
    } else {
        lg_b_op(&B, code, LG_IDS(a, b), LG_IDS(y));
    }
    return y;
}

static int m_ops(const char *dir) {
    lg_model *m = begin();
    if (!m) return fail("qs_ops", NULL);
    const lg_dims D = LG_DIMS(1, 16, 16, 4);
    int x = act("x", LG_DIMS(1, 8, 8, 3));
    int t = conv("t", x, 3, 4, 3, 1.0f);
    static const int32_t size[2] = {16, 16}, oshape[4] = {1, 16, 16, 4};
    int sz = lg_b_const_i32(&B, "size", LG_DIMS(2), size);
    int r = act("resize", D);
    lg_resize_bilinear_options ro;
    lg_opts_init(LG_OPTS_RESIZE_BILINEAR_OPTIONS, &ro, sizeof ro);
    ro.half_pixel_centers = true;
    lg_b_op_opts(&B, LG_OP_RESIZE_BILINEAR, LG_IDS(t, sz), LG_IDS(r), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &ro);
    int os = lg_b_const_i32(&B, "oshape", LG_DIMS(4), oshape);
    int tw = weights("tconv/w", LG_DIMS(4, 2, 2, 4), 0.5f), tb = bias("tconv/b", 4);
    int tc = act("tconv", D);
    lg_transpose_conv_options to;
    lg_opts_init(LG_OPTS_TRANSPOSE_CONV_OPTIONS, &to, sizeof to);
    to.padding = LG_PADDING_VALID;
    to.stride_w = to.stride_h = 2;
    lg_b_op_v(&B, LG_OP_TRANSPOSE_CONV, 4, LG_IDS(os, tw, t, tb), LG_IDS(tc), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &to);
    int s = binary(LG_OP_ADD, "sum", r, tc, D);
    int g = act("gelu", D);
    lg_gelu_options go;
    lg_opts_init(LG_OPTS_GELU_OPTIONS, &go, sizeof go);
    lg_b_op_opts(&B, LG_OP_GELU, LG_IDS(s), LG_IDS(g), LG_OPTS_GELU_OPTIONS, &go);
    int ab = unary(LG_OP_ABS, "abs", s, D);
    int sq = unary(LG_OP_SQRT, "sqrt", binary(LG_OP_ADD, "abs_eps", ab, scalar("eps", 1e-5f), D), D);
    int rs = unary(LG_OP_RSQRT, "rsqrt", binary(LG_OP_ADD, "abs_1", ab, scalar("one", 1.0f), D), D);
    int lo = unary(LG_OP_LOG, "log", binary(LG_OP_ADD, "abs_half", ab, scalar("half", 0.5f), D), D);
    int sd = binary(LG_OP_SQUARED_DIFFERENCE, "sqdiff", g, s, D);
    int dv = binary(LG_OP_DIV, "div", s, scalar("three", 3.0f), D);
    static const float alpha[4] = {0.25f, -0.5f, 0.125f, 1.5f};
    int pr = binary(LG_OP_PRELU, "prelu", s, lg_b_const_f32(&B, "alpha", LG_DIMS(4), alpha), D);
    int mx = binary(LG_OP_MAXIMUM, "max", g, dv, D);
    static const int32_t axes[2] = {1, 2};
    int ax = lg_b_const_i32(&B, "axes", LG_DIMS(2), axes);
    int rm = act("reduce_max", LG_DIMS(1, 1, 1, 4));
    lg_reducer_options rdo;
    lg_opts_init(LG_OPTS_REDUCER_OPTIONS, &rdo, sizeof rdo);
    rdo.keep_dims = true;
    lg_b_op_opts(&B, LG_OP_REDUCE_MAX, LG_IDS(mx, ax), LG_IDS(rm), LG_OPTS_REDUCER_OPTIONS, &rdo);
    lg_b_io(&B, LG_IDS(x), LG_IDS(g, sq, rs, lo, sd, pr, mx, rm));
    return save(m, dir, "qs_ops.tflite");
}

/* ------------------------------------------------------------------ unfold */

static int32_t quant8(float v, float s, int32_t zp) {
    double d = (double)roundf(v / s) + zp;
    return d < -128 ? -128 : d > 127 ? 127 : (int32_t)d;
}

static int fused_slot(const lg_op *op, int8_t **act) {
    switch (op->opts_kind) {
    case LG_OPTS_CONV2D_OPTIONS: *act = &((lg_conv2d_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_DEPTHWISE_CONV2D_OPTIONS: *act = &((lg_depthwise_conv2d_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_FULLY_CONNECTED_OPTIONS: *act = &((lg_fully_connected_options *)op->opts)->fused_activation_function; return 1;
    default: return 0;
    }
}

/* Insert `code`(from, INT8 constant q(v)) -> to after op `at`, to and the constant with (s, zp). */
static lg_status insert_clamp(lg_model *m, uint32_t at, int32_t code, int32_t from, int32_t to, float v, float s, int32_t zp,
                              lg_error *err) {
    int8_t q = (int8_t)quant8(v, s, zp);
    int32_t k;
    int64_t z = zp;
    char nm[64];
    snprintf(nm, sizeof nm, "unfold_%s_%u", code == LG_OP_MAXIMUM ? "lo" : "hi", at);
    lg_status st = lg_subgraph_add_const(m, 0, nm, LG_INT8, NULL, 0, &q, 1, &k, err);
    if (st == LG_OK) st = lg_tensor_set_quant(m, 0, (uint32_t)k, &s, &z, 1, 0, err);
    if (st != LG_OK) return st;
    int32_t in[2] = {from, k};
    return lg_op_insert(m, 0, at, code, NULL, 2, in, 2, &to, 1, LG_OPTS_NONE, NULL, err);
}

static int unfold(const char *in, const char *out) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_tflite_read_file(in, NULL, &m, &err) != LG_OK) return fail(in, &err);
    int n = 0;
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++) {
        lg_op *op = &m->subgraphs[0].ops[i];
        int8_t *a = NULL;
        const int32_t code = lg_op_builtin(m, op);
        if ((code != LG_OP_CONV_2D && code != LG_OP_DEPTHWISE_CONV_2D && code != LG_OP_FULLY_CONNECTED) || !op->opts ||
            !fused_slot(op, &a) || *a == LG_ACTIVATION_FUNCTION_TYPE_NONE)
            continue;
        const int act_ = *a;
        const int32_t y = op->outputs[0];
        const lg_tensor *yt = &m->subgraphs[0].tensors[y];
        if (yt->type != LG_INT8 || !yt->quant || yt->quant->n_scale != 1) continue;
        const float s = yt->quant->scale[0];
        const int32_t zp = (int32_t)yt->quant->zero_point[0];
        float lo = act_ == LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1 ? -1.0f : 0.0f;
        float hi = act_ == LG_ACTIVATION_FUNCTION_TYPE_RELU6 ? 6.0f : act_ == LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1 ? 1.0f : INFINITY;
        *a = LG_ACTIVATION_FUNCTION_TYPE_NONE; /* the options are the op's own: edited in place */
        m->subgraphs[0].ops[i].opts_present = 0;
        int32_t shape[8], c0, c1;
        memcpy(shape, yt->shape, yt->rank * sizeof *shape);
        const uint32_t rank = yt->rank;
        int64_t z = zp;
        lg_status st = lg_subgraph_add_tensor(m, 0, "unfold_pre", LG_INT8, shape, rank, &c0, &err);
        if (st == LG_OK) st = lg_tensor_set_quant(m, 0, (uint32_t)c0, &s, &z, 1, 0, &err);
        if (st == LG_OK) st = lg_op_set_output(m, 0, i, 0, c0, &err);
        if (st == LG_OK && isfinite(hi)) {
            st = lg_subgraph_add_tensor(m, 0, "unfold_mid", LG_INT8, shape, rank, &c1, &err);
            if (st == LG_OK) st = lg_tensor_set_quant(m, 0, (uint32_t)c1, &s, &z, 1, 0, &err);
            if (st == LG_OK) st = insert_clamp(m, i + 1, LG_OP_MAXIMUM, c0, c1, lo, s, zp, &err);
            if (st == LG_OK) st = insert_clamp(m, i + 2, LG_OP_MINIMUM, c1, y, hi, s, zp, &err);
            i += 2;
        } else if (st == LG_OK) {
            st = insert_clamp(m, i + 1, LG_OP_MAXIMUM, c0, y, lo, s, zp, &err);
            i += 1;
        }
        if (st != LG_OK) {
            lg_model_free(m);
            return fail(in, &err);
        }
        n++;
    }
    lg_write_options opt = {.force = true};
    lg_status st = lg_model_validate(m, &err);
    if (st == LG_OK) st = lg_tflite_write_file(m, out, &opt, &err);
    lg_model_free(m);
    if (st != LG_OK) return fail(out, &err);
    printf("%d fused activations spelled as MAXIMUM / MINIMUM\n", n);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "models") == 0) return m_fold(argv[2]) | m_near(argv[2]) | m_ops(argv[2]);
    if (argc == 4 && strcmp(argv[1], "unfold") == 0) return unfold(argv[2], argv[3]);
    fprintf(stderr, "usage: make_static_models models DIR | unfold IN.tflite OUT.tflite\n");
    return 1;
}
