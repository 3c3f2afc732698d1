/* litegpu quantize int8-static: calibration (quant_calib.h). The float model runs on every
   calibration case; each FLOAT32 tensor's finite values give its exact [min, max] (pass 1),
   then, for the percentile and MSE methods, a histogram over that span (pass 2) from which
   quant_range.c estimates the range.
   TFLite's calibrator keeps the running min and max of every tensor too
   (tflite/tools/optimize/calibration/calibration_logger.cc MinMax::Update) but skips NaN only:
   an infinity enters the range, which is how a -inf pad before a max pool makes every scale
   infinite (onnx2tf#444). Here infinities are skipped as NaN is; the pad constant is clamped
   when it is quantized (quant_static.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/quant_calib.h"
#include "passes/quant_range.h"

typedef struct cctx {
    lgq_calib *c;
    const lg_quant_options *o;
    lg_error *err;
    lgq_hist *hist;            /* pass 2: per tensor (bins NULL when not used) */
    float **fill;              /* per input: a buffer for inputs the case does not give */
    uint32_t n_in;
    uint64_t done, total;
} cctx;

void lgq_calib_free(lgq_calib *c) {
    if (!c) return;
    lg_interp_free(c->it);
    free(c->seen);
    free(c->min);
    free(c->max);
    free(c->lo);
    free(c->hi);
    free(c);
}

const float *lgq_calib_values(const lgq_calib *c, int32_t t, int64_t *n) {
    *n = 0;
    lg_tensor_view v;
    if (!c || !c->it || t < 0 || (uint32_t)t >= c->n_tensors || lg_interp_tensor(c->it, t, &v) != LG_OK) return NULL;
    if (v.type != LG_FLOAT32 || !v.data) return NULL;
    *n = v.numel;
    return v.data;
}

/* Set every input of the interpreter for case k: the case's data, or (no data for an input)
   the "pattern" fill for a float input and zeros for another. */
static lg_status set_case(cctx *x, uint32_t k) {
    for (uint32_t i = 0; i < x->n_in; i++) {
        lg_tensor_view v;
        LG_TRY(lg_interp_input(x->c->it, i, &v));
        const void *data = x->o->cases[k] ? x->o->cases[k][i] : NULL;
        if (!data) {
            if (v.type == LG_FLOAT32) LG_TRY(lg_fill_f32("pattern", x->fill[i], v.numel, x->err));
            else memset(x->fill[i], 0, (size_t)v.nbytes);
            data = x->fill[i];
        }
        LG_TRY(lg_interp_set_input(x->c->it, i, v.type, data, v.nbytes, x->err));
    }
    return lg_interp_invoke(x->c->it, x->err);
}

static void progress(cctx *x) {
    x->done++;
    if (x->o->progress) x->o->progress(x->o->progress_ud, "calibrate", x->done, x->total);
}

/* Pass 1 on the current case: min / max of every FLOAT32 tensor's finite values. */
static void add_minmax(cctx *x) {
    lgq_calib *c = x->c;
    for (uint32_t t = 0; t < c->n_tensors; t++) {
        lg_tensor_view v;
        if (lg_interp_tensor(c->it, (int32_t)t, &v) != LG_OK || v.type != LG_FLOAT32 || !v.data) continue;
        const float *f = v.data;
        double lo = c->min[t], hi = c->max[t];
        bool any = c->seen[t];
        for (int64_t i = 0; i < v.numel; i++) {
            if (!isfinite(f[i])) continue;
            if (!any || f[i] < lo) lo = f[i];
            if (!any || f[i] > hi) hi = f[i];
            any = true;
        }
        c->seen[t] = any;
        c->min[t] = lo;
        c->max[t] = hi;
    }
}

static void add_hist(cctx *x) {
    lgq_calib *c = x->c;
    for (uint32_t t = 0; t < c->n_tensors; t++) {
        lg_tensor_view v;
        if (!c->seen[t] || lg_interp_tensor(c->it, (int32_t)t, &v) != LG_OK || v.type != LG_FLOAT32 || !v.data) continue;
        lgq_hist_add(&x->hist[t], v.data, (uint64_t)v.numel);
    }
}

static lg_status setup(cctx *x, const lg_model *src) {
    lgq_calib *c = x->c;
    c->src = src;
    c->n_tensors = src->subgraphs[0].n_tensors;
    c->n_cases = x->o->n_cases;
    c->method = x->o->range;
    c->percentile = x->o->percentile > 0 ? x->o->percentile : 99.99;
    size_t n = c->n_tensors ? c->n_tensors : 1;
    c->seen = calloc(n, 1);
    c->min = calloc(n, sizeof *c->min);
    c->max = calloc(n, sizeof *c->max);
    c->lo = calloc(n, sizeof *c->lo);
    c->hi = calloc(n, sizeof *c->hi);
    if (!c->seen || !c->min || !c->max || !c->lo || !c->hi) return lgi_fail(x->err, LG_ERR_NOMEM, "out of memory");
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = LG_PREC_F32;
    ro.threads = x->o->threads;
    ro.keep_all = true;
    lg_status st = lg_interp_create(src, &ro, &c->it, x->err);
    if (st != LG_OK) {
        lgi_error_prefix(x->err, "int8-static calibration: litegpu cannot run the float model: ");
        return st == LG_ERR_NOMEM ? st : LG_ERR_UNSUPPORTED;
    }
    x->n_in = lg_interp_n_inputs(c->it);
    x->fill = calloc(x->n_in ? x->n_in : 1, sizeof *x->fill);
    if (!x->fill) return lgi_fail(x->err, LG_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < x->n_in; i++) {
        lg_tensor_view v;
        LG_TRY(lg_interp_input(c->it, i, &v));
        x->fill[i] = calloc(1, v.nbytes ? (size_t)v.nbytes : 4);
        if (!x->fill[i]) return lgi_fail(x->err, LG_ERR_NOMEM, "out of memory");
    }
    return LG_OK;
}

static lg_status passes(cctx *x) {
    lgq_calib *c = x->c;
    const bool hist = c->method != LG_RANGE_MINMAX;
    x->total = (uint64_t)c->n_cases * (hist ? 2 : 1);
    for (uint32_t k = 0; k < c->n_cases; k++) {
        LG_TRY(set_case(x, k));
        add_minmax(x);
        progress(x);
    }
    for (uint32_t t = 0; t < c->n_tensors; t++) {
        c->lo[t] = c->min[t];
        c->hi[t] = c->max[t];
    }
    if (!hist) return LG_OK;
    x->hist = calloc(c->n_tensors ? c->n_tensors : 1, sizeof *x->hist);
    if (!x->hist) return lgi_fail(x->err, LG_ERR_NOMEM, "out of memory");
    for (uint32_t t = 0; t < c->n_tensors; t++)
        if (c->seen[t]) LG_TRY(lgq_hist_init(&x->hist[t], c->min[t], c->max[t], x->err));
    for (uint32_t k = 0; k < c->n_cases; k++) {
        LG_TRY(set_case(x, k));
        add_hist(x);
        progress(x);
    }
    for (uint32_t t = 0; t < c->n_tensors; t++) {
        if (!c->seen[t]) continue;
        double lo = c->min[t], hi = c->max[t];
        lgq_range_estimate(&x->hist[t], c->method, c->percentile, 256, &lo, &hi);
        /* the estimators promise min <= lo <= hi <= max: hold them to it */
        c->lo[t] = lo >= c->min[t] && lo <= c->max[t] ? lo : c->min[t];
        c->hi[t] = hi <= c->max[t] && hi >= c->lo[t] ? hi : c->max[t];
    }
    return LG_OK;
}

lg_status lgq_calibrate(const lg_model *src, const lg_quant_options *opt, lgq_calib **out, lg_error *err) {
    *out = NULL;
    if (!opt->n_cases || !opt->cases)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "int8-static needs calibration inputs (--calib DIR)");
    if ((unsigned)opt->range >= LG_RANGE_COUNT)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "unknown range method %d", (int)opt->range);
    if (opt->range == LG_RANGE_PERCENTILE && opt->percentile != 0 && !(opt->percentile > 50 && opt->percentile <= 100))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "percentile %g: the kept fraction in percent, in (50, 100]", opt->percentile);
    if (!src->n_subgraphs) return lgi_fail(err, LG_ERR_INVALID_ARG, "the model has no subgraph");
    cctx x;
    memset(&x, 0, sizeof x);
    x.o = opt;
    x.err = err;
    x.c = calloc(1, sizeof *x.c);
    lg_status st = x.c ? setup(&x, src) : lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    if (st == LG_OK) st = passes(&x);
    for (uint32_t t = 0; x.hist && t < x.c->n_tensors; t++) lgq_hist_free(&x.hist[t]);
    free(x.hist);
    for (uint32_t i = 0; x.fill && i < x.n_in; i++) free(x.fill[i]);
    free(x.fill);
    if (st != LG_OK) {
        lgq_calib_free(x.c);
        return st;
    }
    *out = x.c;
    return LG_OK;
}
