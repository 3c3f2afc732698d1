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

#include "lg/compare.h"
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
    const struct lgp_fp16_sel *fp16_sel; /* harden-fp16: the matches to rewrite and how (made by
                                 lg_harden_fp16); NULL = every norm/reduce match, no conv rescale */
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

/* ---------------------------------------------------------------- fp16 hardening

   `fix --harden-fp16 auto|always|off` (issue #11). Every normalization and reduction pattern
   of subgraph 0 is matched (src/passes/fix_fp16_match.c has the forms: our ONNX importer's, the
   TF converter's keras LayerNorm, litert-torch's unfused batch norm E[x^2] - E[x]^2, ...):
     layer-norm     mean over one axis (the last, or NCHW's channels), x - mean, its square, mean,
                    + eps, RSQRT (or SQRT and DIV)
     instance-norm  the same over several axes (InstanceNorm, GroupNorm over H, W)
     rms-norm       x * rsqrt(mean(x^2) + eps), x / sqrt(...), x * (1 / sqrt(...))
     l2-norm        L2_NORMALIZATION, x * rsqrt(max(sum(x^2), eps)), sqrt(sum(x^2)) (ScaleNorm)
     global-reduce  a MEAN over several axes or a SUM of >= 1024 elements per value that is not
                    part of a norm (squeeze-excite pools: LiteRT#9249's all-NaN SUM)

   The gate runs litegpu's emulated GPU fp16 (lg/run.h, LG_PREC_F16 by default) against fp32 on
   each match alone, fed with the fp32 values its inputs take in the whole model on the given
   input(s), and judges the match's output(s) with lg_compare_precision / lg_judge: a hazard is
   an inf/NaN born inside the pattern or a judge score above the tolerance. Statistics that
   later ops read (the keras form's mean and rsqrt) are judged through the normalized tensor
   they imply, (x - mean) * rsqrt.

   The rewrites (src/passes/fix_fp16_rewrite.c), exact in real arithmetic:
     safe-norm     SafeLayerNorm v2, the seed's Parakeet form: per row S, xs = x / S,
                   mu = mean(xs), d = xs - mu, var = mean(d * d), y = d * rsqrt(var + eps / S^2),
                   eps rescaled at run time so the maths is the original's:
                       (S xs - S mu) / sqrt(S^2 var + eps) = (xs - mu) / sqrt(var + eps / S^2).
                   No intermediate rebuilds the large variance: every value is O(1)..O(max|x|).
                   RMS and L2 norms the same without the centring (the seed's SafeRMSNorm: scale
                   before squaring). S is the seed's max(1, max|x| / 8) rounded up to a power of
                   two, computed at run time as 2^(floor(log2(max(max|x|, 4))) - 2) (LOG, FLOOR,
                   POW(0.5, k)): then |xs| <= 8 and every scaling is exact in fp32, so the
                   rewritten norm equals the original bit for bit in fp32 (the runner proves it).
                   Limitation: a row of zero variance whose max|x| >= 8 gets eps / S^2 below the
                   smallest half, and 0 * inf = NaN in fp16 where the original gave 0; the gate
                   sees it on inputs that have such rows and then applies nothing (a clamp would
                   avoid it but is not exact).
     sum-as-mean   a SUM as MEAN * n (times the constant that scales the SUM, when one does: the
                   mean an exporter wrote as SUM / n): the same fp32 sum inside, and the GPU's
                   MEAN scales each work-group thread's partial sum, so no half sum overflows.
     conv-rescale  a CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED (no activation or RELU) whose
                   output only feeds the norm (through single-use RESHAPE/TRANSPOSE): weights and
                   bias times 2^-k, k = round(log2(max|out| / 10)) from the measured output (the
                   seed's TransformerNet fix), and the norm's eps times 2^-2k (2^-k for a clamp
                   on the root): N_eps(x) = N_{eps/a^2}(x / a), a = 2^k, exactly, and powers of
                   two scale without rounding, so the norm's output is unchanged bit for bit.
                   FLOAT16 weights get the largest k <= the wanted one that keeps them exact
                   (normal halves).
     two-stage     (LG_FP16_FIX_TWO_STAGE, pass harden-fp16-split) every reduction over several
                   axes as a chain of single-axis ones, innermost first (the seed's
                   x.mean(3).mean(2); also removes Mali's large-multi-axis-reduce). Exact in real
                   arithmetic, but it reorders fp32 sums: a sum of n terms then differs from the
                   original's sequential one by about sqrt(n) ulps (5e-6 of the output at
                   n = 65536), the original's own fp32 error. So the split pass is declared
                   approximate (bound 1e-4) and applied only with allow_approx; otherwise it is
                   measured and reported.
   auto rewrites a match only when it is hazardous, with the first of conv-rescale, (rescale +)
   safe-norm / sum-as-mean, (rescale +) split whose emulated output is within tolerance (or the
   best one, if it lowers the error); always rewrites every match with the most thorough of
   them (the split with allow_approx) unless that is worse on the inputs measured (the zero-
   variance rows above); off measures nothing and changes nothing. The report says, per match,
   what was measured and why it was (not) rewritten. */

typedef enum lg_harden_mode { LG_HARDEN_OFF = 0, LG_HARDEN_AUTO = 1, LG_HARDEN_ALWAYS = 2 } lg_harden_mode;
const char *lg_harden_mode_name(lg_harden_mode m); /* "off", "auto", "always" */
int lg_harden_mode_from_name(const char *s);       /* -1 if unknown */

typedef enum lg_fp16_pattern {
    LG_FP16_LAYER_NORM = 0,
    LG_FP16_INSTANCE_NORM,   /* a centred norm over several axes */
    LG_FP16_RMS_NORM,
    LG_FP16_L2_NORM,
    LG_FP16_GLOBAL_REDUCE,
    LG_FP16_PATTERN_COUNT
} lg_fp16_pattern;
const char *lg_fp16_pattern_name(lg_fp16_pattern k); /* "layer-norm", ... */

/* What a rewrite does (bits). */
enum {
    LG_FP16_FIX_SAFE_NORM = 1u << 0,    /* SafeLayerNorm v2 / SafeRMSNorm / safe L2 (exact) */
    LG_FP16_FIX_TWO_STAGE = 1u << 1,    /* reductions over several axes as single-axis chains
                                           (exact in real arithmetic; fp32: approximate, see above) */
    LG_FP16_FIX_CONV_RESCALE = 1u << 2, /* the producing conv's weights and bias times 2^-k (exact) */
    LG_FP16_FIX_SUM_AS_MEAN = 1u << 3   /* a SUM as MEAN * n (exact) */
};

/* The emulated error of a pattern's output(s) against fp32 (the worst output). */
typedef struct lg_fp16_error {
    bool measured;
    bool overflow;           /* inf/NaN in the emulated output where fp32 is finite */
    bool diverges;           /* the judge fails it (overflow, or score above the tolerance) */
    double score;            /* lg_verdict.score: rms error / the output's std (INFINITY: inf/NaN) */
    double severity;         /* score / tolerance */
    double max_abs;          /* over the values finite on both sides (INFINITY with inf/NaN) */
    double pearson;          /* NaN when undefined */
} lg_fp16_error;

#define LG_HARDEN_MAX_OPS 48

typedef struct lg_harden_item {
    lg_fp16_pattern kind;
    uint32_t ops[LG_HARDEN_MAX_OPS]; uint32_t n_ops; /* the pattern's ops (input model indices) */
    int32_t anchor_op;       /* the op the match is anchored at (RSQRT, SQRT, L2_NORMALIZATION, MEAN, SUM) */
    int32_t input;           /* the tensor normalized/reduced (input model) */
    int32_t output;          /* the pattern's result: the normalized tensor, or the reduction */
    char output_name[64];
    uint32_t axes;           /* bit d: dimension d of the input is reduced */
    int64_t extent;          /* elements reduced into each value */
    double input_max_abs;    /* fp32 max |input| over the cases (NaN when not measured) */
    int32_t conv_op;         /* the conv that may be rescaled (-1: none) */
    int32_t conv_shift;      /* k: weights and bias times 2^-k (0: not rescaled) */
    lg_fp16_error before;    /* the pattern as it is */
    lg_fp16_error after;     /* the pattern rewritten as `fix` says (measured whether applied or not) */
    bool hazard;             /* before: an inf/NaN born inside, or the judge fails the output */
    bool rewritten;
    unsigned fix;            /* LG_FP16_FIX_* of the rewrite measured in `after` (and applied if rewritten) */
    char why[200];           /* why it was (not) rewritten */
} lg_harden_item;

typedef struct lg_harden_report {
    lg_harden_mode mode;
    lg_precision precision;  /* the emulated precision (f16 by default) */
    uint32_t n_cases;        /* input sets measured */
    lg_harden_item *items; uint32_t n_items;
    uint32_t n_hazards, n_rewritten;
    lg_fp16_error model_before, model_after; /* the worst graph output of the whole model (first case) */
    uint32_t ops_before, ops_after;
    bool parity_measured;    /* the runner's fp32 proof of the rewritten model (golden = the first case) */
    uint32_t parity_cases;
    double parity_max_abs, parity_max_rel;  /* the worst after the exact and the split pass */
    double parity_exact_max_rel;            /* after the exact pass alone (bound 1e-6) */
    uint32_t n_approx;       /* rewritten items with LG_FP16_FIX_TWO_STAGE (parity bound 1e-4) */
} lg_harden_report;

typedef struct lg_harden_options {
    lg_precision precision;  /* LG_PREC_F16 (default when LG_PREC_F32 is given) or LG_PREC_F32_F16 */
    double tol, floor;       /* the judge (0: LG_JUDGE_TOL, LG_JUDGE_FLOOR) */
    /* more input sets (e.g. `--calib DIR`): cases[k][i] is input i of set k; a match is
       hazardous when it is on any set, its error is the worst over the sets */
    const float *const *const *cases; uint32_t n_cases;
    bool allow_approx;       /* may apply the two-stage split (exact in real arithmetic, but it reorders
                                fp32 sums: proved to 1e-4, not 1e-6); otherwise it is measured and
                                reported only */
    uint32_t n_random;       /* random inputs of the parity proof after the golden one (default 2) */
    uint64_t seed;
    int threads;
} lg_harden_options;

/* Harden m for fp16 (a copy; m is not changed). inputs[i] is float32 data of input i (NULL: the
   "random:1" fill, uniform in [-1, 1), as `compare` uses). On success *out is the rewritten
   model (m unchanged in structure when nothing was rewritten) and *rep the report (free with
   lg_harden_report_free). Errors: a model the interpreter cannot run (LG_ERR_UNSUPPORTED), a
   rewrite that breaks fp32 parity (LG_ERR_INTERNAL: a bug). */
lg_status lg_harden_fp16(const lg_model *m, lg_harden_mode mode, const float *const *inputs,
                         lg_model **out, lg_harden_report **rep, lg_error *err);
lg_status lg_harden_fp16_opt(const lg_model *m, lg_harden_mode mode, const float *const *inputs,
                             const lg_harden_options *opt, lg_model **out, lg_harden_report **rep,
                             lg_error *err);
void lg_harden_report_free(lg_harden_report *r);

#ifdef __cplusplus
}
#endif
#endif
