/* reduce-rank: the split along one axis, and the choice of plan (see fix_rank.h).
 *
 * When no grouping brings every op to rank 4 (a TRANSPOSE that interleaves five independent
 * axes: the fused-QKV head split with a batch > 1, PixelShuffle on NCHW data), the region is
 * cut along one axis into k pieces of size 1, k <= 16. The axis is a class of dims linked
 * through the ops (a TRANSPOSE's output dim i and its input dim perm[i], an elementwise op's
 * aligned dims of equal size, a RESHAPE's dims that keep their size and their offset, ...).
 * A class is refused if some op reduces, contracts or soft-maxes over it, or a tensor holds
 * it twice. Then every tensor that holds the axis with size >= 2 becomes k pieces, each op
 * over it becomes k copies (one per piece), and:
 *  - a tensor the region reads whole (a rank <= 4 input, or a RESHAPE of one) is viewed as
 *    [outer, k, inner] and cut by k SLICEs; a constant is cut into k constants;
 *  - a tensor the region writes whole (a rank <= 4 output, or one a RESHAPE turns into
 *    another shape) is joined by a CONCATENATION of the pieces viewed as [outer, 1, inner];
 *  - a SLICE, or a constant GATHER turned into SLICEs, along the axis picks pieces (begin +
 *    q * stride), and a CONCATENATION along it lists them: no op at all.
 * The pieces have a 1 where the axis was, so the grouping drops it: one rank less. Every
 * candidate class is planned (split, grouped, lowered) and the plan with the fewest ops
 * wins, the outermost axis on a tie. */
#include <stdlib.h>

#include "passes/fix_rank.h"

#define NODE(t, d) ((uint32_t)(t) * LG_MAX_RANK + (uint32_t)(d))

/* ------------------------------------------------------------------ axis classes */

typedef struct actx {
    const rk_region *r;
    uint32_t *parent;
    uint8_t *bad;      /* per node: the axis cannot be split here */
} actx;

static uint32_t a_find(actx *a, uint32_t x) {
    while (a->parent[x] != x) {
        a->parent[x] = a->parent[a->parent[x]];
        x = a->parent[x];
    }
    return x;
}

static void a_link(actx *a, int32_t t1, int32_t d1, int32_t t2, int32_t d2) {
    uint32_t x = a_find(a, NODE(t1, d1)), y = a_find(a, NODE(t2, d2));
    if (x == y) return;
    if (x < y)
        a->parent[y] = x;
    else
        a->parent[x] = y;
}

static int64_t prefix(const rk_tensor *t, int32_t d) {
    int64_t p = 1;
    for (int32_t k = 0; k < d; k++) p *= t->shape[k];
    return p;
}

/* X's dims [0, xhi) aligned at the end to O's [0, ohi): equal sizes are the same axis. */
static void link_bcast(actx *a, int32_t X, int32_t xhi, int32_t O, int32_t ohi) {
    const rk_tensor *tx = &a->r->t[X], *to = &a->r->t[O];
    for (int32_t x = 0; x < xhi; x++)
        if (tx->shape[x] == to->shape[x + ohi - xhi]) a_link(a, X, x, O, x + ohi - xhi);
}

static void link_op(actx *a, const rk_op *o) {
    const rk_region *r = a->r;
    int32_t I = o->in[0], O = o->out;
    const rk_tensor *ti = &r->t[I], *to = &r->t[O];
    switch (o->kind) {
    case K_RESHAPE:
        for (int32_t d = 0; d < (int32_t)ti->rank; d++)
            for (int32_t e = 0; e < (int32_t)to->rank; e++)
                if (ti->shape[d] > 1 && ti->shape[d] == to->shape[e] && prefix(ti, d) == prefix(to, e))
                    a_link(a, I, d, O, e);
        break;
    case K_TRANSPOSE:
        for (int32_t i = 0; i < (int32_t)to->rank; i++) a_link(a, I, o->v[i], O, i);
        break;
    case K_EW: case K_SOFTMAX:
        for (uint32_t k = 0; k < o->n_in; k++)
            link_bcast(a, o->in[k], (int32_t)r->t[o->in[k]].rank, O, (int32_t)to->rank);
        if (o->kind == K_SOFTMAX) a->bad[NODE(O, to->rank - 1)] = 1;
        break;
    case K_REDUCE: {
        bool keep = to->rank == ti->rank;
        for (int32_t d = 0, k = 0; d < (int32_t)ti->rank; d++) {
            if ((o->mask >> d) & 1u) {
                a->bad[NODE(I, d)] = 1;
                continue;
            }
            a_link(a, I, d, O, keep ? d : k);
            k++;
        }
        break;
    }
    case K_CONCAT:
        for (uint32_t k = 0; k < o->n_in; k++)
            for (int32_t d = 0; d < (int32_t)to->rank; d++) a_link(a, o->in[k], d, O, d);
        break;
    case K_SLICE:
        for (int32_t d = 0; d < (int32_t)to->rank; d++) a_link(a, I, d, O, d);
        break;
    case K_GATHER:
        for (int32_t d = 0; d < (int32_t)to->rank; d++)
            if (d != o->axis) a_link(a, I, d, O, d);
        a->bad[NODE(I, o->axis)] = a->bad[NODE(O, o->axis)] = 1;
        break;
    case K_BMM: {
        int32_t B = o->in[1], ra = (int32_t)ti->rank, rb = (int32_t)r->t[B].rank, ro = (int32_t)to->rank;
        bool ax = o->mask & 1u, ay = (o->mask >> 1) & 1u;
        link_bcast(a, I, ra - 2, O, ro - 2);
        link_bcast(a, B, rb - 2, O, ro - 2);
        a_link(a, I, ax ? ra - 1 : ra - 2, O, ro - 2); /* M */
        a_link(a, B, ay ? rb - 2 : rb - 1, O, ro - 1); /* N */
        a->bad[NODE(I, ax ? ra - 2 : ra - 1)] = 1;    /* K */
        a->bad[NODE(B, ay ? rb - 1 : rb - 2)] = 1;
        break;
    }
    default: break;
    }
}

/* ------------------------------------------------------------------ the split */

typedef struct sctx {
    const rk_region *r;
    rk_region *o;
    const int32_t *adim; /* per region tensor: its dim on the axis, -1 */
    int32_t *M;          /* the whole tensor in the new region, -1 */
    int32_t *P;          /* its pieces: P[t * RK_SPLIT_CAP + q], -1 */
    bool ok;
    char *why;
    size_t nwhy;
    lg_status st;
    lg_error *err;
} sctx;

static void s_refuse(sctx *s, const char *fmt, ...) LGI_PRINTF(2, 3);
static void s_refuse(sctx *s, const char *fmt, ...) {
    if (!s->ok) return;
    s->ok = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, s->nwhy, fmt, ap);
    va_end(ap);
}

static void s_nomem(sctx *s) {
    if (s->st == LG_OK) s->st = lgi_fail(s->err, LG_ERR_NOMEM, "reduce-rank: out of memory");
    s->ok = false;
}

static const rk_tensor *RT(const sctx *s, int32_t t) { return &s->r->t[t]; }

static bool is_split(const sctx *s, int32_t t) {
    return s->adim[t] >= 0 && RT(s, t)->shape[s->adim[t]] >= 2;
}

static int32_t npieces(const sctx *s, int32_t t) { return RT(s, t)->shape[s->adim[t]]; }

static int32_t *piece(sctx *s, int32_t t, int32_t q) { return &s->P[(size_t)t * RK_SPLIT_CAP + (size_t)q]; }

/* A new tensor of the new region like region tensor t, with this shape, as a temporary. */
static int32_t s_tmp(sctx *s, int32_t t, const int32_t *shape, uint32_t rank) {
    if (!s->ok) return -1;
    rk_tensor x = *RT(s, t);
    memcpy(x.shape, shape, rank * sizeof *shape);
    x.rank = rank;
    x.role = RK_TMP;
    x.gid = -1;
    x.cdim = x.cidx = -1;
    int32_t id = lgrk_add_tensor(s->o, &x);
    if (id < 0) s_nomem(s);
    return id;
}

static void s_piece_shape(const sctx *s, int32_t t, int32_t *shape) {
    memcpy(shape, RT(s, t)->shape, sizeof(int32_t) * LG_MAX_RANK);
    shape[s->adim[t]] = 1;
}

/* t in the new region as it is (its role, graph tensor and constant data). */
static int32_t getM(sctx *s, int32_t t) {
    if (!s->ok) return -1;
    if (s->M[t] >= 0) return s->M[t];
    int32_t id = lgrk_add_tensor(s->o, RT(s, t));
    if (id < 0) return s_nomem(s), -1;
    return s->M[t] = id;
}

static void s_add(sctx *s, const rk_op *o) {
    if (!s->ok) return;
    for (uint32_t k = 0; k < o->n_in; k++)
        if (o->in[k] < 0) { s_refuse(s, "internal: a piece is missing"); return; }
    if (o->out < 0) return;
    if (lgrk_add_op(s->o, o) < 0) s_nomem(s);
}

static rk_op s_op(uint8_t kind, int32_t code, int32_t src, int32_t in, int32_t out) {
    rk_op o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    o.code = code;
    o.src = src;
    o.in[0] = in;
    o.n_in = 1;
    o.out = out;
    o.same_io = true;
    return o;
}

/* t's [outer, n, inner] view and its pieces' [outer, 1, inner]. */
static void views(const sctx *s, int32_t t, int32_t *v, int32_t *vq) {
    const rk_tensor *x = RT(s, t);
    int32_t a = s->adim[t];
    int64_t outer = prefix(x, a), inner = lgrk_numel(x) / (outer * x->shape[a]);
    v[0] = vq[0] = (int32_t)outer;
    v[1] = x->shape[a];
    vq[1] = 1;
    v[2] = vq[2] = (int32_t)inner;
}

/* The pieces of t cut from src (t's data whole): RESHAPE to [outer, n, inner], a SLICE per
   piece, RESHAPE to the piece's shape. */
static void slice_pieces(sctx *s, int32_t t, int32_t src, int32_t at) {
    int32_t v[3], vq[3], shape[LG_MAX_RANK];
    views(s, t, v, vq);
    s_piece_shape(s, t, shape);
    int32_t V = s_tmp(s, t, v, 3);
    rk_op re = s_op(K_RESHAPE, LG_OP_RESHAPE, at, src, V);
    s_add(s, &re);
    for (int32_t q = 0; q < v[1] && s->ok; q++) {
        int32_t Vq = s_tmp(s, t, vq, 3), Pq = s_tmp(s, t, shape, RT(s, t)->rank);
        rk_op sl = s_op(K_SLICE, LG_OP_SLICE, at, V, Vq);
        for (int d = 0; d < 3; d++) {
            sl.v[d] = d == 1 ? q : 0;
            sl.w[d] = vq[d];
            sl.s[d] = 1;
        }
        s_add(s, &sl);
        rk_op r2 = s_op(K_RESHAPE, LG_OP_RESHAPE, at, Vq, Pq);
        s_add(s, &r2);
        *piece(s, t, q) = Pq;
    }
}

static bool pieces(sctx *s, int32_t t, int32_t at) {
    if (!s->ok) return false;
    if (*piece(s, t, 0) >= 0) return true;
    const rk_tensor *x = RT(s, t);
    if (x->role == RK_CONST) {
        int32_t shape[LG_MAX_RANK];
        s_piece_shape(s, t, shape);
        for (int32_t q = 0; q < npieces(s, t); q++) {
            rk_tensor c = *x; /* the slab q of x's data viewed in x's shape */
            memcpy(c.csh, x->shape, sizeof c.csh);
            c.crank = x->rank;
            memcpy(c.shape, shape, sizeof shape);
            c.cdim = s->adim[t];
            c.cidx = q;
            int32_t id = lgrk_add_tensor(s->o, &c);
            if (id < 0) return s_nomem(s), false;
            *piece(s, t, q) = id;
        }
        return true;
    }
    if (x->role == RK_IN) getM(s, t);
    if (s->M[t] < 0) {
        s_refuse(s, "internal: pieces of a tensor not yet written");
        return false;
    }
    slice_pieces(s, t, s->M[t], at);
    return s->ok;
}

/* t whole from its pieces: each viewed as [outer, 1, inner], a CONCATENATION on axis 1,
   a RESHAPE to t's shape (into t's own tensor when it is a region output). */
static int32_t whole(sctx *s, int32_t t, int32_t at) {
    if (!s->ok) return -1;
    if (s->M[t] >= 0) return s->M[t];
    int32_t v[3], vq[3];
    views(s, t, v, vq);
    rk_op cat = s_op(K_CONCAT, LG_OP_CONCATENATION, at, -1, -1);
    cat.n_in = 0;
    cat.axis = 1;
    for (int32_t q = 0; q < v[1]; q++) {
        int32_t Vq = s_tmp(s, t, vq, 3);
        rk_op re = s_op(K_RESHAPE, LG_OP_RESHAPE, at, *piece(s, t, q), Vq);
        s_add(s, &re);
        cat.in[cat.n_in++] = Vq;
    }
    cat.out = s_tmp(s, t, v, 3);
    s_add(s, &cat);
    int32_t W = getM(s, t);
    rk_op re = s_op(K_RESHAPE, LG_OP_RESHAPE, at, cat.out, W);
    s_add(s, &re);
    return W;
}

static bool partial_dim(const rk_op *o, const rk_tensor *in, int32_t d) {
    return !(o->v[d] == 0 && o->w[d] == in->shape[d] && o->s[d] == 1);
}

static void split_reshape(sctx *s, const rk_op *o) {
    int32_t I = o->in[0], O = o->out;
    bool si = is_split(s, I), so = is_split(s, O);
    if (si && so) {
        if (prefix(RT(s, I), s->adim[I]) != prefix(RT(s, O), s->adim[O]) || npieces(s, I) != npieces(s, O))
            { s_refuse(s, "the axis does not pass RESHAPE (op %d) whole", o->src); return; }
        if (!pieces(s, I, o->src)) return;
        int32_t shape[LG_MAX_RANK];
        s_piece_shape(s, O, shape);
        for (int32_t q = 0; q < npieces(s, O) && s->ok; q++) {
            int32_t Pq = s_tmp(s, O, shape, RT(s, O)->rank);
            rk_op re = s_op(K_RESHAPE, LG_OP_RESHAPE, o->src, *piece(s, I, q), Pq);
            s_add(s, &re);
            *piece(s, O, q) = Pq;
        }
    } else if (si) {
        int32_t W = whole(s, I, o->src);
        rk_op re = s_op(K_RESHAPE, LG_OP_RESHAPE, o->src, W, getM(s, O));
        s_add(s, &re);
    } else {
        rk_op re = s_op(K_RESHAPE, LG_OP_RESHAPE, o->src, getM(s, I), getM(s, O));
        s_add(s, &re);
        slice_pieces(s, O, s->M[O], o->src);
    }
}

/* A SLICE along the axis: output piece q is input piece begin + q * stride (cut further when
   the slice also cuts other dims). */
static void route_slice(sctx *s, const rk_op *o) {
    int32_t I = o->in[0], O = o->out, a = s->adim[I];
    const rk_tensor *ti = RT(s, I);
    bool other = false;
    for (int32_t d = 0; d < (int32_t)ti->rank; d++) other |= d != a && partial_dim(o, ti, d);
    if (!pieces(s, I, o->src)) return;
    bool out_split = is_split(s, O);
    int32_t shape[LG_MAX_RANK];
    memcpy(shape, RT(s, O)->shape, sizeof shape);
    shape[a] = 1;
    for (int32_t q = 0; q < o->w[a] && s->ok; q++) {
        int32_t src = *piece(s, I, o->v[a] + q * o->s[a]), res = src;
        bool to_m = !out_split && RT(s, O)->role != RK_TMP;
        if (other || to_m) {
            res = to_m ? getM(s, O) : s_tmp(s, O, shape, RT(s, O)->rank);
            rk_op c = *o;
            c.in[0] = src;
            c.out = res;
            c.v[a] = 0;
            c.w[a] = 1;
            c.s[a] = 1;
            if (!other) c = s_op(K_RESHAPE, LG_OP_RESHAPE, o->src, src, res);
            s_add(s, &c);
        }
        if (out_split)
            *piece(s, O, q) = res;
        else
            s->M[O] = res;
    }
}

/* A CONCATENATION along the axis: the output's pieces are its inputs' pieces in order. */
static void route_concat(sctx *s, const rk_op *o) {
    int32_t O = o->out, off = 0;
    for (uint32_t k = 0; k < o->n_in && s->ok; k++) {
        int32_t X = o->in[k];
        if (is_split(s, X)) {
            if (s->adim[X] != o->axis || !pieces(s, X, o->src)) {
                s_refuse(s, "internal: a concatenated input holds the axis elsewhere");
                return;
            }
            for (int32_t q = 0; q < npieces(s, X); q++) *piece(s, O, off++) = *piece(s, X, q);
        } else {
            *piece(s, O, off++) = getM(s, X);
        }
    }
}

static void clone_op(sctx *s, const rk_op *o) {
    int32_t O = o->out;
    if (!is_split(s, O))
        { s_refuse(s, "%s (op %d) reduces or contracts the axis", lg_builtin_name(o->code), o->src); return; }
    int32_t n = npieces(s, O), shape[LG_MAX_RANK];
    for (uint32_t k = 0; k < o->n_in; k++)
        if (is_split(s, o->in[k]) && (npieces(s, o->in[k]) != n || !pieces(s, o->in[k], o->src))) {
            s_refuse(s, "internal: pieces of different sizes");
            return;
        }
    s_piece_shape(s, O, shape);
    for (int32_t q = 0; q < n && s->ok; q++) {
        rk_op c = *o;
        for (uint32_t k = 0; k < o->n_in; k++)
            c.in[k] = is_split(s, o->in[k]) ? *piece(s, o->in[k], q) : getM(s, o->in[k]);
        c.out = s_tmp(s, O, shape, RT(s, O)->rank);
        if (o->kind == K_SLICE) {
            int32_t a = s->adim[o->in[0]];
            c.v[a] = 0;
            c.w[a] = c.s[a] = 1;
        }
        s_add(s, &c);
        *piece(s, O, q) = c.out;
    }
}

static void split_op(sctx *s, const rk_op *o) {
    bool any = is_split(s, o->out);
    for (uint32_t k = 0; k < o->n_in; k++) any |= is_split(s, o->in[k]);
    if (!any) {
        rk_op c = *o;
        for (uint32_t k = 0; k < o->n_in; k++) c.in[k] = getM(s, o->in[k]);
        c.out = getM(s, o->out);
        s_add(s, &c);
        return;
    }
    if (o->kind == K_RESHAPE)
        split_reshape(s, o);
    else if (o->kind == K_SLICE && is_split(s, o->in[0]) && partial_dim(o, RT(s, o->in[0]), s->adim[o->in[0]]))
        route_slice(s, o);
    else if (o->kind == K_CONCAT && is_split(s, o->out) && o->axis == s->adim[o->out])
        route_concat(s, o);
    else
        clone_op(s, o);
}

/* r split along the dims adim (one per tensor, -1) into *out. */
static lg_status split_region(const rk_region *r, const int32_t *adim, rk_region *out, bool *ok,
                              char *why, size_t nwhy, lg_error *err) {
    memset(out, 0, sizeof *out);
    sctx s = {r, out, adim, malloc(r->nt * sizeof(int32_t)),
              malloc((size_t)r->nt * RK_SPLIT_CAP * sizeof(int32_t)), true, why, nwhy, LG_OK, err};
    if (!s.M || !s.P) s_nomem(&s);
    for (uint32_t t = 0; s.ok && t < r->nt; t++) {
        s.M[t] = -1;
        for (int q = 0; q < RK_SPLIT_CAP; q++) s.P[t * RK_SPLIT_CAP + q] = -1;
    }
    for (uint32_t i = 0; i < r->no && s.ok; i++) split_op(&s, &r->o[i]);
    for (uint32_t t = 0; t < r->nt && s.ok; t++)
        if (r->t[t].role == RK_OUT) {
            if (is_split(&s, (int32_t)t))
                whole(&s, (int32_t)t, r->no ? r->o[r->no - 1].src : -1);
            else if (s.M[t] < 0)
                s_refuse(&s, "internal: an output is not written");
        }
    free(s.M);
    free(s.P);
    *ok = s.ok;
    if (!s.ok) lgrk_region_free(out);
    return s.st;
}

/* ------------------------------------------------------------------ choosing the plan */

enum { C_OK, C_TRIVIAL, C_BAD, C_CAP };

/* The class of node `root`: adim per tensor, *k its largest size; C_OK when it can be split. */
static int class_dims(actx *a, uint32_t root, int32_t *adim, int32_t *k) {
    const rk_region *r = a->r;
    *k = 0;
    int res = C_OK;
    for (uint32_t t = 0; t < r->nt; t++) {
        adim[t] = -1;
        for (uint32_t d = 0; d < r->t[t].rank; d++) {
            if (a_find(a, NODE(t, d)) != root) continue;
            int32_t n = r->t[t].shape[d];
            if (adim[t] >= 0 || (a->bad[NODE(t, d)] && n >= 2)) res = C_BAD; /* held twice; reduced... */
            adim[t] = (int32_t)d;
            if (n > *k) *k = n;
        }
    }
    if (*k < 2) return C_TRIVIAL;
    return res != C_OK ? res : *k > RK_SPLIT_CAP ? C_CAP : C_OK;
}

/* Plan r under its own grouping into l; *ok false with why. */
static lg_status plan_grouped(const rk_region *r, rk_low *l, bool *ok, char *why, size_t nwhy,
                              lg_error *err) {
    rk_grouping g;
    LG_TRY(lgrk_group(r, &g, err));
    lg_status st = lgrk_lower(r, &g, l, ok, why, nwhy, err);
    lgrk_grouping_free(&g);
    return st;
}

static lg_status try_splits(const rk_region *r, rk_low *best, bool *ok, char *why, size_t nwhy,
                            lg_error *err) {
    uint32_t nn = r->nt * LG_MAX_RANK;
    actx a = {r, malloc(nn * sizeof(uint32_t)), calloc(nn, 1)};
    int32_t *adim = malloc((r->nt ? r->nt : 1) * sizeof *adim);
    uint8_t *done = calloc(nn, 1);
    lg_status st = LG_OK;
    if (!a.parent || !a.bad || !adim || !done) st = lgi_fail(err, LG_ERR_NOMEM, "reduce-rank: out of memory");
    for (uint32_t k = 0; st == LG_OK && k < nn; k++) a.parent[k] = k;
    for (uint32_t i = 0; st == LG_OK && i < r->no; i++) link_op(&a, &r->o[i]);
    char last[120] = "";
    uint32_t tried = 0;
    int32_t min_cap = 0;
    for (uint32_t node = 0; st == LG_OK && node < nn; node++) {
        uint32_t t = node / LG_MAX_RANK, d = node % LG_MAX_RANK;
        if (d >= r->t[t].rank) continue;
        uint32_t root = a_find(&a, node);
        if (done[root]) continue;
        done[root] = 1;
        int32_t k;
        int cls = class_dims(&a, root, adim, &k);
        if (cls == C_CAP && (!min_cap || k < min_cap)) min_cap = k;
        if (cls != C_OK) continue;
        tried++;
        rk_region r2;
        bool ok2 = false;
        char w[160];
        st = split_region(r, adim, &r2, &ok2, w, sizeof w, err);
        if (st == LG_OK && ok2) {
            rk_low l2;
            st = plan_grouped(&r2, &l2, &ok2, w, sizeof w, err);
            if (st == LG_OK && ok2 && (!*ok || l2.n_live < best->n_live)) {
                lgrk_low_free(best);
                *best = l2;
                *ok = true;
            } else if (st == LG_OK && ok2) {
                lgrk_low_free(&l2);
            }
            lgrk_region_free(&r2);
        }
        if (st == LG_OK && !ok2) snprintf(last, sizeof last, "%d pieces: %.100s", k, w);
    }
    if (st == LG_OK && !*ok) {
        char first[80], rest[160];
        snprintf(first, sizeof first, "%s", why);
        if (tried)
            snprintf(rest, sizeof rest, "no split reaches rank 4 (%u tried; %.90s)", tried, last);
        else if (min_cap)
            snprintf(rest, sizeof rest, "a split would need %d pieces (at most %d)", min_cap, RK_SPLIT_CAP);
        else
            snprintf(rest, sizeof rest, "no axis can be split");
        snprintf(why, nwhy, "%s; %s", first, rest);
    }
    free(a.parent);
    free(a.bad);
    free(adim);
    free(done);
    return st;
}

lg_status lgrk_plan(const rk_region *r, rk_low *best, bool *ok, char *why, size_t nwhy,
                    lg_error *err) {
    memset(best, 0, sizeof *best);
    *ok = false;
    LG_TRY(plan_grouped(r, best, ok, why, nwhy, err));
    if (*ok) return LG_OK;
    return try_splits(r, best, ok, why, nwhy, err);
}
