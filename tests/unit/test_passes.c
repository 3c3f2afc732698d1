/* The pass framework and the --optimize passes: for each pass a model that triggers it and a
   near-miss that must not; parity is proved by the runner itself (prove = true), and the
   expected graphs and constants are derived by hand. */
#include <stdlib.h>

#include "lg/check.h"
#include "lg/graph.h"
#include "lg/lg.h"
#include "lg/ops.h"
#include "lg/passes.h"
#include "lg/run.h"
#include "tf.h"

static lg_model *new_model(lg_builder *b) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) return NULL;
    lg_builder_init(b, m, 0);
    return m;
}

static lg_pass_run_options proving(void) {
    lg_pass_run_options o;
    memset(&o, 0, sizeof o);
    o.prove = true;
    o.n_random = 2;
    return o;
}

/* Optimize m; returns the new model (or NULL with a failed check). */
static lg_model *optimize(const lg_model *m, lg_pass_report **rep) {
    lg_pass_run_options o = proving();
    lg_model *out = NULL;
    lg_error err;
    lg_status st = lg_optimize(m, &o, &out, rep, &err);
    if (st != LG_OK) {
        tf_fail(__FILE__, __LINE__, "lg_optimize: %s", err.msg);
        return NULL;
    }
    return out;
}

static const lg_pass_result *result_of(const lg_pass_report *r, const char *name) {
    for (uint32_t i = 0; i < r->n_passes; i++)
        if (strcmp(r->passes[i].pass, name) == 0) return &r->passes[i];
    return NULL;
}

static uint32_t applied(const lg_pass_report *r, const char *name) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_passes; i++)
        if (strcmp(r->passes[i].pass, name) == 0) n += r->passes[i].delta.applied;
    return n;
}

static int32_t op_code(const lg_model *m, uint32_t i) {
    return lg_op_builtin(m, &m->subgraphs[0].ops[i]);
}

static bool has_finding(const lg_model *m, lg_target t, const char *rule) {
    lg_check_options co = {t, 0, LG_GPU_ANY};
    lg_check_report *rep = NULL;
    lg_error err;
    if (lg_check_model(m, &co, &rep, &err) != LG_OK) return false;
    bool found = false;
    for (uint32_t i = 0; i < rep->n_findings; i++)
        if (strcmp(rep->findings[i].rule->id, rule) == 0) found = true;
    lg_check_report_free(rep);
    return found;
}

/* ------------------------------------------------------------------ fold-constants */

/* x[1,4] + MEAN(c[1,4,3], axis 2): the MEAN folds, one ADD remains (the case). */
static lg_model *mean_add_model(bool mean_of_input) {
    lg_builder b;
    lg_model *m = new_model(&b);
    const float cv[12] = {1, 2, 3, 4, 5, 6, -3, 0, 3, 10, 20, 30};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int z = mean_of_input ? lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(1, 4, 3))
                          : lg_b_const_f32(&b, "c", LG_DIMS(1, 4, 3), cv);
    int ax = lg_b_const_i32(&b, "axis", LG_DIMS(1), (const int32_t[]){2});
    int mean = lg_b_tensor(&b, "mean", LG_FLOAT32, LG_DIMS(1, 4));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_reducer_options ro;
    lg_opts_init(LG_OPTS_REDUCER_OPTIONS, &ro, sizeof ro);
    lg_b_op_opts(&b, LG_OP_MEAN, LG_IDS(z, ax), LG_IDS(mean), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_add_options ao;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(x, mean), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &ao);
    if (mean_of_input) lg_b_io(&b, LG_IDS(x, z), LG_IDS(y));
    else lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(pass_fold_mean_feeding_add) {
    lg_model *m = mean_add_model(false);
    CHECK(has_finding(m, LG_TARGET_MLDRIFT, "const-only-inputs"));
    lg_pass_report *rep = NULL;
    lg_model *o = optimize(m, &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
    CHECK_EQ_INT(op_code(o, 0), LG_OP_ADD);
    CHECK_EQ_INT(applied(rep, "fold-constants"), 1);
    const lg_pass_result *r = result_of(rep, "fold-constants");
    CHECK(r && r->parity_measured && r->max_rel <= 1e-6 && r->n_cases == 3);
    /* the folded mean: (1+2+3)/3, (4+5+6)/3, (-3+0+3)/3, (10+20+30)/3 */
    const lg_op *add = &o->subgraphs[0].ops[0];
    const lg_tensor *t = &o->subgraphs[0].tensors[add->inputs[1]];
    CHECK(t->buffer != 0 && t->type == LG_FLOAT32);
    const float want[4] = {2, 5, 0, 20};
    const float *got = (const float *)o->buffers[t->buffer].data;
    for (int i = 0; i < 4 && got; i++) CHECK_NEAR(got[i], want[i], 1e-6);
    CHECK(!has_finding(o, LG_TARGET_MLDRIFT, "const-only-inputs"));
    CHECK(!has_finding(o, LG_TARGET_CLASSIC, "const-only-inputs"));
    /* the unused constant input and the axis are compacted away: x, the mean, y */
    CHECK_EQ_INT(o->subgraphs[0].n_tensors, 3);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

LG_TEST(pass_fold_near_miss_runtime_input) {
    lg_model *m = mean_add_model(true);
    lg_pass_report *rep = NULL;
    lg_model *o = optimize(m, &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(applied(rep, "fold-constants"), 0);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* FLOAT16 weights + DEQUANTIZE feeding a FULLY_CONNECTED: never widened. */
LG_TEST(pass_fold_keeps_fp16_weights) {
    lg_builder b;
    lg_model *m = new_model(&b);
    const uint16_t w16[8] = {0x3c00, 0x4000, 0x3c00, 0x4000, 0xbc00, 0x3800, 0x3c00, 0x0000};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int wh = lg_b_const(&b, "w16", LG_FLOAT16, LG_DIMS(2, 4), w16, sizeof w16);
    int w = lg_b_tensor(&b, "w", LG_FLOAT32, LG_DIMS(2, 4));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 2));
    lg_b_op(&b, LG_OP_DEQUANTIZE, LG_IDS(wh), LG_IDS(w));
    lg_fully_connected_options fo;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w, -1), LG_IDS(y),
                 LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    lg_pass_report *rep = NULL;
    lg_model *o = optimize(m, &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(op_code(o, 0), LG_OP_DEQUANTIZE);
    const lg_tensor *t = &o->subgraphs[0].tensors[o->subgraphs[0].ops[0].inputs[0]];
    CHECK_EQ_INT(t->type, LG_FLOAT16);
    CHECK_EQ_INT(o->buffers[t->buffer].size, 16);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* SHAPE of a static tensor folds to its dimensions, and the shape arithmetic after it. */
LG_TEST(pass_fold_shape_of_static_tensor) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 3, 5));
    int s = lg_b_tensor(&b, "s", LG_INT32, LG_DIMS(3));
    int prod = lg_b_tensor(&b, "prod", LG_INT32, LG_DIMS(1));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(30));
    int ax = lg_b_const_i32(&b, "ax", LG_DIMS(1), (const int32_t[]){0});
    lg_shape_options so;
    lg_opts_init(LG_OPTS_SHAPE_OPTIONS, &so, sizeof so);
    lg_b_op_opts(&b, LG_OP_SHAPE, LG_IDS(x), LG_IDS(s), LG_OPTS_SHAPE_OPTIONS, &so);
    lg_reducer_options ro;
    lg_opts_init(LG_OPTS_REDUCER_OPTIONS, &ro, sizeof ro);
    ro.keep_dims = true;
    lg_b_op_opts(&b, LG_OP_REDUCE_PROD, LG_IDS(s, ax), LG_IDS(prod), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_reshape_options rs;
    lg_opts_init(LG_OPTS_RESHAPE_OPTIONS, &rs, sizeof rs);
    lg_b_op_opts(&b, LG_OP_RESHAPE, LG_IDS(x, prod), LG_IDS(y), LG_OPTS_RESHAPE_OPTIONS, &rs);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    lg_pass_report *rep = NULL;
    lg_model *o = optimize(m, &rep);
    if (!o) { lg_model_free(m); return; }
    /* SHAPE -> [2,3,5], REDUCE_PROD -> 30, RESHAPE -> [30]: all folded; one RESHAPE left whose
       shape input is the constant [30] */
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
    CHECK_EQ_INT(op_code(o, 0), LG_OP_RESHAPE);
    const lg_tensor *t = &o->subgraphs[0].tensors[o->subgraphs[0].ops[0].inputs[1]];
    const int32_t *v = (const int32_t *)o->buffers[t->buffer].data;
    CHECK(t->buffer && v && v[0] == 30);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ remove-identities */

typedef enum { ID_RESHAPE, ID_TRANSPOSE, ID_CAST, ID_ADD0, ID_MUL1, ID_SUB0 } id_kind;

/* x[1,2,3,4] -> RELU -> r -> (identity or near-miss) -> t -> RELU6 -> y */
static lg_model *identity_model(id_kind k, bool near_miss) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 3, 4));
    int r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(1, 2, 3, 4));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    int t = -1;
    float zeros[4] = {0, 0, 0, 0}, ones[4] = {1, 1, 1, 1};
    switch (k) {
    case ID_RESHAPE: {
        t = near_miss ? lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 6, 4))
                      : lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 2, 3, 4));
        int s = near_miss ? lg_b_const_i32(&b, "s", LG_DIMS(3), (const int32_t[]){1, 6, 4})
                          : lg_b_const_i32(&b, "s", LG_DIMS(4), (const int32_t[]){1, 2, 3, 4});
        lg_reshape_options ro;
        lg_opts_init(LG_OPTS_RESHAPE_OPTIONS, &ro, sizeof ro);
        lg_b_op_opts(&b, LG_OP_RESHAPE, LG_IDS(r, s), LG_IDS(t), LG_OPTS_RESHAPE_OPTIONS, &ro);
        break;
    }
    case ID_TRANSPOSE: {
        t = near_miss ? lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 3, 2, 4))
                      : lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 2, 3, 4));
        int p = near_miss ? lg_b_const_i32(&b, "p", LG_DIMS(4), (const int32_t[]){0, 2, 1, 3})
                          : lg_b_const_i32(&b, "p", LG_DIMS(4), (const int32_t[]){0, 1, 2, 3});
        lg_b_op(&b, LG_OP_TRANSPOSE, LG_IDS(r, p), LG_IDS(t));
        break;
    }
    case ID_CAST: {
        /* near miss: a cast to INT32 and back is not an identity (it truncates) */
        t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 2, 3, 4));
        lg_cast_options co;
        lg_opts_init(LG_OPTS_CAST_OPTIONS, &co, sizeof co);
        if (near_miss) {
            int i = lg_b_tensor(&b, "i", LG_INT32, LG_DIMS(1, 2, 3, 4));
            lg_b_op_opts(&b, LG_OP_CAST, LG_IDS(r), LG_IDS(i), LG_OPTS_CAST_OPTIONS, &co);
            lg_b_op_opts(&b, LG_OP_CAST, LG_IDS(i), LG_IDS(t), LG_OPTS_CAST_OPTIONS, &co);
        } else {
            lg_b_op_opts(&b, LG_OP_CAST, LG_IDS(r), LG_IDS(t), LG_OPTS_CAST_OPTIONS, &co);
        }
        break;
    }
    case ID_ADD0: case ID_SUB0: {
        t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 2, 3, 4));
        /* near miss: a fused RELU6 makes x + 0 not an identity */
        int z = lg_b_const_f32(&b, "z", LG_DIMS(4), zeros);
        if (k == ID_ADD0) {
            lg_add_options ao;
            lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
            if (near_miss) ao.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU6;
            lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(z, r), LG_IDS(t), LG_OPTS_ADD_OPTIONS, &ao);
        } else {
            /* near miss: 0 - x is not an identity */
            lg_sub_options so;
            lg_opts_init(LG_OPTS_SUB_OPTIONS, &so, sizeof so);
            lg_b_op_opts(&b, LG_OP_SUB, near_miss ? LG_IDS(z, r) : LG_IDS(r, z), LG_IDS(t),
                         LG_OPTS_SUB_OPTIONS, &so);
        }
        break;
    }
    case ID_MUL1: {
        t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1, 2, 3, 4));
        float twos[4] = {1, 1, 2, 1};
        int one = lg_b_const_f32(&b, "one", LG_DIMS(1, 1, 1, 4), near_miss ? twos : ones);
        lg_mul_options mo;
        lg_opts_init(LG_OPTS_MUL_OPTIONS, &mo, sizeof mo);
        lg_b_op_opts(&b, LG_OP_MUL, LG_IDS(r, one), LG_IDS(t), LG_OPTS_MUL_OPTIONS, &mo);
        break;
    }
    }
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, near_miss && (k == ID_RESHAPE) ? LG_DIMS(1, 6, 4)
                                             : near_miss && k == ID_TRANSPOSE ? LG_DIMS(1, 3, 2, 4)
                                                                              : LG_DIMS(1, 2, 3, 4));
    lg_b_op(&b, LG_OP_RELU6, LG_IDS(t), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(pass_remove_identities_each_kind_and_near_miss) {
    const char *names[] = {"reshape", "transpose", "cast", "add0", "mul1", "sub0"};
    for (int k = ID_RESHAPE; k <= ID_SUB0; k++)
        for (int nm = 0; nm < 2; nm++) {
            lg_model *m = identity_model((id_kind)k, nm);
            uint32_t before = m->subgraphs[0].n_ops;
            lg_pass_report *rep = NULL;
            lg_model *o = optimize(m, &rep);
            if (!o) { lg_model_free(m); continue; }
            uint32_t want = nm ? before : before - 1; /* RELU, RELU6 remain */
            if (o->subgraphs[0].n_ops != want)
                tf_fail(__FILE__, __LINE__, "%s%s: %u ops, expected %u", names[k],
                        nm ? " (near miss)" : "", o->subgraphs[0].n_ops, want);
            if (!nm) {
                CHECK_EQ_INT(op_code(o, 0), LG_OP_RELU);
                CHECK_EQ_INT(op_code(o, 1), LG_OP_RELU6);
                /* RELU6 reads RELU's output directly */
                CHECK_EQ_INT(o->subgraphs[0].ops[1].inputs[0], o->subgraphs[0].ops[0].outputs[0]);
            }
            lg_pass_report_free(rep);
            lg_model_free(o);
            lg_model_free(m);
        }
}

/* An identity whose output is the graph output: its producer writes the output tensor, so
   the interface keeps its name. */
LG_TEST(pass_identity_at_graph_output_keeps_interface) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(2, 3));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2, 3));
    int s = lg_b_const_i32(&b, "s", LG_DIMS(2), (const int32_t[]){2, 3});
    lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(r));
    lg_reshape_options ro;
    lg_opts_init(LG_OPTS_RESHAPE_OPTIONS, &ro, sizeof ro);
    lg_b_op_opts(&b, LG_OP_RESHAPE, LG_IDS(r, s), LG_IDS(y), LG_OPTS_RESHAPE_OPTIONS, &ro);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    lg_pass_report *rep = NULL;
    lg_model *o = optimize(m, &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
    const lg_subgraph *sg = &o->subgraphs[0];
    CHECK_STR(sg->tensors[sg->outputs[0]].name, "y");
    CHECK_EQ_INT(sg->ops[0].outputs[0], sg->outputs[0]);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* x -> RESHAPE(same) -> y with x the graph input and y the output: kept (nothing to rewire). */
LG_TEST(pass_identity_between_interface_tensors_is_kept) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2, 3));
    int s = lg_b_const_i32(&b, "s", LG_DIMS(2), (const int32_t[]){2, 3});
    lg_reshape_options ro;
    lg_opts_init(LG_OPTS_RESHAPE_OPTIONS, &ro, sizeof ro);
    lg_b_op_opts(&b, LG_OP_RESHAPE, LG_IDS(x, s), LG_IDS(y), LG_OPTS_RESHAPE_OPTIONS, &ro);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    lg_pass_report *rep = NULL;
    lg_model *o = optimize(m, &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
    const lg_pass_result *r = result_of(rep, "remove-identities");
    CHECK(r && r->delta.skipped >= 1);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ merge-reshapes */

static lg_model *reshape_chain(bool middle_used) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 3, 4));
    int a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(6, 4));
    int c = lg_b_tensor(&b, "c", LG_FLOAT32, LG_DIMS(24));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(24));
    int s1 = lg_b_const_i32(&b, "s1", LG_DIMS(2), (const int32_t[]){6, 4});
    int s2 = lg_b_const_i32(&b, "s2", LG_DIMS(1), (const int32_t[]){24});
    lg_reshape_options ro;
    lg_opts_init(LG_OPTS_RESHAPE_OPTIONS, &ro, sizeof ro);
    lg_b_op_opts(&b, LG_OP_RESHAPE, LG_IDS(x, s1), LG_IDS(a), LG_OPTS_RESHAPE_OPTIONS, &ro);
    lg_b_op_opts(&b, LG_OP_RESHAPE, LG_IDS(a, s2), LG_IDS(c), LG_OPTS_RESHAPE_OPTIONS, &ro);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(c), LG_IDS(y));
    if (middle_used) {
        int z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(6, 4));
        lg_b_op(&b, LG_OP_TANH, LG_IDS(a), LG_IDS(z));
        lg_b_io(&b, LG_IDS(x), LG_IDS(y, z));
    } else {
        lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    }
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(pass_merge_reshapes) {
    lg_model *m = reshape_chain(false);
    lg_pass_report *rep = NULL;
    lg_model *o = optimize(m, &rep);
    if (!o) { lg_model_free(m); return; }
    /* RESHAPE(x, [24]) -> RELU: the first reshape died */
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(op_code(o, 0), LG_OP_RESHAPE);
    CHECK_EQ_INT(o->subgraphs[0].ops[0].inputs[0], o->subgraphs[0].inputs[0]);
    CHECK_EQ_INT(applied(rep, "merge-reshapes"), 1);
    CHECK_EQ_INT(applied(rep, "remove-dead"), 1);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
    /* near miss: the middle tensor has another reader, so the first reshape stays; the op
       count does not grow */
    m = reshape_chain(true);
    o = optimize(m, &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 4);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ cancel-transposes */

static lg_model *transpose_pair_model(const int32_t *p, const int32_t *q, lg_dims mid, lg_dims outd) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 3, 4));
    int t1 = lg_b_tensor(&b, "t1", LG_FLOAT32, mid);
    int t2 = lg_b_tensor(&b, "t2", LG_FLOAT32, outd);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, outd);
    int pp = lg_b_const_i32(&b, "p", LG_DIMS(4), p);
    int qq = lg_b_const_i32(&b, "q", LG_DIMS(4), q);
    lg_b_op(&b, LG_OP_TRANSPOSE, LG_IDS(x, pp), LG_IDS(t1));
    lg_b_op(&b, LG_OP_TRANSPOSE, LG_IDS(t1, qq), LG_IDS(t2));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(t2), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(pass_cancel_transposes_inverse_pair) {
    /* NHWC -> NCHW [0,3,1,2] then back [0,2,3,1]: the identity */
    lg_model *m = transpose_pair_model((const int32_t[]){0, 3, 1, 2}, (const int32_t[]){0, 2, 3, 1},
                                       LG_DIMS(1, 4, 2, 3), LG_DIMS(1, 2, 3, 4));
    lg_pass_report *rep = NULL;
    lg_model *o = optimize(m, &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
    CHECK_EQ_INT(op_code(o, 0), LG_OP_RELU);
    CHECK_EQ_INT(o->subgraphs[0].ops[0].inputs[0], o->subgraphs[0].inputs[0]);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

LG_TEST(pass_cancel_transposes_composes) {
    /* p = q = [0,2,3,1]: r[i] = p[q[i]] = [p0, p2, p3, p1] = [0,3,1,2]; x[1,2,3,4] -> t1
       [1,3,4,2] -> t2 [1,4,2,3] */
    lg_model *m = transpose_pair_model((const int32_t[]){0, 2, 3, 1}, (const int32_t[]){0, 2, 3, 1},
                                       LG_DIMS(1, 3, 4, 2), LG_DIMS(1, 4, 2, 3));
    lg_pass_report *rep = NULL;
    lg_model *o = optimize(m, &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(op_code(o, 0), LG_OP_TRANSPOSE);
    const lg_subgraph *sg = &o->subgraphs[0];
    CHECK_EQ_INT(sg->ops[0].inputs[0], sg->inputs[0]);
    const lg_tensor *pt = &sg->tensors[sg->ops[0].inputs[1]];
    const int32_t *r = (const int32_t *)o->buffers[pt->buffer].data;
    CHECK(r && r[0] == 0 && r[1] == 3 && r[2] == 1 && r[3] == 2);
    const lg_pass_result *res = result_of(rep, "cancel-transposes");
    CHECK(res && res->parity_measured && res->max_rel == 0);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ remove-dead */

LG_TEST(pass_remove_dead_and_near_miss) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(4));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(4));
    int d = lg_b_tensor(&b, "d", LG_FLOAT32, LG_DIMS(4));
    int e = lg_b_tensor(&b, "e", LG_FLOAT32, LG_DIMS(4));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(y));
    lg_b_op(&b, LG_OP_TANH, LG_IDS(x), LG_IDS(d));   /* nothing reads d */
    lg_b_op(&b, LG_OP_EXP, LG_IDS(d), LG_IDS(e));    /* ... nor e: both die */
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    lg_pass_report *rep = NULL;
    lg_model *o = optimize(m, &rep);
    if (!o) { lg_model_free(m); return; }
    CHECK_EQ_INT(o->subgraphs[0].n_ops, 1);
    CHECK_EQ_INT(o->subgraphs[0].n_tensors, 2);
    CHECK_EQ_INT(applied(rep, "remove-dead"), 2);
    lg_pass_report_free(rep);
    lg_model_free(o);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ the runner */

/* A deliberately wrong "exact" pass: turns every RELU into RELU6. The runner must catch it. */
static bool liar_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    return lg_op_builtin(c->m, &c->m->subgraphs[c->sg].ops[i]) == LG_OP_RELU;
}
static lg_status liar_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    lg_status st = lg_op_set_opcode(c->m, c->sg, i, LG_OP_RELU6, NULL, 1, c->err);
    if (st == LG_OK) c->delta->applied++;
    return st;
}

LG_TEST(pass_runner_catches_a_broken_exact_pass) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(8));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(8));
    int z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(8));
    float k[8] = {8, 8, 8, 8, 8, 8, 8, 8};
    int c8 = lg_b_const_f32(&b, "k", LG_DIMS(8), k);
    lg_mul_options mo;
    lg_opts_init(LG_OPTS_MUL_OPTIONS, &mo, sizeof mo);
    lg_b_op_opts(&b, LG_OP_MUL, LG_IDS(x, c8), LG_IDS(z), LG_OPTS_MUL_OPTIONS, &mo);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(z), LG_IDS(y)); /* inputs in [-8, 8]: RELU6 clips */
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    const lg_pass liar = {"liar", "wrong on purpose", {NULL}, true, 0, liar_match, liar_apply};
    const lg_pass *list[] = {&liar};
    lg_pass_run_options o = proving();
    lg_model *out = NULL;
    lg_pass_report *rep = NULL;
    lg_error err;
    lg_status st = lg_passes_run(m, list, 1, 1, &o, &out, &rep, &err);
    CHECK_EQ_INT(st, LG_ERR_INTERNAL);
    CHECK(strstr(err.msg, "liar") && strstr(err.msg, "parity"));
    CHECK(out == NULL && rep == NULL);
    /* without proof the same pass goes through: the proof is what catches it */
    o.prove = false;
    CHECK_OK(lg_passes_run(m, list, 1, 1, &o, &out, &rep, &err), &err);
    lg_pass_report_free(rep);
    lg_model_free(out);
    lg_model_free(m);
}

LG_TEST(pass_optimize_is_deterministic_and_leaves_input_alone) {
    lg_model *m = mean_add_model(false);
    void *b0 = NULL, *b1 = NULL, *b2 = NULL;
    size_t n0 = 0, n1 = 0, n2 = 0;
    lg_error err;
    CHECK_OK(lg_tflite_write_mem(m, NULL, &b0, &n0, &err), &err);
    lg_pass_report *r1 = NULL, *r2 = NULL;
    lg_model *o1 = optimize(m, &r1), *o2 = optimize(m, &r2);
    if (o1 && o2) {
        CHECK_OK(lg_tflite_write_mem(o1, NULL, &b1, &n1, &err), &err);
        CHECK_OK(lg_tflite_write_mem(o2, NULL, &b2, &n2, &err), &err);
        CHECK(n1 == n2 && b1 && b2 && memcmp(b1, b2, n1) == 0);
    }
    void *b3 = NULL;
    size_t n3 = 0;
    CHECK_OK(lg_tflite_write_mem(m, NULL, &b3, &n3, &err), &err);
    CHECK(n0 == n3 && memcmp(b0, b3, n0) == 0);
    free(b0); free(b1); free(b2); free(b3);
    lg_pass_report_free(r1);
    lg_pass_report_free(r2);
    lg_model_free(o1);
    lg_model_free(o2);
    lg_model_free(m);
}

LG_TEST(pass_registry) {
    CHECK(lg_pass_count() >= 6); /* the optimize passes, then the fix passes */
    for (uint32_t i = 0; i < lg_pass_count(); i++) {
        const lg_pass *p = lg_pass_at(i);
        CHECK(p && p->name && p->summary && p->match && p->apply);
        CHECK(lg_pass_find(p->name) == p);
        for (int k = 0; k < 4 && p->removes[k]; k++) CHECK(lg_rule_find(p->removes[k]) != NULL);
    }
    CHECK(lg_pass_find("nope") == NULL);
}
