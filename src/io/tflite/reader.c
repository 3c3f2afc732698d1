/* The .tflite reader: a verifying flatbuffer walker that builds the IR.
 *
 * Nothing in the file is trusted. Every access goes through the fb_* helpers below, which
 * check the offset, the vtable, the vector length or the string terminator against the end
 * of the buffer before a single byte is read, and read scalars as little-endian bytes (so
 * alignment and host byte order never matter). Small vectors (shapes, indices, quantization
 * parameters, option vectors) are copied into the model's arena, widened to host types;
 * constant data, custom options and strings point into the file without a copy.
 *
 * Work and memory are bounded: every element the walker visits allocates IR memory, and the
 * arena has a cap (lg_read_options.max_ir_bytes), so a file that shares one huge sub-table
 * among many parents fails with LG_ERR_LIMIT instead of exhausting memory or time. The
 * schema has no recursive tables, so nesting depth is fixed by the code.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "io/tflite/io_internal.h"
#include "lg/ops.h"
#include "io/tflite/fields.h"
#include "ir/schema_gen.h"

/* ------------------------------------------------------------------ reader state */

typedef struct rd {
    const uint8_t *buf;
    uint64_t size;     /* whole file (external buffers may live past the flatbuffer) */
    uint64_t fb_size;  /* the part uoffsets may reach (<= 2 GiB) */
    lgi_arena *arena;
    lg_error *err;
    const char *where; /* file name for messages, or "model" */
    int32_t sg, op, tensor;
    uint64_t ref_bytes;  /* bytes referenced without a copy (data, strings, custom options) */
    uint64_t ref_limit;  /* a file that references more than this shares sub-objects */
} rd;

/* A verified table: position and its vtable. */
typedef struct fbt {
    uint64_t pos;
    uint64_t vt;
    uint32_t vt_size;
    uint32_t tab_size;
} fbt;

static lg_status bad(rd *r, const char *fmt, ...) LGI_PRINTF(2, 3);
static lg_status bad(rd *r, const char *fmt, ...) {
    if (!r->err) return LG_ERR_FORMAT;
    va_list ap;
    va_start(ap, fmt);
    lgi_failv(r->err, LG_ERR_FORMAT, r->sg, r->op, r->tensor, fmt, ap);
    va_end(ap);
    char place[96] = "";
    if (r->sg >= 0 && r->op >= 0)
        snprintf(place, sizeof place, "subgraph %d op %d: ", r->sg, r->op);
    else if (r->sg >= 0 && r->tensor >= 0)
        snprintf(place, sizeof place, "subgraph %d tensor %d: ", r->sg, r->tensor);
    else if (r->sg >= 0)
        snprintf(place, sizeof place, "subgraph %d: ", r->sg);
    lgi_error_prefix(r->err, "%s: %s", r->where, place);
    return LG_ERR_FORMAT;
}

static lg_status nomem(rd *r) {
    if (r->arena->over_limit)
        return lgi_fail(r->err, LG_ERR_LIMIT,
                        "%s: the model needs more than %llu bytes of memory to read "
                        "(corrupt or hostile file? raise max_ir_bytes to allow it)",
                        r->where, (unsigned long long)r->arena->limit);
    return lgi_fail(r->err, LG_ERR_NOMEM, "%s: out of memory", r->where);
}

static void *rd_alloc(rd *r, uint64_t n) {
    if (n > SIZE_MAX) return NULL;
    return lgi_arena_alloc(r->arena, (size_t)n);
}

/* ------------------------------------------------------------------ verified access */

/* Verify the table whose position is pos. */
static lg_status fb_table(rd *r, uint64_t pos, const char *what, fbt *t) {
    if (pos + 4 > r->fb_size) return bad(r, "%s table at offset %llu is past the end of the file",
                                         what, (unsigned long long)pos);
    int32_t so = (int32_t)lgi_rd_u32(r->buf + pos);
    int64_t vt = (int64_t)pos - (int64_t)so;
    if (vt < 0 || (uint64_t)vt + 4 > r->fb_size)
        return bad(r, "%s table at offset %llu has its vtable outside the file", what,
                   (unsigned long long)pos);
    uint32_t vs = lgi_rd_u16(r->buf + vt), ts = lgi_rd_u16(r->buf + vt + 2);
    if (vs < 4 || (vs & 1) || (uint64_t)vt + vs > r->fb_size)
        return bad(r, "%s table at offset %llu has a bad vtable (size %u)", what,
                   (unsigned long long)pos, vs);
    if (ts < 4 || pos + ts > r->fb_size)
        return bad(r, "%s table at offset %llu extends past the end of the file", what,
                   (unsigned long long)pos);
    t->pos = pos;
    t->vt = (uint64_t)vt;
    t->vt_size = vs;
    t->tab_size = ts;
    return LG_OK;
}

/* Position of field id if present (0 if absent). Checks that size bytes fit the table. */
static lg_status fb_field(rd *r, const fbt *t, unsigned id, unsigned size, const char *what,
                          uint64_t *at) {
    *at = 0;
    uint32_t slot = 4 + 2 * id;
    if (slot + 2 > t->vt_size) return LG_OK;
    uint32_t off = lgi_rd_u16(r->buf + t->vt + slot);
    if (off == 0) return LG_OK;
    if (off < 4 || (uint64_t)off + size > t->tab_size)
        return bad(r, "field %s of the table at offset %llu lies outside the table", what,
                   (unsigned long long)t->pos);
    *at = t->pos + off;
    return LG_OK;
}

static int fb_has(rd *r, const fbt *t, unsigned id) {
    uint32_t slot = 4 + 2 * id;
    if (slot + 2 > t->vt_size) return 0;
    return lgi_rd_u16(r->buf + t->vt + slot) != 0;
}

static lg_status fb_u8(rd *r, const fbt *t, unsigned id, const char *what, uint8_t def, uint8_t *v) {
    uint64_t at;
    LG_TRY(fb_field(r, t, id, 1, what, &at));
    *v = at ? r->buf[at] : def;
    return LG_OK;
}

static lg_status fb_u32(rd *r, const fbt *t, unsigned id, const char *what, uint32_t def, uint32_t *v) {
    uint64_t at;
    LG_TRY(fb_field(r, t, id, 4, what, &at));
    *v = at ? lgi_rd_u32(r->buf + at) : def;
    return LG_OK;
}

static lg_status fb_i32(rd *r, const fbt *t, unsigned id, const char *what, int32_t def, int32_t *v) {
    uint32_t u;
    LG_TRY(fb_u32(r, t, id, what, (uint32_t)def, &u));
    *v = (int32_t)u;
    return LG_OK;
}

static lg_status fb_u64(rd *r, const fbt *t, unsigned id, const char *what, uint64_t *v) {
    uint64_t at;
    LG_TRY(fb_field(r, t, id, 8, what, &at));
    *v = at ? lgi_rd_u64(r->buf + at) : 0;
    return LG_OK;
}

/* Follow a uoffset field: *target = 0 if the field is absent. */
static lg_status fb_ref(rd *r, const fbt *t, unsigned id, const char *what, uint64_t *target) {
    uint64_t at;
    *target = 0;
    LG_TRY(fb_field(r, t, id, 4, what, &at));
    if (!at) return LG_OK;
    uint64_t dst = at + lgi_rd_u32(r->buf + at);
    if (dst + 4 > r->fb_size || dst == at)
        return bad(r, "field %s points outside the file", what);
    *target = dst;
    return LG_OK;
}

/* A vector: *n elements of elem bytes starting at *data. present = 0 if absent. */
static lg_status fb_vec(rd *r, const fbt *t, unsigned id, unsigned elem, const char *what,
                        int *present, uint64_t *data, uint32_t *n) {
    uint64_t v;
    *present = 0;
    *data = 0;
    *n = 0;
    LG_TRY(fb_ref(r, t, id, what, &v));
    if (!v) return LG_OK;
    uint32_t len = lgi_rd_u32(r->buf + v);
    if ((uint64_t)len * elem > r->fb_size - (v + 4))
        return bad(r, "vector %s has length %u, past the end of the file", what, len);
    *present = 1;
    *data = v + 4;
    *n = len;
    return LG_OK;
}

/* Every byte a model refers to without copying is counted: a well-formed file refers to
   each byte once, so a file whose sub-objects are shared many times over (which writing
   would expand without bound) is refused. */
static lg_status account(rd *r, uint64_t n, const char *what) {
    r->ref_bytes += n;
    if (r->ref_bytes > r->ref_limit)
        return bad(r, "%s: the file refers to more data (%llu bytes) than it holds: shared or overlapping "
                      "sub-objects", what, (unsigned long long)r->ref_bytes);
    return LG_OK;
}

/* A string: NULL if absent; otherwise it must be NUL-terminated where its length says. */
static lg_status fb_str(rd *r, const fbt *t, unsigned id, const char *what, const char **s) {
    int present;
    uint64_t data;
    uint32_t n;
    *s = NULL;
    LG_TRY(fb_vec(r, t, id, 1, what, &present, &data, &n));
    if (!present) return LG_OK;
    if (data + n >= r->fb_size || r->buf[data + n] != 0)
        return bad(r, "string %s is not terminated", what);
    LG_TRY(account(r, (uint64_t)n + 1, what));
    *s = (const char *)(r->buf + data);
    return LG_OK;
}

/* Element i of a vector of tables. */
static lg_status fb_vec_table(rd *r, uint64_t data, uint32_t i, const char *what, fbt *t) {
    uint64_t at = data + (uint64_t)i * 4;
    uint64_t dst = at + lgi_rd_u32(r->buf + at);
    if (dst == at) return bad(r, "%s %u is a null offset", what, i);
    return fb_table(r, dst, what, t);
}

/* Copy an int32 vector into the arena. NULL (absent) stays NULL. */
static lg_status rd_i32s(rd *r, const fbt *t, unsigned id, const char *what, const int32_t **out,
                         uint32_t *n) {
    int present;
    uint64_t data;
    LG_TRY(fb_vec(r, t, id, 4, what, &present, &data, n));
    *out = NULL;
    if (!present) return LG_OK;
    if (*n == 0) { *out = lgi_empty_vec; return LG_OK; }
    int32_t *v = rd_alloc(r, (uint64_t)*n * 4);
    if (!v) return nomem(r);
    for (uint32_t i = 0; i < *n; i++) v[i] = (int32_t)lgi_rd_u32(r->buf + data + 4 * (uint64_t)i);
    *out = v;
    return LG_OK;
}

static lg_status rd_f32s(rd *r, const fbt *t, unsigned id, const char *what, const float **out,
                         uint32_t *n) {
    int present;
    uint64_t data;
    LG_TRY(fb_vec(r, t, id, 4, what, &present, &data, n));
    *out = NULL;
    if (!present) return LG_OK;
    float *v = rd_alloc(r, (uint64_t)(*n ? *n : 1) * 4);
    if (!v) return nomem(r);
    for (uint32_t i = 0; i < *n; i++) {
        uint32_t u = lgi_rd_u32(r->buf + data + 4 * (uint64_t)i);
        memcpy(&v[i], &u, 4);
    }
    *out = v;
    return LG_OK;
}

/* ------------------------------------------------------------------ options (generic) */

/* Read an options table into a freshly allocated generated struct via its descriptor. */
static lg_status rd_opts(rd *r, uint64_t pos, lg_opts_kind kind, void **out, uint64_t *present) {
    const lgi_table_desc *d = lgi_opts_table(kind);
    fbt t;
    *out = NULL;
    *present = 0;
    if (!d) return bad(r, "unknown options type %d", (int)kind);
    LG_TRY(fb_table(r, pos, d->name, &t));
    uint8_t *st = rd_alloc(r, d->size);
    if (!st) return nomem(r);
    for (const lgi_field_desc *f = d->fields; f->name; f++) {
        lgi_field_kind k = (lgi_field_kind)f->kind;
        uint32_t es = lgi_field_elem_size(k);
        uint8_t *dst = st + f->offset;
        if (f->id < 64 && fb_has(r, &t, f->id)) *present |= (uint64_t)1 << f->id;
        if (k == LGI_F_STRING) {
            const char *s;
            LG_TRY(fb_str(r, &t, f->id, f->name, &s));
            memcpy(dst, &s, sizeof s);
        } else if (lgi_field_is_vec(k)) {
            int pres;
            uint64_t data;
            uint32_t n;
            lg_vec v = {NULL, 0};
            LG_TRY(fb_vec(r, &t, f->id, es, f->name, &pres, &data, &n));
            if (pres) {
                uint8_t *e = rd_alloc(r, (uint64_t)(n ? n : 1) * es);
                if (!e) return nomem(r);
                for (uint32_t i = 0; i < n; i++) {
                    const uint8_t *src = r->buf + data + (uint64_t)i * es;
                    if (es == 1) e[i] = src[0];
                    else if (es == 2) { uint16_t x = lgi_rd_u16(src); memcpy(e + 2 * i, &x, 2); }
                    else if (es == 4) { uint32_t x = lgi_rd_u32(src); memcpy(e + 4 * (uint64_t)i, &x, 4); }
                    else { uint64_t x = lgi_rd_u64(src); memcpy(e + 8 * (uint64_t)i, &x, 8); }
                }
                if (k == LGI_F_VEC_BOOL)
                    for (uint32_t i = 0; i < n; i++) e[i] = e[i] ? 1 : 0;
                v.data = e;
                v.n = n;
            }
            memcpy(dst, &v, sizeof v);
        } else {
            uint64_t at;
            LG_TRY(fb_field(r, &t, f->id, es, f->name, &at));
            if (!at) {
                /* schema default */
                double dv = f->def;
                switch (k) {
                case LGI_F_BOOL: { bool b = dv != 0; memcpy(dst, &b, 1); break; }
                case LGI_F_I8: { int8_t x = (int8_t)dv; memcpy(dst, &x, 1); break; }
                case LGI_F_U8: { uint8_t x = (uint8_t)dv; memcpy(dst, &x, 1); break; }
                case LGI_F_I16: { int16_t x = (int16_t)dv; memcpy(dst, &x, 2); break; }
                case LGI_F_U16: { uint16_t x = (uint16_t)dv; memcpy(dst, &x, 2); break; }
                case LGI_F_I32: { int32_t x = (int32_t)dv; memcpy(dst, &x, 4); break; }
                case LGI_F_U32: { uint32_t x = (uint32_t)dv; memcpy(dst, &x, 4); break; }
                case LGI_F_I64: { int64_t x = (int64_t)dv; memcpy(dst, &x, 8); break; }
                case LGI_F_U64: { uint64_t x = (uint64_t)dv; memcpy(dst, &x, 8); break; }
                case LGI_F_F32: { float x = (float)dv; memcpy(dst, &x, 4); break; }
                case LGI_F_F64: memcpy(dst, &dv, 8); break;
                default: break;
                }
                continue;
            }
            const uint8_t *src = r->buf + at;
            if (k == LGI_F_BOOL) { bool b = src[0] != 0; memcpy(dst, &b, 1); }
            else if (es == 1) dst[0] = src[0];
            else if (es == 2) { uint16_t x = lgi_rd_u16(src); memcpy(dst, &x, 2); }
            else if (es == 4) { uint32_t x = lgi_rd_u32(src); memcpy(dst, &x, 4); }
            else { uint64_t x = lgi_rd_u64(src); memcpy(dst, &x, 8); }
        }
    }
    *out = st;
    return LG_OK;
}

/* ------------------------------------------------------------------ tensors */

static lg_status rd_sparse_index(rd *r, const fbt *dm, unsigned type_id, unsigned val_id,
                                 const char *what, uint8_t *type_out, const int32_t **out,
                                 uint32_t *n) {
    uint8_t type;
    uint64_t pos;
    *out = NULL;
    *n = 0;
    LG_TRY(fb_u8(r, dm, type_id, what, 0, &type));
    LG_TRY(fb_ref(r, dm, val_id, what, &pos));
    *type_out = 0;
    if (type == 0 || !pos) return LG_OK;
    if (type > FB_SPARSE_INDEX_UINT8) return bad(r, "unknown sparse index vector type %u", type);
    fbt t;
    LG_TRY(fb_table(r, pos, what, &t));
    unsigned es = type == FB_SPARSE_INDEX_INT32 ? 4 : type == FB_SPARSE_INDEX_UINT16 ? 2 : 1;
    int present;
    uint64_t data;
    LG_TRY(fb_vec(r, &t, 0, es, what, &present, &data, n));
    *type_out = type;
    if (!present) return LG_OK;
    int32_t *v = rd_alloc(r, (uint64_t)(*n ? *n : 1) * 4);
    if (!v) return nomem(r);
    for (uint32_t i = 0; i < *n; i++) {
        const uint8_t *p = r->buf + data + (uint64_t)i * es;
        v[i] = es == 4 ? (int32_t)lgi_rd_u32(p) : es == 2 ? (int32_t)lgi_rd_u16(p) : (int32_t)p[0];
    }
    *out = v;
    return LG_OK;
}

static lg_status rd_sparsity(rd *r, uint64_t pos, lg_sparsity **out) {
    fbt t;
    LG_TRY(fb_table(r, pos, "SparsityParameters", &t));
    lg_sparsity *s = rd_alloc(r, sizeof *s);
    if (!s) return nomem(r);
    LG_TRY(rd_i32s(r, &t, FB_SPARSITY_TRAVERSAL_ORDER, "traversal_order", &s->traversal_order,
                   &s->n_traversal_order));
    LG_TRY(rd_i32s(r, &t, FB_SPARSITY_BLOCK_MAP, "block_map", &s->block_map, &s->n_block_map));
    int present;
    uint64_t data;
    uint32_t n;
    LG_TRY(fb_vec(r, &t, FB_SPARSITY_DIM_METADATA, 4, "dim_metadata", &present, &data, &n));
    if (present) {
        s->dim_metadata = rd_alloc(r, (uint64_t)(n ? n : 1) * sizeof(lg_dim_meta));
        if (!s->dim_metadata) return nomem(r);
        s->n_dim_metadata = n;
        for (uint32_t i = 0; i < n; i++) {
            fbt dm;
            lg_dim_meta *d = &s->dim_metadata[i];
            uint8_t fmt;
            LG_TRY(fb_vec_table(r, data, i, "DimensionMetadata", &dm));
            LG_TRY(fb_u8(r, &dm, FB_DIMMETA_FORMAT, "format", 0, &fmt));
            d->format = (int8_t)fmt;
            LG_TRY(fb_i32(r, &dm, FB_DIMMETA_DENSE_SIZE, "dense_size", 0, &d->dense_size));
            if (fb_has(r, &dm, FB_DIMMETA_FORMAT)) d->fb_present |= 1u << FB_DIMMETA_FORMAT;
            if (fb_has(r, &dm, FB_DIMMETA_DENSE_SIZE)) d->fb_present |= 1u << FB_DIMMETA_DENSE_SIZE;
            LG_TRY(rd_sparse_index(r, &dm, FB_DIMMETA_SEGMENTS_TYPE, FB_DIMMETA_SEGMENTS,
                                   "array_segments", &d->segments_type, &d->segments, &d->n_segments));
            LG_TRY(rd_sparse_index(r, &dm, FB_DIMMETA_INDICES_TYPE, FB_DIMMETA_INDICES,
                                   "array_indices", &d->indices_type, &d->indices, &d->n_indices));
        }
    }
    *out = s;
    return LG_OK;
}

static lg_status rd_quant(rd *r, uint64_t pos, lg_quant **out) {
    fbt t;
    LG_TRY(fb_table(r, pos, "QuantizationParameters", &t));
    lg_quant *q = rd_alloc(r, sizeof *q);
    if (!q) return nomem(r);
    LG_TRY(rd_f32s(r, &t, FB_QUANT_MIN, "min", &q->min, &q->n_min));
    LG_TRY(rd_f32s(r, &t, FB_QUANT_MAX, "max", &q->max, &q->n_max));
    LG_TRY(rd_f32s(r, &t, FB_QUANT_SCALE, "scale", &q->scale, &q->n_scale));
    int present;
    uint64_t data;
    LG_TRY(fb_vec(r, &t, FB_QUANT_ZERO_POINT, 8, "zero_point", &present, &data, &q->n_zero_point));
    if (present) {
        int64_t *z = rd_alloc(r, (uint64_t)(q->n_zero_point ? q->n_zero_point : 1) * 8);
        if (!z) return nomem(r);
        for (uint32_t i = 0; i < q->n_zero_point; i++)
            z[i] = (int64_t)lgi_rd_u64(r->buf + data + 8 * (uint64_t)i);
        q->zero_point = z;
    }
    uint8_t dtype;
    uint64_t dpos;
    LG_TRY(fb_u8(r, &t, FB_QUANT_DETAILS_TYPE, "details_type", 0, &dtype));
    LG_TRY(fb_ref(r, &t, FB_QUANT_DETAILS, "details", &dpos));
    if (dtype != 0 && dpos) {
        if (dtype > lgi_qdetails_count) return bad(r, "unknown quantization details type %u", dtype);
        q->details_kind = (lg_opts_kind)(2000 + dtype);
        LG_TRY(rd_opts(r, dpos, q->details_kind, &q->details, &q->details_present));
    }
    LG_TRY(fb_i32(r, &t, FB_QUANT_QUANTIZED_DIMENSION, "quantized_dimension", 0,
                  &q->quantized_dimension));
    if (fb_has(r, &t, FB_QUANT_QUANTIZED_DIMENSION)) q->fb_present |= 1u << FB_QUANT_QUANTIZED_DIMENSION;
    if (fb_has(r, &t, FB_QUANT_DETAILS_TYPE)) q->fb_present |= 1u << FB_QUANT_DETAILS_TYPE;
    *out = q;
    return LG_OK;
}

static uint32_t presence(rd *r, const fbt *t, unsigned n_fields) {
    uint32_t m = 0;
    for (unsigned i = 0; i < n_fields && i < 32; i++)
        if (fb_has(r, t, i)) m |= 1u << i;
    return m;
}

static lg_status rd_tensor(rd *r, const fbt *t, lg_tensor *x) {
    uint8_t u8;
    x->fb_present = presence(r, t, FB_TENSOR_EXTERNAL_BUFFER + 1);
    LG_TRY(rd_i32s(r, t, FB_TENSOR_SHAPE, "shape", &x->shape, &x->rank));
    LG_TRY(fb_u8(r, t, FB_TENSOR_TYPE, "type", 0, &u8));
    x->type = (int8_t)u8;
    LG_TRY(fb_u32(r, t, FB_TENSOR_BUFFER, "buffer", 0, &x->buffer));
    LG_TRY(fb_str(r, t, FB_TENSOR_NAME, "name", &x->name));
    uint64_t pos;
    LG_TRY(fb_ref(r, t, FB_TENSOR_QUANTIZATION, "quantization", &pos));
    if (pos) LG_TRY(rd_quant(r, pos, &x->quant));
    LG_TRY(fb_u8(r, t, FB_TENSOR_IS_VARIABLE, "is_variable", 0, &u8));
    x->is_variable = u8 != 0;
    LG_TRY(fb_ref(r, t, FB_TENSOR_SPARSITY, "sparsity", &pos));
    if (pos) LG_TRY(rd_sparsity(r, pos, &x->sparsity));
    LG_TRY(rd_i32s(r, t, FB_TENSOR_SHAPE_SIGNATURE, "shape_signature", &x->shape_signature,
                   &x->n_shape_signature));
    LG_TRY(fb_u8(r, t, FB_TENSOR_HAS_RANK, "has_rank", 0, &u8));
    x->has_rank = u8 != 0;
    int present;
    uint64_t data;
    uint32_t n;
    LG_TRY(fb_vec(r, t, FB_TENSOR_VARIANT_TENSORS, 4, "variant_tensors", &present, &data, &n));
    if (present) {
        x->variant_tensors = rd_alloc(r, (uint64_t)(n ? n : 1) * sizeof(lg_variant_subtype));
        if (!x->variant_tensors) return nomem(r);
        x->n_variant_tensors = n;
        for (uint32_t i = 0; i < n; i++) {
            fbt vt;
            lg_variant_subtype *v = &x->variant_tensors[i];
            LG_TRY(fb_vec_table(r, data, i, "VariantSubType", &vt));
            v->fb_present = presence(r, &vt, 3);
            LG_TRY(rd_i32s(r, &vt, FB_VARIANT_SHAPE, "shape", &v->shape, &v->rank));
            LG_TRY(fb_u8(r, &vt, FB_VARIANT_TYPE, "type", 0, &u8));
            v->type = (int8_t)u8;
            LG_TRY(fb_u8(r, &vt, FB_VARIANT_HAS_RANK, "has_rank", 0, &u8));
            v->has_rank = u8 != 0;
        }
    }
    LG_TRY(fb_u32(r, t, FB_TENSOR_EXTERNAL_BUFFER, "external_buffer", 0, &x->external_buffer));
    return LG_OK;
}

/* ------------------------------------------------------------------ operators */

static lg_status rd_op(rd *r, const fbt *t, lg_op *op) {
    uint8_t u8;
    op->fb_present = presence(r, t, FB_OP_DEBUG_METADATA_INDEX + 1);
    LG_TRY(fb_u32(r, t, FB_OP_OPCODE_INDEX, "opcode_index", 0, &op->opcode_index));
    LG_TRY(rd_i32s(r, t, FB_OP_INPUTS, "inputs", &op->inputs, &op->n_inputs));
    LG_TRY(rd_i32s(r, t, FB_OP_OUTPUTS, "outputs", &op->outputs, &op->n_outputs));
    LG_TRY(rd_i32s(r, t, FB_OP_INTERMEDIATES, "intermediates", &op->intermediates,
                   &op->n_intermediates));

    uint8_t type1, type2;
    uint64_t pos1, pos2;
    LG_TRY(fb_u8(r, t, FB_OP_BUILTIN_OPTIONS_TYPE, "builtin_options_type", 0, &type1));
    LG_TRY(fb_ref(r, t, FB_OP_BUILTIN_OPTIONS, "builtin_options", &pos1));
    LG_TRY(fb_u8(r, t, FB_OP_BUILTIN_OPTIONS_2_TYPE, "builtin_options_2_type", 0, &type2));
    LG_TRY(fb_ref(r, t, FB_OP_BUILTIN_OPTIONS_2, "builtin_options_2", &pos2));
    if (type1 && type2 && pos1 && pos2)
        return bad(r, "both builtin_options and builtin_options_2 are set");
    if (type1 && pos1) {
        if (type1 > lgi_opts_count1)
            return bad(r, "builtin_options type %u is not in the schema (1..%d)", type1,
                       lgi_opts_count1);
        op->opts_kind = (lg_opts_kind)type1;
        LG_TRY(rd_opts(r, pos1, op->opts_kind, &op->opts, &op->opts_present));
    } else if (type2 && pos2) {
        if (type2 > lgi_opts_count2)
            return bad(r, "builtin_options_2 type %u is not in the schema (1..%d)", type2,
                       lgi_opts_count2);
        op->opts_kind = (lg_opts_kind)(LG_OPTS_2_BASE + type2);
        LG_TRY(rd_opts(r, pos2, op->opts_kind, &op->opts, &op->opts_present));
    }
    /* a union type without a value carries nothing: drop the type as TFLite does */
    op->fb_present &= ~((1u << FB_OP_BUILTIN_OPTIONS_TYPE) | (1u << FB_OP_BUILTIN_OPTIONS_2_TYPE));

    int present;
    uint64_t data;
    uint32_t n;
    LG_TRY(fb_vec(r, t, FB_OP_CUSTOM_OPTIONS, 1, "custom_options", &present, &data, &n));
    if (present) {
        LG_TRY(account(r, n, "custom_options"));
        op->custom_options = r->buf + data;
        op->n_custom_options = n;
    }
    LG_TRY(fb_u8(r, t, FB_OP_CUSTOM_OPTIONS_FORMAT, "custom_options_format", 0, &u8));
    op->custom_options_format = (int8_t)u8;
    LG_TRY(fb_vec(r, t, FB_OP_MUTATING_VARIABLE_INPUTS, 1, "mutating_variable_inputs", &present,
                  &data, &n));
    if (present) {
        uint8_t *v = rd_alloc(r, n ? n : 1);
        if (!v) return nomem(r);
        for (uint32_t i = 0; i < n; i++) v[i] = r->buf[data + i] ? 1 : 0;
        op->mutating_variable_inputs = v;
        op->n_mutating_variable_inputs = n;
    }
    uint64_t loff, lsize;
    LG_TRY(fb_u64(r, t, FB_OP_LARGE_CUSTOM_OPTIONS_OFFSET, "large_custom_options_offset", &loff));
    LG_TRY(fb_u64(r, t, FB_OP_LARGE_CUSTOM_OPTIONS_SIZE, "large_custom_options_size", &lsize));
    if (loff > 1 && lsize > 0) {
        if (loff > r->size || lsize > r->size - loff)
            return bad(r, "large custom options (offset %llu, size %llu) lie outside the file",
                       (unsigned long long)loff, (unsigned long long)lsize);
        if (lsize > UINT32_MAX) return bad(r, "large custom options of %llu bytes", (unsigned long long)lsize);
        LG_TRY(account(r, lsize, "large custom options"));
        op->custom_options = r->buf + loff;
        op->n_custom_options = (uint32_t)lsize;
        op->custom_options_large = true;
    }
    op->fb_present &= ~((1u << FB_OP_LARGE_CUSTOM_OPTIONS_OFFSET) |
                        (1u << FB_OP_LARGE_CUSTOM_OPTIONS_SIZE));
    LG_TRY(fb_i32(r, t, FB_OP_DEBUG_METADATA_INDEX, "debug_metadata_index",
                  FB_DEBUG_METADATA_INDEX_DEFAULT, &op->debug_metadata_index));
    return LG_OK;
}

/* ------------------------------------------------------------------ model */

#define RD_VEC_OF_TABLES(r, t, id, what, present, data, n) \
    fb_vec((r), (t), (id), 4, (what), (present), (data), (n))

static lg_status rd_subgraph(rd *r, const fbt *t, lg_subgraph *sg) {
    int present;
    uint64_t data;
    uint32_t n;
    sg->fb_present = presence(r, t, FB_SUBGRAPH_DEBUG_METADATA_INDEX + 1);
    LG_TRY(RD_VEC_OF_TABLES(r, t, FB_SUBGRAPH_TENSORS, "tensors", &present, &data, &n));
    if (present) {
        sg->tensors = rd_alloc(r, (uint64_t)(n ? n : 1) * sizeof(lg_tensor));
        if (!sg->tensors) return nomem(r);
    }
    sg->n_tensors = n;
    for (uint32_t i = 0; i < n; i++) {
        fbt tt;
        r->tensor = (int32_t)i;
        LG_TRY(fb_vec_table(r, data, i, "Tensor", &tt));
        LG_TRY(rd_tensor(r, &tt, &sg->tensors[i]));
    }
    r->tensor = -1;
    LG_TRY(rd_i32s(r, t, FB_SUBGRAPH_INPUTS, "inputs", &sg->inputs, &sg->n_inputs));
    LG_TRY(rd_i32s(r, t, FB_SUBGRAPH_OUTPUTS, "outputs", &sg->outputs, &sg->n_outputs));
    LG_TRY(RD_VEC_OF_TABLES(r, t, FB_SUBGRAPH_OPERATORS, "operators", &present, &data, &n));
    if (present) {
        sg->ops = rd_alloc(r, (uint64_t)(n ? n : 1) * sizeof(lg_op));
        if (!sg->ops) return nomem(r);
    }
    sg->n_ops = n;
    for (uint32_t i = 0; i < n; i++) {
        fbt ot;
        r->op = (int32_t)i;
        LG_TRY(fb_vec_table(r, data, i, "Operator", &ot));
        LG_TRY(rd_op(r, &ot, &sg->ops[i]));
    }
    r->op = -1;
    LG_TRY(fb_str(r, t, FB_SUBGRAPH_NAME, "name", &sg->name));
    LG_TRY(fb_i32(r, t, FB_SUBGRAPH_DEBUG_METADATA_INDEX, "debug_metadata_index",
                  FB_DEBUG_METADATA_INDEX_DEFAULT, &sg->debug_metadata_index));
    return LG_OK;
}

static lg_status rd_buffers(rd *r, const fbt *mt, lg_model *m) {
    int present;
    uint64_t data;
    uint32_t n;
    LG_TRY(RD_VEC_OF_TABLES(r, mt, FB_MODEL_BUFFERS, "buffers", &present, &data, &n));
    if (!present) return LG_OK;
    m->buffers = rd_alloc(r, (uint64_t)(n ? n : 1) * sizeof(lg_buffer));
    if (!m->buffers) return nomem(r);
    m->n_buffers = n;
    for (uint32_t i = 0; i < n; i++) {
        fbt bt;
        lg_buffer *b = &m->buffers[i];
        LG_TRY(fb_vec_table(r, data, i, "Buffer", &bt));
        b->fb_present = presence(r, &bt, 3) & ~((1u << FB_BUFFER_OFFSET) | (1u << FB_BUFFER_SIZE));
        int dp;
        uint64_t dd;
        uint32_t dn;
        LG_TRY(fb_vec(r, &bt, FB_BUFFER_DATA, 1, "buffer data", &dp, &dd, &dn));
        uint64_t off, size;
        LG_TRY(fb_u64(r, &bt, FB_BUFFER_OFFSET, "offset", &off));
        LG_TRY(fb_u64(r, &bt, FB_BUFFER_SIZE, "size", &size));
        if (off > 1 || dp) LG_TRY(account(r, off > 1 ? size : dn, "buffer data"));
        if (off > 1) {
            /* schema 3d: the bytes live after the flatbuffer */
            if (off > r->size || size > r->size - off)
                return bad(r, "buffer %u (offset %llu, size %llu) lies outside the file (%llu bytes)",
                           i, (unsigned long long)off, (unsigned long long)size,
                           (unsigned long long)r->size);
            b->data = r->buf + off;
            b->size = size;
            b->external = true;
        } else if (dp) {
            b->data = r->buf + dd;
            b->size = dn;
        }
        /* Data whose start is not 16-aligned in memory (a hand-made or hostile file)
           is copied, so that kernels may read floats from it directly. */
        if (b->data && b->size && ((uintptr_t)b->data & 15u)) {
            void *copy = rd_alloc(r, b->size);
            if (!copy) return nomem(r);
            memcpy(copy, b->data, (size_t)b->size);
            b->data = copy;
        }
        if (b->data && b->size == 0 && !b->external) b->data = (const uint8_t *)lgi_empty_vec;
    }
    return LG_OK;
}

static lg_status rd_tensor_maps(rd *r, const fbt *t, unsigned id, const char *what,
                                lg_tensor_map **out, uint32_t *n_out) {
    int present;
    uint64_t data;
    uint32_t n;
    LG_TRY(RD_VEC_OF_TABLES(r, t, id, what, &present, &data, &n));
    *out = NULL;
    *n_out = 0;
    if (!present) return LG_OK;
    lg_tensor_map *v = rd_alloc(r, (uint64_t)(n ? n : 1) * sizeof *v);
    if (!v) return nomem(r);
    for (uint32_t i = 0; i < n; i++) {
        fbt mt;
        LG_TRY(fb_vec_table(r, data, i, "TensorMap", &mt));
        v[i].fb_present = presence(r, &mt, 2);
        LG_TRY(fb_str(r, &mt, FB_TENSORMAP_NAME, "name", &v[i].name));
        LG_TRY(fb_u32(r, &mt, FB_TENSORMAP_TENSOR_INDEX, "tensor_index", 0, &v[i].tensor_index));
    }
    *out = v;
    *n_out = n;
    return LG_OK;
}

static lg_status rd_model(rd *r, lg_model *m) {
    if (r->size < 8)
        return bad(r, "file is %llu bytes, too small to be a TFLite model", (unsigned long long)r->size);
    if (memcmp(r->buf + 4, "TFL3", 4) != 0) {
        char id[5];
        for (int i = 0; i < 4; i++) {
            uint8_t c = r->buf[4 + i];
            id[i] = (c >= 32 && c < 127) ? (char)c : '.';
        }
        id[4] = 0;
        return bad(r, "not a TFLite model: file identifier is \"%s\", expected \"TFL3\"", id);
    }
    fbt mt;
    uint64_t root = lgi_rd_u32(r->buf);
    LG_TRY(fb_table(r, root, "Model", &mt));
    m->fb_present = presence(r, &mt, FB_MODEL_EXTERNAL_BUFFERS + 1);
    LG_TRY(fb_u32(r, &mt, FB_MODEL_VERSION, "version", 0, &m->version));
    LG_TRY(fb_str(r, &mt, FB_MODEL_DESCRIPTION, "description", &m->description));

    int present;
    uint64_t data;
    uint32_t n;
    /* operator codes */
    LG_TRY(RD_VEC_OF_TABLES(r, &mt, FB_MODEL_OPERATOR_CODES, "operator_codes", &present, &data, &n));
    if (present) {
        m->opcodes = rd_alloc(r, (uint64_t)(n ? n : 1) * sizeof(lg_opcode));
        if (!m->opcodes) return nomem(r);
    }
    m->n_opcodes = n;
    for (uint32_t i = 0; i < n; i++) {
        fbt ct;
        lg_opcode *c = &m->opcodes[i];
        uint8_t dep;
        LG_TRY(fb_vec_table(r, data, i, "OperatorCode", &ct));
        c->fb_present = presence(r, &ct, 4);
        LG_TRY(fb_u8(r, &ct, FB_OPCODE_DEPRECATED_BUILTIN_CODE, "deprecated_builtin_code", 0, &dep));
        c->deprecated_builtin_code = (int8_t)dep;
        LG_TRY(fb_str(r, &ct, FB_OPCODE_CUSTOM_CODE, "custom_code", &c->custom_code));
        LG_TRY(fb_i32(r, &ct, FB_OPCODE_VERSION, "version", FB_OPCODE_VERSION_DEFAULT, &c->version));
        LG_TRY(fb_i32(r, &ct, FB_OPCODE_BUILTIN_CODE, "builtin_code", 0, &c->builtin_code));
        /* TFLite's rule: the effective code is the larger of the two fields */
        c->builtin = c->builtin_code > c->deprecated_builtin_code ? c->builtin_code
                                                                  : c->deprecated_builtin_code;
        if (c->builtin < 0 || c->builtin > LG_OP_MAX)
            return bad(r, "operator code %u has builtin code %d, not in the schema (0..%d)", i,
                       c->builtin, LG_OP_MAX);
    }

    /* subgraphs */
    LG_TRY(RD_VEC_OF_TABLES(r, &mt, FB_MODEL_SUBGRAPHS, "subgraphs", &present, &data, &n));
    if (present) {
        m->subgraphs = rd_alloc(r, (uint64_t)(n ? n : 1) * sizeof(lg_subgraph));
        if (!m->subgraphs) return nomem(r);
    }
    m->n_subgraphs = n;
    for (uint32_t i = 0; i < n; i++) {
        fbt st;
        r->sg = (int32_t)i;
        LG_TRY(fb_vec_table(r, data, i, "SubGraph", &st));
        LG_TRY(rd_subgraph(r, &st, &m->subgraphs[i]));
    }
    r->sg = -1;

    LG_TRY(rd_buffers(r, &mt, m));
    LG_TRY(rd_i32s(r, &mt, FB_MODEL_METADATA_BUFFER, "metadata_buffer", &m->metadata_buffer,
                   &m->n_metadata_buffer));

    LG_TRY(RD_VEC_OF_TABLES(r, &mt, FB_MODEL_METADATA, "metadata", &present, &data, &n));
    if (present) {
        m->metadata = rd_alloc(r, (uint64_t)(n ? n : 1) * sizeof(lg_metadata));
        if (!m->metadata) return nomem(r);
        m->n_metadata = n;
        for (uint32_t i = 0; i < n; i++) {
            fbt t;
            LG_TRY(fb_vec_table(r, data, i, "Metadata", &t));
            m->metadata[i].fb_present = presence(r, &t, 2);
            LG_TRY(fb_str(r, &t, FB_METADATA_NAME, "name", &m->metadata[i].name));
            LG_TRY(fb_u32(r, &t, FB_METADATA_BUFFER, "buffer", 0, &m->metadata[i].buffer));
        }
    }

    LG_TRY(RD_VEC_OF_TABLES(r, &mt, FB_MODEL_SIGNATURE_DEFS, "signature_defs", &present, &data, &n));
    if (present) {
        m->signatures = rd_alloc(r, (uint64_t)(n ? n : 1) * sizeof(lg_signature));
        if (!m->signatures) return nomem(r);
        m->n_signatures = n;
        for (uint32_t i = 0; i < n; i++) {
            fbt t;
            lg_signature *s = &m->signatures[i];
            LG_TRY(fb_vec_table(r, data, i, "SignatureDef", &t));
            s->fb_present = presence(r, &t, 5);
            LG_TRY(rd_tensor_maps(r, &t, FB_SIGDEF_INPUTS, "signature inputs", &s->inputs, &s->n_inputs));
            LG_TRY(rd_tensor_maps(r, &t, FB_SIGDEF_OUTPUTS, "signature outputs", &s->outputs, &s->n_outputs));
            LG_TRY(fb_str(r, &t, FB_SIGDEF_SIGNATURE_KEY, "signature_key", &s->key));
            LG_TRY(fb_u32(r, &t, FB_SIGDEF_SUBGRAPH_INDEX, "subgraph_index", 0, &s->subgraph_index));
        }
    }

    LG_TRY(RD_VEC_OF_TABLES(r, &mt, FB_MODEL_EXTERNAL_BUFFER_GROUPS, "external_buffer_groups",
                            &present, &data, &n));
    if (present) {
        m->external_buffer_groups = rd_alloc(r, (uint64_t)(n ? n : 1) * sizeof(lg_external_buffer_group));
        if (!m->external_buffer_groups) return nomem(r);
        m->n_external_buffer_groups = n;
        for (uint32_t i = 0; i < n; i++) {
            fbt t;
            LG_TRY(fb_vec_table(r, data, i, "ExternalBufferGroup", &t));
            LG_TRY(fb_str(r, &t, FB_EXTGROUP_NAME, "name", &m->external_buffer_groups[i].name));
        }
    }
    LG_TRY(RD_VEC_OF_TABLES(r, &mt, FB_MODEL_EXTERNAL_BUFFERS, "external_buffers", &present,
                            &data, &n));
    if (present) {
        m->external_buffers = rd_alloc(r, (uint64_t)(n ? n : 1) * sizeof(lg_external_buffer));
        if (!m->external_buffers) return nomem(r);
        m->n_external_buffers = n;
        for (uint32_t i = 0; i < n; i++) {
            fbt t;
            lg_external_buffer *e = &m->external_buffers[i];
            LG_TRY(fb_vec_table(r, data, i, "ExternalBuffer", &t));
            e->fb_present = presence(r, &t, 5);
            LG_TRY(fb_u32(r, &t, FB_EXTBUF_ID, "id", 0, &e->id));
            LG_TRY(fb_u32(r, &t, FB_EXTBUF_GROUP, "group", 0, &e->group));
            LG_TRY(fb_u64(r, &t, FB_EXTBUF_OFFSET, "offset", &e->offset));
            LG_TRY(fb_u64(r, &t, FB_EXTBUF_LENGTH, "length", &e->length));
            LG_TRY(fb_str(r, &t, FB_EXTBUF_PACKING, "packing", &e->packing));
        }
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ entry points */

/* What read_common runs on the model it parsed: the structure and the op table (options
   kinds, arity, every stored shape against inference). */
lg_status lgi_tflite_read_validate(lg_model *m, const char *where, lg_error *err) {
    lg_status st = lg_model_validate(m, err);
    if (st == LG_OK) st = lg_model_validate_ops(m, err);
    if (st != LG_OK && err) {
        lgi_error_prefix(err, "%.1000s: ", where);
        if (st == LG_ERR_INVALID_ARG) st = err->status = LG_ERR_FORMAT;
    }
    return st;
}

static lg_status read_common(const void *buf, size_t size, const lg_read_options *opt,
                             const char *where, int validate, lg_model **out, lg_error *err) {
    lg_model *m = NULL;
    uint64_t limit = opt && opt->max_ir_bytes ? opt->max_ir_bytes
                                              : ((uint64_t)64 << 20) + 16 * (uint64_t)size;
    LG_TRY(lgi_model_alloc(opt ? opt->alloc : NULL, opt ? opt->alloc_ud : NULL, limit, &m, err));
    rd r = {0};
    r.buf = buf;
    r.size = size;
    r.fb_size = size < 0x7fffffffu ? size : 0x7fffffffu;
    r.arena = &m->priv->arena;
    r.err = err;
    r.where = where;
    r.sg = r.op = r.tensor = -1;
    r.ref_limit = 4 * (uint64_t)size + 4096;
    lg_status st = rd_model(&r, m);
    if (st == LG_OK && validate) st = lgi_tflite_read_validate(m, where, err);
    if (st != LG_OK) {
        lg_model_free(m);
        return st;
    }
    *out = m;
    return LG_OK;
}

lg_status lg_tflite_read_mem(const void *buf, size_t size, const lg_read_options *opt,
                             lg_model **out, lg_error *err) {
    lgi_error_clear(err);
    if (!out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_tflite_read_mem: out is NULL");
    *out = NULL;
    if (!buf && size) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_tflite_read_mem: buf is NULL");
    return read_common(buf ? buf : "", size, opt, opt && opt->name ? opt->name : "model", 1, out, err);
}

lg_status lgi_tflite_read_mem_unvalidated(const void *buf, size_t size, const lg_read_options *opt,
                                          lg_model **out, lg_error *err) {
    *out = NULL;
    return read_common(buf, size, opt, opt && opt->name ? opt->name : "model", 0, out, err);
}

lg_status lg_tflite_read_file(const char *path, const lg_read_options *opt, lg_model **out,
                              lg_error *err) {
    lgi_error_clear(err);
    if (!out || !path) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_tflite_read_file: NULL argument");
    *out = NULL;
    int fd;
    uint64_t fsize;
    lg_status ost = lg_input_open(path, &fd, &fsize, err);
    if (ost != LG_OK) return ost;
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return lgi_fail(err, LG_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (fsize > SIZE_MAX) {
        close(fd);
        return lgi_fail(err, LG_ERR_LIMIT, "%s: file too large to map", path);
    }
    size_t len = (size_t)fsize;
    void *addr = NULL;
    if (len > 0) {
        addr = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (addr == MAP_FAILED) {
            int e = errno;
            close(fd);
            return lgi_fail(err, LG_ERR_IO, "%s: cannot map: %s", path, strerror(e));
        }
    }
    close(fd);
    lg_status st = read_common(addr ? addr : "", len, opt, path, 1, out, err);
    if (st == LG_OK && addr) st = lgi_hold_map(*out, addr, len, err); /* unmapped with the model */
    if (st != LG_OK) {
        if (addr) munmap(addr, len);
        if (*out) lg_model_free(*out);
        *out = NULL;
        return st;
    }
    lgi_model_priv *p = (*out)->priv;
    p->has_source = 1;
    p->src_dev = (uint64_t)sb.st_dev;
    p->src_ino = (uint64_t)sb.st_ino;
    snprintf(p->src_path, sizeof p->src_path, "%s", path);
    return LG_OK;
}
