/* Structural validation of a model in memory: every index in range, shapes and quantization
   consistent, constant data the size its shape says. The reader runs it on every file and the
   writer before writing, so everything downstream may index without checking again.

   Errors are LG_ERR_INVALID_ARG with a one-line message that names the place, e.g.
   "subgraph 0 op 12 (CONV_2D): input 3 refers to tensor 99 of 40", and err->subgraph/op/tensor
   set accordingly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ir/schema_gen.h"

typedef struct vctx {
    const lg_model *m;
    lg_error *err;
    /* sorted ExternalBuffer ids, for Tensor.external_buffer look-ups */
    uint32_t *ext_ids;
    uint32_t n_ext_ids;
} vctx;

static lg_status vfail(vctx *v, int32_t sg, int32_t op, int32_t tensor, const char *fmt, ...)
    LGI_PRINTF(5, 6);
static lg_status vfail(vctx *v, int32_t sg, int32_t op, int32_t tensor, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lgi_failv(v->err, LG_ERR_INVALID_ARG, sg, op, tensor, fmt, ap);
    va_end(ap);
    return LG_ERR_INVALID_ARG;
}

#define nz(name) (lgi_printable(name).s)

/* Prefixes "subgraph S op I (NAME)" and "subgraph S tensor T ("name")". */
#define OPF(v, s, i, op, fmt, ...)                                                           \
    vfail((v), (int32_t)(s), (int32_t)(i), -1, "subgraph %u op %u (%s): " fmt, (s), (i),      \
          nz(lg_op_name((v)->m, (op))), __VA_ARGS__)
#define TF(v, s, i, t, fmt, ...)                                                             \
    vfail((v), (int32_t)(s), -1, (int32_t)(i), "subgraph %u tensor %u (\"%s\"): " fmt, (s),   \
          (i), nz((t)->name), __VA_ARGS__)

static int kind_is_op_opts(lg_opts_kind k) {
    int x = (int)k;
    return (x >= 1 && x <= lgi_opts_count1) ||
           (x > LG_OPTS_2_BASE && x <= LG_OPTS_2_BASE + lgi_opts_count2);
}

static int kind_is_qdetails(lg_opts_kind k) {
    int x = (int)k;
    return x > LG_QDETAILS_CUSTOM_QUANTIZATION - 1 &&
           x <= LG_QDETAILS_CUSTOM_QUANTIZATION - 1 + lgi_qdetails_count;
}

/* Vectors inside an options struct: n > 0 needs data. Returns the bad field's name or NULL. */
static const char *opts_bad_vec(lg_opts_kind kind, const void *opts) {
    const lgi_table_desc *t = lgi_opts_table(kind);
    if (!t || !opts) return NULL;
    for (const lgi_field_desc *f = t->fields; f->name; f++) {
        if (!lgi_field_is_vec((lgi_field_kind)f->kind)) continue;
        lg_vec vec;
        memcpy(&vec, (const uint8_t *)opts + f->offset, sizeof vec);
        if (vec.n && !vec.data) return f->name;
    }
    return NULL;
}

/* ------------------------------------------------------------------ tensors */

static lg_status check_quant(vctx *v, uint32_t s, uint32_t i, const lg_tensor *t) {
    const lg_quant *q = t->quant;
    if ((q->n_min && !q->min) || (q->n_max && !q->max) || (q->n_scale && !q->scale) ||
        (q->n_zero_point && !q->zero_point))
        return TF(v, s, i, t, "%s", "quantization vector with a count but no data");
    if (q->scale && q->zero_point && q->n_scale != q->n_zero_point)
        return TF(v, s, i, t, "%u quantization scales but %u zero points", q->n_scale,
                  q->n_zero_point);
    if (q->n_scale > 1) {
        int32_t qd = q->quantized_dimension;
        if (qd < 0 || (uint32_t)qd >= t->rank)
            return TF(v, s, i, t, "quantized dimension %d is not in [0, %u) (%u scales)", qd,
                      t->rank, q->n_scale);
        if ((int64_t)t->shape[qd] != (int64_t)q->n_scale)
            return TF(v, s, i, t, "%u quantization scales for dimension %d of size %d",
                      q->n_scale, qd, t->shape[qd]);
    }
    if (q->details_kind != LG_OPTS_NONE) {
        if (!kind_is_qdetails(q->details_kind))
            return TF(v, s, i, t, "unknown quantization details kind %d", (int)q->details_kind);
        const char *bad = opts_bad_vec(q->details_kind, q->details);
        if (bad) return TF(v, s, i, t, "quantization details field %s has a count but no data", bad);
    }
    if (q->details_kind == LG_QDETAILS_BLOCKWISE_QUANTIZATION && q->details) {
        /* its scales and zero points are tensors of the subgraph (-1: no zero points) */
        const lg_blockwise_quantization *bw = q->details;
        uint32_t nt = v->m->subgraphs[s].n_tensors;
        if (bw->scales < 0 || (uint32_t)bw->scales >= nt)
            return TF(v, s, i, t, "blockwise quantization scales tensor %d of %u", bw->scales, nt);
        if (bw->zero_points < -1 || (bw->zero_points >= 0 && (uint32_t)bw->zero_points >= nt))
            return TF(v, s, i, t, "blockwise quantization zero points tensor %d of %u", bw->zero_points, nt);
    }
    return LG_OK;
}

static lg_status check_index_vec(vctx *v, uint32_t s, uint32_t i, const lg_tensor *t,
                                 uint32_t d, const char *what, uint8_t type, const int32_t *vals,
                                 uint32_t n) {
    if (type > 3) /* 1 Int32Vector, 2 Uint16Vector, 3 Uint8Vector */
        return TF(v, s, i, t, "sparsity dimension %u: %s type %u is not in [0, 3]", d, what, type);
    if (n && !vals) return TF(v, s, i, t, "sparsity dimension %u: %s with no data", d, what);
    int64_t hi = type == 2 ? 65535 : type == 3 ? 255 : INT32_MAX;
    int64_t lo = type == 1 ? INT32_MIN : 0;
    for (uint32_t k = 0; k < n; k++)
        if (vals[k] < lo || vals[k] > hi)
            return TF(v, s, i, t, "sparsity dimension %u: %s value %d does not fit %s", d, what,
                      vals[k], type == 2 ? "Uint16Vector" : "Uint8Vector");
    return LG_OK;
}

static lg_status check_sparsity(vctx *v, uint32_t s, uint32_t i, const lg_tensor *t) {
    const lg_sparsity *sp = t->sparsity;
    if ((sp->n_traversal_order && !sp->traversal_order) || (sp->n_block_map && !sp->block_map) ||
        (sp->n_dim_metadata && !sp->dim_metadata))
        return TF(v, s, i, t, "%s", "sparsity vector with a count but no data");
    for (uint32_t d = 0; d < sp->n_dim_metadata; d++) {
        const lg_dim_meta *dm = &sp->dim_metadata[d];
        LG_TRY(check_index_vec(v, s, i, t, d, "array_segments", dm->segments_type, dm->segments,
                               dm->n_segments));
        LG_TRY(check_index_vec(v, s, i, t, d, "array_indices", dm->indices_type, dm->indices,
                               dm->n_indices));
    }
    return LG_OK;
}

static int ext_id_known(const vctx *v, uint32_t id) {
    uint32_t lo = 0, hi = v->n_ext_ids;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v->ext_ids[mid] == id) return 1;
        if (v->ext_ids[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

static lg_status check_tensor(vctx *v, uint32_t s, uint32_t i, const lg_tensor *t) {
    const lg_model *m = v->m;
    if (t->type < 0 || t->type >= LG_DTYPE_COUNT)
        return TF(v, s, i, t, "type %d is not a TensorType (0..%d)", t->type, LG_DTYPE_COUNT - 1);
    if (t->rank && !t->shape) return TF(v, s, i, t, "rank %u but no shape", t->rank);
    for (uint32_t d = 0; d < t->rank; d++)
        if (t->shape[d] < 0)
            return TF(v, s, i, t, "shape dimension %u is %d", d, t->shape[d]);
    if (t->n_shape_signature && !t->shape_signature)
        return TF(v, s, i, t, "%u shape signature dimensions but no data", t->n_shape_signature);
    for (uint32_t d = 0; d < t->n_shape_signature; d++)
        if (t->shape_signature[d] < -1)
            return TF(v, s, i, t, "shape signature dimension %u is %d", d, t->shape_signature[d]);
    if (t->buffer >= m->n_buffers)
        return TF(v, s, i, t, "buffer %u of %u", t->buffer, m->n_buffers);
    if (t->quant) LG_TRY(check_quant(v, s, i, t));
    if (t->sparsity) LG_TRY(check_sparsity(v, s, i, t));
    if (t->n_variant_tensors && !t->variant_tensors)
        return TF(v, s, i, t, "%u variant subtypes but no data", t->n_variant_tensors);
    for (uint32_t k = 0; k < t->n_variant_tensors; k++) {
        const lg_variant_subtype *vt = &t->variant_tensors[k];
        if (vt->rank && !vt->shape) return TF(v, s, i, t, "variant subtype %u: rank but no shape", k);
        if (vt->type < 0 || vt->type >= LG_DTYPE_COUNT)
            return TF(v, s, i, t, "variant subtype %u: type %d is not a TensorType", k, vt->type);
    }
    if (t->external_buffer && !ext_id_known(v, t->external_buffer))
        return TF(v, s, i, t, "external buffer %u is not among the model's external buffers",
                  t->external_buffer);

    /* Dense constant data of a fixed-size type must be exactly what the shape says. */
    const lg_buffer *b = &m->buffers[t->buffer];
    int bits = lg_dtype_bits(t->type);
    if (t->buffer && b->data && b->size && !t->sparsity && bits > 0) {
        int64_t numel = lg_tensor_numel(t);
        if (numel < 0 || (uint64_t)numel > (UINT64_MAX - 7) / (uint64_t)bits)
            return TF(v, s, i, t, "%s", "element count overflows");
        uint64_t want = ((uint64_t)numel * (uint64_t)bits + 7) / 8;
        if (b->size != want)
            return TF(v, s, i, t, "constant data (buffer %u) is %llu bytes, expected %llu "
                      "(%lld x %s)", t->buffer, (unsigned long long)b->size,
                      (unsigned long long)want, (long long)numel, lg_dtype_name(t->type));
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ ops and subgraphs */

static lg_status check_op(vctx *v, uint32_t s, uint32_t i, const lg_subgraph *sg,
                          const lg_op *op) {
    const lg_model *m = v->m;
    if (op->opcode_index >= m->n_opcodes)
        return OPF(v, s, i, op, "opcode index %u of %u", op->opcode_index, m->n_opcodes);
    struct { const int32_t *ids; uint32_t n; const char *what; int optional; } lists[] = {
        {op->inputs, op->n_inputs, "input", 1},
        {op->outputs, op->n_outputs, "output", 0},
        {op->intermediates, op->n_intermediates, "intermediate", 0},
    };
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
        if (lists[l].n && !lists[l].ids)
            return OPF(v, s, i, op, "%u %ss but no data", lists[l].n, lists[l].what);
        for (uint32_t k = 0; k < lists[l].n; k++) {
            int32_t x = lists[l].ids[k];
            if ((lists[l].optional && x == -1) || (x >= 0 && (uint32_t)x < sg->n_tensors)) continue;
            return OPF(v, s, i, op, "%s %u refers to tensor %d of %u", lists[l].what, k, x,
                       sg->n_tensors);
        }
    }
    if (op->n_mutating_variable_inputs && !op->mutating_variable_inputs)
        return OPF(v, s, i, op, "%u mutating_variable_inputs but no data",
                   op->n_mutating_variable_inputs);
    if (op->n_custom_options && !op->custom_options)
        return OPF(v, s, i, op, "%u custom option bytes but no data", op->n_custom_options);
    if (op->opts_kind != LG_OPTS_NONE) {
        if (!kind_is_op_opts(op->opts_kind))
            return OPF(v, s, i, op, "unknown options kind %d", (int)op->opts_kind);
        const char *bad = opts_bad_vec(op->opts_kind, op->opts);
        if (bad) return OPF(v, s, i, op, "options field %s has a count but no data", bad);
    }
    return LG_OK;
}

static lg_status check_subgraph(vctx *v, uint32_t s, const lg_subgraph *sg) {
    if ((sg->n_tensors && !sg->tensors) || (sg->n_ops && !sg->ops))
        return vfail(v, (int32_t)s, -1, -1, "subgraph %u: %u tensors and %u ops, array missing", s,
                     sg->n_tensors, sg->n_ops);
    if (sg->n_tensors > (uint32_t)INT32_MAX)
        return vfail(v, (int32_t)s, -1, -1, "subgraph %u: %u tensors", s, sg->n_tensors);
    for (uint32_t i = 0; i < sg->n_tensors; i++) LG_TRY(check_tensor(v, s, i, &sg->tensors[i]));
    for (uint32_t i = 0; i < sg->n_ops; i++) LG_TRY(check_op(v, s, i, sg, &sg->ops[i]));
    struct { const int32_t *ids; uint32_t n; const char *what; } io[] = {
        {sg->inputs, sg->n_inputs, "input"}, {sg->outputs, sg->n_outputs, "output"}};
    for (int l = 0; l < 2; l++) {
        if (io[l].n && !io[l].ids)
            return vfail(v, (int32_t)s, -1, -1, "subgraph %u: %u %ss but no data", s, io[l].n,
                         io[l].what);
        for (uint32_t k = 0; k < io[l].n; k++) {
            int32_t x = io[l].ids[k];
            if (x < 0 || (uint32_t)x >= sg->n_tensors)
                return vfail(v, (int32_t)s, -1, -1, "subgraph %u: %s %u refers to tensor %d of %u",
                             s, io[l].what, k, x, sg->n_tensors);
        }
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ model level */

static lg_status check_signatures(vctx *v) {
    const lg_model *m = v->m;
    for (uint32_t i = 0; i < m->n_signatures; i++) {
        const lg_signature *sig = &m->signatures[i];
        if (sig->subgraph_index >= m->n_subgraphs)
            return vfail(v, -1, -1, -1, "signature %u (\"%s\"): subgraph %u of %u", i,
                         nz(sig->key), sig->subgraph_index, m->n_subgraphs);
        const lg_subgraph *sg = &m->subgraphs[sig->subgraph_index];
        struct { const lg_tensor_map *v; uint32_t n; const char *what; } l[] = {
            {sig->inputs, sig->n_inputs, "input"}, {sig->outputs, sig->n_outputs, "output"}};
        for (int k = 0; k < 2; k++) {
            if (l[k].n && !l[k].v)
                return vfail(v, (int32_t)sig->subgraph_index, -1, -1,
                             "signature %u (\"%s\"): %u %ss but no data", i, nz(sig->key), l[k].n,
                             l[k].what);
            for (uint32_t j = 0; j < l[k].n; j++)
                if (l[k].v[j].tensor_index >= sg->n_tensors)
                    return vfail(v, (int32_t)sig->subgraph_index, -1, -1,
                                 "signature %u (\"%s\"): %s %u (\"%s\") refers to tensor %u of %u "
                                 "in subgraph %u", i, nz(sig->key), l[k].what, j,
                                 nz(l[k].v[j].name), l[k].v[j].tensor_index, sg->n_tensors,
                                 sig->subgraph_index);
        }
    }
    return LG_OK;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static lg_status check_external(vctx *v) {
    const lg_model *m = v->m;
    for (uint32_t i = 0; i < m->n_external_buffers; i++) {
        const lg_external_buffer *e = &m->external_buffers[i];
        if (e->id == 0)
            return vfail(v, -1, -1, -1, "external buffer %u: id 0 is reserved (\"no external "
                         "buffer\")", i);
        if (e->group >= m->n_external_buffer_groups)
            return vfail(v, -1, -1, -1, "external buffer %u (id %u): group %u of %u", i, e->id,
                         e->group, m->n_external_buffer_groups);
        if (e->length > UINT64_MAX - e->offset)
            return vfail(v, -1, -1, -1, "external buffer %u (id %u): offset %llu + length %llu "
                         "overflows", i, e->id, (unsigned long long)e->offset,
                         (unsigned long long)e->length);
    }
    if (!m->n_external_buffers) return LG_OK;
    lg_alloc_fn af = m->priv && m->priv->alloc ? m->priv->alloc : lgi_default_alloc;
    void *ud = m->priv ? m->priv->alloc_ud : NULL;
    size_t bytes = (size_t)m->n_external_buffers * sizeof(uint32_t);
    v->ext_ids = af(ud, NULL, 0, bytes);
    if (!v->ext_ids)
        return lgi_fail(v->err, LG_ERR_NOMEM, "out of memory validating external buffers");
    for (uint32_t i = 0; i < m->n_external_buffers; i++) v->ext_ids[i] = m->external_buffers[i].id;
    v->n_ext_ids = m->n_external_buffers;
    qsort(v->ext_ids, v->n_ext_ids, sizeof(uint32_t), cmp_u32);
    for (uint32_t i = 1; i < v->n_ext_ids; i++)
        if (v->ext_ids[i] == v->ext_ids[i - 1])
            return vfail(v, -1, -1, -1, "external buffer id %u is used twice", v->ext_ids[i]);
    return LG_OK;
}

static lg_status validate(vctx *v) {
    const lg_model *m = v->m;
    if ((m->n_opcodes && !m->opcodes) || (m->n_subgraphs && !m->subgraphs) ||
        (m->n_buffers && !m->buffers) || (m->n_metadata_buffer && !m->metadata_buffer) ||
        (m->n_metadata && !m->metadata) || (m->n_signatures && !m->signatures) ||
        (m->n_external_buffer_groups && !m->external_buffer_groups) ||
        (m->n_external_buffers && !m->external_buffers))
        return vfail(v, -1, -1, -1, "model: an array has a count but no data");
    for (uint32_t i = 0; i < m->n_buffers; i++)
        if (m->buffers[i].size && !m->buffers[i].data)
            return vfail(v, -1, -1, -1, "buffer %u: %llu bytes but no data", i,
                         (unsigned long long)m->buffers[i].size);
    LG_TRY(check_external(v));
    for (uint32_t s = 0; s < m->n_subgraphs; s++) LG_TRY(check_subgraph(v, s, &m->subgraphs[s]));
    for (uint32_t i = 0; i < m->n_metadata_buffer; i++)
        if (m->metadata_buffer[i] < 0 || (uint32_t)m->metadata_buffer[i] >= m->n_buffers)
            return vfail(v, -1, -1, -1, "metadata_buffer %u refers to buffer %d of %u", i,
                         m->metadata_buffer[i], m->n_buffers);
    for (uint32_t i = 0; i < m->n_metadata; i++)
        if (m->metadata[i].buffer >= m->n_buffers)
            return vfail(v, -1, -1, -1, "metadata %u (\"%s\"): buffer %u of %u", i,
                         nz(m->metadata[i].name), m->metadata[i].buffer, m->n_buffers);
    return check_signatures(v);
}

lg_status lg_model_validate(const lg_model *m, lg_error *err) {
    lgi_error_clear(err);
    if (!m) return lgi_fail(err, LG_ERR_INVALID_ARG, "no model given");
    /* TFLite refuses it too ("No subgraph in the model"); every verb needs subgraph 0 */
    if (m->n_subgraphs == 0) return lgi_fail(err, LG_ERR_INVALID_ARG, "the model has no subgraph");
    vctx v = {m, err, NULL, 0};
    lg_status st = validate(&v);
    if (v.ext_ids) {
        lg_alloc_fn af = m->priv && m->priv->alloc ? m->priv->alloc : lgi_default_alloc;
        af(m->priv ? m->priv->alloc_ud : NULL, v.ext_ids,
           (size_t)m->n_external_buffers * sizeof(uint32_t), 0);
    }
    return st;
}
