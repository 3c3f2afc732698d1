/* The integer (quantized) kernels (internal): full-integer int8 / uint8 models and int16
 * activations where TFLite takes them, with TFLite's fixed-point arithmetic.
 *
 * Files: k_quant.c (the fixed-point helpers, quantization parameters, the dispatch that picks an
 * integer kernel for an op whose tensors are quantized), k_quant_conv.c (CONV_2D,
 * DEPTHWISE_CONV_2D, FULLY_CONNECTED, BATCH_MATMUL), k_quant_ew.c (QUANTIZE requantization,
 * ADD, SUB, MUL, the activations and SOFTMAX), k_quant_pool.c (AVERAGE/MAX_POOL_2D, MEAN,
 * CONCATENATION with requantization).
 *
 * Every quantized op computes in integers whatever the precision mode (the GPU delegates
 * simulate int8 in float; this interpreter does not emulate that).
 *
 * Sources (LiteRT repository, tflite/kernels/..., the same files as tensorflow/lite/kernels/):
 *   internal/quantization_util.cc  QuantizeMultiplier (frexp, Q31 significand, shift)
 *   internal/common.h, common.cc   MultiplyByQuantizedMultiplier (double rounding, the default
 *                                  build: TFLITE_SINGLE_ROUNDING=0), gemmlowp's
 *                                  SaturatingRoundingDoublingHighMul and RoundingDivideByPOT
 *   kernel_util.cc                 PopulateConvolutionQuantizationParams,
 *                                  GetQuantizedConvolutionMultipler,
 *                                  CalculateActivationRangeQuantized
 */
#ifndef LGI_RUN_K_QUANT_H
#define LGI_RUN_K_QUANT_H

#include "run/kernel.h"

/* ---- gemmlowp fixed point (fixedpoint.h) and TFLite's requantization */

/* SaturatingRoundingDoublingHighMul: (a*b*2 + 2^31 rounding nudge) >> 32, saturating the one
   overflow case a == b == INT32_MIN. */
static inline int32_t lgq_srdhm(int32_t a, int32_t b) {
    if (a == b && a == INT32_MIN) return INT32_MAX;
    int64_t ab = (int64_t)a * (int64_t)b;
    int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    int64_t s = ab + nudge;
    /* C division truncates toward zero, as gemmlowp's (ab + nudge) / (1ll << 31) */
    return (int32_t)(s / ((int64_t)1 << 31));
}

/* RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero. */
static inline int32_t lgq_rdbpot(int32_t x, int exponent) {
    if (exponent <= 0) return x;
    const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* MultiplyByQuantizedMultiplier(int32 x, multiplier, shift): shift > 0 multiplies by 2^shift
   first (wrapping as TFLite's int32 multiply does on the targets), shift < 0 divides after. */
static inline int32_t lgq_mbqm(int32_t x, int32_t qm, int shift) {
    int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return lgq_rdbpot(lgq_srdhm((int32_t)((uint32_t)x << left), qm), right);
}

/* MultiplyByQuantizedMultiplier(int64 x, ...): the 16x8 kernels' form, with the multiplier
   reduced to 16 bits and one rounding shift. */
static inline int32_t lgq_mbqm64(int64_t x, int32_t qm, int shift) {
    int32_t reduced = qm < 0x7FFF0000 ? ((qm + (1 << 15)) >> 16) : 0x7FFF;
    int total = 15 - shift;
    int64_t r = x * (int64_t)reduced + ((int64_t)1 << (total - 1));
    return (int32_t)(r >> total);
}

/* QuantizeMultiplier: m = q * 2^shift with q in [0.5, 1) as a Q31 significand (rounded half
   away from zero); m == 0 gives (0, 0); shift < -31 flushes to (0, 0). Fails (returns 0) only
   for a multiplier that is not finite or negative. */
LG_INTERNAL int lgq_quantize_multiplier(double m, int32_t *qm, int *shift);

/* ---- quantization parameters */

/* An integer storage type that holds quantized values: INT8, UINT8, INT16. */
static inline int lgq_is_qtype(lg_dtype t) { return t == LG_INT8 || t == LG_UINT8 || t == LG_INT16; }
/* [min, max] of a quantized type. */
LG_INTERNAL void lgq_type_range(lg_dtype t, int32_t *lo, int32_t *hi);
/* t carries a quantization with at least one scale. */
LG_INTERNAL int lgq_has_quant(const lgk_tensor *t);

typedef struct lgq_tp {
    float scale;
    int32_t zp;
} lgq_tp;
/* Per-tensor scale and zero point of t (what TFLite keeps in params.scale / zero_point);
   fails naming `what` when t has none, several scales, or an out-of-range zero point. */
LG_INTERNAL lg_status lgq_params(const lgk_node *n, const lgk_tensor *t, const char *what, lgq_tp *p,
                                 lg_error *err);

/* CalculateActivationRangeQuantized: the fused activation as a clamp of the output's integers
   (RELU: [q(0), max], RELU6: [q(0), q(6)], RELU_N1_TO_1: [q(-1), q(1)], q(x) = zp +
   round(x / scale)). TANH / SIGN_BIT are refused. */
LG_INTERNAL lg_status lgq_act_range(const lgk_node *n, int act, const lgk_tensor *out, int32_t *lo,
                                    int32_t *hi, lg_error *err);

/* Fail with LG_ERR_UNSUPPORTED: "quantized <what> is not supported (...)". */
LG_INTERNAL lg_status lgq_unsupported(const lgk_node *n, lg_error *err, const char *fmt, ...) LGI_PRINTF(3, 4);

/* Read / write element i of an INT8 / UINT8 / INT16 buffer. */
static inline int32_t lgq_get(const void *p, lg_dtype t, int64_t i) {
    switch (t) {
    case LG_INT8: return ((const int8_t *)p)[i];
    case LG_UINT8: return ((const uint8_t *)p)[i];
    default: return ((const int16_t *)p)[i];
    }
}
static inline void lgq_put(void *p, lg_dtype t, int64_t i, int32_t v) {
    switch (t) {
    case LG_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case LG_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    default: ((int16_t *)p)[i] = (int16_t)v; break;
    }
}
static inline int32_t lgq_clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Broadcast walk over up to LG_MAX_RANK dims for binary ops: offsets of a and b for each
   output element in order (lgk_broadcast_strides). */
typedef struct lgq_bcast {
    uint32_t rank;
    int32_t dim[LG_MAX_RANK];
    int64_t sa[LG_MAX_RANK], sb[LG_MAX_RANK];
    int64_t numel;
} lgq_bcast;
LG_INTERNAL lg_status lgq_bcast_init(const lgk_node *n, lgq_bcast *b, int32_t *shape, uint32_t *rank,
                                     lg_error *err);

/* ---- dispatch */

/* The integer kernel for node n when its tensors are quantized (checked on the op's input and
   output types), else NULL (the float / raw-integer kernels take it). */
LG_INTERNAL const lgk_kernel *lgk_quant_find(const lgk_node *n);

/* The kernels (each file's prepare / eval). */
#define LGQ_KERNEL(name) \
    LG_INTERNAL lg_status lgq_##name##_prepare(lgk_node *n, lg_error *err); \
    LG_INTERNAL lg_status lgq_##name##_eval(lgk_node *n, lg_error *err);
LGQ_KERNEL(conv)
LGQ_KERNEL(dwconv)
LGQ_KERNEL(fc)
LGQ_KERNEL(bmm)
LGQ_KERNEL(requant)
LGQ_KERNEL(addsub)
LGQ_KERNEL(mul)
LGQ_KERNEL(lut)
LGQ_KERNEL(softmax)
LGQ_KERNEL(relu)
LGQ_KERNEL(pool)
LGQ_KERNEL(mean)
LGQ_KERNEL(concat)
#undef LGQ_KERNEL

#endif
