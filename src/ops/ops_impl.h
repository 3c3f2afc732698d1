/* Internal to src/ops: how the op table is written and what infer functions share.
 *
 * The table is split by family into .def files (elementwise.def, shape.def, conv.def,
 * misc.def), each a list of rows
 *
 *   OPD(NAME, FAMILY, OPTS, MIN_IN, MAX_IN, MIN_OUT, MAX_OUT, OPTIONAL_IN, DTYPE, FLAGS, INFER)
 *
 *   NAME      the LG_OP_ suffix (ADD)               FAMILY  the LG_FAM_ suffix (ELEMENTWISE)
 *   OPTS      the LG_OPTS_ suffix (ADD_OPTIONS, or NONE)
 *   MIN_IN..  arity; LG_ARITY_ANY for "any number"  OPTIONAL_IN  bit mask of optional inputs
 *   DTYPE     the LG_DT_ suffix (SAME)              FLAGS   LG_OPF_* or 0
 *   INFER     an infer function declared in the family's infer_*.h, or NOINFER
 *
 * and custom ops, in custom.def:
 *
 *   OPC("Convolution2DTransposeBias", FAMILY, MIN_IN, MAX_IN, MIN_OUT, MAX_OUT, OPTIONAL_IN,
 *       DTYPE, FLAGS, INFER)
 *
 * op_table.c includes them all into one array indexed by builtin code; a builtin listed twice
 * is a compile error (-Woverride-init under -Wextra -Werror), the array size is
 * _Static_assert'ed, and a unit test checks that every builtin has an entry.
 *
 * Infer functions: `lg_status f(lg_infer_ctx *c)`. c->opts is never NULL (defaults are
 * filled in when the op stored none). Set every c->out[i] (rank -1 = unknown). Read constant
 * inputs with lgo_const_ints / lgo_const_f32; when an input is not constant, the dimensions
 * it decides are -1 (never guess). Report contradictions with lgo_fail (LG_ERR_INVALID_ARG).
 */
#ifndef LGI_OPS_IMPL_H
#define LGI_OPS_IMPL_H

#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "lg/ops.h"

#define NOINFER NULL

/* "op 12 (CONV_2D): <what>" into c->err, LG_ERR_INVALID_ARG. The op index comes from c->op's
   position in its subgraph when known. */
LG_INTERNAL lg_status lgo_fail(const lg_infer_ctx *c, const char *fmt, ...) LGI_PRINTF(2, 3);

/* The shape [d0, d1, ...] of rank r. */
LG_INTERNAL lg_shape lgo_shape(int32_t rank, const int32_t *dims);
/* A shape of unknown rank. */
static inline lg_shape lgo_unknown(void) {
    lg_shape s;
    memset(&s, 0, sizeof s);
    s.rank = -1;
    return s;
}
/* A shape of known rank r with every dimension unknown. */
LG_INTERNAL lg_shape lgo_unknown_dims(int32_t rank);
/* Every output unknown (rank -1). */
LG_INTERNAL void lgo_all_unknown(lg_infer_ctx *c);

/* Is input i present (not an absent optional input, and within n_in)? */
static inline bool lgo_has(const lg_infer_ctx *c, uint32_t i) {
    return i < c->n_in && c->in[i].type >= 0;
}

/* Integer values of constant input i (INT32, INT64, INT16, INT8, UINT8, UINT16, UINT32, BOOL):
   returns 1 and fills out[0..*count) when the input is constant and has at most max values;
   0 when it is not constant (or absent). A constant of another type or with more than max
   values is an error through *st (st may be NULL: then it is reported as "not constant"). */
LG_INTERNAL int lgo_const_ints(const lg_infer_ctx *c, uint32_t i, int64_t *out, uint32_t max,
                               uint32_t *count, lg_status *st);
/* One integer scalar (or 1-element tensor). Same return convention. */
LG_INTERNAL int lgo_const_int(const lg_infer_ctx *c, uint32_t i, int64_t *v, lg_status *st);
/* Float values of constant input i (FLOAT32, FLOAT16): same convention. */
LG_INTERNAL int lgo_const_f32(const lg_infer_ctx *c, uint32_t i, float *out, uint32_t max,
                              uint32_t *count, lg_status *st);

/* Normalise an axis in [-rank, rank) to [0, rank); LG_ERR_INVALID_ARG through lgo_fail when
   it is out of range. */
LG_INTERNAL lg_status lgo_axis(const lg_infer_ctx *c, int64_t axis, int32_t rank, int32_t *out);

/* Output size of a conv/pool window along one dimension (TFLite's ComputeOutSize):
   SAME: ceil(in / stride); VALID: ceil((in - (k - 1) * dilation) / stride), 0 if negative.
   -1 when in is unknown. padding is LG_PADDING_SAME / LG_PADDING_VALID. */
LG_INTERNAL int32_t lgo_window_out(int32_t in, int32_t k, int32_t stride, int32_t dilation,
                                   int padding);

/* lg_broadcast with the error naming the op. */
LG_INTERNAL lg_status lgo_broadcast(const lg_infer_ctx *c, const lg_shape *a, const lg_shape *b,
                                    lg_shape *out);

/* Output c->out[o] = input i's shape (and its type when out_type is inferred). */
LG_INTERNAL void lgo_same_shape(lg_infer_ctx *c, uint32_t o, uint32_t i);

#endif
