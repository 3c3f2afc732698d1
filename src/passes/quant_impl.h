/* Internal to litegpu quantize (src/passes/quant*.c): the numeric conversions and the edits
   that store one constant in another form. The rules and their sources are in
   include/lg/quantize.h. */
#ifndef LGI_QUANT_IMPL_H
#define LGI_QUANT_IMPL_H

#include "internal.h"
#include "lg/quantize.h"

/* The largest finite half; TFLite clamps float constants to it before converting. */
#define LGQ_HALF_MAX 65504.0f

/* TfLiteRound(x) (std::round: half away from zero) as an int32, for |x| well inside int32
   (the callers' values are at most qmax plus rounding). */
LG_INTERNAL int32_t lgq_round(float x);

/* Symmetric quantization of w laid out as [outer, n_ch, inner] with one scale per channel
   (per tensor: outer 1, n_ch 1): r = max |w| over the channel, scale = r / qmax,
   q = clamp(TfLiteRound(w * (qmax / r)), -qmax, qmax); an all-zero channel gets scale 1 and
   q = 0. The values must be finite. scales[n_ch], q[outer * n_ch * inner]. */
LG_INTERNAL void lgq_symmetric(const float *w, int64_t outer, int64_t n_ch, int64_t inner, int qmax,
                               float *scales, int8_t *q);

/* Blockwise INT4 of a [rows, cols] matrix, blocks of `block` along cols (cols % block == 0):
   per block r = max |w|, scale = r / 7 rounded to bfloat16 then to float16 (as
   ai-edge-quantizer stores it; an all-zero block: 1), q = clamp(TfLiteRound(w * (1 / scale)),
   -8, 7). scales_h[rows * cols / block] are the FLOAT16 bits. */
LG_INTERNAL void lgq_blockwise4(const float *w, int64_t rows, int64_t cols, int64_t block,
                                uint16_t *scales_h, int8_t *q);

/* Pack int4 values (-8..7) two per byte: element 2i in the low nibble of byte i, 2i+1 in the
   high nibble; an odd count leaves the last high nibble 0. out[(n + 1) / 2]. */
LG_INTERNAL void lgq_pack_int4(const int8_t *q, int64_t n, uint8_t *out);

/* float -> FLOAT16 bits as TFLite's QuantizeTensorFloat16: clamped to +-65504 (NaN stays NaN),
   then rounded to nearest even. */
LG_INTERNAL uint16_t lgq_to_half(float f);

/* How a weight is quantized: the stored form and its parameters. */
typedef struct lgq_form {
    lg_dtype type;          /* LG_INT8 or LG_INT4 */
    int32_t axis;           /* quantized dimension; -1: per tensor */
    uint32_t block;         /* INT4 blockwise along the last axis (rank 2 only); 0: affine */
} lgq_form;

/* What storing one weight did. */
typedef struct lgq_result {
    int32_t qtensor;        /* the new INT8/INT4 constant */
    uint32_t n_scales;
    uint64_t bytes;         /* data + scales + zero points as stored */
    double max_abs, max_err;
} lgq_result;

/* Store the float values w (numel of tensor `shape_of`'s shape) as a new constant of form f
   named NAME_int8 / NAME_int4 (with its quantization, and for blockwise the FLOAT16 scales
   tensor NAME_scales). Does not connect it: the caller points a DEQUANTIZE at r->qtensor. */
LG_INTERNAL lg_status lgq_store_weight(lg_model *m, uint32_t sg, int32_t shape_of, const float *w,
                                       const lgq_form *f, lgq_result *r, lg_error *err);

/* ---- int8-dynamic (quant_dynamic.c): the hooks quant.c calls in that mode */

typedef struct lg_graph lg_graph;
/* The weight input of op i and the axis its readers must agree on (as weight_slot). */
LG_INTERNAL bool lgq_dyn_slot(const lg_model *m, const lg_subgraph *sg, uint32_t i, uint32_t *slot, int32_t *axis);
/* Adjust the form f of weight w for its readers (per tensor for BATCH_MATMUL, GATHER,
   EMBEDDING_LOOKUP); true (why filled) when w stays as it is (fewer than 1024 elements). */
LG_INTERNAL bool lgq_dyn_form(const lg_model *m, const lg_graph *g, int32_t w, lgq_form *f, char *why,
                              size_t n_why);
/* Every reader of w runs it as a hybrid op (reads the INT8 constant directly). */
LG_INTERNAL bool lgq_dyn_direct(const lg_model *m, const lg_graph *g, int32_t w, bool per_tensor);
/* Point every reader of w (the copy's op index = src's + shift) at the INT8 constant qtensor;
   FULLY_CONNECTED and BATCH_MATMUL get asymmetric_quantize_inputs. */
LG_INTERNAL lg_status lgq_dyn_connect(lg_model *m, const lg_graph *g, int32_t w, int32_t qtensor, uint32_t shift,
                                      lg_error *err);
/* The report's gpu_note for int8-dynamic. */
extern const char lgq_dyn_gpu_note[];

#endif
