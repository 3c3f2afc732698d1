/* make_compare_models DIR: writes the small models tests/e2e/test_compare.sh runs `litegpu
 * compare` on, built with the builder API (expected verdicts derived in that script):
 *
 *   safe_layernorm.tflite  x[1,2,4,512] -> u = x * 7 -> SafeLayerNorm v2 (us = u / max(1,
 *                          amax/8), then (us - mean) * rsqrt(var + 1e-6)) -> y: correct in f16
 *                          on real data. The constant 0.5 input is degenerate: u = 3.5, S = 1,
 *                          the f32 mean is exactly 3.5 so y = 0 exactly; so is the f16 one:
 *                          the delegate's MEAN (k_reduce_half.c) gives each of 32 threads 4
 *                          values per lane (14), scales it by 1/16 (0.875) and sums 32 of
 *                          those (28), all halves, so the mean is 3.5 and y = 0 (a sequential
 *                          half sum would have been off by ~1e-3 and given y = +-1)
 *   layernorm.tflite       x[1,2,4,512] -> the plain LayerNorm (no scaling) -> y
 *   zeros.tflite           x[1,2,4,512] -> x * 0 -> y (the same interface as layernorm)
 *   tiny.tflite            x[1,64] -> x * 1e-20 -> y: values far below half's smallest normal
 *   tiny_and_bad.tflite    x[1,64] -> tiny = x * 1e-20, mean = mean(x * 0.1) [1,1],
 *                          bad = (x + 1024) - 1024 (half spacing at 1024 is 1: f16 gives whole
 *                          numbers only, an rms error near 0.29 against a std near 0.58)
 *   narrow.tflite          x[1,32] -> x * 0 -> y (an input shape different from tiny's x[1,64])
 *
 * Exit status 0, or 1 with one line on stderr. */
#include <stdio.h>
#include <string.h>

#include "lg/lg.h"
#include "model_writer.h"

#define C 512

static lg_reducer_options keep = {true};

/* y = (src - mean) * rsqrt(mean((src - mean)^2) + 1e-6) over axis 3; src = x, or (when safe)
   u / S with u = 7 x and S = max(1, amax(|u|) / 8) per row. */
static void layernorm(lg_builder *b, bool safe) {
    int32_t axis3[1] = {3};
    float eps_v = 1e-6f, one_v = 1.0f, eighth_v = 0.125f, seven_v = 7.0f;
    int in = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 2, 4, C));
    int x = in;
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 2, 4, C));
    int ax = lg_b_const_i32(b, "axis", LG_DIMS(1), axis3);
    int eps = lg_b_const_f32(b, "eps", LG_DIMS(1), &eps_v);
    int src = x;
    if (safe) {
        int seven = lg_b_const_f32(b, "seven", LG_DIMS(1), &seven_v);
        x = lg_b_tensor(b, "u", LG_FLOAT32, LG_DIMS(1, 2, 4, C));
        lg_b_op(b, LG_OP_MUL, LG_IDS(in, seven), LG_IDS(x));
        int one = lg_b_const_f32(b, "one", LG_DIMS(1), &one_v);
        int eighth = lg_b_const_f32(b, "eighth", LG_DIMS(1), &eighth_v);
        int ab = lg_b_tensor(b, "abs", LG_FLOAT32, LG_DIMS(1, 2, 4, C));
        int amax = lg_b_tensor(b, "amax", LG_FLOAT32, LG_DIMS(1, 2, 4, 1));
        int s8 = lg_b_tensor(b, "amax8", LG_FLOAT32, LG_DIMS(1, 2, 4, 1));
        int s = lg_b_tensor(b, "scale", LG_FLOAT32, LG_DIMS(1, 2, 4, 1));
        int xs = lg_b_tensor(b, "xs", LG_FLOAT32, LG_DIMS(1, 2, 4, C));
        lg_b_op(b, LG_OP_ABS, LG_IDS(x), LG_IDS(ab));
        lg_b_op_opts(b, LG_OP_REDUCE_MAX, LG_IDS(ab, ax), LG_IDS(amax), LG_OPTS_REDUCER_OPTIONS, &keep);
        lg_b_op(b, LG_OP_MUL, LG_IDS(amax, eighth), LG_IDS(s8));
        lg_b_op(b, LG_OP_MAXIMUM, LG_IDS(s8, one), LG_IDS(s));
        lg_b_op(b, LG_OP_DIV, LG_IDS(x, s), LG_IDS(xs));
        src = xs;
    }
    int mu = lg_b_tensor(b, "mean", LG_FLOAT32, LG_DIMS(1, 2, 4, 1));
    int d = lg_b_tensor(b, "centered", LG_FLOAT32, LG_DIMS(1, 2, 4, C));
    int sq = lg_b_tensor(b, "squared", LG_FLOAT32, LG_DIMS(1, 2, 4, C));
    int var = lg_b_tensor(b, "variance", LG_FLOAT32, LG_DIMS(1, 2, 4, 1));
    int ve = lg_b_tensor(b, "var_eps", LG_FLOAT32, LG_DIMS(1, 2, 4, 1));
    int r = lg_b_tensor(b, "rstd", LG_FLOAT32, LG_DIMS(1, 2, 4, 1));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(src, ax), LG_IDS(mu), LG_OPTS_REDUCER_OPTIONS, &keep);
    lg_b_op(b, LG_OP_SUB, LG_IDS(src, mu), LG_IDS(d));
    lg_b_op(b, LG_OP_MUL, LG_IDS(d, d), LG_IDS(sq));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(sq, ax), LG_IDS(var), LG_OPTS_REDUCER_OPTIONS, &keep);
    lg_b_op(b, LG_OP_ADD, LG_IDS(var, eps), LG_IDS(ve));
    lg_b_op(b, LG_OP_RSQRT, LG_IDS(ve), LG_IDS(r));
    lg_b_op(b, LG_OP_MUL, LG_IDS(d, r), LG_IDS(y));
    lg_b_io(b, LG_IDS(in), LG_IDS(y));
}

static void build_safe_layernorm(lg_builder *b) { layernorm(b, true); }
static void build_layernorm(lg_builder *b) { layernorm(b, false); }

/* y = x * 0 on x[1, n...]. */
static void zeros_of(lg_builder *b, lg_dims shape) {
    float zero_v = 0.0f;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, shape);
    int z = lg_b_const_f32(b, "zero", LG_DIMS(1), &zero_v);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, shape);
    lg_b_op(b, LG_OP_MUL, LG_IDS(x, z), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void build_zeros(lg_builder *b) { zeros_of(b, LG_DIMS(1, 2, 4, C)); }
static void build_narrow(lg_builder *b) { zeros_of(b, LG_DIMS(1, 32)); }

static void tiny_bad(lg_builder *b, bool with_bad) {
    float tiny_v = 1e-20f, tenth_v = 0.1f, big_v = 1024.0f;
    int32_t axis1[1] = {1};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 64));
    int tc = lg_b_const_f32(b, "tiny_k", LG_DIMS(1), &tiny_v);
    int tiny = lg_b_tensor(b, "tiny", LG_FLOAT32, LG_DIMS(1, 64));
    lg_b_op(b, LG_OP_MUL, LG_IDS(x, tc), LG_IDS(tiny));
    if (!with_bad) {
        lg_b_io(b, LG_IDS(x), LG_IDS(tiny));
        return;
    }
    int ax = lg_b_const_i32(b, "axis", LG_DIMS(1), axis1);
    int tenth = lg_b_const_f32(b, "tenth", LG_DIMS(1), &tenth_v);
    int big = lg_b_const_f32(b, "big", LG_DIMS(1), &big_v);
    int xt = lg_b_tensor(b, "xt", LG_FLOAT32, LG_DIMS(1, 64));
    int mean = lg_b_tensor(b, "mean", LG_FLOAT32, LG_DIMS(1, 1));
    int up = lg_b_tensor(b, "up", LG_FLOAT32, LG_DIMS(1, 64));
    int bad = lg_b_tensor(b, "bad", LG_FLOAT32, LG_DIMS(1, 64));
    lg_b_op(b, LG_OP_MUL, LG_IDS(x, tenth), LG_IDS(xt));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(xt, ax), LG_IDS(mean), LG_OPTS_REDUCER_OPTIONS, &keep);
    lg_b_op(b, LG_OP_ADD, LG_IDS(x, big), LG_IDS(up));
    lg_b_op(b, LG_OP_SUB, LG_IDS(up, big), LG_IDS(bad));
    lg_b_io(b, LG_IDS(x), LG_IDS(tiny, mean, bad));
}

static void build_tiny(lg_builder *b) { tiny_bad(b, false); }
static void build_tiny_and_bad(lg_builder *b) { tiny_bad(b, true); }

static int write_model(const char *dir, const char *name, void (*build)(lg_builder *)) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lgt_write_model("make_compare_models", path, build);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_compare_models DIR\n");
        return 1;
    }
    int rc = 0;
    rc |= write_model(argv[1], "safe_layernorm.tflite", build_safe_layernorm);
    rc |= write_model(argv[1], "layernorm.tflite", build_layernorm);
    rc |= write_model(argv[1], "zeros.tflite", build_zeros);
    rc |= write_model(argv[1], "tiny.tflite", build_tiny);
    rc |= write_model(argv[1], "tiny_and_bad.tflite", build_tiny_and_bad);
    rc |= write_model(argv[1], "narrow.tflite", build_narrow);
    return rc;
}
