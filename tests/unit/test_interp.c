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
