/* Importer: pools (ceil_mode, count_include_pad), Softmax axis per opset, LayerNormalization. */
#include <math.h>

#include "lg/lg.h"
#include "test_import_util.h"
#include "tf.h"

/* 4x4 = 1..16, kernel 3, stride 2: floor mode gives 1x1, ceil mode 2x2 whose windows
   are rows/cols {0..2} and {2..3}: max 11, 12, 15, 16 */
LG_TEST(import_maxpool_ceil_mode) {
    for (int ceil_mode = 0; ceil_mode <= 1; ceil_mode++) {
        ti_model *t = ti_new(13);
        ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 4, 4}, 4);
        ti_node(t, "MaxPool", "x", "y");
        ti_attr_ints(t, "kernel_shape", (const int64_t[]){3, 3}, 2);
        ti_attr_ints(t, "strides", (const int64_t[]){2, 2}, 2);
        ti_attr_i(t, "ceil_mode", ceil_mode);
        ti_output(t, "y");
        lg_model *m = NULL;
        lg_error err;
        CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
        if (m) {
            float x[16], y[4];
            for (int i = 0; i < 16; i++) x[i] = (float)(i + 1);
            const float *in[1] = {x};
            int n = ceil_mode ? 4 : 1;
            CHECK_EQ_INT(ti_run(m, in, 1, 0, y, (size_t)n), 0);
            const float want[4] = {11, 12, 15, 16};
            if (ceil_mode) for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], want[i], 0);
            else CHECK_NEAR(y[0], 11, 0);
        }
        lg_model_free(m);
        ti_free(t);
    }
}

/* 2x2 = 1,2,3,4, kernel 3, pads 1: every window holds the 4 values (sum 10) and 5 pads:
   count_include_pad 0 divides by 4 (2.5), 1 by 9 (1.111) */
LG_TEST(import_averagepool_count_include_pad) {
    for (int cip = 0; cip <= 1; cip++) {
        ti_model *t = ti_new(13);
        ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 2, 2}, 4);
        ti_node(t, "AveragePool", "x", "y");
        ti_attr_ints(t, "kernel_shape", (const int64_t[]){3, 3}, 2);
        ti_attr_ints(t, "pads", (const int64_t[]){1, 1, 1, 1}, 4);
        ti_attr_i(t, "count_include_pad", cip);
        ti_output(t, "y");
        lg_model *m = NULL;
        lg_error err;
        CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
        if (m) {
            float y[4];
            const float *in[1] = {(const float[]){1, 2, 3, 4}};
            CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 4), 0);
            for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], cip ? 10.0 / 9.0 : 2.5, 1e-6);
        }
        lg_model_free(m);
        ti_free(t);
    }
}

/* x [2,2,2] = {0,0,0,0, 0,0,0,ln3}, axis 1.
   opset 11 flattens to [2,4]: row 0 all 0.25; row 1 e = 1,1,1,3 over 6.
   opset 13 normalizes dim 1 only: pairs (x[b][0][j], x[b][1][j]); (0, ln3) -> 1/4, 3/4. */
LG_TEST(import_softmax_axis_per_opset) {
    const float l3 = (float)log(3.0);
    const float x[8] = {0, 0, 0, 0, 0, 0, 0, l3};
    const float w11[8] = {0.25f, 0.25f, 0.25f, 0.25f, 1 / 6.0f, 1 / 6.0f, 1 / 6.0f, 0.5f};
    const float w13[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.25f, 0.5f, 0.75f};
    for (int k = 0; k < 2; k++) {
        ti_model *t = ti_new(k ? 13 : 11);
        ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 2, 2}, 3);
        ti_node(t, "Softmax", "x", "y");
        ti_attr_i(t, "axis", 1);
        ti_output(t, "y");
        lg_model *m = NULL;
        lg_error err;
        CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
        if (m) {
            float y[8];
            const float *in[1] = {x};
            CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 8), 0);
            for (int i = 0; i < 8; i++) CHECK_NEAR(y[i], k ? w13[i] : w11[i], 1e-6);
        }
        lg_model_free(m);
        ti_free(t);
    }
}

/* [1,2,3,4]: mean 2.5, variance 1.25, eps 0 -> (x - 2.5) / sqrt(1.25); scale 2, bias 1 */
LG_TEST(import_layernorm) {
    ti_model *t = ti_new(17);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 4}, 2);
    ti_init(t, "s", LG_ONNX_FLOAT, (const int64_t[]){4}, 1, (const float[]){2, 2, 2, 2});
    ti_init(t, "b", LG_ONNX_FLOAT, (const int64_t[]){4}, 1, (const float[]){1, 1, 1, 1});
    ti_node(t, "LayerNormalization", "x,s,b", "y");
    ti_attr_f(t, "epsilon", 0);
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        float y[4];
        const float *in[1] = {(const float[]){1, 2, 3, 4}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 4), 0);
        for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], 2 * ((i + 1) - 2.5) / sqrt(1.25) + 1, 1e-6);
    }
    lg_model_free(m);
    ti_free(t);
}

/* Resize nearest x2 (asymmetric, floor: src = floor(o / 2)) on [1,1,1,2] = [1,2] -> W 4:
   [1,1,2,2]; TFLite's RESIZE_NEAREST_NEIGHBOR (no align, no half pixel) computes the same
   table, so it is used. Near miss: asymmetric + round_prefer_ceil upsampling 2 -> 4: x = o / 2
   = 0, 0.5, 1, 1.5 -> 0, 1, 1, 2 (clamped to 1): [0, 1, 1, 1], which none of TFLite's tables
   give (plain floor(o / 2) and half pixel floor((o + 0.5) / 2): 0, 0, 1, 1; align corners
   round(o / 3): 0, 0, 1, 1): a GATHER, [10, 20, 20, 20]. */
static ti_model *resize_model(int64_t w_in, float scale, const char *ct, const char *nm) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 1, w_in}, 4);
    ti_init(t, "scales", LG_ONNX_FLOAT, (const int64_t[]){4}, 1, (const float[]){1, 1, 1, scale});
    ti_node(t, "Resize", "x,,scales", "y");
    ti_attr_s(t, "mode", "nearest");
    ti_attr_s(t, "coordinate_transformation_mode", ct);
    ti_attr_s(t, "nearest_mode", nm);
    ti_output(t, "y");
    return t;
}

LG_TEST(import_resize_nearest_forms) {
    ti_model *t = resize_model(2, 2.0f, "asymmetric", "floor");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_RESIZE_NEAREST_NEIGHBOR), 1);
        float y[4];
        const float *in[1] = {(const float[]){1, 2}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 4), 0);
        const float want[4] = {1, 1, 2, 2};
        for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], want[i], 0);
    }
    lg_model_free(m);
    ti_free(t);
    t = resize_model(2, 2.0f, "asymmetric", "round_prefer_ceil");
    m = NULL;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_RESIZE_NEAREST_NEIGHBOR), 0);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_GATHER), 1);
        float y[4];
        const float *in[1] = {(const float[]){10, 20}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 4), 0);
        const float want[4] = {10, 20, 20, 20};
        for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], want[i], 0);
    }
    lg_model_free(m);
    ti_free(t);
}
