/*
 * make_hybrid_models DIR -- writes small models for tests/e2e/test_quantize_dynamic.sh:
 *
 *   hyb_*.tflite    hybrid ops made directly with the builder (float activations, INT8
 *                   constant weights with quantization, float bias), one per kernel variant
 *                   of src/run/k_hybrid.c, including the forms the int8-dynamic pass does not
 *                   write (symmetric FULLY_CONNECTED inputs, per-tensor weights, no bias,
 *                   keep_num_dims, adj_y, EMBEDDING_LOOKUP of an INT8 table);
 *   flt_*.tflite    float models (FLOAT32 weights of 1024 elements or more, and a small one
 *                   that must stay float) for `litegpu quantize --mode int8-dynamic`.
 *
 * Every model takes one float32 input x; most first compute x - 0.5 (SUB), so the `half`
 * fill gives an all-zero input to the op under test (the zero paths of the input
 * quantizers) and `pattern` one of both signs; the *_pos models read x itself (>= 0). Weights
 * are w(o, i) = sin(0.7 o + 1.3 i + 0.1) * (1 + 0.25 (o % 3)), INT8 per channel as the
 * converter makes them (scale max|w| / 127, round half away from zero), per tensor where
 * the name says pt. Prints one line per model written. Only the public API is used.
 * Exit 0, 1 on failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "quant_builder.h"

static int read_through_dequantize; /* qweights: the INT8 constant read through a DEQUANTIZE */

static float wf(int o, int i) { return (float)sin(0.7 * o + 1.3 * i + 0.1) * (1.0f + 0.25f * (float)(o % 3)); }

static int64_t numel_of(lg_dims d) {
    int64_t n = 1;
    for (uint32_t i = 0; i < d.n; i++) n *= d.v[i];
    return n;
}

/* the channel of element i for a weight of this shape quantized along dim */
static int chan(lg_dims shape, int dim, int64_t i) {
    int64_t inner = 1;
    for (uint32_t d = (uint32_t)dim + 1; d < shape.n; d++) inner *= shape.v[d];
    return (int)((i / inner) % shape.v[dim]);
}

/* float weights w(chan, i) */
static int fweights(const char *name, lg_dims shape, int dim) {
    int64_t n = numel_of(shape);
    float *w = malloc((size_t)n * sizeof *w);
    for (int64_t i = 0; i < n; i++) w[i] = wf(chan(shape, dim, i), (int)i);
    int t = lg_b_const_f32(&B, name, shape, w);
    free(w);
    return t;
}

/* INT8 weights: per channel along dim (scale max|w| / 127 of the channel), or per tensor */
static int qweights(const char *name, lg_dims shape, int dim, int per_tensor) {
    int64_t n = numel_of(shape);
    int oc = shape.v[dim];
    float *s = calloc((size_t)oc, sizeof *s);
    float all = 0;
    for (int64_t i = 0; i < n; i++) {
        int c = chan(shape, dim, i);
        float a = fabsf(wf(c, (int)i));
        if (a > s[c]) s[c] = a;
        if (a > all) all = a;
    }
    for (int c = 0; c < oc; c++) s[c] = (per_tensor ? all : s[c]) / 127.0f;
    int8_t *q = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++) {
        int c = chan(shape, dim, i);
        q[i] = (int8_t)roundf(wf(c, (int)i) * (1.0f / s[c]));
    }
    int t = lg_b_const(&B, name, LG_INT8, shape, q, (uint64_t)n);
    qset_pc(t, s, per_tensor ? 1 : (uint32_t)oc, per_tensor ? 0 : dim);
    free(q);
    free(s);
    if (!read_through_dequantize) return t;
    int f = lg_b_tensor(&B, "w_dequantized", LG_FLOAT32, shape);
    lg_b_op(&B, LG_OP_DEQUANTIZE, LG_IDS(t), LG_IDS(f));
    return f;
}

static int fbias(int oc) {
    float *b = malloc((size_t)oc * sizeof *b);
    for (int o = 0; o < oc; o++) b[o] = 0.1f * (float)(o % 5) - 0.2f;
    int t = lg_b_const_f32(&B, "b", LG_DIMS(oc), b);
    free(b);
    return t;
}

/* x, and x - 0.5 unless pos */
static int front(lg_dims shape, int pos, int *x) {
    *x = lg_b_tensor(&B, "x", LG_FLOAT32, shape);
    if (pos) return *x;
    int h = lg_b_const_f32(&B, "half", LG_DIMS(1), (const float[]){0.5f});
    int d = lg_b_tensor(&B, "xc", LG_FLOAT32, shape);
    lg_sub_options so;
    memset(&so, 0, sizeof so);
    lg_b_op_opts(&B, LG_OP_SUB, LG_IDS(*x, h), LG_IDS(d), LG_OPTS_SUB_OPTIONS, &so);
    return d;
}

/* ------------------------------------------------------------------ FULLY_CONNECTED */

static void fc(int quant, int per_tensor, int asym, int keep, int bias, int act, int pos) {
    int x;
    lg_dims in = keep ? LG_DIMS(2, 3, 64) : LG_DIMS(2, 64);
    int a = front(in, pos, &x);
    lg_dims ws = LG_DIMS(32, 64);
    int w = quant ? qweights("w", ws, 0, per_tensor) : fweights("w", ws, 0);
    int y = lg_b_tensor(&B, "y", LG_FLOAT32, keep ? LG_DIMS(2, 3, 32) : LG_DIMS(2, 32));
    lg_fully_connected_options o;
    memset(&o, 0, sizeof o);
    o.keep_num_dims = keep != 0;
    o.asymmetric_quantize_inputs = asym != 0;
    o.fused_activation_function = (int8_t)act;
    if (bias) lg_b_op_opts(&B, LG_OP_FULLY_CONNECTED, LG_IDS(a, w, fbias(32)), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &o);
    else lg_b_op_opts(&B, LG_OP_FULLY_CONNECTED, LG_IDS(a, w), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &o);
    lg_b_io(&B, LG_IDS(x), LG_IDS(y));
}

static void hyb_fc_pc_asym(void) { fc(1, 0, 1, 0, 1, 0, 0); }
static void hyb_fc_pt_asym(void) { fc(1, 1, 1, 0, 1, 0, 0); }
static void hyb_fc_pt_sym(void) { fc(1, 1, 0, 0, 1, 0, 0); }
static void hyb_fc_pc_sym(void) { fc(1, 0, 0, 0, 1, 0, 0); }
static void hyb_fc_keep_relu(void) { fc(1, 0, 1, 1, 1, LG_ACTIVATION_FUNCTION_TYPE_RELU, 0); }
static void hyb_fc_nobias_pos(void) { fc(1, 0, 1, 0, 0, 0, 1); }
static void flt_fc(void) { fc(0, 0, 0, 0, 1, LG_ACTIVATION_FUNCTION_TYPE_RELU6, 0); }

/* ------------------------------------------------------------------ CONV_2D */

static void conv(int quant, int per_tensor, int stride, int batch, int act, int pos) {
    int x;
    int a = front(LG_DIMS(batch, 8, 8, 8), pos, &x);
    lg_dims ws = LG_DIMS(16, 3, 3, 8);
    int w = quant ? qweights("w", ws, 0, per_tensor) : fweights("w", ws, 0);
    int oh = stride == 1 ? 8 : 3;
    int y = lg_b_tensor(&B, "y", LG_FLOAT32, LG_DIMS(batch, oh, oh, 16));
    lg_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = stride == 1 ? LG_PADDING_SAME : LG_PADDING_VALID;
    o.stride_w = o.stride_h = stride;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    o.fused_activation_function = (int8_t)act;
    lg_b_op_opts(&B, LG_OP_CONV_2D, LG_IDS(a, w, fbias(16)), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_io(&B, LG_IDS(x), LG_IDS(y));
}

/* a pointwise convolution over a larger image */
static void conv1x1(int hw, int ic, int oc) {
    int x;
    int a = front(LG_DIMS(1, hw, hw, ic), 0, &x);
    int w = qweights("w", LG_DIMS(oc, 1, 1, ic), 0, 0);
    int y = lg_b_tensor(&B, "y", LG_FLOAT32, LG_DIMS(1, hw, hw, oc));
    lg_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 1;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    lg_b_op_opts(&B, LG_OP_CONV_2D, LG_IDS(a, w, fbias(oc)), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_io(&B, LG_IDS(x), LG_IDS(y));
}
static void hyb_conv1x1_big(void) { conv1x1(112, 16, 64); }
static void hyb_conv1x1_small(void) { conv1x1(8, 16, 64); }

static void hyb_conv_pc(void) { conv(1, 0, 1, 1, LG_ACTIVATION_FUNCTION_TYPE_RELU6, 0); }
/* the same INT8 weights read through DEQUANTIZE: what a GPU delegate computes for hyb_conv_pc */
static void deq_conv_pc(void) {
    read_through_dequantize = 1;
    conv(1, 0, 1, 1, LG_ACTIVATION_FUNCTION_TYPE_RELU6, 0);
    read_through_dequantize = 0;
}
static void hyb_conv_pt(void) { conv(1, 1, 1, 1, 0, 0); }
static void hyb_conv_s2_b2(void) { conv(1, 0, 2, 2, 0, 0); }
static void hyb_conv_pos(void) { conv(1, 0, 1, 1, 0, 1); }
static void flt_conv(void) { conv(0, 0, 1, 1, LG_ACTIVATION_FUNCTION_TYPE_RELU, 0); }

/* ------------------------------------------------------------------ DEPTHWISE_CONV_2D */

static void dw(int quant, int ic, int dm, int stride, int pos) {
    int x;
    int oc = ic * dm;
    int a = front(LG_DIMS(1, 8, 8, ic), pos, &x);
    lg_dims ws = LG_DIMS(1, 3, 3, oc);
    int w = quant ? qweights("w", ws, 3, 0) : fweights("w", ws, 3);
    int oh = stride == 1 ? 8 : 4;
    int y = lg_b_tensor(&B, "y", LG_FLOAT32, LG_DIMS(1, oh, oh, oc));
    lg_depthwise_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = stride;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    o.depth_multiplier = dm;
    lg_b_op_opts(&B, LG_OP_DEPTHWISE_CONV_2D, LG_IDS(a, w, fbias(oc)), LG_IDS(y), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o);
    lg_b_io(&B, LG_IDS(x), LG_IDS(y));
}

static void hyb_dw(void) { dw(1, 16, 1, 1, 0); }
static void hyb_dw_dm2_s2(void) { dw(1, 8, 2, 2, 0); }
static void hyb_dw_pos(void) { dw(1, 16, 1, 1, 1); }
static void flt_dw(void) { dw(0, 128, 1, 1, 0); }
static void flt_dw_small(void) { dw(0, 16, 1, 1, 0); } /* 144 weights: stays float */

/* ------------------------------------------------------------------ BATCH_MATMUL */

static void bmm(int quant, int adj_y, int asym) {
    int x;
    int a = front(LG_DIMS(2, 4, 64), 0, &x);
    lg_dims ws = adj_y ? LG_DIMS(32, 64) : LG_DIMS(64, 32);
    int w = quant ? qweights("w", ws, adj_y ? 0 : 1, 1) : fweights("w", ws, adj_y ? 0 : 1);
    int y = lg_b_tensor(&B, "y", LG_FLOAT32, LG_DIMS(2, 4, 32));
    lg_batch_mat_mul_options o;
    memset(&o, 0, sizeof o);
    o.adj_y = adj_y != 0;
    o.asymmetric_quantize_inputs = asym != 0;
    lg_b_op_opts(&B, LG_OP_BATCH_MATMUL, LG_IDS(a, w), LG_IDS(y), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o);
    lg_b_io(&B, LG_IDS(x), LG_IDS(y));
}

static void hyb_bmm_asym(void) { bmm(1, 0, 1); }
static void hyb_bmm_adjy_sym(void) { bmm(1, 1, 0); }
static void flt_bmm(void) { bmm(0, 0, 0); }

/* ------------------------------------------------------------------ EMBEDDING_LOOKUP */

/* y = lookup(table, {2, 0, 5}) + x: the INT8 table has a scale per row */
static void hyb_lookup(void) {
    int x = lg_b_tensor(&B, "x", LG_FLOAT32, LG_DIMS(3, 16));
    int ids = lg_b_const_i32(&B, "ids", LG_DIMS(3), (const int32_t[]){2, 0, 5});
    int t = qweights("table", LG_DIMS(8, 16), 0, 0);
    int e = lg_b_tensor(&B, "e", LG_FLOAT32, LG_DIMS(3, 16));
    lg_b_op(&B, LG_OP_EMBEDDING_LOOKUP, LG_IDS(ids, t), LG_IDS(e));
    int y = lg_b_tensor(&B, "y", LG_FLOAT32, LG_DIMS(3, 16));
    lg_add_options ao;
    memset(&ao, 0, sizeof ao);
    lg_b_op_opts(&B, LG_OP_ADD, LG_IDS(e, x), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &ao);
    lg_b_io(&B, LG_IDS(x), LG_IDS(y));
}

static const struct {
    const char *name;
    void (*fn)(void);
} models[] = {
    {"hyb_fc_pc_asym", hyb_fc_pc_asym}, {"hyb_fc_pt_asym", hyb_fc_pt_asym}, {"hyb_fc_pt_sym", hyb_fc_pt_sym},
    {"hyb_fc_pc_sym", hyb_fc_pc_sym},   {"hyb_fc_keep_relu", hyb_fc_keep_relu}, {"hyb_fc_nobias_pos", hyb_fc_nobias_pos},
    {"hyb_conv_pc", hyb_conv_pc}, {"hyb_conv1x1_big", hyb_conv1x1_big}, {"hyb_conv1x1_small", hyb_conv1x1_small},       {"hyb_conv_pt", hyb_conv_pt}, {"deq_conv_pc", deq_conv_pc},     {"hyb_conv_s2_b2", hyb_conv_s2_b2},
    {"hyb_conv_pos", hyb_conv_pos},     {"hyb_dw", hyb_dw},               {"hyb_dw_dm2_s2", hyb_dw_dm2_s2},
    {"hyb_dw_pos", hyb_dw_pos},         {"hyb_bmm_asym", hyb_bmm_asym},   {"hyb_bmm_adjy_sym", hyb_bmm_adjy_sym},
    {"hyb_lookup", hyb_lookup},         {"flt_fc", flt_fc},               {"flt_conv", flt_conv},
    {"flt_dw", flt_dw},                 {"flt_dw_small", flt_dw_small},   {"flt_bmm", flt_bmm},
};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_hybrid_models DIR\n");
        return 2;
    }
    int bad = 0;
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
        lg_error err;
        if (lg_model_new(NULL, NULL, &M, &err) != LG_OK) {
            fprintf(stderr, "make_hybrid_models: %s\n", err.msg);
            return 1;
        }
        lg_builder_init(&B, M, 0);
        models[k].fn();
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.tflite", argv[1], models[k].name);
        lg_write_options wo = {.force = true};
        lg_status st = B.status;
        if (st != LG_OK) err = B.err;
        else st = lg_tflite_write_file(M, path, &wo, &err);
        lg_model_free(M);
        if (st != LG_OK) {
            fprintf(stderr, "make_hybrid_models: %s: %s\n", models[k].name, err.msg);
            bad = 1;
            continue;
        }
        printf("%s\n", models[k].name);
    }
    return bad;
}
