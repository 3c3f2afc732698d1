/* Internal to litegpu quantize: estimating an activation tensor's range from the values the
   calibration runs saw (quant_range.c). Used by int8-static (quant_static*.c).

   A tensor's values are seen in two passes over the calibration cases: pass 1 gives the
   exact [min, max] (lgq_hist_init's lo/hi), pass 2 fills a histogram of LGQ_HIST_BINS equal
   bins over it; the estimators then work on the histogram. */
#ifndef LGI_QUANT_RANGE_H
#define LGI_QUANT_RANGE_H

#include "internal.h"
#include "lg/quantize.h"

#define LGQ_HIST_BINS 2048u

typedef struct lgq_hist {
    double lo, hi;             /* the exact min and max of pass 1 (lo <= hi) */
    uint64_t count;            /* values added in pass 2 */
    uint64_t *bins;            /* LGQ_HIST_BINS counts over [lo, hi] (NULL when lo == hi) */
} lgq_hist;

/* Make a histogram over [lo, hi] (finite). LG_ERR_NOMEM on failure. */
LG_INTERNAL lg_status lgq_hist_init(lgq_hist *h, double lo, double hi, lg_error *err);
/* Add n values (non-finite values are ignored; values outside [lo, hi] go to the end bins). */
LG_INTERNAL void lgq_hist_add(lgq_hist *h, const float *x, uint64_t n);
LG_INTERNAL void lgq_hist_free(lgq_hist *h);

/* The range [*lo, *hi] to quantize to, by method: MINMAX gives [h->lo, h->hi]; PERCENTILE
   the central `percentile` % (e.g. 99.99: 0.005 % cut at each end); MSE the clip range that
   minimises the expected squared error of quantizing the histogram's values to `levels`
   equally spaced levels (256 for int8) with clipping. The result always satisfies
   h->lo <= *lo <= *hi <= h->hi. */
LG_INTERNAL void lgq_range_estimate(const lgq_hist *h, lg_quant_range method, double percentile, unsigned levels,
                                    double *lo, double *hi);

#endif
