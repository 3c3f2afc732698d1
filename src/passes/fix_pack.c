/* `fix` passes for the shape ops a delegate refuses (issue #11):
 *
 *  squeeze-to-reshape  SQUEEZE / EXPAND_DIMS -> RESHAPE with a constant shape. Rule
 *                      op-unsupported: neither delegate's parser has them (check_tables.c).
 *  pack-unpack-split   PACK -> a RESHAPE per input (the new unit dim) + CONCATENATION;
 *                      SPLIT / SPLIT_V -> one SLICE per output. Rule field-banned-op: both
 *                      delegates' parsers take them, but the seed's field notes saw PACK and
 *                      SPLIT keep models off the Pixel 8a's GPU (Parakeet: "SPLIT banned").
 *                      UNPACK is not rewritten: it is in both parsers and no rule fires on it
 *                      (not field-banned, no per-op rule), so the pass would only add ops.
 *  broadcast-to-tile   BROADCAST_TO -> nothing when every consumer is a broadcasting binary
 *                      op that computes the same output from the unbroadcast operand, else
 *                      RESHAPE (the leading unit dims) + TILE. Rule op-unsupported.
 *
 * All exact: the rewrites move the same values (RESHAPE, CONCATENATION, SLICE and TILE
 * copy; a binary op's own broadcasting reads the same element a broadcast tensor holds). */
#include <stdlib.h>

#include "passes/fix_emit.h"

/* ================================================================== squeeze-to-reshape */

static bool squeeze_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    int32_t code = lgp_code(c, i);
    const lg_op *op = lgp_op(c, i);
    if ((code != LG_OP_SQUEEZE && code != LG_OP_EXPAND_DIMS) || op->n_inputs < 1 || op->n_outputs != 1 ||
        op->inputs[0] < 0 || op->outputs[0] < 0)
        return false;
    const lg_tensor *x = lgp_tensor(c, op->inputs[0]), *y = lgp_tensor(c, op->outputs[0]);
    return lg_tensor_numel(x) >= 0 && lg_tensor_numel(x) == lg_tensor_numel(y);
}

/* The RESHAPE's shape: the output's, with -1 for its one dynamic dim (shape_signature -1), so
   a model whose batch is resized at run time still reshapes right; with more than one
   dynamic dim, the stored shape. */
static uint32_t reshape_target(const lg_tensor *y, int32_t *shape) {
    uint32_t n_dyn = 0;
    for (uint32_t d = 0; d < y->rank; d++) {
        shape[d] = y->shape[d];
        if (y->n_shape_signature == y->rank && y->shape_signature[d] < 0) n_dyn++;
    }
    if (n_dyn == 1)
        for (uint32_t d = 0; d < y->rank; d++)
            if (y->shape_signature[d] < 0) shape[d] = -1;
    return y->rank;
}

static lg_status squeeze_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    if (!squeeze_match(c, g, i)) return LG_OK;
    const lg_op *op = lgp_op(c, i);
    int32_t x = op->inputs[0], y = op->outputs[0], shape[LG_MAX_RANK], st = -1;
    uint32_t r = reshape_target(lgp_tensor(c, y), shape);
    LG_TRY(fx_ints(c, y, "shape", shape, r, &st));
    LG_TRY(fx_op(c, LG_OP_RESHAPE, (const int32_t[]){x, st}, 2, &y, 1, NULL));
    return fx_done(c, i);
}

const lg_pass lgp_squeeze_to_reshape = {
    "squeeze-to-reshape", "SQUEEZE/EXPAND_DIMS -> RESHAPE with a constant shape",
    {"op-unsupported", NULL}, true, 0, squeeze_match, squeeze_apply, false};

/* ================================================================== pack-unpack-split */

static bool static_tensor(const lg_pass_ctx *c, int32_t t) {
    return t >= 0 && !fx_dynamic(lgp_tensor(c, t)) && lg_tensor_numel(lgp_tensor(c, t)) >= 0 &&
           !fx_per_axis(lgp_tensor(c, t));
}

static int32_t norm_axis(int32_t axis, uint32_t rank) { return axis < 0 ? axis + (int32_t)rank : axis; }

/* PACK(x_0..x_{n-1}, axis): every input of the output's type and shape minus the axis. */
static bool pack_ok(const lg_pass_ctx *c, const lg_op *op, int32_t *axis) {
    const lg_pack_options *o = op->opts_kind == LG_OPTS_PACK_OPTIONS ? op->opts : NULL;
    if (!o || op->n_outputs != 1 || !static_tensor(c, op->outputs[0]) || op->n_inputs < 1 ||
        op->n_inputs > FX_MAX_PIECES)
        return false;
    const lg_tensor *y = lgp_tensor(c, op->outputs[0]);
    *axis = norm_axis(o->axis, y->rank);
    if (*axis < 0 || *axis >= (int32_t)y->rank || y->shape[*axis] != (int32_t)op->n_inputs) return false;
    bool runtime = false; /* all constant: fold-constants' case */
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        if (!static_tensor(c, op->inputs[k])) return false;
        const lg_tensor *x = lgp_tensor(c, op->inputs[k]);
        if (x->rank + 1 != y->rank || x->type != y->type || !lg_tensor_same_quant(x, y)) return false;
        runtime |= !lg_tensor_is_const(c->m, c->sg, op->inputs[k]);
    }
    return runtime;
}

/* SPLIT(axis, x) / SPLIT_V(x, sizes, axis) with constant axis (and sizes): the pieces. */
static bool split_pieces(const lg_pass_ctx *c, const lg_op *op, int32_t code, int32_t *x, uint32_t *axis,
                         fx_piece *p) {
    int32_t xi = code == LG_OP_SPLIT ? 1 : 0, ai = code == LG_OP_SPLIT ? 0 : 2;
    if (op->n_inputs != (code == LG_OP_SPLIT ? 2u : 3u) || op->n_outputs < 1 || op->n_outputs > FX_MAX_PIECES)
        return false;
    *x = op->inputs[xi];
    if (!static_tensor(c, *x) || lg_tensor_is_const(c->m, c->sg, *x)) return false;
    const lg_tensor *tx = lgp_tensor(c, *x);
    int64_t a = 0;
    uint32_t n = 0;
    if (!lgp_const_ints(c, op->inputs[ai], &a, 1, &n) || n != 1) return false;
    a = a < 0 ? a + tx->rank : a;
    if (a < 0 || a >= (int64_t)tx->rank) return false;
    *axis = (uint32_t)a;
    int64_t at = 0;
    for (uint32_t k = 0; k < op->n_outputs; k++) {
        if (!static_tensor(c, op->outputs[k])) return false;
        const lg_tensor *y = lgp_tensor(c, op->outputs[k]);
        if (y->rank != tx->rank || y->type != tx->type || !lg_tensor_same_quant(y, tx)) return false;
        p[k] = (fx_piece){at, y->shape[a], 1};
        if (p[k].n <= 0) return false;
        at += p[k].n;
    }
    return at == tx->shape[a]; /* the stored output shapes hold the sizes (validated) */
}

static bool pus_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    int32_t code = lgp_code(c, i), a = 0, x = -1;
    const lg_op *op = lgp_op(c, i);
    uint32_t axis = 0;
    fx_piece p[FX_MAX_PIECES];
    if (code == LG_OP_PACK) return pack_ok(c, op, &a);
    if (code == LG_OP_SPLIT || code == LG_OP_SPLIT_V) return split_pieces(c, op, code, &x, &axis, p);
    return false;
}

static lg_status pack_apply(lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    int32_t axis = 0;
    if (!pack_ok(c, op, &axis)) return LG_OK;
    uint32_t n = op->n_inputs;
    int32_t ins[FX_MAX_PIECES], y = op->outputs[0];
    memcpy(ins, op->inputs, n * sizeof ins[0]);
    const lg_tensor *ty = lgp_tensor(c, y);
    int32_t shape[LG_MAX_RANK];
    memcpy(shape, ty->shape, ty->rank * sizeof shape[0]);
    uint32_t r = ty->rank;
    shape[axis] = 1;
    int32_t parts[FX_MAX_PIECES];
    for (uint32_t k = 0; k < n; k++) LG_TRY(fx_reshape(c, ins[k], shape, r, n == 1 ? y : -1, &parts[k]));
    if (n > 1) {
        lg_concatenation_options co;
        lg_opts_init(LG_OPTS_CONCATENATION_OPTIONS, &co, sizeof co);
        co.axis = axis;
        LG_TRY(fx_op(c, LG_OP_CONCATENATION, parts, n, &y, 1, &co));
    }
    return fx_done(c, i);
}

static lg_status split_apply(lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    int32_t x = -1, outs[FX_MAX_PIECES];
    uint32_t axis = 0, n = op->n_outputs;
    fx_piece p[FX_MAX_PIECES];
    if (!split_pieces(c, op, lgp_code(c, i), &x, &axis, p)) return LG_OK;
    memcpy(outs, op->outputs, n * sizeof outs[0]);
    int32_t view = -1;
    uint32_t vaxis = 0;
    LG_TRY(fx_slicing_view(c, x, axis, axis + 1, &view, &vaxis));
    for (uint32_t k = 0; k < n; k++) LG_TRY(fx_gather_pieces(c, view, vaxis, &p[k], 1, outs[k]));
    return fx_done(c, i);
}

static lg_status pus_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    return lgp_code(c, i) == LG_OP_PACK ? pack_apply(c, i) : split_apply(c, i);
}

const lg_pass lgp_pack_unpack_split = {
    "pack-unpack-split", "PACK -> RESHAPE + CONCATENATION; SPLIT/SPLIT_V -> SLICEs",
    {"field-banned-op", NULL}, true, 0, pus_match, pus_apply, false};

/* ================================================================== broadcast-to-tile
 *
 * y = BROADCAST_TO(x, shape). When y is no graph output and every use of y is an input of a
 * broadcasting binary op (ADD, MUL, SUB, DIV, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE,
 * FLOOR_DIV, FLOOR_MOD, POW) whose output shape stays the same when it reads x (padded with
 * leading unit dims to y's rank: RESHAPE, or a reshaped copy of a constant x) instead, the
 * broadcast is dropped: the binary op broadcasts x itself, to the same elements. Operands of
 * equal rank broadcast on both delegates (rules.def broadcast: only mixed ranks are
 * restricted), and x' has y's rank. Otherwise y = TILE(RESHAPE(x), y.shape / x.shape).
 * A constant x that must be tiled is fold-constants' case (a TILE of a constant has only
 * constant inputs). */

static bool folds_broadcast(int32_t code) {
    switch (code) {
    case LG_OP_ADD: case LG_OP_MUL: case LG_OP_SUB: case LG_OP_DIV: case LG_OP_MAXIMUM: case LG_OP_MINIMUM:
    case LG_OP_SQUARED_DIFFERENCE: case LG_OP_FLOOR_DIV: case LG_OP_FLOOR_MOD: case LG_OP_POW:
        return true;
    default:
        return false;
    }
}

static bool bcast_fires(const lg_pass_ctx *c, uint32_t i, int32_t *x, int32_t *y) {
    const lg_op *op = lgp_op(c, i);
    if (lgp_code(c, i) != LG_OP_BROADCAST_TO || op->n_inputs != 2 || op->n_outputs != 1) return false;
    *x = op->inputs[0];
    *y = op->outputs[0];
    if (*x < 0 || *y < 0 || op->inputs[1] < 0 || !lg_tensor_is_const(c->m, c->sg, op->inputs[1])) return false;
    if (!static_tensor(c, *x) || !static_tensor(c, *y)) return false;
    return fx_broadcasts_to(lgp_tensor(c, *x), lgp_tensor(c, *y)) && lgp_tensor(c, *x)->type == lgp_tensor(c, *y)->type;
}

/* Shape of a binary op's output when input `slot` (holding y) is replaced by a tensor of y's
   rank with x's dims: does it stay the op's stored output shape? */
static bool consumer_keeps_shape(const lg_pass_ctx *c, const lg_use *u, int32_t x, int32_t y) {
    const lg_op *op = lgp_op(c, (uint32_t)u->op);
    if (!folds_broadcast(lgp_code(c, (uint32_t)u->op)) || op->n_inputs != 2 || op->n_outputs != 1) return false;
    const lg_tensor *tx = lgp_tensor(c, x), *ty = lgp_tensor(c, y), *to = lgp_tensor(c, op->outputs[0]);
    uint32_t lead = ty->rank - tx->rank;
    lg_shape s[2], out;
    for (uint32_t k = 0; k < 2; k++) {
        int32_t t = op->inputs[k];
        if (t == y) {
            s[k].rank = (int32_t)ty->rank;
            for (uint32_t d = 0; d < ty->rank; d++) s[k].dim[d] = d < lead ? 1 : tx->shape[d - lead];
        } else {
            if (t < 0) return false;
            s[k] = lg_shape_of_tensor(lgp_tensor(c, t), false);
        }
    }
    if (lg_broadcast(&s[0], &s[1], &out, NULL) != LG_OK || out.rank != (int32_t)to->rank) return false;
    for (uint32_t d = 0; d < to->rank; d++)
        if (out.dim[d] != to->shape[d]) return false;
    return true;
}

static bool bcast_droppable(const lg_pass_ctx *c, const lg_graph *g, int32_t x, int32_t y) {
    if (lg_graph_is_output(g, y)) return false;
    uint32_t n = 0;
    const lg_use *u = lg_graph_uses(g, y, &n);
    if (!n) return false;
    for (uint32_t k = 0; k < n; k++)
        if (!consumer_keeps_shape(c, &u[k], x, y)) return false;
    return true;
}

static bool bcast_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    int32_t x, y;
    return bcast_fires(c, i, &x, &y);
}

static lg_status bcast_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    int32_t x, y;
    if (!bcast_fires(c, i, &x, &y)) return LG_OK;
    if (bcast_droppable(c, g, x, y)) {
        const lg_tensor *tx = lgp_tensor(c, x), *ty = lgp_tensor(c, y);
        uint32_t r = ty->rank, lead = r - tx->rank;
        int32_t shape[LG_MAX_RANK], xv = x;
        for (uint32_t d = 0; d < r; d++) shape[d] = d < lead ? 1 : tx->shape[d - lead];
        if (lead) LG_TRY(fx_reshape(c, x, shape, r, -1, &xv));
        LG_TRY(lg_tensor_replace_uses(c->m, c->sg, y, xv, 0, NULL, c->err));
        return fx_done(c, i);
    }
    if (lg_tensor_is_const(c->m, c->sg, x)) {
        lgp_skip(c, "op %u (BROADCAST_TO): a constant to tile is fold-constants' case", i);
        return LG_OK;
    }
    LG_TRY(fx_broadcast(c, x, y));
    return fx_done(c, i);
}

const lg_pass lgp_broadcast_to_tile = {
    "broadcast-to-tile",
    "BROADCAST_TO -> the consumers' own broadcasting, else RESHAPE + TILE",
    {"op-unsupported", NULL}, true, 0, bcast_match, bcast_apply, false};
