/* int64-to-int32: INT64 runtime tensors become INT32 (issue #11).
 *
 * Rules: int64-tensor (Mali and WebGPU reject INT64 runtime tensors: the seed's DAC RVQ
 * "CAST: Tensor type(INT64) is not supported", peers.md) and, on the other families, the
 * delegate-source dtype check (tensor-dtype), neither of which lists INT64.
 *
 * The unit is a connected region: starting from an INT64 runtime tensor of the matched op,
 * every op that reads or writes a region tensor joins, and so do all of its INT64 runtime
 * tensors. The region is retyped INT32 only when every op in it computes the same values in
 * INT32, which the table below says per op and input slot:
 *  - "data" slots carry values to the output unchanged (RESHAPE, TRANSPOSE, SLICE, CONCAT,
 *    GATHER's params, MAXIMUM/MINIMUM, REDUCE_MAX/MIN, SELECT's values, PAD...): a value that
 *    fits in int32 stays one; an INT64 constant in a data slot is replaced by an INT32 copy
 *    when every value fits (else the region is refused with a note);
 *  - "index" slots read integers of any width the same way (GATHER/GATHER_ND indices,
 *    EMBEDDING_LOOKUP ids, ONE_HOT indices, shapes, axes, begin/size, paddings, a CAST's input,
 *    ARG_MAX's input, whose order int32 keeps);
 *  - the ops that make INT64 values: ARG_MAX/ARG_MIN (output_type: indices < 2^31), SHAPE
 *    (out_type: dims), CAST to INT64. A CAST from an integer of 32 bits or less is exact; a
 *    CAST from float is exact for |x| < 2^31, the range of every index and position the
 *    seed's models compute (beyond it TFLite's own float->int32 cast has no defined value);
 *    comparisons (data slots, BOOL out).
 * Arithmetic on INT64 (ADD, SUB, MUL, CUMSUM, SUM...) is refused: int32 could overflow where
 * int64 did not. A region that reaches a graph input or output is refused unless
 * lg_pass_run_options.io_int32 is set (`fix --io-int32`, a declared change of the model's
 * I/O contract); then those tensors become INT32 too. A CAST left from INT32 to INT32 is
 * removed (its consumers read its input).
 *
 * Rule const-axes, the INT64 half of it: a reduction's, CUMSUM's or REVERSE_V2's constant
 * INT64 axes ("supports int32 tensor for axes") are read as an INT32 copy when they fit. */
#include <stdlib.h>

#include "passes/fix_emit.h"

enum { OUT_NONE, OUT_DATA, OUT_NEW };
#define ALL 0xffffu

typedef struct i64rule {
    int32_t code;
    uint16_t data, index;  /* input slot masks */
    uint8_t out;           /* what an INT64 output of the op is */
} i64rule;

static const i64rule rules[] = {
    {LG_OP_RESHAPE, 1, 2, OUT_DATA},           {LG_OP_SQUEEZE, 1, 0, OUT_DATA},
    {LG_OP_EXPAND_DIMS, 1, 2, OUT_DATA},       {LG_OP_TRANSPOSE, 1, 2, OUT_DATA},
    {LG_OP_SLICE, 1, 6, OUT_DATA},             {LG_OP_STRIDED_SLICE, 1, 14, OUT_DATA},
    {LG_OP_CONCATENATION, ALL, 0, OUT_DATA},   {LG_OP_PACK, ALL, 0, OUT_DATA},
    {LG_OP_UNPACK, 1, 0, OUT_DATA},            {LG_OP_SPLIT, 2, 1, OUT_DATA},
    {LG_OP_SPLIT_V, 1, 6, OUT_DATA},           {LG_OP_TILE, 1, 2, OUT_DATA},
    {LG_OP_BROADCAST_TO, 1, 2, OUT_DATA},      {LG_OP_GATHER, 1, 2, OUT_DATA},
    {LG_OP_GATHER_ND, 1, 2, OUT_DATA},         {LG_OP_REVERSE_V2, 1, 2, OUT_DATA},
    {LG_OP_MAXIMUM, 3, 0, OUT_DATA},           {LG_OP_MINIMUM, 3, 0, OUT_DATA},
    {LG_OP_REDUCE_MAX, 1, 2, OUT_DATA},        {LG_OP_REDUCE_MIN, 1, 2, OUT_DATA},
    {LG_OP_SELECT, 6, 0, OUT_DATA},            {LG_OP_SELECT_V2, 6, 0, OUT_DATA},
    {LG_OP_PAD, 1, 2, OUT_DATA},               {LG_OP_PADV2, 5, 2, OUT_DATA},
    {LG_OP_ZEROS_LIKE, 1, 0, OUT_DATA},        {LG_OP_FILL, 2, 1, OUT_DATA},
    {LG_OP_EMBEDDING_LOOKUP, 2, 1, OUT_DATA},  {LG_OP_ONE_HOT, 12, 3, OUT_DATA},
    {LG_OP_SCATTER_ND, 2, 5, OUT_DATA},        {LG_OP_CAST, 0, 1, OUT_NEW},
    {LG_OP_ARG_MAX, 0, 3, OUT_NEW},            {LG_OP_ARG_MIN, 0, 3, OUT_NEW},
    {LG_OP_SHAPE, 0, 1, OUT_NEW},              {LG_OP_EQUAL, 3, 0, OUT_NONE},
    {LG_OP_NOT_EQUAL, 3, 0, OUT_NONE},         {LG_OP_LESS, 3, 0, OUT_NONE},
    {LG_OP_LESS_EQUAL, 3, 0, OUT_NONE},        {LG_OP_GREATER, 3, 0, OUT_NONE},
    {LG_OP_GREATER_EQUAL, 3, 0, OUT_NONE},
};

static const i64rule *rule_of(int32_t code) {
    for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++)
        if (rules[k].code == code) return &rules[k];
    return NULL;
}

static bool rt64(const lg_pass_ctx *c, int32_t t) {
    return t >= 0 && lgp_tensor(c, t)->type == LG_INT64 && !lg_tensor_is_const(c->m, c->sg, t);
}

static bool has_rt64(const lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    for (uint32_t k = 0; k < op->n_inputs; k++)
        if (rt64(c, op->inputs[k])) return true;
    for (uint32_t k = 0; k < op->n_outputs; k++)
        if (rt64(c, op->outputs[k])) return true;
    return false;
}

typedef struct region {
    uint8_t *tin;           /* per tensor: in the region */
    uint8_t *oin;           /* per op: touches the region */
    int32_t *queue;
    uint32_t nq;
    char why[160];
} region;

static void region_free(region *r) {
    free(r->tin);
    free(r->oin);
    free(r->queue);
}

static void add_tensor(region *r, int32_t t) {
    if (r->tin[t]) return;
    r->tin[t] = 1;
    r->queue[r->nq++] = t;
}

static void add_op(const lg_pass_ctx *c, region *r, int32_t i) {
    if (i < 0 || r->oin[i]) return;
    r->oin[i] = 1;
    const lg_op *op = lgp_op(c, (uint32_t)i);
    for (uint32_t k = 0; k < op->n_inputs; k++)
        if (rt64(c, op->inputs[k])) add_tensor(r, op->inputs[k]);
    for (uint32_t k = 0; k < op->n_outputs; k++)
        if (rt64(c, op->outputs[k])) add_tensor(r, op->outputs[k]);
}

/* The region of op i: its INT64 runtime tensors, closed under "an op touching one". */
static lg_status grow(const lg_pass_ctx *c, const lg_graph *g, uint32_t i, region *r) {
    const lg_subgraph *sg = &c->m->subgraphs[c->sg];
    memset(r, 0, sizeof *r);
    r->tin = calloc(sg->n_tensors ? sg->n_tensors : 1, 1);
    r->oin = calloc(sg->n_ops ? sg->n_ops : 1, 1);
    r->queue = malloc((sg->n_tensors ? sg->n_tensors : 1) * sizeof *r->queue);
    if (!r->tin || !r->oin || !r->queue) {
        region_free(r);
        return lgi_fail(c->err, LG_ERR_NOMEM, "int64-to-int32: out of memory");
    }
    add_op(c, r, (int32_t)i);
    for (uint32_t q = 0; q < r->nq; q++) {
        int32_t t = r->queue[q];
        add_op(c, r, lg_graph_producer(g, t));
        uint32_t n = 0;
        const lg_use *u = lg_graph_uses(g, t, &n);
        for (uint32_t k = 0; k < n; k++) add_op(c, r, u[k].op);
    }
    return LG_OK;
}

static bool fits_i32(const lg_pass_ctx *c, int32_t t) {
    const lg_tensor *x = lgp_tensor(c, t);
    const lg_buffer *b = lg_tensor_buffer(c->m, x);
    int64_t n = lg_tensor_numel(x);
    if (!b || x->sparsity || n < 0 || b->size != (uint64_t)n * 8) return false;
    for (int64_t k = 0; k < n; k++) {
        int64_t v = (int64_t)lgi_rd_u64(b->data + 8 * k);
        if (v < INT32_MIN || v > INT32_MAX) return false;
    }
    return true;
}

/* Can op i of the region compute in INT32? (why names the reason when not) */
static bool op_ok(const lg_pass_ctx *c, uint32_t i, region *r) {
    const lg_op *op = lgp_op(c, i);
    const char *name = lg_op_name(c->m, op);
    const i64rule *ru = rule_of(lgp_code(c, i));
    if (!ru) {
        snprintf(r->why, sizeof r->why, "op %u (%s) computes on INT64 (int32 could differ)", i, name);
        return false;
    }
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        if (t < 0 || lgp_tensor(c, t)->type != LG_INT64) continue;
        bool data = k < 16 && (ru->data >> k & 1), index = k < 16 && (ru->index >> k & 1);
        if (r->tin[t] && !data && !index) {
            snprintf(r->why, sizeof r->why, "op %u (%s) reads INT64 input %u in a way int32 may not keep", i, name, k);
            return false;
        }
        if (!r->tin[t] && data && lg_tensor_is_const(c->m, c->sg, t) && !fits_i32(c, t)) {
            snprintf(r->why, sizeof r->why, "op %u (%s): INT64 constant %d holds values out of int32 range", i, name, t);
            return false;
        }
    }
    for (uint32_t k = 0; k < op->n_outputs; k++)
        if (op->outputs[k] >= 0 && r->tin[op->outputs[k]] && ru->out == OUT_NONE) {
            snprintf(r->why, sizeof r->why, "op %u (%s) writes an INT64 output int32 may not hold", i, name);
            return false;
        }
    return true;
}

static bool region_ok(const lg_pass_ctx *c, const lg_graph *g, region *r) {
    const lg_subgraph *sg = &c->m->subgraphs[c->sg];
    for (uint32_t q = 0; q < r->nq; q++) {
        int32_t t = r->queue[q];
        if (lgp_tensor(c, t)->is_variable) {
            snprintf(r->why, sizeof r->why, "tensor %d is a variable", t);
            return false;
        }
        if (!c->opt->io_int32 && (lg_graph_is_input(g, t) || lg_graph_is_output(g, t))) {
            snprintf(r->why, sizeof r->why, "INT64 graph %s %d \"%.40s\" (io_int32 / --io-int32 retypes it)",
                     lg_graph_is_input(g, t) ? "input" : "output", t, lgp_tensor(c, t)->name ? lgp_tensor(c, t)->name : "");
            return false;
        }
    }
    for (uint32_t i = 0; i < sg->n_ops; i++)
        if (r->oin[i] && !op_ok(c, i, r)) return false;
    return true;
}

/* Every INT64 constant in a data slot of a region op reads an INT32 copy. */
static lg_status narrow_constants(lg_pass_ctx *c, region *r) {
    const lg_subgraph *sg = &c->m->subgraphs[c->sg];
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        if (!r->oin[i]) continue;
        const i64rule *ru = rule_of(lgp_code(c, i));
        for (uint32_t k = 0; k < lgp_op(c, i)->n_inputs && k < 16; k++) {
            int32_t t = lgp_op(c, i)->inputs[k];
            if (t < 0 || r->tin[t] || !(ru->data >> k & 1) || lgp_tensor(c, t)->type != LG_INT64 ||
                !lg_tensor_is_const(c->m, c->sg, t))
                continue;
            const lg_tensor *x = lgp_tensor(c, t);
            int64_t n = lg_tensor_numel(x);
            int32_t *v = malloc((size_t)(n ? n : 1) * 4), shape[LG_MAX_RANK], nt = -1;
            if (!v) return lgi_fail(c->err, LG_ERR_NOMEM, "int64-to-int32: out of memory");
            const uint8_t *d = lg_tensor_buffer(c->m, x)->data;
            for (int64_t e = 0; e < n; e++) v[e] = (int32_t)(int64_t)lgi_rd_u64(d + 8 * e);
            memcpy(shape, x->shape, x->rank * sizeof shape[0]);
            lg_status st = fx_const(c, t, "int32", LG_INT32, shape, x->rank, v, (uint64_t)n * 4, &nt);
            free(v);
            LG_TRY(st);
            LG_TRY(lg_op_set_input(c->m, c->sg, i, k, nt, c->err));
        }
    }
    return LG_OK;
}

/* Output-type options of the region's ops follow their retyped tensors. */
static lg_status retype_options(lg_pass_ctx *c, region *r) {
    const lg_subgraph *sg = &c->m->subgraphs[c->sg];
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        if (!r->oin[i]) continue;
        lg_op *op = lgp_op(c, i);
        if (!op->opts || op->n_outputs < 1 || op->outputs[0] < 0) continue;
        int8_t ot = lgp_tensor(c, op->outputs[0])->type;
        if (op->opts_kind == LG_OPTS_ARG_MAX_OPTIONS) ((lg_arg_max_options *)op->opts)->output_type = ot;
        if (op->opts_kind == LG_OPTS_ARG_MIN_OPTIONS) ((lg_arg_min_options *)op->opts)->output_type = ot;
        if (op->opts_kind == LG_OPTS_SHAPE_OPTIONS) ((lg_shape_options *)op->opts)->out_type = ot;
        if (op->opts_kind == LG_OPTS_CAST_OPTIONS && op->inputs[0] >= 0) {
            lg_cast_options *co = op->opts;
            co->in_data_type = lgp_tensor(c, op->inputs[0])->type;
            co->out_data_type = ot;
        }
    }
    return LG_OK;
}

/* CASTs of the region that became INT32 -> INT32: their consumers read the input. */
static lg_status drop_identity_casts(lg_pass_ctx *c, const region *r) {
    for (bool again = true; again;) {
        again = false;
        lg_graph *g = NULL;
        LG_TRY(lg_graph_build(c->m, c->sg, &g, c->err));
        for (uint32_t i = 0; i < c->m->subgraphs[c->sg].n_ops && !again; i++) {
            const lg_op *op = lgp_op(c, i);
            if (lgp_code(c, i) != LG_OP_CAST || op->n_inputs != 1 || op->n_outputs != 1 || op->inputs[0] < 0)
                continue;
            const lg_tensor *a = lgp_tensor(c, op->inputs[0]), *b = lgp_tensor(c, op->outputs[0]);
            if (!r->tin[op->outputs[0]] || a->type != LG_INT32 || !lgp_same_layout(a, b)) continue;
            lg_status st = lgp_bypass(c, g, i, op->inputs[0], &again);
            if (st != LG_OK) {
                lg_graph_free(g);
                return st;
            }
            if (again) c->delta->ops_removed++;
        }
        lg_graph_free(g);
    }
    return LG_OK;
}

/* The ops whose axes input (slot 1) must be a constant INT32 (check_util.c
   lgc_need_const_i32: "supports int32 tensor for axes", rule const-axes). */
static bool axes_op(int32_t code) {
    switch (code) {
    case LG_OP_MEAN: case LG_OP_SUM: case LG_OP_REDUCE_MAX: case LG_OP_REDUCE_MIN: case LG_OP_REDUCE_PROD:
    case LG_OP_REDUCE_ANY: case LG_OP_REDUCE_ALL: case LG_OP_CUMSUM: case LG_OP_REVERSE_V2:
        return true;
    default:
        return false;
    }
}

/* Op i reads constant INT64 axes whose values fit in int32. */
static bool const_i64_axes(const lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    if (!axes_op(lgp_code(c, i)) || op->n_inputs < 2 || op->inputs[1] < 0) return false;
    int32_t t = op->inputs[1];
    return lgp_tensor(c, t)->type == LG_INT64 && lg_tensor_is_const(c->m, c->sg, t) && fits_i32(c, t);
}

/* The axes read as an INT32 copy (the same values). */
static lg_status narrow_axes(lg_pass_ctx *c, uint32_t i) {
    int32_t t = lgp_op(c, i)->inputs[1], v[LG_MAX_RANK], nt = -1;
    int64_t a[LG_MAX_RANK];
    uint32_t n = 0;
    if (!lgp_const_ints(c, t, a, LG_MAX_RANK, &n)) {
        lgp_skip(c, "op %u: more than %d axes", i, LG_MAX_RANK);
        return LG_OK;
    }
    for (uint32_t k = 0; k < n; k++) v[k] = (int32_t)a[k];
    const lg_tensor *x = lgp_tensor(c, t);
    int32_t shape[LG_MAX_RANK];
    memcpy(shape, x->shape, x->rank * sizeof shape[0]);
    LG_TRY(fx_const(c, t, "int32", LG_INT32, shape, x->rank, v, 4ull * n, &nt));
    LG_TRY(lg_op_set_input(c->m, c->sg, i, 1, nt, c->err));
    c->delta->applied++;
    return LG_OK;
}

static bool i64_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    return has_rt64(c, i) || const_i64_axes(c, i);
}

static lg_status i64_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    if (const_i64_axes(c, i)) return narrow_axes(c, i); /* the runner rescans for the rest */
    if (!has_rt64(c, i)) return LG_OK;
    region r;
    LG_TRY(grow(c, g, i, &r));
    if (!region_ok(c, g, &r)) {
        lgp_skip(c, "op %u (%s): %s", i, lg_op_name(c->m, lgp_op(c, i)), r.why);
        region_free(&r);
        return LG_OK;
    }
    lg_status st = narrow_constants(c, &r);
    for (uint32_t q = 0; st == LG_OK && q < r.nq; q++) lgp_tensor(c, r.queue[q])->type = LG_INT32;
    if (st == LG_OK) st = retype_options(c, &r);
    if (st == LG_OK) st = drop_identity_casts(c, &r);
    region_free(&r);
    LG_TRY(st);
    c->delta->applied++;
    return LG_OK;
}

const lg_pass lgp_int64_to_int32 = {
    "int64-to-int32", "INT64 runtime tensors -> INT32 where every op computes the same values",
    {"int64-tensor", "tensor-dtype", "const-axes", NULL}, true, 0, i64_match, i64_apply, false};
