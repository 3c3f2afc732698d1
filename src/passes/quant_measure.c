/* litegpu quantize: the quantized model against the float one, on the same inputs (fp32,
   litegpu's interpreter), output by output and, for the first input, tensor by tensor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/compare.h"
#include "lg/graph.h"
#include "lg/run.h"
#include "passes/quant_measure.h"

double lgq_snr_db(double sum_ref2, double sum_err2) {
    if (!(sum_ref2 > 0)) return NAN;
    if (sum_err2 == 0) return INFINITY;
    return 10.0 * log10(sum_ref2 / sum_err2);
}

/* The running sums of one output over the cases. */
typedef struct osum {
    double ref2, err2, dot, test2;
} osum;

typedef struct mctx {
    const lg_model *src, *q;
    const lg_quant_options *o;
    lg_quant_report *r;
    lg_error *err;
    lg_interp *a, *b;          /* src, q */
    uint32_t n_in, n_out;
    void **buf;                /* per input: the case's data when generated */
    void **qbuf;               /* per input of q that is quantized (int8_io): the case quantized */
    osum *sums;
} mctx;

/* The quantization of view v's tensor when it is an INT8 / UINT8 tensor with one scale. */
static const lg_quant *int_quant(const lg_model *m, const lg_tensor_view *v) {
    if ((v->type != LG_INT8 && v->type != LG_UINT8) || v->index < 0 || (uint32_t)v->index >= m->subgraphs[0].n_tensors)
        return NULL;
    const lg_quant *q = m->subgraphs[0].tensors[v->index].quant;
    return q && q->n_scale == 1 && q->scale ? q : NULL;
}

/* v as floats: its data (FLOAT32), or an INT8 / UINT8 tensor dequantized into *tmp as
   DEQUANTIZE computes it (scale * (q - zero point)); NULL for other types. *tmp is malloc'd
   (free it); NULL with *tmp NULL on failure. */
static const float *as_float(const lg_model *m, const lg_tensor_view *v, float **tmp) {
    *tmp = NULL;
    if (v->type == LG_FLOAT32) return v->data;
    const lg_quant *q = int_quant(m, v);
    if (!q || !v->data) return NULL;
    float *f = malloc((size_t)(v->numel ? v->numel : 1) * sizeof *f);
    if (!f) return NULL;
    const int32_t zp = q->zero_point && q->n_zero_point ? (int32_t)q->zero_point[0] : 0;
    for (int64_t i = 0; i < v->numel; i++) {
        int32_t x = v->type == LG_INT8 ? ((const int8_t *)v->data)[i] : ((const uint8_t *)v->data)[i];
        f[i] = q->scale[0] * (float)(x - zp);
    }
    *tmp = f;
    return f;
}

/* A float case for a quantized input of q: QUANTIZE's arithmetic (TfLiteRound(x / scale) +
   zero point, clamped), NaN to the zero point. */
static void quantize_case(const lg_quant *q, lg_dtype t, const float *x, int64_t n, void *out) {
    const int32_t zp = q->zero_point && q->n_zero_point ? (int32_t)q->zero_point[0] : 0;
    const double lo = t == LG_INT8 ? -128 : 0, hi = t == LG_INT8 ? 127 : 255;
    for (int64_t i = 0; i < n; i++) {
        double d = isnan(x[i]) ? zp : (double)roundf(x[i] / q->scale[0]) + zp;
        d = d < lo ? lo : d > hi ? hi : d;
        if (t == LG_INT8) ((int8_t *)out)[i] = (int8_t)d;
        else ((uint8_t *)out)[i] = (uint8_t)d;
    }
}

/* A value of an integer or float view as double (NaN for other types). */
static double view_at(const lg_tensor_view *v, int64_t i) {
    const uint8_t *p = v->data;
    switch (v->type) {
    case LG_FLOAT32: { float f; memcpy(&f, p + 4 * i, 4); return f; }
    case LG_INT32: { int32_t x; memcpy(&x, p + 4 * i, 4); return x; }
    case LG_INT64: { int64_t x; memcpy(&x, p + 8 * i, 8); return (double)x; }
    case LG_BOOL: case LG_UINT8: return p[i];
    case LG_INT8: return (int8_t)p[i];
    default: return NAN;
    }
}

static int64_t argmax_of(const lg_tensor_view *v) {
    int64_t best = -1;
    double bv = 0;
    for (int64_t i = 0; i < v->numel; i++) {
        double x = view_at(v, i);
        if (isnan(x)) continue;
        if (best < 0 || x > bv) { best = i; bv = x; }
    }
    return best;
}

/* Set every input of both interpreters for case k (data given, or a fill). */
static lg_status set_inputs(mctx *c, uint32_t k, const void *const *given, const char *fill) {
    for (uint32_t i = 0; i < c->n_in; i++) {
        lg_tensor_view v;
        LG_TRY(lg_interp_input(c->a, i, &v));
        const void *data = given ? given[i] : NULL;
        if (!data) {
            if (v.type == LG_FLOAT32) LG_TRY(lg_fill_f32(fill, c->buf[i], v.numel, c->err));
            else memset(c->buf[i], 0, (size_t)v.nbytes);
            data = c->buf[i];
        }
        LG_TRY(lg_interp_set_input(c->a, i, v.type, data, v.nbytes, c->err));
        lg_tensor_view vq;
        LG_TRY(lg_interp_input(c->b, i, &vq));
        const lg_quant *q = v.type == LG_FLOAT32 ? int_quant(c->q, &vq) : NULL;
        if (q && c->qbuf[i]) {
            quantize_case(q, vq.type, data, v.numel, c->qbuf[i]);
            LG_TRY(lg_interp_set_input(c->b, i, vq.type, c->qbuf[i], vq.nbytes, c->err));
        } else {
            LG_TRY(lg_interp_set_input(c->b, i, v.type, data, v.nbytes, c->err));
        }
    }
    (void)k;
    return LG_OK;
}

static void add_case(mctx *c) {
    for (uint32_t k = 0; k < c->n_out; k++) {
        lg_tensor_view va, vb;
        if (lg_interp_output(c->a, k, &va) != LG_OK || lg_interp_output(c->b, k, &vb) != LG_OK) continue;
        float *tmp = NULL;
        if (va.type == LG_FLOAT32 && vb.type != LG_FLOAT32) { /* an INT8 output (int8_io): dequantized */
            const float *f = as_float(c->q, &vb, &tmp);
            if (f) {
                vb.data = f;
                vb.type = LG_FLOAT32;
            }
        }
        lg_quant_output *qo = &c->r->outputs[k];
        osum *s = &c->sums[k];
        int64_t n = va.numel < vb.numel ? va.numel : vb.numel;
        for (int64_t i = 0; i < n; i++) {
            double x = view_at(&va, i), y = view_at(&vb, i);
            if (!isfinite(x) || !isfinite(y)) continue;
            s->ref2 += x * x;
            s->err2 += (x - y) * (x - y);
            s->dot += x * y;
            s->test2 += y * y;
            if (fabs(x - y) > qo->max_abs) qo->max_abs = fabs(x - y);
            if (fabs(x) > qo->ref_max_abs) qo->ref_max_abs = fabs(x);
        }
        qo->n_cases++;
        if (argmax_of(&va) == argmax_of(&vb)) qo->n_argmax_equal++;
        if (va.type == LG_FLOAT32 && vb.type == LG_FLOAT32 && va.numel == vb.numel) {
            lg_verdict v;
            lg_judge_values(va.data, vb.data, va.numel, NULL, NULL, &v);
            if (!v.pass) qo->pass = false;
            if (!(v.score <= qo->worst_score)) qo->worst_score = v.score;
        }
        free(tmp);
    }
}

/* Tensors of q that are constants or computed from constants only (folded at load). */
static uint8_t *folded_tensors(const lg_model *q) {
    const lg_subgraph *sg = &q->subgraphs[0];
    uint8_t *f = calloc(sg->n_tensors ? sg->n_tensors : 1, 1);
    if (!f) return NULL;
    for (uint32_t t = 0; t < sg->n_tensors; t++) f[t] = lg_tensor_is_const(q, 0, (int32_t)t);
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        bool all = op->n_inputs > 0;
        for (uint32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0 && !f[op->inputs[k]]) all = false;
        for (uint32_t k = 0; all && k < op->n_outputs; k++)
            if (op->outputs[k] >= 0) f[op->outputs[k]] = 1;
    }
    return f;
}

/* The first tensor of q, in op order, whose value fails the judge against src's. */
static lg_status first_divergent(mctx *c, const int32_t *map) {
    const lg_subgraph *ss = &c->src->subgraphs[0], *qs = &c->q->subgraphs[0];
    int32_t *inv = malloc((qs->n_tensors ? qs->n_tensors : 1) * sizeof *inv);
    uint8_t *fold = folded_tensors(c->q);
    if (!inv || !fold) {
        free(inv);
        free(fold);
        return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    }
    for (uint32_t t = 0; t < qs->n_tensors; t++) inv[t] = -1;
    for (uint32_t t = 0; t < ss->n_tensors; t++)
        if (map[t] >= 0 && (uint32_t)map[t] < qs->n_tensors) inv[map[t]] = (int32_t)t;
    lg_quant_report *r = c->r;
    for (uint32_t i = 0; i < qs->n_ops && r->first_divergent_op < 0; i++) {
        const lg_op *op = &qs->ops[i];
        for (uint32_t k = 0; k < op->n_outputs; k++) {
            int32_t t = op->outputs[k];
            if (t < 0 || fold[t] || inv[t] < 0) continue;
            lg_tensor_view va, vb;
            if (lg_interp_tensor(c->a, inv[t], &va) != LG_OK || lg_interp_tensor(c->b, t, &vb) != LG_OK) continue;
            float *tmp = NULL;
            const float *fb = va.type == LG_FLOAT32 ? as_float(c->q, &vb, &tmp) : NULL; /* int8: dequantized */
            if (!fb || va.numel != vb.numel || !va.data) {
                free(tmp);
                continue;
            }
            lg_verdict v;
            lg_judge_values(va.data, fb, va.numel, NULL, NULL, &v);
            free(tmp);
            r->n_tensors_compared++;
            if (v.pass) continue;
            r->first_divergent_op = (int32_t)i;
            r->first_divergent_tensor = t;
            snprintf(r->first_divergent_name, sizeof r->first_divergent_name, "%s", qs->tensors[t].name ? qs->tensors[t].name : "");
            snprintf(r->first_divergent_op_name, sizeof r->first_divergent_op_name, "%s", lg_op_name(c->q, op));
            r->first_divergent_score = v.score;
            snprintf(r->first_divergent_why, sizeof r->first_divergent_why, "%s", v.why);
            break;
        }
    }
    free(inv);
    free(fold);
    return LG_OK;
}

static lg_status setup(mctx *c) {
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = LG_PREC_F32;
    ro.threads = c->o->threads;
    ro.keep_all = true;
    lg_error e;
    if (lg_interp_create(c->src, &ro, &c->a, &e) != LG_OK) {
        snprintf(c->r->measure_note, sizeof c->r->measure_note, "litegpu cannot run the model: %.160s", e.msg);
        return LG_ERR_UNSUPPORTED;
    }
    LG_TRY(lg_interp_create(c->q, &ro, &c->b, c->err)); /* the input runs, so the result must */
    c->n_in = lg_interp_n_inputs(c->a);
    c->n_out = lg_interp_n_outputs(c->a);
    if (c->n_in != lg_interp_n_inputs(c->b) || c->n_out != lg_interp_n_outputs(c->b))
        return lgi_fail(c->err, LG_ERR_INTERNAL, "the quantized model has another interface");
    c->buf = calloc(c->n_in ? c->n_in : 1, sizeof *c->buf);
    c->qbuf = calloc(c->n_in ? c->n_in : 1, sizeof *c->qbuf);
    c->sums = calloc(c->n_out ? c->n_out : 1, sizeof *c->sums);
    c->r->outputs = calloc(c->n_out ? c->n_out : 1, sizeof *c->r->outputs);
    if (!c->buf || !c->qbuf || !c->sums || !c->r->outputs) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    c->r->n_outputs = c->n_out;
    for (uint32_t i = 0; i < c->n_in; i++) {
        lg_tensor_view v;
        LG_TRY(lg_interp_input(c->a, i, &v));
        c->buf[i] = calloc(1, v.nbytes ? (size_t)v.nbytes : 4);
        if (!c->buf[i]) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        lg_tensor_view vq;
        LG_TRY(lg_interp_input(c->b, i, &vq));
        if (v.type == LG_FLOAT32 && int_quant(c->q, &vq)) {
            c->qbuf[i] = calloc(1, vq.nbytes ? (size_t)vq.nbytes : 4);
            if (!c->qbuf[i]) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        } else if (vq.type != v.type) {
            return lgi_fail(c->err, LG_ERR_INTERNAL, "input %u of the quantized model is %s, not %s", i, lg_dtype_name(vq.type),
                            lg_dtype_name(v.type));
        }
    }
    for (uint32_t k = 0; k < c->n_out; k++) {
        lg_tensor_view v;
        LG_TRY(lg_interp_output(c->a, k, &v));
        lg_quant_output *qo = &c->r->outputs[k];
        qo->index = k;
        qo->numel = v.numel;
        qo->pass = true;
        qo->worst_score = 0;
        snprintf(qo->name, sizeof qo->name, "%s", v.name ? v.name : "");
    }
    return LG_OK;
}

static lg_status run_cases(mctx *c, const int32_t *map) {
    const lg_quant_options *o = c->o;
    uint32_t n_rand = o->n_random ? o->n_random : 2;
    /* evaluation cases, when given, replace the golden and calibration inputs */
    const bool eval = o->n_eval && o->eval_cases;
    const void *const *golden = eval ? NULL : o->golden;
    const void *const *const *cases = eval ? o->eval_cases : o->cases;
    const char *const *names = eval ? o->eval_names : o->case_names;
    const uint32_t n_cases = eval ? o->n_eval : o->n_cases;
    uint32_t n = (golden ? 1 : 0) + n_cases;
    bool fills = n == 0;
    if (fills) n = 1 + n_rand;
    c->r->case_names = calloc(n, sizeof *c->r->case_names);
    if (!c->r->case_names) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    uint64_t seed = o->seed ? o->seed : 1;
    for (uint32_t k = 0; k < n; k++) {
        char *nm = c->r->case_names[k];
        const void *const *given = NULL;
        char fill[48] = "pattern";
        if (fills) {
            if (k) snprintf(fill, sizeof fill, "random:%llu", (unsigned long long)(seed + k - 1));
            snprintf(nm, 48, "%s", fill);
        } else if (golden && k == 0) {
            given = golden;
            snprintf(nm, 48, "input");
        } else {
            uint32_t j = k - (golden ? 1 : 0);
            given = cases[j];
            snprintf(nm, 48, "%.47s", names && names[j] ? names[j] : eval ? "evaluation" : "calibration");
        }
        LG_TRY(set_inputs(c, k, given, fill));
        LG_TRY(lg_interp_invoke(c->a, c->err));
        LG_TRY(lg_interp_invoke(c->b, c->err));
        add_case(c);
        c->r->n_cases++;
        if (k == 0) LG_TRY(first_divergent(c, map));
    }
    for (uint32_t k = 0; k < c->n_out; k++) {
        lg_quant_output *qo = &c->r->outputs[k];
        const osum *s = &c->sums[k];
        qo->snr_db = lgq_snr_db(s->ref2, s->err2);
        qo->cosine = s->ref2 > 0 && s->test2 > 0 ? s->dot / sqrt(s->ref2 * s->test2) : NAN;
    }
    return LG_OK;
}

lg_status lgq_measure(const lg_model *src, const lg_model *q, const int32_t *map, const lg_quant_options *o,
                      lg_quant_report *r, lg_error *err) {
    r->measured = false;
    if (o->no_measure) {
        snprintf(r->measure_note, sizeof r->measure_note, "not measured (asked not to)");
        return LG_OK;
    }
    mctx c;
    memset(&c, 0, sizeof c);
    c.src = src;
    c.q = q;
    c.o = o;
    c.r = r;
    c.err = err;
    lg_status st = setup(&c);
    if (st == LG_ERR_UNSUPPORTED && r->measure_note[0]) {
        st = LG_OK; /* the input model does not run here: no measurement, not an error */
    } else if (st == LG_OK) {
        st = run_cases(&c, map);
        r->measured = st == LG_OK;
    }
    for (uint32_t i = 0; c.buf && i < c.n_in; i++) free(c.buf[i]);
    for (uint32_t i = 0; c.qbuf && i < c.n_in; i++) free(c.qbuf[i]);
    free(c.buf);
    free(c.qbuf);
    free(c.sums);
    lg_interp_free(c.a);
    lg_interp_free(c.b);
    return st;
}
