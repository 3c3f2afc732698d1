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

typedef struct lg_metrics {
    int64_t n;             /* elements compared */
    double max_abs;        /* max |ref - test| over finite pairs */
    double max_rel;        /* max_abs / max |ref| (relative to the largest reference magnitude) */
    double ref_max_abs;    /* max |ref| */
    double test_max_abs;   /* max |test| over finite test values */
    double cosine;         /* cosine similarity (1 when both are all zero) */
    double pearson;        /* Pearson correlation (1 when both are constant and equal) */
    double nmse;           /* sum (ref-test)^2 / sum ref^2 (0 when equal) */
    int64_t ref_inf, ref_nan, test_inf, test_nan;
    int64_t ref_argmax, test_argmax; /* over the flattened tensor */
} lg_metrics;

/* Metrics of test against ref (n floats each). */
void lg_metrics_compute(const float *ref, const float *test, int64_t n, lg_metrics *out);

/* ---- precision mode */

typedef struct lg_tensor_cmp {
    int32_t op;            /* producing op (-1 for a graph input) */
    int32_t tensor;
    const char *name;
    lg_metrics m;
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
    double corr_threshold;
    lg_tensor_cmp *tensors; uint32_t n_tensors;  /* every float tensor an op produced, in op order */
    int32_t first_divergent_op;                  /* -1 if none */
    int32_t first_divergent_tensor;
    char first_divergent_why[160];
    lg_overflow_event *overflows; uint32_t n_overflows;
    lg_tensor_cmp *outputs; uint32_t n_outputs;  /* the graph outputs */
    int32_t worst_output;                        /* index into outputs: a failing one if any, the one
                                                    furthest from its test (1 - correlation, or
                                                    max_rel for outputs of fewer than 8 values) */
    bool ok;                                     /* every output within the thresholds */
} lg_precision_report;

typedef struct lg_compare_options {
    lg_precision precision;    /* the emulated precision (default f16) */
    double corr_threshold;     /* divergence: Pearson correlation below this while the NMSE is above
                                  1 - threshold (so a near-constant tensor with a tiny error is not
                                  flagged), or new inf/NaN (default 0.999) */
    double max_rel;            /* if > 0, outputs must also keep max_rel <= this (default: off; tensors
                                  of fewer than 8 values use max_rel <= 1e-2 instead of correlation) */
    int threads;
} lg_compare_options;

/* Run m in f32 and in opt->precision on the same inputs (inputs[i]: float32 data of input i),
   compare every tensor. The report is freed with lg_precision_report_free. */
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
   (NULL: use the "half" fill). */
lg_status lg_compare_models(const lg_model *a, const lg_model *b, const float *const *golden,
                            const lg_models_options *opt, lg_models_report **out, lg_error *err);
void lg_models_report_free(lg_models_report *r);

#ifdef __cplusplus
}
#endif
#endif
