/* litegpu evidence DIR [--json]: verify an evidence record (evidence.h) and print it.
   Verified means: SHA256SUMS is present and every line is "<64 lowercase hex>  NAME" (the
   format `sha256sum` writes and `sha256sum -c` reads; NAME a plain file name, listed once);
   every listed file is a regular file whose sha256 is the listed one; DIR holds no other entry
   but SHA256SUMS; contract.json is listed and parses, and its baseline / candidate /
   rollback_artifact sha256 are the digests of the copies it names (which must be listed).
   Exit 0 verified, 1 tampered or incomplete (every problem named), 2 usage or DIR unreadable. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "evidence.h"
#include "json.h"
#include "json_parse.h"

#define EVV_MAX 64

typedef struct evv_entry {
    char name[256];
    char want[65];            /* listed digest */
    char got[65];             /* computed ("" when the file could not be read) */
    bool present, ok;
} evv_entry;

typedef struct evv_problem {
    char path[256];
    char what[48];            /* "digest mismatch", "missing", "not listed", ... */
    char expected[80], found[80];
    char detail[300];
} evv_problem;

typedef struct evv {
    const char *dir;
    evv_entry files[EVV_MAX]; unsigned n_files;
    evv_problem probs[EVV_MAX]; unsigned n_probs;
    jv *contract;
} evv;

static void problem(evv *v, const char *path, const char *what, const char *exp, const char *found, const char *detail) {
    if (v->n_probs >= EVV_MAX) return;
    evv_problem *p = &v->probs[v->n_probs++];
    snprintf(p->path, sizeof p->path, "%s", path ? path : "");
    snprintf(p->what, sizeof p->what, "%s", what);
    snprintf(p->expected, sizeof p->expected, "%s", exp ? exp : "");
    snprintf(p->found, sizeof p->found, "%s", found ? found : "");
    snprintf(p->detail, sizeof p->detail, "%s", detail ? detail : "");
}

static void join(char *buf, size_t n, const char *dir, const char *name) {
    if (snprintf(buf, n, "%s/%s", dir, name) >= (int)n) buf[0] = 0;
}

static bool plain_name(const char *s) {
    if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0) return false;
    for (const char *p = s; *p; p++)
        if (*p == '/' || (unsigned char)*p < 0x20 || *p == '\\') return false;
    return true;
}

static evv_entry *find(evv *v, const char *name) {
    for (unsigned i = 0; i < v->n_files; i++)
        if (strcmp(v->files[i].name, name) == 0) return &v->files[i];
    return NULL;
}

/* SHA256SUMS: "<64 hex>  NAME\n" lines (also " *NAME", sha256sum's binary mark). */
static void read_sums(evv *v) {
    char path[4096];
    join(path, sizeof path, v->dir, "SHA256SUMS");
    FILE *f = fopen(path, "r");
    if (!f) {
        problem(v, "SHA256SUMS", "missing", NULL, NULL, "the record has no SHA256SUMS: nothing can be verified");
        return;
    }
    char line[1024];
    unsigned ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t n = strlen(line);
        char where[64];
        snprintf(where, sizeof where, "line %u", ln);
        if (n == 0 || line[n - 1] != '\n') {
            problem(v, "SHA256SUMS", "malformed", NULL, NULL, n + 1 >= sizeof line ? "a line too long" : "the last line has no newline");
            if (n + 1 >= sizeof line) break;
            continue;
        }
        line[--n] = 0;
        bool hex = n > 66;
        for (int i = 0; hex && i < 64; i++) hex = (line[i] >= '0' && line[i] <= '9') || (line[i] >= 'a' && line[i] <= 'f');
        if (!hex || line[64] != ' ' || (line[65] != ' ' && line[65] != '*') || !plain_name(line + 66)) {
            char d[160];
            snprintf(d, sizeof d, "%s is not \"<64 hex digits>  NAME\" with a plain file name", where);
            problem(v, "SHA256SUMS", "malformed", NULL, NULL, d);
            continue;
        }
        const char *name = line + 66;
        if (strlen(name) >= sizeof v->files[0].name || strcmp(name, "SHA256SUMS") == 0 || find(v, name)) {
            char d[300];
            snprintf(d, sizeof d, "%s lists %.100s %s", where, name, find(v, name) ? "twice" : "(not a record file)");
            problem(v, "SHA256SUMS", "malformed", NULL, NULL, d);
            continue;
        }
        if (v->n_files >= EVV_MAX) {
            problem(v, "SHA256SUMS", "malformed", NULL, NULL, "too many entries");
            break;
        }
        evv_entry *e = &v->files[v->n_files++];
        memset(e, 0, sizeof *e);
        memcpy(e->name, name, strlen(name) + 1); /* shorter than e->name: checked above */
        memcpy(e->want, line, 64);
        e->want[64] = 0;
    }
    if (ferror(f)) problem(v, "SHA256SUMS", "unreadable", NULL, NULL, strerror(errno));
    fclose(f);
    if (ln == 0) problem(v, "SHA256SUMS", "malformed", NULL, NULL, "empty");
}

static void check_files(evv *v) {
    for (unsigned i = 0; i < v->n_files; i++) {
        evv_entry *e = &v->files[i];
        char path[4096];
        join(path, sizeof path, v->dir, e->name);
        struct stat st;
        if (lstat(path, &st) != 0) {
            problem(v, e->name, "missing", e->want, NULL, "listed in SHA256SUMS but not in the folder");
            continue;
        }
        e->present = true;
        if (!S_ISREG(st.st_mode)) {
            problem(v, e->name, "not a regular file", e->want, NULL, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a file");
            continue;
        }
        if (cli_evidence_file_sha(path, e->got, NULL) != 0) {
            e->got[0] = 0;
            problem(v, e->name, "unreadable", e->want, NULL, strerror(errno));
            continue;
        }
        e->ok = strcmp(e->got, e->want) == 0;
        if (!e->ok) problem(v, e->name, "digest mismatch", e->want, e->got, "the file is not the one recorded");
    }
}

static int check_unlisted(evv *v) {
    DIR *d = opendir(v->dir);
    if (!d) return -1;
    struct dirent *de;
    char (*names)[256] = calloc(EVV_MAX, sizeof *names);
    unsigned n = 0;
    while ((de = readdir(d)) != NULL && names) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || strcmp(de->d_name, "SHA256SUMS") == 0) continue;
        if (find(v, de->d_name) || n >= EVV_MAX) continue;
        snprintf(names[n++], sizeof names[0], "%s", de->d_name);
    }
    closedir(d);
    /* name order, so the report does not depend on the directory's order */
    for (unsigned i = 1; i < n; i++)
        for (unsigned k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
            char t[256];
            memcpy(t, names[k], sizeof t);
            memcpy(names[k], names[k - 1], sizeof t);
            memcpy(names[k - 1], t, sizeof t);
        }
    for (unsigned i = 0; i < n; i++) problem(v, names[i], "not listed", NULL, NULL, "in the folder but not in SHA256SUMS");
    free(names);
    return 0;
}

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            char *nb = cap < (64u << 20) ? realloc(buf, cap * 2) : NULL;
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

/* The contract's digest of a copy against the copy's digest. */
static void check_ref(evv *v, const char *section) {
    const jv *o = jv_get(v->contract, section);
    char d[200];
    const char *copy = o ? jv_str(o, "copy", NULL) : NULL, *sha = o ? jv_str(o, "sha256", NULL) : NULL;
    if (!copy || !sha) {
        snprintf(d, sizeof d, "no %s.copy / %s.sha256", section, section);
        problem(v, "contract.json", "incomplete", NULL, NULL, d);
        return;
    }
    evv_entry *e = find(v, copy);
    if (!e) {
        snprintf(d, sizeof d, "%s.copy names %.100s, which SHA256SUMS does not list", section, copy);
        problem(v, copy, "missing", sha, NULL, d);
        return;
    }
    if (!e->got[0]) return; /* already reported */
    if (strcmp(sha, e->got) != 0) {
        snprintf(d, sizeof d, "contract.json %s.sha256 is not the digest of %.100s", section, copy);
        problem(v, copy, "digest mismatch", sha, e->got, d);
    }
}

static void check_contract(evv *v) {
    evv_entry *e = find(v, "contract.json");
    if (!e) {
        problem(v, "contract.json", "missing", NULL, NULL, "not listed in SHA256SUMS");
        return;
    }
    if (!e->present) return;
    char path[4096];
    join(path, sizeof path, v->dir, "contract.json");
    size_t len = 0;
    char *text = read_all(path, &len);
    if (!text) {
        problem(v, "contract.json", "unreadable", NULL, NULL, strerror(errno));
        return;
    }
    char msg[160];
    v->contract = jv_parse(text, len, msg, sizeof msg);
    free(text);
    if (!v->contract || v->contract->type != JV_OBJ) {
        char d[220];
        snprintf(d, sizeof d, "not a JSON object: %s", v->contract ? "another value" : msg);
        problem(v, "contract.json", "invalid", NULL, NULL, d);
        jv_free(v->contract);
        v->contract = NULL;
        return;
    }
    static const char *const keys[] = {"experiment_id", "verb", "one_primary_change", "structural_checks", "measurements",
                                       "known_limitations", "decision"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (!jv_get(v->contract, keys[k])) {
            char d[80];
            snprintf(d, sizeof d, "no \"%s\"", keys[k]);
            problem(v, "contract.json", "incomplete", NULL, NULL, d);
        }
    check_ref(v, "baseline");
    check_ref(v, "candidate");
    check_ref(v, "rollback_artifact");
}

/* ---------------------------------------------------------------- output */

/* A jv value as one line of JSON text. */
static void jv_line(FILE *f, const jv *x) {
    switch (x->type) {
    case JV_NULL: fputs("null", f); break;
    case JV_BOOL: fputs(x->num ? "true" : "false", f); break;
    case JV_NUM:
        if (x->num == floor(x->num) && fabs(x->num) < 9007199254740992.0) fprintf(f, "%.0f", x->num);
        else fprintf(f, "%.9g", x->num);
        break;
    case JV_STR: json_write_quoted(f, x->str, strlen(x->str)); break;
    case JV_ARR:
    case JV_OBJ:
        fputc(x->type == JV_ARR ? '[' : '{', f);
        for (const jv *c = x->child; c; c = c->next) {
            if (c != x->child) fputs(", ", f);
            if (x->type == JV_OBJ) {
                json_write_quoted(f, c->key, strlen(c->key));
                fputs(": ", f);
            }
            jv_line(f, c);
        }
        fputc(x->type == JV_ARR ? ']' : '}', f);
        break;
    }
}

/* A jv value into the JSON writer. */
static void jv_emit(json_w *j, const jv *x) {
    switch (x->type) {
    case JV_NULL: json_null(j); break;
    case JV_BOOL: json_bool(j, x->num != 0); break;
    case JV_NUM:
        if (x->num == floor(x->num) && fabs(x->num) < 9007199254740992.0) json_int(j, (int64_t)x->num);
        else json_double(j, x->num);
        break;
    case JV_STR: json_str(j, x->str); break;
    case JV_ARR:
    case JV_OBJ:
        if (x->type == JV_ARR) json_arr_open(j);
        else json_obj_open(j);
        for (const jv *c = x->child; c; c = c->next) {
            if (x->type == JV_OBJ) json_key(j, c->key);
            jv_emit(j, c);
        }
        if (x->type == JV_ARR) json_arr_close(j);
        else json_obj_close(j);
        break;
    }
}

static void ba_line(const jv *ms, const char *key, const char *label) {
    const jv *x = jv_get(ms, key);
    if (!x) return;
    const jv *b = jv_get(x, "before"), *a = jv_get(x, "after");
    printf("    %-24s ", label);
    if (b) jv_line(stdout, b); else fputs("?", stdout);
    fputs(" -> ", stdout);
    if (a) jv_line(stdout, a); else fputs("?", stdout);
    putchar('\n');
}

static void timing_line(const evv *v) {
    char path[4096];
    join(path, sizeof path, v->dir, "measurements_timing.json");
    size_t len = 0;
    char *text = read_all(path, &len), msg[100];
    jv *t = text ? jv_parse(text, len, msg, sizeof msg) : NULL;
    free(text);
    if (!t) return;
    const char *side[2] = {"before", "after"};
    printf("    %-24s ", "latency median / p95 ms");
    for (int s = 0; s < 2; s++) {
        const jv *x = jv_get(t, side[s]);
        if (x && x->type == JV_OBJ) printf("%s%.4g / %.4g", s ? " -> " : "", jv_num(x, "median_ms", NAN), jv_num(x, "p95_ms", NAN));
        else printf("%sn/a", s ? " -> " : "");
    }
    printf(" (measurements_timing.json, %g runs)\n", jv_num(t, "n_runs", NAN));
    jv_free(t);
}

static void print_record(const evv *v) {
    const jv *c = v->contract;
    printf("  experiment %s: verb %s, status %s, decision %s\n", jv_str(c, "experiment_id", "?"), jv_str(c, "verb", "?"),
           jv_str(c, "status", "?"), jv_str(c, "decision", "?"));
    const char *sec[2] = {"baseline", "candidate"};
    for (int s = 0; s < 2; s++) {
        const jv *o = jv_get(c, sec[s]);
        printf("  %-9s %s sha256 %s (from ", sec[s], o ? jv_str(o, "copy", "?") : "?", o ? jv_str(o, "sha256", "?") : "?");
        cli_write_path(stdout, o ? jv_str(o, "path", "?") : "?");
        printf(")\n");
    }
    const jv *x = jv_get(c, "one_primary_change");
    if (x) {
        /* one line, cut at 400 characters (a calibration list can be long) */
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (m) {
            jv_line(m, x);
            fclose(m);
            if (len > 400) printf("  change: %.400s ... (%zu characters: contract.json or --json has it all)\n", buf, len);
            else printf("  change: %s\n", buf);
        }
        free(buf);
    }
    x = jv_get(c, "structural_checks");
    printf("  structural checks: %zu\n", x && x->type == JV_ARR ? x->n : (size_t)0);
    for (const jv *k = x && x->type == JV_ARR ? x->child : NULL; k; k = k->next) {
        fputs("    ", stdout);
        jv_line(stdout, k);
        putchar('\n');
    }
    const jv *ms = jv_get(c, "measurements");
    if (ms && ms->type == JV_OBJ) {
        printf("  measurements (before -> after):\n");
        ba_line(ms, "n_params", "n_params");
        ba_line(ms, "file_size_bytes", "file size bytes");
        ba_line(ms, "planned_arena_bytes", "planned arena bytes");
        ba_line(ms, "planned_peak_live_bytes", "planned peak live bytes");
        timing_line(v);
        const jv *ev = jv_get(ms, "evaluation_inputs");
        if (ev && ev->type == JV_OBJ) {
            const char *p = jv_str(ev, "path", NULL);
            printf("    output error of the candidate against the baseline, fp32, on %g input set(s) (%s%s%s):\n",
                   jv_num(ev, "n_cases", NAN), jv_str(ev, "source", "?"), p ? " " : "", p ? p : "");
        } else {
            printf("    output error: not measured (see the limitations)\n");
        }
        const jv *oe = jv_get(ms, "output_error");
        for (const jv *o = oe && oe->type == JV_ARR ? oe->child : NULL; o; o = o->next) {
            printf("      output %g \"%s\": max abs %.3g (max |ref| %.3g, max rel ", jv_num(o, "index", NAN),
                   jv_str(o, "name", ""), jv_num(o, "max_abs", NAN), jv_num(o, "ref_max_abs", NAN));
            const jv *r = jv_get(o, "max_rel");
            if (r && r->type == JV_NUM) printf("%.3g", r->num); else printf("n/a");
            printf("), rms %.3g", jv_num(o, "rms", NAN));
            const jv *am = jv_get(o, "argmax");
            if (am && am->type == JV_OBJ) printf(", argmax %g/%g rows agree", jv_num(am, "n_equal", NAN), jv_num(am, "n_rows", NAN));
            putchar('\n');
        }
    }
    x = jv_get(c, "known_limitations");
    if (x && x->type == JV_ARR && x->n) {
        printf("  known limitations:\n");
        for (const jv *k = x->child; k; k = k->next) printf("    - %s\n", k->type == JV_STR ? k->str : "?");
    }
}

static int print_text(const evv *v) {
    if (v->n_probs == 0) {
        printf("evidence ");
        cli_write_path(stdout, v->dir);
        printf(": VERIFIED (%u files match SHA256SUMS, the contract's digests match the copies)\n", v->n_files);
        print_record(v);
    } else {
        printf("evidence ");
        cli_write_path(stdout, v->dir);
        printf(": NOT VERIFIED, %u problem%s:\n", v->n_probs, v->n_probs == 1 ? "" : "s");
        for (unsigned i = 0; i < v->n_probs; i++) {
            const evv_problem *p = &v->probs[i];
            printf("  %s: %s", p->path, p->what);
            if (p->expected[0] || p->found[0])
                printf(" (expected %s, found %s)", p->expected[0] ? p->expected : "-", p->found[0] ? p->found : "-");
            if (p->detail[0]) printf(": %s", p->detail);
            putchar('\n');
        }
    }
    return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
}

static int print_json(const evv *v) {
    json_w j;
    json_init(&j, stdout);
    json_obj_open(&j);
    json_key_str(&j, "verb", "evidence");
    json_key(&j, "model");
    json_null(&j); /* a record, not a model: "dir" */
    json_key_bool(&j, "ok", v->n_probs == 0);
    json_key_str(&j, "dir", v->dir);
    json_key_uint(&j, "n_files", v->n_files);
    json_key_uint(&j, "n_problems", v->n_probs);
    json_key(&j, "problems");
    json_arr_open(&j);
    for (unsigned i = 0; i < v->n_probs; i++) {
        const evv_problem *p = &v->probs[i];
        json_obj_open_flat(&j);
        json_key_str(&j, "path", p->path);
        json_key_str(&j, "problem", p->what);
        json_key_str(&j, "expected", p->expected[0] ? p->expected : NULL);
        json_key_str(&j, "found", p->found[0] ? p->found : NULL);
        json_key_str(&j, "detail", p->detail);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_key(&j, "record");
    if (v->n_probs == 0 && v->contract) jv_emit(&j, v->contract);
    else json_null(&j); /* never print an unverified record as if it were one */
    json_obj_close(&j);
    return json_finish(&j);
}

int cmd_evidence(const cli_verb *vb, int argc, char **argv) {
    bool as_json = false;
    const cli_flag flags[] = {
        {"--json", NULL, &as_json, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, 0},
    };
    const char *pos[1];
    int n_pos = 0;
    int rc = cli_parse(vb, argc, argv, flags, pos, 1, &n_pos);
    if (rc >= 0) return rc;
    if (n_pos != 1) return cli_usage_error(vb, "expected one DIR");
    struct stat st;
    if (stat(pos[0], &st) != 0) return cli_error("%s: %s", pos[0], strerror(errno));
    if (!S_ISDIR(st.st_mode)) return cli_error("%s: not a folder (an evidence record is a folder)", pos[0]);
    evv *v = calloc(1, sizeof *v);
    if (!v) return cli_error("out of memory");
    v->dir = pos[0];
    read_sums(v);
    check_files(v);
    if (check_unlisted(v) != 0) {
        free(v);
        return cli_error("%s: cannot list the folder: %s", pos[0], strerror(errno));
    }
    if (find(v, "contract.json") || v->n_files) check_contract(v);
    int prc = as_json ? print_json(v) : print_text(v);
    bool ok = v->n_probs == 0;
    jv_free(v->contract);
    free(v);
    if (prc != 0) return cli_error("writing the report failed");
    return ok ? CLI_OK : CLI_FINDINGS;
}
