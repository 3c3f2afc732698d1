/* Lowerings of the selection and indexing ops: TopK, CumSum and Trilu.
 *
 * Trilu -> SELECT_V2(mask, x, 0) with a constant BOOL mask over the last two dims, built here
 * from the static shape: upper keeps element (i, j) where j - i >= k, lower where j - i <= k
 * (the ONNX definition). A select, not a MUL by a 0/1 mask: x * 0 is NaN for an inf or NaN x,
 * where Trilu gives 0.
 *
 * CumSum -> CUMSUM with the same exclusive and reverse flags (tensorflow/lite/kernels/cumsum.cc
 * takes a constant INT32 axis; float and INT32 values), summing in order along the axis as
 * ONNX's definition does.
 *
 * TopK -> TOPK_V2, which works on the last axis and ranks equal values by the lower index
 * first (tensorflow/lite/kernels/topk_v2.cc, TopContainer: "a[i] > a[j] || (a[i] == a[j] &&
 * i < j)"), ONNX's tie rule. Another axis: TRANSPOSE swapping it with the last one before and
 * after (the swap is its own inverse). largest = 0 (the k smallest): TOPK_V2 of an
 * order-reversing bijection of the input, inverted on the values afterwards: NEG for floats
 * (exact: -(-x) == x; ties stay ties, so the indices are the lowest first as ONNX wants),
 * -1 - x (bitwise NOT) for INT32, which never overflows, unlike NEG of INT32_MIN. */
#include <stdio.h>
#include <stdlib.h>

#include "import/import_impl.h"

/* x swapped between axis a and the last axis (a no-op when a is the last) */
static int32_t swap_last(li_ctx *c, int32_t x, int a) {
    int r = li_rank(c, x), p[LG_MAX_RANK];
    for (int i = 0; i < r; i++) p[i] = i;
    p[a] = r - 1;
    p[r - 1] = a;
    return li_transpose(c, x, p, r);
}

/* the order-reversing bijection of TopK's largest = 0 (its own inverse) */
static int32_t reverse_order(li_ctx *c, int32_t x) {
    if (li_type(c, x) == LG_FLOAT32) return li_unary(c, LG_OP_NEG, x);
    return li_binary(c, LG_OP_SUB, li_ki(c, -1), x);
}

static lg_status lower_topk(li_ctx *c) {
    const li_val *x = li_need(c, 0);
    LI_TRY(c);
    int r = li_rank(c, x->t);
    if (r < 1) return li_bad(c, LG_ERR_FORMAT, "TopK of a scalar");
    int64_t axis = li_norm_axis(li_attr_i(c->node, "axis", -1), r);
    if (axis < 0 || axis >= r) return li_bad(c, LG_ERR_FORMAT, "axis %lld for rank %d", (long long)li_attr_i(c->node, "axis", -1), r);
    int64_t k;
    if (c->opset < 10) {
        k = li_attr_i(c->node, "k", -1);
        if (!li_attr(c->node, "k")) return li_bad(c, LG_ERR_FORMAT, "no k attribute");
    } else {
        const li_val *kv = li_need(c, 1);
        LI_TRY(c);
        int64_t kk[2];
        uint32_t n = 0;
        if (!li_const_ints(c, kv->t, kk, 2, &n)) return li_unsupported(c, "K (input 1) is computed at run time (it must be constant)");
        if (n != 1) return li_bad(c, LG_ERR_FORMAT, "K holds %u values", n);
        k = kk[0];
    }
    int64_t dim = li_dim(c, x->t, (int)axis);
    if (k < 0 || k > dim) return li_bad(c, LG_ERR_FORMAT, "K = %lld for an axis of %lld", (long long)k, (long long)dim);
    if (k == 0) return li_unsupported(c, "K = 0 (empty outputs)");
    bool largest = li_attr_i(c->node, "largest", 1) != 0;
    lg_dtype ty = li_type(c, x->t);
    if (ty != LG_FLOAT32 && ty != LG_INT32 && !(largest && (ty == LG_INT8 || ty == LG_UINT8 || ty == LG_INT16)))
        return li_unsupported(c, "%s input%s", lg_dtype_name(ty), largest ? "" : " with largest = 0");
    if (!li_attr_i(c->node, "sorted", 1))
        li_note(c, "node %u: TopK sorted = 0: the k values are returned sorted (an order ONNX allows)", c->node_index);
    int32_t xt = swap_last(c, x->t, (int)axis);
    if (!largest) xt = reverse_order(c, xt);
    int32_t outs[2] = {-1, -1};
    const int types[2] = {(int)ty, LG_INT32};
    int32_t ins[2] = {xt, li_ki(c, k)};
    lg_topk_v2_options o = {0};
    LG_TRY(li_op_n(c, LG_OP_TOPK_V2, ins, 2, &o, types, outs, 2));
    int32_t vals = outs[0];
    if (!largest) vals = reverse_order(c, vals);
    vals = swap_last(c, vals, (int)axis);
    int32_t idx = swap_last(c, outs[1], (int)axis);
    LG_TRY(li_out(c, 0, vals, x->onnx_type));
    return li_out(c, 1, idx, LG_ONNX_INT64);
}

static lg_status lower_cumsum(li_ctx *c) {
    const li_val *x = li_need(c, 0), *av = li_need(c, 1);
    LI_TRY(c);
    int r = li_rank(c, x->t);
    lg_dtype ty = li_type(c, x->t);
    if (ty != LG_FLOAT32 && ty != LG_INT32) return li_unsupported(c, "%s input", lg_dtype_name(ty));
    if (r < 1) return li_bad(c, LG_ERR_FORMAT, "CumSum of a scalar");
    int64_t a[2];
    uint32_t n = 0;
    if (!li_const_ints(c, av->t, a, 2, &n)) return li_unsupported(c, "axis (input 1) is computed at run time (it must be constant)");
    if (n != 1) return li_bad(c, LG_ERR_FORMAT, "axis holds %u values", n);
    int64_t axis = li_norm_axis(a[0], r);
    if (axis < 0 || axis >= r) return li_bad(c, LG_ERR_FORMAT, "axis %lld for rank %d", (long long)a[0], r);
    lg_cumsum_options o = {0};
    o.exclusive = li_attr_i(c->node, "exclusive", 0) != 0;
    o.reverse = li_attr_i(c->node, "reverse", 0) != 0;
    return li_out(c, 0, LI_OP(c, LG_OP_CUMSUM, &o, -1, x->t, li_ki(c, axis)), x->onnx_type);
}

static lg_status lower_trilu(li_ctx *c) {
    const li_val *x = li_need(c, 0), *kv = li_in(c, 1);
    LI_TRY(c);
    int r = li_rank(c, x->t);
    if (r < 2) return li_bad(c, LG_ERR_FORMAT, "Trilu of rank %d (at least 2)", r);
    int64_t k = 0;
    if (kv) {
        int64_t kk[2];
        uint32_t n = 0;
        if (!li_const_ints(c, kv->t, kk, 2, &n)) return li_unsupported(c, "k (input 1) is computed at run time (it must be constant)");
        if (n != 1) return li_bad(c, LG_ERR_FORMAT, "k holds %u values", n);
        k = kk[0];
    }
    int64_t h = li_dim(c, x->t, r - 2), w = li_dim(c, x->t, r - 1);
    if (h < 0 || w < 0) return li_unsupported(c, "Trilu over dynamic dims");
    if (h == 0 || w == 0) return li_out(c, 0, x->t, x->onnx_type);
    bool upper = li_attr_i(c->node, "upper", 1) != 0;
    uint8_t *mask = malloc((size_t)(h * w));
    if (!mask) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < h; i++)
        for (int64_t j = 0; j < w; j++) mask[i * w + j] = upper ? (j - i >= k) : (j - i <= k);
    int32_t m = li_konst(c, LG_BOOL, (const int64_t[]){h, w}, 2, mask, (uint64_t)(h * w));
    free(mask);
    int32_t y = LI_OP(c, LG_OP_SELECT_V2, NULL, -1, m, x->t, li_kscalar_like(c, x->t, 0));
    return li_out(c, 0, y, x->onnx_type);
}

const li_op_entry li_ops_index[] = {
    {"Trilu", 14, 99, lower_trilu},
    {"TopK", 1, 99, lower_topk},
    {"CumSum", 11, 99, lower_cumsum},
    {NULL, 0, 0, NULL},
};
