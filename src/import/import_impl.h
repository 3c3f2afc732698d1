/* Internal to src/import: the lowering context every ONNX op lowering works through.
 *
 * A value (an ONNX tensor name) maps to one TFLite tensor of subgraph 0 holding it in the
 * ONNX layout (NCHW stays NCHW), with its ONNX dtype (INT64 values are INT32 tensors inside).
 * Every op is added through li_op(): its output shapes come from the op table's inference
 * (lg_op_infer), and an op whose inputs are all constant is evaluated at once by the
 * fold-constants pass, so shape arithmetic ends as constants. Errors are sticky: the first
 * one is kept in c->st / c->err and later calls return -1. */
#ifndef LGI_IMPORT_IMPL_H
#define LGI_IMPORT_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "lg/import.h"
#include "lg/onnx.h"
#include "lg/ops.h"

typedef struct li_val {
    lg_onnx_str name;
    int32_t t;          /* TFLite tensor */
    int32_t onnx_type;  /* lg_onnx_dtype */
} li_val;

typedef struct li_ctx {
    const lg_onnx_model *om;
    const lg_onnx_graph *g;
    const lg_import_options *opt;
    lg_model *m;
    int64_t opset;
    /* values: open addressing on the name */
    li_val *vals; uint32_t cap_vals, n_vals;
    uint32_t *uses;          /* per node output: how many node inputs read it (by value slot) */
    /* the node being lowered */
    const lg_onnx_node *node;
    uint32_t node_index;
    bool *skip;              /* nodes folded into an earlier lowering (BN into conv, GELU) */
    char lowering[256];
    uint32_t n_emitted, n_folded;
    /* notes */
    uint32_t n_int64_narrowed, n_int64_clamped;
    lg_import_report *rep;
    lg_status st;
    lg_error *err;
    uint32_t name_seq;
} li_ctx;

/* ---- errors */
/* Fail the current node: "not supported: <why>" (LG_ERR_UNSUPPORTED). Returns the status. */
LG_INTERNAL lg_status li_unsupported(li_ctx *c, const char *fmt, ...) LGI_PRINTF(2, 3);
/* Fail the current node with st (a malformed graph: LG_ERR_FORMAT). */
LG_INTERNAL lg_status li_bad(li_ctx *c, lg_status st, const char *fmt, ...) LGI_PRINTF(3, 4);
#define LI_OK(c) ((c)->st == LG_OK)
#define LI_TRY(c) do { if ((c)->st != LG_OK) return (c)->st; } while (0)

/* ---- values */
LG_INTERNAL li_val *li_find(li_ctx *c, lg_onnx_str name);
LG_INTERNAL lg_status li_bind(li_ctx *c, lg_onnx_str name, int32_t t, int32_t onnx_type);
/* Input k of the current node, or NULL when absent (k past the end or the empty name). */
LG_INTERNAL const li_val *li_in(li_ctx *c, uint32_t k);
/* Input k, required: fails the node when absent. */
LG_INTERNAL const li_val *li_need(li_ctx *c, uint32_t k);
/* Bind output k of the current node (no-op when the node has no output k or it is ""). */
LG_INTERNAL lg_status li_out(li_ctx *c, uint32_t k, int32_t t, int32_t onnx_type);
LG_INTERNAL bool li_has_out(li_ctx *c, uint32_t k);

/* ---- tensors */
LG_INTERNAL lg_tensor *li_t(li_ctx *c, int32_t t);
LG_INTERNAL lg_shape li_shape(li_ctx *c, int32_t t);
LG_INTERNAL int li_rank(li_ctx *c, int32_t t);
LG_INTERNAL int32_t li_dim(li_ctx *c, int32_t t, int d);
LG_INTERNAL lg_dtype li_type(li_ctx *c, int32_t t);
LG_INTERNAL bool li_is_const(li_ctx *c, int32_t t);
/* Constant values of t as int64 (INT32/INT64/other int constants); false if not constant. */
LG_INTERNAL bool li_const_ints(li_ctx *c, int32_t t, int64_t *out, uint32_t max, uint32_t *n);
/* Constant float data (FLOAT32) of t, numel floats; NULL if not a float constant. */
LG_INTERNAL const float *li_const_f32(li_ctx *c, int32_t t);
/* The ONNX dtype's type inside (INT64 -> INT32); -1 if not supported. */
LG_INTERNAL int li_tfl_type(int32_t onnx_type);
/* ONNX dtype for a TFLite type used inside (INT32 -> INT32). */
LG_INTERNAL int32_t li_onnx_type_of(lg_dtype t);

/* ---- constants */
LG_INTERNAL int32_t li_konst(li_ctx *c, lg_dtype type, const int64_t *dims, uint32_t rank,
                             const void *data, uint64_t nbytes);
LG_INTERNAL int32_t li_kf32(li_ctx *c, const int64_t *dims, uint32_t rank, const float *data);
LG_INTERNAL int32_t li_kf(li_ctx *c, float v);                     /* scalar float */
LG_INTERNAL int32_t li_ki32(li_ctx *c, const int64_t *v, uint32_t n); /* 1-D INT32 */
LG_INTERNAL int32_t li_ki(li_ctx *c, int64_t v);                   /* scalar int32 */
/* A scalar of t's type holding v (float or int). */
LG_INTERNAL int32_t li_kscalar_like(li_ctx *c, int32_t t, double v);

/* ---- ops: output shape inferred; folded at once when every input is constant */
LG_INTERNAL int32_t li_op(li_ctx *c, int32_t code, const int32_t *ins, uint32_t n_in,
                          const void *opts, int out_type);
LG_INTERNAL lg_status li_op_n(li_ctx *c, int32_t code, const int32_t *ins, uint32_t n_in,
                              const void *opts, const int *out_types, int32_t *outs,
                              uint32_t n_out);
#define LI_OP(c, code, opts, type, ...) \
    li_op(c, code, (const int32_t[]){__VA_ARGS__}, \
          (uint32_t)(sizeof((const int32_t[]){__VA_ARGS__}) / sizeof(int32_t)), opts, type)
LG_INTERNAL int32_t li_unary(li_ctx *c, int32_t code, int32_t x);
LG_INTERNAL int32_t li_binary(li_ctx *c, int32_t code, int32_t a, int32_t b);
LG_INTERNAL int32_t li_transpose(li_ctx *c, int32_t x, const int *perm, int rank);
LG_INTERNAL int32_t li_reshape(li_ctx *c, int32_t x, const int64_t *dims, uint32_t rank);
LG_INTERNAL int32_t li_cast(li_ctx *c, int32_t x, lg_dtype to);
/* NCHW-family <-> NHWC-family for rank r (channels at 1 <-> last). */
LG_INTERNAL int32_t li_to_nhwc(li_ctx *c, int32_t x);
LG_INTERNAL int32_t li_to_nchw(li_ctx *c, int32_t x);
/* STRIDED_SLICE with explicit begin/end/strides per dim (end_mask bits for "to the end"). */
LG_INTERNAL int32_t li_slice(li_ctx *c, int32_t x, const int64_t *b, const int64_t *e,
                             const int64_t *s, int32_t end_mask);

/* ---- attributes */
LG_INTERNAL const lg_onnx_attr *li_attr(const lg_onnx_node *n, const char *name);
LG_INTERNAL int64_t li_attr_i(const lg_onnx_node *n, const char *name, int64_t def);
LG_INTERNAL float li_attr_f(const lg_onnx_node *n, const char *name, float def);
/* ints attribute into out (max), count, or -1 when absent */
LG_INTERNAL int li_attr_ints(const lg_onnx_node *n, const char *name, int64_t *out, uint32_t max);
LG_INTERNAL int li_attr_floats(const lg_onnx_node *n, const char *name, float *out, uint32_t max);
/* string attribute equals s (def when absent) */
LG_INTERNAL bool li_attr_is(const lg_onnx_node *n, const char *name, const char *s, const char *def);
/* An ONNX tensor made a TFLite constant (INT64 -> INT32 saturating, noted). */
LG_INTERNAL lg_status li_tensor_const(li_ctx *c, const lg_onnx_tensor *ot, int32_t *out, int32_t *onnx_type);

/* ---- the op table */
typedef lg_status (*li_lower_fn)(li_ctx *c);
typedef struct li_op_entry {
    const char *op_type;
    int min_opset, max_opset;
    li_lower_fn fn;
} li_op_entry;
LG_INTERNAL const li_op_entry *li_find_op(const char *op_type, uint32_t n, int64_t opset);
/* Family tables (NULL-terminated) */
extern const li_op_entry li_ops_elementwise[];
extern const li_op_entry li_ops_conv[];
extern const li_op_entry li_ops_shape[];
extern const li_op_entry li_ops_reduce[];
extern const li_op_entry li_ops_resize[];
extern const li_op_entry li_ops_index[];
extern const li_op_entry li_ops_grid[];
extern const li_op_entry li_ops_einsum[];
extern const li_op_entry li_ops_gather[];
extern const li_op_entry li_ops_scatter[];

LG_INTERNAL int64_t li_norm_axis(int64_t a, int rank);
LG_INTERNAL void li_note(li_ctx *c, const char *fmt, ...) LGI_PRINTF(2, 3);

/* erf(x) exact to fp32 (a rational polynomial, the one XLA and Eigen use) */
LG_INTERNAL int32_t li_erf(li_ctx *c, int32_t x);
/* erf-GELU pattern starting at node i (Div/Mul by sqrt 2 ... Mul 0.5): fused, or false */
LG_INTERNAL bool li_try_gelu(li_ctx *c, uint32_t i);

/* ---- element indexing (lower_gather.c, shared with lower_scatter.c) */
/* row-major strides (in elements) of s */
LG_INTERNAL void li_strides(const lg_shape *s, int64_t *st);
/* every value of the constant integer tensor t (malloc'd, *n of them); NULL when t is not
   constant (no error) or on an error */
LG_INTERNAL int64_t *li_const_ints_all(li_ctx *c, int32_t t, uint32_t *n);
/* v counted from the end when negative (ONNX); outside [-dim, dim): a format error naming
   indices element `at` */
LG_INTERNAL bool li_norm_index(li_ctx *c, int64_t v, int64_t dim, int64_t at, int64_t *out);
/* x reshaped to 1-D */
LG_INTERNAL int32_t li_flatten(li_ctx *c, int32_t x);
/* a 1-D INT32 constant of n values (any length, unlike li_ki32) */
LG_INTERNAL int32_t li_ki32_n(li_ctx *c, const int64_t *v, int64_t n);
/* GATHER(x, pos, axis 0) */
LG_INTERNAL int32_t li_gather0(li_ctx *c, int32_t x, int32_t pos);
/* GatherElements/ScatterElements: data and indices of one rank r >= 1, the indices no larger
   than the data off the axis, the data's positions fitting INT32; the normalized axis
   attribute, or -1 (the node failed) */
LG_INTERNAL int li_elements_axis(li_ctx *c, int32_t x, int32_t idx);
/* for every element of the indices shape is (row-major), its offset in the data of shape xs
   with the axis coordinate zero: sum over d != axis of coordinate_d * stride_d (malloc'd) */
LG_INTERNAL int64_t *li_element_base(li_ctx *c, const lg_shape *xs, const lg_shape *is, int axis);

/* The one node reading value v (after node from), or -1 (none, several, or a graph output). */
LG_INTERNAL int32_t li_sole_consumer(li_ctx *c, lg_onnx_str v, uint32_t from);

#endif
