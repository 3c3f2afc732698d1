/*
 * onnx_sweep: feed the ONNX reader truncated and mutated copies of real .onnx files and check
 * that each one is rejected cleanly or accepted as a model whose every pointer is readable and
 * that validates (the properties are in onnx_harness.h). Built with ASan + UBSan by
 * tests/e2e/test_onnx_read.sh, so a read past the end or undefined behaviour aborts the run.
 *
 *   onnx_sweep [-m N] [-t N] [-s SEED] [-i N] [-k K] [--save DIR] MODEL...
 *
 *   -m N     random mutations per model (default 2000)
 *   -t N     truncations per model (default 2000): every length 0..size-1 when the file has
 *            at most N bytes, else N lengths spread evenly (plus the first and last 64)
 *   -s SEED  PRNG seed (default 1); variant K is the same for the same seed
 *   -i N     read every N-th variant again with one allocation failing (default 3; 0 = off)
 *   -k K     run only variant K (truncations first, then mutations) to reproduce a failure
 *   --save D write each failing variant to D
 *
 * A mutation is 1-4 edits: a random byte, a byte set to 0x00/0x7f/0x80/0xff, a bit flip, a
 * byte inserted or deleted, or a varint-sized run of 0xff. Variants are exact-size heap copies
 * so that reading one byte past the end is an ASan report. A read slower than 2 s is a hang.
 * Output: one summary line per model, a FAIL line per broken property; exit 0 when all held.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "onnx_harness.h"

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

static uint8_t *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) { fclose(f); return NULL; }
    *n = (size_t)st.st_size;
    uint8_t *b = malloc(*n ? *n : 1);
    if (b && fread(b, 1, *n, f) != *n) { free(b); b = NULL; }
    fclose(f);
    return b;
}

/* Variant k of (buf, n) into a fresh exact-size buffer. */
static uint8_t *mutate(const uint8_t *buf, size_t n, uint64_t seed, unsigned long k, size_t *out_n) {
    uint64_t s = seed * 0x100000001b3ull ^ (uint64_t)k * 0x9e3779b97f4a7c15ull;
    size_t cap = n + 16;
    uint8_t *v = malloc(cap);
    memcpy(v, buf, n);
    size_t len = n;
    int edits = 1 + (int)(splitmix(&s) % 4);
    for (int e = 0; e < edits && len; e++) {
        size_t at = (size_t)(splitmix(&s) % len);
        static const uint8_t special[4] = {0x00, 0x7f, 0x80, 0xff};
        switch (splitmix(&s) % 6) {
        case 0: v[at] = (uint8_t)splitmix(&s); break;
        case 1: v[at] = special[splitmix(&s) % 4]; break;
        case 2: v[at] ^= (uint8_t)(1u << (splitmix(&s) % 8)); break;
        case 3: if (len < cap) { memmove(v + at + 1, v + at, len - at); v[at] = (uint8_t)splitmix(&s); len++; } break;
        case 4: memmove(v + at, v + at + 1, len - at - 1); len--; break;
        default: for (size_t i = at; i < len && i < at + 10; i++) v[i] = 0xff; break;
        }
    }
    uint8_t *exact = malloc(len ? len : 1);
    memcpy(exact, v, len);
    free(v);
    *out_n = len;
    return exact;
}

static const char *base(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int main(int argc, char **argv) {
    unsigned long muts = 2000, truncs = 2000, inject_every = 3;
    long only = -1;
    uint64_t seed = 1;
    const char *save = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (i + 1 >= argc) { fprintf(stderr, "onnx_sweep: %s needs a value\n", argv[i]); return 2; }
        if (!strcmp(argv[i], "-m")) muts = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-t")) truncs = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-s")) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-i")) inject_every = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-k")) only = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--save")) save = argv[++i];
        else { fprintf(stderr, "onnx_sweep: unknown option %s\n", argv[i]); return 2; }
    }
    if (i >= argc) { fprintf(stderr, "usage: onnx_sweep [options] MODEL...\n"); return 2; }
    int failed = 0;
    for (; i < argc; i++) {
        size_t n;
        uint8_t *buf = read_file(argv[i], &n);
        if (!buf) { printf("FAIL %s: cannot read: %s\n", argv[i], strerror(errno)); failed = 1; continue; }
        unsigned long nt = n <= truncs ? (unsigned long)n : truncs;
        unsigned long total = nt + muts, acc = 0, rej[LG_STATUS_COUNT] = {0}, inj = 0, bad = 0;
        double worst = 0;
        for (unsigned long k = 0; k < total; k++) {
            if (only >= 0 && (long)k != only) continue;
            size_t vn;
            uint8_t *v;
            if (k < nt) {
                /* every length when nt == n; else spread, with the first and last 64 */
                size_t cut = nt == n ? k : k < 64 ? k : k >= nt - 64 ? n - (nt - k) : (size_t)((double)k / nt * n);
                vn = cut;
                v = malloc(vn ? vn : 1);
                memcpy(v, buf, vn);
            } else {
                v = mutate(buf, n, seed, k, &vn);
            }
            oxh_result r;
            double t0 = now_ms();
            unsigned long inject = inject_every && k % inject_every == 0 ? (unsigned long)(k * 2654435761u) | 1 : 0;
            int broke = oxh_check(v, vn, (size_t)1 << 30, inject, &r);
            double dt = now_ms() - t0;
            if (dt > worst) worst = dt;
            if (dt > 2000) { broke = 1; snprintf(r.why, sizeof r.why, "read took %.0f ms (hang?)", dt); }
            if (broke) {
                bad++;
                printf("FAIL %s variant %lu (%zu bytes, %s): %s\n", base(argv[i]), k, vn,
                       k < nt ? "truncation" : "mutation", r.why);
                if (save) {
                    char p[4096];
                    snprintf(p, sizeof p, "%s/%s.%lu.onnx", save, base(argv[i]), k);
                    FILE *f = fopen(p, "wb");
                    if (f) { fwrite(v, 1, vn, f); fclose(f); printf("  saved %s\n", p); }
                }
            } else if (r.st == LG_OK) {
                acc++;
            } else {
                rej[r.st]++;
            }
            inj += (unsigned long)r.injected;
            free(v);
        }
        printf("%s (%zu bytes): %lu truncations + %lu mutations: %lu accepted, rejected %lu format, %lu limit, "
               "%lu unsupported, %lu nomem; %lu injected allocation failures; slowest read %.1f ms; %lu broken\n",
               base(argv[i]), n, nt, muts, acc, rej[LG_ERR_FORMAT], rej[LG_ERR_LIMIT], rej[LG_ERR_UNSUPPORTED],
               rej[LG_ERR_NOMEM], inj, worst, bad);
        if (bad) failed = 1;
        free(buf);
    }
    return failed;
}
