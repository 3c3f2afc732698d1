/* The fix loop (lg_fix): a blocker a pass removes is removed and reported with its site and
   parity; a ready model is returned unchanged; a blocker no pass removes is left with why;
   the output is byte-deterministic; every blocker rule has a "why" text. */
#include <math.h>
#include <stdlib.h>

#include "lg/check.h"
#include "lg/fix.h"
#include "lg/lg.h"
#include "lg/passes.h"
#include "lg/run.h"
#include "fixt.h"
#include "tf.h"


/* y = x + MEAN(c, axis 2) with c constant: the MEAN has only constant inputs
   (const-only-inputs, a blocker on Mali and WebGPU); with custom, y also goes through an
   unknown custom op (custom-op-unsupported, which no rewrite can remove). */
static lg_model *const_mean_model(bool custom, bool runtime_z) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    const float cv[12] = {1, 2, 3, 4, 5, 6, -3, 0, 3, 10, 20, 30};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int z = runtime_z ? lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(1, 4, 3))
                      : lg_b_const_f32(&b, "c", LG_DIMS(1, 4, 3), cv);
    int ax = lg_b_const_i32(&b, "axis", LG_DIMS(1), (const int32_t[]){2});
    int mean = lg_b_tensor(&b, "mean", LG_FLOAT32, LG_DIMS(1, 4));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_reducer_options ro;
    lg_opts_init(LG_OPTS_REDUCER_OPTIONS, &ro, sizeof ro);
    lg_b_op_opts(&b, LG_OP_MEAN, LG_IDS(z, ax), LG_IDS(mean), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_add_options ao;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    int out = y;
    if (custom) out = lg_b_tensor(&b, "sum", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(x, mean), LG_IDS(out), LG_OPTS_ADD_OPTIONS, &ao);
    if (custom) lg_b_custom(&b, "MyOp", LG_IDS(out), LG_IDS(y), NULL, 0);
    if (runtime_z) lg_b_io(&b, LG_IDS(x, z), LG_IDS(y));
    else lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

static lg_model *fix(const lg_model *m, lg_gpu gpu, lg_fix_report **rep) {
    lg_fix_options o;
    memset(&o, 0, sizeof o);
    o.gpu = gpu;
    lg_model *out = NULL;
    lg_error err;
    if (lg_fix(m, &o, &out, rep, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "lg_fix: %s", err.msg);
        return NULL;
    }
    return out;
}

LG_TEST(fix_removes_a_blocker_and_reports_the_site) {
    lg_model *m = const_mean_model(false, false);
    lg_fix_report *rep = NULL;
    lg_model *o = fix(m, LG_GPU_MALI, &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(!rep->ready_before && rep->ready_after);
    /* const-only-inputs and input-count (0 runtime inputs), both at the MEAN */
    CHECK_EQ_INT(rep->blockers_before, 2);
    CHECK_EQ_INT(rep->blockers_after, 0);
    CHECK_EQ_INT(rep->ops_before, 2);
    CHECK_EQ_INT(rep->ops_after, 1);
    CHECK_EQ_INT(rep->n_left, 0);
    CHECK(rep->n_steps >= 1);
    CHECK(strcmp(rep->steps[0].result.pass, "fold-constants") == 0);
    CHECK(rep->steps[0].rules[0] && strcmp(rep->steps[0].rules[0], "const-only-inputs") == 0);
    CHECK(rep->steps[0].rules[1] && strcmp(rep->steps[0].rules[1], "input-count") == 0);
    CHECK_EQ_INT(rep->n_rewrites, 1);
    /* the site is the MEAN (op 0 of the original) with its output "mean" */
    CHECK_EQ_INT(rep->rewrites[0].site.op, 0);
    CHECK_EQ_INT(rep->rewrites[0].site.code, LG_OP_MEAN);
    CHECK(strcmp(rep->rewrites[0].site.tensor, "mean") == 0);
    CHECK(rep->parity_measured && rep->max_rel <= 1e-6 && rep->n_cases == 3);
    CHECK_EQ_INT(lg_op_builtin(o, &o->subgraphs[0].ops[0]), LG_OP_ADD);
    lg_fix_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

LG_TEST(fix_leaves_a_ready_model_unchanged) {
    /* the near-miss: the MEAN reads a graph input, nothing is constant-only */
    lg_model *m = const_mean_model(false, true);
    lg_fix_report *rep = NULL;
    lg_model *o = fix(m, LG_GPU_MALI, &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(rep->ready_before && rep->ready_after);
    CHECK_EQ_INT(rep->n_steps, 0);
    CHECK_EQ_INT(rep->n_rewrites, 0);
    CHECK(!rep->parity_measured);
    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    lg_error err;
    CHECK_OK(lg_tflite_write_mem(m, NULL, &a, &na, &err), &err);
    CHECK_OK(lg_tflite_write_mem(o, NULL, &b, &nb, &err), &err);
    CHECK(na == nb && a && b && memcmp(a, b, na) == 0);
    free(a);
    free(b);
    lg_fix_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

LG_TEST(fix_leaves_what_no_rewrite_removes_with_why) {
    lg_model *m = const_mean_model(true, false);
    lg_fix_report *rep = NULL;
    lg_model *o = fix(m, LG_GPU_MALI, &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK(!rep->ready_after);
    CHECK_EQ_INT(rep->blockers_after, 1);
    CHECK_EQ_INT(rep->n_left, 1);
    CHECK(strcmp(rep->left[0].rule, "custom-op-unsupported") == 0);
    CHECK(strcmp(rep->left[0].op_name, "MyOp") == 0);
    CHECK(strstr(rep->left[0].why, "custom op") != NULL);
    /* the fold still happened: MEAN gone */
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    /* parity is not measurable (litegpu cannot run MyOp): said, not invented */
    CHECK(!rep->parity_measured && strstr(rep->parity_note, "not measured") != NULL);
    lg_fix_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

LG_TEST(fix_is_deterministic) {
    lg_model *m = const_mean_model(false, false);
    void *bytes[2] = {NULL, NULL};
    size_t n[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        lg_fix_report *rep = NULL;
        lg_model *o = fix(m, LG_GPU_ANY, &rep);
        if (!o) break;
        lg_error err;
        CHECK_OK(lg_tflite_write_mem(o, NULL, &bytes[k], &n[k], &err), &err);
        lg_fix_report_free(rep);
        lg_model_free(o);
    }
    CHECK(n[0] == n[1] && bytes[0] && bytes[1] && memcmp(bytes[0], bytes[1], n[0]) == 0);
    free(bytes[0]);
    free(bytes[1]);
    lg_model_free(m);
}

LG_TEST(fix_every_blocker_rule_says_why) {
    uint32_t n = 0;
    const lg_rule_info *rules = lg_rules(&n);
    for (uint32_t i = 0; i < n; i++) {
        if (rules[i].severity != LG_SEV_BLOCKER) continue;
        const char *why = lg_fix_why(rules[i].id);
        if (!why || strlen(why) < 20) tf_fail(__FILE__, __LINE__, "rule %s has no why text", rules[i].id);
    }
    CHECK(lg_fix_why("no-such-rule") == NULL);
}

/* op-version-computed: RELU stored at version 3 (max 2 on both delegates), its features
   (FLOAT32 input) need version 1: the opcode says 1 afterwards, nothing else changes;
   the near-miss (stored 1) is untouched (fix does not run: no blocker). */
static lg_model *relu_v(int32_t version) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op_v(&b, LG_OP_RELU, version, LG_IDS(x), LG_IDS(y), LG_OPTS_NONE, NULL);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(fix_op_version_stored_above_computed) {
    for (int32_t v = 3; v >= 1; v -= 2) {
        lg_model *m = relu_v(v);
        lg_fix_report *rep = NULL;
        lg_model *o = fix(m, LG_GPU_ANY, &rep);
        if (!o) { lg_model_free(m); return; }
        CHECK(rep->ready_after);
        CHECK_EQ_INT(o->opcodes[o->subgraphs[0].ops[0].opcode_index].version, 1);
        CHECK_EQ_INT(rep->n_steps, v == 3 ? 1 : 0);
        if (v == 3 && rep->n_steps) CHECK(strcmp(rep->steps[0].result.pass, "op-version-computed") == 0);
        lg_fix_report_free(rep);
        lg_model_free(o);
        lg_model_free(m);
    }
}

/* The why table and the registry agree: a rule marked covered has a registered pass that
   removes it, and every rule a pass removes is marked covered. */
LG_TEST(fix_why_table_matches_the_registry) {
    uint32_t n = 0;
    const lg_rule_info *rules = lg_rules(&n);
    for (uint32_t i = 0; i < n; i++) {
        const char *id = rules[i].id;
        bool has = false;
        for (uint32_t p = 0; p < lg_pass_count(); p++)
            for (uint32_t k = 0; k < 4 && lg_pass_at(p)->removes[k]; k++) has |= strcmp(lg_pass_at(p)->removes[k], id) == 0;
        if (rules[i].severity != LG_SEV_BLOCKER && !lg_fix_why(id)) continue; /* warnings need no why */
        if (lg_fix_rule_covered(id) != has)
            tf_fail(__FILE__, __LINE__, "rule %s: covered %d in fix_why.c, a pass removes it: %d", id,
                    lg_fix_rule_covered(id), has);
    }
}

/* Run m on float input x (input 0) and int32 input k (input 1, optional); output 0 into y. */
static void run2(const lg_model *m, const float *x, uint64_t nx, const int32_t *k, uint64_t nk, float *y, int64_t ny) {
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_interp *it = NULL;
    lg_error err;
    CHECK_OK(lg_interp_create(m, &ro, &it, &err), &err);
    if (!it) return;
    CHECK_OK(lg_interp_set_input(it, 0, LG_FLOAT32, x, nx * 4, &err), &err);
    if (k) CHECK_OK(lg_interp_set_input(it, 1, LG_INT32, k, nk * 4, &err), &err);
    CHECK_OK(lg_interp_invoke(it, &err), &err);
    lg_tensor_view v;
    lg_interp_output(it, 0, &v);
    CHECK_EQ_INT(v.numel, ny);
    if (v.numel == ny) memcpy(y, v.data, (size_t)ny * 4);
    lg_interp_free(it);
}


/* gather-flatten-indices: an embedding lookup, table x [5, 3] (row r = {10r, 10r+1, 10r+2}),
   ids [2, 2] = {4, 0, 2, 2}: y [2, 2, 3] = rows 4, 0, 2, 2. The near-miss (1-D ids) is left. */
LG_TEST(fix_gather_flatten_indices) {
    for (int flat = 0; flat < 2; flat++) {
        lg_builder b;
        lg_model *m = fixt_new(&b);
        int x = lg_b_tensor(&b, "table", LG_FLOAT32, LG_DIMS(5, 3));
        int k = flat ? lg_b_tensor(&b, "ids", LG_INT32, LG_DIMS(4)) : lg_b_tensor(&b, "ids", LG_INT32, LG_DIMS(2, 2));
        int y = flat ? lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(4, 3)) : lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2, 2, 3));
        lg_gather_options go = {0, 0};
        lg_b_op_opts(&b, LG_OP_GATHER, LG_IDS(x, k), LG_IDS(y), LG_OPTS_GATHER_OPTIONS, &go);
        lg_b_io(&b, LG_IDS(x, k), LG_IDS(y));
        CHECK_EQ_INT(b.status, LG_OK);
        CHECK(fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_ANY, "op-params") == !flat);
        lg_fix_report *rep = NULL;
        lg_model *o = fix(m, LG_GPU_ANY, &rep);
        if (!o) { lg_model_free(m); return; }
        CHECK(!fixt_has(o, LG_TARGET_MLDRIFT, LG_GPU_ANY, "op-params"));
        CHECK_EQ_INT(o->subgraphs[0].n_ops, flat ? 1 : 3);
        float table[15], got[12];
        for (int i = 0; i < 15; i++) table[i] = (float)(10 * (i / 3) + i % 3);
        const int32_t ids[4] = {4, 0, 2, 2};
        run2(o, table, 15, ids, 4, got, 12);
        const float want[12] = {40, 41, 42, 0, 1, 2, 20, 21, 22, 20, 21, 22};
        for (int i = 0; i < 12; i++) CHECK_NEAR(got[i], want[i], 0);
        lg_fix_report_free(rep);
        lg_model_free(o);
        lg_model_free(m);
    }
}

/* padv2-const-border: x [1,2,2,1] = {1,2,3,4} padded one row on top and one column on the right
   with 1.5: y [1,3,3,1] = {1.5,1.5,1.5, 1,2,1.5, 3,4,1.5}; -inf too; value 0 is the near-miss
   (no padv2-nonzero finding, unchanged). */
LG_TEST(fix_padv2_const_border) {
    const float vals[3] = {1.5f, -INFINITY, 0.0f};
    for (int k = 0; k < 3; k++) {
        lg_builder b;
        lg_model *m = fixt_new(&b);
        int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 1));
        int p = lg_b_const_i32(&b, "pads", LG_DIMS(4, 2), (const int32_t[]){0, 0, 1, 0, 0, 1, 0, 0});
        int v = lg_b_const_f32(&b, "value", LG_DIMS(1), &vals[k]);
        int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 3, 3, 1));
        lg_b_op(&b, LG_OP_PADV2, LG_IDS(x, p, v), LG_IDS(y));
        lg_b_io(&b, LG_IDS(x), LG_IDS(y));
        CHECK_EQ_INT(b.status, LG_OK);
        CHECK(fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_MALI, "padv2-nonzero") == (k < 2));
        lg_fix_report *rep = NULL;
        lg_model *o = fix(m, LG_GPU_MALI, &rep);
        if (!o) { lg_model_free(m); return; }
        CHECK(rep->ready_after);
        CHECK_EQ_INT(o->subgraphs[0].n_ops, k < 2 ? 2 : 1);
        float got[9];
        run2(o, (const float[]){1, 2, 3, 4}, 4, NULL, 0, got, 9);
        float c = vals[k];
        const float want[9] = {c, c, c, 1, 2, c, 3, 4, c};
        for (int i = 0; i < 9; i++) CHECK(got[i] == want[i]);
        lg_fix_report_free(rep);
        lg_model_free(o);
        lg_model_free(m);
    }
}

/* --freeze: y = RESHAPE(RELU(x), shape) with shape a graph input (dynamic-tensor): frozen to
   {1, 16} the RESHAPE's output is static and the model READY, with x the only input;
   --input-shape: a [?, 4] input fixed to [1, 4] re-infers the RELU's output. */
LG_TEST(fix_freeze_and_input_shape) {
    lg_builder b;
    lg_model *m = fixt_new(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4));
    int s = lg_b_tensor(&b, "shape", LG_INT32, LG_DIMS(2));
    int r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(1, 4, 4));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 16));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_b_op(&b, LG_OP_RESHAPE, LG_IDS(r, s), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x, s), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK(fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_ANY, "dynamic-tensor"));
    const int32_t shape[2] = {1, 16};
    lg_fix_freeze fz = {"shape", LG_INT32, shape, sizeof shape};
    lg_fix_options o;
    memset(&o, 0, sizeof o);
    o.freeze = &fz;
    o.n_freeze = 1;
    lg_model *f = NULL;
    lg_fix_report *rep = NULL;
    lg_error err;
    CHECK_OK(lg_fix(m, &o, &f, &rep, &err), &err);
    if (f) {
        CHECK(rep->ready_after && rep->n_frozen == 1);
        CHECK_EQ_INT(f->subgraphs[0].n_inputs, 1);
        CHECK(!fixt_has(f, LG_TARGET_MLDRIFT, LG_GPU_ANY, "dynamic-tensor"));
    }
    lg_fix_report_free(rep);
    lg_model_free(f);
    /* a wrong size is refused naming both */
    lg_fix_freeze bad = {"shape", LG_INT32, shape, 4};
    o.freeze = &bad;
    CHECK(lg_fix(m, &o, &f, &rep, &err) == LG_ERR_INVALID_ARG && strstr(err.msg, "--freeze shape"));
    lg_model_free(m);

    m = fixt_new(&b);
    x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    lg_error e2;
    CHECK_OK(lg_tensor_set_shape_signature(m, 0, (uint32_t)x, (const int32_t[]){-1, 4}, 2, &e2), &e2);
    CHECK_OK(lg_tensor_set_shape_signature(m, 0, (uint32_t)y, (const int32_t[]){-1, 4}, 2, &e2), &e2);
    CHECK(fixt_has(m, LG_TARGET_MLDRIFT, LG_GPU_ANY, "dynamic-input"));
    const int64_t d[2] = {1, 4};
    lg_fix_shape sh = {"x", d, 2};
    memset(&o, 0, sizeof o);
    o.shapes = &sh;
    o.n_shapes = 1;
    CHECK_OK(lg_fix(m, &o, &f, &rep, &err), &err);
    if (f) {
        CHECK(!fixt_has(f, LG_TARGET_MLDRIFT, LG_GPU_ANY, "dynamic-input"));
        CHECK_EQ_INT(f->subgraphs[0].tensors[f->subgraphs[0].outputs[0]].shape_signature[0], 1);
    }
    lg_fix_report_free(rep);
    lg_model_free(f);
    /* a static dimension cannot be changed */
    const int64_t d2[2] = {1, 5};
    lg_fix_shape sh2 = {"x", d2, 2};
    o.shapes = &sh2;
    CHECK(lg_fix(m, &o, &f, &rep, &err) == LG_ERR_INVALID_ARG && strstr(err.msg, "not dynamic"));
    lg_model_free(m);
}
