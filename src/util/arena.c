/* The arena allocator (status and error formatting: status.c). */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

struct lgi_chunk {
    lgi_chunk *next;
    size_t size;  /* usable bytes after the header */
    size_t used;
    size_t last;  /* offset of the last allocation (for in-place growth) */
    /* data follows, 16-aligned */
};

#define CHUNK_HDR (((sizeof(lgi_chunk) + 15) / 16) * 16)
#define CHUNK_MIN ((size_t)64 * 1024)

void *lgi_default_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud; (void)osize;
    if (nsize == 0) { free(ptr); return NULL; }
    return realloc(ptr, nsize);
}

void lgi_arena_init(lgi_arena *a, lg_alloc_fn alloc, void *ud, uint64_t limit) {
    memset(a, 0, sizeof *a);
    a->alloc = alloc ? alloc : lgi_default_alloc;
    a->ud = ud;
    a->limit = limit;
}

void lgi_arena_free(lgi_arena *a) {
    lgi_chunk *c = a->head;
    while (c) {
        lgi_chunk *next = c->next;
        a->alloc(a->ud, c, CHUNK_HDR + c->size, 0);
        c = next;
    }
    a->head = NULL;
    a->used = 0;
}

void *lgi_arena_alloc(lgi_arena *a, size_t n) {
    size_t need = (n + 15) & ~(size_t)15;
    if (need < n) return NULL; /* overflow */
    lgi_chunk *c = a->head;
    if (!c || c->size - c->used < need) {
        size_t sz = need > CHUNK_MIN ? need : CHUNK_MIN;
        if (sz > SIZE_MAX - CHUNK_HDR) return NULL;
        if (a->limit && a->used + CHUNK_HDR + sz > a->limit) {
            /* a smaller chunk may still fit the request */
            sz = need;
            if (a->used + CHUNK_HDR + sz > a->limit) { a->over_limit = 1; return NULL; }
        }
        c = a->alloc(a->ud, NULL, 0, CHUNK_HDR + sz);
        if (!c) return NULL;
        c->next = a->head;
        c->size = sz;
        c->used = 0;
        c->last = 0;
        a->head = c;
        a->used += CHUNK_HDR + sz;
    }
    uint8_t *p = (uint8_t *)c + CHUNK_HDR + c->used;
    c->last = c->used;
    c->used += need;
    memset(p, 0, n);
    return p;
}

void *lgi_arena_grow(lgi_arena *a, void *p, size_t old_n, size_t new_n) {
    if (!p) return lgi_arena_alloc(a, new_n);
    if (new_n <= old_n) return p;
    lgi_chunk *c = a->head;
    if (c && (uint8_t *)p == (uint8_t *)c + CHUNK_HDR + c->last) {
        size_t need = (new_n + 15) & ~(size_t)15;
        if (need >= new_n && c->size - c->last >= need) {
            memset((uint8_t *)p + old_n, 0, new_n - old_n);
            c->used = c->last + need;
            return p;
        }
    }
    void *q = lgi_arena_alloc(a, new_n);
    if (!q) return NULL;
    memcpy(q, p, old_n);
    return q;
}

char *lgi_arena_strdup(lgi_arena *a, const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s);
    char *d = lgi_arena_alloc(a, n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

void *lgi_arena_memdup(lgi_arena *a, const void *p, size_t n) {
    void *d = lgi_arena_alloc(a, n ? n : 1);
    if (d && n) memcpy(d, p, n);
    return d;
}
