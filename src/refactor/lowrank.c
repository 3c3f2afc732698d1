/* lg_lowrank (lg/lowrank.h): which ops can be factored, the SVD and the rank, the rewrite into
   two ops. The output error is measured in lowrank_measure.c. */
#include "lg/lowrank.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/graph.h"
#include "lg/info.h"
#include "lg/ops.h"
#include "lg/quantize.h" /* lg_const_to_fp16: FLOAT16 factors keep an fp16 model's form */
#include "lg/refit.h"
#include "passes/quant_sweep.h" /* lgq_str: the metadata JSON */
#include "refactor/linalg.h"
#include "util/half.h"

/* A layer being factored: the report entry and the factors (float, as stored). */
typedef struct lr_work {
    lg_lowrank_layer *l;
    int32_t w, x, bias, y;     /* tensors of the input model */
    bool fp16;                 /* w = DEQUANTIZE(wh), wh a FLOAT16 constant (an fp16 model) */
    int32_t wh;
    float *a, *b;              /* A [r, n], B [m, r] (fp16: the values rounded to half) */
} lr_work;

static void why(lg_lowrank_layer *l, const char *fmt, ...) LGI_PRINTF(2, 3);
static void why(lg_lowrank_layer *l, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->why, sizeof l->why, fmt, ap);
    va_end(ap);
}

static lg_status check_options(const lg_model *m, const lg_lowrank_options *o, lg_error *err) {
    if (o->op < 0 && !o->all_fc && !o->all_conv1x1)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lowrank: give an op index, or all FULLY_CONNECTED / all 1x1 CONV_2D");
    if (o->op >= 0 && (uint32_t)o->op >= m->subgraphs[0].n_ops)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lowrank: op %d out of range (subgraph 0 has %u ops)", o->op,
                        m->subgraphs[0].n_ops);
    if (o->rank < 0) return lgi_fail(err, LG_ERR_INVALID_ARG, "lowrank: rank %d must be positive", o->rank);
    if (o->rank == 0 && !(o->energy > 0 && o->energy <= 1))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lowrank: energy %g must be in (0, 1] (or give a rank)", o->energy);
    if (o->rank > 0 && o->energy != 0)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lowrank: a rank and an energy exclude each other");
    if (o->force_rank && o->rank == 0)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lowrank: force_rank goes with an explicit rank");
    if (!(o->min_saving >= 0 && o->min_saving < 1))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lowrank: min_saving %g must be in [0, 1)", o->min_saving);
    if (o->n_refit_cases && (!o->refit_cases || !(o->refit_lambda >= 0) || !isfinite(o->refit_lambda)))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lowrank: refit needs cases and a finite lambda >= 0");
    return LG_OK;
}

/* Tensors of any subgraph that refer to buffer b. */
static uint32_t buffer_refs(const lg_model *m, uint32_t b) {
    uint32_t n = 0;
    for (uint32_t s = 0; s < m->n_subgraphs; s++)
        for (uint32_t t = 0; t < m->subgraphs[s].n_tensors; t++) n += m->subgraphs[s].tensors[t].buffer == b;
    return n;
}

/* A weight read by this op alone: its tensor (and, for FLOAT16, the DEQUANTIZE's input) has one
   reader and its buffer one tensor. */
static bool not_shared(const lg_model *m, const lg_graph *g, int32_t w, int32_t data, lg_lowrank_layer *l) {
    uint32_t readers = lg_graph_n_consumers(g, w), refs = buffer_refs(m, m->subgraphs[0].tensors[data].buffer);
    if (data != w && lg_graph_n_consumers(g, data) > readers) readers = lg_graph_n_consumers(g, data);
    if (readers > 1 || refs > 1 || lg_graph_is_output(g, w))
        return why(l, "the weight constant is shared (%u ops read the tensor, %u tensors the buffer%s): factoring it would change the other readers",
                   readers, refs, lg_graph_is_output(g, w) ? ", and it is a graph output" : ""), false;
    return true;
}

/* The data of a weight: dense, not quantized, the size of its shape (elem bytes each). */
static bool data_ok(const lg_model *m, int32_t t, uint32_t elem, lg_lowrank_layer *l) {
    const lg_tensor *x = &m->subgraphs[0].tensors[t];
    /* a quantization table without scales (min/max statistics, or empty) is not quantized data */
    const bool quantized = x->quant && (x->quant->n_scale > 0 || x->quant->n_zero_point > 0 || x->quant->details_kind != LG_OPTS_NONE);
    if (quantized || x->sparsity) return why(l, "the weight is %s", quantized ? "quantized" : "sparse"), false;
    const lg_buffer *bf = lg_tensor_buffer(m, x);
    int64_t numel = lg_tensor_numel(x);
    if (!bf || numel <= 0 || bf->size != (uint64_t)numel * elem) return why(l, "the weight's data does not match its shape"), false;
    return true;
}

/* The weight of op i: a FLOAT32 constant, or a FLOAT16 constant read through a DEQUANTIZE (the
   form of an fp16 model), read by this op alone. */
static bool weight_ok(const lg_model *m, const lg_graph *g, int32_t w, lg_lowrank_layer *l, lr_work *wk) {
    const lg_subgraph *sg = &m->subgraphs[0];
    const lg_tensor *t = &sg->tensors[w];
    if (t->type != LG_FLOAT32) return why(l, "the weight is %s, not FLOAT32", lg_dtype_name(t->type)), false;
    if (lg_tensor_is_const(m, 0, w)) return data_ok(m, w, 4, l) && not_shared(m, g, w, w, l);
    int32_t p = lg_graph_producer(g, w);
    const lg_op *dq = p >= 0 ? &sg->ops[p] : NULL;
    if (!dq || lg_op_builtin(m, dq) != LG_OP_DEQUANTIZE || dq->n_inputs < 1 || dq->inputs[0] < 0 ||
        !lg_tensor_is_const(m, 0, dq->inputs[0]))
        return why(l, "the weight \"%s\" is not a constant (computed at run time)", t->name ? t->name : ""), false;
    int32_t h = dq->inputs[0];
    if (sg->tensors[h].type != LG_FLOAT16)
        return why(l, "the weight is %s read through op %d DEQUANTIZE: FLOAT32 and FLOAT16 weights are factored",
                   lg_dtype_name(sg->tensors[h].type), p), false;
    if (!data_ok(m, h, 2, l) || !not_shared(m, g, w, h, l)) return false;
    wk->fp16 = true;
    l->weight_type = LG_FLOAT16;
    wk->wh = h;
    return true;
}

/* Op i a FULLY_CONNECTED or 1x1 CONV_2D this verb can factor: fills l (m, n, bias) and wk. */
static bool eligible(const lg_model *m, const lg_graph *g, uint32_t i, lg_lowrank_layer *l, lr_work *wk) {
    const lg_subgraph *sg = &m->subgraphs[0];
    const lg_op *op = &sg->ops[i];
    l->op = (int32_t)i;
    l->code = lg_op_builtin(m, op);
    l->energy_kept = l->recon_error = l->refit_before = l->refit_after = NAN;
    if (op->n_outputs >= 1 && op->outputs[0] >= 0) snprintf(l->name, sizeof l->name, "%s", sg->tensors[op->outputs[0]].name ? sg->tensors[op->outputs[0]].name : "");
    if (l->code != LG_OP_FULLY_CONNECTED && l->code != LG_OP_CONV_2D)
        return why(l, "op %u is %s: only FULLY_CONNECTED and 1x1 CONV_2D are factored", i, lg_op_name(m, op)), false;
    if (op->n_inputs < 2 || op->n_outputs != 1 || op->inputs[0] < 0 || op->inputs[1] < 0 || op->outputs[0] < 0)
        return why(l, "%s has %u inputs and %u outputs (the form with one output is factored)", lg_op_name(m, op), op->n_inputs, op->n_outputs), false;
    wk->x = op->inputs[0];
    wk->w = op->inputs[1];
    wk->y = op->outputs[0];
    wk->bias = op->n_inputs > 2 ? op->inputs[2] : -1;
    l->has_bias = wk->bias >= 0;
    l->weight_type = LG_FLOAT32;
    const lg_tensor *x = &sg->tensors[wk->x], *w = &sg->tensors[wk->w];
    if (x->type != LG_FLOAT32) return why(l, "the input is %s, not FLOAT32", lg_dtype_name(x->type)), false;
    if (l->code == LG_OP_FULLY_CONNECTED) {
        const lg_fully_connected_options *o = op->opts_kind == LG_OPTS_FULLY_CONNECTED_OPTIONS ? op->opts : NULL;
        if (o && o->weights_format != 0) return why(l, "the weights are in the shuffled format"), false;
        if (w->rank != 2) return why(l, "the weight has rank %u, not 2", w->rank), false;
        l->m = w->shape[0];
        l->n = w->shape[1];
    } else {
        const lg_conv2d_options *o = op->opts_kind == LG_OPTS_CONV2D_OPTIONS ? op->opts : NULL;
        if (w->rank != 4) return why(l, "the filter has rank %u, not 4", w->rank), false;
        if (w->shape[1] != 1 || w->shape[2] != 1) return why(l, "the kernel is %dx%d, not 1x1", w->shape[1], w->shape[2]), false;
        if (!o || o->stride_h != 1 || o->stride_w != 1)
            return why(l, "the stride is %dx%d, not 1", o ? o->stride_h : 0, o ? o->stride_w : 0), false;
        if (o->dilation_h_factor != 1 || o->dilation_w_factor != 1)
            return why(l, "the dilation is %dx%d, not 1", o->dilation_h_factor, o->dilation_w_factor), false;
        if (x->rank != 4 || x->shape[3] != w->shape[3])
            return why(l, "a grouped convolution (input channels %d, filter %d)", x->rank == 4 ? x->shape[3] : -1, w->shape[3]), false;
        l->m = w->shape[0];
        l->n = w->shape[3];
    }
    if (l->m <= 0 || l->n <= 0) return why(l, "the weight is empty (%d x %d)", l->m, l->n), false;
    return weight_ok(m, g, wk->w, l, wk);
}

/* ------------------------------------------------------------------ the SVD and the rank */

static uint64_t params_after(const lg_lowrank_layer *l, int32_t r) {
    uint64_t p = (uint64_t)r * (uint64_t)(l->m + l->n);
    if (l->code == LG_OP_CONV_2D) p += (uint64_t)r; /* the first conv's zero bias */
    return p + (l->has_bias ? (uint64_t)l->m : 0);
}

/* The smallest r with sum_{i<r} s_i^2 >= e * sum s_i^2 (the sums in the same order, so e = 1
   gives the last r with a non-zero s, never past k). */
static int32_t energy_rank(const double *s, uint32_t k, double e) {
    double tot = 0, acc = 0;
    for (uint32_t i = 0; i < k; i++) tot += s[i] * s[i];
    for (uint32_t i = 0; i < k; i++) {
        acc += s[i] * s[i];
        if (acc >= e * tot) return (int32_t)i + 1;
    }
    return (int32_t)k;
}

static double energy_of(const double *s, uint32_t k, int32_t r) {
    double tot = 0, acc = 0;
    for (uint32_t i = 0; i < k; i++) {
        tot += s[i] * s[i];
        if ((int32_t)i < r) acc += s[i] * s[i];
    }
    return tot > 0 ? acc / tot : NAN;
}

/* A = sqrt(S_r) V_r^T [r, n], B = U_r sqrt(S_r) [m, r] as float; the error from them. */
static lg_status make_factors(const double *w, const double *u, const double *s, const double *vt, lr_work *wk,
                              lg_error *err) {
    lg_lowrank_layer *l = wk->l;
    const int32_t m = l->m, n = l->n, r = l->rank, k = m < n ? m : n;
    wk->a = malloc(sizeof(float) * (size_t)r * (size_t)n);
    wk->b = malloc(sizeof(float) * (size_t)m * (size_t)r);
    if (!wk->a || !wk->b) return lgi_fail(err, LG_ERR_NOMEM, "lowrank: out of memory (op %d)", l->op);
    for (int32_t i = 0; i < r; i++) {
        double q = sqrt(s[i]);
        for (int32_t j = 0; j < n; j++) wk->a[(size_t)i * n + j] = (float)(q * vt[(size_t)i * n + j]);
        for (int32_t o = 0; o < m; o++) wk->b[(size_t)o * r + i] = (float)(u[(size_t)o * k + i] * q);
    }
    if (wk->fp16) /* stored as FLOAT16 (lg_const_to_fp16 rounds to nearest even): the error of those */
        for (size_t t = 0; t < (size_t)r * (size_t)(m > n ? m : n); t++) {
            if (t < (size_t)r * n) wk->a[t] = lg_half_to_float(lg_float_to_half(wk->a[t]));
            if (t < (size_t)m * r) wk->b[t] = lg_half_to_float(lg_float_to_half(wk->b[t]));
        }
    /* row o of B A, accumulated along A's rows (contiguous), in double */
    double *acc = malloc(sizeof(double) * (size_t)n), num = 0, den = 0;
    if (!acc) return lgi_fail(err, LG_ERR_NOMEM, "lowrank: out of memory (op %d)", l->op);
    for (int32_t o = 0; o < m; o++) {
        memset(acc, 0, sizeof(double) * (size_t)n);
        for (int32_t i = 0; i < r; i++) {
            const double bo = wk->b[(size_t)o * r + i];
            const float *ai = wk->a + (size_t)i * n;
            for (int32_t j = 0; j < n; j++) acc[j] += bo * (double)ai[j];
        }
        for (int32_t j = 0; j < n; j++) {
            double x = w[(size_t)o * n + j], d = x - acc[j];
            num += d * d;
            den += x * x;
        }
    }
    free(acc);
    l->recon_error = den > 0 ? sqrt(num / den) : NAN;
    return LG_OK;
}

/* The SVD of the weight, the rank and the decision; the factors when replaced. */
static lg_status factor_layer(const lg_model *m, const lg_lowrank_options *o, lr_work *wk, lg_error *err) {
    lg_lowrank_layer *l = wk->l;
    const size_t mn = (size_t)l->m * (size_t)l->n;
    const uint32_t k = (uint32_t)(l->m < l->n ? l->m : l->n);
    const lg_buffer *bf = lg_tensor_buffer(m, &m->subgraphs[0].tensors[wk->fp16 ? wk->wh : wk->w]);
    double *w = malloc(sizeof(double) * mn), *u = malloc(sizeof(double) * (size_t)l->m * k);
    double *vt = malloc(sizeof(double) * (size_t)k * (size_t)l->n);
    l->spectrum = calloc(k, sizeof(double));
    lg_status st = w && u && vt && l->spectrum ? LG_OK : lgi_fail(err, LG_ERR_NOMEM, "lowrank: out of memory (op %d)", l->op);
    if (st == LG_OK) {
        for (size_t i = 0; i < mn; i++) {
            float f;
            uint16_t h;
            if (wk->fp16) memcpy(&h, bf->data + 2 * i, 2), f = lg_half_to_float(h);
            else memcpy(&f, bf->data + 4 * i, 4);
            w[i] = f;
        }
        st = lgi_svd(w, l->m, l->n, u, l->spectrum, vt, err);
        if (st != LG_OK) lgi_error_prefix(err, "op %d: ", l->op);
    }
    if (st == LG_OK) {
        l->n_spectrum = k;
        l->break_even = (double)l->m * (double)l->n / (double)(l->m + l->n);
        l->params_before = mn + (l->has_bias ? (uint64_t)l->m : 0);
        if (l->spectrum[0] == 0) {
            why(l, "the weight is all zero");
        } else {
            l->rank = o->rank > 0 ? (o->rank < (int32_t)k ? o->rank : (int32_t)k) : energy_rank(l->spectrum, k, o->energy);
            l->energy_kept = energy_of(l->spectrum, k, l->rank);
            l->params_after = params_after(l, l->rank);
            double saving = 1.0 - (double)l->params_after / (double)l->params_before;
            if (l->params_after >= l->params_before && !o->force_rank)
                why(l, "rank %d is %s the break-even rank %.4g%s: parameters would not drop (%llu -> %llu)", l->rank,
                    l->rank >= l->break_even ? "not below" : "below", l->break_even,
                    l->rank >= l->break_even ? "" : ", but the first conv's zero bias adds r", (unsigned long long)l->params_before,
                    (unsigned long long)l->params_after);
            else if (o->min_saving > 0 && saving < o->min_saving)
                why(l, "saves %.1f%% of its parameters, less than the %.1f%% asked", 100 * saving, 100 * o->min_saving);
            else
                l->replaced = true;
        }
        if (l->rank > 0) st = make_factors(w, u, l->spectrum, vt, wk, err); /* the error, also when left alone */
    }
    free(w);
    free(u);
    free(vt);
    return st;
}

/* ------------------------------------------------------------------ the rewrite */

static lg_status name_of(const lg_model *m, int32_t t, const char *suffix, char *buf, size_t n) {
    const char *base = m->subgraphs[0].tensors[t].name;
    snprintf(buf, n, "%s%s", base && *base ? base : "lowrank", suffix);
    return LG_OK;
}

/* Op i (of the copy, same indices as the input up to i) becomes first (inserted at i) and
   second (op i + 1, the original op with the weight B). */
static lg_status rewrite(lg_model *c, const lr_work *wk, lg_error *err) {
    const lg_lowrank_layer *l = wk->l;
    const uint32_t i = (uint32_t)l->op;
    const bool conv = l->code == LG_OP_CONV_2D;
    const int32_t r = l->rank;
    char nm[300];
    int32_t ta, tb, tmid, tz = -1;
    const int32_t sa_fc[2] = {r, l->n}, sb_fc[2] = {l->m, r}, sa_cv[4] = {r, 1, 1, l->n}, sb_cv[4] = {l->m, 1, 1, r};
    name_of(c, wk->w, "/lowrank_a", nm, sizeof nm);
    LG_TRY(lg_subgraph_add_const(c, 0, nm, LG_FLOAT32, conv ? sa_cv : sa_fc, conv ? 4 : 2, wk->a,
                                 sizeof(float) * (uint64_t)r * (uint64_t)l->n, &ta, err));
    name_of(c, wk->w, "/lowrank_b", nm, sizeof nm);
    LG_TRY(lg_subgraph_add_const(c, 0, nm, LG_FLOAT32, conv ? sb_cv : sb_fc, conv ? 4 : 2, wk->b,
                                 sizeof(float) * (uint64_t)l->m * (uint64_t)r, &tb, err));
    /* the intermediate: FC keep_num_dims: the input's shape, last dimension r; else
       [numel(input) / n, r] (fully_connected.cc PrepareImpl); 1x1 conv, stride 1: [b, h, w, r] */
    const lg_op *op = &c->subgraphs[0].ops[i];
    const lg_tensor *x = &c->subgraphs[0].tensors[wk->x];
    int32_t shp[LG_MAX_RANK];
    uint32_t rank = x->rank;
    bool keep = false;
    if (!conv && op->opts_kind == LG_OPTS_FULLY_CONNECTED_OPTIONS)
        keep = ((const lg_fully_connected_options *)op->opts)->keep_num_dims;
    if (rank > LG_MAX_RANK) return lgi_fail(err, LG_ERR_UNSUPPORTED, "op %u: input rank %u", i, rank);
    memcpy(shp, x->shape, sizeof(int32_t) * rank);
    if (conv || keep) {
        if (rank == 0) return lgi_fail(err, LG_ERR_INVALID_ARG, "op %u: scalar input", i);
        shp[rank - 1] = r;
    } else {
        int64_t numel = lg_tensor_numel(x);
        if (numel < 0 || numel % l->n) return lgi_fail(err, LG_ERR_INVALID_ARG, "op %u: the input's %lld values are not rows of %d", i, (long long)numel, l->n);
        shp[0] = (int32_t)(numel / l->n);
        shp[1] = r;
        rank = 2;
    }
    name_of(c, wk->y, "/lowrank_mid", nm, sizeof nm);
    LG_TRY(lg_subgraph_add_tensor(c, 0, nm, LG_FLOAT32, shp, rank, &tmid, err));
    if (conv) {
        float *z = calloc((size_t)r, sizeof(float));
        if (!z) return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
        const int32_t sz[1] = {r};
        name_of(c, wk->y, "/lowrank_bias0", nm, sizeof nm);
        lg_status st = lg_subgraph_add_const(c, 0, nm, LG_FLOAT32, sz, 1, z, sizeof(float) * (uint64_t)r, &tz, err);
        free(z);
        LG_TRY(st);
    }
    op = &c->subgraphs[0].ops[i];
    /* the second: the original op (options, activation, bias, output) reading mid and B */
    int32_t in2[3] = {tmid, tb, wk->bias};
    LG_TRY(lg_op_set_inputs(c, 0, i, in2, op->n_inputs > 2 ? 3 : 2, err));
    op = &c->subgraphs[0].ops[i];
    int32_t version = c->opcodes[op->opcode_index].version;
    const int32_t in1[3] = {wk->x, ta, conv ? tz : -1}, out1[1] = {tmid};
    if (conv) {
        lg_conv2d_options o1 = *(const lg_conv2d_options *)op->opts;
        o1.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_NONE;
        LG_TRY(lg_op_insert(c, 0, i, LG_OP_CONV_2D, NULL, version, in1, 3, out1, 1, LG_OPTS_CONV2D_OPTIONS, &o1, err));
    } else {
        lg_fully_connected_options o1;
        if (op->opts_kind == LG_OPTS_FULLY_CONNECTED_OPTIONS) o1 = *(const lg_fully_connected_options *)op->opts;
        else LG_TRY(lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &o1, sizeof o1));
        o1.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_NONE;
        LG_TRY(lg_op_insert(c, 0, i, LG_OP_FULLY_CONNECTED, NULL, version, in1, 3, out1, 1, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o1, err));
    }
    if (!wk->fp16) return LG_OK;
    /* an fp16 model: the factors (and the zero bias) as FLOAT16 constants, each read through a
       DEQUANTIZE inserted before the first op, as the weight was */
    LG_TRY(lg_const_to_fp16(c, 0, ta, i, NULL, err));
    LG_TRY(lg_const_to_fp16(c, 0, tb, i, NULL, err));
    if (conv) LG_TRY(lg_const_to_fp16(c, 0, tz, i, NULL, err));
    return LG_OK;
}

/* The DEQUANTIZEs that read the replaced FLOAT16 weights have no reader left: removed (highest
   index first, after every rewrite, so no index used before moves). */
static lg_status drop_dequantize(lg_model *c, const lg_lowrank_report *r, const lr_work *wk, lg_error *err) {
    for (uint32_t i = c->subgraphs[0].n_ops; i-- > 0;) {
        const lg_op *op = &c->subgraphs[0].ops[i];
        if (lg_op_builtin(c, op) != LG_OP_DEQUANTIZE || op->n_outputs != 1) continue;
        bool dead = false;
        for (uint32_t k = 0; k < r->n_layers && !dead; k++) dead = r->layers[k].replaced && wk[k].fp16 && op->outputs[0] == wk[k].w;
        if (dead) LG_TRY(lg_op_remove(c, 0, i, err));
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ metadata and report */

static lg_status make_metadata(const lg_lowrank_options *o, const lg_lowrank_report *r, char **out, lg_error *err) {
    lgq_str b = {0};
    lgq_str_put(&b, "{\"tool\":\"litegpu %s\",\"rank\":", lg_version());
    if (o->rank > 0) lgq_str_put(&b, "%d", o->rank);
    else lgq_str_put(&b, "null");
    lgq_str_put(&b, ",\"energy\":");
    if (o->rank > 0) lgq_str_put(&b, "null");
    else lgq_str_put(&b, "%.17g", o->energy);
    lgq_str_put(&b, ",\"refit_cases\":%u,\"refit_lambda\":%.17g", o->n_refit_cases, o->n_refit_cases ? o->refit_lambda : 0.0);
    lgq_str_put(&b, ",\"force_rank\":%s,\"min_saving\":%.17g,\"n_params_before\":%llu,\"n_params_after\":%llu,\"layers\":[",
                o->force_rank ? "true" : "false", o->min_saving, (unsigned long long)r->n_params_before,
                (unsigned long long)r->n_params_after);
    bool first = true;
    for (uint32_t k = 0; k < r->n_layers; k++) {
        const lg_lowrank_layer *l = &r->layers[k];
        if (!l->replaced) continue;
        lgq_str_put(&b, "%s{\"op\":%d,\"op_name\":\"%s\",\"name\":\"", first ? "" : ",", l->op, lg_builtin_name(l->code));
        lgq_str_esc(&b, l->name);
        lgq_str_put(&b, "\",\"weight_type\":\"%s\",\"m\":%d,\"n\":%d,\"rank\":%d,\"energy_kept\":%.17g,\"recon_error\":%.17g,\"refitted\":%s}", lg_dtype_name(l->weight_type), l->m, l->n, l->rank,
                    l->energy_kept, isfinite(l->recon_error) ? l->recon_error : 0.0, l->refitted ? "true" : "false");
        first = false;
    }
    lgq_str_put(&b, "]}");
    if (b.nomem) {
        free(b.s);
        return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    }
    *out = b.s;
    return LG_OK;
}

void lg_lowrank_report_free(lg_lowrank_report *r) {
    if (!r) return;
    for (uint32_t k = 0; r->layers && k < r->n_layers; k++) free(r->layers[k].spectrum);
    free(r->layers);
    free(r->metadata);
    free(r);
}

/* The candidates: op o->op alone, or every FC / 1x1 conv (ops of other kinds are not listed). */
static lg_status analyse(const lg_model *m, const lg_lowrank_options *o, lg_lowrank_report *r, lr_work *wk, lg_error *err) {
    const lg_subgraph *sg = &m->subgraphs[0];
    lg_graph *g = NULL;
    LG_TRY(lg_graph_build(m, 0, &g, err));
    lg_status st = LG_OK;
    for (uint32_t i = 0; st == LG_OK && i < sg->n_ops; i++) {
        int32_t code = lg_op_builtin(m, &sg->ops[i]);
        bool want = o->op >= 0 ? (int32_t)i == o->op
                               : (o->all_fc && code == LG_OP_FULLY_CONNECTED) || (o->all_conv1x1 && code == LG_OP_CONV_2D);
        if (!want) continue;
        lg_lowrank_layer *l = &r->layers[r->n_layers];
        lr_work *w = &wk[r->n_layers];
        memset(w, 0, sizeof *w);
        w->l = l;
        r->n_layers++;
        bool ok = eligible(m, g, i, l, w);
        /* --all-conv1x1 lists the 1x1 convs only: a 3x3 conv is not a candidate there */
        if (!ok && o->op < 0 && code == LG_OP_CONV_2D && strstr(l->why, "not 1x1")) {
            r->n_layers--;
            continue;
        }
        if (!ok && o->op >= 0) st = lgi_fail_at(err, LG_ERR_INVALID_ARG, 0, (int32_t)i, -1, "op %u (%s) cannot be factored: %s", i, lg_op_name(m, &sg->ops[i]), l->why);
        if (ok) st = factor_layer(m, o, w, err);
    }
    lg_graph_free(g);
    return st;
}

/* The refit (lg_lowrank_options): each replaced FC's second op, in op order. tmap: the input
   model's tensors -> the new model's (the clone keeps the indices, compaction renumbers). */
static lg_status refit_layers(lg_model *c, const lg_model *m, const lg_lowrank_options *o, lg_lowrank_report *r,
                              const lr_work *wk, const int32_t *tmap, lg_error *err) {
    for (uint32_t k = 0; k < r->n_layers; k++) {
        lg_lowrank_layer *l = &r->layers[k];
        if (!l->replaced) continue;
        if (l->code != LG_OP_FULLY_CONNECTED) {
            snprintf(l->refit_why, sizeof l->refit_why, "refit is for FULLY_CONNECTED (lg_refit_fc)");
            continue;
        }
        int32_t y = tmap[wk[k].y], second = -1;
        for (uint32_t i = 0; y >= 0 && i < c->subgraphs[0].n_ops && second < 0; i++)
            if (c->subgraphs[0].ops[i].n_outputs && c->subgraphs[0].ops[i].outputs[0] == y) second = (int32_t)i;
        if (second < 0) return lgi_fail(err, LG_ERR_INTERNAL, "lowrank: op %d's output is gone after the rewrite", l->op);
        lg_refit_fc_report fr;
        memset(&fr, 0, sizeof fr);
        lg_error e2;
        lg_status st = lg_refit_fc(c, (uint32_t)second, m, wk[k].y, o->refit_cases, o->n_refit_cases, o->refit_lambda, &fr, &e2);
        if (st == LG_ERR_INVALID_ARG) { /* refused (FLOAT16 weights, no bias, an activation...): the SVD factors stay */
            snprintf(l->refit_why, sizeof l->refit_why, "%.190s", e2.msg);
            continue;
        }
        if (st != LG_OK) {
            if (err) *err = e2;
            return st;
        }
        l->refitted = true;
        l->refit_before = fr.err_before;
        l->refit_after = fr.err_after;
    }
    return LG_OK;
}

static lg_status build(const lg_model *m, const lg_lowrank_options *o, lg_lowrank_report *r, lr_work *wk, lg_model **out,
                       lg_error *err) {
    lg_model *c = NULL;
    LG_TRY(lg_model_clone(m, &c, err));
    lg_status st = LG_OK;
    for (uint32_t k = r->n_layers; st == LG_OK && k-- > 0;) /* descending op order: earlier indices stay */
        if (r->layers[k].replaced) st = rewrite(c, &wk[k], err);
    if (st == LG_OK) st = drop_dequantize(c, r, wk, err);
    int32_t *tmap = st == LG_OK ? malloc(sizeof(int32_t) * (c->subgraphs[0].n_tensors ? c->subgraphs[0].n_tensors : 1)) : NULL;
    if (st == LG_OK && !tmap) st = lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    if (st == LG_OK) st = lg_model_compact(c, NULL, tmap, err);
    if (st == LG_OK) st = lg_model_validate(c, err);
    if (st == LG_OK) st = lg_model_validate_ops(c, err);
    if (st == LG_OK && o->n_refit_cases) st = refit_layers(c, m, o, r, wk, tmap, err);
    if (st == LG_OK && o->n_refit_cases) st = lg_model_compact(c, NULL, NULL, err); /* the replaced B and bias buffers */
    free(tmap);
    if (st == LG_OK) st = lg_model_learned_params(m, &r->n_params_before, err);
    if (st == LG_OK) st = lg_model_learned_params(c, &r->n_params_after, err);
    if (st == LG_OK) st = make_metadata(o, r, &r->metadata, err);
    if (st == LG_OK) st = lg_model_add_metadata(c, "litegpu.lowrank", r->metadata, strlen(r->metadata), err);
    if (st != LG_OK) {
        lg_model_free(c);
        return st;
    }
    r->ops_before = m->subgraphs[0].n_ops;
    r->ops_after = c->subgraphs[0].n_ops;
    *out = c;
    return LG_OK;
}

lg_status lg_lowrank(const lg_model *m, const lg_lowrank_options *opt, lg_model **out, lg_lowrank_report **rep,
                     lg_error *err) {
    lgi_error_clear(err);
    if (out) *out = NULL;
    if (rep) *rep = NULL;
    if (!m || !opt || !out || !rep) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_lowrank: NULL argument");
    if (!m->n_subgraphs) return lgi_fail(err, LG_ERR_INVALID_ARG, "the model has no subgraph");
    LG_TRY(check_options(m, opt, err));
    uint32_t n_ops = m->subgraphs[0].n_ops;
    lg_lowrank_report *r = calloc(1, sizeof *r);
    lr_work *wk = calloc(n_ops ? n_ops : 1, sizeof *wk);
    if (r) r->layers = calloc(n_ops ? n_ops : 1, sizeof *r->layers);
    lg_status st = r && wk && r->layers ? LG_OK : lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    if (st == LG_OK) st = analyse(m, opt, r, wk, err);
    for (uint32_t k = 0; st == LG_OK && k < r->n_layers; k++) r->n_replaced += r->layers[k].replaced;
    if (st == LG_OK) st = build(m, opt, r, wk, out, err);
    for (uint32_t k = 0; r && wk && k < r->n_layers; k++) {
        free(wk[k].a);
        free(wk[k].b);
    }
    free(wk);
    if (st != LG_OK) {
        lg_lowrank_report_free(r);
        return st;
    }
    *rep = r;
    return LG_OK;
}
