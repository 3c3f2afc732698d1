/* make_rule_models DIR: writes one small .tflite per rule case of `litegpu check` that applies to
 * the ML Drift target, for tests/e2e/test_check_vs_delegate.sh to run through check and through
 * the real ML Drift delegate (LiteRT.js WebGPU, peers/verify/verify.js):
 *
 *   <rule-id>__trigger.tflite, __trigger2 ...   check --target mldrift reports the rule
 *   <rule-id>__nearmiss.tflite, __nearmiss2 ... a close model it must not report
 *   manifest.tsv                                 "file<TAB>rule<TAB>kind<TAB>check_args" (kind:
 *                                                trigger|nearmiss; check_args: extra `litegpu check`
 *                                                arguments, e.g. graph-size's --max-gpu-ops 4),
 *                                                one line per model above, after a header line
 *   fp16__layernorm.tflite                       not in the manifest: examples/layernorm_512's
 *                                                channel LayerNorm with the input mapped in the graph
 *                                                to x * 350 - 175 (MUL then ADD by constants), so the
 *                                                `pattern` fill ([0, 1)) reaches |x| ~ 175 (the
 *                                                NAFNet fp16 case); for the fp16 numerics comparison
 *
 * The models are those of tests/unit/test_check_rules.c (the unit tests that build, for every
 * rule, a trigger and a near-miss), rebuilt here so the delegate can judge them: real constants
 * (a small fixed ramp rather than zeros), and graph inputs and outputs of the types LiteRT.js
 * feeds and reads, float32 and int32 (its compile refuses FLOAT16, INT8, BOOL and INT64 graph
 * I/O: "Element type FLOAT16 is not supported."), so FLOAT16, INT8, BOOL and INT64 tensors are
 * made inside the graph (CAST, QUANTIZE/DEQUANTIZE, comparisons), and a DENSIFY input carries
 * sparsity parameters. Some triggers are models TFLite itself refuses (non-broadcastable ADD,
 * LOGISTIC with 2 inputs, INT64 axes, stride 0, align_corners with half_pixel_centers, axis 4
 * of a rank-4 tensor): the rule can only fire on such models, and the delegate's verdict is
 * then the failed compile. Where the unit test's trigger is a classic-only case that ML Drift
 * takes, it is written as a near-miss of the ML Drift rule (e.g. op-unsupported__nearmiss2,
 * ROUND); the classic-only rules (cast-types, compare-consumer) get near-misses only: their
 * unit-test triggers, which ML Drift takes (it skips the CAST compatibility check and has no
 * comparison-consumer rule).
 *
 * Exit status 0, or 1 with one line on stderr per failing model. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lg/lg.h"
#include "model_writer.h"

/* ------------------------------------------------------------------ data */

enum { NDATA = 4096 };
static float wf[NDATA];        /* a small fixed ramp for weights and constant operands */
static uint16_t wh[NDATA];     /* the same ramp as FLOAT16 bits */

/* IEEE binary16 of a float that is exactly representable (the ramp's values are k/64). */
static uint16_t f16_bits(float f) {
    if (f == 0.0f) return 0;
    uint16_t s = f < 0 ? 0x8000u : 0;
    float a = fabsf(f);
    int e = 0;
    float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int he = e - 1 + 15;     /* a = (2m) * 2^(e-1) */
    uint32_t man = (uint32_t)lrintf((2.0f * m - 1.0f) * 1024.0f);
    return (uint16_t)(s | (uint32_t)he << 10 | man);
}

static void init_data(void) {
    for (int i = 0; i < NDATA; i++) {
        wf[i] = (float)((i * 37) % 17 - 8) / 64.0f;
        wh[i] = f16_bits(wf[i]);
    }
}

/* ------------------------------------------------------------------ helpers (as in the unit tests) */

static lg_conv2d_options conv_opts(int act) {
    lg_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 1;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    o.fused_activation_function = (int8_t)act;
    return o;
}

static lg_reducer_options keep_dims(bool keep) {
    lg_reducer_options o;
    memset(&o, 0, sizeof o);
    o.keep_dims = keep;
    return o;
}

/* A binary elementwise op with its options table (activation NONE), as converters write it. */
static int32_t binop(lg_builder *b, int32_t code, int32_t x, int32_t y, int32_t out) {
    lg_add_options ao = {LG_ACTIVATION_FUNCTION_TYPE_NONE, false};
    lg_sub_options so = {LG_ACTIVATION_FUNCTION_TYPE_NONE, false};
    lg_mul_options mo = {LG_ACTIVATION_FUNCTION_TYPE_NONE};
    lg_div_options dop = {LG_ACTIVATION_FUNCTION_TYPE_NONE};
    switch (code) {
    case LG_OP_ADD: return lg_b_op_opts(b, code, LG_IDS(x, y), LG_IDS(out), LG_OPTS_ADD_OPTIONS, &ao);
    case LG_OP_SUB: return lg_b_op_opts(b, code, LG_IDS(x, y), LG_IDS(out), LG_OPTS_SUB_OPTIONS, &so);
    case LG_OP_MUL: return lg_b_op_opts(b, code, LG_IDS(x, y), LG_IDS(out), LG_OPTS_MUL_OPTIONS, &mo);
    case LG_OP_DIV: return lg_b_op_opts(b, code, LG_IDS(x, y), LG_IDS(out), LG_OPTS_DIV_OPTIONS, &dop);
    default: return lg_b_op(b, code, LG_IDS(x, y), LG_IDS(out));
    }
}

/* One unary op (builtin, 1 input, 1 output) on x[shape] of type dt. */
static void unary(lg_builder *b, int32_t builtin, int32_t version, lg_dtype dt, lg_dims shape) {
    int x = lg_b_tensor(b, "x", dt, shape);
    int y = lg_b_tensor(b, "y", dt, shape);
    lg_b_op_v(b, builtin, version, LG_IDS(x), LG_IDS(y), LG_OPTS_NONE, NULL);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* x[1,8,8,4] -> CONV_2D 3x3 (4 -> 4 channels) with the given options -> y. */
static void conv_with(lg_builder *b, const lg_conv2d_options *o) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 3, 3, 4), wf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(4), wf);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static int ok(const lg_builder *b) { return b->status == LG_OK; }

/* Sets per-tensor (n 1) or per-channel quantization; a failure fails the builder. */
static void quant(lg_builder *b, int t, const float *scale, uint32_t n, int32_t dim) {
    if (!ok(b)) return;
    lg_error err;
    if (lg_tensor_set_quant(b->m, b->sg, (uint32_t)t, scale, NULL, n, dim, &err) != LG_OK) {
        b->status = LG_ERR_INVALID_ARG;
        b->err = err;
    }
}

/* Marks constant t [4,4] as a sparse tensor stored dense (both dimensions DENSE, traversal
   order 0,1), as a DENSIFY input must be: TFLite's DENSIFY kernel refuses a tensor without
   sparsity parameters, and then the delegate never sees the model. */
static void mark_sparse(lg_builder *b, int t) {
    static const int32_t order[2] = {0, 1};
    static lg_dim_meta dims[2];
    static lg_sparsity sp;
    if (!ok(b)) return;
    memset(dims, 0, sizeof dims);
    dims[0].format = dims[1].format = LG_DIMENSION_TYPE_DENSE;
    dims[0].dense_size = dims[1].dense_size = 4;
    memset(&sp, 0, sizeof sp);
    sp.traversal_order = order;
    sp.n_traversal_order = 2;
    sp.dim_metadata = dims;
    sp.n_dim_metadata = 2;
    b->m->subgraphs[b->sg].tensors[t].sparsity = &sp;
}

/* A float32 graph input x[shape] read as FLOAT16 through a CAST (LiteRT.js only feeds float32
   and int32 graph inputs); the result is the FLOAT16 tensor. */
static int f16_input(lg_builder *b, const char *name, lg_dims shape, int *graph_in) {
    char n16[64];
    snprintf(n16, sizeof n16, "%s_f16", name);
    int x = lg_b_tensor(b, name, LG_FLOAT32, shape);
    int h = lg_b_tensor(b, n16, LG_FLOAT16, shape);
    lg_b_op(b, LG_OP_CAST, LG_IDS(x), LG_IDS(h));
    *graph_in = x;
    return h;
}

/* A FLOAT16 tensor h written out as float32 through a CAST; returns the graph output. */
static int f32_output(lg_builder *b, const char *name, int h, lg_dims shape) {
    int y = lg_b_tensor(b, name, LG_FLOAT32, shape);
    lg_b_op(b, LG_OP_CAST, LG_IDS(h), LG_IDS(y));
    return y;
}

/* ------------------------------------------------------------------ op-unsupported */

/* x -> RELU -> GATHER_ND (x[:, ::2, ::2]) -> y: GATHER_ND is in no parser switch. */
static void op_unsupported_trigger(lg_builder *b) {
    int32_t idx[4 * 4 * 3];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            idx[(i * 4 + j) * 3 + 0] = 0;
            idx[(i * 4 + j) * 3 + 1] = 2 * i;
            idx[(i * 4 + j) * 3 + 2] = 2 * j;
        }
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int i = lg_b_const_i32(b, "idx", LG_DIMS(1, 4, 4, 3), idx);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op(b, LG_OP_GATHER_ND, LG_IDS(r, i), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* DENSIFY (classic only) of a sparse constant feeding a FULLY_CONNECTED's weights. */
static void op_unsupported_trigger2(lg_builder *b) {
    lg_fully_connected_options fo;
    memset(&fo, 0, sizeof fo);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int ws = lg_b_const_f32(b, "w_sparse", LG_DIMS(4, 4), wf);
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 4));
    mark_sparse(b, ws);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(b, LG_OP_DENSIFY, LG_IDS(ws), LG_IDS(w));
    lg_b_op_opts(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* conv -> RELU -> GATHER_ND -> conv: two GPU subsets around the CPU op. */
static void op_unsupported_trigger3(lg_builder *b) {
    lg_conv2d_options o = conv_opts(0);
    int32_t idx[4 * 4 * 3];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            idx[(i * 4 + j) * 3 + 0] = 0;
            idx[(i * 4 + j) * 3 + 1] = 2 * i;
            idx[(i * 4 + j) * 3 + 2] = 2 * j;
        }
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 3, 3, 4), wf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(4), wf);
    int c1 = lg_b_tensor(b, "c1", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r1 = lg_b_tensor(b, "r1", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int ix = lg_b_const_i32(b, "idx", LG_DIMS(1, 4, 4, 3), idx);
    int g = lg_b_tensor(b, "g", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(c1), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_op(b, LG_OP_RELU, LG_IDS(c1), LG_IDS(r1));
    lg_b_op(b, LG_OP_GATHER_ND, LG_IDS(r1, ix), LG_IDS(g));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(g, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* GATHER of one channel with a 1-D INT32 constant index: in both parsers. */
static void op_unsupported_nearmiss(lg_builder *b) {
    lg_gather_options go = {3, 0};
    int32_t one = 2;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int i = lg_b_const_i32(b, "idx", LG_DIMS(1), &one);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 1));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op_opts(b, LG_OP_GATHER, LG_IDS(r, i), LG_IDS(y), LG_OPTS_GATHER_OPTIONS, &go);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ROUND: not in the classic parser, in ML Drift's. */
static void op_unsupported_nearmiss2(lg_builder *b) { unary(b, LG_OP_ROUND, 1, LG_FLOAT32, LG_DIMS(1, 8, 8, 4)); }

/* LOGICAL_OR on bool tensors (ML Drift only), the bools made from float32 inputs by GREATER
   and read back through a CAST (LiteRT.js feeds no bool graph input). */
static void op_unsupported_nearmiss3(lg_builder *b) {
    const float half = 0.5f;
    int xa = lg_b_tensor(b, "xa", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int xc = lg_b_tensor(b, "xc", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int th = lg_b_const_f32(b, "threshold", LG_DIMS(1), &half);
    int a = lg_b_tensor(b, "a", LG_BOOL, LG_DIMS(1, 8, 8, 4));
    int c = lg_b_tensor(b, "c", LG_BOOL, LG_DIMS(1, 8, 8, 4));
    int o = lg_b_tensor(b, "o", LG_BOOL, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_GREATER, LG_IDS(xa, th), LG_IDS(a));
    lg_b_op(b, LG_OP_GREATER, LG_IDS(xc, th), LG_IDS(c));
    lg_b_op(b, LG_OP_LOGICAL_OR, LG_IDS(a, c), LG_IDS(o));
    lg_b_op(b, LG_OP_CAST, LG_IDS(o), LG_IDS(y));
    lg_b_io(b, LG_IDS(xa, xc), LG_IDS(y));
}

/* ------------------------------------------------------------------ op-no-compat-case */

static void op_no_compat_case_trigger(lg_builder *b) { unary(b, LG_OP_RELU_0_TO_1, 1, LG_FLOAT32, LG_DIMS(1, 8, 8, 4)); }

static void op_no_compat_case_trigger2(lg_builder *b) {
    int a = lg_b_tensor(b, "a", LG_INT32, LG_DIMS(1, 8, 8, 4));
    int c = lg_b_tensor(b, "c", LG_INT32, LG_DIMS(1, 8, 8, 4));
    int o = lg_b_tensor(b, "o", LG_INT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_BITWISE_XOR, LG_IDS(a, c), LG_IDS(o));
    lg_b_io(b, LG_IDS(a, c), LG_IDS(o));
}

static void op_no_compat_case_nearmiss(lg_builder *b) { unary(b, LG_OP_RELU, 1, LG_FLOAT32, LG_DIMS(1, 8, 8, 4)); }

/* ------------------------------------------------------------------ custom-op-unsupported */

static void custom_after_relu(lg_builder *b, const char *name) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_custom(b, name, LG_IDS(r), LG_IDS(y), NULL, 0);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void custom_op_unsupported_trigger(lg_builder *b) { custom_after_relu(b, "MyOp"); }

/* Convolution2DTransposeBias as MediaPipe writes it (selfie_segmentation): input, weights
   [O,H,W,I], bias [O]; custom options TfLiteTransposeConvParams {padding SAME = 1, stride 2, 2}. */
static void custom_op_unsupported_nearmiss(lg_builder *b) {
    const int32_t opts[3] = {1, 2, 2};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 2, 2, 4), wf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(4), wf);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 4));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_custom(b, "Convolution2DTransposeBias", LG_IDS(r, w, bi), LG_IDS(y), opts, sizeof opts);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ------------------------------------------------------------------ op-version */

/* TRANSPOSE_CONV: output_shape, weights, input (+ bias). v4 = fused activation, v3 = bias. */
static void transpose_conv(lg_builder *b, int act, int with_bias) {
    int32_t os[4] = {1, 16, 16, 4};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int s = lg_b_const_i32(b, "output_shape", LG_DIMS(4), os);
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 2, 2, 4), wf);
    int bi = with_bias ? lg_b_const_f32(b, "bias", LG_DIMS(4), wf) : -1;
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 4));
    lg_transpose_conv_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_VALID;
    o.stride_w = o.stride_h = 2;
    o.fused_activation_function = (int8_t)act;
    int v = act != LG_ACTIVATION_FUNCTION_TYPE_NONE ? 4 : with_bias ? 3 : 1;
    if (with_bias)
        lg_b_op_v(b, LG_OP_TRANSPOSE_CONV, v, LG_IDS(s, w, x, bi), LG_IDS(y), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    else
        lg_b_op_v(b, LG_OP_TRANSPOSE_CONV, v, LG_IDS(s, w, x), LG_IDS(y), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void op_version_trigger(lg_builder *b) { transpose_conv(b, LG_ACTIVATION_FUNCTION_TYPE_RELU, 1); }
static void op_version_trigger2(lg_builder *b) { unary(b, LG_OP_RELU, 3, LG_FLOAT32, LG_DIMS(1, 8, 8, 4)); }
static void op_version_nearmiss(lg_builder *b) { unary(b, LG_OP_RELU, 2, LG_FLOAT32, LG_DIMS(1, 8, 8, 4)); }

/* SOFTMAX on FLOAT16 (v4): over the classic maximum, within ML Drift's. The FLOAT16 tensors
   come from and go to float32 graph I/O through CASTs. */
static void op_version_nearmiss2(lg_builder *b) {
    lg_softmax_options so = {1.0f};
    int xin;
    int x = f16_input(b, "x", LG_DIMS(1, 10), &xin);
    int h = lg_b_tensor(b, "y_f16", LG_FLOAT16, LG_DIMS(1, 10));
    lg_b_op_v(b, LG_OP_SOFTMAX, 4, LG_IDS(x), LG_IDS(h), LG_OPTS_SOFTMAX_OPTIONS, &so);
    int y = f32_output(b, "y", h, LG_DIMS(1, 10));
    lg_b_io(b, LG_IDS(xin), LG_IDS(y));
}

/* CONCATENATION on FLOAT16 (v6), FLOAT16 through CASTs as above. */
static void op_version_nearmiss3(lg_builder *b) {
    lg_concatenation_options co = {3, LG_ACTIVATION_FUNCTION_TYPE_NONE};
    int xin, x2in;
    int x = f16_input(b, "x", LG_DIMS(1, 8, 8, 4), &xin);
    int x2 = f16_input(b, "x2", LG_DIMS(1, 8, 8, 4), &x2in);
    int h = lg_b_tensor(b, "y_f16", LG_FLOAT16, LG_DIMS(1, 8, 8, 8));
    lg_b_op_v(b, LG_OP_CONCATENATION, 6, LG_IDS(x, x2), LG_IDS(h), LG_OPTS_CONCATENATION_OPTIONS, &co);
    int y = f32_output(b, "y", h, LG_DIMS(1, 8, 8, 8));
    lg_b_io(b, LG_IDS(xin, x2in), LG_IDS(y));
}

/* ------------------------------------------------------------------ tensor-rank */

static void relu_reshape(lg_builder *b, int five) {
    int32_t s5[5] = {1, 8, 8, 2, 2}, s3[3] = {1, 8, 32};
    lg_reshape_options ro;
    memset(&ro, 0, sizeof ro);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int s = five ? lg_b_const_i32(b, "shape", LG_DIMS(5), s5) : lg_b_const_i32(b, "shape", LG_DIMS(3), s3);
    int y = five ? lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 2, 2)) : lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 32));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op(b, LG_OP_RESHAPE, LG_IDS(r, s), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void tensor_rank_trigger(lg_builder *b) { relu_reshape(b, 1); }
static void tensor_rank_nearmiss(lg_builder *b) { relu_reshape(b, 0); }

/* ------------------------------------------------------------------ tensor-dtype */

static void tensor_dtype_trigger(lg_builder *b) { unary(b, LG_OP_RELU, 1, LG_INT32, LG_DIMS(1, 8, 8, 4)); }
/* RELU on FLOAT16 (through CASTs from and to float32 graph I/O). */
static void tensor_dtype_nearmiss(lg_builder *b) {
    int xin;
    int x = f16_input(b, "x", LG_DIMS(1, 8, 8, 4), &xin);
    int h = lg_b_tensor(b, "y_f16", LG_FLOAT16, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(h));
    int y = f32_output(b, "y", h, LG_DIMS(1, 8, 8, 4));
    lg_b_io(b, LG_IDS(xin), LG_IDS(y));
}

/* INT32 ADD: ML Drift's IsIntSupportedOp takes it (classic does not). */
static void tensor_dtype_nearmiss2(lg_builder *b) {
    int a = lg_b_tensor(b, "a", LG_INT32, LG_DIMS(1, 8, 8, 4));
    int c = lg_b_tensor(b, "c", LG_INT32, LG_DIMS(1, 8, 8, 4));
    int o = lg_b_tensor(b, "o", LG_INT32, LG_DIMS(1, 8, 8, 4));
    binop(b, LG_OP_ADD, a, c, o);
    lg_b_io(b, LG_IDS(a, c), LG_IDS(o));
}

/* ------------------------------------------------------------------ quant-per-channel-runtime */

static const float sc4[4] = {0.1f, 0.2f, 0.3f, 0.4f}, sc1[1] = {0.1f};

/* f32 -> QUANTIZE -> x INT8 (per-tensor, or per-channel on axis 3) -> RELU -> DEQUANTIZE -> f32
   (LiteRT.js feeds no INT8 graph input). */
static void int8_relu(lg_builder *b, int per_channel) {
    int in = lg_b_tensor(b, "in", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int x = lg_b_tensor(b, "x", LG_INT8, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_INT8, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_QUANTIZE, LG_IDS(in), LG_IDS(x));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(r), LG_IDS(y));
    lg_b_io(b, LG_IDS(in), LG_IDS(y));
    quant(b, x, per_channel ? sc4 : sc1, per_channel ? 4 : 1, per_channel ? 3 : 0);
    quant(b, r, sc1, 1, 0);
}

static void quant_per_channel_runtime_trigger(lg_builder *b) { int8_relu(b, 1); }
static void quant_per_channel_runtime_nearmiss(lg_builder *b) { int8_relu(b, 0); }

/* A quantized CONV_2D: per-tensor activations, per-channel constant weights, INT32 bias,
   between a QUANTIZE and a DEQUANTIZE. */
static void quant_per_channel_runtime_nearmiss2(lg_builder *b) {
    int8_t w8[4 * 3 * 3 * 4];
    int32_t b32[4] = {0, 1, 2, 3};
    const float bsc[4] = {0.01f, 0.02f, 0.03f, 0.04f};
    for (int i = 0; i < (int)sizeof w8; i++) w8[i] = (int8_t)((i * 37) % 17 - 8);
    lg_conv2d_options o = conv_opts(0);
    int in = lg_b_tensor(b, "in", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int x = lg_b_tensor(b, "x", LG_INT8, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_const(b, "w", LG_INT8, LG_DIMS(4, 3, 3, 4), w8, sizeof w8);
    int bi = lg_b_const(b, "bias", LG_INT32, LG_DIMS(4), b32, sizeof b32);
    int c = lg_b_tensor(b, "c", LG_INT8, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_QUANTIZE, LG_IDS(in), LG_IDS(x));
    lg_b_op_v(b, LG_OP_CONV_2D, 3, LG_IDS(x, w, bi), LG_IDS(c), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(c), LG_IDS(y));
    lg_b_io(b, LG_IDS(in), LG_IDS(y));
    quant(b, x, sc1, 1, 0);
    quant(b, w, sc4, 4, 0);
    quant(b, bi, bsc, 4, 0);
    quant(b, c, sc1, 1, 0);
}

/* ------------------------------------------------------------------ fused-activation */

static void fused_act(lg_builder *b, int act) {
    lg_conv2d_options o = conv_opts(act);
    conv_with(b, &o);
}
static void fused_activation_trigger(lg_builder *b) { fused_act(b, LG_ACTIVATION_FUNCTION_TYPE_SIGN_BIT); }
static void fused_activation_nearmiss(lg_builder *b) { fused_act(b, LG_ACTIVATION_FUNCTION_TYPE_RELU6); }
static void fused_activation_nearmiss2(lg_builder *b) { fused_act(b, LG_ACTIVATION_FUNCTION_TYPE_TANH); }
static void fused_activation_nearmiss3(lg_builder *b) { fused_act(b, LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1); }
static void fused_activation_nearmiss4(lg_builder *b) { fused_act(b, LG_ACTIVATION_FUNCTION_TYPE_NONE); }
static void fused_activation_nearmiss5(lg_builder *b) { fused_act(b, LG_ACTIVATION_FUNCTION_TYPE_RELU); }

/* ------------------------------------------------------------------ broadcast */

/* ADD a[sa] + c[sc] -> o[so], both runtime inputs. */
static void add2(lg_builder *b, lg_dims sa, lg_dims sc, lg_dims so) {
    int a = lg_b_tensor(b, "a", LG_FLOAT32, sa);
    int c = lg_b_tensor(b, "c", LG_FLOAT32, sc);
    int o = lg_b_tensor(b, "o", LG_FLOAT32, so);
    binop(b, LG_OP_ADD, a, c, o);
    lg_b_io(b, LG_IDS(a, c), LG_IDS(o));
}

static void broadcast_trigger(lg_builder *b) { add2(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 8, 8, 3), LG_DIMS(1, 8, 8, 4)); }
static void broadcast_trigger2(lg_builder *b) { add2(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(8, 8, 3), LG_DIMS(1, 8, 8, 4)); }
static void broadcast_nearmiss(lg_builder *b) { add2(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(8, 8, 4), LG_DIMS(1, 8, 8, 4)); }
static void broadcast_nearmiss2(lg_builder *b) { add2(b, LG_DIMS(2, 8, 8, 4), LG_DIMS(8, 8, 4), LG_DIMS(2, 8, 8, 4)); }
static void broadcast_nearmiss3(lg_builder *b) { add2(b, LG_DIMS(1, 8, 4), LG_DIMS(8, 4), LG_DIMS(1, 8, 4)); }
static void broadcast_nearmiss4(lg_builder *b) { add2(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 4), LG_DIMS(1, 8, 8, 4)); }
static void broadcast_nearmiss5(lg_builder *b) { add2(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 1), LG_DIMS(1, 8, 8, 4)); }
static void broadcast_nearmiss6(lg_builder *b) { add2(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(4), LG_DIMS(1, 8, 8, 4)); }

/* ------------------------------------------------------------------ input-count */

static void logistic(lg_builder *b, int two) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int x2 = two ? lg_b_tensor(b, "x2", LG_FLOAT32, LG_DIMS(1, 8, 8, 4)) : -1;
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    if (two) {
        lg_b_op(b, LG_OP_LOGISTIC, LG_IDS(x, x2), LG_IDS(y));
        lg_b_io(b, LG_IDS(x, x2), LG_IDS(y));
    } else {
        lg_b_op(b, LG_OP_LOGISTIC, LG_IDS(x), LG_IDS(y));
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
    }
}

/* CONV_2D with runtime weights; the bias runtime (3 runtime inputs) or constant. */
static void conv_rt_weights(lg_builder *b, int rt_bias) {
    lg_conv2d_options o = conv_opts(0);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 3, 3, 4));
    int bi = rt_bias ? lg_b_tensor(b, "bias", LG_FLOAT32, LG_DIMS(4)) : lg_b_const_f32(b, "bias", LG_DIMS(4), wf);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    if (rt_bias) lg_b_io(b, LG_IDS(x, w, bi), LG_IDS(y));
    else lg_b_io(b, LG_IDS(x, w), LG_IDS(y));
}

static void input_count_trigger(lg_builder *b) { logistic(b, 1); }
static void input_count_trigger2(lg_builder *b) { conv_rt_weights(b, 1); }
static void input_count_nearmiss(lg_builder *b) { logistic(b, 0); }
static void input_count_nearmiss2(lg_builder *b) { conv_rt_weights(b, 0); }

/* CONV_2D(x, DEQUANTIZE(w16), DEQUANTIZE(b16)): the delegate folds the fp16 DEQUANTIZEs, so
   the conv has 1 runtime + 2 constant inputs. */
static void input_count_nearmiss3(lg_builder *b) {
    lg_conv2d_options o = conv_opts(LG_ACTIVATION_FUNCTION_TYPE_RELU6);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w16 = lg_b_const(b, "w16", LG_FLOAT16, LG_DIMS(4, 3, 3, 4), wh, 4 * 3 * 3 * 4 * 2);
    int b16 = lg_b_const(b, "b16", LG_FLOAT16, LG_DIMS(4), wh, 4 * 2);
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 3, 3, 4));
    int bi = lg_b_tensor(b, "bias", LG_FLOAT32, LG_DIMS(4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(w16), LG_IDS(w));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(b16), LG_IDS(bi));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ------------------------------------------------------------------ const-axes */

/* MEAN x[1,8,8,4] over axes 1,2: 0 constant INT32, 1 constant INT64, 2 runtime INT32. */
static void mean_axes(lg_builder *b, int axes_kind) {
    lg_reducer_options ro = keep_dims(true);
    int32_t a32[2] = {1, 2};
    int64_t a64[2] = {1, 2};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int ax = axes_kind == 0   ? lg_b_const_i32(b, "axes", LG_DIMS(2), a32)
             : axes_kind == 1 ? lg_b_const(b, "axes", LG_INT64, LG_DIMS(2), a64, sizeof a64)
                              : lg_b_tensor(b, "axes", LG_INT32, LG_DIMS(2));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 1, 1, 4));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(x, ax), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
    if (axes_kind == 2) lg_b_io(b, LG_IDS(x, ax), LG_IDS(y));
    else lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void const_axes_trigger(lg_builder *b) { mean_axes(b, 1); }
static void const_axes_trigger2(lg_builder *b) { mean_axes(b, 2); }
static void const_axes_nearmiss(lg_builder *b) { mean_axes(b, 0); }

/* ------------------------------------------------------------------ dynamic-tensor */

static void reshape_shape(lg_builder *b, int rt) {
    int32_t s[2] = {1, 256};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int sh = rt ? lg_b_tensor(b, "shape", LG_INT32, LG_DIMS(2)) : lg_b_const_i32(b, "shape", LG_DIMS(2), s);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 256));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op(b, LG_OP_RESHAPE, LG_IDS(r, sh), LG_IDS(y));
    if (rt) lg_b_io(b, LG_IDS(x, sh), LG_IDS(y));
    else lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void resize_size(lg_builder *b, int rt) {
    int32_t s[2] = {16, 16};
    lg_resize_bilinear_options ro = {false, true};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int sz = rt ? lg_b_tensor(b, "size", LG_INT32, LG_DIMS(2)) : lg_b_const_i32(b, "size", LG_DIMS(2), s);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 4));
    lg_b_op_opts(b, LG_OP_RESIZE_BILINEAR, LG_IDS(x, sz), LG_IDS(y), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &ro);
    if (rt) lg_b_io(b, LG_IDS(x, sz), LG_IDS(y));
    else lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void dynamic_tensor_trigger(lg_builder *b) { reshape_shape(b, 1); }
static void dynamic_tensor_trigger2(lg_builder *b) { resize_size(b, 1); }
static void dynamic_tensor_nearmiss(lg_builder *b) { reshape_shape(b, 0); }
static void dynamic_tensor_nearmiss2(lg_builder *b) { resize_size(b, 0); }

/* ------------------------------------------------------------------ dynamic-input */

static void relu_signature(lg_builder *b, int dyn) {
    unary(b, LG_OP_RELU, 1, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    if (!ok(b)) return;
    const int32_t sig_dyn[4] = {-1, 8, 8, 4}, sig_static[4] = {1, 8, 8, 4};
    lg_error err;
    if (lg_tensor_set_shape_signature(b->m, b->sg, (uint32_t)b->m->subgraphs[b->sg].inputs[0],
                                      dyn ? sig_dyn : sig_static, 4, &err) != LG_OK) {
        b->status = LG_ERR_INVALID_ARG;
        b->err = err;
    }
}

static void dynamic_input_trigger(lg_builder *b) { relu_signature(b, 1); }
static void dynamic_input_nearmiss(lg_builder *b) { relu_signature(b, 0); }

/* ------------------------------------------------------------------ identical-inputs */

static void binary_self(lg_builder *b, int32_t op, int same) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int x2 = same ? -1 : lg_b_tensor(b, "x2", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    if (same) {
        binop(b, op, x, x, y);
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
    } else {
        binop(b, op, x, x2, y);
        lg_b_io(b, LG_IDS(x, x2), LG_IDS(y));
    }
}

static void identical_inputs_trigger(lg_builder *b) { binary_self(b, LG_OP_DIV, 1); }
static void identical_inputs_trigger2(lg_builder *b) { binary_self(b, LG_OP_SUB, 1); }
static void identical_inputs_nearmiss(lg_builder *b) { binary_self(b, LG_OP_MUL, 1); }
static void identical_inputs_nearmiss2(lg_builder *b) { binary_self(b, LG_OP_ADD, 1); }
static void identical_inputs_nearmiss3(lg_builder *b) { binary_self(b, LG_OP_DIV, 0); }

/* ------------------------------------------------------------------ op-params */

static void space_to_depth(lg_builder *b, int bs) {
    lg_space_to_depth_options so = {bs};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y = bs == 1 ? lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4)) : lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 16));
    lg_b_op_opts(b, LG_OP_SPACE_TO_DEPTH, LG_IDS(x), LG_IDS(y), LG_OPTS_SPACE_TO_DEPTH_OPTIONS, &so);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void op_params_trigger(lg_builder *b) { space_to_depth(b, 1); }

static void op_params_trigger2(lg_builder *b) {
    lg_conv2d_options o = conv_opts(0);
    o.stride_h = 0;
    conv_with(b, &o);
}

/* DEQUANTIZE reading a DENSIFY output: "Dequantize for Densify is not supported". */
static void op_params_trigger3(lg_builder *b) {
    int w16 = lg_b_const(b, "w16", LG_FLOAT16, LG_DIMS(4, 4), wh, 32);
    mark_sparse(b, w16);
    int wd = lg_b_tensor(b, "w_dense", LG_FLOAT16, LG_DIMS(4, 4));
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 4));
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(b, LG_OP_DENSIFY, LG_IDS(w16), LG_IDS(wd));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(wd), LG_IDS(w));
    lg_b_op(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void op_params_nearmiss(lg_builder *b) { space_to_depth(b, 2); }

/* BATCH_MATMUL a[1,4,8] x constant c: rank 3 (classic: must be 2-D) or rank 2. */
static void bmm_const(lg_builder *b, int rank) {
    lg_batch_mat_mul_options bo;
    memset(&bo, 0, sizeof bo);
    int a = lg_b_tensor(b, "a", LG_FLOAT32, LG_DIMS(1, 4, 8));
    int c = rank == 2 ? lg_b_const_f32(b, "c", LG_DIMS(8, 4), wf) : lg_b_const_f32(b, "c", LG_DIMS(1, 8, 4), wf);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4));
    lg_b_op_opts(b, LG_OP_BATCH_MATMUL, LG_IDS(a, c), LG_IDS(y), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo);
    lg_b_io(b, LG_IDS(a), LG_IDS(y));
}

static void op_params_nearmiss2(lg_builder *b) { bmm_const(b, 3); }
static void op_params_nearmiss3(lg_builder *b) { bmm_const(b, 2); }

/* DEQUANTIZE of a FLOAT16 constant feeding a FULLY_CONNECTED (folded). */
static void op_params_nearmiss4(lg_builder *b) {
    int w16 = lg_b_const(b, "w16", LG_FLOAT16, LG_DIMS(4, 4), wh, 32);
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 4));
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(w16), LG_IDS(w));
    lg_b_op(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ------------------------------------------------------------------ resize-flags, resize-align-corners */

static void resize_bilinear(lg_builder *b, bool align, bool half) {
    int32_t s[2] = {16, 16};
    lg_resize_bilinear_options ro = {align, half};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int sz = lg_b_const_i32(b, "size", LG_DIMS(2), s);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 4));
    lg_b_op_opts(b, LG_OP_RESIZE_BILINEAR, LG_IDS(x, sz), LG_IDS(y), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &ro);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void resize_flags_trigger(lg_builder *b) { resize_bilinear(b, true, true); }
static void resize_flags_nearmiss(lg_builder *b) { resize_bilinear(b, false, true); }
static void resize_align_corners_trigger(lg_builder *b) { resize_bilinear(b, true, false); }
static void resize_align_corners_nearmiss(lg_builder *b) { resize_bilinear(b, false, false); }

/* ------------------------------------------------------------------ strided slices, slices */

static void strided_slice(lg_builder *b, lg_dims in, lg_dims out, const int32_t *begin, const int32_t *end,
                          const int32_t *strides, const lg_strided_slice_options *o) {
    lg_dims d1 = {(const int32_t[]){(int32_t)in.n}, 1};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int bg = lg_b_const_i32(b, "begin", d1, begin);
    int en = lg_b_const_i32(b, "end", d1, end);
    int st = lg_b_const_i32(b, "strides", d1, strides);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    lg_b_op_opts(b, LG_OP_STRIDED_SLICE, LG_IDS(x, bg, en, st), LG_IDS(y), LG_OPTS_STRIDED_SLICE_OPTIONS, o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static const int32_t ss_begin[4] = {0, 0, 0, 0}, ss_end[4] = {1, 8, 8, 4}, ss_ones[4] = {1, 1, 1, 1};

static void strided_slice_masks_trigger(lg_builder *b) {
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    o.shrink_axis_mask = 1;
    strided_slice(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(8, 8, 4), ss_begin, ss_end, ss_ones, &o);
}

static void strided_slice_masks_nearmiss(lg_builder *b) {
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    o.begin_mask = 1;
    o.end_mask = 1;
    strided_slice(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 8, 8, 4), ss_begin, ss_end, ss_ones, &o);
}

static void strided_slice_reverse_trigger(lg_builder *b) {
    const int32_t begin[4] = {0, 7, 0, 0}, end[4] = {1, 0, 8, 4}, rev[4] = {1, -1, 1, 1};
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    o.end_mask = 2;
    strided_slice(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 8, 8, 4), begin, end, rev, &o);
}

static void strided_slice_reverse_nearmiss(lg_builder *b) {
    const int32_t fwd[4] = {1, 2, 1, 1};
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    strided_slice(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 4, 8, 4), ss_begin, ss_end, fwd, &o);
}

static void slice(lg_builder *b, lg_dims in, lg_dims out) {
    int32_t zero[5] = {0, 0, 0, 0, 0};
    lg_dims d1 = {(const int32_t[]){(int32_t)in.n}, 1};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int bg = lg_b_const_i32(b, "begin", d1, zero);
    int sz = lg_b_const_i32(b, "size", d1, out.v);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    lg_b_op(b, LG_OP_SLICE, LG_IDS(x, bg, sz), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* On ML Drift SLICE and STRIDED_SLICE take ranks 1-4 (the delegate was seen to take rank-1 and
   rank-2 STRIDED_SLICEs, exactly), so the ML Drift triggers are rank 5 (tensor-rank fires too);
   the classic-only triggers, STRIDED_SLICE of rank 2 and 1, are near-misses. */
static void slice_rank_trigger(lg_builder *b) {
    const int32_t begin[5] = {0, 0, 0, 0, 0}, end[5] = {1, 2, 2, 2, 2}, strides[5] = {1, 1, 1, 1, 1};
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    strided_slice(b, LG_DIMS(1, 2, 2, 2, 4), LG_DIMS(1, 2, 2, 2, 2), begin, end, strides, &o);
}

static void slice_rank_trigger2(lg_builder *b) { slice(b, LG_DIMS(1, 2, 2, 2, 4), LG_DIMS(1, 2, 2, 2, 2)); }

static void slice_rank_nearmiss5(lg_builder *b) {
    const int32_t begin[2] = {0, 0}, end[2] = {4, 4}, strides[2] = {1, 1};
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    strided_slice(b, LG_DIMS(8, 4), LG_DIMS(4, 4), begin, end, strides, &o);
}

static void slice_rank_nearmiss6(lg_builder *b) {
    const int32_t begin[1] = {2}, end[1] = {6}, strides[1] = {1};
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    strided_slice(b, LG_DIMS(8), LG_DIMS(4), begin, end, strides, &o);
}

/* STRIDED_SLICE of a rank-3 tensor (the shared check's lower bound). */
static void slice_rank_nearmiss4(lg_builder *b) {
    const int32_t begin[3] = {0, 0, 0}, end[3] = {1, 4, 4}, strides[3] = {1, 1, 1};
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    strided_slice(b, LG_DIMS(1, 8, 4), LG_DIMS(1, 4, 4), begin, end, strides, &o);
}

static void slice_rank_nearmiss(lg_builder *b) { slice(b, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 4, 4, 4)); }
static void slice_rank_nearmiss2(lg_builder *b) { slice(b, LG_DIMS(1, 8, 4), LG_DIMS(1, 4, 4)); }
static void slice_rank_nearmiss3(lg_builder *b) { slice(b, LG_DIMS(8, 4), LG_DIMS(4, 4)); }

/* ------------------------------------------------------------------ transpose-perm, softmax-beta */

static void transpose_len(lg_builder *b, int four) {
    int32_t p1[1] = {0}, p4[4] = {0, 2, 1, 3};
    int x = four ? lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 4, 4)) : lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(8));
    int p = four ? lg_b_const_i32(b, "perm", LG_DIMS(4), p4) : lg_b_const_i32(b, "perm", LG_DIMS(1), p1);
    int y = four ? lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 8, 4)) : lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(8));
    lg_b_op(b, LG_OP_TRANSPOSE, LG_IDS(x, p), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void transpose_perm_trigger(lg_builder *b) { transpose_len(b, 0); }
static void transpose_perm_nearmiss(lg_builder *b) { transpose_len(b, 1); }

static void softmax_beta(lg_builder *b, float beta) {
    lg_softmax_options so = {beta};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 10));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 10));
    lg_b_op_opts(b, LG_OP_SOFTMAX, LG_IDS(x), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void softmax_beta_trigger(lg_builder *b) { softmax_beta(b, 0.5f); }
static void softmax_beta_nearmiss(lg_builder *b) { softmax_beta(b, 1.0f); }

/* ------------------------------------------------------------------ depthwise-shape */

/* x[1,8,8,4], filter [1,3,3,8], 8 output channels; right only with depth_multiplier 2. */
static void depthwise(lg_builder *b, int dm) {
    lg_depthwise_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 1;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    o.depth_multiplier = dm;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_const_f32(b, "w", LG_DIMS(1, 3, 3, 8), wf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(8), wf);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 8));
    lg_b_op_opts(b, LG_OP_DEPTHWISE_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void depthwise_shape_trigger(lg_builder *b) { depthwise(b, 1); }
static void depthwise_shape_nearmiss(lg_builder *b) { depthwise(b, 2); }

/* ------------------------------------------------------------------ pads */

static void pad_op(lg_builder *b, int32_t op, lg_dims in, lg_dims out, int rows, const lg_mirror_pad_options *mo) {
    int32_t pads[8] = {0, 0, 1, 1, 1, 1, 0, 0};
    lg_dims pd = {(const int32_t[]){rows, 2}, 2};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int p = lg_b_const_i32(b, "paddings", pd, rows == 4 ? pads : pads + 2);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    if (op == LG_OP_MIRROR_PAD) lg_b_op_opts(b, op, LG_IDS(x, p), LG_IDS(y), LG_OPTS_MIRROR_PAD_OPTIONS, mo);
    else lg_b_op(b, op, LG_IDS(x, p), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void mirror_pad_mode_trigger(lg_builder *b) {
    lg_mirror_pad_options sym = {LG_MIRROR_PAD_MODE_SYMMETRIC};
    pad_op(b, LG_OP_MIRROR_PAD, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 10, 10, 4), 4, &sym);
}

static void mirror_pad_mode_nearmiss(lg_builder *b) {
    lg_mirror_pad_options refl = {LG_MIRROR_PAD_MODE_REFLECT};
    pad_op(b, LG_OP_MIRROR_PAD, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 10, 10, 4), 4, &refl);
}

/* rows 2: pads {1,1},{1,1}: [8,4] -> [10,6] */
static void pad_shape_trigger(lg_builder *b) { pad_op(b, LG_OP_PAD, LG_DIMS(8, 4), LG_DIMS(10, 6), 2, NULL); }
static void pad_shape_nearmiss(lg_builder *b) { pad_op(b, LG_OP_PAD, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 10, 10, 4), 4, NULL); }
/* rows 3: pads {1,1},{1,1},{0,0}: [8,8,4] -> [10,10,4] */
static void pad_shape_nearmiss2(lg_builder *b) { pad_op(b, LG_OP_PAD, LG_DIMS(8, 8, 4), LG_DIMS(10, 10, 4), 3, NULL); }

/* ------------------------------------------------------------------ reductions */

static void reduce(lg_builder *b, int32_t op, lg_dims in, const int32_t *axes, uint32_t n_axes, lg_dims out) {
    lg_reducer_options ro = keep_dims(false);
    lg_dims ad = {(const int32_t[]){(int32_t)n_axes}, 1};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int ax = lg_b_const_i32(b, "axes", ad, axes);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    lg_b_op_opts(b, op, LG_IDS(x, ax), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static const int32_t ax4 = 4, axm1 = -1, ax2 = 2, ax12[2] = {1, 2};

static void reduce_axes_trigger(lg_builder *b) { reduce(b, LG_OP_MEAN, LG_DIMS(1, 8, 8, 4), &ax4, 1, LG_DIMS(1, 8, 8)); }
static void reduce_axes_nearmiss(lg_builder *b) { reduce(b, LG_OP_MEAN, LG_DIMS(1, 8, 8, 4), &axm1, 1, LG_DIMS(1, 8, 8)); }

static void large_multi_axis_reduce_trigger(lg_builder *b) { reduce(b, LG_OP_MEAN, LG_DIMS(1, 256, 256, 8), ax12, 2, LG_DIMS(1, 8)); }
static void large_multi_axis_reduce_trigger2(lg_builder *b) { reduce(b, LG_OP_SUM, LG_DIMS(1, 256, 256, 8), ax12, 2, LG_DIMS(1, 8)); }
static void large_multi_axis_reduce_nearmiss(lg_builder *b) { reduce(b, LG_OP_MEAN, LG_DIMS(1, 128, 128, 8), ax12, 2, LG_DIMS(1, 8)); }
static void large_multi_axis_reduce_nearmiss2(lg_builder *b) { reduce(b, LG_OP_MEAN, LG_DIMS(1, 256, 256, 8), &ax2, 1, LG_DIMS(1, 256, 8)); }
static void large_multi_axis_reduce_nearmiss3(lg_builder *b) { reduce(b, LG_OP_REDUCE_MAX, LG_DIMS(1, 256, 256, 8), ax12, 2, LG_DIMS(1, 8)); }

/* the fix: x.mean(2).mean(1) as two ops */
static void large_multi_axis_reduce_nearmiss4(lg_builder *b) {
    lg_reducer_options ro = keep_dims(false);
    const int32_t a1 = 1;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 256, 256, 8));
    int a2t = lg_b_const_i32(b, "axis2", LG_DIMS(1), &ax2);
    int a1t = lg_b_const_i32(b, "axis1", LG_DIMS(1), &a1);
    int h = lg_b_tensor(b, "h", LG_FLOAT32, LG_DIMS(1, 256, 8));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(x, a2t), LG_IDS(h), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(h, a1t), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ------------------------------------------------------------------ field rules */

static void mali_transpose_conv_trigger(lg_builder *b) { transpose_conv(b, LG_ACTIVATION_FUNCTION_TYPE_NONE, 0); }
static void mali_transpose_conv_trigger2(lg_builder *b) { transpose_conv(b, LG_ACTIVATION_FUNCTION_TYPE_NONE, 1); }
static void mali_transpose_conv_nearmiss(lg_builder *b) {
    lg_conv2d_options o = conv_opts(0);
    conv_with(b, &o);
}

/* MEAN over constant latents (every input constant) added to x; near-miss: over RELU(x). */
static void const_only(lg_builder *b, int rt) {
    lg_reducer_options ro = keep_dims(true);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    int lat = rt ? lg_b_tensor(b, "h", LG_FLOAT32, LG_DIMS(1, 4, 4, 4)) : lg_b_const_f32(b, "latents", LG_DIMS(1, 4, 4, 4), wf);
    int ax = lg_b_const_i32(b, "axes", LG_DIMS(2), ax12);
    int mn = lg_b_tensor(b, "mean", LG_FLOAT32, LG_DIMS(1, 1, 1, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    if (rt) lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(lat));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(lat, ax), LG_IDS(mn), LG_OPTS_REDUCER_OPTIONS, &ro);
    binop(b, LG_OP_ADD, x, mn, y);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void const_only_inputs_trigger(lg_builder *b) { const_only(b, 0); }
static void const_only_inputs_nearmiss(lg_builder *b) { const_only(b, 1); }

static void padv2_pool(lg_builder *b, float v) {
    int32_t pads[8] = {0, 0, 1, 1, 1, 1, 0, 0};
    lg_pool2d_options po;
    memset(&po, 0, sizeof po);
    po.padding = LG_PADDING_VALID;
    po.stride_w = po.stride_h = 1;
    po.filter_width = po.filter_height = 3;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int p = lg_b_const_i32(b, "paddings", LG_DIMS(4, 2), pads);
    int cv = lg_b_const_f32(b, "pad_value", LG_SCALAR, &v);
    int xp = lg_b_tensor(b, "xp", LG_FLOAT32, LG_DIMS(1, 10, 10, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_PADV2, LG_IDS(x, p, cv), LG_IDS(xp));
    lg_b_op_opts(b, LG_OP_MAX_POOL_2D, LG_IDS(xp), LG_IDS(y), LG_OPTS_POOL2D_OPTIONS, &po);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void padv2_nonzero_trigger(lg_builder *b) { padv2_pool(b, -INFINITY); }
static void padv2_nonzero_nearmiss(lg_builder *b) { padv2_pool(b, 0.0f); }

/* FULLY_CONNECTED output [4,16] (2-D) or [1,4,16] (keep_num_dims) times a [1,1,16] LayerScale. */
static void fc_scale(lg_builder *b, int three_d) {
    lg_fully_connected_options fo;
    memset(&fo, 0, sizeof fo);
    fo.keep_num_dims = three_d;
    int x = three_d ? lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 8)) : lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(4, 8));
    int w = lg_b_const_f32(b, "w", LG_DIMS(16, 8), wf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(16), wf);
    int f = three_d ? lg_b_tensor(b, "f", LG_FLOAT32, LG_DIMS(1, 4, 16)) : lg_b_tensor(b, "f", LG_FLOAT32, LG_DIMS(4, 16));
    int g = lg_b_const_f32(b, "gamma", LG_DIMS(1, 1, 16), wf + 100);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 16));
    lg_b_op_opts(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w, bi), LG_IDS(f), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    binop(b, LG_OP_MUL, f, g, y);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void fc_2d_broadcast_trigger(lg_builder *b) { fc_scale(b, 0); }
static void fc_2d_broadcast_nearmiss(lg_builder *b) { fc_scale(b, 1); }

/* x -> TANH x n -> y (op i reads op i-1's output). */
static void tanh_chain(lg_builder *b, int n) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int prev = x;
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "a%d", i);
        int t = lg_b_tensor(b, name, LG_FLOAT32, LG_DIMS(1, 4));
        lg_b_op(b, LG_OP_TANH, LG_IDS(prev), LG_IDS(t));
        prev = t;
    }
    lg_b_io(b, LG_IDS(x), LG_IDS(prev));
}

/* 10 ops, checked with --max-gpu-ops 4 (the manifest's check_args): a chain over the default
   limit (1001 ops) is fully delegated on WebGPU too, but SwiftShader spends ~85 s compiling its
   shaders, too slow for a test. The near-miss is the same chain under the default limit. */
static void graph_size_trigger(lg_builder *b) { tanh_chain(b, 10); }
static void graph_size_nearmiss(lg_builder *b) { tanh_chain(b, 10); }

static void cast(lg_builder *b, lg_dtype in, lg_dtype out) {
    int x = lg_b_tensor(b, "x", in, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", out, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_CAST, LG_IDS(x), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ------------------------------------------------------------------ classic-only rules, ML Drift's side */

/* cast-types and compare-consumer are classic-only: ML Drift skips the compatibility check for
   CAST and has no comparison-consumer rule. Their unit-test triggers are near-misses here. */

/* f32 -> CAST -> FLOAT16 -> CAST -> INT32 (classic: "Not supported Cast case" f16 -> i32). */
static void cast_types_nearmiss(lg_builder *b) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int h = lg_b_tensor(b, "h", LG_FLOAT16, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_INT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_CAST, LG_IDS(x), LG_IDS(h));
    lg_b_op(b, LG_OP_CAST, LG_IDS(h), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* x -> CMP(x, 0.5) -> n_casts x CAST(bool -> f32) [-> RELU when relu_after]. */
static void compare_chain(lg_builder *b, int32_t cmp, int n_casts, int relu_after) {
    const float half = 0.5f;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int th = lg_b_const_f32(b, "threshold", LG_DIMS(1), &half);
    int c = lg_b_tensor(b, "mask", LG_BOOL, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, cmp, LG_IDS(x, th), LG_IDS(c));
    int outs[2] = {c, c};
    for (int i = 0; i < n_casts; i++) {
        int f = lg_b_tensor(b, i ? "maskf2" : "maskf", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        lg_b_op(b, LG_OP_CAST, LG_IDS(c), LG_IDS(f));
        outs[i] = f;
        if (relu_after) {
            int r = lg_b_tensor(b, i ? "r2" : "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
            lg_b_op(b, LG_OP_RELU, LG_IDS(f), LG_IDS(r));
            outs[i] = r;
        }
    }
    if (n_casts == 2) lg_b_io(b, LG_IDS(x), LG_IDS(outs[0], outs[1]));
    else lg_b_io(b, LG_IDS(x), LG_IDS(outs[0]));
}

/* INT32 graph input -> CAST -> f32 */
static void cast_types_nearmiss2(lg_builder *b) { cast(b, LG_INT32, LG_FLOAT32); }
/* LESS -> CAST -> graph output (classic: "Cast from bool not supported for outputs") */
static void cast_types_nearmiss3(lg_builder *b) { compare_chain(b, LG_OP_LESS, 1, 0); }
/* GREATER feeding two CASTs (classic: "Not supported logical op case") */
static void compare_consumer_nearmiss(lg_builder *b) { compare_chain(b, LG_OP_GREATER, 2, 1); }

/* ------------------------------------------------------------------ int64-tensor, gather-const-indices, field-banned-op */

/* f32 -> CAST -> INT64 -> CAST -> f32 (LiteRT.js takes no INT64 graph output). */
static void int64_tensor_trigger(lg_builder *b) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int i = lg_b_tensor(b, "i64", LG_INT64, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_CAST, LG_IDS(x), LG_IDS(i));
    lg_b_op(b, LG_OP_CAST, LG_IDS(i), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}
static void int64_tensor_nearmiss(lg_builder *b) { cast(b, LG_FLOAT32, LG_INT32); }

/* GATHER on channels after a RELU: 0 two constant indices, 1 one, 2 runtime indices. */
static void gather_kind(lg_builder *b, int kind) {
    lg_gather_options go = {3, 0};
    const int32_t i2[2] = {0, 2};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int i = kind == 0 ? lg_b_const_i32(b, "idx", LG_DIMS(2), i2)
            : kind == 1 ? lg_b_const_i32(b, "idx", LG_DIMS(1), i2)
                        : lg_b_tensor(b, "idx", LG_INT32, LG_DIMS(2));
    int y = kind == 1 ? lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 1)) : lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 2));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op_opts(b, LG_OP_GATHER, LG_IDS(r, i), LG_IDS(y), LG_OPTS_GATHER_OPTIONS, &go);
    if (kind == 2) lg_b_io(b, LG_IDS(x, i), LG_IDS(y));
    else lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* x[in] -> GATHER(axis, constant indices {0, 2}) -> y[out], straight from the graph input. */
static void gather2(lg_builder *b, int axis, lg_dims in, lg_dims out) {
    lg_gather_options go = {axis, 0};
    const int32_t i2[2] = {0, 2};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int i = lg_b_const_i32(b, "idx", LG_DIMS(2), i2);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    lg_b_op_opts(b, LG_OP_GATHER, LG_IDS(x, i), LG_IDS(y), LG_OPTS_GATHER_OPTIONS, &go);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static void gather_const_indices_trigger(lg_builder *b) { gather_kind(b, 0); }
/* rows of a 2-D tensor; spatial (H) axis of a 4-D one */
static void gather_const_indices_trigger2(lg_builder *b) { gather2(b, 0, LG_DIMS(8, 4), LG_DIMS(2, 4)); }
static void gather_const_indices_trigger3(lg_builder *b) { gather2(b, 1, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 2, 8, 4)); }
static void gather_const_indices_nearmiss(lg_builder *b) { gather_kind(b, 1); }
static void gather_const_indices_nearmiss2(lg_builder *b) { gather_kind(b, 2); }

/* SPLIT in two along channels (the GLU form), one half through a RELU. */
static void field_banned_op_trigger(lg_builder *b) {
    int32_t axis_v[1] = {3};
    lg_split_options so = {2};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 8));
    int ax = lg_b_const_i32(b, "axis", LG_SCALAR, axis_v);
    int a = lg_b_tensor(b, "a", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    int g = lg_b_tensor(b, "g", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    lg_b_op_opts(b, LG_OP_SPLIT, LG_IDS(ax, x), LG_IDS(a, g), LG_OPTS_SPLIT_OPTIONS, &so);
    lg_b_op(b, LG_OP_RELU, LG_IDS(a), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y, g));
}

/* TOPK_V2: values and INT32 indices. */
static void field_banned_op_trigger2(lg_builder *b) {
    int32_t kv[1] = {2};
    int in = lg_b_tensor(b, "in", LG_FLOAT32, LG_DIMS(1, 8));
    int kk = lg_b_const_i32(b, "k", LG_SCALAR, kv);
    int v = lg_b_tensor(b, "v", LG_FLOAT32, LG_DIMS(1, 2));
    int ix = lg_b_tensor(b, "i", LG_INT32, LG_DIMS(1, 2));
    lg_b_op(b, LG_OP_TOPK_V2, LG_IDS(in, kk), LG_IDS(v, ix));
    lg_b_io(b, LG_IDS(in), LG_IDS(v, ix));
}

/* x -> GREATER(x, 0.5) -> CAST(bool -> f32) -> RELU: a comparison feeding one CAST. */
static void field_banned_op_trigger3(lg_builder *b) {
    const float half = 0.5f;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int th = lg_b_const_f32(b, "threshold", LG_DIMS(1), &half);
    int c = lg_b_tensor(b, "mask", LG_BOOL, LG_DIMS(1, 8, 8, 4));
    int f = lg_b_tensor(b, "maskf", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_GREATER, LG_IDS(x, th), LG_IDS(c));
    lg_b_op(b, LG_OP_CAST, LG_IDS(c), LG_IDS(f));
    lg_b_op(b, LG_OP_RELU, LG_IDS(f), LG_IDS(r));
    lg_b_io(b, LG_IDS(x), LG_IDS(r));
}

static void field_banned_op_nearmiss(lg_builder *b) { unary(b, LG_OP_RELU, 1, LG_FLOAT32, LG_DIMS(1, 8)); }

/* ------------------------------------------------------------------ fp16 numerics */

/* examples/make_examples.c's layernorm_512 with the input mapped to x * 350 - 175 first. */
static void fp16_layernorm(lg_builder *b) {
    enum { C = 512 };
    static float gamma[C], beta[C];
    for (int i = 0; i < C; i++) {
        gamma[i] = 1.0f + (float)(i % 7) / 16.0f;
        beta[i] = (float)(i % 5) / 32.0f;
    }
    int32_t axis_v[1] = {3};
    float eps_v = 1e-6f, scale_v = 350.0f, shift_v = -175.0f;
    lg_reducer_options keep = {true};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int scale = lg_b_const_f32(b, "in/scale", LG_DIMS(1), &scale_v);
    int shift = lg_b_const_f32(b, "in/shift", LG_DIMS(1), &shift_v);
    int xs = lg_b_tensor(b, "in/scaled", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int xa = lg_b_tensor(b, "in/act", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
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
    binop(b, LG_OP_MUL, x, scale, xs);
    binop(b, LG_OP_ADD, xs, shift, xa);
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(xa, ax), LG_IDS(mu), LG_OPTS_REDUCER_OPTIONS, &keep);
    lg_b_op(b, LG_OP_SUB, LG_IDS(xa, mu), LG_IDS(d));
    lg_b_op(b, LG_OP_MUL, LG_IDS(d, d), LG_IDS(sq));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(sq, ax), LG_IDS(var), LG_OPTS_REDUCER_OPTIONS, &keep);
    lg_b_op(b, LG_OP_ADD, LG_IDS(var, eps), LG_IDS(ve));
    lg_b_op(b, LG_OP_RSQRT, LG_IDS(ve), LG_IDS(r));
    lg_b_op(b, LG_OP_MUL, LG_IDS(d, r), LG_IDS(nrm));
    lg_b_op(b, LG_OP_MUL, LG_IDS(nrm, g), LG_IDS(sc));
    lg_b_op(b, LG_OP_ADD, LG_IDS(sc, be), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ------------------------------------------------------------------ the table */

typedef struct rule_case {
    const char *rule;
    const char *variant; /* trigger, trigger2, nearmiss, ... */
    void (*build)(lg_builder *);
    const char *check_args; /* extra `litegpu check` arguments, or NULL */
} rule_case;

#define T(rule, fn, v) {rule, v, fn, NULL}
#define TA(rule, fn, v, args) {rule, v, fn, args}

static const rule_case cases[] = {
    T("op-unsupported", op_unsupported_trigger, "trigger"),
    T("op-unsupported", op_unsupported_trigger2, "trigger2"),
    T("op-unsupported", op_unsupported_trigger3, "trigger3"),
    T("op-unsupported", op_unsupported_nearmiss, "nearmiss"),
    T("op-unsupported", op_unsupported_nearmiss2, "nearmiss2"),
    T("op-unsupported", op_unsupported_nearmiss3, "nearmiss3"),
    T("op-no-compat-case", op_no_compat_case_trigger, "trigger"),
    T("op-no-compat-case", op_no_compat_case_trigger2, "trigger2"),
    T("op-no-compat-case", op_no_compat_case_nearmiss, "nearmiss"),
    T("custom-op-unsupported", custom_op_unsupported_trigger, "trigger"),
    T("custom-op-unsupported", custom_op_unsupported_nearmiss, "nearmiss"),
    T("op-version", op_version_trigger, "trigger"),
    T("op-version", op_version_trigger2, "trigger2"),
    T("op-version", op_version_nearmiss, "nearmiss"),
    T("op-version", op_version_nearmiss2, "nearmiss2"),
    T("op-version", op_version_nearmiss3, "nearmiss3"),
    T("tensor-rank", tensor_rank_trigger, "trigger"),
    T("tensor-rank", tensor_rank_nearmiss, "nearmiss"),
    T("tensor-dtype", tensor_dtype_trigger, "trigger"),
    T("tensor-dtype", tensor_dtype_nearmiss, "nearmiss"),
    T("tensor-dtype", tensor_dtype_nearmiss2, "nearmiss2"),
    T("quant-per-channel-runtime", quant_per_channel_runtime_trigger, "trigger"),
    T("quant-per-channel-runtime", quant_per_channel_runtime_nearmiss, "nearmiss"),
    T("quant-per-channel-runtime", quant_per_channel_runtime_nearmiss2, "nearmiss2"),
    T("fused-activation", fused_activation_trigger, "trigger"),
    T("fused-activation", fused_activation_nearmiss, "nearmiss"),
    T("fused-activation", fused_activation_nearmiss2, "nearmiss2"),
    T("fused-activation", fused_activation_nearmiss3, "nearmiss3"),
    T("fused-activation", fused_activation_nearmiss4, "nearmiss4"),
    T("fused-activation", fused_activation_nearmiss5, "nearmiss5"),
    T("broadcast", broadcast_trigger, "trigger"),
    T("broadcast", broadcast_trigger2, "trigger2"),
    T("broadcast", broadcast_nearmiss, "nearmiss"),
    T("broadcast", broadcast_nearmiss2, "nearmiss2"),
    T("broadcast", broadcast_nearmiss3, "nearmiss3"),
    T("broadcast", broadcast_nearmiss4, "nearmiss4"),
    T("broadcast", broadcast_nearmiss5, "nearmiss5"),
    T("broadcast", broadcast_nearmiss6, "nearmiss6"),
    T("input-count", input_count_trigger, "trigger"),
    T("input-count", input_count_trigger2, "trigger2"),
    T("input-count", input_count_nearmiss, "nearmiss"),
    T("input-count", input_count_nearmiss2, "nearmiss2"),
    T("input-count", input_count_nearmiss3, "nearmiss3"),
    T("const-axes", const_axes_trigger, "trigger"),
    T("const-axes", const_axes_trigger2, "trigger2"),
    T("const-axes", const_axes_nearmiss, "nearmiss"),
    T("dynamic-tensor", dynamic_tensor_trigger, "trigger"),
    T("dynamic-tensor", dynamic_tensor_trigger2, "trigger2"),
    T("dynamic-tensor", dynamic_tensor_nearmiss, "nearmiss"),
    T("dynamic-tensor", dynamic_tensor_nearmiss2, "nearmiss2"),
    T("dynamic-input", dynamic_input_trigger, "trigger"),
    T("dynamic-input", dynamic_input_nearmiss, "nearmiss"),
    T("identical-inputs", identical_inputs_trigger, "trigger"),
    T("identical-inputs", identical_inputs_trigger2, "trigger2"),
    T("identical-inputs", identical_inputs_nearmiss, "nearmiss"),
    T("identical-inputs", identical_inputs_nearmiss2, "nearmiss2"),
    T("identical-inputs", identical_inputs_nearmiss3, "nearmiss3"),
    T("op-params", op_params_trigger, "trigger"),
    T("op-params", op_params_trigger2, "trigger2"),
    T("op-params", op_params_trigger3, "trigger3"),
    T("op-params", op_params_nearmiss, "nearmiss"),
    T("op-params", op_params_nearmiss2, "nearmiss2"),
    T("op-params", op_params_nearmiss3, "nearmiss3"),
    T("op-params", op_params_nearmiss4, "nearmiss4"),
    T("resize-flags", resize_flags_trigger, "trigger"),
    T("resize-flags", resize_flags_nearmiss, "nearmiss"),
    T("strided-slice-masks", strided_slice_masks_trigger, "trigger"),
    T("strided-slice-masks", strided_slice_masks_nearmiss, "nearmiss"),
    T("strided-slice-reverse", strided_slice_reverse_trigger, "trigger"),
    T("strided-slice-reverse", strided_slice_reverse_nearmiss, "nearmiss"),
    T("slice-rank", slice_rank_trigger, "trigger"),
    T("slice-rank", slice_rank_trigger2, "trigger2"),
    T("slice-rank", slice_rank_nearmiss, "nearmiss"),
    T("slice-rank", slice_rank_nearmiss2, "nearmiss2"),
    T("slice-rank", slice_rank_nearmiss3, "nearmiss3"),
    T("slice-rank", slice_rank_nearmiss4, "nearmiss4"),
    T("slice-rank", slice_rank_nearmiss5, "nearmiss5"),
    T("slice-rank", slice_rank_nearmiss6, "nearmiss6"),
    T("transpose-perm", transpose_perm_trigger, "trigger"),
    T("transpose-perm", transpose_perm_nearmiss, "nearmiss"),
    T("softmax-beta", softmax_beta_trigger, "trigger"),
    T("softmax-beta", softmax_beta_nearmiss, "nearmiss"),
    T("depthwise-shape", depthwise_shape_trigger, "trigger"),
    T("depthwise-shape", depthwise_shape_nearmiss, "nearmiss"),
    T("mirror-pad-mode", mirror_pad_mode_trigger, "trigger"),
    T("mirror-pad-mode", mirror_pad_mode_nearmiss, "nearmiss"),
    T("pad-shape", pad_shape_trigger, "trigger"),
    T("pad-shape", pad_shape_nearmiss, "nearmiss"),
    T("pad-shape", pad_shape_nearmiss2, "nearmiss2"),
    T("reduce-axes", reduce_axes_trigger, "trigger"),
    T("reduce-axes", reduce_axes_nearmiss, "nearmiss"),
    T("mali-transpose-conv", mali_transpose_conv_trigger, "trigger"),
    T("mali-transpose-conv", mali_transpose_conv_trigger2, "trigger2"),
    T("mali-transpose-conv", mali_transpose_conv_nearmiss, "nearmiss"),
    T("const-only-inputs", const_only_inputs_trigger, "trigger"),
    T("const-only-inputs", const_only_inputs_nearmiss, "nearmiss"),
    T("padv2-nonzero", padv2_nonzero_trigger, "trigger"),
    T("padv2-nonzero", padv2_nonzero_nearmiss, "nearmiss"),
    T("large-multi-axis-reduce", large_multi_axis_reduce_trigger, "trigger"),
    T("large-multi-axis-reduce", large_multi_axis_reduce_trigger2, "trigger2"),
    T("large-multi-axis-reduce", large_multi_axis_reduce_nearmiss, "nearmiss"),
    T("large-multi-axis-reduce", large_multi_axis_reduce_nearmiss2, "nearmiss2"),
    T("large-multi-axis-reduce", large_multi_axis_reduce_nearmiss3, "nearmiss3"),
    T("large-multi-axis-reduce", large_multi_axis_reduce_nearmiss4, "nearmiss4"),
    T("fc-2d-broadcast", fc_2d_broadcast_trigger, "trigger"),
    T("fc-2d-broadcast", fc_2d_broadcast_nearmiss, "nearmiss"),
    T("resize-align-corners", resize_align_corners_trigger, "trigger"),
    T("resize-align-corners", resize_align_corners_nearmiss, "nearmiss"),
    TA("graph-size", graph_size_trigger, "trigger", "--max-gpu-ops 4"),
    T("graph-size", graph_size_nearmiss, "nearmiss"),
    T("cast-types", cast_types_nearmiss, "nearmiss"),
    T("cast-types", cast_types_nearmiss2, "nearmiss2"),
    T("cast-types", cast_types_nearmiss3, "nearmiss3"),
    T("compare-consumer", compare_consumer_nearmiss, "nearmiss"),
    T("int64-tensor", int64_tensor_trigger, "trigger"),
    T("int64-tensor", int64_tensor_nearmiss, "nearmiss"),
    T("gather-const-indices", gather_const_indices_trigger, "trigger"),
    T("gather-const-indices", gather_const_indices_trigger2, "trigger2"),
    T("gather-const-indices", gather_const_indices_trigger3, "trigger3"),
    T("gather-const-indices", gather_const_indices_nearmiss, "nearmiss"),
    T("gather-const-indices", gather_const_indices_nearmiss2, "nearmiss2"),
    T("field-banned-op", field_banned_op_trigger, "trigger"),
    T("field-banned-op", field_banned_op_trigger2, "trigger2"),
    T("field-banned-op", field_banned_op_trigger3, "trigger3"),
    T("field-banned-op", field_banned_op_nearmiss, "nearmiss"),
};

static int write_model(const char *path, void (*build)(lg_builder *)) {
    return lgt_write_model("make_rule_models", path, build);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_rule_models DIR\n");
        return 1;
    }
    init_data();
    char path[1024];
    snprintf(path, sizeof path, "%s/manifest.tsv", argv[1]);
    FILE *man = fopen(path, "w");
    if (!man) {
        fprintf(stderr, "make_rule_models: cannot write %s\n", path);
        return 1;
    }
    fprintf(man, "file\trule\tkind\tcheck_args\n");
    int rc = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const rule_case *c = &cases[i];
        char file[256];
        snprintf(file, sizeof file, "%s__%s.tflite", c->rule, c->variant);
        snprintf(path, sizeof path, "%s/%s", argv[1], file);
        if (write_model(path, c->build)) { rc = 1; continue; }
        fprintf(man, "%s\t%s\t%s\t%s\n", file, c->rule, strncmp(c->variant, "trigger", 7) == 0 ? "trigger" : "nearmiss",
                c->check_args ? c->check_args : "");
    }
    if (fclose(man) != 0) {
        fprintf(stderr, "make_rule_models: cannot write the manifest\n");
        rc = 1;
    }
    snprintf(path, sizeof path, "%s/fp16__layernorm.tflite", argv[1]);
    rc |= write_model(path, fp16_layernorm);
    return rc;
}
