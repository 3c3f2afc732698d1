/* Internal to the rule-model library (tests/models/rule_models*.c): the helpers and data the
   two parts share. Not for the tests; they include rule_models.h only. */
#ifndef LG_TESTS_RULE_MODELS_IMPL_H
#define LG_TESTS_RULE_MODELS_IMPL_H
#include <stdbool.h>
#include <stdint.h>

#include "lg/lg.h"
#include "rule_models.h"

extern float lgm_i_wf[LGM_RAMP_N];        /* lgm_ramp_f32's ramp (filled by lgm_build) */
extern const int32_t lgm_i_pad4_hw[8];    /* paddings [4,2]: 1 before and after H and W */
extern const int32_t lgm_i_idx02[2];      /* indices {0, 2} */

/* CONV_2D options: SAME, stride 1, dilation 1, the fused activation act. */
lg_conv2d_options lgm_i_conv_opts(int act);
lg_reducer_options lgm_i_keep_dims(bool keep);
/* A binary elementwise op with its options table (activation NONE), as converters write it. */
int32_t lgm_i_binop(lg_builder *b, int32_t code, int32_t x, int32_t y, int32_t out);
/* One unary op (builtin, 1 input, 1 output) on x[shape] of type dt, as the whole graph. */
void lgm_i_unary(lg_builder *b, int32_t builtin, int32_t version, lg_dtype dt, lg_dims shape);
/* Sets per-tensor (n 1) or per-channel quantization; a failure fails the builder. */
void lgm_i_quant(lg_builder *b, int t, const float *scale, uint32_t n, int32_t dim);
/* The op's input/output of type dt, through a CAST from/to float32 graph I/O when io is
   LGM_IO_LITERT and dt is neither float32 nor int32 (see rule_models.c). */
int lgm_i_typed_input(lg_builder *b, lgm_io io, const char *name, lg_dtype dt, lg_dims shape, int *graph_in);
int lgm_i_typed_output(lg_builder *b, lgm_io io, const char *name, lg_dtype dt, lg_dims shape, int *graph_out);
int lgm_i_typed_output_end(lg_builder *b, const char *name, int h, int graph_out, lg_dims shape);
/* x[1,8,8,4] -> RELU -> GATHER on channels with idx[n] (constant, or a runtime input). */
void lgm_i_gather_channels(lg_builder *b, const int32_t *idx, int n, int runtime);
/* x[1,8,8,4] -> TRANSPOSE_CONV 2x2 VALID stride 2 -> [1,16,16,4] (v1, v3 bias, v4 act). */
void lgm_i_transpose_conv(lg_builder *b, int act, int with_bias);
#endif
