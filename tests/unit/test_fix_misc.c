/* The `fix` passes of src/passes/fix_misc.c and fix_int64.c: softmax-beta, log-softmax,
   relu-0-to-1, layerscale-into-fc, densify-const (a builder-made sparse constant and the
   corpus's sparse face model), int64-to-int32. Each: a model that triggers the rule, the pass
   with parity proved by the runner, the rule gone, values derived by hand; and a near-miss. */
#include <math.h>

#include "fixt_idx.h"

static void softmax_op(lg_builder *b, int x, int y, float beta) {
    lg_softmax_options so;
    lg_opts_init(LG_OPTS_SOFTMAX_OPTIONS, &so, sizeof so);
    so.beta = beta;
    lg_b_op_opts(b, LG_OP_SOFTMAX, LG_IDS(x), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
}

static lg_model *softmax_model(int32_t code, float beta) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(3, 10));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(3, 10));
    if (code == LG_OP_SOFTMAX) softmax_op(&b, x, y, beta);
    else lg_b_op(&b, code, LG_IDS(x), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* x[r][c] = (c - 4) * (r + 1), as a fixed input with large logits (up to 15). */
static void logits(float *x) {
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 10; c++) x[r * 10 + c] = (float)((c - 4) * (r + 1));
}

/* ------------------------------------------------------------------ softmax-beta */

LG_TEST(fix_softmax_beta) {
    lg_model *m = softmax_model(LG_OP_SOFTMAX, 0.35f);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "softmax-beta"), 1);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_CLASSIC, "softmax-beta"), 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "softmax-beta", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "softmax-beta"));
    const lg_pass_result *r = fixt_result(rep, "softmax-beta");
    CHECK(r && r->max_abs == 0); /* the kernel's own operations: bit for bit */
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "softmax-beta"), 0);
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_CLASSIC, "softmax-beta"), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 4); /* REDUCE_MAX, SUB, MUL, SOFTMAX */
    float x[30], out[30], ref[30];
    logits(x);
    const void *ins[1] = {x};
    /* bit for bit against the original on these large logits too */
    if (fixti_eval(o, ins, 0, out, 30) && fixti_eval(m, ins, 0, ref, 30))
        CHECK(memcmp(out, ref, sizeof out) == 0);
    for (int row = 0; row < 3; row++) { /* softmax(0.35 x) in double */
        double s = 0;
        for (int c = 0; c < 10; c++) s += exp(0.35 * x[row * 10 + c]);
        for (int c = 0; c < 10; c++) CHECK_NEAR(out[row * 10 + c], exp(0.35 * x[row * 10 + c]) / s, 1e-6);
    }
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* Near-misses: beta 1 (the GPU takes it) and a negative beta (refused: not exact). */
LG_TEST(fix_softmax_beta_near_misses) {
    for (int k = 0; k < 2; k++) {
        lg_model *m = softmax_model(LG_OP_SOFTMAX, k ? -0.5f : 1.0f);
        lg_pass_report *rep = NULL;
        lg_model *o = fixti_run(m, "softmax-beta", &rep);
        if (!o) { lg_model_free(m); return; }
        CHECK(fixt_same_ops(o, m));
        CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
        lg_pass_report_free(rep);
        lg_model_free(o);
        lg_model_free(m);
    }
}

/* ------------------------------------------------------------------ log-softmax */

LG_TEST(fix_log_softmax) {
    lg_model *m = softmax_model(LG_OP_LOG_SOFTMAX, 1);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "op-unsupported"), 1);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_CLASSIC, "op-unsupported"), 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "log-softmax", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "log-softmax"));
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "op-unsupported"), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 6); /* REDUCE_MAX, SUB, EXP, SUM, LOG, SUB */
    CHECK_EQ_INT(fixt_count(o, LG_OP_LOG_SOFTMAX), 0);
    float x[30], out[30];
    logits(x);
    const void *ins[1] = {x};
    if (fixti_eval(o, ins, 0, out, 30))
    for (int row = 0; row < 3; row++) { /* x - max - log(sum exp(x - max)) in double */
        double mx = x[row * 10 + 9], s = 0;
        for (int c = 0; c < 10; c++) s += exp(x[row * 10 + c] - mx);
        for (int c = 0; c < 10; c++) CHECK_NEAR(out[row * 10 + c], x[row * 10 + c] - mx - log(s), 2e-6);
    }
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

LG_TEST(fix_log_softmax_near_miss) {
    lg_model *m = softmax_model(LG_OP_SOFTMAX, 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "log-softmax", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_same_ops(o, m));
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ relu-0-to-1 */

LG_TEST(fix_relu_0_to_1) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 4));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2, 4)), z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(2, 4));
    lg_b_op(&b, LG_OP_RELU_0_TO_1, LG_IDS(x), LG_IDS(y));
    lg_b_op(&b, LG_OP_RELU6, LG_IDS(x), LG_IDS(z)); /* the near-miss: stays */
    lg_b_io(&b, LG_IDS(x), LG_IDS(y, z));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "op-no-compat-case"), 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "relu-0-to-1", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "relu-0-to-1"));
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "op-no-compat-case"), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_RELU_0_TO_1), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_RELU6), 1);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 3); /* RELU, MINIMUM, RELU6 */
    const float xi[8] = {-1, 0, 0.5f, 1, 2, 1e8f, -0.0f, NAN};
    const float want[8] = {0, 0, 0.5f, 1, 1, 1, 0, NAN};
    float out[8];
    const void *ins[1] = {xi};
    if (fixti_eval(o, ins, 0, out, 8))
        for (int k = 0; k < 7; k++) CHECK_EQ_INT(out[k] == want[k], 1);
    CHECK(isnan(out[7])); /* a NaN stays NaN, as in the clamp */
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ layerscale-into-fc */

/* FC(x[4,K], w[16,K], bias[16]) -> a[4,16]; MUL(a, gamma[1,1,16]) -> y[1,4,16] (DINOv2's
   LayerScale). kind 1: the MUL's operand is a runtime input (near-miss), kind 2: gamma is
   [16] (rank 1: the rule does not fire, near-miss); kind 3 as 0. K <= 1024. */
static lg_model *layerscale_model(int kind, int K) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    static float w[16 * 1024];
    float bias[16], g[16];
    for (int o = 0; o < 16; o++) {
        for (int k = 0; k < K; k++) w[o * K + k] = (float)sin(0.37 * (o * K + k) + 0.1) * 0.25f;
        bias[o] = 0.05f * (float)(o - 8);
        g[o] = 1e-5f * (float)(o + 1) * (o % 3 ? 1.0f : -1.0f);
    }
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(4, K));
    int wt = lg_b_const_f32(&b, "w", LG_DIMS(16, K), w), bt = lg_b_const_f32(&b, "bias", LG_DIMS(16), bias);
    int a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(4, 16));
    lg_fully_connected_options fo;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, wt, bt), LG_IDS(a), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    int gt = kind == 1 ? lg_b_tensor(&b, "gamma", LG_FLOAT32, LG_DIMS(1, 1, 16))
             : kind == 2 ? lg_b_const_f32(&b, "gamma", LG_DIMS(16), g)
                         : lg_b_const_f32(&b, "gamma", LG_DIMS(1, 1, 16), g);
    int y = kind == 2 ? lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(4, 16)) : lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4, 16));
    lg_b_op(&b, LG_OP_MUL, LG_IDS(a, gt), LG_IDS(y));
    if (kind == 1) lg_b_io(&b, LG_IDS(x, gt), LG_IDS(y));
    else lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* The pass is approximate (bound 1e-5): proved within it, and past the exact bound at
   K = 1024 (the rounding of each scaled weight, ~sqrt(K) 2^-24). */
static bool approx_proved(const lg_pass_report *rep, double lo) {
    const lg_pass_result *r = fixt_result(rep, "layerscale-into-fc");
    return r && r->delta.applied && r->parity_measured && !r->exact && r->bound == 1e-5 && r->max_rel <= 1e-5 &&
           r->max_rel > lo;
}

LG_TEST(fix_layerscale_mul) {
    lg_model *m = layerscale_model(0, 64);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "fc-2d-broadcast"), 1);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_CLASSIC, "fc-2d-broadcast"), 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "layerscale-into-fc", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(approx_proved(rep, 0));
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "fc-2d-broadcast"), 0);
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_CLASSIC, "fc-2d-broadcast"), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2); /* FULLY_CONNECTED, RESHAPE */
    CHECK_EQ_INT(fixt_count(o, LG_OP_MUL), 0);
    /* the folded weights: row o scaled by gamma[o] (w[0][0] = 0.25 sin(0.1), gamma[0] = -1e-5) */
    const lg_subgraph *sg = &o->subgraphs[0];
    const lg_tensor *w = &sg->tensors[sg->ops[0].inputs[1]];
    const float *wd = (const float *)(const void *)o->buffers[w->buffer].data;
    CHECK(wd && w->shape[0] == 16);
    if (wd) CHECK_NEAR(wd[0], (float)(0.25f * (float)sin(0.1)) * -1e-5f, 1e-12);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* FC without bias then ADD of beta[1,1,2]: beta becomes the bias; x = [[1,2,3],[4,5,6]], w = [[1,0,0],[0,1,1]], beta = [10, 20]:
   y = [[1+10, 2+3+20], [4+10, 5+6+20]]. */
LG_TEST(fix_layerscale_add_bias) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int w = lg_b_const_f32(&b, "w", LG_DIMS(2, 3), (const float[]){1, 0, 0, 0, 1, 1});
    int a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(2, 2));
    lg_b_op(&b, LG_OP_FULLY_CONNECTED, (lg_dims){(const int32_t[]){x, w, -1}, 3}, LG_IDS(a));
    int beta = lg_b_const_f32(&b, "beta", LG_DIMS(1, 1, 2), (const float[]){10, 20});
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 2, 2));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(beta, a), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "fc-2d-broadcast"), 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "layerscale-into-fc", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(approx_proved(rep, -1));
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "fc-2d-broadcast"), 0);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    const float xi[6] = {1, 2, 3, 4, 5, 6}, want[4] = {11, 25, 14, 31};
    const void *ins[1] = {xi};
    float out[4];
    if (fixti_eval(o, ins, 0, out, 4))
        for (int k = 0; k < 4; k++) CHECK_EQ_INT(out[k], want[k]);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

LG_TEST(fix_layerscale_wide_is_approximate) {
    lg_model *m = layerscale_model(3, 1024);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "layerscale-into-fc", &rep);
    if (o) CHECK(approx_proved(rep, 1e-6));
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* fc-output-reshape: the FC output reshaped to [1,4,16] before the MUL, for a constant and
   for a runtime operand; bit for bit. */
LG_TEST(fix_fc_output_reshape) {
    for (int kind = 0; kind <= 1; kind++) {
        lg_model *m = layerscale_model(kind, 8);
        CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "fc-2d-broadcast"), 1);
        CHECK_EQ_INT(fixt_findings(m, LG_TARGET_CLASSIC, "fc-2d-broadcast"), 1);
        lg_pass_report *rep = NULL;
        lg_model *o = fixti_run(m, "fc-output-reshape", &rep);
        if (!o) { lg_model_free(m); return; }
        CHECK(fixt_proved(rep, "fc-output-reshape"));
        const lg_pass_result *r = fixt_result(rep, "fc-output-reshape");
        CHECK(r && r->max_abs == 0);
        CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "fc-2d-broadcast"), 0);
        CHECK_EQ_INT(fixt_findings(o, LG_TARGET_CLASSIC, "fc-2d-broadcast"), 0);
        CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
        CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
        const lg_subgraph *sg = &o->subgraphs[0];
        CHECK_EQ_INT(sg->n_ops, 3);
        CHECK_EQ_INT(lg_op_builtin(o, &sg->ops[1]), LG_OP_RESHAPE);
        const lg_tensor *t = &sg->tensors[sg->ops[1].outputs[0]];
        CHECK(t->rank == 3 && t->shape[0] == 1 && t->shape[1] == 4 && t->shape[2] == 16);
        lg_pass_report_free(rep);
        lg_model_free(o);
        lg_model_free(m);
    }
    lg_model *m = layerscale_model(2, 8); /* near-miss: rank-1 gamma, no rule */
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "fc-output-reshape", &rep);
    if (o) CHECK(fixt_same_ops(o, m));
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* Near-misses: a runtime scale (the rule fires, but nothing folds) and a rank-1 gamma (the
   rule does not fire). */
LG_TEST(fix_layerscale_near_misses) {
    for (int kind = 1; kind <= 2; kind++) {
        lg_model *m = layerscale_model(kind, 8);
        CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "fc-2d-broadcast"), kind == 1 ? 1 : 0);
        lg_pass_report *rep = NULL;
        lg_model *o = fixti_run(m, "layerscale-into-fc", &rep);
        if (!o) { lg_model_free(m); return; }
        CHECK(fixt_same_ops(o, m));
        lg_pass_report_free(rep);
        lg_model_free(o);
        lg_model_free(m);
    }
}

/* ------------------------------------------------------------------ densify-const */

/* x[2,3] + DENSIFY(sparse [[1, 0, 2], [0, 3, 0]]: dim 0 dense, dim 1 CSR). */
LG_TEST(fix_densify_builder) {
    static const int32_t order[2] = {0, 1}, seg[3] = {0, 2, 3}, idx[3] = {0, 2, 1};
    lg_dim_meta dm[2];
    memset(dm, 0, sizeof dm);
    dm[0].format = LG_DIMENSION_TYPE_DENSE;
    dm[0].dense_size = 2;
    dm[1].format = LG_DIMENSION_TYPE_SPARSE_CSR;
    dm[1].segments_type = dm[1].indices_type = 1;
    dm[1].segments = seg;
    dm[1].n_segments = 3;
    dm[1].indices = idx;
    dm[1].n_indices = 3;
    lg_sparsity sp = {order, 2, NULL, 0, dm, 2};
    lg_builder b;
    lg_model *m = fixt_new(&b);
    const float vals[3] = {1, 2, 3};
    /* the stored values are 3 floats for a [2,3] tensor: the buffer is set after the builder
       (which checks a constant's size against its dense shape), as test_k_shape.c does */
    uint32_t buf = 0;
    CHECK_OK(lg_model_add_buffer(m, vals, sizeof vals, &buf, &b.err), &b.err);
    int s = lg_b_tensor(&b, "sparse", LG_FLOAT32, LG_DIMS(2, 3));
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int d = lg_b_tensor(&b, "dense", LG_FLOAT32, LG_DIMS(2, 3)), y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2, 3));
    lg_b_op(&b, LG_OP_DENSIFY, LG_IDS(s), LG_IDS(d));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(x, d), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    m->subgraphs[0].tensors[s].buffer = buf;
    m->subgraphs[0].tensors[s].sparsity = &sp; /* not owned by the model: cleared before free */
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "op-unsupported"), 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "densify-const", &rep);
    if (o) {
        CHECK(fixt_proved(rep, "densify-const"));
        CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "op-unsupported"), 0);
        CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
        CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
        const lg_subgraph *sg = &o->subgraphs[0];
        const lg_tensor *k = &sg->tensors[sg->ops[0].inputs[1]];
        const float want[6] = {1, 0, 2, 0, 3, 0};
        CHECK(k->buffer && !k->sparsity && o->buffers[k->buffer].size == sizeof want);
        if (k->buffer && o->buffers[k->buffer].size == sizeof want)
            CHECK(memcmp(o->buffers[k->buffer].data, want, sizeof want) == 0);
    }
    lg_pass_report_free(rep);
    lg_model_free(o);
    m->subgraphs[0].tensors[s].sparsity = NULL;
    lg_model_free(m);
}

/* The corpus's sparse face model: 46 DENSIFY (op-unsupported on ML Drift) each read by a
   DEQUANTIZE (op-params); after the pass neither is reported, the model is ready for ML
   Drift, and its outputs are bit-identical to the original's. */
LG_TEST(fix_densify_corpus_face_model) {
    const char *path = "build/corpus/face_detection_full_range_sparse.tflite";
    lg_model *m = NULL;
    lg_error err;
    if (lg_tflite_read_file(path, NULL, &m, &err) != LG_OK) {
        fprintf(stderr, "  note: %s not readable (%s); skipped\n", path, err.msg);
        return;
    }
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "op-unsupported"), 46);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "op-params"), 46);
    CHECK_EQ_INT(fixt_blockers(m, LG_TARGET_MLDRIFT), 92);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "densify-const", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "densify-const"));
    const lg_pass_result *r = fixt_result(rep, "densify-const");
    CHECK(r && r->delta.applied == 46 && r->max_abs == 0 && r->n_cases == 3);
    CHECK_EQ_INT(fixt_count(o, LG_OP_DENSIFY), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_DEQUANTIZE), fixt_count(m, LG_OP_DEQUANTIZE));
    CHECK_EQ_INT(o->subgraphs[0].n_ops + 46, m->subgraphs[0].n_ops);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
    /* every output, bit for bit, on the 0.5 fill */
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_interp *ia = NULL, *ib = NULL;
    if (lg_interp_create(m, &ro, &ia, &err) == LG_OK && lg_interp_create(o, &ro, &ib, &err) == LG_OK) {
        lg_tensor_view v;
        lg_interp_input(ia, 0, &v);
        float *in = malloc((size_t)v.nbytes);
        if (in && lg_fill_f32("half", in, v.numel, &err) == LG_OK &&
            lg_interp_set_input(ia, 0, LG_FLOAT32, in, v.nbytes, &err) == LG_OK &&
            lg_interp_set_input(ib, 0, LG_FLOAT32, in, v.nbytes, &err) == LG_OK &&
            lg_interp_invoke(ia, &err) == LG_OK && lg_interp_invoke(ib, &err) == LG_OK) {
            for (uint32_t k = 0; k < lg_interp_n_outputs(ia); k++) {
                lg_tensor_view va, vb;
                lg_interp_output(ia, k, &va);
                lg_interp_output(ib, k, &vb);
                CHECK(va.nbytes == vb.nbytes && memcmp(va.data, vb.data, (size_t)va.nbytes) == 0);
            }
        } else {
            tf_fail(__FILE__, __LINE__, "run: %s", err.msg);
        }
        free(in);
    } else {
        tf_fail(__FILE__, __LINE__, "interp: %s", err.msg);
    }
    lg_interp_free(ia);
    lg_interp_free(ib);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* Near-miss: the corpus's dense face model has no DENSIFY; nothing changes. */
LG_TEST(fix_densify_near_miss_dense_model) {
    const char *path = "build/corpus/face_detection_short_range.tflite";
    lg_model *m = NULL;
    lg_error err;
    if (lg_tflite_read_file(path, NULL, &m, &err) != LG_OK) {
        fprintf(stderr, "  note: %s not readable (%s); skipped\n", path, err.msg);
        return;
    }
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "densify-const", &rep);
    if (o) CHECK(fixt_same_ops(o, m));
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ int64-to-int32 */

static void argmax_op(lg_builder *b, int x, int axis_t, int y, int8_t type) {
    lg_arg_max_options ao = {type};
    lg_b_op_opts(b, LG_OP_ARG_MAX, LG_IDS(x, axis_t), LG_IDS(y), LG_OPTS_ARG_MAX_OPTIONS, &ao);
}

static void cast_op(lg_builder *b, int x, int y) { lg_b_op(b, LG_OP_CAST, LG_IDS(x), LG_IDS(y)); }

/* ARG_MAX(x[2,5], axis 1) as INT64, cast back to float: the ARG_MAX output and the CAST input
   are INT64 runtime tensors. With io_output the INT64 indices are the graph output instead. */
static lg_model *argmax_model(bool io_output) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 5));
    int ax = lg_b_const_i32(&b, "axis", LG_SCALAR, (const int32_t[]){1});
    int i = lg_b_tensor(&b, "idx", LG_INT64, LG_DIMS(2));
    argmax_op(&b, x, ax, i, LG_INT64);
    if (io_output) {
        lg_b_io(&b, LG_IDS(x), LG_IDS(i));
    } else {
        int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2));
        cast_op(&b, i, y);
        lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    }
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(fix_int64_argmax_cast) {
    lg_model *m = argmax_model(false);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "int64-tensor"), 2);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_CLASSIC, "int64-tensor"), 2);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "int64-to-int32", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "int64-to-int32"));
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "int64-tensor"), 0);
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_CLASSIC, "int64-tensor"), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0); /* ARG_MAX may output INT32 on ML Drift */
    const lg_op *am = &o->subgraphs[0].ops[0];
    CHECK_EQ_INT(o->subgraphs[0].tensors[am->outputs[0]].type, LG_INT32);
    CHECK(am->opts_kind == LG_OPTS_ARG_MAX_OPTIONS && ((const lg_arg_max_options *)am->opts)->output_type == LG_INT32);
    const float xi[10] = {0, 3, 1, 2, -1, 9, 8, 7, 9.5f, 0};
    const void *ins[1] = {xi};
    float out[2];
    if (fixti_eval(o, ins, 0, out, 2)) {
        CHECK_EQ_INT(out[0], 1);
        CHECK_EQ_INT(out[1], 3);
    }
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* An embedding lookup on computed ids: k = MAXIMUM(CAST<INT64>(FLOOR(x * 2.5 + 2.5)), 0)
   (an INT64 constant 0 in a data slot, narrowed), GATHER(table[5,2], k). */
LG_TEST(fix_int64_cast_gather) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(3));
    int s = lg_b_const_f32(&b, "s", LG_SCALAR, (const float[]){2.5f});
    int t1 = lg_b_tensor(&b, "t1", LG_FLOAT32, LG_DIMS(3)), t2 = lg_b_tensor(&b, "t2", LG_FLOAT32, LG_DIMS(3));
    int t3 = lg_b_tensor(&b, "t3", LG_FLOAT32, LG_DIMS(3));
    lg_b_op(&b, LG_OP_MUL, LG_IDS(x, s), LG_IDS(t1));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(t1, s), LG_IDS(t2));
    lg_b_op(&b, LG_OP_FLOOR, LG_IDS(t2), LG_IDS(t3));
    int k64 = lg_b_tensor(&b, "k64", LG_INT64, LG_DIMS(3)), k = lg_b_tensor(&b, "k", LG_INT64, LG_DIMS(3));
    cast_op(&b, t3, k64);
    const int64_t zero = 0;
    int z = lg_b_const(&b, "zero", LG_INT64, LG_SCALAR, &zero, 8);
    lg_b_op(&b, LG_OP_MAXIMUM, LG_IDS(k64, z), LG_IDS(k));
    float table[10];
    for (int q = 0; q < 10; q++) table[q] = 100.0f + (float)q;
    int tb = lg_b_const_f32(&b, "table", LG_DIMS(5, 2), table);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(3, 2));
    lg_gather_options go = {0, 0};
    lg_b_op_opts(&b, LG_OP_GATHER, LG_IDS(tb, k), LG_IDS(y), LG_OPTS_GATHER_OPTIONS, &go);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "int64-tensor"), 4); /* CAST out, MAXIMUM in/out, GATHER in */
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "int64-to-int32", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "int64-to-int32"));
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "int64-tensor"), 0);
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_CLASSIC, "int64-tensor"), 0);
    const lg_subgraph *sg = &o->subgraphs[0];
    for (uint32_t t = 0; t < sg->n_tensors; t++) CHECK(sg->tensors[t].type != LG_INT64);
    /* x = -1, 0, 0.99: floor(2.5x + 2.5) = 0, 2, 4 -> rows 0, 2, 4 */
    const float xi[3] = {-1, 0, 0.99f}, want[6] = {100, 101, 104, 105, 108, 109};
    const void *ins[1] = {xi};
    float out[6];
    if (fixti_eval(o, ins, 0, out, 6))
        for (int q = 0; q < 6; q++) CHECK_EQ_INT(out[q], want[q]);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* An INT64 graph output: left alone without io_int32 (the I/O contract), retyped with it. */
LG_TEST(fix_int64_graph_output_needs_io_int32) {
    lg_model *m = argmax_model(true);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "int64-to-int32", &rep);
    if (o) {
        CHECK(fixt_same_ops(o, m));
        const lg_subgraph *sg = &o->subgraphs[0];
        CHECK_EQ_INT(sg->tensors[sg->outputs[0]].type, LG_INT64);
        const lg_pass_result *r = fixt_result(rep, "int64-to-int32");
        CHECK(r && r->delta.applied == 0 && strstr(r->delta.note, "graph output"));
    }
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_pass_run_options opt;
    memset(&opt, 0, sizeof opt);
    opt.io_int32 = true;
    o = fixti_run_opt(m, "int64-to-int32", &opt, &rep);
    if (o) {
        const lg_subgraph *sg = &o->subgraphs[0];
        CHECK_EQ_INT(sg->tensors[sg->outputs[0]].type, LG_INT32);
        CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "int64-tensor"), 0);
        /* the interface changed: the runner cannot compare, the values are checked here */
        const lg_pass_result *r = fixt_result(rep, "int64-to-int32");
        CHECK(r && r->delta.applied == 1 && !r->parity_measured);
        const float xi[10] = {0, 3, 1, 2, -1, 9, 8, 7, 9.5f, 0};
        const void *ins[1] = {xi};
        int32_t out[2];
        if (fixti_eval(o, ins, 0, out, 2)) {
            CHECK_EQ_INT(out[0], 1);
            CHECK_EQ_INT(out[1], 3);
        }
    }
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* Near-miss: INT64 arithmetic (an ADD could overflow in int32) is refused. */
LG_TEST(fix_int64_near_miss_arithmetic) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 5));
    int ax = lg_b_const_i32(&b, "axis", LG_SCALAR, (const int32_t[]){1});
    int i = lg_b_tensor(&b, "idx", LG_INT64, LG_DIMS(2)), j = lg_b_tensor(&b, "j", LG_INT64, LG_DIMS(2));
    argmax_op(&b, x, ax, i, LG_INT64);
    const int64_t big = 3000000000;
    int k = lg_b_const(&b, "big", LG_INT64, LG_SCALAR, &big, 8);
    lg_b_op(&b, LG_OP_ADD, LG_IDS(i, k), LG_IDS(j));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2));
    cast_op(&b, j, y);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "int64-to-int32", &rep);
    if (o) {
        CHECK(fixt_same_ops(o, m));
        CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "int64-tensor"), 4);
        const lg_pass_result *r = fixt_result(rep, "int64-to-int32");
        CHECK(r && r->delta.applied == 0 && strstr(r->delta.note, "ADD"));
    }
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ the corpus */

/* The five development models: every fix pass leaves them as they are, except densify-const
   on the sparse face model (tested above): the four ready ones have nothing to fix, and the
   sparse one only its DENSIFY ops. */
LG_TEST(fix_passes_leave_corpus_unchanged) {
    static const char *const models[5] = {
        "build/corpus/face_detection_short_range.tflite", "build/corpus/face_detection_full_range_sparse.tflite",
        "build/corpus/hand_landmark_lite.tflite", "build/corpus/pose_landmark_lite.tflite",
        "build/corpus/selfie_segmentation.tflite"};
    static const char *const passes[] = {"gather-const-to-slices", "squeeze-to-reshape", "pack-unpack-split",
                                         "broadcast-to-tile", "select-const-condition", "elu-select-free",
                                         "softmax-beta", "log-softmax", "relu-0-to-1", "int64-to-int32",
                                         "densify-const", "layerscale-into-fc", "fc-output-reshape"};
    for (int mi = 0; mi < 5; mi++) {
        lg_model *m = NULL;
        lg_error err;
        if (lg_tflite_read_file(models[mi], NULL, &m, &err) != LG_OK) {
            fprintf(stderr, "  note: %s not readable (%s); skipped\n", models[mi], err.msg);
            continue;
        }
        for (size_t p = 0; p < sizeof passes / sizeof passes[0]; p++) {
            if (mi == 1 && strcmp(passes[p], "densify-const") == 0) continue;
            lg_pass_report *rep = NULL;
            lg_model *o = fixti_run(m, passes[p], &rep);
            const lg_pass_result *r = fixt_result(rep, passes[p]);
            if (!o || !r || r->delta.applied || !fixt_same_ops(o, m))
                tf_fail(__FILE__, __LINE__, "%s changed %s", passes[p], models[mi]);
            lg_pass_report_free(rep);
            lg_model_free(o);
        }
        lg_model_free(m);
    }
}

/* MEAN(x[2,3,4], axes INT64 {1, -1}): const-axes ("supports int32 tensor for axes"); the axes
   read as an INT32 copy. SUM with INT32 axes beside it is the near-miss. */
LG_TEST(fix_int64_const_axes) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 3, 4));
    const int64_t ax[2] = {1, -1};
    int a64 = lg_b_const(&b, "axes", LG_INT64, LG_DIMS(2), ax, sizeof ax);
    int a32 = lg_b_const_i32(&b, "axes32", LG_DIMS(1), (const int32_t[]){0});
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2)), z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(3, 4));
    lg_reducer_options ro;
    lg_opts_init(LG_OPTS_REDUCER_OPTIONS, &ro, sizeof ro);
    lg_b_op_opts(&b, LG_OP_MEAN, LG_IDS(x, a64), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_op_opts(&b, LG_OP_SUM, LG_IDS(x, a32), LG_IDS(z), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y, z));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "const-axes"), 1);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_CLASSIC, "const-axes"), 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "int64-to-int32", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "int64-to-int32"));
    const lg_pass_result *r = fixt_result(rep, "int64-to-int32");
    CHECK(r && r->delta.applied == 1 && r->max_abs == 0);
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "const-axes"), 0);
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_CLASSIC, "const-axes"), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    const lg_subgraph *sg = &o->subgraphs[0];
    const lg_tensor *t = &sg->tensors[sg->ops[0].inputs[1]];
    CHECK(t->type == LG_INT32 && t->rank == 1 && t->shape[0] == 2);
    if (t->type == LG_INT32 && o->buffers[t->buffer].size == 8) {
        int32_t v[2];
        memcpy(v, o->buffers[t->buffer].data, 8);
        CHECK(v[0] == 1 && v[1] == -1);
    }
    CHECK(sg->tensors[sg->ops[1].inputs[1]].type == LG_INT32);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}
