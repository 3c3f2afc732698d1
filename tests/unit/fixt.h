/* fixt: what the unit tests of the `fix` passes (test_fix_*.c) share: a builder-made model,
   lg_check findings by rule, the passes run through lg_passes_run with parity proved, op
   counts, and the interpreter's output of a model on given inputs (for hand-derived values). */
#ifndef LG_TESTS_FIXT_H
#define LG_TESTS_FIXT_H
#include <stdbool.h>
#include <stdint.h>

#include "lg/check.h"
#include "lg/lg.h"
#include "lg/passes.h"

/* A new empty model with the builder b on its subgraph 0. */
lg_model *fixt_new(lg_builder *b);
/* lg_check on target t for GPU family gpu reports rule (any op). */
bool fixt_has(const lg_model *m, lg_target t, lg_gpu gpu, const char *rule);
/* lg_check on target t for family gpu: no blocker. */
bool fixt_ready(const lg_model *m, lg_target t, lg_gpu gpu);
/* Run the passes named (NULL-terminated) by lg_passes_run, one round each, parity proved on
   the pattern input and 2 random ones. NULL (and a failed check at file:line) on an error. */
lg_model *fixt_run(const lg_model *m, const char *const *passes, lg_pass_report **rep,
                   const char *file, int line);
#define FIXT_RUN(m, rep, ...) fixt_run((m), (const char *const[]){__VA_ARGS__, NULL}, (rep), __FILE__, __LINE__)
/* The result of pass name in rep (the first), or NULL. */
const lg_pass_result *fixt_result(const lg_pass_report *r, const char *name);
/* Rewrites made by pass name over the whole report. */
uint32_t fixt_applied(const lg_pass_report *r, const char *name);
/* Ops of builtin code in subgraph 0. */
uint32_t fixt_count(const lg_model *m, int32_t code);
/* The same op codes, in order, and the same inputs and outputs per op. */
bool fixt_same_ops(const lg_model *a, const lg_model *b);
/* Run m (fp32) on float inputs (one array per graph input) and copy output k into out (cap
   floats); returns the element count, or -1 (with a failed check) on an error. */
int64_t fixt_eval(const lg_model *m, const float *const *inputs, uint32_t k, float *out,
                  int64_t cap, const char *file, int line);
#define FIXT_EVAL(m, in, k, out, cap) fixt_eval((m), (in), (k), (out), (cap), __FILE__, __LINE__)
/* The runner's measured bound of pass name (max_rel of the output magnitude), or -1 when it
   was not measured. */
double fixt_max_rel(const lg_pass_report *r, const char *name);
#endif
