/* lg_channel_mean_abs and lg_refit_fc on builder-made models, expected values by hand. */
#include <math.h>
#include <string.h>

#include "lg/lg.h"
#include "lg/refit.h"
#include "tf.h"

/* x[1,2,3] -> MUL by 2 -> y. */
static lg_model *mul2_model(void) {
    lg_model *m = NULL; lg_error e;
    if (lg_model_new(NULL, NULL, &m, &e) != LG_OK) return NULL;
    lg_builder b; lg_builder_init(&b, m, 0);
    float two[1] = {2};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 3));
    int c = lg_b_const_f32(&b, "two", LG_DIMS(1), two);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 2, 3));
    lg_b_op(&b, LG_OP_MUL, LG_IDS(x, c), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    if (b.status != LG_OK) { lg_model_free(m); return NULL; }
    return m;
}

/* Cases x1 = [[1,-2,3],[-4,5,-6]], x2 = 0: y = 2x. Along the last axis (3 channels, 4 values
   each over the 2 cases): ch0 (2+8+0+0)/4 = 2.5, ch1 (4+10)/4 = 3.5, ch2 (6+12)/4 = 4.5.
   Along axis 1 (2 rows, 6 values each): row0 (2+4+6)/6 = 2, row1 (8+10+12)/6 = 5. The input
   itself (a subgraph input, no producer) along the last axis: half of those. */
LG_TEST(refit_channel_mean_abs_hand) {
    lg_model *m = mul2_model();
    CHECK(m != NULL);
    if (!m) return;
    const float x1[6] = {1, -2, 3, -4, 5, -6}, x2[6] = {0};
    const void *c1[1] = {x1}, *c2[1] = {x2};
    const void *const *cases[2] = {c1, c2};
    double out[3]; lg_error e;
    CHECK_OK(lg_channel_mean_abs(m, 2, -1, cases, 2, out, &e), &e); /* tensor 2 = y */
    CHECK_NEAR(out[0], 2.5, 1e-12); CHECK_NEAR(out[1], 3.5, 1e-12); CHECK_NEAR(out[2], 4.5, 1e-12);
    CHECK_OK(lg_channel_mean_abs(m, 2, 1, cases, 2, out, &e), &e);
    CHECK_NEAR(out[0], 2.0, 1e-12); CHECK_NEAR(out[1], 5.0, 1e-12);
    CHECK_OK(lg_channel_mean_abs(m, 0, 2, cases, 2, out, &e), &e);
    CHECK_NEAR(out[0], 1.25, 1e-12); CHECK_NEAR(out[1], 1.75, 1e-12); CHECK_NEAR(out[2], 2.25, 1e-12);
    /* near-misses: a constant is not an activation; an axis the tensor lacks */
    CHECK(lg_channel_mean_abs(m, 1, 0, cases, 2, out, &e) == LG_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "constant") != NULL);
    CHECK(lg_channel_mean_abs(m, 2, 3, cases, 2, out, &e) == LG_ERR_INVALID_ARG);
    lg_model_free(m);
}

/* x[4,2] -> FULLY_CONNECTED(W, b, activation act) -> y[4,2]. */
static lg_model *fc_model(const float w[4], const float bias[2], int8_t act) {
    lg_model *m = NULL; lg_error e;
    if (lg_model_new(NULL, NULL, &m, &e) != LG_OK) return NULL;
    lg_builder b; lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(4, 2));
    int wt = lg_b_const_f32(&b, "w", LG_DIMS(2, 2), w);
    int bt = lg_b_const_f32(&b, "b", LG_DIMS(2), bias);
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(4, 2));
    lg_fully_connected_options fo;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
    fo.fused_activation_function = act;
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, wt, bt), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    if (b.status != LG_OK) { lg_model_free(m); return NULL; }
    return m;
}

/* The original FC is W = [[1,2],[3,-1]], b = [0.5,-1]; the "pruned" one has W = b = 0, so
   before the refit its output is 0 and the relative error is exactly 1. The 8 rows of the two
   cases make [X 1] of full column rank 3, so with lambda 0 the least-squares solution is the
   original W, b (the data are exactly linear): error after ~0. */
LG_TEST(refit_fc_recovers_original) {
    const float w_orig[4] = {1, 2, 3, -1}, b_orig[2] = {0.5f, -1}, z4[4] = {0}, z2[2] = {0};
    lg_model *orig = fc_model(w_orig, b_orig, 0), *pr = fc_model(z4, z2, 0);
    CHECK(orig && pr);
    if (!orig || !pr) { lg_model_free(orig); lg_model_free(pr); return; }
    const float x1[8] = {1, 0, 0, 1, 1, 1, 2, -1}, x2[8] = {-3, 0.5f, 0.25f, 4, -1, -2, 5, 3};
    const void *c1[1] = {x1}, *c2[1] = {x2};
    const void *const *cases[2] = {c1, c2};
    lg_refit_fc_report r; lg_error e;
    CHECK_OK(lg_refit_fc(pr, 0, orig, 3, cases, 2, 0.0, &r, &e), &e); /* tensor 3 = y */
    CHECK_EQ_INT(r.n_rows, 8);
    CHECK_NEAR(r.err_before, 1.0, 1e-12);
    CHECK(r.err_after < 1e-6);
    const lg_tensor *wt = &pr->subgraphs[0].tensors[1], *bt = &pr->subgraphs[0].tensors[2];
    const float *w = (const float *)(const void *)lg_tensor_buffer(pr, wt)->data;
    const float *b = (const float *)(const void *)lg_tensor_buffer(pr, bt)->data;
    for (int i = 0; i < 4; i++) CHECK_NEAR(w[i], w_orig[i], 1e-5);
    CHECK_NEAR(b[0], 0.5, 1e-5); CHECK_NEAR(b[1], -1.0, 1e-5);
    /* near-miss: a fused RELU makes the problem non-linear: refused, nothing changed */
    lg_model *relu = fc_model(z4, z2, 1);
    CHECK(relu != NULL);
    if (relu) {
        CHECK(lg_refit_fc(relu, 0, orig, 3, cases, 2, 0.0, &r, &e) == LG_ERR_INVALID_ARG);
        CHECK(strstr(e.msg, "fused activation") != NULL);
        lg_model_free(relu);
    }
    /* near-miss: a target of another size: x[4,2] -> FC with 3 outputs -> [4,3] (12 values
       where the pruned FC's 4 rows x 2 outputs need 8): refused */
    lg_model *m3 = NULL;
    if (lg_model_new(NULL, NULL, &m3, &e) == LG_OK) {
        lg_builder bb; lg_builder_init(&bb, m3, 0);
        const float w6[6] = {1, 0, 0, 1, 1, 1}, b3[3] = {0};
        int x = lg_b_tensor(&bb, "x", LG_FLOAT32, LG_DIMS(4, 2));
        int wt3 = lg_b_const_f32(&bb, "w", LG_DIMS(3, 2), w6);
        int bt3 = lg_b_const_f32(&bb, "b", LG_DIMS(3), b3);
        int y = lg_b_tensor(&bb, "y", LG_FLOAT32, LG_DIMS(4, 3));
        lg_b_op(&bb, LG_OP_FULLY_CONNECTED, LG_IDS(x, wt3, bt3), LG_IDS(y));
        lg_b_io(&bb, LG_IDS(x), LG_IDS(y));
        CHECK_OK(bb.status, &bb.err);
        CHECK(lg_refit_fc(pr, 0, m3, y, cases, 2, 0.0, &r, &e) == LG_ERR_INVALID_ARG);
        CHECK(strstr(e.msg, "target") != NULL);
        lg_model_free(m3);
    }
    lg_model_free(orig); lg_model_free(pr);
}
