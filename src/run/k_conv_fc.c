/* FULLY_CONNECTED and BATCH_MATMUL (the packed GEMM in fp32, the half GEMM in LG_PREC_F16). */
#include <limits.h>

#include "run/k_conv.h"

/* ================================================================== FULLY_CONNECTED */

typedef struct fc_state {
    int64_t batch, in, units;
    lgk_clamp cl;
    float *packed; /* constant weights packed at prepare (fp32) */
} fc_state;

lg_status lgk_fc_prepare(lgk_node *n, lg_error *err) {
    lg_fully_connected_options defaults;
    memset(&defaults, 0, sizeof defaults);
    const lg_fully_connected_options *o = &defaults;
    if (n->opts) {
        if (n->op->opts_kind != LG_OPTS_FULLY_CONNECTED_OPTIONS)
            return lgk_fail(n, LG_ERR_FORMAT, err, "options are not FullyConnectedOptions");
        o = n->opts;
    }
    if (n->n_in < 2 || n->n_in > 3) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 2 or 3 inputs, got %u", n->n_in);
    if (o->weights_format != LG_FULLY_CONNECTED_OPTIONS_WEIGHTS_FORMAT_DEFAULT)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "weights format %d (shuffled int8) is not supported", o->weights_format);
    LG_TRY(lgk_cv_float_in(n, 0, -1, "input", err));
    LG_TRY(lgk_cv_float_in(n, 1, 2, "weights", err));
    LG_TRY(lgk_cv_one_output(n, err));
    const lgk_tensor *x = n->in[0], *w = n->in[1];
    fc_state s;
    memset(&s, 0, sizeof s);
    s.units = w->shape[0];
    s.in = w->shape[1];
    if (s.in == 0) return lgk_fail(n, LG_ERR_FORMAT, err, "weights have 0 input features");
    if (x->numel % s.in != 0)
        return lgk_fail(n, LG_ERR_FORMAT, err, "input has %lld values, not a multiple of the %lld input features",
                        (long long)x->numel, (long long)s.in);
    s.batch = x->numel / s.in;
    LG_TRY(lgk_cv_clamp(n, o->fused_activation_function, &s.cl, err));
    const lgk_tensor *bias;
    LG_TRY(lgk_cv_bias(n, 2, s.units, &bias, err));
    if (s.in > INT_MAX / 8 || s.units > INT_MAX / 8 || s.batch > INT_MAX / 8)
        return lgk_fail(n, LG_ERR_LIMIT, err, "fully connected too large for the GEMM");
    LG_TRY(lgk_fc_set_output(n, x, o->keep_num_dims, s.in, s.batch, s.units, LG_FLOAT32, err));
    if (w->is_const) {
        s.packed = lgk_alloc(n, (size_t)lgk_cv_packed_floats(s.units, s.in) * sizeof(float));
        if (!s.packed) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory packing the weights");
        lgk_cv_pack_b(w->data, s.in, 1, s.units, s.in, s.packed);
    } else {
        n->scratch_bytes = (uint64_t)lgk_cv_packed_floats(s.units, s.in) * sizeof(float);
    }
    fc_state *ps = lgk_alloc(n, sizeof *ps);
    if (!ps) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    *ps = s;
    n->state = ps;
    lgk_claim_half(n); /* LG_PREC_F16: the half GEMM's outputs are halves */
    return LG_OK;
}

lg_status lgk_fc_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const fc_state *s = n->state;
    const float *x = n->in[0]->data, *w = n->in[1]->data;
    const float *bias = n->n_in > 2 && n->in[2] ? n->in[2]->data : NULL;
    float *y = n->out[0]->data;
    if (s->batch == 0 || s->units == 0) return LG_OK;
    const float *bp = s->packed;
    if (!bp) {
        lgk_cv_pack_b(w, s->in, 1, s->units, s->in, n->scratch);
        bp = n->scratch;
    }
    if (n->ctx->prec == LG_PREC_F16 && s->units <= 4) {
        lgk_cv_gemm_hn(s->batch, s->units, s->in, x, s->in, w, y, s->units, bias, s->cl);
        return LG_OK;
    }
    if (n->ctx->prec == LG_PREC_F16) {
        lgk_cv_gemm_hp(s->batch, s->units, s->in, x, s->in, bp, y, s->units, bias, s->cl);
        return LG_OK;
    }
    /* XNNPACK's fully connected arithmetic as LiteRT.js picks it (lgk_cv_use_c4) */
    if (lgk_cv_use_c4(s->units, 1))
        lgk_cv_gemm_c4(s->batch, s->units, s->in, x, s->in, bp, y, s->units, bias, s->cl, s->in);
    else
        lgk_cv_gemm(s->batch, s->units, s->in, x, s->in, bp, y, s->units, bias, s->cl);
    return LG_OK;
}

/* ================================================================== BATCH_MATMUL */

#define BMM_MAX_BATCH_DIMS 3

typedef struct bmm_state {
    int64_t m, k, n;                      /* per batch: [m,k] x [k,n] after adjoints */
    int adj_x, adj_y;
    int nbd;                              /* batch dims of the output */
    int64_t bshape[BMM_MAX_BATCH_DIMS];
    int64_t lstride[BMM_MAX_BATCH_DIMS];  /* in matrices; 0 where broadcast */
    int64_t rstride[BMM_MAX_BATCH_DIMS];
    int64_t nbatch;
} bmm_state;

lg_status lgk_bmm_prepare(lgk_node *n, lg_error *err) {
    lg_batch_mat_mul_options defaults;
    memset(&defaults, 0, sizeof defaults);
    const lg_batch_mat_mul_options *o = &defaults;
    if (n->opts) {
        if (n->op->opts_kind != LG_OPTS_BATCH_MAT_MUL_OPTIONS)
            return lgk_fail(n, LG_ERR_FORMAT, err, "options are not BatchMatMulOptions");
        o = n->opts;
    }
    if (n->n_in != 2) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 2 inputs, got %u", n->n_in);
    LG_TRY(lgk_cv_float_in(n, 0, -1, "lhs", err));
    LG_TRY(lgk_cv_float_in(n, 1, -1, "rhs", err));
    LG_TRY(lgk_cv_one_output(n, err));
    const lgk_tensor *l = n->in[0], *r = n->in[1];
    if (l->rank < 2 || l->rank > 5 || r->rank < 2 || r->rank > 5)
        return lgk_fail(n, LG_ERR_FORMAT, err, "operand ranks %u and %u must be 2..5", l->rank, r->rank);
    bmm_state s;
    memset(&s, 0, sizeof s);
    s.adj_x = o->adj_x;
    s.adj_y = o->adj_y;
    int64_t lr = l->shape[l->rank - 2], lc = l->shape[l->rank - 1];
    int64_t rr = r->shape[r->rank - 2], rc = r->shape[r->rank - 1];
    s.m = s.adj_x ? lc : lr;
    s.k = s.adj_x ? lr : lc;
    int64_t rk = s.adj_y ? rc : rr;
    s.n = s.adj_y ? rr : rc;
    if (rk != s.k)
        return lgk_fail(n, LG_ERR_FORMAT, err, "inner dimensions differ: lhs %lld, rhs %lld", (long long)s.k, (long long)rk);
    uint32_t orank = l->rank > r->rank ? l->rank : r->rank;
    s.nbd = (int)orank - 2;
    int32_t shp[5];
    int64_t ls = s.m * s.k, rs = s.k * s.n;   /* running strides, innermost batch dim first */
    s.nbatch = 1;
    for (int i = s.nbd - 1; i >= 0; i--) {
        int li = i - (int)(orank - l->rank), ri = i - (int)(orank - r->rank);
        int64_t ld = li >= 0 ? l->shape[li] : 1, rd = ri >= 0 ? r->shape[ri] : 1;
        if (ld != rd && ld != 1 && rd != 1)
            return lgk_fail(n, LG_ERR_FORMAT, err, "batch dimensions %lld and %lld do not broadcast", (long long)ld, (long long)rd);
        int64_t od = ld == 1 ? rd : ld;
        s.bshape[i] = od;
        s.lstride[i] = ld == 1 ? 0 : ls;
        s.rstride[i] = rd == 1 ? 0 : rs;
        ls *= ld;
        rs *= rd;
        shp[i] = (int32_t)od;
        s.nbatch *= od;
    }
    shp[orank - 2] = (int32_t)s.m;
    shp[orank - 1] = (int32_t)s.n;
    if (s.m > INT_MAX / 8 || s.n > INT_MAX / 8 || s.k > INT_MAX / 8)
        return lgk_fail(n, LG_ERR_LIMIT, err, "matrices too large for the GEMM");
    LG_TRY(lgk_set_output(n, 0, LG_FLOAT32, shp, orank, err));
    /* half: B as [k][pad8(n)]; fp32: B packed, and lhs transposed when adj_x */
    if (n->ctx->prec == LG_PREC_F16)
        n->scratch_bytes = (uint64_t)s.k * (uint64_t)lgk_cv_pad8(s.n) * sizeof(float);
    else
        n->scratch_bytes = ((uint64_t)lgk_cv_packed_floats(s.n, s.k) + (s.adj_x ? (uint64_t)s.m * (uint64_t)s.k : 0)) *
                           sizeof(float);
    bmm_state *ps = lgk_alloc(n, sizeof *ps);
    if (!ps) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    *ps = s;
    n->state = ps;
    return LG_OK;
}

lg_status lgk_bmm_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const bmm_state *s = n->state;
    const float *lhs = n->in[0]->data, *rhs = n->in[1]->data;
    float *out = n->out[0]->data;
    const int half = n->ctx->prec == LG_PREC_F16;
    const int64_t np = lgk_cv_pad8(s->n);
    const lgk_clamp none = {-INFINITY, INFINITY, 0};
    if (s->m == 0 || s->n == 0) return LG_OK;
    const float *packed_for = NULL;
    for (int64_t bi = 0; bi < s->nbatch; bi++) {
        int64_t lo = 0, ro = 0, rem = bi;
        for (int i = s->nbd - 1; i >= 0; i--) {
            int64_t d = rem % s->bshape[i];
            rem /= s->bshape[i];
            lo += d * s->lstride[i];
            ro += d * s->rstride[i];
        }
        const float *a = lhs + lo, *b = rhs + ro;
        float *c = out + bi * s->m * s->n;
        if (s->k == 0) {
            memset(c, 0, (size_t)(s->m * s->n) * sizeof(float));
            continue;
        }
        if (half) {
            float *bp = n->scratch;
            if (packed_for != b) { /* B(k, j) as [k][np], zero padded */
                for (int64_t k = 0; k < s->k; k++) {
                    float *row = bp + k * np;
                    for (int64_t j = 0; j < s->n; j++) row[j] = s->adj_y ? b[j * s->k + k] : b[k * s->n + j];
                    for (int64_t j = s->n; j < np; j++) row[j] = 0;
                }
                packed_for = b;
            }
            lgk_cv_gemm_h(s->m, s->n, s->k, a, s->adj_x ? 1 : s->k, s->adj_x ? s->m : 1, bp, np, c, s->n, NULL, none);
        } else {
            float *bp = n->scratch, *at = bp + lgk_cv_packed_floats(s->n, s->k);
            if (packed_for != b) { /* W(j, k) = B(k, j) */
                if (s->adj_y) lgk_cv_pack_b(b, s->k, 1, s->n, s->k, bp);
                else lgk_cv_pack_b(b, 1, s->n, s->n, s->k, bp);
                packed_for = b;
            }
            if (s->adj_x) { /* A(i, k) = lhs[k*m + i] */
                for (int64_t i = 0; i < s->m; i++)
                    for (int64_t k = 0; k < s->k; k++) at[i * s->k + k] = a[k * s->m + i];
                a = at;
            }
            lgk_cv_gemm(s->m, s->n, s->k, a, s->k, bp, c, s->n, NULL, none);
        }
    }
    return LG_OK;
}
