/*
 * make_quant_models DIR -- writes small full-integer quantized models made with the builder,
 * for tests/e2e/test_run_quant.sh to run with `litegpu run` and with LiteRT.js.
 *
 * Every model takes a float32 input x (the fills are in [0, 1)), quantizes it to int8 (or
 * uint8) with QUANTIZE, runs the op under test on integers and gives float32 out through
 * DEQUANTIZE, so LiteRT.js (whose tensors are float32, int32 or uint8) can feed and read it;
 * a difference of k units of the final output scale shows as k * scale in the float output.
 * Weights are real per-channel int8: w[o][i] = round(f(o, i) / s[o]) with s[o] = max|f(o, .)| /
 * 127 (symmetric, as the TFLite converter makes them), f a fixed formula; biases int32 at
 * scale s_in * s[o]. Prints one line per model: "NAME OUTPUT_SCALE" (the scale of the last
 * DEQUANTIZE input, in %.9g). Only the public API is used. Exit 0, 1 on failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "quant_builder.h"

static double out_scale;

static float wf(int o, int i) { return (float)sin(0.7 * o + 1.3 * i + 0.1) * (1.0f + 0.25f * (float)(o % 3)); }

/* per-channel int8 weights [oc, rest] along dimension `dim` (0 for conv/fc, 3 for depthwise,
   where the channel is the last index); returns the tensor and fills scales */
static int qweights(const char *name, lg_dims shape, int dim, float *scales) {
    int64_t numel = 1;
    for (uint32_t d = 0; d < shape.n; d++) numel *= shape.v[d];
    int oc = shape.v[dim];
    int8_t *w = malloc((size_t)numel);
    for (int o = 0; o < oc; o++) {
        float mx = 0;
        for (int64_t i = 0; i < numel; i++) {
            int c = dim == 0 ? (int)(i / (numel / oc)) : (int)(i % oc);
            if (c == o && fabsf(wf(o, (int)i)) > mx) mx = fabsf(wf(o, (int)i));
        }
        scales[o] = mx / 127.0f;
    }
    for (int64_t i = 0; i < numel; i++) {
        int c = dim == 0 ? (int)(i / (numel / oc)) : (int)(i % oc);
        w[i] = (int8_t)lrintf(wf(c, (int)i) / scales[c]);
    }
    int t = lg_b_const(&B, name, LG_INT8, shape, w, (uint64_t)numel);
    free(w);
    qset_pc(t, scales, (uint32_t)oc, dim);
    return t;
}

static int qbias(const char *name, int oc, float s_in, const float *ws) {
    int32_t *b = malloc((size_t)oc * 4);
    float *s = malloc((size_t)oc * 4);
    for (int o = 0; o < oc; o++) {
        s[o] = s_in * ws[o];
        b[o] = (int32_t)lrintf((0.1f * (float)(o % 5) - 0.2f) / s[o]);
    }
    int t = lg_b_const_i32(&B, name, LG_DIMS(oc), b);
    qset_pc(t, s, (uint32_t)oc, 0);
    free(b);
    free(s);
    return t;
}

/* x (float) -> QUANTIZE -> q (int8, scale 1/255, zero point -128: [0, 1) exactly) */
static int quant_in(lg_dims shape, int *x, lg_dtype ty) {
    *x = lg_b_tensor(&B, "x", LG_FLOAT32, shape);
    int q = qt("xq", ty, shape, 1.0f / 255.0f, ty == LG_UINT8 ? 0 : -128);
    lg_b_op_v(&B, LG_OP_QUANTIZE, 2, LG_IDS(*x), LG_IDS(q), LG_OPTS_NONE, NULL);
    return q;
}

static void dequant_out(int q, lg_dims shape, float s, int x) {
    int y = lg_b_tensor(&B, "y", LG_FLOAT32, shape);
    lg_b_op_v(&B, LG_OP_DEQUANTIZE, 2, LG_IDS(q), LG_IDS(y), LG_OPTS_NONE, NULL);
    lg_b_io(&B, LG_IDS(x), LG_IDS(y));
    out_scale = s;
}

/* a per-channel conv [1,8,8,3] -> [1,8,8,C] whose output (scale s, zp z) has both signs */
static int conv_front(int q, int oc, float s, int64_t z, int act) {
    float ws[16];
    int w = qweights("w", LG_DIMS(oc, 3, 3, 3), 0, ws);
    int b = qbias("b", oc, 1.0f / 255.0f, ws);
    int y = qt("c", LG_INT8, LG_DIMS(1, 8, 8, oc), s, z);
    lg_conv2d_options co;
    memset(&co, 0, sizeof co);
    co.padding = LG_PADDING_SAME;
    co.stride_w = co.stride_h = 1;
    co.dilation_w_factor = co.dilation_h_factor = 1;
    co.fused_activation_function = (int8_t)act;
    lg_b_op_v(&B, LG_OP_CONV_2D, 3, LG_IDS(q, w, b), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &co);
    return y;
}

/* ------------------------------------------------------------------ the models */

static void m_conv(void) {
    int x, q = quant_in(LG_DIMS(1, 8, 8, 3), &x, LG_INT8);
    int c = conv_front(q, 8, 0.05f, 3, LG_ACTIVATION_FUNCTION_TYPE_NONE);
    dequant_out(c, LG_DIMS(1, 8, 8, 8), 0.05f, x);
}

static void m_conv_relu6(void) {
    int x, q = quant_in(LG_DIMS(1, 8, 8, 3), &x, LG_INT8);
    int c = conv_front(q, 6, 0.03f, -128, LG_ACTIVATION_FUNCTION_TYPE_RELU6);
    dequant_out(c, LG_DIMS(1, 8, 8, 6), 0.03f, x);
}

static void m_conv_s2(void) {
    int x, q = quant_in(LG_DIMS(1, 9, 9, 3), &x, LG_INT8);
    float ws[16];
    int w = qweights("w", LG_DIMS(5, 3, 3, 3), 0, ws);
    int b = qbias("b", 5, 1.0f / 255.0f, ws);
    int y = qt("c", LG_INT8, LG_DIMS(1, 4, 4, 5), 0.04f, -7);
    lg_conv2d_options co;
    memset(&co, 0, sizeof co);
    co.padding = LG_PADDING_VALID;
    co.stride_w = co.stride_h = 2;
    co.dilation_w_factor = co.dilation_h_factor = 1;
    lg_b_op_v(&B, LG_OP_CONV_2D, 3, LG_IDS(q, w, b), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &co);
    dequant_out(y, LG_DIMS(1, 4, 4, 5), 0.04f, x);
}

static void m_dw(void) {
    int x, q = quant_in(LG_DIMS(1, 8, 8, 3), &x, LG_INT8);
    int c = conv_front(q, 4, 0.05f, 0, LG_ACTIVATION_FUNCTION_TYPE_NONE);
    float ws[16];
    int w = qweights("dw", LG_DIMS(1, 3, 3, 8), 3, ws);
    int b = qbias("db", 8, 0.05f, ws);
    int y = qt("d", LG_INT8, LG_DIMS(1, 4, 4, 8), 0.06f, 5);
    lg_depthwise_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 2;
    o.depth_multiplier = 2;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    o.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU;
    lg_b_op_v(&B, LG_OP_DEPTHWISE_CONV_2D, 3, LG_IDS(c, w, b), LG_IDS(y), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o);
    dequant_out(y, LG_DIMS(1, 4, 4, 8), 0.06f, x);
}

static void fc_model(int per_channel) {
    int x, q = quant_in(LG_DIMS(1, 32), &x, LG_INT8);
    float ws[16];
    int w = qweights("w", LG_DIMS(10, 32), 0, ws);
    if (!per_channel) {
        float m = 0;
        for (int o = 0; o < 10; o++) m = ws[o] > m ? ws[o] : m;
        for (int o = 0; o < 10; o++) ws[o] = m;
        /* re-quantize the same formula per tensor */
        int8_t wq[320];
        for (int i = 0; i < 320; i++) wq[i] = (int8_t)lrintf(wf(i / 32, i) / m);
        w = lg_b_const(&B, "wt", LG_INT8, LG_DIMS(10, 32), wq, 320);
        qset(w, m, 0);
    }
    int32_t bi[10];
    for (int o = 0; o < 10; o++) bi[o] = (int32_t)lrintf((0.05f * (float)o - 0.2f) / (ws[o] / 255.0f));
    int b = lg_b_const_i32(&B, "b", LG_DIMS(10), bi);
    if (per_channel) {
        float bs[10];
        for (int o = 0; o < 10; o++) bs[o] = ws[o] / 255.0f;
        qset_pc(b, bs, 10, 0);
    } else {
        qset(b, ws[0] / 255.0f, 0);
    }
    int y = qt("f", LG_INT8, LG_DIMS(1, 10), 0.07f, 2);
    lg_fully_connected_options fo;
    memset(&fo, 0, sizeof fo);
    lg_b_op_v(&B, LG_OP_FULLY_CONNECTED, per_channel ? 5 : 4, LG_IDS(q, w, b), LG_IDS(y),
              LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    dequant_out(y, LG_DIMS(1, 10), 0.07f, x);
}
static void m_fc(void) { fc_model(0); }
static void m_fc_pc(void) { fc_model(1); }

/* two quantizations of x, combined */
static void binary_model(int code, int bcast) {
    lg_dims sh = LG_DIMS(1, 4, 4, 6);
    int x, a = quant_in(sh, &x, LG_INT8);
    int b;
    if (bcast) {
        int8_t c[6] = {-100, -37, 0, 5, 64, 127};
        b = lg_b_const(&B, "k", LG_INT8, LG_DIMS(6), c, 6);
        qset(b, 0.011f, 9);
    } else {
        b = qt("xb", LG_INT8, sh, 0.0071f, 20);
        lg_b_op_v(&B, LG_OP_QUANTIZE, 2, LG_IDS(x), LG_IDS(b), LG_OPTS_NONE, NULL);
    }
    float s = code == LG_OP_MUL ? 0.006f : 0.013f;
    int y = qt("z", LG_INT8, sh, s, code == LG_OP_SUB ? 11 : -60);
    if (code == LG_OP_ADD) {
        lg_add_options o = {LG_ACTIVATION_FUNCTION_TYPE_NONE, false};
        lg_b_op_v(&B, code, 2, LG_IDS(a, b), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &o);
    } else if (code == LG_OP_SUB) {
        lg_sub_options o = {LG_ACTIVATION_FUNCTION_TYPE_NONE, false};
        lg_b_op_v(&B, code, 2, LG_IDS(a, b), LG_IDS(y), LG_OPTS_SUB_OPTIONS, &o);
    } else {
        lg_mul_options o = {LG_ACTIVATION_FUNCTION_TYPE_NONE};
        lg_b_op_v(&B, code, 2, LG_IDS(a, b), LG_IDS(y), LG_OPTS_MUL_OPTIONS, &o);
    }
    dequant_out(y, sh, s, x);
}
static void m_add(void) { binary_model(LG_OP_ADD, 0); }
static void m_add_bcast(void) { binary_model(LG_OP_ADD, 1); }
static void m_sub(void) { binary_model(LG_OP_SUB, 0); }
static void m_mul(void) { binary_model(LG_OP_MUL, 0); }
static void m_mul_bcast(void) { binary_model(LG_OP_MUL, 1); }

static void m_requant(void) {
    lg_dims sh = LG_DIMS(1, 64);
    int x, q = quant_in(sh, &x, LG_INT8);
    int r = qt("r", LG_INT8, sh, 0.0093f, 17);
    lg_b_op_v(&B, LG_OP_QUANTIZE, 2, LG_IDS(q), LG_IDS(r), LG_OPTS_NONE, NULL);
    dequant_out(r, sh, 0.0093f, x);
}

static void m_requant_u8(void) {
    lg_dims sh = LG_DIMS(1, 64);
    int x, q = quant_in(sh, &x, LG_INT8);
    int r = qt("r", LG_UINT8, sh, 0.0061f, 100);
    lg_b_op_v(&B, LG_OP_QUANTIZE, 2, LG_IDS(q), LG_IDS(r), LG_OPTS_NONE, NULL);
    dequant_out(r, sh, 0.0061f, x);
}

static void pool_model(int code) {
    int x, q = quant_in(LG_DIMS(1, 8, 8, 3), &x, LG_INT8);
    int c = conv_front(q, 4, 0.05f, 1, LG_ACTIVATION_FUNCTION_TYPE_NONE);
    int y = qt("p", LG_INT8, LG_DIMS(1, 4, 4, 4), 0.05f, 1);
    lg_pool2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 2;
    o.filter_width = o.filter_height = 3;
    lg_b_op_v(&B, code, 2, LG_IDS(c), LG_IDS(y), LG_OPTS_POOL2D_OPTIONS, &o);
    dequant_out(y, LG_DIMS(1, 4, 4, 4), 0.05f, x);
}
static void m_avgpool(void) { pool_model(LG_OP_AVERAGE_POOL_2D); }
static void m_maxpool(void) { pool_model(LG_OP_MAX_POOL_2D); }

static void mean_model(int keep) {
    int x, q = quant_in(LG_DIMS(1, 8, 8, 3), &x, LG_INT8);
    int c = conv_front(q, 4, 0.05f, 1, LG_ACTIVATION_FUNCTION_TYPE_NONE);
    int ax = keep ? lg_b_const_i32(&B, "axes", LG_DIMS(2), (const int32_t[]){1, 2})
                  : lg_b_const_i32(&B, "axes", LG_DIMS(1), (const int32_t[]){3});
    lg_dims osh = keep ? LG_DIMS(1, 1, 1, 4) : LG_DIMS(1, 8, 8);
    int y = qt("m", LG_INT8, osh, 0.021f, -3);
    lg_reducer_options o = {keep != 0};
    lg_b_op_v(&B, LG_OP_MEAN, 2, LG_IDS(c, ax), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &o);
    dequant_out(y, osh, 0.021f, x);
}
static void m_mean_hw(void) { mean_model(1); }
static void m_mean_c(void) { mean_model(0); }

/* conv (both signs) -> activation */
static void act_model(int code, float s, int64_t z) {
    int x, q = quant_in(LG_DIMS(1, 8, 8, 3), &x, LG_INT8);
    int c = conv_front(q, 4, 0.04f, 2, LG_ACTIVATION_FUNCTION_TYPE_NONE);
    lg_dims sh = LG_DIMS(1, 8, 8, 4);
    int y = qt("a", LG_INT8, sh, s, z);
    if (code == LG_OP_SOFTMAX) {
        lg_softmax_options o = {1.0f};
        lg_b_op_v(&B, code, 2, LG_IDS(c), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &o);
    } else if (code == LG_OP_LEAKY_RELU) {
        lg_leaky_relu_options o = {0.2f};
        lg_b_op_v(&B, code, 2, LG_IDS(c), LG_IDS(y), LG_OPTS_LEAKY_RELU_OPTIONS, &o);
    } else {
        /* ELU and HARD_SWISH have one version (their int8 forms are version 1) */
        int v = code == LG_OP_ELU || code == LG_OP_HARD_SWISH ? 1 : 2;
        lg_b_op_v(&B, code, v, LG_IDS(c), LG_IDS(y), LG_OPTS_NONE, NULL);
    }
    dequant_out(y, sh, s, x);
}
static void m_logistic(void) { act_model(LG_OP_LOGISTIC, 1.0f / 256, -128); }
static void m_tanh(void) { act_model(LG_OP_TANH, 1.0f / 128, 0); }
static void m_softmax(void) { act_model(LG_OP_SOFTMAX, 1.0f / 256, -128); }
static void m_hard_swish(void) { act_model(LG_OP_HARD_SWISH, 0.03f, -90); }
static void m_leaky_relu(void) { act_model(LG_OP_LEAKY_RELU, 0.025f, -40); }
static void m_relu(void) { act_model(LG_OP_RELU, 0.03f, -128); }
static void m_relu6(void) { act_model(LG_OP_RELU6, 0.025f, -128); }
static void m_elu(void) { act_model(LG_OP_ELU, 0.03f, -30); }

static void m_concat_u8(void) {
    lg_dims sh = LG_DIMS(1, 4, 4, 2);
    int x, a = quant_in(sh, &x, LG_UINT8);
    int b = qt("b", LG_UINT8, sh, 0.0071f, 20);
    lg_b_op_v(&B, LG_OP_QUANTIZE, 2, LG_IDS(x), LG_IDS(b), LG_OPTS_NONE, NULL);
    int y = qt("cat", LG_UINT8, LG_DIMS(1, 4, 4, 4), 0.009f, 3);
    lg_concatenation_options o = {3, 0};
    lg_b_op_v(&B, LG_OP_CONCATENATION, 2, LG_IDS(a, b), LG_IDS(y), LG_OPTS_CONCATENATION_OPTIONS, &o);
    dequant_out(y, LG_DIMS(1, 4, 4, 4), 0.009f, x);
}

/* a small network: conv -> dw -> add (residual) -> avgpool -> fc -> softmax */
static void m_net(void) {
    int x, q = quant_in(LG_DIMS(1, 8, 8, 3), &x, LG_INT8);
    int c = conv_front(q, 8, 0.05f, -10, LG_ACTIVATION_FUNCTION_TYPE_RELU6);
    float ws[16];
    int w = qweights("dw", LG_DIMS(1, 3, 3, 8), 3, ws);
    int b = qbias("db", 8, 0.05f, ws);
    int d = qt("d", LG_INT8, LG_DIMS(1, 8, 8, 8), 0.06f, 4);
    lg_depthwise_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 1;
    o.depth_multiplier = 1;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    lg_b_op_v(&B, LG_OP_DEPTHWISE_CONV_2D, 3, LG_IDS(c, w, b), LG_IDS(d), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o);
    int s = qt("s", LG_INT8, LG_DIMS(1, 8, 8, 8), 0.08f, -5);
    lg_add_options ao = {LG_ACTIVATION_FUNCTION_TYPE_NONE, false};
    lg_b_op_v(&B, LG_OP_ADD, 2, LG_IDS(c, d), LG_IDS(s), LG_OPTS_ADD_OPTIONS, &ao);
    int p = qt("p", LG_INT8, LG_DIMS(1, 1, 1, 8), 0.08f, -5);
    lg_pool2d_options po;
    memset(&po, 0, sizeof po);
    po.padding = LG_PADDING_VALID;
    po.stride_w = po.stride_h = 1;
    po.filter_width = po.filter_height = 8;
    lg_b_op_v(&B, LG_OP_AVERAGE_POOL_2D, 2, LG_IDS(s), LG_IDS(p), LG_OPTS_POOL2D_OPTIONS, &po);
    int r = qt("r", LG_INT8, LG_DIMS(1, 8), 0.08f, -5);
    int shp = lg_b_const_i32(&B, "shape", LG_DIMS(2), (const int32_t[]){1, 8});
    lg_b_op_v(&B, LG_OP_RESHAPE, 1, LG_IDS(p, shp), LG_IDS(r), LG_OPTS_NONE, NULL);
    float fs[16];
    int fw = qweights("fw", LG_DIMS(5, 8), 0, fs);
    int fb = qbias("fb", 5, 0.08f, fs);
    int f = qt("f", LG_INT8, LG_DIMS(1, 5), 0.1f, 3);
    lg_fully_connected_options fo;
    memset(&fo, 0, sizeof fo);
    lg_b_op_v(&B, LG_OP_FULLY_CONNECTED, 5, LG_IDS(r, fw, fb), LG_IDS(f), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    int sm = qt("sm", LG_INT8, LG_DIMS(1, 5), 1.0f / 256, -128);
    lg_softmax_options so = {1.0f};
    lg_b_op_v(&B, LG_OP_SOFTMAX, 2, LG_IDS(f), LG_IDS(sm), LG_OPTS_SOFTMAX_OPTIONS, &so);
    dequant_out(sm, LG_DIMS(1, 5), 1.0f / 256, x);
}

static const struct { const char *name; void (*fn)(void); } models[] = {
    {"q_conv", m_conv}, {"q_conv_relu6", m_conv_relu6}, {"q_conv_s2", m_conv_s2}, {"q_dw", m_dw},
    {"q_fc", m_fc}, {"q_fc_pc", m_fc_pc}, {"q_add", m_add}, {"q_add_bcast", m_add_bcast},
    {"q_sub", m_sub}, {"q_mul", m_mul}, {"q_mul_bcast", m_mul_bcast}, {"q_requant", m_requant},
    {"q_requant_u8", m_requant_u8}, {"q_avgpool", m_avgpool}, {"q_maxpool", m_maxpool},
    {"q_mean_hw", m_mean_hw}, {"q_mean_c", m_mean_c}, {"q_logistic", m_logistic}, {"q_tanh", m_tanh},
    {"q_softmax", m_softmax}, {"q_hard_swish", m_hard_swish}, {"q_leaky_relu", m_leaky_relu},
    {"q_relu", m_relu}, {"q_relu6", m_relu6}, {"q_elu", m_elu}, {"q_concat_u8", m_concat_u8},
    {"q_net", m_net},
};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_quant_models DIR\n");
        return 2;
    }
    int bad = 0;
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
        lg_error err;
        if (lg_model_new(NULL, NULL, &M, &err) != LG_OK) {
            fprintf(stderr, "make_quant_models: %s\n", err.msg);
            return 1;
        }
        lg_builder_init(&B, M, 0);
        out_scale = 0;
        models[k].fn();
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.tflite", argv[1], models[k].name);
        lg_write_options wo = {.force = true};
        lg_status st = B.status;
        if (st != LG_OK) err = B.err;
        else st = lg_tflite_write_file(M, path, &wo, &err);
        lg_model_free(M);
        if (st != LG_OK) {
            fprintf(stderr, "make_quant_models: %s: %s\n", models[k].name, err.msg);
            bad = 1;
            continue;
        }
        printf("%s %.9g\n", models[k].name, out_scale);
    }
    return bad;
}
