/* Reference kernels, reduce family: MEAN, SUM, REDUCE_PROD/MAX/MIN/ANY/ALL, ARG_MAX,
 * ARG_MIN, TOPK_V2 (this file), the row normalizations (k_reduce_norm.c) and the resizes
 * (k_reduce_resize.c).
 *
 * Reductions follow TFLite's reduce.cc: the axes (a constant INT32/INT64 tensor) may be
 * negative and repeated; keep_dims keeps reduced dims as 1; a scalar input ignores the axes;
 * an empty axes list copies. Every output element folds its inputs in increasing input
 * index order. In LG_PREC_F16, SUM and MEAN are the GPU delegate's reduce kernel with half
 * accumulators (k_reduce_half.c: work-group partial sums, every addition rounded to half, so
 * a sum past 65504 becomes inf as on ML Drift); REDUCE_PROD/MAX/MIN fold in fp32 and are
 * rounded once at the output, as the delegate's kernel does (reduce.cc, GetAccumType:
 * FLOAT32 for a FLOAT16 tensor; no device report says otherwise). MEAN divides the sum by the
 * element count in fp32, except (LG_PREC_F32, LG_PREC_F32_F16) when the innermost dim is kept (e.g. MEAN over H and W of NHWC, a global average pool): there
 * the sum, folded row by row in input order, is multiplied by the float 1 / count, which is
 * XNNPACK's arithmetic for that case (its "rdsum" kernels, scale = 1.0f / count) as LiteRT.js
 * runs it: same results bit for bit. */
#include <float.h>

#include "run/k_reduce.h"

/* ------------------------------------------------------------------ shared helpers */

lg_status lgk_red_arity(const lgk_node *n, uint32_t n_in, uint32_t n_out, lg_error *err) {
    if (n->n_in != n_in || n->n_out != n_out)
        return lgk_fail(n, LG_ERR_FORMAT, err, "takes %u input%s and %u output%s, not %u and %u", n_in,
                        n_in == 1 ? "" : "s", n_out, n_out == 1 ? "" : "s", n->n_in, n->n_out);
    for (uint32_t i = 0; i < n_in; i++)
        if (!n->in[i]) return lgk_fail(n, LG_ERR_FORMAT, err, "input %u is missing", i);
    for (uint32_t i = 0; i < n_out; i++)
        if (!n->out[i]) return lgk_fail(n, LG_ERR_FORMAT, err, "output %u is missing", i);
    return LG_OK;
}

lg_status lgk_red_static_shape(const lgk_node *n, const lgk_tensor *t, lg_error *err) {
    for (uint32_t d = 0; d < t->rank; d++)
        if (t->shape[d] < 0)
            return lgk_fail(n, LG_ERR_FORMAT, err, "tensor %d has a dynamic dimension (%d) that was never resolved",
                            t->index, t->shape[d]);
    return LG_OK;
}

lg_status lgk_red_out_type(const lgk_node *n, uint32_t o, lg_dtype want, lg_error *err) {
    lg_dtype got = lgk_storage_type(n->out[o]->ir->type);
    if (got != want)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output %u (tensor %d) is declared %s, expected %s", o,
                        n->out[o]->index, lg_dtype_name(n->out[o]->ir->type), lg_dtype_name(want));
    return LG_OK;
}


/* ------------------------------------------------------------------ reductions */

enum { RED_SUM, RED_MEAN, RED_PROD, RED_MAX, RED_MIN, RED_ANY, RED_ALL };

/* The input shape with size-1 dims dropped and neighbouring dims of the same kind
   (reduced or kept) merged: iterating it in row-major order visits the input in memory
   order; ostr gives each merged dim's stride in the output (0 for a reduced dim). */
typedef struct red_state {
    int op;
    lg_dtype type;
    uint32_t m;
    int64_t dims[LG_MAX_RANK];
    int64_t ostr[LG_MAX_RANK];
    uint8_t red[LG_MAX_RANK];
    int64_t count;      /* input elements folded into each output element */
    int64_t in_numel, out_numel;
    int use_half;       /* LG_PREC_F16 SUM/MEAN: the delegate's kernel (k_reduce_half.c) */
    lgk_red_half half;
} red_state;

static int red_op(int32_t code) {
    switch (code) {
    case LG_OP_SUM: return RED_SUM;
    case LG_OP_MEAN: return RED_MEAN;
    case LG_OP_REDUCE_PROD: return RED_PROD;
    case LG_OP_REDUCE_MAX: return RED_MAX;
    case LG_OP_REDUCE_MIN: return RED_MIN;
    case LG_OP_REDUCE_ANY: return RED_ANY;
    default: return RED_ALL;
    }
}

static lg_status red_check_type(const lgk_node *n, int op, lg_error *err) {
    const lgk_tensor *x = n->in[0];
    lg_dtype t = x->type;
    if (op == RED_ANY || op == RED_ALL) {
        if (t != LG_BOOL)
            return lgk_fail(n, LG_ERR_FORMAT, err, "input must be BOOL, not %s", lg_dtype_name(x->ir->type));
        return LG_OK;
    }
    if (t == LG_FLOAT32 || t == LG_INT32 || t == LG_INT64) return LG_OK;
    if (t == LG_INT8 || t == LG_UINT8 || t == LG_INT16) {
        if (op != RED_MAX && op != RED_MIN)
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "quantized %s input is not supported", lg_dtype_name(t));
        /* max/min of the raw integers is exact when input and output share scale and zero point
           (TFLite requires it) */
        if (!lg_tensor_same_quant(x->ir, n->out[0]->ir))
            return lgk_fail(n, LG_ERR_FORMAT, err, "input and output quantization differ");
        return LG_OK;
    }
    return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "input type %s is not supported", lg_dtype_name(x->ir->type));
}

static lg_status red_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgk_red_arity(n, 2, 1, err));
    const lgk_tensor *x = n->in[0], *ax = n->in[1];
    int op = red_op(n->code);
    LG_TRY(lgk_red_static_shape(n, x, err));
    LG_TRY(red_check_type(n, op, err));
    LG_TRY(lgk_red_out_type(n, 0, x->type, err));
    if (ax->type != LG_INT32 && ax->type != LG_INT64)
        return lgk_fail(n, LG_ERR_FORMAT, err, "axes (input 1) must be INT32 or INT64, not %s", lg_dtype_name(ax->ir->type));
    int64_t axes[64];
    uint32_t na = 0;
    if (ax->numel > 0) LG_TRY(lgk_const_ints(n, 1, axes, 64, &na, err));
    uint8_t reduced[LG_MAX_RANK] = {0};
    if (x->rank > 0) /* a scalar input ignores its axes, as in TFLite */
        for (uint32_t i = 0; i < na; i++) {
            int64_t a = axes[i] < 0 ? axes[i] + (int64_t)x->rank : axes[i];
            if (a < 0 || a >= (int64_t)x->rank)
                return lgk_fail(n, LG_ERR_FORMAT, err, "axis %lld is out of range for an input of rank %u",
                                (long long)axes[i], x->rank);
            reduced[a] = 1;
        }
    const lg_reducer_options *o = lgk_red_opts(n, LG_OPTS_REDUCER_OPTIONS);
    int keep = o ? o->keep_dims : 0;
    int32_t oshape[LG_MAX_RANK];
    uint32_t orank = 0;
    for (uint32_t d = 0; d < x->rank; d++) {
        if (!reduced[d]) oshape[orank++] = x->shape[d];
        else if (keep) oshape[orank++] = 1;
    }
    LG_TRY(lgk_set_output(n, 0, x->type, oshape, orank, err));

    red_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    s->op = op;
    s->type = x->type;
    s->count = 1;
    for (uint32_t d = 0; d < x->rank; d++) {
        int64_t sz = x->shape[d];
        if (reduced[d]) s->count *= sz;
        if (sz == 1) continue;
        if (s->m > 0 && s->red[s->m - 1] == reduced[d]) {
            s->dims[s->m - 1] *= sz;
        } else {
            s->dims[s->m] = sz;
            s->red[s->m] = reduced[d];
            s->m++;
        }
    }
    if (s->m == 0) { s->dims[0] = 1; s->red[0] = 0; s->m = 1; }
    int64_t st = 1;
    for (int d = (int)s->m - 1; d >= 0; d--) {
        if (s->red[d]) { s->ostr[d] = 0; continue; }
        s->ostr[d] = st;
        st *= s->dims[d];
    }
    s->in_numel = x->numel;
    s->out_numel = n->out[0]->numel;
    if (x->type != LG_FLOAT32) n->scratch_bytes = (uint64_t)(s->out_numel ? s->out_numel : 1) * 8;
    if (x->type == LG_FLOAT32 && n->ctx->prec == LG_PREC_F16 && (op == RED_SUM || op == RED_MEAN)) {
        s->use_half = 1;
        lgk_red_half_plan(&s->half, x->shape, x->rank, reduced, op == RED_MEAN);
        n->scratch_bytes = (uint64_t)(s->count ? s->count : 1) * 8;
    }
    n->state = s;
    return LG_OK;
}

/* Advance the odometer over the merged dims 0..m-2 (the last dim is the inner loop), keeping
   the output offset in step. */
static inline void red_step(const red_state *s, int64_t *idx, int64_t *ooff) {
    for (int d = (int)s->m - 2; d >= 0; d--) {
        *ooff += s->ostr[d];
        if (++idx[d] < s->dims[d]) return;
        *ooff -= s->ostr[d] * s->dims[d];
        idx[d] = 0;
    }
}

/* out[i] op= x[i] over a contiguous block (the kept innermost dim) */
static void acc_add(float *restrict o, const float *restrict x, int64_t n) { LGK_RED_LOOP(n, o[i] = o[i] + x[i]); }
static void acc_mul(float *restrict o, const float *restrict x, int64_t n) { LGK_RED_LOOP(n, o[i] = o[i] * x[i]); }
static void acc_max(float *restrict o, const float *restrict x, int64_t n) {
    LGK_RED_LOOP(n, o[i] = x[i] > o[i] ? x[i] : o[i]);
}
static void acc_min(float *restrict o, const float *restrict x, int64_t n) {
    LGK_RED_LOOP(n, o[i] = x[i] < o[i] ? x[i] : o[i]);
}

static void red_fold_f32(const red_state *s, const float *x, float *o) {
    const int64_t L = s->dims[s->m - 1];
    const int last_red = s->red[s->m - 1];
    const int64_t outer = L ? s->in_numel / L : 0;
    int64_t idx[LG_MAX_RANK] = {0};
    int64_t ooff = 0;
    for (int64_t b = 0; b < outer; b++) {
        const float *xb = x + b * L;
        float *ob = o + ooff;
        if (last_red) {
            float acc = ob[0];
            switch (s->op) {
            case RED_SUM: case RED_MEAN: for (int64_t j = 0; j < L; j++) acc += xb[j]; break;
            case RED_PROD: for (int64_t j = 0; j < L; j++) acc *= xb[j]; break;
            case RED_MAX: for (int64_t j = 0; j < L; j++) acc = xb[j] > acc ? xb[j] : acc; break;
            default: for (int64_t j = 0; j < L; j++) acc = xb[j] < acc ? xb[j] : acc; break;
            }
            ob[0] = acc;
        } else {
            switch (s->op) {
            case RED_SUM: case RED_MEAN: acc_add(ob, xb, L); break;
            case RED_PROD: acc_mul(ob, xb, L); break;
            case RED_MAX: acc_max(ob, xb, L); break;
            default: acc_min(ob, xb, L); break;
            }
        }
        red_step(s, idx, &ooff);
    }
}

static lg_status red_eval_f32(lgk_node *n, const red_state *s) {
    float *o = n->out[0]->data;
    const float *x = n->in[0]->data;
    float init = 0.0f;
    if (s->op == RED_PROD) init = 1.0f;
    /* max/min start from -inf/+inf (so a row of -inf gives -inf); an empty reduction gives
       TFLite's neutral element lowest()/max() */
    else if (s->op == RED_MAX) init = s->count ? -INFINITY : -FLT_MAX;
    else if (s->op == RED_MIN) init = s->count ? INFINITY : FLT_MAX;
    for (int64_t i = 0; i < s->out_numel; i++) o[i] = init;
    if (s->op == RED_MEAN && s->in_numel == 0) {
        for (int64_t i = 0; i < s->out_numel; i++) o[i] = NAN; /* TFLite: mean of nothing is NaN */
        return LG_OK;
    }
    if (s->use_half) {
        lgk_red_half_eval(&s->half, x, o, n->scratch);
        return LG_OK;
    }
    red_fold_f32(s, x, o);
    if (s->op == RED_MEAN && !s->red[s->m - 1]) {
        const float scale = 1.0f / (float)(double)s->count; /* XNNPACK's: see the header */
        for (int64_t i = 0; i < s->out_numel; i++) o[i] = o[i] * scale;
    } else if (s->op == RED_MEAN) {
        const float cnt = (float)s->count;
        for (int64_t i = 0; i < s->out_numel; i++) o[i] = o[i] / cnt;
    }
    return LG_OK;
}

static inline int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

static void int_limits(lg_dtype t, int64_t *lo, int64_t *hi) {
    switch (t) {
    case LG_INT8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case LG_UINT8: *lo = 0; *hi = UINT8_MAX; break;
    case LG_INT16: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case LG_INT32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
    }
}

/* Integer and bool reductions fold into int64 accumulators (scratch): sums and products
   wrap as TFLite's do; MEAN divides the int64 sum by the count (truncating). */
static lg_status red_eval_int(lgk_node *n, const red_state *s) {
    const lgk_tensor *x = n->in[0];
    lgk_tensor *y = n->out[0];
    int64_t *a = n->scratch;
    int64_t lo, hi;
    int_limits(s->type, &lo, &hi);
    int64_t init = 0;
    switch (s->op) {
    case RED_PROD: case RED_ALL: init = 1; break;
    case RED_MAX: init = lo; break;
    case RED_MIN: init = hi; break;
    default: init = 0; break;
    }
    for (int64_t i = 0; i < s->out_numel; i++) a[i] = init;
    const int64_t L = s->dims[s->m - 1];
    const int last_red = s->red[s->m - 1];
    const int64_t outer = L ? s->in_numel / L : 0;
    int64_t idx[LG_MAX_RANK] = {0};
    int64_t ooff = 0;
    for (int64_t b = 0; b < outer; b++) {
        for (int64_t j = 0; j < L; j++) {
            int64_t v = lgk_get_int(x, b * L + j);
            int64_t *acc = &a[ooff + (last_red ? 0 : j)];
            switch (s->op) {
            case RED_SUM: case RED_MEAN: *acc = wrap_add(*acc, v); break;
            case RED_PROD: *acc = wrap_mul(*acc, v); break;
            case RED_MAX: if (v > *acc) *acc = v; break;
            case RED_MIN: if (v < *acc) *acc = v; break;
            case RED_ANY: *acc = *acc || v; break;
            default: *acc = *acc && v; break;
            }
        }
        red_step(s, idx, &ooff);
    }
    if (s->op == RED_MEAN) {
        for (int64_t i = 0; i < s->out_numel; i++) a[i] = s->in_numel ? a[i] / s->count : 0;
    }
    uint8_t *p = y->data;
    for (int64_t i = 0; i < s->out_numel; i++) {
        int64_t v = a[i];
        switch (s->type) {
        case LG_INT64: memcpy(p + 8 * i, &v, 8); break;
        case LG_INT32: { int32_t w = (int32_t)(uint32_t)(uint64_t)v; memcpy(p + 4 * i, &w, 4); break; }
        case LG_INT16: { int16_t w = (int16_t)v; memcpy(p + 2 * i, &w, 2); break; }
        case LG_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
        case LG_BOOL: p[i] = v != 0; break;
        default: p[i] = (uint8_t)v; break;
        }
    }
    return LG_OK;
}

static lg_status red_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const red_state *s = n->state;
    return s->type == LG_FLOAT32 ? red_eval_f32(n, s) : red_eval_int(n, s);
}

/* ------------------------------------------------------------------ ARG_MAX / ARG_MIN */

typedef struct arg_state {
    int64_t outer, axis_size, inner;
    int is_max;
    lg_dtype out_type;
} arg_state;

static lg_status arg_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgk_red_arity(n, 2, 1, err));
    const lgk_tensor *x = n->in[0], *ax = n->in[1];
    LG_TRY(lgk_red_static_shape(n, x, err));
    lg_dtype t = x->type;
    if (t != LG_FLOAT32 && t != LG_UINT8 && t != LG_INT8 && t != LG_INT32 && t != LG_BOOL)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "input type %s is not supported (FLOAT32, UINT8, INT8, INT32, BOOL)",
                        lg_dtype_name(x->ir->type));
    if (x->rank < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "input must have rank >= 1");
    if (ax->type != LG_INT32 && ax->type != LG_INT64)
        return lgk_fail(n, LG_ERR_FORMAT, err, "axis (input 1) must be INT32 or INT64, not %s", lg_dtype_name(ax->ir->type));
    if (ax->numel != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "axis (input 1) must hold 1 value, not %lld", (long long)ax->numel);
    int64_t axis;
    uint32_t cnt;
    LG_TRY(lgk_const_ints(n, 1, &axis, 1, &cnt, err));
    int64_t a = axis < 0 ? axis + (int64_t)x->rank : axis;
    if (a < 0 || a >= (int64_t)x->rank)
        return lgk_fail(n, LG_ERR_FORMAT, err, "axis %lld is out of range for an input of rank %u", (long long)axis, x->rank);
    if (x->shape[a] == 0) return lgk_fail(n, LG_ERR_FORMAT, err, "cannot compute %s over an empty axis", n->name);
    /* the index type: the declared output type; ArgMaxOptions.output_type must agree when given */
    lg_dtype ot = lgk_storage_type(n->out[0]->ir->type);
    if (ot != LG_INT32 && ot != LG_INT64)
        return lgk_fail(n, LG_ERR_FORMAT, err, "output must be INT32 or INT64, not %s", lg_dtype_name(n->out[0]->ir->type));
    const void *o = lgk_red_opts(n, n->code == LG_OP_ARG_MAX ? LG_OPTS_ARG_MAX_OPTIONS : LG_OPTS_ARG_MIN_OPTIONS);
    if (o) {
        int8_t want = n->code == LG_OP_ARG_MAX ? ((const lg_arg_max_options *)o)->output_type
                                               : ((const lg_arg_min_options *)o)->output_type;
        if (want != (int8_t)ot)
            return lgk_fail(n, LG_ERR_FORMAT, err, "output_type %s in the options but the output is declared %s",
                            lg_dtype_name(want), lg_dtype_name(ot));
    }
    int32_t oshape[LG_MAX_RANK];
    uint32_t orank = 0;
    arg_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    s->outer = s->inner = 1;
    for (uint32_t d = 0; d < x->rank; d++) {
        if ((int64_t)d == a) continue;
        oshape[orank++] = x->shape[d];
        if ((int64_t)d < a) s->outer *= x->shape[d];
        else s->inner *= x->shape[d];
    }
    LG_TRY(lgk_set_output(n, 0, ot, oshape, orank, err));
    s->axis_size = x->shape[a];
    s->is_max = n->code == LG_OP_ARG_MAX;
    s->out_type = ot;
    n->state = s;
    return LG_OK;
}

static lg_status arg_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const arg_state *s = n->state;
    const lgk_tensor *x = n->in[0];
    void *out = n->out[0]->data;
    const int64_t A = s->axis_size, I = s->inner;
    for (int64_t o = 0; o < s->outer; o++)
        for (int64_t i = 0; i < I; i++) {
            const int64_t base = o * A * I + i;
            int64_t bi = 0;
            /* strict comparison: the first index wins ties, as in TFLite */
            if (x->type == LG_FLOAT32) {
                const float *p = (const float *)x->data + base;
                float best = p[0];
                for (int64_t k = 1; k < A; k++) {
                    float v = p[k * I];
                    if (s->is_max ? v > best : v < best) { best = v; bi = k; }
                }
            } else {
                int64_t best = lgk_get_int(x, base);
                for (int64_t k = 1; k < A; k++) {
                    int64_t v = lgk_get_int(x, base + k * I);
                    if (s->is_max ? v > best : v < best) { best = v; bi = k; }
                }
            }
            if (s->out_type == LG_INT64) ((int64_t *)out)[o * I + i] = bi;
            else ((int32_t *)out)[o * I + i] = (int32_t)bi;
        }
    return LG_OK;
}

/* ------------------------------------------------------------------ TOPK_V2 */

typedef struct topk_state {
    int64_t rows, row_size, k;
    lg_dtype idx_type;
    uint32_t es;
} topk_state;

static lg_status topk_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgk_red_arity(n, 2, 2, err));
    const lgk_tensor *x = n->in[0], *kt = n->in[1];
    LG_TRY(lgk_red_static_shape(n, x, err));
    lg_dtype t = x->type;
    if (t != LG_FLOAT32 && t != LG_UINT8 && t != LG_INT8 && t != LG_INT16 && t != LG_INT32 && t != LG_INT64)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "input type %s is not supported", lg_dtype_name(x->ir->type));
    if (x->rank < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "input must have rank >= 1");
    if (kt->type != LG_INT32 && kt->type != LG_INT16)
        return lgk_fail(n, LG_ERR_FORMAT, err, "k (input 1) must be INT32 or INT16, not %s", lg_dtype_name(kt->ir->type));
    if (kt->numel != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "k (input 1) must hold 1 value, not %lld", (long long)kt->numel);
    if (!kt->is_const || !kt->data)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "k (input 1, tensor %d) must be constant: a data-dependent output shape is not supported",
                        kt->index);
    int64_t k = lgk_get_int(kt, 0);
    int64_t last = x->shape[x->rank - 1];
    if (k > last) return lgk_fail(n, LG_ERR_FORMAT, err, "k = %lld is larger than the last dimension (%lld)", (long long)k, (long long)last);
    if (k < 0) k = 0; /* TFLite: no top elements */
    LG_TRY(lgk_red_out_type(n, 0, t, err));
    lg_dtype it = lgk_storage_type(n->out[1]->ir->type);
    if (it != LG_INT32 && it != LG_INT16)
        return lgk_fail(n, LG_ERR_FORMAT, err, "indices (output 1) must be INT32 or INT16, not %s", lg_dtype_name(n->out[1]->ir->type));
    int32_t oshape[LG_MAX_RANK];
    for (uint32_t d = 0; d < x->rank; d++) oshape[d] = x->shape[d];
    oshape[x->rank - 1] = (int32_t)k;
    LG_TRY(lgk_set_output(n, 0, t, oshape, x->rank, err));
    LG_TRY(lgk_set_output(n, 1, it, oshape, x->rank, err));
    topk_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    s->row_size = last;
    s->rows = last ? x->numel / last : 0;
    s->k = k;
    s->idx_type = it;
    s->es = lgk_elem_size(t);
    n->scratch_bytes = (uint64_t)(k ? k : 1) * 12;
    n->state = s;
    return LG_OK;
}

/* Order-preserving unsigned keys: a larger value has a larger key; -0 and +0 are equal
   (ties, broken by index as in TFLite). */
static inline uint64_t key_f32(float v) {
    if (v == 0.0f) v = 0.0f;
    uint32_t u;
    memcpy(&u, &v, 4);
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return u;
}
static inline uint64_t key_int(int64_t v) { return (uint64_t)v ^ 0x8000000000000000ull; }

static uint64_t topk_key(const lgk_tensor *x, int64_t i) {
    if (x->type == LG_FLOAT32) return key_f32(((const float *)x->data)[i]);
    return key_int(lgk_get_int(x, i));
}

/* "a ranks below b": smaller value, or equal value and larger index. */
static inline int topk_worse(const uint64_t *key, const int32_t *idx, int64_t a, int64_t b) {
    return key[a] < key[b] || (key[a] == key[b] && idx[a] > idx[b]);
}

static void topk_sift_down(uint64_t *key, int32_t *idx, int64_t n, int64_t i) {
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < n && topk_worse(key, idx, l, w)) w = l;
        if (r < n && topk_worse(key, idx, r, w)) w = r;
        if (w == i) return;
        uint64_t tk = key[i]; key[i] = key[w]; key[w] = tk;
        int32_t ti = idx[i]; idx[i] = idx[w]; idx[w] = ti;
        i = w;
    }
}

static lg_status topk_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const topk_state *s = n->state;
    const lgk_tensor *x = n->in[0];
    const int64_t k = s->k, R = s->row_size;
    if (k == 0) return LG_OK;
    uint64_t *key = n->scratch;
    int32_t *idx = (int32_t *)(key + k);
    uint8_t *vals = n->out[0]->data;
    void *inds = n->out[1]->data;
    const uint8_t *xd = x->data;
    for (int64_t r = 0; r < s->rows; r++) {
        /* a min-heap (root = the lowest-ranked of the best k seen so far) */
        int64_t cnt = 0;
        for (int64_t c = 0; c < R; c++) {
            uint64_t kc = topk_key(x, r * R + c);
            if (cnt < k) {
                int64_t i = cnt++;
                key[i] = kc;
                idx[i] = (int32_t)c;
                while (i > 0) { /* sift up */
                    int64_t p = (i - 1) / 2;
                    if (!topk_worse(key, idx, i, p)) break;
                    uint64_t tk = key[i]; key[i] = key[p]; key[p] = tk;
                    int32_t ti = idx[i]; idx[i] = idx[p]; idx[p] = ti;
                    i = p;
                }
            } else if (kc > key[0]) { /* on a tie the earlier index already held stays */
                key[0] = kc;
                idx[0] = (int32_t)c;
                topk_sift_down(key, idx, k, 0);
            }
        }
        /* pop the lowest-ranked into the last slot: output sorted best first */
        for (int64_t pos = k - 1; pos >= 0; pos--) {
            int32_t best = idx[0];
            int64_t o = r * k + pos;
            memcpy(vals + o * s->es, xd + (r * R + best) * s->es, s->es);
            if (s->idx_type == LG_INT16) ((int16_t *)inds)[o] = (int16_t)best;
            else ((int32_t *)inds)[o] = best;
            key[0] = key[pos];
            idx[0] = idx[pos];
            topk_sift_down(key, idx, pos, 0);
        }
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ table */

const lgk_kernel lgk_reduce_kernels[] = {
    {LG_OP_MEAN, NULL, red_prepare, red_eval},
    {LG_OP_SUM, NULL, red_prepare, red_eval},
    {LG_OP_REDUCE_PROD, NULL, red_prepare, red_eval},
    {LG_OP_REDUCE_MAX, NULL, red_prepare, red_eval},
    {LG_OP_REDUCE_MIN, NULL, red_prepare, red_eval},
    {LG_OP_REDUCE_ANY, NULL, red_prepare, red_eval},
    {LG_OP_REDUCE_ALL, NULL, red_prepare, red_eval},
    {LG_OP_ARG_MAX, NULL, arg_prepare, arg_eval},
    {LG_OP_ARG_MIN, NULL, arg_prepare, arg_eval},
    {LG_OP_TOPK_V2, NULL, topk_prepare, topk_eval},
    {LG_OP_SOFTMAX, NULL, lgk_softmax_prepare, lgk_softmax_eval},
    {LG_OP_LOG_SOFTMAX, NULL, lgk_log_softmax_prepare, lgk_log_softmax_eval},
    {LG_OP_L2_NORMALIZATION, NULL, lgk_l2norm_prepare, lgk_l2norm_eval},
    {LG_OP_LOCAL_RESPONSE_NORMALIZATION, NULL, lgk_lrn_prepare, lgk_lrn_eval},
    {LG_OP_RESIZE_BILINEAR, NULL, lgk_resize_bilinear_prepare, lgk_resize_bilinear_eval},
    {LG_OP_RESIZE_NEAREST_NEIGHBOR, NULL, lgk_resize_nearest_prepare, lgk_resize_nearest_eval},
    {0, NULL, NULL, NULL},
};
