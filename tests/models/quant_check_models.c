/* The quantized-model rule models (quant_check_models.h). Shapes are the ones TFLite's kernel
 * Prepare computes; the op versions are what TFLite's op_version.cc assigns (cited per
 * model) unless the model is about a stored version. */
#include "quant_check_models.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ helpers */

static void set_quant(lg_builder *b, int t, const float *s, const int64_t *z, uint32_t n, int32_t dim) {
    if (b->status != LG_OK || t < 0) return;
    lg_error e;
    lg_status st = lg_tensor_set_quant(b->m, b->sg, (uint32_t)t, s, z, n, dim, &e);
    if (st != LG_OK) {
        b->status = st;
        b->err = e;
    }
}

static int64_t numel(lg_dims sh) {
    int64_t n = 1;
    for (uint32_t d = 0; d < sh.n; d++) n *= sh.v[d];
    return n;
}

/* An INT8 (signed values in [-50, 49]) or UINT8 ([0, 249], zero point 128) constant of shape
   sh, per tensor (scale 0.01) or, with pc, per channel along dimension 0 (scales 0.01,
   0.02, ...). */
static int q8_const(lg_builder *b, const char *name, lg_dtype ty, lg_dims sh, int pc) {
    int64_t n = numel(sh);
    uint8_t *d = malloc((size_t)n);
    if (!d) {
        b->status = LG_ERR_NOMEM;
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        d[i] = ty == LG_UINT8 ? (uint8_t)((i * 37 + 11) % 250) : (uint8_t)(int8_t)((i * 29 + 7) % 100 - 50);
    int t = lg_b_const(b, name, ty, sh, d, (uint64_t)n);
    free(d);
    float s[64];
    int64_t z[64];
    uint32_t nc = pc ? (uint32_t)sh.v[0] : 1;
    for (uint32_t k = 0; k < nc && k < 64; k++) {
        s[k] = 0.01f * (float)(k + 1);
        z[k] = ty == LG_UINT8 ? 128 : 0;
    }
    set_quant(b, t, s, z, nc, 0);
    return t;
}

/* x = DEQUANTIZE(c) at version v: the float tensor the op under test reads. */
static int dequantize(lg_builder *b, int c, lg_dims sh, int v) {
    int w = lg_b_tensor(b, "w", LG_FLOAT32, sh);
    lg_b_op_v(b, LG_OP_DEQUANTIZE, v, LG_IDS(c), LG_IDS(w), LG_OPTS_NONE, NULL);
    return w;
}

enum { NO_BIAS, BIAS, ZERO_BIAS };

/* y = FULLY_CONNECTED(x, w [O,I], bias) with x of shape in; keep_num_dims keeps in's rank
   (FC version 5, op_version.cc: keep_num_dims), else y is [rows, O] (version 1). The bias [O]:
   none (an omitted input), 0.1 (k % 7) - 0.3 for output k (-0.3 for k = 0), or zeros. */
static void fully_connected(lg_builder *b, int x, lg_dims in, int w, int O, int keep, int bias_kind) {
    float bias[64];
    for (int k = 0; k < 64; k++) bias[k] = bias_kind == ZERO_BIAS ? 0.0f : 0.1f * (float)(k % 7) - 0.3f;
    int bi = bias_kind == NO_BIAS ? -1 : lg_b_const_f32(b, "b", LG_DIMS(O), bias);
    int32_t osh[4];
    uint32_t on = 2;
    if (keep) {
        on = in.n;
        for (uint32_t d = 0; d < in.n; d++) osh[d] = in.v[d];
        osh[on - 1] = O;
    } else {
        osh[0] = (int32_t)(numel(in) / in.v[in.n - 1]);
        osh[1] = O;
    }
    int y = lg_b_tensor(b, "y", LG_FLOAT32, (lg_dims){osh, on});
    lg_fully_connected_options o;
    memset(&o, 0, sizeof o);
    o.keep_num_dims = keep != 0;
    lg_b_op_v(b, LG_OP_FULLY_CONNECTED, keep ? 5 : 1, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* FC(x of shape in, DEQUANTIZE(INT8 per-tensor weights [O,I]) at version v, bias). */
static void fc_int8(lg_builder *b, lg_dims in, int O, int v, int keep, int bias_kind) {
    int I = in.v[in.n - 1];
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int w = dequantize(b, q8_const(b, "w_int8", LG_INT8, LG_DIMS(O, I), 0), LG_DIMS(O, I), v);
    fully_connected(b, x, in, w, O, keep, bias_kind);
}

/* FC(x [1,8], weights [4,8] a graph input, bias). */
static void fc_runtime_weights(lg_builder *b, int bias_kind) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8));
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 8));
    float bias[4] = {-0.3f, -0.2f, -0.1f, 0.0f};
    if (bias_kind == ZERO_BIAS) memset(bias, 0, sizeof bias);
    int bi = bias_kind == NO_BIAS ? -1 : lg_b_const_f32(b, "b", LG_DIMS(4), bias);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_fully_connected_options o;
    memset(&o, 0, sizeof o);
    lg_b_op_v(b, LG_OP_FULLY_CONNECTED, 1, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x, w), LG_IDS(y));
}

/* y = code(x, DEQUANTIZE(constant of shape sh, type ty)), x of shape sh. DEQUANTIZE is version
   2 for INT8, 1 for UINT8 (op_version.cc). */
static void binary_dq(lg_builder *b, int code, lg_dtype ty, lg_dims sh) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, sh);
    int k = dequantize(b, q8_const(b, "k_q", ty, sh, 0), sh, ty == LG_UINT8 ? 1 : 2);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, sh);
    if (code == LG_OP_ADD) {
        lg_add_options o = {LG_ACTIVATION_FUNCTION_TYPE_NONE, false};
        lg_b_op_v(b, code, 1, LG_IDS(x, k), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &o);
    } else {
        lg_mul_options o = {LG_ACTIVATION_FUNCTION_TYPE_NONE};
        lg_b_op_v(b, code, 1, LG_IDS(x, k), LG_IDS(y), LG_OPTS_MUL_OPTIONS, &o);
    }
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* CONV_2D(x [1,4,4,3], DEQUANTIZE(w [2,3,3,3]) at version v, bias [2]) -> [1,4,4,2], SAME.
   w: INT8 or INT4 (packed two per byte, low nibble first), per channel (2 scales) or not. */
static void conv_dq(lg_builder *b, lg_dtype ty, int pc, int v) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 3));
    int wq;
    if (ty == LG_INT4) {
        uint8_t d[27];
        for (int i = 0; i < 27; i++) d[i] = (uint8_t)(((i * 5) % 15) | (((i * 3 + 1) % 15) << 4));
        wq = lg_b_const(b, "w_int4", LG_INT4, LG_DIMS(2, 3, 3, 3), d, sizeof d);
        const float s[2] = {0.05f, 0.1f};
        const int64_t z[2] = {0, 0};
        set_quant(b, wq, s, z, pc ? 2 : 1, 0);
    } else {
        wq = q8_const(b, "w_int8", LG_INT8, LG_DIMS(2, 3, 3, 3), pc);
    }
    int w = dequantize(b, wq, LG_DIMS(2, 3, 3, 3), v);
    int bi = lg_b_const_f32(b, "b", LG_DIMS(2), (const float[]){0.1f, -0.2f});
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    lg_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 1;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    lg_b_op_v(b, LG_OP_CONV_2D, 1, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* A quantized activation [1,4,4,3] of type ty (scale 1/255; zero point 0 for UINT8, -128 for
   INT8: [0, 1) exactly). */
static int q_act(lg_builder *b, const char *name, lg_dtype ty) {
    int t = lg_b_tensor(b, name, ty, LG_DIMS(1, 4, 4, 3));
    const float s = 1.0f / 255.0f;
    const int64_t z = ty == LG_UINT8 ? 0 : -128;
    set_quant(b, t, &s, &z, 1, 0);
    return t;
}

/* [float x -> QUANTIZE ->] q -> RELU -> r [-> DEQUANTIZE -> float y]: quantized input when
   qin (else QUANTIZE from float), quantized output when qout (else DEQUANTIZE to float).
   RELU on INT8/UINT8 is version 2, QUANTIZE to UINT8/INT8 version 1, DEQUANTIZE of UINT8 1
   and of INT8 2 (op_version.cc). */
static void relu_io(lg_builder *b, lg_dtype ty, int qin, int qout) {
    int x, q;
    if (qin) {
        x = q = q_act(b, "x", ty);
    } else {
        x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 3));
        q = q_act(b, "xq", ty);
        lg_b_op_v(b, LG_OP_QUANTIZE, 1, LG_IDS(x), LG_IDS(q), LG_OPTS_NONE, NULL);
    }
    int r = q_act(b, qout ? "y" : "r", ty);
    lg_b_op_v(b, LG_OP_RELU, 2, LG_IDS(q), LG_IDS(r), LG_OPTS_NONE, NULL);
    int y = r;
    if (!qout) {
        y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 3));
        lg_b_op_v(b, LG_OP_DEQUANTIZE, ty == LG_UINT8 ? 1 : 2, LG_IDS(r), LG_IDS(y), LG_OPTS_NONE, NULL);
    }
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ------------------------------------------------------------------ dequantize-const-shape */

/* FC weights [4,8] INT8: ML Drift builds {1,1,4,8}, reads {4,1,1,8} (seen: "Shape mismatch"). */
void lgq_dqc_trigger(lg_builder *b) { fc_int8(b, LG_DIMS(1, 8), 4, 2, 0, NO_BIAS); }
/* keep_num_dims over [1,3,8], DEQUANTIZE stored at version 1 (seen: the same mismatch). */
void lgq_dqc_trigger2(lg_builder *b) { fc_int8(b, LG_DIMS(1, 3, 8), 4, 1, 1, NO_BIAS); }
/* A rank-3 INT8 [2,3,4] operand of ADD: built {1,2,3,4}, read {2,1,3,4}. */
void lgq_dqc_trigger3(lg_builder *b) { binary_dq(b, LG_OP_ADD, LG_INT8, LG_DIMS(2, 3, 4)); }
/* A rank-2 UINT8 [4,8] operand of MUL. */
void lgq_dqc_trigger4(lg_builder *b) { binary_dq(b, LG_OP_MUL, LG_UINT8, LG_DIMS(4, 8)); }
/* BATCH_MATMUL(x [1,3,8], DEQUANTIZE(INT8 [8,4])) -> [1,3,4]. */
void lgq_dqc_trigger5(lg_builder *b) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 3, 8));
    int w = dequantize(b, q8_const(b, "w_int8", LG_INT8, LG_DIMS(8, 4), 0), LG_DIMS(8, 4), 2);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 3, 4));
    lg_batch_mat_mul_options o;
    memset(&o, 0, sizeof o);
    lg_b_op_v(b, LG_OP_BATCH_MATMUL, 1, LG_IDS(x, w), LG_IDS(y), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}
/* hand_landmark_lite's landmark head, as `quantize --per-tensor` stores it: [1,672] x [63,672]
   and a bias (so fc-runtime-weights-bias too). */
void lgq_dqc_trigger6(lg_builder *b) { fc_int8(b, LG_DIMS(1, 672), 63, 2, 0, BIAS); }
/* Weights of one row [1,8]: {1,1,1,8} both ways (ML Drift builds it; classic: rank 2); a zero
   bias (a non-zero one is fc-runtime-weights-bias__trigger2). */
void lgq_dqc_nearmiss(lg_builder *b) { fc_int8(b, LG_DIMS(1, 8), 1, 2, 0, ZERO_BIAS); }
/* A rank-3 [1,3,4] operand: {1,1,3,4} both ways (classic: rank 3). */
void lgq_dqc_nearmiss2(lg_builder *b) { binary_dq(b, LG_OP_ADD, LG_INT8, LG_DIMS(1, 3, 4)); }
/* A rank-4 [2,3,4,5] operand: BHWC both ways, on both delegates. */
void lgq_dqc_nearmiss3(lg_builder *b) { binary_dq(b, LG_OP_ADD, LG_INT8, LG_DIMS(2, 3, 4, 5)); }
/* FLOAT16 weights [4,8] through DEQUANTIZE (version 3): folded by both delegates. */
void lgq_dqc_nearmiss4(lg_builder *b) {
    uint16_t h[32];
    for (int i = 0; i < 32; i++) h[i] = (uint16_t)(0x3800 + (i % 5) * 0x100); /* 0.5, 0.625, ... */
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8));
    int w = dequantize(b, lg_b_const(b, "w16", LG_FLOAT16, LG_DIMS(4, 8), h, sizeof h), LG_DIMS(4, 8), 3);
    fully_connected(b, x, LG_DIMS(1, 8), w, 4, 0, BIAS);
}
/* FC weights [4,8] a graph input (runtime), no bias: no constant to build. */
void lgq_dqc_nearmiss5(lg_builder *b) { fc_runtime_weights(b, NO_BIAS); }
/* INT8 per-tensor conv weights [2,3,3,3] (rank 4), DEQUANTIZE version 2. */
void lgq_dqc_nearmiss6(lg_builder *b) { conv_dq(b, LG_INT8, 0, 2); }

/* ------------------------------------------------------------------ fc-runtime-weights-bias */

/* Weights a graph input [4,8], bias [-0.3,-0.2,-0.1,0]: ML Drift drops the bias. */
void lgq_frw_trigger(lg_builder *b) { fc_runtime_weights(b, BIAS); }
/* INT8 weights of one row [1,8] through DEQUANTIZE, bias -0.3 (seen: GPU -0.16, CPU -0.46). */
void lgq_frw_trigger2(lg_builder *b) { fc_int8(b, LG_DIMS(1, 8), 1, 2, 0, BIAS); }
/* The same runtime weights with an all-zero bias: nothing to drop. */
void lgq_frw_nearmiss(lg_builder *b) { fc_runtime_weights(b, ZERO_BIAS); }
/* Float constant weights [4,8] and the bias: the constant path reads it. */
void lgq_frw_nearmiss2(lg_builder *b) {
    float w[32];
    for (int i = 0; i < 32; i++) w[i] = 0.05f * (float)(i % 9) - 0.2f;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8));
    fully_connected(b, x, LG_DIMS(1, 8), lg_b_const_f32(b, "w", LG_DIMS(4, 8), w), 4, 0, BIAS);
}

/* ------------------------------------------------------------------ quant-graph-output */

void lgq_qgo_trigger(lg_builder *b) { relu_io(b, LG_UINT8, 0, 1); }
void lgq_qgo_trigger2(lg_builder *b) { relu_io(b, LG_UINT8, 1, 1); }
void lgq_qgo_trigger3(lg_builder *b) { relu_io(b, LG_INT8, 0, 1); }
/* A UINT8 graph input (dequantized on the CPU, but the output is a GPU buffer). */
void lgq_qgo_nearmiss(lg_builder *b) { relu_io(b, LG_UINT8, 1, 0); }
void lgq_qgo_nearmiss2(lg_builder *b) { relu_io(b, LG_UINT8, 0, 0); }

/* ------------------------------------------------------------------ op-version-understated */

/* Per-channel INT8 conv weights through a DEQUANTIZE stored at version 2 (needs 5). */
void lgq_ovu_trigger(lg_builder *b) { conv_dq(b, LG_INT8, 1, 2); }
/* Per-channel INT4 weights stored at version 2 (needs 6); the classic parser reads no INT4. */
void lgq_ovu_trigger2(lg_builder *b) { conv_dq(b, LG_INT4, 1, 2); }
/* The same INT8 weights at version 5, as TFLite's converter stores them: op-version. */
void lgq_ovu_nearmiss(lg_builder *b) { conv_dq(b, LG_INT8, 1, 5); }
/* Per-tensor INT8 weights stored at version 1 (needs 2, within the max 3): nothing. */
void lgq_ovu_nearmiss2(lg_builder *b) { conv_dq(b, LG_INT8, 0, 1); }
/* Not a DEQUANTIZE: TRANSPOSE_CONV with a fused RELU (needs version 4) stored at 3 is judged on
   the computed version, op-version (seen: ML Drift takes it and ignores the activation). */
void lgq_ovu_nearmiss3(lg_builder *b) {
    float wf[64];
    for (int i = 0; i < 64; i++) wf[i] = (float)((i * 7) % 13 - 6) * 0.1f;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int s = lg_b_const_i32(b, "output_shape", LG_DIMS(4), (const int32_t[]){1, 16, 16, 4});
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 2, 2, 4), wf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(4), (const float[]){-1.0f, -0.5f, 0.2f, 0.4f});
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 4));
    lg_transpose_conv_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_VALID;
    o.stride_w = o.stride_h = 2;
    o.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU;
    lg_b_op_v(b, LG_OP_TRANSPOSE_CONV, 3, LG_IDS(s, w, x, bi), LG_IDS(y), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ------------------------------------------------------------------ the list */

static const lgq_model models[] = {
#define LGQ_ROW(fn, rule, variant, flags) {rule "__" variant, rule, variant, flags, lgq_##fn},
    LGQ_MODELS(LGQ_ROW)
#undef LGQ_ROW
};

const lgq_model *lgq_models(unsigned *n) {
    *n = (unsigned)(sizeof models / sizeof models[0]);
    return models;
}
