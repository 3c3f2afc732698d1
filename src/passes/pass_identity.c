/* Exact structural clean-ups: identity ops, chained reshapes, transpose pairs.
 *
 *  remove-identities  RESHAPE/SQUEEZE/EXPAND_DIMS to the same shape, TRANSPOSE by the identity
 *                     permutation, CAST to the same type, ADD/SUB of zeros, MUL/DIV by ones
 *                     (no fused activation, no quantization, no broadcast that changes the
 *                     shape): the consumers read the op's input instead.
 *  merge-reshapes     RESHAPE of a RESHAPE/SQUEEZE/EXPAND_DIMS output reads the first op's
 *                     input (the first op dies if nothing else reads it).
 *  cancel-transposes  TRANSPOSE(q) of TRANSPOSE(p): one TRANSPOSE by the composed permutation
 *                     r[i] = p[q[i]], or nothing when r is the identity.
 *
 * All are exact in fp32 (x + 0 turns -0 into +0, the only bit that can change). */
#include "passes/passes_impl.h"

static bool is_reshape_like(int32_t code) {
    return code == LG_OP_RESHAPE || code == LG_OP_SQUEEZE || code == LG_OP_EXPAND_DIMS;
}

static bool no_fused_act(const lg_op *op) {
    if (!op->opts) return true;
    switch (op->opts_kind) {
    case LG_OPTS_ADD_OPTIONS:
        return ((const lg_add_options *)op->opts)->fused_activation_function == 0;
    case LG_OPTS_SUB_OPTIONS:
        return ((const lg_sub_options *)op->opts)->fused_activation_function == 0;
    case LG_OPTS_MUL_OPTIONS:
        return ((const lg_mul_options *)op->opts)->fused_activation_function == 0;
    case LG_OPTS_DIV_OPTIONS:
        return ((const lg_div_options *)op->opts)->fused_activation_function == 0;
    default:
        return op->opts_kind == LG_OPTS_NONE;
    }
}

static bool is_float(int type) { return type == LG_FLOAT32 || type == LG_FLOAT16; }

/* The input the op passes through unchanged, or -1. */
static int32_t identity_source(const lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    int32_t code = lgp_code(c, i);
    if (op->n_outputs != 1 || op->n_inputs < 1 || op->inputs[0] < 0) return -1;
    const lg_tensor *out = lgp_tensor(c, op->outputs[0]);
    int32_t x = op->inputs[0];
    if (is_reshape_like(code) || code == LG_OP_CAST)
        return lgp_same_layout(lgp_tensor(c, x), out) ? x : -1;
    if (code == LG_OP_TRANSPOSE && op->n_inputs == 2) {
        int64_t perm[LG_MAX_RANK];
        uint32_t n = 0;
        if (!lgp_const_ints(c, op->inputs[1], perm, LG_MAX_RANK, &n)) return -1;
        for (uint32_t k = 0; k < n; k++)
            if (perm[k] != (int64_t)k) return -1;
        return lgp_same_layout(lgp_tensor(c, x), out) ? x : -1;
    }
    bool add = code == LG_OP_ADD, sub = code == LG_OP_SUB, mul = code == LG_OP_MUL,
         div = code == LG_OP_DIV;
    if (!(add || sub || mul || div) || op->n_inputs != 2 || op->inputs[1] < 0) return -1;
    if (!no_fused_act(op) || !is_float(out->type)) return -1;
    float neutral = add || sub ? 0.0f : 1.0f;
    /* x OP neutral, and (for the commutative ones) neutral OP x */
    for (int side = 0; side < ((add || mul) ? 2 : 1); side++) {
        int32_t a = op->inputs[side], k = op->inputs[1 - side];
        if (lgp_const_all_equal(c, k, neutral) && lgp_same_layout(lgp_tensor(c, a), out)) return a;
    }
    return -1;
}

static bool identity_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    return identity_source(c, i) >= 0;
}

static lg_status identity_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    int32_t src = identity_source(c, i);
    bool done = false;
    LG_TRY(lgp_bypass(c, g, i, src, &done));
    if (done) {
        c->delta->applied++;
        c->delta->ops_removed++;
    } else {
        lgp_skip(c, "op %u: an identity between two graph interface tensors is kept", i);
    }
    return LG_OK;
}

const lg_pass lgp_remove_identities = {
    "remove-identities",
    "drop reshapes to the same shape, identity transposes, same-type casts, + 0, * 1",
    {NULL},
    true, 0, identity_match, identity_apply, false};

/* ------------------------------------------------------------------ merge-reshapes */

static int32_t reshape_chain_source(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    if (lgp_code(c, i) != LG_OP_RESHAPE || op->n_inputs < 1 || op->inputs[0] < 0) return -1;
    int32_t p = lg_graph_producer(g, op->inputs[0]);
    if (p < 0 || !is_reshape_like(lgp_code(c, (uint32_t)p))) return -1;
    const lg_op *po = lgp_op(c, (uint32_t)p);
    if (po->n_inputs < 1 || po->inputs[0] < 0) return -1;
    int32_t x = po->inputs[0];
    const lg_tensor *tx = lgp_tensor(c, x), *tout = lgp_tensor(c, op->outputs[0]);
    if (tx->type != tout->type || !lg_tensor_same_quant(tx, tout)) return -1;
    /* RESHAPE's shape input must not depend on the bypassed tensor */
    if (op->n_inputs > 1 && op->inputs[1] == op->inputs[0]) return -1;
    /* the second reshape must have a static target so it does not need the middle shape */
    if (op->n_inputs > 1 && op->inputs[1] >= 0 && !lg_tensor_is_const(c->m, c->sg, op->inputs[1]))
        return -1;
    return x;
}

static bool reshape_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    return reshape_chain_source(c, g, i) >= 0;
}

static lg_status reshape_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    int32_t x = reshape_chain_source(c, g, i);
    LG_TRY(lg_op_set_input(c->m, c->sg, i, 0, x, c->err));
    c->delta->applied++;
    return LG_OK;
}

const lg_pass lgp_merge_reshapes = {
    "merge-reshapes", "a reshape of a reshape reads the first one's input", {NULL}, true, 0,
    reshape_match, reshape_apply, false};

/* ------------------------------------------------------------------ cancel-transposes */

typedef struct tpair {
    int32_t x;                 /* the first transpose's input */
    int64_t r[LG_MAX_RANK];    /* composed permutation */
    uint32_t n;
    bool identity;
} tpair;

static bool transpose_pair(const lg_pass_ctx *c, const lg_graph *g, uint32_t i, tpair *tp) {
    const lg_op *op = lgp_op(c, i);
    if (lgp_code(c, i) != LG_OP_TRANSPOSE || op->n_inputs != 2 || op->inputs[0] < 0) return false;
    int32_t p = lg_graph_producer(g, op->inputs[0]);
    if (p < 0 || lgp_code(c, (uint32_t)p) != LG_OP_TRANSPOSE) return false;
    const lg_op *po = lgp_op(c, (uint32_t)p);
    if (po->n_inputs != 2 || po->inputs[0] < 0) return false;
    int64_t q[LG_MAX_RANK], pp[LG_MAX_RANK];
    uint32_t nq = 0, np = 0;
    if (!lgp_const_ints(c, op->inputs[1], q, LG_MAX_RANK, &nq) ||
        !lgp_const_ints(c, po->inputs[1], pp, LG_MAX_RANK, &np) || nq != np || nq == 0)
        return false;
    const lg_tensor *tx = lgp_tensor(c, po->inputs[0]), *tout = lgp_tensor(c, op->outputs[0]);
    if (tx->rank != nq || tx->type != tout->type || !lg_tensor_same_quant(tx, tout)) return false;
    tp->x = po->inputs[0];
    tp->n = nq;
    tp->identity = true;
    for (uint32_t k = 0; k < nq; k++) {
        if (q[k] < 0 || q[k] >= (int64_t)nq) return false;
        tp->r[k] = pp[q[k]];
        if (tp->r[k] != (int64_t)k) tp->identity = false;
    }
    return true;
}

static bool transpose_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    tpair tp;
    return transpose_pair(c, g, i, &tp);
}

static lg_status transpose_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    tpair tp;
    if (!transpose_pair(c, g, i, &tp)) return LG_OK;
    if (tp.identity) {
        bool done = false;
        LG_TRY(lgp_bypass(c, g, i, tp.x, &done));
        if (done) {
            c->delta->applied++;
            c->delta->ops_removed++;
        } else {
            lgp_skip(c, "op %u: inverse transposes between graph interface tensors are kept", i);
        }
        return LG_OK;
    }
    int32_t r32[LG_MAX_RANK];
    for (uint32_t k = 0; k < tp.n; k++) r32[k] = (int32_t)tp.r[k];
    const lg_tensor *old = lgp_tensor(c, lgp_op(c, i)->inputs[1]);
    char name[200];
    snprintf(name, sizeof name, "%s/composed", old->name ? old->name : "perm");
    int32_t shape[1] = {(int32_t)tp.n}, t = -1;
    LG_TRY(lg_subgraph_add_const(c->m, c->sg, name, LG_INT32, shape, 1, r32, tp.n * 4, &t, c->err));
    LG_TRY(lg_op_set_input(c->m, c->sg, i, 0, tp.x, c->err));
    LG_TRY(lg_op_set_input(c->m, c->sg, i, 1, t, c->err));
    c->delta->applied++;
    return LG_OK;
}

const lg_pass lgp_cancel_transposes = {
    "cancel-transposes", "a transpose of a transpose becomes one (or none)", {NULL}, true, 0,
    transpose_match, transpose_apply, false};
