/* Dense linear algebra through reference LAPACK (Debian liblapack-dev): the only file that
   calls LAPACK is linalg.c, so a program that does not use refit/lowrank links without
   -llapack -lblas (a static archive only pulls the objects that are referenced). */
#ifndef LG_REFACTOR_LINALG_H
#define LG_REFACTOR_LINALG_H
#include "internal.h"

/* Thin SVD of the row-major a[m,n]: k = min(m,n); u [m,k] row-major, s [k] descending,
   vt [k,n] row-major, a = u diag(s) vt. LAPACK dgesdd (divide and conquer, jobz 'S'). */
LG_INTERNAL lg_status lgi_svd(const double *a, int m, int n, double *u, double *s, double *vt,
                              lg_error *err);

/* Solves g z = b for symmetric positive definite g [n,n] (overwritten by its Cholesky factor)
   and nrhs right-hand sides b, column-major [n,nrhs] (overwritten by z). LAPACK dposv.
   LG_ERR_INVALID_ARG when g is not positive definite (e.g. collinear inputs, lambda 0). */
LG_INTERNAL lg_status lgi_spd_solve(double *g, int n, double *b, int nrhs, lg_error *err);

#endif
