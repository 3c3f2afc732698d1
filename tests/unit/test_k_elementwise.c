/* Kernel tests, elementwise family (src/run/k_elementwise*.c). Every case builds a one-op
   model with the builder and runs it through the public interpreter API. Goldens are worked
   out by hand (in the comments) or computed by a naive loop in this file that indexes the
   broadcast inputs per dimension, independently of the kernel's merged-dimension plan. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "lg/run.h"
#include "kt.h"
#include "run/simd.h"
#include "tf.h"
#include "util/half.h"

/* ------------------------------------------------------------------ the one-op rig (kt.h) */

/* Run a test body on every vector level this CPU has (simd.h: portable, AVX2, AVX-512F): the
   float unary ops are compiled for each and must give the same bits on all of them. */
static void at_every_level(void (*fn)(void)) {
    lgk_simd_override(-1);
    int best = lgk_simd_level();
    for (int l = best; l >= LGK_SIMD_PORTABLE; l--) {
        lgk_simd_override(l);
        fn();
    }
    lgk_simd_override(-1);
}

static int g_threads = 1; /* worker threads for the runs (lg_run_options.threads) */

#define RUN_OK(c, prec, r) kt_run_ok(__FILE__, __LINE__, (c), (prec), g_threads, (r))
#define EXPECT_F32(c, prec, want, tol) \
    kt_expect_f32(__FILE__, __LINE__, (c), (prec), g_threads, (want), (int64_t)(sizeof(want) / sizeof((want)[0])), (tol))
#define EXPECT_INT(c, prec, type, want) \
    kt_expect_ints(__FILE__, __LINE__, (c), (prec), g_threads, (type), (want), (int64_t)(sizeof(want) / sizeof((want)[0])))
#define EXPECT_FAIL(c, st, substr) kt_expect_fail(__FILE__, __LINE__, (c), LG_PREC_F32, (st), (substr))
#define CHECK_OUT_SHAPE(r, dims) \
    do { lg_tensor_view v_ = kt_out((r), 0); kt_check_view_shape(__FILE__, __LINE__, NULL, &v_, (dims)); } while (0)
#define CHECK_OUT_F32(r, want, n, tol) \
    do { lg_tensor_view v_ = kt_out((r), 0); kt_check_view_f32(__FILE__, __LINE__, NULL, &v_, (want), (n), (tol), KT_ABS); } while (0)

#define IN_F(shape_, data_) KT_IN(LG_FLOAT32, shape_, data_)
#define CONST_F(shape_, data_) KT_CONST(LG_FLOAT32, shape_, data_)
#define IN_T(type_, shape_, data_) KT_IN(type_, shape_, data_)
#define CONST_T(type_, shape_, data_) KT_CONST(type_, shape_, data_)

static kt_op bin(int32_t code, kt_tensor a, kt_tensor b, lg_dtype ot, lg_dims oshape) {
    kt_op c;
    memset(&c, 0, sizeof c);
    c.code = code;
    c.n_in = 2;
    c.in[0] = a;
    c.in[1] = b;
    c.n_out = 1;
    c.out[0].type = ot;
    c.out[0].shape = oshape;
    return c;
}

static kt_op un(int32_t code, kt_tensor a, lg_dtype ot, lg_dims oshape) {
    kt_op c;
    memset(&c, 0, sizeof c);
    c.code = code;
    c.n_in = 1;
    c.in[0] = a;
    c.n_out = 1;
    c.out[0].type = ot;
    c.out[0].shape = oshape;
    return c;
}

static const lg_precision all_prec[3] = {LG_PREC_F32, LG_PREC_F16, LG_PREC_F32_F16};

/* ------------------------------------------------------------------ naive broadcasting */

/* Index of input (shape s, rank r) for output multi-index idx of rank orank: numpy rules,
   written per dimension (unrelated to the kernel's merged plan). */
static int64_t bidx(const int32_t *s, uint32_t r, const int64_t *idx, uint32_t orank) {
    int64_t off = 0;
    for (uint32_t d = 0; d < r; d++) {
        uint32_t od = orank - r + d;
        int64_t i = s[d] == 1 ? 0 : idx[od];
        off = off * s[d] + i;
    }
    return off;
}

static void unflatten(int64_t flat, const int32_t *shape, uint32_t rank, int64_t *idx) {
    for (int d = (int)rank - 1; d >= 0; d--) {
        idx[d] = flat % shape[d];
        flat /= shape[d];
    }
}

static float pat(int64_t i, int salt) { return (float)((i * 7 + salt * 13) % 23) - 11.0f + 0.25f * (float)salt; }

/* ------------------------------------------------------------------ ADD / SUB / MUL / DIV */

LG_TEST(k_elementwise_add_same_shape) {
    const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {10, 20, 30, 40, 50, 60};
    kt_op c = bin(LG_OP_ADD, IN_F(LG_DIMS(2, 3), a), IN_F(LG_DIMS(2, 3), b), LG_FLOAT32, LG_DIMS(2, 3));
    const float want[6] = {11, 22, 33, 44, 55, 66};
    for (int p = 0; p < 3; p++) EXPECT_F32(&c, all_prec[p], want, 0);
    /* a constant operand takes the same path */
    c.in[1].is_const = 1;
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
}

LG_TEST(k_elementwise_add_long_vector_blocks_and_tail) {
    /* 21 elements: two blocks of 8 and a tail of 5 */
    float a[21], b[21], want[21];
    for (int i = 0; i < 21; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
        want[i] = 1.5f * (float)i;
    }
    kt_op c = bin(LG_OP_ADD, IN_F(LG_DIMS(21), a), IN_F(LG_DIMS(21), b), LG_FLOAT32, LG_DIMS(21));
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
}

LG_TEST(k_elementwise_sub_scalar_operand_either_side) {
    const float x[5] = {1, 2, 3, 4, 5}, s[1] = {10};
    /* x - 10 (second operand scalar, rank 0) */
    kt_op c = bin(LG_OP_SUB, IN_F(LG_DIMS(5), x), CONST_F(LG_SCALAR, s), LG_FLOAT32, LG_DIMS(5));
    const float w1[5] = {-9, -8, -7, -6, -5};
    EXPECT_F32(&c, LG_PREC_F32, w1, 0);
    /* 10 - x (first operand scalar, shape [1]) */
    c = bin(LG_OP_SUB, CONST_F(LG_DIMS(1), s), IN_F(LG_DIMS(5), x), LG_FLOAT32, LG_DIMS(5));
    const float w2[5] = {9, 8, 7, 6, 5};
    EXPECT_F32(&c, LG_PREC_F32, w2, 0);
}

LG_TEST(k_elementwise_mul_broadcast_row_and_column) {
    /* [2,3] * [3]: every row times (1, 10, 100) */
    const float a[6] = {1, 2, 3, 4, 5, 6}, r3[3] = {1, 10, 100};
    kt_op c = bin(LG_OP_MUL, IN_F(LG_DIMS(2, 3), a), CONST_F(LG_DIMS(3), r3), LG_FLOAT32, LG_DIMS(2, 3));
    const float w1[6] = {1, 20, 300, 4, 50, 600};
    EXPECT_F32(&c, LG_PREC_F32, w1, 0);
    /* [2,3] * [2,1]: row i times (2, 3) -- a scalar per row */
    const float col[2] = {2, 3};
    c = bin(LG_OP_MUL, IN_F(LG_DIMS(2, 3), a), CONST_F(LG_DIMS(2, 1), col), LG_FLOAT32, LG_DIMS(2, 3));
    const float w2[6] = {2, 4, 6, 12, 15, 18};
    EXPECT_F32(&c, LG_PREC_F32, w2, 0);
    /* [2,1] * [2,3]: the same with the scalar-per-row operand first */
    c = bin(LG_OP_MUL, CONST_F(LG_DIMS(2, 1), col), IN_F(LG_DIMS(2, 3), a), LG_FLOAT32, LG_DIMS(2, 3));
    EXPECT_F32(&c, LG_PREC_F32, w2, 0);
    /* [2,1] + [1,3]: an outer sum */
    const float r[3] = {10, 20, 30};
    c = bin(LG_OP_ADD, IN_F(LG_DIMS(2, 1), col), IN_F(LG_DIMS(1, 3), r), LG_FLOAT32, LG_DIMS(2, 3));
    const float w3[6] = {12, 22, 32, 13, 23, 33};
    EXPECT_F32(&c, LG_PREC_F32, w3, 0);
}

/* Compare a float binary op against the naive per-dimension loop for one pair of shapes. */
static void naive_case(int32_t code, const int32_t *sa, uint32_t ra, const int32_t *sb, uint32_t rb,
                       const int32_t *so, uint32_t ro, int line) {
    int64_t na = 1, nb = 1, no = 1;
    for (uint32_t d = 0; d < ra; d++) na *= sa[d];
    for (uint32_t d = 0; d < rb; d++) nb *= sb[d];
    for (uint32_t d = 0; d < ro; d++) no *= so[d];
    float *a = malloc((size_t)na * 4), *b = malloc((size_t)nb * 4), *want = malloc((size_t)(no ? no : 1) * 4);
    for (int64_t i = 0; i < na; i++) a[i] = pat(i, 1);
    for (int64_t i = 0; i < nb; i++) b[i] = pat(i, 2) + (code == LG_OP_DIV && pat(i, 2) == 0 ? 0.5f : 0.0f);
    for (int64_t f = 0; f < no; f++) {
        int64_t idx[LG_MAX_RANK];
        unflatten(f, so, ro, idx);
        float x = a[bidx(sa, ra, idx, ro)], y = b[bidx(sb, rb, idx, ro)];
        want[f] = code == LG_OP_ADD ? x + y : code == LG_OP_SUB ? x - y : code == LG_OP_MUL ? x * y : x / y;
    }
    kt_op c = bin(code, IN_F(((lg_dims){sa, ra}), a), IN_F(((lg_dims){sb, rb}), b), LG_FLOAT32, ((lg_dims){so, ro}));
    kt_expect_f32(__FILE__, line, &c, LG_PREC_F32, g_threads, want, no, 0);
    free(a);
    free(b);
    free(want);
}

LG_TEST(k_elementwise_broadcast_nd_against_naive_loop) {
    struct { int32_t a[4]; uint32_t ra; int32_t b[4]; uint32_t rb; int32_t o[4]; uint32_t ro; } cases[] = {
        {{2, 1, 3}, 3, {1, 4, 1}, 3, {2, 4, 3}, 3},          /* both broadcast, interleaved */
        {{2, 3, 4, 5}, 4, {3, 1, 5}, 3, {2, 3, 4, 5}, 4},    /* rank mismatch, middle 1 */
        {{2, 3, 4}, 3, {3, 4}, 2, {2, 3, 4}, 3},             /* rows of 12, b repeats */
        {{5}, 1, {2, 3, 4, 5}, 4, {2, 3, 4, 5}, 4},          /* a vector per row, first operand */
        {{1, 3, 1, 5}, 4, {2, 1, 4, 1}, 4, {2, 3, 4, 5}, 4}, /* alternating */
        {{4, 1}, 2, {1}, 1, {4, 1}, 2},                      /* trailing 1 kept */
        {{1, 1, 9}, 3, {1, 1, 1}, 3, {1, 1, 9}, 3},          /* all-ones shape is a scalar */
        {{3, 17}, 2, {3, 1}, 2, {3, 17}, 2},                 /* rows of 17: block + tail */
    };
    const int32_t codes[4] = {LG_OP_ADD, LG_OP_SUB, LG_OP_MUL, LG_OP_DIV};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int op = 0; op < 4; op++) {
            naive_case(codes[op], cases[k].a, cases[k].ra, cases[k].b, cases[k].rb, cases[k].o, cases[k].ro, __LINE__);
            naive_case(codes[op], cases[k].b, cases[k].rb, cases[k].a, cases[k].ra, cases[k].o, cases[k].ro, __LINE__);
        }
}

LG_TEST(k_elementwise_threads_split_rows_and_elements) {
    /* 3 threads: large ops are split across workers; the result is the naive loop's, bit for
       bit (a [3,50,40,37] x [50,1,37] broadcast splits by rows, same-shape and unary by
       elements) */
    const int32_t sa[4] = {3, 50, 40, 37}, sb[3] = {50, 1, 37};
    const int64_t na = 3 * 50 * 40 * 37, nb = 50 * 37;
    float *a = malloc((size_t)na * 4), *b = malloc((size_t)nb * 4), *want = malloc((size_t)na * 4);
    float *want2 = malloc((size_t)na * 4), *want3 = malloc((size_t)na * 4);
    for (int64_t i = 0; i < na; i++) a[i] = pat(i, 3) * 0.125f;
    for (int64_t i = 0; i < nb; i++) b[i] = pat(i, 4);
    for (int64_t f = 0; f < na; f++) {
        int64_t idx[4];
        unflatten(f, sa, 4, idx);
        want[f] = a[f] * b[bidx(sb, 3, idx, 4)];
        want2[f] = a[f] + a[f];
        want3[f] = a[f] < 0 ? 0 : a[f];
    }
    g_threads = 3;
    kt_op c = bin(LG_OP_MUL, IN_F(((lg_dims){sa, 4}), a), IN_F(((lg_dims){sb, 3}), b), LG_FLOAT32, ((lg_dims){sa, 4}));
    kt_expect_f32(__FILE__, __LINE__, &c, LG_PREC_F32, g_threads, want, na, 0);
    c = bin(LG_OP_ADD, IN_F(((lg_dims){sa, 4}), a), IN_F(((lg_dims){sa, 4}), a), LG_FLOAT32, ((lg_dims){sa, 4}));
    kt_expect_f32(__FILE__, __LINE__, &c, LG_PREC_F32, g_threads, want2, na, 0);
    c = un(LG_OP_RELU, IN_F(((lg_dims){sa, 4}), a), LG_FLOAT32, ((lg_dims){sa, 4}));
    kt_expect_f32(__FILE__, __LINE__, &c, LG_PREC_F32, g_threads, want3, na, 0);
    /* LOGISTIC: 3 threads give the single-thread bits */
    c = un(LG_OP_LOGISTIC, IN_F(((lg_dims){sa, 4}), a), LG_FLOAT32, ((lg_dims){sa, 4}));
    kt_model r3, r1;
    if (RUN_OK(&c, LG_PREC_F32, &r3)) {
        g_threads = 1;
        if (RUN_OK(&c, LG_PREC_F32, &r1)) {
            CHECK(memcmp(kt_f32(&r1, 0), kt_f32(&r3, 0), (size_t)na * 4) == 0);
            kt_free(&r1);
        }
        kt_free(&r3);
    }
    g_threads = 1;
    free(a);
    free(b);
    free(want);
    free(want2);
    free(want3);
}

LG_TEST(k_elementwise_add_fused_activations) {
    const float a[5] = {-3, -0.5f, 0.5f, 4, 7}, b[5] = {0, 0, 0, 0, 0};
    lg_add_options o = {0};
    kt_op c = bin(LG_OP_ADD, IN_F(LG_DIMS(5), a), IN_F(LG_DIMS(5), b), LG_FLOAT32, LG_DIMS(5));
    c.kind = LG_OPTS_ADD_OPTIONS;
    c.opts = &o;
    o.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU;
    const float relu[5] = {0, 0, 0.5f, 4, 7};
    EXPECT_F32(&c, LG_PREC_F32, relu, 0);
    o.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU6;
    const float relu6[5] = {0, 0, 0.5f, 4, 6};
    EXPECT_F32(&c, LG_PREC_F32, relu6, 0);
    o.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1;
    const float relu1[5] = {-1, -0.5f, 0.5f, 1, 1};
    EXPECT_F32(&c, LG_PREC_F32, relu1, 0);
    /* TFLite's CPU kernel ignores TANH here while GPU delegates apply it: refused */
    o.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_TANH;
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "TANH");
    o.fused_activation_function = 9;
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "unknown fused activation");
}

LG_TEST(k_elementwise_sub_mul_div_fused_relu) {
    const float a[3] = {1, -2, 3}, b[3] = {2, 2, 2};
    lg_sub_options so = {LG_ACTIVATION_FUNCTION_TYPE_RELU, false};
    kt_op c = bin(LG_OP_SUB, IN_F(LG_DIMS(3), a), IN_F(LG_DIMS(3), b), LG_FLOAT32, LG_DIMS(3));
    c.kind = LG_OPTS_SUB_OPTIONS;
    c.opts = &so;
    const float w1[3] = {0, 0, 1};
    EXPECT_F32(&c, LG_PREC_F32, w1, 0);
    lg_mul_options mo = {LG_ACTIVATION_FUNCTION_TYPE_RELU6};
    c.code = LG_OP_MUL;
    c.kind = LG_OPTS_MUL_OPTIONS;
    c.opts = &mo;
    const float w2[3] = {2, 0, 6};
    EXPECT_F32(&c, LG_PREC_F32, w2, 0);
    lg_div_options dvo = {LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1};
    c.code = LG_OP_DIV;
    c.kind = LG_OPTS_DIV_OPTIONS;
    c.opts = &dvo;
    const float w3[3] = {0.5f, -1, 1};
    EXPECT_F32(&c, LG_PREC_F32, w3, 0);
    /* options of the wrong kind are a malformed model */
    lg_add_options ao = {LG_ACTIVATION_FUNCTION_TYPE_NONE, false};
    c.kind = LG_OPTS_ADD_OPTIONS;
    c.opts = &ao;
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "AddOptions");
}

LG_TEST(k_elementwise_add_overflow_stays_inf) {
    /* NONE clamps nothing (XNNPACK and the GPU keep inf; TFLite's builtin kernel would clamp to
       FLT_MAX). In f16 storage 60000 + 10000 = 70000 is past 65504: inf. */
    const float a[2] = {3e38f, 60000}, b[2] = {3e38f, 10000};
    kt_op c = bin(LG_OP_ADD, IN_F(LG_DIMS(2), a), IN_F(LG_DIMS(2), b), LG_FLOAT32, LG_DIMS(2));
    const float w32[2] = {INFINITY, 70000};
    EXPECT_F32(&c, LG_PREC_F32, w32, 0);
    const float w16[2] = {INFINITY, INFINITY};
    EXPECT_F32(&c, LG_PREC_F16, w16, 0);
    EXPECT_F32(&c, LG_PREC_F32_F16, w16, 0);
}

LG_TEST(k_elementwise_div_float_by_zero) {
    const float a[4] = {1, -1, 0, 6}, b[4] = {0, 0, 0, 4};
    kt_op c = bin(LG_OP_DIV, IN_F(LG_DIMS(4), a), IN_F(LG_DIMS(4), b), LG_FLOAT32, LG_DIMS(4));
    const float want[4] = {INFINITY, -INFINITY, NAN, 1.5f};
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
}

LG_TEST(k_elementwise_f16_output_rounding) {
    /* 1/3 = 0.3333333 in f32; stored as a half: 0x3555 = 0.333251953125 */
    const float a[1] = {1}, b[1] = {3};
    kt_op c = bin(LG_OP_DIV, IN_F(LG_DIMS(1), a), IN_F(LG_DIMS(1), b), LG_FLOAT32, LG_DIMS(1));
    const float w32[1] = {1.0f / 3.0f}, w16[1] = {0.333251953125f};
    EXPECT_F32(&c, LG_PREC_F32, w32, 0);
    EXPECT_F32(&c, LG_PREC_F16, w16, 0);
    EXPECT_F32(&c, LG_PREC_F32_F16, w16, 0);
}

LG_TEST(k_elementwise_add_empty_and_one_element) {
    const float b3[3] = {1, 2, 3};
    kt_op c = bin(LG_OP_ADD, IN_F(LG_DIMS(0, 3), NULL), CONST_F(LG_DIMS(3), b3), LG_FLOAT32, LG_DIMS(0, 3));
    kt_model r;
    if (RUN_OK(&c, LG_PREC_F32, &r)) {
        CHECK_EQ_INT(kt_out(&r, 0).numel, 0);
        CHECK_OUT_SHAPE(&r, LG_DIMS(0, 3));
        kt_free(&r);
    }
    /* [0] broadcasts with [1] but not with [3] */
    c = bin(LG_OP_ADD, IN_F(LG_DIMS(0), NULL), CONST_F(LG_DIMS(3), b3), LG_FLOAT32, LG_DIMS(0));
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "do not broadcast");
    const float x[1] = {2.5f}, y[1] = {-1};
    c = bin(LG_OP_MUL, IN_F(LG_DIMS(1), x), IN_F(LG_DIMS(1), y), LG_FLOAT32, LG_DIMS(1));
    const float w[1] = {-2.5f};
    EXPECT_F32(&c, LG_PREC_F32, w, 0);
    c = bin(LG_OP_MUL, IN_F(LG_SCALAR, x), IN_F(LG_SCALAR, y), LG_FLOAT32, LG_SCALAR);
    EXPECT_F32(&c, LG_PREC_F32, w, 0);
}

LG_TEST(k_elementwise_binary_bad_models) {
    const float a[6] = {0};
    const int32_t i[6] = {0};
    kt_op c = bin(LG_OP_ADD, IN_F(LG_DIMS(2, 3), a), IN_F(LG_DIMS(3, 2), a), LG_FLOAT32, LG_DIMS(2, 3));
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "do not broadcast");
    c = bin(LG_OP_ADD, IN_F(LG_DIMS(6), a), IN_T(LG_INT32, LG_DIMS(6), i), LG_FLOAT32, LG_DIMS(6));
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "input types differ");
    c = bin(LG_OP_ADD, IN_F(LG_DIMS(6), a), IN_F(LG_DIMS(6), a), LG_INT32, LG_DIMS(6));
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "is stored as INT32 but the op gives FLOAT32");
    /* computed shape [2,3] but the model declares [6] */
    c = bin(LG_OP_ADD, IN_F(LG_DIMS(2, 3), a), IN_F(LG_DIMS(3), a), LG_FLOAT32, LG_DIMS(6));
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "is stored as [6] but its inputs give [2,3]");
    c = un(LG_OP_ADD, IN_F(LG_DIMS(6), a), LG_FLOAT32, LG_DIMS(6));
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "1 inputs, it takes 2");
    /* FLOAT64 tensors are not held exactly: refused */
    c = bin(LG_OP_ADD, IN_T(LG_FLOAT64, LG_DIMS(1), NULL), IN_T(LG_FLOAT64, LG_DIMS(1), NULL), LG_FLOAT64, LG_DIMS(1));
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "FLOAT64");
}

LG_TEST(k_elementwise_add_output_is_an_input) {
    /* a hand-made graph whose ADD writes into its own input */
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    if (!m) return;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(2));
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(2));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(x, y), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x, y), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    lg_interp *it = NULL;
    lg_status st = lg_interp_create(m, NULL, &it, &err);
    CHECK_EQ_INT(st, LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "both input") != NULL);
    lg_interp_free(it);
    lg_model_free(m);
}

/* int8 ADD runs the integer kernel (k_quant_ew.c): 0.5 + 0.5 and 1 + 1 at scale 0.5 */
LG_TEST(k_elementwise_add_quantized_runs_integer_kernel) {
    const int8_t q[2] = {1, 2};
    const float sc[1] = {0.5f};
    const int64_t zp[1] = {0};
    kt_op c = bin(LG_OP_ADD, (kt_tensor){LG_INT8, LG_DIMS(2), q, 0, sc, zp, 1, 0}, (kt_tensor){LG_INT8, LG_DIMS(2), q, 0, sc, zp, 1, 0},
                    LG_INT8, LG_DIMS(2));
    c.out[0].scale = sc;
    c.out[0].zp = zp;
    c.out[0].nq = 1;
    const int64_t want[2] = {2, 4};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT8, want);
}

/* ------------------------------------------------------------------ integer arithmetic */

LG_TEST(k_elementwise_add_sub_mul_int32_wrap_and_relu) {
    const int32_t a[4] = {INT32_MAX, -5, 7, INT32_MIN}, b[4] = {1, 3, -9, -1};
    kt_op c = bin(LG_OP_ADD, IN_T(LG_INT32, LG_DIMS(4), a), IN_T(LG_INT32, LG_DIMS(4), b), LG_INT32, LG_DIMS(4));
    const int64_t add[4] = {INT32_MIN, -2, -2, INT32_MAX}; /* two's complement wrap */
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, add);
    /* precision modes never touch integers */
    EXPECT_INT(&c, LG_PREC_F16, LG_INT32, add);
    c.code = LG_OP_SUB;
    const int64_t sub[4] = {INT32_MAX - 1, -8, 16, INT32_MIN + 1};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, sub);
    c.code = LG_OP_MUL;
    const int64_t mul[4] = {INT32_MAX, -15, -63, INT32_MIN}; /* INT32_MIN * -1 wraps to itself */
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, mul);
    /* RELU6 on integers: CalculateActivationRange<int32> gives [0, 6] */
    lg_mul_options mo = {LG_ACTIVATION_FUNCTION_TYPE_RELU6};
    c.kind = LG_OPTS_MUL_OPTIONS;
    c.opts = &mo;
    const int64_t mul6[4] = {6, 0, 0, 0};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, mul6);
}

LG_TEST(k_elementwise_add_mul_int64_broadcast) {
    const int64_t a[3] = {(int64_t)1 << 40, -7, 3}, s[1] = {1000000};
    kt_op c = bin(LG_OP_MUL, IN_T(LG_INT64, LG_DIMS(3), a), CONST_T(LG_INT64, LG_SCALAR, s), LG_INT64, LG_DIMS(3));
    const int64_t mul[3] = {((int64_t)1 << 40) * 1000000, -7000000, 3000000};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT64, mul);
    c.code = LG_OP_ADD;
    const int64_t add[3] = {((int64_t)1 << 40) + 1000000, 999993, 1000003};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT64, add);
    lg_sub_options so = {LG_ACTIVATION_FUNCTION_TYPE_RELU, false};
    c.code = LG_OP_SUB;
    c.kind = LG_OPTS_SUB_OPTIONS;
    c.opts = &so;
    /* SUB with RELU: max(0, x - 1000000) */
    const int64_t sub[3] = {((int64_t)1 << 40) - 1000000, 0, 0};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT64, sub);
}

LG_TEST(k_elementwise_div_int32_truncates_and_rejects_zero) {
    const int32_t a[5] = {7, -7, 7, -7, INT32_MIN}, b[5] = {2, 2, -2, -2, -1};
    kt_op c = bin(LG_OP_DIV, IN_T(LG_INT32, LG_DIMS(5), a), IN_T(LG_INT32, LG_DIMS(5), b), LG_INT32, LG_DIMS(5));
    const int64_t want[5] = {3, -3, -3, 3, INT32_MIN};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, want);
    const int32_t z[5] = {1, 1, 0, 1, 1};
    c.in[1].data = z;
    kt_model r;
    kt_run_op(&c, LG_PREC_F32, g_threads, &r);
    CHECK_EQ_INT(r.st, LG_ERR_INVALID_ARG);
    CHECK(strstr(r.err.msg, "division by 0") != NULL);
    kt_free(&r);
    c = bin(LG_OP_DIV, IN_T(LG_INT64, LG_DIMS(5), NULL), IN_T(LG_INT64, LG_DIMS(5), NULL), LG_INT64, LG_DIMS(5));
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "supported: FLOAT32, FLOAT16, INT32");
}

/* ------------------------------------------------------------------ MAXIMUM / MINIMUM / POW / ... */

LG_TEST(k_elementwise_maximum_minimum_float_nan_and_broadcast) {
    /* TFLite: a > b ? a : b. A NaN first operand loses, a NaN second operand wins. */
    const float a[4] = {NAN, 1, -0.0f, 3}, b[4] = {1, NAN, 0.0f, 2};
    kt_op c = bin(LG_OP_MAXIMUM, IN_F(LG_DIMS(4), a), IN_F(LG_DIMS(4), b), LG_FLOAT32, LG_DIMS(4));
    const float mx[4] = {1, NAN, 0, 3};
    EXPECT_F32(&c, LG_PREC_F32, mx, 0);
    c.code = LG_OP_MINIMUM;
    const float mn[4] = {1, NAN, 0, 2};
    EXPECT_F32(&c, LG_PREC_F32, mn, 0);
    /* broadcast against a scalar: a clamp at 0 */
    const float x[5] = {-2, -1, 0, 1, 2}, zero[1] = {0};
    c = bin(LG_OP_MAXIMUM, IN_F(LG_DIMS(5), x), CONST_F(LG_SCALAR, zero), LG_FLOAT32, LG_DIMS(5));
    const float relu[5] = {0, 0, 0, 1, 2};
    EXPECT_F32(&c, LG_PREC_F32, relu, 0);
}

LG_TEST(k_elementwise_maximum_minimum_integers) {
    const int8_t a[3] = {-128, 5, 127}, b[3] = {-1, 5, -128};
    kt_op c = bin(LG_OP_MAXIMUM, IN_T(LG_INT8, LG_DIMS(3), a), IN_T(LG_INT8, LG_DIMS(3), b), LG_INT8, LG_DIMS(3));
    const int64_t mx[3] = {-1, 5, 127};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT8, mx);
    const uint8_t ua[3] = {0, 200, 255}, ub[3] = {1, 100, 254};
    c = bin(LG_OP_MINIMUM, IN_T(LG_UINT8, LG_DIMS(3), ua), IN_T(LG_UINT8, LG_DIMS(3), ub), LG_UINT8, LG_DIMS(3));
    const int64_t mn[3] = {0, 100, 254};
    EXPECT_INT(&c, LG_PREC_F32, LG_UINT8, mn);
    const int64_t la[2] = {INT64_MIN, 5}, lb[1] = {0};
    c = bin(LG_OP_MAXIMUM, IN_T(LG_INT64, LG_DIMS(2), la), CONST_T(LG_INT64, LG_DIMS(1), lb), LG_INT64, LG_DIMS(2));
    const int64_t lmx[2] = {0, 5};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT64, lmx);
    const int32_t ia[2] = {-3, 9}, ib[2] = {2, 2};
    c = bin(LG_OP_MINIMUM, IN_T(LG_INT32, LG_DIMS(2), ia), IN_T(LG_INT32, LG_DIMS(2), ib), LG_INT32, LG_DIMS(2));
    const int64_t imn[2] = {-3, 2};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, imn);
}

LG_TEST(k_elementwise_pow_float_and_int32) {
    const float a[4] = {2, 4, -8, 0}, b[4] = {3, 0.5f, 1.0f / 3.0f, 0};
    kt_op c = bin(LG_OP_POW, IN_F(LG_DIMS(4), a), IN_F(LG_DIMS(4), b), LG_FLOAT32, LG_DIMS(4));
    /* powf: a negative base with a non-integer exponent is NaN; 0^0 = 1 */
    const float want[4] = {8, 2, NAN, 1};
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
    const int32_t ia[3] = {3, -2, 7}, ib[3] = {4, 3, 0};
    c = bin(LG_OP_POW, IN_T(LG_INT32, LG_DIMS(3), ia), IN_T(LG_INT32, LG_DIMS(3), ib), LG_INT32, LG_DIMS(3));
    const int64_t iw[3] = {81, -8, 1};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, iw);
    const int32_t neg[3] = {1, -1, 1};
    c.in[1].data = neg;
    kt_model r;
    kt_run_op(&c, LG_PREC_F32, g_threads, &r);
    CHECK_EQ_INT(r.st, LG_ERR_INVALID_ARG);
    CHECK(strstr(r.err.msg, "negative exponent") != NULL);
    kt_free(&r);
}

LG_TEST(k_elementwise_squared_difference) {
    const float a[3] = {1, -2, 10}, b[1] = {3};
    kt_op c = bin(LG_OP_SQUARED_DIFFERENCE, IN_F(LG_DIMS(3), a), CONST_F(LG_DIMS(1), b), LG_FLOAT32, LG_DIMS(3));
    const float want[3] = {4, 25, 49};
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
    const int32_t ia[2] = {-4, 100}, ib[2] = {4, 1};
    c = bin(LG_OP_SQUARED_DIFFERENCE, IN_T(LG_INT32, LG_DIMS(2), ia), IN_T(LG_INT32, LG_DIMS(2), ib), LG_INT32,
            LG_DIMS(2));
    const int64_t iw[2] = {64, 9801};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, iw);
    /* f16: (300 - 0)^2 = 90000 does not fit a half */
    const float big[1] = {300}, zero[1] = {0};
    c = bin(LG_OP_SQUARED_DIFFERENCE, IN_F(LG_DIMS(1), big), IN_F(LG_DIMS(1), zero), LG_FLOAT32, LG_DIMS(1));
    const float w32[1] = {90000}, w16[1] = {INFINITY};
    EXPECT_F32(&c, LG_PREC_F32, w32, 0);
    EXPECT_F32(&c, LG_PREC_F16, w16, 0);
}

LG_TEST(k_elementwise_floor_div_float_int) {
    const float a[5] = {7, -7, 7, -7, 0.5f}, b[5] = {2, 2, -2, -2, 0.25f};
    kt_op c = bin(LG_OP_FLOOR_DIV, IN_F(LG_DIMS(5), a), IN_F(LG_DIMS(5), b), LG_FLOAT32, LG_DIMS(5));
    const float want[5] = {3, -4, -4, 3, 2};
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
    const int32_t ia[6] = {7, -7, 7, -7, 6, INT32_MIN}, ib[6] = {2, 2, -2, -2, 3, -1};
    c = bin(LG_OP_FLOOR_DIV, IN_T(LG_INT32, LG_DIMS(6), ia), IN_T(LG_INT32, LG_DIMS(6), ib), LG_INT32, LG_DIMS(6));
    /* INT32_MIN / -1 = 2^31: the double->int conversion saturates */
    const int64_t iw[6] = {3, -4, -4, 3, 2, INT32_MAX};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, iw);
    const int64_t la[2] = {-9, 9}, lb[1] = {4};
    c = bin(LG_OP_FLOOR_DIV, IN_T(LG_INT64, LG_DIMS(2), la), CONST_T(LG_INT64, LG_SCALAR, lb), LG_INT64, LG_DIMS(2));
    const int64_t lw[2] = {-3, 2};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT64, lw);
    /* TFLite checks every divisor, float ones too */
    const float fz[5] = {1, 1, 0, 1, 1};
    c = bin(LG_OP_FLOOR_DIV, IN_F(LG_DIMS(5), a), IN_F(LG_DIMS(5), fz), LG_FLOAT32, LG_DIMS(5));
    kt_model r;
    kt_run_op(&c, LG_PREC_F32, g_threads, &r);
    CHECK_EQ_INT(r.st, LG_ERR_INVALID_ARG);
    kt_free(&r);
}

LG_TEST(k_elementwise_floor_mod_float_int) {
    /* the remainder takes the divisor's sign */
    const float a[5] = {7, -7, 7, -7, 5.5f}, b[5] = {3, 3, -3, -3, 2};
    kt_op c = bin(LG_OP_FLOOR_MOD, IN_F(LG_DIMS(5), a), IN_F(LG_DIMS(5), b), LG_FLOAT32, LG_DIMS(5));
    const float want[5] = {1, 2, -2, -1, 1.5f};
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
    const int32_t ia[5] = {7, -7, 7, -7, INT32_MIN}, ib[5] = {3, 3, -3, -3, -1};
    c = bin(LG_OP_FLOOR_MOD, IN_T(LG_INT32, LG_DIMS(5), ia), IN_T(LG_INT32, LG_DIMS(5), ib), LG_INT32, LG_DIMS(5));
    const int64_t iw[5] = {1, 2, -2, -1, 0};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, iw);
    const int64_t la[2] = {-10, 10}, lb[2] = {4, 0};
    c = bin(LG_OP_FLOOR_MOD, IN_T(LG_INT64, LG_DIMS(2), la), IN_T(LG_INT64, LG_DIMS(2), lb), LG_INT64, LG_DIMS(2));
    kt_model r;
    kt_run_op(&c, LG_PREC_F32, g_threads, &r);
    CHECK_EQ_INT(r.st, LG_ERR_INVALID_ARG); /* integer divisor 0 */
    kt_free(&r);
    /* a float divisor of 0 is not checked: fmod gives NaN */
    const float fa[1] = {1}, fz[1] = {0};
    c = bin(LG_OP_FLOOR_MOD, IN_F(LG_DIMS(1), fa), IN_F(LG_DIMS(1), fz), LG_FLOAT32, LG_DIMS(1));
    const float wn[1] = {NAN};
    EXPECT_F32(&c, LG_PREC_F32, wn, 0);
}

LG_TEST(k_elementwise_atan2) {
    const float y[4] = {1, 1, -1, 0}, x[4] = {1, -1, 0, -1};
    kt_op c = bin(LG_OP_ATAN2, IN_F(LG_DIMS(4), y), IN_F(LG_DIMS(4), x), LG_FLOAT32, LG_DIMS(4));
    const float pi = 3.14159265358979f;
    const float want[4] = {pi / 4, 3 * pi / 4, -pi / 2, pi};
    EXPECT_F32(&c, LG_PREC_F32, want, 1e-6);
}

LG_TEST(k_elementwise_prelu_alpha_broadcast) {
    /* input [1,2,2,3], alpha per channel [3] and [1,1,3] */
    const float x[12] = {-1, -2, -3, 1, 2, 3, -4, 0, 4, -0.5f, 5, -6};
    const float al[3] = {0.1f, 0.2f, 0.5f};
    kt_op c = bin(LG_OP_PRELU, IN_F(LG_DIMS(1, 2, 2, 3), x), CONST_F(LG_DIMS(3), al), LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    const float want[12] = {-1 * 0.1f, -2 * 0.2f, -3 * 0.5f, 1, 2, 3, -4 * 0.1f, 0, 4, -0.5f * 0.1f, 5, -6 * 0.5f};
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
    c.in[1].shape = LG_DIMS(1, 1, 3);
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
    /* a full-shape alpha */
    float full[12];
    for (int i = 0; i < 12; i++) full[i] = al[i % 3];
    c.in[1] = CONST_F(LG_DIMS(1, 2, 2, 3), full);
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
    /* alpha that would grow the output is refused */
    const float a6[6] = {0};
    c = bin(LG_OP_PRELU, IN_F(LG_DIMS(2, 1), x), CONST_F(LG_DIMS(2, 3), a6), LG_FLOAT32, LG_DIMS(2, 3));
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "alpha [2,3] grows the input [2,1]");
}

/* ------------------------------------------------------------------ comparisons and logic */

LG_TEST(k_elementwise_comparisons_float_with_nan) {
    const float a[4] = {1, 2, 3, NAN}, b[4] = {2, 2, 2, NAN};
    struct { int32_t code; int64_t want[4]; } ops[6] = {
        {LG_OP_LESS, {1, 0, 0, 0}},    {LG_OP_LESS_EQUAL, {1, 1, 0, 0}}, {LG_OP_GREATER, {0, 0, 1, 0}},
        {LG_OP_GREATER_EQUAL, {0, 1, 1, 0}}, {LG_OP_EQUAL, {0, 1, 0, 0}}, {LG_OP_NOT_EQUAL, {1, 0, 1, 1}},
    };
    for (int k = 0; k < 6; k++) {
        kt_op c = bin(ops[k].code, IN_F(LG_DIMS(4), a), IN_F(LG_DIMS(4), b), LG_BOOL, LG_DIMS(4));
        kt_expect_ints(__FILE__, __LINE__, &c, LG_PREC_F32, g_threads, LG_BOOL, ops[k].want, 4);
    }
}

LG_TEST(k_elementwise_comparisons_int_broadcast) {
    /* [2,3] < [3] */
    const int32_t a[6] = {1, 5, 9, 4, 4, 4}, b[3] = {4, 4, 4};
    kt_op c = bin(LG_OP_LESS, IN_T(LG_INT32, LG_DIMS(2, 3), a), CONST_T(LG_INT32, LG_DIMS(3), b), LG_BOOL, LG_DIMS(2, 3));
    const int64_t lt[6] = {1, 0, 0, 0, 0, 0};
    EXPECT_INT(&c, LG_PREC_F32, LG_BOOL, lt);
    c.code = LG_OP_GREATER_EQUAL;
    const int64_t ge[6] = {0, 1, 1, 1, 1, 1};
    EXPECT_INT(&c, LG_PREC_F32, LG_BOOL, ge);
    const int64_t la[2] = {(int64_t)1 << 40, -1}, lb[1] = {((int64_t)1 << 40) + 1};
    c = bin(LG_OP_LESS_EQUAL, IN_T(LG_INT64, LG_DIMS(2), la), CONST_T(LG_INT64, LG_SCALAR, lb), LG_BOOL, LG_DIMS(2));
    const int64_t le[2] = {1, 1};
    EXPECT_INT(&c, LG_PREC_F32, LG_BOOL, le);
    const uint8_t ba[4] = {0, 1, 0, 1}, bb[4] = {0, 0, 1, 1};
    c = bin(LG_OP_EQUAL, IN_T(LG_BOOL, LG_DIMS(4), ba), IN_T(LG_BOOL, LG_DIMS(4), bb), LG_BOOL, LG_DIMS(4));
    const int64_t eq[4] = {1, 0, 0, 1};
    EXPECT_INT(&c, LG_PREC_F32, LG_BOOL, eq);
    /* ordering BOOL is not a TFLite comparison */
    c.code = LG_OP_LESS;
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "BOOL");
    /* the output must be declared BOOL */
    c = bin(LG_OP_LESS, IN_T(LG_INT32, LG_DIMS(2, 3), a), CONST_T(LG_INT32, LG_DIMS(3), b), LG_INT32, LG_DIMS(2, 3));
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "is stored as INT32 but the op gives BOOL");
}

LG_TEST(k_elementwise_comparisons_quantized_unsupported) {
    const int8_t q[2] = {1, 2};
    const float sc[1] = {0.5f};
    kt_op c = bin(LG_OP_LESS, (kt_tensor){LG_INT8, LG_DIMS(2), q, 0, sc, NULL, 1, 0}, (kt_tensor){LG_INT8, LG_DIMS(2), q, 0, sc, NULL, 1, 0},
                    LG_BOOL, LG_DIMS(2));
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "INT8");
}

LG_TEST(k_elementwise_logical_and_or_not) {
    const uint8_t a[4] = {0, 1, 0, 1}, b[4] = {0, 0, 1, 1};
    kt_op c = bin(LG_OP_LOGICAL_AND, IN_T(LG_BOOL, LG_DIMS(4), a), IN_T(LG_BOOL, LG_DIMS(4), b), LG_BOOL, LG_DIMS(4));
    const int64_t and_[4] = {0, 0, 0, 1};
    EXPECT_INT(&c, LG_PREC_F32, LG_BOOL, and_);
    c.code = LG_OP_LOGICAL_OR;
    const int64_t or_[4] = {0, 1, 1, 1};
    EXPECT_INT(&c, LG_PREC_F32, LG_BOOL, or_);
    /* broadcast: [2,1] OR [1,2] */
    const uint8_t col[2] = {0, 1}, row[2] = {0, 1};
    c = bin(LG_OP_LOGICAL_OR, IN_T(LG_BOOL, LG_DIMS(2, 1), col), IN_T(LG_BOOL, LG_DIMS(1, 2), row), LG_BOOL, LG_DIMS(2, 2));
    const int64_t orb[4] = {0, 1, 1, 1};
    EXPECT_INT(&c, LG_PREC_F32, LG_BOOL, orb);
    c = un(LG_OP_LOGICAL_NOT, IN_T(LG_BOOL, LG_DIMS(4), a), LG_BOOL, LG_DIMS(4));
    const int64_t not_[4] = {1, 0, 1, 0};
    EXPECT_INT(&c, LG_PREC_F32, LG_BOOL, not_);
    const float f[4] = {0};
    c = un(LG_OP_LOGICAL_NOT, IN_F(LG_DIMS(4), f), LG_BOOL, LG_DIMS(4));
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "supported: BOOL");
}

/* ------------------------------------------------------------------ ADD_N */

LG_TEST(k_elementwise_add_n_float_int) {
    const float a[3] = {1, 2, 3}, b[3] = {10, 20, 30}, d[3] = {100, 200, 300};
    kt_op c;
    memset(&c, 0, sizeof c);
    c.code = LG_OP_ADD_N;
    c.n_in = 3;
    c.in[0] = IN_F(LG_DIMS(3), a);
    c.in[1] = CONST_F(LG_DIMS(3), b);
    c.in[2] = IN_F(LG_DIMS(3), d);
    c.out[0].type = LG_FLOAT32;
    c.out[0].shape = LG_DIMS(3);
    const float want[3] = {111, 222, 333};
    for (int p = 0; p < 3; p++) EXPECT_F32(&c, all_prec[p], want, 0);
    const int32_t ia[2] = {INT32_MAX, 1}, ib[2] = {1, 2};
    c.n_in = 2;
    c.in[0] = IN_T(LG_INT32, LG_DIMS(2), ia);
    c.in[1] = IN_T(LG_INT32, LG_DIMS(2), ib);
    c.out[0].type = LG_INT32;
    c.out[0].shape = LG_DIMS(2);
    const int64_t iw[2] = {INT32_MIN, 3};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, iw);
    /* ADD_N does not broadcast */
    c.in[1].shape = LG_DIMS(1);
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "the others [2] (they must have one shape)");
}

LG_TEST(k_elementwise_add_n_half_accumulator_rounds_each_step) {
    /* f16: 2048 + 1 = 2049 rounds (ties to even) to 2048, twice: 2048. f32: 2050, which a half
       holds exactly (spacing 2 in [2048, 4096)). */
    const float a[1] = {2048}, one[1] = {1};
    kt_op c;
    memset(&c, 0, sizeof c);
    c.code = LG_OP_ADD_N;
    c.n_in = 3;
    c.in[0] = IN_F(LG_DIMS(1), a);
    c.in[1] = IN_F(LG_DIMS(1), one);
    c.in[2] = IN_F(LG_DIMS(1), one);
    c.out[0].type = LG_FLOAT32;
    c.out[0].shape = LG_DIMS(1);
    const float w16[1] = {2048}, w32[1] = {2050};
    EXPECT_F32(&c, LG_PREC_F16, w16, 0);
    EXPECT_F32(&c, LG_PREC_F32, w32, 0);
    EXPECT_F32(&c, LG_PREC_F32_F16, w32, 0);
}

LG_TEST(k_elementwise_add_n_half_accumulator_overflows) {
    /* 400 inputs of 200 then 400 of -200: the running sum peaks at 80000 (past 65504) and ends
       at 0. A half accumulator overflows to inf and stays there; fp32 gives 0, also when only
       the storage is half (LG_PREC_F32_F16). */
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    if (!m) return;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int32_t p = lg_b_tensor(&b, "p", LG_FLOAT32, LG_DIMS(2));
    int32_t q = lg_b_tensor(&b, "q", LG_FLOAT32, LG_DIMS(2));
    int32_t out = lg_b_tensor(&b, "out", LG_FLOAT32, LG_DIMS(2));
    int32_t ids[800];
    for (int i = 0; i < 800; i++) ids[i] = i < 400 ? p : q;
    lg_b_op(&b, LG_OP_ADD_N, (lg_dims){ids, 800}, LG_IDS(out));
    lg_b_io(&b, LG_IDS(p, q), LG_IDS(out));
    CHECK_EQ_INT(b.status, LG_OK);
    const float pv[2] = {200, 1}, qv[2] = {-200, -1};
    for (int k = 0; k < 3; k++) {
        lg_run_options ro = {0};
        ro.precision = all_prec[k];
        lg_interp *it = NULL;
        CHECK_OK(lg_interp_create(m, &ro, &it, &err), &err);
        if (!it) continue;
        CHECK_OK(lg_interp_set_input(it, 0, LG_FLOAT32, pv, sizeof pv, &err), &err);
        CHECK_OK(lg_interp_set_input(it, 1, LG_FLOAT32, qv, sizeof qv, &err), &err);
        CHECK_OK(lg_interp_invoke(it, &err), &err);
        lg_tensor_view v;
        lg_interp_output(it, 0, &v);
        const float *o = v.data;
        if (all_prec[k] == LG_PREC_F16) {
            CHECK(isinf(o[0]) && o[0] > 0);
        } else {
            CHECK_NEAR(o[0], 0, 0);
        }
        CHECK_NEAR(o[1], 0, 0); /* 400 fits easily */
        lg_interp_free(it);
    }
    lg_model_free(m);
}

/* ------------------------------------------------------------------ unary math */

LG_TEST(k_elementwise_unary_math_known_values) {
    const float e = 2.718281828f, pi = 3.14159265f;
    struct { int32_t code; float x[3]; float want[3]; double tol; } cases[] = {
        {LG_OP_ABS, {-2.5f, 0, 3}, {2.5f, 0, 3}, 0},
        {LG_OP_NEG, {-2.5f, 0, 3}, {2.5f, 0, -3}, 0},
        {LG_OP_SQUARE, {-3, 0.5f, 1e20f}, {9, 0.25f, INFINITY}, 0},
        {LG_OP_SQRT, {4, 2, -1}, {2, 1.41421356f, NAN}, 1e-6},
        {LG_OP_RSQRT, {4, 0.25f, 0}, {0.5f, 2, INFINITY}, 1e-6},
        {LG_OP_EXP, {0, 1, -1}, {1, e, 1 / e}, 1e-6},
        {LG_OP_LOG, {1, e, 0}, {0, 1, -INFINITY}, 1e-6},
        {LG_OP_SIN, {0, pi / 2, -pi / 6}, {0, 1, -0.5f}, 1e-6},
        {LG_OP_COS, {0, pi, pi / 3}, {1, -1, 0.5f}, 1e-6},
        {LG_OP_TANH, {0, 20, -0.5f}, {0, 1, -0.46211716f}, 1e-6},
        {LG_OP_FLOOR, {-1.5f, 1.5f, 2}, {-2, 1, 2}, 0},
        {LG_OP_CEIL, {-1.5f, 1.5f, 2}, {-1, 2, 2}, 0},
        {LG_OP_SIGN, {-3, 0, NAN}, {-1, 0, 0}, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        kt_op c = un(cases[k].code, IN_F(LG_DIMS(3), cases[k].x), LG_FLOAT32, LG_DIMS(3));
        kt_expect_f32(__FILE__, __LINE__, &c, LG_PREC_F32, g_threads, cases[k].want, 3, cases[k].tol);
    }
}

LG_TEST(k_elementwise_round_half_to_even_and_zero_sign) {
    const float x[10] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, -0.4f, -0.0f, 8388609.0f};
    kt_op c = un(LG_OP_ROUND, IN_F(LG_DIMS(10), x), LG_FLOAT32, LG_DIMS(10));
    const float want[10] = {0, 2, 2, 0, -2, -2, 2, 0, 0, 8388609.0f};
    kt_model r;
    if (!RUN_OK(&c, LG_PREC_F32, &r)) return;
    CHECK_OUT_F32(&r, want, 10, 0);
    const float *o = kt_f32(&r, 0);
    /* TFLite's RoundToNearest returns floor + 1 = +0 for -0.5 and -0.4, and keeps -0 */
    CHECK(!signbit(o[3]));
    CHECK(!signbit(o[7]));
    CHECK(signbit(o[8]));
    kt_free(&r);
}

LG_TEST(k_elementwise_unary_int32_int64) {
    const int32_t x[4] = {-5, 0, 7, INT32_MIN};
    kt_op c = un(LG_OP_ABS, IN_T(LG_INT32, LG_DIMS(4), x), LG_INT32, LG_DIMS(4));
    const int64_t ab[4] = {5, 0, 7, INT32_MIN};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, ab);
    c.code = LG_OP_NEG;
    const int64_t ng[4] = {5, 0, -7, INT32_MIN};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, ng);
    c.code = LG_OP_SIGN;
    const int64_t sg[4] = {-1, 0, 1, -1};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, sg);
    const int64_t lx[2] = {-((int64_t)1 << 40), 3};
    c = un(LG_OP_NEG, IN_T(LG_INT64, LG_DIMS(2), lx), LG_INT64, LG_DIMS(2));
    const int64_t lng[2] = {(int64_t)1 << 40, -3};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT64, lng);
    c = un(LG_OP_EXP, IN_T(LG_INT32, LG_DIMS(4), x), LG_INT32, LG_DIMS(4));
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "INT32");
}

/* Error of got against the double-precision value want, in units of want's float ulp. */
static double ulps(float got, double want) {
    if (isnan(want)) return isnan(got) ? 0 : 1e9;
    float wf = (float)want;
    if (isinf(wf)) return got == wf ? 0 : 1e9;
    double u = wf == 0 ? ldexp(1.0, -149) : fmax(ldexp(1.0, -149), ldexp(1.0, ilogb(wf) - 23));
    return fabs((double)got - want) / u;
}

/* LOGISTIC with fp32 arithmetic is XNNPACK's sigmoid (f32-vsigmoid "rr2_p5_div"), what LiteRT.js
   computes: all of 1 / (1 + exp(-x)), without the cutoffs of TFLite's reference kernel (1 above
   16.619047, exp(x) below -9); exp(-|x|) is flushed to 0 past |x| = 87.34 (the true sigmoid is
   subnormal there). LG_PREC_F16 keeps the reference's branches. */
static void k_elementwise_logistic_fp32_full_sigmoid_body(void) {
    const float x[8] = {0, 1, -1, 20, -10, 17, -90, 90};
    kt_op c = un(LG_OP_LOGISTIC, IN_F(LG_DIMS(8), x), LG_FLOAT32, LG_DIMS(8));
    /* sigmoid(17) = 1 - 4.14e-8 rounds to 1 - 2^-24 (0x1.fffffep-1; TFLite's reference: 1);
       sigmoid(-10) = 4.539786870e-5 (TFLite's reference: exp(-10) = 4.539992976e-5) */
    const float want[8] = {0.5f, 0.7310585786f, 0.2689414214f, 1, 4.539786870e-5f, 0x1.fffffep-1f, 0, 1};
    EXPECT_F32(&c, LG_PREC_F32, want, 1e-7);
    kt_model r;
    if (RUN_OK(&c, LG_PREC_F32, &r)) {
        const float *o = kt_f32(&r, 0);
        CHECK(o[0] == 0.5f);
        CHECK(o[3] == 1.0f);
        CHECK(o[5] == 0x1.fffffep-1f);
        CHECK_NEAR(o[4] / (1.0 / (1.0 + exp(10.0))), 1, 3e-7); /* the whole sigmoid, not exp(-10) */
        CHECK(o[6] == 0.0f && o[7] == 1.0f);
        kt_free(&r);
    }
    /* specials */
    const float sx[4] = {NAN, INFINITY, -INFINITY, -0.0f};
    c = un(LG_OP_LOGISTIC, IN_F(LG_DIMS(4), sx), LG_FLOAT32, LG_DIMS(4));
    const float ws[4] = {NAN, 1, 0, 0.5f};
    EXPECT_F32(&c, LG_PREC_F32, ws, 0);
}
LG_TEST(k_elementwise_logistic_fp32_full_sigmoid) { at_every_level(k_elementwise_logistic_fp32_full_sigmoid_body); }

/* XNNPACK's sigmoid written out per element, from its description: e = exp(-z), z = |x|, by
   n = round(-z log2 e) (the product rounded to float, then to an integer by adding and
   subtracting 1.5 * 2^23 + 127), t = z + n ln2 with ln2 in a high and a low part, a degree-5
   polynomial p(t), e = s + (t s) p with s = 2^n; f = e / (e + 1); the result is f for x with
   the sign bit set, else 1 - f; 0 / 1 past |x| = 0x1.5D589Ep+6. Every step rounds to float. */
static float naive_sigmoid_xnn(float x) {
    const float z = fabsf(x);
    if (isnan(x)) return x;
    if (z > 0x1.5D589Ep+6f) return signbit(x) ? 0.0f : 1.0f;
    const float bias = 0x1.8000FEp23f;
    const float nb = z * -0x1.715476p+0f + bias;
    const float n = nb - bias;
    const float s = ldexpf(1.0f, (int)n);
    float t = n * 0x1.62E400p-1f + z;
    t = n * 0x1.7F7D1Cp-20f + t;
    float p = t * -0x1.0F9F9Cp-7f + 0x1.573A1Ap-5f;
    p = t * p + -0x1.555A80p-3f;
    p = t * p + 0x1.FFFDC6p-2f;
    p = t * p + -0x1.FFFFF6p-1f;
    const float ts = t * s;
    const float e = ts * p + s;
    const float f = e / (e + 1.0f);
    return signbit(x) ? f : 1.0f - f;
}

static void k_elementwise_logistic_fp32_xnnpack_order_and_accuracy_body(void) {
    /* bit for bit the naive loop above over [-100, 100] (both cutoffs, the flush) and
       +-[1e-30, 3]; and within 4 ulp of the double-precision sigmoid wherever |x| <= 87.33
       (3.53 ulp is the worst case over every float there) */
    enum { N = 40001 };
    static float x[2 * N], want[2 * N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)(-100.0 + 200.0 * i / (N - 1));
        x[N + i] = (float)((i % 2 ? -1 : 1) * pow(10.0, -30.0 + 30.5 * i / (N - 1)));
    }
    int differs_from_reference = 0;
    for (int i = 0; i < 2 * N; i++) {
        want[i] = naive_sigmoid_xnn(x[i]);
        const double v = x[i];
        const float ref = (float)(v > 16.619047164916992188 ? 1.0 : v < -9 ? exp(v) : 1.0 / (1.0 + exp(-v)));
        differs_from_reference += want[i] != ref;
    }
    CHECK(differs_from_reference > 1000); /* the test tells the two apart */
    kt_op c = un(LG_OP_LOGISTIC, IN_F(LG_DIMS(2 * N), x), LG_FLOAT32, LG_DIMS(2 * N));
    kt_model r;
    if (!RUN_OK(&c, LG_PREC_F32, &r)) return;
    const float *o = kt_f32(&r, 0);
    CHECK(memcmp(o, want, sizeof want) == 0);
    double worst = 0;
    float at = 0;
    for (int i = 0; i < 2 * N; i++) {
        if (fabsf(x[i]) > 87.33f) continue;
        const double e = ulps(o[i], 1.0 / (1.0 + exp(-(double)x[i])));
        if (e > worst) { worst = e; at = x[i]; }
    }
    if (worst > 4.0) tf_fail(__FILE__, __LINE__, "LOGISTIC: %.2f ulp at x = %.9g (allowed 4)", worst, (double)at);
    kt_free(&r);
    /* LG_PREC_F32_F16 computes the same fp32 arithmetic on half-rounded inputs */
    if (RUN_OK(&c, LG_PREC_F32_F16, &r)) {
        o = kt_f32(&r, 0);
        int bad = 0;
        for (int i = 0; i < 2 * N && !bad; i++)
            bad = o[i] != lg_round_half(naive_sigmoid_xnn(lg_round_half(x[i])));
        CHECK(!bad);
        kt_free(&r);
    }
}
LG_TEST(k_elementwise_logistic_fp32_xnnpack_order_and_accuracy) { at_every_level(k_elementwise_logistic_fp32_xnnpack_order_and_accuracy_body); }

static void k_elementwise_exp_tanh_within_2_ulp_body(void) {
    /* EXP and TANH use their own vectorizable exp (Cephes); checked against double libm over
       [-110, 110] (overflow, subnormal results) and over +-[1e-30, 3] (tanh's polynomial, exp
       near 1). LOGISTIC in fp32 is XNNPACK's sigmoid, tested above. */
    enum { N = 40001 };
    static float x[2 * N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)(-110.0 + 220.0 * i / (N - 1));
        x[N + i] = (float)((i % 2 ? -1 : 1) * pow(10.0, -30.0 + 30.5 * i / (N - 1)));
    }
    const int32_t codes[2] = {LG_OP_EXP, LG_OP_TANH};
    const double tol[2] = {1.0, 1.5};
    for (int k = 0; k < 2; k++) {
        kt_op c = un(codes[k], IN_F(LG_DIMS(2 * N), x), LG_FLOAT32, LG_DIMS(2 * N));
        kt_model r;
        if (!RUN_OK(&c, LG_PREC_F32, &r)) continue;
        const float *o = kt_f32(&r, 0);
        double worst = 0;
        float at = 0;
        for (int i = 0; i < 2 * N; i++) {
            double v = x[i];
            double w = codes[k] == LG_OP_EXP ? exp(v) : tanh(v);
            double e = ulps(o[i], w);
            if (e > worst) { worst = e; at = x[i]; }
        }
        if (worst > tol[k])
            tf_fail(__FILE__, __LINE__, "%s: %.2f ulp at x = %.9g (allowed %.1f)", lg_builtin_name(codes[k]), worst,
                    (double)at, tol[k]);
        kt_free(&r);
    }
    /* specials: NaN, +-inf, the last finite exp, overflow, a subnormal */
    const float sx[6] = {NAN, INFINITY, -INFINITY, 88.72f, 88.73f, -103.9f};
    kt_op c = un(LG_OP_EXP, IN_F(LG_DIMS(6), sx), LG_FLOAT32, LG_DIMS(6));
    const float we[6] = {NAN, INFINITY, 0, 3.39318e38f, INFINITY, 1.4013e-45f};
    EXPECT_F32(&c, LG_PREC_F32, we, 1e32);
    c.code = LG_OP_TANH;
    const float wt[6] = {NAN, 1, -1, 1, 1, -1};
    EXPECT_F32(&c, LG_PREC_F32, wt, 0);
}
LG_TEST(k_elementwise_exp_tanh_within_2_ulp) { at_every_level(k_elementwise_exp_tanh_within_2_ulp_body); }

LG_TEST(k_elementwise_relu_family_edges_and_nan) {
    const float x[7] = {-7, -1, -0.5f, 0, 0.5f, 7, NAN};
    struct { int32_t code; float want[7]; } cases[] = {
        {LG_OP_RELU, {0, 0, 0, 0, 0.5f, 7, NAN}},
        {LG_OP_RELU6, {0, 0, 0, 0, 0.5f, 6, NAN}},
        {LG_OP_RELU_N1_TO_1, {-1, -1, -0.5f, 0, 0.5f, 1, NAN}},
        {LG_OP_RELU_0_TO_1, {0, 0, 0, 0, 0.5f, 1, NAN}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        kt_op c = un(cases[k].code, IN_F(LG_DIMS(7), x), LG_FLOAT32, LG_DIMS(7));
        for (int p = 0; p < 3; p++) kt_expect_f32(__FILE__, __LINE__, &c, all_prec[p], g_threads, cases[k].want, 7, 0);
    }
    /* a quantized RELU runs the integer kernel (k_quant_ew.c) */
    const int8_t q[2] = {0};
    const float sc[1] = {1};
    kt_op c = un(LG_OP_RELU, (kt_tensor){LG_INT8, LG_DIMS(2), q, 0, sc, NULL, 1, 0}, LG_INT8, LG_DIMS(2));
    c.out[0].scale = sc;
    c.out[0].nq = 1;
    const int64_t zero[2] = {0, 0};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT8, zero);
}

LG_TEST(k_elementwise_leaky_relu_alpha) {
    const float x[11] = {-10, -1, 0, 2, -4, 5, -0.5f, 3, -8, 1, -2}; /* 11: a block and a tail */
    lg_leaky_relu_options o = {0.2f};
    kt_op c = un(LG_OP_LEAKY_RELU, IN_F(LG_DIMS(11), x), LG_FLOAT32, LG_DIMS(11));
    c.kind = LG_OPTS_LEAKY_RELU_OPTIONS;
    c.opts = &o;
    float want[11];
    for (int i = 0; i < 11; i++) want[i] = x[i] > 0 ? x[i] : x[i] * 0.2f;
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
    /* no options: alpha is the schema default, 0 */
    c.kind = LG_OPTS_NONE;
    c.opts = NULL;
    const float w0[11] = {0, 0, 0, 2, 0, 5, 0, 3, 0, 1, 0};
    EXPECT_F32(&c, LG_PREC_F32, w0, 0);
}

LG_TEST(k_elementwise_elu_hard_swish) {
    const float x[4] = {-1, 0, 2, -20};
    kt_op c = un(LG_OP_ELU, IN_F(LG_DIMS(4), x), LG_FLOAT32, LG_DIMS(4));
    const float elu[4] = {-0.6321205588f, 0, 2, -0.9999999979f};
    EXPECT_F32(&c, LG_PREC_F32, elu, 1e-7);
    /* x * relu6(x + 3) / 6 */
    const float h[7] = {-4, -3, -1, 0, 1, 3, 4};
    c = un(LG_OP_HARD_SWISH, IN_F(LG_DIMS(7), h), LG_FLOAT32, LG_DIMS(7));
    const float hs[7] = {0, 0, -1.0f / 3.0f, 0, 4.0f / 6.0f, 3, 4};
    EXPECT_F32(&c, LG_PREC_F32, hs, 1e-7);
}

/* HARD_SWISH with fp32 arithmetic is XNNPACK's f32-vhswish order, what LiteRT.js computes:
   x * min(max(x * (1/6) + 0.5, 0), 1) with 1/6 rounded to float (0x1.555556p-3), each step
   rounded; LG_PREC_F16 keeps TFLite's order x * min(6, max(0, x + 3)) / 6. */
static float naive_hswish_xnn(float x) {
    float g = x * 0x1.555556p-3f;
    g = g + 0.5f;
    g = g < 0.0f ? 0.0f : g > 1.0f ? 1.0f : g;
    return x * g;
}
static float naive_hswish_tflite(float x) {
    float r = x + 3.0f;
    r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r;
    return x * r / 6.0f;
}

static void k_elementwise_hard_swish_fp32_xnnpack_order_body(void) {
    /* by hand: x = 2: 2 * fl(1/6) = 0.333333343 exactly, + 0.5 rounds to 0.833333373
       (0x1.aaaaacp-1), times 2 = 1.66666675 (0x1.aaaaacp+0), where TFLite's 2 * 5 / 6 gives
       1.66666663 (0x1.aaaaaap+0); x = -1: -fl(1/6) + 0.5 = 0.333333313 (0x1.555554p-2), so
       -0x1.555554p-2 where TFLite's -1 * 2 / 6 gives -0x1.555556p-2; -2.5: -0x1.aaaaa4p-3
       (TFLite: -0x1.aaaaaap-3); at and past the clamps both are exact */
    const float x[8] = {2, -1, -2.5f, -3, 3, -4, 4, 0};
    const float want[8] = {0x1.aaaaacp+0f, -0x1.555554p-2f, -0x1.aaaaa4p-3f, -0.0f, 3, -0.0f, 4, 0};
    kt_op c = un(LG_OP_HARD_SWISH, IN_F(LG_DIMS(8), x), LG_FLOAT32, LG_DIMS(8));
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
    /* a sweep over [-6.2, 6.2] against the naive loop, bit for bit */
    enum { N = 1201 };
    static float xs[N], ws[N];
    int differs = 0;
    for (int i = 0; i < N; i++) {
        xs[i] = (float)(i - 600) / 97.0f;
        ws[i] = naive_hswish_xnn(xs[i]);
        differs += ws[i] != naive_hswish_tflite(xs[i]);
    }
    CHECK(differs > 100); /* the orders really differ */
    c = un(LG_OP_HARD_SWISH, IN_F(LG_DIMS(N), xs), LG_FLOAT32, LG_DIMS(N));
    kt_model r;
    if (RUN_OK(&c, LG_PREC_F32, &r)) {
        CHECK(memcmp(kt_f32(&r, 0), ws, sizeof ws) == 0);
        kt_free(&r);
    }
    /* LG_PREC_F16 still rounds TFLite's order once at the output (input rounded to half) */
    if (RUN_OK(&c, LG_PREC_F16, &r)) {
        const float *o = kt_f32(&r, 0);
        int bad = 0;
        for (int i = 0; i < N && !bad; i++) bad = o[i] != lg_round_half(naive_hswish_tflite(lg_round_half(xs[i])));
        CHECK(!bad);
        kt_free(&r);
    }
}
LG_TEST(k_elementwise_hard_swish_fp32_xnnpack_order) { at_every_level(k_elementwise_hard_swish_fp32_xnnpack_order_body); }

LG_TEST(k_elementwise_gelu_exact_and_tanh) {
    /* exact: x * Phi(x); Phi(1) = 0.841344746, Phi(-3) = 0.001349898, Phi(-10) = 7.6199e-24 */
    const float x[4] = {1, -3, 0, -10};
    lg_gelu_options o = {false};
    kt_op c = un(LG_OP_GELU, IN_F(LG_DIMS(4), x), LG_FLOAT32, LG_DIMS(4));
    c.kind = LG_OPTS_GELU_OPTIONS;
    c.opts = &o;
    const float exact[4] = {0.8413447461f, -0.0040496941f, 0, -7.619853e-23f};
    EXPECT_F32(&c, LG_PREC_F32, exact, 1e-7);
    kt_model r;
    if (RUN_OK(&c, LG_PREC_F32, &r)) {
        /* the erfc form keeps the tiny tail that 1 + erf would cancel to 0 */
        CHECK_NEAR(((const float *)kt_f32(&r, 0))[3] / -7.619853e-23f, 1, 1e-4);
        kt_free(&r);
    }
    /* tanh form: 0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3))) */
    o.approximate = true;
    const float approx[4] = {0.8411919906f, -0.0036373920f, 0, -0.0f};
    EXPECT_F32(&c, LG_PREC_F32, approx, 1e-7);
    /* no options: the exact form */
    c.kind = LG_OPTS_NONE;
    c.opts = NULL;
    EXPECT_F32(&c, LG_PREC_F32, exact, 1e-7);
}

/* ------------------------------------------------------------------ SELECT / SELECT_V2 */

LG_TEST(k_elementwise_select_same_shape_scalar_and_rank_one) {
    const uint8_t cnd[6] = {1, 0, 1, 0, 0, 1};
    const float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {-1, -2, -3, -4, -5, -6};
    kt_op c;
    memset(&c, 0, sizeof c);
    c.code = LG_OP_SELECT;
    c.n_in = 3;
    c.in[0] = IN_T(LG_BOOL, LG_DIMS(2, 3), cnd);
    c.in[1] = IN_F(LG_DIMS(2, 3), x);
    c.in[2] = IN_F(LG_DIMS(2, 3), y);
    c.out[0].type = LG_FLOAT32;
    c.out[0].shape = LG_DIMS(2, 3);
    const float w1[6] = {1, -2, 3, -4, -5, 6};
    EXPECT_F32(&c, LG_PREC_F32, w1, 0);
    /* rank-1 condition over the first dimension picks whole rows */
    const uint8_t rows[2] = {0, 1};
    c.in[0] = IN_T(LG_BOOL, LG_DIMS(2), rows);
    const float w2[6] = {-1, -2, -3, 4, 5, 6};
    EXPECT_F32(&c, LG_PREC_F32, w2, 0);
    /* scalar condition */
    const uint8_t one[1] = {1};
    c.in[0] = IN_T(LG_BOOL, LG_SCALAR, one);
    EXPECT_F32(&c, LG_PREC_F32, x, 0);
    /* SELECT (v1) does not broadcast otherwise */
    c.in[0] = IN_T(LG_BOOL, LG_DIMS(3), cnd);
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "condition");
    c.in[0] = IN_F(LG_DIMS(2, 3), x);
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "expected BOOL");
}

LG_TEST(k_elementwise_select_v2_broadcasts_all_three) {
    /* condition [2,1,1], x [1,3,1]... here: cond [2,1], x [1,3], y scalar -> [2,3] */
    const uint8_t cnd[2] = {1, 0};
    const int32_t x[3] = {1, 2, 3}, y[1] = {-9};
    kt_op c;
    memset(&c, 0, sizeof c);
    c.code = LG_OP_SELECT_V2;
    c.n_in = 3;
    c.in[0] = IN_T(LG_BOOL, LG_DIMS(2, 1), cnd);
    c.in[1] = IN_T(LG_INT32, LG_DIMS(1, 3), x);
    c.in[2] = CONST_T(LG_INT32, LG_SCALAR, y);
    c.out[0].type = LG_INT32;
    c.out[0].shape = LG_DIMS(2, 3);
    const int64_t want[6] = {1, 2, 3, -9, -9, -9};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, want);
    /* a 4-D case against the naive loop: cond [2,1,4,1], x [3,1,5], y [2,3,4,5] (float) */
    uint8_t cb[8];
    float xb[15], yb[120], wb[120];
    for (int i = 0; i < 8; i++) cb[i] = (uint8_t)((i * 5) % 3 == 0);
    for (int i = 0; i < 15; i++) xb[i] = (float)i;
    for (int i = 0; i < 120; i++) yb[i] = -(float)i;
    const int32_t sc[4] = {2, 1, 4, 1}, sx[3] = {3, 1, 5}, sy[4] = {2, 3, 4, 5}, so[4] = {2, 3, 4, 5};
    for (int f = 0; f < 120; f++) {
        int64_t idx[4];
        unflatten(f, so, 4, idx);
        wb[f] = cb[bidx(sc, 4, idx, 4)] ? xb[bidx(sx, 3, idx, 4)] : yb[bidx(sy, 4, idx, 4)];
    }
    c.in[0] = IN_T(LG_BOOL, ((lg_dims){sc, 4}), cb);
    c.in[1] = IN_F(((lg_dims){sx, 3}), xb);
    c.in[2] = IN_F(((lg_dims){sy, 4}), yb);
    c.out[0].type = LG_FLOAT32;
    c.out[0].shape = (lg_dims){so, 4};
    EXPECT_F32(&c, LG_PREC_F32, wb, 0);
    /* BOOL and INT64 payloads, same shapes */
    const uint8_t bx[2] = {1, 1}, by[2] = {0, 0}, bc[2] = {0, 1};
    c.in[0] = IN_T(LG_BOOL, LG_DIMS(2), bc);
    c.in[1] = IN_T(LG_BOOL, LG_DIMS(2), bx);
    c.in[2] = IN_T(LG_BOOL, LG_DIMS(2), by);
    c.out[0].type = LG_BOOL;
    c.out[0].shape = LG_DIMS(2);
    const int64_t wbool[2] = {0, 1};
    EXPECT_INT(&c, LG_PREC_F32, LG_BOOL, wbool);
    const int64_t lx[2] = {(int64_t)1 << 50, 2}, ly[2] = {-1, -2};
    c.in[1] = IN_T(LG_INT64, LG_DIMS(2), lx);
    c.in[2] = IN_T(LG_INT64, LG_DIMS(2), ly);
    c.out[0].type = LG_INT64;
    const int64_t wl[2] = {-1, 2};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT64, wl);
    /* x and y of different types */
    c.in[2] = IN_T(LG_INT32, LG_DIMS(2), x);
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "but y");
}

/* ------------------------------------------------------------------ CAST */

LG_TEST(k_elementwise_cast_float_to_int_truncates_and_saturates) {
    const float x[7] = {2.7f, -2.7f, NAN, 3e9f, -3e9f, 300, -1};
    kt_op c = un(LG_OP_CAST, IN_F(LG_DIMS(7), x), LG_INT32, LG_DIMS(7));
    const int64_t i32[7] = {2, -2, 0, INT32_MAX, INT32_MIN, 300, -1};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, i32);
    /* narrower types keep the low bits of the (saturated) 32-bit value: 300 -> 44, -1 -> 255 */
    c.out[0].type = LG_UINT8;
    const int64_t u8[7] = {2, 254, 0, 255, 0, 44, 255};
    EXPECT_INT(&c, LG_PREC_F32, LG_UINT8, u8);
    c.out[0].type = LG_INT8;
    const int64_t i8[7] = {2, -2, 0, -1, 0, 44, -1};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT8, i8);
    c.out[0].type = LG_INT64;
    const int64_t i64[7] = {2, -2, 0, 3000000000LL, -3000000000LL, 300, -1};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT64, i64);
    c.out[0].type = LG_BOOL;
    const int64_t bl[7] = {1, 1, 1, 1, 1, 1, 1}; /* NaN != 0 */
    EXPECT_INT(&c, LG_PREC_F32, LG_BOOL, bl);
    c.out[0].type = LG_UINT32;
    const int64_t u32[7] = {2, 0, 0, 3000000000LL, 0, 300, 0};
    EXPECT_INT(&c, LG_PREC_F32, LG_UINT32, u32);
}

LG_TEST(k_elementwise_cast_int_to_float_and_int) {
    const int64_t x[4] = {((int64_t)1 << 24) + 1, -3, ((int64_t)1 << 32) + 5, 200};
    kt_op c = un(LG_OP_CAST, IN_T(LG_INT64, LG_DIMS(4), x), LG_FLOAT32, LG_DIMS(4));
    /* 2^24 + 1 rounds to nearest even: 2^24 */
    const float wf[4] = {16777216.0f, -3, 4294967301.0f, 200};
    EXPECT_F32(&c, LG_PREC_F32, wf, 0);
    c.out[0].type = LG_INT32;
    const int64_t w32[4] = {((int64_t)1 << 24) + 1, -3, 5, 200}; /* low 32 bits */
    EXPECT_INT(&c, LG_PREC_F32, LG_INT32, w32);
    c.out[0].type = LG_INT8;
    const int64_t w8[4] = {1, -3, 5, -56}; /* 200 - 256 */
    EXPECT_INT(&c, LG_PREC_F32, LG_INT8, w8);
    const uint8_t b[3] = {0, 1, 7};
    c = un(LG_OP_CAST, IN_T(LG_BOOL, LG_DIMS(3), b), LG_FLOAT32, LG_DIMS(3));
    const float wb[3] = {0, 1, 1};
    EXPECT_F32(&c, LG_PREC_F32, wb, 0);
    const int32_t i[3] = {0, -5, 9};
    c = un(LG_OP_CAST, IN_T(LG_INT32, LG_DIMS(3), i), LG_BOOL, LG_DIMS(3));
    const int64_t wi[3] = {0, 1, 1};
    EXPECT_INT(&c, LG_PREC_F32, LG_BOOL, wi);
    /* FLOAT64 is not held exactly */
    c.out[0].type = LG_FLOAT64;
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "FLOAT64");
}

LG_TEST(k_elementwise_cast_to_float16_rounds_in_every_mode) {
    /* 1/3 -> 0x3555 = 0.333251953125; 65519 -> 65504 (below the halfway point 65520);
       70000 -> inf; 2049 -> 2048 (tie to even) */
    const float x[4] = {1.0f / 3.0f, 65519, 70000, 2049};
    kt_op c = un(LG_OP_CAST, IN_F(LG_DIMS(4), x), LG_FLOAT16, LG_DIMS(4));
    const float want[4] = {0.333251953125f, 65504, INFINITY, 2048};
    for (int p = 0; p < 3; p++) EXPECT_F32(&c, all_prec[p], want, 0);
    /* and back: FLOAT16 -> FLOAT32 keeps the half values */
    c = un(LG_OP_CAST, IN_T(LG_FLOAT16, LG_DIMS(4), x), LG_FLOAT32, LG_DIMS(4));
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
    const int32_t i[2] = {2049, 70000};
    c = un(LG_OP_CAST, IN_T(LG_INT32, LG_DIMS(2), i), LG_FLOAT16, LG_DIMS(2));
    const float wi[2] = {2048, INFINITY};
    EXPECT_F32(&c, LG_PREC_F32, wi, 0);
}

/* ------------------------------------------------------------------ ZEROS_LIKE */

LG_TEST(k_elementwise_zeros_like) {
    const float x[3] = {1, NAN, -2};
    kt_op c = un(LG_OP_ZEROS_LIKE, IN_F(LG_DIMS(3), x), LG_FLOAT32, LG_DIMS(3));
    const float w[3] = {0, 0, 0};
    EXPECT_F32(&c, LG_PREC_F32, w, 0);
    const int64_t l[2] = {5, -5};
    c = un(LG_OP_ZEROS_LIKE, IN_T(LG_INT64, LG_DIMS(2), l), LG_INT64, LG_DIMS(2));
    const int64_t wl[2] = {0, 0};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT64, wl);
    c = un(LG_OP_ZEROS_LIKE, IN_F(LG_DIMS(0), NULL), LG_FLOAT32, LG_DIMS(0));
    kt_model r;
    if (RUN_OK(&c, LG_PREC_F32, &r)) {
        CHECK_EQ_INT(kt_out(&r, 0).numel, 0);
        kt_free(&r);
    }
}

/* ------------------------------------------------------------------ DEQUANTIZE / QUANTIZE */

LG_TEST(k_elementwise_dequantize_per_tensor) {
    /* (q - zp) * scale: int8 scale 0.5 zp -1; uint8 scale 0.25 zp 128; int16 scale 1/1024 zp 0 */
    const int8_t q8[4] = {-128, -1, 0, 127};
    const float s8[1] = {0.5f};
    const int64_t z8[1] = {-1};
    kt_op c = un(LG_OP_DEQUANTIZE, (kt_tensor){LG_INT8, LG_DIMS(4), q8, 1, s8, z8, 1, 0}, LG_FLOAT32, LG_DIMS(4));
    const float w8[4] = {-63.5f, 0, 0.5f, 64};
    EXPECT_F32(&c, LG_PREC_F32, w8, 0);
    c.in[0].is_const = 0; /* a runtime input takes the same path */
    EXPECT_F32(&c, LG_PREC_F32, w8, 0);
    const uint8_t qu[3] = {0, 128, 255};
    const float su[1] = {0.25f};
    const int64_t zu[1] = {128};
    c = un(LG_OP_DEQUANTIZE, (kt_tensor){LG_UINT8, LG_DIMS(3), qu, 1, su, zu, 1, 0}, LG_FLOAT32, LG_DIMS(3));
    const float wu[3] = {-32, 0, 31.75f};
    EXPECT_F32(&c, LG_PREC_F32, wu, 0);
    const int16_t q16[3] = {-32768, 1, 32767};
    const float s16[1] = {1.0f / 1024};
    c = un(LG_OP_DEQUANTIZE, (kt_tensor){LG_INT16, LG_DIMS(3), q16, 1, s16, NULL, 1, 0}, LG_FLOAT32, LG_DIMS(3));
    const float w16[3] = {-32, 1.0f / 1024, 32767.0f / 1024};
    EXPECT_F32(&c, LG_PREC_F32, w16, 0);
    /* without a scale the model is malformed */
    c.in[0].nq = 0;
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "no quantization scale");
}

LG_TEST(k_elementwise_dequantize_per_channel) {
    /* weights [2,3] quantized along dimension 1 (3 channels), 17 x 3 along dimension 0 */
    const int8_t q[6] = {1, 2, 3, -1, -2, -3};
    const float sc[3] = {1, 0.5f, 0.25f};
    const int64_t zp[3] = {0, 2, -1};
    kt_op c = un(LG_OP_DEQUANTIZE, (kt_tensor){LG_INT8, LG_DIMS(2, 3), q, 1, sc, zp, 3, 1}, LG_FLOAT32, LG_DIMS(2, 3));
    const float want[6] = {1, 0, 1, -1, -2, -0.5f};
    EXPECT_F32(&c, LG_PREC_F32, want, 0);
    int8_t q2[17 * 3];
    float w2[17 * 3];
    const float sc2[17] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
    for (int i = 0; i < 17 * 3; i++) {
        q2[i] = (int8_t)(i - 25);
        w2[i] = (float)(i - 25) * sc2[i / 3];
    }
    c = un(LG_OP_DEQUANTIZE, (kt_tensor){LG_INT8, LG_DIMS(17, 3), q2, 1, sc2, NULL, 17, 0}, LG_FLOAT32, LG_DIMS(17, 3));
    EXPECT_F32(&c, LG_PREC_F32, w2, 0);
}

LG_TEST(k_elementwise_dequantize_float16) {
    /* FLOAT16 weights: 0x3C00 = 1, 0x3555 = 0.333251953125, 0x7BFF = 65504, 0xFC00 = -inf,
       0x0001 = 2^-24 (the smallest subnormal) */
    const uint16_t h[5] = {0x3C00, 0x3555, 0x7BFF, 0xFC00, 0x0001};
    kt_op c = un(LG_OP_DEQUANTIZE, CONST_T(LG_FLOAT16, LG_DIMS(5), h), LG_FLOAT32, LG_DIMS(5));
    const float want[5] = {1, 0.333251953125f, 65504, -INFINITY, 5.9604644775390625e-8f};
    for (int p = 0; p < 3; p++) EXPECT_F32(&c, all_prec[p], want, 0);
    /* a runtime FLOAT16 input holds halves even in LG_PREC_F32 */
    const float f[2] = {1.0f / 3.0f, 2049};
    c = un(LG_OP_DEQUANTIZE, IN_T(LG_FLOAT16, LG_DIMS(2), f), LG_FLOAT32, LG_DIMS(2));
    const float wf[2] = {0.333251953125f, 2048};
    EXPECT_F32(&c, LG_PREC_F32, wf, 0);
    const int32_t i[1] = {0};
    c = un(LG_OP_DEQUANTIZE, IN_T(LG_INT32, LG_DIMS(1), i), LG_FLOAT32, LG_DIMS(1));
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "INT32");
}

LG_TEST(k_elementwise_quantize_rounds_half_away_and_clamps) {
    /* scale 0.5, zp 0: 1.25/0.5 = 2.5 -> 3 (away from zero), -2.5 -> -3, 0.74/0.5 = 1.48 -> 1,
       100 -> 127, -100 -> -128, NaN -> 0 */
    const float x[6] = {1.25f, -1.25f, 0.74f, 100, -100, NAN};
    const float sc[1] = {0.5f};
    const int64_t zp[1] = {0};
    kt_op c = un(LG_OP_QUANTIZE, IN_F(LG_DIMS(6), x), LG_INT8, LG_DIMS(6));
    c.out[0].scale = sc;
    c.out[0].zp = zp;
    c.out[0].nq = 1;
    const int64_t w8[6] = {3, -3, 1, 127, -128, 0};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT8, w8);
    /* uint8 with zero point 128 */
    const int64_t zu[1] = {128};
    c.out[0].type = LG_UINT8;
    c.out[0].zp = zu;
    const int64_t wu[6] = {131, 125, 129, 255, 0, 0};
    EXPECT_INT(&c, LG_PREC_F32, LG_UINT8, wu);
    c.out[0].type = LG_INT16;
    c.out[0].zp = zp;
    const int64_t w16[6] = {3, -3, 1, 200, -200, 0};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT16, w16);
    /* per channel along dimension 1: scales (1, 0.1) */
    const float x2[4] = {1.5f, 0.25f, -2.5f, -0.05f};
    const float sc2[2] = {1, 0.1f};
    const int64_t zp2[2] = {0, 10};
    c = un(LG_OP_QUANTIZE, IN_F(LG_DIMS(2, 2), x2), LG_INT8, LG_DIMS(2, 2));
    c.out[0].scale = sc2;
    c.out[0].zp = zp2;
    c.out[0].nq = 2;
    c.out[0].qdim = 1;
    /* in float: 1.5 -> 2; 0.25f/0.1f = 2.5 -> 3, + 10; -2.5 -> -3; -0.05f/0.1f = -0.5 -> -1, + 10 */
    const int64_t wc[4] = {2, 13, -3, 9};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT8, wc);
}

LG_TEST(k_elementwise_quantize_refusals) {
    const int8_t q[2] = {0};
    const float sc[1] = {0.5f};
    kt_op c = un(LG_OP_QUANTIZE, (kt_tensor){LG_INT8, LG_DIMS(2), q, 0, sc, NULL, 1, 0}, LG_INT8, LG_DIMS(2));
    c.out[0].scale = sc;
    c.out[0].nq = 1;
    /* requantization (int8 -> int8) runs the integer kernel (k_quant_ew.c) */
    const int64_t same[2] = {0, 0};
    EXPECT_INT(&c, LG_PREC_F32, LG_INT8, same);
    const float x[2] = {0};
    c = un(LG_OP_QUANTIZE, IN_F(LG_DIMS(2), x), LG_INT8, LG_DIMS(2));
    EXPECT_FAIL(&c, LG_ERR_FORMAT, "no quantization scale");
    c.out[0].type = LG_INT32;
    EXPECT_FAIL(&c, LG_ERR_UNSUPPORTED, "INT32");
}
