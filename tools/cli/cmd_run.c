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
#include "run_common.h"

typedef struct dump_ctx {
    const char *dir;
    bool force;
    FILE *manifest;
    const lg_model *m;
    int failed;
    json_w j;
} dump_ctx;

static int write_npy(const char *dir, const char *file, const lg_tensor_view *v, bool force) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    lg_error err;
    if (lg_npy_write_file(path, v->type, v->shape, v->rank, v->data, force, &err) != LG_OK) return cli_error("%s", err.msg);
    return 0;
}

static int dump_tap(void *ud, int32_t op, const lg_tensor_view *outs, uint32_t n) {
    dump_ctx *d = ud;
    for (uint32_t k = 0; k < n; k++) {
        char file[64];
        snprintf(file, sizeof file, "t%05d.npy", outs[k].index);
        if (write_npy(d->dir, file, &outs[k], d->force)) { d->failed = 1; return 1; }
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

static void stats(const lg_tensor_view *v, double *mn, double *mx, double *mean, int64_t *nonfinite) {
    *mn = INFINITY; *mx = -INFINITY; *mean = 0; *nonfinite = 0;
    if (v->type != LG_FLOAT32) { *mn = *mx = 0; return; }
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
    *mean = k ? s / (double)k : 0;
    if (!k) *mn = *mx = 0;
}

int cmd_run(const cli_verb *v, int argc, char **argv) {
    bool json = false, force = false;
    const char *fill = NULL, *prec = NULL, *threads = NULL, *out_dir = NULL, *dump_dir = NULL;
    const char *inputs[64];
    int n_inputs = 0;
    const cli_flag flags[] = {
        {"--json", NULL, &json, NULL, NULL, NULL, 0},
        {"--force", NULL, &force, NULL, NULL, NULL, 0},
        {"--fill", NULL, NULL, &fill, NULL, NULL, 0},
        {"--precision", "-p", NULL, &prec, NULL, NULL, 0},
        {"--threads", NULL, NULL, &threads, NULL, NULL, 0},
        {"--out", "-o", NULL, &out_dir, NULL, NULL, 0},
        {"--dump-all", NULL, NULL, &dump_dir, NULL, NULL, 0},
        {"--input", "-i", NULL, NULL, inputs, &n_inputs, 64},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (n_pos != 1) return cli_usage_error(v, "expected one MODEL");
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    if (prec) {
        int p = lg_precision_from_name(prec);
        if (p < 0) return cli_usage_error(v, "unknown precision '%s' (f32, f16 or f32_f16)", prec);
        ro.precision = (lg_precision)p;
    }
    if (threads) {
        char *end;
        long t = strtol(threads, &end, 10);
        if (*end || t < 1 || t > 256) return cli_usage_error(v, "--threads takes 1..256");
        ro.threads = (int)t;
    }
    if (out_dir && cli_out_dir(out_dir, force)) return CLI_ERROR;
    if (dump_dir && cli_out_dir(dump_dir, force)) return CLI_ERROR;

    cli_file f;
    lg_model *m = NULL;
    if (cli_model_load(pos[0], &f, &m) != 0) return CLI_ERROR;
    dump_ctx d;
    memset(&d, 0, sizeof d);
    FILE *manifest = NULL;
    if (dump_dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/manifest.json", dump_dir);
        manifest = fopen(path, "w");
        if (!manifest) { rc = cli_error("%s: cannot write", path); goto out_model; }
        d.dir = dump_dir;
        d.force = force;
        d.m = m;
        json_init(&d.j, manifest);
        json_obj_open(&d.j);
        json_key_str(&d.j, "model", pos[0]);
        json_key_str(&d.j, "precision", lg_precision_name(ro.precision));
        json_key(&d.j, "tensors");
        json_arr_open(&d.j);
        ro.tap = dump_tap;
        ro.tap_ud = &d;
        ro.keep_all = true;
    }
    lg_interp *it = NULL;
    lg_error err;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) { rc = cli_lib_error(pos[0], &err); goto out_model; }
    cli_inputs in;
    if (cli_inputs_make(it, inputs, n_inputs, fill, &in)) { rc = CLI_ERROR; goto out_interp; }
    if (cli_inputs_set(it, &in)) { rc = CLI_ERROR; goto out_inputs; }
    if (lg_interp_invoke(it, &err) != LG_OK) {
        rc = d.failed ? CLI_ERROR : cli_lib_error(pos[0], &err);
        goto out_inputs;
    }
    if (manifest) {
        json_arr_close(&d.j);
        json_obj_close(&d.j);
        json_finish(&d.j);
    }
    uint32_t no = lg_interp_n_outputs(it);
    if (out_dir) {
        for (uint32_t k = 0; k < no; k++) {
            lg_tensor_view ov;
            lg_interp_output(it, k, &ov);
            char file[64];
            snprintf(file, sizeof file, "output_%u.npy", k);
            if (write_npy(out_dir, file, &ov, force)) { rc = CLI_ERROR; goto out_inputs; }
        }
        for (uint32_t k = 0; k < lg_interp_n_inputs(it); k++) {
            lg_tensor_view iv;
            lg_interp_input(it, k, &iv);
            iv.data = in.data[k];
            char file[64];
            snprintf(file, sizeof file, "input_%u.npy", k);
            if (write_npy(out_dir, file, &iv, force)) { rc = CLI_ERROR; goto out_inputs; }
        }
    }
    if (json) {
        json_w j;
        json_init(&j, stdout);
        json_obj_open(&j);
        json_key_str(&j, "model", pos[0]);
        json_key_str(&j, "precision", lg_precision_name(ro.precision));
        json_key_str(&j, "fill", n_inputs ? "files" : (fill ? fill : "half"));
        json_key(&j, "outputs");
        json_arr_open(&j);
        for (uint32_t k = 0; k < no; k++) {
            lg_tensor_view ov;
            lg_interp_output(it, k, &ov);
            double mn, mx, mean;
            int64_t nf;
            stats(&ov, &mn, &mx, &mean, &nf);
            json_obj_open(&j);
            json_key_uint(&j, "index", k);
            json_key_str(&j, "name", ov.name ? ov.name : "");
            json_key_str(&j, "dtype", lg_dtype_name(ov.type));
            json_key(&j, "shape");
            json_arr_open_flat(&j);
            for (uint32_t q = 0; q < ov.rank; q++) json_int(&j, ov.shape[q]);
            json_arr_close(&j);
            json_key_double(&j, "min", mn);
            json_key_double(&j, "max", mx);
            json_key_double(&j, "mean", mean);
            json_key_int(&j, "nonfinite", nf);
            if (out_dir) {
                char file[64];
                snprintf(file, sizeof file, "output_%u.npy", k);
                json_key_str(&j, "file", file);
            }
            json_obj_close(&j);
        }
        json_arr_close(&j);
        json_obj_close(&j);
        if (json_finish(&j)) rc = cli_error("cannot write the report");
        else rc = CLI_OK;
    } else {
        printf("%s: ran %u ops in %s\n", pos[0], m->subgraphs[0].n_ops, lg_precision_name(ro.precision));
        for (uint32_t k = 0; k < no; k++) {
            lg_tensor_view ov;
            lg_interp_output(it, k, &ov);
            double mn, mx, mean;
            int64_t nf;
            stats(&ov, &mn, &mx, &mean, &nf);
            printf("  output %u \"%s\" %s [", k, ov.name ? ov.name : "", lg_dtype_name(ov.type));
            for (uint32_t q = 0; q < ov.rank; q++) printf("%s%d", q ? "," : "", ov.shape[q]);
            printf("]  min %.6g  max %.6g  mean %.6g", mn, mx, mean);
            if (nf) printf("  %lld inf/NaN", (long long)nf);
            printf("\n");
        }
        if (out_dir) printf("wrote %u output(s) to %s/output_K.npy\n", no, out_dir);
        if (dump_dir) printf("wrote every op's outputs to %s (manifest.json lists them)\n", dump_dir);
        rc = CLI_OK;
    }
out_inputs:
    cli_inputs_free(&in);
out_interp:
    lg_interp_free(it);
out_model:
    if (manifest) fclose(manifest);
    lg_model_free(m);
    cli_file_close(&f);
    return rc;
}
