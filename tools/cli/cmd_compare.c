/* litegpu compare: f32 against emulated GPU precision (one model), or two models. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "lg/compare.h"
#include "chain_file.h"
#include "overlay.h"
#include "run_common.h"

/* A statistic, or n/a when it is undefined (NaN): "%.*g" (fixed: "%.*f") into buf. */
static const char *stat_s(char *buf, size_t size, int digits, bool fixed, double x) {
    if (isnan(x)) snprintf(buf, size, "n/a");
    else if (fixed) snprintf(buf, size, "%.*f", digits, x);
    else snprintf(buf, size, "%.*g", digits, x);
    return buf;
}

static void json_metrics(json_w *j, const lg_metrics *m) {
    json_key_int(j, "n", m->n);
    json_key_double(j, "max_abs", m->max_abs);
    json_key_double(j, "rms", m->rms);
    json_key_double(j, "max_rel", m->max_rel);
    json_key_double(j, "cosine", m->cosine);
    json_key_double(j, "pearson", m->pearson);
    json_key_double(j, "nmse", m->nmse);
    json_key_double(j, "ref_max_abs", m->ref_max_abs);
    json_key_double(j, "ref_std", m->ref_std);
    json_key_int(j, "ref_inf", m->ref_inf);
    json_key_int(j, "ref_nan", m->ref_nan);
    json_key_int(j, "test_inf", m->test_inf);
    json_key_int(j, "test_nan", m->test_nan);
}

static void json_verdict(json_w *j, const lg_verdict *v) {
    json_key_double(j, "scale", v->scale);
    json_key_double(j, "score", v->score);
    json_key_double(j, "severity", v->severity);
    json_key_bool(j, "constant_ref", v->constant_ref);
    json_key_bool(j, "flat_ref", v->flat_ref);
    json_key_bool(j, "pass", v->pass);
}

static const char *tname(const lg_model *m, int32_t t) {
    const char *n = m->subgraphs[0].tensors[t].name;
    return n ? n : "";
}

static const char *input_source(const lg_interp *it, uint32_t i, const char *const *specs, int n_specs,
                                const char *fill) {
    lg_tensor_view v;
    lg_interp_input(it, i, &v);
    return cli_input_source(&v, i, specs, n_specs, fill);
}

/* A number option: 0 on success, else a usage error (printed). */
static int num_opt(const cli_verb *v, const char *s, const char *flag, double lo, double hi, double *out) {
    if (!s) return 0;
    char *end;
    double x = strtod(s, &end);
    if (*end || !(x > lo && x <= hi)) return cli_usage_error(v, "%s takes a number in (%g, %g]", flag, lo, hi);
    *out = x;
    return 0;
}

typedef struct prec_args {
    const char *prec, *fill, *seed, *corr, *tol, *floor, *max_rel;
    bool json, all;
    int threads;
    const char *overlay; /* --overlay FILE */
    bool force;
} prec_args;

/* Worse of two severities for one op's outputs: a new inf/NaN (INFINITY) over any number,
   any number over an undefined one (NaN). */
static bool sev_worse(double a, double b) {
    if (isnan(a)) return false;
    if (isnan(b)) return true;
    return a > b;
}

/* --overlay: each op's fp16 error as the judge's severity (score / tol; > 1 fails), the
   largest over the op's float outputs, keyed by op index (overlay.h). A severity that is not
   a number (a new inf/NaN: infinite) is the string "new inf/NaN" in red. Thresholds colour
   <= 1 green (passes), <= 10 orange, beyond red. */
static int precision_overlay(const char *out, bool force, const lg_model *m, const lg_precision_report *r) {
    uint32_t n_ops = m->subgraphs[0].n_ops;
    cli_overlay_entry *e = calloc(n_ops ? n_ops : 1, sizeof *e);
    double *sev = malloc((n_ops ? n_ops : 1) * sizeof *sev);
    bool *seen = calloc(n_ops ? n_ops : 1, sizeof *seen);
    if (!e || !sev || !seen) { free(e); free(sev); free(seen); return cli_error("out of memory"); }
    for (uint32_t i = 0; i < r->n_tensors; i++) {
        const lg_tensor_cmp *t = &r->tensors[i];
        if (t->op < 0 || (uint32_t)t->op >= n_ops) continue;
        if (!seen[t->op] || sev_worse(t->v.severity, sev[t->op])) sev[t->op] = t->v.severity;
        seen[t->op] = true;
    }
    uint32_t n = 0;
    for (uint32_t op = 0; op < n_ops; op++) {
        if (!seen[op]) continue;
        cli_overlay_op_key(e[n].key, (int32_t)op);
        if (isfinite(sev[op])) {
            e[n].kind = CLI_OVERLAY_NUMBER;
            e[n].num = sev[op];
        } else {
            e[n].kind = CLI_OVERLAY_STRING;
            e[n].str = isinf(sev[op]) ? "new inf/NaN" : "n/a";
            e[n].bg_color = isinf(sev[op]) ? "#e53935" : NULL;
        }
        n++;
    }
    static const cli_overlay_threshold th[] = {
        {1, "#a5d6a7", NULL}, {10, "#ffcc80", NULL}, {1e308, "#ef9a9a", NULL}};
    char gid[512], name[96];
    snprintf(name, sizeof name, "litegpu compare: %s error (severity = score / tol)", lg_precision_name(r->precision));
    cli_overlay ov = {cli_overlay_graph_id(m, 0, gid, sizeof gid), name, e, n, th, 3, NULL, 0, false};
    int rc = cli_overlay_write(out, &ov, force);
    free(e);
    free(sev);
    free(seen);
    return rc;
}

static void precision_json(const char *path, const lg_model *m, const lg_precision_report *r, const lg_interp *probe,
                           const char *const *inputs, int n_inputs, const char *fill) {
    const lg_subgraph *sg = &m->subgraphs[0];
    json_w j;
    json_init(&j, stdout);
    json_obj_open(&j);
    json_key_str(&j, "verb", "compare");
    json_key_str(&j, "model", path);
    json_key_str(&j, "mode", "precision");
    json_key_str(&j, "reference", "f32");
    json_key_str(&j, "precision", lg_precision_name(r->precision));
    json_key(&j, "inputs");
    json_arr_open(&j);
    for (uint32_t i = 0; i < lg_interp_n_inputs(probe); i++) {
        lg_tensor_view v;
        lg_interp_input(probe, i, &v);
        json_obj_open_flat(&j);
        json_key_uint(&j, "index", i);
        json_key_str(&j, "name", v.name ? v.name : "");
        json_key_str(&j, "source", input_source(probe, i, inputs, n_inputs, fill));
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_key(&j, "judge");
    json_obj_open_flat(&j);
    json_key_double(&j, "tol", r->judge.tol);
    json_key_double(&j, "floor", r->judge.floor);
    json_key_double(&j, "corr", r->judge.corr > 0 ? r->judge.corr : NAN);
    json_key_double(&j, "max_rel", r->judge.max_rel > 0 ? r->judge.max_rel : NAN);
    json_obj_close(&j);
    json_key(&j, "tensors");
    json_arr_open(&j);
    for (uint32_t i = 0; i < r->n_tensors; i++) {
        const lg_tensor_cmp *t = &r->tensors[i];
        json_obj_open_flat(&j);
        json_key_int(&j, "op", t->op);
        json_key_str(&j, "op_name", lg_op_name(m, &sg->ops[t->op]));
        json_key_int(&j, "tensor", t->tensor);
        json_key_str(&j, "name", t->name ? t->name : "");
        json_metrics(&j, &t->m);
        json_verdict(&j, &t->v);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_key(&j, "first_divergent");
    if (r->first_divergent_op >= 0) {
        json_obj_open(&j);
        json_key_int(&j, "op", r->first_divergent_op);
        json_key_str(&j, "op_name", lg_op_name(m, &sg->ops[r->first_divergent_op]));
        json_key_int(&j, "tensor", r->first_divergent_tensor);
        json_key_str(&j, "name", tname(m, r->first_divergent_tensor));
        json_key_str(&j, "why", r->first_divergent_why);
        json_obj_close(&j);
    } else {
        json_null(&j);
    }
    json_key(&j, "overflows");
    json_arr_open(&j);
    for (uint32_t i = 0; i < r->n_overflows; i++) {
        const lg_overflow_event *e = &r->overflows[i];
        json_obj_open_flat(&j);
        json_key_int(&j, "op", e->op);
        json_key_str(&j, "op_name", lg_op_name(m, &sg->ops[e->op]));
        json_key_int(&j, "tensor", e->tensor);
        json_key_str(&j, "name", tname(m, e->tensor));
        json_key_int(&j, "n_inf", e->n_inf);
        json_key_double(&j, "ref_max_abs", e->ref_max_abs);
        json_key_double(&j, "input_max_abs", e->input_max_abs);
        json_key_int(&j, "reduced", e->reduced);
        json_key_double(&j, "accum_estimate", e->accum_estimate);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_key_uint(&j, "n_outputs", r->n_outputs);
    json_key(&j, "outputs");
    json_arr_open(&j);
    for (uint32_t k = 0; k < r->n_outputs; k++) {
        json_obj_open_flat(&j);
        json_key_uint(&j, "index", k);
        json_key_int(&j, "tensor", r->outputs[k].tensor);
        json_key_str(&j, "name", r->outputs[k].name ? r->outputs[k].name : "");
        json_metrics(&j, &r->outputs[k].m);
        json_verdict(&j, &r->outputs[k].v);
        json_key_str(&j, "why", r->outputs[k].v.why);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_key_int(&j, "worst_output", r->worst_output);
    json_key_uint(&j, "n_flat_outputs", r->n_flat_outputs);
    json_key_bool(&j, "ok", r->ok);
    json_obj_close(&j);
    json_finish(&j);
}

static void precision_text(const char *path, const lg_model *m, const lg_precision_report *r, const lg_interp *probe,
                           const char *const *inputs, int n_inputs, const char *fill, bool all) {
    const lg_subgraph *sg = &m->subgraphs[0];
    char b1[32], b2[32], b3[32], b4[32];
    printf("%s: f32 vs %s (%s)\n", path, lg_precision_name(r->precision),
           r->precision == LG_PREC_F16 ? "emulated GPU fp16: half storage and arithmetic, each kernel's own accumulator"
                                       : "half storage, fp32 arithmetic");
    for (uint32_t i = 0; i < lg_interp_n_inputs(probe); i++) {
        lg_tensor_view v;
        lg_interp_input(probe, i, &v);
        const char *src = input_source(probe, i, inputs, n_inputs, fill);
        printf("input %u \"%s\": %s%s\n", i, v.name ? v.name : "", src,
               strncmp(src, "random:", 7) == 0 ? " (uniform in [-1, 1))"
               : strcmp(src, "pattern") == 0   ? " (a fixed pattern in [0, 1))"
               : strcmp(src, "half") == 0      ? " (every value 0.5: degenerate for normalizations)"
                                               : "");
    }
    printf("judge: rms error <= %g x the output's std (its magnitude if constant), scale floor %.3g", r->judge.tol,
           r->judge.floor);
    if (r->judge.corr > 0) printf(", pearson >= %g", r->judge.corr);
    if (r->judge.max_rel > 0) printf(", max_rel <= %g", r->judge.max_rel);
    printf("\n%5s %-18s %6s  %-28s %10s %10s %9s %9s %9s %s\n", "op", "kind", "tensor", "name", "max_abs", "max_rel",
           "cosine", "pearson", "score", "inf/nan");
    for (uint32_t i = 0; i < r->n_tensors; i++) {
        const lg_tensor_cmp *t = &r->tensors[i];
        int interesting = !t->v.pass || t->m.test_inf + t->m.test_nan > 0 || t->op == r->first_divergent_op;
        if (!all && !interesting && r->n_tensors > 40) continue;
        printf("%5d %-18.18s %6d  %-28.28s %10.3g %10s %9s %9s %9.3g %lld\n", t->op, lg_op_name(m, &sg->ops[t->op]),
               t->tensor, t->name ? t->name : "", t->m.max_abs, stat_s(b1, sizeof b1, 3, false, t->m.max_rel),
               stat_s(b2, sizeof b2, 6, true, t->m.cosine), stat_s(b3, sizeof b3, 6, true, t->m.pearson), t->v.score,
               (long long)(t->m.test_inf + t->m.test_nan));
    }
    if (!all && r->n_tensors > 40)
        printf("(%u tensors; showing those that fail the judge or hold inf/NaN; --all shows every one)\n", r->n_tensors);
    if (r->first_divergent_op >= 0)
        printf("\nfirst divergent op: %d %s, tensor %d \"%s\": %s\n", r->first_divergent_op,
               lg_op_name(m, &sg->ops[r->first_divergent_op]), r->first_divergent_tensor,
               tname(m, r->first_divergent_tensor), r->first_divergent_why);
    else
        printf("\nno op diverges (every tensor within tolerance, no new inf/NaN)\n");
    if (r->n_overflows) {
        printf("overflow events (inf/NaN born in the op, f32 finite):\n");
        for (uint32_t i = 0; i < r->n_overflows; i++) {
            const lg_overflow_event *e = &r->overflows[i];
            printf("  op %d %s, tensor %d \"%s\": %lld inf/NaN; f32 output max |x| %.6g, inputs max |x| %.6g", e->op,
                   lg_op_name(m, &sg->ops[e->op]), e->tensor, tname(m, e->tensor), (long long)e->n_inf, e->ref_max_abs,
                   e->input_max_abs);
            if (e->reduced)
                printf("; %lld values summed per output (accumulator ~%.3g; half max 65504)", (long long)e->reduced,
                       e->accum_estimate);
            printf("\n");
        }
    }
    for (uint32_t k = 0; k < r->n_outputs; k++) {
        const lg_tensor_cmp *o = &r->outputs[k];
        const lg_metrics *mm = &o->m;
        printf("output %u \"%s\": max_abs %.4g rms %.4g, %s %.4g, score %.3g (%s); max_rel %s pearson %s inf/nan %lld\n",
               k, o->name ? o->name : "", mm->max_abs, mm->rms, lg_verdict_scale_kind(&o->v, &r->judge), o->v.scale,
               o->v.score, o->v.pass ? "ok" : "FAILS", stat_s(b1, sizeof b1, 4, false, mm->max_rel),
               stat_s(b2, sizeof b2, 6, true, mm->pearson), (long long)(mm->test_inf + mm->test_nan));
        if (o->v.flat_ref)
            printf("warning: output %u \"%s\" is %sconstant in f32 on this input (mean %.6g, std %.3g): the input may "
                   "be degenerate for the model, and the comparison says little (try --input with real data)\n",
                   k, o->name ? o->name : "", o->v.constant_ref ? "" : "nearly ", mm->ref_mean, mm->ref_std);
    }
    if (r->worst_output >= 0) {
        const lg_tensor_cmp *o = &r->outputs[r->worst_output];
        printf("verdict: %s; worst output %d \"%s\": score %s (%sx its tolerance%s%s)\n",
               r->ok ? "WITHIN TOLERANCE" : "DIVERGES", r->worst_output, o->name ? o->name : "",
               stat_s(b3, sizeof b3, 3, false, o->v.score), stat_s(b4, sizeof b4, 3, false, o->v.severity),
               o->v.pass ? "" : ": ", o->v.why);
    }
}

static int precision_mode(const cli_verb *v, const char *path, const prec_args *pa, const char *const *inputs,
                          int n_inputs) {
    lg_compare_options o = {LG_PREC_F16, 0, 0, 1, 0, 0};
    o.threads = pa->threads;
    if (pa->prec) {
        int p = lg_precision_from_name(pa->prec);
        if (p < 0 || p == LG_PREC_F32) return cli_usage_error(v, "--precision takes f16 or f32_f16 here");
        o.precision = (lg_precision)p;
    }
    if (num_opt(v, pa->corr, "--corr", 0, 1, &o.corr_threshold) || num_opt(v, pa->tol, "--tol", 0, 1e30, &o.tol) ||
        num_opt(v, pa->floor, "--floor", 0, 1e30, &o.floor) || num_opt(v, pa->max_rel, "--max-rel", 0, 1e30, &o.max_rel))
        return CLI_ERROR;
    /* the default input: seeded uniform random values in [-1, 1), not a constant (a constant
       input is degenerate for every normalization) */
    char fill[48];
    if (pa->fill && pa->seed) return cli_usage_error(v, "--fill and --seed: give one");
    if (pa->seed) {
        char *end;
        unsigned long long x = strtoull(pa->seed, &end, 10);
        if (*end || !pa->seed[0]) return cli_usage_error(v, "--seed takes a number");
        snprintf(fill, sizeof fill, "random:%llu", x);
    } else {
        snprintf(fill, sizeof fill, "%s", pa->fill ? pa->fill : "random:1");
    }
    if (pa->overlay && cli_output_check(pa->overlay, pa->force)) return CLI_ERROR;
    cli_file f;
    lg_model *m = NULL;
    if (cli_model_load(path, &f, &m) != 0) return CLI_ERROR;
    int rc;
    lg_error err;
    lg_interp *probe = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    cli_inputs in = {0};
    lg_precision_report *r = NULL;
    if (lg_interp_create(m, &ro, &probe, &err) != LG_OK) { rc = cli_lib_error(path, &err); goto out; }
    if (cli_inputs_make(probe, inputs, n_inputs, fill, &in)) { rc = CLI_ERROR; goto out; }
    if (lg_compare_precision(m, (const float *const *)in.data, &o, &r, &err) != LG_OK) { rc = cli_lib_error(path, &err); goto out; }
    if (pa->json) precision_json(path, m, r, probe, inputs, n_inputs, fill);
    else precision_text(path, m, r, probe, inputs, n_inputs, fill, pa->all);
    if (fflush(stdout) != 0 || ferror(stdout)) rc = cli_error("cannot write the report");
    else rc = r->ok ? CLI_OK : CLI_FINDINGS;
    if (pa->overlay && rc != CLI_ERROR && precision_overlay(pa->overlay, pa->force, m, r)) rc = CLI_ERROR;
out:
    lg_precision_report_free(r);
    cli_inputs_free(&in);
    lg_interp_free(probe);
    lg_model_free(m);
    cli_file_close(&f);
    return rc;
}

static int models_mode(const cli_verb *v, const char *pa, const char *pb, const char *prec, const char *const *inputs,
                       int n_inputs, const char *nrand, const char *seed, const char *atol, const char *rtol, bool json,
                       int threads, lg_int_arith arith) {
    lg_models_options o = {LG_PREC_F32, 8, 1, 1e-4, 1e-3, 1, LG_INT_TFLITE};
    o.threads = threads;
    o.int_arith = arith;
    char *end;
    if (prec) {
        int p = lg_precision_from_name(prec);
        if (p < 0) return cli_usage_error(v, "unknown precision '%s'", prec);
        o.precision = (lg_precision)p;
    }
    if (nrand) { long x = strtol(nrand, &end, 10); if (*end || x < 0 || x > 10000) return cli_usage_error(v, "--random takes 0..10000"); o.n_random = (uint32_t)x; }
    if (seed) { unsigned long long x = strtoull(seed, &end, 10); if (*end) return cli_usage_error(v, "--seed takes a number"); o.seed = x; }
    if (atol) { o.atol = strtod(atol, &end); if (*end || o.atol < 0) return cli_usage_error(v, "--atol takes a number >= 0"); }
    if (rtol) { o.rtol = strtod(rtol, &end); if (*end || o.rtol < 0) return cli_usage_error(v, "--rtol takes a number >= 0"); }
    /* either may be a split file (fix --split): both run as chains */
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = o.precision;
    ro.threads = o.threads;
    ro.int_arith = o.int_arith;
    cli_chain ca, cb;
    if (cli_exec_open(pa, &ro, &ca)) return CLI_ERROR;
    if (cli_exec_open(pb, &ro, &cb)) { cli_chain_close(&ca); return CLI_ERROR; }
    lg_chain *probe = ca.chain;
    int rc;
    lg_error err;
    cli_inputs in = {0};
    lg_models_report *r = NULL;
    if (cli_inputs_make_chain(probe, inputs, n_inputs, "pattern", false, &in)) { rc = CLI_ERROR; goto out; }
    if (lg_compare_chains(ca.models[0], ca.chain, cb.chain, (const float *const *)in.data, &o, &r, &err) != LG_OK) {
        rc = cli_lib_error(NULL, &err);
        goto out;
    }
    if (json) {
        json_w j;
        json_init(&j, stdout);
        json_obj_open(&j);
        json_key_str(&j, "verb", "compare");
        json_key_str(&j, "model", pa);
        json_key_str(&j, "model_b", pb);
        json_key_str(&j, "mode", "models");
        json_key(&j, "golden");
        json_arr_open(&j);
        for (uint32_t i = 0; i < lg_chain_n_inputs(probe); i++) {
            lg_tensor_view iv;
            lg_chain_input(probe, i, &iv);
            json_obj_open_flat(&j);
            json_key_uint(&j, "index", i);
            json_key_str(&j, "name", iv.name ? iv.name : "");
            json_key_str(&j, "source", cli_input_source(&iv, i, inputs, n_inputs, "pattern"));
            json_obj_close(&j);
        }
        json_arr_close(&j);
        json_key_uint(&j, "n_outputs", r->n_outputs);
        json_key_str(&j, "precision", lg_precision_name(o.precision));
        json_key_double(&j, "atol", o.atol);
        json_key_double(&j, "rtol", o.rtol);
        json_key(&j, "cases");
        json_arr_open(&j);
        for (uint32_t c = 0; c < r->n_cases; c++) {
            json_obj_open(&j);
            json_key_str(&j, "source", r->cases[c].input); /* the input fill, as in precision mode */
            json_key(&j, "outputs");
            json_arr_open(&j);
            for (uint32_t k = 0; k < r->n_outputs; k++) {
                json_obj_open_flat(&j);
                json_key_uint(&j, "index", k);
                json_metrics(&j, &r->cases[c].outputs[k]);
                json_key_bool(&j, "allclose", r->cases[c].allclose[k]);
                json_key_bool(&j, "argmax_equal", r->cases[c].argmax_equal[k]);
                json_obj_close(&j);
            }
            json_arr_close(&j);
            json_obj_close(&j);
        }
        json_arr_close(&j);
        json_key_double(&j, "worst_max_abs", r->worst_max_abs);
        json_key_double(&j, "worst_max_rel", r->worst_max_rel);
        json_key_uint(&j, "n_allclose_failures", r->n_allclose_fail);
        json_key_uint(&j, "n_argmax_failures", r->n_argmax_fail);
        json_key_bool(&j, "ok", r->ok);
        json_obj_close(&j);
        rc = json_finish(&j) ? cli_error("cannot write the report") : (r->ok ? CLI_OK : CLI_FINDINGS);
    } else {
        printf("%s vs %s: %u input(s) (golden + %u random), atol %g rtol %g, %s\n", pa, pb, r->n_cases, r->n_cases - 1,
               o.atol, o.rtol, lg_precision_name(o.precision));
        for (uint32_t i = 0; i < lg_chain_n_inputs(probe); i++) {
            lg_tensor_view iv;
            lg_chain_input(probe, i, &iv);
            const char *src = cli_input_source(&iv, i, inputs, n_inputs, "pattern");
            printf("golden input %u \"%s\": %s%s\n", i, iv.name ? iv.name : "", src,
                   strcmp(src, "pattern") == 0 ? " (a fixed pattern in [0, 1))" : "");
        }
        char b1[32], b2[32];
        for (uint32_t c = 0; c < r->n_cases; c++)
            for (uint32_t k = 0; k < r->n_outputs; k++) {
                const lg_metrics *mm = &r->cases[c].outputs[k];
                printf("  %-12s output %u: max_abs %.3g max_rel %s pearson %s  allclose %s  argmax %s\n",
                       r->cases[c].input, k, mm->max_abs, stat_s(b1, sizeof b1, 3, false, mm->max_rel),
                       stat_s(b2, sizeof b2, 6, true, mm->pearson), r->cases[c].allclose[k] ? "yes" : "NO",
                       r->cases[c].argmax_equal[k] ? "same" : "DIFFERS");
            }
        printf("verdict: %s (worst max_abs %.3g, max_rel %.3g; %u allclose and %u argmax failures)\n",
               r->ok ? "EQUIVALENT" : "DIFFERENT", r->worst_max_abs, r->worst_max_rel, r->n_allclose_fail, r->n_argmax_fail);
        rc = r->ok ? CLI_OK : CLI_FINDINGS;
    }
out:
    lg_models_report_free(r);
    cli_inputs_free(&in);
    cli_chain_close(&ca);
    cli_chain_close(&cb);
    return rc;
}

int cmd_compare(const cli_verb *v, int argc, char **argv) {
    bool json = false, all = false, force = false;
    const char *overlay = NULL;
    const char *prec = NULL, *fill = NULL, *corr = NULL, *nrand = NULL, *seed = NULL, *atol = NULL, *rtol = NULL;
    const char *tol = NULL, *floor_s = NULL, *max_rel = NULL;
    const char *threads_s = NULL, *arith_s = NULL;
    const char *inputs[64];
    int n_inputs = 0;
    const cli_flag flags[] = {
        {"--json", NULL, &json, NULL, NULL, NULL, 0},
        {"--all", NULL, &all, NULL, NULL, NULL, 0},
        {"--precision", "-p", NULL, &prec, NULL, NULL, 0},
        {"--fill", NULL, NULL, &fill, NULL, NULL, 0},
        {"--corr", NULL, NULL, &corr, NULL, NULL, 0},
        {"--tol", NULL, NULL, &tol, NULL, NULL, 0},
        {"--floor", NULL, NULL, &floor_s, NULL, NULL, 0},
        {"--max-rel", NULL, NULL, &max_rel, NULL, NULL, 0},
        {"--random", NULL, NULL, &nrand, NULL, NULL, 0},
        {"--seed", NULL, NULL, &seed, NULL, NULL, 0},
        {"--atol", NULL, NULL, &atol, NULL, NULL, 0},
        {"--rtol", NULL, NULL, &rtol, NULL, NULL, 0},
        {"--input", "-i", NULL, NULL, inputs, &n_inputs, 64},
        {"--threads", NULL, NULL, &threads_s, NULL, NULL, 0},
        {"--int-arith", NULL, NULL, &arith_s, NULL, NULL, 0},
        {"--overlay", NULL, NULL, &overlay, NULL, NULL, 0},
        {"--force", NULL, &force, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[2];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 2, &n_pos);
    if (rc >= 0) return rc;
    int threads = 1;
    if (threads_s) {
        char *end;
        long t = strtol(threads_s, &end, 10);
        if (*end || t < 1 || t > 256) return cli_usage_error(v, "--threads takes 1..256");
        threads = (int)t;
    }
    lg_int_arith arith = LG_INT_TFLITE;
    if (arith_s) {
        int a = lg_int_arith_from_name(arith_s);
        if (a < 0) return cli_usage_error(v, "unknown --int-arith '%s' (tflite or xnnpack)", arith_s);
        arith = (lg_int_arith)a;
    }
    if (force && !overlay) return cli_usage_error(v, "--force goes with --overlay");
    if (overlay && n_pos == 2) return cli_usage_error(v, "--overlay goes with one model (precision mode)");
    if (n_pos == 1) {
        if (nrand || atol || rtol || arith_s) return cli_usage_error(v, "--random/--atol/--rtol/--int-arith go with two models");
        prec_args pa = {prec, fill, seed, corr, tol, floor_s, max_rel, json, all, threads, overlay, force};
        return precision_mode(v, pos[0], &pa, inputs, n_inputs);
    }
    if (n_pos == 2) {
        if (corr || fill || tol || floor_s || max_rel)
            return cli_usage_error(v, "--corr/--fill/--tol/--floor/--max-rel go with one model (precision mode)");
        return models_mode(v, pos[0], pos[1], prec, inputs, n_inputs, nrand, seed, atol, rtol, json, threads, arith);
    }
    return cli_usage_error(v, "expected MODEL (precision mode) or A B (two models)");
}
