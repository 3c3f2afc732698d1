/* The validator (src/ir/validate.c) and the writer (src/io/tflite/writer.c).
   Validator: each check has a model that trips it (message and err fields) and a near miss
   that passes. Writer: identifier, determinism, alignment of every buffer payload (checked
   with a small flatbuffer walker of our own, independent of the reader), round trips
   builder -> write -> read -> write, every options table, presence rules, external buffers,
   and the file writer's refusals and atomicity. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "io/tflite/fields.h"
#include "ir/schema_gen.h"
#include "lg/lg.h"
#include "tf.h"

static int contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

#define CHECK_MSG(errp, substr)                                                               \
    do {                                                                                      \
        if (!contains((errp)->msg, substr))                                                   \
            tf_fail(__FILE__, __LINE__, "message \"%s\" lacks \"%s\"", (errp)->msg, substr);  \
    } while (0)

/* Expect lg_model_validate(m) to fail with substr and the given err fields. */
#define CHECK_INVALID(m, substr, want_sg, want_op, want_tensor)                                              \
    do {                                                                                      \
        lg_error e_;                                                                          \
        CHECK_EQ_INT(lg_model_validate((m), &e_), LG_ERR_INVALID_ARG);                        \
        CHECK_EQ_INT(e_.status, LG_ERR_INVALID_ARG);                                          \
        CHECK_MSG(&e_, substr);                                                               \
        CHECK_EQ_INT(e_.subgraph, want_sg);                                                   \
        CHECK_EQ_INT(e_.op, want_op);                                                         \
        CHECK_EQ_INT(e_.tensor, want_tensor);                                                 \
    } while (0)

#define CHECK_VALID(m)                                                                        \
    do {                                                                                      \
        lg_error e_;                                                                          \
        CHECK_OK(lg_model_validate((m), &e_), &e_);                                           \
    } while (0)

/* ------------------------------------------------------------------ a small flatbuffer walker */

static uint32_t u32at(const uint8_t *b, size_t p) { return lgi_rd_u32(b + p); }
/* Absolute position of field id of the table at tpos, or 0 if absent. */
static size_t fb_field(const uint8_t *b, size_t tpos, unsigned id) {
    size_t vt = tpos - (size_t)(int32_t)u32at(b, tpos);
    uint16_t vsize = lgi_rd_u16(b + vt);
    if (4 + 2 * id >= vsize) return 0;
    uint16_t off = lgi_rd_u16(b + vt + 4 + 2 * id);
    return off ? tpos + off : 0;
}
static size_t fb_deref(const uint8_t *b, size_t pos) { return pos + u32at(b, pos); }
/* The table at element i of the vector of tables that field id of table tpos points to. */
static size_t fb_vec_table(const uint8_t *b, size_t tpos, unsigned id, uint32_t i) {
    size_t v = fb_deref(b, fb_field(b, tpos, id));
    return fb_deref(b, v + 4 + 4 * (size_t)i);
}

/* ------------------------------------------------------------------ models */

/* x [1,4] + k (const) -> y; q: per-channel INT8 const [3,2]; signature; metadata. */
static lg_model *base_model(void) {
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    if (!m) return NULL;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    float k[4] = {1, 2, 3, 4};
    int8_t qd[6] = {1, 2, 3, 4, 5, 6};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int c = lg_b_const_f32(&b, "k", LG_DIMS(1, 4), k);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    int q = lg_b_const(&b, "q", LG_INT8, LG_DIMS(3, 2), qd, 6);
    lg_b_op(&b, LG_OP_ADD, LG_IDS(x, c), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    float sc[3] = {0.5f, 0.25f, 0.125f};
    CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)q, sc, NULL, 3, 0, &err), &err);
    const char *in[1] = {"in"}, *out[1] = {"out"};
    uint32_t ti[1] = {(uint32_t)x}, to[1] = {(uint32_t)y};
    CHECK_OK(lg_model_add_signature(m, "sig", 0, in, ti, 1, out, to, 1, &err), &err);
    CHECK_OK(lg_model_add_metadata(m, "meta", "abcd", 4, &err), &err);
    return m;
}

/* ------------------------------------------------------------------ validator */

LG_TEST(validate_base_and_null) {
    lg_model *m = base_model();
    if (!m) return;
    CHECK_VALID(m);
    lg_error e;
    CHECK_EQ_INT(lg_model_validate(NULL, &e), LG_ERR_INVALID_ARG);
    CHECK_EQ_INT(lg_model_validate(m, NULL), LG_OK);
    lg_model_free(m);
}

LG_TEST(validate_opcode_index) {
    lg_model *m = base_model();
    if (!m) return;
    m->subgraphs[0].ops[0].opcode_index = 5;
    CHECK_INVALID(m, "subgraph 0 op 0 (?): opcode index 5 of 1", 0, 0, -1);
    m->subgraphs[0].ops[0].opcode_index = 0;
    CHECK_VALID(m);
    lg_model_free(m);
}

LG_TEST(validate_op_tensor_indices) {
    lg_model *m = base_model();
    if (!m) return;
    lg_op *op = &m->subgraphs[0].ops[0];
    static const int32_t bad_in[2] = {0, 99}, opt_in[2] = {0, -1}, neg[1] = {-1}, big[1] = {4},
                         inter_bad[1] = {7}, inter_ok[1] = {3}, y[1] = {2};
    op->inputs = bad_in;
    CHECK_INVALID(m, "subgraph 0 op 0 (ADD): input 1 refers to tensor 99 of 4", 0, 0, -1);
    op->inputs = opt_in; /* -1: optional input, fine */
    CHECK_VALID(m);
    op->outputs = neg;
    CHECK_INVALID(m, "subgraph 0 op 0 (ADD): output 0 refers to tensor -1 of 4", 0, 0, -1);
    op->outputs = big;
    CHECK_INVALID(m, "output 0 refers to tensor 4 of 4", 0, 0, -1);
    op->outputs = y;
    op->intermediates = inter_bad;
    op->n_intermediates = 1;
    CHECK_INVALID(m, "intermediate 0 refers to tensor 7 of 4", 0, 0, -1);
    op->intermediates = inter_ok;
    CHECK_VALID(m);
    op->n_inputs = 3;
    op->inputs = NULL;
    CHECK_INVALID(m, "3 inputs but no data", 0, 0, -1);
    lg_model_free(m);
}

LG_TEST(validate_subgraph_io) {
    lg_model *m = base_model();
    if (!m) return;
    lg_subgraph *s = &m->subgraphs[0];
    static const int32_t four[1] = {4}, neg[1] = {-1}, three[1] = {3};
    s->inputs = four;
    CHECK_INVALID(m, "subgraph 0: input 0 refers to tensor 4 of 4", 0, -1, -1);
    s->inputs = three;
    CHECK_VALID(m);
    s->outputs = neg;
    CHECK_INVALID(m, "subgraph 0: output 0 refers to tensor -1 of 4", 0, -1, -1);
    lg_model_free(m);
}

LG_TEST(validate_tensor_fields) {
    lg_model *m = base_model();
    if (!m) return;
    lg_tensor *k = &m->subgraphs[0].tensors[1];
    lg_tensor *x = &m->subgraphs[0].tensors[0];
    k->buffer = 9;
    CHECK_INVALID(m, "subgraph 0 tensor 1 (\"k\"): buffer 9 of 4", 0, -1, 1);
    k->buffer = 1;
    CHECK_VALID(m);
    x->type = LG_DTYPE_COUNT;
    CHECK_INVALID(m, "subgraph 0 tensor 0 (\"x\"): type 23 is not a TensorType", 0, -1, 0);
    x->type = -1;
    CHECK_INVALID(m, "type -1 is not a TensorType", 0, -1, 0);
    x->type = LG_FLOAT8_E5M2;
    CHECK_VALID(m);
    static const int32_t neg_shape[2] = {1, -1}, sig_bad[2] = {-2, 4}, sig_ok[2] = {-1, 4};
    x->shape = neg_shape;
    CHECK_INVALID(m, "subgraph 0 tensor 0 (\"x\"): shape dimension 1 is -1", 0, -1, 0);
    x->shape = NULL;
    CHECK_INVALID(m, "rank 2 but no shape", 0, -1, 0);
    x->shape = sig_ok + 1; /* {4, ...}: any non-negative dims */
    x->rank = 1;
    x->shape_signature = sig_bad;
    x->n_shape_signature = 2;
    CHECK_INVALID(m, "shape signature dimension 0 is -2", 0, -1, 0);
    x->shape_signature = sig_ok;
    CHECK_VALID(m);
    lg_model_free(m);
}

LG_TEST(validate_quantization) {
    lg_model *m = base_model();
    if (!m) return;
    lg_tensor *q = &m->subgraphs[0].tensors[3]; /* [3,2], 3 scales on dim 0 */
    lg_quant *qp = q->quant;
    static const int64_t zp2[2] = {0, 0};
    const int64_t *zp_orig = qp->zero_point;
    qp->zero_point = zp2;
    qp->n_zero_point = 2;
    CHECK_INVALID(m, "subgraph 0 tensor 3 (\"q\"): 3 quantization scales but 2 zero points", 0,
                  -1, 3);
    qp->zero_point = NULL; /* absent zero points are fine */
    qp->n_zero_point = 0;
    CHECK_VALID(m);
    qp->zero_point = zp_orig;
    qp->n_zero_point = 3;
    qp->quantized_dimension = 2;
    CHECK_INVALID(m, "quantized dimension 2 is not in [0, 2) (3 scales)", 0, -1, 3);
    qp->quantized_dimension = -1;
    CHECK_INVALID(m, "quantized dimension -1", 0, -1, 3);
    qp->quantized_dimension = 1;
    CHECK_INVALID(m, "3 quantization scales for dimension 1 of size 2", 0, -1, 3);
    qp->quantized_dimension = 0;
    CHECK_VALID(m);
    /* per-tensor: the quantized dimension is not looked at */
    qp->n_scale = 1;
    qp->n_zero_point = 1;
    qp->quantized_dimension = 7;
    CHECK_VALID(m);
    qp->details_kind = (lg_opts_kind)2999;
    CHECK_INVALID(m, "unknown quantization details kind 2999", 0, -1, 3);
    qp->details_kind = LG_QDETAILS_BLOCKWISE_QUANTIZATION;
    CHECK_VALID(m);
    lg_model_free(m);
}

LG_TEST(validate_options_kind) {
    lg_model *m = base_model();
    if (!m) return;
    lg_op *op = &m->subgraphs[0].ops[0];
    op->opts_kind = (lg_opts_kind)500;
    CHECK_INVALID(m, "subgraph 0 op 0 (ADD): unknown options kind 500", 0, 0, -1);
    op->opts_kind = LG_QDETAILS_CUSTOM_QUANTIZATION; /* not an operator's options */
    CHECK_INVALID(m, "unknown options kind 2001", 0, 0, -1);
    op->opts_kind = LG_OPTS_ADD_OPTIONS; /* no struct: written as an empty table */
    CHECK_VALID(m);
    lg_reshape_options ro;
    memset(&ro, 0, sizeof ro);
    ro.new_shape.n = 2;
    op->opts_kind = LG_OPTS_RESHAPE_OPTIONS;
    op->opts = &ro;
    CHECK_INVALID(m, "options field new_shape has a count but no data", 0, 0, -1);
    op->opts = NULL;
    op->opts_kind = LG_OPTS_STABLEHLO_CASE_OPTIONS;
    CHECK_VALID(m);
    lg_model_free(m);
}

LG_TEST(validate_constant_size) {
    lg_model *m = base_model();
    if (!m) return;
    lg_buffer *kb = &m->buffers[1];
    kb->size = 12;
    CHECK_INVALID(m, "subgraph 0 tensor 1 (\"k\"): constant data (buffer 1) is 12 bytes, "
                     "expected 16 (4 x FLOAT32)", 0, -1, 1);
    /* near misses: sparse data, variable-size types and empty buffers are not checked */
    lg_sparsity sp;
    memset(&sp, 0, sizeof sp);
    m->subgraphs[0].tensors[1].sparsity = &sp;
    CHECK_VALID(m);
    m->subgraphs[0].tensors[1].sparsity = NULL;
    m->subgraphs[0].tensors[1].type = LG_STRING;
    CHECK_VALID(m);
    m->subgraphs[0].tensors[1].type = LG_FLOAT32;
    kb->size = 0;
    CHECK_VALID(m);
    kb->size = 16;
    CHECK_VALID(m);
    /* sub-byte: 7 INT4 values need 4 bytes */
    static const int32_t seven[1] = {7};
    m->subgraphs[0].tensors[1].type = LG_INT4;
    m->subgraphs[0].tensors[1].shape = seven;
    m->subgraphs[0].tensors[1].rank = 1;
    kb->size = 4;
    CHECK_VALID(m);
    kb->size = 7;
    CHECK_INVALID(m, "is 7 bytes, expected 4 (7 x INT4)", 0, -1, 1);
    kb->size = 5;
    kb->data = NULL;
    CHECK_INVALID(m, "buffer 1: 5 bytes but no data", -1, -1, -1);
    lg_model_free(m);
}

LG_TEST(validate_signatures_and_metadata) {
    lg_model *m = base_model();
    if (!m) return;
    lg_signature *s = &m->signatures[0];
    s->subgraph_index = 3;
    CHECK_INVALID(m, "signature 0 (\"sig\"): subgraph 3 of 1", -1, -1, -1);
    s->subgraph_index = 0;
    s->outputs[0].tensor_index = 10;
    CHECK_INVALID(m, "signature 0 (\"sig\"): output 0 (\"out\") refers to tensor 10 of 4", 0, -1,
                  -1);
    s->outputs[0].tensor_index = 3;
    CHECK_VALID(m);
    m->metadata[0].buffer = 9;
    CHECK_INVALID(m, "metadata 0 (\"meta\"): buffer 9 of 4", -1, -1, -1);
    m->metadata[0].buffer = 3;
    CHECK_VALID(m);
    static const int32_t mb_bad[1] = {-1}, mb_ok[1] = {2};
    m->metadata_buffer = mb_bad;
    m->n_metadata_buffer = 1;
    CHECK_INVALID(m, "metadata_buffer 0 refers to buffer -1 of 4", -1, -1, -1);
    m->metadata_buffer = mb_ok;
    CHECK_VALID(m);
    lg_model_free(m);
}

LG_TEST(validate_external_buffers) {
    lg_model *m = base_model();
    if (!m) return;
    lg_external_buffer_group groups[1] = {{"weights.bin"}};
    lg_external_buffer eb[2];
    memset(eb, 0, sizeof eb);
    eb[0].id = 5;
    eb[1].id = 6;
    m->external_buffer_groups = groups;
    m->n_external_buffer_groups = 1;
    m->external_buffers = eb;
    m->n_external_buffers = 2;
    CHECK_VALID(m);
    eb[1].group = 1;
    CHECK_INVALID(m, "external buffer 1 (id 6): group 1 of 1", -1, -1, -1);
    eb[1].group = 0;
    eb[1].id = 0;
    CHECK_INVALID(m, "external buffer 1: id 0 is reserved", -1, -1, -1);
    eb[1].id = 5;
    CHECK_INVALID(m, "external buffer id 5 is used twice", -1, -1, -1);
    eb[1].id = 6;
    eb[1].offset = UINT64_MAX;
    eb[1].length = 2;
    CHECK_INVALID(m, "overflows", -1, -1, -1);
    eb[1].offset = 0;
    m->subgraphs[0].tensors[0].external_buffer = 7;
    CHECK_INVALID(m, "subgraph 0 tensor 0 (\"x\"): external buffer 7 is not among", 0, -1, 0);
    m->subgraphs[0].tensors[0].external_buffer = 6;
    CHECK_VALID(m);
    lg_model_free(m);
}

LG_TEST(validate_sparsity_index_types) {
    lg_model *m = base_model();
    if (!m) return;
    static const int32_t seg[2] = {0, 300}, seg_ok[2] = {0, 255};
    lg_dim_meta dm[1];
    memset(dm, 0, sizeof dm);
    dm[0].format = LG_DIMENSION_TYPE_SPARSE_CSR;
    dm[0].segments_type = 3;
    dm[0].segments = seg;
    dm[0].n_segments = 2;
    lg_sparsity sp;
    memset(&sp, 0, sizeof sp);
    sp.dim_metadata = dm;
    sp.n_dim_metadata = 1;
    m->subgraphs[0].tensors[1].sparsity = &sp;
    CHECK_INVALID(m, "sparsity dimension 0: array_segments value 300 does not fit Uint8Vector", 0,
                  -1, 1);
    dm[0].segments_type = 2;
    CHECK_VALID(m);
    dm[0].segments_type = 3;
    dm[0].segments = seg_ok;
    CHECK_VALID(m);
    dm[0].indices_type = 4;
    CHECK_INVALID(m, "array_indices type 4 is not in [0, 3]", 0, -1, 1);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ writer basics */

static int write_bytes(const lg_model *m, const lg_write_options *o, uint8_t **buf, size_t *n) {
    lg_error err;
    void *p = NULL;
    *buf = NULL;
    *n = 0;
    lg_status st = lg_tflite_write_mem(m, o, &p, n, &err);
    if (st != LG_OK) {
        tf_fail(__FILE__, __LINE__, "write_mem: %s", err.msg);
        return 0;
    }
    *buf = p;
    return 1;
}

LG_TEST(writer_identifier_and_determinism) {
    lg_model *m1 = base_model(), *m2 = base_model();
    if (!m1 || !m2) return;
    uint8_t *a, *b, *c;
    size_t na, nb, nc;
    if (!write_bytes(m1, NULL, &a, &na) || !write_bytes(m1, NULL, &b, &nb) ||
        !write_bytes(m2, NULL, &c, &nc))
        return;
    CHECK(na > 8 && memcmp(a + 4, "TFL3", 4) == 0);
    uint32_t root = lgi_rd_u32(a);
    CHECK(root >= 8 && root < na && root % 4 == 0);
    CHECK(na == nb && memcmp(a, b, na) == 0);
    CHECK(na == nc && memcmp(a, c, na) == 0); /* separately built, same IR */
    /* the version field is 3 */
    CHECK_EQ_INT(u32at(a, fb_field(a, root, FB_MODEL_VERSION)), 3);
    free(a);
    free(b);
    free(c);
    lg_error err;
    void *p = (void *)1;
    size_t n = 1;
    CHECK_EQ_INT(lg_tflite_write_mem(NULL, NULL, &p, &n, &err), LG_ERR_INVALID_ARG);
    CHECK(p == NULL && n == 0);
    CHECK_EQ_INT(lg_tflite_write_mem(m1, NULL, NULL, &n, &err), LG_ERR_INVALID_ARG);
    lg_model_free(m1);
    lg_model_free(m2);
}

LG_TEST(writer_rejects_invalid_model) {
    lg_model *m = base_model();
    if (!m) return;
    static const int32_t bad[2] = {0, 99};
    m->subgraphs[0].ops[0].inputs = bad;
    lg_error err;
    void *p = NULL;
    size_t n = 0;
    CHECK_EQ_INT(lg_tflite_write_mem(m, NULL, &p, &n, &err), LG_ERR_INVALID_ARG);
    CHECK_MSG(&err, "subgraph 0 op 0 (ADD): input 1 refers to tensor 99 of 4");
    CHECK(p == NULL);
    lg_model_free(m);
}

/* Every Buffer.data payload 16-aligned, with the right bytes; walked without the reader. */
static void check_buffers_in_file(const lg_model *m, const uint8_t *f, size_t n, int external) {
    size_t root = u32at(f, 0);
    size_t bf = fb_field(f, root, FB_MODEL_BUFFERS);
    CHECK(bf != 0);
    if (!bf) return;
    size_t bv = fb_deref(f, bf);
    CHECK_EQ_INT(u32at(f, bv), m->n_buffers);
    for (uint32_t i = 0; i < m->n_buffers; i++) {
        size_t t = fb_vec_table(f, root, FB_MODEL_BUFFERS, i);
        size_t d = fb_field(f, t, FB_BUFFER_DATA);
        size_t off = fb_field(f, t, FB_BUFFER_OFFSET), sz = fb_field(f, t, FB_BUFFER_SIZE);
        const lg_buffer *b = &m->buffers[i];
        if (!b->data) {
            CHECK(!d && !off && !sz);
            continue;
        }
        if (d) {
            size_t v = fb_deref(f, d);
            if ((v + 4) % 16 != 0) tf_fail(__FILE__, __LINE__, "buffer %u payload at %zu", i, v + 4);
            CHECK_EQ_INT(u32at(f, v), b->size);
            CHECK(v + 4 + b->size <= n && memcmp(f + v + 4, b->data, (size_t)b->size) == 0);
            CHECK(!external || b->size == 0 || i == m->metadata[0].buffer);
        } else {
            CHECK(external && off && sz);
            if (!off || !sz) continue;
            CHECK(off % 8 == 0 && sz % 8 == 0); /* 8-byte scalars at 8-aligned positions */
            uint64_t o = lgi_rd_u64(f + off), s = lgi_rd_u64(f + sz);
            CHECK(o > 1 && o % 16 == 0);
            CHECK_EQ_INT(s, b->size);
            CHECK(o + s <= n && memcmp(f + o, b->data, (size_t)s) == 0);
        }
    }
}

LG_TEST(writer_buffer_alignment) {
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    if (!m) return;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    static const uint8_t bytes[40] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
    /* odd sizes and odd-length names between them, to shift everything around */
    for (int i = 1; i <= 23; i += 2) {
        char name[32];
        snprintf(name, sizeof name, "c%.*s", i % 7, "xxxxxxx");
        lg_b_const(&b, name, LG_INT8, LG_DIMS(i), bytes, (uint64_t)i);
    }
    int64_t l[3] = {1, 2, 3};
    lg_b_const(&b, "l", LG_INT64, LG_DIMS(3), l, sizeof l);
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_OK(lg_model_add_metadata(m, "meta", "xyz", 3, &err), &err);
    uint8_t *f;
    size_t n;
    if (write_bytes(m, NULL, &f, &n)) {
        check_buffers_in_file(m, f, n, 0);
        free(f);
    }
    lg_write_options o = {.external_buffers = true};
    if (write_bytes(m, &o, &f, &n)) {
        check_buffers_in_file(m, f, n, 1);
        free(f);
    }
    lg_model_free(m);
}

/* ------------------------------------------------------------------ round trips */

/* A model touching every part of the schema the IR holds. Pointers to static data are fine:
   the writer only reads. */
static lg_model *rich_model(void) {
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    if (!m) return NULL;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    static const float w[3 * 1 * 1 * 2] = {1, 2, 3, 4, 5, 6}, bias[3] = {0.5f, -0.5f, 0};
    static const int32_t ns[2] = {16, 3};
    static const uint8_t copts[5] = {9, 8, 7, 6, 5};
    static const int64_t st0[2] = {0, 0}, st1[2] = {8, 3}, st2[2] = {1, 1};
    static const uint8_t cattr[3] = {1, 2, 3};
    static const int8_t q8[6] = {-1, 2, -3, 4, -5, 6};
    static const float dense8[8] = {0}, sv[3] = {1, 2, 3};
    lg_conv2d_options co = {LG_PADDING_SAME, 1, 1, LG_ACTIVATION_FUNCTION_TYPE_RELU, 1, 1, 0};
    lg_reshape_options ro = {{ns, 2}};
    lg_softmax_options so = {-0.0f};
    lg_stablehlo_slice_options slo = {{st0, 2}, {st1, 2}, {st2, 2}};
    lg_stablehlo_composite_options cmp = {"my.composite", 1, {cattr, 3}, 0, 2};

    int x = lg_b_tensor(&b, "input", LG_FLOAT32, LG_DIMS(1, 4, 4, 2));            /* 0 */
    int wt = lg_b_const_f32(&b, "w", LG_DIMS(3, 1, 1, 2), w);                       /* 1 */
    int bt = lg_b_const_f32(&b, "b", LG_DIMS(3), bias);                             /* 2 */
    int conv = lg_b_tensor(&b, "conv", LG_FLOAT32, LG_DIMS(1, 4, 4, 3));            /* 3 */
    lg_b_op_opts(&b, LG_OP_CONV_2D, LG_IDS(x, wt, bt), LG_IDS(conv), LG_OPTS_CONV2D_OPTIONS, &co);
    int r = lg_b_tensor(&b, "reshaped", LG_FLOAT32, LG_DIMS(16, 3));                /* 4 */
    lg_b_op_opts(&b, LG_OP_RESHAPE, LG_IDS(conv), LG_IDS(r), LG_OPTS_RESHAPE_OPTIONS, &ro);
    int s = lg_b_tensor(&b, "softmax", LG_FLOAT32, LG_DIMS(16, 3));                 /* 5 */
    int sm = lg_b_op_opts(&b, LG_OP_SOFTMAX, LG_IDS(r), LG_IDS(s), LG_OPTS_SOFTMAX_OPTIONS, &so);
    int cu = lg_b_tensor(&b, "custom", LG_FLOAT32, LG_DIMS(16, 3));                 /* 6 */
    lg_b_custom(&b, "MyCustom", LG_IDS(s, -1), LG_IDS(cu), copts, 5);
    int sl = lg_b_tensor(&b, "sliced", LG_FLOAT32, LG_DIMS(8, 3));                  /* 7 */
    lg_b_op_opts(&b, LG_OP_STABLEHLO_SLICE, LG_IDS(cu), LG_IDS(sl),
                 LG_OPTS_STABLEHLO_SLICE_OPTIONS, &slo);
    int comp = lg_b_tensor(&b, "comp", LG_FLOAT32, LG_DIMS(8, 3));                  /* 8 */
    int cop = lg_b_op_opts(&b, LG_OP_STABLEHLO_COMPOSITE, LG_IDS(sl), LG_IDS(comp),
                           LG_OPTS_STABLEHLO_COMPOSITE_OPTIONS, &cmp);
    int qt = lg_b_const(&b, "qw", LG_INT8, LG_DIMS(3, 2), q8, 6);                   /* 9 */
    /* added dense, then given sparsity and its 3 stored values below */
    int spt = lg_b_const_f32(&b, "sparse", LG_DIMS(2, 4), dense8);                  /* 10 */
    int var = lg_b_tensor(&b, "variant", LG_VARIANT, LG_SCALAR);                    /* 11 */
    int str = lg_b_const(&b, "strings", LG_STRING, LG_DIMS(1),
                         "\1\0\0\0\14\0\0\0\15\0\0\0a", 13);                          /* 12 */
    lg_b_io(&b, LG_IDS(x), LG_IDS(comp, str));
    CHECK_EQ_INT(b.status, LG_OK);
    if (b.status != LG_OK) {
        lg_model_free(m);
        return NULL;
    }
    uint32_t sg2;
    CHECK_OK(lg_model_add_subgraph(m, "cond", &sg2, &err), &err);
    lg_builder b2;
    lg_builder_init(&b2, m, sg2);
    int c0 = lg_b_tensor(&b2, "c0", LG_BOOL, LG_SCALAR);
    int c1 = lg_b_tensor(&b2, "c1", LG_BOOL, LG_SCALAR);
    lg_b_op(&b2, LG_OP_LOGICAL_NOT, LG_IDS(c0), LG_IDS(c1));
    lg_b_io(&b2, LG_IDS(c0), LG_IDS(c1));
    CHECK_EQ_INT(b2.status, LG_OK);
    m->subgraphs[sg2].debug_metadata_index = 3;
    m->subgraphs[sg2].ops[0].debug_metadata_index = 0;

    lg_subgraph *g = &m->subgraphs[0];
    /* quantization with everything */
    float sc[3] = {0.5f, 0.25f, 0.125f};
    int64_t zp[3] = {0, 1, -1};
    CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)qt, sc, zp, 3, 0, &err), &err);
    static const float qmin[1] = {-1}, qmax[1] = {1};
    static const uint8_t custom_q[5] = {0xc0, 0xff, 0xee, 0, 1};
    static lg_custom_quantization cq = {{custom_q, 5}};
    lg_quant *q = g->tensors[qt].quant;
    q->min = qmin;
    q->n_min = 1;
    q->max = qmax;
    q->n_max = 1;
    q->details_kind = LG_QDETAILS_CUSTOM_QUANTIZATION;
    q->details = &cq;
    /* sparsity: dense dim 0 (size 2), CSR dim 1 with uint8 segments and uint16 indices */
    static const int32_t trav[2] = {0, 1}, seg[3] = {0, 1, 3}, idx[3] = {2, 0, 3};
    static lg_dim_meta dms[2];
    memset(dms, 0, sizeof dms);
    dms[0].format = LG_DIMENSION_TYPE_DENSE;
    dms[0].dense_size = 2;
    dms[1].format = LG_DIMENSION_TYPE_SPARSE_CSR;
    dms[1].segments_type = 3;
    dms[1].segments = seg;
    dms[1].n_segments = 3;
    dms[1].indices_type = 2;
    dms[1].indices = idx;
    dms[1].n_indices = 3;
    static lg_sparsity sp;
    memset(&sp, 0, sizeof sp);
    sp.traversal_order = trav;
    sp.n_traversal_order = 2;
    sp.block_map = lgi_empty_vec; /* present, empty */
    sp.dim_metadata = dms;
    sp.n_dim_metadata = 2;
    g->tensors[spt].sparsity = &sp;
    CHECK_OK(lg_buffer_set_data(m, g->tensors[spt].buffer, sv, 12, &err), &err);
    /* variant subtypes */
    static const int32_t vshape[2] = {2, 2};
    static lg_variant_subtype vst[1];
    memset(vst, 0, sizeof vst);
    vst[0].shape = vshape;
    vst[0].rank = 2;
    vst[0].type = LG_INT32;
    vst[0].has_rank = true;
    g->tensors[var].variant_tensors = vst;
    g->tensors[var].n_variant_tensors = 1;
    g->tensors[var].is_variable = true;
    /* shape signature, intermediates, mutating inputs */
    static const int32_t ssig[4] = {-1, 4, 4, 2};
    CHECK_OK(lg_tensor_set_shape_signature(m, 0, (uint32_t)x, ssig, 4, &err), &err);
    static const int32_t inter[1] = {0};
    static const uint8_t mut[2] = {0, 1};
    g->ops[sm].intermediates = inter;
    g->ops[sm].n_intermediates = 1;
    g->ops[cop].mutating_variable_inputs = mut;
    g->ops[cop].n_mutating_variable_inputs = 2;
    g->ops[cop].debug_metadata_index = 7;
    /* model level */
    CHECK_OK(lg_model_set_description(m, "rich test model", &err), &err);
    CHECK_OK(lg_model_add_metadata(m, "min_runtime_version", "1.14.0\0\0\0\0\0\0\0\0\0", 16, &err),
             &err);
    static int32_t mbuf[1];
    mbuf[0] = (int32_t)m->metadata[0].buffer;
    m->metadata_buffer = mbuf;
    m->n_metadata_buffer = 1;
    const char *in_names[1] = {"input"}, *out_names[2] = {"out", "strings"};
    uint32_t in_t[1] = {(uint32_t)x}, out_t[2] = {(uint32_t)comp, (uint32_t)str};
    CHECK_OK(lg_model_add_signature(m, "serving_default", 0, in_names, in_t, 1, out_names, out_t,
                                    2, &err), &err);
    CHECK_OK(lg_model_add_signature(m, "cond", sg2, NULL, NULL, 0, NULL, NULL, 0, &err), &err);
    static lg_external_buffer_group grp[1] = {{"weights.bin"}};
    static lg_external_buffer ext[1];
    memset(ext, 0, sizeof ext);
    ext[0].id = 1;
    ext[0].group = 0;
    ext[0].offset = 4096;
    ext[0].length = 1 << 20;
    ext[0].packing = "unpacked";
    m->external_buffer_groups = grp;
    m->n_external_buffer_groups = 1;
    m->external_buffers = ext;
    m->n_external_buffers = 1;
    g->tensors[bt].external_buffer = 1;
    CHECK_OK(lg_model_validate(m, &err), &err);
    return m;
}

LG_TEST(writer_round_trip_rich) {
    lg_model *m = rich_model();
    if (!m) return;
    uint8_t *a, *c;
    size_t na, nc;
    if (!write_bytes(m, NULL, &a, &na)) return;
    check_buffers_in_file(m, a, na, 0);
    lg_error err;
    lg_model *r = NULL;
    CHECK_OK(lg_tflite_read_mem(a, na, NULL, &r, &err), &err);
    if (!r) {
        free(a);
        lg_model_free(m);
        return;
    }
    if (write_bytes(r, NULL, &c, &nc)) {
        CHECK(na == nc && memcmp(a, c, na) == 0);
        free(c);
    }
    /* spot checks of what came back */
    CHECK_STR(r->description, "rich test model");
    CHECK_EQ_INT(r->n_subgraphs, 2);
    CHECK_EQ_INT(r->subgraphs[1].debug_metadata_index, 3);
    CHECK_EQ_INT(r->subgraphs[1].ops[0].debug_metadata_index, 0);
    const lg_subgraph *g = &r->subgraphs[0];
    CHECK_EQ_INT(g->tensors[0].shape_signature[0], -1);
    const lg_conv2d_options *co = g->ops[0].opts;
    CHECK_EQ_INT(g->ops[0].opts_kind, LG_OPTS_CONV2D_OPTIONS);
    CHECK(co && co->stride_w == 1 && co->dilation_h_factor == 1 &&
          co->fused_activation_function == LG_ACTIVATION_FUNCTION_TYPE_RELU);
    const lg_softmax_options *so = g->ops[2].opts;
    CHECK(so && so->beta == 0.0f && signbit(so->beta)); /* -0.0 is not the default 0.0 */
    CHECK_EQ_INT(g->ops[2].n_intermediates, 1);
    CHECK_STR(lg_op_name(r, &g->ops[3]), "MyCustom");
    CHECK_EQ_INT(g->ops[3].n_custom_options, 5);
    CHECK_EQ_INT(g->ops[3].inputs[1], -1);
    const lg_stablehlo_slice_options *slo = g->ops[4].opts;
    CHECK_EQ_INT(g->ops[4].opts_kind, LG_OPTS_STABLEHLO_SLICE_OPTIONS);
    CHECK(slo && slo->limit_indices.n == 2 && ((const int64_t *)slo->limit_indices.data)[0] == 8);
    const lg_stablehlo_composite_options *cmp = g->ops[5].opts;
    CHECK(cmp && cmp->name && strcmp(cmp->name, "my.composite") == 0 && cmp->version == 2);
    CHECK_EQ_INT(g->ops[5].n_mutating_variable_inputs, 2);
    CHECK_EQ_INT(g->ops[5].debug_metadata_index, 7);
    const lg_tensor *qt = &g->tensors[9];
    CHECK_STR(qt->name, "qw");
    CHECK(qt->quant && qt->quant->n_scale == 3 && qt->quant->zero_point[2] == -1);
    CHECK(qt->quant && qt->quant->details_kind == LG_QDETAILS_CUSTOM_QUANTIZATION);
    if (qt->quant && qt->quant->details) {
        const lg_custom_quantization *cq = qt->quant->details;
        CHECK_EQ_INT(cq->custom.n, 5);
        CHECK(cq->custom.data && memcmp(cq->custom.data, "\xc0\xff\xee", 3) == 0);
        /* CustomQuantization.custom is force_align 16: walk to it in the file */
        size_t root = u32at(a, 0);
        size_t sgt = fb_vec_table(a, root, FB_MODEL_SUBGRAPHS, 0);
        size_t tt = fb_vec_table(a, sgt, FB_SUBGRAPH_TENSORS, 9);
        size_t qp = fb_deref(a, fb_field(a, tt, FB_TENSOR_QUANTIZATION));
        size_t dp = fb_deref(a, fb_field(a, qp, FB_QUANT_DETAILS));
        size_t cv = fb_deref(a, fb_field(a, dp, 0));
        CHECK_EQ_INT(u32at(a, cv), 5);
        CHECK_EQ_INT((cv + 4) % 16, 0);
        CHECK_EQ_INT(a[fb_field(a, qp, FB_QUANT_DETAILS_TYPE)], 1);
    }
    const lg_tensor *spt = &g->tensors[10];
    CHECK(spt->sparsity != NULL);
    if (spt->sparsity) {
        const lg_dim_meta *dm = &spt->sparsity->dim_metadata[1];
        CHECK_EQ_INT(dm->segments_type, 3);
        CHECK_EQ_INT(dm->indices_type, 2);
        CHECK_EQ_INT(dm->segments[2], 3);
        CHECK_EQ_INT(dm->indices[0], 2);
        CHECK(spt->sparsity->block_map != NULL && spt->sparsity->n_block_map == 0);
    }
    const lg_tensor *var = &g->tensors[11];
    CHECK(var->is_variable && var->n_variant_tensors == 1 && var->variant_tensors[0].type == LG_INT32);
    CHECK_EQ_INT(g->tensors[2].external_buffer, 1);
    CHECK_EQ_INT(r->n_external_buffers, 1);
    CHECK_STR(r->external_buffers[0].packing, "unpacked");
    CHECK_EQ_INT(r->external_buffers[0].length, 1 << 20);
    CHECK_STR(r->external_buffer_groups[0].name, "weights.bin");
    CHECK_EQ_INT(r->n_signatures, 2);
    CHECK_EQ_INT(r->signatures[1].subgraph_index, 1);
    CHECK(r->signatures[1].inputs != NULL && r->signatures[1].n_inputs == 0);
    CHECK_STR(r->signatures[0].outputs[1].name, "strings");
    CHECK_EQ_INT(r->n_metadata_buffer, 1);
    CHECK_EQ_INT(r->opcodes[g->ops[0].opcode_index].builtin, LG_OP_CONV_2D);
    CHECK_EQ_INT(r->opcodes[g->ops[4].opcode_index].builtin, LG_OP_STABLEHLO_SLICE);
    CHECK_EQ_INT(r->opcodes[g->ops[4].opcode_index].deprecated_builtin_code, 127);
    free(a);
    lg_model_free(r);
    lg_model_free(m);
}

/* Fill every field of an options struct with a value that differs from its default. */
static void fill_opts(const lgi_table_desc *t, uint8_t *st, int salt) {
    static const int64_t v64[3] = {-5, 1LL << 40, 7};
    static const double d64[3] = {0.5, -2.25, 8};
    for (const lgi_field_desc *f = t->fields; f->name; f++) {
        uint8_t *p = st + f->offset;
        int v = (int)f->def + 1 + salt;
        switch ((lgi_field_kind)f->kind) {
        case LGI_F_BOOL: { bool x = f->def == 0; memcpy(p, &x, 1); break; }
        case LGI_F_I8: case LGI_F_U8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
        case LGI_F_I16: case LGI_F_U16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
        case LGI_F_I32: case LGI_F_U32: { int32_t x = -v * 1000; memcpy(p, &x, 4); break; }
        case LGI_F_I64: case LGI_F_U64: { int64_t x = -(int64_t)((uint64_t)(v & 0xff) << 35); memcpy(p, &x, 8); break; }
        case LGI_F_F32: { float x = 1.5f + (float)v; memcpy(p, &x, 4); break; }
        case LGI_F_F64: { double x = 2.5 + v; memcpy(p, &x, 8); break; }
        case LGI_F_STRING: { const char *s = "opt-string"; memcpy(p, &s, sizeof s); break; }
        default: {
            lg_vec vec = {v64, (uint32_t)(1 + (salt + f->id) % 3)};
            if (f->kind == LGI_F_VEC_F64 || f->kind == LGI_F_VEC_F32) vec.data = d64;
            if (f->kind == LGI_F_VEC_F32) { static const float f3[3] = {0.5f, -1, 3}; vec.data = f3; }
            if (f->kind == LGI_F_VEC_BOOL) { static const bool b3[3] = {true, false, true}; vec.data = b3; }
            memcpy(p, &vec, sizeof vec);
            break;
        }
        }
    }
}

LG_TEST(writer_all_option_tables) {
    /* one op per options table, every field off its default: values survive write + read */
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    if (!m) return;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2));
    static uint8_t store[200][512];
    int n = 0;
    for (int k = 1; k < 2000; k++) {
        const lgi_table_desc *t = lgi_opts_table((lg_opts_kind)k);
        if (!t) continue;
        memset(store[n], 0, sizeof store[n]);
        fill_opts(t, store[n], n % 5);
        /* an unknown custom op may carry any options table (the op table holds builtins to
           their own kind, so no single builtin could carry them all) */
        int32_t io[1] = {x}, idx;
        if (b.status == LG_OK &&
            lg_subgraph_add_op(m, 0, LG_OP_CUSTOM, "OptionsRoundTrip", 1, io, 1, io, 1,
                               (lg_opts_kind)k, store[n], &idx, &b.err) != LG_OK)
            b.status = b.err.status;
        n++;
    }
    CHECK_EQ_INT(b.status, LG_OK);
    CHECK_EQ_INT(n, lgi_opts_count1 + lgi_opts_count2);
    uint8_t *f;
    size_t nf;
    if (!write_bytes(m, NULL, &f, &nf)) {
        lg_model_free(m);
        return;
    }
    lg_model *r = NULL;
    CHECK_OK(lg_tflite_read_mem(f, nf, NULL, &r, &err), &err);
    for (uint32_t i = 0; r && i < r->subgraphs[0].n_ops; i++) {
        const lg_op *o = &r->subgraphs[0].ops[i];
        const lg_op *src = &m->subgraphs[0].ops[i];
        CHECK_EQ_INT(o->opts_kind, src->opts_kind);
        const lgi_table_desc *t = lgi_opts_table(o->opts_kind);
        if (!t || !o->opts) {
            CHECK(t != NULL);
            continue;
        }
        uint64_t want_present = 0;
        for (const lgi_field_desc *fd = t->fields; fd->name; fd++) {
            const uint8_t *a = (const uint8_t *)src->opts + fd->offset;
            const uint8_t *c = (const uint8_t *)o->opts + fd->offset;
            if (fd->kind == LGI_F_STRING) {
                const char *sa, *sc;
                memcpy(&sa, a, sizeof sa);
                memcpy(&sc, c, sizeof sc);
                CHECK(sc && strcmp(sa, sc) == 0);
            } else if (lgi_field_is_vec((lgi_field_kind)fd->kind)) {
                lg_vec va, vc;
                memcpy(&va, a, sizeof va);
                memcpy(&vc, c, sizeof vc);
                CHECK_EQ_INT(vc.n, va.n);
                if (vc.n == va.n && vc.data)
                    CHECK(memcmp(va.data, vc.data, va.n * lgi_field_elem_size((lgi_field_kind)fd->kind)) == 0);
            } else {
                want_present |= 1ull << fd->id;
                if (memcmp(a, c, lgi_field_elem_size((lgi_field_kind)fd->kind)) != 0)
                    tf_fail(__FILE__, __LINE__, "%s.%s differs after a round trip", t->name, fd->name);
            }
        }
        if ((o->opts_present & want_present) != want_present)
            tf_fail(__FILE__, __LINE__, "%s: present %llx, want %llx", t->name,
                    (unsigned long long)o->opts_present, (unsigned long long)want_present);
    }
    if (r) {
        uint8_t *f2;
        size_t n2;
        if (write_bytes(r, NULL, &f2, &n2)) {
            CHECK(n2 == nf && memcmp(f, f2, nf) == 0);
            free(f2);
        }
    }
    lg_model_free(r);
    free(f);
    lg_model_free(m);
}

LG_TEST(writer_presence_rules) {
    lg_model *m = base_model();
    if (!m) return;
    lg_error err;
    lg_subgraph *g = &m->subgraphs[0];
    /* defaults are not stored unless fb_present says the source stored them */
    lg_conv2d_options co = {0, 1, 1, 0, 1, 1, 0};
    int32_t in[1] = {0}, out[1] = {2}, o1, o2;
    /* a custom op carrying Conv2DOptions: the op table (which would hold a CONV_2D to its
       arity and shapes) has nothing to say about an unknown custom op */
    CHECK_OK(lg_subgraph_add_op(m, 0, LG_OP_CUSTOM, "PresenceTest", 1, in, 1, out, 1,
                                LG_OPTS_CONV2D_OPTIONS, &co, &o1, &err), &err);
    CHECK_OK(lg_subgraph_add_op(m, 0, LG_OP_CUSTOM, "PresenceTest", 1, in, 1, out, 1,
                                LG_OPTS_CONV2D_OPTIONS, &co, &o2, &err), &err);
    g = &m->subgraphs[0];
    g->ops[o2].opts_present = (1u << 4) | (1u << 0); /* dilation_w_factor, padding */
    g->tensors[0].fb_present = 1u << FB_TENSOR_TYPE;  /* FLOAT32 = 0, the default */
    g->ops[o2].fb_present = 1u << FB_OP_DEBUG_METADATA_INDEX;
    m->opcodes[0].fb_present = 1u << FB_OPCODE_VERSION;
    /* present-but-empty vs absent */
    static const float nothing[1] = {0};
    g->tensors[1].shape_signature = lgi_empty_vec;
    g->tensors[3].quant->min = nothing;
    g->tensors[3].quant->n_min = 0;
    g->ops[o1].intermediates = lgi_empty_vec;
    CHECK_OK(lg_model_set_description(m, "", &err), &err);
    uint8_t *f;
    size_t n;
    if (!write_bytes(m, NULL, &f, &n)) {
        lg_model_free(m);
        return;
    }
    lg_model *r = NULL;
    CHECK_OK(lg_tflite_read_mem(f, n, NULL, &r, &err), &err);
    if (r) {
        const lg_subgraph *rg = &r->subgraphs[0];
        CHECK_EQ_INT(rg->ops[o1].opts_present, (1u << 1) | (1u << 2)); /* strides only */
        CHECK_EQ_INT(rg->ops[o2].opts_present, (1u << 0) | (1u << 1) | (1u << 2) | (1u << 4));
        CHECK(rg->tensors[0].fb_present & (1u << FB_TENSOR_TYPE));
        CHECK(!(rg->tensors[2].fb_present & (1u << FB_TENSOR_TYPE)));
        CHECK(rg->ops[o2].fb_present & (1u << FB_OP_DEBUG_METADATA_INDEX));
        CHECK(!(rg->ops[o1].fb_present & (1u << FB_OP_DEBUG_METADATA_INDEX)));
        CHECK(r->opcodes[0].fb_present & (1u << FB_OPCODE_VERSION));
        CHECK(rg->tensors[1].shape_signature != NULL && rg->tensors[1].n_shape_signature == 0);
        CHECK(rg->tensors[0].shape_signature == NULL);
        CHECK(rg->tensors[3].quant->min != NULL && rg->tensors[3].quant->n_min == 0);
        CHECK(rg->tensors[3].quant->max == NULL);
        CHECK(rg->ops[o1].intermediates != NULL && rg->ops[o1].n_intermediates == 0);
        CHECK(rg->ops[0].intermediates == NULL);
        CHECK(r->description != NULL && r->description[0] == 0);
        uint8_t *f2;
        size_t n2;
        if (write_bytes(r, NULL, &f2, &n2)) {
            CHECK(n2 == n && memcmp(f, f2, n) == 0);
            free(f2);
        }
    }
    lg_model_free(r);
    free(f);
    lg_model_free(m);
}

LG_TEST(writer_external_buffers) {
    lg_model *m = base_model();
    if (!m) return;
    lg_error err;
    /* a custom op whose options the source stored after the flatbuffer */
    lg_builder b;
    lg_builder_init(&b, m, 0);
    static const uint8_t big_opts[100] = {1, 2, 3};
    int op = lg_b_custom(&b, "Big", LG_IDS(0), LG_IDS(2), big_opts, sizeof big_opts);
    CHECK_EQ_INT(b.status, LG_OK);
    if (b.status != LG_OK) return;
    m->subgraphs[0].ops[op].custom_options_large = true;
    lg_write_options o = {.external_buffers = true};
    uint8_t *f;
    size_t n;
    if (!write_bytes(m, &o, &f, &n)) {
        lg_model_free(m);
        return;
    }
    check_buffers_in_file(m, f, n, 1);
    /* large custom options: offset/size fields, 16-aligned, the bytes there */
    size_t root = u32at(f, 0);
    size_t sgt = fb_vec_table(f, root, FB_MODEL_SUBGRAPHS, 0);
    size_t opt = fb_vec_table(f, sgt, FB_SUBGRAPH_OPERATORS, (uint32_t)op);
    size_t lo = fb_field(f, opt, FB_OP_LARGE_CUSTOM_OPTIONS_OFFSET);
    size_t ls = fb_field(f, opt, FB_OP_LARGE_CUSTOM_OPTIONS_SIZE);
    CHECK(lo && ls && !fb_field(f, opt, FB_OP_CUSTOM_OPTIONS));
    if (lo && ls) {
        uint64_t off = lgi_rd_u64(f + lo), sz = lgi_rd_u64(f + ls);
        CHECK(off % 16 == 0 && sz == sizeof big_opts && off + sz <= n);
        CHECK(off + sz <= n && memcmp(f + off, big_opts, sizeof big_opts) == 0);
    }
    lg_model *r = NULL;
    CHECK_OK(lg_tflite_read_mem(f, n, NULL, &r, &err), &err);
    if (r) {
        CHECK(r->buffers[1].external);
        CHECK(!r->buffers[m->metadata[0].buffer].external); /* metadata stays inline */
        CHECK(r->buffers[1].size == 16 && memcmp(r->buffers[1].data, m->buffers[1].data, 16) == 0);
        CHECK(r->subgraphs[0].ops[op].custom_options_large);
        /* the IR remembers: a plain rewrite stays external and byte-identical */
        uint8_t *f2;
        size_t n2;
        if (write_bytes(r, NULL, &f2, &n2)) {
            CHECK(n2 == n && memcmp(f, f2, n) == 0);
            free(f2);
        }
    }
    /* without the option, each flagged item alone goes outside: buffer 2 and the options */
    m->buffers[2].external = true;
    uint8_t *f4;
    size_t n4;
    if (write_bytes(m, NULL, &f4, &n4)) {
        root = u32at(f4, 0);
        size_t b1 = fb_vec_table(f4, root, FB_MODEL_BUFFERS, 1);
        size_t b2 = fb_vec_table(f4, root, FB_MODEL_BUFFERS, 2);
        CHECK(fb_field(f4, b1, FB_BUFFER_DATA) && !fb_field(f4, b1, FB_BUFFER_OFFSET));
        CHECK(!fb_field(f4, b2, FB_BUFFER_DATA) && fb_field(f4, b2, FB_BUFFER_OFFSET));
        sgt = fb_vec_table(f4, root, FB_MODEL_SUBGRAPHS, 0);
        opt = fb_vec_table(f4, sgt, FB_SUBGRAPH_OPERATORS, (uint32_t)op);
        CHECK(fb_field(f4, opt, FB_OP_LARGE_CUSTOM_OPTIONS_OFFSET) != 0);
        lg_model *r4 = NULL;
        CHECK_OK(lg_tflite_read_mem(f4, n4, NULL, &r4, &err), &err);
        CHECK(r4 && !r4->buffers[1].external && r4->buffers[2].external);
        CHECK(r4 && memcmp(r4->buffers[2].data, m->buffers[2].data, 6) == 0);
        lg_model_free(r4);
        free(f4);
    }
    m->buffers[2].external = false;
    /* without the option and without flags, everything is inline */
    m->subgraphs[0].ops[op].custom_options_large = false;
    uint8_t *f3;
    size_t n3;
    if (write_bytes(m, NULL, &f3, &n3)) {
        root = u32at(f3, 0);
        sgt = fb_vec_table(f3, root, FB_MODEL_SUBGRAPHS, 0);
        opt = fb_vec_table(f3, sgt, FB_SUBGRAPH_OPERATORS, (uint32_t)op);
        CHECK(fb_field(f3, opt, FB_OP_CUSTOM_OPTIONS) && !fb_field(f3, opt, FB_OP_LARGE_CUSTOM_OPTIONS_OFFSET));
        check_buffers_in_file(m, f3, n3, 0);
        free(f3);
    }
    lg_model_free(r);
    free(f);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ files */

static char tmpdir[256];

static int make_tmpdir(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/lg_writer_test.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        tf_fail(__FILE__, __LINE__, "mkdtemp failed");
        return 0;
    }
    return 1;
}

static void tmp_path(char *out, size_t n, const char *name) {
    snprintf(out, n, "%s/%s", tmpdir, name);
}

static int slurp(const char *path, uint8_t **out, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    *out = malloc(sz > 0 ? (size_t)sz : 1);
    *n = fread(*out, 1, (size_t)sz, f);
    fclose(f);
    return 1;
}

/* Names in tmpdir, sorted, joined by spaces. */
static void list_dir(char *out, size_t n) {
    char names[16][64];
    int k = 0;
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    while (d && (e = readdir(d)) && k < 16) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(names[k++], 64, "%.63s", e->d_name);
    }
    if (d) closedir(d);
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[64];
            memcpy(t, names[j], 64);
            memcpy(names[j], names[j - 1], 64);
            memcpy(names[j - 1], t, 64);
        }
    out[0] = 0;
    for (int i = 0; i < k; i++) {
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s", i ? " " : "", names[i]);
    }
}

static void rm_tmpdir(void) {
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    char p[512];
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
        unlink(p);
    }
    if (d) closedir(d);
    rmdir(tmpdir);
}

LG_TEST(writer_file_refusals_and_atomicity) {
    if (!make_tmpdir()) return;
    lg_model *m = base_model();
    if (!m) return;
    lg_error err;
    char a[512], bpath[512], c[512], missing[512];
    tmp_path(a, sizeof a, "a.tflite");
    tmp_path(bpath, sizeof bpath, "b.tflite");
    tmp_path(c, sizeof c, "c.tflite");
    tmp_path(missing, sizeof missing, "no/such/dir/x.tflite");

    CHECK_OK(lg_tflite_write_file(m, a, NULL, &err), &err);
    uint8_t *mem, *disk;
    size_t nm, nd;
    if (write_bytes(m, NULL, &mem, &nm) && slurp(a, &disk, &nd)) {
        CHECK(nm == nd && memcmp(mem, disk, nm) == 0);
        free(disk);
        free(mem);
    }
    struct stat sb;
    mode_t um = umask(022);
    umask(um);
    CHECK(stat(a, &sb) == 0 && (sb.st_mode & 0777) == (0644 & ~um));

    /* exists, no force: refused, file untouched */
    CHECK_OK(lg_model_set_description(m, "second version", &err), &err);
    CHECK_EQ_INT(lg_tflite_write_file(m, a, NULL, &err), LG_ERR_EXISTS);
    CHECK_MSG(&err, a);
    CHECK_MSG(&err, "exists (use --force to overwrite)");
    lg_model *r = NULL;
    CHECK_OK(lg_tflite_read_file(a, NULL, &r, &err), &err);
    CHECK(r && r->description == NULL);
    lg_model_free(r);

    /* force: replaced */
    lg_write_options force = {.force = true};
    CHECK_OK(lg_tflite_write_file(m, a, &force, &err), &err);
    r = NULL;
    CHECK_OK(lg_tflite_read_file(a, NULL, &r, &err), &err);
    CHECK(r && r->description && strcmp(r->description, "second version") == 0);

    /* never over the model's own source file, even with force, also through a hard link */
    if (r) {
        CHECK_EQ_INT(lg_tflite_write_file(r, a, &force, &err), LG_ERR_INVALID_ARG);
        CHECK_MSG(&err, "refusing to overwrite the input file");
        CHECK_MSG(&err, a);
        CHECK_EQ_INT(lg_tflite_write_file(r, a, NULL, &err), LG_ERR_INVALID_ARG);
        CHECK(link(a, bpath) == 0);
        CHECK_EQ_INT(lg_tflite_write_file(r, bpath, &force, &err), LG_ERR_INVALID_ARG);
        CHECK_MSG(&err, bpath);
        CHECK_OK(lg_tflite_write_file(r, c, NULL, &err), &err); /* elsewhere is fine */
    }
    lg_model_free(r);

    /* i/o failure names the path */
    CHECK_EQ_INT(lg_tflite_write_file(m, missing, &force, &err), LG_ERR_IO);
    CHECK_MSG(&err, missing);
    /* an invalid model: the validator's message, prefixed with the path; nothing created */
    char bad[512];
    tmp_path(bad, sizeof bad, "bad.tflite");
    m->subgraphs[0].tensors[0].buffer = 77;
    CHECK_EQ_INT(lg_tflite_write_file(m, bad, &force, &err), LG_ERR_INVALID_ARG);
    CHECK_MSG(&err, "bad.tflite: subgraph 0 tensor 0 (\"x\"): buffer 77 of 4");
    m->subgraphs[0].tensors[0].buffer = 0;
    CHECK_EQ_INT(lg_tflite_write_file(m, "", NULL, &err), LG_ERR_INVALID_ARG);
    CHECK_EQ_INT(lg_tflite_write_file(NULL, c, &force, &err), LG_ERR_INVALID_ARG);
    /* a directory in the way */
    char dirp[512];
    tmp_path(dirp, sizeof dirp, "d.tflite");
    CHECK(mkdir(dirp, 0755) == 0);
    CHECK(lg_tflite_write_file(m, dirp, &force, &err) != LG_OK);
    CHECK_MSG(&err, dirp);
    rmdir(dirp);

    /* a bare file name writes in the current directory */
    char cwd[1024];
    if (getcwd(cwd, sizeof cwd) && chdir(tmpdir) == 0) {
        CHECK_OK(lg_tflite_write_file(m, "rel.tflite", NULL, &err), &err);
        CHECK(chdir(cwd) == 0);
    }

    /* no temporary files left behind by any of the above */
    char names[1024];
    list_dir(names, sizeof names);
    CHECK_STR(names, "a.tflite b.tflite c.tflite rel.tflite");
    lg_model_free(m);
    rm_tmpdir();
}

LG_TEST(writer_file_external) {
    if (!make_tmpdir()) return;
    lg_model *m = base_model();
    if (!m) return;
    lg_error err;
    char p[512];
    tmp_path(p, sizeof p, "ext.tflite");
    lg_write_options o = {.external_buffers = true};
    CHECK_OK(lg_tflite_write_file(m, p, &o, &err), &err);
    uint8_t *mem, *disk;
    size_t nm, nd;
    if (write_bytes(m, &o, &mem, &nm) && slurp(p, &disk, &nd)) {
        CHECK(nm == nd && memcmp(mem, disk, nm) == 0);
        check_buffers_in_file(m, disk, nd, 1);
        free(disk);
        free(mem);
    }
    lg_model *r = NULL;
    CHECK_OK(lg_tflite_read_file(p, NULL, &r, &err), &err);
    CHECK(r && r->buffers[1].external);
    lg_model_free(r);
    lg_model_free(m);
    rm_tmpdir();
}
