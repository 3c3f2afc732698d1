/* litegpu quantize --mode int8-dynamic (src/passes/quant_dynamic.c): which weights become
   INT8, in which form (read directly by the hybrid ops, or through DEQUANTIZE), per channel or
   per tensor, the 1024-element threshold and its near miss, asymmetric_quantize_inputs, the op
   versions TFLite assigns, FLOAT16 sources, and the result running in the interpreter. */
#include <stdlib.h>

#include "internal.h"
#include "lg/graph.h"
#include "lg/quantize.h"
#include "passes/quant_impl.h"
#include "tf.h"
#include "util/half.h"

/* x [1,4,4,16] -> CONV_2D 1x1 (w [64,1,1,16]: 1024 elements) -> DEPTHWISE_CONV_2D 4x4 VALID
   (w [1,4,4,64]: 1024) -> [1,1,1,64] -> FULLY_CONNECTED (w [16,64]: 1024) -> y1;
   z [1,341] -> FULLY_CONNECTED (w [3,341]: 1023, one short) -> y2;
   u [1,2,32] -> BATCH_MATMUL with a constant rhs [32,32] -> y3;
   ids [2] -> GATHER of a constant table [32,32] -> y4.
   fp16: the conv weights and bias are FLOAT16 constants read through DEQUANTIZE. */
static float wv(int i) { return (float)((i * 37) % 23 - 11) / 8.0f; } /* exact halves */

static lg_model *dyn_model(bool fp16) {
    lg_model *m = NULL;
    lg_error e;
    if (lg_model_new(NULL, NULL, &m, &e) != LG_OK) return NULL;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    static float cw[1024], dw[1024], fw[1024], sw[1023], bw[1024], tw[1024], cb[64], db[64], fb[16];
    for (int i = 0; i < 1024; i++) cw[i] = dw[i] = fw[i] = bw[i] = tw[i] = wv(i);
    for (int i = 0; i < 1023; i++) sw[i] = wv(i);
    for (int i = 0; i < 64; i++) cb[i] = db[i] = 0.125f * (float)(i % 3);
    for (int i = 0; i < 16; i++) fb[i] = -0.25f;
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 16));
    int32_t w, bias;
    if (fp16) {
        uint16_t hw[1024], hb[64];
        for (int i = 0; i < 1024; i++) hw[i] = lg_float_to_half(cw[i]);
        for (int i = 0; i < 64; i++) hb[i] = lg_float_to_half(cb[i]);
        int32_t wh = lg_b_const(&b, "conv/w16", LG_FLOAT16, LG_DIMS(64, 1, 1, 16), hw, sizeof hw);
        int32_t bh = lg_b_const(&b, "conv/b16", LG_FLOAT16, LG_DIMS(64), hb, sizeof hb);
        w = lg_b_tensor(&b, "conv/w", LG_FLOAT32, LG_DIMS(64, 1, 1, 16));
        bias = lg_b_tensor(&b, "conv/b", LG_FLOAT32, LG_DIMS(64));
        lg_b_op_v(&b, LG_OP_DEQUANTIZE, 3, LG_IDS(wh), LG_IDS(w), LG_OPTS_NONE, NULL);
        lg_b_op_v(&b, LG_OP_DEQUANTIZE, 3, LG_IDS(bh), LG_IDS(bias), LG_OPTS_NONE, NULL);
    } else {
        w = lg_b_const_f32(&b, "conv/w", LG_DIMS(64, 1, 1, 16), cw);
        bias = lg_b_const_f32(&b, "conv/b", LG_DIMS(64), cb);
    }
    int32_t c = lg_b_tensor(&b, "c", LG_FLOAT32, LG_DIMS(1, 4, 4, 64));
    lg_conv2d_options co;
    lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &co, sizeof co);
    co.stride_w = co.stride_h = 1;
    lg_b_op_opts(&b, LG_OP_CONV_2D, LG_IDS(x, w, bias), LG_IDS(c), LG_OPTS_CONV2D_OPTIONS, &co);
    int32_t d = lg_b_tensor(&b, "d", LG_FLOAT32, LG_DIMS(1, 1, 1, 64));
    lg_depthwise_conv2d_options dwo;
    lg_opts_init(LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &dwo, sizeof dwo);
    dwo.padding = LG_PADDING_VALID;
    dwo.stride_w = dwo.stride_h = 1;
    dwo.depth_multiplier = 1;
    lg_b_op_opts(&b, LG_OP_DEPTHWISE_CONV_2D,
                 LG_IDS(c, lg_b_const_f32(&b, "dw/w", LG_DIMS(1, 4, 4, 64), dw), lg_b_const_f32(&b, "dw/b", LG_DIMS(64), db)),
                 LG_IDS(d), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &dwo);
    int32_t y1 = lg_b_tensor(&b, "y1", LG_FLOAT32, LG_DIMS(1, 16));
    lg_fully_connected_options fo;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED,
                 LG_IDS(d, lg_b_const_f32(&b, "fc/w", LG_DIMS(16, 64), fw), lg_b_const_f32(&b, "fc/b", LG_DIMS(16), fb)),
                 LG_IDS(y1), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    int32_t z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(1, 341));
    int32_t y2 = lg_b_tensor(&b, "y2", LG_FLOAT32, LG_DIMS(1, 3));
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(z, lg_b_const_f32(&b, "small/w", LG_DIMS(3, 341), sw)), LG_IDS(y2),
                 LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    int32_t u = lg_b_tensor(&b, "u", LG_FLOAT32, LG_DIMS(1, 2, 32));
    int32_t y3 = lg_b_tensor(&b, "y3", LG_FLOAT32, LG_DIMS(1, 2, 32));
    lg_batch_mat_mul_options bo;
    lg_opts_init(LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo, sizeof bo);
    lg_b_op_opts(&b, LG_OP_BATCH_MATMUL, LG_IDS(u, lg_b_const_f32(&b, "bmm/w", LG_DIMS(32, 32), bw)), LG_IDS(y3),
                 LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo);
    int32_t ids = lg_b_tensor(&b, "ids", LG_INT32, LG_DIMS(2));
    int32_t y4 = lg_b_tensor(&b, "y4", LG_FLOAT32, LG_DIMS(2, 32));
    lg_gather_options go;
    lg_opts_init(LG_OPTS_GATHER_OPTIONS, &go, sizeof go);
    lg_b_op_opts(&b, LG_OP_GATHER, LG_IDS(lg_b_const_f32(&b, "table", LG_DIMS(32, 32), tw), ids), LG_IDS(y4),
                 LG_OPTS_GATHER_OPTIONS, &go);
    lg_b_io(&b, LG_IDS(x, z, u, ids), LG_IDS(y1, y2, y3, y4));
    if (b.status != LG_OK) {
        lg_model_free(m);
        return NULL;
    }
    return m;
}

/* the op that writes output `name`, and its input 1 (GATHER: input 0) */
static const lg_op *writer(const lg_model *m, const char *name) {
    const lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t i = 0; i < sg->n_ops; i++)
        for (uint32_t k = 0; k < sg->ops[i].n_outputs; k++) {
            int32_t t = sg->ops[i].outputs[k];
            if (t >= 0 && sg->tensors[t].name && strcmp(sg->tensors[t].name, name) == 0) return &sg->ops[i];
        }
    return NULL;
}

static const lg_tensor *input_of(const lg_model *m, const lg_op *op, uint32_t slot) {
    if (!op || slot >= op->n_inputs || op->inputs[slot] < 0) return NULL;
    return &m->subgraphs[0].tensors[op->inputs[slot]];
}

static int version_of(const lg_model *m, const lg_op *op) { return op ? m->opcodes[op->opcode_index].version : -1; }

static uint32_t n_ops_of(const lg_model *m, int32_t code) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++) n += lg_op_builtin(m, &m->subgraphs[0].ops[i]) == code;
    return n;
}

static bool int8_scales(const lg_tensor *t, uint32_t n, int32_t dim) {
    return t && t->type == LG_INT8 && t->quant && t->quant->n_scale == n && (n == 1 || t->quant->quantized_dimension == dim);
}

static bool asym(const lg_op *op) {
    if (!op || !op->opts) return false;
    if (op->opts_kind == LG_OPTS_FULLY_CONNECTED_OPTIONS)
        return ((const lg_fully_connected_options *)op->opts)->asymmetric_quantize_inputs;
    if (op->opts_kind == LG_OPTS_BATCH_MAT_MUL_OPTIONS) return ((const lg_batch_mat_mul_options *)op->opts)->asymmetric_quantize_inputs;
    return false;
}

static lg_quant_options dopts(void) {
    lg_quant_options o;
    memset(&o, 0, sizeof o);
    o.mode = LG_QUANT_INT8_DYNAMIC;
    o.n_random = 1;
    return o;
}

LG_TEST(quant_dynamic_forms_versions_and_threshold) {
    lg_model *m = dyn_model(false), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = dopts();
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (!q || !r) goto out;
    CHECK(lg_quant_mode_supported(LG_QUANT_INT8_DYNAMIC));
    /* CONV_2D: INT8 per channel read directly, hybrid per-channel version 5 */
    const lg_op *cv = writer(q, "c");
    CHECK(int8_scales(input_of(q, cv, 1), 64, 0));
    CHECK_EQ_INT(version_of(q, cv), 5);
    CHECK(input_of(q, cv, 2) && input_of(q, cv, 2)->type == LG_FLOAT32); /* the bias stays float */
    /* DEPTHWISE_CONV_2D: per channel on dimension 3, version 6 */
    const lg_op *dw = writer(q, "d");
    CHECK(int8_scales(input_of(q, dw, 1), 64, 3));
    CHECK_EQ_INT(version_of(q, dw), 6);
    /* FULLY_CONNECTED (1024 weights): per channel, asymmetric inputs, version 12 */
    const lg_op *fc = writer(q, "y1");
    CHECK(int8_scales(input_of(q, fc, 1), 16, 0));
    CHECK(asym(fc));
    CHECK_EQ_INT(version_of(q, fc), 12);
    /* near miss: 1023 weights stay FLOAT32, the op a float one (no asymmetric flag; version
       6: a float FULLY_CONNECTED without bias, op_version.cc's 2-input rule) */
    const lg_op *small = writer(q, "y2");
    CHECK(input_of(q, small, 1) && input_of(q, small, 1)->type == LG_FLOAT32);
    CHECK(!asym(small));
    CHECK_EQ_INT(version_of(q, small), 6);
    bool skipped = false;
    for (uint32_t i = 0; i < r->n_skipped; i++)
        if (strcmp(r->skipped[i].name, "small/w") == 0)
            skipped = strstr(r->skipped[i].why, "1023 elements, fewer than the 1024") != NULL && !r->skipped[i].excluded;
    CHECK(skipped);
    /* BATCH_MATMUL: the constant rhs per tensor, asymmetric inputs, version 4 */
    const lg_op *bmm = writer(q, "y3");
    CHECK(int8_scales(input_of(q, bmm, 1), 1, 0));
    CHECK(asym(bmm));
    CHECK_EQ_INT(version_of(q, bmm), 4);
    /* GATHER: weight-only, a per-tensor INT8 table through DEQUANTIZE (version 2) */
    const lg_op *ga = writer(q, "y4");
    const lg_tensor *tab = input_of(q, ga, 0);
    CHECK(tab && tab->type == LG_FLOAT32);
    CHECK_EQ_INT(n_ops_of(q, LG_OP_DEQUANTIZE), 1);
    const lg_op *dq = writer(q, tab ? tab->name : "");
    CHECK(dq && lg_op_builtin(q, dq) == LG_OP_DEQUANTIZE);
    CHECK(int8_scales(input_of(q, dq, 0), 1, 0));
    CHECK_EQ_INT(version_of(q, dq), 2);
    /* the report: 5 weights; sizes = data + 12 B per scale: 1024 + 64 * 12 twice, 1024 + 16 *
       12, 1024 + 12 twice */
    CHECK_EQ_INT(r->n_weights, 5);
    CHECK_EQ_INT(r->weights_after, 2 * (1024 + 768) + (1024 + 192) + 2 * (1024 + 12));
    CHECK_EQ_INT(r->weights_before, 5 * 4096);
    CHECK(r->gpu_note && strstr(r->gpu_note, "hybrid") != NULL);
    /* measured in the interpreter (the hybrid kernels ran) */
    CHECK(r->measured);
    CHECK(r->n_outputs == 4 && r->outputs && isfinite(r->outputs[0].snr_db) && r->outputs[0].snr_db > 10);
    CHECK(r->outputs && r->outputs[1].max_abs == 0); /* y2 is still float */
out:
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(quant_dynamic_per_tensor) {
    lg_model *m = dyn_model(false), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = dopts();
    o.per_tensor = true;
    o.no_measure = true;
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (q && r) {
        /* CONV_2D per tensor: version 2; FULLY_CONNECTED per tensor with asymmetric inputs: 9 */
        const lg_op *cv = writer(q, "c");
        CHECK(int8_scales(input_of(q, cv, 1), 1, 0));
        CHECK_EQ_INT(version_of(q, cv), 2);
        const lg_op *fc = writer(q, "y1");
        CHECK(int8_scales(input_of(q, fc, 1), 1, 0));
        CHECK_EQ_INT(version_of(q, fc), 9);
        /* DEPTHWISE_CONV_2D per tensor keeps a DEQUANTIZE (TFLite's hybrid kernel reads a
           scale per channel), so it stays a float op (version 1) */
        const lg_op *dw = writer(q, "d");
        CHECK(input_of(q, dw, 1) && input_of(q, dw, 1)->type == LG_FLOAT32);
        CHECK_EQ_INT(version_of(q, dw), 1);
        CHECK_EQ_INT(n_ops_of(q, LG_OP_DEQUANTIZE), 2);
    }
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(quant_dynamic_from_fp16) {
    lg_model *m = dyn_model(true), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = dopts();
    o.no_measure = true;
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (q && r) {
        /* the FLOAT16 conv weights are quantized from their values (wv(i) are halves: the same
           INT8 as from FLOAT32) and read directly; their DEQUANTIZE and the bias's go (the bias
           is a FLOAT32 constant now): only GATHER's DEQUANTIZE is left */
        const lg_op *cv = writer(q, "c");
        const lg_tensor *w = input_of(q, cv, 1);
        CHECK(int8_scales(w, 64, 0));
        CHECK(input_of(q, cv, 2) && input_of(q, cv, 2)->type == LG_FLOAT32 && lg_tensor_is_const(q, 0, cv->inputs[2]));
        CHECK_EQ_INT(n_ops_of(q, LG_OP_DEQUANTIZE), 1);
        CHECK_EQ_INT(r->n_bias_fp32, 1);
        CHECK_EQ_INT(r->weights[0].from_type, LG_FLOAT16);
        CHECK_EQ_INT(r->weights[0].bytes_before, 2048);
        /* channel 0 holds wv(0..15); its max |w| is 11/8 at i = 0 (wv(0) = -11/8): scale
           11/8/127, q[0] = -127; wv(1) = 3/8 (1 * 37 % 23 = 14): 3/8 * 127 / (11/8) = 34.64 -> 35 */
        if (w) {
            const int8_t *d = (const int8_t *)lg_tensor_buffer(q, w)->data;
            CHECK_EQ_INT(d[0], -127);
            CHECK_EQ_INT(d[1], 35);
            CHECK(w->quant->scale[0] == 1.375f / 127.0f);
        }
        lg_model *f = dyn_model(false), *q2 = NULL;
        lg_quant_report *r2 = NULL;
        CHECK(f != NULL);
        if (f && lg_quantize(f, &o, &q2, &r2, &e) == LG_OK) {
            const lg_tensor *w2 = input_of(q2, writer(q2, "c"), 1);
            CHECK(w && w2 && memcmp(lg_tensor_buffer(q, w)->data, lg_tensor_buffer(q2, w2)->data, 1024) == 0);
        }
        lg_quant_report_free(r2);
        lg_model_free(q2);
        lg_model_free(f);
    }
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}
