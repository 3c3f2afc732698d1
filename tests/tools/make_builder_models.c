/*
 * make_builder_models DIR -- writes small models made with the builder, for
 * tests/e2e/test_builder_litert.sh to run on LiteRT.js:
 *
 *   add_const.tflite    y[1,2,2,3] = x[1,2,2,3] + c[3]            (broadcast over the last dim)
 *                       c = {0.5, -1.25, 2}
 *   conv_relu.tflite    y[1,3,3,4] = relu(conv2d(x[1,3,3,2], w[4,3,3,2]) + b[4]),
 *                       padding SAME, stride 1, dilation 1
 *                       w[i] = ((i * 37) % 23 - 11) / 8   (i = flat index, OHWI order)
 *                       b[o] = o / 4 - 0.375
 *   fc_softmax.tflite   h[1,5] = x[1,8] . W[5,8]^T + b[5];  y = softmax(h), beta 1
 *                       W[i] = ((i * 29) % 17 - 8) / 16,   b[o] = (o - 2) / 8
 *   conv_relu_external.tflite   conv_relu with its constant data stored after the
 *                       flatbuffer (lg_write_options.external_buffers)
 *
 * The weights are dyadic rationals, exact in float32, and the checking script recomputes
 * them from the same formulas. Only the public API is used (builder + writer).
 * Exit status: 0 on success, 1 on any failure (the message names the model).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lg/lg.h"

static int fail(const char *what, const lg_error *err) {
    fprintf(stderr, "make_builder_models: %s: %s\n", what, err ? err->msg : "failed");
    return 1;
}

static int save(lg_model *m, const char *dir, const char *name, int external) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    lg_write_options opt = {.external_buffers = external != 0, .force = true};
    lg_error err;
    lg_status st = lg_tflite_write_file(m, path, &opt, &err);
    lg_model_free(m);
    return st == LG_OK ? 0 : fail(name, &err);
}

static lg_model *new_model(void) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) fail("lg_model_new", &err);
    return m;
}

static int add_const(const char *dir) {
    lg_model *m = new_model();
    if (!m) return 1;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    static const float c[3] = {0.5f, -1.25f, 2.0f};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    int k = lg_b_const_f32(&b, "c", LG_DIMS(3), c);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    lg_add_options ao = {LG_ACTIVATION_FUNCTION_TYPE_NONE, true};
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(x, k), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &ao);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    if (b.status != LG_OK) {
        lg_model_free(m);
        return fail("add_const", &b.err);
    }
    return save(m, dir, "add_const.tflite", 0);
}

static lg_model *conv_model(void) {
    lg_model *m = new_model();
    if (!m) return NULL;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    float w[4 * 3 * 3 * 2], bias[4];
    for (int i = 0; i < 4 * 3 * 3 * 2; i++) w[i] = (float)((i * 37) % 23 - 11) / 8.0f;
    for (int o = 0; o < 4; o++) bias[o] = (float)o / 4.0f - 0.375f;
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 3, 3, 2));
    int wt = lg_b_const_f32(&b, "w", LG_DIMS(4, 3, 3, 2), w);
    int bt = lg_b_const_f32(&b, "b", LG_DIMS(4), bias);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 3, 3, 4));
    lg_conv2d_options co;
    memset(&co, 0, sizeof co);
    co.padding = LG_PADDING_SAME;
    co.stride_w = co.stride_h = 1;
    co.dilation_w_factor = co.dilation_h_factor = 1; /* the schema default; 0 is not */
    co.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU;
    lg_b_op_opts(&b, LG_OP_CONV_2D, LG_IDS(x, wt, bt), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &co);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    if (b.status != LG_OK) {
        fail("conv_relu", &b.err);
        lg_model_free(m);
        return NULL;
    }
    return m;
}

static int fc_softmax(const char *dir) {
    lg_model *m = new_model();
    if (!m) return 1;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    float w[5 * 8], bias[5];
    for (int i = 0; i < 5 * 8; i++) w[i] = (float)((i * 29) % 17 - 8) / 16.0f;
    for (int o = 0; o < 5; o++) bias[o] = (float)(o - 2) / 8.0f;
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 8));
    int wt = lg_b_const_f32(&b, "W", LG_DIMS(5, 8), w);
    int bt = lg_b_const_f32(&b, "b", LG_DIMS(5), bias);
    int h = lg_b_tensor(&b, "h", LG_FLOAT32, LG_DIMS(1, 5));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 5));
    lg_fully_connected_options fo;
    memset(&fo, 0, sizeof fo);
    fo.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_NONE;
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, wt, bt), LG_IDS(h),
                 LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_softmax_options so = {1.0f}; /* beta; the schema default 0 would flatten everything */
    lg_b_op_opts(&b, LG_OP_SOFTMAX, LG_IDS(h), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    if (b.status != LG_OK) {
        lg_model_free(m);
        return fail("fc_softmax", &b.err);
    }
    return save(m, dir, "fc_softmax.tflite", 0);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_builder_models DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    int bad = add_const(dir);
    lg_model *c = conv_model();
    bad |= c ? save(c, dir, "conv_relu.tflite", 0) : 1;
    c = conv_model();
    bad |= c ? save(c, dir, "conv_relu_external.tflite", 1) : 1;
    bad |= fc_softmax(dir);
    return bad ? 1 : 0;
}
