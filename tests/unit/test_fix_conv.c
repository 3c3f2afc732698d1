/* The `fix` passes of src/passes/fix_conv.c: unfuse-activation and transpose-conv-zerostuff.
   Each: a builder-made model that triggers the rule (lg_check shows it), the pass run with
   parity proved by the runner (fp32, pattern + random inputs), the rule gone on both targets,
   the ops expected; a near-miss left unchanged; hand-derived values where the model is tiny. */
#include <math.h>
#include <stdlib.h>

#include "fixt.h"
#include "lg/ops.h"
#include "tf.h"
#include "util/half.h"

/* ------------------------------------------------------------------ models */

typedef struct tcspec {
    int32_t n, h, w, ci, co, kh, kw, sh, sw, oh, ow;
    int padding;           /* LG_PADDING_SAME / VALID */
    int act;               /* fused activation */
    bool bias, fp16, runtime_w;
    int32_t version;       /* stored opcode version */
    const float *wv;       /* weights (NULL: a fixed pseudo-random pattern) */
} tcspec;

static float wpat(int64_t k) { return (float)((k * 37 + 11) % 23) / 11.5f - 1.0f; }

/* x [n,h,w,ci] -> TRANSPOSE_CONV(w [co,kh,kw,ci], bias [co]) -> y [n,oh,ow,co]. */
static lg_model *tconv_model(const tcspec *s) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int64_t nw = (int64_t)s->co * s->kh * s->kw * s->ci;
    float *wv = malloc((size_t)nw * sizeof(float));
    uint16_t *wh = malloc((size_t)nw * sizeof(uint16_t));
    for (int64_t k = 0; k < nw; k++) {
        wv[k] = s->wv ? s->wv[k] : wpat(k);
        wh[k] = lg_float_to_half(wv[k]);
    }
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(s->n, s->h, s->w, s->ci));
    int os = lg_b_const_i32(&b, "output_shape", LG_DIMS(4), (const int32_t[]){s->n, s->oh, s->ow, s->co});
    int w;
    lg_dims wd = LG_DIMS(s->co, s->kh, s->kw, s->ci);
    if (s->runtime_w) {
        w = lg_b_tensor(&b, "w", LG_FLOAT32, wd);
    } else if (s->fp16) {
        int w16 = lg_b_const(&b, "w16", LG_FLOAT16, wd, wh, (uint64_t)nw * 2);
        w = lg_b_tensor(&b, "w", LG_FLOAT32, wd);
        lg_b_op(&b, LG_OP_DEQUANTIZE, LG_IDS(w16), LG_IDS(w));
    } else {
        w = lg_b_const_f32(&b, "w", wd, wv);
    }
    float bv[64];
    for (int k = 0; k < s->co && k < 64; k++) bv[k] = 0.25f * (float)k - 0.5f;
    int bias = s->bias ? lg_b_const_f32(&b, "bias", LG_DIMS(s->co), bv) : -1;
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(s->n, s->oh, s->ow, s->co));
    lg_transpose_conv_options o;
    lg_opts_init(LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o, sizeof o);
    o.padding = (int8_t)s->padding;
    o.stride_h = s->sh;
    o.stride_w = s->sw;
    o.fused_activation_function = (int8_t)s->act;
    if (s->bias)
        lg_b_op_v(&b, LG_OP_TRANSPOSE_CONV, s->version, LG_IDS(os, w, x, bias), LG_IDS(y),
                  LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    else
        lg_b_op_v(&b, LG_OP_TRANSPOSE_CONV, s->version, LG_IDS(os, w, x), LG_IDS(y),
                  LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    if (s->runtime_w) lg_b_io(&b, LG_IDS(x, w), LG_IDS(y));
    else lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    free(wv);
    free(wh);
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

static int32_t version_of(const lg_model *m, int32_t code) {
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++)
        if (lg_op_builtin(m, &m->subgraphs[0].ops[i]) == code)
            return m->opcodes[m->subgraphs[0].ops[i].opcode_index].version;
    return -1;
}

/* ------------------------------------------------------------------ unfuse-activation */

/* TRANSPOSE_CONV with a fused RELU is version 4 (op_version.cc), over both delegates' 3. */
LG_TEST(fix_unfuse_tconv_relu) {
    tcspec s = {1, 3, 3, 2, 2, 3, 3, 2, 2, 6, 6, LG_PADDING_SAME, 1, true, false, false, 4, NULL};
    lg_model *m = tconv_model(&s);
    for (int t = 0; t < 2; t++) CHECK(fixt_has(m, (lg_target)t, LG_GPU_ADRENO, "op-version"));
    lg_pass_report *rep = NULL;
    lg_model *o = FIXT_RUN(m, &rep, "unfuse-activation");
    if (!o) { lg_model_free(m); return; }
    CHECK_EQ_INT(fixt_applied(rep, "unfuse-activation"), 1);
    CHECK(fixt_max_rel(rep, "unfuse-activation") == 0); /* the same max(0, v) on the same v */
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(lg_op_builtin(o, &o->subgraphs[0].ops[0]), LG_OP_TRANSPOSE_CONV);
    CHECK_EQ_INT(lg_op_builtin(o, &o->subgraphs[0].ops[1]), LG_OP_RELU);
    CHECK_EQ_INT(version_of(o, LG_OP_TRANSPOSE_CONV), 3); /* a bias input: version 3 */
    const lg_transpose_conv_options *to = o->subgraphs[0].ops[0].opts;
    CHECK(to && to->fused_activation_function == 0);
    /* the RELU writes the graph output y, reading the transposed conv's new output */
    CHECK_EQ_INT(o->subgraphs[0].ops[1].outputs[0], o->subgraphs[0].outputs[0]);
    CHECK_EQ_INT(o->subgraphs[0].ops[1].inputs[0], o->subgraphs[0].ops[0].outputs[0]);
    for (int t = 0; t < 2; t++) {
        CHECK(!fixt_has(o, (lg_target)t, LG_GPU_ADRENO, "op-version"));
        CHECK(fixt_ready(o, (lg_target)t, LG_GPU_ADRENO));
    }
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* RELU6 without a bias: TRANSPOSE_CONV v1 + RELU6; RELU_N1_TO_1 -> the RELU_N1_TO_1 op. */
LG_TEST(fix_unfuse_tconv_relu6_n1) {
    const int acts[2] = {3, 2}, ops[2] = {LG_OP_RELU6, LG_OP_RELU_N1_TO_1};
    for (int k = 0; k < 2; k++) {
        tcspec s = {1, 4, 4, 3, 2, 2, 2, 2, 2, 8, 8, LG_PADDING_VALID, acts[k], false, false, false, 4, NULL};
        lg_model *m = tconv_model(&s);
        CHECK(fixt_has(m, LG_TARGET_CLASSIC, LG_GPU_ADRENO, "op-version"));
        lg_pass_report *rep = NULL;
        lg_model *o = FIXT_RUN(m, &rep, "unfuse-activation");
        if (!o) { lg_model_free(m); return; }
        CHECK(fixt_max_rel(rep, "unfuse-activation") == 0);
        CHECK_EQ_INT(fixt_count(o, ops[k]), 1);
        CHECK_EQ_INT(version_of(o, LG_OP_TRANSPOSE_CONV), 1);
        CHECK(fixt_ready(o, LG_TARGET_CLASSIC, LG_GPU_ADRENO));
        CHECK(fixt_ready(o, LG_TARGET_MLDRIFT, LG_GPU_ADRENO));
        lg_pass_report_free(rep);
        lg_model_free(o);
        lg_model_free(m);
    }
}

/* A fused TANH becomes a TANH op. litegpu's interpreter does not run a TANH fused into a
   TRANSPOSE_CONV (TFLite's CPU kernel ignores it), so parity is not measured: the rewrite is
   checked structurally. */
LG_TEST(fix_unfuse_tconv_tanh) {
    tcspec s = {1, 2, 2, 1, 1, 2, 2, 2, 2, 4, 4, LG_PADDING_VALID, 4, false, false, false, 4, NULL};
    lg_model *m = tconv_model(&s);
    lg_pass_report *rep = NULL;
    lg_model *o = FIXT_RUN(m, &rep, "unfuse-activation");
    if (!o) { lg_model_free(m); return; }
    CHECK_EQ_INT(fixt_count(o, LG_OP_TANH), 1);
    CHECK(!fixt_has(o, LG_TARGET_MLDRIFT, LG_GPU_ADRENO, "op-version"));
    const lg_pass_result *r = fixt_result(rep, "unfuse-activation");
    CHECK(r && !r->parity_measured);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

static lg_model *add_act_model(int act) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int k = lg_b_const_f32(&b, "k", LG_DIMS(1, 4), (const float[]){1, -2, 3, -4});
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_add_options ao;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    ao.fused_activation_function = (int8_t)act;
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(x, k), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &ao);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* SIGN_BIT (fused-activation) has no standalone op: reported, left alone. An ADD with a
   fused RELU (accepted) and a TRANSPOSE_CONV without activation: not matched at all. */
LG_TEST(fix_unfuse_near_misses) {
    lg_model *m = add_act_model(5);
    CHECK(fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_ANY, "fused-activation"));
    lg_pass_report *rep = NULL;
    lg_model *o = FIXT_RUN(m, &rep, "unfuse-activation");
    if (o) {
        CHECK(fixt_same_ops(m, o));
        const lg_pass_result *r = fixt_result(rep, "unfuse-activation");
        CHECK(r && r->delta.applied == 0 && r->delta.skipped >= 1 && strstr(r->delta.note, "SIGN_BIT"));
        lg_pass_report_free(rep);
        lg_model_free(o);
    }
    lg_model_free(m);

    m = add_act_model(1);
    o = FIXT_RUN(m, &rep, "unfuse-activation");
    if (o) {
        CHECK(fixt_same_ops(m, o));
        CHECK_EQ_INT(fixt_applied(rep, "unfuse-activation"), 0);
        lg_pass_report_free(rep);
        lg_model_free(o);
    }
    lg_model_free(m);

    tcspec s = {1, 3, 3, 2, 2, 3, 3, 2, 2, 6, 6, LG_PADDING_SAME, 0, true, false, false, 3, NULL};
    m = tconv_model(&s);
    CHECK(!fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_ADRENO, "op-version"));
    o = FIXT_RUN(m, &rep, "unfuse-activation");
    if (o) {
        CHECK(fixt_same_ops(m, o));
        lg_pass_report_free(rep);
        lg_model_free(o);
    }
    lg_model_free(m);
}

/* ------------------------------------------------------------------ transpose-conv-zerostuff */

/* Runs zerostuff on m: the mali-transpose-conv finding before (both targets, Mali), none
   after and ready, parity within the bound (exact: 0, the same sums in the same order;
   overlapping taps: 1e-4, and the exact pass must not take it); returns the rewritten model. */
static lg_model *zerostuff(const lg_model *m, bool exact, double *max_rel) {
    const char *name = exact ? "transpose-conv-zerostuff" : "transpose-conv-zerostuff-overlap";
    const char *other = exact ? "transpose-conv-zerostuff-overlap" : "transpose-conv-zerostuff";
    for (int t = 0; t < 2; t++) CHECK(fixt_has(m, (lg_target)t, LG_GPU_MALI, "mali-transpose-conv"));
    lg_pass_report *rep = NULL;
    lg_model *o = fixt_run(m, (const char *const[]){other, NULL}, &rep, __FILE__, __LINE__);
    if (o) {
        CHECK(fixt_same_ops(m, o));
        lg_pass_report_free(rep);
        lg_model_free(o);
    }
    o = fixt_run(m, (const char *const[]){name, NULL}, &rep, __FILE__, __LINE__);
    if (!o) return NULL;
    CHECK_EQ_INT(fixt_applied(rep, name), 1);
    *max_rel = fixt_max_rel(rep, name);
    CHECK(*max_rel >= 0 && *max_rel <= (exact ? 0 : 1e-4));
    CHECK_EQ_INT(fixt_count(o, LG_OP_TRANSPOSE_CONV), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_CONV_2D), 1);
    for (int t = 0; t < 2; t++) {
        CHECK(!fixt_has(o, (lg_target)t, LG_GPU_MALI, "mali-transpose-conv"));
        CHECK(!fixt_has(o, (lg_target)t, LG_GPU_MALI, "op-version"));
        CHECK(fixt_ready(o, (lg_target)t, LG_GPU_MALI));
    }
    lg_pass_report_free(rep);
    return o;
}

/* x [[1,2],[3,4]], w [[1,10],[100,1000]], stride 2 VALID -> [1,4,4,1]: each input pixel
   stamps x * w on its own 2x2 block: y[2i+a][2j+b] = x[i][j] w[a][b]. ph = pw = 0 (VALID:
   in' = (4-2+2)/2 = 2, total (2-1)*2 + 2 - 4 = 0), so the conv pads 1 on top/left, 0 below:
   RESIZE, MUL, PAD, CONV_2D and no crop. */
LG_TEST(fix_zerostuff_hand_values) {
    const float w[4] = {1, 10, 100, 1000};
    tcspec s = {1, 2, 2, 1, 1, 2, 2, 2, 2, 4, 4, LG_PADDING_VALID, 0, false, false, false, 1, w};
    lg_model *m = tconv_model(&s);
    double rel = -1;
    lg_model *o = zerostuff(m, true, &rel);
    if (!o) { lg_model_free(m); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 4);
    CHECK_EQ_INT(fixt_count(o, LG_OP_RESIZE_NEAREST_NEIGHBOR), 1);
    CHECK_EQ_INT(fixt_count(o, LG_OP_MUL), 1);
    CHECK_EQ_INT(fixt_count(o, LG_OP_PAD), 1);
    CHECK_EQ_INT(fixt_count(o, LG_OP_SLICE), 0);
    const float x[4] = {1, 2, 3, 4};
    const float want[16] = {1, 10, 2, 20, 100, 1000, 200, 2000, 3, 30, 4, 40, 300, 3000, 400, 4000};
    float got[16];
    const float *in[1] = {x};
    if (FIXT_EVAL(o, in, 0, got, 16) == 16)
        for (int k = 0; k < 16; k++) CHECK_EQ_INT((long long)got[k], (long long)want[k]);
    lg_model_free(o);
    lg_model_free(m);
}

/* 2-D cases: SAME and VALID, strides 1 to 3, odd sizes, batch 2, bias, a fused RELU/RELU6
   (v4: both rules go), fp16 weights behind a DEQUANTIZE (kept as halves). Kernels no larger
   than the stride: the exact pass, bit for bit; larger: the overlap pass (the largest,
   64 -> 32 channels 4x4, measures some 9e-7 of the output magnitude). */
LG_TEST(fix_zerostuff_2d_forms) {
    const tcspec cases[] = {
        /* n h w ci co kh kw sh sw oh ow pad act bias fp16 rt ver */
        {1, 5, 7, 3, 4, 2, 2, 2, 2, 10, 14, LG_PADDING_SAME, 0, true, false, false, 3, NULL},
        {1, 5, 7, 16, 4, 3, 3, 3, 3, 15, 21, LG_PADDING_VALID, 1, true, false, false, 4, NULL},
        {2, 4, 3, 2, 3, 2, 1, 2, 2, 8, 6, LG_PADDING_SAME, 3, false, true, false, 4, NULL},
        {1, 3, 3, 8, 8, 1, 1, 1, 1, 3, 3, LG_PADDING_VALID, 0, true, false, false, 3, NULL},
        {1, 5, 7, 3, 4, 3, 3, 2, 2, 10, 14, LG_PADDING_SAME, 0, true, false, false, 3, NULL},
        {1, 5, 7, 3, 4, 3, 3, 2, 2, 11, 15, LG_PADDING_VALID, 0, true, false, false, 3, NULL},
        {2, 4, 3, 2, 3, 4, 4, 3, 3, 12, 9, LG_PADDING_SAME, 0, false, false, false, 1, NULL},
        {1, 4, 4, 8, 8, 4, 4, 2, 2, 8, 8, LG_PADDING_SAME, 1, true, false, false, 4, NULL},
        {1, 6, 6, 4, 2, 3, 3, 2, 2, 12, 12, LG_PADDING_SAME, 3, false, true, false, 4, NULL},
        {1, 3, 5, 2, 2, 3, 2, 1, 1, 3, 5, LG_PADDING_SAME, 0, true, false, false, 3, NULL},
        {1, 8, 8, 64, 32, 4, 4, 2, 2, 16, 16, LG_PADDING_SAME, 0, true, false, false, 3, NULL},
        /* output_padding 1: VALID's natural 7 x 7 grown to 8 x 8 (the last row: the bias) */
        {1, 3, 3, 2, 2, 3, 3, 2, 2, 8, 8, LG_PADDING_VALID, 0, true, false, false, 3, NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        lg_model *m = tconv_model(&cases[k]);
        double rel = -1;
        bool exact = cases[k].kh <= cases[k].sh && cases[k].kw <= cases[k].sw;
        lg_model *o = zerostuff(m, exact, &rel);
        if (!o) { lg_model_free(m); continue; }
        bool stuffed = cases[k].sh > 1 || cases[k].sw > 1;
        CHECK_EQ_INT(fixt_count(o, LG_OP_RESIZE_NEAREST_NEIGHBOR), stuffed);
        CHECK_EQ_INT(fixt_count(o, LG_OP_MUL), stuffed);
        /* the activation rides on the CONV_2D; fp16 weights stay FLOAT16 + DEQUANTIZE */
        for (uint32_t i = 0; i < o->subgraphs[0].n_ops; i++) {
            const lg_op *op = &o->subgraphs[0].ops[i];
            if (lg_op_builtin(o, op) == LG_OP_CONV_2D)
                CHECK_EQ_INT(((const lg_conv2d_options *)op->opts)->fused_activation_function, cases[k].act);
        }
        CHECK_EQ_INT(fixt_count(o, LG_OP_DEQUANTIZE), cases[k].fp16);
        lg_model_free(o);
        lg_model_free(m);
    }
}

/* 1-D transposed convs (H = 1): DAC's stride 5, kernel 2 x stride, VALID (out (6-1)*5 + 10 =
   35) and SAME (out 30: in' = 6, pw = ((6-1)*5 + 10 - 30) / 2 = 2, so the conv pads 10-1-2 = 7
   on the left, 30 + 9 - 7 - 30 = 2 on the right: exactly 30 out); kernel = stride (one tap
   each: exact); kernel 3 < stride 5, VALID: out (7-1)*5 + 3 = 33, while the stuffed row is 35
   long: the conv gives 35 and a SLICE crops it to 33. */
LG_TEST(fix_zerostuff_1d_stride5) {
    const tcspec cases[] = {
        {1, 1, 6, 2, 2, 1, 10, 1, 5, 1, 35, LG_PADDING_VALID, 0, true, false, false, 3, NULL},
        {1, 1, 6, 2, 2, 1, 10, 1, 5, 1, 30, LG_PADDING_SAME, 0, true, false, false, 3, NULL},
        {1, 1, 9, 4, 3, 1, 4, 1, 2, 1, 18, LG_PADDING_SAME, 0, false, false, false, 1, NULL},
        {1, 1, 7, 6, 4, 1, 5, 1, 5, 1, 35, LG_PADDING_VALID, 0, true, false, false, 3, NULL},
        {1, 1, 7, 6, 4, 1, 3, 1, 5, 1, 33, LG_PADDING_VALID, 0, true, false, false, 3, NULL},
    };
    const uint32_t slices[] = {0, 0, 0, 0, 1};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        lg_model *m = tconv_model(&cases[k]);
        double rel = -1;
        lg_model *o = zerostuff(m, cases[k].kw <= cases[k].sw, &rel);
        if (!o) { lg_model_free(m); continue; }
        CHECK_EQ_INT(fixt_count(o, LG_OP_RESIZE_NEAREST_NEIGHBOR), 1);
        CHECK_EQ_INT(fixt_count(o, LG_OP_SLICE), slices[k]);
        lg_model_free(o);
        lg_model_free(m);
    }
}

/* A transposed conv inside a graph (its output read by the next op, the graph input read
   twice): the chain writes the same tensor, the reader is untouched. */
LG_TEST(fix_zerostuff_inside_graph) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    float wv[2 * 3 * 3 * 2];
    for (int k = 0; k < 36; k++) wv[k] = wpat(k);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));
    int os = lg_b_const_i32(&b, "output_shape", LG_DIMS(4), (const int32_t[]){1, 8, 8, 2});
    int w = lg_b_const_f32(&b, "w", LG_DIMS(2, 3, 3, 2), wv);
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 8, 8, 2));
    lg_transpose_conv_options o;
    lg_opts_init(LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_h = o.stride_w = 2;
    lg_b_op_opts(&b, LG_OP_TRANSPOSE_CONV, LG_IDS(os, w, x), LG_IDS(t), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    int sz = lg_b_const_i32(&b, "size", LG_DIMS(2), (const int32_t[]){8, 8});
    int up = lg_b_tensor(&b, "up", LG_FLOAT32, LG_DIMS(1, 8, 8, 2));
    lg_resize_nearest_neighbor_options ro = {false, false};
    lg_b_op_opts(&b, LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_IDS(x, sz), LG_IDS(up), LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS, &ro);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 2));
    lg_add_options ao;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(t, up), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &ao);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    double rel = -1;
    lg_model *o2 = zerostuff(m, false, &rel);
    if (o2) {
        CHECK_EQ_INT(fixt_count(o2, LG_OP_ADD), 1);
        CHECK_EQ_INT(fixt_count(o2, LG_OP_RESIZE_NEAREST_NEIGHBOR), 2);
        lg_model_free(o2);
    }
    lg_model_free(m);
}

/* Runtime weights cannot be flipped here: left alone. A CONV_2D is not a transposed conv. */
LG_TEST(fix_zerostuff_near_misses) {
    tcspec s = {1, 3, 3, 2, 2, 3, 3, 2, 2, 6, 6, LG_PADDING_SAME, 0, false, false, true, 1, NULL};
    lg_model *m = tconv_model(&s);
    lg_pass_report *rep = NULL;
    lg_model *o = FIXT_RUN(m, &rep, "transpose-conv-zerostuff", "transpose-conv-zerostuff-overlap");
    if (o) {
        CHECK(fixt_same_ops(m, o));
        CHECK_EQ_INT(fixt_applied(rep, "transpose-conv-zerostuff"), 0);
        CHECK_EQ_INT(fixt_applied(rep, "transpose-conv-zerostuff-overlap"), 0);
        lg_pass_report_free(rep);
        lg_model_free(o);
    }
    lg_model_free(m);

    lg_builder b;
    m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 1));
    int w = lg_b_const_f32(&b, "w", LG_DIMS(1, 2, 2, 1), (const float[]){1, 2, 3, 4});
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 3, 3, 1));
    lg_conv2d_options co;
    lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &co, sizeof co);
    co.padding = LG_PADDING_VALID;
    co.stride_h = co.stride_w = 1;
    co.dilation_h_factor = co.dilation_w_factor = 1;
    lg_b_op_opts(&b, LG_OP_CONV_2D, LG_IDS(x, w, -1), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &co);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    o = FIXT_RUN(m, &rep, "transpose-conv-zerostuff", "transpose-conv-zerostuff-overlap");
    if (o) {
        CHECK(fixt_same_ops(m, o));
        lg_pass_report_free(rep);
        lg_model_free(o);
    }
    lg_model_free(m);
}

/* ------------------------------------------------------------------ the corpus */

/* The five corpus models trigger none of these rules (the sparse face model's blockers are
   DENSIFY's; selfie segmentation's transposed conv is MediaPipe's custom op): every fix pass
   of fix_conv.c, fix_pool.c and fix_resize.c leaves them as they are. */
LG_TEST(fix_passes_corpus_unchanged) {
    static const char *models[5] = {"build/corpus/selfie_segmentation.tflite",
                                    "build/corpus/face_detection_short_range.tflite",
                                    "build/corpus/face_detection_full_range_sparse.tflite",
                                    "build/corpus/hand_landmark_lite.tflite",
                                    "build/corpus/pose_landmark_lite.tflite"};
    static const char *const passes[] = {"unfuse-activation", "transpose-conv-zerostuff",
                                         "transpose-conv-zerostuff-overlap",
                                         "padv2-maxpool-zero", "split-multi-axis-reduce",
                                         "pow-to-mul", "pow-exp-log", "strided-subsample-pool",
                                         "resize-align-corners", "mirror-pad-edges", NULL};
    for (int k = 0; k < 5; k++) {
        lg_model *m = NULL;
        lg_error err;
        if (lg_tflite_read_file(models[k], NULL, &m, &err) != LG_OK) {
            fprintf(stderr, "  note: %s not readable (%s); skipped\n", models[k], err.msg);
            continue;
        }
        lg_pass_report *rep = NULL;
        lg_model *o = fixt_run(m, passes, &rep, __FILE__, __LINE__);
        if (o) {
            CHECK(fixt_same_ops(m, o));
            for (int p = 0; passes[p]; p++) CHECK_EQ_INT(fixt_applied(rep, passes[p]), 0);
            lg_pass_report_free(rep);
            lg_model_free(o);
        }
        lg_model_free(m);
    }
}
