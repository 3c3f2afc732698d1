/* Shape family: PAD, PADV2 and MIRROR_PAD.
 *
 * Both walk the output row by row. Trailing dims without padding are folded into the row's
 * element unit (U elements), so a row is: left pad, one memcpy of the input row, right pad.
 * The padded output is written once (no fill-then-overwrite). */
#include "run/k_shape.h"

typedef struct pad_state {
    uint32_t rank;                 /* working dims 0..rank-1; the last is the row */
    uint32_t es;
    int64_t unit;                  /* bytes of one row element (U elements folded in) */
    int64_t in_dim[LG_MAX_RANK], out_dim[LG_MAX_RANK], before[LG_MAX_RANK], after[LG_MAX_RANK];
    int64_t in_stride[LG_MAX_RANK]; /* byte strides of the working input dims */
    uint8_t value[8];              /* PAD: the pad element */
    int value_input;               /* PADV2: read the pad element from input 2 at eval */
    int32_t *map[LG_MAX_RANK];     /* MIRROR_PAD: input index of each output index per dim */
} pad_state;

static const void *opts_of(const lgk_node *n, lg_opts_kind kind) {
    return n->op->opts_kind == kind ? n->opts : NULL;
}

/* Read the paddings input ([rank, 2] constant), set the output shape and the working dims. */
static lg_status pad_setup(lgk_node *n, pad_state **out_s, lg_error *err) {
    const lgk_tensor *in = n->in[0], *pt = n->in[1];
    LG_TRY(lgks_out_like(n, 0, in, err));
    if (pt->rank != 2 || pt->shape[0] != (int32_t)in->rank || pt->shape[1] != 2)
        return lgk_fail(n, LG_ERR_FORMAT, err, "paddings must have shape [%u, 2]", in->rank);
    int64_t p[2 * LG_MAX_RANK];
    uint32_t cnt = 0;
    LG_TRY(lgk_const_ints(n, 1, p, 2 * LG_MAX_RANK, &cnt, err));
    pad_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    n->state = s;
    s->es = lgk_elem_size(in->type);
    int32_t out[LG_MAX_RANK];
    int last = -1;
    for (uint32_t d = 0; d < in->rank; d++) {
        if (p[2 * d] < 0 || p[2 * d + 1] < 0)
            return lgk_fail(n, LG_ERR_FORMAT, err, "paddings of dim %u are negative (%lld, %lld)", d, (long long)p[2 * d],
                            (long long)p[2 * d + 1]);
        int64_t v = (int64_t)in->shape[d] + p[2 * d] + p[2 * d + 1];
        if (p[2 * d] > INT32_MAX || p[2 * d + 1] > INT32_MAX || v > INT32_MAX)
            return lgk_fail(n, LG_ERR_LIMIT, err, "output dim %u is too large", d);
        out[d] = (int32_t)v;
        if (p[2 * d] || p[2 * d + 1]) last = (int)d;
    }
    /* fold dims after the last padded one into the unit */
    int64_t unit = 1;
    for (uint32_t d = (uint32_t)(last + 1); d < in->rank; d++) unit *= in->shape[d];
    s->unit = unit * s->es;
    if (last < 0) {
        s->rank = 1; /* no padding: one row of one unit (the whole tensor) */
        s->in_dim[0] = s->out_dim[0] = 1;
        s->in_stride[0] = s->unit;
    } else {
        s->rank = (uint32_t)last + 1;
        int64_t st = s->unit;
        for (int d = last; d >= 0; d--) {
            s->in_dim[d] = in->shape[d];
            s->out_dim[d] = out[d];
            s->before[d] = p[2 * d];
            s->after[d] = p[2 * d + 1];
            s->in_stride[d] = st;
            st *= in->shape[d];
        }
    }
    *out_s = s;
    return lgk_set_output(n, 0, in->type, out, in->rank, err);
}

/* TFLite's params.scale / params.zero_point: the first scale and zero point, 0 without any */
static void first_quant(const lgk_tensor *t, float *scale, int64_t *zp) {
    const lg_quant *q = t->ir ? t->ir->quant : NULL;
    *scale = q && q->n_scale && q->scale ? q->scale[0] : 0.0f;
    *zp = q && q->n_zero_point && q->zero_point ? q->zero_point[0] : 0;
}

lg_status lgks_pad_prepare(lgk_node *n, lg_error *err) {
    int v2 = n->code == LG_OP_PADV2;
    LG_TRY(lgks_counts(n, 2, v2 ? 3 : 2, 1, 1, err));
    pad_state *s;
    LG_TRY(pad_setup(n, &s, err));
    const lgk_tensor *in = n->in[0];
    const lgk_tensor *cv = v2 && n->n_in > 2 ? n->in[2] : NULL;
    if (cv) {
        if (cv->numel != 1)
            return lgk_fail(n, LG_ERR_FORMAT, err, "constant_values must hold one value, not %lld", (long long)cv->numel);
        if (cv->type != in->type)
            return lgk_fail(n, LG_ERR_FORMAT, err, "constant_values is %s but the input is %s", lg_dtype_name(cv->ir->type),
                            lg_dtype_name(in->ir->type));
        /* pad.cc EvalInt: a quantized PADV2 (uint8 always, int8 / int16 with quantization)
           pads with the raw constant, which must share the output's scale and zero point */
        const int quantized = in->type == LG_UINT8 || ((in->type == LG_INT8 || in->type == LG_INT16) &&
                                                       in->ir->quant && in->ir->quant->n_scale);
        float cs, os;
        int64_t cz, oz;
        first_quant(cv, &cs, &cz);
        first_quant(n->out[0], &os, &oz);
        if (quantized && (cs != os || cz != oz))
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                            "constant_values (tensor %d: scale %g, zero point %lld) must share the output's "
                            "quantization (scale %g, zero point %lld), as TFLite requires", cv->index, (double)cs,
                            (long long)cz, (double)os, (long long)oz);
        s->value_input = 1;
    } else if (in->type == LG_INT8 || in->type == LG_UINT8 || in->type == LG_INT16) {
        /* quantized: TFLite pads with the output's zero point */
        const lg_quant *q = n->out[0]->ir->quant;
        int64_t zp = q && q->n_zero_point && q->zero_point ? q->zero_point[0] : 0;
        if (in->type == LG_INT8) { int8_t v = (int8_t)zp; memcpy(s->value, &v, 1); }
        else if (in->type == LG_UINT8) { uint8_t v = (uint8_t)zp; memcpy(s->value, &v, 1); }
        else { int16_t v = (int16_t)zp; memcpy(s->value, &v, 2); }
    }
    return LG_OK;
}

/* Fill `units` units with the pad element (zero: one memset). */
static inline void pad_units(uint8_t *dst, int64_t units, const pad_state *s, const uint8_t *val, int zero) {
    if (units <= 0) return;
    if (zero) memset(dst, 0, (size_t)(units * s->unit));
    else lgks_fill(dst, units * (s->unit / s->es), val, s->es);
}

lg_status lgks_pad_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const pad_state *s = n->state;
    lgk_tensor *out = n->out[0];
    if (out->numel == 0) return LG_OK;
    const uint8_t *val = s->value_input ? (const uint8_t *)n->in[2]->data : s->value;
    int zero = 1;
    for (uint32_t b = 0; b < s->es; b++) zero &= val[b] == 0;
    const uint8_t *src = n->in[0]->data;
    uint8_t *dst = out->data;
    const uint32_t r = s->rank, L = r - 1;
    const int64_t row_out = s->out_dim[L] * s->unit;
    const int64_t left = s->before[L] * s->unit, mid = s->in_dim[L] * s->unit;
    int64_t idx[LG_MAX_RANK] = {0};
    int64_t rows = 1;
    for (uint32_t d = 0; d < L; d++) rows *= s->out_dim[d];
    for (int64_t row = 0; row < rows; row++) {
        int inside = 1;
        for (uint32_t d = 0; d < L && inside; d++) inside = idx[d] >= s->before[d] && idx[d] < s->before[d] + s->in_dim[d];
        if (!inside) {
            pad_units(dst, s->out_dim[L], s, val, zero);
        } else {
            pad_units(dst, s->before[L], s, val, zero);
            if (mid) memcpy(dst + left, src, (size_t)mid);
            src += mid;
            pad_units(dst + left + mid, s->after[L], s, val, zero);
        }
        dst += row_out;
        for (int d = (int)L - 1; d >= 0; d--) {
            if (++idx[d] < s->out_dim[d]) break;
            idx[d] = 0;
        }
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ MIRROR_PAD */

lg_status lgks_mirror_pad_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 2, 2, 1, 1, err));
    pad_state *s;
    LG_TRY(pad_setup(n, &s, err));
    const lg_mirror_pad_options *o = opts_of(n, LG_OPTS_MIRROR_PAD_OPTIONS);
    int mode = o ? o->mode : LG_MIRROR_PAD_MODE_REFLECT;
    if (mode != LG_MIRROR_PAD_MODE_REFLECT && mode != LG_MIRROR_PAD_MODE_SYMMETRIC)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "mirror pad mode %d", mode);
    const int64_t off = mode == LG_MIRROR_PAD_MODE_REFLECT ? 1 : 0;
    for (uint32_t d = 0; d < s->rank; d++) {
        int64_t dim = s->in_dim[d], lim = dim - off;
        if (s->before[d] > lim || s->after[d] > lim)
            return lgk_fail(n, LG_ERR_FORMAT, err, "paddings (%lld, %lld) of dim %u exceed %lld for %s mode of a dim of %lld",
                            (long long)s->before[d], (long long)s->after[d], d, (long long)(lim < 0 ? 0 : lim),
                            off ? "REFLECT" : "SYMMETRIC", (long long)dim);
        int32_t *m = lgk_alloc(n, (size_t)(s->out_dim[d] ? s->out_dim[d] : 1) * sizeof(int32_t));
        if (!m) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
        /* TFLite's GetInputDimension */
        for (int64_t p = 0; p < s->out_dim[d]; p++) {
            int64_t q;
            if (p < s->before[d]) {
                q = s->before[d] + off - 1 - p;
            } else if (p - s->before[d] < dim) {
                q = p - s->before[d];
            } else {
                q = dim - 1 - off - (p - s->before[d] - dim);
            }
            m[p] = (int32_t)q;
        }
        s->map[d] = m;
    }
    return LG_OK;
}

lg_status lgks_mirror_pad_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const pad_state *s = n->state;
    lgk_tensor *out = n->out[0];
    if (out->numel == 0) return LG_OK;
    const uint8_t *src = n->in[0]->data;
    uint8_t *dst = out->data;
    const uint32_t r = s->rank, L = r - 1;
    const int64_t u = s->unit, nb = s->before[L], na = s->after[L], dim = s->in_dim[L];
    const int32_t *ml = s->map[L];
    int64_t idx[LG_MAX_RANK] = {0};
    int64_t rows = 1;
    for (uint32_t d = 0; d < L; d++) rows *= s->out_dim[d];
    for (int64_t row = 0; row < rows; row++) {
        int64_t so = 0;
        for (uint32_t d = 0; d < L; d++) so += (int64_t)s->map[d][idx[d]] * s->in_stride[d];
        const uint8_t *sr = src + so;
        for (int64_t j = 0; j < nb; j++) memcpy(dst + j * u, sr + (int64_t)ml[j] * u, (size_t)u);
        memcpy(dst + nb * u, sr, (size_t)(dim * u));
        for (int64_t j = 0; j < na; j++) memcpy(dst + (nb + dim + j) * u, sr + (int64_t)ml[nb + dim + j] * u, (size_t)u);
        dst += (nb + dim + na) * u;
        for (int d = (int)L - 1; d >= 0; d--) {
            if (++idx[d] < s->out_dim[d]) break;
            idx[d] = 0;
        }
    }
    return LG_OK;
}
