/* Shape family: DENSIFY, TFLite's sparse constant format made dense.
 *
 * The input is a constant with a `sparsity` table; the interpreter leaves its data as the raw
 * file bytes (the values, in the file's element type). The format (see TFLite's
 * sparsity_format_converter.cc, SparseToDense/Populate):
 *   - the dense shape is the tensor's shape; block_map[b] names the dense dim that block b
 *     splits, so there are rank + n_blocks "expanded" dims (blocked dims, then block dims);
 *   - traversal_order lists the expanded dims in storage order, and dim_metadata[l]
 *     describes level l of that order: DENSE (dense_size elements) or SPARSE_CSR
 *     (array_segments/array_indices: the children of parent p are indices[segments[p] ..
 *     segments[p+1]));
 *   - the values are stored in traversal order, one per leaf.
 * Everything is checked (a malformed table is LG_ERR_FORMAT, never an out-of-bounds access);
 * the dense result is built once at prepare and copied out at eval. FLOAT16 values become
 * FLOAT32 storage holding the half values exactly. */
#include "run/k_shape.h"

#define MAXL (2 * LG_MAX_RANK)

typedef struct dz {
    const lgk_node *n;
    const lg_sparsity *sp;
    uint32_t rank, levels;
    int32_t order[MAXL];
    int64_t block_size[LG_MAX_RANK];
    int32_t block_map[LG_MAX_RANK];
    int64_t shape[LG_MAX_RANK], stride[LG_MAX_RANK];
    int64_t idx[MAXL];
    const uint8_t *vals;
    int64_t n_vals, next;
    int ft;                   /* file element type */
    uint8_t *out;             /* dense output, storage type */
    lg_error *err;
} dz;

static lg_status dz_leaf(dz *z) {
    int64_t orig[LG_MAX_RANK];
    for (uint32_t i = 0; i < z->rank; i++) orig[z->order[i]] = z->idx[i];
    for (uint32_t i = z->rank; i < z->levels; i++) {
        int b = z->order[i] - (int)z->rank;
        int od = z->block_map[b];
        orig[od] = orig[od] * z->block_size[b] + z->idx[i];
    }
    int64_t at = 0;
    for (uint32_t d = 0; d < z->rank; d++) {
        if (orig[d] < 0 || orig[d] >= z->shape[d])
            return lgk_fail(z->n, LG_ERR_FORMAT, z->err, "sparse index %lld of dim %u is out of range [0, %lld)",
                            (long long)orig[d], d, (long long)z->shape[d]);
        at += orig[d] * z->stride[d];
    }
    if (z->next >= z->n_vals)
        return lgk_fail(z->n, LG_ERR_FORMAT, z->err, "the sparsity table has more elements than the %lld values",
                        (long long)z->n_vals);
    int64_t k = z->next++;
    switch (z->ft) {
    case LG_FLOAT16: {
        float f = lg_half_to_float(lgi_rd_u16(z->vals + 2 * k));
        memcpy(z->out + 4 * at, &f, 4);
        break;
    }
    case LG_FLOAT32: memcpy(z->out + 4 * at, z->vals + 4 * k, 4); break;
    default: z->out[at] = z->vals[k]; break; /* INT8 */
    }
    return LG_OK;
}

static lg_status dz_level(dz *z, uint32_t level, int64_t prev) {
    if (level == z->levels) return dz_leaf(z);
    const lg_dim_meta *dm = &z->sp->dim_metadata[level];
    if (dm->format == LG_DIMENSION_TYPE_DENSE) {
        int64_t size = dm->dense_size;
        for (int64_t i = 0; i < size; i++) {
            z->idx[level] = i;
            LG_TRY(dz_level(z, level + 1, prev * size + i));
        }
        return LG_OK;
    }
    /* SPARSE_CSR */
    if (prev < 0 || prev + 1 >= (int64_t)dm->n_segments) return LG_OK;
    int64_t lo = dm->segments[prev], hi = dm->segments[prev + 1];
    if (lo < 0 || hi < 0)
        return lgk_fail(z->n, LG_ERR_FORMAT, z->err, "sparsity level %u has a negative segment", level);
    if (hi > (int64_t)dm->n_indices) hi = dm->n_indices; /* as TFLite: entries past the indices are skipped */
    for (int64_t i = lo; i < hi; i++) {
        z->idx[level] = dm->indices[i];
        LG_TRY(dz_level(z, level + 1, i));
    }
    return LG_OK;
}

lg_status lgks_densify_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 1, 1, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    const lg_sparsity *sp = in->ir->sparsity;
    if (!in->is_const || !sp)
        return lgk_fail(n, LG_ERR_FORMAT, err, "the input (tensor %d) must be a sparse constant", in->index);
    int ft = in->ir->type;
    uint32_t vs = ft == LG_FLOAT32 ? 4 : ft == LG_FLOAT16 ? 2 : ft == LG_INT8 ? 1 : 0;
    if (!vs) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "%s values (supported: FLOAT32, FLOAT16, INT8)", lg_dtype_name(ft));
    lg_dtype st = lgk_storage_type(ft);
    if (lgk_storage_type(n->out[0]->ir->type) != st)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output is %s but the input is %s", lg_dtype_name(n->out[0]->ir->type),
                        lg_dtype_name(ft));
    dz z;
    memset(&z, 0, sizeof z);
    z.n = n;
    z.sp = sp;
    z.err = err;
    z.ft = ft;
    z.rank = in->rank;
    uint32_t nb = sp->n_block_map;
    z.levels = sp->n_traversal_order;
    if (z.rank > LG_MAX_RANK || nb > LG_MAX_RANK)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "sparse rank %u with %u blocks", z.rank, nb);
    if (z.levels != z.rank + nb || sp->n_dim_metadata != z.levels)
        return lgk_fail(n, LG_ERR_FORMAT, err, "sparsity: %u traversal levels and %u dim_metadata for rank %u with %u blocks",
                        z.levels, sp->n_dim_metadata, z.rank, nb);
    /* the dense dims are traversed first (in any order), then the block dims: what TFLite's
       converter assumes */
    uint8_t seen[MAXL] = {0};
    for (uint32_t l = 0; l < z.levels; l++) {
        int32_t d = sp->traversal_order[l];
        int ok = d >= 0 && (uint32_t)d < z.levels && !seen[d] && ((l < z.rank) == ((uint32_t)d < z.rank));
        if (!ok) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "sparsity traversal_order[%u] = %d is not supported", l, d);
        seen[d] = 1;
        z.order[l] = d;
    }
    for (uint32_t b = 0; b < nb; b++) {
        int32_t d = sp->block_map[b];
        if (d < 0 || (uint32_t)d >= z.rank || (b && d <= sp->block_map[b - 1]))
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "sparsity block_map[%u] = %d is not supported", b, d);
        z.block_map[b] = d;
        /* TFLite reads the block size at dim_metadata[traversal_order[rank + b]]; the level
           that traverses block b must agree */
        uint32_t tfl = (uint32_t)sp->traversal_order[z.rank + b];
        uint32_t lvl = 0;
        while (lvl < z.levels && sp->traversal_order[lvl] != (int32_t)(z.rank + b)) lvl++;
        const lg_dim_meta *a = &sp->dim_metadata[tfl], *c = &sp->dim_metadata[lvl];
        if (a->format != LG_DIMENSION_TYPE_DENSE || c->format != LG_DIMENSION_TYPE_DENSE || a->dense_size != c->dense_size ||
            a->dense_size < 1 || in->shape[d] % a->dense_size)
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "sparsity block %u has no usable dense block size", b);
        z.block_size[b] = a->dense_size;
    }
    int64_t expanded[MAXL];
    for (uint32_t d = 0; d < z.rank; d++) {
        z.shape[d] = in->shape[d];
        expanded[d] = in->shape[d];
        for (uint32_t b = 0; b < nb; b++)
            if (z.block_map[b] == (int32_t)d) expanded[d] = in->shape[d] / z.block_size[b];
    }
    for (uint32_t b = 0; b < nb; b++) expanded[z.rank + b] = z.block_size[b];
    for (uint32_t l = 0; l < z.levels; l++) {
        const lg_dim_meta *dm = &sp->dim_metadata[l];
        if (dm->format == LG_DIMENSION_TYPE_DENSE) {
            if (dm->dense_size != expanded[z.order[l]])
                return lgk_fail(n, LG_ERR_FORMAT, err, "sparsity level %u: dense_size %d, expected %lld", l, dm->dense_size,
                                (long long)expanded[z.order[l]]);
        } else if (dm->format == LG_DIMENSION_TYPE_SPARSE_CSR) {
            if ((dm->n_segments && !dm->segments) || (dm->n_indices && !dm->indices))
                return lgk_fail(n, LG_ERR_FORMAT, err, "sparsity level %u has no segments or indices", l);
        } else {
            return lgk_fail(n, LG_ERR_FORMAT, err, "sparsity level %u has format %d", l, dm->format);
        }
    }
    if (in->nbytes % vs) return lgk_fail(n, LG_ERR_FORMAT, err, "%llu bytes of values is not a whole number of %s",
                                         (unsigned long long)in->nbytes, lg_dtype_name(ft));
    z.vals = in->data;
    z.n_vals = (int64_t)(in->nbytes / vs);
    lgks_strides(in->shape, in->rank, z.stride);
    LG_TRY(lgk_set_output(n, 0, st, in->shape, in->rank, err));
    lgks_blob *s = lgk_alloc(n, sizeof *s);
    z.out = lgk_alloc(n, (size_t)n->out[0]->nbytes); /* zeroed */
    if (!s || !z.out) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory for %llu dense bytes",
                                      (unsigned long long)n->out[0]->nbytes);
    if (z.levels == 0) {
        /* a scalar: one value */
        if (z.n_vals < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "no values");
        LG_TRY(dz_leaf(&z));
    } else {
        LG_TRY(dz_level(&z, 0, 0));
    }
    s->data = z.out;
    s->nbytes = n->out[0]->nbytes;
    n->state = s;
    return LG_OK;
}
