/* The helper library of the kernels (kernel.h): the kernel look-up, errors naming the op,
 * output shapes, constant integer inputs, broadcasting strides, the dot product. */
#include <string.h>

#include "run/kernel.h"

static const lgk_kernel *const kernel_tables[] = {
    lgk_elementwise_kernels, lgk_conv_kernels, lgk_shape_kernels, lgk_reduce_kernels,
};

const lgk_kernel *lgk_find(int32_t code, const char *custom) {
    for (size_t k = 0; k < sizeof kernel_tables / sizeof kernel_tables[0]; k++)
        for (const lgk_kernel *e = kernel_tables[k]; e->eval; e++) {
            if (e->code != code) continue;
            if (code == LG_OP_CUSTOM && (!custom || !e->custom || strcmp(custom, e->custom) != 0)) continue;
            return e;
        }
    return NULL;
}

lg_status lgk_fail(const lgk_node *n, lg_status st, lg_error *err, const char *fmt, ...) {
    if (!err) return st;
    va_list ap;
    va_start(ap, fmt);
    lgi_failv(err, st, LGI_KEEP, n->index, LGI_KEEP, fmt, ap);
    va_end(ap);
    lgi_error_prefix(err, "op %d (%s): ", n->index, n->name);
    return st;
}

void *lgk_alloc(lgk_node *n, size_t bytes) { return lgi_arena_alloc(n->arena, bytes ? bytes : 1); }

uint32_t lgk_elem_size(lg_dtype t) {
    switch (t) {
    case LG_FLOAT32: case LG_INT32: case LG_UINT32: return 4;
    case LG_INT64: case LG_UINT64: case LG_FLOAT64: return 8;
    case LG_INT16: case LG_UINT16: case LG_FLOAT16: return 2;
    case LG_INT8: case LG_UINT8: case LG_BOOL: return 1;
    default: return 0;
    }
}

lg_status lgk_fc_set_output(lgk_node *n, const lgk_tensor *x, bool keep_num_dims, int64_t in, int64_t rows,
                            int64_t units, lg_dtype t, lg_error *err) {
    int32_t shp[LG_MAX_RANK];
    uint32_t rank;
    if (keep_num_dims) {
        if (x->rank == 0 || x->shape[x->rank - 1] != in)
            return lgk_fail(n, LG_ERR_FORMAT, err, "keep_num_dims: the input's last dimension must be %lld", (long long)in);
        rank = x->rank;
        memcpy(shp, x->shape, rank * sizeof(int32_t));
        shp[rank - 1] = (int32_t)units;
    } else {
        rank = 2;
        shp[0] = (int32_t)rows;
        shp[1] = (int32_t)units;
    }
    return lgk_set_output(n, 0, t, shp, rank, err);
}

lg_status lgk_set_output(lgk_node *n, uint32_t o, lg_dtype t, const int32_t *shape, uint32_t rank,
                         lg_error *err) {
    if (o >= n->n_out || !n->out[o]) return lgk_fail(n, LG_ERR_INTERNAL, err, "no output %u", o);
    if (rank > LG_MAX_RANK) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output rank %u > %d", rank, LG_MAX_RANK);
    uint32_t es = lgk_elem_size(t);
    if (!es) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output type %s is not supported", lg_dtype_name(t));
    lgk_tensor *x = n->out[o];
    int64_t numel = 1;
    for (uint32_t i = 0; i < rank; i++) {
        if (shape[i] < 0) return lgk_fail(n, LG_ERR_FORMAT, err, "negative output dimension %d", shape[i]);
        if (shape[i] && numel > INT64_MAX / shape[i]) return lgk_fail(n, LG_ERR_LIMIT, err, "output too large");
        numel *= shape[i];
        x->shape[i] = shape[i];
    }
    if (numel > (INT64_MAX / 8)) return lgk_fail(n, LG_ERR_LIMIT, err, "output too large");
    x->rank = rank;
    x->type = t;
    x->numel = numel;
    x->nbytes = (uint64_t)numel * es;
    return LG_OK;
}

int64_t lgk_get_int(const lgk_tensor *t, int64_t i) {
    const uint8_t *p = t->data;
    switch (t->type) {
    case LG_INT32: { int32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    case LG_INT64: { int64_t v; memcpy(&v, p + 8 * i, 8); return v; }
    case LG_INT16: { int16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case LG_UINT16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case LG_UINT32: { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    case LG_INT8: return ((const int8_t *)p)[i];
    case LG_UINT8: case LG_BOOL: return p[i];
    case LG_FLOAT32: { float v; memcpy(&v, p + 4 * i, 4); return (int64_t)v; }
    default: return 0;
    }
}

lg_status lgk_const_ints(const lgk_node *n, uint32_t input, int64_t *out, uint32_t max, uint32_t *count,
                         lg_error *err) {
    if (input >= n->n_in || !n->in[input])
        return lgk_fail(n, LG_ERR_FORMAT, err, "input %u is missing", input);
    const lgk_tensor *t = n->in[input];
    if (!t->is_const || !t->data)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                        "input %u (tensor %d) must be constant: shapes computed at run time are not supported",
                        input, t->index);
    if (t->type != LG_INT32 && t->type != LG_INT64)
        return lgk_fail(n, LG_ERR_FORMAT, err, "input %u must be INT32 or INT64, not %s", input, lg_dtype_name(t->type));
    if (t->numel > (int64_t)max) return lgk_fail(n, LG_ERR_LIMIT, err, "input %u has %lld values (max %u)", input, (long long)t->numel, max);
    for (int64_t i = 0; i < t->numel; i++) out[i] = lgk_get_int(t, i);
    *count = (uint32_t)t->numel;
    return LG_OK;
}

void lgk_broadcast_strides(const lgk_tensor *t, const int32_t *out_shape, uint32_t out_rank, int64_t *strides) {
    int64_t s = 1;
    for (int i = (int)out_rank - 1; i >= 0; i--) {
        int k = i - (int)(out_rank - t->rank);
        if (k < 0) { strides[i] = 0; continue; }
        strides[i] = t->shape[k] == 1 && out_shape[i] != 1 ? 0 : s;
        s *= t->shape[k];
    }
}

float lgk_dot(const lgk_ctx *c, const float *a, int64_t sa, const float *b, int64_t sb, int64_t n) {
    float acc = 0;
    if (c->prec == LG_PREC_F16) {
        for (int64_t i = 0; i < n; i++) acc = lg_round_half(acc + a[i * sa] * b[i * sb]);
    } else {
        for (int64_t i = 0; i < n; i++) acc += a[i * sa] * b[i * sb];
    }
    return acc;
}
