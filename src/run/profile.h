/* Per-op profiling for lg_interp (lg_run_options.profile, lg_interp_profile): counters
 * allocated at create, one CLOCK_MONOTONIC read per op boundary during invoke. */
#ifndef LG_RUN_PROFILE_H
#define LG_RUN_PROFILE_H
#include <stdint.h>
#include <time.h>

#include "internal.h"
#include "lg/run.h"

typedef struct lgk_profile {
    lg_profile pub;      /* what lg_interp_profile returns; its arrays point at the ones below */
    uint64_t *ns, *first_ns, *n_calls;
    int on;
} lgk_profile;

/* Allocate the counters for n_ops ops from the interpreter's arena (zeroed). */
lg_status lgk_profile_init(lgk_profile *p, lgi_arena *a, uint32_t n_ops, lg_error *err);
void lgk_profile_reset(lgk_profile *p);

static inline uint64_t lgk_profile_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Op i ended: charge it the time since *t_prev (the previous boundary) and move the boundary. */
static inline void lgk_profile_op(lgk_profile *p, uint32_t i, uint64_t *t_prev) {
    uint64_t t = lgk_profile_now(), d = t - *t_prev;
    p->ns[i] += d;
    if (p->pub.n_invokes == 0) p->first_ns[i] = d;
    p->n_calls[i]++;
    *t_prev = t;
}

/* An invoke ran to its end. */
static inline void lgk_profile_done(lgk_profile *p) { p->pub.n_invokes++; }
#endif
