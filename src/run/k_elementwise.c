/* Reference kernels: the elementwise family's table, the broadcast plan, shared checks and
 * ADD_N. See k_elementwise.h for the layout of the family. */
#include "run/k_elementwise.h"

/* ------------------------------------------------------------------ broadcasting */

lg_status lgk_ew_broadcast(const lgk_node *n, const lgk_tensor *const *in, int n_in, int32_t *shape,
                           uint32_t *rank, lg_error *err) {
    uint32_t r = 0;
    for (int k = 0; k < n_in; k++)
        if (in[k]->rank > r) r = in[k]->rank;
    for (uint32_t i = 0; i < r; i++) {
        int32_t d = 1;
        int from = -1;
        for (int k = 0; k < n_in; k++) {
            const lgk_tensor *t = in[k];
            int32_t dk = i < t->rank ? t->shape[t->rank - 1 - i] : 1;
            if (dk == 1) continue;
            if (d != 1 && dk != d) {
                return lgk_fail(n, LG_ERR_FORMAT, err,
                                "shapes of tensors %d and %d do not broadcast (dimension %u from the "
                                "end: %d vs %d)", in[from]->index, t->index, i, d, dk);
            }
            d = dk;
            from = k;
        }
        shape[r - 1 - i] = d;
    }
    *rank = r;
    return LG_OK;
}

void lgk_ew_plan_init(lgk_ew_plan *p, const lgk_tensor *const *in, int n_in, const int32_t *shape,
                      uint32_t rank) {
    memset(p, 0, sizeof *p);
    p->n_in = n_in;
    int64_t numel = 1;
    for (uint32_t d = 0; d < rank; d++) numel *= shape[d];
    p->numel = numel;
    if (numel == 0) { p->kind = LGK_EW_EMPTY; return; }
    int64_t st[LGK_EW_MAX_IN][LG_MAX_RANK];
    for (int k = 0; k < n_in; k++) lgk_broadcast_strides(in[k], shape, rank, st[k]);
    /* merge from the innermost dimension outwards; kept dims are collected innermost first */
    int64_t dim[LG_MAX_RANK], mst[LGK_EW_MAX_IN][LG_MAX_RANK];
    uint32_t m = 0;
    for (int d = (int)rank - 1; d >= 0; d--) {
        if (shape[d] == 1) continue;
        int merge = m > 0;
        for (int k = 0; merge && k < n_in; k++)
            merge = st[k][d] == mst[k][m - 1] * dim[m - 1];
        if (merge) {
            dim[m - 1] *= shape[d];
            continue;
        }
        dim[m] = shape[d];
        for (int k = 0; k < n_in; k++) mst[k][m] = st[k][d];
        m++;
    }
    p->rank = m;
    for (uint32_t i = 0; i < m; i++) {
        p->dim[i] = dim[m - 1 - i];
        for (int k = 0; k < n_in; k++) p->st[k][i] = mst[k][m - 1 - i];
    }
    if (m == 0) { p->kind = LGK_EW_SAME; return; } /* one element */
    int all_same = 1;
    for (int k = 0; k < n_in; k++)
        for (uint32_t i = 0; i < m; i++) {
            /* contiguous in the output's layout */
            int64_t want = 1;
            for (uint32_t j = i + 1; j < m; j++) want *= p->dim[j];
            if (p->st[k][i] != want) all_same = 0;
        }
    if (all_same) { p->kind = LGK_EW_SAME; return; }
    if (n_in == 2 && m == 1) {
        p->kind = p->st[0][0] == 0 ? LGK_EW_A_SCALAR : LGK_EW_B_SCALAR;
        return;
    }
    p->kind = LGK_EW_GENERAL;
}

/* ------------------------------------------------------------------ shared checks */

lg_status lgk_ew_opts(const lgk_node *n, lg_opts_kind kind, const void **opts, lg_error *err) {
    *opts = NULL;
    if (!n->opts || !n->op || n->op->opts_kind == LG_OPTS_NONE) return LG_OK;
    if (n->op->opts_kind != kind)
    {
        const char *have = lg_opts_name(n->op->opts_kind), *want = lg_opts_name(kind);
        return lgk_fail(n, LG_ERR_FORMAT, err, "carries %s, expected %s", have ? have : "unknown options",
                        want ? want : "?");
    }
    *opts = n->opts;
    return LG_OK;
}

lg_status lgk_ew_arity(const lgk_node *n, uint32_t min_in, uint32_t max_in, lg_error *err) {
    if (n->n_in < min_in || n->n_in > max_in) {
        if (min_in == max_in)
            return lgk_fail(n, LG_ERR_FORMAT, err, "has %u inputs, expected %u", n->n_in, min_in);
        return lgk_fail(n, LG_ERR_FORMAT, err, "has %u inputs, expected %u to %u", n->n_in, min_in, max_in);
    }
    if (n->n_out != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "has %u outputs, expected 1", n->n_out);
    if (!n->out[0]) return lgk_fail(n, LG_ERR_FORMAT, err, "output 0 is missing");
    for (uint32_t i = 0; i < n->n_in; i++) {
        if (!n->in[i]) return lgk_fail(n, LG_ERR_FORMAT, err, "input %u is missing", i);
        if (n->in[i] == n->out[0])
            return lgk_fail(n, LG_ERR_FORMAT, err, "tensor %d is both input %u and the output",
                            n->out[0]->index, i);
        for (uint32_t d = 0; d < n->in[i]->rank; d++)
            if (n->in[i]->shape[d] < 0)
                return lgk_fail(n, LG_ERR_FORMAT, err, "input %u (tensor %d) has an unresolved dimension",
                                i, n->in[i]->index);
    }
    return LG_OK;
}

lg_status lgk_ew_out_type(const lgk_node *n, lg_dtype want, lg_error *err) {
    const lgk_tensor *o = n->out[0];
    int t = o->ir ? o->ir->type : (int)o->type;
    if (lgk_storage_type(t) != want)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output (tensor %d) is %s, expected %s", o->index,
                        lg_dtype_name(t), lg_dtype_name(want));
    if (want == LG_FLOAT32 && t != LG_FLOAT32 && t != LG_FLOAT16)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output (tensor %d) type %s is not supported",
                        o->index, lg_dtype_name(t));
    return LG_OK;
}

lg_status lgk_ew_bad_type(const lgk_node *n, const lgk_tensor *t, const char *supported, lg_error *err) {
    int ty = t->ir ? t->ir->type : (int)t->type;
    const char *why = "";
    if ((ty == LG_INT8 || ty == LG_UINT8 || ty == LG_INT16) && t->ir && t->ir->quant)
        why = " (quantized arithmetic is not implemented)";
    return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "input type %s (tensor %d) is not supported%s; supported: %s",
                    lg_dtype_name(ty), t->index, why, supported);
}

lg_status lgk_ew_act(const lgk_node *n, int act, float *lo, float *hi, int *on, lg_error *err) {
    *lo = -INFINITY;
    *hi = INFINITY;
    *on = 1;
    switch (act) {
    case LG_ACTIVATION_FUNCTION_TYPE_NONE: *on = 0; return LG_OK;
    case LG_ACTIVATION_FUNCTION_TYPE_RELU: *lo = 0; return LG_OK;
    case LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1: *lo = -1; *hi = 1; return LG_OK;
    case LG_ACTIVATION_FUNCTION_TYPE_RELU6: *lo = 0; *hi = 6; return LG_OK;
    case LG_ACTIVATION_FUNCTION_TYPE_TANH:
    case LG_ACTIVATION_FUNCTION_TYPE_SIGN_BIT:
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                        "fused activation %s is not supported on this op (TFLite's kernel ignores it, "
                        "GPU delegates apply it)",
                        act == LG_ACTIVATION_FUNCTION_TYPE_TANH ? "TANH" : "SIGN_BIT");
    default:
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "unknown fused activation %d", act);
    }
}

lg_status lgk_ew_have_data(const lgk_node *n, lg_error *err) {
    for (uint32_t i = 0; i < n->n_in; i++)
        if (n->in[i] && n->in[i]->numel > 0 && !n->in[i]->data)
            return lgk_fail(n, LG_ERR_FORMAT, err,
                            "input %u (tensor %d) has no value: no op produces it and it is not an "
                            "input or a constant", i, n->in[i]->index);
    if (n->out[0]->numel > 0 && !n->out[0]->data)
        return lgk_fail(n, LG_ERR_INTERNAL, err, "output (tensor %d) has no memory", n->out[0]->index);
    return LG_OK;
}

/* ------------------------------------------------------------------ ADD_N */

/* ADD_N: out = in0 + in1 + ... + in(n-1), all of one shape and type (FLOAT32, INT32).
   TFLite's reference starts from 0 and adds the inputs in order; the float running sum goes
   through lgk_add, so in LG_PREC_F16 it is a half accumulator. */
static lg_status add_n_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgk_ew_arity(n, 2, 1u << 20, err));
    const lgk_tensor *a = n->in[0];
    int is_f = lgk_ew_is_float(a);
    if (!is_f && a->type != LG_INT32) return lgk_ew_bad_type(n, a, "FLOAT32, FLOAT16, INT32", err);
    for (uint32_t k = 1; k < n->n_in; k++) {
        const lgk_tensor *t = n->in[k];
        if (t->type != a->type || (is_f && !lgk_ew_is_float(t)))
            return lgk_fail(n, LG_ERR_FORMAT, err, "input %u is %s, input 0 is %s", k,
                            lg_dtype_name(t->ir->type), lg_dtype_name(a->ir->type));
        int same = t->rank == a->rank;
        for (uint32_t d = 0; same && d < a->rank; d++) same = t->shape[d] == a->shape[d];
        if (!same)
            return lgk_fail(n, LG_ERR_FORMAT, err, "input %u (tensor %d) and input 0 (tensor %d) differ in shape "
                            "(ADD_N does not broadcast)", k, t->index, a->index);
    }
    LG_TRY(lgk_ew_out_type(n, a->type, err));
    return lgk_set_output(n, 0, a->type, a->shape, a->rank, err);
}

static void add_n_first(const float *restrict x, float *restrict o, int64_t n) { EW_LOOP(n, o[i] = 0.0f + x[i]); }
static void add_n_acc(const float *restrict x, float *restrict o, int64_t n) { EW_LOOP(n, o[i] = o[i] + x[i]); }

static lg_status add_n_eval(lgk_node *n, lg_error *err) {
    LG_TRY(lgk_ew_have_data(n, err));
    const int64_t cnt = n->out[0]->numel;
    if (n->out[0]->type == LG_INT32) {
        int32_t *restrict o = n->out[0]->data;
        const int32_t *restrict x0 = n->in[0]->data;
        EW_LOOP(cnt, o[i] = x0[i]);
        for (uint32_t k = 1; k < n->n_in; k++) {
            const int32_t *restrict x = n->in[k]->data;
            EW_LOOP(cnt, o[i] = (int32_t)((uint32_t)o[i] + (uint32_t)x[i]));
        }
        return LG_OK;
    }
    const lgk_ctx *c = n->ctx;
    float *o = n->out[0]->data;
    const float *x0 = n->in[0]->data;
    if (c->prec == LG_PREC_F16) {
        /* the half accumulator: acc = h(acc + x), from acc = 0, inputs in order */
        for (int64_t i = 0; i < cnt; i++) o[i] = lgk_add(c, 0.0f, x0[i]);
        for (uint32_t k = 1; k < n->n_in; k++) {
            const float *restrict x = n->in[k]->data;
            for (int64_t i = 0; i < cnt; i++) o[i] = lgk_add(c, o[i], x[i]);
        }
        return LG_OK;
    }
    /* fp32: lgk_add is a plain sum here; written out so the loop vectorizes */
    add_n_first(x0, o, cnt);
    for (uint32_t k = 1; k < n->n_in; k++) add_n_acc(n->in[k]->data, o, cnt);
    return LG_OK;
}

/* ------------------------------------------------------------------ the table */

#define BIN(code) {LG_OP_##code, NULL, lgk_ew_binary_prepare, lgk_ew_binary_eval}
#define UN(code) {LG_OP_##code, NULL, lgk_ew_unary_prepare, lgk_ew_unary_eval}

const lgk_kernel lgk_elementwise_kernels[] = {
    /* binary arithmetic (k_elementwise_binary.c) */
    BIN(ADD), BIN(SUB), BIN(MUL), BIN(DIV), BIN(MAXIMUM), BIN(MINIMUM), BIN(POW),
    BIN(SQUARED_DIFFERENCE), BIN(FLOOR_DIV), BIN(FLOOR_MOD), BIN(ATAN2), BIN(PRELU),
    BIN(EQUAL), BIN(NOT_EQUAL), BIN(LESS), BIN(LESS_EQUAL), BIN(GREATER), BIN(GREATER_EQUAL),
    BIN(LOGICAL_AND), BIN(LOGICAL_OR),
    {LG_OP_ADD_N, NULL, add_n_prepare, add_n_eval},
    /* unary (k_elementwise_unary.c) */
    UN(ABS), UN(NEG), UN(EXP), UN(LOG), UN(SQRT), UN(RSQRT), UN(SQUARE), UN(SIN), UN(COS),
    UN(TANH), UN(LOGISTIC), UN(RELU), UN(RELU6), UN(RELU_N1_TO_1), UN(RELU_0_TO_1),
    UN(LEAKY_RELU), UN(ELU), UN(HARD_SWISH), UN(GELU), UN(FLOOR), UN(CEIL), UN(ROUND),
    UN(SIGN), UN(LOGICAL_NOT),
    /* selection and conversion (k_elementwise_convert.c) */
    {LG_OP_SELECT, NULL, lgk_ew_select_prepare, lgk_ew_select_eval},
    {LG_OP_SELECT_V2, NULL, lgk_ew_select_prepare, lgk_ew_select_eval},
    {LG_OP_CAST, NULL, lgk_ew_cast_prepare, lgk_ew_cast_eval},
    {LG_OP_ZEROS_LIKE, NULL, lgk_ew_zeros_like_prepare, lgk_ew_zeros_like_eval},
    {LG_OP_DEQUANTIZE, NULL, lgk_ew_dequantize_prepare, lgk_ew_dequantize_eval},
    {LG_OP_QUANTIZE, NULL, lgk_ew_quantize_prepare, lgk_ew_quantize_eval},
    {0, NULL, NULL, NULL},
};
