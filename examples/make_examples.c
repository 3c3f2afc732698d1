/* make_examples DIR: writes the two demo models, built with the builder API.
 *
 *   tiny_convnet.tflite  a clean small CNN, ready on both GPU targets:
 *       image [1,32,32,3] -> CONV_2D 3x3 SAME RELU6 (8 ch) -> DEPTHWISE_CONV_2D 3x3 stride 2
 *       RELU6 -> CONV_2D 1x1 RELU (16 ch) -> MEAN over H,W (16x16 = 256 elements)
 *       -> FULLY_CONNECTED (10) -> SOFTMAX -> probs [1,10]
 *     Weights and biases come from a fixed LCG and are stored as FLOAT16 constants, each read
 *     through a DEQUANTIZE, as fp16 converters write them (the GPU delegates fold those).
 *     Signature "serving_default" (image -> probs).
 *
 *   cleanup_net.tflite  exporter leftovers that `convert --optimize` removes exactly (see
 *       build_cleanup): an inverse transpose pair, a MEAN of constants, * 1, a same-shape
 *       RESHAPE; 6 ops -> 1 ADD.
 *
 *   blocked_net.tflite  the blockers a user meets, in one small chain:
 *       image [1,16,16,8] -> GATHER_ND (x[:, ::2, ::2])                    op-unsupported
 *       -> TRANSPOSE_CONV 2x2 stride 2 with fused RELU (v4)               op-version, mali-transpose-conv
 *       -> RESHAPE [1,16,16,2,4] -> TRANSPOSE -> RESHAPE (channel shuffle)  tensor-rank (5-D)
 *       -> RESIZE_BILINEAR to 256x256, align_corners=True                  resize-align-corners (warning)
 *       -> PADV2 with -inf -> MAX_POOL_2D 3x3                               padv2-nonzero
 *       -> MEAN over H,W of [1,256,256,8] (65536 elements)                  large-multi-axis-reduce
 *       -> pooled [1,8]
 *
 * The output is byte-identical from run to run (fixed data, deterministic writer); existing
 * files are replaced. Both models run on LiteRT's CPU. Build:
 *     cc -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc examples/make_examples.c \
 *        build/liblitegpu.a -lm -o build/make_examples
 * Exit status 0, or 1 with one line on stderr. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lg/lg.h"
#include "lg/npy.h"

/* ------------------------------------------------------------------ data */

/* IEEE 754 binary16 of f, rounded to nearest even (overflow -> inf, NaN stays NaN). */
static uint16_t f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
    int32_t e = (int32_t)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) { /* subnormal half (or zero): value = m * 2^-24 */
        if (e < -10) return (uint16_t)sign;
        man |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e), h = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++; /* a carry rounds up to inf */
    return (uint16_t)(sign | h);
}

/* A fixed linear congruential generator (Numerical Recipes constants). */
static uint32_t lcg_state;
static float lcg_uniform(void) { /* [-1, 1) */
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (float)(lcg_state >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

/* n values uniform in [-scale, scale) + offset. */
static float *lcg_fill(float *v, size_t n, float scale, float offset) {
    for (size_t i = 0; i < n; i++) v[i] = lcg_uniform() * scale + offset;
    return v;
}

/* A FLOAT16 constant holding v (n <= 256 values) read through DEQUANTIZE: returns the float
   tensor (or -1 with the builder failed). */
static int32_t fp16_weight(lg_builder *b, const char *name, lg_dims shape, const float *v, size_t n) {
    uint16_t h[256];
    if (b->status != LG_OK) return -1;
    if (n > sizeof h / sizeof h[0]) {
        b->status = b->err.status = LG_ERR_INVALID_ARG;
        snprintf(b->err.msg, sizeof b->err.msg, "constant \"%s\": %zu values, at most 256", name, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) h[i] = f32_to_f16(v[i]);
    char qname[96];
    snprintf(qname, sizeof qname, "%s_fp16", name);
    int32_t q = lg_b_const(b, qname, LG_FLOAT16, shape, h, n * sizeof h[0]);
    int32_t t = lg_b_tensor(b, name, LG_FLOAT32, shape);
    lg_b_op_v(b, LG_OP_DEQUANTIZE, 3, LG_IDS(q), LG_IDS(t), LG_OPTS_NONE, NULL); /* v3: FLOAT16 input */
    return t;
}

/* ------------------------------------------------------------------ tiny_convnet */

static void build_tiny_convnet(lg_builder *b) {
    static float w1[8 * 3 * 3 * 3], b1[8], w2[1 * 3 * 3 * 8], b2[8], w3[16 * 1 * 1 * 8], b3[16],
        fw[10 * 16], fb[10];
    lcg_state = 20260924u;
    lcg_fill(w1, 8 * 27, 0.38f, 0.0f); /* ~ 2/sqrt(fan_in) */
    lcg_fill(b1, 8, 0.05f, 0.05f);
    lcg_fill(w2, 72, 0.6f, 0.0f);
    lcg_fill(b2, 8, 0.05f, 0.05f);
    lcg_fill(w3, 128, 0.7f, 0.0f);
    lcg_fill(b3, 16, 0.05f, 0.05f);
    lcg_fill(fw, 160, 0.5f, 0.0f);
    lcg_fill(fb, 10, 0.1f, 0.0f);

    lg_conv2d_options c3 = {0}, c1 = {0};
    c3.padding = LG_PADDING_SAME;
    c3.stride_w = c3.stride_h = 1;
    c3.dilation_w_factor = c3.dilation_h_factor = 1;
    c3.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU6;
    c1 = c3;
    c1.padding = LG_PADDING_VALID;
    c1.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU;
    lg_depthwise_conv2d_options dw = {0};
    dw.padding = LG_PADDING_SAME;
    dw.stride_w = dw.stride_h = 2;
    dw.depth_multiplier = 1;
    dw.dilation_w_factor = dw.dilation_h_factor = 1;
    dw.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU6;
    lg_reducer_options ro = {false};
    lg_fully_connected_options fo = {0};
    lg_softmax_options so = {1.0f};
    const int32_t axes[2] = {1, 2};

    int x = lg_b_tensor(b, "image", LG_FLOAT32, LG_DIMS(1, 32, 32, 3));
    int tw1 = fp16_weight(b, "conv1/weights", LG_DIMS(8, 3, 3, 3), w1, 216);
    int tb1 = fp16_weight(b, "conv1/bias", LG_DIMS(8), b1, 8);
    int tw2 = fp16_weight(b, "dwconv/weights", LG_DIMS(1, 3, 3, 8), w2, 72);
    int tb2 = fp16_weight(b, "dwconv/bias", LG_DIMS(8), b2, 8);
    int tw3 = fp16_weight(b, "conv2/weights", LG_DIMS(16, 1, 1, 8), w3, 128);
    int tb3 = fp16_weight(b, "conv2/bias", LG_DIMS(16), b3, 16);
    int tfw = fp16_weight(b, "fc/weights", LG_DIMS(10, 16), fw, 160);
    int tfb = fp16_weight(b, "fc/bias", LG_DIMS(10), fb, 10);
    int ax = lg_b_const_i32(b, "mean/axes", LG_DIMS(2), axes);
    int h1 = lg_b_tensor(b, "conv1", LG_FLOAT32, LG_DIMS(1, 32, 32, 8));
    int h2 = lg_b_tensor(b, "dwconv", LG_FLOAT32, LG_DIMS(1, 16, 16, 8));
    int h3 = lg_b_tensor(b, "conv2", LG_FLOAT32, LG_DIMS(1, 16, 16, 16));
    int h4 = lg_b_tensor(b, "pooled", LG_FLOAT32, LG_DIMS(1, 16));
    int h5 = lg_b_tensor(b, "logits", LG_FLOAT32, LG_DIMS(1, 10));
    int y = lg_b_tensor(b, "probs", LG_FLOAT32, LG_DIMS(1, 10));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, tw1, tb1), LG_IDS(h1), LG_OPTS_CONV2D_OPTIONS, &c3);
    lg_b_op_opts(b, LG_OP_DEPTHWISE_CONV_2D, LG_IDS(h1, tw2, tb2), LG_IDS(h2), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &dw);
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(h2, tw3, tb3), LG_IDS(h3), LG_OPTS_CONV2D_OPTIONS, &c1);
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(h3, ax), LG_IDS(h4), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_op_opts(b, LG_OP_FULLY_CONNECTED, LG_IDS(h4, tfw, tfb), LG_IDS(h5), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_op_opts(b, LG_OP_SOFTMAX, LG_IDS(h5), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ------------------------------------------------------------------ blocked_net */

static void build_blocked_net(lg_builder *b) {
    static float tw[8 * 2 * 2 * 8], tb[8];
    static int32_t idx[8 * 8 * 3];
    lcg_state = 7919u;
    lcg_fill(tw, sizeof tw / sizeof tw[0], 0.35f, 0.0f);
    lcg_fill(tb, 8, 0.05f, 0.05f);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) { /* x[:, ::2, ::2]: what a stride-2 slice lowers to */
            idx[(i * 8 + j) * 3 + 0] = 0;
            idx[(i * 8 + j) * 3 + 1] = 2 * i;
            idx[(i * 8 + j) * 3 + 2] = 2 * j;
        }
    const int32_t out_shape[4] = {1, 16, 16, 8}, s5[5] = {1, 16, 16, 2, 4}, perm[5] = {0, 1, 2, 4, 3},
                  s4[4] = {1, 16, 16, 8}, size[2] = {256, 256}, pads[8] = {0, 0, 1, 1, 1, 1, 0, 0},
                  axes[2] = {1, 2};
    const float neg_inf = -INFINITY;

    lg_transpose_conv_options to = {0};
    to.padding = LG_PADDING_VALID;
    to.stride_w = to.stride_h = 2;
    to.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU;
    lg_reshape_options r5o = {{s5, 5}}, r4o = {{s4, 4}};
    lg_resize_bilinear_options rbo = {true, false};
    lg_pool2d_options po = {0};
    po.padding = LG_PADDING_VALID;
    po.stride_w = po.stride_h = 1;
    po.filter_width = po.filter_height = 3;
    lg_reducer_options ro = {false};

    int x = lg_b_tensor(b, "image", LG_FLOAT32, LG_DIMS(1, 16, 16, 8));
    int ix = lg_b_const_i32(b, "subsample/indices", LG_DIMS(1, 8, 8, 3), idx);
    int os = lg_b_const_i32(b, "upconv/output_shape", LG_DIMS(4), out_shape);
    int w = lg_b_const_f32(b, "upconv/weights", LG_DIMS(8, 2, 2, 8), tw);
    int bias = lg_b_const_f32(b, "upconv/bias", LG_DIMS(8), tb);
    int sh5 = lg_b_const_i32(b, "shuffle/shape5", LG_DIMS(5), s5);
    int pm = lg_b_const_i32(b, "shuffle/perm", LG_DIMS(5), perm);
    int sh4 = lg_b_const_i32(b, "shuffle/shape4", LG_DIMS(4), s4);
    int sz = lg_b_const_i32(b, "upsample/size", LG_DIMS(2), size);
    int pd = lg_b_const_i32(b, "pool/paddings", LG_DIMS(4, 2), pads);
    int pv = lg_b_const_f32(b, "pool/pad_value", LG_SCALAR, &neg_inf);
    int ax = lg_b_const_i32(b, "mean/axes", LG_DIMS(2), axes);
    int sub = lg_b_tensor(b, "subsample", LG_FLOAT32, LG_DIMS(1, 8, 8, 8));
    int up = lg_b_tensor(b, "upconv", LG_FLOAT32, LG_DIMS(1, 16, 16, 8));
    int g5 = lg_b_tensor(b, "shuffle/groups", LG_FLOAT32, LG_DIMS(1, 16, 16, 2, 4));
    int t5 = lg_b_tensor(b, "shuffle/transposed", LG_FLOAT32, LG_DIMS(1, 16, 16, 4, 2));
    int shf = lg_b_tensor(b, "shuffle", LG_FLOAT32, LG_DIMS(1, 16, 16, 8));
    int big = lg_b_tensor(b, "upsample", LG_FLOAT32, LG_DIMS(1, 256, 256, 8));
    int padded = lg_b_tensor(b, "pool/padded", LG_FLOAT32, LG_DIMS(1, 258, 258, 8));
    int pooled = lg_b_tensor(b, "pool", LG_FLOAT32, LG_DIMS(1, 256, 256, 8));
    int y = lg_b_tensor(b, "pooled", LG_FLOAT32, LG_DIMS(1, 8));
    lg_b_op(b, LG_OP_GATHER_ND, LG_IDS(x, ix), LG_IDS(sub));
    /* v4: the converter's version for a TRANSPOSE_CONV with a fused activation */
    lg_b_op_v(b, LG_OP_TRANSPOSE_CONV, 4, LG_IDS(os, w, sub, bias), LG_IDS(up), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &to);
    lg_b_op_opts(b, LG_OP_RESHAPE, LG_IDS(up, sh5), LG_IDS(g5), LG_OPTS_RESHAPE_OPTIONS, &r5o);
    lg_b_op_v(b, LG_OP_TRANSPOSE, 4, LG_IDS(g5, pm), LG_IDS(t5), LG_OPTS_NONE, NULL); /* v4: rank 5 */
    lg_b_op_opts(b, LG_OP_RESHAPE, LG_IDS(t5, sh4), LG_IDS(shf), LG_OPTS_RESHAPE_OPTIONS, &r4o);
    lg_b_op_opts(b, LG_OP_RESIZE_BILINEAR, LG_IDS(shf, sz), LG_IDS(big), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &rbo);
    lg_b_op(b, LG_OP_PADV2, LG_IDS(big, pd, pv), LG_IDS(padded));
    lg_b_op_opts(b, LG_OP_MAX_POOL_2D, LG_IDS(padded), LG_IDS(pooled), LG_OPTS_POOL2D_OPTIONS, &po);
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(pooled, ax), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* A NAFNet-style channel LayerNorm on [1,4,4,512] (the seed's fp16 failure): the
   variance's sum of squares over 512 channels overflows a half accumulator when |x| ~ 175.
   y = (x - mean) * rsqrt(mean((x - mean)^2) + eps) * gamma + beta, over the channel axis. */
static void build_layernorm(lg_builder *b) {
    enum { C = 512 };
    static float gamma[C], beta[C];
    for (int i = 0; i < C; i++) {
        gamma[i] = 1.0f + (float)(i % 7) / 16.0f;
        beta[i] = (float)(i % 5) / 32.0f;
    }
    int32_t axis_v[1] = {3};
    float eps_v = 1e-6f;
    lg_reducer_options keep = {true};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int ax = lg_b_const_i32(b, "ln/axis", LG_DIMS(1), axis_v);
    int eps = lg_b_const_f32(b, "ln/eps", LG_DIMS(1), &eps_v);
    int g = lg_b_const_f32(b, "ln/gamma", LG_DIMS(C), gamma);
    int be = lg_b_const_f32(b, "ln/beta", LG_DIMS(C), beta);
    int mu = lg_b_tensor(b, "ln/mean", LG_FLOAT32, LG_DIMS(1, 4, 4, 1));
    int d = lg_b_tensor(b, "ln/centered", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int sq = lg_b_tensor(b, "ln/squared", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int var = lg_b_tensor(b, "ln/variance", LG_FLOAT32, LG_DIMS(1, 4, 4, 1));
    int ve = lg_b_tensor(b, "ln/variance_eps", LG_FLOAT32, LG_DIMS(1, 4, 4, 1));
    int r = lg_b_tensor(b, "ln/rstd", LG_FLOAT32, LG_DIMS(1, 4, 4, 1));
    int nrm = lg_b_tensor(b, "ln/normalized", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int sc = lg_b_tensor(b, "ln/scaled", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(x, ax), LG_IDS(mu), LG_OPTS_REDUCER_OPTIONS, &keep);
    lg_b_op(b, LG_OP_SUB, LG_IDS(x, mu), LG_IDS(d));
    lg_b_op(b, LG_OP_MUL, LG_IDS(d, d), LG_IDS(sq));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(sq, ax), LG_IDS(var), LG_OPTS_REDUCER_OPTIONS, &keep);
    lg_b_op(b, LG_OP_ADD, LG_IDS(var, eps), LG_IDS(ve));
    lg_b_op(b, LG_OP_RSQRT, LG_IDS(ve), LG_IDS(r));
    lg_b_op(b, LG_OP_MUL, LG_IDS(d, r), LG_IDS(nrm));
    lg_b_op(b, LG_OP_MUL, LG_IDS(nrm, g), LG_IDS(sc));
    lg_b_op(b, LG_OP_ADD, LG_IDS(sc, be), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* What an exporter leaves behind for `convert --optimize` to clean (every step exact):
   x [1,16,16,8] -> TRANSPOSE to NCHW -> TRANSPOSE back (an inverse pair)
   -> ADD a bias computed at run time from constants: MEAN over axis 1 of a constant [8,3]
      (an op whose inputs are all constant: the phone rejects it, rules.def const-only-inputs)
   -> MUL by ones -> RESHAPE to the same shape -> y [1,16,16,8]. */
static void build_cleanup(lg_builder *b) {
    static float table[8 * 3];
    for (int i = 0; i < 8 * 3; i++) table[i] = (float)((i * 7) % 11) / 4.0f - 1.0f;
    static const float ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    int32_t to_nchw[4] = {0, 3, 1, 2}, to_nhwc[4] = {0, 2, 3, 1}, axis1[1] = {1};
    int32_t same[4] = {1, 16, 16, 8};
    lg_reducer_options drop = {false};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 16, 16, 8));
    int p1 = lg_b_const_i32(b, "to_nchw", LG_DIMS(4), to_nchw);
    int p2 = lg_b_const_i32(b, "to_nhwc", LG_DIMS(4), to_nhwc);
    int t1 = lg_b_tensor(b, "nchw", LG_FLOAT32, LG_DIMS(1, 8, 16, 16));
    int t2 = lg_b_tensor(b, "nhwc", LG_FLOAT32, LG_DIMS(1, 16, 16, 8));
    int tab = lg_b_const_f32(b, "bias_table", LG_DIMS(8, 3), table);
    int ax = lg_b_const_i32(b, "bias_axis", LG_DIMS(1), axis1);
    int bias = lg_b_tensor(b, "bias", LG_FLOAT32, LG_DIMS(8));
    int biased = lg_b_tensor(b, "biased", LG_FLOAT32, LG_DIMS(1, 16, 16, 8));
    int one = lg_b_const_f32(b, "ones", LG_DIMS(8), ones);
    int scaled = lg_b_tensor(b, "scaled", LG_FLOAT32, LG_DIMS(1, 16, 16, 8));
    int shp = lg_b_const_i32(b, "same_shape", LG_DIMS(4), same);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 8));
    lg_b_op(b, LG_OP_TRANSPOSE, LG_IDS(x, p1), LG_IDS(t1));
    lg_b_op(b, LG_OP_TRANSPOSE, LG_IDS(t1, p2), LG_IDS(t2));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(tab, ax), LG_IDS(bias), LG_OPTS_REDUCER_OPTIONS, &drop);
    lg_b_op(b, LG_OP_ADD, LG_IDS(t2, bias), LG_IDS(biased));
    lg_b_op(b, LG_OP_MUL, LG_IDS(biased, one), LG_IDS(scaled));
    lg_b_op(b, LG_OP_RESHAPE, LG_IDS(scaled, shp), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ------------------------------------------------------------------ driver */

static int write_model(const char *dir, const char *file, const char *description,
                       const char *in_name, const char *out_name, void (*build)(lg_builder *)) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    lg_model *m = NULL;
    lg_error err;
    lg_status st = lg_model_new(NULL, NULL, &m, &err);
    if (st == LG_OK) {
        lg_builder b;
        lg_builder_init(&b, m, 0);
        build(&b);
        st = b.status;
        if (st != LG_OK) err = b.err;
    }
    if (st == LG_OK) st = lg_model_set_description(m, description, &err);
    if (st == LG_OK) {
        const lg_subgraph *sg = &m->subgraphs[0];
        const char *in_names[1] = {in_name}, *out_names[1] = {out_name};
        const uint32_t in_t[1] = {(uint32_t)sg->inputs[0]}, out_t[1] = {(uint32_t)sg->outputs[0]};
        st = lg_model_add_signature(m, "serving_default", 0, in_names, in_t, 1, out_names, out_t, 1, &err);
    }
    if (st == LG_OK) {
        lg_write_options wo = {.force = true};
        st = lg_tflite_write_file(m, path, &wo, &err);
    }
    lg_model_free(m);
    if (st != LG_OK) {
        fprintf(stderr, "make_examples: %s: %s\n", path, err.msg);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_examples DIR\n");
        return 1;
    }
    if (write_model(argv[1], "tiny_convnet.tflite", "litegpu demo: clean convnet", "image", "probs",
                    build_tiny_convnet))
        return 1;
    if (write_model(argv[1], "blocked_net.tflite",
                    "litegpu demo: GPU blockers (GATHER_ND, TRANSPOSE_CONV+RELU, 5-D reshape, "
                    "PADV2 -inf, large multi-axis MEAN, align_corners)",
                    "image", "pooled", build_blocked_net))
        return 1;
    if (write_model(argv[1], "cleanup_net.tflite",
                    "litegpu demo: exporter leftovers for convert --optimize (transpose pair, "
                    "constant-only MEAN, * 1, same-shape reshape)",
                    "x", "y", build_cleanup))
        return 1;
    if (write_model(argv[1], "layernorm_512.tflite",
                    "litegpu demo: NAFNet-style channel LayerNorm over 512 channels (fp16 variance overflow)",
                    "x", "y", build_layernorm))
        return 1;
    /* an activation of the size NAFNet's bottleneck reaches: |x| up to 175 */
    {
        static float act[4 * 4 * 512];
        for (int i = 0; i < 4 * 4 * 512; i++) act[i] = (float)(175.0 * cos(0.37 * i + 0.1 * (i / 512)));
        int32_t shape[4] = {1, 4, 4, 512};
        char path[1024];
        lg_error err;
        snprintf(path, sizeof path, "%s/layernorm_input.npy", argv[1]);
        if (lg_npy_write_file(path, LG_FLOAT32, shape, 4, act, true, &err) != LG_OK) {
            fprintf(stderr, "make_examples: %s\n", err.msg);
            return 1;
        }
    }
    return 0;
}
