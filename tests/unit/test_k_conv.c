/* The conv kernel family (src/run/k_conv*.c) through the public interpreter API: CONV_2D,
 * DEPTHWISE_CONV_2D, TRANSPOSE_CONV, Convolution2DTransposeBias, FULLY_CONNECTED,
 * BATCH_MATMUL, AVERAGE_POOL_2D, MAX_POOL_2D.
 *
 * Goldens are either worked out by hand (small cases, the arithmetic in the comments) or
 * computed by naive loops written here from TFLite's reference semantics: scalar, scattered
 * or gathered differently from the kernels, double accumulation for fp32; for LG_PREC_F16 the
 * naive loops round every multiply-add (h(acc + x*w), one rounding) and every other partial
 * sum with lg_round_half in the documented order and must match bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "lg/run.h"
#include "run/k_conv.h"
#include "run/simd.h"
#include "kt.h"
#include "tf.h"
#include "util/half.h"

/* ------------------------------------------------------------------ one-op models (kt.h) */

static int g_threads = 1; /* worker threads for the runs */

/* a runtime float input fed with data at run time; a float constant; the float output */
static int32_t tm_input(kt_model *t, lg_dims s, const float *data) { return kt_input(t, "x", LG_FLOAT32, s, data); }
static int32_t tm_const(kt_model *t, lg_dims s, const float *d) { return kt_const(t, "c", LG_FLOAT32, s, d); }
static int32_t tm_output(kt_model *t, lg_dims s) { return kt_output(t, "y", LG_FLOAT32, s); }

/* ------------------------------------------------------------------ checks and refs */

static int contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

/* first mismatch only, so a broken kernel prints one line per case (kt_check_f32) */
#define check_close(what, got, want, n, tol) kt_check_f32(__FILE__, __LINE__, what, got, want, n, tol, KT_REL)
#define check_bits(what, got, want, n) kt_check_f32(__FILE__, __LINE__, what, got, want, n, 0, KT_BITS)

static uint64_t rng = 88172645463325252ull;
static float frand(void) { /* uniform [-1, 1) */
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((double)(rng >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
}
static float *rand_buf(int64_t n, float scale) {
    float *p = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    for (int64_t i = 0; i < n; i++) p[i] = frand() * scale;
    return p;
}

static float H(float v) { return lg_round_half(v); }
/* value as the interpreter stores it in precision p */
static float stor(int p, float v) { return p == LG_PREC_F32 ? v : H(v); }

static float act_clamp(int act, float v) {
    float lo = -INFINITY, hi = INFINITY;
    if (act == 1) lo = 0;
    if (act == 2) { lo = -1; hi = 1; }
    if (act == 3) { lo = 0; hi = 6; }
    if (v < lo) v = lo;
    if (hi < v) v = hi;
    return v;
}

/* TFLite padding.h, restated */
static int out_size(int padding, int in, int f, int s, int d) {
    if (s <= 0) return 1; /* bad models in the error tests: any declared shape will do */
    int eff = (f - 1) * d + 1;
    return padding == LG_PADDING_SAME ? (in + s - 1) / s : (in + s - eff) / s;
}
static int pad_before(int s, int d, int in, int f, int out) {
    int total = (out - 1) * s + (f - 1) * d + 1 - in;
    return total > 0 ? total / 2 : 0;
}

/* An accumulator in one of the three modes: fp32 modes sum in double here (independent of
   the kernels' float order); f16 rounds each multiply-add and each sum in the given order. */
typedef struct acc_t {
    int p;
    double d;
    float h;
} acc_t;
static acc_t acc0(int p) { acc_t a = {p, 0, 0}; return a; }
static void acc_mac(acc_t *a, float x, float w) {
    /* f16: one rounding per multiply-add. Formed in double (exact for these half operands:
       the product has 22 significant bits), then rounded to fp32 and to half, which is the
       documented h(acc + a*b) with an fp32 sum. */
    if (a->p == LG_PREC_F16) a->h = H((float)((double)a->h + (double)x * (double)w));
    else a->d += (double)x * (double)w;
}
static void acc_add(acc_t *a, float x) {
    if (a->p == LG_PREC_F16) a->h = H(a->h + x);
    else a->d += x;
}
static float acc_val(const acc_t *a) { return a->p == LG_PREC_F16 ? a->h : (float)a->d; }

static const lg_precision precs[3] = {LG_PREC_F32, LG_PREC_F32_F16, LG_PREC_F16};
static const char *prec_name[3] = {"f32", "f32_f16", "f16"};

/* compare a run with a reference computed on the stored (rounded) values: f16 (and every mode
   when tol is 0) bit for bit, else the fp32 modes within tol */
static void check_mode_(const char *file, int line, const char *what, int p, const float *got, const float *want,
                        int64_t n, double tol) {
    char w2[160];
    snprintf(w2, sizeof w2, "%s [%s]", what, lg_precision_name((lg_precision)p));
    /* f32_f16 rounds the output to half: the fp32 sum and the double reference may land on
       either side of a rounding boundary (one half ulp, 2^-11 relative) */
    if (p == LG_PREC_F16 || tol == 0) kt_check_f32(file, line, w2, got, want, n, 0, KT_BITS);
    else kt_check_f32(file, line, w2, got, want, n, p == LG_PREC_F32_F16 && tol < 1e-3 ? 1e-3 : tol, KT_REL);
}
#define check_mode(what, p, got, want, n, tol) check_mode_(__FILE__, __LINE__, what, p, got, want, n, tol)


/* run a comparison on the best code for this CPU, with 3 worker threads, then capped at AVX2
   when the CPU has AVX-512 (what a CPU without it runs), then on the portable code (4-lane
   vectors, software half rounding) */
static void both_paths(void (*fn)(void)) {
    fn();
    g_threads = 3;
    fn();
    g_threads = 1;
    if (lgk_simd_avx512()) {
        lgk_simd_override(LGK_SIMD_AVX2);
        fn();
    }
    lgk_simd_override(LGK_SIMD_PORTABLE);
    fn();
    lgk_simd_override(-1);
}

/* ================================================================== CONV_2D */

/* LiteRT.js (XNNPACK on wasm) uses its "c4" kernels below 8 outputs and, on its GEMM path
   (1x1 stride-1 convs, fully connected), when outputs % 8 is neither 0 nor 7; elsewhere one
   chain per output. Observed on every output count 1..40 (peers/litert_run.js). */
static int xnn_c4(int n, int gemm_path) { return n < 8 || (gemm_path && n % 8 != 0 && n % 8 != 7); }

/* c4: four partial sums q[j] over each segment's values in groups of 4 (a group's missing
   values and, in a last partial group, zero weights add +0) */
static void c4_add(float *q, int j_in_seg, int seg, float x, float w) {
    int g0 = j_in_seg / 4 * 4, full = g0 + 4 <= seg;
    q[j_in_seg % 4] = q[j_in_seg % 4] + (full || w != 0.0f ? x * w : 0.0f);
}
static void c4_pad(float *q, int seg) {
    for (int j = seg; j % 4; j++) q[j % 4] = q[j % 4] + 0.0f;
}
static float c4_sum(const float *q) { return (q[0] + q[2]) + (q[1] + q[3]); }

typedef struct cspec {
    int nb, h, w, ic, oc, kh, kw, fic, sh, sw, dh, dw, pad, act, bias;
} cspec;

/* f16: TFLite's order with half rounding, padding skipped, bias last. fp32: XNNPACK's
   (LiteRT.js's) arithmetic, acc = bias; acc = acc + x*w in (ky, kx, c) order with zeros for
   padding taps, one product and one add per step, so the kernels must match bit for bit; for
   1-2 outputs per group its "c4" kernels: four partial sums over each tap's channels in groups
   of 4 (see k_conv_tmpl.h). */
static void ref_conv(const cspec *c, int p, const float *x, const float *w, const float *b, float *y, int oh, int ow) {
    int ph = pad_before(c->sh, c->dh, c->h, c->kh, oh), pw = pad_before(c->sw, c->dw, c->w, c->kw, ow);
    int groups = c->ic / c->fic, ocg = c->oc / groups;
    for (int n = 0; n < c->nb; n++)
        for (int oy = 0; oy < oh; oy++)
            for (int ox = 0; ox < ow; ox++)
                for (int o = 0; o < c->oc; o++) {
                    int g = o / ocg;
                    acc_t a = acc0(p);
                    float f = b ? stor(p, b[o]) : 0.0f;
                    float q[4] = {f, 0, 0, 0};
                    for (int ky = 0; ky < c->kh; ky++)
                        for (int kx = 0; kx < c->kw; kx++) {
                            for (int i = 0; i < c->fic; i++) {
                                int iy = oy * c->sh - ph + ky * c->dh, ix = ox * c->sw - pw + kx * c->dw;
                                int in = iy >= 0 && iy < c->h && ix >= 0 && ix < c->w;
                                float xv = in ? stor(p, x[((n * c->h + iy) * c->w + ix) * c->ic + g * c->fic + i]) : 0.0f;
                                float wv = stor(p, w[((o * c->kh + ky) * c->kw + kx) * c->fic + i]);
                                f = f + xv * wv;
                                c4_add(q, i, c->fic, xv, wv);
                                if (in) acc_mac(&a, xv, wv);
                            }
                            c4_pad(q, c->fic);
                        }
                    if (b) acc_add(&a, stor(p, b[o]));
                    if (xnn_c4(ocg, c->kh == 1 && c->kw == 1 && c->sh == 1 && c->sw == 1)) f = c4_sum(q);
                    float v = p == LG_PREC_F16 ? acc_val(&a) : f;
                    y[((n * oh + oy) * ow + ox) * c->oc + o] = stor(p, act_clamp(c->act, v));
                }
}

/* build a CONV_2D model (weights constant or a runtime input) and run it */
static lg_status run_conv(const cspec *c, int p, const float *x, const float *w, const float *b, int w_runtime,
                          float *y, int64_t cap, lg_error *err) {
    kt_model t;
    kt_init(&t);
    int oh = out_size(c->pad, c->h, c->kh, c->sh, c->dh), ow = out_size(c->pad, c->w, c->kw, c->sw, c->dw);
    int32_t xi = tm_input(&t, LG_DIMS(c->nb, c->h, c->w, c->ic), x);
    int32_t wi = w_runtime ? tm_input(&t, LG_DIMS(c->oc, c->kh, c->kw, c->fic), w)
                           : tm_const(&t, LG_DIMS(c->oc, c->kh, c->kw, c->fic), w);
    int32_t bi = c->bias ? tm_const(&t, LG_DIMS(c->oc), b) : -1;
    int32_t yi = tm_output(&t, LG_DIMS(c->nb, oh, ow, c->oc));
    lg_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = (int8_t)c->pad;
    o.stride_h = c->sh;
    o.stride_w = c->sw;
    o.dilation_h_factor = c->dh;
    o.dilation_w_factor = c->dw;
    o.fused_activation_function = (int8_t)c->act;
    if (c->bias) lg_b_op_opts(&t.b, LG_OP_CONV_2D, LG_IDS(xi, wi, bi), LG_IDS(yi), LG_OPTS_CONV2D_OPTIONS, &o);
    else lg_b_op_opts(&t.b, LG_OP_CONV_2D, LG_IDS(xi, wi), LG_IDS(yi), LG_OPTS_CONV2D_OPTIONS, &o);
    kt_io(&t);
    lg_status st = kt_run_f32(&t, (lg_precision)p, g_threads, y, cap, NULL, err);
    kt_free(&t);
    return st;
}

static cspec cs(int nb, int h, int w, int ic, int oc, int kh, int kw, int fic, int sh, int sw, int dh, int dw, int pad,
                int act, int bias) {
    cspec c = {nb, h, w, ic, oc, kh, kw, fic, sh, sw, dh, dw, pad, act, bias};
    return c;
}

LG_TEST(k_conv_conv2d_valid_hand) {
    /* 3x3 image 1..9, 2x2 filter of ones, VALID: each output sums a 2x2 block
       (1+2+4+5=12, 2+3+5+6=16, 4+5+7+8=24, 5+6+8+9=28) */
    float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 1, 1, 1}, y[4];
    cspec c = cs(1, 3, 3, 1, 1, 2, 2, 1, 1, 1, 1, 1, LG_PADDING_VALID, 0, 0);
    lg_error err;
    CHECK_OK(run_conv(&c, LG_PREC_F32, x, w, NULL, 0, y, 4, &err), &err);
    float want[4] = {12, 16, 24, 28};
    check_bits("conv2d valid", y, want, 4);
}

LG_TEST(k_conv_conv2d_same_bias_hand) {
    /* SAME, 2x2 filter on 3x3: total padding (3-1)+2-3 = 1 goes after (bottom/right), so the
       last row/column sums only the cells inside; bias 1 added to each */
    float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 1, 1, 1}, b[1] = {1}, y[9];
    cspec c = cs(1, 3, 3, 1, 1, 2, 2, 1, 1, 1, 1, 1, LG_PADDING_SAME, 0, 1);
    lg_error err;
    CHECK_OK(run_conv(&c, LG_PREC_F32, x, w, b, 0, y, 9, &err), &err);
    float want[9] = {13, 17, 10, 25, 29, 16, 16, 18, 10};
    check_bits("conv2d same", y, want, 9);
}

LG_TEST(k_conv_conv2d_stride2_same_hand) {
    /* 4x4 image 1..16, 3x3 ones, stride 2 SAME: out 2x2, total pad (2-1)*2+3-4 = 1 -> 0 before.
       [0,0] rows 0-2 cols 0-2: 1+2+3+5+6+7+9+10+11 = 54; [0,1] rows 0-2 cols 2-3: 3+4+7+8+11+12 = 45;
       [1,0] rows 2-3 cols 0-2: 9+10+11+13+14+15 = 72; [1,1] rows 2-3 cols 2-3: 11+12+15+16 = 54 */
    float x[16], w[9], y[4];
    for (int i = 0; i < 16; i++) x[i] = (float)(i + 1);
    for (int i = 0; i < 9; i++) w[i] = 1;
    cspec c = cs(1, 4, 4, 1, 1, 3, 3, 1, 2, 2, 1, 1, LG_PADDING_SAME, 0, 0);
    lg_error err;
    CHECK_OK(run_conv(&c, LG_PREC_F32, x, w, NULL, 0, y, 4, &err), &err);
    float want[4] = {54, 45, 72, 54};
    check_bits("conv2d stride 2", y, want, 4);
}

LG_TEST(k_conv_conv2d_dilation_hand) {
    /* 5x5 image v = 5y+x+1, 2x2 ones with dilation 2, VALID: 3x3 outputs, each
       v + (v+2) + (v+10) + (v+12) = 4v + 24 */
    float x[25], w[4] = {1, 1, 1, 1}, y[9], want[9];
    for (int i = 0; i < 25; i++) x[i] = (float)(i + 1);
    for (int oy = 0; oy < 3; oy++)
        for (int ox = 0; ox < 3; ox++) want[oy * 3 + ox] = 4.0f * (float)(5 * oy + ox + 1) + 24;
    cspec c = cs(1, 5, 5, 1, 1, 2, 2, 1, 1, 1, 2, 2, LG_PADDING_VALID, 0, 0);
    lg_error err;
    CHECK_OK(run_conv(&c, LG_PREC_F32, x, w, NULL, 0, y, 9, &err), &err);
    check_bits("conv2d dilation", y, want, 9);
}

LG_TEST(k_conv_conv2d_activations_hand) {
    /* one pixel, 2 channels [1, 2]; 3 filters: [4, 1] -> 6, [-3, 0] -> -3, [0.25, 0] -> 0.25;
       bias [0, 0, 1] -> 6, -3, 1.25; clamps: RELU 6,0,1.25; RELU6 6,0,1.25; RELU_N1_TO_1 1,-1,1 */
    float x[2] = {1, 2}, w[6] = {4, 1, -3, 0, 0.25f, 0}, b[3] = {0, 0, 1}, y[3];
    float want[4][3] = {{6, -3, 1.25f}, {6, 0, 1.25f}, {1, -1, 1}, {6, 0, 1.25f}};
    for (int act = 0; act <= 3; act++) {
        cspec c = cs(1, 1, 1, 2, 3, 1, 1, 2, 1, 1, 1, 1, LG_PADDING_VALID, act, 1);
        lg_error err;
        CHECK_OK(run_conv(&c, LG_PREC_F32, x, w, b, 0, y, 3, &err), &err);
        check_bits("conv2d activation", y, want[act], 3);
    }
}

LG_TEST(k_conv_conv2d_grouped_hand) {
    /* 4 input channels [1,2,3,4], filter in-channels 2 -> 2 groups; filter 0 [1,1] sees
       channels 0-1 -> 3, filter 1 [1,-1] sees channels 2-3 -> -1 */
    float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 1, -1}, y[2];
    cspec c = cs(1, 1, 1, 4, 2, 1, 1, 2, 1, 1, 1, 1, LG_PADDING_SAME, 0, 0);
    lg_error err;
    for (int k = 0; k < 3; k++) {
        CHECK_OK(run_conv(&c, (int)precs[k], x, w, NULL, 0, y, 2, &err), &err);
        float want[2] = {3, -1};
        check_bits(prec_name[k], y, want, 2);
    }
}

LG_TEST(k_conv_conv2d_one_element) {
    float x[1] = {3}, w[1] = {-2}, b[1] = {0.5f}, y[1];
    cspec c = cs(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, LG_PADDING_VALID, 0, 1);
    lg_error err;
    CHECK_OK(run_conv(&c, LG_PREC_F32, x, w, b, 0, y, 1, &err), &err);
    CHECK_EQ_INT((int)(y[0] * 2), -11); /* 3 * -2 + 0.5 = -5.5 */
}

LG_TEST(k_conv_conv2d_empty_batch) {
    float w[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[1] = {42}, none[1] = {0};
    cspec c = cs(0, 4, 4, 2, 1, 2, 2, 2, 1, 1, 1, 1, LG_PADDING_SAME, 0, 0);
    lg_error err;
    CHECK_OK(run_conv(&c, LG_PREC_F32, none, w, NULL, 0, y, 1, &err), &err);
    CHECK(y[0] == 42);
}

/* many shapes against the naive loop, in all three precisions */
static void k_conv_conv2d_vs_naive_body(void) {
    cspec cases[] = {
        cs(1, 6, 7, 16, 24, 1, 1, 16, 1, 1, 1, 1, LG_PADDING_SAME, 0, 1),     /* 1x1: the input is the GEMM */
        cs(2, 5, 5, 13, 11, 1, 1, 13, 1, 1, 1, 1, LG_PADDING_VALID, 1, 1),    /* odd channels, batch 2 */
        cs(1, 9, 8, 3, 24, 3, 3, 3, 2, 2, 1, 1, LG_PADDING_SAME, 3, 1),       /* first-layer style */
        cs(1, 11, 10, 5, 7, 5, 5, 5, 2, 2, 1, 1, LG_PADDING_SAME, 0, 0),      /* 5x5 s2, no bias */
        cs(1, 10, 12, 4, 6, 3, 3, 4, 1, 1, 2, 3, LG_PADDING_SAME, 2, 1),      /* dilation */
        cs(2, 7, 6, 6, 9, 3, 2, 6, 1, 2, 1, 1, LG_PADDING_VALID, 0, 1),       /* VALID, non-square */
        cs(1, 6, 6, 8, 8, 3, 3, 2, 1, 1, 1, 1, LG_PADDING_SAME, 0, 1),        /* 4 groups */
        cs(1, 5, 5, 12, 4, 1, 1, 6, 2, 2, 1, 1, LG_PADDING_VALID, 1, 1),      /* 1x1 stride 2, 2 groups */
        cs(1, 40, 40, 8, 5, 3, 3, 8, 1, 1, 1, 1, LG_PADDING_SAME, 0, 1),      /* several im2col tiles */
        cs(1, 3, 3, 300, 3, 3, 3, 300, 1, 1, 1, 1, LG_PADDING_SAME, 0, 1),    /* K = 2700 > a tile's width */
        cs(1, 17, 19, 8, 1, 3, 3, 8, 1, 1, 1, 1, LG_PADDING_SAME, 0, 1),      /* 1 output channel: dot path */
        cs(2, 13, 11, 5, 2, 3, 3, 5, 2, 2, 1, 1, LG_PADDING_SAME, 3, 1),      /* 2 channels, stride 2, odd seg */
        cs(1, 12, 12, 3, 4, 3, 3, 3, 1, 1, 2, 2, LG_PADDING_SAME, 1, 0),      /* 4 channels, dilation */
        cs(1, 9, 10, 4, 3, 5, 5, 4, 1, 2, 1, 1, LG_PADDING_VALID, 0, 1),      /* VALID: all interior */
        cs(1, 20, 21, 3, 24, 3, 3, 3, 2, 2, 1, 1, LG_PADDING_VALID, 0, 1),    /* first layer, 6-row tail */
        cs(1, 9, 11, 88, 2, 1, 1, 88, 1, 1, 1, 1, LG_PADDING_SAME, 0, 1),     /* 1x1, 2 outputs: c4 */
        cs(1, 8, 9, 24, 28, 1, 1, 24, 1, 1, 1, 1, LG_PADDING_SAME, 0, 1),     /* 1x1, 28 outputs: c4 GEMM */
        cs(1, 8, 9, 21, 23, 1, 1, 21, 1, 1, 1, 1, LG_PADDING_SAME, 3, 1),     /* 1x1, 23 outputs: chains */
        cs(1, 8, 9, 10, 6, 3, 3, 10, 1, 1, 1, 1, LG_PADDING_SAME, 0, 1),      /* 3x3, 6 outputs: c4 GEMM, seg 10 */
        cs(1, 8, 9, 10, 12, 3, 3, 10, 1, 1, 1, 1, LG_PADDING_SAME, 0, 1),     /* 3x3, 12 outputs: chains */
        cs(1, 7, 10, 13, 1, 1, 1, 13, 1, 1, 1, 1, LG_PADDING_SAME, 1, 1),     /* 1x1, 1 output, 13 ch */
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const cspec *c = &cases[ci];
        int oh = out_size(c->pad, c->h, c->kh, c->sh, c->dh), ow = out_size(c->pad, c->w, c->kw, c->sw, c->dw);
        int64_t nx = (int64_t)c->nb * c->h * c->w * c->ic, nw = (int64_t)c->oc * c->kh * c->kw * c->fic;
        int64_t ny = (int64_t)c->nb * oh * ow * c->oc;
        float *x = rand_buf(nx, 2), *w = rand_buf(nw, 1), *b = rand_buf(c->oc, 1);
        float *y = malloc((size_t)ny * 4), *want = malloc((size_t)ny * 4);
        for (int k = 0; k < 3; k++) {
            lg_error err;
            char what[64];
            snprintf(what, sizeof what, "conv2d case %zu", ci);
            if (run_conv(c, (int)precs[k], x, w, b, (int)(ci & 1), y, ny, &err) != LG_OK) {
                tf_fail(__FILE__, __LINE__, "%s: %s", what, err.msg);
                continue;
            }
            ref_conv(c, (int)precs[k], x, w, c->bias ? b : NULL, want, oh, ow);
            check_mode(what, (int)precs[k], y, want, ny, 0);
        }
        free(x); free(w); free(b); free(y); free(want);
    }
}
LG_TEST(k_conv_conv2d_vs_naive) { both_paths(k_conv_conv2d_vs_naive_body); }

LG_TEST(k_conv_conv2d_f16_overflow) {
    /* 1x1 conv over 512 channels of 175 with weights 1: 175 * 512 = 89600. In f16 the running
       sum passes 65504 at channel 375 and becomes inf; fp32 accumulates 89600 exactly (f32_f16
       then stores it as half: inf). */
    float x[512], w[512], y[1];
    for (int i = 0; i < 512; i++) { x[i] = 175; w[i] = 1; }
    cspec c = cs(1, 1, 1, 512, 1, 1, 1, 512, 1, 1, 1, 1, LG_PADDING_VALID, 0, 0);
    lg_error err;
    CHECK_OK(run_conv(&c, LG_PREC_F32, x, w, NULL, 0, y, 1, &err), &err);
    CHECK(y[0] == 89600.0f);
    CHECK_OK(run_conv(&c, LG_PREC_F16, x, w, NULL, 0, y, 1, &err), &err);
    CHECK(isinf(y[0]) && y[0] > 0);
    /* 800 channels of 175, weights +1 then -1: the true sum is 0 (f32 and f32_f16: 0), the
       half accumulator overflows on the way (400 * 175 = 70000) and stays inf */
    float x2[800], w2[800];
    for (int i = 0; i < 800; i++) { x2[i] = 175; w2[i] = i < 400 ? 1.0f : -1.0f; }
    cspec c2 = cs(1, 1, 1, 800, 1, 1, 1, 800, 1, 1, 1, 1, LG_PADDING_VALID, 0, 0);
    CHECK_OK(run_conv(&c2, LG_PREC_F32, x2, w2, NULL, 0, y, 1, &err), &err);
    CHECK(y[0] == 0.0f);
    CHECK_OK(run_conv(&c2, LG_PREC_F32_F16, x2, w2, NULL, 0, y, 1, &err), &err);
    CHECK(y[0] == 0.0f);
    CHECK_OK(run_conv(&c2, LG_PREC_F16, x2, w2, NULL, 0, y, 1, &err), &err);
    CHECK(isinf(y[0]));
    /* the same through a 3x3 conv (im2col path) */
    float x3[9 * 64], w3[9 * 64];
    for (int i = 0; i < 9 * 64; i++) { x3[i] = 150; w3[i] = 1; }
    cspec c3 = cs(1, 3, 3, 64, 1, 3, 3, 64, 1, 1, 1, 1, LG_PADDING_VALID, 0, 0);
    CHECK_OK(run_conv(&c3, LG_PREC_F32, x3, w3, NULL, 0, y, 1, &err), &err);
    CHECK(y[0] == 86400.0f); /* 150 * 576 */
    CHECK_OK(run_conv(&c3, LG_PREC_F16, x3, w3, NULL, 0, y, 1, &err), &err);
    CHECK(isinf(y[0]));
}

LG_TEST(k_conv_conv2d_errors) {
    lg_error err;
    float x[16] = {0}, w[8] = {0}, y[4];
    /* input channels 4 not a multiple of filter's 3 */
    cspec c = cs(1, 2, 2, 4, 1, 1, 1, 3, 1, 1, 1, 1, LG_PADDING_SAME, 0, 0);
    CHECK_EQ_INT(run_conv(&c, LG_PREC_F32, x, w, NULL, 0, y, 4, &err), LG_ERR_FORMAT);
    CHECK(contains(err.msg, "CONV_2D") && contains(err.msg, "multiple"));
    /* TANH fused activation: refused, not ignored */
    c = cs(1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, LG_PADDING_SAME, LG_ACTIVATION_FUNCTION_TYPE_TANH, 0);
    CHECK_EQ_INT(run_conv(&c, LG_PREC_F32, x, w, NULL, 0, y, 4, &err), LG_ERR_UNSUPPORTED);
    CHECK(contains(err.msg, "TANH"));
    /* stride 0 */
    c = cs(1, 2, 2, 1, 1, 1, 1, 1, 0, 1, 1, 1, LG_PADDING_SAME, 0, 0);
    CHECK_EQ_INT(run_conv(&c, LG_PREC_F32, x, w, NULL, 0, y, 4, &err), LG_ERR_FORMAT);
    CHECK(contains(err.msg, "stride"));

    /* int8 input without quantization parameters: the integer kernel (k_quant_conv.c) needs
       a scale; a malformed model, refused naming it */
    kt_model t;
    kt_init(&t);
    int8_t q[4] = {1, 2, 3, 4};
    int32_t xi = lg_b_tensor(&t.b, "q", LG_INT8, LG_DIMS(1, 2, 2, 1));
    int32_t wi = lg_b_const(&t.b, "w", LG_INT8, LG_DIMS(1, 1, 1, 1), q, 1);
    int32_t yi = lg_b_tensor(&t.b, "y", LG_INT8, LG_DIMS(1, 2, 2, 1));
    lg_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.stride_h = o.stride_w = o.dilation_h_factor = o.dilation_w_factor = 1;
    lg_b_op_opts(&t.b, LG_OP_CONV_2D, LG_IDS(xi, wi), LG_IDS(yi), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_io(&t.b, LG_IDS(xi), LG_IDS(yi));
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_interp *it = NULL;
    CHECK_EQ_INT(lg_interp_create(t.m, &ro, &it, &err), LG_ERR_FORMAT);
    CHECK(contains(err.msg, "quantization scale"));
    lg_interp_free(it);
    kt_free(&t);

    /* hybrid: float input, int8 weights without quantization parameters: the hybrid kernel
       (k_hybrid.c) needs their scale; a malformed model, refused naming it */
    kt_init(&t);
    float xf[4] = {1, 2, 3, 4};
    xi = tm_input(&t, LG_DIMS(1, 2, 2, 1), xf);
    wi = lg_b_const(&t.b, "w", LG_INT8, LG_DIMS(1, 1, 1, 1), q, 1);
    tm_output(&t, LG_DIMS(1, 2, 2, 1));
    lg_b_op_opts(&t.b, LG_OP_CONV_2D, LG_IDS(xi, wi), LG_IDS(t.outs[0]), LG_OPTS_CONV2D_OPTIONS, &o);
    kt_io(&t);
    CHECK_EQ_INT(kt_run_f32(&t, LG_PREC_F32, g_threads, y, 4, NULL, &err), LG_ERR_FORMAT);
    CHECK(contains(err.msg, "INT8 weights") && contains(err.msg, "quantization scale"));
    kt_free(&t);

    /* bias of the wrong size */
    float b[2] = {0};
    c = cs(1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, LG_PADDING_SAME, 0, 0);
    kt_init(&t);
    xi = tm_input(&t, LG_DIMS(1, 2, 2, 1), xf);
    wi = tm_const(&t, LG_DIMS(1, 1, 1, 1), w);
    int32_t bi = tm_const(&t, LG_DIMS(2), b);
    tm_output(&t, LG_DIMS(1, 2, 2, 1));
    lg_b_op_opts(&t.b, LG_OP_CONV_2D, LG_IDS(xi, wi, bi), LG_IDS(t.outs[0]), LG_OPTS_CONV2D_OPTIONS, &o);
    kt_io(&t);
    CHECK_EQ_INT(kt_run_f32(&t, LG_PREC_F32, g_threads, y, 4, NULL, &err), LG_ERR_FORMAT);
    CHECK(contains(err.msg, "bias"));
    kt_free(&t);
}

/* ================================================================== DEPTHWISE_CONV_2D */

typedef struct dspec {
    int nb, h, w, c, mult, kh, kw, sh, sw, dh, dw, pad, act, bias;
} dspec;

/* taps in column-major order (kx outer); f16: padding skipped, bias last; fp32: XNNPACK's
   bias first and zeros for padding taps (bit for bit) */
static void ref_dw(const dspec *d, int p, const float *x, const float *w, const float *b, float *y, int oh, int ow) {
    int ph = pad_before(d->sh, d->dh, d->h, d->kh, oh), pw = pad_before(d->sw, d->dw, d->w, d->kw, ow);
    int oc = d->c * d->mult;
    for (int n = 0; n < d->nb; n++)
        for (int oy = 0; oy < oh; oy++)
            for (int ox = 0; ox < ow; ox++)
                for (int i = 0; i < d->c; i++)
                    for (int m = 0; m < d->mult; m++) {
                        int o = i * d->mult + m;
                        acc_t a = acc0(p);
                        float f = b ? stor(p, b[o]) : 0.0f;
                        for (int kx = 0; kx < d->kw; kx++)
                            for (int ky = 0; ky < d->kh; ky++) {
                                int iy = oy * d->sh - ph + ky * d->dh, ix = ox * d->sw - pw + kx * d->dw;
                                int in = iy >= 0 && iy < d->h && ix >= 0 && ix < d->w;
                                float xv = in ? stor(p, x[((n * d->h + iy) * d->w + ix) * d->c + i]) : 0.0f;
                                float wv = stor(p, w[(ky * d->kw + kx) * oc + o]);
                                f = f + xv * wv;
                                if (in) acc_mac(&a, xv, wv);
                            }
                        if (b) acc_add(&a, stor(p, b[o]));
                        float v = p == LG_PREC_F16 ? acc_val(&a) : f;
                        y[((n * oh + oy) * ow + ox) * oc + o] = stor(p, act_clamp(d->act, v));
                    }
}

static lg_status run_dw(const dspec *d, int p, const float *x, const float *w, const float *b, float *y, int64_t cap,
                        lg_error *err) {
    kt_model t;
    kt_init(&t);
    int oh = out_size(d->pad, d->h, d->kh, d->sh, d->dh), ow = out_size(d->pad, d->w, d->kw, d->sw, d->dw);
    int oc = d->c * d->mult;
    int32_t xi = tm_input(&t, LG_DIMS(d->nb, d->h, d->w, d->c), x);
    int32_t wi = tm_const(&t, LG_DIMS(1, d->kh, d->kw, oc), w);
    int32_t bi = d->bias ? tm_const(&t, LG_DIMS(oc), b) : -1;
    int32_t yi = tm_output(&t, LG_DIMS(d->nb, oh, ow, oc));
    lg_depthwise_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = (int8_t)d->pad;
    o.stride_h = d->sh;
    o.stride_w = d->sw;
    o.dilation_h_factor = d->dh;
    o.dilation_w_factor = d->dw;
    o.depth_multiplier = d->mult;
    o.fused_activation_function = (int8_t)d->act;
    if (d->bias)
        lg_b_op_opts(&t.b, LG_OP_DEPTHWISE_CONV_2D, LG_IDS(xi, wi, bi), LG_IDS(yi), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o);
    else
        lg_b_op_opts(&t.b, LG_OP_DEPTHWISE_CONV_2D, LG_IDS(xi, wi), LG_IDS(yi), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o);
    kt_io(&t);
    lg_status st = kt_run_f32(&t, (lg_precision)p, g_threads, y, cap, NULL, err);
    kt_free(&t);
    return st;
}

static dspec ds(int nb, int h, int w, int c, int mult, int kh, int kw, int sh, int sw, int dh, int dw, int pad, int act,
                int bias) {
    dspec d = {nb, h, w, c, mult, kh, kw, sh, sw, dh, dw, pad, act, bias};
    return d;
}

LG_TEST(k_conv_depthwise_valid_hand) {
    /* channel 0: 1..9 with 2x2 ones -> 12,16,24,28, bias +1 -> 13,17,25,29;
       channel 1: 10..90 with 2x2 of 2s -> 20 * (12,16,24,28) = 240,320,480,560, bias -1 */
    float x[18], w[8], b[2] = {1, -1}, y[8];
    for (int i = 0; i < 9; i++) { x[2 * i] = (float)(i + 1); x[2 * i + 1] = (float)(10 * (i + 1)); }
    for (int t = 0; t < 4; t++) { w[2 * t] = 1; w[2 * t + 1] = 2; }
    dspec d = ds(1, 3, 3, 2, 1, 2, 2, 1, 1, 1, 1, LG_PADDING_VALID, 0, 1);
    lg_error err;
    CHECK_OK(run_dw(&d, LG_PREC_F32, x, w, b, y, 8, &err), &err);
    float want[8] = {13, 239, 17, 319, 25, 479, 29, 559};
    check_bits("depthwise valid", y, want, 8);
}

LG_TEST(k_conv_depthwise_multiplier_hand) {
    /* input [3, 5], multiplier 2, weights [1,2,3,4]: output channel i*2+m = x[i] * w[i*2+m]
       -> 3, 6, 15, 20 */
    float x[2] = {3, 5}, w[4] = {1, 2, 3, 4}, y[4];
    dspec d = ds(1, 1, 1, 2, 2, 1, 1, 1, 1, 1, 1, LG_PADDING_SAME, 0, 0);
    lg_error err;
    CHECK_OK(run_dw(&d, LG_PREC_F32, x, w, NULL, y, 4, &err), &err);
    float want[4] = {3, 6, 15, 20};
    check_bits("depthwise multiplier", y, want, 4);
}

LG_TEST(k_conv_depthwise_same_corner_hand) {
    /* 3x3 image of ones (1 channel), 3x3 weights 1..9, SAME: the top-left output sees only the
       bottom-right 2x2 of the filter: 5+6+8+9 = 28; the centre sees all: 45; RELU6 clamps to 6 */
    float x[9], w[9], y[9];
    for (int i = 0; i < 9; i++) { x[i] = 1; w[i] = (float)(i + 1); }
    dspec d = ds(1, 3, 3, 1, 1, 3, 3, 1, 1, 1, 1, LG_PADDING_SAME, 0, 0);
    lg_error err;
    CHECK_OK(run_dw(&d, LG_PREC_F32, x, w, NULL, y, 9, &err), &err);
    float want[9] = {28, 39, 24, 33, 45, 27, 16, 21, 12};
    check_bits("depthwise same", y, want, 9);
    d.act = LG_ACTIVATION_FUNCTION_TYPE_RELU6;
    CHECK_OK(run_dw(&d, LG_PREC_F32, x, w, NULL, y, 9, &err), &err);
    CHECK(y[0] == 6 && y[4] == 6);
}

static void k_conv_depthwise_vs_naive_body(void) {
    dspec cases[] = {
        ds(1, 9, 10, 24, 1, 3, 3, 1, 1, 1, 1, LG_PADDING_SAME, 0, 1),
        ds(1, 9, 10, 20, 1, 3, 3, 2, 2, 1, 1, LG_PADDING_SAME, 3, 1),   /* channel tail 20 = 16 + 4 */
        ds(2, 11, 8, 37, 1, 5, 5, 1, 1, 1, 1, LG_PADDING_SAME, 1, 1),   /* 37: odd tail, batch 2 */
        ds(1, 12, 12, 16, 1, 5, 5, 2, 2, 1, 1, LG_PADDING_SAME, 0, 0),
        ds(1, 10, 9, 8, 1, 3, 3, 1, 1, 2, 2, LG_PADDING_SAME, 0, 1),    /* dilation */
        ds(1, 7, 9, 5, 1, 3, 2, 1, 2, 1, 1, LG_PADDING_VALID, 2, 1),    /* VALID, non-square */
        ds(1, 6, 5, 3, 3, 3, 3, 1, 1, 1, 1, LG_PADDING_SAME, 0, 1),     /* multiplier 3 */
        ds(1, 4, 4, 1, 1, 3, 3, 1, 1, 1, 1, LG_PADDING_SAME, 0, 1),     /* one channel */
        ds(1, 20, 21, 40, 1, 5, 5, 2, 2, 1, 1, LG_PADDING_SAME, 3, 1),  /* 40 = 16 + 16 + 8 (AVX-512: overlap) */
        ds(1, 14, 18, 48, 1, 3, 3, 1, 1, 1, 1, LG_PADDING_VALID, 0, 0), /* 48: three 16-lane blocks, all interior */
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const dspec *d = &cases[ci];
        int oh = out_size(d->pad, d->h, d->kh, d->sh, d->dh), ow = out_size(d->pad, d->w, d->kw, d->sw, d->dw);
        int oc = d->c * d->mult;
        int64_t nx = (int64_t)d->nb * d->h * d->w * d->c, ny = (int64_t)d->nb * oh * ow * oc;
        float *x = rand_buf(nx, 3), *w = rand_buf((int64_t)d->kh * d->kw * oc, 1), *b = rand_buf(oc, 1);
        float *y = malloc((size_t)ny * 4), *want = malloc((size_t)ny * 4);
        for (int k = 0; k < 3; k++) {
            lg_error err;
            char what[64];
            snprintf(what, sizeof what, "depthwise case %zu", ci);
            if (run_dw(d, (int)precs[k], x, w, b, y, ny, &err) != LG_OK) {
                tf_fail(__FILE__, __LINE__, "%s: %s", what, err.msg);
                continue;
            }
            ref_dw(d, (int)precs[k], x, w, d->bias ? b : NULL, want, oh, ow);
            check_mode(what, (int)precs[k], y, want, ny, 0);
        }
        free(x); free(w); free(b); free(y); free(want);
    }
}
LG_TEST(k_conv_depthwise_vs_naive) { both_paths(k_conv_depthwise_vs_naive_body); }

/* worker threads split the work, never the arithmetic: bit-identical outputs */
LG_TEST(k_conv_threads_deterministic) {
    cspec c = cs(1, 23, 21, 12, 20, 3, 3, 12, 1, 1, 1, 1, LG_PADDING_SAME, 3, 1);
    dspec d = ds(1, 23, 21, 20, 1, 3, 3, 2, 2, 1, 1, LG_PADDING_SAME, 0, 1);
    float *x = rand_buf(23 * 21 * 20, 2), *w = rand_buf(20 * 9 * 12, 1), *b = rand_buf(20, 1);
    float *y1 = malloc(23 * 21 * 20 * 4), *y3 = malloc(23 * 21 * 20 * 4);
    lg_error err;
    for (int k = 0; k < 3; k++) {
        g_threads = 1;
        CHECK_OK(run_conv(&c, (int)precs[k], x, w, b, 0, y1, 23 * 21 * 20, &err), &err);
        g_threads = 3;
        CHECK_OK(run_conv(&c, (int)precs[k], x, w, b, 0, y3, 23 * 21 * 20, &err), &err);
        check_bits("conv2d threads", y3, y1, 23 * 21 * 20);
        g_threads = 1;
        CHECK_OK(run_dw(&d, (int)precs[k], x, w, b, y1, 12 * 11 * 20, &err), &err);
        g_threads = 3;
        CHECK_OK(run_dw(&d, (int)precs[k], x, w, b, y3, 12 * 11 * 20, &err), &err);
        check_bits("depthwise threads", y3, y1, 12 * 11 * 20);
    }
    g_threads = 1;
    free(x); free(w); free(b); free(y1); free(y3);
}

LG_TEST(k_conv_depthwise_f16_overflow) {
    /* 3x3 VALID over 200s with weights 40: 9 * 8000 = 72000 > 65504: inf in f16 (each product
       8000 is fine, the sum is not); fp32 gets 72000 */
    float x[9 * 8], w[9 * 8], y[8];
    for (int i = 0; i < 72; i++) { x[i] = 200; w[i] = 40; }
    dspec d = ds(1, 3, 3, 8, 1, 3, 3, 1, 1, 1, 1, LG_PADDING_VALID, 0, 0);
    lg_error err;
    CHECK_OK(run_dw(&d, LG_PREC_F32, x, w, NULL, y, 8, &err), &err);
    CHECK(y[0] == 72000.0f && y[7] == 72000.0f);
    CHECK_OK(run_dw(&d, LG_PREC_F16, x, w, NULL, y, 8, &err), &err);
    CHECK(isinf(y[0]) && isinf(y[7]));
}

LG_TEST(k_conv_depthwise_errors) {
    lg_error err;
    float x[8] = {0}, w[12] = {0}, y[8];
    /* 3 filter channels for 2 input channels */
    kt_model t;
    kt_init(&t);
    int32_t xi = tm_input(&t, LG_DIMS(1, 2, 2, 2), x);
    int32_t wi = tm_const(&t, LG_DIMS(1, 2, 2, 3), w);
    tm_output(&t, LG_DIMS(1, 2, 2, 3));
    lg_depthwise_conv2d_options o;
    memset(&o, 0, sizeof o);
    o.stride_h = o.stride_w = o.dilation_h_factor = o.dilation_w_factor = o.depth_multiplier = 1;
    lg_b_op_opts(&t.b, LG_OP_DEPTHWISE_CONV_2D, LG_IDS(xi, wi), LG_IDS(t.outs[0]), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &o);
    kt_io(&t);
    CHECK_EQ_INT(kt_run_f32(&t, LG_PREC_F32, g_threads, y, 8, NULL, &err), LG_ERR_FORMAT);
    CHECK(contains(err.msg, "DEPTHWISE_CONV_2D") && contains(err.msg, "multiple"));
    kt_free(&t);
}

/* ================================================================== transposed convs */

typedef struct tspec {
    int nb, h, w, ic, oc, kh, kw, sh, sw, oh, ow, ph, pw, act, bias;
} tspec;

/* TFLite's reference scatter: out[iy*s - pad + ky][...] += x * w, then bias, then clamp */
/* f16: TFLite's reference scatter (out[iy*s - pad + ky][...] += x*w in input order), each
   product and sum rounded, then the bias. fp32: XNNPACK's gather (LiteRT.js bit for bit):
   acc = bias, the taps reaching the output with ky, then kx ascending, each tap's channels in
   order, one chain or, below 8 outputs, c4 partial sums per tap. */
static void ref_tconv(const tspec *t, int p, const float *x, const float *w, const float *b, float *y) {
    int64_t ny = (int64_t)t->nb * t->oh * t->ow * t->oc;
    if (p != LG_PREC_F16) {
        for (int n = 0; n < t->nb; n++)
            for (int oy = 0; oy < t->oh; oy++)
                for (int ox = 0; ox < t->ow; ox++)
                    for (int o = 0; o < t->oc; o++) {
                        float f = b ? stor(p, b[o]) : 0.0f, q[4] = {f, 0, 0, 0};
                        for (int ky = 0; ky < t->kh; ky++)
                            for (int kx = 0; kx < t->kw; kx++) {
                                int ty = oy + t->ph - ky, tx = ox + t->pw - kx;
                                if (ty < 0 || tx < 0 || ty % t->sh || tx % t->sw) continue;
                                int iy = ty / t->sh, ix = tx / t->sw;
                                if (iy >= t->h || ix >= t->w) continue;
                                for (int i = 0; i < t->ic; i++) {
                                    float xv = stor(p, x[((n * t->h + iy) * t->w + ix) * t->ic + i]);
                                    float wv = stor(p, w[((o * t->kh + ky) * t->kw + kx) * t->ic + i]);
                                    f = f + xv * wv;
                                    c4_add(q, i, t->ic, xv, wv);
                                }
                                c4_pad(q, t->ic);
                            }
                        if (xnn_c4(t->oc, 0)) f = c4_sum(q);
                        y[((n * t->oh + oy) * t->ow + ox) * t->oc + o] = stor(p, act_clamp(t->act, f));
                    }
        return;
    }
    acc_t *acc = malloc((size_t)(ny > 0 ? ny : 1) * sizeof(acc_t));
    for (int64_t i = 0; i < ny; i++) acc[i] = acc0(p);
    for (int n = 0; n < t->nb; n++)
        for (int iy = 0; iy < t->h; iy++)
            for (int ix = 0; ix < t->w; ix++)
                for (int i = 0; i < t->ic; i++)
                    for (int ky = 0; ky < t->kh; ky++)
                        for (int kx = 0; kx < t->kw; kx++)
                            for (int o = 0; o < t->oc; o++) {
                                int oy = iy * t->sh - t->ph + ky, ox = ix * t->sw - t->pw + kx;
                                if (oy < 0 || oy >= t->oh || ox < 0 || ox >= t->ow) continue;
                                acc_mac(&acc[((n * t->oh + oy) * t->ow + ox) * t->oc + o],
                                        stor(p, x[((n * t->h + iy) * t->w + ix) * t->ic + i]),
                                        stor(p, w[((o * t->kh + ky) * t->kw + kx) * t->ic + i]));
                            }
    for (int64_t i = 0; i < ny; i++) {
        if (b) acc_add(&acc[i], stor(p, b[i % t->oc]));
        y[i] = stor(p, act_clamp(t->act, acc_val(&acc[i])));
    }
    free(acc);
}

static lg_status run_tconv(const tspec *t, int pad, int p, const float *x, const float *w, const float *b, float *y,
                           int64_t cap, lg_error *err) {
    kt_model m;
    kt_init(&m);
    int32_t shape[4] = {t->nb, t->oh, t->ow, t->oc};
    int32_t si = lg_b_const_i32(&m.b, "shape", LG_DIMS(4), shape);
    int32_t wi = tm_const(&m, LG_DIMS(t->oc, t->kh, t->kw, t->ic), w);
    int32_t xi = tm_input(&m, LG_DIMS(t->nb, t->h, t->w, t->ic), x);
    int32_t bi = t->bias ? tm_const(&m, LG_DIMS(t->oc), b) : -1;
    int32_t yi = tm_output(&m, LG_DIMS(t->nb, t->oh, t->ow, t->oc));
    lg_transpose_conv_options o;
    memset(&o, 0, sizeof o);
    o.padding = (int8_t)pad;
    o.stride_h = t->sh;
    o.stride_w = t->sw;
    o.fused_activation_function = (int8_t)t->act;
    if (t->bias)
        lg_b_op_opts(&m.b, LG_OP_TRANSPOSE_CONV, LG_IDS(si, wi, xi, bi), LG_IDS(yi), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    else
        lg_b_op_opts(&m.b, LG_OP_TRANSPOSE_CONV, LG_IDS(si, wi, xi), LG_IDS(yi), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    kt_io(&m);
    lg_status st = kt_run_f32(&m, (lg_precision)p, g_threads, y, cap, NULL, err);
    kt_free(&m);
    return st;
}

LG_TEST(k_conv_transpose_conv_stride2_hand) {
    /* 2x2 input [1,2,3,4], 2x2 ones, stride 2, VALID, output 4x4: each input value fills its
       own 2x2 block */
    float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 1, 1}, y[16];
    tspec t = {1, 2, 2, 1, 1, 2, 2, 2, 2, 4, 4, 0, 0, 0, 0};
    lg_error err;
    CHECK_OK(run_tconv(&t, LG_PADDING_VALID, LG_PREC_F32, x, w, NULL, y, 16, &err), &err);
    float want[16] = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
    check_bits("transpose conv stride 2", y, want, 16);
}

LG_TEST(k_conv_transpose_conv_overlap_hand) {
    /* stride 1, 2x2 ones: the full correlation [[1,3,2],[4,10,6],[3,7,4]] for VALID output
       3x3; SAME with output 2x2 pads (2-1)+2-2 = 1 after, keeping the top-left 2x2;
       bias 0.5 and RELU_N1_TO_1 clamp to [-1, 1] */
    float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 1, 1}, b[1] = {0.5f}, y[9];
    tspec t = {1, 2, 2, 1, 1, 2, 2, 1, 1, 3, 3, 0, 0, 0, 0};
    lg_error err;
    CHECK_OK(run_tconv(&t, LG_PADDING_VALID, LG_PREC_F32, x, w, NULL, y, 9, &err), &err);
    float want[9] = {1, 3, 2, 4, 10, 6, 3, 7, 4};
    check_bits("transpose conv valid", y, want, 9);
    tspec t2 = {1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2, 0, 0, 0, 1};
    CHECK_OK(run_tconv(&t2, LG_PADDING_SAME, LG_PREC_F32, x, w, b, y, 4, &err), &err);
    float want2[4] = {1.5f, 3.5f, 4.5f, 10.5f};
    check_bits("transpose conv same", y, want2, 4);
    t2.act = LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1;
    float xn[4] = {0, 0, 0, -5}; /* the bottom-right input only reaches the bottom-right output */
    CHECK_OK(run_tconv(&t2, LG_PADDING_SAME, LG_PREC_F32, xn, w, b, y, 4, &err), &err);
    float want3[4] = {0.5f, 0.5f, 0.5f, -1}; /* 0 + 0.5; -5 + 0.5 clamps to -1 */
    check_bits("transpose conv relu_n1_to_1", y, want3, 4);
}

static void k_conv_transpose_conv_vs_naive_body(void) {
    /* {nb,h,w,ic,oc,kh,kw,sh,sw, oh,ow, (pads filled below), act, bias} with padding */
    struct { tspec t; int pad; } cases[] = {
        {{1, 4, 5, 5, 3, 3, 3, 2, 2, 8, 10, 0, 0, 1, 1}, LG_PADDING_SAME},
        {{2, 3, 3, 4, 6, 3, 3, 2, 2, 7, 7, 0, 0, 0, 1}, LG_PADDING_VALID},
        {{1, 5, 4, 16, 1, 2, 2, 2, 2, 10, 8, 0, 0, 0, 0}, LG_PADDING_SAME},
        {{1, 6, 6, 9, 20, 4, 4, 2, 2, 12, 12, 0, 0, 3, 1}, LG_PADDING_SAME},
        {{1, 3, 4, 2, 2, 3, 2, 1, 2, 3, 8, 0, 0, 0, 1}, LG_PADDING_SAME},
        {{1, 3, 20, 9, 2, 3, 3, 2, 2, 6, 40, 0, 0, 0, 1}, LG_PADDING_SAME},  /* 8-pixel blocks, 9 channels */
        {{2, 4, 19, 12, 3, 2, 3, 1, 1, 5, 21, 0, 0, 1, 1}, LG_PADDING_VALID}, /* stride 1 blocks */
        {{1, 3, 5, 7, 40, 3, 3, 2, 2, 6, 10, 0, 0, 0, 1}, LG_PADDING_SAME},  /* 40 channels: chains */
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        tspec *t = &cases[ci].t;
        /* TFLite: padding of the forward conv from the (transposed) output back to the input */
        t->ph = pad_before(t->sh, 1, t->oh, t->kh, out_size(cases[ci].pad, t->oh, t->kh, t->sh, 1));
        t->pw = pad_before(t->sw, 1, t->ow, t->kw, out_size(cases[ci].pad, t->ow, t->kw, t->sw, 1));
        int64_t nx = (int64_t)t->nb * t->h * t->w * t->ic, ny = (int64_t)t->nb * t->oh * t->ow * t->oc;
        float *x = rand_buf(nx, 2), *w = rand_buf((int64_t)t->oc * t->kh * t->kw * t->ic, 1), *b = rand_buf(t->oc, 1);
        float *y = malloc((size_t)ny * 4), *want = malloc((size_t)ny * 4);
        for (int k = 0; k < 3; k++) {
            lg_error err;
            char what[64];
            snprintf(what, sizeof what, "transpose conv case %zu", ci);
            if (run_tconv(t, cases[ci].pad, (int)precs[k], x, w, b, y, ny, &err) != LG_OK) {
                tf_fail(__FILE__, __LINE__, "%s: %s", what, err.msg);
                continue;
            }
            ref_tconv(t, (int)precs[k], x, w, t->bias ? b : NULL, want);
            check_mode(what, (int)precs[k], y, want, ny, 0);
        }
        free(x); free(w); free(b); free(y); free(want);
    }
}
LG_TEST(k_conv_transpose_conv_vs_naive) { both_paths(k_conv_transpose_conv_vs_naive_body); }

LG_TEST(k_conv_transpose_conv_errors) {
    lg_error err;
    float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 1, 1}, y[16];
    /* output_shape computed at run time: unsupported */
    kt_model m;
    kt_init(&m);
    int32_t si = lg_b_tensor(&m.b, "shape", LG_INT32, LG_DIMS(4));
    int32_t wi = tm_const(&m, LG_DIMS(1, 2, 2, 1), w);
    int32_t xi = tm_input(&m, LG_DIMS(1, 2, 2, 1), x);
    tm_output(&m, LG_DIMS(1, 4, 4, 1));
    lg_transpose_conv_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_VALID;
    o.stride_h = o.stride_w = 2;
    lg_b_op_opts(&m.b, LG_OP_TRANSPOSE_CONV, LG_IDS(si, wi, xi), LG_IDS(m.outs[0]), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    lg_b_io(&m.b, LG_IDS(si, xi), LG_IDS(m.outs[0]));
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_interp *it = NULL;
    CHECK_EQ_INT(lg_interp_create(m.m, &ro, &it, &err), LG_ERR_UNSUPPORTED);
    CHECK(contains(err.msg, "TRANSPOSE_CONV") && contains(err.msg, "constant"));
    lg_interp_free(it);
    kt_free(&m);
    /* output channels in output_shape differ from the weights' */
    tspec t = {1, 2, 2, 1, 1, 2, 2, 2, 2, 4, 4, 0, 0, 0, 0};
    kt_init(&m);
    int32_t shape[4] = {1, 4, 4, 2};
    si = lg_b_const_i32(&m.b, "shape", LG_DIMS(4), shape);
    wi = tm_const(&m, LG_DIMS(1, 2, 2, 1), w);
    xi = tm_input(&m, LG_DIMS(1, 2, 2, 1), x);
    tm_output(&m, LG_DIMS(1, 4, 4, 2));
    lg_b_op_opts(&m.b, LG_OP_TRANSPOSE_CONV, LG_IDS(si, wi, xi), LG_IDS(m.outs[0]), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    kt_io(&m);
    CHECK_EQ_INT(kt_run_f32(&m, LG_PREC_F32, g_threads, y, 16, NULL, &err), LG_ERR_FORMAT);
    CHECK(contains(err.msg, "channels"));
    kt_free(&m);
    (void)t;
}

/* MediaPipe's custom op: options {padding (1 SAME, 2 VALID), stride_w, stride_h} as int32 */
static lg_status run_tcb(int nb, int h, int w, int ic, int oc, int kh, int kw, int pad, int sw, int sh, int p,
                         const float *x, const float *wt, const float *b, float *y, int64_t cap, int *oh, int *ow,
                         lg_error *err) {
    int tph = 0, tpw = 0;
    if (pad == 1) {
        tph = kh - (h - 1) % sh - 1;
        tpw = kw - (w - 1) % sw - 1;
        if (tph < 0) tph = 0;
        if (tpw < 0) tpw = 0;
    }
    *oh = sh * (h - 1) + kh - tph;
    *ow = sw * (w - 1) + kw - tpw;
    kt_model m;
    kt_init(&m);
    int32_t xi = tm_input(&m, LG_DIMS(nb, h, w, ic), x);
    int32_t wi = tm_const(&m, LG_DIMS(oc, kh, kw, ic), wt);
    int32_t bi = tm_const(&m, LG_DIMS(oc), b);
    int32_t yi = tm_output(&m, LG_DIMS(nb, *oh, *ow, oc));
    uint8_t opts[12];
    int32_t v[3] = {pad, sw, sh};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++) opts[4 * i + k] = (uint8_t)((uint32_t)v[i] >> (8 * k));
    lg_b_custom(&m.b, "Convolution2DTransposeBias", LG_IDS(xi, wi, bi), LG_IDS(yi), opts, 12);
    kt_io(&m);
    lg_status st = kt_run_f32(&m, (lg_precision)p, g_threads, y, cap, NULL, err);
    kt_free(&m);
    return st;
}

LG_TEST(k_conv_transpose_conv_bias_hand) {
    /* MediaPipe: SAME, 2x2 kernel, stride 2: padding max(0, 2 - (2-1)%2 - 1) = 0, output
       2*(2-1)+2 = 4; each input fills a 2x2 block, plus bias 0.5 */
    float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 1, 1}, b[1] = {0.5f}, y[16];
    int oh, ow;
    lg_error err;
    CHECK_OK(run_tcb(1, 2, 2, 1, 1, 2, 2, 1, 2, 2, LG_PREC_F32, x, w, b, y, 16, &oh, &ow, &err), &err);
    CHECK_EQ_INT(oh, 4);
    CHECK_EQ_INT(ow, 4);
    float want[16] = {1.5f, 1.5f, 2.5f, 2.5f, 1.5f, 1.5f, 2.5f, 2.5f, 3.5f, 3.5f, 4.5f, 4.5f, 3.5f, 3.5f, 4.5f, 4.5f};
    check_bits("Convolution2DTransposeBias", y, want, 16);
}

static void k_conv_transpose_conv_bias_vs_naive_body(void) {
    /* {h, w, ic, oc, kh, kw, pad, sw, sh}; includes the selfie model's 2x2 s2 SAME (oc 1) and
       the 4x4 s2 SAME of TFLite's converter test (output 2x, padding 1) */
    int cases[][9] = {{8, 8, 16, 1, 2, 2, 1, 2, 2}, {6, 5, 7, 4, 4, 4, 1, 2, 2}, {3, 4, 3, 5, 3, 3, 2, 1, 2},
                      {5, 5, 2, 3, 3, 3, 1, 2, 2}};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int *c = cases[ci];
        int64_t nx = (int64_t)c[0] * c[1] * c[2];
        float *x = rand_buf(nx, 2), *w = rand_buf((int64_t)c[3] * c[4] * c[5] * c[2], 1), *b = rand_buf(c[3], 1);
        int oh, ow;
        float *y = malloc(4096 * 4), *want = malloc(4096 * 4);
        for (int k = 0; k < 3; k++) {
            lg_error err;
            char what[64];
            snprintf(what, sizeof what, "Convolution2DTransposeBias case %zu", ci);
            if (run_tcb(1, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], (int)precs[k], x, w, b, y, 4096, &oh,
                        &ow, &err) != LG_OK) {
                tf_fail(__FILE__, __LINE__, "%s: %s", what, err.msg);
                continue;
            }
            int tph = c[6] == 1 ? c[4] - (c[0] - 1) % c[8] - 1 : 0, tpw = c[6] == 1 ? c[5] - (c[1] - 1) % c[7] - 1 : 0;
            if (tph < 0) tph = 0;
            if (tpw < 0) tpw = 0;
            tspec t = {1, c[0], c[1], c[2], c[3], c[4], c[5], c[8], c[7], oh, ow, tph / 2, tpw / 2, 0, 1};
            ref_tconv(&t, (int)precs[k], x, w, b, want);
            check_mode(what, (int)precs[k], y, want, (int64_t)oh * ow * c[3], 0);
        }
        free(x); free(w); free(b); free(y); free(want);
    }
    /* 4x4 stride 2 SAME: height 6 -> 2*5 + 4 - (4 - 5%2 - 1) = 12 (doubled, padding 1 each
       side); width 5 -> 2*4 + 4 - (4 - 4%2 - 1) = 9 */
    float x[30 * 7] = {0}, w[4 * 16 * 7] = {0}, b[4] = {0}, y[12 * 10 * 4];
    int oh, ow;
    lg_error err;
    CHECK_OK(run_tcb(1, 6, 5, 7, 4, 4, 4, 1, 2, 2, LG_PREC_F32, x, w, b, y, 480, &oh, &ow, &err), &err);
    CHECK_EQ_INT(oh, 12);
    CHECK_EQ_INT(ow, 9);
}
LG_TEST(k_conv_transpose_conv_bias_vs_naive) { both_paths(k_conv_transpose_conv_bias_vs_naive_body); }

LG_TEST(k_conv_transpose_conv_bias_errors) {
    lg_error err;
    kt_model m;
    kt_init(&m);
    float x[4] = {0}, w[4] = {0}, b[1] = {0};
    int32_t xi = tm_input(&m, LG_DIMS(1, 2, 2, 1), x);
    int32_t wi = tm_const(&m, LG_DIMS(1, 2, 2, 1), w);
    int32_t bi = tm_const(&m, LG_DIMS(1), b);
    tm_output(&m, LG_DIMS(1, 4, 4, 1));
    uint8_t opts[8] = {1, 0, 0, 0, 2, 0, 0, 0};
    lg_b_custom(&m.b, "Convolution2DTransposeBias", LG_IDS(xi, wi, bi), LG_IDS(m.outs[0]), opts, 8);
    kt_io(&m);
    float y[16];
    CHECK_EQ_INT(kt_run_f32(&m, LG_PREC_F32, g_threads, y, 16, NULL, &err), LG_ERR_FORMAT);
    CHECK(contains(err.msg, "Convolution2DTransposeBias") && contains(err.msg, "12"));
    kt_free(&m);
}

/* ================================================================== FULLY_CONNECTED */

static lg_status run_fc(int rank, const int32_t *xshape, int units, int in, int keep, int act, int w_runtime, int p,
                        const float *x, const float *w, const float *b, float *y, int64_t cap, int64_t *numel,
                        lg_error *err) {
    kt_model m;
    kt_init(&m);
    int64_t total = 1;
    for (int i = 0; i < rank; i++) total *= xshape[i];
    int32_t xi = tm_input(&m, (lg_dims){xshape, (uint32_t)rank}, x);
    int32_t wi = w_runtime ? tm_input(&m, LG_DIMS(units, in), w) : tm_const(&m, LG_DIMS(units, in), w);
    int32_t bi = b ? tm_const(&m, LG_DIMS(units), b) : -1;
    int32_t oshape[8];
    uint32_t orank;
    if (keep) {
        memcpy(oshape, xshape, (size_t)rank * 4);
        oshape[rank - 1] = units;
        orank = (uint32_t)rank;
    } else {
        oshape[0] = (int32_t)(total / in);
        oshape[1] = units;
        orank = 2;
    }
    int32_t yi = tm_output(&m, (lg_dims){oshape, orank});
    lg_fully_connected_options o;
    memset(&o, 0, sizeof o);
    o.keep_num_dims = keep != 0;
    o.fused_activation_function = (int8_t)act;
    if (b) lg_b_op_opts(&m.b, LG_OP_FULLY_CONNECTED, LG_IDS(xi, wi, bi), LG_IDS(yi), LG_OPTS_FULLY_CONNECTED_OPTIONS, &o);
    else lg_b_op_opts(&m.b, LG_OP_FULLY_CONNECTED, LG_IDS(xi, wi, -1), LG_IDS(yi), LG_OPTS_FULLY_CONNECTED_OPTIONS, &o);
    kt_io(&m);
    lg_status st = kt_run_f32(&m, (lg_precision)p, g_threads, y, cap, numel, err);
    kt_free(&m);
    return st;
}

static void ref_fc(int p, int64_t batch, int units, int in, const float *x, const float *w, const float *b, int act,
                   float *y) {
    for (int64_t r = 0; r < batch; r++)
        for (int u = 0; u < units; u++) {
            acc_t a = acc0(p);
            float f = b ? stor(p, b[u]) : 0.0f, q[4] = {f, 0, 0, 0};
            for (int k = 0; k < in; k++) {
                float xv = stor(p, x[r * in + k]), wv = stor(p, w[u * in + k]);
                acc_mac(&a, xv, wv);
                f = f + xv * wv;
                c4_add(q, k, in, xv, wv);
            }
            c4_pad(q, in);
            if (xnn_c4(units, 1)) f = c4_sum(q);
            if (b) acc_add(&a, stor(p, b[u]));
            y[r * units + u] = stor(p, act_clamp(act, p == LG_PREC_F16 ? acc_val(&a) : f));
        }
}

LG_TEST(k_conv_fully_connected_hand) {
    /* x [1,2,3]; W rows [1,0,-1] -> -2 and [2,1,0] -> 4; bias [0.5,-1] -> -1.5, 3; RELU -> 0, 3 */
    float x[3] = {1, 2, 3}, w[6] = {1, 0, -1, 2, 1, 0}, b[2] = {0.5f, -1}, y[2];
    int32_t xs[2] = {1, 3};
    lg_error err;
    CHECK_OK(run_fc(2, xs, 2, 3, 0, 0, 0, LG_PREC_F32, x, w, b, y, 2, NULL, &err), &err);
    float want[2] = {-1.5f, 3};
    check_bits("fully connected", y, want, 2);
    CHECK_OK(run_fc(2, xs, 2, 3, 0, LG_ACTIVATION_FUNCTION_TYPE_RELU, 1, LG_PREC_F32, x, w, b, y, 2, NULL, &err), &err);
    float want2[2] = {0, 3};
    check_bits("fully connected relu, runtime weights", y, want2, 2);
    CHECK_OK(run_fc(2, xs, 2, 3, 0, 0, 0, LG_PREC_F32, x, w, NULL, y, 2, NULL, &err), &err);
    float want3[2] = {-2, 4};
    check_bits("fully connected no bias", y, want3, 2);
}

LG_TEST(k_conv_fully_connected_shapes) {
    /* input [2,1,3] = rows [1,2,3], [4,5,6]; W [[1,1,1]] -> 6, 15. keep_num_dims keeps [2,1,1],
       otherwise [2,1] */
    float x[6] = {1, 2, 3, 4, 5, 6}, w[3] = {1, 1, 1}, y[2];
    int32_t xs[3] = {2, 1, 3};
    int64_t numel = 0;
    lg_error err;
    for (int keep = 0; keep <= 1; keep++) {
        CHECK_OK(run_fc(3, xs, 1, 3, keep, 0, 0, LG_PREC_F32, x, w, NULL, y, 2, &numel, &err), &err);
        CHECK_EQ_INT(numel, 2);
        float want[2] = {6, 15};
        check_bits("fully connected batch", y, want, 2);
    }
    /* input [1,6] seen as 2 rows of 3 (TFLite flattens all but the features) */
    int32_t xs2[2] = {1, 6};
    CHECK_OK(run_fc(2, xs2, 1, 3, 0, 0, 0, LG_PREC_F32, x, w, NULL, y, 2, &numel, &err), &err);
    CHECK_EQ_INT(numel, 2);
    CHECK(y[0] == 6 && y[1] == 15);
    /* keep_num_dims needs the last dimension to be the features */
    CHECK_EQ_INT(run_fc(2, xs2, 1, 3, 1, 0, 0, LG_PREC_F32, x, w, NULL, y, 2, &numel, &err), LG_ERR_FORMAT);
    CHECK(contains(err.msg, "keep_num_dims"));
    /* 7 values are not rows of 3 */
    int32_t xs3[2] = {1, 7};
    float x7[7] = {0};
    CHECK_EQ_INT(run_fc(2, xs3, 1, 3, 0, 0, 0, LG_PREC_F32, x7, w, NULL, y, 2, &numel, &err), LG_ERR_FORMAT);
    /* empty batch */
    int32_t xs4[2] = {0, 3};
    CHECK_OK(run_fc(2, xs4, 1, 3, 0, 0, 0, LG_PREC_F32, x, w, NULL, y, 2, &numel, &err), &err);
    CHECK_EQ_INT(numel, 0);
}

static void k_conv_fully_connected_vs_naive_body(void) {
    /* {batch, in, units, bias}: units 63 and 8 and 24 one chain, 19, 1, 33, 6 c4; the last
       four: 1-4 units over many rows and 8-blocks of inputs (f16: vectors across rows) */
    int cases[][4] = {{1, 672, 63, 1}, {5, 40, 19, 0}, {9, 17, 8, 1}, {1, 3, 1, 0}, {4, 128, 33, 1}, {3, 30, 6, 1},
                      {7, 21, 24, 1}, {70, 37, 1, 1}, {11, 64, 2, 0}, {17, 9, 3, 1}, {20, 16, 4, 1}};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int batch = cases[ci][0], in = cases[ci][1], units = cases[ci][2], hasb = cases[ci][3];
        float *x = rand_buf((int64_t)batch * in, 2), *w = rand_buf((int64_t)units * in, 1), *b = rand_buf(units, 1);
        float *y = malloc((size_t)batch * units * 4), *want = malloc((size_t)batch * units * 4);
        int32_t xs[2] = {batch, in};
        for (int k = 0; k < 3; k++) {
            lg_error err;
            char what[64];
            snprintf(what, sizeof what, "fully connected case %zu", ci);
            if (run_fc(2, xs, units, in, 0, 3, (int)(ci & 1), (int)precs[k], x, w, hasb ? b : NULL, y,
                       (int64_t)batch * units, NULL, &err) != LG_OK) {
                tf_fail(__FILE__, __LINE__, "%s: %s", what, err.msg);
                continue;
            }
            ref_fc((int)precs[k], batch, units, in, x, w, hasb ? b : NULL, 3, want);
            check_mode(what, (int)precs[k], y, want, (int64_t)batch * units, 0);
        }
        free(x); free(w); free(b); free(y); free(want);
    }
}
LG_TEST(k_conv_fully_connected_vs_naive) { both_paths(k_conv_fully_connected_vs_naive_body); }

LG_TEST(k_conv_fully_connected_f16_overflow) {
    /* 600 inputs of 200 with weights 1: 120000 in fp32; the half accumulator overflows at the
       328th term. 800 inputs with weights +1 then -1: 0 in fp32 and f32_f16 (half storage,
       fp32 sum), inf in f16 (the running sum passed 65504 at 400 * 200 = 80000) */
    float x[800], w[800], y[1];
    for (int i = 0; i < 800; i++) { x[i] = 200; w[i] = 1; }
    int32_t xs[2] = {1, 600};
    lg_error err;
    CHECK_OK(run_fc(2, xs, 1, 600, 0, 0, 0, LG_PREC_F32, x, w, NULL, y, 1, NULL, &err), &err);
    CHECK(y[0] == 120000.0f);
    CHECK_OK(run_fc(2, xs, 1, 600, 0, 0, 0, LG_PREC_F16, x, w, NULL, y, 1, NULL, &err), &err);
    CHECK(isinf(y[0]));
    for (int i = 400; i < 800; i++) w[i] = -1;
    int32_t xs2[2] = {1, 800};
    CHECK_OK(run_fc(2, xs2, 1, 800, 0, 0, 0, LG_PREC_F32, x, w, NULL, y, 1, NULL, &err), &err);
    CHECK(y[0] == 0.0f);
    CHECK_OK(run_fc(2, xs2, 1, 800, 0, 0, 0, LG_PREC_F32_F16, x, w, NULL, y, 1, NULL, &err), &err);
    CHECK(y[0] == 0.0f);
    CHECK_OK(run_fc(2, xs2, 1, 800, 0, 0, 0, LG_PREC_F16, x, w, NULL, y, 1, NULL, &err), &err);
    CHECK(isinf(y[0]));
}

/* ================================================================== BATCH_MATMUL */

static lg_status run_bmm(lg_dims ls, lg_dims rs, lg_dims os, int adj_x, int adj_y, int p, const float *l,
                         const float *r, float *y, int64_t cap, lg_error *err) {
    kt_model m;
    kt_init(&m);
    int32_t li = tm_input(&m, ls, l);
    int32_t ri = tm_input(&m, rs, r);
    int32_t yi = tm_output(&m, os);
    lg_batch_mat_mul_options o;
    memset(&o, 0, sizeof o);
    o.adj_x = adj_x != 0;
    o.adj_y = adj_y != 0;
    lg_b_op_opts(&m.b, LG_OP_BATCH_MATMUL, LG_IDS(li, ri), LG_IDS(yi), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o);
    kt_io(&m);
    lg_status st = kt_run_f32(&m, (lg_precision)p, g_threads, y, cap, NULL, err);
    kt_free(&m);
    return st;
}

LG_TEST(k_conv_batch_matmul_hand) {
    /* [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]];
       adj_x uses lhs^T = [[1,3],[2,4]]: [[26,30],[38,44]];
       adj_y uses rhs^T = [[5,7],[6,8]]: [[17,23],[39,53]] */
    float l[4] = {1, 2, 3, 4}, r[4] = {5, 6, 7, 8}, y[4];
    lg_error err;
    float want[3][4] = {{19, 22, 43, 50}, {26, 30, 38, 44}, {17, 23, 39, 53}};
    for (int k = 0; k < 3; k++) {
        CHECK_OK(run_bmm(LG_DIMS(2, 2), LG_DIMS(2, 2), LG_DIMS(2, 2), k == 1, k == 2, LG_PREC_F32, l, r, y, 4, &err), &err);
        check_bits("batch matmul", y, want[k], 4);
    }
    /* [1,3] x [3,1] */
    float a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
    CHECK_OK(run_bmm(LG_DIMS(1, 3), LG_DIMS(3, 1), LG_DIMS(1, 1), 0, 0, LG_PREC_F32, a, b, y, 1, &err), &err);
    CHECK(y[0] == 32);
}

static void k_conv_batch_matmul_broadcast_vs_naive_body(void) {
    /* lhs [2,1,3,5], rhs [3,5,4]: output [2,3,3,4]; lhs batch (i,0) pairs with rhs batch j */
    int B0 = 2, B1 = 3, M = 3, K = 5, N = 4;
    float *l = rand_buf((int64_t)B0 * M * K, 2), *r = rand_buf((int64_t)B1 * K * N, 1);
    int64_t ny = (int64_t)B0 * B1 * M * N;
    float *y = malloc((size_t)ny * 4), *want = malloc((size_t)ny * 4);
    for (int adj = 0; adj < 4; adj++) {
        int ax = adj & 1, ay = adj >> 1;
        /* with adjoints the stored operands are the transposes: lhs [.., K, M], rhs [.., N, K] */
        lg_dims ls = ax ? LG_DIMS(B0, 1, K, M) : LG_DIMS(B0, 1, M, K);
        lg_dims rs = ay ? LG_DIMS(B1, N, K) : LG_DIMS(B1, K, N);
        for (int k = 0; k < 3; k++) {
            int p = (int)precs[k];
            lg_error err;
            if (run_bmm(ls, rs, LG_DIMS(B0, B1, M, N), ax, ay, p, l, r, y, ny, &err) != LG_OK) {
                tf_fail(__FILE__, __LINE__, "batch matmul: %s", err.msg);
                continue;
            }
            for (int i = 0; i < B0; i++)
                for (int j = 0; j < B1; j++)
                    for (int mm = 0; mm < M; mm++)
                        for (int nn = 0; nn < N; nn++) {
                            acc_t a = acc0(p);
                            float f = 0;
                            for (int kk = 0; kk < K; kk++) {
                                float lv = ax ? l[(i * K + kk) * M + mm] : l[(i * M + mm) * K + kk];
                                float rv = ay ? r[(j * N + nn) * K + kk] : r[(j * K + kk) * N + nn];
                                acc_mac(&a, stor(p, lv), stor(p, rv));
                                f = f + stor(p, lv) * stor(p, rv);
                            }
                            want[((i * B1 + j) * M + mm) * N + nn] = stor(p, p == LG_PREC_F16 ? acc_val(&a) : f);
                        }
            char what[64];
            snprintf(what, sizeof what, "batch matmul adj_x %d adj_y %d", ax, ay);
            check_mode(what, p, y, want, ny, 0);
        }
    }
    free(l); free(r); free(y); free(want);
}
LG_TEST(k_conv_batch_matmul_broadcast_vs_naive) { both_paths(k_conv_batch_matmul_broadcast_vs_naive_body); }

LG_TEST(k_conv_batch_matmul_errors) {
    float l[6] = {0}, r[6] = {0}, y[9];
    lg_error err;
    /* inner dimensions 3 vs 2 */
    CHECK_EQ_INT(run_bmm(LG_DIMS(2, 3), LG_DIMS(2, 3), LG_DIMS(2, 3), 0, 0, LG_PREC_F32, l, r, y, 9, &err), LG_ERR_FORMAT);
    CHECK(contains(err.msg, "BATCH_MATMUL") && contains(err.msg, "inner"));
    /* batch 2 vs 3 do not broadcast */
    float l2[12] = {0}, r2[12] = {0};
    CHECK_EQ_INT(run_bmm(LG_DIMS(2, 2, 3), LG_DIMS(3, 3, 1), LG_DIMS(3, 2, 1), 0, 0, LG_PREC_F32, l2, r2, y, 9, &err),
                 LG_ERR_FORMAT);
    CHECK(contains(err.msg, "broadcast"));
}

/* ================================================================== pools */

static lg_status run_pool(int op, int nb, int h, int w, int c, int fh, int fw, int sh, int sw, int pad, int act, int p,
                          const float *x, float *y, int64_t cap, lg_error *err) {
    kt_model m;
    kt_init(&m);
    int oh = out_size(pad, h, fh, sh, 1), ow = out_size(pad, w, fw, sw, 1);
    int32_t xi = tm_input(&m, LG_DIMS(nb, h, w, c), x);
    int32_t yi = tm_output(&m, LG_DIMS(nb, oh, ow, c));
    lg_pool2d_options o;
    memset(&o, 0, sizeof o);
    o.padding = (int8_t)pad;
    o.filter_height = fh;
    o.filter_width = fw;
    o.stride_h = sh;
    o.stride_w = sw;
    o.fused_activation_function = (int8_t)act;
    lg_b_op_opts(&m.b, op, LG_IDS(xi), LG_IDS(yi), LG_OPTS_POOL2D_OPTIONS, &o);
    kt_io(&m);
    lg_status st = kt_run_f32(&m, (lg_precision)p, g_threads, y, cap, NULL, err);
    kt_free(&m);
    return st;
}

LG_TEST(k_conv_avg_pool_hand) {
    /* 3x3 image 1..9, 2x2 SAME stride 2: out 2x2, padding 1 after. Cells in bounds only:
       avg(1,2,4,5) = 3, avg(3,6) = 4.5, avg(7,8) = 7.5, avg(9) = 9 */
    float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, y[9];
    lg_error err;
    CHECK_OK(run_pool(LG_OP_AVERAGE_POOL_2D, 1, 3, 3, 1, 2, 2, 2, 2, LG_PADDING_SAME, 0, LG_PREC_F32, x, y, 4, &err), &err);
    float want[4] = {3, 4.5f, 7.5f, 9};
    check_bits("average pool same", y, want, 4);
    /* 3x3 SAME stride 1: the corner averages 4 cells: avg(1,2,4,5) = 3; centre all 9: 5 */
    CHECK_OK(run_pool(LG_OP_AVERAGE_POOL_2D, 1, 3, 3, 1, 3, 3, 1, 1, LG_PADDING_SAME, 0, LG_PREC_F32, x, y, 9, &err), &err);
    CHECK(y[0] == 3 && y[4] == 5 && y[8] == 7); /* avg(5,6,8,9) = 7 */
    /* RELU6 clamps the averages above 6 */
    CHECK_OK(run_pool(LG_OP_AVERAGE_POOL_2D, 1, 3, 3, 1, 2, 2, 2, 2, LG_PADDING_SAME, 3, LG_PREC_F32, x, y, 4, &err), &err);
    float want2[4] = {3, 4.5f, 6, 6};
    check_bits("average pool relu6", y, want2, 4);
}

LG_TEST(k_conv_max_pool_hand) {
    /* 3x3 image 1..9 negated except 5, 2x2 SAME stride 2: max of (-1,-2,-4,5) = 5, (-3,-6) = -3,
       (-7,-8) = -7, (-9) = -9; RELU -> 5, 0, 0, 0 */
    float x[9] = {-1, -2, -3, -4, 5, -6, -7, -8, -9}, y[4];
    lg_error err;
    CHECK_OK(run_pool(LG_OP_MAX_POOL_2D, 1, 3, 3, 1, 2, 2, 2, 2, LG_PADDING_SAME, 0, LG_PREC_F32, x, y, 4, &err), &err);
    float want[4] = {5, -3, -7, -9};
    check_bits("max pool same", y, want, 4);
    CHECK_OK(run_pool(LG_OP_MAX_POOL_2D, 1, 3, 3, 1, 2, 2, 2, 2, LG_PADDING_SAME, 1, LG_PREC_F32, x, y, 4, &err), &err);
    float want2[4] = {5, 0, 0, 0};
    check_bits("max pool relu", y, want2, 4);
    /* VALID 2x2 stride 1 on 2 channels: [x, 10x] */
    float x2[18];
    for (int i = 0; i < 9; i++) { x2[2 * i] = (float)(i + 1); x2[2 * i + 1] = (float)(10 * (9 - i)); }
    float y2[8];
    CHECK_OK(run_pool(LG_OP_MAX_POOL_2D, 1, 3, 3, 2, 2, 2, 1, 1, LG_PADDING_VALID, 0, LG_PREC_F32, x2, y2, 8, &err), &err);
    float want3[8] = {5, 90, 6, 80, 8, 60, 9, 50};
    check_bits("max pool valid 2 channels", y2, want3, 8);
}

/* max: TFLite's (from the lowest float). average, f16: a running half sum in row-major order,
   then the division. average, fp32: XNNPACK's chunks of 9 cells taken column-major (zeros
   outside the image), each chunk summed as ((c0+c1)+c8 + (c6+c7)) + ((c2+c3) + (c4+c5)) and
   added to the total, times 1/count: LiteRT.js's results bit for bit. */
static float xnn_cell(int p, const float *x, int n_, int h, int w, int c, int ch, int fh, int iy0, int ix0, int e,
                      int n) {
    if (e >= n) return 0.0f;
    int iy = iy0 + e % fh, ix = ix0 + e / fh;
    if (iy < 0 || iy >= h || ix < 0 || ix >= w) return 0.0f;
    return stor(p, x[((n_ * h + iy) * w + ix) * c + ch]);
}

static void ref_pool(int max, int p, int nb, int h, int w, int c, int fh, int fw, int sh, int sw, int pad, int act,
                     const float *x, float *y) {
    int oh = out_size(pad, h, fh, sh, 1), ow = out_size(pad, w, fw, sw, 1);
    int ph = pad_before(sh, 1, h, fh, oh), pw = pad_before(sw, 1, w, fw, ow);
    for (int n = 0; n < nb; n++)
        for (int oy = 0; oy < oh; oy++)
            for (int ox = 0; ox < ow; ox++)
                for (int ch = 0; ch < c; ch++) {
                    acc_t a = acc0(p);
                    float mx = -3.40282347e+38f;
                    int cnt = 0;
                    for (int fy = 0; fy < fh; fy++)
                        for (int fx = 0; fx < fw; fx++) {
                            int iy = oy * sh - ph + fy, ix = ox * sw - pw + fx;
                            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                            float v = stor(p, x[((n * h + iy) * w + ix) * c + ch]);
                            if (mx < v) mx = v;
                            acc_add(&a, v);
                            cnt++;
                        }
                    float v;
                    if (max) {
                        v = mx;
                    } else if (p == LG_PREC_F16) {
                        /* the delegate's pooling.cc: an fp32 sum of the (half) cells in row-major
                           order, divided in fp32, rounded once by stor() below */
                        float sum = 0;
                        for (int fy = 0; fy < fh; fy++)
                            for (int fx = 0; fx < fw; fx++) {
                                int iy = oy * sh - ph + fy, ix = ox * sw - pw + fx;
                                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                                sum = sum + stor(p, x[((n * h + iy) * w + ix) * c + ch]);
                            }
                        v = sum / (float)cnt;
                    } else {
                        int iy0 = oy * sh - ph, ix0 = ox * sw - pw, ne = fh * fw;
                        float tot = 0;
                        for (int e = 0; e < ne; e += 9) {
                            float q[9];
                            for (int j = 0; j < 9; j++) q[j] = xnn_cell(p, x, n, h, w, c, ch, fh, iy0, ix0, e + j, ne);
                            float s018 = (q[0] + q[1]) + q[8], s23 = q[2] + q[3], s45 = q[4] + q[5], s67 = q[6] + q[7];
                            tot = tot + ((s23 + s45) + (s018 + s67));
                        }
                        v = tot * (1.0f / (float)cnt);
                    }
                    y[((n * oh + oy) * ow + ox) * c + ch] = stor(p, act_clamp(act, v));
                }
}

static void k_conv_pools_vs_naive_body(void) {
    /* {nb,h,w,c,fh,fw,sh,sw,pad,act} */
    int cases[][10] = {{1, 9, 9, 16, 3, 3, 2, 2, LG_PADDING_SAME, 0},  {2, 8, 7, 13, 2, 2, 2, 2, LG_PADDING_VALID, 1},
                       {1, 16, 16, 20, 16, 16, 16, 16, LG_PADDING_VALID, 0}, {1, 7, 7, 3, 3, 3, 1, 1, LG_PADDING_SAME, 3},
                       {1, 5, 6, 9, 4, 2, 3, 1, LG_PADDING_SAME, 0},  {1, 11, 10, 8, 5, 4, 2, 3, LG_PADDING_SAME, 0},
                       {1, 12, 13, 40, 3, 3, 2, 2, LG_PADDING_SAME, 1}};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int *c = cases[ci];
        int oh = out_size(c[8], c[1], c[4], c[6], 1), ow = out_size(c[8], c[2], c[5], c[7], 1);
        int64_t nx = (int64_t)c[0] * c[1] * c[2] * c[3], ny = (int64_t)c[0] * oh * ow * c[3];
        float *x = rand_buf(nx, 8), *y = malloc((size_t)ny * 4), *want = malloc((size_t)ny * 4);
        for (int max = 0; max <= 1; max++)
            for (int k = 0; k < 3; k++) {
                lg_error err;
                char what[64];
                snprintf(what, sizeof what, "%s case %zu", max ? "max pool" : "average pool", ci);
                if (run_pool(max ? LG_OP_MAX_POOL_2D : LG_OP_AVERAGE_POOL_2D, c[0], c[1], c[2], c[3], c[4], c[5], c[6],
                             c[7], c[8], c[9], (int)precs[k], x, y, ny, &err) != LG_OK) {
                    tf_fail(__FILE__, __LINE__, "%s: %s", what, err.msg);
                    continue;
                }
                ref_pool(max, (int)precs[k], c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], x, want);
                check_mode(what, (int)precs[k], y, want, ny, 0);
            }
        free(x); free(y); free(want);
    }
}
LG_TEST(k_conv_pools_vs_naive) { both_paths(k_conv_pools_vs_naive_body); }

LG_TEST(k_conv_avg_pool_f16_float_accumulator) {
    /* The GPU delegate's average pool sums in float4 even in F16 precision and rounds once
       (tflite/delegates/gpu/common/tasks/pooling.cc, GetAveragePoolingKernelCode: `float4 r`,
       `TO_FLT4(r / window_size)`). A 1x600 window over 200s: the sum 120000 is past 65504
       (a half accumulator would be inf from 328 * 200 on) but is fine in fp32; 120000 / 600 =
       200 in every mode. */
    float x[600], y[1];
    for (int i = 0; i < 600; i++) x[i] = 200;
    lg_error err;
    CHECK_OK(run_pool(LG_OP_AVERAGE_POOL_2D, 1, 1, 600, 1, 1, 600, 1, 600, LG_PADDING_VALID, 0, LG_PREC_F32, x, y, 1, &err), &err);
    CHECK(y[0] == 200);
    CHECK_OK(run_pool(LG_OP_AVERAGE_POOL_2D, 1, 1, 600, 1, 1, 600, 1, 600, LG_PADDING_VALID, 0, LG_PREC_F32_F16, x, y, 1, &err), &err);
    CHECK(y[0] == 200);
    CHECK_OK(run_pool(LG_OP_AVERAGE_POOL_2D, 1, 1, 600, 1, 1, 600, 1, 600, LG_PADDING_VALID, 0, LG_PREC_F16, x, y, 1, &err), &err);
    CHECK(y[0] == 200);
    /* one rounding, at the end: a 1x4 window {2048, 1, 1, 1}. fp32: 2051 / 4 = 512.75, a tie
       between the halves 512.5 and 513 (spacing 0.5): to even, 513. A half accumulator would
       give 2048 (2048 + 1 rounds back to 2048 three times) / 4 = 512. */
    const float w4[4] = {2048, 1, 1, 1};
    CHECK_OK(run_pool(LG_OP_AVERAGE_POOL_2D, 1, 1, 4, 1, 1, 4, 1, 4, LG_PADDING_VALID, 0, LG_PREC_F16, w4, y, 1, &err), &err);
    CHECK(y[0] == 513);
    /* max pool has no accumulator: 200 in every mode */
    CHECK_OK(run_pool(LG_OP_MAX_POOL_2D, 1, 1, 600, 1, 1, 600, 1, 600, LG_PADDING_VALID, 0, LG_PREC_F16, x, y, 1, &err), &err);
    CHECK(y[0] == 200);
}

LG_TEST(k_conv_pool_errors_and_empty) {
    float x[4] = {1, 2, 3, 4}, y[4];
    lg_error err;
    /* filter 0 */
    CHECK_EQ_INT(run_pool(LG_OP_MAX_POOL_2D, 1, 2, 2, 1, 0, 2, 1, 1, LG_PADDING_VALID, 0, LG_PREC_F32, x, y, 4, &err), LG_ERR_FORMAT);
    CHECK(contains(err.msg, "MAX_POOL_2D") && contains(err.msg, "filter"));
    /* an empty batch runs and writes nothing */
    CHECK_OK(run_pool(LG_OP_AVERAGE_POOL_2D, 0, 2, 2, 1, 2, 2, 1, 1, LG_PADDING_VALID, 0, LG_PREC_F32, x, y, 4, &err), &err);
    /* a 1x1 window is the identity */
    CHECK_OK(run_pool(LG_OP_AVERAGE_POOL_2D, 1, 2, 2, 1, 1, 1, 1, 1, LG_PADDING_VALID, 0, LG_PREC_F32, x, y, 4, &err), &err);
    check_bits("average pool 1x1", y, x, 4);
}

/* ================================================================== quantized models */

/* every op of the family refuses int8 tensors (float only for now), naming the type */
LG_TEST(k_conv_quantized_unsupported) {
    int8_t q[64] = {0};
    struct { int op; lg_opts_kind kind; } ops[] = {{LG_OP_DEPTHWISE_CONV_2D, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS},
                                                   {LG_OP_FULLY_CONNECTED, LG_OPTS_FULLY_CONNECTED_OPTIONS},
                                                   {LG_OP_AVERAGE_POOL_2D, LG_OPTS_POOL2D_OPTIONS},
                                                   {LG_OP_MAX_POOL_2D, LG_OPTS_POOL2D_OPTIONS},
                                                   {LG_OP_BATCH_MATMUL, LG_OPTS_BATCH_MAT_MUL_OPTIONS}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        kt_model t;
        kt_init(&t);
        int32_t xi = lg_b_tensor(&t.b, "q", LG_INT8, LG_DIMS(1, 2, 2, 4));
        int32_t yi;
        union {
            lg_depthwise_conv2d_options dw;
            lg_fully_connected_options fc;
            lg_pool2d_options pool;
            lg_batch_mat_mul_options bmm;
        } o;
        memset(&o, 0, sizeof o);
        if (ops[i].op == LG_OP_DEPTHWISE_CONV_2D) {
            o.dw.stride_h = o.dw.stride_w = o.dw.dilation_h_factor = o.dw.dilation_w_factor = o.dw.depth_multiplier = 1;
            int32_t wi = lg_b_const(&t.b, "w", LG_INT8, LG_DIMS(1, 1, 1, 4), q, 4);
            yi = lg_b_tensor(&t.b, "y", LG_INT8, LG_DIMS(1, 2, 2, 4));
            lg_b_op_opts(&t.b, ops[i].op, LG_IDS(xi, wi), LG_IDS(yi), ops[i].kind, &o);
        } else if (ops[i].op == LG_OP_FULLY_CONNECTED) {
            int32_t wi = lg_b_const(&t.b, "w", LG_INT8, LG_DIMS(3, 4), q, 12);
            yi = lg_b_tensor(&t.b, "y", LG_INT8, LG_DIMS(4, 3));
            lg_b_op_opts(&t.b, ops[i].op, LG_IDS(xi, wi), LG_IDS(yi), ops[i].kind, &o);
        } else if (ops[i].op == LG_OP_BATCH_MATMUL) {
            int32_t wi = lg_b_const(&t.b, "w", LG_INT8, LG_DIMS(4, 2), q, 8);
            yi = lg_b_tensor(&t.b, "y", LG_INT8, LG_DIMS(1, 2, 2, 2));
            lg_b_op_opts(&t.b, ops[i].op, LG_IDS(xi, wi), LG_IDS(yi), ops[i].kind, &o);
        } else {
            o.pool.stride_h = o.pool.stride_w = o.pool.filter_height = o.pool.filter_width = 1;
            yi = lg_b_tensor(&t.b, "y", LG_INT8, LG_DIMS(1, 2, 2, 4));
            lg_b_op_opts(&t.b, ops[i].op, LG_IDS(xi), LG_IDS(yi), ops[i].kind, &o);
        }
        lg_b_io(&t.b, LG_IDS(xi), LG_IDS(yi));
        lg_run_options ro;
        memset(&ro, 0, sizeof ro);
        lg_interp *it = NULL;
        lg_error err;
        /* int8 tensors with no quantization parameters: the integer kernels refuse them */
        CHECK_EQ_INT(lg_interp_create(t.m, &ro, &it, &err), LG_ERR_FORMAT);
        if (!contains(err.msg, "quantization scale") || !contains(err.msg, "INT8"))
            tf_fail(__FILE__, __LINE__, "op %d: message \"%s\"", ops[i].op, err.msg);
        lg_interp_free(it);
        kt_free(&t);
    }
}

/* ================================================================== half rounding */

/* The vectorized rounding (portable and F16C) against lg_round_half: every half value and its
   neighbours (the ties and the values just around them), special values, and a stride through
   all 2^32 bit patterns. */
LG_TEST(k_conv_round_half_bit_exact) {
    enum { N = 1 << 16 };
    float *a = malloc(N * 6 * sizeof(float)), *b = malloc(N * 6 * sizeof(float)), *c = malloc(N * 6 * sizeof(float));
    int64_t n = 0;
    for (uint32_t hv = 0; hv < N; hv++) {
        float f = lg_half_to_float((uint16_t)hv);
        uint32_t u;
        memcpy(&u, &f, 4);
        /* the value, the midpoint to the next half and the floats either side of it */
        uint32_t mid = u + 0x1000u;
        uint32_t cand[6] = {u, mid, mid - 1, mid + 1, u + 1, u - 1};
        for (int k = 0; k < 6; k++) memcpy(&a[n++], &cand[k], 4);
    }
    int variants_seen = 0;
    for (int variant = 1; variant <= 2; variant++) {
        memcpy(b, a, (size_t)n * 4);
        int used = lgk_simd_round_half(b, n, variant);
        if (used != variant) continue; /* no F16C on this CPU */
        variants_seen++;
        for (int64_t i = 0; i < n; i++) c[i] = lg_round_half(a[i]);
        check_bits(variant == 1 ? "round half (portable)" : "round half (F16C)", b, c, n);
        /* odd lengths use the tail path */
        memcpy(b, a, 7 * 4);
        lgk_simd_round_half(b, 7, variant);
        check_bits("round half tail", b, c, 7);
        /* stride through every bit pattern */
        uint32_t u = 0;
        for (;;) {
            int64_t m = 0;
            for (; m < N * 6 && u <= 0xffffffffu - 4099u; m++, u += 4099u) memcpy(&a[m], &u, 4);
            memcpy(b, a, (size_t)m * 4);
            lgk_simd_round_half(b, m, variant);
            for (int64_t i = 0; i < m; i++) c[i] = lg_round_half(a[i]);
            check_bits("round half sweep", b, c, m);
            if (m < N * 6) break;
        }
        /* restore a for the next variant */
        n = 0;
        for (uint32_t hv = 0; hv < N; hv++) {
            float f = lg_half_to_float((uint16_t)hv);
            uint32_t w;
            memcpy(&w, &f, 4);
            uint32_t mid = w + 0x1000u;
            uint32_t cand[6] = {w, mid, mid - 1, mid + 1, w + 1, w - 1};
            for (int k = 0; k < 6; k++) memcpy(&a[n++], &cand[k], 4);
        }
    }
    CHECK(variants_seen >= 1);
    free(a); free(b); free(c);
}
