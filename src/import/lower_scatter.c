/* Lowerings of ScatterND, ScatterElements and Scatter (opsets 9-10: ScatterElements under its
 * former name, no reduction) with CONSTANT indices; data and updates may be computed at run
 * time. (Runtime indices are refused: a scatter to positions known only at run time has no
 * exact TFLite form the GPU delegates take.)
 *
 * The indices say, for every element i of the updates (in ONNX's iteration order), which data
 * position pos[i] it writes; that map is computed here (negative indices count from the end,
 * an index out of range is a format error naming the node). Then:
 *   - reduction "none": out = GATHER(CONCATENATION(flatten(data), flatten(updates)), map),
 *     RESHAPEd to the data's shape, where map[p] = p (the data keeps its value) or N + i (N the
 *     data's size) for the update i writing p. Duplicate indices: ONNX leaves the result
 *     undefined ("indices should not have duplicate entries ... This ensures that the output
 *     value does not depend on the iteration order", ScatterND and ScatterElements, opsets 11
 *     to 18); here the last write in iteration order wins, as in the ONNX reference
 *     implementation's loop.
 *   - reduction "add", "mul", "max", "min": one layer per write count: layer k gathers, for
 *     each position, the k-th update writing it (in iteration order), and
 *     acc = SELECT_V2(written k times, acc <op> gathered, acc), acc starting as the data. This
 *     is the reference loop's `output[idx] = output[idx] <op> updates[i]` in the same order, so
 *     the float rounding is the same; a position never written keeps its value exactly. max
 *     and min are TFLite MAXIMUM/MINIMUM (their NaN rule). When every input is constant all
 *     of it folds to one constant (li_op). */
#include <stdio.h>
#include <stdlib.h>

#include "import/import_impl.h"

enum { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN };

/* at most this many writes to one position with a reduction (one layer of ops per write) */
#define MAX_LAYERS 64

static int reduction(li_ctx *c) {
    const lg_onnx_attr *a = li_attr(c->node, "reduction");
    if (!a || lg_onnx_str_eq(a->s, "none")) return RED_NONE;
    if (lg_onnx_str_eq(a->s, "add")) return RED_ADD;
    if (lg_onnx_str_eq(a->s, "mul")) return RED_MUL;
    if (lg_onnx_str_eq(a->s, "max")) return RED_MAX;
    if (lg_onnx_str_eq(a->s, "min")) return RED_MIN;
    li_unsupported(c, "reduction \"%.*s\"", LG_ONNX_STR(a->s));
    return -1;
}

static int32_t reduce_op(li_ctx *c, int red, int32_t a, int32_t b) {
    static const int32_t code[] = {0, LG_OP_ADD, LG_OP_MUL, LG_OP_MAXIMUM, LG_OP_MINIMUM};
    return li_binary(c, code[red], a, b);
}

static int32_t shaped_like(li_ctx *c, int32_t t, int32_t like) {
    lg_shape s = li_shape(c, like);
    int64_t d[LG_MAX_RANK];
    for (int i = 0; i < s.rank; i++) d[i] = s.dim[i];
    return li_reshape(c, t, d, (uint32_t)s.rank);
}

/* reduction "none": each position reads its data element or the last update writing it */
static int32_t scatter_replace(li_ctx *c, int32_t x, int32_t u, const int64_t *pos, int64_t n_u) {
    int64_t n = lg_tensor_numel(li_t(c, x));
    int64_t *map = malloc((size_t)n * sizeof *map);
    if (!map) {
        c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        return -1;
    }
    for (int64_t p = 0; p < n; p++) map[p] = p;
    for (int64_t i = 0; i < n_u; i++) map[pos[i]] = n + i; /* the last write wins */
    lg_concatenation_options o = {0};
    int32_t src = LI_OP(c, LG_OP_CONCATENATION, &o, -1, li_flatten(c, x), li_flatten(c, u));
    int32_t y = li_gather0(c, src, li_ki32_n(c, map, n));
    free(map);
    return shaped_like(c, y, x);
}

/* a reduction: one layer per write count, in iteration order */
static int32_t scatter_reduce(li_ctx *c, int32_t x, int32_t u, const int64_t *pos, int64_t n_u, int red) {
    int64_t n = lg_tensor_numel(li_t(c, x));
    uint32_t *seen = calloc((size_t)n, sizeof *seen);
    int64_t *map = malloc((size_t)n * sizeof *map);
    uint8_t *mask = malloc((size_t)n);
    if (!seen || !map || !mask) {
        free(seen), free(map), free(mask);
        c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        return -1;
    }
    uint32_t layers = 0;
    for (int64_t i = 0; i < n_u; i++)
        if (++seen[pos[i]] > layers) layers = seen[pos[i]];
    if (layers > MAX_LAYERS) {
        li_unsupported(c, "a position written %u times with a reduction (at most %d)", layers, MAX_LAYERS);
        layers = 0;
    }
    /* the updates and one spare element (position n_u) that unwritten positions read; the
       SELECT_V2 drops what they compute */
    lg_concatenation_options o = {0};
    int64_t one = 1;
    int32_t spare = li_reshape(c, li_kscalar_like(c, u, 0), &one, 1);
    int32_t src = LI_OP(c, LG_OP_CONCATENATION, &o, -1, li_flatten(c, u), spare);
    int32_t acc = x;
    for (uint32_t k = 0; k < layers && LI_OK(c); k++) {
        bool all = true;
        memset(seen, 0, (size_t)n * sizeof *seen);
        for (int64_t p = 0; p < n; p++) map[p] = n_u, mask[p] = 0;
        for (int64_t i = 0; i < n_u; i++)
            if (seen[pos[i]]++ == k) map[pos[i]] = i, mask[pos[i]] = 1;
        for (int64_t p = 0; p < n && all; p++) all = mask[p];
        int32_t g = shaped_like(c, li_gather0(c, src, li_ki32_n(c, map, n)), x);
        int32_t v = reduce_op(c, red, acc, g);
        if (all) {
            acc = v;
            continue;
        }
        lg_shape s = li_shape(c, x);
        int64_t d[LG_MAX_RANK];
        for (int i = 0; i < s.rank; i++) d[i] = s.dim[i];
        int32_t mk = li_konst(c, LG_BOOL, d, (uint32_t)s.rank, mask, (uint64_t)n);
        acc = LI_OP(c, LG_OP_SELECT_V2, NULL, -1, mk, v, acc);
    }
    free(seen), free(map), free(mask);
    return acc;
}

/* data x with update element i written at position pos[i] (n_u of them), reduction red */
static lg_status scatter_apply(li_ctx *c, const li_val *x, const li_val *u, const int64_t *pos, int64_t n_u,
                               int red) {
    LI_TRY(c);
    if (li_type(c, x->t) != li_type(c, u->t))
        return li_bad(c, LG_ERR_FORMAT, "data is %s, updates %s", lg_dtype_name(li_type(c, x->t)),
                      lg_dtype_name(li_type(c, u->t)));
    int64_t n = lg_tensor_numel(li_t(c, x->t));
    if (n == 0) return li_unsupported(c, "an empty output");
    if (n + n_u + 1 > INT32_MAX) return li_unsupported(c, "%lld elements (positions must fit INT32)", (long long)(n + n_u));
    if (n_u == 0) return li_out(c, 0, x->t, x->onnx_type);
    int32_t y = red == RED_NONE ? scatter_replace(c, x->t, u->t, pos, n_u) : scatter_reduce(c, x->t, u->t, pos, n_u, red);
    return li_out(c, 0, y, x->onnx_type);
}

/* the constant indices of input 1, or NULL (a runtime input is unsupported) */
static int64_t *const_indices(li_ctx *c, const li_val *idx, uint32_t *n) {
    if (!li_is_const(c, idx->t)) {
        li_unsupported(c, "indices (input 1) are computed at run time (they must be constant)");
        return NULL;
    }
    return li_const_ints_all(c, idx->t, n);
}

/* ScatterND: indices [..., m] select slices of the data (its dims m...); updates have the
   shape indices.shape[:-1] ++ data.shape[m:]. */
static lg_status lower_scatter_nd(li_ctx *c) {
    const li_val *x = li_need(c, 0), *idx = li_need(c, 1), *u = li_need(c, 2);
    LI_TRY(c);
    int red = reduction(c);
    LI_TRY(c);
    lg_shape xs = li_shape(c, x->t), is = li_shape(c, idx->t), us = li_shape(c, u->t);
    int r = xs.rank, q = is.rank;
    if (r < 1 || q < 1) return li_bad(c, LG_ERR_FORMAT, "data of rank %d and indices of rank %d (both >= 1)", r, q);
    int64_t m = is.dim[q - 1];
    if (m < 1 || m > r) return li_bad(c, LG_ERR_FORMAT, "indices' last dim is %lld (between 1 and %d)", (long long)m, r);
    bool ok = us.rank == q - 1 + r - m;
    for (int d = 0; ok && d < q - 1; d++) ok = us.dim[d] == is.dim[d];
    for (int d = (int)m; ok && d < r; d++) ok = us.dim[q - 1 + d - m] == xs.dim[d];
    if (!ok) return li_bad(c, LG_ERR_FORMAT, "updates' shape is not indices.shape[:-1] ++ data.shape[%lld:]", (long long)m);
    uint32_t k = 0;
    int64_t *v = const_indices(c, idx, &k);
    LI_TRY(c);
    int64_t xst[LG_MAX_RANK], slice = 1, rows = lg_shape_numel(&is) / m, n_u = lg_shape_numel(&us);
    li_strides(&xs, xst);
    for (int d = (int)m; d < r; d++) slice *= xs.dim[d];
    int64_t *pos = malloc((size_t)(n_u ? n_u : 1) * sizeof *pos);
    if (!pos) {
        free(v);
        return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < rows && LI_OK(c); i++) {
        int64_t at = 0, qv;
        for (int64_t j = 0; j < m; j++) {
            if (!li_norm_index(c, v[i * m + j], xs.dim[j], i * m + j, &qv)) break;
            at += qv * xst[j];
        }
        for (int64_t e = 0; e < slice; e++) pos[i * slice + e] = at + e;
    }
    free(v);
    scatter_apply(c, x, u, pos, n_u, red);
    free(pos);
    return c->st;
}

/* ScatterElements / Scatter: updates and indices of one shape; element j writes the data
   position of its own coordinates with the axis coordinate replaced by indices[j]. */
static lg_status lower_scatter_elements(li_ctx *c) {
    const li_val *x = li_need(c, 0), *idx = li_need(c, 1), *u = li_need(c, 2);
    LI_TRY(c);
    int red = reduction(c);
    LI_TRY(c);
    int axis = li_elements_axis(c, x->t, idx->t);
    LI_TRY(c);
    lg_shape xs = li_shape(c, x->t), is = li_shape(c, idx->t), us = li_shape(c, u->t);
    bool same = is.rank == us.rank;
    for (int d = 0; same && d < is.rank; d++) same = is.dim[d] == us.dim[d];
    if (!same) return li_bad(c, LG_ERR_FORMAT, "updates and indices differ in shape");
    uint32_t k = 0;
    int64_t *v = const_indices(c, idx, &k);
    LI_TRY(c);
    int64_t n_u = lg_shape_numel(&is), xst[LG_MAX_RANK];
    li_strides(&xs, xst);
    int64_t *pos = li_element_base(c, &xs, &is, axis);
    for (int64_t j = 0; pos && j < n_u; j++) {
        int64_t qv;
        if (!li_norm_index(c, v[j], xs.dim[axis], j, &qv)) break;
        pos[j] += qv * xst[axis];
    }
    free(v);
    scatter_apply(c, x, u, pos, n_u, red);
    free(pos);
    return c->st;
}

const li_op_entry li_ops_scatter[] = {
    {"ScatterND", 11, 99, lower_scatter_nd},
    {"ScatterElements", 11, 99, lower_scatter_elements},
    {"Scatter", 9, 10, lower_scatter_elements},
    {NULL, 0, 0, NULL},
};
