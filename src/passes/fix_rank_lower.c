/* reduce-rank: lowering a region under a grouping to rank <= 4 ops (see fix_rank.h).
 *
 * Each op is written on the groups of its own tensors, left-padded with 1s to rank 4: a
 * TRANSPOSE permutes whole groups, a reduction reduces whole groups (keep_dims, so the
 * result keeps rank 4), a SLICE cuts the outermost dim of a group whose inner dims are whole
 * (begin and size scaled by their product), a CONCATENATION joins along a group that starts
 * at its axis, elementwise operands get the product of their own dims over each output
 * group (1 where they broadcast). A tensor's data can be held in several shapes: the op that
 * writes it gives the first (its "realization"), and a consumer that needs another shape gets
 * a RESHAPE of it (RESHAPEs of the region only join realizations of the same data, they write
 * nothing). Constants are written in whatever shape is asked, as new constants. A rank <= 4
 * tensor the region writes (RK_OUT) is written by the op that gives its shape, or by a
 * RESHAPE into it; nothing that the graph outside reads changes. */
#include <stdlib.h>

#include "passes/fix_rank.h"

static bool grow(void **p, uint32_t *cap, uint32_t need, size_t elem) {
    if (need <= *cap) return true;
    uint32_t nc = *cap ? *cap * 2 : 16;
    while (nc < need) nc *= 2;
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q) return false;
    *p = q;
    *cap = nc;
    return true;
}

int32_t lgrk_low_tensor(rk_low *l, const rk_tensor *at, const int32_t *shape, uint32_t rank,
                        int32_t gid, bool is_const) {
    if (!grow((void **)&l->t, &l->ct, l->nt + 1, sizeof *l->t)) return -1;
    rk_ltensor *x = &l->t[l->nt];
    memset(x, 0, sizeof *x);
    memcpy(x->shape, shape, rank * sizeof *shape);
    x->rank = rank;
    x->gid = gid;
    x->like = at->like;
    x->cgid = at->gid;
    x->cdim = at->cdim;
    x->cidx = at->cidx;
    memcpy(x->cshape, at->csh, sizeof x->cshape);
    x->crank = at->crank;
    x->is_const = is_const;
    x->prod = -1;
    x->next = -1;
    return (int32_t)l->nt++;
}

int32_t lgrk_low_op(rk_low *l, int32_t code, int32_t src, const int32_t *in, uint32_t n_in,
                    int32_t out) {
    if (!grow((void **)&l->o, &l->co, l->no + 1, sizeof *l->o)) return -1;
    rk_lop *o = &l->o[l->no];
    memset(o, 0, sizeof *o);
    o->code = code;
    o->src = src;
    memcpy(o->in, in, n_in * sizeof *in);
    o->n_in = n_in;
    o->out = out;
    l->t[out].prod = (int32_t)l->no;
    return (int32_t)l->no++;
}

void lgrk_low_vec(rk_low *l, int32_t op, const int32_t *v, uint32_t n) {
    rk_lop *o = &l->o[op];
    memcpy(o->vec[o->n_vec], v, n * sizeof *v);
    o->len[o->n_vec++] = n;
}

void lgrk_low_free(rk_low *l) {
    free(l->t);
    free(l->o);
    memset(l, 0, sizeof *l);
}

/* ------------------------------------------------------------------ realizations */

typedef struct lctx {
    const rk_region *r;
    rk_grouping *g;
    rk_low *l;
    int32_t *dc;      /* data classes: union-find over region tensors */
    int32_t *head;    /* per class root: the first realization, -1 */
    int32_t *csrc;    /* per class root: a constant region tensor holding the data, -1 */
    bool ok;
    char *why;
    size_t nwhy;
    lg_status st;
    lg_error *err;
} lctx;

static const rk_tensor *T(const lctx *c, int32_t t) { return &c->r->t[t]; }

static void nomem(lctx *c) {
    if (c->st == LG_OK) c->st = lgi_fail(c->err, LG_ERR_NOMEM, "reduce-rank: out of memory");
}

static void refuse(lctx *c, const char *fmt, ...) LGI_PRINTF(2, 3);
static void refuse(lctx *c, const char *fmt, ...) {
    if (!c->ok) return;
    c->ok = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, c->nwhy, fmt, ap);
    va_end(ap);
}

static int32_t dc_find(lctx *c, int32_t a) {
    while (c->dc[a] != a) {
        c->dc[a] = c->dc[c->dc[a]];
        a = c->dc[a];
    }
    return a;
}

/* b's data is a's (a RESHAPE, or an op that changes nothing): one class, a's realizations
   first. */
static void dc_union(lctx *c, int32_t a, int32_t b) {
    a = dc_find(c, a);
    b = dc_find(c, b);
    if (a == b) return;
    c->dc[b] = a;
    if (c->head[a] < 0) {
        c->head[a] = c->head[b];
    } else if (c->head[b] >= 0) {
        int32_t k = c->head[a];
        while (c->l->t[k].next >= 0) k = c->l->t[k].next;
        c->l->t[k].next = c->head[b];
    }
    if (c->csrc[a] < 0) c->csrc[a] = c->csrc[b];
}

static void produce(lctx *c, int32_t t, int32_t lt) {
    int32_t a = dc_find(c, t);
    if (c->head[a] < 0) {
        c->head[a] = lt;
        return;
    }
    int32_t k = c->head[a];
    while (c->l->t[k].next >= 0) k = c->l->t[k].next;
    c->l->t[k].next = lt;
}

static bool same_shape(const rk_ltensor *x, const int32_t *shape, uint32_t rank) {
    if (x->rank != rank) return false;
    for (uint32_t d = 0; d < rank; d++)
        if (x->shape[d] != shape[d]) return false;
    return true;
}

/* The data of region tensor t in the given shape: an existing realization, a new constant,
   or a RESHAPE of the first realization. -1 on failure (c->st or c->ok say why). */
static int32_t req(lctx *c, int32_t t, const int32_t *shape, uint32_t rank) {
    if (c->st != LG_OK || !c->ok) return -1;
    int32_t a = dc_find(c, t);
    for (int32_t k = c->head[a]; k >= 0; k = c->l->t[k].next)
        if (same_shape(&c->l->t[k], shape, rank)) return k;
    int32_t lt;
    if (c->csrc[a] >= 0) {
        const rk_tensor *ct = &c->r->t[c->csrc[a]];
        bool same = ct->cdim < 0 && ct->crank == rank && /* the constant as it is */
                    memcmp(ct->csh, shape, rank * sizeof *shape) == 0;
        lt = lgrk_low_tensor(c->l, ct, shape, rank, same ? ct->gid : -1, !same);
        if (lt < 0) return nomem(c), -1;
        produce(c, t, lt);
        return lt;
    }
    int32_t root = c->head[a];
    if (root < 0) {
        refuse(c, "internal: tensor read before it is written");
        return -1;
    }
    lt = lgrk_low_tensor(c->l, T(c, t), shape, rank, -1, false);
    int32_t op = lt < 0 ? -1 : lgrk_low_op(c->l, LG_OP_RESHAPE, -1, &root, 1, lt);
    if (op < 0) return nomem(c), -1;
    lgrk_low_vec(c->l, op, shape, rank);
    produce(c, t, lt);
    return lt;
}

/* A new tensor holding region tensor t's data in this shape, written by the next op. */
static int32_t out_tensor(lctx *c, int32_t t, const int32_t *shape, uint32_t rank) {
    if (c->st != LG_OK || !c->ok) return -1;
    int32_t lt = lgrk_low_tensor(c->l, T(c, t), shape, rank, -1, false);
    if (lt < 0) nomem(c);
    return lt;
}

static int32_t emit(lctx *c, int32_t code, int32_t src, const int32_t *in, uint32_t n_in,
                    int32_t out, int32_t t) {
    if (c->st != LG_OK || !c->ok || out < 0) return -1;
    for (uint32_t k = 0; k < n_in; k++)
        if (in[k] < 0) return -1;
    int32_t op = lgrk_low_op(c->l, code, src, in, n_in, out);
    if (op < 0) return nomem(c), -1;
    produce(c, t, out);
    return op;
}

/* ------------------------------------------------------------------ views */

/* sizes[0..n) left-padded with 1s to rank 4 into v; false (refused) when n > 4. */
static bool pad4(lctx *c, const rk_op *o, const int32_t *sizes, uint32_t n, int32_t *v) {
    if (n > RK_GPU_RANK) {
        refuse(c, "%s (op %d) needs rank %u", lg_builtin_name(o->code), o->src, n);
        return false;
    }
    uint32_t lead = RK_GPU_RANK - n;
    for (uint32_t k = 0; k < lead; k++) v[k] = 1;
    for (uint32_t k = 0; k < n; k++) v[lead + k] = sizes[k];
    return true;
}

/* Operand x over the groups of the output (x aligned at the end of dims [0, xhi) to the
   output's [0, ohi)): the product of x's dims in each group, which must be all of the group
   or 1. */
static bool operand_view(lctx *c, int32_t x, int32_t xhi, int32_t ohi, const rk_group *gs,
                         uint32_t n, const int32_t *out_shape, int32_t *sizes) {
    const rk_tensor *tx = T(c, x);
    int32_t off = ohi - xhi;
    for (uint32_t k = 0; k < n; k++) {
        int64_t p = 1;
        for (int32_t d = gs[k].first; d <= gs[k].last; d++)
            if (d - off >= 0 && out_shape[d] > 1) p *= tx->shape[d - off];
        if (p != 1 && p != gs[k].size) {
            refuse(c, "internal: operand does not broadcast over a group");
            return false;
        }
        sizes[k] = (int32_t)p;
    }
    return true;
}

static void sizes_of(const rk_group *gs, uint32_t n, int32_t *sizes) {
    for (uint32_t k = 0; k < n; k++) sizes[k] = gs[k].size;
}

/* ------------------------------------------------------------------ ops */

/* Operand k of o in view xv (rank 4). Two different tensors of the region may hold the same
   data (one came from an op that only moved 1-sized dims): ML Drift refuses an elementwise op
   that reads one tensor twice (identical-inputs) and hangs on such a BATCH_MATMUL (litegpu
   verify: BATCH_MATMUL(x, x) of [1,12,2,2] never finishes; of x and a copy it matches the CPU),
   so the second reads it one rank lower (the leading 1 dropped), which broadcasts the same. */
static int32_t distinct(lctx *c, const rk_op *o, const int32_t *in, uint32_t k, const int32_t *xv) {
    int32_t lt = req(c, o->in[k], xv, RK_GPU_RANK);
    for (uint32_t j = 0; j < k && lt >= 0; j++)
        if (in[j] == lt && o->in[j] != o->in[k] && xv[0] == 1) return req(c, o->in[k], xv + 1, RK_GPU_RANK - 1);
    return lt;
}

/* Two different operands of o hold the same data, and every operand is o's output shape (no
   broadcast), so the first two output groups can be one: then distinct() has a leading 1. */
static bool shared_full_operands(lctx *c, const rk_op *o) {
    bool shared = false;
    for (uint32_t k = 0; k < o->n_in; k++) {
        const rk_tensor *tx = T(c, o->in[k]), *to = T(c, o->out);
        if (tx->rank != to->rank || memcmp(tx->shape, to->shape, tx->rank * sizeof *tx->shape) != 0) return false;
        for (uint32_t j = 0; j < k; j++)
            shared |= o->in[j] != o->in[k] && dc_find(c, o->in[j]) == dc_find(c, o->in[k]);
    }
    return shared;
}

static void lower_ew(lctx *c, const rk_op *o) {
    const rk_tensor *to = T(c, o->out);
    rk_group gs[LG_MAX_RANK];
    uint32_t expl = o->kind == K_SOFTMAX ? 1u << (to->rank - 1) : 0;
    uint32_t n = lgrk_groups(c->g, c->r, o->out, expl, gs);
    if (n == RK_GPU_RANK && shared_full_operands(c, o)) { /* see distinct(): make room */
        gs[0].last = gs[1].last;
        gs[0].size *= gs[1].size;
        memmove(gs + 1, gs + 2, (n - 2) * sizeof *gs);
        n--;
    }
    int32_t sizes[LG_MAX_RANK], ov[RK_GPU_RANK], in[RK_MAX_IN];
    sizes_of(gs, n, sizes);
    if (!pad4(c, o, sizes, n, ov)) return;
    for (uint32_t k = 0; k < o->n_in; k++) {
        const rk_tensor *tx = T(c, o->in[k]);
        if (tx->role == RK_CONST && tx->cdim < 0 && lgrk_numel(tx) == 1 && tx->crank <= RK_GPU_RANK) {
            in[k] = req(c, o->in[k], tx->csh, tx->crank); /* a scalar broadcasts as it is */
            continue;
        }
        int32_t xs[LG_MAX_RANK], xv[RK_GPU_RANK];
        if (!operand_view(c, o->in[k], (int32_t)tx->rank, (int32_t)to->rank, gs, n, to->shape, xs) ||
            !pad4(c, o, xs, n, xv))
            return;
        in[k] = distinct(c, o, in, k, xv);
    }
    emit(c, o->code, o->src, in, o->n_in, out_tensor(c, o->out, ov, RK_GPU_RANK), o->out);
}

static void lower_transpose(lctx *c, const rk_op *o) {
    const rk_tensor *ti = T(c, o->in[0]), *to = T(c, o->out);
    rk_group gs[LG_MAX_RANK];
    uint32_t n = lgrk_groups(c->g, c->r, o->in[0], 0, gs);
    int32_t q[LG_MAX_RANK], pos[LG_MAX_RANK], pi[LG_MAX_RANK];
    for (uint32_t i = 0; i < to->rank; i++) q[o->v[i]] = (int32_t)i;
    for (uint32_t k = 0; k < n; k++) {
        pos[k] = q[gs[k].first];
        for (int32_t d = gs[k].first, e; (e = lgrk_next_nu(ti, d)) >= 0 && e <= gs[k].last; d = e)
            if (lgrk_next_nu(to, q[d]) != q[e]) { refuse(c, "internal: a group breaks in a transpose"); return; }
    }
    /* groups in output order: pi[j] = the input group at output position j */
    for (uint32_t j = 0; j < n; j++) {
        int32_t best = -1;
        for (uint32_t k = 0; k < n; k++) {
            bool used = false;
            for (uint32_t u = 0; u < j; u++) used |= pi[u] == (int32_t)k;
            if (!used && (best < 0 || pos[k] < pos[best])) best = (int32_t)k;
        }
        pi[j] = best;
    }
    bool identity = true;
    for (uint32_t j = 0; j < n; j++) identity &= pi[j] == (int32_t)j;
    if (identity) { /* the dims that move are 1s: the same data */
        dc_union(c, o->in[0], o->out);
        return;
    }
    int32_t sizes[LG_MAX_RANK], osz[LG_MAX_RANK], iv[RK_GPU_RANK], ov[RK_GPU_RANK], perm[RK_GPU_RANK];
    sizes_of(gs, n, sizes);
    for (uint32_t j = 0; j < n; j++) osz[j] = sizes[pi[j]];
    if (!pad4(c, o, sizes, n, iv) || !pad4(c, o, osz, n, ov)) return;
    uint32_t lead = RK_GPU_RANK - n;
    for (uint32_t j = 0; j < RK_GPU_RANK; j++) perm[j] = j < lead ? (int32_t)j : (int32_t)lead + pi[j - lead];
    int32_t in = req(c, o->in[0], iv, RK_GPU_RANK);
    int32_t op = emit(c, LG_OP_TRANSPOSE, o->src, &in, 1, out_tensor(c, o->out, ov, RK_GPU_RANK), o->out);
    if (op >= 0) lgrk_low_vec(c->l, op, perm, RK_GPU_RANK);
}

static void lower_reduce(lctx *c, const rk_op *o) {
    rk_group gs[LG_MAX_RANK];
    uint32_t n = lgrk_groups(c->g, c->r, o->in[0], 0, gs);
    int32_t sizes[LG_MAX_RANK], iv[RK_GPU_RANK], ov[RK_GPU_RANK], axes[RK_GPU_RANK];
    sizes_of(gs, n, sizes);
    if (!pad4(c, o, sizes, n, iv)) return;
    uint32_t lead = RK_GPU_RANK - n, na = 0;
    memcpy(ov, iv, sizeof ov);
    for (uint32_t k = 0; k < n; k++) {
        bool red = (o->mask >> gs[k].first) & 1u;
        for (int32_t d = gs[k].first; d <= gs[k].last; d++)
            if (T(c, o->in[0])->shape[d] > 1 && ((o->mask >> d) & 1u) != red)
                { refuse(c, "internal: a group is partly reduced"); return; }
        if (red) {
            axes[na++] = (int32_t)(lead + k);
            ov[lead + k] = 1;
        }
    }
    bool pad_axis = na == 0 && lead > 0;
    if (pad_axis) { /* only 1-sized dims are reduced: over a 1-sized pad dim (a new tensor,
                       not the input's data under another name) */
        axes[na++] = 0;
    } else if (na == 0) { /* the values are the input's */
        if (!o->same_io) { refuse(c, "%s (op %d) over 1-sized dims changes the type", lg_builtin_name(o->code), o->src); return; }
        dc_union(c, o->in[0], o->out);
        return;
    }
    /* a region output that is exactly the kept groups (a scalar, say, which only a RESHAPE
       with a 0-element shape could make otherwise) is written without keep_dims */
    const rk_tensor *to = T(c, o->out);
    int32_t ks[LG_MAX_RANK];
    uint32_t nk = 0;
    for (uint32_t k = 0; k < n; k++)
        if (iv[lead + k] == ov[lead + k]) ks[nk++] = sizes[k];
    if (!pad_axis && to->role == RK_OUT && nk == to->rank && memcmp(ks, to->shape, nk * sizeof *ks) == 0) {
        for (uint32_t k = 0; k < na; k++) axes[k] -= (int32_t)lead;
        int32_t in = req(c, o->in[0], sizes, n);
        int32_t op = emit(c, o->code, o->src, &in, 1, out_tensor(c, o->out, ks, nk), o->out);
        if (op >= 0) {
            lgrk_low_vec(c->l, op, axes, na);
            c->l->o[op].axis = 0; /* keep_dims false */
        }
        return;
    }
    int32_t in = req(c, o->in[0], iv, RK_GPU_RANK);
    int32_t op = emit(c, o->code, o->src, &in, 1, out_tensor(c, o->out, ov, RK_GPU_RANK), o->out);
    if (op >= 0) {
        lgrk_low_vec(c->l, op, axes, na);
        c->l->o[op].axis = 1; /* keep_dims */
    }
}

/* The group of gs that starts at dim d, or -1. */
static int32_t group_at(const rk_group *gs, uint32_t n, int32_t d) {
    for (uint32_t k = 0; k < n; k++)
        if (gs[k].first == d) return (int32_t)k;
    return -1;
}

static void lower_concat(lctx *c, const rk_op *o) {
    if (o->n_in == 1) {
        dc_union(c, o->in[0], o->out);
        return;
    }
    rk_group gs[LG_MAX_RANK];
    uint32_t n = lgrk_groups(c->g, c->r, o->out, 0, gs);
    int32_t ga = group_at(gs, n, o->axis);
    if (ga < 0) { refuse(c, "internal: the concatenation axis does not start a group"); return; }
    int32_t sizes[LG_MAX_RANK], ov[RK_GPU_RANK], in[RK_MAX_IN];
    sizes_of(gs, n, sizes);
    if (!pad4(c, o, sizes, n, ov)) return;
    for (uint32_t k = 0; k < o->n_in; k++) {
        const rk_tensor *tx = T(c, o->in[k]);
        int32_t xs[LG_MAX_RANK], xv[RK_GPU_RANK];
        for (uint32_t j = 0; j < n; j++) {
            int64_t p = 1;
            for (int32_t d = gs[j].first; d <= gs[j].last; d++) p *= tx->shape[d];
            xs[j] = (int32_t)p;
        }
        if (!pad4(c, o, xs, n, xv)) return;
        in[k] = req(c, o->in[k], xv, RK_GPU_RANK);
    }
    int32_t op = emit(c, LG_OP_CONCATENATION, o->src, in, o->n_in,
                      out_tensor(c, o->out, ov, RK_GPU_RANK), o->out);
    if (op >= 0) c->l->o[op].axis = (int32_t)(RK_GPU_RANK - n) + ga;
}

static void lower_slice(lctx *c, const rk_op *o) {
    const rk_tensor *ti = T(c, o->in[0]);
    rk_group gs[LG_MAX_RANK];
    uint32_t n = lgrk_groups(c->g, c->r, o->in[0], 0, gs);
    int32_t sizes[LG_MAX_RANK], b[LG_MAX_RANK], w[LG_MAX_RANK], s[LG_MAX_RANK];
    bool any = false, strided = false;
    sizes_of(gs, n, sizes);
    for (uint32_t k = 0; k < n; k++) {
        int32_t f = gs[k].first, inner = gs[k].size / ti->shape[f];
        for (int32_t d = f + 1; d <= gs[k].last; d++)
            if (ti->shape[d] > 1 && !(o->v[d] == 0 && o->w[d] == ti->shape[d] && o->s[d] == 1))
                { refuse(c, "internal: a slice cuts inside a group"); return; }
        if (o->s[f] != 1 && inner != 1) { refuse(c, "internal: a strided slice of a group"); return; }
        b[k] = o->v[f] * inner;
        w[k] = o->w[f] * inner;
        s[k] = o->s[f];
        any |= !(b[k] == 0 && w[k] == sizes[k] && s[k] == 1);
        strided |= s[k] != 1;
    }
    if (!any) { /* the slice takes everything but 1-sized dims: the same data */
        dc_union(c, o->in[0], o->out);
        return;
    }
    int32_t iv[RK_GPU_RANK], ov[RK_GPU_RANK], bv[RK_GPU_RANK], wv[RK_GPU_RANK], sv[RK_GPU_RANK];
    if (!pad4(c, o, sizes, n, iv) || !pad4(c, o, w, n, ov)) return;
    uint32_t lead = RK_GPU_RANK - n;
    for (uint32_t k = 0; k < RK_GPU_RANK; k++) {
        bv[k] = k < lead ? 0 : b[k - lead];
        wv[k] = k < lead ? 1 : w[k - lead];
        sv[k] = k < lead ? 1 : s[k - lead];
    }
    int32_t in = req(c, o->in[0], iv, RK_GPU_RANK);
    int32_t op = emit(c, strided ? LG_OP_STRIDED_SLICE : LG_OP_SLICE, o->src, &in, 1,
                      out_tensor(c, o->out, ov, RK_GPU_RANK), o->out);
    if (op < 0) return;
    lgrk_low_vec(c->l, op, bv, RK_GPU_RANK);
    if (!strided) {
        lgrk_low_vec(c->l, op, wv, RK_GPU_RANK);
        return;
    }
    int32_t ev[RK_GPU_RANK];
    for (uint32_t k = 0; k < RK_GPU_RANK; k++) ev[k] = bv[k] + (wv[k] - 1) * sv[k] + 1;
    lgrk_low_vec(c->l, op, ev, RK_GPU_RANK);
    lgrk_low_vec(c->l, op, sv, RK_GPU_RANK);
}

static void lower_gather(lctx *c, const rk_op *o) {
    rk_group gi[LG_MAX_RANK], go[LG_MAX_RANK];
    uint32_t ni = lgrk_groups(c->g, c->r, o->in[0], 1u << o->axis, gi);
    uint32_t no = lgrk_groups(c->g, c->r, o->out, 1u << o->axis, go);
    int32_t ga = group_at(gi, ni, o->axis);
    if (ni != no || ga < 0 || group_at(go, no, o->axis) != ga)
        { refuse(c, "internal: gather groups differ"); return; }
    int32_t si[LG_MAX_RANK], so[LG_MAX_RANK], iv[RK_GPU_RANK], ov[RK_GPU_RANK];
    sizes_of(gi, ni, si);
    sizes_of(go, no, so);
    if (!pad4(c, o, si, ni, iv) || !pad4(c, o, so, no, ov)) return;
    const rk_tensor *tx = T(c, o->in[1]);
    int32_t in[2] = {req(c, o->in[0], iv, RK_GPU_RANK), req(c, o->in[1], tx->shape, tx->rank)};
    int32_t op = emit(c, LG_OP_GATHER, o->src, in, 2, out_tensor(c, o->out, ov, RK_GPU_RANK), o->out);
    if (op >= 0) c->l->o[op].axis = (int32_t)(RK_GPU_RANK - ni) + ga;
}

static void lower_bmm(lctx *c, const rk_op *o) {
    const rk_tensor *to = T(c, o->out);
    int32_t ro = (int32_t)to->rank;
    rk_group gs[LG_MAX_RANK];
    uint32_t n = lgrk_groups(c->g, c->r, o->out, 3u << (ro - 2), gs);
    const rk_tensor *ta = T(c, o->in[0]), *tb = T(c, o->in[1]);
    if (n == RK_GPU_RANK && o->in[0] != o->in[1] && dc_find(c, o->in[0]) == dc_find(c, o->in[1]) &&
        ta->rank == to->rank && tb->rank == to->rank &&
        memcmp(ta->shape, to->shape, (size_t)(ro - 2) * sizeof *ta->shape) == 0 &&
        memcmp(tb->shape, to->shape, (size_t)(ro - 2) * sizeof *tb->shape) == 0) {
        /* both operands hold the same data, full over the batch: one batch group, so that
           distinct() has a leading 1 to drop */
        gs[0].last = gs[1].last;
        gs[0].size *= gs[1].size;
        memmove(gs + 1, gs + 2, (n - 2) * sizeof *gs);
        n--;
    }
    int32_t sizes[LG_MAX_RANK], ov[RK_GPU_RANK], in[2];
    sizes_of(gs, n, sizes);
    if (!pad4(c, o, sizes, n, ov)) return;
    for (int k = 0; k < 2; k++) {
        const rk_tensor *tx = T(c, o->in[k]);
        int32_t rx = (int32_t)tx->rank, xs[LG_MAX_RANK], xv[RK_GPU_RANK];
        if (!operand_view(c, o->in[k], rx - 2, ro - 2, gs, n - 2, to->shape, xs)) return;
        xs[n - 2] = tx->shape[rx - 2];
        xs[n - 1] = tx->shape[rx - 1];
        if (!pad4(c, o, xs, n, xv)) return;
        in[k] = distinct(c, o, in, (uint32_t)k, xv);
    }
    emit(c, LG_OP_BATCH_MATMUL, o->src, in, 2, out_tensor(c, o->out, ov, RK_GPU_RANK), o->out);
}

/* t's data is already held as a scalar (an op wrote it). */
static bool has_scalar(lctx *c, int32_t t) {
    for (int32_t k = c->head[dc_find(c, t)]; k >= 0; k = c->l->t[k].next)
        if (c->l->t[k].rank == 0) return true;
    return false;
}

/* Each RK_OUT tensor written: by renaming the realization that has its shape, or by a
   RESHAPE into it. */
static void write_outputs(lctx *c) {
    for (uint32_t t = 0; t < c->r->nt && c->ok && c->st == LG_OK; t++) {
        const rk_tensor *x = T(c, (int32_t)t);
        if (x->role != RK_OUT) continue;
        if (x->rank == 0 && !has_scalar(c, (int32_t)t)) {
            /* a RESHAPE to rank 0 has a 0-element shape, which TFLite (and check:
               dynamic-tensor) reads as computed at run time */
            refuse(c, "a scalar region output would need a RESHAPE to rank 0");
            return;
        }
        int32_t lt = req(c, (int32_t)t, x->shape, x->rank);
        if (lt < 0) return;
        rk_ltensor *y = &c->l->t[lt];
        if (y->is_const || (y->gid < 0 && y->prod < 0)) { refuse(c, "a region output is constant (fold it first)"); return; }
        if (y->gid < 0) {
            y->gid = x->gid;
            continue;
        }

        int32_t nt = lgrk_low_tensor(c->l, x, x->shape, x->rank, x->gid, false);
        int32_t op = nt < 0 ? -1 : lgrk_low_op(c->l, LG_OP_RESHAPE, -1, &lt, 1, nt);
        if (op < 0) { nomem(c); return; }
        lgrk_low_vec(c->l, op, x->shape, x->rank);
    }
}

/* Ops whose result reaches a written graph tensor (reverse creation order is topological). */
static void mark_live(rk_low *l) {
    l->n_live = 0;
    for (int32_t i = (int32_t)l->no - 1; i >= 0; i--) {
        rk_lop *o = &l->o[i];
        if (l->t[o->out].gid >= 0) o->live = true;
        if (!o->live) continue;
        l->n_live++;
        for (uint32_t k = 0; k < o->n_in; k++)
            if (l->t[o->in[k]].prod >= 0) l->o[l->t[o->in[k]].prod].live = true;
    }
}

lg_status lgrk_lower(const rk_region *r, rk_grouping *g, rk_low *l, bool *ok, char *why,
                     size_t nwhy, lg_error *err) {
    memset(l, 0, sizeof *l);
    *ok = false;
    lctx c = {r, g, l, NULL, NULL, NULL, true, why, nwhy, LG_OK, err};
    size_t n = r->nt ? r->nt : 1;
    c.dc = malloc(n * sizeof *c.dc);
    c.head = malloc(n * sizeof *c.head);
    c.csrc = malloc(n * sizeof *c.csrc);
    if (!c.dc || !c.head || !c.csrc) nomem(&c);
    for (uint32_t t = 0; t < r->nt && c.st == LG_OK; t++) {
        c.dc[t] = (int32_t)t;
        c.head[t] = -1;
        c.csrc[t] = r->t[t].role == RK_CONST ? (int32_t)t : -1;
        if (r->t[t].role == RK_IN) {
            int32_t lt = lgrk_low_tensor(l, &r->t[t], r->t[t].shape, r->t[t].rank, r->t[t].gid, false);
            if (lt < 0) nomem(&c);
            c.head[t] = lt;
        }
    }
    for (uint32_t i = 0; i < r->no && c.ok && c.st == LG_OK; i++) {
        const rk_op *o = &r->o[i];
        switch (o->kind) {
        case K_RESHAPE: dc_union(&c, o->in[0], o->out); break;
        case K_TRANSPOSE: lower_transpose(&c, o); break;
        case K_EW: case K_SOFTMAX: lower_ew(&c, o); break;
        case K_REDUCE: lower_reduce(&c, o); break;
        case K_CONCAT: lower_concat(&c, o); break;
        case K_SLICE: lower_slice(&c, o); break;
        case K_GATHER: lower_gather(&c, o); break;
        case K_BMM: lower_bmm(&c, o); break;
        default: refuse(&c, "internal: unknown op kind"); break;
        }
    }
    if (c.ok && c.st == LG_OK) write_outputs(&c);
    free(c.dc);
    free(c.head);
    free(c.csrc);
    if (c.st != LG_OK || !c.ok) {
        lgrk_low_free(l);
        return c.st;
    }
    mark_live(l);
    *ok = true;
    return LG_OK;
}
