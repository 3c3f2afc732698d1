/* The `fix` passes of src/passes/fix_shape.c and fix_shape_slice.c: distinct-operands,
   broadcast-rank, add-n-chain, compare-per-consumer, space-depth-batch1, slice-plain,
   pad-rank4. Each: a builder-made model that triggers the rule (lg_check reports it on the
   targets where it applies), the pass run with parity proved by the runner (exact bound), the
   rule gone and no blocker left, the ops expected, values derived by hand (in the comments);
   and near-misses that must come out unchanged. */
#include "fixt_idx.h"

#define MLD LG_TARGET_MLDRIFT
#define CLS LG_TARGET_CLASSIC

/* Blockers of other rules the models carry on purpose (PADV2 of -1: padv2-nonzero, Mali). */
static uint32_t other_blockers;

/* Run pass `name` on m and hold it to: applied, proved exact, rule gone on both targets, no
   blocker on either (but other_blockers). NULL (and failed checks) otherwise. */
static lg_model *fixed(const lg_model *m, const char *name, const char *rule, lg_pass_report **rep) {
    lg_model *o = fixti_run(m, name, rep);
    if (!o) return NULL;
    CHECK(fixt_proved(*rep, name));
    CHECK_EQ_INT(fixt_findings(o, MLD, rule), 0);
    CHECK_EQ_INT(fixt_findings(o, CLS, rule), 0);
    CHECK_EQ_INT(fixt_blockers(o, MLD), other_blockers);
    CHECK_EQ_INT(fixt_blockers(o, CLS), other_blockers);
    return o;
}

/* The pass leaves m as it is (same ops, in order). */
static void unchanged(lg_model *m, const char *name) {
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, name, &rep);
    if (o) {
        CHECK(fixt_same_ops(o, m));
        const lg_pass_result *r = fixt_result(rep, name);
        CHECK(r && r->delta.applied == 0);
    }
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

static void done(lg_model *m, lg_model *o, lg_pass_report *rep) {
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

static void binop(lg_builder *b, int32_t code, int x, int y, int out) {
    if (code == LG_OP_BATCH_MATMUL) {
        lg_batch_mat_mul_options bo;
        lg_opts_init(LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo, sizeof bo);
        lg_b_op_opts(b, code, LG_IDS(x, y), LG_IDS(out), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo);
    } else if (code == LG_OP_ADD) {
        lg_add_options ao;
        lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
        lg_b_op_opts(b, code, LG_IDS(x, y), LG_IDS(out), LG_OPTS_ADD_OPTIONS, &ao);
    } else if (code == LG_OP_MUL) {
        lg_mul_options mo;
        lg_opts_init(LG_OPTS_MUL_OPTIONS, &mo, sizeof mo);
        lg_b_op_opts(b, code, LG_IDS(x, y), LG_IDS(out), LG_OPTS_MUL_OPTIONS, &mo);
    } else {
        lg_b_op(b, code, LG_IDS(x, y), LG_IDS(out));
    }
}

/* ------------------------------------------------------------------ distinct-operands */

/* code(x, x) (self) or code(x, x2) on x[shape]; the output has the shape out. */
static lg_model *self_model(int32_t code, lg_dims shape, bool self) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, shape);
    int x2 = self ? x : lg_b_tensor(&b, "x2", LG_FLOAT32, shape);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, shape);
    binop(&b, code, x, x2, y);
    if (self) lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    else lg_b_io(&b, LG_IDS(x, x2), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* DIV(x, x) of x = 1..12: all ones; one RESHAPE added, the DIV reads it as its divisor. */
LG_TEST(fix_shape_distinct_operands_div) {
    lg_model *m = self_model(LG_OP_DIV, LG_DIMS(1, 2, 2, 3), true);
    CHECK_EQ_INT(fixt_findings(m, MLD, "identical-inputs"), 1);
    CHECK_EQ_INT(fixt_findings(m, CLS, "identical-inputs"), 0); /* ML Drift's rule */
    lg_pass_report *rep = NULL;
    lg_model *o = fixed(m, "distinct-operands", "identical-inputs", &rep);
    if (!o) { done(m, o, rep); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(fixt_count(o, LG_OP_RESHAPE), 1);
    const lg_op *div = &o->subgraphs[0].ops[1];
    CHECK(div->inputs[0] != div->inputs[1]);
    float x[12], y[12];
    for (int k = 0; k < 12; k++) x[k] = (float)(k + 1);
    const void *ins[1] = {x};
    if (fixti_eval(o, ins, 0, y, 12))
        for (int k = 0; k < 12; k++) CHECK_EQ_INT(y[k], 1);
    done(m, o, rep);
}

/* BATCH_MATMUL(x, x), x[1,2,2,2] = 1..8: per batch the square of [[1,2],[3,4]] =
   [[7,10],[15,22]] and of [[5,6],[7,8]] = [[67,78],[91,106]]. */
LG_TEST(fix_shape_distinct_operands_batch_matmul) {
    lg_model *m = self_model(LG_OP_BATCH_MATMUL, LG_DIMS(1, 2, 2, 2), true);
    CHECK_EQ_INT(fixt_findings(m, MLD, "identical-inputs"), 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixed(m, "distinct-operands", "identical-inputs", &rep);
    if (!o) { done(m, o, rep); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    float x[8], y[8];
    const float want[8] = {7, 10, 15, 22, 67, 78, 91, 106};
    for (int k = 0; k < 8; k++) x[k] = (float)(k + 1);
    const void *ins[1] = {x};
    if (fixti_eval(o, ins, 0, y, 8))
        for (int k = 0; k < 8; k++) CHECK_EQ_INT(y[k], want[k]);
    done(m, o, rep);
}

/* Near-misses: MUL(x, x) (ML Drift takes it), DIV(x, x2), and DIV(c, c) of a constant
   (fold-constants' case: declined). */
LG_TEST(fix_shape_distinct_operands_near_misses) {
    lg_model *m = self_model(LG_OP_MUL, LG_DIMS(1, 2, 2, 3), true);
    CHECK_EQ_INT(fixt_findings(m, MLD, "identical-inputs"), 0);
    unchanged(m, "distinct-operands");
    m = self_model(LG_OP_DIV, LG_DIMS(1, 2, 2, 3), false);
    CHECK_EQ_INT(fixt_findings(m, MLD, "identical-inputs"), 0);
    unchanged(m, "distinct-operands");
    lg_builder b;
    m = fixt_new(&b);
    const float cv[3] = {1, 2, 4};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(3));
    int c = lg_b_const_f32(&b, "c", LG_DIMS(3), cv);
    int q = lg_b_tensor(&b, "q", LG_FLOAT32, LG_DIMS(3)), y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(3));
    binop(&b, LG_OP_DIV, c, c, q);
    binop(&b, LG_OP_ADD, x, q, y);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(fixt_findings(m, MLD, "identical-inputs"), 1);
    unchanged(m, "distinct-operands");
}

/* ------------------------------------------------------------------ broadcast-rank */

static lg_model *add_model(int32_t code, lg_dims sa, lg_dims sc, lg_dims so, const float *cdata) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int a = lg_b_tensor(&b, "a", LG_FLOAT32, sa);
    int c = cdata ? lg_b_const_f32(&b, "c", sc, cdata) : lg_b_tensor(&b, "c", LG_FLOAT32, sc);
    int o = lg_b_tensor(&b, "o", LG_FLOAT32, so);
    binop(&b, code, a, c, o);
    if (cdata) lg_b_io(&b, LG_IDS(a), LG_IDS(o));
    else lg_b_io(&b, LG_IDS(a, c), LG_IDS(o));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* a[2,2,2,3] + c[2,2,3] (4D of batch 2 + 3D: classic refuses): c becomes [1,2,2,3].
   a = 0..23, c = 100 * (0..11): o[n][h][w][k] = a[n][h][w][k] + 100 * (6h + 3w + k). */
LG_TEST(fix_shape_broadcast_rank) {
    lg_model *m = add_model(LG_OP_ADD, LG_DIMS(2, 2, 2, 3), LG_DIMS(2, 2, 3), LG_DIMS(2, 2, 2, 3), NULL);
    CHECK_EQ_INT(fixt_findings(m, CLS, "broadcast"), 1);
    CHECK_EQ_INT(fixt_findings(m, MLD, "broadcast"), 0); /* ML Drift broadcasts numpy-style */
    lg_pass_report *rep = NULL;
    lg_model *o = fixed(m, "broadcast-rank", "broadcast", &rep);
    if (!o) { done(m, o, rep); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(fixt_count(o, LG_OP_RESHAPE), 1);
    float a[24], c[12], y[24];
    fixt_iota(a, 24);
    for (int k = 0; k < 12; k++) c[k] = 100.0f * (float)k;
    const void *ins[2] = {a, c};
    if (fixti_eval(o, ins, 0, y, 24))
        for (int q = 0; q < 24; q++) CHECK_EQ_INT(y[q], q + 100 * (q % 12));
    done(m, o, rep);
}

/* MUL a[1,2,3] * constant c[2,3] (3D + 2D: the classic delegate broadcasts only onto 4D): the
   constant is stored reshaped to [1,2,3], no op added. o = a * c elementwise. */
LG_TEST(fix_shape_broadcast_rank_const) {
    const float cv[6] = {1, -1, 2, -2, 3, -3};
    lg_model *m = add_model(LG_OP_MUL, LG_DIMS(1, 2, 3), LG_DIMS(2, 3), LG_DIMS(1, 2, 3), cv);
    CHECK_EQ_INT(fixt_findings(m, CLS, "broadcast"), 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixed(m, "broadcast-rank", "broadcast", &rep);
    if (!o) { done(m, o, rep); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
    float a[6] = {1, 2, 3, 4, 5, 6}, y[6];
    const float want[6] = {1, -2, 6, -8, 15, -18};
    const void *ins[1] = {a};
    if (fixti_eval(o, ins, 0, y, 6))
        for (int q = 0; q < 6; q++) CHECK_EQ_INT(y[q], want[q]);
    done(m, o, rep);
}

/* Near-misses: the classic delegate's own forms (4D of batch 1 + 3D, 4D + [1,1], 4D
   [b,h,w,c] + [b,c]), a rank-1 operand, equal ranks. */
LG_TEST(fix_shape_broadcast_rank_near_misses) {
    lg_dims lo[5] = {LG_DIMS(2, 2, 3), LG_DIMS(1, 1), LG_DIMS(1, 3), LG_DIMS(3), LG_DIMS(1, 1, 2, 3)};
    for (int k = 0; k < 5; k++) {
        lg_model *m = add_model(LG_OP_ADD, LG_DIMS(1, 2, 2, 3), lo[k], LG_DIMS(1, 2, 2, 3), NULL);
        CHECK_EQ_INT(fixt_findings(m, CLS, "broadcast"), 0);
        unchanged(m, "broadcast-rank");
    }
}

/* ------------------------------------------------------------------ add-n-chain */

static lg_model *add_n_model(int n) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int32_t in[4];
    const char *names[4] = {"a", "b", "c", "d"};
    for (int k = 0; k < n; k++) in[k] = lg_b_tensor(&b, names[k], LG_FLOAT32, LG_DIMS(1, 3));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 3));
    lg_dims d = {in, (uint32_t)n};
    lg_b_op(&b, LG_OP_ADD_N, d, LG_IDS(y));
    lg_b_io(&b, d, LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* ADD_N(a, b, c) -> (a + b) + c. In input order (TFLite's): a = 1e8, b = -1e8, c = 1 gives
   (1e8 - 1e8) + 1 = 1, where a + (b + c) would give 0 in fp32 (-1e8 + 1 rounds to -1e8, the
   float spacing there being 8). The other columns: 1+2+3 = 6, 2+3+4 = 9. */
LG_TEST(fix_shape_add_n_chain) {
    lg_model *m = add_n_model(3);
    CHECK_EQ_INT(fixt_findings(m, MLD, "input-count"), 1);
    CHECK_EQ_INT(fixt_findings(m, CLS, "input-count"), 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixed(m, "add-n-chain", "input-count", &rep);
    if (!o) { done(m, o, rep); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(fixt_count(o, LG_OP_ADD), 2);
    const lg_pass_result *r = fixt_result(rep, "add-n-chain");
    CHECK(r && r->max_abs == 0); /* the same sums in the same order */
    float a[3] = {1e8f, 1, 2}, bb[3] = {-1e8f, 2, 3}, c[3] = {1, 3, 4}, y[3], ref[3];
    const void *ins[3] = {a, bb, c};
    if (fixti_eval(o, ins, 0, y, 3) && fixti_eval(m, ins, 0, ref, 3)) {
        CHECK_EQ_INT(y[0], 1);
        CHECK_EQ_INT(y[1], 6);
        CHECK_EQ_INT(y[2], 9);
        CHECK(memcmp(y, ref, sizeof y) == 0);
    }
    done(m, o, rep);
}

LG_TEST(fix_shape_add_n_chain_four_and_near_miss) {
    lg_model *m = add_n_model(4);
    lg_pass_report *rep = NULL;
    lg_model *o = fixed(m, "add-n-chain", "input-count", &rep);
    if (o) CHECK_EQ_INT(fixt_count(o, LG_OP_ADD), 3);
    done(m, o, rep);
    m = add_n_model(2); /* the GPU takes 2 inputs */
    CHECK_EQ_INT(fixt_findings(m, MLD, "input-count"), 0);
    unchanged(m, "add-n-chain");
}

/* ------------------------------------------------------------------ compare-per-consumer */

/* c = GREATER(x, 0.5) read by CAST -> RELU -> y1 (float) and (two_uses) SELECT_V2(c, x, 0) -> y2,
   or (as_output) c itself a graph output beside the CAST. x[1,1,2,2]. */
static lg_model *compare_model(bool two_uses, bool as_output) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    const float half[1] = {0.5f}, zeros[4] = {0, 0, 0, 0};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 1, 2, 2));
    int h = lg_b_const_f32(&b, "half", LG_DIMS(1), half);
    int z = lg_b_const_f32(&b, "zeros", LG_DIMS(1, 1, 2, 2), zeros);
    int c = lg_b_tensor(&b, "c", LG_BOOL, LG_DIMS(1, 1, 2, 2));
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 1, 2, 2));
    int y1 = lg_b_tensor(&b, "y1", LG_FLOAT32, LG_DIMS(1, 1, 2, 2));
    lg_b_op(&b, LG_OP_GREATER, LG_IDS(x, h), LG_IDS(c));
    lg_b_op(&b, LG_OP_CAST, LG_IDS(c), LG_IDS(t)); /* a cast from bool may not be a graph output */
    lg_b_op(&b, LG_OP_RELU, LG_IDS(t), LG_IDS(y1));
    if (two_uses) {
        int y2 = lg_b_tensor(&b, "y2", LG_FLOAT32, LG_DIMS(1, 1, 2, 2));
        lg_b_op(&b, LG_OP_SELECT_V2, LG_IDS(c, x, z), LG_IDS(y2));
        lg_b_io(&b, LG_IDS(x), LG_IDS(y1, y2));
    } else if (as_output) {
        lg_b_io(&b, LG_IDS(x), LG_IDS(y1, c));
    } else {
        lg_b_io(&b, LG_IDS(x), LG_IDS(y1));
    }
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* One GREATER per consumer. x = {0, 1, 0.25, 2}: y1 = x > 0.5 = {0, 1, 0, 1}, y2 = {0, 1, 0, 2}. */
LG_TEST(fix_shape_compare_per_consumer) {
    lg_model *m = compare_model(true, false);
    CHECK_EQ_INT(fixt_findings(m, CLS, "compare-consumer"), 1);
    CHECK_EQ_INT(fixt_findings(m, MLD, "compare-consumer"), 0); /* the classic delegate's rule */
    lg_pass_report *rep = NULL;
    lg_model *o = fixed(m, "compare-per-consumer", "compare-consumer", &rep);
    if (!o) { done(m, o, rep); return; }
    CHECK_EQ_INT(fixt_count(o, LG_OP_GREATER), 2);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 5);
    CHECK_EQ_INT(fixt_findings(m, CLS, "cast-types"), 1); /* the CAST's comparison had 2 uses */
    CHECK_EQ_INT(fixt_findings(o, CLS, "cast-types"), 0); /* the CAST reads a comparison of one use */
    float x[4] = {0, 1, 0.25f, 2}, y1[4], y2[4];
    const float w1[4] = {0, 1, 0, 1}, w2[4] = {0, 1, 0, 2};
    const void *ins[1] = {x};
    if (fixti_eval(o, ins, 0, y1, 4) && fixti_eval(o, ins, 1, y2, 4))
        for (int k = 0; k < 4; k++) {
            CHECK_EQ_INT(y1[k], w1[k]);
            CHECK_NEAR(y2[k], w2[k], 0);
        }
    done(m, o, rep);
}

/* Near-misses: one CAST consumer (fine), and the comparison also a graph output (a copy per
   consumer cannot make that one a CAST). */
LG_TEST(fix_shape_compare_per_consumer_near_misses) {
    lg_model *m = compare_model(false, false);
    CHECK_EQ_INT(fixt_findings(m, CLS, "compare-consumer"), 0);
    unchanged(m, "compare-per-consumer");
    m = compare_model(false, true);
    CHECK_EQ_INT(fixt_findings(m, CLS, "compare-consumer"), 1);
    unchanged(m, "compare-per-consumer");
}

/* ------------------------------------------------------------------ space-depth-batch1 */

static lg_model *space_depth_model(bool s2d, int n) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    lg_depth_to_space_options d2 = {2};
    lg_space_to_depth_options s2 = {2};
    int x = s2d ? lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(n, 2, 4, 1)) : lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(n, 1, 2, 4));
    int y = s2d ? lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(n, 1, 2, 4)) : lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(n, 2, 4, 1));
    if (s2d) lg_b_op_opts(&b, LG_OP_SPACE_TO_DEPTH, LG_IDS(x), LG_IDS(y), LG_OPTS_SPACE_TO_DEPTH_OPTIONS, &s2);
    else lg_b_op_opts(&b, LG_OP_DEPTH_TO_SPACE, LG_IDS(x), LG_IDS(y), LG_OPTS_DEPTH_TO_SPACE_OPTIONS, &d2);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* DEPTH_TO_SPACE block 2 of x[2,1,2,4] = 0..15 (depth_to_space.cc: out[n][i][2w + j][0] =
   x[n][0][w][2i + j], flat 8n + 4w + 2i + j) -> out[2,2,4,1] flat 8n + 4i + 2w + j:
   {0,1,4,5, 2,3,6,7} and +8 for batch 1. SPACE_TO_DEPTH of x[2,2,4,1] = 0..15 is the inverse
   map (out[n][0][w][2i + j] = x[n][i][2w + j][0]): the same list. */
LG_TEST(fix_shape_space_depth_batch1) {
    const float want[16] = {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15};
    for (int s2d = 0; s2d < 2; s2d++) {
        lg_model *m = space_depth_model(s2d, 2);
        CHECK_EQ_INT(fixt_findings(m, MLD, "webgpu-space-depth-batch"), 1);
        CHECK_EQ_INT(fixt_findings(m, CLS, "webgpu-space-depth-batch"), 0); /* ML Drift's */
        lg_pass_report *rep = NULL;
        lg_model *o = fixed(m, "space-depth-batch1", "webgpu-space-depth-batch", &rep);
        if (!o) { done(m, o, rep); return; }
        CHECK_EQ_INT(o->subgraphs[0].n_ops, 3);
        CHECK_EQ_INT(fixt_count(o, LG_OP_RESHAPE), 2);
        const lg_op *mid = &o->subgraphs[0].ops[1];
        CHECK_EQ_INT(o->subgraphs[0].tensors[mid->inputs[0]].shape[0], 1);
        CHECK_EQ_INT(o->subgraphs[0].tensors[mid->inputs[0]].shape[1], s2d ? 4 : 2);
        float x[16], y[16];
        fixt_iota(x, 16);
        const void *ins[1] = {x};
        if (fixti_eval(o, ins, 0, y, 16))
            for (int q = 0; q < 16; q++) CHECK_EQ_INT(y[q], want[q]);
        done(m, o, rep);
    }
}

LG_TEST(fix_shape_space_depth_batch1_near_miss) {
    for (int s2d = 0; s2d < 2; s2d++) {
        lg_model *m = space_depth_model(s2d, 1);
        CHECK_EQ_INT(fixt_findings(m, MLD, "webgpu-space-depth-batch"), 0);
        unchanged(m, "space-depth-batch1");
    }
}

/* ------------------------------------------------------------------ slice-plain */

static void ss_op(lg_builder *b, int x, int y, const int32_t *bg, const int32_t *en, const int32_t *st, uint32_t n,
                  int begin_mask, int end_mask, int shrink) {
    lg_dims d1 = {(const int32_t[]){(int32_t)n}, 1};
    int tb = lg_b_const_i32(b, "begin", d1, bg), te = lg_b_const_i32(b, "end", d1, en);
    int ts = lg_b_const_i32(b, "strides", d1, st);
    lg_strided_slice_options so;
    lg_opts_init(LG_OPTS_STRIDED_SLICE_OPTIONS, &so, sizeof so);
    so.begin_mask = begin_mask;
    so.end_mask = end_mask;
    so.shrink_axis_mask = shrink;
    lg_b_op_opts(b, LG_OP_STRIDED_SLICE, LG_IDS(x, tb, te, ts), LG_IDS(y), LG_OPTS_STRIDED_SLICE_OPTIONS, &so);
}

/* x[in] -> STRIDED_SLICE -> y[out] as the whole graph. */
static lg_model *ss_model(lg_dims in, lg_dims out, const int32_t *bg, const int32_t *en, const int32_t *st,
                          int begin_mask, int end_mask, int shrink) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, in), y = lg_b_tensor(&b, "y", LG_FLOAT32, out);
    ss_op(&b, x, y, bg, en, st, in.n, begin_mask, end_mask, shrink);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

static lg_model *slice_model(lg_dims in, lg_dims out, const int32_t *bg) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    lg_dims d1 = {(const int32_t[]){(int32_t)in.n}, 1};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, in), y = lg_b_tensor(&b, "y", LG_FLOAT32, out);
    int tb = lg_b_const_i32(&b, "begin", d1, bg), ts = lg_b_const_i32(&b, "size", d1, out.v);
    lg_b_op(&b, LG_OP_SLICE, LG_IDS(x, tb, ts), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* Run slice-plain on m, rule gone, then y (n values) against want for x = 0, 1, 2, ... */
static void slice_case(lg_model *m, const char *rule, int n_x, const float *want, int n, int n_ops) {
    lg_pass_report *rep = NULL;
    lg_model *o = fixed(m, "slice-plain", rule, &rep);
    if (o) {
        CHECK_EQ_INT(o->subgraphs[0].n_ops, n_ops);
        float x[64], y[64];
        fixt_iota(x, n_x);
        const void *ins[1] = {x};
        if (fixti_eval(o, ins, 0, y, n))
            for (int q = 0; q < n; q++) CHECK_EQ_INT(y[q], want[q]);
    }
    done(m, o, rep);
}

/* SLICE of x[4,3] = 0..11, rows 1-2: {3..8}; classic refuses rank 2 (ML Drift takes it):
   RESHAPE to [1,4,3,1], SLICE, RESHAPE to [2,3]. */
LG_TEST(fix_shape_slice_rank2) {
    lg_model *m = slice_model(LG_DIMS(4, 3), LG_DIMS(2, 3), (const int32_t[]){1, 0});
    CHECK_EQ_INT(fixt_findings(m, CLS, "slice-rank"), 1);
    CHECK_EQ_INT(fixt_findings(m, MLD, "slice-rank"), 0);
    const float want[6] = {3, 4, 5, 6, 7, 8};
    slice_case(m, "slice-rank", 12, want, 6, 3);
}

/* STRIDED_SLICE x[8] = 0..7 [1:7:2] = {1, 3, 5}: a STRIDED_SLICE of [1,8,1,1]. */
LG_TEST(fix_shape_slice_rank1_strided) {
    lg_model *m = ss_model(LG_DIMS(8), LG_DIMS(3), (const int32_t[]){1}, (const int32_t[]){7}, (const int32_t[]){2}, 0, 0, 0);
    CHECK_EQ_INT(fixt_findings(m, CLS, "slice-rank"), 1);
    const float want[3] = {1, 3, 5};
    slice_case(m, "slice-rank", 8, want, 3, 3);
}

/* x[1,4,4,2] = 0..31 (flat 8h + 2w + c), x[0, 1:3, 2, :]: shrink dims 0 and 2 (mask 5) ->
   [2,2] = x at h = 1, 2, w = 2: 8h + 4 + c = {12, 13, 20, 21}: SLICE [1,2,1,2] + RESHAPE. */
LG_TEST(fix_shape_slice_shrink_mask) {
    lg_model *m = ss_model(LG_DIMS(1, 4, 4, 2), LG_DIMS(2, 2), (const int32_t[]){0, 1, 2, 0},
                           (const int32_t[]){1, 3, 3, 2}, (const int32_t[]){1, 1, 1, 1}, 0, 0, 5);
    CHECK_EQ_INT(fixt_findings(m, MLD, "strided-slice-masks"), 1);
    CHECK_EQ_INT(fixt_findings(m, CLS, "strided-slice-masks"), 1);
    const float want[4] = {12, 13, 20, 21};
    slice_case(m, "strided-slice-masks", 32, want, 4, 2);
}

/* x[1,3,2,2] = 0..11 (flat 4h + 2w + c) reversed on H (stride -1 from 2, end_mask on H):
   rows 2, 1, 0 = {8..11, 4..7, 0..3}: three single-row SLICEs + CONCATENATION. */
LG_TEST(fix_shape_slice_reverse) {
    lg_model *m = ss_model(LG_DIMS(1, 3, 2, 2), LG_DIMS(1, 3, 2, 2), (const int32_t[]){0, 2, 0, 0},
                           (const int32_t[]){1, 0, 2, 2}, (const int32_t[]){1, -1, 1, 1}, 0, 2, 0);
    CHECK_EQ_INT(fixt_findings(m, MLD, "strided-slice-reverse"), 1);
    CHECK_EQ_INT(fixt_findings(m, CLS, "strided-slice-reverse"), 1);
    const float want[12] = {8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3};
    slice_case(m, "strided-slice-reverse", 12, want, 12, 4);
}

/* x[1,1,5,1] = 0..4, W from 4 by -2 (end_mask on W): {4, 2, 0}: STRIDED_SLICE 0:5:2 (= 0, 2,
   4), then its three elements reversed. */
LG_TEST(fix_shape_slice_reverse_strided) {
    lg_model *m = ss_model(LG_DIMS(1, 1, 5, 1), LG_DIMS(1, 1, 3, 1), (const int32_t[]){0, 0, 4, 0},
                           (const int32_t[]){1, 1, 0, 1}, (const int32_t[]){1, 1, -2, 1}, 0, 4, 0);
    CHECK_EQ_INT(fixt_findings(m, MLD, "strided-slice-reverse"), 1);
    const float want[3] = {4, 2, 0};
    slice_case(m, "strided-slice-reverse", 5, want, 3, 5);
}

/* Near-misses: a rank-4 SLICE, a positive strided slice, begin/end masks only (none of the
   rules fires); a reversal of 20 rows (more than 16 slices: declined, left alone). */
LG_TEST(fix_shape_slice_near_misses) {
    unchanged(slice_model(LG_DIMS(1, 4, 4, 2), LG_DIMS(1, 2, 4, 2), (const int32_t[]){0, 1, 0, 0}), "slice-plain");
    unchanged(ss_model(LG_DIMS(1, 4, 4, 2), LG_DIMS(1, 2, 4, 2), (const int32_t[]){0, 0, 0, 0},
                       (const int32_t[]){1, 4, 4, 2}, (const int32_t[]){1, 2, 1, 1}, 0, 0, 0),
              "slice-plain");
    unchanged(ss_model(LG_DIMS(1, 4, 4, 2), LG_DIMS(1, 4, 4, 2), (const int32_t[]){0, 0, 0, 0},
                       (const int32_t[]){1, 4, 4, 2}, (const int32_t[]){1, 1, 1, 1}, 15, 15, 0),
              "slice-plain");
    lg_model *m = ss_model(LG_DIMS(1, 20, 1, 1), LG_DIMS(1, 20, 1, 1), (const int32_t[]){0, 19, 0, 0},
                           (const int32_t[]){1, 0, 1, 1}, (const int32_t[]){1, -1, 1, 1}, 0, 2, 0);
    CHECK_EQ_INT(fixt_findings(m, MLD, "strided-slice-reverse"), 1);
    unchanged(m, "slice-plain");
}

/* ------------------------------------------------------------------ pad-rank4 */

static lg_model *pad_model(int32_t code, lg_dims in, lg_dims out, const int32_t *pads, float value) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, in), y = lg_b_tensor(&b, "y", LG_FLOAT32, out);
    int p = lg_b_const_i32(&b, "paddings", LG_DIMS((int32_t)in.n, 2), pads);
    if (code == LG_OP_PADV2) {
        int v = lg_b_const_f32(&b, "value", LG_DIMS(1), (const float[]){value});
        lg_b_op(&b, code, LG_IDS(x, p, v), LG_IDS(y));
    } else if (code == LG_OP_MIRROR_PAD) {
        lg_mirror_pad_options mo = {LG_MIRROR_PAD_MODE_REFLECT};
        lg_b_op_opts(&b, code, LG_IDS(x, p), LG_IDS(y), LG_OPTS_MIRROR_PAD_OPTIONS, &mo);
    } else {
        lg_b_op(&b, code, LG_IDS(x, p), LG_IDS(y));
    }
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* Run pad-rank4 (rule gone), then y (n values) against want for x = 1, 2, 3, ... */
static void pad_case(lg_model *m, const char *rule, int n_x, const float *want, int n) {
    lg_pass_report *rep = NULL;
    lg_model *o = fixed(m, "pad-rank4", rule, &rep);
    if (o) {
        CHECK_EQ_INT(o->subgraphs[0].n_ops, 3); /* RESHAPE, the pad at rank 4, RESHAPE */
        const lg_op *pad = &o->subgraphs[0].ops[1];
        CHECK_EQ_INT(o->subgraphs[0].tensors[pad->inputs[0]].rank, 4);
        float x[64], y[64];
        for (int k = 0; k < n_x; k++) x[k] = (float)(k + 1);
        const void *ins[1] = {x};
        if (fixti_eval(o, ins, 0, y, n))
            for (int q = 0; q < n; q++) CHECK_EQ_INT(y[q], want[q]);
    }
    done(m, o, rep);
}

/* PAD x[2,3] = 1..6 by ((1,0),(0,2)) -> [3,5]: a zero row, then each row and two zeros
   (view [1,2,3,1] padded on H and W). */
LG_TEST(fix_shape_pad_rank2) {
    lg_model *m = pad_model(LG_OP_PAD, LG_DIMS(2, 3), LG_DIMS(3, 5), (const int32_t[]){1, 0, 0, 2}, 0);
    CHECK_EQ_INT(fixt_findings(m, MLD, "pad-shape"), 1);
    CHECK_EQ_INT(fixt_findings(m, CLS, "pad-shape"), 1);
    const float want[15] = {0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 0, 0};
    pad_case(m, "pad-shape", 6, want, 15);
}

/* PADV2 x[3] = 1..3 by (2,1) with -1 -> {-1,-1,1,2,3,-1} (view [1,1,3,1] padded on W); the
   value -1 stays a Mali blocker (padv2-nonzero), as before. */
LG_TEST(fix_shape_padv2_rank1) {
    lg_model *m = pad_model(LG_OP_PADV2, LG_DIMS(3), LG_DIMS(6), (const int32_t[]){2, 1}, -1);
    CHECK_EQ_INT(fixt_findings(m, MLD, "pad-shape"), 1);
    CHECK_EQ_INT(fixt_findings(m, MLD, "padv2-nonzero"), 1);
    const float want[6] = {-1, -1, 1, 2, 3, -1};
    other_blockers = 1;
    pad_case(m, "pad-shape", 3, want, 6);
    other_blockers = 0;
}

/* MIRROR_PAD REFLECT x[2,3] = 1..6 by ((1,1),(1,1)) -> [4,5] (mirror_pad.cc REFLECT:
   out[-1-j] = in[j+1]): rows 2, 1, 2, 1 of x each as (in[1], in, in[n-2]):
   {5,4,5,6,5, 2,1,2,3,2, 5,4,5,6,5, 2,1,2,3,2}. */
LG_TEST(fix_shape_mirror_pad_rank2) {
    lg_model *m = pad_model(LG_OP_MIRROR_PAD, LG_DIMS(2, 3), LG_DIMS(4, 5), (const int32_t[]){1, 1, 1, 1}, 0);
    CHECK_EQ_INT(fixt_findings(m, CLS, "pad-shape"), 1);
    const float want[20] = {5, 4, 5, 6, 5, 2, 1, 2, 3, 2, 5, 4, 5, 6, 5, 2, 1, 2, 3, 2};
    pad_case(m, "pad-shape", 6, want, 20);
}

/* webgpu-pad-layout (an ML Drift warning): PAD x[2,3,2] = 1..12 on dims 0 and 1 by ((1,0),
   (0,1)) -> [3,4,2]: a zero image, then each image's 3 rows and a zero row (view [1,2,3,2]).
   And dims 0 and 2 by ((1,0),(0,0),(0,1)) -> [3,3,3], dims merged between them (m = 3: view
   [1,6,2,1], H padded by 3): a zero image, then each row of 2 and a zero. */
LG_TEST(fix_shape_pad_layout_rank3) {
    lg_model *m = pad_model(LG_OP_PAD, LG_DIMS(2, 3, 2), LG_DIMS(3, 4, 2), (const int32_t[]){1, 0, 0, 1, 0, 0}, 0);
    CHECK_EQ_INT(fixt_findings(m, MLD, "webgpu-pad-layout"), 1);
    CHECK_EQ_INT(fixt_findings(m, CLS, "webgpu-pad-layout"), 0);
    const float want[24] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 0, 0, 7, 8, 9, 10, 11, 12, 0, 0};
    pad_case(m, "webgpu-pad-layout", 12, want, 24);
    m = pad_model(LG_OP_PAD, LG_DIMS(2, 3, 2), LG_DIMS(3, 3, 3), (const int32_t[]){1, 0, 0, 0, 0, 1}, 0);
    CHECK_EQ_INT(fixt_findings(m, MLD, "webgpu-pad-layout"), 1);
    const float want2[27] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 3, 4, 0, 5, 6, 0, 7, 8, 0, 9, 10, 0, 11, 12, 0};
    pad_case(m, "webgpu-pad-layout", 12, want2, 27);
}

/* The batch of x[1,2,2,1] = 1..4 padded by (1,1) -> [3,2,2,1] (view [1,1,1,4] padded on W):
   {0,0,0,0, 1,2,3,4, 0,0,0,0}. */
LG_TEST(fix_shape_pad_layout_batch) {
    lg_model *m = pad_model(LG_OP_PAD, LG_DIMS(1, 2, 2, 1), LG_DIMS(3, 2, 2, 1), (const int32_t[]){1, 1, 0, 0, 0, 0, 0, 0}, 0);
    CHECK_EQ_INT(fixt_findings(m, MLD, "webgpu-pad-layout"), 1);
    const float want[12] = {0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0};
    pad_case(m, "webgpu-pad-layout", 4, want, 12);
}

/* Near-misses: [1,4,4,2] padded on H and W, [1,3,2] padded on H (neither rule fires); [2,2,2]
   padded on all three dims (the rule fires, no rank-4 view pads 3 dims off the batch:
   declined). */
LG_TEST(fix_shape_pad_near_misses) {
    unchanged(pad_model(LG_OP_PAD, LG_DIMS(1, 4, 4, 2), LG_DIMS(1, 6, 6, 2), (const int32_t[]){0, 0, 1, 1, 1, 1, 0, 0}, 0),
              "pad-rank4");
    unchanged(pad_model(LG_OP_PAD, LG_DIMS(1, 3, 2), LG_DIMS(1, 5, 2), (const int32_t[]){0, 0, 1, 1, 0, 0}, 0), "pad-rank4");
    lg_model *m = pad_model(LG_OP_PAD, LG_DIMS(2, 2, 2), LG_DIMS(3, 3, 3), (const int32_t[]){1, 0, 1, 0, 1, 0}, 0);
    CHECK_EQ_INT(fixt_findings(m, MLD, "webgpu-pad-layout"), 1);
    unchanged(m, "pad-rank4");
}
