/* Importer: TopK (and the other selection/indexing lowerings of src/import/lower_index.c).
   Expected values derived by hand in the comments. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "test_import_util.h"
#include "tf.h"

/* x [2, 4] = [[3, 1, 3, 2], [0, -1, 5, -1]] */
static const float TK_X[8] = {3, 1, 3, 2, 0, -1, 5, -1};

static ti_model *topk_model(int64_t k, int64_t axis, int64_t largest) {
    ti_model *t = ti_new(11);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 4}, 2);
    ti_init(t, "k", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){k});
    ti_node(t, "TopK", "x,k", "v,i");
    ti_attr_i(t, "axis", axis);
    ti_attr_i(t, "largest", largest);
    ti_output(t, "v");
    ti_output(t, "i");
    return t;
}

/* run and compare values (float) and indices (INT64 at the boundary) */
static void topk_check(ti_model *t, int n, const float *wv, const int64_t *wi, int n_transpose, int n_neg) {
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_TOPK_V2), 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_TRANSPOSE), n_transpose);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_NEG), n_neg);
        float v[8];
        int64_t ix[8];
        const void *in[1] = {TK_X};
        const lg_dtype ty[1] = {LG_FLOAT32};
        CHECK_EQ_INT(ti_run_typed(m, in, ty, 1, 0, LG_FLOAT32, v, (size_t)n), 0);
        CHECK_EQ_INT(ti_run_typed(m, in, ty, 1, 1, LG_INT64, ix, (size_t)n), 0);
        for (int i = 0; i < n; i++) {
            CHECK_NEAR(v[i], wv[i], 0);
            CHECK_EQ_INT(ix[i], wi[i]);
        }
    }
    lg_model_free(m);
    ti_free(t);
}

/* K = 2 on the last axis, largest: row 0 [3, 3] at [0, 2] (a tie: the lower index first),
   row 1 [5, 0] at [2, 0]. No TRANSPOSE, no NEG. */
LG_TEST(import_topk_last_axis_largest) {
    topk_check(topk_model(2, -1, 1), 4, (const float[]){3, 3, 5, 0}, (const int64_t[]){0, 2, 2, 0}, 0, 0);
}

/* K = 2, smallest (largest = 0), last axis: row 0 [1, 2] at [1, 3]; row 1 [-1, -1] at [1, 3]
   (a tie: the lower index first). NEG before and after. */
LG_TEST(import_topk_smallest) {
    topk_check(topk_model(2, 1, 0), 4, (const float[]){1, 2, -1, -1}, (const int64_t[]){1, 3, 1, 3}, 0, 2);
}

/* K = 1 on axis 0: per column the larger of the two rows: [3, 1, 5, 2] from rows [0, 0, 1, 0].
   The axis swapped with the last one: a TRANSPOSE before and after (each output). */
LG_TEST(import_topk_axis0) {
    topk_check(topk_model(1, 0, 1), 4, (const float[]){3, 1, 5, 2}, (const int64_t[]){0, 0, 1, 0}, 3, 0);
}

/* INT32 smallest: -1 - x reverses the order without overflow. x = [INT32_MAX, INT32_MIN, 0, -1],
   K = 2: [INT32_MIN, -1] at [1, 3]. NEG instead would fail here: -x = [-INT32_MAX, INT32_MIN
   (wrapped), 0, 1] ranks INT32_MIN last and gives [-1, 0] at [3, 2]. K past the axis is
   malformed, a runtime K unsupported. */
LG_TEST(import_topk_int32_smallest_and_bad_k) {
    ti_model *t = ti_new(11);
    ti_input(t, "x", LG_ONNX_INT32, (const int64_t[]){4}, 1);
    ti_init(t, "k", LG_ONNX_INT64, (const int64_t[]){1}, 1, (const int64_t[]){2});
    ti_node(t, "TopK", "x,k", "v,i");
    ti_attr_i(t, "largest", 0);
    ti_output(t, "v");
    ti_output(t, "i");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        const int32_t x[4] = {INT32_MAX, INT32_MIN, 0, -1};
        int32_t v[2];
        int64_t ix[2];
        const void *in[1] = {x};
        const lg_dtype ty[1] = {LG_INT32};
        CHECK_EQ_INT(ti_run_typed(m, in, ty, 1, 0, LG_INT32, v, 2), 0);
        CHECK_EQ_INT(ti_run_typed(m, in, ty, 1, 1, LG_INT64, ix, 2), 0);
        CHECK_EQ_INT(v[0], INT32_MIN);
        CHECK_EQ_INT(v[1], -1);
        CHECK_EQ_INT(ix[0], 1);
        CHECK_EQ_INT(ix[1], 3);
    }
    lg_model_free(m);
    ti_free(t);
    t = topk_model(5, -1, 1);
    m = NULL;
    CHECK_EQ_INT(ti_import(t, false, &m, NULL, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "K = 5") != NULL);
    lg_model_free(m);
    ti_free(t);
    t = ti_new(11);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 4}, 2);
    ti_input(t, "k", LG_ONNX_INT64, (const int64_t[]){1}, 1);
    ti_node(t, "TopK", "x,k", "v,i");
    ti_output(t, "v");
    ti_output(t, "i");
    m = NULL;
    CHECK_EQ_INT(ti_import(t, false, &m, NULL, &err), LG_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "computed at run time") != NULL);
    lg_model_free(m);
    ti_free(t);
}

/* Gather with runtime INT64 ids (an embedding lookup): table [3, 2] = [[1, 2], [3, 4], [5, 6]],
   ids [2, 2] = [[2, 0], [-1, 1]] -> [[5, 6], [1, 2]], [[5, 6], [3, 4]] (-1 is the last row).
   Near-miss: an id past the table (3) fails at run time instead of reading past it. */
LG_TEST(import_gather_runtime_int64_ids) {
    ti_model *t = ti_new(13);
    ti_init(t, "w", LG_ONNX_FLOAT, (const int64_t[]){3, 2}, 2, (const float[]){1, 2, 3, 4, 5, 6});
    ti_input(t, "ids", LG_ONNX_INT64, (const int64_t[]){2, 2}, 2);
    ti_node(t, "Gather", "w,ids", "y");
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_GATHER), 1);
        const int64_t ids[4] = {2, 0, -1, 1};
        float y[8];
        const void *in[1] = {ids};
        const lg_dtype ty[1] = {LG_INT64};
        CHECK_EQ_INT(ti_run_typed(m, in, ty, 1, 0, LG_FLOAT32, y, 8), 0);
        const float want[8] = {5, 6, 1, 2, 5, 6, 3, 4};
        for (int i = 0; i < 8; i++) CHECK_NEAR(y[i], want[i], 0);
        const int64_t bad[4] = {2, 0, 3, 1};
        const void *in2[1] = {bad};
        CHECK_EQ_INT(ti_run_typed(m, in2, ty, 1, 0, LG_FLOAT32, y, 8), -3);
    }
    lg_model_free(m);
    ti_free(t);
}

/* GridSample on X = [[1, 2], [3, 4]] (1x1x2x2) at three grid points (x, y):
   A (0, 0), B (1, -1), C (1.5, 0).
   align_corners 1: ix = (g + 1) / 2 * (2 - 1): A (0.5, 0.5) -> the mean 2.5; B (1, 0) -> X[0][1] = 2;
     C (1.25, 0.5): zeros: x tap 1 weight 0.75, tap 2 absent -> 0.75 (0.5 * 2 + 0.5 * 4) = 2.25;
     border: ix clipped to 1 -> 0.5 * 2 + 0.5 * 4 = 3.
   align_corners 0: ix = ((g + 1) 2 - 1) / 2 = g + 0.5: A (0.5, 0.5) -> 2.5; B (1.5, -0.5): x tap 1
     weight 0.5, y tap 0 weight 0.5, the rest absent -> 0.25 * 2 = 0.5; C (2, 0.5): outside -> 0.
   nearest, align_corners 0: A rounds (0.5, 0.5) half to even to (0, 0) -> 1; B x 1.5 -> 2 is
     outside -> 0; C x 2 outside -> 0. Bicubic is refused. */
static void grid_case(const char *mode, const char *pad, int64_t align, const float want[3]) {
    ti_model *t = ti_new(16);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 2, 2}, 4);
    ti_input(t, "g", LG_ONNX_FLOAT, (const int64_t[]){1, 1, 3, 2}, 4);
    ti_node(t, "GridSample", "x,g", "y");
    ti_attr_s(t, "mode", mode);
    ti_attr_s(t, "padding_mode", pad);
    ti_attr_i(t, "align_corners", align);
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    lg_status st = ti_import(t, false, &m, NULL, &err);
    if (!want) {
        CHECK_EQ_INT(st, LG_ERR_UNSUPPORTED);
        CHECK(strstr(err.msg, "bicubic") != NULL);
    } else {
        CHECK_OK(st, &err);
    }
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_BATCH_MATMUL), 1);
        float y[3];
        const float *in[2] = {(const float[]){1, 2, 3, 4}, (const float[]){0, 0, 1, -1, 1.5f, 0}};
        CHECK_EQ_INT(ti_run(m, in, 2, 0, y, 3), 0);
        for (int i = 0; i < 3; i++) CHECK_NEAR(y[i], want[i], 1e-6);
    }
    lg_model_free(m);
    ti_free(t);
}

LG_TEST(import_grid_sample) {
    grid_case("bilinear", "zeros", 1, (const float[]){2.5f, 2, 2.25f});
    grid_case("bilinear", "border", 1, (const float[]){2.5f, 2, 3});
    grid_case("bilinear", "zeros", 0, (const float[]){2.5f, 0.5f, 0});
    grid_case("nearest", "zeros", 0, (const float[]){1, 0, 0});
    grid_case("bicubic", "zeros", 0, NULL);
}

/* CumSum of x [2, 3] = [[1, 2, 3], [4, 5, 6]] on axis 1 (given as -1):
   plain [[1, 3, 6], [4, 9, 15]]; exclusive [[0, 1, 3], [0, 4, 9]]; reverse [[6, 5, 3], [15, 11, 6]];
   both [[5, 3, 0], [11, 6, 0]]. On axis 0: [[1, 2, 3], [5, 7, 9]]. */
static void cumsum_case(int64_t axis, int64_t excl, int64_t rev, const float want[6]) {
    ti_model *t = ti_new(14);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 3}, 2);
    ti_init(t, "a", LG_ONNX_INT64, NULL, 0, (const int64_t[]){axis});
    ti_node(t, "CumSum", "x,a", "y");
    ti_attr_i(t, "exclusive", excl);
    ti_attr_i(t, "reverse", rev);
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_CUMSUM), 1);
        float y[6];
        const float *in[1] = {(const float[]){1, 2, 3, 4, 5, 6}};
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 6), 0);
        for (int i = 0; i < 6; i++) CHECK_NEAR(y[i], want[i], 0);
    }
    lg_model_free(m);
    ti_free(t);
}

LG_TEST(import_cumsum) {
    cumsum_case(-1, 0, 0, (const float[]){1, 3, 6, 4, 9, 15});
    cumsum_case(-1, 1, 0, (const float[]){0, 1, 3, 0, 4, 9});
    cumsum_case(-1, 0, 1, (const float[]){6, 5, 3, 15, 11, 6});
    cumsum_case(1, 1, 1, (const float[]){5, 3, 0, 11, 6, 0});
    cumsum_case(0, 0, 0, (const float[]){1, 2, 3, 5, 7, 9});
}
