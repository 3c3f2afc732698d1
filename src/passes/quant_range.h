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

/* Make a histogram over [lo, hi]: LG_ERR_INVALID_ARG unless lo <= hi are finite (and so is
   hi - lo), LG_ERR_NOMEM on failure. Bin j holds [lo + j w, lo + (j + 1) w), w = (hi - lo) / B;
   the last bin also holds hi. lgq_hist_free is safe after a failed init. */
LG_INTERNAL lg_status lgq_hist_init(lgq_hist *h, double lo, double hi, lg_error *err);
/* Add n values (non-finite values are ignored and not counted; values outside [lo, hi] go to
   the end bins). */
LG_INTERNAL void lgq_hist_add(lgq_hist *h, const float *x, uint64_t n);
LG_INTERNAL void lgq_hist_free(lgq_hist *h);

/* The range [*lo, *hi] to quantize to, by method. Inside a bin the bin's count is taken as
   spread uniformly over the bin.
   - MINMAX: [h->lo, h->hi].
   - PERCENTILE: the central `percentile` % (99.99 when percentile <= 0, > 100 or NaN): the
     count (100 - p) / 200 * total is cut at each end, the cut point interpolated linearly
     inside the bin where it falls (so 10,000 values 0..9999 with p = 98 give about
     [100, 9899]). p = 100 is min-max. Two-sided like TF's HISTOGRAM_PERCENTILE
     (calibration_algorithm.py, which snaps to bin mids), not |x|-based like TensorRT's.
   - MSE: the [a, b] that minimises the expected squared error of quantizing the histogram's
     mass to `levels` (< 2: 256) equally spaced levels a .. b: the clipping error of the mass
     outside (integrated exactly) plus s^2 / 12 per unit of mass inside (s = (b - a) /
     (levels - 1): the rounding error averaged over the grid's offset, which the caller's
     zero-point nudging moves anyway). Searched over every pair of 16-bin edges, then by
     coordinate descent (each end in turn: every bin edge, then golden-section search inside
     the bins around the best), so it is never worse than MINMAX by that objective. Uniform data keeps [lo + R / (2 levels),
     hi - R / (2 levels)] (R = hi - lo: half a step trimmed at each end); a far cluster of
     outliers holding a fraction f of the mass pulls b from the bulk out to about
     f / (f + 1 / (12 (levels - 1)^2)) of the way (clipped when f << 1.3e-6 for 256 levels). Out of memory: MINMAX.
   The result always satisfies h->lo <= *lo <= *hi <= h->hi; with lo == hi or an empty
   histogram every method gives [h->lo, h->hi]. 0 need not be inside: the caller adds it. */
LG_INTERNAL void lgq_range_estimate(const lgq_hist *h, lg_quant_range method, double percentile, unsigned levels,
                                    double *lo, double *hi);

#endif
