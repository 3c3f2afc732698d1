/*
 * litegpu run: a reference interpreter for TFLite models, in fp32 and in emulated GPU fp16.
 *
 * Precision modes (see README "The GPU we emulate"):
 *   LG_PREC_F32      the reference: fp32 storage and arithmetic.
 *   LG_PREC_F16      the GPU's fast path: every float tensor (inputs, constants, every op's
 *                    outputs) is stored as IEEE half, rounded to nearest even; each kernel
 *                    accumulates as the GPU delegate's F16 kernel does: convolutions, fully
 *                    connected, ADD_N in a half accumulator (a product rounded into it per
 *                    step), SUM/MEAN in half inside the delegate's work-group reduction, so a
 *                    sum above 65504 becomes inf as on a device; AVERAGE_POOL_2D, SOFTMAX,
 *                    CUMSUM and REDUCE_PROD in fp32, rounded once (README, per-op table).
 *   LG_PREC_F32_F16  half storage, fp32 arithmetic (what a GPU with fp16 storage but fp32
 *                    ALUs does, e.g. the WebGPU backend on SwiftShader).
 * Elementwise functions are computed in fp32 and rounded once at the op's output; summation
 * order is the op's loop order (the delegate's for a convolution), except SUM/MEAN in f16.
 *
 *     lg_interp *it;
 *     lg_run_options ro = {0};
 *     ro.precision = LG_PREC_F32;
 *     lg_interp_create(m, &ro, &it, &err);
 *     lg_interp_set_input(it, 0, LG_FLOAT32, data, nbytes, &err); // a FLOAT32 input
 *     lg_interp_invoke(it, &err);
 *     lg_tensor_view v; lg_interp_output(it, 0, &v);    // v.data: float32, v.shape/v.rank
 *     lg_interp_free(it);
 */
#ifndef LG_RUN_H
#define LG_RUN_H

#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lg_precision { LG_PREC_F32 = 0, LG_PREC_F16 = 1, LG_PREC_F32_F16 = 2 } lg_precision;

/* Integer arithmetic of the quantized kernels (int8 / uint8 / int16 models; they compute in
   integers in every precision mode):
   LG_INT_TFLITE   TFLite's builtin kernels: fixed-point requantization (QuantizeMultiplier,
                   MultiplyByQuantizedMultiplier with gemmlowp rounding), its LUTs.
   LG_INT_XNNPACK  what the XNNPACK delegate computes for the ops it takes in LiteRT.js
                   (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, BATCH_MATMUL: float
                   requantization rounded to nearest even; QUANTIZE: XNNPACK's converts);
                   the other ops as LG_INT_TFLITE. README "Quantized models" lists per op. */
typedef enum lg_int_arith { LG_INT_TFLITE = 0, LG_INT_XNNPACK = 1 } lg_int_arith;
const char *lg_int_arith_name(lg_int_arith a); /* "tflite", "xnnpack" */
int lg_int_arith_from_name(const char *s);     /* -1 if unknown */
const char *lg_precision_name(lg_precision p); /* "f32", "f16", "f32_f16" */
int lg_precision_from_name(const char *s);     /* -1 if unknown */


/* A view of a tensor's current value in the interpreter. Float tensors are held as FLOAT32
   (rounded to half in the f16 modes); other types natively. data is owned by the
   interpreter and valid until the next invoke or free. */
typedef struct lg_tensor_view {
    int32_t index;          /* tensor index in the subgraph */
    const char *name;
    lg_dtype type;          /* storage type: FLOAT32 for every float tensor */
    int32_t shape[LG_MAX_RANK];
    uint32_t rank;
    int64_t numel;
    const void *data;
    uint64_t nbytes;
} lg_tensor_view;

/* Called after each op with the op's outputs (taps). Return non-zero to stop the run
   (lg_interp_invoke then returns LG_ERR_INVALID_ARG with "stopped by the tap"). */
typedef int (*lg_tap_fn)(void *ud, int32_t op_index, const lg_tensor_view *outputs,
                         uint32_t n_outputs);

typedef struct lg_run_options {
    lg_precision precision;
    int threads;              /* worker threads for the heavy kernels; 0 or 1 = one */
    bool keep_all;            /* never reuse a tensor's memory (every tensor readable after
                                 invoke: needed for --dump-all and compare) */
    lg_tap_fn tap;
    void *tap_ud;
    uint32_t subgraph;        /* which subgraph to run (0 = the primary) */
    lg_int_arith int_arith;   /* quantized kernels' arithmetic (LG_INT_TFLITE = 0) */
    bool profile;             /* time every op (lg_interp_profile); off: no clock is read */
} lg_run_options;

typedef struct lg_interp lg_interp;

/* Memory. lg_interp_create allocates through the model's allocator hook (the alloc given to
   lg_model_new or in lg_read_options; realloc/free when none), and lg_interp_free gives it all
   back through the same hook: the interpreter object, its arena (tensor metadata, node arrays,
   kernel state, constants converted or folded at create), the activation arena (one block of
   lg_mem_plan.arena_bytes), the kernels' shared scratch, the planner's temporaries and the
   graph index (lg/graph.h, freed before create returns). The hook must return memory aligned
   for any scalar type, as malloc does. After create nothing allocates: set_input, invoke and
   the views do not. Two exceptions, on purpose:
   - threads > 1: the worker pool's control blocks come from malloc and the threads from
     pthread_create (a pool is an OS resource, not model memory); when they cannot be had the
     interpreter runs single-threaded instead of failing.
   - lg_compare_precision / lg_compare_models (lg/compare.h): their temporary input buffers use
     the hook of the (first) model, but the reports they return come from malloc, because
     lg_precision_report_free and lg_models_report_free take no model to find a hook with. */

/* Prepare a model to run: resolve every op's kernel, infer and check shapes, plan memory.
   An op we cannot run fails here with LG_ERR_UNSUPPORTED naming the op and its index.
   The model must outlive the interpreter. */
lg_status lg_interp_create(const lg_model *m, const lg_run_options *opt, lg_interp **out,
                           lg_error *err);
void lg_interp_free(lg_interp *it);

uint32_t lg_interp_n_inputs(const lg_interp *it);
uint32_t lg_interp_n_outputs(const lg_interp *it);
/* Shape and type of input/output i as the model declares them (data NULL before invoke). */
lg_status lg_interp_input(const lg_interp *it, uint32_t i, lg_tensor_view *v);
lg_status lg_interp_output(const lg_interp *it, uint32_t i, lg_tensor_view *v);
/* Any tensor of the subgraph (after invoke; with keep_all, every tensor is kept). */
lg_status lg_interp_tensor(const lg_interp *it, int32_t tensor, lg_tensor_view *v);

/* Set input i. type must be the input's type (FLOAT32 data for FLOAT32/FLOAT16 inputs);
   nbytes must match. The data is copied (and rounded to half in the f16 modes). */
lg_status lg_interp_set_input(lg_interp *it, uint32_t i, lg_dtype type, const void *data,
                              uint64_t nbytes, lg_error *err);
/* Run every op. Errors name the op and its index. */
lg_status lg_interp_invoke(lg_interp *it, lg_error *err);

/* ---- per-op profile (lg_run_options.profile). Invoke reads CLOCK_MONOTONIC before the
   first op and after every op it runs; op i is charged the interval that ends at its reading
   (its kernel and the fp16 rounding of its outputs; not a tap). The intervals tile the invoke,
   so the per-op sum is its wall time less a few instructions, never more. With threads > 1 an
   op's time is wall time, not CPU time. An op folded at create (all inputs constant) runs
   nothing: 0 ns, 0 calls. Counters accumulate over invokes until reset; an invoke that fails
   leaves the ops it ran counted but not n_invokes. The counters are allocated at create. */
typedef struct lg_profile {
    uint32_t n_ops;           /* the subgraph's ops; index = op index = run order */
    const uint64_t *ns;       /* per op: nanoseconds summed over the invokes since the reset */
    const uint64_t *first_ns; /* per op: its nanoseconds in the first invoke after the reset */
    const uint64_t *n_calls;  /* per op: times it ran since the reset */
    uint64_t n_invokes;       /* invokes completed since the reset */
} lg_profile;
/* The counters (valid while the interpreter lives, updated by invoke); NULL unless the
   interpreter was created with opt.profile. */
const lg_profile *lg_interp_profile(const lg_interp *it);
/* Zero the counters (e.g. after warm-up runs); nothing when profiling is off. */
void lg_interp_profile_reset(lg_interp *it);

/* ---- memory plan (tensor lifetimes, buffers reused as an arena planner does) */
typedef struct lg_mem_plan {
    uint64_t arena_bytes;     /* size of the activation arena (greedy offset assignment) */
    uint64_t peak_live_bytes; /* the largest sum of live activation sizes at any op */
    int32_t peak_op;          /* the op at which that peak occurs */
    const int32_t *peak_tensors; uint32_t n_peak_tensors; /* tensors live at the peak */
    uint64_t const_bytes;     /* constant data (mapped from the file, not copied) */
    uint64_t converted_bytes; /* constants converted at prepare (e.g. fp16 weights to fp32) */
    const uint64_t *live_bytes; /* per op (the subgraph's n_ops entries; NULL without ops): the sum of
                                   the activation sizes live at that op, as for the peak, so
                                   live_bytes[peak_op] == peak_live_bytes (litegpu report's timeline) */
} lg_mem_plan;
/* The plan made at create time; valid while the interpreter lives. */
const lg_mem_plan *lg_interp_mem_plan(const lg_interp *it);

/* Fill a float32 buffer (the inputs the CLI makes up when none are given):
   - "half": every element 0.5;
   - "pattern": element i = ((i*7919 + 13) % 1009) / 1009, in [0, 1);
   - "random:SEED": uniform in [-1, 1) (multiples of 2^-23: -1 + k/2^23, k = 0..2^24-1) from
     a fixed 64-bit LCG, so one seed gives the same values on every machine. SEED is decimal
     digits only, 0..18446744073709551615 (2^64-1); a sign, other characters or a value past
     2^64-1 is refused (not wrapped or saturated).
   Returns LG_ERR_INVALID_ARG for an unknown fill or a bad seed. */
lg_status lg_fill_f32(const char *fill, float *data, int64_t n, lg_error *err);

/* ---- chains: models run one after another, tensors passed by name (a split model,
   lg/split.h; `litegpu run OUT.split.json`). The chain's inputs are the named tensors no
   earlier part computes, its outputs the named ones given. Part k's input "x" reads the
   latest value named "x" (a chain input, or an earlier part's output). Views are valid until
   the next invoke or free. The models must outlive the chain.
   One part with no names (input_names and output_names NULL) is the model itself: its
   interface by index, opt as given (taps included), so one code path runs either. */
typedef struct lg_chain lg_chain;
lg_status lg_chain_create(const lg_model *const *parts, uint32_t n_parts,
                          const char *const *input_names, uint32_t n_inputs,
                          const char *const *output_names, uint32_t n_outputs,
                          const lg_run_options *opt, lg_chain **out, lg_error *err);
void lg_chain_free(lg_chain *c);
uint32_t lg_chain_n_inputs(const lg_chain *c);
uint32_t lg_chain_n_outputs(const lg_chain *c);
/* Shape and type of input i (from the first part that reads it). */
lg_status lg_chain_input(const lg_chain *c, uint32_t i, lg_tensor_view *v);
lg_status lg_chain_set_input(lg_chain *c, uint32_t i, lg_dtype type, const void *data,
                             uint64_t nbytes, lg_error *err);
lg_status lg_chain_invoke(lg_chain *c, lg_error *err);
lg_status lg_chain_output(const lg_chain *c, uint32_t i, lg_tensor_view *v);
uint32_t lg_chain_n_parts(const lg_chain *c);
/* Part k's interpreter (for its memory plan, tensors after invoke...). */
const lg_interp *lg_chain_interp(const lg_chain *c, uint32_t part);

#ifdef __cplusplus
}
#endif
#endif
