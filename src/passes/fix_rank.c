/* reduce-rank: rewrite every op chain that carries rank >= 5 tensors at rank <= 4 (the
 * tensor-rank rule; src/check/check.c check_tensors flags each input or output of rank >= 5,
 * as both delegates' IsAllAllowedTensors do).
 *
 * A region is a maximal set of ops connected through rank >= 5 tensors; it is entered and
 * left through rank <= 4 tensors (typically a RESHAPE up to rank 5 or 6 at the start and
 * one back at the end), which keep their shapes and names. The pass matches at the first op
 * of each region and rewrites the whole region at once:
 *
 *  1. the region is read into an abstract copy (fix_rank.h): RESHAPE (SQUEEZE, EXPAND_DIMS),
 *     TRANSPOSE, elementwise ops (numpy broadcasting, e.g. against constants), SOFTMAX and
 *     LOG_SOFTMAX (last axis), MEAN/SUM/REDUCE_*, CONCATENATION, SLICE, STRIDED_SLICE (no
 *     ellipsis/new-axis masks, positive strides), GATHER on one axis (constant indices become
 *     SLICEs and a CONCATENATION), BATCH_MATMUL, PACK, UNPACK, SPLIT, SPLIT_V;
 *  2. if the region is exactly DEPTH_TO_SPACE or SPACE_TO_DEPTH on NHWC data (proved on
 *     every element, fix_rank_emit.c), that op;
 *  3. else the coarsest grouping of every tensor's dims (unit dims dropped, dims that stay
 *     adjacent and in order through every op merged: fix_rank_group.c), lowered to rank 4
 *     (fix_rank_lower.c);
 *  4. where no grouping reaches rank 4, a split along one axis into k <= 16 pieces, entered
 *     with SLICEs and left with a CONCATENATION (fix_rank_split.c), the cheapest that works;
 *  5. else nothing changes and the skip says why.
 *
 * Only layouts change: every value is computed by the same op on the same operands in the
 * same order, so the result is bit-exact (MEAN over a merged group may divide where it
 * multiplied by the reciprocal, 1 ulp, within the runner's bound). */
#include <stdlib.h>

#include "passes/fix_rank.h"

/* ------------------------------------------------------------------ the region IR */

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

int32_t lgrk_add_tensor(rk_region *r, const rk_tensor *t) {
    if (!grow((void **)&r->t, &r->ct, r->nt + 1, sizeof *r->t)) return -1;
    r->t[r->nt] = *t;
    return (int32_t)r->nt++;
}

int32_t lgrk_add_op(rk_region *r, const rk_op *o) {
    if (!grow((void **)&r->o, &r->co, r->no + 1, sizeof *r->o)) return -1;
    r->o[r->no] = *o;
    return (int32_t)r->no++;
}

void lgrk_region_free(rk_region *r) {
    free(r->t);
    free(r->o);
    memset(r, 0, sizeof *r);
}

int64_t lgrk_numel(const rk_tensor *t) {
    int64_t n = 1;
    for (uint32_t d = 0; d < t->rank; d++) n *= t->shape[d];
    return n;
}

int32_t lgrk_next_nu(const rk_tensor *t, int32_t d) {
    for (int32_t e = d + 1; e < (int32_t)t->rank; e++)
        if (t->shape[e] > 1) return e;
    return -1;
}

int32_t lgrk_prev_nu(const rk_tensor *t, int32_t d) {
    for (int32_t e = d - 1; e >= 0; e--)
        if (t->shape[e] > 1) return e;
    return -1;
}

/* ------------------------------------------------------------------ the region's ops */

static bool big(const lg_pass_ctx *c, int32_t t) { return t >= 0 && lgp_tensor(c, t)->rank >= 5; }

static bool touches_big(const lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    for (uint32_t k = 0; k < op->n_inputs; k++)
        if (big(c, op->inputs[k])) return true;
    for (uint32_t k = 0; k < op->n_outputs; k++)
        if (big(c, op->outputs[k])) return true;
    return false;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* The ops reachable from op i through rank >= 5 tensors (producers and consumers), sorted. */
static lg_status region_ops(const lg_pass_ctx *c, const lg_graph *g, uint32_t i, int32_t **ops,
                            uint32_t *n) {
    const lg_subgraph *s = &c->m->subgraphs[c->sg];
    *ops = malloc(s->n_ops * sizeof **ops);
    uint8_t *seen = calloc(s->n_ops, 1);
    if (!*ops || !seen) {
        free(*ops);
        free(seen);
        *ops = NULL;
        return lgi_fail(c->err, LG_ERR_NOMEM, "reduce-rank: out of memory");
    }
    uint32_t k = 0;
    (*ops)[k++] = (int32_t)i;
    seen[i] = 1;
    for (uint32_t h = 0; h < k; h++) {
        const lg_op *op = lgp_op(c, (uint32_t)(*ops)[h]);
        for (uint32_t j = 0; j < op->n_inputs + op->n_outputs; j++) {
            int32_t t = j < op->n_inputs ? op->inputs[j] : op->outputs[j - op->n_inputs];
            if (!big(c, t)) continue;
            int32_t p = lg_graph_producer(g, t);
            if (p >= 0 && !seen[p]) {
                seen[p] = 1;
                (*ops)[k++] = p;
            }
            uint32_t nu = 0;
            const lg_use *u = lg_graph_uses(g, t, &nu);
            for (uint32_t q = 0; q < nu; q++)
                if (!seen[u[q].op]) {
                    seen[u[q].op] = 1;
                    (*ops)[k++] = u[q].op;
                }
        }
    }
    free(seen);
    qsort(*ops, k, sizeof **ops, cmp_i32);
    *n = k;
    return LG_OK;
}

/* ------------------------------------------------------------------ reading the region */

typedef struct xctx {
    const lg_pass_ctx *c;
    const lg_graph *g;
    rk_region *r;
    int32_t *map;     /* graph tensor -> region tensor, -1 */
    uint8_t *inreg;   /* graph op in the region */
    bool ok;
    char *why;
    size_t nwhy;
    lg_status st;
} xctx;

static void refuse(xctx *x, const char *fmt, ...) LGI_PRINTF(2, 3);
static void refuse(xctx *x, const char *fmt, ...) {
    if (!x->ok) return;
    x->ok = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->why, x->nwhy, fmt, ap);
    va_end(ap);
}

static void nomem(xctx *x) {
    if (x->st == LG_OK) x->st = lgi_fail(x->c->err, LG_ERR_NOMEM, "reduce-rank: out of memory");
    x->ok = false;
}

static bool dynamic(const lg_tensor *t) {
    for (uint32_t d = 0; d < t->n_shape_signature; d++)
        if (t->shape_signature[d] < 0) return true;
    return false;
}

/* The region tensor of graph tensor t (made on first use), or -1 (refused). */
static int32_t rt(xctx *x, int32_t t) {
    if (!x->ok) return -1;
    if (t < 0) {
        refuse(x, "an absent optional input");
        return -1;
    }
    if (x->map[t] >= 0) return x->map[t];
    const lg_tensor *tt = lgp_tensor(x->c, t);
    int64_t n = lg_tensor_numel(tt);
    bool is_const = lg_tensor_is_const(x->c->m, x->c->sg, t);
    int bits = lg_dtype_bits(tt->type);
    if (tt->rank > LG_MAX_RANK || dynamic(tt) || n <= 0 || n > INT32_MAX || tt->sparsity ||
        (tt->quant && (tt->quant->n_scale > 1 || tt->quant->n_zero_point > 1)) ||
        (is_const && (bits <= 0 || bits % 8))) {
        refuse(x, "tensor %d \"%.40s\" is dynamic, empty, sparse, per-axis quantized or packed", t,
               tt->name ? tt->name : "");
        return -1;
    }
    rk_tensor r;
    memset(&r, 0, sizeof r);
    memcpy(r.shape, tt->shape, tt->rank * sizeof *r.shape);
    r.rank = tt->rank;
    r.gid = r.like = t;
    r.cdim = r.cidx = -1;
    memcpy(r.csh, r.shape, sizeof r.csh);
    r.crank = r.rank;
    int32_t p = lg_graph_producer(x->g, t);
    if (is_const) {
        r.role = RK_CONST;
    } else if (tt->rank >= 5) {
        if (lg_graph_is_input(x->g, t) || lg_graph_is_output(x->g, t) || p < 0) {
            refuse(x, "tensor %d of rank %u is a graph input or output", t, tt->rank);
            return -1;
        }
        r.role = RK_TMP;
    } else {
        r.role = p >= 0 && x->inreg[p] ? RK_OUT : RK_IN;
    }
    int32_t id = lgrk_add_tensor(x->r, &r);
    if (id < 0) return nomem(x), -1;
    x->map[t] = id;
    return id;
}

/* A new region tensor like region tensor `like` with the given shape. */
static int32_t tmp(xctx *x, int32_t like, const int32_t *shape, uint32_t rank) {
    if (!x->ok) return -1;
    rk_tensor r;
    memset(&r, 0, sizeof r);
    memcpy(r.shape, shape, rank * sizeof *shape);
    r.rank = rank;
    r.role = RK_TMP;
    r.gid = -1;
    r.like = x->r->t[like].like;
    r.cdim = r.cidx = -1;
    int32_t id = lgrk_add_tensor(x->r, &r);
    if (id < 0) nomem(x);
    return id;
}

static void add(xctx *x, rk_op *o) {
    if (!x->ok) return;
    bool all_const = true;
    for (uint32_t k = 0; k < o->n_in; k++) all_const &= x->r->t[o->in[k]].role == RK_CONST;
    if (all_const) {
        refuse(x, "%s (op %d) has only constant inputs (fold them first)", lg_builtin_name(o->code), o->src);
        return;
    }
    if (lgrk_add_op(x->r, o) < 0) nomem(x);
}

static rk_op op_of(uint8_t kind, int32_t code, int32_t src) {
    rk_op o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    o.code = code;
    o.src = src;
    o.same_io = true;
    return o;
}

static void reshape(xctx *x, int32_t src, int32_t in, int32_t out) {
    rk_op o = op_of(K_RESHAPE, LG_OP_RESHAPE, src);
    o.in[0] = in;
    o.n_in = 1;
    o.out = out;
    add(x, &o);
}

/* SLICE of region tensor in: begin b, size w, stride s (NULL: 1) into out. */
static void slice(xctx *x, int32_t src, int32_t in, const int32_t *b, const int32_t *w,
                  const int32_t *s, int32_t out) {
    rk_op o = op_of(K_SLICE, LG_OP_SLICE, src);
    o.in[0] = in;
    o.n_in = 1;
    o.out = out;
    for (uint32_t d = 0; d < x->r->t[in].rank; d++) {
        o.v[d] = b[d];
        o.w[d] = w[d];
        o.s[d] = s && w[d] > 1 ? s[d] : 1;
    }
    add(x, &o);
}

static const rk_tensor *RT(const xctx *x, int32_t t) { return &x->r->t[t]; }

static bool ints(xctx *x, int32_t t, int64_t *v, uint32_t max, uint32_t *n) {
    if (t >= 0 && lgp_const_ints(x->c, t, v, max, n)) return true;
    refuse(x, "a shape parameter (tensor %d) is not constant", t);
    return false;
}

static bool same_layout_io(const lg_pass_ctx *c, const lg_op *op) {
    const lg_tensor *a = lgp_tensor(c, op->inputs[0]), *b = lgp_tensor(c, op->outputs[0]);
    return a->type == b->type && lg_tensor_same_quant(a, b);
}

/* Input k of op is a numpy broadcast operand of its output (or has its shape exactly). */
static bool operand_ok(const rk_tensor *in, const rk_tensor *out, bool bcast) {
    if (in->rank > out->rank || (!bcast && in->rank != out->rank)) return false;
    uint32_t off = out->rank - in->rank;
    for (uint32_t d = 0; d < in->rank; d++)
        if (in->shape[d] != out->shape[d + off] && !(bcast && in->shape[d] == 1)) return false;
    return true;
}

static void x_ew(xctx *x, uint32_t i, const lg_op *op, uint32_t flags, int32_t code) {
    bool softmax = code == LG_OP_SOFTMAX || code == LG_OP_LOG_SOFTMAX;
    rk_op o = op_of(softmax ? K_SOFTMAX : K_EW, code, (int32_t)i);
    if (op->n_outputs != 1 || op->n_inputs > RK_MAX_IN || op->n_inputs == 0) {
        refuse(x, "%s has %u inputs and %u outputs", lg_builtin_name(code), op->n_inputs, op->n_outputs);
        return;
    }
    o.out = rt(x, op->outputs[0]);
    for (uint32_t k = 0; k < op->n_inputs; k++) o.in[k] = rt(x, op->inputs[k]);
    o.n_in = op->n_inputs;
    if (!x->ok) return;
    bool any_rt = false;
    for (uint32_t k = 0; k < o.n_in; k++) {
        if (!operand_ok(RT(x, o.in[k]), RT(x, o.out), (flags & LG_OPF_BROADCAST) != 0)) {
            refuse(x, "%s (op %u) operand %u does not broadcast to its output", lg_builtin_name(code), i, k);
            return;
        }
        any_rt |= RT(x, o.in[k])->role != RK_CONST;
    }
    if (!any_rt) {
        refuse(x, "%s (op %u) has only constant inputs (fold them first)", lg_builtin_name(code), i);
        return;
    }
    o.same_io = same_layout_io(x->c, op);
    add(x, &o);
}

static void x_transpose(xctx *x, uint32_t i, const lg_op *op) {
    rk_op o = op_of(K_TRANSPOSE, LG_OP_TRANSPOSE, (int32_t)i);
    int64_t p[LG_MAX_RANK];
    uint32_t n = 0;
    if (op->n_inputs != 2 || op->n_outputs != 1 || !ints(x, op->inputs[1], p, LG_MAX_RANK, &n)) {
        refuse(x, "TRANSPOSE (op %u) without a constant permutation", i);
        return;
    }
    o.in[0] = rt(x, op->inputs[0]);
    o.n_in = 1;
    o.out = rt(x, op->outputs[0]);
    if (!x->ok) return;
    unsigned seen = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (n != RT(x, o.in[0])->rank || p[k] < 0 || p[k] >= n || (seen >> p[k]) & 1u) {
            refuse(x, "TRANSPOSE (op %u) has a bad permutation", i);
            return;
        }
        seen |= 1u << p[k];
        o.v[k] = (int32_t)p[k];
    }
    add(x, &o);
}

static void x_reduce(xctx *x, uint32_t i, const lg_op *op, int32_t code) {
    rk_op o = op_of(K_REDUCE, code, (int32_t)i);
    int64_t ax[16];
    uint32_t n = 0;
    if (op->n_inputs != 2 || op->n_outputs != 1 || !ints(x, op->inputs[1], ax, 16, &n)) return;
    o.in[0] = rt(x, op->inputs[0]);
    o.n_in = 1;
    o.out = rt(x, op->outputs[0]);
    if (!x->ok) return;
    int64_t r = RT(x, o.in[0])->rank;
    for (uint32_t k = 0; k < n; k++) {
        int64_t a = ax[k] < 0 ? ax[k] + r : ax[k];
        if (a < 0 || a >= r) {
            refuse(x, "%s (op %u) axis out of range", lg_builtin_name(code), i);
            return;
        }
        o.mask |= 1u << a;
    }
    o.same_io = same_layout_io(x->c, op);
    add(x, &o);
}

static void x_concat(xctx *x, uint32_t i, const lg_op *op) {
    rk_op o = op_of(K_CONCAT, LG_OP_CONCATENATION, (int32_t)i);
    if (op->n_outputs != 1 || op->n_inputs > RK_MAX_IN || op->n_inputs == 0) {
        refuse(x, "CONCATENATION (op %u) has %u inputs", i, op->n_inputs);
        return;
    }
    o.out = rt(x, op->outputs[0]);
    for (uint32_t k = 0; k < op->n_inputs; k++) o.in[k] = rt(x, op->inputs[k]);
    o.n_in = op->n_inputs;
    if (!x->ok) return;
    lg_concatenation_options c0;
    lg_opts_init(LG_OPTS_CONCATENATION_OPTIONS, &c0, sizeof c0);
    const lg_concatenation_options *co = op->opts_kind == LG_OPTS_CONCATENATION_OPTIONS && op->opts ? op->opts : &c0;
    int32_t r = (int32_t)RT(x, o.out)->rank;
    o.axis = co->axis < 0 ? co->axis + r : co->axis;
    for (uint32_t k = 0; k < o.n_in; k++)
        if (RT(x, o.in[k])->rank != (uint32_t)r || o.axis < 0 || o.axis >= r) {
            refuse(x, "CONCATENATION (op %u) operands of another rank", i);
            return;
        }
    /* a fused activation becomes its own op after the join (act(concat) is the same values),
       so the join itself can be regrouped or become a choice of pieces */
    static const int32_t act[5] = {-1, LG_OP_RELU, LG_OP_RELU_N1_TO_1, LG_OP_RELU6, LG_OP_TANH};
    int8_t fa = co->fused_activation_function;
    if (fa == 0) {
        add(x, &o);
        return;
    }
    if (fa < 0 || fa > 4) {
        refuse(x, "CONCATENATION (op %u) with fused activation %d", i, fa);
        return;
    }
    int32_t out = o.out;
    o.out = tmp(x, out, RT(x, out)->shape, (uint32_t)r);
    add(x, &o);
    rk_op e = op_of(K_EW, act[fa], -1); /* no options: not the CONCATENATION's */
    e.in[0] = o.out;
    e.n_in = 1;
    e.out = out;
    add(x, &e);
}

static void x_slice(xctx *x, uint32_t i, const lg_op *op) {
    int64_t b[LG_MAX_RANK], w[LG_MAX_RANK];
    uint32_t nb = 0, nw = 0;
    if (op->n_inputs != 3 || op->n_outputs != 1 || !ints(x, op->inputs[1], b, LG_MAX_RANK, &nb) ||
        !ints(x, op->inputs[2], w, LG_MAX_RANK, &nw))
        return;
    int32_t in = rt(x, op->inputs[0]), out = rt(x, op->outputs[0]);
    if (!x->ok) return;
    const rk_tensor *ti = RT(x, in);
    int32_t bb[LG_MAX_RANK], ww[LG_MAX_RANK];
    if (nb != ti->rank || nw != ti->rank) {
        refuse(x, "SLICE (op %u) parameters of another rank", i);
        return;
    }
    for (uint32_t d = 0; d < ti->rank; d++) {
        bb[d] = (int32_t)b[d];
        ww[d] = w[d] < 0 ? ti->shape[d] - bb[d] : (int32_t)w[d];
        if (bb[d] < 0 || ww[d] < 1 || bb[d] + ww[d] > ti->shape[d] || ww[d] != RT(x, out)->shape[d]) {
            refuse(x, "SLICE (op %u) out of range", i);
            return;
        }
    }
    slice(x, (int32_t)i, in, bb, ww, NULL, out);
}

/* STRIDED_SLICE with positive strides and no ellipsis / new-axis / offset: begin, size,
   stride per dim, as strided_slice.cc (StartForAxis / StopForAxis, clamped; a shrunk axis
   takes one element) computes them; a shrunk axis then goes away in a RESHAPE. */
static void x_strided_slice(xctx *x, uint32_t i, const lg_op *op) {
    lg_strided_slice_options d0;
    lg_opts_init(LG_OPTS_STRIDED_SLICE_OPTIONS, &d0, sizeof d0);
    const lg_strided_slice_options *so = op->opts_kind == LG_OPTS_STRIDED_SLICE_OPTIONS && op->opts
                                             ? op->opts : &d0;
    int64_t b[LG_MAX_RANK], e[LG_MAX_RANK], s[LG_MAX_RANK];
    uint32_t nb = 0, ne = 0, ns = 0;
    if (op->n_inputs != 4 || op->n_outputs != 1 || so->ellipsis_mask || so->new_axis_mask || so->offset) {
        refuse(x, "STRIDED_SLICE (op %u) with ellipsis, new-axis or offset", i);
        return;
    }
    if (!ints(x, op->inputs[1], b, LG_MAX_RANK, &nb) || !ints(x, op->inputs[2], e, LG_MAX_RANK, &ne) ||
        !ints(x, op->inputs[3], s, LG_MAX_RANK, &ns))
        return;
    int32_t in = rt(x, op->inputs[0]), out = rt(x, op->outputs[0]);
    if (!x->ok) return;
    const rk_tensor *ti = RT(x, in);
    uint32_t r = ti->rank;
    if (nb != r || ne != r || ns != r) {
        refuse(x, "STRIDED_SLICE (op %u) parameters of another rank", i);
        return;
    }
    int32_t bb[LG_MAX_RANK], ww[LG_MAX_RANK], ss[LG_MAX_RANK], shape[LG_MAX_RANK];
    uint32_t no = 0;
    for (uint32_t d = 0; d < r; d++) {
        int64_t n = ti->shape[d], st = b[d], en = e[d];
        if (s[d] <= 0) {
            refuse(x, "STRIDED_SLICE (op %u) with a stride <= 0", i);
            return;
        }
        if (st < 0) st += n;
        st = st < 0 ? 0 : st > n ? n : st;
        if ((so->begin_mask >> d) & 1) st = 0;
        if ((so->shrink_axis_mask >> d) & 1) {
            en = st + 1;
        } else {
            if (en < 0) en += n;
            en = en < 0 ? 0 : en > n ? n : en;
            if ((so->end_mask >> d) & 1) en = n;
        }
        int64_t sz = en > st ? (en - st - 1) / s[d] + 1 : 0;
        if (sz < 1 || st >= n) {
            refuse(x, "STRIDED_SLICE (op %u) takes nothing", i);
            return;
        }
        bb[d] = (int32_t)st;
        ww[d] = (int32_t)sz;
        ss[d] = (int32_t)s[d];
        if (!((so->shrink_axis_mask >> d) & 1)) shape[no++] = ww[d];
    }
    const rk_tensor *to = RT(x, out);
    if (no != to->rank || memcmp(shape, to->shape, no * sizeof *shape) != 0) {
        refuse(x, "STRIDED_SLICE (op %u) output shape differs", i);
        return;
    }
    if (!so->shrink_axis_mask) {
        slice(x, (int32_t)i, in, bb, ww, ss, out);
        return;
    }
    int32_t mid = tmp(x, out, ww, r);
    slice(x, (int32_t)i, in, bb, ww, ss, mid);
    reshape(x, (int32_t)i, mid, out);
}

/* GATHER with constant indices: one SLICE per run of consecutive indices, joined by a
   CONCATENATION; a scalar index drops the axis (a RESHAPE). Runtime indices stay a GATHER
   (a scalar index reshaped to [1]). */
static void x_gather(xctx *x, uint32_t i, const lg_op *op) {
    lg_gather_options g0;
    lg_opts_init(LG_OPTS_GATHER_OPTIONS, &g0, sizeof g0);
    const lg_gather_options *go = op->opts_kind == LG_OPTS_GATHER_OPTIONS && op->opts ? op->opts : &g0;
    if (op->n_inputs != 2 || op->n_outputs != 1 || go->batch_dims != 0) {
        refuse(x, "GATHER (op %u) with batch_dims", i);
        return;
    }
    int32_t in = rt(x, op->inputs[0]), idx = rt(x, op->inputs[1]), out = rt(x, op->outputs[0]);
    if (!x->ok) return;
    const rk_tensor ti0 = *RT(x, in), *ti = &ti0; /* a copy: tmp() may move the array */
    int32_t a = go->axis < 0 ? go->axis + (int32_t)ti->rank : go->axis;
    uint32_t ir = RT(x, idx)->rank;
    if (a < 0 || a >= (int32_t)ti->rank || ir > 1) {
        refuse(x, "GATHER (op %u) with indices of rank %u", i, ir);
        return;
    }
    int64_t n = ti->shape[a];
    int32_t shape[LG_MAX_RANK];
    memcpy(shape, ti->shape, sizeof shape);
    int32_t L = ir ? RT(x, idx)->shape[0] : 1;
    shape[a] = L;
    int32_t mid = ir ? out : tmp(x, out, shape, ti->rank);
    if (RT(x, idx)->role == RK_CONST) {
        int64_t v[RK_MAX_IN];
        uint32_t nv = 0;
        if (!lgp_const_ints(x->c, op->inputs[1], v, RK_MAX_IN, &nv) || nv != (uint32_t)L) {
            refuse(x, "GATHER (op %u) with more than %d constant indices", i, RK_MAX_IN);
            return;
        }
        rk_op cat = op_of(K_CONCAT, LG_OP_CONCATENATION, (int32_t)i);
        cat.axis = a;
        cat.out = mid;
        for (uint32_t k = 0; k < nv;) {
            uint32_t e = k + 1;
            int64_t s0 = v[k] < 0 ? v[k] + n : v[k];
            while (e < nv && (v[e] < 0 ? v[e] + n : v[e]) == s0 + (int64_t)(e - k)) e++;
            if (s0 < 0 || s0 + (int64_t)(e - k) > n) {
                refuse(x, "GATHER (op %u) index out of range", i);
                return;
            }
            int32_t b[LG_MAX_RANK] = {0}, w[LG_MAX_RANK];
            memcpy(w, ti->shape, sizeof w);
            b[a] = (int32_t)s0;
            w[a] = (int32_t)(e - k);
            int32_t part = nv == e - k ? mid : tmp(x, out, w, ti->rank);
            slice(x, (int32_t)i, in, b, w, NULL, part);
            cat.in[cat.n_in++] = part;
            k = e;
        }
        if (cat.n_in > 1) add(x, &cat);
    } else {
        rk_op o = op_of(K_GATHER, LG_OP_GATHER, (int32_t)i);
        int32_t one = 1;
        o.in[0] = in;
        o.in[1] = ir ? idx : tmp(x, idx, &one, 1);
        if (!ir) reshape(x, (int32_t)i, idx, o.in[1]);
        o.n_in = 2;
        o.out = mid;
        o.axis = a;
        add(x, &o);
    }
    if (!ir) reshape(x, (int32_t)i, mid, out);
}

static void x_bmm(xctx *x, uint32_t i, const lg_op *op) {
    rk_op o = op_of(K_BMM, LG_OP_BATCH_MATMUL, (int32_t)i);
    if (op->n_inputs != 2 || op->n_outputs != 1) {
        refuse(x, "BATCH_MATMUL (op %u) with %u inputs", i, op->n_inputs);
        return;
    }
    o.in[0] = rt(x, op->inputs[0]);
    o.in[1] = rt(x, op->inputs[1]);
    o.n_in = 2;
    o.out = rt(x, op->outputs[0]);
    if (!x->ok) return;
    const rk_tensor *ta = RT(x, o.in[0]), *tb = RT(x, o.in[1]), *to = RT(x, o.out);
    if (ta->rank < 2 || tb->rank < 2 || to->rank < 2) {
        refuse(x, "BATCH_MATMUL (op %u) of rank < 2", i);
        return;
    }
    if (op->opts_kind == LG_OPTS_BATCH_MAT_MUL_OPTIONS && op->opts) {
        const lg_batch_mat_mul_options *bo = op->opts;
        o.mask = (bo->adj_x ? 1u : 0) | (bo->adj_y ? 2u : 0);
    }
    for (int k = 0; k < 2; k++) {
        const rk_tensor *tx = RT(x, o.in[k]);
        uint32_t nbx = tx->rank - 2, nbo = to->rank - 2;
        if (nbx > nbo) goto bad;
        for (uint32_t d = 0; d < nbx; d++)
            if (tx->shape[d] != 1 && tx->shape[d] != to->shape[d + nbo - nbx]) goto bad;
    }
    add(x, &o);
    return;
bad:
    refuse(x, "BATCH_MATMUL (op %u) batch dims do not broadcast", i);
}

static void x_pack(xctx *x, uint32_t i, const lg_op *op) {
    lg_pack_options p0;
    lg_opts_init(LG_OPTS_PACK_OPTIONS, &p0, sizeof p0);
    const lg_pack_options *po = op->opts_kind == LG_OPTS_PACK_OPTIONS && op->opts ? op->opts : &p0;
    if (op->n_outputs != 1 || op->n_inputs > RK_MAX_IN) {
        refuse(x, "PACK (op %u) of %u inputs", i, op->n_inputs);
        return;
    }
    int32_t out = rt(x, op->outputs[0]);
    if (!x->ok) return;
    int32_t r = (int32_t)RT(x, out)->rank, a = po->axis < 0 ? po->axis + r : po->axis;
    if (a < 0 || a >= r) {
        refuse(x, "PACK (op %u) axis out of range", i);
        return;
    }
    rk_op cat = op_of(K_CONCAT, LG_OP_CONCATENATION, (int32_t)i);
    cat.axis = a;
    cat.out = out;
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t in = rt(x, op->inputs[k]), shape[LG_MAX_RANK];
        if (!x->ok) return;
        memcpy(shape, RT(x, out)->shape, sizeof shape);
        shape[a] = 1;
        int32_t mid = tmp(x, in, shape, (uint32_t)r);
        reshape(x, (int32_t)i, in, mid);
        cat.in[cat.n_in++] = mid;
    }
    add(x, &cat);
}

/* UNPACK, SPLIT, SPLIT_V: one SLICE per output along the axis (UNPACK's then reshaped). */
static void x_split(xctx *x, uint32_t i, const lg_op *op, int32_t code) {
    int32_t data = code == LG_OP_SPLIT ? 1 : 0, axis = 0;
    if ((uint32_t)data >= op->n_inputs) {
        refuse(x, "%s (op %u) without data", lg_builtin_name(code), i);
        return;
    }
    int32_t in = rt(x, op->inputs[data]);
    if (!x->ok) return;
    const rk_tensor ti0 = *RT(x, in), *ti = &ti0; /* a copy: tmp() may move the array */
    if (code == LG_OP_UNPACK) {
        axis = op->opts_kind == LG_OPTS_UNPACK_OPTIONS && op->opts ? ((const lg_unpack_options *)op->opts)->axis : 0;
    } else {
        int64_t v[1];
        uint32_t n = 0;
        int32_t at = code == LG_OP_SPLIT ? op->inputs[0] : (op->n_inputs == 3 ? op->inputs[2] : -1);
        if (!ints(x, at, v, 1, &n) || n != 1) return;
        axis = (int32_t)v[0];
    }
    int32_t r = (int32_t)ti->rank;
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) {
        refuse(x, "%s (op %u) axis out of range", lg_builtin_name(code), i);
        return;
    }
    int32_t off = 0;
    for (uint32_t k = 0; k < op->n_outputs && x->ok; k++) {
        int32_t out = rt(x, op->outputs[k]);
        if (!x->ok) return;
        int32_t b[LG_MAX_RANK] = {0}, w[LG_MAX_RANK];
        memcpy(w, ti->shape, sizeof w);
        b[axis] = off;
        w[axis] = code == LG_OP_UNPACK ? 1 : RT(x, out)->shape[axis];
        if (off + w[axis] > ti->shape[axis]) {
            refuse(x, "%s (op %u) outputs overrun the input", lg_builtin_name(code), i);
            return;
        }
        off += w[axis];
        if (code == LG_OP_UNPACK) {
            int32_t mid = tmp(x, out, w, ti->rank);
            slice(x, (int32_t)i, in, b, w, NULL, mid);
            reshape(x, (int32_t)i, mid, out);
        } else {
            slice(x, (int32_t)i, in, b, w, NULL, out);
        }
    }
}

static void read_op(xctx *x, uint32_t i) {
    const lg_op *op = lgp_op(x->c, i);
    int32_t code = lgp_code(x->c, i);
    const lg_op_info *e = lg_op_info_of(x->c->m, op);
    switch (code) {
    case LG_OP_RESHAPE: case LG_OP_SQUEEZE: case LG_OP_EXPAND_DIMS: {
        if (op->n_inputs < 1 || op->n_outputs != 1 || !same_layout_io(x->c, op)) {
            refuse(x, "%s (op %u) changes the type", lg_builtin_name(code), i);
            return;
        }
        int32_t in = rt(x, op->inputs[0]), out = rt(x, op->outputs[0]);
        if (x->ok && RT(x, in)->role == RK_CONST) {
            /* a constant in another shape: the same bytes, no op */
            if (RT(x, out)->role != RK_TMP) {
                refuse(x, "%s (op %u) of a constant writes a region output (fold it first)", lg_builtin_name(code), i);
                return;
            }
            rk_tensor *to = &x->r->t[out];
            to->role = RK_CONST;
            to->gid = RT(x, in)->gid;
            to->like = RT(x, in)->like;
            memcpy(to->csh, RT(x, in)->csh, sizeof to->csh); /* gid's own shape */
            to->crank = RT(x, in)->crank;
            return;
        }
        reshape(x, (int32_t)i, in, out);
        return;
    }
    case LG_OP_TRANSPOSE: x_transpose(x, i, op); return;
    case LG_OP_MEAN: case LG_OP_SUM: case LG_OP_REDUCE_MAX: case LG_OP_REDUCE_MIN:
    case LG_OP_REDUCE_PROD: case LG_OP_REDUCE_ANY: case LG_OP_REDUCE_ALL: x_reduce(x, i, op, code); return;
    case LG_OP_CONCATENATION: x_concat(x, i, op); return;
    case LG_OP_SLICE: x_slice(x, i, op); return;
    case LG_OP_STRIDED_SLICE: x_strided_slice(x, i, op); return;
    case LG_OP_GATHER: x_gather(x, i, op); return;
    case LG_OP_BATCH_MATMUL: x_bmm(x, i, op); return;
    case LG_OP_PACK: x_pack(x, i, op); return;
    case LG_OP_UNPACK: case LG_OP_SPLIT: case LG_OP_SPLIT_V: x_split(x, i, op, code); return;
    case LG_OP_SOFTMAX: case LG_OP_LOG_SOFTMAX: x_ew(x, i, op, 0, code); return;
    default: break;
    }
    if (e && (e->flags & LG_OPF_ELEMENTWISE) && code != LG_OP_CUSTOM) {
        x_ew(x, i, op, e->flags, code);
        return;
    }
    refuse(x, "%s (op %u) carries a rank >= 5 tensor and is not one reduce-rank rewrites", lg_op_name(x->c->m, op), i);
}

/* The region of ops[0..n) as an rk_region; *ok false (with why) if it cannot be read. */
static lg_status read_region(const lg_pass_ctx *c, const lg_graph *g, const int32_t *ops, uint32_t n,
                             rk_region *r, bool *ok, char *why, size_t nwhy) {
    const lg_subgraph *s = &c->m->subgraphs[c->sg];
    memset(r, 0, sizeof *r);
    xctx x = {c, g, r, malloc(s->n_tensors * sizeof(int32_t)), calloc(s->n_ops, 1), true, why, nwhy, LG_OK};
    if (!x.map || !x.inreg) nomem(&x);
    for (uint32_t t = 0; x.map && t < s->n_tensors; t++) x.map[t] = -1;
    for (uint32_t k = 0; x.inreg && k < n; k++) x.inreg[ops[k]] = 1;
    for (uint32_t k = 0; k < n && x.ok; k++) read_op(&x, (uint32_t)ops[k]);
    free(x.map);
    free(x.inreg);
    *ok = x.ok;
    return x.st;
}

/* ------------------------------------------------------------------ the pass */

static bool rank_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    if (!touches_big(c, i)) return false;
    int32_t *ops = NULL;
    uint32_t n = 0;
    if (region_ops(c, g, i, &ops, &n) != LG_OK) return false;
    bool first = ops[0] == (int32_t)i;
    free(ops);
    return first;
}

static lg_status rank_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    int32_t *ops = NULL;
    uint32_t n = 0;
    LG_TRY(region_ops(c, g, i, &ops, &n));
    rk_region r;
    rk_low low;
    memset(&low, 0, sizeof low);
    char why[200] = "";
    bool ok = false;
    lg_status st = read_region(c, g, ops, n, &r, &ok, why, sizeof why);
    if (st == LG_OK && ok) {
        bool pixel = false;
        st = lgrk_pixel_plan(c, &r, &low, &pixel, c->err);
        if (st == LG_OK && !pixel) st = lgrk_plan(&r, &low, &ok, why, sizeof why, c->err);
    }
    if (st == LG_OK && ok) {
        st = lgrk_emit(c, &low, ops, n);
        if (st == LG_OK) {
            c->delta->applied++;
            c->delta->ops_removed += n;
            c->delta->ops_added += low.n_live;
        }
    } else if (st == LG_OK) {
        lgp_skip(c, "tensor-rank at op %d (%s, %u ops): %s", ops[0],
                 lg_op_name(c->m, lgp_op(c, (uint32_t)ops[0])), n, why);
    }
    lgrk_low_free(&low);
    lgrk_region_free(&r);
    free(ops);
    return st;
}

const lg_pass lgp_reduce_rank = {
    "reduce-rank",
    "rewrite ops carrying rank >= 5 tensors at rank <= 4: unit dims dropped, dims that stay "
    "together merged, else a split into <= 16 pieces (or DEPTH_TO_SPACE/SPACE_TO_DEPTH)",
    {"tensor-rank", "transpose-perm", NULL}, true, 0, rank_match, rank_apply, false};
