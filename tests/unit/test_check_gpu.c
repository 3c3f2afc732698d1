/* lg_check_model per GPU family (lg_check_options.gpu, `check --gpu`): every rule names the
   families it applies to, and a check for one family applies only those rules.

   Expected families, from where each rule was seen (src/check/rules.def cites the sources):
   - a rule read in the delegates' source applies to every family (the same code runs on all);
   - the seed field notes are all from a Pixel 8a (Mali): mali-transpose-conv, padv2-nonzero,
     large-multi-axis-reduce, resize-align-corners, field-banned-op and graph-size are Mali's
     only (the WebGPU backend delegates those models, tests/e2e/test_check_vs_delegate.sh);
   - const-only-inputs, fc-2d-broadcast and int64-tensor were seen on Mali and on WebGPU
     (peers.md, the delegate run): mali and webgpu;
   - gather-const-indices and webgpu-pad-layout were seen on WebGPU only;
   - dynamic-input was seen on WebGPU, but its reason is the delegate interface's static-shape
     rule (dynamic-tensor, delegate source): every family;
   - nothing in the field notes or gpu-delegate-rules.md is about Adreno, so every rule that
     applies to Adreno is one that applies to all families.
   The models are those of tests/models/rule_models*.c (test_check_rules.c asserts the
   default, all-family outcome on them). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/rule_models.h"
#include "lg/check.h"
#include "lg/lg.h"
#include "tf.h"

#define MLD LG_TARGET_MLDRIFT
#define CLS LG_TARGET_CLASSIC
#define ANY LG_GPU_ANY
#define MALI LG_GPU_MALI
#define ADRENO LG_GPU_ADRENO
#define WEBGPU LG_GPU_WEBGPU
#define B_MALI LG_GPU_BIT(LG_GPU_MALI)
#define B_ADRENO LG_GPU_BIT(LG_GPU_ADRENO)
#define B_WEBGPU LG_GPU_BIT(LG_GPU_WEBGPU)

/* ------------------------------------------------------------------ helpers */

static lg_model *build(const char *file, int line, lgm_build_fn fn) {
    lg_error err;
    lg_model *m = lgm_build(fn, LGM_IO_ANY, &err);
    if (!m) tf_fail(file, line, "building the model failed: %s", err.msg);
    return m;
}
#define MODEL(fn) build(__FILE__, __LINE__, lgm_##fn)

static lg_check_report *check_g(const char *file, int line, const lg_model *m, lg_target t, lg_gpu g,
                                uint32_t max_ops) {
    lg_check_options opt = {t, max_ops, g};
    lg_check_report *r = NULL;
    lg_error err;
    if (!m) return NULL;
    if (lg_check_model(m, &opt, &r, &err) != LG_OK) {
        tf_fail(file, line, "lg_check_model(%s, %s) failed: %s", lg_target_name(t), lg_gpu_name(g), err.msg);
        return NULL;
    }
    if (r->gpu != g || r->target != t) tf_fail(file, line, "report says gpu %d target %d", (int)r->gpu, (int)r->target);
    return r;
}

static int count(const lg_check_report *r, const char *id) {
    int n = 0;
    for (uint32_t i = 0; r && i < r->n_findings; i++) n += strcmp(r->findings[i].rule->id, id) == 0;
    return n;
}

static void dump(const lg_check_report *r) {
    for (uint32_t i = 0; r && i < r->n_findings; i++)
        fprintf(stderr, "      [%s/%s] %s op %d: %s\n", lg_target_name(r->target), lg_gpu_name(r->gpu),
                r->findings[i].rule->id, r->findings[i].op, r->findings[i].reason);
}

/* Rule id is reported about op (and no other op) when present, else not at all; ready (1/0)
   unless ready < 0; other = the report's n_other_gpu_findings unless < 0. */
#define EXPECT_G(m, t, g, id, op, present, ready, other) \
    expect_g(__FILE__, __LINE__, (m), (t), (g), 0, (id), (op), (present), (ready), (other))
#define EXPECT_G_MAX(m, t, g, max, id, op, present, ready, other) \
    expect_g(__FILE__, __LINE__, (m), (t), (g), (max), (id), (op), (present), (ready), (other))
static void expect_g(const char *file, int line, const lg_model *m, lg_target t, lg_gpu g, uint32_t max_ops,
                     const char *id, int32_t op, int present, int ready, int other) {
    lg_check_report *r = check_g(file, line, m, t, g, max_ops);
    if (!r) return;
    int n = count(r, id), at = 0;
    for (uint32_t i = 0; i < r->n_findings; i++)
        at += strcmp(r->findings[i].rule->id, id) == 0 && r->findings[i].op == op;
    int bad = present ? (n < 1 || at != n) : n != 0;
    if (bad) tf_fail(file, line, "%s/%s: %s: %d finding(s), %d about op %d; expected %s", lg_target_name(t),
                     lg_gpu_name(g), id, n, at, op, present ? "it about that op only" : "none");
    if (ready >= 0 && (int)r->ready != ready) {
        tf_fail(file, line, "%s/%s: ready %d, expected %d", lg_target_name(t), lg_gpu_name(g), r->ready, ready);
        bad = 1;
    }
    if (other >= 0 && (int)r->n_other_gpu_findings != other) {
        tf_fail(file, line, "%s/%s: %u finding(s) of other families left out, expected %d", lg_target_name(t),
                lg_gpu_name(g), r->n_other_gpu_findings, other);
        bad = 1;
    }
    if (bad) dump(r);
    lg_check_report_free(r);
}

/* A rule for Mali only: reported for any and mali, not for adreno or webgpu (where the model
   has no other finding: ready, every op on the GPU, one finding left out). */
static void mali_only(const char *file, int line, const lg_model *m, const char *id, int32_t op, int blocker,
                      uint32_t max_ops) {
    for (int t = 0; t < LG_TARGET_COUNT; t++) {
        expect_g(file, line, m, (lg_target)t, ANY, max_ops, id, op, 1, !blocker, 0);
        expect_g(file, line, m, (lg_target)t, MALI, max_ops, id, op, 1, !blocker, 0);
        expect_g(file, line, m, (lg_target)t, ADRENO, max_ops, id, op, 0, 1, 1);
        if (t == MLD) expect_g(file, line, m, MLD, WEBGPU, max_ops, id, op, 0, 1, 1);
        lg_check_report *r = check_g(file, line, m, (lg_target)t, ADRENO, max_ops);
        if (r && (r->n_findings != 0 || r->n_gpu_ops != r->n_ops)) {
            tf_fail(file, line, "%s/adreno: %u finding(s), %u of %u ops on the GPU; expected none, all",
                    lg_target_name((lg_target)t), r->n_findings, r->n_gpu_ops, r->n_ops);
            dump(r);
        }
        lg_check_report_free(r);
    }
}
#define MALI_ONLY(m, id, op, blocker) mali_only(__FILE__, __LINE__, (m), (id), (op), (blocker), 0)

/* ------------------------------------------------------------------ names and the table */

LG_TEST(check_gpu_names) {
    CHECK_STR(lg_gpu_name(LG_GPU_ANY), "any");
    CHECK_STR(lg_gpu_name(LG_GPU_MALI), "mali");
    CHECK_STR(lg_gpu_name(LG_GPU_ADRENO), "adreno");
    CHECK_STR(lg_gpu_name(LG_GPU_WEBGPU), "webgpu");
    CHECK_STR(lg_gpu_name((lg_gpu)9), "?");
    for (int g = 0; g < LG_GPU_COUNT; g++) CHECK_EQ_INT(lg_gpu_from_name(lg_gpu_name((lg_gpu)g)), g);
    CHECK_EQ_INT(lg_gpu_from_name("Mali"), -1); /* names are lower case, as the CLI takes them */
    CHECK_EQ_INT(lg_gpu_from_name(""), -1);
    CHECK_EQ_INT(lg_gpu_from_name("opencl"), -1);
    CHECK_EQ_INT(lg_gpu_mask(LG_GPU_ANY), LG_GPUS_ALL);
    CHECK_EQ_INT(lg_gpu_mask(LG_GPU_MALI), 2); /* bit 1 */
    CHECK_EQ_INT(lg_gpu_mask(LG_GPU_WEBGPU), 8);
    CHECK_EQ_INT(LG_GPUS_ALL, 2 | 4 | 8);
}

/* The families as rules.def's notes begin: "all", "mali", "mali, webgpu", "webgpu". */
static const char *families(unsigned gpus, char *buf, size_t n) {
    if (gpus == LG_GPUS_ALL) return "all";
    snprintf(buf, n, "%s%s%s%s%s", gpus & B_MALI ? "mali" : "", (gpus & B_MALI) && (gpus & ~B_MALI) ? ", " : "",
             gpus & B_ADRENO ? "adreno" : "", (gpus & B_ADRENO) && (gpus & B_WEBGPU) ? ", " : "",
             gpus & B_WEBGPU ? "webgpu" : "");
    return buf;
}

LG_TEST(check_gpu_rule_table) {
    static const struct { const char *id; unsigned gpus; } field[] = {
        {"dynamic-input", LG_GPUS_ALL},
        {"mali-transpose-conv", B_MALI},
        {"const-only-inputs", B_MALI | B_WEBGPU},
        {"padv2-nonzero", B_MALI},
        {"large-multi-axis-reduce", B_MALI},
        {"fc-2d-broadcast", B_MALI | B_WEBGPU},
        {"resize-align-corners", B_MALI},
        {"field-banned-op", B_MALI},
        {"graph-size", B_MALI},
        {"int64-tensor", B_MALI | B_WEBGPU},
        {"gather-const-indices", B_WEBGPU},
        {"webgpu-pad-layout", B_WEBGPU},
        {"webgpu-space-depth-batch", B_WEBGPU},
    };
    uint32_t n;
    const lg_rule_info *rules = lg_rules(&n);
    uint32_t n_field = 0;
    for (uint32_t i = 0; i < n; i++) {
        const lg_rule_info *r = &rules[i];
        char buf[64], want[80];
        if (r->gpus == 0 || (r->gpus & ~LG_GPUS_ALL)) tf_fail(__FILE__, __LINE__, "%s: gpus 0x%x", r->id, r->gpus);
        /* the note says the families first: "mali, webgpu: seen on ..." */
        snprintf(want, sizeof want, "%s: ", families(r->gpus, buf, sizeof buf));
        if (!r->gpus_note || strncmp(r->gpus_note, want, strlen(want)) != 0)
            tf_fail(__FILE__, __LINE__, "%s: gpus_note \"%s\" should begin \"%s\"", r->id,
                    r->gpus_note ? r->gpus_note : "(null)", want);
        /* nothing is known about Adreno: only all-family rules reach it */
        if ((r->gpus & B_ADRENO) && r->gpus != LG_GPUS_ALL) tf_fail(__FILE__, __LINE__, "%s: adreno-specific", r->id);
        if (strcmp(r->source_kind, "delegate-source") == 0) {
            if (r->gpus != LG_GPUS_ALL) tf_fail(__FILE__, __LINE__, "%s: a delegate-source rule for 0x%x", r->id, r->gpus);
            continue;
        }
        n_field++;
        size_t k = 0;
        while (k < sizeof field / sizeof field[0] && strcmp(field[k].id, r->id) != 0) k++;
        if (k == sizeof field / sizeof field[0]) tf_fail(__FILE__, __LINE__, "%s: a field rule this test does not know", r->id);
        else if (field[k].gpus != r->gpus) tf_fail(__FILE__, __LINE__, "%s: gpus 0x%x, expected 0x%x", r->id, r->gpus, field[k].gpus);
        /* a rule seen on Mali applies to Mali, a rule seen on WebGPU to WebGPU */
        if (strstr(r->source_kind, "Mali") && !(r->gpus & B_MALI)) tf_fail(__FILE__, __LINE__, "%s: not mali", r->id);
        if (strcmp(r->source_kind, "webgpu-observed") == 0 && !(r->gpus & B_WEBGPU))
            tf_fail(__FILE__, __LINE__, "%s: not webgpu", r->id);
    }
    CHECK_EQ_INT(n_field, sizeof field / sizeof field[0]);
}

/* ------------------------------------------------------------------ options */

LG_TEST(check_gpu_bad_options) {
    lg_model *m = MODEL(clean_cnn);
    if (!m) return;
    lg_check_report *r = NULL;
    lg_error err;
    /* the classic delegate runs on OpenCL/OpenGL ES: no WebGPU */
    lg_check_options cw = {CLS, 0, WEBGPU};
    CHECK_EQ_INT(lg_check_model(m, &cw, &r, &err), LG_ERR_INVALID_ARG);
    CHECK(r == NULL && strstr(err.msg, "WebGPU") != NULL);
    lg_check_options bad = {MLD, 0, (lg_gpu)LG_GPU_COUNT};
    CHECK_EQ_INT(lg_check_model(m, &bad, &r, &err), LG_ERR_INVALID_ARG);
    CHECK(r == NULL && strstr(err.msg, "GPU family") != NULL);
    /* near-misses: classic with mali and adreno, mldrift with webgpu */
    lg_check_options ok[] = {{CLS, 0, MALI}, {CLS, 0, ADRENO}, {MLD, 0, WEBGPU}, {CLS, 0, ANY}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        CHECK_OK(lg_check_model(m, &ok[i], &r, &err), &err);
        CHECK(r && r->ready && r->gpu == ok[i].gpu);
        lg_check_report_free(r);
        r = NULL;
    }
    lg_model_free(m);
}

/* ------------------------------------------------------------------ Mali's rules */

/* The case: TRANSPOSE_CONV v1 and v3 (with bias) are delegate-clean; only Mali
   rejects them. --target classic --gpu adreno: every op on the GPU. */
LG_TEST(check_gpu_mali_transpose_conv) {
    lg_model *m = MODEL(mali_transpose_conv_trigger);
    MALI_ONLY(m, "mali-transpose-conv", 0, 1);
    lg_model_free(m);
    m = MODEL(mali_transpose_conv_trigger2);
    MALI_ONLY(m, "mali-transpose-conv", 0, 1);
    lg_model_free(m);
    /* near-miss: not a TRANSPOSE_CONV; no family reports it */
    m = MODEL(mali_transpose_conv_nearmiss);
    for (int g = 0; g < LG_GPU_COUNT; g++) EXPECT_G(m, MLD, (lg_gpu)g, "mali-transpose-conv", 0, 0, -1, 0);
    lg_model_free(m);
}

/* TRANSPOSE_CONV v4 (fused RELU) is over every family's maximum (delegate source), and the
   fix names the ZeroStuff rewrite only where Mali is among the families. */
LG_TEST(check_gpu_op_version_fix) {
    lg_model *m = MODEL(op_version_trigger);
    for (int g = 0; g < LG_GPU_COUNT; g++) {
        lg_check_report *r = check_g(__FILE__, __LINE__, m, MLD, (lg_gpu)g, 0);
        const lg_finding *f = NULL;
        for (uint32_t i = 0; r && i < r->n_findings; i++)
            if (strcmp(r->findings[i].rule->id, "op-version") == 0) f = &r->findings[i];
        int mali = g == ANY || g == MALI;
        if (!f) tf_fail(__FILE__, __LINE__, "%s: no op-version finding", lg_gpu_name((lg_gpu)g));
        else if ((strstr(f->fix, "on Mali, use the ZeroStuff") != NULL) != mali)
            tf_fail(__FILE__, __LINE__, "%s: fix \"%s\"", lg_gpu_name((lg_gpu)g), f->fix);
        else if (strncmp(f->fix, "unfuse the activation", 21) != 0)
            tf_fail(__FILE__, __LINE__, "%s: fix \"%s\"", lg_gpu_name((lg_gpu)g), f->fix);
        if (r && r->ready) tf_fail(__FILE__, __LINE__, "%s: ready", lg_gpu_name((lg_gpu)g));
        lg_check_report_free(r);
    }
    lg_model_free(m);
}

LG_TEST(check_gpu_padv2_and_reduce) {
    lg_model *m = MODEL(padv2_nonzero_trigger);
    MALI_ONLY(m, "padv2-nonzero", 0, 1);
    lg_model_free(m);
    m = MODEL(padv2_nonzero_nearmiss);
    for (int g = 0; g < LG_GPU_COUNT; g++) EXPECT_G(m, MLD, (lg_gpu)g, "padv2-nonzero", 0, 0, 1, 0);
    lg_model_free(m);
    m = MODEL(large_multi_axis_reduce_trigger);
    MALI_ONLY(m, "large-multi-axis-reduce", 0, 1);
    lg_model_free(m);
    m = MODEL(large_multi_axis_reduce_nearmiss);
    for (int g = 0; g < LG_GPU_COUNT; g++) EXPECT_G(m, MLD, (lg_gpu)g, "large-multi-axis-reduce", 0, 0, 1, 0);
    lg_model_free(m);
}

/* The warnings of the field notes: Mali's only. */
LG_TEST(check_gpu_mali_warnings) {
    lg_model *m = MODEL(resize_align_corners_trigger);
    MALI_ONLY(m, "resize-align-corners", 0, 0);
    lg_model_free(m);
    /* a 10-op TANH chain over --max-gpu-ops 4: the cut (tanh_chain in rule_models_field.c) */
    m = MODEL(graph_size_trigger);
    for (int t = 0; t < LG_TARGET_COUNT; t++) {
        EXPECT_G_MAX(m, (lg_target)t, MALI, 4, "graph-size", 5, 1, 1, 0);
        EXPECT_G_MAX(m, (lg_target)t, ADRENO, 4, "graph-size", 5, 0, 1, 1);
    }
    EXPECT_G_MAX(m, MLD, WEBGPU, 4, "graph-size", 5, 0, 1, 1);
    lg_model_free(m);
}

/* x[1,4] -> TANH x5 -> SOFTMAX(beta 2) -> y: a delegate-source blocker on op 5 and 5 GPU ops.
   With max_gpu_ops 2 the split suggestion (graph-size, Mali's) goes before op 3: r = 6 real
   ops, cuts k in [max(1, 6/4), 3*6/4] = 1..4, each crossed by one tensor (the chain), ties
   to the nearest to r/2 = 3. Where graph-size does not apply, the other finding keeps op 5. */
static void tanh_softmax(lg_builder *b, lgm_io io) {
    (void)io;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int prev = x;
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "a%d", i);
        int t = lg_b_tensor(b, name, LG_FLOAT32, LG_DIMS(1, 4));
        lg_b_op(b, LG_OP_TANH, LG_IDS(prev), LG_IDS(t));
        prev = t;
    }
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_softmax_options so = {2.0f};
    lg_b_op_opts(b, LG_OP_SOFTMAX, LG_IDS(prev), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

LG_TEST(check_gpu_graph_size_left_out_keeps_other_findings) {
    lg_model *m = build(__FILE__, __LINE__, tanh_softmax);
    EXPECT_G_MAX(m, MLD, MALI, 2, "graph-size", 3, 1, 0, 0);
    EXPECT_G_MAX(m, MLD, MALI, 2, "softmax-beta", 5, 1, 0, 0);
    for (int g = ADRENO; g <= WEBGPU; g++) {
        EXPECT_G_MAX(m, MLD, (lg_gpu)g, 2, "softmax-beta", 5, 1, 0, 1);
        EXPECT_G_MAX(m, MLD, (lg_gpu)g, 2, "graph-size", 3, 0, 0, 1);
    }
    lg_model_free(m);
}

/* ------------------------------------------------------------------ Mali and WebGPU */

LG_TEST(check_gpu_fc_2d_broadcast) {
    lg_model *m = MODEL(fc_2d_broadcast_trigger);
    for (int t = 0; t < LG_TARGET_COUNT; t++) {
        EXPECT_G(m, (lg_target)t, ANY, "fc-2d-broadcast", 1, 1, 0, 0);
        EXPECT_G(m, (lg_target)t, MALI, "fc-2d-broadcast", 1, 1, 0, 0);
        /* classic: the source's kStandard broadcast (2-D x 3-D) blocks it on every family */
        EXPECT_G(m, (lg_target)t, ADRENO, "fc-2d-broadcast", 1, 0, t == MLD, 1);
    }
    EXPECT_G(m, CLS, ADRENO, "broadcast", 1, 1, 0, 1);
    EXPECT_G(m, MLD, ADRENO, "broadcast", 1, 0, 1, 1);
    /* WebGPU delegates it and computes it wrong: still a blocker there */
    EXPECT_G(m, MLD, WEBGPU, "fc-2d-broadcast", 1, 1, 0, 0);
    lg_model_free(m);
    m = MODEL(fc_2d_broadcast_nearmiss);
    for (int g = 0; g < LG_GPU_COUNT; g++) EXPECT_G(m, MLD, (lg_gpu)g, "fc-2d-broadcast", 1, 0, 1, 0);
    lg_model_free(m);
}

/* MEAN over constant latents: const-only-inputs is Mali's and WebGPU's, but the delegate
   source's input count (a reduction takes 1 runtime input) blocks it on every family. */
LG_TEST(check_gpu_const_only_inputs) {
    lg_model *m = MODEL(const_only_inputs_trigger);
    for (int g = 0; g < LG_GPU_COUNT; g++) {
        int here = g != ADRENO;
        EXPECT_G(m, MLD, (lg_gpu)g, "const-only-inputs", 0, here, 0, !here);
        EXPECT_G(m, MLD, (lg_gpu)g, "input-count", 0, 1, 0, !here);
    }
    lg_model_free(m);
}

/* FLOAT32 -> CAST -> INT64: int64-tensor where it was seen (Mali, WebGPU); on Adreno the
   delegate source's dtype lists, which take no INT64, block it as tensor-dtype. */
LG_TEST(check_gpu_int64) {
    lg_model *m = MODEL(int64_tensor_trigger);
    for (int t = 0; t < LG_TARGET_COUNT; t++)
        for (int g = 0; g < LG_GPU_COUNT; g++) {
            if (t == CLS && g == WEBGPU) continue;
            int seen = g != ADRENO;
            EXPECT_G(m, (lg_target)t, (lg_gpu)g, "int64-tensor", 0, seen, 0, -1);
            EXPECT_G(m, (lg_target)t, (lg_gpu)g, "tensor-dtype", 0, !seen, 0, -1);
        }
    lg_model_free(m);
    /* near-miss: CAST to INT32, which ML Drift's all-precision CAST takes */
    m = MODEL(int64_tensor_nearmiss);
    for (int g = 0; g < LG_GPU_COUNT; g++) {
        EXPECT_G(m, MLD, (lg_gpu)g, "int64-tensor", 0, 0, -1, -1);
        EXPECT_G(m, MLD, (lg_gpu)g, "tensor-dtype", 0, 0, -1, -1);
    }
    lg_model_free(m);
}

/* ------------------------------------------------------------------ WebGPU's rules */

LG_TEST(check_gpu_webgpu_rules) {
    /* RELU -> GATHER of channels {0, 2}: the GATHER is op 1 */
    lg_model *m = MODEL(gather_const_indices_trigger);
    EXPECT_G(m, MLD, ANY, "gather-const-indices", 1, 1, 0, -1);
    EXPECT_G(m, MLD, WEBGPU, "gather-const-indices", 1, 1, 0, 1); /* field-banned-op left out */
    /* Mali has only the field-banned-op warning for GATHER; Adreno nothing */
    EXPECT_G(m, MLD, MALI, "gather-const-indices", 1, 0, 1, 1);
    EXPECT_G(m, MLD, MALI, "field-banned-op", 1, 1, 1, 1);
    EXPECT_G(m, MLD, ADRENO, "gather-const-indices", 1, 0, 1, 2);
    EXPECT_G(m, MLD, ADRENO, "field-banned-op", 1, 0, 1, 2);
    lg_model_free(m);
    m = MODEL(gather_const_indices_nearmiss);
    for (int g = 0; g < LG_GPU_COUNT; g++) EXPECT_G(m, MLD, (lg_gpu)g, "gather-const-indices", 1, 0, 1, -1);
    lg_model_free(m);
    m = MODEL(webgpu_pad_layout_trigger);
    EXPECT_G(m, MLD, ANY, "webgpu-pad-layout", 0, 1, 1, 0);
    EXPECT_G(m, MLD, WEBGPU, "webgpu-pad-layout", 0, 1, 1, 0);
    EXPECT_G(m, MLD, MALI, "webgpu-pad-layout", 0, 0, 1, 1);
    EXPECT_G(m, MLD, ADRENO, "webgpu-pad-layout", 0, 0, 1, 1);
    lg_model_free(m);
    m = MODEL(webgpu_pad_layout_nearmiss);
    for (int g = 0; g < LG_GPU_COUNT; g++) EXPECT_G(m, MLD, (lg_gpu)g, "webgpu-pad-layout", 0, 0, 1, 0);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ all families */

/* Delegate-source rules hold for every family: a rank-5 tensor (RESHAPE to [1,8,8,2,2], op 1)
   and a dynamic input (the model: op -1). */
LG_TEST(check_gpu_source_rules_everywhere) {
    lg_model *m = MODEL(tensor_rank_trigger);
    for (int t = 0; t < LG_TARGET_COUNT; t++)
        for (int g = 0; g < LG_GPU_COUNT; g++) {
            if (t == CLS && g == WEBGPU) continue;
            EXPECT_G(m, (lg_target)t, (lg_gpu)g, "tensor-rank", 1, 1, 0, 0);
        }
    lg_model_free(m);
    m = MODEL(dynamic_input_trigger);
    for (int g = 0; g < LG_GPU_COUNT; g++) EXPECT_G(m, MLD, (lg_gpu)g, "dynamic-input", -1, 1, 1, 0);
    lg_model_free(m);
}

/* "any" reports each rule as often as the family that reports it most: the union. (Not on an
   INT64 tensor: there Adreno's finding is the source's tensor-dtype, which any and the other
   families replace by int64-tensor; check_gpu_int64 tests that.) */
LG_TEST(check_gpu_any_is_the_union) {
    lgm_build_fn fns[] = {lgm_mali_transpose_conv_trigger2, lgm_fc_2d_broadcast_trigger, lgm_gather_const_indices_trigger,
                          lgm_const_only_inputs_trigger, lgm_webgpu_pad_layout_trigger, lgm_clean_cnn};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        lg_model *m = build(__FILE__, __LINE__, fns[i]);
        lg_check_report *a = check_g(__FILE__, __LINE__, m, MLD, ANY, 0);
        uint32_t n_rules;
        const lg_rule_info *rules = lg_rules(&n_rules);
        for (uint32_t k = 0; a && k < n_rules; k++) {
            int in_any = count(a, rules[k].id), in_some = 0;
            for (int g = MALI; g <= WEBGPU; g++) {
                lg_check_report *r = check_g(__FILE__, __LINE__, m, MLD, (lg_gpu)g, 0);
                int c = count(r, rules[k].id);
                if (c > in_some) in_some = c;
                lg_check_report_free(r);
            }
            if (in_any != in_some)
                tf_fail(__FILE__, __LINE__, "model %zu: %s %d time(s) with any, at most %d with one family", i,
                        rules[k].id, in_any, in_some);
        }
        lg_check_report_free(a);
        lg_model_free(m);
    }
}
