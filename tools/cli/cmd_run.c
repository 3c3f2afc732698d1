/* litegpu run: run a model with the reference kernels, in f32 or emulated GPU precision. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "lg/npy.h"
#include "lg/run.h"
#include "chain_file.h"
#include "run_common.h"

typedef struct dump_ctx {
    const char *dir;      /* the temporary folder being filled (cli_outdir.work) */
    FILE *manifest;
    const lg_model *m;
    int failed;
    json_w j;
} dump_ctx;

/* Into a fresh temporary folder (cli_outdir): never an existing file. */
static int write_npy(const char *dir, const char *file, const lg_tensor_view *v) {
    char path[4096 + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    lg_error err;
    if (lg_npy_write_file(path, v->type, v->shape, v->rank, v->data, false, &err) != LG_OK) return cli_error("%s", err.msg);
    return 0;
}

static int dump_tap(void *ud, int32_t op, const lg_tensor_view *outs, uint32_t n) {
    dump_ctx *d = ud;
    for (uint32_t k = 0; k < n; k++) {
        char file[64];
        snprintf(file, sizeof file, "t%05d.npy", outs[k].index);
        if (write_npy(d->dir, file, &outs[k])) { d->failed = 1; return 1; }
        json_obj_open_flat(&d->j);
        json_key_int(&d->j, "op", op);
        json_key_str(&d->j, "op_name", lg_op_name(d->m, &d->m->subgraphs[0].ops[op]));
        json_key_int(&d->j, "tensor", outs[k].index);
        json_key_str(&d->j, "name", outs[k].name ? outs[k].name : "");
        json_key_str(&d->j, "file", file);
        json_obj_close(&d->j);
    }
    return 0;
}

/* Range of a float output; *defined is false when there is nothing to summarize (not a
   float tensor, or no finite value): JSON null, text "n/a". */
static void stats(const lg_tensor_view *v, double *mn, double *mx, double *mean, int64_t *nonfinite, bool *defined) {
    *mn = INFINITY; *mx = -INFINITY; *mean = 0; *nonfinite = 0; *defined = false;
    if (v->type != LG_FLOAT32) return;
    const float *f = v->data;
    double s = 0;
    int64_t k = 0;
    for (int64_t i = 0; i < v->numel; i++) {
        if (!isfinite(f[i])) { (*nonfinite)++; continue; }
        if (f[i] < *mn) *mn = f[i];
        if (f[i] > *mx) *mx = f[i];
        s += f[i];
        k++;
    }
    if (k) { *mean = s / (double)k; *defined = true; }
}

const char cli_run_usage[] =
    "litegpu run MODEL [--input NAME=FILE.npy]... [--allow-flat] [--fill half|pattern|random:SEED] "
    "[--precision f32|f16|f32_f16] [--int-arith tflite|xnnpack] [--out-dir DIR] [--dump-all DIR] [--force] [--json]";
const char cli_run_help[] =
    "Prints each output's shape and range. Inputs not given with --input are filled.\n"
    "\n"
    "options:\n"
    "  -i, --input NAME=FILE.npy  an input by name or index, from a NumPy .npy file (repeatable);\n"
    "                             its shape must be the input's (a NCHW array for an NHWC input,\n"
    "                             or a batch the model does not have, is refused naming both)\n"
    "  --allow-flat               take a flat (rank-1) .npy of the right element count, C order\n"
    "  --fill F                   half (every element 0.5), pattern ((i*7919+13)%1009/1009, in\n"
    "                             [0, 1)) or random:SEED (uniform in [-1, 1), SEED a decimal\n"
    "                             0..18446744073709551615; the same seed gives the same input);\n"
    "                             INT8 / UINT8 inputs get it mapped to their range,\n"
    "                             min(255, floor(256 * f)) (UINT8; INT8 minus 128)\n"
    "  -p, --precision P          f32 (reference), f16 (GPU: half storage and accumulation),\n"
    "                             f32_f16 (half storage, fp32 arithmetic)\n"
    "  --int-arith A              quantized (int8/uint8/int16) kernels: tflite (TFLite's fixed-\n"
    "                             point kernels, the default) or xnnpack (the arithmetic of the\n"
    "                             XNNPACK delegate LiteRT.js runs, for the ops it takes)\n"
    "  --threads N                worker threads for the heavy kernels\n"
    "  --out-dir DIR              write output_K.npy and input_K.npy into the folder DIR (-o and\n"
    "                             --out are the same option; a name ending in .npy is refused)\n"
    "  --dump-all DIR             write every op's outputs (tNNNNN.npy) and manifest.json\n"
    "  --force                    write into a non-empty DIR (same-named files are replaced)\n"
    "  --json                     print the result as JSON\n"
    "  -h, --help                 show this help\n"
    "\n"
    "A folder is filled in a temporary folder next to it and appears only when the run\n"
    "succeeds: a failed run leaves nothing behind. A symbolic link, device or file given as\n"
    "DIR is refused.\n";

/* run's -o is a folder (convert's is a file): a name that looks like a file is a mistake. */
static int out_dir_name_ok(const cli_verb *v, const char *dir) {
    static const char *const exts[] = {".npy", ".npz", ".tflite", ".json"};
    size_t n = strlen(dir);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i]);
        if (n > e && strcmp(dir + n - e, exts[i]) == 0)
            return cli_usage_error(v, "--out-dir takes a folder (run writes output_K.npy files into it), "
                                      "not a file name like '%s'", dir);
    }
    return 0;
}

static void write_manifest_head(dump_ctx *d, const char *model, lg_precision p) {
    json_init(&d->j, d->manifest);
    json_obj_open(&d->j);
    json_key_str(&d->j, "model", model);
    json_key_str(&d->j, "precision", lg_precision_name(p));
    json_key(&d->j, "tensors");
    json_arr_open(&d->j);
}

static int write_io(const char *dir, const lg_chain *it, const cli_inputs *in) {
    for (uint32_t k = 0; k < lg_chain_n_outputs(it); k++) {
        lg_tensor_view ov;
        lg_chain_output(it, k, &ov);
        char file[64];
        snprintf(file, sizeof file, "output_%u.npy", k);
        if (write_npy(dir, file, &ov)) return CLI_ERROR;
    }
    for (uint32_t k = 0; k < lg_chain_n_inputs(it); k++) {
        lg_tensor_view iv;
        lg_chain_input(it, k, &iv);
        iv.data = in->data[k];
        char file[64];
        snprintf(file, sizeof file, "input_%u.npy", k);
        if (write_npy(dir, file, &iv)) return CLI_ERROR;
    }
    return 0;
}

static void report_json(const char *model, const lg_run_options *ro, const char *fill, int n_inputs,
                        const lg_chain *it, bool out_files, bool *ok) {
    json_w j;
    json_init(&j, stdout);
    json_obj_open(&j);
    json_key_str(&j, "verb", "run");
    json_key_str(&j, "model", model);
    json_key_bool(&j, "ok", true);
    json_key_str(&j, "precision", lg_precision_name(ro->precision));
    json_key_str(&j, "fill", n_inputs ? "files" : (fill ? fill : "half"));
    json_key_uint(&j, "n_inputs", lg_chain_n_inputs(it));
    if (lg_chain_n_parts(it) > 1) json_key_uint(&j, "n_parts", lg_chain_n_parts(it));
    uint32_t no = lg_chain_n_outputs(it);
    json_key_uint(&j, "n_outputs", no);
    json_key(&j, "outputs");
    json_arr_open(&j);
    for (uint32_t k = 0; k < no; k++) {
        lg_tensor_view ov;
        lg_chain_output(it, k, &ov);
        double mn, mx, mean;
        int64_t nf;
        bool def;
        stats(&ov, &mn, &mx, &mean, &nf, &def);
        json_obj_open(&j);
        json_key_uint(&j, "index", k);
        json_key_str(&j, "name", ov.name ? ov.name : "");
        json_key_str(&j, "dtype", lg_dtype_name(ov.type));
        json_key(&j, "shape");
        json_arr_open_flat(&j);
        for (uint32_t q = 0; q < ov.rank; q++) json_int(&j, ov.shape[q]);
        json_arr_close(&j);
        const char *names[3] = {"min", "max", "mean"};
        double vals[3] = {mn, mx, mean};
        for (int q = 0; q < 3; q++) {
            json_key(&j, names[q]);
            if (def) json_double(&j, vals[q]);
            else json_null(&j);
        }
        json_key_int(&j, "nonfinite", nf);
        if (out_files) {
            char file[64];
            snprintf(file, sizeof file, "output_%u.npy", k);
            json_key_str(&j, "file", file);
        }
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_obj_close(&j);
    *ok = json_finish(&j) == 0;
}

static void report_text(const char *model, const cli_chain *ex, const lg_run_options *ro) {
    const lg_chain *it = ex->chain;
    printf("%s: ran %u ops in %s", model, ex->n_ops, lg_precision_name(ro->precision));
    if (ex->n > 1) printf(" (%u parts in a chain)", ex->n);
    printf("\n");
    for (uint32_t k = 0; k < lg_chain_n_outputs(it); k++) {
        lg_tensor_view ov;
        lg_chain_output(it, k, &ov);
        double mn, mx, mean;
        int64_t nf;
        bool def;
        stats(&ov, &mn, &mx, &mean, &nf, &def);
        printf("  output %u \"%s\" %s [", k, ov.name ? ov.name : "", lg_dtype_name(ov.type));
        for (uint32_t q = 0; q < ov.rank; q++) printf("%s%d", q ? "," : "", ov.shape[q]);
        if (def) printf("]  min %.6g  max %.6g  mean %.6g", mn, mx, mean);
        else printf("]  min n/a  max n/a  mean n/a");
        if (nf) printf("  %lld inf/NaN", (long long)nf);
        printf("\n");
    }
}

/* Strip trailing slashes for comparing two folder arguments. */
static bool same_dir_arg(const char *a, const char *b) {
    size_t na = strlen(a), nb = strlen(b);
    while (na > 1 && a[na - 1] == '/') na--;
    while (nb > 1 && b[nb - 1] == '/') nb--;
    return na == nb && strncmp(a, b, na) == 0;
}

int cmd_run(const cli_verb *verb, int argc, char **argv) {
    const cli_verb *v = verb; /* its usage and help are cli_run_usage/cli_run_help (main.c) */
    bool json = false, force = false, allow_flat = false;
    const char *fill = NULL, *prec = NULL, *arith = NULL, *threads = NULL, *out_dir = NULL, *out_o = NULL, *dump_dir = NULL;
    const char *inputs[64];
    int n_inputs = 0;
    const cli_flag flags[] = {
        {"--json", NULL, &json, NULL, NULL, NULL, 0},
        {"--force", NULL, &force, NULL, NULL, NULL, 0},
        {"--allow-flat", NULL, &allow_flat, NULL, NULL, NULL, 0},
        {"--fill", NULL, NULL, &fill, NULL, NULL, 0},
        {"--precision", "-p", NULL, &prec, NULL, NULL, 0},
        {"--threads", NULL, NULL, &threads, NULL, NULL, 0},
        {"--int-arith", NULL, NULL, &arith, NULL, NULL, 0},
        {"--out-dir", NULL, NULL, &out_dir, NULL, NULL, 0},
        {"--out", "-o", NULL, &out_o, NULL, NULL, 0},
        {"--dump-all", NULL, NULL, &dump_dir, NULL, NULL, 0},
        {"--input", "-i", NULL, NULL, inputs, &n_inputs, 64},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (n_pos != 1) return cli_usage_error(v, "expected one MODEL");
    if (out_dir && out_o) return cli_usage_error(v, "--out-dir given twice (-o/--out is the same option)");
    if (!out_dir) out_dir = out_o;
    if (out_dir && out_dir_name_ok(v, out_dir)) return CLI_ERROR;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    if (prec) {
        int p = lg_precision_from_name(prec);
        if (p < 0) return cli_usage_error(v, "unknown precision '%s' (f32, f16 or f32_f16)", prec);
        ro.precision = (lg_precision)p;
    }
    if (arith) {
        int a = lg_int_arith_from_name(arith);
        if (a < 0) return cli_usage_error(v, "unknown --int-arith '%s' (tflite or xnnpack)", arith);
        ro.int_arith = (lg_int_arith)a;
    }
    if (threads) {
        char *end;
        long t = strtol(threads, &end, 10);
        if (*end || t < 1 || t > 256) return cli_usage_error(v, "--threads takes 1..256");
        ro.threads = (int)t;
    }
    if (fill) {
        float probe;
        lg_error err;
        if (lg_fill_f32(fill, &probe, 1, &err) != LG_OK) return cli_usage_error(v, "%s", err.msg);
    }
    /* output folders: checked now, filled in temporary folders, moved into place at the end */
    cli_outdir od_out, od_dump;
    memset(&od_out, 0, sizeof od_out);
    memset(&od_dump, 0, sizeof od_dump);
    bool shared = out_dir && dump_dir && same_dir_arg(out_dir, dump_dir);
    if (out_dir && cli_outdir_begin(&od_out, out_dir, force)) return CLI_ERROR;
    if (dump_dir && !shared && cli_outdir_begin(&od_dump, dump_dir, force)) {
        cli_outdir_abort(&od_out);
        return CLI_ERROR;
    }
    const char *out_work = out_dir ? od_out.work : NULL;
    const char *dump_work = dump_dir ? (shared ? od_out.work : od_dump.work) : NULL;

    cli_chain ex;
    memset(&ex, 0, sizeof ex);
    cli_inputs in;
    memset(&in, 0, sizeof in);
    dump_ctx d;
    memset(&d, 0, sizeof d);
    lg_error err;
    rc = CLI_ERROR;
    bool split = cli_is_split_file(pos[0]);
    if (split && dump_work) { cli_usage_error(v, "--dump-all takes a model, not a split file"); goto out; }
    if (dump_work) {
        char path[4096 + 64];
        snprintf(path, sizeof path, "%s/manifest.json", dump_work);
        d.manifest = cli_output_fopen(path, false);
        if (!d.manifest) goto out;
        d.dir = dump_work;
        write_manifest_head(&d, pos[0], ro.precision);
        ro.tap = dump_tap;
        ro.tap_ud = &d;
        ro.keep_all = true;
    }
    if (cli_exec_open(pos[0], &ro, &ex)) goto out;
    d.m = ex.models[0]; /* the taps run after create: they name ops of the model */
    lg_chain *it = ex.chain;
    if (cli_inputs_make_chain(it, inputs, n_inputs, fill, allow_flat, &in)) goto out;
    if (cli_inputs_set_chain(it, &in)) goto out;
    if (lg_chain_invoke(it, &err) != LG_OK) {
        if (!d.failed) cli_lib_error(pos[0], &err);
        goto out;
    }
    if (d.manifest) {
        json_arr_close(&d.j);
        json_obj_close(&d.j);
        int bad = json_finish(&d.j);
        if (fclose(d.manifest) != 0) bad = 1;
        d.manifest = NULL;
        if (bad) { cli_error("%s/manifest.json: write failed", dump_dir); goto out; }
    }
    if (out_work && write_io(out_work, it, &in)) goto out;
    /* every file is written: now the folders appear */
    if (out_dir && cli_outdir_commit(&od_out)) goto out;
    if (dump_dir && !shared && cli_outdir_commit(&od_dump)) goto out;
    if (json) {
        bool ok;
        report_json(pos[0], &ro, fill, n_inputs, it, out_dir != NULL, &ok);
        rc = ok ? CLI_OK : cli_error("cannot write the report");
    } else {
        report_text(pos[0], &ex, &ro);
        uint32_t no = lg_chain_n_outputs(it);
        if (out_dir) printf("wrote %u output(s) to %s/output_K.npy\n", no, od_out.path);
        if (dump_dir) printf("wrote every op's outputs to %s (manifest.json lists them)\n", dump_dir);
        rc = CLI_OK;
    }
out:
    if (d.manifest) fclose(d.manifest);
    cli_outdir_abort(&od_out);
    cli_outdir_abort(&od_dump);
    cli_inputs_free(&in);
    cli_chain_close(&ex);
    return rc;
}
