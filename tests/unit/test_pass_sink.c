/* sink-transposes (src/passes/pass_sink.c), through lg_optimize's pipeline with parity proved
   by the runner: builder-made NCHW-style graphs (the ONNX importer's form: NHWC-only ops
   wrapped in TRANSPOSE(0,2,3,1) ... TRANSPOSE(0,3,1,2)), the expected graphs and constants
   derived by hand, near-misses that must stay, and the corpus left unchanged. */
#include <stdlib.h>

#include "lg/graph.h"
#include "lg/lg.h"
#include "lg/ops.h"
#include "lg/passes.h"
#include "tf.h"

static const int32_t TO_NHWC[4] = {0, 2, 3, 1}; /* NCHW -> NHWC */
static const int32_t TO_NCHW[4] = {0, 3, 1, 2}; /* NHWC -> NCHW */

static lg_model *new_model(lg_builder *b) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) return NULL;
    lg_builder_init(b, m, 0);
    return m;
}

/* y = TRANSPOSE(x, perm) into an existing tensor y. */
static void tr(lg_builder *b, int x, const int32_t *perm, int y) {
    char name[64];
    snprintf(name, sizeof name, "perm%d", y);
    int p = lg_b_const_i32(b, name, LG_DIMS(4), perm);
    lg_b_op(b, LG_OP_TRANSPOSE, LG_IDS(x, p), LG_IDS(y));
}

static void add(lg_builder *b, int x, int k, int y) {
    lg_add_options ao;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    lg_b_op_opts(b, LG_OP_ADD, LG_IDS(x, k), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &ao);
}

static void conv1x1(lg_builder *b, int x, int y, const char *name) {
    char wn[32], bn[32];
    snprintf(wn, sizeof wn, "%s_w", name);
    snprintf(bn, sizeof bn, "%s_b", name);
    int w = lg_b_const_f32(b, wn, LG_DIMS(2, 1, 1, 2), (const float[]){1, 0.5f, -0.5f, 1});
    int bias = lg_b_const_f32(b, bn, LG_DIMS(2), (const float[]){0.1f, -0.1f});
    lg_conv2d_options co;
    lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &co, sizeof co);
    co.padding = LG_PADDING_VALID;
    co.stride_w = co.stride_h = 1;
    co.dilation_w_factor = co.dilation_h_factor = 1;
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bias), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &co);
}

static void reduce(lg_builder *b, int32_t code, int x, const int32_t *axes, uint32_t n_axes,
                   bool keep, int y) {
    int ax = lg_b_const_i32(b, "axes", (lg_dims){(const int32_t[]){(int32_t)n_axes}, 1}, axes);
    lg_reducer_options ro;
    lg_opts_init(LG_OPTS_REDUCER_OPTIONS, &ro, sizeof ro);
    ro.keep_dims = keep;
    lg_b_op_opts(b, code, LG_IDS(x, ax), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
}

/* lg_optimize with parity proved (pattern + 2 random inputs); NULL with a failed check. */
static lg_model *optimize(const lg_model *m, lg_pass_report **rep) {
    lg_pass_run_options o;
    memset(&o, 0, sizeof o);
    o.prove = true;
    o.n_random = 2;
    lg_model *out = NULL;
    lg_error err;
    if (lg_optimize(m, &o, &out, rep, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "lg_optimize: %s", err.msg);
        return NULL;
    }
    for (uint32_t i = 0; i < (*rep)->n_passes; i++) {
        const lg_pass_result *r = &(*rep)->passes[i];
        if (r->delta.applied && !(r->parity_measured && r->max_rel <= 1e-6))
            tf_fail(__FILE__, __LINE__, "%s: parity not proved (%s, %g)", r->pass, r->parity_note,
                    r->max_rel);
    }
    return out;
}

static uint32_t sink_applied(const lg_pass_report *r) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_passes; i++)
        if (strcmp(r->passes[i].pass, "sink-transposes") == 0) n += r->passes[i].delta.applied;
    return n;
}

static int32_t code_of(const lg_model *m, uint32_t i) {
    return lg_op_builtin(m, &m->subgraphs[0].ops[i]);
}

static uint32_t n_code(const lg_model *m, int32_t code) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++) n += code_of(m, i) == code;
    return n;
}

/* The op writing tensor t, or -1. */
static int32_t producer(const lg_model *m, int32_t t) {
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++)
        if (m->subgraphs[0].ops[i].outputs[0] == t) return (int32_t)i;
    return -1;
}

static const lg_tensor *tensor(const lg_model *m, int32_t t) { return &m->subgraphs[0].tensors[t]; }

static const lg_tensor *op_in(const lg_model *m, uint32_t op, uint32_t slot) {
    return tensor(m, m->subgraphs[0].ops[op].inputs[slot]);
}

static bool shape_is(const lg_tensor *t, lg_dims d) {
    if (t->rank != d.n) return false;
    for (uint32_t k = 0; k < d.n; k++)
        if (t->shape[k] != d.v[k]) return false;
    return true;
}

static bool ints_are(const lg_model *m, const lg_tensor *t, lg_dims d) {
    if (!t->buffer || t->type != LG_INT32 || m->buffers[t->buffer].size != d.n * 4) return false;
    const int32_t *v = (const int32_t *)m->buffers[t->buffer].data;
    for (uint32_t k = 0; k < d.n; k++)
        if (v[k] != d.v[k]) return false;
    return true;
}

static bool floats_are(const lg_model *m, const lg_tensor *t, const float *want, uint32_t n) {
    if (!t->buffer || t->type != LG_FLOAT32 || m->buffers[t->buffer].size != n * 4) return false;
    const float *v = (const float *)m->buffers[t->buffer].data;
    for (uint32_t k = 0; k < n; k++)
        if (v[k] != want[k]) return false;
    return true;
}

/* The graph output's name and the name of the tensor op `op` writes. */
static bool writes_output(const lg_model *m, uint32_t op, const char *name) {
    const lg_subgraph *s = &m->subgraphs[0];
    int32_t t = s->ops[op].outputs[0];
    for (uint32_t k = 0; k < s->n_outputs; k++)
        if (s->outputs[k] == t) return s->tensors[t].name && strcmp(s->tensors[t].name, name) == 0;
    return false;
}

#define OPTIMIZED(m, o, rep)                                                                   \
    lg_pass_report *rep = NULL;                                                               \
    lg_model *o = optimize(m, &rep);                                                          \
    if (!o) {                                                                                  \
        lg_model_free(m);                                                                      \
        return;                                                                                \
    }

#define DONE(m, o, rep)                                                                        \
    lg_pass_report_free(rep);                                                                  \
    lg_model_free(o);                                                                          \
    lg_model_free(m)

/* ------------------------------------------------------------------ triggers */

/* x[1,2,4,4] NCHW -> T -> CONV -> T -> RELU -> ADD(bias [2,1,1]) -> T -> CONV -> T -> ADD
   (residual: the first ADD's output) -> RELU -> T -> CONV -> T -> out NCHW. Six transposes;
   the ones between the convs all meet their inverse: one stays on the input, one on the
   output (the acceptance: one per NCHW input or output). */
LG_TEST(sink_conv_chain_with_residual) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int t0 = lg_b_tensor(&b, "t0", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int c1 = lg_b_tensor(&b, "c1", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int h1 = lg_b_tensor(&b, "h1", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int r1 = lg_b_tensor(&b, "r1", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int a1 = lg_b_tensor(&b, "a1", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int t2 = lg_b_tensor(&b, "t2", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int c2 = lg_b_tensor(&b, "c2", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int h2 = lg_b_tensor(&b, "h2", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int s = lg_b_tensor(&b, "s", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int r2 = lg_b_tensor(&b, "r2", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int t3 = lg_b_tensor(&b, "t3", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int c3 = lg_b_tensor(&b, "c3", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int bias = lg_b_const_f32(&b, "bias", LG_DIMS(2, 1, 1), (const float[]){0.5f, -0.25f});
    tr(&b, x, TO_NHWC, t0);
    conv1x1(&b, t0, c1, "conv1");
    tr(&b, c1, TO_NCHW, h1);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(h1), LG_IDS(r1));
    add(&b, r1, bias, a1);
    tr(&b, a1, TO_NHWC, t2);
    conv1x1(&b, t2, c2, "conv2");
    tr(&b, c2, TO_NCHW, h2);
    add(&b, h2, a1, s);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(s), LG_IDS(r2));
    tr(&b, r2, TO_NHWC, t3);
    conv1x1(&b, t3, c3, "conv3");
    tr(&b, c3, TO_NCHW, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(n_code(m, LG_OP_TRANSPOSE), 6);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), 2);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 9); /* 2 transposes, 3 convs, 2 adds, 2 relus */
    CHECK_EQ_INT(n_code(o, LG_OP_CONV_2D), 3);
    CHECK_EQ_INT(n_code(o, LG_OP_ADD), 2);
    CHECK_EQ_INT(n_code(o, LG_OP_RELU), 2);
    CHECK(sink_applied(rep) >= 3);
    /* the one on the input reads x; the one on the output writes out */
    CHECK_EQ_INT(code_of(o, 0), LG_OP_TRANSPOSE);
    CHECK(o->subgraphs[0].ops[0].inputs[0] == o->subgraphs[0].inputs[0]);
    int32_t last = producer(o, o->subgraphs[0].outputs[0]);
    CHECK(last >= 0 && code_of(o, (uint32_t)last) == LG_OP_TRANSPOSE);
    CHECK(last >= 0 && writes_output(o, (uint32_t)last, "out"));
    /* the bias [2,1,1] of NCHW became the per-channel [2] of NHWC: 0.5, -0.25 */
    int found = 0;
    for (uint32_t i = 0; i < o->subgraphs[0].n_ops; i++) {
        if (code_of(o, i) != LG_OP_ADD) continue;
        const lg_tensor *k = op_in(o, i, 1);
        if (!k->buffer) continue;
        found++;
        CHECK(shape_is(k, LG_DIMS(2)));
        CHECK(floats_are(o, k, (const float[]){0.5f, -0.25f}, 2));
        CHECK(shape_is(op_in(o, i, 0), LG_DIMS(1, 4, 4, 2)));
    }
    CHECK_EQ_INT(found, 1);
    DONE(m, o, rep);
}

/* A classifier as the ONNX importer lowers it: x[1,2,4,4] NCHW -> T -> CONV -> T -> RELU -> T
   -> MAX_POOL 2x2 -> T -> ADD(bias [2,1,1]) -> MEAN(H,W, keep_dims) -> RESHAPE [1,2] ->
   FULLY_CONNECTED -> [1,2]. Four transposes; only the input's stays (the output is not an
   image). */
LG_TEST(sink_classifier_head) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int t0 = lg_b_tensor(&b, "t0", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int c1 = lg_b_tensor(&b, "c1", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int h1 = lg_b_tensor(&b, "h1", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int r1 = lg_b_tensor(&b, "r1", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int t1 = lg_b_tensor(&b, "t1", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int mp = lg_b_tensor(&b, "mp", LG_FLOAT32, LG_DIMS(1, 2, 2, 2));
    int h2 = lg_b_tensor(&b, "h2", LG_FLOAT32, LG_DIMS(1, 2, 2, 2));
    int a2 = lg_b_tensor(&b, "a2", LG_FLOAT32, LG_DIMS(1, 2, 2, 2));
    int gap = lg_b_tensor(&b, "gap", LG_FLOAT32, LG_DIMS(1, 2, 1, 1));
    int flat = lg_b_tensor(&b, "flat", LG_FLOAT32, LG_DIMS(1, 2));
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 2));
    int bias = lg_b_const_f32(&b, "bias", LG_DIMS(2, 1, 1), (const float[]){0.5f, -0.25f});
    int sh = lg_b_const_i32(&b, "shape", LG_DIMS(2), (const int32_t[]){1, 2});
    int fw = lg_b_const_f32(&b, "fc_w", LG_DIMS(2, 2), (const float[]){1, 2, 3, 4});
    tr(&b, x, TO_NHWC, t0);
    conv1x1(&b, t0, c1, "conv1");
    tr(&b, c1, TO_NCHW, h1);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(h1), LG_IDS(r1));
    tr(&b, r1, TO_NHWC, t1);
    lg_pool2d_options po;
    lg_opts_init(LG_OPTS_POOL2D_OPTIONS, &po, sizeof po);
    po.padding = LG_PADDING_VALID;
    po.stride_w = po.stride_h = po.filter_width = po.filter_height = 2;
    lg_b_op_opts(&b, LG_OP_MAX_POOL_2D, LG_IDS(t1), LG_IDS(mp), LG_OPTS_POOL2D_OPTIONS, &po);
    tr(&b, mp, TO_NCHW, h2);
    add(&b, h2, bias, a2);
    reduce(&b, LG_OP_MEAN, a2, (const int32_t[]){2, 3}, 2, true, gap);
    lg_reshape_options rs;
    lg_opts_init(LG_OPTS_RESHAPE_OPTIONS, &rs, sizeof rs);
    lg_b_op_opts(&b, LG_OP_RESHAPE, LG_IDS(gap, sh), LG_IDS(flat), LG_OPTS_RESHAPE_OPTIONS, &rs);
    lg_fully_connected_options fo;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(flat, fw, -1), LG_IDS(out),
                 LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(n_code(m, LG_OP_TRANSPOSE), 4);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), 1);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 8); /* T, CONV, RELU, MAX_POOL, ADD, MEAN, RESHAPE, FC */
    CHECK_EQ_INT(code_of(o, 0), LG_OP_TRANSPOSE);
    CHECK(o->subgraphs[0].ops[0].inputs[0] == o->subgraphs[0].inputs[0]);
    DONE(m, o, rep);
}

/* x[1,2,2,3] NHWC -> T -> [1,3,2,2] -> MUL(k1[3,1,1]) -> ADD(k2[3,1,2]) -> T -> out: the
   constants are brought to NHWC: k1 -> [3] {2,3,5}; k2[c][0][w] = 10c + w, i.e.
   {0,1,10,11,20,21}, -> [1,1,2,3] with [0][0][w][c] = 10c + w, leading 1s dropped (ADD
   broadcasts): [2,3] {0,10,20, 1,11,21}. */
LG_TEST(sink_binary_with_channel_constants) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int u = lg_b_tensor(&b, "u", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int v = lg_b_tensor(&b, "v", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    int k1 = lg_b_const_f32(&b, "k1", LG_DIMS(3, 1, 1), (const float[]){2, 3, 5});
    int k2 = lg_b_const_f32(&b, "k2", LG_DIMS(3, 1, 2), (const float[]){0, 1, 10, 11, 20, 21});
    tr(&b, x, TO_NCHW, t);
    lg_mul_options mo;
    lg_opts_init(LG_OPTS_MUL_OPTIONS, &mo, sizeof mo);
    lg_b_op_opts(&b, LG_OP_MUL, LG_IDS(t, k1), LG_IDS(u), LG_OPTS_MUL_OPTIONS, &mo);
    add(&b, u, k2, v);
    tr(&b, v, TO_NHWC, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), 0);
    CHECK_EQ_INT(sink_applied(rep), 2);
    CHECK_EQ_INT(code_of(o, 0), LG_OP_MUL);
    CHECK_EQ_INT(code_of(o, 1), LG_OP_ADD);
    CHECK(o->subgraphs[0].ops[0].inputs[0] == o->subgraphs[0].inputs[0]);
    CHECK(shape_is(op_in(o, 0, 1), LG_DIMS(3)));
    CHECK(floats_are(o, op_in(o, 0, 1), (const float[]){2, 3, 5}, 3));
    CHECK(shape_is(op_in(o, 1, 1), LG_DIMS(2, 3)));
    CHECK(floats_are(o, op_in(o, 1, 1), (const float[]){0, 10, 20, 1, 11, 21}, 6));
    CHECK(writes_output(o, 1, "out")); /* the interface keeps its tensor */
    DONE(m, o, rep);
}

/* x -> T -> RELU -> ABS -> NEG -> T^-1 -> out: the two neutral moves are made because the
   third cancels; three ops left, the last writes out. */
LG_TEST(sink_unary_chain) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int n = lg_b_tensor(&b, "n", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    tr(&b, x, TO_NCHW, t);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(t), LG_IDS(r));
    lg_b_op(&b, LG_OP_ABS, LG_IDS(r), LG_IDS(a));
    lg_b_op(&b, LG_OP_NEG, LG_IDS(a), LG_IDS(n));
    tr(&b, n, TO_NHWC, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 3);
    CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), 0);
    CHECK_EQ_INT(code_of(o, 0), LG_OP_RELU);
    CHECK_EQ_INT(code_of(o, 1), LG_OP_ABS);
    CHECK_EQ_INT(code_of(o, 2), LG_OP_NEG);
    CHECK(o->subgraphs[0].ops[0].inputs[0] == o->subgraphs[0].inputs[0]);
    CHECK(shape_is(op_in(o, 1, 0), LG_DIMS(1, 4, 4, 2)));
    CHECK(writes_output(o, 2, "out"));
    DONE(m, o, rep);
}

/* CONCATENATION along NCHW's channel axis (given as -3) of two transposed inputs and an NCHW
   constant [1,1,2,2] {1,2,3,4}: NHWC axis 3, the constant [1,2,2,1] (C = 1: same order),
   full rank (concatenation does not broadcast). */
LG_TEST(sink_concat_channel_axis) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x1 = lg_b_tensor(&b, "x1", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    int x2 = lg_b_tensor(&b, "x2", LG_FLOAT32, LG_DIMS(1, 2, 2, 1));
    int t1 = lg_b_tensor(&b, "t1", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int t2 = lg_b_tensor(&b, "t2", LG_FLOAT32, LG_DIMS(1, 1, 2, 2));
    int k = lg_b_const_f32(&b, "k", LG_DIMS(1, 1, 2, 2), (const float[]){1, 2, 3, 4});
    int cat = lg_b_tensor(&b, "cat", LG_FLOAT32, LG_DIMS(1, 5, 2, 2));
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 2, 2, 5));
    tr(&b, x1, TO_NCHW, t1);
    tr(&b, x2, TO_NCHW, t2);
    lg_concatenation_options co;
    lg_opts_init(LG_OPTS_CONCATENATION_OPTIONS, &co, sizeof co);
    co.axis = -3;
    lg_b_op_opts(&b, LG_OP_CONCATENATION, LG_IDS(t1, t2, k), LG_IDS(cat),
                 LG_OPTS_CONCATENATION_OPTIONS, &co);
    tr(&b, cat, TO_NHWC, out);
    lg_b_io(&b, LG_IDS(x1, x2), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
    CHECK_EQ_INT(code_of(o, 0), LG_OP_CONCATENATION);
    const lg_op *op = &o->subgraphs[0].ops[0];
    CHECK_EQ_INT(((const lg_concatenation_options *)op->opts)->axis, 3);
    CHECK(op->inputs[0] == o->subgraphs[0].inputs[0] && op->inputs[1] == o->subgraphs[0].inputs[1]);
    CHECK(shape_is(op_in(o, 0, 2), LG_DIMS(1, 2, 2, 1)));
    CHECK(floats_are(o, op_in(o, 0, 2), (const float[]){1, 2, 3, 4}, 4));
    CHECK(writes_output(o, 0, "out"));
    DONE(m, o, rep);
}

/* PAD of NCHW with paddings [[0,0],[0,0],[1,0],[0,2]] (H: 1 before, W: 2 after): the rows go
   to NHWC's dims p[i]: [[0,0],[1,0],[0,2],[0,0]]. */
LG_TEST(sink_pad_paddings_remapped) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int pd = lg_b_const_i32(&b, "pads", LG_DIMS(4, 2), (const int32_t[]){0, 0, 0, 0, 1, 0, 0, 2});
    int pt = lg_b_tensor(&b, "padded", LG_FLOAT32, LG_DIMS(1, 3, 3, 4));
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 3, 4, 3));
    tr(&b, x, TO_NCHW, t);
    lg_pad_options po;
    lg_opts_init(LG_OPTS_PAD_OPTIONS, &po, sizeof po);
    lg_b_op_opts(&b, LG_OP_PAD, LG_IDS(t, pd), LG_IDS(pt), LG_OPTS_PAD_OPTIONS, &po);
    tr(&b, pt, TO_NHWC, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
    CHECK_EQ_INT(code_of(o, 0), LG_OP_PAD);
    CHECK(o->subgraphs[0].ops[0].inputs[0] == o->subgraphs[0].inputs[0]);
    CHECK(ints_are(o, op_in(o, 0, 1), LG_DIMS(0, 0, 1, 0, 0, 2, 0, 0)));
    CHECK(writes_output(o, 0, "out"));
    DONE(m, o, rep);
}

/* MEAN over NCHW's H,W (axes 2,3, no keep_dims) of T(x NHWC): MEAN(x, axes {1,2}) gives the
   same [1,3] directly, no transpose at all (the kept dims N, C are in the same order). */
LG_TEST(sink_mean_spatial_axes) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 3));
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 3, 4, 4));
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 3));
    tr(&b, x, TO_NCHW, t);
    reduce(&b, LG_OP_MEAN, t, (const int32_t[]){2, 3}, 2, false, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
    CHECK_EQ_INT(code_of(o, 0), LG_OP_MEAN);
    CHECK(o->subgraphs[0].ops[0].inputs[0] == o->subgraphs[0].inputs[0]);
    CHECK(ints_are(o, op_in(o, 0, 1), LG_DIMS(1, 2)));
    CHECK(writes_output(o, 0, "out"));
    DONE(m, o, rep);
}

/* The classifier head of an ONNX export: MEAN keep_dims over axes -1,-2 -> [1,3,1,1] ->
   RESHAPE [1,3]. MEAN(x, {1,2}, keep) gives [1,1,1,3], whose TRANSPOSE(0,3,1,2) moves only
   1-sized dims, so the RESHAPE reads it directly: no transpose left. */
LG_TEST(sink_mean_keep_dims_then_reshape) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 3));
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 3, 4, 4));
    int mean = lg_b_tensor(&b, "mean", LG_FLOAT32, LG_DIMS(1, 3, 1, 1));
    int sh = lg_b_const_i32(&b, "shape", LG_DIMS(2), (const int32_t[]){1, 3});
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 3));
    tr(&b, x, TO_NCHW, t);
    reduce(&b, LG_OP_MEAN, t, (const int32_t[]){-1, -2}, 2, true, mean);
    lg_reshape_options rs;
    lg_opts_init(LG_OPTS_RESHAPE_OPTIONS, &rs, sizeof rs);
    lg_b_op_opts(&b, LG_OP_RESHAPE, LG_IDS(mean, sh), LG_IDS(out), LG_OPTS_RESHAPE_OPTIONS, &rs);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), 0);
    CHECK_EQ_INT(code_of(o, 0), LG_OP_MEAN);
    CHECK_EQ_INT(code_of(o, 1), LG_OP_RESHAPE);
    CHECK(ints_are(o, op_in(o, 0, 1), LG_DIMS(1, 2)));
    CHECK(shape_is(op_in(o, 1, 0), LG_DIMS(1, 1, 1, 3)));
    DONE(m, o, rep);
}

/* REDUCE_MAX over axes {1,2} of TRANSPOSE(0,2,1,3): any order is exact for a max, so it
   moves (axes {2,1} = {1,2}, the kept dims 0, 3 in order: no transpose left). SUM over the
   same axes would fold H before W instead of W before H: it stays. */
static lg_model *reduce_swap_model(int32_t code) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4, 3, 2));
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 3, 4, 2));
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 2));
    tr(&b, x, (const int32_t[]){0, 2, 1, 3}, t);
    reduce(&b, code, t, (const int32_t[]){1, 2}, 2, false, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(sink_reduce_max_any_order) {
    lg_model *m = reduce_swap_model(LG_OP_REDUCE_MAX);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
    CHECK_EQ_INT(code_of(o, 0), LG_OP_REDUCE_MAX);
    CHECK(ints_are(o, op_in(o, 0, 1), LG_DIMS(1, 2)));
    DONE(m, o, rep);
}

LG_TEST(sink_near_miss_sum_order) {
    lg_model *m = reduce_swap_model(LG_OP_SUM);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(code_of(o, 0), LG_OP_TRANSPOSE);
    CHECK_EQ_INT(sink_applied(rep), 0);
    DONE(m, o, rep);
}

/* ADD(T(x), u) -> T^-1 -> out with u a runtime NCHW input: u gets one TRANSPOSE(0,2,3,1),
   the pair goes: 2 transposes -> 1. */
static lg_model *runtime_operand_model(bool then_relu) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    int u = lg_b_tensor(&b, "u", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int s = lg_b_tensor(&b, "s", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    tr(&b, x, TO_NCHW, t);
    add(&b, t, u, s);
    int out;
    if (then_relu) {
        out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
        lg_b_op(&b, LG_OP_RELU, LG_IDS(s), LG_IDS(out));
    } else {
        out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
        tr(&b, s, TO_NHWC, out);
    }
    lg_b_io(&b, LG_IDS(x, u), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(sink_runtime_operand_transposed) {
    lg_model *m = runtime_operand_model(false);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), 1);
    int32_t a = producer(o, o->subgraphs[0].outputs[0]);
    CHECK(a >= 0 && code_of(o, (uint32_t)a) == LG_OP_ADD);
    const lg_op *add_op = &o->subgraphs[0].ops[a < 0 ? 0 : a];
    CHECK(add_op->inputs[0] == o->subgraphs[0].inputs[0]);
    int32_t ut = producer(o, add_op->inputs[1]);
    CHECK(ut >= 0 && code_of(o, (uint32_t)ut) == LG_OP_TRANSPOSE);
    if (ut >= 0) {
        CHECK(o->subgraphs[0].ops[ut].inputs[0] == o->subgraphs[0].inputs[1]);
        CHECK(ints_are(o, op_in(o, (uint32_t)ut, 1), LG_DIMS(0, 2, 3, 1)));
    }
    DONE(m, o, rep);
}

/* One TRANSPOSE read by RELU and NEG, each followed by the inverse transpose to a graph
   output: moving below RELU alone keeps the transpose (NEG still reads it) but cancels one,
   then below NEG: 3 transposes -> 0. */
LG_TEST(sink_shared_transpose_two_consumers) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int n = lg_b_tensor(&b, "n", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int o1 = lg_b_tensor(&b, "o1", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    int o2 = lg_b_tensor(&b, "o2", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    tr(&b, x, TO_NCHW, t);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(t), LG_IDS(r));
    lg_b_op(&b, LG_OP_NEG, LG_IDS(t), LG_IDS(n));
    tr(&b, r, TO_NHWC, o1);
    tr(&b, n, TO_NHWC, o2);
    lg_b_io(&b, LG_IDS(x), LG_IDS(o1, o2));
    CHECK_EQ_INT(b.status, LG_OK);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), 0);
    CHECK(writes_output(o, 0, "o1") || writes_output(o, 0, "o2"));
    CHECK(writes_output(o, 1, "o1") || writes_output(o, 1, "o2"));
    DONE(m, o, rep);
}

static void mul(lg_builder *b, int x, int k, int y) {
    lg_mul_options mo;
    lg_opts_init(LG_OPTS_MUL_OPTIONS, &mo, sizeof mo);
    lg_b_op_opts(b, LG_OP_MUL, LG_IDS(x, k), LG_IDS(y), LG_OPTS_MUL_OPTIONS, &mo);
}

/* SiLU as torch exports it, x * sigmoid(x), between a conv's NHWC->NCHW transpose and the
   next conv's NCHW->NHWC one: x[1,4,4,2] -> T -> t -> LOGISTIC -> s; MUL(t, s) -> T^-1 ->
   out. The transpose feeds both LOGISTIC and MUL: below LOGISTIC alone it would stay for the
   MUL and another would go on s (2 -> 3), below MUL alone s would need a TRANSPOSE(q) (2 ->
   2, an insert). LOGISTIC moves with the MUL (its output is read by the MUL alone): one move,
   the transpose is dropped and the inverse cancels, 2 -> 0; LOGISTIC reads x and writes
   [1,4,4,2], MUL writes out. */
LG_TEST(sink_silu_diamond) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int sg = lg_b_tensor(&b, "sig", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int sl = lg_b_tensor(&b, "silu", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    tr(&b, x, TO_NCHW, t);
    lg_b_op(&b, LG_OP_LOGISTIC, LG_IDS(t), LG_IDS(sg));
    mul(&b, t, sg, sl);
    tr(&b, sl, TO_NHWC, out);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), 0);
    CHECK_EQ_INT(sink_applied(rep), 1);
    CHECK_EQ_INT(code_of(o, 0), LG_OP_LOGISTIC);
    CHECK_EQ_INT(code_of(o, 1), LG_OP_MUL);
    int32_t in0 = o->subgraphs[0].inputs[0];
    CHECK(o->subgraphs[0].ops[0].inputs[0] == in0);
    CHECK(shape_is(tensor(o, o->subgraphs[0].ops[0].outputs[0]), LG_DIMS(1, 4, 4, 2)));
    CHECK(o->subgraphs[0].ops[1].inputs[0] == in0);
    CHECK(o->subgraphs[0].ops[1].inputs[1] == o->subgraphs[0].ops[0].outputs[0]);
    CHECK(writes_output(o, 1, "out"));
    DONE(m, o, rep);
}

/* An EfficientNet block as the importer lowers it (torchvision's MBConv: SiLU, then
   squeeze-excite: global MEAN keep_dims, 1x1 conv, SiLU, 1x1 conv, sigmoid, MUL with the
   feature map), on an NHWC x[1,4,4,2] (a conv's output) to an NHWC out (the next conv's
   input):
     x -> T0 -> h[1,2,4,4] -> SiLU -> f -> MEAN(2,3 keep) -> g[1,2,1,1] -> T1 -> conv1 -> T2 ->
     SiLU -> T3 -> conv2 -> LOGISTIC -> e[1,1,1,2];  f -> T4 -> [1,4,4,2];  MUL(e, T4(f)) ->
     conv3 -> out.
   Five transposes, none left: T0 goes below the SiLU (T4 cancels, one T0' stays on f for the
   MEAN), then below the MEAN (keep_dims: axes {2,3} -> {1,2}, T1 cancels), T2 and T3 cancel
   through the inner SiLU. 10 ops: LOGISTIC, MUL, MEAN, conv1, LOGISTIC, MUL, conv2,
   LOGISTIC, MUL, conv3. */
LG_TEST(sink_squeeze_excite_block) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int h = lg_b_tensor(&b, "h", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int hs = lg_b_tensor(&b, "hs", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int f = lg_b_tensor(&b, "f", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int g = lg_b_tensor(&b, "g", LG_FLOAT32, LG_DIMS(1, 2, 1, 1));
    int g1 = lg_b_tensor(&b, "g1", LG_FLOAT32, LG_DIMS(1, 1, 1, 2));
    int c1 = lg_b_tensor(&b, "c1", LG_FLOAT32, LG_DIMS(1, 1, 1, 2));
    int c1t = lg_b_tensor(&b, "c1t", LG_FLOAT32, LG_DIMS(1, 2, 1, 1));
    int c1s = lg_b_tensor(&b, "c1s", LG_FLOAT32, LG_DIMS(1, 2, 1, 1));
    int c1a = lg_b_tensor(&b, "c1a", LG_FLOAT32, LG_DIMS(1, 2, 1, 1));
    int c1n = lg_b_tensor(&b, "c1n", LG_FLOAT32, LG_DIMS(1, 1, 1, 2));
    int c2 = lg_b_tensor(&b, "c2", LG_FLOAT32, LG_DIMS(1, 1, 1, 2));
    int e = lg_b_tensor(&b, "e", LG_FLOAT32, LG_DIMS(1, 1, 1, 2));
    int fn = lg_b_tensor(&b, "fn", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int sc = lg_b_tensor(&b, "sc", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    tr(&b, x, TO_NCHW, h);
    lg_b_op(&b, LG_OP_LOGISTIC, LG_IDS(h), LG_IDS(hs));
    mul(&b, h, hs, f);
    reduce(&b, LG_OP_MEAN, f, (const int32_t[]){2, 3}, 2, true, g);
    tr(&b, g, TO_NHWC, g1);
    conv1x1(&b, g1, c1, "conv1");
    tr(&b, c1, TO_NCHW, c1t);
    lg_b_op(&b, LG_OP_LOGISTIC, LG_IDS(c1t), LG_IDS(c1s));
    mul(&b, c1t, c1s, c1a);
    tr(&b, c1a, TO_NHWC, c1n);
    conv1x1(&b, c1n, c2, "conv2");
    lg_b_op(&b, LG_OP_LOGISTIC, LG_IDS(c2), LG_IDS(e));
    tr(&b, f, TO_NHWC, fn);
    mul(&b, e, fn, sc);
    conv1x1(&b, sc, out, "conv3");
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(n_code(m, LG_OP_TRANSPOSE), 5);
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), 0);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 10);
    CHECK_EQ_INT(n_code(o, LG_OP_LOGISTIC), 3);
    CHECK_EQ_INT(n_code(o, LG_OP_MUL), 3);
    CHECK_EQ_INT(n_code(o, LG_OP_CONV_2D), 3);
    int found = 0;
    for (uint32_t i = 0; i < o->subgraphs[0].n_ops; i++) {
        if (code_of(o, i) != LG_OP_MEAN) continue;
        found++;
        CHECK(o->subgraphs[0].ops[i].inputs[0] != o->subgraphs[0].inputs[0]); /* reads the SiLU */
        CHECK(shape_is(op_in(o, i, 0), LG_DIMS(1, 4, 4, 2)));
        CHECK(ints_are(o, op_in(o, i, 1), LG_DIMS(1, 2)));
        CHECK(shape_is(tensor(o, o->subgraphs[0].ops[i].outputs[0]), LG_DIMS(1, 1, 1, 2)));
    }
    CHECK_EQ_INT(found, 1);
    CHECK(writes_output(o, 9, "out"));
    DONE(m, o, rep);
}

/* ------------------------------------------------------------------ near-misses */

static void check_unchanged(lg_model *m, const int32_t *codes, uint32_t n) {
    OPTIMIZED(m, o, rep);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, n);
    for (uint32_t i = 0; i < n && i < o->subgraphs[0].n_ops; i++) CHECK_EQ_INT(code_of(o, i), codes[i]);
    CHECK_EQ_INT(sink_applied(rep), 0);
    DONE(m, o, rep);
}

/* T -> RELU -> RESHAPE [1,12] -> out: RESHAPE of a transpose that moves the 3-sized dim is
   not layout-agnostic, so the (neutral) move below RELU leads nowhere: nothing moves. */
LG_TEST(sink_near_miss_reshape_stops) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int sh = lg_b_const_i32(&b, "shape", LG_DIMS(2), (const int32_t[]){1, 12});
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 12));
    tr(&b, x, TO_NCHW, t);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(t), LG_IDS(r));
    lg_reshape_options rs;
    lg_opts_init(LG_OPTS_RESHAPE_OPTIONS, &rs, sizeof rs);
    lg_b_op_opts(&b, LG_OP_RESHAPE, LG_IDS(r, sh), LG_IDS(out), LG_OPTS_RESHAPE_OPTIONS, &rs);
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    check_unchanged(m, (const int32_t[]){LG_OP_TRANSPOSE, LG_OP_RELU, LG_OP_RESHAPE}, 3);
}

/* A transpose that is a graph output stays; one followed by RELU to a graph output stays
   above the RELU (moving it changes nothing). */
LG_TEST(sink_near_miss_graph_output) {
    for (int below = 0; below < 2; below++) {
        lg_builder b;
        lg_model *m = new_model(&b);
        int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
        int t = lg_b_tensor(&b, "t", LG_FLOAT32, below ? LG_DIMS(1, 2, 2, 3) : LG_DIMS(1, 3, 2, 2));
        int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
        if (below) {
            lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(t));
            tr(&b, t, TO_NCHW, out);
        } else {
            tr(&b, x, TO_NCHW, t);
            lg_b_op(&b, LG_OP_RELU, LG_IDS(t), LG_IDS(out));
        }
        lg_b_io(&b, LG_IDS(x), LG_IDS(out));
        CHECK_EQ_INT(b.status, LG_OK);
        if (below) check_unchanged(m, (const int32_t[]){LG_OP_RELU, LG_OP_TRANSPOSE}, 2);
        else check_unchanged(m, (const int32_t[]){LG_OP_TRANSPOSE, LG_OP_RELU}, 2);
    }
}

/* T(0,3,1,2) -> RELU -> T(0,1,3,2) -> RELU: the second is not the inverse of the first:
   both stay where they are. */
LG_TEST(sink_near_miss_different_perms) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 3, 4));
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 4, 2, 3));
    int r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(1, 4, 2, 3));
    int t2 = lg_b_tensor(&b, "t2", LG_FLOAT32, LG_DIMS(1, 4, 3, 2));
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 4, 3, 2));
    tr(&b, x, TO_NCHW, t);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(t), LG_IDS(r));
    tr(&b, r, (const int32_t[]){0, 1, 3, 2}, t2);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(t2), LG_IDS(out));
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    check_unchanged(m, (const int32_t[]){LG_OP_TRANSPOSE, LG_OP_RELU, LG_OP_TRANSPOSE, LG_OP_RELU}, 4);
}

/* Moves that would add a transpose: (a) ADD(T(x), u) -> RELU -> out: u would need one and
   the output one more; (b) T read by RELU -> out1 and RESHAPE -> out2: moving below RELU
   leaves the transpose for the RESHAPE and puts another on out1. */
LG_TEST(sink_near_miss_would_add_transpose) {
    check_unchanged(runtime_operand_model(true),
                    (const int32_t[]){LG_OP_TRANSPOSE, LG_OP_ADD, LG_OP_RELU}, 3);
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int o1 = lg_b_tensor(&b, "o1", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    int sh = lg_b_const_i32(&b, "shape", LG_DIMS(2), (const int32_t[]){1, 12});
    int o2 = lg_b_tensor(&b, "o2", LG_FLOAT32, LG_DIMS(1, 12));
    tr(&b, x, TO_NCHW, t);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(t), LG_IDS(o1));
    lg_reshape_options rs;
    lg_opts_init(LG_OPTS_RESHAPE_OPTIONS, &rs, sizeof rs);
    lg_b_op_opts(&b, LG_OP_RESHAPE, LG_IDS(t, sh), LG_IDS(o2), LG_OPTS_RESHAPE_OPTIONS, &rs);
    lg_b_io(&b, LG_IDS(x), LG_IDS(o1, o2));
    CHECK_EQ_INT(b.status, LG_OK);
    check_unchanged(m, (const int32_t[]){LG_OP_TRANSPOSE, LG_OP_RELU, LG_OP_RESHAPE}, 3);
}

/* The SiLU diamond when the sigmoid may not move along: (a) its output is also a graph output
   (NCHW: moving it would change the interface); (b) it is not a one-input op, ADD(t, u) with
   u a runtime NCHW input (u would need a TRANSPOSE(q)). Moving below the MUL alone needs a
   TRANSPOSE(q) for its second input and keeps the transpose for the other reader: nothing
   moves. */
static lg_model *diamond_near_miss(int variant) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int u = variant ? lg_b_tensor(&b, "u", LG_FLOAT32, LG_DIMS(1, 2, 4, 4)) : -1;
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int sg = lg_b_tensor(&b, "sig", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int sl = lg_b_tensor(&b, "silu", LG_FLOAT32, LG_DIMS(1, 2, 4, 4));
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    tr(&b, x, TO_NCHW, t);
    if (variant) add(&b, t, u, sg);
    else lg_b_op(&b, LG_OP_LOGISTIC, LG_IDS(t), LG_IDS(sg));
    mul(&b, t, sg, sl);
    tr(&b, sl, TO_NHWC, out);
    if (variant) lg_b_io(&b, LG_IDS(x, u), LG_IDS(out));
    else lg_b_io(&b, LG_IDS(x), LG_IDS(out, sg));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(sink_near_miss_diamond) {
    check_unchanged(diamond_near_miss(0),
                    (const int32_t[]){LG_OP_TRANSPOSE, LG_OP_LOGISTIC, LG_OP_MUL, LG_OP_TRANSPOSE}, 4);
    check_unchanged(diamond_near_miss(1),
                    (const int32_t[]){LG_OP_TRANSPOSE, LG_OP_ADD, LG_OP_MUL, LG_OP_TRANSPOSE}, 4);
}

/* ------------------------------------------------------------------ the corpus */

/* The five corpus models have no transpose pairs: lg_optimize (with this pass) leaves their
   op counts as they are and the pass makes no move. */
LG_TEST(sink_corpus_unchanged) {
    static const char *models[5] = {"build/corpus/selfie_segmentation.tflite",
                                    "build/corpus/face_detection_short_range.tflite",
                                    "build/corpus/face_detection_full_range_sparse.tflite",
                                    "build/corpus/hand_landmark_lite.tflite",
                                    "build/corpus/pose_landmark_lite.tflite"};
    for (int k = 0; k < 5; k++) {
        lg_model *m = NULL;
        lg_error err;
        if (lg_tflite_read_file(models[k], NULL, &m, &err) != LG_OK) {
            fprintf(stderr, "  note: %s not readable (%s); skipped\n", models[k], err.msg);
            continue;
        }
        uint32_t before = m->subgraphs[0].n_ops, tb = n_code(m, LG_OP_TRANSPOSE);
        OPTIMIZED(m, o, rep);
        CHECK_EQ_INT(o->subgraphs[0].n_ops, before);
        CHECK_EQ_INT(n_code(o, LG_OP_TRANSPOSE), tb);
        CHECK_EQ_INT(sink_applied(rep), 0);
        DONE(m, o, rep);
    }
}
