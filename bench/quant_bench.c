/* quant_bench.c -- built and used by bench/quant_run.sh: `litegpu bench`'s timing loop
 * (tools/cli/cmd_bench.c) for the quantized models that verb cannot take yet, through the
 * public API only:
 *   - an --int-arith choice (bench has none: it always runs LG_INT_TFLITE);
 *   - UINT8 inputs (bench fills FLOAT32 inputs only). A UINT8 input gets
 *     min(255, floor(256 * f(i))) with f the fill, as peers/litert_run.js and bench/litert_qbench.js
 *     make them (half -> 128); other integer inputs get zeros (as litert_run.js).
 *
 *   quant_bench MODEL [--int-arith tflite|xnnpack] [--fill half|pattern] [--runs N] [--warmup W]
 *               [--min-warmup-ms MS] [--profile]
 *
 * The loop is cmd_bench.c's: one first invoke, then warm-up runs (at least W and at least MS
 * milliseconds), then N timed runs of (set every input + invoke); median, p95 (nearest rank),
 * min. One thread. stdout: one JSON line.
 * --profile: instead, the time per op type (the interpreter's tap, lg/run.h, is called after
 * each op: the time between two taps is that op's), median over the N runs of each type's sum,
 * as bench/onnx_vs_ort.sh's op_profile. Exit 0, 1 on error, 2 usage. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lg/lg.h"
#include "lg/run.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
static int fail(const char *what, const lg_error *e) {
    fprintf(stderr, "quant_bench: %s: %s\n", what, e->msg);
    return 1;
}

/* the fills of peers/npy.js, in double as JavaScript computes them */
static double fill_at(int pattern, int64_t i) { return pattern ? (double)((i * 7919 + 13) % 1009) / 1009.0 : 0.5; }

/* multiply-adds of a CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED: output elements x the weights
   per output channel (the channel is dimension 0 of conv and FC weights, 3 of depthwise) */
static double op_macs(const lg_model *m, const lg_op *op) {
    const lg_subgraph *sg = &m->subgraphs[0];
    const char *s = lg_op_name(m, op);
    int dw = !strcmp(s, "DEPTHWISE_CONV_2D");
    if (!dw && strcmp(s, "CONV_2D") && strcmp(s, "FULLY_CONNECTED")) return 0;
    if (op->n_inputs < 2 || op->n_outputs < 1 || op->inputs[1] < 0 || op->outputs[0] < 0) return 0;
    const lg_tensor *w = &sg->tensors[op->inputs[1]], *y = &sg->tensors[op->outputs[0]];
    double wn = 1, yn = 1;
    for (uint32_t d = 0; d < w->rank; d++) wn *= w->shape[d];
    for (uint32_t d = 0; d < y->rank; d++) yn *= y->shape[d];
    double oc = w->rank ? w->shape[dw ? w->rank - 1 : 0] : 1;
    return oc > 0 ? yn * wn / oc : 0;
}

typedef struct { double last; double *op_ms; } prof;
static int tap(void *ud, int32_t op, const lg_tensor_view *o, uint32_t n) {
    (void)o;
    (void)n;
    prof *p = ud;
    double t = now_ms();
    p->op_ms[op] += t - p->last;
    p->last = t;
    return 0;
}

/* inputs[i]: the bytes for input i */
static int make_inputs(lg_interp *it, int pattern, void ***out) {
    uint32_t n = lg_interp_n_inputs(it);
    void **in = calloc(n ? n : 1, sizeof *in);
    if (!in) return 1;
    for (uint32_t i = 0; i < n; i++) {
        lg_tensor_view v;
        lg_interp_input(it, i, &v);
        in[i] = calloc(v.nbytes ? (size_t)v.nbytes : 1, 1);
        if (!in[i]) return 1;
        if (v.type == LG_FLOAT32) {
            float *x = in[i];
            for (int64_t k = 0; k < v.numel; k++) x[k] = (float)fill_at(pattern, k);
        } else if (v.type == LG_UINT8) {
            uint8_t *x = in[i];
            for (int64_t k = 0; k < v.numel; k++) {
                double q = floor(256.0 * fill_at(pattern, k));
                x[k] = (uint8_t)(q > 255 ? 255 : q);
            }
        }
    }
    *out = in;
    return 0;
}
static int set_inputs(lg_interp *it, void **in, lg_error *err) {
    for (uint32_t i = 0; i < lg_interp_n_inputs(it); i++) {
        lg_tensor_view v;
        lg_interp_input(it, i, &v);
        if (lg_interp_set_input(it, i, v.type, in[i], v.nbytes, err) != LG_OK) return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *model = NULL, *arith_s = "tflite", *fill = "half";
    long runs = 20, warm = 5;
    double min_warm_ms = 0;
    int profile = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "--int-arith") && has) arith_s = argv[++i];
        else if (!strcmp(a, "--fill") && has) fill = argv[++i];
        else if (!strcmp(a, "--runs") && has) runs = atol(argv[++i]);
        else if (!strcmp(a, "--warmup") && has) warm = atol(argv[++i]);
        else if (!strcmp(a, "--min-warmup-ms") && has) min_warm_ms = atof(argv[++i]);
        else if (!strcmp(a, "--profile")) profile = 1;
        else if (a[0] != '-' && !model) model = a;
        else {
            fprintf(stderr, "quant_bench: bad argument '%s'\n", a);
            return 2;
        }
    }
    int arith = lg_int_arith_from_name(arith_s);
    if (!model || arith < 0 || runs < 1 || warm < 0 || (strcmp(fill, "half") && strcmp(fill, "pattern"))) {
        fprintf(stderr, "usage: quant_bench MODEL [--int-arith tflite|xnnpack] [--fill half|pattern] [--runs N] "
                        "[--warmup W] [--min-warmup-ms MS] [--profile]\n");
        return 2;
    }
    lg_error err;
    double t0 = now_ms();
    lg_model *m = NULL;
    if (lg_tflite_read_file(model, NULL, &m, &err) != LG_OK) return fail(model, &err);
    double t1 = now_ms();
    const lg_subgraph *sg = &m->subgraphs[0];
    prof p = {0, calloc(sg->n_ops ? sg->n_ops : 1, sizeof(double))};
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.threads = 1;
    ro.int_arith = (lg_int_arith)arith;
    if (profile) {
        ro.tap = tap;
        ro.tap_ud = &p;
    }
    lg_interp *it = NULL;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) return fail(model, &err);
    double t2 = now_ms();
    void **in = NULL;
    if (make_inputs(it, !strcmp(fill, "pattern"), &in)) {
        fprintf(stderr, "quant_bench: out of memory\n");
        return 1;
    }
    if (set_inputs(it, in, &err)) return fail("set input", &err);
    double t3 = now_ms();
    if (lg_interp_invoke(it, &err) != LG_OK) return fail(model, &err);
    double first = now_ms() - t3;
    long nw = 0;
    double ws = now_ms();
    for (; nw < warm || now_ms() - ws < min_warm_ms; nw++)
        if (lg_interp_invoke(it, &err) != LG_OK) return fail(model, &err);
    double *ts = calloc((size_t)runs, sizeof *ts);
    double *per = profile ? calloc((size_t)runs * sg->n_ops + 1, sizeof(double)) : NULL;
    if (!ts || (profile && !per)) return 1;
    for (long r = 0; r < runs; r++) {
        if (profile) memset(p.op_ms, 0, sg->n_ops * sizeof(double));
        double a = now_ms();
        if (set_inputs(it, in, &err)) return fail("set input", &err);
        p.last = now_ms();
        if (lg_interp_invoke(it, &err) != LG_OK) return fail(model, &err);
        ts[r] = now_ms() - a;
        if (profile) memcpy(per + (size_t)r * sg->n_ops, p.op_ms, sg->n_ops * sizeof(double));
    }
    double *sorted = calloc((size_t)runs, sizeof *sorted);
    if (!sorted) return 1;
    memcpy(sorted, ts, (size_t)runs * sizeof *ts);
    double med = median(sorted, (int)runs);
    long k95 = (long)ceil(0.95 * (double)runs) - 1;
    if (k95 < 0) k95 = 0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("{\"model\":\"%s\",\"int_arith\":\"%s\",\"fill\":\"%s\",\"threads\":1,\"load_ms\":%.3f,\"prepare_ms\":%.3f,"
           "\"first_run_ms\":%.3f,\"warmup_runs\":%ld,\"runs\":%ld,\"median_ms\":%.4f,\"p95_ms\":%.4f,\"min_ms\":%.4f,"
           "\"peak_rss_bytes\":%ld",
           model, lg_int_arith_name((lg_int_arith)arith), fill, t1 - t0, t2 - t1, first, nw, runs, med,
           sorted[k95], sorted[0], (long)ru.ru_maxrss * 1024);
    if (profile) {
        /* per op type: the median over runs of the type's summed time */
        const char *names[256];
        int n_names = 0, count[256] = {0};
        double macs[256] = {0};
        int *type_of = calloc(sg->n_ops ? sg->n_ops : 1, sizeof(int));
        double *col = calloc((size_t)runs, sizeof(double));
        if (!type_of || !col) return 1;
        for (uint32_t i = 0; i < sg->n_ops; i++) {
            const char *s = lg_op_name(m, &sg->ops[i]);
            int k = 0;
            while (k < n_names && strcmp(names[k], s)) k++;
            if (k == n_names && n_names < 256) names[n_names++] = s;
            type_of[i] = k;
            count[k]++;
            macs[k] += op_macs(m, &sg->ops[i]);
        }
        printf(",\"ops\":[");
        for (int k = 0; k < n_names; k++) {
            for (long r = 0; r < runs; r++) {
                col[r] = 0;
                for (uint32_t i = 0; i < sg->n_ops; i++)
                    if (type_of[i] == k) col[r] += per[(size_t)r * sg->n_ops + i];
            }
            printf("%s{\"op\":\"%s\",\"n\":%d,\"ms\":%.4f,\"macs\":%.0f}", k ? "," : "", names[k], count[k],
                   median(col, (int)runs), macs[k]);
        }
        /* the slowest single ops, median over runs */
        printf("],\"top_ops\":[");
        double *op_med = calloc(sg->n_ops ? sg->n_ops : 1, sizeof(double));
        if (!op_med) return 1;
        for (uint32_t i = 0; i < sg->n_ops; i++) {
            for (long r = 0; r < runs; r++) col[r] = per[(size_t)r * sg->n_ops + i];
            op_med[i] = median(col, (int)runs);
        }
        for (int shown = 0; shown < 8 && shown < (int)sg->n_ops; shown++) {
            uint32_t best = 0;
            for (uint32_t i = 1; i < sg->n_ops; i++)
                if (op_med[i] > op_med[best]) best = i;
            int32_t t_out = sg->ops[best].n_outputs ? sg->ops[best].outputs[0] : -1;
            char shape[96] = "";
            if (t_out >= 0) {
                const lg_tensor *tt = &sg->tensors[t_out];
                int w = 0;
                for (uint32_t d = 0; d < tt->rank && w < (int)sizeof shape - 12; d++)
                    w += snprintf(shape + w, sizeof shape - (size_t)w, "%s%d", d ? "x" : "", tt->shape[d]);
            }
            printf("%s{\"index\":%u,\"op\":\"%s\",\"out\":\"%s\",\"ms\":%.4f,\"macs\":%.0f}", shown ? "," : "",
                   best, lg_op_name(m, &sg->ops[best]), shape, op_med[best], op_macs(m, &sg->ops[best]));
            op_med[best] = -1;
        }
        printf("]");
        free(op_med);
        free(col);
        free(type_of);
    }
    printf("}\n");
    for (uint32_t i = 0; i < lg_interp_n_inputs(it); i++) free(in[i]);
    free(in);
    free(ts);
    free(sorted);
    free(per);
    free(p.op_ms);
    lg_interp_free(it);
    lg_model_free(m);
    return 0;
}
