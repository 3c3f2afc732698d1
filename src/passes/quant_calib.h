/* Internal to litegpu quantize: the calibration of int8-static (quant_calib.c).
 *
 * The float input model runs (fp32, litegpu's interpreter, every tensor kept) on every
 * calibration case of the options, twice when the range method needs a histogram:
 *   pass 1: each FLOAT32 tensor's exact min and max over its finite values, over all cases;
 *   pass 2 (range != LG_RANGE_MINMAX): an lgq_hist over [min, max] per tensor
 *           (quant_range.h), from which lgq_range_estimate gives the range to quantize to.
 * Non-finite values (a -inf pad constant, a masked attention score) never enter a range.
 * Constants and tensors computed from constants only (folded at load: a DEQUANTIZE of FLOAT16
 * weights, DENSIFY) are covered too: their range is that of their values.
 * opt->progress gets ("calibrate", done, total) once per case per pass, total = cases x passes.
 *
 * The calibration is done once and read by any number of builds (lgq_static_build,
 * quant_static.h): the sensitivity sweep calibrates once and builds many subsets.
 *
 *     lgq_calib *cal;
 *     lgq_calibrate(src, opt, &cal, err);       // opt->cases / n_cases, range, percentile
 *     lgq_static_build(src, cal, keep_float, opt, &q, map, rep, err);
 *     ...
 *     lgq_calib_free(cal);                       // before src is freed
 */
#ifndef LGI_QUANT_CALIB_H
#define LGI_QUANT_CALIB_H

#include "internal.h"
#include "lg/quantize.h"
#include "lg/run.h"

typedef struct lgq_calib {
    const lg_model *src;       /* the model calibrated (must outlive the calibration) */
    uint32_t n_tensors;        /* of subgraph 0 */
    uint32_t n_cases;
    lg_quant_range method;
    double percentile;         /* as used (99.99 when the option was 0) */
    uint8_t *seen;             /* per tensor: FLOAT32 with at least one finite value */
    double *min, *max;         /* per tensor: the exact finite min / max over every case */
    double *lo, *hi;           /* per tensor: the range the method chose (min <= lo <= hi <= max) */
    /* the float interpreter of src after the last case: it holds the values of the constants
       and of the tensors folded from them (lgq_calib_values) */
    lg_interp *it;
} lgq_calib;

/* Calibrate src on opt->cases (at least one: LG_ERR_INVALID_ARG "int8-static needs
   calibration inputs (--calib DIR)"). A model litegpu cannot run is LG_ERR_UNSUPPORTED with
   the interpreter's message. */
LG_INTERNAL lg_status lgq_calibrate(const lg_model *src, const lg_quant_options *opt, lgq_calib **out, lg_error *err);
LG_INTERNAL void lgq_calib_free(lgq_calib *c);

/* The FLOAT32 values of tensor t as the float interpreter holds them (constants, folded
   tensors; runtime tensors: the last case's values), *n their count; NULL when t is not a
   FLOAT32 tensor of the model. Valid until lgq_calib_free. */
LG_INTERNAL const float *lgq_calib_values(const lgq_calib *c, int32_t t, int64_t *n);

#endif
