/* lg_info on small builder-made models; expected numbers derived by hand in comments. */
#include "lg/info.h"
#include "lg/lg.h"
#include "tf.h"

static const lg_info_count *find_count(const lg_info_count *c, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(c[i].name, name) == 0) return &c[i];
    return NULL;
}

static const lg_info_dtype_bytes *find_dtype(const lg_info *in, lg_dtype t) {
    for (uint32_t i = 0; i < in->weights.n_by_dtype; i++)
        if (in->weights.by_dtype[i].dtype == (int8_t)t) return &in->weights.by_dtype[i];
    return NULL;
}

/* x[1,8,8,3] (batch dynamic) -> DEQUANTIZE(w16) ; CONV_2D ; RELU ; RELU ; MyOp ; MyOp ;
   Other ; RESHAPE -> out[1,256]. */
static lg_model *conv_model(lg_error *err) {
    lg_model *m = NULL;
    if (lg_model_new(NULL, NULL, &m, err) != LG_OK) return NULL;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    uint16_t w16[4 * 3 * 3 * 3];
    memset(w16, 0, sizeof w16);
    float bias[4] = {0, 1, 2, 3};
    int32_t shp[2] = {1, 256};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 3));
    int wq = lg_b_const(&b, "w16", LG_FLOAT16, LG_DIMS(4, 3, 3, 3), w16, sizeof w16); /* 216 B */
    int w = lg_b_tensor(&b, "w", LG_FLOAT32, LG_DIMS(4, 3, 3, 3));
    int bi = lg_b_const_f32(&b, "bias", LG_DIMS(4), bias);                            /* 16 B */
    int sh = lg_b_const_i32(&b, "shape", LG_DIMS(2), shp);                            /* 8 B */
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y2 = lg_b_tensor(&b, "y2", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y3 = lg_b_tensor(&b, "y3", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int z2 = lg_b_tensor(&b, "z2", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int z3 = lg_b_tensor(&b, "z3", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(1, 256));
    lg_b_op(&b, LG_OP_DEQUANTIZE, LG_IDS(wq), LG_IDS(w));
    lg_b_op(&b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(y), LG_IDS(y2));
    lg_b_op_v(&b, LG_OP_RELU, 2, LG_IDS(y2), LG_IDS(y3), LG_OPTS_NONE, NULL); /* 2nd opcode */
    lg_b_custom(&b, "MyOp", LG_IDS(y3), LG_IDS(z), NULL, 0);
    lg_b_custom(&b, "MyOp", LG_IDS(z), LG_IDS(z2), NULL, 0);
    lg_b_custom(&b, "Other", LG_IDS(z2), LG_IDS(z3), NULL, 0);
    lg_b_op(&b, LG_OP_RESHAPE, LG_IDS(z3, sh), LG_IDS(out));
    lg_b_io(&b, LG_IDS(x), LG_IDS(out));
    if (b.status != LG_OK) {
        *err = b.err;
        lg_model_free(m);
        return NULL;
    }
    const int32_t sig[4] = {-1, 8, 8, 3};
    if (lg_tensor_set_shape_signature(m, 0, (uint32_t)x, sig, 4, err) != LG_OK) {
        lg_model_free(m);
        return NULL;
    }
    return m;
}

LG_TEST(info_census_weights_io) {
    lg_error err;
    lg_model *m = conv_model(&err);
    CHECK(m != NULL);
    if (!m) { tf_fail(__FILE__, __LINE__, "%s", err.msg); return; }
    lg_info *in = NULL;
    CHECK_OK(lg_info_compute(m, NULL, 1234, &in, &err), &err);
    lg_model_free(m); /* the result must not depend on the model */
    if (!in) return;

    CHECK_EQ_INT(in->file_size, 1234);
    CHECK(!in->has_sha256);
    CHECK_STR(in->sha256_hex, "");
    CHECK_EQ_INT(in->schema_version, 3);
    CHECK_EQ_INT(in->n_subgraphs, 1);
    const lg_info_subgraph *sg = &in->subgraphs[0];
    CHECK_STR(sg->name, "main");
    CHECK_EQ_INT(sg->n_ops, 8);
    CHECK_EQ_INT(sg->n_tensors, 12);
    CHECK_EQ_INT(sg->max_rank, 4);

    /* census: CUSTOM 3, RELU 2 (two opcodes, v1 and v2, merged), then the 1s by name */
    CHECK_EQ_INT(sg->n_ops_census, 5);
    if (sg->n_ops_census == 5) {
        CHECK_STR(sg->ops[0].name, "CUSTOM");
        CHECK_EQ_INT(sg->ops[0].count, 3);
        CHECK_EQ_INT(sg->ops[0].builtin, LG_OP_CUSTOM);
        CHECK_STR(sg->ops[1].name, "RELU");
        CHECK_EQ_INT(sg->ops[1].count, 2);
        CHECK_STR(sg->ops[2].name, "CONV_2D");
        CHECK_STR(sg->ops[3].name, "DEQUANTIZE");
        CHECK_STR(sg->ops[4].name, "RESHAPE");
        CHECK_EQ_INT(sg->ops[4].count, 1);
        CHECK_EQ_INT(sg->ops[4].builtin, LG_OP_RESHAPE);
    }
    uint32_t total = 0;
    for (uint32_t i = 0; i < sg->n_ops_census; i++) total += sg->ops[i].count;
    CHECK_EQ_INT(total, 8);
    CHECK_EQ_INT(sg->n_custom_ops, 2);
    if (sg->n_custom_ops == 2) {
        CHECK_STR(sg->custom_ops[0].name, "MyOp");
        CHECK_EQ_INT(sg->custom_ops[0].count, 2);
        CHECK_STR(sg->custom_ops[1].name, "Other");
        CHECK_EQ_INT(sg->custom_ops[1].count, 1);
    }

    /* inputs/outputs; the batch dim is dynamic through shape_signature */
    CHECK_EQ_INT(sg->n_inputs, 1);
    CHECK_EQ_INT(sg->n_outputs, 1);
    if (sg->n_inputs == 1) {
        const lg_info_io *io = &sg->inputs[0];
        CHECK_STR(io->name, "x");
        CHECK_EQ_INT(io->tensor, 0);
        CHECK_EQ_INT(io->dtype, LG_FLOAT32);
        CHECK_EQ_INT(io->rank, 4);
        CHECK_EQ_INT(io->shape[1], 8);
        CHECK_EQ_INT(io->n_shape_signature, 4);
        CHECK(io->shape_signature && io->shape_signature[0] == -1);
        CHECK_EQ_INT(io->n_dynamic, 1);
    }
    if (sg->n_outputs == 1) {
        const lg_info_io *io = &sg->outputs[0];
        CHECK_STR(io->name, "out");
        CHECK_EQ_INT(io->rank, 2);
        CHECK_EQ_INT(io->shape[1], 256);
        CHECK(io->shape_signature == NULL);
        CHECK_EQ_INT(io->n_dynamic, 0);
    }

    /* weights: FLOAT16 4*3*3*3 = 108 params, 216 B; FLOAT32 bias 4 params, 16 B;
       INT32 shape 2 params, 8 B. Totals 114 params, 240 B, 3 buffers. Ascending dtype:
       FLOAT32 (0), FLOAT16 (1), INT32 (2). */
    CHECK_EQ_INT(in->weights.params, 114);
    CHECK_EQ_INT(in->weights.bytes, 240);
    CHECK_EQ_INT(in->weights.n_buffers, 3);
    CHECK_EQ_INT(in->weights.n_by_dtype, 3);
    if (in->weights.n_by_dtype == 3) {
        CHECK_EQ_INT(in->weights.by_dtype[0].dtype, LG_FLOAT32);
        CHECK_EQ_INT(in->weights.by_dtype[1].dtype, LG_FLOAT16);
        CHECK_EQ_INT(in->weights.by_dtype[2].dtype, LG_INT32);
    }
    const lg_info_dtype_bytes *d = find_dtype(in, LG_FLOAT16);
    CHECK(d && d->bytes == 216 && d->params == 108 && d->n_buffers == 1);
    d = find_dtype(in, LG_FLOAT32);
    CHECK(d && d->bytes == 16 && d->params == 4);
    d = find_dtype(in, LG_INT32);
    CHECK(d && d->bytes == 8 && d->params == 2);
    CHECK_EQ_INT(in->n_signatures, 0);
    CHECK_EQ_INT(in->n_metadata, 0);
    CHECK(in->description == NULL);
    lg_info_free(in);
}

/* A buffer shared by three tensors in two subgraphs is counted once, under the first
   tensor; metadata buffers are not weights; signatures and metadata are listed. */
LG_TEST(info_shared_buffer_metadata_signature) {
    lg_error err;
    lg_model *m = NULL;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    if (!m) return;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    const float c[6] = {1, 2, 3, 4, 5, 6};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int k = lg_b_const_f32(&b, "k", LG_DIMS(2, 3), c);                 /* 6 params, 24 B */
    int k2 = lg_b_tensor(&b, "k_alias", LG_FLOAT32, LG_DIMS(2, 3));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2, 3));
    int y2 = lg_b_tensor(&b, "y2", LG_FLOAT32, LG_DIMS(2, 3));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(x, k), LG_IDS(y));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(y, k2), LG_IDS(y2));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y2));
    CHECK_OK(b.status, &b.err);
    uint32_t sg1 = 0;
    CHECK_OK(lg_model_add_subgraph(m, "second", &sg1, &err), &err);
    lg_builder b1;
    lg_builder_init(&b1, m, sg1);
    /* a 6-element INT8 view of the same 24 bytes would give different numbers if counted */
    int s1 = lg_b_tensor(&b1, "shared_again", LG_INT8, LG_DIMS(24));
    int s2 = lg_b_tensor(&b1, "s2", LG_INT8, LG_DIMS(24));
    lg_b_op(&b1, LG_OP_RELU, LG_IDS(s1), LG_IDS(s2));
    lg_b_io(&b1, LG_NO_IDS, LG_IDS(s2));
    CHECK_OK(b1.status, &b1.err);
    if (b.status != LG_OK || b1.status != LG_OK) { lg_model_free(m); return; }
    uint32_t shared = m->subgraphs[0].tensors[k].buffer;
    m->subgraphs[0].tensors[k2].buffer = shared;
    m->subgraphs[sg1].tensors[s1].buffer = shared;

    CHECK_OK(lg_model_add_metadata(m, "min_runtime_version", "1.5.0\0\0\0\0\0\0\0\0\0\0\0", 16,
                                   &err), &err);
    CHECK_OK(lg_model_set_description(m, "tiny \"test\"", &err), &err);
    const char *in_names[1] = {"input"};
    const char *out_names[1] = {"output"};
    const uint32_t in_t[1] = {(uint32_t)x}, out_t[1] = {(uint32_t)y2};
    CHECK_OK(lg_model_add_signature(m, "serving_default", 0, in_names, in_t, 1, out_names, out_t,
                                    1, &err), &err);
    CHECK_OK(lg_model_validate(m, &err), &err);

    lg_info *in = NULL;
    CHECK_OK(lg_info_compute(m, "abc", 3, &in, &err), &err);
    lg_model_free(m);
    if (!in) return;
    CHECK(in->has_sha256);
    CHECK_STR(in->sha256_hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK_EQ_INT(in->file_size, 3);
    CHECK_STR(in->description, "tiny \"test\"");

    CHECK_EQ_INT(in->weights.n_buffers, 1);
    CHECK_EQ_INT(in->weights.bytes, 24);
    CHECK_EQ_INT(in->weights.params, 6);
    CHECK_EQ_INT(in->weights.n_by_dtype, 1);
    CHECK(find_dtype(in, LG_FLOAT32) != NULL);
    CHECK(find_dtype(in, LG_INT8) == NULL);

    CHECK_EQ_INT(in->n_subgraphs, 2);
    if (in->n_subgraphs == 2) {
        CHECK_STR(in->subgraphs[1].name, "second");
        CHECK_EQ_INT(in->subgraphs[1].n_inputs, 0);
        CHECK_EQ_INT(in->subgraphs[1].max_rank, 1);
        const lg_info_count *add = find_count(in->subgraphs[0].ops,
                                              in->subgraphs[0].n_ops_census, "ADD");
        CHECK(add && add->count == 2);
        CHECK_EQ_INT(in->subgraphs[0].n_custom_ops, 0);
    }
    CHECK_EQ_INT(in->n_metadata, 1);
    if (in->n_metadata == 1) {
        CHECK_STR(in->metadata[0].name, "min_runtime_version");
        CHECK_EQ_INT(in->metadata[0].bytes, 16);
    }
    CHECK_EQ_INT(in->n_signatures, 1);
    if (in->n_signatures == 1) {
        const lg_info_signature *s = &in->signatures[0];
        CHECK_STR(s->key, "serving_default");
        CHECK_EQ_INT(s->subgraph, 0);
        CHECK_EQ_INT(s->n_inputs, 1);
        CHECK_EQ_INT(s->n_outputs, 1);
        if (s->n_inputs == 1) CHECK_STR(s->inputs[0], "input");
        if (s->n_outputs == 1) CHECK_STR(s->outputs[0], "output");
    }
    lg_info_free(in);
}

/* Scalars, a dynamic dim in shape itself, an op whose opcode index is out of range. */
LG_TEST(info_edge_cases) {
    lg_error err;
    lg_model *m = NULL;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    if (!m) return;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int s = lg_b_tensor(&b, "s", LG_FLOAT32, LG_SCALAR);
    int t = lg_b_tensor(&b, "t", LG_FLOAT32, LG_SCALAR);
    lg_b_op(&b, LG_OP_ABS, LG_IDS(s), LG_IDS(t));
    lg_b_op(&b, LG_OP_ABS, LG_IDS(t), LG_IDS(s));
    lg_b_io(&b, LG_IDS(s), LG_IDS(t));
    CHECK_OK(b.status, &b.err);
    if (b.status != LG_OK) { lg_model_free(m); return; }
    m->subgraphs[0].ops[1].opcode_index = 99; /* not via the builder: a broken model */

    lg_info *in = NULL;
    CHECK_OK(lg_info_compute(m, NULL, 0, &in, &err), &err);
    lg_model_free(m);
    if (!in) return;
    const lg_info_subgraph *sg = &in->subgraphs[0];
    CHECK_EQ_INT(sg->max_rank, 0);
    CHECK_EQ_INT(sg->inputs[0].rank, 0);
    CHECK_EQ_INT(sg->inputs[0].n_dynamic, 0);
    CHECK_EQ_INT(sg->n_ops_census, 2);
    const lg_info_count *bad = find_count(sg->ops, sg->n_ops_census, "?");
    CHECK(bad && bad->count == 1 && bad->builtin == -1);
    CHECK(find_count(sg->ops, sg->n_ops_census, "ABS") != NULL);
    CHECK_EQ_INT(in->weights.n_by_dtype, 0);
    CHECK_EQ_INT(in->weights.params, 0);
    lg_info_free(in);
}

LG_TEST(info_bad_arguments) {
    lg_error err;
    lg_info *in = (lg_info *)&err; /* must be reset to NULL */
    CHECK_EQ_INT(lg_info_compute(NULL, NULL, 0, &in, &err), LG_ERR_INVALID_ARG);
    CHECK(in == NULL);
    CHECK(err.msg[0] != 0);
    lg_model *m = NULL;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    CHECK_EQ_INT(lg_info_compute(m, NULL, 0, NULL, &err), LG_ERR_INVALID_ARG);
    /* an empty new model: one subgraph, nothing in it */
    CHECK_OK(lg_info_compute(m, NULL, 0, &in, NULL), &err);
    if (in) {
        CHECK_EQ_INT(in->n_subgraphs, 1);
        CHECK_EQ_INT(in->subgraphs[0].n_ops_census, 0);
        CHECK(in->subgraphs[0].ops == NULL);
    }
    lg_info_free(in);
    lg_info_free(NULL);
    lg_model_free(m);
}

/* lg_model_learned_params: conv_model holds w16 FLOAT16 [4,3,3,3] = 108 elements (a weight
   type, counted), bias FLOAT32 [4] = 4 (counted), shape INT32 [2] (no quantization: not a
   parameter). 108 + 4 = 112. */
LG_TEST(info_learned_params_conv) {
    lg_error err;
    lg_model *m = conv_model(&err);
    CHECK(m != NULL);
    if (!m) return;
    uint64_t n = 0;
    CHECK_OK(lg_model_learned_params(m, &n, &err), &err);
    CHECK_EQ_INT(n, 112);
    lg_model_free(m);
}

/* Near-misses: a 1-element FLOAT32 constant (an epsilon) is not a parameter, a 2-element one
   is; a buffer shared by two tensors counts once; INT32 with a scale (a quantized bias)
   counts, plain INT32 does not. Expected 2 (eps2) + 3 (shared) + 2 (qbias) = 7. */
LG_TEST(info_learned_params_near_miss) {
    lg_error err;
    lg_model *m = NULL;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    if (!m) return;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    float e1[1] = {1e-5f}, e2[2] = {1, 2}, sh[3] = {1, 2, 3};
    int32_t qb[2] = {5, 6}, ix[2] = {0, 1};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(3));
    int c1 = lg_b_const_f32(&b, "eps", LG_DIMS(1), e1);
    int c2 = lg_b_const_f32(&b, "eps2", LG_DIMS(2), e2);
    int c3 = lg_b_const_f32(&b, "shared", LG_DIMS(3), sh);
    int c4 = lg_b_const_i32(&b, "qbias", LG_DIMS(2), qb);
    int c5 = lg_b_const_i32(&b, "idx", LG_DIMS(2), ix);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(3));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(x, c1), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_OK(b.status, &b.err);
    (void)c2; (void)c5;
    lg_subgraph *sg = &m->subgraphs[0];
    /* a second tensor on "shared"'s buffer */
    int dup = lg_b_tensor(&b, "shared_alias", LG_FLOAT32, LG_DIMS(3));
    sg = &m->subgraphs[0];
    sg->tensors[dup].buffer = sg->tensors[c3].buffer;
    float qs[1] = {0.5f};
    CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)c4, qs, NULL, 1, 0, &err), &err);
    uint64_t n = 0;
    CHECK_OK(lg_model_learned_params(m, &n, &err), &err);
    CHECK_EQ_INT(n, 7);
    lg_model_free(m);
}
