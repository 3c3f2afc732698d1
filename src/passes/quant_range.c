/* Range estimators for int8-static (quant_range.h). STUB: every method returns min-max until
   the estimators land. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/quant_range.h"

static const char *const range_names[LG_RANGE_COUNT] = {"minmax", "percentile", "mse"};

const char *lg_quant_range_name(lg_quant_range r) { return (unsigned)r < LG_RANGE_COUNT ? range_names[r] : "?"; }

int lg_quant_range_from_name(const char *s) {
    for (int i = 0; s && i < LG_RANGE_COUNT; i++)
        if (strcmp(s, range_names[i]) == 0) return i;
    return -1;
}

lg_status lgq_hist_init(lgq_hist *h, double lo, double hi, lg_error *err) {
    memset(h, 0, sizeof *h);
    h->lo = lo;
    h->hi = hi;
    if (hi > lo && !(h->bins = calloc(LGQ_HIST_BINS, sizeof *h->bins)))
        return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    return LG_OK;
}

void lgq_hist_add(lgq_hist *h, const float *x, uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        if (isfinite(x[i])) h->count++;
}

void lgq_hist_free(lgq_hist *h) {
    free(h->bins);
    h->bins = NULL;
}

void lgq_range_estimate(const lgq_hist *h, lg_quant_range method, double percentile, unsigned levels, double *lo,
                        double *hi) {
    (void)method;
    (void)percentile;
    (void)levels;
    *lo = h->lo;
    *hi = h->hi;
}
