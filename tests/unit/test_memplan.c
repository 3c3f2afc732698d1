/* The planned peak activation memory, on a graph where the answer is derived by hand.
 *
 *   x[1000] -> op0 a = RELU(x) -> op1 b = TANH(a) -> op2 c = ADD(a, b) -> op3 d = RELU(c) (output)
 *
 * Every tensor is 1000 floats = 4000 bytes. Lifetimes (first op .. last op that needs it):
 *   x: input .. 0;  a: 0 .. 2;  b: 1 .. 2;  c: 2 .. 3;  d: 3 .. end (graph output).
 * Live bytes per op: op0 {x, a} 8000; op1 {a, b} 8000; op2 {a, b, c} 12000; op3 {c, d} 8000.
 * So the peak is 12000 bytes at op 2 with a, b, c live.
 * Arena (greedy by size, ties by tensor index, 64-byte aligned slots of 4032 bytes):
 *   x@0; a overlaps x -> @4032; b overlaps a only -> @0; c overlaps a and b -> @8064;
 *   d overlaps c only -> @0. Arena = 8064 + 4032 = 12096 bytes.
 * With keep_all no memory is reused: 5 x 4032 = 20160 bytes. */
#include <string.h>

#include "lg/run.h"
#include "tf.h"

static lg_model *chain(int *ta, int *tb, int *tc) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) return NULL;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 1000));
    int a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, 1000));
    int bb = lg_b_tensor(&b, "b", LG_FLOAT32, LG_DIMS(1, 1000));
    int c = lg_b_tensor(&b, "c", LG_FLOAT32, LG_DIMS(1, 1000));
    int d = lg_b_tensor(&b, "d", LG_FLOAT32, LG_DIMS(1, 1000));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(a));
    lg_b_op(&b, LG_OP_TANH, LG_IDS(a), LG_IDS(bb));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(a, bb), LG_IDS(c));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(c), LG_IDS(d));
    lg_b_io(&b, LG_IDS(x), LG_IDS(d));
    CHECK_OK(b.status, &b.err);
    *ta = a; *tb = bb; *tc = c;
    return m;
}

LG_TEST(memplan_hand_derived_peak) {
    int a, b, c;
    lg_model *m = chain(&a, &b, &c);
    if (!m) return;
    lg_interp *it = NULL;
    lg_error err;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    CHECK_OK(lg_interp_create(m, &ro, &it, &err), &err);
    if (it) {
        const lg_mem_plan *p = lg_interp_mem_plan(it);
        CHECK_EQ_INT(p->peak_live_bytes, 12000);
        CHECK_EQ_INT(p->peak_op, 2);
        CHECK_EQ_INT(p->n_peak_tensors, 3);
        if (p->n_peak_tensors == 3) {
            CHECK_EQ_INT(p->peak_tensors[0], a);
            CHECK_EQ_INT(p->peak_tensors[1], b);
            CHECK_EQ_INT(p->peak_tensors[2], c);
        }
        CHECK_EQ_INT(p->arena_bytes, 12096);
        /* the reused buffers still compute the right answer: d = relu(relu(x) + tanh(relu(x))) */
        float x[1000], want;
        for (int i = 0; i < 1000; i++) x[i] = (float)(i - 500) / 100.0f;
        CHECK_OK(lg_interp_set_input(it, 0, LG_FLOAT32, x, sizeof x, &err), &err);
        CHECK_OK(lg_interp_invoke(it, &err), &err);
        lg_tensor_view v;
        lg_interp_output(it, 0, &v);
        int bad = 0;
        for (int i = 0; i < 1000 && v.data; i++) {
            float r = x[i] > 0 ? x[i] : 0;
            want = r + tanhf(r);
            if (fabsf(((const float *)v.data)[i] - want) > 1e-6f) bad++;
        }
        CHECK_EQ_INT(bad, 0);
        lg_interp_free(it);
    }
    ro.keep_all = true;
    CHECK_OK(lg_interp_create(m, &ro, &it, &err), &err);
    if (it) {
        CHECK_EQ_INT(lg_interp_mem_plan(it)->arena_bytes, 20160);
        lg_interp_free(it);
    }
    lg_model_free(m);
}
