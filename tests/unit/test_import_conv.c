/* Importer: Conv (padding forms, depthwise), BatchNormalization folding. Expected values
   derived by hand in the comments. */
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "test_import_util.h"
#include "tf.h"

static const float X9[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const float W_DIAG[4] = {1, 0, 0, 1}; /* y[i][j] = xp[i][j] + xp[i+1][j+1] */

static ti_model *conv_model(const int64_t pads[4]) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 3, 3}, 4);
    ti_init(t, "w", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 2, 2}, 4, W_DIAG);
    ti_init(t, "b", LG_ONNX_FLOAT, (const int64_t[]){1}, 1, (const float[]){0.5f});
    ti_node(t, "Conv", "x,w,b", "y");
    ti_attr_ints(t, "pads", pads, 4);
    ti_output(t, "y");
    return t;
}

/* pads end-only (bottom/right 1) is exactly TFLite SAME for k=2, s=1: no PAD op.
   x = 1..9 (3x3), zero row/col appended: y = x[i][j] + x[i+1][j+1] + 0.5 */
LG_TEST(import_conv_pads_same_end) {
    ti_model *t = conv_model((const int64_t[]){0, 0, 1, 1});
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, true, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_PAD), 0);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_CONV_2D), 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_TRANSPOSE), 2); /* NCHW -> NHWC -> NCHW */
        float y[9];
        const float *in[1] = {X9};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 9), 0);
        const float want[9] = {6.5f, 8.5f, 3.5f, 12.5f, 14.5f, 6.5f, 7.5f, 8.5f, 9.5f};
        for (int i = 0; i < 9; i++) CHECK_NEAR(y[i], want[i], 1e-6);
    }
    lg_model_free(m);
    ti_free(t);
}

/* pads begin-only (top/left): not what SAME computes, so an explicit PAD.
   y[i][j] = x[i-1][j-1] + x[i][j] + 0.5 (x[-1] = 0) */
LG_TEST(import_conv_pads_begin_explicit) {
    ti_model *t = conv_model((const int64_t[]){1, 1, 0, 0});
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_PAD), 1);
        float y[9];
        const float *in[1] = {X9};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 9), 0);
        const float want[9] = {1.5f, 2.5f, 3.5f, 4.5f, 6.5f, 8.5f, 7.5f, 12.5f, 14.5f};
        for (int i = 0; i < 9; i++) CHECK_NEAR(y[i], want[i], 1e-6);
    }
    lg_model_free(m);
    ti_free(t);
}

/* conv y = 2x + 1, then BN scale 3, B 0.5, mean 1, var 3, eps 1: (y - 1) / 2 * 3 + 0.5
   x = 1,2,3,4 -> y = 3,5,7,9 -> 3.5, 6.5, 9.5, 12.5 */
static ti_model *conv_bn(bool conv_is_output) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 2, 2}, 4);
    ti_init(t, "w", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 1, 1}, 4, (const float[]){2});
    ti_init(t, "b", LG_ONNX_FLOAT, (const int64_t[]){1}, 1, (const float[]){1});
    ti_init(t, "g", LG_ONNX_FLOAT, (const int64_t[]){1}, 1, (const float[]){3});
    ti_init(t, "be", LG_ONNX_FLOAT, (const int64_t[]){1}, 1, (const float[]){0.5f});
    ti_init(t, "mu", LG_ONNX_FLOAT, (const int64_t[]){1}, 1, (const float[]){1});
    ti_init(t, "var", LG_ONNX_FLOAT, (const int64_t[]){1}, 1, (const float[]){3});
    ti_node(t, "Conv", "x,w,b", "c");
    ti_node(t, "BatchNormalization", "c,g,be,mu,var", "y");
    ti_attr_f(t, "epsilon", 1.0f);
    ti_output(t, "y");
    if (conv_is_output) ti_output(t, "c");
    return t;
}

LG_TEST(import_conv_batchnorm_folded) {
    ti_model *t = conv_bn(false);
    lg_model *m = NULL;
    lg_import_report *rep = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, &rep, &err), &err);
    if (m && rep) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_MUL) + ti_count_ops(m, LG_OP_ADD) + ti_count_ops(m, LG_OP_SUB), 0);
        CHECK(strstr(rep->nodes[1].lowering, "folded into the Conv at node 0") != NULL);
        float y[4];
        const float *in[1] = {(const float[]){1, 2, 3, 4}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 4), 0);
        const float want[4] = {3.5f, 6.5f, 9.5f, 12.5f};
        for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], want[i], 1e-5);
    }
    lg_import_report_free(rep);
    lg_model_free(m);
    ti_free(t);
}

/* near miss: the conv's output is also a graph output, so BN cannot be folded */
LG_TEST(import_conv_batchnorm_kept_when_shared) {
    ti_model *t = conv_bn(true);
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK(ti_count_ops(m, LG_OP_MUL) == 1);
        float y[4], c[4];
        const float *in[1] = {(const float[]){1, 2, 3, 4}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 4), 0);
        CHECK_EQ_INT(ti_run(m, in, 1, 1, c, 4), 0);
        const float want[4] = {3.5f, 6.5f, 9.5f, 12.5f}, wc[4] = {3, 5, 7, 9};
        for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], want[i], 1e-5);
        for (int i = 0; i < 4; i++) CHECK_NEAR(c[i], wc[i], 1e-6);
    }
    lg_model_free(m);
    ti_free(t);
}

/* group == channels: DEPTHWISE_CONV_2D; channel 0 [1,2] * 10, channel 1 [3,4] * 100 */
LG_TEST(import_conv_depthwise) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 2, 1, 2}, 4);
    ti_init(t, "w", LG_ONNX_FLOAT, (const int64_t[]){2, 1, 1, 1}, 4, (const float[]){10, 100});
    ti_node(t, "Conv", "x,w", "y");
    ti_attr_i(t, "group", 2);
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_DEPTHWISE_CONV_2D), 1);
        float y[4];
        const float *in[1] = {(const float[]){1, 2, 3, 4}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 4), 0);
        const float want[4] = {10, 20, 300, 400};
        for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], want[i], 1e-5);
    }
    lg_model_free(m);
    ti_free(t);
}

/* 1-D ConvTranspose, stride 2, kernel [1, 1], pads 0: y[2i + k] += x[i] * w[k];
   x = [1, 2] -> full [1, 1, 2, 2]; output_padding 1 appends a bias-only position: [1,1,2,2,0] */
LG_TEST(import_conv_transpose_1d_output_padding) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 2}, 3);
    ti_init(t, "w", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 2}, 3, (const float[]){1, 1});
    ti_node(t, "ConvTranspose", "x,w", "y");
    ti_attr_ints(t, "strides", (const int64_t[]){2}, 1);
    ti_attr_ints(t, "output_padding", (const int64_t[]){1}, 1);
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        float y[5];
        const float *in[1] = {(const float[]){1, 2}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 5), 0);
        const float want[5] = {1, 1, 2, 2, 0};
        for (int i = 0; i < 5; i++) CHECK_NEAR(y[i], want[i], 1e-6);
    }
    lg_model_free(m);
    ti_free(t);
}

/* Grouped 1-D ConvTranspose (group 2, C = 2, M/group = 1), kernel 2, stride 2:
   y_g[2i + k] = x_g[i] * w_g[k] + b_g.
   x0 = [1, 2], w0 = [1, 2], b0 = 0.5: [1, 2, 2, 4] + 0.5 = [1.5, 2.5, 2.5, 4.5]
   x1 = [3, 4], w1 = [3, 4], b1 = -1:  [9, 12, 12, 16] - 1 = [8, 11, 11, 15]
   Near-miss: the same weights with group 1 are one output channel summing both inputs
   ([10, 14, 14, 20] + 0.5) and stay one TRANSPOSE_CONV without SPLIT/CONCATENATION. */
static ti_model *ct_grouped_model(int64_t group) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 2, 2}, 3);
    ti_init(t, "w", LG_ONNX_FLOAT, (const int64_t[]){2, 1, 2}, 3, (const float[]){1, 2, 3, 4});
    if (group == 2) ti_init(t, "b", LG_ONNX_FLOAT, (const int64_t[]){2}, 1, (const float[]){0.5f, -1});
    else ti_init(t, "b", LG_ONNX_FLOAT, (const int64_t[]){1}, 1, (const float[]){0.5f});
    ti_node(t, "ConvTranspose", "x,w,b", "y");
    ti_attr_ints(t, "strides", (const int64_t[]){2}, 1);
    ti_attr_i(t, "group", group);
    ti_output(t, "y");
    return t;
}

LG_TEST(import_conv_transpose_grouped_1d) {
    ti_model *t = ct_grouped_model(2);
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_TRANSPOSE_CONV), 2);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_SPLIT), 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_CONCATENATION), 1);
        float y[8];
        const float *in[1] = {(const float[]){1, 2, 3, 4}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 8), 0);
        const float want[8] = {1.5f, 2.5f, 2.5f, 4.5f, 8, 11, 11, 15};
        for (int i = 0; i < 8; i++) CHECK_NEAR(y[i], want[i], 1e-6);
    }
    lg_model_free(m);
    ti_free(t);
    t = ct_grouped_model(1);
    m = NULL;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_TRANSPOSE_CONV), 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_SPLIT), 0);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_CONCATENATION), 0);
        float y[4];
        const float *in[1] = {(const float[]){1, 2, 3, 4}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 4), 0);
        const float want[4] = {10.5f, 14.5f, 14.5f, 20.5f};
        for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], want[i], 1e-6);
    }
    lg_model_free(m);
    ti_free(t);
}

/* Depthwise 2-D ConvTranspose (group = C = 2), kernel 1x2, stride 5, pads 1 on each W side.
   x = [1, 2, 1, 2]: H: full (1-1)*5 + 1 = 1; W: full (2-1)*5 + 2 = 7, y[5i + k] = x[i] w[k]:
   ch0 x [1, 2], w [1, 2]:  [1, 2, 0, 0, 0, 2, 4] -> cropped [2, 0, 0, 0, 2]
   ch1 x [3, 4], w [-1, 1]: [-3, 3, 0, 0, 0, -4, 4] -> cropped [3, 0, 0, 0, -4] */
LG_TEST(import_conv_transpose_depthwise_stride5) {
    ti_model *t = ti_new(17);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 2, 1, 2}, 4);
    ti_init(t, "w", LG_ONNX_FLOAT, (const int64_t[]){2, 1, 1, 2}, 4, (const float[]){1, 2, -1, 1});
    ti_node(t, "ConvTranspose", "x,w", "y");
    ti_attr_ints(t, "strides", (const int64_t[]){5, 5}, 2);
    ti_attr_ints(t, "pads", (const int64_t[]){0, 1, 0, 1}, 4);
    ti_attr_i(t, "group", 2);
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        float y[10];
        const float *in[1] = {(const float[]){1, 2, 3, 4}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 10), 0);
        const float want[10] = {2, 0, 0, 0, 2, 3, 0, 0, 0, -4};
        for (int i = 0; i < 10; i++) CHECK_NEAR(y[i], want[i], 1e-6);
    }
    lg_model_free(m);
    ti_free(t);
}

/* 9 groups (past SPLIT's 8 outputs in the lowering: one slice per group), 1-D, kernel 1:
   channel c is x_c * w_c with w_c = c + 1 and x_c = 2: y_c = 2 (c + 1). A group that does not
   divide the channels (group 2 of 9) is refused as malformed. */
LG_TEST(import_conv_transpose_many_groups) {
    float w[9], x[9];
    for (int i = 0; i < 9; i++) w[i] = (float)(i + 1), x[i] = 2;
    for (int pass = 0; pass < 2; pass++) {
        ti_model *t = ti_new(17);
        ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 9, 1}, 3);
        ti_init(t, "w", LG_ONNX_FLOAT, (const int64_t[]){9, 1, 1}, 3, w);
        ti_node(t, "ConvTranspose", "x,w", "y");
        ti_attr_i(t, "group", pass == 0 ? 9 : 2);
        ti_output(t, "y");
        lg_model *m = NULL;
        lg_error err;
        lg_status st = ti_import(t, false, &m, NULL, &err);
        if (pass == 1) {
            CHECK_EQ_INT(st, LG_ERR_FORMAT);
            CHECK(strstr(err.msg, "group 2") != NULL);
        } else {
            CHECK_OK(st, &err);
        }
        if (m) {
            CHECK_EQ_INT(ti_count_ops(m, LG_OP_TRANSPOSE_CONV), 9);
            CHECK_EQ_INT(ti_count_ops(m, LG_OP_SPLIT), 0);
            float y[9];
            const float *in[1] = {x};
            CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 9), 0);
            for (int i = 0; i < 9; i++) CHECK_NEAR(y[i], 2.0f * (float)(i + 1), 1e-6);
        }
        lg_model_free(m);
        ti_free(t);
    }
}
