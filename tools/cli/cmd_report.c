/* litegpu report: one self-contained HTML page about a model (report_html.h): info, check,
   the fp16 error curve (compare), the memory timeline and latency (the f32 interpreter), and
   before/after. Everything comes from the library's results; this file gathers them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "json.h"
#include "report_html.h"
#include "run_common.h"

/* ---- per-op times: the interpreter's profile (lg/run.h lg_run_options.profile, the counters
   bench --profile prints): one clock reading per op boundary, so the ops tile each run */

typedef struct op_times {
    double *acc;   /* per op: ms per run (the profile's mean over the timed runs) */
} op_times;

/* The runs: at least 2 (1 for a model slower than 0.4 s), until about 0.4 s of each kind. */
#define TIME_BUDGET_MS 400.0
#define MAX_RUNS 20

static int cmp_type_ms(const void *a, const void *b) {
    const rpt_type_time *x = a, *y = b;
    if (x->ms != y->ms) return x->ms > y->ms ? -1 : 1;
    return strcmp(x->op, y->op);
}

/* The latency by op type: count, ms per run, sorted by time (the table's %, cdf % follow).
   d->op_ms comes from the interpreter's profile (time_ops below), as bench --profile's. */
static int rpt_profile_by_type(rpt_data *d) {
    d->n_by_type = 0;
    if (!d->op_ms) return 0;
    d->by_type = calloc(d->n_ops ? d->n_ops : 1, sizeof *d->by_type);
    if (!d->by_type) return -1;
    const lg_subgraph *sg = &d->cur.m->subgraphs[0];
    for (uint32_t i = 0; i < d->n_ops; i++) {
        /* named as info's census names them: custom ops together as CUSTOM */
        const char *name = lg_op_builtin(d->cur.m, &sg->ops[i]) == LG_OP_CUSTOM ? "CUSTOM" : lg_op_name(d->cur.m, &sg->ops[i]);
        uint32_t k = 0;
        while (k < d->n_by_type && strcmp(d->by_type[k].op, name) != 0) k++;
        if (k == d->n_by_type) { d->by_type[k].op = name; d->n_by_type++; }
        d->by_type[k].count++;
        d->by_type[k].ms += d->op_ms[i];
    }
    qsort(d->by_type, d->n_by_type, sizeof *d->by_type, cmp_type_ms);
    return 0;
}

/* Whole runs (median of bench's wall clock), the profile's counters reset after the warm-up:
   the per-op mean over the same timed runs. */
static int time_ops(lg_interp *it, const cli_inputs *in, op_times *clk, rpt_data *d, lg_error *err) {
    double ts[MAX_RUNS], spent = 0;
    int n = 0;
    if (cli_inputs_set(it, in) || lg_interp_invoke(it, err) != LG_OK) return -1; /* warm-up */
    lg_interp_profile_reset(it);
    while (n < MAX_RUNS && (n < 2 || spent < TIME_BUDGET_MS)) {
        double a = cli_now_ms();
        if (lg_interp_invoke(it, err) != LG_OK) return -1;
        ts[n] = cli_now_ms() - a;
        spent += ts[n++];
        if (spent > TIME_BUDGET_MS && ts[0] > TIME_BUDGET_MS) break;
    }
    double p95, mn;
    cli_time_stats(ts, n, &d->run_ms, &p95, &mn);
    const lg_profile *p = lg_interp_profile(it);
    if (!p || !p->n_invokes) return -1;
    d->op_ms_sum = 0;
    for (uint32_t i = 0; i < d->n_ops && i < p->n_ops; i++) {
        clk->acc[i] = (double)p->ns[i] / 1e6 / (double)p->n_invokes;
        d->op_ms_sum += clk->acc[i];
    }
    d->op_ms = clk->acc;
    d->n_time_runs = (uint32_t)p->n_invokes;
    d->time_source = "the interpreter's per-op profile (the counters of bench --profile: one clock reading per op "
                     "boundary), the mean over the timed runs; an op folded at prepare takes 0";
    return 0;
}

/* ---- the models */

static void model_summary(rpt_model *x, const cli_file *f, const lg_check_options *co) {
    lg_error err;
    if (lg_info_compute(x->m, f->data, f->size, &x->info, &err) != LG_OK) {
        snprintf(x->error, sizeof x->error, "%s", err.msg);
        return;
    }
    if (lg_check_model(x->m, co, &x->check, &err) != LG_OK) snprintf(x->error, sizeof x->error, "%s", err.msg);
}

/* The metadata a rewriting verb leaves ("litegpu.quantize" ...): its name and a copy. */
static void writer_metadata(rpt_data *d) {
    static const char *const names[] = {"litegpu.fix", "litegpu.quantize", "litegpu.prune", "litegpu.ablate"};
    const lg_model *m = d->cur.m;
    for (uint32_t i = 0; i < m->n_metadata; i++) {
        const char *nm = m->metadata[i].name;
        for (size_t k = 0; nm && k < sizeof names / sizeof names[0]; k++) {
            if (strcmp(nm, names[k]) != 0 || m->metadata[i].buffer >= m->n_buffers) continue;
            const lg_buffer *b = &m->buffers[m->metadata[i].buffer];
            size_t n = b->data ? (size_t)(b->size < 65536 ? b->size : 65536) : 0;
            d->writer_json = malloc(n + 1);
            if (!d->writer_json) return;
            if (n) memcpy(d->writer_json, b->data, n);
            d->writer_json[n] = 0;
            d->writer = names[k];
            return;
        }
    }
}

typedef struct report_args {
    const char *path, *out, *before, *prec;
    lg_check_options check;
    const char *const *inputs;
    int n_inputs;
    bool force, json;
} report_args;

/* (c), (d), (e): compare, the memory plan and the times; a model the interpreter cannot run
   leaves them out with why (run_error). CLI_ERROR only for a bad --input. */
static int run_parts(const report_args *a, rpt_data *d, lg_interp **it, cli_inputs *in, op_times *clk,
                     lg_precision_report **cmp, lg_precision prec) {
    lg_error err;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.profile = true;
    if (lg_interp_create(d->cur.m, &ro, it, &err) != LG_OK) {
        snprintf(d->run_error, sizeof d->run_error, "%s", err.msg);
        return 0;
    }
    const char *fill = "random:1"; /* compare's default input */
    if (cli_inputs_make(*it, a->inputs, a->n_inputs, fill, in)) return CLI_ERROR;
    d->n_inputs = lg_interp_n_inputs(*it);
    d->input_names = calloc(d->n_inputs + 1, sizeof *d->input_names);
    d->input_sources = calloc(d->n_inputs + 1, sizeof *d->input_sources);
    if (!d->input_names || !d->input_sources) return cli_error("out of memory");
    for (uint32_t i = 0; i < d->n_inputs; i++) {
        lg_tensor_view v;
        lg_interp_input(*it, i, &v);
        d->input_names[i] = v.name ? v.name : "";
        d->input_sources[i] = cli_input_source(&v, i, a->inputs, a->n_inputs, fill);
    }
    lg_compare_options o;
    memset(&o, 0, sizeof o);
    o.precision = prec;
    o.threads = 1;
    if (lg_compare_precision(d->cur.m, (const float *const *)in->data, &o, cmp, &err) != LG_OK) {
        snprintf(d->run_error, sizeof d->run_error, "%s", err.msg);
        *cmp = NULL;
    }
    d->cmp = *cmp;
    clk->acc = calloc(d->n_ops ? d->n_ops : 1, sizeof *clk->acc);
    if (!clk->acc) return cli_error("out of memory");
    if (time_ops(*it, in, clk, d, &err) != 0) {
        snprintf(d->run_error, sizeof d->run_error, "%s", err.msg);
        d->op_ms = NULL;
        return 0;
    }
    d->plan = lg_interp_mem_plan(*it);
    if (rpt_profile_by_type(d)) return cli_error("out of memory");
    return 0;
}

static void print_json(const report_args *a, const rpt_data *d, const rpt_stats *st, long long bytes) {
    json_w j;
    json_init(&j, stdout);
    json_obj_open(&j);
    json_key_str(&j, "verb", "report");
    json_key_str(&j, "model", a->path);
    json_key_bool(&j, "ok", true);
    json_key_str(&j, "output", a->out);
    json_key_int(&j, "bytes", bytes);
    json_key_str(&j, "precision", d->cmp ? lg_precision_name(d->cmp->precision) : NULL);
    json_key_uint(&j, "n_ops", d->n_ops);
    json_key_uint(&j, "n_findings", st->n_findings);
    json_key_uint(&j, "n_curve_points", st->n_curve_points);
    json_key_uint(&j, "n_exact_ops", st->n_exact_ops);
    json_key_int(&j, "first_divergent_op", d->cmp ? d->cmp->first_divergent_op : -1);
    json_key_uint(&j, "n_overflows", d->cmp ? d->cmp->n_overflows : 0);
    json_key_uint(&j, "n_memory_points", st->n_mem_points);
    json_key_int(&j, "peak_op", d->plan ? d->plan->peak_op : -1);
    json_key_double(&j, "run_ms", d->plan ? d->run_ms : NAN);
    json_key_double(&j, "op_ms_sum", d->op_ms ? d->op_ms_sum : NAN);
    json_key_str(&j, "before", a->before);
    json_key_str(&j, "written_by", d->writer);
    json_key_str(&j, "not_measured", d->run_error[0] ? d->run_error : NULL);
    json_obj_close(&j);
    json_finish(&j);
}

static int write_page(const report_args *a, rpt_data *d) {
    FILE *f = cli_output_fopen(a->out, a->force);
    if (!f) return CLI_ERROR;
    rpt_stats st;
    int w = rpt_write_html(f, d, &st);
    if (fclose(f) != 0 || w) return cli_error("cannot write %s", a->out);
    struct stat sb;
    long long bytes = stat(a->out, &sb) == 0 ? (long long)sb.st_size : -1;
    if (a->json) {
        print_json(a, d, &st, bytes);
    } else {
        printf("wrote %s (%lld bytes): ", a->out, bytes);
        if (d->cur.check) printf("%s, ", d->cur.check->ready ? "ready" : "not ready");
        if (d->cmp) {
            printf("%s %s", lg_precision_name(d->cmp->precision), d->cmp->ok ? "within tolerance" : "diverges");
            if (d->cmp->first_divergent_op >= 0) printf(" (first at op %d)", d->cmp->first_divergent_op);
        } else {
            printf("not run (%s)", d->run_error);
        }
        if (d->plan) printf(", peak activations %llu bytes at op %d", (unsigned long long)d->plan->peak_live_bytes, d->plan->peak_op);
        printf("\n");
    }
    return fflush(stdout) == 0 && !ferror(stdout) ? CLI_OK : cli_error("cannot write the report");
}

static int report(const report_args *a, lg_precision prec) {
    rpt_data d;
    memset(&d, 0, sizeof d);
    cli_file f, fb;
    lg_model *m = NULL, *mb = NULL;
    if (cli_model_load(a->path, &f, &m) != 0) return CLI_ERROR;
    int rc = CLI_ERROR;
    lg_interp *it = NULL;
    cli_inputs in = {0};
    op_times clk = {0};
    lg_precision_report *cmp = NULL;
    bool have_b = false;
    d.cur.path = a->path;
    d.cur.m = m;
    d.n_ops = m->n_subgraphs ? m->subgraphs[0].n_ops : 0;
    if (!m->n_subgraphs) { rc = cli_error("%s: no subgraph", a->path); goto out; }
    model_summary(&d.cur, &f, &a->check);
    writer_metadata(&d);
    if (a->before) {
        if (cli_model_load(a->before, &fb, &mb) != 0) goto out;
        have_b = true;
        d.before.path = a->before;
        d.before.m = mb;
        model_summary(&d.before, &fb, &a->check);
    }
    if (run_parts(a, &d, &it, &in, &clk, &cmp, prec)) goto out;
    rc = write_page(a, &d);
out:
    free(d.by_type);
    free(d.input_names);
    free(d.input_sources);
    free(d.writer_json);
    free(clk.acc);
    lg_precision_report_free(cmp);
    cli_inputs_free(&in);
    lg_interp_free(it);
    lg_info_free(d.cur.info);
    lg_check_report_free(d.cur.check);
    lg_info_free(d.before.info);
    lg_check_report_free(d.before.check);
    lg_model_free(m);
    cli_file_close(&f);
    if (have_b) {
        lg_model_free(mb);
        cli_file_close(&fb);
    }
    return rc;
}

int cmd_report(const cli_verb *v, int argc, char **argv) {
    report_args a;
    memset(&a, 0, sizeof a);
    const char *inputs[64], *target = NULL, *gpu = NULL;
    const cli_flag flags[] = {
        {"--output", "-o", NULL, &a.out, NULL, NULL, 0},
        {"--input", "-i", NULL, NULL, inputs, &a.n_inputs, 64},
        {"--precision", "-p", NULL, &a.prec, NULL, NULL, 0},
        {"--before", NULL, NULL, &a.before, NULL, NULL, 0},
        {"--target", "-t", NULL, &target, NULL, NULL, 0},
        {"--gpu", NULL, NULL, &gpu, NULL, NULL, 0},
        {"--force", NULL, &a.force, NULL, NULL, NULL, 0},
        {"--json", NULL, &a.json, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (n_pos != 1) return cli_usage_error(v, "expected one MODEL");
    if (!a.out) return cli_usage_error(v, "-o OUT.html is required");
    a.path = pos[0];
    a.inputs = inputs;
    lg_precision prec = LG_PREC_F16;
    if (a.prec) {
        int p = lg_precision_from_name(a.prec);
        if (p < 0 || p == LG_PREC_F32) return cli_usage_error(v, "--precision takes f16 or f32_f16");
        prec = (lg_precision)p;
    }
    if (target) {
        int t = lg_target_from_name(target);
        if (t < 0) return cli_usage_error(v, "unknown target '%s' (mldrift or classic)", target);
        a.check.target = (lg_target)t;
    }
    if (gpu) {
        int g = lg_gpu_from_name(gpu);
        if (g < 0) return cli_usage_error(v, "unknown GPU family '%s' (any, mali, adreno or webgpu)", gpu);
        a.check.gpu = (lg_gpu)g;
    }
    if (a.check.target == LG_TARGET_CLASSIC && a.check.gpu == LG_GPU_WEBGPU)
        return cli_usage_error(v, "--gpu webgpu goes with --target mldrift (the classic delegate has no WebGPU backend)");
    if (cli_same_file(a.path, a.out) || (a.before && cli_same_file(a.before, a.out)))
        return cli_usage_error(v, "the output may not be a model it reads");
    if (cli_output_check(a.out, a.force)) return CLI_ERROR;
    return report(&a, prec);
}
