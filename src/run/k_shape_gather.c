/* Shape family: GATHER, GATHER_ND and EMBEDDING_LOOKUP. One memcpy per gathered slice; an
 * index out of range fails the op (at prepare for constant indices, else at eval) instead of
 * reading outside the tensor. */
#include "run/k_shape.h"

typedef struct gather_state {
    int64_t batch, outer, axis_size, coord; /* GATHER */
    int64_t slices, nd;                     /* GATHER_ND */
    int64_t dims_to_count[LG_MAX_RANK];
    int32_t limit[LG_MAX_RANK];
    uint64_t inner;                         /* bytes per gathered slice */
} gather_state;

static const void *opts_of(const lgk_node *n, lg_opts_kind kind) {
    return n->op->opts_kind == kind ? n->opts : NULL;
}

static int index_type_ok(lg_dtype t) { return t == LG_INT16 || t == LG_INT32 || t == LG_INT64; }

/* ------------------------------------------------------------------ GATHER */

static lg_status gather_check(const lgk_node *n, const gather_state *s, lg_status st, lg_error *err) {
    const lgk_tensor *pos = n->in[1];
    for (int64_t i = 0; i < pos->numel; i++) {
        int64_t v = lgks_idx(pos->data, pos->type, i);
        if (v < 0 || v >= s->axis_size)
            return lgk_fail(n, st, err, "index %lld (position %lld) is out of range [0, %lld)", (long long)v, (long long)i,
                            (long long)s->axis_size);
    }
    return LG_OK;
}

lg_status lgks_gather_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 2, 2, 1, 1, err));
    const lgk_tensor *in = n->in[0], *pos = n->in[1];
    if (!index_type_ok(pos->type))
        return lgk_fail(n, LG_ERR_FORMAT, err, "positions of type %s (INT16, INT32 or INT64)", lg_dtype_name(pos->ir->type));
    LG_TRY(lgks_out_like(n, 0, in, err));
    const lg_gather_options *o = opts_of(n, LG_OPTS_GATHER_OPTIONS);
    int64_t axis = o ? o->axis : 0, bd = o ? o->batch_dims : 0;
    int64_t ri = in->rank, rp = pos->rank;
    if (axis < 0) axis += ri;
    if (axis < 0 || axis >= ri) return lgk_fail(n, LG_ERR_FORMAT, err, "axis %d is out of range for rank %lld",
                                                o ? o->axis : 0, (long long)ri);
    if (bd < 0) bd += rp;
    if (bd > axis || bd < 0 || bd >= ri || bd > rp)
        return lgk_fail(n, LG_ERR_FORMAT, err, "batch_dims %d is out of range", o ? o->batch_dims : 0);
    for (int64_t i = 0; i < bd; i++)
        if (in->shape[i] != pos->shape[i])
            return lgk_fail(n, LG_ERR_FORMAT, err, "batch dim %lld differs: %d vs %d", (long long)i, in->shape[i], pos->shape[i]);
    int64_t r = ri + rp - 1 - bd;
    if (r > LG_MAX_RANK) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output rank %lld > %d", (long long)r, LG_MAX_RANK);
    int32_t out[LG_MAX_RANK];
    uint32_t k = 0;
    for (int64_t i = 0; i < axis; i++) out[k++] = in->shape[i];
    for (int64_t i = bd; i < rp; i++) out[k++] = pos->shape[i];
    for (int64_t i = axis + 1; i < ri; i++) out[k++] = in->shape[i];
    gather_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    n->state = s;
    s->batch = s->outer = s->coord = 1;
    int64_t inner = 1;
    for (int64_t i = 0; i < bd; i++) s->batch *= in->shape[i];
    for (int64_t i = bd; i < axis; i++) s->outer *= in->shape[i];
    for (int64_t i = bd; i < rp; i++) s->coord *= pos->shape[i];
    for (int64_t i = axis + 1; i < ri; i++) inner *= in->shape[i];
    s->axis_size = in->shape[axis];
    s->inner = (uint64_t)inner * lgk_elem_size(in->type);
    if (pos->is_const) LG_TRY(gather_check(n, s, LG_ERR_FORMAT, err));
    return lgk_set_output(n, 0, in->type, out, k, err);
}

lg_status lgks_gather_eval(lgk_node *n, lg_error *err) {
    const gather_state *s = n->state;
    const lgk_tensor *in = n->in[0], *pos = n->in[1];
    if (!pos->is_const) LG_TRY(gather_check(n, s, LG_ERR_INVALID_ARG, err));
    const uint8_t *src = in->data, *pp = pos->data;
    uint8_t *dst = n->out[0]->data;
    const uint64_t inner = s->inner;
    if (!inner) return LG_OK;
    for (int64_t b = 0; b < s->batch; b++)
        for (int64_t o = 0; o < s->outer; o++) {
            const uint8_t *base = src + (uint64_t)((b * s->outer + o) * s->axis_size) * inner;
            for (int64_t i = 0; i < s->coord; i++) {
                int64_t v = lgks_idx(pp, pos->type, b * s->coord + i);
                memcpy(dst, base + (uint64_t)v * inner, (size_t)inner);
                dst += inner;
            }
        }
    return LG_OK;
}

/* ------------------------------------------------------------------ GATHER_ND */

static lg_status gather_nd_check(const lgk_node *n, const gather_state *s, lg_status st, lg_error *err) {
    const lgk_tensor *ix = n->in[1];
    for (int64_t i = 0; i < s->slices; i++)
        for (int64_t j = 0; j < s->nd; j++) {
            int64_t v = lgks_idx(ix->data, ix->type, i * s->nd + j);
            if (v < 0 || v >= s->limit[j])
                return lgk_fail(n, st, err, "index %lld (slice %lld, component %lld) is out of range [0, %d)", (long long)v,
                                (long long)i, (long long)j, s->limit[j]);
        }
    return LG_OK;
}

lg_status lgks_gather_nd_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 2, 2, 1, 1, err));
    const lgk_tensor *p = n->in[0], *ix = n->in[1];
    if (!index_type_ok(ix->type))
        return lgk_fail(n, LG_ERR_FORMAT, err, "indices of type %s (INT16, INT32 or INT64)", lg_dtype_name(ix->ir->type));
    LG_TRY(lgks_out_like(n, 0, p, err));
    if (p->rank < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "params must be at least a vector");
    if (ix->rank < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "indices must be at least a vector");
    int64_t nd = ix->shape[ix->rank - 1];
    if (nd > (int64_t)p->rank)
        return lgk_fail(n, LG_ERR_FORMAT, err, "index depth %lld is above the params rank %u", (long long)nd, p->rank);
    int64_t r = (int64_t)ix->rank - 1 + (int64_t)p->rank - nd;
    if (r > LG_MAX_RANK) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output rank %lld > %d", (long long)r, LG_MAX_RANK);
    if (p->numel == 0 && ix->numel != 0) return lgk_fail(n, LG_ERR_FORMAT, err, "params are empty but indices are not");
    int32_t out[LG_MAX_RANK];
    uint32_t k = 0;
    gather_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    n->state = s;
    s->slices = 1;
    for (uint32_t i = 0; i + 1 < ix->rank; i++) {
        out[k++] = ix->shape[i];
        s->slices *= ix->shape[i];
    }
    int64_t slice = 1;
    for (uint32_t i = (uint32_t)nd; i < p->rank; i++) {
        out[k++] = p->shape[i];
        slice *= p->shape[i];
    }
    s->nd = nd;
    int64_t st[LG_MAX_RANK];
    lgks_strides(p->shape, p->rank, st);
    for (int64_t j = 0; j < nd; j++) {
        s->dims_to_count[j] = st[j];
        s->limit[j] = p->shape[j];
    }
    s->inner = (uint64_t)slice * lgk_elem_size(p->type);
    if (ix->is_const) LG_TRY(gather_nd_check(n, s, LG_ERR_FORMAT, err));
    return lgk_set_output(n, 0, p->type, out, k, err);
}

lg_status lgks_gather_nd_eval(lgk_node *n, lg_error *err) {
    const gather_state *s = n->state;
    const lgk_tensor *p = n->in[0], *ix = n->in[1];
    if (!ix->is_const) LG_TRY(gather_nd_check(n, s, LG_ERR_INVALID_ARG, err));
    if (!s->inner) return LG_OK;
    const uint64_t es = lgk_elem_size(p->type);
    uint8_t *dst = n->out[0]->data;
    for (int64_t i = 0; i < s->slices; i++) {
        int64_t from = 0;
        for (int64_t j = 0; j < s->nd; j++) from += lgks_idx(ix->data, ix->type, i * s->nd + j) * s->dims_to_count[j];
        memcpy(dst, (const uint8_t *)p->data + (uint64_t)from * es, (size_t)s->inner);
        dst += s->inner;
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ EMBEDDING_LOOKUP */

static lg_status lookup_check(const lgk_node *n, const gather_state *s, lg_status st, lg_error *err) {
    const lgk_tensor *ids = n->in[0];
    for (int64_t i = 0; i < ids->numel; i++) {
        int64_t v = lgks_idx(ids->data, ids->type, i);
        if (v < 0 || v >= s->axis_size)
            return lgk_fail(n, st, err, "lookup %lld (position %lld) is out of range [0, %lld)", (long long)v, (long long)i,
                            (long long)s->axis_size);
    }
    return LG_OK;
}

lg_status lgks_embedding_lookup_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 2, 2, 1, 1, err));
    const lgk_tensor *ids = n->in[0], *val = n->in[1];
    if (ids->type != LG_INT32 || ids->rank != 1)
        return lgk_fail(n, LG_ERR_FORMAT, err, "lookups must be an INT32 vector");
    if (val->rank < 2) return lgk_fail(n, LG_ERR_FORMAT, err, "the table must have rank 2 or more, not %u", val->rank);
    if (lgk_storage_type(n->out[0]->ir->type) != val->type)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "a %s table with %s output (hybrid dequantizing lookup) is not supported",
                        lg_dtype_name(val->ir->type), lg_dtype_name(n->out[0]->ir->type));
    LG_TRY(lgks_out_like(n, 0, val, err));
    gather_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    n->state = s;
    int32_t out[LG_MAX_RANK];
    out[0] = ids->shape[0];
    int64_t inner = 1;
    for (uint32_t d = 1; d < val->rank; d++) {
        out[d] = val->shape[d];
        inner *= val->shape[d];
    }
    s->axis_size = val->shape[0];
    s->inner = (uint64_t)inner * lgk_elem_size(val->type);
    if (ids->is_const) LG_TRY(lookup_check(n, s, LG_ERR_FORMAT, err));
    return lgk_set_output(n, 0, val->type, out, val->rank, err);
}

lg_status lgks_embedding_lookup_eval(lgk_node *n, lg_error *err) {
    const gather_state *s = n->state;
    const lgk_tensor *ids = n->in[0], *val = n->in[1];
    if (!ids->is_const) LG_TRY(lookup_check(n, s, LG_ERR_INVALID_ARG, err));
    if (!s->inner) return LG_OK;
    uint8_t *dst = n->out[0]->data;
    for (int64_t i = 0; i < ids->numel; i++) {
        int64_t v = lgks_idx(ids->data, ids->type, i);
        memcpy(dst, (const uint8_t *)val->data + (uint64_t)v * s->inner, (size_t)s->inner);
        dst += s->inner;
    }
    return LG_OK;
}
