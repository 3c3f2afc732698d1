/* Internal to op_version.c and op_version_ops.c: the op signature the version rules read
 * (see op_version.c for how it maps onto the IR and the source it follows), the helpers
 * every rule shares, and the per-op rules (op_version_ops.c) that compute() dispatches to.
 */
#ifndef LGI_CHECK_OP_VERSION_IMPL_H
#define LGI_CHECK_OP_VERSION_IMPL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check/op_version.h"

#define NOTYPE (-1) /* kTfLiteNoType */

typedef struct ov {
    const lg_model *m;
    const lg_subgraph *sg;
    const lg_op *op;
    char *buf;
    size_t n;
} ov;

/* ------------------------------------------------------------------ signature access */

static inline const lg_tensor *tensor_of(const ov *c, const int32_t *ids, uint32_t count, uint32_t i) {
    if (!ids || i >= count) return NULL;
    int32_t t = ids[i];
    if (t < 0 || (uint32_t)t >= c->sg->n_tensors || !c->sg->tensors) return NULL;
    return &c->sg->tensors[t];
}

static inline const lg_tensor *in_tensor(const ov *c, uint32_t i) {
    return tensor_of(c, c->op->inputs, c->op->n_inputs, i);
}

static inline const lg_tensor *out_tensor(const ov *c, uint32_t i) {
    return tensor_of(c, c->op->outputs, c->op->n_outputs, i);
}

static inline int type_of(const lg_tensor *t) {
    if (!t || t->type < 0 || t->type >= LG_DTYPE_COUNT) return NOTYPE;
    return t->type;
}

static inline int in_type(const ov *c, uint32_t i) { return type_of(in_tensor(c, i)); }
static inline int out_type(const ov *c, uint32_t i) { return type_of(out_tensor(c, i)); }

/* dims.size(): the length of the shape vector (0 when absent or no tensor). */
static inline uint32_t in_rank(const ov *c, uint32_t i) {
    const lg_tensor *t = in_tensor(c, i);
    return (t && t->shape) ? t->rank : 0;
}

static inline bool in_is(const ov *c, uint32_t i, int type) { return in_type(c, i) == type; }

/* inputs[0], inputs[1], outputs[0] have these types. */
static inline bool sig3(const ov *c, int in0, int in1, int out0) {
    return in_type(c, 0) == in0 && in_type(c, 1) == in1 && out_type(c, 0) == out0;
}

static inline const char *tname(int t) { return t == NOTYPE ? "untyped" : lg_dtype_name(t); }

/* The options struct if the op carries one of this kind, else NULL. */
static inline const void *opts_of(const ov *c, lg_opts_kind kind) {
    return c->op->opts_kind == kind ? c->op->opts : NULL;
}

/* ConvertActivation maps NONE and any value outside the enum to kTfLiteActNone. */
static inline bool act_set(int8_t a) { return a >= 1 && a <= 5; }

static inline const char *act_name(int8_t a) {
    static const char *const names[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH",
                                        "SIGN_BIT"};
    return (a >= 0 && a <= 5) ? names[a] : "?";
}

/* ConvertTensorType accepts every schema TensorType (0..FLOAT8_E5M2); others fail the parse. */
static inline bool bias_type_parses(int8_t t) { return t >= 0 && t < LG_DTYPE_COUNT; }

/* NeedBroadcastForBinaryInputs: at least 2 inputs whose dims vectors differ. */
static inline bool need_broadcast(const ov *c) {
    if (c->op->n_inputs < 2) return false;
    const lg_tensor *a = in_tensor(c, 0), *b = in_tensor(c, 1);
    uint32_t ra = in_rank(c, 0), rb = in_rank(c, 1);
    if (ra != rb) return true;
    for (uint32_t i = 0; i < ra; i++)
        if (a->shape[i] != b->shape[i]) return true;
    return false;
}

/* GetInputMaxDims: the largest dims.size() over all inputs. */
static inline uint32_t max_in_rank(const ov *c) {
    uint32_t r = 0;
    for (uint32_t i = 0; i < c->op->n_inputs; i++)
        if (in_rank(c, i) > r) r = in_rank(c, i);
    return r;
}

/* shape[k] of t, or -1 if t has no such dimension. */
static inline int64_t dim_at(const lg_tensor *t, int64_t k) {
    if (!t || !t->shape || k < 0 || k >= (int64_t)t->rank) return -1;
    return t->shape[k];
}

static inline bool has_scales(const lg_tensor *t) {
    return t && t->quant && t->quant->scale && t->quant->n_scale > 0;
}

/* CONV_2D: filter scale count == filter dim 0 (output channels), which must be > 0. */
static inline bool per_channel_conv(const lg_tensor *filter) {
    int64_t d = dim_at(filter, 0);
    return has_scales(filter) && d > 0 && (int64_t)filter->quant->n_scale == d;
}

/* DEPTHWISE_CONV_2D: filter scale count == filter dim 3 (channels), which must be > 0. */
static inline bool per_channel_dw(const lg_tensor *filter) {
    int64_t d = dim_at(filter, 3);
    return has_scales(filter) && d > 0 && (int64_t)filter->quant->n_scale == d;
}

/* FULLY_CONNECTED: weights scale count == weights dim 0 (one scale for a 1-row weight
   matrix counts too). */
static inline bool per_channel_fc(const lg_tensor *w) {
    int64_t d = dim_at(w, 0);
    return has_scales(w) && d >= 0 && (int64_t)w->quant->n_scale == d;
}

/* EMBEDDING_LOOKUP: more than one scale and scale count == table dim 0. */
static inline bool per_channel_table(const lg_tensor *t) {
    int64_t d = dim_at(t, 0);
    return has_scales(t) && t->quant->n_scale > 1 && (int64_t)t->quant->n_scale == d;
}

/* DEQUANTIZE input / QUANTIZE output: more than one scale and scale count == the size of
   the quantized dimension. */
static inline bool per_channel_qdim(const lg_tensor *t) {
    if (!has_scales(t) || t->quant->n_scale < 2) return false;
    int64_t d = dim_at(t, t->quant->quantized_dimension);
    return d >= 0 && (int64_t)t->quant->n_scale == d;
}

/* ------------------------------------------------------------------ reasons */

static inline int ret(ov *c, int v, const char *fmt, ...) LGI_PRINTF(3, 4);

static inline int ret(ov *c, int v, const char *fmt, ...) {
    if (c->buf && c->n) {
        int k = snprintf(c->buf, c->n, "version %d: ", v);
        if (k >= 0 && (size_t)k < c->n) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(c->buf + k, c->n - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
    return v;
}

/* The fall-through of an op that has higher versions. */
static inline int base(ov *c) {
    if (c->op->n_inputs == 0) return ret(c, 1, "no inputs, no property above version 1");
    return ret(c, 1, "%s input, no property above version 1", tname(in_type(c, 0)));
}

/* "INT8 input" style reason for a rule on the type of inputs[i]. */
static inline int by_in_type(ov *c, int v, uint32_t i) {
    if (i == 0) return ret(c, v, "%s input", tname(in_type(c, 0)));
    return ret(c, v, "%s input %u", tname(in_type(c, i)), i);
}

/* ------------------------------------------------------------------ per-op rules (op_version_ops.c) */

LG_INTERNAL int lgv_add(ov *c);
LG_INTERNAL int lgv_arg_max_min(ov *c);
LG_INTERNAL int lgv_batch_matmul(ov *c);
LG_INTERNAL int lgv_cast(ov *c);
LG_INTERNAL int lgv_concatenation(ov *c);
LG_INTERNAL int lgv_conv2d(ov *c);
LG_INTERNAL int lgv_depthwise(ov *c);
LG_INTERNAL int lgv_dequantize(ov *c);
LG_INTERNAL int lgv_div(ov *c);
LG_INTERNAL int lgv_dynamic_update_slice(ov *c);
LG_INTERNAL int lgv_embedding_lookup(ov *c);
LG_INTERNAL int lgv_equal(ov *c, int v_int16);
LG_INTERNAL int lgv_fill(ov *c);
LG_INTERNAL int lgv_fully_connected(ov *c);
LG_INTERNAL int lgv_gather(ov *c);
LG_INTERNAL int lgv_gather_nd(ov *c);
LG_INTERNAL int lgv_i16_3_i8_2(ov *c);
LG_INTERNAL int lgv_i8_2(ov *c);
LG_INTERNAL int lgv_lstm(ov *c);
LG_INTERNAL int lgv_max_min(ov *c);
LG_INTERNAL int lgv_mul(ov *c);
LG_INTERNAL int lgv_pack(ov *c);
LG_INTERNAL int lgv_pad(ov *c);
LG_INTERNAL int lgv_pool(ov *c);
LG_INTERNAL int lgv_quantize(ov *c);
LG_INTERNAL int lgv_resize_bilinear(ov *c);
LG_INTERNAL int lgv_resize_nearest(ov *c);
LG_INTERNAL int lgv_rnn_like(ov *c, bool asym);
LG_INTERNAL int lgv_select(ov *c);
LG_INTERNAL int lgv_slice(ov *c);
LG_INTERNAL int lgv_softmax(ov *c);
LG_INTERNAL int lgv_space_batch(ov *c);
LG_INTERNAL int lgv_sparse_to_dense(ov *c);
LG_INTERNAL int lgv_split(ov *c);
LG_INTERNAL int lgv_strided_slice(ov *c);
LG_INTERNAL int lgv_sub(ov *c);
LG_INTERNAL int lgv_svdf(ov *c);
LG_INTERNAL int lgv_tanh_logistic(ov *c);
LG_INTERNAL int lgv_topk(ov *c);
LG_INTERNAL int lgv_transpose(ov *c);
LG_INTERNAL int lgv_transpose_conv(ov *c);
LG_INTERNAL int lgv_uni_lstm(ov *c);
LG_INTERNAL int lgv_unpack(ov *c);

#endif
