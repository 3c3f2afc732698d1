/* The hybrid kernels (internal): float activations with INT8 constant weights, TFLite's
 * dynamic-range quantization (litegpu quantize --mode int8-dynamic). Each run quantizes the
 * float input to int8 on the fly (one scale, and for the asymmetric forms a zero point, per
 * quantization group: a row of a matrix product, an image of a convolution), multiplies in
 * int32 and scales the sums back to float with input_scale * weight_scale; bias and output
 * stay float.
 *
 * Ops: FULLY_CONNECTED (per-tensor or per-channel weights, asymmetric_quantize_inputs true or
 * false, keep_num_dims), CONV_2D (per-tensor or per-channel, groups), DEPTHWISE_CONV_2D
 * (per-channel), BATCH_MATMUL (a constant INT8 rhs, per tensor), EMBEDDING_LOOKUP (an INT8
 * table with a float output: rows dequantized). GATHER of an INT8 table with a float output has
 * no hybrid kernel in TFLite either (the converter reads such tables through DEQUANTIZE).
 *
 * Two arithmetics (lg_run_options.int_arith), which differ only in float rounding order and in
 * how the input is quantized; the int32 sums are exact in both:
 *
 *   LG_INT_TFLITE   TFLite's reference kernels (LiteRT tflite/kernels/):
 *     fully_connected.cc EvalHybridDense, batch_matmul.cc EvalHybrid: per row, symmetric
 *       (SymmetricQuantizeFloats) or, with asymmetric_quantize_inputs, asymmetric
 *       (AsymmetricQuantizeFloats); internal/reference/portable_tensor_utils.cc
 *       PortableMatrixBatchVectorMultiplyAccumulate: acc = sum w*q - row_sum(w) * zp,
 *       y = bias + float(acc) * (scale * w_scale[c]);
 *       BATCH_MATMUL (internal/reference/batch_matmul.h) subtracts row_sum * zp in float:
 *       acc = int32(float(sum w*q) - float(row_sum) * float(zp)), y = (scale * w_scale) * acc;
 *     conv.cc: weights whose scales are all equal take EvalHybrid (symmetric per image,
 *       optimized_ops::HybridConv: y = float(acc) * (scale * w_scale) + bias), others
 *       EvalHybridPerChannel (asymmetric per image, reference_ops::HybridConvPerChannel:
 *       y = float(acc) * w_scale[c] * scale + bias, padding taps skipped);
 *     depthwise_conv.cc EvalHybridPerChannel (asymmetric per image,
 *       reference_integer_ops::DepthwiseConvHybridPerChannel:
 *       y = float(acc) * (w_scale[c] * scale) + bias);
 *     embedding_lookup.cc EvalHybrid: y = float(q) * scale (the row's scale when per row).
 *     The fused activation is a clamp after (FULLY_CONNECTED: ApplyActivationToVector, any
 *     activation).
 *
 *   LG_INT_XNNPACK  what LiteRT.js computes: its XNNPACK delegate (tflite/delegates/xnnpack/
 *     xnnpack_delegate.cc) takes FULLY_CONNECTED, CONV_2D and BATCH_MATMUL with FLOAT32 input
 *     and INT8 weights as qd8-f32-qc8w (xnn_define_dynamically_quantized_tensor_value +
 *     xnn_unary_convert): FULLY_CONNECTED and BATCH_MATMUL per row (num_nonbatch_dims 1),
 *     CONV_2D per image (3), always asymmetric whatever asymmetric_quantize_inputs says, with
 *     XNNPACK's parameters (src/xnnpack/quantization.h xnn_qd8_asymmetric_quantization_params:
 *     inv = 255 / (max(0, max) - min(0, min)) in float, the zero point chosen there, rounded
 *     with lrintf; src/f32-qs8-vcvt wasmsimd-magic: q = clamp(rne(x * inv) + zp)) and the
 *     GEMM epilogue of src/qd8-f32-qc8w-gemm (y = float(acc) * (1 / inv) * w_scale[c] + bias,
 *     then the activation clamp). DEPTHWISE_CONV_2D is not delegated ("unsupported mixed
 *     types"): LiteRT.js runs TFLite's optimized kernel
 *     (internal/optimized/integer_ops/depthwise_conv_hybrid.h), TFLite's asymmetric input
 *     quantization with y = float(acc) * scale * w_scale[c] + bias. A FULLY_CONNECTED with a
 *     TANH or SIGN_BIT activation is not delegated either (no output range): TFLite's path.
 *     EMBEDDING_LOOKUP is TFLite's in both.
 *
 * Every hybrid op computes in fp32 whatever the precision mode; the interpreter rounds the
 * float outputs in the f16 modes as for any op (the GPU delegates dequantize INT8 weights at
 * load and run the float kernels: this interpreter does not emulate that for hybrid ops).
 */
#ifndef LGI_RUN_K_HYBRID_H
#define LGI_RUN_K_HYBRID_H

#include "run/kernel.h"

/* The hybrid kernel for node n (float activation, INT8 constant weights), or NULL. */
LG_INTERNAL const lgk_kernel *lgk_hybrid_find(const lgk_node *n);

/* ---- the input quantizers (one group of n values; exposed for the unit tests) */

/* TFLite SymmetricQuantizeFloats: r = max |x|; r == 0: q = 0, scale 1; else scale = r / 127,
   q = clamp(round_half_away(x * (127 / r)), -127, 127). */
LG_INTERNAL void lgh_quantize_sym(const float *x, int64_t n, int8_t *q, float *scale);
/* TFLite AsymmetricQuantizeFloats: rmin = min(0, min x), rmax = max(0, max x) in double;
   equal: q = 0, scale 1, zp 0; else scale = (rmax - rmin) / 255, the zero point with the
   smaller error (from -128 - rmin / scale or 127 - rmax / scale), nudged into [-128, 127] and
   rounded half away from zero; q = clamp(round_half_away(zp + x * (1 / scale)), -128, 127)
   in float. */
LG_INTERNAL void lgh_quantize_asym(const float *x, int64_t n, int8_t *q, float *scale, int32_t *zp);
/* XNNPACK's qd8 (see above): scale is the dequantization scale 1 / inv. */
LG_INTERNAL void lgh_quantize_xnn(const float *x, int64_t n, int8_t *q, float *scale, int32_t *zp);

#endif
