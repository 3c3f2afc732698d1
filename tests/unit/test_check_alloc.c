/* lg_check_model allocates its temporaries through the model's allocator hook and gives them
   all back before it returns; the report alone comes from malloc (include/lg/check.h). */
#include <stdlib.h>
#include <string.h>

#include "lg/check.h"
#include "lg/lg.h"
#include "tf.h"

/* An allocator that fails every allocation from the budget-th on and counts live blocks
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

/* x[1,8] -> RELU -> y: no external buffers (validation allocates nothing), no findings.
   lg_check_model then makes exactly 3 allocations through the hook: the graph index
   (lg_graph_build, one block), the checker's flags (is_const per tensor; folded, blocked,
   supported per op: one block) and the partitioner's work arrays (one block). */
LG_TEST(check_allocates_through_the_model_hook) {
    counting c = {-1, 0, 0};
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(counting_alloc, &c, &m, &err) != LG_OK) return;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 8));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 8));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_OK(b.status, &b.err);
    int model_blocks = c.live;
    int ok_at = -1;
    for (int k = 0; k <= 10 && ok_at < 0; k++) {
        c.budget = c.allocs + k;
        lg_check_report *rep = NULL;
        lg_check_options opt = {LG_TARGET_MLDRIFT, 0, LG_GPU_ANY};
        lg_status st = lg_check_model(m, &opt, &rep, &err);
        CHECK_EQ_INT(c.live, model_blocks); /* nothing held through the hook, the report neither */
        if (st == LG_OK) {
            ok_at = k;
            c.budget = -1;
            CHECK(rep != NULL);
            if (rep) {
                CHECK(rep->ready);
                CHECK_EQ_INT(rep->n_gpu_ops, 1);
                CHECK_EQ_INT(rep->n_partitions, 1);
            }
            lg_check_report_free(rep);
        } else {
            CHECK_EQ_INT(st, LG_ERR_NOMEM);
            CHECK_EQ_INT(err.status, LG_ERR_NOMEM);
            CHECK(rep == NULL);
        }
    }
    CHECK_EQ_INT(ok_at, 3);
    c.budget = -1;
    lg_model_free(m);
    CHECK_EQ_INT(c.live, 0);
}
