/* LAPACK wrappers (see linalg.h). The Fortran prototypes are declared here (no LAPACKE):
   every argument by reference, column-major arrays, and gfortran's hidden length argument
   (size_t, gfortran >= 8) after the others for each CHARACTER argument. Prototypes from
   reference LAPACK's SRC/dgesdd.f and SRC/dposv.f. */
#include "refactor/linalg.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda, double *s,
             double *u, const int *ldu, double *vt, const int *ldvt, double *work,
             const int *lwork, int *iwork, int *info, size_t jobz_len);
void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
            double *b, const int *ldb, int *info, size_t uplo_len);

lg_status lgi_svd(const double *a, int m, int n, double *u, double *s, double *vt, lg_error *err) {
    if (m <= 0 || n <= 0) return lgi_fail(err, LG_ERR_INVALID_ARG, "svd: empty matrix %dx%d", m, n);
    int k = m < n ? m : n;
    /* The row-major a[m,n] is the column-major a^T [n,m]. Its SVD a^T = U' S V'^T gives
       a = V' S U'^T: LAPACK's VT' (column-major [k,m]) has the memory of u (row-major [m,k])
       and its U' (column-major [n,k]) that of vt (row-major [k,n]). */
    int mm = n, nn = m, lda = n, ldu = n, ldvt = k, lwork = -1, info = 0;
    double *acopy = malloc(sizeof(double) * (size_t)m * (size_t)n);
    int *iwork = malloc(sizeof(int) * 8 * (size_t)k);
    if (!acopy || !iwork) { free(acopy); free(iwork); return lgi_fail(err, LG_ERR_NOMEM, "svd: out of memory (%dx%d)", m, n); }
    memcpy(acopy, a, sizeof(double) * (size_t)m * (size_t)n);
    double wq = 0;
    dgesdd_("S", &mm, &nn, acopy, &lda, s, vt, &ldu, u, &ldvt, &wq, &lwork, iwork, &info, 1);
    lwork = info == 0 && wq > 0 && wq < (double)INT_MAX ? (int)wq : 0;
    double *work = lwork > 0 ? malloc(sizeof(double) * (size_t)lwork) : NULL;
    if (!work) { free(acopy); free(iwork); return lgi_fail(err, LG_ERR_NOMEM, "svd: workspace query failed (%dx%d, info %d)", m, n, info); }
    dgesdd_("S", &mm, &nn, acopy, &lda, s, vt, &ldu, u, &ldvt, work, &lwork, iwork, &info, 1);
    free(work); free(acopy); free(iwork);
    if (info != 0) return lgi_fail(err, LG_ERR_INTERNAL, "svd: LAPACK dgesdd info %d on %dx%d", info, m, n);
    return LG_OK;
}

lg_status lgi_spd_solve(double *g, int n, double *b, int nrhs, lg_error *err) {
    int info = 0;
    dposv_("L", &n, &nrhs, g, &n, b, &n, &info, 1);
    if (info > 0) return lgi_fail(err, LG_ERR_INVALID_ARG, "normal equations not positive definite "
                                  "(leading minor %d of %d): collinear or constant inputs; use lambda > 0", info, n);
    if (info < 0) return lgi_fail(err, LG_ERR_INTERNAL, "LAPACK dposv: argument %d invalid", -info);
    return LG_OK;
}
