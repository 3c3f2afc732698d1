/* The `fix` passes of src/passes/fix_pool.c: padv2-maxpool-zero, split-multi-axis-reduce,
   strided-subsample-pool, mirror-pad-edges. Each: a builder-made model that triggers the rule
   (lg_check shows it), the pass run with parity proved by the runner, the rule gone on both
   targets where it applies, the ops expected; near-misses left unchanged; hand-derived values
   on small models. */
#include <math.h>
#include <stdlib.h>

#include "fixt.h"
#include "lg/ops.h"
#include "tf.h"

static void unchanged(const lg_model *m, const char *pass, bool skipped) {
    lg_pass_report *rep = NULL;
    lg_model *o = fixt_run(m, (const char *const[]){pass, NULL}, &rep, __FILE__, __LINE__);
    if (!o) return;
    CHECK(fixt_same_ops(m, o));
    const lg_pass_result *r = fixt_result(rep, pass);
    CHECK(r && r->delta.applied == 0);
    if (skipped) CHECK(r && r->delta.skipped >= 1 && r->delta.note[0]);
    lg_pass_report_free(rep);
    lg_model_free(o);
}

/* ------------------------------------------------------------------ padv2-maxpool-zero */

typedef struct ppspec {
    int32_t h, w, ch;
    int32_t pt, pb, pl, pr;
    int32_t k, s;
    int padding;             /* the pool's */
    float value;
    int producer;            /* 0: the graph input itself; 1: CONV_2D with fused RELU; 2: RELU op */
} ppspec;

static lg_model *padpool_model(const ppspec *p) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, p->h, p->w, p->ch)), a = x;
    if (p->producer == 1) {
        float wv[64];
        for (int k = 0; k < p->ch * p->ch && k < 64; k++) wv[k] = (float)((k * 5 + 3) % 7) / 3.5f - 1.0f;
        int w = lg_b_const_f32(&b, "w", LG_DIMS(p->ch, 1, 1, p->ch), wv);
        a = lg_b_tensor(&b, "act", LG_FLOAT32, LG_DIMS(1, p->h, p->w, p->ch));
        lg_conv2d_options co;
        lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &co, sizeof co);
        co.padding = LG_PADDING_VALID;
        co.stride_h = co.stride_w = co.dilation_h_factor = co.dilation_w_factor = 1;
        co.fused_activation_function = 1;
        lg_b_op_opts(&b, LG_OP_CONV_2D, LG_IDS(x, w, -1), LG_IDS(a), LG_OPTS_CONV2D_OPTIONS, &co);
    } else if (p->producer == 2) {
        a = lg_b_tensor(&b, "act", LG_FLOAT32, LG_DIMS(1, p->h, p->w, p->ch));
        lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(a));
    }
    int hp = p->h + p->pt + p->pb, wp = p->w + p->pl + p->pr;
    int pads = lg_b_const_i32(&b, "pads", LG_DIMS(4, 2), (const int32_t[]){0, 0, p->pt, p->pb, p->pl, p->pr, 0, 0});
    int v = lg_b_const_f32(&b, "value", LG_DIMS(1), &p->value);
    int padded = lg_b_tensor(&b, "padded", LG_FLOAT32, LG_DIMS(1, hp, wp, p->ch));
    lg_b_op(&b, LG_OP_PADV2, LG_IDS(a, pads, v), LG_IDS(padded));
    int oh = p->padding == LG_PADDING_SAME ? (hp + p->s - 1) / p->s : (hp - p->k) / p->s + 1;
    int ow = p->padding == LG_PADDING_SAME ? (wp + p->s - 1) / p->s : (wp - p->k) / p->s + 1;
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, oh, ow, p->ch));
    lg_pool2d_options po = {(int8_t)p->padding, p->s, p->s, p->k, p->k, 0};
    lg_b_op_opts(&b, LG_OP_MAX_POOL_2D, LG_IDS(padded), LG_IDS(y), LG_OPTS_POOL2D_OPTIONS, &po);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

static lg_model *padpool_fixed(const lg_model *m) {
    for (int t = 0; t < 2; t++) CHECK(fixt_has(m, (lg_target)t, LG_GPU_MALI, "padv2-nonzero"));
    lg_pass_report *rep = NULL;
    lg_model *o = FIXT_RUN(m, &rep, "padv2-maxpool-zero");
    if (!o) return NULL;
    CHECK_EQ_INT(fixt_applied(rep, "padv2-maxpool-zero"), 1);
    CHECK(fixt_max_rel(rep, "padv2-maxpool-zero") == 0); /* the same maxima, bit for bit */
    CHECK_EQ_INT(fixt_count(o, LG_OP_PADV2), 0);
    for (int t = 0; t < 2; t++) {
        CHECK(!fixt_has(o, (lg_target)t, LG_GPU_MALI, "padv2-nonzero"));
        CHECK(fixt_ready(o, (lg_target)t, LG_GPU_MALI));
    }
    lg_pass_report_free(rep);
    return o;
}

/* The ResNet stem: CONV_2D + fused RELU, PADV2(-inf) by 1, MAX_POOL 3x3 stride 2 -> PAD(0). */
LG_TEST(fix_padv2_resnet_stem) {
    ppspec p = {8, 8, 4, 1, 1, 1, 1, 3, 2, LG_PADDING_VALID, -INFINITY, 1};
    lg_model *m = padpool_model(&p);
    lg_model *o = padpool_fixed(m);
    if (o) {
        CHECK_EQ_INT(fixt_count(o, LG_OP_PAD), 1);
        CHECK_EQ_INT(fixt_count(o, LG_OP_MAX_POOL_2D), 1);
        lg_model_free(o);
    }
    lg_model_free(m);
}

/* RELU of [-1, 2, 3, -4] ([1,2,2,1]), padded by 1 all round, 2x2 pools of stride 2: every
   window holds one real value and three pads, so y = relu(x) = [0, 2, 3, 0], with the -inf
   pad and with the zero pad. */
LG_TEST(fix_padv2_hand_values) {
    ppspec p = {2, 2, 1, 1, 1, 1, 1, 2, 2, LG_PADDING_VALID, -INFINITY, 2};
    lg_model *m = padpool_model(&p);
    lg_model *o = padpool_fixed(m);
    if (o) {
        const float x[4] = {-1, 2, 3, -4}, want[4] = {0, 2, 3, 0};
        float got[4];
        const float *in[1] = {x};
        if (FIXT_EVAL(o, in, 0, got, 4) == 4)
            for (int k = 0; k < 4; k++) CHECK(got[k] == want[k]);
        lg_model_free(o);
    }
    lg_model_free(m);
}

/* An input of any sign, -inf pads equal to SAME's (H = W = 7, k 3, s 2: SAME pads 1 and 1,
   out 4 = (9 - 3) / 2 + 1): the pool reads x with padding SAME, no pad op left. */
LG_TEST(fix_padv2_same_pool) {
    ppspec p = {7, 7, 2, 1, 1, 1, 1, 3, 2, LG_PADDING_VALID, -INFINITY, 0};
    lg_model *m = padpool_model(&p);
    lg_model *o = padpool_fixed(m);
    if (o) {
        CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
        const lg_op *op = &o->subgraphs[0].ops[0];
        CHECK_EQ_INT(lg_op_builtin(o, op), LG_OP_MAX_POOL_2D);
        CHECK_EQ_INT(((const lg_pool2d_options *)op->opts)->padding, LG_PADDING_SAME);
        CHECK_EQ_INT(op->inputs[0], o->subgraphs[0].inputs[0]);
        lg_model_free(o);
    }
    lg_model_free(m);
}

/* Left alone, with a reason: an input of any sign whose pads are not SAME's (H = 8: SAME
   puts its one pad row below, the PADV2 one on top); a non-negative input whose windows may
   hold padding only (pad 3, 2x2 pools); a finite negative pad of an input of any sign. Not
   matched at all: PADV2 by 0 (no finding), PADV2(-inf) feeding an AVERAGE_POOL. */
LG_TEST(fix_padv2_near_misses) {
    ppspec p1 = {8, 8, 2, 1, 1, 1, 1, 3, 2, LG_PADDING_VALID, -INFINITY, 0};
    lg_model *m = padpool_model(&p1);
    CHECK(fixt_has(m, LG_TARGET_CLASSIC, LG_GPU_MALI, "padv2-nonzero"));
    unchanged(m, "padv2-maxpool-zero", true);
    lg_model_free(m);

    ppspec p2 = {4, 4, 1, 3, 3, 3, 3, 2, 2, LG_PADDING_VALID, -INFINITY, 2};
    m = padpool_model(&p2);
    unchanged(m, "padv2-maxpool-zero", true);
    lg_model_free(m);

    ppspec p3 = {7, 7, 2, 1, 1, 1, 1, 3, 2, LG_PADDING_VALID, -100.0f, 0};
    m = padpool_model(&p3);
    unchanged(m, "padv2-maxpool-zero", true);
    lg_model_free(m);

    ppspec p4 = {7, 7, 2, 1, 1, 1, 1, 3, 2, LG_PADDING_VALID, 0.0f, 2};
    m = padpool_model(&p4);
    CHECK(!fixt_has(m, LG_TARGET_CLASSIC, LG_GPU_MALI, "padv2-nonzero"));
    unchanged(m, "padv2-maxpool-zero", false);
    lg_model_free(m);

    lg_builder b;
    m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 1)), a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, 4, 4, 1));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(a));
    int pads = lg_b_const_i32(&b, "pads", LG_DIMS(4, 2), (const int32_t[]){0, 0, 1, 1, 1, 1, 0, 0});
    float ninf = -INFINITY;
    int v = lg_b_const_f32(&b, "value", LG_DIMS(1), &ninf);
    int padded = lg_b_tensor(&b, "padded", LG_FLOAT32, LG_DIMS(1, 6, 6, 1));
    lg_b_op(&b, LG_OP_PADV2, LG_IDS(a, pads, v), LG_IDS(padded));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 3, 3, 1));
    lg_pool2d_options po = {LG_PADDING_VALID, 2, 2, 2, 2, 0};
    lg_b_op_opts(&b, LG_OP_AVERAGE_POOL_2D, LG_IDS(padded), LG_IDS(y), LG_OPTS_POOL2D_OPTIONS, &po);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    unchanged(m, "padv2-maxpool-zero", false);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ split-multi-axis-reduce */

static lg_model *reduce_model(int32_t code, lg_dims in, const int32_t *axes, uint32_t n_axes, bool keep,
                              lg_dims out) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, in);
    int ax = lg_b_const_i32(&b, "axes", (lg_dims){(const int32_t[]){(int32_t)n_axes}, 1}, axes);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, out);
    lg_reducer_options ro = {keep};
    lg_b_op_opts(&b, code, LG_IDS(x, ax), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* The global pool of the field notes: MEAN over H, W of [1,256,256,2] (65536 per channel) ->
   MEAN over W then over H, keep_dims kept. On ones the mean is 1 exactly; on the pattern input
   both forms are compared with the mean in double: the split one is the closer. */
LG_TEST(fix_split_reduce_global_mean) {
    lg_model *m = reduce_model(LG_OP_MEAN, LG_DIMS(1, 256, 256, 2), (const int32_t[]){1, 2}, 2, true,
                               LG_DIMS(1, 1, 1, 2));
    for (int t = 0; t < 2; t++) CHECK(fixt_has(m, (lg_target)t, LG_GPU_MALI, "large-multi-axis-reduce"));
    lg_pass_report *rep = NULL;
    lg_model *o = FIXT_RUN(m, &rep, "split-multi-axis-reduce");
    if (!o) { lg_model_free(m); return; }
    double rel = fixt_max_rel(rep, "split-multi-axis-reduce");
    CHECK(rel >= 0 && rel <= 1e-4);
    CHECK_EQ_INT(fixt_count(o, LG_OP_MEAN), 2);
    for (int t = 0; t < 2; t++) {
        CHECK(!fixt_has(o, (lg_target)t, LG_GPU_MALI, "large-multi-axis-reduce"));
        CHECK(fixt_ready(o, (lg_target)t, LG_GPU_MALI));
    }
    /* the first reduces axis 2 (W), the second axis 1 (H), both keep_dims */
    const lg_subgraph *sg = &o->subgraphs[0];
    for (uint32_t i = 0; i < 2; i++) {
        const lg_op *op = &sg->ops[i];
        const int32_t *ax = (const int32_t *)o->buffers[sg->tensors[op->inputs[1]].buffer].data;
        CHECK_EQ_INT(ax[0], i == 0 ? 2 : 1);
        CHECK(((const lg_reducer_options *)op->opts)->keep_dims);
    }
    const int64_t n = 256 * 256 * 2;
    float *x = malloc((size_t)n * sizeof(float));
    float got[2], orig[2];
    const float *in[1] = {x};
    for (int64_t k = 0; k < n; k++) x[k] = 1.0f;
    if (FIXT_EVAL(o, in, 0, got, 2) == 2) CHECK(got[0] == 1.0f && got[1] == 1.0f);
    double exact[2] = {0, 0};
    for (int64_t k = 0; k < n; k++) {
        x[k] = (float)((double)((k * 7919 + 13) % 1009) / 1009.0); /* the runner's pattern */
        exact[k % 2] += x[k];
    }
    if (FIXT_EVAL(o, in, 0, got, 2) == 2 && FIXT_EVAL(m, in, 0, orig, 2) == 2)
        for (int c = 0; c < 2; c++) {
            double e = exact[c] / 65536.0;
            CHECK(fabs(got[c] - e) <= fabs(orig[c] - e));
            CHECK(fabs(got[c] - e) <= 1e-6 * fabs(e));
        }
    free(x);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* SUM over H, W, C of [1,64,64,32] (131072), no keep_dims -> SUM over 3, then 2, then 1. */
LG_TEST(fix_split_reduce_sum_three_axes) {
    lg_model *m = reduce_model(LG_OP_SUM, LG_DIMS(1, 64, 64, 32), (const int32_t[]){-1, 1, 2}, 3, false,
                               LG_DIMS(1));
    CHECK(fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_MALI, "large-multi-axis-reduce"));
    lg_pass_report *rep = NULL;
    lg_model *o = FIXT_RUN(m, &rep, "split-multi-axis-reduce");
    if (!o) { lg_model_free(m); return; }
    double rel = fixt_max_rel(rep, "split-multi-axis-reduce");
    CHECK(rel >= 0 && rel <= 1e-4);
    CHECK_EQ_INT(fixt_count(o, LG_OP_SUM), 3);
    const lg_subgraph *sg = &o->subgraphs[0];
    const int want_axes[3] = {3, 2, 1}, want_rank[3] = {3, 2, 1};
    for (uint32_t i = 0; i < 3; i++) {
        const lg_op *op = &sg->ops[i];
        const int32_t *ax = (const int32_t *)o->buffers[sg->tensors[op->inputs[1]].buffer].data;
        CHECK_EQ_INT(ax[0], want_axes[i]);
        CHECK_EQ_INT(sg->tensors[op->outputs[0]].rank, want_rank[i]);
    }
    CHECK(fixt_ready(o, LG_TARGET_MLDRIFT, LG_GPU_MALI));
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* Below the extent (128 x 128 = 16384), and one large axis alone: no finding, unchanged. */
LG_TEST(fix_split_reduce_near_misses) {
    lg_model *m = reduce_model(LG_OP_MEAN, LG_DIMS(1, 128, 128, 2), (const int32_t[]){1, 2}, 2, true,
                               LG_DIMS(1, 1, 1, 2));
    CHECK(!fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_MALI, "large-multi-axis-reduce"));
    unchanged(m, "split-multi-axis-reduce", false);
    lg_model_free(m);
    m = reduce_model(LG_OP_SUM, LG_DIMS(1, 70000, 2), (const int32_t[]){1}, 1, false, LG_DIMS(1, 2));
    CHECK(!fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_MALI, "large-multi-axis-reduce"));
    unchanged(m, "split-multi-axis-reduce", false);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ strided-subsample-pool */

static lg_model *gather_model(lg_dims in, int axis, const int32_t *idx, int32_t n_idx, lg_dims out) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, in);
    int ix = lg_b_const_i32(&b, "idx", (lg_dims){(const int32_t[]){n_idx}, 1}, idx);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, out);
    lg_gather_options go = {axis, 0};
    lg_b_op_opts(&b, LG_OP_GATHER, LG_IDS(x, ix), LG_IDS(y), LG_OPTS_GATHER_OPTIONS, &go);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* Runs the pass on m (which the checker flags for rule on target t), returns the result. */
static lg_model *subsampled(const lg_model *m, lg_target t, const char *rule) {
    CHECK(fixt_has(m, t, LG_GPU_ANY, rule));
    lg_pass_report *rep = NULL;
    lg_model *o = FIXT_RUN(m, &rep, "strided-subsample-pool");
    if (!o) return NULL;
    CHECK_EQ_INT(fixt_applied(rep, "strided-subsample-pool"), 1);
    CHECK(fixt_max_rel(rep, "strided-subsample-pool") == 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_AVERAGE_POOL_2D), 1);
    CHECK(!fixt_has(o, t, LG_GPU_ANY, rule));
    CHECK(fixt_ready(o, LG_TARGET_MLDRIFT, LG_GPU_ANY));
    CHECK(fixt_ready(o, LG_TARGET_CLASSIC, LG_GPU_ANY));
    lg_pass_report_free(rep);
    return o;
}

/* The pool's options: filter 1x1, VALID, the strides. */
static void check_pool(const lg_model *o, int sh, int sw) {
    for (uint32_t i = 0; i < o->subgraphs[0].n_ops; i++) {
        const lg_op *op = &o->subgraphs[0].ops[i];
        if (lg_op_builtin(o, op) != LG_OP_AVERAGE_POOL_2D) continue;
        const lg_pool2d_options *po = op->opts;
        CHECK(po && po->filter_height == 1 && po->filter_width == 1 && po->padding == LG_PADDING_VALID);
        CHECK(po && po->stride_h == sh && po->stride_w == sw);
    }
}

/* x[:, ::2] of [1,8,8,3] as GATHER(axis 1, [0,2,4,6]); on x[h,w,c] = (8h + w)3 + c the result
   is y[i,w,c] = (16i + w)3 + c. With an offset ([1,3,5,7]): a SLICE from row 1 first. */
LG_TEST(fix_subsample_gather) {
    for (int off = 0; off < 2; off++) {
        const int32_t idx[4] = {off, off + 2, off + 4, off + 6};
        lg_model *m = gather_model(LG_DIMS(1, 8, 8, 3), 1, idx, 4, LG_DIMS(1, 4, 8, 3));
        lg_model *o = subsampled(m, LG_TARGET_MLDRIFT, "gather-const-indices");
        if (o) {
            check_pool(o, 2, 1);
            CHECK_EQ_INT(fixt_count(o, LG_OP_SLICE), off);
            CHECK_EQ_INT(fixt_count(o, LG_OP_GATHER), 0);
            float x[192], got[96];
            for (int k = 0; k < 192; k++) x[k] = (float)k;
            const float *in[1] = {x};
            if (FIXT_EVAL(o, in, 0, got, 96) == 96)
                for (int i = 0; i < 4; i++)
                    for (int w = 0; w < 8; w++)
                        for (int c = 0; c < 3; c++)
                            CHECK_EQ_INT((int)got[(i * 8 + w) * 3 + c], (16 * i + 8 * off + w) * 3 + c);
            lg_model_free(o);
        }
        lg_model_free(m);
    }
    /* along W with stride 3 of 7 columns: [0,3,6] */
    lg_model *m = gather_model(LG_DIMS(1, 2, 7, 2), 2, (const int32_t[]){0, 3, 6}, 3, LG_DIMS(1, 2, 3, 2));
    lg_model *o = subsampled(m, LG_TARGET_MLDRIFT, "gather-const-indices");
    if (o) {
        check_pool(o, 1, 3);
        CHECK_EQ_INT(fixt_count(o, LG_OP_SLICE), 0);
        lg_model_free(o);
    }
    lg_model_free(m);
}

/* x[:, ::2, ::2, :] of [1,6,6,2] as GATHER_ND with indices [1,3,3,3] = (0, 2i, 2j): never
   delegated (op-unsupported) -> one 1x1 pool of stride 2x2. */
LG_TEST(fix_subsample_gather_nd) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int32_t idx[27];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            idx[(i * 3 + j) * 3 + 0] = 0;
            idx[(i * 3 + j) * 3 + 1] = 2 * i;
            idx[(i * 3 + j) * 3 + 2] = 2 * j;
        }
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 6, 6, 2));
    int ix = lg_b_const_i32(&b, "idx", LG_DIMS(1, 3, 3, 3), idx);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 3, 3, 2));
    lg_b_op(&b, LG_OP_GATHER_ND, LG_IDS(x, ix), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    lg_model *o = subsampled(m, LG_TARGET_CLASSIC, "op-unsupported");
    if (o) {
        check_pool(o, 2, 2);
        CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
        lg_model_free(o);
    }
    lg_model_free(m);
}

/* x[..., 1::2, ::2, :] with an ellipsis (strided-slice-masks) of [2,5,6,3]: rows 1 and 3,
   columns 0, 2, 4 -> SLICE from row 1, then the pool. */
LG_TEST(fix_subsample_strided_slice_ellipsis) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 5, 6, 3));
    int bg = lg_b_const_i32(&b, "begin", LG_DIMS(4), (const int32_t[]){0, 1, 0, 0});
    int en = lg_b_const_i32(&b, "end", LG_DIMS(4), (const int32_t[]){0, 5, 6, 3});
    int st = lg_b_const_i32(&b, "strides", LG_DIMS(4), (const int32_t[]){1, 2, 2, 1});
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2, 2, 3, 3));
    lg_strided_slice_options so;
    lg_opts_init(LG_OPTS_STRIDED_SLICE_OPTIONS, &so, sizeof so);
    so.ellipsis_mask = 1;
    lg_b_op_opts(&b, LG_OP_STRIDED_SLICE, LG_IDS(x, bg, en, st), LG_IDS(y), LG_OPTS_STRIDED_SLICE_OPTIONS, &so);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    lg_model *o = subsampled(m, LG_TARGET_CLASSIC, "strided-slice-masks");
    if (o) {
        check_pool(o, 2, 2);
        CHECK_EQ_INT(fixt_count(o, LG_OP_SLICE), 1);
        CHECK_EQ_INT(fixt_count(o, LG_OP_STRIDED_SLICE), 0);
        lg_model_free(o);
    }
    lg_model_free(m);
}

/* Flagged but not strided subsamples of H/W, left to other passes: not a stride ([0,1,3]),
   a subsample of the channels, a contiguous run ([2,3,4]). One index, or a STRIDED_SLICE
   without masks: not flagged. None is matched. */
LG_TEST(fix_subsample_near_misses) {
    lg_model *m = gather_model(LG_DIMS(1, 8, 8, 3), 1, (const int32_t[]){0, 1, 3}, 3, LG_DIMS(1, 3, 8, 3));
    CHECK(fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_ANY, "gather-const-indices"));
    unchanged(m, "strided-subsample-pool", false);
    lg_model_free(m);
    m = gather_model(LG_DIMS(1, 4, 4, 6), 3, (const int32_t[]){0, 2, 4}, 3, LG_DIMS(1, 4, 4, 3));
    unchanged(m, "strided-subsample-pool", false);
    lg_model_free(m);
    m = gather_model(LG_DIMS(1, 8, 8, 3), 1, (const int32_t[]){2, 3, 4}, 3, LG_DIMS(1, 3, 8, 3));
    unchanged(m, "strided-subsample-pool", false);
    lg_model_free(m);
    m = gather_model(LG_DIMS(1, 8, 8, 3), 1, (const int32_t[]){2}, 1, LG_DIMS(1, 1, 8, 3));
    CHECK(!fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_ANY, "gather-const-indices"));
    unchanged(m, "strided-subsample-pool", false);
    lg_model_free(m);

    lg_builder b;
    m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 6, 6, 3));
    int bg = lg_b_const_i32(&b, "begin", LG_DIMS(4), (const int32_t[]){0, 0, 0, 0});
    int en = lg_b_const_i32(&b, "end", LG_DIMS(4), (const int32_t[]){1, 6, 6, 3});
    int st = lg_b_const_i32(&b, "strides", LG_DIMS(4), (const int32_t[]){1, 2, 2, 1});
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 3, 3, 3));
    lg_strided_slice_options so;
    lg_opts_init(LG_OPTS_STRIDED_SLICE_OPTIONS, &so, sizeof so);
    lg_b_op_opts(&b, LG_OP_STRIDED_SLICE, LG_IDS(x, bg, en, st), LG_IDS(y), LG_OPTS_STRIDED_SLICE_OPTIONS, &so);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK(fixt_ready(m, LG_TARGET_CLASSIC, LG_GPU_ANY));
    unchanged(m, "strided-subsample-pool", false);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ mirror-pad-edges */

static lg_model *mirror_model(int mode, lg_dims in, const int32_t *pads, lg_dims out) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, in);
    int p = lg_b_const_i32(&b, "pads", (lg_dims){(const int32_t[]){(int32_t)in.n, 2}, 2}, pads);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, out);
    lg_mirror_pad_options mo = {(int8_t)mode};
    lg_b_op_opts(&b, LG_OP_MIRROR_PAD, LG_IDS(x, p), LG_IDS(y), LG_OPTS_MIRROR_PAD_OPTIONS, &mo);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* SYMMETRIC [1,3,4,2] padded H (2, 1), W (1, 2): rows 1 0 | 0 1 2 | 2, columns 0 | 0 1 2 3 |
   3 2 (mirror_pad.cc: the edge repeats). On x[h,w,c] = (4h + w)2 + c the output holds the
   source row and column of each position. */
LG_TEST(fix_mirror_pad_symmetric) {
    lg_model *m = mirror_model(1, LG_DIMS(1, 3, 4, 2), (const int32_t[]){0, 0, 2, 1, 1, 2, 0, 0},
                               LG_DIMS(1, 6, 7, 2));
    for (int t = 0; t < 2; t++) CHECK(fixt_has(m, (lg_target)t, LG_GPU_ANY, "mirror-pad-mode"));
    lg_pass_report *rep = NULL;
    lg_model *o = FIXT_RUN(m, &rep, "mirror-pad-edges");
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_max_rel(rep, "mirror-pad-edges") == 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_MIRROR_PAD), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_CONCATENATION), 2);
    CHECK_EQ_INT(fixt_count(o, LG_OP_SLICE), 3 + 3);  /* rows 1, 0, 2; columns 0, 3, 2 */
    for (int t = 0; t < 2; t++) {
        CHECK(!fixt_has(o, (lg_target)t, LG_GPU_ANY, "mirror-pad-mode"));
        CHECK(fixt_ready(o, (lg_target)t, LG_GPU_ANY));
    }
    const int rows[6] = {1, 0, 0, 1, 2, 2}, cols[7] = {0, 0, 1, 2, 3, 3, 2};
    float x[24], got[84];
    for (int k = 0; k < 24; k++) x[k] = (float)k;
    const float *in[1] = {x};
    if (FIXT_EVAL(o, in, 0, got, 84) == 84)
        for (int h = 0; h < 6; h++)
            for (int w = 0; w < 7; w++)
                for (int c = 0; c < 2; c++)
                    CHECK_EQ_INT((int)got[(h * 7 + w) * 2 + c], (4 * rows[h] + cols[w]) * 2 + c);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* Rank 3, the edge repeated from both sides of a 1-row axis: [2,1,3] padded (0,0),(1,1),(0,0)
   -> the one row three times, one SLICE reused. */
LG_TEST(fix_mirror_pad_rank3_single_row) {
    lg_model *m = mirror_model(1, LG_DIMS(2, 1, 3), (const int32_t[]){0, 0, 1, 1, 0, 0}, LG_DIMS(2, 3, 3));
    lg_pass_report *rep = NULL;
    lg_model *o = FIXT_RUN(m, &rep, "mirror-pad-edges");
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_max_rel(rep, "mirror-pad-edges") == 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_SLICE), 1);
    CHECK(!fixt_has(o, LG_TARGET_MLDRIFT, LG_GPU_ANY, "mirror-pad-mode"));
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* REFLECT (delegated): not matched. SYMMETRIC by 9: flagged, left alone with a reason. */
LG_TEST(fix_mirror_pad_near_misses) {
    lg_model *m = mirror_model(0, LG_DIMS(1, 3, 4, 2), (const int32_t[]){0, 0, 2, 1, 1, 2, 0, 0},
                               LG_DIMS(1, 6, 7, 2));
    CHECK(!fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_ANY, "mirror-pad-mode"));
    unchanged(m, "mirror-pad-edges", false);
    lg_model_free(m);
    m = mirror_model(1, LG_DIMS(1, 12, 4, 2), (const int32_t[]){0, 0, 9, 0, 0, 0, 0, 0}, LG_DIMS(1, 21, 4, 2));
    CHECK(fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_ANY, "mirror-pad-mode"));
    unchanged(m, "mirror-pad-edges", true);
    lg_model_free(m);
}
