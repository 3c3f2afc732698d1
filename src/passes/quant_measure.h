/* Internal to litegpu quantize: the quantized model against the float one (quant_measure.c). */
#ifndef LGI_QUANT_MEASURE_H
#define LGI_QUANT_MEASURE_H

#include "internal.h"
#include "lg/quantize.h"

/* Run src and q (fp32) on every case of o and fill r's measurement fields: per output SNR,
   cosine, max abs error, argmax agreement and the judge's worst score; on the first case the
   first tensor of q (in op order, constants and folded ops apart) whose value fails lg_judge
   against its tensor in src (map: src tensor -> q tensor, -1 when gone); INT8 / UINT8 tensors
   of q are compared dequantized, a float case is quantized for an INT8 input of q, and
   o->eval_cases (when given) replace the golden and calibration cases. A model litegpu
   cannot run is not an error: r->measured stays false and r->measure_note says why. */
LG_INTERNAL lg_status lgq_measure(const lg_model *src, const lg_model *q, const int32_t *map,
                                  const lg_quant_options *o, lg_quant_report *r, lg_error *err);

/* SNR in dB from the sums: 10 log10(sum_ref2 / sum_err2); +inf when sum_err2 is 0 and the
   reference is not all zero; NaN when the reference is all zero. */
LG_INTERNAL double lgq_snr_db(double sum_ref2, double sum_err2);

#endif
