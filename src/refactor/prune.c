/* Structured pruning surgery (lg/prune.h): the removed units of the selected groups become
   removed indices per tensor axis; constants are sliced into new dense buffers (or, masked,
   the consumers' input columns zeroed), runtime shapes shrink, every RESHAPE gets its new
   target shape, and the result is validated with every op's shape re-inferred
   (lg_model_validate_ops). Importance scores and the top-k selection. */
#include "lg/graph.h"
#include "lg/ops.h"
#include "lg/prune.h"
#include "internal.h"
#include "util/half.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

typedef struct cut {
    bool any;
    uint8_t *removed[LG_MAX_RANK]; /* per axis (NULL: untouched), per index */
    int32_t dim[LG_MAX_RANK];      /* the original sizes */
} cut;

static lg_status check_sel(const lg_prune_groups *gs, const lg_prune_sel *sel, uint32_t n_sel, lg_error *err) {
    for (uint32_t i = 0; i < n_sel; i++) {
        if (sel[i].group >= gs->n_groups)
            return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: no group %u (the model has %u)", sel[i].group, gs->n_groups);
        const lg_prune_group *g = &gs->groups[sel[i].group];
        if (!g->prunable)
            return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: group %u (%s) is not prunable: %s", g->id, g->kind, g->why);
        if (sel[i].n_keep < 1 || sel[i].n_keep > g->n_units || !sel[i].keep)
            return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: group %u: keep %u of %u units (at least 1)", g->id,
                            sel[i].n_keep, g->n_units);
        for (uint32_t k = 0; k < sel[i].n_keep; k++)
            if (sel[i].keep[k] >= g->n_units || (k && sel[i].keep[k] <= sel[i].keep[k - 1]))
                return lgi_fail(err, LG_ERR_INVALID_ARG,
                                "prune: group %u: retained units must be ascending, distinct and below %u", g->id, g->n_units);
        for (uint32_t j = 0; j < i; j++)
            if (sel[j].group == sel[i].group)
                return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: group %u is selected twice", g->id);
    }
    return LG_OK;
}

static void cuts_free(cut *cs, uint32_t n) {
    if (!cs) return;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < LG_MAX_RANK; k++) free(cs[i].removed[k]);
    free(cs);
}

/* Marks the removed indices of every member of the selected groups. */
static lg_status mark(const lg_model *m, const lg_prune_groups *gs, const lg_prune_sel *sel, uint32_t n_sel,
                      lg_prune_mode mode, cut *cs, lg_error *err) {
    const lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t i = 0; i < n_sel; i++) {
        const lg_prune_group *g = &gs->groups[sel[i].group];
        uint8_t *kept = calloc(g->n_units, 1);
        if (!kept) return lgi_fail(err, LG_ERR_NOMEM, "prune: out of memory");
        for (uint32_t k = 0; k < sel[i].n_keep; k++) kept[sel[i].keep[k]] = 1;
        for (uint32_t k = 0; k < g->n_members; k++) {
            const lg_prune_member *mb = &g->members[k];
            if (mode == LG_PRUNE_MASKED && mb->role != LG_PRUNE_CONSUMER) continue;
            if (mode == LG_PRUNE_MASKED_ROWS && mb->role != LG_PRUNE_PRODUCER) continue;
            cut *c = &cs[mb->tensor];
            const lg_tensor *t = &sg->tensors[mb->tensor];
            if (mb->axis < 0 || (uint32_t)mb->axis >= t->rank || t->rank > LG_MAX_RANK) {
                free(kept);
                return lgi_fail(err, LG_ERR_INTERNAL, "prune: tensor \"%s\": bad axis %d", t->name ? t->name : "", (int)mb->axis);
            }
            uint8_t **r = &c->removed[mb->axis];
            if (!*r && !(*r = calloc((size_t)t->shape[mb->axis] + 1, 1))) {
                free(kept);
                return lgi_fail(err, LG_ERR_NOMEM, "prune: out of memory");
            }
            c->any = true;
            c->dim[mb->axis] = t->shape[mb->axis];
            for (uint32_t u = 0; u < g->n_units; u++)
                if (!kept[u])
                    for (int32_t w = 0; w < mb->width; w++) (*r)[mb->offset + (int32_t)u * mb->width + w] = 1;
        }
        free(kept);
    }
    return LG_OK;
}

static bool removed_at(const cut *c, uint32_t axis, int32_t i) { return c->removed[axis] && c->removed[axis][i]; }

/* The shape of t without the removed indices. */
static void cut_shape(const lg_tensor *t, const cut *c, int32_t *shape) {
    for (uint32_t a = 0; a < t->rank; a++) {
        shape[a] = 0;
        for (int32_t i = 0; i < t->shape[a]; i++) shape[a] += !removed_at(c, a, i);
    }
}

/* Copies the float data of t without the removed indices (or, zero, with them set to 0). */
static lg_status slice_const(lg_model *m, int32_t ti, const cut *c, bool zero, lg_error *err) {
    const lg_tensor *t = &m->subgraphs[0].tensors[ti];
    const lg_buffer *b = lg_tensor_buffer(m, t);
    int64_t numel = lg_tensor_numel(t);
    size_t es = t->type == LG_FLOAT16 ? 2 : 4;
    if (!b || (t->type != LG_FLOAT32 && t->type != LG_FLOAT16) || numel < 0 || b->size != (uint64_t)numel * es)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: constant \"%s\" is not dense FLOAT32/FLOAT16", t->name ? t->name : "");
    int32_t shape[LG_MAX_RANK], idx[LG_MAX_RANK] = {0};
    uint32_t rank = t->rank;
    cut_shape(t, c, shape);
    int64_t n_new = 1;
    for (uint32_t a = 0; a < rank; a++) n_new *= shape[a];
    if (zero) n_new = numel;
    const uint8_t *src = b->data;
    uint8_t *dst = malloc((size_t)(n_new ? n_new : 1) * es);
    if (!dst) return lgi_fail(err, LG_ERR_NOMEM, "prune: out of memory");
    int64_t k = 0;
    for (int64_t e = 0; e < numel; e++) {
        bool gone = false;
        for (uint32_t a = 0; a < rank && !gone; a++) gone = removed_at(c, a, idx[a]);
        if (zero && gone) memset(dst + es * (size_t)k++, 0, es);   /* +0.0 in both formats */
        else if (zero || !gone) memcpy(dst + es * (size_t)k++, src + es * (size_t)e, es);
        for (int32_t a = (int32_t)rank - 1; a >= 0; a--) {   /* row-major odometer */
            if (++idx[a] < t->shape[a]) break;
            idx[a] = 0;
        }
    }
    lg_status st = zero ? LG_OK : lg_tensor_set_shape(m, 0, ti, shape, rank, err);
    if (st == LG_OK) st = lg_tensor_set_const(m, 0, ti, (lg_dtype)t->type, dst, (uint64_t)n_new * es, err);
    free(dst);
    return st;
}

static lg_status shrink_runtime(lg_model *m, int32_t ti, const cut *c, lg_error *err) {
    const lg_tensor *t = &m->subgraphs[0].tensors[ti];
    int32_t shape[LG_MAX_RANK], sig[LG_MAX_RANK];
    uint32_t rank = t->rank, n_sig = t->n_shape_signature;
    cut_shape(t, c, shape);
    bool has_sig = t->shape_signature && n_sig == rank;
    if (has_sig) {
        memcpy(sig, t->shape_signature, n_sig * sizeof(int32_t));
        for (uint32_t a = 0; a < rank; a++)
            if (sig[a] >= 0) sig[a] = shape[a];
    }
    lg_status st = lg_tensor_set_shape(m, 0, ti, shape, rank, err);
    if (st == LG_OK && has_sig) st = lg_tensor_set_shape_signature(m, 0, (uint32_t)ti, sig, n_sig, err);
    return st;
}

/* Every RESHAPE whose output shrank: a new shape constant (and new_shape option). */
static lg_status fix_reshapes(lg_model *m, const cut *cs, lg_error *err) {
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++) {
        const lg_op *o = &m->subgraphs[0].ops[i];
        if (lg_op_builtin(m, o) != LG_OP_RESHAPE || o->n_outputs != 1 || !cs[o->outputs[0]].any) continue;
        const lg_tensor *t = &m->subgraphs[0].tensors[o->outputs[0]];
        int32_t shape[LG_MAX_RANK], dims = (int32_t)t->rank;
        memcpy(shape, t->shape, t->rank * sizeof(int32_t));
        lg_status st = LG_OK;
        if (o->n_inputs > 1 && o->inputs[1] >= 0) {
            int32_t nt;
            char name[96];
            snprintf(name, sizeof name, "prune/reshape_%u", i);
            st = lg_subgraph_add_const(m, 0, name, LG_INT32, &dims, 1, shape, (uint64_t)dims * 4, &nt, err);
            if (st == LG_OK) st = lg_op_set_input(m, 0, i, 1, nt, err);
        }
        o = &m->subgraphs[0].ops[i];
        if (st == LG_OK && o->opts_kind == LG_OPTS_RESHAPE_OPTIONS && o->opts) {
            lg_reshape_options ro = *(const lg_reshape_options *)o->opts;
            if (ro.new_shape.data && ro.new_shape.n == (uint32_t)dims) {
                ro.new_shape.data = shape;
                st = lg_op_set_options(m, 0, i, LG_OPTS_RESHAPE_OPTIONS, &ro, err);
            }
        }
        if (st != LG_OK) return st;
    }
    return LG_OK;
}

/* Kept indices of c's axis a before position i (of the original axis). */
static int32_t kept_before(const cut *c, uint32_t a, int32_t i) {
    int32_t n = 0;
    for (int32_t k = 0; k < i && k < c->dim[a]; k++) n += !c->removed[a][k];
    return n;
}

/* Every STRIDED_SLICE whose input lost indices: begin and end of those axes renumbered to the
   kept indices (a slice of a fused projection keeps its part). */
static lg_status fix_slices(lg_model *m, const cut *cs, lg_error *err) {
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++) {
        const lg_op *o = &m->subgraphs[0].ops[i];
        if (lg_op_builtin(m, o) != LG_OP_STRIDED_SLICE || o->n_inputs != 4 || o->inputs[0] < 0 || !cs[o->inputs[0]].any) continue;
        const cut *c = &cs[o->inputs[0]];
        int32_t bv[LG_MAX_RANK], ev[LG_MAX_RANK];
        bool touched = false;
        for (int s = 1; s <= 2; s++) {
            const lg_tensor *t = &m->subgraphs[0].tensors[o->inputs[s]];
            const lg_buffer *b = lg_tensor_buffer(m, t);
            if (!b || t->type != LG_INT32 || b->size > sizeof bv) return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: op %u STRIDED_SLICE: begin/end are not constants", i);
            memcpy(s == 1 ? bv : ev, b->data, b->size);
        }
        const lg_strided_slice_options *so = o->opts_kind == LG_OPTS_STRIDED_SLICE_OPTIONS ? o->opts : NULL;
        uint32_t rank = m->subgraphs[0].tensors[o->inputs[0]].rank;
        for (uint32_t a = 0; a < rank; a++) {
            if (!c->removed[a]) continue;
            int32_t d = c->dim[a];
            touched = true;
            if (!(so && (so->begin_mask >> a & 1))) {
                int32_t b = bv[a] < 0 ? bv[a] + d : bv[a];
                bv[a] = kept_before(c, a, b < 0 ? 0 : b);
            }
            if (!(so && (so->end_mask >> a & 1))) {
                int32_t e = ev[a] < 0 ? ev[a] + d : ev[a];
                ev[a] = kept_before(c, a, e > d ? d : e);
            }
        }
        if (!touched) continue;
        int32_t r32 = (int32_t)rank, nt;
        char name[96];
        lg_status st = LG_OK;
        for (int s = 1; s <= 2 && st == LG_OK; s++) {
            snprintf(name, sizeof name, "prune/slice_%u_%s", i, s == 1 ? "begin" : "end");
            st = lg_subgraph_add_const(m, 0, name, LG_INT32, &r32, 1, s == 1 ? bv : ev, (uint64_t)rank * 4, &nt, err);
            if (st == LG_OK) st = lg_op_set_input(m, 0, i, (uint32_t)s, nt, err);
        }
        if (st != LG_OK) return st;
    }
    return LG_OK;
}

lg_status lg_prune_apply(const lg_model *m, const lg_prune_groups *gs, const lg_prune_sel *sel,
                         uint32_t n_sel, lg_prune_mode mode, lg_model **out, lg_error *err) {
    if (!out) return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: no output");
    *out = NULL;
    if (!m || !gs || m->n_subgraphs == 0 || (n_sel && !sel))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: bad arguments");
    lg_status st = check_sel(gs, sel, n_sel, err);
    if (st != LG_OK) return st;
    uint32_t nt = m->subgraphs[0].n_tensors;
    cut *cs = calloc(nt ? nt : 1, sizeof *cs);
    if (!cs) return lgi_fail(err, LG_ERR_NOMEM, "prune: out of memory");
    lg_model *r = NULL;
    st = mark(m, gs, sel, n_sel, mode, cs, err);
    if (st == LG_OK) st = lg_model_clone(m, &r, err);
    bool surgery = st == LG_OK;
    for (uint32_t i = 0; st == LG_OK && i < nt; i++) {
        if (!cs[i].any) continue;
        if (lg_tensor_is_const(r, 0, (int32_t)i)) st = slice_const(r, (int32_t)i, &cs[i], mode != LG_PRUNE_PHYSICAL, err);
        else if (mode == LG_PRUNE_PHYSICAL) st = shrink_runtime(r, (int32_t)i, &cs[i], err);
    }
    if (st == LG_OK && mode == LG_PRUNE_PHYSICAL) st = fix_reshapes(r, cs, err);
    if (st == LG_OK && mode == LG_PRUNE_PHYSICAL) st = fix_slices(r, cs, err);
    if (st == LG_OK) st = lg_model_compact(r, NULL, NULL, err);
    if (st == LG_OK) st = lg_model_validate(r, err);
    if (st == LG_OK) st = lg_model_validate_ops(r, err);
    if (st != LG_OK) {
        if (st != LG_ERR_NOMEM && surgery) lgi_error_prefix(err, "prune: the pruned model is invalid: ");
        lg_model_free(r);
        r = NULL;
    }
    cuts_free(cs, nt);
    *out = r;
    return st;
}

lg_status lg_prune_expected_params(const lg_model *m, const lg_prune_groups *gs, const lg_prune_sel *sel,
                                   uint32_t n_sel, uint64_t *removed, lg_error *err) {
    *removed = 0;
    if (!m || !gs || m->n_subgraphs == 0) return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: bad arguments");
    lg_status st = check_sel(gs, sel, n_sel, err);
    if (st != LG_OK) return st;
    const lg_subgraph *sg = &m->subgraphs[0];
    cut *cs = calloc(sg->n_tensors ? sg->n_tensors : 1, sizeof *cs);
    if (!cs) return lgi_fail(err, LG_ERR_NOMEM, "prune: out of memory");
    st = mark(m, gs, sel, n_sel, LG_PRUNE_PHYSICAL, cs, err);
    for (uint32_t i = 0; st == LG_OK && i < sg->n_tensors; i++) {
        if (!cs[i].any || !lg_tensor_is_const(m, 0, (int32_t)i)) continue;
        const lg_tensor *t = &sg->tensors[i];
        int32_t shape[LG_MAX_RANK];
        cut_shape(t, &cs[i], shape);
        int64_t before = lg_tensor_numel(t), after = 1;
        for (uint32_t a = 0; a < t->rank; a++) after *= shape[a];
        /* the learned-parameter rule (lg/info.h): constants of at least 2 elements */
        *removed += (uint64_t)((before >= 2 ? before : 0) - (after >= 2 ? after : 0));
    }
    cuts_free(cs, sg->n_tensors);
    return st;
}

/* ---------------------------------------------------------------- importance */

/* Sum of squares of t's entries per index of axis into acc (size dim(axis)). */
static lg_status sq_per_index(const lg_model *m, int32_t ti, int32_t axis, double *acc, lg_error *err) {
    const lg_tensor *t = &m->subgraphs[0].tensors[ti];
    const lg_buffer *b = lg_tensor_buffer(m, t);
    int64_t numel = lg_tensor_numel(t);
    bool f16 = t->type == LG_FLOAT16;
    if (!b || (t->type != LG_FLOAT32 && !f16) || numel < 0 || b->size != (uint64_t)numel * (f16 ? 2 : 4))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: constant \"%s\" is not dense FLOAT32/FLOAT16", t->name ? t->name : "");
    int64_t outer = 1, inner = 1, d = t->shape[axis];
    for (int32_t i = 0; i < axis; i++) outer *= t->shape[i];
    for (uint32_t i = (uint32_t)axis + 1; i < t->rank; i++) inner *= t->shape[i];
    const float *x = (const float *)(const void *)b->data;
    const uint16_t *h = (const uint16_t *)(const void *)b->data;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < d; i++)
            for (int64_t j = 0; j < inner; j++) {
                int64_t e = (o * d + i) * inner + j;
                double v = f16 ? lg_half_to_float(h[e]) : x[e];
                acc[i] += v * v;
            }
    return LG_OK;
}

lg_status lg_prune_importance_magnitude(const lg_model *m, const lg_prune_group *g, double *out, lg_error *err) {
    for (uint32_t u = 0; u < g->n_units; u++) out[u] = 0;
    for (uint32_t k = 0; k < g->n_members; k++) {
        const lg_prune_member *mb = &g->members[k];
        const lg_tensor *t = &m->subgraphs[0].tensors[mb->tensor];
        if (mb->role != LG_PRUNE_PRODUCER || t->rank < 2 || !lg_tensor_is_const(m, 0, mb->tensor)) continue; /* weights */
        int32_t d = m->subgraphs[0].tensors[mb->tensor].shape[mb->axis];
        double *acc = calloc((size_t)d, sizeof(double));
        if (!acc) return lgi_fail(err, LG_ERR_NOMEM, "prune: out of memory");
        lg_status st = sq_per_index(m, mb->tensor, mb->axis, acc, err);
        if (st != LG_OK) { free(acc); return st; }
        for (uint32_t u = 0; u < g->n_units; u++) {
            double s = 0;
            for (int32_t w = 0; w < mb->width; w++) s += acc[mb->offset + (int32_t)u * mb->width + w];
            out[u] += sqrt(s);
        }
        free(acc);
    }
    return LG_OK;
}

lg_status lg_prune_column_norms(const lg_model *m, const lg_prune_group *g, uint32_t member, double *out,
                                lg_error *err) {
    if (member >= g->n_members || g->members[member].role != LG_PRUNE_CONSUMER)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: member %u is not a consumer", member);
    const lg_prune_member *mb = &g->members[member];
    if (!lg_tensor_is_const(m, 0, mb->tensor)) /* read through DEQUANTIZE: the next member is its constant */
        for (uint32_t k = member + 1; k < g->n_members; k++)
            if (g->members[k].role == LG_PRUNE_CONSUMER && lg_tensor_is_const(m, 0, g->members[k].tensor) &&
                m->subgraphs[0].ops[g->members[k].op].outputs[0] == mb->tensor) { mb = &g->members[k]; break; }
    int32_t d = m->subgraphs[0].tensors[mb->tensor].shape[mb->axis];
    for (int32_t i = 0; i < d; i++) out[i] = 0;
    lg_status st = sq_per_index(m, mb->tensor, mb->axis, out, err);
    for (int32_t i = 0; st == LG_OK && i < d; i++) out[i] = sqrt(out[i]);
    return st;
}

lg_status lg_prune_top_k(const double *score, uint32_t n, uint32_t k, uint32_t *keep, lg_error *err) {
    if (!score || !keep || k > n) return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: keep %u of %u", k, n);
    /* selection by repeated max (n is a channel count); ties go to the lower index, and a NaN
       score never beats a number */
    uint8_t *taken = calloc(n ? n : 1, 1);
    if (!taken) return lgi_fail(err, LG_ERR_NOMEM, "prune: out of memory");
    for (uint32_t j = 0; j < k; j++) {
        uint32_t best = UINT32_MAX;
        for (uint32_t i = 0; i < n; i++)
            if (!taken[i] && (best == UINT32_MAX || score[i] > score[best] || (isnan(score[best]) && !isnan(score[i]))))
                best = i;
        taken[best] = 1;
    }
    uint32_t o = 0;
    for (uint32_t i = 0; i < n && o < k; i++)
        if (taken[i]) keep[o++] = i;
    free(taken);
    return LG_OK;
}
