/* lgi_op_version: the version TFLite's converter assigns from an op's properties.
 *
 * Every expected value comes from reading GetBuiltinOperatorVersion in google-ai-edge/LiteRT
 * tflite/converter/tools/versioning/op_version.cc at 119ae633cc864d7c797a4b259706961f4baf22ed
 * (quoted as "op_version.cc: <condition>") and GetOpSignature in op_signature.cc at
 * 6e59417fbc2dc97dec4221b3bf2ace8794c136f6 (quoted as "op_signature.cc: ..."), not from
 * running our code. For each rule: a model that triggers it and a near miss that gets the
 * lower version. */
#include <stdlib.h>
#include <string.h>
#include "check/op_version.h"
#include "tf.h"

/* ------------------------------------------------------------------ one-op model builder */

/* A tensor of the op: type (-1 = optional input not given), shape, constant or not,
   quantization (nscale scales on dimension qdim; nscale 0 = no quantization table). */
typedef struct tspec {
    int type;
    lg_dims shape;
    int cnst;
    uint32_t nscale;
    int32_t qdim;
} tspec;

#define T(ty, d) ((tspec){(ty), d, 0, 0, 0})
#define TC(ty, d) ((tspec){(ty), d, 1, 0, 0})
#define TQ(ty, d, ns, qd) ((tspec){(ty), d, 0, (ns), (qd)})
#define TCQ(ty, d, ns, qd) ((tspec){(ty), d, 1, (ns), (qd)})
#define OPT_NONE ((tspec){-1, LG_SCALAR, 0, 0, 0})
#define LIST(...) (const tspec[]){__VA_ARGS__}, \
    (uint32_t)(sizeof((const tspec[]){__VA_ARGS__}) / sizeof(tspec))

#define D1 LG_DIMS(4)
#define D4 LG_DIMS(1, 8, 8, 4)
#define D5 LG_DIMS(1, 2, 8, 8, 4)

static int32_t add_tensor(lg_builder *b, const tspec *s, int k) {
    char name[16];
    snprintf(name, sizeof name, "t%d", k);
    if (s->type < 0) return -1;
    int32_t id;
    if (s->cnst) {
        int64_t numel = 1;
        for (uint32_t i = 0; i < s->shape.n; i++) numel *= s->shape.v[i];
        int bits = lg_dtype_bits(s->type);
        uint64_t nbytes = bits ? ((uint64_t)numel * (uint64_t)bits + 7) / 8 : 1;
        void *data = calloc(1, nbytes ? nbytes : 1);
        id = lg_b_const(b, name, (lg_dtype)s->type, s->shape, data, nbytes);
        free(data);
    } else {
        id = lg_b_tensor(b, name, (lg_dtype)s->type, s->shape);
    }
    if (id >= 0 && s->nscale) {
        float sc[64];
        for (uint32_t i = 0; i < s->nscale && i < 64; i++) sc[i] = 0.5f;
        lg_error e;
        if (lg_tensor_set_quant(b->m, b->sg, (uint32_t)id, sc, NULL, s->nscale, s->qdim, &e) !=
            LG_OK) {
            b->status = e.status;
            b->err = e;
            return -1;
        }
    }
    return id;
}

/* A model with one op in subgraph 0; its inputs and outputs as given. NULL on failure. */
static lg_model *build(int32_t builtin, lg_opts_kind kind, const void *opts, const tspec *ins,
                       uint32_t nin, const tspec *outs, uint32_t nout) {
    lg_model *m = NULL;
    lg_error e;
    if (lg_model_new(NULL, NULL, &m, &e) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "lg_model_new: %s", e.msg);
        return NULL;
    }
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int32_t in_ids[32], out_ids[8];
    for (uint32_t i = 0; i < nin && i < 32; i++) in_ids[i] = add_tensor(&b, &ins[i], (int)i);
    for (uint32_t i = 0; i < nout && i < 8; i++)
        out_ids[i] = add_tensor(&b, &outs[i], 100 + (int)i);
    lg_b_op_v(&b, builtin, 1, (lg_dims){in_ids, nin}, (lg_dims){out_ids, nout}, kind, opts);
    if (b.status != LG_OK) {
        tf_fail(__FILE__, __LINE__, "building the model: %s", b.err.msg);
        lg_model_free(m);
        return NULL;
    }
    return m;
}

static int version_of(const lg_model *m, char *why, size_t n) {
    return lgi_op_version_reason(m, &m->subgraphs[0], &m->subgraphs[0].ops[0], why, n);
}

static int run(char *why, size_t n, int32_t builtin, lg_opts_kind kind, const void *opts,
               const tspec *ins, uint32_t nin, const tspec *outs, uint32_t nout) {
    lg_model *m = build(builtin, kind, opts, ins, nin, outs, nout);
    if (!m) {
        snprintf(why, n, "no model");
        return -1;
    }
    int v = version_of(m, why, n);
    lg_model_free(m);
    return v;
}

/* EXPECT_V(want, builtin, kind, opts, LIST(inputs...), LIST(outputs...)) */
#define EXPECT_V(want, ...) do {                                                         \
        char why_[256];                                                                  \
        int got_ = run(why_, sizeof why_, __VA_ARGS__);                                  \
        if (got_ != (want))                                                              \
            tf_fail(__FILE__, __LINE__, "version %d (%s), expected %d", got_, why_, (want)); \
    } while (0)

/* Same for a one-input one-output op without options:
   EXPECT_U(want, op, in_type, out_type, dims). */
#define EXPECT_U(want, op, ti, to, d) \
    EXPECT_V(want, op, LG_OPTS_NONE, NULL, LIST(T(ti, d)), LIST(T(to, d)))

/* ------------------------------------------------------------------ TRANSPOSE_CONV */

/* inputs: output_shape (INT32 [4]), weights OHWI, input, [bias] */
#define TC_IN(wt, xt) TC(LG_INT32, D1), TC(wt, LG_DIMS(4, 3, 3, 4)), T(xt, D4)

LG_TEST(op_version_transpose_conv_fused_activation) {
    /* op_version.cc: transpose_conv_params != nullptr && transpose_conv_params->activation => 4 */
    lg_transpose_conv_options o = {.padding = LG_PADDING_SAME, .stride_w = 2, .stride_h = 2,
                                   .fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU};
    char why[256];
    int v = run(why, sizeof why, LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o,
                LIST(TC_IN(LG_FLOAT32, LG_FLOAT32)), LIST(T(LG_FLOAT32, D4)));
    CHECK_EQ_INT(v, 4);
    CHECK_STR(why, "version 4: fused activation RELU");
    o.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU6;
    EXPECT_V(4, LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o,
             LIST(TC_IN(LG_FLOAT32, LG_FLOAT32)), LIST(T(LG_FLOAT32, D4)));
    /* the activation rule comes before the bias rule: activation + bias is still 4 */
    EXPECT_V(4, LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o,
             LIST(TC_IN(LG_FLOAT32, LG_FLOAT32), TC(LG_FLOAT32, D1)), LIST(T(LG_FLOAT32, D4)));
    /* near miss: activation NONE => falls to 1 */
    o.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_NONE;
    EXPECT_V(1, LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o,
             LIST(TC_IN(LG_FLOAT32, LG_FLOAT32)), LIST(T(LG_FLOAT32, D4)));
    /* near miss: no options table at all => zeroed params, activation none => 1 */
    EXPECT_V(1, LG_OP_TRANSPOSE_CONV, LG_OPTS_NONE, NULL,
             LIST(TC_IN(LG_FLOAT32, LG_FLOAT32)), LIST(T(LG_FLOAT32, D4)));
}

LG_TEST(op_version_transpose_conv_bias) {
    /* op_version.cc: inputs.size() == 4 && inputs.at(3).type != kTfLiteNoType => 3 */
    EXPECT_V(3, LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, NULL,
             LIST(TC_IN(LG_FLOAT32, LG_FLOAT32), TC(LG_FLOAT32, D1)), LIST(T(LG_FLOAT32, D4)));
    /* near miss: 4 inputs but the bias is -1 (no type) => 1 */
    EXPECT_V(1, LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, NULL,
             LIST(TC_IN(LG_FLOAT32, LG_FLOAT32), OPT_NONE), LIST(T(LG_FLOAT32, D4)));
    /* near miss: 3 inputs => 1 */
    EXPECT_V(1, LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, NULL,
             LIST(TC_IN(LG_FLOAT32, LG_FLOAT32)), LIST(T(LG_FLOAT32, D4)));
}

LG_TEST(op_version_transpose_conv_int8_and_int16) {
    /* op_version.cc: inputs.at(1).type == kTfLiteInt8 => 2 (input 1 = weights) */
    EXPECT_V(2, LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, NULL,
             LIST(TC_IN(LG_INT8, LG_INT8)), LIST(T(LG_INT8, D4)));
    /* near miss: UINT8 weights => 1 */
    EXPECT_V(1, LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, NULL,
             LIST(TC_IN(LG_UINT8, LG_UINT8)), LIST(T(LG_UINT8, D4)));
    /* op_version.cc: inputs.at(0) Int16 && inputs.at(1) Int8 && outputs.at(0) Int16 &&
       quantized_bias_type => 5. Input 0 is output_shape, so only an INT16 output_shape
       triggers it; with options present quantized_bias_type is always non-zero (FLOAT32 ->
       kTfLiteFloat32). */
    EXPECT_V(5, LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, NULL,
             LIST(TC(LG_INT16, D1), TC(LG_INT8, LG_DIMS(4, 3, 3, 4)), T(LG_INT16, D4)),
             LIST(T(LG_INT16, D4)));
    /* near miss: the usual INT32 output_shape with int16 x int8 => only the INT8 weights rule: 2 */
    EXPECT_V(2, LG_OP_TRANSPOSE_CONV, LG_OPTS_TRANSPOSE_CONV_OPTIONS, NULL,
             LIST(TC_IN(LG_INT8, LG_INT16)), LIST(T(LG_INT16, D4)));
    /* near miss: INT16 output_shape but no options => zeroed quantized_bias_type => 2 */
    EXPECT_V(2, LG_OP_TRANSPOSE_CONV, LG_OPTS_NONE, NULL,
             LIST(TC(LG_INT16, D1), TC(LG_INT8, LG_DIMS(4, 3, 3, 4)), T(LG_INT16, D4)),
             LIST(T(LG_INT16, D4)));
}

/* ------------------------------------------------------------------ TRANSPOSE */

#define PERM(n) TC(LG_INT32, LG_DIMS(n))

LG_TEST(op_version_transpose) {
    char why[256];
    /* op_version.cc: inputs.at(0).type == kTfLiteFloat16 => 9 */
    int v = run(why, sizeof why, LG_OP_TRANSPOSE, LG_OPTS_NONE, NULL,
                LIST(T(LG_FLOAT16, D4), PERM(4)), LIST(T(LG_FLOAT16, D4)));
    CHECK_EQ_INT(v, 9);
    CHECK_STR(why, "version 9: FLOAT16 input");
    /* near miss: FLOAT32 rank 4 => 1 */
    EXPECT_V(1, LG_OP_TRANSPOSE, LG_OPTS_NONE, NULL, LIST(T(LG_FLOAT32, D4), PERM(4)),
             LIST(T(LG_FLOAT32, D4)));
    /* dims.size() > 6 || BFloat16 => 8 */
    EXPECT_V(8, LG_OP_TRANSPOSE, LG_OPTS_NONE, NULL,
             LIST(T(LG_FLOAT32, LG_DIMS(1, 1, 1, 1, 1, 1, 2)), PERM(7)),
             LIST(T(LG_FLOAT32, LG_DIMS(1, 1, 1, 1, 1, 1, 2))));
    EXPECT_V(8, LG_OP_TRANSPOSE, LG_OPTS_NONE, NULL, LIST(T(LG_BFLOAT16, D4), PERM(4)),
             LIST(T(LG_BFLOAT16, D4)));
    /* Int4 => 7 */
    EXPECT_V(7, LG_OP_TRANSPOSE, LG_OPTS_NONE, NULL, LIST(T(LG_INT4, D4), PERM(4)),
             LIST(T(LG_INT4, D4)));
    /* dims.size() > 5 => 6; near miss for 8: rank exactly 6 */
    EXPECT_V(6, LG_OP_TRANSPOSE, LG_OPTS_NONE, NULL,
             LIST(T(LG_FLOAT32, LG_DIMS(1, 1, 1, 1, 1, 2)), PERM(6)),
             LIST(T(LG_FLOAT32, LG_DIMS(1, 1, 1, 1, 1, 2))));
    /* Int16 => 5 (before the rank > 4 rule: INT16 rank 5 is still 5) */
    EXPECT_V(5, LG_OP_TRANSPOSE, LG_OPTS_NONE, NULL, LIST(T(LG_INT16, D4), PERM(4)),
             LIST(T(LG_INT16, D4)));
    EXPECT_V(5, LG_OP_TRANSPOSE, LG_OPTS_NONE, NULL, LIST(T(LG_INT16, D5), PERM(5)),
             LIST(T(LG_INT16, D5)));
    /* dims.size() > 4 => 4; near miss for 6: rank exactly 5 */
    v = run(why, sizeof why, LG_OP_TRANSPOSE, LG_OPTS_NONE, NULL,
            LIST(T(LG_FLOAT32, D5), PERM(5)), LIST(T(LG_FLOAT32, D5)));
    CHECK_EQ_INT(v, 4);
    CHECK_STR(why, "version 4: input rank 5 > 4");
    /* Bool => 3, Int8 => 2 */
    EXPECT_V(3, LG_OP_TRANSPOSE, LG_OPTS_NONE, NULL, LIST(T(LG_BOOL, D4), PERM(4)),
             LIST(T(LG_BOOL, D4)));
    EXPECT_V(2, LG_OP_TRANSPOSE, LG_OPTS_NONE, NULL, LIST(T(LG_INT8, D4), PERM(4)),
             LIST(T(LG_INT8, D4)));
    /* near miss for 2: UINT8 => 1 */
    EXPECT_V(1, LG_OP_TRANSPOSE, LG_OPTS_NONE, NULL, LIST(T(LG_UINT8, D4), PERM(4)),
             LIST(T(LG_UINT8, D4)));
}

/* ------------------------------------------------------------------ SOFTMAX, CONCATENATION */

LG_TEST(op_version_softmax) {
    lg_softmax_options o = {.beta = 1.0f};
    /* op_version.cc: Float16 => 4; Int16 => 3; Int8 => 2 */
    EXPECT_V(4, LG_OP_SOFTMAX, LG_OPTS_SOFTMAX_OPTIONS, &o, LIST(T(LG_FLOAT16, D4)),
             LIST(T(LG_FLOAT16, D4)));
    EXPECT_V(3, LG_OP_SOFTMAX, LG_OPTS_SOFTMAX_OPTIONS, &o, LIST(T(LG_INT16, D4)),
             LIST(T(LG_INT16, D4)));
    EXPECT_V(2, LG_OP_SOFTMAX, LG_OPTS_SOFTMAX_OPTIONS, &o, LIST(T(LG_INT8, D4)),
             LIST(T(LG_INT8, D4)));
    /* near miss: FLOAT32 => 1 */
    EXPECT_V(1, LG_OP_SOFTMAX, LG_OPTS_SOFTMAX_OPTIONS, &o, LIST(T(LG_FLOAT32, D4)),
             LIST(T(LG_FLOAT32, D4)));
}

LG_TEST(op_version_concatenation) {
    lg_concatenation_options o = {.axis = 3};
    /* op_version.cc: Float16 => 6; Int4 => 5; UInt32 => 4; Int16 => 3; Int8 => 2 */
    EXPECT_V(6, LG_OP_CONCATENATION, LG_OPTS_CONCATENATION_OPTIONS, &o,
             LIST(T(LG_FLOAT16, D4), TC(LG_FLOAT16, D4)), LIST(T(LG_FLOAT16, LG_DIMS(1, 8, 8, 8))));
    EXPECT_V(5, LG_OP_CONCATENATION, LG_OPTS_CONCATENATION_OPTIONS, &o,
             LIST(T(LG_INT4, D4), T(LG_INT4, D4)), LIST(T(LG_INT4, LG_DIMS(1, 8, 8, 8))));
    EXPECT_V(4, LG_OP_CONCATENATION, LG_OPTS_CONCATENATION_OPTIONS, &o,
             LIST(T(LG_UINT32, D4), T(LG_UINT32, D4)), LIST(T(LG_UINT32, LG_DIMS(1, 8, 8, 8))));
    EXPECT_V(3, LG_OP_CONCATENATION, LG_OPTS_CONCATENATION_OPTIONS, &o,
             LIST(T(LG_INT16, D4), T(LG_INT16, D4)), LIST(T(LG_INT16, LG_DIMS(1, 8, 8, 8))));
    EXPECT_V(2, LG_OP_CONCATENATION, LG_OPTS_CONCATENATION_OPTIONS, &o,
             LIST(T(LG_INT8, D4), T(LG_INT8, D4)), LIST(T(LG_INT8, LG_DIMS(1, 8, 8, 8))));
    /* near miss: FLOAT32 => 1; a constant input changes nothing (is_const is never read) */
    EXPECT_V(1, LG_OP_CONCATENATION, LG_OPTS_CONCATENATION_OPTIONS, &o,
             LIST(T(LG_FLOAT32, D4), TC(LG_FLOAT32, D4)), LIST(T(LG_FLOAT32, LG_DIMS(1, 8, 8, 8))));
}

/* ------------------------------------------------------------------ STRIDED_SLICE */

#define SS_IN(t, d, n) T(t, d), TC(LG_INT32, LG_DIMS(n)), TC(LG_INT32, LG_DIMS(n)), \
    TC(LG_INT32, LG_DIMS(n))

LG_TEST(op_version_strided_slice) {
    lg_strided_slice_options o = {0};
    /* op_version.cc: offset == true => 8 */
    o.offset = true;
    EXPECT_V(8, LG_OP_STRIDED_SLICE, LG_OPTS_STRIDED_SLICE_OPTIONS, &o,
             LIST(SS_IN(LG_FLOAT32, D4, 4)), LIST(T(LG_FLOAT32, D4)));
    o.offset = false;
    /* near miss: all masks 0, FLOAT32 rank 4 => 1 */
    EXPECT_V(1, LG_OP_STRIDED_SLICE, LG_OPTS_STRIDED_SLICE_OPTIONS, &o,
             LIST(SS_IN(LG_FLOAT32, D4, 4)), LIST(T(LG_FLOAT32, D4)));
    /* UInt32 => 7 */
    EXPECT_V(7, LG_OP_STRIDED_SLICE, LG_OPTS_STRIDED_SLICE_OPTIONS, &o,
             LIST(SS_IN(LG_UINT32, D4, 4)), LIST(T(LG_UINT32, D4)));
    /* ellipsis_mask != 0 || new_axis_mask != 0 => 6 */
    o.ellipsis_mask = 1;
    EXPECT_V(6, LG_OP_STRIDED_SLICE, LG_OPTS_STRIDED_SLICE_OPTIONS, &o,
             LIST(SS_IN(LG_FLOAT32, D4, 4)), LIST(T(LG_FLOAT32, D4)));
    o.ellipsis_mask = 0;
    o.new_axis_mask = 2;
    EXPECT_V(6, LG_OP_STRIDED_SLICE, LG_OPTS_STRIDED_SLICE_OPTIONS, &o,
             LIST(SS_IN(LG_FLOAT32, D4, 4)), LIST(T(LG_FLOAT32, D4)));
    /* near miss: shrink_axis_mask / begin_mask do not raise the version => 1 */
    o.new_axis_mask = 0;
    o.shrink_axis_mask = 1;
    o.begin_mask = 5;
    EXPECT_V(1, LG_OP_STRIDED_SLICE, LG_OPTS_STRIDED_SLICE_OPTIONS, &o,
             LIST(SS_IN(LG_FLOAT32, D4, 4)), LIST(T(LG_FLOAT32, LG_DIMS(8, 8, 4))));
    o.shrink_axis_mask = 0;
    o.begin_mask = 0;
    /* String => 5 */
    EXPECT_V(5, LG_OP_STRIDED_SLICE, LG_OPTS_STRIDED_SLICE_OPTIONS, &o,
             LIST(SS_IN(LG_STRING, D4, 4)), LIST(T(LG_STRING, D4)));
    /* ext_options.strided_slice.num_dims (input 0 rank) > 4 => 4 */
    EXPECT_V(4, LG_OP_STRIDED_SLICE, LG_OPTS_STRIDED_SLICE_OPTIONS, &o,
             LIST(SS_IN(LG_FLOAT32, D5, 5)), LIST(T(LG_FLOAT32, D5)));
    /* Bool => 3 (BOOL rank 4; near miss for 4) */
    EXPECT_V(3, LG_OP_STRIDED_SLICE, LG_OPTS_STRIDED_SLICE_OPTIONS, &o,
             LIST(SS_IN(LG_BOOL, D4, 4)), LIST(T(LG_BOOL, D4)));
    /* Int8 => 2; near miss for 3 */
    EXPECT_V(2, LG_OP_STRIDED_SLICE, LG_OPTS_STRIDED_SLICE_OPTIONS, &o,
             LIST(SS_IN(LG_INT8, D4, 4)), LIST(T(LG_INT8, D4)));
    /* near miss for 2: UINT8 => 1 */
    EXPECT_V(1, LG_OP_STRIDED_SLICE, LG_OPTS_STRIDED_SLICE_OPTIONS, &o,
             LIST(SS_IN(LG_UINT8, D4, 4)), LIST(T(LG_UINT8, D4)));
}

/* ------------------------------------------------------------------ FULLY_CONNECTED */

#define FC_W(t) TC(t, LG_DIMS(4, 3))
#define FC_X(t) T(t, LG_DIMS(1, 3))
#define FC_B(t) TC(t, LG_DIMS(4))
#define FC_Y(t) T(t, LG_DIMS(1, 4))

LG_TEST(op_version_fully_connected_high) {
    lg_fully_connected_options o = {0};
    /* op_version.cc: inputs.at(1).type == kTfLiteInt2 => 14 */
    EXPECT_V(14, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_INT8), FC_W(LG_INT2), FC_B(LG_INT32)), LIST(FC_Y(LG_INT8)));
    /* Int16 x Int4 -> Int16 => 13 */
    EXPECT_V(13, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_INT16), FC_W(LG_INT4), FC_B(LG_INT64)), LIST(FC_Y(LG_INT16)));
    /* Float32 x Int8 -> Float32 && is_per_channel_quantized => 12. op_signature.cc:
       per-channel = scale count == weights dim 0 (4 scales for [4, 3]) */
    EXPECT_V(12, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_FLOAT32), TCQ(LG_INT8, LG_DIMS(4, 3), 4, 0), FC_B(LG_FLOAT32)),
             LIST(FC_Y(LG_FLOAT32)));
    /* near miss: 3 scales along dim 1 (3 != dim 0 = 4) => hybrid 3 */
    EXPECT_V(3, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_FLOAT32), TCQ(LG_INT8, LG_DIMS(4, 3), 3, 1), FC_B(LG_FLOAT32)),
             LIST(FC_Y(LG_FLOAT32)));
    /* near miss: one scale (per-tensor) => 3 */
    EXPECT_V(3, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_FLOAT32), TCQ(LG_INT8, LG_DIMS(4, 3), 1, 0), FC_B(LG_FLOAT32)),
             LIST(FC_Y(LG_FLOAT32)));
    /* Int16 x Int8 -> Int16 && quantized_bias_type (set whenever the options table is
       present: ConvertTensorType(FLOAT32) = kTfLiteFloat32 != 0) => 11 */
    EXPECT_V(11, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_INT16), FC_W(LG_INT8), FC_B(LG_INT64)), LIST(FC_Y(LG_INT16)));
    /* near miss: no options table => zeroed quantized_bias_type => falls through to 1 */
    EXPECT_V(1, LG_OP_FULLY_CONNECTED, LG_OPTS_NONE, NULL,
             LIST(FC_X(LG_INT16), FC_W(LG_INT8), FC_B(LG_INT64)), LIST(FC_Y(LG_INT16)));
    /* Int8 x Int4 -> Int8 (3 inputs) => 10 */
    EXPECT_V(10, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_INT8), FC_W(LG_INT4), FC_B(LG_INT32)), LIST(FC_Y(LG_INT8)));
    /* hybrid && asymmetric_quantize_inputs => 9; near miss without => 3 */
    o.asymmetric_quantize_inputs = true;
    EXPECT_V(9, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_FLOAT32), FC_W(LG_INT8), FC_B(LG_FLOAT32)), LIST(FC_Y(LG_FLOAT32)));
    o.asymmetric_quantize_inputs = false;
    EXPECT_V(3, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_FLOAT32), FC_W(LG_INT8), FC_B(LG_FLOAT32)), LIST(FC_Y(LG_FLOAT32)));
}

LG_TEST(op_version_fully_connected_low) {
    lg_fully_connected_options o = {0};
    /* op_version.cc: sparse_weight (op_signature.cc: weights tensor has sparsity) => 8 */
    lg_model *m = build(LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
                        LIST(FC_X(LG_FLOAT32), FC_W(LG_FLOAT32), FC_B(LG_FLOAT32)),
                        LIST(FC_Y(LG_FLOAT32)));
    if (m) {
        char why[256];
        CHECK_EQ_INT(version_of(m, why, sizeof why), 1); /* near miss: dense float => 1 */
        static lg_sparsity sp; /* any SparsityParameters table */
        m->subgraphs[0].tensors[m->subgraphs[0].ops[0].inputs[1]].sparsity = &sp;
        CHECK_EQ_INT(version_of(m, why, sizeof why), 8);
        lg_model_free(m);
    }
    /* Int16 x Int16 -> Int16 => 7 */
    EXPECT_V(7, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_INT16), FC_W(LG_INT16), FC_B(LG_INT64)), LIST(FC_Y(LG_INT16)));
    /* inputs.size() == 2 => 6 */
    EXPECT_V(6, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_FLOAT32), FC_W(LG_FLOAT32)), LIST(FC_Y(LG_FLOAT32)));
    /* near miss: 3 inputs with the bias left out (-1) still counts 3 => 1 */
    EXPECT_V(1, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_FLOAT32), FC_W(LG_FLOAT32), OPT_NONE), LIST(FC_Y(LG_FLOAT32)));
    /* keep_num_dims => 5 */
    o.keep_num_dims = true;
    EXPECT_V(5, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_FLOAT32), FC_W(LG_FLOAT32), FC_B(LG_FLOAT32)), LIST(FC_Y(LG_FLOAT32)));
    o.keep_num_dims = false;
    /* Int8 x Int8 -> Int8 => 4 */
    EXPECT_V(4, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_INT8), FC_W(LG_INT8), FC_B(LG_INT32)), LIST(FC_Y(LG_INT8)));
    /* weights_format SHUFFLED4x16INT8 => 2 (uint8 kernel, 3 inputs) */
    o.weights_format = LG_FULLY_CONNECTED_OPTIONS_WEIGHTS_FORMAT_SHUFFLED4x16INT8;
    EXPECT_V(2, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_UINT8), FC_W(LG_UINT8), FC_B(LG_INT32)), LIST(FC_Y(LG_UINT8)));
    /* ... but with 2 inputs the size rule comes first => 6 (op_version_test.cc agrees) */
    EXPECT_V(6, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_UINT8), FC_W(LG_UINT8)), LIST(FC_Y(LG_UINT8)));
    /* near miss: default weights format => 1 */
    o.weights_format = LG_FULLY_CONNECTED_OPTIONS_WEIGHTS_FORMAT_DEFAULT;
    EXPECT_V(1, LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o,
             LIST(FC_X(LG_UINT8), FC_W(LG_UINT8), FC_B(LG_INT32)), LIST(FC_Y(LG_UINT8)));
}

/* ------------------------------------------------------------------ CONV_2D, DEPTHWISE */

#define CONV_W(t, o, i) TC(t, LG_DIMS(o, 3, 3, i))

LG_TEST(op_version_conv2d) {
    lg_conv2d_options o = {.stride_w = 1, .stride_h = 1, .dilation_w_factor = 1,
                           .dilation_h_factor = 1};
    /* op_version.cc: Int8/Int8/Int8 => 3 */
    EXPECT_V(3, LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &o,
             LIST(T(LG_INT8, D4), CONV_W(LG_INT8, 8, 4), TC(LG_INT32, LG_DIMS(8))),
             LIST(T(LG_INT8, LG_DIMS(1, 8, 8, 8))));
    /* Int8/Int4/Int8 => 7 */
    EXPECT_V(7, LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &o,
             LIST(T(LG_INT8, D4), CONV_W(LG_INT4, 8, 4), TC(LG_INT32, LG_DIMS(8))),
             LIST(T(LG_INT8, LG_DIMS(1, 8, 8, 8))));
    /* hybrid Float32/Int8/Float32 => 2, per-channel (scale count == filter dim 0) => 5 */
    EXPECT_V(2, LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &o,
             LIST(T(LG_FLOAT32, D4), TCQ(LG_INT8, LG_DIMS(8, 3, 3, 4), 1, 0)),
             LIST(T(LG_FLOAT32, LG_DIMS(1, 8, 8, 8))));
    EXPECT_V(5, LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &o,
             LIST(T(LG_FLOAT32, D4), TCQ(LG_INT8, LG_DIMS(8, 3, 3, 4), 8, 0)),
             LIST(T(LG_FLOAT32, LG_DIMS(1, 8, 8, 8))));
    /* is_grouped_convolution (input dim 3 != filter dim 3) => 6 */
    EXPECT_V(6, LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &o,
             LIST(T(LG_FLOAT32, D4), CONV_W(LG_FLOAT32, 8, 2)),
             LIST(T(LG_FLOAT32, LG_DIMS(1, 8, 8, 8))));
    /* near miss: filter in-channels == input channels => 1 */
    EXPECT_V(1, LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &o,
             LIST(T(LG_FLOAT32, D4), CONV_W(LG_FLOAT32, 8, 4)),
             LIST(T(LG_FLOAT32, LG_DIMS(1, 8, 8, 8))));
    /* Int16/Int8/Int16 && quantized_bias_type (options present) => 8 */
    EXPECT_V(8, LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &o,
             LIST(T(LG_INT16, D4), CONV_W(LG_INT8, 8, 4), TC(LG_INT64, LG_DIMS(8))),
             LIST(T(LG_INT16, LG_DIMS(1, 8, 8, 8))));
    /* near miss: no Conv2DOptions => kTfLiteNoType bias type => 1 */
    EXPECT_V(1, LG_OP_CONV_2D, LG_OPTS_NONE, NULL,
             LIST(T(LG_INT16, D4), CONV_W(LG_INT8, 8, 4), TC(LG_INT64, LG_DIMS(8))),
             LIST(T(LG_INT16, LG_DIMS(1, 8, 8, 8))));
    /* Int16/Int16 => 4 tests outputs.at(1): with one output it cannot hold (TFLite would
       abort); we read it as false => 1. With a second INT16 output it holds => 4. */
    EXPECT_V(1, LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &o,
             LIST(T(LG_INT16, D4), CONV_W(LG_INT16, 8, 4)),
             LIST(T(LG_INT16, LG_DIMS(1, 8, 8, 8))));
    EXPECT_V(4, LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &o,
             LIST(T(LG_INT16, D4), CONV_W(LG_INT16, 8, 4)),
             LIST(T(LG_INT16, LG_DIMS(1, 8, 8, 8)), T(LG_INT16, LG_DIMS(1, 8, 8, 8))));
}

LG_TEST(op_version_depthwise_conv2d) {
    lg_depthwise_conv2d_options o = {.stride_w = 1, .stride_h = 1, .depth_multiplier = 1,
                                     .dilation_w_factor = 1, .dilation_h_factor = 1};
#define DW_W(t) TC(t, LG_DIMS(1, 3, 3, 4))
    /* op_version.cc: dilation != 1 => 2; near miss dilation 1 => 1 */
    EXPECT_V(1, LG_OP_DEPTHWISE_CONV_2D, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o,
             LIST(T(LG_FLOAT32, D4), DW_W(LG_FLOAT32)), LIST(T(LG_FLOAT32, D4)));
    o.dilation_h_factor = 2;
    EXPECT_V(2, LG_OP_DEPTHWISE_CONV_2D, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o,
             LIST(T(LG_FLOAT32, D4), DW_W(LG_FLOAT32)), LIST(T(LG_FLOAT32, D4)));
    o.dilation_h_factor = 1;
    /* no DepthwiseConv2DOptions: ParseDepthwiseConv2D leaves dilation 0 (!= 1) => 2 */
    EXPECT_V(2, LG_OP_DEPTHWISE_CONV_2D, LG_OPTS_NONE, NULL,
             LIST(T(LG_FLOAT32, D4), DW_W(LG_FLOAT32)), LIST(T(LG_FLOAT32, D4)));
    /* Int8/Int8/Int8 => 3; Int8/Int4/Int8 => 7 */
    EXPECT_V(3, LG_OP_DEPTHWISE_CONV_2D, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o,
             LIST(T(LG_INT8, D4), DW_W(LG_INT8)), LIST(T(LG_INT8, D4)));
    EXPECT_V(7, LG_OP_DEPTHWISE_CONV_2D, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o,
             LIST(T(LG_INT8, D4), DW_W(LG_INT4)), LIST(T(LG_INT8, D4)));
    /* hybrid => 4; per-channel (scale count == filter dim 3) => 6 */
    EXPECT_V(4, LG_OP_DEPTHWISE_CONV_2D, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o,
             LIST(T(LG_FLOAT32, D4), TCQ(LG_INT8, LG_DIMS(1, 3, 3, 4), 1, 0)),
             LIST(T(LG_FLOAT32, D4)));
    EXPECT_V(6, LG_OP_DEPTHWISE_CONV_2D, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o,
             LIST(T(LG_FLOAT32, D4), TCQ(LG_INT8, LG_DIMS(1, 3, 3, 4), 4, 3)),
             LIST(T(LG_FLOAT32, D4)));
#undef DW_W
}

/* ------------------------------------------------------------------ ADD, SUB, MUL, DIV */

LG_TEST(op_version_add) {
    lg_add_options o = {.pot_scale_int16 = true}; /* the schema default */
    /* op_version.cc: Float16 => 6 */
    EXPECT_V(6, LG_OP_ADD, LG_OPTS_ADD_OPTIONS, &o, LIST(T(LG_FLOAT16, D4), T(LG_FLOAT16, D4)),
             LIST(T(LG_FLOAT16, D4)));
    /* Int16 && !input_quantized (op_signature.cc: input 0 has no quantization table) => 5 */
    EXPECT_V(5, LG_OP_ADD, LG_OPTS_ADD_OPTIONS, &o, LIST(T(LG_INT16, D4), T(LG_INT16, D4)),
             LIST(T(LG_INT16, D4)));
    /* Int64 => 4 */
    EXPECT_V(4, LG_OP_ADD, LG_OPTS_ADD_OPTIONS, &o, LIST(T(LG_INT64, D4), T(LG_INT64, D4)),
             LIST(T(LG_INT64, D4)));
    /* quantized Int16 in and out && !pot_scale_int16 => 3 */
    lg_add_options np = {.pot_scale_int16 = false};
    EXPECT_V(3, LG_OP_ADD, LG_OPTS_ADD_OPTIONS, &np,
             LIST(TQ(LG_INT16, D4, 1, 0), TQ(LG_INT16, D4, 1, 0)), LIST(TQ(LG_INT16, D4, 1, 0)));
    /* near miss: pot_scale_int16 true => falls to 1 */
    EXPECT_V(1, LG_OP_ADD, LG_OPTS_ADD_OPTIONS, &o,
             LIST(TQ(LG_INT16, D4, 1, 0), TQ(LG_INT16, D4, 1, 0)), LIST(TQ(LG_INT16, D4, 1, 0)));
    /* no AddOptions: zeroed params, pot_scale_int16 false => 3 */
    EXPECT_V(3, LG_OP_ADD, LG_OPTS_NONE, NULL,
             LIST(TQ(LG_INT16, D4, 1, 0), TQ(LG_INT16, D4, 1, 0)), LIST(TQ(LG_INT16, D4, 1, 0)));
    /* Int8 => 2; near miss FLOAT32 => 1 */
    EXPECT_V(2, LG_OP_ADD, LG_OPTS_ADD_OPTIONS, &o, LIST(T(LG_INT8, D4), T(LG_INT8, D4)),
             LIST(T(LG_INT8, D4)));
    EXPECT_V(1, LG_OP_ADD, LG_OPTS_ADD_OPTIONS, &o, LIST(T(LG_FLOAT32, D4), T(LG_FLOAT32, D4)),
             LIST(T(LG_FLOAT32, D4)));
    /* input_quantized is the presence of a quantization table, even one without scales */
    lg_model *m = build(LG_OP_ADD, LG_OPTS_ADD_OPTIONS, &np,
                        LIST(T(LG_INT16, D4), T(LG_INT16, D4)), LIST(T(LG_INT16, D4)));
    if (m) {
        char why[256];
        CHECK_EQ_INT(version_of(m, why, sizeof why), 5);
        static lg_quant empty; /* a QuantizationParameters table with nothing in it */
        m->subgraphs[0].tensors[m->subgraphs[0].ops[0].inputs[0]].quant = &empty;
        CHECK_EQ_INT(version_of(m, why, sizeof why), 3);
        lg_model_free(m);
    }
}

LG_TEST(op_version_sub_div) {
    lg_sub_options o = {.pot_scale_int16 = true};
    lg_sub_options np = {.pot_scale_int16 = false};
    /* op_version.cc SUB: Int16 in and out && !pot_scale_int16 => 5; near miss pot => 1 */
    EXPECT_V(5, LG_OP_SUB, LG_OPTS_SUB_OPTIONS, &np, LIST(T(LG_INT16, D4), T(LG_INT16, D4)),
             LIST(T(LG_INT16, D4)));
    EXPECT_V(1, LG_OP_SUB, LG_OPTS_SUB_OPTIONS, &o, LIST(T(LG_INT16, D4), T(LG_INT16, D4)),
             LIST(T(LG_INT16, D4)));
    /* Int64 => 4 */
    EXPECT_V(4, LG_OP_SUB, LG_OPTS_SUB_OPTIONS, &o, LIST(T(LG_INT64, D4), T(LG_INT64, D4)),
             LIST(T(LG_INT64, D4)));
    /* NeedBroadcastForBinaryInputs && GetInputMaxDims > 4 => 3 */
    EXPECT_V(3, LG_OP_SUB, LG_OPTS_SUB_OPTIONS, &o, LIST(T(LG_FLOAT32, D5), T(LG_FLOAT32, D4)),
             LIST(T(LG_FLOAT32, D5)));
    /* near miss: rank 5 but equal shapes (no broadcast) => 1 */
    EXPECT_V(1, LG_OP_SUB, LG_OPTS_SUB_OPTIONS, &o, LIST(T(LG_FLOAT32, D5), T(LG_FLOAT32, D5)),
             LIST(T(LG_FLOAT32, D5)));
    /* near miss: broadcast at rank 4 => 1 */
    EXPECT_V(1, LG_OP_SUB, LG_OPTS_SUB_OPTIONS, &o,
             LIST(T(LG_FLOAT32, D4), T(LG_FLOAT32, LG_DIMS(1, 1, 1, 4))), LIST(T(LG_FLOAT32, D4)));
    /* Int8 => 2 */
    EXPECT_V(2, LG_OP_SUB, LG_OPTS_SUB_OPTIONS, &o, LIST(T(LG_INT8, D4), T(LG_INT8, D4)),
             LIST(T(LG_INT8, D4)));
    /* DIV: broadcast with rank > 4 => 2; near miss same shapes => 1 */
    EXPECT_V(2, LG_OP_DIV, LG_OPTS_DIV_OPTIONS, NULL,
             LIST(T(LG_FLOAT32, D5), T(LG_FLOAT32, LG_DIMS(1, 1, 1, 1, 4))),
             LIST(T(LG_FLOAT32, D5)));
    EXPECT_V(1, LG_OP_DIV, LG_OPTS_DIV_OPTIONS, NULL, LIST(T(LG_FLOAT32, D5), T(LG_FLOAT32, D5)),
             LIST(T(LG_FLOAT32, D5)));
}

LG_TEST(op_version_mul) {
    lg_mul_options o = {0};
    /* op_version.cc MUL: Float16 => 8 */
    EXPECT_V(8, LG_OP_MUL, LG_OPTS_MUL_OPTIONS, &o, LIST(T(LG_FLOAT16, D4), T(LG_FLOAT16, D4)),
             LIST(T(LG_FLOAT16, D4)));
    /* (Int16 && !input_quantized) || UInt32 => 7 */
    EXPECT_V(7, LG_OP_MUL, LG_OPTS_MUL_OPTIONS, &o, LIST(T(LG_INT16, D4), T(LG_INT16, D4)),
             LIST(T(LG_INT16, D4)));
    EXPECT_V(7, LG_OP_MUL, LG_OPTS_MUL_OPTIONS, &o, LIST(T(LG_UINT32, D4), T(LG_UINT32, D4)),
             LIST(T(LG_UINT32, D4)));
    /* Complex64 => 6; Int64 => 5 */
    EXPECT_V(6, LG_OP_MUL, LG_OPTS_MUL_OPTIONS, &o,
             LIST(T(LG_COMPLEX64, D4), T(LG_COMPLEX64, D4)), LIST(T(LG_COMPLEX64, D4)));
    EXPECT_V(5, LG_OP_MUL, LG_OPTS_MUL_OPTIONS, &o, LIST(T(LG_INT64, D4), T(LG_INT64, D4)),
             LIST(T(LG_INT64, D4)));
    /* quantized Int16 => 4 (near miss for 7: input 1 quantized is enough) */
    EXPECT_V(4, LG_OP_MUL, LG_OPTS_MUL_OPTIONS, &o, LIST(T(LG_INT16, D4), TQ(LG_INT16, D4, 1, 0)),
             LIST(T(LG_INT16, D4)));
    /* input1_scale * input2_scale / output_scale >= 1 => 3: 0.5 * 0.5 / 0.25 = 1 */
    lg_model *m = build(LG_OP_MUL, LG_OPTS_MUL_OPTIONS, &o,
                        LIST(TQ(LG_INT8, D4, 1, 0), TQ(LG_INT8, D4, 1, 0)),
                        LIST(TQ(LG_INT8, D4, 1, 0)));
    if (m) {
        char why[256];
        /* all scales 0.5: 0.5 * 0.5 / 0.5 = 0.5 < 1 => Int8 rule => 2 (near miss) */
        CHECK_EQ_INT(version_of(m, why, sizeof why), 2);
        lg_subgraph *sg = &m->subgraphs[0];
        float *so = (float *)sg->tensors[sg->ops[0].outputs[0]].quant->scale;
        so[0] = 0.25f;
        CHECK_EQ_INT(version_of(m, why, sizeof why), 3);
        lg_model_free(m);
    }
    /* FLOAT32 => 1 */
    EXPECT_V(1, LG_OP_MUL, LG_OPTS_MUL_OPTIONS, &o, LIST(T(LG_FLOAT32, D4), T(LG_FLOAT32, D4)),
             LIST(T(LG_FLOAT32, D4)));
}

LG_TEST(op_version_maximum_minimum) {
    /* op_version.cc: Int16 in and out => 4; broadcast && max dims > 4 => 3; Int8 => 2 */
    static const int ops[] = {LG_OP_MAXIMUM, LG_OP_MINIMUM};
    for (int i = 0; i < 2; i++) {
        EXPECT_V(4, ops[i], LG_OPTS_MAXIMUM_MINIMUM_OPTIONS, NULL,
                 LIST(T(LG_INT16, D4), T(LG_INT16, D4)), LIST(T(LG_INT16, D4)));
        EXPECT_V(3, ops[i], LG_OPTS_MAXIMUM_MINIMUM_OPTIONS, NULL,
                 LIST(T(LG_INT8, D5), T(LG_INT8, D4)), LIST(T(LG_INT8, D5)));
        EXPECT_V(2, ops[i], LG_OPTS_MAXIMUM_MINIMUM_OPTIONS, NULL,
                 LIST(T(LG_INT8, D5), T(LG_INT8, D5)), LIST(T(LG_INT8, D5)));
        EXPECT_V(1, ops[i], LG_OPTS_MAXIMUM_MINIMUM_OPTIONS, NULL,
                 LIST(T(LG_FLOAT32, D4), T(LG_FLOAT32, LG_DIMS(4))), LIST(T(LG_FLOAT32, D4)));
    }
}

/* ------------------------------------------------------------------ pads, reductions, pools */

LG_TEST(op_version_pad) {
    /* op_version.cc PAD/PADV2: Bool => 5; dims > 4 => 4; Int16 => 3; Int8 => 2 */
    static const int ops[] = {LG_OP_PAD, LG_OP_PADV2};
    for (int i = 0; i < 2; i++) {
        EXPECT_V(5, ops[i], LG_OPTS_NONE, NULL, LIST(T(LG_BOOL, D4), TC(LG_INT32, LG_DIMS(4, 2))),
                 LIST(T(LG_BOOL, D4)));
        EXPECT_V(4, ops[i], LG_OPTS_NONE, NULL,
                 LIST(T(LG_FLOAT32, D5), TC(LG_INT32, LG_DIMS(5, 2))), LIST(T(LG_FLOAT32, D5)));
        EXPECT_V(3, ops[i], LG_OPTS_NONE, NULL,
                 LIST(T(LG_INT16, D4), TC(LG_INT32, LG_DIMS(4, 2))), LIST(T(LG_INT16, D4)));
        EXPECT_V(2, ops[i], LG_OPTS_NONE, NULL, LIST(T(LG_INT8, D4), TC(LG_INT32, LG_DIMS(4, 2))),
                 LIST(T(LG_INT8, D4)));
        EXPECT_V(1, ops[i], LG_OPTS_NONE, NULL,
                 LIST(T(LG_FLOAT32, D4), TC(LG_INT32, LG_DIMS(4, 2))), LIST(T(LG_FLOAT32, D4)));
    }
    /* MIRROR_PAD: Int16 => 3, Int8 => 2, and no rank rule (rank 5 float => 1) */
    lg_mirror_pad_options mo = {.mode = LG_MIRROR_PAD_MODE_REFLECT};
    EXPECT_V(3, LG_OP_MIRROR_PAD, LG_OPTS_MIRROR_PAD_OPTIONS, &mo,
             LIST(T(LG_INT16, D4), TC(LG_INT32, LG_DIMS(4, 2))), LIST(T(LG_INT16, D4)));
    EXPECT_V(2, LG_OP_MIRROR_PAD, LG_OPTS_MIRROR_PAD_OPTIONS, &mo,
             LIST(T(LG_INT8, D4), TC(LG_INT32, LG_DIMS(4, 2))), LIST(T(LG_INT8, D4)));
    EXPECT_V(1, LG_OP_MIRROR_PAD, LG_OPTS_MIRROR_PAD_OPTIONS, &mo,
             LIST(T(LG_FLOAT32, D5), TC(LG_INT32, LG_DIMS(5, 2))), LIST(T(LG_FLOAT32, D5)));
}

LG_TEST(op_version_reductions) {
    lg_reducer_options o = {.keep_dims = true};
    /* op_version.cc: MEAN, REDUCE_MAX, REDUCE_MIN: Int16 => 3, Int8 => 2 */
    static const int i16[] = {LG_OP_MEAN, LG_OP_REDUCE_MAX, LG_OP_REDUCE_MIN};
    for (int i = 0; i < 3; i++) {
        EXPECT_V(3, i16[i], LG_OPTS_REDUCER_OPTIONS, &o, LIST(T(LG_INT16, D4), TC(LG_INT32, D1)),
                 LIST(T(LG_INT16, D4)));
        EXPECT_V(2, i16[i], LG_OPTS_REDUCER_OPTIONS, &o, LIST(T(LG_INT8, D4), TC(LG_INT32, D1)),
                 LIST(T(LG_INT8, D4)));
        EXPECT_V(1, i16[i], LG_OPTS_REDUCER_OPTIONS, &o, LIST(T(LG_FLOAT32, D4), TC(LG_INT32, D1)),
                 LIST(T(LG_FLOAT32, D4)));
    }
    /* SUM: only Int8 => 2; near miss: Int16 SUM stays 1 */
    EXPECT_V(2, LG_OP_SUM, LG_OPTS_REDUCER_OPTIONS, &o, LIST(T(LG_INT8, D4), TC(LG_INT32, D1)),
             LIST(T(LG_INT8, D4)));
    EXPECT_V(1, LG_OP_SUM, LG_OPTS_REDUCER_OPTIONS, &o, LIST(T(LG_INT16, D4), TC(LG_INT32, D1)),
             LIST(T(LG_INT16, D4)));
    /* REDUCE_PROD: Int8 or Int16 => 2 */
    EXPECT_V(2, LG_OP_REDUCE_PROD, LG_OPTS_REDUCER_OPTIONS, &o,
             LIST(T(LG_INT16, D4), TC(LG_INT32, D1)), LIST(T(LG_INT16, D4)));
    EXPECT_V(1, LG_OP_REDUCE_PROD, LG_OPTS_REDUCER_OPTIONS, &o,
             LIST(T(LG_FLOAT32, D4), TC(LG_INT32, D1)), LIST(T(LG_FLOAT32, D4)));
    /* REDUCE_ANY/ALL are not in op_version.cc => 1 */
    EXPECT_V(1, LG_OP_REDUCE_ANY, LG_OPTS_REDUCER_OPTIONS, &o,
             LIST(T(LG_BOOL, D4), TC(LG_INT32, D1)), LIST(T(LG_BOOL, D4)));
}

LG_TEST(op_version_pool) {
    lg_pool2d_options o = {.stride_w = 2, .stride_h = 2, .filter_width = 2, .filter_height = 2};
    static const int ops[] = {LG_OP_MAX_POOL_2D, LG_OP_AVERAGE_POOL_2D};
    for (int i = 0; i < 2; i++) {
        /* op_version.cc: Int16 in and out => 3; Int8 => 2 */
        EXPECT_V(3, ops[i], LG_OPTS_POOL2D_OPTIONS, &o, LIST(T(LG_INT16, D4)),
                 LIST(T(LG_INT16, D4)));
        /* near miss: Int16 in, Int8 out => not 3; not Int8 in => 1 */
        EXPECT_V(1, ops[i], LG_OPTS_POOL2D_OPTIONS, &o, LIST(T(LG_INT16, D4)),
                 LIST(T(LG_INT8, D4)));
        EXPECT_V(2, ops[i], LG_OPTS_POOL2D_OPTIONS, &o, LIST(T(LG_INT8, D4)),
                 LIST(T(LG_INT8, D4)));
        EXPECT_V(1, ops[i], LG_OPTS_POOL2D_OPTIONS, &o, LIST(T(LG_FLOAT32, D4)),
                 LIST(T(LG_FLOAT32, D4)));
    }
}

/* ------------------------------------------------------------------ resize */

LG_TEST(op_version_resize) {
    lg_resize_bilinear_options b = {0};
    /* op_version.cc RESIZE_BILINEAR: Int16 => 4; half_pixel_centers => 3; Int8 => 2 */
    EXPECT_V(4, LG_OP_RESIZE_BILINEAR, LG_OPTS_RESIZE_BILINEAR_OPTIONS, &b,
             LIST(T(LG_INT16, D4), TC(LG_INT32, LG_DIMS(2))), LIST(T(LG_INT16, D4)));
    b.half_pixel_centers = true;
    EXPECT_V(3, LG_OP_RESIZE_BILINEAR, LG_OPTS_RESIZE_BILINEAR_OPTIONS, &b,
             LIST(T(LG_FLOAT32, D4), TC(LG_INT32, LG_DIMS(2))), LIST(T(LG_FLOAT32, D4)));
    /* near miss: align_corners alone does not raise RESIZE_BILINEAR => 1 */
    b.half_pixel_centers = false;
    b.align_corners = true;
    EXPECT_V(1, LG_OP_RESIZE_BILINEAR, LG_OPTS_RESIZE_BILINEAR_OPTIONS, &b,
             LIST(T(LG_FLOAT32, D4), TC(LG_INT32, LG_DIMS(2))), LIST(T(LG_FLOAT32, D4)));
    EXPECT_V(2, LG_OP_RESIZE_BILINEAR, LG_OPTS_RESIZE_BILINEAR_OPTIONS, &b,
             LIST(T(LG_INT8, D4), TC(LG_INT32, LG_DIMS(2))), LIST(T(LG_INT8, D4)));
    /* RESIZE_NEAREST_NEIGHBOR: half_pixel_centers || align_corners => 3 */
    lg_resize_nearest_neighbor_options n = {.align_corners = true};
    EXPECT_V(3, LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS, &n,
             LIST(T(LG_FLOAT32, D4), TC(LG_INT32, LG_DIMS(2))), LIST(T(LG_FLOAT32, D4)));
    n.align_corners = false;
    n.half_pixel_centers = true;
    EXPECT_V(3, LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS, &n,
             LIST(T(LG_FLOAT32, D4), TC(LG_INT32, LG_DIMS(2))), LIST(T(LG_FLOAT32, D4)));
    n.half_pixel_centers = false;
    EXPECT_V(1, LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS, &n,
             LIST(T(LG_FLOAT32, D4), TC(LG_INT32, LG_DIMS(2))), LIST(T(LG_FLOAT32, D4)));
    EXPECT_V(4, LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS, &n,
             LIST(T(LG_INT16, D4), TC(LG_INT32, LG_DIMS(2))), LIST(T(LG_INT16, D4)));
    /* no options table => both flags false => 1 */
    EXPECT_V(1, LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_OPTS_NONE, NULL,
             LIST(T(LG_FLOAT32, D4), TC(LG_INT32, LG_DIMS(2))), LIST(T(LG_FLOAT32, D4)));
}

/* ------------------------------------------------------------------ quantize, dequantize */

LG_TEST(op_version_dequantize_quantize) {
    /* op_version.cc DEQUANTIZE: UInt4 => 8; Int2 => 7; Int4 => 6; Int16/Float16 => 3;
       Int8 => 5 if per-channel else 2 */
    EXPECT_V(8, LG_OP_DEQUANTIZE, LG_OPTS_NONE, NULL, LIST(TC(LG_UINT4, LG_DIMS(4, 2))),
             LIST(T(LG_FLOAT32, LG_DIMS(4, 2))));
    EXPECT_V(7, LG_OP_DEQUANTIZE, LG_OPTS_NONE, NULL, LIST(TC(LG_INT2, LG_DIMS(4, 4))),
             LIST(T(LG_FLOAT32, LG_DIMS(4, 4))));
    EXPECT_V(6, LG_OP_DEQUANTIZE, LG_OPTS_NONE, NULL, LIST(TC(LG_INT4, LG_DIMS(4, 2))),
             LIST(T(LG_FLOAT32, LG_DIMS(4, 2))));
    EXPECT_V(3, LG_OP_DEQUANTIZE, LG_OPTS_NONE, NULL, LIST(TC(LG_FLOAT16, LG_DIMS(4, 3))),
             LIST(T(LG_FLOAT32, LG_DIMS(4, 3))));
    EXPECT_V(3, LG_OP_DEQUANTIZE, LG_OPTS_NONE, NULL, LIST(T(LG_INT16, LG_DIMS(4, 3))),
             LIST(T(LG_FLOAT32, LG_DIMS(4, 3))));
    /* per-channel: > 1 scale and scale count == dim[quantized_dimension] */
    EXPECT_V(5, LG_OP_DEQUANTIZE, LG_OPTS_NONE, NULL, LIST(TCQ(LG_INT8, LG_DIMS(4, 3), 3, 1)),
             LIST(T(LG_FLOAT32, LG_DIMS(4, 3))));
    EXPECT_V(2, LG_OP_DEQUANTIZE, LG_OPTS_NONE, NULL, LIST(TCQ(LG_INT8, LG_DIMS(4, 3), 1, 0)),
             LIST(T(LG_FLOAT32, LG_DIMS(4, 3))));
    EXPECT_V(1, LG_OP_DEQUANTIZE, LG_OPTS_NONE, NULL, LIST(TQ(LG_UINT8, LG_DIMS(4, 3), 1, 0)),
             LIST(T(LG_FLOAT32, LG_DIMS(4, 3))));
    /* QUANTIZE: UInt4 either side => 5; Int4 => 4; per-channel output => 3; Int16 out => 2 */
    EXPECT_V(5, LG_OP_QUANTIZE, LG_OPTS_NONE, NULL, LIST(T(LG_FLOAT32, LG_DIMS(4, 2))),
             LIST(T(LG_UINT4, LG_DIMS(4, 2))));
    EXPECT_V(4, LG_OP_QUANTIZE, LG_OPTS_NONE, NULL, LIST(T(LG_FLOAT32, LG_DIMS(4, 2))),
             LIST(T(LG_INT4, LG_DIMS(4, 2))));
    EXPECT_V(3, LG_OP_QUANTIZE, LG_OPTS_NONE, NULL, LIST(T(LG_FLOAT32, LG_DIMS(4, 3))),
             LIST(TQ(LG_INT8, LG_DIMS(4, 3), 4, 0)));
    EXPECT_V(2, LG_OP_QUANTIZE, LG_OPTS_NONE, NULL, LIST(T(LG_FLOAT32, LG_DIMS(4, 3))),
             LIST(TQ(LG_INT16, LG_DIMS(4, 3), 1, 0)));
    EXPECT_V(1, LG_OP_QUANTIZE, LG_OPTS_NONE, NULL, LIST(T(LG_FLOAT32, LG_DIMS(4, 3))),
             LIST(TQ(LG_INT8, LG_DIMS(4, 3), 1, 0)));
}

/* ------------------------------------------------------------------ gathers, splits, packs */

LG_TEST(op_version_gather) {
    lg_gather_options o = {.axis = 0};
    /* op_version.cc GATHER: Int4 => 7; indices Int16 => 6; batch_dims != 0 => 5;
       Int16 => 4; Bool => 3; Int8 => 2 */
    EXPECT_V(7, LG_OP_GATHER, LG_OPTS_GATHER_OPTIONS, &o,
             LIST(TC(LG_INT4, LG_DIMS(4, 2)), T(LG_INT32, LG_DIMS(3))),
             LIST(T(LG_INT4, LG_DIMS(3, 2))));
    EXPECT_V(6, LG_OP_GATHER, LG_OPTS_GATHER_OPTIONS, &o,
             LIST(T(LG_FLOAT32, LG_DIMS(4, 2)), T(LG_INT16, LG_DIMS(3))),
             LIST(T(LG_FLOAT32, LG_DIMS(3, 2))));
    lg_gather_options ob = {.axis = 1, .batch_dims = 1};
    EXPECT_V(5, LG_OP_GATHER, LG_OPTS_GATHER_OPTIONS, &ob,
             LIST(T(LG_FLOAT32, LG_DIMS(4, 2)), T(LG_INT32, LG_DIMS(4, 1))),
             LIST(T(LG_FLOAT32, LG_DIMS(4, 1))));
    EXPECT_V(4, LG_OP_GATHER, LG_OPTS_GATHER_OPTIONS, &o,
             LIST(T(LG_INT16, LG_DIMS(4, 2)), T(LG_INT32, LG_DIMS(3))),
             LIST(T(LG_INT16, LG_DIMS(3, 2))));
    EXPECT_V(3, LG_OP_GATHER, LG_OPTS_GATHER_OPTIONS, &o,
             LIST(T(LG_BOOL, LG_DIMS(4, 2)), T(LG_INT32, LG_DIMS(3))),
             LIST(T(LG_BOOL, LG_DIMS(3, 2))));
    EXPECT_V(2, LG_OP_GATHER, LG_OPTS_GATHER_OPTIONS, &o,
             LIST(T(LG_INT8, LG_DIMS(4, 2)), T(LG_INT32, LG_DIMS(3))),
             LIST(T(LG_INT8, LG_DIMS(3, 2))));
    /* near miss: FLOAT32 data, INT64 indices, batch_dims 0 => 1 */
    EXPECT_V(1, LG_OP_GATHER, LG_OPTS_GATHER_OPTIONS, &o,
             LIST(T(LG_FLOAT32, LG_DIMS(4, 2)), T(LG_INT64, LG_DIMS(3))),
             LIST(T(LG_FLOAT32, LG_DIMS(3, 2))));
    /* GATHER_ND: Bool => 5; indices Int16 => 4; Int16 => 3; String => 2 */
    EXPECT_V(5, LG_OP_GATHER_ND, LG_OPTS_NONE, NULL,
             LIST(T(LG_BOOL, LG_DIMS(4, 2)), T(LG_INT32, LG_DIMS(3, 1))),
             LIST(T(LG_BOOL, LG_DIMS(3, 2))));
    EXPECT_V(4, LG_OP_GATHER_ND, LG_OPTS_NONE, NULL,
             LIST(T(LG_FLOAT32, LG_DIMS(4, 2)), T(LG_INT16, LG_DIMS(3, 1))),
             LIST(T(LG_FLOAT32, LG_DIMS(3, 2))));
    EXPECT_V(3, LG_OP_GATHER_ND, LG_OPTS_NONE, NULL,
             LIST(T(LG_INT16, LG_DIMS(4, 2)), T(LG_INT32, LG_DIMS(3, 1))),
             LIST(T(LG_INT16, LG_DIMS(3, 2))));
    EXPECT_V(2, LG_OP_GATHER_ND, LG_OPTS_NONE, NULL,
             LIST(T(LG_STRING, LG_DIMS(4, 2)), T(LG_INT32, LG_DIMS(3, 1))),
             LIST(T(LG_STRING, LG_DIMS(3, 2))));
    EXPECT_V(1, LG_OP_GATHER_ND, LG_OPTS_NONE, NULL,
             LIST(T(LG_INT8, LG_DIMS(4, 2)), T(LG_INT32, LG_DIMS(3, 1))),
             LIST(T(LG_INT8, LG_DIMS(3, 2))));
}

LG_TEST(op_version_split_pack) {
    lg_split_options so = {.num_splits = 2};
    /* op_version.cc SPLIT looks at input 1 (input 0 is the axis): Int16 => 4; Int32 => 3;
       Int8 => 2 */
    EXPECT_V(4, LG_OP_SPLIT, LG_OPTS_SPLIT_OPTIONS, &so,
             LIST(TC(LG_INT32, LG_SCALAR), T(LG_INT16, D4)),
             LIST(T(LG_INT16, LG_DIMS(1, 8, 8, 2)), T(LG_INT16, LG_DIMS(1, 8, 8, 2))));
    EXPECT_V(3, LG_OP_SPLIT, LG_OPTS_SPLIT_OPTIONS, &so,
             LIST(TC(LG_INT32, LG_SCALAR), T(LG_INT32, D4)),
             LIST(T(LG_INT32, LG_DIMS(1, 8, 8, 2)), T(LG_INT32, LG_DIMS(1, 8, 8, 2))));
    EXPECT_V(2, LG_OP_SPLIT, LG_OPTS_SPLIT_OPTIONS, &so,
             LIST(TC(LG_INT32, LG_SCALAR), T(LG_INT8, D4)),
             LIST(T(LG_INT8, LG_DIMS(1, 8, 8, 2)), T(LG_INT8, LG_DIMS(1, 8, 8, 2))));
    /* near miss: the INT32 axis (input 0) does not count => FLOAT32 data => 1 */
    EXPECT_V(1, LG_OP_SPLIT, LG_OPTS_SPLIT_OPTIONS, &so,
             LIST(TC(LG_INT32, LG_SCALAR), T(LG_FLOAT32, D4)),
             LIST(T(LG_FLOAT32, LG_DIMS(1, 8, 8, 2)), T(LG_FLOAT32, LG_DIMS(1, 8, 8, 2))));
    /* SPLIT_V looks at input 0: Int8 => 2 */
    lg_split_v_options sv = {.num_splits = 2};
    EXPECT_V(2, LG_OP_SPLIT_V, LG_OPTS_SPLIT_V_OPTIONS, &sv,
             LIST(T(LG_INT8, D4), TC(LG_INT32, LG_DIMS(2)), TC(LG_INT32, LG_SCALAR)),
             LIST(T(LG_INT8, LG_DIMS(1, 8, 8, 2)), T(LG_INT8, LG_DIMS(1, 8, 8, 2))));
    EXPECT_V(1, LG_OP_SPLIT_V, LG_OPTS_SPLIT_V_OPTIONS, &sv,
             LIST(T(LG_INT16, D4), TC(LG_INT32, LG_DIMS(2)), TC(LG_INT32, LG_SCALAR)),
             LIST(T(LG_INT16, LG_DIMS(1, 8, 8, 2)), T(LG_INT16, LG_DIMS(1, 8, 8, 2))));
    /* PACK: Int8 => 2; Int16 in and out => 3; UInt32 => 4 */
    lg_pack_options po = {.values_count = 2, .axis = 0};
    EXPECT_V(2, LG_OP_PACK, LG_OPTS_PACK_OPTIONS, &po, LIST(T(LG_INT8, D1), T(LG_INT8, D1)),
             LIST(T(LG_INT8, LG_DIMS(2, 4))));
    EXPECT_V(3, LG_OP_PACK, LG_OPTS_PACK_OPTIONS, &po, LIST(T(LG_INT16, D1), T(LG_INT16, D1)),
             LIST(T(LG_INT16, LG_DIMS(2, 4))));
    EXPECT_V(4, LG_OP_PACK, LG_OPTS_PACK_OPTIONS, &po, LIST(T(LG_UINT32, D1), T(LG_UINT32, D1)),
             LIST(T(LG_UINT32, LG_DIMS(2, 4))));
    EXPECT_V(1, LG_OP_PACK, LG_OPTS_PACK_OPTIONS, &po, LIST(T(LG_FLOAT32, D1), T(LG_FLOAT32, D1)),
             LIST(T(LG_FLOAT32, LG_DIMS(2, 4))));
    /* UNPACK: Int8/UInt8 => 2; Bool => 3; Int16 in and out => 4; Float16/BFloat16 => 5 */
    lg_unpack_options uo = {.num = 2, .axis = 0};
    EXPECT_V(2, LG_OP_UNPACK, LG_OPTS_UNPACK_OPTIONS, &uo, LIST(T(LG_UINT8, LG_DIMS(2, 4))),
             LIST(T(LG_UINT8, D1), T(LG_UINT8, D1)));
    EXPECT_V(3, LG_OP_UNPACK, LG_OPTS_UNPACK_OPTIONS, &uo, LIST(T(LG_BOOL, LG_DIMS(2, 4))),
             LIST(T(LG_BOOL, D1), T(LG_BOOL, D1)));
    EXPECT_V(4, LG_OP_UNPACK, LG_OPTS_UNPACK_OPTIONS, &uo, LIST(T(LG_INT16, LG_DIMS(2, 4))),
             LIST(T(LG_INT16, D1), T(LG_INT16, D1)));
    EXPECT_V(5, LG_OP_UNPACK, LG_OPTS_UNPACK_OPTIONS, &uo, LIST(T(LG_FLOAT16, LG_DIMS(2, 4))),
             LIST(T(LG_FLOAT16, D1), T(LG_FLOAT16, D1)));
    EXPECT_V(1, LG_OP_UNPACK, LG_OPTS_UNPACK_OPTIONS, &uo, LIST(T(LG_FLOAT32, LG_DIMS(2, 4))),
             LIST(T(LG_FLOAT32, D1), T(LG_FLOAT32, D1)));
}

LG_TEST(op_version_slice_tile_space) {
    /* op_version.cc SLICE: Float16 => 8; Int4 => 7; UInt32 => 6; dims > 4 => 5; Int16 => 4;
       String => 3; Int8 => 2 */
#define SL(t, d, n) LIST(T(t, d), TC(LG_INT32, LG_DIMS(n)), TC(LG_INT32, LG_DIMS(n))), LIST(T(t, d))
    EXPECT_V(8, LG_OP_SLICE, LG_OPTS_NONE, NULL, SL(LG_FLOAT16, D4, 4));
    EXPECT_V(7, LG_OP_SLICE, LG_OPTS_NONE, NULL, SL(LG_INT4, D4, 4));
    EXPECT_V(6, LG_OP_SLICE, LG_OPTS_NONE, NULL, SL(LG_UINT32, D4, 4));
    EXPECT_V(5, LG_OP_SLICE, LG_OPTS_NONE, NULL, SL(LG_FLOAT32, D5, 5));
    EXPECT_V(4, LG_OP_SLICE, LG_OPTS_NONE, NULL, SL(LG_INT16, D4, 4));
    EXPECT_V(3, LG_OP_SLICE, LG_OPTS_NONE, NULL, SL(LG_STRING, D4, 4));
    EXPECT_V(2, LG_OP_SLICE, LG_OPTS_NONE, NULL, SL(LG_INT8, D4, 4));
    EXPECT_V(1, LG_OP_SLICE, LG_OPTS_NONE, NULL, SL(LG_FLOAT32, D4, 4));
#undef SL
    /* TILE: Int8 => 3; String => 2 */
    EXPECT_V(3, LG_OP_TILE, LG_OPTS_NONE, NULL, LIST(T(LG_INT8, D4), TC(LG_INT32, D1)),
             LIST(T(LG_INT8, D4)));
    EXPECT_V(2, LG_OP_TILE, LG_OPTS_NONE, NULL, LIST(T(LG_STRING, D4), TC(LG_INT32, D1)),
             LIST(T(LG_STRING, D4)));
    EXPECT_V(1, LG_OP_TILE, LG_OPTS_NONE, NULL, LIST(T(LG_FLOAT32, D4), TC(LG_INT32, D1)),
             LIST(T(LG_FLOAT32, D4)));
    /* DEPTH_TO_SPACE / SPACE_TO_DEPTH: Int8 => 2 */
    lg_depth_to_space_options d2s = {.block_size = 2};
    EXPECT_V(2, LG_OP_DEPTH_TO_SPACE, LG_OPTS_DEPTH_TO_SPACE_OPTIONS, &d2s, LIST(T(LG_INT8, D4)),
             LIST(T(LG_INT8, LG_DIMS(1, 16, 16, 1))));
    EXPECT_V(1, LG_OP_DEPTH_TO_SPACE, LG_OPTS_DEPTH_TO_SPACE_OPTIONS, &d2s,
             LIST(T(LG_FLOAT32, D4)), LIST(T(LG_FLOAT32, LG_DIMS(1, 16, 16, 1))));
    lg_space_to_depth_options s2d = {.block_size = 2};
    EXPECT_V(2, LG_OP_SPACE_TO_DEPTH, LG_OPTS_SPACE_TO_DEPTH_OPTIONS, &s2d, LIST(T(LG_INT8, D4)),
             LIST(T(LG_INT8, LG_DIMS(1, 4, 4, 16))));
    /* SPACE_TO_BATCH_ND: Int16 => 4; dims != 4 => 3; Int8 => 2 */
    EXPECT_V(3, LG_OP_SPACE_TO_BATCH_ND, LG_OPTS_NONE, NULL,
             LIST(T(LG_FLOAT32, LG_DIMS(1, 8, 4)), TC(LG_INT32, LG_DIMS(1)),
                  TC(LG_INT32, LG_DIMS(1, 2))),
             LIST(T(LG_FLOAT32, LG_DIMS(2, 4, 4))));
    EXPECT_V(1, LG_OP_SPACE_TO_BATCH_ND, LG_OPTS_NONE, NULL,
             LIST(T(LG_FLOAT32, D4), TC(LG_INT32, LG_DIMS(2)), TC(LG_INT32, LG_DIMS(2, 2))),
             LIST(T(LG_FLOAT32, LG_DIMS(4, 4, 4, 4))));
}

/* ------------------------------------------------------------------ elementwise unary */

LG_TEST(op_version_unary) {
    /* op_version.cc LOGISTIC/TANH: Int16 in and out => 3; Int8 => 2 */
    EXPECT_U(3, LG_OP_LOGISTIC, LG_INT16, LG_INT16, D4);
    EXPECT_U(2, LG_OP_TANH, LG_INT8, LG_INT8, D4);
    EXPECT_U(1, LG_OP_LOGISTIC, LG_FLOAT16, LG_FLOAT16, D4);
    /* RELU: Int16 => 3; Int8/UInt8 => 2. RELU6: Int16 => 3; Int8 => 2 (UInt8 => 1) */
    EXPECT_U(3, LG_OP_RELU, LG_INT16, LG_INT16, D4);
    EXPECT_U(2, LG_OP_RELU, LG_UINT8, LG_UINT8, D4);
    EXPECT_U(3, LG_OP_RELU6, LG_INT16, LG_INT16, D4);
    EXPECT_U(1, LG_OP_RELU6, LG_UINT8, LG_UINT8, D4);
    /* LEAKY_RELU: Int16 => 2 (Int8 => 1) */
    lg_leaky_relu_options lr = {.alpha = 0.2f};
    EXPECT_V(2, LG_OP_LEAKY_RELU, LG_OPTS_LEAKY_RELU_OPTIONS, &lr, LIST(T(LG_INT16, D4)),
             LIST(T(LG_INT16, D4)));
    EXPECT_V(1, LG_OP_LEAKY_RELU, LG_OPTS_LEAKY_RELU_OPTIONS, &lr, LIST(T(LG_INT8, D4)),
             LIST(T(LG_INT8, D4)));
    /* ABS: Int32 => 5; Int16 => 3 if quantized else 4; Int8/UInt8 => 2 */
    EXPECT_U(5, LG_OP_ABS, LG_INT32, LG_INT32, D4);
    EXPECT_U(4, LG_OP_ABS, LG_INT16, LG_INT16, D4);
    EXPECT_V(3, LG_OP_ABS, LG_OPTS_NONE, NULL, LIST(TQ(LG_INT16, D4, 1, 0)),
             LIST(TQ(LG_INT16, D4, 1, 0)));
    EXPECT_U(2, LG_OP_ABS, LG_UINT8, LG_UINT8, D4);
    EXPECT_U(1, LG_OP_ABS, LG_FLOAT32, LG_FLOAT32, D4);
    /* EXP, LOG, SQRT: Int8 or Int16 => 2; RSQRT: Int16 => 3, Int8 => 2 */
    EXPECT_U(2, LG_OP_EXP, LG_INT16, LG_INT16, D4);
    EXPECT_U(2, LG_OP_LOG, LG_INT8, LG_INT8, D4);
    EXPECT_U(2, LG_OP_SQRT, LG_INT8, LG_INT8, D4);
    EXPECT_U(1, LG_OP_SQRT, LG_FLOAT16, LG_FLOAT16, D4);
    EXPECT_U(3, LG_OP_RSQRT, LG_INT16, LG_INT16, D4);
    EXPECT_U(2, LG_OP_RSQRT, LG_INT8, LG_INT8, D4);
    /* SIN, COS: Float16 => 2 */
    EXPECT_U(2, LG_OP_SIN, LG_FLOAT16, LG_FLOAT16, D4);
    EXPECT_U(2, LG_OP_COS, LG_FLOAT16, LG_FLOAT16, D4);
    EXPECT_U(1, LG_OP_COS, LG_FLOAT32, LG_FLOAT32, D4);
    /* GELU: Int8/UInt8 => 2 */
    EXPECT_U(2, LG_OP_GELU, LG_UINT8, LG_UINT8, D4);
    EXPECT_U(1, LG_OP_GELU, LG_FLOAT16, LG_FLOAT16, D4);
    /* SIGN: Int32 => 2 */
    EXPECT_U(2, LG_OP_SIGN, LG_INT32, LG_INT32, D4);
    /* not in op_version.cc => always 1, whatever the type */
    EXPECT_U(1, LG_OP_HARD_SWISH, LG_INT8, LG_INT8, D4);
    EXPECT_U(1, LG_OP_NEG, LG_INT16, LG_INT16, D4);
    EXPECT_U(1, LG_OP_SQUARE, LG_FLOAT16, LG_FLOAT16, D4);
    EXPECT_U(1, LG_OP_ELU, LG_INT8, LG_INT8, D4);
    EXPECT_U(1, LG_OP_RELU_N1_TO_1, LG_INT8, LG_INT8, D4);
    EXPECT_V(1, LG_OP_RESHAPE, LG_OPTS_NONE, NULL,
             LIST(T(LG_FLOAT16, D4), TC(LG_INT32, LG_DIMS(2))),
             LIST(T(LG_FLOAT16, LG_DIMS(8, 32))));
    EXPECT_V(1, LG_OP_PRELU, LG_OPTS_NONE, NULL, LIST(T(LG_INT8, D4), TC(LG_INT8, LG_DIMS(4))),
             LIST(T(LG_INT8, D4)));
}

LG_TEST(op_version_cast) {
    /* op_version.cc CAST, first match wins: Int2/UInt4 either side => 8; BFloat16 => 7;
       Int4 -> Float32 => 6; Float64/Float16 either side => 5; UInt16 => 4; Int8 => 3;
       UInt32 => 2 */
    EXPECT_U(8, LG_OP_CAST, LG_INT2, LG_FLOAT32, D4);
    EXPECT_U(8, LG_OP_CAST, LG_FLOAT32, LG_UINT4, D4);
    EXPECT_U(7, LG_OP_CAST, LG_BFLOAT16, LG_FLOAT16, D4);
    EXPECT_U(6, LG_OP_CAST, LG_INT4, LG_FLOAT32, D4);
    EXPECT_U(5, LG_OP_CAST, LG_FLOAT32, LG_FLOAT16, D4);
    EXPECT_U(5, LG_OP_CAST, LG_FLOAT64, LG_INT8, D4);
    EXPECT_U(4, LG_OP_CAST, LG_UINT16, LG_INT32, D4);
    EXPECT_U(3, LG_OP_CAST, LG_BOOL, LG_INT8, D4);
    EXPECT_U(2, LG_OP_CAST, LG_UINT32, LG_INT32, D4);
    /* near misses: the GPU-friendly casts stay 1 */
    EXPECT_U(1, LG_OP_CAST, LG_FLOAT32, LG_INT32, D4);
    EXPECT_U(1, LG_OP_CAST, LG_BOOL, LG_FLOAT32, D4);
    EXPECT_U(1, LG_OP_CAST, LG_INT4, LG_INT32, D4); /* Int4 -> not Float32 */
}

/* ------------------------------------------------------------------ select, compare, misc */

LG_TEST(op_version_select_compare) {
    /* op_version.cc SELECT: input 0 UInt32 => 4; any of inputs 0-2 of rank 5 => 3;
       input 0 Int8 => 2 */
    EXPECT_V(3, LG_OP_SELECT, LG_OPTS_SELECT_OPTIONS, NULL,
             LIST(T(LG_BOOL, D5), T(LG_FLOAT32, D5), T(LG_FLOAT32, D5)), LIST(T(LG_FLOAT32, D5)));
    EXPECT_V(1, LG_OP_SELECT, LG_OPTS_SELECT_OPTIONS, NULL,
             LIST(T(LG_BOOL, D4), T(LG_FLOAT32, D4), T(LG_FLOAT32, D4)), LIST(T(LG_FLOAT32, D4)));
    /* input 0 is the condition: INT8 values with a BOOL condition stay 1 */
    EXPECT_V(1, LG_OP_SELECT, LG_OPTS_SELECT_OPTIONS, NULL,
             LIST(T(LG_BOOL, D4), T(LG_INT8, D4), T(LG_INT8, D4)), LIST(T(LG_INT8, D4)));
    EXPECT_V(4, LG_OP_SELECT, LG_OPTS_SELECT_OPTIONS, NULL,
             LIST(T(LG_UINT32, D4), T(LG_UINT32, D4), T(LG_UINT32, D4)), LIST(T(LG_UINT32, D4)));
    /* SELECT_V2: only input 0 UInt32 => 2; rank 5 does not count */
    EXPECT_V(1, LG_OP_SELECT_V2, LG_OPTS_SELECT_V2_OPTIONS, NULL,
             LIST(T(LG_BOOL, D5), T(LG_FLOAT32, D5), T(LG_FLOAT32, D5)), LIST(T(LG_FLOAT32, D5)));
    EXPECT_V(2, LG_OP_SELECT_V2, LG_OPTS_SELECT_V2_OPTIONS, NULL,
             LIST(T(LG_UINT32, D4), T(LG_UINT32, D4), T(LG_UINT32, D4)), LIST(T(LG_UINT32, D4)));
    /* EQUAL: Int16 => 5; String => 3; Int8 => 2. NOT_EQUAL: Int16 => 4 */
    EXPECT_V(5, LG_OP_EQUAL, LG_OPTS_NONE, NULL, LIST(T(LG_INT16, D4), T(LG_INT16, D4)),
             LIST(T(LG_BOOL, D4)));
    EXPECT_V(3, LG_OP_EQUAL, LG_OPTS_NONE, NULL, LIST(T(LG_STRING, D4), T(LG_STRING, D4)),
             LIST(T(LG_BOOL, D4)));
    EXPECT_V(2, LG_OP_EQUAL, LG_OPTS_NONE, NULL, LIST(T(LG_INT8, D4), T(LG_INT8, D4)),
             LIST(T(LG_BOOL, D4)));
    EXPECT_V(4, LG_OP_NOT_EQUAL, LG_OPTS_NONE, NULL, LIST(T(LG_INT16, D4), T(LG_INT16, D4)),
             LIST(T(LG_BOOL, D4)));
    EXPECT_V(1, LG_OP_NOT_EQUAL, LG_OPTS_NONE, NULL, LIST(T(LG_FLOAT32, D4), T(LG_FLOAT32, D4)),
             LIST(T(LG_BOOL, D4)));
    /* LESS, GREATER_EQUAL: Int16 => 3, Int8 => 2. GREATER, LESS_EQUAL: only Int8 => 2 */
    EXPECT_V(3, LG_OP_LESS, LG_OPTS_NONE, NULL, LIST(T(LG_INT16, D4), T(LG_INT16, D4)),
             LIST(T(LG_BOOL, D4)));
    EXPECT_V(3, LG_OP_GREATER_EQUAL, LG_OPTS_NONE, NULL, LIST(T(LG_INT16, D4), T(LG_INT16, D4)),
             LIST(T(LG_BOOL, D4)));
    EXPECT_V(1, LG_OP_GREATER, LG_OPTS_NONE, NULL, LIST(T(LG_INT16, D4), T(LG_INT16, D4)),
             LIST(T(LG_BOOL, D4)));
    EXPECT_V(2, LG_OP_LESS_EQUAL, LG_OPTS_NONE, NULL, LIST(T(LG_INT8, D4), T(LG_INT8, D4)),
             LIST(T(LG_BOOL, D4)));
    /* SQUARED_DIFFERENCE: Int8 => 2; FLOOR_DIV: Int8/Int16 => 3, Float32 => 2;
       FLOOR_MOD: Int8/Int16 => 2 */
    EXPECT_V(2, LG_OP_SQUARED_DIFFERENCE, LG_OPTS_NONE, NULL,
             LIST(T(LG_INT8, D4), T(LG_INT8, D4)), LIST(T(LG_INT8, D4)));
    EXPECT_V(3, LG_OP_FLOOR_DIV, LG_OPTS_NONE, NULL, LIST(T(LG_INT16, D4), T(LG_INT16, D4)),
             LIST(T(LG_INT16, D4)));
    EXPECT_V(2, LG_OP_FLOOR_DIV, LG_OPTS_NONE, NULL, LIST(T(LG_FLOAT32, D4), T(LG_FLOAT32, D4)),
             LIST(T(LG_FLOAT32, D4)));
    EXPECT_V(1, LG_OP_FLOOR_DIV, LG_OPTS_NONE, NULL, LIST(T(LG_INT32, D4), T(LG_INT32, D4)),
             LIST(T(LG_INT32, D4)));
    EXPECT_V(2, LG_OP_FLOOR_MOD, LG_OPTS_NONE, NULL, LIST(T(LG_INT8, D4), T(LG_INT8, D4)),
             LIST(T(LG_INT8, D4)));
    EXPECT_V(1, LG_OP_FLOOR_MOD, LG_OPTS_NONE, NULL, LIST(T(LG_FLOAT32, D4), T(LG_FLOAT32, D4)),
             LIST(T(LG_FLOAT32, D4)));
    /* POW: not in op_version.cc => 1 */
    EXPECT_V(1, LG_OP_POW, LG_OPTS_NONE, NULL, LIST(T(LG_INT32, D4), T(LG_INT32, D4)),
             LIST(T(LG_INT32, D4)));
}

LG_TEST(op_version_matmul_argmax_topk) {
    lg_batch_mat_mul_options o = {0};
    /* op_version.cc BATCH_MATMUL: Int16 => 3; Int8 => 2; hybrid && asymmetric => 4 */
    EXPECT_V(3, LG_OP_BATCH_MATMUL, LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o,
             LIST(T(LG_INT16, LG_DIMS(1, 4, 8)), TC(LG_INT8, LG_DIMS(8, 4))),
             LIST(T(LG_INT16, LG_DIMS(1, 4, 4))));
    EXPECT_V(2, LG_OP_BATCH_MATMUL, LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o,
             LIST(T(LG_INT8, LG_DIMS(1, 4, 8)), TC(LG_INT8, LG_DIMS(8, 4))),
             LIST(T(LG_INT8, LG_DIMS(1, 4, 4))));
    EXPECT_V(1, LG_OP_BATCH_MATMUL, LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o,
             LIST(T(LG_FLOAT32, LG_DIMS(1, 4, 8)), TC(LG_INT8, LG_DIMS(8, 4))),
             LIST(T(LG_FLOAT32, LG_DIMS(1, 4, 4))));
    o.asymmetric_quantize_inputs = true;
    EXPECT_V(4, LG_OP_BATCH_MATMUL, LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o,
             LIST(T(LG_FLOAT32, LG_DIMS(1, 4, 8)), TC(LG_INT8, LG_DIMS(8, 4))),
             LIST(T(LG_FLOAT32, LG_DIMS(1, 4, 4))));
    /* ARG_MAX: Bool => 3; Int8 => 2 */
    lg_arg_max_options am = {.output_type = LG_INT32};
    EXPECT_V(3, LG_OP_ARG_MAX, LG_OPTS_ARG_MAX_OPTIONS, &am,
             LIST(T(LG_BOOL, D4), TC(LG_INT32, LG_SCALAR)), LIST(T(LG_INT32, LG_DIMS(1, 8, 8))));
    EXPECT_V(2, LG_OP_ARG_MAX, LG_OPTS_ARG_MAX_OPTIONS, &am,
             LIST(T(LG_INT8, D4), TC(LG_INT32, LG_SCALAR)), LIST(T(LG_INT32, LG_DIMS(1, 8, 8))));
    EXPECT_V(1, LG_OP_ARG_MAX, LG_OPTS_ARG_MAX_OPTIONS, &am,
             LIST(T(LG_FLOAT32, D4), TC(LG_INT32, LG_SCALAR)), LIST(T(LG_INT32, LG_DIMS(1, 8, 8))));
    /* TOPK_V2: Int16 input 0, input 1 or output 1 => 3; Int8 => 2 */
    EXPECT_V(3, LG_OP_TOPK_V2, LG_OPTS_NONE, NULL,
             LIST(T(LG_FLOAT32, LG_DIMS(1, 8)), TC(LG_INT32, LG_SCALAR)),
             LIST(T(LG_FLOAT32, LG_DIMS(1, 2)), T(LG_INT16, LG_DIMS(1, 2))));
    EXPECT_V(2, LG_OP_TOPK_V2, LG_OPTS_NONE, NULL,
             LIST(T(LG_INT8, LG_DIMS(1, 8)), TC(LG_INT32, LG_SCALAR)),
             LIST(T(LG_INT8, LG_DIMS(1, 2)), T(LG_INT32, LG_DIMS(1, 2))));
    EXPECT_V(1, LG_OP_TOPK_V2, LG_OPTS_NONE, NULL,
             LIST(T(LG_FLOAT32, LG_DIMS(1, 8)), TC(LG_INT32, LG_SCALAR)),
             LIST(T(LG_FLOAT32, LG_DIMS(1, 2)), T(LG_INT32, LG_DIMS(1, 2))));
    /* CUMSUM, ONE_HOT: not in op_version.cc => 1 */
    EXPECT_V(1, LG_OP_CUMSUM, LG_OPTS_CUMSUM_OPTIONS, NULL,
             LIST(T(LG_FLOAT16, D4), TC(LG_INT32, LG_SCALAR)), LIST(T(LG_FLOAT16, D4)));
    EXPECT_V(1, LG_OP_ONE_HOT, LG_OPTS_ONE_HOT_OPTIONS, NULL,
             LIST(T(LG_INT32, LG_DIMS(4)), TC(LG_INT32, LG_SCALAR), TC(LG_FLOAT32, LG_SCALAR),
                  TC(LG_FLOAT32, LG_SCALAR)),
             LIST(T(LG_FLOAT32, LG_DIMS(4, 8))));
}

LG_TEST(op_version_embedding_lstm_broadcast) {
    /* op_version.cc EMBEDDING_LOOKUP: table (input 1) Int4 or per-channel => 4; Int2 => 5 */
    EXPECT_V(4, LG_OP_EMBEDDING_LOOKUP, LG_OPTS_NONE, NULL,
             LIST(T(LG_INT32, LG_DIMS(3)), TC(LG_INT4, LG_DIMS(10, 4))),
             LIST(T(LG_FLOAT32, LG_DIMS(3, 4))));
    /* op_signature.cc: per-channel = > 1 scale and scale count == table dim 0 */
    EXPECT_V(4, LG_OP_EMBEDDING_LOOKUP, LG_OPTS_NONE, NULL,
             LIST(T(LG_INT32, LG_DIMS(3)), TCQ(LG_INT8, LG_DIMS(10, 4), 10, 0)),
             LIST(T(LG_FLOAT32, LG_DIMS(3, 4))));
    EXPECT_V(1, LG_OP_EMBEDDING_LOOKUP, LG_OPTS_NONE, NULL,
             LIST(T(LG_INT32, LG_DIMS(3)), TCQ(LG_INT8, LG_DIMS(10, 4), 4, 1)),
             LIST(T(LG_FLOAT32, LG_DIMS(3, 4))));
    EXPECT_V(5, LG_OP_EMBEDDING_LOOKUP, LG_OPTS_NONE, NULL,
             LIST(T(LG_INT32, LG_DIMS(3)), TC(LG_INT2, LG_DIMS(10, 4))),
             LIST(T(LG_FLOAT32, LG_DIMS(3, 4))));
    /* LSTM (24 inputs, weights from input 2): BASIC kernel => 2; hybrid full kernel => 3,
       asymmetric => 4; Int16 x Int8 => 5 */
    tspec lin[24];
    static const int32_t d44[2] = {4, 4}; /* outlives the loop, unlike a compound literal */
    for (int i = 0; i < 24; i++) lin[i] = TC(LG_FLOAT32, ((lg_dims){d44, 2}));
    lin[0] = T(LG_FLOAT32, LG_DIMS(1, 4));
    lg_lstm_options lo = {.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_TANH};
    tspec lout[1] = {T(LG_FLOAT32, LG_DIMS(1, 4))};
    char why[256];
    CHECK_EQ_INT(run(why, sizeof why, LG_OP_LSTM, LG_OPTS_LSTM_OPTIONS, &lo, lin, 24, lout, 1), 1);
    lin[2] = TC(LG_INT8, LG_DIMS(4, 4));
    CHECK_EQ_INT(run(why, sizeof why, LG_OP_LSTM, LG_OPTS_LSTM_OPTIONS, &lo, lin, 24, lout, 1), 3);
    lo.asymmetric_quantize_inputs = true;
    CHECK_EQ_INT(run(why, sizeof why, LG_OP_LSTM, LG_OPTS_LSTM_OPTIONS, &lo, lin, 24, lout, 1), 4);
    lin[0] = T(LG_INT16, LG_DIMS(1, 4));
    lout[0] = T(LG_INT16, LG_DIMS(1, 4));
    CHECK_EQ_INT(run(why, sizeof why, LG_OP_LSTM, LG_OPTS_LSTM_OPTIONS, &lo, lin, 24, lout, 1), 5);
    lg_lstm_options basic = {.kernel_type = LG_LSTM_KERNEL_TYPE_BASIC};
    tspec bin[5] = {T(LG_FLOAT32, LG_DIMS(1, 4)), T(LG_FLOAT32, LG_DIMS(1, 4)),
                    T(LG_FLOAT32, LG_DIMS(1, 4)), TC(LG_FLOAT32, LG_DIMS(16, 8)),
                    TC(LG_FLOAT32, LG_DIMS(16))};
    tspec bout[4] = {T(LG_FLOAT32, LG_DIMS(1, 4)), T(LG_FLOAT32, LG_DIMS(1, 4)),
                     T(LG_FLOAT32, LG_DIMS(1, 4)), T(LG_FLOAT32, LG_DIMS(1, 16))};
    CHECK_EQ_INT(run(why, sizeof why, LG_OP_LSTM, LG_OPTS_LSTM_OPTIONS, &basic,
                 bin, 5, bout, 4), 2);
    /* BROADCAST_TO: base 2 (version 1 was rolled back); Int8/Int16 => 3 */
    EXPECT_V(2, LG_OP_BROADCAST_TO, LG_OPTS_NONE, NULL,
             LIST(T(LG_FLOAT32, LG_DIMS(1, 4)), TC(LG_INT32, LG_DIMS(2))),
             LIST(T(LG_FLOAT32, LG_DIMS(3, 4))));
    EXPECT_V(3, LG_OP_BROADCAST_TO, LG_OPTS_NONE, NULL,
             LIST(T(LG_INT8, LG_DIMS(1, 4)), TC(LG_INT32, LG_DIMS(2))),
             LIST(T(LG_INT8, LG_DIMS(3, 4))));
    /* REVERSE_V2: Int8 => 3; Bool => 2 */
    EXPECT_V(3, LG_OP_REVERSE_V2, LG_OPTS_NONE, NULL,
             LIST(T(LG_INT8, D4), TC(LG_INT32, LG_DIMS(1))),
             LIST(T(LG_INT8, D4)));
    EXPECT_V(2, LG_OP_REVERSE_V2, LG_OPTS_NONE, NULL,
             LIST(T(LG_BOOL, D4), TC(LG_INT32, LG_DIMS(1))),
             LIST(T(LG_BOOL, D4)));
    EXPECT_V(1, LG_OP_REVERSE_V2, LG_OPTS_NONE, NULL,
             LIST(T(LG_FLOAT32, D4), TC(LG_INT32, LG_DIMS(1))), LIST(T(LG_FLOAT32, D4)));
}

/* ------------------------------------------------------------------ API edges */

LG_TEST(op_version_api_edges) {
    /* custom ops are not versioned by the converter => 1 */
    lg_model *m = NULL;
    lg_error e;
    if (lg_model_new(NULL, NULL, &m, &e) != LG_OK) {
        CHECK(0);
        return;
    }
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT16, D4);
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT16, D4);
    lg_b_custom(&b, "MyOp", LG_IDS(x), LG_IDS(y), NULL, 0);
    lg_b_op_opts(&b, LG_OP_SOFTMAX, LG_IDS(x), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, NULL);
    CHECK(b.status == LG_OK);
    if (b.status == LG_OK) {
        const lg_subgraph *sg = &m->subgraphs[0];
        char why[64];
        CHECK_EQ_INT(lgi_op_version(m, sg, &sg->ops[0]), 1);
        CHECK_EQ_INT(lgi_op_version(m, sg, &sg->ops[1]), 4);
        /* no buffer is fine */
        CHECK_EQ_INT(lgi_op_version_reason(m, sg, &sg->ops[1], NULL, 0), 4);
        /* a short buffer is truncated and terminated */
        CHECK_EQ_INT(lgi_op_version_reason(m, sg, &sg->ops[1], why, 8), 4);
        CHECK_STR(why, "version");
        /* a bad opcode index => 1 */
        lg_op bad = sg->ops[1];
        bad.opcode_index = 999;
        CHECK_EQ_INT(lgi_op_version_reason(m, sg, &bad, why, sizeof why), 1);
        /* an input index out of range reads as no tensor (no type) */
        int32_t ins[1] = {12345};
        bad = sg->ops[1];
        bad.inputs = ins;
        CHECK_EQ_INT(lgi_op_version(m, sg, &bad), 1);
    }
    lg_model_free(m);
}
