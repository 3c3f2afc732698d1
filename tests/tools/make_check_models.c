/* make_check_models DIR: writes the small models tests/e2e/test_check_cli.sh runs
 * `litegpu check` on, built with the builder API:
 *
 *   clean.tflite    conv 3x3 (RELU6) -> MEAN over H,W -> FULLY_CONNECTED -> SOFTMAX:
 *                   ready on both targets
 *   blocked.tflite  conv -> RELU -> GATHER_ND -> conv: GATHER_ND has no GPU parser
 *                   (op-unsupported, op 2), on both targets
 *   relu01.tflite   RELU_0_TO_1: the classic delegate takes it, ML Drift does not
 *                   (op-no-compat-case)
 *   warn.tflite     RESIZE_BILINEAR with align_corners=True: a warning only (ready)
 *
 * Exit status 0, or 1 with one line on stderr. */
#include <stdio.h>
#include <string.h>

#include "lg/lg.h"
#include "model_writer.h"

static const float zf[256];

static lg_conv2d_options conv_opts(int act) {
    lg_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 1;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    o.fused_activation_function = (int8_t)act;
    return o;
}

static void build_clean(lg_builder *b) {
    lg_conv2d_options o = conv_opts(LG_ACTIVATION_FUNCTION_TYPE_RELU6);
    lg_reducer_options ro = {false};
    lg_fully_connected_options fo;
    memset(&fo, 0, sizeof fo);
    lg_softmax_options so = {1.0f};
    const int32_t axes[2] = {1, 2};
    int x = lg_b_tensor(b, "image", LG_FLOAT32, LG_DIMS(1, 8, 8, 3));
    int w = lg_b_const_f32(b, "conv/w", LG_DIMS(4, 3, 3, 3), zf);
    int bi = lg_b_const_f32(b, "conv/b", LG_DIMS(4), zf);
    int c = lg_b_tensor(b, "conv", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int ax = lg_b_const_i32(b, "axes", LG_DIMS(2), axes);
    int mn = lg_b_tensor(b, "pooled", LG_FLOAT32, LG_DIMS(1, 4));
    int fw = lg_b_const_f32(b, "fc/w", LG_DIMS(10, 4), zf);
    int fb = lg_b_const_f32(b, "fc/b", LG_DIMS(10), zf);
    int lg = lg_b_tensor(b, "logits", LG_FLOAT32, LG_DIMS(1, 10));
    int y = lg_b_tensor(b, "probs", LG_FLOAT32, LG_DIMS(1, 10));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(c), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(c, ax), LG_IDS(mn), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_op_opts(b, LG_OP_FULLY_CONNECTED, LG_IDS(mn, fw, fb), LG_IDS(lg), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_op_opts(b, LG_OP_SOFTMAX, LG_IDS(lg), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void build_blocked(lg_builder *b) {
    lg_conv2d_options o = conv_opts(LG_ACTIVATION_FUNCTION_TYPE_NONE);
    int32_t idx[4 * 4 * 3];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) { /* x[:, ::2, ::2] */
            idx[(i * 4 + j) * 3 + 0] = 0;
            idx[(i * 4 + j) * 3 + 1] = 2 * i;
            idx[(i * 4 + j) * 3 + 2] = 2 * j;
        }
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 3, 3, 4), zf);
    int bi = lg_b_const_f32(b, "b", LG_DIMS(4), zf);
    int c1 = lg_b_tensor(b, "c1", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r1 = lg_b_tensor(b, "r1", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int ix = lg_b_const_i32(b, "indices", LG_DIMS(1, 4, 4, 3), idx);
    int g = lg_b_tensor(b, "g", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(c1), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_op(b, LG_OP_RELU, LG_IDS(c1), LG_IDS(r1));
    lg_b_op(b, LG_OP_GATHER_ND, LG_IDS(r1, ix), LG_IDS(g));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(g, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void build_relu01(lg_builder *b) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_RELU_0_TO_1, LG_IDS(x), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void build_warn(lg_builder *b) {
    const int32_t size[2] = {16, 16};
    lg_resize_bilinear_options ro = {true, false};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int s = lg_b_const_i32(b, "size", LG_DIMS(2), size);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 4));
    lg_b_op_opts(b, LG_OP_RESIZE_BILINEAR, LG_IDS(x, s), LG_IDS(y), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &ro);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static int write_model(const char *dir, const char *name, void (*build)(lg_builder *)) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lgt_write_model("make_check_models", path, build);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_check_models DIR\n");
        return 1;
    }
    int rc = 0;
    rc |= write_model(argv[1], "clean.tflite", build_clean);
    rc |= write_model(argv[1], "blocked.tflite", build_blocked);
    rc |= write_model(argv[1], "relu01.tflite", build_relu01);
    rc |= write_model(argv[1], "warn.tflite", build_warn);
    return rc;
}
