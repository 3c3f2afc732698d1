/*
 * litegpu quantize: store a float model's weights in fewer bits (issue #13).
 *
 * Storage-only modes (the arithmetic stays float: every quantized constant is read through a
 * DEQUANTIZE op, the standard TFLite form of each):
 *
 *   fp16          every FLOAT32 constant (weights, biases, scalars; never the integer shape
 *                 and index constants) becomes a FLOAT16 constant + DEQUANTIZE. Graph inputs
 *                 and outputs stay FLOAT32. Values are clamped to +-65504 and rounded to
 *                 nearest even (TFLite's QuantizeTensorFloat16,
 *                 tensorflow/lite/tools/optimize/quantization_utils.cc).
 *   int8-weights  the weights of FULLY_CONNECTED [out, in], CONV_2D [out, kh, kw, in],
 *                 DEPTHWISE_CONV_2D [1, kh, kw, out], TRANSPOSE_CONV [out, kh, kw, in] and the
 *                 tables of EMBEDDING_LOOKUP / GATHER become symmetric INT8 (zero point 0),
 *                 one scale per output channel (per_tensor: one scale), + DEQUANTIZE.
 *                 As TFLite's converter (SymmetricPerChannelQuantization and
 *                 SymmetricPerChannelQuantizeValues in quantization_utils.cc; per tensor
 *                 PortableSymmetricQuantizeFloats in portable_tensor_utils.cc):
 *                     r = max |w| over the channel, scale = r / 127 (float division),
 *                     q = clamp(TfLiteRound(w * (127 / r)), -127, 127)
 *                 where TfLiteRound rounds half away from zero. A channel that is all zero
 *                 gets scale 1 and q = 0 (TFLite's per-tensor rule; its per-channel code
 *                 stores scale 0, which runtimes that check scales > 0 refuse).
 *   int4-weights  the same weights as INT4, packed two per byte (element 2i in the low
 *                 nibble of byte i, 2i+1 in the high one: TFLite's TensorType INT4 and
 *                 UnpackPackedIntToInt8), symmetric per channel: scale = r / 7,
 *                 q = clamp(TfLiteRound(w * (7 / r)), -7, 7) (kMaxQuantizedValue4bit = 7).
 *                 block_size > 0 writes the schema's BlockwiseQuantization instead: one
 *                 FLOAT16 scale per (output channel, block of block_size along the last, input
 *                 axis), a scales tensor [out, in / block_size] as ai-edge-quantizer writes it
 *                 (scale rounded through bfloat16 to float16, zero_points -1,
 *                 quantized_dimension 0), q = clamp(TfLiteRound(w / scale), -8, 7). LiteRT's
 *                 DEQUANTIZE kernel reads affine parameters only and returns zeros for it
 *                 (measured on LiteRT.js 2.5.3), so the CLI does not offer it: it is here for
 *                 the dynamic modes, whose FULLY_CONNECTED reads blockwise weights directly.
 *
 *   int8-static   post-training full-integer int8 (src/passes/quant_static.h has the rules and
 *                 their TFLite sources): the float model runs on the calibration cases (at
 *                 least one, else LG_ERR_INVALID_ARG), each activation gets asymmetric INT8
 *                 parameters from its range (min-max, percentile or MSE: `range`), weights of
 *                 CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED become symmetric INT8 per
 *                 channel (per_tensor: one scale) with INT32 biases; every op litegpu's int8
 *                 interpreter runs computes in int8, the others stay float between
 *                 DEQUANTIZE and QUANTIZE (float_ops says why for each); inputs and outputs
 *                 stay FLOAT32, or become INT8 with int8_io. Data-movement ops take their
 *                 input's parameters, so a pad constant never sets a range.
 *   int8-dynamic  TFLite's dynamic-range quantization (src/passes/quant_dynamic.c has the
 *                 rules and sources): the int8-weights values, read directly by the hybrid
 *                 ops CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED (asymmetric_quantize_inputs)
 *                 and BATCH_MATMUL (a constant rhs, per tensor), through DEQUANTIZE by
 *                 TRANSPOSE_CONV, GATHER, EMBEDDING_LOOKUP (the last two per tensor);
 *                 weights under 1024 elements stay float (reported as skipped).
 *
 * Weights that are FLOAT16 constants read through DEQUANTIZE (an fp16 model) are quantized
 * from their exact float values: the DEQUANTIZE stays and reads the new constant; the FLOAT16
 * biases of the ops whose weights were quantized become FLOAT32 constants of the same values
 * (TFLite's weight-only form). A weight whose quantized form (data, scales and zero points)
 * would not be smaller than it is stored stays as it is (reported as skipped): FLOAT16
 * depthwise kernels of 3x3 (18 B per channel against 9 + 12 B in INT8).
 *
 * Exclusion: an op matches an exclude pattern when the pattern is its op name
 * (case-insensitive, "FULLY_CONNECTED") or a POSIX extended regular expression (regcomp)
 * found in one of its output tensors' names. The constants of matching ops stay as they are.
 *
 * Measurement: the quantized model against the input model, fp32, on every case (the golden
 * inputs, the calibration sets; the pattern fill and n_random random ones when neither is
 * given): per output SNR, cosine, max abs error and argmax agreement over all cases, and on the
 * first case the first tensor (in op order) whose value fails lg_judge (lg/compare.h).
 * Quantized tensors of the result are compared dequantized (scale * (q - zero point)); INT8
 * inputs (int8_io) get the float case quantized as QUANTIZE does; quantized kernels compute
 * with TFLite's arithmetic (LG_INT_TFLITE). eval_cases, when given, replace the golden and
 * calibration inputs (the handbook's rule: calibrate on one set, evaluate on another).
 * Then lg_check_model on the result (target, gpu).
 *
 * Selective precision by measurement (int8-static with target_error > 0, src/passes/quant_sweep.c):
 *   The output error of a model q against the input model f is
 *       E(q) = max over the FLOAT32 outputs of f of  sqrt( sum (q - f)^2 / sum f^2 ),
 *   the sums over every value of the output and every measured case (pairs where either side
 *   is inf or NaN left out, as the parity figures do): the relative RMS error, the report's
 *   parity SNR as 10^(-SNR/20) (SNR 30 dB is E = 0.0316). An output whose reference is all
 *   zero counts 0 when q is exact there, else +inf. The measured cases are the ones the
 *   report's parity uses: eval_cases when given, else the golden inputs and the calibration
 *   cases (so the written model's E is its parity figure).
 *   A layer is a computing op int8-static makes int8 (WEIGHTED or BINARY in
 *   quant_static_ops.def: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, BATCH_MATMUL, ADD,
 *   SUB, MUL) with the activation and data-movement ops that follow it in int8 (they follow
 *   their input: a layer kept float keeps them float). Calibration runs once; then each
 *   layer's sensitivity is measured (one build and its runs per layer, progress
 *   "sensitivity"), the layers are ranked (most sensitive first; ties: op order) and the k
 *   most sensitive are kept float with the smallest k the search finds whose model meets
 *   E <= target_error: E(0) (all int8) is measured, then k = 1, 2, 4, ... (up to n) until one
 *   meets, then k is bisected between the last failing and the first meeting (progress
 *   "search"). The chosen k meets the target as measured and k - 1 was measured and does
 *   not: it is the smallest k meeting among those measured (every one is in rep->steps; E is
 *   not monotone in k, so a smaller k not measured might meet too). When even k = n (every layer
 *   float: only int8_io's inputs and outputs stay quantized) fails, the model with the
 *   smallest error measured is returned and rep->target_met is false (not an error). The
 *   sensitivity of a layer (lg_quant_sensitivity):
 *     LG_SENS_ALONE    (the default) E of the float model with this layer alone in int8:
 *                      the larger, the more it costs ("quantize one at a time");
 *     LG_SENS_WITHOUT  E of the all-int8 model with this layer alone kept float: the
 *                      smaller, the more it costs ("leave one out").
 *   Measured (tests/e2e/test_quantize_target.sh's models; layers kept float for the same
 *   target, alone vs leave-one-out): the trained classifier on its 90 evaluation images,
 *   targets 0.03 / 0.02 / 0.01 / 0.005: 2/2, 4/5, 6/6, 8/9 of 9; selfie_segmentation on 3
 *   synthetic images, 0.1 / 0.03: 70/77, 72/77 of 78; pose_landmark_lite, 0.3 / 0.1: 83/111,
 *   100/113 of 113. Leave-one-out finds a layer that ruins the model alone but ranks the
 *   others by differences buried in the largest error (every E without one layer is close
 *   to E of the all-int8 model), and its builds are nearly all-int8, slower to run here
 *   (pose_landmark_lite: 130 s against 12 s). Alone measures each layer's own share.
 *
 * A model that already holds quantized tensors (INT8/UINT8/INT16/INT4 data or activations
 * with scales) is refused (LG_ERR_INVALID_ARG). The result records what was done in its
 * metadata "litegpu.quantize" (JSON: mode, granularity, block, exclude, calibration files; with
 * target_error: the target, the error reached and the ops kept float).
 */
#ifndef LG_QUANTIZE_H
#define LG_QUANTIZE_H

#include "lg/check.h"
#include "lg/compare.h"
#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lg_quant_mode {
    LG_QUANT_FP16 = 0,
    LG_QUANT_INT8_WEIGHTS = 1,
    LG_QUANT_INT4_WEIGHTS = 2,
    LG_QUANT_INT8_DYNAMIC = 3,
    LG_QUANT_INT8_STATIC = 4,
    LG_QUANT_MODE_COUNT
} lg_quant_mode;

/* "fp16", "int8-weights", "int4-weights", "int8-dynamic", "int8-static". */
const char *lg_quant_mode_name(lg_quant_mode m);
int lg_quant_mode_from_name(const char *s); /* -1 if unknown */
/* Whether lg_quantize implements the mode yet. */
bool lg_quant_mode_supported(lg_quant_mode m);

/* Block sizes lg_quantize takes for blockwise INT4: 32, 64, 128, 256 (ai-edge-quantizer's). */
#define LG_QUANT_BLOCK_MIN 32u
#define LG_QUANT_BLOCK_MAX 256u

/* One calibration file, for the manifest. */
typedef struct lg_quant_file {
    const char *name;          /* as listed (relative to the calibration folder) */
    const char *sha256;        /* 64 lower-case hex digits */
} lg_quant_file;

/* How int8-static estimates an activation tensor's range from the calibration values. */
typedef enum lg_quant_range {
    LG_RANGE_MINMAX = 0,       /* [min, max] over every value (TFLite's calibrator) */
    LG_RANGE_PERCENTILE = 1,   /* [p_lo, p_hi]: the central `percentile` % of the values */
    LG_RANGE_MSE = 2,          /* the clipping range that minimises the mean squared
                                  quantization error (clip + rounding) over the values */
    LG_RANGE_COUNT
} lg_quant_range;

/* "minmax", "percentile", "mse"; lg_quant_range_from_name returns -1 if unknown. */
const char *lg_quant_range_name(lg_quant_range r);
int lg_quant_range_from_name(const char *s);

/* How --target-error measures a layer's sensitivity (see "Selective precision" above). */
typedef enum lg_quant_sensitivity {
    LG_SENS_ALONE = 0,         /* E of the float model with the layer alone in int8 */
    LG_SENS_WITHOUT = 1,       /* E of the all-int8 model with the layer alone kept float */
    LG_SENS_COUNT
} lg_quant_sensitivity;

/* "alone", "leave-one-out"; lg_quant_sensitivity_from_name returns -1 if unknown. */
const char *lg_quant_sensitivity_name(lg_quant_sensitivity s);
int lg_quant_sensitivity_from_name(const char *s);

/* E = 10^(-snr_db / 20): the output error of an SNR in dB, and back (20 log10(1 / e)). */
double lg_quant_error_from_db(double snr_db);
double lg_quant_error_to_db(double e);

typedef struct lg_quant_options {
    lg_quant_mode mode;
    bool per_tensor;           /* int8/int4: one scale per tensor (default: per channel) */
    uint32_t block_size;       /* int4: blockwise along the input axis (0: per channel) */
    const char *const *exclude; uint32_t n_exclude; /* op names or regexes on output names */
    /* measurement: per input, its data in the input's storage type (float32 for float inputs),
       for each case; an input with no data gets the fills below (zeros when not float) */
    const void *const *golden;           /* or NULL */
    const void *const *const *cases;     /* calibration sets */
    const char *const *case_names;       /* n_cases names (may be NULL) */
    uint32_t n_cases;
    uint32_t n_random;         /* random inputs when neither golden nor cases (default 2) */
    uint64_t seed;             /* first random seed (default 1) */
    bool no_measure;           /* skip the runs (a model litegpu cannot run) */
    int threads;
    /* the calibration manifest (recorded in the report's metadata) */
    const lg_quant_file *calib_files; uint32_t n_calib_files;
    /* the check after */
    lg_target target;
    lg_gpu gpu;
    /* int8-static (and the sensitivity sweep): the activation ranges come from running the
       float model on the calibration cases (cases / n_cases: at least one is required) */
    lg_quant_range range;      /* how a tensor's range is estimated from its values */
    double percentile;         /* LG_RANGE_PERCENTILE: the kept fraction in percent (default
                                  99.99 when 0); the range is [p_lo, p_hi] of the values */
    bool int8_io;              /* the model's float inputs and outputs become INT8 (default:
                                  they stay FLOAT32, with QUANTIZE / DEQUANTIZE at the edge) */
    /* evaluation cases, kept apart from the calibration cases (the handbook's rule): when
       given, the report's figures are measured on these instead of on the calibration cases */
    const void *const *const *eval_cases;
    const char *const *eval_names;
    uint32_t n_eval;
    double target_error;       /* int8-static, in (0, 1): keep the most sensitive layers float
                                  until the output error E (above) is at most this; 0: off */
    lg_quant_sensitivity sensitivity; /* how a layer's sensitivity is measured */
    lg_progress_fn progress; void *progress_ud;
} lg_quant_options;

/* One constant converted. Indices are the input model's. */
typedef struct lg_quant_weight {
    int32_t tensor;            /* the float tensor the ops read (its values changed) */
    char *name;                /* its name (owned by the report) */
    char *stored;              /* the name of the constant now holding it (NAME_fp16, NAME_int8,
                                  NAME_int4, or NAME for an fp16 weight's constant); owned */
    int32_t op;                /* its first reader */
    int32_t code;              /* that op's builtin code */
    int8_t from_type;          /* as stored before: FLOAT32, or FLOAT16 (read through DEQUANTIZE) */
    int8_t to_type;            /* FLOAT16, INT8, INT4 */
    int64_t numel;
    int32_t axis;              /* quantized dimension; -1 per tensor (or fp16) */
    uint32_t n_scales;         /* scales stored: 1, one per channel, or one per block */
    uint32_t block;            /* blockwise block size; 0 otherwise */
    uint64_t bytes_before;     /* numel x 4 (FLOAT32) or x 2 (FLOAT16) */
    uint64_t bytes_after;      /* the data as stored (INT4: ceil(numel / 2)) + 4 per float
                                  scale and 8 per zero point (the schema's float and long
                                  vectors) or, blockwise, 2 per FLOAT16 scale in its tensor */
    double max_abs;            /* max |w| */
    double max_err;            /* max |w - dequantized| */
} lg_quant_weight;

/* A constant left as it was, and why. */
typedef struct lg_quant_skip {
    int32_t tensor;
    char *name;                /* owned by the report */
    int32_t op;                /* the reader it was found at */
    bool excluded;             /* by an exclude pattern (else: not convertible) */
    char why[128];
} lg_quant_skip;

/* int8-static: one runtime op of the input left in float, and why. */
typedef struct lg_quant_float_op {
    int32_t op;                /* in the input model */
    int32_t code;              /* its builtin code */
    bool excluded;             /* by an exclude pattern (else: not quantizable, or kept by the caller) */
    char name[96];             /* its first output's name */
    char why[160];
} lg_quant_float_op;

/* --target-error: one layer (a computing op of the input and the ops following it in int8). */
typedef struct lg_quant_layer {
    int32_t op;                /* the computing op, in the input model */
    int32_t code;              /* its builtin code */
    char name[96];             /* its first output's name */
    double err_alone;          /* E with this layer alone in int8 (NaN: not measured) */
    double err_without;        /* E with every layer int8 but this one (NaN: not measured) */
    uint32_t rank;             /* 1: the most sensitive (the layers are stored in rank order) */
    bool kept_float;           /* kept float in the written model */
} lg_quant_layer;

/* --target-error: one model of the search, the k most sensitive layers kept float. */
typedef struct lg_quant_step {
    uint32_t k;
    double error;              /* its E as measured */
    bool met;                  /* error <= target */
} lg_quant_step;

/* One output of the model, over all cases. */
typedef struct lg_quant_output {
    uint32_t index;
    char name[96];
    int64_t numel;
    uint32_t n_cases;
    double snr_db;             /* 10 log10(sum ref^2 / sum err^2); +inf: no error; NaN: ref all 0 */
    double cosine;             /* NaN when either side is all zero */
    double max_abs;            /* the largest |ref - test| */
    double ref_max_abs;        /* the largest |ref| */
    uint32_t n_argmax_equal;   /* cases whose flattened argmax agree */
    double worst_score;        /* the largest lg_judge score over the cases */
    bool pass;                 /* lg_judge passes on every case */
} lg_quant_output;

typedef struct lg_quant_report {
    lg_quant_mode mode;
    bool per_tensor;
    uint32_t block_size;
    lg_quant_weight *weights; uint32_t n_weights;
    lg_quant_skip *skipped;   uint32_t n_skipped;
    uint32_t n_excluded;       /* skipped entries with excluded set */
    uint32_t n_already;        /* fp16: constants already FLOAT16 (left as they are) */
    uint32_t n_bias_fp32;      /* int8/int4: FLOAT16 biases of the quantized ops stored as
                                  FLOAT32 constants of the same values (TFLite's weight-only
                                  form keeps biases float32; no DEQUANTIZE left for them) */
    uint32_t *exclude_hits;    /* per exclude pattern: the ops it matched */
    uint32_t n_exclude;
    uint64_t weights_before, weights_after; /* sums over weights[] */
    uint64_t weights_fp32;     /* sum of numel x 4: the weights as float32 */
    int64_t n_params;          /* sum of numel */
    uint64_t const_before, const_after; /* every constant buffer of the two models, in bytes */
    uint32_t ops_before, ops_after;
    /* int8-static */
    lg_quant_range range;      /* the range method and its percentile (as used) */
    double percentile;
    bool int8_io;              /* the float inputs and outputs became INT8 */
    uint32_t n_calib_cases;    /* calibration cases the ranges come from */
    uint32_t n_ops_int8;       /* runtime ops of the input computed in int8 */
    uint32_t n_ops_float;      /* runtime ops of the input left float (float_ops) */
    lg_quant_float_op *float_ops;
    uint32_t n_activations;    /* tensors of the result with int8 activation parameters */
    uint32_t n_quantize;       /* QUANTIZE float -> int8 added (after float ops and inputs) */
    uint32_t n_dequantize;     /* DEQUANTIZE int8 -> float added (before float ops and outputs) */
    uint32_t n_requantize;     /* QUANTIZE int8 -> int8 added (a fixed-parameter input of a concatenation) */
    uint32_t n_bias_int32;     /* biases stored INT32 (scale s_in * s_w, zero point 0) */
    /* --target-error (swept: target_error > 0) */
    bool swept;
    double target_error;
    lg_quant_sensitivity sensitivity;
    bool sweep_on_eval;        /* E measured on eval_cases (else golden + calibration cases) */
    uint32_t sweep_cases;      /* cases each E is measured on */
    lg_quant_layer *layers; uint32_t n_layers; /* in rank order */
    double error_int8;         /* E of the model with every layer int8 */
    double error;              /* E of the written model (measured in the search) */
    uint32_t n_kept;           /* layers kept float in it (ranks 1..n_kept) */
    bool target_met;           /* error <= target_error */
    lg_quant_step *steps; uint32_t n_steps; /* the search's models, in the order measured */
    uint32_t n_builds;         /* models built and measured (layers + search) */
    uint64_t n_runs;           /* interpreter runs: cases x (models + the float reference) */
    /* measurement */
    bool measured;
    char measure_note[200];    /* why not measured */
    uint32_t n_cases;
    char (*case_names)[48];
    lg_quant_output *outputs; uint32_t n_outputs;
    int32_t first_divergent_op;     /* in the quantized model; -1: none */
    int32_t first_divergent_tensor; /* in the quantized model */
    char first_divergent_name[96];
    char first_divergent_op_name[48];
    double first_divergent_score;
    char first_divergent_why[160];
    uint32_t n_tensors_compared;
    /* the GPU */
    const char *gpu_note;      /* what the GPU delegates do with this form (static text) */
    lg_target target;
    lg_gpu gpu;
    bool ready_before, ready_after;
    uint32_t blockers_before, blockers_after;
    char first_blocker[400];   /* "rule: reason" of the first blocker after ("" when ready) */
    char *metadata;            /* the "litegpu.quantize" JSON written into the model (owned) */
} lg_quant_report;

/* Quantize m (not changed) into *out (lg_model_free) with *rep (lg_quant_report_free; may
   be NULL). opt must not be NULL. Errors: LG_ERR_UNSUPPORTED for a mode not implemented yet
   ("int8-static is not implemented yet"), LG_ERR_INVALID_ARG for an already quantized model,
   a bad block size or exclude pattern, a case of the wrong size. */
lg_status lg_quantize(const lg_model *m, const lg_quant_options *opt, lg_model **out,
                      lg_quant_report **rep, lg_error *err);
void lg_quant_report_free(lg_quant_report *r);

/* The building block the ONNX importer shares: FLOAT32 constant t of subgraph sg becomes a
   FLOAT16 constant (named NAME_fp16; values clamped to +-65504, rounded to nearest even) read
   by a new DEQUANTIZE inserted at op index `at` that writes t, so t's readers are unchanged.
   t's old buffer is left for compaction. *fp16_tensor (may be NULL) gets the new tensor. */
lg_status lg_const_to_fp16(lg_model *m, uint32_t sg, int32_t t, uint32_t at, int32_t *fp16_tensor,
                           lg_error *err);

#ifdef __cplusplus
}
#endif
#endif
