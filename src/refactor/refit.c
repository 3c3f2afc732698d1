/* lg_refit_ridge (refit.h): the normal equations of ridge regression with a bias column. */
#include "lg/refit.h"
#include "refactor/linalg.h"

#include <math.h>
#include <stdlib.h>

lg_status lg_refit_ridge(const float *x, int64_t n_rows, int64_t n_in, const float *y, int64_t n_out,
                         double lambda, float *w_out, float *b_out, lg_error *err) {
    if (!x || !y || !w_out || !b_out || n_rows <= 0 || n_in <= 0 || n_out <= 0 || n_in >= 46000 ||
        n_out > INT32_MAX / (n_in + 1))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: bad arguments (rows %lld, in %lld, out %lld)",
                        (long long)n_rows, (long long)n_in, (long long)n_out);
    if (!(lambda >= 0) || !isfinite(lambda))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "refit: lambda %g must be finite and >= 0", lambda);
    int64_t p = n_in + 1; /* the augmented column: [x 1] */
    double *g = calloc((size_t)(p * p), sizeof(double));
    double *r = calloc((size_t)(p * n_out), sizeof(double)); /* column-major [p, n_out] */
    double *a = malloc(sizeof(double) * (size_t)p);
    if (!g || !r || !a) { free(g); free(r); free(a); return lgi_fail(err, LG_ERR_NOMEM, "refit: out of memory"); }
    for (int64_t i = 0; i < n_rows; i++) {
        for (int64_t j = 0; j < n_in; j++) a[j] = x[i * n_in + j];
        a[n_in] = 1.0;
        /* G += a a^T (lower triangle, column-major: dposv reads 'L') and R += a y_i^T */
        for (int64_t c = 0; c < p; c++) {
            if (a[c] == 0) continue;
            for (int64_t q = c; q < p; q++) g[c * p + q] += a[q] * a[c];
        }
        for (int64_t o = 0; o < n_out; o++) {
            double yo = y[i * n_out + o];
            for (int64_t q = 0; q < p; q++) r[o * p + q] += a[q] * yo;
        }
    }
    for (int64_t j = 0; j < n_in; j++) g[j * p + j] += lambda; /* the bias is not regularised */
    lg_status st = lgi_spd_solve(g, (int)p, r, (int)n_out, err);
    if (st == LG_OK)
        for (int64_t o = 0; o < n_out; o++) {
            for (int64_t j = 0; j < n_in; j++) w_out[o * n_in + j] = (float)r[o * p + j];
            b_out[o] = (float)r[o * p + n_in];
        }
    free(g); free(r); free(a);
    return st;
}
