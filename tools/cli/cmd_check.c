/* litegpu check: will the model run fully on the GPU; if not, why and what fixes it. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "lg/check.h"
#include "overlay.h"

static void print_tensor_text(const lg_model *m, const lg_subgraph *sg, int32_t t) {
    const lg_tensor *x = &sg->tensors[t];
    printf("%d \"%s\" %s [", t, x->name ? x->name : "", lg_dtype_name(x->type));
    for (uint32_t i = 0; i < x->rank; i++) printf("%s%d", i ? "," : "", x->shape[i]);
    printf("]%s", lg_tensor_buffer(m, x) ? " const" : "");
}

/* A partition's ops as ranges, "ops 0-199, 698-706 (512 ops)": a subset is not contiguous
   (first_op..last_op may hold other partitions' ops), so its own ops are listed. Folded ops
   (no op of either side) between two of its ops do not break a range. */
#define MAX_RANGES_SHOWN 8
static void print_op_ranges(const lg_check_report *r, const lg_partition *pt) {
    printf(pt->n_ops == 1 ? "op " : "ops ");
    uint32_t shown = 0, n_ranges = 0, n_folded = 0;
    for (uint32_t k = 0; k < pt->n_ops;) {
        uint32_t lo = pt->ops[k], hi = lo;
        k++;
        while (k < pt->n_ops) {
            uint32_t next = pt->ops[k], i = hi + 1;
            while (i < next && r->op_place[i] == LG_PLACE_FOLDED) i++;
            if (i != next) break;
            n_folded += next - hi - 1;
            hi = next;
            k++;
        }
        n_ranges++;
        if (shown == MAX_RANGES_SHOWN) continue;
        printf("%s%u", shown ? ", " : "", lo);
        if (hi != lo) printf("-%u", hi);
        shown++;
    }
    if (!pt->n_ops) printf("none");
    if (n_ranges > shown) printf(", ... (%u ranges; ", n_ranges);
    else printf(" (");
    printf("%u op%s", pt->n_ops, pt->n_ops == 1 ? "" : "s");
    if (n_folded) printf(", and %u folded op%s inside the ranges", n_folded, n_folded == 1 ? "" : "s");
    printf(")");
}

/* A family mask as "mali, webgpu" (sep ", ") or "mali and webgpu"; "all" for every family. */
static const char *gpus_text(unsigned gpus, bool prose, char *buf, size_t n) {
    if (gpus == LG_GPUS_ALL) return "all";
    size_t k = 0;
    buf[0] = 0;
    int seen = 0, total = 0;
    for (int g = LG_GPU_ANY + 1; g < LG_GPU_COUNT; g++) total += (gpus & LG_GPU_BIT(g)) != 0;
    for (int g = LG_GPU_ANY + 1; g < LG_GPU_COUNT && k < n; g++) {
        if (!(gpus & LG_GPU_BIT(g))) continue;
        const char *sep = !seen ? "" : prose && seen == total - 1 ? " and " : ", ";
        k += (size_t)snprintf(buf + k, n - k, "%s%s", sep, lg_gpu_name((lg_gpu)g));
        seen++;
    }
    return buf;
}

/* The families as a JSON array of names. */
static void json_gpus(json_w *j, const char *key, unsigned gpus) {
    json_key(j, key);
    json_arr_open_flat(j);
    for (int g = LG_GPU_ANY + 1; g < LG_GPU_COUNT; g++)
        if (gpus & LG_GPU_BIT(g)) json_str(j, lg_gpu_name((lg_gpu)g));
    json_arr_close(j);
}

/* The verdict line names the family when one was chosen (--gpu any prints as before). */
static void print_text(const char *path, const lg_model *m, const lg_check_report *r) {
    const lg_subgraph *sg = &m->subgraphs[r->subgraph];
    char gbuf[64];
    printf("%s: %s for %s", path, r->ready ? "READY" : "NOT READY", lg_target_name(r->target));
    if (r->gpu != LG_GPU_ANY) printf(" on %s", lg_gpu_name(r->gpu));
    printf(": %u blocker(s), %u warning(s); ", r->n_blockers, r->n_warnings);
    if (r->target == LG_TARGET_MLDRIFT && !r->ready)
        printf("%u of %u ops supported, and CompiledModel GPU refuses partial residency",
               r->n_supported_ops + r->n_folded_ops, r->n_ops);
    else
        printf("%u of %u ops on the GPU", r->n_gpu_ops, r->n_ops);
    if (r->n_folded_ops) printf(" (%u folded)", r->n_folded_ops);
    printf(", %u GPU partition(s)\n", r->n_gpu_partitions);

    uint32_t n_rules;
    const lg_rule_info *rules = lg_rules(&n_rules);
    for (uint32_t ri = 0; ri < n_rules; ri++) {
        const lg_rule_info *rule = &rules[ri];
        uint32_t count = 0;
        for (uint32_t i = 0; i < r->n_findings; i++) count += r->findings[i].rule == rule;
        if (!count) continue;
        /* with a family chosen, a rule that is not every family's says whose it is */
        if (r->gpu != LG_GPU_ANY && rule->gpus != LG_GPUS_ALL)
            printf("\n%s (%s, %u; %s only): %s\n", rule->id, lg_severity_name(rule->severity), count,
                   gpus_text(rule->gpus, true, gbuf, sizeof gbuf), rule->title);
        else
            printf("\n%s (%s, %u): %s\n", rule->id, lg_severity_name(rule->severity), count, rule->title);
        printf("  source: %s: %s\n", rule->source_kind, rule->source);
        const char *last_fix = NULL;
        for (uint32_t i = 0; i < r->n_findings; i++) {
            const lg_finding *f = &r->findings[i];
            if (f->rule != rule) continue;
            if (f->op >= 0)
                printf("  op %d %s: %s\n", f->op, lg_op_name(m, &sg->ops[f->op]), f->reason);
            else
                printf("  model: %s\n", f->reason);
            for (uint32_t k = 0; k < f->n_tensors; k++) {
                printf("      tensor ");
                print_tensor_text(m, sg, f->tensors[k]);
                printf("\n");
            }
            if (!last_fix || strcmp(last_fix, f->fix) != 0) printf("    fix: %s\n", f->fix);
            last_fix = f->fix;
        }
    }
    printf("\nsummary: %u/%u ops delegable", r->n_supported_ops + r->n_folded_ops, r->n_ops);
    printf(" (%u folded), %u on the GPU, %u on the CPU; %u partition(s) (%u GPU); %u blocker(s), %u warning(s)\n",
           r->n_folded_ops, r->n_gpu_ops, r->n_cpu_ops, r->n_partitions, r->n_gpu_partitions,
           r->n_blockers, r->n_warnings);
    if (r->n_other_gpu_findings)
        printf("not applied: %u finding(s) of rules for other GPU families only (--gpu any applies every rule)\n",
               r->n_other_gpu_findings);
    if (r->n_gpu_partitions > 1 || (r->n_cpu_ops && r->n_gpu_ops)) {
        for (uint32_t p = 0; p < r->n_partitions; p++) {
            const lg_partition *pt = &r->partitions[p];
            printf("  partition %u: ", p);
            print_op_ranges(r, pt);
            printf(", %s\n", pt->gpu ? (pt->delegated ? "GPU" : "GPU-able but left on the CPU (not the largest)") : "CPU");
        }
    }
    if (r->target == LG_TARGET_MLDRIFT && !r->ready)
        printf("CompiledModel GPU needs every op on the GPU: fix the blockers above.\n");
}

static void json_tensor(json_w *j, const lg_model *m, const lg_subgraph *sg, int32_t t) {
    const lg_tensor *x = &sg->tensors[t];
    json_obj_open_flat(j);
    json_key_int(j, "index", t);
    json_key_str(j, "name", x->name ? x->name : "");
    json_key_str(j, "dtype", lg_dtype_name(x->type));
    json_key(j, "shape");
    json_arr_open(j);
    for (uint32_t i = 0; i < x->rank; i++) json_int(j, x->shape[i]);
    json_arr_close(j);
    json_key_bool(j, "constant", lg_tensor_buffer(m, x) != NULL);
    json_obj_close(j);
}

static int print_json(const char *path, const lg_model *m, const lg_check_report *r) {
    const lg_subgraph *sg = &m->subgraphs[r->subgraph];
    json_w j;
    json_init(&j, stdout);
    json_obj_open(&j);
    json_key_str(&j, "verb", "check");
    json_key_str(&j, "model", path);
    json_key_bool(&j, "ok", r->ready);
    json_key_str(&j, "target", lg_target_name(r->target));
    json_key_str(&j, "gpu", lg_gpu_name(r->gpu));
    json_key(&j, "summary");
    json_obj_open(&j);
    json_key_uint(&j, "subgraph", r->subgraph);
    json_key_uint(&j, "n_ops", r->n_ops);
    json_key_uint(&j, "n_delegable_ops", r->n_supported_ops + r->n_folded_ops);
    json_key_uint(&j, "n_gpu_ops", r->n_gpu_ops);
    json_key_uint(&j, "n_folded_ops", r->n_folded_ops);
    json_key_uint(&j, "n_cpu_ops", r->n_cpu_ops);
    json_key_uint(&j, "n_partitions", r->n_partitions);
    json_key_uint(&j, "n_gpu_partitions", r->n_gpu_partitions);
    json_key_uint(&j, "n_blockers", r->n_blockers);
    json_key_uint(&j, "n_warnings", r->n_warnings);
    json_key_uint(&j, "n_other_gpu_findings", r->n_other_gpu_findings);
    json_obj_close(&j);
    json_key(&j, "findings");
    json_arr_open(&j);
    for (uint32_t i = 0; i < r->n_findings; i++) {
        const lg_finding *f = &r->findings[i];
        json_obj_open(&j);
        json_key_str(&j, "rule", f->rule->id);
        json_key_str(&j, "severity", lg_severity_name(f->rule->severity));
        json_key_str(&j, "target", lg_target_name(r->target));
        json_gpus(&j, "gpus", f->rule->gpus);
        json_key_int(&j, "subgraph", f->subgraph);
        json_key_int(&j, "op", f->op);
        json_key_str(&j, "op_name", f->op >= 0 ? lg_op_name(m, &sg->ops[f->op]) : NULL);
        json_key(&j, "tensors");
        json_arr_open(&j);
        for (uint32_t k = 0; k < f->n_tensors; k++) json_tensor(&j, m, sg, f->tensors[k]);
        json_arr_close(&j);
        json_key_str(&j, "reason", f->reason);
        json_key_str(&j, "fix", f->fix);
        json_key_str(&j, "source_kind", f->rule->source_kind);
        json_key_str(&j, "source", f->rule->source);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_key(&j, "partitions");
    json_arr_open(&j);
    for (uint32_t p = 0; p < r->n_partitions; p++) {
        const lg_partition *pt = &r->partitions[p];
        json_obj_open(&j);
        json_key_str(&j, "kind", pt->gpu ? "gpu" : "cpu");
        json_key_bool(&j, "delegated", pt->delegated);
        json_key_uint(&j, "n_ops", pt->n_ops);
        json_key_uint(&j, "first_op", pt->first_op);
        json_key_uint(&j, "last_op", pt->last_op);
        json_key(&j, "ops");
        json_arr_open_flat(&j);
        for (uint32_t k = 0; k < pt->n_ops; k++) json_uint(&j, pt->ops[k]);
        json_arr_close(&j);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_obj_close(&j);
    return json_finish(&j);
}

/* --overlay: each op with a finding gets its worst severity ("blocker" over "warning", the
   strings of --json's findings[].severity), red or orange; ops without findings and findings
   about the whole model (no op) are not in it. Keyed by op index (overlay.h). */
static int check_overlay(const char *out, bool force, const lg_model *m, const lg_check_report *r) {
    uint32_t n_ops = m->subgraphs[r->subgraph].n_ops;
    int *worst = malloc((n_ops ? n_ops : 1) * sizeof *worst); /* -1: no finding, else lg_severity */
    cli_overlay_entry *e = calloc(n_ops ? n_ops : 1, sizeof *e);
    if (!worst || !e) { free(worst); free(e); return cli_error("out of memory"); }
    for (uint32_t op = 0; op < n_ops; op++) worst[op] = -1;
    for (uint32_t i = 0; i < r->n_findings; i++) {
        const lg_finding *f = &r->findings[i];
        if (f->op < 0 || (uint32_t)f->op >= n_ops || f->subgraph != (int32_t)r->subgraph) continue;
        int s = (int)f->rule->severity; /* LG_SEV_BLOCKER (0) is the worse */
        if (worst[f->op] < 0 || s < worst[f->op]) worst[f->op] = s;
    }
    uint32_t n = 0;
    for (uint32_t op = 0; op < n_ops; op++) {
        if (worst[op] < 0) continue;
        cli_overlay_op_key(e[n].key, (int32_t)op);
        e[n].kind = CLI_OVERLAY_STRING;
        e[n].str = lg_severity_name((lg_severity)worst[op]);
        e[n].bg_color = worst[op] == LG_SEV_BLOCKER ? "#e53935" : "#ffb74d";
        n++;
    }
    char gid[512], name[96];
    snprintf(name, sizeof name, "litegpu check: finding severity (%s)", lg_target_name(r->target));
    cli_overlay ov = {cli_overlay_graph_id(m, r->subgraph, gid, sizeof gid), name, e, n, NULL, 0, NULL, 0, true};
    int rc = cli_overlay_write(out, &ov, force);
    free(worst);
    free(e);
    return rc;
}

static const char *targets_text(const lg_rule_info *r) {
    return r->targets == LG_TARGETS_ALL ? "both"
           : (r->targets & LG_TARGET_BIT(LG_TARGET_MLDRIFT)) ? "mldrift" : "classic";
}

/* One rule as JSON members (in an open object): rule, title, severity, targets, gpus, source
   (with_doc: gpus_note and doc too). */
static void json_rule(json_w *j, const lg_rule_info *r, bool with_doc) {
    json_key_str(j, "rule", r->id);
    json_key_str(j, "title", r->title);
    json_key_str(j, "severity", lg_severity_name(r->severity));
    json_key(j, "targets");
    json_arr_open_flat(j);
    for (int t = 0; t < LG_TARGET_COUNT; t++)
        if (r->targets & LG_TARGET_BIT(t)) json_str(j, lg_target_name((lg_target)t));
    json_arr_close(j);
    json_gpus(j, "gpus", r->gpus);
    if (with_doc) json_key_str(j, "gpus_note", r->gpus_note);
    json_key_str(j, "source_kind", r->source_kind);
    json_key_str(j, "source", r->source);
    json_key_str(j, "fix", r->fix);
    if (with_doc) json_key_str(j, "doc", r->doc);
}

/* The common keys of a report that is about no model (--list-rules, --explain). */
static void json_head_no_model(json_w *j) {
    json_key_str(j, "verb", "check");
    json_key(j, "model");
    json_null(j);
    json_key_bool(j, "ok", true);
}

static int explain_rule(const lg_rule_info *r, bool as_json) {
    if (as_json) {
        json_w j;
        json_init(&j, stdout);
        json_obj_open(&j);
        json_head_no_model(&j);
        json_rule(&j, r, true);
        json_obj_close(&j);
        return json_finish(&j);
    }
    printf("%s (%s): %s\n\n", r->id, lg_severity_name(r->severity), r->title);
    printf("targets: %s\n", r->targets == LG_TARGETS_ALL ? "mldrift, classic" : targets_text(r));
    printf("gpus:    %s\n", r->gpus_note);
    printf("source:  %s: %s\n\n%s\n\nfix: %s\n", r->source_kind, r->source, r->doc, r->fix);
    return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
}

static int list_rules(bool markdown, bool as_json) {
    uint32_t n;
    const lg_rule_info *rules = lg_rules(&n);
    if (as_json) {
        json_w j;
        json_init(&j, stdout);
        json_obj_open(&j);
        json_head_no_model(&j);
        json_key_uint(&j, "n_rules", n);
        json_key(&j, "rules");
        json_arr_open(&j);
        for (uint32_t i = 0; i < n; i++) {
            json_obj_open(&j);
            json_rule(&j, &rules[i], false);
            json_obj_close(&j);
        }
        json_arr_close(&j);
        json_obj_close(&j);
        return json_finish(&j);
    }
    if (markdown) {
        printf("| rule | severity | targets | gpus | source kind | source | what | fix |\n");
        printf("|---|---|---|---|---|---|---|---|\n");
    }
    char gbuf[64];
    for (uint32_t i = 0; i < n; i++) {
        const lg_rule_info *r = &rules[i];
        const char *gpus = gpus_text(r->gpus, false, gbuf, sizeof gbuf);
        if (markdown)
            printf("| `%s` | %s | %s | %s | %s | %s | %s | %s |\n", r->id, lg_severity_name(r->severity),
                   targets_text(r), gpus, r->source_kind, r->source, r->title, r->fix);
        else
            printf("%-26s %-8s %-8s %-13s %s\n", r->id, lg_severity_name(r->severity), targets_text(r), gpus, r->title);
    }
    return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
}

int cmd_check(const cli_verb *v, int argc, char **argv) {
    bool json = false, list = false, markdown = false, force = false;
    const char *target_name = NULL, *gpu_name = NULL, *explain = NULL, *max_ops = NULL, *overlay = NULL;
    const cli_flag flags[] = {
        {"--json", NULL, &json, NULL, NULL, NULL, 0},
        {"--target", "-t", NULL, &target_name, NULL, NULL, 0},
        {"--gpu", NULL, NULL, &gpu_name, NULL, NULL, 0},
        {"--explain", NULL, NULL, &explain, NULL, NULL, 0},
        {"--list-rules", NULL, &list, NULL, NULL, NULL, 0},
        {"--markdown", NULL, &markdown, NULL, NULL, NULL, 0},
        {"--max-gpu-ops", NULL, NULL, &max_ops, NULL, NULL, 0},
        {"--overlay", NULL, NULL, &overlay, NULL, NULL, 0},
        {"--force", NULL, &force, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;

    /* the three modes take different options: anything else given is an error */
    if (explain && list) return cli_usage_error(v, "--explain and --list-rules do not go together");
    if ((explain || list) && (n_pos || target_name || gpu_name || max_ops || overlay))
        return cli_usage_error(v, "%s takes no MODEL, --target, --gpu, --max-gpu-ops or --overlay",
                               explain ? "--explain" : "--list-rules");
    if (force && !overlay) return cli_usage_error(v, "--force goes with --overlay");
    if (markdown && !list) return cli_usage_error(v, "--markdown goes with --list-rules");
    if (markdown && json) return cli_usage_error(v, "--markdown and --json do not go together");
    if (explain) {
        const lg_rule_info *r = lg_rule_find(explain);
        if (!r) return cli_error("unknown rule '%s' (see 'litegpu check --list-rules')", explain);
        return explain_rule(r, json) ? cli_error("writing the output failed") : CLI_OK;
    }
    if (list) return list_rules(markdown, json) ? cli_error("writing the output failed") : CLI_OK;
    if (n_pos != 1) return cli_usage_error(v, "expected one MODEL");
    lg_check_options opt = {LG_TARGET_MLDRIFT, 0, LG_GPU_ANY};
    if (target_name) {
        int t = lg_target_from_name(target_name);
        if (t < 0) return cli_usage_error(v, "unknown target '%s' (mldrift or classic)", target_name);
        opt.target = (lg_target)t;
    }
    if (gpu_name) {
        int g = lg_gpu_from_name(gpu_name);
        if (g < 0) return cli_usage_error(v, "unknown GPU family '%s' (any, mali, adreno or webgpu)", gpu_name);
        opt.gpu = (lg_gpu)g;
    }
    if (opt.gpu == LG_GPU_WEBGPU && opt.target == LG_TARGET_CLASSIC)
        return cli_usage_error(v, "--gpu webgpu goes with --target mldrift: the classic delegate has no WebGPU backend");
    if (max_ops) {
        char *end;
        unsigned long x = strtoul(max_ops, &end, 10);
        if (*end || x == 0 || x > 1000000) return cli_usage_error(v, "--max-gpu-ops takes a positive number");
        opt.max_gpu_ops = (uint32_t)x;
    }

    if (overlay && cli_output_check(overlay, force)) return CLI_ERROR;
    cli_file f;
    lg_model *m = NULL;
    if (cli_model_load(pos[0], &f, &m) != 0) return CLI_ERROR;
    lg_check_report *r = NULL;
    lg_error err;
    if (lg_check_model(m, &opt, &r, &err) != LG_OK) {
        rc = cli_lib_error(pos[0], &err);
        lg_model_free(m);
        cli_file_close(&f);
        return rc;
    }
    if (json) {
        if (print_json(pos[0], m, r) != 0) rc = cli_error("cannot write the report");
        else rc = r->ready ? CLI_OK : CLI_FINDINGS;
    } else {
        print_text(pos[0], m, r);
        rc = r->ready ? CLI_OK : CLI_FINDINGS;
    }
    if (overlay && rc != CLI_ERROR && check_overlay(overlay, force, m, r)) rc = CLI_ERROR;
    lg_check_report_free(r);
    lg_model_free(m);
    cli_file_close(&f);
    return rc;
}
