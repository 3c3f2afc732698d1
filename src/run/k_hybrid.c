/* The hybrid kernels (k_hybrid.h): float activations, INT8 constant weights. The rules and
 * their sources are in k_hybrid.h; the code follows them line by line. */
#include <limits.h>

#include "run/k_conv.h"
#include "run/k_hybrid.h"

/* ------------------------------------------------------------------ input quantizers */

static void minmax(const float *x, int64_t n, float *lo, float *hi) {
    /* std::minmax_element over the group (n >= 1) */
    float a = x[0], b = x[0];
    for (int64_t i = 1; i < n; i++) {
        if (x[i] < a) a = x[i];
        if (!(x[i] < b)) b = x[i]; /* minmax_element keeps the last largest; the value is the same */
    }
    *lo = a;
    *hi = b;
}

static int32_t clampi(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* portable_tensor_utils.cc PortableSymmetricQuantizeFloats */
void lgh_quantize_sym(const float *x, int64_t n, int8_t *q, float *scale) {
    float lo = 0, hi = 0;
    if (n > 0) minmax(x, n, &lo, &hi);
    const float range = fmaxf(fabsf(lo), fabsf(hi));
    if (range == 0) {
        memset(q, 0, (size_t)n);
        *scale = 1;
        return;
    }
    *scale = range / 127.0f;
    const float inv = 127.0f / range;
    for (int64_t i = 0; i < n; i++) q[i] = (int8_t)clampi((int32_t)roundf(x[i] * inv), -127, 127);
}

/* portable_tensor_utils.cc PortableAsymmetricQuantizeFloats (the parameters in double, the
   values in float) */
void lgh_quantize_asym(const float *x, int64_t n, int8_t *q, float *scale, int32_t *zp) {
    float lo = 0, hi = 0;
    if (n > 0) minmax(x, n, &lo, &hi);
    const double qmin = -128.0, qmax = 127.0;
    const double rmin = (double)fminf(0.0f, lo), rmax = (double)fmaxf(0.0f, hi);
    if (rmin == rmax) {
        memset(q, 0, (size_t)n);
        *scale = 1;
        *zp = 0;
        return;
    }
    const double s = (rmax - rmin) / (qmax - qmin);
    const double zp_min = qmin - rmin / s, zp_max = qmax - rmax / s;
    const double err_min = fabs(qmin) + fabs(rmin / s), err_max = fabs(qmax) + fabs(rmax / s);
    const double zpd = err_min < err_max ? zp_min : zp_max;
    int32_t z;
    if (zpd <= qmin) z = -128;
    else if (zpd >= qmax) z = 127;
    else z = (int32_t)(int8_t)round(zpd);
    *scale = (float)s;
    *zp = z;
    const float inv = 1.0f / *scale;
    for (int64_t i = 0; i < n; i++) q[i] = (int8_t)clampi((int32_t)roundf((float)z + x[i] * inv), -128, 127);
}

/* XNNPACK src/xnnpack/quantization.h xnn_qd8_asymmetric_quantization_params and
   xnn_f32_qd8_asymmetric_quantization_params (all float), src/operator-run.c
   xnn_compute_f32_qx8_convert, src/f32-qs8-vcvt/gen/f32-qs8-vcvt-wasmsimd-magic-u32.c */
void lgh_quantize_xnn(const float *x, int64_t n, int8_t *q, float *scale, int32_t *zp) {
    float lo = INFINITY, hi = -INFINITY;
    if (n > 0) minmax(x, n, &lo, &hi);
    const float qmin = -128.0f, qmax = 127.0f;
    const float rmin = lo < 0.0f ? lo : 0.0f, rmax = hi > 0.0f ? hi : 0.0f; /* math_min_f32 / max */
    const float inv = rmin == rmax ? 1.0f : (qmax - qmin) / (rmax - rmin);
    const float dmin = rmin * inv, dmax = rmax * inv;
    float z = (qmin + dmin) + (qmax + dmax) > 0 ? qmin - dmin : qmax - dmax;
    z = z > qmin ? z : qmin;
    z = z < qmax ? z : qmax;
    const int32_t zi = (int32_t)(int8_t)lrintf(z);
    *zp = zi;
    *scale = 1.0f / inv;
    for (int64_t i = 0; i < n; i++) {
        /* x * inv + magic bias 1.5 * 2^23 rounds to the nearest integer, ties to even */
        const float v = rintf(x[i] * inv);
        q[i] = (int8_t)clampi((int32_t)v + zi, -128, 127);
    }
}

/* ------------------------------------------------------------------ state */

enum { HK_CONV, HK_DW, HK_FC, HK_BMM, HK_LOOKUP };
enum { HQ_SYM, HQ_ASYM, HQ_XNN };
/* The output formulas (k_hybrid.h), acc the int32 sum, s the input scale, ws the channel's
   weight scale, b the bias (0 when absent unless said):
   HE_A  b + float(acc) * (s * ws)
   HE_B  float(acc) * ws * s (+ b only when there is a bias)
   HE_C  float(acc) * s * ws + b */
enum { HE_A, HE_B, HE_C };

typedef struct hyb {
    int kind, qmode, epi;
    int act;                  /* FULLY_CONNECTED: ApplyActivationToVector's activation */
    int any_act;              /* act applied with lgk_act (else the clamp cl) */
    lgk_clamp cl;
    int has_bias;
    int float_offset;         /* TFLite BATCH_MATMUL: row_sum * zp subtracted in float */
    int zero_skip;            /* TFLite FULLY_CONNECTED: an all-zero input gives act(bias) */
    int per_pixel;            /* CONV_2D quantized per input pixel (XNNPACK's pointwise form) */
    float *ws;                /* weight scale per output channel */
    int32_t *row_sums;        /* matrix products: per (weight batch, output) the sum of its weights */
    const int8_t *wp;         /* weights as the loops read them (BATCH_MATMUL: [bw][n][k]) */
    int64_t n_groups, group;  /* input quantization: n_groups groups of `group` values */
    int64_t nb, ih, iw, ic, oh, ow, oc, fh, fw, fic, sh, sw, dh, dw, ph, pw, dm;
    int64_t m, k, nn, batches, w_batches; /* y[b][i][j] = sum_k x[b][i][k] * w[b % w_batches][j][k] */
    int adj_x;                /* BATCH_MATMUL: x stored [b][k][m] */
    int64_t tab_rows, inner;  /* EMBEDDING_LOOKUP */
    /* scratch layout (bytes from n->scratch) */
    size_t off_xt, off_q, off_c, off_s, off_z, off_acc;
} hyb;

typedef struct hrun {
    const hyb *h;
    const int8_t *q;          /* quantized input, groups in order */
    const int16_t *qc;        /* convolutions: q - zp of its image */
    const float *s;           /* per group: scale */
    const int32_t *z;         /* per group: zero point */
    int32_t *acc;             /* DEPTHWISE_CONV_2D accumulators, [out pixels][oc] */
    const float *bias;
    float *y;
} hrun;

static inline float h_act(const hyb *h, float y) {
    if (h->any_act) return lgk_act(h->act, y);
    if (!h->cl.on) return y;
    y = y < h->cl.lo ? h->cl.lo : y;
    return y > h->cl.hi ? h->cl.hi : y;
}

static inline float h_out(const hyb *h, int32_t acc, float s, int64_t c, const float *bias) {
    const float b = bias ? bias[c] : 0.0f;
    float y;
    switch (h->epi) {
    case HE_A: y = b + (float)acc * (s * h->ws[c]); break;
    case HE_B:
        y = (float)acc * h->ws[c] * s;
        if (bias) y += b;
        break;
    default: y = (float)acc * s * h->ws[c] + b; break;
    }
    return h_act(h, y);
}

static void quantize_group(int qmode, const float *x, int64_t n, int8_t *q, float *s, int32_t *z) {
    if (qmode == HQ_SYM) {
        lgh_quantize_sym(x, n, q, s);
        *z = 0;
    } else if (qmode == HQ_ASYM) {
        lgh_quantize_asym(x, n, q, s, z);
    } else {
        lgh_quantize_xnn(x, n, q, s, z);
    }
}

/* ------------------------------------------------------------------ weights */

/* The INT8 weights of input 1: constant, symmetric (zero points 0), one scale or one per
   output channel along `axis` (count channels); fills h->ws. */
static lg_status h_weights(lgk_node *n, hyb *h, int axis, int64_t count, int per_tensor_only, lg_error *err) {
    const lgk_tensor *w = n->in[1];
    const lg_quant *q = w->ir ? w->ir->quant : NULL;
    if (!w->data || !w->is_const)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "INT8 weights (tensor %d) must be constant for the hybrid kernel",
                        w->index);
    if (!q || !q->n_scale || !q->scale)
        return lgk_fail(n, LG_ERR_FORMAT, err, "INT8 weights (tensor %d) have no quantization scale", w->index);
    if (q->details_kind != LG_OPTS_NONE)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "INT8 weights (tensor %d) use custom or blockwise quantization",
                        w->index);
    for (uint32_t i = 0; q->zero_point && i < q->n_zero_point; i++)
        if (q->zero_point[i] != 0)
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "INT8 weights (tensor %d) with zero point %lld: TFLite's hybrid "
                            "kernels take symmetric weights only", w->index, (long long)q->zero_point[i]);
    if (q->n_scale > 1) {
        if (per_tensor_only)
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "INT8 weights (tensor %d) with %u scales: only per-tensor weights "
                            "are supported here", w->index, q->n_scale);
        if ((int64_t)q->n_scale != count || q->quantized_dimension != axis)
            return lgk_fail(n, LG_ERR_FORMAT, err, "INT8 weights (tensor %d) have %u scales on dimension %d; expected %lld "
                            "on dimension %d", w->index, q->n_scale, q->quantized_dimension, (long long)count, axis);
    }
    h->ws = lgk_alloc(n, (size_t)(count ? count : 1) * sizeof(float));
    if (!h->ws) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    for (int64_t c = 0; c < count; c++) {
        const float s = q->n_scale > 1 ? q->scale[c] : q->scale[0];
        if (!(s >= 0) || !isfinite(s))
            return lgk_fail(n, LG_ERR_FORMAT, err, "weight scale %g of channel %lld is not a finite non-negative number",
                            (double)s, (long long)c);
        h->ws[c] = s;
    }
    h->wp = w->data;
    return LG_OK;
}

/* Per (weight batch, output j): the sum of the K weights of w laid out [bw][nn][k]. */
static lg_status h_row_sums(lgk_node *n, hyb *h, lg_error *err) {
    const int64_t rows = h->w_batches * h->nn;
    h->row_sums = lgk_alloc(n, (size_t)(rows ? rows : 1) * sizeof(int32_t));
    if (!h->row_sums) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    for (int64_t r = 0; r < rows; r++) {
        int32_t s = 0;
        for (int64_t k = 0; k < h->k; k++) s += h->wp[r * h->k + k];
        h->row_sums[r] = s;
    }
    return LG_OK;
}

/* Scratch: [x transposed (BATCH_MATMUL adj_x)] [q] [q - zp (convolutions)] [scales] [zps]
   [depthwise accumulators]. */
static void h_scratch(lgk_node *n, hyb *h, int64_t in_numel, int need_xt, int need_c, int64_t acc_numel) {
    size_t off = 0;
#define H_ALIGN(x) (((x) + 15u) & ~(size_t)15u)
    h->off_xt = off;
    if (need_xt) off = H_ALIGN(off + (size_t)in_numel * sizeof(float));
    h->off_q = off;
    off = H_ALIGN(off + (size_t)in_numel);
    h->off_c = off;
    if (need_c) off = H_ALIGN(off + (size_t)in_numel * sizeof(int16_t));
    h->off_s = off;
    off = H_ALIGN(off + (size_t)(h->n_groups + 1) * sizeof(float));
    h->off_z = off;
    off = H_ALIGN(off + (size_t)(h->n_groups + 1) * sizeof(int32_t));
    h->off_acc = off;
    off = H_ALIGN(off + (size_t)acc_numel * sizeof(int32_t));
#undef H_ALIGN
    n->scratch_bytes = off;
}

static lg_status h_state(lgk_node *n, const hyb *h, lg_error *err) {
    hyb *p = lgk_alloc(n, sizeof *p);
    if (!p) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    *p = *h;
    n->state = p;
    return LG_OK;
}

/* ------------------------------------------------------------------ FULLY_CONNECTED */

static lg_status fc_prepare(lgk_node *n, lg_error *err) {
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
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "weights format %d (shuffled) is not supported", o->weights_format);
    LG_TRY(lgk_cv_float_in(n, 0, -1, "input", err));
    LG_TRY(lgk_cv_one_output(n, err));
    const lgk_tensor *x = n->in[0], *w = n->in[1];
    if (w->rank != 2) return lgk_fail(n, LG_ERR_FORMAT, err, "INT8 weights must be rank 2, not %u", w->rank);
    hyb h;
    memset(&h, 0, sizeof h);
    h.kind = HK_FC;
    h.nn = w->shape[0];
    h.k = w->shape[1];
    if (h.k < 1 || x->numel % h.k != 0)
        return lgk_fail(n, LG_ERR_FORMAT, err, "input has %lld values, not a multiple of the %lld input features",
                        (long long)x->numel, (long long)h.k);
    h.m = x->numel / h.k;
    h.batches = 1;
    h.w_batches = 1;
    LG_TRY(h_weights(n, &h, 0, h.nn, 0, err));
    const lgk_tensor *bias;
    LG_TRY(lgk_cv_bias(n, 2, h.nn, &bias, err));
    h.has_bias = bias != NULL;
    const int act = o->fused_activation_function;
    if (act < LG_ACTIVATION_FUNCTION_TYPE_NONE || act > LG_ACTIVATION_FUNCTION_TYPE_SIGN_BIT)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "unknown fused activation %d", act);
    /* XNNPACK takes the op only with an output range (ConvertActivationToOutputRange) */
    const int xnn = n->ctx->int_arith == LG_INT_XNNPACK && act != LG_ACTIVATION_FUNCTION_TYPE_TANH &&
                    act != LG_ACTIVATION_FUNCTION_TYPE_SIGN_BIT;
    h.act = act;
    h.any_act = 1;
    h.qmode = xnn ? HQ_XNN : o->asymmetric_quantize_inputs ? HQ_ASYM : HQ_SYM;
    h.epi = xnn ? HE_C : HE_A;
    h.zero_skip = !xnn;
    h.n_groups = h.m;
    h.group = h.k;
    LG_TRY(h_row_sums(n, &h, err));
    LG_TRY(lgk_fc_set_output(n, x, o->keep_num_dims, h.k, h.m, h.nn, LG_FLOAT32, err));
    h_scratch(n, &h, x->numel, 0, 0, 0);
    return h_state(n, &h, err);
}

/* ------------------------------------------------------------------ BATCH_MATMUL */

/* batch_matmul.cc: lhs [.., M, K] (adj_x: [.., K, M]) float, rhs [.., K, N] (adj_y:
   [.., N, K]) constant INT8 per tensor; batch dims equal or a rank-2 rhs. The constant rhs is
   laid out [bw][N][K] once here. */
static lg_status bmm_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in != 2) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 2 inputs, got %u", n->n_in);
    const lg_batch_mat_mul_options *o = n->op->opts_kind == LG_OPTS_BATCH_MAT_MUL_OPTIONS ? n->opts : NULL;
    const int adj_y = o && o->adj_y;
    LG_TRY(lgk_cv_float_in(n, 0, -1, "lhs", err));
    LG_TRY(lgk_cv_one_output(n, err));
    const lgk_tensor *x = n->in[0], *w = n->in[1];
    if (x->rank < 2 || w->rank < 2) return lgk_fail(n, LG_ERR_FORMAT, err, "inputs must have rank 2 or more");
    hyb h;
    memset(&h, 0, sizeof h);
    h.kind = HK_BMM;
    h.adj_x = o && o->adj_x;
    const int64_t xr = x->shape[x->rank - 2], xc = x->shape[x->rank - 1];
    const int64_t wr = w->shape[w->rank - 2], wc = w->shape[w->rank - 1];
    h.m = h.adj_x ? xc : xr;
    h.k = h.adj_x ? xr : xc;
    const int64_t k2 = adj_y ? wc : wr;
    h.nn = adj_y ? wr : wc;
    if (k2 != h.k)
        return lgk_fail(n, LG_ERR_FORMAT, err, "inner dimensions %lld and %lld differ", (long long)h.k, (long long)k2);
    if (x->rank != w->rank && w->rank != 2)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "batch broadcasting between ranks %u and %u is not supported", x->rank,
                        w->rank);
    for (uint32_t d = 0; x->rank == w->rank && d + 2 < x->rank; d++)
        if (x->shape[d] != w->shape[d])
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "broadcast batch dimensions are not supported");
    const int64_t mk = xr * xc, kn = wr * wc;
    h.batches = mk > 0 ? x->numel / mk : 0;
    h.w_batches = kn > 0 ? w->numel / kn : 0;
    if (h.w_batches != 1 && h.w_batches != h.batches)
        return lgk_fail(n, LG_ERR_FORMAT, err, "rhs has %lld matrices for %lld lhs matrices", (long long)h.w_batches,
                        (long long)h.batches);
    LG_TRY(h_weights(n, &h, adj_y ? (int)w->rank - 2 : (int)w->rank - 1, h.nn, 1, err));
    /* [bw][N][K] */
    int8_t *t = lgk_alloc(n, (size_t)(w->numel ? w->numel : 1));
    if (!t) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    const int8_t *src = w->data;
    for (int64_t b = 0; b < h.w_batches; b++)
        for (int64_t j = 0; j < h.nn; j++)
            for (int64_t k = 0; k < h.k; k++)
                t[(b * h.nn + j) * h.k + k] = src[b * kn + (adj_y ? j * h.k + k : k * h.nn + j)];
    h.wp = t;
    LG_TRY(h_row_sums(n, &h, err));
    const int xnn = n->ctx->int_arith == LG_INT_XNNPACK;
    h.qmode = xnn ? HQ_XNN : o && o->asymmetric_quantize_inputs ? HQ_ASYM : HQ_SYM;
    h.epi = xnn ? HE_C : HE_A;
    h.float_offset = !xnn;
    h.n_groups = h.batches * h.m;
    h.group = h.k;
    int32_t shp[LG_MAX_RANK];
    memcpy(shp, x->shape, x->rank * sizeof(int32_t));
    shp[x->rank - 2] = (int32_t)h.m;
    shp[x->rank - 1] = (int32_t)h.nn;
    LG_TRY(lgk_set_output(n, 0, LG_FLOAT32, shp, x->rank, err));
    h_scratch(n, &h, x->numel, h.adj_x, 0, 0);
    return h_state(n, &h, err);
}

/* One task: row i of batch b, outputs [j0, j1). */
static void mm_task(const hrun *r, int64_t b, int64_t i, int64_t j0, int64_t j1) {
    const hyb *h = r->h;
    const int64_t g = b * h->m + i;
    const int8_t *xq = r->q + g * h->k;
    const int64_t bw = h->w_batches == 1 ? 0 : b;
    const float s = r->s[g];
    const int32_t z = r->z[g];
    float *y = r->y + g * h->nn;
    for (int64_t j = j0; j < j1; j++) {
        const int8_t *wq = h->wp + (bw * h->nn + j) * h->k;
        int32_t dot = 0;
        for (int64_t k = 0; k < h->k; k++) dot += (int32_t)wq[k] * (int32_t)xq[k];
        const int32_t rs = h->row_sums[bw * h->nn + j];
        int32_t acc;
        if (h->float_offset) {
            /* batch_matmul.h: total -= row_sum * batch_offset, with batch_offset a float */
            float f = (float)dot - (float)rs * (float)z;
            f = f > 2147483520.0f ? 2147483520.0f : f < -2147483648.0f ? -2147483648.0f : f;
            acc = (int32_t)f;
        } else {
            acc = (int32_t)((uint32_t)dot - (uint32_t)rs * (uint32_t)z); /* int32 arithmetic, wrapping */
        }
        y[j] = h_out(h, acc, s, j, r->bias);
    }
}

#define MM_BLOCK 64

static void mm_range(void *ud, int64_t t0, int64_t t1) {
    const hrun *r = ud;
    const hyb *h = r->h;
    const int64_t nblk = (h->nn + MM_BLOCK - 1) / MM_BLOCK;
    for (int64_t t = t0; t < t1; t++) {
        const int64_t row = t / nblk, blk = t % nblk;
        const int64_t j0 = blk * MM_BLOCK, j1 = j0 + MM_BLOCK < h->nn ? j0 + MM_BLOCK : h->nn;
        mm_task(r, row / h->m, row % h->m, j0, j1);
    }
}

/* ------------------------------------------------------------------ CONV_2D, DEPTHWISE_CONV_2D */

static lg_status conv_geometry(lgk_node *n, hyb *h, int padding, int sw, int sh, int dw, int dh, lg_error *err) {
    const lgk_tensor *x = n->in[0], *w = n->in[1];
    if (x->rank != 4 || w->rank != 4)
        return lgk_fail(n, LG_ERR_FORMAT, err, "input and weights must be rank 4 (got %u and %u)", x->rank, w->rank);
    if (sw < 1 || sh < 1 || dw < 1 || dh < 1)
        return lgk_fail(n, LG_ERR_FORMAT, err, "stride %dx%d and dilation %dx%d must be >= 1", sh, sw, dh, dw);
    if (padding != LG_PADDING_SAME && padding != LG_PADDING_VALID)
        return lgk_fail(n, LG_ERR_FORMAT, err, "unknown padding %d", padding);
    h->nb = x->shape[0]; h->ih = x->shape[1]; h->iw = x->shape[2]; h->ic = x->shape[3];
    h->fh = w->shape[1]; h->fw = w->shape[2];
    h->sh = sh; h->sw = sw; h->dh = dh; h->dw = dw;
    h->oh = lgk_cv_out_size(padding, h->ih, h->fh, sh, dh);
    h->ow = lgk_cv_out_size(padding, h->iw, h->fw, sw, dw);
    if (h->oh < 0) h->oh = 0;
    if (h->ow < 0) h->ow = 0;
    h->ph = lgk_cv_pad(sh, dh, h->ih, h->fh, h->oh);
    h->pw = lgk_cv_pad(sw, dw, h->iw, h->fw, h->ow);
    h->n_groups = h->nb;
    h->group = h->nb ? x->numel / h->nb : 0;
    return LG_OK;
}

static lg_status conv_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in < 2 || n->n_in > 3) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 2 or 3 inputs, got %u", n->n_in);
    lg_status st;
    const lg_conv2d_options *o = lgk_cv_opts(n, LG_OPTS_CONV2D_OPTIONS, "Conv2DOptions", err, &st);
    if (!o) return st;
    LG_TRY(lgk_cv_float_in(n, 0, 4, "input", err));
    LG_TRY(lgk_cv_one_output(n, err));
    hyb h;
    memset(&h, 0, sizeof h);
    h.kind = HK_CONV;
    LG_TRY(conv_geometry(n, &h, o->padding, o->stride_w, o->stride_h, o->dilation_w_factor, o->dilation_h_factor, err));
    const lgk_tensor *w = n->in[1];
    h.oc = w->shape[0];
    h.fic = w->shape[3];
    if (h.fic < 1 || h.ic % h.fic != 0 || h.oc % (h.ic / h.fic) != 0)
        return lgk_fail(n, LG_ERR_FORMAT, err, "weights depth %lld does not divide input depth %lld into groups of "
                        "output channels %lld", (long long)h.fic, (long long)h.ic, (long long)h.oc);
    LG_TRY(h_weights(n, &h, 0, h.oc, 0, err));
    const lgk_tensor *bias;
    LG_TRY(lgk_cv_bias(n, 2, h.oc, &bias, err));
    h.has_bias = bias != NULL;
    LG_TRY(lgk_cv_clamp(n, o->fused_activation_function, &h.cl, err));
    /* conv.cc Prepare: the per-channel kernel when the scales differ (or for grouped
       convolutions); XNNPACK refuses a CONV_2D without bias, which then runs TFLite's kernel */
    const lg_quant *q = w->ir->quant;
    int differ = 0;
    for (uint32_t c = 1; c < q->n_scale; c++)
        if (q->scale[c] != q->scale[0]) differ = 1;
    const int per_channel = differ || h.ic / h.fic != 1;
    if (n->ctx->int_arith == LG_INT_XNNPACK && bias) {
        h.qmode = HQ_XNN;
        h.epi = HE_C;
        /* src/subgraph/convolution-2d.c xnn_define_convolution_2d: a 1x1 convolution, one
           group, unit stride (no padding then) with in + out channels > 2 becomes a fully
           connected op, and its qdint8 input is quantized per channel row (pixel), "not
           per-batch" (num_nonbatch_dims = 1) */
        if (h.ic == h.fic && h.fh == 1 && h.fw == 1 && h.sh == 1 && h.sw == 1 && h.fic + h.oc > 2) {
            h.per_pixel = 1;
            h.n_groups = h.nb * h.ih * h.iw;
            h.group = h.ic;
        }
    } else {
        h.qmode = per_channel ? HQ_ASYM : HQ_SYM;
        h.epi = per_channel ? HE_B : HE_A;
    }
    int32_t shp[4] = {(int32_t)h.nb, (int32_t)h.oh, (int32_t)h.ow, (int32_t)h.oc};
    LG_TRY(lgk_set_output(n, 0, LG_FLOAT32, shp, 4, err));
    h_scratch(n, &h, n->in[0]->numel, 0, 1, 0);
    return h_state(n, &h, err);
}

static lg_status dw_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in < 2 || n->n_in > 3) return lgk_fail(n, LG_ERR_FORMAT, err, "expected 2 or 3 inputs, got %u", n->n_in);
    lg_status st;
    const lg_depthwise_conv2d_options *o =
        lgk_cv_opts(n, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, "DepthwiseConv2DOptions", err, &st);
    if (!o) return st;
    LG_TRY(lgk_cv_float_in(n, 0, 4, "input", err));
    LG_TRY(lgk_cv_one_output(n, err));
    hyb h;
    memset(&h, 0, sizeof h);
    h.kind = HK_DW;
    LG_TRY(conv_geometry(n, &h, o->padding, o->stride_w, o->stride_h, o->dilation_w_factor, o->dilation_h_factor, err));
    const lgk_tensor *w = n->in[1];
    h.oc = w->shape[3];
    if (w->shape[0] != 1 || h.ic < 1 || h.oc % h.ic != 0)
        return lgk_fail(n, LG_ERR_FORMAT, err, "weights [%d,H,W,%lld] do not fit input depth %lld", (int)w->shape[0],
                        (long long)h.oc, (long long)h.ic);
    h.dm = h.oc / h.ic; /* TFLite derives the multiplier from the shapes */
    LG_TRY(h_weights(n, &h, 3, h.oc, 0, err));
    const lgk_tensor *bias;
    LG_TRY(lgk_cv_bias(n, 2, h.oc, &bias, err));
    h.has_bias = bias != NULL;
    LG_TRY(lgk_cv_clamp(n, o->fused_activation_function, &h.cl, err));
    h.qmode = HQ_ASYM;
    h.epi = n->ctx->int_arith == LG_INT_XNNPACK ? HE_C : HE_A;
    int32_t shp[4] = {(int32_t)h.nb, (int32_t)h.oh, (int32_t)h.ow, (int32_t)h.oc};
    LG_TRY(lgk_set_output(n, 0, LG_FLOAT32, shp, 4, err));
    h_scratch(n, &h, n->in[0]->numel, 0, 1, h.nb * h.oh * h.ow * h.oc);
    return h_state(n, &h, err);
}

/* One output row (image b, output y) of a convolution. */
static void conv_row(const hrun *r, int64_t row) {
    const hyb *h = r->h;
    const int64_t b = row / h->oh, oy = row % h->oh;
    const int64_t iy0 = oy * h->sh - h->ph;
    const int64_t per_group = h->oc / (h->ic / h->fic);
    for (int64_t ox = 0; ox < h->ow; ox++) {
        const int64_t ix0 = ox * h->sw - h->pw;
        const int64_t pix = (b * h->oh + oy) * h->ow + ox; /* per_pixel: the input pixel too */
        const float s = h->per_pixel ? r->s[pix] : r->s[b];
        float *y = r->y + pix * h->oc;
        for (int64_t c = 0; c < h->oc; c++) {
            const int64_t g = c / per_group;
            int32_t acc = 0;
            for (int64_t fy = 0; fy < h->fh; fy++) {
                const int64_t iy = iy0 + h->dh * fy;
                if (iy < 0 || iy >= h->ih) continue;
                for (int64_t fx = 0; fx < h->fw; fx++) {
                    const int64_t ix = ix0 + h->dw * fx;
                    if (ix < 0 || ix >= h->iw) continue; /* padding: a real 0 (q = zp) */
                    const int16_t *xp = r->qc + ((b * h->ih + iy) * h->iw + ix) * h->ic + g * h->fic;
                    const int8_t *wp = h->wp + ((c * h->fh + fy) * h->fw + fx) * h->fic;
                    int32_t sum = 0;
                    for (int64_t k = 0; k < h->fic; k++) sum += (int32_t)wp[k] * (int32_t)xp[k];
                    acc += sum;
                }
            }
            y[c] = h_out(h, acc, s, c, r->bias);
        }
    }
}

static void dw_row(const hrun *r, int64_t row) {
    const hyb *h = r->h;
    const int64_t b = row / h->oh, oy = row % h->oh;
    const int64_t iy0 = oy * h->sh - h->ph;
    const float s = r->s[b];
    for (int64_t ox = 0; ox < h->ow; ox++) {
        const int64_t ix0 = ox * h->sw - h->pw;
        const int64_t o = ((b * h->oh + oy) * h->ow + ox) * h->oc;
        int32_t *acc = r->acc + o;
        memset(acc, 0, (size_t)h->oc * sizeof *acc);
        for (int64_t fy = 0; fy < h->fh; fy++) {
            const int64_t iy = iy0 + h->dh * fy;
            if (iy < 0 || iy >= h->ih) continue;
            for (int64_t fx = 0; fx < h->fw; fx++) {
                const int64_t ix = ix0 + h->dw * fx;
                if (ix < 0 || ix >= h->iw) continue;
                const int16_t *xp = r->qc + ((b * h->ih + iy) * h->iw + ix) * h->ic;
                const int8_t *wp = h->wp + (fy * h->fw + fx) * h->oc;
                if (h->dm == 1) {
                    for (int64_t c = 0; c < h->oc; c++) acc[c] += (int32_t)wp[c] * (int32_t)xp[c];
                } else {
                    for (int64_t c = 0; c < h->oc; c++) acc[c] += (int32_t)wp[c] * (int32_t)xp[c / h->dm];
                }
            }
        }
        float *y = r->y + o;
        for (int64_t c = 0; c < h->oc; c++) y[c] = h_out(h, acc[c], s, c, r->bias);
    }
}

static void conv_range(void *ud, int64_t r0, int64_t r1) {
    const hrun *r = ud;
    for (int64_t i = r0; i < r1; i++) {
        if (r->h->kind == HK_DW) dw_row(r, i);
        else conv_row(r, i);
    }
}

/* ------------------------------------------------------------------ EMBEDDING_LOOKUP */

/* embedding_lookup.cc: lookups INT32 [L], an INT8 table [R, ...] with one scale or one per
   row (quantized dimension 0), zero point 0; output float [L, ...] = q * scale. */
static lg_status lookup_prepare(lgk_node *n, lg_error *err) {
    if (n->n_in != 2 || n->n_out != 1 || !n->in[0] || !n->out[0])
        return lgk_fail(n, LG_ERR_FORMAT, err, "expected 2 inputs and 1 output");
    const lgk_tensor *ids = n->in[0], *tab = n->in[1];
    if (ids->type != LG_INT32 || ids->rank != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "lookups must be an INT32 vector");
    if (tab->rank < 2) return lgk_fail(n, LG_ERR_FORMAT, err, "the table must have rank 2 or more, not %u", tab->rank);
    hyb h;
    memset(&h, 0, sizeof h);
    h.kind = HK_LOOKUP;
    h.tab_rows = tab->shape[0];
    h.inner = h.tab_rows ? tab->numel / h.tab_rows : 0;
    const lg_quant *q = tab->ir->quant;
    if (!q || !q->n_scale || !q->scale)
        return lgk_fail(n, LG_ERR_FORMAT, err, "the INT8 table (tensor %d) has no quantization scale", tab->index);
    for (uint32_t i = 0; q->zero_point && i < q->n_zero_point; i++)
        if (q->zero_point[i] != 0)
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "the INT8 table (tensor %d) has zero point %lld: embedding_lookup.cc "
                            "takes symmetric tables only", tab->index, (long long)q->zero_point[i]);
    if (q->n_scale > 1 && ((int64_t)q->n_scale != h.tab_rows || q->quantized_dimension != 0))
        return lgk_fail(n, LG_ERR_FORMAT, err, "the INT8 table has %u scales on dimension %d; per-row tables need %lld on "
                        "dimension 0", q->n_scale, q->quantized_dimension, (long long)h.tab_rows);
    h.ws = lgk_alloc(n, (size_t)(h.tab_rows ? h.tab_rows : 1) * sizeof(float));
    if (!h.ws) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    for (int64_t i = 0; i < h.tab_rows; i++) h.ws[i] = q->n_scale > 1 ? q->scale[i] : q->scale[0];
    int32_t shp[LG_MAX_RANK];
    memcpy(shp, tab->shape, tab->rank * sizeof(int32_t));
    shp[0] = ids->shape[0];
    LG_TRY(lgk_set_output(n, 0, LG_FLOAT32, shp, tab->rank, err));
    return h_state(n, &h, err);
}

static lg_status lookup_eval(lgk_node *n, lg_error *err) {
    const hyb *h = n->state;
    const lgk_tensor *ids = n->in[0];
    const int32_t *id = ids->data;
    const int8_t *tab = n->in[1]->data;
    float *y = n->out[0]->data;
    for (int64_t i = 0; i < ids->numel; i++) {
        const int32_t r = id[i];
        if (r < 0 || r >= h->tab_rows)
            return lgk_fail(n, LG_ERR_INVALID_ARG, err, "lookup %d (position %lld) is out of range [0, %lld)", (int)r,
                            (long long)i, (long long)h->tab_rows);
        const float s = h->ws[r];
        for (int64_t j = 0; j < h->inner; j++) y[i * h->inner + j] = (float)tab[(int64_t)r * h->inner + j] * s;
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ eval */

static lg_status hybrid_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const hyb *h = n->state;
    const lgk_tensor *x = n->in[0];
    uint8_t *sc = n->scratch;
    hrun r;
    memset(&r, 0, sizeof r);
    r.h = h;
    r.y = n->out[0]->data;
    r.bias = n->n_in > 2 && n->in[2] ? n->in[2]->data : NULL;
    int8_t *q = (int8_t *)(sc + h->off_q);
    float *s = (float *)(void *)(sc + h->off_s);
    int32_t *z = (int32_t *)(void *)(sc + h->off_z);
    const float *xf = x->data;
    if (h->kind == HK_BMM && h->adj_x) { /* the logical [b][m][k] rows, contiguous */
        float *xt = (float *)(void *)(sc + h->off_xt);
        for (int64_t b = 0; b < h->batches; b++)
            for (int64_t i = 0; i < h->m; i++)
                for (int64_t k = 0; k < h->k; k++) xt[(b * h->m + i) * h->k + k] = xf[(b * h->k + k) * h->m + i];
        xf = xt;
    }
    const int64_t out_numel = n->out[0]->numel;
    if (out_numel == 0) return LG_OK;
    if (h->zero_skip) { /* fully_connected.cc: IsZeroVector(input) -> act(bias) */
        int64_t i = 0;
        while (i < x->numel && xf[i] == 0.0f) i++;
        if (i == x->numel) {
            for (int64_t g = 0; g < h->m; g++)
                for (int64_t j = 0; j < h->nn; j++) r.y[g * h->nn + j] = h_act(h, r.bias ? r.bias[j] : 0.0f);
            return LG_OK;
        }
    }
    for (int64_t g = 0; g < h->n_groups; g++)
        quantize_group(h->qmode, xf + g * h->group, h->group, q + g * h->group, &s[g], &z[g]);
    r.q = q;
    r.s = s;
    r.z = z;
    if (h->kind == HK_CONV || h->kind == HK_DW) {
        int16_t *qc = (int16_t *)(void *)(sc + h->off_c);
        for (int64_t g = 0; g < h->n_groups; g++)
            for (int64_t i = 0; i < h->group; i++) qc[g * h->group + i] = (int16_t)(q[g * h->group + i] - z[g]);
        r.qc = qc;
        r.acc = (int32_t *)(void *)(sc + h->off_acc);
        lgk_parallel_for(n->ctx, h->nb * h->oh, 1, conv_range, &r);
        return LG_OK;
    }
    const int64_t nblk = (h->nn + MM_BLOCK - 1) / MM_BLOCK;
    lgk_parallel_for(n->ctx, h->batches * h->m * nblk, 1, mm_range, &r);
    return LG_OK;
}

/* ------------------------------------------------------------------ dispatch */

static const lgk_kernel hybrid_kernels[] = {
    {LG_OP_FULLY_CONNECTED, NULL, fc_prepare, hybrid_eval},
    {LG_OP_CONV_2D, NULL, conv_prepare, hybrid_eval},
    {LG_OP_DEPTHWISE_CONV_2D, NULL, dw_prepare, hybrid_eval},
    {LG_OP_BATCH_MATMUL, NULL, bmm_prepare, hybrid_eval},
    {LG_OP_EMBEDDING_LOOKUP, NULL, lookup_prepare, lookup_eval},
    {0, NULL, NULL, NULL},
};

static int is_float(const lgk_tensor *t) { return t && t->ir && lgk_storage_type(t->ir->type) == LG_FLOAT32; }

const lgk_kernel *lgk_hybrid_find(const lgk_node *n) {
    if (n->n_in < 2 || !n->in[1] || n->in[1]->type != LG_INT8) return NULL;
    switch (n->code) {
    case LG_OP_FULLY_CONNECTED: case LG_OP_CONV_2D: case LG_OP_DEPTHWISE_CONV_2D: case LG_OP_BATCH_MATMUL:
        if (!is_float(n->in[0])) return NULL;
        break;
    case LG_OP_EMBEDDING_LOOKUP:
        if (n->n_out < 1 || !is_float(n->out[0])) return NULL;
        break;
    default: return NULL;
    }
    for (const lgk_kernel *e = hybrid_kernels; e->eval; e++)
        if (e->code == n->code) return e;
    return NULL;
}
