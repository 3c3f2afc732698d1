/* The editable graph (include/lg/graph.h, src/ir/graph*.c): the index, every edit, the
   stable toposort, compaction, edits on a model read from bytes, and a failing-allocator
   sweep. Expected values are derived by hand in the comments. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "lg/graph.h"
#include "lg/lg.h"
#include "tf.h"

static int contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

#define CHECK_ERR(expr, errp, want_status, substr)                                            \
    do {                                                                                      \
        lg_status s2_ = (expr);                                                               \
        CHECK_EQ_INT(s2_, want_status);                                                       \
        if (!contains((errp)->msg, substr))                                                   \
            tf_fail(__FILE__, __LINE__, "message \"%s\" lacks \"%s\"", (errp)->msg, substr);  \
    } while (0)

static lg_model *new_model(void) {
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    return m;
}

/* The builtin code of op i of subgraph 0. */
static int32_t op_code(const lg_model *m, uint32_t i) {
    return lg_op_builtin(m, &m->subgraphs[0].ops[i]);
}

static int ids_eq(const int32_t *v, uint32_t n, const int32_t *want, uint32_t nw) {
    if (n != nw) return 0;
    for (uint32_t i = 0; i < n; i++)
        if (v[i] != want[i]) return 0;
    return 1;
}
#define CHECK_IDS(v, n, ...)                                                                  \
    CHECK(ids_eq((v), (n), (const int32_t[]){__VA_ARGS__},                                    \
                 (uint32_t)(sizeof((const int32_t[]){__VA_ARGS__}) / sizeof(int32_t))))

/* ---------------------------------------------------------------- index */

/* Diamond: x -TANH-> a; a -RELU-> b; a -LOGISTIC-> c; ADD(b, c) -> y; MUL(a, a) -> z;
   FULLY_CONNECTED(a, w, -1) -> f. Outputs y, z, f. */
typedef struct diamond { int32_t x, a, b, c, y, z, w, f, v; } diamond;

static lg_model *make_diamond(diamond *d) {
    lg_model *m = new_model();
    if (!m) return NULL;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    d->x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    d->a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, 4));
    d->b = lg_b_tensor(&b, "b", LG_FLOAT32, LG_DIMS(1, 4));
    d->c = lg_b_tensor(&b, "c", LG_FLOAT32, LG_DIMS(1, 4));
    d->y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    d->z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(1, 4));
    static const float wd[16] = {0};
    d->w = lg_b_const_f32(&b, "w", LG_DIMS(4, 4), wd);
    d->f = lg_b_tensor(&b, "f", LG_FLOAT32, LG_DIMS(1, 4));
    static const float vd[4] = {0};
    d->v = lg_b_const_f32(&b, "v", LG_DIMS(4), vd); /* made a variable below */
    lg_b_op(&b, LG_OP_TANH, LG_IDS(d->x), LG_IDS(d->a));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(d->a), LG_IDS(d->b));
    lg_b_op(&b, LG_OP_LOGISTIC, LG_IDS(d->a), LG_IDS(d->c));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(d->b, d->c), LG_IDS(d->y));
    lg_b_op(&b, LG_OP_MUL, LG_IDS(d->a, d->a), LG_IDS(d->z));
    lg_b_op(&b, LG_OP_FULLY_CONNECTED, LG_IDS(d->a, d->w, -1), LG_IDS(d->f));
    lg_b_io(&b, LG_IDS(d->x), LG_IDS(d->y, d->z, d->f));
    CHECK_OK(b.status, &b.err);
    if (b.status != LG_OK) { lg_model_free(m); return NULL; }
    m->subgraphs[0].tensors[d->v].is_variable = true;
    return m;
}

LG_TEST(graph_index_diamond) {
    diamond d;
    lg_model *m = make_diamond(&d);
    if (!m) return;
    lg_error err;
    lg_graph *g = NULL;
    CHECK_OK(lg_graph_build(m, 0, &g, &err), &err);
    if (!g) { lg_model_free(m); return; }
    CHECK_EQ_INT(lg_graph_producer(g, d.x), -1); /* graph input */
    CHECK_EQ_INT(lg_graph_producer(g, d.w), -1); /* constant */
    CHECK_EQ_INT(lg_graph_producer(g, d.a), 0);
    CHECK_EQ_INT(lg_graph_producer(g, d.c), 2);
    CHECK_EQ_INT(lg_graph_producer(g, d.y), 3);
    CHECK_EQ_INT(lg_graph_producer(g, d.f), 5);
    /* a is read by op 1 slot 0, op 2 slot 0, op 4 slots 0 and 1, op 5 slot 0 */
    uint32_t n = 99;
    const lg_use *u = lg_graph_uses(g, d.a, &n);
    CHECK_EQ_INT(n, 5);
    if (u && n == 5) {
        static const int32_t wop[5] = {1, 2, 4, 4, 5};
        static const uint32_t wslot[5] = {0, 0, 0, 1, 0};
        for (int i = 0; i < 5; i++) {
            CHECK_EQ_INT(u[i].op, wop[i]);
            CHECK_EQ_INT(u[i].slot, wslot[i]);
        }
    }
    CHECK_EQ_INT(lg_graph_n_consumers(g, d.a), 4); /* ops 1, 2, 4, 5 */
    u = lg_graph_uses(g, d.b, &n);
    CHECK(u && n == 1 && u[0].op == 3 && u[0].slot == 0);
    u = lg_graph_uses(g, d.c, &n);
    CHECK(u && n == 1 && u[0].op == 3 && u[0].slot == 1);
    u = lg_graph_uses(g, d.w, &n);
    CHECK(u && n == 1 && u[0].op == 5 && u[0].slot == 1);
    /* a graph output is not a use; an unused tensor has none */
    u = lg_graph_uses(g, d.y, &n);
    CHECK(u == NULL && n == 0);
    CHECK_EQ_INT(lg_graph_n_consumers(g, d.y), 0);
    CHECK(lg_graph_uses(g, d.v, NULL) == NULL);
    CHECK(lg_graph_is_input(g, d.x));
    CHECK(!lg_graph_is_input(g, d.a));
    CHECK(lg_graph_is_output(g, d.y) && lg_graph_is_output(g, d.z) && lg_graph_is_output(g, d.f));
    CHECK(!lg_graph_is_output(g, d.a) && !lg_graph_is_output(g, d.x));
    CHECK_EQ_INT(lg_graph_n_multi_produced(g), 0);
    /* out of range and -1: nothing, no crash */
    CHECK_EQ_INT(lg_graph_producer(g, -1), -1);
    CHECK_EQ_INT(lg_graph_producer(g, 99), -1);
    CHECK(lg_graph_uses(g, 99, &n) == NULL && n == 0);
    CHECK(lg_graph_uses(g, -1, &n) == NULL && n == 0);
    CHECK_EQ_INT(lg_graph_n_consumers(g, -5), 0);
    CHECK(!lg_graph_is_input(g, 99) && !lg_graph_is_output(g, -1));
    lg_graph_free(g);
    lg_graph_free(NULL);
    /* constants: w yes; runtime a no; the variable v (it has a buffer) no; bad index no */
    CHECK(lg_tensor_is_const(m, 0, d.w));
    CHECK(!lg_tensor_is_const(m, 0, d.a));
    CHECK(!lg_tensor_is_const(m, 0, d.v));
    CHECK(!lg_tensor_is_const(m, 0, 99) && !lg_tensor_is_const(m, 1, d.w));
    lg_model_free(m);
}

LG_TEST(graph_index_multi_producer_and_errors) {
    diamond d;
    lg_model *m = make_diamond(&d);
    if (!m) return;
    lg_error err;
    /* near miss: one op listing the same output twice is one producer */
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int32_t q = lg_b_tensor(&b, "q", LG_FLOAT32, LG_DIMS(1));
    lg_b_op(&b, LG_OP_SPLIT, LG_IDS(d.x), LG_IDS(q, q)); /* op 6 */
    CHECK_OK(b.status, &b.err);
    lg_graph *g = NULL;
    CHECK_OK(lg_graph_build(m, 0, &g, &err), &err);
    CHECK_EQ_INT(lg_graph_n_multi_produced(g), 0);
    CHECK_EQ_INT(lg_graph_producer(g, q), 6);
    lg_graph_free(g);
    /* b produced by op 1 and again by op 7, c by op 2 and op 7: 2 tensors; first producer wins */
    lg_b_op(&b, LG_OP_SPLIT, LG_IDS(d.x), LG_IDS(d.b, d.c)); /* op 7 */
    lg_b_op(&b, LG_OP_ABS, LG_IDS(d.x), LG_IDS(d.b));         /* op 8: b a third time */
    CHECK_OK(b.status, &b.err);
    CHECK_OK(lg_graph_build(m, 0, &g, &err), &err);
    CHECK_EQ_INT(lg_graph_n_multi_produced(g), 2);
    CHECK_EQ_INT(lg_graph_producer(g, d.b), 1);
    CHECK_EQ_INT(lg_graph_producer(g, d.c), 2);
    lg_graph_free(g);
    /* bad references are errors, not crashes */
    static const int32_t bad_in[1] = {99};
    const int32_t *save = m->subgraphs[0].ops[3].inputs;
    uint32_t save_n = m->subgraphs[0].ops[3].n_inputs;
    m->subgraphs[0].ops[3].inputs = bad_in;
    m->subgraphs[0].ops[3].n_inputs = 1;
    g = (lg_graph *)&err; /* must be reset to NULL */
    CHECK_ERR(lg_graph_build(m, 0, &g, &err), &err, LG_ERR_INVALID_ARG,
              "subgraph 0 op 3 (ADD): input 0 refers to tensor 99 of 10");
    CHECK(g == NULL);
    CHECK_EQ_INT(err.op, 3);
    m->subgraphs[0].ops[3].inputs = save;
    m->subgraphs[0].ops[3].n_inputs = save_n;
    CHECK_ERR(lg_graph_build(m, 1, &g, &err), &err, LG_ERR_INVALID_ARG, "subgraph 1 of 1");
    CHECK_ERR(lg_graph_build(NULL, 0, &g, &err), &err, LG_ERR_INVALID_ARG, "no model");
    CHECK_ERR(lg_graph_build(m, 0, NULL, &err), &err, LG_ERR_INVALID_ARG, "no output");
    lg_model_free(m);
}

/* ---------------------------------------------------------------- insert / remove */

/* x -RELU-> a -TANH-> y */
static lg_model *make_chain(int32_t *x, int32_t *a, int32_t *y) {
    lg_model *m = new_model();
    if (!m) return NULL;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    *x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2));
    *a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(2));
    *y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(*x), LG_IDS(*a));
    lg_b_op(&b, LG_OP_TANH, LG_IDS(*a), LG_IDS(*y));
    lg_b_io(&b, LG_IDS(*x), LG_IDS(*y));
    CHECK_OK(b.status, &b.err);
    return m;
}

LG_TEST(graph_insert_start_middle_end) {
    int32_t x, a, y;
    lg_model *m = make_chain(&x, &a, &y);
    if (!m) return;
    lg_error err;
    int32_t in[1] = {x}, out[1] = {a};
    CHECK_OK(lg_op_insert(m, 0, 0, LG_OP_ABS, NULL, 1, in, 1, out, 1, LG_OPTS_NONE, NULL, &err),
             &err);
    /* ABS RELU TANH */
    lg_add_options ao = {LG_ACTIVATION_FUNCTION_TYPE_RELU6, false};
    int32_t in2[2] = {a, a};
    CHECK_OK(lg_op_insert(m, 0, 2, LG_OP_ADD, NULL, 1, in2, 2, out, 1, LG_OPTS_ADD_OPTIONS, &ao,
                          &err), &err);
    /* ABS RELU ADD TANH */
    CHECK_OK(lg_op_insert(m, 0, 4, LG_OP_CUSTOM, "MyOp", 1, in, 1, out, 1, LG_OPTS_NONE, NULL,
                          &err), &err);
    /* ABS RELU ADD TANH MyOp */
    in[0] = y; /* the op holds copies */
    in2[1] = y;
    ao.fused_activation_function = 0;
    const lg_subgraph *s = &m->subgraphs[0];
    CHECK_EQ_INT(s->n_ops, 5);
    CHECK_EQ_INT(op_code(m, 0), LG_OP_ABS);
    CHECK_EQ_INT(op_code(m, 1), LG_OP_RELU);
    CHECK_EQ_INT(op_code(m, 2), LG_OP_ADD);
    CHECK_EQ_INT(op_code(m, 3), LG_OP_TANH);
    CHECK_EQ_INT(op_code(m, 4), LG_OP_CUSTOM);
    CHECK_STR(lg_op_name(m, &s->ops[4]), "MyOp");
    CHECK_IDS(s->ops[0].inputs, s->ops[0].n_inputs, x);
    CHECK_IDS(s->ops[1].inputs, s->ops[1].n_inputs, x);
    CHECK_IDS(s->ops[2].inputs, s->ops[2].n_inputs, a, a);
    CHECK_IDS(s->ops[3].outputs, s->ops[3].n_outputs, y);
    CHECK_EQ_INT(s->ops[2].opts_kind, LG_OPTS_ADD_OPTIONS);
    CHECK_EQ_INT(((const lg_add_options *)s->ops[2].opts)->fused_activation_function,
                 LG_ACTIVATION_FUNCTION_TYPE_RELU6);
    CHECK_EQ_INT(s->ops[1].debug_metadata_index, -1);
    /* errors leave the model unchanged */
    CHECK_ERR(lg_op_insert(m, 0, 6, LG_OP_ABS, NULL, 1, in, 1, out, 1, LG_OPTS_NONE, NULL, &err),
              &err, LG_ERR_INVALID_ARG, "insert at 6 of 5 ops");
    int32_t bad[1] = {7};
    CHECK_ERR(lg_op_insert(m, 0, 1, LG_OP_ABS, NULL, 1, bad, 1, out, 1, LG_OPTS_NONE, NULL, &err),
              &err, LG_ERR_INVALID_ARG, "subgraph 0 op 1 (ABS): input 0 refers to tensor 7 of 3");
    int32_t opt[1] = {-1};
    CHECK_ERR(lg_op_insert(m, 0, 1, LG_OP_ABS, NULL, 1, in, 1, opt, 1, LG_OPTS_NONE, NULL, &err),
              &err, LG_ERR_INVALID_ARG, "output 0 refers to tensor -1");
    CHECK_ERR(lg_op_insert(m, 0, 1, 9999, NULL, 1, in, 1, out, 1, LG_OPTS_NONE, NULL, &err), &err,
              LG_ERR_INVALID_ARG, "unknown builtin");
    CHECK_ERR(lg_op_insert(m, 1, 0, LG_OP_ABS, NULL, 1, in, 1, out, 1, LG_OPTS_NONE, NULL, &err),
              &err, LG_ERR_INVALID_ARG, "subgraph 1 of 1");
    CHECK_EQ_INT(m->subgraphs[0].n_ops, 5);
    CHECK_EQ_INT(op_code(m, 1), LG_OP_RELU);
    CHECK_OK(lg_model_validate(m, &err), &err);
    lg_model_free(m);
}

LG_TEST(graph_insert_grows_ops_array) {
    /* 40 inserts at 0 on a builder model (capacity 4 at first): each goes first */
    int32_t x, a, y;
    lg_model *m = make_chain(&x, &a, &y);
    if (!m) return;
    lg_error err;
    int32_t in[1] = {x}, out[1] = {a};
    for (int i = 0; i < 40; i++)
        CHECK_OK(lg_op_insert(m, 0, 0, i % 2 ? LG_OP_ABS : LG_OP_EXP, NULL, 1, in, 1, out, 1,
                              LG_OPTS_NONE, NULL, &err), &err);
    CHECK_EQ_INT(m->subgraphs[0].n_ops, 42);
    /* i = 39 (ABS) went in last, so it is first; i = 0 (EXP) is op 39 */
    CHECK_EQ_INT(op_code(m, 0), LG_OP_ABS);
    CHECK_EQ_INT(op_code(m, 39), LG_OP_EXP);
    CHECK_EQ_INT(op_code(m, 40), LG_OP_RELU);
    CHECK_EQ_INT(op_code(m, 41), LG_OP_TANH);
    lg_model_free(m);
}

LG_TEST(graph_remove) {
    int32_t x, a, y;
    lg_model *m = make_chain(&x, &a, &y);
    if (!m) return;
    lg_error err;
    int32_t in[1] = {x}, out[1] = {y};
    CHECK_OK(lg_op_insert(m, 0, 2, LG_OP_ABS, NULL, 1, in, 1, out, 1, LG_OPTS_NONE, NULL, &err),
             &err);
    /* RELU TANH ABS -> remove 1 -> RELU ABS */
    CHECK_OK(lg_op_remove(m, 0, 1, &err), &err);
    CHECK_EQ_INT(m->subgraphs[0].n_ops, 2);
    CHECK_EQ_INT(op_code(m, 0), LG_OP_RELU);
    CHECK_EQ_INT(op_code(m, 1), LG_OP_ABS);
    CHECK_EQ_INT(m->subgraphs[0].n_tensors, 3); /* tensors stay */
    CHECK_ERR(lg_op_remove(m, 0, 2, &err), &err, LG_ERR_INVALID_ARG, "subgraph 0: op 2 of 2");
    CHECK_OK(lg_op_remove(m, 0, 1, &err), &err); /* last */
    CHECK_OK(lg_op_remove(m, 0, 0, &err), &err); /* only */
    CHECK_EQ_INT(m->subgraphs[0].n_ops, 0);
    CHECK_ERR(lg_op_remove(m, 0, 0, &err), &err, LG_ERR_INVALID_ARG, "op 0 of 0");
    CHECK_OK(lg_model_validate(m, &err), &err);
    lg_model_free(m);
}

/* ---------------------------------------------------------------- set inputs / outputs */

LG_TEST(graph_set_input_output) {
    diamond d;
    lg_model *m = make_diamond(&d);
    if (!m) return;
    lg_error err;
    lg_subgraph *s = &m->subgraphs[0];
    /* arrays the edit did not allocate, read-only memory: a write through them would crash */
    static const int32_t ro_in[3] = {1, 6, -1};   /* a, w, -1 */
    static const int32_t ro_out[1] = {7};         /* f */
    s->ops[5].inputs = ro_in;
    s->ops[5].outputs = ro_out;
    CHECK_OK(lg_op_set_input(m, 0, 5, 2, d.v, &err), &err);
    CHECK_IDS(s->ops[5].inputs, s->ops[5].n_inputs, d.a, d.w, d.v);
    CHECK(s->ops[5].inputs != ro_in && ro_in[2] == -1);
    CHECK_OK(lg_op_set_input(m, 0, 5, 1, -1, &err), &err); /* absent optional */
    CHECK_IDS(s->ops[5].inputs, s->ops[5].n_inputs, d.a, -1, d.v);
    CHECK_OK(lg_op_set_output(m, 0, 5, 0, d.z, &err), &err);
    CHECK_IDS(s->ops[5].outputs, s->ops[5].n_outputs, d.z);
    CHECK(ro_out[0] == 7);
    /* errors: slot, tensor, op out of range; -1 output */
    CHECK_ERR(lg_op_set_input(m, 0, 5, 3, d.a, &err), &err, LG_ERR_INVALID_ARG,
              "subgraph 0 op 5 (FULLY_CONNECTED): input 3 of 3");
    CHECK_ERR(lg_op_set_input(m, 0, 5, 0, 11, &err), &err, LG_ERR_INVALID_ARG,
              "input 0 refers to tensor 11 of 9");
    CHECK_ERR(lg_op_set_input(m, 0, 5, 0, -2, &err), &err, LG_ERR_INVALID_ARG, "tensor -2");
    CHECK_ERR(lg_op_set_input(m, 0, 6, 0, d.a, &err), &err, LG_ERR_INVALID_ARG, "op 6 of 6");
    CHECK_ERR(lg_op_set_output(m, 0, 5, 0, -1, &err), &err, LG_ERR_INVALID_ARG,
              "output 0 refers to tensor -1");
    CHECK_ERR(lg_op_set_output(m, 0, 5, 1, d.a, &err), &err, LG_ERR_INVALID_ARG, "output 1 of 1");
    CHECK_IDS(s->ops[5].inputs, s->ops[5].n_inputs, d.a, -1, d.v);
    /* the whole list: longer, shorter, empty */
    int32_t four[4] = {d.x, -1, d.b, d.c};
    CHECK_OK(lg_op_set_inputs(m, 0, 3, four, 4, &err), &err);
    four[0] = d.y;
    CHECK_IDS(s->ops[3].inputs, s->ops[3].n_inputs, d.x, -1, d.b, d.c);
    CHECK_OK(lg_op_set_inputs(m, 0, 3, four + 2, 2, &err), &err);
    CHECK_IDS(s->ops[3].inputs, s->ops[3].n_inputs, d.b, d.c);
    CHECK_OK(lg_op_set_inputs(m, 0, 3, NULL, 0, &err), &err);
    CHECK(s->ops[3].inputs != NULL && s->ops[3].n_inputs == 0); /* present, empty */
    CHECK_ERR(lg_op_set_inputs(m, 0, 3, NULL, 2, &err), &err, LG_ERR_INVALID_ARG, "no array");
    int32_t bad[2] = {d.b, 40};
    CHECK_ERR(lg_op_set_inputs(m, 0, 3, bad, 2, &err), &err, LG_ERR_INVALID_ARG,
              "input 1 refers to tensor 40");
    CHECK_EQ_INT(s->ops[3].n_inputs, 0);
    CHECK_OK(lg_model_validate(m, &err), &err);
    /* the index sees the edits: op 5 now reads v in slot 2 */
    lg_graph *g = NULL;
    CHECK_OK(lg_graph_build(m, 0, &g, &err), &err);
    uint32_t n;
    const lg_use *u = lg_graph_uses(g, d.v, &n);
    CHECK(u && n == 1 && u[0].op == 5 && u[0].slot == 2);
    CHECK_EQ_INT(lg_graph_producer(g, d.z), 4);
    CHECK_EQ_INT(lg_graph_n_multi_produced(g), 1); /* z by ops 4 and 5 */
    lg_graph_free(g);
    lg_model_free(m);
}

LG_TEST(graph_set_options_and_opcode) {
    diamond d;
    lg_model *m = make_diamond(&d);
    if (!m) return;
    lg_error err;
    lg_subgraph *s = &m->subgraphs[0];
    lg_add_options ao = {LG_ACTIVATION_FUNCTION_TYPE_RELU, false};
    CHECK_OK(lg_op_set_options(m, 0, 3, LG_OPTS_ADD_OPTIONS, &ao, &err), &err);
    ao.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU6; /* deep copy */
    CHECK_EQ_INT(s->ops[3].opts_kind, LG_OPTS_ADD_OPTIONS);
    CHECK_EQ_INT(((const lg_add_options *)s->ops[3].opts)->fused_activation_function,
                 LG_ACTIVATION_FUNCTION_TYPE_RELU);
    /* NULL options of a kind: the schema defaults (FullyConnected keep_num_dims false, ...) */
    CHECK_OK(lg_op_set_options(m, 0, 5, LG_OPTS_FULLY_CONNECTED_OPTIONS, NULL, &err), &err);
    CHECK(s->ops[5].opts != NULL);
    CHECK_OK(lg_op_set_options(m, 0, 3, LG_OPTS_NONE, NULL, &err), &err);
    CHECK(s->ops[3].opts_kind == LG_OPTS_NONE && s->ops[3].opts == NULL);
    CHECK_ERR(lg_op_set_options(m, 0, 3, LG_OPTS_NONE, &ao, &err), &err, LG_ERR_INVALID_ARG,
              "without an options kind");
    CHECK_ERR(lg_op_set_options(m, 0, 3, (lg_opts_kind)900, &ao, &err), &err,
              LG_ERR_INVALID_ARG, "unknown options kind 900");
    CHECK_ERR(lg_op_set_options(m, 0, 3, LG_QDETAILS_CUSTOM_QUANTIZATION, NULL, &err), &err,
              LG_ERR_INVALID_ARG, "unknown options kind");
    CHECK_ERR(lg_op_set_options(m, 0, 9, LG_OPTS_NONE, NULL, &err), &err, LG_ERR_INVALID_ARG,
              "op 9 of 6");
    /* opcodes: 6 so far (TANH RELU LOGISTIC ADD MUL FULLY_CONNECTED). ADD -> SUB adds one;
       RELU -> TANH reuses opcode 0. */
    CHECK_EQ_INT(m->n_opcodes, 6);
    CHECK_OK(lg_op_set_opcode(m, 0, 3, LG_OP_SUB, NULL, 1, &err), &err);
    CHECK_EQ_INT(m->n_opcodes, 7);
    CHECK_EQ_INT(op_code(m, 3), LG_OP_SUB);
    CHECK_EQ_INT(s->ops[3].opcode_index, 6);
    CHECK_OK(lg_op_set_opcode(m, 0, 1, LG_OP_TANH, NULL, 1, &err), &err);
    CHECK_EQ_INT(m->n_opcodes, 7);
    CHECK_EQ_INT(s->ops[1].opcode_index, 0);
    CHECK_OK(lg_op_set_opcode(m, 0, 1, LG_OP_TANH, NULL, 2, &err), &err); /* new version */
    CHECK_EQ_INT(m->n_opcodes, 8);
    CHECK_EQ_INT(m->opcodes[s->ops[1].opcode_index].version, 2);
    CHECK_ERR(lg_op_set_opcode(m, 0, 1, LG_OP_CUSTOM, NULL, 1, &err), &err, LG_ERR_INVALID_ARG,
              "custom code");
    CHECK_EQ_INT(s->ops[1].opcode_index, 7);
    CHECK_OK(lg_model_validate(m, &err), &err);
    lg_model_free(m);
}

/* ---------------------------------------------------------------- replace uses */

/* x -RELU-> a; ADD(a, a) -> b; MUL(a, b) -> y; outputs a, y; signature outputs a, y; a
   second subgraph whose signature also names tensor index 1 (must not change). */
LG_TEST(graph_replace_uses) {
    for (int with_outputs = 0; with_outputs < 2; with_outputs++) {
        lg_model *m = new_model();
        if (!m) return;
        lg_error err;
        lg_builder b;
        lg_builder_init(&b, m, 0);
        int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2));
        int32_t a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(2));
        int32_t bb = lg_b_tensor(&b, "b", LG_FLOAT32, LG_DIMS(2));
        int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2));
        int32_t a2 = lg_b_tensor(&b, "a2", LG_FLOAT32, LG_DIMS(2));
        lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(a));
        lg_b_op(&b, LG_OP_ADD, LG_IDS(a, a), LG_IDS(bb));
        lg_b_op(&b, LG_OP_MUL, LG_IDS(a, bb), LG_IDS(y));
        lg_b_io(&b, LG_IDS(x), LG_IDS(a, y));
        uint32_t sg1;
        CHECK_OK(lg_model_add_subgraph(m, "other", &sg1, &err), &err);
        lg_builder b1;
        lg_builder_init(&b1, m, sg1);
        int32_t p = lg_b_tensor(&b1, "p", LG_FLOAT32, LG_DIMS(2));
        int32_t q = lg_b_tensor(&b1, "q", LG_FLOAT32, LG_DIMS(2));
        lg_b_op(&b1, LG_OP_ABS, LG_IDS(p), LG_IDS(q));
        lg_b_io(&b1, LG_IDS(p), LG_IDS(q));
        CHECK_OK(b.status, &b.err);
        CHECK_OK(b1.status, &b1.err);
        const char *in_names[1] = {"x"}, *out_names[2] = {"a", "y"}, *o1[1] = {"q"};
        uint32_t in_t[1] = {(uint32_t)x}, out_t[2] = {(uint32_t)a, (uint32_t)y};
        uint32_t q_t[1] = {(uint32_t)q};
        CHECK_OK(lg_model_add_signature(m, "main", 0, in_names, in_t, 1, out_names, out_t, 2, &err),
                 &err);
        CHECK_OK(lg_model_add_signature(m, "other", sg1, in_names, in_t, 0, o1, q_t, 1, &err),
                 &err);
        /* q is tensor 1 in subgraph 1, the same number as a in subgraph 0 */
        CHECK_EQ_INT(q, a);
        uint32_t n = 99;
        unsigned fl = with_outputs ? LG_REPLACE_OUTPUTS : 0;
        CHECK_OK(lg_tensor_replace_uses(m, 0, a, a2, fl, &n, &err), &err);
        const lg_subgraph *s = &m->subgraphs[0];
        /* op inputs: op 1 slots 0, 1 and op 2 slot 0 = 3; with outputs also subgraph
           output 0 and signature "main" output 0 = 5 */
        CHECK_EQ_INT(n, with_outputs ? 5 : 3);
        CHECK_IDS(s->ops[0].inputs, s->ops[0].n_inputs, x);
        CHECK_IDS(s->ops[0].outputs, s->ops[0].n_outputs, a); /* outputs of ops untouched */
        CHECK_IDS(s->ops[1].inputs, s->ops[1].n_inputs, a2, a2);
        CHECK_IDS(s->ops[2].inputs, s->ops[2].n_inputs, a2, bb);
        if (with_outputs) {
            CHECK_IDS(s->outputs, s->n_outputs, a2, y);
            CHECK_EQ_INT(m->signatures[0].outputs[0].tensor_index, a2);
        } else {
            CHECK_IDS(s->outputs, s->n_outputs, a, y);
            CHECK_EQ_INT(m->signatures[0].outputs[0].tensor_index, a);
        }
        CHECK_EQ_INT(m->signatures[0].outputs[1].tensor_index, y);
        CHECK_EQ_INT(m->signatures[0].inputs[0].tensor_index, x);
        CHECK_EQ_INT(m->signatures[1].outputs[0].tensor_index, q); /* other subgraph */
        CHECK_IDS(m->subgraphs[1].outputs, m->subgraphs[1].n_outputs, q);
        /* nothing left to replace */
        CHECK_OK(lg_tensor_replace_uses(m, 0, a, a2, fl, &n, &err), &err);
        CHECK_EQ_INT(n, 0);
        CHECK_OK(lg_tensor_replace_uses(m, 0, a2, a, fl, NULL, &err), &err); /* NULL count */
        CHECK_IDS(s->ops[1].inputs, s->ops[1].n_inputs, a, a);
        /* to = -1 (absent optional) only without LG_REPLACE_OUTPUTS */
        if (with_outputs)
            CHECK_ERR(lg_tensor_replace_uses(m, 0, bb, -1, fl, &n, &err), &err,
                      LG_ERR_INVALID_ARG, "by tensor -1");
        else {
            CHECK_OK(lg_tensor_replace_uses(m, 0, bb, -1, fl, &n, &err), &err);
            CHECK_EQ_INT(n, 1);
            CHECK_IDS(s->ops[2].inputs, s->ops[2].n_inputs, a, -1);
        }
        CHECK_ERR(lg_tensor_replace_uses(m, 0, 5, a, fl, &n, &err), &err, LG_ERR_INVALID_ARG,
                  "tensor 5 of 5");
        CHECK_ERR(lg_tensor_replace_uses(m, 0, a, 5, fl, &n, &err), &err, LG_ERR_INVALID_ARG,
                  "by tensor 5 of 5");
        CHECK_ERR(lg_tensor_replace_uses(m, 0, a, a2, 8, &n, &err), &err, LG_ERR_INVALID_ARG,
                  "unknown replace flags");
        CHECK_OK(lg_model_validate(m, &err), &err);
        lg_model_free(m);
    }
}

/* ---------------------------------------------------------------- tensors */

LG_TEST(graph_set_const_shared_buffer) {
    lg_model *m = new_model();
    if (!m) return;
    lg_error err;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    static const float one[4] = {1, 2, 3, 4};
    int32_t c1 = lg_b_const_f32(&b, "c1", LG_DIMS(4), one);
    int32_t c2 = lg_b_tensor(&b, "c2", LG_FLOAT32, LG_DIMS(4));
    CHECK_OK(b.status, &b.err);
    lg_subgraph *s = &m->subgraphs[0];
    s->tensors[c2].buffer = s->tensors[c1].buffer; /* as a deduplicating converter writes */
    float sc = 0.5f;
    CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)c2, &sc, NULL, 1, 0, &err), &err);
    CHECK(lg_tensor_is_const(m, 0, c2));
    float two[4] = {5, 6, 7, 8};
    CHECK_EQ_INT(m->n_buffers, 2);
    CHECK_OK(lg_tensor_set_const(m, 0, c2, LG_FLOAT32, two, sizeof two, &err), &err);
    two[0] = 99; /* copied */
    s = &m->subgraphs[0];
    CHECK_EQ_INT(m->n_buffers, 3);
    CHECK_EQ_INT(s->tensors[c1].buffer, 1);
    CHECK_EQ_INT(s->tensors[c2].buffer, 2);
    float got[4];
    memcpy(got, m->buffers[1].data, sizeof got);
    CHECK(got[0] == 1 && got[3] == 4); /* the other tensor's data is unchanged */
    memcpy(got, m->buffers[2].data, sizeof got);
    CHECK(got[0] == 5 && got[3] == 8);
    CHECK(s->tensors[c2].quant != NULL); /* kept */
    CHECK_OK(lg_tensor_clear_quant(m, 0, c2, &err), &err);
    CHECK(s->tensors[c2].quant == NULL);
    /* a runtime tensor becomes constant, with another type: 4 INT8 = 4 bytes */
    int32_t r = -1;
    int32_t shape4[1] = {4};
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "r", LG_FLOAT32, shape4, 1, &r, &err), &err);
    CHECK(!lg_tensor_is_const(m, 0, r));
    const int8_t i8[4] = {-1, 0, 1, 2};
    CHECK_OK(lg_tensor_set_const(m, 0, r, LG_INT8, i8, 4, &err), &err);
    CHECK(lg_tensor_is_const(m, 0, r));
    CHECK_EQ_INT(m->subgraphs[0].tensors[r].type, LG_INT8);
    /* a 0-element constant is a constant (an empty data vector) */
    int32_t e = -1, zero[1] = {0};
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "e", LG_INT32, zero, 1, &e, &err), &err);
    CHECK_OK(lg_tensor_set_const(m, 0, e, LG_INT32, NULL, 0, &err), &err);
    CHECK(lg_tensor_is_const(m, 0, e));
    /* errors: size (4 floats need 16 bytes), no data, type, tensor */
    uint32_t nb = m->n_buffers;
    CHECK_ERR(lg_tensor_set_const(m, 0, c1, LG_FLOAT32, two, 12, &err), &err, LG_ERR_INVALID_ARG,
              "12 bytes of data, the shape needs 16");
    CHECK_ERR(lg_tensor_set_const(m, 0, c1, LG_FLOAT32, NULL, 16, &err), &err, LG_ERR_INVALID_ARG,
              "no data");
    CHECK_ERR(lg_tensor_set_const(m, 0, c1, (lg_dtype)77, two, 16, &err), &err,
              LG_ERR_INVALID_ARG, "unknown type 77");
    CHECK_ERR(lg_tensor_set_const(m, 0, 9, LG_FLOAT32, two, 16, &err), &err, LG_ERR_INVALID_ARG,
              "tensor 9 of 4");
    CHECK_EQ_INT(m->n_buffers, nb);
    CHECK_EQ_INT(m->subgraphs[0].tensors[c1].buffer, 1);
    CHECK_OK(lg_model_validate(m, &err), &err);
    lg_model_free(m);
}

LG_TEST(graph_set_shape) {
    lg_model *m = new_model();
    if (!m) return;
    lg_error err;
    int32_t t = -1, u = -1;
    int32_t sh[3] = {1, 2, 3};
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "t", LG_FLOAT32, sh, 3, &t, &err), &err);
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "u", LG_FLOAT32, sh, 3, &u, &err), &err);
    int32_t sig[3] = {-1, 2, 3};
    CHECK_OK(lg_tensor_set_shape_signature(m, 0, (uint32_t)t, sig, 3, &err), &err);
    CHECK_OK(lg_tensor_set_shape_signature(m, 0, (uint32_t)u, sig, 3, &err), &err);
    const int32_t *old = m->subgraphs[0].tensors[t].shape;
    int32_t ns[3] = {4, 5, 6};
    CHECK_OK(lg_tensor_set_shape(m, 0, t, ns, 3, &err), &err); /* same rank: signature kept */
    ns[0] = 9;
    const lg_tensor *x = &m->subgraphs[0].tensors[t];
    CHECK_IDS(x->shape, x->rank, 4, 5, 6);
    CHECK_IDS(old, 3, 1, 2, 3); /* the old array is not written */
    CHECK(x->shape_signature != NULL && x->n_shape_signature == 3);
    int32_t two[2] = {7, 8};
    CHECK_OK(lg_tensor_set_shape(m, 0, u, two, 2, &err), &err); /* rank 3 -> 2: dropped */
    const lg_tensor *y = &m->subgraphs[0].tensors[u];
    CHECK_IDS(y->shape, y->rank, 7, 8);
    CHECK(y->shape_signature == NULL && y->n_shape_signature == 0);
    CHECK_OK(lg_tensor_set_shape(m, 0, u, NULL, 0, &err), &err); /* scalar */
    CHECK(y->shape != NULL && y->rank == 0 && y->has_rank);
    int32_t neg[2] = {2, -1};
    CHECK_ERR(lg_tensor_set_shape(m, 0, t, neg, 2, &err), &err, LG_ERR_INVALID_ARG,
              "dimension 1 is -1");
    CHECK_ERR(lg_tensor_set_shape(m, 0, t, NULL, 2, &err), &err, LG_ERR_INVALID_ARG, "no shape");
    CHECK_ERR(lg_tensor_set_shape(m, 0, 2, two, 2, &err), &err, LG_ERR_INVALID_ARG,
              "tensor 2 of 2");
    CHECK_IDS(x->shape, x->rank, 4, 5, 6);
    CHECK_OK(lg_model_validate(m, &err), &err);
    lg_model_free(m);
}

/* ---------------------------------------------------------------- toposort */

LG_TEST(graph_toposort_shuffled) {
    lg_model *m = new_model();
    if (!m) return;
    lg_error err;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2));
    int32_t a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(2));
    int32_t bb = lg_b_tensor(&b, "b", LG_FLOAT32, LG_DIMS(2));
    int32_t c = lg_b_tensor(&b, "c", LG_FLOAT32, LG_DIMS(2));
    int32_t d = lg_b_tensor(&b, "d", LG_FLOAT32, LG_DIMS(2));
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(c, bb), LG_IDS(y));    /* 0: needs ops 3 and 1 */
    lg_b_op(&b, LG_OP_RELU, LG_IDS(a), LG_IDS(bb));      /* 1: needs op 2 */
    lg_b_op(&b, LG_OP_TANH, LG_IDS(x), LG_IDS(a));       /* 2: ready */
    lg_b_op(&b, LG_OP_LOGISTIC, LG_IDS(a), LG_IDS(c));   /* 3: needs op 2 */
    lg_b_op(&b, LG_OP_ABS, LG_IDS(x, -1), LG_IDS(d));    /* 4: ready */
    lg_b_io(&b, LG_IDS(x), LG_IDS(y, d));
    CHECK_OK(b.status, &b.err);
    /* Kahn, lowest index first: ready {2, 4} -> 2; now {1, 3, 4} -> 1 (op 0 waits for 3);
       {3, 4} -> 3; {0, 4} -> 0; {4} -> 4. Order: 2 1 3 0 4. */
    bool changed = false;
    CHECK_OK(lg_subgraph_toposort(m, 0, &changed, &err), &err);
    CHECK(changed);
    CHECK_EQ_INT(op_code(m, 0), LG_OP_TANH);
    CHECK_EQ_INT(op_code(m, 1), LG_OP_RELU);
    CHECK_EQ_INT(op_code(m, 2), LG_OP_LOGISTIC);
    CHECK_EQ_INT(op_code(m, 3), LG_OP_ADD);
    CHECK_EQ_INT(op_code(m, 4), LG_OP_ABS);
    CHECK_IDS(m->subgraphs[0].ops[3].inputs, m->subgraphs[0].ops[3].n_inputs, c, bb);
    /* sorted now: unchanged, also with a NULL flag */
    changed = true;
    CHECK_OK(lg_subgraph_toposort(m, 0, &changed, &err), &err);
    CHECK(!changed);
    CHECK_OK(lg_subgraph_toposort(m, 0, NULL, &err), &err);
    CHECK_EQ_INT(op_code(m, 0), LG_OP_TANH);
    CHECK_EQ_INT(op_code(m, 3), LG_OP_ADD);
    /* an already sorted graph that is not "lowest first" for independent ops stays too:
       move ABS (independent) to the front: ABS TANH RELU LOGISTIC ADD is sorted */
    int32_t in[2] = {x, -1}, out[1] = {d};
    CHECK_OK(lg_op_remove(m, 0, 4, &err), &err);
    CHECK_OK(lg_op_insert(m, 0, 0, LG_OP_ABS, NULL, 1, in, 2, out, 1, LG_OPTS_NONE, NULL, &err),
             &err);
    CHECK_OK(lg_subgraph_toposort(m, 0, &changed, &err), &err);
    CHECK(!changed);
    CHECK_EQ_INT(op_code(m, 0), LG_OP_ABS);
    CHECK_EQ_INT(op_code(m, 4), LG_OP_ADD);
    /* the empty subgraph */
    uint32_t e;
    CHECK_OK(lg_model_add_subgraph(m, "empty", &e, &err), &err);
    CHECK_OK(lg_subgraph_toposort(m, e, &changed, &err), &err);
    CHECK(!changed);
    CHECK_OK(lg_model_validate(m, &err), &err);
    lg_model_free(m);
}

LG_TEST(graph_toposort_cycle_and_double_producer) {
    lg_model *m = new_model();
    if (!m) return;
    lg_error err;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2));
    int32_t a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(2));
    int32_t bb = lg_b_tensor(&b, "b", LG_FLOAT32, LG_DIMS(2));
    int32_t d = lg_b_tensor(&b, "d", LG_FLOAT32, LG_DIMS(2));
    int32_t e = lg_b_tensor(&b, "e", LG_FLOAT32, LG_DIMS(2));
    lg_b_op(&b, LG_OP_LOGISTIC, LG_IDS(a), LG_IDS(d)); /* 0: downstream of the cycle, not on it */
    lg_b_op(&b, LG_OP_RELU, LG_IDS(bb), LG_IDS(a));    /* 1: cycle a -> b -> a */
    lg_b_op(&b, LG_OP_TANH, LG_IDS(a), LG_IDS(bb));    /* 2 */
    lg_b_op(&b, LG_OP_ABS, LG_IDS(x), LG_IDS(e));      /* 3: fine */
    lg_b_io(&b, LG_IDS(x), LG_IDS(d, e));
    CHECK_OK(b.status, &b.err);
    /* unplaced after Kahn: 0, 1, 2. Walking back n = 4 steps from op 0: a -> op 1,
       b -> op 2, a -> op 1, b -> op 2: op 2 is named, never op 0 */
    bool changed = true;
    CHECK_ERR(lg_subgraph_toposort(m, 0, &changed, &err), &err, LG_ERR_INVALID_ARG,
              "subgraph 0 op 2 (TANH): is on a cycle");
    CHECK_EQ_INT(err.op, 2);
    CHECK(!changed);
    CHECK_EQ_INT(op_code(m, 0), LG_OP_LOGISTIC); /* unchanged order */
    CHECK_EQ_INT(op_code(m, 3), LG_OP_ABS);
    /* a self-loop: op 1 reads its own output */
    CHECK_OK(lg_op_set_input(m, 0, 1, 0, a, &err), &err);
    CHECK_ERR(lg_subgraph_toposort(m, 0, &changed, &err), &err, LG_ERR_INVALID_ARG,
              "op 1 (RELU): is on a cycle");
    /* near miss: break the cycle (op 1 reads x). Ready {1, 3} -> 1; {0, 2, 3} -> 0 -> 2 -> 3:
       RELU LOGISTIC TANH ABS */
    CHECK_OK(lg_op_set_input(m, 0, 1, 0, x, &err), &err);
    CHECK_OK(lg_subgraph_toposort(m, 0, &changed, &err), &err);
    CHECK(changed);
    CHECK_EQ_INT(op_code(m, 0), LG_OP_RELU);
    CHECK_EQ_INT(op_code(m, 1), LG_OP_LOGISTIC);
    CHECK_EQ_INT(op_code(m, 2), LG_OP_TANH);
    CHECK_EQ_INT(op_code(m, 3), LG_OP_ABS);
    /* double producer: op 3 (ABS) now also writes a (first written by op 0) */
    CHECK_OK(lg_op_set_output(m, 0, 3, 0, a, &err), &err);
    CHECK_ERR(lg_subgraph_toposort(m, 0, &changed, &err), &err, LG_ERR_INVALID_ARG,
              "subgraph 0 op 3 (ABS): output tensor 1 is also produced by op 0");
    CHECK_EQ_INT(err.tensor, a);
    CHECK_ERR(lg_subgraph_toposort(m, 3, &changed, &err), &err, LG_ERR_INVALID_ARG,
              "subgraph 3 of 1");
    lg_model_free(m);
}

/* ---------------------------------------------------------------- compaction */

/* Built in this order (indices in brackets):
   opcodes: SUB [0] unused, ADD [1], MUL [2], RELU [3] (subgraph 1)
   subgraph 0 tensors: x [0] input, dead [1], w [2] const buf 1, deadc [3] const buf 2,
     w2 [4] const buf 3 then pointed at buf 1 (shared with w), a [5], y [6] output,
     s [7] only in the signature
   buffers: 0 sentinel, 1 w, 2 deadc, 3 w2's own (orphaned), 4 metadata "meta", 5 unused,
     and metadata_buffer = {4}
   ops: ADD(x, w) -> a; MUL(a, w2) -> y
   subgraph 1: p [0] input, r [1] dead, q [2] output; RELU(p) -> q
   signature "serve" (subgraph 0): inputs x, s; outputs y.

   Kept tensors of subgraph 0: 0 2 4 5 6 7 -> map 0->0 1->-1 2->1 3->-1 4->2 5->3 6->4 7->5;
   subgraph 1: 0 2 -> 0->0 1->-1 2->1. Removed 2 + 1 = 3.
   Buffers kept: 0, 1 (w and w2), 4 (metadata) -> 0, 1, 2; removed 2, 3, 5 = 3.
   Opcodes kept ADD MUL RELU -> 0 1 2; removed SUB = 1. */
static lg_model *make_compact_model(void) {
    lg_model *m = new_model();
    if (!m) return NULL;
    lg_error err;
    uint32_t oc;
    CHECK_OK(lg_model_opcode(m, LG_OP_SUB, NULL, 1, &oc, &err), &err);
    lg_builder b;
    lg_builder_init(&b, m, 0);
    static const float f4[4] = {1, 2, 3, 4}, g4[4] = {5, 6, 7, 8}, h4[4] = {9, 9, 9, 9};
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(4));
    lg_b_tensor(&b, "dead", LG_FLOAT32, LG_DIMS(4));
    int32_t w = lg_b_const_f32(&b, "w", LG_DIMS(4), f4);
    lg_b_const_f32(&b, "deadc", LG_DIMS(4), g4);
    int32_t w2 = lg_b_const_f32(&b, "w2", LG_DIMS(4), h4);
    int32_t a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(4));
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(4));
    int32_t s = lg_b_tensor(&b, "s", LG_FLOAT32, LG_DIMS(4));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(x, w), LG_IDS(a));
    lg_b_op(&b, LG_OP_MUL, LG_IDS(a, w2), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_OK(b.status, &b.err);
    m->subgraphs[0].tensors[w2].buffer = m->subgraphs[0].tensors[w].buffer;
    CHECK_OK(lg_model_add_metadata(m, "meta", "hello", 5, &err), &err);
    uint32_t unused_buf;
    CHECK_OK(lg_model_add_buffer(m, g4, sizeof g4, &unused_buf, &err), &err);
    CHECK_EQ_INT(unused_buf, 5);
    static const int32_t md_buf[1] = {4}; /* read-only: compaction must copy, not write */
    m->metadata_buffer = md_buf;
    m->n_metadata_buffer = 1;
    uint32_t sg1;
    CHECK_OK(lg_model_add_subgraph(m, "second", &sg1, &err), &err);
    lg_builder b1;
    lg_builder_init(&b1, m, sg1);
    int32_t p = lg_b_tensor(&b1, "p", LG_FLOAT32, LG_DIMS(4));
    lg_b_tensor(&b1, "r", LG_FLOAT32, LG_DIMS(4));
    int32_t q = lg_b_tensor(&b1, "q", LG_FLOAT32, LG_DIMS(4));
    lg_b_op(&b1, LG_OP_RELU, LG_IDS(p), LG_IDS(q));
    lg_b_io(&b1, LG_IDS(p), LG_IDS(q));
    CHECK_OK(b1.status, &b1.err);
    const char *in_names[2] = {"x", "s"}, *out_names[1] = {"y"};
    uint32_t in_t[2] = {(uint32_t)x, (uint32_t)s}, out_t[1] = {(uint32_t)y};
    CHECK_OK(lg_model_add_signature(m, "serve", 0, in_names, in_t, 2, out_names, out_t, 1, &err),
             &err);
    CHECK_EQ_INT(m->n_opcodes, 4);
    CHECK_EQ_INT(m->n_buffers, 6);
    return m;
}

static void check_compacted(const lg_model *m) {
    const lg_subgraph *s = &m->subgraphs[0];
    CHECK_EQ_INT(s->n_tensors, 6);
    static const char *const names[6] = {"x", "w", "w2", "a", "y", "s"};
    for (uint32_t i = 0; i < 6 && i < s->n_tensors; i++) CHECK_STR(s->tensors[i].name, names[i]);
    CHECK_EQ_INT(s->tensors[0].buffer, 0);
    CHECK_EQ_INT(s->tensors[1].buffer, 1);
    CHECK_EQ_INT(s->tensors[2].buffer, 1); /* still shared */
    CHECK_EQ_INT(s->tensors[3].buffer, 0);
    CHECK_IDS(s->ops[0].inputs, s->ops[0].n_inputs, 0, 1);
    CHECK_IDS(s->ops[0].outputs, s->ops[0].n_outputs, 3);
    CHECK_IDS(s->ops[1].inputs, s->ops[1].n_inputs, 3, 2);
    CHECK_IDS(s->ops[1].outputs, s->ops[1].n_outputs, 4);
    CHECK_IDS(s->inputs, s->n_inputs, 0);
    CHECK_IDS(s->outputs, s->n_outputs, 4);
    CHECK_EQ_INT(s->ops[0].opcode_index, 0);
    CHECK_EQ_INT(s->ops[1].opcode_index, 1);
    CHECK_EQ_INT(lg_op_builtin(m, &s->ops[0]), LG_OP_ADD);
    CHECK_EQ_INT(lg_op_builtin(m, &s->ops[1]), LG_OP_MUL);
    const lg_subgraph *s1 = &m->subgraphs[1];
    CHECK_EQ_INT(s1->n_tensors, 2);
    CHECK_STR(s1->tensors[1].name, "q");
    CHECK_IDS(s1->ops[0].outputs, s1->ops[0].n_outputs, 1);
    CHECK_IDS(s1->outputs, s1->n_outputs, 1);
    CHECK_EQ_INT(lg_op_builtin(m, &s1->ops[0]), LG_OP_RELU);
    CHECK_EQ_INT(m->n_opcodes, 3);
    CHECK_EQ_INT(m->n_buffers, 3);
    CHECK(m->buffers[0].data == NULL);
    float f;
    memcpy(&f, m->buffers[1].data, 4);
    CHECK(f == 1.0f);
    CHECK_EQ_INT(m->n_metadata, 1);
    CHECK_EQ_INT(m->metadata[0].buffer, 2);
    CHECK(m->buffers[2].size == 5 && memcmp(m->buffers[2].data, "hello", 5) == 0);
    CHECK_IDS(m->metadata_buffer, m->n_metadata_buffer, 2);
    CHECK_EQ_INT(m->signatures[0].inputs[0].tensor_index, 0);
    CHECK_EQ_INT(m->signatures[0].inputs[1].tensor_index, 5);
    CHECK_EQ_INT(m->signatures[0].outputs[0].tensor_index, 4);
}

LG_TEST(graph_compact) {
    lg_model *m = make_compact_model();
    if (!m) return;
    lg_error err;
    lg_compact_stats st = {9, 9, 9};
    int32_t map[8];
    memset(map, 0x55, sizeof map);
    CHECK_OK(lg_model_compact(m, &st, map, &err), &err);
    CHECK_EQ_INT(st.tensors_removed, 3);
    CHECK_EQ_INT(st.buffers_removed, 3);
    CHECK_EQ_INT(st.opcodes_removed, 1);
    static const int32_t want_map[8] = {0, -1, 1, -1, 2, 3, 4, 5};
    for (int i = 0; i < 8; i++) CHECK_EQ_INT(map[i], want_map[i]);
    check_compacted(m);
    CHECK_OK(lg_model_validate(m, &err), &err);
    /* near miss: nothing more to remove, nothing moves */
    CHECK_OK(lg_model_compact(m, &st, NULL, &err), &err);
    CHECK(st.tensors_removed == 0 && st.buffers_removed == 0 && st.opcodes_removed == 0);
    check_compacted(m);
    /* the written model reads back valid and the same */
    void *buf = NULL;
    size_t n = 0;
    CHECK_OK(lg_tflite_write_mem(m, NULL, &buf, &n, &err), &err);
    lg_model *r = NULL;
    if (buf) CHECK_OK(lg_tflite_read_mem(buf, n, NULL, &r, &err), &err);
    if (r) {
        check_compacted(r);
        CHECK_OK(lg_model_validate(r, &err), &err);
    }
    lg_model_free(r);
    free(buf);
    lg_model_free(m);
}

LG_TEST(graph_compact_keeps_buffer_zero_and_refuses_bad_models) {
    /* a model with only unused things: buffer 0 stays, everything else goes */
    lg_model *m = new_model();
    if (!m) return;
    lg_error err;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    static const float f1[1] = {1};
    lg_b_const_f32(&b, "c", LG_DIMS(1), f1);
    lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(1));
    CHECK_OK(b.status, &b.err);
    lg_compact_stats st;
    CHECK_OK(lg_model_compact(m, &st, NULL, &err), &err);
    CHECK_EQ_INT(st.tensors_removed, 2);
    CHECK_EQ_INT(st.buffers_removed, 1);
    CHECK_EQ_INT(m->n_buffers, 1);
    CHECK_EQ_INT(m->subgraphs[0].n_tensors, 0);
    CHECK_OK(lg_model_validate(m, &err), &err);
    lg_model_free(m);
    /* out-of-range references are refused before anything changes */
    m = make_compact_model();
    if (!m) return;
    m->subgraphs[0].tensors[2].buffer = 40;
    CHECK_ERR(lg_model_compact(m, &st, NULL, &err), &err, LG_ERR_INVALID_ARG,
              "tensor buffer (item 2, entry 0) refers to 40 of 6");
    CHECK_EQ_INT(m->subgraphs[0].n_tensors, 8);
    CHECK_EQ_INT(m->n_buffers, 6);
    m->subgraphs[0].tensors[2].buffer = 1;
    m->signatures[0].outputs[0].tensor_index = 8;
    CHECK_ERR(lg_model_compact(m, &st, NULL, &err), &err, LG_ERR_INVALID_ARG,
              "signature tensor");
    m->signatures[0].outputs[0].tensor_index = 6;
    m->subgraphs[1].ops[0].opcode_index = 4;
    CHECK_ERR(lg_model_compact(m, &st, NULL, &err), &err, LG_ERR_INVALID_ARG, "op opcode");
    m->subgraphs[1].ops[0].opcode_index = 3;
    CHECK_OK(lg_model_compact(m, &st, NULL, &err), &err);
    check_compacted(m);
    CHECK_ERR(lg_model_compact(NULL, &st, NULL, &err), &err, LG_ERR_INVALID_ARG, "no model");
    lg_model_free(m);
}

/* ---------------------------------------------------------------- a model read from bytes */

LG_TEST(graph_edits_on_read_model) {
    diamond d;
    lg_model *src = make_diamond(&d);
    if (!src) return;
    lg_error err;
    src->subgraphs[0].tensors[d.v].is_variable = false; /* a plain constant here */
    void *bytes = NULL;
    size_t n = 0;
    CHECK_OK(lg_tflite_write_mem(src, NULL, &bytes, &n, &err), &err);
    lg_model_free(src);
    if (!bytes) return;
    void *pristine = malloc(n);
    memcpy(pristine, bytes, n);
    lg_model *m = NULL;
    CHECK_OK(lg_tflite_read_mem(bytes, n, NULL, &m, &err), &err);
    if (!m) { free(bytes); free(pristine); return; }
    const uint8_t *lo = bytes, *hi = lo + n;
    const lg_subgraph *s = &m->subgraphs[0];
    const uint8_t *wdata = m->buffers[s->tensors[d.w].buffer].data;
    CHECK(wdata >= lo && wdata < hi); /* the data points into the bytes */
    /* a file-read model has exactly sized arrays (no builder capacity) */
    float nw[16];
    for (int i = 0; i < 16; i++) nw[i] = (float)i;
    CHECK_OK(lg_tensor_set_const(m, 0, d.w, LG_FLOAT32, nw, sizeof nw, &err), &err);
    CHECK_OK(lg_op_set_input(m, 0, 5, 2, d.v, &err), &err);       /* FC bias: v */
    CHECK_OK(lg_tensor_replace_uses(m, 0, d.c, d.b, LG_REPLACE_OUTPUTS, NULL, &err), &err);
    CHECK_OK(lg_op_remove(m, 0, 2, &err), &err);                    /* LOGISTIC, now dead */
    int32_t in[1] = {d.y}, out[1] = {d.c};
    CHECK_OK(lg_op_insert(m, 0, 0, LG_OP_EXP, NULL, 1, in, 1, out, 1, LG_OPTS_NONE, NULL, &err),
             &err); /* EXP(y) -> c at the front: out of order */
    int32_t sh[2] = {1, 4}; /* EXP keeps y's shape: what shape inference holds c to */
    CHECK_OK(lg_tensor_set_shape(m, 0, d.c, sh, 2, &err), &err);
    bool changed = false;
    CHECK_OK(lg_subgraph_toposort(m, 0, &changed, &err), &err);
    CHECK(changed);
    /* before: EXP TANH RELU ADD MUL FC (EXP reads y from ADD, index 3).
       Kahn: ready {1 TANH} -> {2 RELU, 4 MUL, 5 FC} -> 2 -> {3 ADD, 4, 5} -> 3 -> {0 EXP, 4, 5}
       -> 0 -> 4 -> 5: TANH RELU ADD EXP MUL FC */
    static const int32_t want[6] = {LG_OP_TANH, LG_OP_RELU, LG_OP_ADD, LG_OP_EXP, LG_OP_MUL,
                                    LG_OP_FULLY_CONNECTED};
    for (uint32_t i = 0; i < 6; i++) CHECK_EQ_INT(op_code(m, i), want[i]);
    CHECK_OK(lg_subgraph_set_io(m, 0, (const int32_t[]){d.x}, 1,
                                (const int32_t[]){d.y, d.z, d.f, d.c}, 4, &err), &err);
    lg_compact_stats st;
    CHECK_OK(lg_model_compact(m, &st, NULL, &err), &err);
    /* no tensor is dead (c is EXP's output and a graph output); w moved to a new buffer, so
       its old one (pointing into the bytes) is unused; the LOGISTIC opcode is unused */
    CHECK_EQ_INT(st.tensors_removed, 0);
    CHECK_EQ_INT(st.buffers_removed, 1);
    CHECK_EQ_INT(st.opcodes_removed, 1);
    CHECK(memcmp(bytes, pristine, n) == 0); /* the source bytes are untouched */
    CHECK_OK(lg_model_validate(m, &err), &err);
    /* write, read back: valid, and the edits are there */
    void *b2 = NULL;
    size_t n2 = 0;
    CHECK_OK(lg_tflite_write_mem(m, NULL, &b2, &n2, &err), &err);
    lg_model *r = NULL;
    if (b2) CHECK_OK(lg_tflite_read_mem(b2, n2, NULL, &r, &err), &err);
    if (r) {
        CHECK_OK(lg_model_validate(r, &err), &err);
        const lg_subgraph *rs = &r->subgraphs[0];
        CHECK_EQ_INT(rs->n_ops, 6);
        for (uint32_t i = 0; i < 6 && i < rs->n_ops; i++) CHECK_EQ_INT(op_code(r, i), want[i]);
        CHECK_IDS(rs->ops[2].inputs, rs->ops[2].n_inputs, d.b, d.b); /* ADD(b, b) */
        CHECK_IDS(rs->ops[5].inputs, rs->ops[5].n_inputs, d.a, d.w, d.v);
        float got[16];
        const lg_buffer *wb = lg_tensor_buffer(r, &rs->tensors[d.w]);
        CHECK(wb && wb->size == 64);
        if (wb) {
            memcpy(got, wb->data, sizeof got);
            CHECK(got[0] == 0 && got[15] == 15);
        }
        CHECK_IDS(rs->tensors[d.c].shape, rs->tensors[d.c].rank, 1, 4);
    }
    lg_model_free(r);
    free(b2);
    lg_model_free(m);
    free(bytes);
    free(pristine);
}

/* ---------------------------------------------------------------- failing allocator */

/* Counts allocations (nsize > 0) and fails exactly the fail_at-th one; tracks live blocks. */
static long alloc_count, alloc_fail_at, alloc_live;
static void *count_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        if (ptr) alloc_live--;
        free(ptr);
        return NULL;
    }
    if (++alloc_count == alloc_fail_at) return NULL;
    void *p = realloc(ptr, nsize);
    if (p && !ptr) alloc_live++;
    return p;
}

/* Fill the arena so that its next allocation needs a fresh chunk from the hook: a block of
   the arena's chunk size (64 KiB, src/util/arena.c) gets a chunk of its own, used up. */
static lg_status fill_arena(lg_model *m) {
    return lgi_arena_alloc(&m->priv->arena, 64 * 1024) ? LG_OK : LG_ERR_NOMEM;
}

/* The sweep's scenario: every kind of call that allocates, each (after fill_arena) needing
   a new arena chunk. Returns the first failure. */
static lg_status scenario(lg_model *m, int32_t n0, lg_error *err) {
    lg_graph *g = NULL;
    LG_TRY(lg_graph_build(m, 0, &g, err));
    lg_graph_free(g);
    LG_TRY(lg_subgraph_toposort(m, 0, NULL, err)); /* built shuffled */
    static float big[70000];
    int32_t t = -1;
    LG_TRY(fill_arena(m));
    LG_TRY(lg_subgraph_add_tensor(m, 0, "big", LG_FLOAT32, (const int32_t[]){70000}, 1, &t, err));
    LG_TRY(lg_tensor_set_const(m, 0, t, LG_FLOAT32, big, sizeof big, err));
    LG_TRY(fill_arena(m));
    for (uint32_t i = 0; i < 3000; i++)
        LG_TRY(lg_op_set_input(m, 0, i % (uint32_t)n0, 0, (int32_t)(i % 2), err));
    LG_TRY(fill_arena(m));
    LG_TRY(lg_op_set_inputs(m, 0, 3, (const int32_t[]){2, -1}, 2, err));
    LG_TRY(fill_arena(m));
    LG_TRY(lg_op_set_output(m, 0, 40, 0, 41, err)); /* op 40 writes t41 already: no change */
    LG_TRY(fill_arena(m));
    LG_TRY(lg_tensor_replace_uses(m, 0, 1, 0, LG_REPLACE_OUTPUTS, NULL, err));
    LG_TRY(lg_op_remove(m, 0, 0, err)); /* t1 is dead now: compaction renumbers */
    for (int i = 0; i < 39; i++) { /* tensors 61..99 have no producer yet */
        if (i % 10 == 0) LG_TRY(fill_arena(m));
        LG_TRY(lg_op_insert(m, 0, 1, LG_OP_ABS, NULL, 1, (const int32_t[]){0}, 1,
                            (const int32_t[]){61 + i}, 1, LG_OPTS_NONE, NULL, err));
    }
    LG_TRY(fill_arena(m));
    LG_TRY(lg_op_set_options(m, 0, 2, LG_OPTS_ADD_OPTIONS, NULL, err));
    LG_TRY(fill_arena(m));
    LG_TRY(lg_op_set_opcode(m, 0, 2, LG_OP_CUSTOM, "Mine", 1, err));
    LG_TRY(fill_arena(m));
    LG_TRY(lg_tensor_set_shape(m, 0, 2, (const int32_t[]){1, 8}, 2, err));
    LG_TRY(lg_subgraph_toposort(m, 0, NULL, err));
    LG_TRY(fill_arena(m));
    LG_TRY(lg_model_compact(m, NULL, NULL, err));
    LG_TRY(lg_graph_build(m, 0, &g, err));
    lg_graph_free(g);
    return LG_OK;
}

LG_TEST(graph_failing_allocator_sweep) {
    int completed = 0, failures = 0;
    for (long k = 1; k < 100000 && !completed; k++) {
        alloc_count = 0;
        alloc_fail_at = 0; /* no failure while building */
        alloc_live = 0;
        lg_model *m = NULL;
        lg_error err;
        if (lg_model_new(count_alloc, NULL, &m, &err) != LG_OK) {
            CHECK(0);
            return;
        }
        /* 100 tensors; ops i = 0..59 in reverse order: op j reads t[59-j], writes t[60-j] */
        lg_builder b;
        lg_builder_init(&b, m, 0);
        for (int i = 0; i < 100; i++) lg_b_tensor(&b, "t", LG_FLOAT32, LG_DIMS(8));
        const int32_t n0 = 60;
        for (int32_t j = 0; j < n0; j++)
            lg_b_op(&b, LG_OP_RELU, LG_IDS(n0 - 1 - j), LG_IDS(n0 - j));
        lg_b_io(&b, LG_IDS(0), LG_IDS(n0));
        if (b.status != LG_OK) {
            CHECK_OK(b.status, &b.err);
            lg_model_free(m);
            return;
        }
        alloc_count = 0;
        alloc_fail_at = k;
        lg_status st = scenario(m, n0, &err);
        if (alloc_count < k) {
            CHECK_OK(st, &err);
            completed = 1;
        } else {
            failures++;
            if (st != LG_ERR_NOMEM)
                tf_fail(__FILE__, __LINE__, "k=%ld: status %d (%s), expected NOMEM", k, (int)st,
                        err.msg);
        }
        alloc_fail_at = 0;
        /* whatever failed, the model is still sound */
        lg_status v = lg_model_validate(m, &err);
        if (v != LG_OK) tf_fail(__FILE__, __LINE__, "k=%ld: invalid after failure: %s", k, err.msg);
        lg_model_free(m);
        if (alloc_live != 0) tf_fail(__FILE__, __LINE__, "k=%ld: %ld blocks leaked", k, alloc_live);
    }
    CHECK(completed);
    CHECK(failures >= 35); /* the sweep really hit many allocations (40 when written) */
}

/* A compaction that fails (in its scratch maps or in its staged arena copies) leaves the
   model exactly as it was; the one that finally succeeds gives the hand-derived result. */
LG_TEST(graph_compact_failure_changes_nothing) {
    int completed = 0, failures = 0;
    for (long k = 1; k < 100 && !completed; k++) {
        alloc_count = 0;
        alloc_fail_at = 0;
        alloc_live = 0;
        lg_model *m = NULL;
        lg_error err;
        if (lg_model_new(count_alloc, NULL, &m, &err) != LG_OK) { CHECK(0); return; }
        lg_builder b;
        lg_builder_init(&b, m, 0);
        int32_t dead = lg_b_tensor(&b, "dead", LG_FLOAT32, LG_DIMS(2)); /* 0: shifts all */
        int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2));
        int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2));
        lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(y));
        lg_b_io(&b, LG_IDS(x), LG_IDS(y));
        CHECK_OK(b.status, &b.err);
        (void)dead;
        CHECK(fill_arena(m) == LG_OK); /* the first staged copy needs a new chunk */
        alloc_count = 0;
        alloc_fail_at = k;
        lg_compact_stats st;
        lg_status s = lg_model_compact(m, &st, NULL, &err);
        alloc_fail_at = 0;
        const lg_subgraph *g = &m->subgraphs[0];
        if (s == LG_OK) {
            completed = 1;
            CHECK_EQ_INT(st.tensors_removed, 1);
            CHECK_EQ_INT(g->n_tensors, 2);
            CHECK_IDS(g->ops[0].inputs, g->ops[0].n_inputs, 0);
            CHECK_IDS(g->ops[0].outputs, g->ops[0].n_outputs, 1);
            CHECK_IDS(g->inputs, g->n_inputs, 0);
            CHECK_IDS(g->outputs, g->n_outputs, 1);
        } else {
            failures++;
            CHECK_EQ_INT(s, LG_ERR_NOMEM);
            CHECK_EQ_INT(g->n_tensors, 3);
            CHECK_STR(g->tensors[0].name, "dead");
            CHECK_IDS(g->ops[0].inputs, g->ops[0].n_inputs, 1);
            CHECK_IDS(g->ops[0].outputs, g->ops[0].n_outputs, 2);
            CHECK_IDS(g->inputs, g->n_inputs, 1);
            CHECK_IDS(g->outputs, g->n_outputs, 2);
        }
        lg_model_free(m);
        CHECK_EQ_INT(alloc_live, 0);
    }
    CHECK(completed);
    /* 6 scratch blocks, then the arena chunk of the first staged copy: 7 failing points */
    CHECK_EQ_INT(failures, 7);
}
