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
#include "run/memplan.h"
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
        /* the timeline (header): 8000, 8000, 12000, 8000 */
        CHECK(p->live_bytes != NULL);
        if (p->live_bytes) {
            CHECK_EQ_INT(p->live_bytes[0], 8000);
            CHECK_EQ_INT(p->live_bytes[1], 8000);
            CHECK_EQ_INT(p->live_bytes[2], 12000);
            CHECK_EQ_INT(p->live_bytes[3], 8000);
        }
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

/* ---- the planner alone (run/memplan.h), on hand-made lifetimes */

/* The chain above, lifetimes given directly: x [-1,0], a [0,2], b [1,2], c [2,3], d [3,4]
   (4 ops; d is the graph output, so it lives to n_ops). Same expected numbers as above. */
LG_TEST(memplan_plan_chain) {
    uint64_t size[5] = {4000, 4000, 4000, 4000, 4000}, off[5] = {0};
    int32_t first[5] = {-1, 0, 1, 2, 3}, last[5] = {0, 2, 2, 3, 4}, peak[5] = {0};
    lgk_mp_result r;
    lg_error err;
    lgi_error_clear(&err);
    CHECK_OK(lgk_mp_plan(5, 4, size, first, last, NULL, NULL, off, peak, &r, &err), &err);
    CHECK_EQ_INT(off[0], 0);
    CHECK_EQ_INT(off[1], 4032);
    CHECK_EQ_INT(off[2], 0);
    CHECK_EQ_INT(off[3], 8064);
    CHECK_EQ_INT(off[4], 0);
    CHECK_EQ_INT(r.arena_bytes, 12096);
    CHECK_EQ_INT(r.peak_live_bytes, 12000);
    CHECK_EQ_INT(r.peak_op, 2);
    CHECK_EQ_INT(r.n_peak, 3);
    CHECK_EQ_INT(peak[0], 1);
    CHECK_EQ_INT(peak[1], 2);
    CHECK_EQ_INT(peak[2], 3);
}

/* Greedy by size with a reused hole (sizes multiples of 64, so slots are exact):
     t0 256 bytes [0,1], t1 192 [0,3], t2 128 [2,3], t3 64 (LGK_MP_NONE: a constant).
   Order by size: t0 @0; t1 meets t0 in time -> @256; t2 meets t1 only, and [0,128) is clear
   of t1's [256,448) -> @0 (the hole t0 leaves). Arena 448.
   Live: op0 t0+t1 = 448, op1 448, op2 t1+t2 = 320, op3 320 -> peak 448 at op 0 (the first
   op with the largest sum), tensors {0, 1}. t3 is neither placed nor counted. */
LG_TEST(memplan_plan_reuses_hole) {
    uint64_t size[4] = {256, 192, 128, 64}, off[4] = {7, 7, 7, 7};
    int32_t first[4] = {0, 0, 2, LGK_MP_NONE}, last[4] = {1, 3, 3, 3}, peak[4] = {0};
    lgk_mp_result r;
    lg_error err;
    lgi_error_clear(&err);
    CHECK_OK(lgk_mp_plan(4, 4, size, first, last, NULL, NULL, off, peak, &r, &err), &err);
    CHECK_EQ_INT(off[0], 0);
    CHECK_EQ_INT(off[1], 256);
    CHECK_EQ_INT(off[2], 0);
    CHECK_EQ_INT(off[3], 7); /* untouched */
    CHECK_EQ_INT(r.arena_bytes, 448);
    CHECK_EQ_INT(r.peak_live_bytes, 448);
    CHECK_EQ_INT(r.peak_op, 0);
    CHECK_EQ_INT(r.n_peak, 2);
    CHECK_EQ_INT(peak[0], 0);
    CHECK_EQ_INT(peak[1], 1);
    /* near miss: t2 living one op earlier ([1,3]) meets t0 too and must go above t1 */
    first[2] = 1;
    CHECK_OK(lgk_mp_plan(4, 4, size, first, last, NULL, NULL, off, peak, &r, &err), &err);
    CHECK_EQ_INT(off[2], 448);
    CHECK_EQ_INT(r.arena_bytes, 576);
    /* op1 now has t0+t1+t2 = 576 live */
    CHECK_EQ_INT(r.peak_live_bytes, 576);
    CHECK_EQ_INT(r.peak_op, 1);
    CHECK_EQ_INT(r.n_peak, 3);
}

/* Exact sizes round up to 64-byte slots; equal slots go by index: t0 (1 byte) and t1 (64
   bytes) both take a 64-byte slot and live together, so t0 @0 and t1 @64, arena 128; the peak
   counts exact bytes: 65. With t1 placed first (it has the larger slot when 65 bytes) the order
   flips: t1 @0 (slot 128), t0 @128. */
LG_TEST(memplan_plan_alignment_and_ties) {
    uint64_t size[2] = {1, 64}, off[2] = {0};
    int32_t first[2] = {0, 0}, last[2] = {0, 0}, peak[2] = {0};
    lgk_mp_result r;
    lg_error err;
    lgi_error_clear(&err);
    CHECK_OK(lgk_mp_plan(2, 1, size, first, last, NULL, NULL, off, peak, &r, &err), &err);
    CHECK_EQ_INT(off[0], 0);
    CHECK_EQ_INT(off[1], 64);
    CHECK_EQ_INT(r.arena_bytes, 128);
    CHECK_EQ_INT(r.peak_live_bytes, 65);
    size[1] = 65;
    CHECK_OK(lgk_mp_plan(2, 1, size, first, last, NULL, NULL, off, peak, &r, &err), &err);
    CHECK_EQ_INT(off[1], 0);
    CHECK_EQ_INT(off[0], 128);
    CHECK_EQ_INT(r.arena_bytes, 192);
    /* no ops: no peak op, nothing counted */
    CHECK_OK(lgk_mp_plan(2, 0, size, first, last, NULL, NULL, off, peak, &r, &err), &err);
    CHECK_EQ_INT(r.peak_op, -1);
    CHECK_EQ_INT(r.n_peak, 0);
    CHECK_EQ_INT(r.peak_live_bytes, 0);
}

static void *no_memory(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud; (void)ptr; (void)osize; (void)nsize;
    return NULL;
}

LG_TEST(memplan_plan_out_of_memory) {
    uint64_t size[1] = {4}, off[1];
    int32_t first[1] = {0}, last[1] = {0}, peak[1];
    lgk_mp_result r;
    lg_error err;
    lgi_error_clear(&err);
    CHECK_EQ_INT(lgk_mp_plan(1, 1, size, first, last, no_memory, NULL, off, peak, &r, &err), LG_ERR_NOMEM);
    CHECK_EQ_INT(err.status, LG_ERR_NOMEM);
    CHECK_EQ_INT(lgk_mp_plan(1, 1, size, first, last, no_memory, NULL, off, peak, &r, NULL), LG_ERR_NOMEM);
}

/* Lifetimes from a graph:
     op0 a = RELU(x)      a is written and never read (not an output): [0, 0]
     op1 y = TANH(x)      y is the output: [1, 2 = n_ops]
   x is the input, read by ops 0 and 1: [-1, 1]; u is never written: LGK_MP_NONE. Made a
   variable, a lives over the whole run: [-1, 2]. */
LG_TEST(memplan_lifetimes) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) return;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, 4));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    int u = lg_b_tensor(&b, "u", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(a));
    lg_b_op(&b, LG_OP_TANH, LG_IDS(x), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_OK(b.status, &b.err);
    const lg_subgraph *sg = &m->subgraphs[0];
    CHECK_EQ_INT(sg->n_tensors, 4);
    int32_t first[4], last[4];
    uint8_t skip[4] = {0, 0, 0, 0};
    lg_graph *g = NULL;
    CHECK_OK(lg_graph_build(m, 0, &g, &err), &err);
    if (!g) { lg_model_free(m); return; }
    lgk_mp_lifetimes(sg, g, skip, 0, first, last);
    CHECK_EQ_INT(first[x], -1);
    CHECK_EQ_INT(last[x], 1);
    CHECK_EQ_INT(first[a], 0);
    CHECK_EQ_INT(last[a], 0);
    CHECK_EQ_INT(first[y], 1);
    CHECK_EQ_INT(last[y], 2);
    CHECK_EQ_INT(first[u], LGK_MP_NONE);
    /* a variable that op0 writes lives over the whole run */
    m->subgraphs[0].tensors[a].is_variable = true;
    lgk_mp_lifetimes(sg, g, skip, 0, first, last);
    CHECK_EQ_INT(first[a], -1);
    CHECK_EQ_INT(last[a], 2);
    m->subgraphs[0].tensors[a].is_variable = false;
    /* skipped (constant): not placed, the near miss of a */
    skip[a] = 1;
    lgk_mp_lifetimes(sg, g, skip, 0, first, last);
    CHECK_EQ_INT(first[a], LGK_MP_NONE);
    CHECK_EQ_INT(first[y], 1);
    /* keep_all: every placed tensor [-1, n_ops]; u still not placed */
    skip[a] = 0;
    lgk_mp_lifetimes(sg, g, skip, 1, first, last);
    CHECK_EQ_INT(first[a], -1);
    CHECK_EQ_INT(last[a], 2);
    CHECK_EQ_INT(first[x], -1);
    CHECK_EQ_INT(last[x], 2);
    CHECK_EQ_INT(first[u], LGK_MP_NONE);
    lg_graph_free(g);
    lg_model_free(m);
}

/* The timeline alone. Lifetimes: t0 [-1,0] 100 B, t1 [0,3] 10 B, t2 [2,2] 1 B, t3 unplaced
   (LGK_MP_NONE, 1000 B: never counted), t4 [3,5] 7 B (an output living past the last op, 4 ops).
   live: op0 t0+t1 = 110; op1 t1 = 10; op2 t1+t2 = 11; op3 t1+t4 = 17. Near miss: t2 must
   not leak into op3 (it would give 18), t0 not into op1 (110). */
LG_TEST(memplan_live_timeline) {
    uint64_t size[5] = {100, 10, 1, 1000, 7}, live[4] = {9, 9, 9, 9};
    int32_t first[5] = {-1, 0, 2, LGK_MP_NONE, 3}, last[5] = {0, 3, 2, 3, 4};
    lgk_mp_live(5, 4, size, first, last, live);
    CHECK_EQ_INT(live[0], 110);
    CHECK_EQ_INT(live[1], 10);
    CHECK_EQ_INT(live[2], 11);
    CHECK_EQ_INT(live[3], 17);
}
