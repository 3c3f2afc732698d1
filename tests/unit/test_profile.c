/* Per-op profiling (lg_run_options.profile, lg_interp_profile; src/run/profile.c).
 *
 * The model, N = 1024:
 *   op0 a  = FULLY_CONNECTED(x[1,N], W[N,N], b[N])   4 MiB of weights: tens of microseconds at least
 *   op1 r  = RELU(a)
 *   op2 kr = RELU(k)          k constant: folded at create, so it never runs (0 ns, 0 calls)
 *   op3 y  = ADD(r, kr)
 *
 * Why the bounds hold. Invoke reads the clock once before op0 and once after each op that runs;
 * op i gets the interval ending at its reading. Those intervals are disjoint and lie inside the
 * invoke, which lies inside [t_before, t_after] read by the test around lg_interp_invoke with
 * the same monotonic clock, so sum(ns) <= wall exactly (a clock that cannot go back). What the
 * ops are not charged is the call, the error reset and the first reading before op0, and the
 * bookkeeping after op3's reading: well under a microsecond per invoke, against an FC that
 * streams 4 MiB of weights (>= ~50 us at any cache bandwidth this machine has; more under
 * ASan). So sum >= 50% of wall has a margin of two orders of magnitude; only a preemption
 * landing in that sub-microsecond window, longer than the whole run, could break it. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lg/run.h"
#include "tf.h"

enum { PN = 1024, PRUNS = 20 };

static uint64_t wall_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static lg_model *profile_model(void) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) return NULL;
    float *w = malloc((size_t)PN * PN * sizeof *w), *bias = malloc(PN * sizeof *bias), *k = malloc(PN * sizeof *k);
    if (!w || !bias || !k) { free(w); free(bias); free(k); lg_model_free(m); return NULL; }
    for (int i = 0; i < PN * PN; i++) w[i] = (float)((i % 7) - 3) / 64.0f;
    for (int i = 0; i < PN; i++) { bias[i] = 0.25f; k[i] = (float)(i % 5) - 2.0f; }
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, PN));
    int wt = lg_b_const_f32(&b, "W", LG_DIMS(PN, PN), w);
    int bt = lg_b_const_f32(&b, "b", LG_DIMS(PN), bias);
    int kt = lg_b_const_f32(&b, "k", LG_DIMS(1, PN), k);
    int a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, PN));
    int r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(1, PN));
    int kr = lg_b_tensor(&b, "kr", LG_FLOAT32, LG_DIMS(1, PN));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, PN));
    lg_fully_connected_options fo;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, wt, bt), LG_IDS(a), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_op(&b, LG_OP_RELU, LG_IDS(a), LG_IDS(r));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(kt), LG_IDS(kr));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(r, kr), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    free(w); free(bias); free(k);
    CHECK_OK(b.status, &b.err);
    if (b.status != LG_OK) { lg_model_free(m); return NULL; }
    return m;
}

static lg_interp *make(const lg_model *m, bool profile, lg_tap_fn tap) {
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.profile = profile;
    ro.tap = tap;
    lg_interp *it = NULL;
    lg_error err;
    CHECK_OK(lg_interp_create(m, &ro, &it, &err), &err);
    if (!it) return NULL;
    static float xin[PN];
    for (int i = 0; i < PN; i++) xin[i] = (float)(i % 11) / 11.0f - 0.5f;
    CHECK_OK(lg_interp_set_input(it, 0, LG_FLOAT32, xin, sizeof xin, &err), &err);
    return it;
}

LG_TEST(profile_counts_every_op_and_tiles_the_run) {
    lg_model *m = profile_model();
    if (!m) return;
    lg_interp *it = make(m, true, NULL);
    if (!it) { lg_model_free(m); return; }
    lg_error err;
    const lg_profile *p = lg_interp_profile(it);
    CHECK(p != NULL);
    if (!p) goto out;
    CHECK_EQ_INT(p->n_ops, 4);
    CHECK_OK(lg_interp_invoke(it, &err), &err); /* a warm-up, then reset: only timed runs count */
    CHECK_EQ_INT(p->n_invokes, 1);
    lg_interp_profile_reset(it);
    CHECK_EQ_INT(p->n_invokes, 0);
    for (int i = 0; i < 4; i++) CHECK(p->ns[i] == 0 && p->n_calls[i] == 0 && p->first_ns[i] == 0);
    uint64_t wall = 0;
    for (int r = 0; r < PRUNS; r++) {
        uint64_t a = wall_ns();
        CHECK_OK(lg_interp_invoke(it, &err), &err);
        wall += wall_ns() - a;
    }
    CHECK_EQ_INT(p->n_invokes, PRUNS);
    uint64_t sum = 0;
    for (int i = 0; i < 4; i++) sum += p->ns[i];
    for (int i = 0; i < 4; i++) {
        if (i == 2) continue;
        CHECK_EQ_INT(p->n_calls[i], PRUNS);
        CHECK(p->ns[i] > 0);
        CHECK(p->first_ns[i] > 0 && p->first_ns[i] <= p->ns[i]);
    }
    /* the folded op: never ran, so nothing is charged to it */
    CHECK_EQ_INT(p->n_calls[2], 0);
    CHECK_EQ_INT(p->ns[2], 0);
    CHECK(sum <= wall);
    CHECK(2 * sum >= wall);
    /* the FC (a million multiply-adds over 4 MiB) outweighs the RELU over 1024 floats */
    CHECK(p->ns[0] > 4 * p->ns[1]);
out:
    lg_interp_free(it);
    lg_model_free(m);
}

LG_TEST(profile_off_is_null_and_reset_is_harmless) {
    lg_model *m = profile_model();
    if (!m) return;
    lg_interp *it = make(m, false, NULL);
    if (it) {
        lg_error err;
        CHECK(lg_interp_profile(it) == NULL);
        lg_interp_profile_reset(it); /* nothing to reset */
        CHECK_OK(lg_interp_invoke(it, &err), &err);
        CHECK(lg_interp_profile(it) == NULL);
        lg_interp_free(it);
    }
    lg_model_free(m);
}

/* A tap that sleeps 2 ms: the boundary is read again after the tap, so the ops are not
   charged for it. 3 runs x 4 taps x 2 ms = 24 ms the wall has and the per-op sum must not:
   sum <= wall - 24 ms. Near miss (the bound is tight, not trivially met): the wall itself is
   past 24 ms, and the per-op sum stays positive. */
static int sleepy_tap(void *ud, int32_t op, const lg_tensor_view *o, uint32_t n) {
    (void)ud; (void)op; (void)o; (void)n;
    struct timespec ts = {0, 2000000};
    while (nanosleep(&ts, &ts) != 0) {}
    return 0;
}

LG_TEST(profile_does_not_charge_the_tap) {
    lg_model *m = profile_model();
    if (!m) return;
    lg_interp *it = make(m, true, sleepy_tap);
    if (!it) { lg_model_free(m); return; }
    lg_error err;
    uint64_t wall = 0;
    for (int r = 0; r < 3; r++) {
        uint64_t a = wall_ns();
        CHECK_OK(lg_interp_invoke(it, &err), &err);
        wall += wall_ns() - a;
    }
    const lg_profile *p = lg_interp_profile(it);
    uint64_t sum = 0;
    for (int i = 0; i < 4; i++) sum += p->ns[i];
    CHECK(wall >= 24000000u);
    CHECK(sum > 0);
    CHECK(sum + 24000000u <= wall);
    CHECK_EQ_INT(p->n_calls[0], 3);
    lg_interp_free(it);
    lg_model_free(m);
}
