/* Storage of constant data (internal.h "storage of constant data"): reference-counted holds
   (blocks, file mappings, malloc'ed images), the per-model list of holds kept alive, and the
   release of those no buffer uses any more.

   Why: the arena never frees, so weights a rewrite replaced (an ONNX import transposing every
   convolution's weights, a fold) stayed for the model's life, and a copy of the model
   (lg_model_clone, the pass runner's working copy) had to copy every weight. A hold is freed
   when the last model keeping it is freed or lets it go; refcounts are atomic, so models
   sharing data may be freed from different threads. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "internal.h"

enum { HOLD_BLOCK = 1, HOLD_MAP = 2, HOLD_MALLOC = 3 };

struct lgi_hold {
    atomic_size_t refs;
    int kind;
    uint8_t *base;
    uint64_t len;
    lg_alloc_fn alloc; /* the allocator of this struct (and of a block's bytes); NULL: mapped */
    void *ud;
    size_t alloc_size;
};

/* With the default allocator, blocks from this size on are mapped pages of their own, so
   that releasing one gives the memory back to the system at once: the C library's heap keeps
   what is freed in its middle, and glibc's threshold for mapping an allocation moves up to
   the largest one freed, so a conversion that frees and allocates weights as it goes would
   end with tens of MiB freed but still resident. */
#define BLOCK_MAP_MIN ((size_t)128 * 1024)

/* a block's bytes follow its header, 16-aligned like arena allocations */
#define HOLD_HDR ((sizeof(lgi_hold) + 15) & ~(size_t)15)

static void hold_release(lgi_hold *h) {
    if (!h || atomic_fetch_sub(&h->refs, 1) != 1) return;
    if (h->kind == HOLD_MAP && h->base) munmap(h->base, (size_t)h->len);
    if (h->kind == HOLD_MALLOC) free(h->base);
    if (h->alloc) h->alloc(h->ud, h, h->alloc_size, 0);
    else munmap(h, h->alloc_size);
}

/* Room for one more entry in m's list. */
static int grow_refs(lg_model *m) {
    lgi_model_priv *p = m->priv;
    if (p->n_holds < p->cap_holds) return 1;
    uint32_t nc = p->cap_holds ? p->cap_holds * 2 : 8;
    if (nc <= p->cap_holds || nc > UINT32_MAX / 2) return 0;
    lgi_hold_ref *v = p->alloc(p->alloc_ud, p->holds, (size_t)p->cap_holds * sizeof *v,
                               (size_t)nc * sizeof *v);
    if (!v) return 0;
    p->holds = v;
    p->cap_holds = nc;
    return 1;
}

static lgi_hold *hold_alloc(lg_model *m, size_t extra) {
    lgi_model_priv *p = m->priv;
    if (extra > SIZE_MAX - HOLD_HDR) return NULL;
    size_t n = HOLD_HDR + extra;
    lgi_hold *h;
    lg_alloc_fn alloc = p->alloc;
    if (alloc == lgi_default_alloc && extra >= BLOCK_MAP_MIN) {
        void *a = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        h = a == MAP_FAILED ? NULL : a;
        alloc = NULL;
    } else {
        h = alloc(p->alloc_ud, NULL, 0, n);
    }
    if (!h) return NULL;
    atomic_init(&h->refs, 1);
    h->kind = 0;
    h->base = NULL;
    h->len = 0;
    h->alloc = alloc;
    h->ud = p->alloc_ud;
    h->alloc_size = n;
    return h;
}

uint8_t *lgi_block_new(lg_model *m, uint64_t size) {
    lgi_model_priv *p = m->priv;
    lgi_arena *a = &p->arena;
    if (size > SIZE_MAX - HOLD_HDR) return NULL;
    uint64_t cost = HOLD_HDR + size;
    if (a->limit && (a->used > a->limit || cost > a->limit - a->used)) {
        a->over_limit = 1;
        return NULL;
    }
    if (!grow_refs(m)) return NULL;
    lgi_hold *h = hold_alloc(m, (size_t)size);
    if (!h) return NULL;
    h->kind = HOLD_BLOCK;
    h->base = (uint8_t *)h + HOLD_HDR;
    h->len = size;
    a->used += cost;
    p->holds[p->n_holds++] = (lgi_hold_ref){h, cost, 1};
    return h->base;
}

static lg_status hold_ext(lg_model *m, int kind, void *base, size_t len, lg_error *err) {
    lgi_model_priv *p = m->priv;
    lgi_hold *h = grow_refs(m) ? hold_alloc(m, 0) : NULL;
    if (!h) return lgi_fail(err, LG_ERR_NOMEM, "out of memory keeping the model's storage");
    h->kind = kind;
    h->base = base;
    h->len = len;
    p->holds[p->n_holds++] = (lgi_hold_ref){h, 0, 0};
    return LG_OK;
}

lg_status lgi_hold_map(lg_model *m, void *base, size_t len, lg_error *err) {
    return hold_ext(m, HOLD_MAP, base, len, err);
}

lg_status lgi_hold_malloc(lg_model *m, void *base, size_t len, lg_error *err) {
    return hold_ext(m, HOLD_MALLOC, base, len, err);
}

void lgi_holds_release(lg_model *m) {
    lgi_model_priv *p = m->priv;
    for (uint32_t i = 0; i < p->n_holds; i++) hold_release(p->holds[i].h);
    if (p->holds) p->alloc(p->alloc_ud, p->holds, (size_t)p->cap_holds * sizeof *p->holds, 0);
    p->holds = NULL;
    p->n_holds = p->cap_holds = 0;
}

lg_status lgi_hold_share(lg_model *dst, lgi_hold *h, lg_error *err) {
    lgi_model_priv *p = dst->priv;
    if (!grow_refs(dst)) return lgi_fail(err, LG_ERR_NOMEM, "out of memory sharing constant data");
    atomic_fetch_add(&h->refs, 1);
    p->holds[p->n_holds++] = (lgi_hold_ref){h, 0, 1};
    return LG_OK;
}

/* ------------------------------------------------------------------ look-up */

static int by_base(const void *a, const void *b) {
    const uint8_t *x = (*(lgi_hold_ref *const *)a)->h->base, *y = (*(lgi_hold_ref *const *)b)->h->base;
    return x < y ? -1 : x > y;
}

static void sort_refs(const lg_model *m, lgi_hold_ref **idx) {
    const lgi_model_priv *p = m->priv;
    for (uint32_t i = 0; i < p->n_holds; i++) idx[i] = &p->holds[i];
    if (p->n_holds > 1) qsort(idx, p->n_holds, sizeof *idx, by_base);
}

lgi_hold_ref **lgi_holds_sorted(const lg_model *m) {
    lgi_hold_ref **idx = lgi_model_malloc(m, (size_t)m->priv->n_holds * sizeof *idx);
    if (idx) sort_refs(m, idx);
    return idx;
}

lgi_hold_ref *lgi_hold_find(lgi_hold_ref *const *idx, uint32_t n, const void *ptr, uint64_t size) {
    const uint8_t *p = ptr;
    if (!p || !n) return NULL;
    /* the last hold starting at or before p */
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (idx[mid]->h->base <= p) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return NULL;
    lgi_hold_ref *r = idx[lo - 1];
    uint64_t off = (uint64_t)(p - r->h->base);
    if (off > r->h->len || size > r->h->len - off) return NULL;
    return r;
}

/* ------------------------------------------------------------------ release of unused data */

size_t lgi_holds_gc_scratch(const lg_model *m) {
    return (size_t)m->priv->n_holds * (sizeof(lgi_hold_ref *) + 1);
}

void lgi_holds_gc(lg_model *m, void *scratch) {
    lgi_model_priv *p = m->priv;
    uint32_t n = p->n_holds;
    if (!n || !scratch) return;
    lgi_hold_ref **idx = scratch;
    uint8_t *used = (uint8_t *)scratch + (size_t)n * sizeof *idx;
    sort_refs(m, idx);
    memset(used, 0, n);
    for (uint32_t b = 0; b < m->n_buffers; b++) {
        const lg_buffer *buf = &m->buffers[b];
        if (!buf->data || !buf->size) continue;
        lgi_hold_ref *r = lgi_hold_find(idx, n, buf->data, buf->size);
        if (r) used[r - p->holds] = 1;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        lgi_hold_ref r = p->holds[i];
        if (r.data_only && !used[i]) {
            p->arena.used -= r.counted;
            hold_release(r.h);
        } else {
            p->holds[k++] = r;
        }
    }
    p->n_holds = k;
}
