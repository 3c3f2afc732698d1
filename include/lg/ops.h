/*
 * litegpu: the op table. One entry per builtin operator of the schema (and per custom op
 * litegpu knows), holding everything the rest of the library needs to know about an op
 * apart from its kernels and its GPU rules:
 *
 *   name, family, options kind, input/output arity (min/max, optional inputs), the dtype
 *   rule of its outputs and a shape-inference function that works on the IR.
 *
 * The validator (lg_model_validate_ops), the interpreter (which checks every kernel's
 * prepared output shapes against lg_op_infer), check (arity, options), the passes and the
 * importers all read this one table, so they cannot drift.
 *
 * Shapes in inference are lg_shape values: rank -1 means "rank unknown"; a dimension -1
 * means "unknown or dynamic" (shape_signature -1, or computed from a tensor whose value is
 * only known at run time). Inference never guesses: when an input it needs is not constant
 * (RESHAPE's shape, STRIDED_SLICE's begin, PAD's paddings...), the affected dimensions are
 * -1. An unknown dimension agrees with any stored dimension.
 *
 * Example: the inferred shapes of every tensor of subgraph 0.
 *
 *     lg_shape *s = calloc(m->subgraphs[0].n_tensors, sizeof *s);
 *     if (lg_model_infer_shapes(m, 0, LG_INFER_STATIC, s, &err) != LG_OK) ...err.msg...
 *
 * Conventions as in lg/lg.h: every fallible function returns lg_status and fills an
 * optional lg_error; nothing prints, nothing exits.
 */
#ifndef LG_OPS_H
#define LG_OPS_H

#include "lg/lg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- shapes */

typedef struct lg_shape {
    int32_t rank;                 /* -1: unknown rank */
    int32_t dim[LG_MAX_RANK];     /* -1: unknown dimension */
} lg_shape;

/* The shape of a tensor as stored: shape, with shape_signature's -1 dimensions as -1 when
   signature is true; rank -1 when the tensor has no rank (has_rank false and rank 0, the
   schema's "unknown rank") or a rank above LG_MAX_RANK. */
lg_shape lg_shape_of_tensor(const lg_tensor *t, bool signature);
/* Number of elements, or -1 when a dimension or the rank is unknown (or it overflows). */
int64_t lg_shape_numel(const lg_shape *s);
/* 1 if every dimension is known. */
bool lg_shape_is_static(const lg_shape *s);
/* "[1,8,8,?]" ("[?]" for an unknown rank) into buf; returns buf. */
const char *lg_shape_str(const lg_shape *s, char *buf, size_t size);
/* 1 when a and b can describe the same tensor: same rank (or either unknown) and every
   dimension equal where both are known. */
bool lg_shape_compatible(const lg_shape *a, const lg_shape *b);

/* The one broadcast rule of the tree (numpy/TFLite): shapes aligned at the last dimension,
   each pair equal or one of them 1. An unknown dimension against 1 or an unknown gives -1;
   against a known d > 1 gives d. Returns LG_ERR_INVALID_ARG (with "dimension k: A vs B" in
   err) when they cannot broadcast. */
lg_status lg_broadcast(const lg_shape *a, const lg_shape *b, lg_shape *out, lg_error *err);

/* The values of a constant integer tensor (INT8/16/32/64, UINT8/16/32, BOOL), widened: true
   when t has dense constant data of the size its shape says and at most max values. The one
   reader of constant shape/axes/permutation tensors for the layers above (passes, import). */
bool lg_tensor_const_ints(const lg_model *m, const lg_tensor *t, int64_t *out, uint32_t max,
                          uint32_t *n);

/* ---------------------------------------------------------------- the table */

typedef enum lg_op_family {
    LG_FAM_OTHER = 0,
    LG_FAM_ELEMENTWISE,   /* unary/binary arithmetic, activations, comparisons, logic, casts */
    LG_FAM_CONV,          /* conv, depthwise, transposed conv, fully connected, matmul */
    LG_FAM_POOL,          /* pooling */
    LG_FAM_REDUCE,        /* reductions, arg-min/max, cumulative ops */
    LG_FAM_NORM,          /* softmax, L2 norm, LRN */
    LG_FAM_SHAPE,         /* reshape, transpose, slicing, concat, pad, tile, gather... */
    LG_FAM_RESIZE,        /* resize, depth/space rearrangements */
    LG_FAM_QUANT,         /* quantize, dequantize, densify */
    LG_FAM_RNN,           /* LSTM, RNN, SVDF and their sequence forms */
    LG_FAM_CONTROL,       /* CALL, IF, WHILE, CALL_ONCE, variables, hash tables */
    LG_FAM_STABLEHLO,     /* STABLEHLO_* */
    LG_FAM_CUSTOM,        /* custom ops */
    LG_FAM_COUNT
} lg_op_family;

const char *lg_op_family_name(lg_op_family f);

/* How an op's output types follow from its inputs and options. */
typedef enum lg_dtype_rule {
    LG_DT_ANY = 0,        /* not inferred (the stored type is kept) */
    LG_DT_SAME,           /* every output has input 0's type */
    LG_DT_BOOL,           /* outputs are BOOL (comparisons, logical ops) */
    LG_DT_FLOAT,          /* outputs are float (FLOAT32 or FLOAT16; DEQUANTIZE) */
    LG_DT_BY_INFER        /* the infer function sets the types (CAST, ARG_MAX, SHAPE...) */
} lg_dtype_rule;

/* Op property flags. */
enum {
    LG_OPF_ELEMENTWISE = 1u << 0,  /* output[i] depends on input[i] only (layout-agnostic) */
    LG_OPF_BROADCAST   = 1u << 1,  /* binary with numpy broadcasting */
    LG_OPF_FUSED_ACT   = 1u << 2,  /* options carry a fused_activation_function */
    LG_OPF_NHWC        = 1u << 3,  /* the op's semantics assume NHWC (conv, pools, resize...) */
    LG_OPF_STATEFUL    = 1u << 4,  /* reads or writes variables, or has side effects */
    LG_OPF_DYNAMIC     = 1u << 5,  /* output shape depends on input values (WHERE, UNIQUE...) */
    LG_OPF_RANDOM      = 1u << 6,  /* output depends on an RNG: never folded */
    LG_OPF_SUBGRAPHS   = 1u << 7   /* calls other subgraphs (CALL, IF, WHILE...) */
};

/* One input or output of an op during inference. */
typedef struct lg_infer_arg {
    lg_shape shape;
    int8_t type;            /* lg_dtype; -1 for an absent optional input */
    const void *data;       /* constant data as stored (little-endian), or NULL */
    uint64_t nbytes;
} lg_infer_arg;

/* What an infer function sees. It sets out[i].rank/dim for every output (and out_type[i]
   when the table says LG_DT_BY_INFER); an output it cannot know stays rank -1. */
typedef struct lg_infer_ctx {
    const lg_model *m;
    const lg_op *op;        /* may be NULL when inferring for an op not yet in a model */
    int32_t code;           /* builtin code */
    const char *name;       /* builtin name or custom code, for messages */
    const void *opts;       /* never NULL: the op's options, or the schema's defaults */
    const lg_infer_arg *in;
    uint32_t n_in;
    lg_shape *out;
    int8_t *out_type;       /* -1 = not inferred */
    uint32_t n_out;
    lg_error *err;
} lg_infer_ctx;

typedef lg_status (*lg_infer_fn)(lg_infer_ctx *c);

#define LG_ARITY_ANY 255    /* max_in / max_out: any number */

typedef struct lg_op_info {
    const char *name;        /* "CONV_2D", or the custom code; NULL: no entry */
    int32_t code;            /* builtin code (LG_OP_CUSTOM for custom ops) */
    lg_op_family family;
    lg_opts_kind opts_kind;  /* the options table the op takes; LG_OPTS_NONE if none */
    uint8_t min_in, max_in;  /* inputs, counting absent optional ones (-1) */
    uint8_t min_out, max_out;
    uint32_t optional_in;    /* bit i: input i may be -1 (absent) */
    lg_dtype_rule dtype;
    uint32_t flags;          /* LG_OPF_* */
    lg_infer_fn infer;       /* NULL: outputs unknown (the stored shapes are kept) */
} lg_op_info;

/* The entry for a builtin code, or NULL when out of range. Every builtin of the schema has
   an entry (name non-NULL). */
const lg_op_info *lg_op_info_builtin(int32_t code);
/* The entry for a custom op litegpu knows ("Convolution2DTransposeBias"...), or NULL. */
const lg_op_info *lg_op_info_custom(const char *custom_code);
/* The entry for an op of a model (builtin or known custom), or NULL. */
const lg_op_info *lg_op_info_of(const lg_model *m, const lg_op *op);
/* Number of custom-op entries, and the i-th (for listings). */
uint32_t lg_op_custom_count(void);
const lg_op_info *lg_op_custom_at(uint32_t i);

/* ---------------------------------------------------------------- inference */

/* Infer the output shapes (and types) of op `op` of subgraph `sg`. in_shapes (may be NULL)
   overrides the input shapes, indexed by input slot (e.g. shapes inferred upstream);
   otherwise the stored shapes are used (with their signature's dynamic dimensions when
   flags has LG_INFER_SIGNATURE). out/out_type have room for max_out outputs. An op with no
   table entry or no infer function gives rank -1 outputs and LG_OK. A contradiction in the
   inputs themselves (ADD of [4] and [5], a RESHAPE to 7 elements from 8) is
   LG_ERR_INVALID_ARG with a message naming the op. */
enum { LG_INFER_STATIC = 0, LG_INFER_SIGNATURE = 1 };
lg_status lg_op_infer(const lg_model *m, uint32_t sg, uint32_t op, const lg_shape *in_shapes,
                      int flags, lg_shape *out, int8_t *out_type, uint32_t max_out,
                      lg_error *err);

/* Infer every tensor of a subgraph in op order, starting from the graph inputs' and the
   constants' stored shapes (signature dimensions when flags has LG_INFER_SIGNATURE).
   shapes has n_tensors entries; tensors no op produces keep their stored shape. */
lg_status lg_model_infer_shapes(const lg_model *m, uint32_t sg, int flags, lg_shape *shapes,
                                lg_error *err);

/* Op-level validation, on top of lg_model_validate's structure: every op's options kind is
   the one its table entry names (or none), its input/output counts are within the arity,
   absent inputs only where optional, and every stored output shape agrees with inference
   (LG_ERR_INVALID_ARG, one line naming the op, the tensor and both shapes). The readers run
   it on every file and the writers before writing. */
lg_status lg_model_validate_ops(const lg_model *m, lg_error *err);

#ifdef __cplusplus
}
#endif
#endif
