/* Internal to litegpu quantize: selective precision by measurement, int8-static's
 * --target-error (quant_sweep.c). The metric, the layers, the ranking and the search are
 * documented in include/lg/quantize.h ("Selective precision by measurement").
 *
 *     lgq_calibrate once                        (quant_calib.h)
 *     E(all int8); per layer: one build + its runs on the measured cases
 *     rank; E(k = n); bisect k; build the chosen k with the report
 *
 * Each model is run on the measured cases and compared with the float model's outputs,
 * computed once; the interpreter is litegpu's, fp32, TFLite's integer arithmetic (the
 * parity figures' settings, so E of the written model equals its parity SNR).
 */
#ifndef LGI_QUANT_SWEEP_H
#define LGI_QUANT_SWEEP_H

#include "internal.h"
#include "lg/quantize.h"

/* A growing string (the metadata JSON). nomem is set, and nothing more written, when an
   allocation fails; s is NUL-terminated when not NULL. */
typedef struct lgq_str {
    char *s;
    size_t len, cap;
    bool nomem;
} lgq_str;

LG_INTERNAL void lgq_str_put(lgq_str *b, const char *fmt, ...) LGI_PRINTF(2, 3);
/* s JSON-escaped (quotes, backslashes, control characters); NULL writes nothing. */
LG_INTERNAL void lgq_str_esc(lgq_str *b, const char *s);

/* The options of --target-error are coherent: target_error 0 (off), or in (0, 1) with mode
   int8-static; sensitivity known. LG_ERR_INVALID_ARG with one line otherwise. */
LG_INTERNAL lg_status lgq_sweep_check(const lg_quant_options *o, lg_error *err);

/* int8-static with o->target_error > 0: calibrate src on o->cases, measure, choose and build
   the written model into *out (map and rep as lgq_static_build; rep must not be NULL and gets
   the sweep's fields and rep's range, percentile, int8_io and n_calib_cases). excluded: one
   byte per op of src, non-zero for the ops an exclude pattern keeps float (never layers). */
LG_INTERNAL lg_status lgq_sweep_run(const lg_model *src, const lg_quant_options *o, const uint8_t *excluded,
                                    lg_model **out, int32_t *map, lg_quant_report *rep, lg_error *err);

/* The sweep's part of the "litegpu.quantize" metadata, appended to b (which holds an open
   object): ,"target_error":X,"target_met":B,"error":E,"error_int8":E0,"sensitivity":"...",
   "kept_float":[{"op":I,"name":"..."},...]. */
LG_INTERNAL void lgq_sweep_metadata(const lg_quant_report *r, lgq_str *b);

/* E of one output from its sums (sum f^2, sum (q - f)^2): sqrt(err2 / ref2); a reference all
   zero gives 0 when err2 is 0, else +inf. */
LG_INTERNAL double lgq_output_error(double sum_ref2, double sum_err2);

#endif
