/* litegpu quantize MODEL -o OUT --mode M: store the weights in fewer bits (lg_quantize,
   include/lg/quantize.h), report the sizes, the parity against MODEL on the inputs, what the
   GPU does with the form and check's verdict after; with --target-error the sensitivity
   table and the layers kept float. Exit 0 written, 1 written but the target error not met
   (OUT holds the model with the smallest error measured), 2 error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "evidence.h"
#include "json.h"
#include "lg/import.h"
#include "lg/quantize.h"
#include "lg/util.h"
#include "run_common.h"

#define MAX_WEIGHTS_TEXT 8u

typedef struct q_args {
    const char *model, *out, *mode, *block, *calib, *target, *gpu, *range, *percentile;
    const char *eval, *target_error, *sensitivity, *ev_dir, *ev_runs;
    bool per_channel, per_tensor, json, force, int8_io;
    const char *exclude[64];
    int n_exclude;
    const char *inputs[64];
    int n_inputs;
} q_args;

/* The calibration manifest: every file of the sets, with its sha256. */
typedef struct q_manifest {
    lg_quant_file *files;
    char (*names)[512];
    char (*hex)[65];
    uint32_t n;
    const char **sets;     /* the calibration sets' names, for the report */
} q_manifest;

static void manifest_free(q_manifest *mf) {
    free(mf->files);
    free(mf->names);
    free(mf->hex);
    free(mf->sets);
    memset(mf, 0, sizeof *mf);
}

static int hash_file(const char *path, char hex[65]) {
    cli_file f;
    if (cli_file_open(path, &f) != 0) return CLI_ERROR;
    uint8_t d[32];
    lg_sha256(f.data, f.size, d);
    lg_hex(d, sizeof d, hex);
    cli_file_close(&f);
    return CLI_OK;
}

static int manifest_add(q_manifest *mf, uint32_t cap, const char *dir, const char *rel) {
    if (mf->n == cap) return cli_error("--calib: too many files");
    char path[4700];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    snprintf(mf->names[mf->n], sizeof mf->names[mf->n], "%s", rel);
    if (hash_file(path, mf->hex[mf->n])) return CLI_ERROR;
    mf->files[mf->n].name = mf->names[mf->n];
    mf->files[mf->n].sha256 = mf->hex[mf->n];
    mf->n++;
    return CLI_OK;
}

/* The files cli_calib_load read: DIR/SET for one input, DIR/SET/NAME.npy (or K.npy) for more. */
static int make_manifest(const char *dir, const cli_calib *cal, const lg_tensor_view *views, uint32_t n_in, q_manifest *mf) {
    uint32_t cap = cal->n * (n_in > 1 ? n_in : 1);
    mf->files = calloc(cap ? cap : 1, sizeof *mf->files);
    mf->names = calloc(cap ? cap : 1, sizeof *mf->names);
    mf->hex = calloc(cap ? cap : 1, sizeof *mf->hex);
    mf->sets = calloc(cal->n ? cal->n : 1, sizeof *mf->sets);
    if (!mf->files || !mf->names || !mf->hex || !mf->sets) return cli_error("out of memory");
    for (uint32_t k = 0; k < cal->n; k++) {
        mf->sets[k] = cal->names[k];
        if (n_in <= 1) {
            if (manifest_add(mf, cap, dir, cal->names[k])) return CLI_ERROR;
            continue;
        }
        for (uint32_t i = 0; i < n_in; i++) {
            char rel[600], path[4800];
            struct stat st;
            snprintf(rel, sizeof rel, "%s/%s.npy", cal->names[k], views[i].name ? views[i].name : "");
            snprintf(path, sizeof path, "%s/%s", dir, rel);
            if (stat(path, &st) != 0) snprintf(rel, sizeof rel, "%s/%u.npy", cal->names[k], i);
            if (manifest_add(mf, cap, dir, rel)) return CLI_ERROR;
        }
    }
    return CLI_OK;
}

/* ---------------------------------------------------------------- text */

static const char *dtype(int t) { return lg_dtype_name(t); }

static const char *granularity(const lg_quant_report *r) {
    if (r->mode == LG_QUANT_FP16) return NULL;
    return r->per_tensor ? "per-tensor" : r->block_size ? "blockwise" : "per-channel";
}

/* ---------------------------------------------------------------- int8-static */

static void static_mode_line(const lg_quant_report *r) {
    printf(": int8-static (activations asymmetric INT8 per tensor from %u calibration set%s, range %s", r->n_calib_cases,
           r->n_calib_cases == 1 ? "" : "s", lg_quant_range_name(r->range));
    if (r->range == LG_RANGE_PERCENTILE) printf(" %g %%", r->percentile);
    printf("; weights symmetric INT8, %s; biases INT32; inputs and outputs %s)\n",
           r->per_tensor ? "one scale per tensor" : "a scale per output channel",
           r->int8_io ? "INT8" : "FLOAT32 with QUANTIZE / DEQUANTIZE at the edge");
}

static void mode_line(const q_args *a, const lg_quant_report *r) {
    printf("quantize ");
    cli_write_path(stdout, a->model);
    if (r->mode == LG_QUANT_FP16)
        printf(": fp16 (FLOAT32 constants as FLOAT16 + DEQUANTIZE; inputs and outputs stay FLOAT32)\n");
    else if (r->mode == LG_QUANT_INT8_STATIC)
        static_mode_line(r);
    else
        printf(": %s (symmetric %s, %s, zero point 0, %s)\n", lg_quant_mode_name(r->mode),
               r->mode == LG_QUANT_INT4_WEIGHTS ? "INT4 packed two per byte" : "INT8",
               r->per_tensor ? "one scale per tensor" : r->block_size ? "a scale per block" : "a scale per output channel",
               r->mode == LG_QUANT_INT8_DYNAMIC ? "read directly by the hybrid ops, DEQUANTIZE for the others" : "+ DEQUANTIZE");
}

static void static_text(const lg_quant_report *r) {
    printf("  ops: %u of %u in int8, %u left float; added %u QUANTIZE, %u DEQUANTIZE, %u requantizing QUANTIZE; %u int8 "
           "activation tensors, %u INT32 biases\n", r->n_ops_int8, r->n_ops_int8 + r->n_ops_float, r->n_ops_float,
           r->n_quantize, r->n_dequantize, r->n_requantize, r->n_activations, r->n_bias_int32);
    uint32_t shown = r->n_ops_float < MAX_WEIGHTS_TEXT ? r->n_ops_float : MAX_WEIGHTS_TEXT;
    for (uint32_t i = 0; i < shown; i++) {
        const lg_quant_float_op *f = &r->float_ops[i];
        const char *op = lg_builtin_name(f->code);
        printf("    float: op %d %s \"%s\": %s\n", f->op, op ? op : "?", f->name, f->why);
    }
    if (r->n_ops_float > shown) printf("    ... and %u more (--json lists every one)\n", r->n_ops_float - shown);
}

static void static_json(json_w *j, const lg_quant_report *r) {
    json_key(j, "static");
    if (r->mode != LG_QUANT_INT8_STATIC) {
        json_null(j);
        return;
    }
    json_obj_open(j);
    json_key_str(j, "range", lg_quant_range_name(r->range));
    json_key(j, "percentile");
    if (r->range == LG_RANGE_PERCENTILE) json_double(j, r->percentile);
    else json_null(j);
    json_key_bool(j, "int8_io", r->int8_io);
    json_key_uint(j, "n_calib_cases", r->n_calib_cases);
    json_key_uint(j, "n_ops_int8", r->n_ops_int8);
    json_key_uint(j, "n_ops_float", r->n_ops_float);
    json_key_uint(j, "n_activations", r->n_activations);
    json_key_uint(j, "n_quantize", r->n_quantize);
    json_key_uint(j, "n_dequantize", r->n_dequantize);
    json_key_uint(j, "n_requantize", r->n_requantize);
    json_key_uint(j, "n_bias_int32", r->n_bias_int32);
    json_key(j, "float_ops");
    json_arr_open(j);
    for (uint32_t i = 0; i < r->n_ops_float; i++) {
        const lg_quant_float_op *f = &r->float_ops[i];
        json_obj_open_flat(j);
        json_key_int(j, "op", f->op);
        json_key_str(j, "op_name", lg_builtin_name(f->code));
        json_key_str(j, "name", f->name);
        json_key_bool(j, "excluded", f->excluded);
        json_key_str(j, "why", f->why);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_obj_close(j);
}

/* ---------------------------------------------------------------- --target-error */

/* E and its SNR: "0.0123 (38.2 dB)", "0 (exact)", "inf". */
static void err_text(double e) {
    if (isinf(e) || isnan(e)) printf("%s", isinf(e) ? "inf" : "n/a");
    else if (e == 0) printf("0 (exact)");
    else printf("%.4g (%.1f dB)", e, lg_quant_error_to_db(e));
}

static void sweep_text(const lg_quant_report *r) {
    if (!r->swept) return;
    printf("  target error %g (SNR %.1f dB; E = max over the float outputs of sqrt(sum (q - f)^2 / sum f^2)), on %u %s "
           "input%s\n", r->target_error, lg_quant_error_to_db(r->target_error), r->sweep_cases,
           r->sweep_on_eval ? "evaluation" : "calibration", r->sweep_cases == 1 ? "" : "s");
    printf("  sensitivity of %u layer%s (%s: E with %s):\n", r->n_layers, r->n_layers == 1 ? "" : "s",
           lg_quant_sensitivity_name(r->sensitivity),
           r->sensitivity == LG_SENS_ALONE ? "only this layer int8" : "every layer int8 but this one");
    uint32_t shown = r->n_kept + 4 > MAX_WEIGHTS_TEXT ? r->n_kept + 4 : MAX_WEIGHTS_TEXT;
    if (shown > r->n_layers) shown = r->n_layers;
    for (uint32_t j = 0; j < shown; j++) {
        const lg_quant_layer *l = &r->layers[j];
        const char *op = lg_builtin_name(l->code);
        printf("    %3u. op %d %s \"%s\": E ", l->rank, l->op, op ? op : "?", l->name);
        err_text(r->sensitivity == LG_SENS_ALONE ? l->err_alone : l->err_without);
        printf("%s\n", l->kept_float ? "  -> kept float" : "");
    }
    if (r->n_layers > shown) printf("    ... and %u more, less sensitive (--json lists every one)\n", r->n_layers - shown);
    printf("  all int8: E ");
    err_text(r->error_int8);
    printf("; search (k most sensitive kept float: E):");
    for (uint32_t s = 0; s < r->n_steps; s++) printf(" k=%u %.4g%s", r->steps[s].k, r->steps[s].error, r->steps[s].met ? " ok" : "");
    printf("\n  %s: %u of %u layer%s kept float, E ", r->target_met ? "target met" : "TARGET NOT MET", r->n_kept, r->n_layers,
           r->n_layers == 1 ? "" : "s");
    err_text(r->error);
    printf(" %s %g; %u models built and measured, %llu runs\n", r->target_met ? "<=" : ">", r->target_error, r->n_builds,
           (unsigned long long)r->n_runs);
}

static void json_err(json_w *j, const char *key, double e) {
    json_key(j, key);
    if (isnan(e) || isinf(e)) json_null(j);
    else json_double(j, e);
}

static void sweep_json(json_w *j, const lg_quant_report *r) {
    json_key(j, "target_error");
    if (!r->swept) {
        json_null(j);
        return;
    }
    json_obj_open(j);
    json_key_double(j, "target", r->target_error);
    json_key_double(j, "target_snr_db", lg_quant_error_to_db(r->target_error));
    json_key_bool(j, "met", r->target_met);
    json_err(j, "error", r->error);
    json_err(j, "error_int8", r->error_int8);
    json_key_str(j, "sensitivity", lg_quant_sensitivity_name(r->sensitivity));
    json_key_str(j, "measured_on", r->sweep_on_eval ? "eval" : "calibration");
    json_key_uint(j, "n_cases", r->sweep_cases);
    json_key_uint(j, "n_layers", r->n_layers);
    json_key_uint(j, "n_kept_float", r->n_kept);
    json_key_uint(j, "n_builds", r->n_builds);
    json_key_uint(j, "n_runs", r->n_runs);
    json_key(j, "layers");
    json_arr_open(j);
    for (uint32_t k = 0; k < r->n_layers; k++) {
        const lg_quant_layer *l = &r->layers[k];
        json_obj_open_flat(j);
        json_key_uint(j, "rank", l->rank);
        json_key_int(j, "op", l->op);
        json_key_str(j, "op_name", lg_builtin_name(l->code));
        json_key_str(j, "name", l->name);
        json_err(j, "error_alone", l->err_alone);
        json_err(j, "error_without", l->err_without);
        json_key_bool(j, "kept_float", l->kept_float);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_key(j, "steps");
    json_arr_open(j);
    for (uint32_t k = 0; k < r->n_steps; k++) {
        json_obj_open_flat(j);
        json_key_uint(j, "k", r->steps[k].k);
        json_err(j, "error", r->steps[k].error);
        json_key_bool(j, "met", r->steps[k].met);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_obj_close(j);
}

static void ratio_text(uint64_t a, uint64_t b) {
    if (b) printf("%.3gx", (double)a / (double)b);
    else printf("n/a");
}

static void weights_text(const lg_quant_report *r) {
    const char *to = r->mode == LG_QUANT_FP16 ? "FLOAT16" : r->mode == LG_QUANT_INT4_WEIGHTS ? "INT4" : "INT8";
    printf("  %u %s stored as %s: %lld params, %llu -> %llu B (", r->n_weights,
           r->mode == LG_QUANT_FP16 ? "constants" : "weights", to, (long long)r->n_params,
           (unsigned long long)r->weights_before, (unsigned long long)r->weights_after);
    ratio_text(r->weights_after, r->weights_fp32);
    printf(" of the %llu B they take as FLOAT32)\n", (unsigned long long)r->weights_fp32);
    uint32_t shown = r->n_weights < MAX_WEIGHTS_TEXT ? r->n_weights : MAX_WEIGHTS_TEXT;
    for (uint32_t i = 0; i < shown; i++) {
        const lg_quant_weight *w = &r->weights[i];
        const char *op = lg_builtin_name(w->code);
        printf("    op %d %s \"%s\": %s -> %s", w->op, op ? op : "?", w->name, dtype(w->from_type), dtype(w->to_type));
        if (w->to_type != LG_FLOAT16) printf(", %u scale%s", w->n_scales, w->n_scales == 1 ? "" : "s");
        printf(", %llu -> %llu B, max error %.3g (max |w| %.3g)\n", (unsigned long long)w->bytes_before,
               (unsigned long long)w->bytes_after, w->max_err, w->max_abs);
    }
    if (r->n_weights > shown) printf("    ... and %u more (--json lists every one)\n", r->n_weights - shown);
    if (r->n_already) printf("  %u constant%s already FLOAT16, left as they are\n", r->n_already, r->n_already == 1 ? "" : "s");
    if (r->n_bias_fp32)
        printf("  %u FLOAT16 bias%s of the quantized ops stored as FLOAT32 (the weight-only form: no DEQUANTIZE for them)\n",
               r->n_bias_fp32, r->n_bias_fp32 == 1 ? "" : "es");
    for (uint32_t k = 0; k < r->n_exclude; k++)
        if (!r->exclude_hits[k]) printf("  exclude pattern %u matched no op\n", k + 1);
    if (r->n_skipped) {
        printf("  %u left as %s (%u excluded):\n", r->n_skipped, r->n_skipped == 1 ? "it was" : "they were", r->n_excluded);
        uint32_t n = r->n_skipped < MAX_WEIGHTS_TEXT ? r->n_skipped : MAX_WEIGHTS_TEXT;
        for (uint32_t i = 0; i < n; i++)
            printf("    tensor %d \"%s\" (op %d): %s\n", r->skipped[i].tensor, r->skipped[i].name, r->skipped[i].op,
                   r->skipped[i].why);
        if (r->n_skipped > n) printf("    ... and %u more (--json lists every one)\n", r->n_skipped - n);
    }
}

static void snr_text(double v) {
    if (isnan(v)) printf("n/a");
    else if (isinf(v)) printf("inf");
    else printf("%.1f dB", v);
}

static void parity_text(const lg_quant_report *r) {
    if (!r->measured) {
        printf("parity: %s\n", r->measure_note);
        return;
    }
    printf("parity against the input, fp32, on %u input%s (", r->n_cases, r->n_cases == 1 ? "" : "s");
    for (uint32_t k = 0; k < r->n_cases; k++) printf("%s%s", k ? ", " : "", r->case_names[k]);
    printf("):\n");
    for (uint32_t k = 0; k < r->n_outputs; k++) {
        const lg_quant_output *o = &r->outputs[k];
        printf("  output %u \"%s\": SNR ", o->index, o->name);
        snr_text(o->snr_db);
        printf(", cosine ");
        if (isnan(o->cosine)) printf("n/a");
        else printf("%.6f", o->cosine);
        printf(", max abs %.3g (max |ref| %.3g), argmax %u/%u agree, judge %s (worst score %.3g)\n", o->max_abs,
               o->ref_max_abs, o->n_argmax_equal, o->n_cases, o->pass ? "passes" : "FAILS", o->worst_score);
    }
    if (r->first_divergent_op >= 0)
        printf("  first divergent tensor (input %s): \"%s\" (op %d %s of OUT, tensor %d): score %.3g (%s)\n", r->case_names[0],
               r->first_divergent_name, r->first_divergent_op, r->first_divergent_op_name, r->first_divergent_tensor,
               r->first_divergent_score, r->first_divergent_why);
    else
        printf("  first divergent tensor: none of %u (every one within the judge's tolerance on input %s)\n",
               r->n_tensors_compared, r->case_names[0]);
}

static int print_text(const q_args *a, const lg_quant_report *r, uint64_t in_size, size_t size, const char *hex,
                      const q_manifest *mf) {
    mode_line(a, r);
    weights_text(r);
    if (r->mode == LG_QUANT_INT8_STATIC) static_text(r);
    sweep_text(r);
    printf("  constants %llu -> %llu B; file %llu -> %zu B (", (unsigned long long)r->const_before,
           (unsigned long long)r->const_after, (unsigned long long)in_size, size);
    ratio_text(size, in_size);
    printf("); ops %u -> %u\n", r->ops_before, r->ops_after);
    if (mf->n) printf("  calibration manifest: %u file%s (sha256 in the model's metadata \"litegpu.quantize\")\n", mf->n,
                      mf->n == 1 ? "" : "s");
    parity_text(r);
    printf("GPU: %s\n", r->gpu_note);
    printf("check for %s (gpu %s): %s -> %s", lg_target_name(r->target), lg_gpu_name(r->gpu),
           r->ready_before ? "READY" : "NOT READY", r->ready_after ? "READY" : "NOT READY");
    if (!r->ready_after) printf(" (%u blocker%s; first %s)", r->blockers_after, r->blockers_after == 1 ? "" : "s", r->first_blocker);
    putchar('\n');
    fputs("wrote ", stdout);
    cli_write_path(stdout, a->out);
    printf(" (%zu bytes, sha256 %s)\n", size, hex);
    return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
}

/* ---------------------------------------------------------------- JSON */

static void weights_json(json_w *j, const lg_quant_report *r) {
    json_key(j, "weights");
    json_obj_open(j);
    json_key_uint(j, "n_weights", r->n_weights);
    json_key_int(j, "n_params", r->n_params);
    json_key_uint(j, "bytes_before", r->weights_before);
    json_key_uint(j, "bytes_after", r->weights_after);
    json_key_uint(j, "bytes_fp32", r->weights_fp32);
    json_key(j, "ratio_fp32");
    if (r->weights_fp32) json_double(j, (double)r->weights_after / (double)r->weights_fp32);
    else json_null(j);
    json_key_uint(j, "n_already_fp16", r->n_already);
    json_key_uint(j, "n_bias_fp32", r->n_bias_fp32);
    json_key_uint(j, "n_excluded", r->n_excluded);
    json_key_uint(j, "n_skipped", r->n_skipped);
    json_key(j, "tensors");
    json_arr_open(j);
    for (uint32_t i = 0; i < r->n_weights; i++) {
        const lg_quant_weight *w = &r->weights[i];
        json_obj_open_flat(j);
        json_key_int(j, "tensor", w->tensor);
        json_key_str(j, "name", w->name);
        json_key_str(j, "stored", w->stored);
        json_key_int(j, "op", w->op);
        json_key_str(j, "op_name", lg_builtin_name(w->code));
        json_key_str(j, "from", dtype(w->from_type));
        json_key_str(j, "to", dtype(w->to_type));
        json_key_int(j, "n_params", w->numel);
        json_key(j, "axis");
        if (w->axis >= 0 && w->to_type != LG_FLOAT16) json_int(j, w->axis);
        else json_null(j);
        json_key_uint(j, "n_scales", w->to_type == LG_FLOAT16 ? 0 : w->n_scales);
        json_key(j, "block");
        if (w->block) json_uint(j, w->block);
        else json_null(j);
        json_key_uint(j, "bytes_before", w->bytes_before);
        json_key_uint(j, "bytes_after", w->bytes_after);
        json_key_double(j, "max_abs", w->max_abs);
        json_key_double(j, "max_error", w->max_err);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_key(j, "skipped");
    json_arr_open(j);
    for (uint32_t i = 0; i < r->n_skipped; i++) {
        const lg_quant_skip *s = &r->skipped[i];
        json_obj_open_flat(j);
        json_key_int(j, "tensor", s->tensor);
        json_key_str(j, "name", s->name);
        json_key_int(j, "op", s->op);
        json_key_bool(j, "excluded", s->excluded);
        json_key_str(j, "why", s->why);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_obj_close(j);
}

static void parity_json(json_w *j, const lg_quant_report *r) {
    json_key(j, "parity");
    if (!r->measured) {
        json_null(j);
        json_key_str(j, "parity_note", r->measure_note);
        return;
    }
    json_obj_open(j);
    json_key_uint(j, "n_cases", r->n_cases);
    json_key(j, "cases");
    json_arr_open_flat(j);
    for (uint32_t k = 0; k < r->n_cases; k++) json_str(j, r->case_names[k]);
    json_arr_close(j);
    json_key_uint(j, "n_outputs", r->n_outputs);
    json_key(j, "outputs");
    json_arr_open(j);
    for (uint32_t k = 0; k < r->n_outputs; k++) {
        const lg_quant_output *o = &r->outputs[k];
        json_obj_open_flat(j);
        json_key_uint(j, "index", o->index);
        json_key_str(j, "name", o->name);
        json_key_double(j, "snr_db", o->snr_db); /* null: exact (no error) or an all-zero reference */
        json_key_bool(j, "exact", o->max_abs == 0);
        json_key_double(j, "cosine", o->cosine);
        json_key_double(j, "max_abs", o->max_abs);
        json_key_double(j, "ref_max_abs", o->ref_max_abs);
        json_key_uint(j, "n_argmax_equal", o->n_argmax_equal);
        json_key_uint(j, "n_cases", o->n_cases);
        json_key_double(j, "score", o->worst_score);
        json_key_bool(j, "pass", o->pass);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_key_uint(j, "n_tensors_compared", r->n_tensors_compared);
    json_key(j, "first_divergent");
    if (r->first_divergent_op >= 0) {
        json_obj_open_flat(j);
        json_key_int(j, "op", r->first_divergent_op);
        json_key_str(j, "op_name", r->first_divergent_op_name);
        json_key_int(j, "tensor", r->first_divergent_tensor);
        json_key_str(j, "name", r->first_divergent_name);
        json_key_double(j, "score", r->first_divergent_score);
        json_key_str(j, "why", r->first_divergent_why);
        json_obj_close(j);
    } else {
        json_null(j);
    }
    json_obj_close(j);
}

static int print_json(const q_args *a, const lg_quant_report *r, uint64_t in_size, size_t size, const char *hex,
                      const q_manifest *mf) {
    json_w j;
    json_init(&j, stdout);
    json_obj_open(&j);
    json_key_str(&j, "verb", "quantize");
    json_key_str(&j, "model", a->model);
    json_key_bool(&j, "ok", !r->swept || r->target_met); /* exit 0 exactly then */
    json_key_str(&j, "output", a->out);
    json_key_uint(&j, "input_size", in_size);
    json_key_uint(&j, "size", size);
    json_key_str(&j, "sha256", hex);
    json_key_str(&j, "mode", lg_quant_mode_name(r->mode));
    json_key_str(&j, "granularity", granularity(r));
    json_key(&j, "block");
    if (r->block_size) json_uint(&j, r->block_size);
    else json_null(&j);
    weights_json(&j, r);
    static_json(&j, r);
    sweep_json(&j, r);
    json_key(&j, "constants");
    json_obj_open_flat(&j);
    json_key_uint(&j, "bytes_before", r->const_before);
    json_key_uint(&j, "bytes_after", r->const_after);
    json_obj_close(&j);
    json_key_uint(&j, "n_ops_before", r->ops_before);
    json_key_uint(&j, "n_ops_after", r->ops_after);
    json_key(&j, "exclude");
    json_arr_open(&j);
    for (uint32_t k = 0; k < r->n_exclude; k++) {
        json_obj_open_flat(&j);
        json_key_str(&j, "pattern", a->exclude[k]);
        json_key_uint(&j, "n_ops", r->exclude_hits[k]);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_key(&j, "calibration");
    json_arr_open(&j);
    for (uint32_t k = 0; k < mf->n; k++) {
        json_obj_open_flat(&j);
        json_key_str(&j, "path", mf->files[k].name);
        json_key_str(&j, "sha256", mf->files[k].sha256);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    parity_json(&j, r);
    json_key(&j, "gpu");
    json_obj_open_flat(&j);
    json_key_str(&j, "note", r->gpu_note);
    json_obj_close(&j);
    json_key(&j, "check");
    json_obj_open(&j);
    json_key_str(&j, "target", lg_target_name(r->target));
    json_key_str(&j, "gpu", lg_gpu_name(r->gpu));
    json_key(&j, "before");
    json_obj_open_flat(&j);
    json_key_bool(&j, "ok", r->ready_before);
    json_key_uint(&j, "n_blockers", r->blockers_before);
    json_obj_close(&j);
    json_key(&j, "after");
    json_obj_open_flat(&j);
    json_key_bool(&j, "ok", r->ready_after);
    json_key_uint(&j, "n_blockers", r->blockers_after);
    json_key_str(&j, "first_blocker", r->ready_after ? NULL : r->first_blocker);
    json_obj_close(&j);
    json_obj_close(&j);
    json_key_str(&j, "metadata", r->metadata);
    json_obj_close(&j);
    return json_finish(&j);
}

/* ---------------------------------------------------------------- the verb */


/* The calibration's progress on a terminal (stderr), one line rewritten in place. */
static void q_progress(void *ud, const char *what, uint64_t done, uint64_t total) {
    (void)ud;
    fprintf(stderr, "\rquantize: %s %llu/%llu", what, (unsigned long long)done, (unsigned long long)total);
    if (done >= total) fputc('\n', stderr);
}

/* --target-error X (the relative RMS error E, in (0, 1)) or NdB (an SNR: E = 10^(-N/20), N > 0). */
static int target_option(const cli_verb *v, const q_args *a, lg_quant_options *o) {
    if (a->sensitivity && !a->target_error) return cli_usage_error(v, "--sensitivity goes with --target-error");
    if (!a->target_error) return CLI_OK;
    if (o->mode != LG_QUANT_INT8_STATIC) return cli_usage_error(v, "--target-error goes with int8-static");
    char *end = NULL;
    double x = strtod(a->target_error, &end);
    const bool num = end && end != a->target_error;
    const bool db = num && (strcmp(end, "dB") == 0 || strcmp(end, "db") == 0);
    if (db && x > 0 && isfinite(x)) x = lg_quant_error_from_db(x);
    else if (!num || *end || !(x > 0 && x < 1))
        return cli_usage_error(v, "--target-error '%s': the relative RMS output error, in (0, 1), or an SNR above 0 such as 30dB",
                               a->target_error);
    o->target_error = x;
    if (a->sensitivity) {
        int s = lg_quant_sensitivity_from_name(a->sensitivity);
        if (s < 0) return cli_usage_error(v, "unknown sensitivity measure '%s' (leave-one-out or alone)", a->sensitivity);
        o->sensitivity = (lg_quant_sensitivity)s;
    }
    return CLI_OK;
}

/* --range, --percentile, --int8-io (int8-static only); --calib is required by the library. */
static int static_options(const cli_verb *v, const q_args *a, lg_quant_options *o) {
    if (o->mode != LG_QUANT_INT8_STATIC) {
        if (a->range || a->percentile || a->int8_io) return cli_usage_error(v, "--range, --percentile and --int8-io go with int8-static");
        return CLI_OK;
    }
    o->int8_io = a->int8_io;
    o->range = LG_RANGE_MINMAX;
    if (isatty(2)) o->progress = q_progress;
    if (a->range) {
        int r = lg_quant_range_from_name(a->range);
        if (r < 0) return cli_usage_error(v, "unknown range method '%s' (minmax, percentile or mse)", a->range);
        o->range = (lg_quant_range)r;
    }
    if (a->percentile) {
        char *end = NULL;
        double pc = strtod(a->percentile, &end);
        if (!end || *end || end == a->percentile || !(pc > 50 && pc <= 100))
            return cli_usage_error(v, "--percentile '%s': the kept fraction in percent, in (50, 100]", a->percentile);
        if (a->range && o->range != LG_RANGE_PERCENTILE) return cli_usage_error(v, "--percentile goes with --range percentile");
        o->range = LG_RANGE_PERCENTILE;
        o->percentile = pc;
    }
    return CLI_OK;
}

static int parse_options(const cli_verb *v, const q_args *a, lg_quant_options *o) {
    memset(o, 0, sizeof *o);
    if (!a->mode) return cli_usage_error(v, "missing --mode (fp16, int8-weights, int4-weights, int8-dynamic or int8-static)");
    int md = lg_quant_mode_from_name(a->mode);
    if (md < 0) return cli_usage_error(v, "unknown mode '%s' (fp16, int8-weights, int4-weights, int8-dynamic, int8-static)", a->mode);
    if (!lg_quant_mode_supported((lg_quant_mode)md))
        return cli_error("--mode %s is not implemented yet (fp16, int8-weights, int4-weights, int8-dynamic and int8-static are)", a->mode);
    o->mode = (lg_quant_mode)md;
    if (a->per_channel && a->per_tensor) return cli_usage_error(v, "--per-channel and --per-tensor exclude each other");
    if ((a->per_channel || a->per_tensor) && o->mode == LG_QUANT_FP16)
        return cli_usage_error(v, "--per-channel/--per-tensor go with int8-weights, int4-weights or int8-dynamic");
    o->per_tensor = a->per_tensor;
    int rs = static_options(v, a, o);
    if (rs != CLI_OK) return rs;
    if ((rs = target_option(v, a, o)) != CLI_OK) return rs;
    if (a->block) {
        if (o->mode != LG_QUANT_INT4_WEIGHTS) return cli_usage_error(v, "--block goes with int4-weights");
        /* measured with LiteRT.js 2.5.3: its DEQUANTIZE kernel (tflite/kernels/dequantize.h) reads
           affine parameters only and returns zeros for a BlockwiseQuantization tensor */
        return cli_error("--block %s: blockwise INT4 read through DEQUANTIZE does not run on LiteRT (its DEQUANTIZE "
                         "kernel ignores BlockwiseQuantization and returns zeros): int4-weights stores per-channel INT4",
                         a->block);
    }
    o->exclude = a->exclude;
    o->n_exclude = (uint32_t)a->n_exclude;
    if (a->target) {
        int t = lg_target_from_name(a->target);
        if (t < 0) return cli_usage_error(v, "unknown target '%s' (mldrift or classic)", a->target);
        o->target = (lg_target)t;
    }
    if (a->gpu) {
        int g = lg_gpu_from_name(a->gpu);
        if (g < 0) return cli_usage_error(v, "unknown GPU family '%s' (any, mali, adreno or webgpu)", a->gpu);
        if (g == LG_GPU_WEBGPU && o->target == LG_TARGET_CLASSIC) return cli_usage_error(v, "--gpu webgpu goes with --target mldrift");
        o->gpu = (lg_gpu)g;
    }
    o->n_random = 2;
    o->seed = 1;
    return CLI_OK;
}

/* --eval DIR: the evaluation sets (cli_calib_load's layout), kept apart from the calibration. */
static int load_eval(const q_args *a, const lg_tensor_view *views, uint32_t n, cli_calib *ev, const char ***names,
                     lg_quant_options *o) {
    if (cli_calib_load(views, n, a->eval, 4096, ev)) return CLI_ERROR;
    *names = calloc(ev->n ? ev->n : 1, sizeof **names);
    if (!*names) return cli_error("out of memory");
    for (uint32_t k = 0; k < ev->n; k++) (*names)[k] = ev->names[k];
    o->eval_cases = (const void *const *const *)ev->ptrs;
    o->n_eval = ev->n;
    o->eval_names = *names;
    if (isatty(2)) fprintf(stderr, "quantize: %u evaluation input set(s) from %s\n", ev->n, a->eval);
    return CLI_OK;
}

/* --input, --calib and --eval: the inputs the parity runs on, and the manifest. */
static int load_inputs(const q_args *a, const lg_model *m, cli_inputs *in, cli_calib *cal, q_manifest *mf,
                       cli_calib *ev, const char ***ev_names, lg_quant_options *o) {
    lg_interp *it = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_error err;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) {
        if (a->n_inputs || a->calib || a->eval) return cli_lib_error(a->model, &err);
        return CLI_OK; /* litegpu cannot run it: the report says so */
    }
    int rc = CLI_OK;
    if (a->n_inputs) {
        rc = cli_inputs_make(it, a->inputs, a->n_inputs, "pattern", in);
        if (!rc) o->golden = (const void *const *)in->data;
    }
    uint32_t n = lg_interp_n_inputs(it);
    lg_tensor_view *views = calloc(n ? n : 1, sizeof *views);
    if (!views) rc = cli_error("out of memory");
    for (uint32_t i = 0; !rc && i < n; i++) lg_interp_input(it, i, &views[i]);
    if (!rc && a->calib) rc = cli_calib_load(views, n, a->calib, 4096, cal);
    if (!rc && a->calib) rc = make_manifest(a->calib, cal, views, n, mf);
    if (!rc && a->calib) {
        o->cases = (const void *const *const *)cal->ptrs;
        o->n_cases = cal->n;
        o->case_names = mf->sets;
        o->calib_files = mf->files;
        o->n_calib_files = mf->n;
        if (isatty(2)) fprintf(stderr, "quantize: %u calibration input set(s) from %s\n", cal->n, a->calib);
    }
    if (!rc && a->eval) rc = load_eval(a, views, n, ev, ev_names, o);
    free(views);
    lg_interp_free(it);
    return rc;
}

int cmd_quantize(const cli_verb *v, int argc, char **argv) {
    q_args a;
    memset(&a, 0, sizeof a);
    const cli_flag flags[] = {
        {"--output", "-o", NULL, &a.out, NULL, NULL, 0},
        {"--mode", "-m", NULL, &a.mode, NULL, NULL, 0},
        {"--per-channel", NULL, &a.per_channel, NULL, NULL, NULL, 0},
        {"--per-tensor", NULL, &a.per_tensor, NULL, NULL, NULL, 0},
        {"--block", NULL, NULL, &a.block, NULL, NULL, 0},
        {"--exclude", NULL, NULL, NULL, a.exclude, &a.n_exclude, 64},
        {"--input", "-i", NULL, NULL, a.inputs, &a.n_inputs, 64},
        {"--calib", NULL, NULL, &a.calib, NULL, NULL, 0},
        {"--range", NULL, NULL, &a.range, NULL, NULL, 0},
        {"--percentile", NULL, NULL, &a.percentile, NULL, NULL, 0},
        {"--int8-io", NULL, &a.int8_io, NULL, NULL, NULL, 0},
        {"--eval", NULL, NULL, &a.eval, NULL, NULL, 0},
        {"--target-error", NULL, NULL, &a.target_error, NULL, NULL, 0},
        {"--sensitivity", NULL, NULL, &a.sensitivity, NULL, NULL, 0},
        {"--target", "-t", NULL, &a.target, NULL, NULL, 0},
        {"--gpu", NULL, NULL, &a.gpu, NULL, NULL, 0},
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
    if (n_pos != 1) return cli_usage_error(v, "missing MODEL");
    if (!a.out) return cli_usage_error(v, "missing -o OUT");
    a.model = pos[0];
    lg_quant_options o;
    if ((rc = parse_options(v, &a, &o)) != CLI_OK) return rc;
    if (cli_same_file(a.model, a.out)) return cli_error("%s: refusing to write over the input file", a.out);
    if (cli_output_check(a.out, a.force)) return CLI_ERROR;
    int ev_n = 0;
    if (cli_evidence_begin(a.ev_dir, a.ev_runs, &ev_n)) return CLI_ERROR;
    struct stat st_in;
    uint64_t in_size = stat(a.model, &st_in) == 0 ? (uint64_t)st_in.st_size : 0;

    lg_model *m = NULL;
    if ((rc = cli_load_model(a.model, &m)) != CLI_OK) return rc;
    cli_inputs in = {0};
    cli_calib cal, ev;
    const char **ev_names = NULL;
    q_manifest mf;
    memset(&cal, 0, sizeof cal);
    memset(&ev, 0, sizeof ev);
    memset(&mf, 0, sizeof mf);
    lg_model *q = NULL;
    lg_quant_report *rep = NULL;
    lg_error err;
    rc = load_inputs(&a, m, &in, &cal, &mf, &ev, &ev_names, &o);
    if (rc == CLI_OK && lg_quantize(m, &o, &q, &rep, &err) != LG_OK) rc = cli_lib_error(a.model, &err);
    cli_inputs_free(&in);
    cli_calib_free(&cal);
    cli_calib_free(&ev);
    free(ev_names);
    lg_model_free(m);
    if (rc != CLI_OK) {
        manifest_free(&mf);
        return rc;
    }
    size_t size = 0;
    char hex[65];
    int wrc = cli_write_model(q, a.out, a.force, false, &size, hex);
    lg_model_free(q);
    if (wrc != CLI_OK) {
        lg_quant_report_free(rep);
        manifest_free(&mf);
        return wrc;
    }
    if (a.ev_dir && cli_evidence_quantize(&(cli_evidence_quantize_flags){a.ev_dir, ev_n, argc, argv, a.model, a.out, a.calib,
                                                                a.eval, a.exclude, mf.files, mf.n}, rep) != CLI_OK) {
        lg_quant_report_free(rep);
        manifest_free(&mf);
        return CLI_ERROR;
    }
    int prc = a.json ? print_json(&a, rep, in_size, size, hex, &mf) : print_text(&a, rep, in_size, size, hex, &mf);
    const bool missed = rep->swept && !rep->target_met;
    lg_quant_report_free(rep);
    manifest_free(&mf);
    if (prc != 0) return cli_error("writing the report failed");
    return missed ? CLI_FINDINGS : CLI_OK; /* the target error not met: a result, like compare's 1 */
}
