/* The .onnx reader: a verifying protobuf wire-format reader that builds the ONNX IR
 * (include/lg/onnx.h). Step 1 of the ONNX importer (issue #10).
 *
 * Why our own reader and not protobuf-c (which is packaged): protobuf-c copies every bytes
 * field, so each raw_data initializer would be malloc'ed a second time (2x the file in RSS
 * on a big model), and its unpacking allocates repeated fields in proportion to what the
 * file declares before it has checked the rest. This reader references raw_data in the
 * mapped file, decodes only small typed arrays into one capped arena, and verifies as it
 * reads, the way src/io/tflite/reader.c walks flatbuffers.
 *
 * Nothing in the file is trusted (wire.c has the primitives):
 *  - every varint is at most 10 bytes and may not overflow 64 bits; every length and every
 *    nested message is checked against the end of its parent before use; wire types 3/4
 *    (groups) are refused, unknown fields of the other wire types skipped; a known field
 *    with the wrong wire type is refused (repeated scalars accept packed and unpacked);
 *  - each message is read in two passes: the first checks every field and counts the
 *    repeated ones (skipping sub-message bodies by their length, so the total work is linear
 *    in the file), the second fills arrays of exactly that size from the arena. The arena
 *    has a cap (64 MiB + 16 x file size by default): LG_ERR_LIMIT past it;
 *  - nesting is capped (max_depth, default 64 messages: If/Loop/Scan bodies are graphs in
 *    attributes, 3 levels per graph);
 *  - names are (pointer, length) into the file, checked to be UTF-8 without NUL;
 *  - a singular sub-message that appears twice is refused (protobuf would merge them; no
 *    ONNX writer does that); a singular scalar or string that appears twice keeps the last;
 *  - sparse initializers and tensor segments are LG_ERR_UNSUPPORTED; sequence, map and
 *    optional value types are recorded as kinds (LG_ONNX_TYPE_*), not read further;
 *    model-local functions and training info are counted, not read.
 * Errors are one line: file, message path, what, and the byte offset, e.g.
 *   m.onnx: graph.node[12] (Conv).attribute[3] "kernel_shape": ints length 9 past the end at byte 1234 ...
 * After reading, lg_onnx_validate (validate.c) checks the graph's names and data sizes.
 * Fields follow onnx.proto (onnx 1.12 as packaged in /usr/include/onnx/onnx.proto, plus the
 * data types of later IR versions up to 10: FLOAT8*, UINT4, INT4).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/onnx/wire.h"

#define IR_MIN 3
#define IR_MAX 10

/* ------------------------------------------------------------------ message layouts */

static const ox_msg M_KV = {"StringStringEntryProto", {[1] = OXF_LEN, [2] = OXF_LEN}, {[1] = "key", [2] = "value"}};
static const ox_msg M_OPSET = {"OperatorSetIdProto", {[1] = OXF_LEN, [2] = OXF_VARINT},
                               {[1] = "domain", [2] = "version"}};
static const ox_msg M_MODEL = {
    "ModelProto",
    {[1] = OXF_VARINT, [2] = OXF_LEN, [3] = OXF_LEN, [4] = OXF_LEN, [5] = OXF_VARINT, [6] = OXF_LEN,
     [7] = OXF_MSG1, [8] = OXF_LEN, [14] = OXF_LEN, [20] = OXF_LEN, [25] = OXF_LEN},
    {[1] = "ir_version", [2] = "producer_name", [3] = "producer_version", [4] = "domain",
     [5] = "model_version", [6] = "doc_string", [7] = "graph", [8] = "opset_import",
     [14] = "metadata_props", [20] = "training_info", [25] = "functions"}};
static const ox_msg M_GRAPH = {
    "GraphProto",
    {[1] = OXF_LEN, [2] = OXF_LEN, [5] = OXF_LEN, [11] = OXF_LEN, [12] = OXF_LEN, [13] = OXF_LEN,
     [15] = OXF_LEN},
    {[1] = "node", [2] = "name", [5] = "initializer", [10] = "doc_string", [11] = "input",
     [12] = "output", [13] = "value_info", [14] = "quantization_annotation", [15] = "sparse_initializer"}};
static const ox_msg M_NODE = {
    "NodeProto",
    {[1] = OXF_LEN, [2] = OXF_LEN, [3] = OXF_LEN, [4] = OXF_LEN, [5] = OXF_LEN, [7] = OXF_LEN},
    {[1] = "input", [2] = "output", [3] = "name", [4] = "op_type", [5] = "attribute", [6] = "doc_string",
     [7] = "domain"}};
static const ox_msg M_ATTR = {
    "AttributeProto",
    {[1] = OXF_LEN, [2] = OXF_F32, [3] = OXF_VARINT, [4] = OXF_LEN, [5] = OXF_MSG1, [6] = OXF_MSG1,
     [7] = OXF_RF32, [8] = OXF_RVAR, [9] = OXF_LEN, [10] = OXF_LEN, [11] = OXF_LEN, [20] = OXF_VARINT,
     [21] = OXF_LEN, [22] = OXF_MSG1, [23] = OXF_LEN},
    {[1] = "name", [2] = "f", [3] = "i", [4] = "s", [5] = "t", [6] = "g", [7] = "floats", [8] = "ints",
     [9] = "strings", [10] = "tensors", [11] = "graphs", [13] = "doc_string", [14] = "tp",
     [15] = "type_protos", [20] = "type", [21] = "ref_attr_name", [22] = "sparse_tensor",
     [23] = "sparse_tensors"}};
static const ox_msg M_VI = {"ValueInfoProto", {[1] = OXF_LEN, [2] = OXF_MSG1},
                            {[1] = "name", [2] = "type", [3] = "doc_string"}};
static const ox_msg M_TYPE = {
    "TypeProto",
    {[1] = OXF_MSG1, [4] = OXF_MSG1, [5] = OXF_MSG1, [8] = OXF_MSG1, [9] = OXF_MSG1},
    {[1] = "tensor_type", [4] = "sequence_type", [5] = "map_type", [6] = "denotation",
     [8] = "sparse_tensor_type", [9] = "optional_type"}};
static const ox_msg M_TTYPE = {"TypeProto.Tensor", {[1] = OXF_VARINT, [2] = OXF_MSG1},
                               {[1] = "elem_type", [2] = "shape"}};
static const ox_msg M_SHAPE = {"TensorShapeProto", {[1] = OXF_LEN}, {[1] = "dim"}};
static const ox_msg M_DIM = {"TensorShapeProto.Dimension", {[1] = OXF_VARINT, [2] = OXF_LEN},
                             {[1] = "dim_value", [2] = "dim_param", [3] = "denotation"}};

/* A path segment ".seg" or ".seg[i]" (no dot at the top level). */
static size_t seg_push(ox_rd *r, const char *seg, uint64_t i) {
    const char *dot = r->plen ? "." : "";
    if (i == UINT64_MAX) return ox_push(r, "%s%s", dot, seg);
    return ox_push(r, "%s%s[%llu]", dot, seg, (unsigned long long)i);
}

/* ------------------------------------------------------------------ small messages */

lg_status ox_kv(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_kv *kv) {
    ox_scan_t s;
    LG_TRY(ox_enter(r));
    lg_status st = ox_scan(r, &M_KV, off, end, &s);
    if (st == LG_OK && s.cnt[1]) st = ox_name(r, &M_KV, &s.last[1], &kv->key);
    if (st == LG_OK && s.cnt[2]) st = ox_bytes(r, &M_KV, &s.last[2], &kv->value);
    ox_leave(r);
    return st;
}

static lg_status rd_dim(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_dim *d) {
    ox_scan_t s;
    LG_TRY(ox_scan(r, &M_DIM, off, end, &s));
    /* a oneof: the last one written wins (protobuf semantics) */
    if (s.cnt[1] && (!s.cnt[2] || s.last[1].at > s.last[2].at)) {
        d->kind = 1;
        d->value = (int64_t)s.last[1].v;
    } else if (s.cnt[2]) {
        d->kind = 2;
        LG_TRY(ox_name(r, &M_DIM, &s.last[2], &d->param));
    }
    return LG_OK;
}

static lg_status rd_shape(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_type *t) {
    ox_scan_t s;
    void *p;
    LG_TRY(ox_scan(r, &M_SHAPE, off, end, &s));
    LG_TRY(ox_array(r, s.cnt[1], sizeof(lg_onnx_dim), &p));
    lg_onnx_dim *dims = p;
    uint64_t pos = off, n = 0;
    for (;;) {
        ox_field f;
        int more;
        LG_TRY(ox_next(r, &M_SHAPE, &pos, end, &f, &more));
        if (!more) break;
        if (f.num != 1) continue;
        size_t old = ox_push(r, ".dim[%llu]", (unsigned long long)n);
        LG_TRY(ox_enter(r));
        LG_TRY(rd_dim(r, f.off, f.off + f.len, &dims[n++]));
        ox_leave(r);
        ox_pop(r, old);
    }
    t->has_shape = true;
    t->dims = dims;
    t->n_dims = (uint32_t)n;
    return LG_OK;
}

static lg_status rd_tensor_type(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_type *t) {
    ox_scan_t s;
    LG_TRY(ox_scan(r, &M_TTYPE, off, end, &s));
    if (s.cnt[1]) LG_TRY(ox_int32(r, &M_TTYPE, &s.last[1], &t->elem_type));
    if (s.cnt[2]) {
        size_t old = ox_push(r, ".shape");
        LG_TRY(ox_enter(r));
        LG_TRY(rd_shape(r, s.last[2].off, s.last[2].off + s.last[2].len, t));
        ox_leave(r);
        ox_pop(r, old);
    }
    return LG_OK;
}

static lg_status rd_type(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_type *t) {
    ox_scan_t s;
    LG_TRY(ox_scan(r, &M_TYPE, off, end, &s));
    /* a oneof: the last one written wins */
    static const struct { uint32_t num; lg_onnx_type_kind kind; } K[] = {
        {1, LG_ONNX_TYPE_TENSOR}, {4, LG_ONNX_TYPE_SEQUENCE}, {5, LG_ONNX_TYPE_MAP},
        {8, LG_ONNX_TYPE_SPARSE_TENSOR}, {9, LG_ONNX_TYPE_OPTIONAL}};
    const ox_field *last = NULL;
    for (unsigned i = 0; i < sizeof K / sizeof K[0]; i++)
        if (s.cnt[K[i].num] && (!last || s.last[K[i].num].at > last->at)) {
            last = &s.last[K[i].num];
            t->kind = K[i].kind;
        }
    if (!last) return LG_OK;
    if (t->kind == LG_ONNX_TYPE_TENSOR || t->kind == LG_ONNX_TYPE_SPARSE_TENSOR) {
        /* TypeProto.SparseTensor has the same two fields as TypeProto.Tensor */
        size_t old = ox_push(r, ".tensor_type");
        LG_TRY(ox_enter(r));
        LG_TRY(rd_tensor_type(r, last->off, last->off + last->len, t));
        ox_leave(r);
        ox_pop(r, old);
    }
    return LG_OK;
}

static lg_status rd_value_info(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_value_info *v) {
    ox_scan_t s;
    lg_onnx_str pk = ox_peek(r, off, end, 1);
    if (pk.s) ox_push_name(r, pk);
    LG_TRY(ox_scan(r, &M_VI, off, end, &s));
    if (s.cnt[1]) LG_TRY(ox_name(r, &M_VI, &s.last[1], &v->name));
    if (s.cnt[2]) {
        size_t old = ox_push(r, ".type");
        LG_TRY(ox_enter(r));
        LG_TRY(rd_type(r, s.last[2].off, s.last[2].off + s.last[2].len, &v->type));
        ox_leave(r);
        ox_pop(r, old);
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ attributes and nodes */

/* The type a pre-IR-2 attribute without `type` has: the one field that is set. */
static int32_t infer_attr_type(const ox_scan_t *s) {
    static const struct { uint32_t num; int32_t type; } K[] = {
        {2, LG_ONNX_ATTR_FLOAT}, {3, LG_ONNX_ATTR_INT}, {4, LG_ONNX_ATTR_STRING}, {5, LG_ONNX_ATTR_TENSOR},
        {6, LG_ONNX_ATTR_GRAPH}, {7, LG_ONNX_ATTR_FLOATS}, {8, LG_ONNX_ATTR_INTS}, {9, LG_ONNX_ATTR_STRINGS},
        {10, LG_ONNX_ATTR_TENSORS}, {11, LG_ONNX_ATTR_GRAPHS}};
    for (unsigned i = 0; i < sizeof K / sizeof K[0]; i++)
        if (s->cnt[K[i].num]) return K[i].type;
    return LG_ONNX_ATTR_UNDEFINED;
}

static lg_status sub_tensor(ox_rd *r, const ox_field *f, const char *seg, uint64_t i, lg_onnx_tensor *t) {
    size_t old = seg_push(r, seg, i);
    LG_TRY(ox_tensor(r, f->off, f->off + f->len, t));
    ox_pop(r, old);
    return LG_OK;
}

static lg_status sub_graph(ox_rd *r, const ox_field *f, const char *seg, uint64_t i, lg_onnx_graph *g) {
    size_t old = seg_push(r, seg, i);
    LG_TRY(ox_enter(r));
    LG_TRY(ox_graph(r, f->off, f->off + f->len, g));
    ox_leave(r);
    ox_pop(r, old);
    return LG_OK;
}

static lg_status attr_lists(ox_rd *r, uint64_t off, uint64_t end, const ox_scan_t *s, lg_onnx_attr *a) {
    void *p;
    LG_TRY(ox_array(r, s->cnt[7], sizeof(float), &p));
    float *floats = p;
    LG_TRY(ox_array(r, s->cnt[8], sizeof(int64_t), &p));
    int64_t *ints = p;
    LG_TRY(ox_array(r, s->cnt[9], sizeof(lg_onnx_str), &p));
    lg_onnx_str *strs = p;
    LG_TRY(ox_array(r, s->cnt[10], sizeof(lg_onnx_tensor), &p));
    lg_onnx_tensor *ts = p;
    LG_TRY(ox_array(r, s->cnt[11], sizeof(lg_onnx_graph), &p));
    lg_onnx_graph *gs = p;
    uint64_t nf = 0, ni = 0, ns = 0, nt = 0, ng = 0, pos = off;
    for (;;) {
        ox_field f;
        int more;
        LG_TRY(ox_next(r, &M_ATTR, &pos, end, &f, &more));
        if (!more) break;
        switch (f.num) {
        case 7: LG_TRY(ox_rf32(r, &M_ATTR, &f, (uint32_t *)(void *)floats, s->cnt[7], &nf)); break;
        case 8: LG_TRY(ox_rvar(r, &M_ATTR, &f, (uint64_t *)(void *)ints, s->cnt[8], &ni)); break;
        case 9: LG_TRY(ox_bytes(r, &M_ATTR, &f, &strs[ns++])); break;
        case 10: LG_TRY(sub_tensor(r, &f, "tensors", nt, &ts[nt])); nt++; break;
        case 11: LG_TRY(sub_graph(r, &f, "graphs", ng, &gs[ng])); ng++; break;
        default: break;
        }
    }
    a->floats = floats; a->n_floats = (uint32_t)nf;
    a->ints = ints; a->n_ints = (uint32_t)ni;
    a->strings = strs; a->n_strings = (uint32_t)ns;
    a->tensors = ts; a->n_tensors = (uint32_t)nt;
    a->graphs = gs; a->n_graphs = (uint32_t)ng;
    return LG_OK;
}

static lg_status rd_attr(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_attr *a) {
    ox_scan_t s;
    lg_onnx_str pk = ox_peek(r, off, end, 1);
    if (pk.s) ox_push_name(r, pk);
    LG_TRY(ox_scan(r, &M_ATTR, off, end, &s));
    if (s.cnt[1]) LG_TRY(ox_name(r, &M_ATTR, &s.last[1], &a->name));
    if (s.cnt[22] || s.cnt[23])
        return ox_fail(r, LG_ERR_UNSUPPORTED, "sparse tensor attributes are not supported");
    if (s.cnt[21]) LG_TRY(ox_name(r, &M_ATTR, &s.last[21], &a->ref_attr_name));
    if (s.cnt[20]) LG_TRY(ox_int32(r, &M_ATTR, &s.last[20], &a->type));
    else a->type = infer_attr_type(&s);
    if (a->type < 0 || a->type > LG_ONNX_ATTR_TYPE_PROTOS)
        return ox_bad(r, "type %d is not an AttributeType (0..14)", a->type);
    if (s.cnt[2]) {
        uint32_t b = (uint32_t)s.last[2].v;
        memcpy(&a->f, &b, sizeof b);
    }
    if (s.cnt[3]) a->i = (int64_t)s.last[3].v;
    if (s.cnt[4]) LG_TRY(ox_bytes(r, &M_ATTR, &s.last[4], &a->s));
    if (s.cnt[5]) {
        lg_onnx_tensor *t = lgi_arena_alloc(r->arena, sizeof *t);
        if (!t) return ox_nomem(r);
        LG_TRY(sub_tensor(r, &s.last[5], "t", UINT64_MAX, t));
        a->t = t;
    }
    if (s.cnt[6]) {
        lg_onnx_graph *g = lgi_arena_alloc(r->arena, sizeof *g);
        if (!g) return ox_nomem(r);
        LG_TRY(sub_graph(r, &s.last[6], "g", UINT64_MAX, g));
        a->g = g;
    }
    return attr_lists(r, off, end, &s, a);
}

static lg_status rd_node(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_node *n) {
    ox_scan_t s;
    void *p;
    lg_onnx_str pk = ox_peek(r, off, end, 4);
    if (pk.s) ox_push_esc(r, " (", pk, ")");
    LG_TRY(ox_scan(r, &M_NODE, off, end, &s));
    if (s.cnt[4]) LG_TRY(ox_name(r, &M_NODE, &s.last[4], &n->op_type));
    if (s.cnt[3]) LG_TRY(ox_name(r, &M_NODE, &s.last[3], &n->name));
    if (s.cnt[7]) LG_TRY(ox_name(r, &M_NODE, &s.last[7], &n->domain));
    LG_TRY(ox_array(r, s.cnt[1], sizeof(lg_onnx_str), &p));
    lg_onnx_str *in = p;
    LG_TRY(ox_array(r, s.cnt[2], sizeof(lg_onnx_str), &p));
    lg_onnx_str *out = p;
    LG_TRY(ox_array(r, s.cnt[5], sizeof(lg_onnx_attr), &p));
    lg_onnx_attr *at = p;
    uint64_t ni = 0, no = 0, na = 0, pos = off;
    for (;;) {
        ox_field f;
        int more;
        LG_TRY(ox_next(r, &M_NODE, &pos, end, &f, &more));
        if (!more) break;
        if (f.num == 1) LG_TRY(ox_name(r, &M_NODE, &f, &in[ni++]));
        else if (f.num == 2) LG_TRY(ox_name(r, &M_NODE, &f, &out[no++]));
        else if (f.num == 5) {
            size_t old = ox_push(r, ".attribute[%llu]", (unsigned long long)na);
            LG_TRY(ox_enter(r));
            LG_TRY(rd_attr(r, f.off, f.off + f.len, &at[na++]));
            ox_leave(r);
            ox_pop(r, old);
        }
    }
    n->inputs = in; n->n_inputs = (uint32_t)ni;
    n->outputs = out; n->n_outputs = (uint32_t)no;
    n->attrs = at; n->n_attrs = (uint32_t)na;
    return LG_OK;
}

/* ------------------------------------------------------------------ graph and model */

lg_status ox_graph(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_graph *g) {
    ox_scan_t s;
    void *p;
    LG_TRY(ox_scan(r, &M_GRAPH, off, end, &s));
    if (s.cnt[2]) LG_TRY(ox_name(r, &M_GRAPH, &s.last[2], &g->name));
    if (s.cnt[15])
        return ox_fail(r, LG_ERR_UNSUPPORTED, "has %llu sparse_initializer entries: sparse initializers are not "
                       "supported", (unsigned long long)s.cnt[15]);
    LG_TRY(ox_array(r, s.cnt[1], sizeof(lg_onnx_node), &p));
    lg_onnx_node *nodes = p;
    LG_TRY(ox_array(r, s.cnt[5], sizeof(lg_onnx_tensor), &p));
    lg_onnx_tensor *inits = p;
    lg_onnx_value_info *vis[3];
    for (int k = 0; k < 3; k++) {
        LG_TRY(ox_array(r, s.cnt[11 + k], sizeof(lg_onnx_value_info), &p));
        vis[k] = p;
    }
    static const char *const VI_SEG[3] = {"input", "output", "value_info"};
    uint64_t nn = 0, ni = 0, nv[3] = {0, 0, 0}, pos = off;
    for (;;) {
        ox_field f;
        int more;
        LG_TRY(ox_next(r, &M_GRAPH, &pos, end, &f, &more));
        if (!more) break;
        if (f.num == 1) {
            size_t old = ox_push(r, ".node[%llu]", (unsigned long long)nn);
            LG_TRY(ox_enter(r));
            LG_TRY(rd_node(r, f.off, f.off + f.len, &nodes[nn++]));
            ox_leave(r);
            ox_pop(r, old);
        } else if (f.num == 5) {
            LG_TRY(sub_tensor(r, &f, "initializer", ni, &inits[ni]));
            ni++;
        } else if (f.num >= 11 && f.num <= 13) {
            int k = (int)f.num - 11;
            size_t old = ox_push(r, ".%s[%llu]", VI_SEG[k], (unsigned long long)nv[k]);
            LG_TRY(ox_enter(r));
            LG_TRY(rd_value_info(r, f.off, f.off + f.len, &vis[k][nv[k]++]));
            ox_leave(r);
            ox_pop(r, old);
        }
    }
    g->nodes = nodes; g->n_nodes = (uint32_t)nn;
    g->initializers = inits; g->n_initializers = (uint32_t)ni;
    g->inputs = vis[0]; g->n_inputs = (uint32_t)nv[0];
    g->outputs = vis[1]; g->n_outputs = (uint32_t)nv[1];
    g->value_info = vis[2]; g->n_value_info = (uint32_t)nv[2];
    return LG_OK;
}

static lg_status model_lists(ox_rd *r, uint64_t end, const ox_scan_t *s, lg_onnx_model *m) {
    void *p;
    LG_TRY(ox_array(r, s->cnt[8], sizeof(lg_onnx_opset), &p));
    lg_onnx_opset *ops = p;
    LG_TRY(ox_array(r, s->cnt[14], sizeof(lg_onnx_kv), &p));
    lg_onnx_kv *md = p;
    uint64_t no = 0, nm = 0, pos = 0;
    for (;;) {
        ox_field f;
        int more;
        LG_TRY(ox_next(r, &M_MODEL, &pos, end, &f, &more));
        if (!more) break;
        if (f.num == 8) {
            ox_scan_t o;
            size_t old = ox_push(r, "opset_import[%llu]", (unsigned long long)no);
            LG_TRY(ox_enter(r));
            LG_TRY(ox_scan(r, &M_OPSET, f.off, f.off + f.len, &o));
            if (o.cnt[1]) LG_TRY(ox_name(r, &M_OPSET, &o.last[1], &ops[no].domain));
            ops[no++].version = (int64_t)o.last[2].v;
            ox_leave(r);
            ox_pop(r, old);
        } else if (f.num == 14) {
            size_t old = ox_push(r, "metadata_props[%llu]", (unsigned long long)nm);
            LG_TRY(ox_kv(r, f.off, f.off + f.len, &md[nm++]));
            ox_pop(r, old);
        }
    }
    m->opsets = ops; m->n_opsets = (uint32_t)no;
    m->metadata = md; m->n_metadata = (uint32_t)nm;
    return LG_OK;
}

static lg_status rd_model(ox_rd *r, lg_onnx_model *m) {
    ox_scan_t s;
    uint64_t end = r->size;
    LG_TRY(ox_scan(r, &M_MODEL, 0, end, &s));
    if (!s.cnt[1]) return ox_fail(r, LG_ERR_FORMAT, "no ir_version: not an ONNX model");
    m->ir_version = (int64_t)s.last[1].v;
    r->ir_version = m->ir_version;
    if (m->ir_version < IR_MIN || m->ir_version > IR_MAX)
        return ox_fail(r, LG_ERR_UNSUPPORTED, "ONNX IR version %lld is not supported (%d..%d)",
                       (long long)m->ir_version, IR_MIN, IR_MAX);
    if (s.cnt[2]) LG_TRY(ox_name(r, &M_MODEL, &s.last[2], &m->producer_name));
    if (s.cnt[3]) LG_TRY(ox_name(r, &M_MODEL, &s.last[3], &m->producer_version));
    if (s.cnt[4]) LG_TRY(ox_name(r, &M_MODEL, &s.last[4], &m->domain));
    if (s.cnt[5]) m->model_version = (int64_t)s.last[5].v;
    if (s.cnt[6]) LG_TRY(ox_bytes(r, &M_MODEL, &s.last[6], &m->doc_string));
    if (s.cnt[20] > UINT32_MAX || s.cnt[25] > UINT32_MAX) return ox_fail(r, LG_ERR_LIMIT, "too many entries");
    m->n_training_info = (uint32_t)s.cnt[20];
    m->n_functions = (uint32_t)s.cnt[25];
    LG_TRY(model_lists(r, end, &s, m));
    if (!s.cnt[7]) return ox_bad(r, "has no graph");
    lg_onnx_graph *g = lgi_arena_alloc(r->arena, sizeof *g);
    if (!g) return ox_nomem(r);
    LG_TRY(sub_graph(r, &s.last[7], "graph", UINT64_MAX, g));
    m->graph = g;
    return LG_OK;
}

/* ------------------------------------------------------------------ entry points */

static lg_status model_alloc(const lg_onnx_read_options *opt, uint64_t size, lg_onnx_model **out, lg_error *err) {
    lg_alloc_fn af = opt && opt->alloc ? opt->alloc : lgi_default_alloc;
    void *ud = opt && opt->alloc ? opt->alloc_ud : NULL;
    uint64_t limit = opt && opt->max_ir_bytes ? opt->max_ir_bytes : ((uint64_t)64 << 20) + 16 * size;
    lg_onnx_priv *p = af(ud, NULL, 0, sizeof *p);
    if (!p) return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    memset(p, 0, sizeof *p);
    lgi_arena_init(&p->arena, af, ud, limit);
    lg_onnx_model *m = lgi_arena_alloc(&p->arena, sizeof *m);
    if (!m) {
        lg_status st = p->arena.over_limit ? LG_ERR_LIMIT : LG_ERR_NOMEM;
        af(ud, p, sizeof *p, 0);
        return lgi_fail(err, st, "out of memory (or max_ir_bytes too small)");
    }
    m->priv = p;
    *out = m;
    return LG_OK;
}

void lg_onnx_model_free(lg_onnx_model *m) {
    if (!m) return;
    lg_onnx_priv *p = m->priv;
    ox_unmap_all(p);
    if (p->map_addr) munmap(p->map_addr, p->map_len);
    lg_alloc_fn af = p->arena.alloc;
    void *ud = p->arena.ud;
    lgi_arena_free(&p->arena);
    af(ud, p, sizeof *p, 0);
}

static lg_status read_common(const void *buf, size_t size, const lg_onnx_read_options *opt, const char *where,
                             const char *base_dir, int tensor_only, lg_onnx_model **out, lg_error *err) {
    lg_onnx_model *m = NULL;
    LG_TRY(model_alloc(opt, size, &m, err));
    ox_rd r;
    memset(&r, 0, sizeof r);
    r.buf = buf;
    r.size = size;
    r.arena = &m->priv->arena;
    r.priv = m->priv;
    r.err = err;
    r.where = where;
    r.max_depth = opt && opt->max_depth ? opt->max_depth : 64;
    r.base_dir = base_dir;
    r.no_external = opt && opt->no_external;
    lg_status st;
    if (tensor_only) {
        lg_onnx_tensor *t = lgi_arena_alloc(r.arena, sizeof *t);
        st = t ? ox_tensor(&r, 0, size, t) : ox_nomem(&r);
        m->tensor = t;
    } else {
        st = rd_model(&r, m);
        if (st == LG_OK) {
            st = lg_onnx_validate(m, err);
            if (st != LG_OK && err) lgi_error_prefix(err, "%.200s: ", where);
        }
    }
    if (st != LG_OK) {
        lg_onnx_model_free(m);
        return st;
    }
    *out = m;
    return LG_OK;
}

static lg_status mem_args(const void *buf, size_t size, lg_onnx_model **out, lg_error *err, const char *fn) {
    lgi_error_clear(err);
    if (!out) return lgi_fail(err, LG_ERR_INVALID_ARG, "%s: out is NULL", fn);
    *out = NULL;
    if (!buf && size) return lgi_fail(err, LG_ERR_INVALID_ARG, "%s: buf is NULL", fn);
    return LG_OK;
}

lg_status lg_onnx_read_mem(const void *buf, size_t size, const lg_onnx_read_options *opt, lg_onnx_model **out,
                           lg_error *err) {
    LG_TRY(mem_args(buf, size, out, err, "lg_onnx_read_mem"));
    return read_common(buf ? buf : "", size, opt, opt && opt->name ? opt->name : "model",
                       opt ? opt->base_dir : NULL, 0, out, err);
}

lg_status lg_onnx_read_tensor_mem(const void *buf, size_t size, const lg_onnx_read_options *opt,
                                  lg_onnx_model **out, lg_error *err) {
    LG_TRY(mem_args(buf, size, out, err, "lg_onnx_read_tensor_mem"));
    return read_common(buf ? buf : "", size, opt, opt && opt->name ? opt->name : "tensor",
                       opt ? opt->base_dir : NULL, 1, out, err);
}

lg_status lg_onnx_read_file(const char *path, const lg_onnx_read_options *opt, lg_onnx_model **out,
                            lg_error *err) {
    lgi_error_clear(err);
    if (!out || !path) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_onnx_read_file: NULL argument");
    *out = NULL;
    int fd;
    uint64_t fsize;
    LG_TRY(lg_input_open(path, &fd, &fsize, err));
    if (fsize > SIZE_MAX) {
        close(fd);
        return lgi_fail(err, LG_ERR_LIMIT, "%s: file too large to map", path);
    }
    size_t len = (size_t)fsize;
    void *addr = NULL;
    if (len) {
        addr = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (addr == MAP_FAILED) {
            int e = errno;
            close(fd);
            return lgi_fail(err, LG_ERR_IO, "%s: cannot map: %s", path, strerror(e));
        }
    }
    close(fd);
    /* external data lives next to the model unless the caller says otherwise */
    char dir[4096];
    const char *base = opt && opt->base_dir ? opt->base_dir : NULL;
    if (!base) {
        const char *slash = strrchr(path, '/');
        if (!slash) snprintf(dir, sizeof dir, ".");
        else if (slash == path) snprintf(dir, sizeof dir, "/");
        else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
        base = dir;
    }
    lg_status st = read_common(addr ? addr : "", len, opt, path, base, 0, out, err);
    if (st != LG_OK) {
        if (addr) munmap(addr, len);
        return st;
    }
    (*out)->priv->map_addr = addr;
    (*out)->priv->map_len = len;
    return LG_OK;
}
