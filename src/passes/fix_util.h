/* Internal to src/passes: what the `fix` passes of fix_conv.c and fix_pool.c share.
 *
 * A rewrite there replaces one op by a short chain of new ops: the new tensors and
 * constants are named after a tensor of the op ("<name>/<suffix>"), the new ops are
 * appended with the version TFLite's converter would give them (check/op_version.c) and
 * the last one writes the replaced op's own output tensor (so the model's interface keeps
 * its tensors and names); lgf_done then removes the old op and sorts the subgraph. */
#ifndef LGI_PASSES_FIX_UTIL_H
#define LGI_PASSES_FIX_UTIL_H

#include "passes/passes_impl.h"

/* A new runtime tensor "<name of like>/<suffix>" of the given type and shape, with like's
   per-tensor quantization when it has one. */
LG_INTERNAL lg_status lgf_tensor(lg_pass_ctx *c, int32_t like, const char *suffix, lg_dtype type,
                                 const int32_t *shape, uint32_t rank, int32_t *out);
/* The same with like's type. */
LG_INTERNAL lg_status lgf_tensor_like(lg_pass_ctx *c, int32_t like, const char *suffix,
                                      const int32_t *shape, uint32_t rank, int32_t *out);
/* A new constant "<name of like>/<suffix>" holding a copy of data. */
LG_INTERNAL lg_status lgf_const(lg_pass_ctx *c, int32_t like, const char *suffix, lg_dtype type,
                                const int32_t *shape, uint32_t rank, const void *data,
                                uint64_t nbytes, int32_t *out);
/* A 1-D INT32 constant of n values. */
LG_INTERNAL lg_status lgf_const_i32(lg_pass_ctx *c, int32_t like, const char *suffix,
                                    const int32_t *v, uint32_t n, int32_t *out);
/* A FLOAT32 scalar constant (shape [1]). */
LG_INTERNAL lg_status lgf_const_scalar(lg_pass_ctx *c, int32_t like, const char *suffix, float v,
                                       int32_t *out);

/* Append an op: options opts of the kind the op table gives code (NULL: no options table),
   then its version set to the one op_version.c computes for it. Counts it in ops_added. */
LG_INTERNAL lg_status lgf_op(lg_pass_ctx *c, int32_t code, const int32_t *in, uint32_t n_in,
                             const int32_t *out, uint32_t n_out, const void *opts);
/* Point op at the opcode of its builtin with the version op_version.c computes for it now. */
LG_INTERNAL lg_status lgf_set_version(lg_pass_ctx *c, uint32_t op);
/* The rewrite of op is complete: remove it, sort the subgraph, count one application. */
LG_INTERNAL lg_status lgf_done(lg_pass_ctx *c, uint32_t op);

/* The standalone op computing fused activation act (RELU 1 -> RELU, RELU_N1_TO_1 2 ->
   RELU_N1_TO_1, RELU6 3 -> RELU6, TANH 4 -> TANH), or -1 (NONE, SIGN_BIT, unknown). */
LG_INTERNAL int32_t lgf_act_op(int act);
/* The fused activation stored in an op whose options carry one (the op table's
   LG_OPF_FUSED_ACT ops); 0 (NONE) when it has no such options table. */
LG_INTERNAL int lgf_fused_act(const lg_pass_ctx *c, uint32_t op);

/* A float tensor of the model: FLOAT32 or FLOAT16, without quantization. */
LG_INTERNAL bool lgf_is_float(const lg_pass_ctx *c, int32_t t);
/* Every dimension of t known (static, no -1 in its signature). */
LG_INTERNAL bool lgf_static(const lg_pass_ctx *c, int32_t t);

/* Constant float data: t is a FLOAT32 or FLOAT16 constant (unquantized, dense), or the
   output of a DEQUANTIZE of a FLOAT16 constant (the delegates fold it: fp16 weights). On
   true *data (malloc'ed, numel floats; free it) and *fp16 (the weights are stored as halves). */
LG_INTERNAL bool lgf_const_floats(const lg_pass_ctx *c, const lg_graph *g, int32_t t, float **data,
                                  bool *fp16);
/* A new constant weights tensor of shape holding data: FLOAT32, or (fp16) a FLOAT16 constant
   and a DEQUANTIZE to a new FLOAT32 tensor, the form the delegates fold. *out is the float
   tensor an op reads. */
LG_INTERNAL lg_status lgf_weights(lg_pass_ctx *c, int32_t like, const char *suffix,
                                  const int32_t *shape, uint32_t rank, const float *data, bool fp16,
                                  int32_t *out);

/* Op `op` evaluated by litegpu's fp32 interpreter on constant inputs: input slot `slot` is
   given the FLOAT32 values x (the shape of that input), every other input must be a
   constant (false otherwise). On true *y is output 0 as floats (malloc'ed; free it) and *n
   its element count. */
LG_INTERNAL bool lgf_eval_op(const lg_pass_ctx *c, uint32_t op, uint32_t slot, const float *x,
                             float **y, int64_t *n);

#endif
