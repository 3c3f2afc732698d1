/* reduce-rank: the grouping of a region's tensors (see fix_rank.h).
 *
 * Every tensor keeps its elements in the same row-major order when adjacent dims are merged
 * and unit dims dropped, so a new shape of that kind is a RESHAPE away from the original and
 * from any other such shape. What an op needs is that its own tensors are grouped the same
 * way around it: a TRANSPOSE can only keep two dims merged if they stay adjacent and in
 * order, an elementwise op only if every operand is either full or broadcast over both, a
 * reduction only if both are reduced or both kept, and so on. The rules below say, for every
 * op, which boundaries between consecutive non-unit dims must be cut and which boundaries of
 * its inputs and outputs correspond (and so must agree). One union-find over all boundaries,
 * with a node that stands for "cut", gives the coarsest grouping all ops accept at once: a
 * boundary is merged unless a chain of correspondences reaches a cut. */
#include <stdlib.h>

#include "passes/fix_rank.h"

static uint32_t uf_find(rk_grouping *g, uint32_t a) {
    while (g->parent[a] != a) {
        g->parent[a] = g->parent[g->parent[a]];
        a = g->parent[a];
    }
    return a;
}

/* The smaller root wins, so the cut node 0 stays the root of its class. */
static void uf_union(rk_grouping *g, uint32_t a, uint32_t b) {
    a = uf_find(g, a);
    b = uf_find(g, b);
    if (a == b) return;
    if (a < b)
        g->parent[b] = a;
    else
        g->parent[a] = b;
}

typedef struct gctx {
    const rk_region *r;
    rk_grouping *g;
} gctx;

static const rk_tensor *T(const gctx *c, int32_t t) { return &c->r->t[t]; }

static int32_t nu_index(const rk_tensor *t, int32_t d) {
    int32_t j = 0;
    for (int32_t k = 0; k < d; k++) j += t->shape[k] > 1;
    return j;
}

/* The node of the boundary after non-unit dim d of tensor t, or -1 (d is a unit dim, or the
   last non-unit one). */
static int64_t bnode_of(const rk_grouping *g, const rk_region *r, int32_t t, int32_t d) {
    const rk_tensor *x = &r->t[t];
    if (d < 0 || d >= (int32_t)x->rank || x->shape[d] <= 1 || lgrk_next_nu(x, d) < 0) return -1;
    return (int64_t)g->base[t] + nu_index(x, d);
}

static int64_t bnode(const gctx *c, int32_t t, int32_t d) { return bnode_of(c->g, c->r, t, d); }

static void cut_node(gctx *c, int64_t n) {
    if (n >= 0) uf_union(c->g, (uint32_t)n, 0);
}

static void link(gctx *c, int32_t ta, int32_t da, int32_t tb, int32_t db) {
    int64_t a = bnode(c, ta, da), b = bnode(c, tb, db);
    if (a >= 0 && b >= 0) uf_union(c->g, (uint32_t)a, (uint32_t)b);
}

/* Cut the boundary that ends at dim d (or spans it, when d is a unit dim). */
static void cut_before(gctx *c, int32_t t, int32_t d) {
    int32_t p = lgrk_prev_nu(T(c, t), d);
    if (p >= 0) cut_node(c, bnode(c, t, p));
}

static void cut_around(gctx *c, int32_t t, int32_t d) {
    cut_before(c, t, d);
    if (T(c, t)->shape[d] > 1) cut_node(c, bnode(c, t, d));
}

static void rule_transpose(gctx *c, const rk_op *o) {
    int32_t I = o->in[0], O = o->out;
    const rk_tensor *ti = T(c, I), *to = T(c, O);
    int32_t q[LG_MAX_RANK];
    for (uint32_t i = 0; i < to->rank; i++) q[o->v[i]] = (int32_t)i;
    for (int32_t i = 0; i < (int32_t)to->rank; i++) {
        int32_t j = to->shape[i] > 1 ? lgrk_next_nu(to, i) : -1;
        if (j < 0) continue;
        if (lgrk_next_nu(ti, o->v[i]) == o->v[j])
            link(c, O, i, I, o->v[i]);
        else
            cut_node(c, bnode(c, O, i));
    }
    for (int32_t a = 0; a < (int32_t)ti->rank; a++) {
        int32_t b = ti->shape[a] > 1 ? lgrk_next_nu(ti, a) : -1;
        if (b >= 0 && lgrk_next_nu(to, q[a]) != q[b]) cut_node(c, bnode(c, I, a));
    }
}

/* Operand X of an op with output O, broadcasting: O's dims [0, ohi) against X's [0, xhi),
   aligned at their ends. An O boundary between two dims X is full over is X's boundary; one
   between a dim X is full over and one it broadcasts is cut; X's boundaries between dims
   that are not consecutive in O are cut. */
static void rule_bcast(gctx *c, int32_t X, int32_t xhi, int32_t O, int32_t ohi) {
    const rk_tensor *tx = T(c, X), *to = T(c, O);
    int32_t off = ohi - xhi;
    for (int32_t i = 0; i < ohi; i++) {
        int32_t j = to->shape[i] > 1 ? lgrk_next_nu(to, i) : -1;
        if (j < 0 || j >= ohi) continue;
        int32_t xi = i - off, xj = j - off;
        bool fi = xi >= 0 && tx->shape[xi] > 1, fj = xj >= 0 && tx->shape[xj] > 1;
        if (fi && fj)
            link(c, O, i, X, xi);
        else if (fi != fj)
            cut_node(c, bnode(c, O, i));
    }
    for (int32_t x = 0; x < xhi; x++) {
        int32_t y = tx->shape[x] > 1 ? lgrk_next_nu(tx, x) : -1;
        if (y < 0 || y >= xhi) continue;
        if (lgrk_next_nu(to, x + off) != y + off) cut_node(c, bnode(c, X, x));
    }
}

static void rule_ew(gctx *c, const rk_op *o) {
    for (uint32_t k = 0; k < o->n_in; k++)
        rule_bcast(c, o->in[k], (int32_t)T(c, o->in[k])->rank, o->out, (int32_t)T(c, o->out)->rank);
    if (o->kind == K_SOFTMAX) {
        cut_before(c, o->out, (int32_t)T(c, o->out)->rank - 1);
        cut_before(c, o->in[0], (int32_t)T(c, o->in[0])->rank - 1);
    }
}

static void rule_reduce(gctx *c, const rk_op *o) {
    int32_t I = o->in[0], O = o->out;
    const rk_tensor *ti = T(c, I), *to = T(c, O);
    bool keep = to->rank == ti->rank;
    int32_t om[LG_MAX_RANK], im[LG_MAX_RANK], k = 0;
    for (int32_t d = 0; d < (int32_t)ti->rank; d++) {
        bool red = (o->mask >> d) & 1u;
        om[d] = red ? (keep ? d : -1) : (keep ? d : k++);
        if (om[d] >= 0) im[om[d]] = d;
    }
    for (int32_t a = 0; a < (int32_t)ti->rank; a++) {
        int32_t b = ti->shape[a] > 1 ? lgrk_next_nu(ti, a) : -1;
        if (b < 0) continue;
        bool ra = (o->mask >> a) & 1u, rb = (o->mask >> b) & 1u;
        if (ra != rb)
            cut_node(c, bnode(c, I, a));
        else if (!ra)
            link(c, I, a, O, om[a]);
    }
    for (int32_t i = 0; i < (int32_t)to->rank; i++) {
        int32_t j = to->shape[i] > 1 ? lgrk_next_nu(to, i) : -1;
        if (j >= 0 && lgrk_next_nu(ti, im[i]) != im[j]) cut_node(c, bnode(c, O, i));
    }
}

static void rule_concat(gctx *c, const rk_op *o) {
    int32_t O = o->out, a = o->axis;
    const rk_tensor *to = T(c, O);
    cut_before(c, O, a);
    for (uint32_t k = 0; k < o->n_in; k++) {
        int32_t X = o->in[k];
        const rk_tensor *tx = T(c, X);
        cut_before(c, X, a);
        for (int32_t d = 0; d < (int32_t)tx->rank; d++) {
            int32_t e = tx->shape[d] > 1 ? lgrk_next_nu(tx, d) : -1;
            if (e < 0) continue;
            if (to->shape[d] > 1 && lgrk_next_nu(to, d) == e)
                link(c, X, d, O, d);
            else
                cut_node(c, bnode(c, X, d));
        }
    }
}

static bool partial(const rk_op *o, const rk_tensor *in, int32_t d) {
    return !(o->v[d] == 0 && o->w[d] == in->shape[d] && o->s[d] == 1);
}

static void rule_slice(gctx *c, const rk_op *o) {
    int32_t I = o->in[0], O = o->out;
    const rk_tensor *ti = T(c, I), *to = T(c, O);
    for (int32_t a = 0; a < (int32_t)ti->rank; a++) {
        int32_t b = ti->shape[a] > 1 ? lgrk_next_nu(ti, a) : -1;
        if (b < 0) continue;
        if (to->shape[a] > 1 && to->shape[b] > 1 && lgrk_next_nu(to, a) == b) link(c, I, a, O, a);
        if (partial(o, ti, b) || (partial(o, ti, a) && o->s[a] != 1)) cut_node(c, bnode(c, I, a));
    }
    for (int32_t i = 0; i < (int32_t)to->rank; i++) {
        int32_t j = to->shape[i] > 1 ? lgrk_next_nu(to, i) : -1;
        if (j >= 0 && lgrk_next_nu(ti, i) != j) cut_node(c, bnode(c, O, i));
    }
}

static void rule_gather(gctx *c, const rk_op *o) {
    int32_t I = o->in[0], O = o->out, a = o->axis;
    const rk_tensor *ti = T(c, I), *to = T(c, O);
    cut_around(c, I, a);
    cut_around(c, O, a);
    for (int32_t d = 0; d < (int32_t)ti->rank; d++) {
        int32_t e = ti->shape[d] > 1 ? lgrk_next_nu(ti, d) : -1;
        if (e < 0 || d == a || e == a) continue;
        if (to->shape[d] > 1 && lgrk_next_nu(to, d) == e)
            link(c, I, d, O, d);
        else
            cut_node(c, bnode(c, I, d));
    }
    for (int32_t i = 0; i < (int32_t)to->rank; i++) {
        int32_t j = to->shape[i] > 1 ? lgrk_next_nu(to, i) : -1;
        if (j >= 0 && i != a && j != a && lgrk_next_nu(ti, i) != j) cut_node(c, bnode(c, O, i));
    }
}

/* BATCH_MATMUL: the last two dims of each operand and of the output are their own groups;
   the batch dims broadcast as an elementwise op's. */
static void rule_bmm(gctx *c, const rk_op *o) {
    int32_t ts[3] = {o->in[0], o->in[1], o->out};
    for (int k = 0; k < 3; k++) {
        int32_t r = (int32_t)T(c, ts[k])->rank;
        cut_around(c, ts[k], r - 2);
        cut_around(c, ts[k], r - 1);
    }
    int32_t ro = (int32_t)T(c, o->out)->rank - 2;
    for (int k = 0; k < 2; k++) rule_bcast(c, ts[k], (int32_t)T(c, ts[k])->rank - 2, o->out, ro);
}

lg_status lgrk_group(const rk_region *r, rk_grouping *g, lg_error *err) {
    memset(g, 0, sizeof *g);
    g->base = malloc((r->nt ? r->nt : 1) * sizeof *g->base);
    if (!g->base) return lgi_fail(err, LG_ERR_NOMEM, "reduce-rank: out of memory");
    uint32_t n = 1;
    for (uint32_t t = 0; t < r->nt; t++) {
        g->base[t] = n;
        uint32_t m = 0;
        for (uint32_t d = 0; d < r->t[t].rank; d++) m += r->t[t].shape[d] > 1;
        n += m > 1 ? m - 1 : 0;
    }
    g->n = n;
    g->parent = malloc(n * sizeof *g->parent);
    if (!g->parent) {
        lgrk_grouping_free(g);
        return lgi_fail(err, LG_ERR_NOMEM, "reduce-rank: out of memory");
    }
    for (uint32_t k = 0; k < n; k++) g->parent[k] = k;
    gctx c = {r, g};
    for (uint32_t i = 0; i < r->no; i++) {
        const rk_op *o = &r->o[i];
        switch (o->kind) {
        case K_TRANSPOSE: rule_transpose(&c, o); break;
        case K_EW: case K_SOFTMAX: rule_ew(&c, o); break;
        case K_REDUCE: rule_reduce(&c, o); break;
        case K_CONCAT: rule_concat(&c, o); break;
        case K_SLICE: rule_slice(&c, o); break;
        case K_GATHER: rule_gather(&c, o); break;
        case K_BMM: rule_bmm(&c, o); break;
        default: break; /* RESHAPE: any two groupings of the same data are a RESHAPE apart */
        }
    }
    return LG_OK;
}

void lgrk_grouping_free(rk_grouping *g) {
    free(g->base);
    free(g->parent);
    memset(g, 0, sizeof *g);
}

bool lgrk_merged(rk_grouping *g, const rk_region *r, int32_t t, int32_t d) {
    int64_t n = bnode_of(g, r, t, d);
    return n >= 0 && uf_find(g, (uint32_t)n) != uf_find(g, 0);
}

uint32_t lgrk_groups(rk_grouping *g, const rk_region *r, int32_t t, uint32_t explicit_mask,
                     rk_group *out) {
    const rk_tensor *x = &r->t[t];
    uint32_t n = 0;
    int32_t prev = -1; /* the last non-unit dim of the open group, -1: none open */
    for (int32_t d = 0; d < (int32_t)x->rank; d++) {
        if ((explicit_mask >> d) & 1u) {
            out[n++] = (rk_group){d, d, x->shape[d]};
            prev = -1;
            continue;
        }
        if (x->shape[d] <= 1) continue;
        if (prev >= 0 && lgrk_merged(g, r, t, prev)) {
            out[n - 1].last = d;
            out[n - 1].size *= x->shape[d];
        } else {
            out[n++] = (rk_group){d, d, x->shape[d]};
        }
        prev = d;
    }
    return n;
}
