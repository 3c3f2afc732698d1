/* litegpu bench: load, prepare, first run, warm runs (median, p95), memory plan and RSS. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_profile.h"
#include "cli.h"
#include "json.h"
#include "lg/run.h"
#include "run_common.h"

int cmd_bench(const cli_verb *v, int argc, char **argv) {
    bool json = false, profile = false, force = false;
    const char *overlay = NULL;
    const char *runs_s = NULL, *warm_s = NULL, *threads_s = NULL, *prec = NULL, *fill = NULL, *min_ms_s = NULL;
    const char *arith = NULL;
    const cli_flag flags[] = {
        {"--json", NULL, &json, NULL, NULL, NULL, 0},
        {"--runs", "-n", NULL, &runs_s, NULL, NULL, 0},
        {"--warmup", NULL, NULL, &warm_s, NULL, NULL, 0},
        {"--min-warmup-ms", NULL, NULL, &min_ms_s, NULL, NULL, 0},
        {"--threads", NULL, NULL, &threads_s, NULL, NULL, 0},
        {"--precision", "-p", NULL, &prec, NULL, NULL, 0},
        {"--fill", NULL, NULL, &fill, NULL, NULL, 0},
        {"--int-arith", NULL, NULL, &arith, NULL, NULL, 0},
        {"--profile", NULL, &profile, NULL, NULL, NULL, 0},
        {"--overlay", NULL, NULL, &overlay, NULL, NULL, 0},
        {"--force", NULL, &force, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (n_pos != 1) return cli_usage_error(v, "expected one MODEL");
    if (force && !overlay) return cli_usage_error(v, "--force goes with --overlay");
    if (overlay) profile = true; /* the overlay is the profile's per-op times */
    if (overlay && cli_output_check(overlay, force)) return CLI_ERROR;
    long runs = 20, warm = 5, threads = 1;
    double min_warm_ms = 0;
    char *end;
    if (runs_s && ((runs = strtol(runs_s, &end, 10)) < 1 || *end || runs > 100000)) return cli_usage_error(v, "--runs takes 1..100000");
    if (warm_s && ((warm = strtol(warm_s, &end, 10)) < 0 || *end || warm > 100000)) return cli_usage_error(v, "--warmup takes 0..100000");
    if (threads_s && ((threads = strtol(threads_s, &end, 10)) < 1 || *end || threads > 256)) return cli_usage_error(v, "--threads takes 1..256");
    if (min_ms_s && ((min_warm_ms = strtod(min_ms_s, &end)) < 0 || *end)) return cli_usage_error(v, "--min-warmup-ms takes a number");
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.threads = (int)threads;
    ro.profile = profile;
    if (prec) {
        int p = lg_precision_from_name(prec);
        if (p < 0) return cli_usage_error(v, "unknown precision '%s' (f32|fp32, f16|fp16 or f32_f16)", prec);
        ro.precision = (lg_precision)p;
    }
    if (arith) {
        int a = lg_int_arith_from_name(arith);
        if (a < 0) return cli_usage_error(v, "unknown --int-arith '%s' (tflite or xnnpack)", arith);
        ro.int_arith = (lg_int_arith)a;
    }
    int progress = isatty(2);
    bench_prof *bp = NULL; /* --profile: every timed run's per-op times */

    double t0 = cli_now_ms();
    lg_model *m = NULL;
    lg_error err;
    if (lg_tflite_read_file(pos[0], NULL, &m, &err) != LG_OK) return cli_lib_error(pos[0], &err);
    double t1 = cli_now_ms();
    lg_interp *it = NULL;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) { rc = cli_lib_error(pos[0], &err); lg_model_free(m); return rc; }
    double t2 = cli_now_ms();
    cli_inputs in;
    if (cli_inputs_make(it, NULL, 0, fill, &in) || cli_inputs_set(it, &in)) {
        cli_inputs_free(&in);
        lg_interp_free(it);
        lg_model_free(m);
        return CLI_ERROR;
    }
    double t3 = cli_now_ms();
    if (lg_interp_invoke(it, &err) != LG_OK) { rc = cli_lib_error(pos[0], &err); goto out; }
    double first = cli_now_ms() - t3;
    double ws = cli_now_ms();
    for (long i = 0; i < warm || cli_now_ms() - ws < min_warm_ms; i++) {
        if (lg_interp_invoke(it, &err) != LG_OK) { rc = cli_lib_error(pos[0], &err); goto out; }
        if (progress) fprintf(stderr, "\rwarm-up %ld", i + 1);
    }
    lg_interp_profile_reset(it); /* --profile: the timed runs only */
    if (profile && (rc = bench_prof_new(it, runs, &bp)) != CLI_OK) goto out;
    double *ts = malloc((size_t)runs * sizeof *ts);
    if (!ts) { rc = cli_error("out of memory"); goto out; }
    for (long i = 0; i < runs; i++) {
        double a = cli_now_ms();
        if (cli_inputs_set(it, &in) || lg_interp_invoke(it, &err) != LG_OK) {
            free(ts);
            rc = cli_lib_error(pos[0], &err);
            goto out;
        }
        ts[i] = cli_now_ms() - a;
        bench_prof_sample(bp, it, ts[i]);
        if (progress) fprintf(stderr, "\rrun %ld/%ld  %.2f ms      ", i + 1, runs, ts[i]);
    }
    if (progress) fprintf(stderr, "\r%40s\r", "");
    double med, p95, mn;
    cli_time_stats(ts, (int)runs, &med, &p95, &mn);
    free(ts);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const lg_mem_plan *pl = lg_interp_mem_plan(it);
    const lg_subgraph *sg = &m->subgraphs[0];
    if (json) {
        json_w j;
        json_init(&j, stdout);
        json_obj_open(&j);
        json_key_str(&j, "verb", "bench");
        json_key_str(&j, "model", pos[0]);
        json_key_bool(&j, "ok", true);
        json_key_str(&j, "precision", lg_precision_name(ro.precision));
        json_key_str(&j, "int_arith", lg_int_arith_name(ro.int_arith));
        json_key_int(&j, "threads", threads);
        json_key_double(&j, "load_ms", t1 - t0);
        json_key_double(&j, "prepare_ms", t2 - t1);
        json_key_double(&j, "first_run_ms", first);
        json_key_int(&j, "n_warmup_runs", warm);
        json_key_int(&j, "n_runs", runs);
        json_key_double(&j, "median_ms", med);
        json_key_double(&j, "p95_ms", p95);
        json_key_double(&j, "min_ms", mn);
        json_key(&j, "memory");
        json_obj_open(&j);
        json_key_uint(&j, "arena_bytes", pl->arena_bytes);
        json_key_uint(&j, "peak_live_bytes", pl->peak_live_bytes);
        json_key_int(&j, "peak_op", pl->peak_op);
        json_key_str(&j, "peak_op_name", pl->peak_op >= 0 ? lg_op_name(m, &sg->ops[pl->peak_op]) : NULL);
        json_key_uint(&j, "n_peak_tensors", pl->n_peak_tensors);
        json_key(&j, "peak_tensors");
        json_arr_open_flat(&j);
        for (uint32_t i = 0; i < pl->n_peak_tensors; i++) json_int(&j, pl->peak_tensors[i]);
        json_arr_close(&j);
        json_key_uint(&j, "const_bytes", pl->const_bytes);
        json_key_uint(&j, "converted_bytes", pl->converted_bytes);
        json_key_int(&j, "peak_rss_bytes", (int64_t)ru.ru_maxrss * 1024);
        json_obj_close(&j);
        if (profile && (rc = bench_profile_json(&j, m, it, bp, (int)threads, med)) != CLI_OK) goto out;
        json_obj_close(&j);
        rc = json_finish(&j) ? cli_error("cannot write the report") : CLI_OK;
    } else {
        printf("%s (%s, %ld thread%s%s%s)\n", pos[0], lg_precision_name(ro.precision), threads, threads > 1 ? "s" : "",
               arith ? ", int-arith " : "", arith ? lg_int_arith_name(ro.int_arith) : "");
        printf("  load %.2f ms, prepare %.2f ms, first run %.2f ms\n", t1 - t0, t2 - t1, first);
        printf("  %ld warm runs after %ld warm-up: median %.3f ms, p95 %.3f ms, min %.3f ms\n", runs, warm, med, p95, mn);
        printf("  planned activations: arena %.2f MiB, peak live %.2f MiB at op %d (%s) with %u tensors live\n",
               (double)pl->arena_bytes / 1048576.0, (double)pl->peak_live_bytes / 1048576.0, pl->peak_op,
               pl->peak_op >= 0 ? lg_op_name(m, &sg->ops[pl->peak_op]) : "-", pl->n_peak_tensors);
        printf("  constants: %.2f MiB mapped from the file, %.2f MiB converted at prepare\n",
               (double)pl->const_bytes / 1048576.0, (double)pl->converted_bytes / 1048576.0);
        printf("  peak RSS %.2f MiB\n", (double)ru.ru_maxrss / 1024.0);
        rc = profile ? bench_profile_text(stdout, m, it, bp, (int)threads, med) : CLI_OK;
    }
    if (rc == CLI_OK && overlay) rc = bench_profile_overlay(overlay, force, m, it, bp);
out:
    bench_prof_free(bp);
    cli_inputs_free(&in);
    lg_interp_free(it);
    lg_model_free(m);
    return rc;
}
