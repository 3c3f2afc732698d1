/* Internal to litegpu quantize: int8-static, the rewrite of a float model into a full-integer
 * int8 one from calibrated ranges (quant_static.c: which op becomes int8 and the parameters
 * of every tensor; quant_static_emit.c: the edits; quant_static_ops.def: the per-op table).
 *
 * The form (TFLite's full-integer quantization, tflite/tools/optimize/quantize_model.cc):
 *  - activations: asymmetric INT8 [-128, 127] per tensor from the range [lo, hi] the
 *    calibration chose, widened to hold 0 (zero must be exact: zero padding) and to a width of
 *    at least LGQ_MIN_WIDTH (ai-edge-quantizer's min_bound 1e-4,
 *    uniform_quantize_tensor.py tensor_zp_scale_from_min_max), then TFLite's
 *    GetAsymmetricQuantizationParams (tflite/tools/optimize/quantization_utils.cc), in float:
 *        scale = (hi - lo) / 255,  zp = clamp(round(-128 - lo / scale), -128, 127)
 *    (std::round: half away from zero). Outputs of LOGISTIC and SOFTMAX are fixed at 1/256,
 *    -128, of TANH at 1/128, 0 (operator_property.cc restricted_value_int8).
 *  - data movement (RESHAPE, TRANSPOSE, PAD, MAX_POOL_2D, ... MOVE in the table): the output
 *    takes its data input's parameters, never its own range: a PADV2 of -inf before a max
 *    pool does not widen anything, the pad value is quantized into the range (-inf -> -128).
 *    CONCATENATION / PACK: the inputs and the output share the union of the inputs' ranges;
 *    an input with fixed parameters (a LOGISTIC output) gets a requantizing QUANTIZE.
 *  - weights of CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED: symmetric INT8 per output
 *    channel (lgq_symmetric; per tensor with o->per_tensor); biases INT32 with scale
 *    s_in * s_w[c] (float), zero point 0, q = clamp(TfLiteRound(b * (1 / scale)),
 *    -INT32_MAX, INT32_MAX) (SymmetricBiasQuantize, quantization_utils.cc).
 *  - an op that stays float reads DEQUANTIZE outputs and writes a tensor that a QUANTIZE
 *    turns back into INT8 where an int8 op reads it: one boundary op per tensor at most.
 *  - graph inputs and outputs stay FLOAT32 (QUANTIZE after an input, DEQUANTIZE before an
 *    output) or, with o->int8_io, become INT8 with their parameters.
 */
#ifndef LGI_QUANT_STATIC_H
#define LGI_QUANT_STATIC_H

#include "internal.h"
#include "lg/quantize.h"
#include "passes/quant_calib.h"

/* The narrowest activation range quantized (a constant-zero tensor gets [0, 1e-4]). */
#define LGQ_MIN_WIDTH 1e-4

/* keep_float values: any non-zero value keeps the op float; LGQ_KEEP_EXCLUDED (1: what
   quant.c's exclude mask holds) marks it as excluded by a pattern in the report, other values
   as kept by the caller (a sweep). */
#define LGQ_KEEP_EXCLUDED 1u
#define LGQ_KEEP_CALLER 2u

/* TFLite's asymmetric int8 parameters of [lo, hi] (widened to hold 0 and to LGQ_MIN_WIDTH). */
LG_INTERNAL void lgq_asym_params(double lo, double hi, float *scale, int32_t *zp);

/* Build the int8 model of src from the calibration cal (lgq_calibrate on src): *out
   (lg_model_free) with map[src tensor] = the result's tensor holding its values (INT8 or
   FLOAT32; -1 when gone), map sized src->subgraphs[0].n_tensors. keep_float (NULL: none)
   has one entry per op of src. rep (may be NULL) gets the weights quantized
   (rep->weights), the ops left float (rep->float_ops) and the counts of int8-static; its
   metadata, measurement and check fields are left to the caller. Versions are set as TFLite
   assigns them; the result is validated. */
LG_INTERNAL lg_status lgq_static_build(const lg_model *src, const lgq_calib *cal, const uint8_t *keep_float,
                                       const lg_quant_options *o, lg_model **out, int32_t *map, lg_quant_report *rep,
                                       lg_error *err);

/* lg_quantize's int8-static: calibrate src on o->cases (lgq_calibrate) and build
   (lgq_static_build) with keep_float; also fills rep's range, percentile, int8_io and
   n_calib_cases. */
LG_INTERNAL lg_status lgq_static_run(const lg_model *src, const lg_quant_options *o, const uint8_t *keep_float,
                                     lg_model **out, int32_t *map, lg_quant_report *rep, lg_error *err);

/* What the GPU delegates do with a full-integer int8 model (the report's gpu_note). */
LG_INTERNAL const char *lgq_static_gpu_note(void);

#endif
