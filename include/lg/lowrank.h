/*
 * litegpu lowrank: replace a dense layer by two thin ones from its SVD (issue #14 item 3; the
 * refactoring handbook, seed 001, chapter 8 "Replace a dense matrix with low-rank factors").
 *
 * Which ops (subgraph 0):
 *   FULLY_CONNECTED with a constant FLOAT32 weight W [m, n] (TFLite's [out, in]), no
 *     quantization, default weights format;
 *   CONV_2D with a 1x1 kernel, stride 1, dilation 1 and a constant FLOAT32 weight OHWI
 *     [m, 1, 1, n] (a pointwise conv is an FC over every pixel);
 *   either with the weight a FLOAT16 constant read through a DEQUANTIZE (the form of an fp16
 *     model, TFLite's float16 quantization): factored from the exact half values, the factors
 *     (and a conv's zero bias) stored FLOAT16 + DEQUANTIZE the same way (lg_const_to_fp16), the
 *     old DEQUANTIZE removed; the reconstruction error is that of the half-rounded factors.
 * An op is left alone, with the reason in its layer entry, when its weight is a runtime tensor,
 * of another type, quantized or sparse, when the weight tensor or its buffer is also read by
 * another op or tensor (a shared constant: changing it would change the other reader), when
 * a conv kernel is not 1x1, its stride or dilation not 1.
 *
 * The rewrite: the thin SVD W = U S V^T in double precision (LAPACK dgesdd,
 * src/refactor/linalg.h), kept to rank r: W_r = U_r S_r V_r^T. The op becomes two ops
 *   first:  the same kind of op, weight A = sqrt(S_r) V_r^T [r, n] (conv: [r, 1, 1, n]),
 *           no activation; FC: no bias (-1); CONV_2D: a zero bias [r] (TFLite's conv.cc
 *           Prepare requires a bias: TF_LITE_ENSURE(context, has_bias));
 *   second: weight B = U_r sqrt(S_r) [m, r] (conv [m, 1, 1, r]), the original bias and the
 *           original fused activation, writing the original output tensor;
 * no activation between them (the handbook: an activation there changes the hypothesis). FC's
 * keep_num_dims is kept on both, so the intermediate has the input's shape with its last
 * dimension r (keep_num_dims) or is [numel(input) / n, r] (fully_connected.cc PrepareImpl).
 * The handbook's own code puts S into the second factor; splitting sqrt(S) between them keeps
 * both factors on the same scale (the same product, so the same function).
 *
 * Rank: `rank` > 0 (clamped to min(m, n)), or `energy` E in (0, 1]: the smallest r with
 *   sum_{i<r} s_i^2 >= E * sum_i s_i^2.
 * The handbook's break-even rank is m*n/(m+n): the factors hold r*(m+n) weights against m*n.
 * A layer whose parameters would not drop (params_after >= params_before, which for an FC is
 * r >= m*n/(m+n)) is left alone unless force_rank (with an explicit rank: full-rank
 * reconstruction is the implementation test of chapter 8, not a compression). min_saving F
 * leaves alone a layer that would save less than the fraction F of its parameters.
 * Parameters of a layer: FC m*n (+m with a bias) before, r*(m+n) (+m) after; CONV_2D 1x1
 * m*n (+m) before, r*(m+n) + r (the zero bias) (+m) after.
 *
 * The report gives per layer the spectrum (every singular value), the energy kept, and the
 * reconstruction error ||W - B A||_F / ||W||_F computed from the stored float factors (not from
 * the spectrum). The result holds metadata "litegpu.lowrank" (JSON: tool, rank/energy asked,
 * the replaced layers with m, n, rank). Identical inputs give identical bytes.
 */
#ifndef LG_LOWRANK_H
#define LG_LOWRANK_H

#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lg_lowrank_options {
    int32_t op;                /* one op (an index of subgraph 0), or -1 with all_fc / all_conv1x1 */
    bool all_fc;               /* every FULLY_CONNECTED */
    bool all_conv1x1;          /* every 1x1 CONV_2D */
    int32_t rank;              /* > 0: this rank (clamped to min(m, n)); 0: by energy */
    double energy;             /* in (0, 1] when rank is 0 */
    bool force_rank;           /* with rank > 0: replace even when parameters would not drop */
    double min_saving;         /* in [0, 1): skip layers saving less than this fraction */
    /* recovery without training (lg/refit.h lg_refit_fc): with n_refit_cases > 0, after the
       rewrite the second FULLY_CONNECTED of each replaced FC (in op order, so each sees the
       refitted layers before it) gets the ridge solution B, b that best maps its input (the
       first factor's output, in the new model) to the original layer's output (in the input
       model) on these cases (lg/quantize.h's layout: cases[k][i], float32 per input);
       refit_lambda is lg_refit_fc's scale-free lambda. The weight count does not change.
       A layer lg_refit_fc refuses (a conv, FLOAT16 weights, no bias, a fused activation) keeps
       its SVD factors, the reason in refit_why. Measure the result on other inputs. */
    const void *const *const *refit_cases;
    uint32_t n_refit_cases;
    double refit_lambda;
} lg_lowrank_options;

/* One candidate op: replaced, or left alone and why. Indices are the input model's. */
typedef struct lg_lowrank_layer {
    int32_t op;
    int32_t code;              /* LG_OP_FULLY_CONNECTED or LG_OP_CONV_2D */
    char name[128];            /* its output tensor's name */
    int32_t m, n;              /* weight [m, n] (outputs, inputs); 0 when not read */
    bool has_bias;
    int8_t weight_type;        /* LG_FLOAT32, or LG_FLOAT16 (a constant read through DEQUANTIZE) */
    int32_t rank;              /* the rank chosen (0 when not computed) */
    double break_even;         /* m*n / (m+n) */
    uint64_t params_before, params_after; /* of this layer (after: as if replaced) */
    double energy_kept;        /* sum_{i<r} s_i^2 / sum s_i^2 (NaN when not computed) */
    double recon_error;        /* ||W - B A||_F / ||W||_F from the float SVD factors, before any
                                  refit (NaN: none) */
    double *spectrum;          /* min(m, n) singular values, descending (owned); NULL if none */
    uint32_t n_spectrum;
    bool replaced;
    char why[200];             /* why left alone ("" when replaced) */
    bool refitted;             /* refit: B and the bias solved on the refit cases */
    double refit_before, refit_after; /* lg_refit_fc's relative error of the layer's output on
                                  the refit cases, with the SVD factors and after (NaN: none) */
    char refit_why[200];       /* why not refitted ("" when refitted or no refit asked) */
} lg_lowrank_layer;

typedef struct lg_lowrank_report {
    lg_lowrank_layer *layers;  uint32_t n_layers; /* in op order */
    uint32_t n_replaced;
    uint64_t n_params_before, n_params_after;     /* lg_model_learned_params of both models */
    uint32_t ops_before, ops_after;
    char *metadata;            /* the "litegpu.lowrank" JSON (owned) */
} lg_lowrank_report;

/* Factor m (not changed) into *out (lg_model_free) with *rep (lg_lowrank_report_free). The
   output is written even when no layer is replaced (then it is m plus the metadata).
   LG_ERR_INVALID_ARG: bad options (neither op nor all_*, op out of range, rank < 0, energy
   outside (0, 1], min_saving outside [0, 1)); with `op`, an op that cannot be factored (not
   an FC or 1x1 conv, runtime or shared weight...): the message says why. */
lg_status lg_lowrank(const lg_model *m, const lg_lowrank_options *opt, lg_model **out,
                     lg_lowrank_report **rep, lg_error *err);
void lg_lowrank_report_free(lg_lowrank_report *r);

/* The output error of model b against model a (fp32 reference interpreter) over n_cases
   input sets (cases[k][i]: float32 data of input i; NULL cases: one set filled with
   lg_fill_f32 "pattern"). Over every FLOAT32 output and case: max_abs = max |b - a|,
   ref_max_abs = max |a|; rel = the largest over the outputs of that output's max |b - a| /
   its max |a| (so a small output, a probability beside landmarks, is not hidden by a large
   one; NaN when every reference is all zero and b equals it there, +inf when b differs from
   an all-zero reference).
   n_argmax_equal: the cases where every FLOAT32 output's flattened argmax (the first maximum)
   is the same in both (a classifier's decision). Both models must have the same inputs
   (float) and outputs. */
typedef struct lg_lowrank_error {
    uint32_t n_cases;
    double max_abs, ref_max_abs, rel;
    uint32_t n_argmax_equal;
} lg_lowrank_error;
lg_status lg_lowrank_measure(const lg_model *a, const lg_model *b, const float *const *const *cases,
                             uint32_t n_cases, lg_lowrank_error *out, lg_error *err);

#ifdef __cplusplus
}
#endif
#endif
