#define _XOPEN_SOURCE 700 /* realpath */
/* litegpu verify: run the model on the real ML Drift GPU delegate (LiteRT.js WebGPU in
 * headless Chromium, through peers/verify/verify.js), compare its outputs with LiteRT's CPU
 * path, and hold `check --target mldrift` to the delegate's verdict. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "json_parse.h"
#include "lg/check.h"
#include "lg/compare.h"
#include "lg/npy.h"
#include "lg/split.h"
#include "run_common.h"
#include "verify_bisect.h"

/* The repository root: LITEGPU_HOME, else two levels above the executable (build/litegpu). */
static int find_home(char *out, size_t n) {
    const char *env = getenv("LITEGPU_HOME");
    if (env && env[0]) { snprintf(out, n, "%s", env); return 0; }
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return -1;
    exe[k] = 0;
    for (int up = 0; up < 2; up++) {
        char *s = strrchr(exe, '/');
        if (!s) return -1;
        *s = 0;
    }
    snprintf(out, n, "%s", exe[0] ? exe : "/");
    return 0;
}

static int exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    while (b) {
        size_t r = fread(b + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) break;
        if (n + 1 >= cap) {
            char *nb = realloc(b, cap * 2);
            if (!nb) { free(b); b = NULL; break; }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (b) b[n] = 0;
    if (len) *len = n;
    return b;
}

static void first_line(const char *text, char *out, size_t n) {
    size_t k = 0;
    while (text && text[k] && text[k] != '\n' && k + 1 < n) { out[k] = text[k]; k++; }
    out[k] = 0;
}

/* Run the harness on every model in one browser session; its stdout goes to out_path,
   stderr to err_path. Returns its exit code, or -1 if it could not be started / was killed. */
static int run_harness(const char *home, const char *const *models, int n_models, const char *prec,
                       const char *fill, const char *dir, const char *timeout_ms, const char *out_path,
                       const char *err_path) {
    char script[PATH_MAX + 64];
    snprintf(script, sizeof script, "%s/peers/verify/verify.js", home);
    const char *args[80];
    int k = 0;
    args[k++] = "node";
    args[k++] = "--no-liftoff";
    args[k++] = script;
    args[k++] = "--precision";
    args[k++] = prec;
    args[k++] = "--fill";
    args[k++] = fill;
    args[k++] = "--out";
    args[k++] = dir;
    args[k++] = "--timeout-ms";
    args[k++] = timeout_ms;
    args[k++] = "--";
    for (int i = 0; i < n_models && k < 79; i++) args[k++] = models[i];
    args[k] = NULL;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        /* 0666 less the umask, like every file litegpu writes */
        int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        int fi = open("/dev/null", O_RDONLY);
        if (fo < 0 || fe < 0 || fi < 0) _exit(127);
        dup2(fi, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        execvp("node", (char *const *)args);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return -1;
}

typedef struct out_cmp {
    lg_metrics m;
    bool have;
    bool argmax_equal;
    bool pearson_defined, max_rel_defined;
    double score, severity; /* lg_judge: rms error / the output's scale, and score / tol */
    char location[16];
} out_cmp;

static int rm_tree(const char *dir) {
    pid_t pid = fork();
    if (pid == 0) {
        execlp("rm", "rm", "-rf", dir, (char *)NULL);
        _exit(127);
    }
    int st;
    if (pid > 0) waitpid(pid, &st, 0);
    return 0;
}

/* One line of the check-vs-delegate comparison, by op name. */
typedef struct disagreement {
    char op[48];
    const char *rule;      /* the rule check blocked it with, or NULL */
    int check_blocks;      /* check says the op keeps the model off the GPU */
    int delegate_rejects;  /* the delegate rejected it */
    int expected;          /* a field rule the WebGPU backend is not expected to enforce */
} disagreement;

static int rejected_has(const jv *rejected, const char *op) {
    for (size_t i = 0; rejected && i < rejected->n; i++)
        if (strcmp(jv_str(jv_at(rejected, i), "op", ""), op) == 0) return 1;
    return 0;
}

/* Op names the two sides judge differently: check's blockers the delegate took, and the
   delegate's rejections check did not predict. */
static size_t disagreements(const lg_model *m, const lg_check_report *pred, const jv *rejected, disagreement *d,
                            size_t max) {
    const lg_subgraph *sg = &m->subgraphs[0];
    size_t n = 0;
    for (uint32_t i = 0; i < pred->n_findings && n < max; i++) {
        const lg_finding *f = &pred->findings[i];
        if (f->rule->severity != LG_SEV_BLOCKER || f->op < 0) continue;
        const char *name = lg_op_name(m, &sg->ops[f->op]);
        if (rejected_has(rejected, name)) continue;
        int dup = 0;
        for (size_t k = 0; k < n; k++) dup |= strcmp(d[k].op, name) == 0 && d[k].rule == f->rule->id;
        if (dup) continue;
        snprintf(d[n].op, sizeof d[n].op, "%s", name);
        d[n].rule = f->rule->id;
        d[n].check_blocks = 1;
        d[n].delegate_rejects = 0;
        d[n].expected = strncmp(f->rule->source_kind, "device-reported", 15) == 0;
        n++;
    }
    for (size_t i = 0; rejected && i < rejected->n && n < max; i++) {
        const char *name = jv_str(jv_at(rejected, i), "op", "");
        int blocked = 0;
        for (uint32_t k = 0; k < pred->n_findings; k++) {
            const lg_finding *f = &pred->findings[k];
            if (f->rule->severity == LG_SEV_BLOCKER && f->op >= 0 && strcmp(lg_op_name(m, &sg->ops[f->op]), name) == 0)
                blocked = 1;
        }
        int dup = 0;
        for (size_t k = 0; k < n; k++) dup |= strcmp(d[k].op, name) == 0 && d[k].delegate_rejects;
        if (blocked || dup) continue;
        snprintf(d[n].op, sizeof d[n].op, "%s", name);
        d[n].rule = NULL;
        d[n].check_blocks = 0;
        d[n].delegate_rejects = 1;
        d[n].expected = 0;
        n++;
    }
    return n;
}


#define MAX_MODELS 64

/* True when line (after "Error: ", "\u2514 " and "ERROR:") is only a source location such as
   "[third_party/.../litert_web.cc:245]": LiteRT's compile exception is a chain of those. */
static int location_only(const char *line) {
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "Error:", 6) == 0) p += 6;
        else if (strncmp(p, "ERROR:", 6) == 0) p += 6;
        else if (strncmp(p, "\xe2\x94\x94", 3) == 0) p += 3; /* U+2514, LiteRT's chain marker */
        else break;
    }
    if (*p != '[') return *p == 0;
    const char *e = strchr(p, ']');
    if (!e) return 0;
    for (e++; *e == ' ' || *e == '\t'; e++) {}
    return *e == 0;
}

/* Append line (without a leading "ERROR: ") to out as "; "-separated text. */
static void add_reason(char *out, size_t n, const char *line, size_t len) {
    while (len && (*line == ' ' || *line == '\t')) { line++; len--; }
    if (len >= 7 && strncmp(line, "ERROR: ", 7) == 0) { line += 7; len -= 7; }
    while (len && (line[len - 1] == ' ' || line[len - 1] == '\r')) len--;
    if (!len) return;
    size_t used = strlen(out);
    if (used + 3 >= n) return;
    snprintf(out + used, n - used, "%s%.*s", used ? "; " : "", (int)len, line);
}

/* The delegate's own reason a model did not compile. LiteRT.js's compile exception names only
   source locations; the cause is in the GPU phase's ERROR lines ("Encountered unresolved
   custom op: MyOp.", "Node number 1 (MyOp) failed to prepare."). Those lines, else the
   exception's lines that say more than a location, else "(no message)". */
static void compile_reason(const jv *rep, char *out, size_t n) {
    out[0] = 0;
    const jv *errs = jv_get(rep, "errors");
    for (size_t i = 0; errs && i < errs->n; i++) {
        const jv *l = jv_at(errs, i);
        if (!l || l->type != JV_STR || location_only(l->str) || strstr(l->str, "Restored original")) continue;
        add_reason(out, n, l->str, strlen(l->str));
    }
    const char *ce = jv_str(rep, "compile_error", NULL);
    for (const char *p = ce; !out[0] && p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        if (!location_only(line)) add_reason(out, n, line, strlen(line));
        p = nl ? nl + 1 : p + len;
    }
    if (!out[0]) snprintf(out, n, "(no message)");
}

/* The delegate's rejections to show: a bare "OP:" line is dropped when the same op also has
   a line with a message (the DENSIFY model prints "DEQUANTIZE:" then "DEQUANTIZE: Dequantize
   for Densify is not supported"); one left bare has no message. */
static int rejected_shown(const jv *rejected, size_t i) {
    const jv *r = jv_at(rejected, i);
    const char *op = jv_str(r, "op", ""), *msg = jv_str(r, "message", "");
    if (msg[0]) return 1;
    for (size_t k = 0; k < rejected->n; k++)
        if (k != i && strcmp(jv_str(jv_at(rejected, k), "op", ""), op) == 0 &&
            jv_str(jv_at(rejected, k), "message", "")[0])
            return 0;
    return 1;
}

/* The op counts of both sides on one basis, folded ops apart: check's n_gpu_ops / n_cpu_ops /
   n_folded_ops partition the ops. The delegate's log line ("N operations will run on the GPU,
   and the remaining M operations will run on the CPU") counts every node, and the fp16
   DEQUANTIZE nodes it folds are not among the N it replaces (face_detection_full_range_sparse:
   159 + 229 = 388 nodes, 136 of them folded, 2 GPU partitions of 4 and 156 ops), so they are
   taken out of M. A delegate that took the whole graph prints no such line. */
typedef struct op_counts {
    int known;
    long gpu, cpu, folded;
} op_counts;

static op_counts delegate_counts(const jv *rep, const lg_check_report *pred, int on_gpu) {
    op_counts c = {0, 0, 0, (long)pred->n_folded_ops};
    const jv *g = jv_get(rep, "gpu_ops"), *k = jv_get(rep, "cpu_ops");
    if (g && g->type == JV_NUM && k && k->type == JV_NUM) {
        c.known = 1;
        c.gpu = (long)g->num;
        c.cpu = (long)k->num - c.folded;
        if (c.cpu < 0) { c.gpu += c.cpu; c.cpu = 0; }
    } else if (on_gpu) {
        c.known = 1;
        c.gpu = (long)pred->n_ops - c.folded;
        c.cpu = 0;
    }
    return c;
}

/* Pearson correlation is undefined when either side is constant (or has under 2 values),
   max_rel when the reference is all zero: those are JSON null, text n/a. */
static int nonconstant(const float *x, int64_t n) {
    int have = 0;
    float first = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) continue;
        if (!have) { first = x[i]; have = 1; }
        else if (x[i] != first) return 1;
    }
    return 0;
}

/* Judge one model's harness report; print it (text) or add it to the JSON array. Returns 1
   when the model is fully on the GPU and within tolerance. *agree_out: check's prediction
   equals the delegate's verdict. */
int cli_verify_judge(const jv *o, const char *dir, double corr, lg_metrics *m, lg_verdict *vd, bool *pearson_defined) {
    const char *gf = jv_str(o, "gpu_file", NULL), *cf = jv_str(o, "cpu_file", NULL);
    if (!gf || !cf) return -1;
    char gp[PATH_MAX + 600], cp[PATH_MAX + 600];
    snprintf(gp, sizeof gp, "%s%s%s", gf[0] == '/' ? "" : dir, gf[0] == '/' ? "" : "/", gf);
    snprintf(cp, sizeof cp, "%s%s%s", cf[0] == '/' ? "" : dir, cf[0] == '/' ? "" : "/", cf);
    lg_npy a, b;
    lg_error e2;
    if (lg_npy_read_file(cp, &a, &e2) != LG_OK) return -1;
    if (lg_npy_read_file(gp, &b, &e2) != LG_OK) {
        lg_npy_free(&a);
        return -1;
    }
    float *fa = NULL, *fb = NULL;
    int rc = -1;
    if (a.numel == b.numel && lg_npy_to_f32(&a, &fa, &e2) == LG_OK && lg_npy_to_f32(&b, &fb, &e2) == LG_OK) {
        /* the one judge compare uses (src/run/judge.c): reference = CPU, test = GPU */
        lg_judge_options jo = {0, 0, corr, 0};
        lg_judge_values(fa, fb, a.numel, &jo, m, vd);
        *pearson_defined = nonconstant(fa, a.numel) && nonconstant(fb, b.numel);
        rc = 0;
    }
    free(fa);
    free(fb);
    lg_npy_free(&a);
    lg_npy_free(&b);
    return rc;
}

static int verify_one(const char *path, const lg_model *m, const lg_check_report *pred, const jv *rep, const char *dir,
                      const char *prec, const char *fill, double corr, json_w *j, int *agree_out) {
    int compiled = jv_bool(rep, "compiled", 0);
    int fully = jv_bool(rep, "fully_accelerated", 0);
    const jv *locs = jv_get(rep, "output_locations");
    int all_gpu = locs && locs->n > 0;
    for (size_t i = 0; locs && i < locs->n; i++) {
        const jv *l = jv_at(locs, i);
        if (!l || l->type != JV_STR || strcmp(l->str, "webgpu") != 0) all_gpu = 0;
    }
    const jv *rejected = jv_get(rep, "rejected");
    const jv *logl = jv_get(rep, "log");
    int bad_log = 0;
    for (size_t i = 0; logl && i < logl->n; i++) {
        const jv *l = jv_at(logl, i);
        if (l && l->type == JV_STR && (strstr(l->str, "not supported") || strstr(l->str, "must be less than") ||
                                       strstr(l->str, "Not supported") || strstr(l->str, "static-sized")))
            bad_log = 1;
    }
    double cpu_ops = jv_num(rep, "cpu_ops", -1);
    /* delegation judged robustly (peers.md's rank-5 trap: isFullyAccelerated can stay true
       while outputs fall back to wasm) */
    int on_gpu = compiled && fully && all_gpu && !bad_log && (!rejected || rejected->n == 0) && cpu_ops <= 0;

    const jv *outs = jv_get(rep, "outputs");
    size_t n_out = outs ? outs->n : 0;
    out_cmp *oc = calloc(n_out ? n_out : 1, sizeof *oc);
    int within = n_out > 0 && compiled && oc;
    for (size_t k = 0; oc && k < n_out; k++) {
        const jv *o = jv_at(outs, k);
        if (locs && jv_at(locs, k) && jv_at(locs, k)->type == JV_STR)
            snprintf(oc[k].location, sizeof oc[k].location, "%s", jv_at(locs, k)->str);
        lg_verdict vd;
        if (cli_verify_judge(o, dir, corr, &oc[k].m, &vd, &oc[k].pearson_defined) != 0) {
            within = 0;
            continue;
        }
        oc[k].have = true;
        oc[k].argmax_equal = oc[k].m.ref_argmax == oc[k].m.test_argmax;
        oc[k].max_rel_defined = oc[k].m.ref_max_abs > 0;
        oc[k].score = vd.score;
        oc[k].severity = vd.severity;
        if (!vd.pass) within = 0;
    }
    int trusted = on_gpu; /* a partially delegated run's numbers vary run to run (peers.md) */
    int ok = on_gpu && within;
    const lg_subgraph *sg = &m->subgraphs[0];
    /* A model that did not compile was never judged op by op: no verdict to hold check to. */
    int agree = compiled ? (pred->ready != 0) == (on_gpu != 0) : -1;
    disagreement dis[64];
    size_t n_dis = compiled ? disagreements(m, pred, rejected, dis, 64) : 0;
    *agree_out = agree;
    char reason[1024] = "";
    if (!compiled) compile_reason(rep, reason, sizeof reason);
    op_counts dc = delegate_counts(rep, pred, on_gpu);
    if (j) {
        json_obj_open(j);
        json_key_str(j, "model", path);
        json_key_bool(j, "ok", ok);
        json_key_bool(j, "compiled", compiled);
        json_key_str(j, "compile_error", compiled ? NULL : reason);
        json_key_bool(j, "fully_accelerated_flag", fully);
        json_key_bool(j, "fully_on_gpu", on_gpu);
        json_key_uint(j, "n_ops", pred->n_ops);
        json_key_double(j, "n_gpu_ops", dc.known ? (double)dc.gpu : NAN);
        json_key_double(j, "n_cpu_ops", dc.known ? (double)dc.cpu : NAN);
        json_key_uint(j, "n_folded_ops", pred->n_folded_ops);
        json_key(j, "rejected");
        json_arr_open(j);
        for (size_t i = 0; rejected && i < rejected->n; i++) {
            if (!rejected_shown(rejected, i)) continue;
            const char *msg = jv_str(jv_at(rejected, i), "message", "");
            json_obj_open_flat(j);
            json_key_str(j, "op", jv_str(jv_at(rejected, i), "op", ""));
            json_key_str(j, "message", msg[0] ? msg : NULL);
            json_obj_close(j);
        }
        json_arr_close(j);
        json_key(j, "outputs");
        json_arr_open(j);
        for (size_t k = 0; k < n_out; k++) {
            json_obj_open_flat(j);
            json_key_uint(j, "index", k);
            json_key_str(j, "location", oc[k].location);
            json_key_bool(j, "trusted", trusted);
            if (oc[k].have) {
                json_key_double(j, "max_abs", oc[k].m.max_abs);
                json_key_double(j, "max_rel", oc[k].max_rel_defined ? oc[k].m.max_rel : NAN);
                json_key_double(j, "pearson", oc[k].pearson_defined ? oc[k].m.pearson : NAN);
                json_key_double(j, "score", oc[k].score);
                json_key_double(j, "severity", oc[k].severity);
                json_key_bool(j, "argmax_equal", oc[k].argmax_equal);
            }
            json_obj_close(j);
        }
        json_arr_close(j);
        json_key_bool(j, "within_tolerance", within);
        json_key_double(j, "first_run_ms", jv_num(rep, "first_run_ms", NAN));
        json_key_double(j, "run_ms", jv_num(rep, "run_ms", NAN));
        json_key(j, "check");
        json_obj_open(j);
        json_key_bool(j, "predicted_ready", pred->ready);
        json_key_uint(j, "n_blockers", pred->n_blockers);
        json_key_uint(j, "n_gpu_ops", pred->n_gpu_ops);
        json_key_uint(j, "n_cpu_ops", pred->n_cpu_ops);
        json_key_uint(j, "n_folded_ops", pred->n_folded_ops);
        json_key(j, "agrees");
        if (agree < 0) json_null(j);
        else json_bool(j, agree);
        json_key(j, "disagreements");
        json_arr_open(j);
        for (size_t i = 0; i < n_dis; i++) {
            json_obj_open_flat(j);
            json_key_str(j, "op_name", dis[i].op);
            json_key_str(j, "rule", dis[i].rule);
            json_key_bool(j, "check_blocks", dis[i].check_blocks);
            json_key_bool(j, "delegate_rejects", dis[i].delegate_rejects);
            json_key_bool(j, "expected_backend_difference", dis[i].expected);
            json_obj_close(j);
        }
        json_arr_close(j);
        json_key(j, "blocked_ops");
        json_arr_open(j);
        for (uint32_t i = 0; i < pred->n_findings; i++)
            if (pred->findings[i].rule->severity == LG_SEV_BLOCKER && pred->findings[i].op >= 0) {
                json_obj_open_flat(j);
                json_key_int(j, "op", pred->findings[i].op);
                json_key_str(j, "op_name", lg_op_name(m, &sg->ops[pred->findings[i].op]));
                json_key_str(j, "rule", pred->findings[i].rule->id);
                json_obj_close(j);
            }
        json_arr_close(j);
        json_obj_close(j);
        json_obj_close(j);
    } else {
        printf("%s on ML Drift (LiteRT.js WebGPU, %s, input %s): %s\n", path, prec, fill,
               !compiled ? "DID NOT COMPILE" : on_gpu ? (within ? "FULLY ON THE GPU, outputs match the CPU"
                                                                : "FULLY ON THE GPU, outputs DIFFER from the CPU")
                                             : "NOT FULLY ON THE GPU");
        if (!compiled) {
            printf("  compile error: %s\n", reason);
        } else {
            printf("  isFullyAccelerated %s; outputs on", fully ? "true" : "false");
            for (size_t k = 0; k < n_out; k++) printf(" %s", oc[k].location[0] ? oc[k].location : "?");
            printf("\n");
            if (dc.known)
                printf("  ops (folded DEQUANTIZEs apart): the delegate %ld on the GPU, %ld on the CPU; check %u on the GPU, "
                       "%u on the CPU; %u folded\n", dc.gpu, dc.cpu, pred->n_gpu_ops, pred->n_cpu_ops, pred->n_folded_ops);
        }
        for (size_t i = 0; rejected && i < rejected->n; i++) {
            if (!rejected_shown(rejected, i)) continue;
            const char *msg = jv_str(jv_at(rejected, i), "message", "");
            printf("  rejected: %s: %s\n", jv_str(jv_at(rejected, i), "op", "?"), msg[0] ? msg : "(no message)");
        }
        for (size_t k = 0; compiled && k < n_out; k++) {
            if (!oc[k].have) { printf("  output %zu: no comparison\n", k); continue; }
            char rel[32] = "n/a", pr[32] = "n/a";
            if (oc[k].max_rel_defined) snprintf(rel, sizeof rel, "%.3g", oc[k].m.max_rel);
            if (oc[k].pearson_defined) snprintf(pr, sizeof pr, "%.6f", oc[k].m.pearson);
            printf("  output %zu: GPU vs CPU max_abs %.3g max_rel %s pearson %s score %.3g argmax %s%s\n", k,
                   oc[k].m.max_abs, rel, pr, oc[k].score, oc[k].argmax_equal ? "same" : "differs",
                   trusted ? "" : "  (UNTRUSTWORTHY: partially delegated run)");
        }
        if (agree < 0)
            printf("  check --target mldrift --gpu webgpu predicted %s (%u blocker(s)); the model did not compile, so no op was judged: "
                   "no verdict to compare\n", pred->ready ? "READY" : "NOT READY", pred->n_blockers);
        else
            printf("  check --target mldrift --gpu webgpu predicted %s (%u blocker(s)); the delegate says %s: %s\n",
                   pred->ready ? "READY" : "NOT READY", pred->n_blockers,
                   on_gpu ? "fully on the GPU" : "not fully on the GPU", agree ? "AGREE" : "DISAGREE");
        for (size_t i = 0; i < n_dis; i++) {
            if (dis[i].check_blocks)
                printf("    %s: check blocks it (%s), the delegate took it%s\n", dis[i].op, dis[i].rule,
                       dis[i].expected ? " (a Mali field rule: not expected on WebGPU)" : "");
            else
                printf("    %s: the delegate rejected it, check did not predict it\n", dis[i].op);
        }
    }
    free(oc);
    return ok;
}

int cmd_verify(const cli_verb *v, int argc, char **argv) {
    bool json = false, force = false, bisect = false;
    const char *prec = NULL, *fill = NULL, *out_dir = NULL, *corr_s = NULL, *timeout_s = NULL;
    const cli_flag flags[] = {
        {"--json", NULL, &json, NULL, NULL, NULL, 0},
        {"--force", NULL, &force, NULL, NULL, NULL, 0},
        {"--precision", "-p", NULL, &prec, NULL, NULL, 0},
        {"--fill", NULL, NULL, &fill, NULL, NULL, 0},
        {"--out", "-o", NULL, &out_dir, NULL, NULL, 0},
        {"--corr", NULL, NULL, &corr_s, NULL, NULL, 0},
        {"--timeout", NULL, NULL, &timeout_s, NULL, NULL, 0},
        {"--bisect", NULL, &bisect, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[MAX_MODELS];
    int n_pos = 0;
    int rc = cli_parse(v, argc, argv, flags, pos, MAX_MODELS, &n_pos);
    if (rc >= 0) return rc;
    if (n_pos < 1) return cli_usage_error(v, "expected MODEL...");
    if (bisect && n_pos != 1) return cli_usage_error(v, "--bisect takes one MODEL");
    /* fp32|f32 and fp16|f16, like every verb; the report says f32/f16 and the harness gets
       gpuOptions.precision's own names (fp32/fp16). The delegate has no f32_f16 mode. */
    int pi = prec ? lg_precision_from_name(prec) : LG_PREC_F32;
    if (pi != LG_PREC_F32 && pi != LG_PREC_F16)
        return cli_usage_error(v, "--precision takes f32|fp32 or f16|fp16 (the delegate has no f32_f16 mode)");
    prec = pi == LG_PREC_F16 ? "f16" : "f32";
    const char *harness_prec = pi == LG_PREC_F16 ? "fp16" : "fp32";
    if (!fill) fill = "half";
    if (strcmp(fill, "half") && strcmp(fill, "pattern")) return cli_usage_error(v, "--fill takes half or pattern");
    double corr = 0; /* off: the judge's own test decides (--corr adds a correlation test) */
    char *end;
    if (corr_s && (!((corr = strtod(corr_s, &end)) > 0 && corr <= 1) || *end)) return cli_usage_error(v, "--corr takes (0, 1]");
    long timeout = 180;
    if (timeout_s && ((timeout = strtol(timeout_s, &end, 10)) < 1 || *end || timeout > 3600)) return cli_usage_error(v, "--timeout takes 1..3600 seconds");
    char timeout_ms[32];
    snprintf(timeout_ms, sizeof timeout_ms, "%ld", timeout * 1000);

    /* the oracle must be there: never a stack trace, one line saying how to get it */
    char home[PATH_MAX], p1[PATH_MAX + 64], p2[PATH_MAX + 64];
    if (find_home(home, sizeof home)) return cli_error("cannot locate litegpu's files (set LITEGPU_HOME)");
    snprintf(p1, sizeof p1, "%s/peers/verify/verify.js", home);
    snprintf(p2, sizeof p2, "%s/peers/node_modules/playwright-core", home);
    const char *chromium = getenv("LITEGPU_CHROMIUM") ? getenv("LITEGPU_CHROMIUM") : "/usr/bin/chromium";
    if (!exists(p1) || !exists(p2) || !exists(chromium))
        return cli_error("verify needs Chromium, Node.js and the npm packages in peers/ (missing %s): run 'make verify-deps'",
                         !exists(p1) ? p1 : !exists(p2) ? p2 : chromium);

    cli_file files[MAX_MODELS];
    lg_model *models[MAX_MODELS] = {0};
    lg_model *tapped = NULL; /* --bisect */
    cli_outdir od; /* before the first goto out: the exit path reads it */
    memset(&od, 0, sizeof od);
    lg_check_report *preds[MAX_MODELS] = {0};
    int n_loaded = 0;
    rc = CLI_OK;
    for (int i = 0; i < n_pos; i++) {
        if (cli_model_load(pos[i], &files[i], &models[i]) != 0) { rc = CLI_ERROR; break; }
        n_loaded++;
        lg_error err;
        lg_check_options co = {LG_TARGET_MLDRIFT, 0, LG_GPU_WEBGPU}; /* verify runs ML Drift on WebGPU */
        if (lg_check_model(models[i], &co, &preds[i], &err) != LG_OK) { rc = cli_lib_error(pos[i], &err); break; }
    }
    char tmp[] = "/tmp/litegpu-verify-XXXXXX";
    int own_tmp = 0;
    const char *dir = out_dir;
    char *otext = NULL, *etext = NULL;
    if (rc != CLI_OK) goto out;
    if (out_dir) {
        /* filled in a temporary folder that becomes out_dir only when the run completes */
        if (cli_outdir_begin(&od, out_dir, force)) { rc = CLI_ERROR; goto out; }
        dir = od.work;
    } else {
        if (!mkdtemp(tmp)) { rc = cli_error("cannot create a temporary folder: %s", strerror(errno)); goto out; }
        dir = tmp;
        own_tmp = 1;
    }
    /* the harness names its output files from the folder it is given: give it an absolute
       one, so the report's paths are absolute whatever the working directory */
    char adir[PATH_MAX];
    if (!realpath(dir, adir)) { rc = cli_error("%s: %s", dir, strerror(errno)); goto out; }
    dir = adir;
    char so[PATH_MAX + 32], se[PATH_MAX + 32];
    snprintf(so, sizeof so, "%s/harness.json", dir);
    snprintf(se, sizeof se, "%s/harness.log", dir);
    /* --bisect: the model with every float intermediate as an extra output runs instead */
    char tapped_path[PATH_MAX + 64];
    const char *run_paths[MAX_MODELS];
    for (int i = 0; i < n_pos; i++) run_paths[i] = pos[i];
    if (bisect) {
        lg_error err;
        uint32_t n_added = 0;
        snprintf(tapped_path, sizeof tapped_path, "%s/tapped.tflite", dir);
        lg_write_options wo = {.force = false};
        if (lg_model_taps(models[0], NULL, 0, &tapped, &n_added, &err) != LG_OK ||
            lg_tflite_write_file(tapped, tapped_path, &wo, &err) != LG_OK) {
            rc = cli_lib_error(pos[0], &err);
            goto out;
        }
        run_paths[0] = tapped_path;
    }
    if (isatty(2)) fprintf(stderr, "verify: running %d model(s) on ML Drift (WebGPU, %s) in headless Chromium...\n", n_pos, prec);
    int hrc = run_harness(home, run_paths, n_pos, harness_prec, fill, dir, timeout_ms, so, se);
    size_t ol = 0;
    otext = slurp(so, &ol);
    etext = slurp(se, NULL);
    char line[400];
    if (hrc == 4 || hrc == 127 || hrc < 0) {
        first_line(etext && etext[0] ? etext : "the harness could not start", line, sizeof line);
        rc = cli_error("verify: the GPU oracle is unavailable: %s (run 'make verify-deps')", line);
        goto out;
    }
    if (hrc == 2 || !otext || !ol) {
        first_line(etext && etext[0] ? etext : "no report", line, sizeof line);
        rc = cli_error("verify: the harness failed (exit %d): %s", hrc, line);
        goto out;
    }
    /* one report line per model, in order */
    jv *reps[MAX_MODELS] = {0};
    int n_reps = 0;
    for (char *p = otext; *p && n_reps < n_pos;) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len > 0 && p[0] == '{') {
            char jerr[128];
            reps[n_reps] = jv_parse(p, len, jerr, sizeof jerr);
            if (!reps[n_reps]) {
                rc = cli_error("verify: cannot read the harness report for %s: %s", pos[n_reps], jerr);
                for (int i = 0; i < n_reps; i++) jv_free(reps[i]);
                goto out;
            }
            n_reps++;
        }
        p = nl ? nl + 1 : p + len;
    }
    if (n_reps != n_pos) {
        rc = cli_error("verify: the harness reported %d of %d model(s)", n_reps, n_pos);
        for (int i = 0; i < n_reps; i++) jv_free(reps[i]);
        goto out;
    }
    /* A model the harness could not process (timed out, unreadable, the page crashed) has no
       verdict: it is an error (exit 2), named in one line after the others' reports. */
    char unprocessed[1024] = "";
    int n_unprocessed = 0;
    for (int i = 0; i < n_pos; i++) {
        if (jv_bool(reps[i], "ok", 0)) continue;
        char what[400];
        if (jv_bool(reps[i], "timed_out", 0)) snprintf(what, sizeof what, "timed out after %ld s", timeout);
        else snprintf(what, sizeof what, "%s", jv_str(reps[i], "error", "the harness could not process it"));
        size_t used = strlen(unprocessed);
        snprintf(unprocessed + used, sizeof unprocessed - used, "%s%s: %s", used ? "; " : "", pos[i], what);
        n_unprocessed++;
    }
    json_w j;
    int all_ok = 1, n_agree = 0, n_ok = 0, n_judged = 0;
    if (json) {
        json_init(&j, stdout);
        json_obj_open(&j);
        json_key_str(&j, "verb", "verify");
        json_key(&j, "model"); /* the path when one MODEL is given; several: null (see models) */
        if (n_pos == 1) json_str(&j, pos[0]);
        else json_null(&j);
        json_key_str(&j, "backend", "ML Drift (LiteRT.js WebGPU, headless Chromium)");
        json_key_str(&j, "precision", prec);
        json_key_str(&j, "fill", fill);
        json_key(&j, "models");
        json_arr_open(&j);
    }
    for (int i = 0; i < n_pos; i++) {
        if (!jv_bool(reps[i], "ok", 0)) {
            all_ok = 0;
            if (json) {
                json_obj_open(&j);
                json_key_str(&j, "model", pos[i]);
                json_key_bool(&j, "ok", false);
                json_key_str(&j, "error", jv_bool(reps[i], "timed_out", 0) ? "timed out" : jv_str(reps[i], "error", NULL));
                json_key_bool(&j, "timed_out", jv_bool(reps[i], "timed_out", 0));
                json_obj_close(&j);
            }
            jv_free(reps[i]);
            continue;
        }
        int agree = 0;
        if (bisect) {
            if (json) {
                json_obj_open(&j);
                json_key_str(&j, "model", pos[i]);
            }
            int bok = cli_bisect_report(pos[i], tapped, models[i]->subgraphs[0].n_outputs, reps[i], dir, prec, corr,
                                        json ? &j : NULL);
            if (json) {
                json_key_bool(&j, "ok", bok);
                json_obj_close(&j);
            }
            if (bok) n_ok++;
            else all_ok = 0;
            jv_free(reps[i]);
            continue;
        }
        if (verify_one(pos[i], models[i], preds[i], reps[i], dir, prec, fill, corr, json ? &j : NULL, &agree)) n_ok++;
        else all_ok = 0;
        n_agree += agree > 0;
        n_judged += agree >= 0;
        jv_free(reps[i]);
    }
    if (json) {
        json_arr_close(&j);
        json_key_int(&j, "n_models", n_pos);
        json_key_int(&j, "n_ok", n_ok);
        json_key_int(&j, "n_judged", n_judged);
        json_key_int(&j, "n_check_agrees", n_agree);
        json_key_int(&j, "n_unprocessed", n_unprocessed);
        json_key_bool(&j, "ok", all_ok);
        json_obj_close(&j);
        rc = json_finish(&j) ? cli_error("cannot write the report") : (all_ok ? CLI_OK : CLI_FINDINGS);
    } else {
        if (n_pos > 1)
            printf("%d model(s): %d fully on the GPU and within tolerance; check agrees with the delegate on %d of the %d "
                   "judged\n", n_pos, n_ok, n_agree, n_judged);
        if (out_dir) printf("outputs and the harness log are in %s\n", out_dir);
        rc = all_ok ? CLI_OK : CLI_FINDINGS;
    }
    if (n_unprocessed && rc != CLI_ERROR) rc = cli_error("verify: %s", unprocessed);
out:
    free(otext);
    free(etext);
    if (own_tmp) rm_tree(tmp);
    if (od.active) {
        if (rc != CLI_ERROR) {
            if (cli_outdir_commit(&od)) rc = CLI_ERROR;
        } else {
            cli_outdir_abort(&od);
        }
    }
    lg_model_free(tapped);
    for (int i = 0; i < n_loaded; i++) {
        lg_check_report_free(preds[i]);
        lg_model_free(models[i]);
        cli_file_close(&files[i]);
    }
    return rc;
}
