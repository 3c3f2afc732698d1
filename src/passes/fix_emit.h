/* Internal to the `fix` passes (src/passes/fix_*.c): what their rewrites are built from.
 *
 * A rewrite appends its new ops at the end of the subgraph (fx_op) and calls fx_done once,
 * which removes the op it replaces (if any), sorts the subgraph back into dependency order
 * (lg_subgraph_toposort: ops already in order keep it) and counts the rewrite. New tensors
 * are named after the tensor they stand in for ("x/slice3"), so a rewritten model reads
 * like its source; the op's own output tensor is always written by the last new op, so the
 * model's interface keeps its tensors and names.
 *
 * Slicing along one axis (GATHER, GATHER_ND, SPLIT, SPLIT_V): the GPU's SLICE takes rank 3
 * or 4 on the classic delegate and rank 1-4 on ML Drift (rules.def slice-rank), so a tensor
 * of another rank, a run of dims to be sliced as one, or a tensor whose batch (dim 0) is not
 * 1 or is the sliced dim, is first reshaped to [1, outer, D, inner] (rank 4, batch 1: the
 * layout both delegates read as plain BHWC; ML Drift's batch handling is where WebGPU was
 * seen to compute wrong, rules.def webgpu-pad-layout and fc-2d-broadcast). */
#ifndef LGI_FIX_EMIT_H
#define LGI_FIX_EMIT_H

#include "passes/passes_impl.h"

/* The most SLICE/STRIDED_SLICE ops one rewrite makes (a gather of scattered indices): past
   it the op is left alone with a note, as a chain of hundreds of slices is no fix. */
#define FX_MAX_PIECES 64

/* A new runtime tensor "<name of like>/<suffix>" of the given type and shape; like's
   per-tensor quantization is copied when the type is like's. */
LG_INTERNAL lg_status fx_tensor(lg_pass_ctx *c, int32_t like, const char *suffix, int type,
                                const int32_t *shape, uint32_t rank, int32_t *out);
/* A new constant "<name of near>/<suffix>" (a copy of data). */
LG_INTERNAL lg_status fx_const(lg_pass_ctx *c, int32_t near, const char *suffix, lg_dtype type,
                               const int32_t *shape, uint32_t rank, const void *data,
                               uint64_t nbytes, int32_t *out);
/* A 1-D INT32 constant of n values. */
LG_INTERNAL lg_status fx_ints(lg_pass_ctx *c, int32_t near, const char *suffix, const int32_t *v,
                              uint32_t n, int32_t *out);
/* A FLOAT32 scalar constant (rank 0). */
LG_INTERNAL lg_status fx_scalar(lg_pass_ctx *c, int32_t near, const char *suffix, float v,
                                int32_t *out);
/* Append an op (version 1; the options kind is the op table's; opts may be NULL). */
LG_INTERNAL lg_status fx_op(lg_pass_ctx *c, int32_t code, const int32_t *in, uint32_t n_in,
                            const int32_t *out, uint32_t n_out, const void *opts);
/* A unary / binary op writing out (or, out < 0, a new tensor like `like` shaped as like) into
   *res. */
LG_INTERNAL lg_status fx_unary(lg_pass_ctx *c, int32_t code, int32_t x, int32_t out, int32_t *res);
LG_INTERNAL lg_status fx_binary(lg_pass_ctx *c, int32_t code, int32_t a, int32_t b, int32_t like,
                                int32_t out, int32_t *res);
/* RESHAPE x to shape (a constant INT32 shape input) writing out, or a new tensor when
   out < 0; *res the result. A constant x gives a new constant instead (no op). */
LG_INTERNAL lg_status fx_reshape(lg_pass_ctx *c, int32_t x, const int32_t *shape, uint32_t rank,
                                 int32_t out, int32_t *res);
/* Remove op `replaced` (UINT32_MAX: none), restore dependency order, count the rewrite. */
LG_INTERNAL lg_status fx_done(lg_pass_ctx *c, uint32_t replaced);

/* The tensor's dims as the product of the dims before `a`, of a..b-1 and of b.. */
LG_INTERNAL void fx_split_dims(const lg_tensor *t, uint32_t a, uint32_t b, int64_t *outer,
                               int64_t *mid, int64_t *inner);

/* One piece of a slicing: n elements begin, begin + step, ... along the sliced axis. */
typedef struct fx_piece {
    int64_t begin, n, step;
} fx_piece;

/* Runs of the index list idx[0..n): consecutive equal steps (>= 1) become one piece (a step
   of 1: SLICE, larger: STRIDED_SLICE); a repeated or descending index starts a new piece.
   Returns the number of pieces, or max + 1 when there would be more than max. */
LG_INTERNAL uint32_t fx_runs(const int64_t *idx, int64_t n, fx_piece *pieces, uint32_t max);

/* x viewed for slicing dims [a, b) as one axis: x itself with *axis = a when b = a + 1, a >= 1
   and x is [1, ...] of rank 3 or 4, else RESHAPE(x) to [1, outer, D, inner] with *axis = 2. */
LG_INTERNAL lg_status fx_slicing_view(lg_pass_ctx *c, int32_t x, uint32_t a, uint32_t b,
                                      int32_t *view, uint32_t *axis);
/* The piece p of view along axis (SLICE, or STRIDED_SLICE for a step > 1), written to out
   (out < 0: a new tensor, suffix names it); *res the result. */
LG_INTERNAL lg_status fx_slice(lg_pass_ctx *c, int32_t view, uint32_t axis, const fx_piece *p,
                               const char *suffix, int32_t out, int32_t *res);
/* The pieces of view along axis, concatenated along it, then reshaped to out's shape when it
   differs; the result is written to out. */
LG_INTERNAL lg_status fx_gather_pieces(lg_pass_ctx *c, int32_t view, uint32_t axis,
                                       const fx_piece *p, uint32_t n, int32_t out);

/* x broadcast to out's shape (numpy: x's dims aligned at the end, each 1 or out's):
   RESHAPE to out's rank when x has fewer dims, then TILE by out / x; written to out.
   False (nothing emitted) when x does not broadcast to it. */
LG_INTERNAL bool fx_broadcasts_to(const lg_tensor *x, const lg_tensor *out);
LG_INTERNAL lg_status fx_broadcast(lg_pass_ctx *c, int32_t x, int32_t out);

/* Same shape (rank and dims). */
LG_INTERNAL bool fx_same_shape(const lg_tensor *a, const lg_tensor *b);
/* t has a -1 in its shape signature. */
LG_INTERNAL bool fx_dynamic(const lg_tensor *t);
/* A per-axis (more than one scale or zero point) quantized tensor. */
LG_INTERNAL bool fx_per_axis(const lg_tensor *t);

#endif
