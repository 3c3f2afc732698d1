/* The hybrid kernels (src/run/k_hybrid.c): float activations with INT8 constant weights.
 * The input quantizers with hand-derived values (TFLite's symmetric and asymmetric forms,
 * XNNPACK's qd8), then one-op models through the interpreter in both arithmetics: the int32
 * sums are derived here by hand, the float scaling is written out as each runtime orders it
 * (k_hybrid.h), so a kernel that rounds in another order or quantizes another way fails. */
#include <string.h>

#include "lg/lg.h"
#include "lg/run.h"
#include "run/k_hybrid.h"
#include "kt.h"
#include "tf.h"

/* ------------------------------------------------------------------ quantizers */

LG_TEST(k_hybrid_symmetric_quantizer) {
    /* range 1 -> scale 1/127, q = round_half_away(x * 127): 63.5 -> 64, -31.75 -> -32 */
    const float x[4] = {0.5f, -1.0f, -0.25f, 0.0f};
    int8_t q[4];
    float s = 0;
    lgh_quantize_sym(x, 4, q, &s);
    CHECK(s == 1.0f / 127.0f);
    CHECK_EQ_INT(q[0], 64);
    CHECK_EQ_INT(q[1], -127);
    CHECK_EQ_INT(q[2], -32);
    CHECK_EQ_INT(q[3], 0);
    /* an all-zero row: q = 0, scale 1 */
    const float z[3] = {0, 0, 0};
    int8_t qz[3] = {5, 5, 5};
    lgh_quantize_sym(z, 3, qz, &s);
    CHECK(s == 1.0f);
    CHECK(qz[0] == 0 && qz[1] == 0 && qz[2] == 0);
}

LG_TEST(k_hybrid_tflite_asymmetric_quantizer) {
    /* x in [-1, 3]: scale 4/255, zero point from min -128 + 63.75 = -64.25 (error 191.75 <
       318.25 from max) -> -64; q(-1) = round(-64 - 63.75) = -128, q(3) = round(-64 + 191.25)
       = 127, q(0) = -64 */
    const float x[3] = {-1.0f, 3.0f, 0.0f};
    int8_t q[3];
    float s = 0;
    int32_t zp = 0;
    lgh_quantize_asym(x, 3, q, &s, &zp);
    CHECK(s == (float)(4.0 / 255.0));
    CHECK_EQ_INT(zp, -64);
    CHECK_EQ_INT(q[0], -128);
    CHECK_EQ_INT(q[1], 127);
    CHECK_EQ_INT(q[2], -64);
    /* x in [0, 1]: zero point -128, q(0.5) = round(-128 + 127.5) = round(-0.5) = -1 (half away) */
    const float p[3] = {0.0f, 1.0f, 0.5f};
    lgh_quantize_asym(p, 3, q, &s, &zp);
    CHECK_EQ_INT(zp, -128);
    CHECK_EQ_INT(q[0], -128);
    CHECK_EQ_INT(q[1], 127);
    CHECK_EQ_INT(q[2], -1);
    /* all zero: q = 0, scale 1, zero point 0 */
    const float z[2] = {0, 0};
    lgh_quantize_asym(z, 2, q, &s, &zp);
    CHECK(s == 1.0f);
    CHECK_EQ_INT(zp, 0);
    CHECK(q[0] == 0 && q[1] == 0);
}

LG_TEST(k_hybrid_xnnpack_qd8_quantizer) {
    /* [-1, 3]: inv = 255 / 4 = 63.75, (-128 - 63.75) + (127 + 191.25) > 0 -> zp = -128 +
       63.75 = -64.25 -> lrintf -64; q = rint(x * 63.75) - 64 */
    const float x[3] = {-1.0f, 3.0f, 0.0f};
    int8_t q[3];
    float s = 0;
    int32_t zp = 0;
    lgh_quantize_xnn(x, 3, q, &s, &zp);
    CHECK(s == 1.0f / 63.75f);
    CHECK_EQ_INT(zp, -64);
    CHECK_EQ_INT(q[0], -128);
    CHECK_EQ_INT(q[1], 127); /* rint(191.25) - 64 = 127 */
    CHECK_EQ_INT(q[2], -64);
    /* [0, 1]: q(0.5) = rint(127.5) - 128 = 0 (ties to even), where TFLite gives -1 */
    const float p[3] = {0.0f, 1.0f, 0.5f};
    lgh_quantize_xnn(p, 3, q, &s, &zp);
    CHECK_EQ_INT(zp, -128);
    CHECK_EQ_INT(q[1], 127);
    CHECK_EQ_INT(q[2], 0);
    /* [0, 255/256]: inv = 256 exactly, zp -128; 2.5/256 * 256 = 2.5 rounds to even (2), not
       away from zero (3): q = 2 - 128 */
    const float r[3] = {0.0f, 255.0f / 256.0f, 2.5f / 256.0f};
    lgh_quantize_xnn(r, 3, q, &s, &zp);
    CHECK(s == 1.0f / 256.0f);
    CHECK_EQ_INT(zp, -128);
    CHECK_EQ_INT(q[1], 127);
    CHECK_EQ_INT(q[2], -126);
    /* [-0.5, 0]: inv 510, (-128 - 255) + 127 < 0 -> zp = 127 - 0 = 127, q(-0.5) = -255 + 127 */
    const float n[1] = {-0.5f};
    lgh_quantize_xnn(n, 1, q, &s, &zp);
    CHECK_EQ_INT(zp, 127);
    CHECK_EQ_INT(q[0], -128);
    /* all zero: inv 1, zp = 127 (the sum -1 is not > 0), q = 127: (q - zp) = 0 */
    const float z[2] = {0, 0};
    lgh_quantize_xnn(z, 2, q, &s, &zp);
    CHECK(s == 1.0f);
    CHECK_EQ_INT(zp, 127);
    CHECK(q[0] == 127 && q[1] == 127);
}

/* ------------------------------------------------------------------ one-op models */

static kt_tensor w8(lg_dims shape, const int8_t *data, const float *scale, const int64_t *zp, uint32_t nq, int32_t qdim) {
    kt_tensor k = KT_CONST(LG_INT8, shape, data);
    k.scale = scale;
    k.zp = zp;
    k.nq = nq;
    k.qdim = qdim;
    return k;
}

static const int64_t zeros[4] = {0, 0, 0, 0};

/* run c in arithmetic a; output 0 must have exactly the bits of want */
static void expect_bits(const char *file, int line, const kt_op *c, lg_int_arith a, const float *want, int64_t n) {
    kt_model t;
    kt_init(&t);
    kt_add_op(&t, c);
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.int_arith = a;
    lg_error err;
    lg_interp *it = NULL;
    if (t.st != LG_OK) {
        tf_fail(file, line, "build failed: %s", t.err.msg);
    } else if (lg_interp_create(t.m, &ro, &it, &err) != LG_OK) {
        tf_fail(file, line, "%s: create failed: %s", lg_int_arith_name(a), err.msg);
    } else {
        int ok = 1;
        for (uint32_t i = 0; ok && i < lg_interp_n_inputs(it); i++) {
            lg_tensor_view v;
            lg_interp_input(it, i, &v);
            ok = lg_interp_set_input(it, i, v.type, t.in_data[i], v.nbytes, &err) == LG_OK;
        }
        if (ok) ok = lg_interp_invoke(it, &err) == LG_OK;
        if (!ok) {
            tf_fail(file, line, "%s: run failed: %s", lg_int_arith_name(a), err.msg);
        } else {
            lg_tensor_view v;
            lg_interp_output(it, 0, &v);
            kt_check_view_f32(file, line, lg_int_arith_name(a), &v, want, n, 0, KT_BITS);
        }
    }
    lg_interp_free(it);
    kt_free(&t);
}
#define EXPECT_BITS(c, a, want) expect_bits(__FILE__, __LINE__, (c), (a), (want), (int64_t)(sizeof(want) / sizeof((want)[0])))

/* One output element as a runtime forms it from the int32 sum acc, the input scale s, the
   channel's weight scale ws and the bias b, in one of the orders of k_hybrid.h:
   OA b + acc * (s * ws)    OB acc * ws * s + b    OC acc * s * ws + b */
typedef struct ex {
    int32_t acc;
    float s, ws, b;
} ex;
enum { OA, OB, OC };
static float in_order(int o, const ex *e) {
    if (o == OA) return e->b + (float)e->acc * (e->s * e->ws);
    if (o == OB) return (float)e->acc * e->ws * e->s + e->b;
    return (float)e->acc * e->s * e->ws + e->b;
}

/* Output 0 of c in arithmetic a must be e[] formed in order o, bit for bit; the values must
   tell o from at least one other order (else the test could not fail on a wrong order; the
   values are chosen so that, over the tests, each kernel's order is told from the others). */
static void expect_order(const char *file, int line, const kt_op *c, lg_int_arith a, int o, const ex *e, int n) {
    float want[8], alt[8];
    for (int i = 0; i < n; i++) want[i] = in_order(o, &e[i]);
    int differ = 0;
    for (int o2 = OA; o2 <= OC; o2++) {
        if (o2 == o) continue;
        for (int i = 0; i < n; i++) {
            alt[i] = in_order(o2, &e[i]);
            if (memcmp(&alt[i], &want[i], sizeof(float)) != 0) differ = 1;
        }
    }
    if (!differ) tf_fail(file, line, "the values do not tell order %d from the others", o);
    expect_bits(file, line, c, a, want, n);
}
#define EXPECT_ORDER(c, a, o, e) expect_order(__FILE__, __LINE__, (c), (a), (o), (e), (int)(sizeof(e) / sizeof((e)[0])))

/* FULLY_CONNECTED, weights w0 = {1, 2, 3, 4}, w1 = {-1, 0, 1, 2}, bias {0.1, -0.2},
   x = {1, 0.5, -0.25, 0}. Each test picks weight scales (not powers of two) under which the
   three rounding orders give different bits for its sums. */
static const int8_t fc_w[8] = {1, 2, 3, 4, -1, 0, 1, 2};
static const float fc_ws[2] = {0.3f, 0.35f};
static const float fc_b[2] = {0.1f, -0.2f};

/* a macro, not a function: the LG_DIMS shapes are compound literals of the caller's block */
#define FC_OP(x, o, ws, nq) {LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, (o), 3, {   \
        KT_IN(LG_FLOAT32, LG_DIMS(1, 4), (x)),                                               \
        w8(LG_DIMS(2, 4), fc_w, (ws), zeros, (nq), 0),                                       \
        KT_CONST(LG_FLOAT32, LG_DIMS(2), fc_b),                                              \
    }, 1, {KT_OUT(LG_FLOAT32, LG_DIMS(1, 2))}}

LG_TEST(k_hybrid_fc_symmetric_inputs) {
    /* symmetric: scale 1/127, q = {127, 64, -32, 0}; acc0 = 127 + 128 - 96 = 159,
       acc1 = -127 - 32 = -159; TFLite: y = b + acc * (s * ws) */
    const float x[4] = {1.0f, 0.5f, -0.25f, 0.0f};
    lg_fully_connected_options o;
    memset(&o, 0, sizeof o);
    const float ws[2] = {0.01f, 0.14f};
    kt_op c = FC_OP(x, &o, ws, 2);
    const float s = 1.0f / 127.0f;
    const ex tfl[2] = {{159, s, 0.01f, 0.1f}, {-159, s, 0.14f, -0.2f}};
    EXPECT_ORDER(&c, LG_INT_TFLITE, OA, tfl);
    /* per tensor (one scale 0.07): the same sums, both channels at 0.07 */
    const float ws1[1] = {0.07f};
    kt_op pt = FC_OP(x, &o, ws1, 1);
    const ex tfl_pt[2] = {{159, s, 0.07f, 0.1f}, {-159, s, 0.07f, -0.2f}};
    EXPECT_ORDER(&pt, LG_INT_TFLITE, OA, tfl_pt);
    /* XNNPACK quantizes asymmetrically whatever the option: [-0.25, 1], inv = 204, zp -77,
       q - zp = {204, 102, -51, 0}: acc0 = 204 + 204 - 153 = 255, acc1 = -204 - 51 = -255;
       y = acc * (1/204) * ws + b */
    const float xs = 1.0f / 204.0f;
    const ex xnn[2] = {{255, xs, 0.01f, 0.1f}, {-255, xs, 0.14f, -0.2f}};
    EXPECT_ORDER(&c, LG_INT_XNNPACK, OC, xnn);
}

LG_TEST(k_hybrid_fc_asymmetric_inputs) {
    /* TFLite asymmetric, [-0.25, 1]: scale 1.25/255, zp -77, q = {127, 25, -128, -77}; the
       sums with the row sums (10, 2): acc0 = 127 + 50 - 384 - 308 - 10 * -77 = 255,
       acc1 = -127 - 128 - 154 - 2 * -77 = -255 */
    const float x[4] = {1.0f, 0.5f, -0.25f, 0.0f};
    lg_fully_connected_options o;
    memset(&o, 0, sizeof o);
    o.asymmetric_quantize_inputs = true;
    const float ws[2] = {0.02f, 0.26f};
    kt_op c = FC_OP(x, &o, ws, 2);
    const float s = (float)(1.25 / 255.0);
    const ex tfl[2] = {{255, s, 0.02f, 0.1f}, {-255, s, 0.26f, -0.2f}};
    EXPECT_ORDER(&c, LG_INT_TFLITE, OA, tfl);
    /* a tie: x = {1, 0.5, 0, 0} in [0, 1] (zp -128): TFLite q(0.5) = -1, XNNPACK 0, so
       acc0 = 255 + 2 * 127 = 509 against 255 + 2 * 128 = 511; acc1 = -255 in both (w1 reads
       0 at the tie) */
    const float t[4] = {1.0f, 0.5f, 0.0f, 0.0f};
    kt_op ct = FC_OP(t, &o, ws, 2);
    const float st = (float)(1.0 / 255.0), sx = 1.0f / 255.0f;
    const ex tfl_t[2] = {{509, st, 0.02f, 0.1f}, {-255, st, 0.26f, -0.2f}};
    const ex xnn_t[2] = {{511, sx, 0.02f, 0.1f}, {-255, sx, 0.26f, -0.2f}};
    EXPECT_ORDER(&ct, LG_INT_TFLITE, OA, tfl_t);
    EXPECT_ORDER(&ct, LG_INT_XNNPACK, OC, xnn_t);
}

LG_TEST(k_hybrid_fc_zero_row_and_activation) {
    /* an all-zero input: every form gives the bias; RELU clamps the negative one */
    const float x[4] = {0, 0, 0, 0};
    lg_fully_connected_options o;
    memset(&o, 0, sizeof o);
    o.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU;
    kt_op c = FC_OP(x, &o, fc_ws, 2);
    const float want[2] = {0.1f, 0.0f};
    EXPECT_BITS(&c, LG_INT_TFLITE, want);
    EXPECT_BITS(&c, LG_INT_XNNPACK, want);
    o.asymmetric_quantize_inputs = true;
    EXPECT_BITS(&c, LG_INT_TFLITE, want);
    /* TFLite copies the bias for an all-zero input (IsZeroVector) where the sums would add
       +0: a bias of -0 stays -0; XNNPACK adds 0 * s * ws = +0 to it: +0 */
    const float b0[2] = {-0.0f, 0.5f};
    kt_op cz = FC_OP(x, &o, fc_ws, 2);
    cz.in[2] = KT_CONST(LG_FLOAT32, LG_DIMS(2), b0);
    const float want_tfl[2] = {-0.0f, 0.5f}, want_xnn[2] = {0.0f, 0.5f};
    EXPECT_BITS(&cz, LG_INT_TFLITE, want_tfl);
    EXPECT_BITS(&cz, LG_INT_XNNPACK, want_xnn);
    /* near miss: one non-zero value and the sums are not 0 any more (x = {0, 0, 0, 1}:
       symmetric q = {0, 0, 0, 127}, acc = {508, 254}) */
    const float x1[4] = {0, 0, 0, 1.0f};
    o.asymmetric_quantize_inputs = false;
    o.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_NONE;
    const float ws1[2] = {0.01f, 0.31f};
    kt_op c1 = FC_OP(x1, &o, ws1, 2);
    const ex tfl1[2] = {{508, 1.0f / 127.0f, 0.01f, 0.1f}, {254, 1.0f / 127.0f, 0.31f, -0.2f}};
    EXPECT_ORDER(&c1, LG_INT_TFLITE, OA, tfl1);
}

LG_TEST(k_hybrid_fc_per_row_and_keep_num_dims) {
    /* two rows quantized apart: row 0 as in k_hybrid_fc_symmetric_inputs (acc 159, -159),
       row 1 = 2 * row 0 (range 2, scale 2/127, the same q, the same sums); no bias (0);
       keep_num_dims gives [2, 1, 2] */
    const float x[8] = {1.0f, 0.5f, -0.25f, 0.0f, 2.0f, 1.0f, -0.5f, 0.0f};
    lg_fully_connected_options o;
    memset(&o, 0, sizeof o);
    o.keep_num_dims = true;
    const float ws[2] = {0.01f, 0.01f};
    kt_op c = {LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &o, 2, {
        KT_IN(LG_FLOAT32, LG_DIMS(2, 1, 4), x),
        w8(LG_DIMS(2, 4), fc_w, ws, zeros, 2, 0),
    }, 1, {KT_OUT(LG_FLOAT32, LG_DIMS(2, 1, 2))}};
    const float s0 = 1.0f / 127.0f, s1 = 2.0f / 127.0f;
    const ex tfl[4] = {{159, s0, 0.01f, 0}, {-159, s0, 0.01f, 0}, {159, s1, 0.01f, 0}, {-159, s1, 0.01f, 0}};
    EXPECT_ORDER(&c, LG_INT_TFLITE, OA, tfl);
}

LG_TEST(k_hybrid_refuses_asymmetric_weights) {
    const float x[4] = {1, 0, 0, 0};
    lg_fully_connected_options o;
    memset(&o, 0, sizeof o);
    kt_op c = FC_OP(x, &o, fc_ws, 2);
    const int64_t zp[2] = {0, 3};
    c.in[1].zp = zp;
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_UNSUPPORTED, "zero point 3");
}

/* CONV_2D 1x1, one input channel, two output channels w = {2, -3}, a 1x2 image x = {1, -0.5},
   bias {0.25, -0.5}. */
static const int8_t cv_w[2] = {2, -3};
static const float cv_b[2] = {0.25f, -0.5f};

#define CONV_OP(o, x, ws, nq) {LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, (o), 3, {                 \
        KT_IN(LG_FLOAT32, LG_DIMS(1, 1, 2, 1), (x)),                                         \
        w8(LG_DIMS(2, 1, 1, 1), cv_w, (ws), zeros, (nq), 0),                                 \
        KT_CONST(LG_FLOAT32, LG_DIMS(2), cv_b),                                              \
    }, 1, {KT_OUT(LG_FLOAT32, LG_DIMS(1, 1, 2, 2))}}

LG_TEST(k_hybrid_conv_per_channel_and_per_tensor) {
    const float x[2] = {1.0f, -0.5f};
    lg_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_VALID;
    o.stride_w = o.stride_h = 1;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    /* per channel (scales differ): TFLite asymmetric per image, [-0.5, 1]: scale 1.5/255,
       zp -43, q - zp = {170, -85}; acc = {340, -510} at pixel 0, {-170, 255} at pixel 1;
       y = acc * ws * s + b */
    const float ws[2] = {0.05f, 0.17f};
    kt_op c = CONV_OP(&o, x, ws, 2);
    const float s = (float)(1.5 / 255.0);
    const ex tfl[4] = {{340, s, 0.05f, 0.25f}, {-510, s, 0.17f, -0.5f}, {-170, s, 0.05f, 0.25f}, {255, s, 0.17f, -0.5f}};
    EXPECT_ORDER(&c, LG_INT_TFLITE, OB, tfl);
    /* XNNPACK: a 1x1 convolution is a fully connected op quantized per pixel: pixel 0 in
       [0, 1] (inv 255, zp -128, q - zp = 255), pixel 1 in [-0.5, 0] (inv 510, zp 127,
       q - zp = -255): acc = {510, -765}, {-510, 765}; y = acc * s_pixel * ws + b */
    const float s0 = 1.0f / 255.0f, s1 = 1.0f / 510.0f;
    const ex xnn[4] = {{510, s0, 0.05f, 0.25f}, {-765, s0, 0.17f, -0.5f}, {-510, s1, 0.05f, 0.25f}, {765, s1, 0.17f, -0.5f}};
    EXPECT_ORDER(&c, LG_INT_XNNPACK, OC, xnn);
    /* equal scales: TFLite's per-tensor EvalHybrid, symmetric per image (range 1, scale
       1/127, q = {127, -64}): acc = {254, -381}, {-128, 192}; y = b + acc * (s * ws) */
    const float same[2] = {0.11f, 0.11f};
    kt_op p = CONV_OP(&o, x, same, 2);
    const float sp = 1.0f / 127.0f;
    const ex tfl_pt[4] = {{254, sp, 0.11f, 0.25f}, {-381, sp, 0.11f, -0.5f}, {-128, sp, 0.11f, 0.25f}, {192, sp, 0.11f, -0.5f}};
    EXPECT_ORDER(&p, LG_INT_TFLITE, OA, tfl_pt);
}

LG_TEST(k_hybrid_conv_padding_is_a_real_zero) {
    /* a 1x2 kernel w = {1, 1} on the 1x2 image {1, -0.5}, SAME (pad right): pixel 1's second
       tap is padding. XNNPACK keeps the per-image form for a 1x2 kernel: [-0.5, 1], inv =
       170, zp -43, q - zp = {170, -85}: out0 = 170 - 85 = 85, out1 = -85 (the pad adds 0, not
       -zp); TFLite per tensor: symmetric q = {127, -64}: out0 = 63, out1 = -64 */
    const float x[2] = {1.0f, -0.5f};
    const int8_t w[2] = {1, 1};
    const float ws[1] = {0.89f};
    const float b[1] = {0.1f};
    lg_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 1;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    kt_op c = {LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &o, 3, {
        KT_IN(LG_FLOAT32, LG_DIMS(1, 1, 2, 1), x),
        w8(LG_DIMS(1, 1, 2, 1), w, ws, zeros, 1, 0),
        KT_CONST(LG_FLOAT32, LG_DIMS(1), b),
    }, 1, {KT_OUT(LG_FLOAT32, LG_DIMS(1, 1, 2, 1))}};
    const float sx = 1.0f / 170.0f;
    const ex xnn[2] = {{85, sx, 0.89f, 0.1f}, {-85, sx, 0.89f, 0.1f}};
    EXPECT_ORDER(&c, LG_INT_XNNPACK, OC, xnn);
    const float sp = 1.0f / 127.0f;
    const ex tfl[2] = {{63, sp, 0.89f, 0.1f}, {-64, sp, 0.89f, 0.1f}};
    EXPECT_ORDER(&c, LG_INT_TFLITE, OA, tfl);
}

LG_TEST(k_hybrid_depthwise) {
    /* one channel, a 1x2 kernel w = {2, 3} (scale 0.05), SAME on {1, -0.5}: TFLite asymmetric
       per image (q - zp = {170, -85}): out0 = 340 - 255 = 85, out1 = -170 (pad skipped).
       Reference: y = b + acc * (ws * s); LiteRT.js (TFLite's optimized kernel, XNNPACK does
       not take it): y = acc * s * ws + b */
    const float x[2] = {1.0f, -0.5f};
    const int8_t w[2] = {2, 3};
    const float ws[1] = {0.05f};
    const float b[1] = {0.125f};
    lg_depthwise_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 1;
    o.dilation_w_factor = o.dilation_h_factor = 1;
    o.depth_multiplier = 1;
    kt_op c = {LG_OP_DEPTHWISE_CONV_2D, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o, 3, {
        KT_IN(LG_FLOAT32, LG_DIMS(1, 1, 2, 1), x),
        w8(LG_DIMS(1, 1, 2, 1), w, ws, zeros, 1, 3),
        KT_CONST(LG_FLOAT32, LG_DIMS(1), b),
    }, 1, {KT_OUT(LG_FLOAT32, LG_DIMS(1, 1, 2, 1))}};
    const float s = (float)(1.5 / 255.0);
    const ex e[2] = {{85, s, 0.05f, 0.125f}, {-170, s, 0.05f, 0.125f}};
    EXPECT_ORDER(&c, LG_INT_TFLITE, OA, e);
    EXPECT_ORDER(&c, LG_INT_XNNPACK, OC, e);
}

LG_TEST(k_hybrid_batch_matmul) {
    /* lhs [1, 2] = {1, 0.5} (asymmetric, [0, 1], zp -128), rhs [2, 2] = {{1, 2}, {3, -4}}
       per tensor (0.19): columns {1, 3} and {2, -4}. TFLite (q = {127, -1}): sums 124 and 258,
       minus row_sum * zp in float: 124 - 4 * -128 = 636, 258 - (-2 * -128) = 2;
       y = 0 + acc * (s * ws). XNNPACK (q - zp = {255, 128}): 255 + 384 = 639, 510 - 512 = -2. */
    const float x[2] = {1.0f, 0.5f};
    const int8_t w[4] = {1, 2, 3, -4};
    const float ws[1] = {0.19f};
    lg_batch_mat_mul_options o;
    memset(&o, 0, sizeof o);
    o.asymmetric_quantize_inputs = true;
    kt_op c = {LG_OP_BATCH_MATMUL, LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o, 2, {
        KT_IN(LG_FLOAT32, LG_DIMS(1, 2), x),
        w8(LG_DIMS(2, 2), w, ws, zeros, 1, 0),
    }, 1, {KT_OUT(LG_FLOAT32, LG_DIMS(1, 2))}};
    const float st = (float)(1.0 / 255.0), sx = 1.0f / 255.0f;
    const ex tfl[2] = {{636, st, 0.19f, 0}, {2, st, 0.19f, 0}};
    const ex xnn[2] = {{639, sx, 0.19f, 0}, {-2, sx, 0.19f, 0}};
    EXPECT_ORDER(&c, LG_INT_TFLITE, OA, tfl);
    EXPECT_ORDER(&c, LG_INT_XNNPACK, OC, xnn);
    /* adj_y: the rhs stored [n][k] = {{1, 3}, {2, -4}} is the same matrix */
    const int8_t wt[4] = {1, 3, 2, -4};
    o.adj_y = true;
    c.in[1] = w8(LG_DIMS(2, 2), wt, ws, zeros, 1, 0);
    EXPECT_ORDER(&c, LG_INT_TFLITE, OA, tfl);
    EXPECT_ORDER(&c, LG_INT_XNNPACK, OC, xnn);
    /* near miss: a per-channel rhs (one scale per output column) is refused here */
    const float ws2[2] = {0.3f, 0.7f};
    c.in[1] = w8(LG_DIMS(2, 2), wt, ws2, zeros, 2, 0);
    kt_expect_fail(__FILE__, __LINE__, &c, LG_PREC_F32, LG_ERR_UNSUPPORTED, "only per-tensor");
}

/* TFLite's BATCH_MATMUL subtracts row_sum * zp in float (batch_matmul.h: total -= row_sum *
   batch_offset, a float): past 2^24 the int32 sum is rounded. K = 2048, w = {1, 127, ..., 127}
   (row sum 1 + 2047 * 127 = 259970), x = {1, 0, ..., 0} ([0, 1]: zp -128, q = {127, -128,
   ...}): the sum is 127 - 128 * 2047 * 127 = 255 - 128 * 259970 = -33275905, which as a float
   is -33275904 (spacing 4), + 128 * 259970 = 33276160 gives 256, not the exact 255 that
   XNNPACK's int32 arithmetic keeps. */
static int8_t bmm_w[2048];
static float bmm_x[2048];
LG_TEST(k_hybrid_batch_matmul_float_offset) {
    for (int k = 0; k < 2048; k++) {
        bmm_w[k] = k == 0 ? 1 : 127;
        bmm_x[k] = k == 0 ? 1.0f : 0.0f;
    }
    const float ws[1] = {0.3f};
    lg_batch_mat_mul_options o;
    memset(&o, 0, sizeof o);
    o.asymmetric_quantize_inputs = true;
    kt_op c = {LG_OP_BATCH_MATMUL, LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o, 2, {
        KT_IN(LG_FLOAT32, LG_DIMS(1, 2048), bmm_x),
        w8(LG_DIMS(2048, 1), bmm_w, ws, zeros, 1, 0),
    }, 1, {KT_OUT(LG_FLOAT32, LG_DIMS(1, 1))}};
    const float st = (float)(1.0 / 255.0), sx = 1.0f / 255.0f;
    const float tfl[1] = {0.0f + 256.0f * (st * 0.3f)};
    const float xnn[1] = {255.0f * sx * 0.3f + 0.0f};
    EXPECT_BITS(&c, LG_INT_TFLITE, tfl);
    EXPECT_BITS(&c, LG_INT_XNNPACK, xnn);
    /* near miss: the FULLY_CONNECTED form of the same product keeps the int32 sum (255) */
    lg_fully_connected_options fo;
    memset(&fo, 0, sizeof fo);
    fo.asymmetric_quantize_inputs = true;
    kt_op f = {LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, 2, {
        KT_IN(LG_FLOAT32, LG_DIMS(1, 2048), bmm_x),
        w8(LG_DIMS(1, 2048), bmm_w, ws, zeros, 1, 0),
    }, 1, {KT_OUT(LG_FLOAT32, LG_DIMS(1, 1))}};
    const float tfl_fc[1] = {0.0f + 255.0f * (st * 0.3f)};
    EXPECT_BITS(&f, LG_INT_TFLITE, tfl_fc);
}

LG_TEST(k_hybrid_embedding_lookup) {
    /* rows {1, 2} * 0.5, {3, 4} * 0.25, {-5, 6} * 2; lookups {2, 0} */
    const int32_t ids[2] = {2, 0};
    const int8_t tab[6] = {1, 2, 3, 4, -5, 6};
    const float ts[3] = {0.5f, 0.25f, 2.0f};
    kt_op c = {LG_OP_EMBEDDING_LOOKUP, LG_OPTS_NONE, NULL, 2, {
        KT_CONST(LG_INT32, LG_DIMS(2), ids),
        w8(LG_DIMS(3, 2), tab, ts, zeros, 3, 0),
    }, 1, {KT_OUT(LG_FLOAT32, LG_DIMS(2, 2))}};
    const float want[4] = {-10.0f, 12.0f, 0.5f, 1.0f};
    EXPECT_BITS(&c, LG_INT_TFLITE, want);
    /* per tensor: one scale for every row */
    c.in[1] = w8(LG_DIMS(3, 2), tab, ts, zeros, 1, 0);
    const float want_pt[4] = {-2.5f, 3.0f, 0.5f, 1.0f};
    EXPECT_BITS(&c, LG_INT_XNNPACK, want_pt);
}
