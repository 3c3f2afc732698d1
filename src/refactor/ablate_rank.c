/* lg_ablate_measure and lg_ablate (lg/ablate.h): every block bypassed alone, run in fp32 against
   the original on the calibration (and evaluation) inputs, the ablation table sorted by the
   chosen divergence, and the candidate with the k least harmful blocks removed. The handbook's
   procedure (seed 001, chapter 4 "Rank candidates with ablation": one change at a time, the
   rest held fixed; "Separate ranking from acceptance": ablation losses do not add). */
#include "refactor/ablate_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/info.h"
#include "lg/run.h"

/* ---------------------------------------------------------------- running a model */

/* Every output of a model on every case, copied (FLOAT32 outputs only; others NULL). */
typedef struct outset {
    uint32_t n_cases, n_out;
    float **data;      /* [case * n_out + o] */
    int64_t *numel;    /* per output */
    int32_t *last;     /* length of the last axis (1 for a scalar) */
} outset;

static void outset_free(outset *s) {
    if (s->data)
        for (uint64_t i = 0; i < (uint64_t)s->n_cases * s->n_out; i++) free(s->data[i]);
    free(s->data), free(s->numel), free(s->last);
    memset(s, 0, sizeof *s);
}

static lg_status set_inputs(lg_interp *it, const void *const *in, float *scratch, lg_error *err) {
    for (uint32_t i = 0; i < lg_interp_n_inputs(it); i++) {
        lg_tensor_view v;
        LG_TRY(lg_interp_input(it, i, &v));
        uint64_t nbytes = (uint64_t)v.numel * (uint64_t)lg_dtype_bits(v.type) / 8;
        const void *data = in ? in[i] : scratch;
        if (!in) {
            memset(scratch, 0, nbytes);
            if (v.type == LG_FLOAT32) LG_TRY(lg_fill_f32("pattern", scratch, v.numel, err));
        }
        LG_TRY(lg_interp_set_input(it, i, v.type, data, nbytes, err));
    }
    return LG_OK;
}

/* The largest input in bytes (the pattern fill's scratch). */
static uint64_t max_input_bytes(const lg_interp *it) {
    uint64_t mx = 16;
    for (uint32_t i = 0; i < lg_interp_n_inputs(it); i++) {
        lg_tensor_view v;
        if (lg_interp_input(it, i, &v) != LG_OK) continue;
        uint64_t b = (uint64_t)v.numel * (uint64_t)lg_dtype_bits(v.type) / 8 + 16;
        if (b > mx) mx = b;
    }
    return mx;
}

static lg_status copy_outputs(const lg_interp *it, outset *s, uint32_t k, lg_error *err) {
    for (uint32_t o = 0; o < s->n_out; o++) {
        lg_tensor_view v;
        LG_TRY(lg_interp_output(it, o, &v));
        if (k == 0) {
            s->numel[o] = v.numel;
            s->last[o] = v.rank ? v.shape[v.rank - 1] : 1;
        } else if (s->numel[o] != v.numel) {
            return lgi_fail(err, LG_ERR_INVALID_ARG, "ablate: output %u changed size between inputs", o);
        }
        if (v.type != LG_FLOAT32 || !v.data) continue;
        float *d = malloc((size_t)(v.numel ? v.numel : 1) * sizeof(float));
        if (!d) return lgi_fail(err, LG_ERR_NOMEM, "ablate: out of memory");
        memcpy(d, v.data, (size_t)v.numel * sizeof(float));
        s->data[(size_t)k * s->n_out + o] = d;
    }
    return LG_OK;
}

/* Run m (fp32) on the cases (NULL: one pattern-filled case). */
static lg_status run_set(const lg_model *m, const void *const *const *cases, uint32_t n_cases, outset *s, lg_error *err) {
    memset(s, 0, sizeof *s);
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = LG_PREC_F32;
    lg_interp *it = NULL;
    LG_TRY(lg_interp_create(m, &ro, &it, err));
    s->n_cases = cases ? n_cases : 1;
    s->n_out = lg_interp_n_outputs(it);
    s->data = calloc((size_t)s->n_cases * s->n_out + 1, sizeof *s->data);
    s->numel = calloc(s->n_out + 1, sizeof *s->numel);
    s->last = calloc(s->n_out + 1, sizeof *s->last);
    float *scratch = cases ? NULL : malloc(max_input_bytes(it));
    lg_status st = LG_OK;
    if (!s->data || !s->numel || !s->last || (!cases && !scratch)) st = lgi_fail(err, LG_ERR_NOMEM, "ablate: out of memory");
    for (uint32_t k = 0; st == LG_OK && k < s->n_cases; k++) {
        st = set_inputs(it, cases ? cases[k] : NULL, scratch, err);
        if (st == LG_OK) st = lg_interp_invoke(it, err);
        if (st == LG_OK) st = copy_outputs(it, s, k, err);
    }
    free(scratch);
    lg_interp_free(it);
    if (st != LG_OK) outset_free(s);
    return st;
}

/* ---------------------------------------------------------------- metrics */

/* KL(softmax(o) || softmax(c)) of one row of n values, in nats (double, max-shifted). */
static double kl_row(const float *o, const float *c, int64_t n) {
    double mo = -INFINITY, mc = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
        if (o[i] > mo) mo = o[i];
        if (c[i] > mc) mc = c[i];
    }
    double so = 0, sc = 0;
    for (int64_t i = 0; i < n; i++) {
        so += exp((double)o[i] - mo);
        sc += exp((double)c[i] - mc);
    }
    double lso = mo + log(so), lsc = mc + log(sc), kl = 0;
    for (int64_t i = 0; i < n; i++) {
        double lo = (double)o[i] - lso, lc = (double)c[i] - lsc;
        kl += exp(lo) * (lo - lc);
    }
    return kl;
}

/* numpy's argmax: the first maximum (a NaN counts as the maximum, as numpy). */
static int64_t argmax_row(const float *v, int64_t n) {
    int64_t best = 0;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(v[i])) return i;
        if (v[i] > v[best]) best = i;
    }
    return best;
}

/* One output o over every case: the three metrics into m[]. false when not a float output. */
static bool output_metrics(const outset *r, const outset *c, uint32_t o, double m[LG_ABLATE_N_METRICS]) {
    int64_t n = r->numel[o], last = r->last[o] > 0 ? r->last[o] : 1;
    if (n <= 0 || !r->data[o]) return false;
    int64_t rows = n / last;
    double kl = 0, se = 0, ss = 0;
    uint64_t changed = 0, total = 0;
    for (uint32_t k = 0; k < r->n_cases; k++) {
        const float *a = r->data[(size_t)k * r->n_out + o], *b = c->data[(size_t)k * c->n_out + o];
        for (int64_t i = 0; i < n; i++) {
            double d = (double)b[i] - (double)a[i];
            se += d * d;
            ss += (double)a[i] * (double)a[i];
        }
        for (int64_t q = 0; q < rows; q++) {
            kl += kl_row(a + q * last, b + q * last, last);
            changed += argmax_row(a + q * last, last) != argmax_row(b + q * last, last);
            total++;
        }
    }
    m[LG_ABLATE_KL] = kl / (double)total;
    m[LG_ABLATE_MSE] = ss > 0 ? se / ss : se == 0 ? 0 : NAN; /* undefined against an all-zero reference */
    m[LG_ABLATE_ARGMAX] = (double)changed / (double)total;
    return true;
}

/* The metrics averaged over the float outputs (NaN when there is none). */
static lg_status compare_sets(const outset *r, const outset *c, double out[LG_ABLATE_N_METRICS], lg_error *err) {
    if (r->n_out != c->n_out || r->n_cases != c->n_cases)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "ablate: the candidate has %u outputs, the model %u", c->n_out, r->n_out);
    double sum[LG_ABLATE_N_METRICS] = {0};
    uint32_t nf = 0;
    for (uint32_t o = 0; o < r->n_out; o++) {
        if (r->numel[o] != c->numel[o])
            return lgi_fail(err, LG_ERR_INVALID_ARG, "ablate: output %u has %lld values in the candidate, %lld in the model", o,
                            (long long)c->numel[o], (long long)r->numel[o]);
        double m[LG_ABLATE_N_METRICS];
        if (!c->data[o] || !output_metrics(r, c, o, m)) continue;
        for (int i = 0; i < LG_ABLATE_N_METRICS; i++) sum[i] += m[i];
        nf++;
    }
    for (int i = 0; i < LG_ABLATE_N_METRICS; i++) out[i] = nf ? sum[i] / nf : NAN;
    return LG_OK;
}

lg_status lg_ablate_measure(const lg_model *m, const lg_model *c, const void *const *const *cases, uint32_t n_cases,
                            double out[LG_ABLATE_N_METRICS], lg_error *err) {
    if (!m || !c || !out || (cases && !n_cases)) return lgi_fail(err, LG_ERR_INVALID_ARG, "ablate: measure: bad arguments");
    outset r, s;
    LG_TRY(run_set(m, cases, n_cases, &r, err));
    lg_status st = run_set(c, cases, n_cases, &s, err);
    if (st == LG_OK) st = compare_sets(&r, &s, out, err);
    outset_free(&r);
    outset_free(&s);
    return st;
}

/* ---------------------------------------------------------------- the report */

void lg_ablate_report_free(lg_ablate_report *r) {
    if (!r) return;
    lg_ablate_list_free(r->list);
    free((void *)r->order);
    free(r->removed);
    free(r->metadata);
    free(r);
}

typedef struct actx {
    const lg_model *m;
    const lg_ablate_options *o;
    lg_ablate_report *r;
    outset ref_calib, ref_eval;
    lg_error *err;
} actx;

/* The candidate c measured on calib (and eval). */
static lg_status measure_cand(actx *a, const lg_model *c, double cal[LG_ABLATE_N_METRICS], double ev[LG_ABLATE_N_METRICS]) {
    outset s;
    LG_TRY(run_set(c, a->o->calib, a->o->n_calib, &s, a->err));
    lg_status st = compare_sets(&a->ref_calib, &s, cal, a->err);
    outset_free(&s);
    LG_TRY(st);
    for (int i = 0; i < LG_ABLATE_N_METRICS; i++) ev[i] = NAN;
    if (!a->o->eval) return LG_OK;
    LG_TRY(run_set(c, a->o->eval, a->o->n_eval, &s, a->err));
    st = compare_sets(&a->ref_eval, &s, ev, a->err);
    outset_free(&s);
    return st;
}

static lg_status rank_blocks(actx *a) {
    lg_ablate_list *l = a->r->list;
    for (uint32_t i = 0; i < l->n_blocks; i++) {
        lg_model *c = NULL;
        LG_TRY(lg_ablate_bypass(a->m, l, &i, 1, &c, a->err));
        lg_status st = measure_cand(a, c, l->blocks[i].calib, l->blocks[i].eval);
        lg_model_free(c);
        LG_TRY(st);
    }
    return LG_OK;
}

/* Ascending by the metric on calibration; NaN last; ties by id. */
static int rank_cmp(const lg_ablate_list *l, lg_ablate_metric k, uint32_t ia, uint32_t ib) {
    double x = l->blocks[ia].calib[k], y = l->blocks[ib].calib[k];
    if (isnan(x) != isnan(y)) return isnan(x) ? 1 : -1;
    if (!isnan(x) && x != y) return x < y ? -1 : 1;
    return ia < ib ? -1 : ia > ib ? 1 : 0;
}

static lg_status order_blocks(actx *a) {
    lg_ablate_list *l = a->r->list;
    uint32_t *ord = malloc((l->n_blocks + 1) * sizeof *ord);
    if (!ord) return lgi_fail(a->err, LG_ERR_NOMEM, "ablate: out of memory");
    for (uint32_t i = 0; i < l->n_blocks; i++) ord[i] = i;
    /* insertion sort (a few blocks; qsort has no context argument) */
    for (uint32_t i = 1; i < l->n_blocks; i++)
        for (uint32_t j = i; j > 0 && rank_cmp(l, a->o->metric, ord[j - 1], ord[j]) > 0; j--) {
            uint32_t t = ord[j];
            ord[j] = ord[j - 1], ord[j - 1] = t;
        }
    for (uint32_t i = 0; i < l->n_blocks; i++) l->blocks[ord[i]].rank = i + 1;
    a->r->order = ord;
    return LG_OK;
}

/* The blocks to remove: remove_ids as given, or the remove_k first by rank that are not nested
   with one chosen before. */
static lg_status choose(actx *a) {
    const lg_ablate_options *o = a->o;
    lg_ablate_list *l = a->r->list;
    uint32_t want = o->n_remove_ids ? o->n_remove_ids : o->remove_k;
    a->r->removed = calloc(want + 1, sizeof *a->r->removed);
    if (!a->r->removed) return lgi_fail(a->err, LG_ERR_NOMEM, "ablate: out of memory");
    if (o->n_remove_ids) {
        for (uint32_t i = 0; i < o->n_remove_ids; i++) {
            uint32_t id = o->remove_ids[i];
            if (id >= l->n_blocks)
                return lgi_fail(a->err, LG_ERR_INVALID_ARG, "ablate: no block %u (the model has %u removable block%s)", id,
                                l->n_blocks, l->n_blocks == 1 ? "" : "s");
            for (uint32_t j = 0; j < i; j++)
                if (o->remove_ids[j] == id) return lgi_fail(a->err, LG_ERR_INVALID_ARG, "ablate: block %u given twice", id);
        }
        /* a block inside another one given goes with it: not counted again in the sums */
        for (uint32_t i = 0; i < o->n_remove_ids; i++) {
            bool inner = false;
            for (uint32_t j = 0; j < o->n_remove_ids && !inner; j++) inner = lg_ablate_nested(l, o->remove_ids[i], o->remove_ids[j]);
            if (!inner) a->r->removed[a->r->n_removed++] = o->remove_ids[i];
        }
        return LG_OK;
    }
    for (uint32_t i = 0; i < l->n_blocks && a->r->n_removed < want; i++) {
        uint32_t id = a->r->order[i];
        bool clash = false;
        for (uint32_t j = 0; j < a->r->n_removed && !clash; j++)
            clash = lg_ablate_nested(l, id, a->r->removed[j]) || lg_ablate_nested(l, a->r->removed[j], id);
        if (!clash) a->r->removed[a->r->n_removed++] = id;
    }
    if (a->r->n_removed < want)
        return lgi_fail(a->err, LG_ERR_INVALID_ARG, "ablate: --remove %u: the model has %u removable block%s, %u of them not nested "
                        "in one another", want, l->n_blocks, l->n_blocks == 1 ? "" : "s", a->r->n_removed);
    return LG_OK;
}

/* ---- the metadata: a small JSON writer */
typedef struct sbuf { char *s; size_t n, cap; bool nomem; } sbuf;

static void sb_put(sbuf *b, const char *fmt, ...) LGI_PRINTF(2, 3);
static void sb_put(sbuf *b, const char *fmt, ...) {
    if (b->nomem) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0) { b->nomem = true; return; }
    if (b->n + (size_t)k + 1 > b->cap) {
        size_t cap = (b->n + (size_t)k + 1) * 2;
        char *p = realloc(b->s, cap);
        if (!p) { b->nomem = true; return; }
        b->s = p, b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    b->n += (size_t)k;
}

static void sb_str(sbuf *b, const char *s) {
    if (!s) { sb_put(b, "null"); return; }
    sb_put(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') sb_put(b, "\\%c", *p);
        else if (*p < 0x20) sb_put(b, "\\u%04x", *p);
        else sb_put(b, "%c", *p);
    }
    sb_put(b, "\"");
}

static void sb_num(sbuf *b, double v) {
    if (isfinite(v)) sb_put(b, "%.9g", v);
    else sb_put(b, "null");
}

static void sb_metrics(sbuf *b, const double *v) {
    sb_put(b, "{");
    for (int i = 0; i < LG_ABLATE_N_METRICS; i++) {
        sb_put(b, "%s\"%s\":", i ? "," : "", lg_ablate_metric_name((lg_ablate_metric)i));
        sb_num(b, v[i]);
    }
    sb_put(b, "}");
}

static lg_status make_metadata(actx *a) {
    const lg_ablate_report *r = a->r;
    sbuf b = {0};
    sb_put(&b, "{\"tool\":\"litegpu %s\",\"metric\":\"%s\",\"calib\":", lg_version(), lg_ablate_metric_name(r->metric));
    sb_str(&b, r->pattern_fill ? "pattern" : a->o->calib_name);
    sb_put(&b, ",\"n_calib\":%u,\"eval\":", r->n_calib);
    sb_str(&b, a->o->eval ? a->o->eval_name : NULL);
    sb_put(&b, ",\"n_eval\":%u,\"removed\":[", r->n_eval);
    for (uint32_t i = 0; i < r->n_removed; i++) {
        const lg_ablate_block *k = &r->list->blocks[r->removed[i]];
        sb_put(&b, "%s{\"block\":%u,\"add\":", i ? "," : "", k->id);
        sb_str(&b, k->name);
        sb_put(&b, ",\"x\":");
        sb_str(&b, k->x_name);
        sb_put(&b, ",\"n_ops\":%u,\"params\":%llu}", k->n_ops, (unsigned long long)k->params);
    }
    sb_put(&b, "],\"n_params_before\":%llu,\"n_params_after\":%llu,\"calib_measured\":", (unsigned long long)r->n_params,
           (unsigned long long)r->n_params_after);
    sb_metrics(&b, r->cand_calib);
    sb_put(&b, ",\"calib_sum_of_singles\":");
    sb_metrics(&b, r->sum_calib);
    sb_put(&b, "}");
    if (b.nomem) {
        free(b.s);
        return lgi_fail(a->err, LG_ERR_NOMEM, "ablate: out of memory");
    }
    a->r->metadata = b.s;
    return LG_OK;
}

/* Replace an earlier "litegpu.ablate" entry by the new one. */
static lg_status set_metadata(lg_model *c, const char *json, lg_error *err) {
    for (uint32_t i = 0; i < c->n_metadata;) {
        if (c->metadata[i].name && strcmp(c->metadata[i].name, "litegpu.ablate") == 0) {
            memmove(&c->metadata[i], &c->metadata[i + 1], (c->n_metadata - i - 1) * sizeof *c->metadata);
            c->n_metadata--;
        } else {
            i++;
        }
    }
    return lg_model_add_metadata(c, "litegpu.ablate", json, strlen(json), err);
}

static lg_status build_candidate(actx *a, lg_model **out) {
    lg_ablate_report *r = a->r;
    LG_TRY(choose(a));
    lg_model *c = NULL;
    LG_TRY(lg_ablate_bypass(a->m, r->list, r->removed, r->n_removed, &c, a->err));
    lg_status st = r->measured ? measure_cand(a, c, r->cand_calib, r->cand_eval) : LG_OK;
    for (int i = 0; i < LG_ABLATE_N_METRICS; i++) {
        r->sum_calib[i] = r->sum_eval[i] = 0;
        for (uint32_t k = 0; k < r->n_removed; k++) {
            r->sum_calib[i] += r->list->blocks[r->removed[k]].calib[i];
            r->sum_eval[i] += r->list->blocks[r->removed[k]].eval[i];
        }
    }
    /* removed: the chosen blocks and every block inside one of them */
    for (uint32_t j = 0; j < r->list->n_blocks; j++)
        for (uint32_t k = 0; k < r->n_removed; k++)
            if (j == r->removed[k] || lg_ablate_nested(r->list, j, r->removed[k])) r->list->blocks[j].removed = true;
    if (st == LG_OK) st = lg_model_learned_params(c, &r->n_params_after, a->err);
    r->n_ops_after = c->subgraphs[0].n_ops;
    if (st == LG_OK) st = make_metadata(a);
    if (st == LG_OK) st = set_metadata(c, r->metadata, a->err);
    if (st == LG_OK) st = lg_model_validate(c, a->err);
    if (st != LG_OK) {
        lg_model_free(c);
        return st;
    }
    r->has_candidate = true;
    *out = c;
    return LG_OK;
}

lg_status lg_ablate(const lg_model *m, const lg_ablate_options *o, lg_ablate_report **rep, lg_model **out, lg_error *err) {
    if (rep) *rep = NULL;
    if (out) *out = NULL;
    if (!m || !o || !rep || (o->calib && !o->n_calib) || (o->eval && !o->n_eval) || (unsigned)o->metric >= LG_ABLATE_N_METRICS)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "ablate: bad arguments");
    bool removing = o->remove_k || o->n_remove_ids;
    if (removing && !out) return lgi_fail(err, LG_ERR_INVALID_ARG, "ablate: removing blocks needs an output model");
    if (o->remove_k && o->n_remove_ids) return lgi_fail(err, LG_ERR_INVALID_ARG, "ablate: remove k or given ids, not both");
    actx a;
    memset(&a, 0, sizeof a);
    a.m = m, a.o = o, a.err = err;
    a.r = calloc(1, sizeof *a.r);
    if (!a.r) return lgi_fail(err, LG_ERR_NOMEM, "ablate: out of memory");
    lg_ablate_report *r = a.r;
    r->metric = o->metric;
    r->pattern_fill = !o->calib;
    r->n_calib = o->calib ? o->n_calib : 1;
    r->n_eval = o->eval ? o->n_eval : 0;
    r->n_ops = m->n_subgraphs ? m->subgraphs[0].n_ops : 0;
    for (int i = 0; i < LG_ABLATE_N_METRICS; i++)
        r->cand_calib[i] = r->cand_eval[i] = r->sum_calib[i] = r->sum_eval[i] = NAN;
    lg_status st = lg_ablate_find(m, &r->list, err);
    if (st == LG_OK) st = lg_model_learned_params(m, &r->n_params, err);
    r->measured = true;
    if (st == LG_OK) {
        /* a model the interpreter cannot run (an op it lacks): the blocks are still listed and
           --remove-block still works, unmeasured; the note says why */
        lg_error e2;
        st = run_set(m, o->calib, o->n_calib, &a.ref_calib, &e2);
        if (st == LG_ERR_UNSUPPORTED) {
            r->measured = false;
            snprintf(r->measure_note, sizeof r->measure_note, "not measured: %s", e2.msg);
            st = LG_OK;
        } else if (st != LG_OK && err) {
            *err = e2;
        }
    }
    if (st == LG_OK && r->measured && o->eval) st = run_set(m, o->eval, o->n_eval, &a.ref_eval, err);
    if (st == LG_OK && r->measured) st = rank_blocks(&a);
    if (st == LG_OK) st = order_blocks(&a);
    if (st == LG_OK && !r->measured && o->remove_k)
        st = lgi_fail(err, LG_ERR_UNSUPPORTED, "ablate: --remove %u needs the ranking, and the model cannot be run (%s); "
                      "name the blocks with --remove-block", o->remove_k, r->measure_note);
    if (st == LG_OK && removing) st = build_candidate(&a, out);
    outset_free(&a.ref_calib);
    outset_free(&a.ref_eval);
    if (st != LG_OK) {
        lg_ablate_report_free(r);
        return st;
    }
    *rep = r;
    return LG_OK;
}
