/* `fix` passes for pooling, reductions, subsampling and padding (the resize and POW passes are
 * in fix_resize.c). Each fires only where src/check reports the rule it names.
 *
 *  padv2-maxpool-zero  PADV2 with a constant non-zero pad value (rules.def padv2-nonzero,
 *                     check_ops_shape.c check_padv2_value) of NHWC data padded on H/W only,
 *                     read only by MAX_POOL_2D ops:
 *                     (a) the seed's ZeroPadMaxPool: when the PADV2's input is proven
 *                         non-negative (range.c) and the pad value is <= 0, PAD (zeros) gives
 *                         the same maxima: every window of every pool holds at least one real
 *                         value (checked here), all >= 0 >= the pad value, so max(real, pad) =
 *                         max(real) = max(real, 0). Exact (a -0 maximum may become +0).
 *                     (b) else, when the pad value is -inf and every pool is VALID with the
 *                         PADV2's leading pads equal to those SAME padding gives the pool on the
 *                         unpadded input, and the same output size: the pools read the unpadded
 *                         input with padding SAME. TFLite's max pool ignores the positions SAME
 *                         pads (reference_ops.h MaxPool: the window is clipped, filter_x_start =
 *                         max(0, -in_x_origin)), and a -inf never wins a max over a window that
 *                         holds a real value (SAME pads are < the filter). Exact.
 *                     Neither: left alone, with the reason.
 *  split-multi-axis-reduce  MEAN/SUM of a float tensor over >= 2 axes reducing >= 65536
 *                     elements (rules.def large-multi-axis-reduce, check_ops_reduce.c) -> one
 *                     single-axis reduction per axis, innermost first (x.mean(3).mean(2) of the
 *                     seed), keep_dims as the original (without it the axes go from the last
 *                     to the first so the remaining indices stay valid). A single-axis
 *                     reduction never triggers the rule, however large. The same mean in real
 *                     arithmetic; in fp32 the original's own single fold of >= 65536 values
 *                     rounds differently, so this pass is declared approximate (see its bound).
 *  strided-subsample-pool  x[:, b_h::s_h, b_w::s_w, :] of NHWC float data written as GATHER
 *                     with constant indices (gather-const-indices), GATHER_ND with constant
 *                     indices (op-unsupported) or STRIDED_SLICE with masks
 *                     (strided-slice-masks) -> [SLICE to the first and last element taken,]
 *                     AVERAGE_POOL_2D(filter 1x1, stride s_h x s_w, VALID) [, RESHAPE to the
 *                     original output shape]. The op is recognised by what it computes: run
 *                     on its input's element indices (litegpu's interpreter, fp32: exact up to
 *                     2^24 elements), its output must be exactly the strided subsample, with a
 *                     stride > 1 on H or W. An average of one element is that element: exact.
 *  mirror-pad-edges   MIRROR_PAD SYMMETRIC (rules.def mirror-pad-mode) of rank-3/4 data ->
 *                     per padded axis, single-row SLICEs in the mirrored order and the input,
 *                     joined by CONCATENATION (REVERSE_V2 is not in the classic parser). Pads
 *                     above 8 per side are left alone (one SLICE per padded row). Exact: data
 *                     movement only. TFLite's mirror_pad.cc: SYMMETRIC repeats the edge
 *                     (out[-1-j] = in[j]), REFLECT does not (out[-1-j] = in[j+1]). */
#include <math.h>
#include <stdlib.h>

#include "passes/fix_util.h"

#define MAX_POOLS 16
#define MAX_MIRROR 8
#define ELEMENTS_LARGE 65536 /* check_ops_reduce.c: the Mali NaN extent */

/* padding.h ComputePaddingWithOffset: the leading pad (total / 2, total >= 0). */
static int64_t lead_pad(int64_t s, int64_t in, int64_t k, int64_t out) {
    int64_t total = (out - 1) * s + k - in;
    return total > 0 ? total / 2 : 0;
}

/* ------------------------------------------------------------------ padv2-maxpool-zero */

typedef struct padpool {
    int32_t x, y;
    int64_t pads[8];
    float v;
    uint32_t n_pools;
    uint32_t pools[MAX_POOLS];
} padpool;

/* The constant scalar of t (FLOAT32/FLOAT16), or false. */
static bool const_scalar(const lg_pass_ctx *c, const lg_graph *g, int32_t t, float *v) {
    float *d = NULL;
    bool fp16;
    if (t < 0 || lg_tensor_numel(lgp_tensor(c, t)) != 1 || !lgf_const_floats(c, g, t, &d, &fp16))
        return false;
    *v = d[0];
    free(d);
    return true;
}

static bool parse_padpool(const lg_pass_ctx *c, const lg_graph *g, uint32_t i, padpool *p) {
    const lg_op *op = lgp_op(c, i);
    if (lgp_code(c, i) != LG_OP_PADV2 || op->n_inputs != 3 || op->n_outputs != 1) return false;
    memset(p, 0, sizeof *p);
    p->x = op->inputs[0];
    p->y = op->outputs[0];
    if (!lgf_is_float(c, p->x) || !lgf_static(c, p->x) || lgp_tensor(c, p->x)->rank != 4 ||
        lg_tensor_is_const(c->m, c->sg, p->x))
        return false;
    if (op->inputs[2] < 0 || !lg_tensor_is_const(c->m, c->sg, op->inputs[2]) ||
        !const_scalar(c, g, op->inputs[2], &p->v) || p->v == 0)
        return false; /* the rule: a constant pad value != 0 */
    uint32_t n = 0;
    if (!lgp_const_ints(c, op->inputs[1], p->pads, 8, &n) || n != 8) return false;
    for (int k = 0; k < 8; k++)
        if (p->pads[k] < 0) return false;
    if (p->pads[0] || p->pads[1] || p->pads[6] || p->pads[7]) return false; /* H and W only */
    if (lg_graph_is_output(g, p->y)) return false;
    uint32_t nu = 0;
    const lg_use *u = lg_graph_uses(g, p->y, &nu);
    for (uint32_t k = 0; k < nu; k++) {
        uint32_t q = (uint32_t)u[k].op;
        const lg_op *po = lgp_op(c, q);
        if (lgp_code(c, q) != LG_OP_MAX_POOL_2D || u[k].slot != 0 || !po->opts ||
            po->opts_kind != LG_OPTS_POOL2D_OPTIONS || po->n_outputs != 1 || !lgf_static(c, po->outputs[0]))
            return false;
        if (p->n_pools == 0 || p->pools[p->n_pools - 1] != q) {
            if (p->n_pools == MAX_POOLS) return false;
            p->pools[p->n_pools++] = q;
        }
    }
    return p->n_pools > 0;
}

/* Every window of a pool (filter k, stride s, its own padding) over the padded axis of size
   in touches the real values [lo, lo + len). */
static bool windows_touch(int64_t in, int64_t k, int64_t s, int padding, int64_t out, int64_t lo,
                          int64_t len) {
    int64_t pad = padding == LG_PADDING_SAME ? lead_pad(s, in, k, out) : 0;
    for (int64_t o = 0; o < out; o++) {
        int64_t start = o * s - pad;
        int64_t a = start > 0 ? start : 0, b = start + k < in ? start + k : in;
        if ((a > lo ? a : lo) >= (b < lo + len ? b : lo + len)) return false;
    }
    return true;
}

static bool zero_pad_exact(const lg_pass_ctx *c, const lg_graph *g, const padpool *p) {
    if (!(p->v <= 0) || !lgp_nonneg(c, g, p->x)) return false;
    const lg_tensor *tx = lgp_tensor(c, p->x);
    int64_t h = tx->shape[1], w = tx->shape[2];
    for (uint32_t k = 0; k < p->n_pools; k++) {
        const lg_op *po = lgp_op(c, p->pools[k]);
        const lg_pool2d_options *o = po->opts;
        const lg_tensor *ty = lgp_tensor(c, po->outputs[0]);
        if (ty->rank != 4 || o->stride_h < 1 || o->stride_w < 1 || o->filter_height < 1 || o->filter_width < 1)
            return false;
        if (!windows_touch(h + p->pads[2] + p->pads[3], o->filter_height, o->stride_h, o->padding,
                           ty->shape[1], p->pads[2], h) ||
            !windows_touch(w + p->pads[4] + p->pads[5], o->filter_width, o->stride_w, o->padding,
                           ty->shape[2], p->pads[4], w))
            return false;
    }
    return true;
}

/* One axis: a VALID pool over the padded axis equals a SAME pool over the unpadded one. */
static bool same_axis(int64_t in, int64_t before, int64_t k, int64_t s, int64_t out) {
    int64_t out_same = (in + s - 1) / s;
    return out == out_same && before == lead_pad(s, in, k, out_same);
}

static bool same_pool_exact(const lg_pass_ctx *c, const padpool *p) {
    if (!(isinf(p->v) && p->v < 0)) return false;
    const lg_tensor *tx = lgp_tensor(c, p->x);
    for (uint32_t k = 0; k < p->n_pools; k++) {
        const lg_op *po = lgp_op(c, p->pools[k]);
        const lg_pool2d_options *o = po->opts;
        const lg_tensor *ty = lgp_tensor(c, po->outputs[0]);
        if (o->padding != LG_PADDING_VALID || ty->rank != 4 || o->stride_h < 1 || o->stride_w < 1) return false;
        if (!same_axis(tx->shape[1], p->pads[2], o->filter_height, o->stride_h, ty->shape[1]) ||
            !same_axis(tx->shape[2], p->pads[4], o->filter_width, o->stride_w, ty->shape[2]))
            return false;
    }
    return true;
}

static bool padpool_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    padpool p;
    return parse_padpool(c, g, i, &p);
}

static lg_status padpool_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    padpool p;
    if (!parse_padpool(c, g, i, &p)) return LG_OK;
    if (zero_pad_exact(c, g, &p)) {
        int32_t pads = lgp_op(c, i)->inputs[1];
        LG_TRY(lgf_op(c, LG_OP_PAD, (const int32_t[]){p.x, pads}, 2, &p.y, 1, NULL));
        return lgf_done(c, i);
    }
    if (same_pool_exact(c, &p)) {
        for (uint32_t k = 0; k < p.n_pools; k++) {
            lg_pool2d_options o = *(const lg_pool2d_options *)lgp_op(c, p.pools[k])->opts;
            o.padding = LG_PADDING_SAME;
            LG_TRY(lg_op_set_options(c->m, c->sg, p.pools[k], LG_OPTS_POOL2D_OPTIONS, &o, c->err));
            LG_TRY(lg_op_set_input(c->m, c->sg, p.pools[k], 0, p.x, c->err));
        }
        return lgf_done(c, i);
    }
    lgp_skip(c, "op %u (PADV2 %g before MAX_POOL_2D): the input is not proven non-negative (or a "
             "window holds padding only), and no SAME padding of the pool equals the pad",
             i, (double)p.v);
    return LG_OK;
}

const lg_pass lgp_padv2_maxpool_zero = {
    "padv2-maxpool-zero",
    "PADV2(-inf) before MAX_POOL_2D -> PAD(0) on a non-negative input, or the pool's SAME padding",
    {"padv2-nonzero", NULL},
    true, 0, padpool_match, padpool_apply, false};

/* ------------------------------------------------------------------ split-multi-axis-reduce */

typedef struct reduce {
    int32_t x, y;
    int32_t axes[4];     /* distinct, descending */
    uint32_t n_axes;
    bool keep;
} reduce;

static bool parse_reduce(const lg_pass_ctx *c, uint32_t i, reduce *r) {
    const lg_op *op = lgp_op(c, i);
    int32_t code = lgp_code(c, i);
    if ((code != LG_OP_MEAN && code != LG_OP_SUM) || op->n_inputs != 2 || op->n_outputs != 1) return false;
    memset(r, 0, sizeof *r);
    r->x = op->inputs[0];
    r->y = op->outputs[0];
    if (!lgf_is_float(c, r->x) || !lgf_is_float(c, r->y) || !lgf_static(c, r->x) || op->inputs[1] < 0 ||
        lg_tensor_is_const(c->m, c->sg, r->x) ||
        lgp_tensor(c, op->inputs[1])->type != LG_INT32 || !lg_tensor_is_const(c->m, c->sg, op->inputs[1]))
        return false;
    const lg_tensor *tx = lgp_tensor(c, r->x);
    int64_t ax[16];
    uint32_t n = 0;
    if (tx->rank < 1 || tx->rank > 4 || !lgp_const_ints(c, op->inputs[1], ax, 16, &n)) return false;
    uint32_t seen = 0;
    int64_t extent = 1;
    for (uint32_t k = 0; k < n; k++) {
        int64_t a = ax[k] < 0 ? ax[k] + tx->rank : ax[k];
        if (a < 0 || a >= (int64_t)tx->rank) return false;
        if (seen & (1u << a)) continue;
        seen |= 1u << a;
        extent *= tx->shape[a];
    }
    for (int a = (int)tx->rank - 1; a >= 0; a--)
        if (seen & (1u << a)) r->axes[r->n_axes++] = a;
    r->keep = op->opts && op->opts_kind == LG_OPTS_REDUCER_OPTIONS && ((const lg_reducer_options *)op->opts)->keep_dims;
    return r->n_axes >= 2 && extent >= ELEMENTS_LARGE;
}

static bool reduce_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    reduce r;
    return parse_reduce(c, i, &r);
}

static lg_status reduce_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    reduce r;
    if (!parse_reduce(c, i, &r)) return LG_OK;
    int32_t code = lgp_code(c, i), cur = r.x, shape[4];
    const lg_tensor *tx = lgp_tensor(c, r.x);
    uint32_t rank = tx->rank;
    memcpy(shape, tx->shape, rank * sizeof shape[0]);
    lg_reducer_options ro = {r.keep};
    for (uint32_t k = 0; k < r.n_axes; k++) {
        int32_t a = r.axes[k], axis_t = -1, out = r.y;
        if (r.keep) {
            shape[a] = 1;
        } else {
            memmove(shape + a, shape + a + 1, (rank - (uint32_t)a - 1) * sizeof shape[0]);
            rank--;
        }
        char sfx[32];
        snprintf(sfx, sizeof sfx, "axis%d", a);
        LG_TRY(lgf_const_i32(c, r.y, sfx, &a, 1, &axis_t));
        if (k + 1 < r.n_axes) LG_TRY(lgf_tensor_like(c, r.y, sfx, shape, rank, &out));
        LG_TRY(lgf_op(c, code, (const int32_t[]){cur, axis_t}, 2, &out, 1, &ro));
        cur = out;
    }
    return lgf_done(c, i);
}

/* The bound: the original folds its >= 65536 values in one fp32 sum, whose rounding error
   grows with the extent and is relative to a mean that cancellation can make small; the
   split form folds short rows. Measured against the original on the runner's inputs: 5e-6
   to 1.2e-5 (65536 to 262144 values), 2.3e-4 (1M values, one channel, the pattern input);
   against the mean in double, the split form is the closer one every time (<= 1.4e-6,
   the original up to 1.8e-5: the unit tests check it). 1e-2 leaves room for larger maps
   and still catches a wrong rewrite (an O(1) error). */
const lg_pass lgp_split_multi_axis_reduce = {
    "split-multi-axis-reduce",
    "a MEAN/SUM over several axes of >= 65536 elements -> single-axis reductions, innermost first",
    {"large-multi-axis-reduce", NULL},
    false, 1e-2, reduce_match, reduce_apply, true};

/* ------------------------------------------------------------------ strided-subsample-pool */

typedef struct subsample {
    int32_t x, y;
    int32_t n, h, w, ch;      /* the input */
    int32_t oh, ow, bh, bw, sh, sw;
} subsample;

/* The op is one the checker flags for the rules this pass removes, with a rank-4 float
   runtime input, constant index inputs and a float output. */
static bool subsample_candidate(const lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    int32_t code = lgp_code(c, i);
    if (op->n_inputs < 2 || op->n_outputs != 1 || op->inputs[0] < 0) return false;
    int32_t x = op->inputs[0];
    if (!lgf_is_float(c, x) || !lgf_is_float(c, op->outputs[0]) || !lgf_static(c, x) ||
        !lgf_static(c, op->outputs[0]) || lgp_tensor(c, x)->rank != 4 || lg_tensor_is_const(c->m, c->sg, x))
        return false;
    int64_t nx = lg_tensor_numel(lgp_tensor(c, x));
    if (nx <= 0 || nx > ((int64_t)1 << 24)) return false; /* element indices exact in fp32 */
    for (uint32_t k = 1; k < op->n_inputs; k++)
        if (op->inputs[k] >= 0 && !lg_tensor_is_const(c->m, c->sg, op->inputs[k])) return false;
    if (code == LG_OP_GATHER) {
        /* check_ops_shape.c lgc_rule_gather: 1-D INT32 constant indices, >= 2 of them */
        const lg_tensor *ix = lgp_tensor(c, op->inputs[1]);
        return op->n_inputs == 2 && ix->type == LG_INT32 && ix->rank == 1 && lg_tensor_numel(ix) >= 2;
    }
    if (code == LG_OP_GATHER_ND) return op->n_inputs == 2; /* never delegated */
    if (code == LG_OP_STRIDED_SLICE && op->n_inputs == 4 && op->opts &&
        op->opts_kind == LG_OPTS_STRIDED_SLICE_OPTIONS) {
        const lg_strided_slice_options *o = op->opts;
        return o->ellipsis_mask || o->new_axis_mask || o->shrink_axis_mask;
    }
    return false;
}

/* Fit out = x[:, bh::sh, bw::sw, :][:, :oh, :ow, :] to the element map m (k entries). */
static bool fit_subsample(subsample *s, const float *m, int64_t k) {
    int64_t hw = (int64_t)s->h * s->w, per = (int64_t)s->n * s->ch;
    if (k <= 0 || k % per) return false;
    int64_t t = k / per; /* oh * ow */
    int64_t m0 = (int64_t)m[0];
    if (m0 % s->ch || m0 / s->ch >= hw) return false;
    s->bh = (int32_t)(m0 / s->ch / s->w);
    s->bw = (int32_t)(m0 / s->ch % s->w);
    int64_t ow = 1;
    while (ow < t && (int64_t)m[ow * s->ch] / s->ch / s->w == s->bh && (int64_t)m[ow * s->ch] < (int64_t)s->ch * hw) ow++;
    if (t % ow) return false;
    s->ow = (int32_t)ow;
    s->oh = (int32_t)(t / ow);
    s->sw = ow > 1 ? (int32_t)((int64_t)m[s->ch] / s->ch % s->w) - s->bw : 1;
    s->sh = s->oh > 1 ? (int32_t)((int64_t)m[ow * s->ch] / s->ch / s->w) - s->bh : 1;
    if (s->sh < 1 || s->sw < 1 || (s->sh == 1 && s->sw == 1)) return false;
    if (s->bh + (int64_t)(s->oh - 1) * s->sh >= s->h || s->bw + (int64_t)(s->ow - 1) * s->sw >= s->w) return false;
    int64_t q = 0;
    for (int64_t b = 0; b < s->n; b++)
        for (int64_t y = 0; y < s->oh; y++)
            for (int64_t xx = 0; xx < s->ow; xx++)
                for (int64_t ch = 0; ch < s->ch; ch++, q++) {
                    int64_t want = ((b * s->h + s->bh + y * s->sh) * s->w + s->bw + xx * s->sw) * s->ch + ch;
                    if (m[q] != (float)want) return false;
                }
    return true;
}

static bool parse_subsample(const lg_pass_ctx *c, uint32_t i, subsample *s) {
    if (!subsample_candidate(c, i)) return false;
    const lg_op *op = lgp_op(c, i);
    memset(s, 0, sizeof *s);
    s->x = op->inputs[0];
    s->y = op->outputs[0];
    const lg_tensor *tx = lgp_tensor(c, s->x);
    s->n = tx->shape[0]; s->h = tx->shape[1]; s->w = tx->shape[2]; s->ch = tx->shape[3];
    int64_t nx = lg_tensor_numel(tx), k = 0;
    if (s->n < 1 || s->h < 1 || s->w < 1 || s->ch < 1) return false;
    float *iota = malloc((size_t)nx * sizeof(float)), *m = NULL;
    if (!iota) return false;
    for (int64_t q = 0; q < nx; q++) iota[q] = (float)q;
    bool ok = lgf_eval_op(c, i, 0, iota, &m, &k) && k == lg_tensor_numel(lgp_tensor(c, s->y)) &&
              fit_subsample(s, m, k);
    free(iota);
    free(m);
    return ok;
}

/* Only an op that computes a strided subsample (other constant gathers are not this pass's:
   GATHER -> SLICE/CONCATENATION forms). */
static bool subsample_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    subsample s;
    return parse_subsample(c, i, &s);
}

static lg_status subsample_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    subsample s;
    if (!parse_subsample(c, i, &s)) return LG_OK;
    int32_t cur = s.x;
    /* a 1x1 VALID pool with stride s over n positions gives (n - 1) / s + 1 outputs */
    bool crop_h = s.bh != 0 || (s.h - 1) / s.sh + 1 != s.oh, crop_w = s.bw != 0 || (s.w - 1) / s.sw + 1 != s.ow;
    if (crop_h || crop_w) {
        int32_t hs = crop_h ? (s.oh - 1) * s.sh + 1 : s.h, ws = crop_w ? (s.ow - 1) * s.sw + 1 : s.w;
        int32_t shape[4] = {s.n, hs, ws, s.ch}, begin = -1, size = -1, sl = -1;
        LG_TRY(lgf_const_i32(c, s.y, "ss_begin", (const int32_t[]){0, s.bh, s.bw, 0}, 4, &begin));
        LG_TRY(lgf_const_i32(c, s.y, "ss_size", shape, 4, &size));
        LG_TRY(lgf_tensor_like(c, s.x, "ss_crop", shape, 4, &sl));
        LG_TRY(lgf_op(c, LG_OP_SLICE, (const int32_t[]){cur, begin, size}, 3, &sl, 1, NULL));
        cur = sl;
    }
    const lg_tensor *ty = lgp_tensor(c, s.y);
    int32_t pshape[4] = {s.n, s.oh, s.ow, s.ch}, pooled = s.y;
    bool reshape = ty->rank != 4 || memcmp(ty->shape, pshape, sizeof pshape) != 0;
    if (reshape) LG_TRY(lgf_tensor_like(c, s.x, "ss_pooled", pshape, 4, &pooled));
    lg_pool2d_options po = {LG_PADDING_VALID, s.sw, s.sh, 1, 1, 0};
    LG_TRY(lgf_op(c, LG_OP_AVERAGE_POOL_2D, &cur, 1, &pooled, 1, &po));
    if (reshape) {
        int32_t shp = -1;
        LG_TRY(lgf_const_i32(c, s.y, "ss_shape", ty->shape, ty->rank, &shp));
        LG_TRY(lgf_op(c, LG_OP_RESHAPE, (const int32_t[]){pooled, shp}, 2, &s.y, 1, NULL));
    }
    return lgf_done(c, i);
}

const lg_pass lgp_strided_subsample_pool = {
    "strided-subsample-pool",
    "x[:, ::s, ::s, :] as GATHER/GATHER_ND/STRIDED_SLICE -> AVERAGE_POOL_2D(1x1, stride s)",
    {"gather-const-indices", "op-unsupported", "strided-slice-masks", NULL},
    true, 0, subsample_match, subsample_apply, false};

/* ------------------------------------------------------------------ mirror-pad-edges */

typedef struct mirror {
    int32_t x, y;
    int64_t pads[8];
    uint32_t rank;
    int mode;                 /* 0 REFLECT, 1 SYMMETRIC */
} mirror;

static bool parse_mirror(const lg_pass_ctx *c, uint32_t i, mirror *p) {
    const lg_op *op = lgp_op(c, i);
    if (lgp_code(c, i) != LG_OP_MIRROR_PAD || op->n_inputs != 2 || op->n_outputs != 1) return false;
    memset(p, 0, sizeof *p);
    p->mode = op->opts && op->opts_kind == LG_OPTS_MIRROR_PAD_OPTIONS ? ((const lg_mirror_pad_options *)op->opts)->mode : 0;
    if (p->mode == 0) return false; /* the rule: SYMMETRIC only */
    p->x = op->inputs[0];
    p->y = op->outputs[0];
    if (p->x < 0 || !lgf_static(c, p->x) || !lgf_static(c, p->y) || lg_tensor_is_const(c->m, c->sg, p->x))
        return false;
    const lg_tensor *tx = lgp_tensor(c, p->x);
    if (tx->quant && tx->quant->n_scale > 1) return false;
    p->rank = tx->rank;
    uint32_t n = 0;
    if (p->rank < 3 || p->rank > 4 || !lgp_const_ints(c, op->inputs[1], p->pads, 8, &n) || n != 2 * p->rank)
        return false;
    for (uint32_t k = 0; k < n; k++) /* mirror_pad.cc: pads <= dim (SYMMETRIC), <= dim - 1 (REFLECT) */
        if (p->pads[k] < 0 || p->pads[k] > tx->shape[k / 2] - (p->mode == 0)) return false;
    return true;
}

static bool mirror_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    mirror p;
    return parse_mirror(c, i, &p);
}

/* Row r of axis a of cur (shape): a SLICE. */
static lg_status row_slice(lg_pass_ctx *c, const mirror *p, int32_t cur, const int32_t *shape,
                           uint32_t a, int32_t r, int32_t *out) {
    int32_t begin[4] = {0}, size[4], bt = -1, st = -1;
    memcpy(size, shape, p->rank * sizeof size[0]);
    begin[a] = r;
    size[a] = 1;
    char sfx[32];
    snprintf(sfx, sizeof sfx, "mp%u_row%d", a, r);
    LG_TRY(lgf_const_i32(c, p->y, sfx, begin, p->rank, &bt));
    LG_TRY(lgf_const_i32(c, p->y, "mp_size", size, p->rank, &st));
    LG_TRY(lgf_tensor_like(c, p->x, sfx, size, p->rank, out));
    return lgf_op(c, LG_OP_SLICE, (const int32_t[]){cur, bt, st}, 3, out, 1, NULL);
}

/* Axis a of cur padded: the mirrored rows before, cur, the mirrored rows after, joined into
   out (a new tensor, or the op's output for the last padded axis). */
static lg_status mirror_axis(lg_pass_ctx *c, const mirror *p, int32_t cur, int32_t *shape,
                             uint32_t a, bool last, int32_t *out) {
    int32_t before = (int32_t)p->pads[2 * a], after = (int32_t)p->pads[2 * a + 1], d = shape[a];
    int32_t off = p->mode == 1 ? 0 : 1; /* SYMMETRIC repeats the edge row, REFLECT skips it */
    int32_t parts[2 * MAX_MIRROR + 1], rows[2 * MAX_MIRROR], made[2 * MAX_MIRROR];
    uint32_t np = 0, nm = 0;
    for (int32_t j = 0; j < before + after; j++) {
        /* output row j < before reads row before-1-j (+1 REFLECT), output row before+d+k
           reads row d-1-k (-1 REFLECT): mirror_pad.cc's GetInputDimension */
        int32_t r = j < before ? before - 1 - j + off : d - 1 - (j - before) - off, t = -1;
        for (uint32_t k = 0; k < nm; k++)
            if (rows[k] == r) t = made[k];
        if (t < 0) {
            LG_TRY(row_slice(c, p, cur, shape, a, r, &t));
            rows[nm] = r;
            made[nm++] = t;
        }
        if (j == before) parts[np++] = cur;
        parts[np++] = t;
    }
    if (after == 0) parts[np++] = cur;
    shape[a] = d + before + after;
    if (last) *out = p->y;
    else LG_TRY(lgf_tensor_like(c, p->x, "mirrored", shape, p->rank, out));
    lg_concatenation_options co = {(int32_t)a, 0};
    return lgf_op(c, LG_OP_CONCATENATION, parts, np, out, 1, &co);
}

static lg_status mirror_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    mirror p;
    if (!parse_mirror(c, i, &p)) return LG_OK;
    uint32_t last = 0;
    for (uint32_t a = 0; a < p.rank; a++) {
        if (p.pads[2 * a] > MAX_MIRROR || p.pads[2 * a + 1] > MAX_MIRROR) {
            lgp_skip(c, "op %u (MIRROR_PAD): pads %lld/%lld on axis %u exceed %d per side (one SLICE "
                     "per padded row)", i, (long long)p.pads[2 * a], (long long)p.pads[2 * a + 1], a, MAX_MIRROR);
            return LG_OK;
        }
        if (p.pads[2 * a] || p.pads[2 * a + 1]) last = a + 1;
    }
    if (last == 0) { /* pads nothing: an identity */
        bool done = false;
        LG_TRY(lgp_bypass(c, g, i, p.x, &done));
        if (done) {
            c->delta->applied++;
            c->delta->ops_removed++;
        } else {
            lgp_skip(c, "op %u (MIRROR_PAD): an identity between interface tensors is kept", i);
        }
        return LG_OK;
    }
    const lg_tensor *tx = lgp_tensor(c, p.x);
    int32_t cur = p.x, shape[4];
    memcpy(shape, tx->shape, p.rank * sizeof shape[0]);
    for (uint32_t a = 0; a < last; a++) {
        if (!p.pads[2 * a] && !p.pads[2 * a + 1]) continue;
        int32_t next = -1;
        LG_TRY(mirror_axis(c, &p, cur, shape, a, a + 1 == last, &next));
        cur = next;
    }
    return lgf_done(c, i);
}

const lg_pass lgp_mirror_pad_edges = {
    "mirror-pad-edges",
    "MIRROR_PAD SYMMETRIC -> single-row SLICEs in mirrored order + CONCATENATION (pads <= 8)",
    {"mirror-pad-mode", NULL},
    true, 0, mirror_match, mirror_apply, false};
