/* Range estimators for int8-static (quant_range.h): the histogram of pass 2 and the three
   ways of turning it into the range one activation tensor is quantized to.

   Everything below works in bin units: t = (x - lo) / w with w = (hi - lo) / B, so the bin j
   is [j, j + 1) and the histogram spans [0, B]; a range found in bin units goes back to real
   units only at the end (the end edges map to h->lo and h->hi exactly). Inside a bin the
   bin's count is taken as spread uniformly over the bin (the model every histogram
   calibrator uses: caffe2's norm_minimization.cc / PyTorch's HistogramObserver._get_norm
   integrate a density of count / bin_width over the bin). */
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

/* ------------------------------------------------------------------ the histogram */

lg_status lgq_hist_init(lgq_hist *h, double lo, double hi, lg_error *err) {
    memset(h, 0, sizeof *h);
    if (!isfinite(lo) || !isfinite(hi) || !(lo <= hi) || !isfinite(hi - lo))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "quantize: calibration range [%g, %g] is not a finite interval", lo,
                        hi);
    h->lo = lo;
    h->hi = hi;
    if (hi > lo && !(h->bins = calloc(LGQ_HIST_BINS, sizeof *h->bins)))
        return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    return LG_OK;
}

void lgq_hist_add(lgq_hist *h, const float *x, uint64_t n) {
    /* bin j holds [lo + j w, lo + (j + 1) w); hi itself and everything above go to the last
       bin, everything below lo to the first (t < 0 and t >= B are clamped) */
    const double scale = h->bins ? (double)LGQ_HIST_BINS / (h->hi - h->lo) : 0;
    for (uint64_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) continue;
        h->count++;
        if (!h->bins) continue;
        double t = ((double)x[i] - h->lo) * scale;
        size_t j = t >= (double)LGQ_HIST_BINS ? LGQ_HIST_BINS - 1 : t > 0 ? (size_t)t : 0;
        h->bins[j]++;
    }
}

void lgq_hist_free(lgq_hist *h) {
    free(h->bins);
    h->bins = NULL;
}

/* Bin units back to real units, exact at both ends, clamped into [h->lo, h->hi]. */
static double to_real(const lgq_hist *h, double t) {
    if (t <= 0) return h->lo;
    if (t >= (double)LGQ_HIST_BINS) return h->hi;
    double x = h->lo + t * ((h->hi - h->lo) / (double)LGQ_HIST_BINS);
    return x < h->lo ? h->lo : x > h->hi ? h->hi : x;
}

static double hist_total(const lgq_hist *h) {
    double n = 0;
    for (size_t j = 0; j < LGQ_HIST_BINS; j++) n += (double)h->bins[j];
    return n;
}

/* ------------------------------------------------------------------ percentile */

/* PERCENTILE. How others define it:
   - TF's HISTOGRAM_PERCENTILE (compiler/mlir/quantization/tensorflow/calibrator/
     calibration_algorithm.py): two-sided, min_percentile 0.001 / max_percentile 99.999 by
     default; searchsorted on the normalised cumulative histogram, then the mid of that bin.
   - TensorRT (pytorch-quantization calib/histogram.py _compute_amax_percentile): one-sided on
     |x| (symmetric quantization): amax = the left edge of the first bin whose cumulative
     fraction reaches p / 100.
   - PyTorch's HistogramObserver has no percentile (its search is L2, below); ai-edge-quantizer
     has none either (activations take min-max or a moving average of it, utils/
     calibration_utils.py; its MSE algorithm, algorithms/uniform_quantize/mse.py, is for
     weights only: symmetric, scale = 0.05408 * RMS at 8 bits).
   We follow TF's two-sided form (an int8 activation range is asymmetric) with the central p %
   (so 99.99 cuts 0.005 % at each end) and, rather than snapping to a bin's mid or edge,
   interpolate inside the bin (so the result moves continuously with p).

   The point with mass c (> 0) below it, the mass of a bin spread uniformly over the bin:
   inside the first bin j where the running count reaches c, at j + (c - before) / n_j (a
   linear interpolation of the histogram's cumulative count). */
static double cut_below(const uint64_t *bins, double c) {
    double before = 0;
    for (size_t j = 0; j < LGQ_HIST_BINS; j++) {
        double n = (double)bins[j];
        if (n > 0 && before + n >= c) return (double)j + (c - before) / n;
        before += n;
    }
    return (double)LGQ_HIST_BINS;
}

/* The mirror image: the point with mass c above it. */
static double cut_above(const uint64_t *bins, double c) {
    double after = 0;
    for (size_t j = LGQ_HIST_BINS; j-- > 0;) {
        double n = (double)bins[j];
        if (n > 0 && after + n >= c) return (double)(j + 1) - (c - after) / n;
        after += n;
    }
    return 0;
}

static void range_percentile(const lgq_hist *h, double total, double p, double *ta, double *tb) {
    if (!(p > 0 && p <= 100)) p = 99.99;
    double c = total * (100 - p) / 200; /* the count cut at each end */
    *ta = 0;
    *tb = (double)LGQ_HIST_BINS;
    if (!(c > 0)) return;
    *ta = cut_below(h->bins, c);
    *tb = cut_above(h->bins, c);
    if (*ta > *tb) *ta = *tb = (*ta + *tb) / 2; /* p close to 0: both cuts meet at the median */
}

/* ------------------------------------------------------------------ MSE */

/* The expected squared error, in bin units squared, of quantizing the histogram's mass to
   L levels a, a + s, ..., b (s = (b - a) / (L - 1), TFLite's asymmetric grid with both ends
   on a level):
     clip(a, b)  = sum over the mass below a of (a - x)^2 + over the mass above b of (x - b)^2
                   (those values go to the end levels), integrated exactly with each bin's
                   count uniform over the bin;
     round(a, b) = M(a, b) s^2 / 12 for the mass M(a, b) inside [a, b].
   s^2 / 12 is the mean squared rounding error of a value against a grid of step s whose
   offset is uniform (the error is then uniform on [-s/2, s/2] whatever the value): the
   caller extends the range to hold 0 and TFLite nudges the zero point to an integer, which
   shifts the grid by a fraction of a step, so an error computed for one particular offset
   would claim a precision the quantized model does not have. It is ACIQ's rounding term
   (Banner et al., "Post training 4-bit quantization of convolutional networks for
   rapid-deployment", arXiv 1810.05723: Delta^2 / 12 plus the clipping integral). For
   uniform data it gives the optimal uniform quantizer exactly (half a step trimmed at each
   end, see quant_range.h). Others: TensorRT's _compute_amax_mse (pytorch-quantization
   calib/histogram.py) and TF's _get_weighted_mean_squared_error (compiler/mlir/quantization/
   tensorflow/calibrator/calibration_algorithm.py) quantize each bin's centre, so a bin whose
   centre sits on a level costs nothing; PyTorch's HistogramObserver._compute_quantization_
   error integrates exactly against the centres of 256 equal cells (a mid-rise grid, not
   TFLite's), and its _non_linear_param_search shrinks the range greedily by quantile steps
   and stops at the first increase (a local minimum).
   With prefix sums of each bin's count, first and second moment the objective is O(1) for
   any [a, b], which is what lets the search below try some 20,000 to 40,000 ranges. */
typedef struct mse_ctx {
    const uint64_t *n;
    const double *p0, *p1, *p2; /* B + 1 prefix sums over bins j < k: n_j, n_j u_j, n_j (u_j^2 + 1/12) */
    double half;                /* B / 2: moments about the middle (u_j = j + 1/2 - B/2) keep them small */
    double inv_l1sq;            /* 1 / (L - 1)^2 */
} mse_ctx;

static size_t bin_of(double t) {
    if (t <= 0) return 0;
    size_t k = (size_t)t;
    return k >= LGQ_HIST_BINS ? LGQ_HIST_BINS - 1 : k;
}

static double mse_objective(const mse_ctx *m, double ta, double tb) {
    const size_t B = LGQ_HIST_BINS;
    size_t ka = bin_of(ta), kb = bin_of(tb);
    double fa = ta - (double)ka, fb = tb - (double)kb;
    double na = (double)m->n[ka], nb = (double)m->n[kb];
    double ua = ta - m->half, ub = tb - m->half;
    /* full bins below a: sum n_j ((a - c_j)^2 + 1/12); the part of a's bin below a: n fa^3 / 3 */
    double below = ua * ua * m->p0[ka] - 2 * ua * m->p1[ka] + m->p2[ka];
    double q0 = m->p0[B] - m->p0[kb + 1], q1 = m->p1[B] - m->p1[kb + 1], q2 = m->p2[B] - m->p2[kb + 1];
    double above = q2 - 2 * ub * q1 + ub * ub * q0;
    double clip = fmax(below, 0) + fmax(above, 0) + na * fa * fa * fa / 3 + nb * (1 - fb) * (1 - fb) * (1 - fb) / 3;
    double inside = ka == kb ? na * (fb - fa) : na * (1 - fa) + (m->p0[kb] - m->p0[ka + 1]) + nb * fb;
    double s2 = (tb - ta) * (tb - ta) * m->inv_l1sq;
    return clip + fmax(inside, 0) * s2 / 12;
}

typedef struct mse_best {
    double ta, tb, e;
} mse_best;

static void mse_try(const mse_ctx *m, mse_best *b, double ta, double tb) {
    double e = mse_objective(m, ta, tb);
    if (e < b->e) *b = (mse_best){ta, tb, e};
}

/* Golden-section search of one end over [x0, x1] (the other end fixed); keeps the best
   point seen. 48 steps shrink the interval by 0.618^48 ~ 1e-10 of a bin. */
static void mse_golden(const mse_ctx *m, mse_best *b, int end, double x0, double x1) {
    const double g = 0.6180339887498949;
    double lo = x0, hi = x1;
    double c = hi - g * (hi - lo), d = lo + g * (hi - lo);
    double fc = end ? mse_objective(m, b->ta, c) : mse_objective(m, c, b->tb);
    double fd = end ? mse_objective(m, b->ta, d) : mse_objective(m, d, b->tb);
    double best_x = 0, best_e = INFINITY;
    for (int i = 0; i < 48; i++) {
        if (fc < best_e) best_x = c, best_e = fc;
        if (fd < best_e) best_x = d, best_e = fd;
        if (fc <= fd) {
            hi = d, d = c, fd = fc;
            c = hi - g * (hi - lo);
            fc = end ? mse_objective(m, b->ta, c) : mse_objective(m, c, b->tb);
        } else {
            lo = c, c = d, fc = fd;
            d = lo + g * (hi - lo);
            fd = end ? mse_objective(m, b->ta, d) : mse_objective(m, d, b->tb);
        }
    }
    if (best_e < b->e) {
        if (end) b->tb = best_x;
        else b->ta = best_x;
        b->e = best_e;
    }
}

/* One end (0: a, 1: b) with the other fixed: every bin edge between the other end and the
   histogram's end, then golden-section search over the bin on either side of the best point. */
static void mse_refine(const mse_ctx *m, mse_best *b, int end) {
    const unsigned B = LGQ_HIST_BINS;
    if (end) {
        for (unsigned k = (unsigned)ceil(b->ta); k <= B; k++) mse_try(m, b, b->ta, k);
        double x = b->tb;
        if (x > b->ta) mse_golden(m, b, 1, fmax(x - 1, b->ta), x);
        if (x < B) mse_golden(m, b, 1, x, fmin(x + 1, (double)B));
    } else {
        for (unsigned k = 0; k <= (unsigned)b->tb; k++) mse_try(m, b, k, b->tb);
        double x = b->ta;
        if (x > 0) mse_golden(m, b, 0, fmax(x - 1, 0), x);
        if (x < b->tb) mse_golden(m, b, 0, x, fmin(x + 1, b->tb));
    }
}

/* The search, all deterministic:
   1. every pair of edges on a grid of 16 bins (129 edges, 8,385 pairs with a <= b; the
      min-max range is one of them, so the result is never worse than min-max);
   2. coordinate descent: a with b fixed, then b with a fixed (mse_refine: every bin edge,
      then golden-section search inside the bins around the best), until a round gains less
      than 1e-12 of the error (at most 64 rounds).
   Cost: about 8.4k + 4.3k per round O(1) evaluations, after O(B) prefix sums. */
static void mse_search(const mse_ctx *m, double *ta, double *tb) {
    const unsigned B = LGQ_HIST_BINS, S = 16;
    mse_best b = {0, (double)B, mse_objective(m, 0, (double)B)};
    for (unsigned i = 0; i <= B; i += S)
        for (unsigned j = i; j <= B; j += S) mse_try(m, &b, i, j);
    for (int round = 0; round < 64; round++) {
        double e0 = b.e;
        mse_refine(m, &b, 0);
        mse_refine(m, &b, 1);
        if (!(b.e < e0 * (1 - 1e-12))) break;
    }
    *ta = b.ta;
    *tb = b.tb;
}

/* false when out of memory (the caller then keeps min-max) */
static bool range_mse(const lgq_hist *h, unsigned levels, double *ta, double *tb) {
    const size_t B = LGQ_HIST_BINS;
    double *p = malloc(3 * (B + 1) * sizeof *p);
    if (!p) return false;
    mse_ctx m = {.n = h->bins, .p0 = p, .p1 = p + (B + 1), .p2 = p + 2 * (B + 1), .half = (double)B / 2};
    double l1 = (double)(levels < 2 ? 256u : levels) - 1;
    m.inv_l1sq = 1 / (l1 * l1);
    double *p0 = p, *p1 = p + (B + 1), *p2 = p + 2 * (B + 1);
    p0[0] = p1[0] = p2[0] = 0;
    for (size_t j = 0; j < B; j++) {
        double n = (double)h->bins[j], u = (double)j + 0.5 - m.half;
        p0[j + 1] = p0[j] + n;
        p1[j + 1] = p1[j] + n * u;
        p2[j + 1] = p2[j] + n * (u * u + 1.0 / 12);
    }
    mse_search(&m, ta, tb);
    free(p);
    return true;
}

/* ------------------------------------------------------------------ the estimate */

void lgq_range_estimate(const lgq_hist *h, lg_quant_range method, double percentile, unsigned levels, double *lo,
                        double *hi) {
    *lo = h->lo;
    *hi = h->hi;
    if (!h->bins || !(h->hi > h->lo)) return; /* one value (or none): nothing to cut */
    double total = hist_total(h);
    if (!(total > 0)) return;
    double ta = 0, tb = (double)LGQ_HIST_BINS;
    if (method == LG_RANGE_PERCENTILE) range_percentile(h, total, percentile, &ta, &tb);
    else if (method == LG_RANGE_MSE && !range_mse(h, levels, &ta, &tb)) return;
    *lo = to_real(h, ta);
    *hi = to_real(h, tb);
    if (*lo > *hi) *lo = *hi; /* cannot happen (ta <= tb and to_real is monotone): kept as a guard */
}
