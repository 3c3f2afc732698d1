/* fp16 hardening: the rewrites and the harden-fp16 passes (the maths and why each is exact:
 * include/lg/passes.h, "fp16 hardening").
 *
 * A norm is rebuilt from its input x in the scaled domain (SafeLayerNorm v2, the seed's Parakeet
 * form; SafeRMSNorm: scale before squaring). With m = the mask of reduced axes, per row
 *
 *   S = 2^k, k = floor(log2(max(max_m |x|, 4))) - 2        (so max|x| / 8 < S <= max|x| / 4
 *       above 4, S = 1 below: the seed's S = max(1, max|x| / 8) rounded up to a power of
 *       two; at an exact power of two the rounded log may give the next k, as good),
 *       1/S = POW(0.5, k),
 *   xs = x * (1/S)                                          (|xs| <= 8):
 *
 *   centred     mu_s = mean_m(xs), d_s = xs - mu_s, var_s = mean_m(d_s^2)
 *               (the moment form: var_s = mean_m(xs^2) - mu_s^2, the same maths as the original)
 *   uncentred   var_s = mean_m(xs^2) or sum_m(xs^2)
 *   eps         eps_s = eps * (1/S)^2 (under the root), eps * (1/S) (a clamp on the root)
 *   root        rs = rsqrt(var_s + eps_s) (or max(var_s, eps_s)), or q = sqrt(...) when the
 *               original used SQRT, or q = max(sqrt(var_s), eps_s) for the clamp on the root
 *
 * and every tensor of the pattern that later ops read gets its exact equivalent:
 *   y (the normalized output) = d_s * rs (or d_s / q; xs for the uncentred norms)
 *   mean(x) = mu_s * S, x - mean(x) = d_s * S, rsqrt(...) = rs * (1/S), sqrt(...) = q * S,
 *   1 / sqrt(...) = (1/S) / q.
 * S a power of two makes every scaling exact in fp32 (and in half, above its subnormals): each
 * value of the scaled domain is the original's times 2^-k bit for bit, each sum rounds the same
 * way, and the output is the original's bit for bit (up to the final product/division). The
 * means and sums keep the original's axes (the max is single-axis: exact in any order); with
 * LG_FP16_FIX_TWO_STAGE (the harden-fp16-split pass)
 * each reduction over several axes becomes a chain of single-axis ones (innermost first), the
 * seed's "two-stage means" (NAFNet, MODNet). That changes the fp32 summation order, so its fp32
 * parity is bounded by the original's own summation error (about sqrt(n) ulps of a sum of n
 * terms; 5e-6 of the output at 65536 terms), not by 1e-6: the split pass is declared
 * approximate with bound LGP_FP16_SPLIT_BOUND although it is exact in real arithmetic.
 * A global SUM becomes MEAN * n (times the constant that scaled it), with the same sum inside. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "check/op_version.h"
#include "passes/fix_fp16.h"
#include "util/half.h"

typedef struct rw {
    lg_pass_ctx *c;
    uint32_t at0, at;          /* first new op, where the next goes */
    char base[100];
    const int32_t *shape;      /* x's shape */
    uint32_t rank;
    bool split;                /* reductions over several axes as single-axis chains */
} rw;

/* ------------------------------------------------------------------ building blocks */

static lg_status new_tensor(rw *w, const char *sfx, const int32_t *shape, uint32_t rank, int32_t *out) {
    char name[160];
    snprintf(name, sizeof name, "%.100s/fp16safe/%.50s", w->base, sfx);
    return lg_subgraph_add_tensor(w->c->m, w->c->sg, name, LG_FLOAT32, shape, rank, out, w->c->err);
}

static lg_status scalar(rw *w, const char *sfx, float v, int32_t *out) {
    char name[160];
    snprintf(name, sizeof name, "%.100s/fp16safe/%.50s", w->base, sfx);
    return lg_subgraph_add_const(w->c->m, w->c->sg, name, LG_FLOAT32, NULL, 0, &v, 4, out, w->c->err);
}

/* Insert op `code` at w->at writing a new tensor of the given shape. */
static lg_status emit(rw *w, int32_t code, const int32_t *in, uint32_t n_in, const int32_t *shape,
                      uint32_t rank, const char *sfx, int32_t *out) {
    union {
        lg_add_options add; lg_sub_options sub; lg_mul_options mul; lg_div_options div;
        lg_maximum_minimum_options mm; lg_abs_options abs; lg_reducer_options red;
    } o;
    lg_opts_kind kind = LG_OPTS_NONE;
    size_t size = 0;
    bool keep = false;
    if (code == LG_OP_REDUCE_MAX + 1000 || code == LG_OP_MEAN + 1000 || code == LG_OP_SUM + 1000) {
        code -= 1000; /* the reducers with keep_dims false */
    } else {
        keep = true;
    }
    switch (code) {
    case LG_OP_ADD: kind = LG_OPTS_ADD_OPTIONS; size = sizeof o.add; break;
    case LG_OP_SUB: kind = LG_OPTS_SUB_OPTIONS; size = sizeof o.sub; break;
    case LG_OP_MUL: kind = LG_OPTS_MUL_OPTIONS; size = sizeof o.mul; break;
    case LG_OP_DIV: kind = LG_OPTS_DIV_OPTIONS; size = sizeof o.div; break;
    case LG_OP_MAXIMUM: kind = LG_OPTS_MAXIMUM_MINIMUM_OPTIONS; size = sizeof o.mm; break;
    case LG_OP_ABS: kind = LG_OPTS_ABS_OPTIONS; size = sizeof o.abs; break;
    case LG_OP_MEAN: case LG_OP_SUM: case LG_OP_REDUCE_MAX:
        kind = LG_OPTS_REDUCER_OPTIONS; size = sizeof o.red; break;
    default: break;
    }
    if (kind != LG_OPTS_NONE) LG_TRY(lg_opts_init(kind, &o, size));
    if (kind == LG_OPTS_REDUCER_OPTIONS) o.red.keep_dims = keep;
    LG_TRY(new_tensor(w, sfx, shape, rank, out));
    LG_TRY(lg_op_insert(w->c->m, w->c->sg, w->at, code, NULL, 1, in, n_in, out, 1, kind,
                        kind != LG_OPTS_NONE ? (const void *)&o : NULL, w->c->err));
    w->at++;
    return LG_OK;
}

static lg_status bin(rw *w, int32_t code, int32_t a, int32_t b, bool full, const char *sfx, int32_t *out,
                     const int32_t *stat_shape) {
    const int32_t in[2] = {a, b};
    return emit(w, code, in, 2, full ? w->shape : stat_shape, w->rank, sfx, out);
}

static lg_status un(rw *w, int32_t code, int32_t a, bool full, const char *sfx, int32_t *out,
                    const int32_t *stat_shape) {
    return emit(w, code, &a, 1, full ? w->shape : stat_shape, w->rank, sfx, out);
}

/* `code` over the axes of mask: one op over all of them, or (w->split) one axis at a time from
   the innermost; keep_dims as given. */
static lg_status reduce_chain(rw *w, int32_t code, int32_t x, const int32_t *shape, uint32_t rank,
                              uint32_t mask, bool keep, const char *sfx, int32_t *out) {
    int32_t cur = x, sh[LG_MAX_RANK];
    uint32_t r = rank;
    memcpy(sh, shape, rank * sizeof sh[0]);
    /* a max is exact in any order: always single-axis (no new multi-axis reduction at all) */
    if ((!w->split && code != LG_OP_REDUCE_MAX) || !(mask & (mask - 1))) {
        int32_t axes[LG_MAX_RANK], na = 0, ax;
        uint32_t nr = 0;
        for (uint32_t d = 0; d < rank; d++) {
            if (mask & (1u << d)) {
                axes[na++] = (int32_t)d;
                if (keep) sh[nr++] = 1;
            } else {
                sh[nr++] = shape[d];
            }
        }
        char an[200];
        snprintf(an, sizeof an, "%.100s/fp16safe/%.60s_axes", w->base, sfx);
        LG_TRY(lg_subgraph_add_const(w->c->m, w->c->sg, an, LG_INT32, &na, 1, axes, (uint64_t)na * 4, &ax, w->c->err));
        const int32_t in[2] = {x, ax};
        return emit(w, keep ? code : code + 1000, in, 2, sh, nr, sfx, out);
    }
    for (int d = (int)rank - 1; d >= 0; d--) {
        if (!(mask & (1u << d))) continue;
        char name[64];
        snprintf(name, sizeof name, "%s_axis%d", sfx, d);
        int32_t ax, one = 1, axis = d;
        char an[200];
        snprintf(an, sizeof an, "%.100s/fp16safe/%.60s_axes", w->base, name);
        LG_TRY(lg_subgraph_add_const(w->c->m, w->c->sg, an, LG_INT32, &one, 1, &axis, 4, &ax, w->c->err));
        if (keep) {
            sh[d] = 1;
        } else {
            memmove(sh + d, sh + d + 1, (r - (uint32_t)d - 1) * sizeof sh[0]);
            r--;
        }
        const int32_t in[2] = {cur, ax};
        LG_TRY(emit(w, keep ? code : code + 1000, in, 2, sh, r, name, &cur));
    }
    *out = cur;
    return LG_OK;
}

/* Set the new ops' versions as the converter would (check/op_version.c). */
static lg_status set_versions(rw *w) {
    lg_model *m = w->c->m;
    const lg_subgraph *sg = &m->subgraphs[w->c->sg];
    for (uint32_t i = w->at0; i < w->at; i++) {
        const lg_op *op = &sg->ops[i];
        int v = lgi_op_version(m, sg, op);
        if (v != m->opcodes[op->opcode_index].version)
            LG_TRY(lg_op_set_opcode(m, w->c->sg, i, lg_op_builtin(m, op), NULL, v, w->c->err));
    }
    return LG_OK;
}

static bool is_graph_output(const lg_pass_ctx *c, int32_t t) {
    const lg_subgraph *sg = &c->m->subgraphs[c->sg];
    for (uint32_t i = 0; i < sg->n_outputs; i++)
        if (sg->outputs[i] == t) return true;
    return false;
}

/* Consumers of `old` read `neu`. A graph output keeps its tensor: the op that made `neu` (new,
   at index new_op) writes `old` instead, and the old producer a fresh dead tensor. */
static lg_status redirect(rw *w, int32_t old, int32_t neu) {
    lg_pass_ctx *c = w->c;
    if (!is_graph_output(c, old))
        return lg_tensor_replace_uses(c->m, c->sg, old, neu, 0, NULL, c->err);
    const lg_subgraph *sg = &c->m->subgraphs[c->sg];
    int32_t p_old = -1, p_new = -1;
    uint32_t s_old = 0;
    for (uint32_t i = 0; i < sg->n_ops; i++)
        for (uint32_t k = 0; k < sg->ops[i].n_outputs; k++) {
            if (sg->ops[i].outputs[k] == old && p_old < 0) { p_old = (int32_t)i; s_old = k; }
            if (sg->ops[i].outputs[k] == neu) p_new = (int32_t)i;
        }
    if (p_old < 0 || p_new < 0)
        return lgi_fail(c->err, LG_ERR_INTERNAL, "harden-fp16: no producer to redirect tensor %d", old);
    const lg_tensor *t = &sg->tensors[old];
    int32_t shape[LG_MAX_RANK], dead;
    uint32_t rank = t->rank;
    memcpy(shape, t->shape, rank * sizeof shape[0]);
    LG_TRY(new_tensor(w, "replaced", shape, rank, &dead));
    LG_TRY(lg_op_set_output(c->m, c->sg, (uint32_t)p_old, s_old, dead, c->err));
    return lg_op_set_output(c->m, c->sg, (uint32_t)p_new, 0, old, c->err);
}

/* Remove the ops of list (current indices) whose outputs nothing reads any more. */
static lg_status remove_dead(lg_pass_ctx *c, uint32_t *ops, uint32_t n) {
    for (;;) {
        lg_graph *g = NULL;
        LG_TRY(lg_graph_build(c->m, c->sg, &g, c->err));
        int hit = -1;
        for (int i = (int)n - 1; i >= 0 && hit < 0; i--) {
            if (ops[i] == UINT32_MAX) continue;
            const lg_op *op = lgp_op(c, ops[i]);
            bool dead = true;
            for (uint32_t k = 0; k < op->n_outputs && dead; k++) {
                int32_t t = op->outputs[k];
                uint32_t nu = 0;
                if (t < 0) continue;
                lg_graph_uses(g, t, &nu);
                if (nu || lg_graph_is_output(g, t) || lgp_tensor(c, t)->is_variable) dead = false;
            }
            if (dead) hit = i;
        }
        lg_graph_free(g);
        if (hit < 0) return LG_OK;
        uint32_t gone = ops[hit];
        LG_TRY(lg_op_remove(c->m, c->sg, gone, c->err));
        c->delta->ops_removed++;
        ops[hit] = UINT32_MAX;
        for (uint32_t j = 0; j < n; j++)
            if (ops[j] != UINT32_MAX && ops[j] > gone) ops[j]--;
    }
}

/* ------------------------------------------------------------------ the safe norm */

typedef struct safe {
    int32_t S, inv_s, xs, mus, ds, var, ve, rs, q, q_root; /* q_root: sqrt before the clamp */
} safe;

static lg_status build_stats(rw *w, const lgp_fp16_match *mt, float eps, const int32_t *st, safe *v) {
    int32_t a, am, am8, lg, l2, fl, k, k8, kl, k2, kh, ke, inv2, e, sq;
    LG_TRY(un(w, LG_OP_ABS, mt->x, true, "abs", &a, st));
    LG_TRY(reduce_chain(w, LG_OP_REDUCE_MAX, a, w->shape, w->rank, mt->axes, true, "amax", &am));
    /* k = floor(log2(max(amax, 4))) - 2, 1/S = 0.5^k (powf of an integer: exact) */
    LG_TRY(scalar(w, "four", 4.0f, &k8));
    LG_TRY(scalar(w, "inv_ln2", (float)(1.0 / log(2.0)), &kl));
    LG_TRY(scalar(w, "two", 2.0f, &k2));
    LG_TRY(scalar(w, "half", 0.5f, &kh));
    LG_TRY(bin(w, LG_OP_MAXIMUM, am, k8, false, "amax_4", &am8, st));
    LG_TRY(un(w, LG_OP_LOG, am8, false, "log", &lg, st));
    LG_TRY(bin(w, LG_OP_MUL, lg, kl, false, "log2", &l2, st));
    LG_TRY(un(w, LG_OP_FLOOR, l2, false, "floor", &fl, st));
    LG_TRY(bin(w, LG_OP_SUB, fl, k2, false, "k", &k, st));
    LG_TRY(bin(w, LG_OP_POW, kh, k, false, "inv_S", &v->inv_s, st));
    v->S = -1; /* made when a result needs it (sqrt * S, mean * S) */
    LG_TRY(bin(w, LG_OP_MUL, mt->x, v->inv_s, true, "xs", &v->xs, st));
    int32_t red = mt->sum ? LG_OP_SUM : LG_OP_MEAN;
    if (mt->centered) {
        LG_TRY(reduce_chain(w, LG_OP_MEAN, v->xs, w->shape, w->rank, mt->axes, true, "mean", &v->mus));
        if (mt->moment2) {
            int32_t e2, mm;
            LG_TRY(bin(w, LG_OP_MUL, v->xs, v->xs, true, "xs_sq", &sq, st));
            LG_TRY(reduce_chain(w, LG_OP_MEAN, sq, w->shape, w->rank, mt->axes, true, "mean_sq", &e2));
            LG_TRY(bin(w, LG_OP_MUL, v->mus, v->mus, false, "mean_2", &mm, st));
            LG_TRY(bin(w, LG_OP_SUB, e2, mm, false, "var", &v->var, st));
        } else {
            LG_TRY(bin(w, LG_OP_SUB, v->xs, v->mus, true, "centered", &v->ds, st));
            LG_TRY(bin(w, LG_OP_MUL, v->ds, v->ds, true, "centered_sq", &sq, st));
            LG_TRY(reduce_chain(w, LG_OP_MEAN, sq, w->shape, w->rank, mt->axes, true, "var", &v->var));
        }
    } else {
        LG_TRY(bin(w, LG_OP_MUL, v->xs, v->xs, true, "xs_sq", &sq, st));
        LG_TRY(reduce_chain(w, red, sq, w->shape, w->rank, mt->axes, true, mt->sum ? "sum_sq" : "mean_sq", &v->var));
    }
    /* eps in the scaled domain, computed at run time: always an op (a constant eps under the
       root would let the result match a norm again) */
    LG_TRY(scalar(w, "eps", eps, &ke));
    if (mt->eps_kind == LGP_EPS_MAX_ROOT) {
        LG_TRY(bin(w, LG_OP_MUL, v->inv_s, ke, false, "eps_s", &e, st));
    } else {
        LG_TRY(bin(w, LG_OP_MUL, v->inv_s, v->inv_s, false, "inv_S2", &inv2, st));
        LG_TRY(bin(w, LG_OP_MUL, inv2, ke, false, "eps_s", &e, st));
    }
    if (mt->eps_kind == LGP_EPS_MAX_ROOT) {
        LG_TRY(un(w, LG_OP_SQRT, v->var, false, "root", &v->q_root, st));
        LG_TRY(bin(w, LG_OP_MAXIMUM, v->q_root, e, false, "root_clamped", &v->q, st));
        v->rs = -1;
        return LG_OK;
    }
    LG_TRY(bin(w, mt->eps_kind == LGP_EPS_MAX ? LG_OP_MAXIMUM : LG_OP_ADD, v->var, e, false, "var_eps", &v->ve, st));
    if (mt->r >= 0 || (mt->y >= 0 && mt->s < 0 && mt->c < 0)) {
        LG_TRY(un(w, LG_OP_RSQRT, v->ve, false, "rstd", &v->rs, st));
        v->q = v->q_root = -1;
    } else {
        LG_TRY(un(w, LG_OP_SQRT, v->ve, false, "std", &v->q, st));
        v->q_root = v->q;
        v->rs = -1;
    }
    return LG_OK;
}

/* The safe equivalent of result tensor t of the match. */
static lg_status safe_value(rw *w, const lgp_fp16_match *mt, safe *v, int32_t t, const int32_t *st, int32_t *out) {
    int32_t tmp;
    if (v->S < 0 && (t == mt->mu || t == mt->d || t == mt->s || t == mt->c)) {
        int32_t k1;
        LG_TRY(scalar(w, "one", 1.0f, &k1));
        LG_TRY(bin(w, LG_OP_DIV, k1, v->inv_s, false, "S", &v->S, st)); /* 1 / 2^-k: exact */
    }
    if (mt->centered && v->ds < 0 && (t == mt->y || t == mt->d))
        LG_TRY(bin(w, LG_OP_SUB, v->xs, v->mus, true, "centered", &v->ds, st));
    if (t == mt->y) {
        int32_t base = mt->centered ? v->ds : v->xs;
        if (v->rs >= 0) return bin(w, LG_OP_MUL, base, v->rs, true, "normalized", out, st);
        return bin(w, LG_OP_DIV, base, v->q, true, "normalized", out, st);
    }
    if (t == mt->mu) return bin(w, LG_OP_MUL, v->mus, v->S, false, "mean_x", out, st);
    if (t == mt->d) return bin(w, LG_OP_MUL, v->ds, v->S, true, "centered_x", out, st);
    if (t == mt->r || t == mt->inv) {
        if (v->rs >= 0) return bin(w, LG_OP_MUL, v->rs, v->inv_s, false, "rstd_x", out, st);
        return bin(w, LG_OP_DIV, v->inv_s, v->q, false, "rstd_x", out, st);
    }
    if (t == mt->s || t == mt->c) {
        int32_t q = t == mt->c ? v->q : v->q_root;
        if (q < 0) { /* an RSQRT was built: sqrt = 1 / rsqrt */
            int32_t k1;
            LG_TRY(scalar(w, "one", 1.0f, &k1));
            LG_TRY(bin(w, LG_OP_DIV, k1, v->rs, false, "std_s", &tmp, st));
            q = tmp;
        }
        return bin(w, LG_OP_MUL, q, v->S, false, "std_x", out, st);
    }
    return lgi_fail(w->c->err, LG_ERR_INTERNAL, "harden-fp16: tensor %d is not a result of the match", t);
}

/* ------------------------------------------------------------------ global reduce */

static lg_status build_global(rw *w, const lgp_fp16_match *mt, int32_t *out) {
    int32_t mean;
    LG_TRY(reduce_chain(w, LG_OP_MEAN, mt->x, w->shape, w->rank, mt->axes, mt->reduce_keep, "mean", &mean));
    double factor = mt->sum ? (double)mt->extent * mt->scale : 1.0;
    if ((float)factor == 1.0f) {
        *out = mean;
        return LG_OK;
    }
    const lg_tensor *t = lgp_tensor(w->c, mean);
    int32_t shape[LG_MAX_RANK], k;
    uint32_t rank = t->rank;
    memcpy(shape, t->shape, rank * sizeof shape[0]);
    LG_TRY(scalar(w, "n", (float)factor, &k));
    const int32_t in[2] = {mean, k};
    return emit(w, LG_OP_MUL, in, 2, shape, rank, "sum", out);
}

/* ------------------------------------------------------------------ conv rescale */

/* Largest k' <= k such that every value of constant data (FLOAT32 or FLOAT16) times 2^-k'
   stays a normal number of its type (so the scaling is exact). */
static int32_t max_shift_of(const lg_model *m, uint32_t sg, int32_t t, int32_t k) {
    const lg_tensor *x = &m->subgraphs[sg].tensors[t];
    const lg_buffer *b = lg_tensor_buffer(m, x);
    int64_t n = lg_tensor_numel(x);
    if (!b || n <= 0) return k;
    int min_exp = x->type == LG_FLOAT16 ? -14 : -126;
    for (int64_t i = 0; i < n; i++) {
        float v;
        if (x->type == LG_FLOAT16) {
            v = lg_half_to_float(lgi_rd_u16(b->data + 2 * i));
        } else {
            uint32_t u = lgi_rd_u32(b->data + 4 * i);
            memcpy(&v, &u, 4);
        }
        if (v == 0 || !isfinite(v)) continue;
        int e = ilogbf(v);
        if (e - k < min_exp) k = e - min_exp;
        if (k <= 0) return 0;
    }
    return k;
}

/* The constant behind a weight input: itself, or the FLOAT16 input of its DEQUANTIZE. */
static int32_t weight_const(const lg_model *m, uint32_t sg, const lg_graph *g, int32_t t, int32_t *deq) {
    *deq = -1;
    if (t < 0) return -1;
    if (lg_tensor_is_const(m, sg, t)) return t;
    int32_t p = lg_graph_producer(g, t);
    if (p < 0) return -1;
    *deq = p;
    return m->subgraphs[sg].ops[p].inputs[0];
}

int32_t lgp_fp16_conv_max_shift(const lg_model *m, uint32_t sg, const lg_graph *g, int32_t conv_op, int32_t k) {
    const lg_op *op = &m->subgraphs[sg].ops[conv_op];
    for (uint32_t slot = 1; slot < 3 && slot < op->n_inputs && k > 0; slot++) {
        int32_t deq, w = weight_const(m, sg, g, op->inputs[slot], &deq);
        if (w >= 0) k = max_shift_of(m, sg, w, k);
    }
    return k > 0 ? k : 0;
}

/* A copy of constant w scaled by 2^-k (exact by lgp_fp16_conv_max_shift). */
static lg_status scaled_const(lg_pass_ctx *c, int32_t w, int32_t k, int32_t *out) {
    const lg_tensor *x = lgp_tensor(c, w);
    const lg_buffer *b = lg_tensor_buffer(c->m, x);
    int64_t n = lg_tensor_numel(x);
    size_t es = x->type == LG_FLOAT16 ? 2 : 4;
    uint8_t *data = malloc((size_t)(n > 0 ? n : 1) * es);
    if (!data) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory for rescaled weights");
    for (int64_t i = 0; i < n; i++) {
        if (es == 2) {
            float v = ldexpf(lg_half_to_float(lgi_rd_u16(b->data + 2 * i)), -k);
            uint16_t h = lg_float_to_half(v);
            memcpy(data + 2 * i, &h, 2);
        } else {
            uint32_t u = lgi_rd_u32(b->data + 4 * i);
            float v;
            memcpy(&v, &u, 4);
            v = ldexpf(v, -k);
            memcpy(data + 4 * i, &v, 4);
        }
    }
    char name[160];
    snprintf(name, sizeof name, "%.120s/x2^-%d", x->name ? x->name : "w", k);
    int32_t shape[LG_MAX_RANK];
    uint32_t rank = x->rank;
    memcpy(shape, x->shape, rank * sizeof shape[0]);
    lg_status st = lg_subgraph_add_const(c->m, c->sg, name, (lg_dtype)x->type, shape, rank, data,
                                         (uint64_t)n * es, out, c->err);
    free(data);
    return st;
}

/* Scale the weights and bias of the conv writing conv_out by 2^-k: new constants (a weight
   tensor may be shared), behind a new DEQUANTIZE for FLOAT16 weights (the old one is removed
   when nothing else reads it). */
static lg_status apply_rescale(lg_pass_ctx *c, int32_t conv_out, int32_t k) {
    for (uint32_t slot = 1; slot < 3; slot++) {
        lg_graph *g = NULL;
        LG_TRY(lg_graph_build(c->m, c->sg, &g, c->err));
        int32_t ci = lg_graph_producer(g, conv_out), deq = -1, w = -1, in = -1;
        if (ci >= 0 && slot < lgp_op(c, (uint32_t)ci)->n_inputs) in = lgp_op(c, (uint32_t)ci)->inputs[slot];
        if (in >= 0) w = weight_const(c->m, c->sg, g, in, &deq);
        lg_graph_free(g);
        if (ci < 0) return lgi_fail(c->err, LG_ERR_INTERNAL, "harden-fp16: the conv vanished");
        if (w < 0) continue;
        int32_t nw;
        LG_TRY(scaled_const(c, w, k, &nw));
        c->delta->tensors_folded++;
        if (deq < 0) {
            LG_TRY(lg_op_set_input(c->m, c->sg, (uint32_t)ci, slot, nw, c->err));
            continue;
        }
        const lg_tensor *dt = lgp_tensor(c, in);
        int32_t shape[LG_MAX_RANK], dq;
        uint32_t rank = dt->rank;
        char name[160];
        memcpy(shape, dt->shape, rank * sizeof shape[0]);
        snprintf(name, sizeof name, "%.120s/x2^-%d", dt->name ? dt->name : "w", k);
        LG_TRY(lg_subgraph_add_tensor(c->m, c->sg, name, LG_FLOAT32, shape, rank, &dq, c->err));
        int32_t version = c->m->opcodes[lgp_op(c, (uint32_t)deq)->opcode_index].version;
        LG_TRY(lg_op_insert(c->m, c->sg, (uint32_t)ci, LG_OP_DEQUANTIZE, NULL, version, &nw, 1, &dq, 1,
                            LG_OPTS_NONE, NULL, c->err));
        c->delta->ops_added++;
        LG_TRY(lg_op_set_input(c->m, c->sg, (uint32_t)ci + 1, slot, dq, c->err));
        uint32_t old = (uint32_t)deq; /* before ci: unmoved */
        LG_TRY(remove_dead(c, &old, 1));
    }
    return LG_OK;
}

/* The norm's eps as a new constant scaled like the statistic it enters (2^-2k, 2^-k on a root). */
static lg_status rescale_eps(lg_pass_ctx *c, const lgp_fp16_match *mt, int32_t k) {
    if (mt->eps_kind == LGP_EPS_NONE || mt->eps_op < 0) return LG_OK;
    int32_t sh = mt->eps_kind == LGP_EPS_MAX_ROOT ? k : 2 * k, ke;
    float e = ldexpf(mt->eps, -sh);
    char name[160];
    const char *xn = lgp_tensor(c, mt->x)->name;
    snprintf(name, sizeof name, "%.120s/eps_x2^-%d", xn ? xn : "t", sh);
    LG_TRY(lg_subgraph_add_const(c->m, c->sg, name, LG_FLOAT32, NULL, 0, &e, 4, &ke, c->err));
    return lg_op_set_input(c->m, c->sg, (uint32_t)mt->eps_op, mt->eps_slot, ke, c->err);
}

/* ------------------------------------------------------------------ the pass */

unsigned lgp_fp16_default_fix(const lgp_fp16_match *mt, bool split) {
    bool multi = (mt->axes & (mt->axes - 1)) != 0;
    if (split && !multi) return 0;
    unsigned two = split ? LG_FP16_FIX_TWO_STAGE : 0;
    if (mt->kind == LG_FP16_GLOBAL_REDUCE) return mt->sum ? LG_FP16_FIX_SUM_AS_MEAN | two : two;
    return LG_FP16_FIX_SAFE_NORM | two;
}

static lgp_fp16_pick *pick_for(const lg_pass_ctx *c, uint32_t op) {
    const struct lgp_fp16_sel *sel = c->opt ? c->opt->fp16_sel : NULL;
    const lg_op *o = lgp_op(c, op);
    if (!sel || o->n_outputs < 1) return NULL;
    for (uint32_t i = 0; i < sel->n; i++)
        if (sel->picks[i].anchor_tensor == o->outputs[0]) return &sel->picks[i];
    return NULL;
}

/* The exact pass takes the picks without the split, the split pass those with it; with no
   selection each takes every match it has a rewrite for. */
static bool match_for(const lg_pass_ctx *c, const lg_graph *g, uint32_t op, bool split) {
    lgp_fp16_match mt;
    if (c->opt && c->opt->fp16_sel) {
        const lgp_fp16_pick *p = pick_for(c, op);
        if (!p || p->done || !(p->fix & LG_FP16_FIX_TWO_STAGE) != !split) return false;
        return lgp_fp16_match_at(c->m, c->sg, g, op, &mt);
    }
    return lgp_fp16_match_at(c->m, c->sg, g, op, &mt) && lgp_fp16_default_fix(&mt, split) != 0;
}

static void base_name(const lg_pass_ctx *c, const lgp_fp16_match *mt, char *buf, size_t n) {
    int32_t t = mt->kind == LG_FP16_GLOBAL_REDUCE ? mt->result : (mt->y >= 0 ? mt->y : mt->x);
    const char *nm = lgp_tensor(c, t)->name;
    snprintf(buf, n, "%.90s", nm && *nm ? nm : "t");
}

/* Replace the match's results by the safe form (fix bits other than the conv rescale). */
static lg_status rewrite(lg_pass_ctx *c, const lg_graph *g, const lgp_fp16_match *mt, bool split) {
    rw w;
    memset(&w, 0, sizeof w);
    w.c = c;
    w.split = split;
    w.at0 = w.at = mt->ops[0];
    base_name(c, mt, w.base, sizeof w.base);
    const lg_tensor *x = lgp_tensor(c, mt->x);
    int32_t shape[LG_MAX_RANK], st[LG_MAX_RANK];
    w.rank = x->rank;
    memcpy(shape, x->shape, w.rank * sizeof shape[0]);
    for (uint32_t d = 0; d < w.rank; d++) st[d] = mt->axes & (1u << d) ? 1 : shape[d];
    w.shape = shape;
    int32_t old[8], neu[8];
    uint32_t n = lgp_fp16_results(c->m, c->sg, g, mt, old);
    if (mt->kind == LG_FP16_GLOBAL_REDUCE) {
        LG_TRY(build_global(&w, mt, &neu[0]));
    } else {
        safe v;
        memset(&v, -1, sizeof v);
        LG_TRY(build_stats(&w, mt, mt->eps, st, &v));
        for (uint32_t i = 0; i < n; i++) LG_TRY(safe_value(&w, mt, &v, old[i], st, &neu[i]));
    }
    LG_TRY(set_versions(&w));
    uint32_t added = w.at - w.at0;
    for (uint32_t i = 0; i < n; i++) LG_TRY(redirect(&w, old[i], neu[i]));
    uint32_t ops[LG_HARDEN_MAX_OPS];
    for (uint32_t i = 0; i < mt->n_ops; i++) ops[i] = mt->ops[i] + added; /* all at or after at0 */
    c->delta->ops_added += added;
    return remove_dead(c, ops, mt->n_ops);
}

/* Re-find the match anchored at the op writing anchor_t (after edits moved the ops). */
static lg_status rematch(lg_pass_ctx *c, int32_t anchor_t, lg_graph **g, lgp_fp16_match *mt) {
    LG_TRY(lg_graph_build(c->m, c->sg, g, c->err));
    int32_t a = lg_graph_producer(*g, anchor_t);
    if (a >= 0 && lgp_fp16_match_at(c->m, c->sg, *g, (uint32_t)a, mt)) return LG_OK;
    lg_graph_free(*g);
    *g = NULL;
    return lgi_fail(c->err, LG_ERR_INTERNAL, "harden-fp16: the pattern at tensor %d no longer matches", anchor_t);
}

static lg_status apply_for(lg_pass_ctx *c, const lg_graph *g, uint32_t op, bool split) {
    lgp_fp16_match mt;
    if (!lgp_fp16_match_at(c->m, c->sg, g, op, &mt)) return LG_OK;
    lgp_fp16_pick *p = pick_for(c, op);
    unsigned fix = p ? p->fix : lgp_fp16_default_fix(&mt, split);
    int32_t anchor_t = lgp_op(c, op)->outputs[0];
    if (p) p->done = true;
    if ((fix & LG_FP16_FIX_CONV_RESCALE) && p && p->conv_shift > 0 && mt.conv_op >= 0) {
        int32_t k = lgp_fp16_conv_max_shift(c->m, c->sg, g, mt.conv_op, p->conv_shift);
        if (k > 0) {
            LG_TRY(apply_rescale(c, mt.conv_out, k));
            lg_graph *g2 = NULL;
            LG_TRY(rematch(c, anchor_t, &g2, &mt));
            lg_graph_free(g2);
            LG_TRY(rescale_eps(c, &mt, k));
            c->delta->applied++;
        }
    }
    if (fix & (LG_FP16_FIX_SAFE_NORM | LG_FP16_FIX_TWO_STAGE | LG_FP16_FIX_SUM_AS_MEAN)) {
        lg_graph *g2 = NULL;
        LG_TRY(rematch(c, anchor_t, &g2, &mt));
        lg_status st = rewrite(c, g2, &mt, (fix & LG_FP16_FIX_TWO_STAGE) != 0);
        lg_graph_free(g2);
        LG_TRY(st);
        c->delta->applied++;
    }
    return LG_OK;
}

static bool exact_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t op) { return match_for(c, g, op, false); }
static bool split_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t op) { return match_for(c, g, op, true); }
static lg_status exact_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t op) { return apply_for(c, g, op, false); }
static lg_status split_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t op) { return apply_for(c, g, op, true); }

const lg_pass lgp_harden_fp16 = {
    "harden-fp16",
    "fp16-safe norms and reductions: SafeLayerNorm v2, SafeRMSNorm, SUM as MEAN, conv rescale (bit-exact scaling)",
    {NULL}, true, 0, exact_match, exact_apply, false};

const lg_pass lgp_harden_fp16_split = {
    "harden-fp16-split",
    "harden-fp16 with multi-axis reductions as single-axis chains (two-stage means; exact in real "
    "arithmetic, fp32 summation order changes)",
    {NULL}, false, LGP_FP16_SPLIT_BOUND, split_match, split_apply, true};
