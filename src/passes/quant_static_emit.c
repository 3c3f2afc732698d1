/* litegpu quantize int8-static: the edits that turn the plan (quant_static.c) into the int8
 * model, on a copy of the input whose tensor indices are the input's (lg_model_clone).
 *
 * Every float activation t of the input gets the forms its producer and readers need:
 *   - its own index keeps the form of the graph interface for an input or output (FLOAT32, or
 *     INT8 with int8_io), else the form its producer writes (INT8 after an int8 op);
 *   - the other form, when something needs it, is a new tensor NAME_int8 / NAME_float written
 *     by one QUANTIZE (float -> int8) or DEQUANTIZE (int8 -> float) from the first;
 * so a tensor has at most one boundary op, and no DEQUANTIZE feeds a QUANTIZE of the same
 * values. Constants read by int8 ops as activations become INT8 constants NAME_int8 with
 * their group's parameters; weights NAME_int8 (lgq_store_weight), biases NAME_int32, a
 * PADV2's pad value NAME_int8 (clamped into range: -inf gives -128). The ops that folded
 * the old float weights (DEQUANTIZE of FLOAT16, DENSIFY) and are no longer read are removed;
 * the new ops are placed by a stable topological sort, then the copy is compacted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/op_version.h"
#include "lg/ops.h"
#include "passes/quant_impl.h"
#include "passes/quant_static_impl.h"

typedef struct ectx {
    const lgqs_plan *p;
    lg_model *m;
    lg_quant_report *rep;
    lg_error *err;
    int32_t *i8, *f32;         /* per input tensor: its INT8 / FLOAT32 form in m, or -1 */
    int32_t *qw;               /* per input tensor: its INT8 weights (first axis seen), or -1 */
    int32_t *bnd_from, *bnd_to; /* boundary ops to add: from -> to (QUANTIZE or DEQUANTIZE by type) */
    uint32_t n_bnd;
    uint32_t cap_w, cap_f;
} ectx;

static const lg_tensor *st(const ectx *c, int32_t t) { return &c->p->sg->tensors[t]; }

static lg_status nomem(ectx *c) { return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory"); }

/* A new runtime tensor of src tensor t's shape, named NAME_suffix, of `type` (INT8: with the
   scale and zero point of t's group). */
static lg_status new_tensor(ectx *c, int32_t t, const char *suffix, lg_dtype type, float scale, int32_t zp, int32_t *out) {
    const lg_tensor *x = st(c, t);
    char nm[300];
    snprintf(nm, sizeof nm, "%s_%s", x->name ? x->name : "", suffix);
    int32_t shape[LG_MAX_RANK];
    uint32_t rank = x->rank <= LG_MAX_RANK ? x->rank : LG_MAX_RANK;
    if (rank) memcpy(shape, x->shape, rank * sizeof *shape);
    LG_TRY(lg_subgraph_add_tensor(c->m, 0, nm, type, shape, rank, out, c->err));
    if (type != LG_INT8) return LG_OK;
    int64_t z = zp;
    return lg_tensor_set_quant(c->m, 0, (uint32_t)*out, &scale, &z, 1, 0, c->err);
}

/* Make m's tensor t an INT8 runtime tensor with t's group parameters. */
static lg_status retype_int8(ectx *c, int32_t t) {
    c->m->subgraphs[0].tensors[t].type = LG_INT8;
    int64_t z = c->p->zp[t];
    return lg_tensor_set_quant(c->m, 0, (uint32_t)t, &c->p->scale[t], &z, 1, 0, c->err);
}

static void add_boundary(ectx *c, int32_t from, int32_t to) {
    c->bnd_from[c->n_bnd] = from;
    c->bnd_to[c->n_bnd++] = to;
}

/* ------------------------------------------------------------------ forms of the activations */

static bool produced_int8(const ectx *c, int32_t t) {
    const lgqs_plan *p = c->p;
    int32_t pr = lg_graph_producer(p->g, t);
    if (pr >= 0) return p->op_int8[pr]; /* a folded chain's last op: its producer writes t in int8 */
    return p->o->int8_io && lg_graph_is_input(p->g, t);
}

/* Some op reads t as a float: a float op, or an int8 op at a slot that is no activation. */
static bool read_float(const ectx *c, int32_t t) {
    const lgqs_plan *p = c->p;
    uint32_t n = 0;
    const lg_use *u = lg_graph_uses(p->g, t, &n);
    for (uint32_t k = 0; k < n; k++) {
        int32_t i = u[k].op;
        if (p->op_const[i]) continue;
        if (!p->op_int8[i]) return true;
        const lgqs_op *e = lgqs_find(lg_op_builtin(p->src, &p->sg->ops[i]));
        if (!lgqs_act_slot(e, e->code, u[k].slot)) return true;
    }
    return false;
}

static lg_status forms_of(ectx *c, int32_t t) {
    const lgqs_plan *p = c->p;
    if (p->gone[t]) return LG_OK; /* inside a folded clamp chain: nothing reads or writes it */
    const bool io = lg_graph_is_input(p->g, t) || lg_graph_is_output(p->g, t);
    const bool made8 = produced_int8(c, t);
    const bool prim8 = io ? p->o->int8_io : made8;
    const bool need8 = p->member[t];
    const bool needf = read_float(c, t) || (lg_graph_is_output(p->g, t) && !p->o->int8_io);
    if (prim8) {
        LG_TRY(retype_int8(c, t));
        c->i8[t] = t;
        if (!made8 || needf) LG_TRY(new_tensor(c, t, "float", LG_FLOAT32, 0, 0, &c->f32[t]));
        if (!made8) add_boundary(c, c->f32[t], t);       /* a float op writes an INT8 output */
        else if (needf) add_boundary(c, t, c->f32[t]);
        return LG_OK;
    }
    c->f32[t] = t;
    if (made8 || need8) LG_TRY(new_tensor(c, t, "int8", LG_INT8, p->scale[t], p->zp[t], &c->i8[t]));
    if (made8) add_boundary(c, c->i8[t], t);             /* an int8 op writes a FLOAT32 output */
    else if (need8) add_boundary(c, t, c->i8[t]);
    return LG_OK;
}

/* ------------------------------------------------------------------ constants */

/* QUANTIZE's arithmetic (kernel_util.cc / AffineQuantize: TfLiteRound(v / scale) + zero
   point, clamped); -inf gives -128, +inf 127, NaN the zero point. */
static int8_t quant8(float v, float scale, int32_t zp) {
    if (isnan(v)) return (int8_t)zp;
    double d = (double)roundf(v / scale) + zp;
    return (int8_t)(d < -128 ? -128 : d > 127 ? 127 : d);
}

/* A constant (or folded) tensor t read as an activation: an INT8 constant with its group's
   parameters (for a pad value: those of the padded data, tensor `like`). */
static lg_status const_int8(ectx *c, int32_t t, int32_t like, int32_t *out) {
    int64_t n = 0;
    const float *v = lgq_calib_values(c->p->cal, t, &n);
    if (!v) return lgi_fail_at(c->err, LG_ERR_INTERNAL, 0, -1, t, "int8-static: no values for constant tensor %d", t);
    int8_t *q = malloc((size_t)(n ? n : 1));
    if (!q) return nomem(c);
    const float s = c->p->scale[like];
    const int32_t zp = c->p->zp[like];
    for (int64_t i = 0; i < n; i++) q[i] = quant8(v[i], s, zp);
    const lg_tensor *x = st(c, t);
    char nm[300];
    snprintf(nm, sizeof nm, "%s_int8", x->name ? x->name : "");
    int32_t shape[LG_MAX_RANK];
    uint32_t rank = x->rank <= LG_MAX_RANK ? x->rank : LG_MAX_RANK;
    if (rank) memcpy(shape, x->shape, rank * sizeof *shape);
    lg_status stt = lg_subgraph_add_const(c->m, 0, nm, LG_INT8, shape, rank, q, (uint64_t)n, out, c->err);
    free(q);
    LG_TRY(stt);
    int64_t z = zp;
    return lg_tensor_set_quant(c->m, 0, (uint32_t)*out, &s, &z, 1, 0, c->err);
}

static lg_quant_weight *add_weight(ectx *c) {
    lg_quant_report *r = c->rep;
    if (r->n_weights == c->cap_w) {
        uint32_t nc = c->cap_w ? 2 * c->cap_w : 16;
        void *q = realloc(r->weights, nc * sizeof *r->weights);
        if (!q) return NULL;
        r->weights = q;
        c->cap_w = nc;
    }
    lg_quant_weight *w = &r->weights[r->n_weights++];
    memset(w, 0, sizeof *w);
    return w;
}

/* How weight w was stored in the input: FLOAT16 read through a DEQUANTIZE, or FLOAT32. */
static int8_t stored_type(const ectx *c, int32_t w) {
    int32_t pr = lg_graph_producer(c->p->g, w);
    if (pr < 0) return LG_FLOAT32;
    const lg_op *op = &c->p->sg->ops[pr];
    if (lg_op_builtin(c->p->src, op) == LG_OP_DEQUANTIZE && op->n_inputs == 1 && op->inputs[0] >= 0 &&
        st(c, op->inputs[0])->type == LG_FLOAT16 && !st(c, op->inputs[0])->sparsity)
        return LG_FLOAT16;
    return LG_FLOAT32;
}

static lg_status record_weight(ectx *c, int32_t w, uint32_t op, int32_t axis, const lgq_result *res) {
    if (!c->rep) return LG_OK;
    lg_quant_weight *rw = add_weight(c);
    if (!rw) return nomem(c);
    const lg_tensor *x = st(c, w);
    const char *sn = c->m->subgraphs[0].tensors[res->qtensor].name;
    rw->tensor = w;
    rw->op = (int32_t)op;
    rw->code = lg_op_builtin(c->p->src, &c->p->sg->ops[op]);
    rw->name = strdup(x->name ? x->name : "");
    rw->stored = strdup(sn ? sn : "");
    if (!rw->name || !rw->stored) return nomem(c);
    rw->from_type = stored_type(c, w);
    rw->to_type = LG_INT8;
    rw->numel = lg_tensor_numel(x);
    rw->axis = axis;
    rw->n_scales = res->n_scales;
    rw->bytes_before = (uint64_t)rw->numel * (rw->from_type == LG_FLOAT16 ? 2 : 4);
    rw->bytes_after = res->bytes;
    rw->max_abs = res->max_abs;
    rw->max_err = res->max_err;
    return LG_OK;
}

/* The INT8 weights of op `op` (input 1), symmetric per channel along the row's axis. */
static lg_status weights_int8(ectx *c, uint32_t op, const lgqs_op *e, int32_t w, int32_t *out) {
    if (c->qw[w] >= 0) {
        *out = c->qw[w];
        return LG_OK;
    }
    int64_t n = 0;
    const float *v = lgq_calib_values(c->p->cal, w, &n);
    if (!v) return lgi_fail_at(c->err, LG_ERR_INTERNAL, 0, (int32_t)op, w, "int8-static: no values for weights %d", w);
    lgq_form f;
    f.type = LG_INT8;
    f.axis = c->p->o->per_tensor ? -1 : e->axis;
    f.block = 0;
    lgq_result res;
    LG_TRY(lgq_store_weight(c->m, 0, w, v, &f, &res, c->err));
    LG_TRY(record_weight(c, w, op, f.axis, &res));
    c->qw[w] = *out = res.qtensor;
    return LG_OK;
}

/* SymmetricBiasQuantize (tflite/tools/optimize/quantization_utils.cc): scale[c] = s_in *
   s_w[c] (float), inv = 1.0 / scale (double, kept as float), q = TfLiteRound(b * inv)
   saturated into int32 and clamped to [-INT32_MAX, INT32_MAX]; zero point 0. */
static lg_status bias_int32(ectx *c, int32_t b, float s_in, int32_t qw, int32_t *out) {
    int64_t n = 0;
    const float *v = lgq_calib_values(c->p->cal, b, &n);
    const lg_quant *wq = c->m->subgraphs[0].tensors[qw].quant;
    if (!v || !wq || !wq->n_scale) return lgi_fail_at(c->err, LG_ERR_INTERNAL, 0, -1, b, "int8-static: bias %d", b);
    const uint32_t ns = wq->n_scale > 1 ? (uint32_t)n : 1;
    float *sc = malloc((size_t)(ns ? ns : 1) * sizeof *sc);
    int32_t *q = malloc((size_t)(n ? n : 1) * sizeof *q);
    if (!sc || !q) {
        free(sc);
        free(q);
        return nomem(c);
    }
    for (uint32_t k = 0; k < ns; k++) sc[k] = s_in * wq->scale[wq->n_scale > 1 ? k : 0];
    for (int64_t i = 0; i < n; i++) {
        const float s = sc[ns > 1 ? i : 0];
        const float inv = s == 0 ? 0.0f : (float)(1.0 / (double)s);
        const float r = roundf(v[i] * inv);
        q[i] = r >= 2147483647.0f ? INT32_MAX : r <= -2147483647.0f ? -INT32_MAX : (int32_t)r;
    }
    const lg_tensor *x = st(c, b);
    char nm[300];
    snprintf(nm, sizeof nm, "%s_int32", x->name ? x->name : "");
    int32_t shape[1] = {(int32_t)n};
    lg_status s = lg_subgraph_add_const(c->m, 0, nm, LG_INT32, shape, 1, q, (uint64_t)n * 4, out, c->err);
    if (s == LG_OK) s = lg_tensor_set_quant(c->m, 0, (uint32_t)*out, sc, NULL, ns, 0, c->err);
    free(sc);
    free(q);
    if (s == LG_OK && c->rep) c->rep->n_bias_int32++;
    return s;
}

/* ------------------------------------------------------------------ the ops */

static int32_t requant_of(const ectx *c, const int32_t *rqt, uint32_t op, uint32_t slot) {
    for (uint32_t k = 0; k < c->p->n_rq; k++)
        if (c->p->rq[k].op == (int32_t)op && c->p->rq[k].slot == slot) return rqt[k];
    return -1;
}

static lg_status set_in(ectx *c, uint32_t op, uint32_t slot, int32_t t) {
    if (c->m->subgraphs[0].ops[op].inputs[slot] == t) return LG_OK;
    return lg_op_set_input(c->m, 0, op, slot, t, c->err);
}

/* A folded producer's fused activation (quant_static_fold.c chose it). */
static lg_status set_fused_act(ectx *c, uint32_t i, int act) {
    const lg_op *op = &c->m->subgraphs[0].ops[i];
    if (lgqs_fused_act(op) == act) return LG_OK;
    union {
        lg_conv2d_options conv;
        lg_depthwise_conv2d_options dw;
        lg_fully_connected_options fc;
        lg_add_options add;
        lg_sub_options sub;
        lg_mul_options mul;
        lg_div_options div;
        lg_transpose_conv_options tconv;
    } u;
    switch (op->opts_kind) {
#define SET(KIND, field, type) \
    case KIND: u.field = *(const type *)op->opts; u.field.fused_activation_function = (int8_t)act; break;
        SET(LG_OPTS_CONV2D_OPTIONS, conv, lg_conv2d_options)
        SET(LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, dw, lg_depthwise_conv2d_options)
        SET(LG_OPTS_FULLY_CONNECTED_OPTIONS, fc, lg_fully_connected_options)
        SET(LG_OPTS_ADD_OPTIONS, add, lg_add_options)
        SET(LG_OPTS_SUB_OPTIONS, sub, lg_sub_options)
        SET(LG_OPTS_MUL_OPTIONS, mul, lg_mul_options)
        SET(LG_OPTS_DIV_OPTIONS, div, lg_div_options)
        SET(LG_OPTS_TRANSPOSE_CONV_OPTIONS, tconv, lg_transpose_conv_options)
#undef SET
    default: return lgi_fail_at(c->err, LG_ERR_INTERNAL, 0, (int32_t)i, -1, "int8-static: op %u has no fused activation to set", i);
    }
    return lg_op_set_options(c->m, 0, i, op->opts_kind, &u, c->err);
}

static lg_status rewire_int8(ectx *c, uint32_t i, const int32_t *rqt) {
    const lgqs_plan *p = c->p;
    const lg_op *op = &p->sg->ops[i];
    const int32_t code = lg_op_builtin(p->src, op);
    const lgqs_op *e = lgqs_find(code);
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        const int32_t t = op->inputs[k];
        if (t < 0) continue;
        int32_t to = requant_of(c, rqt, i, k);
        if (to >= 0) {
        } else if (e->kind == LGQS_SAME && p->cderived[t]) {
            LG_TRY(const_int8(c, t, op->outputs[0], &to)); /* the output's parameters, clamped into them */
        } else if (lgqs_act_slot(e, code, k)) {
            if (p->cderived[t] && c->i8[t] < 0) LG_TRY(const_int8(c, t, t, &c->i8[t]));
            to = c->i8[t];
        } else if (e->kind == LGQS_WEIGHTED && k == 1) {
            LG_TRY(weights_int8(c, i, e, t, &to));
        } else if (e->kind == LGQS_WEIGHTED && k == lgqs_bias_slot(e)) {
            int32_t w = c->m->subgraphs[0].ops[i].inputs[1]; /* already the INT8 weights */
            LG_TRY(bias_int32(c, t, p->scale[op->inputs[e->data_slot]], w, &to));
        } else if (code == LG_OP_PADV2 && k == 2) {
            LG_TRY(const_int8(c, t, op->inputs[0], &to));
        } else {
            to = lgqs_is_act(p, t) ? c->f32[t] : t;
        }
        if (to < 0) return lgi_fail_at(c->err, LG_ERR_INTERNAL, 0, (int32_t)i, t, "int8-static: op %u input %u has no form", i, k);
        LG_TRY(set_in(c, i, k, to));
    }
    for (uint32_t k = 0; k < op->n_outputs; k++) {
        const int32_t o = lgqs_output(p, i, k);
        if (c->i8[o] != op->outputs[k]) LG_TRY(lg_op_set_output(c->m, 0, i, k, c->i8[o], c->err));
    }
    return lgqs_fold_active(p, i) ? set_fused_act(c, i, p->fold_act[i]) : LG_OK;
}

static lg_status rewire_float(ectx *c, uint32_t i) {
    const lg_op *op = &c->p->sg->ops[i];
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        if (t >= 0 && lgqs_is_act(c->p, t)) LG_TRY(set_in(c, i, k, c->f32[t]));
    }
    for (uint32_t k = 0; k < op->n_outputs; k++) {
        int32_t t = op->outputs[k];
        if (t >= 0 && lgqs_is_act(c->p, t) && c->f32[t] != t) LG_TRY(lg_op_set_output(c->m, 0, i, k, c->f32[t], c->err));
    }
    return LG_OK;
}

/* Ops computed from constants that nothing reads any more (the DEQUANTIZE and DENSIFY of the
   old float weights) and the folded clamps: removed, last first, so a chain goes whole. */
static lg_status drop_dead(ectx *c) {
    const lgqs_plan *p = c->p;
    lg_subgraph *sg = &c->m->subgraphs[0];
    uint32_t *uses = calloc(sg->n_tensors ? sg->n_tensors : 1, sizeof *uses);
    if (!uses) return nomem(c);
    for (uint32_t i = 0; i < sg->n_ops; i++)
        for (uint32_t k = 0; k < sg->ops[i].n_inputs; k++)
            if (sg->ops[i].inputs[k] >= 0) uses[sg->ops[i].inputs[k]]++;
    for (uint32_t k = 0; k < sg->n_outputs; k++) uses[sg->outputs[k]]++;
    lg_status s = LG_OK;
    for (uint32_t i = p->n_ops; s == LG_OK && i-- > 0;) {
        if (lgqs_folded(p, i)) { /* a folded clamp: its producer computes it */
            for (uint32_t k = 0; k < sg->ops[i].n_inputs; k++)
                if (sg->ops[i].inputs[k] >= 0) uses[sg->ops[i].inputs[k]]--;
            s = lg_op_remove(c->m, 0, i, c->err);
            continue;
        }
        if (!p->op_const[i]) continue;
        const lg_op *op = &sg->ops[i];
        bool dead = true;
        for (uint32_t k = 0; k < op->n_outputs; k++)
            if (op->outputs[k] >= 0 && uses[op->outputs[k]]) dead = false;
        if (!dead) continue;
        for (uint32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0) uses[op->inputs[k]]--;
        s = lg_op_remove(c->m, 0, i, c->err);
    }
    free(uses);
    return s;
}

/* ------------------------------------------------------------------ the report */

static lg_status report_ops(ectx *c) {
    lg_quant_report *r = c->rep;
    const lgqs_plan *p = c->p;
    if (!r) return LG_OK;
    uint32_t nf = 0;
    for (uint32_t i = 0; i < p->n_ops; i++) nf += !p->op_const[i] && !p->op_int8[i];
    r->float_ops = calloc(nf ? nf : 1, sizeof *r->float_ops);
    if (!r->float_ops) return nomem(c);
    for (uint32_t i = 0; i < p->n_ops; i++) {
        if (p->op_const[i]) continue;
        if (p->op_int8[i]) {
            r->n_ops_int8++;
            continue;
        }
        const lg_op *op = &p->sg->ops[i];
        lg_quant_float_op *f = &r->float_ops[r->n_ops_float++];
        f->op = (int32_t)i;
        f->code = lg_op_builtin(p->src, op);
        f->excluded = p->keep_float && p->keep_float[i] == LGQ_KEEP_EXCLUDED;
        const char *nm = op->n_outputs && op->outputs[0] >= 0 ? p->sg->tensors[op->outputs[0]].name : NULL;
        snprintf(f->name, sizeof f->name, "%s", nm ? nm : "");
        snprintf(f->why, sizeof f->why, "%s", p->why[i]);
    }
    return LG_OK;
}

static lg_status set_versions(lg_model *m, lg_error *err) {
    lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        int32_t code = lg_op_builtin(m, op);
        int v = lgi_op_version(m, sg, op);
        if (code != LG_OP_CUSTOM && v != m->opcodes[op->opcode_index].version) LG_TRY(lg_op_set_opcode(m, 0, i, code, NULL, v, err));
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ the build */

static lg_status edits(ectx *c, int32_t *rqt) {
    const lgqs_plan *p = c->p;
    for (uint32_t t = 0; t < p->n_tensors; t++)
        if (lgqs_is_act(p, (int32_t)t)) LG_TRY(forms_of(c, (int32_t)t));
    for (uint32_t k = 0; k < p->n_rq; k++) { /* a fixed-parameter input requantized into its join's */
        const int32_t t = p->rq[k].tensor, out = p->sg->ops[p->rq[k].op].outputs[0];
        if (p->cderived[t] && c->i8[t] < 0) LG_TRY(const_int8(c, t, t, &c->i8[t]));
        LG_TRY(new_tensor(c, t, "requant", LG_INT8, p->scale[out], p->zp[out], &rqt[k]));
        add_boundary(c, c->i8[t], rqt[k]);
        if (c->rep) c->rep->n_requantize++;
    }
    for (uint32_t i = 0; i < p->n_ops; i++) {
        if (p->op_const[i] || lgqs_folded(p, i)) continue;
        LG_TRY(p->op_int8[i] ? rewire_int8(c, i, rqt) : rewire_float(c, i));
    }
    for (uint32_t k = 0; k < c->n_bnd; k++) {
        const lg_subgraph *sg = &c->m->subgraphs[0];
        const bool to8 = sg->tensors[c->bnd_to[k]].type == LG_INT8;
        const bool from8 = sg->tensors[c->bnd_from[k]].type == LG_INT8;
        LG_TRY(lg_subgraph_add_op(c->m, 0, to8 ? LG_OP_QUANTIZE : LG_OP_DEQUANTIZE, NULL, 1, &c->bnd_from[k], 1,
                                  &c->bnd_to[k], 1, LG_OPTS_NONE, NULL, NULL, c->err));
        if (c->rep && to8 && !from8) c->rep->n_quantize++;
        if (c->rep && !to8) c->rep->n_dequantize++;
    }
    if (c->rep)
        for (uint32_t t = 0; t < c->m->subgraphs[0].n_tensors; t++) {
            const lg_tensor *x = &c->m->subgraphs[0].tensors[t];
            if (x->type == LG_INT8 && x->quant && !lg_tensor_is_const(c->m, 0, (int32_t)t)) c->rep->n_activations++;
        }
    LG_TRY(drop_dead(c));
    return lg_subgraph_toposort(c->m, 0, NULL, c->err);
}

lg_status lgqs_emit(const lgqs_plan *p, lg_model **out, int32_t *map, lg_quant_report *rep, lg_error *err) {
    *out = NULL;
    ectx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.rep = rep;
    c.err = err;
    if (rep) c.cap_w = rep->n_weights;
    size_t nt = p->n_tensors ? p->n_tensors : 1;
    c.i8 = malloc(nt * sizeof *c.i8);
    c.f32 = malloc(nt * sizeof *c.f32);
    c.qw = malloc(nt * sizeof *c.qw);
    c.bnd_from = malloc((nt + p->n_rq) * sizeof *c.bnd_from);
    c.bnd_to = malloc((nt + p->n_rq) * sizeof *c.bnd_to);
    int32_t *rqt = malloc((p->n_rq ? p->n_rq : 1) * sizeof *rqt);
    int32_t *full = NULL;
    lg_status s = c.i8 && c.f32 && c.qw && c.bnd_from && c.bnd_to && rqt ? LG_OK : nomem(&c);
    for (size_t t = 0; s == LG_OK && t < nt; t++) c.i8[t] = c.f32[t] = c.qw[t] = -1;
    if (s == LG_OK) s = lg_model_clone(p->src, &c.m, err);
    if (s == LG_OK && c.m->subgraphs[0].n_tensors != p->n_tensors)
        s = lgi_fail(err, LG_ERR_INTERNAL, "the copy of the model has other tensors");
    if (s == LG_OK) s = edits(&c, rqt);
    if (s == LG_OK) s = report_ops(&c);
    if (s == LG_OK) {
        uint32_t n_pre = c.m->subgraphs[0].n_tensors;
        full = malloc((size_t)(n_pre ? n_pre : 1) * sizeof *full);
        s = full ? lg_model_compact(c.m, NULL, full, err) : nomem(&c);
    }
    if (s == LG_OK) {
        memcpy(map, full, (size_t)p->n_tensors * sizeof *map);
        s = set_versions(c.m, err);
    }
    if (s == LG_OK) s = lg_model_validate(c.m, err);
    if (s == LG_OK) s = lg_model_validate_ops(c.m, err);
    free(c.i8);
    free(c.f32);
    free(c.qw);
    free(c.bnd_from);
    free(c.bnd_to);
    free(rqt);
    free(full);
    if (s != LG_OK) {
        lg_model_free(c.m);
        return s;
    }
    *out = c.m;
    return LG_OK;
}

/* ------------------------------------------------------------------ entry */

lg_status lgq_static_build(const lg_model *src, const lgq_calib *cal, const uint8_t *keep_float, const lg_quant_options *o,
                           lg_model **out, int32_t *map, lg_quant_report *rep, lg_error *err) {
    *out = NULL;
    if (!src || !cal || !o || !map || !src->n_subgraphs) return lgi_fail(err, LG_ERR_INVALID_ARG, "lgq_static_build: NULL argument");
    lgqs_plan p;
    memset(&p, 0, sizeof p);
    p.src = src;
    p.cal = cal;
    p.o = o;
    p.keep_float = keep_float;
    lg_status s = lgqs_plan_make(&p, err);
    if (s == LG_OK) s = lgqs_emit(&p, out, map, rep, err);
    lgqs_plan_free(&p);
    return s;
}

lg_status lgq_static_run(const lg_model *src, const lg_quant_options *o, const uint8_t *keep_float, lg_model **out,
                         int32_t *map, lg_quant_report *rep, lg_error *err) {
    *out = NULL;
    lgq_calib *cal = NULL;
    LG_TRY(lgq_calibrate(src, o, &cal, err));
    if (rep) {
        rep->range = cal->method;
        rep->percentile = cal->method == LG_RANGE_PERCENTILE ? cal->percentile : 0;
        rep->int8_io = o->int8_io;
        rep->n_calib_cases = cal->n_cases;
    }
    lg_status s = lgq_static_build(src, cal, keep_float, o, out, map, rep, err);
    lgq_calib_free(cal);
    return s;
}

/* shared/reference/conversion-quantization-pruning.md "What the GPU delegates do with
   quantized models" and gpu-delegate-rules.md (LiteRT tflite/delegates/gpu/common/:
   model_builder.cc, operation_parser.cc PreCheckReadValueByTensorIdx). */
const char *lgq_static_gpu_note(void) {
    return "full int8 is simulated in float by both GPU delegates (with quant ops allowed, ENABLE_QUANT by default, "
           "each int8 activation becomes a float tensor with QUANTIZE_AND_DEQUANTIZE nodes): int8 rounding, no int8 "
           "arithmetic, no speed-up; the INT8 weights are dequantized to float at load (a smaller download); QUANTIZE "
           "up to version 2 and DEQUANTIZE up to 3 are taken at the float islands; ML Drift refuses an int8 runtime "
           "tensor quantized per channel (\"Unsupported quantization scale size\"): litegpu quantizes activations per "
           "tensor. Int8 arithmetic pays on the CPU (XNNPACK) and NPUs";
}
