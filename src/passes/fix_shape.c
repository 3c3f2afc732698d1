/* `fix` passes for operand and consumer forms a delegate refuses (issue #11); the slicing and
 * padding ones are in fix_shape_slice.c. Each fires only where src/check reports the rule it
 * names (the detector is cited), and each is exact: the rewrites move the same values, or add
 * the same values in the same order.
 *
 *  distinct-operands  x OP x, one tensor read twice (rules.def identical-inputs;
 *                     check_ops_elementwise.c lgc_rule_binary: a binary op other than ADD/MUL,
 *                     ML Drift's parser "No support of few identical inputs in the same
 *                     operation"; check_ops_conv.c lgc_rule_batch_matmul: BATCH_MATMUL(x, x),
 *                     which ML Drift on WebGPU never finishes) -> x OP RESHAPE(x, x's own
 *                     shape): the op reads two tensors holding the same values. A RESHAPE moves
 *                     no value (NaN payloads and -0 included); both delegates take it, and on
 *                     WebGPU SUB(x, RESHAPE(x)) and BATCH_MATMUL(x, RESHAPE(x)) of [1,12,2,2]
 *                     are delegated and match the CPU (litegpu verify). A constant x is
 *                     fold-constants' case; rank 0 and dynamic shapes are left (a RESHAPE to
 *                     rank 0 or to a fixed shape would change the GPU's or the model's shapes).
 *                     remove-identities (convert --optimize) would drop the RESHAPE again: fix
 *                     does not run it.
 *  broadcast-rank     ADD/MUL of operands of different ranks, both > 1, that broadcast (numpy)
 *                     but not in one of the classic delegate's three mixed-rank forms (rules.def
 *                     broadcast; check_ops_elementwise.c check_broadcast, the port of
 *                     gpu_compatibility.cc CheckAddMulBroadcastCompatibility: 4D+3D of batch 1,
 *                     4D+[1,1], 4D [b,h,w,c]+2D [b,c]) -> the lower-rank operand RESHAPEd to the
 *                     other's rank with leading 1s. Numpy broadcasting aligns trailing dims and
 *                     treats missing leading dims as 1, so the op computes the same elements;
 *                     equal ranks pass the check (it only restricts mixed ranks). A constant
 *                     operand becomes a reshaped constant. Ranks above 4 and shapes that do not
 *                     broadcast (ML Drift's cases of the rule) have no such rewrite.
 *  add-n-chain        ADD_N of n != 2 inputs (rules.def input-count; lgc_rule_add_n: the GPU
 *                     takes exactly 2) -> ((x0 + x1) + x2) + ... as ADD ops. TFLite's reference
 *                     kernel (kernels/internal/reference/add_n.h AddN, which add_n.cc's
 *                     EvalAddN calls at tensorflow 12114b2) sums x = 0; x += in[j] in input
 *                     order, and 0 + x0 = x0 (but for the sign of a zero), so the chain adds the
 *                     same values in the same order: bit for bit against the reference and
 *                     litegpu's kernel (later add_n.cc versions call optimized_ops::AddN with a
 *                     scratch tensor and the CPU backend context, whose order is not read here;
 *                     LiteRT.js agrees within the exact bound, tests/e2e/test_fix.sh).
 *  compare-per-consumer  a comparison (EQUAL ... LESS_EQUAL) whose output several CAST/SELECT/
 *                     SELECT_V2 ops read as their condition, each producing float (rules.def
 *                     compare-consumer; check_ops_elementwise.c check_compare_consumer: the
 *                     classic delegate takes a comparison only with exactly one such consumer)
 *                     -> one copy of the comparison per consumer, same inputs and options. Left
 *                     alone: a comparison that is a graph output or is read by any other op (a
 *                     copy would still not feed a CAST/SELECT producing float).
 *  space-depth-batch1 DEPTH_TO_SPACE / SPACE_TO_DEPTH of a rank-4 input whose batch N > 1
 *                     (rules.def webgpu-space-depth-batch: WebGPU returns zeros) -> RESHAPE
 *                     [N,H,W,C] to [1,N*H,W,C], the op (same options), RESHAPE to the output's
 *                     [N,H',W',C']. DEPTH_TO_SPACE moves input (n,h,w) to output rows
 *                     h*b..h*b+b-1 of image n, which in the [1,N*H,...] view is rows
 *                     (n*H+h)*b.. = n*(H*b)+h*b..: the rows of image n of the output, in order;
 *                     SPACE_TO_DEPTH reads b consecutive rows per output row, which stay in one
 *                     image as H is a multiple of b (space_to_depth.cc Prepare). Pure data
 *                     movement: exact. At batch 1 both ops are exact on WebGPU (litegpu verify,
 *                     tests/e2e/check_vs_webgpu.tsv). */
#include <stdlib.h>

#include "passes/fix_emit.h"

/* A tensor of the model: known, static and not per-axis quantized. */
static bool plain(const lg_pass_ctx *c, int32_t t) {
    return t >= 0 && (uint32_t)t < c->m->subgraphs[c->sg].n_tensors && !fx_dynamic(lgp_tensor(c, t)) &&
           lg_tensor_numel(lgp_tensor(c, t)) >= 0 && !fx_per_axis(lgp_tensor(c, t));
}

static bool is_const(const lg_pass_ctx *c, int32_t t) { return lg_tensor_is_const(c->m, c->sg, t); }

/* ================================================================== distinct-operands */

/* The binary ops of check_ops_elementwise.c lgc_rule_binary (ADD and MUL may share), and
   BATCH_MATMUL. */
static bool reads_two(int32_t code) {
    switch (code) {
    case LG_OP_SUB: case LG_OP_DIV: case LG_OP_ATAN2: case LG_OP_FLOOR_DIV: case LG_OP_FLOOR_MOD:
    case LG_OP_MAXIMUM: case LG_OP_MINIMUM: case LG_OP_POW: case LG_OP_SQUARED_DIFFERENCE:
    case LG_OP_RIGHT_SHIFT: case LG_OP_STABLEHLO_REMAINDER: case LG_OP_STABLEHLO_SHIFT_LEFT:
    case LG_OP_EQUAL: case LG_OP_NOT_EQUAL: case LG_OP_GREATER: case LG_OP_GREATER_EQUAL:
    case LG_OP_LESS: case LG_OP_LESS_EQUAL: case LG_OP_LOGICAL_AND: case LG_OP_LOGICAL_OR:
    case LG_OP_BITWISE_XOR: case LG_OP_BATCH_MATMUL:
        return true;
    default:
        return false;
    }
}

/* The shared operand x of op i, or -1: what the detector flags (inputs 0 and 1 one tensor). */
static int32_t shared_operand(const lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    if (!reads_two(lgp_code(c, i)) || op->n_inputs < 2 || op->inputs[0] < 0 || op->inputs[0] != op->inputs[1])
        return -1;
    return op->inputs[0];
}

static bool distinct_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    return shared_operand(c, i) >= 0;
}

static lg_status distinct_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    int32_t x = shared_operand(c, i);
    if (x < 0) return LG_OK;
    const lg_tensor *tx = lgp_tensor(c, x);
    if (is_const(c, x)) {
        lgp_skip(c, "op %u: x OP x of a constant is fold-constants' case", i);
        return LG_OK;
    }
    if (!plain(c, x) || tx->rank == 0) {
        lgp_skip(c, "op %u: the shared operand is %s: a RESHAPE copy would change its shape", i,
                 tx->rank == 0 ? "a scalar (rank 0)" : "dynamic or per-axis quantized");
        return LG_OK;
    }
    int32_t shape[LG_MAX_RANK], copy = -1;
    uint32_t r = tx->rank;
    memcpy(shape, tx->shape, r * sizeof shape[0]);
    LG_TRY(fx_tensor(c, x, "copy", tx->type, shape, r, &copy));
    int32_t res = -1;
    LG_TRY(fx_reshape(c, x, shape, r, copy, &res));
    LG_TRY(lg_op_set_input(c->m, c->sg, i, 1, copy, c->err));
    return fx_done(c, UINT32_MAX);
}

const lg_pass lgp_distinct_operands = {
    "distinct-operands", "x OP x (one tensor twice) -> x OP RESHAPE(x) to its own shape",
    {"identical-inputs", NULL}, true, 0, distinct_match, distinct_apply, false};

/* ================================================================== broadcast-rank */

/* check_broadcast's classic forms for mixed ranks (hi the higher-rank operand). */
static bool classic_takes(const lg_tensor *hi, const lg_tensor *lo) {
    if (hi->rank == 4 && lo->rank == 3 && hi->shape[0] == 1) return true;
    if (hi->rank == 4 && lo->rank == 2 && lo->shape[0] == 1 && lo->shape[1] == 1) return true;
    return hi->rank == 4 && lo->rank == 2 && lo->shape[0] == hi->shape[0] && lo->shape[1] == hi->shape[3];
}

/* ADD/MUL(a, b) that the classic rule refuses and a reshape of the lower-rank operand fixes:
   *slot is that operand's input slot. */
static bool bcast_site(const lg_pass_ctx *c, uint32_t i, uint32_t *slot) {
    int32_t code = lgp_code(c, i);
    const lg_op *op = lgp_op(c, i);
    if ((code != LG_OP_ADD && code != LG_OP_MUL) || op->n_inputs != 2 || op->n_outputs != 1) return false;
    int32_t a = op->inputs[0], b = op->inputs[1];
    if (!plain(c, a) || !plain(c, b) || !plain(c, op->outputs[0])) return false;
    const lg_tensor *ta = lgp_tensor(c, a), *tb = lgp_tensor(c, b);
    if (ta->rank == tb->rank || ta->rank <= 1 || tb->rank <= 1) return false;
    const lg_tensor *hi = ta->rank > tb->rank ? ta : tb, *lo = ta->rank > tb->rank ? tb : ta;
    if (hi->rank > 4 || classic_takes(hi, lo)) return false;
    /* numpy-broadcastable (the checker's lgc_broadcastable): otherwise no reshape helps */
    lg_shape sa = lg_shape_of_tensor(ta, false), sb = lg_shape_of_tensor(tb, false), so;
    if (lg_broadcast(&sa, &sb, &so, NULL) != LG_OK) return false;
    *slot = ta->rank > tb->rank ? 1 : 0;
    return true;
}

static bool bcast_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    uint32_t slot;
    return bcast_site(c, i, &slot);
}

static lg_status bcast_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    uint32_t slot;
    if (!bcast_site(c, i, &slot)) return LG_OK;
    int32_t lo = lgp_op(c, i)->inputs[slot], hi = lgp_op(c, i)->inputs[1 - slot];
    const lg_tensor *tl = lgp_tensor(c, lo);
    uint32_t r = lgp_tensor(c, hi)->rank, lead = r - tl->rank;
    int32_t shape[LG_MAX_RANK], v = -1;
    for (uint32_t d = 0; d < r; d++) shape[d] = d < lead ? 1 : tl->shape[d - lead];
    LG_TRY(fx_reshape(c, lo, shape, r, -1, &v));
    LG_TRY(lg_op_set_input(c->m, c->sg, i, slot, v, c->err));
    return fx_done(c, UINT32_MAX);
}

const lg_pass lgp_broadcast_rank = {
    "broadcast-rank", "ADD/MUL of mixed ranks the classic delegate refuses -> the lower-rank operand reshaped to equal rank",
    {"broadcast", NULL}, true, 0, bcast_match, bcast_apply, false};

/* ================================================================== add-n-chain */

#define ADD_N_MAX 64

static bool add_n_site(const lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    if (lgp_code(c, i) != LG_OP_ADD_N || op->n_outputs != 1 || op->n_inputs < 3 || op->n_inputs > ADD_N_MAX ||
        !plain(c, op->outputs[0]))
        return false;
    const lg_tensor *y = lgp_tensor(c, op->outputs[0]);
    if (y->type != LG_FLOAT32 && y->type != LG_FLOAT16 && y->type != LG_INT32) return false;
    bool runtime = false;
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        if (!plain(c, t) || !fx_same_shape(lgp_tensor(c, t), y) || lgp_tensor(c, t)->type != y->type) return false;
        runtime |= !is_const(c, t);
    }
    return runtime; /* all constant: fold-constants' case */
}

static bool add_n_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    return add_n_site(c, i);
}

static lg_status add_n_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    if (!add_n_site(c, i)) return LG_OK;
    const lg_op *op = lgp_op(c, i);
    uint32_t n = op->n_inputs;
    int32_t in[ADD_N_MAX], y = op->outputs[0];
    memcpy(in, op->inputs, n * sizeof in[0]);
    lg_add_options ao;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    const lg_tensor *ty = lgp_tensor(c, y);
    int32_t shape[LG_MAX_RANK], acc = in[0];
    memcpy(shape, ty->shape, ty->rank * sizeof shape[0]);
    for (uint32_t k = 1; k < n; k++) {
        int32_t out = y;
        if (k + 1 < n) {
            char sfx[24];
            snprintf(sfx, sizeof sfx, "sum%u", k);
            LG_TRY(fx_tensor(c, y, sfx, ty->type, shape, ty->rank, &out));
        }
        LG_TRY(fx_op(c, LG_OP_ADD, (const int32_t[]){acc, in[k]}, 2, &out, 1, &ao));
        acc = out;
        ty = lgp_tensor(c, y);
    }
    return fx_done(c, i);
}

const lg_pass lgp_add_n_chain = {
    "add-n-chain", "ADD_N of n != 2 inputs -> a chain of ADDs in input order (TFLite's own order)",
    {"input-count", NULL}, true, 0, add_n_match, add_n_apply, false};

/* ================================================================== compare-per-consumer */

static bool is_compare(int32_t code) {
    return code == LG_OP_EQUAL || code == LG_OP_NOT_EQUAL || code == LG_OP_GREATER ||
           code == LG_OP_GREATER_EQUAL || code == LG_OP_LESS || code == LG_OP_LESS_EQUAL;
}

/* A use the classic delegate takes after the split: the condition of a CAST/SELECT/SELECT_V2
   producing float. */
static bool float_consumer(const lg_pass_ctx *c, const lg_use *u) {
    const lg_op *op = lgp_op(c, (uint32_t)u->op);
    int32_t code = lgp_code(c, (uint32_t)u->op);
    if ((code != LG_OP_CAST && code != LG_OP_SELECT && code != LG_OP_SELECT_V2) || u->slot != 0 ||
        op->n_outputs != 1 || op->outputs[0] < 0)
        return false;
    int t = lgp_tensor(c, op->outputs[0])->type;
    return t == LG_FLOAT32 || t == LG_FLOAT16;
}

static bool compare_site(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    if (!is_compare(lgp_code(c, i)) || op->n_outputs != 1 || op->outputs[0] < 0) return false;
    int32_t y = op->outputs[0];
    if (lg_graph_is_output(g, y)) return false;
    uint32_t n = 0;
    const lg_use *u = lg_graph_uses(g, y, &n);
    if (n < 2 || n > FX_MAX_PIECES) return false;
    for (uint32_t k = 0; k < n; k++)
        if (!float_consumer(c, &u[k])) return false;
    return true;
}

static bool compare_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) { return compare_site(c, g, i); }

static lg_status compare_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    if (!compare_site(c, g, i)) return LG_OK;
    const lg_op *op = lgp_op(c, i);
    int32_t code = lgp_code(c, i), y = op->outputs[0], in[8];
    int32_t version = c->m->opcodes[op->opcode_index].version;
    uint32_t n_in = op->n_inputs, n = 0;
    if (n_in > 8) return LG_OK;
    memcpy(in, op->inputs, n_in * sizeof in[0]);
    const lg_use *u = lg_graph_uses(g, y, &n);
    lg_use uses[FX_MAX_PIECES];
    memcpy(uses, u, n * sizeof uses[0]);
    for (uint32_t k = 1; k < n; k++) {
        const lg_tensor *ty = lgp_tensor(c, y);
        int32_t shape[LG_MAX_RANK], copy = -1;
        memcpy(shape, ty->shape, ty->rank * sizeof shape[0]);
        char sfx[24];
        snprintf(sfx, sizeof sfx, "for%u", k);
        LG_TRY(fx_tensor(c, y, sfx, ty->type, shape, ty->rank, &copy));
        op = lgp_op(c, i); /* adding may move the op array; its options block stays */
        LG_TRY(lg_subgraph_add_op(c->m, c->sg, code, NULL, version, in, n_in, &copy, 1, op->opts_kind, op->opts,
                                  NULL, c->err));
        c->delta->ops_added++;
        LG_TRY(lg_op_set_input(c->m, c->sg, (uint32_t)uses[k].op, uses[k].slot, copy, c->err));
    }
    return fx_done(c, UINT32_MAX);
}

const lg_pass lgp_compare_per_consumer = {
    "compare-per-consumer", "a comparison read by several CAST/SELECT ops -> one comparison per consumer",
    {"compare-consumer", NULL}, true, 0, compare_match, compare_apply, false};

/* ================================================================== space-depth-batch1 */

static int block_size(const lg_op *op, int32_t code) {
    if (!op->opts) return 0;
    if (code == LG_OP_DEPTH_TO_SPACE && op->opts_kind == LG_OPTS_DEPTH_TO_SPACE_OPTIONS)
        return ((const lg_depth_to_space_options *)op->opts)->block_size;
    if (code == LG_OP_SPACE_TO_DEPTH && op->opts_kind == LG_OPTS_SPACE_TO_DEPTH_OPTIONS)
        return ((const lg_space_to_depth_options *)op->opts)->block_size;
    return 0;
}

/* The op the detector flags (check_ops_shape.c lgc_rule_space_depth: a rank-4 input of batch
   > 1), with a static runtime input, block > 1 and the output shape the kernel computes. */
static bool sd_site(const lg_pass_ctx *c, uint32_t i) {
    int32_t code = lgp_code(c, i);
    const lg_op *op = lgp_op(c, i);
    if ((code != LG_OP_DEPTH_TO_SPACE && code != LG_OP_SPACE_TO_DEPTH) || op->n_inputs != 1 || op->n_outputs != 1)
        return false;
    int32_t x = op->inputs[0], y = op->outputs[0];
    if (!plain(c, x) || !plain(c, y) || is_const(c, x)) return false;
    const lg_tensor *tx = lgp_tensor(c, x), *ty = lgp_tensor(c, y);
    int b = block_size(op, code);
    if (tx->rank != 4 || ty->rank != 4 || tx->shape[0] <= 1 || ty->shape[0] != tx->shape[0] || b <= 1) return false;
    if (code == LG_OP_DEPTH_TO_SPACE)
        return tx->shape[3] % (b * b) == 0 && ty->shape[1] == tx->shape[1] * b && ty->shape[2] == tx->shape[2] * b &&
               ty->shape[3] == tx->shape[3] / (b * b);
    return tx->shape[1] % b == 0 && tx->shape[2] % b == 0 && ty->shape[1] == tx->shape[1] / b &&
           ty->shape[2] == tx->shape[2] / b && ty->shape[3] == tx->shape[3] * b * b;
}

static bool sd_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    return sd_site(c, i);
}

static lg_status sd_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    if (!sd_site(c, i)) return LG_OK;
    const lg_op *op = lgp_op(c, i);
    int32_t code = lgp_code(c, i), x = op->inputs[0], y = op->outputs[0];
    union {
        lg_depth_to_space_options d2s;
        lg_space_to_depth_options s2d;
    } o;
    memcpy(&o, op->opts, code == LG_OP_DEPTH_TO_SPACE ? sizeof o.d2s : sizeof o.s2d);
    const lg_tensor *tx = lgp_tensor(c, x), *ty = lgp_tensor(c, y);
    int32_t vin[4] = {1, tx->shape[0] * tx->shape[1], tx->shape[2], tx->shape[3]};
    int32_t vout[4] = {1, ty->shape[0] * ty->shape[1], ty->shape[2], ty->shape[3]};
    int32_t yshape[4] = {ty->shape[0], ty->shape[1], ty->shape[2], ty->shape[3]};
    int32_t view = -1, mid = -1, res = -1;
    LG_TRY(fx_reshape(c, x, vin, 4, -1, &view));
    LG_TRY(fx_tensor(c, y, "batch1", lgp_tensor(c, y)->type, vout, 4, &mid));
    LG_TRY(fx_op(c, code, &view, 1, &mid, 1, &o));
    LG_TRY(fx_reshape(c, mid, yshape, 4, y, &res));
    return fx_done(c, i);
}

const lg_pass lgp_space_depth_batch1 = {
    "space-depth-batch1",
    "DEPTH_TO_SPACE/SPACE_TO_DEPTH of batch N > 1 -> RESHAPE to [1,N*H,W,C], the op, RESHAPE back",
    {"webgpu-space-depth-batch", NULL}, true, 0, sd_match, sd_apply, false};
