/* lg_fill_f32: the inputs the CLI and compare make up when none are given (run.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lg/run.h"

/* "random:SEED": SEED is decimal digits only (no sign, no spaces, no 0x), 0..2^64-1. strtoull
   would take "-1" (as 2^64-1) and saturate an overflow to the same value, so two different
   seeds would give the same input: both are refused. */
static bool parse_seed(const char *s, uint64_t *out) {
    if (!*s) return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

lg_status lg_fill_f32(const char *fill, float *data, int64_t n, lg_error *err) {
    if (strcmp(fill, "half") == 0) {
        for (int64_t i = 0; i < n; i++) data[i] = 0.5f;
    } else if (strcmp(fill, "pattern") == 0) {
        for (int64_t i = 0; i < n; i++) data[i] = (float)((double)((i * 7919 + 13) % 1009) / 1009.0);
    } else if (strncmp(fill, "random:", 7) == 0) {
        uint64_t seed;
        if (!parse_seed(fill + 7, &seed))
            return lgi_fail(err, LG_ERR_INVALID_ARG,
                            "bad fill '%s': random:SEED takes a decimal seed 0..18446744073709551615", fill);
        uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
        for (int64_t i = 0; i < n; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            /* the top 24 bits k: 2k/2^24 - 1 = -1 + k/2^23, exact in float, k = 0..2^24-1: [-1, 1) */
            data[i] = (float)((double)(s >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
        }
    } else {
        return lgi_fail(err, LG_ERR_INVALID_ARG, "unknown fill '%s' (half, pattern or random:SEED)", fill);
    }
    return LG_OK;
}
