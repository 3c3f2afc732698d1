/* Comparison metrics on hand-computed cases. */
#include <math.h>

#include "lg/compare.h"
#include "tf.h"

LG_TEST(metrics_identical) {
    float a[4] = {1, -2, 3, 4};
    lg_metrics m;
    lg_metrics_compute(a, a, 4, &m);
    CHECK_NEAR(m.max_abs, 0, 0);
    CHECK_NEAR(m.cosine, 1, 1e-12);
    CHECK_NEAR(m.pearson, 1, 1e-12);
    CHECK_NEAR(m.nmse, 0, 0);
    CHECK_EQ_INT(m.ref_argmax, 3);
}

LG_TEST(metrics_hand_values) {
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 6};
    lg_metrics m;
    lg_metrics_compute(a, b, 4, &m);
    CHECK_NEAR(m.max_abs, 2, 0);
    CHECK_NEAR(m.max_rel, 0.5, 1e-12);            /* 2 / max|a| = 2/4 */
    CHECK_NEAR(m.nmse, 4.0 / 30.0, 1e-12);        /* 2^2 / (1+4+9+16) */
    CHECK_NEAR(m.cosine, 38.0 / sqrt(30.0 * 50.0), 1e-12);
    /* pearson: a - 2.5 = (-1.5,-.5,.5,1.5); b - 3 = (-2,-1,0,3); cov 3+.5+0+4.5 = 8;
       var a = 5; var b = 4+1+0+9 = 14 */
    CHECK_NEAR(m.pearson, 8.0 / sqrt(5.0 * 14.0), 1e-12);
}

LG_TEST(metrics_nonfinite_is_uncorrelated) {
    float a[3] = {1, 2, 3}, b[3] = {1, INFINITY, 3};
    lg_metrics m;
    lg_metrics_compute(a, b, 3, &m);
    CHECK_EQ_INT(m.test_inf, 1);
    CHECK(m.pearson <= 0);
    float z[3] = {0, 0, 0};
    lg_metrics_compute(z, z, 3, &m);
    CHECK_NEAR(m.pearson, 1, 0);
    CHECK_NEAR(m.cosine, 1, 0);
}
