/*
 * litegpu: graph rewriting passes and the runner that proves them.
 *
 * A pass has a name, the check rule ids it removes (src/check/rules.def, for `fix`), whether
 * it is exact (or the bound it declares), a match (does a rewrite start at op i?) and an
 * apply (rewrite there). The runner works on a copy of the model:
 *
 *   for each pass: scan the ops in order; at each op that matches, apply and rescan from it,
 *   until nothing matches; then re-validate (structure and lg_model_validate_ops: options,
 *   arity, every shape re-inferred) and, when asked, prove parity: run the original and the
 *   rewritten model (fp32, litegpu's interpreter) on a golden input and N seeded random ones
 *   and record max abs / rel error and correlation per output. An exact pass must stay within
 *   1e-6 of each output's largest magnitude; an approximating pass within its declared bound.
 *   A pass that breaks its bound is an internal error (LG_ERR_INTERNAL), never a silent output.
 *
 * Output is byte-deterministic: the same model and options give the same rewritten file.
 *
 * Adding a pass: write `static bool match(const lg_pass_ctx *, const lg_graph *, uint32_t op)`
 * and `static lg_status apply(lg_pass_ctx *, const lg_graph *, uint32_t op)` in a file under
 * src/passes/, export an `const lg_pass lgp_<name>` with its name, rule ids and exactness,
 * list it in src/passes/registry.c, and give it a unit test: a model that triggers it and a
 * near-miss that must not (tests/unit/test_passes.c).
 */
#ifndef LG_PASSES_H
#define LG_PASSES_H

#include "lg/graph.h"
#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lg_pass_run_options {
    bool prove;               /* measure parity after every pass (default in lg_optimize: on) */
    uint32_t n_random;        /* random inputs after the golden one (default 2) */
    uint64_t seed;            /* first random seed */
    const float *const *golden; /* float32 data per input, or NULL (the "pattern" fill) */
    int threads;
    uint64_t fold_max_bytes;  /* constant folding never makes a constant larger than this
                                 (default 16 MiB) ... */
    double fold_max_growth;   /* ... unless it is at most this times its inputs (default 4) */
    bool io_int32;            /* int64-to-int32 may retype INT64 graph inputs/outputs to INT32 */
} lg_pass_run_options;

/* What one application of one pass did, accumulated by apply. */
typedef struct lg_pass_delta {
    uint32_t applied;         /* rewrites made */
    uint32_t ops_removed, ops_added;
    uint32_t tensors_folded;  /* tensors turned into constants */
    uint32_t skipped;         /* matches left alone (e.g. folding that would grow the file) */
    char note[160];           /* why the last skip happened */
} lg_pass_delta;

typedef struct lg_pass_ctx {
    lg_model *m;
    uint32_t sg;
    const lg_pass_run_options *opt;
    lg_pass_delta *delta;
    lg_error *err;
} lg_pass_ctx;

typedef struct lg_pass {
    const char *name;            /* "fold-constants" */
    const char *summary;         /* one line */
    const char *removes[4];      /* rule ids of rules.def this pass removes (NULL-terminated) */
    bool exact;
    double bound;                /* approximate passes: bound on max_rel (of output magnitude) */
    bool (*match)(const lg_pass_ctx *c, const lg_graph *g, uint32_t op);
    lg_status (*apply)(lg_pass_ctx *c, const lg_graph *g, uint32_t op);
    /* not exact only because fp32 rounds in another order (a sum split into partial sums, a
       convolution's taps reordered, (x.w).g computed as x.(w.g)): exact in real arithmetic,
       so `fix` runs it by default (approximate passes, which change the math, need
       --allow-approx); its bound still holds */
    bool reorders;
} lg_pass;

/* The registry: every pass litegpu has, and the --optimize pipeline. */
uint32_t lg_pass_count(void);
const lg_pass *lg_pass_at(uint32_t i);
const lg_pass *lg_pass_find(const char *name);

/* Where a pass rewrote: the op it matched, as it was before the rewrite. */
typedef struct lg_pass_site {
    uint32_t subgraph, op;    /* op index at the time of the rewrite */
    int32_t code;             /* its builtin code */
    char tensor[64];          /* the name of its first output ("" if none) */
} lg_pass_site;

typedef struct lg_pass_result {
    const char *pass;
    bool exact;
    double bound;
    lg_pass_delta delta;
    uint32_t ops_before, ops_after;
    bool parity_measured;
    char parity_note[160];    /* why parity was not measured, if not */
    uint32_t n_cases;         /* inputs run */
    double max_abs, max_rel;  /* worst over outputs and cases; max_rel of the output magnitude */
    double min_pearson;       /* worst correlation (1 when both constant and equal) */
    lg_pass_site *sites;      /* every rewrite's site, in order (owned by the report) */
    uint32_t n_sites;
    bool reorders;            /* lg_pass.reorders */
} lg_pass_result;

typedef struct lg_pass_report {
    lg_pass_result *passes; uint32_t n_passes;   /* one per pass run, in order */
    uint32_t ops_before, ops_after;
    uint32_t tensors_before, tensors_after;
    uint32_t buffers_before, buffers_after;
    uint32_t rounds;           /* pipeline rounds until nothing changed */
} lg_pass_report;

/* Run passes (in order, repeated as a pipeline until a round changes nothing, at most
   max_rounds times; 1 = once) on a copy of m. On success *out is the rewritten model
   (compacted) and *rep the report (free with lg_pass_report_free). m is not changed. */
lg_status lg_passes_run(const lg_model *m, const lg_pass *const *passes, uint32_t n_passes,
                        uint32_t max_rounds, const lg_pass_run_options *opt, lg_model **out,
                        lg_pass_report **rep, lg_error *err);

/* The `convert --optimize` pipeline: fold-constants, remove-identities, merge-reshapes,
   cancel-transposes, remove-dead, sink-transposes, to a fixpoint. opt may be NULL (defaults, parity proved). */
lg_status lg_optimize(const lg_model *m, const lg_pass_run_options *opt, lg_model **out,
                      lg_pass_report **rep, lg_error *err);

void lg_pass_report_free(lg_pass_report *r);

#ifdef __cplusplus
}
#endif
#endif
