/* The operator version TFLite's converter assigns to an op from its properties.
 *
 * This mirrors GetBuiltinOperatorVersion() of LiteRT's
 * tflite/converter/tools/versioning/op_version.cc (the converter runs it on the finished
 * flatbuffer through UpdateOpVersion), fed with the OpSignature that op_signature.cc builds
 * from a flatbuffer operator: input/output types and shapes, the parsed builtin options and
 * a few "ext options" (per-channel quantization, grouped convolution, sparse weights...).
 * See op_version.c for the exact source commit and for every place where we had to decide
 * something the C++ code leaves to chance (out-of-range .at(), a null options pointer).
 *
 * The checker compares this version (and the one stored in the file) with each GPU
 * delegate's CheckMaxSupportedOpVersion limit. */
#ifndef LGI_CHECK_OP_VERSION_H
#define LGI_CHECK_OP_VERSION_H
#include <stddef.h>
#include "internal.h"

/* The version TFLite's converter would assign to op (>= 1). Custom ops and ops whose
   opcode index is bad give 1 (the converter leaves custom ops alone). */
LG_INTERNAL int lgi_op_version(const lg_model *m, const lg_subgraph *sg, const lg_op *op);

/* Same, and writes a short reason into buf (n bytes, always NUL-terminated when n > 0;
   buf may be NULL when n is 0), e.g. "version 4: fused activation RELU" or
   "version 9: FLOAT16 input". Returns the version. */
LG_INTERNAL int lgi_op_version_reason(const lg_model *m, const lg_subgraph *sg, const lg_op *op,
                                      char *buf, size_t n);

#endif
