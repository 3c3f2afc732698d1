/* lg_check_model, rule by rule: for every rule of src/check/rules.def a tiny builder-made
   model that triggers it and a near-miss that must not, on each target the rule applies to,
   plus the cases where the two targets disagree. Every trigger asserts the rule id AND the
   op the finding names (and that no other op gets that rule).

   Expected outcomes come from the rule text: shared/reference/gpu-delegate-rules.md (section
   1.2 global rules, 1.3 op lists, 1.4 per-op table) and the seed field notes (TRANSPOSE_CONV
   on Mali, const-only inputs, PADV2 -inf, multi-axis mean over ~65k elements, FC 2-D +
   LayerScale MUL, align_corners, the shader-compile limit, INT64). The comment above each
   test names the line it relies on. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/check.h"
#include "lg/lg.h"
#include "tf.h"

#define ANY_OP INT32_MIN
#define MLD LG_TARGET_MLDRIFT
#define CLS LG_TARGET_CLASSIC

/* ------------------------------------------------------------------ helpers */

/* Zero data for constants whose values do not matter to a rule. */
static const float zf[4096];
static const uint16_t zh[4096];

/* A model under construction. */
typedef struct mk {
    lg_model *m;
    lg_builder b;
} mk;

static lg_builder *mk_begin(mk *k) {
    lg_error err;
    k->m = NULL;
    if (lg_model_new(NULL, NULL, &k->m, &err) != LG_OK) k->m = NULL;
    lg_builder_init(&k->b, k->m, 0); /* a NULL model leaves the builder failed */
    return &k->b;
}

#define MK_END(k) mk_end(__FILE__, __LINE__, (k))
static lg_model *mk_end(const char *file, int line, mk *k) {
    if (k->b.status != LG_OK) {
        tf_fail(file, line, "building the model failed: %s", k->b.err.msg);
        lg_model_free(k->m);
        return NULL;
    }
    return k->m;
}

static lg_check_report *check_max(const lg_model *m, lg_target t, uint32_t max_ops) {
    lg_check_options opt = {t, max_ops};
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

/* One unary op (builtin, 1 input, 1 output) on x[shape] of type dt. */
static lg_model *unary(int32_t builtin, int32_t version, lg_dtype dt, lg_dims shape) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int x = lg_b_tensor(b, "x", dt, shape);
    int y = lg_b_tensor(b, "y", dt, shape);
    lg_b_op_v(b, builtin, version, LG_IDS(x), LG_IDS(y), LG_OPTS_NONE, NULL);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    return MK_END(&k);
}

/* x[1,8,8,4] -> CONV_2D 3x3 (4 -> 4 channels) with the given options -> y. */
static lg_model *conv_with(const lg_conv2d_options *o) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 3, 3, 4), zf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(4), zf);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    return MK_END(&k);
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
    mk k;
    lg_builder *b;
    int32_t idx[4 * 4 * 3] = {0};
    int x, r, i, y;

    /* x -> RELU -> GATHER_ND -> y: op 1 */
    b = mk_begin(&k);
    x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    i = lg_b_const_i32(b, "idx", LG_DIMS(1, 4, 4, 3), idx);
    y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op(b, LG_OP_GATHER_ND, LG_IDS(r, i), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    lg_model *m = MK_END(&k);
    EXPECT_BOTH(m, "op-unsupported", 1);
    lg_model_free(m);

    /* near-miss: GATHER of one channel with 1-D INT32 constant indices */
    b = mk_begin(&k);
    lg_gather_options go = {3, 0};
    int32_t one = 2;
    x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    i = lg_b_const_i32(b, "idx", LG_DIMS(1), &one);
    y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 1));
    lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op_opts(b, LG_OP_GATHER, LG_IDS(r, i), LG_IDS(y), LG_OPTS_GATHER_OPTIONS, &go);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    m = MK_END(&k);
    EXPECT_NONE_BOTH(m, "op-unsupported");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* 1.3: the classic parser is the compat list minus LOGICAL_OR, ROUND, TOPK_V2 (and others);
   ML Drift takes them. DENSIFY is in the classic parser and not in ML Drift's. */
LG_TEST(check_op_unsupported_targets_differ) {
    /* LOGICAL_OR on bool tensors (ML Drift: logical ops take bool in and out) */
    mk k;
    lg_builder *b = mk_begin(&k);
    int a = lg_b_tensor(b, "a", LG_BOOL, LG_DIMS(1, 8, 8, 4));
    int c = lg_b_tensor(b, "c", LG_BOOL, LG_DIMS(1, 8, 8, 4));
    int o = lg_b_tensor(b, "o", LG_BOOL, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_LOGICAL_OR, LG_IDS(a, c), LG_IDS(o));
    lg_b_io(b, LG_IDS(a, c), LG_IDS(o));
    lg_model *m = MK_END(&k);
    EXPECT_AT(m, CLS, "op-unsupported", 0);
    EXPECT_NONE(m, MLD, "op-unsupported");
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);

    /* ROUND: 1 runtime input, v1 */
    m = unary(LG_OP_ROUND, 1, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    EXPECT_AT(m, CLS, "op-unsupported", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);

    /* TOPK_V2: 1 runtime input, constant scalar k, 2 outputs (values, INT32 indices) */
    b = mk_begin(&k);
    int32_t kk = 4;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 16));
    int kt = lg_b_const_i32(b, "k", LG_SCALAR, &kk);
    int v = lg_b_tensor(b, "values", LG_FLOAT32, LG_DIMS(1, 4));
    int ix = lg_b_tensor(b, "indices", LG_INT32, LG_DIMS(1, 4));
    lg_b_op(b, LG_OP_TOPK_V2, LG_IDS(x, kt), LG_IDS(v, ix));
    lg_b_io(b, LG_IDS(x), LG_IDS(v, ix));
    m = MK_END(&k);
    EXPECT_AT(m, CLS, "op-unsupported", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);

    /* DENSIFY: 0 runtime inputs, 1 output; its output feeds a FULLY_CONNECTED as weights */
    b = mk_begin(&k);
    x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int ws = lg_b_const_f32(b, "w_sparse", LG_DIMS(4, 4), zf);
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_fully_connected_options fo;
    memset(&fo, 0, sizeof fo);
    lg_b_op(b, LG_OP_DENSIFY, LG_IDS(ws), LG_IDS(w));
    lg_b_op_opts(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    m = MK_END(&k);
    EXPECT_CLEAN(m, CLS);
    EXPECT_AT(m, MLD, "op-unsupported", 0);
    lg_model_free(m);
}

/* 1.1 (inference): RELU_0_TO_1 and BITWISE_XOR are in the ML Drift switch but have no compat
   case -> "Not supported op"; the classic RELU parser only checks version <= 2. */
LG_TEST(check_op_no_compat_case) {
    lg_model *m = unary(LG_OP_RELU_0_TO_1, 1, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    EXPECT_AT(m, MLD, "op-no-compat-case", 0);
    EXPECT_NONE(m, CLS, "op-no-compat-case");
    EXPECT_CLEAN(m, CLS);
    lg_model_free(m);

    /* near-miss: RELU has a compat case */
    m = unary(LG_OP_RELU, 1, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    EXPECT_NONE(m, MLD, "op-no-compat-case");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);

    /* BITWISE_XOR on INT32 (logical ops take int32 on ML Drift): no compat case on ML Drift,
       not in the classic parser at all */
    mk k;
    lg_builder *b = mk_begin(&k);
    int a = lg_b_tensor(b, "a", LG_INT32, LG_DIMS(1, 8, 8, 4));
    int c = lg_b_tensor(b, "c", LG_INT32, LG_DIMS(1, 8, 8, 4));
    int o = lg_b_tensor(b, "o", LG_INT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_BITWISE_XOR, LG_IDS(a, c), LG_IDS(o));
    lg_b_io(b, LG_IDS(a, c), LG_IDS(o));
    m = MK_END(&k);
    EXPECT_AT(m, MLD, "op-no-compat-case", 0);
    EXPECT_NONE(m, MLD, "op-unsupported");
    EXPECT_AT(m, CLS, "op-unsupported", 0);
    lg_model_free(m);
}

/* CUSTOM (1.3): both take the four classic custom ops by name; ML Drift adds the
   custom_call.* norms; anything else is "Not supported custom op". */
LG_TEST(check_custom_op_unsupported) {
    const char *names[] = {"MyOp", "Convolution2DTransposeBias", "custom_call.LayerNorm"};
    for (int n = 0; n < 3; n++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
        lg_b_custom(b, names[n], LG_IDS(r), LG_IDS(y), NULL, 0);
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
        lg_model *m = MK_END(&k);
        if (n == 0) {
            EXPECT_BOTH(m, "custom-op-unsupported", 1);
        } else if (n == 1) {
            EXPECT_NONE_BOTH(m, "custom-op-unsupported");
        } else {
            EXPECT_NONE(m, MLD, "custom-op-unsupported");
            EXPECT_AT(m, CLS, "custom-op-unsupported", 1);
        }
        lg_model_free(m);
    }
}

/* ------------------------------------------------------------------ op-version (1.4) */

/* TRANSPOSE_CONV: output_shape, weights, input (+ bias). v4 = fused activation, v3 = bias;
   both delegates take v <= 3. */
static lg_model *transpose_conv(int act, int with_bias) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int32_t os[4] = {1, 16, 16, 4};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int s = lg_b_const_i32(b, "output_shape", LG_DIMS(4), os);
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 2, 2, 4), zf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(4), zf);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 4));
    lg_transpose_conv_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_VALID;
    o.stride_w = o.stride_h = 2;
    o.fused_activation_function = (int8_t)act;
    if (with_bias)
        lg_b_op_opts(b, LG_OP_TRANSPOSE_CONV, LG_IDS(s, w, x, bi), LG_IDS(y), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    else
        lg_b_op_opts(b, LG_OP_TRANSPOSE_CONV, LG_IDS(s, w, x), LG_IDS(y), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    return MK_END(&k);
}

static int reason_has(const lg_model *m, lg_target t, const char *id, const char *needle) {
    lg_check_report *r = check(m, t);
    int hit = 0;
    for (uint32_t i = 0; r && i < r->n_findings; i++)
        if (strcmp(r->findings[i].rule->id, id) == 0 && strstr(r->findings[i].reason, needle)) hit = 1;
    if (!hit) dump(r);
    lg_check_report_free(r);
    return hit;
}

LG_TEST(check_op_version_transpose_conv_activation) {
    lg_model *m = transpose_conv(LG_ACTIVATION_FUNCTION_TYPE_RELU, 1);
    EXPECT_BOTH(m, "op-version", 0);
    EXPECT_BOTH(m, "mali-transpose-conv", 0);
    if (m) {
        CHECK(reason_has(m, MLD, "op-version", "version 4 > max 3"));
        CHECK(reason_has(m, CLS, "op-version", "version 4 > max 3"));
    }
    lg_model_free(m);
    /* near-miss: no fused activation, with bias: v3 */
    m = transpose_conv(LG_ACTIVATION_FUNCTION_TYPE_NONE, 1);
    EXPECT_NONE_BOTH(m, "op-version");
    lg_model_free(m);
}

/* SOFTMAX v4 = FLOAT16 input: classic v <= 2, ML Drift v <= 4. */
LG_TEST(check_op_version_softmax_fp16) {
    for (int half = 0; half < 2; half++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        lg_dtype dt = half ? LG_FLOAT16 : LG_FLOAT32;
        lg_softmax_options so = {1.0f};
        int x = lg_b_tensor(b, "x", dt, LG_DIMS(1, 10));
        int y = lg_b_tensor(b, "y", dt, LG_DIMS(1, 10));
        lg_b_op_opts(b, LG_OP_SOFTMAX, LG_IDS(x), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
        lg_model *m = MK_END(&k);
        if (half) {
            EXPECT_AT(m, CLS, "op-version", 0);
            if (m) CHECK(reason_has(m, CLS, "op-version", "version 4 > max 2"));
            EXPECT_CLEAN(m, MLD);
        } else {
            EXPECT_CLEAN_BOTH(m);
        }
        lg_model_free(m);
    }
}

/* CONCATENATION v6 = FLOAT16 input: classic v <= 2 ("fp16 tensors give v6 -> rejected"),
   ML Drift v <= 6. */
LG_TEST(check_op_version_concat_fp16) {
    for (int half = 0; half < 2; half++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        lg_dtype dt = half ? LG_FLOAT16 : LG_FLOAT32;
        lg_concatenation_options co = {3, LG_ACTIVATION_FUNCTION_TYPE_NONE};
        int x = lg_b_tensor(b, "x", dt, LG_DIMS(1, 8, 8, 4));
        int x2 = lg_b_tensor(b, "x2", dt, LG_DIMS(1, 8, 8, 4));
        int y = lg_b_tensor(b, "y", dt, LG_DIMS(1, 8, 8, 8));
        lg_b_op_opts(b, LG_OP_CONCATENATION, LG_IDS(x, x2), LG_IDS(y), LG_OPTS_CONCATENATION_OPTIONS, &co);
        lg_b_io(b, LG_IDS(x, x2), LG_IDS(y));
        lg_model *m = MK_END(&k);
        if (half) {
            EXPECT_AT(m, CLS, "op-version", 0);
            EXPECT_CLEAN(m, MLD);
        } else {
            EXPECT_CLEAN_BOTH(m);
        }
        lg_model_free(m);
    }
}

/* The version stored in the file counts too: RELU max v2 on both. */
LG_TEST(check_op_version_stored) {
    lg_model *m = unary(LG_OP_RELU, 3, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    EXPECT_BOTH(m, "op-version", 0);
    if (m) CHECK(reason_has(m, MLD, "op-version", "version 3 > max 2"));
    lg_model_free(m);
    m = unary(LG_OP_RELU, 2, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    EXPECT_NONE_BOTH(m, "op-version");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ global rules (1.2) */

/* Any input or output of rank >= 5 rejects the node. */
LG_TEST(check_tensor_rank) {
    for (int five = 0; five < 2; five++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        int32_t s5[5] = {1, 8, 8, 2, 2}, s3[3] = {1, 8, 32};
        int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        int s = five ? lg_b_const_i32(b, "shape", LG_DIMS(5), s5) : lg_b_const_i32(b, "shape", LG_DIMS(3), s3);
        int y = five ? lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 2, 2))
                     : lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 32));
        lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
        lg_b_op(b, LG_OP_RESHAPE, LG_IDS(r, s), LG_IDS(y));
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
        lg_model *m = MK_END(&k);
        if (five) {
            EXPECT_BOTH(m, "tensor-rank", 1);
        } else {
            EXPECT_NONE_BOTH(m, "tensor-rank");
            EXPECT_CLEAN_BOTH(m);
        }
        lg_model_free(m);
    }
}

/* Runtime tensors must be FLOAT32/FLOAT16 (INT8/UINT8 quantized); ML Drift's
   IsIntSupportedOp (ADD, ...) also takes int32. RELU is not among them. */
LG_TEST(check_tensor_dtype) {
    lg_model *m = unary(LG_OP_RELU, 1, LG_INT32, LG_DIMS(1, 8, 8, 4));
    EXPECT_BOTH(m, "tensor-dtype", 0);
    lg_model_free(m);
    m = unary(LG_OP_RELU, 1, LG_FLOAT16, LG_DIMS(1, 8, 8, 4));
    EXPECT_NONE_BOTH(m, "tensor-dtype");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);

    /* INT32 ADD: classic rejects the type, ML Drift takes it */
    mk k;
    lg_builder *b = mk_begin(&k);
    int a = lg_b_tensor(b, "a", LG_INT32, LG_DIMS(1, 8, 8, 4));
    int c = lg_b_tensor(b, "c", LG_INT32, LG_DIMS(1, 8, 8, 4));
    int o = lg_b_tensor(b, "o", LG_INT32, LG_DIMS(1, 8, 8, 4));
    binop(b, LG_OP_ADD, a, c, o);
    lg_b_io(b, LG_IDS(a, c), LG_IDS(o));
    m = MK_END(&k);
    EXPECT_AT(m, CLS, "tensor-dtype", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
}

/* ML Drift: an int8/uint8 runtime tensor with more than one scale -> "Unsupported
   quantization scale size". Constant (weight) tensors may be per-channel. */
LG_TEST(check_quant_per_channel_runtime) {
    const float sc4[4] = {0.1f, 0.2f, 0.3f, 0.4f}, sc1[1] = {0.1f};
    for (int per_channel = 0; per_channel < 2; per_channel++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        int x = lg_b_tensor(b, "x", LG_INT8, LG_DIMS(1, 8, 8, 4));
        int y = lg_b_tensor(b, "y", LG_INT8, LG_DIMS(1, 8, 8, 4));
        lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(y));
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
        lg_model *m = MK_END(&k);
        lg_error err;
        if (m) {
            CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)x, per_channel ? sc4 : sc1, NULL, per_channel ? 4 : 1, 3, &err), &err);
            CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)y, sc1, NULL, 1, 0, &err), &err);
        }
        if (per_channel) {
            EXPECT_AT(m, MLD, "quant-per-channel-runtime", 0);
        } else {
            EXPECT_NONE(m, MLD, "quant-per-channel-runtime");
        }
        EXPECT_NONE(m, CLS, "quant-per-channel-runtime"); /* an ML Drift rule */
        lg_model_free(m);
    }

    /* near-miss: per-channel constant weights of a quantized CONV_2D */
    mk k;
    lg_builder *b = mk_begin(&k);
    int8_t w8[4 * 3 * 3 * 4] = {0};
    lg_conv2d_options o = conv_opts(0);
    int x = lg_b_tensor(b, "x", LG_INT8, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_const(b, "w", LG_INT8, LG_DIMS(4, 3, 3, 4), w8, sizeof w8);
    int y = lg_b_tensor(b, "y", LG_INT8, LG_DIMS(1, 8, 8, 4));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    lg_model *m = MK_END(&k);
    lg_error err;
    if (m) {
        CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)x, sc1, NULL, 1, 0, &err), &err);
        CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)w, sc4, NULL, 4, 0, &err), &err);
        CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)y, sc1, NULL, 1, 0, &err), &err);
    }
    EXPECT_NONE_BOTH(m, "quant-per-channel-runtime");
    lg_model_free(m);
}

/* Fused activations NONE, RELU, RELU_N1_TO_1, RELU6, TANH (SIGMOID) are fine; SIGN_BIT is
   rejected. */
LG_TEST(check_fused_activation) {
    lg_conv2d_options o = conv_opts(LG_ACTIVATION_FUNCTION_TYPE_SIGN_BIT);
    lg_model *m = conv_with(&o);
    EXPECT_BOTH(m, "fused-activation", 0);
    lg_model_free(m);
    const int ok[] = {LG_ACTIVATION_FUNCTION_TYPE_NONE, LG_ACTIVATION_FUNCTION_TYPE_RELU,
                      LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1, LG_ACTIVATION_FUNCTION_TYPE_RELU6,
                      LG_ACTIVATION_FUNCTION_TYPE_TANH};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        o = conv_opts(ok[i]);
        m = conv_with(&o);
        EXPECT_NONE_BOTH(m, "fused-activation");
        EXPECT_CLEAN_BOTH(m);
        lg_model_free(m);
    }
}

/* ADD a[sa] + c[sc] -> out[so], both runtime inputs. */
static lg_model *add2(lg_dims sa, lg_dims sc, lg_dims so) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int a = lg_b_tensor(b, "a", LG_FLOAT32, sa);
    int c = lg_b_tensor(b, "c", LG_FLOAT32, sc);
    int o = lg_b_tensor(b, "o", LG_FLOAT32, so);
    binop(b, LG_OP_ADD, a, c, o);
    lg_b_io(b, LG_IDS(a, c), LG_IDS(o));
    return MK_END(&k);
}

/* ADD/MUL with ranks differing and both > 1: classic (kStandard) takes only 4D+3D (batch 1),
   4D+[1,1], 4D [b,h,w,c]+2D [b,c]; ML Drift numpy broadcasting of rank 1-4 operands. */
LG_TEST(check_broadcast) {
    /* same rank, not broadcastable: both */
    lg_model *m = add2(LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 8, 8, 3), LG_DIMS(1, 8, 8, 4));
    EXPECT_BOTH(m, "broadcast", 0);
    lg_model_free(m);
    /* 4D + 3D, 3D not broadcastable: both */
    m = add2(LG_DIMS(1, 8, 8, 4), LG_DIMS(8, 8, 3), LG_DIMS(1, 8, 8, 4));
    EXPECT_BOTH(m, "broadcast", 0);
    lg_model_free(m);
    /* 4D with batch 2 + 3D: classic blocked, ML Drift fine */
    m = add2(LG_DIMS(2, 8, 8, 4), LG_DIMS(8, 8, 4), LG_DIMS(2, 8, 8, 4));
    EXPECT_AT(m, CLS, "broadcast", 0);
    EXPECT_NONE(m, MLD, "broadcast");
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    /* 3D + 2D: classic only broadcasts onto 4D; ML Drift fine */
    m = add2(LG_DIMS(1, 8, 4), LG_DIMS(8, 4), LG_DIMS(1, 8, 4));
    EXPECT_AT(m, CLS, "broadcast", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    /* near-misses: 4D (batch 1) + 3D, 4D [b,h,w,c] + 2D [b,c], 4D + [1,1], 4D + 1-D */
    m = add2(LG_DIMS(1, 8, 8, 4), LG_DIMS(8, 8, 4), LG_DIMS(1, 8, 8, 4));
    EXPECT_NONE_BOTH(m, "broadcast");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = add2(LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 4), LG_DIMS(1, 8, 8, 4));
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = add2(LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 1), LG_DIMS(1, 8, 8, 4));
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = add2(LG_DIMS(1, 8, 8, 4), LG_DIMS(4), LG_DIMS(1, 8, 8, 4));
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* CheckInputsOutputs: unary ops take exactly 1 runtime input; convolutions 1-2 runtime
   inputs and 1 output. */
LG_TEST(check_input_count) {
    for (int two = 0; two < 2; two++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        int x2 = lg_b_tensor(b, "x2", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        if (two) {
            lg_b_op(b, LG_OP_LOGISTIC, LG_IDS(x, x2), LG_IDS(y));
            lg_b_io(b, LG_IDS(x, x2), LG_IDS(y));
        } else {
            lg_b_op(b, LG_OP_LOGISTIC, LG_IDS(x), LG_IDS(y));
            lg_b_io(b, LG_IDS(x), LG_IDS(y));
        }
        lg_model *m = MK_END(&k);
        if (two) {
            EXPECT_BOTH(m, "input-count", 0);
        } else {
            EXPECT_NONE_BOTH(m, "input-count");
            EXPECT_CLEAN_BOTH(m);
        }
        lg_model_free(m);
    }
    /* CONV_2D with runtime weights: + runtime bias = 3 runtime inputs (blocked); + constant
       bias = 2 runtime inputs (fine) */
    for (int rt_bias = 0; rt_bias < 2; rt_bias++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        lg_conv2d_options o = conv_opts(0);
        int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 3, 3, 4));
        int bi = rt_bias ? lg_b_tensor(b, "bias", LG_FLOAT32, LG_DIMS(4)) : lg_b_const_f32(b, "bias", LG_DIMS(4), zf);
        int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
        if (rt_bias) lg_b_io(b, LG_IDS(x, w, bi), LG_IDS(y));
        else lg_b_io(b, LG_IDS(x, w), LG_IDS(y));
        lg_model *m = MK_END(&k);
        if (rt_bias) {
            EXPECT_BOTH(m, "input-count", 0);
        } else {
            EXPECT_NONE_BOTH(m, "input-count");
            EXPECT_CLEAN_BOTH(m);
        }
        lg_model_free(m);
    }
}

/* MEAN x[1,8,8,4] over axes given by `axes_kind`: 0 constant INT32, 1 constant INT64,
   2 runtime INT32 (a graph input). */
static lg_model *mean_axes(int axes_kind) {
    mk k;
    lg_builder *b = mk_begin(&k);
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
    return MK_END(&k);
}

/* CheckAxesAreInt32Const: axes constant and INT32. */
LG_TEST(check_const_axes) {
    lg_model *m = mean_axes(1);
    EXPECT_BOTH(m, "const-axes", 0);
    lg_model_free(m);
    m = mean_axes(2);
    EXPECT_BOTH(m, "const-axes", 0);
    lg_model_free(m);
    m = mean_axes(0);
    EXPECT_NONE_BOTH(m, "const-axes");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Static shapes only: RESHAPE with a runtime shape, RESIZE with a runtime size. */
LG_TEST(check_dynamic_tensor) {
    for (int rt = 0; rt < 2; rt++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        int32_t s[2] = {1, 256};
        int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        int sh = rt ? lg_b_tensor(b, "shape", LG_INT32, LG_DIMS(2)) : lg_b_const_i32(b, "shape", LG_DIMS(2), s);
        int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 256));
        lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
        lg_b_op(b, LG_OP_RESHAPE, LG_IDS(r, sh), LG_IDS(y));
        if (rt) lg_b_io(b, LG_IDS(x, sh), LG_IDS(y));
        else lg_b_io(b, LG_IDS(x), LG_IDS(y));
        lg_model *m = MK_END(&k);
        if (rt) {
            EXPECT_BOTH(m, "dynamic-tensor", 1);
        } else {
            EXPECT_NONE_BOTH(m, "dynamic-tensor");
            EXPECT_CLEAN_BOTH(m);
        }
        lg_model_free(m);
    }
    for (int rt = 0; rt < 2; rt++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        int32_t s[2] = {16, 16};
        lg_resize_bilinear_options ro = {false, true};
        int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        int sz = rt ? lg_b_tensor(b, "size", LG_INT32, LG_DIMS(2)) : lg_b_const_i32(b, "size", LG_DIMS(2), s);
        int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 4));
        lg_b_op_opts(b, LG_OP_RESIZE_BILINEAR, LG_IDS(x, sz), LG_IDS(y), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &ro);
        if (rt) lg_b_io(b, LG_IDS(x, sz), LG_IDS(y));
        else lg_b_io(b, LG_IDS(x), LG_IDS(y));
        lg_model *m = MK_END(&k);
        if (rt) {
            EXPECT_BOTH(m, "dynamic-tensor", 0);
        } else {
            EXPECT_NONE_BOTH(m, "dynamic-tensor");
            EXPECT_CLEAN_BOTH(m);
        }
        lg_model_free(m);
    }
}

/* An input whose shape_signature has -1: a warning about the model (op -1). */
LG_TEST(check_dynamic_input) {
    for (int dyn = 0; dyn < 2; dyn++) {
        lg_model *m = unary(LG_OP_RELU, 1, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        if (!m) return;
        const int32_t sig_dyn[4] = {-1, 8, 8, 4}, sig_static[4] = {1, 8, 8, 4};
        lg_error err;
        CHECK_OK(lg_tensor_set_shape_signature(m, 0, (uint32_t)m->subgraphs[0].inputs[0],
                                               dyn ? sig_dyn : sig_static, 4, &err), &err);
        if (dyn) {
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
        } else {
            EXPECT_NONE_BOTH(m, "dynamic-input");
            EXPECT_CLEAN_BOTH(m);
        }
        lg_model_free(m);
    }
}

/* op(x, x) when same, else op(x, x2): both runtime graph inputs. */
static lg_model *binary_self(int32_t op, int same) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int x2 = lg_b_tensor(b, "x2", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    if (same) {
        binop(b, op, x, x, y);
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
    } else {
        binop(b, op, x, x2, y);
        lg_b_io(b, LG_IDS(x, x2), LG_IDS(y));
    }
    return MK_END(&k);
}

/* ML Drift elementwise parser: "No support of few identical inputs in the same operation"
   (only ADD and MUL may share). The classic delegate has no such rule. */
LG_TEST(check_identical_inputs) {
    lg_model *m = binary_self(LG_OP_DIV, 1);
    EXPECT_AT(m, MLD, "identical-inputs", 0);
    EXPECT_NONE(m, CLS, "identical-inputs");
    EXPECT_CLEAN(m, CLS);
    lg_model_free(m);
    m = binary_self(LG_OP_SUB, 1);
    EXPECT_AT(m, MLD, "identical-inputs", 0);
    lg_model_free(m);
    /* near-misses: MUL(x, x), ADD(x, x), DIV(x, y) */
    m = binary_self(LG_OP_MUL, 1);
    EXPECT_NONE(m, MLD, "identical-inputs");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = binary_self(LG_OP_ADD, 1);
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = binary_self(LG_OP_DIV, 0);
    EXPECT_NONE(m, MLD, "identical-inputs");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Per-op parameters: SPACE_TO_DEPTH block_size > 1, CONV_2D strides > 0; BATCH_MATMUL with
   one runtime input: classic needs a constant 2-D second operand, ML Drift rank 2-4. */
LG_TEST(check_op_params) {
    for (int bs = 1; bs <= 2; bs++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        lg_space_to_depth_options so = {bs};
        int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        int y = bs == 1 ? lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4))
                        : lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 16));
        lg_b_op_opts(b, LG_OP_SPACE_TO_DEPTH, LG_IDS(x), LG_IDS(y), LG_OPTS_SPACE_TO_DEPTH_OPTIONS, &so);
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
        lg_model *m = MK_END(&k);
        if (bs == 1) {
            EXPECT_BOTH(m, "op-params", 0);
        } else {
            EXPECT_NONE_BOTH(m, "op-params");
            EXPECT_CLEAN_BOTH(m);
        }
        lg_model_free(m);
    }
    lg_conv2d_options o = conv_opts(0);
    o.stride_h = 0;
    lg_model *m = conv_with(&o);
    EXPECT_BOTH(m, "op-params", 0);
    lg_model_free(m);

    for (int rank = 2; rank <= 3; rank++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        lg_batch_mat_mul_options bo;
        memset(&bo, 0, sizeof bo);
        int a = lg_b_tensor(b, "a", LG_FLOAT32, LG_DIMS(1, 4, 8));
        int c = rank == 2 ? lg_b_const_f32(b, "c", LG_DIMS(8, 4), zf) : lg_b_const_f32(b, "c", LG_DIMS(1, 8, 4), zf);
        int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4));
        lg_b_op_opts(b, LG_OP_BATCH_MATMUL, LG_IDS(a, c), LG_IDS(y), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo);
        lg_b_io(b, LG_IDS(a), LG_IDS(y));
        m = MK_END(&k);
        if (rank == 3) {
            EXPECT_AT(m, CLS, "op-params", 0);
            EXPECT_CLEAN(m, MLD);
        } else {
            EXPECT_CLEAN_BOTH(m);
        }
        lg_model_free(m);
    }
}

/* x[1,8,8,4] -> RESIZE_BILINEAR to 16x16 with the given flags. */
static lg_model *resize_bilinear(bool align, bool half) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int32_t s[2] = {16, 16};
    lg_resize_bilinear_options ro = {align, half};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int sz = lg_b_const_i32(b, "size", LG_DIMS(2), s);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 16, 16, 4));
    lg_b_op_opts(b, LG_OP_RESIZE_BILINEAR, LG_IDS(x, sz), LG_IDS(y), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &ro);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    return MK_END(&k);
}

/* "If half_pixel_centers is True, align_corners must be False." */
LG_TEST(check_resize_flags) {
    lg_model *m = resize_bilinear(true, true);
    EXPECT_BOTH(m, "resize-flags", 0);
    lg_model_free(m);
    m = resize_bilinear(false, true);
    EXPECT_NONE_BOTH(m, "resize-flags");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Field notes: RESIZE_BILINEAR with align_corners=True keeps a model off the GPU (warning). */
LG_TEST(check_resize_align_corners) {
    lg_model *m = resize_bilinear(true, false);
    EXPECT_BOTH(m, "resize-align-corners", 0);
    EXPECT_NONE_BOTH(m, "resize-flags");
    for (int t = 0; m && t < LG_TARGET_COUNT; t++) {
        lg_check_report *r = check(m, (lg_target)t);
        CHECK(r && r->ready && r->n_warnings == 1 && r->n_blockers == 0);
        lg_check_report_free(r);
    }
    lg_model_free(m);
    m = resize_bilinear(false, false);
    EXPECT_NONE_BOTH(m, "resize-align-corners");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* STRIDED_SLICE x[shape] with begin/end/strides of length `rank`. */
static lg_model *strided_slice(lg_dims in, lg_dims out, const int32_t *begin, const int32_t *end,
                               const int32_t *strides, const lg_strided_slice_options *o) {
    mk k;
    lg_builder *b = mk_begin(&k);
    lg_dims d1 = {(const int32_t[]){(int32_t)in.n}, 1};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int bg = lg_b_const_i32(b, "begin", d1, begin);
    int en = lg_b_const_i32(b, "end", d1, end);
    int st = lg_b_const_i32(b, "strides", d1, strides);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    lg_b_op_opts(b, LG_OP_STRIDED_SLICE, LG_IDS(x, bg, en, st), LG_IDS(y), LG_OPTS_STRIDED_SLICE_OPTIONS, o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    return MK_END(&k);
}

/* ellipsis_mask, new_axis_mask and shrink_axis_mask must all be 0. */
LG_TEST(check_strided_slice_masks) {
    const int32_t begin[4] = {0, 0, 0, 0}, end[4] = {1, 8, 8, 4}, strides[4] = {1, 1, 1, 1};
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    o.shrink_axis_mask = 1;
    lg_model *m = strided_slice(LG_DIMS(1, 8, 8, 4), LG_DIMS(8, 8, 4), begin, end, strides, &o);
    EXPECT_BOTH(m, "strided-slice-masks", 0);
    lg_model_free(m);
    memset(&o, 0, sizeof o);
    o.begin_mask = 1; /* begin/end masks are fine */
    o.end_mask = 1;
    m = strided_slice(LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 8, 8, 4), begin, end, strides, &o);
    EXPECT_NONE_BOTH(m, "strided-slice-masks");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* "Reverse slices are not supported." (negative stride) */
LG_TEST(check_strided_slice_reverse) {
    const int32_t begin[4] = {0, 7, 0, 0}, end[4] = {1, 0, 8, 4}, rev[4] = {1, -1, 1, 1},
                  fwd[4] = {1, 2, 1, 1}, b2[4] = {0, 0, 0, 0}, e2[4] = {1, 8, 8, 4};
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    o.end_mask = 2;
    lg_model *m = strided_slice(LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 8, 8, 4), begin, end, rev, &o);
    EXPECT_BOTH(m, "strided-slice-reverse", 0);
    lg_model_free(m);
    memset(&o, 0, sizeof o);
    m = strided_slice(LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 4, 8, 4), b2, e2, fwd, &o);
    EXPECT_NONE_BOTH(m, "strided-slice-reverse");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* SLICE x[in] -> y[out] with begin 0 and size = out. */
static lg_model *slice(lg_dims in, lg_dims out) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int32_t zero[4] = {0, 0, 0, 0};
    lg_dims d1 = {(const int32_t[]){(int32_t)in.n}, 1};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int bg = lg_b_const_i32(b, "begin", d1, zero);
    int sz = lg_b_const_i32(b, "size", d1, out.v);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    lg_b_op(b, LG_OP_SLICE, LG_IDS(x, bg, sz), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    return MK_END(&k);
}

/* Compat: SLICE/STRIDED_SLICE input of rank 3 or 4. ML Drift's SLICE skips the compat check
   and takes rank 1-4; its STRIDED_SLICE goes through the compat check. */
LG_TEST(check_slice_rank) {
    lg_model *m = slice(LG_DIMS(8, 4), LG_DIMS(4, 4));
    EXPECT_AT(m, CLS, "slice-rank", 0);
    EXPECT_NONE(m, MLD, "slice-rank");
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    const int32_t begin[2] = {0, 0}, end[2] = {4, 4}, strides[2] = {1, 1};
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    m = strided_slice(LG_DIMS(8, 4), LG_DIMS(4, 4), begin, end, strides, &o);
    EXPECT_AT(m, CLS, "slice-rank", 0);      /* the shared check: rank 3 or 4 */
    EXPECT_NONE(m, MLD, "slice-rank");       /* ML Drift's own copy: rank 1-4 (seen on WebGPU) */
    lg_model_free(m);
    m = slice(LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 4, 4, 4));
    EXPECT_NONE_BOTH(m, "slice-rank");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = slice(LG_DIMS(1, 8, 4), LG_DIMS(1, 4, 4));
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* TRANSPOSE permutation length 2-4. */
LG_TEST(check_transpose_perm) {
    for (int four = 0; four < 2; four++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        int32_t p1[1] = {0}, p4[4] = {0, 2, 1, 3};
        int x = four ? lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 4, 4)) : lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(8));
        int p = four ? lg_b_const_i32(b, "perm", LG_DIMS(4), p4) : lg_b_const_i32(b, "perm", LG_DIMS(1), p1);
        int y = four ? lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 8, 4)) : lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(8));
        lg_b_op(b, LG_OP_TRANSPOSE, LG_IDS(x, p), LG_IDS(y));
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
        lg_model *m = MK_END(&k);
        if (four) {
            EXPECT_NONE_BOTH(m, "transpose-perm");
            EXPECT_CLEAN_BOTH(m);
        } else {
            EXPECT_BOTH(m, "transpose-perm", 0);
        }
        lg_model_free(m);
    }
}

/* SOFTMAX beta == 1 only. */
LG_TEST(check_softmax_beta) {
    for (int one = 0; one < 2; one++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        lg_softmax_options so = {one ? 1.0f : 0.5f};
        int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 10));
        int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 10));
        lg_b_op_opts(b, LG_OP_SOFTMAX, LG_IDS(x), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
        lg_model *m = MK_END(&k);
        if (one) {
            EXPECT_NONE_BOTH(m, "softmax-beta");
            EXPECT_CLEAN_BOTH(m);
        } else {
            EXPECT_BOTH(m, "softmax-beta", 0);
        }
        lg_model_free(m);
    }
}

/* DEPTHWISE_CONV_2D: out.c == in.c x depth_multiplier, filter.dims[3] == out.c, bias == out.c. */
LG_TEST(check_depthwise_shape) {
    for (int dm = 1; dm <= 2; dm++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        lg_depthwise_conv2d_options o;
        memset(&o, 0, sizeof o);
        o.padding = LG_PADDING_SAME;
        o.stride_w = o.stride_h = 1;
        o.dilation_w_factor = o.dilation_h_factor = 1;
        o.depth_multiplier = dm;
        int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        int w = lg_b_const_f32(b, "w", LG_DIMS(1, 3, 3, 8), zf);
        int bi = lg_b_const_f32(b, "bias", LG_DIMS(8), zf);
        int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 8));
        lg_b_op_opts(b, LG_OP_DEPTHWISE_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o);
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
        lg_model *m = MK_END(&k);
        if (dm == 1) { /* 8 output channels from 4 x 1 */
            EXPECT_BOTH(m, "depthwise-shape", 0);
        } else {
            EXPECT_NONE_BOTH(m, "depthwise-shape");
            EXPECT_CLEAN_BOTH(m);
        }
        lg_model_free(m);
    }
}

/* PAD-family op on x[in] with a 2-column paddings tensor of `rows` rows. */
static lg_model *pad_op(int32_t op, lg_dims in, lg_dims out, int rows, const lg_mirror_pad_options *mo) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int32_t pads[8] = {0, 0, 1, 1, 1, 1, 0, 0};
    lg_dims pd = {(const int32_t[]){rows, 2}, 2};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int p = lg_b_const_i32(b, "paddings", pd, rows == 4 ? pads : pads + 2);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    if (op == LG_OP_MIRROR_PAD)
        lg_b_op_opts(b, op, LG_IDS(x, p), LG_IDS(y), LG_OPTS_MIRROR_PAD_OPTIONS, mo);
    else
        lg_b_op(b, op, LG_IDS(x, p), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    return MK_END(&k);
}

/* MIRROR_PAD: REFLECT mode only. */
LG_TEST(check_mirror_pad_mode) {
    lg_mirror_pad_options sym = {LG_MIRROR_PAD_MODE_SYMMETRIC}, refl = {LG_MIRROR_PAD_MODE_REFLECT};
    lg_model *m = pad_op(LG_OP_MIRROR_PAD, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 10, 10, 4), 4, &sym);
    EXPECT_BOTH(m, "mirror-pad-mode", 0);
    lg_model_free(m);
    m = pad_op(LG_OP_MIRROR_PAD, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 10, 10, 4), 4, &refl);
    EXPECT_NONE_BOTH(m, "mirror-pad-mode");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Paddings 4x2 or 3x2 only (rank-3 or rank-4 data). */
LG_TEST(check_pad_shape) {
    lg_model *m = pad_op(LG_OP_PAD, LG_DIMS(8, 4), LG_DIMS(10, 6), 2, NULL);
    EXPECT_BOTH(m, "pad-shape", 0);
    lg_model_free(m);
    m = pad_op(LG_OP_PAD, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 10, 10, 4), 4, NULL);
    EXPECT_NONE_BOTH(m, "pad-shape");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = pad_op(LG_OP_PAD, LG_DIMS(8, 8, 4), LG_DIMS(10, 10, 4), 3, NULL);
    EXPECT_NONE_BOTH(m, "pad-shape");
    EXPECT_CLEAN(m, CLS);
    EXPECT_AT(m, MLD, "webgpu-pad-layout", 0); /* rank 3 with a first dim > 1: seen wrong on WebGPU */
    lg_model_free(m);
}

/* ------------------------------------------------------------------ CAST and comparisons */

/* x[dt_in] -> CAST -> y[dt_out] */
static lg_model *cast(lg_dtype in, lg_dtype out) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int x = lg_b_tensor(b, "x", in, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", out, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_CAST, LG_IDS(x), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    return MK_END(&k);
}

/* x -> CMP(x, 0.5) -> n_casts x CAST(bool -> f32) [-> RELU when relu_after]. */
static lg_model *compare_chain(int32_t cmp, int n_casts, int relu_after) {
    mk k;
    lg_builder *b = mk_begin(&k);
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
    return MK_END(&k);
}

/* Compat CAST: bool->f16/f32, f16/f32->bool, {f32,i32}->{f32,i32}; classic: a cast from bool
   must read a single comparison op with one consumer and not be a graph output. ML Drift
   skips the compat check for CAST. */
LG_TEST(check_cast_types) {
    lg_model *m = cast(LG_FLOAT16, LG_INT32);
    EXPECT_AT(m, CLS, "cast-types", 0);
    EXPECT_NONE(m, MLD, "cast-types");
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    m = cast(LG_FLOAT32, LG_INT32);
    EXPECT_NONE_BOTH(m, "cast-types");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = cast(LG_INT32, LG_FLOAT32);
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    /* bool -> f32 of a graph input (not a comparison): classic blocked */
    m = cast(LG_BOOL, LG_FLOAT32);
    EXPECT_AT(m, CLS, "cast-types", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    /* LESS -> CAST -> graph output: "Cast from bool not supported for outputs" */
    m = compare_chain(LG_OP_LESS, 1, 0);
    EXPECT_AT(m, CLS, "cast-types", 1);
    EXPECT_NONE(m, CLS, "compare-consumer");
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    /* LESS -> CAST -> RELU: fine on both */
    m = compare_chain(LG_OP_LESS, 1, 1);
    EXPECT_NONE_BOTH(m, "cast-types");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Classic: a comparison is taken only if its output has exactly 1 consumer, a
   CAST/SELECT/SELECT_V2 producing f16/f32. ML Drift has no such rule. */
LG_TEST(check_compare_consumer) {
    lg_model *m = compare_chain(LG_OP_GREATER, 2, 1);
    EXPECT_AT(m, CLS, "compare-consumer", 0);
    EXPECT_NONE(m, MLD, "compare-consumer");
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    /* the comparison's bool output is the graph output */
    m = compare_chain(LG_OP_GREATER, 0, 0);
    EXPECT_AT(m, CLS, "compare-consumer", 0);
    EXPECT_CLEAN(m, MLD);
    lg_model_free(m);
    /* near-miss: one CAST to f32, then RELU */
    m = compare_chain(LG_OP_GREATER, 1, 1);
    EXPECT_NONE_BOTH(m, "compare-consumer");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ reductions */

/* op(x[in], axes) -> y[out] with constant INT32 axes. */
static lg_model *reduce(int32_t op, lg_dims in, const int32_t *axes, uint32_t n_axes, lg_dims out) {
    mk k;
    lg_builder *b = mk_begin(&k);
    lg_reducer_options ro = keep_dims(false);
    lg_dims ad = {(const int32_t[]){(int32_t)n_axes}, 1};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int ax = lg_b_const_i32(b, "axes", ad, axes);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    lg_b_op_opts(b, op, LG_IDS(x, ax), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    return MK_END(&k);
}

/* Each axis must be valid for an input of rank 1-4. */
LG_TEST(check_reduce_axes) {
    const int32_t a4 = 4, am1 = -1;
    lg_model *m = reduce(LG_OP_MEAN, LG_DIMS(1, 8, 8, 4), &a4, 1, LG_DIMS(1, 8, 8));
    EXPECT_BOTH(m, "reduce-axes", 0);
    lg_model_free(m);
    m = reduce(LG_OP_MEAN, LG_DIMS(1, 8, 8, 4), &am1, 1, LG_DIMS(1, 8, 8));
    EXPECT_NONE_BOTH(m, "reduce-axes");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Field notes: a single MEAN/SUM over several axes reducing ~65k elements returns NaN on
   Mali; two single-axis reductions (or smaller extents, or MAX) are fine. */
LG_TEST(check_large_multi_axis_reduce) {
    const int32_t a12[2] = {1, 2}, a2 = 2;
    lg_model *m = reduce(LG_OP_MEAN, LG_DIMS(1, 256, 256, 8), a12, 2, LG_DIMS(1, 8));
    EXPECT_BOTH(m, "large-multi-axis-reduce", 0);
    lg_model_free(m);
    m = reduce(LG_OP_SUM, LG_DIMS(1, 256, 256, 8), a12, 2, LG_DIMS(1, 8));
    EXPECT_BOTH(m, "large-multi-axis-reduce", 0);
    lg_model_free(m);
    /* near-misses: 128x128 = 16384 elements; one axis of 256; REDUCE_MAX */
    m = reduce(LG_OP_MEAN, LG_DIMS(1, 128, 128, 8), a12, 2, LG_DIMS(1, 8));
    EXPECT_NONE_BOTH(m, "large-multi-axis-reduce");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = reduce(LG_OP_MEAN, LG_DIMS(1, 256, 256, 8), &a2, 1, LG_DIMS(1, 256, 8));
    EXPECT_NONE_BOTH(m, "large-multi-axis-reduce");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
    m = reduce(LG_OP_REDUCE_MAX, LG_DIMS(1, 256, 256, 8), a12, 2, LG_DIMS(1, 8));
    EXPECT_NONE_BOTH(m, "large-multi-axis-reduce");
    lg_model_free(m);

    /* the fix: x.mean(2).mean(1) as two ops */
    mk k;
    lg_builder *b = mk_begin(&k);
    lg_reducer_options ro = keep_dims(false);
    const int32_t a1 = 1;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 256, 256, 8));
    int ax2 = lg_b_const_i32(b, "axis2", LG_DIMS(1), &a2);
    int ax1 = lg_b_const_i32(b, "axis1", LG_DIMS(1), &a1);
    int h = lg_b_tensor(b, "h", LG_FLOAT32, LG_DIMS(1, 256, 8));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(x, ax2), LG_IDS(h), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(h, ax1), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    m = MK_END(&k);
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ field rules */

/* Field notes: TRANSPOSE_CONV is rejected on Mali even at v <= 3. */
LG_TEST(check_mali_transpose_conv) {
    lg_model *m = transpose_conv(LG_ACTIVATION_FUNCTION_TYPE_NONE, 0);
    EXPECT_BOTH(m, "mali-transpose-conv", 0);
    EXPECT_NONE_BOTH(m, "op-version");
    lg_model_free(m);
    lg_conv2d_options o = conv_opts(0);
    m = conv_with(&o);
    EXPECT_NONE_BOTH(m, "mali-transpose-conv");
    EXPECT_CLEAN_BOTH(m);
    lg_model_free(m);
}

/* Field notes (EdgeTAM): "MEAN: Expected 1 const input tensor(s), but node has 2 const
   input(s)": an op whose inputs are all constant. */
LG_TEST(check_const_only_inputs) {
    for (int rt = 0; rt < 2; rt++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        lg_reducer_options ro = keep_dims(true);
        const int32_t a12[2] = {1, 2};
        int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
        int lat = rt ? lg_b_tensor(b, "h", LG_FLOAT32, LG_DIMS(1, 4, 4, 4))
                     : lg_b_const_f32(b, "latents", LG_DIMS(1, 4, 4, 4), zf);
        int ax = lg_b_const_i32(b, "axes", LG_DIMS(2), a12);
        int mn = lg_b_tensor(b, "mean", LG_FLOAT32, LG_DIMS(1, 1, 1, 4));
        int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
        if (rt) lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(lat));
        lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(lat, ax), LG_IDS(mn), LG_OPTS_REDUCER_OPTIONS, &ro);
        binop(b, LG_OP_ADD, x, mn, y);
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
        lg_model *m = MK_END(&k);
        if (rt) {
            EXPECT_NONE_BOTH(m, "const-only-inputs");
            EXPECT_CLEAN_BOTH(m);
        } else {
            EXPECT_BOTH(m, "const-only-inputs", 0);
        }
        lg_model_free(m);
    }
}

/* Field notes (ResNet stems): PADV2 with -inf before a MAX_POOL is rejected; zero pad is fine. */
LG_TEST(check_padv2_nonzero) {
    for (int zero = 0; zero < 2; zero++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        int32_t pads[8] = {0, 0, 1, 1, 1, 1, 0, 0};
        const float v = zero ? 0.0f : -INFINITY;
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
        lg_model *m = MK_END(&k);
        if (zero) {
            EXPECT_NONE_BOTH(m, "padv2-nonzero");
            EXPECT_CLEAN_BOTH(m);
        } else {
            EXPECT_BOTH(m, "padv2-nonzero", 0);
        }
        lg_model_free(m);
    }
}

/* Field notes (DINOv2 LayerScale): a 2-D FC output [N, C] (N > 1) is read as {N,1,1,C};
   a MUL with a [1,1,C] operand then conflicts. A 3-D FC output (keep_num_dims) does not. */
LG_TEST(check_fc_2d_broadcast) {
    for (int three_d = 0; three_d < 2; three_d++) {
        mk k;
        lg_builder *b = mk_begin(&k);
        lg_fully_connected_options fo;
        memset(&fo, 0, sizeof fo);
        fo.keep_num_dims = three_d;
        int x = three_d ? lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 8)) : lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(4, 8));
        int w = lg_b_const_f32(b, "w", LG_DIMS(16, 8), zf);
        int bi = lg_b_const_f32(b, "bias", LG_DIMS(16), zf);
        int f = three_d ? lg_b_tensor(b, "f", LG_FLOAT32, LG_DIMS(1, 4, 16)) : lg_b_tensor(b, "f", LG_FLOAT32, LG_DIMS(4, 16));
        int g = lg_b_const_f32(b, "gamma", LG_DIMS(1, 1, 16), zf);
        int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 16));
        lg_b_op_opts(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w, bi), LG_IDS(f), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
        binop(b, LG_OP_MUL, f, g, y);
        lg_b_io(b, LG_IDS(x), LG_IDS(y));
        lg_model *m = MK_END(&k);
        if (three_d) {
            EXPECT_NONE_BOTH(m, "fc-2d-broadcast");
            EXPECT_CLEAN_BOTH(m);
        } else {
            EXPECT_BOTH(m, "fc-2d-broadcast", 1);
        }
        lg_model_free(m);
    }
}

/* Field notes (DAC RVQ): "CAST: Tensor type(INT64) is not supported". */
LG_TEST(check_int64_tensor) {
    lg_model *m = cast(LG_FLOAT32, LG_INT64);
    EXPECT_BOTH(m, "int64-tensor", 0);
    lg_model_free(m);
    m = cast(LG_FLOAT32, LG_INT32);
    EXPECT_NONE_BOTH(m, "int64-tensor");
    lg_model_free(m);
}

/* peers.md and our own WebGPU runs: GATHER with >= 2 constant indices makes the whole
   compile throw; 1 index or runtime indices work (an ML Drift blocker). */
LG_TEST(check_gather_const_indices) {
    for (int kind = 0; kind < 3; kind++) { /* 0: 2 const, 1: 1 const, 2: runtime */
        mk k;
        lg_builder *b = mk_begin(&k);
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
        lg_model *m = MK_END(&k);
        if (kind == 0) {
            EXPECT_AT(m, MLD, "gather-const-indices", 1);
            lg_check_report *r2 = check(m, MLD);
            CHECK(r2 && !r2->ready); /* the whole compile throws: a blocker */
            lg_check_report_free(r2);
            EXPECT_NONE(m, CLS, "gather-const-indices");
            EXPECT_CLEAN(m, CLS);
        } else {
            EXPECT_NONE_BOTH(m, "gather-const-indices");
            EXPECT_CLEAN_BOTH(m);
        }
        lg_model_free(m);
    }
}

/* A chain x -> TANH x n -> y (op i reads op i-1's output); with skip, op 6 is ADD(a5, a0). */
static lg_model *chain(int n, int skip) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int prev = x, a0 = -1;
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "a%d", i);
        int t = lg_b_tensor(b, name, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        if (skip && i == 6) binop(b, LG_OP_ADD, prev, a0, t);
        else lg_b_op(b, LG_OP_TANH, LG_IDS(prev), LG_IDS(t));
        if (i == 0) a0 = t;
        prev = t;
    }
    lg_b_io(b, LG_IDS(x), LG_IDS(prev));
    return MK_END(&k);
}

/* Field notes (wav2vec2): a clean graph may fail to compile whole on Mali; split near the
   middle where the fewest tensors cross. A warning. */
LG_TEST(check_graph_size) {
    lg_model *m = chain(10, 0);
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
    m = chain(10, 1);
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
    mk k;
    lg_builder *b = mk_begin(&k);
    lg_conv2d_options o = conv_opts(LG_ACTIVATION_FUNCTION_TYPE_RELU6);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w16 = lg_b_const(b, "w16", LG_FLOAT16, LG_DIMS(4, 3, 3, 4), zh, 4 * 3 * 3 * 4 * 2);
    int b16 = lg_b_const(b, "b16", LG_FLOAT16, LG_DIMS(4), zh, 4 * 2);
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 3, 3, 4));
    int bi = lg_b_tensor(b, "bias", LG_FLOAT32, LG_DIMS(4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(w16), LG_IDS(w));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(b16), LG_IDS(bi));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    lg_model *m = MK_END(&k);
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
    b = mk_begin(&k);
    int8_t w8[4 * 3 * 3 * 4] = {0};
    const float sc = 0.05f;
    o = conv_opts(0);
    x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int wq = lg_b_const(b, "w8", LG_INT8, LG_DIMS(4, 3, 3, 4), w8, sizeof w8);
    w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 3, 3, 4));
    bi = lg_b_const_f32(b, "bias", LG_DIMS(4), zf);
    y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(wq), LG_IDS(w));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    m = MK_END(&k);
    if (!m) return;
    lg_error err;
    CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)wq, &sc, NULL, 1, 0, &err), &err);
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
    mk k;
    lg_builder *b = mk_begin(&k);
    lg_conv2d_options o = conv_opts(0);
    int32_t idx[4 * 4 * 3] = {0};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 3, 3, 4), zf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(4), zf);
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
    lg_model *m = MK_END(&k);
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
    mk k;
    lg_builder *b = mk_begin(&k);
    lg_conv2d_options o = conv_opts(LG_ACTIVATION_FUNCTION_TYPE_RELU6);
    lg_reducer_options ro = keep_dims(false);
    lg_fully_connected_options fo;
    memset(&fo, 0, sizeof fo);
    lg_softmax_options so = {1.0f};
    const int32_t a12[2] = {1, 2};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 3));
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 3, 3, 3), zf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(4), zf);
    int c = lg_b_tensor(b, "c", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int ax = lg_b_const_i32(b, "axes", LG_DIMS(2), a12);
    int mn = lg_b_tensor(b, "mean", LG_FLOAT32, LG_DIMS(1, 4));
    int fw = lg_b_const_f32(b, "fc_w", LG_DIMS(10, 4), zf);
    int fb = lg_b_const_f32(b, "fc_b", LG_DIMS(10), zf);
    int lg = lg_b_tensor(b, "logits", LG_FLOAT32, LG_DIMS(1, 10));
    int y = lg_b_tensor(b, "probs", LG_FLOAT32, LG_DIMS(1, 10));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(c), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(c, ax), LG_IDS(mn), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_op_opts(b, LG_OP_FULLY_CONNECTED, LG_IDS(mn, fw, fb), LG_IDS(lg), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_op_opts(b, LG_OP_SOFTMAX, LG_IDS(lg), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    lg_model *m = MK_END(&k);
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
    lg_model *m = unary(LG_OP_RELU, 1, LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_check_report *r = (lg_check_report *)1;
    lg_error err;
    CHECK_EQ_INT(lg_check_model(NULL, NULL, &r, &err), LG_ERR_INVALID_ARG);
    lg_check_options bad = {(lg_target)7, 0};
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
    mk k;
    lg_builder *b = mk_begin(&k);
    int32_t axis_v[1] = {3};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 8));
    int ax = lg_b_const_i32(b, "axis", LG_SCALAR, axis_v);
    int a = lg_b_tensor(b, "a", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    int g = lg_b_tensor(b, "g", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    lg_split_options so = {2};
    lg_b_op_opts(b, LG_OP_SPLIT, LG_IDS(ax, x), LG_IDS(a, g), LG_OPTS_SPLIT_OPTIONS, &so);
    lg_b_op(b, LG_OP_RELU, LG_IDS(a), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y, g));
    lg_model *m = MK_END(&k);
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
    b = mk_begin(&k);
    int32_t kv[1] = {2};
    int in = lg_b_tensor(b, "in", LG_FLOAT32, LG_DIMS(1, 8));
    int kk = lg_b_const_i32(b, "k", LG_SCALAR, kv);
    int v = lg_b_tensor(b, "v", LG_FLOAT32, LG_DIMS(1, 2));
    int ix = lg_b_tensor(b, "i", LG_INT32, LG_DIMS(1, 2));
    lg_b_op(b, LG_OP_TOPK_V2, LG_IDS(in, kk), LG_IDS(v, ix));
    lg_b_io(b, LG_IDS(in), LG_IDS(v, ix));
    m = MK_END(&k);
    EXPECT_AT(m, MLD, "field-banned-op", 0);
    EXPECT_NONE(m, CLS, "field-banned-op");
    EXPECT_AT(m, CLS, "op-unsupported", 0);
    lg_model_free(m);

    /* near miss: RELU alone */
    b = mk_begin(&k);
    int p = lg_b_tensor(b, "p", LG_FLOAT32, LG_DIMS(1, 8));
    int q = lg_b_tensor(b, "q", LG_FLOAT32, LG_DIMS(1, 8));
    lg_b_op(b, LG_OP_RELU, LG_IDS(p), LG_IDS(q));
    lg_b_io(b, LG_IDS(p), LG_IDS(q));
    m = MK_END(&k);
    EXPECT_NONE_BOTH(m, "field-banned-op");
    lg_model_free(m);
}

/* ML Drift rejects a DEQUANTIZE whose input comes from DENSIFY ("Dequantize for Densify is
   not supported", seen on the real delegate with face_detection_full_range_sparse): op-params
   at the DEQUANTIZE on mldrift; the classic delegate takes both; near miss: DEQUANTIZE of a
   FLOAT16 constant (folded). */
LG_TEST(check_dequantize_of_densify) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int w16 = lg_b_const(b, "w16", LG_FLOAT16, LG_DIMS(4, 4), zh, 32);
    int wd = lg_b_tensor(b, "w_dense", LG_FLOAT16, LG_DIMS(4, 4));
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 4));
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(b, LG_OP_DENSIFY, LG_IDS(w16), LG_IDS(wd));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(wd), LG_IDS(w));
    lg_b_op(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    lg_model *m = MK_END(&k);
    EXPECT_AT(m, MLD, "op-params", 1);
    EXPECT_AT(m, MLD, "op-unsupported", 0);
    EXPECT_NONE(m, CLS, "op-params");
    lg_model_free(m);

    b = mk_begin(&k);
    w16 = lg_b_const(b, "w16", LG_FLOAT16, LG_DIMS(4, 4), zh, 32);
    w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 4));
    x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(w16), LG_IDS(w));
    lg_b_op(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    m = MK_END(&k);
    EXPECT_NONE_BOTH(m, "op-params");
    lg_model_free(m);
}

/* webgpu-pad-layout (seen on the real delegate): PAD of a rank-3 tensor with a first
   dimension > 1, or padding the batch of a rank-4 tensor, is delegated and wrong: an ML Drift
   warning. Near misses: [1,8,4] and [1,8,8,4] padded on H and W. */
static lg_model *pad_model(lg_dims in, lg_dims out, const int32_t *pads, uint32_t rank) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int p = lg_b_const_i32(b, "pads", LG_DIMS((int32_t)rank, 2), pads);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    lg_b_op(b, LG_OP_PAD, LG_IDS(x, p), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    return MK_END(&k);
}

LG_TEST(check_webgpu_pad_layout) {
    const int32_t p3[6] = {1, 1, 1, 1, 0, 0}, p3hw[6] = {0, 0, 1, 1, 0, 0};
    const int32_t p4b[8] = {1, 1, 0, 0, 0, 0, 0, 0}, p4hw[8] = {0, 0, 1, 1, 1, 1, 0, 0};
    lg_model *m = pad_model(LG_DIMS(8, 8, 4), LG_DIMS(10, 10, 4), p3, 3);
    EXPECT_AT(m, MLD, "webgpu-pad-layout", 0);
    EXPECT_NONE(m, CLS, "webgpu-pad-layout");
    lg_check_report *r = check(m, MLD);
    CHECK(r && r->ready); /* a warning */
    lg_check_report_free(r);
    lg_model_free(m);
    m = pad_model(LG_DIMS(1, 8, 8, 4), LG_DIMS(3, 8, 8, 4), p4b, 4);
    EXPECT_AT(m, MLD, "webgpu-pad-layout", 0);
    lg_model_free(m);
    m = pad_model(LG_DIMS(1, 8, 4), LG_DIMS(1, 10, 4), p3hw, 3);
    EXPECT_NONE_BOTH(m, "webgpu-pad-layout");
    lg_model_free(m);
    m = pad_model(LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 10, 10, 4), p4hw, 4);
    EXPECT_NONE_BOTH(m, "webgpu-pad-layout");
    lg_model_free(m);
}
