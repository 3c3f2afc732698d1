/* The interpreter's driver: create with err == NULL on a broken graph, and every allocation
 * through the model's hook (a failing allocator at each step of create must give
 * LG_ERR_NOMEM and leak nothing). */
#include <stdlib.h>
#include <string.h>

#include "lg/compare.h"
#include "lg/run.h"
#include "tf.h"

/* op0 a = RELU(x); op1 y = ADD(a, u), where u is neither produced by an op, nor a graph
   input, nor a constant. With u_is_input it is a second graph input: the near miss. */
static lg_model *unproduced(int u_is_input, lg_alloc_fn alloc, void *ud) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(alloc, ud, &m, &err) != LG_OK) return NULL;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, 4));
    int u = lg_b_tensor(&b, "u", LG_FLOAT32, LG_DIMS(1, 4));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(a));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(a, u), LG_IDS(y));
    if (u_is_input) lg_b_io(&b, LG_IDS(x, u), LG_IDS(y));
    else lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_OK(b.status, &b.err);
    return m;
}

LG_TEST(interp_create_null_err_unproduced_input) {
    lg_model *m = unproduced(0, NULL, NULL);
    if (!m) return;
    lg_interp *it = (lg_interp *)&it; /* must be reset to NULL */
    CHECK_EQ_INT(lg_interp_create(m, NULL, &it, NULL), LG_ERR_FORMAT); /* used to crash */
    CHECK(it == NULL);
    lg_error err;
    CHECK_EQ_INT(lg_interp_create(m, NULL, &it, &err), LG_ERR_FORMAT);
    CHECK_EQ_INT(err.status, LG_ERR_FORMAT);
    CHECK_EQ_INT(err.op, 1);
    CHECK(strstr(err.msg, "op 1 (ADD): input 1 reads tensor 2 \"u\", which no op produces") != NULL);
    lg_model_free(m);
    /* near miss: u as a graph input runs */
    m = unproduced(1, NULL, NULL);
    if (!m) return;
    CHECK_OK(lg_interp_create(m, NULL, &it, &err), &err);
    lg_interp_free(it);
    /* and the other NULL-argument paths return, too */
    CHECK_EQ_INT(lg_interp_create(NULL, NULL, &it, NULL), LG_ERR_INVALID_ARG);
    CHECK_EQ_INT(lg_interp_create(m, NULL, NULL, NULL), LG_ERR_INVALID_ARG);
    lg_model_free(m);
}

/* A graph output no op produces (a mutated file's): refused at create, not a NULL view that
   `litegpu run` would read (found by the malformed sweep). Near miss: the output is an input. */
LG_TEST(interp_create_refuses_unproduced_output) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) return;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(4));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(4));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y)); /* no op at all */
    CHECK_OK(b.status, &b.err);
    lg_interp *it = NULL;
    CHECK_EQ_INT(lg_interp_create(m, NULL, &it, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "output 0 is tensor 1 \"y\", which no op produces") != NULL);
    CHECK(it == NULL);
    CHECK_OK(lg_subgraph_set_io(m, 0, (const int32_t[]){x}, 1, (const int32_t[]){x}, 1, &err), &err);
    CHECK_OK(lg_interp_create(m, NULL, &it, &err), &err);
    lg_interp_free(it);
    lg_model_free(m);
}

/* A hook that counts its blocks and fails every request after `budget` successful ones
   (budget < 0: never fails). */
typedef struct counting {
    int budget;
    int allocs;   /* successful allocations and reallocations */
    int live;     /* blocks held */
} counting;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    counting *c = ud;
    (void)osize;
    if (nsize == 0) {
        if (ptr) c->live--;
        free(ptr);
        return NULL;
    }
    if (c->budget >= 0 && c->allocs >= c->budget) return NULL;
    void *p = realloc(ptr, nsize);
    if (!p) return NULL;
    c->allocs++;
    if (!ptr) c->live++;
    return p;
}

/* x[1000] -> RELU -> TANH -> ADD -> RELU, as test_memplan.c. lg_interp_create makes exactly
   6 allocations through the hook: the interpreter object, one arena chunk (64 KiB; the 5
   tensors, 4 nodes and their arrays take far less), the graph index (one block, freed before
   create returns), the planner's per-tensor temporaries, the planner's sort array, the
   activation arena. No scratch (RELU, TANH, ADD ask none), no folding (no constants), no pool
   (one thread). */
static lg_model *chain(counting *c) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(counting_alloc, c, &m, &err) != LG_OK) return NULL;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 1000));
    int a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, 1000));
    int bb = lg_b_tensor(&b, "b", LG_FLOAT32, LG_DIMS(1, 1000));
    int cc = lg_b_tensor(&b, "c", LG_FLOAT32, LG_DIMS(1, 1000));
    int d = lg_b_tensor(&b, "d", LG_FLOAT32, LG_DIMS(1, 1000));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(a));
    lg_b_op(&b, LG_OP_TANH, LG_IDS(a), LG_IDS(bb));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(a, bb), LG_IDS(cc));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(cc), LG_IDS(d));
    lg_b_io(&b, LG_IDS(x), LG_IDS(d));
    CHECK_OK(b.status, &b.err);
    return m;
}

LG_TEST(interp_allocates_through_the_model_hook) {
    counting c = {-1, 0, 0};
    lg_model *m = chain(&c);
    if (!m) return;
    int model_blocks = c.live;
    int ok_at = -1;
    for (int k = 0; k <= 20 && ok_at < 0; k++) {
        c.budget = c.allocs + k;
        lg_interp *it = NULL;
        lg_error err;
        lg_status st = lg_interp_create(m, NULL, &it, &err);
        if (st == LG_OK) {
            ok_at = k;
            CHECK_EQ_INT(c.live, model_blocks + 3); /* the graph and the planner's 2 temporaries are back */
            c.budget = -1;
            /* runs: d = relu(relu(x) + tanh(relu(x))); x = 1 -> 1 + tanh(1) = 1.7615942 */
            float x[1000];
            for (int i = 0; i < 1000; i++) x[i] = 1.0f;
            CHECK_OK(lg_interp_set_input(it, 0, LG_FLOAT32, x, sizeof x, &err), &err);
            int before = c.allocs;
            CHECK_OK(lg_interp_invoke(it, &err), &err);
            CHECK_EQ_INT(c.allocs, before); /* invoke allocates nothing */
            lg_tensor_view v;
            lg_interp_output(it, 0, &v);
            if (v.data) CHECK_NEAR(((const float *)v.data)[999], 1.7615942, 1e-6);
            lg_interp_free(it);
        } else {
            CHECK_EQ_INT(st, LG_ERR_NOMEM);
            CHECK_EQ_INT(err.status, LG_ERR_NOMEM);
            CHECK(it == NULL);
        }
        CHECK_EQ_INT(c.live, model_blocks); /* nothing leaked, all back through the hook */
    }
    CHECK_EQ_INT(ok_at, 6);
    c.budget = -1;
    lg_model_free(m);
    CHECK_EQ_INT(c.live, 0);
}

/* lg_compare_models: its input buffers come from the first model's hook too (the report is
   malloc'd, see run.h); every failure is LG_ERR_NOMEM and gives every block back. */
LG_TEST(compare_models_allocates_through_the_model_hook) {
    counting c = {-1, 0, 0};
    lg_model *m = chain(&c);
    if (!m) return;
    int model_blocks = c.live;
    lg_models_options o;
    memset(&o, 0, sizeof o);
    o.precision = LG_PREC_F32;
    o.n_random = 1;
    o.atol = 1e-4;
    o.rtol = 1e-3;
    o.threads = 1;
    int ok_at = -1;
    for (int k = 0; k <= 40 && ok_at < 0; k++) {
        c.budget = c.allocs + k;
        lg_models_report *r = NULL;
        lg_error err;
        lg_status st = lg_compare_models(m, m, NULL, &o, &r, &err);
        if (st == LG_OK) {
            ok_at = k;
            CHECK(r && r->ok); /* the same model twice agrees with itself */
            lg_models_report_free(r);
        } else {
            CHECK_EQ_INT(st, LG_ERR_NOMEM);
            CHECK(r == NULL);
        }
        CHECK_EQ_INT(c.live, model_blocks);
    }
    /* two interpreters (6 each) and the input buffers (the pointer block, one input) */
    CHECK_EQ_INT(ok_at, 14);
    c.budget = -1;
    CHECK_EQ_INT(lg_compare_models(m, m, NULL, &o, NULL, NULL), LG_ERR_INVALID_ARG);
    lg_model_free(m);
}
