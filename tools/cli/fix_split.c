/* fix --split (fix_split.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fix_split.h"
#include "lg/compare.h"
#include "lg/run.h"

/* "dir/x.tflite" -> stem "dir/x" */
static void stem(const char *out, char *buf, size_t n) {
    size_t l = strlen(out);
    if (l > 7 && strcmp(out + l - 7, ".tflite") == 0) l -= 7;
    snprintf(buf, n, "%.*s", (int)l, out);
}

void cli_split_json_path(const char *out, char *buf, size_t n) {
    char s[4096];
    stem(out, s, sizeof s);
    snprintf(buf, n, "%s.split.json", s);
}

/* Part file names: the first GPU part is OUT itself, later ones OUT-stem.gpuK.tflite; one
   CPU part is OUT-stem.cpu.tflite, several OUT-stem.cpuK.tflite (K from 1 in run order). */
static void part_paths(const char *out, const lg_split *s, char (*files)[4096]) {
    char st[4000];
    stem(out, st, sizeof st);
    uint32_t n_cpu = 0, g = 0, c = 0;
    for (uint32_t i = 0; i < s->n_parts; i++) n_cpu += !s->parts[i].gpu;
    for (uint32_t i = 0; i < s->n_parts; i++) {
        if (s->parts[i].gpu) {
            if (g++ == 0) snprintf(files[i], 4096, "%s", out);
            else snprintf(files[i], 4096, "%s.gpu%u.tflite", st, g);
        } else {
            c++;
            if (n_cpu == 1) snprintf(files[i], 4096, "%s.cpu.tflite", st);
            else snprintf(files[i], 4096, "%s.cpu%u.tflite", st, c);
        }
    }
}

static const char *base(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static void names_json(json_w *j, const char *key, const lg_model *m, bool inputs) {
    const lg_subgraph *sg = &m->subgraphs[0];
    json_key(j, key);
    json_arr_open_flat(j);
    uint32_t n = inputs ? sg->n_inputs : sg->n_outputs;
    for (uint32_t k = 0; k < n; k++) json_str(j, sg->tensors[inputs ? sg->inputs[k] : sg->outputs[k]].name);
    json_arr_close(j);
}

static int write_json(const char *path, const char *model_path, const lg_check_options *co, const cli_split_out *r,
                      bool force) {
    FILE *f = cli_output_fopen(path, force);
    if (!f) return CLI_ERROR;
    json_w j;
    json_init(&j, f);
    json_obj_open(&j);
    json_key_int(&j, "litegpu_split", 1);
    json_key_str(&j, "model", model_path);
    json_key_str(&j, "target", lg_target_name(co->target));
    json_key_str(&j, "gpu", lg_gpu_name(co->gpu));
    const lg_split *s = r->split;
    json_key(&j, "inputs");
    json_arr_open_flat(&j);
    for (uint32_t k = 0; k < s->n_inputs; k++) json_str(&j, s->input_names[k]);
    json_arr_close(&j);
    json_key(&j, "outputs");
    json_arr_open_flat(&j);
    for (uint32_t k = 0; k < s->n_outputs; k++) json_str(&j, s->output_names[k]);
    json_arr_close(&j);
    json_key(&j, "parts");
    json_arr_open(&j);
    for (uint32_t i = 0; i < s->n_parts; i++) {
        const lg_split_part *p = &s->parts[i];
        json_obj_open(&j);
        json_key_str(&j, "file", base(r->files[i]));
        json_key_str(&j, "place", p->gpu ? "gpu" : "cpu");
        json_key_uint(&j, "n_ops", p->n_ops);
        if (p->gpu) json_key_bool(&j, "ok", p->ready);
        names_json(&j, "inputs", p->model, true);
        names_json(&j, "outputs", p->model, false);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_obj_close(&j);
    int bad = json_finish(&j);
    if (fclose(f) != 0) bad = 1;
    return bad ? cli_error("%s: write failed", path) : 0;
}

static void chain_parity(const lg_model *orig, const lg_split *s, cli_split_out *r) {
    const lg_model **parts = calloc(s->n_parts, sizeof *parts);
    if (!parts) return;
    for (uint32_t i = 0; i < s->n_parts; i++) parts[i] = s->parts[i].model;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_chain *a = NULL, *b = NULL;
    lg_error err;
    lg_models_options mo = {LG_PREC_F32, 2, 1, 0, 0, 1, LG_INT_TFLITE};
    lg_models_report *rep = NULL;
    lg_status st = lg_chain_create(&orig, 1, NULL, 0, NULL, 0, &ro, &a, &err);
    if (st == LG_OK)
        st = lg_chain_create(parts, s->n_parts, (const char *const *)s->input_names, s->n_inputs,
                             (const char *const *)s->output_names, s->n_outputs, &ro, &b, &err);
    if (st == LG_OK) st = lg_compare_chains(orig, a, b, NULL, &mo, &rep, &err);
    if (st == LG_OK) {
        r->parity_measured = true;
        r->n_cases = rep->n_cases;
        r->max_abs = rep->worst_max_abs;
        r->max_rel = rep->worst_max_rel;
    } else {
        snprintf(r->parity_note, sizeof r->parity_note, "not measured: %.140s", err.msg);
    }
    lg_models_report_free(rep);
    lg_chain_free(a);
    lg_chain_free(b);
    free(parts);
}

int cli_fix_split(const char *model_path, const lg_model *orig, const lg_model *fixed,
                  const lg_check_options *co, const char *out, bool force, cli_split_out *r) {
    memset(r, 0, sizeof *r);
    lg_error err;
    if (lg_split_model(fixed, co, 0, &r->split, &err) != LG_OK) return cli_lib_error(model_path, &err);
    const lg_split *s = r->split;
    r->files = calloc(s->n_parts + 1, sizeof *r->files);
    if (!r->files) return cli_error("out of memory");
    part_paths(out, s, r->files);
    uint32_t n_gpu = 0;
    for (uint32_t i = 0; i < s->n_parts; i++) n_gpu += s->parts[i].gpu;
    r->all_gpu_ready = n_gpu > 0; /* nothing on the GPU is not a deployable split */
    for (uint32_t i = 0; i < s->n_parts; i++) {
        if (s->parts[i].gpu && !s->parts[i].ready) r->all_gpu_ready = false;
        if (i > 0) r->n_boundary += s->parts[i].model->subgraphs[0].n_inputs;
    }
    for (uint32_t i = 0; i < s->n_parts; i++) {
        if (i > 0 && cli_output_check(r->files[i], force)) return CLI_ERROR;
        lg_write_options wo = {.force = force};
        lg_status st = lg_tflite_write_file(s->parts[i].model, r->files[i], &wo, &err);
        if (st == LG_ERR_EXISTS) return cli_error("%s: output exists (use --force to replace it)", r->files[i]);
        if (st != LG_OK) return cli_lib_error(r->files[i], &err);
    }
    chain_parity(orig, s, r);
    char jp[4200];
    cli_split_json_path(out, jp, sizeof jp);
    return write_json(jp, model_path, co, r, force);
}

void cli_split_out_free(cli_split_out *r) {
    lg_split_free(r->split);
    free(r->files);
    memset(r, 0, sizeof *r);
}

void cli_split_text(const cli_split_out *r, const char *json_path) {
    const lg_split *s = r->split;
    printf("split: %u part%s (%u ops on the GPU, %u on the CPU), %u tensor%s passed between them; ",
           s->n_parts, s->n_parts == 1 ? "" : "s", s->n_gpu_ops, s->n_cpu_ops, r->n_boundary,
           r->n_boundary == 1 ? "" : "s");
    fputs("chain in ", stdout);
    cli_write_path(stdout, json_path);
    putchar('\n');
    for (uint32_t i = 0; i < s->n_parts; i++) {
        const lg_split_part *p = &s->parts[i];
        printf("  part %u %s %u op%s -> ", i, p->gpu ? "GPU" : "CPU", p->n_ops, p->n_ops == 1 ? "" : "s");
        cli_write_path(stdout, r->files[i]);
        if (p->gpu) printf(p->ready ? " (ready)" : " (NOT READY: %u blocker(s))", p->n_blockers);
        putchar('\n');
    }
    if (r->parity_measured)
        printf("chain parity against the original: max abs %.3g, max %.3g of output magnitude over %u inputs\n",
               r->max_abs, r->max_rel, r->n_cases);
    else
        printf("chain parity against the original: %s\n", r->parity_note);
}

void cli_split_json(json_w *j, const cli_split_out *r, const char *json_path) {
    const lg_split *s = r->split;
    json_key(j, "split");
    json_obj_open(j);
    json_key_str(j, "file", json_path);
    json_key_uint(j, "n_parts", s->n_parts);
    json_key_uint(j, "n_gpu_ops", s->n_gpu_ops);
    json_key_uint(j, "n_cpu_ops", s->n_cpu_ops);
    json_key_uint(j, "n_boundary", r->n_boundary);
    json_key(j, "parts");
    json_arr_open(j);
    for (uint32_t i = 0; i < s->n_parts; i++) {
        json_obj_open_flat(j);
        json_key_str(j, "file", r->files[i]);
        json_key_str(j, "place", s->parts[i].gpu ? "gpu" : "cpu");
        json_key_uint(j, "n_ops", s->parts[i].n_ops);
        if (s->parts[i].gpu) json_key_bool(j, "ok", s->parts[i].ready);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_key(j, "parity");
    if (r->parity_measured) {
        json_obj_open_flat(j);
        json_key_uint(j, "n_cases", r->n_cases);
        json_key_double(j, "max_abs", r->max_abs);
        json_key_double(j, "max_rel", r->max_rel);
        json_obj_close(j);
    } else {
        json_null(j);
    }
    json_obj_close(j);
}
