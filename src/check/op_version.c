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
#include "check/op_version_impl.h"

/* ------------------------------------------------------------------ dispatch */

static int compute(ov *c) {
    const lg_op *op = c->op;
    if (op->opcode_index >= c->m->n_opcodes) return ret(c, 1, "unknown operator code");
    int32_t code = c->m->opcodes[op->opcode_index].builtin;
    if (code == LG_OP_CUSTOM) return ret(c, 1, "custom op (the converter does not version it)");
    switch (code) {
    case LG_OP_CONV_2D: return lgv_conv2d(c);
    case LG_OP_DEPTHWISE_CONV_2D: return lgv_depthwise(c);
    case LG_OP_EMBEDDING_LOOKUP: return lgv_embedding_lookup(c);
    case LG_OP_FAKE_QUANT: {
        const lg_fake_quant_options *o = opts_of(c, LG_OPTS_FAKE_QUANT_OPTIONS);
        if (o && o->narrow_range) return ret(c, 2, "narrow_range");
        return ret(c, 1, "no narrow_range");
    }
    case LG_OP_FULLY_CONNECTED: return lgv_fully_connected(c);
    case LG_OP_GATHER: return lgv_gather(c);
    case LG_OP_SVDF: return lgv_svdf(c);
    case LG_OP_SIGN:
        if (in_is(c, 0, LG_INT32)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_SIN:
    case LG_OP_COS:
        if (c->op->n_inputs > 0 && in_is(c, 0, LG_FLOAT16)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_MUL: return lgv_mul(c);
    case LG_OP_MAX_POOL_2D:
    case LG_OP_AVERAGE_POOL_2D: return lgv_pool(c);
    case LG_OP_TRANSPOSE: return lgv_transpose(c);
    case LG_OP_TRANSPOSE_CONV: return lgv_transpose_conv(c);
    case LG_OP_LSTM: return lgv_lstm(c);
    case LG_OP_SPLIT: return lgv_split(c);
    case LG_OP_SPARSE_TO_DENSE: return lgv_sparse_to_dense(c);
    case LG_OP_SLICE: return lgv_slice(c);
    case LG_OP_UNPACK: return lgv_unpack(c);
    case LG_OP_DEQUANTIZE: return lgv_dequantize(c);
    case LG_OP_QUANTIZE: return lgv_quantize(c);
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
    case LG_OP_STRIDED_SLICE: return lgv_strided_slice(c);
    case LG_OP_REVERSE_V2:
        if (in_is(c, 0, LG_INT8)) return by_in_type(c, 3, 0);
        if (in_is(c, 0, LG_BOOL)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_RESIZE_BILINEAR: return lgv_resize_bilinear(c);
    case LG_OP_RESIZE_NEAREST_NEIGHBOR: return lgv_resize_nearest(c);
    case LG_OP_MAXIMUM:
    case LG_OP_MINIMUM: return lgv_max_min(c);
    case LG_OP_PACK: return lgv_pack(c);
    case LG_OP_TILE:
        if (in_is(c, 0, LG_INT8)) return by_in_type(c, 3, 0);
        if (in_is(c, 0, LG_STRING)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_SQUEEZE:
        if (in_is(c, 0, LG_STRING)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_SPACE_TO_BATCH_ND:
    case LG_OP_BATCH_TO_SPACE_ND: return lgv_space_batch(c);
    case LG_OP_ADD: return lgv_add(c);
    case LG_OP_SUB: return lgv_sub(c);
    case LG_OP_GATHER_ND: return lgv_gather_nd(c);
    case LG_OP_DIV: return lgv_div(c);
    case LG_OP_TANH:
    case LG_OP_LOGISTIC: return lgv_tanh_logistic(c);
    case LG_OP_FILL: return lgv_fill(c);
    case LG_OP_EQUAL: return lgv_equal(c, 5);
    case LG_OP_NOT_EQUAL: return lgv_equal(c, 4);
    case LG_OP_LEAKY_RELU:
        if (in_is(c, 0, LG_INT16)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_RANGE:
        if (in_is(c, 0, LG_INT64)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_BATCH_MATMUL: return lgv_batch_matmul(c);
    case LG_OP_PAD:
    case LG_OP_PADV2: return lgv_pad(c);
    case LG_OP_CONCATENATION: return lgv_concatenation(c);
    case LG_OP_SOFTMAX: return lgv_softmax(c);
    case LG_OP_MEAN:
    case LG_OP_MIRROR_PAD:
    case LG_OP_REDUCE_MAX:
    case LG_OP_REDUCE_MIN:
    case LG_OP_RELU6:
    case LG_OP_RSQRT: return lgv_i16_3_i8_2(c);
    case LG_OP_RNN: {
        const lg_rnn_options *o = opts_of(c, LG_OPTS_RNN_OPTIONS);
        return lgv_rnn_like(c, o && o->asymmetric_quantize_inputs);
    }
    case LG_OP_UNIDIRECTIONAL_SEQUENCE_RNN: {
        const lg_sequence_rnn_options *o = opts_of(c, LG_OPTS_SEQUENCE_RNN_OPTIONS);
        return lgv_rnn_like(c, o && o->asymmetric_quantize_inputs);
    }
    case LG_OP_BIDIRECTIONAL_SEQUENCE_RNN: {
        const lg_bidirectional_sequence_rnn_options *o =
            opts_of(c, LG_OPTS_BIDIRECTIONAL_SEQUENCE_RNN_OPTIONS);
        return lgv_rnn_like(c, o && o->asymmetric_quantize_inputs);
    }
    case LG_OP_BIDIRECTIONAL_SEQUENCE_LSTM: {
        const lg_bidirectional_sequence_lstm_options *o =
            opts_of(c, LG_OPTS_BIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS);
        return lgv_rnn_like(c, o && o->asymmetric_quantize_inputs);
    }
    case LG_OP_UNIDIRECTIONAL_SEQUENCE_LSTM: return lgv_uni_lstm(c);
    case LG_OP_ARG_MAX:
    case LG_OP_ARG_MIN: return lgv_arg_max_min(c);
    case LG_OP_SELECT: return lgv_select(c);
    case LG_OP_LESS:
    case LG_OP_GREATER_EQUAL: return lgv_i16_3_i8_2(c);
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
    case LG_OP_DEPTH_TO_SPACE: return lgv_i8_2(c);
    case LG_OP_TOPK_V2: return lgv_topk(c);
    case LG_OP_EXP:
    case LG_OP_LOG:
    case LG_OP_REDUCE_PROD:
    case LG_OP_SQRT:
        if (in_is(c, 0, LG_INT8) || in_is(c, 0, LG_INT16)) return by_in_type(c, 2, 0);
        return base(c);
    case LG_OP_DYNAMIC_UPDATE_SLICE: return lgv_dynamic_update_slice(c);
    case LG_OP_BROADCAST_TO:
        /* version 1 was rolled back with the op code change; 2 is the base */
        if (in_is(c, 0, LG_INT8) || in_is(c, 0, LG_INT16)) return by_in_type(c, 3, 0);
        return ret(c, 2, "BROADCAST_TO starts at version 2");
    case LG_OP_CAST: return lgv_cast(c);
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
