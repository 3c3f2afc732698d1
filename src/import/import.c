/* lg_onnx_import: the driver of the ONNX -> TFLite lowering (lg/import.h).
 *
 *  1. Every node's op type is looked up in the lowering tables (per opset); all the nodes we
 *     cannot lower are listed in the report at once and the first one is the error.
 *  2. Initializers become constants (INT64 -> INT32, saturating; noted), graph inputs become
 *     the TFLite inputs with the ONNX name, dtype and shape (dynamic dims from the options);
 *     an INT64 input is cast to INT32 inside, a rank-4 float input with nhwc_io is
 *     transposed NHWC -> NCHW.
 *  3. Nodes are lowered in graph order (ONNX graphs are topologically sorted), each through
 *     li_op, which infers shapes and folds ops whose inputs are all constant.
 *  4. Outputs get the ONNX names (a copy when the value is a constant, an input or another
 *     output), INT64 outputs a CAST back, nhwc_io outputs a TRANSPOSE.
 *  5. lg_optimize folds what is left and cancels inverse transposes; the op versions are the
 *     ones TFLite's converter assigns (check/op_version.c); fp16 weights; source metadata. */
#define _DEFAULT_SOURCE /* madvise */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check/op_version.h"
#include "import/import_impl.h"
#include "io/onnx/wire.h" /* lg_onnx_priv: the reader's mapping of the .onnx */
#include "lg/graph.h"
#include "lg/passes.h"
#include "lg/quantize.h"
#include "util/half.h"

/* Constant data let go while lowering and converting goes back in batches of this many bytes
   (each batch one scan of the model): "memory while lowering" below. */
#define RELEASE_BATCH ((uint64_t)1 << 20)

/* ------------------------------------------------------------------ the report */

static char *dup_n(const char *s, size_t n) {
    char *p = malloc(n + 1);
    if (!p) return NULL;
    if (n) memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void lg_import_report_free(lg_import_report *r) {
    if (!r) return;
    for (uint32_t i = 0; i < r->n_nodes; i++) {
        free(r->nodes[i].name);
        free(r->nodes[i].op_type);
        free(r->nodes[i].domain);
        free(r->nodes[i].lowering);
    }
    free(r->nodes);
    for (uint32_t i = 0; i < r->n_notes; i++) free(r->notes[i]);
    free(r->notes);
    free(r);
}

static lg_import_report *report_new(const lg_onnx_graph *g, int64_t opset) {
    lg_import_report *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->opset = opset;
    r->nodes = calloc(g->n_nodes ? g->n_nodes : 1, sizeof *r->nodes);
    if (!r->nodes) {
        free(r);
        return NULL;
    }
    r->n_nodes = g->n_nodes;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const lg_onnx_node *n = &g->nodes[i];
        lg_import_node *e = &r->nodes[i];
        e->name = dup_n(n->name.s ? n->name.s : "", n->name.n);
        e->op_type = dup_n(n->op_type.s ? n->op_type.s : "", n->op_type.n);
        e->domain = n->domain.n ? dup_n(n->domain.s, n->domain.n) : dup_n("ai.onnx", 7);
        e->opset = opset;
        e->supported = true;
    }
    return r;
}

static void report_set(li_ctx *c, uint32_t i, bool ok, const char *text) {
    if (!c->rep || i >= c->rep->n_nodes) return;
    lg_import_node *e = &c->rep->nodes[i];
    free(e->lowering);
    e->lowering = dup_n(text, strlen(text));
    if (e->supported && !ok) c->rep->n_unsupported++;
    e->supported = ok;
}

/* ------------------------------------------------------------------ helpers */

static bool is_default_domain(lg_onnx_str d) {
    return d.n == 0 || lg_onnx_str_eq(d, "ai.onnx");
}

static int64_t model_opset(const lg_onnx_model *om) {
    int64_t v = -1;
    for (uint32_t i = 0; i < om->n_opsets; i++)
        if (is_default_domain(om->opsets[i].domain)) v = om->opsets[i].version;
    return v;
}

static bool is_initializer(const lg_onnx_graph *g, lg_onnx_str name) {
    for (uint32_t i = 0; i < g->n_initializers; i++)
        if (g->initializers[i].name.n == name.n && memcmp(g->initializers[i].name.s, name.s, name.n) == 0)
            return true;
    return false;
}

static void set_name(li_ctx *c, int32_t t, lg_onnx_str name) {
    char *s = lgi_arena_alloc(&c->m->priv->arena, name.n + 1);
    if (!s) {
        c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        return;
    }
    memcpy(s, name.s, name.n);
    s[name.n] = 0;
    li_t(c, t)->name = s;
}

/* A copy of x (RESHAPE to its own shape) that folding never removes: for outputs. */
static int32_t copy_of(li_ctx *c, int32_t x) {
    if (!LI_OK(c)) return -1;
    lg_shape s = li_shape(c, x);
    int64_t d[LG_MAX_RANK];
    for (int i = 0; i < s.rank; i++) d[i] = s.dim[i];
    int32_t shp = li_ki32(c, d, (uint32_t)s.rank);
    if (s.rank == 0) {
        /* RESHAPE to a scalar takes an empty shape vector */
        int64_t z = 0;
        shp = li_konst(c, LG_INT32, &z, 1, NULL, 0);
    }
    int32_t out = -1, opi = -1;
    if (lg_subgraph_add_tensor(c->m, 0, "copy", li_type(c, x), s.rank ? li_t(c, x)->shape : NULL,
                               (uint32_t)s.rank, &out, c->err) != LG_OK ||
        lg_subgraph_add_op(c->m, 0, LG_OP_RESHAPE, NULL, 1, (const int32_t[]){x, shp}, 2, &out, 1,
                           LG_OPTS_NONE, NULL, &opi, c->err) != LG_OK) {
        c->st = LG_ERR_INTERNAL;
        return -1;
    }
    return out;
}

/* ------------------------------------------------------------------ inputs and outputs */

static lg_status input_shape(li_ctx *c, const lg_onnx_value_info *vi, int64_t *dims, uint32_t *rank) {
    const lg_import_shape *given = NULL;
    for (uint32_t i = 0; c->opt && i < c->opt->n_input_shapes; i++)
        if (c->opt->input_shapes[i].name && lg_onnx_str_eq(vi->name, c->opt->input_shapes[i].name))
            given = &c->opt->input_shapes[i];
    const lg_onnx_type *ty = &vi->type;
    if (given) {
        if (ty->has_shape && given->rank != ty->n_dims)
            return c->st = lgi_fail(c->err, LG_ERR_INVALID_ARG,
                                    "input \"%.*s\": the given shape has rank %u, the model's %u",
                                    LG_ONNX_STR(vi->name), given->rank, ty->n_dims);
        for (uint32_t d = 0; d < given->rank && ty->has_shape; d++)
            if (ty->dims[d].kind == 1 && ty->dims[d].value != given->dims[d])
                return c->st = lgi_fail(c->err, LG_ERR_INVALID_ARG,
                                        "input \"%.*s\": dimension %u is %lld in the model, %lld given",
                                        LG_ONNX_STR(vi->name), d, (long long)ty->dims[d].value,
                                        (long long)given->dims[d]);
        if (given->rank > LG_MAX_RANK)
            return c->st = lgi_fail(c->err, LG_ERR_UNSUPPORTED, "input \"%.*s\": rank %u", LG_ONNX_STR(vi->name), given->rank);
        for (uint32_t d = 0; d < given->rank; d++) {
            if (given->dims[d] <= 0)
                return c->st = lgi_fail(c->err, LG_ERR_INVALID_ARG, "input \"%.*s\": dimension %u must be positive",
                                        LG_ONNX_STR(vi->name), d);
            dims[d] = given->dims[d];
        }
        *rank = given->rank;
        return LG_OK;
    }
    if (!ty->has_shape)
        return c->st = lgi_fail(c->err, LG_ERR_INVALID_ARG,
                                "input \"%.*s\" has no shape in the model: give one (--input-shape %.*s=...)",
                                LG_ONNX_STR(vi->name), LG_ONNX_STR(vi->name));
    if (ty->n_dims > LG_MAX_RANK)
        return c->st = lgi_fail(c->err, LG_ERR_UNSUPPORTED, "input \"%.*s\": rank %u", LG_ONNX_STR(vi->name), ty->n_dims);
    for (uint32_t d = 0; d < ty->n_dims; d++) {
        const lg_onnx_dim *dm = &ty->dims[d];
        if (dm->kind != 1)
            return c->st = lgi_fail(c->err, LG_ERR_INVALID_ARG,
                                    "input \"%.*s\": dimension %u%s%.*s%s is dynamic: give the shape "
                                    "(--input-shape %.*s=...)",
                                    LG_ONNX_STR(vi->name), d, dm->kind == 2 ? " (\"" : "",
                                    dm->kind == 2 ? (int)dm->param.n : 0, dm->kind == 2 ? dm->param.s : "",
                                    dm->kind == 2 ? "\")" : "", LG_ONNX_STR(vi->name));
        if (dm->value <= 0)
            return c->st = lgi_fail(c->err, LG_ERR_UNSUPPORTED, "input \"%.*s\": dimension %u is %lld",
                                    LG_ONNX_STR(vi->name), d, (long long)dm->value);
        dims[d] = dm->value;
    }
    *rank = ty->n_dims;
    return LG_OK;
}

static lg_status add_inputs(li_ctx *c, int32_t *ins, uint32_t *n_ins) {
    const lg_onnx_graph *g = c->g;
    *n_ins = 0;
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        const lg_onnx_value_info *vi = &g->inputs[i];
        if (is_initializer(g, vi->name)) continue;
        const lg_onnx_tensor *frozen = NULL;
        for (uint32_t k = 0; c->opt && k < c->opt->n_const_inputs; k++)
            if (c->opt->const_inputs[k].name && lg_onnx_str_eq(vi->name, c->opt->const_inputs[k].name))
                frozen = c->opt->const_inputs[k].value;
        if (frozen) {
            int32_t t = -1, ot = 0;
            if (frozen->data_type != vi->type.elem_type)
                return c->st = lgi_fail(c->err, LG_ERR_INVALID_ARG, "input \"%.*s\": the value given is %s, the input %s",
                                        LG_ONNX_STR(vi->name), lg_onnx_dtype_name(frozen->data_type),
                                        lg_onnx_dtype_name(vi->type.elem_type));
            LG_TRY(li_tensor_const(c, frozen, &t, &ot));
            LG_TRY(li_bind(c, vi->name, t, ot));
            li_note(c, "input \"%.*s\": frozen to the value given", LG_ONNX_STR(vi->name));
            continue;
        }
        if (vi->type.kind != LG_ONNX_TYPE_TENSOR)
            return c->st = lgi_fail(c->err, LG_ERR_UNSUPPORTED, "input \"%.*s\": not a tensor (sequence, map or optional)",
                                    LG_ONNX_STR(vi->name));
        int32_t ot = vi->type.elem_type;
        int tt = ot == LG_ONNX_INT64 ? LG_INT64 : li_tfl_type(ot);
        if (tt < 0)
            return c->st = lgi_fail(c->err, LG_ERR_UNSUPPORTED, "input \"%.*s\": type %s is not supported",
                                    LG_ONNX_STR(vi->name), lg_onnx_dtype_name(ot));
        int64_t dims[LG_MAX_RANK];
        uint32_t rank = 0;
        LG_TRY(input_shape(c, vi, dims, &rank));
        bool nhwc = c->opt && c->opt->nhwc_io && rank == 4 && tt == LG_FLOAT32;
        int32_t d32[LG_MAX_RANK];
        for (uint32_t d = 0; d < rank; d++) d32[d] = (int32_t)dims[d];
        if (nhwc) {
            d32[1] = (int32_t)dims[2];
            d32[2] = (int32_t)dims[3];
            d32[3] = (int32_t)dims[1];
        }
        char *nm = dup_n(vi->name.s, vi->name.n);
        if (!nm) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        int32_t t = -1;
        lg_status st = lg_subgraph_add_tensor(c->m, 0, nm, (lg_dtype)tt, d32, rank, &t, c->err);
        free(nm);
        if (st != LG_OK) return c->st = st;
        ins[(*n_ins)++] = t;
        int32_t v = t;
        if (tt == LG_INT64) {
            v = li_cast(c, t, LG_INT32);
            li_note(c, "input \"%.*s\": INT64 at the boundary, computed as INT32 inside",
                    LG_ONNX_STR(vi->name));
        }
        if (nhwc) {
            v = li_to_nchw(c, v);
            li_note(c, "input \"%.*s\": NHWC (nhwc_io)", LG_ONNX_STR(vi->name));
        }
        LI_TRY(c);
        LG_TRY(li_bind(c, vi->name, v, ot));
    }
    return LG_OK;
}

static lg_status add_outputs(li_ctx *c, const int32_t *ins, uint32_t n_ins, int32_t *outs) {
    const lg_onnx_graph *g = c->g;
    c->node = NULL;
    for (uint32_t i = 0; i < g->n_outputs; i++) {
        const lg_onnx_value_info *vi = &g->outputs[i];
        const li_val *v = li_find(c, vi->name);
        if (!v) return c->st = lgi_fail(c->err, LG_ERR_FORMAT, "output \"%.*s\" is not computed", LG_ONNX_STR(vi->name));
        int32_t t = v->t;
        bool fresh = false;
        if (v->onnx_type == LG_ONNX_INT64 && li_type(c, t) != LG_INT64) {
            lg_cast_options o = {0};
            o.in_data_type = (int8_t)li_type(c, t);
            o.out_data_type = LG_INT64;
            int32_t out = -1, opi = -1;
            lg_shape s = li_shape(c, t);
            if (lg_subgraph_add_tensor(c->m, 0, "cast", LG_INT64, s.rank ? li_t(c, t)->shape : NULL,
                                       (uint32_t)s.rank, &out, c->err) != LG_OK ||
                lg_subgraph_add_op(c->m, 0, LG_OP_CAST, NULL, 1, &t, 1, &out, 1, LG_OPTS_CAST_OPTIONS,
                                   &o, &opi, c->err) != LG_OK)
                return c->st = LG_ERR_INTERNAL;
            t = out;
            fresh = true;
        }
        if (c->opt && c->opt->nhwc_io && li_rank(c, t) == 4 && li_type(c, t) == LG_FLOAT32) {
            t = li_to_nhwc(c, t);
            fresh = t != v->t;
        }
        LI_TRY(c);
        bool reuse = !fresh && (li_is_const(c, t) || li_t(c, t)->name[0] == 0);
        for (uint32_t k = 0; k < n_ins && !reuse; k++) reuse = ins[k] == t;
        for (uint32_t k = 0; k < i && !reuse; k++) reuse = outs[k] == t;
        if (reuse || li_is_const(c, t)) t = copy_of(c, t);
        LI_TRY(c);
        set_name(c, t, vi->name);
        outs[i] = t;
    }
    return c->st;
}

/* ------------------------------------------------------------------ after lowering */

static lg_status set_versions(lg_model *m, lg_error *err) {
    lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        int32_t code = lg_op_builtin(m, op);
        int v = lgi_op_version(m, sg, op);
        if (v != m->opcodes[op->opcode_index].version)
            LG_TRY(lg_op_set_opcode(m, 0, i, code, NULL, v, err));
    }
    return LG_OK;
}

/* Float buffers weights_fp16 let go: their data goes back in batches of RELEASE_BATCH. */
typedef struct fp16_drop {
    uint32_t n_buffers;  /* the buffers before the conversion (the arrays' size) */
    uint8_t *users;      /* tensors using each, at most 2 (metadata counts as 2) */
    uint8_t *dropped;
    uint64_t bytes;
} fp16_drop;

static void release_dropped(lg_model *m, fp16_drop *d) {
    for (uint32_t b = 1; b < d->n_buffers; b++) {
        if (!d->dropped[b]) continue;
        m->buffers[b].data = NULL; /* no data vector: compaction removes the buffer */
        m->buffers[b].size = 0;
        d->dropped[b] = 0;
    }
    d->bytes = 0;
    size_t n = lgi_holds_gc_scratch(m);
    void *scratch = n ? lgi_model_malloc(m, n) : NULL;
    if (scratch) {
        lgi_holds_gc(m, scratch);
        lgi_model_mfree(m, scratch, n);
    }
}

/* Buffer fb no longer used by the tensor converted: let it go when no one else uses it. */
static void drop_float(lg_model *m, fp16_drop *d, uint32_t fb) {
    if (!d->users || fb == 0 || fb >= d->n_buffers || d->users[fb] != 1 || d->dropped[fb]) return;
    d->dropped[fb] = 1;
    d->bytes += m->buffers[fb].size;
    if (d->bytes >= RELEASE_BATCH) release_dropped(m, d);
}

/* Float constants with >= 16 elements: FLOAT16 constants + DEQUANTIZE (TFLite's fp16 form,
   lg_const_to_fp16 of lg/quantize.h: clamped to +-65504, rounded to nearest even).
   A float buffer no other tensor uses is let go as we go, so that the peak is the fp32
   weights and not fp32 + fp16 (without memory for the bookkeeping, compaction does it). */
static lg_status weights_fp16(lg_model *m, uint32_t *n_done, lg_error *err) {
    *n_done = 0;
    uint32_t n_t = m->subgraphs[0].n_tensors;
    fp16_drop d = {m->n_buffers, calloc(m->n_buffers ? m->n_buffers : 1, 1),
                   calloc(m->n_buffers ? m->n_buffers : 1, 1), 0};
    if (!d.users || !d.dropped) {
        free(d.users);
        free(d.dropped);
        d.users = d.dropped = NULL;
    }
    for (uint32_t t = 0; d.users && t < n_t; t++) {
        uint32_t b = m->subgraphs[0].tensors[t].buffer;
        if (b < d.n_buffers && d.users[b] < 2) d.users[b]++;
    }
    for (uint32_t i = 0; d.users && i < m->n_metadata; i++)
        if (m->metadata[i].buffer < d.n_buffers) d.users[m->metadata[i].buffer] = 2;
    lg_status st = LG_OK;
    for (uint32_t t = 0; t < n_t && st == LG_OK; t++) {
        lg_tensor *x = &m->subgraphs[0].tensors[t];
        if (x->type != LG_FLOAT32 || !lg_tensor_is_const(m, 0, (int32_t)t)) continue;
        if (lg_tensor_numel(x) < 16) continue;
        uint32_t fb = x->buffer;
        st = lg_const_to_fp16(m, 0, (int32_t)t, 0, NULL, err); /* the form quantize --mode fp16 writes */
        if (st != LG_OK) break;
        (*n_done)++;
        drop_float(m, &d, fb);
    }
    if (st == LG_OK && d.bytes) release_dropped(m, &d);
    free(d.users);
    free(d.dropped);
    return st;
}

static void json_str(char *buf, size_t cap, size_t *len, lg_onnx_str s) {
    for (uint32_t i = 0; i < s.n && *len + 8 < cap; i++) {
        unsigned char ch = (unsigned char)s.s[i];
        if (ch == '"' || ch == '\\') {
            buf[(*len)++] = '\\';
            buf[(*len)++] = (char)ch;
        } else if (ch < 0x20) {
            *len += (size_t)snprintf(buf + *len, cap - *len, "\\u%04x", ch);
        } else {
            buf[(*len)++] = (char)ch;
        }
    }
    buf[*len] = 0;
}

static lg_status record_source(li_ctx *c, lg_model *m) {
    LG_TRY(lg_model_set_description(m, "converted from ONNX by litegpu", c->err));
    char buf[1024];
    size_t len = 0;
    len += (size_t)snprintf(buf, sizeof buf, "{\"producer\":\"");
    json_str(buf, sizeof buf, &len, c->om->producer_name);
    len += (size_t)snprintf(buf + len, sizeof buf - len, "\",\"producer_version\":\"");
    json_str(buf, sizeof buf, &len, c->om->producer_version);
    const char *sha = c->opt && c->opt->sha256_hex ? c->opt->sha256_hex : "";
    lg_onnx_str shs = {sha, (uint32_t)strnlen(sha, 128)};
    len += (size_t)snprintf(buf + len, sizeof buf - len, "\",\"opset\":%lld,\"ir_version\":%lld,\"sha256\":\"",
                            (long long)c->opset, (long long)c->om->ir_version);
    json_str(buf, sizeof buf, &len, shs);
    len += (size_t)snprintf(buf + len, sizeof buf - len, "\"}");
    return lg_model_add_metadata(m, "litegpu.source", buf, len, c->err);
}

/* ------------------------------------------------------------------ memory while lowering

   The initializers are copied in as constants first (add_initializers). Most are read once,
   by the lowering of the node using them, which builds the constant the op takes (a
   convolution's weights in OHWI with the batch norm folded in) and leaves the copy unused.
   Two things keep the peak near the size of the file instead of three times it:
   - the pages of the mapped .onnx an initializer was copied from are given back at once
     (MADV_DONTNEED on the reader's private read-only mapping of the file: its bytes stay
     the file's, a later read faults them in again from the page cache);
   - the copy is released once the last node reading the initializer is lowered, when no op
     reads its tensor (a lowering that took it as it is keeps it) and no other value is bound
     to it (Identity). This relies on lowerings reading the inputs of the node they lower and
     of later nodes only (a batch norm folded into the conv before it, a GELU pattern), never
     of nodes lowered before. Released in batches of RELEASE_BATCH bytes, each batch one scan
     of the ops; compaction after the lowering releases whatever is left. */

typedef struct li_mem {
    uint32_t n_init;      /* tensors [0, n_init) are the initializers' constants */
    int32_t *due;         /* per node: the first tensor whose last reader it is (-1: none) */
    int32_t *next_due;    /* per tensor: the next one due at the same node */
    int32_t *pending;     /* tensors due, not yet released */
    uint32_t n_pending;
    uint64_t pending_bytes;
} li_mem;

/* Give the pages wholly inside [p, p + n) of the mapped .onnx back (a hint: no error). */
static void drop_onnx_pages(const lg_onnx_model *om, const void *p, uint64_t n) {
#ifdef MADV_DONTNEED
    const lg_onnx_priv *op = om->priv;
    if (!op || !op->map_addr || !p || !n) return;
    uintptr_t lo = (uintptr_t)op->map_addr, hi = lo + op->map_len, a = (uintptr_t)p;
    if (a < lo || a > hi || n > hi - a) return; /* not in the model file's mapping */
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (!page || (page & (page - 1))) return;
    uintptr_t s = (a + page - 1) & ~(page - 1), e = (uintptr_t)(a + n) & ~(page - 1);
    if (e > s) madvise((void *)s, (size_t)(e - s), MADV_DONTNEED);
#else
    (void)om; (void)p; (void)n;
#endif
}

static void drop_onnx_file(const lg_onnx_model *om) {
    if (om->priv && om->priv->map_addr) drop_onnx_pages(om, om->priv->map_addr, om->priv->map_len);
}

static void mem_free(li_mem *mm) {
    free(mm->due);
    free(mm->next_due);
    free(mm->pending);
    memset(mm, 0, sizeof *mm);
}

/* Node i reads value name (directly, or in a graph attribute of node i): its constant is due
   no earlier than after node i. */
static void mem_use(li_ctx *c, uint32_t *last, uint32_t n_init, lg_onnx_str name, uint32_t i) {
    const li_val *v = name.n ? li_find(c, name) : NULL;
    if (v && v->t >= 0 && (uint32_t)v->t < n_init && (last[v->t] == UINT32_MAX - 1 || last[v->t] < i))
        last[v->t] = i;
}

static void mem_uses_graph(li_ctx *c, uint32_t *last, uint32_t n_init, const lg_onnx_graph *g,
                           uint32_t i, int depth) {
    for (uint32_t k = 0; k < g->n_nodes; k++) {
        const lg_onnx_node *n = &g->nodes[k];
        for (uint32_t j = 0; j < n->n_inputs; j++) mem_use(c, last, n_init, n->inputs[j], i);
        for (uint32_t a = 0; a < n->n_attrs && depth < 16; a++) {
            const lg_onnx_attr *at = &n->attrs[a];
            if (at->g) mem_uses_graph(c, last, n_init, at->g, i, depth + 1);
            for (uint32_t q = 0; q < at->n_graphs; q++) mem_uses_graph(c, last, n_init, &at->graphs[q], i, depth + 1);
        }
    }
    for (uint32_t k = 0; depth > 0 && k < g->n_outputs; k++) mem_use(c, last, n_init, g->outputs[k].name, i);
}

/* The node after which each initializer's constant is due. No memory: nothing is released
   during the lowering (compaction still does it after). */
static void mem_plan(li_ctx *c, li_mem *mm, uint32_t n_init) {
    const lg_onnx_graph *g = c->g;
    memset(mm, 0, sizeof *mm);
    uint32_t *last = malloc((size_t)(n_init ? n_init : 1) * sizeof *last);
    mm->due = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *mm->due);
    mm->next_due = malloc((size_t)(n_init ? n_init : 1) * sizeof *mm->next_due);
    mm->pending = malloc((size_t)(n_init ? n_init : 1) * sizeof *mm->pending);
    if (!last || !mm->due || !mm->next_due || !mm->pending) {
        free(last);
        mem_free(mm);
        return;
    }
    mm->n_init = n_init;
    for (uint32_t t = 0; t < n_init; t++) last[t] = UINT32_MAX - 1; /* not read by any node */
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const lg_onnx_node *n = &g->nodes[i];
        for (uint32_t j = 0; j < n->n_inputs; j++) mem_use(c, last, n_init, n->inputs[j], i);
        for (uint32_t a = 0; a < n->n_attrs; a++) {
            const lg_onnx_attr *at = &n->attrs[a];
            if (at->g) mem_uses_graph(c, last, n_init, at->g, i, 1);
            for (uint32_t q = 0; q < at->n_graphs; q++) mem_uses_graph(c, last, n_init, &at->graphs[q], i, 1);
        }
    }
    for (uint32_t k = 0; k < g->n_outputs; k++) { /* graph outputs stay */
        const li_val *v = li_find(c, g->outputs[k].name);
        if (v && v->t >= 0 && (uint32_t)v->t < n_init) last[v->t] = UINT32_MAX;
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) mm->due[i] = -1;
    for (uint32_t t = n_init; t-- > 0;) {
        mm->next_due[t] = -1;
        if (last[t] >= g->n_nodes) continue; /* never read, or an output: left to compaction */
        mm->next_due[t] = mm->due[last[t]];
        mm->due[last[t]] = (int32_t)t;
    }
    free(last);
}

/* Release the pending constants no op reads and no other value is bound to. */
static void mem_release(li_ctx *c, li_mem *mm) {
    lg_model *m = c->m;
    const lg_subgraph *sg = &m->subgraphs[0];
    uint8_t *keep = calloc(sg->n_tensors ? sg->n_tensors : 1, 1);
    uint8_t *per_buf = calloc(m->n_buffers ? m->n_buffers : 1, 1);
    if (!keep || !per_buf) {
        free(keep);
        free(per_buf);
        return;
    }
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        for (uint32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0) keep[op->inputs[k]] = 2;
        for (uint32_t k = 0; k < op->n_outputs; k++) keep[op->outputs[k]] = 2;
        for (uint32_t k = 0; k < op->n_intermediates; k++) keep[op->intermediates[k]] = 2;
    }
    for (uint32_t i = 0; i < c->cap_vals; i++) {
        int32_t t = c->vals[i].t;
        if (t >= 0 && (uint32_t)t < sg->n_tensors && keep[t] < 2) keep[t]++; /* 2: two values */
    }
    for (uint32_t s = 0; s < m->n_subgraphs; s++)
        for (uint32_t t = 0; t < m->subgraphs[s].n_tensors; t++) {
            uint32_t b = m->subgraphs[s].tensors[t].buffer;
            if (b < m->n_buffers && per_buf[b] < 2) per_buf[b]++;
        }
    for (uint32_t i = 0; i < m->n_metadata; i++)
        if (m->metadata[i].buffer < m->n_buffers) per_buf[m->metadata[i].buffer] = 2;
    for (uint32_t k = 0; k < mm->n_pending; k++) {
        lg_tensor *x = &m->subgraphs[0].tensors[mm->pending[k]];
        if (keep[mm->pending[k]] >= 2 || x->buffer == 0 || per_buf[x->buffer] != 1) continue;
        m->buffers[x->buffer].data = NULL; /* no data vector: compaction removes buffer and tensor */
        m->buffers[x->buffer].size = 0;
        x->buffer = 0;
    }
    free(keep);
    free(per_buf);
    mm->n_pending = 0;
    mm->pending_bytes = 0;
    drop_onnx_file(c->om); /* pages faulted in again since (names read next to weights) */
    size_t n = lgi_holds_gc_scratch(m);
    void *scratch = n ? lgi_model_malloc(m, n) : NULL;
    if (scratch) {
        lgi_holds_gc(m, scratch);
        lgi_model_mfree(m, scratch, n);
    }
}

/* After node i: its due constants join the pending ones; a full batch is released. */
static void mem_after_node(li_ctx *c, li_mem *mm, uint32_t i) {
    if (!mm->due) return;
    for (int32_t t = mm->due[i]; t >= 0; t = mm->next_due[t]) {
        const lg_buffer *b = lg_tensor_buffer(c->m, li_t(c, t));
        if (!b || b->size < LGI_BLOCK_MIN) continue;
        mm->pending[mm->n_pending++] = t;
        mm->pending_bytes += b->size;
    }
    if (mm->pending_bytes >= RELEASE_BATCH) mem_release(c, mm);
}

/* ------------------------------------------------------------------ nodes */

/* Lower node i (unless an earlier lowering took it in: BN into its conv, GELU). */
static lg_status lower_node(li_ctx *c, uint32_t i) {
    const lg_onnx_graph *g = c->g;
    if (c->skip[i]) return LG_OK;
    const lg_onnx_node *n = &g->nodes[i];
    c->node = n;
    c->node_index = i;
    c->lowering[0] = 0;
    c->n_emitted = c->n_folded = 0;
    bool fused = li_try_gelu(c, i);
    if (!fused && LI_OK(c)) {
        const li_op_entry *e = li_find_op(n->op_type.s, n->op_type.n, c->opset);
        if (!e) li_unsupported(c, "no lowering");
        else e->fn(c);
    }
    for (uint32_t k = 0; LI_OK(c) && !fused && k < n->n_outputs; k++)
        if (n->outputs[k].n && !li_find(c, n->outputs[k])) li_unsupported(c, "output %u is not produced", k);
    if (!LI_OK(c)) {
        report_set(c, i, false, c->err ? c->err->msg : "failed");
        return c->st;
    }
    char text[400];
    const char *what = c->n_emitted == 0 ? "(removed: a value passed through)"
                       : c->n_folded == c->n_emitted ? "(folded to a constant)" : c->lowering;
    if (c->n_emitted && c->n_folded == c->n_emitted && !c->lowering[0]) what = "(folded to a constant)";
    snprintf(text, sizeof text, "%.*s -> %s", LG_ONNX_STR(n->op_type), what);
    if (!c->rep || !c->rep->nodes[i].lowering) report_set(c, i, true, text);
    return LG_OK;
}

static lg_status lower_nodes(li_ctx *c, uint32_t n_init) {
    const lg_onnx_graph *g = c->g;
    li_mem mm;
    mem_plan(c, &mm, n_init);
    drop_onnx_file(c->om); /* the plan compared names stored next to the weights */
    lg_status st = LG_OK;
    for (uint32_t i = 0; i < g->n_nodes && st == LG_OK; i++) {
        st = lower_node(c, i);
        if (st == LG_OK) mem_after_node(c, &mm, i);
    }
    mem_free(&mm);
    drop_onnx_file(c->om);
    if (st == LG_OK) c->node = NULL;
    return st;
}

/* Step 1: every node's op type must have a lowering; all misses at once. */
static lg_status precheck(li_ctx *c) {
    const lg_onnx_graph *g = c->g;
    int32_t first = -1;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const lg_onnx_node *n = &g->nodes[i];
        bool ok = is_default_domain(n->domain) && li_find_op(n->op_type.s, n->op_type.n, c->opset);
        if (ok) continue;
        report_set(c, i, false, "not supported");
        if (first < 0) first = (int32_t)i;
    }
    if (first < 0) return LG_OK;
    c->node = &g->nodes[first];
    c->node_index = (uint32_t)first;
    lg_status st = li_unsupported(c, "%s", "");
    if (c->err && c->rep && c->rep->n_unsupported > 1) {
        char extra[64];
        snprintf(extra, sizeof extra, " (and %u more unsupported nodes)", c->rep->n_unsupported - 1);
        size_t l = strlen(c->err->msg);
        if (l >= 2 && c->err->msg[l - 2] == ':' && c->err->msg[l - 1] == ' ') c->err->msg[l -= 2] = 0;
        if (l + strlen(extra) < sizeof c->err->msg) strcat(c->err->msg, extra);
    } else if (c->err) {
        size_t l = strlen(c->err->msg);
        if (l >= 2 && c->err->msg[l - 2] == ':' && c->err->msg[l - 1] == ' ') c->err->msg[l - 2] = 0;
    }
    return st;
}

/* The initializers as constants; the pages of the .onnx they were copied from are given
   back as we go ("memory while lowering"). Their values are bound under copies of their
   names (*names, freed by the caller): the names are stored next to the weights in the
   file, and every look-up that compares one would fault the weights' pages in again (the
   kernel maps a whole large folio of the page cache, megabytes, on one touch). */
static lg_status add_initializers(li_ctx *c, char **names) {
    const lg_onnx_graph *g = c->g;
    drop_onnx_file(c->om); /* what the reader touched */
    size_t total = 1;
    for (uint32_t i = 0; i < g->n_initializers; i++) total += g->initializers[i].name.n;
    char *nb = *names = malloc(total); /* NULL: the names in the file are bound */
    for (uint32_t i = 0; i < g->n_initializers; i++) {
        const lg_onnx_tensor *t = &g->initializers[i];
        int32_t idx = -1, ot = 0;
        if (li_tensor_const(c, t, &idx, &ot) != LG_OK) {
            lgi_error_prefix(c->err, "initializer \"%.*s\": ", LG_ONNX_STR(t->name));
            return c->st;
        }
        lg_onnx_str name = t->name;
        if (nb && name.n) {
            memcpy(nb, name.s, name.n);
            name.s = nb;
            nb += name.n;
        }
        LG_TRY(li_bind(c, name, idx, ot));
        if (t->src == LG_ONNX_DATA_RAW) drop_onnx_pages(c->om, t->data, t->nbytes);
    }
    drop_onnx_file(c->om);
    return LG_OK;
}

static lg_status finish(li_ctx *c, lg_model **out) {
    lg_model *m = c->m, *opt_m = NULL;
    lg_status st = lg_model_compact(m, NULL, NULL, c->err);
    if (st != LG_OK) return st;
    if (!(c->opt && c->opt->no_optimize)) {
        lg_pass_run_options ro;
        memset(&ro, 0, sizeof ro);
        ro.prove = c->opt && c->opt->prove;
        ro.n_random = 1;
        lg_pass_report *pr = NULL;
        st = lg_optimize(m, &ro, &opt_m, &pr, c->err);
        lg_pass_report_free(pr);
        if (st != LG_OK) return st;
        lg_model_free(m);
        c->m = m = opt_m;
    }
    if (c->opt && c->opt->weights_fp16) {
        uint32_t n = 0;
        LG_TRY(weights_fp16(m, &n, c->err));
        if (n) li_note(c, "%u float weights stored as FLOAT16 + DEQUANTIZE", n);
    }
    LG_TRY(set_versions(m, c->err));
    LG_TRY(record_source(c, m));
    LG_TRY(lg_model_compact(m, NULL, NULL, c->err));
    LG_TRY(lg_model_validate(m, c->err));
    LG_TRY(lg_model_validate_ops(m, c->err));
    *out = m;
    c->m = NULL;
    return LG_OK;
}

lg_status lg_onnx_import(const lg_onnx_model *om, const lg_import_options *opt, lg_model **out,
                         lg_import_report **rep, lg_error *err) {
    if (out) *out = NULL;
    if (rep) *rep = NULL;
    if (!om || !om->graph || !out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_onnx_import: no model");
    li_ctx c;
    memset(&c, 0, sizeof c);
    c.om = om;
    c.g = om->graph;
    c.opt = opt;
    c.err = err;
    lgi_error_clear(err);
    c.opset = model_opset(om);
    if (c.opset < 1) return lgi_fail(err, LG_ERR_UNSUPPORTED, "the model imports no ai.onnx opset");
    if (c.opset > LG_ONNX_MAX_OPSET)
        return lgi_fail(err, LG_ERR_UNSUPPORTED, "ai.onnx opset %lld (1 to %d supported; torch exports 11 to 21)",
                        (long long)c.opset, LG_ONNX_MAX_OPSET);
    c.rep = report_new(c.g, c.opset);
    if (!c.rep) return lgi_fail(err, LG_ERR_NOMEM, "out of memory (report)");
    c.skip = calloc(c.g->n_nodes + 1, 1);
    int32_t *ins = malloc((c.g->n_inputs + 1) * sizeof *ins);
    int32_t *outs = malloc((c.g->n_outputs + 1) * sizeof *outs);
    lg_status st = LG_OK;
    uint32_t n_ins = 0;
    if (!c.skip || !ins || !outs) st = lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    if (st == LG_OK) st = precheck(&c);
    if (st == LG_OK) st = lg_model_new(NULL, NULL, &c.m, err);
    char *init_names = NULL;
    if (st == LG_OK) st = add_initializers(&c, &init_names);
    uint32_t n_init = c.m ? c.m->subgraphs[0].n_tensors : 0;
    if (st == LG_OK) st = add_inputs(&c, ins, &n_ins);
    if (st == LG_OK) st = lower_nodes(&c, n_init);
    if (st == LG_OK) st = add_outputs(&c, ins, n_ins, outs);
    if (st == LG_OK) st = lg_subgraph_set_io(c.m, 0, ins, n_ins, outs, c.g->n_outputs, err);
    if (st == LG_OK && c.n_int64_narrowed)
        li_note(&c, "%u INT64 constants stored as INT32%s", c.n_int64_narrowed,
                c.n_int64_clamped ? " (values past the int32 range clamped: Slice ends and the like)" : " (the values fit)");
    if (st == LG_OK) st = finish(&c, out);
    if (st == LG_OK && err) lgi_error_clear(err);
    if (st != LG_OK && err && err->status == LG_OK) err->status = st;
    lg_model_free(c.m);
    free(c.vals);
    free(init_names);
    free(c.skip);
    free(ins);
    free(outs);
    if (rep) *rep = c.rep;
    else lg_import_report_free(c.rep);
    return st;
}
