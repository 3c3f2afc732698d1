/* make_verify_models DIR: writes the small models tests/e2e/test_verify_harness.sh (and, for
 * custom_myop, test_verify_cli.sh) runs through the WebGPU oracle (peers/verify/verify.js),
 * built with the builder API:
 *
 *   logsoftmax.tflite  x[1,16] -> MUL const -> LOG_SOFTMAX -> ADD const: ML Drift has no
 *                      LOG_SOFTMAX ("LOG_SOFTMAX: Operation is not supported."), so the graph is
 *                      split between GPU and CPU and isFullyAccelerated is false
 *   rank5_add.tflite   a[1,2,3,4,5] + b[1,2,3,4,5]: "ADD: Tensor dimensions must be less than 5.";
 *                      isFullyAccelerated stays true, the output lands in wasm
 *   rank4_add.tflite   the same ADD on [2,3,4,5]: taken whole (the control for rank5_add)
 *   custom_myop.tflite x[1,8,8,4] -> RELU -> custom "MyOp": no kernel anywhere, so LiteRT's
 *                      compile fails ("Encountered unresolved custom op: MyOp ... Node number 1
 *                      failed to prepare") and the model never runs
 *
 * Exit status 0, or 1 with one line on stderr. */
#include <stdio.h>
#include <string.h>

#include "lg/lg.h"
#include "model_writer.h"

static float ramp[16];

static void build_logsoftmax(lg_builder *b) {
    lg_mul_options mo;
    lg_add_options ao;
    memset(&mo, 0, sizeof mo);
    memset(&ao, 0, sizeof ao);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 16));
    int s = lg_b_const_f32(b, "scale", LG_DIMS(1, 16), ramp);
    int m = lg_b_tensor(b, "scaled", LG_FLOAT32, LG_DIMS(1, 16));
    int l = lg_b_tensor(b, "logp", LG_FLOAT32, LG_DIMS(1, 16));
    int c = lg_b_const_f32(b, "shift", LG_DIMS(1, 16), ramp);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16));
    lg_b_op_opts(b, LG_OP_MUL, LG_IDS(x, s), LG_IDS(m), LG_OPTS_MUL_OPTIONS, &mo);
    lg_b_op(b, LG_OP_LOG_SOFTMAX, LG_IDS(m), LG_IDS(l));
    lg_b_op_opts(b, LG_OP_ADD, LG_IDS(l, c), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &ao);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void build_add(lg_builder *b, lg_dims shape) {
    lg_add_options ao;
    memset(&ao, 0, sizeof ao);
    int a = lg_b_tensor(b, "a", LG_FLOAT32, shape);
    int c = lg_b_tensor(b, "b", LG_FLOAT32, shape);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, shape);
    lg_b_op_opts(b, LG_OP_ADD, LG_IDS(a, c), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &ao);
    lg_b_io(b, LG_IDS(a, c), LG_IDS(y));
}

static void build_rank5_add(lg_builder *b) { build_add(b, LG_DIMS(1, 2, 3, 4, 5)); }
static void build_rank4_add(lg_builder *b) { build_add(b, LG_DIMS(2, 3, 4, 5)); }

static void build_custom_myop(lg_builder *b) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_custom(b, "MyOp", LG_IDS(r), LG_IDS(y), NULL, 0);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static int write_model(const char *dir, const char *name, void (*build)(lg_builder *)) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lgt_write_model("make_verify_models", path, build);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_verify_models DIR\n");
        return 1;
    }
    for (int i = 0; i < 16; i++) ramp[i] = 0.25f * (float)(i - 7);
    int rc = 0;
    rc |= write_model(argv[1], "logsoftmax.tflite", build_logsoftmax);
    rc |= write_model(argv[1], "rank5_add.tflite", build_rank5_add);
    rc |= write_model(argv[1], "rank4_add.tflite", build_rank4_add);
    rc |= write_model(argv[1], "custom_myop.tflite", build_custom_myop);
    return rc;
}
