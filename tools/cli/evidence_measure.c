/* Evidence records: the measurements the writer makes on the two files, so that every verb
   with --evidence gets the same ones (the item 6, the handbook's chapter 16
   "measurements: {}" populated by execution, never estimated):
   - learned parameters (lg_model_learned_params, lg/info.h) before and after;
   - the planned activation memory of the reference interpreter (lg_interp_mem_plan: the
     arena and the peak of live activation bytes), before and after;
   - latency median and p95 over a few warm runs (1 warm-up, then e->runs, the two models
     alternating, on the "pattern" fill), as bench times a run (set the inputs + invoke);
     written to the timing file;
   - the candidate's output error against the baseline in fp32 on the evaluation inputs (the
     folder e->calib, in cli_calib_load's layout, else the "pattern" fill as compare's golden
     input): per output max abs, max |ref|, max abs / max |ref|, RMS, and argmax agreement per
     row of the last dimension when it is > 1.
   An ONNX baseline is imported in memory (e->onnx: convert's flags). A quantized candidate runs
   in the interpreter's integer kernels; INT8/UINT8/INT16 inputs and outputs (quantize
   --int8-io) are quantized / dequantized with their per-tensor scale and zero point
   (TFLite's Quantize: q = round(x / scale) + zero_point, round half away from zero, clamped).
   Whatever cannot be measured stays null, with the reason added to the limitations. */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evidence.h"
#include "json.h"
#include "lg/info.h"
#include "lg/import.h"
#include "lg/run.h"
#include "lg/util.h"
#include "run_common.h"

static void limit(ev_measure *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void limit(ev_measure *m, const char *fmt, ...) {
    if (m->n_limits >= EV_MAX_LIMITS) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->limits[m->n_limits++], sizeof m->limits[0], fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- loading */

static lg_model *load_baseline(const cli_evidence *e) {
    lg_model *m = NULL;
    if (cli_model_format(e->baseline) == CLI_FORMAT_ONNX) {
        cli_onnx_options d;
        memset(&d, 0, sizeof d);
        cli_onnx_options o = e->onnx ? *e->onnx : d;
        o.report = false; /* quiet: the verb already imported it once */
        o.json = false;
        lg_import_report *rep = NULL;
        if (cli_onnx_import(e->baseline, &o, &m, &rep) != CLI_OK) m = NULL;
        lg_import_report_free(rep);
        return m;
    }
    lg_error err;
    if (lg_tflite_read_file(e->baseline, NULL, &m, &err) != LG_OK) return NULL;
    return m;
}

static void side_static(ev_measure *me, const char *which, const lg_model *m, ev_side *s, lg_interp **it) {
    lg_error err;
    s->loaded = m != NULL;
    if (!m) {
        limit(me, "%s: the model could not be read: nothing measured on it", which);
        return;
    }
    uint64_t n = 0;
    if (lg_model_learned_params(m, &n, &err) == LG_OK) {
        s->have_params = true;
        s->n_params = (unsigned long long)n;
    } else {
        limit(me, "%s: n_params not counted: %s", which, err.msg);
    }
    lg_run_options ro;
    memset(&ro, 0, sizeof ro); /* fp32, one thread, memory reused (the planned peak) */
    if (lg_interp_create(m, &ro, it, &err) != LG_OK) {
        *it = NULL;
        limit(me, "%s: the reference interpreter cannot run it (%s): planned memory, latency and output error not measured",
              which, err.msg);
        return;
    }
    s->runs = true;
    const lg_mem_plan *pl = lg_interp_mem_plan(*it);
    s->arena_bytes = pl->arena_bytes;
    s->peak_live_bytes = pl->peak_live_bytes;
}

/* ---------------------------------------------------------------- interface */

/* Per-tensor quantization of tensor t of subgraph 0, or false. */
static bool qparams(const lg_model *m, int32_t t, float *scale, int64_t *zp) {
    const lg_subgraph *sg = &m->subgraphs[0];
    if (t < 0 || (uint32_t)t >= sg->n_tensors) return false;
    const lg_quant *q = sg->tensors[t].quant;
    if (!q || q->n_scale != 1 || !(q->scale[0] > 0)) return false;
    *scale = q->scale[0];
    *zp = q->n_zero_point ? q->zero_point[0] : 0;
    return true;
}

static bool int_type(lg_dtype t, int64_t *lo, int64_t *hi) {
    switch (t) {
    case LG_INT8: *lo = -128; *hi = 127; return true;
    case LG_UINT8: *lo = 0; *hi = 255; return true;
    case LG_INT16: *lo = -32768; *hi = 32767; return true;
    default: return false;
    }
}

/* Can the candidate's tensor (view c, candidate model mc) be fed / read as the baseline's
   float view b? Writes the reason into why otherwise. */
static bool compatible(const lg_model *mc, const lg_tensor_view *b, const lg_tensor_view *c, const char *what,
                       unsigned k, char *why, size_t n) {
    if (b->type != LG_FLOAT32) {
        snprintf(why, n, "baseline %s %u \"%s\" is %s, not float32", what, k, b->name ? b->name : "", lg_dtype_name(b->type));
        return false;
    }
    if (b->numel != c->numel) {
        snprintf(why, n, "%s %u has %lld values in the baseline and %lld in the candidate (the interface changed)", what, k,
                 (long long)b->numel, (long long)c->numel);
        return false;
    }
    if (c->type == LG_FLOAT32) return true;
    float s;
    int64_t zp, lo, hi;
    if (int_type(c->type, &lo, &hi) && qparams(mc, c->index, &s, &zp)) return true;
    snprintf(why, n, "candidate %s %u \"%s\" is %s without one scale", what, k, c->name ? c->name : "", lg_dtype_name(c->type));
    return false;
}

static bool interface_ok(const lg_interp *ib, const lg_interp *ic, const lg_model *mc, char *why, size_t n) {
    unsigned ni = lg_interp_n_inputs(ib), no = lg_interp_n_outputs(ib);
    if (ni != lg_interp_n_inputs(ic) || no != lg_interp_n_outputs(ic)) {
        snprintf(why, n, "the models differ in interface: %u/%u inputs, %u/%u outputs", ni, lg_interp_n_inputs(ic), no,
                 lg_interp_n_outputs(ic));
        return false;
    }
    for (unsigned k = 0; k < ni + no; k++) {
        lg_tensor_view b, c;
        if (k < ni) { lg_interp_input(ib, k, &b); lg_interp_input(ic, k, &c); }
        else { lg_interp_output(ib, k - ni, &b); lg_interp_output(ic, k - ni, &c); }
        if (!compatible(mc, &b, &c, k < ni ? "input" : "output", k < ni ? k : k - ni, why, n)) return false;
    }
    return true;
}

/* ---------------------------------------------------------------- inputs */

typedef struct ev_sets {
    cli_calib cal;            /* from the folder */
    float **fill;             /* or one set of the pattern fill, per input */
    unsigned n_in, n;
} ev_sets;

static const float *set_input(const ev_sets *s, unsigned k, unsigned i) {
    return s->fill ? s->fill[i] : s->cal.ptrs[k][i];
}

static void sets_free(ev_sets *s) {
    if (s->fill) {
        for (unsigned i = 0; i < s->n_in; i++) free(s->fill[i]);
        free(s->fill);
    }
    cli_calib_free(&s->cal);
    memset(s, 0, sizeof *s);
}

static int sets_make(const cli_evidence *e, const lg_interp *ib, ev_sets *s, char *why, size_t n) {
    memset(s, 0, sizeof *s);
    s->n_in = lg_interp_n_inputs(ib);
    lg_tensor_view *views = calloc(s->n_in ? s->n_in : 1, sizeof *views);
    if (!views) { snprintf(why, n, "out of memory"); return -1; }
    for (unsigned i = 0; i < s->n_in; i++) lg_interp_input(ib, i, &views[i]);
    int rc = 0;
    if (e->calib) {
        if (cli_calib_load(views, s->n_in, e->calib, 4096, &s->cal) != 0) {
            snprintf(why, n, "the evaluation inputs %s could not be read (the error above)", e->calib);
            rc = -1;
        } else if (s->cal.n == 0) {
            snprintf(why, n, "the evaluation folder %s holds no input set", e->calib);
            rc = -1;
        }
        s->n = s->cal.n;
    } else {
        s->fill = calloc(s->n_in ? s->n_in : 1, sizeof *s->fill);
        rc = s->fill ? 0 : -1;
        for (unsigned i = 0; !rc && i < s->n_in; i++) {
            lg_error err;
            s->fill[i] = malloc((size_t)(views[i].numel ? views[i].numel : 1) * sizeof(float));
            if (!s->fill[i] || lg_fill_f32("pattern", s->fill[i], views[i].numel, &err) != LG_OK) rc = -1;
        }
        if (rc) snprintf(why, n, "out of memory");
        s->n = 1;
    }
    free(views);
    return rc;
}

/* Feed set k to the candidate: float as is, an integer input quantized with its scale. */
static lg_status feed_candidate(lg_interp *ic, const lg_model *mc, const ev_sets *s, unsigned k, void **buf,
                                lg_error *err) {
    for (unsigned i = 0; i < s->n_in; i++) {
        lg_tensor_view c;
        lg_interp_input(ic, i, &c);
        const float *x = set_input(s, k, i);
        if (c.type == LG_FLOAT32) {
            lg_status st = lg_interp_set_input(ic, i, LG_FLOAT32, x, (uint64_t)c.numel * 4, err);
            if (st != LG_OK) return st;
            continue;
        }
        float sc = 1;
        int64_t zp = 0, lo = 0, hi = 0;
        qparams(mc, c.index, &sc, &zp);
        int_type(c.type, &lo, &hi);
        size_t es = c.type == LG_INT16 ? 2 : 1;
        for (int64_t e = 0; e < c.numel; e++) {
            double q = round((double)x[e] / sc) + (double)zp;
            int64_t v = q < (double)lo ? lo : q > (double)hi ? hi : (int64_t)q;
            if (c.type == LG_INT8) ((int8_t *)buf[i])[e] = (int8_t)v;
            else if (c.type == LG_UINT8) ((uint8_t *)buf[i])[e] = (uint8_t)v;
            else ((int16_t *)buf[i])[e] = (int16_t)v;
        }
        lg_status st = lg_interp_set_input(ic, i, c.type, buf[i], (uint64_t)c.numel * es, err);
        if (st != LG_OK) return st;
    }
    return LG_OK;
}

static lg_status feed_baseline(lg_interp *ib, const ev_sets *s, unsigned k, lg_error *err) {
    for (unsigned i = 0; i < s->n_in; i++) {
        lg_tensor_view b;
        lg_interp_input(ib, i, &b);
        lg_status st = lg_interp_set_input(ib, i, LG_FLOAT32, set_input(s, k, i), (uint64_t)b.numel * 4, err);
        if (st != LG_OK) return st;
    }
    return LG_OK;
}

/* The candidate's output as float (dequantized when it is an integer tensor). */
static void candidate_values(const lg_model *mc, const lg_tensor_view *c, float *out) {
    if (c->type == LG_FLOAT32) {
        memcpy(out, c->data, (size_t)c->numel * 4);
        return;
    }
    float sc = 1;
    int64_t zp = 0;
    qparams(mc, c->index, &sc, &zp);
    for (int64_t e = 0; e < c->numel; e++) {
        int64_t q = c->type == LG_INT8 ? ((const int8_t *)c->data)[e]
                    : c->type == LG_UINT8 ? ((const uint8_t *)c->data)[e] : ((const int16_t *)c->data)[e];
        out[e] = (float)((double)(q - zp) * sc);
    }
}

/* ---------------------------------------------------------------- output error */

typedef struct ev_acc { double sum_sq; long long n; } ev_acc;

static long long row_argmax(const float *x, long long w) {
    long long best = 0;
    for (long long i = 1; i < w; i++)
        if (x[i] > x[best]) best = i;
    return best;
}

static void accumulate(ev_output *o, ev_acc *a, const float *ref, const float *test, long long n, long long last) {
    for (long long i = 0; i < n; i++) {
        double r = ref[i], t = test[i], d = fabs(r - t);
        if (!isfinite(r) || !isfinite(t)) continue;
        if (d > o->max_abs) o->max_abs = d;
        if (fabs(r) > o->ref_max_abs) o->ref_max_abs = fabs(r);
        a->sum_sq += d * d;
        a->n++;
    }
    if (o->vector)
        for (long long r0 = 0; r0 + last <= n; r0 += last) {
            o->argmax_rows++;
            o->argmax_equal += row_argmax(ref + r0, last) == row_argmax(test + r0, last);
        }
    o->n_cases++;
}

static void measure_error(const cli_evidence *e, ev_measure *me, lg_interp *ib, lg_interp *ic, const lg_model *mc,
                          ev_sets *s) {
    char why[400] = "";
    if (!interface_ok(ib, ic, mc, why, sizeof why)) {
        limit(me, "output error not measured: %s", why);
        return;
    }
    if (sets_make(e, ib, s, why, sizeof why) != 0) {
        limit(me, "output error not measured: %s", why);
        return;
    }
    me->eval_source = e->calib ? "folder" : "pattern fill";
    me->n_cases = s->n;
    lg_sha256_ctx h;
    lg_sha256_init(&h);
    unsigned no = lg_interp_n_outputs(ib);
    me->outputs = calloc(no ? no : 1, sizeof *me->outputs);
    ev_acc *acc = calloc(no ? no : 1, sizeof *acc);
    void **qbuf = calloc(s->n_in ? s->n_in : 1, sizeof *qbuf);
    float *tmp = NULL;
    int64_t tmp_n = 0;
    bool ok = me->outputs && acc && qbuf;
    for (unsigned i = 0; ok && i < s->n_in; i++) {
        lg_tensor_view c;
        lg_interp_input(ic, i, &c);
        qbuf[i] = malloc((size_t)(c.numel ? c.numel : 1) * 2);
        ok = qbuf[i] != NULL;
    }
    for (unsigned k = 0; ok && k < no; k++) {
        lg_tensor_view b;
        lg_interp_output(ib, k, &b);
        snprintf(me->outputs[k].name, sizeof me->outputs[k].name, "%s", b.name ? b.name : "");
        me->outputs[k].numel = b.numel;
        me->outputs[k].vector = b.rank >= 1 && b.shape[b.rank - 1] > 1;
        if (b.numel > tmp_n) tmp_n = b.numel;
    }
    if (ok) tmp = malloc((size_t)(tmp_n ? tmp_n : 1) * sizeof *tmp);
    if (!ok || !tmp) {
        limit(me, "output error not measured: out of memory");
        ok = false;
    }
    lg_error err;
    for (unsigned k = 0; ok && k < s->n; k++) {
        for (unsigned i = 0; i < s->n_in; i++) {
            lg_tensor_view b;
            lg_interp_input(ib, i, &b);
            lg_sha256_update(&h, set_input(s, k, i), (size_t)b.numel * 4);
        }
        const char *which = "baseline";
        lg_status st = feed_baseline(ib, s, k, &err);
        if (st == LG_OK) st = lg_interp_invoke(ib, &err);
        if (st == LG_OK) {
            which = "candidate";
            st = feed_candidate(ic, mc, s, k, qbuf, &err);
        }
        if (st == LG_OK) st = lg_interp_invoke(ic, &err);
        if (st != LG_OK) {
            limit(me, "output error not measured: the %s failed on input set %u: %s", which, k, err.msg);
            ok = false;
            break;
        }
        for (unsigned o = 0; o < no; o++) {
            lg_tensor_view b, c;
            lg_interp_output(ib, o, &b);
            lg_interp_output(ic, o, &c);
            candidate_values(mc, &c, tmp);
            long long last = b.rank ? b.shape[b.rank - 1] : 1;
            accumulate(&me->outputs[o], &acc[o], b.data, tmp, b.numel, last);
        }
    }
    if (ok) {
        uint8_t d[32];
        lg_sha256_final(&h, d);
        lg_hex(d, 32, me->inputs_sha256);
        for (unsigned o = 0; o < no; o++) {
            ev_output *x = &me->outputs[o];
            x->max_rel = x->ref_max_abs > 0 ? x->max_abs / x->ref_max_abs : NAN;
            x->rms = acc[o].n ? sqrt(acc[o].sum_sq / (double)acc[o].n) : NAN;
        }
        me->n_outputs = no;
        me->have_error = true;
    } else {
        free(me->outputs);
        me->outputs = NULL;
        me->eval_source = NULL;
        me->n_cases = 0;
    }
    for (unsigned i = 0; qbuf && i < s->n_in; i++) free(qbuf[i]);
    free(qbuf);
    free(acc);
    free(tmp);
}

/* ---------------------------------------------------------------- latency */

static void summarize(ev_side *s, double *t, int n, double first) {
    cli_time_stats(t, n, &s->median_ms, &s->p95_ms, &s->min_ms); /* as bench */
    s->first_ms = first;
    s->have_latency = true;
}

/* One warm-up each, then runs alternating baseline / candidate (drift hits both alike), each
   run setting the inputs and invoking, as bench does. The inputs are the "pattern" fill made in
   each model's own input types (cli_inputs_make, bench --fill pattern): latency does not depend
   on the evaluation inputs, and a model whose error could not be measured is still timed. */
static void measure_latency(ev_measure *me, lg_interp *ib, lg_interp *ic) {
    int n = me->runs;
    double *t[2] = {calloc((size_t)n, sizeof(double)), calloc((size_t)n, sizeof(double))};
    lg_interp *its[2] = {ib, ic};
    cli_inputs in[2];
    memset(in, 0, sizeof in);
    bool ok[2] = {false, false};
    double first[2] = {0, 0};
    const char *who[2] = {"baseline", "candidate"};
    lg_error err;
    for (int w = 0; w < 2; w++) {
        if (!its[w]) continue;
        if (!t[w] || cli_inputs_make(its[w], NULL, 0, "pattern", &in[w]) != 0) {
            limit(me, "%s: latency not measured: its inputs could not be made", who[w]);
            continue;
        }
        double a = cli_now_ms();
        ok[w] = cli_inputs_set(its[w], &in[w]) == 0 && lg_interp_invoke(its[w], &err) == LG_OK;
        first[w] = cli_now_ms() - a;
        if (!ok[w]) limit(me, "%s: latency not measured: the run failed", who[w]);
    }
    for (int r = 0; r < n; r++)
        for (int w = 0; w < 2; w++) {
            if (!ok[w]) continue;
            double a = cli_now_ms();
            ok[w] = cli_inputs_set(its[w], &in[w]) == 0 && lg_interp_invoke(its[w], &err) == LG_OK;
            t[w][r] = cli_now_ms() - a;
            if (!ok[w]) limit(me, "%s: latency not measured: %s", who[w], err.msg);
        }
    if (ok[0]) summarize(&me->before, t[0], n, first[0]);
    if (ok[1]) summarize(&me->after, t[1], n, first[1]);
    for (int w = 0; w < 2; w++) {
        cli_inputs_free(&in[w]);
        free(t[w]);
    }
}

/* ---------------------------------------------------------------- interface */

static void io_list(json_w *j, const lg_subgraph *sg, const int32_t *idx, uint32_t n) {
    json_arr_open_flat(j);
    for (uint32_t i = 0; i < n; i++) {
        const lg_tensor *t = idx[i] >= 0 && (uint32_t)idx[i] < sg->n_tensors ? &sg->tensors[idx[i]] : NULL;
        json_obj_open_flat(j);
        json_key_str(j, "name", t && t->name ? t->name : "");
        json_key_str(j, "dtype", t ? lg_dtype_name(t->type) : NULL);
        json_key(j, "shape");
        json_arr_open_flat(j);
        for (uint32_t d = 0; t && d < t->rank; d++) json_int(j, t->shape[d]);
        json_arr_close(j);
        json_obj_close(j);
    }
    json_arr_close(j);
}

static bool same_io(const lg_subgraph *a, const int32_t *ia, uint32_t na, const lg_subgraph *b, const int32_t *ib,
                    uint32_t nb) {
    if (na != nb) return false;
    for (uint32_t i = 0; i < na; i++) {
        if (ia[i] < 0 || ib[i] < 0 || (uint32_t)ia[i] >= a->n_tensors || (uint32_t)ib[i] >= b->n_tensors) return false;
        const lg_tensor *x = &a->tensors[ia[i]], *y = &b->tensors[ib[i]];
        if (x->type != y->type || x->rank != y->rank || strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0) return false;
        for (uint32_t d = 0; d < x->rank; d++)
            if (x->shape[d] != y->shape[d]) return false;
    }
    return true;
}

/* The models' inputs and outputs (subgraph 0), and whether they are the same: the record's
   "held_constant" claims the interface only when it is. */
static void interface(ev_measure *me, const lg_model *mb, const lg_model *mc) {
    if (!mb || !mc || !mb->n_subgraphs || !mc->n_subgraphs) return;
    const lg_subgraph *a = &mb->subgraphs[0], *b = &mc->subgraphs[0];
    me->same_interface = same_io(a, a->inputs, a->n_inputs, b, b->inputs, b->n_inputs) &&
                         same_io(a, a->outputs, a->n_outputs, b, b->outputs, b->n_outputs);
    cli_jtext t;
    if (cli_jtext_open(&t) != CLI_OK) return;
    json_obj_open_flat(&t.j);
    const lg_subgraph *sg[2] = {a, b};
    const char *key[2] = {"baseline", "candidate"};
    for (int k = 0; k < 2; k++) {
        json_key(&t.j, key[k]);
        json_obj_open_flat(&t.j);
        json_key(&t.j, "inputs");
        io_list(&t.j, sg[k], sg[k]->inputs, sg[k]->n_inputs);
        json_key(&t.j, "outputs");
        io_list(&t.j, sg[k], sg[k]->outputs, sg[k]->n_outputs);
        json_obj_close(&t.j);
    }
    json_key_bool(&t.j, "same", me->same_interface);
    json_obj_close(&t.j);
    me->interface_json = cli_jtext_close(&t);
    if (!me->same_interface)
        limit(me, "the candidate's inputs or outputs differ from the baseline's (names, dtypes or shapes: "
                  "input_contract): the interface was not held constant");
}

/* ---------------------------------------------------------------- entry */

void ev_measure_run(const cli_evidence *e, ev_measure *me) {
    memset(me, 0, sizeof *me);
    me->runs = e->runs > 0 ? e->runs : 5;
    lg_model *mb = load_baseline(e), *mc = NULL;
    lg_error err;
    if (lg_tflite_read_file(e->candidate, NULL, &mc, &err) != LG_OK) mc = NULL;
    lg_interp *ib = NULL, *ic = NULL;
    side_static(me, "baseline", mb, &me->before, &ib);
    side_static(me, "candidate", mc, &me->after, &ic);
    interface(me, mb, mc);
    ev_sets s;
    memset(&s, 0, sizeof s);
    if (ib && ic) measure_error(e, me, ib, ic, mc, &s);
    else limit(me, "output error not measured: both models must run in the reference interpreter");
    if (ib || ic) measure_latency(me, ib, ic);
    if (cli_model_format(e->baseline) == CLI_FORMAT_ONNX)
        limit(me, "the baseline is ONNX: its n_params, planned memory, latency and outputs are those of the model "
                  "litegpu imports from it (in memory, with the verb's import flags), and its file size is the ONNX file's");
    if (me->have_error && !e->calib)
        limit(me, "output error measured on one input (the pattern fill): no evaluation inputs were given");
    if (me->have_error && e->calib && e->calib_is_fit)
        limit(me, "the evaluation inputs are the calibration inputs the change was fitted on: the output error is "
                  "optimistic; give separate evaluation inputs");
    if (me->before.have_latency || me->after.have_latency)
        limit(me, "latency is the reference interpreter's (fp32 storage, one thread, this host), %d warm runs per model "
              "after 1 warm-up: not a GPU or device measurement; p95 of %d runs is their nearest-rank 95th percentile",
          me->runs, me->runs);
    if (me->before.runs || me->after.runs)
        limit(me, "planned memory is the reference interpreter's activation plan (arena and peak live bytes), not a "
              "process or device peak");
    sets_free(&s);
    lg_interp_free(ib);
    lg_interp_free(ic);
    lg_model_free(mb);
    lg_model_free(mc);
}

void ev_measure_free(ev_measure *m) {
    free(m->outputs);
    m->outputs = NULL;
    free(m->interface_json);
    m->interface_json = NULL;
}

/* ---------------------------------------------------------------- JSON */

static void num(FILE *f, double v) {
    if (isnan(v) || isinf(v)) fputs("null", f);
    else fprintf(f, "%.9g", v);
}

static void before_after_u(FILE *f, const char *key, bool hb, unsigned long long b, bool ha, unsigned long long a) {
    fprintf(f, "    \"%s\": {\"before\": ", key);
    if (hb) fprintf(f, "%llu", b); else fputs("null", f);
    fputs(", \"after\": ", f);
    if (ha) fprintf(f, "%llu", a); else fputs("null", f);
    fputs("},\n", f);
}

void ev_measure_write(FILE *f, const cli_evidence *e, const ev_measure *m, size_t bsize, size_t csize) {
    fputs("{\n", f);
    before_after_u(f, "n_params", m->before.have_params, m->before.n_params, m->after.have_params, m->after.n_params);
    before_after_u(f, "file_size_bytes", true, bsize, true, csize);
    before_after_u(f, "planned_arena_bytes", m->before.runs, m->before.arena_bytes, m->after.runs, m->after.arena_bytes);
    before_after_u(f, "planned_peak_live_bytes", m->before.runs, m->before.peak_live_bytes, m->after.runs,
                   m->after.peak_live_bytes);
    fprintf(f, "    \"latency\": {\"recorded_in\": \"measurements_timing.json\", \"n_runs\": %d, \"n_warmup_runs\": 1, "
               "\"measured\": {\"before\": %s, \"after\": %s}},\n",
            m->runs, m->before.have_latency ? "true" : "false", m->after.have_latency ? "true" : "false");
    fputs("    \"evaluation_inputs\": ", f);
    if (!m->have_error) {
        fputs("null,\n", f);
    } else {
        fprintf(f, "{\"source\": \"%s\", \"path\": ", m->eval_source);
        if (e->calib) json_write_quoted(f, e->calib, strlen(e->calib));
        else fputs("null", f);
        fprintf(f, ", \"n_cases\": %u, \"inputs_sha256\": \"%s\", \"fitted_on\": %s},\n", m->n_cases, m->inputs_sha256,
                e->calib && e->calib_is_fit ? "true" : "false");
    }
    fputs("    \"output_error\": ", f);
    if (!m->have_error) {
        fputs("null\n  }", f);
        return;
    }
    fputs("[", f);
    for (unsigned k = 0; k < m->n_outputs; k++) {
        const ev_output *o = &m->outputs[k];
        fprintf(f, "%s\n      {\"index\": %u, \"name\": ", k ? "," : "", k);
        json_write_quoted(f, o->name, strlen(o->name));
        fprintf(f, ", \"n_values\": %lld, \"n_cases\": %u, \"max_abs\": ", o->numel, o->n_cases);
        num(f, o->max_abs);
        fputs(", \"ref_max_abs\": ", f);
        num(f, o->ref_max_abs);
        fputs(", \"max_rel\": ", f);
        num(f, o->max_rel);
        fputs(", \"rms\": ", f);
        num(f, o->rms);
        fputs(", \"argmax\": ", f);
        if (o->vector) fprintf(f, "{\"n_equal\": %lld, \"n_rows\": %lld}", o->argmax_equal, o->argmax_rows);
        else fputs("null", f);
        fputs("}", f);
    }
    fputs("\n    ]\n  }", f);
}

static void timing_side(FILE *f, const ev_side *s) {
    if (!s->have_latency) {
        fputs("null", f);
        return;
    }
    fputs("{\"median_ms\": ", f);
    num(f, s->median_ms);
    fputs(", \"p95_ms\": ", f);
    num(f, s->p95_ms);
    fputs(", \"min_ms\": ", f);
    num(f, s->min_ms);
    fputs(", \"first_run_ms\": ", f);
    num(f, s->first_ms);
    fputs("}", f);
}

void ev_timing_write(FILE *f, const ev_measure *m) {
    fprintf(f, "{\n  \"what\": \"latency of one run (set the inputs + invoke), reference interpreter, fp32, 1 thread, "
               "the two models alternating\",\n  \"n_warmup_runs\": 1,\n  \"n_runs\": %d,\n  \"before\": ", m->runs);
    timing_side(f, &m->before);
    fputs(",\n  \"after\": ", f);
    timing_side(f, &m->after);
    fputs(",\n  \"note\": \"wall-clock figures differ from run to run: this file is listed in SHA256SUMS but is not "
          "part of the determinism of contract.json\"\n}\n", f);
}
