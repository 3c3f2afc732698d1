/* lg_check_model on the quantized-model rules (src/check/check_quant.c; rules.def
   dequantize-const-shape, fc-runtime-weights-bias, quant-graph-output, op-version-understated): for each rule its
   triggers and near-misses from tests/models/quant_check_models.c (which
   tests/tools/make_check_quant_models.c also writes for the real ML Drift delegate,
   tests/e2e/test_check_quant.sh), on both targets. Each case asserts the exact set of findings
   (rule and op) and the verdict, derived from the delegates' source:

   - ML Drift DequantizeOperationParser::ReadConstTensor builds a rank-2 constant [h,w] as BHWC
     (1,1,h,w) and a rank-3 [h,w,c] as (1,h,w,c); ExtractTensorShape maps the output tensor as
     BC (h,1,1,w) / BWC (h,1,w,c): they differ exactly when h > 1.
   - the classic DequantizeOperationParser reads the constant into a BHWC tensor: rank 4 only
     (SetAllDimensions), INT8/UINT8/INT32/FLOAT32 only (CreateVectorCopyData<float>).
   - ML Drift's FULLY_CONNECTED parser, given runtime weights, builds the node without the
     constant bias (the classic one reads it: its runtime-weights CONVOLUTION_2D has the bias).
   - ML Drift quantizes INT8/UINT8 graph outputs on the CPU (QuantizeOutputs); the classic
     delegate's outputs are CPU tensors anyway (no rule).
   - both compare the stored version with the max (DEQUANTIZE 3); a constant DEQUANTIZE is
     judged on it, with a warning when its input needs more (per-channel INT8: 5, INT4: 6).

   The checks run for Adreno (delegate-source rules only), so no field rule adds findings;
   each rule is also shown to apply with --gpu any. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../models/quant_check_models.h"
#include "lg/check.h"
#include "lg/lg.h"
#include "tf.h"

#define MLD LG_TARGET_MLDRIFT
#define CLS LG_TARGET_CLASSIC

static lg_model *build_at(const char *file, int line, lgq_build_fn fn) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) {
        tf_fail(file, line, "lg_model_new: %s", err.msg);
        return NULL;
    }
    lg_builder b;
    lg_builder_init(&b, m, 0);
    fn(&b);
    lg_status st = b.status;
    if (st == LG_OK) st = lg_model_validate(m, &err);
    else err = b.err;
    if (st != LG_OK) {
        tf_fail(file, line, "building the model failed: %s", err.msg);
        lg_model_free(m);
        return NULL;
    }
    return m;
}
#define MODEL(fn) build_at(__FILE__, __LINE__, lgq_##fn)

static lg_check_report *run_check(const lg_model *m, lg_target t, lg_gpu gpu) {
    lg_check_options opt = {t, 0, gpu};
    lg_check_report *r = NULL;
    lg_error err;
    if (!m || lg_check_model(m, &opt, &r, &err) != LG_OK) return NULL;
    return r;
}

/* The findings as "rule@op" in report order (sorted by op, then rule), comma-separated. */
static void finding_list(const lg_check_report *r, char *buf, size_t n) {
    size_t k = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < r->n_findings && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s@%d", i ? "," : "", r->findings[i].rule->id, r->findings[i].op);
}

/* On target t (Adreno: delegate-source rules): ready as given and exactly the findings want
   ("rule@op,...", "" for none). */
#define EXPECT(m, t, ready, want) expect(__FILE__, __LINE__, (m), (t), (ready), (want))
static void expect(const char *file, int line, const lg_model *m, lg_target t, int ready, const char *want) {
    if (!m) return;
    lg_check_report *r = run_check(m, t, LG_GPU_ADRENO);
    if (!r) {
        tf_fail(file, line, "lg_check_model failed");
        return;
    }
    char got[1024];
    finding_list(r, got, sizeof got);
    if (strcmp(got, want) != 0)
        tf_fail(file, line, "%s: findings \"%s\", expected \"%s\"", lg_target_name(t), got, want);
    if ((int)r->ready != ready) tf_fail(file, line, "%s: ready %d, expected %d", lg_target_name(t), r->ready, ready);
    lg_check_report_free(r);
}

/* The first finding of rule id on target t (Adreno) has reason and fix containing the given
   texts (NULL: not checked). */
#define EXPECT_TEXT(m, t, id, reason, fix) expect_text(__FILE__, __LINE__, (m), (t), (id), (reason), (fix))
static void expect_text(const char *file, int line, const lg_model *m, lg_target t, const char *id,
                        const char *reason, const char *fix) {
    if (!m) return;
    lg_check_report *r = run_check(m, t, LG_GPU_ADRENO);
    const lg_finding *f = NULL;
    for (uint32_t i = 0; r && i < r->n_findings && !f; i++)
        if (strcmp(r->findings[i].rule->id, id) == 0) f = &r->findings[i];
    if (!f) tf_fail(file, line, "%s: no %s finding", lg_target_name(t), id);
    else {
        if (reason && !strstr(f->reason, reason))
            tf_fail(file, line, "%s: reason \"%s\" lacks \"%s\"", lg_target_name(t), f->reason, reason);
        if (fix && !strstr(f->fix, fix)) tf_fail(file, line, "%s: fix \"%s\" lacks \"%s\"", lg_target_name(t), f->fix, fix);
    }
    lg_check_report_free(r);
}

/* Rule id is reported on target t for every GPU family (--gpu any included). */
static int reported_any(const lg_model *m, lg_target t, const char *id) {
    lg_check_report *r = run_check(m, t, LG_GPU_ANY);
    int n = 0;
    for (uint32_t i = 0; r && i < r->n_findings; i++) n += strcmp(r->findings[i].rule->id, id) == 0;
    lg_check_report_free(r);
    return n;
}

/* ------------------------------------------------------------------ the rule table */

LG_TEST(check_quant_rules_in_table) {
    const lg_rule_info *a = lg_rule_find("dequantize-const-shape"), *b = lg_rule_find("quant-graph-output"),
                       *c = lg_rule_find("op-version-understated");
    CHECK(a && b && c);
    if (!a || !b || !c) return;
    CHECK_EQ_INT(a->severity, LG_SEV_BLOCKER);
    CHECK_EQ_INT(a->targets, LG_TARGET_BIT(MLD) | LG_TARGET_BIT(CLS));
    CHECK_EQ_INT(b->severity, LG_SEV_BLOCKER);
    CHECK_EQ_INT(b->targets, LG_TARGET_BIT(MLD));
    CHECK_EQ_INT(c->severity, LG_SEV_WARNING);
    CHECK_EQ_INT(c->targets, LG_TARGET_BIT(MLD) | LG_TARGET_BIT(CLS));
    CHECK(strstr(a->fix, "--exclude") != NULL);
    unsigned n;
    const lgq_model *all = lgq_models(&n);
    const lg_rule_info *d = lg_rule_find("fc-runtime-weights-bias");
    CHECK(d && d->severity == LG_SEV_BLOCKER && d->targets == LG_TARGET_BIT(MLD));
    CHECK_EQ_INT(n, 26);
    for (unsigned i = 0; i < n; i++)
        if (!lg_rule_find(all[i].rule)) tf_fail(__FILE__, __LINE__, "model %s: no rule %s", all[i].name, all[i].rule);
}

/* ------------------------------------------------------------------ dequantize-const-shape */

/* FC(x [1,8], DEQUANTIZE(INT8 [4,8])): ML Drift builds {1,1,4,8}, reads {4,1,1,8}; classic:
   rank 2. Op 0 is the DEQUANTIZE, op 1 the FULLY_CONNECTED the fix names. */
LG_TEST(check_quant_dequantize_fc_weights) {
    lg_model *m = MODEL(dqc_trigger);
    EXPECT(m, MLD, 0, "dequantize-const-shape@0");
    EXPECT(m, CLS, 0, "dequantize-const-shape@0");
    EXPECT_TEXT(m, MLD, "dequantize-const-shape", "[4,8] is built as BHWC {1,1,4,8} but its output is read as {4,1,1,8}",
                "keep the weights of FULLY_CONNECTED (op 1) float or FLOAT16: litegpu quantize --exclude FULLY_CONNECTED");
    EXPECT_TEXT(m, CLS, "dequantize-const-shape", "(rank 2)", "--exclude FULLY_CONNECTED");
    CHECK_EQ_INT(reported_any(m, MLD, "dequantize-const-shape"), 1);
    CHECK_EQ_INT(reported_any(m, CLS, "dequantize-const-shape"), 1);
    lg_model_free(m);

    /* keep_num_dims over [1,3,8], DEQUANTIZE stored at 1 (its INT8 input needs 2 <= 3: no
       warning): the same constant */
    m = MODEL(dqc_trigger2);
    EXPECT(m, MLD, 0, "dequantize-const-shape@0");
    EXPECT(m, CLS, 0, "dequantize-const-shape@0");
    lg_model_free(m);

    /* the hand_landmark_lite head [63,672], with its bias: the FC (op 1) drops it too */
    m = MODEL(dqc_trigger6);
    EXPECT(m, MLD, 0, "dequantize-const-shape@0,fc-runtime-weights-bias@1");
    EXPECT(m, CLS, 0, "dequantize-const-shape@0");
    EXPECT_TEXT(m, MLD, "dequantize-const-shape", "{1,1,63,672} but its output is read as {63,1,1,672}", NULL);
    lg_model_free(m);

    /* near-miss: one row [1,8] is {1,1,1,8} both ways on ML Drift; the classic parser still
       reads rank 4 only */
    m = MODEL(dqc_nearmiss);
    EXPECT(m, MLD, 1, "");
    EXPECT(m, CLS, 0, "dequantize-const-shape@0");
    lg_model_free(m);

    /* near-miss: FLOAT16 weights are folded (no op to check); runtime weights have no constant */
    m = MODEL(dqc_nearmiss4);
    EXPECT(m, MLD, 1, "");
    EXPECT(m, CLS, 1, "");
    lg_model_free(m);
    m = MODEL(dqc_nearmiss5);
    EXPECT(m, MLD, 1, "");
    EXPECT(m, CLS, 1, "");
    lg_model_free(m);
}

/* Other readers of the constant: ADD of a rank-3 [2,3,4] (built {1,2,3,4}, read {2,1,3,4}),
   MUL of a UINT8 [4,8], BATCH_MATMUL of an [8,4]; near-misses [1,3,4] (one row: only the
   classic parser's rank 4 rule) and [2,3,4,5] / rank-4 conv weights (BHWC both ways). */
LG_TEST(check_quant_dequantize_other_consumers) {
    lg_model *m = MODEL(dqc_trigger3);
    EXPECT(m, MLD, 0, "dequantize-const-shape@0");
    EXPECT(m, CLS, 0, "dequantize-const-shape@0");
    EXPECT_TEXT(m, MLD, "dequantize-const-shape", "INT8 constant [2,3,4] is built as BHWC {1,2,3,4} but its output is read as {2,1,3,4}",
                "--exclude ADD");
    lg_model_free(m);

    m = MODEL(dqc_trigger4);
    EXPECT(m, MLD, 0, "dequantize-const-shape@0");
    EXPECT(m, CLS, 0, "dequantize-const-shape@0");
    EXPECT_TEXT(m, MLD, "dequantize-const-shape", "UINT8 constant [4,8]", "--exclude MUL");
    lg_model_free(m);

    m = MODEL(dqc_trigger5);
    EXPECT(m, MLD, 0, "dequantize-const-shape@0");
    EXPECT(m, CLS, 0, "dequantize-const-shape@0");
    EXPECT_TEXT(m, MLD, "dequantize-const-shape", "{1,1,8,4} but its output is read as {8,1,1,4}", "--exclude BATCH_MATMUL");
    lg_model_free(m);

    m = MODEL(dqc_nearmiss2);
    EXPECT(m, MLD, 1, "");
    EXPECT(m, CLS, 0, "dequantize-const-shape@0");
    EXPECT_TEXT(m, CLS, "dequantize-const-shape", "(rank 3)", NULL);
    lg_model_free(m);

    m = MODEL(dqc_nearmiss3);
    EXPECT(m, MLD, 1, "");
    EXPECT(m, CLS, 1, "");
    lg_model_free(m);
    m = MODEL(dqc_nearmiss6);
    EXPECT(m, MLD, 1, "");
    EXPECT(m, CLS, 1, "");
    lg_model_free(m);
}

/* ------------------------------------------------------------------ fc-runtime-weights-bias */

/* FC(x [1,8], weights [4,8] a graph input, bias [-0.3,-0.2,-0.1,0]): ML Drift only, about the
   FC (op 0); INT8 [1,8] weights through DEQUANTIZE (op 0) with bias -0.3: about the FC, op 1
   (the classic parser's rank-4 rule on the DEQUANTIZE). Near-misses: an all-zero bias, no
   bias, float or FLOAT16 (folded) constant weights. */
LG_TEST(check_quant_fc_runtime_weights_bias) {
    lg_model *m = MODEL(frw_trigger);
    EXPECT(m, MLD, 0, "fc-runtime-weights-bias@0");
    EXPECT(m, CLS, 1, "");
    EXPECT_TEXT(m, MLD, "fc-runtime-weights-bias", "weights 1 \"w\" [4,8] are computed at run time (a graph input) and its bias [4]",
                "--exclude FULLY_CONNECTED");
    CHECK_EQ_INT(reported_any(m, MLD, "fc-runtime-weights-bias"), 1);
    lg_model_free(m);

    m = MODEL(frw_trigger2);
    EXPECT(m, MLD, 0, "fc-runtime-weights-bias@1");
    EXPECT(m, CLS, 0, "dequantize-const-shape@0");
    EXPECT_TEXT(m, MLD, "fc-runtime-weights-bias", "(DEQUANTIZE)", NULL);
    lg_model_free(m);

    m = MODEL(frw_nearmiss);
    EXPECT(m, MLD, 1, "");
    EXPECT(m, CLS, 1, "");
    lg_model_free(m);
    m = MODEL(frw_nearmiss2);
    EXPECT(m, MLD, 1, "");
    EXPECT(m, CLS, 1, "");
    lg_model_free(m);
    m = MODEL(dqc_nearmiss5); /* no bias */
    EXPECT(m, MLD, 1, "");
    lg_model_free(m);
    m = MODEL(dqc_nearmiss4); /* FLOAT16 weights (folded: constant) and a bias */
    EXPECT(m, MLD, 1, "");
    lg_model_free(m);
}

/* ------------------------------------------------------------------ quant-graph-output */

/* A UINT8 (or INT8) graph output: ML Drift only, about the model (op -1), whatever the input
   is; a UINT8 input with a float output is not reported. The ops themselves stay on the GPU
   (op_place): only the output is on the CPU. */
LG_TEST(check_quant_graph_output) {
    lg_model *m = MODEL(qgo_trigger);
    EXPECT(m, MLD, 0, "quant-graph-output@-1");
    EXPECT(m, CLS, 1, "");
    EXPECT_TEXT(m, MLD, "quant-graph-output", "graph output 0: tensor", "DEQUANTIZE the output");
    CHECK_EQ_INT(reported_any(m, MLD, "quant-graph-output"), 1);
    lg_check_report *r = run_check(m, MLD, LG_GPU_ADRENO);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ_INT(r->n_gpu_ops, 2); /* QUANTIZE and RELU */
        CHECK_EQ_INT(r->n_cpu_ops, 0);
    }
    lg_check_report_free(r);
    lg_model_free(m);

    m = MODEL(qgo_trigger2);
    EXPECT(m, MLD, 0, "quant-graph-output@-1");
    EXPECT(m, CLS, 1, "");
    lg_model_free(m);
    m = MODEL(qgo_trigger3);
    EXPECT(m, MLD, 0, "quant-graph-output@-1");
    EXPECT_TEXT(m, MLD, "quant-graph-output", "INT8 [1,4,4,3]", NULL);
    lg_model_free(m);

    m = MODEL(qgo_nearmiss);
    EXPECT(m, MLD, 1, "");
    EXPECT(m, CLS, 1, "");
    lg_model_free(m);
    m = MODEL(qgo_nearmiss2);
    EXPECT(m, MLD, 1, "");
    EXPECT(m, CLS, 1, "");
    lg_model_free(m);
}

/* ------------------------------------------------------------------ op-version-understated */

/* Per-channel INT8 conv weights through a DEQUANTIZE stored at 2: judged on 2 <= 3, ready, with
   the warning naming the 5 its input needs; INT4 stored at 2: the same on ML Drift, and the
   classic parser cannot read INT4. At version 5 (what the converter writes): op-version. */
LG_TEST(check_quant_dequantize_stored_version) {
    lg_model *m = MODEL(ovu_trigger);
    EXPECT(m, MLD, 1, "op-version-understated@0");
    EXPECT(m, CLS, 1, "op-version-understated@0");
    EXPECT_TEXT(m, MLD, "op-version-understated", "stored version 2 is within the max 3, though its input needs 5", NULL);
    CHECK_EQ_INT(reported_any(m, CLS, "op-version-understated"), 1);
    lg_model_free(m);

    m = MODEL(ovu_trigger2);
    EXPECT(m, MLD, 1, "op-version-understated@0");
    EXPECT(m, CLS, 0, "dequantize-const-shape@0,op-version-understated@0");
    EXPECT_TEXT(m, MLD, "op-version-understated", "needs 6", NULL);
    EXPECT_TEXT(m, CLS, "dequantize-const-shape", "INT4 constant [2,3,3,3]: \"Unsupported data type for float32 tensor\"", NULL);
    lg_model_free(m);

    m = MODEL(ovu_nearmiss);
    EXPECT(m, MLD, 0, "op-version@0");
    EXPECT(m, CLS, 0, "op-version@0");
    lg_model_free(m);
    m = MODEL(ovu_nearmiss2);
    EXPECT(m, MLD, 1, "");
    EXPECT(m, CLS, 1, "");
    lg_model_free(m);

    /* not a DEQUANTIZE: TRANSPOSE_CONV + RELU stored at 3 is judged on the computed 4 */
    m = MODEL(ovu_nearmiss3);
    EXPECT(m, MLD, 0, "op-version@0");
    EXPECT(m, CLS, 0, "op-version@0");
    lg_model_free(m);

    /* a stored version above the max is still a blocker: the rank-4 per-tensor weights
       (computed 2) stored at 4 */
    m = MODEL(dqc_nearmiss6);
    if (m) {
        m->opcodes[m->subgraphs[0].ops[0].opcode_index].version = 4;
        EXPECT(m, MLD, 0, "op-version@0");
        EXPECT(m, CLS, 0, "op-version@0");
        EXPECT_TEXT(m, MLD, "op-version", "DEQUANTIZE version 4 > max 3 (stored 4; computed 2", NULL);
    }
    lg_model_free(m);
}
