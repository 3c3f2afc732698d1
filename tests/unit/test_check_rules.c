/* lg_check_model, rule by rule: for every rule of src/check/rules.def a tiny builder-made
   model that triggers it and a near-miss that must not, on each target the rule applies to,
   plus the cases where the two targets disagree. Every trigger asserts the rule id AND the
   op the finding names (and that no other op gets that rule).

   Expected outcomes come from the rule text: shared/reference/gpu-delegate-rules.md (section
   1.2 global rules, 1.3 op lists, 1.4 per-op table) and the seed field notes (TRANSPOSE_CONV
   on Mali, const-only inputs, PADV2 -inf, multi-axis mean over ~65k elements, FC 2-D +
   LayerScale MUL, align_corners, the shader-compile limit, INT64). The comment above each
   test names the line it relies on. The models come from the shared library
   tests/models/rule_models.c, which tests/tools/make_rule_models.c also writes out for the
   real ML Drift delegate (tests/e2e/test_check_vs_delegate.sh). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/check.h"
#include "../models/rule_models.h"
#include "lg/lg.h"
#include "tf.h"

#define ANY_OP INT32_MIN
#define MLD LG_TARGET_MLDRIFT
#define CLS LG_TARGET_CLASSIC

/* ------------------------------------------------------------------ helpers */

/* A model of the shared library tests/models/rule_models.c, built with graph I/O of any type
   (LGM_IO_ANY: the op under test reads and writes the graph I/O directly). NULL after
   recording a failure when it cannot be built. */
#define MODEL(fn) model_at(__FILE__, __LINE__, lgm_##fn)
static lg_model *model_at(const char *file, int line, lgm_build_fn fn) {
    lg_error err;
    lg_model *m = lgm_build(fn, LGM_IO_ANY, &err);
    if (!m) tf_fail(file, line, "building the model failed: %s", err.msg);
    return m;
}

static lg_check_report *check_max(const lg_model *m, lg_target t, uint32_t max_ops) {
    lg_check_options opt = {t, max_ops, LG_GPU_ANY};
    lg_check_report *r = NULL;
    lg_error err;
    if (!m || lg_check_model(m, &opt, &r, &err) != LG_OK) return NULL;
    return r;
}

static lg_check_report *check(const lg_model *m, lg_target t) { return check_max(m, t, 0); }

/* Number of findings of rule `id` about op `op` (ANY_OP: about any op, -1: the model). */
static int find(const lg_check_report *r, const char *id, int32_t op) {
    int n = 0;
    for (uint32_t i = 0; r && i < r->n_findings; i++)
        if (strcmp(r->findings[i].rule->id, id) == 0 && (op == ANY_OP || r->findings[i].op == op)) n++;
    return n;
}

static void dump(const lg_check_report *r) {
    for (uint32_t i = 0; r && i < r->n_findings; i++)
        fprintf(stderr, "      [%s] %s op %d: %s\n", lg_target_name(r->target),
                r->findings[i].rule->id, r->findings[i].op, r->findings[i].reason);
}

/* Rule `id` is reported on target t about op `op`, and about no other op. */
#define EXPECT_AT(m, t, id, op) expect_at(__FILE__, __LINE__, (m), (t), (id), (op), 0)
/* Same on both targets. */
#define EXPECT_BOTH(m, id, op) \
    do { EXPECT_AT((m), MLD, (id), (op)); EXPECT_AT((m), CLS, (id), (op)); } while (0)
/* Rule `id` is not reported on target t (about any op). */
#define EXPECT_NONE(m, t, id) expect_at(__FILE__, __LINE__, (m), (t), (id), ANY_OP, 1)
#define EXPECT_NONE_BOTH(m, id) \
    do { EXPECT_NONE((m), MLD, (id)); EXPECT_NONE((m), CLS, (id)); } while (0)
/* Ready on target t with no finding at all. */
#define EXPECT_CLEAN(m, t) expect_clean(__FILE__, __LINE__, (m), (t))
#define EXPECT_CLEAN_BOTH(m) do { EXPECT_CLEAN((m), MLD); EXPECT_CLEAN((m), CLS); } while (0)

static void expect_at(const char *file, int line, const lg_model *m, lg_target t, const char *id,
                      int32_t op, int absent) {
    if (!m) return; /* the build failure was reported */
    if (!lg_rule_find(id)) {
        tf_fail(file, line, "no rule \"%s\" in the table", id);
        return;
    }
    lg_check_report *r = check(m, t);
    if (!r) {
        tf_fail(file, line, "lg_check_model failed");
        return;
    }
    int at = find(r, id, op), any = find(r, id, ANY_OP);
    if (absent && any) {
        tf_fail(file, line, "%s: %s reported %d time(s), expected none", lg_target_name(t), id, any);
        dump(r);
    } else if (!absent && (at < 1 || any != at)) {
        tf_fail(file, line, "%s: %s about op %d: %d finding(s), %d about other ops; expected it about op %d only",
                lg_target_name(t), id, op, at, any - at, op);
        dump(r);
    }
    lg_check_report_free(r);
}

static void expect_clean(const char *file, int line, const lg_model *m, lg_target t) {
    if (!m) return;
    lg_check_report *r = check(m, t);
    if (!r) {
        tf_fail(file, line, "lg_check_model failed");
        return;
    }
    /* "clean" tolerates the field-banned-op warning only: it flags ops (GATHER, CAST, SPLIT,
       comparisons, SELECT...) that pass the delegates' source rules; it has its own test */
    uint32_t banned = (uint32_t)find(r, "field-banned-op", ANY_OP);
    if (!r->ready || r->n_findings != banned || r->n_blockers || r->n_warnings != banned ||
        r->n_gpu_ops != r->n_ops) {
        tf_fail(file, line, "%s: expected ready with no finding and every op on the GPU; got ready %d, "
                "%u finding(s), %u/%u ops on the GPU", lg_target_name(t), r->ready, r->n_findings,
                r->n_gpu_ops, r->n_ops);
        dump(r);
    }
    lg_check_report_free(r);
}

/* The rule ids this file covers; rule_table_is_covered keeps it equal to rules.def. */
static const char *const covered[] = {
    "op-unsupported", "op-no-compat-case", "custom-op-unsupported", "op-version",
    "tensor-rank", "tensor-dtype", "quant-per-channel-runtime", "fused-activation",
    "broadcast", "input-count", "const-axes", "dynamic-tensor", "dynamic-input",
    "identical-inputs", "op-params", "resize-flags", "strided-slice-masks",
    "strided-slice-reverse", "slice-rank", "transpose-perm", "softmax-beta",
    "depthwise-shape", "mirror-pad-mode", "pad-shape", "cast-types", "compare-consumer",
    "reduce-axes", "mali-transpose-conv", "const-only-inputs", "padv2-nonzero",
    "large-multi-axis-reduce", "fc-2d-broadcast", "resize-align-corners", "graph-size",
    "int64-tensor", "gather-const-indices", "field-banned-op", "webgpu-pad-layout",
    "webgpu-space-depth-batch",
    /* tests/unit/test_check_quant.c */
    "dequantize-const-shape", "fc-runtime-weights-bias", "quant-graph-output", "op-version-understated",
};

LG_TEST(check_rules_table_is_covered) {
    uint32_t n = 0;
    const lg_rule_info *rules = lg_rules(&n);
    size_t nc = sizeof covered / sizeof covered[0];
    CHECK_EQ_INT(n, nc);
    for (uint32_t i = 0; i < n; i++) {
        int hit = 0;
        for (size_t j = 0; j < nc; j++) hit |= strcmp(rules[i].id, covered[j]) == 0;
        if (!hit) tf_fail(__FILE__, __LINE__, "rule %s has no test here", rules[i].id);
        CHECK(lg_rule_find(rules[i].id) == &rules[i]);
        CHECK(rules[i].targets != 0 && (rules[i].targets & ~LG_TARGETS_ALL) == 0);
    }
    for (size_t j = 0; j < nc; j++)
        if (!lg_rule_find(covered[j])) tf_fail(__FILE__, __LINE__, "covered id %s is not a rule", covered[j]);
    CHECK(lg_rule_find("nope") == NULL);
    /* targets as documented (rules.def): the classic-only and ML Drift-only rules */
    CHECK_EQ_INT(lg_rule_find("compare-consumer")->targets, LG_TARGET_BIT(CLS));
    CHECK_EQ_INT(lg_rule_find("op-no-compat-case")->targets, LG_TARGET_BIT(MLD));
    CHECK_EQ_INT(lg_rule_find("identical-inputs")->targets, LG_TARGET_BIT(MLD));
    CHECK_EQ_INT(lg_rule_find("quant-per-channel-runtime")->targets, LG_TARGET_BIT(MLD));
    CHECK_EQ_INT(lg_rule_find("gather-const-indices")->targets, LG_TARGET_BIT(MLD));
    CHECK_EQ_INT(lg_rule_find("graph-size")->severity, LG_SEV_WARNING);
    CHECK_EQ_INT(lg_rule_find("dynamic-input")->severity, LG_SEV_WARNING);
    CHECK_EQ_INT(lg_rule_find("resize-align-corners")->severity, LG_SEV_WARNING);
    CHECK_EQ_INT(lg_rule_find("gather-const-indices")->severity, LG_SEV_BLOCKER);
}

/* ------------------------------------------------------------------ op sets (1.3) */

/* GATHER_ND is in neither parser switch (1.3); GATHER is in both (1-D INT32 indices). */
LG_TEST(check_op_unsupported_gather_nd) {
    /* x -> RELU -> GATHER_ND -> y: op 1 */
    lg_model *m = MODEL(op_unsupported_trigger);
    EXPECT_BOTH(m, "op-unsupported", 1);
    lg_model_free(m);

    /* near-miss: GATHER of one channel with 1-D INT32 constant indices */
    m = MODEL(op_unsupported_nearmiss);
    EXPECT_NONE_BOTH(m, "op-unsupported");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* 1.3: the classic parser is the compat list minus LOGICAL_OR, ROUND, TOPK_V2 (and others);
   ML Drift takes them. DENSIFY is in the classic parser and not in ML Drift's. */
LG_TEST(check_op_unsupported_targets_differ) {
    /* LOGICAL_OR on bool tensors (ML Drift: logical ops take bool in and out) */
    lg_model *m = MODEL(op_unsupported_nearmiss3);
    EXPECT_AT(m, CLS, "op-unsupported", 0);
    EXPECT_NONE(m, MLD, "op-unsupported");
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);

    /* ROUND: 1 runtime input, v1 */
    m = MODEL(op_unsupported_nearmiss2);
    EXPECT_AT(m, CLS, "op-unsupported", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);

    /* TOPK_V2: 1 runtime input, constant scalar k, 2 outputs (values, INT32 indices) */
    m = MODEL(field_banned_op_trigger2);
    EXPECT_AT(m, CLS, "op-unsupported", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);

    /* DENSIFY: 0 runtime inputs, 1 output; its output feeds a FULLY_CONNECTED as weights */
    m = MODEL(op_unsupported_trigger2);
    EXPECT_CLEAN(m, CLS);
    EXPECT_AT(m, MLD, "op-unsupported", 0);
    lg_model_free(m);
}

/* 1.1 (inference): RELU_0_TO_1 and BITWISE_XOR are in the ML Drift switch but have no compat
   case -> "Not supported op"; the classic RELU parser only checks version <= 2. */
LG_TEST(check_op_no_compat_case) {
    lg_model *m = MODEL(op_no_compat_case_trigger);
    EXPECT_AT(m, MLD, "op-no-compat-case", 0);
    EXPECT_NONE(m, CLS, "op-no-compat-case");
    EXPECT_CLEAN(m, CLS);
    lg_model_free(m);

    /* near-miss: RELU has a compat case */
    m = MODEL(op_no_compat_case_nearmiss);
    EXPECT_NONE(m, MLD, "op-no-compat-case");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);

    /* BITWISE_XOR on INT32 (logical ops take int32 on ML Drift): no compat case on ML Drift,
       not in the classic parser at all */
    m = MODEL(op_no_compat_case_trigger2);
    EXPECT_AT(m, MLD, "op-no-compat-case", 0);
    EXPECT_NONE(m, MLD, "op-unsupported");
    EXPECT_AT(m, CLS, "op-unsupported", 0);
    lg_model_free(m);
}

/* CUSTOM (1.3): both take the four classic custom ops by name; ML Drift adds the
   custom_call.* norms; anything else is "Not supported custom op". */
LG_TEST(check_custom_op_unsupported) {
    lg_model *m = MODEL(custom_op_unsupported_trigger); /* MyOp */
    EXPECT_BOTH(m, "custom-op-unsupported", 1);
    lg_model_free(m);
    m = MODEL(custom_op_unsupported_nearmiss); /* Convolution2DTransposeBias */
    EXPECT_NONE_BOTH(m, "custom-op-unsupported");
    lg_model_free(m);
    m = MODEL(custom_op_unsupported_nearmiss2); /* custom_call.LayerNorm */
    EXPECT_NONE(m, MLD, "custom-op-unsupported");
    EXPECT_AT(m, CLS, "custom-op-unsupported", 1);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ op-version (1.4) */

static int reason_has(const lg_model *m, lg_target t, const char *id, const char *needle) {
    lg_check_report *r = check(m, t);
    int hit = 0;
    for (uint32_t i = 0; r && i < r->n_findings; i++)
        if (strcmp(r->findings[i].rule->id, id) == 0 && strstr(r->findings[i].reason, needle)) hit = 1;
    if (!hit) dump(r);
    lg_check_report_free(r);
    return hit;
}

/* TRANSPOSE_CONV: output_shape, weights, input (+ bias). v4 = fused activation, v3 = bias;
   both delegates take v <= 3. */
LG_TEST(check_op_version_transpose_conv_activation) {
    lg_model *m = MODEL(op_version_trigger); /* RELU, with bias */
    EXPECT_BOTH(m, "op-version", 0);
    EXPECT_BOTH(m, "mali-transpose-conv", 0);
    if (m) {
        CHECK(reason_has(m, MLD, "op-version", "version 4 > max 3"));
        CHECK(reason_has(m, CLS, "op-version", "version 4 > max 3"));
    }
    lg_model_free(m);
    /* near-miss: no fused activation, with bias: v3 */
    m = MODEL(mali_transpose_conv_trigger2);
    EXPECT_NONE_BOTH(m, "op-version");
    lg_model_free(m);
}

/* SOFTMAX v4 = FLOAT16 input: classic v <= 2, ML Drift v <= 4. */
LG_TEST(check_op_version_softmax_fp16) {
    lg_model *m = MODEL(op_version_nearmiss2); /* FLOAT16 */
    EXPECT_AT(m, CLS, "op-version", 0);
    if (m) CHECK(reason_has(m, CLS, "op-version", "version 4 > max 2"));
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    m = MODEL(softmax_beta_nearmiss); /* FLOAT32, beta 1 */
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* CONCATENATION v6 = FLOAT16 input: classic v <= 2 ("fp16 tensors give v6 -> rejected"),
   ML Drift v <= 6. */
LG_TEST(check_op_version_concat_fp16) {
    lg_model *m = MODEL(op_version_nearmiss3); /* FLOAT16 */
    EXPECT_AT(m, CLS, "op-version", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    m = MODEL(op_version_nearmiss4); /* FLOAT32 */
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* The version stored in the file counts too: RELU max v2 on both. */
LG_TEST(check_op_version_stored) {
    lg_model *m = MODEL(op_version_trigger2);
    EXPECT_BOTH(m, "op-version", 0);
    if (m) CHECK(reason_has(m, MLD, "op-version", "version 3 > max 2"));
    lg_model_free(m);
    m = MODEL(op_version_nearmiss);
    EXPECT_NONE_BOTH(m, "op-version");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ global rules (1.2) */

/* Any input or output of rank >= 5 rejects the node. */
LG_TEST(check_tensor_rank) {
    lg_model *m = MODEL(tensor_rank_trigger); /* RELU -> RESHAPE to rank 5 */
    EXPECT_BOTH(m, "tensor-rank", 1);
    lg_model_free(m);
    m = MODEL(tensor_rank_nearmiss); /* ... to rank 3 */
    EXPECT_NONE_BOTH(m, "tensor-rank");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Runtime tensors must be FLOAT32/FLOAT16 (INT8/UINT8 quantized); ML Drift's
   IsIntSupportedOp (ADD, ...) also takes int32. RELU is not among them. */
LG_TEST(check_tensor_dtype) {
    lg_model *m = MODEL(tensor_dtype_trigger); /* RELU on INT32 */
    EXPECT_BOTH(m, "tensor-dtype", 0);
    lg_model_free(m);
    m = MODEL(tensor_dtype_nearmiss); /* RELU on FLOAT16 */
    EXPECT_NONE_BOTH(m, "tensor-dtype");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);

    /* INT32 ADD: classic rejects the type, ML Drift takes it */
    m = MODEL(tensor_dtype_nearmiss2);
    EXPECT_AT(m, CLS, "tensor-dtype", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
}

/* ML Drift: an int8/uint8 runtime tensor with more than one scale -> "Unsupported
   quantization scale size". Constant (weight) tensors may be per-channel. */
LG_TEST(check_quant_per_channel_runtime) {
    /* INT8 RELU, the input per-channel (4 scales on axis 3) */
    lg_model *m = MODEL(quant_per_channel_runtime_trigger);
    EXPECT_AT(m, MLD, "quant-per-channel-runtime", 0);
    EXPECT_NONE(m, CLS, "quant-per-channel-runtime"); /* an ML Drift rule */
    lg_model_free(m);
    /* the same, per-tensor */
    m = MODEL(quant_per_channel_runtime_nearmiss);
    EXPECT_NONE(m, MLD, "quant-per-channel-runtime");
    EXPECT_NONE(m, CLS, "quant-per-channel-runtime");
    lg_model_free(m);

    /* near-miss: per-channel constant weights of a quantized CONV_2D */
    m = MODEL(quant_per_channel_runtime_nearmiss2);
    EXPECT_NONE_BOTH(m, "quant-per-channel-runtime");
    lg_model_free(m);
}

/* Fused activations NONE, RELU, RELU_N1_TO_1, RELU6, TANH (SIGMOID) are fine; SIGN_BIT is
   rejected. */
LG_TEST(check_fused_activation) {
    lg_model *m = MODEL(fused_activation_trigger);
    EXPECT_BOTH(m, "fused-activation", 0);
    lg_model_free(m);
    const lgm_build_fn fine[] = {lgm_fused_activation_nearmiss4, lgm_fused_activation_nearmiss5,
                                 lgm_fused_activation_nearmiss3, lgm_fused_activation_nearmiss,
                                 lgm_fused_activation_nearmiss2}; /* NONE RELU RELU_N1_TO_1 RELU6 TANH */
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
        m = model_at(__FILE__, __LINE__, fine[i]);
        EXPECT_NONE_BOTH(m, "fused-activation");
        EXPECT_CLEAN_BOTH(m);
        lg_model_free(m);
    }
}

/* ADD/MUL with ranks differing and both > 1: classic (kStandard) takes only 4D+3D (batch 1),
   4D+[1,1], 4D [b,h,w,c]+2D [b,c]; ML Drift numpy broadcasting of rank 1-4 operands. */
LG_TEST(check_broadcast) {
    /* same rank, not broadcastable: both */
    lg_model *m = MODEL(broadcast_trigger);
    EXPECT_BOTH(m, "broadcast", 0);
    lg_model_free(m);
    /* 4D + 3D, 3D not broadcastable: both */
    m = MODEL(broadcast_trigger2);
    EXPECT_BOTH(m, "broadcast", 0);
    lg_model_free(m);
    /* 4D with batch 2 + 3D: classic blocked, ML Drift fine */
    m = MODEL(broadcast_nearmiss2);
    EXPECT_AT(m, CLS, "broadcast", 0);
    EXPECT_NONE(m, MLD, "broadcast");
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    /* 3D + 2D: classic only broadcasts onto 4D; ML Drift fine */
    m = MODEL(broadcast_nearmiss3);
    EXPECT_AT(m, CLS, "broadcast", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    /* near-misses: 4D (batch 1) + 3D, 4D [b,h,w,c] + 2D [b,c], 4D + [1,1], 4D + 1-D */
    m = MODEL(broadcast_nearmiss);
    EXPECT_NONE_BOTH(m, "broadcast");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(broadcast_nearmiss4);
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(broadcast_nearmiss5);
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(broadcast_nearmiss6);
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* CheckInputsOutputs: unary ops take exactly 1 runtime input; convolutions 1-2 runtime
   inputs and 1 output. */
LG_TEST(check_input_count) {
    lg_model *m = MODEL(input_count_trigger); /* LOGISTIC(x, x2) */
    EXPECT_BOTH(m, "input-count", 0);
    lg_model_free(m);
    m = MODEL(input_count_nearmiss); /* LOGISTIC(x) */
    EXPECT_NONE_BOTH(m, "input-count");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    /* CONV_2D with runtime weights: + runtime bias = 3 runtime inputs (blocked); + constant
       bias = 2 runtime inputs (fine) */
    m = MODEL(input_count_trigger2);
    EXPECT_BOTH(m, "input-count", 0);
    lg_model_free(m);
    m = MODEL(input_count_nearmiss2);
    EXPECT_NONE_BOTH(m, "input-count");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    /* ADD_N: exactly 2 inputs (lgc_rule_add_n) */
    m = MODEL(input_count_trigger3); /* 3 inputs */
    EXPECT_BOTH(m, "input-count", 0);
    lg_model_free(m);
    m = MODEL(input_count_nearmiss4); /* 2 inputs */
    EXPECT_NONE_BOTH(m, "input-count");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* CheckAxesAreInt32Const: axes constant and INT32 (MEAN over constant INT64 axes, runtime
   INT32 axes; near-miss constant INT32). */
LG_TEST(check_const_axes) {
    lg_model *m = MODEL(const_axes_trigger);
    EXPECT_BOTH(m, "const-axes", 0);
    lg_model_free(m);
    m = MODEL(const_axes_trigger2);
    EXPECT_BOTH(m, "const-axes", 0);
    lg_model_free(m);
    m = MODEL(const_axes_nearmiss);
    EXPECT_NONE_BOTH(m, "const-axes");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Static shapes only: RESHAPE with a runtime shape (op 1), RESIZE with a runtime size. */
LG_TEST(check_dynamic_tensor) {
    lg_model *m = MODEL(dynamic_tensor_trigger);
    EXPECT_BOTH(m, "dynamic-tensor", 1);
    lg_model_free(m);
    m = MODEL(dynamic_tensor_nearmiss);
    EXPECT_NONE_BOTH(m, "dynamic-tensor");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(dynamic_tensor_trigger2);
    EXPECT_BOTH(m, "dynamic-tensor", 0);
    lg_model_free(m);
    m = MODEL(dynamic_tensor_nearmiss2);
    EXPECT_NONE_BOTH(m, "dynamic-tensor");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* An input whose shape_signature has -1: a warning about the model (op -1). */
LG_TEST(check_dynamic_input) {
    lg_model *m = MODEL(dynamic_input_trigger);
    if (!m) return;
    EXPECT_BOTH(m, "dynamic-input", -1);
    for (int t = 0; t < LG_TARGET_COUNT; t++) {
        lg_check_report *r = check(m, (lg_target)t);
        CHECK(r && r->ready && r->n_warnings == 1 && r->n_blockers == 0);
        if (r && r->n_findings == 1) {
            CHECK_EQ_INT(r->findings[0].n_tensors, 1);
            CHECK_EQ_INT(r->findings[0].tensors[0], m->subgraphs[0].inputs[0]);
        }
        lg_check_report_free(r);
    }
    lg_model_free(m);
    m = MODEL(dynamic_input_nearmiss);
    EXPECT_NONE_BOTH(m, "dynamic-input");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* ML Drift elementwise parser: "No support of few identical inputs in the same operation"
   (only ADD and MUL may share). The classic delegate has no such rule. */
LG_TEST(check_identical_inputs) {
    lg_model *m = MODEL(identical_inputs_trigger); /* DIV(x, x) */
    EXPECT_AT(m, MLD, "identical-inputs", 0);
    EXPECT_NONE(m, CLS, "identical-inputs");
    EXPECT_CLEAN(m, CLS);
    lg_model_free(m);
    m = MODEL(identical_inputs_trigger2); /* SUB(x, x) */
    EXPECT_AT(m, MLD, "identical-inputs", 0);
    lg_model_free(m);
    /* near-misses: MUL(x, x), ADD(x, x), DIV(x, y) */
    m = MODEL(identical_inputs_nearmiss);
    EXPECT_NONE(m, MLD, "identical-inputs");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(identical_inputs_nearmiss2);
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(identical_inputs_nearmiss3);
    EXPECT_NONE(m, MLD, "identical-inputs");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    /* BATCH_MATMUL(x, x): no parser check, seen never finishing on WebGPU; (x, x2) runs */
    m = MODEL(identical_inputs_trigger3);
    EXPECT_AT(m, MLD, "identical-inputs", 0);
    EXPECT_NONE(m, CLS, "identical-inputs");
    lg_model_free(m);
    m = MODEL(identical_inputs_nearmiss4);
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Per-op parameters: SPACE_TO_DEPTH block_size > 1, CONV_2D strides > 0; BATCH_MATMUL with
   one runtime input: classic needs a constant 2-D second operand, ML Drift rank 2-4. */
LG_TEST(check_op_params) {
    lg_model *m = MODEL(op_params_trigger); /* block_size 1 */
    EXPECT_BOTH(m, "op-params", 0);
    lg_model_free(m);
    m = MODEL(op_params_nearmiss); /* block_size 2 */
    EXPECT_NONE_BOTH(m, "op-params");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(op_params_trigger2); /* stride_h 0 */
    EXPECT_BOTH(m, "op-params", 0);
    lg_model_free(m);
    m = MODEL(op_params_nearmiss2); /* BATCH_MATMUL, constant rank 3 */
    EXPECT_AT(m, CLS, "op-params", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    m = MODEL(op_params_nearmiss3); /* constant rank 2 */
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* "If half_pixel_centers is True, align_corners must be False." */
LG_TEST(check_resize_flags) {
    lg_model *m = MODEL(resize_flags_trigger);
    EXPECT_BOTH(m, "resize-flags", 0);
    lg_model_free(m);
    m = MODEL(resize_flags_nearmiss);
    EXPECT_NONE_BOTH(m, "resize-flags");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Field notes: RESIZE_BILINEAR with align_corners=True keeps a model off the GPU (warning). */
LG_TEST(check_resize_align_corners) {
    lg_model *m = MODEL(resize_align_corners_trigger);
    EXPECT_BOTH(m, "resize-align-corners", 0);
    EXPECT_NONE_BOTH(m, "resize-flags");
    for (int t = 0; m && t < LG_TARGET_COUNT; t++) {
        lg_check_report *r = check(m, (lg_target)t);
        CHECK(r && r->ready && r->n_warnings == 1 && r->n_blockers == 0);
        lg_check_report_free(r);
    }
    lg_model_free(m);
    m = MODEL(resize_align_corners_nearmiss);
    EXPECT_NONE_BOTH(m, "resize-align-corners");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* ellipsis_mask, new_axis_mask and shrink_axis_mask must all be 0. */
LG_TEST(check_strided_slice_masks) {
    lg_model *m = MODEL(strided_slice_masks_trigger); /* shrink_axis_mask 1 */
    EXPECT_BOTH(m, "strided-slice-masks", 0);
    lg_model_free(m);
    m = MODEL(strided_slice_masks_trigger2); /* shrink_axis_mask 9, a stride 2 */
    EXPECT_BOTH(m, "strided-slice-masks", 0);
    lg_model_free(m);
    m = MODEL(strided_slice_masks_trigger3); /* ellipsis_mask 1 (also op version 6) */
    EXPECT_BOTH(m, "strided-slice-masks", 0);
    EXPECT_BOTH(m, "op-version", 0);
    lg_model_free(m);
    m = MODEL(strided_slice_masks_nearmiss); /* begin/end masks are fine */
    EXPECT_NONE_BOTH(m, "strided-slice-masks");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* "Reverse slices are not supported." (negative stride) */
LG_TEST(check_strided_slice_reverse) {
    lg_model *m = MODEL(strided_slice_reverse_trigger);
    EXPECT_BOTH(m, "strided-slice-reverse", 0);
    lg_model_free(m);
    m = MODEL(strided_slice_reverse_trigger2); /* stride -2 on W */
    EXPECT_BOTH(m, "strided-slice-reverse", 0);
    lg_model_free(m);
    m = MODEL(strided_slice_reverse_nearmiss);
    EXPECT_NONE_BOTH(m, "strided-slice-reverse");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Compat: SLICE/STRIDED_SLICE input of rank 3 or 4. ML Drift's SLICE skips the compat check
   and takes rank 1-4; its STRIDED_SLICE goes through the compat check. */
LG_TEST(check_slice_rank) {
    lg_model *m = MODEL(slice_rank_nearmiss3); /* SLICE [8,4] */
    EXPECT_AT(m, CLS, "slice-rank", 0);
    EXPECT_NONE(m, MLD, "slice-rank");
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    m = MODEL(slice_rank_nearmiss5);          /* STRIDED_SLICE [8,4] */
    EXPECT_AT(m, CLS, "slice-rank", 0);      /* the shared check: rank 3 or 4 */
    EXPECT_NONE(m, MLD, "slice-rank");       /* ML Drift's own copy: rank 1-4 (seen on WebGPU) */
    lg_model_free(m);
    m = MODEL(slice_rank_nearmiss); /* SLICE [1,8,8,4] */
    EXPECT_NONE_BOTH(m, "slice-rank");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(slice_rank_nearmiss2); /* SLICE [1,8,4] */
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* TRANSPOSE permutation length 2-4. */
LG_TEST(check_transpose_perm) {
    lg_model *m = MODEL(transpose_perm_nearmiss); /* length 4 */
    EXPECT_NONE_BOTH(m, "transpose-perm");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(transpose_perm_trigger); /* length 1 */
    EXPECT_BOTH(m, "transpose-perm", 0);
    lg_model_free(m);
}

/* SOFTMAX beta == 1 only. */
LG_TEST(check_softmax_beta) {
    lg_model *m = MODEL(softmax_beta_nearmiss);
    EXPECT_NONE_BOTH(m, "softmax-beta");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(softmax_beta_trigger); /* 0.5 */
    EXPECT_BOTH(m, "softmax-beta", 0);
    lg_model_free(m);
}

/* DEPTHWISE_CONV_2D: out.c == in.c x depth_multiplier, filter.dims[3] == out.c, bias == out.c. */
LG_TEST(check_depthwise_shape) {
    lg_model *m = MODEL(depthwise_shape_trigger); /* 8 output channels from 4 x 1 */
    EXPECT_BOTH(m, "depthwise-shape", 0);
    lg_model_free(m);
    m = MODEL(depthwise_shape_nearmiss); /* 4 x 2 */
    EXPECT_NONE_BOTH(m, "depthwise-shape");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* MIRROR_PAD: REFLECT mode only. */
LG_TEST(check_mirror_pad_mode) {
    lg_model *m = MODEL(mirror_pad_mode_trigger); /* SYMMETRIC */
    EXPECT_BOTH(m, "mirror-pad-mode", 0);
    lg_model_free(m);
    m = MODEL(mirror_pad_mode_nearmiss);
    EXPECT_NONE_BOTH(m, "mirror-pad-mode");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Paddings 4x2 or 3x2 only (rank-3 or rank-4 data). */
LG_TEST(check_pad_shape) {
    lg_model *m = MODEL(pad_shape_trigger); /* 2x2 */
    EXPECT_BOTH(m, "pad-shape", 0);
    lg_model_free(m);
    m = MODEL(pad_shape_trigger2); /* 1x2 */
    EXPECT_BOTH(m, "pad-shape", 0);
    lg_model_free(m);
    m = MODEL(pad_shape_nearmiss); /* 4x2 */
    EXPECT_NONE_BOTH(m, "pad-shape");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(pad_shape_nearmiss2); /* 3x2 on [8,8,4] */
    EXPECT_NONE_BOTH(m, "pad-shape");
    EXPECT_CLEAN(m, CLS);
    EXPECT_AT(m, MLD, "webgpu-pad-layout", 0); /* rank 3 with a first dim > 1: seen wrong on WebGPU */
    lg_model_free(m);
}

/* ------------------------------------------------------------------ CAST and comparisons */

/* Compat CAST: bool->f16/f32, f16/f32->bool, {f32,i32}->{f32,i32}; classic: a cast from bool
   must read a single comparison op with one consumer and not be a graph output. ML Drift
   skips the compat check for CAST. */
LG_TEST(check_cast_types) {
    lg_model *m = MODEL(cast_types_nearmiss); /* f16 -> i32 */
    EXPECT_AT(m, CLS, "cast-types", 0);
    EXPECT_NONE(m, MLD, "cast-types");
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    m = MODEL(int64_tensor_nearmiss); /* f32 -> i32 */
    EXPECT_NONE_BOTH(m, "cast-types");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(cast_types_nearmiss2); /* i32 -> f32 */
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    /* bool -> f32 of a graph input (not a comparison): classic blocked */
    m = MODEL(cast_types_nearmiss4);
    EXPECT_AT(m, CLS, "cast-types", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    /* LESS -> CAST -> graph output: "Cast from bool not supported for outputs" */
    m = MODEL(cast_types_nearmiss3);
    EXPECT_AT(m, CLS, "cast-types", 1);
    EXPECT_NONE(m, CLS, "compare-consumer");
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    /* LESS -> CAST -> RELU: fine on both */
    m = MODEL(cast_types_nearmiss5);
    EXPECT_NONE_BOTH(m, "cast-types");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Classic: a comparison is taken only if its output has exactly 1 consumer, a
   CAST/SELECT/SELECT_V2 producing f16/f32. ML Drift has no such rule. */
LG_TEST(check_compare_consumer) {
    lg_model *m = MODEL(compare_consumer_nearmiss); /* GREATER feeding two CASTs */
    EXPECT_AT(m, CLS, "compare-consumer", 0);
    EXPECT_NONE(m, MLD, "compare-consumer");
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    /* the comparison's bool output is the graph output */
    m = MODEL(compare_consumer_nearmiss2);
    EXPECT_AT(m, CLS, "compare-consumer", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    /* near-miss: one CAST to f32, then RELU */
    m = MODEL(compare_consumer_nearmiss3);
    EXPECT_NONE_BOTH(m, "compare-consumer");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ reductions */

/* Each axis must be valid for an input of rank 1-4. */
LG_TEST(check_reduce_axes) {
    lg_model *m = MODEL(reduce_axes_trigger); /* axis 4 */
    EXPECT_BOTH(m, "reduce-axes", 0);
    lg_model_free(m);
    m = MODEL(reduce_axes_nearmiss); /* axis -1 */
    EXPECT_NONE_BOTH(m, "reduce-axes");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Field notes: a single MEAN/SUM over several axes reducing ~65k elements returns NaN on
   Mali; two single-axis reductions (or smaller extents, or MAX) are fine. */
LG_TEST(check_large_multi_axis_reduce) {
    lg_model *m = MODEL(large_multi_axis_reduce_trigger); /* MEAN */
    EXPECT_BOTH(m, "large-multi-axis-reduce", 0);
    lg_model_free(m);
    m = MODEL(large_multi_axis_reduce_trigger2); /* SUM */
    EXPECT_BOTH(m, "large-multi-axis-reduce", 0);
    lg_model_free(m);
    /* near-misses: 128x128 = 16384 elements; one axis of 256; REDUCE_MAX */
    m = MODEL(large_multi_axis_reduce_nearmiss);
    EXPECT_NONE_BOTH(m, "large-multi-axis-reduce");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(large_multi_axis_reduce_nearmiss2);
    EXPECT_NONE_BOTH(m, "large-multi-axis-reduce");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(large_multi_axis_reduce_nearmiss3);
    EXPECT_NONE_BOTH(m, "large-multi-axis-reduce");
    lg_model_free(m);
    /* the fix: x.mean(2).mean(1) as two ops */
    m = MODEL(large_multi_axis_reduce_nearmiss4);
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ field rules */

/* Field notes: TRANSPOSE_CONV is rejected on Mali even at v <= 3. */
LG_TEST(check_mali_transpose_conv) {
    lg_model *m = MODEL(mali_transpose_conv_trigger); /* v1, no bias */
    EXPECT_BOTH(m, "mali-transpose-conv", 0);
    EXPECT_NONE_BOTH(m, "op-version");
    lg_model_free(m);
    m = MODEL(mali_transpose_conv_nearmiss); /* CONV_2D */
    EXPECT_NONE_BOTH(m, "mali-transpose-conv");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Field notes (EdgeTAM): "MEAN: Expected 1 const input tensor(s), but node has 2 const
   input(s)": an op whose inputs are all constant. */
LG_TEST(check_const_only_inputs) {
    lg_model *m = MODEL(const_only_inputs_nearmiss); /* MEAN of RELU(x) */
    EXPECT_NONE_BOTH(m, "const-only-inputs");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(const_only_inputs_trigger); /* MEAN of constant latents */
    EXPECT_BOTH(m, "const-only-inputs", 0);
    lg_model_free(m);
}

/* Field notes (ResNet stems): PADV2 with -inf before a MAX_POOL is rejected; zero pad is fine. */
LG_TEST(check_padv2_nonzero) {
    lg_model *m = MODEL(padv2_nonzero_nearmiss);
    EXPECT_NONE_BOTH(m, "padv2-nonzero");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(padv2_nonzero_trigger);
    EXPECT_BOTH(m, "padv2-nonzero", 0);
    lg_model_free(m);
}

/* Field notes (DINOv2 LayerScale): a 2-D FC output [N, C] (N > 1) is read as {N,1,1,C};
   a MUL with a [1,1,C] operand then conflicts. A 3-D FC output (keep_num_dims) does not. */
LG_TEST(check_fc_2d_broadcast) {
    lg_model *m = MODEL(fc_2d_broadcast_nearmiss);
    EXPECT_NONE_BOTH(m, "fc-2d-broadcast");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = MODEL(fc_2d_broadcast_trigger);
    EXPECT_BOTH(m, "fc-2d-broadcast", 1);
    lg_model_free(m);
}

/* Field notes (DAC RVQ): "CAST: Tensor type(INT64) is not supported". */
LG_TEST(check_int64_tensor) {
    lg_model *m = MODEL(int64_tensor_trigger);
    EXPECT_BOTH(m, "int64-tensor", 0);
    lg_model_free(m);
    m = MODEL(int64_tensor_nearmiss);
    EXPECT_NONE_BOTH(m, "int64-tensor");
    lg_model_free(m);
}

/* peers.md and our own WebGPU runs: GATHER with >= 2 constant indices makes the whole
   compile throw; 1 index or runtime indices work (an ML Drift blocker). */
LG_TEST(check_gather_const_indices) {
    lg_model *m = MODEL(gather_const_indices_trigger); /* 2 constant indices */
    EXPECT_AT(m, MLD, "gather-const-indices", 1);
    lg_check_report *r2 = check(m, MLD);
    CHECK(r2 && !r2->ready); /* the whole compile throws: a blocker */
    lg_check_report_free(r2);
    EXPECT_NONE(m, CLS, "gather-const-indices");
    EXPECT_CLEAN(m, CLS);
    lg_model_free(m);
    const lgm_build_fn fine[] = {lgm_gather_const_indices_nearmiss, lgm_gather_const_indices_nearmiss2};
    for (int k = 0; k < 2; k++) { /* 1 constant index; runtime indices */
        m = model_at(__FILE__, __LINE__, fine[k]);
        EXPECT_NONE_BOTH(m, "gather-const-indices");
        EXPECT_CLEAN_BOTH(m);
        lg_model_free(m);
    }
}

/* Field notes (wav2vec2): a clean graph may fail to compile whole on Mali; split near the
   middle where the fewest tensors cross. A warning. */
LG_TEST(check_graph_size) {
    lg_model *m = MODEL(graph_size_trigger); /* a chain of 10 TANH */
    if (!m) return;
    for (int t = 0; t < LG_TARGET_COUNT; t++) {
        lg_check_report *r = check_max(m, (lg_target)t, 4);
        CHECK(r != NULL);
        if (!r) continue;
        /* every cut of a plain chain crosses one tensor: the middle, before op 5 */
        CHECK_EQ_INT(find(r, "graph-size", 5), 1);
        CHECK_EQ_INT(find(r, "graph-size", ANY_OP), 1);
        CHECK(r->ready);
        CHECK_EQ_INT(r->n_warnings, 1);
        CHECK_EQ_INT(r->n_gpu_ops, 10);
        lg_check_report_free(r);
        /* near-miss: the limit is not passed */
        r = check_max(m, (lg_target)t, 10);
        CHECK(r && find(r, "graph-size", ANY_OP) == 0 && r->n_findings == 0);
        lg_check_report_free(r);
    }
    EXPECT_CLEAN_BOTH(m); /* default limit 1000 */
    lg_model_free(m);

    /* a skip connection a0 -> op 6: cuts 1..6 cross 2 tensors, cut 7 crosses 1 */
    m = MODEL(graph_size_trigger2);
    for (int t = 0; m && t < LG_TARGET_COUNT; t++) {
        lg_check_report *r = check_max(m, (lg_target)t, 4);
        CHECK(r && find(r, "graph-size", 7) == 1);
        if (r && find(r, "graph-size", 7) != 1) dump(r);
        lg_check_report_free(r);
    }
    lg_model_free(m);
}

/* ------------------------------------------------------------------ folding and partitions */

/* 1.2 "fp16 weights": a DEQUANTIZE of an fp16 constant is folded; the consumer sees a
   constant. CONV_2D(x, deq(w16), deq(b16)) is 1 runtime + 2 constant inputs: no input-count
   (unfolded it would be 3 runtime inputs). */
LG_TEST(check_dequantize_fp16_folded) {
    lg_model *m = MODEL(input_count_nearmiss3);
    if (!m) return;
    for (int t = 0; t < LG_TARGET_COUNT; t++) {
        lg_check_report *r = check(m, (lg_target)t);
        CHECK(r != NULL);
        if (!r) continue;
        CHECK_EQ_INT(r->op_place[0], LG_PLACE_FOLDED);
        CHECK_EQ_INT(r->op_place[1], LG_PLACE_FOLDED);
        CHECK_EQ_INT(r->op_place[2], LG_PLACE_GPU);
        CHECK_EQ_INT(r->n_folded_ops, 2);
        CHECK_EQ_INT(r->n_gpu_ops, 1);
        CHECK_EQ_INT(r->n_cpu_ops, 0);
        CHECK_EQ_INT(find(r, "input-count", ANY_OP), 0);
        CHECK_EQ_INT(find(r, "const-only-inputs", ANY_OP), 0);
        CHECK(r->ready);
        CHECK_EQ_INT(r->n_findings, 0);
        CHECK_EQ_INT(r->n_gpu_partitions, 1);
        if (r->n_findings) dump(r);
        lg_check_report_free(r);
    }
    lg_model_free(m);

    /* control: DEQUANTIZE of an INT8 constant is a real op, not folded */
    m = MODEL(dequantize_int8_conv);
    if (!m) return;
    for (int t = 0; t < LG_TARGET_COUNT; t++) {
        lg_check_report *r = check(m, (lg_target)t);
        CHECK(r && r->op_place[0] != LG_PLACE_FOLDED && r->n_folded_ops == 0);
        lg_check_report_free(r);
    }
    lg_model_free(m);
}

/* conv -> relu -> GATHER_ND -> conv: two GPU subsets around the CPU op. The classic delegate
   takes only the largest (max_delegated_partitions = 1); the rest runs on the CPU. */
LG_TEST(check_partitions_classic_largest) {
    lg_model *m = MODEL(op_unsupported_trigger3);
    if (!m) return;
    lg_check_report *r = check(m, CLS);
    CHECK(r != NULL);
    if (r) {
        CHECK(!r->ready);
        CHECK_EQ_INT(r->n_gpu_partitions, 2);
        CHECK_EQ_INT(r->n_partitions, 3);
        CHECK_EQ_INT(r->op_place[0], LG_PLACE_GPU);
        CHECK_EQ_INT(r->op_place[1], LG_PLACE_GPU);
        CHECK_EQ_INT(r->op_place[2], LG_PLACE_CPU);
        CHECK_EQ_INT(r->op_place[3], LG_PLACE_CPU); /* GPU-able, but not in the largest subset */
        CHECK_EQ_INT(r->n_gpu_ops, 2);
        CHECK_EQ_INT(r->n_cpu_ops, 2);
        CHECK_EQ_INT(r->n_supported_ops, 3);
        CHECK_EQ_INT(r->n_blockers, 1);
        CHECK_EQ_INT(find(r, "op-unsupported", 2), 1);
        if (r->n_partitions == 3) {
            CHECK(r->partitions[0].gpu && r->partitions[0].delegated);
            CHECK_EQ_INT(r->partitions[0].first_op, 0);
            CHECK_EQ_INT(r->partitions[0].last_op, 1);
            CHECK_EQ_INT(r->partitions[0].n_ops, 2);
            CHECK(!r->partitions[1].gpu);
            CHECK_EQ_INT(r->partitions[1].first_op, 2);
            CHECK(r->partitions[2].gpu && !r->partitions[2].delegated);
            CHECK_EQ_INT(r->partitions[2].first_op, 3);
        }
    }
    lg_check_report_free(r);
    /* ML Drift: one unsupported op and the model is not ready either */
    r = check(m, MLD);
    CHECK(r && !r->ready && r->n_gpu_partitions == 2 && r->op_place[2] == LG_PLACE_CPU);
    lg_check_report_free(r);
    lg_model_free(m);
}

/* A clean small CNN: ready on both targets, no finding, every op on the GPU, one partition. */
LG_TEST(check_clean_model) {
    lg_model *m = MODEL(clean_cnn);
    if (!m) return;
    EXPECT_CLEAN_BOTH(m);
    for (int t = 0; t < LG_TARGET_COUNT; t++) {
        lg_check_report *r = check(m, (lg_target)t);
        CHECK(r != NULL);
        if (!r) continue;
        CHECK_EQ_INT(r->target, t);
        CHECK_EQ_INT(r->n_ops, 4);
        CHECK_EQ_INT(r->n_gpu_ops, 4);
        CHECK_EQ_INT(r->n_supported_ops, 4);
        CHECK_EQ_INT(r->n_partitions, 1);
        CHECK_EQ_INT(r->n_gpu_partitions, 1);
        for (uint32_t i = 0; i < r->n_ops; i++) CHECK_EQ_INT(r->op_place[i], LG_PLACE_GPU);
        lg_check_report_free(r);
    }
    lg_model_free(m);
}

/* Bad arguments are refused with a status, not a crash. */
LG_TEST(check_bad_arguments) {
    lg_model *m = MODEL(op_no_compat_case_nearmiss); /* RELU */
    lg_check_report *r = (lg_check_report *)1;
    lg_error err;
    CHECK_EQ_INT(lg_check_model(NULL, NULL, &r, &err), LG_ERR_INVALID_ARG);
    lg_check_options bad = {(lg_target)7, 0, LG_GPU_ANY};
    r = NULL;
    if (m) CHECK_EQ_INT(lg_check_model(m, &bad, &r, &err), LG_ERR_INVALID_ARG);
    CHECK(r == NULL);
    /* NULL options: the default target is ML Drift */
    if (m && lg_check_model(m, NULL, &r, &err) == LG_OK) {
        CHECK_EQ_INT(r->target, LG_TARGET_MLDRIFT);
        lg_check_report_free(r);
    }
    lg_check_report_free(NULL);
    CHECK_STR(lg_target_name(LG_TARGET_CLASSIC), "classic");
    CHECK_EQ_INT(lg_target_from_name("mldrift"), LG_TARGET_MLDRIFT);
    CHECK_EQ_INT(lg_target_from_name("nope"), -1);
    lg_model_free(m);
}

/* field-banned-op: the field notes' op checks (SPLIT for GLU, CAST, EQUAL/SELECT_V2, GATHER,
   TOPK_V2, PACK) flag ops the source accepts: a warning on every target whose parser has the
   op; an op outside the parser is op-unsupported instead. Near miss: RELU. */
LG_TEST(check_field_banned_op) {
    lg_model *m = MODEL(field_banned_op_trigger); /* SPLIT */
    EXPECT_AT(m, MLD, "field-banned-op", 0);
    EXPECT_AT(m, CLS, "field-banned-op", 0);
    lg_check_report *r = check(m, MLD);
    if (r) {
        CHECK(r->ready); /* a warning, not a blocker */
        CHECK_EQ_INT(r->n_warnings, 1);
        lg_check_report_free(r);
    }
    lg_model_free(m);

    /* TOPK_V2: classic has no parser (op-unsupported, not field-banned-op); ML Drift warns */
    m = MODEL(field_banned_op_trigger2);
    EXPECT_AT(m, MLD, "field-banned-op", 0);
    EXPECT_NONE(m, CLS, "field-banned-op");
    EXPECT_AT(m, CLS, "op-unsupported", 0);
    lg_model_free(m);

    /* near miss: RELU alone */
    m = MODEL(field_banned_op_nearmiss);
    EXPECT_NONE_BOTH(m, "field-banned-op");
    lg_model_free(m);
}

/* ML Drift rejects a DEQUANTIZE whose input comes from DENSIFY ("Dequantize for Densify is
   not supported", seen on the real delegate with face_detection_full_range_sparse): op-params
   at the DEQUANTIZE on mldrift; the classic delegate takes both; near miss: DEQUANTIZE of a
   FLOAT16 constant (folded). */
LG_TEST(check_dequantize_of_densify) {
    lg_model *m = MODEL(op_params_trigger3);
    EXPECT_AT(m, MLD, "op-params", 1);
    EXPECT_AT(m, MLD, "op-unsupported", 0);
    EXPECT_NONE(m, CLS, "op-params");
    lg_model_free(m);

    m = MODEL(op_params_nearmiss4);
    EXPECT_NONE_BOTH(m, "op-params");
    lg_model_free(m);
}

/* webgpu-pad-layout (seen on the real delegate): PAD of a rank-3 tensor with a first
   dimension > 1, or padding the batch of a rank-4 tensor, is delegated and wrong: an ML Drift
   warning. Near misses: [1,8,4] and [1,8,8,4] padded on H and W. */
LG_TEST(check_webgpu_pad_layout) {
    lg_model *m = MODEL(webgpu_pad_layout_trigger); /* [8,8,4] */
    EXPECT_AT(m, MLD, "webgpu-pad-layout", 0);
    EXPECT_NONE(m, CLS, "webgpu-pad-layout");
    lg_check_report *r = check(m, MLD);
    CHECK(r && r->ready); /* a warning */
    lg_check_report_free(r);
    lg_model_free(m);
    m = MODEL(webgpu_pad_layout_trigger2); /* batch padded */
    EXPECT_AT(m, MLD, "webgpu-pad-layout", 0);
    lg_model_free(m);
    m = MODEL(webgpu_pad_layout_nearmiss); /* [1,8,4] on H */
    EXPECT_NONE_BOTH(m, "webgpu-pad-layout");
    lg_model_free(m);
    m = MODEL(pad_shape_nearmiss); /* [1,8,8,4] on H and W */
    EXPECT_NONE_BOTH(m, "webgpu-pad-layout");
    lg_model_free(m);
}

/* webgpu-space-depth-batch (seen on the real delegate): DEPTH_TO_SPACE / SPACE_TO_DEPTH of a
   batch > 1 is delegated and returns zeros: an ML Drift blocker for WebGPU. Near misses: the
   same ops at batch 1 (exact there). */
LG_TEST(check_webgpu_space_depth_batch) {
    lgm_build_fn trig[] = {lgm_webgpu_space_depth_batch_trigger, lgm_webgpu_space_depth_batch_trigger2};
    lgm_build_fn near[] = {lgm_webgpu_space_depth_batch_nearmiss, lgm_webgpu_space_depth_batch_nearmiss2};
    for (int k = 0; k < 2; k++) {
        lg_model *m = model_at(__FILE__, __LINE__, trig[k]);
        EXPECT_AT(m, MLD, "webgpu-space-depth-batch", 0);
        EXPECT_NONE(m, CLS, "webgpu-space-depth-batch");
        EXPECT_CLEAN(m, CLS);
        lg_model_free(m);
        m = model_at(__FILE__, __LINE__, near[k]);
        EXPECT_CLEAN_BOTH(m);
        lg_model_free(m);
    }
}
