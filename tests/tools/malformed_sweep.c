/*
 * malformed_sweep: feed the .tflite reader truncated and mutated copies of real models and
 * check that every one is either rejected cleanly or accepted as a model that validates,
 * writes and round-trips (the properties are in lg_harness.h). Built with ASan + UBSan by
 * tests/e2e/test_malformed.sh, so an out-of-bounds read or undefined behaviour aborts the run.
 *
 *   malformed_sweep [options] MODEL...     sweep each model (truncations + mutations)
 *   malformed_sweep --as-is FILE...        check each file once, as it is
 *   malformed_sweep --emit DIR N MODEL...  write N variants of each model to DIR (no checks)
 *   malformed_sweep --nasty DIR            write the handcrafted hostile files to DIR
 *
 * Options:
 *   -m N        random mutations per model (default 2000)
 *   -t N        truncations per model (default 300): every offset in 0..64, the last 64
 *               bytes, the edges of some constant-data blocks, the rest spread evenly
 *   -s SEED     PRNG seed (default 1); variant K of a model is the same for the same seed
 *   -k K        run only variant K (to reproduce a failure)
 *   -i N        also read every N-th variant with one allocation failing (default 1; 0 = off)
 *   --cap B     allocation cap through the hook, bytes (default 1 GiB)
 *   --hang-ms M a read slower than M ms is reported as a hang (default 2000)
 *   --save DIR  write each failing variant to DIR (default: none)
 *
 * Variants are exact-size heap copies, so reading one byte past the end is an ASan report.
 * Mutations hit the flatbuffer structure 85% of the time (the bytes outside the constant
 * data found by reading the original), since flipping weights only exercises the happy path.
 *
 * --as-is expectations come from the file name: NAME.reject.tflite must be rejected,
 * NAME.limit.tflite rejected with LG_ERR_LIMIT, NAME.format.tflite with LG_ERR_FORMAT,
 * NAME.accept.tflite accepted; any other name only has to be consistent.
 *
 * Output: one line per model (or file); a FAIL line per broken property. Exit 0 when all
 * held, 1 when something broke, 3 on a hang (a read that never returned), 2 on usage errors.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "lg/info.h"
#include "lg/lg.h"
#include "lg_harness.h"

/* lg_info_compute (the data behind `litegpu info`) also runs on every accepted variant.
   Weak, so the sweep still links if it is ever built without info's object. */
#pragma weak lg_info_compute
#pragma weak lg_info_free

/* ---------------------------------------------------------------- small helpers */

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint64_t rnd_below(uint64_t *s, uint64_t n) { return n ? splitmix(s) % n : 0; }

static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static uint8_t *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "malformed_sweep: %s: %s\n", path, strerror(errno)); return NULL; }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 0) { fclose(f); return NULL; }
    size_t sz = (size_t)st.st_size;
    uint8_t *b = malloc(sz ? sz : 1);
    if (!b || fread(b, 1, sz, f) != sz) {
        fprintf(stderr, "malformed_sweep: %s: read failed\n", path);
        free(b); fclose(f); return NULL;
    }
    fclose(f);
    *n = sz;
    return b;
}

static int write_file(const char *path, const void *b, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) { fprintf(stderr, "malformed_sweep: %s: %s\n", path, strerror(errno)); return 1; }
    int bad = n && fwrite(b, 1, n, f) != n;
    bad |= fclose(f) != 0;
    if (bad) fprintf(stderr, "malformed_sweep: %s: write failed\n", path);
    return bad;
}

/* ---------------------------------------------------------------- the current variant
   (so that a sanitizer abort or a hang can say which variant it was and save it) */

static struct {
    const char *model;
    long index;
    const char *desc;
    const uint8_t *data;
    size_t size;
    const char *save_dir;
} cur;

static void save_current(const char *kind) {
    if (!cur.save_dir || !cur.model || !cur.data) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%s-v%ld.tflite", cur.save_dir, kind, cur.model, cur.index);
    mkdir(cur.save_dir, 0777);
    if (write_file(path, cur.data, cur.size) == 0) fprintf(stderr, "  saved %s\n", path);
}

static void on_death(void) {
    if (!cur.model) return;
    fprintf(stderr, "malformed_sweep: CRASH on %s variant %ld (%s), %zu bytes\n", cur.model,
            cur.index, cur.desc ? cur.desc : "", cur.size);
    save_current("crash");
}

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "malformed_sweep: HANG: a variant ran past the hard time limit\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(3);
    on_death(); /* not async-signal-safe, but we are about to exit anyway */
    _exit(3);
}

/* From the sanitizer runtime when linked with it (weak: absent in plain builds). */
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/* ---------------------------------------------------------------- constant-data map */

typedef struct span { size_t a, b; } span; /* [a, b) */

typedef struct fmap {
    span *holes;   /* structure: the complement of the constant data, sorted */
    size_t n_holes;
    size_t *cum;   /* cumulative lengths of holes */
    size_t total;  /* bytes of structure */
    span *data;    /* constant-data blocks, sorted */
    size_t n_data;
} fmap;

static int cmp_span(const void *x, const void *y) {
    const span *a = x, *b = y;
    return a->a < b->a ? -1 : a->a > b->a;
}

static void fmap_build(fmap *fm, const uint8_t *buf, size_t n) {
    memset(fm, 0, sizeof *fm);
    lg_model *m = NULL;
    lg_error err;
    if (lg_tflite_read_mem(buf, n, NULL, &m, &err) == LG_OK) {
        fm->data = calloc(m->n_buffers + 1, sizeof *fm->data);
        for (uint32_t i = 0; fm->data && i < m->n_buffers; i++) {
            const lg_buffer *b = &m->buffers[i];
            if (!b->data || !b->size) continue;
            if (b->data < buf || b->data + b->size > buf + n) continue;
            fm->data[fm->n_data].a = (size_t)(b->data - buf);
            fm->data[fm->n_data].b = fm->data[fm->n_data].a + b->size;
            fm->n_data++;
        }
        lg_model_free(m);
    }
    if (fm->n_data) qsort(fm->data, fm->n_data, sizeof *fm->data, cmp_span);
    fm->holes = calloc(fm->n_data + 1, sizeof *fm->holes);
    fm->cum = calloc(fm->n_data + 2, sizeof *fm->cum);
    size_t at = 0;
    for (size_t i = 0; i <= fm->n_data; i++) {
        size_t end = i < fm->n_data ? fm->data[i].a : n;
        if (end > at) {
            fm->holes[fm->n_holes].a = at;
            fm->holes[fm->n_holes].b = end;
            fm->total += end - at;
            fm->cum[++fm->n_holes] = fm->total;
        }
        if (i < fm->n_data && fm->data[i].b > at) at = fm->data[i].b;
    }
}

static void fmap_free(fmap *fm) {
    free(fm->holes); free(fm->cum); free(fm->data);
}

/* A position to mutate: in the structure 85% of the time. */
static size_t pick_pos(const fmap *fm, size_t n, uint64_t *s) {
    if (fm->total && rnd_below(s, 100) < 85) {
        size_t k = (size_t)rnd_below(s, fm->total);
        size_t lo = 0, hi = fm->n_holes; /* find hole i with cum[i] <= k < cum[i+1] */
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (fm->cum[mid] <= k) lo = mid; else hi = mid;
        }
        return fm->holes[lo].a + (k - fm->cum[lo]);
    }
    return (size_t)rnd_below(s, n);
}

/* ---------------------------------------------------------------- variants */

typedef struct sweep_cfg {
    long n_mut, n_trunc;
    uint64_t seed;
    long only;          /* -1 = all */
    long inject_every;
    size_t cap;
    double hang_ms;
    const char *save_dir;
} sweep_cfg;

/* The truncation offsets for a file of n bytes (sorted, unique, < n). */
static size_t trunc_offsets(const fmap *fm, size_t n, long want, size_t *out) {
    size_t k = 0;
    if (n == 0 || want <= 0) return 0;
    for (size_t i = 0; i <= 64 && i < n && (long)k < want; i++) out[k++] = i;
    for (size_t i = n > 64 ? n - 64 : 0; i < n && (long)k < want; i++) out[k++] = i;
    /* edges of up to 16 constant-data blocks: the length prefix and the first/last bytes */
    size_t step = fm->n_data > 16 ? fm->n_data / 16 : 1;
    for (size_t i = 0; i < fm->n_data && (long)k + 4 <= want; i += step) {
        size_t a = fm->data[i].a, b = fm->data[i].b;
        if (a >= 4) out[k++] = a - 4;
        out[k++] = a;
        out[k++] = a + 1 < n ? a + 1 : a;
        out[k++] = b - 1;
    }
    long rest = want - (long)k;
    for (long i = 0; i < rest; i++) {
        size_t off = 65 + (size_t)((double)(n > 129 ? n - 129 : 0) * (double)(i + 1) / (double)(rest + 1));
        out[k++] = off < n ? off : n - 1;
    }
    /* sort + unique */
    for (size_t i = 1; i < k; i++) {
        size_t v = out[i], j = i;
        while (j > 0 && out[j - 1] > v) { out[j] = out[j - 1]; j--; }
        out[j] = v;
    }
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (out[i] < n && (u == 0 || out[u - 1] != out[i])) out[u++] = out[i];
    return u;
}

static void put_le(uint8_t *b, size_t n, size_t at, uint64_t v, int bytes) {
    for (int i = 0; i < bytes && at + (size_t)i < n; i++) b[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_le(const uint8_t *b, size_t n, size_t at, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes && at + (size_t)i < n; i++) v |= (uint64_t)b[at + (size_t)i] << (8 * i);
    return v;
}

static size_t align_pos(size_t p, size_t a, size_t n, uint64_t *s) {
    if (rnd_below(s, 10) < 8) p &= ~(a - 1);
    if (n >= a && p > n - a) p = n - a;
    return p;
}

/* Apply one random mutation to b (n bytes), appending a description to desc. */
static void mutate_once(uint8_t *b, size_t n, const fmap *fm, uint64_t *s, char *desc, size_t dsz) {
    size_t dl = strlen(desc);
    char *d = desc + dl;
    size_t dn = dsz - dl;
    if (n == 0) return;
    size_t p = pick_pos(fm, n, s);
    unsigned kind = (unsigned)rnd_below(s, 100);
    if (kind < 30 && n >= 4) { /* 4-byte interesting value */
        p = align_pos(p, 4, n, s);
        const uint64_t vals[] = {0, 1, 2, 3, 4, 8, 16, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000,
                                 0x7fffffff, 0x80000000u, 0xffffffffu, 0xfffffffcu, n, n - 4,
                                 n - p, n - p - 4, (uint32_t)(0 - p), p, 0x40000000u,
                                 rnd_below(s, 1024), splitmix(s) & 0xffffffffu};
        uint64_t v = vals[rnd_below(s, sizeof vals / sizeof vals[0])] & 0xffffffffu;
        put_le(b, n, p, v, 4);
        snprintf(d, dn, "%sle32 0x%llx@%zu", dl ? "; " : "", (unsigned long long)v, p);
    } else if (kind < 40 && n >= 4) { /* current 32-bit value +- small */
        p = align_pos(p, 4, n, s);
        int64_t delta = (int64_t)rnd_below(s, 17) - 8;
        if (delta == 0) delta = 4;
        uint64_t v = (get_le(b, n, p, 4) + (uint64_t)delta) & 0xffffffffu;
        put_le(b, n, p, v, 4);
        snprintf(d, dn, "%sadd32 %+lld@%zu", dl ? "; " : "", (long long)delta, p);
    } else if (kind < 55 && n >= 2) { /* 2-byte value (vtable entries) */
        p = align_pos(p, 2, n, s);
        uint64_t c = get_le(b, n, p, 2);
        const uint64_t vals[] = {0, 1, 2, 3, 4, 5, 6, 8, 0x7fff, 0x8000, 0xffff, 0xfffe,
                                 c + 2, c - 2, c + 4, c - 4, rnd_below(s, 0x10000)};
        uint64_t v = vals[rnd_below(s, sizeof vals / sizeof vals[0])] & 0xffff;
        put_le(b, n, p, v, 2);
        snprintf(d, dn, "%sle16 0x%llx@%zu", dl ? "; " : "", (unsigned long long)v, p);
    } else if (kind < 62 && n >= 8) { /* 8-byte value (buffer offset/size fields) */
        p = align_pos(p, 8, n, s);
        const uint64_t vals[] = {0, 1, UINT64_MAX, 1ull << 63, n, n - 1, 1ull << 32,
                                 (uint64_t)INT64_MAX, splitmix(s)};
        uint64_t v = vals[rnd_below(s, sizeof vals / sizeof vals[0])];
        put_le(b, n, p, v, 8);
        snprintf(d, dn, "%sle64 0x%llx@%zu", dl ? "; " : "", (unsigned long long)v, p);
    } else if (kind < 72) { /* random byte */
        uint8_t v = (uint8_t)splitmix(s);
        b[p] = v;
        snprintf(d, dn, "%sbyte 0x%02x@%zu", dl ? "; " : "", v, p);
    } else if (kind < 82) { /* special byte */
        const uint8_t vals[] = {0x00, 0xff, 0x7f, 0x80};
        uint8_t v = vals[rnd_below(s, 4)];
        b[p] = v;
        snprintf(d, dn, "%sbyte 0x%02x@%zu", dl ? "; " : "", v, p);
    } else if (kind < 90 && n >= 8) { /* swap two 4-byte words: near (same table) or anywhere */
        p = align_pos(p, 4, n, s);
        size_t q = rnd_below(s, 2) ? pick_pos(fm, n, s)
                                   : (p + 4 * (1 + (size_t)rnd_below(s, 16))) % n;
        q = align_pos(q, 4, n, s);
        uint64_t a = get_le(b, n, p, 4), c = get_le(b, n, q, 4);
        put_le(b, n, p, c, 4);
        put_le(b, n, q, a, 4);
        snprintf(d, dn, "%sswap32 %zu<->%zu", dl ? "; " : "", p, q);
    } else if (kind < 96) { /* zero a run */
        size_t len = 1 + (size_t)rnd_below(s, rnd_below(s, 4) ? 64 : 1024);
        if (len > n - p) len = n - p;
        memset(b + p, 0, len);
        snprintf(d, dn, "%szero %zu@%zu", dl ? "; " : "", len, p);
    } else { /* copy a chunk from elsewhere in the file */
        size_t len = 4 + (size_t)rnd_below(s, 61);
        if (len > n) len = n;
        size_t from = (size_t)rnd_below(s, n - len + 1);
        if (len > n - p) len = n - p;
        memmove(b + p, b + from, len);
        snprintf(d, dn, "%scopy %zu@%zu->%zu", dl ? "; " : "", len, from, p);
    }
}

/* Make variant k of orig: a truncation (k < n_toff) or a stack of 1-4 mutations. Returns
   an exact-size heap block (size 0 gets a 1-byte allocation): a new one for truncations,
   which the caller frees, or for mutations `scratch` (n bytes, reused: a fresh 3 MB block per
   variant costs ASan more than the read itself). */
static uint8_t *make_variant(const uint8_t *orig, size_t n, const fmap *fm, const size_t *toff,
                             size_t n_toff, uint64_t seed, long k, uint8_t *scratch, size_t *out_n,
                             char *desc, size_t dsz) {
    desc[0] = 0;
    if ((size_t)k < n_toff) {
        size_t len = toff[k];
        uint8_t *b = malloc(len ? len : 1);
        if (b && len) memcpy(b, orig, len);
        *out_n = len;
        snprintf(desc, dsz, "truncated to %zu of %zu bytes", len, n);
        return b;
    }
    uint8_t *b = scratch;
    if (n) memcpy(b, orig, n);
    uint64_t s = seed * 0x2545f4914f6cdd1dull + (uint64_t)k;
    splitmix(&s);
    unsigned r = (unsigned)rnd_below(&s, 100);
    int times = r < 60 ? 1 : r < 85 ? 2 : 3 + (int)rnd_below(&s, 2);
    for (int i = 0; i < times; i++) mutate_once(b, n, fm, &s, desc, dsz);
    *out_n = n;
    return b;
}

/* ---------------------------------------------------------------- checks */

static int check_info(const lg_model *m, char *why, size_t why_size) {
    lg_info *info = NULL;
    lg_error err;
    lg_status st = lg_info_compute(m, NULL, 0, &info, &err);
    if (st != LG_OK) {
        snprintf(why, why_size, "lg_info_compute failed on an accepted model: %s (%s)",
                 lg_status_str(st), err.msg);
        return 1;
    }
    lg_info_free(info);
    return 0;
}

typedef struct stats {
    long variants, accepted, by_status[LG_STATUS_COUNT], injected_ok, failures, hangs;
    size_t max_peak;
    double slowest_ms;
    long slowest_k;
} stats;

static void set_alarm(double ms) {
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)(ms / 1000);
    it.it_value.tv_usec = (suseconds_t)((ms - (double)it.it_value.tv_sec * 1000) * 1000);
    setitimer(ITIMER_REAL, &it, NULL);
}

static void check_one(const char *model, long k, const char *desc, const uint8_t *b, size_t n,
                      const sweep_cfg *cfg, stats *st, lg_status *status_out) {
    cur.model = model; cur.index = k; cur.desc = desc; cur.data = b; cur.size = n;
    lgh_options o;
    memset(&o, 0, sizeof o);
    o.cap = cfg->cap;
    o.now_ms = now_ms;
    o.extra = (lg_info_compute && lg_info_free) ? check_info : NULL;
    if (cfg->inject_every > 0 && k % cfg->inject_every == 0)
        o.inject = (unsigned long)(0x9e3779b97f4a7c15ull * (uint64_t)(k + 1) >> 8) | 2;
    if (o.inject && (k & 2)) o.inject |= 1;
    lgh_result r;
    set_alarm(cfg->hang_ms * 10); /* hard limit: a read that never returns */
    double t0 = now_ms();
    int bad = lgh_check_input(b, n, &o, &r);
    double total = now_ms() - t0;
    set_alarm(0);
    st->variants++;
    if (r.st == LG_OK) st->accepted++;
    else if ((unsigned)r.st < LG_STATUS_COUNT) st->by_status[r.st]++;
    if (r.rejected_injected) st->injected_ok++;
    if (r.peak > st->max_peak) st->max_peak = r.peak;
    if (r.read_ms > st->slowest_ms) { st->slowest_ms = r.read_ms; st->slowest_k = k; }
    if (status_out) *status_out = r.st;
    if (!bad && r.read_ms > cfg->hang_ms) {
        snprintf(r.why, sizeof r.why, "HANG: one read took %.0f ms (limit %.0f ms)", r.read_ms,
                 cfg->hang_ms);
        bad = 1;
        st->hangs++;
    } else if (!bad && total > cfg->hang_ms * 4) {
        snprintf(r.why, sizeof r.why, "HANG: reading, writing and re-reading took %.0f ms", total);
        bad = 1;
        st->hangs++;
    }
    if (bad) {
        st->failures++;
        printf("FAIL %s variant %ld (%s): %s\n", model, k, desc, r.why);
        fflush(stdout);
        save_current("fail");
    }
    cur.model = NULL;
}

static void print_stats(const char *model, size_t size, long n_trunc, long n_mut, const stats *st,
                        double secs) {
    printf("%s (%zu bytes): %ld variants (%ld truncations, %ld mutations) in %.1f s: "
           "%ld accepted, %ld rejected (", model, size, st->variants, n_trunc, n_mut, secs,
           st->accepted, st->variants - st->accepted);
    int first = 1;
    for (int s = 1; s < LG_STATUS_COUNT; s++)
        if (st->by_status[s]) {
            printf("%s%s %ld", first ? "" : ", ", s == LG_ERR_FORMAT ? "FORMAT"
                   : s == LG_ERR_LIMIT ? "LIMIT" : s == LG_ERR_NOMEM ? "NOMEM" : lg_status_str(s),
                   st->by_status[s]);
            first = 0;
        }
    printf(")%s; %ld failing-allocation reads gave NOMEM; max IR %.2f MiB; slowest read %.1f ms "
           "(variant %ld); %ld failures\n", first ? "none" : "", st->injected_ok,
           (double)st->max_peak / (1 << 20), st->slowest_ms, st->slowest_k, st->failures);
    fflush(stdout);
}

static int sweep_model(const char *path, const sweep_cfg *cfg) {
    size_t n = 0;
    uint8_t *orig = read_file(path, &n);
    if (!orig) return 1;
    const char *name = base_name(path);
    fmap fm;
    fmap_build(&fm, orig, n);
    size_t *toff = malloc(((size_t)(cfg->n_trunc > 0 ? cfg->n_trunc : 0) + 1) * sizeof *toff);
    size_t n_toff = toff ? trunc_offsets(&fm, n, cfg->n_trunc, toff) : 0;
    long total = (long)n_toff + cfg->n_mut;
    stats st;
    memset(&st, 0, sizeof st);
    double t0 = now_ms();
    char desc[512];
    uint8_t *scratch = malloc(n ? n : 1);
    for (long k = 0; scratch && k < total; k++) {
        if (cfg->only >= 0 && k != cfg->only) continue;
        size_t vn = 0;
        uint8_t *b = make_variant(orig, n, &fm, toff, n_toff, cfg->seed, k, scratch, &vn, desc,
                                  sizeof desc);
        if (!b) { fprintf(stderr, "malformed_sweep: out of memory\n"); break; }
        check_one(name, k, desc, b, vn, cfg, &st, NULL);
        if (b != scratch) free(b);
    }
    free(scratch);
    if (cfg->only >= 0) printf("variant %ld: %s\n", cfg->only, desc);
    print_stats(name, n, (long)n_toff, cfg->n_mut, &st, (now_ms() - t0) / 1e3);
    free(toff);
    fmap_free(&fm);
    free(orig);
    return st.failures ? 1 : 0;
}

static int emit_model(const char *path, const char *dir, long count, const sweep_cfg *cfg) {
    size_t n = 0;
    uint8_t *orig = read_file(path, &n);
    if (!orig) return 1;
    fmap fm;
    fmap_build(&fm, orig, n);
    /* a quarter truncations (spread over the file), the rest mutations */
    long n_tr = count / 4;
    size_t *toff = malloc((size_t)(n_tr + 1) * sizeof *toff);
    size_t n_toff = 0;
    for (long i = 0; toff && i < n_tr && n; i++) toff[n_toff++] = (size_t)((double)n * (double)i / (double)n_tr);
    int rc = 0;
    char desc[512], out[4096], stem[256];
    snprintf(stem, sizeof stem, "%s", base_name(path));
    char *dot = strrchr(stem, '.');
    if (dot) *dot = 0;
    uint8_t *scratch = malloc(n ? n : 1);
    for (long k = 0; scratch && k < count && !rc; k++) {
        size_t vn = 0;
        long vk = k < (long)n_toff ? k : (long)n_toff + 100000 + k; /* mutations unlike the sweep's */
        uint8_t *b = make_variant(orig, n, &fm, toff, n_toff, cfg->seed, vk, scratch, &vn, desc,
                                  sizeof desc);
        if (!b) { rc = 1; break; }
        snprintf(out, sizeof out, "%s/%s-v%03ld.tflite", dir, stem, k);
        rc = write_file(out, b, vn);
        if (b != scratch) free(b);
    }
    if (!scratch) rc = 1;
    free(scratch);
    free(toff);
    fmap_free(&fm);
    free(orig);
    return rc;
}

/* ---------------------------------------------------------------- --as-is */

static int check_as_is(const char *path, const sweep_cfg *cfg) {
    size_t n = 0;
    uint8_t *b = read_file(path, &n);
    if (!b) return 1;
    const char *name = base_name(path);
    /* expectation from the name: NAME.<expect>.tflite */
    const char *expect = "any";
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", name);
    char *dot = strrchr(tmp, '.');
    if (dot) {
        *dot = 0;
        char *d2 = strrchr(tmp, '.');
        if (d2 && (!strcmp(d2 + 1, "reject") || !strcmp(d2 + 1, "limit") ||
                   !strcmp(d2 + 1, "format") || !strcmp(d2 + 1, "accept")))
            expect = d2 + 1;
    }
    /* an exact-size copy (read_file's buffer is exact already) */
    stats st;
    memset(&st, 0, sizeof st);
    lg_status status = LG_OK;
    check_one(name, 0, "as is", b, n, cfg, &st, &status);
    /* the message, for the log */
    lg_model *m = NULL;
    lg_error err;
    err.msg[0] = 0;
    lg_tflite_read_mem(b, n, NULL, &m, &err);
    lg_model_free(m);
    int ok = st.failures == 0;
    if (ok && !strcmp(expect, "reject") && status == LG_OK) ok = 0;
    if (ok && !strcmp(expect, "limit") && status != LG_ERR_LIMIT) ok = 0;
    if (ok && !strcmp(expect, "format") && status != LG_ERR_FORMAT) ok = 0;
    if (ok && !strcmp(expect, "accept") && status != LG_OK) ok = 0;
    printf("%s %s: expected %s, got %s%s%s\n", ok ? "PASS" : "FAIL", name, expect,
           status == LG_OK ? "accepted" : lg_status_str(status), status == LG_OK ? "" : ": ",
           status == LG_OK ? "" : err.msg);
    fflush(stdout);
    free(b);
    return ok ? 0 : 1;
}

/* ---------------------------------------------------------------- handcrafted files */

/* A minimal flatbuffer writer that lays objects out front to back (so every uoffset points
   forward) and lets the caller patch any byte afterwards. */
typedef struct fbb { uint8_t *b; size_t n, cap; } fbb;

static size_t fb_grow(fbb *f, size_t k) {
    if (f->n + k > f->cap) {
        size_t nc = f->cap ? f->cap : 4096;
        while (nc < f->n + k) nc *= 2;
        uint8_t *nb = realloc(f->b, nc);
        if (!nb) { fprintf(stderr, "malformed_sweep: out of memory\n"); exit(2); }
        memset(nb + f->cap, 0, nc - f->cap);
        f->b = nb;
        f->cap = nc;
    }
    size_t at = f->n;
    f->n += k;
    return at;
}
static void fb_pad(fbb *f, size_t a) { while (f->n % a) fb_grow(f, 1); }
static void p16(fbb *f, size_t at, uint32_t v) { put_le(f->b, f->n, at, v, 2); }
static void p32(fbb *f, size_t at, uint32_t v) { put_le(f->b, f->n, at, v, 4); }
static void p64(fbb *f, size_t at, uint64_t v) { put_le(f->b, f->n, at, v, 8); }
static void fb_link(fbb *f, size_t field, size_t target) { p32(f, field, (uint32_t)(target - field)); }

typedef struct fbtab { size_t pos, vt; size_t field[16]; } fbtab;

/* A table with fields 0..nf-1 of the given byte sizes (0 = absent); vtable first. */
static fbtab fb_table(fbb *f, int nf, const uint8_t *sizes) {
    fbtab t;
    memset(&t, 0, sizeof t);
    fb_pad(f, 2);
    t.vt = fb_grow(f, 4 + 2 * (size_t)nf);
    fb_pad(f, 8);
    t.pos = fb_grow(f, 4);
    p32(f, t.pos, (uint32_t)(t.pos - t.vt));
    for (int i = 0; i < nf; i++) {
        if (!sizes[i]) continue;
        fb_pad(f, sizes[i]);
        t.field[i] = fb_grow(f, sizes[i]);
        p16(f, t.vt + 4 + 2 * (size_t)i, (uint32_t)(t.field[i] - t.pos));
    }
    p16(f, t.vt, 4 + 2 * (uint32_t)nf);
    p16(f, t.vt + 2, (uint32_t)(f->n - t.pos));
    return t;
}

/* A vector of len elements of esz bytes, elements aligned to align; returns the length's
   position (elements follow it). */
static size_t fb_vec(fbb *f, uint32_t len, size_t esz, size_t align) {
    fb_pad(f, 4);
    while ((f->n + 4) % align) fb_grow(f, 4);
    size_t at = fb_grow(f, 4 + (size_t)len * esz);
    p32(f, at, len);
    return at;
}

static size_t fb_str(fbb *f, const char *s, size_t len, char fill) {
    fb_pad(f, 4);
    size_t at = fb_grow(f, 4 + len + 1);
    p32(f, at, (uint32_t)len);
    for (size_t i = 0; i < len; i++) f->b[at + 4 + i] = s ? (uint8_t)s[i] : (uint8_t)fill;
    return at;
}

/* The knobs of the tiny model: one subgraph, tensors x [1,4] (0) and y [1,4] (1), one ADD
   (or WHILE) op y = op(x, x), buffers: 0 (empty) and 1 (data or external offset/size). */
typedef struct knobs {
    uint32_t n_tensor_refs;   /* entries of the tensors vector; those past 2 share tensor 0 */
    uint32_t shape_len;       /* tensor 0's shape length (every dim 1); 0 = [1,4] */
    uint32_t name_len;        /* tensor 0's name length; 0 = "x" */
    uint32_t n_op_refs;       /* entries of the operators vector, all the same op */
    uint32_t op_inputs_len;   /* op 0's inputs (all tensor 0); 0 = [0, 0] */
    uint32_t custom_len;      /* op 0's custom_options bytes (0 = none) */
    uint32_t n_buffer_refs;   /* entries of the buffers vector; those past 2 share buffer 1 */
    uint32_t data_len;        /* buffer 1's data bytes */
    int external;             /* buffer 1 stores offset/size instead of data */
    int while_self;           /* op 0 is WHILE with cond = body = subgraph 0 */
    int misalign_shape;       /* tensor 0's shape vector at an odd address */
    int last_name_no_nul;     /* tensor 1's name is the last bytes of the file, without NUL */
} knobs;

typedef struct where {
    size_t model, oc0, sg, tensors_vec, t0, t0_shape, t0_name, t1, t1_name, ops_vec, op0,
        op0_inputs, buffers_vec, b1, b1_data, subgraphs_vec, custom;
    fbtab tm, toc, tsg, tt0, tt1, top, tb1;
} where;

static void build_model(fbb *f, const knobs *k, where *w) {
    memset(w, 0, sizeof *w);
    fb_grow(f, 8);
    memcpy(f->b + 4, "TFL3", 4);
    /* Model: version(0) operator_codes(1) subgraphs(2) description(3) buffers(4) */
    const uint8_t msz[] = {4, 4, 4, 0, 4};
    w->tm = fb_table(f, 5, msz);
    w->model = w->tm.pos;
    fb_link(f, 0, w->model);
    p32(f, w->tm.field[0], 3);
    /* operator_codes: [OperatorCode{deprecated_builtin_code(0), version(2), builtin_code(3)}] */
    size_t ocv = fb_vec(f, 1, 4, 4);
    fb_link(f, w->tm.field[1], ocv);
    int code = k->while_self ? LG_OP_WHILE : k->custom_len ? LG_OP_CUSTOM : LG_OP_ADD;
    const uint8_t ocsz[] = {1, (uint8_t)(k->custom_len ? 4 : 0), 4, 4};
    w->toc = fb_table(f, 4, ocsz);
    w->oc0 = w->toc.pos;
    fb_link(f, ocv + 4, w->oc0);
    f->b[w->toc.field[0]] = (uint8_t)(code < 127 ? code : 127);
    p32(f, w->toc.field[2], 1);
    p32(f, w->toc.field[3], (uint32_t)code);
    if (k->custom_len) fb_link(f, w->toc.field[1], fb_str(f, "MyCustomOp", 10, 0));
    /* subgraphs: [SubGraph{tensors(0) inputs(1) outputs(2) operators(3) name(4)}] */
    w->subgraphs_vec = fb_vec(f, 1, 4, 4);
    fb_link(f, w->tm.field[2], w->subgraphs_vec);
    const uint8_t sgsz[] = {4, 4, 4, 4, 4};
    w->tsg = fb_table(f, 5, sgsz);
    w->sg = w->tsg.pos;
    fb_link(f, w->subgraphs_vec + 4, w->sg);
    uint32_t ntr = k->n_tensor_refs > 2 ? k->n_tensor_refs : 2;
    w->tensors_vec = fb_vec(f, ntr, 4, 4);
    fb_link(f, w->tsg.field[0], w->tensors_vec);
    /* Tensor: shape(0) type(1) buffer(2) name(3) */
    const uint8_t tsz[] = {4, 1, 4, 4};
    w->tt0 = fb_table(f, 4, tsz);
    w->t0 = w->tt0.pos;
    w->tt1 = fb_table(f, 4, tsz);
    w->t1 = w->tt1.pos;
    for (uint32_t i = 0; i < ntr; i++) fb_link(f, w->tensors_vec + 4 + 4 * (size_t)i, i == 1 ? w->t1 : w->t0);
    uint32_t slen = k->shape_len ? k->shape_len : 2;
    if (k->misalign_shape) { fb_pad(f, 4); fb_grow(f, 1); w->t0_shape = fb_grow(f, 4 + 4 * (size_t)slen); p32(f, w->t0_shape, slen); }
    else w->t0_shape = fb_vec(f, slen, 4, 4);
    for (uint32_t i = 0; i < slen; i++) p32(f, w->t0_shape + 4 + 4 * (size_t)i, k->shape_len ? 1 : (i ? 4 : 1));
    fb_link(f, w->tt0.field[0], w->t0_shape);
    w->t0_name = k->name_len ? fb_str(f, NULL, k->name_len, 'n') : fb_str(f, "x", 1, 0);
    fb_link(f, w->tt0.field[3], w->t0_name);
    size_t s1 = fb_vec(f, 2, 4, 4);
    p32(f, s1 + 4, 1);
    p32(f, s1 + 8, 4);
    fb_link(f, w->tt1.field[0], s1);
    /* sg inputs [0], outputs [1] */
    size_t in = fb_vec(f, 1, 4, 4), out = fb_vec(f, 1, 4, 4);
    p32(f, out + 4, 1);
    fb_link(f, w->tsg.field[1], in);
    fb_link(f, w->tsg.field[2], out);
    /* operators: Operator{opcode_index(0) inputs(1) outputs(2) builtin_options_type(3)
       builtin_options(4) custom_options(5)} */
    uint32_t nor = k->n_op_refs ? k->n_op_refs : 1;
    w->ops_vec = fb_vec(f, nor, 4, 4);
    fb_link(f, w->tsg.field[3], w->ops_vec);
    const uint8_t osz[] = {4, 4, 4, (uint8_t)(k->while_self ? 1 : 0), (uint8_t)(k->while_self ? 4 : 0),
                           (uint8_t)(k->custom_len ? 4 : 0)};
    w->top = fb_table(f, 6, osz);
    w->op0 = w->top.pos;
    for (uint32_t i = 0; i < nor; i++) fb_link(f, w->ops_vec + 4 + 4 * (size_t)i, w->op0);
    uint32_t nin = k->op_inputs_len ? k->op_inputs_len : 2;
    w->op0_inputs = fb_vec(f, nin, 4, 4);
    fb_link(f, w->top.field[1], w->op0_inputs);
    size_t oo = fb_vec(f, 1, 4, 4);
    p32(f, oo + 4, 1);
    fb_link(f, w->top.field[2], oo);
    if (k->while_self) {
        f->b[w->top.field[3]] = LG_OPTS_WHILE_OPTIONS;
        const uint8_t wsz[] = {4, 4};
        fbtab tw = fb_table(f, 2, wsz); /* cond_subgraph_index = body_subgraph_index = 0 */
        fb_link(f, w->top.field[4], tw.pos);
    }
    if (k->custom_len) {
        w->custom = fb_vec(f, k->custom_len, 1, 4);
        fb_link(f, w->top.field[5], w->custom);
    }
    fb_link(f, w->tsg.field[4], fb_str(f, "main", 4, 0));
    /* buffers: [Buffer{}, Buffer{data(0) | offset(1) size(2)}] */
    uint32_t nbr = k->n_buffer_refs > 2 ? k->n_buffer_refs : 2;
    w->buffers_vec = fb_vec(f, nbr, 4, 4);
    fb_link(f, w->tm.field[4], w->buffers_vec);
    const uint8_t b0sz[] = {0};
    fbtab tb0 = fb_table(f, 1, b0sz);
    fb_link(f, w->buffers_vec + 4, tb0.pos);
    const uint8_t b1sz[] = {(uint8_t)(k->external ? 0 : 4), (uint8_t)(k->external ? 8 : 0),
                            (uint8_t)(k->external ? 8 : 0)};
    w->tb1 = fb_table(f, 3, b1sz);
    w->b1 = w->tb1.pos;
    for (uint32_t i = 1; i < nbr; i++) fb_link(f, w->buffers_vec + 4 + 4 * (size_t)i, w->b1);
    if (!k->external) {
        w->b1_data = fb_vec(f, k->data_len, 1, 16);
        for (uint32_t i = 0; i < k->data_len; i++) f->b[w->b1_data + 4 + i] = (uint8_t)i;
        fb_link(f, w->tb1.field[0], w->b1_data);
    }
    /* tensor 1's name last */
    w->t1_name = fb_str(f, "y", 1, 0);
    fb_link(f, w->tt1.field[3], w->t1_name);
    if (k->last_name_no_nul) f->n--; /* drop the terminator: the string ends at EOF */
}

typedef struct nasty {
    const char *name; /* file name, with its expectation */
    void (*make)(fbb *f);
} nasty;

#define MAKE(fn) static void fn(fbb *f)
static knobs base(void) { knobs k; memset(&k, 0, sizeof k); return k; }

MAKE(mk_baseline) { knobs k = base(); where w; build_model(f, &k, &w); }
MAKE(mk_empty) { (void)f; }
MAKE(mk_four) { size_t a = fb_grow(f, 4); p32(f, a, 8); }
MAKE(mk_ident_only) { fb_grow(f, 8); memcpy(f->b, "xxxxTFL3", 8); }
MAKE(mk_root_past_end) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, 0, 0x7ffffff0u); }
MAKE(mk_root_at_end) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, 0, (uint32_t)f->n - 2); }
MAKE(mk_vtable_self) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.model, 0); }
MAKE(mk_vtable_self_sg) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.sg, 0); }
MAKE(mk_vtable_at_zero) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.model, (uint32_t)w.model); }
MAKE(mk_vtable_past_end) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.model, (uint32_t)(w.model - f->n + 2)); }
MAKE(mk_vtable_huge) { knobs k = base(); where w; build_model(f, &k, &w); p16(f, w.tm.vt, 0xfffe); }
MAKE(mk_vtable_odd) { knobs k = base(); where w; build_model(f, &k, &w); p16(f, w.tm.vt, 5); }
MAKE(mk_vtable_field_past_table) { knobs k = base(); where w; build_model(f, &k, &w); p16(f, w.tm.vt + 4 + 2 * 2, 0xfff0); }
MAKE(mk_table_size_huge) { knobs k = base(); where w; build_model(f, &k, &w); p16(f, w.tm.vt + 2, 0xffff); }
MAKE(mk_vec_len_max) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.subgraphs_vec, 0xffffffffu); }
MAKE(mk_vec_len_wrap) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.tensors_vec, 0x40000000u); }
MAKE(mk_data_len_max) { knobs k = base(); k.data_len = 16; where w; build_model(f, &k, &w); p32(f, w.b1_data, 0xffffffffu); }
MAKE(mk_string_len_max) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.t0_name, 0xffffffffu); }
MAKE(mk_string_no_nul) { knobs k = base(); where w; build_model(f, &k, &w); f->b[w.t0_name + 4 + 1] = 'x'; }
MAKE(mk_string_no_nul_eof) { knobs k = base(); k.last_name_no_nul = 1; where w; build_model(f, &k, &w); }
MAKE(mk_uoffset_to_self) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.tm.field[2], 0); }
MAKE(mk_misaligned_shape) { knobs k = base(); k.misalign_shape = 1; where w; build_model(f, &k, &w); }
MAKE(mk_shared_shape) {
    knobs k = base(); k.n_tensor_refs = 1u << 18; k.shape_len = 1u << 18; where w; build_model(f, &k, &w);
}
MAKE(mk_shared_name) {
    knobs k = base(); k.n_tensor_refs = 1u << 18; k.name_len = 1u << 20; where w; build_model(f, &k, &w);
}
MAKE(mk_shared_op_inputs) {
    knobs k = base(); k.n_op_refs = 1u << 18; k.op_inputs_len = 1u << 18; where w; build_model(f, &k, &w);
}
MAKE(mk_shared_custom_options) {
    knobs k = base(); k.n_op_refs = 1u << 18; k.custom_len = 1u << 20; where w; build_model(f, &k, &w);
}
MAKE(mk_shared_buffer_data) {
    knobs k = base(); k.n_buffer_refs = 1u << 18; k.data_len = 1u << 20; where w; build_model(f, &k, &w);
}
/* Small versions (about 50 KB each, 80 MiB when every reference is expanded) */
MAKE(mk_shared_name_small) {
    knobs k = base(); k.n_tensor_refs = 2048; k.name_len = 40960; where w; build_model(f, &k, &w);
}
MAKE(mk_shared_custom_small) {
    knobs k = base(); k.n_op_refs = 2048; k.custom_len = 40960; where w; build_model(f, &k, &w);
}
MAKE(mk_shared_buffer_small) {
    knobs k = base(); k.n_buffer_refs = 2048; k.data_len = 40960; where w; build_model(f, &k, &w);
}
MAKE(mk_external_overflow) {
    knobs k = base(); k.external = 1; where w; build_model(f, &k, &w);
    p64(f, w.tb1.field[1], 0xfffffffffffffff0ull); p64(f, w.tb1.field[2], 0x20);
}
MAKE(mk_external_past_end) {
    knobs k = base(); k.external = 1; where w; build_model(f, &k, &w);
    p64(f, w.tb1.field[1], 16); p64(f, w.tb1.field[2], f->n);
}
MAKE(mk_tensor_buffer_oob) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.tt0.field[2], 1000); }
MAKE(mk_op_input_oob) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.op0_inputs + 8, 99); }
MAKE(mk_op_input_negative) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.op0_inputs + 4, (uint32_t)-7); }
MAKE(mk_opcode_index_oob) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.top.field[0], 5); }
MAKE(mk_builtin_code_huge) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.toc.field[3], 1000000); }
MAKE(mk_builtin_code_negative) {
    knobs k = base(); where w; build_model(f, &k, &w);
    p32(f, w.toc.field[3], (uint32_t)-5); f->b[w.toc.field[0]] = 0x80;
}
MAKE(mk_dtype_unknown) { knobs k = base(); where w; build_model(f, &k, &w); f->b[w.tt0.field[1]] = 127; }
MAKE(mk_shape_huge_dims) {
    knobs k = base(); k.shape_len = 4; where w; build_model(f, &k, &w);
    for (int i = 0; i < 4; i++) p32(f, w.t0_shape + 4 + 4 * (size_t)i, 0x7fffffff);
}
/* Names from the file end up in error messages: they must not add lines or escapes. */
MAKE(mk_name_newline) {
    knobs k = base(); k.name_len = 3; where w; build_model(f, &k, &w);
    f->b[w.t0_name + 5] = '\n';
    p32(f, w.t0_shape + 8, (uint32_t)-3);
}
MAKE(mk_name_escape) {
    knobs k = base(); k.name_len = 8; where w; build_model(f, &k, &w);
    memcpy(f->b + w.t0_name + 4, "\033[2J\rX\t", 7);
    p32(f, w.t0_shape + 8, (uint32_t)-3);
}
MAKE(mk_shape_negative_dim) { knobs k = base(); where w; build_model(f, &k, &w); p32(f, w.t0_shape + 8, (uint32_t)-3); }
MAKE(mk_while_self) { knobs k = base(); k.while_self = 1; where w; build_model(f, &k, &w); }
MAKE(mk_union_type_unknown) {
    knobs k = base(); k.while_self = 1; where w; build_model(f, &k, &w); f->b[w.top.field[3]] = 250;
}
MAKE(mk_union_type_mismatch) {
    knobs k = base(); k.while_self = 1; where w; build_model(f, &k, &w); f->b[w.top.field[3]] = 1; /* Conv2D */
}
MAKE(mk_no_subgraphs) { knobs k = base(); where w; build_model(f, &k, &w); p16(f, w.tm.vt + 4 + 2 * 2, 0); }
MAKE(mk_no_buffers) { knobs k = base(); where w; build_model(f, &k, &w); p16(f, w.tm.vt + 4 + 2 * 4, 0); }

static const nasty nasties[] = {
    {"baseline.accept.tflite", mk_baseline},
    {"empty.format.tflite", mk_empty},
    {"four_bytes.format.tflite", mk_four},
    {"ident_only_xxxxTFL3.format.tflite", mk_ident_only},
    {"root_offset_past_end.format.tflite", mk_root_past_end},
    {"root_offset_at_end.format.tflite", mk_root_at_end},
    {"vtable_self_model.format.tflite", mk_vtable_self},
    {"vtable_self_subgraph.format.tflite", mk_vtable_self_sg},
    {"vtable_at_file_start.format.tflite", mk_vtable_at_zero},
    {"vtable_past_end.format.tflite", mk_vtable_past_end},
    {"vtable_size_huge.format.tflite", mk_vtable_huge},
    {"vtable_size_odd.format.tflite", mk_vtable_odd},
    {"vtable_field_past_table.format.tflite", mk_vtable_field_past_table},
    {"table_size_huge.format.tflite", mk_table_size_huge},
    {"vector_len_ffffffff.format.tflite", mk_vec_len_max},
    {"vector_len_wraps_32bit.format.tflite", mk_vec_len_wrap},
    {"data_len_ffffffff.format.tflite", mk_data_len_max},
    {"string_len_ffffffff.format.tflite", mk_string_len_max},
    {"string_without_nul.format.tflite", mk_string_no_nul},
    {"string_without_nul_at_eof.format.tflite", mk_string_no_nul_eof},
    {"uoffset_to_itself.format.tflite", mk_uoffset_to_self},
    {"misaligned_shape_vector.tflite", mk_misaligned_shape},
    {"shared_shape_256k_x_256k.reject.tflite", mk_shared_shape},
    {"shared_name_256k_x_1MiB.reject.tflite", mk_shared_name},
    {"shared_op_inputs_256k_x_256k.reject.tflite", mk_shared_op_inputs},
    {"shared_custom_options_256k_x_1MiB.reject.tflite", mk_shared_custom_options},
    {"shared_buffer_data_256k_x_1MiB.reject.tflite", mk_shared_buffer_data},
    {"shared_name_2k_x_40KiB.reject.tflite", mk_shared_name_small},
    {"shared_custom_options_2k_x_40KiB.reject.tflite", mk_shared_custom_small},
    {"shared_buffer_data_2k_x_40KiB.reject.tflite", mk_shared_buffer_small},
    {"external_buffer_offset_overflow.format.tflite", mk_external_overflow},
    {"external_buffer_past_end.format.tflite", mk_external_past_end},
    {"tensor_buffer_out_of_range.format.tflite", mk_tensor_buffer_oob},
    {"op_input_out_of_range.format.tflite", mk_op_input_oob},
    {"op_input_negative.format.tflite", mk_op_input_negative},
    {"opcode_index_out_of_range.format.tflite", mk_opcode_index_oob},
    {"builtin_code_huge.tflite", mk_builtin_code_huge},
    {"builtin_code_negative.tflite", mk_builtin_code_negative},
    {"dtype_unknown.tflite", mk_dtype_unknown},
    {"shape_huge_dims.tflite", mk_shape_huge_dims},
    {"shape_negative_dim.tflite", mk_shape_negative_dim},
    {"name_with_newline_in_error.format.tflite", mk_name_newline},
    {"name_with_escape_in_error.format.tflite", mk_name_escape},
    {"while_body_is_itself.tflite", mk_while_self},
    {"union_type_unknown.tflite", mk_union_type_unknown},
    {"union_type_mismatch.tflite", mk_union_type_mismatch},
    {"no_subgraphs.tflite", mk_no_subgraphs},
    {"no_buffers.tflite", mk_no_buffers},
};

static int write_nasties(const char *dir) {
    mkdir(dir, 0777);
    int rc = 0;
    for (size_t i = 0; i < sizeof nasties / sizeof nasties[0]; i++) {
        fbb f = {0};
        nasties[i].make(&f);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, nasties[i].name);
        rc |= write_file(path, f.b, f.n);
        free(f.b);
    }
    return rc;
}

/* ---------------------------------------------------------------- main */

static void usage(void) {
    fprintf(stderr,
            "usage: malformed_sweep [-m N] [-t N] [-s SEED] [-k K] [-i N] [--cap BYTES] "
            "[--hang-ms MS] [--save DIR] MODEL...\n"
            "       malformed_sweep [--cap BYTES] [--save DIR] --as-is FILE...\n"
            "       malformed_sweep [-s SEED] --emit DIR N MODEL...\n"
            "       malformed_sweep --nasty DIR\n");
}

int main(int argc, char **argv) {
    sweep_cfg cfg = {2000, 300, 1, -1, 1, (size_t)1 << 30, 2000, NULL};
    const char *emit_dir = NULL, *nasty_dir = NULL;
    long emit_n = 0;
    int as_is = 0, argi = 1;
    for (; argi < argc && argv[argi][0] == '-'; argi++) {
        const char *a = argv[argi];
        int has = argi + 1 < argc;
        if (!strcmp(a, "-m") && has) cfg.n_mut = atol(argv[++argi]);
        else if (!strcmp(a, "-t") && has) cfg.n_trunc = atol(argv[++argi]);
        else if (!strcmp(a, "-s") && has) cfg.seed = strtoull(argv[++argi], NULL, 0);
        else if (!strcmp(a, "-k") && has) cfg.only = atol(argv[++argi]);
        else if (!strcmp(a, "-i") && has) cfg.inject_every = atol(argv[++argi]);
        else if (!strcmp(a, "--cap") && has) cfg.cap = (size_t)strtoull(argv[++argi], NULL, 0);
        else if (!strcmp(a, "--hang-ms") && has) cfg.hang_ms = atof(argv[++argi]);
        else if (!strcmp(a, "--save") && has) cfg.save_dir = argv[++argi];
        else if (!strcmp(a, "--as-is")) as_is = 1;
        else if (!strcmp(a, "--emit") && argi + 2 < argc) { emit_dir = argv[++argi]; emit_n = atol(argv[++argi]); }
        else if (!strcmp(a, "--nasty") && has) nasty_dir = argv[++argi];
        else if (!strcmp(a, "--")) { argi++; break; }
        else { usage(); return 2; }
    }
    if (nasty_dir) return write_nasties(nasty_dir) ? 1 : 0;
    if (argi >= argc) { usage(); return 2; }
    cur.save_dir = cfg.save_dir;
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_death);
    signal(SIGALRM, on_alarm);
    int rc = 0;
    for (int i = argi; i < argc; i++) {
        if (emit_dir) rc |= emit_model(argv[i], emit_dir, emit_n, &cfg);
        else if (as_is) rc |= check_as_is(argv[i], &cfg);
        else rc |= sweep_model(argv[i], &cfg);
    }
    return rc ? 1 : 0;
}
