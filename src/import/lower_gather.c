/* Lowerings of the element-indexing ops: GatherElements, GatherND, OneHot, Hardmax,
 * ArgMax/ArgMin (select_last_index included) and EyeLike.
 *
 * GatherElements and GatherND become one GATHER on axis 0 of the data flattened to 1-D
 * (GatherND: reshaped to [rows, slice...]) with 1-D INT32 positions, then a RESHAPE to the
 * output shape: the GPU delegates take GATHER with 1-D INT32 indices and not GATHER_ND
 * (src/check/check_tables.c, the parsers' op lists; check_ops_shape.c lgc_rule_gather).
 *   - Constant indices: the position table is computed here. Negative indices count from the
 *     end (ONNX); an index outside [-d, d) is a format error naming the node.
 *   - Runtime indices: the positions are computed in INT32, FLOOR_MOD(i, d) * stride plus a
 *     constant table of the other coordinates' offsets. FLOOR_MOD(i, d) (the floored modulo,
 *     tensorflow/lite/kernels/floor_mod.cc) is i + d on [-d, 0) and i on [0, d): ONNX's
 *     negative-index rule on the valid range, exact. An index outside [-d, d), which ONNX
 *     calls an error, wraps modulo d instead (the report says so).
 *
 * OneHot -> ONE_HOT (tensorflow/lite/kernels/one_hot.cc: indices outside [0, depth) give all
 * off_value), after mapping ONNX's negative indices (opset 11: [-depth, -1] count from the end)
 * with SELECT_V2(i < 0, i + depth, i): i < -depth stays negative, all off, as ONNX says.
 * Hardmax -> ARG_MAX then ONE_HOT: ARG_MAX keeps the first index of the maximum (its strict
 * comparison, tensorflow/lite/kernels/arg_min_max.cc), ONNX's "first maximum". ArgMax/ArgMin
 * with select_last_index -> REVERSE_V2 along the axis, ARG_MAX/ARG_MIN (the first index in
 * the reversed order is the last in the original), then (dim - 1) - index.
 * EyeLike -> a constant from the input's static shape. */
#include <stdio.h>
#include <stdlib.h>

#include "import/import_impl.h"

/* ------------------------------------------------------------------ shared helpers */

void li_strides(const lg_shape *s, int64_t *st) {
    int64_t acc = 1;
    for (int d = s->rank - 1; d >= 0; d--) {
        st[d] = acc;
        acc *= s->dim[d];
    }
}

int64_t *li_const_ints_all(li_ctx *c, int32_t t, uint32_t *n) {
    if (!LI_OK(c) || !li_is_const(c, t)) return NULL;
    int64_t numel = lg_tensor_numel(li_t(c, t));
    if (numel < 0 || numel > INT32_MAX) {
        li_unsupported(c, "%lld constant indices", (long long)numel);
        return NULL;
    }
    int64_t *v = malloc((size_t)(numel ? numel : 1) * sizeof *v);
    if (!v) {
        c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (!li_const_ints(c, t, v, (uint32_t)numel, n) || *n != (uint32_t)numel) {
        free(v);
        li_unsupported(c, "constant indices of type %s", lg_dtype_name(li_type(c, t)));
        return NULL;
    }
    return v;
}

bool li_norm_index(li_ctx *c, int64_t v, int64_t dim, int64_t at, int64_t *out) {
    int64_t q = v < 0 ? v + dim : v;
    if (q < 0 || q >= dim) {
        li_bad(c, LG_ERR_FORMAT, "index %lld (indices element %lld) is out of range [-%lld, %lld)", (long long)v,
               (long long)at, (long long)dim, (long long)dim);
        return false;
    }
    *out = q;
    return true;
}

int32_t li_flatten(li_ctx *c, int32_t x) {
    if (!LI_OK(c)) return -1;
    int64_t n = lg_tensor_numel(li_t(c, x));
    return li_reshape(c, x, &n, 1);
}

/* dims of t as int64 */
static uint32_t dims_of(li_ctx *c, int32_t t, int64_t *d) {
    lg_shape s = li_shape(c, t);
    for (int i = 0; i < s.rank; i++) d[i] = s.dim[i];
    return (uint32_t)s.rank;
}

int32_t li_ki32_n(li_ctx *c, const int64_t *v, int64_t n) {
    if (!LI_OK(c)) return -1;
    int32_t *b = malloc((size_t)(n ? n : 1) * sizeof *b);
    if (!b) {
        c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        return -1;
    }
    for (int64_t i = 0; i < n; i++) b[i] = (int32_t)v[i];
    int32_t t = li_konst(c, LG_INT32, &n, 1, b, 4ull * (uint64_t)n);
    free(b);
    return t;
}

int32_t li_gather0(li_ctx *c, int32_t x, int32_t pos) {
    lg_gather_options o = {0};
    return LI_OP(c, LG_OP_GATHER, &o, -1, x, pos);
}

/* the runtime indices idx as INT32, FLOOR_MOD by d (a scalar or a vector along the last axis) */
static int32_t wrap_index(li_ctx *c, int32_t idx, int32_t d) {
    lg_dtype ty = li_type(c, idx);
    if (ty != LG_INT32 && ty != LG_INT16 && ty != LG_INT8 && ty != LG_UINT8) {
        li_unsupported(c, "indices of type %s", lg_dtype_name(ty));
        return -1;
    }
    return li_binary(c, LG_OP_FLOOR_MOD, li_cast(c, idx, LG_INT32), d);
}

static bool too_big(li_ctx *c, int64_t n) {
    if (n <= INT32_MAX) return false;
    li_unsupported(c, "%lld elements (positions must fit INT32)", (long long)n);
    return true;
}

/* ------------------------------------------------------------------ GatherElements */

int64_t *li_element_base(li_ctx *c, const lg_shape *xs, const lg_shape *is, int axis) {
    int64_t n = lg_shape_numel(is), xst[LG_MAX_RANK];
    li_strides(xs, xst);
    int64_t *b = malloc((size_t)(n ? n : 1) * sizeof *b);
    if (!b) {
        c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        return NULL;
    }
    int64_t coord[LG_MAX_RANK] = {0};
    for (int64_t p = 0; p < n; p++) {
        int64_t off = 0;
        for (int d = 0; d < is->rank; d++)
            if (d != axis) off += coord[d] * xst[d];
        b[p] = off;
        for (int d = is->rank - 1; d >= 0; d--) {
            if (++coord[d] < is->dim[d]) break;
            coord[d] = 0;
        }
    }
    return b;
}

int li_elements_axis(li_ctx *c, int32_t x, int32_t idx) {
    lg_shape xs = li_shape(c, x), is = li_shape(c, idx);
    int64_t a = li_attr_i(c->node, "axis", 0);
    int64_t axis = li_norm_axis(a, xs.rank);
    if (xs.rank < 1 || is.rank != xs.rank) {
        li_bad(c, LG_ERR_FORMAT, "data of rank %d and indices of rank %d (one rank >= 1)", xs.rank, is.rank);
        return -1;
    }
    if (axis < 0 || axis >= xs.rank) {
        li_bad(c, LG_ERR_FORMAT, "axis %lld for rank %d", (long long)a, xs.rank);
        return -1;
    }
    for (int d = 0; d < xs.rank; d++)
        if (d != axis && is.dim[d] > xs.dim[d]) {
            li_bad(c, LG_ERR_FORMAT, "indices dim %d is %d, past the data's %d", d, is.dim[d], xs.dim[d]);
            return -1;
        }
    if (too_big(c, lg_shape_numel(&xs))) return -1;
    return (int)axis;
}

static lg_status lower_gather_elements(li_ctx *c) {
    const li_val *x = li_need(c, 0), *idx = li_need(c, 1);
    LI_TRY(c);
    int axis = li_elements_axis(c, x->t, idx->t);
    LI_TRY(c);
    lg_shape xs = li_shape(c, x->t), is = li_shape(c, idx->t);
    int64_t n = lg_shape_numel(&is), dim = xs.dim[axis], xst[LG_MAX_RANK];
    if (n == 0) return li_unsupported(c, "an empty output");
    li_strides(&xs, xst);
    int64_t *base = li_element_base(c, &xs, &is, axis);
    LI_TRY(c);
    int32_t pos;
    if (li_is_const(c, idx->t)) {
        uint32_t k = 0;
        int64_t *v = li_const_ints_all(c, idx->t, &k);
        for (int64_t p = 0; v && p < n; p++) {
            int64_t q;
            if (!li_norm_index(c, v[p], dim, p, &q)) break;
            base[p] += q * xst[axis];
        }
        free(v);
        pos = li_ki32_n(c, base, n);
    } else {
        int32_t m = wrap_index(c, li_flatten(c, idx->t), li_ki(c, dim));
        if (xst[axis] != 1) m = li_binary(c, LG_OP_MUL, m, li_ki(c, xst[axis]));
        pos = li_binary(c, LG_OP_ADD, m, li_ki32_n(c, base, n));
        li_note(c, "node %u: GatherElements indices computed as INT32 (values outside [-%lld, %lld) wrap modulo %lld)",
                c->node_index, (long long)dim, (long long)dim, (long long)dim);
    }
    free(base);
    int64_t od[LG_MAX_RANK];
    uint32_t orank = dims_of(c, idx->t, od);
    int32_t y = li_reshape(c, li_gather0(c, li_flatten(c, x->t), pos), od, orank);
    return li_out(c, 0, y, x->onnx_type);
}

/* ------------------------------------------------------------------ GatherND */

/* GatherND (batch_dims b, indices [..., m]): the data reshaped to [B * P, slice...] where B is
   the product of the b batch dims and P of the m indexed dims; row = batch * P +
   sum_k index_k * S_k (S_k the stride of indexed dim k within P). Output: the indices' shape
   without the last dim, then the slice dims (data dims b + m ...). */
static lg_status lower_gather_nd(li_ctx *c) {
    const li_val *x = li_need(c, 0), *idx = li_need(c, 1);
    LI_TRY(c);
    lg_shape xs = li_shape(c, x->t), is = li_shape(c, idx->t);
    int64_t b = c->opset >= 12 ? li_attr_i(c->node, "batch_dims", 0) : 0;
    int r = xs.rank, q = is.rank;
    if (r < 1 || q < 1) return li_bad(c, LG_ERR_FORMAT, "data of rank %d and indices of rank %d (both >= 1)", r, q);
    if (b < 0 || b >= q || b >= r) return li_bad(c, LG_ERR_FORMAT, "batch_dims %lld for ranks %d and %d", (long long)b, r, q);
    int64_t m = is.dim[q - 1];
    if (m < 1 || m > r - b)
        return li_bad(c, LG_ERR_FORMAT, "indices' last dim is %lld (between 1 and %lld)", (long long)m, (long long)(r - b));
    for (int d = 0; d < b; d++)
        if (is.dim[d] != xs.dim[d]) return li_bad(c, LG_ERR_FORMAT, "batch dim %d: %d in the data, %d in the indices", d, xs.dim[d], is.dim[d]);
    if (too_big(c, lg_shape_numel(&xs))) return c->st;
    int64_t B = 1, P = 1, S[LG_MAX_RANK], rows = 1, per_batch = 1;
    for (int d = 0; d < b; d++) B *= xs.dim[d];
    for (int64_t k = m - 1; k >= 0; k--) {
        S[k] = P;
        P *= xs.dim[b + k];
    }
    for (int d = 0; d < q - 1; d++) rows *= is.dim[d];
    for (int d = (int)b; d < q - 1; d++) per_batch *= is.dim[d];
    if (rows == 0 || lg_shape_numel(&xs) == 0) return li_unsupported(c, "an empty output");
    /* the data as rows */
    int64_t d2[LG_MAX_RANK], od[LG_MAX_RANK];
    uint32_t r2 = 0, orank = 0;
    d2[r2++] = B * P;
    for (int d = (int)(b + m); d < r; d++) d2[r2++] = xs.dim[d];
    for (int d = 0; d < q - 1; d++) od[orank++] = is.dim[d];
    for (int d = (int)(b + m); d < r; d++) od[orank++] = xs.dim[d];
    int64_t *off = malloc((size_t)rows * sizeof *off);
    if (!off) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    for (int64_t p = 0; p < rows; p++) off[p] = (p / per_batch) * P; /* the batch coordinates */
    int32_t pos;
    if (li_is_const(c, idx->t)) {
        uint32_t k = 0;
        int64_t *v = li_const_ints_all(c, idx->t, &k);
        for (int64_t p = 0; v && p < rows && LI_OK(c); p++)
            for (int64_t j = 0; j < m; j++) {
                int64_t qv;
                if (!li_norm_index(c, v[p * m + j], xs.dim[b + j], p * m + j, &qv)) break;
                off[p] += qv * S[j];
            }
        free(v);
        pos = li_ki32_n(c, off, rows);
    } else {
        /* [rows, m] INT32: FLOOR_MOD by the indexed dims, times their strides, summed */
        int64_t rm[2] = {rows, m}, dm[LG_MAX_RANK];
        for (int64_t j = 0; j < m; j++) dm[j] = xs.dim[b + j];
        int32_t t = wrap_index(c, li_reshape(c, idx->t, rm, 2), li_ki32_n(c, dm, m));
        bool unit = m == 1 && S[0] == 1;
        if (!unit) t = li_binary(c, LG_OP_MUL, t, li_ki32_n(c, S, m));
        if (m > 1) {
            lg_reducer_options o = {false};
            t = LI_OP(c, LG_OP_SUM, &o, -1, t, li_ki32(c, (const int64_t[]){1}, 1));
        } else {
            t = li_reshape(c, t, &rows, 1);
        }
        pos = B > 1 ? li_binary(c, LG_OP_ADD, t, li_ki32_n(c, off, rows)) : t;
        li_note(c, "node %u: GatherND indices computed as INT32 (values outside [-d, d) wrap modulo d)", c->node_index);
    }
    free(off);
    int32_t y = li_gather0(c, li_reshape(c, x->t, d2, r2), pos);
    return li_out(c, 0, li_reshape(c, y, od, orank), x->onnx_type);
}

/* ------------------------------------------------------------------ OneHot */

/* a scalar: element k of the 1-D t (GATHER with a scalar position; folds when t is constant) */
static int32_t element(li_ctx *c, int32_t t, int64_t k) { return li_gather0(c, li_flatten(c, t), li_ki(c, k)); }

/* ONE_HOT(indices, depth, on, off) with the extra dim at axis (0 <= axis <= rank) */
static int32_t one_hot(li_ctx *c, int32_t idx, int64_t depth, int32_t on, int32_t off, int axis) {
    lg_one_hot_options o = {axis};
    return LI_OP(c, LG_OP_ONE_HOT, &o, li_type(c, on), idx, li_ki(c, depth), on, off);
}

static lg_status lower_onehot(li_ctx *c) {
    const li_val *iv = li_need(c, 0), *dv = li_need(c, 1), *vv = li_need(c, 2);
    LI_TRY(c);
    int64_t dd[2];
    uint32_t n = 0;
    if (!li_const_ints(c, dv->t, dd, 2, &n)) return li_unsupported(c, "depth (input 1) is computed at run time (it must be constant)");
    if (n != 1) return li_bad(c, LG_ERR_FORMAT, "depth holds %u values (one)", n);
    if (dd[0] < 1) return li_bad(c, LG_ERR_FORMAT, "depth %lld", (long long)dd[0]);
    if (lg_tensor_numel(li_t(c, vv->t)) != 2) return li_bad(c, LG_ERR_FORMAT, "values holds %lld elements ([off, on])", (long long)lg_tensor_numel(li_t(c, vv->t)));
    int r = li_rank(c, iv->t);
    if (r + 1 > LG_MAX_RANK) return li_unsupported(c, "output rank %d", r + 1);
    int64_t a = li_attr_i(c->node, "axis", -1), axis = a < 0 ? a + r + 1 : a;
    if (axis < 0 || axis > r) return li_bad(c, LG_ERR_FORMAT, "axis %lld for an output of rank %d", (long long)a, r + 1);
    lg_dtype it = li_type(c, iv->t);
    if (it != LG_FLOAT32 && it != LG_INT32 && it != LG_INT16 && it != LG_INT8 && it != LG_UINT8)
        return li_unsupported(c, "indices of type %s", lg_dtype_name(it));
    /* non-integer indices are cast to an integer first (ONNX), truncating as Cast does */
    int32_t i = li_cast(c, iv->t, LG_INT32);
    if (c->opset >= 11)
        i = LI_OP(c, LG_OP_SELECT_V2, NULL, -1, li_binary(c, LG_OP_LESS, i, li_ki(c, 0)),
                  li_binary(c, LG_OP_ADD, i, li_ki(c, dd[0])), i);
    int32_t off = element(c, vv->t, 0), on = element(c, vv->t, 1);
    return li_out(c, 0, one_hot(c, i, dd[0], on, off, (int)axis), vv->onnx_type);
}

/* ------------------------------------------------------------------ Hardmax */

/* 1 at the first maximum along axis, 0 elsewhere */
static int32_t hardmax_axis(li_ctx *c, int32_t x, int axis) {
    lg_arg_max_options o = {LG_INT32};
    int32_t am = LI_OP(c, LG_OP_ARG_MAX, &o, LG_INT32, x, li_ki(c, axis));
    return one_hot(c, am, li_dim(c, x, axis), li_kscalar_like(c, x, 1), li_kscalar_like(c, x, 0), axis);
}

static lg_status lower_hardmax(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    if (li_type(c, x->t) != LG_FLOAT32) return li_unsupported(c, "%s input", lg_dtype_name(li_type(c, x->t)));
    lg_shape s = li_shape(c, x->t);
    if (s.rank < 1) return li_bad(c, LG_ERR_FORMAT, "Hardmax of a scalar");
    if (lg_shape_numel(&s) == 0) return li_unsupported(c, "an empty input");
    bool along = c->opset >= 13; /* 13: along one axis; before: on the 2-D [outer, inner] view */
    int64_t a = li_attr_i(c->node, "axis", along ? -1 : 1), axis = li_norm_axis(a, s.rank);
    if (axis < 0 || axis >= s.rank)
        return li_bad(c, LG_ERR_FORMAT, "axis %lld for rank %d", (long long)a, s.rank);
    if (along) return li_out(c, 0, hardmax_axis(c, x->t, (int)axis), x->onnx_type);
    int64_t d2[2] = {1, 1}, d[LG_MAX_RANK];
    for (int i = 0; i < s.rank; i++) d2[i < axis ? 0 : 1] *= s.dim[i], d[i] = s.dim[i];
    int32_t y = hardmax_axis(c, li_reshape(c, x->t, d2, 2), 1);
    return li_out(c, 0, li_reshape(c, y, d, (uint32_t)s.rank), x->onnx_type);
}

/* ------------------------------------------------------------------ ArgMax, ArgMin */

static lg_status lower_argmax(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    int r = li_rank(c, x->t);
    if (r < 1) return li_bad(c, LG_ERR_FORMAT, "%.*s of a scalar", LG_ONNX_STR(c->node->op_type));
    int64_t a = li_attr_i(c->node, "axis", 0), axis = li_norm_axis(a, r);
    if (axis < 0 || axis >= r) return li_bad(c, LG_ERR_FORMAT, "axis %lld for rank %d", (long long)a, r);
    int64_t dim = li_dim(c, x->t, (int)axis);
    if (dim == 0) return li_unsupported(c, "an empty axis");
    bool keep = li_attr_i(c->node, "keepdims", 1) != 0;
    bool last = c->opset >= 12 && li_attr_i(c->node, "select_last_index", 0) != 0;
    int32_t t = x->t;
    if (last) t = LI_OP(c, LG_OP_REVERSE_V2, NULL, -1, t, li_ki32(c, &axis, 1));
    lg_arg_max_options o = {LG_INT32};
    int32_t at = li_ki(c, axis), y;
    if (lg_onnx_str_eq(c->node->op_type, "ArgMax")) y = LI_OP(c, LG_OP_ARG_MAX, &o, LG_INT32, t, at);
    else y = LI_OP(c, LG_OP_ARG_MIN, (const lg_arg_min_options *)(const void *)&o, LG_INT32, t, at);
    if (last) y = li_binary(c, LG_OP_SUB, li_ki(c, dim - 1), y);
    if (keep) {
        int64_t d[LG_MAX_RANK];
        dims_of(c, x->t, d);
        d[axis] = 1;
        y = li_reshape(c, y, d, (uint32_t)r);
    }
    return li_out(c, 0, y, LG_ONNX_INT64);
}

/* ------------------------------------------------------------------ EyeLike */

static lg_status lower_eyelike(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    lg_shape s = li_shape(c, x->t);
    if (s.rank != 2) return li_bad(c, LG_ERR_FORMAT, "input of rank %d (EyeLike takes 2-D)", s.rank);
    int32_t ot = (int32_t)li_attr_i(c->node, "dtype", x->onnx_type);
    int ty = li_tfl_type(ot);
    if (ty < 0) return li_unsupported(c, "dtype %s", lg_onnx_dtype_name(ot));
    int64_t h = s.dim[0], w = s.dim[1], k = li_attr_i(c->node, "k", 0);
    if (h * w == 0) return li_unsupported(c, "an empty output");
    uint32_t es = ty == LG_FLOAT32 || ty == LG_INT32 ? 4 : ty == LG_INT16 ? 2 : 1;
    uint8_t *buf = calloc((size_t)(h * w), es);
    if (!buf) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    const float one_f = 1;
    const int32_t one_i = 1;
    const int16_t one_s = 1;
    const uint8_t one_b = 1;
    const void *one = ty == LG_FLOAT32 ? (const void *)&one_f : ty == LG_INT32 ? (const void *)&one_i
                    : ty == LG_INT16 ? (const void *)&one_s : (const void *)&one_b;
    /* ones where column - row == k */
    for (int64_t i = 0; i < h; i++)
        if (i + k >= 0 && i + k < w) memcpy(buf + (size_t)(i * w + i + k) * es, one, es);
    int32_t y = li_konst(c, (lg_dtype)ty, (const int64_t[]){h, w}, 2, buf, (uint64_t)(h * w) * es);
    free(buf);
    return li_out(c, 0, y, ot);
}

/* Listed before li_ops_reduce in li_find_op: these ArgMax/ArgMin entries (which add
   select_last_index) are the ones found. */
const li_op_entry li_ops_gather[] = {
    {"GatherElements", 11, 99, lower_gather_elements},
    {"GatherND", 11, 99, lower_gather_nd},
    {"OneHot", 9, 99, lower_onehot},
    {"Hardmax", 1, 99, lower_hardmax},
    {"ArgMax", 1, 99, lower_argmax},
    {"ArgMin", 1, 99, lower_argmax},
    {"EyeLike", 9, 99, lower_eyelike},
    {NULL, 0, 0, NULL},
};
