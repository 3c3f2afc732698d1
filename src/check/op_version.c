/* The operator version TFLite's converter assigns to an op from its properties.
 *
 * Source read (facts only, our own code): google-ai-edge/LiteRT
 *   tflite/converter/tools/versioning/op_version.cc
 *     at commit 119ae633cc864d7c797a4b259706961f4baf22ed
 *     GetBuiltinOperatorVersion(const OpSignature&), NeedBroadcastForBinaryInputs, GetInputMaxDims
 *   tflite/converter/tools/versioning/op_signature.cc
 *     at commit 6e59417fbc2dc97dec4221b3bf2ace8794c136f6
 *     GetOpSignature(): how a flatbuffer op becomes an OpSignature (types, dims, ext options)
 *   tflite/converter/core/api/flatbuffer_conversions.cc
 *     at commit 098fb976230858e7d5fbd2b0318e3aeafe2c9e10 (and the TF copy in
 *     tensorflow/compiler/mlir/lite/core/api): ParseOpData, how options become params
 * Cross-checked against the older copies (LiteRT f2fe03ebf716 of the same file, which lacks
 * DYNAMIC_UPDATE_SLICE v5/v6 and CAST UINT4; LiteRT tflite/tools/versioning/op_version.cc
 * 22f0209bb81f, which lacks TRANSPOSE v8/v9, MUL v8, FULLY_CONNECTED v14) and against
 * op_version_test.cc (LiteRT 1bc4da1a81b3).
 *
 * The converter (flatbuffer_export.cc) serializes the model, then calls
 * UpdateOpVersion(buffer), which for every non-custom op builds an OpSignature from the
 * flatbuffer and raises the opcode's version to GetBuiltinOperatorVersion(sig) (it never
 * lowers it). So the flatbuffer view (op_signature.cc) is the right model for our IR.
 *
 * How the OpSignature maps onto the IR:
 *  - inputs/outputs: one entry per index in op->inputs/op->outputs, optional (-1) inputs
 *    included; such an entry, or an index outside the tensor list, or a tensor type outside
 *    the schema, has "no type" (kTfLiteNoType). inputs.size() is op->n_inputs.
 *  - dims: the tensor's shape vector (lg_tensor.shape/rank; an absent shape is rank 0),
 *    never shape_signature.
 *  - is_const is computed by op_signature.cc but no rule of op_version.cc at this commit
 *    reads it, so constness never changes a version.
 *  - builtin_data: the Parse* function of the op fills a zeroed C struct from the options
 *    table when it is present (and of the right union type, i.e. op->opts_kind matches);
 *    when it is absent the struct stays zeroed. So an absent options table means
 *    activation NONE, dilation 0 (!), pot_scale_int16 false, keep_num_dims false...
 *    Our reader and builder fill schema defaults for fields missing from a present table,
 *    as the flatbuffer accessors do.
 *  - quantized_bias_type is turned into a TfLiteType by ConvertTensorType, where the schema
 *    default FLOAT32 (0) becomes kTfLiteFloat32 (1). op_version.cc only tests it for
 *    non-zero, so it is "set" whenever the options table is present, whatever it stores.
 *  - "quantized" (ADD, MUL, ABS) means the tensor has a QuantizationParameters table at
 *    all (lg_tensor.quant != NULL), even an empty one, exactly as op_signature.cc tests
 *    tensor->quantization().
 *  - per-channel: not "more than one scale" but the op-specific tests of op_signature.cc
 *    (see per_channel_* below), e.g. FULLY_CONNECTED: scale count == weights dim 0.
 *
 * Where the C++ code has undefined or aborting behaviour we pick the quiet reading and say
 * so: inputs.at(i) / outputs.at(i) past the end (std::out_of_range, an abort in TFLite
 * builds) reads as "no type", so the condition is false; a null params pointer that the
 * C++ would dereference (LSTM without LSTMOptions, a FULLY_CONNECTED whose options fail to
 * parse) reads as zeroed params; shape()->Get(k) past the shape's end reads as "no match".
 */
#include "check/op_version.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define NOTYPE (-1) /* kTfLiteNoType */

typedef struct ov {
    const lg_model *m;
    const lg_subgraph *sg;
    const lg_op *op;
    char *buf;
    size_t n;
} ov;

/* ------------------------------------------------------------------ signature access */

static const lg_tensor *tensor_of(const ov *c, const int32_t *ids, uint32_t count, uint32_t i) {
    if (!ids || i >= count) return NULL;
    int32_t t = ids[i];
    if (t < 0 || (uint32_t)t >= c->sg->n_tensors || !c->sg->tensors) return NULL;
    return &c->sg->tensors[t];
}

static const lg_tensor *in_tensor(const ov *c, uint32_t i) {
    return tensor_of(c, c->op->inputs, c->op->n_inputs, i);
}

static const lg_tensor *out_tensor(const ov *c, uint32_t i) {
    return tensor_of(c, c->op->outputs, c->op->n_outputs, i);
}

static int type_of(const lg_tensor *t) {
    if (!t || t->type < 0 || t->type >= LG_DTYPE_COUNT) return NOTYPE;
    return t->type;
}

static int in_type(const ov *c, uint32_t i) { return type_of(in_tensor(c, i)); }
static int out_type(const ov *c, uint32_t i) { return type_of(out_tensor(c, i)); }

/* dims.size(): the length of the shape vector (0 when absent or no tensor). */
static uint32_t in_rank(const ov *c, uint32_t i) {
    const lg_tensor *t = in_tensor(c, i);
    return (t && t->shape) ? t->rank : 0;
}

static bool in_is(const ov *c, uint32_t i, int type) { return in_type(c, i) == type; }

/* inputs[0], inputs[1], outputs[0] have these types. */
static bool sig3(const ov *c, int in0, int in1, int out0) {
    return in_type(c, 0) == in0 && in_type(c, 1) == in1 && out_type(c, 0) == out0;
}

static const char *tname(int t) { return t == NOTYPE ? "untyped" : lg_dtype_name(t); }

/* The options struct if the op carries one of this kind, else NULL. */
static const void *opts_of(const ov *c, lg_opts_kind kind) {
    return c->op->opts_kind == kind ? c->op->opts : NULL;
}

/* ConvertActivation maps NONE and any value outside the enum to kTfLiteActNone. */
static bool act_set(int8_t a) { return a >= 1 && a <= 5; }

static const char *act_name(int8_t a) {
    static const char *const names[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH",
                                        "SIGN_BIT"};
    return (a >= 0 && a <= 5) ? names[a] : "?";
}

/* ConvertTensorType accepts every schema TensorType (0..FLOAT8_E5M2); others fail the parse. */
static bool bias_type_parses(int8_t t) { return t >= 0 && t < LG_DTYPE_COUNT; }

/* NeedBroadcastForBinaryInputs: at least 2 inputs whose dims vectors differ. */
static bool need_broadcast(const ov *c) {
    if (c->op->n_inputs < 2) return false;
    const lg_tensor *a = in_tensor(c, 0), *b = in_tensor(c, 1);
    uint32_t ra = in_rank(c, 0), rb = in_rank(c, 1);
    if (ra != rb) return true;
    for (uint32_t i = 0; i < ra; i++)
        if (a->shape[i] != b->shape[i]) return true;
    return false;
}

/* GetInputMaxDims: the largest dims.size() over all inputs. */
static uint32_t max_in_rank(const ov *c) {
    uint32_t r = 0;
    for (uint32_t i = 0; i < c->op->n_inputs; i++)
        if (in_rank(c, i) > r) r = in_rank(c, i);
    return r;
}

/* shape[k] of t, or -1 if t has no such dimension. */
static int64_t dim_at(const lg_tensor *t, int64_t k) {
    if (!t || !t->shape || k < 0 || k >= (int64_t)t->rank) return -1;
    return t->shape[k];
}

static bool has_scales(const lg_tensor *t) {
    return t && t->quant && t->quant->scale && t->quant->n_scale > 0;
}

/* CONV_2D: filter scale count == filter dim 0 (output channels), which must be > 0. */
static bool per_channel_conv(const lg_tensor *filter) {
    int64_t d = dim_at(filter, 0);
    return has_scales(filter) && d > 0 && (int64_t)filter->quant->n_scale == d;
}

/* DEPTHWISE_CONV_2D: filter scale count == filter dim 3 (channels), which must be > 0. */
static bool per_channel_dw(const lg_tensor *filter) {
    int64_t d = dim_at(filter, 3);
    return has_scales(filter) && d > 0 && (int64_t)filter->quant->n_scale == d;
}

/* FULLY_CONNECTED: weights scale count == weights dim 0 (one scale for a 1-row weight
   matrix counts too). */
static bool per_channel_fc(const lg_tensor *w) {
    int64_t d = dim_at(w, 0);
    return has_scales(w) && d >= 0 && (int64_t)w->quant->n_scale == d;
}

/* EMBEDDING_LOOKUP: more than one scale and scale count == table dim 0. */
static bool per_channel_table(const lg_tensor *t) {
    int64_t d = dim_at(t, 0);
    return has_scales(t) && t->quant->n_scale > 1 && (int64_t)t->quant->n_scale == d;
}

/* DEQUANTIZE input / QUANTIZE output: more than one scale and scale count == the size of
   the quantized dimension. */
static bool per_channel_qdim(const lg_tensor *t) {
    if (!has_scales(t) || t->quant->n_scale < 2) return false;
    int64_t d = dim_at(t, t->quant->quantized_dimension);
    return d >= 0 && (int64_t)t->quant->n_scale == d;
}

/* ------------------------------------------------------------------ reasons */

static int ret(ov *c, int v, const char *fmt, ...) LGI_PRINTF(3, 4);

static int ret(ov *c, int v, const char *fmt, ...) {
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
static int base(ov *c) {
    if (c->op->n_inputs == 0) return ret(c, 1, "no inputs, no property above version 1");
    return ret(c, 1, "%s input, no property above version 1", tname(in_type(c, 0)));
}

/* "INT8 input" style reason for a rule on the type of inputs[i]. */
static int by_in_type(ov *c, int v, uint32_t i) {
    if (i == 0) return ret(c, v, "%s input", tname(in_type(c, 0)));
    return ret(c, v, "%s input %u", tname(in_type(c, i)), i);
}

/* ------------------------------------------------------------------ per op */

static int v_conv2d(ov *c) {
    const lg_conv2d_options *o = opts_of(c, LG_OPTS_CONV2D_OPTIONS);
    /* int16 activations x int8 weights: quantized_bias_type set => 8. ParseConv2D fails (and
       TFLite would dereference a null params pointer) on a bias type outside the schema;
       we read that as "not set". */
    if (sig3(c, LG_INT16, LG_INT8, LG_INT16) && o && bias_type_parses(o->quantized_bias_type))
        return ret(c, 8, "INT16 input with INT8 filter and Conv2DOptions present "
                         "(quantized_bias_type %s is always set once parsed)",
                   tname(o->quantized_bias_type));
    /* is_grouped_convolution: input shape present and non-empty, input dim 3 != filter
       dim 3 (shape()->Get(3) on shorter shapes is undefined in TFLite; we need rank >= 4). */
    const lg_tensor *in = in_tensor(c, 0), *filter = in_tensor(c, 1);
    if (in && in->shape && in->rank > 0) {
        int64_t ic = dim_at(in, 3), fc = dim_at(filter, 3);
        if (ic >= 0 && fc >= 0 && ic != fc)
            return ret(c, 6, "grouped convolution (input has %lld channels, filter %lld)",
                       (long long)ic, (long long)fc);
    }
    /* op_version.cc tests outputs.at(1) here (CONV_2D has one output, so TFLite would abort
       for int16 x int16); a missing output has no type, so this is false. */
    if (in_is(c, 0, LG_INT16) && in_is(c, 1, LG_INT16) && out_type(c, 1) == LG_INT16)
        return ret(c, 4, "INT16 input and filter");
    if (sig3(c, LG_INT8, LG_INT8, LG_INT8)) return ret(c, 3, "INT8 input, filter and output");
    if (sig3(c, LG_INT8, LG_INT4, LG_INT8)) return ret(c, 7, "INT8 input with INT4 filter");
    if (sig3(c, LG_FLOAT32, LG_INT8, LG_FLOAT32)) {
        if (per_channel_conv(filter))
            return ret(c, 5, "hybrid FLOAT32 input with per-channel INT8 filter");
        return ret(c, 2, "hybrid FLOAT32 input with INT8 filter");
    }
    return base(c);
}

static int v_depthwise(ov *c) {
    const lg_tensor *filter = in_tensor(c, 1);
    /* outputs.at(1), as for CONV_2D: false for a one-output op. */
    if (in_is(c, 0, LG_INT16) && in_is(c, 1, LG_INT16) && out_type(c, 1) == LG_INT16)
        return ret(c, 5, "INT16 input and filter");
    if (sig3(c, LG_FLOAT32, LG_INT8, LG_FLOAT32)) {
        if (per_channel_dw(filter))
            return ret(c, 6, "hybrid FLOAT32 input with per-channel INT8 filter");
        return ret(c, 4, "hybrid FLOAT32 input with INT8 filter");
    }
    if (sig3(c, LG_INT8, LG_INT8, LG_INT8)) return ret(c, 3, "INT8 input, filter and output");
    if (sig3(c, LG_INT8, LG_INT4, LG_INT8)) return ret(c, 7, "INT8 input with INT4 filter");
    /* Without DepthwiseConv2DOptions the parsed dilations stay 0, which is != 1. */
    const lg_depthwise_conv2d_options *o = opts_of(c, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS);
    int32_t dw = o ? o->dilation_w_factor : 0, dh = o ? o->dilation_h_factor : 0;
    if (dw != 1 || dh != 1) {
        if (!o) return ret(c, 2, "no DepthwiseConv2DOptions (dilation reads as 0, not 1)");
        return ret(c, 2, "dilation %dx%d", (int)dh, (int)dw);
    }
    return base(c);
}

static int v_embedding_lookup(ov *c) {
    const lg_tensor *table = in_tensor(c, 1);
    if (in_is(c, 1, LG_INT4)) return ret(c, 4, "INT4 table");
    if (per_channel_table(table)) return ret(c, 4, "per-channel quantized table");
    if (in_is(c, 1, LG_INT2)) return ret(c, 5, "INT2 table");
    return ret(c, 1, "%s table", tname(in_type(c, 1)));
}

static int v_fully_connected(ov *c) {
    /* Absent options: zeroed params. Options that fail to parse (weights_format or
       quantized_bias_type outside the schema) leave TFLite with a null params pointer it
       dereferences; we read them as zeroed params too. */
    const lg_fully_connected_options *o = opts_of(c, LG_OPTS_FULLY_CONNECTED_OPTIONS);
    if (o && (!bias_type_parses(o->quantized_bias_type) ||
              (o->weights_format != LG_FULLY_CONNECTED_OPTIONS_WEIGHTS_FORMAT_DEFAULT &&
               o->weights_format != LG_FULLY_CONNECTED_OPTIONS_WEIGHTS_FORMAT_SHUFFLED4x16INT8)))
        o = NULL;
    const lg_tensor *w = in_tensor(c, 1);
    if (in_is(c, 1, LG_INT2)) return ret(c, 14, "INT2 weights");
    if (sig3(c, LG_INT16, LG_INT4, LG_INT16)) return ret(c, 13, "INT16 input with INT4 weights");
    if (sig3(c, LG_FLOAT32, LG_INT8, LG_FLOAT32) && per_channel_fc(w))
        return ret(c, 12, "hybrid FLOAT32 input with per-channel INT8 weights (%u scales)",
                   w->quant->n_scale);
    if (sig3(c, LG_INT16, LG_INT8, LG_INT16) && o)
        return ret(c, 11, "INT16 input with INT8 weights and FullyConnectedOptions present "
                          "(quantized_bias_type %s is always set once parsed)",
                   tname(o->quantized_bias_type));
    if (w && w->sparsity) return ret(c, 8, "sparse weights");
    if (sig3(c, LG_INT16, LG_INT16, LG_INT16)) return ret(c, 7, "INT16 input and weights");
    if (c->op->n_inputs == 2) return ret(c, 6, "2 inputs (no bias input)");
    if (o && o->keep_num_dims) return ret(c, 5, "keep_num_dims");
    if (sig3(c, LG_INT8, LG_INT8, LG_INT8)) return ret(c, 4, "INT8 input, weights and output");
    if (sig3(c, LG_INT8, LG_INT4, LG_INT8)) return ret(c, 10, "INT8 input with INT4 weights");
    if (sig3(c, LG_FLOAT32, LG_INT8, LG_FLOAT32)) {
        if (o && o->asymmetric_quantize_inputs)
            return ret(c, 9, "hybrid FLOAT32 input with INT8 weights, asymmetric_quantize_inputs");
        return ret(c, 3, "hybrid FLOAT32 input with INT8 weights");
    }
    if (o && o->weights_format == LG_FULLY_CONNECTED_OPTIONS_WEIGHTS_FORMAT_SHUFFLED4x16INT8)
        return ret(c, 2, "SHUFFLED4x16INT8 weights format");
    return base(c);
}

static int v_gather(ov *c) {
    const lg_gather_options *o = opts_of(c, LG_OPTS_GATHER_OPTIONS);
    if (in_is(c, 0, LG_INT4)) return by_in_type(c, 7, 0);
    if (in_is(c, 1, LG_INT16)) return ret(c, 6, "INT16 indices");
    if (o && o->batch_dims != 0) return ret(c, 5, "batch_dims %d", (int)o->batch_dims);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 4, 0);
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_svdf(ov *c) {
    const lg_svdf_options *o = opts_of(c, LG_OPTS_SVDF_OPTIONS);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 3, 0);
    if (sig3(c, LG_FLOAT32, LG_INT8, LG_FLOAT32)) {
        if (o && o->asymmetric_quantize_inputs)
            return ret(c, 4, "hybrid FLOAT32 input with INT8 weights, asymmetric_quantize_inputs");
        return ret(c, 2, "hybrid FLOAT32 input with INT8 weights");
    }
    return base(c);
}

static int v_mul(ov *c) {
    /* ext options, set only with >= 2 inputs and >= 1 output */
    bool input_quantized = false;
    float s1 = 0, s2 = 0, so = 0;
    if (c->op->n_inputs >= 2 && c->op->n_outputs >= 1) {
        const lg_tensor *a = in_tensor(c, 0), *b = in_tensor(c, 1), *out = out_tensor(c, 0);
        if (has_scales(a) && has_scales(b) && has_scales(out)) {
            s1 = a->quant->scale[0];
            s2 = b->quant->scale[0];
            so = out->quant->scale[0];
        }
        input_quantized = (a && a->quant) || (b && b->quant);
    }
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 8, 0);
    if (in_is(c, 0, LG_INT16) && !input_quantized)
        return ret(c, 7, "INT16 input without quantization parameters");
    if (in_is(c, 0, LG_UINT32)) return by_in_type(c, 7, 0);
    if (in_is(c, 0, LG_COMPLEX64)) return by_in_type(c, 6, 0);
    if (in_is(c, 0, LG_INT64)) return by_in_type(c, 5, 0);
    if (in_is(c, 0, LG_INT16)) return ret(c, 4, "quantized INT16 input");
    if (s1 != 0 && s2 != 0 && so != 0) {
        float r = s1 * s2 / so; /* float arithmetic, as in op_version.cc */
        if (r >= 1.0)
            return ret(c, 3, "input scales product / output scale = %g >= 1", (double)r);
    }
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_pool(ov *c) {
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16)
        return ret(c, 3, "INT16 input and output");
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_transpose(ov *c) {
    uint32_t r = in_rank(c, 0);
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 9, 0);
    if (r > 6) return ret(c, 8, "input rank %u > 6", r);
    if (in_is(c, 0, LG_BFLOAT16)) return by_in_type(c, 8, 0);
    if (in_is(c, 0, LG_INT4)) return by_in_type(c, 7, 0);
    if (r > 5) return ret(c, 6, "input rank %u > 5", r);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 5, 0);
    if (r > 4) return ret(c, 4, "input rank %u > 4", r);
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_transpose_conv(ov *c) {
    /* inputs: 0 output_shape, 1 weights, 2 input, 3 bias (optional). Options that fail to
       parse (a quantized_bias_type outside the schema) leave a null params pointer, which
       op_version.cc checks here, so activation is then ignored. */
    const lg_transpose_conv_options *o = opts_of(c, LG_OPTS_TRANSPOSE_CONV_OPTIONS);
    if (o && !bias_type_parses(o->quantized_bias_type)) o = NULL;
    if (sig3(c, LG_INT16, LG_INT8, LG_INT16) && o)
        return ret(c, 5, "INT16 input 0 with INT8 weights and TransposeConvOptions present "
                         "(quantized_bias_type %s is always set once parsed)",
                   tname(o->quantized_bias_type));
    if (o && act_set(o->fused_activation_function))
        return ret(c, 4, "fused activation %s", act_name(o->fused_activation_function));
    if (c->op->n_inputs == 4 && in_type(c, 3) != NOTYPE)
        return ret(c, 3, "bias input given (4 inputs)");
    if (in_is(c, 1, LG_INT8)) return ret(c, 2, "INT8 weights");
    if (c->op->n_inputs < 2) return ret(c, 1, "no weights input, no property above version 1");
    return ret(c, 1, "%s weights, no bias, no fused activation", tname(in_type(c, 1)));
}

static int v_lstm(ov *c) {
    /* Without LSTMOptions (or with an unknown kernel_type) ParseLSTM fails and TFLite
       dereferences a null pointer; we read zeroed params: FULL kernel, symmetric. */
    const lg_lstm_options *o = opts_of(c, LG_OPTS_LSTM_OPTIONS);
    if (o && o->kernel_type != LG_LSTM_KERNEL_TYPE_FULL &&
        o->kernel_type != LG_LSTM_KERNEL_TYPE_BASIC)
        o = NULL;
    bool full = !o || o->kernel_type == LG_LSTM_KERNEL_TYPE_FULL;
    if (full && in_is(c, 0, LG_INT16) && in_is(c, 2, LG_INT8) && out_type(c, 0) == LG_INT16)
        return ret(c, 5, "INT16 input with INT8 weights (full kernel)");
    if (full && in_is(c, 0, LG_FLOAT32) && in_is(c, 2, LG_INT8) && out_type(c, 0) == LG_FLOAT32) {
        if (o && o->asymmetric_quantize_inputs)
            return ret(c, 4, "hybrid FLOAT32 input with INT8 weights, asymmetric_quantize_inputs");
        return ret(c, 3, "hybrid FLOAT32 input with INT8 weights");
    }
    if (!full) return ret(c, 2, "BASIC kernel");
    return base(c);
}

static int v_split(ov *c) {
    /* the data tensor is input 1 (input 0 is the axis) */
    if (in_is(c, 1, LG_INT16)) return ret(c, 4, "INT16 data input");
    if (in_is(c, 1, LG_INT32)) return ret(c, 3, "INT32 data input");
    if (in_is(c, 1, LG_INT8)) return ret(c, 2, "INT8 data input");
    return ret(c, 1, "%s data input, no property above version 1", tname(in_type(c, 1)));
}

static int v_sparse_to_dense(ov *c) {
    if (in_is(c, 2, LG_INT8) || in_is(c, 2, LG_UINT8)) return ret(c, 3, "%s values",
                                                                   tname(in_type(c, 2)));
    if (in_is(c, 2, LG_INT64)) return ret(c, 2, "INT64 values");
    return base(c);
}

static int v_slice(ov *c) {
    uint32_t r = in_rank(c, 0);
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 8, 0);
    if (in_is(c, 0, LG_INT4)) return by_in_type(c, 7, 0);
    if (in_is(c, 0, LG_UINT32)) return by_in_type(c, 6, 0);
    if (r > 4) return ret(c, 5, "input rank %u > 4", r);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 4, 0);
    if (in_is(c, 0, LG_STRING)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_unpack(ov *c) {
    if (in_is(c, 0, LG_INT8) || in_is(c, 0, LG_UINT8)) return by_in_type(c, 2, 0);
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16)
        return ret(c, 4, "INT16 input and output");
    if (in_is(c, 0, LG_FLOAT16) || in_is(c, 0, LG_BFLOAT16)) return by_in_type(c, 5, 0);
    return base(c);
}

static int v_dequantize(ov *c) {
    if (in_is(c, 0, LG_UINT4)) return by_in_type(c, 8, 0);
    if (in_is(c, 0, LG_INT2)) return by_in_type(c, 7, 0);
    if (in_is(c, 0, LG_INT4)) return by_in_type(c, 6, 0);
    if (in_is(c, 0, LG_INT16) || in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) {
        if (per_channel_qdim(in_tensor(c, 0)))
            return ret(c, 5, "per-channel INT8 input (%u scales)", in_tensor(c, 0)->quant->n_scale);
        return by_in_type(c, 2, 0);
    }
    return base(c);
}

static int v_quantize(ov *c) {
    int it = in_type(c, 0), ot = out_type(c, 0);
    if (it == LG_UINT4 || ot == LG_UINT4)
        return ret(c, 5, "UINT4 %s", it == LG_UINT4 ? "input" : "output");
    if (it == LG_INT4 || ot == LG_INT4)
        return ret(c, 4, "INT4 %s", it == LG_INT4 ? "input" : "output");
    if (per_channel_qdim(out_tensor(c, 0)))
        return ret(c, 3, "per-channel quantized output (%u scales)",
                   out_tensor(c, 0)->quant->n_scale);
    if (ot == LG_INT16) return ret(c, 2, "INT16 output");
    return ret(c, 1, "%s output, no property above version 1", tname(ot));
}

static int v_strided_slice(ov *c) {
    /* Without StridedSliceOptions the parsed masks and offset stay 0. */
    const lg_strided_slice_options *o = opts_of(c, LG_OPTS_STRIDED_SLICE_OPTIONS);
    uint32_t r = in_rank(c, 0); /* ext_options.strided_slice.num_dims */
    if (o && o->offset) return ret(c, 8, "offset = true");
    if (in_is(c, 0, LG_UINT32)) return by_in_type(c, 7, 0);
    if (o && o->ellipsis_mask != 0)
        return ret(c, 6, "ellipsis_mask %d", (int)o->ellipsis_mask);
    if (o && o->new_axis_mask != 0)
        return ret(c, 6, "new_axis_mask %d", (int)o->new_axis_mask);
    if (in_is(c, 0, LG_STRING)) return by_in_type(c, 5, 0);
    if (r > 4) return ret(c, 4, "input rank %u > 4", r);
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_resize_bilinear(ov *c) {
    const lg_resize_bilinear_options *o = opts_of(c, LG_OPTS_RESIZE_BILINEAR_OPTIONS);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 4, 0);
    if (o && o->half_pixel_centers) return ret(c, 3, "half_pixel_centers");
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_resize_nearest(ov *c) {
    const lg_resize_nearest_neighbor_options *o =
        opts_of(c, LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 4, 0);
    if (o && o->half_pixel_centers) return ret(c, 3, "half_pixel_centers");
    if (o && o->align_corners) return ret(c, 3, "align_corners");
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_max_min(ov *c) {
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16)
        return ret(c, 4, "INT16 input and output");
    if (need_broadcast(c) && max_in_rank(c) > 4)
        return ret(c, 3, "broadcast with an input of rank %u > 4", max_in_rank(c));
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_pack(ov *c) {
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16)
        return ret(c, 3, "INT16 input and output");
    if (in_is(c, 0, LG_UINT32)) return by_in_type(c, 4, 0);
    return base(c);
}

static int v_space_batch(ov *c) {
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 4, 0);
    if (in_rank(c, 0) != 4) return ret(c, 3, "input rank %u != 4", in_rank(c, 0));
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_add(ov *c) {
    const lg_add_options *o = opts_of(c, LG_OPTS_ADD_OPTIONS);
    const lg_tensor *a = in_tensor(c, 0);
    bool input_quantized = a && a->quant; /* ext_options.add.input_quantized */
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 6, 0);
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_INT16) && !input_quantized)
        return ret(c, 5, "INT16 input without quantization parameters");
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_INT64)) return by_in_type(c, 4, 0);
    /* The params pointer is never null for ADD; absent options leave pot_scale_int16 false. */
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16 && !(o && o->pot_scale_int16))
        return ret(c, 3, "quantized INT16 input and output, pot_scale_int16 false%s",
                   o ? "" : " (no AddOptions)");
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_sub(ov *c) {
    const lg_sub_options *o = opts_of(c, LG_OPTS_SUB_OPTIONS);
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16 && !(o && o->pot_scale_int16))
        return ret(c, 5, "INT16 input and output, pot_scale_int16 false%s",
                   o ? "" : " (no SubOptions)");
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_INT64)) return by_in_type(c, 4, 0);
    if (need_broadcast(c) && max_in_rank(c) > 4)
        return ret(c, 3, "broadcast with an input of rank %u > 4", max_in_rank(c));
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_gather_nd(ov *c) {
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 5, 0);
    if (in_is(c, 1, LG_INT16)) return ret(c, 4, "INT16 indices");
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_STRING)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_div(ov *c) {
    if (need_broadcast(c) && max_in_rank(c) > 4)
        return ret(c, 2, "broadcast with an input of rank %u > 4", max_in_rank(c));
    return ret(c, 1, "no broadcast above rank 4");
}

static int v_tanh_logistic(ov *c) {
    if (in_is(c, 0, LG_INT16) && out_type(c, 0) == LG_INT16)
        return ret(c, 3, "INT16 input and output");
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_fill(ov *c) {
    if (c->op->n_inputs >= 2) {
        int t = in_type(c, 1);
        if (t == LG_FLOAT16) return ret(c, 4, "FLOAT16 value");
        if (t == LG_INT8 || t == LG_INT16) return ret(c, 3, "%s value", tname(t));
        if (t == LG_BOOL || t == LG_STRING) return ret(c, 2, "%s value", tname(t));
        return ret(c, 1, "%s value, no property above version 1", tname(t));
    }
    return ret(c, 1, "fewer than 2 inputs");
}

static int v_equal(ov *c, int v_int16) {
    if (c->op->n_inputs > 0) {
        if (in_is(c, 0, LG_INT16)) return by_in_type(c, v_int16, 0);
        if (in_is(c, 0, LG_STRING)) return by_in_type(c, 3, 0);
        if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    }
    return base(c);
}

static int v_batch_matmul(ov *c) {
    const lg_batch_mat_mul_options *o = opts_of(c, LG_OPTS_BATCH_MAT_MUL_OPTIONS);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    if (sig3(c, LG_FLOAT32, LG_INT8, LG_FLOAT32) && o && o->asymmetric_quantize_inputs)
        return ret(c, 4, "hybrid FLOAT32 input with INT8 input 1, asymmetric_quantize_inputs");
    return base(c);
}

static int v_pad(ov *c) {
    uint32_t r = in_rank(c, 0);
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 5, 0);
    if (r > 4) return ret(c, 4, "input rank %u > 4", r);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_concatenation(ov *c) {
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 6, 0);
    if (in_is(c, 0, LG_INT4)) return by_in_type(c, 5, 0);
    if (in_is(c, 0, LG_UINT32)) return by_in_type(c, 4, 0);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_softmax(ov *c) {
    if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 4, 0);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

/* INT16 => 3, INT8 => 2 (MEAN, MIRROR_PAD, REDUCE_MAX, REDUCE_MIN, RELU6, RSQRT). */
static int v_i16_3_i8_2(ov *c) {
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

/* INT8 => 2 (SPACE_TO_DEPTH, SPLIT_V, SUM, LOG_SOFTMAX, GREATER, LESS_EQUAL,
   SQUARED_DIFFERENCE, DEPTH_TO_SPACE). */
static int v_i8_2(ov *c) {
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

/* RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN/LSTM: INT8 input 1 with a
   FLOAT32 output is hybrid: 2, or 3 with asymmetric_quantize_inputs. */
static int v_rnn_like(ov *c, bool asym) {
    if (in_is(c, 1, LG_INT8) && out_type(c, 0) == LG_FLOAT32) {
        if (asym) return ret(c, 3, "hybrid INT8 weights, asymmetric_quantize_inputs");
        return ret(c, 2, "hybrid INT8 weights with FLOAT32 output");
    }
    return base(c);
}

static int v_uni_lstm(ov *c) {
    const lg_unidirectional_sequence_lstm_options *o =
        opts_of(c, LG_OPTS_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS);
    if (in_is(c, 0, LG_INT16) && in_is(c, 2, LG_INT8) && out_type(c, 0) == LG_INT16)
        return ret(c, 5, "INT16 input with INT8 weights");
    if (o && o->diagonal_recurrent_tensors) return ret(c, 4, "diagonal_recurrent_tensors");
    if (in_is(c, 0, LG_FLOAT32) && in_is(c, 2, LG_INT8) && out_type(c, 0) == LG_FLOAT32) {
        if (o && o->asymmetric_quantize_inputs)
            return ret(c, 3, "hybrid FLOAT32 input with INT8 weights, asymmetric_quantize_inputs");
        return ret(c, 2, "hybrid FLOAT32 input with INT8 weights");
    }
    return base(c);
}

static int v_arg_max_min(ov *c) {
    if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 3, 0);
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_select(ov *c) {
    /* op_version.cc tests the type of input 0, the condition (normally BOOL). */
    if (in_is(c, 0, LG_UINT32)) return ret(c, 4, "UINT32 input 0");
    for (uint32_t i = 0; i < 3; i++)
        if (in_rank(c, i) == 5) return ret(c, 3, "input %u has rank 5", i);
    if (in_is(c, 0, LG_INT8)) return ret(c, 2, "INT8 input 0");
    return base(c);
}

static int v_topk(ov *c) {
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 1, LG_INT16)) return ret(c, 3, "INT16 k");
    if (out_type(c, 1) == LG_INT16) return ret(c, 3, "INT16 indices output");
    if (in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
    return base(c);
}

static int v_dynamic_update_slice(ov *c) {
    if (in_is(c, 0, LG_BFLOAT16)) return by_in_type(c, 6, 0);
    if (in_is(c, 0, LG_INT4)) return by_in_type(c, 5, 0);
    if (in_is(c, 0, LG_INT16)) return by_in_type(c, 4, 0);
    if (in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 3, 0);
    if (in_is(c, 2, LG_INT64)) return ret(c, 2, "INT64 start indices");
    return base(c);
}

static int v_cast(ov *c) {
    int i = in_type(c, 0), o = out_type(c, 0);
#define EITHER(t) (i == (t) || o == (t))
    if (EITHER(LG_INT2) || EITHER(LG_UINT4))
        return ret(c, 8, "cast %s -> %s (INT2/UINT4)", tname(i), tname(o));
    if (EITHER(LG_BFLOAT16)) return ret(c, 7, "cast %s -> %s (BFLOAT16)", tname(i), tname(o));
    if (i == LG_INT4 && o == LG_FLOAT32) return ret(c, 6, "cast INT4 -> FLOAT32");
    if (EITHER(LG_FLOAT64) || EITHER(LG_FLOAT16))
        return ret(c, 5, "cast %s -> %s (FLOAT64/FLOAT16)", tname(i), tname(o));
    if (EITHER(LG_UINT16)) return ret(c, 4, "cast %s -> %s (UINT16)", tname(i), tname(o));
    if (EITHER(LG_INT8)) return ret(c, 3, "cast %s -> %s (INT8)", tname(i), tname(o));
    if (EITHER(LG_UINT32)) return ret(c, 2, "cast %s -> %s (UINT32)", tname(i), tname(o));
#undef EITHER
    return ret(c, 1, "cast %s -> %s, no property above version 1", tname(i), tname(o));
}

static int compute(ov *c) {
    const lg_op *op = c->op;
    if (op->opcode_index >= c->m->n_opcodes) return ret(c, 1, "unknown operator code");
    int32_t code = c->m->opcodes[op->opcode_index].builtin;
    if (code == LG_OP_CUSTOM) return ret(c, 1, "custom op (the converter does not version it)");
    switch (code) {
    case LG_OP_CONV_2D: return v_conv2d(c);
    case LG_OP_DEPTHWISE_CONV_2D: return v_depthwise(c);
    case LG_OP_EMBEDDING_LOOKUP: return v_embedding_lookup(c);
    case LG_OP_FAKE_QUANT: {
        const lg_fake_quant_options *o = opts_of(c, LG_OPTS_FAKE_QUANT_OPTIONS);
        if (o && o->narrow_range) return ret(c, 2, "narrow_range");
        return ret(c, 1, "no narrow_range");
    }
    case LG_OP_FULLY_CONNECTED: return v_fully_connected(c);
    case LG_OP_GATHER: return v_gather(c);
    case LG_OP_SVDF: return v_svdf(c);
    case LG_OP_SIGN:
        if (in_is(c, 0, LG_INT32)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_SIN:
    case LG_OP_COS:
        if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_MUL: return v_mul(c);
    case LG_OP_MAX_POOL_2D:
    case LG_OP_AVERAGE_POOL_2D: return v_pool(c);
    case LG_OP_TRANSPOSE: return v_transpose(c);
    case LG_OP_TRANSPOSE_CONV: return v_transpose_conv(c);
    case LG_OP_LSTM: return v_lstm(c);
    case LG_OP_SPLIT: return v_split(c);
    case LG_OP_SPARSE_TO_DENSE: return v_sparse_to_dense(c);
    case LG_OP_SLICE: return v_slice(c);
    case LG_OP_UNPACK: return v_unpack(c);
    case LG_OP_DEQUANTIZE: return v_dequantize(c);
    case LG_OP_QUANTIZE: return v_quantize(c);
    case LG_OP_FLOOR_DIV:
        if (in_is(c, 0, LG_INT16) || in_is(c, 0, LG_INT8)) return by_in_type(c, 3, 0);
        if (in_is(c, 0, LG_FLOAT32)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_FLOOR_MOD:
        if (in_is(c, 0, LG_INT16) || in_is(c, 0, LG_INT8)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_L2_NORMALIZATION:
        if (out_type(c, 0) == LG_INT8) return ret(c, 2, "INT8 output");
        return base(c);
    case LG_OP_ABS: {
        const lg_tensor *a = in_tensor(c, 0);
        if (in_is(c, 0, LG_INT32)) return by_in_type(c, 5, 0);
        if (in_is(c, 0, LG_INT16)) {
            if (a->quant) return ret(c, 3, "quantized INT16 input");
            return ret(c, 4, "INT16 input without quantization parameters");
        }
        if (in_is(c, 0, LG_INT8) || in_is(c, 0, LG_UINT8)) return by_in_type(c, 2, 0);
        return base(c);
    }
    case LG_OP_RELU:
        if (in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
        if (in_is(c, 0, LG_INT8) || in_is(c, 0, LG_UINT8)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_STRIDED_SLICE: return v_strided_slice(c);
    case LG_OP_REVERSE_V2:
        if (in_is(c, 0, LG_INT8)) return by_in_type(c, 3, 0);
        if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_RESIZE_BILINEAR: return v_resize_bilinear(c);
    case LG_OP_RESIZE_NEAREST_NEIGHBOR: return v_resize_nearest(c);
    case LG_OP_MAXIMUM:
    case LG_OP_MINIMUM: return v_max_min(c);
    case LG_OP_PACK: return v_pack(c);
    case LG_OP_TILE:
        if (in_is(c, 0, LG_INT8)) return by_in_type(c, 3, 0);
        if (in_is(c, 0, LG_STRING)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_SQUEEZE:
        if (in_is(c, 0, LG_STRING)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_SPACE_TO_BATCH_ND:
    case LG_OP_BATCH_TO_SPACE_ND: return v_space_batch(c);
    case LG_OP_ADD: return v_add(c);
    case LG_OP_SUB: return v_sub(c);
    case LG_OP_GATHER_ND: return v_gather_nd(c);
    case LG_OP_DIV: return v_div(c);
    case LG_OP_TANH:
    case LG_OP_LOGISTIC: return v_tanh_logistic(c);
    case LG_OP_FILL: return v_fill(c);
    case LG_OP_EQUAL: return v_equal(c, 5);
    case LG_OP_NOT_EQUAL: return v_equal(c, 4);
    case LG_OP_LEAKY_RELU:
        if (in_is(c, 0, LG_INT16)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_RANGE:
        if (in_is(c, 0, LG_INT64)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_BATCH_MATMUL: return v_batch_matmul(c);
    case LG_OP_PAD:
    case LG_OP_PADV2: return v_pad(c);
    case LG_OP_CONCATENATION: return v_concatenation(c);
    case LG_OP_SOFTMAX: return v_softmax(c);
    case LG_OP_MEAN:
    case LG_OP_MIRROR_PAD:
    case LG_OP_REDUCE_MAX:
    case LG_OP_REDUCE_MIN:
    case LG_OP_RELU6:
    case LG_OP_RSQRT: return v_i16_3_i8_2(c);
    case LG_OP_RNN: {
        const lg_rnn_options *o = opts_of(c, LG_OPTS_RNN_OPTIONS);
        return v_rnn_like(c, o && o->asymmetric_quantize_inputs);
    }
    case LG_OP_UNIDIRECTIONAL_SEQUENCE_RNN: {
        const lg_sequence_rnn_options *o = opts_of(c, LG_OPTS_SEQUENCE_RNN_OPTIONS);
        return v_rnn_like(c, o && o->asymmetric_quantize_inputs);
    }
    case LG_OP_BIDIRECTIONAL_SEQUENCE_RNN: {
        const lg_bidirectional_sequence_rnn_options *o =
            opts_of(c, LG_OPTS_BIDIRECTIONAL_SEQUENCE_RNN_OPTIONS);
        return v_rnn_like(c, o && o->asymmetric_quantize_inputs);
    }
    case LG_OP_BIDIRECTIONAL_SEQUENCE_LSTM: {
        const lg_bidirectional_sequence_lstm_options *o =
            opts_of(c, LG_OPTS_BIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS);
        return v_rnn_like(c, o && o->asymmetric_quantize_inputs);
    }
    case LG_OP_UNIDIRECTIONAL_SEQUENCE_LSTM: return v_uni_lstm(c);
    case LG_OP_ARG_MAX:
    case LG_OP_ARG_MIN: return v_arg_max_min(c);
    case LG_OP_SELECT: return v_select(c);
    case LG_OP_LESS:
    case LG_OP_GREATER_EQUAL: return v_i16_3_i8_2(c);
    case LG_OP_SELECT_V2:
        if (in_is(c, 0, LG_UINT32)) return ret(c, 2, "UINT32 input 0");
        return base(c);
    case LG_OP_SPACE_TO_DEPTH:
    case LG_OP_SPLIT_V:
    case LG_OP_SUM:
    case LG_OP_LOG_SOFTMAX:
    case LG_OP_GREATER:
    case LG_OP_LESS_EQUAL:
    case LG_OP_SQUARED_DIFFERENCE:
    case LG_OP_DEPTH_TO_SPACE: return v_i8_2(c);
    case LG_OP_TOPK_V2: return v_topk(c);
    case LG_OP_EXP:
    case LG_OP_LOG:
    case LG_OP_REDUCE_PROD:
    case LG_OP_SQRT:
        if (in_is(c, 0, LG_INT8) || in_is(c, 0, LG_INT16)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_DYNAMIC_UPDATE_SLICE: return v_dynamic_update_slice(c);
    case LG_OP_BROADCAST_TO:
        /* version 1 was rolled back with the op code change; 2 is the base */
        if (in_is(c, 0, LG_INT8) || in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
        return ret(c, 2, "BROADCAST_TO starts at version 2");
    case LG_OP_CAST: return v_cast(c);
    case LG_OP_WHERE:
        if (in_is(c, 0, LG_BOOL)) return ret(c, 1, "BOOL condition");
        return ret(c, 2, "%s condition (not BOOL)", tname(in_type(c, 0)));
    case LG_OP_GELU:
        if (in_is(c, 0, LG_INT8) || in_is(c, 0, LG_UINT8)) return by_in_type(c, 2, 0);
        return base(c);
    default: {
        const char *name = lg_builtin_name(code);
        return ret(c, 1, "op_version.cc gives %s only version 1", name ? name : "this op");
    }
    }
}

int lgi_op_version_reason(const lg_model *m, const lg_subgraph *sg, const lg_op *op,
                          char *buf, size_t n) {
    if (buf && n) buf[0] = '\0';
    if (!m || !sg || !op) {
        ov c0 = {m, sg, op, buf, n};
        return ret(&c0, 1, "no op");
    }
    ov c = {m, sg, op, buf, n};
    int v = compute(&c);
    return v >= 1 ? v : 1;
}

int lgi_op_version(const lg_model *m, const lg_subgraph *sg, const lg_op *op) {
    return lgi_op_version_reason(m, sg, op, NULL, 0);
}
