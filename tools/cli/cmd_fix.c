/* litegpu fix MODEL -o OUT: rewrite what check reports into what the GPU takes, with every
   rewrite proved (lg_fix, include/lg/fix.h). Exit 0 ready, 1 still blocked (OUT holds what
   could be fixed), 2 error. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "evidence.h"
#include "json.h"
#include "lg/fix.h"
#include "lg/import.h"
#include "lg/npy.h"
#include "lg/util.h"
#include "fix_split.h"
#include "lg/split.h"
#include "run_common.h"

#define MAX_SITES_TEXT 8u

typedef struct fix_args {
    const char *model, *out, *target, *gpu, *outputs;
    bool split, warnings, io_int32;
    const char *passes[32];
    int n_passes;
    const char *harden, *calib, *ev_dir, *ev_runs;
    const char *shapes[32], *freezes[32];
    int n_shapes, n_freezes;
    bool list, markdown;
    const char *inputs[64];
    int n_inputs;
    bool json, force, allow_approx, no_prove;
} fix_args;

static const char *code_name(int32_t code) {
    const char *n = lg_builtin_name(code);
    return n ? n : "?";
}

static void f16err_text(const lg_fp16_error *e) {
    if (!e->measured) printf("n/a");
    else if (e->overflow) printf("inf/NaN");
    else printf("%.3g", e->score);
}

static void harden_text(const lg_harden_report *h) {
    printf("fp16 hardening (%s, emulated %s, %u input set%s): %u pattern%s, %u hazardous, %u rewritten",
           lg_harden_mode_name(h->mode), lg_precision_name(h->precision), h->n_cases, h->n_cases == 1 ? "" : "s",
           h->n_items, h->n_items == 1 ? "" : "s", h->n_hazards, h->n_rewritten);
    if (h->n_rewritten) {
        printf("; worst output f16 score ");
        f16err_text(&h->model_before);
        printf(" -> ");
        f16err_text(&h->model_after);
    }
    putchar('\n');
    for (uint32_t i = 0; i < h->n_items; i++) {
        const lg_harden_item *it = &h->items[i];
        printf("  %s at op %d \"%s\" over %lld values: f16 score ", lg_fp16_pattern_name(it->kind), it->anchor_op,
               it->output_name, (long long)it->extent);
        f16err_text(&it->before);
        printf(" -> ");
        f16err_text(&it->after);
        printf(": %s%s%s\n", it->rewritten ? "rewritten" : "left", it->why[0] ? "; " : "", it->why);
    }
}

static void f16err_json(json_w *j, const char *key, const lg_fp16_error *e) {
    json_key(j, key);
    if (!e->measured) {
        json_null(j);
        return;
    }
    json_obj_open_flat(j);
    json_key_bool(j, "overflow", e->overflow);
    json_key_bool(j, "diverges", e->diverges);
    json_key_double(j, "score", e->score);
    json_key_double(j, "max_abs", e->max_abs);
    json_key_double(j, "pearson", e->pearson);
    json_obj_close(j);
}

static void harden_json(json_w *j, const lg_harden_report *h) {
    json_key(j, "harden");
    json_obj_open(j);
    json_key_str(j, "mode", lg_harden_mode_name(h->mode));
    json_key_str(j, "precision", lg_precision_name(h->precision));
    json_key_uint(j, "n_cases", h->n_cases);
    json_key_uint(j, "n_patterns", h->n_items);
    json_key_uint(j, "n_hazards", h->n_hazards);
    json_key_uint(j, "n_rewritten", h->n_rewritten);
    f16err_json(j, "before", &h->model_before);
    f16err_json(j, "after", &h->model_after);
    json_key(j, "patterns");
    json_arr_open(j);
    for (uint32_t i = 0; i < h->n_items; i++) {
        const lg_harden_item *it = &h->items[i];
        json_obj_open(j);
        json_key_str(j, "pattern", lg_fp16_pattern_name(it->kind));
        json_key_int(j, "op", it->anchor_op);
        json_key_str(j, "tensor", it->output_name);
        json_key_int(j, "extent", it->extent);
        json_key_double(j, "input_max_abs", it->input_max_abs);
        f16err_json(j, "before", &it->before);
        f16err_json(j, "after", &it->after);
        json_key_bool(j, "hazard", it->hazard);
        json_key_bool(j, "rewritten", it->rewritten);
        json_key_str(j, "why", it->why);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_obj_close(j);
}

static void json_parity(json_w *j, bool measured, uint32_t n, double max_abs, double max_rel,
                        double min_pearson, double bound) {
    if (!measured) {
        json_null(j);
        return;
    }
    json_obj_open_flat(j);
    json_key_uint(j, "n_cases", n);
    json_key_double(j, "max_abs", max_abs);
    json_key_double(j, "max_rel", max_rel);
    json_key_double(j, "min_pearson", min_pearson);
    if (bound >= 0) json_key_double(j, "bound", bound);
    json_obj_close(j);
}

static void json_rules(json_w *j, const char *const *rules) {
    json_key(j, "rules");
    json_arr_open(j);
    for (uint32_t k = 0; k < 4 && rules[k]; k++) json_str(j, rules[k]);
    json_arr_close(j);
}

static int print_json(const fix_args *a, const lg_fix_report *r, size_t size, const char *hex,
                      const cli_split_out *sp, const char *split_path) {
    json_w j;
    json_init(&j, stdout);
    json_obj_open(&j);
    json_key_str(&j, "verb", "fix");
    json_key_str(&j, "model", a->model);
    json_key_bool(&j, "ok", sp ? sp->all_gpu_ready : r->ready_after);
    json_key_str(&j, "output", a->out);
    if (hex) {
        json_key_uint(&j, "size", size);
        json_key_str(&j, "sha256", hex);
    }
    json_key_str(&j, "target", lg_target_name(r->target));
    json_key_str(&j, "gpu", lg_gpu_name(r->gpu));
    json_key_uint(&j, "n_rounds", r->rounds);
    json_key_uint(&j, "n_inputs_shaped", r->n_shaped);
    json_key_uint(&j, "n_inputs_frozen", r->n_frozen);
    json_key(&j, "before");
    json_obj_open_flat(&j);
    json_key_bool(&j, "ok", r->ready_before); /* check's verdict: ready */
    json_key_uint(&j, "n_ops", r->ops_before);
    json_key_uint(&j, "n_blockers", r->blockers_before);
    json_key_uint(&j, "n_warnings", r->warnings_before);
    json_obj_close(&j);
    json_key(&j, "after");
    json_obj_open_flat(&j);
    json_key_bool(&j, "ok", r->ready_after);
    json_key_uint(&j, "n_ops", r->ops_after);
    json_key_uint(&j, "n_blockers", r->blockers_after);
    json_key_uint(&j, "n_warnings", r->warnings_after);
    json_obj_close(&j);
    json_key(&j, "steps");
    json_arr_open(&j);
    uint32_t w = 0;
    for (uint32_t i = 0; i < r->n_steps; i++) {
        const lg_fix_step *s = &r->steps[i];
        const lg_pass_result *p = &s->result;
        json_obj_open(&j);
        json_key_uint(&j, "round", s->round);
        json_key_str(&j, "pass", p->pass);
        json_rules(&j, s->rules);
        json_key_bool(&j, "exact", p->exact);
        json_key_bool(&j, "reorders_sums", p->reorders);
        json_key_uint(&j, "n_rewrites", p->delta.applied);
        json_key_uint(&j, "n_ops_before", p->ops_before);
        json_key_uint(&j, "n_ops_after", p->ops_after);
        json_key_uint(&j, "n_tensors_folded", p->delta.tensors_folded);
        json_key(&j, "parity");
        json_parity(&j, p->parity_measured, p->n_cases, p->max_abs, p->max_rel, p->min_pearson, p->bound);
        json_key(&j, "sites");
        json_arr_open(&j);
        for (; w < r->n_rewrites && r->rewrites[w].round == s->round && strcmp(r->rewrites[w].pass, p->pass) == 0; w++) {
            const lg_pass_site *site = &r->rewrites[w].site;
            json_obj_open_flat(&j);
            json_key_uint(&j, "op", site->op);
            json_key_str(&j, "op_name", code_name(site->code));
            json_key_str(&j, "tensor", site->tensor);
            json_obj_close(&j);
        }
        json_arr_close(&j);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_key(&j, "parity");
    json_parity(&j, r->parity_measured, r->n_cases, r->max_abs, r->max_rel, r->min_pearson, -1);
    json_key(&j, "left");
    json_arr_open(&j);
    for (uint32_t i = 0; i < r->n_left; i++) {
        const lg_fix_left *l = &r->left[i];
        json_obj_open_flat(&j);
        json_key_str(&j, "rule", l->rule);
        if (l->op >= 0) json_key_int(&j, "op", l->op);
        else { json_key(&j, "op"); json_null(&j); }
        json_key_str(&j, "op_name", l->op_name[0] ? l->op_name : NULL);
        json_key_str(&j, "reason", l->reason);
        json_key_str(&j, "why", l->why);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    if (r->harden) harden_json(&j, r->harden);
    if (sp) cli_split_json(&j, sp, split_path);
    json_obj_close(&j);
    return json_finish(&j);
}

static void print_rules(const char *const *rules) {
    for (uint32_t k = 0; k < 4 && rules[k]; k++) printf("%s%s", k ? ", " : "", rules[k]);
}

static int print_text(const fix_args *a, const lg_fix_report *r, size_t size, const char *hex,
                      const cli_split_out *sp, const char *split_path) {
    printf("fix ");
    cli_write_path(stdout, a->model);
    printf(" for %s (gpu %s): %u -> %u blocker(s), %u -> %u ops", lg_target_name(r->target),
           lg_gpu_name(r->gpu), r->blockers_before, r->blockers_after, r->ops_before, r->ops_after);
    if (r->n_steps) printf(", %u round%s", r->rounds, r->rounds == 1 ? "" : "s");
    putchar('\n');
    uint32_t w = 0;
    for (uint32_t i = 0; i < r->n_steps; i++) {
        const lg_fix_step *s = &r->steps[i];
        const lg_pass_result *p = &s->result;
        printf("  %-26s ", p->pass);
        if (s->rules[0]) {
            printf("(");
            print_rules(s->rules);
            printf(") ");
        }
        printf("%u rewrite%s, %u -> %u ops, %s", p->delta.applied, p->delta.applied == 1 ? "" : "s",
               p->ops_before, p->ops_after,
               p->exact ? "exact" : p->reorders ? "exact up to the order of fp32 additions" : "approximate");
        if (p->parity_measured)
            printf("; parity so far %.2g of output magnitude over %u inputs", p->max_rel, p->n_cases);
        else
            printf("; parity %s", p->parity_note);
        putchar('\n');
        uint32_t shown = 0, total = 0;
        for (; w < r->n_rewrites && r->rewrites[w].round == s->round && strcmp(r->rewrites[w].pass, p->pass) == 0; w++) {
            total++;
            if (shown >= MAX_SITES_TEXT) continue;
            const lg_pass_site *site = &r->rewrites[w].site;
            printf("      op %u %s \"%s\"\n", site->op, code_name(site->code), site->tensor);
            shown++;
        }
        if (total > shown) printf("      ... and %u more (--json lists every site)\n", total - shown);
    }
    if (r->harden) harden_text(r->harden);
    else if (r->harden_note[0]) printf("fp16 hardening: %s\n", r->harden_note);
    char against[96] = "the original";
    if (r->n_shaped || r->n_frozen)
        snprintf(against, sizeof against, "the original with %u input(s) shaped and %u frozen", r->n_shaped, r->n_frozen);
    if (r->parity_measured)
        printf("parity against %s: max abs %.3g, max %.3g of output magnitude, min Pearson %.9g over %u inputs\n",
               against, r->max_abs, r->max_rel, r->min_pearson, r->n_cases);
    else if (r->n_steps)
        printf("parity against %s: %s\n", against, r->parity_note);
    /* the blockers left, grouped by rule (first appearance order) */
    if (r->n_left) printf("left (%u blocker%s):\n", r->n_left, r->n_left == 1 ? "" : "s");
    for (uint32_t i = 0; i < r->n_left; i++) {
        const lg_fix_left *l = &r->left[i];
        bool first = true;
        for (uint32_t k = 0; k < i && first; k++) first = strcmp(r->left[k].rule, l->rule) != 0;
        if (!first) continue;
        uint32_t n = 0;
        for (uint32_t k = i; k < r->n_left; k++) n += strcmp(r->left[k].rule, l->rule) == 0;
        printf("  %s (%u): %s\n", l->rule, n, l->reason);
        printf("      at");
        uint32_t shown = 0;
        for (uint32_t k = i; k < r->n_left; k++) {
            const lg_fix_left *x = &r->left[k];
            if (strcmp(x->rule, l->rule) != 0) continue;
            bool dup = false;
            for (uint32_t q = i; q < k && !dup; q++)
                dup = strcmp(r->left[q].rule, l->rule) == 0 && r->left[q].op == x->op;
            if (dup) continue;
            if (shown == MAX_SITES_TEXT) {
                printf(" ... (%u more)", n - shown);
                break;
            }
            if (x->op >= 0) printf("%s op %d %s", shown ? "," : "", x->op, x->op_name);
            else printf("%s the model", shown ? "," : "");
            shown++;
        }
        putchar('\n');
        for (uint32_t k = i; k < r->n_left; k++)
            if (strcmp(r->left[k].rule, l->rule) == 0 && r->left[k].declined)
                printf("      op %d: %s\n", r->left[k].op, r->left[k].why);
        if (!l->declined) printf("      why: %s\n", l->why);
    }
    if (sp) {
        cli_split_text(sp, split_path);
        printf("%s for %s: %s\n", sp->all_gpu_ready ? "SPLIT READY" : "SPLIT NOT READY", lg_target_name(r->target),
               sp->all_gpu_ready ? "every GPU part runs fully on the GPU"
               : sp->split->n_gpu_ops ? "a GPU part still has blockers" : "no part runs on the GPU");
        return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
    }
    printf("%s for %s\n", r->ready_after ? "READY" : "NOT READY", lg_target_name(r->target));
    fputs("wrote ", stdout);
    cli_write_path(stdout, a->out);
    printf(" (%zu bytes, sha256 %s)\n", size, hex);
    return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
}


static const char *exactness(const lg_pass *p) {
    return p->exact ? "exact" : p->reorders ? "exact up to fp32 rounding order" : "approximate (--allow-approx)";
}

/* The rules and the passes that remove them (the README's fix table comes from this). */
static int list_passes(bool md, bool as_json) {
    uint32_t nr = 0;
    const lg_rule_info *rules = lg_rules(&nr);
    if (as_json) {
        json_w j;
        json_init(&j, stdout);
        json_obj_open(&j);
        json_key_str(&j, "verb", "fix");
        json_key(&j, "model");
        json_null(&j);
        json_key_bool(&j, "ok", true);
        json_key(&j, "passes");
        json_arr_open(&j);
        for (uint32_t i = 0; i < lg_pass_count(); i++) {
            const lg_pass *p = lg_pass_at(i);
            json_obj_open_flat(&j);
            json_key_str(&j, "pass", p->name);
            json_key_str(&j, "summary", p->summary);
            json_key_bool(&j, "exact", p->exact);
            json_key_bool(&j, "reorders_sums", p->reorders);
            json_key_double(&j, "bound", p->exact ? 1e-6 : p->bound);
            json_rules(&j, p->removes);
            json_obj_close(&j);
        }
        json_arr_close(&j);
        json_key(&j, "rules");
        json_arr_open(&j);
        for (uint32_t r = 0; r < nr; r++) {
            const char *why = lg_fix_why(rules[r].id);
            if (!why) continue;
            json_obj_open_flat(&j);
            json_key_str(&j, "rule", rules[r].id);
            json_key_str(&j, "severity", lg_severity_name(rules[r].severity));
            json_key_str(&j, "why", why);
            json_obj_close(&j);
        }
        json_arr_close(&j);
        json_obj_close(&j);
        return json_finish(&j) ? cli_error("cannot write the report") : CLI_OK;
    }
    if (md) {
        printf("| rule | passes that remove it | exact? | what they do not cover, and what to do instead |\n");
        printf("|---|---|---|---|\n");
    }
    for (uint32_t r = 0; r < nr; r++) {
        const char *id = rules[r].id, *why = lg_fix_why(id);
        char passes[512] = "", ex[256] = "";
        size_t lp = 0, le = 0;
        for (uint32_t i = 0; i < lg_pass_count(); i++) {
            const lg_pass *p = lg_pass_at(i);
            bool hit = false;
            for (uint32_t k = 0; k < 4 && p->removes[k]; k++) hit |= strcmp(p->removes[k], id) == 0;
            if (!hit) continue;
            lp += (size_t)snprintf(passes + lp, lp < sizeof passes ? sizeof passes - lp : 0, "%s%s%s%s", lp ? ", " : "",
                                   md ? "`" : "", p->name, md ? "`" : "");
            const char *e = p->exact ? "exact" : p->reorders ? "rounding order" : "approximate";
            if (!strstr(ex, e))
                le += (size_t)snprintf(ex + le, le < sizeof ex ? sizeof ex - le : 0, "%s%s", le ? ", " : "", e);
        }
        if (!why && !passes[0]) continue;
        if (md)
            printf("| `%s` (%s) | %s | %s | %s |\n", id, lg_severity_name(rules[r].severity), passes[0] ? passes : "none",
                   ex[0] ? ex : "-", why ? why : "");
        else
            printf("%s (%s): %s%s%s\n    %s\n", id, lg_severity_name(rules[r].severity), passes[0] ? passes : "no pass",
                   ex[0] ? "; " : "", ex, why ? why : "");
    }
    if (!md) {
        printf("\npasses:\n");
        for (uint32_t i = 0; i < lg_pass_count(); i++) {
            const lg_pass *p = lg_pass_at(i);
            printf("  %-34s %s: %s\n", p->name, exactness(p), p->summary);
        }
    }
    return fflush(stdout) != 0 ? cli_error("cannot write the list") : CLI_OK;
}

/* --calib DIR: input sets for the fp16 hardening gate (cli_calib_load's layout). */
static int load_calib(const fix_args *a, const lg_model *m, cli_calib *cal) {
    lg_interp *it = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_error err;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) return cli_lib_error(a->model, &err);
    uint32_t n = lg_interp_n_inputs(it);
    lg_tensor_view *views = calloc(n ? n : 1, sizeof *views);
    int rc = views ? 0 : cli_error("out of memory");
    for (uint32_t i = 0; !rc && i < n; i++) lg_interp_input(it, i, &views[i]);
    if (!rc) rc = cli_calib_load(views, n, a->calib, 4096, cal);
    if (!rc && isatty(2)) fprintf(stderr, "fix: %u calibration input set(s) from %s\n", cal->n, a->calib);
    free(views);
    lg_interp_free(it);
    return rc;
}

/* --outputs T1,T2,...: the model cut at those tensors. */
static int cut(const fix_args *a, lg_model **m) {
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", a->outputs) >= (int)sizeof buf) return cli_error("--outputs: too long");
    const char *names[256];
    uint32_t n = 0;
    for (char *t = strtok(buf, ","); t && n < 256; t = strtok(NULL, ",")) names[n++] = t;
    if (!n) return cli_error("--outputs takes tensor names separated by commas");
    lg_model *c = NULL;
    lg_error err;
    lg_status st = lg_model_cut(*m, names, n, &c, &err);
    lg_model_free(*m);
    *m = NULL;
    if (st != LG_OK) return cli_lib_error(a->model, &err);
    *m = c;
    return CLI_OK;
}

/* The golden input from --input (the rest the pattern fill); float inputs only. */
static int golden_inputs(const fix_args *a, const lg_model *m, cli_inputs *in, bool *have) {
    *have = false;
    if (!a->n_inputs) return CLI_OK;
    const lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t i = 0; i < sg->n_inputs; i++)
        if (sg->tensors[sg->inputs[i]].type != LG_FLOAT32)
            return cli_error("%s: --input needs float32 inputs (input %u is not)", a->model, i);
    lg_interp *it = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_error err;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) return cli_lib_error(a->model, &err);
    int rc = cli_inputs_make(it, a->inputs, a->n_inputs, "pattern", in);
    lg_interp_free(it);
    *have = rc == CLI_OK;
    return rc;
}

int cmd_fix(const cli_verb *v, int argc, char **argv) {
    fix_args a;
    memset(&a, 0, sizeof a);
    const cli_flag flags[] = {
        {"--output", "-o", NULL, &a.out, NULL, NULL, 0},
        {"--target", "-t", NULL, &a.target, NULL, NULL, 0},
        {"--gpu", NULL, NULL, &a.gpu, NULL, NULL, 0},
        {"--input", "-i", NULL, NULL, a.inputs, &a.n_inputs, 64},
        {"--allow-approx", NULL, &a.allow_approx, NULL, NULL, NULL, 0},
        {"--split", NULL, &a.split, NULL, NULL, NULL, 0},
        {"--warnings", NULL, &a.warnings, NULL, NULL, NULL, 0},
        {"--io-int32", NULL, &a.io_int32, NULL, NULL, NULL, 0},
        {"--pass", NULL, NULL, NULL, a.passes, &a.n_passes, 32},
        {"--harden-fp16", NULL, NULL, &a.harden, NULL, NULL, 0},
        {"--input-shape", NULL, NULL, NULL, a.shapes, &a.n_shapes, 32},
        {"--freeze", NULL, NULL, NULL, a.freezes, &a.n_freezes, 32},
        {"--calib", NULL, NULL, &a.calib, NULL, NULL, 0},
        {"--list", NULL, &a.list, NULL, NULL, NULL, 0},
        {"--markdown", NULL, &a.markdown, NULL, NULL, NULL, 0},
        {"--outputs", NULL, NULL, &a.outputs, NULL, NULL, 0},
        {"--no-prove", NULL, &a.no_prove, NULL, NULL, NULL, 0},
        {"--evidence", NULL, NULL, &a.ev_dir, NULL, NULL, 0},
        {"--evidence-runs", NULL, NULL, &a.ev_runs, NULL, NULL, 0},
        {"--force", NULL, &a.force, NULL, NULL, NULL, 0},
        {"--json", NULL, &a.json, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (a.list) {
        if (n_pos || a.out) return cli_usage_error(v, "--list takes no MODEL or -o");
        return list_passes(a.markdown, a.json);
    }
    if (a.markdown) return cli_usage_error(v, "--markdown goes with --list");
    if (n_pos != 1) return cli_usage_error(v, "missing MODEL");
    if (!a.out) return cli_usage_error(v, "missing -o OUT");
    a.model = pos[0];
    lg_fix_options o;
    memset(&o, 0, sizeof o);
    if (a.target) {
        int t = lg_target_from_name(a.target);
        if (t < 0) return cli_usage_error(v, "unknown target '%s' (mldrift or classic)", a.target);
        o.target = (lg_target)t;
    }
    if (a.gpu) {
        int g = lg_gpu_from_name(a.gpu);
        if (g < 0) return cli_usage_error(v, "unknown GPU family '%s' (any, mali, adreno or webgpu)", a.gpu);
        if (g == LG_GPU_WEBGPU && o.target == LG_TARGET_CLASSIC)
            return cli_usage_error(v, "--gpu webgpu goes with --target mldrift");
        o.gpu = (lg_gpu)g;
    }
    o.allow_approx = a.allow_approx;
    o.warnings = a.warnings;
    o.io_int32 = a.io_int32;
    o.passes = a.passes;
    o.n_passes = (uint32_t)a.n_passes;
    o.harden = LG_HARDEN_AUTO;
    if (a.harden) {
        int hm = lg_harden_mode_from_name(a.harden);
        if (hm < 0) return cli_usage_error(v, "--harden-fp16 takes auto, always or off");
        o.harden = (lg_harden_mode)hm;
    }
    o.no_prove = a.no_prove;
    o.n_random = 2;
    o.seed = 1;
    if (cli_same_file(a.model, a.out)) return cli_error("%s: refusing to write over the input file", a.out);
    if (cli_output_check(a.out, a.force)) return CLI_ERROR;
    char split_path[4200];
    cli_split_json_path(a.out, split_path, sizeof split_path);
    if (a.split && cli_output_check(split_path, a.force)) return CLI_ERROR;
    if (a.split && a.ev_dir) return cli_usage_error(v, "--evidence does not go with --split (a record holds one candidate)");
    int ev_n = 0;
    if (cli_evidence_begin(a.ev_dir, a.ev_runs, &ev_n)) return CLI_ERROR;

    /* --input-shape / --freeze */
    lg_fix_shape shapes[32];
    int64_t dims[32][8];
    char snames[32][256];
    for (int i = 0; i < a.n_shapes; i++) {
        uint32_t r = 0;
        if (cli_parse_shape(a.shapes[i], snames[i], sizeof snames[i], dims[i], &r)) return CLI_ERROR;
        shapes[i] = (lg_fix_shape){snames[i], dims[i], r};
    }
    o.shapes = shapes;
    o.n_shapes = (uint32_t)a.n_shapes;
    lg_fix_freeze fz[32];
    lg_npy arrays[32];
    char fnames[32][256];
    int n_arrays = 0;
    for (int i = 0; i < a.n_freezes; i++) {
        const char *eq = strchr(a.freezes[i], '=');
        if (!eq || eq == a.freezes[i] || !eq[1] || (size_t)(eq - a.freezes[i]) >= sizeof fnames[i]) {
            for (int k = 0; k < n_arrays; k++) lg_npy_free(&arrays[k]);
            return cli_usage_error(v, "--freeze takes NAME=FILE.npy, not '%s'", a.freezes[i]);
        }
        snprintf(fnames[i], sizeof fnames[i], "%.*s", (int)(eq - a.freezes[i]), a.freezes[i]);
        lg_error e;
        if (lg_npy_read_file(eq + 1, &arrays[i], &e) != LG_OK) {
            for (int k = 0; k < n_arrays; k++) lg_npy_free(&arrays[k]);
            return cli_error("%s", e.msg);
        }
        n_arrays++;
        fz[i] = (lg_fix_freeze){fnames[i], arrays[i].type, arrays[i].data,
                                (uint64_t)arrays[i].numel * (uint64_t)((lg_dtype_bits(arrays[i].type) + 7) / 8)};
    }
    o.freeze = fz;
    o.n_freeze = (uint32_t)a.n_freezes;

    lg_model *m = NULL;
    if ((rc = cli_load_model(a.model, &m)) != CLI_OK) {
        for (int k = 0; k < n_arrays; k++) lg_npy_free(&arrays[k]);
        return rc;
    }
    if (a.outputs && (rc = cut(&a, &m)) != CLI_OK) return rc;
    cli_inputs in = {0};
    bool have = false;
    lg_model *fixed = NULL;
    lg_fix_report *rep = NULL;
    lg_error err;
    cli_calib cal;
    memset(&cal, 0, sizeof cal);
    rc = golden_inputs(&a, m, &in, &have);
    if (rc == CLI_OK && a.calib) rc = load_calib(&a, m, &cal);
    if (rc == CLI_OK) {
        if (have) o.golden = (const float *const *)in.data;
        o.cases = cal.ptrs;
        o.n_cases = cal.n;
        if (lg_fix(m, &o, &fixed, &rep, &err) != LG_OK) rc = cli_lib_error(a.model, &err);
    }
    cli_inputs_free(&in);
    cli_calib_free(&cal);
    for (int k = 0; k < n_arrays; k++) lg_npy_free(&arrays[k]);
    if (rc != CLI_OK) {
        lg_model_free(m);
        return rc;
    }
    if (a.split && !rep->ready_after) {
        lg_check_options co;
        memset(&co, 0, sizeof co);
        co.target = o.target;
        co.gpu = o.gpu;
        cli_split_out sp;
        rc = cli_fix_split(a.model, m, fixed, &co, a.out, a.force, &sp);
        lg_model_free(m);
        lg_model_free(fixed);
        int prc = 0;
        if (rc == CLI_OK) prc = a.json ? print_json(&a, rep, 0, NULL, &sp, split_path) : print_text(&a, rep, 0, NULL, &sp, split_path);
        bool ok = rc == CLI_OK && sp.all_gpu_ready;
        cli_split_out_free(&sp);
        lg_fix_report_free(rep);
        if (rc != CLI_OK) return rc;
        if (prc != 0) return cli_error("writing the report failed");
        return ok ? CLI_OK : CLI_FINDINGS;
    }
    lg_model_free(m);
    size_t size = 0;
    char hex[65];
    int wrc = cli_write_model(fixed, a.out, a.force, false, &size, hex);
    lg_model_free(fixed);
    if (wrc != CLI_OK) {
        lg_fix_report_free(rep);
        return wrc;
    }
    if (a.ev_dir && cli_evidence_fix(&(cli_evidence_fix_flags){a.ev_dir, ev_n, argc, argv, a.model, a.out, a.calib,
                                                      a.allow_approx, a.warnings, a.io_int32, a.outputs, a.shapes,
                                                      a.n_shapes, a.freezes, a.n_freezes}, rep) != CLI_OK) {
        lg_fix_report_free(rep);
        return CLI_ERROR;
    }
    int prc = a.json ? print_json(&a, rep, size, hex, NULL, NULL) : print_text(&a, rep, size, hex, NULL, NULL);
    bool ready = rep->ready_after;
    lg_fix_report_free(rep);
    if (prc != 0) return cli_error("writing the report failed");
    return ready ? CLI_OK : CLI_FINDINGS;
}
