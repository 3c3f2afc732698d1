/* Least-squares recovery without training (issue 14, prune --refit): the weights of a
   consumer layer solved on calibration activations. */
#ifndef LG_REFIT_H
#define LG_REFIT_H
#include "lg/lg.h"

/* Ridge regression with an unregularised bias:
     min over w, b of ||[x 1] [w^T; b^T] - y||^2 + lambda ||w||^2
   x [n_rows,n_in] and y [n_rows,n_out] row-major; writes w_out [n_out,n_in] (row-major, the
   TFLite FULLY_CONNECTED weight layout) and b_out [n_out]. Solved by the normal equations in
   double precision: (A^T A + lambda D) z = A^T y with A = [x 1] and D = diag(1,...,1,0), by a
   Cholesky factorisation (LAPACK dposv). The normal equations square the condition number:
   adequate for the well-conditioned ridge problems of refitting (lambda > 0), not a
   general-purpose solver. LG_ERR_INVALID_ARG on bad sizes, lambda < 0, or a system that is not
   positive definite (collinear/constant inputs with lambda 0, or n_rows too small). */
lg_status lg_refit_ridge(const float *x, int64_t n_rows, int64_t n_in, const float *y, int64_t n_out, double lambda, float *w_out, float *b_out, lg_error *err);

/* ---- on a model (subgraph 0), over calibration cases. `cases` has lg/quantize.h's layout:
   cases[k][i] is the float32 data of input i (every input FLOAT32, its declared shape) for
   case k. The model runs in fp32 with litegpu's interpreter (lg/run.h); only the tensor asked
   for is copied out (a tap), so memory stays the model's own plan. */

/* Mean |x| per index along `axis` (negative counts from the end) of FLOAT32 tensor `tensor`
   over the cases: out[c] = sum over cases and over every other index of |x| / (count), out
   has dim(axis) entries. The tensor may be a subgraph input. Activation importance for
   structured pruning (the handbook's mean |activation|). */
lg_status lg_channel_mean_abs(const lg_model *m, int32_t tensor, int axis, const void *const *const *cases,
                              uint32_t n_cases, double *out, lg_error *err);

typedef struct lg_refit_fc_report {
    int64_t n_rows;            /* activation rows solved on (cases x rows of the FC's input) */
    int64_t n_in, n_out;
    double lambda_abs;         /* the ridge lambda used: lambda x mean diagonal of X^T X */
    double err_before;         /* ||XW^T+b - Y||_F / ||Y||_F with the weights before */
    double err_after;          /* the same with the refitted weights (on the same cases) */
} lg_refit_fc_report;

/* Refit FULLY_CONNECTED op `op` of `pruned` (constant FLOAT32 weights [n_out, n_in], a
   constant FLOAT32 bias [n_out], no fused activation): X = its input activations on the
   cases (pruned run), Y = tensor `target` of `orig` on the same cases (orig run; element
   count = rows x n_out, e.g. the same op's output before pruning); the weights and bias
   become the ridge solution (lg_refit_ridge, lambda_abs = lambda x mean_j sum_rows x_j^2, so
   lambda is scale-free; the bias is not regularised). New buffers are written (shared
   buffers are never changed); the old ones stay in the model until the caller runs
   lg_model_compact (not done here: it renumbers tensors, and a caller refitting several ops
   holds their indices). The fit is measured on the calibration cases (rep); measure
   generalisation on separate evaluation inputs. Refuses (LG_ERR_INVALID_ARG, naming the op)
   a non-FC op, non-constant or non-FLOAT32 weights, a missing bias, a fused activation (the
   problem would not be linear), or a target of the wrong size. */
lg_status lg_refit_fc(lg_model *pruned, uint32_t op, const lg_model *orig, int32_t target,
                      const void *const *const *cases, uint32_t n_cases, double lambda,
                      lg_refit_fc_report *rep, lg_error *err);

#endif
