/* Internal definitions shared by the library's modules. Not installed. */
#ifndef LGI_INTERNAL_H
#define LGI_INTERNAL_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "lg/lg.h"

#if defined(__GNUC__)
#define LG_INTERNAL __attribute__((visibility("hidden")))
#define LGI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define LG_INTERNAL
#define LGI_PRINTF(a, b)
#endif

/* No asserts that abort: a broken internal invariant (our own bug) returns LG_ERR_INTERNAL. */

/* ---- errors */
/* All in util/status.c. err may be NULL everywhere: then nothing is written and st is
   returned. Never write err->... fields directly elsewhere without `if (err)`; prefer these.
   Arguments must not point into err->msg (the buffers overlap). */
/* Leave a location field (subgraph, op, tensor) as it is. */
#define LGI_KEEP INT32_MIN
/* The core: err->status = st, each location field that is not LGI_KEEP, and the message
   (cut to fit err->msg). Returns st. */
LG_INTERNAL lg_status lgi_failv(lg_error *err, lg_status st, int32_t sg, int32_t op, int32_t tensor,
                                const char *fmt, va_list ap) LGI_PRINTF(6, 0);
/* Status and message; the location fields keep what the caller set (or cleared) before. */
LG_INTERNAL lg_status lgi_fail(lg_error *err, lg_status st, const char *fmt, ...) LGI_PRINTF(3, 4);
/* Status, location (-1 = not about one, LGI_KEEP = unchanged) and message. */
LG_INTERNAL lg_status lgi_fail_at(lg_error *err, lg_status st, int32_t sg, int32_t op, int32_t tensor,
                                  const char *fmt, ...) LGI_PRINTF(6, 7);
/* Put a formatted prefix (e.g. "file.tflite: ") before the message already in err, cutting the
   whole to fit; status and location are unchanged. */
LG_INTERNAL void lgi_error_prefix(lg_error *err, const char *fmt, ...) LGI_PRINTF(2, 3);
/* Status OK, location -1, empty message. */
LG_INTERNAL void lgi_error_clear(lg_error *err);
/* A name from a file fit for a one-line message: control bytes, quotes and backslashes
   escaped (\xNN), long names cut with "...". Use as lgi_printable(name).s inside one call
   (C11 temporary lifetime). */
typedef struct lgi_pname { char s[120]; } lgi_pname;
LG_INTERNAL lgi_pname lgi_printable(const char *name);
#define LG_TRY(expr) do { lg_status st_ = (expr); if (st_ != LG_OK) return st_; } while (0)

/* ---- allocation */
LG_INTERNAL void *lgi_default_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* A growable arena of chunks. Allocations are 16-byte aligned and zeroed. Returns NULL
   on allocator failure or when limit (bytes, 0 = none) would be passed; over_limit tells
   which. */
typedef struct lgi_chunk lgi_chunk;
typedef struct lgi_arena {
    lg_alloc_fn alloc;
    void *ud;
    lgi_chunk *head;
    uint64_t used;      /* bytes handed out, including chunk overhead */
    uint64_t limit;
    int over_limit;
} lgi_arena;

LG_INTERNAL void lgi_arena_init(lgi_arena *a, lg_alloc_fn alloc, void *ud, uint64_t limit);
LG_INTERNAL void lgi_arena_free(lgi_arena *a);
LG_INTERNAL void *lgi_arena_alloc(lgi_arena *a, size_t n);
/* Resize an allocation made by this arena (copying; in place when it is the last one). */
LG_INTERNAL void *lgi_arena_grow(lgi_arena *a, void *p, size_t old_n, size_t new_n);
LG_INTERNAL char *lgi_arena_strdup(lgi_arena *a, const char *s);
LG_INTERNAL void *lgi_arena_memdup(lgi_arena *a, const void *p, size_t n);

/* ---- model private part */
struct lgi_model_priv {
    lgi_arena arena;
    lg_alloc_fn alloc;
    void *alloc_ud;
    /* the storage this model keeps alive (ir/store.c): its constant data blocks, the mapping
       of the file it was read from, the image a clone was read from, and what it shares */
    struct lgi_hold_ref *holds;
    uint32_t n_holds, cap_holds;
    /* identity of the source file, so writers never overwrite it */
    int has_source;
    uint64_t src_dev, src_ino;
    char src_path[1024];
    /* builder capacities */
    uint32_t cap_subgraphs, cap_buffers, cap_opcodes, cap_metadata, cap_signatures;
};

/* ---- storage of constant data (ir/store.c)
   Buffer data of LGI_BLOCK_MIN bytes or more that the builder copies gets a block of its own
   (not the arena), so that compaction can give back what no buffer uses any more and a copy
   of the model (lg_model_clone) can share the bytes instead of copying them. A hold is one
   reference-counted range of memory: such a block, a file mapping (the reader), or a
   malloc'ed image (a clone's). A model lists the holds it keeps alive; its buffers' data
   point into them, into its arena, or into memory its caller keeps (lg_tflite_read_mem).
   Constant data is never written in place (edits make new buffers), which is what makes
   sharing safe. */
#define LGI_BLOCK_MIN 4096
typedef struct lgi_hold lgi_hold;
typedef struct lgi_hold_ref {
    lgi_hold *h;
    uint64_t counted; /* bytes counted against this model's arena limit (its own blocks) */
    uint8_t data_only; /* only buffer data points into it (not names): compaction may drop it */
} lgi_hold_ref;
/* A new block of size bytes (not zeroed) that m keeps; counted against the arena's limit
   (arena.over_limit set when that is what failed). NULL on failure. */
LG_INTERNAL uint8_t *lgi_block_new(lg_model *m, uint64_t size);
/* m keeps [base, base + len) alive and releases it with itself: a mapping (munmap) or a
   malloc'ed buffer (free). On failure (LG_ERR_NOMEM) the memory is NOT released. */
LG_INTERNAL lg_status lgi_hold_map(lg_model *m, void *base, size_t len, lg_error *err);
LG_INTERNAL lg_status lgi_hold_malloc(lg_model *m, void *base, size_t len, lg_error *err);
/* Release every hold of m (lg_model_free). */
LG_INTERNAL void lgi_holds_release(lg_model *m);
/* The hold of m whose range contains [p, p + n), or NULL. idx: m's holds sorted by start
   (lgi_holds_sorted: n_holds entries from the model's allocator, freed with
   lgi_model_mfree(m, idx, n_holds * sizeof *idx)); NULL on allocation failure. */
LG_INTERNAL lgi_hold_ref **lgi_holds_sorted(const lg_model *m);
LG_INTERNAL lgi_hold_ref *lgi_hold_find(lgi_hold_ref *const *idx, uint32_t n, const void *p, uint64_t size);
/* dst keeps h alive too (for buffer data dst shares with the model holding h); h must not
   be among dst's holds yet. */
LG_INTERNAL lg_status lgi_hold_share(lg_model *dst, lgi_hold *h, lg_error *err);
/* Drop the data-only holds no buffer of m points into. scratch: lgi_holds_gc_scratch(m)
   bytes from the model's allocator, allocated by the caller before it changes anything (so
   that a failure changes nothing); the call itself never fails. */
LG_INTERNAL size_t lgi_holds_gc_scratch(const lg_model *m);
LG_INTERNAL void lgi_holds_gc(lg_model *m, void *scratch);

/* Allocate a zeroed model with its arena. */
LG_INTERNAL lg_status lgi_model_alloc(lg_alloc_fn alloc, void *ud, uint64_t limit, lg_model **out,
                                      lg_error *err);
/* The model's allocator hook (lgi_default_alloc when it has none) and its user data: what the
   interpreter and compare allocate through. */
LG_INTERNAL lg_alloc_fn lgi_model_allocator(const lg_model *m, void **ud);
/* The empty-but-present vector sentinel (see the lg.h convention). */
extern const int32_t lgi_empty_vec[1];

/* Deep copy of an options struct into the model's arena (vectors and strings too). */
LG_INTERNAL void *lgi_opts_clone(lgi_arena *a, lg_opts_kind kind, const void *src);

/* Scratch memory through the model's allocator hook (not the arena): for indexes and
   temporaries that are freed before returning. n == 0 still allocates (1 byte). */
static inline void *lgi_model_malloc(const lg_model *m, size_t n) {
    return m->priv->alloc(m->priv->alloc_ud, NULL, 0, n ? n : 1);
}
static inline void lgi_model_mfree(const lg_model *m, void *p, size_t n) {
    if (p) m->priv->alloc(m->priv->alloc_ud, p, n ? n : 1, 0);
}

/* ---- little-endian scalar access (the file format is little-endian) */
static inline uint16_t lgi_rd_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t lgi_rd_u32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t lgi_rd_u64(const uint8_t *p) {
    return (uint64_t)lgi_rd_u32(p) | ((uint64_t)lgi_rd_u32(p + 4) << 32);
}
static inline void lgi_wr_u16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void lgi_wr_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void lgi_wr_u64(uint8_t *p, uint64_t v) { lgi_wr_u32(p, (uint32_t)v); lgi_wr_u32(p + 4, (uint32_t)(v >> 32)); }

#endif
