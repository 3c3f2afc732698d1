/* Building and editing models: the adders of lg.h, the sticky builder, and the deep copy of
   options structs. Everything is allocated from the model's arena, except buffer data of
   LGI_BLOCK_MIN bytes or more, which gets a block of its own (ir/store.c).

   Growable arrays: a subgraph's tensors and ops keep their capacity in cap_tensors_/cap_ops_,
   the model-level arrays in lgi_model_priv. Arrays made by the reader are exactly sized and
   carry no capacity, so a capacity below the count is read as "full" before growing. */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "ir/schema_gen.h"

/* Counts stay below INT32_MAX so that every index fits the IR's int32 index fields. */
#define MAX_COUNT ((uint32_t)INT32_MAX)

/* ------------------------------------------------------------------ helpers */

static lg_status arena_fail(const lg_model *m, lg_error *err, const char *what) {
    if (m->priv->arena.over_limit)
        return lgi_fail(err, LG_ERR_LIMIT, "model memory limit reached while %s", what);
    return lgi_fail(err, LG_ERR_NOMEM, "out of memory while %s", what);
}

static lg_status check_model(const lg_model *m, lg_error *err) {
    if (!m || !m->priv) return lgi_fail(err, LG_ERR_INVALID_ARG, "no model given");
    return LG_OK;
}

/* Make room for element n of an array of elem-byte elements. *out receives the (possibly
   moved) array. */
static lg_status grow_for(lg_model *m, void *arr, uint32_t n, uint32_t *cap, size_t elem,
                          void **out, const char *what, lg_error *err) {
    *out = arr;
    if (*cap < n || !arr) *cap = n;
    if (n < *cap) return LG_OK;
    if (n >= MAX_COUNT) return lgi_fail(err, LG_ERR_LIMIT, "too many %s (%u)", what, n);
    uint32_t nc = n < 4 ? 8 : (n > MAX_COUNT / 2 ? MAX_COUNT : n * 2);
    void *p = lgi_arena_grow(&m->priv->arena, arr, (size_t)n * elem, (size_t)nc * elem);
    if (!p) return arena_fail(m, err, "growing an array");
    *out = p;
    *cap = nc;
    return LG_OK;
}

#define GROW(m, arr, n, cap, what, err)                                                  \
    do {                                                                                 \
        void *g_;                                                                        \
        LG_TRY(grow_for((m), (arr), (n), &(cap), sizeof *(arr), &g_, (what), (err)));    \
        (arr) = g_;                                                                      \
    } while (0)

static void *dup_mem(lg_model *m, const void *p, uint64_t n) {
    if (n > SIZE_MAX - 16) return NULL;
    return lgi_arena_memdup(&m->priv->arena, p, (size_t)n);
}

/* A copy of buffer data: a block of its own from LGI_BLOCK_MIN bytes on (released by
   compaction once no buffer uses it, shared by clones: ir/store.c), the arena below. */
static const uint8_t *dup_data(lg_model *m, const void *p, uint64_t n) {
    if (n < LGI_BLOCK_MIN) return dup_mem(m, p, n);
    uint8_t *d = lgi_block_new(m, n);
    if (d) memcpy(d, p, (size_t)n);
    return d;
}

/* Copy of a name (NULL stays NULL); *ok is cleared on allocation failure. */
static const char *dup_str(lg_model *m, const char *s, int *ok) {
    if (!s) return NULL;
    char *d = lgi_arena_strdup(&m->priv->arena, s);
    if (!d) *ok = 0;
    return d;
}

static lg_status get_sg(lg_model *m, uint32_t sg, lg_subgraph **out, lg_error *err) {
    LG_TRY(check_model(m, err));
    if (sg >= m->n_subgraphs)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u of %u", sg, m->n_subgraphs);
    *out = &m->subgraphs[sg];
    if (err) err->subgraph = (int32_t)sg;
    return LG_OK;
}

/* where: "subgraph S op I (NAME)" or "subgraph S"; what: "input", "output", ... */
static lg_status check_tensor_ids(const lg_subgraph *sg, const char *where, const int32_t *ids,
                                  uint32_t n, int allow_optional, const char *what,
                                  lg_error *err) {
    if (n && !ids) return lgi_fail(err, LG_ERR_INVALID_ARG, "%s: %u %ss but no array", where, n,
                                   what);
    for (uint32_t i = 0; i < n; i++) {
        int32_t t = ids[i];
        if ((allow_optional && t == -1) || (t >= 0 && (uint32_t)t < sg->n_tensors)) continue;
        return lgi_fail(err, LG_ERR_INVALID_ARG, "%s: %s %u refers to tensor %d of %u", where,
                        what, i, t, sg->n_tensors);
    }
    return LG_OK;
}

static lg_status check_shape(uint32_t sgi, const char *name, const int32_t *shape,
                             uint32_t rank, lg_error *err) {
    if (rank && !shape)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u tensor \"%s\": rank %u but no shape",
                        sgi, name ? name : "", rank);
    for (uint32_t i = 0; i < rank; i++)
        if (shape[i] < 0)
            return lgi_fail(err, LG_ERR_INVALID_ARG,
                            "subgraph %u tensor \"%s\": dimension %u is %d (dynamic dimensions "
                            "go in the shape signature)", sgi, name ? name : "", i, shape[i]);
    return LG_OK;
}

static lg_status check_dtype(uint32_t sgi, const char *name, int type, lg_error *err) {
    if (type < 0 || type >= LG_DTYPE_COUNT)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u tensor \"%s\": unknown type %d",
                        sgi, name ? name : "", type);
    return LG_OK;
}

/* Element count of a shape, or -1 on overflow. */
static int64_t shape_numel(const int32_t *shape, uint32_t rank) {
    int64_t n = 1;
    for (uint32_t i = 0; i < rank; i++) {
        int64_t d = shape[i];
        if (d < 0) return -1;
        if (d != 0 && n > INT64_MAX / d) return -1;
        n *= d;
    }
    return n;
}

/* ------------------------------------------------------------------ options copy */

static void store_scalar(void *st, const lgi_field_desc *f, double v) {
    uint8_t *p = (uint8_t *)st + f->offset;
    switch ((lgi_field_kind)f->kind) {
    case LGI_F_BOOL: { bool x = v != 0; memcpy(p, &x, sizeof x); break; }
    case LGI_F_I8: { int8_t x = (int8_t)v; memcpy(p, &x, sizeof x); break; }
    case LGI_F_U8: { uint8_t x = (uint8_t)v; memcpy(p, &x, sizeof x); break; }
    case LGI_F_I16: { int16_t x = (int16_t)v; memcpy(p, &x, sizeof x); break; }
    case LGI_F_U16: { uint16_t x = (uint16_t)v; memcpy(p, &x, sizeof x); break; }
    case LGI_F_I32: { int32_t x = (int32_t)v; memcpy(p, &x, sizeof x); break; }
    case LGI_F_U32: { uint32_t x = (uint32_t)v; memcpy(p, &x, sizeof x); break; }
    case LGI_F_I64: { int64_t x = (int64_t)v; memcpy(p, &x, sizeof x); break; }
    case LGI_F_U64: { uint64_t x = (uint64_t)v; memcpy(p, &x, sizeof x); break; }
    case LGI_F_F32: { float x = (float)v; memcpy(p, &x, sizeof x); break; }
    case LGI_F_F64: memcpy(p, &v, sizeof v); break;
    default: break;
    }
}

/* Deep copy of an options struct. src == NULL gives a struct holding the schema defaults
   (dilation factors 1, ...), which a zeroed C struct does not. NULL on allocation failure
   or an unknown kind. */
void *lgi_opts_clone(lgi_arena *a, lg_opts_kind kind, const void *src) {
    const lgi_table_desc *t = lgi_opts_table(kind);
    if (!t) return NULL;
    uint8_t *d = lgi_arena_alloc(a, t->size ? t->size : 1);
    if (!d) return NULL;
    if (!src) {
        for (const lgi_field_desc *f = t->fields; f->name; f++)
            if (f->kind < LGI_F_STRING && f->def != 0) store_scalar(d, f, f->def);
        return d;
    }
    memcpy(d, src, t->size);
    for (const lgi_field_desc *f = t->fields; f->name; f++) {
        if (f->kind == LGI_F_STRING) {
            const char *s;
            memcpy(&s, d + f->offset, sizeof s);
            if (!s) continue;
            char *c = lgi_arena_strdup(a, s);
            if (!c) return NULL;
            memcpy(d + f->offset, &c, sizeof c);
        } else if (lgi_field_is_vec((lgi_field_kind)f->kind)) {
            lg_vec v;
            memcpy(&v, d + f->offset, sizeof v);
            if (!v.data) continue;
            size_t es = lgi_field_elem_size((lgi_field_kind)f->kind);
            if ((size_t)v.n > (SIZE_MAX - 16) / es) return NULL;
            void *c = lgi_arena_memdup(a, v.data, (size_t)v.n * es);
            if (!c) return NULL;
            v.data = c;
            memcpy(d + f->offset, &v, sizeof v);
        }
    }
    return d;
}

/* ------------------------------------------------------------------ model and subgraphs */

lg_status lg_model_add_subgraph(lg_model *m, const char *name, uint32_t *out_index,
                                lg_error *err) {
    lgi_error_clear(err);
    LG_TRY(check_model(m, err));
    lgi_model_priv *p = m->priv;
    GROW(m, m->subgraphs, m->n_subgraphs, p->cap_subgraphs, "subgraphs", err);
    lg_subgraph s;
    memset(&s, 0, sizeof s);
    int ok = 1;
    s.name = dup_str(m, name, &ok);
    /* present-but-empty vectors: a runtime wants tensors/operators/inputs/outputs */
    s.tensors = lgi_arena_alloc(&p->arena, 4 * sizeof(lg_tensor));
    s.ops = lgi_arena_alloc(&p->arena, 4 * sizeof(lg_op));
    if (!ok || !s.tensors || !s.ops) return arena_fail(m, err, "adding a subgraph");
    s.cap_tensors_ = s.cap_ops_ = 4;
    s.inputs = s.outputs = lgi_empty_vec;
    s.debug_metadata_index = -1; /* the schema default */
    m->subgraphs[m->n_subgraphs] = s;
    if (out_index) *out_index = m->n_subgraphs;
    m->n_subgraphs++;
    return LG_OK;
}

lg_status lg_model_new(lg_alloc_fn alloc, void *alloc_ud, lg_model **out, lg_error *err) {
    lgi_error_clear(err);
    if (!out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_model_new: no output pointer");
    *out = NULL;
    lg_model *m;
    LG_TRY(lgi_model_alloc(alloc, alloc_ud, 0, &m, err));
    lgi_model_priv *p = m->priv;
    m->version = 3;
    m->opcodes = lgi_arena_alloc(&p->arena, 8 * sizeof(lg_opcode));
    m->buffers = lgi_arena_alloc(&p->arena, 8 * sizeof(lg_buffer));
    m->subgraphs = lgi_arena_alloc(&p->arena, 4 * sizeof(lg_subgraph));
    if (!m->opcodes || !m->buffers || !m->subgraphs) {
        lg_model_free(m);
        return lgi_fail(err, LG_ERR_NOMEM, "out of memory allocating a model");
    }
    p->cap_opcodes = p->cap_buffers = 8;
    p->cap_subgraphs = 4;
    m->n_buffers = 1; /* buffer 0: the empty sentinel, no data vector */
    lg_status st = lg_model_add_subgraph(m, "main", NULL, err);
    if (st != LG_OK) {
        lg_model_free(m);
        return st;
    }
    *out = m;
    return LG_OK;
}

static lg_status add_buffer(lg_model *m, const void *data, uint64_t size, uint32_t *out_index,
                            lg_error *err) {
    if (!data && size)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "buffer of %llu bytes without data",
                        (unsigned long long)size);
    GROW(m, m->buffers, m->n_buffers, m->priv->cap_buffers, "buffers", err);
    lg_buffer b;
    memset(&b, 0, sizeof b);
    if (data) {
        b.data = dup_data(m, data, size);
        if (!b.data) return arena_fail(m, err, "copying buffer data");
        b.size = size;
    }
    m->buffers[m->n_buffers] = b;
    if (out_index) *out_index = m->n_buffers;
    m->n_buffers++;
    return LG_OK;
}

lg_status lg_model_add_buffer(lg_model *m, const void *data, uint64_t size, uint32_t *out_index,
                              lg_error *err) {
    lgi_error_clear(err);
    LG_TRY(check_model(m, err));
    return add_buffer(m, data, size, out_index, err);
}

lg_status lg_buffer_set_data(lg_model *m, uint32_t buffer, const void *data, uint64_t size,
                             lg_error *err) {
    lgi_error_clear(err);
    LG_TRY(check_model(m, err));
    if (buffer >= m->n_buffers)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "buffer %u of %u", buffer, m->n_buffers);
    if (buffer == 0)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "buffer 0 is the empty sentinel and holds no data");
    if (!data && size)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "buffer %u: %llu bytes without data", buffer,
                        (unsigned long long)size);
    const uint8_t *d = NULL;
    if (data) {
        d = dup_data(m, data, size);
        if (!d) return arena_fail(m, err, "copying buffer data");
    }
    m->buffers[buffer].data = d;
    m->buffers[buffer].size = data ? size : 0;
    return LG_OK;
}

static int same_str(const char *a, const char *b) {
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

lg_status lg_model_opcode(lg_model *m, int32_t builtin, const char *custom_code, int32_t version,
                          uint32_t *out_index, lg_error *err) {
    lgi_error_clear(err);
    LG_TRY(check_model(m, err));
    if (!lg_builtin_name(builtin))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "unknown builtin operator code %d", builtin);
    if (builtin == LG_OP_CUSTOM && (!custom_code || !custom_code[0]))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "a CUSTOM operator needs a custom code");
    if (version <= 0) version = 1;
    for (uint32_t i = 0; i < m->n_opcodes; i++) {
        const lg_opcode *oc = &m->opcodes[i];
        if (oc->builtin == builtin && oc->version == version && same_str(oc->custom_code, custom_code)) {
            if (out_index) *out_index = i;
            return LG_OK;
        }
    }
    GROW(m, m->opcodes, m->n_opcodes, m->priv->cap_opcodes, "operator codes", err);
    lg_opcode oc;
    memset(&oc, 0, sizeof oc);
    int ok = 1;
    oc.builtin = builtin;
    oc.builtin_code = builtin;
    oc.deprecated_builtin_code = (int8_t)(builtin < LG_OP_PLACEHOLDER_FOR_GREATER_OP_CODES
                                              ? builtin : LG_OP_PLACEHOLDER_FOR_GREATER_OP_CODES);
    oc.custom_code = dup_str(m, custom_code, &ok);
    oc.version = version;
    if (!ok) return arena_fail(m, err, "adding an operator code");
    m->opcodes[m->n_opcodes] = oc;
    if (out_index) *out_index = m->n_opcodes;
    m->n_opcodes++;
    return LG_OK;
}

/* ------------------------------------------------------------------ tensors */

static lg_status append_tensor(lg_model *m, lg_subgraph *s, const char *name, lg_dtype type,
                               const int32_t *shape, uint32_t rank, uint32_t buffer,
                               int32_t *out_index, lg_error *err) {
    GROW(m, s->tensors, s->n_tensors, s->cap_tensors_, "tensors", err);
    lg_tensor t;
    memset(&t, 0, sizeof t);
    int ok = 1;
    t.name = dup_str(m, name, &ok);
    t.type = (int8_t)type;
    t.shape = rank ? dup_mem(m, shape, (uint64_t)rank * sizeof(int32_t)) : lgi_empty_vec;
    if (!ok || !t.shape) return arena_fail(m, err, "adding a tensor");
    t.rank = rank;
    t.buffer = buffer;
    t.has_rank = true; /* the rank is known, also for scalars */
    s->tensors[s->n_tensors] = t;
    if (out_index) *out_index = (int32_t)s->n_tensors;
    s->n_tensors++;
    return LG_OK;
}

lg_status lg_subgraph_add_tensor(lg_model *m, uint32_t sg, const char *name, lg_dtype type,
                                 const int32_t *shape, uint32_t rank, int32_t *out_index,
                                 lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_sg(m, sg, &s, err));
    LG_TRY(check_dtype(sg, name, (int)type, err));
    LG_TRY(check_shape(sg, name, shape, rank, err));
    return append_tensor(m, s, name, type, shape, rank, 0, out_index, err);
}

lg_status lg_subgraph_add_const(lg_model *m, uint32_t sg, const char *name, lg_dtype type,
                                const int32_t *shape, uint32_t rank, const void *data,
                                uint64_t nbytes, int32_t *out_index, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_sg(m, sg, &s, err));
    LG_TRY(check_dtype(sg, name, (int)type, err));
    LG_TRY(check_shape(sg, name, shape, rank, err));
    const char *nm = name ? name : "";
    int bits = lg_dtype_bits((int)type);
    if (bits > 0) {
        int64_t numel = shape_numel(shape, rank);
        if (numel < 0 || (uint64_t)numel > (UINT64_MAX - 7) / (uint64_t)bits)
            return lgi_fail(err, LG_ERR_INVALID_ARG,
                            "subgraph %u constant \"%s\": too many elements", sg, nm);
        uint64_t want = ((uint64_t)numel * (uint64_t)bits + 7) / 8;
        if (nbytes != want)
            return lgi_fail(err, LG_ERR_INVALID_ARG,
                            "subgraph %u constant \"%s\": %llu bytes of data, the shape needs %llu "
                            "(%lld x %s)", sg, nm, (unsigned long long)nbytes,
                            (unsigned long long)want, (long long)numel, lg_dtype_name((int)type));
    }
    if (!data && nbytes)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u constant \"%s\": no data", sg, nm);
    if (s->n_tensors >= MAX_COUNT)
        return lgi_fail(err, LG_ERR_LIMIT, "subgraph %u: too many tensors", sg);
    uint32_t buf;
    static const uint8_t none[1];
    LG_TRY(add_buffer(m, data ? data : none, nbytes, &buf, err));
    return append_tensor(m, s, name, type, shape, rank, buf, out_index, err);
}

lg_status lg_tensor_set_shape_signature(lg_model *m, uint32_t sg, uint32_t tensor,
                                        const int32_t *sig, uint32_t n, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_sg(m, sg, &s, err));
    if (tensor >= s->n_tensors)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u: tensor %u of %u", sg, tensor,
                        s->n_tensors);
    if (err) err->tensor = (int32_t)tensor;
    lg_tensor *t = &s->tensors[tensor];
    if (!sig && n == 0) {
        t->shape_signature = NULL;
        t->n_shape_signature = 0;
        return LG_OK;
    }
    if (!sig || n != t->rank)
        return lgi_fail(err, LG_ERR_INVALID_ARG,
                        "subgraph %u tensor %u (\"%s\"): shape signature of %u dimensions for "
                        "rank %u", sg, tensor, t->name ? t->name : "", n, t->rank);
    for (uint32_t i = 0; i < n; i++)
        if (sig[i] < -1)
            return lgi_fail(err, LG_ERR_INVALID_ARG,
                            "subgraph %u tensor %u (\"%s\"): shape signature dimension %u is %d",
                            sg, tensor, t->name ? t->name : "", i, sig[i]);
    const int32_t *c = n ? dup_mem(m, sig, (uint64_t)n * sizeof(int32_t)) : lgi_empty_vec;
    if (!c) return arena_fail(m, err, "setting a shape signature");
    t->shape_signature = c;
    t->n_shape_signature = n;
    return LG_OK;
}

lg_status lg_tensor_set_quant(lg_model *m, uint32_t sg, uint32_t tensor, const float *scale,
                              const int64_t *zero_point, uint32_t n, int32_t quantized_dimension,
                              lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_sg(m, sg, &s, err));
    if (tensor >= s->n_tensors)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u: tensor %u of %u", sg, tensor,
                        s->n_tensors);
    if (err) err->tensor = (int32_t)tensor;
    lg_tensor *t = &s->tensors[tensor];
    const char *nm = t->name ? t->name : "";
    if (n == 0 || !scale)
        return lgi_fail(err, LG_ERR_INVALID_ARG,
                        "subgraph %u tensor %u (\"%s\"): quantization needs at least one scale",
                        sg, tensor, nm);
    if (quantized_dimension < 0 || (n > 1 && (uint32_t)quantized_dimension >= t->rank))
        return lgi_fail(err, LG_ERR_INVALID_ARG,
                        "subgraph %u tensor %u (\"%s\"): quantized dimension %d for rank %u", sg,
                        tensor, nm, quantized_dimension, t->rank);
    if (n > 1 && (uint32_t)t->shape[quantized_dimension] != n)
        return lgi_fail(err, LG_ERR_INVALID_ARG,
                        "subgraph %u tensor %u (\"%s\"): %u scales for dimension %d of size %d",
                        sg, tensor, nm, n, quantized_dimension, t->shape[quantized_dimension]);
    lgi_arena *a = &m->priv->arena;
    lg_quant *q = lgi_arena_alloc(a, sizeof *q);
    float *sc = q ? lgi_arena_memdup(a, scale, (size_t)n * sizeof(float)) : NULL;
    int64_t *zp = sc ? lgi_arena_alloc(a, (size_t)n * sizeof(int64_t)) : NULL; /* zeroed */
    if (!zp) return arena_fail(m, err, "setting quantization");
    if (zero_point) memcpy(zp, zero_point, (size_t)n * sizeof(int64_t));
    q->scale = sc;
    q->n_scale = n;
    q->zero_point = zp;
    q->n_zero_point = n;
    q->quantized_dimension = quantized_dimension;
    t->quant = q;
    return LG_OK;
}

/* ------------------------------------------------------------------ ops */

lg_status lg_subgraph_add_op(lg_model *m, uint32_t sg, int32_t builtin, const char *custom_code,
                             int32_t version, const int32_t *inputs, uint32_t n_inputs,
                             const int32_t *outputs, uint32_t n_outputs, lg_opts_kind opts_kind,
                             const void *opts, int32_t *out_index, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_sg(m, sg, &s, err));
    const char *opname = lg_builtin_name(builtin);
    if (!opname)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u: unknown builtin operator code %d",
                        sg, builtin);
    if (builtin == LG_OP_CUSTOM && custom_code) opname = custom_code;
    if (err) err->op = (int32_t)s->n_ops;
    char where[160];
    snprintf(where, sizeof where, "subgraph %u op %u (%.100s)", sg, s->n_ops, opname);
    LG_TRY(check_tensor_ids(s, where, inputs, n_inputs, 1, "input", err));
    LG_TRY(check_tensor_ids(s, where, outputs, n_outputs, 0, "output", err));
    if (opts_kind != LG_OPTS_NONE &&
        (!lgi_opts_table(opts_kind) || (int)opts_kind >= LG_QDETAILS_CUSTOM_QUANTIZATION))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "%s: unknown options kind %d", where,
                        (int)opts_kind);
    if (opts_kind == LG_OPTS_NONE && opts)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "%s: options given without an options kind",
                        where);
    if (s->n_ops >= MAX_COUNT) return lgi_fail(err, LG_ERR_LIMIT, "subgraph %u: too many ops", sg);
    uint32_t oc;
    LG_TRY(lg_model_opcode(m, builtin, custom_code, version, &oc, err));
    if (err) { err->subgraph = (int32_t)sg; err->op = (int32_t)s->n_ops; }
    GROW(m, s->ops, s->n_ops, s->cap_ops_, "ops", err);
    lg_op op;
    memset(&op, 0, sizeof op);
    lgi_arena *a = &m->priv->arena;
    op.opcode_index = oc;
    op.inputs = lgi_arena_memdup(a, inputs, (size_t)n_inputs * sizeof(int32_t));
    op.n_inputs = n_inputs;
    op.outputs = lgi_arena_memdup(a, outputs, (size_t)n_outputs * sizeof(int32_t));
    op.n_outputs = n_outputs;
    op.opts_kind = opts_kind;
    if (opts_kind != LG_OPTS_NONE) {
        op.opts = lgi_opts_clone(a, opts_kind, opts);
        if (!op.opts) return arena_fail(m, err, "copying operator options");
    }
    if (!op.inputs || !op.outputs) return arena_fail(m, err, "adding an op");
    op.debug_metadata_index = -1; /* the schema default */
    s->ops[s->n_ops] = op;
    if (out_index) *out_index = (int32_t)s->n_ops;
    s->n_ops++;
    if (err) err->op = -1;
    return LG_OK;
}

lg_status lg_op_set_custom_options(lg_model *m, uint32_t sg, uint32_t op, const void *data,
                                   uint32_t size, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_sg(m, sg, &s, err));
    if (op >= s->n_ops)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u: op %u of %u", sg, op, s->n_ops);
    if (err) err->op = (int32_t)op;
    if (!data && size)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u op %u: %u custom option bytes "
                        "without data", sg, op, size);
    lg_op *o = &s->ops[op];
    const uint8_t *d = NULL;
    if (data) {
        d = dup_mem(m, data, size);
        if (!d) return arena_fail(m, err, "copying custom options");
    }
    o->custom_options = d;
    o->n_custom_options = data ? size : 0;
    o->custom_options_format = LG_CUSTOM_OPTIONS_FORMAT_FLEXBUFFERS;
    o->custom_options_large = false;
    return LG_OK;
}

lg_status lg_subgraph_set_io(lg_model *m, uint32_t sg, const int32_t *inputs, uint32_t n_inputs,
                             const int32_t *outputs, uint32_t n_outputs, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_sg(m, sg, &s, err));
    char where[32];
    snprintf(where, sizeof where, "subgraph %u", sg);
    LG_TRY(check_tensor_ids(s, where, inputs, n_inputs, 0, "input", err));
    LG_TRY(check_tensor_ids(s, where, outputs, n_outputs, 0, "output", err));
    lgi_arena *a = &m->priv->arena;
    const int32_t *in = lgi_arena_memdup(a, inputs, (size_t)n_inputs * sizeof(int32_t));
    const int32_t *out = lgi_arena_memdup(a, outputs, (size_t)n_outputs * sizeof(int32_t));
    if (!in || !out) return arena_fail(m, err, "setting subgraph inputs and outputs");
    s->inputs = in;
    s->n_inputs = n_inputs;
    s->outputs = out;
    s->n_outputs = n_outputs;
    return LG_OK;
}

/* ------------------------------------------------------------------ model-level data */

lg_status lg_model_set_description(lg_model *m, const char *description, lg_error *err) {
    lgi_error_clear(err);
    LG_TRY(check_model(m, err));
    int ok = 1;
    const char *d = dup_str(m, description, &ok);
    if (!ok) return arena_fail(m, err, "setting the description");
    m->description = d;
    return LG_OK;
}

lg_status lg_model_add_metadata(lg_model *m, const char *name, const void *data, uint64_t size,
                                lg_error *err) {
    lgi_error_clear(err);
    LG_TRY(check_model(m, err));
    if (!name) return lgi_fail(err, LG_ERR_INVALID_ARG, "metadata needs a name");
    if (!data && size)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "metadata \"%s\": %llu bytes without data", name,
                        (unsigned long long)size);
    if (m->n_metadata >= MAX_COUNT) return lgi_fail(err, LG_ERR_LIMIT, "too many metadata");
    int ok = 1;
    const char *nm = dup_str(m, name, &ok);
    if (!ok) return arena_fail(m, err, "adding metadata");
    GROW(m, m->metadata, m->n_metadata, m->priv->cap_metadata, "metadata", err);
    static const uint8_t none[1];
    uint32_t buf;
    LG_TRY(add_buffer(m, data ? data : none, size, &buf, err));
    m->metadata[m->n_metadata].name = nm;
    m->metadata[m->n_metadata].buffer = buf;
    m->metadata[m->n_metadata].fb_present = 0;
    m->n_metadata++;
    return LG_OK;
}

static lg_status make_maps(lg_model *m, const lg_subgraph *s, const char *key, const char *what,
                           const char *const *names, const uint32_t *tensors, uint32_t n,
                           lg_tensor_map **out, lg_error *err) {
    if (n && (!names || !tensors))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "signature \"%s\": %u %ss without names or tensors",
                        key, n, what);
    for (uint32_t i = 0; i < n; i++) {
        if (!names[i])
            return lgi_fail(err, LG_ERR_INVALID_ARG, "signature \"%s\": %s %u has no name", key,
                            what, i);
        if (tensors[i] >= s->n_tensors)
            return lgi_fail(err, LG_ERR_INVALID_ARG,
                            "signature \"%s\": %s %u (\"%s\") refers to tensor %u of %u", key, what,
                            i, names[i], tensors[i], s->n_tensors);
    }
    lg_tensor_map *v = lgi_arena_alloc(&m->priv->arena, (size_t)(n ? n : 1) * sizeof *v);
    if (!v) return arena_fail(m, err, "adding a signature");
    for (uint32_t i = 0; i < n; i++) {
        int ok = 1;
        v[i].name = dup_str(m, names[i], &ok);
        if (!ok) return arena_fail(m, err, "adding a signature");
        v[i].tensor_index = tensors[i];
    }
    *out = v;
    return LG_OK;
}

lg_status lg_model_add_signature(lg_model *m, const char *key, uint32_t sg,
                                 const char *const *input_names, const uint32_t *input_tensors,
                                 uint32_t n_inputs, const char *const *output_names,
                                 const uint32_t *output_tensors, uint32_t n_outputs,
                                 lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_sg(m, sg, &s, err));
    if (!key) return lgi_fail(err, LG_ERR_INVALID_ARG, "a signature needs a key");
    if (m->n_signatures >= MAX_COUNT) return lgi_fail(err, LG_ERR_LIMIT, "too many signatures");
    lg_signature sig;
    memset(&sig, 0, sizeof sig);
    LG_TRY(make_maps(m, s, key, "input", input_names, input_tensors, n_inputs, &sig.inputs, err));
    LG_TRY(make_maps(m, s, key, "output", output_names, output_tensors, n_outputs, &sig.outputs,
                     err));
    int ok = 1;
    sig.key = dup_str(m, key, &ok);
    if (!ok) return arena_fail(m, err, "adding a signature");
    sig.n_inputs = n_inputs;
    sig.n_outputs = n_outputs;
    sig.subgraph_index = sg;
    GROW(m, m->signatures, m->n_signatures, m->priv->cap_signatures, "signatures", err);
    m->signatures[m->n_signatures++] = sig;
    return LG_OK;
}

/* ------------------------------------------------------------------ sticky builder */

void lg_builder_init(lg_builder *b, lg_model *m, uint32_t sg) {
    if (!b) return;
    memset(b, 0, sizeof *b);
    b->m = m;
    b->sg = sg;
    lgi_error_clear(&b->err);
    b->status = LG_OK;
    if (!m || !m->priv) b->status = lgi_fail(&b->err, LG_ERR_INVALID_ARG, "builder: no model");
    else if (sg >= m->n_subgraphs) {
        b->status = lgi_fail(&b->err, LG_ERR_INVALID_ARG, "builder: subgraph %u of %u", sg,
                             m->n_subgraphs);
    }
}

/* Record the first error; later calls see b->status != LG_OK and do nothing. */
static int32_t b_done(lg_builder *b, lg_status st, const lg_error *e, int32_t index) {
    if (st == LG_OK) return index;
    b->status = st;
    b->err = *e;
    b->err.status = st;
    return -1;
}

static int b_dead(const lg_builder *b) { return !b || b->status != LG_OK; }

int32_t lg_b_tensor(lg_builder *b, const char *name, lg_dtype type, lg_dims shape) {
    if (b_dead(b)) return -1;
    lg_error e;
    int32_t idx = -1;
    lg_status st = lg_subgraph_add_tensor(b->m, b->sg, name, type, shape.v, shape.n, &idx, &e);
    return b_done(b, st, &e, idx);
}

int32_t lg_b_const(lg_builder *b, const char *name, lg_dtype type, lg_dims shape,
                   const void *data, uint64_t nbytes) {
    if (b_dead(b)) return -1;
    lg_error e;
    int32_t idx = -1;
    lg_status st = lg_subgraph_add_const(b->m, b->sg, name, type, shape.v, shape.n, data, nbytes,
                                         &idx, &e);
    return b_done(b, st, &e, idx);
}

static int32_t b_const_4(lg_builder *b, const char *name, lg_dtype type, lg_dims shape,
                         const void *data) {
    if (b_dead(b)) return -1;
    int64_t n = (shape.n && !shape.v) ? -1 : shape_numel(shape.v, shape.n);
    if (n < 0 || (uint64_t)n > UINT64_MAX / 4) {
        lg_error e;
        lgi_error_clear(&e);
        lg_status st = lgi_fail(&e, LG_ERR_INVALID_ARG, "subgraph %u constant \"%s\": bad shape",
                                b->sg, name ? name : "");
        return b_done(b, st, &e, -1);
    }
    return lg_b_const(b, name, type, shape, data, (uint64_t)n * 4);
}

int32_t lg_b_const_f32(lg_builder *b, const char *name, lg_dims shape, const float *data) {
    return b_const_4(b, name, LG_FLOAT32, shape, data);
}

int32_t lg_b_const_i32(lg_builder *b, const char *name, lg_dims shape, const int32_t *data) {
    return b_const_4(b, name, LG_INT32, shape, data);
}

int32_t lg_b_op_v(lg_builder *b, int32_t builtin, int32_t version, lg_dims inputs,
                  lg_dims outputs, lg_opts_kind kind, const void *opts) {
    if (b_dead(b)) return -1;
    lg_error e;
    int32_t idx = -1;
    lg_status st = lg_subgraph_add_op(b->m, b->sg, builtin, NULL, version, inputs.v, inputs.n,
                                      outputs.v, outputs.n, kind, opts, &idx, &e);
    return b_done(b, st, &e, idx);
}

int32_t lg_b_op(lg_builder *b, int32_t builtin, lg_dims inputs, lg_dims outputs) {
    return lg_b_op_v(b, builtin, 1, inputs, outputs, LG_OPTS_NONE, NULL);
}

int32_t lg_b_op_opts(lg_builder *b, int32_t builtin, lg_dims inputs, lg_dims outputs,
                     lg_opts_kind kind, const void *opts) {
    return lg_b_op_v(b, builtin, 1, inputs, outputs, kind, opts);
}

int32_t lg_b_custom(lg_builder *b, const char *custom_code, lg_dims inputs, lg_dims outputs,
                    const void *custom_options, uint32_t size) {
    if (b_dead(b)) return -1;
    lg_error e;
    int32_t idx = -1;
    lg_status st = lg_subgraph_add_op(b->m, b->sg, LG_OP_CUSTOM, custom_code, 1, inputs.v,
                                      inputs.n, outputs.v, outputs.n, LG_OPTS_NONE, NULL, &idx, &e);
    if (st == LG_OK && (custom_options || size))
        st = lg_op_set_custom_options(b->m, b->sg, (uint32_t)idx, custom_options, size, &e);
    return b_done(b, st, &e, idx);
}

void lg_b_io(lg_builder *b, lg_dims inputs, lg_dims outputs) {
    if (b_dead(b)) return;
    lg_error e;
    lg_status st = lg_subgraph_set_io(b->m, b->sg, inputs.v, inputs.n, outputs.v, outputs.n, &e);
    b_done(b, st, &e, 0);
}
