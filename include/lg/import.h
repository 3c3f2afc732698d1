/*
 * litegpu ONNX import: an lg_onnx_model (lg/onnx.h) lowered to a TFLite lg_model.
 *
 *     lg_onnx_model *om;  lg_onnx_read_file("model.onnx", NULL, &om, &err);
 *     lg_import_options io = {0};
 *     io.sha256_hex = "...";                      // digest of the .onnx bytes, from the caller
 *     lg_model *m = NULL; lg_import_report *rep = NULL;
 *     lg_status st = lg_onnx_import(om, &io, &m, &rep, &err);
 *     // rep lists every node's lowering and every unsupported node, even when st fails
 *     lg_import_report_free(rep);
 *
 * The contract (src/import/import.c has the details):
 *  - The .tflite keeps the ONNX graph's inputs and outputs: same order, names, shapes (NCHW
 *    stays NCHW) and dtypes. nhwc_io moves rank-4 float inputs and outputs to NHWC.
 *  - Inside, every value keeps its ONNX layout. Each NHWC-only TFLite op (CONV_2D,
 *    DEPTHWISE_CONV_2D, TRANSPOSE_CONV, pools, RESIZE_*, DEPTH_TO_SPACE, SPACE_TO_DEPTH) is
 *    wrapped in explicit TRANSPOSEs (NCHW -> NHWC before, back after): nothing is guessed from
 *    shapes. lg_optimize then folds constants and cancels inverse transpose pairs.
 *  - Shapes are static: a graph input with a symbolic or unknown dimension needs
 *    input_shapes; every node whose inputs are all constant is evaluated at import time
 *    (Shape/Gather/Concat/... arithmetic), so Reshape, Expand, Slice... get constant shapes.
 *  - int64: constants and shape values become INT32 (values outside the int32 range are
 *    clamped where the consumer clamps anyway, e.g. Slice ends); an INT64 graph input or
 *    output keeps INT64 at the boundary and is cast to INT32 inside (noted in the report).
 *  - Lowerings are exact in fp32 (no approximations); an op or attribute combination that
 *    cannot be lowered exactly is LG_ERR_UNSUPPORTED with one line:
 *      node 3 "conv1" (Conv, domain ai.onnx, opset 17): not supported: ...
 *
 * The library never prints or exits; every failure is an lg_status and one line in err.
 */
#ifndef LG_IMPORT_H
#define LG_IMPORT_H

#include "lg/lg.h"
#include "lg/onnx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A fixed shape for a graph input with dynamic dimensions. */
typedef struct lg_import_shape {
    const char *name;          /* graph input name */
    const int64_t *dims;
    uint32_t rank;
} lg_import_shape;

/* A graph input frozen to a constant value (e.g. Resize scales or a Reshape shape that the
   model takes as an input): it is no longer an input of the .tflite. */
typedef struct lg_import_const {
    const char *name;
    const lg_onnx_tensor *value;
} lg_import_const;

typedef struct lg_import_options {
    const lg_import_shape *input_shapes; uint32_t n_input_shapes;
    const lg_import_const *const_inputs; uint32_t n_const_inputs;
    bool nhwc_io;              /* rank-4 float inputs/outputs in NHWC (default: as in ONNX) */
    bool weights_fp16;         /* float weights stored FLOAT16 + DEQUANTIZE */
    const char *sha256_hex;    /* digest of the ONNX bytes, recorded in the metadata (or NULL) */
    bool no_optimize;          /* skip lg_optimize (tests of the raw lowering) */
    bool prove;                /* lg_optimize proves each pass's parity (slower) */
} lg_import_options;

typedef struct lg_import_node {
    char *name, *op_type, *domain;
    int64_t opset;
    bool supported;            /* false: the op (or this use of it) cannot be lowered */
    char *lowering;            /* "Conv -> TRANSPOSE + CONV_2D + TRANSPOSE", or the reason */
} lg_import_node;

typedef struct lg_import_report {
    lg_import_node *nodes; uint32_t n_nodes;   /* one per ONNX node, in graph order */
    uint32_t n_unsupported;
    char **notes; uint32_t n_notes;            /* int64 narrowing, I/O layout, folding */
    int64_t opset;                             /* the model's ai.onnx opset */
} lg_import_report;

/* Lower om to a TFLite model. On success *out is the model (lg_model_free). rep (may be
   NULL) receives the report on success and on failure alike (NULL only when out of memory).
   Returns LG_OK, LG_ERR_UNSUPPORTED (an op, dtype or attribute we do not lower: the message
   names the node; the report lists all), LG_ERR_INVALID_ARG (bad options: a dynamic dim with
   no input shape, an input shape naming no input), LG_ERR_FORMAT (a malformed graph: wrong
   input counts, shapes that contradict), LG_ERR_NOMEM. */
lg_status lg_onnx_import(const lg_onnx_model *om, const lg_import_options *opt, lg_model **out,
                         lg_import_report **rep, lg_error *err);

void lg_import_report_free(lg_import_report *r);

/* The ONNX op types the importer lowers (ai.onnx domain), with the opsets it reads them at:
   up to max entries into out, merged per op type, in name order; returns how many. The
   forms refused inside a claimed op (DOUBLE/FLOAT16 tensors, parameters computed at run time,
   training forms) are listed in the README. */
#define LG_ONNX_MAX_OPSET 21
typedef struct lg_onnx_claim {
    const char *op_type;   /* static */
    int min_opset, max_opset;
} lg_onnx_claim;
uint32_t lg_onnx_claimed_ops(lg_onnx_claim *out, uint32_t max);

#ifdef __cplusplus
}
#endif
#endif
