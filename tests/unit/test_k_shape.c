/* Shape-family kernels (src/run/k_shape*.c) through the public API: one-op models built with
 * the builder, run by the interpreter. Expected values are written out by hand or computed
 * by a naive index formula in the test (never by running the kernel). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "lg/run.h"
#include "kt.h"
#include "tf.h"
#include "util/half.h"

/* ------------------------------------------------------------------ harness (kt.h) */

/* Run t (fp32 or p) with the graph inputs' data in order; RUN_OK0: a model without inputs. */
#define RUN_OK(t, p, ...)                                                                       \
    do {                                                                                        \
        const void *in_[] = {NULL, __VA_ARGS__};                                                \
        if (kt_run((t), (p), 1, in_ + 1) != LG_OK) tf_fail(__FILE__, __LINE__, "run: %s", (t)->err.msg); \
    } while (0)
#define RUN_OK0(t, p)                                                                           \
    do {                                                                                        \
        if (kt_run((t), (p), 1, NULL) != LG_OK) tf_fail(__FILE__, __LINE__, "run: %s", (t)->err.msg); \
    } while (0)
/* The run fails with status want and a message containing substr. */
#define RUN_FAILS(t, want, substr, ...)                                                         \
    do {                                                                                        \
        const void *in_[] = {NULL, __VA_ARGS__};                                                \
        lg_status s_ = kt_run((t), LG_PREC_F32, 1, in_ + 1);                                    \
        CHECK_EQ_INT(s_, want);                                                                 \
        if (!strstr((t)->err.msg, substr))                                                      \
            tf_fail(__FILE__, __LINE__, "message \"%s\" lacks \"%s\"", (t)->err.msg, substr);    \
    } while (0)

#define CHECK_SHAPE(v, ...) kt_check_view_shape(__FILE__, __LINE__, NULL, &(v), LG_DIMS(__VA_ARGS__))
#define CHECK_SCALAR(v) kt_check_view_shape(__FILE__, __LINE__, NULL, &(v), LG_SCALAR)
/* Exact comparison (bitwise for floats, NaN == NaN). */
#define CHECK_F32(v, ...)                                                                       \
    do {                                                                                        \
        static const float w_[] = {__VA_ARGS__};                                                \
        kt_check_view_f32(__FILE__, __LINE__, NULL, &(v), w_, (int64_t)(sizeof w_ / sizeof w_[0]), 0, KT_BITS); \
    } while (0)
#define CHECK_INTS(v, type, ...)                                                                \
    do {                                                                                        \
        static const int64_t w_[] = {__VA_ARGS__};                                              \
        kt_check_view_ints(__FILE__, __LINE__, NULL, &(v), type, w_, (int64_t)(sizeof w_ / sizeof w_[0])); \
    } while (0)

static float iota_f(int64_t i) { return (float)i; }

/* A float input filled with 0, 1, 2, ... */
static float *iota(int64_t n) {
    float *p = malloc((size_t)(n ? n : 1) * sizeof(float));
    for (int64_t i = 0; p && i < n; i++) p[i] = iota_f(i);
    return p;
}

static void flat_to_idx(int64_t flat, const int32_t *shape, uint32_t rank, int64_t *idx) {
    for (int d = (int)rank - 1; d >= 0; d--) {
        idx[d] = flat % shape[d];
        flat /= shape[d];
    }
}

static int64_t idx_to_flat(const int64_t *idx, const int32_t *shape, uint32_t rank) {
    int64_t f = 0;
    for (uint32_t d = 0; d < rank; d++) f = f * shape[d] + idx[d];
    return f;
}

/* ------------------------------------------------------------------ RESHAPE */

LG_TEST(k_shape_reshape_const_shape_infers_minus_one) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int s = lg_b_const_i32(&t.b, "s", LG_DIMS(2), (const int32_t[]){3, -1});
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(3, 2));
    lg_b_op(&t.b, LG_OP_RESHAPE, LG_IDS(x, s), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    float in[6] = {1, 2, 3, 4, 5, 6};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 3, 2);
    CHECK_F32(v, 1, 2, 3, 4, 5, 6);
    kt_free(&t);
}

LG_TEST(k_shape_reshape_options_and_legacy_scalar) {
    /* one input: the shape comes from new_shape; [0] means a scalar (legacy) */
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(6));
    lg_reshape_options o = {{(const int32_t[]){6}, 1}};
    lg_b_op_opts(&t.b, LG_OP_RESHAPE, LG_IDS(x), LG_IDS(y), LG_OPTS_RESHAPE_OPTIONS, &o);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    float in[6] = {6, 5, 4, 3, 2, 1};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 6);
    CHECK_F32(v, 6, 5, 4, 3, 2, 1);
    kt_free(&t);

    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(1, 1));
    y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_SCALAR);
    lg_reshape_options o0 = {{(const int32_t[]){0}, 1}};
    lg_b_op_opts(&t.b, LG_OP_RESHAPE, LG_IDS(x), LG_IDS(y), LG_OPTS_RESHAPE_OPTIONS, &o0);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    float one = 42.5f;
    RUN_OK(&t, LG_PREC_F32, &one);
    v = kt_out(&t, 0);
    CHECK_SCALAR(v);
    CHECK_F32(v, 42.5f);
    kt_free(&t);

    /* an empty shape tensor also means a scalar */
    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_INT32, LG_DIMS(1));
    int s = lg_b_const(&t.b, "s", LG_INT32, LG_DIMS(0), NULL, 0);
    y = lg_b_tensor(&t.b, "y", LG_INT32, LG_SCALAR);
    lg_b_op(&t.b, LG_OP_RESHAPE, LG_IDS(x, s), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    int32_t iv = -7;
    RUN_OK(&t, LG_PREC_F32, &iv);
    v = kt_out(&t, 0);
    CHECK_SCALAR(v);
    CHECK_INTS(v, LG_INT32, -7);
    kt_free(&t);
}

LG_TEST(k_shape_reshape_runtime_shape_checked_at_eval) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(6));
    int s = lg_b_tensor(&t.b, "s", LG_INT32, LG_DIMS(2));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(3, 2));
    lg_b_op(&t.b, LG_OP_RESHAPE, LG_IDS(x, s), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x, s), LG_IDS(y));
    float in[6] = {1, 2, 3, 4, 5, 6};
    int32_t good[2] = {3, 2}, inferred[2] = {-1, 2}, bad[2] = {2, 3};
    RUN_OK(&t, LG_PREC_F32, in, good);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 3, 2);
    CHECK_F32(v, 1, 2, 3, 4, 5, 6);
    RUN_OK(&t, LG_PREC_F32, in, inferred);
    RUN_FAILS(&t, LG_ERR_UNSUPPORTED, "RESHAPE", in, bad);
    CHECK(strstr(t.err.msg, "[2,3]") != NULL);
    kt_free(&t);
}

LG_TEST(k_shape_reshape_types_and_empty) {
    /* BOOL, INT8 and INT64 are copied by element size */
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_INT64, LG_DIMS(2, 2));
    int y = lg_b_tensor(&t.b, "y", LG_INT64, LG_DIMS(4));
    int b = lg_b_tensor(&t.b, "b", LG_BOOL, LG_DIMS(3));
    int by = lg_b_tensor(&t.b, "by", LG_BOOL, LG_DIMS(3, 1));
    int q = lg_b_tensor(&t.b, "q", LG_INT8, LG_DIMS(2));
    int qy = lg_b_tensor(&t.b, "qy", LG_INT8, LG_DIMS(1, 2));
    lg_b_op(&t.b, LG_OP_RESHAPE, LG_IDS(x, lg_b_const_i32(&t.b, "s", LG_DIMS(1), (const int32_t[]){4})), LG_IDS(y));
    lg_b_op(&t.b, LG_OP_RESHAPE, LG_IDS(b, lg_b_const_i32(&t.b, "s2", LG_DIMS(2), (const int32_t[]){-1, 1})), LG_IDS(by));
    lg_b_op(&t.b, LG_OP_RESHAPE, LG_IDS(q, lg_b_const_i32(&t.b, "s3", LG_DIMS(2), (const int32_t[]){1, 2})), LG_IDS(qy));
    lg_b_io(&t.b, LG_IDS(x, b, q), LG_IDS(y, by, qy));
    int64_t xi[4] = {1, -2, 3000000000LL, 4};
    uint8_t bi[3] = {1, 0, 1};
    int8_t qi[2] = {-128, 127};
    RUN_OK(&t, LG_PREC_F32, xi, bi, qi);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_INTS(v, LG_INT64, 1, -2, 3000000000LL, 4);
    v = kt_out(&t, 1);
    CHECK_SHAPE(v, 3, 1);
    CHECK_INTS(v, LG_BOOL, 1, 0, 1);
    v = kt_out(&t, 2);
    CHECK_INTS(v, LG_INT8, -128, 127);
    kt_free(&t);

    /* 0 elements: [0,4] -> [-1, 2] infers 0 */
    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(0, 4));
    y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(0, 2));
    lg_b_op(&t.b, LG_OP_RESHAPE, LG_IDS(x, lg_b_const_i32(&t.b, "s", LG_DIMS(2), (const int32_t[]){-1, 2})), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    float dummy = 0;
    RUN_OK(&t, LG_PREC_F32, &dummy);
    v = kt_out(&t, 0);
    CHECK_SHAPE(v, 0, 2);
    CHECK_EQ_INT(v.numel, 0);
    kt_free(&t);
}

LG_TEST(k_shape_reshape_bad_shapes) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(6));
    lg_b_op(&t.b, LG_OP_RESHAPE, LG_IDS(x, lg_b_const_i32(&t.b, "s", LG_DIMS(2), (const int32_t[]){-1, -1})), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    float in[6] = {0};
    RUN_FAILS(&t, LG_ERR_FORMAT, "more than one -1", in);
    CHECK(strstr(t.err.msg, "op 0 (RESHAPE)") != NULL);
    kt_free(&t);

    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(4));
    lg_b_op(&t.b, LG_OP_RESHAPE, LG_IDS(x, lg_b_const_i32(&t.b, "s", LG_DIMS(1), (const int32_t[]){4})), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    RUN_FAILS(&t, LG_ERR_FORMAT, "cannot reshape [2,3] (6 elements) to [4] (4 elements)", in);
    kt_free(&t);
}

/* ------------------------------------------------------------------ SQUEEZE, EXPAND_DIMS */

LG_TEST(k_shape_squeeze_all_and_listed_dims) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(1, 2, 1, 3));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(2, 3));
    int y2 = lg_b_tensor(&t.b, "y2", LG_FLOAT32, LG_DIMS(1, 2, 3));
    lg_b_op(&t.b, LG_OP_SQUEEZE, LG_IDS(x), LG_IDS(y));
    lg_squeeze_options o = {{(const int32_t[]){-2}, 1}};
    lg_b_op_opts(&t.b, LG_OP_SQUEEZE, LG_IDS(x), LG_IDS(y2), LG_OPTS_SQUEEZE_OPTIONS, &o);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y, y2));
    float in[6] = {1, 2, 3, 4, 5, 6};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 2, 3);
    CHECK_F32(v, 1, 2, 3, 4, 5, 6);
    v = kt_out(&t, 1);
    CHECK_SHAPE(v, 1, 2, 3);
    kt_free(&t);

    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(1, 2));
    y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(1));
    lg_squeeze_options bad = {{(const int32_t[]){1}, 1}};
    lg_b_op_opts(&t.b, LG_OP_SQUEEZE, LG_IDS(x), LG_IDS(y), LG_OPTS_SQUEEZE_OPTIONS, &bad);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    RUN_FAILS(&t, LG_ERR_FORMAT, "cannot squeeze dimension 1 of size 2", in);
    kt_free(&t);
}

LG_TEST(k_shape_expand_dims_axes) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_INT32, LG_DIMS(2, 2));
    int y0 = lg_b_tensor(&t.b, "y0", LG_INT32, LG_DIMS(1, 2, 2));
    int y1 = lg_b_tensor(&t.b, "y1", LG_INT32, LG_DIMS(2, 2, 1));
    int y2 = lg_b_tensor(&t.b, "y2", LG_INT32, LG_DIMS(2, 1, 2));
    lg_b_op(&t.b, LG_OP_EXPAND_DIMS, LG_IDS(x, lg_b_const_i32(&t.b, "a0", LG_SCALAR, (const int32_t[]){0})), LG_IDS(y0));
    lg_b_op(&t.b, LG_OP_EXPAND_DIMS, LG_IDS(x, lg_b_const_i32(&t.b, "a1", LG_DIMS(1), (const int32_t[]){-1})), LG_IDS(y1));
    int64_t one = 1;
    lg_b_op(&t.b, LG_OP_EXPAND_DIMS, LG_IDS(x, lg_b_const(&t.b, "a2", LG_INT64, LG_SCALAR, &one, 8)), LG_IDS(y2));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y0, y1, y2));
    int32_t in[4] = {9, 8, 7, 6};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 1, 2, 2);
    CHECK_INTS(v, LG_INT32, 9, 8, 7, 6);
    v = kt_out(&t, 1);
    CHECK_SHAPE(v, 2, 2, 1);
    v = kt_out(&t, 2);
    CHECK_SHAPE(v, 2, 1, 2);
    CHECK_INTS(v, LG_INT32, 9, 8, 7, 6);
    kt_free(&t);

    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_INT32, LG_DIMS(2));
    y0 = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(2, 1));
    lg_b_op(&t.b, LG_OP_EXPAND_DIMS, LG_IDS(x, lg_b_const_i32(&t.b, "a", LG_SCALAR, (const int32_t[]){3})), LG_IDS(y0));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y0));
    RUN_FAILS(&t, LG_ERR_FORMAT, "axis out of range for a tensor of rank 1", in);
    kt_free(&t);
}

/* ------------------------------------------------------------------ TRANSPOSE */

LG_TEST(k_shape_transpose_3d_against_index_formula) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 3, 4));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(4, 2, 3));
    lg_b_op(&t.b, LG_OP_TRANSPOSE, LG_IDS(x, lg_b_const_i32(&t.b, "p", LG_DIMS(3), (const int32_t[]){2, 0, 1})), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    float *in = iota(24);
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 4, 2, 3);
    float want[24];
    /* y[c][a][b] = x[a][b][c] = a*12 + b*4 + c */
    for (int c = 0; c < 4; c++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 3; b++) want[c * 6 + a * 3 + b] = (float)(a * 12 + b * 4 + c);
    kt_check_view_f32(__FILE__, __LINE__, NULL, &v, want, 24, 0, KT_BITS);
    free(in);
    kt_free(&t);
}

LG_TEST(k_shape_transpose_nhwc_to_nchw_int32_and_inner_kept) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_INT32, LG_DIMS(1, 2, 2, 3));
    int y = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(1, 3, 2, 2));
    int y2 = lg_b_tensor(&t.b, "y2", LG_INT32, LG_DIMS(2, 1, 2, 3)); /* innermost kept: memcpy runs */
    lg_b_op(&t.b, LG_OP_TRANSPOSE, LG_IDS(x, lg_b_const_i32(&t.b, "p", LG_DIMS(4), (const int32_t[]){0, 3, 1, 2})), LG_IDS(y));
    lg_b_op(&t.b, LG_OP_TRANSPOSE, LG_IDS(x, lg_b_const_i32(&t.b, "p2", LG_DIMS(4), (const int32_t[]){1, 0, 2, 3})),
            LG_IDS(y2));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y, y2));
    /* x[h][w][c] = 100h + 10w + c */
    int32_t in[12];
    for (int h = 0; h < 2; h++)
        for (int w = 0; w < 2; w++)
            for (int c = 0; c < 3; c++) in[(h * 2 + w) * 3 + c] = 100 * h + 10 * w + c;
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_INTS(v, LG_INT32, 0, 10, 100, 110, 1, 11, 101, 111, 2, 12, 102, 112);
    v = kt_out(&t, 1);
    CHECK_INTS(v, LG_INT32, 0, 1, 2, 10, 11, 12, 100, 101, 102, 110, 111, 112);
    kt_free(&t);

    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_INT32, LG_DIMS(2, 2));
    y = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(2, 2));
    lg_b_op(&t.b, LG_OP_TRANSPOSE, LG_IDS(x, lg_b_const_i32(&t.b, "p", LG_DIMS(2), (const int32_t[]){1, 1})), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    RUN_FAILS(&t, LG_ERR_FORMAT, "not a permutation", in);
    kt_free(&t);
}

LG_TEST(k_shape_transpose_f16_mode_keeps_half_values) {
    /* In LG_PREC_F16 the input is stored as half; moving it changes nothing. */
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 2));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(2, 2));
    lg_b_op(&t.b, LG_OP_TRANSPOSE, LG_IDS(x, lg_b_const_i32(&t.b, "p", LG_DIMS(2), (const int32_t[]){1, 0})), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    float in[4] = {0.1f, 70000.0f, -1e-8f, 3.0f};
    RUN_OK(&t, LG_PREC_F16, in);
    lg_tensor_view v = kt_out(&t, 0);
    float want[4] = {lg_round_half(0.1f), lg_round_half(-1e-8f), INFINITY, 3.0f};
    kt_check_view_f32(__FILE__, __LINE__, NULL, &v, want, 4, 0, KT_BITS);
    kt_free(&t);
}

/* ------------------------------------------------------------------ CONCATENATION, PACK */

LG_TEST(k_shape_concat_axis1_and_negative_axis) {
    kt_model t;
    kt_init(&t);
    int a = lg_b_tensor(&t.b, "a", LG_FLOAT32, LG_DIMS(2, 2));
    int b = lg_b_tensor(&t.b, "b", LG_FLOAT32, LG_DIMS(2, 3));
    int e = lg_b_tensor(&t.b, "e", LG_FLOAT32, LG_DIMS(2, 0)); /* empty input */
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(2, 5));
    int y2 = lg_b_tensor(&t.b, "y2", LG_FLOAT32, LG_DIMS(2, 5));
    lg_concatenation_options o = {1, 0}, o2 = {-1, 0};
    lg_b_op_opts(&t.b, LG_OP_CONCATENATION, LG_IDS(a, b), LG_IDS(y), LG_OPTS_CONCATENATION_OPTIONS, &o);
    lg_b_op_opts(&t.b, LG_OP_CONCATENATION, LG_IDS(a, e, b), LG_IDS(y2), LG_OPTS_CONCATENATION_OPTIONS, &o2);
    lg_b_io(&t.b, LG_IDS(a, b, e), LG_IDS(y, y2));
    float ai[4] = {1, 2, 3, 4}, bi[6] = {10, 20, 30, 40, 50, 60}, ei[1] = {0};
    RUN_OK(&t, LG_PREC_F32, ai, bi, ei);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 2, 5);
    CHECK_F32(v, 1, 2, 10, 20, 30, 3, 4, 40, 50, 60);
    v = kt_out(&t, 1);
    CHECK_F32(v, 1, 2, 10, 20, 30, 3, 4, 40, 50, 60);
    kt_free(&t);
}

LG_TEST(k_shape_concat_axis0_int8_and_fused_relu6) {
    kt_model t;
    kt_init(&t);
    int a = lg_b_tensor(&t.b, "a", LG_INT8, LG_DIMS(1, 2));
    int b = lg_b_tensor(&t.b, "b", LG_INT8, LG_DIMS(2, 2));
    int y = lg_b_tensor(&t.b, "y", LG_INT8, LG_DIMS(3, 2));
    int f = lg_b_tensor(&t.b, "f", LG_FLOAT32, LG_DIMS(3));
    int g = lg_b_tensor(&t.b, "g", LG_FLOAT32, LG_DIMS(1));
    int fy = lg_b_tensor(&t.b, "fy", LG_FLOAT32, LG_DIMS(4));
    lg_concatenation_options o = {0, 0}, relu6 = {0, LG_ACTIVATION_FUNCTION_TYPE_RELU6};
    lg_b_op_opts(&t.b, LG_OP_CONCATENATION, LG_IDS(a, b), LG_IDS(y), LG_OPTS_CONCATENATION_OPTIONS, &o);
    lg_b_op_opts(&t.b, LG_OP_CONCATENATION, LG_IDS(f, g), LG_IDS(fy), LG_OPTS_CONCATENATION_OPTIONS, &relu6);
    lg_b_io(&t.b, LG_IDS(a, b, f, g), LG_IDS(y, fy));
    int8_t ai[2] = {-1, 2}, bi[4] = {3, -4, 5, 127};
    float fi[3] = {-2, 3, 9}, gi[1] = {6.5f};
    RUN_OK(&t, LG_PREC_F32, ai, bi, fi, gi);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_INTS(v, LG_INT8, -1, 2, 3, -4, 5, 127);
    v = kt_out(&t, 1);
    CHECK_F32(v, 0, 3, 6, 6);
    kt_free(&t);

    /* an activation on integers is refused */
    kt_init(&t);
    a = lg_b_tensor(&t.b, "a", LG_INT32, LG_DIMS(1));
    y = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(2));
    lg_concatenation_options relu = {0, LG_ACTIVATION_FUNCTION_TYPE_RELU};
    lg_b_op_opts(&t.b, LG_OP_CONCATENATION, LG_IDS(a, a), LG_IDS(y), LG_OPTS_CONCATENATION_OPTIONS, &relu);
    lg_b_io(&t.b, LG_IDS(a), LG_IDS(y));
    int32_t one = 1;
    RUN_FAILS(&t, LG_ERR_UNSUPPORTED, "fused activation", &one);
    kt_free(&t);
}

LG_TEST(k_shape_concat_scalars_refused_and_mismatch) {
    kt_model t;
    kt_init(&t);
    int a = lg_b_tensor(&t.b, "a", LG_INT32, LG_SCALAR);
    int c = lg_b_const_i32(&t.b, "c", LG_SCALAR, (const int32_t[]){-5});
    int y = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(3));
    lg_concatenation_options o = {0, 0};
    lg_b_op_opts(&t.b, LG_OP_CONCATENATION, LG_IDS(c, a, c), LG_IDS(y), LG_OPTS_CONCATENATION_OPTIONS, &o);
    lg_b_io(&t.b, LG_IDS(a), LG_IDS(y));
    int32_t ai = 8;
    /* TFLite's concatenation.cc Prepare: TF_LITE_ENSURE(axis < t0->dims->size), so scalars do
       not concatenate (the op table holds models to it: the file is malformed) */
    RUN_FAILS(&t, LG_ERR_FORMAT, "axis 0 is out of range for rank 0", &ai);
    kt_free(&t);

    kt_init(&t);
    a = lg_b_tensor(&t.b, "a", LG_FLOAT32, LG_DIMS(2, 2));
    int b = lg_b_tensor(&t.b, "b", LG_FLOAT32, LG_DIMS(3, 3));
    y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(2, 5));
    lg_concatenation_options o1 = {1, 0};
    lg_b_op_opts(&t.b, LG_OP_CONCATENATION, LG_IDS(a, b), LG_IDS(y), LG_OPTS_CONCATENATION_OPTIONS, &o1);
    lg_b_io(&t.b, LG_IDS(a, b), LG_IDS(y));
    float z[9] = {0};
    RUN_FAILS(&t, LG_ERR_FORMAT, "has dimension 0 = 3, another input 2", z, z);
    kt_free(&t);
}

LG_TEST(k_shape_pack_axes) {
    kt_model t;
    kt_init(&t);
    int a = lg_b_tensor(&t.b, "a", LG_FLOAT32, LG_DIMS(2));
    int b = lg_b_tensor(&t.b, "b", LG_FLOAT32, LG_DIMS(2));
    int c = lg_b_tensor(&t.b, "c", LG_FLOAT32, LG_DIMS(2));
    int y0 = lg_b_tensor(&t.b, "y0", LG_FLOAT32, LG_DIMS(3, 2));
    int y1 = lg_b_tensor(&t.b, "y1", LG_FLOAT32, LG_DIMS(2, 3));
    lg_pack_options o0 = {3, 0}, o1 = {3, -1};
    lg_b_op_opts(&t.b, LG_OP_PACK, LG_IDS(a, b, c), LG_IDS(y0), LG_OPTS_PACK_OPTIONS, &o0);
    lg_b_op_opts(&t.b, LG_OP_PACK, LG_IDS(a, b, c), LG_IDS(y1), LG_OPTS_PACK_OPTIONS, &o1);
    lg_b_io(&t.b, LG_IDS(a, b, c), LG_IDS(y0, y1));
    float ai[2] = {1, 2}, bi[2] = {3, 4}, ci[2] = {5, 6};
    RUN_OK(&t, LG_PREC_F32, ai, bi, ci);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 1, 2, 3, 4, 5, 6);
    v = kt_out(&t, 1);
    CHECK_SHAPE(v, 2, 3);
    CHECK_F32(v, 1, 3, 5, 2, 4, 6);
    kt_free(&t);
}

/* ------------------------------------------------------------------ UNPACK, SPLIT, SPLIT_V */

LG_TEST(k_shape_unpack_axis1_and_axis0) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_INT32, LG_DIMS(2, 3));
    int o[3], p[2];
    for (int i = 0; i < 3; i++) o[i] = lg_b_tensor(&t.b, "o", LG_INT32, LG_DIMS(2));
    for (int i = 0; i < 2; i++) p[i] = lg_b_tensor(&t.b, "p", LG_INT32, LG_DIMS(3));
    lg_unpack_options u1 = {3, -1}, u0 = {2, 0};
    lg_b_op_opts(&t.b, LG_OP_UNPACK, LG_IDS(x), LG_IDS(o[0], o[1], o[2]), LG_OPTS_UNPACK_OPTIONS, &u1);
    lg_b_op_opts(&t.b, LG_OP_UNPACK, LG_IDS(x), LG_IDS(p[0], p[1]), LG_OPTS_UNPACK_OPTIONS, &u0);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(o[0], o[1], o[2], p[0], p[1]));
    int32_t in[6] = {1, 2, 3, 4, 5, 6};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_INTS(v, LG_INT32, 1, 4);
    v = kt_out(&t, 1);
    CHECK_INTS(v, LG_INT32, 2, 5);
    v = kt_out(&t, 2);
    CHECK_INTS(v, LG_INT32, 3, 6);
    v = kt_out(&t, 3);
    CHECK_INTS(v, LG_INT32, 1, 2, 3);
    v = kt_out(&t, 4);
    CHECK_INTS(v, LG_INT32, 4, 5, 6);
    kt_free(&t);
}

LG_TEST(k_shape_split_equal_parts) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 4));
    int a = lg_b_tensor(&t.b, "a", LG_FLOAT32, LG_DIMS(2, 2));
    int b = lg_b_tensor(&t.b, "b", LG_FLOAT32, LG_DIMS(2, 2));
    lg_split_options o = {2};
    lg_b_op_opts(&t.b, LG_OP_SPLIT, LG_IDS(lg_b_const_i32(&t.b, "ax", LG_SCALAR, (const int32_t[]){-1}), x), LG_IDS(a, b),
                 LG_OPTS_SPLIT_OPTIONS, &o);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(a, b));
    float in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 1, 2, 5, 6);
    v = kt_out(&t, 1);
    CHECK_F32(v, 3, 4, 7, 8);
    kt_free(&t);

    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(3));
    a = lg_b_tensor(&t.b, "a", LG_FLOAT32, LG_DIMS(1));
    b = lg_b_tensor(&t.b, "b", LG_FLOAT32, LG_DIMS(1));
    lg_b_op_opts(&t.b, LG_OP_SPLIT, LG_IDS(lg_b_const_i32(&t.b, "ax", LG_SCALAR, (const int32_t[]){0}), x), LG_IDS(a, b),
                 LG_OPTS_SPLIT_OPTIONS, &o);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(a, b));
    RUN_FAILS(&t, LG_ERR_FORMAT, "dimension 0 of size 3 does not split evenly in 2", in);
    kt_free(&t);
}

LG_TEST(k_shape_split_v_inferred_size) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_INT64, LG_DIMS(5, 1));
    int a = lg_b_tensor(&t.b, "a", LG_INT64, LG_DIMS(1, 1));
    int b = lg_b_tensor(&t.b, "b", LG_INT64, LG_DIMS(3, 1));
    int c = lg_b_tensor(&t.b, "c", LG_INT64, LG_DIMS(1, 1));
    lg_split_v_options o = {3};
    lg_b_op_opts(&t.b, LG_OP_SPLIT_V,
                 LG_IDS(x, lg_b_const_i32(&t.b, "sz", LG_DIMS(3), (const int32_t[]){1, -1, 1}),
                        lg_b_const_i32(&t.b, "ax", LG_SCALAR, (const int32_t[]){0})),
                 LG_IDS(a, b, c), LG_OPTS_SPLIT_V_OPTIONS, &o);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(a, b, c));
    int64_t in[5] = {10, 20, 30, 40, 50};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_INTS(v, LG_INT64, 10);
    v = kt_out(&t, 1);
    CHECK_SHAPE(v, 3, 1);
    CHECK_INTS(v, LG_INT64, 20, 30, 40);
    v = kt_out(&t, 2);
    CHECK_INTS(v, LG_INT64, 50);
    kt_free(&t);

    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_INT64, LG_DIMS(5));
    a = lg_b_tensor(&t.b, "a", LG_INT64, LG_DIMS(2));
    b = lg_b_tensor(&t.b, "b", LG_INT64, LG_DIMS(2));
    lg_split_v_options o2 = {2};
    lg_b_op_opts(&t.b, LG_OP_SPLIT_V,
                 LG_IDS(x, lg_b_const_i32(&t.b, "sz", LG_DIMS(2), (const int32_t[]){-1, -1}),
                        lg_b_const_i32(&t.b, "ax", LG_SCALAR, (const int32_t[]){0})),
                 LG_IDS(a, b), LG_OPTS_SPLIT_V_OPTIONS, &o2);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(a, b));
    RUN_FAILS(&t, LG_ERR_FORMAT, "more than one -1", in);
    kt_free(&t);
}

/* ------------------------------------------------------------------ SLICE */

LG_TEST(k_shape_slice_size_minus_one_and_bounds) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(3, 4));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(2, 3));
    int64_t b64[2] = {0, 3}, s64[2] = {-1, 1};
    int y2 = lg_b_tensor(&t.b, "y2", LG_FLOAT32, LG_DIMS(3, 1));
    lg_b_op(&t.b, LG_OP_SLICE,
            LG_IDS(x, lg_b_const_i32(&t.b, "b", LG_DIMS(2), (const int32_t[]){1, 1}),
                   lg_b_const_i32(&t.b, "s", LG_DIMS(2), (const int32_t[]){2, -1})),
            LG_IDS(y));
    lg_b_op(&t.b, LG_OP_SLICE,
            LG_IDS(x, lg_b_const(&t.b, "b2", LG_INT64, LG_DIMS(2), b64, 16), lg_b_const(&t.b, "s2", LG_INT64, LG_DIMS(2), s64, 16)),
            LG_IDS(y2));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y, y2));
    float *in = iota(12);
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 2, 3);
    CHECK_F32(v, 5, 6, 7, 9, 10, 11);
    v = kt_out(&t, 1);
    CHECK_F32(v, 3, 7, 11);
    kt_free(&t);

    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(3, 4));
    y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(2, 3));
    lg_b_op(&t.b, LG_OP_SLICE,
            LG_IDS(x, lg_b_const_i32(&t.b, "b", LG_DIMS(2), (const int32_t[]){2, 1}),
                   lg_b_const_i32(&t.b, "s", LG_DIMS(2), (const int32_t[]){2, 3})),
            LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    RUN_FAILS(&t, LG_ERR_FORMAT, "begin 2 + size 2 exceed dimension 0 of size 3", in);
    kt_free(&t);
    free(in);
}

/* ------------------------------------------------------------------ STRIDED_SLICE */

/* A one-op STRIDED_SLICE on a float input of shape `in` filled with 0, 1, 2, ... */
static void ss_model(kt_model *t, lg_dims in, lg_dims out, const int32_t *b, const int32_t *e, const int32_t *s, uint32_t n,
                     const lg_strided_slice_options *o) {
    kt_init(t);
    int x = lg_b_tensor(&t->b, "x", LG_FLOAT32, in);
    int y = lg_b_tensor(&t->b, "y", LG_FLOAT32, out);
    int32_t nn[1] = {(int32_t)n};
    lg_dims d1 = {nn, 1};
    int bt = lg_b_const_i32(&t->b, "b", d1, b), et = lg_b_const_i32(&t->b, "e", d1, e), st = lg_b_const_i32(&t->b, "s", d1, s);
    lg_b_op_opts(&t->b, LG_OP_STRIDED_SLICE, LG_IDS(x, bt, et, st), LG_IDS(y), LG_OPTS_STRIDED_SLICE_OPTIONS, o);
    lg_b_io(&t->b, LG_IDS(x), LG_IDS(y));
}

LG_TEST(k_shape_strided_slice_basic_negative_stride_and_masks) {
    float *in = iota(64);
    kt_model t;
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    ss_model(&t, LG_DIMS(4), LG_DIMS(2), (const int32_t[]){1}, (const int32_t[]){3}, (const int32_t[]){1}, 1, &o);
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 1, 2);
    kt_free(&t);

    /* x[-1:-4:-1] of [0,1,2,3] = [3,2,1] */
    ss_model(&t, LG_DIMS(4), LG_DIMS(3), (const int32_t[]){-1}, (const int32_t[]){-4}, (const int32_t[]){-1}, 1, &o);
    RUN_OK(&t, LG_PREC_F32, in);
    v = kt_out(&t, 0);
    CHECK_F32(v, 3, 2, 1);
    kt_free(&t);

    /* begin_mask: x[:3] ; end_mask: x[1:] */
    o.begin_mask = 1;
    ss_model(&t, LG_DIMS(4), LG_DIMS(3), (const int32_t[]){1}, (const int32_t[]){3}, (const int32_t[]){1}, 1, &o);
    RUN_OK(&t, LG_PREC_F32, in);
    v = kt_out(&t, 0);
    CHECK_F32(v, 0, 1, 2);
    kt_free(&t);
    o.begin_mask = 0;
    o.end_mask = 1;
    ss_model(&t, LG_DIMS(4), LG_DIMS(3), (const int32_t[]){1}, (const int32_t[]){3}, (const int32_t[]){1}, 1, &o);
    RUN_OK(&t, LG_PREC_F32, in);
    v = kt_out(&t, 0);
    CHECK_F32(v, 1, 2, 3);
    kt_free(&t);

    /* x[::-1] with both masks and a negative stride: the whole axis reversed */
    o.begin_mask = o.end_mask = 1;
    ss_model(&t, LG_DIMS(4), LG_DIMS(4), (const int32_t[]){0}, (const int32_t[]){0}, (const int32_t[]){-1}, 1, &o);
    RUN_OK(&t, LG_PREC_F32, in);
    v = kt_out(&t, 0);
    CHECK_F32(v, 3, 2, 1, 0);
    kt_free(&t);

    /* x[1:100:3] of 0..9: end clamps to 10 -> 1, 4, 7 */
    memset(&o, 0, sizeof o);
    ss_model(&t, LG_DIMS(10), LG_DIMS(3), (const int32_t[]){1}, (const int32_t[]){100}, (const int32_t[]){3}, 1, &o);
    RUN_OK(&t, LG_PREC_F32, in);
    v = kt_out(&t, 0);
    CHECK_F32(v, 1, 4, 7);
    kt_free(&t);

    /* x[2:1] is empty */
    ss_model(&t, LG_DIMS(4), LG_DIMS(0), (const int32_t[]){2}, (const int32_t[]){1}, (const int32_t[]){1}, 1, &o);
    RUN_OK(&t, LG_PREC_F32, in);
    v = kt_out(&t, 0);
    CHECK_EQ_INT(v.numel, 0);
    kt_free(&t);

    /* 2-D with a stride on both axes: x[1:, ::2] of a 3x4 */
    o.end_mask = 3;
    o.begin_mask = 2;
    ss_model(&t, LG_DIMS(3, 4), LG_DIMS(2, 2), (const int32_t[]){1, 0}, (const int32_t[]){0, 0}, (const int32_t[]){1, 2}, 2, &o);
    RUN_OK(&t, LG_PREC_F32, in);
    v = kt_out(&t, 0);
    CHECK_F32(v, 4, 6, 8, 10);
    kt_free(&t);
    free(in);
}

LG_TEST(k_shape_strided_slice_shrink_ellipsis_new_axis_offset) {
    float *in = iota(64);
    kt_model t;
    lg_strided_slice_options o;
    /* shrink: x[1] of a 2x3 -> [3, 4, 5] */
    memset(&o, 0, sizeof o);
    o.shrink_axis_mask = 1;
    ss_model(&t, LG_DIMS(2, 3), LG_DIMS(3), (const int32_t[]){1, 0}, (const int32_t[]){2, 3}, (const int32_t[]){1, 1}, 2, &o);
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 3);
    CHECK_F32(v, 3, 4, 5);
    kt_free(&t);

    /* shrink with a negative index: x[-1] of [0,1,2] -> scalar 2 */
    ss_model(&t, LG_DIMS(3), LG_SCALAR, (const int32_t[]){-1}, (const int32_t[]){0}, (const int32_t[]){1}, 1, &o);
    RUN_OK(&t, LG_PREC_F32, in);
    v = kt_out(&t, 0);
    CHECK_SCALAR(v);
    CHECK_F32(v, 2);
    kt_free(&t);

    /* shrink out of range is an error, not garbage */
    ss_model(&t, LG_DIMS(3), LG_SCALAR, (const int32_t[]){3}, (const int32_t[]){4}, (const int32_t[]){1}, 1, &o);
    RUN_FAILS(&t, LG_ERR_FORMAT, "out of range", in);
    kt_free(&t);

    /* ellipsis: x[..., 1] of 2x3x4 -> 2x3, element (a,b) = a*12 + b*4 + 1 */
    memset(&o, 0, sizeof o);
    o.ellipsis_mask = 1;
    o.shrink_axis_mask = 2;
    ss_model(&t, LG_DIMS(2, 3, 4), LG_DIMS(2, 3), (const int32_t[]){0, 1}, (const int32_t[]){0, 2}, (const int32_t[]){1, 1}, 2,
             &o);
    RUN_OK(&t, LG_PREC_F32, in);
    v = kt_out(&t, 0);
    CHECK_SHAPE(v, 2, 3);
    CHECK_F32(v, 1, 5, 9, 13, 17, 21);
    kt_free(&t);

    /* ellipsis in the middle: x[0, ..., 1:3] of 2x3x4 -> shape [3, 2] */
    memset(&o, 0, sizeof o);
    o.ellipsis_mask = 2;
    o.shrink_axis_mask = 1;
    ss_model(&t, LG_DIMS(2, 3, 4), LG_DIMS(3, 2), (const int32_t[]){0, 0, 1}, (const int32_t[]){1, 0, 3},
             (const int32_t[]){1, 1, 1}, 3, &o);
    RUN_OK(&t, LG_PREC_F32, in);
    v = kt_out(&t, 0);
    CHECK_SHAPE(v, 3, 2);
    CHECK_F32(v, 1, 2, 5, 6, 9, 10);
    kt_free(&t);

    /* new axis: x[newaxis, 1:2] of 2x3 -> [1, 1, 3] = row 1 */
    memset(&o, 0, sizeof o);
    o.new_axis_mask = 1;
    ss_model(&t, LG_DIMS(2, 3), LG_DIMS(1, 1, 3), (const int32_t[]){0, 1}, (const int32_t[]){0, 2}, (const int32_t[]){1, 1}, 2,
             &o);
    RUN_OK(&t, LG_PREC_F32, in);
    v = kt_out(&t, 0);
    CHECK_SHAPE(v, 1, 1, 3);
    CHECK_F32(v, 3, 4, 5);
    kt_free(&t);

    /* offset: end is a size: x[1:1+2] of [0..4] */
    memset(&o, 0, sizeof o);
    o.offset = true;
    ss_model(&t, LG_DIMS(5), LG_DIMS(2), (const int32_t[]){1}, (const int32_t[]){2}, (const int32_t[]){1}, 1, &o);
    RUN_OK(&t, LG_PREC_F32, in);
    v = kt_out(&t, 0);
    CHECK_F32(v, 1, 2);
    kt_free(&t);

    /* offset running past the input: TFLite would leave part of the output unwritten */
    ss_model(&t, LG_DIMS(5), LG_DIMS(4), (const int32_t[]){3}, (const int32_t[]){4}, (const int32_t[]){1}, 1, &o);
    RUN_FAILS(&t, LG_ERR_UNSUPPORTED, "offset", in);
    kt_free(&t);
    free(in);
}

LG_TEST(k_shape_strided_slice_runtime_begin_unsupported) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(4));
    int bt = lg_b_tensor(&t.b, "b", LG_INT32, LG_DIMS(1));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(2));
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    lg_b_op_opts(&t.b, LG_OP_STRIDED_SLICE,
                 LG_IDS(x, bt, lg_b_const_i32(&t.b, "e", LG_DIMS(1), (const int32_t[]){3}),
                        lg_b_const_i32(&t.b, "s", LG_DIMS(1), (const int32_t[]){1})),
                 LG_IDS(y), LG_OPTS_STRIDED_SLICE_OPTIONS, &o);
    lg_b_io(&t.b, LG_IDS(x, bt), LG_IDS(y));
    float in[4] = {0};
    int32_t b = 1;
    RUN_FAILS(&t, LG_ERR_UNSUPPORTED, "must be constant", in, &b);
    CHECK(strstr(t.err.msg, "STRIDED_SLICE") != NULL);
    kt_free(&t);
}

/* ------------------------------------------------------------------ PAD, PADV2, MIRROR_PAD */

LG_TEST(k_shape_pad_float_and_padv2_value) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 2));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(3, 4));
    int y2 = lg_b_tensor(&t.b, "y2", LG_FLOAT32, LG_DIMS(3, 4));
    int p = lg_b_const_i32(&t.b, "p", LG_DIMS(2, 2), (const int32_t[]){1, 0, 0, 2});
    lg_b_op(&t.b, LG_OP_PAD, LG_IDS(x, p), LG_IDS(y));
    lg_b_op(&t.b, LG_OP_PADV2, LG_IDS(x, p, lg_b_const_f32(&t.b, "c", LG_SCALAR, (const float[]){9.5f})), LG_IDS(y2));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y, y2));
    float in[4] = {1, 2, 3, 4};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 3, 4);
    CHECK_F32(v, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0);
    v = kt_out(&t, 1);
    CHECK_F32(v, 9.5f, 9.5f, 9.5f, 9.5f, 1, 2, 9.5f, 9.5f, 3, 4, 9.5f, 9.5f);
    kt_free(&t);
}

LG_TEST(k_shape_pad_nhwc_against_index_formula) {
    /* pads on H, W and C of a 1x2x3x2 tensor (int64 paddings), value from a run-time input */
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(1, 2, 3, 2));
    int c = lg_b_tensor(&t.b, "c", LG_FLOAT32, LG_SCALAR);
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(1, 5, 4, 5));
    int64_t pads[8] = {0, 0, 2, 1, 0, 1, 1, 2};
    lg_b_op(&t.b, LG_OP_PADV2, LG_IDS(x, lg_b_const(&t.b, "p", LG_INT64, LG_DIMS(4, 2), pads, sizeof pads), c), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x, c), LG_IDS(y));
    float *in = iota(12);
    float cv = -1;
    RUN_OK(&t, LG_PREC_F32, in, &cv);
    lg_tensor_view v = kt_out(&t, 0);
    float want[100];
    const int32_t os[4] = {1, 5, 4, 5}, is[4] = {1, 2, 3, 2};
    for (int64_t i = 0; i < 100; i++) {
        int64_t idx[4], src[4];
        flat_to_idx(i, os, 4, idx);
        int inside = 1;
        for (int d = 0; d < 4; d++) {
            src[d] = idx[d] - pads[2 * d];
            inside &= src[d] >= 0 && src[d] < is[d];
        }
        want[i] = inside ? in[idx_to_flat(src, is, 4)] : -1;
    }
    kt_check_view_f32(__FILE__, __LINE__, NULL, &v, want, 100, 0, KT_BITS);
    free(in);
    kt_free(&t);
}

LG_TEST(k_shape_pad_int8_uses_zero_point_and_errors) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_INT8, LG_DIMS(2));
    int y = lg_b_tensor(&t.b, "y", LG_INT8, LG_DIMS(4));
    lg_tensor_set_quant(t.m, 0, (uint32_t)x, (const float[]){0.5f}, (const int64_t[]){-3}, 1, 0, &t.err);
    lg_tensor_set_quant(t.m, 0, (uint32_t)y, (const float[]){0.5f}, (const int64_t[]){-3}, 1, 0, &t.err);
    lg_b_op(&t.b, LG_OP_PAD, LG_IDS(x, lg_b_const_i32(&t.b, "p", LG_DIMS(1, 2), (const int32_t[]){1, 1})), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    int8_t in[2] = {5, -6};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_INTS(v, LG_INT8, -3, 5, -6, -3);
    kt_free(&t);

    /* negative padding */
    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2));
    y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(1));
    lg_b_op(&t.b, LG_OP_PAD, LG_IDS(x, lg_b_const_i32(&t.b, "p", LG_DIMS(1, 2), (const int32_t[]){-1, 0})), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    float f[2] = {0};
    RUN_FAILS(&t, LG_ERR_FORMAT, "negative", f);
    kt_free(&t);

    /* paddings computed at run time */
    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2));
    int p = lg_b_tensor(&t.b, "p", LG_INT32, LG_DIMS(1, 2));
    y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(3));
    lg_b_op(&t.b, LG_OP_PAD, LG_IDS(x, p), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x, p), LG_IDS(y));
    int32_t pv[2] = {1, 0};
    RUN_FAILS(&t, LG_ERR_UNSUPPORTED, "must be constant", f, pv);
    kt_free(&t);
}

LG_TEST(k_shape_pad_one_element_and_no_padding) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(1, 1));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(1, 1));
    int y2 = lg_b_tensor(&t.b, "y2", LG_FLOAT32, LG_DIMS(3, 1));
    lg_b_op(&t.b, LG_OP_PAD, LG_IDS(x, lg_b_const_i32(&t.b, "p", LG_DIMS(2, 2), (const int32_t[]){0, 0, 0, 0})), LG_IDS(y));
    lg_b_op(&t.b, LG_OP_PAD, LG_IDS(x, lg_b_const_i32(&t.b, "p2", LG_DIMS(2, 2), (const int32_t[]){1, 1, 0, 0})), LG_IDS(y2));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y, y2));
    float in = 7;
    RUN_OK(&t, LG_PREC_F32, &in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 7);
    v = kt_out(&t, 1);
    CHECK_F32(v, 0, 7, 0);
    kt_free(&t);
}

LG_TEST(k_shape_mirror_pad_reflect_and_symmetric_1d) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(3));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(7));
    int y2 = lg_b_tensor(&t.b, "y2", LG_FLOAT32, LG_DIMS(8));
    lg_mirror_pad_options r = {LG_MIRROR_PAD_MODE_REFLECT}, s = {LG_MIRROR_PAD_MODE_SYMMETRIC};
    lg_b_op_opts(&t.b, LG_OP_MIRROR_PAD, LG_IDS(x, lg_b_const_i32(&t.b, "p", LG_DIMS(1, 2), (const int32_t[]){2, 2})),
                 LG_IDS(y), LG_OPTS_MIRROR_PAD_OPTIONS, &r);
    lg_b_op_opts(&t.b, LG_OP_MIRROR_PAD, LG_IDS(x, lg_b_const_i32(&t.b, "p2", LG_DIMS(1, 2), (const int32_t[]){3, 2})),
                 LG_IDS(y2), LG_OPTS_MIRROR_PAD_OPTIONS, &s);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y, y2));
    float in[3] = {1, 2, 3};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 3, 2, 1, 2, 3, 2, 1);
    v = kt_out(&t, 1);
    CHECK_F32(v, 3, 2, 1, 1, 2, 3, 3, 2);
    kt_free(&t);

    /* REFLECT allows at most dim - 1 */
    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(3));
    y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(6));
    lg_b_op_opts(&t.b, LG_OP_MIRROR_PAD, LG_IDS(x, lg_b_const_i32(&t.b, "p", LG_DIMS(1, 2), (const int32_t[]){3, 0})),
                 LG_IDS(y), LG_OPTS_MIRROR_PAD_OPTIONS, &r);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    RUN_FAILS(&t, LG_ERR_FORMAT, "REFLECT", in);
    kt_free(&t);
}

/* The mirrored index of p in [0, out) for a dim of size n padded by `before` (naive). */
static int64_t mirror_index(int64_t p, int64_t before, int64_t n, int reflect) {
    int64_t q = p - before;
    while (q < 0 || q >= n) {
        if (q < 0) q = reflect ? -q : -q - 1;
        if (q >= n) q = reflect ? 2 * (n - 1) - q : 2 * n - 1 - q;
    }
    return q;
}

LG_TEST(k_shape_mirror_pad_2d_against_naive) {
    for (int mode = 0; mode < 2; mode++) {
        kt_model t;
        kt_init(&t);
        int x = lg_b_tensor(&t.b, "x", LG_INT32, LG_DIMS(1, 3, 4, 2));
        int y = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(1, 6, 6, 2));
        const int32_t pads[8] = {0, 0, 2, 1, 1, 1, 0, 0};
        lg_mirror_pad_options o = {(int8_t)mode};
        lg_b_op_opts(&t.b, LG_OP_MIRROR_PAD, LG_IDS(x, lg_b_const_i32(&t.b, "p", LG_DIMS(4, 2), pads)), LG_IDS(y),
                     LG_OPTS_MIRROR_PAD_OPTIONS, &o);
        lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
        int32_t in[24];
        for (int i = 0; i < 24; i++) in[i] = 100 + i;
        RUN_OK(&t, LG_PREC_F32, in);
        lg_tensor_view v = kt_out(&t, 0);
        int64_t want[72];
        const int32_t os[4] = {1, 6, 6, 2}, is[4] = {1, 3, 4, 2};
        for (int64_t i = 0; i < 72; i++) {
            int64_t idx[4], src[4];
            flat_to_idx(i, os, 4, idx);
            for (int d = 0; d < 4; d++) src[d] = mirror_index(idx[d], pads[2 * d], is[d], mode == 0);
            want[i] = in[idx_to_flat(src, is, 4)];
        }
        kt_check_view_ints(__FILE__, __LINE__, NULL, &v, LG_INT32, want, 72);
        kt_free(&t);
    }
}

/* ------------------------------------------------------------------ GATHER, GATHER_ND */

LG_TEST(k_shape_gather_axes_batch_dims_and_scalar_index) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(3, 2));
    int y0 = lg_b_tensor(&t.b, "y0", LG_FLOAT32, LG_DIMS(2, 2));
    int y1 = lg_b_tensor(&t.b, "y1", LG_FLOAT32, LG_DIMS(3, 3));
    int y2 = lg_b_tensor(&t.b, "y2", LG_FLOAT32, LG_DIMS(2));
    int64_t i64[3] = {1, 0, 1};
    lg_gather_options g0 = {0, 0}, g1 = {-1, 0};
    lg_b_op_opts(&t.b, LG_OP_GATHER, LG_IDS(x, lg_b_const_i32(&t.b, "i", LG_DIMS(2), (const int32_t[]){2, 0})), LG_IDS(y0),
                 LG_OPTS_GATHER_OPTIONS, &g0);
    lg_b_op_opts(&t.b, LG_OP_GATHER, LG_IDS(x, lg_b_const(&t.b, "i64", LG_INT64, LG_DIMS(3), i64, sizeof i64)), LG_IDS(y1),
                 LG_OPTS_GATHER_OPTIONS, &g1);
    lg_b_op_opts(&t.b, LG_OP_GATHER, LG_IDS(x, lg_b_const_i32(&t.b, "s", LG_SCALAR, (const int32_t[]){1})), LG_IDS(y2),
                 LG_OPTS_GATHER_OPTIONS, &g0);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y0, y1, y2));
    float in[6] = {1, 2, 3, 4, 5, 6};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 5, 6, 1, 2);
    v = kt_out(&t, 1);
    CHECK_F32(v, 2, 1, 2, 4, 3, 4, 6, 5, 6);
    v = kt_out(&t, 2);
    CHECK_SHAPE(v, 2);
    CHECK_F32(v, 3, 4);
    kt_free(&t);

    /* batch_dims 1: y[b][i] = x[b][idx[b][i]] */
    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_INT32, LG_DIMS(2, 3));
    int ix = lg_b_tensor(&t.b, "ix", LG_INT32, LG_DIMS(2, 2));
    y0 = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(2, 2));
    lg_gather_options gb = {1, 1};
    lg_b_op_opts(&t.b, LG_OP_GATHER, LG_IDS(x, ix), LG_IDS(y0), LG_OPTS_GATHER_OPTIONS, &gb);
    lg_b_io(&t.b, LG_IDS(x, ix), LG_IDS(y0));
    int32_t xi[6] = {10, 11, 12, 20, 21, 22}, ii[4] = {2, 0, 1, 1};
    RUN_OK(&t, LG_PREC_F32, xi, ii);
    v = kt_out(&t, 0);
    CHECK_INTS(v, LG_INT32, 12, 10, 21, 21);
    /* negative and out-of-range indices fail at eval, naming the op */
    int32_t neg[4] = {0, -1, 0, 0}, big[4] = {0, 0, 3, 0};
    RUN_FAILS(&t, LG_ERR_INVALID_ARG, "op 0 (GATHER): index -1", xi, neg);
    RUN_FAILS(&t, LG_ERR_INVALID_ARG, "index 3 (position 2) is out of range [0, 3)", xi, big);
    kt_free(&t);

    /* a constant index out of range fails at create */
    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(3));
    y0 = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(1));
    lg_b_op_opts(&t.b, LG_OP_GATHER, LG_IDS(x, lg_b_const_i32(&t.b, "i", LG_DIMS(1), (const int32_t[]){5})), LG_IDS(y0),
                 LG_OPTS_GATHER_OPTIONS, &g0);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y0));
    RUN_FAILS(&t, LG_ERR_FORMAT, "index 5", in);
    kt_free(&t);
}

LG_TEST(k_shape_gather_nd_elements_and_slices) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 2));
    int ix = lg_b_tensor(&t.b, "ix", LG_INT32, LG_DIMS(2, 2));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(2));
    int y2 = lg_b_tensor(&t.b, "y2", LG_FLOAT32, LG_DIMS(1, 2));
    lg_b_op(&t.b, LG_OP_GATHER_ND, LG_IDS(x, ix), LG_IDS(y));
    lg_b_op(&t.b, LG_OP_GATHER_ND, LG_IDS(x, lg_b_const_i32(&t.b, "r", LG_DIMS(1, 1), (const int32_t[]){1})), LG_IDS(y2));
    lg_b_io(&t.b, LG_IDS(x, ix), LG_IDS(y, y2));
    float in[4] = {1, 2, 3, 4};
    int32_t ii[4] = {0, 1, 1, 0};
    RUN_OK(&t, LG_PREC_F32, in, ii);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 2, 3);
    v = kt_out(&t, 1);
    CHECK_F32(v, 3, 4);
    /* [0, 2] would be a valid flat position in TFLite, but 2 is out of range for dim 1 */
    int32_t bad[4] = {0, 2, 0, 0};
    RUN_FAILS(&t, LG_ERR_INVALID_ARG, "GATHER_ND", in, bad);
    kt_free(&t);
}

LG_TEST(k_shape_embedding_lookup_rows_and_bounds) {
    kt_model t;
    kt_init(&t);
    int ids = lg_b_tensor(&t.b, "ids", LG_INT32, LG_DIMS(3));
    int tab = lg_b_const_f32(&t.b, "tab", LG_DIMS(3, 2), (const float[]){0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f});
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(3, 2));
    lg_b_op(&t.b, LG_OP_EMBEDDING_LOOKUP, LG_IDS(ids, tab), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(ids), LG_IDS(y));
    int32_t ii[3] = {2, 0, 2}, bad[3] = {0, 3, 0};
    RUN_OK(&t, LG_PREC_F32, ii);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 4.5f, 5.5f, 0.5f, 1.5f, 4.5f, 5.5f);
    RUN_FAILS(&t, LG_ERR_INVALID_ARG, "EMBEDDING_LOOKUP", bad);
    kt_free(&t);
}

/* ------------------------------------------------------------------ TILE, BROADCAST_TO */

LG_TEST(k_shape_tile_multiples) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(4, 6));
    int y0 = lg_b_tensor(&t.b, "y0", LG_FLOAT32, LG_DIMS(0, 3));
    lg_b_op(&t.b, LG_OP_TILE, LG_IDS(x, lg_b_const_i32(&t.b, "m", LG_DIMS(2), (const int32_t[]){2, 2})), LG_IDS(y));
    lg_b_op(&t.b, LG_OP_TILE, LG_IDS(x, lg_b_const_i32(&t.b, "m0", LG_DIMS(2), (const int32_t[]){0, 1})), LG_IDS(y0));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y, y0));
    float in[6] = {1, 2, 3, 4, 5, 6};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6, 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6);
    v = kt_out(&t, 1);
    CHECK_EQ_INT(v.numel, 0);
    kt_free(&t);
}

LG_TEST(k_shape_broadcast_to_shapes) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_INT32, LG_DIMS(3));
    int c = lg_b_tensor(&t.b, "c", LG_INT32, LG_DIMS(2, 1));
    int y = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(2, 3));
    int y2 = lg_b_tensor(&t.b, "y2", LG_INT32, LG_DIMS(2, 2, 3));
    lg_b_op(&t.b, LG_OP_BROADCAST_TO, LG_IDS(x, lg_b_const_i32(&t.b, "s", LG_DIMS(2), (const int32_t[]){2, 3})), LG_IDS(y));
    lg_b_op(&t.b, LG_OP_BROADCAST_TO, LG_IDS(c, lg_b_const_i32(&t.b, "s2", LG_DIMS(3), (const int32_t[]){2, 2, 3})),
            LG_IDS(y2));
    lg_b_io(&t.b, LG_IDS(x, c), LG_IDS(y, y2));
    int32_t xi[3] = {1, 2, 3}, ci[2] = {7, 8};
    RUN_OK(&t, LG_PREC_F32, xi, ci);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_INTS(v, LG_INT32, 1, 2, 3, 1, 2, 3);
    v = kt_out(&t, 1);
    CHECK_INTS(v, LG_INT32, 7, 7, 7, 8, 8, 8, 7, 7, 7, 8, 8, 8);
    kt_free(&t);

    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_INT32, LG_DIMS(3));
    y = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(4));
    lg_b_op(&t.b, LG_OP_BROADCAST_TO, LG_IDS(x, lg_b_const_i32(&t.b, "s", LG_DIMS(1), (const int32_t[]){4})), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    RUN_FAILS(&t, LG_ERR_FORMAT, "does not broadcast", xi);
    kt_free(&t);
}

/* ------------------------------------------------------------------ SHAPE, FILL */

LG_TEST(k_shape_shape_int32_and_int64) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 3, 4));
    int y = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(3));
    int y2 = lg_b_tensor(&t.b, "y2", LG_INT64, LG_DIMS(3));
    lg_shape_options o32 = {LG_INT32}, o64 = {LG_INT64};
    lg_b_op_opts(&t.b, LG_OP_SHAPE, LG_IDS(x), LG_IDS(y), LG_OPTS_SHAPE_OPTIONS, &o32);
    lg_b_op_opts(&t.b, LG_OP_SHAPE, LG_IDS(x), LG_IDS(y2), LG_OPTS_SHAPE_OPTIONS, &o64);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y, y2));
    float *in = iota(24);
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_INTS(v, LG_INT32, 2, 3, 4);
    v = kt_out(&t, 1);
    CHECK_INTS(v, LG_INT64, 2, 3, 4);
    free(in);
    kt_free(&t);
}

LG_TEST(k_shape_fill_const_and_runtime_value) {
    kt_model t;
    kt_init(&t);
    int val = lg_b_tensor(&t.b, "val", LG_FLOAT32, LG_SCALAR);
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(2, 3));
    int yi = lg_b_tensor(&t.b, "yi", LG_INT32, LG_DIMS(1));
    int dims = lg_b_const_i32(&t.b, "d", LG_DIMS(2), (const int32_t[]){2, 3});
    lg_b_op(&t.b, LG_OP_FILL, LG_IDS(dims, val), LG_IDS(y));
    lg_b_op(&t.b, LG_OP_FILL,
            LG_IDS(lg_b_const_i32(&t.b, "d1", LG_DIMS(1), (const int32_t[]){1}),
                   lg_b_const_i32(&t.b, "v", LG_SCALAR, (const int32_t[]){-9})),
            LG_IDS(yi));
    lg_b_io(&t.b, LG_IDS(val), LG_IDS(y, yi));
    float f = 7.25f;
    RUN_OK(&t, LG_PREC_F32, &f);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 7.25f, 7.25f, 7.25f, 7.25f, 7.25f, 7.25f);
    v = kt_out(&t, 1);
    CHECK_INTS(v, LG_INT32, -9);
    kt_free(&t);
}

/* ------------------------------------------------------------------ SPACE_TO_DEPTH, DEPTH_TO_SPACE */

LG_TEST(k_shape_space_to_depth_against_index_formula) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(1, 4, 6, 2));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(1, 2, 3, 8));
    lg_space_to_depth_options o = {2};
    lg_b_op_opts(&t.b, LG_OP_SPACE_TO_DEPTH, LG_IDS(x), LG_IDS(y), LG_OPTS_SPACE_TO_DEPTH_OPTIONS, &o);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    float *in = iota(48);
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    float want[48];
    /* y[h][w][(bh*2 + bw)*2 + c] = x[2h + bh][2w + bw][c] */
    for (int h = 0; h < 2; h++)
        for (int w = 0; w < 3; w++)
            for (int bh = 0; bh < 2; bh++)
                for (int bw = 0; bw < 2; bw++)
                    for (int c = 0; c < 2; c++)
                        want[(h * 3 + w) * 8 + (bh * 2 + bw) * 2 + c] = in[((2 * h + bh) * 6 + (2 * w + bw)) * 2 + c];
    kt_check_view_f32(__FILE__, __LINE__, NULL, &v, want, 48, 0, KT_BITS);
    free(in);
    kt_free(&t);
}

LG_TEST(k_shape_depth_to_space_dcr_order) {
    /* TFLite's test: [1,1,1,4] {1,2,3,4} with block 2 -> [1,2,2,1] {1,2,3,4}; and a
       [1,1,2,8] (two pixels, two output channels) written out by hand */
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(1, 1, 1, 4));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(1, 2, 2, 1));
    int x2 = lg_b_tensor(&t.b, "x2", LG_FLOAT32, LG_DIMS(1, 1, 2, 8));
    int y2 = lg_b_tensor(&t.b, "y2", LG_FLOAT32, LG_DIMS(1, 2, 4, 2));
    lg_depth_to_space_options o = {2};
    lg_b_op_opts(&t.b, LG_OP_DEPTH_TO_SPACE, LG_IDS(x), LG_IDS(y), LG_OPTS_DEPTH_TO_SPACE_OPTIONS, &o);
    lg_b_op_opts(&t.b, LG_OP_DEPTH_TO_SPACE, LG_IDS(x2), LG_IDS(y2), LG_OPTS_DEPTH_TO_SPACE_OPTIONS, &o);
    lg_b_io(&t.b, LG_IDS(x, x2), LG_IDS(y, y2));
    float in[4] = {1, 2, 3, 4};
    float in2[16] = {0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17};
    RUN_OK(&t, LG_PREC_F32, in, in2);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 1, 2, 3, 4);
    /* pixel p, channel (bh*2 + bw)*2 + c goes to (bh, 2p + bw, c) */
    v = kt_out(&t, 1);
    CHECK_F32(v, 0, 1, 2, 3, 10, 11, 12, 13, 4, 5, 6, 7, 14, 15, 16, 17);
    kt_free(&t);

    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(1, 1, 1, 6));
    y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(1, 2, 2, 1));
    lg_b_op_opts(&t.b, LG_OP_DEPTH_TO_SPACE, LG_IDS(x), LG_IDS(y), LG_OPTS_DEPTH_TO_SPACE_OPTIONS, &o);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    RUN_FAILS(&t, LG_ERR_FORMAT, "depth 6 is not divisible by block_size^2 = 4", in2);
    kt_free(&t);
}

/* ------------------------------------------------------------------ REVERSE_V2 */

LG_TEST(k_shape_reverse_v2_axes) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_INT32, LG_DIMS(2, 3));
    int y1 = lg_b_tensor(&t.b, "y1", LG_INT32, LG_DIMS(2, 3));
    int y0 = lg_b_tensor(&t.b, "y0", LG_INT32, LG_DIMS(2, 3));
    int y01 = lg_b_tensor(&t.b, "y01", LG_INT32, LG_DIMS(2, 3));
    lg_b_op(&t.b, LG_OP_REVERSE_V2, LG_IDS(x, lg_b_const_i32(&t.b, "a", LG_DIMS(1), (const int32_t[]){-1})), LG_IDS(y1));
    lg_b_op(&t.b, LG_OP_REVERSE_V2, LG_IDS(x, lg_b_const_i32(&t.b, "b", LG_DIMS(1), (const int32_t[]){0})), LG_IDS(y0));
    lg_b_op(&t.b, LG_OP_REVERSE_V2, LG_IDS(x, lg_b_const_i32(&t.b, "c", LG_DIMS(2), (const int32_t[]){1, 0})), LG_IDS(y01));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y1, y0, y01));
    int32_t in[6] = {1, 2, 3, 4, 5, 6};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_INTS(v, LG_INT32, 3, 2, 1, 6, 5, 4);
    v = kt_out(&t, 1);
    CHECK_INTS(v, LG_INT32, 4, 5, 6, 1, 2, 3);
    v = kt_out(&t, 2);
    CHECK_INTS(v, LG_INT32, 6, 5, 4, 3, 2, 1);
    kt_free(&t);
}

/* ------------------------------------------------------------------ ONE_HOT */

LG_TEST(k_shape_one_hot_last_and_first_axis) {
    kt_model t;
    kt_init(&t);
    int ix = lg_b_tensor(&t.b, "ix", LG_INT32, LG_DIMS(4));
    int depth = lg_b_const_i32(&t.b, "d", LG_SCALAR, (const int32_t[]){3});
    int on = lg_b_const_f32(&t.b, "on", LG_SCALAR, (const float[]){5});
    int off = lg_b_const_f32(&t.b, "off", LG_SCALAR, (const float[]){-1});
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(4, 3));
    int y0 = lg_b_tensor(&t.b, "y0", LG_FLOAT32, LG_DIMS(3, 4));
    lg_one_hot_options last = {-1}, first = {0};
    lg_b_op_opts(&t.b, LG_OP_ONE_HOT, LG_IDS(ix, depth, on, off), LG_IDS(y), LG_OPTS_ONE_HOT_OPTIONS, &last);
    lg_b_op_opts(&t.b, LG_OP_ONE_HOT, LG_IDS(ix, depth, on, off), LG_IDS(y0), LG_OPTS_ONE_HOT_OPTIONS, &first);
    lg_b_io(&t.b, LG_IDS(ix), LG_IDS(y, y0));
    int32_t ii[4] = {0, 2, -1, 3}; /* -1 and 3 are out of range: all off */
    RUN_OK(&t, LG_PREC_F32, ii);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 5, -1, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1);
    v = kt_out(&t, 1);
    CHECK_F32(v, 5, -1, -1, -1, -1, -1, -1, -1, -1, 5, -1, -1);
    kt_free(&t);

    /* INT32 on/off on a 2-D index, axis 1 */
    kt_init(&t);
    ix = lg_b_tensor(&t.b, "ix", LG_INT64, LG_DIMS(2, 2));
    y = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(2, 2, 2));
    lg_one_hot_options mid = {1};
    lg_b_op_opts(&t.b, LG_OP_ONE_HOT,
                 LG_IDS(ix, lg_b_const_i32(&t.b, "d", LG_SCALAR, (const int32_t[]){2}),
                        lg_b_const_i32(&t.b, "on", LG_SCALAR, (const int32_t[]){1}),
                        lg_b_const_i32(&t.b, "off", LG_SCALAR, (const int32_t[]){0})),
                 LG_IDS(y), LG_OPTS_ONE_HOT_OPTIONS, &mid);
    lg_b_io(&t.b, LG_IDS(ix), LG_IDS(y));
    int64_t i64[4] = {1, 0, 0, 0};
    RUN_OK(&t, LG_PREC_F32, i64);
    v = kt_out(&t, 0);
    /* y[a][d][b] = (ix[a][b] == d) */
    CHECK_INTS(v, LG_INT32, 0, 1, 1, 0, 1, 1, 0, 0);
    kt_free(&t);
}

/* ------------------------------------------------------------------ RANGE */

LG_TEST(k_shape_range_int_float_negative_delta) {
    kt_model t;
    kt_init(&t);
    int y = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(4));
    int y2 = lg_b_tensor(&t.b, "y2", LG_FLOAT32, LG_DIMS(3));
    int y3 = lg_b_tensor(&t.b, "y3", LG_INT32, LG_DIMS(2));
#define I32(name, v) lg_b_const_i32(&t.b, name, LG_SCALAR, (const int32_t[]){v})
#define F32(name, v) lg_b_const_f32(&t.b, name, LG_SCALAR, (const float[]){v})
    lg_b_op(&t.b, LG_OP_RANGE, LG_IDS(I32("a", 0), I32("b", 10), I32("c", 3)), LG_IDS(y));
    lg_b_op(&t.b, LG_OP_RANGE, LG_IDS(F32("fa", 0.5f), F32("fb", 2.0f), F32("fc", 0.5f)), LG_IDS(y2));
    lg_b_op(&t.b, LG_OP_RANGE, LG_IDS(I32("na", 5), I32("nb", 1), I32("nc", -2)), LG_IDS(y3));
    lg_b_io(&t.b, LG_NO_IDS, LG_IDS(y, y2, y3));
    RUN_OK0(&t, LG_PREC_F32);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_INTS(v, LG_INT32, 0, 3, 6, 9);
    v = kt_out(&t, 1);
    CHECK_F32(v, 0.5f, 1.0f, 1.5f);
    v = kt_out(&t, 2);
    CHECK_INTS(v, LG_INT32, 5, 3);
    kt_free(&t);

    kt_init(&t);
    y = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(1));
    lg_b_op(&t.b, LG_OP_RANGE, LG_IDS(I32("a", 0), I32("b", 10), I32("c", -1)), LG_IDS(y));
    lg_b_io(&t.b, LG_NO_IDS, LG_IDS(y));
    RUN_FAILS(&t, LG_ERR_FORMAT, "delta -1 does not lead from 0 to 10", NULL);
    kt_free(&t);

    kt_init(&t);
    int a = lg_b_tensor(&t.b, "a", LG_INT32, LG_SCALAR);
    y = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(1));
    lg_b_op(&t.b, LG_OP_RANGE, LG_IDS(a, I32("b", 10), I32("c", 1)), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(a), LG_IDS(y));
    int32_t av = 0;
    RUN_FAILS(&t, LG_ERR_UNSUPPORTED, "computed at run time", &av);
    kt_free(&t);
}

LG_TEST(k_shape_range_f16_running_sum) {
    /* 2048 + 1 is a tie in half (spacing 2) and rounds to 2048: the half accumulator never
       moves, while fp32 counts 2048..2053 (then stored as half). */
    for (int p = 0; p < 3; p++) {
        kt_model t;
        kt_init(&t);
        int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(6));
        lg_b_op(&t.b, LG_OP_RANGE, LG_IDS(F32("a", 2048), F32("b", 2054), F32("c", 1)), LG_IDS(y));
        lg_b_io(&t.b, LG_NO_IDS, LG_IDS(y));
        RUN_OK0(&t, (lg_precision)p);
        lg_tensor_view v = kt_out(&t, 0);
        if (p == LG_PREC_F32) CHECK_F32(v, 2048, 2049, 2050, 2051, 2052, 2053);
        else if (p == LG_PREC_F16) CHECK_F32(v, 2048, 2048, 2048, 2048, 2048, 2048);
        else CHECK_F32(v, 2048, 2048, 2050, 2052, 2052, 2052);
        kt_free(&t);
    }
#undef I32
#undef F32
}

/* ------------------------------------------------------------------ CUMSUM */

LG_TEST(k_shape_cumsum_exclusive_reverse_axes) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int ax1 = lg_b_const_i32(&t.b, "a1", LG_SCALAR, (const int32_t[]){1});
    int ax0 = lg_b_const_i32(&t.b, "a0", LG_SCALAR, (const int32_t[]){-2});
    int y[5];
    for (int i = 0; i < 5; i++) y[i] = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(2, 3));
    lg_cumsum_options inc = {false, false}, exc = {true, false}, rev = {false, true}, both = {true, true};
    lg_b_op_opts(&t.b, LG_OP_CUMSUM, LG_IDS(x, ax1), LG_IDS(y[0]), LG_OPTS_CUMSUM_OPTIONS, &inc);
    lg_b_op_opts(&t.b, LG_OP_CUMSUM, LG_IDS(x, ax1), LG_IDS(y[1]), LG_OPTS_CUMSUM_OPTIONS, &exc);
    lg_b_op_opts(&t.b, LG_OP_CUMSUM, LG_IDS(x, ax1), LG_IDS(y[2]), LG_OPTS_CUMSUM_OPTIONS, &rev);
    lg_b_op_opts(&t.b, LG_OP_CUMSUM, LG_IDS(x, ax1), LG_IDS(y[3]), LG_OPTS_CUMSUM_OPTIONS, &both);
    lg_b_op_opts(&t.b, LG_OP_CUMSUM, LG_IDS(x, ax0), LG_IDS(y[4]), LG_OPTS_CUMSUM_OPTIONS, &inc);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y[0], y[1], y[2], y[3], y[4]));
    float in[6] = {1, 2, 3, 4, 5, 6};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 1, 3, 6, 4, 9, 15);
    v = kt_out(&t, 1);
    CHECK_F32(v, 0, 1, 3, 0, 4, 9);
    v = kt_out(&t, 2);
    CHECK_F32(v, 6, 5, 3, 15, 11, 6);
    v = kt_out(&t, 3);
    CHECK_F32(v, 5, 3, 0, 11, 6, 0);
    v = kt_out(&t, 4);
    CHECK_F32(v, 1, 2, 3, 5, 7, 9);
    kt_free(&t);

    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_INT32, LG_DIMS(4));
    y[0] = lg_b_tensor(&t.b, "y", LG_INT32, LG_DIMS(4));
    lg_b_op_opts(&t.b, LG_OP_CUMSUM, LG_IDS(x, lg_b_const_i32(&t.b, "a", LG_SCALAR, (const int32_t[]){0})), LG_IDS(y[0]),
                 LG_OPTS_CUMSUM_OPTIONS, &inc);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y[0]));
    int32_t ii[4] = {5, -7, 100, 1};
    RUN_OK(&t, LG_PREC_F32, ii);
    v = kt_out(&t, 0);
    CHECK_INTS(v, LG_INT32, 5, -2, 98, 99);
    kt_free(&t);
}

LG_TEST(k_shape_cumsum_f16_float_accumulator) {
    /* The GPU delegate's CUMSUM keeps a float4 running sum in F16 and rounds only the stored
       values (tflite/delegates/gpu/common/tasks/cumsum.cc, GetCumsumCode), so f16 equals
       f32_f16 here. [2048, 1, 1, 1, 1]: fp32 sums 2048..2052, stored as halves (spacing 2,
       ties to even): 2048, 2048, 2050, 2052, 2052; a half accumulator would stick at 2048.
       [60000, 10000, -10000]: 60000 (a half), 70000 (inf as a half), 60000: the fp32 running
       sum comes back where a half one would stay inf. */
    const float a[5] = {2048, 1, 1, 1, 1}, b[3] = {60000, 10000, -10000};
    const float wa[3][5] = {{2048, 2049, 2050, 2051, 2052}, {2048, 2048, 2050, 2052, 2052}, {2048, 2048, 2050, 2052, 2052}};
    const float wb[3][3] = {{60000, 70000, 60000}, {lg_round_half(60000), INFINITY, lg_round_half(60000)},
                            {lg_round_half(60000), INFINITY, lg_round_half(60000)}};
    for (int p = 0; p < 3; p++) {
        kt_model t;
        kt_init(&t);
        int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(5));
        int x2 = lg_b_tensor(&t.b, "x2", LG_FLOAT32, LG_DIMS(3));
        int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(5));
        int y2 = lg_b_tensor(&t.b, "y2", LG_FLOAT32, LG_DIMS(3));
        int ax = lg_b_const_i32(&t.b, "a", LG_SCALAR, (const int32_t[]){0});
        lg_cumsum_options o = {false, false};
        lg_b_op_opts(&t.b, LG_OP_CUMSUM, LG_IDS(x, ax), LG_IDS(y), LG_OPTS_CUMSUM_OPTIONS, &o);
        lg_b_op_opts(&t.b, LG_OP_CUMSUM, LG_IDS(x2, ax), LG_IDS(y2), LG_OPTS_CUMSUM_OPTIONS, &o);
        lg_b_io(&t.b, LG_IDS(x, x2), LG_IDS(y, y2));
        RUN_OK(&t, (lg_precision)p, a, b);
        lg_tensor_view v = kt_out(&t, 0);
        kt_check_view_f32(__FILE__, __LINE__, NULL, &v, wa[p], 5, 0, KT_BITS);
        v = kt_out(&t, 1);
        kt_check_view_f32(__FILE__, __LINE__, NULL, &v, wb[p], 3, 0, KT_BITS);
        kt_free(&t);
    }
}

/* ------------------------------------------------------------------ WHERE */

LG_TEST(k_shape_where_constant_condition) {
    kt_model t;
    kt_init(&t);
    uint8_t cond[6] = {1, 0, 0, 0, 1, 1};
    int c = lg_b_const(&t.b, "c", LG_BOOL, LG_DIMS(2, 3), cond, sizeof cond);
    int y = lg_b_tensor(&t.b, "y", LG_INT64, LG_DIMS(3, 2));
    int cf = lg_b_const_f32(&t.b, "cf", LG_DIMS(3), (const float[]){0.0f, -0.0f, 0.25f});
    int yf = lg_b_tensor(&t.b, "yf", LG_INT64, LG_DIMS(1, 1));
    lg_b_op(&t.b, LG_OP_WHERE, LG_IDS(c), LG_IDS(y));
    lg_b_op(&t.b, LG_OP_WHERE, LG_IDS(cf), LG_IDS(yf));
    lg_b_io(&t.b, LG_NO_IDS, LG_IDS(y, yf));
    RUN_OK0(&t, LG_PREC_F32);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 3, 2);
    CHECK_INTS(v, LG_INT64, 0, 0, 1, 1, 1, 2);
    v = kt_out(&t, 1);
    CHECK_INTS(v, LG_INT64, 2);
    kt_free(&t);

    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_BOOL, LG_DIMS(2));
    y = lg_b_tensor(&t.b, "y", LG_INT64, LG_DIMS(1, 1));
    lg_b_op(&t.b, LG_OP_WHERE, LG_IDS(x), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    RUN_FAILS(&t, LG_ERR_UNSUPPORTED, "depends on data", cond);
    kt_free(&t);
}

/* ------------------------------------------------------------------ DENSIFY */

/* Add a sparse constant (raw value bytes) and a DENSIFY of it as the model's output. */
static int32_t densify_model(kt_model *t, lg_dtype type, lg_dims shape, const void *vals, uint64_t nbytes,
                             lg_sparsity *sp, lg_dims out_shape) {
    kt_init(t);
    uint32_t buf = 0;
    int32_t xi = -1;
    if (lg_model_add_buffer(t->m, vals, nbytes, &buf, &t->err) != LG_OK ||
        lg_subgraph_add_tensor(t->m, 0, "sparse", type, shape.v, shape.n, &xi, &t->err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "building the sparse constant: %s", t->err.msg);
        return 0;
    }
    int y = lg_b_tensor(&t->b, "dense", type, out_shape);
    lg_b_op(&t->b, LG_OP_DENSIFY, LG_IDS(xi), LG_IDS(y));
    lg_b_io(&t->b, LG_NO_IDS, LG_IDS(y));
    /* set after the builder calls (tensor arrays may move when they grow) */
    t->m->subgraphs[0].tensors[xi].buffer = buf;
    t->m->subgraphs[0].tensors[xi].sparsity = sp;
    return xi;
}

LG_TEST(k_shape_densify_csr_float32) {
    /* [[1, 0, 2], [0, 3, 0]]: dim 0 dense, dim 1 CSR */
    static const int32_t order[2] = {0, 1}, seg[3] = {0, 2, 3}, idx[3] = {0, 2, 1};
    lg_dim_meta dm[2];
    memset(dm, 0, sizeof dm);
    dm[0].format = LG_DIMENSION_TYPE_DENSE;
    dm[0].dense_size = 2;
    dm[1].format = LG_DIMENSION_TYPE_SPARSE_CSR;
    dm[1].segments_type = dm[1].indices_type = 1;
    dm[1].segments = seg;
    dm[1].n_segments = 3;
    dm[1].indices = idx;
    dm[1].n_indices = 3;
    lg_sparsity sp = {order, 2, NULL, 0, dm, 2};
    const float vals[3] = {1, 2, 3};
    kt_model t;
    densify_model(&t, LG_FLOAT32, LG_DIMS(2, 3), vals, sizeof vals, &sp, LG_DIMS(2, 3));
    RUN_OK0(&t, LG_PREC_F32);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 2, 3);
    CHECK_F32(v, 1, 0, 2, 0, 3, 0);
    t.m->subgraphs[0].tensors[0].sparsity = NULL; /* not owned by the model */
    kt_free(&t);

    /* an index past the dense dim is malformed */
    static const int32_t bad_idx[3] = {0, 3, 1};
    dm[1].indices = bad_idx;
    densify_model(&t, LG_FLOAT32, LG_DIMS(2, 3), vals, sizeof vals, &sp, LG_DIMS(2, 3));
    RUN_FAILS(&t, LG_ERR_FORMAT, "out of range", NULL);
    t.m->subgraphs[0].tensors[0].sparsity = NULL;
    kt_free(&t);

    /* more leaves than values */
    dm[1].indices = idx;
    densify_model(&t, LG_FLOAT32, LG_DIMS(2, 3), vals, 8, &sp, LG_DIMS(2, 3));
    RUN_FAILS(&t, LG_ERR_FORMAT, "more elements than the 2 values", NULL);
    t.m->subgraphs[0].tensors[0].sparsity = NULL;
    kt_free(&t);
}

LG_TEST(k_shape_densify_block_sparse_float16_and_int8) {
    /* 4x4 in 2x2 blocks: block (0,1) = [1 2; 3 4], block (1,0) = [5 6; 7 8]. Levels: block row
       (dense 2), block col (CSR), row in block (dense 2), col in block (dense 2). */
    static const int32_t order[4] = {0, 1, 2, 3}, bmap[2] = {0, 1}, seg[3] = {0, 1, 2}, idx[2] = {1, 0};
    lg_dim_meta dm[4];
    memset(dm, 0, sizeof dm);
    dm[0].format = LG_DIMENSION_TYPE_DENSE;
    dm[0].dense_size = 2;
    dm[1].format = LG_DIMENSION_TYPE_SPARSE_CSR;
    dm[1].segments_type = dm[1].indices_type = 3;
    dm[1].segments = seg;
    dm[1].n_segments = 3;
    dm[1].indices = idx;
    dm[1].n_indices = 2;
    dm[2].format = dm[3].format = LG_DIMENSION_TYPE_DENSE;
    dm[2].dense_size = dm[3].dense_size = 2;
    lg_sparsity sp = {order, 4, bmap, 2, dm, 4};
    uint16_t h[8];
    for (int i = 0; i < 8; i++) h[i] = lg_float_to_half((float)(i + 1) + 0.25f);
    kt_model t;
    int32_t xi = densify_model(&t, LG_FLOAT16, LG_DIMS(4, 4), h, sizeof h, &sp, LG_DIMS(4, 4));
    RUN_OK0(&t, LG_PREC_F32);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 4, 4);
    CHECK_F32(v, 0, 0, 1.25f, 2.25f, 0, 0, 3.25f, 4.25f, 5.25f, 6.25f, 0, 0, 7.25f, 8.25f, 0, 0);
    t.m->subgraphs[0].tensors[xi].sparsity = NULL;
    kt_free(&t);

    int8_t q[8] = {1, -2, 3, -4, 5, -6, 7, -128};
    xi = densify_model(&t, LG_INT8, LG_DIMS(4, 4), q, sizeof q, &sp, LG_DIMS(4, 4));
    RUN_OK0(&t, LG_PREC_F16);
    v = kt_out(&t, 0);
    CHECK_INTS(v, LG_INT8, 0, 0, 1, -2, 0, 0, 3, -4, 5, -6, 0, 0, 7, -128, 0, 0);
    t.m->subgraphs[0].tensors[xi].sparsity = NULL;
    kt_free(&t);
}

/* The real model: every DENSIFY of face_detection_full_range_sparse (FLOAT16 values, the last
   dim CSR) replayed as a one-op model and compared with a naive CSR expansion; then, if the
   whole model can be run (every kernel family present), the DENSIFY outputs of a full run. */
static void naive_csr(const lg_tensor *tt, const uint8_t *raw, float *out) {
    const lg_sparsity *sp = tt->sparsity;
    int64_t rows = 1, last = tt->shape[tt->rank - 1];
    for (uint32_t d = 0; d + 1 < tt->rank; d++) rows *= tt->shape[d];
    const lg_dim_meta *csr = &sp->dim_metadata[tt->rank - 1];
    for (int64_t i = 0; i < rows * last; i++) out[i] = 0;
    for (int64_t r = 0; r < rows; r++)
        for (int32_t k = csr->segments[r]; k < csr->segments[r + 1]; k++)
            out[r * last + csr->indices[k]] = lg_half_to_float((uint16_t)(raw[2 * k] | (raw[2 * k + 1] << 8)));
}

static int csr_last_dim_only(const lg_tensor *tt) {
    const lg_sparsity *sp = tt->sparsity;
    if (!sp || sp->n_block_map || sp->n_dim_metadata != tt->rank || tt->type != LG_FLOAT16) return 0;
    for (uint32_t d = 0; d < tt->rank; d++) {
        if (sp->traversal_order[d] != (int32_t)d) return 0;
        if ((sp->dim_metadata[d].format == LG_DIMENSION_TYPE_SPARSE_CSR) != (d + 1 == tt->rank)) return 0;
    }
    return 1;
}

LG_TEST(k_shape_densify_corpus_face_detection_full_range_sparse) {
    const char *path = "build/corpus/face_detection_full_range_sparse.tflite";
    lg_model *m = NULL;
    lg_error err;
    if (lg_tflite_read_file(path, NULL, &m, &err) != LG_OK) {
        fprintf(stderr, "  note: %s not found (make corpus); skipped\n", path);
        return;
    }
    const lg_subgraph *sg = &m->subgraphs[0];
    int n_densify = 0;
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        if (lg_op_builtin(m, op) != LG_OP_DENSIFY) continue;
        n_densify++;
        const lg_tensor *tt = &sg->tensors[op->inputs[0]];
        const lg_buffer *b = lg_tensor_buffer(m, tt);
        CHECK(b != NULL && csr_last_dim_only(tt));
        if (!b || !csr_last_dim_only(tt)) continue;
        lg_dims shape = {tt->shape, tt->rank};
        kt_model t;
        int32_t xi = densify_model(&t, LG_FLOAT16, shape, b->data, b->size, tt->sparsity, shape);
        RUN_OK0(&t, LG_PREC_F32);
        lg_tensor_view v = kt_out(&t, 0);
        int64_t numel = lg_tensor_numel(tt);
        float *want = malloc((size_t)numel * sizeof(float));
        naive_csr(tt, b->data, want);
        kt_check_view_f32(__FILE__, __LINE__, NULL, &v, want, numel, 0, KT_BITS);
        free(want);
        t.m->subgraphs[0].tensors[xi].sparsity = NULL;
        kt_free(&t);
    }
    CHECK_EQ_INT(n_densify, 46);

    /* the whole model, when every op has a kernel */
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.keep_all = true;
    lg_interp *it = NULL;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) {
        CHECK(!strstr(err.msg, "DENSIFY"));
        fprintf(stderr, "  note: full model not runnable yet (%s); DENSIFY checked op by op\n", err.msg);
        lg_model_free(m);
        return;
    }
    for (uint32_t i = 0; i < lg_interp_n_inputs(it); i++) {
        lg_tensor_view v;
        lg_interp_input(it, i, &v);
        float *buf = calloc((size_t)v.numel ? (size_t)v.numel : 1, sizeof(float));
        lg_fill_f32("pattern", buf, v.numel, &err);
        CHECK_OK(lg_interp_set_input(it, i, v.type, buf, v.nbytes, &err), &err);
        free(buf);
    }
    CHECK_OK(lg_interp_invoke(it, &err), &err);
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        if (lg_op_builtin(m, op) != LG_OP_DENSIFY) continue;
        const lg_tensor *tt = &sg->tensors[op->inputs[0]];
        lg_tensor_view v;
        CHECK_OK(lg_interp_tensor(it, op->outputs[0], &v), &err);
        int64_t numel = lg_tensor_numel(tt);
        float *want = malloc((size_t)numel * sizeof(float));
        naive_csr(tt, lg_tensor_buffer(m, tt)->data, want);
        kt_check_view_f32(__FILE__, __LINE__, NULL, &v, want, numel, 0, KT_BITS);
        free(want);
    }
    lg_interp_free(it);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ more edge cases */

LG_TEST(k_shape_transpose_tiled_partial_tiles_all_element_sizes) {
    /* large enough for the 16x16 tiles, with partial edge tiles, for 1-, 4- and 8-byte
       elements: y[a][c][b] = x[a][b][c] and y[d][a][b][c] = x[a][b][c][d] */
    const lg_dtype types[3] = {LG_INT8, LG_INT32, LG_INT64};
    for (int ti = 0; ti < 3; ti++) {
        lg_dtype ty = types[ti];
        kt_model t;
        kt_init(&t);
        int x = lg_b_tensor(&t.b, "x", ty, LG_DIMS(3, 37, 21));
        int y = lg_b_tensor(&t.b, "y", ty, LG_DIMS(3, 21, 37));
        int x4 = lg_b_tensor(&t.b, "x4", ty, LG_DIMS(2, 3, 19, 17));
        int y4 = lg_b_tensor(&t.b, "y4", ty, LG_DIMS(17, 2, 3, 19));
        lg_b_op(&t.b, LG_OP_TRANSPOSE, LG_IDS(x, lg_b_const_i32(&t.b, "p", LG_DIMS(3), (const int32_t[]){0, 2, 1})), LG_IDS(y));
        lg_b_op(&t.b, LG_OP_TRANSPOSE, LG_IDS(x4, lg_b_const_i32(&t.b, "p4", LG_DIMS(4), (const int32_t[]){3, 0, 1, 2})),
                LG_IDS(y4));
        lg_b_io(&t.b, LG_IDS(x, x4), LG_IDS(y, y4));
        const int64_t n3 = 3 * 37 * 21, n4 = 2 * 3 * 19 * 17;
        uint32_t es = ty == LG_INT8 ? 1 : ty == LG_INT32 ? 4 : 8;
        uint8_t *a = malloc((size_t)n3 * es), *b = malloc((size_t)n4 * es);
        int64_t *w3 = malloc((size_t)n3 * sizeof(int64_t)), *w4 = malloc((size_t)n4 * sizeof(int64_t));
        /* element value = flat index (mod 100 for INT8) */
        for (int64_t i = 0; i < n3 + n4; i++) {
            int64_t v = ty == LG_INT8 ? i % 100 : i * 3 + 1;
            uint8_t *p = i < n3 ? a + i * es : b + (i - n3) * es;
            if (es == 1) { int8_t q = (int8_t)v; memcpy(p, &q, 1); }
            else if (es == 4) { int32_t q = (int32_t)v; memcpy(p, &q, 4); }
            else memcpy(p, &v, 8);
        }
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 21; j++)
                for (int k = 0; k < 37; k++) {
                    int64_t src = (i * 37 + k) * 21 + j;
                    w3[(i * 21 + j) * 37 + k] = ty == LG_INT8 ? src % 100 : src * 3 + 1;
                }
        for (int d = 0; d < 17; d++)
            for (int p = 0; p < 2; p++)
                for (int q = 0; q < 3; q++)
                    for (int r = 0; r < 19; r++) {
                        int64_t src = ((p * 3 + q) * 19 + r) * 17 + d, fl = n3 + src;
                        w4[((d * 2 + p) * 3 + q) * 19 + r] = ty == LG_INT8 ? fl % 100 : fl * 3 + 1;
                    }
        RUN_OK(&t, LG_PREC_F32, a, b);
        lg_tensor_view v = kt_out(&t, 0);
        kt_check_view_ints(__FILE__, __LINE__, NULL, &v, ty, w3, n3);
        v = kt_out(&t, 1);
        kt_check_view_ints(__FILE__, __LINE__, NULL, &v, ty, w4, n4);
        free(a);
        free(b);
        free(w3);
        free(w4);
        kt_free(&t);
    }
}

LG_TEST(k_shape_reshape_int64_shape_tensor_uses_options) {
    /* TFLite reads the shape input only when it is an INT32 vector; otherwise new_shape */
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(4));
    int64_t s64[2] = {4, 1};
    int s = lg_b_const(&t.b, "s", LG_INT64, LG_DIMS(2), s64, sizeof s64);
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(2, 2));
    lg_reshape_options o = {{(const int32_t[]){2, 2}, 2}};
    lg_b_op_opts(&t.b, LG_OP_RESHAPE, LG_IDS(x, s), LG_IDS(y), LG_OPTS_RESHAPE_OPTIONS, &o);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    float in[4] = {1, 2, 3, 4};
    RUN_OK(&t, LG_PREC_F32, in);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_SHAPE(v, 2, 2);
    CHECK_F32(v, 1, 2, 3, 4);
    kt_free(&t);
}

LG_TEST(k_shape_sparse_constant_outside_densify_unsupported) {
    static const int32_t order[1] = {0}, seg[2] = {0, 1}, idx[1] = {1};
    lg_dim_meta dm[1];
    memset(dm, 0, sizeof dm);
    dm[0].format = LG_DIMENSION_TYPE_SPARSE_CSR;
    dm[0].segments_type = dm[0].indices_type = 1;
    dm[0].segments = seg;
    dm[0].n_segments = 2;
    dm[0].indices = idx;
    dm[0].n_indices = 1;
    lg_sparsity sp = {order, 1, NULL, 0, dm, 1};
    const float vals[1] = {5};
    kt_model t;
    kt_init(&t);
    uint32_t buf = 0;
    int32_t xi = -1;
    CHECK_OK(lg_model_add_buffer(t.m, vals, sizeof vals, &buf, &t.err), &t.err);
    CHECK_OK(lg_subgraph_add_tensor(t.m, 0, "sparse", LG_FLOAT32, (const int32_t[]){3}, 1, &xi, &t.err), &t.err);
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(1, 3));
    lg_b_op(&t.b, LG_OP_RESHAPE, LG_IDS(xi, lg_b_const_i32(&t.b, "s", LG_DIMS(2), (const int32_t[]){1, 3})), LG_IDS(y));
    lg_b_io(&t.b, LG_NO_IDS, LG_IDS(y));
    t.m->subgraphs[0].tensors[xi].buffer = buf;
    t.m->subgraphs[0].tensors[xi].sparsity = &sp;
    RUN_FAILS(&t, LG_ERR_UNSUPPORTED, "sparse constant", NULL);
    t.m->subgraphs[0].tensors[xi].sparsity = NULL;
    kt_free(&t);

    /* and the 1-D CSR itself densifies to [0, 5, 0] */
    xi = densify_model(&t, LG_FLOAT32, LG_DIMS(3), vals, sizeof vals, &sp, LG_DIMS(3));
    RUN_OK0(&t, LG_PREC_F32);
    lg_tensor_view v = kt_out(&t, 0);
    CHECK_F32(v, 0, 5, 0);
    t.m->subgraphs[0].tensors[xi].sparsity = NULL;
    kt_free(&t);
}

LG_TEST(k_shape_unpack_and_gather_nd_errors) {
    kt_model t;
    kt_init(&t);
    int x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int a = lg_b_tensor(&t.b, "a", LG_FLOAT32, LG_DIMS(3));
    int b = lg_b_tensor(&t.b, "b", LG_FLOAT32, LG_DIMS(3));
    int c = lg_b_tensor(&t.b, "c", LG_FLOAT32, LG_DIMS(3));
    lg_unpack_options u = {3, 0};
    lg_b_op_opts(&t.b, LG_OP_UNPACK, LG_IDS(x), LG_IDS(a, b, c), LG_OPTS_UNPACK_OPTIONS, &u);
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(a, b, c));
    float in[6] = {0};
    RUN_FAILS(&t, LG_ERR_FORMAT, "3 outputs for dimension 0 of size 2", in);
    kt_free(&t);

    kt_init(&t);
    x = lg_b_tensor(&t.b, "x", LG_FLOAT32, LG_DIMS(2, 3));
    int y = lg_b_tensor(&t.b, "y", LG_FLOAT32, LG_DIMS(1));
    lg_b_op(&t.b, LG_OP_GATHER_ND, LG_IDS(x, lg_b_const_i32(&t.b, "i", LG_DIMS(1, 2), (const int32_t[]){2, 0})), LG_IDS(y));
    lg_b_io(&t.b, LG_IDS(x), LG_IDS(y));
    RUN_FAILS(&t, LG_ERR_FORMAT, "index 2 (slice 0, component 0) is out of range [0, 2)", in);
    kt_free(&t);
}
