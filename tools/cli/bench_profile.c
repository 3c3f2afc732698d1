/* bench --profile: the per-op profile of the timed runs, laid out as LiteRT's benchmark_model
 * prints its op profile (--enable_op_profiling). The layout (not the code) follows
 * tensorflow/lite/tools/benchmark/profiling_listener.cc (the "Operator-wise Profiling Info for
 * Regular Benchmark Runs:" header), tensorflow/lite/profiling/profile_summary_formatter.cc
 * (GenerateReport: the tables, then the short summary) and tensorflow/core/util/
 * stats_calculator.cc (HeaderString / ColumnString: the "Run Order" and "Top by Computation
 * Time" tables with [node type] [start] [first] [avg ms] [%] [cdf%] [mem KB] [times called]
 * [Name]; GetStatsByNodeType: "Number of nodes executed" and the "Summary by node type" table
 * with [Node type] [count] [avg ms] [avg %] [cdf %] [mem KB] [times called]; GetShortSummary:
 * "Timings (microseconds): count=..."). As there, % is of the sum of the per-op times, cdf% adds
 * up the table's rows in its order, [times called] is per run, and the summary by type is
 * sorted by time. Ours: [avg ms] is the mean over the timed runs whose wall time is within 5%
 * of the median run's (the median's rank(s) always among them), not over all n: on a shared
 * machine the runs another process preempted (bimodal: ~1.2 ms or 3-13 ms on
 * face_detection_short_range at load 4 on 2 cores) pull a mean over all runs, over the middle
 * half or even over the middle fifth by rank 30-60% above the median, and the per-op times
 * should add up to, and explain, the median run.
 * "Timings" gives the per-op sums' statistics over all n runs, as benchmark_model does. [start] is the sum of the earlier ops' averages (the interpreter runs
 * the ops one after another), [mem KB] is the bytes of the op's outputs / 1000, [Name] is the
 * op's first output tensor and its index, "[name]:index". An op folded at prepare is listed
 * in run order with 0 calls and left out of the top and the summary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_profile.h"
#include "cli.h"
#include "overlay.h"
#include <stdio.h>

typedef struct prow {
    int32_t index;
    const char *op, *output;
    double avg_ms, first_ms, start_ms, pct, mem_kb;
    uint64_t calls;
} prow;

typedef struct ptype {
    const char *op;
    int64_t count;
    double avg_ms, pct, mem_kb, calls_per_run;
} ptype;

typedef struct pdata {
    prow *rows, *top;  /* run order; the executed ops by time, the first n_top */
    ptype *types;
    uint32_t n, n_top, n_exec, n_types;
    uint64_t runs;
    long n_mid;        /* the runs [avg ms] averages: within 5% of the median */
    double sum_ms, first_sum_ms;
    double all_first, all_curr, all_min, all_max, all_mean, all_std; /* per-run sums, ms */
    double wall_mean;  /* the mean wall time of all timed runs (bench's clock), ms */
} pdata;

struct bench_prof {
    uint32_t n_ops;
    long cap, n;
    uint64_t *prev;   /* the counters at the last sample */
    double *ms;       /* n rows of n_ops: run r's time in op i */
    double *wall;     /* per run: bench's wall time */
};

enum { MAX_CELLS = 8 * 1024 * 1024 }; /* runs x ops kept: 64 MiB of doubles */

int bench_prof_new(const lg_interp *it, long runs, bench_prof **out) {
    *out = NULL;
    const lg_profile *p = lg_interp_profile(it);
    if (!p) return cli_error("the interpreter was created without profiling");
    uint32_t n = p->n_ops ? p->n_ops : 1;
    if ((double)runs * n > MAX_CELLS)
        return cli_error("--profile keeps every run's per-op times: %ld runs x %u ops is too many "
                         "(at most %d; lower --runs)", runs, p->n_ops, MAX_CELLS);
    bench_prof *bp = calloc(1, sizeof *bp);
    if (!bp) return cli_error("out of memory");
    bp->n_ops = p->n_ops;
    bp->cap = runs;
    bp->prev = calloc(n, sizeof *bp->prev);
    bp->ms = calloc((size_t)runs * n, sizeof *bp->ms);
    bp->wall = calloc((size_t)runs, sizeof *bp->wall);
    if (!bp->prev || !bp->ms || !bp->wall) { bench_prof_free(bp); return cli_error("out of memory"); }
    for (uint32_t i = 0; i < p->n_ops; i++) bp->prev[i] = p->ns[i];
    *out = bp;
    return CLI_OK;
}

void bench_prof_sample(bench_prof *bp, const lg_interp *it, double wall_ms) {
    const lg_profile *p = lg_interp_profile(it);
    if (!bp || !p || bp->n >= bp->cap) return;
    double *row = bp->ms + (size_t)bp->n * (bp->n_ops ? bp->n_ops : 1);
    for (uint32_t i = 0; i < bp->n_ops; i++) {
        row[i] = (double)(p->ns[i] - bp->prev[i]) / 1e6;
        bp->prev[i] = p->ns[i];
    }
    bp->wall[bp->n++] = wall_ms;
}

void bench_prof_free(bench_prof *bp) {
    if (!bp) return;
    free(bp->prev);
    free(bp->ms);
    free(bp->wall);
    free(bp);
}

typedef struct rank { double wall; long run; } rank;

static int by_wall(const void *a, const void *b) {
    const rank *x = a, *y = b;
    if (x->wall != y->wall) return x->wall < y->wall ? -1 : 1;
    return x->run > y->run ? 1 : x->run < y->run ? -1 : 0;
}

/* Per op, the mean over the runs within 5% of the median wall time (avg[i], ms; see the top
   of the file); the per-run sums' statistics over all runs into d. 0 or -1 (out of memory). */
static int middle_means(const bench_prof *bp, double *avg, pdata *d) {
    long n = bp->n;
    uint32_t w = bp->n_ops ? bp->n_ops : 1;
    rank *rk = calloc((size_t)(n ? n : 1), sizeof *rk);
    if (!rk) return -1;
    double s1 = 0, s2 = 0;
    for (long r = 0; r < n; r++) {
        rk[r].wall = bp->wall[r];
        rk[r].run = r;
        double t = 0;
        for (uint32_t i = 0; i < bp->n_ops; i++) t += bp->ms[(size_t)r * w + i];
        if (r == 0) d->all_first = d->all_min = d->all_max = t;
        d->all_curr = t;
        if (t < d->all_min) d->all_min = t;
        if (t > d->all_max) d->all_max = t;
        s1 += t;
        s2 += t * t;
        d->wall_mean += bp->wall[r];
    }
    if (n) d->wall_mean /= (double)n;
    if (n) {
        d->all_mean = s1 / (double)n;
        double var = s2 / (double)n - d->all_mean * d->all_mean;
        d->all_std = var > 0 ? sqrt(var) : 0;
    }
    qsort(rk, (size_t)n, sizeof *rk, by_wall);
    double med = n ? (rk[(n - 1) / 2].wall + rk[n / 2].wall) / 2 : 0;
    d->n_mid = 0;
    for (long k = 0; k < n; k++) {
        if (k != (n - 1) / 2 && k != n / 2 && fabs(rk[k].wall - med) > 0.05 * med) continue;
        d->n_mid++;
        for (uint32_t i = 0; i < bp->n_ops; i++) avg[i] += bp->ms[(size_t)rk[k].run * w + i];
    }
    for (uint32_t i = 0; i < bp->n_ops; i++) avg[i] = d->n_mid ? avg[i] / (double)d->n_mid : 0;
    free(rk);
    return 0;
}

enum { TOP_N = 10 };

static int by_time(const void *a, const void *b) {
    const prow *x = a, *y = b;
    if (x->avg_ms != y->avg_ms) return x->avg_ms < y->avg_ms ? 1 : -1;
    return x->index > y->index ? 1 : x->index < y->index ? -1 : 0;
}

static int type_by_time(const void *a, const void *b) {
    const ptype *x = a, *y = b;
    if (x->avg_ms != y->avg_ms) return x->avg_ms < y->avg_ms ? 1 : -1;
    return strcmp(x->op, y->op);
}

static void pdata_free(pdata *d) {
    free(d->rows);
    free(d->top);
    free(d->types);
}

static double pct_of(double v, double total) { return total > 0 ? v * 100.0 / total : 0; }

/* A percentage of the per-op sum: undefined (null) when the sum is 0 (every op folded). */
static void key_pct(json_w *j, const char *key, double v, const pdata *d) {
    if (d->sum_ms > 0) json_key_double(j, key, v);
    else { json_key(j, key); json_null(j); }
}

/* The summary by op type over the executed ops. */
static void group_types(pdata *d) {
    for (uint32_t i = 0; i < d->n; i++) {
        const prow *r = &d->rows[i];
        if (!r->calls) continue;
        uint32_t k = 0;
        while (k < d->n_types && strcmp(d->types[k].op, r->op) != 0) k++;
        if (k == d->n_types) {
            memset(&d->types[k], 0, sizeof d->types[k]);
            d->types[k].op = r->op;
            d->n_types++;
        }
        ptype *t = &d->types[k];
        t->count++;
        t->avg_ms += r->avg_ms;
        t->mem_kb += r->mem_kb;
        t->calls_per_run += (double)r->calls / (double)d->runs;
    }
    for (uint32_t k = 0; k < d->n_types; k++) d->types[k].pct = pct_of(d->types[k].avg_ms, d->sum_ms);
    qsort(d->types, d->n_types, sizeof *d->types, type_by_time);
}

static int pdata_make(const lg_model *m, const lg_interp *it, const bench_prof *bp, pdata *d) {
    memset(d, 0, sizeof *d);
    const lg_profile *p = lg_interp_profile(it);
    if (!p || !bp) return cli_error("the interpreter was created without profiling");
    const lg_subgraph *sg = &m->subgraphs[0];
    d->n = p->n_ops;
    d->runs = p->n_invokes ? p->n_invokes : 1;
    size_t cnt = d->n ? d->n : 1;
    d->rows = calloc(cnt, sizeof *d->rows);
    d->top = calloc(cnt, sizeof *d->top);
    d->types = calloc(cnt, sizeof *d->types);
    double *avg = calloc(cnt, sizeof *avg);
    if (!d->rows || !d->top || !d->types || !avg || middle_means(bp, avg, d) != 0) {
        free(avg);
        pdata_free(d);
        return cli_error("out of memory");
    }
    for (uint32_t i = 0; i < d->n; i++) {
        const lg_op *op = &sg->ops[i];
        prow *r = &d->rows[i];
        r->index = (int32_t)i;
        r->op = lg_op_name(m, op);
        r->output = op->n_outputs && op->outputs[0] >= 0 ? sg->tensors[op->outputs[0]].name : NULL;
        if (!r->output) r->output = "";
        r->calls = p->n_calls[i];
        r->avg_ms = avg[i];
        r->first_ms = (double)p->first_ns[i] / 1e6;
        r->start_ms = d->sum_ms;
        for (uint32_t o = 0; o < op->n_outputs; o++) {
            lg_tensor_view v;
            if (op->outputs[o] >= 0 && lg_interp_tensor(it, op->outputs[o], &v) == LG_OK) r->mem_kb += (double)v.nbytes / 1000.0;
        }
        d->sum_ms += r->avg_ms;
        d->first_sum_ms += r->first_ms;
        if (r->calls) d->top[d->n_exec++] = *r;
    }
    free(avg);
    for (uint32_t i = 0; i < d->n; i++) d->rows[i].pct = pct_of(d->rows[i].avg_ms, d->sum_ms);
    qsort(d->top, d->n_exec, sizeof *d->top, by_time);
    for (uint32_t i = 0; i < d->n_exec; i++) d->top[i].pct = pct_of(d->top[i].avg_ms, d->sum_ms);
    d->n_top = d->n_exec < TOP_N ? d->n_exec : TOP_N;
    group_types(d);
    return CLI_OK;
}

/* ---------------------------------------------------------------- text */

static void banner(FILE *f, const char *title) {
    fprintf(f, "============================== %s ==============================\n", title);
}

static void op_table(FILE *f, const char *title, const prow *rows, uint32_t n, uint64_t runs) {
    banner(f, title);
    fprintf(f, "  %24s  %9s  %9s  %9s  %8s  %8s  %10s  %14s  %s\n", "[node type]", "[start]", "[first]",
            "[avg ms]", "[%]", "[cdf%]", "[mem KB]", "[times called]", "[Name]");
    double cdf = 0;
    for (uint32_t i = 0; i < n; i++) {
        const prow *r = &rows[i];
        cdf += r->pct;
        fprintf(f, "  %24s  %9.3f  %9.3f  %9.3f  %7.3f%%  %7.3f%%  %10.3f  %14.3g  [%s]:%d\n", r->op, r->start_ms,
                r->first_ms, r->avg_ms, r->pct, cdf, r->mem_kb, (double)r->calls / (double)runs, r->output, r->index);
    }
    fputc('\n', f);
}

int bench_profile_text(FILE *f, const lg_model *m, const lg_interp *it, const bench_prof *bp, int threads,
                       double run_median_ms) {
    pdata d;
    int rc = pdata_make(m, it, bp, &d);
    if (rc != CLI_OK) return rc;
    fprintf(f, "\nOperator-wise Profiling Info for Regular Benchmark Runs:\n");
    op_table(f, "Run Order", d.rows, d.n, d.runs);
    op_table(f, "Top by Computation Time", d.top, d.n_top, d.runs);
    fprintf(f, "Number of nodes executed: %u\n", d.n_exec);
    if (d.n_exec < d.n) fprintf(f, "(%u more folded at prepare: all their inputs are constant)\n", d.n - d.n_exec);
    banner(f, "Summary by node type");
    fprintf(f, "  %24s  %9s  %10s  %11s  %11s  %10s  %14s\n", "[Node type]", "[count]", "[avg ms]", "[avg %]",
            "[cdf %]", "[mem KB]", "[times called]");
    double cdf = 0;
    for (uint32_t k = 0; k < d.n_types; k++) {
        const ptype *t = &d.types[k];
        cdf += t->pct;
        fprintf(f, "  %24s  %9lld  %10.3f  %10.3f%%  %10.3f%%  %10.3f  %14.3g\n", t->op, (long long)t->count, t->avg_ms,
                t->pct, cdf, t->mem_kb, t->calls_per_run);
    }
    fputc('\n', f);
    fprintf(f, "Timings (microseconds): count=%llu first=%.0f curr=%.0f min=%.0f max=%.0f avg=%.1f std=%.0f\n",
            (unsigned long long)d.runs, d.all_first * 1e3, d.all_curr * 1e3, d.all_min * 1e3, d.all_max * 1e3,
            d.all_mean * 1e3, d.all_std * 1e3);
    fprintf(f, "%u nodes observed\n", d.n);
    fprintf(f, "per-op sum %.3f ms (avg ms: the %ld of %llu runs within 5%% of the median) = %.1f%% of the run median %.3f ms "
            "(profiling on; %s)\n", d.sum_ms, d.n_mid, (unsigned long long)d.runs,
            pct_of(d.sum_ms, run_median_ms), run_median_ms,
            threads > 1 ? "per-op wall time: the workers run inside each op" : "one thread");
    pdata_free(&d);
    return CLI_OK;
}

/* ---------------------------------------------------------------- JSON */

int bench_profile_json(json_w *j, const lg_model *m, const lg_interp *it, const bench_prof *bp, int threads,
                       double run_median_ms) {
    pdata d;
    int rc = pdata_make(m, it, bp, &d);
    if (rc != CLI_OK) return rc;
    json_key(j, "profile");
    json_obj_open(j);
    json_key_uint(j, "n_runs", d.runs);
    json_key_int(j, "n_runs_averaged", d.n_mid);
    json_key_str(j, "time", threads > 1 ? "wall time per op (threads > 1)" : "wall time per op");
    json_key_uint(j, "n_ops", d.n);
    json_key_uint(j, "n_ops_executed", d.n_exec);
    json_key(j, "ops");
    json_arr_open(j);
    double cdf = 0;
    for (uint32_t i = 0; i < d.n; i++) {
        const prow *r = &d.rows[i];
        cdf += r->pct;
        json_obj_open_flat(j);
        json_key_int(j, "index", r->index);
        json_key_str(j, "op", r->op);
        json_key_str(j, "output", r->output);
        json_key_double(j, "avg_ms", r->avg_ms);
        json_key_double(j, "first_ms", r->first_ms);
        json_key_double(j, "start_ms", r->start_ms);
        key_pct(j, "percent", r->pct, &d);
        key_pct(j, "cdf_percent", cdf, &d);
        json_key_double(j, "mem_kb", r->mem_kb);
        json_key_uint(j, "n_calls", r->calls);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_key(j, "top");
    json_arr_open_flat(j);
    for (uint32_t i = 0; i < d.n_top; i++) json_int(j, d.top[i].index);
    json_arr_close(j);
    json_key(j, "by_type");
    json_arr_open(j);
    cdf = 0;
    for (uint32_t k = 0; k < d.n_types; k++) {
        const ptype *t = &d.types[k];
        cdf += t->pct;
        json_obj_open_flat(j);
        json_key_str(j, "op", t->op);
        json_key_int(j, "count", t->count);
        json_key_double(j, "avg_ms", t->avg_ms);
        key_pct(j, "percent", t->pct, &d);
        key_pct(j, "cdf_percent", cdf, &d);
        json_key_double(j, "mem_kb", t->mem_kb);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_key_double(j, "sum_ms", d.sum_ms);
    json_key_double(j, "sum_mean_all_runs_ms", d.all_mean);
    json_key_double(j, "run_mean_ms", d.wall_mean);
    json_key_double(j, "run_median_ms", run_median_ms);
    json_obj_close(j);
    pdata_free(&d);
    return CLI_OK;
}

/* ---------------------------------------------------------------- Model Explorer overlay */

int bench_profile_overlay(const char *path, bool force, const lg_model *m, const lg_interp *it,
                          const bench_prof *bp) {
    pdata d;
    int rc = pdata_make(m, it, bp, &d);
    if (rc != CLI_OK) return rc;
    cli_overlay_entry *e = calloc(d.n ? d.n : 1, sizeof *e);
    if (!e) { pdata_free(&d); return cli_error("out of memory"); }
    uint32_t n = 0;
    for (uint32_t i = 0; i < d.n; i++) {
        if (!d.rows[i].calls) continue; /* folded at prepare: never ran */
        cli_overlay_op_key(e[n].key, d.rows[i].index);
        e[n].kind = CLI_OVERLAY_NUMBER;
        e[n].num = d.rows[i].avg_ms;
        n++;
    }
    /* a gradient over the values: white at the fastest op, red at the slowest */
    static const cli_overlay_stop grad[] = {{0, "#ffffff", NULL}, {1, "#e53935", NULL}};
    char gid[512], name[96];
    snprintf(name, sizeof name, "litegpu bench: avg ms per op (%llu runs)", (unsigned long long)d.runs);
    cli_overlay ov = {cli_overlay_graph_id(m, 0, gid, sizeof gid), name, e, n, NULL, 0, grad, 2, false};
    rc = cli_overlay_write(path, &ov, force);
    free(e);
    pdata_free(&d);
    return rc;
}
