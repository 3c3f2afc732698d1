/* litegpu quantize int8-static --target-error: selective precision by measurement (the seed
 * handbook, chapter 11: "test selective precision before changing everything"; issue #13:
 * "measures each layer's sensitivity ... and keeps the most sensitive in float until the
 * output error meets X"). The metric, the layers, the two sensitivity measures and the search
 * are stated in include/lg/quantize.h; this file:
 *   1. calibrates once (lgq_calibrate) and runs the float model once on the measured cases,
 *      keeping its FLOAT32 outputs (the reference every model is compared with);
 *   2. finds the layers: the plan of the all-int8 model (lgqs_plan_make, the same decision
 *      lgq_static_build takes) and its int8 ops of kind WEIGHTED or BINARY;
 *   3. builds (lgq_static_build with a keep_float mask) and measures one model per layer, and
 *      the all-int8 one; ranks the layers;
 *   4. searches k (galloping 1, 2, 4, ... then bisection) keeping ranks 1..k float, and builds
 *      the chosen model with the report.
 * Everything runs in a fixed order on one thread of control: the same input and options give
 * the same choice and the same bytes.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/run.h"
#include "passes/quant_calib.h"
#include "passes/quant_static.h"
#include "passes/quant_static_impl.h"
#include "passes/quant_sweep.h"

/* ------------------------------------------------------------------ strings */

void lgq_str_put(lgq_str *b, const char *fmt, ...) {
    if (b->nomem) return;
    for (int tries = 0; tries < 2; tries++) {
        size_t room = b->cap - b->len;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (b->s && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->len + (size_t)n + 1) nc *= 2;
        char *p = realloc(b->s, nc);
        if (!p) {
            b->nomem = true;
            return;
        }
        b->s = p;
        b->cap = nc;
        if (b->len == 0) b->s[0] = 0;
    }
}

void lgq_str_esc(lgq_str *b, const char *s) {
    for (; s && *s && !b->nomem; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') lgq_str_put(b, "\\%c", ch);
        else if (ch < 0x20) lgq_str_put(b, "\\u%04x", ch);
        else lgq_str_put(b, "%c", ch);
    }
}

/* ------------------------------------------------------------------ names and the metric */

static const char *const sens_names[LG_SENS_COUNT] = {"alone", "leave-one-out"};

const char *lg_quant_sensitivity_name(lg_quant_sensitivity s) {
    return (unsigned)s < LG_SENS_COUNT ? sens_names[s] : "?";
}

int lg_quant_sensitivity_from_name(const char *s) {
    for (int i = 0; s && i < LG_SENS_COUNT; i++)
        if (strcmp(s, sens_names[i]) == 0) return i;
    return -1;
}

double lg_quant_error_from_db(double snr_db) { return pow(10.0, -snr_db / 20.0); }

double lg_quant_error_to_db(double e) { return e > 0 ? -20.0 * log10(e) : INFINITY; }

double lgq_output_error(double sum_ref2, double sum_err2) {
    if (!(sum_ref2 > 0)) return sum_err2 == 0 ? 0.0 : INFINITY;
    return sqrt(sum_err2 / sum_ref2);
}

lg_status lgq_sweep_check(const lg_quant_options *o, lg_error *err) {
    if (o->target_error == 0) return LG_OK;
    if (!(o->target_error > 0 && o->target_error < 1))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "target error %g: the relative RMS output error wanted, in (0, 1)", o->target_error);
    if (o->mode != LG_QUANT_INT8_STATIC)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "a target error goes with int8-static (the other modes keep float arithmetic)");
    if ((unsigned)o->sensitivity >= LG_SENS_COUNT)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "unknown sensitivity measure %d", (int)o->sensitivity);
    return LG_OK;
}

/* ------------------------------------------------------------------ measuring a model */

/* The measured cases and the float model's outputs on them. */
typedef struct sweep_eval {
    const lg_model *src;
    const lg_quant_options *o;
    lg_error *err;
    uint32_t n_cases;
    const void *const **cases;  /* per case: per input its data (NULL entries: the pattern fill) */
    uint32_t n_in, n_out;
    lg_tensor_view *in_view;    /* src's inputs (type, numel, nbytes) */
    void **fill;                /* per input: the pattern fill (float) or zeros */
    float **ref;                /* [case * n_out + k]: a copy of float output k; NULL when not FLOAT32 */
    int64_t *numel;             /* per output */
    bool any_float;
    uint64_t n_runs;
} sweep_eval;

static lg_run_options run_opts(const lg_quant_options *o) {
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = LG_PREC_F32; /* and int_arith LG_INT_TFLITE: the parity figures' settings */
    ro.threads = o->threads;
    return ro;
}

/* The cases the parity figures use (quant_measure.c run_cases): eval_cases when given, else
   the golden inputs then the calibration cases. */
static lg_status list_cases(sweep_eval *e) {
    const lg_quant_options *o = e->o;
    const bool eval = o->n_eval && o->eval_cases;
    const uint32_t n = eval ? o->n_eval : (o->golden ? 1u : 0u) + o->n_cases;
    e->cases = calloc(n ? n : 1, sizeof *e->cases);
    if (!e->cases) return lgi_fail(e->err, LG_ERR_NOMEM, "out of memory");
    uint32_t k = 0;
    if (eval) {
        for (uint32_t j = 0; j < o->n_eval; j++) e->cases[k++] = o->eval_cases[j];
    } else {
        if (o->golden) e->cases[k++] = o->golden;
        for (uint32_t j = 0; j < o->n_cases; j++) e->cases[k++] = o->cases[j];
    }
    e->n_cases = k;
    if (!k) return lgi_fail(e->err, LG_ERR_INVALID_ARG, "a target error needs inputs to measure on (--calib DIR)");
    return LG_OK;
}

/* The quantization of view v's tensor of m when it is INT8 / UINT8 with one scale. */
static const lg_quant *int_quant(const lg_model *m, const lg_tensor_view *v) {
    if ((v->type != LG_INT8 && v->type != LG_UINT8) || v->index < 0 || (uint32_t)v->index >= m->subgraphs[0].n_tensors)
        return NULL;
    const lg_quant *q = m->subgraphs[0].tensors[v->index].quant;
    return q && q->n_scale == 1 && q->scale ? q : NULL;
}

static int32_t zero_point(const lg_quant *q) { return q->zero_point && q->n_zero_point ? (int32_t)q->zero_point[0] : 0; }

/* A float case for an INT8 / UINT8 input as quant_measure.c feeds it (QUANTIZE's arithmetic:
   round(x / scale) + zero point, clamped; NaN to the zero point). */
static void quantize_case(const lg_quant *q, lg_dtype t, const float *x, int64_t n, void *out) {
    const int32_t zp = zero_point(q);
    const double lo = t == LG_INT8 ? -128 : 0, hi = t == LG_INT8 ? 127 : 255;
    for (int64_t i = 0; i < n; i++) {
        double d = isnan(x[i]) ? zp : (double)roundf(x[i] / q->scale[0]) + zp;
        d = d < lo ? lo : d > hi ? hi : d;
        if (t == LG_INT8) ((int8_t *)out)[i] = (int8_t)d;
        else ((uint8_t *)out)[i] = (uint8_t)d;
    }
}

static const void *case_input(const sweep_eval *e, uint32_t k, uint32_t i) {
    const void *d = e->cases[k] ? e->cases[k][i] : NULL;
    return d ? d : e->fill[i];
}

/* Run the float model once per case; keep copies of its FLOAT32 outputs. */
static lg_status eval_setup(sweep_eval *e) {
    LG_TRY(list_cases(e));
    lg_run_options ro = run_opts(e->o);
    lg_interp *it = NULL;
    LG_TRY(lg_interp_create(e->src, &ro, &it, e->err));
    e->n_in = lg_interp_n_inputs(it);
    e->n_out = lg_interp_n_outputs(it);
    e->in_view = calloc(e->n_in ? e->n_in : 1, sizeof *e->in_view);
    e->fill = calloc(e->n_in ? e->n_in : 1, sizeof *e->fill);
    e->numel = calloc(e->n_out ? e->n_out : 1, sizeof *e->numel);
    e->ref = calloc((size_t)e->n_cases * (e->n_out ? e->n_out : 1), sizeof *e->ref);
    lg_status st = e->in_view && e->fill && e->numel && e->ref ? LG_OK : lgi_fail(e->err, LG_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; st == LG_OK && i < e->n_in; i++) {
        st = lg_interp_input(it, i, &e->in_view[i]);
        if (st != LG_OK) break;
        e->fill[i] = calloc(1, e->in_view[i].nbytes ? (size_t)e->in_view[i].nbytes : 4);
        if (!e->fill[i]) st = lgi_fail(e->err, LG_ERR_NOMEM, "out of memory");
        else if (e->in_view[i].type == LG_FLOAT32) st = lg_fill_f32("pattern", e->fill[i], e->in_view[i].numel, e->err);
    }
    for (uint32_t k = 0; st == LG_OK && k < e->n_cases; k++) {
        for (uint32_t i = 0; st == LG_OK && i < e->n_in; i++)
            st = lg_interp_set_input(it, i, e->in_view[i].type, case_input(e, k, i), e->in_view[i].nbytes, e->err);
        if (st == LG_OK) st = lg_interp_invoke(it, e->err);
        e->n_runs++;
        for (uint32_t j = 0; st == LG_OK && j < e->n_out; j++) {
            lg_tensor_view v;
            st = lg_interp_output(it, j, &v);
            if (st != LG_OK || v.type != LG_FLOAT32) continue;
            e->numel[j] = v.numel;
            e->any_float = true;
            float *c = malloc((size_t)(v.numel ? v.numel : 1) * sizeof *c);
            if (!c) {
                st = lgi_fail(e->err, LG_ERR_NOMEM, "out of memory");
                break;
            }
            memcpy(c, v.data, (size_t)v.numel * sizeof *c);
            e->ref[(size_t)k * e->n_out + j] = c;
        }
    }
    lg_interp_free(it);
    if (st == LG_OK && !e->any_float)
        st = lgi_fail(e->err, LG_ERR_INVALID_ARG, "a target error needs a FLOAT32 output to measure the error on (the model has none)");
    return st;
}

static void eval_free(sweep_eval *e) {
    for (uint32_t i = 0; e->fill && i < e->n_in; i++) free(e->fill[i]);
    for (size_t k = 0; e->ref && k < (size_t)e->n_cases * e->n_out; k++) free(e->ref[k]);
    free(e->fill);
    free(e->ref);
    free(e->numel);
    free(e->in_view);
    free(e->cases);
}

/* Accumulate output j of case k: q's value (FLOAT32, or INT8 dequantized) against the float. */
static void add_output(const sweep_eval *e, const lg_model *q, uint32_t k, uint32_t j, const lg_tensor_view *v,
                       double *ref2, double *err2) {
    const float *f = e->ref[(size_t)k * e->n_out + j];
    if (!f) return;
    const lg_quant *qq = v->type == LG_FLOAT32 ? NULL : int_quant(q, v);
    if (v->type != LG_FLOAT32 && !qq) {
        *err2 = INFINITY; /* not comparable: never meets a target */
        return;
    }
    const int32_t zp = qq ? zero_point(qq) : 0;
    const int64_t n = v->numel < e->numel[j] ? v->numel : e->numel[j];
    for (int64_t i = 0; i < n; i++) {
        double y;
        if (!qq) y = ((const float *)v->data)[i];
        else if (v->type == LG_INT8) y = qq->scale[0] * (float)(((const int8_t *)v->data)[i] - zp);
        else y = qq->scale[0] * (float)(((const uint8_t *)v->data)[i] - zp);
        double x = f[i];
        if (!isfinite(x) || !isfinite(y)) continue;
        *ref2 += x * x;
        *err2 += (x - y) * (x - y);
    }
}

/* E of model q on the measured cases. */
static lg_status eval_model(sweep_eval *e, const lg_model *q, double *E) {
    lg_run_options ro = run_opts(e->o);
    lg_interp *it = NULL;
    LG_TRY(lg_interp_create(q, &ro, &it, e->err));
    double *ref2 = calloc(e->n_out ? e->n_out : 1, sizeof *ref2), *err2 = calloc(e->n_out ? e->n_out : 1, sizeof *err2);
    void **qin = calloc(e->n_in ? e->n_in : 1, sizeof *qin);
    lg_status st = ref2 && err2 && qin ? LG_OK : lgi_fail(e->err, LG_ERR_NOMEM, "out of memory");
    if (st == LG_OK && (lg_interp_n_inputs(it) != e->n_in || lg_interp_n_outputs(it) != e->n_out))
        st = lgi_fail(e->err, LG_ERR_INTERNAL, "the quantized model has another interface");
    lg_tensor_view *qv = calloc(e->n_in ? e->n_in : 1, sizeof *qv);
    if (st == LG_OK && !qv) st = lgi_fail(e->err, LG_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; st == LG_OK && i < e->n_in; i++) {
        st = lg_interp_input(it, i, &qv[i]);
        if (st == LG_OK && qv[i].type != e->in_view[i].type) { /* int8_io: the case quantized */
            if (e->in_view[i].type != LG_FLOAT32 || !int_quant(q, &qv[i]))
                st = lgi_fail(e->err, LG_ERR_INTERNAL, "input %u of the quantized model is %s", i, lg_dtype_name(qv[i].type));
            else if (!(qin[i] = calloc(1, qv[i].nbytes ? (size_t)qv[i].nbytes : 4)))
                st = lgi_fail(e->err, LG_ERR_NOMEM, "out of memory");
        }
    }
    for (uint32_t k = 0; st == LG_OK && k < e->n_cases; k++) {
        for (uint32_t i = 0; st == LG_OK && i < e->n_in; i++) {
            const void *d = case_input(e, k, i);
            if (qin[i]) {
                quantize_case(int_quant(q, &qv[i]), qv[i].type, d, e->in_view[i].numel, qin[i]);
                st = lg_interp_set_input(it, i, qv[i].type, qin[i], qv[i].nbytes, e->err);
            } else {
                st = lg_interp_set_input(it, i, e->in_view[i].type, d, e->in_view[i].nbytes, e->err);
            }
        }
        if (st == LG_OK) st = lg_interp_invoke(it, e->err);
        e->n_runs++;
        for (uint32_t j = 0; st == LG_OK && j < e->n_out; j++) {
            lg_tensor_view v;
            st = lg_interp_output(it, j, &v);
            if (st == LG_OK) add_output(e, q, k, j, &v, &ref2[j], &err2[j]);
        }
    }
    double worst = 0;
    for (uint32_t j = 0; st == LG_OK && j < e->n_out; j++) {
        if (!e->ref[j]) continue; /* case 0's copy says whether output j is float */
        double x = lgq_output_error(ref2[j], err2[j]);
        if (!(x <= worst)) worst = x;
    }
    *E = worst;
    for (uint32_t i = 0; qin && i < e->n_in; i++) free(qin[i]);
    free(qin);
    free(qv);
    free(ref2);
    free(err2);
    lg_interp_free(it);
    return st;
}

/* ------------------------------------------------------------------ the sweep */

typedef struct sctx {
    const lg_model *src;
    const lg_quant_options *o;
    lg_error *err;
    const lgq_calib *cal;
    sweep_eval ev;
    uint32_t n_ops;
    const uint8_t *excluded;
    uint8_t *keep;             /* the mask of the model being built */
    int32_t *map;              /* scratch map of the builds */
    lg_quant_layer *layers;    /* found in op order, then sorted by rank */
    uint32_t n_layers;
    double *err_k;             /* per k in 0..n: E measured (NaN: not yet) */
    lg_quant_step *steps;
    uint32_t n_steps;
    uint32_t n_builds;
} sctx;

static void progress(const sctx *c, const char *what, uint64_t done, uint64_t total) {
    if (c->o->progress) c->o->progress(c->o->progress_ud, what, done, total);
}

static void mask_base(sctx *c) {
    for (uint32_t i = 0; i < c->n_ops; i++) c->keep[i] = c->excluded && c->excluded[i] ? LGQ_KEEP_EXCLUDED : 0;
}

/* Build src with c->keep and measure it. */
static lg_status measure_mask(sctx *c, double *E) {
    lg_model *q = NULL;
    LG_TRY(lgq_static_build(c->src, c->cal, c->keep, c->o, &q, c->map, NULL, c->err));
    lg_status st = eval_model(&c->ev, q, E);
    lg_model_free(q);
    c->n_builds++;
    return st;
}

/* The layers: the int8 computing ops of the all-int8 plan (exclusions applied). */
static lg_status find_layers(sctx *c) {
    lgqs_plan p;
    memset(&p, 0, sizeof p);
    p.src = c->src;
    p.cal = c->cal;
    p.o = c->o;
    mask_base(c);
    p.keep_float = c->keep;
    lg_status st = lgqs_plan_make(&p, c->err);
    if (st == LG_OK) c->layers = calloc(c->n_ops ? c->n_ops : 1, sizeof *c->layers);
    if (st == LG_OK && !c->layers) st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    const lg_subgraph *sg = &c->src->subgraphs[0];
    for (uint32_t i = 0; st == LG_OK && i < c->n_ops; i++) {
        if (!p.op_int8[i]) continue;
        int32_t code = lg_op_builtin(c->src, &sg->ops[i]);
        const lgqs_op *e = lgqs_find(code);
        if (!e || (e->kind != LGQS_WEIGHTED && e->kind != LGQS_BINARY)) continue;
        lg_quant_layer *l = &c->layers[c->n_layers++];
        l->op = (int32_t)i;
        l->code = code;
        const lg_op *op = &sg->ops[i];
        const char *nm = op->n_outputs && op->outputs[0] >= 0 ? sg->tensors[op->outputs[0]].name : NULL;
        snprintf(l->name, sizeof l->name, "%s", nm ? nm : "");
        l->err_alone = l->err_without = NAN;
    }
    lgqs_plan_free(&p);
    return st;
}

/* One model per layer: the layer alone int8, or every layer but it. */
static lg_status measure_layers(sctx *c) {
    for (uint32_t j = 0; j < c->n_layers; j++) {
        lg_quant_layer *l = &c->layers[j];
        mask_base(c);
        if (c->o->sensitivity == LG_SENS_ALONE) {
            for (uint32_t m = 0; m < c->n_layers; m++)
                if (m != j) c->keep[c->layers[m].op] = LGQ_KEEP_CALLER;
            LG_TRY(measure_mask(c, &l->err_alone));
        } else {
            c->keep[l->op] = LGQ_KEEP_CALLER;
            LG_TRY(measure_mask(c, &l->err_without));
        }
        progress(c, "sensitivity", j + 1, c->n_layers);
    }
    return LG_OK;
}

/* Most sensitive first: the smallest E without the layer (leave-one-out) or the largest E
   with it alone; ties in op order. */
static bool ranks_before(lg_quant_sensitivity by, const lg_quant_layer *x, const lg_quant_layer *y) {
    double ex = by == LG_SENS_ALONE ? -x->err_alone : x->err_without;
    double ey = by == LG_SENS_ALONE ? -y->err_alone : y->err_without;
    if (ex != ey) return ex < ey;
    return x->op < y->op;
}

/* A stable insertion sort (tens to hundreds of layers; qsort has no context argument). */
static void rank_layers(sctx *c) {
    for (uint32_t j = 1; j < c->n_layers; j++) {
        lg_quant_layer t = c->layers[j];
        uint32_t i = j;
        for (; i > 0 && ranks_before(c->o->sensitivity, &t, &c->layers[i - 1]); i--) c->layers[i] = c->layers[i - 1];
        c->layers[i] = t;
    }
    for (uint32_t j = 0; j < c->n_layers; j++) c->layers[j].rank = j + 1;
}

/* E with ranks 1..k kept float (measured once per k). */
static lg_status error_at(sctx *c, uint32_t k, double *E) {
    if (isnan(c->err_k[k])) {
        mask_base(c);
        for (uint32_t j = 0; j < k; j++) c->keep[c->layers[j].op] = LGQ_KEEP_CALLER;
        LG_TRY(measure_mask(c, &c->err_k[k]));
    }
    *E = c->err_k[k];
    lg_quant_step *s = &c->steps[c->n_steps++];
    s->k = k;
    s->error = *E;
    s->met = *E <= c->o->target_error;
    return LG_OK;
}

/* The smallest k meeting the target among those measured: E(0), then k = 1, 2, 4, ... up to
   n until one meets, then bisection between the last failing and the first meeting (every k
   measured meeting becomes the upper bound, every one failing the lower: the result is the
   smallest meeting k measured, and k - 1 was measured failing). *k_best: the chosen k, or
   when none meets, the k of the smallest E measured (ties: the smallest k). */
static lg_status search(sctx *c, uint32_t *k_best, bool *met) {
    const double X = c->o->target_error;
    const uint32_t n = c->n_layers;
    uint32_t bound = 2, done = 0;
    for (uint32_t v = n; v; v >>= 1) bound += 2;
    double e;
    LG_TRY(error_at(c, 0, &e));
    progress(c, "search", ++done, bound);
    *k_best = 0;
    *met = e <= X;
    if (*met || n == 0) {
        progress(c, "search", bound, bound);
        return LG_OK;
    }
    uint32_t lo = 0, hi = 0;
    for (uint32_t k = 1;; k = k * 2 > n ? n : k * 2) {
        LG_TRY(error_at(c, k, &e));
        progress(c, "search", ++done, bound);
        if (e <= X) {
            hi = k;
            break;
        }
        lo = k;
        if (k == n) break;
    }
    if (!hi) { /* even every layer float fails: the smallest error measured */
        double best = INFINITY;
        for (uint32_t k = 0; k <= n; k++)
            if (!isnan(c->err_k[k]) && c->err_k[k] < best) {
                best = c->err_k[k];
                *k_best = k;
            }
        progress(c, "search", bound, bound);
        return LG_OK;
    }
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        LG_TRY(error_at(c, mid, &e));
        progress(c, "search", ++done, bound);
        if (e <= X) hi = mid;
        else lo = mid;
    }
    progress(c, "search", bound, bound);
    *k_best = hi;
    *met = true;
    return LG_OK;
}

/* The written model: ranks 1..k float, built with the report. */
static lg_status build_final(sctx *c, uint32_t k, lg_model **out, int32_t *map, lg_quant_report *rep) {
    mask_base(c);
    for (uint32_t j = 0; j < k; j++) {
        c->keep[c->layers[j].op] = LGQ_KEEP_CALLER;
        c->layers[j].kept_float = true;
    }
    LG_TRY(lgq_static_build(c->src, c->cal, c->keep, c->o, out, map, rep, c->err));
    for (uint32_t f = 0; f < rep->n_ops_float; f++) {
        lg_quant_float_op *fo = &rep->float_ops[f];
        for (uint32_t j = 0; j < k; j++)
            if (c->layers[j].op == fo->op)
                snprintf(fo->why, sizeof fo->why, "kept float for the target error: sensitivity rank %u of %u", j + 1, c->n_layers);
    }
    return LG_OK;
}

static lg_status sweep(sctx *c, lg_model **out, int32_t *map, lg_quant_report *rep) {
    const uint32_t n_t = c->src->subgraphs[0].n_tensors;
    c->keep = calloc(c->n_ops ? c->n_ops : 1, 1);
    c->map = calloc(n_t ? n_t : 1, sizeof *c->map);
    if (!c->keep || !c->map) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    LG_TRY(eval_setup(&c->ev));
    LG_TRY(find_layers(c));
    const uint32_t n = c->n_layers;
    c->err_k = malloc((n + 1) * sizeof *c->err_k);
    c->steps = calloc(2 * n + 4 + 64, sizeof *c->steps);
    if (!c->err_k || !c->steps) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    for (uint32_t k = 0; k <= n; k++) c->err_k[k] = NAN;
    mask_base(c);
    LG_TRY(measure_mask(c, &c->err_k[0]));
    LG_TRY(measure_layers(c));
    rank_layers(c);
    /* models measured already: k = 1 is the leave-one-out model of rank 1, k = n - 1 the
       alone model of rank n (the same mask, the same build) */
    if (n >= 1 && c->o->sensitivity == LG_SENS_WITHOUT) c->err_k[1] = c->layers[0].err_without;
    if (n >= 1 && c->o->sensitivity == LG_SENS_ALONE) c->err_k[n - 1] = c->layers[n - 1].err_alone;
    uint32_t k = 0;
    bool met = false;
    LG_TRY(search(c, &k, &met));
    LG_TRY(build_final(c, k, out, map, rep));
    rep->swept = true;
    rep->target_error = c->o->target_error;
    rep->sensitivity = c->o->sensitivity;
    rep->sweep_on_eval = c->o->n_eval && c->o->eval_cases;
    rep->sweep_cases = c->ev.n_cases;
    rep->error_int8 = c->err_k[0];
    rep->error = c->err_k[k];
    rep->n_kept = k;
    rep->target_met = met;
    rep->n_builds = c->n_builds;
    rep->n_runs = c->ev.n_runs;
    rep->layers = c->layers;
    rep->n_layers = n;
    rep->steps = c->steps;
    rep->n_steps = c->n_steps;
    c->layers = NULL;
    c->steps = NULL;
    return LG_OK;
}

lg_status lgq_sweep_run(const lg_model *src, const lg_quant_options *o, const uint8_t *excluded, lg_model **out,
                        int32_t *map, lg_quant_report *rep, lg_error *err) {
    *out = NULL;
    if (!rep) return lgi_fail(err, LG_ERR_INVALID_ARG, "lgq_sweep_run: NULL report");
    LG_TRY(lgq_sweep_check(o, err));
    lgq_calib *cal = NULL;
    LG_TRY(lgq_calibrate(src, o, &cal, err));
    rep->range = cal->method;
    rep->percentile = cal->method == LG_RANGE_PERCENTILE ? cal->percentile : 0;
    rep->int8_io = o->int8_io;
    rep->n_calib_cases = cal->n_cases;
    sctx c;
    memset(&c, 0, sizeof c);
    c.src = src;
    c.o = o;
    c.err = err;
    c.cal = cal;
    c.n_ops = src->subgraphs[0].n_ops;
    c.excluded = excluded;
    c.ev.src = src;
    c.ev.o = o;
    c.ev.err = err;
    lg_status st = sweep(&c, out, map, rep);
    if (st != LG_OK) {
        lg_model_free(*out);
        *out = NULL;
    }
    eval_free(&c.ev);
    free(c.keep);
    free(c.map);
    free(c.layers);
    free(c.err_k);
    free(c.steps);
    lgq_calib_free(cal);
    return st;
}

/* ------------------------------------------------------------------ metadata */

static void put_num(lgq_str *b, double v) {
    if (isfinite(v)) lgq_str_put(b, "%.17g", v);
    else lgq_str_put(b, "null");
}

void lgq_sweep_metadata(const lg_quant_report *r, lgq_str *b) {
    lgq_str_put(b, ",\"target_error\":");
    put_num(b, r->target_error);
    lgq_str_put(b, ",\"target_met\":%s,\"error\":", r->target_met ? "true" : "false");
    put_num(b, r->error);
    lgq_str_put(b, ",\"error_int8\":");
    put_num(b, r->error_int8);
    lgq_str_put(b, ",\"sensitivity\":\"%s\",\"n_layers\":%u,\"kept_float\":[", lg_quant_sensitivity_name(r->sensitivity),
                r->n_layers);
    uint32_t w = 0;
    for (uint32_t j = 0; j < r->n_layers; j++) {
        if (!r->layers[j].kept_float) continue;
        lgq_str_put(b, "%s{\"op\":%d,\"name\":\"", w++ ? "," : "", r->layers[j].op);
        lgq_str_esc(b, r->layers[j].name);
        lgq_str_put(b, "\"}");
    }
    lgq_str_put(b, "]");
}
