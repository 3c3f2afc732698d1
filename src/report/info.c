/* lg_info: the model summary behind `litegpu info` (file identity, subgraph I/O, op census,
   weights, signatures, metadata). Builds data only; the CLI prints it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "lg/info.h"
#include "lg/util.h"

/* The result and the arena its contents come from, released together. */
typedef struct info_holder {
    lg_info info;         /* first, so an lg_info * is the holder's address */
    lgi_arena arena;
    lg_alloc_fn alloc;
    void *ud;
} info_holder;

typedef struct build {
    lgi_arena *a;         /* result memory */
    lgi_arena tmp;        /* scratch, released at the end */
} build;

static const char *dup_str(build *b, const char *s, int *nomem) {
    char *d = lgi_arena_strdup(b->a, s ? s : "");
    if (!d) *nomem = 1;
    return d;
}

static void *dup_mem(build *b, const void *p, size_t n, int *nomem) {
    if (!p) return NULL;
    void *d = lgi_arena_memdup(b->a, p, n);
    if (!d) *nomem = 1;
    return d;
}

static void *alloc_array(lgi_arena *a, size_t n, size_t elem, int *nomem) {
    if (n == 0) return NULL;
    if (n > SIZE_MAX / elem) { *nomem = 1; return NULL; }
    void *p = lgi_arena_alloc(a, n * elem);
    if (!p) *nomem = 1;
    return p;
}

/* ---------------------------------------------------------------- op census */

static int cmp_count_name(const void *x, const void *y) {
    const lg_info_count *a = x, *b = y;
    return strcmp(a->name, b->name);
}

static int cmp_count_desc(const void *x, const void *y) {
    const lg_info_count *a = x, *b = y;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* Merge entries with equal names (the opcode table may list one operator several times,
   e.g. at different versions), then order by count descending, name ascending. */
static uint32_t census_finish(lg_info_count *c, uint32_t n) {
    if (n == 0) return 0;
    qsort(c, n, sizeof *c, cmp_count_name);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (k > 0 && strcmp(c[k - 1].name, c[i].name) == 0) {
            c[k - 1].count += c[i].count;
        } else {
            c[k++] = c[i];
        }
    }
    qsort(c, k, sizeof *c, cmp_count_desc);
    return k;
}

static void census(build *b, const lg_model *m, const lg_subgraph *sg, lg_info_subgraph *out,
                   uint32_t *per_opcode, int *nomem) {
    /* per_opcode has n_opcodes + 1 slots; the last counts ops whose opcode index is bad. */
    size_t n_slots = (size_t)m->n_opcodes + 1;
    memset(per_opcode, 0, n_slots * sizeof *per_opcode);
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        uint32_t oi = sg->ops[i].opcode_index;
        per_opcode[oi < m->n_opcodes ? oi : m->n_opcodes]++;
    }
    uint32_t n_used = 0, n_custom = 0;
    for (size_t i = 0; i < n_slots; i++) {
        if (!per_opcode[i]) continue;
        n_used++;
        if (i < m->n_opcodes && m->opcodes[i].builtin == LG_OP_CUSTOM) n_custom++;
    }
    out->ops = alloc_array(b->a, n_used, sizeof *out->ops, nomem);
    out->custom_ops = alloc_array(b->a, n_custom, sizeof *out->custom_ops, nomem);
    if (*nomem) return;
    uint32_t k = 0, kc = 0;
    for (size_t i = 0; i < n_slots; i++) {
        if (!per_opcode[i]) continue;
        lg_info_count *e = &out->ops[k++];
        e->count = per_opcode[i];
        if (i == m->n_opcodes) {
            e->name = "?";
            e->builtin = -1;
            continue;
        }
        const lg_opcode *oc = &m->opcodes[i];
        const char *name = lg_builtin_name(oc->builtin);
        e->builtin = name ? oc->builtin : -1;
        if (name) {
            e->name = name; /* static string table */
        } else {
            char tmp[32];
            snprintf(tmp, sizeof tmp, "UNKNOWN(%ld)", (long)oc->builtin);
            e->name = dup_str(b, tmp, nomem);
        }
        if (oc->builtin == LG_OP_CUSTOM) {
            lg_info_count *c = &out->custom_ops[kc++];
            c->name = dup_str(b, oc->custom_code, nomem);
            c->builtin = LG_OP_CUSTOM;
            c->count = per_opcode[i];
        }
        if (*nomem) return;
    }
    out->n_ops_census = census_finish(out->ops, k);
    out->n_custom_ops = census_finish(out->custom_ops, kc);
}

/* ---------------------------------------------------------------- subgraph inputs/outputs */

static void io_fill(build *b, const lg_subgraph *sg, const int32_t *ids, uint32_t n,
                    lg_info_io **out, uint32_t *n_out, int *nomem) {
    lg_info_io *v = alloc_array(b->a, n, sizeof *v, nomem);
    if (*nomem) return;
    for (uint32_t i = 0; i < n; i++) {
        lg_info_io *io = &v[i];
        io->index = i;
        int32_t ti = ids[i];
        if (ti < 0 || (uint32_t)ti >= sg->n_tensors) {
            io->tensor = -1;
            io->name = "";
            continue;
        }
        const lg_tensor *t = &sg->tensors[ti];
        io->tensor = ti;
        io->name = dup_str(b, t->name, nomem);
        io->dtype = t->type;
        io->rank = t->rank;
        io->shape = dup_mem(b, t->shape, (size_t)t->rank * sizeof(int32_t), nomem);
        io->n_shape_signature = t->n_shape_signature;
        io->shape_signature = dup_mem(b, t->shape_signature,
                                      (size_t)t->n_shape_signature * sizeof(int32_t), nomem);
        if (t->shape_signature) {
            for (uint32_t d = 0; d < t->n_shape_signature; d++)
                io->n_dynamic += t->shape_signature[d] < 0;
        } else {
            for (uint32_t d = 0; d < t->rank; d++) io->n_dynamic += t->shape[d] < 0;
        }
        if (*nomem) return;
    }
    *out = v;
    *n_out = n;
}

/* ---------------------------------------------------------------- weights */

/* Rule: a constant is a tensor whose buffer holds bytes. A buffer shared by several tensors
   is counted once (bytes and params), under the first tensor that refers to it. We chose
   this because the bytes are stored once in the file, so counting per tensor would
   over-state both the file's weight bytes and the model's parameters (deduplicated
   weights, e.g. tied embeddings, are one set of parameters). Buffers no tensor refers to
   (metadata, unused) are not weights. Sparse constants count their stored bytes and the
   elements of their dense shape, and are also counted apart (sparse_bytes, sparse_params)
   so that bytes and params can be told apart. */
static void weights(build *b, const lg_model *m, lg_info_weights *w, int *nomem) {
    uint8_t *claimed = alloc_array(&b->tmp, m->n_buffers, 1, nomem);
    uint64_t bytes[256] = {0}, params[256] = {0}, sp_bytes[256] = {0}, sp_params[256] = {0};
    uint32_t nbuf[256] = {0}, sp_nbuf[256] = {0};
    if (*nomem) return;
    for (uint32_t s = 0; s < m->n_subgraphs; s++) {
        const lg_subgraph *sg = &m->subgraphs[s];
        for (uint32_t i = 0; i < sg->n_tensors; i++) {
            const lg_tensor *t = &sg->tensors[i];
            const lg_buffer *buf = lg_tensor_buffer(m, t);
            if (!buf || claimed[t->buffer]) continue;
            claimed[t->buffer] = 1;
            int64_t numel = lg_tensor_numel(t);
            uint8_t k = (uint8_t)t->type;
            bytes[k] += buf->size;
            params[k] += numel > 0 ? (uint64_t)numel : 0;
            nbuf[k]++;
            if (t->sparsity) {
                sp_bytes[k] += buf->size;
                sp_params[k] += numel > 0 ? (uint64_t)numel : 0;
                sp_nbuf[k]++;
            }
        }
    }
    uint32_t n = 0;
    for (int k = 0; k < 256; k++) n += nbuf[k] != 0;
    w->by_dtype = alloc_array(b->a, n, sizeof *w->by_dtype, nomem);
    if (*nomem) return;
    /* ascending signed dtype code: -128..127 */
    for (int code = INT8_MIN; code <= INT8_MAX; code++) {
        uint8_t k = (uint8_t)(int8_t)code;
        if (!nbuf[k]) continue;
        lg_info_dtype_bytes *e = &w->by_dtype[w->n_by_dtype++];
        e->dtype = (int8_t)code;
        e->bytes = bytes[k];
        e->params = params[k];
        e->n_buffers = nbuf[k];
        e->n_sparse_buffers = sp_nbuf[k];
        e->sparse_bytes = sp_bytes[k];
        e->sparse_params = sp_params[k];
        w->bytes += bytes[k];
        w->params += params[k];
        w->n_buffers += nbuf[k];
    }
}

/* ---------------------------------------------------------------- signatures, metadata */

static const char **names_of(build *b, const lg_tensor_map *v, uint32_t n, int *nomem) {
    const char **names = alloc_array(b->a, n, sizeof *names, nomem);
    for (uint32_t i = 0; names && i < n; i++) names[i] = dup_str(b, v[i].name, nomem);
    return names;
}

static void signatures(build *b, const lg_model *m, lg_info *info, int *nomem) {
    info->signatures = alloc_array(b->a, m->n_signatures, sizeof *info->signatures, nomem);
    if (*nomem) return;
    info->n_signatures = m->n_signatures;
    for (uint32_t i = 0; i < m->n_signatures; i++) {
        const lg_signature *s = &m->signatures[i];
        lg_info_signature *o = &info->signatures[i];
        o->key = dup_str(b, s->key, nomem);
        o->subgraph = s->subgraph_index;
        o->inputs = names_of(b, s->inputs, s->n_inputs, nomem);
        o->n_inputs = s->n_inputs;
        o->outputs = names_of(b, s->outputs, s->n_outputs, nomem);
        o->n_outputs = s->n_outputs;
    }
}

static void metadata(build *b, const lg_model *m, lg_info *info, int *nomem) {
    info->metadata = alloc_array(b->a, m->n_metadata, sizeof *info->metadata, nomem);
    if (*nomem) return;
    info->n_metadata = m->n_metadata;
    for (uint32_t i = 0; i < m->n_metadata; i++) {
        const lg_metadata *md = &m->metadata[i];
        lg_info_metadata *o = &info->metadata[i];
        o->name = dup_str(b, md->name, nomem);
        o->buffer = md->buffer;
        o->bytes = md->buffer < m->n_buffers ? m->buffers[md->buffer].size : 0;
    }
}

/* ---------------------------------------------------------------- entry points */

lg_status lg_info_compute(const lg_model *m, const void *file_bytes, size_t file_size,
                          lg_info **out, lg_error *err) {
    lgi_error_clear(err);
    if (!out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_info_compute: out is NULL");
    *out = NULL;
    if (!m) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_info_compute: model is NULL");

    lg_alloc_fn alloc = m->priv && m->priv->alloc ? m->priv->alloc : lgi_default_alloc;
    void *ud = m->priv ? m->priv->alloc_ud : NULL;
    info_holder *h = alloc(ud, NULL, 0, sizeof *h);
    if (!h) return lgi_fail(err, LG_ERR_NOMEM, "out of memory computing model info");
    memset(h, 0, sizeof *h);
    h->alloc = alloc;
    h->ud = ud;
    lgi_arena_init(&h->arena, alloc, ud, 0);
    lg_info *info = &h->info;
    info->priv_ = h;

    build b = {.a = &h->arena};
    lgi_arena_init(&b.tmp, alloc, ud, 0);
    int nomem = 0;

    info->file_size = file_size;
    if (file_bytes) {
        lg_sha256(file_bytes, file_size, info->sha256);
        lg_hex(info->sha256, 32, info->sha256_hex);
        info->has_sha256 = true;
    }
    info->schema_version = m->version;
    if (m->description) info->description = dup_str(&b, m->description, &nomem);

    info->subgraphs = alloc_array(b.a, m->n_subgraphs, sizeof *info->subgraphs, &nomem);
    uint32_t *per_opcode = alloc_array(&b.tmp, (size_t)m->n_opcodes + 1, sizeof *per_opcode,
                                       &nomem);
    for (uint32_t s = 0; !nomem && s < m->n_subgraphs; s++) {
        const lg_subgraph *sg = &m->subgraphs[s];
        lg_info_subgraph *o = &info->subgraphs[s];
        info->n_subgraphs = s + 1;
        o->index = s;
        o->name = dup_str(&b, sg->name, &nomem);
        o->n_ops = sg->n_ops;
        o->n_tensors = sg->n_tensors;
        for (uint32_t i = 0; i < sg->n_tensors; i++)
            if (sg->tensors[i].rank > o->max_rank) o->max_rank = sg->tensors[i].rank;
        io_fill(&b, sg, sg->inputs, sg->n_inputs, &o->inputs, &o->n_inputs, &nomem);
        io_fill(&b, sg, sg->outputs, sg->n_outputs, &o->outputs, &o->n_outputs, &nomem);
        if (!nomem) census(&b, m, sg, o, per_opcode, &nomem);
    }
    if (!nomem) weights(&b, m, &info->weights, &nomem);
    if (!nomem) signatures(&b, m, info, &nomem);
    if (!nomem) metadata(&b, m, info, &nomem);

    lgi_arena_free(&b.tmp);
    if (nomem) {
        lg_info_free(info);
        return lgi_fail(err, LG_ERR_NOMEM, "out of memory computing model info");
    }
    *out = info;
    return LG_OK;
}

void lg_info_free(lg_info *info) {
    if (!info) return;
    info_holder *h = info->priv_;
    lgi_arena_free(&h->arena);
    h->alloc(h->ud, h, sizeof *h, 0);
}

/* ---------------------------------------------------------------- learned parameters */

bool lg_tensor_weight_type(const lg_tensor *t) {
    switch (t->type) {
    case LG_FLOAT32: case LG_FLOAT16: case LG_BFLOAT16: case LG_INT8: case LG_UINT8:
    case LG_INT4: case LG_INT16:
        return true;
    case LG_INT32:
        return t->quant != NULL && t->quant->n_scale > 0;
    default:
        return false;
    }
}

lg_status lg_model_learned_params(const lg_model *m, uint64_t *out, lg_error *err) {
    *out = 0;
    uint8_t *claimed = calloc(m->n_buffers ? m->n_buffers : 1, 1);
    if (!claimed) return lgi_fail(err, LG_ERR_NOMEM, "learned parameters: out of memory");
    uint64_t total = 0;
    for (uint32_t s = 0; s < m->n_subgraphs; s++) {
        const lg_subgraph *sg = &m->subgraphs[s];
        for (uint32_t i = 0; i < sg->n_tensors; i++) {
            const lg_tensor *t = &sg->tensors[i];
            const lg_buffer *buf = lg_tensor_buffer(m, t);
            if (!buf || claimed[t->buffer]) continue;
            claimed[t->buffer] = 1; /* the first tensor claims the buffer, as weights() */
            int64_t numel = lg_tensor_numel(t);
            if (lg_tensor_weight_type(t) && numel >= 2) total += (uint64_t)numel;
        }
    }
    free(claimed);
    *out = total;
    return LG_OK;
}
