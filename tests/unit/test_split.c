/* Cutting a model: lg_model_cut, lg_model_taps, lg_split_model and running the parts as a
   chain (lg_chain) against the whole model. Expected part layouts derived by hand from the
   model below. */
#include <stdlib.h>

#include "lg/check.h"
#include "lg/compare.h"
#include "lg/lg.h"
#include "lg/run.h"
#include "lg/split.h"
#include "tf.h"

static lg_model *new_model(lg_builder *b) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) return NULL;
    lg_builder_init(b, m, 0);
    return m;
}

/* x[1,4] -> ADD c -> RELU -> LOGISTIC -> TANH -> CAST int64 -> CAST float -> MUL c -> ABS ->
   NEG -> EXP -> y. The two CASTs carry an INT64 tensor (int64-tensor, a blocker for mldrift
   on Mali and WebGPU): GPU 4 ops, CPU 2 ops, GPU 4 ops. With near_miss the CASTs go through
   INT32 (no blocker): one GPU part. */
static lg_model *chain_model(bool near_miss) {
    lg_builder b;
    lg_model *m = new_model(&b);
    const float cv[4] = {0.5f, -1, 2, 3};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int c = lg_b_const_f32(&b, "c", LG_DIMS(1, 4), cv);
    const char *nm[] = {"a", "b", "l", "t", "i", "f", "m", "s", "n", "y"};
    int t[10];
    for (int k = 0; k < 10; k++)
        t[k] = lg_b_tensor(&b, nm[k], k == 4 ? (near_miss ? LG_INT32 : LG_INT64) : LG_FLOAT32, LG_DIMS(1, 4));
    lg_add_options ao;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(x, c), LG_IDS(t[0]), LG_OPTS_ADD_OPTIONS, &ao);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(t[0]), LG_IDS(t[1]));
    lg_b_op(&b, LG_OP_LOGISTIC, LG_IDS(t[1]), LG_IDS(t[2]));
    lg_b_op(&b, LG_OP_TANH, LG_IDS(t[2]), LG_IDS(t[3]));
    lg_b_op(&b, LG_OP_CAST, LG_IDS(t[3]), LG_IDS(t[4]));
    lg_b_op(&b, LG_OP_CAST, LG_IDS(t[4]), LG_IDS(t[5]));
    lg_mul_options mo;
    lg_opts_init(LG_OPTS_MUL_OPTIONS, &mo, sizeof mo);
    lg_b_op_opts(&b, LG_OP_MUL, LG_IDS(t[5], c), LG_IDS(t[6]), LG_OPTS_MUL_OPTIONS, &mo);
    lg_b_op(&b, LG_OP_ABS, LG_IDS(t[6]), LG_IDS(t[7]));
    lg_b_op(&b, LG_OP_NEG, LG_IDS(t[7]), LG_IDS(t[8]));
    lg_b_op(&b, LG_OP_EXP, LG_IDS(t[8]), LG_IDS(t[9]));
    lg_b_io(&b, LG_IDS(x), LG_IDS(t[9]));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

static const char *io_name(const lg_model *m, bool in, uint32_t k) {
    const lg_subgraph *sg = &m->subgraphs[0];
    return sg->tensors[in ? sg->inputs[k] : sg->outputs[k]].name;
}

LG_TEST(split_gpu_cpu_gpu_and_the_chain_equals_the_model) {
    lg_model *m = chain_model(false);
    lg_check_options co = {LG_TARGET_MLDRIFT, 0, LG_GPU_ANY};
    lg_split *s = NULL;
    lg_error err;
    CHECK_OK(lg_split_model(m, &co, 0, &s, &err), &err);
    if (!s) { lg_model_free(m); return; }
    CHECK_EQ_INT(s->n_parts, 3);
    CHECK_EQ_INT(s->n_gpu_ops, 8);
    CHECK_EQ_INT(s->n_cpu_ops, 2);
    if (s->n_parts == 3) {
        CHECK(s->parts[0].gpu && !s->parts[1].gpu && s->parts[2].gpu);
        CHECK_EQ_INT(s->parts[0].n_ops, 4);
        CHECK_EQ_INT(s->parts[1].n_ops, 2);
        CHECK(s->parts[0].ready && s->parts[2].ready);
        /* part 1 reads "t" and hands "f" on; part 2 ends with the model's output */
        CHECK(strcmp(io_name(s->parts[1].model, true, 0), "t") == 0);
        CHECK(strcmp(io_name(s->parts[1].model, false, 0), "f") == 0);
        CHECK(strcmp(io_name(s->parts[2].model, false, 0), "y") == 0);
        CHECK_EQ_INT(s->parts[1].ops[0], 4);
        /* the constant c is in both GPU parts (each part owns its constants) */
        CHECK_EQ_INT(s->parts[2].model->subgraphs[0].n_inputs, 1);
        const lg_model *parts[3] = {s->parts[0].model, s->parts[1].model, s->parts[2].model};
        lg_run_options ro;
        memset(&ro, 0, sizeof ro);
        lg_chain *a = NULL, *b = NULL;
        CHECK_OK(lg_chain_create((const lg_model *const *)&m, 1, NULL, 0, NULL, 0, &ro, &a, &err), &err);
        CHECK_OK(lg_chain_create(parts, 3, (const char *const *)s->input_names, s->n_inputs,
                                 (const char *const *)s->output_names, s->n_outputs, &ro, &b, &err), &err);
        lg_models_options mo = {LG_PREC_F32, 3, 1, 0, 0, 1, LG_INT_TFLITE};
        lg_models_report *r = NULL;
        if (a && b) CHECK_OK(lg_compare_chains(m, a, b, NULL, &mo, &r, &err), &err);
        CHECK(r && r->n_cases == 4 && r->worst_max_abs == 0);
        lg_models_report_free(r);
        lg_chain_free(a);
        lg_chain_free(b);
    }
    lg_split_free(s);
    lg_model_free(m);
}

LG_TEST(split_near_miss_is_one_gpu_part) {
    lg_model *m = chain_model(true);
    lg_check_options co = {LG_TARGET_MLDRIFT, 0, LG_GPU_ANY};
    lg_split *s = NULL;
    lg_error err;
    CHECK_OK(lg_split_model(m, &co, 0, &s, &err), &err);
    if (!s) { lg_model_free(m); return; }
    CHECK_EQ_INT(s->n_parts, 1);
    CHECK(s->parts[0].gpu && s->parts[0].ready && s->parts[0].n_ops == 10);
    lg_split_free(s);
    lg_model_free(m);
}

LG_TEST(split_small_gpu_parts_go_to_the_cpu) {
    /* with min 5 GPU ops, both 4-op GPU parts are too small: one CPU part of everything */
    lg_model *m = chain_model(false);
    lg_check_options co = {LG_TARGET_MLDRIFT, 0, LG_GPU_ANY};
    lg_split *s = NULL;
    lg_error err;
    CHECK_OK(lg_split_model(m, &co, 5, &s, &err), &err);
    if (s) {
        CHECK_EQ_INT(s->n_parts, 1);
        CHECK(!s->parts[0].gpu && s->parts[0].n_ops == 10);
    }
    lg_split_free(s);
    lg_model_free(m);
}

LG_TEST(split_cut_at_named_tensors) {
    lg_model *m = chain_model(false);
    lg_model *c = NULL;
    lg_error err;
    const char *names[] = {"t", "l"};
    CHECK_OK(lg_model_cut(m, names, 2, &c, &err), &err);
    if (c) {
        /* ADD, RELU, LOGISTIC, TANH: 4 ops; outputs in the order named */
        CHECK_EQ_INT(c->subgraphs[0].n_ops, 4);
        CHECK_EQ_INT(c->subgraphs[0].n_outputs, 2);
        CHECK(strcmp(io_name(c, false, 0), "t") == 0 && strcmp(io_name(c, false, 1), "l") == 0);
        CHECK(strcmp(io_name(c, true, 0), "x") == 0);
    }
    lg_model_free(c);
    const char *bad[] = {"nope"};
    CHECK(lg_model_cut(m, bad, 1, &c, &err) == LG_ERR_INVALID_ARG && strstr(err.msg, "nope"));
    const char *konst[] = {"c"};
    CHECK(lg_model_cut(m, konst, 1, &c, &err) == LG_ERR_INVALID_ARG && strstr(err.msg, "constant"));
    lg_model_free(m);
}

LG_TEST(split_taps_add_intermediates_after_the_outputs) {
    lg_model *m = chain_model(true);
    lg_model *t = NULL;
    uint32_t n = 0;
    lg_error err;
    CHECK_OK(lg_model_taps(m, NULL, 0, &t, &n, &err), &err);
    /* the float tensors ops compute, y excepted (already an output): a b l t f m s n = 8
       (i is INT32, not tapped) */
    CHECK_EQ_INT(n, 8);
    if (t) {
        CHECK_EQ_INT(t->subgraphs[0].n_outputs, 9);
        CHECK(strcmp(io_name(t, false, 0), "y") == 0 && strcmp(io_name(t, false, 1), "a") == 0);
    }
    lg_model_free(t);
    const int32_t pick[] = {3, 3, 0};
    CHECK_OK(lg_model_taps(m, pick, 3, &t, &n, &err), &err);
    /* tensor 3 is "b" (x=0, c=1, a=2, b=3); x (0) is a graph input, not computed: skipped */
    CHECK_EQ_INT(n, 1);
    if (t) CHECK(strcmp(io_name(t, false, 1), "b") == 0);
    lg_model_free(t);
    lg_model_free(m);
}
