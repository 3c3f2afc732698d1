/* The .tflite writer: our own flatbuffer serializer for the TFLite schema.

   Layout is front to back. A table is written first, with zero placeholders in its offset
   fields; its children (strings, vectors, sub-tables) follow it and are linked by patching
   the placeholders, so every uoffset points forward as flatbuffers requires. Each table's
   vtable is written just before it unless an identical vtable was already written (then the
   table points back to that one). Positions are known as bytes are written, so alignment is
   absolute: vectors get their payload aligned to the element size (16 for Buffer.data and
   CustomQuantization.custom, schema force_align), tables to 4 (8 when they hold 8-byte
   scalars, which are placed at 8-aligned positions).

   What is written is exactly what the IR holds: a scalar when it differs from the schema
   default or its fb_present bit says the source stored it; a vector, string or table when
   its pointer is non-NULL (even if empty). Output depends only on the IR, never on pointers
   or time, so identical models give identical bytes.

   Large models (schema 3c): bytes can live after the flatbuffer, at absolute, 16-aligned file
   offsets: Buffer.offset/size instead of Buffer.data, Operator.large_custom_options_offset/size
   instead of custom_options. Each buffer or custom options block the IR marks as stored that
   way (lg_buffer.external, lg_op.custom_options_large) is written that way again; in external
   mode (lg_write_options.external_buffers, or automatically when the inline data would pass
   the 2 GiB flatbuffer limit) every other non-empty buffer too, except metadata buffers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "util/file.h"
#include "lg/ops.h"
#include "io/tflite/fields.h"
#include "ir/schema_gen.h"
#include "io/tflite/io_internal.h"

/* flatbuffers' limit on a buffer (offsets are signed 32-bit in places) */
#define FB_MAX_SIZE ((size_t)0x7fffffff)
/* lg_tflite_write_file: byte vectors (constant data) from this size on are written to the
   file from where they are instead of being copied into the flatbuffer first */
#define SPAN_MIN ((size_t)4096)

/* ------------------------------------------------------------------ byte buffer */

/* Bytes stored after the flatbuffer; off_slot/size_slot locate the u64 fields to patch. */
typedef struct blob {
    const uint8_t *data;
    uint64_t size;
    size_t off_slot, size_slot;
    uint64_t offset; /* assigned when the flatbuffer is complete */
} blob;

/* A payload inside the flatbuffer that stays where it is (the model's constant data) and is
   written from there: the file gets the same bytes without a copy of the weights in memory.
   Its place in the file is [pos, pos + size); skip is the span bytes before it. */
typedef struct span {
    size_t pos, size, skip;
    const uint8_t *data;
} span;

typedef struct fbw {
    uint8_t *buf;          /* the flatbuffer's bytes, spans left out */
    size_t len;            /* the file position: bytes in buf plus the spans' */
    size_t cap;
    int oom, toobig;       /* sticky failures: later writes do nothing */
    int bug;               /* an internal invariant broke (our bug): LG_ERR_INTERNAL, never abort */
    int external_all;      /* store all (non-metadata) constant data after the flatbuffer */
    const uint8_t *inline_only; /* per buffer: metadata buffers stay inline */
    const uint8_t *omit;   /* per buffer: data left out (lgi_tflite_write_mem_omit) */
    size_t span_min;       /* byte vectors of at least this size become spans; 0: none */
    span *spans;
    size_t n_spans, cap_spans, skipped;
    size_t *vt;            /* open-addressed set of vtable positions + 1 */
    size_t vt_cap, vt_n;
    blob *blobs;
    size_t n_blobs, cap_blobs;
} fbw;

static int failed(const fbw *w) { return w->oom || w->toobig || w->bug; }

/* Where the byte at file position pos is held in buf (pos is never inside a span). */
static uint8_t *at(const fbw *w, size_t pos) {
    size_t n = w->n_spans;
    if (!n || pos >= w->spans[n - 1].pos + w->spans[n - 1].size) return w->buf + (pos - w->skipped);
    size_t lo = 0, hi = n; /* lo: the spans that end at or before pos */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->spans[mid].pos + w->spans[mid].size <= pos) lo = mid + 1;
        else hi = mid;
    }
    return w->buf + (pos - (lo ? w->spans[lo - 1].skip + w->spans[lo - 1].size : 0));
}

/* n zeroed bytes at the end; NULL after a failure. */
static uint8_t *reserve(fbw *w, size_t n) {
    if (failed(w)) return NULL;
    if (n > FB_MAX_SIZE - w->len) {
        w->toobig = 1;
        return NULL;
    }
    size_t have = w->len - w->skipped;
    if (have + n > w->cap) {
        size_t nc = w->cap ? w->cap : 4096;
        while (nc < have + n) nc *= 2;
        uint8_t *p = realloc(w->buf, nc);
        if (!p) {
            w->oom = 1;
            return NULL;
        }
        w->buf = p;
        w->cap = nc;
    }
    uint8_t *p = w->buf + have;
    memset(p, 0, n);
    w->len += n;
    return p;
}

/* size bytes at data, next in the file, written from where they are. */
static void add_span(fbw *w, const uint8_t *data, size_t size) {
    if (failed(w)) return;
    if (size > FB_MAX_SIZE - w->len) {
        w->toobig = 1;
        return;
    }
    if (w->n_spans == w->cap_spans) {
        size_t nc = w->cap_spans ? w->cap_spans * 2 : 64;
        span *v = realloc(w->spans, nc * sizeof *v);
        if (!v) {
            w->oom = 1;
            return;
        }
        w->spans = v;
        w->cap_spans = nc;
    }
    w->spans[w->n_spans++] = (span){w->len, size, w->skipped, data};
    w->len += size;
    w->skipped += size;
}

/* Pad with zeros so that (len + extra) is a multiple of align (a power of two). */
static void pad_to(fbw *w, size_t align, size_t extra) {
    size_t r = (w->len + extra) & (align - 1);
    if (r) reserve(w, align - r);
}

static void set_u64(fbw *w, size_t pos, uint64_t v) {
    if (!failed(w)) lgi_wr_u64(at(w, pos), v);
}

/* Link the uoffset at slot to target (written later, so target > slot). */
static void link_to(fbw *w, size_t slot, size_t target) {
    if (failed(w)) return;
    if (target <= slot) { w->bug = 1; return; }
    lgi_wr_u32(at(w, slot), (uint32_t)(target - slot));
}

/* ------------------------------------------------------------------ vectors and strings */

/* A vector of n elements of esize bytes, read from data (host order) and stored
   little-endian, payload aligned to align. Returns the position of the length prefix. */
static size_t vec_raw(fbw *w, const void *data, uint32_t n, size_t esize, size_t align) {
    if (align < 4) align = 4;
    if (align < esize) align = esize;
    if ((size_t)n > (FB_MAX_SIZE - 4) / esize) {
        w->toobig = 1;
        return 0;
    }
    pad_to(w, align, 4);
    size_t pos = w->len;
    if (esize == 1 && w->span_min && n >= w->span_min) {
        uint8_t *p = reserve(w, 4);
        if (p) lgi_wr_u32(p, n);
        add_span(w, data, n);
        return pos;
    }
    uint8_t *p = reserve(w, 4 + (size_t)n * esize);
    if (!p) return 0;
    lgi_wr_u32(p, n);
    p += 4;
    const uint8_t *s = data;
    if (esize == 1) {
        if (n) memcpy(p, s, n);
    } else {
        for (uint32_t i = 0; i < n; i++, s += esize, p += esize) {
            if (esize == 2) { uint16_t x; memcpy(&x, s, 2); lgi_wr_u16(p, x); }
            else if (esize == 4) { uint32_t x; memcpy(&x, s, 4); lgi_wr_u32(p, x); }
            else { uint64_t x; memcpy(&x, s, 8); lgi_wr_u64(p, x); }
        }
    }
    return pos;
}

static size_t vec_i32(fbw *w, const int32_t *v, uint32_t n) { return vec_raw(w, v, n, 4, 4); }

/* int32 values narrowed to esize bytes (SparseIndexVector's Uint16Vector / Uint8Vector) */
static size_t vec_i32_narrow(fbw *w, const int32_t *v, uint32_t n, size_t esize) {
    if (esize == 4) return vec_i32(w, v, n);
    pad_to(w, 4, 4);
    size_t pos = w->len;
    uint8_t *p = reserve(w, 4 + (size_t)n * esize);
    if (!p) return 0;
    lgi_wr_u32(p, n);
    for (uint32_t i = 0; i < n; i++) {
        if (esize == 2) lgi_wr_u16(p + 4 + 2 * (size_t)i, (uint16_t)v[i]);
        else p[4 + i] = (uint8_t)v[i];
    }
    return pos;
}

static size_t str(fbw *w, const char *s) {
    size_t n = strlen(s);
    if (n > FB_MAX_SIZE - 8) {
        w->toobig = 1;
        return 0;
    }
    pad_to(w, 4, 0);
    size_t pos = w->len;
    uint8_t *p = reserve(w, 4 + n + 1);
    if (!p) return 0;
    lgi_wr_u32(p, (uint32_t)n);
    memcpy(p + 4, s, n);
    return pos;
}

/* A vector of n uoffsets to tables, all placeholders; element i's slot is pos + 4 + 4i. */
static size_t vec_refs(fbw *w, uint32_t n) {
    if ((size_t)n > (FB_MAX_SIZE - 4) / 4) {
        w->toobig = 1;
        return 0;
    }
    pad_to(w, 4, 0);
    size_t pos = w->len;
    uint8_t *p = reserve(w, 4 + 4 * (size_t)n);
    if (p) lgi_wr_u32(p, n);
    return pos;
}

#define ELEM_SLOT(vpos, i) ((vpos) + 4 + 4 * (size_t)(i))

/* ------------------------------------------------------------------ tables */

#define TB_MAX 24  /* fields of the largest table we write (StablehloConvolutionOptions: 17) */
#define TB_MAX_ID 63

typedef struct tbf {
    uint16_t id;
    uint8_t size;  /* 1, 2, 4, 8; offsets are 4 */
    uint64_t bits; /* scalar value, little-endian order when stored */
    size_t pos;    /* absolute position once the table is written */
} tbf;

typedef struct tb {
    tbf f[TB_MAX];
    int n;
    int overflow;  /* more fields than TB_MAX (our bug): tb_end fails the write */
} tb;

static int tb_add(tb *t, unsigned id, unsigned size, uint64_t bits) {
    if (t->n >= TB_MAX || id > TB_MAX_ID) {
        t->overflow = 1;
        return 0;
    }
    tbf *f = &t->f[t->n];
    f->id = (uint16_t)id;
    f->size = (uint8_t)size;
    f->bits = bits;
    f->pos = 0;
    return t->n++;
}

/* A scalar field, stored when it differs from the default or the source stored it. */
static void tb_scalar(tb *t, unsigned id, unsigned size, uint64_t bits, uint64_t def_bits,
                      uint64_t present) {
    if (bits != def_bits || ((present >> id) & 1u)) tb_add(t, id, size, bits);
}

/* An offset field (placeholder); returns its index for tb_link after tb_end. */
static int tb_ref(tb *t, unsigned id) { return tb_add(t, id, 4, 0); }

static uint32_t fnv1a(const uint8_t *p, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

/* Position of a vtable identical to vt (writing it if it is new), 0 on failure. */
static size_t vtable(fbw *w, const uint8_t *vt, size_t n) {
    uint32_t h = fnv1a(vt, n);
    if (w->vt_cap) {
        for (size_t i = h & (w->vt_cap - 1); w->vt[i]; i = (i + 1) & (w->vt_cap - 1)) {
            size_t p = w->vt[i] - 1;
            const uint8_t *q = at(w, p);
            if (lgi_rd_u16(q) == n && memcmp(q, vt, n) == 0) return p;
        }
    }
    if (w->vt_n * 2 + 2 > w->vt_cap) {
        size_t nc = w->vt_cap ? w->vt_cap * 2 : 256;
        size_t *nt = calloc(nc, sizeof *nt);
        if (!nt) {
            w->oom = 1;
            return 0;
        }
        for (size_t i = 0; i < w->vt_cap; i++) {
            if (!w->vt[i]) continue;
            const uint8_t *q = at(w, w->vt[i] - 1);
            size_t j = fnv1a(q, lgi_rd_u16(q)) & (nc - 1);
            while (nt[j]) j = (j + 1) & (nc - 1);
            nt[j] = w->vt[i];
        }
        free(w->vt);
        w->vt = nt;
        w->vt_cap = nc;
    }
    pad_to(w, 2, 0);
    size_t pos = w->len;
    uint8_t *p = reserve(w, n);
    if (!p) return 0;
    memcpy(p, vt, n);
    size_t i = h & (w->vt_cap - 1);
    while (w->vt[i]) i = (i + 1) & (w->vt_cap - 1);
    w->vt[i] = pos + 1;
    w->vt_n++;
    return pos;
}

/* Write the table (vtable first, unless shared); fills f[].pos; returns the table's position. */
static size_t tb_end(fbw *w, tb *t) {
    if (t->overflow) w->bug = 1;
    /* field order in the table: larger fields first (no padding between them), then by id */
    int order[TB_MAX];
    for (int i = 0; i < t->n; i++) {
        int j = i;
        while (j > 0) {
            const tbf *a = &t->f[order[j - 1]], *b = &t->f[i];
            if (a->size > b->size || (a->size == b->size && a->id < b->id)) break;
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    size_t rel[TB_MAX];
    size_t off = 4, align = 4;
    int max_id = -1;
    for (int k = 0; k < t->n; k++) {
        const tbf *f = &t->f[order[k]];
        off = (off + f->size - 1) & ~(size_t)(f->size - 1);
        rel[order[k]] = off;
        off += f->size;
        if (f->size == 8) align = 8;
        if (f->id > max_id) max_id = f->id;
    }
    uint8_t vt[4 + 2 * (TB_MAX_ID + 1)];
    size_t vn = 4 + 2 * (size_t)(max_id + 1);
    memset(vt, 0, vn);
    lgi_wr_u16(vt, (uint16_t)vn);
    lgi_wr_u16(vt + 2, (uint16_t)off);
    for (int i = 0; i < t->n; i++) lgi_wr_u16(vt + 4 + 2 * t->f[i].id, (uint16_t)rel[i]);
    size_t vpos = vtable(w, vt, vn);
    pad_to(w, align, 0);
    size_t pos = w->len;
    uint8_t *p = reserve(w, off);
    if (!p) return 0;
    lgi_wr_u32(p, (uint32_t)(int32_t)(pos - vpos)); /* soffset: vtable = table - soffset */
    for (int i = 0; i < t->n; i++) {
        tbf *f = &t->f[i];
        uint8_t *q = p + rel[i];
        switch (f->size) {
        case 1: q[0] = (uint8_t)f->bits; break;
        case 2: lgi_wr_u16(q, (uint16_t)f->bits); break;
        case 4: lgi_wr_u32(q, (uint32_t)f->bits); break;
        default: lgi_wr_u64(q, f->bits); break;
        }
        f->pos = pos + rel[i];
    }
    return pos;
}

static void tb_link(fbw *w, const tb *t, int k, size_t target) {
    if (k >= 0) link_to(w, t->f[k].pos, target);
}

/* Scalar conversions to stored bits. */
static uint64_t bits_i8(int v) { return (uint8_t)(int8_t)v; }
static uint64_t bits_i32(int32_t v) { return (uint32_t)v; }
static uint64_t bits_f32(float v) { uint32_t b; memcpy(&b, &v, 4); return b; }
static uint64_t bits_f64(double v) { uint64_t b; memcpy(&b, &v, 8); return b; }

/* ------------------------------------------------------------------ options (generic) */

/* Stored bits and size of a scalar field of an options struct, and of its default. */
static unsigned field_bits(const void *st, const lgi_field_desc *f, uint64_t *bits,
                           uint64_t *def) {
    const uint8_t *p = (const uint8_t *)st + f->offset;
    double d = f->def;
    *bits = *def = 0;
    switch ((lgi_field_kind)f->kind) {
    case LGI_F_BOOL: { bool x; memcpy(&x, p, 1); *bits = x ? 1 : 0; *def = d != 0; return 1; }
    case LGI_F_I8: { int8_t x; memcpy(&x, p, 1); *bits = (uint8_t)x; *def = (uint8_t)(int8_t)d; return 1; }
    case LGI_F_U8: { uint8_t x; memcpy(&x, p, 1); *bits = x; *def = (uint8_t)d; return 1; }
    case LGI_F_I16: { int16_t x; memcpy(&x, p, 2); *bits = (uint16_t)x; *def = (uint16_t)(int16_t)d; return 2; }
    case LGI_F_U16: { uint16_t x; memcpy(&x, p, 2); *bits = x; *def = (uint16_t)d; return 2; }
    case LGI_F_I32: { int32_t x; memcpy(&x, p, 4); *bits = (uint32_t)x; *def = (uint32_t)(int32_t)d; return 4; }
    case LGI_F_U32: { uint32_t x; memcpy(&x, p, 4); *bits = x; *def = (uint32_t)d; return 4; }
    case LGI_F_I64: { int64_t x; memcpy(&x, p, 8); *bits = (uint64_t)x; *def = (uint64_t)(int64_t)d; return 8; }
    case LGI_F_U64: { uint64_t x; memcpy(&x, p, 8); *bits = x; *def = (uint64_t)d; return 8; }
    case LGI_F_F32: { float x; memcpy(&x, p, 4); *bits = bits_f32(x); *def = bits_f32((float)d); return 4; }
    case LGI_F_F64: { double x; memcpy(&x, p, 8); *bits = bits_f64(x); *def = bits_f64(d); return 8; }
    default: return 0;
    }
}

/* An options table (BuiltinOptions, BuiltinOptions2 or QuantizationDetails member).
   opts == NULL writes an empty table (all defaults). */
static size_t w_opts(fbw *w, lg_opts_kind kind, const void *opts, uint64_t present,
                     unsigned vec_align) {
    const lgi_table_desc *d = lgi_opts_table(kind);
    if (!d) { w->bug = 1; return 0; } /* the validator rejects unknown kinds */
    tb t = {0};
    int ref[TB_MAX];
    int nf = 0;
    for (const lgi_field_desc *f = d->fields; opts && f->name; f++, nf++) {
        if (nf >= TB_MAX) { w->bug = 1; return 0; }
        ref[nf] = -1;
        const uint8_t *p = (const uint8_t *)opts + f->offset;
        if (f->kind == LGI_F_STRING) {
            const char *s;
            memcpy(&s, p, sizeof s);
            if (s) ref[nf] = tb_ref(&t, f->id);
        } else if (lgi_field_is_vec((lgi_field_kind)f->kind)) {
            lg_vec v;
            memcpy(&v, p, sizeof v);
            if (v.data) ref[nf] = tb_ref(&t, f->id);
        } else {
            uint64_t bits, def;
            unsigned size = field_bits(opts, f, &bits, &def);
            tb_scalar(&t, f->id, size, bits, def, present);
        }
    }
    size_t pos = tb_end(w, &t);
    nf = 0;
    for (const lgi_field_desc *f = d->fields; opts && f->name; f++, nf++) {
        if (ref[nf] < 0) continue;
        const uint8_t *p = (const uint8_t *)opts + f->offset;
        if (f->kind == LGI_F_STRING) {
            const char *s;
            memcpy(&s, p, sizeof s);
            tb_link(w, &t, ref[nf], str(w, s));
        } else {
            lg_vec v;
            memcpy(&v, p, sizeof v);
            size_t es = lgi_field_elem_size((lgi_field_kind)f->kind);
            tb_link(w, &t, ref[nf], vec_raw(w, v.data, v.n, es, vec_align));
        }
    }
    return pos;
}

/* ------------------------------------------------------------------ the TFLite tables */

static size_t w_quant(fbw *w, const lg_quant *q) {
    tb t = {0};
    uint64_t pr = q->fb_present;
    int k_min = q->min ? tb_ref(&t, FB_QUANT_MIN) : -1;
    int k_max = q->max ? tb_ref(&t, FB_QUANT_MAX) : -1;
    int k_scale = q->scale ? tb_ref(&t, FB_QUANT_SCALE) : -1;
    int k_zp = q->zero_point ? tb_ref(&t, FB_QUANT_ZERO_POINT) : -1;
    int has_details = q->details_kind != LG_OPTS_NONE;
    uint64_t dtype = has_details ? (uint64_t)(q->details_kind - (LG_QDETAILS_CUSTOM_QUANTIZATION - 1)) : 0;
    tb_scalar(&t, FB_QUANT_DETAILS_TYPE, 1, dtype, 0, pr);
    int k_det = has_details ? tb_ref(&t, FB_QUANT_DETAILS) : -1;
    tb_scalar(&t, FB_QUANT_QUANTIZED_DIMENSION, 4, bits_i32(q->quantized_dimension), 0, pr);
    size_t pos = tb_end(w, &t);
    if (k_min >= 0) tb_link(w, &t, k_min, vec_raw(w, q->min, q->n_min, 4, 4));
    if (k_max >= 0) tb_link(w, &t, k_max, vec_raw(w, q->max, q->n_max, 4, 4));
    if (k_scale >= 0) tb_link(w, &t, k_scale, vec_raw(w, q->scale, q->n_scale, 4, 4));
    if (k_zp >= 0) tb_link(w, &t, k_zp, vec_raw(w, q->zero_point, q->n_zero_point, 8, 8));
    /* CustomQuantization.custom is force_align 16 */
    if (k_det >= 0) tb_link(w, &t, k_det, w_opts(w, q->details_kind, q->details, q->details_present, 16));
    return pos;
}

/* A SparseIndexVector member: a table with values (id 0). type: 1 int32, 2 uint16, 3 uint8. */
static size_t w_index_vec(fbw *w, uint8_t type, const int32_t *v, uint32_t n) {
    tb t = {0};
    int k = v ? tb_ref(&t, 0) : -1;
    size_t pos = tb_end(w, &t);
    size_t es = type == FB_SPARSE_INDEX_UINT16 ? 2 : type == FB_SPARSE_INDEX_UINT8 ? 1 : 4;
    if (k >= 0) tb_link(w, &t, k, vec_i32_narrow(w, v, n, es));
    return pos;
}

static size_t w_dim_meta(fbw *w, const lg_dim_meta *d) {
    tb t = {0};
    uint64_t pr = d->fb_present;
    tb_scalar(&t, FB_DIMMETA_FORMAT, 1, bits_i8(d->format), 0, pr);
    tb_scalar(&t, FB_DIMMETA_DENSE_SIZE, 4, bits_i32(d->dense_size), 0, pr);
    tb_scalar(&t, FB_DIMMETA_SEGMENTS_TYPE, 1, d->segments_type, 0, pr);
    int k_seg = d->segments_type ? tb_ref(&t, FB_DIMMETA_SEGMENTS) : -1;
    tb_scalar(&t, FB_DIMMETA_INDICES_TYPE, 1, d->indices_type, 0, pr);
    int k_idx = d->indices_type ? tb_ref(&t, FB_DIMMETA_INDICES) : -1;
    size_t pos = tb_end(w, &t);
    if (k_seg >= 0) tb_link(w, &t, k_seg, w_index_vec(w, d->segments_type, d->segments, d->n_segments));
    if (k_idx >= 0) tb_link(w, &t, k_idx, w_index_vec(w, d->indices_type, d->indices, d->n_indices));
    return pos;
}

static size_t w_sparsity(fbw *w, const lg_sparsity *s) {
    tb t = {0};
    int k_to = s->traversal_order ? tb_ref(&t, FB_SPARSITY_TRAVERSAL_ORDER) : -1;
    int k_bm = s->block_map ? tb_ref(&t, FB_SPARSITY_BLOCK_MAP) : -1;
    int k_dm = s->dim_metadata ? tb_ref(&t, FB_SPARSITY_DIM_METADATA) : -1;
    size_t pos = tb_end(w, &t);
    if (k_to >= 0) tb_link(w, &t, k_to, vec_i32(w, s->traversal_order, s->n_traversal_order));
    if (k_bm >= 0) tb_link(w, &t, k_bm, vec_i32(w, s->block_map, s->n_block_map));
    if (k_dm >= 0) {
        size_t v = vec_refs(w, s->n_dim_metadata);
        tb_link(w, &t, k_dm, v);
        for (uint32_t i = 0; i < s->n_dim_metadata; i++)
            link_to(w, ELEM_SLOT(v, i), w_dim_meta(w, &s->dim_metadata[i]));
    }
    return pos;
}

static size_t w_variant(fbw *w, const lg_variant_subtype *v) {
    tb t = {0};
    int k_shape = v->shape ? tb_ref(&t, FB_VARIANT_SHAPE) : -1;
    tb_scalar(&t, FB_VARIANT_TYPE, 1, bits_i8(v->type), 0, v->fb_present);
    tb_scalar(&t, FB_VARIANT_HAS_RANK, 1, v->has_rank ? 1 : 0, 0, v->fb_present);
    size_t pos = tb_end(w, &t);
    if (k_shape >= 0) tb_link(w, &t, k_shape, vec_i32(w, v->shape, v->rank));
    return pos;
}

static size_t w_tensor(fbw *w, const lg_tensor *x) {
    tb t = {0};
    uint64_t pr = x->fb_present;
    int k_shape = x->shape ? tb_ref(&t, FB_TENSOR_SHAPE) : -1;
    tb_scalar(&t, FB_TENSOR_TYPE, 1, bits_i8(x->type), 0, pr);
    tb_scalar(&t, FB_TENSOR_BUFFER, 4, x->buffer, 0, pr);
    int k_name = x->name ? tb_ref(&t, FB_TENSOR_NAME) : -1;
    int k_q = x->quant ? tb_ref(&t, FB_TENSOR_QUANTIZATION) : -1;
    tb_scalar(&t, FB_TENSOR_IS_VARIABLE, 1, x->is_variable ? 1 : 0, 0, pr);
    int k_sp = x->sparsity ? tb_ref(&t, FB_TENSOR_SPARSITY) : -1;
    int k_sig = x->shape_signature ? tb_ref(&t, FB_TENSOR_SHAPE_SIGNATURE) : -1;
    tb_scalar(&t, FB_TENSOR_HAS_RANK, 1, x->has_rank ? 1 : 0, 0, pr);
    int k_var = x->variant_tensors ? tb_ref(&t, FB_TENSOR_VARIANT_TENSORS) : -1;
    tb_scalar(&t, FB_TENSOR_EXTERNAL_BUFFER, 4, x->external_buffer, 0, pr);
    size_t pos = tb_end(w, &t);
    if (k_shape >= 0) tb_link(w, &t, k_shape, vec_i32(w, x->shape, x->rank));
    if (k_name >= 0) tb_link(w, &t, k_name, str(w, x->name));
    if (k_q >= 0) tb_link(w, &t, k_q, w_quant(w, x->quant));
    if (k_sp >= 0) tb_link(w, &t, k_sp, w_sparsity(w, x->sparsity));
    if (k_sig >= 0) tb_link(w, &t, k_sig, vec_i32(w, x->shape_signature, x->n_shape_signature));
    if (k_var >= 0) {
        size_t v = vec_refs(w, x->n_variant_tensors);
        tb_link(w, &t, k_var, v);
        for (uint32_t i = 0; i < x->n_variant_tensors; i++)
            link_to(w, ELEM_SLOT(v, i), w_variant(w, &x->variant_tensors[i]));
    }
    return pos;
}

static void add_blob(fbw *w, const uint8_t *data, uint64_t size, size_t off_slot,
                     size_t size_slot) {
    if (failed(w)) return;
    if (w->n_blobs == w->cap_blobs) {
        size_t nc = w->cap_blobs ? w->cap_blobs * 2 : 16;
        blob *b = realloc(w->blobs, nc * sizeof *b);
        if (!b) {
            w->oom = 1;
            return;
        }
        w->blobs = b;
        w->cap_blobs = nc;
    }
    blob *b = &w->blobs[w->n_blobs++];
    b->data = data;
    b->size = size;
    b->off_slot = off_slot;
    b->size_slot = size_slot;
    b->offset = 0;
}

static size_t w_op(fbw *w, const lg_op *op) {
    tb t = {0};
    uint64_t pr = op->fb_present;
    int k1 = (int)op->opts_kind >= 1 && (int)op->opts_kind < LG_OPTS_2_BASE;
    int k2 = (int)op->opts_kind > LG_OPTS_2_BASE;
    /* options the source stored after the flatbuffer go there again */
    int large = op->custom_options_large && op->custom_options && op->n_custom_options;
    tb_scalar(&t, FB_OP_OPCODE_INDEX, 4, op->opcode_index, 0, pr);
    int k_in = op->inputs ? tb_ref(&t, FB_OP_INPUTS) : -1;
    int k_out = op->outputs ? tb_ref(&t, FB_OP_OUTPUTS) : -1;
    tb_scalar(&t, FB_OP_BUILTIN_OPTIONS_TYPE, 1, k1 ? (uint64_t)op->opts_kind : 0, 0, pr);
    int k_o1 = k1 ? tb_ref(&t, FB_OP_BUILTIN_OPTIONS) : -1;
    int k_co = op->custom_options && !large ? tb_ref(&t, FB_OP_CUSTOM_OPTIONS) : -1;
    tb_scalar(&t, FB_OP_CUSTOM_OPTIONS_FORMAT, 1, bits_i8(op->custom_options_format), 0, pr);
    int k_mut = op->mutating_variable_inputs ? tb_ref(&t, FB_OP_MUTATING_VARIABLE_INPUTS) : -1;
    int k_im = op->intermediates ? tb_ref(&t, FB_OP_INTERMEDIATES) : -1;
    int k_loff = -1, k_lsize = -1;
    if (large) {
        k_loff = tb_add(&t, FB_OP_LARGE_CUSTOM_OPTIONS_OFFSET, 8, 0);
        k_lsize = tb_add(&t, FB_OP_LARGE_CUSTOM_OPTIONS_SIZE, 8, 0);
    } else {
        tb_scalar(&t, FB_OP_LARGE_CUSTOM_OPTIONS_OFFSET, 8, 0, 0, pr);
        tb_scalar(&t, FB_OP_LARGE_CUSTOM_OPTIONS_SIZE, 8, 0, 0, pr);
    }
    tb_scalar(&t, FB_OP_BUILTIN_OPTIONS_2_TYPE, 1,
              k2 ? (uint64_t)((int)op->opts_kind - LG_OPTS_2_BASE) : 0, 0, pr);
    int k_o2 = k2 ? tb_ref(&t, FB_OP_BUILTIN_OPTIONS_2) : -1;
    tb_scalar(&t, FB_OP_DEBUG_METADATA_INDEX, 4, bits_i32(op->debug_metadata_index),
              bits_i32(FB_DEBUG_METADATA_INDEX_DEFAULT), pr);
    size_t pos = tb_end(w, &t);
    if (large) add_blob(w, op->custom_options, op->n_custom_options, t.f[k_loff].pos, t.f[k_lsize].pos);
    if (k_in >= 0) tb_link(w, &t, k_in, vec_i32(w, op->inputs, op->n_inputs));
    if (k_out >= 0) tb_link(w, &t, k_out, vec_i32(w, op->outputs, op->n_outputs));
    if (k_o1 >= 0) tb_link(w, &t, k_o1, w_opts(w, op->opts_kind, op->opts, op->opts_present, 4));
    if (k_co >= 0) tb_link(w, &t, k_co, vec_raw(w, op->custom_options, op->n_custom_options, 1, 4));
    if (k_mut >= 0)
        tb_link(w, &t, k_mut, vec_raw(w, op->mutating_variable_inputs,
                                      op->n_mutating_variable_inputs, 1, 4));
    if (k_im >= 0) tb_link(w, &t, k_im, vec_i32(w, op->intermediates, op->n_intermediates));
    if (k_o2 >= 0) tb_link(w, &t, k_o2, w_opts(w, op->opts_kind, op->opts, op->opts_present, 4));
    return pos;
}

static size_t w_subgraph(fbw *w, const lg_subgraph *sg) {
    tb t = {0};
    uint64_t pr = sg->fb_present;
    int k_t = sg->tensors ? tb_ref(&t, FB_SUBGRAPH_TENSORS) : -1;
    int k_in = sg->inputs ? tb_ref(&t, FB_SUBGRAPH_INPUTS) : -1;
    int k_out = sg->outputs ? tb_ref(&t, FB_SUBGRAPH_OUTPUTS) : -1;
    int k_ops = sg->ops ? tb_ref(&t, FB_SUBGRAPH_OPERATORS) : -1;
    int k_name = sg->name ? tb_ref(&t, FB_SUBGRAPH_NAME) : -1;
    tb_scalar(&t, FB_SUBGRAPH_DEBUG_METADATA_INDEX, 4, bits_i32(sg->debug_metadata_index),
              bits_i32(FB_DEBUG_METADATA_INDEX_DEFAULT), pr);
    size_t pos = tb_end(w, &t);
    if (k_t >= 0) {
        size_t v = vec_refs(w, sg->n_tensors);
        tb_link(w, &t, k_t, v);
        for (uint32_t i = 0; i < sg->n_tensors; i++)
            link_to(w, ELEM_SLOT(v, i), w_tensor(w, &sg->tensors[i]));
    }
    if (k_in >= 0) tb_link(w, &t, k_in, vec_i32(w, sg->inputs, sg->n_inputs));
    if (k_out >= 0) tb_link(w, &t, k_out, vec_i32(w, sg->outputs, sg->n_outputs));
    if (k_ops >= 0) {
        size_t v = vec_refs(w, sg->n_ops);
        tb_link(w, &t, k_ops, v);
        for (uint32_t i = 0; i < sg->n_ops; i++) link_to(w, ELEM_SLOT(v, i), w_op(w, &sg->ops[i]));
    }
    if (k_name >= 0) tb_link(w, &t, k_name, str(w, sg->name));
    return pos;
}

static size_t w_opcode(fbw *w, const lg_opcode *oc) {
    tb t = {0};
    uint64_t pr = oc->fb_present;
    tb_scalar(&t, FB_OPCODE_DEPRECATED_BUILTIN_CODE, 1, bits_i8(oc->deprecated_builtin_code), 0, pr);
    int k_cc = oc->custom_code ? tb_ref(&t, FB_OPCODE_CUSTOM_CODE) : -1;
    tb_scalar(&t, FB_OPCODE_VERSION, 4, bits_i32(oc->version), FB_OPCODE_VERSION_DEFAULT, pr);
    tb_scalar(&t, FB_OPCODE_BUILTIN_CODE, 4, bits_i32(oc->builtin_code), 0, pr);
    size_t pos = tb_end(w, &t);
    if (k_cc >= 0) tb_link(w, &t, k_cc, str(w, oc->custom_code));
    return pos;
}

/* Data goes after the flatbuffer when the source had it there, or in external mode
   (metadata buffers excepted: runtimes read those through Buffer.data). */
static size_t w_buffer(fbw *w, const lg_buffer *b, int is_metadata, int omit) {
    tb t = {0};
    uint64_t pr = b->fb_present;
    int ext = b->data && b->size > 0 && (b->external || (w->external_all && !is_metadata));
    int k_data = b->data && !ext ? tb_ref(&t, FB_BUFFER_DATA) : -1;
    int k_off = -1, k_size = -1;
    if (ext) {
        k_off = tb_add(&t, FB_BUFFER_OFFSET, 8, 0);
        k_size = tb_add(&t, FB_BUFFER_SIZE, 8, 0);
    } else {
        tb_scalar(&t, FB_BUFFER_OFFSET, 8, 0, 0, pr);
        tb_scalar(&t, FB_BUFFER_SIZE, 8, 0, 0, pr);
    }
    size_t pos = tb_end(w, &t);
    if (ext) add_blob(w, b->data, omit ? 0 : b->size, t.f[k_off].pos, t.f[k_size].pos);
    if (k_data >= 0) {
        if (b->size > FB_MAX_SIZE) {
            w->toobig = 1;
            return 0;
        }
        tb_link(w, &t, k_data, vec_raw(w, b->data, omit ? 0 : (uint32_t)b->size, 1, 16));
    }
    return pos;
}

static size_t w_tensor_maps(fbw *w, const lg_tensor_map *v, uint32_t n) {
    size_t vp = vec_refs(w, n);
    for (uint32_t i = 0; i < n; i++) {
        tb t = {0};
        int k_name = v[i].name ? tb_ref(&t, FB_TENSORMAP_NAME) : -1;
        tb_scalar(&t, FB_TENSORMAP_TENSOR_INDEX, 4, v[i].tensor_index, 0, v[i].fb_present);
        size_t pos = tb_end(w, &t);
        link_to(w, ELEM_SLOT(vp, i), pos);
        if (k_name >= 0) tb_link(w, &t, k_name, str(w, v[i].name));
    }
    return vp;
}

static size_t w_signature(fbw *w, const lg_signature *s) {
    tb t = {0};
    int k_in = s->inputs ? tb_ref(&t, FB_SIGDEF_INPUTS) : -1;
    int k_out = s->outputs ? tb_ref(&t, FB_SIGDEF_OUTPUTS) : -1;
    int k_key = s->key ? tb_ref(&t, FB_SIGDEF_SIGNATURE_KEY) : -1;
    tb_scalar(&t, FB_SIGDEF_SUBGRAPH_INDEX, 4, s->subgraph_index, 0, s->fb_present);
    size_t pos = tb_end(w, &t);
    if (k_in >= 0) tb_link(w, &t, k_in, w_tensor_maps(w, s->inputs, s->n_inputs));
    if (k_out >= 0) tb_link(w, &t, k_out, w_tensor_maps(w, s->outputs, s->n_outputs));
    if (k_key >= 0) tb_link(w, &t, k_key, str(w, s->key));
    return pos;
}

static size_t w_ext_buffer(fbw *w, const lg_external_buffer *e) {
    tb t = {0};
    uint64_t pr = e->fb_present;
    tb_scalar(&t, FB_EXTBUF_ID, 4, e->id, 0, pr);
    tb_scalar(&t, FB_EXTBUF_GROUP, 4, e->group, 0, pr);
    tb_scalar(&t, FB_EXTBUF_OFFSET, 8, e->offset, 0, pr);
    tb_scalar(&t, FB_EXTBUF_LENGTH, 8, e->length, 0, pr);
    int k_p = e->packing ? tb_ref(&t, FB_EXTBUF_PACKING) : -1;
    size_t pos = tb_end(w, &t);
    if (k_p >= 0) tb_link(w, &t, k_p, str(w, e->packing));
    return pos;
}

static size_t w_model(fbw *w, const lg_model *m) {
    tb t = {0};
    uint64_t pr = m->fb_present;
    tb_scalar(&t, FB_MODEL_VERSION, 4, m->version, 0, pr);
    int k_oc = m->opcodes ? tb_ref(&t, FB_MODEL_OPERATOR_CODES) : -1;
    int k_sg = m->subgraphs ? tb_ref(&t, FB_MODEL_SUBGRAPHS) : -1;
    int k_desc = m->description ? tb_ref(&t, FB_MODEL_DESCRIPTION) : -1;
    int k_buf = m->buffers ? tb_ref(&t, FB_MODEL_BUFFERS) : -1;
    int k_mb = m->metadata_buffer ? tb_ref(&t, FB_MODEL_METADATA_BUFFER) : -1;
    int k_md = m->metadata ? tb_ref(&t, FB_MODEL_METADATA) : -1;
    int k_sig = m->signatures ? tb_ref(&t, FB_MODEL_SIGNATURE_DEFS) : -1;
    int k_eg = m->external_buffer_groups ? tb_ref(&t, FB_MODEL_EXTERNAL_BUFFER_GROUPS) : -1;
    int k_eb = m->external_buffers ? tb_ref(&t, FB_MODEL_EXTERNAL_BUFFERS) : -1;
    size_t pos = tb_end(w, &t);
    size_t v;
    if (k_oc >= 0) {
        tb_link(w, &t, k_oc, v = vec_refs(w, m->n_opcodes));
        for (uint32_t i = 0; i < m->n_opcodes; i++)
            link_to(w, ELEM_SLOT(v, i), w_opcode(w, &m->opcodes[i]));
    }
    if (k_sg >= 0) {
        tb_link(w, &t, k_sg, v = vec_refs(w, m->n_subgraphs));
        for (uint32_t i = 0; i < m->n_subgraphs; i++)
            link_to(w, ELEM_SLOT(v, i), w_subgraph(w, &m->subgraphs[i]));
    }
    if (k_desc >= 0) tb_link(w, &t, k_desc, str(w, m->description));
    if (k_buf >= 0) {
        tb_link(w, &t, k_buf, v = vec_refs(w, m->n_buffers));
        for (uint32_t i = 0; i < m->n_buffers; i++) {
            const lg_buffer *b = &m->buffers[i];
            int meta = w->inline_only && w->inline_only[i];
            link_to(w, ELEM_SLOT(v, i), w_buffer(w, b, meta, w->omit && w->omit[i]));
        }
    }
    if (k_mb >= 0) tb_link(w, &t, k_mb, vec_i32(w, m->metadata_buffer, m->n_metadata_buffer));
    if (k_md >= 0) {
        tb_link(w, &t, k_md, v = vec_refs(w, m->n_metadata));
        for (uint32_t i = 0; i < m->n_metadata; i++) {
            const lg_metadata *md = &m->metadata[i];
            tb mt = {0};
            int k_name = md->name ? tb_ref(&mt, FB_METADATA_NAME) : -1;
            tb_scalar(&mt, FB_METADATA_BUFFER, 4, md->buffer, 0, md->fb_present);
            link_to(w, ELEM_SLOT(v, i), tb_end(w, &mt));
            if (k_name >= 0) tb_link(w, &mt, k_name, str(w, md->name));
        }
    }
    if (k_sig >= 0) {
        tb_link(w, &t, k_sig, v = vec_refs(w, m->n_signatures));
        for (uint32_t i = 0; i < m->n_signatures; i++)
            link_to(w, ELEM_SLOT(v, i), w_signature(w, &m->signatures[i]));
    }
    if (k_eg >= 0) {
        tb_link(w, &t, k_eg, v = vec_refs(w, m->n_external_buffer_groups));
        for (uint32_t i = 0; i < m->n_external_buffer_groups; i++) {
            const char *name = m->external_buffer_groups[i].name;
            tb gt = {0};
            int k_name = name ? tb_ref(&gt, FB_EXTGROUP_NAME) : -1;
            link_to(w, ELEM_SLOT(v, i), tb_end(w, &gt));
            if (k_name >= 0) tb_link(w, &gt, k_name, str(w, name));
        }
    }
    if (k_eb >= 0) {
        tb_link(w, &t, k_eb, v = vec_refs(w, m->n_external_buffers));
        for (uint32_t i = 0; i < m->n_external_buffers; i++)
            link_to(w, ELEM_SLOT(v, i), w_ext_buffer(w, &m->external_buffers[i]));
    }
    return pos;
}

/* ------------------------------------------------------------------ serialization */

static void fbw_reset(fbw *w) {
    free(w->buf);
    free(w->vt);
    free(w->blobs);
    free(w->spans);
    const uint8_t *io = w->inline_only, *om = w->omit;
    size_t sm = w->span_min;
    memset(w, 0, sizeof *w);
    w->inline_only = io;
    w->omit = om;
    w->span_min = sm;
}

static void fbw_free(fbw *w) {
    fbw_reset(w);
    free((void *)w->inline_only);
    w->inline_only = NULL;
}

static void build(fbw *w, const lg_model *m, int external_all) {
    w->external_all = external_all;
    uint8_t *h = reserve(w, 8); /* root uoffset, file identifier */
    if (h) memcpy(h + 4, "TFL3", 4);
    size_t root = w_model(w, m);
    link_to(w, 0, root);
}

static uint64_t align16(uint64_t x) { return (x + 15) & ~(uint64_t)15; }

/* Serialize m into w: the flatbuffer in w->buf (spans left out: w->spans), then w->blobs at
   their offsets.
   Returns the total file size through *total. */
static lg_status serialize(const lg_model *m, const lg_write_options *opt, fbw *w,
                           uint64_t *total, lg_error *err) {
    /* w->omit and w->span_min are the caller's */
    LG_TRY(lg_model_validate(m, err));
    if (!(opt && opt->unchecked_ops)) LG_TRY(lg_model_validate_ops(m, err));

    /* External mode: asked for, or the data alone would not fit the 2 GiB flatbuffer.
       (Buffers and custom options the source stored outside go outside in any mode.) */
    int ext = opt && opt->external_buffers;
    uint64_t inline_bytes = 0;
    for (uint32_t i = 0; i < m->n_buffers; i++)
        if (!m->buffers[i].external) inline_bytes += m->buffers[i].size + 32;
    for (uint32_t s = 0; s < m->n_subgraphs; s++)
        for (uint32_t i = 0; i < m->subgraphs[s].n_ops; i++) {
            const lg_op *op = &m->subgraphs[s].ops[i];
            if (!op->custom_options_large) inline_bytes += (uint64_t)op->n_custom_options + 8;
        }
    if (inline_bytes >= FB_MAX_SIZE) ext = 1;

    /* metadata buffers stay inline (runtimes read them through Buffer.data) */
    if (m->n_buffers && (m->n_metadata || m->n_metadata_buffer)) {
        uint8_t *io = calloc(m->n_buffers, 1);
        if (!io) return lgi_fail(err, LG_ERR_NOMEM, "out of memory writing the model");
        for (uint32_t i = 0; i < m->n_metadata; i++) io[m->metadata[i].buffer] = 1;
        for (uint32_t i = 0; i < m->n_metadata_buffer; i++) io[m->metadata_buffer[i]] = 1;
        w->inline_only = io;
    }

    build(w, m, ext);
    if (w->toobig && !ext) { /* the structure plus data passed 2 GiB: data goes outside */
        fbw_reset(w);
        build(w, m, 1);
    }
    if (w->bug) {
        fbw_free(w);
        return lgi_fail(err, LG_ERR_INTERNAL, "internal error writing the model (a litegpu bug: please report it)");
    }
    if (w->oom) {
        fbw_free(w);
        return lgi_fail(err, LG_ERR_NOMEM, "out of memory writing the model");
    }
    if (w->toobig) {
        fbw_free(w);
        return lgi_fail(err, LG_ERR_LIMIT, "the model's structure passes the 2 GiB flatbuffer limit");
    }
    uint64_t end = w->len;
    for (size_t i = 0; i < w->n_blobs; i++) {
        blob *b = &w->blobs[i];
        b->offset = align16(end);
        set_u64(w, b->off_slot, b->offset);
        set_u64(w, b->size_slot, b->size);
        end = b->offset + b->size;
    }
    *total = end;
    return LG_OK;
}

/* The whole file in one malloc'ed block (no spans: every byte is copied in). */
static lg_status write_mem(const lg_model *m, const lg_write_options *opt, const uint8_t *omit,
                           void **out, size_t *size, lg_error *err) {
    lgi_error_clear(err);
    if (!out || !size) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_tflite_write_mem: no output pointer");
    *out = NULL;
    *size = 0;
    fbw w;
    memset(&w, 0, sizeof w);
    w.omit = omit;
    uint64_t total;
    LG_TRY(serialize(m, opt, &w, &total, err));
    if (total > SIZE_MAX) {
        fbw_free(&w);
        return lgi_fail(err, LG_ERR_LIMIT, "the model (%llu bytes) does not fit in memory",
                        (unsigned long long)total);
    }
    uint8_t *buf = w.buf;
    if (w.n_blobs) {
        buf = realloc(w.buf, (size_t)total);
        if (!buf) {
            fbw_free(&w);
            return lgi_fail(err, LG_ERR_NOMEM, "out of memory writing the model (%llu bytes)",
                            (unsigned long long)total);
        }
        size_t at = w.len;
        for (size_t i = 0; i < w.n_blobs; i++) {
            const blob *b = &w.blobs[i];
            memset(buf + at, 0, (size_t)b->offset - at);
            memcpy(buf + b->offset, b->data, (size_t)b->size);
            at = (size_t)(b->offset + b->size);
        }
    } else {
        uint8_t *fit = realloc(buf, w.len); /* give back the growth slack */
        if (fit) buf = fit;
    }
    w.buf = NULL;
    fbw_free(&w);
    *out = buf;
    *size = (size_t)total;
    return LG_OK;
}

lg_status lg_tflite_write_mem(const lg_model *m, const lg_write_options *opt, void **out,
                              size_t *size, lg_error *err) {
    return write_mem(m, opt, NULL, out, size, err);
}

lg_status lgi_tflite_write_mem_omit(const lg_model *m, const lg_write_options *opt,
                                    const uint8_t *omit, void **out, size_t *size, lg_error *err) {
    return write_mem(m, opt, omit, out, size, err);
}

/* ------------------------------------------------------------------ files */

static int write_all(int fd, const uint8_t *p, uint64_t n) {
    while (n) {
        size_t chunk = n > ((size_t)1 << 30) ? ((size_t)1 << 30) : (size_t)n;
        ssize_t k = write(fd, p, chunk);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += k;
        n -= (uint64_t)k;
    }
    return 0;
}

static int write_zeros(int fd, uint64_t n) {
    static const uint8_t zeros[16];
    return write_all(fd, zeros, n);
}

lg_status lg_tflite_write_file(const lg_model *m, const char *path, const lg_write_options *opt,
                               lg_error *err) {
    lgi_error_clear(err);
    if (!path || !path[0]) return lgi_fail(err, LG_ERR_INVALID_ARG, "no output path given");
    if (!m) return lgi_fail(err, LG_ERR_INVALID_ARG, "%s: no model given", path);
    bool force = opt && opt->force;
    struct stat sb;
    if (stat(path, &sb) == 0) {
        const lgi_model_priv *p = m->priv;
        if (p && p->has_source && (uint64_t)sb.st_dev == p->src_dev &&
            (uint64_t)sb.st_ino == p->src_ino)
            return lgi_fail(err, LG_ERR_INVALID_ARG, "refusing to overwrite the input file %s", path);
    }
    /* the output rules (lg.h "files"): checked before the work, and again at the rename */
    LG_TRY(lg_output_check(path, force, err));

    /* The flatbuffer is built in memory without the constant data, which goes to the file
       straight from the model (spans): memory stays at the model's size, not twice it. */
    fbw w;
    memset(&w, 0, sizeof w);
    w.span_min = SPAN_MIN;
    uint64_t total;
    lg_status st = serialize(m, opt, &w, &total, err);
    if (st != LG_OK) {
        lgi_error_prefix(err, "%.1000s: ", path);
        return st;
    }
    char *tmp = NULL;
    int fd;
    st = lgi_tmp_create(path, &fd, &tmp, err);
    if (st != LG_OK) {
        fbw_free(&w);
        return st;
    }
    int bad = 0;
    size_t done = 0; /* bytes of w.buf written */
    for (size_t i = 0; !bad && i < w.n_spans; i++) {
        const span *sp = &w.spans[i];
        size_t upto = sp->pos - sp->skip; /* where the span sits in w.buf */
        bad = write_all(fd, w.buf + done, upto - done) || write_all(fd, sp->data, sp->size);
        done = upto;
    }
    if (!bad) bad = write_all(fd, w.buf + done, w.len - w.skipped - done);
    uint64_t at = w.len;
    for (size_t i = 0; !bad && i < w.n_blobs; i++) {
        const blob *b = &w.blobs[i];
        bad = write_zeros(fd, b->offset - at) || write_all(fd, b->data, b->size);
        at = b->offset + b->size;
    }
    if (bad) {
        st = lgi_fail(err, LG_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        close(fd);
        unlink(tmp);
    } else {
        st = lgi_tmp_commit(fd, tmp, path, force, true, err);
    }
    free(tmp);
    fbw_free(&w);
    return st;
}
