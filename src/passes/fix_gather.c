/* Two small exact rewrites of the detectors in src/check/check_ops_shape.c:
 *
 *  gather-flatten-indices  GATHER with runtime INT32 indices of rank >= 2 (op-params: the
 *                          delegates take 1-D indices only, gpu_compatibility.cc case GATHER):
 *                          RESHAPE the indices to [n], GATHER, RESHAPE the result to
 *                          x[:axis] + indices.shape + x[axis+1:] (TFLite's gather.cc output
 *                          shape). Only the layout of the indices changes: bit-exact. An
 *                          embedding lookup of ids [B, T] is this case.
 *  padv2-const-border      PADV2 with a constant pad value c != 0 (padv2-nonzero, Mali):
 *                          PAD (zeros) then ADD a constant of the output shape holding c at the
 *                          padded positions and 0 inside. Inside x + 0 = x (only -0 becomes +0),
 *                          on the border 0 + c = c, also for c = -inf: exact. A max pool over a
 *                          -inf pad on an input proven non-negative is padv2-maxpool-zero's case
 *                          (it runs first); this one needs no proof. The constant costs the
 *                          output's size: refused above 4 MiB.
 */
#include <math.h>
#include <stdlib.h>

#include "passes/fix_util.h"

#define BORDER_MAX_BYTES ((uint64_t)4 << 20)

/* ------------------------------------------------------------------ gather-flatten-indices */

static bool gf_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    if (lgp_code(c, i) != LG_OP_GATHER) return false;
    const lg_op *op = lgp_op(c, i);
    if (op->n_inputs != 2 || op->n_outputs != 1 || op->inputs[0] < 0 || op->inputs[1] < 0) return false;
    const lg_tensor *ix = lgp_tensor(c, op->inputs[1]), *y = lgp_tensor(c, op->outputs[0]);
    if (ix->type != LG_INT32 || ix->rank < 2 || lg_tensor_is_const(c->m, c->sg, op->inputs[1])) return false;
    if (ix->quant || y->rank > 4 || !lgf_static(c, op->inputs[1]) || !lgf_static(c, op->outputs[0])) return false;
    const lg_gather_options *o = op->opts_kind == LG_OPTS_GATHER_OPTIONS ? op->opts : NULL;
    return !o || o->batch_dims == 0;
}

static lg_status gf_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    const lg_op *op = lgp_op(c, i);
    int32_t x = op->inputs[0], ix = op->inputs[1], y = op->outputs[0];
    const lg_tensor *xt = lgp_tensor(c, x), *it = lgp_tensor(c, ix);
    lg_gather_options o = {0, 0};
    if (op->opts_kind == LG_OPTS_GATHER_OPTIONS && op->opts) o = *(const lg_gather_options *)op->opts;
    int32_t axis = o.axis < 0 ? o.axis + (int32_t)xt->rank : o.axis;
    int32_t n = 1;
    for (uint32_t d = 0; d < it->rank; d++) n *= it->shape[d];
    if (axis < 0 || (uint32_t)axis >= xt->rank || xt->rank > 4) {
        lgp_skip(c, "op %u (GATHER): axis %d of a rank-%u tensor", i, o.axis, xt->rank);
        return LG_OK;
    }
    int32_t flat = -1, gathered = -1, shape[LG_MAX_RANK], r = 0;
    LG_TRY(lgf_tensor(c, ix, "flat", LG_INT32, &n, 1, &flat));
    int32_t rs_shape = -1;
    LG_TRY(lgf_const_i32(c, ix, "flat_shape", &n, 1, &rs_shape));
    LG_TRY(lgf_op(c, LG_OP_RESHAPE, (const int32_t[]){ix, rs_shape}, 2, &flat, 1, NULL));
    for (int32_t d = 0; d < (int32_t)xt->rank; d++) shape[r++] = d == axis ? n : xt->shape[d];
    xt = lgp_tensor(c, x);
    LG_TRY(lgf_tensor_like(c, y, "flat_gather", shape, (uint32_t)r, &gathered));
    o.axis = axis;
    LG_TRY(lgf_op(c, LG_OP_GATHER, (const int32_t[]){x, flat}, 2, &gathered, 1, &o));
    const lg_tensor *yt = lgp_tensor(c, y);
    int32_t oshape = -1;
    LG_TRY(lgf_const_i32(c, y, "shape", yt->shape, yt->rank, &oshape));
    LG_TRY(lgf_op(c, LG_OP_RESHAPE, (const int32_t[]){gathered, oshape}, 2, &y, 1, NULL));
    return lgf_done(c, i);
}

const lg_pass lgp_gather_flatten_indices = {
    "gather-flatten-indices", "GATHER with runtime indices of rank >= 2 -> RESHAPE to 1-D, GATHER, RESHAPE back",
    {"op-params", NULL}, true, 0, gf_match, gf_apply, false};

/* ------------------------------------------------------------------ padv2-const-border */

static bool pc_value(const lg_pass_ctx *c, const lg_graph *g, int32_t t, float *v) {
    float *d = NULL;
    bool fp16 = false;
    if (!lgf_const_floats(c, g, t, &d, &fp16)) return false;
    bool ok = lg_tensor_numel(lgp_tensor(c, t)) == 1;
    if (ok) *v = d[0];
    free(d);
    return ok;
}

static bool pc_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    if (lgp_code(c, i) != LG_OP_PADV2) return false;
    const lg_op *op = lgp_op(c, i);
    if (op->n_inputs != 3 || op->n_outputs != 1 || op->inputs[0] < 0 || op->inputs[2] < 0) return false;
    float v = 0;
    if (!pc_value(c, g, op->inputs[2], &v) || v == 0 || isnan(v)) return false;
    if (!lgf_is_float(c, op->inputs[0]) || !lgf_static(c, op->outputs[0])) return false;
    int64_t pads[2 * LG_MAX_RANK];
    uint32_t np = 0;
    return lgp_const_ints(c, op->inputs[1], pads, 2 * LG_MAX_RANK, &np) && np == 2 * lgp_tensor(c, op->inputs[0])->rank;
}

static lg_status pc_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    int32_t x = op->inputs[0], pv = op->inputs[1], y = op->outputs[0];
    float v = 0;
    if (!pc_value(c, g, op->inputs[2], &v)) return LG_OK;
    int64_t pads[2 * LG_MAX_RANK];
    uint32_t np = 0;
    if (!lgp_const_ints(c, pv, pads, 2 * LG_MAX_RANK, &np)) return LG_OK;
    const lg_tensor *yt = lgp_tensor(c, y), *xt = lgp_tensor(c, x);
    int64_t n = lg_tensor_numel(yt);
    if ((uint64_t)n * sizeof(float) > BORDER_MAX_BYTES) {
        lgp_skip(c, "op %u (PADV2): the border constant would be %lld values (at most 4 MiB)", i, (long long)n);
        return LG_OK;
    }
    float *b = malloc((size_t)(n ? n : 1) * sizeof *b);
    if (!b) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory for a border constant");
    /* c where any coordinate is in a pad, 0 inside (row-major over the output shape) */
    uint32_t rank = yt->rank;
    int64_t idx[LG_MAX_RANK] = {0};
    for (int64_t e = 0; e < n; e++) {
        bool inside = true;
        for (uint32_t d = 0; d < rank && inside; d++)
            inside = idx[d] >= pads[2 * d] && idx[d] < pads[2 * d] + xt->shape[d];
        b[e] = inside ? 0.0f : v;
        for (int32_t d = (int32_t)rank - 1; d >= 0; d--) {
            if (++idx[d] < yt->shape[d]) break;
            idx[d] = 0;
        }
    }
    int32_t border = -1, zp = -1, shape[LG_MAX_RANK];
    for (uint32_t d = 0; d < rank; d++) shape[d] = yt->shape[d];
    lg_status st = lgf_const(c, y, "pad_border", LG_FLOAT32, shape, rank, b, (uint64_t)n * sizeof *b, &border);
    free(b);
    LG_TRY(st);
    LG_TRY(lgf_tensor_like(c, y, "zero_padded", shape, rank, &zp));
    LG_TRY(lgf_op(c, LG_OP_PAD, (const int32_t[]){x, pv}, 2, &zp, 1, NULL));
    lg_add_options ao;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    LG_TRY(lgf_op(c, LG_OP_ADD, (const int32_t[]){zp, border}, 2, &y, 1, &ao));
    return lgf_done(c, i);
}

const lg_pass lgp_padv2_const_border = {
    "padv2-const-border", "PADV2 with a constant value c != 0 -> PAD(0) + ADD of a constant holding c on the border",
    {"padv2-nonzero", NULL}, true, 0, pc_match, pc_apply, false};
