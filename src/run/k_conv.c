/* Reference kernels: the conv family (see k_conv.h), its table and shared helpers. */
#include <stdio.h>

#include "run/k_conv.h"

const lgk_kernel lgk_conv_kernels[] = {
    {LG_OP_CONV_2D, NULL, lgk_conv2d_prepare, lgk_conv2d_eval},
    {LG_OP_DEPTHWISE_CONV_2D, NULL, lgk_dwconv_prepare, lgk_dwconv_eval},
    {LG_OP_TRANSPOSE_CONV, NULL, lgk_tconv_prepare, lgk_tconv_eval},
    {LG_OP_CUSTOM, "Convolution2DTransposeBias", lgk_tconv_bias_prepare, lgk_tconv_eval},
    {LG_OP_FULLY_CONNECTED, NULL, lgk_fc_prepare, lgk_fc_eval},
    {LG_OP_BATCH_MATMUL, NULL, lgk_bmm_prepare, lgk_bmm_eval},
    {LG_OP_AVERAGE_POOL_2D, NULL, lgk_pool_prepare, lgk_pool_eval},
    {LG_OP_MAX_POOL_2D, NULL, lgk_pool_prepare, lgk_pool_eval},
    {0, NULL, NULL, NULL},
};

lg_status lgk_cv_clamp(const lgk_node *n, int act, lgk_clamp *c, lg_error *err) {
    c->lo = -INFINITY;
    c->hi = INFINITY;
    c->on = 1;
    switch (act) {
    case LG_ACTIVATION_FUNCTION_TYPE_NONE: c->on = 0; return LG_OK;
    case LG_ACTIVATION_FUNCTION_TYPE_RELU: c->lo = 0; return LG_OK;
    case LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1: c->lo = -1; c->hi = 1; return LG_OK;
    case LG_ACTIVATION_FUNCTION_TYPE_RELU6: c->lo = 0; c->hi = 6; return LG_OK;
    case LG_ACTIVATION_FUNCTION_TYPE_TANH:
    case LG_ACTIVATION_FUNCTION_TYPE_SIGN_BIT:
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                        "fused activation %s is not supported on this op (TFLite's kernel ignores it, "
                        "GPU delegates apply it)", act == LG_ACTIVATION_FUNCTION_TYPE_TANH ? "TANH" : "SIGN_BIT");
    default:
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "unknown fused activation %d", act);
    }
}

int64_t lgk_cv_out_size(int padding, int64_t in, int64_t filter, int64_t stride, int64_t dilation) {
    if (stride <= 0) return 0;
    int64_t eff = (filter - 1) * dilation + 1;
    if (padding == LG_PADDING_SAME) return (in + stride - 1) / stride;
    return (in + stride - eff) / stride;
}

int64_t lgk_cv_pad(int64_t stride, int64_t dilation, int64_t in, int64_t filter, int64_t out) {
    int64_t eff = (filter - 1) * dilation + 1;
    int64_t total = (out - 1) * stride + eff - in;
    return total > 0 ? total / 2 : 0;
}

const void *lgk_cv_opts(const lgk_node *n, lg_opts_kind kind, const char *what, lg_error *err,
                        lg_status *st) {
    if (!n->opts || n->op->opts_kind != kind) {
        *st = lgk_fail(n, LG_ERR_FORMAT, err, "missing %s", what);
        return NULL;
    }
    *st = LG_OK;
    return n->opts;
}

static int is_quant(int t) { return t == LG_INT8 || t == LG_UINT8 || t == LG_INT16 || t == LG_INT4; }

lg_status lgk_cv_float_in(const lgk_node *n, uint32_t i, int rank, const char *what, lg_error *err) {
    if (i >= n->n_in || !n->in[i]) return lgk_fail(n, LG_ERR_FORMAT, err, "%s (input %u) is missing", what, i);
    const lgk_tensor *t = n->in[i];
    int ft = t->ir->type;
    if (ft != LG_FLOAT32 && ft != LG_FLOAT16) {
        if (is_quant(ft))
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                            "%s (input %u) is %s: quantized %s is not supported yet (float only)", what, i,
                            lg_dtype_name(ft), n->name);
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "%s (input %u) is %s: only float tensors are supported",
                        what, i, lg_dtype_name(ft));
    }
    if (t->type != LG_FLOAT32) return lgk_fail(n, LG_ERR_INTERNAL, err, "%s is not stored as float32", what);
    if (t->ir->sparsity)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "%s (input %u) is a sparse tensor (densify it first)", what, i);
    if (rank >= 0 && t->rank != (uint32_t)rank)
        return lgk_fail(n, LG_ERR_FORMAT, err, "%s (input %u) has rank %u, expected %d", what, i, t->rank, rank);
    return LG_OK;
}

lg_status lgk_cv_bias(const lgk_node *n, uint32_t i, int64_t count, const lgk_tensor **b, lg_error *err) {
    *b = NULL;
    if (i >= n->n_in || !n->in[i]) return LG_OK;
    LG_TRY(lgk_cv_float_in(n, i, -1, "bias", err));
    if (n->in[i]->numel != count)
        return lgk_fail(n, LG_ERR_FORMAT, err, "bias has %lld values, expected %lld", (long long)n->in[i]->numel,
                        (long long)count);
    *b = n->in[i];
    return LG_OK;
}

lg_status lgk_cv_one_output(const lgk_node *n, lg_error *err) {
    if (n->n_out != 1 || !n->out[0]) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 1 output, got %u", n->n_out);
    int ft = n->out[0]->ir->type;
    if (ft != LG_FLOAT32 && ft != LG_FLOAT16) {
        if (is_quant(ft))
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output is %s: quantized %s is not supported yet (float only)",
                            lg_dtype_name(ft), n->name);
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output is %s: only float outputs are supported",
                        lg_dtype_name(ft));
    }
    return LG_OK;
}

