/* lg_refit_ridge and the LAPACK SVD wrapper on hand-derived cases. */
#include <math.h>
#include <string.h>

#include "lg/refit.h"
#include "refactor/linalg.h"
#include "tf.h"

/* x = 0,1,2; y = 1,3,5 (y = 2x + 1). Normal equations with lambda on w only:
   [sum x^2 + lambda, sum x; sum x, n] [w; b] = [sum xy; sum y] = [[5+l, 3], [3, 3]] [w; b] = [13; 9].
   lambda 0: w = 2, b = 1. lambda 1: 6w + 3b = 13, 3w + 3b = 9 -> w = 4/3, b = 5/3. */
LG_TEST(refit_ridge_hand_2x2) {
    const float x[3] = {0, 1, 2}, y[3] = {1, 3, 5};
    float w, b;
    lg_error e;
    CHECK_OK(lg_refit_ridge(x, 3, 1, y, 1, 0.0, &w, &b, &e), &e);
    CHECK_NEAR(w, 2.0, 1e-6);
    CHECK_NEAR(b, 1.0, 1e-6);
    CHECK_OK(lg_refit_ridge(x, 3, 1, y, 1, 1.0, &w, &b, &e), &e);
    CHECK_NEAR(w, 4.0 / 3.0, 1e-6);
    CHECK_NEAR(b, 5.0 / 3.0, 1e-6); /* the bias is not shrunk: a regularised bias would give another b */
}

/* y = x W^T + b exactly (3 inputs, 2 outputs, 12 rows): lambda 0 recovers W and b. */
LG_TEST(refit_ridge_exact_recovery) {
    const float W[2][3] = {{0.5f, -1.25f, 2.0f}, {-0.75f, 0.25f, 1.5f}}, B[2] = {0.125f, -3.0f};
    float x[12 * 3], y[12 * 2], w[6], b[2];
    for (int i = 0; i < 12; i++) {
        for (int j = 0; j < 3; j++) x[i * 3 + j] = (float)(((i * 7 + j * 13) % 11) - 5) * 0.25f + (float)(j == 2 ? i % 3 : 0);
        for (int o = 0; o < 2; o++) {
            double s = B[o];
            for (int j = 0; j < 3; j++) s += (double)x[i * 3 + j] * W[o][j];
            y[i * 2 + o] = (float)s;
        }
    }
    lg_error e;
    CHECK_OK(lg_refit_ridge(x, 12, 3, y, 2, 0.0, w, b, &e), &e);
    for (int o = 0; o < 2; o++) {
        for (int j = 0; j < 3; j++) CHECK_NEAR(w[o * 3 + j], W[o][j], 1e-6);
        CHECK_NEAR(b[o], B[o], 1e-6);
    }
}

/* Collinear inputs (x2 = 2 x1): singular with lambda 0 (refused), solvable with lambda > 0. */
LG_TEST(refit_ridge_collinear_refused) {
    const float x[6] = {1, 2, 2, 4, 3, 6}, y[3] = {1, 2, 3};
    float w[2], b;
    lg_error e;
    CHECK(lg_refit_ridge(x, 3, 2, y, 1, 0.0, w, &b, &e) == LG_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "positive definite") != NULL);
    CHECK_OK(lg_refit_ridge(x, 3, 2, y, 1, 0.1, w, &b, &e), &e);
    CHECK(lg_refit_ridge(x, 3, 2, y, 1, -1.0, w, &b, &e) == LG_ERR_INVALID_ARG);
}

/* A = [[3,0],[4,5]]: A^T A = [[25,20],[20,25]], eigenvalues 45 and 5 -> s = 3 sqrt5, sqrt5. */
LG_TEST(svd_hand_2x2_and_wide) {
    const double a[4] = {3, 0, 4, 5};
    double u[4], s[2], vt[4];
    lg_error e;
    CHECK_OK(lgi_svd(a, 2, 2, u, s, vt, &e), &e);
    CHECK_NEAR(s[0], 3 * sqrt(5.0), 1e-12);
    CHECK_NEAR(s[1], sqrt(5.0), 1e-12);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            CHECK_NEAR(u[i * 2 + 0] * s[0] * vt[0 * 2 + j] + u[i * 2 + 1] * s[1] * vt[1 * 2 + j], a[i * 2 + j], 1e-12);
    /* wide [2,3] = [[1,0,0],[0,2,0]]: s = 2, 1; u = [[0,+-1],[+-1,0]]; vt rows +-e1, +-e0 */
    const double w[6] = {1, 0, 0, 0, 2, 0};
    double u2[4], s2[2], vt2[6];
    CHECK_OK(lgi_svd(w, 2, 3, u2, s2, vt2, &e), &e);
    CHECK_NEAR(s2[0], 2, 1e-12);
    CHECK_NEAR(s2[1], 1, 1e-12);
    CHECK_NEAR(fabs(vt2[0 * 3 + 1]), 1, 1e-12);
    CHECK_NEAR(fabs(vt2[1 * 3 + 0]), 1, 1e-12);
    CHECK_NEAR(fabs(u2[1 * 2 + 0]), 1, 1e-12);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            CHECK_NEAR(u2[i * 2] * s2[0] * vt2[j] + u2[i * 2 + 1] * s2[1] * vt2[3 + j], w[i * 3 + j], 1e-12);
}
