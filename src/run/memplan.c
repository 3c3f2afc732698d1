/* The activation memory planner: lifetimes and greedy-by-size offsets (see memplan.h). */
#include <stdlib.h>
#include <string.h>

#include "run/memplan.h"

void lgk_mp_lifetimes(const lg_subgraph *sg, const lg_graph *g, const uint8_t *skip, int keep_all,
                      int32_t *first, int32_t *last) {
    uint32_t nt = sg->n_tensors;
    int32_t no = (int32_t)sg->n_ops;
    for (uint32_t i = 0; i < nt; i++) {
        int32_t t = (int32_t)i, p = lg_graph_producer(g, t);
        uint32_t n_uses;
        const lg_use *u = lg_graph_uses(g, t, &n_uses);
        first[i] = lg_graph_is_input(g, t) ? -1 : p >= 0 ? p : LGK_MP_NONE;
        last[i] = lg_graph_is_output(g, t) ? no : n_uses ? u[n_uses - 1].op : -1; /* uses sorted by op */
        if (skip[i] || first[i] == LGK_MP_NONE) { first[i] = LGK_MP_NONE; continue; }
        if (sg->tensors[i].is_variable) { first[i] = -1; last[i] = no; }
        if (last[i] < first[i]) last[i] = first[i]; /* written, never read */
        if (keep_all) { first[i] = -1; last[i] = no; }
    }
}

typedef struct live {
    int32_t t;
    int32_t first, last;      /* op range where the tensor must exist */
    uint64_t size, offset;    /* the aligned slot */
} live;

static int cmp_live_size(const void *a, const void *b) {
    const live *x = a, *y = b;
    if (x->size != y->size) return x->size > y->size ? -1 : 1;
    return x->t - y->t; /* deterministic */
}

/* The lowest offset for lv[i] that overlaps none of lv[0 .. i) in space while overlapping in
   time. Moving past a block never skips a free offset: every offset below its end still
   overlaps it. */
static uint64_t lowest_offset(const live *lv, uint32_t i) {
    uint64_t off = 0;
    for (;;) {
        int moved = 0;
        for (uint32_t j = 0; j < i; j++) {
            if (lv[j].last < lv[i].first || lv[i].last < lv[j].first) continue;
            if (off < lv[j].offset + lv[j].size && lv[j].offset < off + lv[i].size) {
                off = lv[j].offset + lv[j].size;
                moved = 1;
            }
        }
        if (!moved) return off;
    }
}

static int live_at(int32_t first, int32_t last, int32_t op) {
    int32_t f = first < 0 ? 0 : first;
    return f <= op && op <= last;
}

lg_status lgk_mp_plan(uint32_t n, uint32_t n_ops, const uint64_t *size, const int32_t *first,
                      const int32_t *last, lg_alloc_fn alloc, void *alloc_ud, uint64_t *offset,
                      int32_t *peak, lgk_mp_result *res, lg_error *err) {
    memset(res, 0, sizeof *res);
    if (!alloc) alloc = lgi_default_alloc;
    size_t lv_bytes = (n ? n : 1) * sizeof(live);
    live *lv = alloc(alloc_ud, NULL, 0, lv_bytes);
    if (!lv) return lgi_fail(err, LG_ERR_NOMEM, "out of memory planning");
    uint32_t nl = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (first[i] == LGK_MP_NONE) continue;
        lv[nl].t = (int32_t)i;
        lv[nl].first = first[i];
        lv[nl].last = last[i];
        lv[nl].size = (size[i] + 63) & ~(uint64_t)63;
        lv[nl].offset = 0;
        nl++;
    }
    /* greedy by size: place each tensor at the lowest offset that does not overlap a placed
       tensor whose lifetime intersects (the arena planner's strategy) */
    qsort(lv, nl, sizeof *lv, cmp_live_size);
    uint64_t arena = 0;
    for (uint32_t i = 0; i < nl; i++) {
        lv[i].offset = lowest_offset(lv, i);
        if (lv[i].offset + lv[i].size > arena) arena = lv[i].offset + lv[i].size;
        offset[lv[i].t] = lv[i].offset;
    }
    alloc(alloc_ud, lv, lv_bytes, 0);
    /* peak of live bytes (exact sizes, not aligned) over the ops; inputs live from op 0 */
    uint64_t pk = 0;
    int32_t peak_op = n_ops ? 0 : -1;
    for (uint32_t op = 0; op < n_ops; op++) {
        uint64_t sum = 0;
        for (uint32_t i = 0; i < n; i++)
            if (first[i] != LGK_MP_NONE && live_at(first[i], last[i], (int32_t)op)) sum += size[i];
        if (sum > pk) { pk = sum; peak_op = (int32_t)op; }
    }
    uint32_t npk = 0;
    for (uint32_t i = 0; i < n && peak_op >= 0; i++)
        if (first[i] != LGK_MP_NONE && live_at(first[i], last[i], peak_op)) peak[npk++] = (int32_t)i;
    res->arena_bytes = arena;
    res->peak_live_bytes = pk;
    res->peak_op = peak_op;
    res->n_peak = npk;
    return LG_OK;
}

void lgk_mp_live(uint32_t n, uint32_t n_ops, const uint64_t *size, const int32_t *first, const int32_t *last,
                 uint64_t *out) {
    if (!n_ops) return;
    /* out[op] holds the change at op until the prefix sum: + at the first op, - after the last */
    memset(out, 0, n_ops * sizeof *out);
    for (uint32_t i = 0; i < n; i++) {
        if (first[i] == LGK_MP_NONE) continue;
        int32_t f = first[i] < 0 ? 0 : first[i], l = last[i];
        if (f >= (int32_t)n_ops || l < f) continue;
        out[f] += size[i];
        if (l + 1 < (int32_t)n_ops) out[l + 1] -= size[i]; /* unsigned wrap undone by the sum */
    }
    for (uint32_t op = 1; op < n_ops; op++) out[op] += out[op - 1];
}
