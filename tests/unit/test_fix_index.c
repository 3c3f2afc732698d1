/* The `fix` passes of src/passes/fix_index.c and fix_pack.c: gather-const-to-slices,
   select-const-condition, elu-select-free, squeeze-to-reshape, pack-unpack-split,
   broadcast-to-tile. Each: a builder-made model that triggers the rule (lg_check reports it),
   the pass run with parity proved by the runner, the rule gone, the ops expected, values
   derived by hand; and a near-miss that must come out unchanged. */
#include "fixt_idx.h"

static void gather_op(lg_builder *b, int32_t code, int x, int idx, int y, int32_t axis) {
    if (code == LG_OP_GATHER_ND) {
        lg_b_op(b, code, LG_IDS(x, idx), LG_IDS(y));
        return;
    }
    lg_gather_options go;
    lg_opts_init(LG_OPTS_GATHER_OPTIONS, &go, sizeof go);
    go.axis = axis;
    lg_b_op_opts(b, code, LG_IDS(x, idx), LG_IDS(y), LG_OPTS_GATHER_OPTIONS, &go);
}

/* ------------------------------------------------------------------ gather-const-to-slices */

/* x[2,5,3] gathered on axis 1 at {4, 0, 1, 2, 2}: pieces (4), (0..2), (2). */
LG_TEST(fix_gather_runs_become_slices) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 5, 3));
    int idx = lg_b_const_i32(&b, "idx", LG_DIMS(5), (const int32_t[]){4, 0, 1, 2, 2});
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2, 5, 3));
    gather_op(&b, LG_OP_GATHER, x, idx, y, 1);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "gather-const-indices"), 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "gather-const-to-slices", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "gather-const-to-slices"));
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "gather-const-indices"), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
    /* batch 2: sliced as [1,2,5,3] (a RESHAPE there and back), 3 pieces joined */
    CHECK_EQ_INT(fixt_count(o, LG_OP_SLICE), 3);
    CHECK_EQ_INT(fixt_count(o, LG_OP_CONCATENATION), 1);
    CHECK_EQ_INT(fixt_count(o, LG_OP_RESHAPE), 2);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 6);
    float in[30], out[30];
    fixt_iota(in, 30);
    const void *ins[1] = {in};
    /* y[b][k][c] = x[b][idx[k]][c] = 15b + 3 idx[k] + c */
    const int id[5] = {4, 0, 1, 2, 2};
    if (fixti_eval(o, ins, 0, out, 30))
        for (int bb = 0; bb < 2; bb++)
            for (int k = 0; k < 5; k++)
                for (int c = 0; c < 3; c++) CHECK_EQ_INT(out[bb * 15 + k * 3 + c], 15 * bb + 3 * id[k] + c);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* x[4,6]: every second column {0, 2, 4} (one STRIDED_SLICE) and a scalar index 5 (a SLICE,
   the dim dropped by RESHAPE; op-params: indices must be 1-D). Rank 2 is sliced as
   [1,4,6,1]. */
LG_TEST(fix_gather_strided_and_scalar) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(4, 6));
    int i1 = lg_b_const_i32(&b, "even", LG_DIMS(3), (const int32_t[]){0, 2, 4});
    int i2 = lg_b_const_i32(&b, "five", LG_SCALAR, (const int32_t[]){5});
    int y1 = lg_b_tensor(&b, "y1", LG_FLOAT32, LG_DIMS(4, 3));
    int y2 = lg_b_tensor(&b, "y2", LG_FLOAT32, LG_DIMS(4));
    gather_op(&b, LG_OP_GATHER, x, i1, y1, 1);
    gather_op(&b, LG_OP_GATHER, x, i2, y2, -1);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y1, y2));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "gather-const-indices"), 1);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "op-params"), 1);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_CLASSIC, "op-params"), 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "gather-const-to-slices", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "gather-const-to-slices"));
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "gather-const-indices"), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_GATHER), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_STRIDED_SLICE), 1);
    CHECK_EQ_INT(fixt_count(o, LG_OP_SLICE), 1);
    /* one RESHAPE to the slicing view per gather, one back to each output */
    CHECK_EQ_INT(fixt_count(o, LG_OP_RESHAPE), 4);
    float in[24], out[12];
    fixt_iota(in, 24);
    const void *ins[1] = {in};
    if (fixti_eval(o, ins, 0, out, 12)) /* y1[r][k] = x[r][2k] = 6r + 2k */
        for (int r = 0; r < 4; r++)
            for (int k = 0; k < 3; k++) CHECK_EQ_INT(out[r * 3 + k], 6 * r + 2 * k);
    if (fixti_eval(o, ins, 1, out, 4)) /* y2[r] = x[r][5] = 6r + 5 */
        for (int r = 0; r < 4; r++) CHECK_EQ_INT(out[r], 6 * r + 5);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* GATHER_ND of x[3,4,2] at (0,1), (0,2), (2,3): linear positions 1, 2, 11 over the merged
   [12] dims: pieces (1..2) and (11); output [3,2]. */
LG_TEST(fix_gather_nd_const) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(3, 4, 2));
    int idx = lg_b_const_i32(&b, "idx", LG_DIMS(3, 2), (const int32_t[]){0, 1, 0, 2, 2, 3});
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(3, 2));
    gather_op(&b, LG_OP_GATHER_ND, x, idx, y, 0);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "op-unsupported"), 1);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_CLASSIC, "op-unsupported"), 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "gather-const-to-slices", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "gather-const-to-slices"));
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_GATHER_ND), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_SLICE), 2);
    float in[24], out[6];
    fixt_iota(in, 24);
    const void *ins[1] = {in};
    /* y[s][c] = x[i][j][c] = 8i + 2j + c */
    const float want[6] = {2, 3, 4, 5, 22, 23};
    if (fixti_eval(o, ins, 0, out, 6))
        for (int k = 0; k < 6; k++) CHECK_EQ_INT(out[k], want[k]);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* Near-misses: a single 1-D INT32 index (the GPU takes it), runtime indices (an embedding
   lookup), and an index out of range (TFLite fails the op: refused with a note). */
LG_TEST(fix_gather_near_misses) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 5, 3));
    int one = lg_b_const_i32(&b, "one", LG_DIMS(1), (const int32_t[]){3});
    int bad = lg_b_const_i32(&b, "bad", LG_DIMS(2), (const int32_t[]){1, 5});
    int ids = lg_b_tensor(&b, "ids", LG_INT32, LG_DIMS(2));
    int y1 = lg_b_tensor(&b, "y1", LG_FLOAT32, LG_DIMS(2, 1, 3));
    int y2 = lg_b_tensor(&b, "y2", LG_FLOAT32, LG_DIMS(2, 2, 3));
    int y3 = lg_b_tensor(&b, "y3", LG_FLOAT32, LG_DIMS(2, 2, 3));
    gather_op(&b, LG_OP_GATHER, x, one, y1, 1);
    gather_op(&b, LG_OP_GATHER, x, ids, y2, 1);
    gather_op(&b, LG_OP_GATHER, x, bad, y3, 1);
    lg_b_io(&b, LG_IDS(x, ids), LG_IDS(y1, y2, y3));
    CHECK_EQ_INT(b.status, LG_OK);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "gather-const-to-slices", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_same_ops(o, m));
    const lg_pass_result *r = fixt_result(rep, "gather-const-to-slices");
    CHECK(r && r->delta.applied == 0 && r->delta.skipped == 1 && strstr(r->delta.note, "out of range"));
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ select-const-condition */

/* SELECT_V2(all true, RELU(x), y) is RELU(x) (the RELU writes the output); SELECT_V2(all
   false, x, v[3]) is v broadcast to [2,3] (RESHAPE + TILE). */
LG_TEST(fix_select_const_condition) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2, 3));
    int v = lg_b_tensor(&b, "v", LG_FLOAT32, LG_DIMS(3));
    const uint8_t t6[6] = {1, 1, 1, 1, 1, 1}, f6[6] = {0};
    int ct = lg_b_const(&b, "true", LG_BOOL, LG_DIMS(2, 3), t6, 6);
    int cf = lg_b_const(&b, "false", LG_BOOL, LG_DIMS(2, 3), f6, 6);
    int r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(2, 3));
    int o1 = lg_b_tensor(&b, "o1", LG_FLOAT32, LG_DIMS(2, 3));
    int o2 = lg_b_tensor(&b, "o2", LG_FLOAT32, LG_DIMS(2, 3));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op(&b, LG_OP_SELECT_V2, LG_IDS(ct, r, y), LG_IDS(o1));
    lg_b_op(&b, LG_OP_SELECT_V2, LG_IDS(cf, x, v), LG_IDS(o2));
    lg_b_io(&b, LG_IDS(x, y, v), LG_IDS(o1, o2));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "field-banned-op"), 2);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_CLASSIC, "field-banned-op"), 2);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "select-const-condition", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "select-const-condition"));
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "field-banned-op"), 0);
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_CLASSIC, "field-banned-op"), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_SELECT_V2), 0);
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 3); /* RELU; RESHAPE + TILE */
    CHECK_EQ_INT(fixt_count(o, LG_OP_TILE), 1);
    const float xin[6] = {-1, 2, -3, 4, 5, -6}, yin[6] = {9, 9, 9, 9, 9, 9}, vin[3] = {7, 8, 9};
    const void *ins[3] = {xin, yin, vin};
    float out[6];
    const float w1[6] = {0, 2, 0, 4, 5, 0}, w2[6] = {7, 8, 9, 7, 8, 9};
    if (fixti_eval(o, ins, 0, out, 6))
        for (int k = 0; k < 6; k++) CHECK_EQ_INT(out[k], w1[k]);
    if (fixti_eval(o, ins, 1, out, 6))
        for (int k = 0; k < 6; k++) CHECK_EQ_INT(out[k], w2[k]);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* Near-misses: a mixed constant condition (the masked form is not exact for inf/NaN) and a
   runtime condition. */
LG_TEST(fix_select_near_misses) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2, 3));
    int cr = lg_b_tensor(&b, "c", LG_BOOL, LG_DIMS(2, 3));
    const uint8_t mix[6] = {1, 0, 1, 1, 1, 1};
    int cm = lg_b_const(&b, "mixed", LG_BOOL, LG_DIMS(2, 3), mix, 6);
    int o1 = lg_b_tensor(&b, "o1", LG_FLOAT32, LG_DIMS(2, 3));
    int o2 = lg_b_tensor(&b, "o2", LG_FLOAT32, LG_DIMS(2, 3));
    lg_b_op(&b, LG_OP_SELECT_V2, LG_IDS(cm, x, y), LG_IDS(o1));
    lg_b_op(&b, LG_OP_SELECT_V2, LG_IDS(cr, x, y), LG_IDS(o2));
    lg_b_io(&b, LG_IDS(x, y, cr), LG_IDS(o1, o2));
    CHECK_EQ_INT(b.status, LG_OK);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "select-const-condition", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_same_ops(o, m));
    const lg_pass_result *r = fixt_result(rep, "select-const-condition");
    CHECK(r && r->delta.applied == 0 && strstr(r->delta.note, "mixed"));
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ elu-select-free */

static int zero_scalar(lg_builder *b, const char *name, float v) {
    return lg_b_const_f32(b, name, LG_SCALAR, (const float[]){v});
}

/* litert-torch's nn.ELU(alpha 1.5): SELECT_V2(x > 0, x, 1.5 * (EXP(x) - 1)). With
   mirrored = true the importer's form: SELECT_V2(x < 0, ELU(x) * 1.5, x). */
static lg_model *elu_model(bool importer_form, float threshold) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 4));
    int zero = zero_scalar(&b, "zero", threshold), alpha = zero_scalar(&b, "alpha", 1.5f);
    int cond = lg_b_tensor(&b, "cond", LG_BOOL, LG_DIMS(2, 4));
    int n = lg_b_tensor(&b, "neg", LG_FLOAT32, LG_DIMS(2, 4)), y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2, 4));
    if (importer_form) {
        int e = lg_b_tensor(&b, "elu", LG_FLOAT32, LG_DIMS(2, 4));
        lg_b_op(&b, LG_OP_LESS, LG_IDS(x, zero), LG_IDS(cond));
        lg_b_op(&b, LG_OP_ELU, LG_IDS(x), LG_IDS(e));
        lg_b_op(&b, LG_OP_MUL, LG_IDS(e, alpha), LG_IDS(n));
        lg_b_op(&b, LG_OP_SELECT_V2, LG_IDS(cond, n, x), LG_IDS(y));
    } else {
        int one = zero_scalar(&b, "one", 1.0f);
        int e = lg_b_tensor(&b, "exp", LG_FLOAT32, LG_DIMS(2, 4)), d = lg_b_tensor(&b, "d", LG_FLOAT32, LG_DIMS(2, 4));
        lg_b_op(&b, LG_OP_GREATER, LG_IDS(x, zero), LG_IDS(cond));
        lg_b_op(&b, LG_OP_EXP, LG_IDS(x), LG_IDS(e));
        lg_b_op(&b, LG_OP_SUB, LG_IDS(e, one), LG_IDS(d));
        lg_b_op(&b, LG_OP_MUL, LG_IDS(alpha, d), LG_IDS(n));
        lg_b_op(&b, LG_OP_SELECT_V2, LG_IDS(cond, x, n), LG_IDS(y));
    }
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

static void check_elu(bool importer_form) {
    lg_model *m = elu_model(importer_form, 0.0f);
    /* the comparison and the select: field-banned on Mali; the classic delegate also refuses
       2-D runtime select values */
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "field-banned-op"), 2);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_CLASSIC, "field-banned-op"), 2);
    CHECK(fixt_findings(m, LG_TARGET_CLASSIC, "op-params") >= 1);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "elu-select-free", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "elu-select-free"));
    const lg_pass_result *r = fixt_result(rep, "elu-select-free");
    CHECK(r && r->max_abs == 0); /* bit for bit (derivation in fix_index.c) */
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "field-banned-op"), 0);
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_CLASSIC, "field-banned-op"), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_SELECT_V2) + fixt_count(o, LG_OP_GREATER) + fixt_count(o, LG_OP_LESS), 0);
    /* EXP form: RELU, MINIMUM, EXP, SUB, RELU, MUL, SUB; ELU form: ELU, MINIMUM, MUL, RELU, ADD */
    CHECK_EQ_INT(o->subgraphs[0].n_ops, importer_form ? 5 : 7);
    const float x[8] = {-2, -1, -0.5f, 0, 0.25f, 1, 3, -30};
    const void *ins[1] = {x};
    float out[8];
    if (fixti_eval(o, ins, 0, out, 8))
        for (int k = 0; k < 8; k++) {
            double want = x[k] > 0 ? x[k] : 1.5 * expm1((double)x[k]);
            CHECK_NEAR(out[k], want, 1e-6);
        }
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

LG_TEST(fix_elu_exp_form) { check_elu(false); }
LG_TEST(fix_elu_importer_form) { check_elu(true); }

/* Near-miss: the comparison is against 0.5, not 0 (not an ELU). */
LG_TEST(fix_elu_near_miss_threshold) {
    lg_model *m = elu_model(false, 0.5f);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "elu-select-free", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_same_ops(o, m));
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ squeeze-to-reshape */

static lg_model *squeeze_model(bool with_squeeze) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4, 1, 3));
    int s = lg_b_tensor(&b, "s", LG_FLOAT32, LG_DIMS(4, 3)), r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(4, 3));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4, 3));
    if (with_squeeze) {
        lg_squeeze_options so;
        lg_opts_init(LG_OPTS_SQUEEZE_OPTIONS, &so, sizeof so);
        lg_b_op_opts(&b, LG_OP_SQUEEZE, LG_IDS(x), LG_IDS(s), LG_OPTS_SQUEEZE_OPTIONS, &so);
        lg_b_op(&b, LG_OP_RELU, LG_IDS(s), LG_IDS(r));
        int ax = lg_b_const_i32(&b, "axis", LG_SCALAR, (const int32_t[]){0});
        lg_b_op(&b, LG_OP_EXPAND_DIMS, LG_IDS(r, ax), LG_IDS(y));
    } else {
        int s1 = lg_b_const_i32(&b, "s1", LG_DIMS(2), (const int32_t[]){4, 3});
        int s2 = lg_b_const_i32(&b, "s2", LG_DIMS(3), (const int32_t[]){1, 4, 3});
        lg_b_op(&b, LG_OP_RESHAPE, LG_IDS(x, s1), LG_IDS(s));
        lg_b_op(&b, LG_OP_RELU, LG_IDS(s), LG_IDS(r));
        lg_b_op(&b, LG_OP_RESHAPE, LG_IDS(r, s2), LG_IDS(y));
    }
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(fix_squeeze_expand_to_reshape) {
    lg_model *m = squeeze_model(true);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "op-unsupported"), 2);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_CLASSIC, "op-unsupported"), 2);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "squeeze-to-reshape", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "squeeze-to-reshape"));
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "op-unsupported"), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
    lg_model *want = squeeze_model(false);
    CHECK(fixt_same_ops(o, want));
    const lg_pass_result *r = fixt_result(rep, "squeeze-to-reshape");
    CHECK(r && r->max_abs == 0);
    lg_model_free(want);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

LG_TEST(fix_squeeze_near_miss_reshape) {
    lg_model *m = squeeze_model(false);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "squeeze-to-reshape", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_same_ops(o, m));
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ pack-unpack-split */

/* PACK(a, b, k[2,3]) on axis 1 -> [2,3,3]; SPLIT of z[2,6] on axis 1 into 3; SPLIT_V of
   w[1,2,2,6] on axis 3 into sizes 1 and 5. */
LG_TEST(fix_pack_and_split) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(2, 3)), c2 = lg_b_tensor(&b, "b", LG_FLOAT32, LG_DIMS(2, 3));
    int k = lg_b_const_f32(&b, "k", LG_DIMS(2, 3), (const float[]){100, 101, 102, 103, 104, 105});
    int p = lg_b_tensor(&b, "p", LG_FLOAT32, LG_DIMS(2, 3, 3));
    lg_pack_options po = {3, 1};
    lg_b_op_opts(&b, LG_OP_PACK, LG_IDS(a, c2, k), LG_IDS(p), LG_OPTS_PACK_OPTIONS, &po);
    int z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(2, 6));
    int ax = lg_b_const_i32(&b, "axis", LG_SCALAR, (const int32_t[]){1});
    int s0 = lg_b_tensor(&b, "s0", LG_FLOAT32, LG_DIMS(2, 2)), s1 = lg_b_tensor(&b, "s1", LG_FLOAT32, LG_DIMS(2, 2));
    int s2 = lg_b_tensor(&b, "s2", LG_FLOAT32, LG_DIMS(2, 2));
    lg_split_options so = {3};
    lg_b_op_opts(&b, LG_OP_SPLIT, LG_IDS(ax, z), LG_IDS(s0, s1, s2), LG_OPTS_SPLIT_OPTIONS, &so);
    int w = lg_b_tensor(&b, "w", LG_FLOAT32, LG_DIMS(1, 2, 2, 6));
    int sizes = lg_b_const_i32(&b, "sizes", LG_DIMS(2), (const int32_t[]){1, 5});
    int ax3 = lg_b_const_i32(&b, "axis3", LG_SCALAR, (const int32_t[]){-1});
    int v0 = lg_b_tensor(&b, "v0", LG_FLOAT32, LG_DIMS(1, 2, 2, 1)), v1 = lg_b_tensor(&b, "v1", LG_FLOAT32, LG_DIMS(1, 2, 2, 5));
    lg_split_v_options svo = {2};
    lg_b_op_opts(&b, LG_OP_SPLIT_V, LG_IDS(w, sizes, ax3), LG_IDS(v0, v1), LG_OPTS_SPLIT_V_OPTIONS, &svo);
    lg_b_io(&b, LG_IDS(a, c2, z, w), LG_IDS(p, s0, s1, s2, v0, v1));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "field-banned-op"), 3);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_CLASSIC, "field-banned-op"), 3);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "pack-unpack-split", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "pack-unpack-split"));
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "field-banned-op"), 0);
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_CLASSIC, "field-banned-op"), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_PACK) + fixt_count(o, LG_OP_SPLIT) + fixt_count(o, LG_OP_SPLIT_V), 0);
    /* PACK: 2 RESHAPEs of the runtime inputs (the constant is reshaped in place) + CONCAT;
       SPLIT of rank 2: a RESHAPE to [1,2,6,1], 3 SLICEs, 3 RESHAPEs; SPLIT_V of rank 4: 2 SLICEs */
    CHECK_EQ_INT(fixt_count(o, LG_OP_CONCATENATION), 1);
    CHECK_EQ_INT(fixt_count(o, LG_OP_RESHAPE), 2 + 1 + 3);
    CHECK_EQ_INT(fixt_count(o, LG_OP_SLICE), 3 + 2);
    float ai[6], bi[6], zi[12], wi[24], out[20];
    for (int q = 0; q < 6; q++) { ai[q] = (float)q; bi[q] = 10.0f + (float)q; }
    fixt_iota(zi, 12);
    fixt_iota(wi, 24);
    const void *ins[4] = {ai, bi, zi, wi};
    if (fixti_eval(o, ins, 0, out, 18)) /* p[i][k][j] = input k at [i][j] */
        for (int i = 0; i < 2; i++)
            for (int kk = 0; kk < 3; kk++)
                for (int j = 0; j < 3; j++) CHECK_EQ_INT(out[i * 9 + kk * 3 + j], 3 * i + j + (kk == 0 ? 0 : kk == 1 ? 10 : 100));
    if (fixti_eval(o, ins, 2, out, 4)) { /* s1 = z[:, 2:4] */
        const float want[4] = {2, 3, 8, 9};
        for (int q = 0; q < 4; q++) CHECK_EQ_INT(out[q], want[q]);
    }
    if (fixti_eval(o, ins, 5, out, 20)) /* v1 = w[..., 1:6]: position r*6 + 1 + j */
        for (int r = 0; r < 4; r++)
            for (int j = 0; j < 5; j++) CHECK_EQ_INT(out[r * 5 + j], r * 6 + 1 + j);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* Near-miss: UNPACK, which both delegates parse and no rule names. */
LG_TEST(fix_pack_near_miss_unpack) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int u0 = lg_b_tensor(&b, "u0", LG_FLOAT32, LG_DIMS(3)), u1 = lg_b_tensor(&b, "u1", LG_FLOAT32, LG_DIMS(3));
    lg_unpack_options uo = {2, 0};
    lg_b_op_opts(&b, LG_OP_UNPACK, LG_IDS(x), LG_IDS(u0, u1), LG_OPTS_UNPACK_OPTIONS, &uo);
    lg_b_io(&b, LG_IDS(x), LG_IDS(u0, u1));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(fixt_blockers(m, LG_TARGET_MLDRIFT) + fixt_blockers(m, LG_TARGET_CLASSIC), 0);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "field-banned-op"), 0);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "pack-unpack-split", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_same_ops(o, m));
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ broadcast-to-tile */

/* ADD(BROADCAST_TO(x[1,3], [2,4,3]), z[2,4,3]): the ADD broadcasts x itself (x reshaped to
   [1,1,3]); BROADCAST_TO(x, [2,3]) as a graph output: TILE by [2,1]. */
LG_TEST(fix_broadcast_to) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 3));
    int z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(2, 4, 3));
    int sh1 = lg_b_const_i32(&b, "shape1", LG_DIMS(3), (const int32_t[]){2, 4, 3});
    int sh2 = lg_b_const_i32(&b, "shape2", LG_DIMS(2), (const int32_t[]){2, 3});
    int y1 = lg_b_tensor(&b, "y1", LG_FLOAT32, LG_DIMS(2, 4, 3)), s = lg_b_tensor(&b, "s", LG_FLOAT32, LG_DIMS(2, 4, 3));
    int y2 = lg_b_tensor(&b, "y2", LG_FLOAT32, LG_DIMS(2, 3));
    lg_b_op(&b, LG_OP_BROADCAST_TO, LG_IDS(x, sh1), LG_IDS(y1));
    lg_add_options ao;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(y1, z), LG_IDS(s), LG_OPTS_ADD_OPTIONS, &ao);
    lg_b_op(&b, LG_OP_BROADCAST_TO, LG_IDS(x, sh2), LG_IDS(y2));
    lg_b_io(&b, LG_IDS(x, z), LG_IDS(s, y2));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_MLDRIFT, "op-unsupported"), 2);
    CHECK_EQ_INT(fixt_findings(m, LG_TARGET_CLASSIC, "op-unsupported"), 2);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "broadcast-to-tile", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_proved(rep, "broadcast-to-tile"));
    CHECK_EQ_INT(fixt_findings(o, LG_TARGET_MLDRIFT, "op-unsupported"), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(fixt_blockers(o, LG_TARGET_CLASSIC), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_BROADCAST_TO), 0);
    CHECK_EQ_INT(fixt_count(o, LG_OP_TILE), 1);
    CHECK_EQ_INT(fixt_count(o, LG_OP_RESHAPE), 1); /* x to [1,1,3] for the ADD */
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 3);
    const float xi[3] = {1, 2, 3};
    float zi[24], out[24];
    fixt_iota(zi, 24);
    const void *ins[2] = {xi, zi};
    if (fixti_eval(o, ins, 0, out, 24)) /* s[i][j][c] = x[c] + z[i][j][c] */
        for (int q = 0; q < 24; q++) CHECK_EQ_INT(out[q], q + xi[q % 3]);
    if (fixti_eval(o, ins, 1, out, 6))
        for (int q = 0; q < 6; q++) CHECK_EQ_INT(out[q], xi[q % 3]);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* Near-miss: an op the delegates take (TILE) is not touched. */
LG_TEST(fix_broadcast_near_miss_tile) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 3));
    int mt = lg_b_const_i32(&b, "mult", LG_DIMS(2), (const int32_t[]){2, 1});
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2, 3));
    lg_b_op(&b, LG_OP_TILE, LG_IDS(x, mt), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    lg_pass_report *rep = NULL;
    lg_model *o = fixti_run(m, "broadcast-to-tile", &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(fixt_same_ops(o, m));
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ the registry */

/* Every fix pass of fix_index.c, fix_pack.c, fix_misc.c and fix_int64.c is registered and
   names rules of rules.def; only layerscale-into-fc is approximate. */
LG_TEST(fix_passes_registered) {
    static const char *const names[] = {"gather-const-to-slices", "squeeze-to-reshape", "pack-unpack-split",
                                        "broadcast-to-tile", "select-const-condition", "elu-select-free",
                                        "softmax-beta", "log-softmax", "relu-0-to-1", "int64-to-int32",
                                        "densify-const", "layerscale-into-fc", "fc-output-reshape"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const lg_pass *p = lg_pass_find(names[i]);
        CHECK(p != NULL);
        if (!p) continue;
        CHECK(p->removes[0] != NULL);
        for (int k = 0; k < 4 && p->removes[k]; k++) CHECK(lg_rule_find(p->removes[k]) != NULL);
        CHECK(p->exact == (strcmp(names[i], "layerscale-into-fc") != 0));
    }
}
