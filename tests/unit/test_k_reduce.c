/* Kernel tests, reduce family (src/run/k_reduce*.c): MEAN, SUM, REDUCE_*, ARG_MAX/MIN,
   TOPK_V2, SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION,
   RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR. Every case builds a one-op model with the
   builder and runs it through the public interpreter API. Goldens are derived by hand in the
   comments, or by a naive loop in this file written independently of the kernel. The
   LG_PREC_F16 cases show the half accumulator: sums past 65504 become inf (the NAFNet
   LayerNorm and RTMPose ScaleNorm failures from the field notes). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "lg/run.h"
#include "run/k_conv.h"
#include "run/simd.h"
#include "kt.h"
#include "tf.h"
#include "util/half.h"

/* ------------------------------------------------------------------ the one-op rig (kt.h) */

static const lg_precision all_prec[3] = {LG_PREC_F32, LG_PREC_F16, LG_PREC_F32_F16};

/* Output o of run r: float values within tol (prec names the mode), integers of type t, the shape. */
#define CHECK_F32(r, o, want, n, tol, prec)                                                       \
    do {                                                                                          \
        lg_tensor_view v_ = kt_out((r), (o));                                                     \
        kt_check_view_f32(__FILE__, __LINE__, lg_precision_name(prec), &v_, (want), (n), (tol), KT_ABS); \
    } while (0)
#define CHECK_I64(r, o, t, want, n)                                                               \
    do {                                                                                          \
        lg_tensor_view v_ = kt_out((r), (o));                                                     \
        kt_check_view_ints(__FILE__, __LINE__, NULL, &v_, (t), (want), (n));                       \
    } while (0)
#define CHECK_SHAPE(r, o, ...) CHECK_SHAPE_D(r, o, LG_DIMS(__VA_ARGS__))
#define CHECK_SHAPE_D(r, o, dims)                                                                 \
    do {                                                                                          \
        lg_tensor_view v_ = kt_out((r), (o));                                                     \
        kt_check_view_shape(__FILE__, __LINE__, NULL, &v_, (dims));                               \
    } while (0)
/* Run in one precision and compare output 0 (FLOAT32, the declared shape). */
#define EXPECT_F32(c, prec, want, n, tol) kt_expect_f32(__FILE__, __LINE__, (c), (prec), 1, (want), (n), (tol))
/* Run in all three precisions: tol for LG_PREC_F32, tol16 for the half-storage modes. */
#define EXPECT_ALL(c, want, n, tol, tol16)                                                        \
    do {                                                                                          \
        for (int p_ = 0; p_ < 3; p_++)                                                            \
            kt_expect_f32(__FILE__, __LINE__, (c), all_prec[p_], 1, (want), (n), p_ ? (tol16) : (tol)); \
    } while (0)
/* Prepare (lg_interp_create) must fail with status st and a message containing substr. */
#define EXPECT_FAIL(c, st, substr) kt_expect_fail(__FILE__, __LINE__, (c), LG_PREC_F32, (st), (substr))
#define RUN_OK(c, prec, r) kt_run_ok(__FILE__, __LINE__, (c), (prec), 1, (r))

/* A reduction op case: input x (runtime), axes constant INT32. */
static kt_op reduce_case(int32_t code, lg_dtype t, lg_dims xs, const void *x, lg_dims as, const int32_t *axes,
                           const lg_reducer_options *o, lg_dims ys) {
    kt_op c;
    memset(&c, 0, sizeof c);
    c.code = code;
    c.kind = LG_OPTS_REDUCER_OPTIONS;
    c.opts = o;
    c.n_in = 2;
    c.in[0] = ((kt_tensor){t, xs, x, 0, NULL, NULL, 0, 0});
    c.in[1] = ((kt_tensor){LG_INT32, as, axes, 1, NULL, NULL, 0, 0});
    c.n_out = 1;
    c.out[0] = KT_OUT(t, ys);
    return c;
}

static const lg_reducer_options keep = {true}, nokeep = {false};

/* ------------------------------------------------------------------ MEAN */

/* x[1,2,2,3]: pixel p, channel k holds 3p + k + 1 */
static const float x1223[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

LG_TEST(k_reduce_mean_spatial_keep_dims) {
    /* channel k: (1+4+7+10)/4 = 5.5, then 6.5, 7.5 */
    const float want[3] = {5.5f, 6.5f, 7.5f};
    kt_op c = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(1, 2, 2, 3), x1223, LG_DIMS(2), (const int32_t[]){1, 2},
                            &keep, LG_DIMS(1, 1, 1, 3));
    EXPECT_ALL(&c, want, 3, 0, 0);
    kt_model r;
    if (RUN_OK(&c, LG_PREC_F32, &r)) {
        CHECK_SHAPE(&r, 0, 1, 1, 1, 3);
        kt_free(&r);
    }
}

LG_TEST(k_reduce_mean_negative_and_duplicate_axes) {
    /* axes {-2, 1, 2, -3} resolve to {1, 2} (duplicates dropped); keep_dims false -> [1,3] */
    const float want[3] = {5.5f, 6.5f, 7.5f};
    kt_op c = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(1, 2, 2, 3), x1223, LG_DIMS(4),
                            (const int32_t[]){-2, 1, 2, -3}, &nokeep, LG_DIMS(1, 3));
    EXPECT_ALL(&c, want, 3, 0, 0);
}

LG_TEST(k_reduce_mean_last_axis_and_no_options) {
    /* x[2,3] = {1,2,3},{4,5,6}; mean over -1 = {2, 5}; absent options mean keep_dims false */
    const float want[2] = {2, 5};
    kt_op c = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(2, 3), x1223, LG_DIMS(1), (const int32_t[]){-1}, NULL,
                            LG_DIMS(2));
    c.kind = LG_OPTS_NONE;
    EXPECT_F32(&c, LG_PREC_F32, want, 2, 0);
    EXPECT_F32(&c, LG_PREC_F32_F16, want, 2, 0);
    /* f16, the delegate's reduce kernel (reduce.cc): 3 channels = 1 slice, one thread; each
       lane is scaled by fl(1/3) = 0.333333343 and rounded to half BEFORE the lanes are added,
       x + ((y + z) + w). Row 0: h(1/3) = 0.333251953, h(2/3) = 0.666503906, h(1.00000003) =
       1; y + z = 1.666503906 is a tie (682.5 / 1024 past 1): even, 1.666015625; x + that =
       1.999267578 -> 1.9990234375. Row 1: h(4/3) = 1.3330078125, h(5/3) = 1.6669921875,
       h(6/3) = 2; y + z = 3.6669921875, a tie (853.5 / 512 past 2): 3.66796875; x + that =
       5.0009765625 -> 5 (spacing 1/256). */
    EXPECT_F32(&c, LG_PREC_F16, ((const float[]){1.9990234375f, 5.0f}), 2, 0);
}

LG_TEST(k_reduce_mean_int64_axes) {
    const int64_t axes[1] = {0};
    kt_op c = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(2, 3), x1223, LG_DIMS(1), NULL, &keep, LG_DIMS(1, 3));
    c.in[1] = ((kt_tensor){LG_INT64, LG_DIMS(1), axes, 1, NULL, NULL, 0, 0});
    /* columns: (1+4)/2, (2+5)/2, (3+6)/2 */
    const float want[3] = {2.5f, 3.5f, 4.5f};
    EXPECT_ALL(&c, want, 3, 0, 0);
}

LG_TEST(k_reduce_mean_fp32_spatial_sum_times_reciprocal) {
    /* With fp32 arithmetic a MEAN that keeps the innermost dim (over H and W of NHWC: a
       global average pool) is XNNPACK's: the sum in input order times the float 1 / count.
       x[1,3,1,2], channel 0 = {1, 2, 2}: 5 * fl(1/3) = 5 * 0.333333343 = 1.66666672 rounds to
       1.66666675 (0x1.aaaaacp+0), where 5 / 3 gives 1.66666663 (0x1.aaaaaap+0); channel 1 =
       {1, 1, 1}: 3 * fl(1/3) = 1.00000003 rounds to 1. LG_PREC_F16 divides (and rounds to
       half: 1.666 either way). */
    const float x[6] = {1, 1, 2, 1, 2, 1};
    kt_op c = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(1, 3, 1, 2), x, LG_DIMS(2), (const int32_t[]){1, 2},
                            &keep, LG_DIMS(1, 1, 1, 2));
    const float want[2] = {0x1.aaaaacp+0f, 1};
    EXPECT_F32(&c, LG_PREC_F32, want, 2, 0);
    EXPECT_F32(&c, LG_PREC_F32_F16, ((const float[]){0x1.aaaaacp+0f, 1}), 2, 1e-3);
    EXPECT_F32(&c, LG_PREC_F16, ((const float[]){1.6669922f, 1}), 2, 0);
    /* reducing the innermost dim still divides: {1, 2, 2} over axis -1 = 5 / 3 */
    const float r3[3] = {1, 2, 2};
    kt_op d = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(1, 3), r3, LG_DIMS(1), (const int32_t[]){-1}, &keep,
                            LG_DIMS(1, 1));
    EXPECT_F32(&d, LG_PREC_F32, ((const float[]){0x1.aaaaaap+0f}), 1, 0);
    /* a 7x7x13 pool against the naive loop in that order (rows in input order, then the
       reciprocal), bit for bit; and the two orders do differ on this data */
    enum { H = 7, W = 7, C = 13 };
    static float p[H * W * C];
    float wp[C];
    int differs = 0;
    for (int i = 0; i < H * W * C; i++) p[i] = (float)((i * 7919 + 13) % 1009) / 1009.0f - 0.3f;
    for (int k = 0; k < C; k++) {
        float sum = 0;
        for (int r = 0; r < H * W; r++) sum = sum + p[r * C + k];
        wp[k] = sum * (1.0f / (float)(H * W));
        differs += wp[k] != sum / (float)(H * W);
    }
    CHECK(differs > 0);
    kt_op g = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(1, H, W, C), p, LG_DIMS(2), (const int32_t[]){1, 2},
                            &nokeep, LG_DIMS(1, C));
    kt_model r;
    if (RUN_OK(&g, LG_PREC_F32, &r)) {
        CHECK(memcmp(kt_f32(&r, 0), wp, sizeof wp) == 0);
        kt_free(&r);
    }
}

LG_TEST(k_reduce_mean_f16_layernorm_channel_sum_overflows) {
    /* The NAFNet LayerNorm case over 512 channels, through the delegate's reduce kernel with
       half accumulators (reduce.cc; k_reduce_half.c): 512 channels = 128 slices of 4; the
       Mali work group is 32 threads (GetMaximumPossibleWGSize: 4 slices per thread first,
       then doubling while 128 >= 8 * threads); thread t sums slices t, t+32, t+64, t+96, so
       each of its 4 lanes holds 4 values. MEAN scales that partial by 1 / (512 / 32) before
       the work-group sum.
       The mean of x = 175: a lane holds 700 -> 43.75, 32 threads -> 1400, / 32 -> 43.75, the
       4 lanes -> 175: no overflow, although the whole sum 89600 is past 65504 (a finding:
       the kernel's early scaling keeps a channel MEAN of |x| ~ 175 finite).
       The mean of the squares 175^2 = 30625 (the variance): a lane holds 4 * 30625 = 122500
       > 65504 before any scaling: inf. And SUM has no scaling: 89600 -> inf (LiteRT#9249). */
    static float x[512];
    for (int i = 0; i < 512; i++) x[i] = 175.0f;
    kt_op c = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(1, 1, 1, 512), x, LG_DIMS(1), (const int32_t[]){3},
                            &keep, LG_DIMS(1, 1, 1, 1));
    const float inf1[1] = {INFINITY}, v175[1] = {175.0f};
    EXPECT_F32(&c, LG_PREC_F16, v175, 1, 0);
    EXPECT_F32(&c, LG_PREC_F32, v175, 1, 0);
    EXPECT_F32(&c, LG_PREC_F32_F16, v175, 1, 0);
    kt_op s = reduce_case(LG_OP_SUM, LG_FLOAT32, LG_DIMS(1, 1, 1, 512), x, LG_DIMS(1), (const int32_t[]){3},
                            &keep, LG_DIMS(1, 1, 1, 1));
    EXPECT_F32(&s, LG_PREC_F16, inf1, 1, 0);
    EXPECT_F32(&s, LG_PREC_F32, ((const float[]){89600.0f}), 1, 0);
    static float sq[512];
    for (int i = 0; i < 512; i++) sq[i] = 30625.0f;
    kt_op v = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(1, 1, 1, 512), sq, LG_DIMS(1), (const int32_t[]){3},
                            &keep, LG_DIMS(1, 1, 1, 1));
    EXPECT_F32(&v, LG_PREC_F16, inf1, 1, 0);
    EXPECT_F32(&v, LG_PREC_F32, ((const float[]){30625.0f}), 1, 0);
    /* squares of 120 (14400): a lane holds 57600 < 65504, scaled to 3600; the work group
       then sums 32 * 3600 = 115200: inf there. Near miss, squares of 80 (6400): a lane holds
       25600 -> 1600, the work group 32 * 1600 = 51200 < 65504, / 32 -> 1600, the 4 lanes
       -> 6400. */
    for (int i = 0; i < 512; i++) sq[i] = 14400.0f;
    EXPECT_F32(&v, LG_PREC_F16, inf1, 1, 0);
    for (int i = 0; i < 512; i++) sq[i] = 6400.0f;
    EXPECT_F32(&v, LG_PREC_F16, ((const float[]){6400.0f}), 1, 0);
    /* negative values overflow to -inf */
    for (int i = 0; i < 512; i++) sq[i] = -30625.0f;
    const float ninf1[1] = {-INFINITY};
    EXPECT_F32(&v, LG_PREC_F16, ninf1, 1, 0);
}

LG_TEST(k_reduce_mean_f16_spatial_pool_vs_two_step) {
    /* Global average pool over a 64x64 map, the delegate's reduce kernel with half
       accumulators (reduce.cc; k_reduce_half.c): H and W reduced, a Mali work group of 64
       threads (GetMaximumPossibleWGSize: W gets 8 after 4 loop reductions, H 8), each summing
       4096 / 64 = 64 values, scaled by 1 / 64 before the work-group sum.
       x = 20: a thread holds 1280 -> 20, the work group 64 * 20 = 1280 -> 20: finite in f16,
       although the whole sum 81920 is past 65504 (a finding: the kernel's early scaling, not
       the mean(3).mean(2) split of the field notes, keeps this MEAN finite); SUM over (1,2)
       has no scaling: 81920 -> inf (LiteRT#9249). x = 1100: a thread's 64 values sum to
       70400 > 65504 before any scaling: inf. */
    static float x[64 * 64 * 2];
    for (int i = 0; i < 64 * 64 * 2; i++) x[i] = 20.0f;
    kt_op both = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(1, 64, 64, 2), x, LG_DIMS(2), (const int32_t[]){1, 2},
                               &keep, LG_DIMS(1, 1, 1, 2));
    const float inf2[2] = {INFINITY, INFINITY}, v20[2] = {20, 20};
    EXPECT_F32(&both, LG_PREC_F16, v20, 2, 0);
    EXPECT_F32(&both, LG_PREC_F32, v20, 2, 0);
    EXPECT_F32(&both, LG_PREC_F32_F16, v20, 2, 0);
    kt_op sum = reduce_case(LG_OP_SUM, LG_FLOAT32, LG_DIMS(1, 64, 64, 2), x, LG_DIMS(2), (const int32_t[]){1, 2},
                              &keep, LG_DIMS(1, 1, 1, 2));
    EXPECT_F32(&sum, LG_PREC_F16, inf2, 2, 0);
    EXPECT_F32(&sum, LG_PREC_F32, ((const float[]){81920, 81920}), 2, 0);
    static float big[64 * 64 * 2];
    for (int i = 0; i < 64 * 64 * 2; i++) big[i] = 1100.0f;
    kt_op bigc = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(1, 64, 64, 2), big, LG_DIMS(2), (const int32_t[]){1, 2},
                               &keep, LG_DIMS(1, 1, 1, 2));
    EXPECT_F32(&bigc, LG_PREC_F16, inf2, 2, 0);
    EXPECT_F32(&bigc, LG_PREC_F32, ((const float[]){1100, 1100}), 2, 0);
    static float want[64 * 2];
    for (int i = 0; i < 128; i++) want[i] = 20.0f;
    kt_op one = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(1, 64, 64, 2), x, LG_DIMS(1), (const int32_t[]){2},
                              &keep, LG_DIMS(1, 64, 1, 2));
    EXPECT_ALL(&one, want, 128, 0, 0);
}

LG_TEST(k_reduce_mean_int32_truncates) {
    /* TFLite sums int32 in int64 and divides truncating: (-3 + 0)/2 = -1, (7 + 8)/2 = 7 */
    const int32_t x[4] = {-3, 0, 7, 8};
    kt_op c = reduce_case(LG_OP_MEAN, LG_INT32, LG_DIMS(2, 2), x, LG_DIMS(1), (const int32_t[]){1}, &nokeep,
                            LG_DIMS(2));
    kt_model r;
    if (RUN_OK(&c, LG_PREC_F16, &r)) {
        CHECK_I64(&r, 0, LG_INT32, ((const int64_t[]){-1, 7}), 2);
        kt_free(&r);
    }
}

LG_TEST(k_reduce_mean_empty_input_is_nan) {
    /* x[0,3]: a mean over axis 0 has nothing to average; TFLite fills NaN */
    kt_op c = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(0, 3), NULL, LG_DIMS(1), (const int32_t[]){0}, &nokeep,
                            LG_DIMS(3));
    const float want[3] = {NAN, NAN, NAN};
    EXPECT_ALL(&c, want, 3, 0, 0);
}

LG_TEST(k_reduce_mean_scalar_and_empty_axes) {
    /* a scalar input ignores its axes (TFLite), so axis 5 is not an error */
    const float s[1] = {3.5f};
    kt_op c = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_SCALAR, s, LG_DIMS(1), (const int32_t[]){5}, &nokeep,
                            LG_SCALAR);
    EXPECT_ALL(&c, s, 1, 0, 0);
    /* an empty axes list is a copy */
    kt_op e = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(2, 3), x1223, LG_DIMS(0), NULL, &nokeep, LG_DIMS(2, 3));
    EXPECT_ALL(&e, x1223, 6, 0, 0);
}

/* ------------------------------------------------------------------ SUM */

LG_TEST(k_reduce_sum_axis0_and_all) {
    const float want0[3] = {5, 7, 9};
    kt_op c = reduce_case(LG_OP_SUM, LG_FLOAT32, LG_DIMS(2, 3), x1223, LG_DIMS(1), (const int32_t[]){0}, &nokeep,
                            LG_DIMS(3));
    EXPECT_ALL(&c, want0, 3, 0, 0);
    const float want_all[1] = {21};
    kt_op a = reduce_case(LG_OP_SUM, LG_FLOAT32, LG_DIMS(2, 3), x1223, LG_DIMS(2), (const int32_t[]){1, 0}, &keep,
                            LG_DIMS(1, 1));
    EXPECT_ALL(&a, want_all, 1, 0, 0);
}

LG_TEST(k_reduce_sum_f16_overflow_and_storage) {
    /* 600 x 200.0: the half accumulator overflows (inf); fp32 gives 120000, which a half
       output tensor cannot hold either, so f32_f16 stores inf too */
    static float x[600];
    for (int i = 0; i < 600; i++) x[i] = 200.0f;
    kt_op c = reduce_case(LG_OP_SUM, LG_FLOAT32, LG_DIMS(600), x, LG_DIMS(1), (const int32_t[]){0}, &nokeep,
                            LG_SCALAR);
    const float inf1[1] = {INFINITY}, big[1] = {120000.0f};
    EXPECT_F32(&c, LG_PREC_F16, inf1, 1, 0);
    EXPECT_F32(&c, LG_PREC_F32, big, 1, 0);
    EXPECT_F32(&c, LG_PREC_F32_F16, inf1, 1, 0);
}

LG_TEST(k_reduce_sum_f16_stagnates_at_2048) {
    /* A half accumulator stops at 2048 (2048 + 1 rounds back to 2048, ties to even), but the
       delegate's reduce kernel spreads the sum over a work group (reduce.cc). x[1,3000] is
       BC: 3000 channels = 750 slices, 64 threads (4 loop reductions, then doubling to the Mali
       limit), thread t holding slices t, t+64, ...: 11 or 12 per lane, all exact; the work
       group adds them by fours then thread 0 the 16 groups: 750 per lane, exact; the lanes:
       3000 (a half: 2 * 1500). */
    static float x[3000];
    for (int i = 0; i < 3000; i++) x[i] = 1.0f;
    kt_op c = reduce_case(LG_OP_SUM, LG_FLOAT32, LG_DIMS(1, 3000), x, LG_DIMS(1), (const int32_t[]){1}, &nokeep,
                            LG_DIMS(1));
    const float w16[1] = {3000}, w32[1] = {3000};
    EXPECT_F32(&c, LG_PREC_F16, w16, 1, 0);
    EXPECT_F32(&c, LG_PREC_F32, w32, 1, 0);
    EXPECT_F32(&c, LG_PREC_F32_F16, w32, 1, 0);
    /* Under 64 elements the work group stays below 16 threads (40: 4 loop reductions, then
       2, 4, 8 threads; 40 < 8 * 8) and one thread sums alone, in order: {2048, 39 ones} (rank
       1, the B axis: no lanes) sticks at 2048 in f16; fp32 gives 2087. */
    static float y[40];
    y[0] = 2048.0f;
    for (int i = 1; i < 40; i++) y[i] = 1.0f;
    kt_op d = reduce_case(LG_OP_SUM, LG_FLOAT32, LG_DIMS(40), y, LG_DIMS(1), (const int32_t[]){0}, &nokeep,
                            LG_SCALAR);
    EXPECT_F32(&d, LG_PREC_F16, ((const float[]){2048}), 1, 0);
    EXPECT_F32(&d, LG_PREC_F32, ((const float[]){2087}), 1, 0);
}

LG_TEST(k_reduce_sum_int_wraps) {
    const int32_t x[4] = {INT32_MAX, 1, 2, 3};
    kt_op c = reduce_case(LG_OP_SUM, LG_INT32, LG_DIMS(2, 2), x, LG_DIMS(1), (const int32_t[]){-1}, &keep,
                            LG_DIMS(2, 1));
    kt_model r;
    if (RUN_OK(&c, LG_PREC_F32, &r)) {
        CHECK_I64(&r, 0, LG_INT32, ((const int64_t[]){INT32_MIN, 5}), 2);
        kt_free(&r);
    }
    const int64_t y[3] = {10000000000ll, -3, 4};
    kt_op c64 = reduce_case(LG_OP_SUM, LG_INT64, LG_DIMS(3), y, LG_DIMS(1), (const int32_t[]){0}, &nokeep, LG_SCALAR);
    if (RUN_OK(&c64, LG_PREC_F32, &r)) {
        CHECK_I64(&r, 0, LG_INT64, ((const int64_t[]){10000000001ll}), 1);
        kt_free(&r);
    }
}

/* A naive reduction written from the definition: for every input index, find its output
   index by dropping (or zeroing) the reduced coordinates. */
static void naive_reduce(int op, const float *x, const int32_t *shape, int rank, unsigned mask, int keepd,
                         float *y, int64_t *ny) {
    int64_t on = 1, in = 1;
    for (int d = 0; d < rank; d++) {
        in *= shape[d];
        if (!(mask >> d & 1)) on *= shape[d];
    }
    for (int64_t i = 0; i < on; i++) y[i] = op == 0 ? 0.0f : -INFINITY;
    for (int64_t i = 0; i < in; i++) {
        int64_t rem = i, coord[8];
        for (int d = rank - 1; d >= 0; d--) { coord[d] = rem % shape[d]; rem /= shape[d]; }
        int64_t o = 0;
        for (int d = 0; d < rank; d++)
            if (!(mask >> d & 1)) o = o * shape[d] + coord[d];
        if (op == 0) y[o] += x[i];
        else if (x[i] > y[o]) y[o] = x[i];
    }
    (void)keepd;
    *ny = on;
}

LG_TEST(k_reduce_sum_max_every_axis_subset_vs_naive) {
    /* x[2,3,4,5] with distinct values; all 16 axis subsets, keep_dims on and off */
    static float x[120];
    for (int i = 0; i < 120; i++) x[i] = (float)((i * 37) % 120) - 60.0f;
    const int32_t shape[4] = {2, 3, 4, 5};
    for (int op = 0; op < 2; op++)
        for (unsigned mask = 0; mask < 16; mask++)
            for (int kd = 0; kd < 2; kd++) {
                int32_t axes[4], ys[4];
                uint32_t na = 0, yr = 0;
                for (int d = 0; d < 4; d++) {
                    if (mask >> d & 1) {
                        axes[na++] = (d % 2) ? d - 4 : d; /* mix negative axes in */
                        if (kd) ys[yr++] = 1;
                    } else {
                        ys[yr++] = shape[d];
                    }
                }
                float want[120];
                int64_t nw;
                naive_reduce(op, x, shape, 4, mask, kd, want, &nw);
                const int32_t ashape[1] = {(int32_t)na};
                kt_op c = reduce_case(op ? LG_OP_REDUCE_MAX : LG_OP_SUM, LG_FLOAT32, LG_DIMS(2, 3, 4, 5), x,
                                        (lg_dims){ashape, 1}, axes, kd ? &keep : &nokeep, (lg_dims){ys, yr});
                EXPECT_F32(&c, LG_PREC_F32, want, nw, 1e-4);
            }
}

/* ------------------------------------------------------------------ PROD, MAX, MIN, ANY, ALL */

LG_TEST(k_reduce_prod_and_f16_product_overflow) {
    /* rows {1,2,3}, {4,5,6} -> 6, 120 */
    const float want[2] = {6, 120};
    kt_op c = reduce_case(LG_OP_REDUCE_PROD, LG_FLOAT32, LG_DIMS(2, 3), x1223, LG_DIMS(1), (const int32_t[]){1},
                            &nokeep, LG_DIMS(2));
    EXPECT_ALL(&c, want, 2, 0, 0);
    /* 256 * 256 * (1/4) = 16384: the running product 65536 is past the largest half, but the
       delegate's reduce kernel multiplies in fp32 even in F16 (reduce.cc, GetAccumType: FLOAT32
       for a FLOAT16 tensor; the result is converted once), so f16 gives 16384 too */
    const float y[3] = {256, 256, 0.25f};
    kt_op p = reduce_case(LG_OP_REDUCE_PROD, LG_FLOAT32, LG_DIMS(3), y, LG_DIMS(1), (const int32_t[]){0}, &nokeep,
                            LG_SCALAR);
    const float w[1] = {16384};
    EXPECT_F32(&p, LG_PREC_F16, w, 1, 0);
    /* the result itself past 65504 is inf once stored: 256 * 256 * 2 = 131072 */
    const float y2[3] = {256, 256, 2};
    kt_op p2 = reduce_case(LG_OP_REDUCE_PROD, LG_FLOAT32, LG_DIMS(3), y2, LG_DIMS(1), (const int32_t[]){0}, &nokeep,
                             LG_SCALAR);
    EXPECT_F32(&p2, LG_PREC_F16, ((const float[]){INFINITY}), 1, 0);
    EXPECT_F32(&p, LG_PREC_F32, w, 1, 0);
    EXPECT_F32(&p, LG_PREC_F32_F16, w, 1, 0);
}

LG_TEST(k_reduce_max_min_rows) {
    const float x[6] = {-1, 5, 3, -INFINITY, -INFINITY, -INFINITY};
    kt_op mx = reduce_case(LG_OP_REDUCE_MAX, LG_FLOAT32, LG_DIMS(2, 3), x, LG_DIMS(1), (const int32_t[]){1}, &keep,
                             LG_DIMS(2, 1));
    const float wmax[2] = {5, -INFINITY}; /* a row of -inf has max -inf */
    EXPECT_ALL(&mx, wmax, 2, 0, 0);
    kt_op mn = reduce_case(LG_OP_REDUCE_MIN, LG_FLOAT32, LG_DIMS(2, 3), x, LG_DIMS(1), (const int32_t[]){0},
                             &nokeep, LG_DIMS(3));
    const float wmin[3] = {-INFINITY, -INFINITY, -INFINITY};
    EXPECT_ALL(&mn, wmin, 3, 0, 0);
    const int32_t xi[4] = {7, -9, 2, 11};
    kt_op mi = reduce_case(LG_OP_REDUCE_MIN, LG_INT32, LG_DIMS(4), xi, LG_DIMS(1), (const int32_t[]){0}, &nokeep,
                             LG_SCALAR);
    kt_model r;
    if (RUN_OK(&mi, LG_PREC_F32, &r)) {
        CHECK_I64(&r, 0, LG_INT32, ((const int64_t[]){-9}), 1);
        kt_free(&r);
    }
    const int8_t x8[4] = {-128, 3, 127, 0};
    kt_op m8 = reduce_case(LG_OP_REDUCE_MAX, LG_INT8, LG_DIMS(2, 2), x8, LG_DIMS(1), (const int32_t[]){1}, &nokeep,
                             LG_DIMS(2));
    if (RUN_OK(&m8, LG_PREC_F32, &r)) {
        CHECK_I64(&r, 0, LG_INT8, ((const int64_t[]){3, 127}), 2);
        kt_free(&r);
    }
}

LG_TEST(k_reduce_empty_reductions_give_neutral_elements) {
    /* x[0,3] over axis 0: SUM 0, PROD 1, MAX lowest(), MIN max() (TFLite's init values) */
    const int32_t ax[1] = {0};
    kt_op s = reduce_case(LG_OP_SUM, LG_FLOAT32, LG_DIMS(0, 3), NULL, LG_DIMS(1), ax, &nokeep, LG_DIMS(3));
    EXPECT_F32(&s, LG_PREC_F32, ((const float[]){0, 0, 0}), 3, 0);
    s.code = LG_OP_REDUCE_PROD;
    EXPECT_F32(&s, LG_PREC_F32, ((const float[]){1, 1, 1}), 3, 0);
    s.code = LG_OP_REDUCE_MAX;
    EXPECT_F32(&s, LG_PREC_F32, ((const float[]){-FLT_MAX, -FLT_MAX, -FLT_MAX}), 3, 0);
    s.code = LG_OP_REDUCE_MIN;
    EXPECT_F32(&s, LG_PREC_F32, ((const float[]){FLT_MAX, FLT_MAX, FLT_MAX}), 3, 0);
    /* and no output at all when the kept dim is the empty one */
    kt_op e = reduce_case(LG_OP_SUM, LG_FLOAT32, LG_DIMS(0, 3), NULL, LG_DIMS(1), (const int32_t[]){1}, &nokeep,
                            LG_DIMS(0));
    kt_model r;
    if (RUN_OK(&e, LG_PREC_F16, &r)) {
        CHECK_EQ_INT(kt_out(&r, 0).numel, 0);
        kt_free(&r);
    }
}

LG_TEST(k_reduce_any_all_bool) {
    const uint8_t x[6] = {0, 1, 0, 1, 1, 1};
    kt_op a = reduce_case(LG_OP_REDUCE_ANY, LG_BOOL, LG_DIMS(2, 3), x, LG_DIMS(1), (const int32_t[]){1}, &nokeep,
                            LG_DIMS(2));
    kt_model r;
    if (RUN_OK(&a, LG_PREC_F32, &r)) {
        CHECK_I64(&r, 0, LG_BOOL, ((const int64_t[]){1, 1}), 2);
        kt_free(&r);
    }
    a.code = LG_OP_REDUCE_ALL;
    if (RUN_OK(&a, LG_PREC_F32, &r)) {
        CHECK_I64(&r, 0, LG_BOOL, ((const int64_t[]){0, 1}), 2);
        kt_free(&r);
    }
    const uint8_t z[2] = {0, 0};
    kt_op n = reduce_case(LG_OP_REDUCE_ANY, LG_BOOL, LG_DIMS(2), z, LG_DIMS(1), (const int32_t[]){0}, &keep, LG_DIMS(1));
    if (RUN_OK(&n, LG_PREC_F32, &r)) {
        CHECK_I64(&r, 0, LG_BOOL, ((const int64_t[]){0}), 1);
        kt_free(&r);
    }
}

LG_TEST(k_reduce_errors) {
    kt_op c = reduce_case(LG_OP_MEAN, LG_FLOAT32, LG_DIMS(2, 3), x1223, LG_DIMS(1), (const int32_t[]){2}, &nokeep,
                            LG_DIMS(2));
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "axis 2 is out of range");
    c.in[1].data = (const int32_t[]){-3};
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "axis -3 is out of range");
    c.in[1] = ((kt_tensor){LG_INT32, LG_DIMS(1), (const int32_t[]){1}, 0, NULL, NULL, 0, 0}); /* runtime axes */
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "must be constant");
    kt_op b = reduce_case(LG_OP_REDUCE_ANY, LG_FLOAT32, LG_DIMS(2, 3), x1223, LG_DIMS(1), (const int32_t[]){1},
                            &nokeep, LG_DIMS(2));
    EXPECT_FAIL(&b, LG_ERR_FORMAT, "must be BOOL");
    const int8_t q[6] = {0};
    kt_op s8 = reduce_case(LG_OP_SUM, LG_INT8, LG_DIMS(2, 3), q, LG_DIMS(1), (const int32_t[]){1}, &nokeep, LG_DIMS(2));
    EXPECT_FAIL(&s8, LG_ERR_UNSUPPORTED, "quantized INT8");
    kt_op ot = reduce_case(LG_OP_SUM, LG_FLOAT32, LG_DIMS(2, 3), x1223, LG_DIMS(1), (const int32_t[]){1}, &nokeep,
                             LG_DIMS(2));
    ot.out[0].type = LG_INT32;
    EXPECT_FAIL(&ot, LG_ERR_FORMAT, "is stored as INT32 but the op gives FLOAT32");
    kt_op ar = reduce_case(LG_OP_SUM, LG_FLOAT32, LG_DIMS(2, 3), x1223, LG_DIMS(1), (const int32_t[]){1}, &nokeep,
                             LG_DIMS(2));
    ar.n_in = 1;
    EXPECT_FAIL(&ar, LG_ERR_FORMAT, "1 inputs, it takes 2");
}

/* ------------------------------------------------------------------ SOFTMAX, LOG_SOFTMAX */

static kt_op row_case(int32_t code, lg_opts_kind kind, const void *opts, lg_dims s, const float *x) {
    kt_op c;
    memset(&c, 0, sizeof c);
    c.code = code;
    c.kind = kind;
    c.opts = opts;
    c.n_in = 1;
    c.in[0] = ((kt_tensor){LG_FLOAT32, s, x, 0, NULL, NULL, 0, 0});
    c.n_out = 1;
    c.out[0] = KT_OUT(LG_FLOAT32, s);
    return c;
}

/* softmax straight from the definition (no max subtraction), in double */
static void naive_softmax(const float *x, int64_t rows, int64_t d, double beta, float *y) {
    for (int64_t r = 0; r < rows; r++) {
        double s = 0;
        for (int64_t k = 0; k < d; k++) s += exp(beta * x[r * d + k]);
        for (int64_t k = 0; k < d; k++) y[r * d + k] = (float)(exp(beta * x[r * d + k]) / s);
    }
}

LG_TEST(k_reduce_softmax_rows_and_beta) {
    const float x[6] = {1, 2, 3, 0, 0, 0};
    float want[6];
    const lg_softmax_options b1 = {1.0f}, bh = {0.5f};
    naive_softmax(x, 2, 3, 1.0, want);
    kt_op c = row_case(LG_OP_SOFTMAX, LG_OPTS_SOFTMAX_OPTIONS, &b1, LG_DIMS(2, 3), x);
    EXPECT_ALL(&c, want, 6, 1e-6, 1e-3);
    naive_softmax(x, 2, 3, 0.5, want);
    c.opts = &bh;
    EXPECT_ALL(&c, want, 6, 1e-6, 1e-3);
    /* rank 1 and rank 4 (rows over the last dim) */
    const float v[4] = {-1, 0, 1, 2};
    naive_softmax(v, 1, 4, 1.0, want);
    kt_op r1 = row_case(LG_OP_SOFTMAX, LG_OPTS_SOFTMAX_OPTIONS, &b1, LG_DIMS(4), v);
    EXPECT_ALL(&r1, want, 4, 1e-6, 1e-3);
    naive_softmax(v, 2, 2, 1.0, want);
    kt_op r4 = row_case(LG_OP_SOFTMAX, LG_OPTS_SOFTMAX_OPTIONS, &b1, LG_DIMS(1, 1, 2, 2), v);
    EXPECT_ALL(&r4, want, 4, 1e-6, 1e-3);
    /* large logits: the max subtraction keeps exp finite */
    const float big[2] = {1000, 1001};
    const double e = exp(-1.0);
    const float wb[2] = {(float)(e / (1 + e)), (float)(1 / (1 + e))};
    kt_op cb = row_case(LG_OP_SOFTMAX, LG_OPTS_SOFTMAX_OPTIONS, &b1, LG_DIMS(1, 2), big);
    EXPECT_F32(&cb, LG_PREC_F32, wb, 2, 1e-6);
}

LG_TEST(k_reduce_softmax_f16_exp_sum_in_fp32) {
    /* The GPU delegate's softmax is fp32 even in F16 precision (softmax.cc, the two- and
       three-pass kernels: `float sum`, `exp(t) / sum`, one TO_FLT4 at the store).
       beta = -1 on {0, 0, 10.5}: the row max is 10.5, the terms are exp(10.5) = 36315.5,
       exp(10.5), exp(0) = 1. Their sum 72632 is past 65504 (a half accumulator would be inf
       and every output 0) but fine in fp32: f16 is the fp32 result rounded to half,
       0.49999 -> 0.5 and 1/72632 = 1.3768e-5 -> the subnormal half 1.37687e-5
       (231 * 2^-24). */
    const float x[3] = {0, 0, 10.5f};
    const lg_softmax_options bm = {-1.0f};
    kt_op c = row_case(LG_OP_SOFTMAX, LG_OPTS_SOFTMAX_OPTIONS, &bm, LG_DIMS(1, 3), x);
    const double e = exp(10.5), s = 2 * e + 1;
    const float w32[3] = {(float)(e / s), (float)(e / s), (float)(1 / s)};
    const float w16[3] = {0.5f, 0.5f, 231.0f / 16777216.0f};
    EXPECT_F32(&c, LG_PREC_F16, w16, 3, 0);
    EXPECT_F32(&c, LG_PREC_F32, w32, 3, 1e-7);
    EXPECT_F32(&c, LG_PREC_F32_F16, w32, 3, 1e-4);
}

LG_TEST(k_reduce_softmax_f16_sum_does_not_stagnate) {
    /* 4096 equal logits: each term is exp(0) = 1; a half accumulator would stop at 2048 and
       give 1/2048, but the delegate's softmax sums in fp32 (softmax.cc, see above): 1/4096 in
       every mode (a half) */
    static float x[4096], w16[4096], w32[4096];
    for (int i = 0; i < 4096; i++) { x[i] = 0.25f; w16[i] = 1.0f / 4096; w32[i] = 1.0f / 4096; }
    const lg_softmax_options b1 = {1.0f};
    kt_op c = row_case(LG_OP_SOFTMAX, LG_OPTS_SOFTMAX_OPTIONS, &b1, LG_DIMS(1, 4096), x);
    EXPECT_F32(&c, LG_PREC_F16, w16, 4096, 0);
    EXPECT_F32(&c, LG_PREC_F32, w32, 4096, 1e-12);
    EXPECT_F32(&c, LG_PREC_F32_F16, w32, 4096, 0);
}

LG_TEST(k_reduce_softmax_no_options_and_errors) {
    /* absent SoftmaxOptions: TFLite's zeroed beta, exp(0) everywhere -> uniform */
    const float x[4] = {1, 5, -3, 2};
    kt_op c = row_case(LG_OP_SOFTMAX, LG_OPTS_NONE, NULL, LG_DIMS(4), x);
    const float w[4] = {0.25f, 0.25f, 0.25f, 0.25f};
    EXPECT_ALL(&c, w, 4, 0, 0);
    const int32_t xi[4] = {0};
    kt_op ci = c;
    ci.in[0].type = LG_INT32;
    ci.in[0].data = xi;
    ci.out[0].type = LG_INT32;
    EXPECT_FAIL(&ci, LG_ERR_UNSUPPORTED, "float only");
    kt_op s = row_case(LG_OP_SOFTMAX, LG_OPTS_NONE, NULL, LG_SCALAR, x);
    EXPECT_FAIL(&s, LG_ERR_FORMAT, "rank >= 1");
}

LG_TEST(k_reduce_log_softmax_rows) {
    /* y = x - log(sum exp(x)), written without the max shift */
    const float x[6] = {1, 2, 3, -4, 0, 4};
    float want[6];
    for (int r = 0; r < 2; r++) {
        double s = 0;
        for (int k = 0; k < 3; k++) s += exp((double)x[r * 3 + k]);
        for (int k = 0; k < 3; k++) want[r * 3 + k] = (float)(x[r * 3 + k] - log(s));
    }
    kt_op c = row_case(LG_OP_LOG_SOFTMAX, LG_OPTS_LOG_SOFTMAX_OPTIONS, NULL, LG_DIMS(2, 3), x);
    EXPECT_ALL(&c, want, 6, 1e-6, 1e-2);
    /* the half sum of 4096 ones stops at 2048: y = -log(2048) instead of -log(4096) */
    static float z[4096], w16[4096], w32[4096];
    for (int i = 0; i < 4096; i++) { z[i] = 0; w16[i] = (float)-log(2048.0); w32[i] = (float)-log(4096.0); }
    kt_op cz = row_case(LG_OP_LOG_SOFTMAX, LG_OPTS_NONE, NULL, LG_DIMS(4096), z);
    EXPECT_F32(&cz, LG_PREC_F16, w16, 4096, 4e-3);
    EXPECT_F32(&cz, LG_PREC_F32, w32, 4096, 1e-6);
}

/* ------------------------------------------------------------------ L2_NORMALIZATION */

LG_TEST(k_reduce_l2norm_rows) {
    /* {3, 4} / 5; a zero row divides by epsilon 1e-6 and stays 0 */
    const float x[4] = {3, 4, 0, 0};
    const float want[4] = {0.6f, 0.8f, 0, 0};
    kt_op c = row_case(LG_OP_L2_NORMALIZATION, LG_OPTS_L2_NORM_OPTIONS, &(lg_l2_norm_options){0}, LG_DIMS(2, 2), x);
    EXPECT_ALL(&c, want, 4, 1e-7, 5e-4);
    /* a tiny row: sqrt(sum) = 5e-7 < 1e-6, so y = x / 1e-6 */
    const float t[2] = {3e-7f, 4e-7f};
    kt_op ct = row_case(LG_OP_L2_NORMALIZATION, LG_OPTS_NONE, NULL, LG_DIMS(2), t);
    EXPECT_F32(&ct, LG_PREC_F32, ((const float[]){0.3f, 0.4f}), 2, 1e-6);
}

LG_TEST(k_reduce_l2norm_f16_rtmpose_collapse) {
    /* The RTMPose ScaleNorm case: 64 values of +-274. 274^2 = 75076 is already inf in half,
       so the norm is inf and x / inf = 0: the whole head outputs exactly zero in f16. In
       fp32 each value is 274 / sqrt(64 * 274^2) = +-1/8. */
    static float x[64], w16[64], w32[64];
    for (int i = 0; i < 64; i++) {
        x[i] = (i % 2) ? -274.0f : 274.0f;
        w16[i] = 0.0f;
        w32[i] = (i % 2) ? -0.125f : 0.125f;
    }
    kt_op c = row_case(LG_OP_L2_NORMALIZATION, LG_OPTS_L2_NORM_OPTIONS, &(lg_l2_norm_options){0}, LG_DIMS(1, 1, 64), x);
    EXPECT_F32(&c, LG_PREC_F16, w16, 64, 0);
    EXPECT_F32(&c, LG_PREC_F32, w32, 64, 1e-7);
    EXPECT_F32(&c, LG_PREC_F32_F16, w32, 64, 0);
}

LG_TEST(k_reduce_l2norm_f16_sum_of_squares_overflows) {
    /* 64 values of 40: each square 1600 is fine, their running sum passes 65504 at the 41st
       term (102400 in total): f16 gives 0, fp32 40 / 320 = 0.125 */
    static float x[64], w16[64], w32[64];
    for (int i = 0; i < 64; i++) { x[i] = 40.0f; w16[i] = 0; w32[i] = 0.125f; }
    kt_op c = row_case(LG_OP_L2_NORMALIZATION, LG_OPTS_NONE, NULL, LG_DIMS(64), x);
    EXPECT_F32(&c, LG_PREC_F16, w16, 64, 0);
    EXPECT_F32(&c, LG_PREC_F32, w32, 64, 0);
    EXPECT_F32(&c, LG_PREC_F32_F16, w32, 64, 0);
}

LG_TEST(k_reduce_l2norm_rejects_fused_activation) {
    const float x[2] = {1, 2};
    const lg_l2_norm_options relu = {1};
    kt_op c = row_case(LG_OP_L2_NORMALIZATION, LG_OPTS_L2_NORM_OPTIONS, &relu, LG_DIMS(2), x);
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "fused activation 1");
}

/* ------------------------------------------------------------------ LOCAL_RESPONSE_NORMALIZATION */

LG_TEST(k_reduce_lrn_window) {
    /* x = {1,2,3,4}, radius 1: windows {1,2}, {1,2,3}, {2,3,4}, {3,4}, so the sums of squares
       are 5, 14, 29, 25; bias 1, alpha 1: y = x * (1 + s)^-beta */
    const float x[4] = {1, 2, 3, 4};
    const double s[4] = {5, 14, 29, 25};
    const float betas[3] = {0.5f, 1.0f, 0.75f};
    for (int b = 0; b < 3; b++) {
        lg_local_response_normalization_options o = {1, 1.0f, 1.0f, betas[b]};
        float want[4];
        for (int k = 0; k < 4; k++) want[k] = (float)(x[k] * pow(1 + s[k], -betas[b]));
        kt_op c = row_case(LG_OP_LOCAL_RESPONSE_NORMALIZATION, LG_OPTS_LOCAL_RESPONSE_NORMALIZATION_OPTIONS, &o,
                             LG_DIMS(1, 1, 1, 4), x);
        EXPECT_ALL(&c, want, 4, 1e-6, 2e-3);
    }
    /* radius 0 with alpha 0.5, bias 2, beta 1 on two pixels: y = x / (2 + x^2 / 2) */
    const float y2[4] = {2, 4, -2, 0};
    lg_local_response_normalization_options o0 = {0, 2.0f, 0.5f, 1.0f};
    const float w0[4] = {0.5f, 0.4f, -0.5f, 0};
    kt_op c0 = row_case(LG_OP_LOCAL_RESPONSE_NORMALIZATION, LG_OPTS_LOCAL_RESPONSE_NORMALIZATION_OPTIONS, &o0,
                          LG_DIMS(1, 1, 2, 2), y2);
    EXPECT_ALL(&c0, w0, 4, 1e-7, 1e-3);
}

LG_TEST(k_reduce_lrn_errors) {
    const float x[4] = {1, 2, 3, 4};
    lg_local_response_normalization_options o = {1, 1.0f, 1.0f, 0.5f};
    kt_op c = row_case(LG_OP_LOCAL_RESPONSE_NORMALIZATION, LG_OPTS_LOCAL_RESPONSE_NORMALIZATION_OPTIONS, &o,
                         LG_DIMS(1, 4), x);
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "the input [1,4] is not 4-D");
}

/* ------------------------------------------------------------------ ARG_MAX, ARG_MIN */

static kt_op arg_case(int32_t code, lg_dtype t, lg_dims xs, const void *x, lg_dtype at, const void *axis,
                        lg_dtype ot, lg_dims ys) {
    kt_op c;
    memset(&c, 0, sizeof c);
    c.code = code;
    c.kind = code == LG_OP_ARG_MAX ? LG_OPTS_ARG_MAX_OPTIONS : LG_OPTS_ARG_MIN_OPTIONS;
    static lg_arg_max_options o32 = {LG_INT32}, o64 = {LG_INT64};
    c.opts = ot == LG_INT64 ? &o64 : &o32; /* lg_arg_min_options has the same layout */
    c.n_in = 2;
    c.in[0] = ((kt_tensor){t, xs, x, 0, NULL, NULL, 0, 0});
    static const int32_t one[1] = {1};
    c.in[1] = ((kt_tensor){at, (lg_dims){one, 1}, axis, 1, NULL, NULL, 0, 0});
    c.n_out = 1;
    c.out[0] = KT_OUT(ot, ys);
    return c;
}

LG_TEST(k_reduce_arg_max_last_axis_first_index_on_ties) {
    /* rows {1,3,3,2} -> 1 (first of the tied 3s); {5,5,5,5} -> 0; {-2,-1,-7,-1} -> 1 */
    const float x[12] = {1, 3, 3, 2, 5, 5, 5, 5, -2, -1, -7, -1};
    kt_op c = arg_case(LG_OP_ARG_MAX, LG_FLOAT32, LG_DIMS(3, 4), x, LG_INT32, (const int32_t[]){-1}, LG_INT32,
                         LG_DIMS(3));
    for (int p = 0; p < 3; p++) {
        kt_model r;
        if (!RUN_OK(&c, all_prec[p], &r)) continue;
        CHECK_I64(&r, 0, LG_INT32, ((const int64_t[]){1, 0, 1}), 3);
        kt_free(&r);
    }
    kt_op m = c;
    m.code = LG_OP_ARG_MIN;
    m.kind = LG_OPTS_ARG_MIN_OPTIONS;
    kt_model r;
    if (RUN_OK(&m, LG_PREC_F32, &r)) {
        CHECK_I64(&r, 0, LG_INT32, ((const int64_t[]){0, 0, 2}), 3);
        kt_free(&r);
    }
}

LG_TEST(k_reduce_arg_min_axis0_int64) {
    /* x[3,2] columns {4,1,1} -> 1, {0,9,0} -> 0; INT64 axis and INT64 output */
    const float x[6] = {4, 0, 1, 9, 1, 0};
    const int64_t ax[1] = {0};
    kt_op c = arg_case(LG_OP_ARG_MIN, LG_FLOAT32, LG_DIMS(3, 2), x, LG_INT64, ax, LG_INT64, LG_DIMS(2));
    kt_model r;
    if (RUN_OK(&c, LG_PREC_F32, &r)) {
        CHECK_I64(&r, 0, LG_INT64, ((const int64_t[]){1, 0}), 2);
        kt_free(&r);
    }
    /* a middle axis: x[2,3,2] over axis 1 */
    const int32_t xi[12] = {0, 5, 9, 1, 3, 7, /* b0 */ -1, -1, -5, 2, -5, 2};
    kt_op m = arg_case(LG_OP_ARG_MAX, LG_INT32, LG_DIMS(2, 3, 2), xi, LG_INT32, (const int32_t[]){1}, LG_INT32,
                         LG_DIMS(2, 2));
    if (RUN_OK(&m, LG_PREC_F32, &r)) {
        /* b0: {0,9,3} -> 1, {5,1,7} -> 2; b1: {-1,-5,-5} -> 0, {-1,2,2} -> 1 */
        CHECK_I64(&r, 0, LG_INT32, ((const int64_t[]){1, 2, 0, 1}), 4);
        kt_free(&r);
    }
    const uint8_t bx[3] = {0, 1, 1};
    kt_op bb = arg_case(LG_OP_ARG_MAX, LG_BOOL, LG_DIMS(3), bx, LG_INT32, (const int32_t[]){0}, LG_INT32, LG_SCALAR);
    if (RUN_OK(&bb, LG_PREC_F32, &r)) {
        CHECK_I64(&r, 0, LG_INT32, ((const int64_t[]){1}), 1);
        kt_free(&r);
    }
}

LG_TEST(k_reduce_arg_errors) {
    const float x[4] = {1, 2, 3, 4};
    kt_op c = arg_case(LG_OP_ARG_MAX, LG_FLOAT32, LG_DIMS(2, 2), x, LG_INT32, (const int32_t[]){2}, LG_INT32, LG_DIMS(2));
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "out of range");
    c = arg_case(LG_OP_ARG_MAX, LG_FLOAT32, LG_DIMS(2, 2), x, LG_INT32, (const int32_t[]){1}, LG_INT32, LG_DIMS(2));
    c.out[0].type = LG_INT64; /* options say INT32 */
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "is stored as INT64 but the op gives INT32");
    c.out[0].type = LG_FLOAT32;
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "is stored as FLOAT32 but the op gives INT32");
    c = arg_case(LG_OP_ARG_MAX, LG_FLOAT32, LG_DIMS(2, 2), x, LG_INT32, (const int32_t[]){1}, LG_INT32, LG_DIMS(2));
    c.in[1].is_const = 0;
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "must be constant");
    c = arg_case(LG_OP_ARG_MAX, LG_FLOAT32, LG_DIMS(2, 0), x, LG_INT32, (const int32_t[]){1}, LG_INT32, LG_DIMS(2));
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "axis 1 is empty");
}

/* ------------------------------------------------------------------ TOPK_V2 */

static kt_op topk_case(lg_dtype t, lg_dims xs, const void *x, const int32_t *k, lg_dims ys) {
    kt_op c;
    memset(&c, 0, sizeof c);
    c.code = LG_OP_TOPK_V2;
    c.kind = LG_OPTS_TOPK_V2_OPTIONS;
    static lg_topk_v2_options none;
    c.opts = &none;
    c.n_in = 2;
    c.in[0] = ((kt_tensor){t, xs, x, 0, NULL, NULL, 0, 0});
    c.in[1] = ((kt_tensor){LG_INT32, LG_SCALAR, k, 1, NULL, NULL, 0, 0});
    c.n_out = 2;
    c.out[0] = KT_OUT(t, ys);
    c.out[1] = KT_OUT(LG_INT32, ys);
    return c;
}

LG_TEST(k_reduce_topk_sorted_ties_lower_index_first) {
    /* {1,3,3,2,5} top 3 -> 5 (4), 3 (1), 3 (2); {-1,-1,-1,0,-2} -> 0 (3), -1 (0), -1 (1) */
    const float x[10] = {1, 3, 3, 2, 5, -1, -1, -1, 0, -2};
    kt_op c = topk_case(LG_FLOAT32, LG_DIMS(2, 5), x, (const int32_t[]){3}, LG_DIMS(2, 3));
    kt_model r;
    for (int p = 0; p < 3; p++) {
        if (!RUN_OK(&c, all_prec[p], &r)) continue;
        CHECK_F32(&r, 0, ((const float[]){5, 3, 3, 0, -1, -1}), 6, 0, all_prec[p]);
        CHECK_I64(&r, 1, LG_INT32, ((const int64_t[]){4, 1, 2, 3, 0, 1}), 6);
        kt_free(&r);
    }
    /* -0 and +0 tie: the lower index comes first */
    const float z[3] = {0.0f, -0.0f, -1};
    kt_op cz = topk_case(LG_FLOAT32, LG_DIMS(3), z, (const int32_t[]){2}, LG_DIMS(2));
    if (RUN_OK(&cz, LG_PREC_F32, &r)) {
        CHECK_I64(&r, 1, LG_INT32, ((const int64_t[]){0, 1}), 2);
        kt_free(&r);
    }
    const float z2[3] = {-0.0f, 0.0f, -1};
    cz.in[0].data = z2;
    if (RUN_OK(&cz, LG_PREC_F32, &r)) {
        CHECK_I64(&r, 1, LG_INT32, ((const int64_t[]){0, 1}), 2);
        kt_free(&r);
    }
}

LG_TEST(k_reduce_topk_vs_naive_selection) {
    /* 3 rows of 50 values from 7 levels (many ties); k = 1, 7, 50 against a selection sort
       that repeatedly takes the first maximum among the unused */
    static float x[150];
    for (int i = 0; i < 150; i++) x[i] = (float)((i * 13 + 5) % 7) - 3.0f;
    const int ks[3] = {1, 7, 50};
    for (int t = 0; t < 3; t++) {
        int k = ks[t];
        float wv[150];
        int64_t wi[150];
        for (int r = 0; r < 3; r++) {
            int used[50] = {0};
            for (int j = 0; j < k; j++) {
                int best = -1;
                for (int c = 0; c < 50; c++)
                    if (!used[c] && (best < 0 || x[r * 50 + c] > x[r * 50 + best])) best = c;
                used[best] = 1;
                wv[r * k + j] = x[r * 50 + best];
                wi[r * k + j] = best;
            }
        }
        int32_t kk = k;
        kt_op c = topk_case(LG_FLOAT32, LG_DIMS(3, 50), x, &kk, (lg_dims){(const int32_t[]){3, k}, 2});
        kt_model r;
        if (!RUN_OK(&c, LG_PREC_F32, &r)) continue;
        CHECK_F32(&r, 0, wv, 3 * k, 0, LG_PREC_F32);
        CHECK_I64(&r, 1, LG_INT32, wi, 3 * k);
        kt_free(&r);
    }
}

LG_TEST(k_reduce_topk_int_input_k0_and_int16_indices) {
    const int32_t x[5] = {7, -9, 7, 100, 0};
    kt_op c = topk_case(LG_INT32, LG_DIMS(5), x, (const int32_t[]){2}, LG_DIMS(2));
    c.out[1].type = LG_INT16;
    kt_model r;
    if (RUN_OK(&c, LG_PREC_F32, &r)) {
        CHECK_I64(&r, 0, LG_INT32, ((const int64_t[]){100, 7}), 2);
        CHECK_I64(&r, 1, LG_INT16, ((const int64_t[]){3, 0}), 2);
        kt_free(&r);
    }
    /* k = 0: empty outputs of shape [5... , 0] */
    kt_op z = topk_case(LG_INT32, LG_DIMS(1, 5), x, (const int32_t[]){0}, LG_DIMS(1, 0));
    if (RUN_OK(&z, LG_PREC_F32, &r)) {
        CHECK_EQ_INT(kt_out(&r, 0).numel, 0);
        CHECK_SHAPE(&r, 1, 1, 0);
        kt_free(&r);
    }
}

LG_TEST(k_reduce_topk_errors) {
    const float x[4] = {1, 2, 3, 4};
    kt_op c = topk_case(LG_FLOAT32, LG_DIMS(4), x, (const int32_t[]){5}, LG_DIMS(5));
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "k = 5 is above the last dimension 4");
    c = topk_case(LG_FLOAT32, LG_DIMS(4), x, (const int32_t[]){2}, LG_DIMS(2));
    c.in[1].is_const = 0;
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "must be constant");
    c = topk_case(LG_FLOAT32, LG_DIMS(4), x, (const int32_t[]){2}, LG_DIMS(2));
    c.out[1].type = LG_INT64;
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "INT32 or INT16");
    const int64_t k64[1] = {2};
    c = topk_case(LG_FLOAT32, LG_DIMS(4), x, NULL, LG_DIMS(2));
    c.in[1] = ((kt_tensor){LG_INT64, LG_SCALAR, k64, 1, NULL, NULL, 0, 0});
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "k (input 1) must be INT32 or INT16");
}

/* ------------------------------------------------------------------ RESIZE_BILINEAR */

static kt_op resize_case(int32_t code, const void *opts, lg_dims xs, const float *x, int32_t oh, int32_t ow) {
    kt_op c;
    memset(&c, 0, sizeof c);
    c.code = code;
    c.kind = code == LG_OP_RESIZE_BILINEAR ? LG_OPTS_RESIZE_BILINEAR_OPTIONS : LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS;
    c.opts = opts;
    c.n_in = 2;
    c.in[0] = ((kt_tensor){LG_FLOAT32, xs, x, 0, NULL, NULL, 0, 0});
    static int32_t size[2];
    size[0] = oh;
    size[1] = ow;
    static const int32_t two[1] = {2};
    c.in[1] = ((kt_tensor){LG_INT32, (lg_dims){two, 1}, size, 1, NULL, NULL, 0, 0});
    c.n_out = 1;
    static int32_t ys[4];
    ys[0] = xs.v[0];
    ys[1] = oh;
    ys[2] = ow;
    ys[3] = xs.v[3];
    c.out[0] = KT_OUT(LG_FLOAT32, ((lg_dims){ys, 4}));
    return c;
}

/* The 2x2 image {{1,2},{3,4}} is the plane f(y,x) = 1 + x + 2y, which bilinear
   interpolation reproduces exactly; past the last row/column the source is clamped. */
static const float img2x2[4] = {1, 2, 3, 4};

LG_TEST(k_reduce_resize_bilinear_2x2_to_4x4_default) {
    /* scale 2/4: source 0, 0.5, 1, 1.5 (clamped to 1) on both axes */
    const float want[16] = {1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4};
    const lg_resize_bilinear_options o = {false, false};
    kt_op c = resize_case(LG_OP_RESIZE_BILINEAR, &o, LG_DIMS(1, 2, 2, 1), img2x2, 4, 4);
    EXPECT_ALL(&c, want, 16, 0, 0);
    c.kind = LG_OPTS_NONE; /* no options: the same defaults */
    c.opts = NULL;
    EXPECT_ALL(&c, want, 16, 0, 0);
}

LG_TEST(k_reduce_resize_bilinear_2x2_to_4x4_half_pixel_centers) {
    /* source (o + 0.5) * 0.5 - 0.5 = -0.25, 0.25, 0.75, 1.25: the low index clamps at 0 and
       the high at 1, so the effective coordinates are 0, 0.25, 0.75, 1 */
    const float want[16] = {1,    1.25f, 1.75f, 2,    1.5f, 1.75f, 2.25f, 2.5f,
                            2.5f, 2.75f, 3.25f, 3.5f, 3,    3.25f, 3.75f, 4};
    const lg_resize_bilinear_options o = {false, true};
    kt_op c = resize_case(LG_OP_RESIZE_BILINEAR, &o, LG_DIMS(1, 2, 2, 1), img2x2, 4, 4);
    EXPECT_ALL(&c, want, 16, 1e-6, 0);
}

LG_TEST(k_reduce_resize_bilinear_2x2_to_4x4_align_corners) {
    /* scale (2-1)/(4-1) = 1/3: source 0, 1/3, 2/3, 1 */
    float want[16];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) want[y * 4 + x] = (float)(1 + x / 3.0 + 2 * y / 3.0);
    const lg_resize_bilinear_options o = {true, false};
    kt_op c = resize_case(LG_OP_RESIZE_BILINEAR, &o, LG_DIMS(1, 2, 2, 1), img2x2, 4, 4);
    EXPECT_ALL(&c, want, 16, 1e-6, 2e-3);
}

LG_TEST(k_reduce_resize_bilinear_batch_channels_and_downscale) {
    /* x[2,2,2,2]: channel 1 is 10x channel 0, batch 1 adds 100; half pixel centers */
    float x[16];
    for (int b = 0; b < 2; b++)
        for (int p = 0; p < 4; p++) {
            x[(b * 4 + p) * 2 + 0] = img2x2[p] + 100 * b;
            x[(b * 4 + p) * 2 + 1] = 10 * img2x2[p] + 100 * b;
        }
    const float plane[16] = {1,    1.25f, 1.75f, 2,    1.5f, 1.75f, 2.25f, 2.5f,
                             2.5f, 2.75f, 3.25f, 3.5f, 3,    3.25f, 3.75f, 4};
    float want[64];
    for (int b = 0; b < 2; b++)
        for (int p = 0; p < 16; p++) {
            want[(b * 16 + p) * 2 + 0] = plane[p] + 100 * b;
            want[(b * 16 + p) * 2 + 1] = 10 * plane[p] + 100 * b;
        }
    const lg_resize_bilinear_options o = {false, true};
    kt_op c = resize_case(LG_OP_RESIZE_BILINEAR, &o, LG_DIMS(2, 2, 2, 2), x, 4, 4);
    EXPECT_ALL(&c, want, 64, 1e-5, 0.07);
    /* 4x4 -> 2x2 on f(y,x) = 4y + x: scale 2, default sources 0 and 2 -> {0, 2, 8, 10};
       half pixel centers sources 0.5 and 2.5 -> {2.5, 4.5, 10.5, 12.5} */
    float g[16];
    for (int i = 0; i < 16; i++) g[i] = (float)i;
    const lg_resize_bilinear_options od = {false, false}, oh = {false, true};
    kt_op d = resize_case(LG_OP_RESIZE_BILINEAR, &od, LG_DIMS(1, 4, 4, 1), g, 2, 2);
    EXPECT_ALL(&d, ((const float[]){0, 2, 8, 10}), 4, 0, 0);
    d.opts = &oh;
    EXPECT_ALL(&d, ((const float[]){2.5f, 4.5f, 10.5f, 12.5f}), 4, 0, 0);
    /* 1x1 -> 3x2: every output is the single input. With half pixel centers the source
       row -1/3 clamps to 0 and TFLite's expression gives 7 * 4/3 + 7 * -1/3 = 7 +- 1 ulp in
       fp32; the fp32 path (XNNPACK's: the source is clamped, a = 0) and the f16 path (a GPU's
       mix(7, 7, t)) give 7 exactly. */
    const float one[1] = {7};
    kt_op s = resize_case(LG_OP_RESIZE_BILINEAR, &oh, LG_DIMS(1, 1, 1, 1), one, 3, 2);
    EXPECT_ALL(&s, ((const float[]){7, 7, 7, 7, 7, 7}), 6, 0, 0);
}

LG_TEST(k_reduce_resize_bilinear_errors) {
    const lg_resize_bilinear_options both = {true, true}, o = {false, false};
    kt_op c = resize_case(LG_OP_RESIZE_BILINEAR, &both, LG_DIMS(1, 2, 2, 1), img2x2, 4, 4);
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "align_corners and half_pixel_centers");
    c = resize_case(LG_OP_RESIZE_BILINEAR, &o, LG_DIMS(1, 2, 2, 1), img2x2, 4, 4);
    c.in[1].is_const = 0;
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "must be constant");
    c = resize_case(LG_OP_RESIZE_BILINEAR, &o, LG_DIMS(1, 2, 2, 1), img2x2, 0, 4);
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "must be positive");
    c = resize_case(LG_OP_RESIZE_BILINEAR, &o, LG_DIMS(1, 2, 2, 1), img2x2, 4, 4);
    c.in[0].shape = LG_DIMS(2, 2, 1);
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "has rank 3, expected 4");
    c = resize_case(LG_OP_RESIZE_BILINEAR, &o, LG_DIMS(1, 2, 2, 1), img2x2, 4, 4);
    const int64_t s64[2] = {4, 4};
    c.in[1] = ((kt_tensor){LG_INT64, LG_DIMS(2), s64, 1, NULL, NULL, 0, 0});
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "must be INT32");
}

/* TFLite's source coordinate along one axis: the two neighbours i0 <= i1 and the fraction
   f = src - i0 (out o of n outputs, in inputs). */
static float bl_axis(int o, int in, int n, int align, int half, int *i0, int *i1) {
    float s = (align && n > 1) ? (float)(in - 1) / (float)(n - 1) : (float)in / (float)n;
    float f = half ? ((float)o + 0.5f) * s - 0.5f : (float)o * s;
    int lo = (int)floorf(f) < 0 ? 0 : (int)floorf(f), hi = (int)ceilf(f) > in - 1 ? in - 1 : (int)ceilf(f);
    *i0 = lo;
    *i1 = hi < 0 ? 0 : hi;
    return f - (float)lo;
}

/* Bilinear straight from TFLite's formulas, per output element (no tables). */
static float naive_bilinear(const float *x, int H, int W, int C, int b, int y, int xo, int c, int oh, int ow, int align,
                            int half) {
    int y0, y1, x0, x1;
    float a = bl_axis(y, H, oh, align, half, &y0, &y1), e = bl_axis(xo, W, ow, align, half, &x0, &x1);
#define PX(yy, xx) x[(((int64_t)b * H + (yy)) * W + (xx)) * C + c]
    return PX(y0, x0) * (1 - a) * (1 - e) + PX(y1, x0) * a * (1 - e) + PX(y0, x1) * (1 - a) * e + PX(y1, x1) * a * e;
#undef PX
}

/* Bilinear in XNNPACK's order, per output element (no tables): the source coordinate
   o * scale, or with half pixel centers o * scale + (0.5 * scale - 0.5) clamped to
   [0, in - 1]; i0 = (int)src, i1 = min(i0 + 1, in - 1), a = src - i0; then
   top = v00 + (v01 - v00) * ax, bottom = v10 + (v11 - v10) * ax, top + (bottom - top) * ay,
   every step rounded to float. */
static float naive_bilinear_xnn(const float *x, int H, int W, int C, int b, int y, int xo, int c, int oh, int ow,
                                int align, int half) {
    const float sy = (align && oh > 1) ? (float)(H - 1) / (float)(oh - 1) : (float)H / (float)oh;
    const float sx = (align && ow > 1) ? (float)(W - 1) / (float)(ow - 1) : (float)W / (float)ow;
    float fy = (float)y * sy, fx = (float)xo * sx;
    if (half) {
        fy = fy + (0.5f * sy - 0.5f);
        fx = fx + (0.5f * sx - 0.5f);
        fy = fminf(fmaxf(fy, 0.0f), (float)(H - 1));
        fx = fminf(fmaxf(fx, 0.0f), (float)(W - 1));
    }
    const int y0 = (int)fy, x0 = (int)fx, y1 = y0 + 1 < H ? y0 + 1 : H - 1, x1 = x0 + 1 < W ? x0 + 1 : W - 1;
    const float ay = fy - (float)y0, ax = fx - (float)x0;
#define PX(yy, xx) x[(((int64_t)b * H + (yy)) * W + (xx)) * C + c]
    const float top = PX(y0, x0) + (PX(y0, x1) - PX(y0, x0)) * ax;
    const float bot = PX(y1, x0) + (PX(y1, x1) - PX(y1, x0)) * ax;
#undef PX
    return top + (bot - top) * ay;
}

/* LG_PREC_F16 bilinear as documented (a GPU's mix in half): TFLite's source coordinates, the
   weights t rounded to half, each mix a + h(b - a) * t rounded once; written per element here,
   from the formula, independently of the kernel's tables and vector rows. */
static float hh(float v) { return lg_half_to_float(lg_float_to_half(v)); }
static float naive_bilinear_f16(const float *x, int H, int W, int C, int b, int y, int xo, int c, int oh, int ow,
                                int align, int half) {
    int y0, y1, x0, x1;
    float ty = hh(bl_axis(y, H, oh, align, half, &y0, &y1)), tx = hh(bl_axis(xo, W, ow, align, half, &x0, &x1));
#define PX(yy, xx) hh(x[(((int64_t)b * H + (yy)) * W + (xx)) * C + c])
    float top = hh(PX(y0, x0) + hh(PX(y0, x1) - PX(y0, x0)) * tx);
    float bot = hh(PX(y1, x0) + hh(PX(y1, x1) - PX(y1, x0)) * tx);
#undef PX
    return hh(top + hh(bot - top) * ty);
}

typedef float (*bilinear_formula)(const float *x, int H, int W, int C, int b, int y, int xo, int c, int oh, int ow,
                                  int align, int half);
typedef struct bl_shape { int B, H, W, C, oh, ow; } bl_shape;
static const lg_resize_bilinear_options bl_modes[3] = {{false, false}, {false, true}, {true, false}};

/* RESIZE_BILINEAR in precision p on every shape and mode (no align/half, half pixel centers,
   align corners), input fill * scale, must equal `want` element by element, bit for bit.
   Returns how many elements differ from the contrasting formula `other` (rounded to half in
   LG_PREC_F16), counted in mode only_mode (or every mode when -1), so a caller can show the
   two formulas are told apart. */
static int bilinear_vs_formula(const bl_shape *sh, int nsh, const char *fill, float scale, lg_precision p,
                               bilinear_formula want_fn, bilinear_formula other, int only_mode, const char *what) {
    int differs = 0;
    for (int k = 0; k < nsh; k++)
        for (int md = 0; md < 3; md++) {
            const int B = sh[k].B, H = sh[k].H, W = sh[k].W, C = sh[k].C, oh = sh[k].oh, ow = sh[k].ow;
            const int al = bl_modes[md].align_corners, hp = bl_modes[md].half_pixel_centers;
            const int64_t nx = (int64_t)B * H * W * C, ny = (int64_t)B * oh * ow * C;
            float *x = malloc((size_t)nx * 4), *want = malloc((size_t)ny * 4);
            lg_error err;
            if (!x || !want) { free(x); free(want); CHECK(0); return differs; }
            lg_fill_f32(fill, x, nx, &err);
            for (int64_t i = 0; i < nx; i++) x[i] *= scale;
            for (int b = 0; b < B; b++)
                for (int y = 0; y < oh; y++)
                    for (int xo = 0; xo < ow; xo++)
                        for (int c = 0; c < C; c++) {
                            const int64_t i = (((int64_t)b * oh + y) * ow + xo) * C + c;
                            want[i] = want_fn(x, H, W, C, b, y, xo, c, oh, ow, al, hp);
                            if (only_mode < 0 || md == only_mode) {
                                float o = other(x, H, W, C, b, y, xo, c, oh, ow, al, hp);
                                differs += want[i] != (p == LG_PREC_F16 ? hh(o) : o);
                            }
                        }
            const int32_t xs[4] = {B, H, W, C};
            kt_op rc = resize_case(LG_OP_RESIZE_BILINEAR, &bl_modes[md], (lg_dims){xs, 4}, x, oh, ow);
            kt_model r;
            if (RUN_OK(&rc, p, &r)) {
                if (kt_out(&r, 0).numel != ny || memcmp(kt_f32(&r, 0), want, (size_t)ny * 4) != 0)
                    tf_fail(__FILE__, __LINE__, "shape %d mode %d: not %s", k, md, what);
                kt_free(&r);
            }
            free(x);
            free(want);
        }
    return differs;
}

LG_TEST(k_reduce_resize_bilinear_fp32_xnnpack_order) {
    /* fp32 arithmetic is XNNPACK's (LiteRT.js's): bit for bit the naive loop above, in the
       three modes, up- and downscaling, channel counts with and without a vector tail. The
       half-pixel sources differ from TFLite's (o + 0.5) * scale - 0.5 in rounding, so some
       outputs differ from the TFLite-order loop (checked, so the test tells them apart). */
    static const bl_shape sh[4] = {{1, 3, 5, 3, 7, 4}, {2, 4, 4, 11, 9, 6}, {1, 6, 7, 2, 3, 2}, {1, 12, 12, 16, 24, 24}};
    CHECK(bilinear_vs_formula(sh, 4, "random:11", 1.0f, LG_PREC_F32, naive_bilinear_xnn, naive_bilinear, 1,
                              "XNNPACK's bits") > 0);
}

static void bilinear_f16_pass(void) {
    /* channel counts below, at and past the vector width (8), with a vector tail (11, 20);
       values up to 300, where the halves' spacing matters. The half arithmetic is visible:
       it differs from fp32 rounded once at the end. */
    static const bl_shape sh[6] = {{1, 3, 5, 3, 7, 4},  {2, 4, 4, 11, 9, 6}, {1, 6, 7, 2, 3, 2},
                                   {1, 12, 12, 16, 24, 24}, {1, 5, 3, 8, 10, 6}, {1, 2, 9, 20, 5, 17}};
    CHECK(bilinear_vs_formula(sh, 6, "random:23", 300.0f, LG_PREC_F16, naive_bilinear_f16, naive_bilinear, -1,
                              "the documented half arithmetic") > 0);
}

LG_TEST(k_reduce_resize_bilinear_f16_bits) {
    bilinear_f16_pass();   /* the best vector code for this CPU (F16C) */
    lgk_simd_override(0);
    bilinear_f16_pass();   /* the portable 4-lane code with software rounding */
    lgk_simd_override(-1);
}

LG_TEST(k_reduce_resize_bilinear_corpus_models) {
    /* Every RESIZE_BILINEAR of the corpus models, replayed as a one-op model with the same
       input shape, size and options, against the naive formula; pose_landmark_lite uses
       half_pixel_centers = true. */
    static const char *models[3] = {"build/corpus/pose_landmark_lite.tflite", "build/corpus/selfie_segmentation.tflite",
                                    "build/corpus/face_detection_full_range_sparse.tflite"};
    for (int mi = 0; mi < 3; mi++) {
        lg_model *m = NULL;
        lg_error err;
        if (lg_tflite_read_file(models[mi], NULL, &m, &err) != LG_OK) {
            fprintf(stderr, "  note: %s not found (make corpus); skipped\n", models[mi]);
            continue;
        }
        const lg_subgraph *sg = &m->subgraphs[0];
        int n_resize = 0, n_half = 0;
        for (uint32_t i = 0; i < sg->n_ops; i++) {
            const lg_op *op = &sg->ops[i];
            if (lg_op_builtin(m, op) != LG_OP_RESIZE_BILINEAR) continue;
            n_resize++;
            const lg_tensor *tx = &sg->tensors[op->inputs[0]], *ts = &sg->tensors[op->inputs[1]],
                            *ty = &sg->tensors[op->outputs[0]];
            const lg_buffer *sb = lg_tensor_buffer(m, ts);
            CHECK(sb != NULL && sb->size == 8);
            CHECK(tx->rank == 4 && ty->rank == 4);
            if (!sb || sb->size != 8 || tx->rank != 4 || ty->rank != 4) continue;
            int32_t size[2];
            memcpy(size, sb->data, 8);
            lg_resize_bilinear_options o = {false, false};
            if (op->opts_kind == LG_OPTS_RESIZE_BILINEAR_OPTIONS && op->opts)
                o = *(const lg_resize_bilinear_options *)op->opts;
            n_half += o.half_pixel_centers;
            const int B = tx->shape[0], H = tx->shape[1], W = tx->shape[2], C = tx->shape[3];
            int64_t nx = (int64_t)B * H * W * C, ny = (int64_t)B * size[0] * size[1] * C;
            float *x = malloc((size_t)nx * 4), *want = malloc((size_t)ny * 4), *wx = malloc((size_t)ny * 4);
            if (!x || !want || !wx) { free(x); free(want); free(wx); continue; }
            lg_fill_f32("random:7", x, nx, &err);
            for (int b = 0; b < B; b++)
                for (int y = 0; y < size[0]; y++)
                    for (int xo = 0; xo < size[1]; xo++)
                        for (int c = 0; c < C; c++) {
                            const int64_t q = (((int64_t)b * size[0] + y) * size[1] + xo) * C + c;
                            want[q] = naive_bilinear(x, H, W, C, b, y, xo, c, size[0], size[1], o.align_corners,
                                                     o.half_pixel_centers);
                            wx[q] = naive_bilinear_xnn(x, H, W, C, b, y, xo, c, size[0], size[1], o.align_corners,
                                                       o.half_pixel_centers);
                        }
            kt_op rc = resize_case(LG_OP_RESIZE_BILINEAR, &o, (lg_dims){tx->shape, 4}, x, size[0], size[1]);
            kt_model r;
            if (RUN_OK(&rc, LG_PREC_F32, &r)) {
                CHECK_SHAPE_D(&r, 0, ((lg_dims){ty->shape, 4}));
                CHECK_F32(&r, 0, want, ny, 1e-6, LG_PREC_F32); /* TFLite's formula, to rounding */
                CHECK(kt_out(&r, 0).numel == ny && memcmp(kt_f32(&r, 0), wx, (size_t)ny * 4) == 0); /* XNNPACK's bits */
                kt_free(&r);
            }
            free(x);
            free(want);
            free(wx);
        }
        CHECK(n_resize > 0);
        if (mi == 0) CHECK(n_half > 0);
        lg_model_free(m);
    }
}

/* ------------------------------------------------------------------ RESIZE_NEAREST_NEIGHBOR */

/* Gather a 1-row image x[1,1,W,1] at the given source columns. */
static void nn_expect(const lg_resize_nearest_neighbor_options *o, int W, int ow, const int *src, int line) {
    float x[8], want[8];
    for (int i = 0; i < W; i++) x[i] = (float)(10 + i);
    for (int i = 0; i < ow; i++) want[i] = (float)(10 + src[i]);
    kt_op c = resize_case(LG_OP_RESIZE_NEAREST_NEIGHBOR, o, (lg_dims){(const int32_t[]){1, 1, W, 1}, 4}, x, 1, ow);
    for (int p = 0; p < 3; p++) kt_expect_f32(__FILE__, line, &c, all_prec[p], 1, want, ow, 0);
}

LG_TEST(k_reduce_resize_nearest_rounding_rules) {
    const lg_resize_nearest_neighbor_options def = {false, false}, half = {false, true}, al = {true, false},
                                             both = {true, true};
    /* 2 -> 4: default floor(o/2) = 0,0,1,1; half floor((o+.5)/2) = 0,0,1,1;
       align round(o/3) = 0,0,1,1; align+half round((o+.5)/3) = round(.17,.5,.83,1.17) = 0,1,1,1
       (0.5 rounds away from zero) */
    nn_expect(&def, 2, 4, (const int[]){0, 0, 1, 1}, __LINE__);
    nn_expect(&half, 2, 4, (const int[]){0, 0, 1, 1}, __LINE__);
    nn_expect(&al, 2, 4, (const int[]){0, 0, 1, 1}, __LINE__);
    nn_expect(&both, 2, 4, (const int[]){0, 1, 1, 1}, __LINE__);
    /* 2 -> 3: default floor(0, .67, 1.33) = 0,0,1; half floor(.33, 1, 1.67) = 0,1,1;
       align scale 1/2: round(0, .5, 1) = 0,1,1 */
    nn_expect(&def, 2, 3, (const int[]){0, 0, 1}, __LINE__);
    nn_expect(&half, 2, 3, (const int[]){0, 1, 1}, __LINE__);
    nn_expect(&al, 2, 3, (const int[]){0, 1, 1}, __LINE__);
    /* 3 -> 2: default scale 1.5, floor(0, 1.5) = 0,1; half floor(.75, 2.25) = 0,2;
       align scale 2, round(0, 2) = 0,2 */
    nn_expect(&def, 3, 2, (const int[]){0, 1}, __LINE__);
    nn_expect(&half, 3, 2, (const int[]){0, 2}, __LINE__);
    nn_expect(&al, 3, 2, (const int[]){0, 2}, __LINE__);
    /* 5 -> 1: default 0; half floor(0.5 * 5) = 2 (the centre); align with out 1 uses 5/1: 0 */
    nn_expect(&def, 5, 1, (const int[]){0}, __LINE__);
    nn_expect(&half, 5, 1, (const int[]){2}, __LINE__);
    nn_expect(&al, 5, 1, (const int[]){0}, __LINE__);
}

LG_TEST(k_reduce_resize_nearest_2d_channels_int8_and_empty) {
    /* x[1,2,2,2] -> 4x4 default: each pixel becomes a 2x2 block, both channels */
    const float x[8] = {1, -1, 2, -2, 3, -3, 4, -4};
    float want[32];
    for (int y = 0; y < 4; y++)
        for (int xo = 0; xo < 4; xo++) {
            int p = (y / 2) * 2 + xo / 2;
            want[(y * 4 + xo) * 2 + 0] = x[p * 2];
            want[(y * 4 + xo) * 2 + 1] = x[p * 2 + 1];
        }
    const lg_resize_nearest_neighbor_options def = {false, false};
    kt_op c = resize_case(LG_OP_RESIZE_NEAREST_NEIGHBOR, &def, LG_DIMS(1, 2, 2, 2), x, 4, 4);
    EXPECT_ALL(&c, want, 32, 0, 0);
    /* INT8 values are copied as they are */
    const int8_t q[4] = {-128, 5, 6, 127};
    kt_op ci = resize_case(LG_OP_RESIZE_NEAREST_NEIGHBOR, &def, LG_DIMS(1, 2, 2, 1), NULL, 1, 4);
    ci.in[0].type = LG_INT8;
    ci.in[0].data = q;
    ci.out[0].type = LG_INT8;
    kt_model r;
    if (RUN_OK(&ci, LG_PREC_F16, &r)) {
        CHECK_I64(&r, 0, LG_INT8, ((const int64_t[]){-128, -128, 5, 5}), 4);
        kt_free(&r);
    }
    /* an empty output size is allowed for nearest (TFLite does not check it) */
    kt_op e = resize_case(LG_OP_RESIZE_NEAREST_NEIGHBOR, &def, LG_DIMS(1, 2, 2, 2), x, 0, 3);
    if (RUN_OK(&e, LG_PREC_F32, &r)) {
        CHECK_EQ_INT(kt_out(&r, 0).numel, 0);
        CHECK_SHAPE(&r, 0, 1, 0, 3, 2);
        kt_free(&r);
    }
}
