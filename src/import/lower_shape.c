/* Lowerings of the shape and data-movement ops. Shapes are static, so the output shape of
 * Reshape/Flatten/Squeeze/Unsqueeze/Expand is computed here and becomes RESHAPE/BROADCAST_TO
 * with a constant shape; Shape/Size/ConstantOfShape are constants. Layout-agnostic: no op
 * here needs NHWC except DEPTH_TO_SPACE / SPACE_TO_DEPTH, wrapped in TRANSPOSEs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "import/import_impl.h"

/* constant ints of input k (required constant) */
static bool in_ints(li_ctx *c, uint32_t k, int64_t *out, uint32_t max, uint32_t *n) {
    const li_val *v = li_in(c, k);
    if (!v) return false;
    if (!li_const_ints(c, v->t, out, max, n)) {
        li_unsupported(c, "input %u is computed at run time (it must be constant)", k);
        return false;
    }
    return true;
}

static lg_status bind_reshape(li_ctx *c, const li_val *x, const int64_t *d, uint32_t n) {
    return li_out(c, 0, li_reshape(c, x->t, d, n), x->onnx_type);
}

static lg_status lower_reshape(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    int64_t s[LG_MAX_RANK + 1];
    uint32_t n = 0;
    if (c->opset < 5) {
        int k = li_attr_ints(c->node, "shape", s, LG_MAX_RANK + 1);
        if (k < 0) return li_bad(c, LG_ERR_FORMAT, "no shape");
        n = (uint32_t)k;
    } else if (!in_ints(c, 1, s, LG_MAX_RANK + 1, &n)) {
        return LI_OK(c) ? li_bad(c, LG_ERR_FORMAT, "no shape") : c->st;
    }
    if (n > LG_MAX_RANK) return li_unsupported(c, "rank %u", n);
    lg_shape xs = li_shape(c, x->t);
    int64_t total = lg_shape_numel(&xs), known = 1;
    int neg = -1;
    bool allowzero = li_attr_i(c->node, "allowzero", 0) != 0;
    for (uint32_t i = 0; i < n; i++) {
        if (s[i] == 0 && !allowzero) {
            if ((int)i >= xs.rank) return li_bad(c, LG_ERR_FORMAT, "0 at %u past the input rank", i);
            s[i] = xs.dim[i];
        }
        if (s[i] == -1) {
            if (neg >= 0) return li_bad(c, LG_ERR_FORMAT, "two -1 in the shape");
            neg = (int)i;
        } else if (s[i] < 0) {
            return li_bad(c, LG_ERR_FORMAT, "shape value %lld", (long long)s[i]);
        } else {
            known *= s[i];
        }
    }
    if (neg >= 0) {
        if (known == 0 || total % known) return li_bad(c, LG_ERR_FORMAT, "cannot infer the -1");
        s[neg] = total / known;
    } else if (known != total) {
        return li_bad(c, LG_ERR_FORMAT, "%lld elements into %lld", (long long)total, (long long)known);
    }
    return bind_reshape(c, x, s, n);
}

static lg_status lower_flatten(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    lg_shape s = li_shape(c, x->t);
    int64_t axis = li_norm_axis(li_attr_i(c->node, "axis", 1), s.rank);
    if (axis < 0 || axis > s.rank) return li_bad(c, LG_ERR_FORMAT, "axis");
    int64_t d[2] = {1, 1};
    for (int i = 0; i < s.rank; i++) d[i < axis ? 0 : 1] *= s.dim[i];
    return bind_reshape(c, x, d, 2);
}

static lg_status lower_squeeze(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    lg_shape s = li_shape(c, x->t);
    int64_t ax[LG_MAX_RANK];
    uint32_t n = 0;
    int k;
    bool have;
    if (c->opset < 13) {
        have = (k = li_attr_ints(c->node, "axes", ax, LG_MAX_RANK)) >= 0;
        n = have ? (uint32_t)k : 0;
    } else {
        have = in_ints(c, 1, ax, LG_MAX_RANK, &n);
        LI_TRY(c);
    }
    bool drop[LG_MAX_RANK] = {0};
    if (!have) {
        for (int i = 0; i < s.rank; i++) drop[i] = s.dim[i] == 1;
    } else {
        for (uint32_t i = 0; i < n; i++) {
            int64_t a = li_norm_axis(ax[i], s.rank);
            if (a < 0 || a >= s.rank || s.dim[a] != 1) return li_bad(c, LG_ERR_FORMAT, "axis %lld", (long long)ax[i]);
            drop[a] = true;
        }
    }
    int64_t d[LG_MAX_RANK];
    uint32_t r = 0;
    for (int i = 0; i < s.rank; i++)
        if (!drop[i]) d[r++] = s.dim[i];
    return bind_reshape(c, x, d, r);
}

static lg_status lower_unsqueeze(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    lg_shape s = li_shape(c, x->t);
    int64_t ax[LG_MAX_RANK];
    uint32_t n = 0;
    if (c->opset < 13) {
        int k = li_attr_ints(c->node, "axes", ax, LG_MAX_RANK);
        if (k < 0) return li_bad(c, LG_ERR_FORMAT, "no axes");
        n = (uint32_t)k;
    } else if (!in_ints(c, 1, ax, LG_MAX_RANK, &n)) {
        return LI_OK(c) ? li_bad(c, LG_ERR_FORMAT, "no axes") : c->st;
    }
    int out_r = s.rank + (int)n;
    if (out_r > LG_MAX_RANK) return li_unsupported(c, "rank %d", out_r);
    bool ins[LG_MAX_RANK] = {0};
    for (uint32_t i = 0; i < n; i++) {
        int64_t a = li_norm_axis(ax[i], out_r);
        if (a < 0 || a >= out_r || ins[a]) return li_bad(c, LG_ERR_FORMAT, "axis %lld", (long long)ax[i]);
        ins[a] = true;
    }
    int64_t d[LG_MAX_RANK];
    int j = 0;
    for (int i = 0; i < out_r; i++) d[i] = ins[i] ? 1 : s.dim[j++];
    return bind_reshape(c, x, d, (uint32_t)out_r);
}

static lg_status lower_transpose(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    int r = li_rank(c, x->t);
    int64_t p[LG_MAX_RANK];
    int perm[LG_MAX_RANK];
    int k = li_attr_ints(c->node, "perm", p, LG_MAX_RANK);
    if (k >= 0 && k != r) return li_bad(c, LG_ERR_FORMAT, "perm has %d values", k);
    for (int i = 0; i < r; i++) perm[i] = k >= 0 ? (int)p[i] : r - 1 - i;
    return li_out(c, 0, li_transpose(c, x->t, perm, r), x->onnx_type);
}

static lg_status lower_concat(li_ctx *c) {
    const li_val *a = li_need(c, 0);
    LI_TRY(c);
    uint32_t n = c->node->n_inputs;
    int32_t *ins = malloc(n * sizeof *ins);
    if (!ins) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    int r = li_rank(c, a->t);
    uint32_t m = 0;
    int64_t axis = li_norm_axis(li_attr_i(c->node, "axis", 0), r);
    for (uint32_t k = 0; k < n; k++) {
        const li_val *v = li_need(c, k);
        if (!v) break;
        /* empty inputs add nothing (torch exports Concat with empty shape pieces) */
        if (lg_tensor_numel(li_t(c, v->t)) == 0 && n > 1) continue;
        ins[m++] = v->t;
    }
    if (LI_OK(c) && m == 0) ins[m++] = a->t;
    lg_concatenation_options o = {0};
    o.axis = (int32_t)axis;
    int32_t y = m == 1 ? ins[0] : li_op(c, LG_OP_CONCATENATION, ins, m, &o, -1);
    free(ins);
    return li_out(c, 0, y, a->onnx_type);
}

static lg_status lower_split(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    lg_shape s = li_shape(c, x->t);
    int64_t axis = li_norm_axis(li_attr_i(c->node, "axis", 0), s.rank);
    if (axis < 0 || axis >= s.rank) return li_bad(c, LG_ERR_FORMAT, "axis");
    uint32_t no = c->node->n_outputs, n = 0;
    int64_t sizes[64];
    if (no > 64) return li_unsupported(c, "%u outputs", no);
    bool have;
    if (c->opset < 13) {
        int k = li_attr_ints(c->node, "split", sizes, 64);
        have = k >= 0;
        n = have ? (uint32_t)k : 0;
    } else {
        have = in_ints(c, 1, sizes, 64, &n);
        LI_TRY(c);
    }
    if (!have) {
        int64_t dim = s.dim[axis], per = (dim + no - 1) / no;
        for (uint32_t i = 0; i < no; i++) {
            int64_t left = dim - per * i;
            sizes[i] = left < per ? (left > 0 ? left : 0) : per;
        }
        n = no;
    }
    if (n != no) return li_bad(c, LG_ERR_FORMAT, "%u sizes for %u outputs", n, no);
    int64_t b[LG_MAX_RANK] = {0}, e[LG_MAX_RANK], st[LG_MAX_RANK];
    for (int i = 0; i < s.rank; i++) e[i] = s.dim[i], st[i] = 1;
    int64_t at = 0;
    for (uint32_t i = 0; i < no; i++) {
        b[axis] = at;
        e[axis] = at + sizes[i];
        at += sizes[i];
        if (!li_has_out(c, i)) continue;
        LG_TRY(li_out(c, i, li_slice(c, x->t, b, e, st, 0), x->onnx_type));
    }
    if (at != s.dim[axis]) return li_bad(c, LG_ERR_FORMAT, "split sizes do not add up");
    return c->st;
}

/* Slice: attrs before opset 10, inputs since; ONNX clamping rules per step sign. */
static lg_status lower_slice(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    lg_shape s = li_shape(c, x->t);
    int64_t starts[LG_MAX_RANK], ends[LG_MAX_RANK], axes[LG_MAX_RANK], steps[LG_MAX_RANK];
    uint32_t n = 0, na = 0, ns = 0, ne = 0;
    bool have_axes, have_steps = false;
    if (c->opset < 10) {
        int k = li_attr_ints(c->node, "starts", starts, LG_MAX_RANK);
        int k2 = li_attr_ints(c->node, "ends", ends, LG_MAX_RANK);
        int k3 = li_attr_ints(c->node, "axes", axes, LG_MAX_RANK);
        if (k < 0 || k2 != k) return li_bad(c, LG_ERR_FORMAT, "starts/ends");
        n = (uint32_t)k;
        have_axes = k3 >= 0;
        na = have_axes ? (uint32_t)k3 : 0;
    } else {
        if (!in_ints(c, 1, starts, LG_MAX_RANK, &n) || !in_ints(c, 2, ends, LG_MAX_RANK, &ne))
            return LI_OK(c) ? li_bad(c, LG_ERR_FORMAT, "starts/ends") : c->st;
        have_axes = in_ints(c, 3, axes, LG_MAX_RANK, &na);
        LI_TRY(c);
        have_steps = in_ints(c, 4, steps, LG_MAX_RANK, &ns);
        LI_TRY(c);
        if (ne != n) return li_bad(c, LG_ERR_FORMAT, "starts and ends differ in length");
    }
    if ((have_axes && na != n) || (have_steps && ns != n)) return li_bad(c, LG_ERR_FORMAT, "axes/steps length");
    int64_t b[LG_MAX_RANK], e[LG_MAX_RANK], st[LG_MAX_RANK];
    int32_t end_mask = 0;
    for (int i = 0; i < s.rank; i++) b[i] = 0, e[i] = s.dim[i], st[i] = 1;
    for (uint32_t i = 0; i < n; i++) {
        int64_t a = have_axes ? li_norm_axis(axes[i], s.rank) : (int64_t)i;
        if (a < 0 || a >= s.rank) return li_bad(c, LG_ERR_FORMAT, "axis");
        int64_t step = have_steps ? steps[i] : 1, dim = s.dim[a];
        if (step == 0) return li_bad(c, LG_ERR_FORMAT, "step 0");
        /* int64 bounds were clamped to the int32 range on import: still "past the end" */
        int64_t sv = starts[i], ev = ends[i];
        if (sv < 0) sv += dim;
        if (ev < 0) ev += dim;
        if (step > 0) {
            sv = sv < 0 ? 0 : sv > dim ? dim : sv;
            ev = ev < 0 ? 0 : ev > dim ? dim : ev;
            if (ev < sv) ev = sv;
        } else {
            sv = sv < 0 ? -1 : sv > dim - 1 ? dim - 1 : sv;
            ev = ev < -1 ? -1 : ev > dim - 1 ? dim - 1 : ev;
            if (ev > sv) ev = sv;
            if (ev == -1) end_mask |= 1 << a;
        }
        b[a] = sv;
        e[a] = ev;
        st[a] = step;
    }
    /* elements per axis: ceil((end - start) / step), 0 for an empty range */
    int64_t cnt[LG_MAX_RANK];
    bool empty = false;
    for (int i = 0; i < s.rank; i++) {
        int64_t span = st[i] > 0 ? e[i] - b[i] : b[i] - e[i], k = st[i] > 0 ? st[i] : -st[i];
        cnt[i] = b[i] < 0 || span <= 0 ? 0 : (span + k - 1) / k;
        if (cnt[i] == 0) empty = true;
    }
    if (empty) {
        /* torch exports empty slices of shape vectors (x.shape[2:] of a rank-2 x) that a
           Concat then drops: a constant input gives an empty constant */
        if (!li_is_const(c, x->t)) return li_unsupported(c, "an empty slice");
        return li_out(c, 0, li_konst(c, li_type(c, x->t), cnt, (uint32_t)s.rank, NULL, 0), x->onnx_type);
    }
    return li_out(c, 0, li_slice(c, x->t, b, e, st, end_mask), x->onnx_type);
}

static lg_status lower_gather(li_ctx *c) {
    const li_val *x = li_need(c, 0), *idx = li_need(c, 1);
    LI_TRY(c);
    lg_shape s = li_shape(c, x->t);
    int64_t axis = li_norm_axis(li_attr_i(c->node, "axis", 0), s.rank);
    if (axis < 0 || axis >= s.rank) return li_bad(c, LG_ERR_FORMAT, "axis");
    int64_t dim = s.dim[axis];
    int32_t it = idx->t;
    lg_gather_options o = {0};
    o.axis = (int32_t)axis;
    if (li_is_const(c, it)) {
        int64_t numel = lg_tensor_numel(li_t(c, it));
        int64_t *v = malloc((size_t)(numel ? numel : 1) * sizeof *v);
        int32_t *v32 = malloc((size_t)(numel ? numel : 1) * sizeof *v32);
        uint32_t n = 0;
        bool ok = v && v32 && li_const_ints(c, it, v, (uint32_t)numel, &n);
        for (uint32_t i = 0; ok && i < n; i++) {
            int64_t q = v[i] < 0 ? v[i] + dim : v[i];
            if (q < 0 || q >= dim) ok = false;
            v32[i] = (int32_t)q;
        }
        if (ok) {
            lg_shape is = li_shape(c, it);
            int64_t d[LG_MAX_RANK];
            for (int i = 0; i < is.rank; i++) d[i] = is.dim[i];
            it = li_konst(c, LG_INT32, d, (uint32_t)is.rank, v32, 4ull * n);
        }
        free(v);
        free(v32);
        if (!ok) return li_bad(c, LG_ERR_FORMAT, "index out of range");
    } else {
        /* negative indices count from the end: i + dim where i < 0 */
        int32_t i32 = li_cast(c, it, LG_INT32);
        int32_t neg = li_binary(c, LG_OP_LESS, i32, li_ki(c, 0));
        int32_t wrapped = li_binary(c, LG_OP_ADD, i32, li_ki(c, dim));
        it = LI_OP(c, LG_OP_SELECT_V2, NULL, -1, neg, wrapped, i32);
        /* INT64 ids arrive through the boundary CAST to INT32 (import.c): ids past the int32
           range would wrap there; any id outside [-dim, dim) makes GATHER fail at run time
           (tensorflow/lite/kernels/gather.cc: "Gather index out of bounds") */
        li_note(c, "node %u: Gather indices computed as INT32 (they must lie in [-%lld, %lld))", c->node_index,
                (long long)dim, (long long)dim);
    }
    return li_out(c, 0, LI_OP(c, LG_OP_GATHER, &o, -1, x->t, it), x->onnx_type);
}

static lg_status lower_expand(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    int64_t sh[LG_MAX_RANK + 1];
    uint32_t n = 0;
    if (!in_ints(c, 1, sh, LG_MAX_RANK + 1, &n)) return LI_OK(c) ? li_bad(c, LG_ERR_FORMAT, "no shape") : c->st;
    lg_shape xs = li_shape(c, x->t);
    int r = xs.rank > (int)n ? xs.rank : (int)n;
    if (r > LG_MAX_RANK) return li_unsupported(c, "rank %d", r);
    int64_t out[LG_MAX_RANK];
    for (int i = 0; i < r; i++) {
        int64_t a = i - (r - xs.rank) >= 0 ? xs.dim[i - (r - xs.rank)] : 1;
        int64_t b = i - (r - (int)n) >= 0 ? sh[i - (r - (int)n)] : 1;
        if (a != b && a != 1 && b != 1) return li_bad(c, LG_ERR_FORMAT, "shapes do not broadcast");
        out[i] = a == 1 ? b : a;
    }
    bool same = r == xs.rank;
    for (int i = 0; i < r && same; i++) same = out[i] == xs.dim[i];
    if (same) return li_out(c, 0, x->t, x->onnx_type);
    int32_t st = li_ki32(c, out, (uint32_t)r);
    return li_out(c, 0, LI_OP(c, LG_OP_BROADCAST_TO, NULL, -1, x->t, st), x->onnx_type);
}

static lg_status lower_tile(li_ctx *c) {
    const li_val *x = li_need(c, 0), *r = li_need(c, 1);
    LI_TRY(c);
    int32_t m = li_cast(c, r->t, LG_INT32);
    return li_out(c, 0, LI_OP(c, LG_OP_TILE, NULL, -1, x->t, m), x->onnx_type);
}

/* edge padding along axis a: [first slice repeated pb times, x, last slice repeated pe times] */
static int32_t pad_edge_axis(li_ctx *c, int32_t x, int a, int64_t pb, int64_t pe) {
    lg_shape s = li_shape(c, x);
    int32_t parts[3];
    uint32_t n = 0;
    int64_t b[LG_MAX_RANK] = {0}, e[LG_MAX_RANK], st[LG_MAX_RANK], mult[LG_MAX_RANK];
    for (int i = 0; i < s.rank; i++) e[i] = s.dim[i], st[i] = 1, mult[i] = 1;
    if (pb > 0) {
        b[a] = 0, e[a] = 1, mult[a] = pb;
        int32_t first = li_slice(c, x, b, e, st, 0);
        parts[n++] = LI_OP(c, LG_OP_TILE, NULL, -1, first, li_ki32(c, mult, (uint32_t)s.rank));
    }
    parts[n++] = x;
    if (pe > 0) {
        b[a] = s.dim[a] - 1, e[a] = s.dim[a], mult[a] = pe;
        int32_t last = li_slice(c, x, b, e, st, 0);
        parts[n++] = LI_OP(c, LG_OP_TILE, NULL, -1, last, li_ki32(c, mult, (uint32_t)s.rank));
    }
    if (n == 1) return x;
    lg_concatenation_options o = {0};
    o.axis = a;
    return li_op(c, LG_OP_CONCATENATION, parts, n, &o, -1);
}

static lg_status lower_pad(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    int r = li_rank(c, x->t);
    int64_t pads[2 * LG_MAX_RANK], axes[LG_MAX_RANK];
    uint32_t n = 0, na = 0;
    float value = 0;
    int32_t value_t = -1;
    if (c->opset < 11) {
        int k = li_attr_ints(c->node, "pads", pads, 2 * LG_MAX_RANK);
        if (k < 0) return li_bad(c, LG_ERR_FORMAT, "no pads");
        n = (uint32_t)k;
        value = li_attr_f(c->node, "value", 0);
    } else {
        if (!in_ints(c, 1, pads, 2 * LG_MAX_RANK, &n)) return LI_OK(c) ? li_bad(c, LG_ERR_FORMAT, "no pads") : c->st;
        const li_val *cv = li_in(c, 2);
        if (cv) value_t = cv->t;
        if (in_ints(c, 3, axes, LG_MAX_RANK, &na)) return li_unsupported(c, "axes");
        LI_TRY(c);
    }
    if (n != 2u * (uint32_t)r) return li_bad(c, LG_ERR_FORMAT, "%u pads for rank %d", n, r);
    int64_t pb[LG_MAX_RANK], pe[LG_MAX_RANK];
    bool any = false, neg = false;
    for (int i = 0; i < r; i++) {
        pb[i] = pads[i], pe[i] = pads[r + i];
        if (pb[i] || pe[i]) any = true;
        if (pb[i] < 0 || pe[i] < 0) neg = true;
    }
    int32_t y = x->t;
    if (neg) {
        /* negative pads crop */
        int64_t b[LG_MAX_RANK], e[LG_MAX_RANK], st[LG_MAX_RANK];
        for (int i = 0; i < r; i++) {
            b[i] = pb[i] < 0 ? -pb[i] : 0;
            e[i] = li_dim(c, y, i) - (pe[i] < 0 ? -pe[i] : 0);
            st[i] = 1;
            if (pb[i] < 0) pb[i] = 0;
            if (pe[i] < 0) pe[i] = 0;
        }
        y = li_slice(c, y, b, e, st, 0);
    }
    if (!any) return li_out(c, 0, y, x->onnx_type);
    int64_t pd[2] = {r, 2};
    int32_t p32[2 * LG_MAX_RANK];
    for (int i = 0; i < r; i++) p32[2 * i] = (int32_t)pb[i], p32[2 * i + 1] = (int32_t)pe[i];
    const char *mode = "constant";
    const lg_onnx_attr *ma = li_attr(c->node, "mode");
    if (ma && lg_onnx_str_eq(ma->s, "reflect")) mode = "reflect";
    else if (ma && lg_onnx_str_eq(ma->s, "edge")) mode = "edge";
    else if (ma && !lg_onnx_str_eq(ma->s, "constant")) return li_unsupported(c, "mode \"%.*s\"", LG_ONNX_STR(ma->s));
    if (!strcmp(mode, "edge")) {
        for (int i = 0; i < r; i++)
            if (pb[i] || pe[i]) y = pad_edge_axis(c, y, i, pb[i], pe[i]);
        return li_out(c, 0, y, x->onnx_type);
    }
    int32_t pt = li_konst(c, LG_INT32, pd, 2, p32, 8ull * (uint64_t)r);
    if (!strcmp(mode, "reflect")) {
        for (int i = 0; i < r; i++)
            if (pb[i] >= li_dim(c, y, i) || pe[i] >= li_dim(c, y, i))
                return li_unsupported(c, "reflect pads as large as the dimension");
        lg_mirror_pad_options o = {0};
        o.mode = LG_MIRROR_PAD_MODE_REFLECT;
        return li_out(c, 0, LI_OP(c, LG_OP_MIRROR_PAD, &o, -1, y, pt), x->onnx_type);
    }
    if (value_t < 0 && value != 0) value_t = li_kscalar_like(c, y, value);
    if (value_t >= 0) {
        lg_shape vs = li_shape(c, value_t);
        if (vs.rank > 0) {
            int64_t one = 1;
            value_t = li_reshape(c, value_t, &one, 0);
        }
        return li_out(c, 0, LI_OP(c, LG_OP_PADV2, NULL, -1, y, pt, value_t), x->onnx_type);
    }
    return li_out(c, 0, LI_OP(c, LG_OP_PAD, NULL, -1, y, pt), x->onnx_type);
}

static lg_status lower_shape(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    lg_shape s = li_shape(c, x->t);
    int64_t st = li_attr_i(c->node, "start", 0), en = li_attr_i(c->node, "end", s.rank);
    if (st < 0) st += s.rank;
    if (en < 0) en += s.rank;
    st = st < 0 ? 0 : st > s.rank ? s.rank : st;
    en = en < 0 ? 0 : en > s.rank ? s.rank : en;
    int64_t d[LG_MAX_RANK];
    uint32_t n = 0;
    for (int64_t i = st; i < en; i++) d[n++] = s.dim[i];
    int32_t t = n ? li_ki32(c, d, n) : li_konst(c, LG_INT32, (const int64_t[]){0}, 1, NULL, 0);
    return li_out(c, 0, t, LG_ONNX_INT64);
}

static lg_status lower_size(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    lg_shape s = li_shape(c, x->t);
    return li_out(c, 0, li_ki(c, lg_shape_numel(&s)), LG_ONNX_INT64);
}

static lg_status lower_constant_of_shape(li_ctx *c) {
    int64_t sh[LG_MAX_RANK];
    uint32_t n = 0;
    if (!in_ints(c, 0, sh, LG_MAX_RANK, &n)) return LI_OK(c) ? li_bad(c, LG_ERR_FORMAT, "no shape") : c->st;
    const lg_onnx_attr *va = li_attr(c->node, "value");
    int32_t vt, ot = LG_ONNX_FLOAT;
    if (va && va->t) LG_TRY(li_tensor_const(c, va->t, &vt, &ot));
    else vt = li_kf(c, 0);
    LI_TRY(c);
    int64_t one = 1;
    vt = li_reshape(c, vt, &one, 0);
    int64_t numel = 1;
    for (uint32_t i = 0; i < n; i++) numel *= sh[i];
    if (numel == 0) return li_unsupported(c, "an empty tensor");
    int32_t st = n ? li_ki32(c, sh, n) : -1;
    int32_t y = n ? LI_OP(c, LG_OP_FILL, NULL, -1, st, vt) : vt;
    return li_out(c, 0, y, ot);
}

static lg_status lower_range(li_ctx *c) {
    const li_val *s = li_need(c, 0), *l = li_need(c, 1), *d = li_need(c, 2);
    LI_TRY(c);
    if (li_type(c, s->t) == LG_FLOAT32) {
        /* ONNX: start + i * delta, n = max(ceil((limit - start) / delta), 0) */
        const float *sf = li_const_f32(c, s->t), *lf = li_const_f32(c, l->t), *df = li_const_f32(c, d->t);
        if (!sf || !lf || !df) return li_unsupported(c, "Range computed at run time");
        double nn = ceil(((double)lf[0] - sf[0]) / df[0]);
        int64_t n = nn > 0 ? (int64_t)nn : 0;
        if (n == 0 || n > (1 << 24)) return li_unsupported(c, "a Range of %lld values", (long long)n);
        float *v = malloc((size_t)n * sizeof *v);
        if (!v) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        for (int64_t i = 0; i < n; i++) v[i] = sf[0] + (float)i * df[0];
        int32_t t = li_kf32(c, &n, 1, v);
        free(v);
        return li_out(c, 0, t, s->onnx_type);
    }
    int64_t a[1], b[1], e[1];
    uint32_t k;
    if (!li_const_ints(c, s->t, a, 1, &k) || !li_const_ints(c, l->t, b, 1, &k) || !li_const_ints(c, d->t, e, 1, &k))
        return li_unsupported(c, "Range computed at run time");
    if (e[0] == 0) return li_bad(c, LG_ERR_FORMAT, "delta 0");
    int64_t n = (b[0] - a[0] + e[0] + (e[0] > 0 ? -1 : 1)) / e[0];
    if (n <= 0 || n > (1 << 24)) return li_unsupported(c, "a Range of %lld values", (long long)n);
    int32_t *v = malloc((size_t)n * sizeof *v);
    if (!v) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++) v[i] = (int32_t)(a[0] + i * e[0]);
    int32_t t = li_konst(c, LG_INT32, &n, 1, v, 4ull * (uint64_t)n);
    free(v);
    return li_out(c, 0, t, s->onnx_type);
}

/* DepthToSpace DCR / SpaceToDepth: TFLite's NHWC ops, whose depth order (i * bs + j) * C + c
   is ONNX's DCR order (tensorflow/lite/kernels/internal/reference/reference_ops.h);
   DepthToSpace CRD (c * bs^2 + i * bs + j): a 6-D reshape/transpose in NCHW. */
static lg_status lower_d2s(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    if (li_rank(c, x->t) != 4) return li_bad(c, LG_ERR_FORMAT, "rank %d", li_rank(c, x->t));
    int64_t bs = li_attr_i(c->node, "blocksize", 0);
    if (bs < 1) return li_bad(c, LG_ERR_FORMAT, "blocksize");
    bool d2s = lg_onnx_str_eq(c->node->op_type, "DepthToSpace");
    lg_shape s = li_shape(c, x->t);
    if (d2s && li_attr_is(c->node, "mode", "CRD", "DCR")) {
        int64_t N = s.dim[0], C = s.dim[1], H = s.dim[2], W = s.dim[3];
        if (C % (bs * bs)) return li_bad(c, LG_ERR_FORMAT, "channels not a multiple of blocksize^2");
        int64_t d6[6] = {N, C / (bs * bs), bs, bs, H, W};
        int32_t y = li_reshape(c, x->t, d6, 6);
        static const int p[6] = {0, 1, 4, 2, 5, 3};
        y = li_transpose(c, y, p, 6);
        int64_t d4[4] = {N, C / (bs * bs), H * bs, W * bs};
        return li_out(c, 0, li_reshape(c, y, d4, 4), x->onnx_type);
    }
    if (d2s && !li_attr_is(c->node, "mode", "DCR", "DCR")) return li_unsupported(c, "mode");
    int32_t xn = li_to_nhwc(c, x->t), y;
    if (d2s) {
        lg_depth_to_space_options o = {(int32_t)bs};
        y = li_op(c, LG_OP_DEPTH_TO_SPACE, &xn, 1, &o, -1);
    } else {
        lg_space_to_depth_options o = {(int32_t)bs};
        y = li_op(c, LG_OP_SPACE_TO_DEPTH, &xn, 1, &o, -1);
    }
    return li_out(c, 0, li_to_nchw(c, y), x->onnx_type);
}

const li_op_entry li_ops_shape[] = {
    {"Reshape", 1, 99, lower_reshape},     {"Flatten", 1, 99, lower_flatten},
    {"Squeeze", 1, 99, lower_squeeze},     {"Unsqueeze", 1, 99, lower_unsqueeze},
    {"Transpose", 1, 99, lower_transpose}, {"Concat", 4, 99, lower_concat},
    {"Split", 2, 17, lower_split},         {"Slice", 1, 99, lower_slice},
    {"Gather", 1, 99, lower_gather},       {"Expand", 8, 99, lower_expand},
    {"Tile", 6, 99, lower_tile},           {"Pad", 2, 99, lower_pad},
    {"Shape", 1, 99, lower_shape},         {"Size", 1, 99, lower_size},
    {"ConstantOfShape", 9, 99, lower_constant_of_shape},
    {"Range", 11, 99, lower_range},
    {"DepthToSpace", 1, 99, lower_d2s},    {"SpaceToDepth", 1, 99, lower_d2s},
    {NULL, 0, 0, NULL},
};
