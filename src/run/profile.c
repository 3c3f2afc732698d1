/* Per-op profiling of the reference interpreter (lg_run_options.profile).
 *
 * How the time is split: invoke reads CLOCK_MONOTONIC once before the first op and once after
 * each op that runs (an op folded at create runs nothing and reads no clock); op i is charged
 * the interval from the previous reading to its own, i.e. its kernel plus the fp16 storage
 * rounding of its outputs. The intervals tile the invoke, so the per-op sum is the invoke's
 * wall time less the few instructions before the first reading and after the last one, and
 * never more than it. A tap (lg_run_options.tap) is not charged: the boundary is read again
 * after it. With threads > 1 an op's time is its wall time (the caller waits for the
 * workers inside the op), not CPU time summed over threads.
 *
 * The counters are allocated at create (lg_interp_create), so profiling keeps the rule that
 * nothing allocates after create. The report layout the CLI prints from them (bench
 * --profile) follows LiteRT's benchmark_model: tensorflow/lite/profiling/
 * profile_summary_formatter.cc and tensorflow/core/util/stats_calculator.cc. */
#include <string.h>

#include "run/profile.h"

lg_status lgk_profile_init(lgk_profile *p, lgi_arena *a, uint32_t n_ops, lg_error *err) {
    memset(p, 0, sizeof *p);
    size_t n = n_ops ? n_ops : 1;
    p->ns = lgi_arena_alloc(a, 3 * n * sizeof(uint64_t));
    if (!p->ns) return lgi_fail(err, LG_ERR_NOMEM, "out of memory for the profile counters");
    p->first_ns = p->ns + n;
    p->n_calls = p->first_ns + n;
    p->pub.n_ops = n_ops;
    p->pub.ns = p->ns;
    p->pub.first_ns = p->first_ns;
    p->pub.n_calls = p->n_calls;
    p->on = 1;
    return LG_OK;
}

void lgk_profile_reset(lgk_profile *p) {
    if (!p->on) return;
    size_t n = p->pub.n_ops ? p->pub.n_ops : 1;
    memset(p->ns, 0, 3 * n * sizeof(uint64_t));
    p->pub.n_invokes = 0;
}
