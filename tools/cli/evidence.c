/* Evidence records: write (cli_evidence_write) and verify/print (`litegpu evidence DIR`).
   See evidence.h for the layout. */
#define _GNU_SOURCE
#include "evidence.h"
#include "cli.h"
#include "json.h"
#include "lg/util.h"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "json_parse.h"

/* sha256 hex and size of a file; 0 or -1 (unreadable). */
int cli_evidence_file_sha(const char *path, char hex[65], size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    lg_sha256_ctx c; lg_sha256_init(&c);
    unsigned char buf[65536]; size_t n, tot = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) { lg_sha256_update(&c, buf, n); tot += n; }
    int bad = ferror(f); fclose(f);
    if (bad) return -1;
    uint8_t d[32]; lg_sha256_final(&c, d); lg_hex(d, 32, hex);
    if (size) *size = tot;
    return 0;
}

static int copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb");
    if (!in) return -1;
    FILE *out = fopen(to, "wb");
    if (!out) { fclose(in); return -1; }
    unsigned char buf[65536]; size_t n; int rc = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) { rc = -1; break; }
    if (ferror(in)) rc = -1;
    fclose(in);
    if (fclose(out) != 0) rc = -1;
    return rc;
}

static void path_join(char *buf, size_t n, const char *dir, const char *name) {
    int k = snprintf(buf, n, "%s/%s", dir, name);
    if (k < 0 || (size_t)k >= n) buf[0] = 0; /* too long: an empty path fails to open */
}

int cli_evidence_check(const char *dir) {
    struct stat st;
    if (lstat(dir, &st) == 0) return cli_error("evidence folder %s exists: refused (records are never overwritten)", dir);
    return CLI_OK;
}

int cli_evidence_begin(const char *dir, const char *runs_s, int *runs) {
    *runs = 0;
    if (!dir) return runs_s ? cli_error("--evidence-runs goes with --evidence DIR") : CLI_OK;
    if (runs_s) {
        char *end = NULL;
        long n = strtol(runs_s, &end, 10);
        if (!end || end == runs_s || *end || n < 1 || n > 1000) return cli_error("--evidence-runs takes 1..1000, not '%s'", runs_s);
        *runs = (int)n;
    }
    return cli_evidence_check(dir);
}

int cli_jtext_open(cli_jtext *t) {
    memset(t, 0, sizeof *t);
    t->f = open_memstream(&t->buf, &t->len);
    if (!t->f) return cli_error("out of memory");
    json_init(&t->j, t->f);
    return CLI_OK;
}

char *cli_jtext_close(cli_jtext *t) {
    int bad = json_finish(&t->j);
    if (fclose(t->f) != 0) bad = -1;
    t->f = NULL;
    if (bad) { free(t->buf); t->buf = NULL; return NULL; }
    while (t->len && t->buf[t->len - 1] == '\n') t->buf[--t->len] = 0;
    return t->buf;
}

static const char *baseline_name(const char *path) {
    int fmt = cli_model_format(path);
    return fmt == CLI_FORMAT_ONNX ? "baseline.onnx" : "baseline.tflite";
}

static void cpu_model(char *out, size_t n) {
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *p = strchr(line, ':');
            if (p) {
                p++; while (*p == ' ' || *p == '\t') p++;
                p[strcspn(p, "\n")] = 0;
                snprintf(out, n, "%s", p);
            }
            break;
        }
    }
    fclose(f);
}

static int write_environment(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    struct utsname u; char os[400] = "unknown", cpu[256];
    if (uname(&u) == 0) snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
    cpu_model(cpu, sizeof cpu);
    json_w j; json_init(&j, f);
    json_obj_open(&j);
    json_key_str(&j, "tool", "litegpu");
    json_key_str(&j, "version", lg_version());
#ifdef __VERSION__
    json_key_str(&j, "compiler", __VERSION__);
#else
    json_key_str(&j, "compiler", "unknown");
#endif
    json_key_str(&j, "os", os);
    json_key_str(&j, "cpu_model", cpu);
    json_key_str(&j, "date", NULL); /* deliberately absent: the record must be deterministic */
    json_obj_close(&j);
    int rc = json_finish(&j);
    fputc('\n', f);
    if (fclose(f) != 0) rc = -1;
    return rc;
}

static int write_command(const char *path, const cli_evidence *e) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs("litegpu\n", f);
    for (int i = 0; i < e->argc; i++) fprintf(f, "%s\n", e->argv[i]);
    return fclose(f) == 0 ? 0 : -1;
}

/* A verb's change / checks text is embedded as is when it is a JSON object / array; otherwise
   (a bug in the verb: NaN printed with %g, a truncated buffer) it is kept as a string under
   "unparsed", and the limitation says so: the contract stays valid JSON. */
static bool json_ok(const char *text, jv_type want, char *why, size_t n) {
    if (!text) return true;
    char msg[160];
    jv *v = jv_parse(text, strlen(text), msg, sizeof msg);
    if (!v) { snprintf(why, n, "%s", msg); return false; }
    jv_type t = v->type;
    jv_free(v);
    if (t != want) { snprintf(why, n, "not a JSON %s", want == JV_OBJ ? "object" : "array"); return false; }
    return true;
}

static void embed(FILE *f, const char *key, const char *text, bool ok, const char *empty, bool arr) {
    fprintf(f, "  \"%s\": ", key);
    if (!text) fputs(empty, f);
    else if (ok) fputs(text, f);
    else {
        fputs(arr ? "[{\"unparsed\": " : "{\"unparsed\": ", f);
        json_write_quoted(f, text, strlen(text));
        fputs(arr ? "}]" : "}", f);
    }
    fputs(",\n", f);
}

static int write_contract(const char *path, const cli_evidence *e, const ev_measure *me, const char *bname,
                          const char *bhex, size_t bsize, const char *chex, size_t csize) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    char id[32]; memcpy(id, chex, 16); id[16] = 0;
    fprintf(f, "{\n  \"experiment_id\": ");
    char idbuf[64]; snprintf(idbuf, sizeof idbuf, "%s-%s", e->verb, id);
    json_write_quoted(f, idbuf, strlen(idbuf));
    fprintf(f, ",\n  \"status\": \"measured\",\n  \"verb\": ");
    json_write_quoted(f, e->verb, strlen(e->verb));
    fprintf(f, ",\n  \"baseline\": {\"sha256\": \"%s\", \"copy\": \"%s\", \"path\": ", bhex, bname);
    json_write_quoted(f, e->baseline, strlen(e->baseline));
    fprintf(f, ", \"runtime_and_backend\": \"litegpu %s reference interpreter fp32\"},\n", lg_version());
    fprintf(f, "  \"candidate\": {\"sha256\": \"%s\", \"copy\": \"candidate.tflite\", \"path\": ", chex);
    json_write_quoted(f, e->candidate, strlen(e->candidate));
    fprintf(f, "},\n  \"hypothesis\": ");
    const char *h = e->hypothesis ? e->hypothesis : "the candidate keeps the baseline's behaviour";
    json_write_quoted(f, h, strlen(h));
    fputs(",\n", f);
    embed(f, "one_primary_change", e->change_json, me->change_ok, "{}", false);
    fprintf(f, "  \"input_contract\": %s,\n", me->interface_json ? me->interface_json : "null");
    fprintf(f, "  \"held_constant\": [%s\"runtime and backend\", \"evaluation inputs\"],\n",
            me->same_interface ? "\"model inputs and outputs (names, shapes, dtypes)\", " : "");
    fprintf(f, "  \"quality_gates\": [],\n  \"performance_objective\": null,\n  \"recovery_budget\": ");
    const char *rec = e->recovery ? e->recovery : "none";
    json_write_quoted(f, rec, strlen(rec));
    fprintf(f, ",\n");
    embed(f, "structural_checks", e->checks_json, me->checks_ok, "[]", true);
    fprintf(f, "  \"measurements\": ");
    ev_measure_write(f, e, me, bsize, csize);
    fprintf(f, ",\n  \"known_limitations\": [");
    for (unsigned k = 0; k < me->n_limits; k++) {
        fprintf(f, "%s\n    ", k ? "," : "");
        json_write_quoted(f, me->limits[k], strlen(me->limits[k]));
    }
    fprintf(f, "\n  ],\n");
    fprintf(f, "  \"decision\": \"not_evaluated\",\n");
    fprintf(f, "  \"rollback_artifact\": {\"copy\": \"%s\", \"sha256\": \"%s\", \"path\": ", bname, bhex);
    json_write_quoted(f, e->baseline, strlen(e->baseline));
    fprintf(f, "}\n}\n");
    return fclose(f) == 0 ? 0 : -1;
}

static int write_sums(const char *tmp, const char *const *names, int n) {
    char p[4096]; path_join(p, sizeof p, tmp, "SHA256SUMS");
    FILE *f = fopen(p, "w");
    if (!f) return -1;
    for (int i = 0; i < n; i++) {
        char fp[4096], hex[65]; path_join(fp, sizeof fp, tmp, names[i]);
        if (cli_evidence_file_sha(fp, hex, NULL) != 0) { fclose(f); return -1; }
        fprintf(f, "%s  %s\n", hex, names[i]);
    }
    return fclose(f) == 0 ? 0 : -1;
}

static void remove_tmp(const char *tmp, const char *const *names, int n) {
    char p[4096];
    for (int i = 0; i < n; i++) { path_join(p, sizeof p, tmp, names[i]); unlink(p); }
    path_join(p, sizeof p, tmp, "SHA256SUMS"); unlink(p);
    rmdir(tmp);
}

static int write_timing(const char *path, const ev_measure *me) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    ev_timing_write(f, me);
    return fclose(f) == 0 ? 0 : -1;
}

/* rename without replacing: an empty folder made at dir in the meantime is not taken over. */
static int rename_new(const char *from, const char *to) {
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
#endif
    return rename(from, to);
}

int cli_evidence_write(const cli_evidence *e) {
    if (cli_evidence_check(e->dir) != CLI_OK) return CLI_ERROR;
    char bhex[65], chex[65]; size_t bsize = 0, csize = 0;
    if (cli_evidence_file_sha(e->baseline, bhex, &bsize) != 0) return cli_error("evidence: cannot read baseline %s", e->baseline);
    if (cli_evidence_file_sha(e->candidate, chex, &csize) != 0) return cli_error("evidence: cannot read candidate %s", e->candidate);
    ev_measure me;
    ev_measure_run(e, &me);
    char why[200];
    me.change_ok = json_ok(e->change_json, JV_OBJ, why, sizeof why);
    if (!me.change_ok && me.n_limits < EV_MAX_LIMITS)
        snprintf(me.limits[me.n_limits++], sizeof me.limits[0], "the verb's change text is not valid JSON (%s): kept as a string", why);
    me.checks_ok = json_ok(e->checks_json, JV_ARR, why, sizeof why);
    if (!me.checks_ok && me.n_limits < EV_MAX_LIMITS)
        snprintf(me.limits[me.n_limits++], sizeof me.limits[0], "the verb's checks text is not valid JSON (%s): kept as a string", why);
    char dir[4096], tmp[4200];
    if (snprintf(dir, sizeof dir, "%s", e->dir) >= (int)sizeof dir) { ev_measure_free(&me); return cli_error("evidence: folder name too long"); }
    for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--) dir[n - 1] = 0; /* "ev/" is ev */
    snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", dir);
    if (!mkdtemp(tmp)) { ev_measure_free(&me); return cli_error("evidence: cannot create %s: %s", tmp, strerror(errno)); }
    mode_t um = umask(0);
    umask(um);
    chmod(tmp, 0777 & ~um);
    const char *bname = baseline_name(e->baseline);
    const char *names[] = {"contract.json", "measurements_timing.json", "environment.json", "command.txt", bname,
                           "candidate.tflite"};
    int n = 6;
    char p[4096]; int rc = 0;
    path_join(p, sizeof p, tmp, names[0]); rc |= write_contract(p, e, &me, bname, bhex, bsize, chex, csize);
    path_join(p, sizeof p, tmp, names[1]); rc |= write_timing(p, &me);
    path_join(p, sizeof p, tmp, names[2]); rc |= write_environment(p);
    path_join(p, sizeof p, tmp, names[3]); rc |= write_command(p, e);
    path_join(p, sizeof p, tmp, names[4]); rc |= copy_file(e->baseline, p);
    path_join(p, sizeof p, tmp, names[5]); rc |= copy_file(e->candidate, p);
    ev_measure_free(&me);
    if (rc == 0) rc = write_sums(tmp, names, n);
    if (rc != 0) { remove_tmp(tmp, names, n); return cli_error("evidence: cannot write the record in %s", tmp); }
    if (cli_evidence_check(dir) != CLI_OK) { remove_tmp(tmp, names, n); return CLI_ERROR; }
    if (rename_new(tmp, dir) != 0) {
        int er = errno; remove_tmp(tmp, names, n);
        if (er == EEXIST) return cli_error("evidence folder %s exists: refused (records are never overwritten)", e->dir);
        return cli_error("evidence: cannot rename %s to %s: %s", tmp, e->dir, strerror(er));
    }
    return CLI_OK;
}
