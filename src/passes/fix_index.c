/* `fix` passes for the indexing and selection ops (issue #11):
 *
 *  gather-const-to-slices  GATHER / GATHER_ND with constant indices -> SLICE / STRIDED_SLICE
 *                          pieces joined by CONCATENATION, RESHAPE to the gathered shape.
 *  select-const-condition  SELECT / SELECT_V2 with a constant condition that is all true or
 *                          all false -> the chosen input (TILE when it must be broadcast).
 *  elu-select-free         the SELECT-based ELU -> relu(x) - alpha * relu(1 - exp(min(x, 0)))
 *                          (the seed's Mimi form), or relu(x) + alpha * min(elu(x), 0) for the
 *                          importer's SELECT(x < 0, alpha * ELU(x), x).
 *
 * All are exact: the slices copy the gathered elements, a select with a constant condition
 * is its chosen input, and the ELU forms compute the same roundings (derived at elu_emit). */
#include <math.h>
#include <stdlib.h>

#include "passes/fix_emit.h"

/* ================================================================== gather-const-to-slices
 *
 * Rules: gather-const-indices (ML Drift on WebGPU fails to build a GATHER with >= 2 constant
 * indices, peers.md; check_ops_shape.c lgc_rule_gather), op-params for a GATHER whose
 * constant indices are not 1-D INT32 (a scalar index: "must be 1-D INT32"), op-unsupported
 * for GATHER_ND (no parser on either delegate).
 *
 * GATHER(x, idx, axis): output = x.shape[:axis] + idx.shape + x.shape[axis+1:] (TFLite
 * gather.cc Prepare), element idx[k] of the axis per index. GATHER_ND(x, idx[..., K]):
 * output = idx.shape[:-1] + x.shape[K:], the K leading dims indexed together, i.e. the
 * linear index L = sum_j idx[j] * stride_j over x.shape[:K] (gather_nd.cc). Either way the
 * list of gathered positions along one (merged) axis is cut into runs (fx_runs): a run of
 * consecutive positions is one SLICE, a run of constant step s > 1 one STRIDED_SLICE
 * (strides > 0 and no masks pass strided-slice-masks / -reverse), a repeated or descending
 * position starts a new run. The pieces are joined by CONCATENATION along the axis and
 * RESHAPEd to the gathered shape (which drops the dim of a scalar index). A tensor of rank
 * other than 3-4, or the K merged dims of GATHER_ND, is sliced as [1, outer, D, inner]
 * (fix_emit.h), which both delegates' SLICE takes.
 *
 * Refused, with a note: more than FX_MAX_PIECES pieces; an index out of range (TFLite fails
 * the op: nothing to preserve); batch_dims != 0; a per-axis quantized input. Left alone:
 * runtime indices (the rule does not fire), a single 1-D INT32 index (it works on the GPU),
 * a constant input (fold-constants computes the whole gather). When the registry has
 * strided-subsample-pool, a GATHER that is one strided run along H or W of a rank-4 tensor
 * is left to it (AVERAGE_POOL_2D(k=1, stride s), the seed's form for NHWC subsampling). */

typedef struct gplan {
    int32_t x, out;
    uint32_t a, b;              /* x's dims [a, b) are indexed (one axis for GATHER) */
    fx_piece pieces[FX_MAX_PIECES];
    uint32_t n_pieces;
    char why[128];              /* why a matching op is refused ("" when planned) */
} gplan;

static bool const_index_tensor(const lg_pass_ctx *c, int32_t t) {
    if (t < 0 || !lg_tensor_is_const(c->m, c->sg, t)) return false;
    const lg_tensor *x = lgp_tensor(c, t);
    return !x->sparsity && (x->type == LG_INT32 || x->type == LG_INT64 || x->type == LG_INT16);
}

/* Does the GPU rule fire on this GATHER / GATHER_ND (and is it ours to rewrite)? */
static bool gather_fires(const lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    int32_t code = lgp_code(c, i);
    if ((code != LG_OP_GATHER && code != LG_OP_GATHER_ND) || op->n_inputs != 2 || op->n_outputs != 1)
        return false;
    int32_t x = op->inputs[0], idx = op->inputs[1];
    if (x < 0 || idx < 0 || op->outputs[0] < 0 || lg_tensor_is_const(c->m, c->sg, x)) return false;
    if (!const_index_tensor(c, idx)) return false;
    const lg_tensor *ti = lgp_tensor(c, idx);
    int64_t n = lg_tensor_numel(ti);
    if (n <= 0) return false;
    if (code == LG_OP_GATHER_ND) return true;
    return n >= 2 || ti->rank != 1 || ti->type != LG_INT32;
}

static int64_t *read_indices(const lg_pass_ctx *c, int32_t t, int64_t *n) {
    const lg_tensor *ti = lgp_tensor(c, t);
    *n = lg_tensor_numel(ti);
    if (*n <= 0 || *n > UINT32_MAX) return NULL;
    int64_t *v = malloc((size_t)*n * sizeof *v);
    uint32_t got = 0;
    if (v && (!lg_tensor_const_ints(c->m, ti, v, (uint32_t)*n, &got) || got != (uint32_t)*n)) {
        free(v);
        return NULL;
    }
    return v;
}

/* GATHER: positions along one axis. Returns the position list (malloc) or NULL + why. */
static int64_t *gather_positions(const lg_pass_ctx *c, const lg_op *op, gplan *p, int64_t *n) {
    const lg_tensor *x = lgp_tensor(c, op->inputs[0]);
    lg_gather_options go;
    lg_opts_init(LG_OPTS_GATHER_OPTIONS, &go, sizeof go);
    if (op->opts && op->opts_kind == LG_OPTS_GATHER_OPTIONS) go = *(const lg_gather_options *)op->opts;
    int32_t axis = go.axis < 0 ? go.axis + (int32_t)x->rank : go.axis;
    if (go.batch_dims != 0 || axis < 0 || axis >= (int32_t)x->rank) {
        snprintf(p->why, sizeof p->why, "batch_dims %d / axis %d not handled", go.batch_dims, go.axis);
        return NULL;
    }
    p->a = (uint32_t)axis;
    p->b = p->a + 1;
    int64_t *v = read_indices(c, op->inputs[1], n);
    if (!v) { snprintf(p->why, sizeof p->why, "the indices could not be read"); return NULL; }
    for (int64_t k = 0; k < *n; k++)
        if (v[k] < 0 || v[k] >= x->shape[axis]) {
            snprintf(p->why, sizeof p->why, "index %lld is out of range [0, %d)", (long long)v[k], x->shape[axis]);
            free(v);
            return NULL;
        }
    return v;
}

/* GATHER_ND: each index vector of K entries becomes its linear position over x.shape[:K]. */
static int64_t *gather_nd_positions(const lg_pass_ctx *c, const lg_op *op, gplan *p, int64_t *n) {
    const lg_tensor *x = lgp_tensor(c, op->inputs[0]), *ti = lgp_tensor(c, op->inputs[1]);
    int64_t K = ti->rank ? ti->shape[ti->rank - 1] : 0, total = 0;
    if (ti->rank < 1 || K < 1 || K > (int64_t)x->rank) {
        snprintf(p->why, sizeof p->why, "index vectors of length %lld for a rank-%u input", (long long)K, x->rank);
        return NULL;
    }
    p->a = 0;
    p->b = (uint32_t)K;
    int64_t *v = read_indices(c, op->inputs[1], &total);
    if (!v) { snprintf(p->why, sizeof p->why, "the indices could not be read"); return NULL; }
    *n = total / K;
    for (int64_t s = 0; s < *n; s++) {
        int64_t lin = 0;
        for (int64_t j = 0; j < K; j++) {
            int64_t e = v[s * K + j];
            if (e < 0 || e >= x->shape[j]) {
                snprintf(p->why, sizeof p->why, "index %lld of dim %lld is out of range [0, %d)", (long long)e,
                         (long long)j, x->shape[j]);
                free(v);
                return NULL;
            }
            lin = lin * x->shape[j] + e;
        }
        v[s] = lin; /* s <= s * K: the vector is read before its slot is overwritten */
    }
    return v;
}

/* One strided run along H or W of a rank-4 tensor: the NHWC subsample strided-subsample-pool
   rewrites as AVERAGE_POOL_2D(k=1, stride s), when the registry has it. */
static bool left_to_pool(const gplan *p, const lg_tensor *x, int32_t code) {
    return code == LG_OP_GATHER && x->rank == 4 && (p->a == 1 || p->a == 2) && p->n_pieces == 1 &&
           p->pieces[0].step > 1 && lg_pass_find("strided-subsample-pool") != NULL;
}

static bool gather_plan(const lg_pass_ctx *c, uint32_t i, gplan *p) {
    memset(p, 0, sizeof *p);
    if (!gather_fires(c, i)) return false;
    const lg_op *op = lgp_op(c, i);
    int32_t code = lgp_code(c, i);
    p->x = op->inputs[0];
    p->out = op->outputs[0];
    const lg_tensor *x = lgp_tensor(c, p->x);
    if (fx_per_axis(x)) {
        snprintf(p->why, sizeof p->why, "per-axis quantized input");
        return true;
    }
    int64_t n = 0;
    int64_t *pos = code == LG_OP_GATHER ? gather_positions(c, op, p, &n) : gather_nd_positions(c, op, p, &n);
    if (!pos) return true;
    p->n_pieces = fx_runs(pos, n, p->pieces, FX_MAX_PIECES);
    free(pos);
    if (p->n_pieces > FX_MAX_PIECES)
        snprintf(p->why, sizeof p->why, "the indices make more than %d slices", FX_MAX_PIECES);
    else if (left_to_pool(p, x, code))
        snprintf(p->why, sizeof p->why, "an H/W subsample: left to strided-subsample-pool");
    return true;
}

static bool gather_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    return gather_fires(c, i);
}

static lg_status gather_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    gplan p;
    if (!gather_plan(c, i, &p)) return LG_OK;
    if (p.why[0]) {
        lgp_skip(c, "op %u (%s): %s", i, lg_op_name(c->m, lgp_op(c, i)), p.why);
        return LG_OK;
    }
    int32_t view = -1;
    uint32_t axis = 0;
    LG_TRY(fx_slicing_view(c, p.x, p.a, p.b, &view, &axis));
    LG_TRY(fx_gather_pieces(c, view, axis, p.pieces, p.n_pieces, p.out));
    return fx_done(c, i);
}

const lg_pass lgp_gather_const_to_slices = {
    "gather-const-to-slices",
    "GATHER/GATHER_ND with constant indices -> SLICE/STRIDED_SLICE + CONCATENATION + RESHAPE",
    {"gather-const-indices", "op-unsupported", "op-params", NULL},
    true, 0, gather_match, gather_apply, false};

/* ================================================================== select-const-condition
 *
 * Rules: field-banned-op (SELECT/SELECT_V2 keep models off the Pixel 8a's GPU, the seed's
 * op list) and op-params (SELECT's value shapes, the classic delegate's 2-D runtime values).
 * SELECT(c, x, y) with a constant BOOL condition that is everywhere true is x, everywhere
 * false y (SELECT_V2 broadcasts the three to the output shape, TFLite select.cc): the
 * consumers read the chosen input, TILEd to the output shape when it is smaller.
 *
 * A mixed condition is left alone: x * m + y * (1 - m) is not the select when the
 * unselected side holds an inf or NaN (inf * 0 = NaN), which a runtime input can, and two
 * constant inputs are fold-constants' case. */

typedef struct splan {
    int32_t chosen;             /* the input every element comes from, or -1 */
    char why[128];
} splan;

static bool is_select(int32_t code) { return code == LG_OP_SELECT || code == LG_OP_SELECT_V2; }

static bool select_fires(const lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    if (!is_select(lgp_code(c, i)) || op->n_inputs != 3 || op->n_outputs != 1 || op->outputs[0] < 0) return false;
    int32_t cond = op->inputs[0], x = op->inputs[1], y = op->inputs[2];
    if (cond < 0 || x < 0 || y < 0 || !lg_tensor_is_const(c->m, c->sg, cond)) return false;
    const lg_tensor *tc = lgp_tensor(c, cond);
    if (tc->type != LG_BOOL || tc->sparsity || lg_tensor_numel(tc) <= 0) return false;
    return !lg_tensor_is_const(c->m, c->sg, x) || !lg_tensor_is_const(c->m, c->sg, y);
}

static bool select_plan(const lg_pass_ctx *c, uint32_t i, splan *p) {
    memset(p, 0, sizeof *p);
    p->chosen = -1;
    if (!select_fires(c, i)) return false;
    const lg_op *op = lgp_op(c, i);
    int64_t n = 0;
    int64_t *v = read_indices(c, op->inputs[0], &n);
    if (!v) {
        snprintf(p->why, sizeof p->why, "the condition could not be read");
        return true;
    }
    int64_t n_true = 0;
    for (int64_t k = 0; k < n; k++) n_true += v[k] != 0;
    free(v);
    if (n_true != 0 && n_true != n) {
        snprintf(p->why, sizeof p->why, "a mixed constant condition (%lld of %lld true): x*m + y*(1-m) is not exact "
                 "for inf/NaN", (long long)n_true, (long long)n);
        return true;
    }
    p->chosen = op->inputs[n_true ? 1 : 2];
    const lg_tensor *tv = lgp_tensor(c, p->chosen), *to = lgp_tensor(c, op->outputs[0]);
    if (tv->type != to->type || !lg_tensor_same_quant(tv, to) || !fx_broadcasts_to(tv, to))
        snprintf(p->why, sizeof p->why, "the chosen input does not have the output's type or shape");
    else if (!fx_same_shape(tv, to) && lg_tensor_is_const(c->m, c->sg, p->chosen))
        snprintf(p->why, sizeof p->why, "the chosen input is a constant to broadcast: fold-constants' case");
    return true;
}

static bool select_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    return select_fires(c, i);
}

static lg_status select_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    splan p;
    if (!select_plan(c, i, &p)) return LG_OK;
    if (p.why[0]) {
        lgp_skip(c, "op %u (%s): %s", i, lg_op_name(c->m, lgp_op(c, i)), p.why);
        return LG_OK;
    }
    int32_t out = lgp_op(c, i)->outputs[0];
    if (fx_same_shape(lgp_tensor(c, p.chosen), lgp_tensor(c, out))) {
        bool done = false;
        LG_TRY(lgp_bypass(c, g, i, p.chosen, &done));
        if (done) {
            c->delta->applied++;
            c->delta->ops_removed++;
            return LG_OK;
        }
        /* between two interface tensors: a RESHAPE to the same shape copies it, unless the
           chosen input is a constant (a RESHAPE of it would have only constant inputs) */
        if (lg_tensor_is_const(c->m, c->sg, p.chosen)) {
            lgp_skip(c, "op %u (%s): a graph output that is a constant input", i, lg_op_name(c->m, lgp_op(c, i)));
            return LG_OK;
        }
    }
    LG_TRY(fx_broadcast(c, p.chosen, out));
    return fx_done(c, i);
}

const lg_pass lgp_select_const_condition = {
    "select-const-condition",
    "SELECT/SELECT_V2 whose constant condition is all true or all false -> the chosen input",
    {"field-banned-op", "op-params", NULL},
    true, 0, select_match, select_apply, false};

/* ================================================================== elu-select-free
 *
 * Rules: field-banned-op (the seed's Mimi SEANet: 13 SELECT-based ELUs kept it off the
 * Pixel 8a's GPU: the comparison and the SELECT) and op-params (the classic delegate takes
 * 2-D select values only when constant). compare-consumer does not fire on these forms (the
 * comparison feeds one SELECT), so it is not claimed. Two SELECT-based ELUs are recognised,
 * the comparison against a constant 0 in either direction (x > 0, x >= 0, 0 < x, ... or the
 * mirrored x < 0 picking the negative branch first; at x = 0 both branches are 0, so > and
 * >= agree):
 *
 *  EXP  SELECT(x > 0, x, alpha * (EXP(x) - 1))   (litert-torch's nn.ELU; alpha may be absent)
 *       -> RELU(x) - alpha * RELU(1 - EXP(MINIMUM(x, 0)))
 *       For x <= 0: min(x, 0) = x, so e = fl(exp x) is the same value; fl(1 - e) = -fl(e - 1)
 *       (round-to-nearest is symmetric), fl(alpha * -d) = -fl(alpha * d), RELU of a
 *       non-negative value is itself (e <= 1) and 0 - (-w) = w: the original negative branch
 *       bit for bit. For x > 0: exp(0) = 1, 1 - 1 = 0, so x - alpha * 0 = x. (The seed's
 *       alpha-1 form "relu(x) - relu(1 - exp(min(x, 0)))", with alpha scaling the second
 *       term; the RELU guards a GPU exp that rounds above 1.)
 *  ELU  SELECT(x < 0, alpha * ELU(x), x)           (litegpu's ONNX Elu with alpha != 1)
 *       -> RELU(x) + alpha * MINIMUM(ELU(x), 0)
 *       ELU(x) < 0 exactly when x < 0 (expm1 of a negative number is negative), so the second
 *       term is fl(alpha * expm1 x) there and alpha * 0 = 0 elsewhere; 0 + w = w, x + 0 = x.
 *
 * Every rewritten op reads x or a constant: the ops of the old form die (remove-dead). */

enum { ELU_NONE, ELU_EXP, ELU_OP };

typedef struct eplan {
    int kind;
    int32_t x, alpha, elu;      /* alpha: the scalar constant (-1: 1); elu: ELU(x)'s output */
    int32_t out;
} eplan;

static int32_t producer_code(const lg_pass_ctx *c, const lg_graph *g, int32_t t, uint32_t *op) {
    int32_t p = t >= 0 ? lg_graph_producer(g, t) : -1;
    if (p < 0) return -1;
    *op = (uint32_t)p;
    return lgp_code(c, (uint32_t)p);
}

static bool float_scalar_const(const lg_pass_ctx *c, int32_t t, float *v) {
    if (t < 0 || !lg_tensor_is_const(c->m, c->sg, t)) return false;
    const lg_tensor *x = lgp_tensor(c, t);
    if (x->type != LG_FLOAT32 || lg_tensor_numel(x) != 1 || x->quant) return false;
    const lg_buffer *b = lg_tensor_buffer(c->m, x);
    if (!b || b->size != 4) return false;
    uint32_t u = lgi_rd_u32(b->data);
    memcpy(v, &u, 4);
    return isfinite(*v);
}

static bool no_act(const lg_op *op) {
    if (!op->opts) return true;
    if (op->opts_kind == LG_OPTS_MUL_OPTIONS) return ((const lg_mul_options *)op->opts)->fused_activation_function == 0;
    if (op->opts_kind == LG_OPTS_SUB_OPTIONS) return ((const lg_sub_options *)op->opts)->fused_activation_function == 0;
    return op->opts_kind == LG_OPTS_NONE;
}

/* t = alpha * v or v * alpha (alpha a finite scalar constant), or t itself (alpha = 1, -1). */
static int32_t unscale(const lg_pass_ctx *c, const lg_graph *g, int32_t t, int32_t *alpha) {
    uint32_t p;
    float a;
    *alpha = -1;
    if (producer_code(c, g, t, &p) != LG_OP_MUL || !no_act(lgp_op(c, p)) || lgp_op(c, p)->n_inputs != 2) return t;
    const lg_op *m = lgp_op(c, p);
    for (int k = 0; k < 2; k++)
        if (float_scalar_const(c, m->inputs[k], &a) && !lg_tensor_is_const(c->m, c->sg, m->inputs[1 - k])) {
            *alpha = m->inputs[k];
            return m->inputs[1 - k];
        }
    return t;
}

/* cond = x > 0 (sign +1) or x < 0 (sign -1), >= and <= included; x into *x. */
static int compare_sign(const lg_pass_ctx *c, const lg_graph *g, int32_t cond, int32_t *x) {
    uint32_t p;
    int32_t code = producer_code(c, g, cond, &p);
    if (code != LG_OP_GREATER && code != LG_OP_GREATER_EQUAL && code != LG_OP_LESS && code != LG_OP_LESS_EQUAL)
        return 0;
    const lg_op *op = lgp_op(c, p);
    if (op->n_inputs != 2) return 0;
    int greater = code == LG_OP_GREATER || code == LG_OP_GREATER_EQUAL ? 1 : -1;
    for (int k = 0; k < 2; k++) {
        int32_t z = op->inputs[1 - k];
        if (op->inputs[k] < 0 || z < 0 || lg_tensor_numel(lgp_tensor(c, z)) != 1 || !lgp_const_all_equal(c, z, 0.0f))
            continue;
        *x = op->inputs[k];
        return k == 0 ? greater : -greater; /* 0 > x is x < 0 */
    }
    return 0;
}

/* The negative branch nb of an ELU of x: alpha * (EXP(x) - 1) or alpha * ELU(x). */
static int negative_branch(const lg_pass_ctx *c, const lg_graph *g, int32_t nb, int32_t x, eplan *e) {
    uint32_t p, q;
    int32_t v = unscale(c, g, nb, &e->alpha);
    int32_t code = producer_code(c, g, v, &p);
    if (code == LG_OP_ELU && lgp_op(c, p)->n_inputs == 1 && lgp_op(c, p)->inputs[0] == x) {
        e->elu = v;
        return ELU_OP;
    }
    if (code != LG_OP_SUB || !no_act(lgp_op(c, p)) || lgp_op(c, p)->n_inputs != 2) return ELU_NONE;
    const lg_op *s = lgp_op(c, p);
    int32_t one = s->inputs[1];
    if (one < 0 || lg_tensor_numel(lgp_tensor(c, one)) != 1 || !lgp_const_all_equal(c, one, 1.0f)) return ELU_NONE;
    if (producer_code(c, g, s->inputs[0], &q) != LG_OP_EXP || lgp_op(c, q)->n_inputs != 1 ||
        lgp_op(c, q)->inputs[0] != x)
        return ELU_NONE;
    return ELU_EXP;
}

static bool elu_plan(const lg_pass_ctx *c, const lg_graph *g, uint32_t i, eplan *e) {
    memset(e, 0, sizeof *e);
    const lg_op *op = lgp_op(c, i);
    if (!is_select(lgp_code(c, i)) || op->n_inputs != 3 || op->n_outputs != 1 || op->outputs[0] < 0) return false;
    int32_t x = -1;
    int sign = compare_sign(c, g, op->inputs[0], &x);
    if (!sign) return false;
    int32_t pb = sign > 0 ? op->inputs[1] : op->inputs[2], nb = sign > 0 ? op->inputs[2] : op->inputs[1];
    const lg_tensor *tx = lgp_tensor(c, x), *to = lgp_tensor(c, op->outputs[0]);
    if (pb != x || nb < 0 || tx->type != LG_FLOAT32 || to->type != LG_FLOAT32 || tx->quant ||
        !fx_same_shape(tx, to) || !fx_same_shape(lgp_tensor(c, nb), to))
        return false;
    e->kind = negative_branch(c, g, nb, x, e);
    e->x = x;
    e->out = op->outputs[0];
    return e->kind != ELU_NONE;
}

static bool elu_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    eplan e;
    return elu_plan(c, g, i, &e);
}

/* Derivation in the header. */
static lg_status elu_emit(lg_pass_ctx *c, const eplan *e) {
    int32_t zero, pos, neg, t;
    LG_TRY(fx_scalar(c, e->out, "zero", 0.0f, &zero));
    LG_TRY(fx_unary(c, LG_OP_RELU, e->x, -1, &pos));
    if (e->kind == ELU_EXP) {
        int32_t one;
        LG_TRY(fx_scalar(c, e->out, "one", 1.0f, &one));
        LG_TRY(fx_binary(c, LG_OP_MINIMUM, e->x, zero, e->x, -1, &t));
        LG_TRY(fx_unary(c, LG_OP_EXP, t, -1, &t));
        LG_TRY(fx_binary(c, LG_OP_SUB, one, t, e->x, -1, &t));
        LG_TRY(fx_unary(c, LG_OP_RELU, t, -1, &neg));
    } else {
        LG_TRY(fx_binary(c, LG_OP_MINIMUM, e->elu, zero, e->x, -1, &neg));
    }
    if (e->alpha >= 0) LG_TRY(fx_binary(c, LG_OP_MUL, neg, e->alpha, e->x, -1, &neg));
    return fx_binary(c, e->kind == ELU_EXP ? LG_OP_SUB : LG_OP_ADD, pos, neg, e->x, e->out, &t);
}

static lg_status elu_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    eplan e;
    if (!elu_plan(c, g, i, &e)) return LG_OK;
    LG_TRY(elu_emit(c, &e));
    return fx_done(c, i);
}

const lg_pass lgp_elu_select_free = {
    "elu-select-free",
    "SELECT-based ELU -> relu(x) - alpha*relu(1 - exp(min(x,0))) (no SELECT, no comparison)",
    {"field-banned-op", "op-params", NULL},
    true, 0, elu_match, elu_apply, false};
