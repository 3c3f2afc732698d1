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

#endif
