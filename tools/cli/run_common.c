/* Shared by run, compare, bench and verify: model inputs from --input/--fill (the shape must
   match), and output folders made all at once, never written into without --force. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "cli.h"
#include "run_common.h"
#include "lg/npy.h"

void cli_inputs_free(cli_inputs *in) {
    for (uint32_t i = 0; i < in->n; i++) free(in->data[i]);
    free(in->data);
    memset(in, 0, sizeof *in);
}

/* "[1,224,224,3]" (the model's) or "(1, 3, 224, 224)" / "(150528,)" (numpy's spelling). */
static void shape_str(char *buf, size_t n, const int32_t *shape, uint32_t rank, bool numpy) {
    size_t k = (size_t)snprintf(buf, n, "%s", numpy ? "(" : "[");
    for (uint32_t i = 0; i < rank && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? (numpy ? ", " : ",") : "", shape[i]);
    if (k < n) snprintf(buf + k, n - k, "%s", numpy ? (rank == 1 ? ",)" : ")") : "]");
}

static bool dims_eq(const int32_t *a, const int32_t *b, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (a[i] != b[i]) return false;
    return true;
}

/* 0 when the file's shape is the input's (or a flat array with allow_flat); otherwise one
   line naming both shapes and, where the mismatch has a known cause, the fix. */
static int check_shape(const char *file, int idx, const lg_tensor_view *v, const lg_npy *a, bool allow_flat) {
    char ms[160], fs[160];
    shape_str(ms, sizeof ms, v->shape, v->rank, false);
    shape_str(fs, sizeof fs, a->shape, a->rank, true);
    const char *nm = v->name ? v->name : "";
    if (a->rank == v->rank && dims_eq(a->shape, v->shape, v->rank)) return 0;
    if (a->numel == v->numel) {
        if (a->rank == 1 && v->rank != 1) {
            if (allow_flat) return 0;
            return cli_error("%s: input %d \"%s\" is %s, the file holds %s: a flat array; reshape it to "
                             "the input's shape, or pass --allow-flat to take it in C order",
                             file, idx, nm, ms, fs);
        }
        const int32_t *s = v->shape, *f = a->shape;
        if (v->rank == 4 && a->rank == 4 && f[0] == s[0] && f[1] == s[3] && f[2] == s[1] && f[3] == s[2])
            return cli_error("%s: input %d \"%s\" is %s, the file holds %s: a NCHW array? transpose it "
                             "to NHWC (numpy: x.transpose(0, 2, 3, 1))", file, idx, nm, ms, fs);
        if (a->rank + 1 == v->rank && s[0] == 1 && dims_eq(f, s + 1, a->rank))
            return cli_error("%s: input %d \"%s\" is %s, the file holds %s: the batch dimension is "
                             "missing (numpy: x[None])", file, idx, nm, ms, fs);
        return cli_error("%s: input %d \"%s\" is %s, the file holds %s: the same number of elements "
                         "in another shape; reshape it", file, idx, nm, ms, fs);
    }
    if (a->rank == v->rank && v->rank >= 1 && dims_eq(a->shape + 1, v->shape + 1, v->rank - 1))
        return cli_error("%s: input %d \"%s\" is %s, the file holds %s: a batch of %d, the model's batch "
                         "is fixed at %d (give one batch at a time)", file, idx, nm, ms, fs, a->shape[0],
                         v->shape[0]);
    return cli_error("%s: input %d \"%s\" is %s (%lld elements), the file holds %s (%lld elements)", file,
                     idx, nm, ms, (long long)v->numel, fs, (long long)a->numel);
}

/* The input a --input key names: an input's name first, else an index. -1 if none. */
static int input_index(const lg_tensor_view *views, uint32_t n, const char *key, size_t kl) {
    for (uint32_t i = 0; i < n; i++) {
        lg_tensor_view v = views[i];
        if (v.name && strlen(v.name) == kl && strncmp(v.name, key, kl) == 0) return (int)i;
    }
    if (kl == 0 || kl > 9) return -1;
    long k = 0;
    for (size_t i = 0; i < kl; i++) {
        if (key[i] < '0' || key[i] > '9') return -1;
        k = k * 10 + (key[i] - '0');
    }
    return (uint32_t)k < n ? (int)k : -1;
}

/* One --input NAME=FILE.npy into in->data. */
static int input_from_file(const lg_tensor_view *views, uint32_t n, const char *spec, bool allow_flat, cli_inputs *in,
                           uint8_t *given) {
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1]) return cli_error("--input takes NAME=FILE.npy, not '%s'", spec);
    size_t kl = (size_t)(eq - spec);
    int idx = input_index(views, n, spec, kl);
    if (idx < 0) return cli_error("--input %.*s: the model has no input of that name or index", (int)kl, spec);
    if (given[idx]) return cli_error("--input %.*s: input %d is given twice", (int)kl, spec, idx);
    const char *file = eq + 1;
    lg_tensor_view v = views[idx];
    lg_npy a;
    lg_error err;
    if (lg_npy_read_file(file, &a, &err) != LG_OK) return cli_error("%s", err.msg);
    int rc = check_shape(file, idx, &v, &a, allow_flat);
    if (!rc && v.type == LG_FLOAT32) {
        float *f;
        if (lg_npy_to_f32(&a, &f, &err) != LG_OK) rc = cli_error("%s: %s", file, err.msg);
        else in->data[idx] = f;
    } else if (!rc && a.type == v.type) {
        in->data[idx] = a.data;
        a.data = NULL;
    } else if (!rc) {
        rc = cli_error("%s holds %s, input %d takes %s", file, lg_dtype_name(a.type), idx, lg_dtype_name(v.type));
    }
    lg_npy_free(&a);
    given[idx] = 1;
    return rc;
}

/* A fill for input i: FLOAT32 takes the fill's values; an INT8 / UINT8 input (a quantized
   model's) the fill mapped to its type's range, q = min(255, floor(256 * u)) with u the fill's
   value in [0, 1) (half, pattern; random:SEED's [-1, 1) taken as (f + 1) / 2), minus 128 for
   INT8: for UINT8 and half / pattern the bytes peers/litert_run.js gives LiteRT.js, so both
   runtimes see the same input. Other types must be given with --input. */
static int fill_input(const lg_tensor_view *v, uint32_t i, const char *fill, void **out) {
    if (v->type != LG_FLOAT32 && v->type != LG_UINT8 && v->type != LG_INT8)
        return cli_error("input %u \"%s\" is %s: give it with --input NAME=FILE.npy", i, v->name ? v->name : "",
                         lg_dtype_name(v->type));
    float *f = malloc(v->numel > 0 ? (size_t)v->numel * sizeof(float) : sizeof(float));
    if (!f) return cli_error("out of memory");
    lg_error err;
    if (lg_fill_f32(fill, f, v->numel, &err) != LG_OK) {
        free(f);
        return cli_error("%s", err.msg);
    }
    if (v->type == LG_FLOAT32) {
        *out = f;
        return 0;
    }
    uint8_t *q = malloc(v->numel > 0 ? (size_t)v->numel : 1);
    if (!q) {
        free(f);
        return cli_error("out of memory");
    }
    const bool signed_fill = strncmp(fill, "random:", 7) == 0;
    for (int64_t k = 0; k < v->numel; k++) {
        double u = signed_fill ? ((double)f[k] + 1.0) / 2.0 : (double)f[k];
        double b = floor(256.0 * u);
        int iv = b < 0 ? 0 : b > 255 ? 255 : (int)b;
        q[k] = (uint8_t)(v->type == LG_INT8 ? (uint8_t)(int8_t)(iv - 128) : iv);
    }
    free(f);
    *out = q;
    return 0;
}

int cli_inputs_make_views(const lg_tensor_view *views, uint32_t n, const char *const *specs, int n_specs,
                          const char *fill, bool allow_flat, cli_inputs *in) {
    memset(in, 0, sizeof *in);
    in->n = n;
    in->data = calloc(n ? n : 1, sizeof *in->data);
    uint8_t *given = calloc(n ? n : 1, 1);
    if (!in->data || !given) {
        free(given);
        cli_inputs_free(in);
        return cli_error("out of memory");
    }
    int rc = 0;
    for (int s = 0; s < n_specs && !rc; s++) rc = input_from_file(views, n, specs[s], allow_flat, in, given);
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (given[i]) continue;
        rc = fill_input(&views[i], i, fill ? fill : "half", &in->data[i]);
    }
    free(given);
    if (rc) cli_inputs_free(in);
    return rc;
}

int cli_inputs_make_ex(const lg_interp *it, const char *const *specs, int n_specs, const char *fill,
                       bool allow_flat, cli_inputs *in) {
    uint32_t n = lg_interp_n_inputs(it);
    lg_tensor_view *views = calloc(n ? n : 1, sizeof *views);
    if (!views) return cli_error("out of memory");
    for (uint32_t i = 0; i < n; i++) lg_interp_input(it, i, &views[i]);
    int rc = cli_inputs_make_views(views, n, specs, n_specs, fill, allow_flat, in);
    free(views);
    return rc;
}

int cli_inputs_make_chain(const lg_chain *c, const char *const *specs, int n_specs, const char *fill,
                          bool allow_flat, cli_inputs *in) {
    uint32_t n = lg_chain_n_inputs(c);
    lg_tensor_view *views = calloc(n ? n : 1, sizeof *views);
    if (!views) return cli_error("out of memory");
    for (uint32_t i = 0; i < n; i++) lg_chain_input(c, i, &views[i]);
    int rc = cli_inputs_make_views(views, n, specs, n_specs, fill, allow_flat, in);
    free(views);
    return rc;
}

int cli_inputs_make(const lg_interp *it, const char *const *specs, int n_specs, const char *fill,
                    cli_inputs *in) {
    return cli_inputs_make_ex(it, specs, n_specs, fill, false, in);
}

int cli_inputs_set(lg_interp *it, const cli_inputs *in) {
    for (uint32_t i = 0; i < in->n; i++) {
        lg_tensor_view v;
        lg_error err;
        lg_interp_input(it, i, &v);
        if (lg_interp_set_input(it, i, v.type, in->data[i], v.nbytes, &err) != LG_OK) return cli_error("%s", err.msg);
    }
    return 0;
}

int cli_inputs_set_chain(lg_chain *c, const cli_inputs *in) {
    for (uint32_t i = 0; i < in->n; i++) {
        lg_tensor_view v;
        lg_error err;
        lg_chain_input(c, i, &v);
        if (lg_chain_set_input(c, i, v.type, in->data[i], v.nbytes, &err) != LG_OK) return cli_error("%s", err.msg);
    }
    return 0;
}

/* ---------------------------------------------------------------- output folders */

/* "" when dir may be used: absent, or a folder (empty, or any with force). */
static int outdir_target_ok(const char *dir, bool force, bool *exists) {
    struct stat st;
    *exists = false;
    if (lstat(dir, &st) != 0) {
        if (errno == ENOENT) return 0;
        return cli_error("%s: cannot stat: %s", dir, strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        return cli_error("%s: is a symbolic link: litegpu neither replaces a link nor writes through it "
                         "(give the folder it points to)", dir);
    if (!S_ISDIR(st.st_mode)) return cli_error("%s: exists and is not a folder (%s)", dir, lg_file_kind(st.st_mode));
    *exists = true;
    DIR *d = opendir(dir);
    if (!d) return cli_error("%s: cannot open: %s", dir, strerror(errno));
    int empty = 1;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) { empty = 0; break; }
    closedir(d);
    if (!empty && !force) return cli_error("%s: exists and is not empty (use --force to write into it)", dir);
    return 0;
}

int cli_out_dir(const char *dir, bool force) {
    bool exists;
    if (outdir_target_ok(dir, force, &exists)) return CLI_ERROR;
    if (!exists && mkdir(dir, 0777) != 0) return cli_error("%s: cannot create: %s", dir, strerror(errno));
    return 0;
}

int cli_outdir_begin(cli_outdir *od, const char *dir, bool force) {
    memset(od, 0, sizeof *od);
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    if (n >= sizeof od->path - 32) return cli_error("%s: path too long", dir);
    memcpy(od->path, dir, n);
    od->path[n] = 0;
    od->force = force;
    bool exists;
    if (outdir_target_ok(od->path, force, &exists)) return CLI_ERROR;
    /* the temporary folder next to the target (same file system, so rename works) */
    const char *slash = strrchr(od->path, '/');
    const char *base = slash ? slash + 1 : od->path;
    int dl = slash ? (int)(slash - od->path) + 1 : 0;
    if (!strcmp(base, ".") || !strcmp(base, "..") || !strcmp(od->path, "/")) base = "out";
    int wl = snprintf(od->work, sizeof od->work, "%.*s.%s.litegpu-XXXXXX", dl, od->path, base);
    if (wl < 0 || (size_t)wl >= sizeof od->work) return cli_error("%s: path too long", od->path);
    if (!mkdtemp(od->work)) return cli_error("%s: cannot create a temporary folder next to it: %s", od->path, strerror(errno));
    od->active = true;
    mode_t um = umask(022);
    umask(um);
    if (chmod(od->work, 0777 & ~um) != 0) {
        int e = errno;
        cli_outdir_abort(od);
        return cli_error("%s: cannot chmod: %s", od->work, strerror(e));
    }
    return 0;
}

const char *cli_outdir_file(const cli_outdir *od, const char *name, char *buf, size_t n) {
    snprintf(buf, n, "%s/%s", od->work, name);
    return buf;
}

void cli_outdir_abort(cli_outdir *od) {
    if (!od->active) return;
    DIR *d = opendir(od->work);
    if (d) {
        struct dirent *e;
        char p[4096 + 256];
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(p, sizeof p, "%s/%s", od->work, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(od->work);
    od->active = false;
}

/* Into an existing folder: each file moved in, under the output rules. */
static int outdir_move_each(cli_outdir *od) {
    DIR *d = opendir(od->work);
    if (!d) return cli_error("%s: cannot open: %s", od->work, strerror(errno));
    struct dirent *e;
    char from[4096 + 256], to[4096 + 256];
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(from, sizeof from, "%s/%s", od->work, e->d_name);
        snprintf(to, sizeof to, "%s/%s", od->path, e->d_name);
        rc = cli_output_check(to, od->force);
        if (!rc && rename(from, to) != 0) rc = cli_error("%s: cannot move into place: %s", to, strerror(errno));
    }
    closedir(d);
    return rc;
}

int cli_outdir_commit(cli_outdir *od) {
    if (!od->active) return cli_error("%s: nothing to commit", od->path);
    bool exists;
    int rc = outdir_target_ok(od->path, od->force, &exists);
    if (!rc && !exists && rename(od->work, od->path) == 0) {
        od->active = false;
        return 0;
    }
    if (!rc && !exists) {
        /* created meanwhile by someone else: treat it as an existing folder */
        if (errno != EEXIST && errno != ENOTEMPTY)
            rc = cli_error("%s: cannot move the new folder into place: %s", od->path, strerror(errno));
        else rc = outdir_target_ok(od->path, od->force, &exists);
    }
    if (!rc) rc = outdir_move_each(od);
    cli_outdir_abort(od);
    return rc;
}

/* ---------------------------------------------------------------- calibration sets */

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The entries of dir (files ending .npy, or subfolders), sorted; *n of them. */
static int list_dir(const char *dir, bool folders, char ***out, uint32_t *n, uint32_t max) {
    DIR *d = opendir(dir);
    if (!d) return cli_error("%s: cannot open the calibration folder: %s", dir, strerror(errno));
    uint32_t cap = 16;
    char **v = malloc(cap * sizeof *v);
    *n = 0;
    int rc = v ? 0 : cli_error("out of memory");
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= sizeof p) continue;
        struct stat st;
        if (stat(p, &st) != 0) continue;
        size_t l = strlen(e->d_name);
        bool want = folders ? S_ISDIR(st.st_mode) : (S_ISREG(st.st_mode) && l > 4 && strcmp(e->d_name + l - 4, ".npy") == 0);
        if (!want) continue;
        if (*n == max) { rc = cli_error("%s: more than %u calibration sets", dir, max); break; }
        if (*n == cap) {
            char **nv = realloc(v, (cap *= 2) * sizeof *v);
            if (!nv) { rc = cli_error("out of memory"); break; }
            v = nv;
        }
        if (!(v[*n] = strdup(e->d_name))) { rc = cli_error("out of memory"); break; }
        (*n)++;
    }
    closedir(d);
    if (!rc && *n == 0) rc = cli_error("%s: no calibration %s in it", dir, folders ? "subfolders (one per input set)" : ".npy files");
    if (rc) {
        for (uint32_t i = 0; v && i < *n; i++) free(v[i]);
        free(v);
        return CLI_ERROR;
    }
    qsort(v, *n, sizeof *v, name_cmp);
    *out = v;
    return 0;
}

void cli_calib_free(cli_calib *c) {
    for (uint32_t i = 0; c->sets && i < c->n; i++) cli_inputs_free(&c->sets[i]);
    free(c->sets);
    free(c->ptrs);
    free(c->names);
    memset(c, 0, sizeof *c);
}

int cli_calib_load(const lg_tensor_view *views, uint32_t n_inputs, const char *dir, uint32_t max_sets,
                   cli_calib *c) {
    memset(c, 0, sizeof *c);
    for (uint32_t i = 0; i < n_inputs; i++)
        if (views[i].type != LG_FLOAT32) return cli_error("--calib: input %u \"%s\" is not float32", i, views[i].name ? views[i].name : "");
    char **ents = NULL;
    uint32_t n = 0;
    if (list_dir(dir, n_inputs > 1, &ents, &n, max_sets)) return CLI_ERROR;
    c->sets = calloc(n, sizeof *c->sets);
    c->ptrs = calloc(n, sizeof *c->ptrs);
    c->names = calloc(n, sizeof *c->names);
    int rc = c->sets && c->ptrs && c->names ? 0 : cli_error("out of memory");
    for (uint32_t k = 0; k < n && !rc; k++) {
        snprintf(c->names[k], sizeof c->names[k], "%s", ents[k]);
        char spec[64][4200];
        const char *specs[64];
        uint32_t ns = 0;
        if (n_inputs == 1) {
            snprintf(spec[0], sizeof spec[0], "0=%s/%s", dir, ents[k]);
            specs[ns++] = spec[0];
        } else {
            for (uint32_t i = 0; i < n_inputs && i < 64; i++) {
                char f[4096];
                snprintf(f, sizeof f, "%s/%s/%s.npy", dir, ents[k], views[i].name ? views[i].name : "");
                struct stat st;
                if (stat(f, &st) != 0) snprintf(f, sizeof f, "%s/%s/%u.npy", dir, ents[k], i);
                snprintf(spec[ns], sizeof spec[ns], "%u=%s", i, f);
                specs[ns] = spec[ns];
                ns++;
            }
        }
        rc = cli_inputs_make_views(views, n_inputs, specs, (int)ns, "half", false, &c->sets[k]);
        if (!rc) {
            c->ptrs[k] = (const float *const *)c->sets[k].data;
            c->n++;
        }
    }
    for (uint32_t i = 0; i < n; i++) free(ents[i]);
    free(ents);
    if (rc) cli_calib_free(c);
    return rc ? CLI_ERROR : 0;
}

/* ---------------------------------------------------------------- timing */

double cli_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void cli_time_stats(double *t, int n, double *median, double *p95, double *min) {
    if (n <= 0) { *median = *p95 = *min = 0; return; }
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    *median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
    int k = (int)(0.95 * n + 0.999999) - 1; /* nearest rank */
    if (k < 0) k = 0;
    if (k >= n) k = n - 1;
    *p95 = t[k];
    *min = t[0];
}

/* ---------------------------------------------------------------- input provenance */

const char *cli_input_source(const lg_tensor_view *v, uint32_t i, const char *const *specs, int n_specs,
                             const char *fill) {
    const char *src = fill;
    for (int s = 0; s < n_specs; s++) {
        const char *eq = strchr(specs[s], '=');
        if (!eq) continue;
        size_t kl = (size_t)(eq - specs[s]);
        char *end;
        long k = strtol(specs[s], &end, 10);
        if ((v->name && strlen(v->name) == kl && strncmp(v->name, specs[s], kl) == 0) || (end == eq && k == (long)i))
            src = eq + 1;
    }
    return src;
}
