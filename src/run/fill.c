/* lg_fill_f32: the inputs the CLI and compare make up when none are given (run.h). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lg/run.h"

lg_status lg_fill_f32(const char *fill, float *data, int64_t n, lg_error *err) {
    if (strcmp(fill, "half") == 0) {
        for (int64_t i = 0; i < n; i++) data[i] = 0.5f;
    } else if (strcmp(fill, "pattern") == 0) {
        for (int64_t i = 0; i < n; i++) data[i] = (float)((double)((i * 7919 + 13) % 1009) / 1009.0);
    } else if (strncmp(fill, "random:", 7) == 0) {
        char *end;
        unsigned long long seed = strtoull(fill + 7, &end, 10);
        if (!fill[7] || *end) return lgi_fail(err, LG_ERR_INVALID_ARG, "bad fill '%s' (random:SEED)", fill);
        uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
        for (int64_t i = 0; i < n; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            data[i] = (float)((double)(s >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
        }
    } else {
        return lgi_fail(err, LG_ERR_INVALID_ARG, "unknown fill '%s' (half, pattern or random:SEED)", fill);
    }
    return LG_OK;
}
