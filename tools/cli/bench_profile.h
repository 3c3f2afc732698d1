/* bench --profile's report (bench_profile.c): the interpreter's per-op counters
   (lg_interp_profile) as LiteRT's benchmark_model prints them, as text or as a "profile" key. */
#ifndef LG_CLI_BENCH_PROFILE_H
#define LG_CLI_BENCH_PROFILE_H
#include <stdio.h>

#include "json.h"
#include "lg/run.h"

/* The per-op times of every timed run (the counters' increments, read after each run outside
   its timing), so that "avg ms" can be the mean over the runs ranked in the middle by wall
   time (bench_profile.c says which): on a busy machine the preempted runs move a mean over
   all runs by tens of percent. bench_prof_new after lg_interp_profile_reset; bench_prof_sample after each run. */
typedef struct bench_prof bench_prof;
int bench_prof_new(const lg_interp *it, long runs, bench_prof **out); /* CLI_OK or CLI_ERROR (printed) */
void bench_prof_sample(bench_prof *bp, const lg_interp *it, double wall_ms);
void bench_prof_free(bench_prof *bp);

/* run_median_ms: the median wall time of the profiled runs (bench's own measurement, around
   set_input + invoke). Both return CLI_OK, or CLI_ERROR (printed) when out of memory or the
   interpreter was not created with profiling. */
int bench_profile_text(FILE *f, const lg_model *m, const lg_interp *it, const bench_prof *bp, int threads,
                       double run_median_ms);
int bench_profile_json(json_w *j, const lg_model *m, const lg_interp *it, const bench_prof *bp, int threads,
                       double run_median_ms);

/* --overlay FILE: each executed op's avg ms (the profile's [avg ms]) as Model Explorer node
   data keyed by op index (overlay.h), a white-to-red gradient. CLI_OK or CLI_ERROR (printed). */
int bench_profile_overlay(const char *path, bool force, const lg_model *m, const lg_interp *it,
                          const bench_prof *bp);

#endif
