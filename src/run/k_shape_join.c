/* Shape family: CONCATENATION and PACK (many inputs joined along an axis), UNPACK, SPLIT and
 * SPLIT_V (one input cut along an axis). Both directions are "for each outer index, one
 * contiguous run per tensor", so the copies are memcpy of whole runs. */
#include "run/k_shape.h"

typedef struct join_state {
    int64_t outer;        /* product of the dims before the axis */
    uint32_t n;           /* tensors on the many side */
    uint64_t *run;        /* bytes of tensor i per outer index */
    uint64_t row;         /* bytes of the one side per outer index (sum of run) */
    int act;              /* CONCATENATION's fused activation (FLOAT32 only) */
} join_state;

static join_state *join_new(lgk_node *n, uint32_t count, lg_error *err) {
    join_state *s = lgk_alloc(n, sizeof *s);
    uint64_t *run = lgk_alloc(n, (count ? count : 1) * sizeof(uint64_t));
    if (!s || !run) {
        lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
        return NULL;
    }
    s->run = run;
    s->n = count;
    n->state = s;
    return s;
}

static const void *opts_of(const lgk_node *n, lg_opts_kind kind) {
    return n->op->opts_kind == kind ? n->opts : NULL;
}

lg_status lgks_concat_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "has no inputs");
    LG_TRY(lgks_counts(n, n->n_in, n->n_in, 1, 1, err));
    const lg_concatenation_options *o = opts_of(n, LG_OPTS_CONCATENATION_OPTIONS);
    const lgk_tensor *t0 = n->in[0];
    int64_t axis = o ? o->axis : 0;
    int act = o ? o->fused_activation_function : 0;
    uint32_t r = t0->rank;
    if (axis < 0) axis += r;
    if (!(axis >= 0 && (axis < (int64_t)r || (r == 0 && axis == 0))))
        return lgk_fail(n, LG_ERR_FORMAT, err, "axis %d is out of range for rank %u", o ? o->axis : 0, r);
    if (act < 0 || act > 5) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "fused activation %d is not supported", act);
    if (act && t0->type != LG_FLOAT32)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "a fused activation on %s data is not supported",
                        lg_dtype_name(t0->ir->type));
    LG_TRY(lgks_out_like(n, 0, t0, err));
    join_state *s = join_new(n, n->n_in, err);
    if (!s) return LG_ERR_NOMEM;
    s->act = act;
    uint32_t es = lgk_elem_size(t0->type);
    int32_t out[LG_MAX_RANK];
    int64_t sum = 0;
    for (uint32_t i = 0; i < n->n_in; i++) {
        const lgk_tensor *t = n->in[i];
        if (t->rank != r) return lgk_fail(n, LG_ERR_FORMAT, err, "input %u has rank %u, input 0 has %u", i, t->rank, r);
        if (t->type != t0->type)
            return lgk_fail(n, LG_ERR_FORMAT, err, "input %u is %s, input 0 is %s", i, lg_dtype_name(t->ir->type),
                            lg_dtype_name(t0->ir->type));
        LG_TRY(lgks_out_like(n, 0, t, err));
        for (uint32_t d = 0; d < r; d++)
            if (d != axis && t->shape[d] != t0->shape[d])
                return lgk_fail(n, LG_ERR_FORMAT, err, "input %u has dim %u = %d, input 0 has %d", i, d, t->shape[d],
                                t0->shape[d]);
        sum += r ? t->shape[axis] : 1;
        int64_t inner = 1;
        for (uint32_t d = (uint32_t)axis; d < r; d++) inner *= t->shape[d];
        s->run[i] = (uint64_t)inner * es;
        s->row += s->run[i];
    }
    if (sum > INT32_MAX) return lgk_fail(n, LG_ERR_LIMIT, err, "output too large");
    s->outer = 1;
    for (uint32_t d = 0; d < (uint32_t)axis && d < r; d++) s->outer *= t0->shape[d];
    if (r == 0) {
        out[0] = (int32_t)sum; /* scalars: concatenated into a vector */
        return lgk_set_output(n, 0, t0->type, out, 1, err);
    }
    for (uint32_t d = 0; d < r; d++) out[d] = d == axis ? (int32_t)sum : t0->shape[d];
    return lgk_set_output(n, 0, t0->type, out, r, err);
}

lg_status lgks_pack_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "has no inputs");
    LG_TRY(lgks_counts(n, n->n_in, n->n_in, 1, 1, err));
    const lg_pack_options *o = opts_of(n, LG_OPTS_PACK_OPTIONS);
    if (o && o->values_count != (int32_t)n->n_in)
        return lgk_fail(n, LG_ERR_FORMAT, err, "values_count is %d but there are %u inputs", o->values_count, n->n_in);
    const lgk_tensor *t0 = n->in[0];
    int64_t r = t0->rank, axis = o ? o->axis : 0;
    if (axis < 0) axis += r + 1;
    if (axis < 0 || axis > r) return lgk_fail(n, LG_ERR_FORMAT, err, "axis %d is out of range for rank %lld", o ? o->axis : 0,
                                              (long long)r);
    if (r + 1 > LG_MAX_RANK) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output rank %lld > %d", (long long)r + 1, LG_MAX_RANK);
    LG_TRY(lgks_out_like(n, 0, t0, err));
    for (uint32_t i = 1; i < n->n_in; i++) {
        const lgk_tensor *t = n->in[i];
        int same = t->rank == t0->rank && t->type == t0->type;
        for (uint32_t d = 0; same && d < t->rank; d++) same = t->shape[d] == t0->shape[d];
        if (!same) return lgk_fail(n, LG_ERR_FORMAT, err, "input %u differs from input 0 in type or shape", i);
        LG_TRY(lgks_out_like(n, 0, t, err));
    }
    join_state *s = join_new(n, n->n_in, err);
    if (!s) return LG_ERR_NOMEM;
    uint32_t es = lgk_elem_size(t0->type);
    int64_t inner = 1;
    s->outer = 1;
    for (int64_t d = 0; d < r; d++) {
        if (d < axis) s->outer *= t0->shape[d];
        else inner *= t0->shape[d];
    }
    for (uint32_t i = 0; i < n->n_in; i++) {
        s->run[i] = (uint64_t)inner * es;
        s->row += s->run[i];
    }
    int32_t out[LG_MAX_RANK];
    for (int64_t d = 0, k = 0; d <= r; d++) out[d] = d == axis ? (int32_t)n->n_in : t0->shape[k++];
    return lgk_set_output(n, 0, t0->type, out, (uint32_t)r + 1, err);
}

lg_status lgks_join_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const join_state *s = n->state;
    lgk_tensor *out = n->out[0];
    uint8_t *dst = out->data;
    for (int64_t o = 0; o < s->outer; o++) {
        for (uint32_t i = 0; i < s->n; i++) {
            if (s->run[i]) memcpy(dst, (const uint8_t *)n->in[i]->data + (uint64_t)o * s->run[i], (size_t)s->run[i]);
            dst += s->run[i];
        }
    }
    if (s->act) {
        float *y = out->data;
        for (int64_t i = 0; i < out->numel; i++) y[i] = lgk_act(s->act, y[i]);
    }
    return LG_OK;
}

/* ---- the other direction: outputs are the many side */

static lg_status part_finish(lgk_node *n, const lgk_tensor *in, int64_t axis, const int64_t *sizes, lg_error *err) {
    join_state *s = join_new(n, n->n_out, err);
    if (!s) return LG_ERR_NOMEM;
    uint32_t es = lgk_elem_size(in->type);
    int64_t inner = 1;
    s->outer = 1;
    for (uint32_t d = 0; d < in->rank; d++) {
        if (d < axis) s->outer *= in->shape[d];
        else if (d > axis) inner *= in->shape[d];
    }
    for (uint32_t j = 0; j < n->n_out; j++) {
        LG_TRY(lgks_out_like(n, j, in, err));
        int32_t out[LG_MAX_RANK];
        for (uint32_t d = 0; d < in->rank; d++) out[d] = d == axis ? (int32_t)sizes[j] : in->shape[d];
        LG_TRY(lgk_set_output(n, j, in->type, out, in->rank, err));
        s->run[j] = (uint64_t)(sizes[j] * inner) * es;
        s->row += s->run[j];
    }
    return LG_OK;
}

lg_status lgks_part_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const join_state *s = n->state;
    const uint8_t *src = n->in[n->code == LG_OP_SPLIT ? 1 : 0]->data;
    for (int64_t o = 0; o < s->outer; o++) {
        for (uint32_t j = 0; j < s->n; j++) {
            if (s->run[j]) memcpy((uint8_t *)n->out[j]->data + (uint64_t)o * s->run[j], src, (size_t)s->run[j]);
            src += s->run[j];
        }
    }
    return LG_OK;
}

lg_status lgks_unpack_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 1, 1, 1, UINT32_MAX, err));
    const lgk_tensor *in = n->in[0];
    const lg_unpack_options *o = opts_of(n, LG_OPTS_UNPACK_OPTIONS);
    int64_t axis = o ? o->axis : 0;
    if (axis < 0) axis += in->rank;
    if (axis < 0 || axis >= (int64_t)in->rank)
        return lgk_fail(n, LG_ERR_FORMAT, err, "axis %d is out of range for rank %u", o ? o->axis : 0, in->rank);
    if (o && o->num && o->num != (int32_t)n->n_out)
        return lgk_fail(n, LG_ERR_FORMAT, err, "num is %d but there are %u outputs", o->num, n->n_out);
    if (in->shape[axis] != (int32_t)n->n_out)
        return lgk_fail(n, LG_ERR_FORMAT, err, "dim %lld is %d but there are %u outputs", (long long)axis, in->shape[axis],
                        n->n_out);
    /* each output is one slice along the axis, with the axis removed */
    join_state *s = join_new(n, n->n_out, err);
    if (!s) return LG_ERR_NOMEM;
    uint32_t es = lgk_elem_size(in->type);
    int64_t inner = 1;
    s->outer = 1;
    int32_t out[LG_MAX_RANK];
    uint32_t r = 0;
    for (uint32_t d = 0; d < in->rank; d++) {
        if (d < axis) s->outer *= in->shape[d];
        else if (d > axis) inner *= in->shape[d];
        if (d != axis) out[r++] = in->shape[d];
    }
    for (uint32_t j = 0; j < n->n_out; j++) {
        LG_TRY(lgks_out_like(n, j, in, err));
        LG_TRY(lgk_set_output(n, j, in->type, out, r, err));
        s->run[j] = (uint64_t)inner * es;
        s->row += s->run[j];
    }
    return LG_OK;
}

lg_status lgks_split_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 2, 2, 1, UINT32_MAX, err));
    const lgk_tensor *in = n->in[1];
    const lg_split_options *o = opts_of(n, LG_OPTS_SPLIT_OPTIONS);
    if (o && o->num_splits != (int32_t)n->n_out)
        return lgk_fail(n, LG_ERR_FORMAT, err, "num_splits is %d but there are %u outputs", o->num_splits, n->n_out);
    int64_t axis;
    LG_TRY(lgks_const_scalar(n, 0, &axis, err));
    if (axis < 0) axis += in->rank;
    if (axis < 0 || axis >= (int64_t)in->rank)
        return lgk_fail(n, LG_ERR_FORMAT, err, "axis is out of range for rank %u", in->rank);
    if (in->shape[axis] % (int32_t)n->n_out)
        return lgk_fail(n, LG_ERR_FORMAT, err, "dim %lld (%d) does not split into %u equal parts", (long long)axis,
                        in->shape[axis], n->n_out);
    int64_t *sizes = lgk_alloc(n, n->n_out * sizeof(int64_t));
    if (!sizes) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    for (uint32_t j = 0; j < n->n_out; j++) sizes[j] = in->shape[axis] / (int32_t)n->n_out;
    return part_finish(n, in, axis, sizes, err);
}

lg_status lgks_split_v_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 3, 3, 1, UINT32_MAX, err));
    const lgk_tensor *in = n->in[0];
    const lg_split_v_options *o = opts_of(n, LG_OPTS_SPLIT_V_OPTIONS);
    if (o && o->num_splits != (int32_t)n->n_out)
        return lgk_fail(n, LG_ERR_FORMAT, err, "num_splits is %d but there are %u outputs", o->num_splits, n->n_out);
    if (n->in[1]->rank != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "size_splits must be a vector");
    if (n->in[1]->numel != (int64_t)n->n_out)
        return lgk_fail(n, LG_ERR_FORMAT, err, "size_splits has %lld values but there are %u outputs",
                        (long long)n->in[1]->numel, n->n_out);
    int64_t axis;
    LG_TRY(lgks_const_scalar(n, 2, &axis, err));
    if (axis < 0) axis += in->rank;
    if (axis < 0 || axis >= (int64_t)in->rank)
        return lgk_fail(n, LG_ERR_FORMAT, err, "axis is out of range for rank %u", in->rank);
    int64_t *sizes = lgk_alloc(n, n->n_out * sizeof(int64_t));
    if (!sizes) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    uint32_t cnt = 0;
    LG_TRY(lgk_const_ints(n, 1, sizes, n->n_out, &cnt, err));
    int64_t sum = 0;
    int minus = -1;
    for (uint32_t j = 0; j < n->n_out; j++) {
        if (sizes[j] == -1) {
            if (minus >= 0) return lgk_fail(n, LG_ERR_FORMAT, err, "size_splits has more than one -1");
            minus = (int)j;
        } else if (sizes[j] < 0 || sizes[j] > INT32_MAX) {
            return lgk_fail(n, LG_ERR_FORMAT, err, "size_splits[%u] is %lld", j, (long long)sizes[j]);
        } else {
            sum += sizes[j];
        }
    }
    int64_t dim = in->shape[axis];
    if (minus >= 0) {
        if (sum > dim) return lgk_fail(n, LG_ERR_FORMAT, err, "size_splits sum to %lld, more than dim %lld (%lld)",
                                       (long long)sum, (long long)axis, (long long)dim);
        sizes[minus] = dim - sum;
    } else if (sum != dim) {
        return lgk_fail(n, LG_ERR_FORMAT, err, "size_splits sum to %lld but dim %lld is %lld", (long long)sum,
                        (long long)axis, (long long)dim);
    }
    return part_finish(n, in, axis, sizes, err);
}
