/*
 * litegpu compare: numeric agreement between two runs.
 *
 *  - precision mode: the same model in f32 and in an emulated GPU precision, in lockstep;
 *    metrics for every tensor, the first op whose output diverges, the overflow events;
 *  - two-model mode: two models with the same interface (a rewrite and its original) on a
 *    golden input plus N random ones, with atol/rtol and argmax agreement.
 */
#ifndef LG_COMPARE_H
#define LG_COMPARE_H

#include "lg/run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Statistics of test against ref. A statistic that is undefined on the data is NaN (the CLI
   prints "n/a", JSON null), never a made-up 0 or 1: Pearson of a constant tensor, cosine of an
   all-zero one, max_rel and nmse of an all-zero reference. */
typedef struct lg_metrics {
    int64_t n;             /* elements compared */
    int64_t n_finite;      /* pairs where both values are finite (the statistics below use these) */
    double max_abs;        /* max |ref - test| over finite pairs */
    double rms;            /* sqrt(mean (ref - test)^2) over finite pairs */
    double max_rel;        /* max_abs / max |ref| (NaN when the reference is all zero) */
    double ref_max_abs;    /* max |ref| over finite values */
    double test_max_abs;   /* max |test| over finite test values */
    double ref_mean;       /* mean of ref over finite pairs */
    double ref_std;        /* population standard deviation of ref over finite pairs (0: constant) */
    double cosine;         /* cosine similarity (NaN when either side is all zero) */
    double pearson;        /* Pearson correlation (NaN when either side is constant, or < 2 pairs) */
    double nmse;           /* sum (ref-test)^2 / sum ref^2 (NaN when the reference is all zero) */
    int64_t ref_inf, ref_nan, test_inf, test_nan;
    int64_t ref_argmax, test_argmax; /* over the flattened tensor */
} lg_metrics;

/* Metrics of test against ref (n floats each). */
void lg_metrics_compute(const float *ref, const float *test, int64_t n, lg_metrics *out);

/* ---- the judging rule (shared by compare and verify)

   An output is judged against its own scale:

       scale = max(ref_std, floor)        when the reference varies (ref_std > 0)
       scale = max(max |ref|, floor)      when it is constant or a single value
       score = rms(test - ref) / scale
       pass  <=>  no inf/NaN appears that the reference does not have, and score <= tol

   and, only when asked for, Pearson >= corr (outputs of >= 8 values whose correlation is
   defined) and max_rel <= max_rel. Defaults: tol 0.05 (an RMS error of 5% of the output's
   spread: for an error uncorrelated with the signal, about Pearson 0.9987), floor 2^-14 =
   6.1e-5 (the smallest normal half: an output whose values all sit below it holds no
   relative precision in half, so its scale is not taken below it). The severity is how far
   past its threshold an output is: score / tol (INFINITY for new inf/NaN; the larger of
   the criteria in force); the worst output is the one with the largest severity. */
typedef struct lg_judge_options {
    double tol;            /* <= 0: 0.05 */
    double floor;          /* <= 0: 2^-14 */
    double corr;           /* > 0: also require Pearson >= corr (>= 8 values, defined); 0: off */
    double max_rel;        /* > 0: also require max_rel <= this; 0: off */
} lg_judge_options;

#define LG_JUDGE_TOL 0.05
#define LG_JUDGE_FLOOR 6.103515625e-05 /* 2^-14 */

typedef struct lg_verdict {
    bool pass;
    bool new_nonfinite;    /* test has more inf/NaN than ref */
    bool constant_ref;     /* the reference is constant (every finite value equal, or one value) */
    bool flat_ref;         /* more than one value and the reference is (nearly) constant: its std is
                              at most the floor or below half's rounding of its magnitude (2^-11 max
                              |ref|). The comparison then says little: the input is likely degenerate */
    double scale;          /* as above */
    double score;          /* rms / scale */
    double tol;            /* the tolerance applied (after defaults) */
    double severity;       /* score / tol, or the largest ratio of the criteria in force; INFINITY
                              for new inf/NaN. > 1 exactly when !pass */
    char why[160];         /* why it fails ("" when it passes) */
} lg_verdict;

/* What v->scale is: "std", "magnitude" (a constant reference) or "scale floor". */
const char *lg_verdict_scale_kind(const lg_verdict *v, const lg_judge_options *opt);
/* Judge metrics m (lg_metrics_compute of ref, test) with opt (NULL: the defaults). */
void lg_judge(const lg_metrics *m, const lg_judge_options *opt, lg_verdict *out);
/* lg_metrics_compute then lg_judge: what compare does for every output and verify must do for
   every GPU output against its CPU reference. m may be NULL. */
void lg_judge_values(const float *ref, const float *test, int64_t n, const lg_judge_options *opt, lg_metrics *m,
                     lg_verdict *out);

/* ---- precision mode */

typedef struct lg_tensor_cmp {
    int32_t op;            /* producing op (-1 for a graph input) */
    int32_t tensor;
    const char *name;
    lg_metrics m;
    lg_verdict v;          /* lg_judge of m with the report's options */
} lg_tensor_cmp;

typedef struct lg_overflow_event {
    int32_t op, tensor;
    int64_t n_inf;         /* inf (or NaN) values in the emulated output, finite in f32 */
    double ref_max_abs;    /* the largest magnitude of the f32 output */
    double input_max_abs;  /* the largest magnitude among the op's float inputs (f32 run) */
    int64_t reduced;       /* elements reduced into each output value (reductions, dot products), 0 otherwise */
    double accum_estimate; /* for sums/means: an estimate of the accumulator's magnitude */
} lg_overflow_event;

typedef struct lg_precision_report {
    lg_precision precision;
    double corr_threshold;                       /* the options in force (after defaults) */
    lg_judge_options judge;
    lg_tensor_cmp *tensors; uint32_t n_tensors;  /* every float tensor an op produced, in op order */
    int32_t first_divergent_op;                  /* -1 if none */
    int32_t first_divergent_tensor;
    char first_divergent_why[160];
    lg_overflow_event *overflows; uint32_t n_overflows;
    lg_tensor_cmp *outputs; uint32_t n_outputs;  /* the graph outputs */
    int32_t worst_output;                        /* index into outputs: the largest severity (how far
                                                    past its own threshold), -1 without outputs */
    bool ok;                                     /* every output passes lg_judge */
    uint32_t n_flat_outputs;                     /* outputs whose f32 reference is flat (lg_verdict):
                                                    the input is likely degenerate for the model */
} lg_precision_report;

typedef struct lg_compare_options {
    lg_precision precision;    /* the emulated precision (default f16) */
    double corr_threshold;     /* lg_judge_options.corr (0: off, the default) */
    double max_rel;            /* lg_judge_options.max_rel (0: off, the default) */
    int threads;
    double tol;                /* lg_judge_options.tol (0: LG_JUDGE_TOL) */
    double floor;              /* lg_judge_options.floor (0: LG_JUDGE_FLOOR) */
} lg_compare_options;

/* Run m in f32 and in opt->precision on the same inputs (inputs[i]: float32 data of input i),
   compare every tensor. Every float tensor an op produces and every output is judged by
   lg_judge; the first divergent op is the first whose output fails it. Callers choose the
   input: a constant one is degenerate for every normalization (the CLI's default is the
   "random:1" fill). The report is freed with lg_precision_report_free. */
lg_status lg_compare_precision(const lg_model *m, const float *const *inputs, const lg_compare_options *opt,
                               lg_precision_report **out, lg_error *err);
void lg_precision_report_free(lg_precision_report *r);

/* ---- two-model mode (the seed's parity protocol) */

typedef struct lg_models_options {
    lg_precision precision;     /* both models run in this precision (default f32) */
    uint32_t n_random;          /* random inputs after the golden one (default 8) */
    uint64_t seed;              /* first random seed (random:SEED, SEED+1, ...) */
    double atol, rtol;          /* |a - b| <= atol + rtol * |a| elementwise (default 1e-4, 1e-3) */
    int threads;
    lg_int_arith int_arith;     /* quantized kernels' arithmetic (lg/run.h; default tflite) */
} lg_models_options;

typedef struct lg_models_case {
    char input[48];             /* "golden", "random:7" */
    lg_metrics *outputs;        /* per output */
    bool *allclose;             /* per output */
    bool *argmax_equal;         /* per output */
} lg_models_case;

typedef struct lg_models_report {
    uint32_t n_outputs;
    lg_models_case *cases; uint32_t n_cases;
    double worst_max_abs, worst_max_rel;
    uint32_t n_allclose_fail, n_argmax_fail;
    bool ok;
} lg_models_report;

/* Compare two models with the same inputs and outputs. golden[i] is input i's float32 data
   (NULL, or a NULL golden[i]: the "pattern" fill, not a constant: a constant input is
   degenerate for every normalization). */
lg_status lg_compare_models(const lg_model *a, const lg_model *b, const float *const *golden,
                            const lg_models_options *opt, lg_models_report **out, lg_error *err);
/* The same for chains (lg/run.h: a split model against the original, say), created with the
   options' precision. alloc_from gives the allocator hook for the input buffers. */
lg_status lg_compare_chains(const lg_model *alloc_from, lg_chain *a, lg_chain *b, const float *const *golden,
                            const lg_models_options *opt, lg_models_report **out, lg_error *err);
void lg_models_report_free(lg_models_report *r);

#ifdef __cplusplus
}
#endif
#endif
