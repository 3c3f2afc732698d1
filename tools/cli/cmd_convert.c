/* litegpu convert IN -o OUT [--force] [--external-buffers] [--json]: read a model (format
   detected from its content), validate it and write it as .tflite, atomically. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "evidence.h"
#include "json.h"
#include "lg/import.h"
#include "lg/passes.h"
#include "lg/util.h"

static void json_optimize(json_w *j, const lg_pass_report *r) {
    json_key(j, "optimize");
    json_obj_open(j);
    json_key_uint(j, "n_ops_before", r->ops_before);
    json_key_uint(j, "n_ops_after", r->ops_after);
    json_key_uint(j, "n_tensors_before", r->tensors_before);
    json_key_uint(j, "n_tensors_after", r->tensors_after);
    json_key_uint(j, "n_buffers_before", r->buffers_before);
    json_key_uint(j, "n_buffers_after", r->buffers_after);
    json_key_uint(j, "n_rounds", r->rounds);
    json_key(j, "passes");
    json_arr_open(j);
    for (uint32_t i = 0; i < r->n_passes; i++) {
        const lg_pass_result *p = &r->passes[i];
        json_obj_open_flat(j);
        json_key_str(j, "pass", p->pass);
        json_key_bool(j, "exact", p->exact);
        json_key_uint(j, "n_rewrites", p->delta.applied);
        json_key_uint(j, "n_ops_removed", p->delta.ops_removed);
        json_key_uint(j, "n_ops_added", p->delta.ops_added);
        json_key_uint(j, "n_tensors_folded", p->delta.tensors_folded);
        json_key_uint(j, "n_skipped", p->delta.skipped);
        json_key_str(j, "note", p->delta.skipped ? p->delta.note : NULL);
        json_key(j, "parity");
        if (p->parity_measured) {
            json_obj_open_flat(j);
            json_key_uint(j, "n_cases", p->n_cases);
            json_key_double(j, "max_abs", p->max_abs);
            json_key_double(j, "max_rel", p->max_rel);
            json_key_double(j, "min_pearson", p->min_pearson);
            json_key_double(j, "bound", p->bound);
            json_obj_close(j);
        } else {
            json_null(j);
        }
        json_obj_close(j);
    }
    json_arr_close(j);
    json_obj_close(j);
}

static void text_optimize(const lg_pass_report *r) {
    printf("optimize: %u -> %u ops, %u -> %u tensors, %u -> %u buffers (fixpoint after %u round%s)\n",
           r->ops_before, r->ops_after, r->tensors_before, r->tensors_after, r->buffers_before,
           r->buffers_after, r->rounds, r->rounds == 1 ? "" : "s");
    for (uint32_t i = 0; i < r->n_passes; i++) {
        const lg_pass_result *p = &r->passes[i];
        printf("  %-18s ", p->pass);
        if (!p->delta.applied) {
            printf("nothing to do");
        } else {
            printf("%u rewrite%s: %u op%s removed", p->delta.applied, p->delta.applied == 1 ? "" : "s",
                   p->delta.ops_removed, p->delta.ops_removed == 1 ? "" : "s");
            if (p->delta.tensors_folded)
                printf(", %u tensor%s folded", p->delta.tensors_folded,
                       p->delta.tensors_folded == 1 ? "" : "s");
            if (p->parity_measured)
                printf("; parity max error %.2g of output magnitude over %u inputs (exact: <= 1e-06)",
                       p->max_rel, p->n_cases);
            else
                printf("; parity %s", p->parity_note);
        }
        if (p->delta.skipped) printf(" (%u left alone: %s)", p->delta.skipped, p->delta.note);
        putchar('\n');
    }
}

static int print_result(bool as_json, const char *in, const char *out, size_t size,
                        const char *hex, const lg_pass_report *opt, const lg_import_report *irep,
                        bool report) {
    if (as_json) {
        json_w j;
        json_init(&j, stdout);
        json_obj_open(&j);
        json_key_str(&j, "verb", "convert");
        json_key_str(&j, "model", in);
        json_key_bool(&j, "ok", true);
        json_key_str(&j, "output", out);
        json_key_uint(&j, "size", size);
        json_key_str(&j, "sha256", hex);
        if (irep) cli_onnx_report_json(&j, irep);
        if (opt) json_optimize(&j, opt);
        json_obj_close(&j);
        return json_finish(&j);
    }
    if (irep && report) cli_onnx_report_text(irep);
    if (opt) text_optimize(opt);
    fputs("wrote ", stdout);
    cli_write_path(stdout, out);
    printf(" (%zu bytes, sha256 %s)\n", size, hex);
    return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
}

/* convert --list-onnx-ops: the op types the importer claims, with their opsets. */
static int list_onnx_ops(bool md, bool as_json) {
    lg_onnx_claim ops[512];
    uint32_t n = lg_onnx_claimed_ops(ops, 512);
    if (as_json) {
        json_w j;
        json_init(&j, stdout);
        json_obj_open(&j);
        json_key_str(&j, "verb", "convert");
        json_key(&j, "model");
        json_null(&j);
        json_key_bool(&j, "ok", true);
        json_key_uint(&j, "n_ops", n);
        json_key(&j, "ops");
        json_arr_open(&j);
        for (uint32_t i = 0; i < n; i++) {
            json_obj_open_flat(&j);
            json_key_str(&j, "op_type", ops[i].op_type);
            json_key_int(&j, "min_opset", ops[i].min_opset);
            json_key_int(&j, "max_opset", ops[i].max_opset);
            json_obj_close(&j);
        }
        json_arr_close(&j);
        json_obj_close(&j);
        return json_finish(&j) ? cli_error("cannot write the list") : CLI_OK;
    }
    if (!md) {
        for (uint32_t i = 0; i < n; i++) printf("%s %d-%d\n", ops[i].op_type, ops[i].min_opset, ops[i].max_opset);
        return CLI_OK;
    }
    /* four (op, opsets) pairs per row: the README's table */
    const int cols = 4;
    for (int c = 0; c < cols; c++) printf("| op | opsets ");
    printf("|\n");
    for (int c = 0; c < cols; c++) printf("|---|---");
    printf("|\n");
    uint32_t rows = (n + cols - 1) / cols;
    for (uint32_t r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            uint32_t i = r + (uint32_t)c * rows;
            if (i < n) printf("| %s | %d-%d ", ops[i].op_type, ops[i].min_opset, ops[i].max_opset);
            else printf("| | ");
        }
        printf("|\n");
    }
    return CLI_OK;
}

int cmd_convert(const cli_verb *v, int argc, char **argv) {
    bool as_json = false, force = false, external = false, optimize = false, no_prove = false;
    bool nhwc_io = false, report = false, list_ops = false, markdown = false;
    const char *out = NULL, *weights = NULL, *ev_dir = NULL, *ev_runs = NULL;
    const char *shapes[64];
    int n_shapes = 0;
    const cli_flag flags[] = {
        {"--input-shape", NULL, NULL, NULL, shapes, &n_shapes, 64},
        {"--nhwc-io", NULL, &nhwc_io, NULL, NULL, NULL, 0},
        {"--weights", NULL, NULL, &weights, NULL, NULL, 0},
        {"--report", NULL, &report, NULL, NULL, NULL, 0},
        {"--output", "-o", NULL, &out, NULL, NULL, 0},
        {"--force", NULL, &force, NULL, NULL, NULL, 0},
        {"--external-buffers", NULL, &external, NULL, NULL, NULL, 0},
        {"--optimize", NULL, &optimize, NULL, NULL, NULL, 0},
        {"--no-prove", NULL, &no_prove, NULL, NULL, NULL, 0},
        {"--json", NULL, &as_json, NULL, NULL, NULL, 0},
        {"--list-onnx-ops", NULL, &list_ops, NULL, NULL, NULL, 0},
        {"--markdown", NULL, &markdown, NULL, NULL, NULL, 0},
        {"--evidence", NULL, NULL, &ev_dir, NULL, NULL, 0},
        {"--evidence-runs", NULL, NULL, &ev_runs, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (list_ops) {
        if (n_pos || out) return cli_usage_error(v, "--list-onnx-ops takes no IN or -o");
        return list_onnx_ops(markdown, as_json);
    }
    if (markdown) return cli_usage_error(v, "--markdown goes with --list-onnx-ops");
    if (n_pos != 1) return cli_usage_error(v, "missing IN");
    if (!out) return cli_usage_error(v, "missing -o OUT");
    if (no_prove && !optimize) return cli_usage_error(v, "--no-prove goes with --optimize");
    const char *in = pos[0];

    /* Input format from the content: .tflite, or ONNX (imported, src/import/) */
    int fmt = cli_model_format(in);
    if (fmt < 0) return CLI_ERROR;
    bool onnx = fmt == CLI_FORMAT_ONNX;
    if (!onnx && (n_shapes || nhwc_io || weights || report))
        return cli_usage_error(v, "--input-shape, --nhwc-io, --weights and --report are for ONNX input");
    if (weights && strcmp(weights, "fp16") != 0 && strcmp(weights, "fp32") != 0)
        return cli_usage_error(v, "--weights takes fp32 or fp16");
    if (cli_same_file(in, out)) return cli_error("%s: refusing to write over the input file", out);
    /* the one output rule (a regular file, replaced only with --force; never a link, device,
       FIFO or folder), checked before the work so a refused output fails fast */
    if (cli_output_check(out, force)) return CLI_ERROR;
    int ev_n = 0;
    if (cli_evidence_begin(ev_dir, ev_runs, &ev_n)) return CLI_ERROR;

    lg_model *m = NULL;
    lg_import_report *irep = NULL;
    lg_error err;
    cli_onnx_options oo = {shapes, n_shapes, nhwc_io, weights && strcmp(weights, "fp16") == 0, report, as_json};
    if (onnx) {
        int irc = cli_onnx_import(in, &oo, &m, &irep);
        if (irc != CLI_OK) return irc;
    } else if (lg_tflite_read_file(in, NULL, &m, &err) != LG_OK) {
        return cli_lib_error(in, &err);
    }
    if (lg_model_validate(m, &err) != LG_OK) {
        lg_model_free(m);
        lg_import_report_free(irep);
        return cli_lib_error(in, &err);
    }
    lg_pass_report *rep = NULL;
    if (optimize) {
        lg_pass_run_options po;
        memset(&po, 0, sizeof po);
        po.prove = !no_prove;
        po.n_random = 2;
        lg_model *opt_m = NULL;
        lg_status ost = lg_optimize(m, &po, &opt_m, &rep, &err);
        lg_model_free(m);
        if (ost != LG_OK) {
            lg_import_report_free(irep);
            return cli_lib_error(in, &err);
        }
        m = opt_m;
    }
    size_t size = 0;
    char hex[65];
    int wrc = cli_write_model(m, out, force, external, &size, hex);
    lg_model_free(m);
    if (wrc != CLI_OK) {
        lg_pass_report_free(rep);
        lg_import_report_free(irep);
        return wrc;
    }
    if (ev_dir && cli_evidence_convert(ev_dir, ev_n, argc, argv, in, out, onnx ? &oo : NULL, optimize, external, rep) != CLI_OK) {
        lg_pass_report_free(rep);
        lg_import_report_free(irep);
        return CLI_ERROR;
    }
    int prc = print_result(as_json, in, out, size, hex, rep, irep, report);
    lg_pass_report_free(rep);
    lg_import_report_free(irep);
    if (prc != 0) return cli_error("writing the output failed");
    return CLI_OK;
}
