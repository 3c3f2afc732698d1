/* litegpu ablate MODEL [--calib DIR] [--eval DIR] [--metric kl|mse|argmax]
   [--remove K|--remove-block ID...] [-o OUT] [--evidence DIR [--evidence-runs N]] [--force] [--json]:
   the removable residual blocks y = x + F(x), each bypassed alone and measured against MODEL
   (lg_ablate, include/lg/ablate.h), the handbook's ablation table, and with --remove the
   candidate written to OUT. Exit 0 ok, 2 error. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "evidence.h"
#include "json.h"
#include "lg/ablate.h"
#include "lg/run.h"
#include "run_common.h"

#define MAX_REMOVE_IDS 64

typedef struct ab_args {
    const char *model, *out, *calib, *eval, *metric, *remove, *evidence, *ev_runs;
    int ev_n;
    const char *remove_ids[MAX_REMOVE_IDS];
    int n_remove_ids;
    bool force, json;
} ab_args;

static const char warning_text[] =
    "ablation losses do not add: the loss of removing two blocks is not the sum of their single losses "
    "(handbook, chapter 4: two individually tolerable removals can damage complementary functions); "
    "measure the combination and rerun the ranking on the modified model";

/* ---------------------------------------------------------------- text */

static void fig(double v) {
    if (isnan(v)) printf("%10s", "n/a");
    else printf("%10.4g", v);
}

static void blocks_text(const lg_ablate_list *l) {
    if (l->n_blocks) printf("  block  ADD op  ops in F    params  y = ADD output (x)\n");
    for (uint32_t i = 0; i < l->n_blocks; i++) {
        const lg_ablate_block *k = &l->blocks[i];
        printf("  %5u  %6d  %8u  %8llu  ", k->id, k->add_op, k->n_ops, (unsigned long long)k->params);
        json_write_quoted(stdout, k->name, strlen(k->name));
        printf(" (x ");
        json_write_quoted(stdout, k->x_name, strlen(k->x_name));
        printf(")\n                                     F: %s\n", k->kinds);
        if (k->parent >= 0)
            printf("                                     inside block %d's F (removing block %d removes it too)\n", k->parent,
                   k->parent);
    }
    for (uint32_t i = 0; i < l->n_skipped; i++) {
        printf("  not a removable block: op %d ADD ", l->skipped[i].add_op);
        json_write_quoted(stdout, l->skipped[i].name, strlen(l->skipped[i].name));
        printf(": %s\n", l->skipped[i].why);
    }
}

static void table_text(const ab_args *a, const lg_ablate_report *r) {
    const lg_ablate_list *l = r->list;
    printf("ablation table: each block bypassed alone, fp32, against the model on ");
    if (r->pattern_fill) printf("1 input (the pattern fill; give --calib DIR)");
    else printf("%u calibration input%s (%s)", r->n_calib, r->n_calib == 1 ? "" : "s", a->calib);
    if (r->n_eval) printf(" and %u evaluation input%s (%s)", r->n_eval, r->n_eval == 1 ? "" : "s", a->eval);
    printf("; sorted by %s, least harmful first\n", lg_ablate_metric_name(r->metric));
    printf("  rank  block    params        kl       mse    argmax");
    if (r->n_eval) printf("   eval kl  eval mse  eval argmax");
    printf("\n");
    for (uint32_t i = 0; i < l->n_blocks; i++) {
        const lg_ablate_block *k = &l->blocks[r->order[i]];
        printf("  %4u  %5u  %8llu", k->rank, k->id, (unsigned long long)k->params);
        for (int m = 0; m < LG_ABLATE_N_METRICS; m++) fig(k->calib[m]);
        if (r->n_eval)
            for (int m = 0; m < LG_ABLATE_N_METRICS; m++) fig(k->eval[m]);
        printf("\n");
    }
}

/* A figure in text: %.4g, or n/a when undefined (VOCAB: null in JSON). */
static const char *num(double v, char *buf, size_t n) {
    if (isnan(v)) snprintf(buf, n, "n/a");
    else snprintf(buf, n, "%.4g", v);
    return buf;
}

static void removal_text(const lg_ablate_report *r) {
    const char *mn = lg_ablate_metric_name(r->metric);
    char a[32], b[32], c[32];
    printf("removed %u block%s (", r->n_removed, r->n_removed == 1 ? "" : "s");
    for (uint32_t i = 0; i < r->n_removed; i++) printf("%s%u", i ? ", " : "", r->removed[i]);
    printf("): n_params %llu -> %llu (-%llu), n_ops %u -> %u\n", (unsigned long long)r->n_params,
           (unsigned long long)r->n_params_after, (unsigned long long)(r->n_params - r->n_params_after), r->n_ops, r->n_ops_after);
    printf("  measured %s %s on calibration; the sum of the single losses %s\n", mn, num(r->cand_calib[r->metric], a, sizeof a),
           num(r->sum_calib[r->metric], b, sizeof b));
    if (r->n_eval)
        printf("  measured %s %s on evaluation; the sum of the single losses %s\n", mn, num(r->cand_eval[r->metric], a, sizeof a),
               num(r->sum_eval[r->metric], b, sizeof b));
    printf("  (all metrics, calibration: kl %s, mse %s, argmax %s", num(r->cand_calib[0], a, sizeof a),
           num(r->cand_calib[1], b, sizeof b), num(r->cand_calib[2], c, sizeof c));
    if (r->n_eval)
        printf("; evaluation: kl %s, mse %s, argmax %s", num(r->cand_eval[0], a, sizeof a), num(r->cand_eval[1], b, sizeof b),
               num(r->cand_eval[2], c, sizeof c));
    printf(")\n");
}

static int print_text(const ab_args *a, const lg_ablate_report *r, size_t size, const char *hex) {
    const lg_ablate_list *l = r->list;
    printf("ablate ");
    cli_write_path(stdout, a->model);
    printf(": %u removable residual block%s (y = x + F(x)) in %u ops; n_params %llu\n", l->n_blocks, l->n_blocks == 1 ? "" : "s",
           r->n_ops, (unsigned long long)r->n_params);
    blocks_text(l);
    if (!r->measured) printf("%s\n", r->measure_note);
    else if (l->n_blocks) table_text(a, r);
    if (l->n_blocks) printf("note: %s\n", warning_text);
    if (r->has_candidate) {
        removal_text(r);
        fputs("wrote ", stdout);
        cli_write_path(stdout, a->out);
        printf(" (%zu bytes, sha256 %s)\n", size, hex);
    }
    return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
}

/* ---------------------------------------------------------------- JSON */

static void metrics_json(json_w *j, const char *key, const double *v) {
    json_key(j, key);
    json_obj_open_flat(j);
    for (int m = 0; m < LG_ABLATE_N_METRICS; m++) json_key_double(j, lg_ablate_metric_name((lg_ablate_metric)m), v[m]);
    json_obj_close(j);
}

static void block_json(json_w *j, const lg_ablate_block *k, bool eval) {
    json_obj_open(j);
    json_key_uint(j, "block", k->id);
    json_key_int(j, "add_op", k->add_op);
    json_key_str(j, "name", k->name);
    json_key_str(j, "x", k->x_name);
    json_key_uint(j, "n_ops", k->n_ops);
    json_key_str(j, "kinds", k->kinds);
    json_key_uint(j, "n_params", k->params);
    json_key_uint(j, "n_params_f", k->params_f);
    json_key(j, "parent");
    if (k->parent >= 0) json_int(j, k->parent);
    else json_null(j);
    json_key_uint(j, "depth", k->depth);
    json_key_uint(j, "rank", k->rank);
    metrics_json(j, "calib", k->calib);
    if (eval) metrics_json(j, "eval", k->eval);
    else {
        json_key(j, "eval");
        json_null(j);
    }
    json_key_bool(j, "removed", k->removed);
    json_obj_close(j);
}

static void removal_json(json_w *j, const ab_args *a, const lg_ablate_report *r, size_t size, const char *hex) {
    json_key(j, "removal");
    if (!r->has_candidate) {
        json_null(j);
        return;
    }
    json_obj_open(j);
    json_key_str(j, "output", a->out);
    json_key_uint(j, "size", size);
    json_key_str(j, "sha256", hex);
    json_key(j, "blocks");
    json_arr_open_flat(j);
    for (uint32_t i = 0; i < r->n_removed; i++) json_uint(j, r->removed[i]);
    json_arr_close(j);
    json_key_uint(j, "n_params_before", r->n_params);
    json_key_uint(j, "n_params_after", r->n_params_after);
    json_key_uint(j, "n_ops_before", r->n_ops);
    json_key_uint(j, "n_ops_after", r->n_ops_after);
    metrics_json(j, "calib", r->cand_calib);
    metrics_json(j, "calib_sum_of_singles", r->sum_calib);
    if (r->n_eval) {
        metrics_json(j, "eval", r->cand_eval);
        metrics_json(j, "eval_sum_of_singles", r->sum_eval);
    } else {
        json_key(j, "eval");
        json_null(j);
        json_key(j, "eval_sum_of_singles");
        json_null(j);
    }
    json_key_str(j, "metadata", r->metadata);
    json_obj_close(j);
}

static int print_json(const ab_args *a, const lg_ablate_report *r, size_t size, const char *hex) {
    const lg_ablate_list *l = r->list;
    json_w j;
    json_init(&j, stdout);
    json_obj_open(&j);
    json_key_str(&j, "verb", "ablate");
    json_key_str(&j, "model", a->model);
    json_key_bool(&j, "ok", true);
    json_key_str(&j, "metric", lg_ablate_metric_name(r->metric));
    json_key_uint(&j, "n_ops", r->n_ops);
    json_key_uint(&j, "n_params", r->n_params);
    json_key_uint(&j, "n_blocks", l->n_blocks);
    json_key_str(&j, "calib", r->pattern_fill ? NULL : a->calib);
    json_key_uint(&j, "n_calib", r->n_calib);
    json_key_bool(&j, "pattern_fill", r->pattern_fill);
    json_key_str(&j, "eval", r->n_eval ? a->eval : NULL);
    json_key_uint(&j, "n_eval", r->n_eval);
    json_key_bool(&j, "measured", r->measured);
    json_key_str(&j, "measure_note", r->measured ? NULL : r->measure_note);
    json_key(&j, "blocks");
    json_arr_open(&j);
    for (uint32_t i = 0; i < l->n_blocks; i++) block_json(&j, &l->blocks[i], r->n_eval > 0);
    json_arr_close(&j);
    json_key(&j, "ranking");
    json_arr_open_flat(&j);
    for (uint32_t i = 0; i < l->n_blocks; i++) json_uint(&j, r->order[i]);
    json_arr_close(&j);
    json_key(&j, "skipped");
    json_arr_open(&j);
    for (uint32_t i = 0; i < l->n_skipped; i++) {
        json_obj_open_flat(&j);
        json_key_int(&j, "add_op", l->skipped[i].add_op);
        json_key_str(&j, "name", l->skipped[i].name);
        json_key_str(&j, "why", l->skipped[i].why);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_key_str(&j, "warning", warning_text);
    removal_json(&j, a, r, size, hex);
    json_obj_close(&j);
    return json_finish(&j);
}

/* ---------------------------------------------------------------- evidence */

/* The change and the checks as JSON texts (json_w on a memory stream). */
static char *change_text(const lg_ablate_report *r) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return NULL;
    json_w j;
    json_init(&j, f);
    json_obj_open_flat(&j);
    json_key_str(&j, "kind", "ablate");
    json_key_str(&j, "metric", lg_ablate_metric_name(r->metric));
    json_key(&j, "removed");
    json_arr_open(&j);
    for (uint32_t i = 0; i < r->n_removed; i++) {
        const lg_ablate_block *k = &r->list->blocks[r->removed[i]];
        json_obj_open(&j);
        json_key_uint(&j, "block", k->id);
        json_key_str(&j, "add", k->name);
        json_key_str(&j, "x", k->x_name);
        json_key_uint(&j, "n_ops", k->n_ops);
        json_key_uint(&j, "n_params", k->params);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_obj_close(&j);
    fflush(f);
    fclose(f);
    return buf;
}

static char *checks_text(const lg_ablate_report *r) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return NULL;
    json_w j;
    json_init(&j, f);
    json_arr_open_flat(&j);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < r->n_removed; i++) {
        const lg_ablate_block *k = &r->list->blocks[r->removed[i]];
        sum += k->params;
        json_obj_open(&j);
        json_key_str(&j, "check", "block_params");
        json_key_uint(&j, "block", k->id);
        json_key_uint(&j, "n_params_difference", k->params);
        json_key_uint(&j, "n_params_only_f", k->params_f);
        json_key_bool(&j, "ok", k->params == k->params_f);
        json_obj_close(&j);
    }
    json_obj_open(&j);
    json_key_str(&j, "check", "n_params");
    json_key_uint(&j, "before", r->n_params);
    json_key_uint(&j, "after", r->n_params_after);
    json_key_uint(&j, "sum_of_blocks", sum);
    json_key_bool(&j, "ok", r->n_params - r->n_params_after == sum);
    json_obj_close(&j);
    json_obj_open(&j);
    json_key_str(&j, "check", "validated_shapes_reinferred");
    json_key_bool(&j, "ok", true);
    json_obj_close(&j);
    json_obj_open(&j);
    json_key_str(&j, "check", "measured_vs_sum_of_singles");
    json_key_str(&j, "metric", lg_ablate_metric_name(r->metric));
    json_key_double(&j, "measured", r->cand_calib[r->metric]);
    json_key_double(&j, "sum_of_singles", r->sum_calib[r->metric]);
    json_obj_close(&j);
    json_arr_close(&j);
    fflush(f);
    fclose(f);
    return buf;
}

static int write_evidence(const ab_args *a, int argc, char **argv, const lg_ablate_report *r) {
    char *change = change_text(r), *checks = checks_text(r);
    char hyp[512];
    snprintf(hyp, sizeof hyp, "Bypassing the %u least harmful residual block%s keeps the outputs close to the model's "
             "(measured %s %.4g on the %s inputs; ablation losses do not add)", r->n_removed, r->n_removed == 1 ? "" : "s",
             lg_ablate_metric_name(r->metric), r->n_eval ? r->cand_eval[r->metric] : r->cand_calib[r->metric],
             r->n_eval ? "evaluation" : "calibration");
    cli_evidence e = {0};
    e.dir = a->evidence;
    e.runs = a->ev_n;
    e.verb = "ablate";
    e.argc = argc;
    e.argv = argv;
    e.baseline = a->model;
    e.candidate = a->out;
    e.hypothesis = hyp;
    e.change_json = change;
    e.checks_json = checks;
    /* the evaluation inputs: --eval when given (kept apart from the ranking), else the --calib
       set the blocks were chosen on (then the record says the figures are on fitted data) */
    e.calib = a->eval ? a->eval : a->calib;
    e.calib_is_fit = !a->eval && a->calib;
    int rc = change && checks ? cli_evidence_write(&e) : cli_error("evidence: out of memory");
    free(change);
    free(checks);
    return rc;
}

/* ---------------------------------------------------------------- the verb */

static int parse_uint(const char *s, uint32_t *out) {
    char *end = NULL;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!s[0] || s[0] == '-' || s[0] == '+' || !end || *end || errno || v > 1000000) return -1;
    *out = (uint32_t)v;
    return 0;
}

static int parse_options(const cli_verb *v, const ab_args *a, lg_ablate_options *o, uint32_t *ids) {
    memset(o, 0, sizeof *o);
    if (a->metric) {
        int k = lg_ablate_metric_from_name(a->metric);
        if (k < 0) return cli_usage_error(v, "unknown metric '%s' (kl, mse or argmax)", a->metric);
        o->metric = (lg_ablate_metric)k;
    }
    if (a->remove && a->n_remove_ids) return cli_usage_error(v, "--remove and --remove-block exclude each other");
    if (a->remove && (parse_uint(a->remove, &o->remove_k) || o->remove_k == 0))
        return cli_usage_error(v, "--remove '%s': the number of blocks to remove, 1 or more", a->remove);
    for (int i = 0; i < a->n_remove_ids; i++)
        if (parse_uint(a->remove_ids[i], &ids[i])) return cli_usage_error(v, "--remove-block '%s': a block number", a->remove_ids[i]);
    o->remove_ids = ids;
    o->n_remove_ids = (uint32_t)a->n_remove_ids;
    bool removing = a->remove || a->n_remove_ids;
    if (removing && !a->out) return cli_usage_error(v, "--remove/--remove-block need -o OUT");
    if (!removing && a->out) return cli_usage_error(v, "-o OUT goes with --remove K or --remove-block ID");
    if (a->evidence && !a->out) return cli_usage_error(v, "--evidence DIR goes with -o OUT");
    o->calib_name = a->calib;
    o->eval_name = a->eval;
    return CLI_OK;
}

/* --calib and --eval: cli_calib_load's layout, read against the model's inputs. */
static int load_sets(const ab_args *a, const lg_model *m, cli_calib *cal, cli_calib *ev, lg_ablate_options *o) {
    if (!a->calib && !a->eval) return CLI_OK;
    lg_interp *it = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_error err;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) return cli_lib_error(a->model, &err);
    uint32_t n = lg_interp_n_inputs(it);
    lg_tensor_view *views = calloc(n ? n : 1, sizeof *views);
    int rc = views ? CLI_OK : cli_error("out of memory");
    for (uint32_t i = 0; !rc && i < n; i++) lg_interp_input(it, i, &views[i]);
    if (!rc && a->calib) rc = cli_calib_load(views, n, a->calib, 4096, cal);
    if (!rc && a->calib && cal->n == 0) rc = cli_error("--calib %s: no input sets", a->calib);
    if (!rc && a->eval) rc = cli_calib_load(views, n, a->eval, 4096, ev);
    if (!rc && a->eval && ev->n == 0) rc = cli_error("--eval %s: no input sets", a->eval);
    if (!rc && a->calib) o->calib = (const void *const *const *)cal->ptrs, o->n_calib = cal->n;
    if (!rc && a->eval) o->eval = (const void *const *const *)ev->ptrs, o->n_eval = ev->n;
    free(views);
    lg_interp_free(it);
    return rc;
}

int cmd_ablate(const cli_verb *v, int argc, char **argv) {
    ab_args a;
    memset(&a, 0, sizeof a);
    const cli_flag flags[] = {
        {"--calib", NULL, NULL, &a.calib, NULL, NULL, 0},
        {"--eval", NULL, NULL, &a.eval, NULL, NULL, 0},
        {"--metric", NULL, NULL, &a.metric, NULL, NULL, 0},
        {"--remove", NULL, NULL, &a.remove, NULL, NULL, 0},
        {"--remove-block", NULL, NULL, NULL, a.remove_ids, &a.n_remove_ids, MAX_REMOVE_IDS},
        {"--output", "-o", NULL, &a.out, NULL, NULL, 0},
        {"--evidence", NULL, NULL, &a.evidence, NULL, NULL, 0},
        {"--evidence-runs", NULL, NULL, &a.ev_runs, NULL, NULL, 0},
        {"--force", NULL, &a.force, NULL, NULL, NULL, 0},
        {"--json", NULL, &a.json, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (n_pos != 1) return cli_usage_error(v, "missing MODEL");
    a.model = pos[0];
    lg_ablate_options o;
    uint32_t ids[MAX_REMOVE_IDS];
    if ((rc = parse_options(v, &a, &o, ids)) != CLI_OK) return rc;
    if (a.out) {
        if (cli_same_file(a.model, a.out)) return cli_error("%s: refusing to write over the input file", a.out);
        if (cli_output_check(a.out, a.force)) return CLI_ERROR;
    }
    if (cli_evidence_begin(a.evidence, a.ev_runs, &a.ev_n)) return CLI_ERROR;

    lg_model *m = NULL;
    if ((rc = cli_load_model(a.model, &m)) != CLI_OK) return rc;
    cli_calib cal, ev;
    memset(&cal, 0, sizeof cal);
    memset(&ev, 0, sizeof ev);
    lg_ablate_report *rep = NULL;
    lg_model *cand = NULL;
    lg_error err;
    rc = load_sets(&a, m, &cal, &ev, &o);
    if (rc == CLI_OK && lg_ablate(m, &o, &rep, a.out ? &cand : NULL, &err) != LG_OK) rc = cli_lib_error(a.model, &err);
    cli_calib_free(&cal);
    cli_calib_free(&ev);
    lg_model_free(m);
    if (rc != CLI_OK) return rc;
    size_t size = 0;
    char hex[65] = "";
    if (cand) {
        rc = cli_write_model(cand, a.out, a.force, false, &size, hex);
        lg_model_free(cand);
        if (rc != CLI_OK) {
            lg_ablate_report_free(rep);
            return rc;
        }
    }
    /* the record before the report, so that "ok" is true exactly when the exit code is 0 */
    if (a.evidence && (rc = write_evidence(&a, argc, argv, rep)) != CLI_OK) {
        lg_ablate_report_free(rep);
        return rc;
    }
    int prc = a.json ? print_json(&a, rep, size, hex) : print_text(&a, rep, size, hex);
    lg_ablate_report_free(rep);
    if (prc != 0) return cli_error("writing the report failed");
    return CLI_OK;
}
