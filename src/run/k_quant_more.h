/* More integer kernels (internal), registered in k_quant.c's table through LGQ_MORE_KERNELS:
 *
 *   k_quant_resize.c  RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR (int8, uint8, int16)
 *   k_quant_tconv.c   TRANSPOSE_CONV (int8 with int8 weights per tensor or channel, uint8 with
 *                     uint8 weights per tensor)
 *   k_quant_unary.c   GELU (int8, uint8, int16 LUTs), RSQRT, SQRT, ABS, LOG (int8, int16)
 *   k_quant_binary.c  SQUARED_DIFFERENCE (int8), DIV (int8, uint8, int16), PRELU (int8,
 *                     uint8, int16 with int8 alpha), MAXIMUM / MINIMUM (equal quantization)
 *   k_quant_int16.c   LOGISTIC, TANH, SOFTMAX with int16 activations (TFLite's 16-bit LUT
 *                     paths); the 8-bit forms go on to k_quant_ew.c's kernels
 *
 * Which of these LiteRT.js hands to XNNPACK in int8 (LiteRT tflite/delegates/xnnpack/
 * xnnpack_delegate.cc): RESIZE_BILINEAR (VisitResizeBilinearNode: float, qint8, quint8) and
 * TRANSPOSE_CONV (VisitTransposeConvNode: qint8 input with per-channel qint8 filter). GELU,
 * RSQRT, SQRT, ABS, LOG (VisitUnaryNode: CheckTensorFloatType), DIV, MAXIMUM, MINIMUM, PRELU,
 * SQUARED_DIFFERENCE (VisitBinaryNode: CheckTensorFloatType) and SOFTMAX (VisitSoftmaxNode:
 * float) are float-only there, RESIZE_NEAREST_NEIGHBOR is not delegated, int16 never is: those
 * run in TFLite's builtin kernels under LiteRT.js too, so they compute TFLite's arithmetic in
 * both --int-arith modes. */
#ifndef LGI_RUN_K_QUANT_MORE_H
#define LGI_RUN_K_QUANT_MORE_H

#include "run/k_quant.h"

#define LGQ_MORE_KERNEL(name) \
    LG_INTERNAL lg_status lgq_##name##_prepare(lgk_node *n, lg_error *err); \
    LG_INTERNAL lg_status lgq_##name##_eval(lgk_node *n, lg_error *err);
LGQ_MORE_KERNEL(resize_bilinear)
LGQ_MORE_KERNEL(resize_nearest)
LGQ_MORE_KERNEL(tconv)
LGQ_MORE_KERNEL(unary)
LGQ_MORE_KERNEL(sqdiff)
LGQ_MORE_KERNEL(div)
LGQ_MORE_KERNEL(prelu)
LGQ_MORE_KERNEL(minmax)
LGQ_MORE_KERNEL(act16)
#undef LGQ_MORE_KERNEL

/* lgq_act_range with TFLite's CalculateActivationRangeQuantized whatever the mode: for the ops
   LiteRT.js runs in TFLite's builtin kernels (not delegated to XNNPACK). */
static inline lg_status lgq_act_range_tflite(const lgk_node *n, int act, const lgk_tensor *out, int32_t *lo,
                                             int32_t *hi, lg_error *err) {
    lgk_ctx c = *n->ctx;
    lgk_node tn = *n;
    c.int_arith = LG_INT_TFLITE;
    tn.ctx = &c;
    return lgq_act_range(&tn, act, out, lo, hi, err);
}

/* The table entries, for k_quant.c's quant_kernels[]. LOGISTIC, TANH and SOFTMAX go through
   lgq_act16_*, which take int16 and hand 8-bit tensors to lgq_lut_* / lgq_softmax_*. */
#define LGQ_MORE_KERNELS \
    {LG_OP_RESIZE_BILINEAR, NULL, lgq_resize_bilinear_prepare, lgq_resize_bilinear_eval}, \
    {LG_OP_RESIZE_NEAREST_NEIGHBOR, NULL, lgq_resize_nearest_prepare, lgq_resize_nearest_eval}, \
    {LG_OP_TRANSPOSE_CONV, NULL, lgq_tconv_prepare, lgq_tconv_eval}, \
    {LG_OP_GELU, NULL, lgq_unary_prepare, lgq_unary_eval}, \
    {LG_OP_RSQRT, NULL, lgq_unary_prepare, lgq_unary_eval}, \
    {LG_OP_SQRT, NULL, lgq_unary_prepare, lgq_unary_eval}, \
    {LG_OP_ABS, NULL, lgq_unary_prepare, lgq_unary_eval}, \
    {LG_OP_LOG, NULL, lgq_unary_prepare, lgq_unary_eval}, \
    {LG_OP_SQUARED_DIFFERENCE, NULL, lgq_sqdiff_prepare, lgq_sqdiff_eval}, \
    {LG_OP_DIV, NULL, lgq_div_prepare, lgq_div_eval}, \
    {LG_OP_PRELU, NULL, lgq_prelu_prepare, lgq_prelu_eval}, \
    {LG_OP_MAXIMUM, NULL, lgq_minmax_prepare, lgq_minmax_eval}, \
    {LG_OP_MINIMUM, NULL, lgq_minmax_prepare, lgq_minmax_eval},

#endif
