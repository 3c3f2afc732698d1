/* Evidence records of the verbs that existed before the refactoring verbs: what convert, fix
   and quantize put in one_primary_change and structural_checks (evidence.h). Each takes the
   library's report of the run, so the verbs' files only parse --evidence and call these. */
#include <stdlib.h>
#include <string.h>

#include "evidence.h"
#include "json.h"
#include "lg/fix.h"
#include "lg/passes.h"
#include "lg/quantize.h"

/* ---------------------------------------------------------------- convert */

/* --evidence DIR: the record of this conversion (the change: the format and the flags; the
   checks: validation and, with --optimize, every pass's parity). */
int cli_evidence_convert(const char *dir, int runs, int argc, char **argv, const char *in, const char *out,
                         const cli_onnx_options *oo, bool optimize, bool external, const struct lg_pass_report *rep) {
    bool onnx = oo != NULL;
    cli_jtext c, k;
    if (cli_jtext_open(&c)) return CLI_ERROR;
    json_obj_open_flat(&c.j);
    json_key_str(&c.j, "kind", "convert");
    json_key_str(&c.j, "source_format", onnx ? "onnx" : "tflite");
    json_key_str(&c.j, "target_format", "tflite");
    json_key_bool(&c.j, "optimize", optimize);
    json_key_bool(&c.j, "external_buffers", external);
    if (onnx) {
        json_key_str(&c.j, "weights", oo->weights_fp16 ? "fp16" : "fp32");
        json_key_bool(&c.j, "nhwc_io", oo->nhwc_io);
        json_key(&c.j, "input_shapes");
        json_arr_open_flat(&c.j);
        for (int i = 0; i < oo->n_shapes; i++) json_str(&c.j, oo->shapes[i]);
        json_arr_close(&c.j);
    }
    json_obj_close(&c.j);
    char *change = cli_jtext_close(&c);
    if (cli_jtext_open(&k)) { free(change); return CLI_ERROR; }
    json_arr_open_flat(&k.j);
    json_obj_open_flat(&k.j);
    json_key_str(&k.j, "check", "validate");
    json_key_bool(&k.j, "ok", true); /* lg_model_validate passed, or nothing was written */
    json_obj_close(&k.j);
    for (uint32_t i = 0; rep && i < rep->n_passes; i++) {
        const lg_pass_result *p = &rep->passes[i];
        json_obj_open_flat(&k.j);
        json_key_str(&k.j, "check", "optimize_parity");
        json_key_str(&k.j, "pass", p->pass);
        json_key_uint(&k.j, "n_rewrites", p->delta.applied);
        json_key_bool(&k.j, "exact", p->exact);
        if (p->parity_measured) {
            json_key_uint(&k.j, "n_cases", p->n_cases);
            json_key_double(&k.j, "max_abs", p->max_abs);
            json_key_double(&k.j, "max_rel", p->max_rel);
            json_key_double(&k.j, "bound", p->bound);
            json_key_bool(&k.j, "ok", p->max_rel <= p->bound);
        } else {
            json_key(&k.j, "ok");
            json_null(&k.j);
        }
        json_obj_close(&k.j);
    }
    json_arr_close(&k.j);
    char *checks = cli_jtext_close(&k);
    int rc = CLI_ERROR;
    if (!change || !checks) {
        cli_error("out of memory");
    } else {
        cli_evidence e = {0};
        e.dir = dir;
        e.verb = "convert";
        e.argc = argc;
        e.argv = argv;
        e.baseline = in;
        e.candidate = out;
        e.hypothesis = "the .tflite computes what the input model computes (fp32)";
        e.change_json = change;
        e.checks_json = checks;
        e.onnx = onnx ? oo : NULL;
        e.runs = runs;
        rc = cli_evidence_write(&e);
    }
    free(change);
    free(checks);
    return rc;
}

/* ---------------------------------------------------------------- fix */

/* The structural check "check_verdict": check's verdict on the baseline and the candidate
   (target named when given; warnings < 0: not counted by the verb). */
static void verdict_json(json_w *j, const char *target, bool ok_b, uint64_t blk_b, int64_t warn_b,
                         bool ok_a, uint64_t blk_a, int64_t warn_a) {
    json_obj_open_flat(j);
    json_key_str(j, "check", "check_verdict");
    if (target) json_key_str(j, "target", target);
    for (int side = 0; side < 2; side++) {
        json_key(j, side ? "after" : "before");
        json_obj_open_flat(j);
        json_key_bool(j, "ok", side ? ok_a : ok_b);
        json_key_uint(j, "n_blockers", side ? blk_a : blk_b);
        int64_t w = side ? warn_a : warn_b;
        if (w >= 0) json_key_uint(j, "n_warnings", (uint64_t)w);
        json_obj_close(j);
    }
    json_key_bool(j, "ok", ok_a);
    json_obj_close(j);
}

static void json_rules(json_w *j, const char *const *rules) {
    json_key(j, "rules");
    json_arr_open_flat(j);
    for (uint32_t k = 0; k < 4 && rules[k]; k++) json_str(j, rules[k]);
    json_arr_close(j);
}

/* --evidence DIR: the change is the passes applied and the rules they removed; the checks are
   the end-to-end fp32 parity (against the sum of the passes' bounds) and check's verdict. */
static bool rule_left(const lg_fix_report *r, const char *rule) {
    for (uint32_t i = 0; i < r->n_left; i++)
        if (strcmp(r->left[i].rule, rule) == 0) return true;
    return false;
}

static void fix_change_json(json_w *j, const cli_evidence_fix_flags *a, const lg_fix_report *r) {
    json_obj_open_flat(j);
    json_key_str(j, "kind", "fix");
    json_key_str(j, "target", lg_target_name(r->target));
    json_key_str(j, "gpu", lg_gpu_name(r->gpu));
    json_key_bool(j, "allow_approx", a->allow_approx);
    json_key_bool(j, "remove_warnings", a->warnings);
    json_key_bool(j, "io_int32", a->io_int32);
    json_key_str(j, "outputs", a->outputs);
    json_key(j, "input_shapes");
    json_arr_open_flat(j);
    for (int i = 0; i < a->n_shapes; i++) json_str(j, a->shapes[i]);
    json_arr_close(j);
    json_key(j, "frozen");
    json_arr_open_flat(j);
    for (int i = 0; i < a->n_freezes; i++) json_str(j, a->freezes[i]);
    json_arr_close(j);
    json_key(j, "passes");
    json_arr_open_flat(j);
    for (uint32_t i = 0; i < r->n_steps; i++) {
        const lg_fix_step *st = &r->steps[i];
        json_obj_open_flat(j);
        json_key_uint(j, "round", st->round);
        json_key_str(j, "pass", st->result.pass);
        json_rules(j, st->rules);
        json_key_uint(j, "n_rewrites", st->result.delta.applied);
        json_key_bool(j, "exact", st->result.exact);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_key(j, "rules_removed");
    json_arr_open_flat(j);
    for (uint32_t i = 0; i < r->n_steps; i++)
        for (uint32_t k = 0; k < 4 && r->steps[i].rules[k]; k++) {
            const char *rule = r->steps[i].rules[k];
            bool dup = false;
            for (uint32_t q = 0; q <= i && !dup; q++)
                for (uint32_t x = 0; x < 4 && r->steps[q].rules[x] && !dup; x++)
                    dup = (q < i || x < k) && strcmp(r->steps[q].rules[x], rule) == 0;
            if (!dup && !rule_left(r, rule)) json_str(j, rule);
        }
    json_arr_close(j);
    json_obj_close(j);
}

static void fix_checks_json(json_w *j, const lg_fix_report *r) {
    json_arr_open_flat(j);
    json_obj_open_flat(j);
    json_key_str(j, "check", "fp32_parity");
    if (r->parity_measured) {
        double bound = 0;
        for (uint32_t i = 0; i < r->n_steps; i++) bound += r->steps[i].result.exact ? 1e-6 : r->steps[i].result.bound;
        json_key_uint(j, "n_cases", r->n_cases);
        json_key_double(j, "max_abs", r->max_abs);
        json_key_double(j, "max_rel", r->max_rel);
        json_key_double(j, "min_pearson", r->min_pearson);
        json_key_double(j, "bound", bound);
        json_key_bool(j, "ok", r->max_rel <= bound);
    } else {
        json_key_str(j, "note", r->parity_note[0] ? r->parity_note : "not measured");
        json_key(j, "ok");
        json_null(j);
    }
    json_obj_close(j);
    verdict_json(j, NULL, r->ready_before, r->blockers_before, (int64_t)r->warnings_before,
                 r->ready_after, r->blockers_after, (int64_t)r->warnings_after);
    json_arr_close(j);
}

int cli_evidence_fix(const cli_evidence_fix_flags *a, const struct lg_fix_report *r) {
    cli_jtext c, k;
    if (cli_jtext_open(&c)) return CLI_ERROR;
    fix_change_json(&c.j, a, r);
    char *change = cli_jtext_close(&c), *checks = NULL;
    if (cli_jtext_open(&k) == CLI_OK) {
        fix_checks_json(&k.j, r);
        checks = cli_jtext_close(&k);
    }
    int rc = CLI_ERROR;
    if (change && checks) {
        cli_evidence e = {0};
        e.dir = a->dir;
        e.verb = "fix";
        e.argc = a->argc;
        e.argv = a->argv;
        e.baseline = a->model;
        e.candidate = a->out;
        e.hypothesis = "the rewrites remove the GPU blockers and keep the model's fp32 outputs";
        e.change_json = change;
        e.checks_json = checks;
        e.calib = a->calib;
        e.calib_is_fit = a->calib != NULL; /* the hardening gate chose its rewrites on them */
        e.runs = a->runs;
        rc = cli_evidence_write(&e);
    } else {
        cli_error("out of memory");
    }
    free(change);
    free(checks);
    return rc;
}

/* ---------------------------------------------------------------- quantize */

static const char *granularity(const lg_quant_report *r) {
    if (r->mode == LG_QUANT_FP16) return NULL;
    return r->per_tensor ? "per-tensor" : r->block_size ? "blockwise" : "per-channel";
}

/* --evidence DIR: the change is the mode, granularity, range estimator, exclusions and the
   calibration files; the checks are the parity per output and check's verdict before/after.
   The record's output error is measured on --eval, else on --calib (marked as fitted on). */
static void q_change_json(json_w *j, const cli_evidence_quantize_flags *a, const lg_quant_report *r) {
    json_obj_open_flat(j);
    json_key_str(j, "kind", "quantize");
    json_key_str(j, "mode", lg_quant_mode_name(r->mode));
    json_key_str(j, "granularity", granularity(r));
    json_key_str(j, "range", r->mode == LG_QUANT_INT8_STATIC ? lg_quant_range_name(r->range) : NULL);
    json_key(j, "percentile");
    if (r->mode == LG_QUANT_INT8_STATIC && r->range == LG_RANGE_PERCENTILE) json_double(j, r->percentile);
    else json_null(j);
    json_key_bool(j, "int8_io", r->int8_io);
    json_key(j, "target_error");
    if (r->swept) json_double(j, r->target_error);
    else json_null(j);
    json_key_uint(j, "n_kept_float", r->swept ? r->n_kept : 0);
    json_key(j, "exclude");
    json_arr_open_flat(j);
    for (uint32_t k = 0; k < r->n_exclude; k++) {
        json_obj_open_flat(j);
        json_key_str(j, "pattern", a->exclude[k]);
        json_key_uint(j, "n_ops", r->exclude_hits[k]);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_key_uint(j, "n_weights", r->n_weights);
    json_key(j, "calibration");
    json_arr_open_flat(j);
    for (uint32_t k = 0; k < a->n_calib_files; k++) {
        json_obj_open_flat(j);
        json_key_str(j, "path", a->calib_files[k].name);
        json_key_str(j, "sha256", a->calib_files[k].sha256);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_obj_close(j);
}

static void q_checks_json(json_w *j, const lg_quant_report *r) {
    json_arr_open_flat(j);
    for (uint32_t k = 0; r->measured && k < r->n_outputs; k++) {
        const lg_quant_output *o = &r->outputs[k];
        json_obj_open_flat(j);
        json_key_str(j, "check", "parity");
        json_key_uint(j, "output", o->index);
        json_key_str(j, "name", o->name);
        json_key_uint(j, "n_cases", o->n_cases);
        json_key_double(j, "snr_db", o->snr_db); /* null: exact or an all-zero reference */
        json_key_double(j, "cosine", o->cosine);
        json_key_double(j, "max_abs", o->max_abs);
        json_key_uint(j, "n_argmax_equal", o->n_argmax_equal);
        json_key_double(j, "score", o->worst_score);
        json_key_bool(j, "ok", o->pass);
        json_obj_close(j);
    }
    if (!r->measured) {
        json_obj_open_flat(j);
        json_key_str(j, "check", "parity");
        json_key_str(j, "note", r->measure_note);
        json_key(j, "ok");
        json_null(j);
        json_obj_close(j);
    }
    verdict_json(j, lg_target_name(r->target), r->ready_before, r->blockers_before, -1,
                 r->ready_after, r->blockers_after, -1);
    json_arr_close(j);
}

int cli_evidence_quantize(const cli_evidence_quantize_flags *a, const struct lg_quant_report *r) {
    cli_jtext c, k;
    if (cli_jtext_open(&c)) return CLI_ERROR;
    q_change_json(&c.j, a, r);
    char *change = cli_jtext_close(&c), *checks = NULL;
    if (cli_jtext_open(&k) == CLI_OK) {
        q_checks_json(&k.j, r);
        checks = cli_jtext_close(&k);
    }
    int rc = CLI_ERROR;
    if (change && checks) {
        cli_evidence e = {0};
        e.dir = a->dir;
        e.verb = "quantize";
        e.argc = a->argc;
        e.argv = a->argv;
        e.baseline = a->model;
        e.candidate = a->out;
        e.hypothesis = "the quantized model is smaller and keeps the outputs within the quality contract";
        e.change_json = change;
        e.checks_json = checks;
        e.calib = a->eval ? a->eval : a->calib;
        e.calib_is_fit = !a->eval && a->calib;
        e.runs = a->runs;
        rc = cli_evidence_write(&e);
    } else {
        cli_error("out of memory");
    }
    free(change);
    free(checks);
    return rc;
}

