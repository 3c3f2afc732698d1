/* litegpu lowrank MODEL -o OUT (--op N|--all-fc|--all-1x1) (--rank R|--energy E): replace dense
   layers by two thin ones from the SVD (lg_lowrank, include/lg/lowrank.h); report per layer the
   shapes, rank, break-even rank, parameters, energy, spectrum and reconstruction error, the
   model's n_params before/after, the file sizes, and the output error of OUT against MODEL
   (fp32) on the pattern input, --calib DIR and --eval DIR, each apart. Exit 0 written, 2 error. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "evidence.h"
#include "json.h"
#include "lg/lowrank.h"
#include "run_common.h"

typedef struct lr_args {
    const char *model, *out, *op, *rank, *energy, *min_saving, *calib, *eval, *evidence, *evidence_runs;
    int ev_runs;
    const char *lambda;
    bool all_fc, all_1x1, force_rank, force, json, refit;
} lr_args;

/* The three measurements: the pattern input, the calibration sets, the evaluation sets. */
typedef struct lr_errors {
    lg_lowrank_error pattern, calib, eval;
    bool has_calib, has_eval;
} lr_errors;

/* ---------------------------------------------------------------- options */

static int parse_int(const cli_verb *v, const char *flag, const char *s, int32_t lo, int32_t *out) {
    char *end = NULL;
    long x = strtol(s, &end, 10);
    if (!end || end == s || *end || x < lo || x > INT32_MAX) return cli_usage_error(v, "%s '%s': an integer >= %d", flag, s, lo);
    *out = (int32_t)x;
    return CLI_OK;
}

static int parse_options(const cli_verb *v, const lr_args *a, lg_lowrank_options *o) {
    memset(o, 0, sizeof *o);
    o->op = -1;
    int n_sel = (a->op != NULL) + a->all_fc + a->all_1x1;
    if (n_sel == 0) return cli_usage_error(v, "say which layers: --op N, --all-fc or --all-1x1");
    if (a->op && n_sel > 1) return cli_usage_error(v, "--op excludes --all-fc and --all-1x1");
    if (a->op && parse_int(v, "--op", a->op, 0, &o->op)) return CLI_ERROR;
    o->all_fc = a->all_fc;
    o->all_conv1x1 = a->all_1x1;
    if (!!a->rank == !!a->energy) return cli_usage_error(v, "give one of --rank R or --energy E");
    if (a->rank && parse_int(v, "--rank", a->rank, 1, &o->rank)) return CLI_ERROR;
    if (a->energy) {
        char *end = NULL;
        o->energy = strtod(a->energy, &end);
        if (!end || end == a->energy || *end || !(o->energy > 0 && o->energy <= 1))
            return cli_usage_error(v, "--energy '%s': the fraction of sum s_i^2 to keep, in (0, 1]", a->energy);
    }
    if (a->force_rank && !a->rank) return cli_usage_error(v, "--force-rank goes with --rank");
    o->force_rank = a->force_rank;
    if (a->min_saving) {
        char *end = NULL;
        o->min_saving = strtod(a->min_saving, &end);
        if (!end || end == a->min_saving || *end || !(o->min_saving >= 0 && o->min_saving < 1))
            return cli_usage_error(v, "--min-saving '%s': a fraction of a layer's parameters, in [0, 1)", a->min_saving);
    }
    if (a->lambda && !a->refit) return cli_usage_error(v, "--lambda goes with --refit");
    if (a->refit && !a->calib) return cli_usage_error(v, "--refit fits on --calib DIR (and --eval DIR measures it apart)");
    if (a->refit) {
        o->refit_lambda = 1e-3;
        if (a->lambda) {
            char *end = NULL;
            o->refit_lambda = strtod(a->lambda, &end);
            if (!end || end == a->lambda || *end || !(o->refit_lambda >= 0) || !isfinite(o->refit_lambda))
                return cli_usage_error(v, "--lambda '%s': the ridge lambda relative to the mean activation energy, >= 0", a->lambda);
        }
    }
    return CLI_OK;
}

/* ---------------------------------------------------------------- measurement */

/* --calib DIR as the refit's cases (cli_calib_load's layout, the model's input views). */
static int load_refit(const lr_args *a, const lg_model *m, cli_calib *cal, lg_lowrank_options *o) {
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_interp *it = NULL;
    lg_error err;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) return cli_lib_error(a->model, &err);
    uint32_t n = lg_interp_n_inputs(it);
    lg_tensor_view *views = calloc(n ? n : 1, sizeof *views);
    int rc = views ? CLI_OK : cli_error("out of memory");
    for (uint32_t i = 0; !rc && i < n; i++) lg_interp_input(it, i, &views[i]);
    if (!rc) rc = cli_calib_load(views, n, a->calib, 4096, cal);
    if (!rc) {
        o->refit_cases = (const void *const *const *)cal->ptrs;
        o->n_refit_cases = cal->n;
    }
    free(views);
    lg_interp_free(it);
    return rc;
}

static int measure_dir(const char *dir, const lg_model *m, const lg_model *q, lg_lowrank_error *e) {
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_interp *it = NULL;
    lg_error err;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) return cli_lib_error(dir, &err);
    uint32_t n = lg_interp_n_inputs(it);
    lg_tensor_view *views = calloc(n ? n : 1, sizeof *views);
    cli_calib cal;
    memset(&cal, 0, sizeof cal);
    int rc = views ? CLI_OK : cli_error("out of memory");
    for (uint32_t i = 0; !rc && i < n; i++) lg_interp_input(it, i, &views[i]);
    if (!rc) rc = cli_calib_load(views, n, dir, 4096, &cal);
    if (!rc && lg_lowrank_measure(m, q, cal.ptrs, cal.n, e, &err) != LG_OK) rc = cli_lib_error(dir, &err);
    cli_calib_free(&cal);
    free(views);
    lg_interp_free(it);
    return rc;
}

static int measure_all(const lr_args *a, const lg_model *m, const lg_model *q, lr_errors *e) {
    lg_error err;
    memset(e, 0, sizeof *e);
    if (lg_lowrank_measure(m, q, NULL, 0, &e->pattern, &err) != LG_OK) return cli_lib_error(a->model, &err);
    if (a->calib) {
        if (measure_dir(a->calib, m, q, &e->calib)) return CLI_ERROR;
        e->has_calib = true;
    }
    if (a->eval) {
        if (measure_dir(a->eval, m, q, &e->eval)) return CLI_ERROR;
        e->has_eval = true;
    }
    return CLI_OK;
}

/* ---------------------------------------------------------------- text */

static void num_text(double x) {
    if (isnan(x)) printf("n/a");
    else printf("%.4g", x);
}

static void layer_text(const lg_lowrank_layer *l) {
    printf("  op %d %s \"%s\"", l->op, lg_builtin_name(l->code) ? lg_builtin_name(l->code) : "?", l->name);
    if (l->m > 0) printf(" %dx%d%s", l->m, l->n, l->weight_type == LG_FLOAT16 ? " FLOAT16" : "");
    if (!l->n_spectrum) {
        printf(": left alone: %s\n", l->why);
        return;
    }
    printf(": rank %d of %u, break-even %.4g, params %llu -> %llu, energy kept ", l->rank, l->n_spectrum, l->break_even,
           (unsigned long long)l->params_before, (unsigned long long)l->params_after);
    num_text(l->energy_kept);
    printf(", ||W-W_r||/||W|| ");
    num_text(l->recon_error);
    printf("\n    spectrum (%u values): s1 %.4g", l->n_spectrum, l->spectrum[0]);
    if (l->rank > 0 && (uint32_t)l->rank <= l->n_spectrum) printf(", s%d %.4g (last kept)", l->rank, l->spectrum[l->rank - 1]);
    if ((uint32_t)l->rank < l->n_spectrum) printf(", s%d %.4g (first dropped)", l->rank + 1, l->spectrum[l->rank]);
    printf(", s%u %.4g (smallest)\n", l->n_spectrum, l->spectrum[l->n_spectrum - 1]);
    if (!l->replaced) printf("    left alone: %s\n", l->why);
    if (l->refitted) printf("    refit: the layer's output error on the refit inputs %.4g -> %.4g\n", l->refit_before, l->refit_after);
    else if (l->refit_why[0]) printf("    not refitted: %s\n", l->refit_why);
}

static void err_text(const char *what, const lg_lowrank_error *e) {
    printf("  %s (%u input set%s): max abs %.4g, max |ref| %.4g, relative (worst output) ", what, e->n_cases,
           e->n_cases == 1 ? "" : "s", e->max_abs, e->ref_max_abs);
    num_text(e->rel);
    printf(", argmax agrees on %u of %u\n", e->n_argmax_equal, e->n_cases);
}

static int print_text(const lr_args *a, const lg_lowrank_report *r, const lr_errors *e, uint64_t in_size, size_t size,
                      const char *hex) {
    printf("lowrank ");
    cli_write_path(stdout, a->model);
    printf(": %u layer%s considered, %u replaced (", r->n_layers, r->n_layers == 1 ? "" : "s", r->n_replaced);
    if (a->rank) printf("rank %s%s", a->rank, a->force_rank ? ", forced" : "");
    else printf("energy %s", a->energy);
    if (a->refit) printf("; refit on %s", a->calib);
    printf(")\n");
    for (uint32_t k = 0; k < r->n_layers; k++) layer_text(&r->layers[k]);
    printf("n_params %llu -> %llu; ops %u -> %u; file %llu -> %zu bytes\n", (unsigned long long)r->n_params_before,
           (unsigned long long)r->n_params_after, r->ops_before, r->ops_after, (unsigned long long)in_size, size);
    printf("output error of OUT against MODEL (fp32):\n");
    err_text("pattern", &e->pattern);
    if (e->has_calib) err_text("calib", &e->calib);
    if (e->has_eval) err_text("eval", &e->eval);
    printf("wrote ");
    cli_write_path(stdout, a->out);
    printf(" (%zu bytes, sha256 %s)\n", size, hex);
    return fflush(stdout) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- JSON */

static void num_json(json_w *j, const char *key, double x) {
    json_key(j, key);
    if (isfinite(x)) json_double(j, x);
    else json_null(j);
}

static void layer_json(json_w *j, const lg_lowrank_layer *l) {
    json_obj_open(j);
    json_key_int(j, "op", l->op);
    json_key_str(j, "op_name", lg_builtin_name(l->code));
    json_key_str(j, "name", l->name);
    json_key_int(j, "m", l->m);
    json_key_int(j, "n", l->n);
    json_key_bool(j, "has_bias", l->has_bias);
    json_key_str(j, "weight_type", l->m > 0 ? lg_dtype_name(l->weight_type) : NULL);
    json_key(j, "rank");
    if (l->n_spectrum) json_int(j, l->rank);
    else json_null(j);
    num_json(j, "break_even", l->n_spectrum ? l->break_even : NAN);
    json_key_uint(j, "params_before", l->params_before);
    json_key_uint(j, "params_after", l->params_after);
    num_json(j, "energy_kept", l->energy_kept);
    num_json(j, "recon_error", l->recon_error);
    json_key(j, "spectrum");
    json_arr_open_flat(j);
    for (uint32_t i = 0; i < l->n_spectrum; i++) json_double(j, l->spectrum[i]);
    json_arr_close(j);
    json_key_bool(j, "replaced", l->replaced);
    json_key_str(j, "why", l->replaced ? NULL : l->why);
    json_key_bool(j, "refitted", l->refitted);
    num_json(j, "refit_before", l->refit_before);
    num_json(j, "refit_after", l->refit_after);
    json_key_str(j, "refit_why", l->refit_why[0] ? l->refit_why : NULL);
    json_obj_close(j);
}

static void err_json(json_w *j, const char *key, const lg_lowrank_error *e, bool present) {
    json_key(j, key);
    if (!present) {
        json_null(j);
        return;
    }
    json_obj_open_flat(j);
    json_key_uint(j, "n_cases", e->n_cases);
    num_json(j, "max_abs", e->max_abs);
    num_json(j, "ref_max_abs", e->ref_max_abs);
    num_json(j, "rel", e->rel);
    json_key_uint(j, "n_argmax_equal", e->n_argmax_equal);
    json_obj_close(j);
}

static int print_json(const lr_args *a, const lg_lowrank_report *r, const lr_errors *e, uint64_t in_size, size_t size,
                      const char *hex) {
    json_w j;
    json_init(&j, stdout);
    json_obj_open(&j);
    json_key_str(&j, "verb", "lowrank");
    json_key_str(&j, "model", a->model);
    json_key_bool(&j, "ok", true);
    json_key_str(&j, "output", a->out);
    json_key_uint(&j, "input_size", in_size);
    json_key_uint(&j, "size", size);
    json_key_str(&j, "sha256", hex);
    json_key(&j, "rank");
    if (a->rank) json_int(&j, strtol(a->rank, NULL, 10));
    else json_null(&j);
    json_key(&j, "energy");
    if (a->energy) json_double(&j, strtod(a->energy, NULL));
    else json_null(&j);
    json_key_bool(&j, "force_rank", a->force_rank);
    json_key(&j, "refit");
    if (a->refit) {
        json_obj_open_flat(&j);
        json_key_str(&j, "cases", a->calib);
        json_key_double(&j, "lambda", a->lambda ? strtod(a->lambda, NULL) : 1e-3);
        json_obj_close(&j);
    } else {
        json_null(&j);
    }
    json_key_uint(&j, "n_layers", r->n_layers);
    json_key_uint(&j, "n_replaced", r->n_replaced);
    json_key_uint(&j, "n_params_before", r->n_params_before);
    json_key_uint(&j, "n_params_after", r->n_params_after);
    json_key_uint(&j, "n_ops_before", r->ops_before);
    json_key_uint(&j, "n_ops_after", r->ops_after);
    json_key(&j, "layers");
    json_arr_open(&j);
    for (uint32_t k = 0; k < r->n_layers; k++) layer_json(&j, &r->layers[k]);
    json_arr_close(&j);
    json_key(&j, "error");
    json_obj_open(&j);
    err_json(&j, "pattern", &e->pattern, true);
    err_json(&j, "calib", &e->calib, e->has_calib);
    err_json(&j, "eval", &e->eval, e->has_eval);
    json_obj_close(&j);
    json_key_str(&j, "metadata", r->metadata);
    json_obj_close(&j);
    return json_finish(&j);
}

/* ---------------------------------------------------------------- evidence */

static void evidence_err(json_w *j, const char *inputs, const lg_lowrank_error *e, bool full) {
    json_obj_open_flat(j);
    json_key_str(j, "check", full ? "full_rank_equivalence" : "output_error");
    json_key_str(j, "inputs", inputs);
    json_key_uint(j, "n_cases", e->n_cases);
    num_json(j, "max_abs", e->max_abs);
    num_json(j, "rel", e->rel);
    json_key_uint(j, "n_argmax_equal", e->n_argmax_equal);
    if (full) json_key_bool(j, "ok", e->rel <= 1e-5); /* the handbook's implementation test */
    else json_key_str(j, "note", "a measurement of the approximation, no threshold (decision not_evaluated)");
    json_obj_close(j);
}

/* ||W - W_r|| / ||W|| predicted by the spectrum: sqrt(sum_{i>=r} s_i^2 / sum s_i^2). */
static double predicted_error(const lg_lowrank_layer *l) {
    double tail = 0, tot = 0;
    for (uint32_t i = 0; i < l->n_spectrum; i++) {
        tot += l->spectrum[i] * l->spectrum[i];
        if (i >= (uint32_t)l->rank) tail += l->spectrum[i] * l->spectrum[i];
    }
    return tot > 0 ? sqrt(tail / tot) : 0;
}

/* The structural checks: parameters match the shapes; the stored factors' error equals the
   spectrum's; at full rank, the model is reproduced. Then the output errors measured. */
static void evidence_checks(json_w *j, const lg_lowrank_report *r, const lr_errors *e) {
    uint64_t saved = 0;
    double dev = 0;
    bool full = r->n_replaced > 0;
    for (uint32_t k = 0; k < r->n_layers; k++) {
        const lg_lowrank_layer *l = &r->layers[k];
        if (!l->replaced) continue;
        saved += l->params_before - l->params_after; /* may wrap with --force-rank: modular, still exact */
        double d = fabs(l->recon_error - predicted_error(l));
        if (d > dev || isnan(d)) dev = isnan(d) ? INFINITY : d;
        full &= (uint32_t)l->rank == l->n_spectrum;
    }
    json_arr_open(j);
    json_obj_open_flat(j);
    json_key_str(j, "check", "parameter_count");
    json_key_uint(j, "n_params_before", r->n_params_before);
    json_key_uint(j, "n_params_after", r->n_params_after);
    json_key_uint(j, "expected_after", r->n_params_before - saved);
    json_key_bool(j, "ok", r->n_params_after == r->n_params_before - saved);
    json_obj_close(j);
    json_obj_open_flat(j);
    json_key_str(j, "check", "factor_error_equals_spectrum");
    json_key_uint(j, "n_layers", r->n_replaced);
    num_json(j, "max_abs_deviation", dev);
    json_key_bool(j, "ok", dev <= 1e-5);
    json_obj_close(j);
    evidence_err(j, "pattern", &e->pattern, full);
    if (e->has_calib) evidence_err(j, "calib", &e->calib, full);
    if (e->has_eval) evidence_err(j, "eval", &e->eval, full);
    json_arr_close(j);
}

static void change_json(json_w *j, const lr_args *a, const lg_lowrank_report *r) {
    json_obj_open(j);
    json_key_str(j, "kind", "lowrank");
    json_key(j, "rank");
    if (a->rank) json_int(j, strtol(a->rank, NULL, 10));
    else json_null(j);
    json_key(j, "energy");
    if (a->energy) json_double(j, strtod(a->energy, NULL));
    else json_null(j);
    json_key_bool(j, "force_rank", a->force_rank);
    json_key(j, "layers");
    json_arr_open(j);
    for (uint32_t k = 0; k < r->n_layers; k++) {
        const lg_lowrank_layer *l = &r->layers[k];
        if (!l->replaced) continue;
        json_obj_open_flat(j);
        json_key_int(j, "op", l->op);
        json_key_str(j, "name", l->name);
        json_key_int(j, "m", l->m);
        json_key_int(j, "n", l->n);
        json_key_int(j, "rank", l->rank);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_key_uint(j, "n_params_before", r->n_params_before);
    json_key_uint(j, "n_params_after", r->n_params_after);
    json_obj_close(j);
}

/* The JSON text a writer function makes, without its final newline (malloc'ed), or NULL. */
static char *json_text(void (*fn)(json_w *, const void *, const void *, const void *), const void *x, const void *y,
                       const void *z) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return NULL;
    json_w j;
    json_init(&j, f);
    fn(&j, x, y, z);
    int bad = json_finish(&j);
    if (fclose(f) != 0 || bad) {
        free(buf);
        return NULL;
    }
    while (n > 0 && buf[n - 1] == '\n') buf[--n] = 0;
    return buf;
}

static void change_fn(json_w *j, const void *a, const void *r, const void *unused) {
    (void)unused;
    change_json(j, a, r);
}

static void checks_fn(json_w *j, const void *r, const void *e, const void *unused) {
    (void)unused;
    evidence_checks(j, r, e);
}

static int write_evidence(const lr_args *a, int argc, char **argv, const lg_lowrank_report *r, const lr_errors *e) {
    char *change = json_text(change_fn, a, r, NULL), *checks = json_text(checks_fn, r, e, NULL);
    int rc = change && checks ? CLI_OK : cli_error("out of memory");
    if (!rc) {
        cli_evidence ev = {0};
        ev.dir = a->evidence;
        ev.verb = "lowrank";
        ev.argc = argc;
        ev.argv = argv;
        ev.baseline = a->model;
        ev.candidate = a->out;
        ev.hypothesis = "the dense layers are close to low rank: their SVD factors keep the output while the parameters drop";
        ev.change_json = change;
        ev.checks_json = checks;
        ev.calib = a->eval ? a->eval : a->calib; /* the SVD fits nothing on them: evaluation inputs */
        ev.runs = a->ev_runs;
        char rec[4400];
        if (a->refit) {
            snprintf(rec, sizeof rec, "least-squares (ridge, lambda %g) refit of each factored FULLY_CONNECTED's second layer on %s",
                     a->lambda ? strtod(a->lambda, NULL) : 1e-3, a->calib);
            ev.recovery = rec;
            ev.calib_is_fit = !a->eval; /* measured on the inputs the refit was fitted on */
        }
        rc = cli_evidence_write(&ev);
    }
    free(change);
    free(checks);
    return rc;
}

/* ---------------------------------------------------------------- the verb */

int cmd_lowrank(const cli_verb *v, int argc, char **argv) {
    lr_args a;
    memset(&a, 0, sizeof a);
    const cli_flag flags[] = {
        {"--output", "-o", NULL, &a.out, NULL, NULL, 0},
        {"--op", NULL, NULL, &a.op, NULL, NULL, 0},
        {"--all-fc", NULL, &a.all_fc, NULL, NULL, NULL, 0},
        {"--all-1x1", NULL, &a.all_1x1, NULL, NULL, NULL, 0},
        {"--rank", "-r", NULL, &a.rank, NULL, NULL, 0},
        {"--energy", "-e", NULL, &a.energy, NULL, NULL, 0},
        {"--force-rank", NULL, &a.force_rank, NULL, NULL, NULL, 0},
        {"--min-saving", NULL, NULL, &a.min_saving, NULL, NULL, 0},
        {"--refit", NULL, &a.refit, NULL, NULL, NULL, 0},
        {"--lambda", NULL, NULL, &a.lambda, NULL, NULL, 0},
        {"--calib", NULL, NULL, &a.calib, NULL, NULL, 0},
        {"--eval", NULL, NULL, &a.eval, NULL, NULL, 0},
        {"--evidence", NULL, NULL, &a.evidence, NULL, NULL, 0},
        {"--evidence-runs", NULL, NULL, &a.evidence_runs, NULL, NULL, 0},
        {"--force", NULL, &a.force, NULL, NULL, NULL, 0},
        {"--json", NULL, &a.json, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (n_pos != 1) return cli_usage_error(v, "missing MODEL");
    if (!a.out) return cli_usage_error(v, "missing -o OUT");
    a.model = pos[0];
    lg_lowrank_options o;
    if ((rc = parse_options(v, &a, &o)) != CLI_OK) return rc;
    if (cli_same_file(a.model, a.out)) return cli_error("%s: refusing to write over the input file", a.out);
    if (cli_output_check(a.out, a.force)) return CLI_ERROR;
    if (cli_evidence_begin(a.evidence, a.evidence_runs, &a.ev_runs)) return CLI_ERROR;
    struct stat st_in;
    uint64_t in_size = stat(a.model, &st_in) == 0 ? (uint64_t)st_in.st_size : 0;

    lg_model *m = NULL, *q = NULL;
    if ((rc = cli_load_model(a.model, &m)) != CLI_OK) return rc;
    lg_lowrank_report *rep = NULL;
    lg_error err;
    lr_errors e;
    memset(&e, 0, sizeof e);
    cli_calib rcal;
    memset(&rcal, 0, sizeof rcal);
    if (a.refit) rc = load_refit(&a, m, &rcal, &o);
    if (!rc && lg_lowrank(m, &o, &q, &rep, &err) != LG_OK) rc = cli_lib_error(a.model, &err);
    cli_calib_free(&rcal);
    if (!rc) rc = measure_all(&a, m, q, &e);
    lg_model_free(m);
    size_t size = 0;
    char hex[65] = "";
    if (!rc) rc = cli_write_model(q, a.out, a.force, false, &size, hex);
    lg_model_free(q);
    if (!rc) {
        int prc = a.json ? print_json(&a, rep, &e, in_size, size, hex) : print_text(&a, rep, &e, in_size, size, hex);
        if (prc != 0) rc = cli_error("writing the report failed");
    }
    if (!rc && a.evidence) rc = write_evidence(&a, argc, argv, rep, &e);
    lg_lowrank_report_free(rep);
    return rc;
}
