/* quant_phases.c -- built and used by bench/quantize.sh: the steps of `litegpu quantize MODEL -o
 * OUT --mode M` (tools/cli/cmd_quantize.c) one by one through the public API, so that the
 * rewrite is timed apart from the measurement (the CLI has no flag to skip the parity runs;
 * lg_quant_options.no_measure does it here).
 *
 *   quant_phases MODEL.tflite OUT.tflite MODE [--calib DIR]
 *
 * Steps, each with its wall time, the resident set after it and the peak so far (getrusage):
 *   read            lg_tflite_read_file (what cli_load_model does for a .tflite)
 *   input views     lg_interp_create on MODEL (the CLI makes one to learn the inputs' shapes)
 *   rewrite         lg_quantize with no_measure: clone, convert the constants, compact,
 *                   versions, validate, and check before + after (inside lg_quantize)
 *   check x2        lg_check_model on MODEL and on the result: the part of "rewrite" that is
 *                   the two checks
 *   quantize        lg_quantize as the CLI calls it (n_random 2, seed 1, or the --calib cases):
 *                   rewrite + the parity runs; "measure" = quantize - rewrite
 *   write           lg_tflite_write_file (serialize, write, fsync, rename)
 * --calib DIR: every *.npy in DIR (sorted) is one case of a single-input model, as the CLI's
 * --calib takes a folder of .npy files. stdout: one JSON line per step. Exit 0, 1 on error. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lg/check.h"
#include "lg/lg.h"
#include "lg/npy.h"
#include "lg/quantize.h"
#include "lg/run.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static double rss_mib(void) {
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
        fclose(f);
    }
    return (double)res * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
}
static double peak_mib(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024.0;
}
static double t0;
static void step(const char *name) {
    printf("{\"step\":\"%s\",\"ms\":%.2f,\"rss_mib\":%.1f,\"peak_mib\":%.1f}\n", name, now_ms() - t0, rss_mib(),
           peak_mib());
    fflush(stdout);
    t0 = now_ms();
}
static int fail(const char *what, const lg_error *e) {
    fprintf(stderr, "quant_phases: %s: %s\n", what, e->msg);
    return 1;
}
static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* every *.npy of dir, sorted, as float32 cases of one input */
static int load_calib(const char *dir, lg_npy **arr, const void ***data, uint32_t *n) {
    DIR *d = opendir(dir);
    if (!d) { perror(dir); return 1; }
    char *names[4096];
    uint32_t k = 0;
    for (struct dirent *e; (e = readdir(d)) && k < 4096;) {
        size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".npy")) names[k++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, k, sizeof *names, by_name);
    *arr = calloc(k ? k : 1, sizeof **arr);
    *data = calloc(k ? k : 1, sizeof **data);
    if (!*arr || !*data) return 1;
    for (uint32_t i = 0; i < k; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        free(names[i]);
        lg_error err;
        if (lg_npy_read_file(path, &(*arr)[i], &err) != LG_OK) return fail(path, &err);
        (*data)[i] = (*arr)[i].data;
    }
    *n = k;
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4 && !(argc == 6 && !strcmp(argv[4], "--calib"))) {
        fprintf(stderr, "usage: quant_phases MODEL.tflite OUT.tflite MODE [--calib DIR]\n");
        return 2;
    }
    int mode = lg_quant_mode_from_name(argv[3]);
    if (mode < 0) {
        fprintf(stderr, "quant_phases: unknown mode %s\n", argv[3]);
        return 2;
    }
    lg_error err;
    lg_npy *arr = NULL;
    const void **cal = NULL;
    uint32_t n_cal = 0;
    if (argc == 6 && load_calib(argv[5], &arr, &cal, &n_cal)) return 1;
    /* case k, input 0 */
    const void **cases1 = calloc(n_cal ? n_cal : 1, sizeof *cases1);
    const void *const **cases = calloc(n_cal ? n_cal : 1, sizeof *cases);
    if (!cases1 || !cases) return 1;
    for (uint32_t k = 0; k < n_cal; k++) {
        cases1[k] = cal[k];
        cases[k] = (const void *const *)&cases1[k];
    }

    t0 = now_ms();
    lg_model *m = NULL;
    if (lg_tflite_read_file(argv[1], NULL, &m, &err) != LG_OK) return fail(argv[1], &err);
    step("read (lg_tflite_read_file)");
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_interp *it = NULL;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) return fail("lg_interp_create", &err);
    lg_interp_free(it);
    step("input views (lg_interp_create + free)");

    lg_quant_options o;
    memset(&o, 0, sizeof o);
    o.mode = (lg_quant_mode)mode;
    o.n_random = 2;
    o.seed = 1;
    if (n_cal) {
        o.cases = (const void *const *const *)cases;
        o.n_cases = n_cal;
    }
    lg_quant_options nm = o;
    nm.no_measure = true;
    lg_model *q = NULL;
    lg_quant_report *rep = NULL;
    if (lg_quantize(m, &nm, &q, &rep, &err) != LG_OK) return fail("lg_quantize (no_measure)", &err);
    step("rewrite (lg_quantize, no_measure; checks included)");
    lg_check_options co;
    memset(&co, 0, sizeof co);
    lg_check_report *cr = NULL;
    if (lg_check_model(m, &co, &cr, &err) != LG_OK) return fail("check", &err);
    lg_check_report_free(cr);
    if (lg_check_model(q, &co, &cr, &err) != LG_OK) return fail("check", &err);
    lg_check_report_free(cr);
    step("check x2 (lg_check_model on MODEL and OUT)");
    lg_quant_report_free(rep);
    lg_model_free(q);
    q = NULL;
    step("free the rewrite");
    if (lg_quantize(m, &o, &q, &rep, &err) != LG_OK) return fail("lg_quantize", &err);
    step("quantize (lg_quantize as the CLI: rewrite + parity runs)");
    lg_model_free(m);
    lg_write_options wo = {.force = true};
    if (lg_tflite_write_file(q, argv[2], &wo, &err) != LG_OK) return fail(argv[2], &err);
    step("write (lg_tflite_write_file)");
    lg_quant_report_free(rep);
    lg_model_free(q);
    for (uint32_t k = 0; k < n_cal; k++) lg_npy_free(&arr[k]);
    free(arr);
    free(cal);
    free(cases1);
    free(cases);
    return 0;
}
