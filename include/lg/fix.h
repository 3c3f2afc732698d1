/*
 * litegpu: `fix`, the cure for what `check` diagnoses.
 *
 * lg_fix loops on a copy of the model:
 *
 *   check (target, GPU family) -> the blocker rules found
 *   -> run every registered pass that removes one of them (lg_pass.removes), then
 *      fold-constants and remove-dead, through lg_passes_run (re-validated, every shape
 *      re-inferred, fp32 parity proved against the loop's input)
 *   -> check again, until the model is ready or no pass changes anything (at most
 *      LG_FIX_MAX_ROUNDS rounds).
 *
 * Approximate passes (lg_pass.exact false) run only with allow_approx. A model that is
 * ready at the start is returned unchanged (a copy). The report lists every rewrite (pass,
 * the rules it removes, the op it rewrote, op counts, parity), the check verdict before and
 * after, the end-to-end fp32 parity of the result against the original (golden + random
 * inputs) and, for every blocker left, why no rewrite exists (lg_fix_why).
 */
#ifndef LG_FIX_H
#define LG_FIX_H

#include "lg/check.h"
#include "lg/lg.h"
#include "lg/passes.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LG_FIX_MAX_ROUNDS 8u

/* A graph input given a static shape (its dynamic dimensions fixed), or frozen to a constant
   value (it leaves the model's inputs: a parameter such as a RESHAPE's shape passed as an
   input). Both change the model's contract on request; every shape is then re-inferred and
   fold-constants makes the shape arithmetic constant. */
typedef struct lg_fix_shape {
    const char *name;
    const int64_t *dims;
    uint32_t rank;
} lg_fix_shape;
typedef struct lg_fix_freeze {
    const char *name;
    lg_dtype type;             /* the input's type */
    const void *data;
    uint64_t nbytes;
} lg_fix_freeze;

typedef struct lg_fix_options {
    lg_target target;          /* default LG_TARGET_MLDRIFT (0) */
    lg_gpu gpu;                /* default LG_GPU_ANY: every family's rules */
    bool allow_approx;         /* also run approximate passes */
    bool no_prove;             /* skip parity runs (models litegpu cannot run) */
    const float *const *golden; /* float32 data per input for parity, or NULL (the pattern fill) */
    uint32_t n_random;         /* random parity inputs after the golden one (default 2) */
    uint64_t seed;
    int threads;
    bool warnings;             /* also run the passes that remove warnings (field rules) */
    bool io_int32;             /* INT64 graph inputs/outputs may become INT32 (a declared change
                                  of the model's contract) */
    const char *const *passes; /* more passes to run once, by name (e.g. "pow-to-mul") */
    uint32_t n_passes;
    lg_harden_mode harden;     /* fp16 hardening after the rule passes (0 = LG_HARDEN_OFF;
                                  the CLI's default is auto) */
    const float *const *const *cases; /* more input sets for hardening (--calib) */
    uint32_t n_cases;
    const lg_fix_shape *shapes; uint32_t n_shapes;    /* --input-shape */
    const lg_fix_freeze *freeze; uint32_t n_freeze;   /* --freeze */
} lg_fix_options;

/* One rewrite: a pass applied at one op. */
typedef struct lg_fix_rewrite {
    uint32_t round;            /* 1-based loop round */
    const char *pass;          /* static */
    const char *rules[4];      /* the blocker rules it was run for (static ids, NULL-terminated) */
    bool exact;
    lg_pass_site site;         /* the op it matched, before the rewrite */
} lg_fix_rewrite;

/* What a pass did in one round, over all its rewrites. */
typedef struct lg_fix_step {
    uint32_t round;
    lg_pass_result result;     /* counts and parity (against the round's input) */
    const char *rules[4];      /* the blocker rules it was run for */
} lg_fix_step;

/* A blocker left after the loop, with why no rewrite removed it. */
typedef struct lg_fix_left {
    const char *rule;          /* static */
    int32_t op;                /* op of the fixed model (-1: the whole model) */
    char op_name[48];          /* builtin name of that op */
    char reason[320];          /* the finding's reason */
    char why[320];             /* why no rewrite exists, or why the pass declined */
    bool declined;             /* a pass for the rule looked at this op and said why not (why) */
} lg_fix_left;

typedef struct lg_fix_report {
    lg_target target;
    lg_gpu gpu;
    uint32_t rounds;
    uint32_t ops_before, ops_after;
    uint32_t blockers_before, blockers_after;
    uint32_t warnings_before, warnings_after;
    bool ready_before, ready_after;
    lg_fix_step *steps; uint32_t n_steps;            /* passes that rewrote something, in order */
    lg_fix_rewrite *rewrites; uint32_t n_rewrites;   /* every site, in order */
    lg_fix_left *left; uint32_t n_left;              /* blockers left, by op */
    /* end-to-end fp32 parity of the result against the original */
    bool parity_measured;
    char parity_note[160];
    uint32_t n_cases;
    double max_abs, max_rel, min_pearson;
    /* fp16 hardening (NULL when off); harden_note says why it did not run, if it did not */
    lg_harden_report *harden;
    char harden_note[160];
    uint32_t n_shaped, n_frozen;   /* inputs given a static shape / frozen (the parity is
                                      against the model with them applied) */
} lg_fix_report;

/* Fix m for the target. On success *out is the fixed model (always a new model; m is not
   changed) and *rep the report. A model still blocked is a success (rep->ready_after false). */
lg_status lg_fix(const lg_model *m, const lg_fix_options *opt, lg_model **out,
                 lg_fix_report **rep, lg_error *err);
void lg_fix_report_free(lg_fix_report *r);

/* Why no rewrite removes a blocker of this rule (static text: what blocks an exact rewrite,
   or what the rule's passes do not cover, and what to do instead, e.g. --split); NULL for an
   unknown id. Every blocker rule of rules.def has one (a unit test checks). */
const char *lg_fix_why(const char *rule_id);
/* True when some pass is meant to remove (cases of) the rule: lg_fix_why then says what the
   passes do not cover. A unit test checks that each such rule has a registered pass. */
bool lg_fix_rule_covered(const char *rule_id);

#ifdef __cplusplus
}
#endif
#endif
