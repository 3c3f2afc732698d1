/* The model builder (src/ir/builder.c): happy paths, every error path, the sticky builder,
   array growth (also on models made by the reader), and the deep copy of options. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ir/schema_gen.h"
#include "lg/lg.h"
#include "tf.h"

static lg_model *new_model(void) {
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    return m;
}

static int contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

#define CHECK_ERR(expr, errp, want_status, substr)                                            \
    do {                                                                                      \
        lg_status s2_ = (expr);                                                               \
        CHECK_EQ_INT(s2_, want_status);                                                       \
        CHECK_EQ_INT((errp)->status, want_status);                                            \
        if (!contains((errp)->msg, substr))                                                   \
            tf_fail(__FILE__, __LINE__, "message \"%s\" lacks \"%s\"", (errp)->msg, substr);  \
    } while (0)

LG_TEST(builder_new_model) {
    lg_model *m = new_model();
    if (!m) return;
    CHECK_EQ_INT(m->version, 3);
    CHECK_EQ_INT(m->n_buffers, 1);
    CHECK(m->buffers[0].data == NULL && m->buffers[0].size == 0);
    CHECK_EQ_INT(m->n_subgraphs, 1);
    CHECK_STR(m->subgraphs[0].name, "main");
    CHECK_EQ_INT(m->subgraphs[0].debug_metadata_index, -1);
    CHECK(m->opcodes != NULL && m->n_opcodes == 0);
    CHECK(m->subgraphs[0].tensors != NULL && m->subgraphs[0].ops != NULL);
    CHECK(m->subgraphs[0].inputs != NULL && m->subgraphs[0].n_inputs == 0);
    lg_error err;
    CHECK_OK(lg_model_validate(m, &err), &err);
    lg_model_free(m);
    CHECK_ERR(lg_model_new(NULL, NULL, NULL, &err), &err, LG_ERR_INVALID_ARG, "no output");
}

LG_TEST(builder_tensors_and_consts) {
    lg_model *m = new_model();
    if (!m) return;
    lg_error err;
    int32_t x = -1, c = -1, s = -1;
    int32_t shape[2] = {2, 3};
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "x", LG_FLOAT32, shape, 2, &x, &err), &err);
    float data[6] = {1, 2, 3, 4, 5, 6};
    CHECK_OK(lg_subgraph_add_const(m, 0, "c", LG_FLOAT32, shape, 2, data, sizeof data, &c, &err),
             &err);
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "s", LG_INT32, NULL, 0, &s, &err), &err);
    CHECK_EQ_INT(x, 0);
    CHECK_EQ_INT(c, 1);
    CHECK_EQ_INT(s, 2);
    shape[0] = 99;  /* copies, not references */
    data[0] = 42;
    const lg_subgraph *sg = &m->subgraphs[0];
    CHECK_EQ_INT(sg->tensors[0].shape[0], 2);
    CHECK_EQ_INT(sg->tensors[0].buffer, 0);
    CHECK(sg->tensors[0].has_rank);
    CHECK_STR(sg->tensors[1].name, "c");
    CHECK_EQ_INT(sg->tensors[1].buffer, 1);
    const lg_buffer *b = lg_tensor_buffer(m, &sg->tensors[1]);
    CHECK(b != NULL);
    if (b) {
        CHECK_EQ_INT(b->size, 24);
        float f0;
        memcpy(&f0, b->data, 4);
        CHECK_NEAR(f0, 1.0, 0);
    }
    CHECK(sg->tensors[2].shape != NULL); /* scalar: present, empty shape */
    CHECK_EQ_INT(sg->tensors[2].rank, 0);
    /* sub-byte types round up: 5 INT4 values in 3 bytes */
    int32_t five[1] = {5};
    uint8_t nib[3] = {0x21, 0x43, 0x05};
    CHECK_OK(lg_subgraph_add_const(m, 0, "i4", LG_INT4, five, 1, nib, 3, NULL, &err), &err);
    /* STRING has no fixed size: any byte count goes */
    CHECK_OK(lg_subgraph_add_const(m, 0, "str", LG_STRING, five, 1, "abcdefg", 7, NULL, &err),
             &err);
    /* zero elements, zero bytes */
    int32_t zero[1] = {0};
    CHECK_OK(lg_subgraph_add_const(m, 0, "empty", LG_FLOAT32, zero, 1, NULL, 0, NULL, &err), &err);
    CHECK_OK(lg_model_validate(m, &err), &err);
    lg_model_free(m);
}

LG_TEST(builder_tensor_errors) {
    lg_model *m = new_model();
    if (!m) return;
    lg_error err;
    int32_t shape[2] = {2, 3};
    float data[6] = {0};
    CHECK_ERR(lg_subgraph_add_tensor(m, 1, "x", LG_FLOAT32, shape, 2, NULL, &err), &err,
              LG_ERR_INVALID_ARG, "subgraph 1 of 1");
    CHECK_ERR(lg_subgraph_add_tensor(m, 0, "x", (lg_dtype)77, shape, 2, NULL, &err), &err,
              LG_ERR_INVALID_ARG, "unknown type 77");
    int32_t neg[2] = {2, -1};
    CHECK_ERR(lg_subgraph_add_tensor(m, 0, "x", LG_FLOAT32, neg, 2, NULL, &err), &err,
              LG_ERR_INVALID_ARG, "dimension 1 is -1");
    CHECK_ERR(lg_subgraph_add_tensor(m, 0, "x", LG_FLOAT32, NULL, 2, NULL, &err), &err,
              LG_ERR_INVALID_ARG, "no shape");
    CHECK_ERR(lg_subgraph_add_const(m, 0, "w", LG_FLOAT32, shape, 2, data, 20, NULL, &err), &err,
              LG_ERR_INVALID_ARG, "20 bytes of data, the shape needs 24");
    CHECK_ERR(lg_subgraph_add_const(m, 0, "w", LG_FLOAT32, shape, 2, NULL, 24, NULL, &err), &err,
              LG_ERR_INVALID_ARG, "no data");
    int32_t huge[3] = {INT32_MAX, INT32_MAX, INT32_MAX};
    CHECK_ERR(lg_subgraph_add_const(m, 0, "h", LG_FLOAT64, huge, 3, data, 8, NULL, &err), &err,
              LG_ERR_INVALID_ARG, "too many elements");
    CHECK_ERR(lg_subgraph_add_tensor(NULL, 0, "x", LG_FLOAT32, shape, 2, NULL, &err), &err,
              LG_ERR_INVALID_ARG, "no model");
    /* nothing was added by the failing calls */
    CHECK_EQ_INT(m->subgraphs[0].n_tensors, 0);
    CHECK_EQ_INT(m->n_buffers, 1);
    lg_model_free(m);
}

LG_TEST(builder_ops_and_opcodes) {
    lg_model *m = new_model();
    if (!m) return;
    lg_error err;
    int32_t shape[1] = {4};
    int32_t a, b, c, d, op0, op1, op2, op3;
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "a", LG_FLOAT32, shape, 1, &a, &err), &err);
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "b", LG_FLOAT32, shape, 1, &b, &err), &err);
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "c", LG_FLOAT32, shape, 1, &c, &err), &err);
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "d", LG_FLOAT32, shape, 1, &d, &err), &err);
    int32_t in2[2] = {a, b}, out1[1] = {c}, out2[1] = {d}, in_opt[3] = {a, -1, b};
    CHECK_OK(lg_subgraph_add_op(m, 0, LG_OP_ADD, NULL, 0, in2, 2, out1, 1, LG_OPTS_NONE, NULL,
                                &op0, &err), &err);
    CHECK_OK(lg_subgraph_add_op(m, 0, LG_OP_ADD, NULL, 1, in2, 2, out2, 1, LG_OPTS_NONE, NULL,
                                &op1, &err), &err);
    CHECK_EQ_INT(m->n_opcodes, 1); /* version 0 means 1: same opcode */
    CHECK_OK(lg_subgraph_add_op(m, 0, LG_OP_ADD, NULL, 2, in_opt, 3, out2, 1, LG_OPTS_NONE, NULL,
                                &op2, &err), &err);
    CHECK_EQ_INT(m->n_opcodes, 2);
    CHECK_EQ_INT(m->opcodes[1].version, 2);
    CHECK_OK(lg_subgraph_add_op(m, 0, LG_OP_GELU, NULL, 1, in2, 1, out2, 1, LG_OPTS_NONE, NULL,
                                &op3, &err), &err);
    CHECK_EQ_INT(op0, 0);
    CHECK_EQ_INT(op3, 3);
    const lg_opcode *gelu = &m->opcodes[m->subgraphs[0].ops[op3].opcode_index];
    CHECK_EQ_INT(gelu->builtin, LG_OP_GELU);
    CHECK_EQ_INT(gelu->builtin_code, LG_OP_GELU);
    CHECK_EQ_INT(gelu->deprecated_builtin_code, 127);
    CHECK_EQ_INT(m->opcodes[0].deprecated_builtin_code, LG_OP_ADD);
    CHECK_EQ_INT(m->subgraphs[0].ops[op2].inputs[1], -1);
    CHECK_EQ_INT(m->subgraphs[0].ops[op0].debug_metadata_index, -1);
    CHECK_STR(lg_op_name(m, &m->subgraphs[0].ops[op3]), "GELU");

    uint32_t oc1, oc2, oc3;
    CHECK_OK(lg_model_opcode(m, LG_OP_CUSTOM, "MyOp", 1, &oc1, &err), &err);
    CHECK_OK(lg_model_opcode(m, LG_OP_CUSTOM, "MyOp", 1, &oc2, &err), &err);
    CHECK_OK(lg_model_opcode(m, LG_OP_CUSTOM, "Other", 1, &oc3, &err), &err);
    CHECK_EQ_INT(oc1, oc2);
    CHECK(oc3 != oc1);
    CHECK_STR(m->opcodes[oc1].custom_code, "MyOp");
    CHECK_OK(lg_model_validate(m, &err), &err);
    lg_model_free(m);
}

LG_TEST(builder_op_errors) {
    lg_model *m = new_model();
    if (!m) return;
    lg_error err;
    int32_t shape[1] = {4};
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "a", LG_FLOAT32, shape, 1, NULL, &err), &err);
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "b", LG_FLOAT32, shape, 1, NULL, &err), &err);
    int32_t bad_in[2] = {0, 7}, ok_out[1] = {1}, neg_out[1] = {-1}, in1[1] = {0};
    CHECK_ERR(lg_subgraph_add_op(m, 0, LG_OP_ADD, NULL, 1, bad_in, 2, ok_out, 1, LG_OPTS_NONE,
                                 NULL, NULL, &err), &err, LG_ERR_INVALID_ARG,
              "subgraph 0 op 0 (ADD): input 1 refers to tensor 7 of 2");
    CHECK_EQ_INT(err.subgraph, 0);
    CHECK_EQ_INT(err.op, 0);
    CHECK_ERR(lg_subgraph_add_op(m, 0, LG_OP_RELU, NULL, 1, in1, 1, neg_out, 1, LG_OPTS_NONE,
                                 NULL, NULL, &err), &err, LG_ERR_INVALID_ARG,
              "output 0 refers to tensor -1 of 2");
    CHECK_ERR(lg_subgraph_add_op(m, 0, 9999, NULL, 1, in1, 1, ok_out, 1, LG_OPTS_NONE, NULL, NULL,
                                 &err), &err, LG_ERR_INVALID_ARG, "unknown builtin operator code 9999");
    CHECK_ERR(lg_subgraph_add_op(m, 0, LG_OP_CUSTOM, NULL, 1, in1, 1, ok_out, 1, LG_OPTS_NONE,
                                 NULL, NULL, &err), &err, LG_ERR_INVALID_ARG, "custom code");
    CHECK_ERR(lg_subgraph_add_op(m, 0, LG_OP_RELU, NULL, 1, in1, 1, ok_out, 1, (lg_opts_kind)500,
                                 NULL, NULL, &err), &err, LG_ERR_INVALID_ARG, "unknown options kind 500");
    lg_custom_quantization cq = {{NULL, 0}};
    CHECK_ERR(lg_subgraph_add_op(m, 0, LG_OP_RELU, NULL, 1, in1, 1, ok_out, 1,
                                 LG_QDETAILS_CUSTOM_QUANTIZATION, &cq, NULL, &err), &err,
              LG_ERR_INVALID_ARG, "unknown options kind 2001");
    lg_softmax_options so = {1.0f};
    CHECK_ERR(lg_subgraph_add_op(m, 0, LG_OP_SOFTMAX, NULL, 1, in1, 1, ok_out, 1, LG_OPTS_NONE,
                                 &so, NULL, &err), &err, LG_ERR_INVALID_ARG,
              "options given without an options kind");
    CHECK_ERR(lg_subgraph_add_op(m, 3, LG_OP_RELU, NULL, 1, in1, 1, ok_out, 1, LG_OPTS_NONE, NULL,
                                 NULL, &err), &err, LG_ERR_INVALID_ARG, "subgraph 3 of 1");
    CHECK_ERR(lg_subgraph_add_op(m, 0, LG_OP_RELU, NULL, 1, NULL, 1, ok_out, 1, LG_OPTS_NONE, NULL,
                                 NULL, &err), &err, LG_ERR_INVALID_ARG, "no array");
    CHECK_EQ_INT(m->subgraphs[0].n_ops, 0);
    CHECK_EQ_INT(m->n_opcodes, 0); /* failed adds leave no opcode behind */
    CHECK_ERR(lg_model_opcode(m, -3, NULL, 1, NULL, &err), &err, LG_ERR_INVALID_ARG,
              "unknown builtin operator code -3");
    lg_model_free(m);
}

LG_TEST(builder_options_deep_copy) {
    lg_model *m = new_model();
    if (!m) return;
    lg_error err;
    int32_t shape[2] = {2, 3};
    int32_t a, b, o;
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "a", LG_FLOAT32, shape, 2, &a, &err), &err);
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "b", LG_FLOAT32, shape, 2, &b, &err), &err);
    int32_t ns[2] = {3, 2};
    lg_reshape_options ro;
    memset(&ro, 0, sizeof ro);
    ro.new_shape.data = ns;
    ro.new_shape.n = 2;
    int32_t in[1] = {a}, out[1] = {b};
    CHECK_OK(lg_subgraph_add_op(m, 0, LG_OP_RESHAPE, NULL, 1, in, 1, out, 1,
                                LG_OPTS_RESHAPE_OPTIONS, &ro, &o, &err), &err);
    ns[0] = 77;
    const lg_reshape_options *c = m->subgraphs[0].ops[o].opts;
    CHECK(c != &ro);
    CHECK(c->new_shape.data != (const void *)ns);
    CHECK_EQ_INT(c->new_shape.n, 2);
    CHECK_EQ_INT(((const int32_t *)c->new_shape.data)[0], 3);

    lg_var_handle_options vh;
    memset(&vh, 0, sizeof vh);
    char cont[8] = "box";
    vh.container = cont;
    vh.shared_name = NULL;
    CHECK_OK(lg_subgraph_add_op(m, 0, LG_OP_VAR_HANDLE, NULL, 1, NULL, 0, out, 1,
                                LG_OPTS_VAR_HANDLE_OPTIONS, &vh, &o, &err), &err);
    cont[0] = 'X';
    const lg_var_handle_options *vc = m->subgraphs[0].ops[o].opts;
    CHECK_STR(vc->container, "box");
    CHECK(vc->shared_name == NULL);

    /* options kind without a struct: the schema's defaults, not zeros */
    CHECK_OK(lg_subgraph_add_op(m, 0, LG_OP_CONV_2D, NULL, 1, in, 1, out, 1,
                                LG_OPTS_CONV2D_OPTIONS, NULL, &o, &err), &err);
    const lg_conv2d_options *cv = m->subgraphs[0].ops[o].opts;
    CHECK_EQ_INT(cv->dilation_w_factor, 1);
    CHECK_EQ_INT(cv->dilation_h_factor, 1);
    CHECK_EQ_INT(cv->stride_w, 0);
    lg_model_free(m);
}

LG_TEST(builder_opts_clone_all_kinds) {
    /* every options table: clone copies scalars, vectors and strings to fresh memory */
    lgi_arena a;
    lgi_arena_init(&a, NULL, NULL, 0);
    static const int64_t vals[3] = {1, 2, 3};
    const char *hello = "hello";
    int kinds = 0;
    for (int k = 1; k < 2100; k++) {
        const lgi_table_desc *t = lgi_opts_table((lg_opts_kind)k);
        if (!t) continue;
        kinds++;
        uint8_t src[512];
        CHECK(t->size <= sizeof src);
        memset(src, 0x5a, sizeof src);
        for (const lgi_field_desc *f = t->fields; f->name; f++) {
            if (f->kind == LGI_F_BOOL) {
                src[f->offset] = 1;
            } else if (f->kind == LGI_F_STRING) {
                memcpy(src + f->offset, &hello, sizeof hello);
            } else if (lgi_field_is_vec((lgi_field_kind)f->kind)) {
                lg_vec v = {vals, 2};
                memcpy(src + f->offset, &v, sizeof v);
            }
        }
        uint8_t *d = lgi_opts_clone(&a, (lg_opts_kind)k, src);
        CHECK(d != NULL);
        if (!d) continue;
        for (const lgi_field_desc *f = t->fields; f->name; f++) {
            if (f->kind == LGI_F_STRING) {
                const char *s;
                memcpy(&s, d + f->offset, sizeof s);
                CHECK(s != NULL && s != hello && strcmp(s, "hello") == 0);
            } else if (lgi_field_is_vec((lgi_field_kind)f->kind)) {
                lg_vec v;
                memcpy(&v, d + f->offset, sizeof v);
                CHECK(v.data != (const void *)vals);
                CHECK_EQ_INT(v.n, 2);
                CHECK(v.data && memcmp(v.data, vals, 2 * lgi_field_elem_size((lgi_field_kind)f->kind)) == 0);
            } else {
                CHECK(memcmp(d + f->offset, src + f->offset,
                             lgi_field_elem_size((lgi_field_kind)f->kind)) == 0);
            }
        }
        /* NULL source: defaults */
        uint8_t *z = lgi_opts_clone(&a, (lg_opts_kind)k, NULL);
        CHECK(z != NULL);
        for (const lgi_field_desc *f = t->fields; z && f->name; f++)
            if (f->kind < LGI_F_STRING) CHECK(lgi_field_get_f64(z, f) == f->def);
    }
    CHECK_EQ_INT(kinds, lgi_opts_count1 + lgi_opts_count2 + lgi_qdetails_count);
    CHECK(lgi_opts_clone(&a, (lg_opts_kind)500, NULL) == NULL);
    /* present-but-empty vectors stay present */
    lg_reshape_options ro;
    memset(&ro, 0, sizeof ro);
    ro.new_shape.data = lgi_empty_vec;
    const lg_reshape_options *rc = lgi_opts_clone(&a, LG_OPTS_RESHAPE_OPTIONS, &ro);
    CHECK(rc && rc->new_shape.data != NULL && rc->new_shape.n == 0);
    lgi_arena_free(&a);
}

LG_TEST(builder_io_signature_quant_metadata) {
    lg_model *m = new_model();
    if (!m) return;
    lg_error err;
    int32_t shape[4] = {3, 2, 2, 1};
    int32_t x, w;
    int8_t wd[12] = {0};
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "x", LG_INT8, shape, 4, &x, &err), &err);
    CHECK_OK(lg_subgraph_add_const(m, 0, "w", LG_INT8, shape, 4, wd, 12, &w, &err), &err);
    int32_t io[1] = {x}, bad[1] = {5};
    CHECK_OK(lg_subgraph_set_io(m, 0, io, 1, io, 1, &err), &err);
    CHECK_EQ_INT(m->subgraphs[0].n_inputs, 1);
    CHECK_ERR(lg_subgraph_set_io(m, 0, bad, 1, io, 1, &err), &err, LG_ERR_INVALID_ARG,
              "subgraph 0: input 0 refers to tensor 5 of 2");
    CHECK_ERR(lg_subgraph_set_io(m, 0, io, 1, bad, 1, &err), &err, LG_ERR_INVALID_ARG,
              "output 0 refers to tensor 5");

    /* quantization: per tensor, per channel, errors */
    float sc[3] = {0.5f, 0.25f, 0.125f};
    int64_t zp[3] = {1, 2, 3};
    CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)x, sc, NULL, 1, 0, &err), &err);
    const lg_quant *q = m->subgraphs[0].tensors[x].quant;
    CHECK(q && q->n_scale == 1 && q->n_zero_point == 1 && q->zero_point[0] == 0);
    CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)w, sc, zp, 3, 0, &err), &err);
    q = m->subgraphs[0].tensors[w].quant;
    CHECK(q && q->n_scale == 3 && q->zero_point[2] == 3 && q->scale != sc);
    CHECK_ERR(lg_tensor_set_quant(m, 0, (uint32_t)w, sc, zp, 3, 1, &err), &err,
              LG_ERR_INVALID_ARG, "3 scales for dimension 1 of size 2");
    CHECK_ERR(lg_tensor_set_quant(m, 0, (uint32_t)w, sc, zp, 3, 4, &err), &err,
              LG_ERR_INVALID_ARG, "quantized dimension 4 for rank 4");
    CHECK_ERR(lg_tensor_set_quant(m, 0, (uint32_t)w, sc, zp, 0, 0, &err), &err,
              LG_ERR_INVALID_ARG, "at least one scale");
    CHECK_ERR(lg_tensor_set_quant(m, 0, 9, sc, zp, 1, 0, &err), &err, LG_ERR_INVALID_ARG,
              "tensor 9 of 2");

    /* shape signature */
    int32_t sig[4] = {-1, 2, 2, 1}, sig_bad[4] = {-2, 2, 2, 1};
    CHECK_OK(lg_tensor_set_shape_signature(m, 0, (uint32_t)x, sig, 4, &err), &err);
    CHECK_EQ_INT(m->subgraphs[0].tensors[x].shape_signature[0], -1);
    CHECK_ERR(lg_tensor_set_shape_signature(m, 0, (uint32_t)x, sig, 3, &err), &err,
              LG_ERR_INVALID_ARG, "3 dimensions for rank 4");
    CHECK_ERR(lg_tensor_set_shape_signature(m, 0, (uint32_t)x, sig_bad, 4, &err), &err,
              LG_ERR_INVALID_ARG, "dimension 0 is -2");
    CHECK_EQ_INT(err.tensor, x);
    CHECK_OK(lg_tensor_set_shape_signature(m, 0, (uint32_t)x, NULL, 0, &err), &err);
    CHECK(m->subgraphs[0].tensors[x].shape_signature == NULL);

    /* signatures */
    const char *in_names[1] = {"input"}, *out_names[1] = {"output"};
    uint32_t in_t[1] = {(uint32_t)x}, out_t[1] = {(uint32_t)w}, bad_t[1] = {8};
    CHECK_OK(lg_model_add_signature(m, "serving_default", 0, in_names, in_t, 1, out_names, out_t,
                                    1, &err), &err);
    CHECK_EQ_INT(m->n_signatures, 1);
    CHECK_STR(m->signatures[0].key, "serving_default");
    CHECK_STR(m->signatures[0].outputs[0].name, "output");
    CHECK_ERR(lg_model_add_signature(m, "k", 0, in_names, bad_t, 1, NULL, NULL, 0, &err), &err,
              LG_ERR_INVALID_ARG, "input 0 (\"input\") refers to tensor 8 of 2");
    CHECK_ERR(lg_model_add_signature(m, "k", 2, NULL, NULL, 0, NULL, NULL, 0, &err), &err,
              LG_ERR_INVALID_ARG, "subgraph 2 of 1");
    CHECK_ERR(lg_model_add_signature(m, NULL, 0, NULL, NULL, 0, NULL, NULL, 0, &err), &err,
              LG_ERR_INVALID_ARG, "needs a key");
    CHECK_EQ_INT(m->n_signatures, 1);

    /* metadata and description */
    static const char ver[16] = "1.5.0";
    CHECK_OK(lg_model_add_metadata(m, "min_runtime_version", ver, 16, &err), &err);
    CHECK_EQ_INT(m->n_metadata, 1);
    CHECK_EQ_INT(m->buffers[m->metadata[0].buffer].size, 16);
    CHECK_ERR(lg_model_add_metadata(m, NULL, "x", 1, &err), &err, LG_ERR_INVALID_ARG, "name");
    CHECK_ERR(lg_model_add_metadata(m, "x", NULL, 4, &err), &err, LG_ERR_INVALID_ARG, "without data");
    CHECK_OK(lg_model_set_description(m, "built by a test", &err), &err);
    CHECK_STR(m->description, "built by a test");
    CHECK_OK(lg_model_validate(m, &err), &err);
    lg_model_free(m);
}

LG_TEST(builder_buffers_and_custom_options) {
    lg_model *m = new_model();
    if (!m) return;
    lg_error err;
    uint32_t b1, b2;
    CHECK_OK(lg_model_add_buffer(m, "abcd", 4, &b1, &err), &err);
    CHECK_OK(lg_model_add_buffer(m, NULL, 0, &b2, &err), &err);
    CHECK(m->buffers[b2].data == NULL);
    CHECK_ERR(lg_model_add_buffer(m, NULL, 3, NULL, &err), &err, LG_ERR_INVALID_ARG, "without data");
    char src[4] = "wxyz";
    CHECK_OK(lg_buffer_set_data(m, b2, src, 4, &err), &err);
    src[0] = '!';
    CHECK(memcmp(m->buffers[b2].data, "wxyz", 4) == 0);
    CHECK_OK(lg_buffer_set_data(m, b2, NULL, 0, &err), &err);
    CHECK(m->buffers[b2].data == NULL && m->buffers[b2].size == 0);
    CHECK_ERR(lg_buffer_set_data(m, 0, "x", 1, &err), &err, LG_ERR_INVALID_ARG, "empty sentinel");
    CHECK_ERR(lg_buffer_set_data(m, 9, "x", 1, &err), &err, LG_ERR_INVALID_ARG, "buffer 9 of 3");

    int32_t shape[1] = {1}, t;
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "t", LG_FLOAT32, shape, 1, &t, &err), &err);
    lg_builder b;
    lg_builder_init(&b, m, 0);
    uint8_t opts[3] = {1, 2, 3};
    int32_t op = lg_b_custom(&b, "Frob", LG_IDS(t), LG_IDS(t), opts, 3);
    CHECK_EQ_INT(b.status, LG_OK);
    opts[0] = 9;
    const lg_op *o = &m->subgraphs[0].ops[op];
    CHECK_EQ_INT(o->n_custom_options, 3);
    CHECK_EQ_INT(o->custom_options[0], 1);
    CHECK_STR(lg_op_name(m, o), "Frob");
    CHECK_ERR(lg_op_set_custom_options(m, 0, 5, opts, 3, &err), &err, LG_ERR_INVALID_ARG,
              "op 5 of 1");
    CHECK_ERR(lg_op_set_custom_options(m, 0, 0, NULL, 3, &err), &err, LG_ERR_INVALID_ARG,
              "without data");
    CHECK_OK(lg_op_set_custom_options(m, 0, 0, NULL, 0, &err), &err);
    CHECK(o->custom_options == NULL);
    lg_model_free(m);
}

LG_TEST(builder_sticky) {
    lg_model *m = new_model();
    if (!m) return;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 3));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 3));
    CHECK_EQ_INT(x, 0);
    CHECK_EQ_INT(y, 1);
    int r = lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(42)); /* first error */
    CHECK_EQ_INT(r, -1);
    CHECK_EQ_INT(b.status, LG_ERR_INVALID_ARG);
    char first[sizeof b.err.msg];
    strcpy(first, b.err.msg);
    CHECK(contains(first, "output 0 refers to tensor 42 of 2"));
    CHECK_EQ_INT(lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(4)), -1); /* does nothing */
    float one = 1;
    CHECK_EQ_INT(lg_b_const_f32(&b, "c", LG_DIMS(1), &one), -1);
    CHECK_EQ_INT(lg_b_op(&b, LG_OP_RELU, LG_IDS(x), LG_IDS(y)), -1);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(m->subgraphs[0].n_tensors, 2);
    CHECK_EQ_INT(m->subgraphs[0].n_ops, 0);
    CHECK_EQ_INT(m->subgraphs[0].n_inputs, 0);
    CHECK_EQ_INT(m->n_buffers, 1);
    CHECK_STR(b.err.msg, first);
    CHECK_EQ_INT(b.err.status, LG_ERR_INVALID_ARG);

    /* bad subgraph at init, const of a wrong size, i32 helper */
    lg_builder_init(&b, m, 3);
    CHECK_EQ_INT(b.status, LG_ERR_INVALID_ARG);
    CHECK_EQ_INT(lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(4)), -1);
    lg_builder_init(&b, m, 0);
    CHECK_EQ_INT(lg_b_const(&b, "c", LG_FLOAT32, LG_DIMS(2), &one, 4), -1);
    CHECK(contains(b.err.msg, "4 bytes of data, the shape needs 8"));
    lg_builder_init(&b, m, 0);
    int32_t iv[2] = {3, 4};
    int ci = lg_b_const_i32(&b, "i", LG_DIMS(2), iv);
    int cs = lg_b_const_f32(&b, "s", LG_SCALAR, &one);
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(m->subgraphs[0].tensors[ci].type, LG_INT32);
    CHECK_EQ_INT(m->buffers[m->subgraphs[0].tensors[cs].buffer].size, 4);
    lg_softmax_options so = {2.0f};
    int sm = lg_b_op_opts(&b, LG_OP_SOFTMAX, LG_IDS(x), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
    int v3 = lg_b_op_v(&b, LG_OP_RELU, 3, LG_IDS(x), LG_IDS(y), LG_OPTS_NONE, NULL);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_NEAR(((const lg_softmax_options *)m->subgraphs[0].ops[sm].opts)->beta, 2.0, 0);
    CHECK_EQ_INT(m->opcodes[m->subgraphs[0].ops[v3].opcode_index].version, 3);
    CHECK_EQ_INT(m->subgraphs[0].n_outputs, 1);
    lg_model_free(m);
}

LG_TEST(builder_growth) {
    lg_model *m = new_model();
    if (!m) return;
    lg_error err;
    lg_builder b;
    uint32_t sg1;
    CHECK_OK(lg_model_add_subgraph(m, "second", &sg1, &err), &err);
    CHECK_EQ_INT(sg1, 1);
    CHECK_EQ_INT(m->subgraphs[1].debug_metadata_index, -1);
    lg_builder_init(&b, m, 0);
    int prev = lg_b_tensor(&b, "t0", LG_FLOAT32, LG_DIMS(1));
    for (int i = 1; i < 1000; i++) {
        float v = (float)i;
        char name[16];
        snprintf(name, sizeof name, "t%d", i);
        int t = (i % 3) ? lg_b_tensor(&b, name, LG_FLOAT32, LG_DIMS(1))
                        : lg_b_const_f32(&b, name, LG_DIMS(1), &v);
        CHECK_EQ_INT(t, i);
        lg_b_op(&b, (i % 2) ? LG_OP_RELU : LG_OP_TANH, LG_IDS(prev), LG_IDS(t));
        prev = t;
    }
    for (int i = 0; i < 40; i++) CHECK_OK(lg_model_add_subgraph(m, "more", NULL, &err), &err);
    CHECK_EQ_INT(b.status, LG_OK);
    const lg_subgraph *s = &m->subgraphs[0];
    CHECK_EQ_INT(s->n_tensors, 1000);
    CHECK_EQ_INT(s->n_ops, 999);
    CHECK_STR(s->tensors[500].name, "t500");
    CHECK_EQ_INT(s->ops[998].outputs[0], 999);
    CHECK_EQ_INT(m->n_opcodes, 2);
    CHECK_EQ_INT(m->n_buffers, 1 + 333);
    float v;
    memcpy(&v, m->buffers[s->tensors[999].buffer].data, 4);
    CHECK_NEAR(v, 999.0, 0);
    CHECK_STR(m->subgraphs[1].name, "second");
    CHECK_EQ_INT(m->n_subgraphs, 42);
    CHECK_OK(lg_model_validate(m, &err), &err);
    lg_model_free(m);
}

/* A model made by the reader has exactly-sized arrays and no capacities: the builder must
   grow them without writing past their ends (ASan watches). */
LG_TEST(builder_edits_read_model) {
    lg_model *m = new_model();
    if (!m) return;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2));
    float k[2] = {1, 2};
    int c = lg_b_const_f32(&b, "c", LG_DIMS(2), k);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(x, c), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    lg_error err;
    void *buf = NULL;
    size_t n = 0;
    CHECK_OK(lg_tflite_write_mem(m, NULL, &buf, &n, &err), &err);
    lg_model_free(m);
    lg_model *r = NULL;
    CHECK_OK(lg_tflite_read_mem(buf, n, NULL, &r, &err), &err);
    if (!r) { free(buf); return; }
    lg_builder_init(&b, r, 0);
    int z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(2));
    int d = lg_b_const_f32(&b, "d", LG_DIMS(2), k);
    lg_b_op(&b, LG_OP_MUL, LG_IDS(y, d), LG_IDS(z));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(z, d), LG_IDS(z));
    lg_b_io(&b, LG_IDS(x), LG_IDS(z));
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_OK(lg_model_add_subgraph(r, "extra", NULL, &err), &err);
    CHECK_OK(lg_model_add_metadata(r, "note", "hi", 2, &err), &err);
    const char *nm[1] = {"x"};
    uint32_t ti[1] = {0};
    CHECK_OK(lg_model_add_signature(r, "sig", 0, nm, ti, 1, nm, ti, 1, &err), &err);
    CHECK_OK(lg_buffer_set_data(r, 1, k, 8, &err), &err);
    CHECK_EQ_INT(r->subgraphs[0].n_tensors, 5);
    CHECK_EQ_INT(r->subgraphs[0].n_ops, 3);
    CHECK_EQ_INT(r->n_opcodes, 2);
    CHECK_EQ_INT(r->n_subgraphs, 2);
    CHECK_STR(r->subgraphs[0].tensors[2].name, "y");
    CHECK_OK(lg_model_validate(r, &err), &err);
    void *buf2 = NULL;
    size_t n2 = 0;
    CHECK_OK(lg_tflite_write_mem(r, NULL, &buf2, &n2, &err), &err);
    lg_model *r2 = NULL;
    CHECK_OK(lg_tflite_read_mem(buf2, n2, NULL, &r2, &err), &err);
    if (r2) {
        CHECK_EQ_INT(r2->subgraphs[0].n_ops, 3);
        CHECK_STR(lg_op_name(r2, &r2->subgraphs[0].ops[1]), "MUL");
        CHECK_EQ_INT(r2->n_signatures, 1);
        CHECK_STR(r2->metadata[0].name, "note");
    }
    lg_model_free(r2);
    lg_model_free(r);
    free(buf);
    free(buf2);
}

/* An allocator that fails after a budget of calls: every builder call must fail cleanly. */
static int alloc_budget;
static void *budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if (alloc_budget-- <= 0) return NULL;
    return realloc(ptr, nsize);
}

LG_TEST(builder_out_of_memory) {
    int completed = 0;
    for (int budget = 0; budget < 60 && !completed; budget++) {
        alloc_budget = budget;
        lg_model *m = NULL;
        lg_error err;
        if (lg_model_new(budget_alloc, NULL, &m, &err) != LG_OK) {
            CHECK_EQ_INT(err.status, LG_ERR_NOMEM);
            CHECK(m == NULL);
            continue;
        }
        lg_builder b;
        lg_builder_init(&b, m, 0);
        static float big[70000];
        int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(70000));
        int c = lg_b_const_f32(&b, "c", LG_DIMS(70000), big);
        int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(70000));
        lg_b_op(&b, LG_OP_ADD, LG_IDS(x, c), LG_IDS(y));
        for (int i = 0; i < 30; i++) lg_b_tensor(&b, "pad", LG_FLOAT32, LG_DIMS(70000));
        if (b.status == LG_OK) completed = 1;
        else CHECK_EQ_INT(b.status, LG_ERR_NOMEM);
        lg_model_free(m);
    }
    CHECK(completed);
}
