/* The ONNX reader (lg/onnx.h) on protobuf bytes built by hand. The encoder below is written
   from the wire-format spec (https://protobuf.dev/programming-guides/encoding/): tag =
   field << 3 | wire type; varints 7 bits per byte, low group first, high bit = more; wire
   type 2 = varint length + bytes; 5 = 4 little-endian bytes; 1 = 8. Field numbers are
   onnx.proto's. Expected values are the ones written, never the reader's own output. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lg/onnx.h"
#include "tf.h"

/* ---------------------------------------------------------------- a tiny encoder */

typedef struct pbw { uint8_t *b; size_t n, cap; } pbw;

static void w_raw(pbw *w, const void *p, size_t n) {
    if (w->n + n > w->cap) {
        w->cap = (w->n + n) * 2 + 64;
        w->b = realloc(w->b, w->cap);
    }
    memcpy(w->b + w->n, p, n);
    w->n += n;
}
static void w_varint(pbw *w, uint64_t v) {
    do {
        uint8_t c = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) c |= 0x80;
        w_raw(w, &c, 1);
    } while (v);
}
static void w_tag(pbw *w, uint32_t f, uint32_t wt) { w_varint(w, (uint64_t)f << 3 | wt); }
static void w_int(pbw *w, uint32_t f, int64_t v) { w_tag(w, f, 0); w_varint(w, (uint64_t)v); }
static void w_bytes(pbw *w, uint32_t f, const void *p, size_t n) { w_tag(w, f, 2); w_varint(w, n); w_raw(w, p, n); }
static void w_str(pbw *w, uint32_t f, const char *s) { w_bytes(w, f, s, strlen(s)); }
static void w_msg(pbw *w, uint32_t f, pbw *sub) { w_bytes(w, f, sub->b, sub->n); free(sub->b); *sub = (pbw){0}; }
static void w_f32(pbw *w, uint32_t f, float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    uint8_t b[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
    w_tag(w, f, 5);
    w_raw(w, b, 4);
}
static void w_packed_ints(pbw *w, uint32_t f, const int64_t *v, size_t n) {
    pbw s = {0};
    for (size_t i = 0; i < n; i++) w_varint(&s, (uint64_t)v[i]);
    w_bytes(w, f, s.b, s.n);
    free(s.b);
}
static void w_packed_f32(pbw *w, uint32_t f, const float *v, size_t n) {
    w_tag(w, f, 2);
    w_varint(w, 4 * n);
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        uint8_t b[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
        w_raw(w, b, 4);
    }
}

/* ValueInfoProto name with a float tensor type of shape [1, "N"] */
static void w_vi(pbw *w, uint32_t f, const char *name) {
    pbw vi = {0}, ty = {0}, tt = {0}, sh = {0}, d = {0};
    w_str(&vi, 1, name);
    w_int(&tt, 1, 1); /* elem_type FLOAT */
    w_int(&d, 1, 1);  /* dim_value 1 */
    w_msg(&sh, 1, &d);
    w_str(&d, 2, "N"); /* dim_param */
    w_msg(&sh, 1, &d);
    w_msg(&tt, 2, &sh);
    w_msg(&ty, 1, &tt);
    w_msg(&vi, 2, &ty);
    w_msg(w, f, &vi);
}

/* TensorProto FLOAT dims [2,2] with packed float_data */
static void w_tensor_f(pbw *w, uint32_t f, const char *name) {
    pbw t = {0};
    const int64_t dims[2] = {2, 2};
    const float v[4] = {1.5f, -2, 3, 4};
    w_packed_ints(&t, 1, dims, 2);
    w_int(&t, 2, 1);
    w_packed_f32(&t, 4, v, 4);
    w_str(&t, 8, name);
    w_msg(w, f, &t);
}

/* A graph "g": input x, initializers W (float_data) and B (INT64, unpacked int64_data), one
   Add node x,W -> y with a few attributes, output y. */
static void w_graph(pbw *w, uint32_t f, int unknown_fields) {
    pbw g = {0}, n = {0}, a = {0}, t = {0};
    w_vi(&g, 11, "x");
    w_tensor_f(&g, 5, "W");
    w_int(&t, 1, 2);     /* dims [2], unpacked */
    w_int(&t, 2, 7);     /* INT64 */
    w_int(&t, 7, -5);    /* int64_data, unpacked */
    w_int(&t, 7, 1LL << 40);
    w_str(&t, 8, "B");
    w_msg(&g, 5, &t);
    w_str(&n, 1, "x");
    w_str(&n, 1, "W");
    w_str(&n, 2, "y");
    w_str(&n, 3, "add0");
    w_str(&n, 4, "Add");
    if (unknown_fields) {
        w_int(&n, 99, 7);               /* varint */
        w_tag(&n, 100, 1); w_raw(&n, "12345678", 8); /* fixed64 */
        w_str(&n, 101, "skip me");     /* length-delimited */
        w_f32(&n, 102, 1.0f);          /* fixed32 */
    }
    /* attribute "pads": INTS packed [1,2,300] */
    const int64_t pads[3] = {1, 2, 300};
    w_str(&a, 1, "pads");
    w_packed_ints(&a, 8, pads, 3);
    w_int(&a, 20, 7);
    w_msg(&n, 5, &a);
    /* attribute "alpha": FLOAT 0.25 */
    w_str(&a, 1, "alpha");
    w_f32(&a, 2, 0.25f);
    w_int(&a, 20, 1);
    w_msg(&n, 5, &a);
    /* attribute "mode": STRING "edge" */
    w_str(&a, 1, "mode");
    w_str(&a, 4, "edge");
    w_int(&a, 20, 3);
    w_msg(&n, 5, &a);
    /* attribute "value": TENSOR */
    w_str(&a, 1, "value");
    w_tensor_f(&a, 5, "v");
    w_int(&a, 20, 4);
    w_msg(&n, 5, &a);
    /* attribute "axes": INTS unpacked [-1, 3] */
    w_str(&a, 1, "axes");
    w_int(&a, 8, -1);
    w_int(&a, 8, 3);
    w_int(&a, 20, 7);
    w_msg(&n, 5, &a);
    w_msg(&g, 1, &n);
    w_str(&g, 2, "g");
    if (unknown_fields) w_int(&g, 200, 1);
    w_vi(&g, 12, "y");
    w_msg(w, f, &g);
}

/* ModelProto: ir_version, opset, producer, then the graph last (so that every truncation
   lacks it or cuts it). */
static pbw model(int ir, int unknown_fields) {
    pbw m = {0}, o = {0};
    w_int(&m, 1, ir);
    w_str(&o, 1, "");
    w_int(&o, 2, 13);
    w_msg(&m, 8, &o);
    w_str(&m, 2, "hand");
    if (unknown_fields) w_str(&m, 300, "future field");
    w_graph(&m, 7, unknown_fields);
    return m;
}

static lg_status rd(const pbw *w, lg_onnx_model **m, lg_error *err) {
    lg_onnx_read_options o = {0};
    o.name = "m.onnx";
    return lg_onnx_read_mem(w->b, w->n, &o, m, err);
}

static int one_line(const char *s) { return s[0] && !strchr(s, '\n'); }

/* ---------------------------------------------------------------- tests */

static void check_hand_model(const lg_onnx_model *m) {
    CHECK_EQ_INT(m->ir_version, 8);
    CHECK_EQ_INT(m->n_opsets, 1);
    CHECK_EQ_INT(m->opsets[0].version, 13);
    CHECK(lg_onnx_str_eq(m->producer_name, "hand"));
    const lg_onnx_graph *g = m->graph;
    CHECK(lg_onnx_str_eq(g->name, "g"));
    CHECK_EQ_INT(g->n_inputs, 1);
    CHECK(lg_onnx_str_eq(g->inputs[0].name, "x"));
    CHECK_EQ_INT(g->inputs[0].type.kind, LG_ONNX_TYPE_TENSOR);
    CHECK_EQ_INT(g->inputs[0].type.elem_type, LG_ONNX_FLOAT);
    CHECK_EQ_INT(g->inputs[0].type.n_dims, 2);
    CHECK_EQ_INT(g->inputs[0].type.dims[0].kind, 1);
    CHECK_EQ_INT(g->inputs[0].type.dims[0].value, 1);
    CHECK_EQ_INT(g->inputs[0].type.dims[1].kind, 2);
    CHECK(lg_onnx_str_eq(g->inputs[0].type.dims[1].param, "N"));
    CHECK_EQ_INT(g->n_initializers, 2);
    const lg_onnx_tensor *W = &g->initializers[0], *B = &g->initializers[1];
    CHECK(lg_onnx_str_eq(W->name, "W"));
    CHECK_EQ_INT(W->n_dims, 2);
    CHECK_EQ_INT(W->count, 4);
    CHECK_EQ_INT(W->nbytes, 16);
    lg_onnx_data d;
    lg_error err;
    CHECK_OK(lg_onnx_tensor_data(W, &d, &err), &err);
    float wf[4];
    memcpy(wf, d.data, 16);
    CHECK(wf[0] == 1.5f && wf[1] == -2 && wf[3] == 4);
    CHECK_EQ_INT(d.dtype, LG_ONNX_FLOAT);
    CHECK_EQ_INT(B->data_type, LG_ONNX_INT64);
    CHECK_EQ_INT(B->src, LG_ONNX_DATA_TYPED);
    int64_t bv[2];
    memcpy(bv, B->data, 16);
    CHECK_EQ_INT(bv[0], -5);
    CHECK_EQ_INT(bv[1], 1LL << 40);
    CHECK_EQ_INT(g->n_nodes, 1);
    const lg_onnx_node *n = &g->nodes[0];
    CHECK(lg_onnx_str_eq(n->op_type, "Add") && lg_onnx_str_eq(n->name, "add0"));
    CHECK_EQ_INT(n->n_inputs, 2);
    CHECK(lg_onnx_str_eq(n->inputs[1], "W"));
    CHECK_EQ_INT(n->n_attrs, 5);
    CHECK_EQ_INT(n->attrs[0].n_ints, 3);
    CHECK_EQ_INT(n->attrs[0].ints[2], 300);
    CHECK_EQ_INT(n->attrs[0].type, LG_ONNX_ATTR_INTS);
    CHECK(n->attrs[1].f == 0.25f);
    CHECK(lg_onnx_str_eq(n->attrs[2].s, "edge"));
    CHECK(n->attrs[3].t && lg_onnx_str_eq(n->attrs[3].t->name, "v") && n->attrs[3].t->count == 4);
    CHECK_EQ_INT(n->attrs[4].n_ints, 2);
    CHECK_EQ_INT(n->attrs[4].ints[0], -1);
    CHECK_EQ_INT(n->attrs[4].ints[1], 3);
    CHECK_EQ_INT(g->n_outputs, 1);
}

LG_TEST(onnx_read_hand_model_every_field) {
    pbw w = model(8, 0);
    lg_onnx_model *m = NULL;
    lg_error err;
    CHECK_OK(rd(&w, &m, &err), &err);
    if (m) check_hand_model(m);
    lg_onnx_model_free(m);
    free(w.b);
}

LG_TEST(onnx_read_skips_unknown_fields_of_every_wire_type) {
    pbw w = model(8, 1);
    lg_onnx_model *m = NULL;
    lg_error err;
    CHECK_OK(rd(&w, &m, &err), &err);
    if (m) check_hand_model(m);
    lg_onnx_model_free(m);
    free(w.b);
}

LG_TEST(onnx_read_ir_versions_3_to_10) {
    int irs[] = {2, 3, 10, 11};
    lg_status want[] = {LG_ERR_UNSUPPORTED, LG_OK, LG_OK, LG_ERR_UNSUPPORTED};
    for (int i = 0; i < 4; i++) {
        pbw w = model(irs[i], 0);
        lg_onnx_model *m = NULL;
        lg_error err;
        CHECK_EQ_INT(rd(&w, &m, &err), want[i]);
        if (want[i] != LG_OK) CHECK(strstr(err.msg, "IR version") != NULL);
        lg_onnx_model_free(m);
        free(w.b);
    }
}

LG_TEST(onnx_read_every_truncation_fails_cleanly) {
    pbw w = model(8, 0);
    int bad = 0;
    for (size_t k = 0; k < w.n; k++) {
        uint8_t *cut = malloc(k ? k : 1); /* exact size: ASan sees a read past the end */
        memcpy(cut, w.b, k);
        lg_onnx_model *m = NULL;
        lg_error err;
        lg_status st = lg_onnx_read_mem(cut, k, NULL, &m, &err);
        if (st != LG_ERR_FORMAT || m || !one_line(err.msg) || strncmp(err.msg, "model: ", 7) != 0) {
            if (!bad++) tf_fail(__FILE__, __LINE__, "truncation at %zu: status %d, msg %s", k, st, err.msg);
        }
        lg_onnx_model_free(m);
        free(cut);
    }
    CHECK_EQ_INT(bad, 0);
    free(w.b);
}

/* ModelProto with only ir_version encoded as the given bytes, then the hand graph */
static pbw model_with_ir_bytes(const uint8_t *v, size_t n) {
    pbw m = {0};
    w_tag(&m, 1, 0);
    w_raw(&m, v, n);
    w_graph(&m, 7, 0);
    return m;
}

LG_TEST(onnx_read_varints_over_long_and_overflowing) {
    /* 8 as an 11-byte varint (10 continuation bytes) */
    const uint8_t over[11] = {0x88, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    /* 10 bytes whose last carries bit 64: overflow */
    const uint8_t ovf[10] = {0x88, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02};
    /* near miss: 8 padded to 10 bytes with a final 0 group is a legal varint */
    const uint8_t ok10[10] = {0x88, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    lg_onnx_model *m = NULL;
    lg_error err;
    pbw w = model_with_ir_bytes(over, 11);
    CHECK_EQ_INT(rd(&w, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "longer than 10 bytes") != NULL);
    free(w.b);
    w = model_with_ir_bytes(ovf, 10);
    CHECK_EQ_INT(rd(&w, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "overflows 64 bits") != NULL);
    free(w.b);
    w = model_with_ir_bytes(ok10, 10);
    CHECK_OK(rd(&w, &m, &err), &err);
    if (m) CHECK_EQ_INT(m->ir_version, 8);
    lg_onnx_model_free(m);
    free(w.b);
}

LG_TEST(onnx_read_lengths_past_the_end_and_wire_types) {
    lg_onnx_model *m = NULL;
    lg_error err;
    /* producer_name says 50 bytes, 3 follow: ir_version is bytes 0-1, the tag byte 2, the
       length byte 3, the payload would start at byte 4 */
    pbw w = {0};
    w_int(&w, 1, 8);
    w_tag(&w, 2, 2);
    w_varint(&w, 50);
    w_raw(&w, "abc", 3);
    CHECK_EQ_INT(rd(&w, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "producer_name length 50 past the end at byte 4") != NULL);
    free(w.b);
    /* a group (wire type 3) is refused, even for an unknown field */
    w = model(8, 0);
    w_tag(&w, 40, 3);
    CHECK_EQ_INT(rd(&w, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "group") != NULL);
    free(w.b);
    /* wire types 6 and 7 do not exist */
    w = model(8, 0);
    w_tag(&w, 40, 7);
    CHECK_EQ_INT(rd(&w, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "invalid wire type 7") != NULL);
    free(w.b);
    /* field number 0 */
    w = model(8, 0);
    w_varint(&w, 0);
    w_varint(&w, 0);
    CHECK_EQ_INT(rd(&w, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "bad field tag 0") != NULL);
    free(w.b);
    /* a known field with the wrong wire type: ir_version as bytes */
    w = (pbw){0};
    w_str(&w, 1, "8");
    w_graph(&w, 7, 0);
    CHECK_EQ_INT(rd(&w, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "ModelProto.ir_version has wire type 2") != NULL);
    free(w.b);
    /* the graph twice (protobuf would merge; we refuse) */
    w = model(8, 0);
    w_graph(&w, 7, 0);
    CHECK_EQ_INT(rd(&w, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "graph appears twice") != NULL);
    free(w.b);
}

/* An attribute whose packed ints payload length is past the end names its path. */
LG_TEST(onnx_read_error_names_the_message_path) {
    pbw m = {0}, g = {0}, n = {0}, a = {0};
    w_int(&m, 1, 8);
    w_str(&n, 4, "Conv");
    w_str(&a, 1, "kernel_shape");
    w_tag(&a, 8, 2);
    w_varint(&a, 9); /* 9 bytes of ints announced, 2 present */
    w_raw(&a, "\x03\x03", 2);
    w_msg(&n, 5, &a);
    w_str(&g, 2, "main");
    w_msg(&g, 1, &n);
    w_msg(&m, 7, &g);
    lg_onnx_model *mo = NULL;
    lg_error err;
    CHECK_EQ_INT(rd(&m, &mo, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "m.onnx: graph.node[0] (Conv).attribute[0] \"kernel_shape\": ints length 9 past the end") != NULL);
    CHECK(one_line(err.msg));
    free(m.b);
}

/* Subgraphs nested `levels` deep: If nodes whose then_branch holds the next If. */
static void w_nested(pbw *w, uint32_t f, int levels) {
    pbw g = {0}, n = {0}, a = {0};
    w_str(&n, 4, levels ? "If" : "Constant");
    w_str(&n, 2, "out");
    if (levels) {
        w_str(&a, 1, "then_branch");
        w_int(&a, 20, 5);
        w_nested(&a, 6, levels - 1);
    } else {
        w_str(&a, 1, "value_float");
        w_f32(&a, 2, 1.0f);
        w_int(&a, 20, 1);
    }
    w_msg(&n, 5, &a);
    w_msg(&g, 1, &n);
    w_vi(&g, 12, "out");
    w_msg(w, f, &g);
}

LG_TEST(onnx_read_nesting_is_capped) {
    lg_onnx_model *m = NULL;
    lg_error err;
    pbw w = {0};
    w_int(&w, 1, 8);
    w_nested(&w, 7, 5); /* 5 subgraphs: 1 + 5*3 + ... well under 64 */
    CHECK_OK(rd(&w, &m, &err), &err);
    if (m) {
        const lg_onnx_graph *g = m->graph;
        for (int i = 0; i < 5 && g; i++) g = g->nodes[0].attrs[0].g;
        CHECK(g && lg_onnx_str_eq(g->nodes[0].op_type, "Constant"));
    }
    lg_onnx_model_free(m);
    free(w.b);
    w = (pbw){0};
    w_int(&w, 1, 8);
    w_nested(&w, 7, 40); /* 3 messages per level: past 64 */
    CHECK_EQ_INT(rd(&w, &m, &err), LG_ERR_LIMIT);
    CHECK(strstr(err.msg, "nested more than 64 deep") != NULL);
    free(w.b);
}

/* A model whose one initializer is the tensor t (and a graph output of it). */
static pbw model_with_init(pbw *t) {
    pbw m = {0}, g = {0};
    w_int(&m, 1, 8);
    w_str(t, 8, "T");
    w_msg(&g, 5, t);
    w_vi(&g, 12, "T");
    w_msg(&m, 7, &g);
    return m;
}

/* The bytes of the last model read by rd_init: accepted models point into them, so they
   live until the next rd_init (or rd_init_free). */
static pbw rd_init_buf;
static void rd_init_free(void) { free(rd_init_buf.b); rd_init_buf = (pbw){0}; }
static lg_status rd_init(pbw *t, lg_onnx_model **m, lg_error *err) {
    rd_init_free();
    rd_init_buf = model_with_init(t);
    return rd(&rd_init_buf, m, err);
}

LG_TEST(onnx_read_data_sizes_must_match_dims) {
    lg_onnx_model *m = NULL;
    lg_error err;
    const int64_t d22[2] = {2, 2};
    const float v3[3] = {1, 2, 3}, v4[4] = {1, 2, 3, 4};
    pbw t = {0};
    /* raw_data 7 bytes for FLOAT [2] (needs 8) */
    w_int(&t, 1, 2); w_int(&t, 2, 1); w_bytes(&t, 9, "1234567", 7);
    CHECK_EQ_INT(rd_init(&t, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "raw_data is 7 bytes, dims (2 FLOAT elements) need 8") != NULL);
    CHECK(strstr(err.msg, "graph.initializer[0] \"T\"") != NULL);
    /* near miss: 8 bytes */
    t = (pbw){0};
    w_int(&t, 1, 2); w_int(&t, 2, 1); w_bytes(&t, 9, "12345678", 8);
    CHECK_OK(rd_init(&t, &m, &err), &err);
    if (m) CHECK_EQ_INT(m->graph->initializers[0].src, LG_ONNX_DATA_RAW);
    lg_onnx_model_free(m);
    /* float_data with 3 values for [2,2] */
    t = (pbw){0};
    w_packed_ints(&t, 1, d22, 2); w_int(&t, 2, 1); w_packed_f32(&t, 4, v3, 3);
    CHECK_EQ_INT(rd_init(&t, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "float_data has 3 values, dims (4 FLOAT elements) need 4") != NULL);
    /* float_data for an INT32 tensor */
    t = (pbw){0};
    w_packed_ints(&t, 1, d22, 2); w_int(&t, 2, 6); w_packed_f32(&t, 4, v4, 4);
    CHECK_EQ_INT(rd_init(&t, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "not the field for INT32") != NULL);
    /* both raw_data and float_data */
    t = (pbw){0};
    w_int(&t, 1, 1); w_int(&t, 2, 1); w_f32(&t, 4, 1); w_bytes(&t, 9, "1234", 4);
    CHECK_EQ_INT(rd_init(&t, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "both raw_data and float_data") != NULL);
    /* elements but no data */
    t = (pbw){0};
    w_int(&t, 1, 3); w_int(&t, 2, 1);
    CHECK_EQ_INT(rd_init(&t, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "has 3 elements but no data") != NULL);
    /* near miss: 0 elements, no data */
    t = (pbw){0};
    w_int(&t, 1, 0); w_int(&t, 2, 1);
    CHECK_OK(rd_init(&t, &m, &err), &err);
    lg_onnx_model_free(m);
    /* a negative dim */
    t = (pbw){0};
    w_int(&t, 1, -1); w_int(&t, 2, 1);
    CHECK_EQ_INT(rd_init(&t, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "dims[0] = -1 is negative") != NULL);
    /* dims whose product overflows: 2^40 x 2^40 */
    t = (pbw){0};
    w_int(&t, 1, 1LL << 40); w_int(&t, 1, 1LL << 40); w_int(&t, 2, 1);
    CHECK_EQ_INT(rd_init(&t, &m, &err), LG_ERR_LIMIT);
    /* a segment is unsupported */
    t = (pbw){0};
    pbw seg = {0};
    w_int(&seg, 1, 0);
    w_int(&t, 2, 1); w_msg(&t, 3, &seg);
    CHECK_EQ_INT(rd_init(&t, &m, &err), LG_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "segment") != NULL);
    rd_init_free();
}

LG_TEST(onnx_read_int32_data_narrowed_with_range_checks) {
    lg_onnx_model *m = NULL;
    lg_error err;
    /* INT8 [3] = -128, 127, 5 (unpacked int32_data: negative values are 10-byte varints) */
    pbw t = {0};
    w_int(&t, 1, 3); w_int(&t, 2, 3); w_int(&t, 5, -128); w_int(&t, 5, 127); w_int(&t, 5, 5);
    CHECK_OK(rd_init(&t, &m, &err), &err);
    if (m) {
        const int8_t *p = m->graph->initializers[0].data;
        CHECK_EQ_INT(m->graph->initializers[0].nbytes, 3);
        CHECK(p[0] == -128 && p[1] == 127 && p[2] == 5);
    }
    lg_onnx_model_free(m);
    /* INT8 with 128: out of range */
    t = (pbw){0};
    w_int(&t, 1, 1); w_int(&t, 2, 3); w_int(&t, 5, 128);
    CHECK_EQ_INT(rd_init(&t, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "int32_data[0] = 128 does not fit a INT8 element") != NULL);
    /* FLOAT16 [2] as bit patterns 0x3c00 (1.0), 0xc000 (-2.0), packed */
    t = (pbw){0};
    const int64_t h[2] = {0x3c00, 0xc000};
    w_int(&t, 1, 2); w_int(&t, 2, 10); w_packed_ints(&t, 5, h, 2);
    CHECK_OK(rd_init(&t, &m, &err), &err);
    if (m) {
        const uint8_t *p = m->graph->initializers[0].data;
        CHECK(p[0] == 0x00 && p[1] == 0x3c && p[2] == 0x00 && p[3] == 0xc0);
    }
    lg_onnx_model_free(m);
    /* BOOL 2 is refused, UINT32 from uint64_data past 2^32-1 too */
    t = (pbw){0};
    w_int(&t, 1, 1); w_int(&t, 2, 9); w_int(&t, 5, 2);
    CHECK_EQ_INT(rd_init(&t, &m, &err), LG_ERR_FORMAT);
    t = (pbw){0};
    w_int(&t, 1, 1); w_int(&t, 2, 12); w_int(&t, 11, 1LL << 32);
    CHECK_EQ_INT(rd_init(&t, &m, &err), LG_ERR_FORMAT);
    /* STRING [2] from string_data */
    t = (pbw){0};
    w_int(&t, 1, 2); w_int(&t, 2, 8); w_str(&t, 6, "ab"); w_bytes(&t, 6, "\0x", 2);
    CHECK_OK(rd_init(&t, &m, &err), &err);
    if (m) {
        lg_onnx_data d;
        CHECK_OK(lg_onnx_tensor_data(&m->graph->initializers[0], &d, &err), &err);
        CHECK_EQ_INT(d.n_strings, 2);
        CHECK(d.n_strings == 2 && d.strings[1].n == 2 && d.strings[1].s[1] == 'x');
    }
    lg_onnx_model_free(m);
    rd_init_free();
}

/* A one-node graph: Relu(inputs...) -> outputs, graph inputs gin, output gout. */
static pbw model_node(const char *const *in, int nin, const char *const *out, int nout, const char *gin,
                      const char *gout) {
    pbw m = {0}, g = {0}, n = {0};
    w_int(&m, 1, 8);
    if (gin) w_vi(&g, 11, gin);
    for (int i = 0; i < nin; i++) w_str(&n, 1, in[i]);
    for (int i = 0; i < nout; i++) w_str(&n, 2, out[i]);
    w_str(&n, 4, "Relu");
    w_msg(&g, 1, &n);
    if (gout) w_vi(&g, 12, gout);
    w_msg(&m, 7, &g);
    return m;
}

static lg_status rd_node(const char *const *in, int nin, const char *const *out, int nout, const char *gin,
                         const char *gout, lg_error *err) {
    pbw w = model_node(in, nin, out, nout, gin, gout);
    lg_onnx_model *m = NULL;
    lg_status st = rd(&w, &m, err);
    lg_onnx_model_free(m);
    free(w.b);
    return st;
}

LG_TEST(onnx_validate_names) {
    lg_error err;
    const char *x[] = {"x"}, *y[] = {"y"}, *zx[] = {"z"}, *opt[] = {"x", ""}, *xx[] = {"x"};
    CHECK_OK(rd_node(x, 1, y, 1, "x", "y", &err), &err);
    /* an empty input name is an absent optional input */
    CHECK_OK(rd_node(opt, 2, y, 1, "x", "y", &err), &err);
    CHECK_EQ_INT(rd_node(zx, 1, y, 1, "x", "y", &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "graph.node[0] (Relu): input 0 \"z\" is not a graph input") != NULL);
    /* the node redefines the graph input */
    CHECK_EQ_INT(rd_node(x, 1, xx, 1, "x", "x", &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "output 0 \"x\" is already") != NULL);
    /* the graph output is produced by nothing */
    CHECK_EQ_INT(rd_node(x, 1, y, 1, "x", "q", &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "output 0 \"q\" is not produced") != NULL);
    /* a graph input without a name */
    CHECK_EQ_INT(rd_node(x, 1, y, 1, "", "y", &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "input 0 has no name") != NULL);
}

LG_TEST(onnx_read_names_are_utf8_without_nul) {
    lg_error err;
    const char *x[] = {"x"}, *ok[] = {"\xc3\xa9"}, *nul[] = {"a\x01"}, *overlong[] = {"\xc0\xaf"};
    CHECK_OK(rd_node(x, 1, ok, 1, "x", "\xc3\xa9", &err), &err); /* U+00E9 */
    CHECK_EQ_INT(rd_node(x, 1, overlong, 1, "x", "y", &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "not valid UTF-8") != NULL);
    (void)nul;
    /* a NUL byte inside a name */
    pbw m = {0}, g = {0}, vi = {0};
    w_int(&m, 1, 8);
    w_bytes(&vi, 1, "a\0b", 3);
    w_msg(&g, 11, &vi);
    w_msg(&m, 7, &g);
    lg_onnx_model *mo = NULL;
    CHECK_EQ_INT(rd(&m, &mo, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "a NUL byte in a name at byte") != NULL);
    free(m.b);
}

LG_TEST(onnx_read_sparse_and_nonstandard_types) {
    lg_error err;
    lg_onnx_model *mo = NULL;
    /* sparse_initializer: unsupported */
    pbw m = {0}, g = {0}, sp = {0};
    w_int(&m, 1, 8);
    w_int(&sp, 3, 1);
    w_msg(&g, 15, &sp);
    w_msg(&m, 7, &g);
    CHECK_EQ_INT(rd(&m, &mo, &err), LG_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "sparse") != NULL);
    free(m.b);
    /* a sequence-typed input is recorded as a kind, not an error */
    pbw vi = {0}, ty = {0}, seq = {0};
    m = (pbw){0};
    g = (pbw){0};
    w_int(&m, 1, 8);
    w_str(&vi, 1, "s");
    w_int(&seq, 99, 1);
    w_msg(&ty, 4, &seq);
    w_msg(&vi, 2, &ty);
    w_msg(&g, 11, &vi);
    w_msg(&m, 7, &g);
    CHECK_OK(rd(&m, &mo, &err), &err);
    if (mo) CHECK_EQ_INT(mo->graph->inputs[0].type.kind, LG_ONNX_TYPE_SEQUENCE);
    lg_onnx_model_free(mo);
    free(m.b);
}

LG_TEST(onnx_read_memory_cap) {
    pbw w = model(8, 0);
    lg_onnx_model *m = NULL;
    lg_error err;
    lg_onnx_read_options o = {0};
    o.max_ir_bytes = 512;
    CHECK_EQ_INT(lg_onnx_read_mem(w.b, w.n, &o, &m, &err), LG_ERR_LIMIT);
    CHECK(strstr(err.msg, "max_ir_bytes") != NULL);
    o.max_ir_bytes = 1 << 20;
    CHECK_OK(lg_onnx_read_mem(w.b, w.n, &o, &m, &err), &err);
    lg_onnx_model_free(m);
    free(w.b);
}

LG_TEST(onnx_read_tensor_mem) {
    pbw t = {0};
    w_int(&t, 1, 2); w_int(&t, 1, 1); w_int(&t, 2, 7); w_int(&t, 7, 9); w_int(&t, 7, -9); w_str(&t, 8, "ids");
    lg_onnx_model *m = NULL;
    lg_error err;
    CHECK_OK(lg_onnx_read_tensor_mem(t.b, t.n, NULL, &m, &err), &err);
    if (m) {
        CHECK(m->graph == NULL && m->tensor);
        lg_onnx_data d;
        CHECK_OK(lg_onnx_tensor_data(m->tensor, &d, &err), &err);
        int64_t v[2];
        memcpy(v, d.data, 16);
        CHECK_EQ_INT(d.nbytes, 16);
        CHECK(v[0] == 9 && v[1] == -9);
    }
    lg_onnx_model_free(m);
    free(t.b);
}

/* ---------------------------------------------------------------- external data */

static pbw ext_tensor(const char *loc, const char *off, const char *len, int n_floats) {
    pbw t = {0}, kv = {0};
    w_int(&t, 1, n_floats);
    w_int(&t, 2, 1);
    w_str(&kv, 1, "location"); w_str(&kv, 2, loc); w_msg(&t, 13, &kv);
    if (off) { w_str(&kv, 1, "offset"); w_str(&kv, 2, off); w_msg(&t, 13, &kv); }
    if (len) { w_str(&kv, 1, "length"); w_str(&kv, 2, len); w_msg(&t, 13, &kv); }
    w_int(&t, 14, 1);
    return t;
}

static lg_status rd_ext(const char *base, const char *loc, const char *off, const char *len, int n,
                        lg_onnx_model **m, lg_error *err) {
    pbw t = ext_tensor(loc, off, len, n);
    pbw w = model_with_init(&t);
    lg_onnx_read_options o = {0};
    o.base_dir = base;
    lg_status st = lg_onnx_read_mem(w.b, w.n, &o, m, err);
    free(w.b);
    return st;
}

LG_TEST(onnx_read_external_data_confined_to_the_folder) {
    char dir[] = "/tmp/lg_onnx_ext_XXXXXX", sub[64], path[128], link[128];
    if (!mkdtemp(dir)) { CHECK(0); return; }
    snprintf(sub, sizeof sub, "%s/m", dir);
    mkdir(sub, 0700);
    snprintf(path, sizeof path, "%s/w.bin", sub);
    FILE *f = fopen(path, "wb");
    float v[6] = {0, 1, 2, 3, 4, 5};
    fwrite(v, 4, 6, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/outside.bin", dir);
    f = fopen(path, "wb");
    fwrite(v, 4, 6, f);
    fclose(f);
    snprintf(link, sizeof link, "%s/out.bin", sub);
    CHECK(symlink("../outside.bin", link) == 0);
    lg_onnx_model *m = NULL;
    lg_error err;
    /* floats 2..5 at offset 8, length 16 */
    CHECK_OK(rd_ext(sub, "w.bin", "8", "16", 4, &m, &err), &err);
    if (m) {
        const lg_onnx_tensor *t = &m->graph->initializers[0];
        float got[4];
        memcpy(got, t->data, 16);
        CHECK_EQ_INT(t->src, LG_ONNX_DATA_EXTERNAL);
        CHECK(got[0] == 2 && got[3] == 5);
    }
    lg_onnx_model_free(m);
    /* no length: the rest of the file (24 - 8 = 16 bytes = 4 floats) */
    CHECK_OK(rd_ext(sub, "w.bin", "8", NULL, 4, &m, &err), &err);
    lg_onnx_model_free(m);
    /* no base folder: refused */
    CHECK_EQ_INT(rd_ext(NULL, "w.bin", NULL, NULL, 6, &m, &err), LG_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "without a base folder") != NULL);
    CHECK_EQ_INT(rd_ext(sub, path, NULL, NULL, 6, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "absolute path") != NULL);
    CHECK_EQ_INT(rd_ext(sub, "../outside.bin", NULL, NULL, 6, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "\"..\" component") != NULL);
    CHECK_EQ_INT(rd_ext(sub, "a/..\\..\\outside.bin", NULL, NULL, 6, &m, &err), LG_ERR_FORMAT);
    CHECK_EQ_INT(rd_ext(sub, "out.bin", NULL, NULL, 6, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "outside the model's folder") != NULL);
    /* near miss: "..x" is an ordinary name (missing file: an I/O error, not a refusal) */
    CHECK_EQ_INT(rd_ext(sub, "..x", NULL, NULL, 6, &m, &err), LG_ERR_IO);
    CHECK_EQ_INT(rd_ext(sub, "w.bin", "20", "8", 2, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "offset 20 + length 8 is past the end") != NULL);
    CHECK_EQ_INT(rd_ext(sub, "w.bin", "0", "2147483648", 536870912, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "past the end") != NULL);
    CHECK_EQ_INT(rd_ext(sub, "w.bin", "18446744073709551615", "8", 2, &m, &err), LG_ERR_FORMAT);
    CHECK_EQ_INT(rd_ext(sub, "w.bin", "-1", "8", 2, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "not a decimal number") != NULL);
    /* the length does not match dims */
    CHECK_EQ_INT(rd_ext(sub, "w.bin", "0", "8", 3, &m, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "need 12 bytes") != NULL);
    /* a directory is not a regular file */
    CHECK_EQ_INT(rd_ext(dir, "m", NULL, NULL, 1, &m, &err), LG_ERR_IO);
    unlink(link);
    snprintf(path, sizeof path, "%s/w.bin", sub);
    unlink(path);
    rmdir(sub);
    snprintf(path, sizeof path, "%s/outside.bin", dir);
    unlink(path);
    rmdir(dir);
}
