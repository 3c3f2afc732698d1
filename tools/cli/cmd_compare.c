/* litegpu compare: f32 against emulated GPU precision (one model), or two models. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "lg/compare.h"
#include "run_common.h"

static void json_metrics(json_w *j, const lg_metrics *m) {
    json_key_int(j, "n", m->n);
    json_key_double(j, "max_abs", m->max_abs);
    json_key_double(j, "max_rel", m->max_rel);
    json_key_double(j, "cosine", m->cosine);
    json_key_double(j, "pearson", m->pearson);
    json_key_double(j, "nmse", m->nmse);
    json_key_double(j, "ref_max_abs", m->ref_max_abs);
    json_key_int(j, "ref_inf", m->ref_inf);
    json_key_int(j, "ref_nan", m->ref_nan);
    json_key_int(j, "test_inf", m->test_inf);
    json_key_int(j, "test_nan", m->test_nan);
}

static const char *tname(const lg_model *m, int32_t t) {
    const char *n = m->subgraphs[0].tensors[t].name;
    return n ? n : "";
}

static int precision_mode(const cli_verb *v, const char *path, const char *prec, const char *const *inputs,
                          int n_inputs, const char *fill, const char *corr, bool json, bool all, int threads) {
    lg_compare_options o = {LG_PREC_F16, 0.999, 0, 1};
    o.threads = threads;
    if (prec) {
        int p = lg_precision_from_name(prec);
        if (p < 0 || p == LG_PREC_F32) return cli_usage_error(v, "--precision takes f16 or f32_f16 here");
        o.precision = (lg_precision)p;
    }
    if (corr) {
        char *end;
        o.corr_threshold = strtod(corr, &end);
        if (*end || !(o.corr_threshold > 0 && o.corr_threshold <= 1)) return cli_usage_error(v, "--corr takes a number in (0, 1]");
    }
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
    const lg_subgraph *sg = &m->subgraphs[0];
    if (json) {
        json_w j;
        json_init(&j, stdout);
        json_obj_open(&j);
        json_key_str(&j, "model", path);
        json_key_str(&j, "mode", "precision");
        json_key_str(&j, "reference", "f32");
        json_key_str(&j, "precision", lg_precision_name(r->precision));
        json_key_double(&j, "corr_threshold", r->corr_threshold);
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
        json_key(&j, "outputs");
        json_arr_open(&j);
        for (uint32_t k = 0; k < r->n_outputs; k++) {
            json_obj_open_flat(&j);
            json_key_uint(&j, "index", k);
            json_key_int(&j, "tensor", r->outputs[k].tensor);
            json_key_str(&j, "name", r->outputs[k].name ? r->outputs[k].name : "");
            json_metrics(&j, &r->outputs[k].m);
            json_obj_close(&j);
        }
        json_arr_close(&j);
        json_key_int(&j, "worst_output", r->worst_output);
        json_key_bool(&j, "ok", r->ok);
        json_obj_close(&j);
        rc = json_finish(&j) ? cli_error("cannot write the report") : (r->ok ? CLI_OK : CLI_FINDINGS);
    } else {
        printf("%s: f32 vs %s (%s)\n", path, lg_precision_name(r->precision),
               r->precision == LG_PREC_F16 ? "emulated GPU fp16: half storage, half accumulation"
                                           : "half storage, fp32 arithmetic");
        printf("%5s %-18s %6s  %-28s %10s %10s %9s %9s %9s %s\n", "op", "kind", "tensor", "name", "max_abs", "max_rel",
               "cosine", "pearson", "nmse", "inf/nan");
        for (uint32_t i = 0; i < r->n_tensors; i++) {
            const lg_tensor_cmp *t = &r->tensors[i];
            int interesting = (t->m.pearson < r->corr_threshold && t->m.nmse > 1 - r->corr_threshold) ||
                              t->m.test_inf + t->m.test_nan > 0 ||
                              t->op == r->first_divergent_op;
            if (!all && !interesting && r->n_tensors > 40) continue;
            printf("%5d %-18.18s %6d  %-28.28s %10.3g %10.3g %9.6f %9.6f %9.3g %lld\n", t->op,
                   lg_op_name(m, &sg->ops[t->op]), t->tensor, t->name ? t->name : "", t->m.max_abs, t->m.max_rel,
                   t->m.cosine, t->m.pearson, t->m.nmse, (long long)(t->m.test_inf + t->m.test_nan));
        }
        if (!all && r->n_tensors > 40) printf("(%u tensors; showing those below the threshold or non-finite; --all shows every one)\n", r->n_tensors);
        if (r->first_divergent_op >= 0)
            printf("\nfirst divergent op: %d %s, tensor %d \"%s\": %s\n", r->first_divergent_op,
                   lg_op_name(m, &sg->ops[r->first_divergent_op]), r->first_divergent_tensor,
                   tname(m, r->first_divergent_tensor), r->first_divergent_why);
        else
            printf("\nno op diverges (no correlation below %g with NMSE above %g, no new inf/NaN)\n", r->corr_threshold,
                   1 - r->corr_threshold);
        if (r->n_overflows) {
            printf("overflow events (inf/NaN born in the op, f32 finite):\n");
            for (uint32_t i = 0; i < r->n_overflows; i++) {
                const lg_overflow_event *e = &r->overflows[i];
                printf("  op %d %s, tensor %d \"%s\": %lld inf/NaN; f32 output max |x| %.6g, inputs max |x| %.6g",
                       e->op, lg_op_name(m, &sg->ops[e->op]), e->tensor, tname(m, e->tensor), (long long)e->n_inf,
                       e->ref_max_abs, e->input_max_abs);
                if (e->reduced) printf("; %lld values summed per output (accumulator ~%.3g; half max 65504)",
                                       (long long)e->reduced, e->accum_estimate);
                printf("\n");
            }
        }
        for (uint32_t k = 0; k < r->n_outputs; k++) {
            const lg_metrics *mm = &r->outputs[k].m;
            printf("output %u \"%s\": max_abs %.4g max_rel %.4g cosine %.6f pearson %.6f nmse %.3g inf/nan %lld\n", k,
                   r->outputs[k].name ? r->outputs[k].name : "", mm->max_abs, mm->max_rel, mm->cosine, mm->pearson,
                   mm->nmse, (long long)(mm->test_inf + mm->test_nan));
        }
        if (r->worst_output >= 0) {
            const lg_metrics *mm = &r->outputs[r->worst_output].m;
            printf("verdict: %s; worst output %d \"%s\": pearson %.6f, max_rel %.4g\n",
                   r->ok ? "WITHIN TOLERANCE" : "DIVERGES", r->worst_output,
                   r->outputs[r->worst_output].name ? r->outputs[r->worst_output].name : "", mm->pearson, mm->max_rel);
        }
        rc = r->ok ? CLI_OK : CLI_FINDINGS;
    }
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
                       int threads) {
    lg_models_options o = {LG_PREC_F32, 8, 1, 1e-4, 1e-3, 1};
    o.threads = threads;
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
    cli_file fa, fb;
    lg_model *ma = NULL, *mb = NULL;
    if (cli_model_load(pa, &fa, &ma) != 0) return CLI_ERROR;
    if (cli_model_load(pb, &fb, &mb) != 0) { lg_model_free(ma); cli_file_close(&fa); return CLI_ERROR; }
    int rc;
    lg_error err;
    lg_interp *probe = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    cli_inputs in = {0};
    lg_models_report *r = NULL;
    if (lg_interp_create(ma, &ro, &probe, &err) != LG_OK) { rc = cli_lib_error(pa, &err); goto out; }
    if (cli_inputs_make(probe, inputs, n_inputs, "half", &in)) { rc = CLI_ERROR; goto out; }
    if (lg_compare_models(ma, mb, (const float *const *)in.data, &o, &r, &err) != LG_OK) { rc = cli_lib_error(NULL, &err); goto out; }
    if (json) {
        json_w j;
        json_init(&j, stdout);
        json_obj_open(&j);
        json_key_str(&j, "mode", "models");
        json_key_str(&j, "a", pa);
        json_key_str(&j, "b", pb);
        json_key_str(&j, "precision", lg_precision_name(o.precision));
        json_key_double(&j, "atol", o.atol);
        json_key_double(&j, "rtol", o.rtol);
        json_key(&j, "cases");
        json_arr_open(&j);
        for (uint32_t c = 0; c < r->n_cases; c++) {
            json_obj_open(&j);
            json_key_str(&j, "input", r->cases[c].input);
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
        json_key_uint(&j, "allclose_failures", r->n_allclose_fail);
        json_key_uint(&j, "argmax_failures", r->n_argmax_fail);
        json_key_bool(&j, "ok", r->ok);
        json_obj_close(&j);
        rc = json_finish(&j) ? cli_error("cannot write the report") : (r->ok ? CLI_OK : CLI_FINDINGS);
    } else {
        printf("%s vs %s: %u input(s) (golden + %u random), atol %g rtol %g, %s\n", pa, pb, r->n_cases, r->n_cases - 1,
               o.atol, o.rtol, lg_precision_name(o.precision));
        for (uint32_t c = 0; c < r->n_cases; c++)
            for (uint32_t k = 0; k < r->n_outputs; k++) {
                const lg_metrics *mm = &r->cases[c].outputs[k];
                printf("  %-12s output %u: max_abs %.3g max_rel %.3g pearson %.6f  allclose %s  argmax %s\n",
                       r->cases[c].input, k, mm->max_abs, mm->max_rel, mm->pearson, r->cases[c].allclose[k] ? "yes" : "NO",
                       r->cases[c].argmax_equal[k] ? "same" : "DIFFERS");
            }
        printf("verdict: %s (worst max_abs %.3g, max_rel %.3g; %u allclose and %u argmax failures)\n",
               r->ok ? "EQUIVALENT" : "DIFFERENT", r->worst_max_abs, r->worst_max_rel, r->n_allclose_fail, r->n_argmax_fail);
        rc = r->ok ? CLI_OK : CLI_FINDINGS;
    }
out:
    lg_models_report_free(r);
    cli_inputs_free(&in);
    lg_interp_free(probe);
    lg_model_free(ma);
    lg_model_free(mb);
    cli_file_close(&fa);
    cli_file_close(&fb);
    return rc;
}

int cmd_compare(const cli_verb *v, int argc, char **argv) {
    bool json = false, all = false;
    const char *prec = NULL, *fill = NULL, *corr = NULL, *nrand = NULL, *seed = NULL, *atol = NULL, *rtol = NULL;
    const char *threads_s = NULL;
    const char *inputs[64];
    int n_inputs = 0;
    const cli_flag flags[] = {
        {"--json", NULL, &json, NULL, NULL, NULL, 0},
        {"--all", NULL, &all, NULL, NULL, NULL, 0},
        {"--precision", "-p", NULL, &prec, NULL, NULL, 0},
        {"--fill", NULL, NULL, &fill, NULL, NULL, 0},
        {"--corr", NULL, NULL, &corr, NULL, NULL, 0},
        {"--random", NULL, NULL, &nrand, NULL, NULL, 0},
        {"--seed", NULL, NULL, &seed, NULL, NULL, 0},
        {"--atol", NULL, NULL, &atol, NULL, NULL, 0},
        {"--rtol", NULL, NULL, &rtol, NULL, NULL, 0},
        {"--input", "-i", NULL, NULL, inputs, &n_inputs, 64},
        {"--threads", NULL, NULL, &threads_s, NULL, NULL, 0},
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
    if (n_pos == 1) {
        if (nrand || seed || atol || rtol) return cli_usage_error(v, "--random/--seed/--atol/--rtol go with two models");
        return precision_mode(v, pos[0], prec, inputs, n_inputs, fill, corr, json, all, threads);
    }
    if (n_pos == 2) {
        if (corr || fill) return cli_usage_error(v, "--corr/--fill go with one model (precision mode)");
        return models_mode(v, pos[0], pos[1], prec, inputs, n_inputs, nrand, seed, atol, rtol, json, threads);
    }
    return cli_usage_error(v, "expected MODEL (precision mode) or A B (two models)");
}
