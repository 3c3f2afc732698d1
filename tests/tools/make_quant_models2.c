/*
 * make_quant_models2 DIR -- writes one-op full-integer models (and two small networks) made
 * with the builder, for tests/e2e/test_run_quant2.sh to run with `litegpu run` and LiteRT.js.
 *
 * The int8 / uint8 models take a UINT8 graph input (LiteRT.js fills it with
 * min(255, floor(256 * fill(i)))) and, for int8, convert it with QUANTIZE uint8 -> int8 at the
 * same scale and a zero point 128 lower (exact in TFLite's and XNNPACK's arithmetic alike), so
 * the op under test sees the same integers in every runtime. LiteRT.js reads no int8 / int16
 * tensor, so every integer output leaves through DEQUANTIZE (float = scale * (q - zp), exact
 * for these sizes: the comparison in units of the output scale recovers the integers). The
 * int16 models take a float input, bring it to [-k, k) with float MUL / ADD and QUANTIZE it to
 * int16 (XNNPACK takes no int16, so that is TFLite's AffineQuantize everywhere).
 * Second operands are int8 constants (a fixed formula) with their own quantization; weights
 * are symmetric per-channel int8 as the converter makes them.
 *
 * Prints one line per model: "run NAME OUTPUT_SCALE TFLITE_MAX XNNPACK_MAX" (the largest
 * difference in output units the test accepts with --int-arith tflite and xnnpack, see the
 * test's header), or "refuse NAME WORDS" for the forms litegpu must refuse with a one-line
 * message containing WORDS. NAME arguments select models. Only the public API is used.
 * Exit 0, 1 on failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "quant_builder.h"

static int tfl_max, xnn_max; /* the accepted difference of the current model */

static int64_t numel(lg_dims d) {
    int64_t n = 1;
    for (uint32_t i = 0; i < d.n; i++) n *= d.v[i];
    return n;
}

/* an int8 constant of a fixed formula in [lo, hi] */
static int qconst(const char *name, lg_dims shape, float s, int64_t zp, int lo, int hi, int salt) {
    int64_t n = numel(shape);
    int8_t *v = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++) v[i] = (int8_t)(lo + (int)((i * 37 + salt * 11 + 5) % (hi - lo + 1)));
    int t = lg_b_const(&B, name, LG_INT8, shape, v, (uint64_t)n);
    free(v);
    qset(t, s, zp);
    return t;
}

/* graph input x (UINT8, scale s, zero point zu); for INT8 the QUANTIZE to zero point zu - 128 */
static int input8(lg_dims shape, lg_dtype ty, float s, int64_t zu, int *x) {
    *x = qt("x", LG_UINT8, shape, s, zu);
    if (ty == LG_UINT8) return *x;
    int q = qt("xq", LG_INT8, shape, s, zu - 128);
    lg_b_op_v(&B, LG_OP_QUANTIZE, 1, LG_IDS(*x), LG_IDS(q), LG_OPTS_NONE, NULL);
    return q;
}

/* graph input x (FLOAT32) -> x * a + b (float) -> QUANTIZE to int16 at scale s */
static int input16(lg_dims shape, float a, float b, float s, int *x) {
    *x = lg_b_tensor(&B, "x", LG_FLOAT32, shape);
    int ka = lg_b_const_f32(&B, "a", LG_DIMS(1), (const float[]){a});
    int kb = lg_b_const_f32(&B, "b", LG_DIMS(1), (const float[]){b});
    int m = lg_b_tensor(&B, "xa", LG_FLOAT32, shape), p = lg_b_tensor(&B, "xb", LG_FLOAT32, shape);
    lg_mul_options mo = {LG_ACTIVATION_FUNCTION_TYPE_NONE};
    lg_b_op_v(&B, LG_OP_MUL, 1, LG_IDS(*x, ka), LG_IDS(m), LG_OPTS_MUL_OPTIONS, &mo);
    lg_add_options ao = {LG_ACTIVATION_FUNCTION_TYPE_NONE, false};
    lg_b_op_v(&B, LG_OP_ADD, 1, LG_IDS(m, kb), LG_IDS(p), LG_OPTS_ADD_OPTIONS, &ao);
    int q = qt("xq", LG_INT16, shape, s, 0);
    lg_b_op_v(&B, LG_OP_QUANTIZE, 1, LG_IDS(p), LG_IDS(q), LG_OPTS_NONE, NULL);
    return q;
}

static double out_scale; /* of the (first) integer output */

/* y (integer) -> DEQUANTIZE -> a float graph output (LiteRT.js reads float32, int32, uint8) */
static int dequant(int y) {
    if (B.status != LG_OK || y < 0) return -1;
    const lg_tensor *t = &M->subgraphs[0].tensors[y];
    if (out_scale == 0 && t->quant && t->quant->n_scale) out_scale = t->quant->scale[0];
    lg_dims shape = {t->shape, t->rank};
    char name[64];
    snprintf(name, sizeof name, "%s_f", t->name ? t->name : "y");
    int f = lg_b_tensor(&B, name, LG_FLOAT32, shape);
    lg_b_op_v(&B, LG_OP_DEQUANTIZE, t->type == LG_INT16 ? 4 : 2, LG_IDS(y), LG_IDS(f), LG_OPTS_NONE, NULL);
    return f;
}

static void io(int x, int y) { lg_b_io(&B, LG_IDS(x), LG_IDS(dequant(y))); }
static void io2(int x, int y0, int y1) {
    int f0 = dequant(y0), f1 = dequant(y1);
    lg_b_io(&B, LG_IDS(x), LG_IDS(f0, f1));
}

static float wf(int o, int i) { return (float)sin(0.7 * o + 1.3 * i + 0.1) * (1.0f + 0.25f * (float)(o % 3)); }

/* per-channel symmetric int8 weights along dimension 0 */
static int qweights(const char *name, lg_dims shape, float *scales) {
    int64_t n = numel(shape);
    int oc = shape.v[0];
    int64_t per = n / oc;
    int8_t *w = malloc((size_t)n);
    for (int o = 0; o < oc; o++) {
        float mx = 0;
        for (int64_t i = 0; i < per; i++) mx = fmaxf(mx, fabsf(wf(o, (int)i)));
        scales[o] = mx / 127.0f;
        for (int64_t i = 0; i < per; i++) w[o * per + i] = (int8_t)lrintf(wf(o, (int)i) / scales[o]);
    }
    int t = lg_b_const(&B, name, LG_INT8, shape, w, (uint64_t)n);
    free(w);
    qset_pc(t, scales, (uint32_t)oc, 0);
    return t;
}

static int qbias(const char *name, int oc, float s_in, const float *ws) {
    int32_t *b = malloc((size_t)oc * 4);
    float *s = malloc((size_t)oc * 4);
    for (int o = 0; o < oc; o++) {
        s[o] = s_in * ws[o];
        b[o] = (int32_t)lrintf((0.1f * (float)(o % 5) - 0.2f) / s[o]);
    }
    int t = lg_b_const_i32(&B, name, LG_DIMS(oc), b);
    qset_pc(t, s, (uint32_t)oc, 0);
    free(b);
    free(s);
    return t;
}

/* the common int8 input: [1,4,6,6], scale 0.05, int8 zero point -28 */
#define SH LG_DIMS(1, 4, 6, 6)
#define S0 0.05f
#define Z0 (-28)
static int base(int *x) { return input8(SH, LG_INT8, S0, Z0 + 128, x); }
/* an output sharing the input's quantization */
static int same(const char *name, lg_dims shape) { return qt(name, LG_INT8, shape, S0, Z0); }

/* ------------------------------------------------------------------ data movement */

static void m_reshape(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(4, 36));
    int shp = lg_b_const_i32(&B, "shape", LG_DIMS(2), (const int32_t[]){4, 36});
    lg_b_op_v(&B, LG_OP_RESHAPE, 1, LG_IDS(a, shp), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}

static void m_squeeze(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(4, 6, 6));
    lg_squeeze_options o;
    memset(&o, 0, sizeof o);
    int32_t dims[1] = {0};
    o.squeeze_dims = (lg_vec){dims, 1};
    lg_b_op_v(&B, LG_OP_SQUEEZE, 1, LG_IDS(a), LG_IDS(y), LG_OPTS_SQUEEZE_OPTIONS, &o);
    io(x, y);
}

static void m_expand_dims(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 4, 1, 6, 6));
    int ax = lg_b_const_i32(&B, "axis", LG_DIMS(1), (const int32_t[]){2});
    lg_b_op_v(&B, LG_OP_EXPAND_DIMS, 1, LG_IDS(a, ax), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}

static void m_transpose(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 6, 6, 4));
    int p = lg_b_const_i32(&B, "perm", LG_DIMS(4), (const int32_t[]){0, 2, 3, 1});
    lg_b_op_v(&B, LG_OP_TRANSPOSE, 1, LG_IDS(a, p), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}

static void m_slice(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 2, 3, 4));
    int b = lg_b_const_i32(&B, "begin", LG_DIMS(4), (const int32_t[]){0, 1, 2, 1});
    int s = lg_b_const_i32(&B, "size", LG_DIMS(4), (const int32_t[]){1, 2, 3, 4});
    lg_b_op_v(&B, LG_OP_SLICE, 1, LG_IDS(a, b, s), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}

static void m_strided_slice(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 2, 3, 3));
    int b = lg_b_const_i32(&B, "begin", LG_DIMS(4), (const int32_t[]){0, 0, 1, 0});
    int e = lg_b_const_i32(&B, "end", LG_DIMS(4), (const int32_t[]){1, 4, 6, 6});
    int s = lg_b_const_i32(&B, "strides", LG_DIMS(4), (const int32_t[]){1, 2, 2, 2});
    lg_strided_slice_options o;
    memset(&o, 0, sizeof o);
    lg_b_op_v(&B, LG_OP_STRIDED_SLICE, 1, LG_IDS(a, b, e, s), LG_IDS(y), LG_OPTS_STRIDED_SLICE_OPTIONS, &o);
    io(x, y);
}

static void m_gather(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 4, 4, 6));
    int idx = lg_b_const_i32(&B, "idx", LG_DIMS(4), (const int32_t[]){5, 0, 3, 3});
    lg_gather_options o = {2, 0};
    lg_b_op_v(&B, LG_OP_GATHER, 1, LG_IDS(a, idx), LG_IDS(y), LG_OPTS_GATHER_OPTIONS, &o);
    io(x, y);
}

static void m_pad(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 7, 7, 6));
    int p = lg_b_const_i32(&B, "pads", LG_DIMS(4, 2), (const int32_t[]){0, 0, 1, 2, 0, 1, 0, 0});
    lg_b_op_v(&B, LG_OP_PAD, 1, LG_IDS(a, p), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}

static void m_padv2(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 7, 7, 6));
    int p = lg_b_const_i32(&B, "pads", LG_DIMS(4, 2), (const int32_t[]){0, 0, 1, 2, 0, 1, 0, 0});
    int8_t cv = 17;
    int c = lg_b_const(&B, "cv", LG_INT8, LG_SCALAR, &cv, 1);
    qset(c, S0, Z0);
    lg_b_op_v(&B, LG_OP_PADV2, 1, LG_IDS(a, p, c), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}

static void m_mirror_pad(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 6, 10, 6));
    int p = lg_b_const_i32(&B, "pads", LG_DIMS(4, 2), (const int32_t[]){0, 0, 1, 1, 2, 2, 0, 0});
    lg_mirror_pad_options o = {LG_MIRROR_PAD_MODE_REFLECT};
    lg_b_op_v(&B, LG_OP_MIRROR_PAD, 1, LG_IDS(a, p), LG_IDS(y), LG_OPTS_MIRROR_PAD_OPTIONS, &o);
    io(x, y);
}

static void m_space_to_depth(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 2, 3, 24));
    lg_space_to_depth_options o = {2};
    lg_b_op_v(&B, LG_OP_SPACE_TO_DEPTH, 1, LG_IDS(a), LG_IDS(y), LG_OPTS_SPACE_TO_DEPTH_OPTIONS, &o);
    io(x, y);
}

static void m_depth_to_space(void) {
    int x, a = input8(LG_DIMS(1, 3, 3, 8), LG_INT8, S0, Z0 + 128, &x), y = same("y", LG_DIMS(1, 6, 6, 2));
    lg_depth_to_space_options o = {2};
    lg_b_op_v(&B, LG_OP_DEPTH_TO_SPACE, 1, LG_IDS(a), LG_IDS(y), LG_OPTS_DEPTH_TO_SPACE_OPTIONS, &o);
    io(x, y);
}

static void m_split(void) {
    int x, a = base(&x);
    int ax = lg_b_const_i32(&B, "axis", LG_SCALAR, (const int32_t[]){3});
    int y0 = same("y0", LG_DIMS(1, 4, 6, 2)), y1 = same("y1", LG_DIMS(1, 4, 6, 2)), y2 = same("y2", LG_DIMS(1, 4, 6, 2));
    lg_split_options o = {3};
    lg_b_op_v(&B, LG_OP_SPLIT, 1, LG_IDS(ax, a), LG_IDS(y0, y1, y2), LG_OPTS_SPLIT_OPTIONS, &o);
    io2(x, y0, y2);
}

static void m_split_v(void) {
    int x, a = base(&x);
    int sz = lg_b_const_i32(&B, "sizes", LG_DIMS(3), (const int32_t[]){1, 3, 2});
    int ax = lg_b_const_i32(&B, "axis", LG_SCALAR, (const int32_t[]){2});
    int y0 = same("y0", LG_DIMS(1, 4, 1, 6)), y1 = same("y1", LG_DIMS(1, 4, 3, 6)), y2 = same("y2", LG_DIMS(1, 4, 2, 6));
    lg_split_v_options o = {3};
    lg_b_op_v(&B, LG_OP_SPLIT_V, 1, LG_IDS(a, sz, ax), LG_IDS(y0, y1, y2), LG_OPTS_SPLIT_V_OPTIONS, &o);
    io2(x, y1, y2);
}

/* UNPACK along axis 1, PACK the pieces back in reverse order along axis 2 */
static void m_unpack_pack(void) {
    int x, a = base(&x);
    int u[4];
    char nm[8];
    for (int i = 0; i < 4; i++) {
        snprintf(nm, sizeof nm, "u%d", i);
        u[i] = same(nm, LG_DIMS(1, 6, 6));
    }
    lg_unpack_options uo = {4, 1};
    lg_b_op_v(&B, LG_OP_UNPACK, 1, LG_IDS(a), LG_IDS(u[0], u[1], u[2], u[3]), LG_OPTS_UNPACK_OPTIONS, &uo);
    int y = same("y", LG_DIMS(1, 6, 4, 6));
    lg_pack_options po = {4, 2};
    lg_b_op_v(&B, LG_OP_PACK, 1, LG_IDS(u[3], u[2], u[1], u[0]), LG_IDS(y), LG_OPTS_PACK_OPTIONS, &po);
    io(x, y);
}

static void m_tile(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 8, 6, 12));
    int mul = lg_b_const_i32(&B, "mult", LG_DIMS(4), (const int32_t[]){1, 2, 1, 2});
    lg_b_op_v(&B, LG_OP_TILE, 1, LG_IDS(a, mul), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}

static void m_broadcast_to(void) {
    int x, a = input8(LG_DIMS(1, 1, 6, 1), LG_INT8, S0, Z0 + 128, &x), y = same("y", LG_DIMS(2, 4, 6, 3));
    int shp = lg_b_const_i32(&B, "shape", LG_DIMS(4), (const int32_t[]){2, 4, 6, 3});
    lg_b_op_v(&B, LG_OP_BROADCAST_TO, 2, LG_IDS(a, shp), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}

static void minmax_model(int code) {
    int x, a = base(&x), y = same("y", SH);
    int k = qconst("k", LG_DIMS(6), S0, Z0, -100, 100, 3);
    lg_b_op_v(&B, code, 1, LG_IDS(a, k), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}
static void m_maximum(void) { minmax_model(LG_OP_MAXIMUM); }
static void m_minimum(void) { minmax_model(LG_OP_MINIMUM); }

static void m_concat(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 4, 6, 9));
    int k = qconst("k", LG_DIMS(1, 4, 6, 3), S0, Z0, -128, 127, 1);
    lg_concatenation_options o = {3, 0};
    lg_b_op_v(&B, LG_OP_CONCATENATION, 1, LG_IDS(a, k), LG_IDS(y), LG_OPTS_CONCATENATION_OPTIONS, &o);
    io(x, y);
}

/* ------------------------------------------------------------------ resize */

static void resize_model(int code, lg_dtype ty, int oh, int ow, int c, int align, int half) {
    lg_dims ish = LG_DIMS(1, 4, 6, c);
    int x, a = input8(ish, ty, S0, ty == LG_UINT8 ? 90 : Z0 + 128, &x);
    int y = qt("y", ty, LG_DIMS(1, oh, ow, c), S0, ty == LG_UINT8 ? 90 : Z0);
    int sz = lg_b_const_i32(&B, "size", LG_DIMS(2), (const int32_t[]){oh, ow});
    if (code == LG_OP_RESIZE_BILINEAR) {
        lg_resize_bilinear_options o = {align != 0, half != 0};
        lg_b_op_v(&B, code, 1, LG_IDS(a, sz), LG_IDS(y), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &o);
    } else {
        lg_resize_nearest_neighbor_options o = {align != 0, half != 0};
        lg_b_op_v(&B, code, 1, LG_IDS(a, sz), LG_IDS(y), LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS, &o);
    }
    io(x, y);
}
/* XNNPACK's Q11 weights against TFLite's Q10 (int8) and float (uint8) ones */
static void m_bilinear(void) { resize_model(LG_OP_RESIZE_BILINEAR, LG_INT8, 7, 11, 6, 0, 0); tfl_max = 1; }
static void m_bilinear_hp(void) { resize_model(LG_OP_RESIZE_BILINEAR, LG_INT8, 8, 12, 6, 0, 1); tfl_max = 1; }
static void m_bilinear_ac(void) { resize_model(LG_OP_RESIZE_BILINEAR, LG_INT8, 7, 10, 6, 1, 0); tfl_max = 1; }
static void m_bilinear_u8(void) { resize_model(LG_OP_RESIZE_BILINEAR, LG_UINT8, 9, 13, 6, 0, 1); tfl_max = 1; }
static void m_bilinear_u8_x8(void) { resize_model(LG_OP_RESIZE_BILINEAR, LG_UINT8, 32, 48, 8, 0, 1); tfl_max = 1; }
static void m_nearest(void) { resize_model(LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_INT8, 7, 11, 6, 0, 0); }
static void m_nearest_hp(void) { resize_model(LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_INT8, 9, 13, 6, 0, 1); }
static void m_nearest_ac(void) { resize_model(LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_UINT8, 7, 10, 6, 1, 0); }

/* ------------------------------------------------------------------ TRANSPOSE_CONV */

static void tconv_model(int padding, int stride, int k, int oh, int ow, int act) {
    int x, a = input8(LG_DIMS(1, 4, 5, 6), LG_INT8, S0, Z0 + 128, &x);
    float ws[8];
    int w = qweights("w", LG_DIMS(4, k, k, 6), ws);
    int b = qbias("b", 4, S0, ws);
    int os = lg_b_const_i32(&B, "oshape", LG_DIMS(4), (const int32_t[]){1, oh, ow, 4});
    int y = qt("y", LG_INT8, LG_DIMS(1, oh, ow, 4), 0.04f, 3);
    lg_transpose_conv_options o;
    memset(&o, 0, sizeof o);
    o.padding = (int8_t)padding;
    o.stride_w = o.stride_h = stride;
    o.fused_activation_function = (int8_t)act;
    lg_b_op_v(&B, LG_OP_TRANSPOSE_CONV, act ? 4 : 3, LG_IDS(os, w, a, b), LG_IDS(y), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    io(x, y);
}
/* uint8 activations and per-tensor uint8 weights (zero point 120), the Coral form */
static void m_tconv_u8(void) {
    int x, a = input8(LG_DIMS(1, 4, 5, 6), LG_UINT8, S0, 110, &x);
    uint8_t wv[4 * 3 * 3 * 6];
    for (int i = 0; i < (int)sizeof wv; i++) wv[i] = (uint8_t)(120 + lrintf(40.0f * wf(i % 4, i))); /* [60, 180] */
    int w = lg_b_const(&B, "w", LG_UINT8, LG_DIMS(4, 3, 3, 6), wv, sizeof wv);
    qset(w, 0.01f, 120);
    int32_t bv[4] = {40, -300, 0, 1234};
    int b = lg_b_const_i32(&B, "b", LG_DIMS(4), bv);
    qset(b, S0 * 0.01f, 0);
    int os = lg_b_const_i32(&B, "oshape", LG_DIMS(4), (const int32_t[]){1, 8, 10, 4});
    int y = qt("y", LG_UINT8, LG_DIMS(1, 8, 10, 4), 0.08f, 128);
    lg_transpose_conv_options o;
    memset(&o, 0, sizeof o);
    o.padding = LG_PADDING_SAME;
    o.stride_w = o.stride_h = 2;
    lg_b_op_v(&B, LG_OP_TRANSPOSE_CONV, 2, LG_IDS(os, w, a, b), LG_IDS(y), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &o);
    io(x, y);
    tfl_max = 1;
}

/* delegated: XNNPACK's float requantization against TFLite's double rounding */
static void m_tconv(void) { tconv_model(LG_PADDING_SAME, 2, 3, 8, 10, 0); tfl_max = 1; }
static void m_tconv_valid_relu(void) { tconv_model(LG_PADDING_VALID, 1, 3, 6, 7, LG_ACTIVATION_FUNCTION_TYPE_RELU); tfl_max = 1; }
/* stride 3 > kernel 2 with SAME: the delegate refuses it, TFLite's kernel runs */
static void m_tconv_s3(void) { tconv_model(LG_PADDING_SAME, 3, 2, 12, 15, 0); }

/* ------------------------------------------------------------------ unary */

/* a signed int8 input (scale s_in, zero point z_in) -> op -> int8 (s_out, z_out) */
static void unary_model(int code, lg_dtype ty, float s_in, int z_in, float s_out, int z_out, lg_opts_kind kind,
                        const void *opts) {
    int x, a = input8(SH, ty, s_in, ty == LG_UINT8 ? z_in : z_in + 128, &x);
    int y = qt("y", ty, SH, s_out, z_out);
    lg_b_op_v(&B, code, 1, LG_IDS(a), LG_IDS(y), kind, opts);
    io(x, y);
}
static const lg_gelu_options gelu_exact = {false}, gelu_approx = {true};
static void m_gelu(void) { unary_model(LG_OP_GELU, LG_INT8, 0.04f, 2, 0.03f, -90, LG_OPTS_GELU_OPTIONS, &gelu_exact); }
static void m_gelu_approx(void) { unary_model(LG_OP_GELU, LG_INT8, 0.04f, 2, 0.03f, -90, LG_OPTS_GELU_OPTIONS, &gelu_approx); }
static void m_gelu_u8(void) { unary_model(LG_OP_GELU, LG_UINT8, 0.035f, 120, 0.025f, 30, LG_OPTS_GELU_OPTIONS, &gelu_exact); }
/* RSQRT and SQRT need x >= zero point: the input zero point is the type's minimum */
static void m_rsqrt(void) { unary_model(LG_OP_RSQRT, LG_INT8, 0.02f, -128, 0.05f, -100, LG_OPTS_NONE, NULL); }
static void m_sqrt(void) { unary_model(LG_OP_SQRT, LG_INT8, 0.03f, -128, 0.011f, -128, LG_OPTS_NONE, NULL); }
static void m_abs(void) { unary_model(LG_OP_ABS, LG_INT8, 0.04f, 7, 0.03f, -128, LG_OPTS_NONE, NULL); }
static void m_log(void) { unary_model(LG_OP_LOG, LG_INT8, 0.02f, -128, 0.03f, 40, LG_OPTS_NONE, NULL); }

/* ------------------------------------------------------------------ binary */

static void m_sqdiff(void) {
    int x, a = base(&x), y = qt("y", LG_INT8, SH, 0.05f, -120);
    int k = qconst("k", LG_DIMS(6, 6), 0.04f, 5, -120, 120, 2);
    lg_b_op_v(&B, LG_OP_SQUARED_DIFFERENCE, 1, LG_IDS(a, k), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}

static void div_model(float s_div, float s_out, int z_out) {
    int x, a = base(&x), y = qt("y", LG_INT8, SH, s_out, z_out);
    /* the divisor avoids its zero point (-3): values in [5, 120] and [-120, -5] */
    int8_t kv[36];
    for (int i = 0; i < 36; i++) kv[i] = (int8_t)((i % 2 ? 1 : -1) * (5 + (i * 29) % 116) - 3);
    int k = lg_b_const(&B, "k", LG_INT8, LG_DIMS(6, 6), kv, 36);
    qset(k, s_div, -3);
    lg_div_options o = {LG_ACTIVATION_FUNCTION_TYPE_NONE};
    lg_b_op_v(&B, LG_OP_DIV, 1, LG_IDS(a, k), LG_IDS(y), LG_OPTS_DIV_OPTIONS, &o);
    io(x, y);
}
static void m_div(void) { div_model(0.02f, 0.06f, -4); }
/* multiplier 0.5 (shift 0): for x - zp = +-1 and a divisor of 4 or more the rounding shift of
   DivElementwise exceeds 31 (see k_quant_binary.c) */
static void m_div_wide(void) { div_model(0.05f, 2.0f, 0); }

static void m_prelu(void) {
    int x, a = base(&x), y = qt("y", LG_INT8, SH, 0.04f, -20);
    int k = qconst("alpha", LG_DIMS(1, 1, 6), 0.01f, -10, -60, 100, 4);
    lg_b_op_v(&B, LG_OP_PRELU, 1, LG_IDS(a, k), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}

/* ------------------------------------------------------------------ int16 activations */

#define SH16 LG_DIMS(1, 8, 16)
static void act16_model(int code, float s_in, float s_out, lg_opts_kind kind, const void *opts) {
    int x, a = input16(SH16, 12.0f, -6.0f, s_in, &x);
    int y = qt("y", LG_INT16, SH16, s_out, 0);
    lg_b_op_v(&B, code, 1, LG_IDS(a), LG_IDS(y), kind, opts);
    io(x, y);
}
static void m_logistic16(void) { act16_model(LG_OP_LOGISTIC, 6.5f / 32767, 1.0f / 32768, LG_OPTS_NONE, NULL); }
static void m_tanh16(void) { act16_model(LG_OP_TANH, 6.5f / 32767, 1.0f / 32768, LG_OPTS_NONE, NULL); }
static const lg_softmax_options softmax_beta = {1.0f};
static void m_softmax16(void) { act16_model(LG_OP_SOFTMAX, 6.5f / 32767, 1.0f / 32768, LG_OPTS_SOFTMAX_OPTIONS, &softmax_beta); }
static void m_gelu16(void) { act16_model(LG_OP_GELU, 6.5f / 32767, 6.2f / 32767, LG_OPTS_GELU_OPTIONS, &gelu_exact); }

/* the int16 elementwise ops of elementwise.cc: x * 12 in [0, 12) (RSQRT, LOG, SQRT) or [-6, 6) */
static void unary16_model(int code, int positive, float s_out) {
    int x, a = input16(SH16, 12.0f, positive ? 0.0f : -6.0f, 12.5f / 32767, &x);
    int y = qt("y", LG_INT16, SH16, s_out, 0);
    lg_b_op_v(&B, code, 1, LG_IDS(a), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}
static void m_rsqrt16(void) { unary16_model(LG_OP_RSQRT, 1, 60.0f / 32767); }
static void m_log16(void) { unary16_model(LG_OP_LOG, 1, 8.0f / 32767); }
static void m_sqrt16(void) { unary16_model(LG_OP_SQRT, 1, 3.6f / 32767); }
static void m_abs16(void) { unary16_model(LG_OP_ABS, 0, 7.0f / 32767); }

/* REDUCE_MAX int8 over the channels (the input's quantization: the raw maximum) */
static void m_reduce_max(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 4, 6));
    int ax = lg_b_const_i32(&B, "axes", LG_DIMS(1), (const int32_t[]){3});
    lg_reducer_options o = {false};
    lg_b_op_v(&B, LG_OP_REDUCE_MAX, 1, LG_IDS(a, ax), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &o);
    io(x, y);
}

static void binary16_model(int code) {
    int x, a = input16(SH16, 12.0f, -6.0f, 6.5f / 32767, &x);
    int16_t kv[16];
    for (int i = 0; i < 16; i++) kv[i] = (int16_t)(((i * 7919) % 2001 - 1000) * 30);
    int k = lg_b_const(&B, "k", LG_INT16, LG_DIMS(16), kv, sizeof kv);
    qset(k, 3.0f / 32767, 0);
    int y = qt("y", LG_INT16, SH16, code == LG_OP_MUL ? 20.0f / 32767 : 9.5f / 32767, 0);
    if (code == LG_OP_ADD) {
        lg_add_options o = {LG_ACTIVATION_FUNCTION_TYPE_NONE, false};
        lg_b_op_v(&B, code, 3, LG_IDS(a, k), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &o);
    } else {
        lg_mul_options o = {LG_ACTIVATION_FUNCTION_TYPE_NONE};
        lg_b_op_v(&B, code, 4, LG_IDS(a, k), LG_IDS(y), LG_OPTS_MUL_OPTIONS, &o);
    }
    io(x, y);
}
static void m_add16(void) { binary16_model(LG_OP_ADD); }
static void m_mul16(void) { binary16_model(LG_OP_MUL); }

/* ------------------------------------------------------------------ BATCH_MATMUL, networks */

/* activations x activations: a [4,6,6] times its own transpose (rhs zero point -28) */
static void m_bmm(void) {
    int x, a = base(&x);
    int r = same("r", LG_DIMS(4, 6, 6));
    int shp = lg_b_const_i32(&B, "shape", LG_DIMS(3), (const int32_t[]){4, 6, 6});
    lg_b_op_v(&B, LG_OP_RESHAPE, 1, LG_IDS(a, shp), LG_IDS(r), LG_OPTS_NONE, NULL);
    int y = qt("y", LG_INT8, LG_DIMS(4, 6, 6), 0.4f, 10);
    lg_batch_mat_mul_options o = {false, true, false};
    lg_b_op_v(&B, LG_OP_BATCH_MATMUL, 1, LG_IDS(r, r), LG_IDS(y), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o);
    io(x, y);
    tfl_max = 1;
}

/* s_a s_b / s_out = 1/2 exactly (power-of-two scales): every odd sum is a tie, which TFLite
   rounds away from zero and XNNPACK to even. self: the rhs is the activation itself with zero
   point -4, which XNNPACK's delegate does not take (LiteRT.js runs TFLite's kernel); PRELU
   (not delegated: the same integers everywhere) first maps the input (zero point -128, so
   x - zp >= 0) to [0, 8] at 32 times the scale, keeping the sums below saturation. Else the
   rhs is a constant symmetric matrix (delegated). */
static void bmm_ties(int self) {
    const float s = 1.0f / 16;
    int x, a = input8(LG_DIMS(1, 4, 6, 6), LG_INT8, s, self ? 0 : 100, &x);
    int r = qt("r", LG_INT8, LG_DIMS(4, 6, 6), s, self ? -128 : -28);
    int shp = lg_b_const_i32(&B, "shape", LG_DIMS(3), (const int32_t[]){4, 6, 6});
    lg_b_op_v(&B, LG_OP_RESHAPE, 1, LG_IDS(a, shp), LG_IDS(r), LG_OPTS_NONE, NULL);
    float sr = s;
    if (self) {
        int al = qconst("alpha", LG_DIMS(1), 0.1f, 0, 1, 1, 0);
        sr = 32 * s;
        int p = qt("p", LG_INT8, LG_DIMS(4, 6, 6), sr, -4);
        lg_b_op_v(&B, LG_OP_PRELU, 1, LG_IDS(r, al), LG_IDS(p), LG_OPTS_NONE, NULL);
        r = p;
    }
    int k = self ? r : qconst("k", LG_DIMS(6, 6), 1.0f / 64, 0, -3, 3, 1);
    int y = qt("y", LG_INT8, LG_DIMS(4, 6, 6), self ? 2 * sr * sr : 2.0f / 1024, 0);
    lg_batch_mat_mul_options o = {false, self != 0, false};
    lg_b_op_v(&B, LG_OP_BATCH_MATMUL, 1, LG_IDS(r, k), LG_IDS(y), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o);
    io(x, y);
    tfl_max = self ? 0 : 1;
}
static void m_bmm_ties(void) { bmm_ties(0); }
static void m_bmm_ties_self(void) { bmm_ties(1); }

/* activations x a constant symmetric int8 matrix [6, 5] (zero point 0) */
static void m_bmm_const(void) {
    int x, a = base(&x);
    int k = qconst("k", LG_DIMS(6, 5), 0.02f, 0, -127, 127, 6);
    int y = qt("y", LG_INT8, LG_DIMS(1, 4, 6, 5), 0.03f, -6);
    lg_batch_mat_mul_options o = {false, false, false};
    lg_b_op_v(&B, LG_OP_BATCH_MATMUL, 1, LG_IDS(a, k), LG_IDS(y), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &o);
    io(x, y);
    tfl_max = 1;
}

static int fc(const char *name, int in, int k, int nn, lg_dims osh, float s_in, float s_out, int64_t z_out) {
    float ws[16];
    char wn[16], bn[16];
    snprintf(wn, sizeof wn, "%s_w", name);
    snprintf(bn, sizeof bn, "%s_b", name);
    int w = qweights(wn, LG_DIMS(nn, k), ws);
    int b = qbias(bn, nn, s_in, ws);
    int y = qt(name, LG_INT8, osh, s_out, z_out);
    lg_fully_connected_options o;
    memset(&o, 0, sizeof o);
    o.keep_num_dims = true;
    lg_b_op_v(&B, LG_OP_FULLY_CONNECTED, 5, LG_IDS(in, w, b), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &o);
    return y;
}

/* a transformer-ish block on 8 tokens of 6 features:
   q, k, v = FC(x); s = SOFTMAX(BATCH_MATMUL(q, k^T)); h = BATCH_MATMUL(s, v) + x;
   out = GELU(FC(h)) */
static void m_block(void) {
    int x, a0 = input8(LG_DIMS(1, 8, 6), LG_INT8, S0, Z0 + 128, &x);
    int q = fc("q", a0, 6, 6, LG_DIMS(1, 8, 6), S0, 0.06f, 3);
    int k = fc("k", a0, 6, 6, LG_DIMS(1, 8, 6), S0, 0.05f, -7);
    int v = fc("v", a0, 6, 6, LG_DIMS(1, 8, 6), S0, 0.055f, 0);
    int sc = qt("scores", LG_INT8, LG_DIMS(1, 8, 8), 0.09f, 12);
    lg_batch_mat_mul_options bo = {false, true, false};
    lg_b_op_v(&B, LG_OP_BATCH_MATMUL, 1, LG_IDS(q, k), LG_IDS(sc), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo);
    int p = qt("probs", LG_INT8, LG_DIMS(1, 8, 8), 1.0f / 256, -128);
    lg_b_op_v(&B, LG_OP_SOFTMAX, 1, LG_IDS(sc), LG_IDS(p), LG_OPTS_SOFTMAX_OPTIONS, &softmax_beta);
    int h = qt("attn", LG_INT8, LG_DIMS(1, 8, 6), 0.02f, -5);
    lg_batch_mat_mul_options bo2 = {false, false, false};
    lg_b_op_v(&B, LG_OP_BATCH_MATMUL, 1, LG_IDS(p, v), LG_IDS(h), LG_OPTS_BATCH_MAT_MUL_OPTIONS, &bo2);
    int r = qt("res", LG_INT8, LG_DIMS(1, 8, 6), 0.06f, -20);
    lg_add_options ao = {LG_ACTIVATION_FUNCTION_TYPE_NONE, false};
    lg_b_op_v(&B, LG_OP_ADD, 1, LG_IDS(h, a0), LG_IDS(r), LG_OPTS_ADD_OPTIONS, &ao);
    int f = fc("mlp", r, 6, 6, LG_DIMS(1, 8, 6), 0.06f, 0.05f, 4);
    int y = qt("y", LG_INT8, LG_DIMS(1, 8, 6), 0.03f, -100);
    lg_b_op_v(&B, LG_OP_GELU, 1, LG_IDS(f), LG_IDS(y), LG_OPTS_GELU_OPTIONS, &gelu_exact);
    io(x, y);
    tfl_max = 3; /* compounded across the delegated FC / BATCH_MATMUL / ADD */
}

/* a decoder-ish int8 head: TRANSPOSE_CONV -> RESIZE_BILINEAR -> PRELU -> CONCATENATION */
static void m_seg(void) {
    int x, a = input8(LG_DIMS(1, 4, 5, 6), LG_INT8, S0, Z0 + 128, &x);
    float ws[8];
    int w = qweights("w", LG_DIMS(4, 3, 3, 6), ws);
    int b = qbias("b", 4, S0, ws);
    int os = lg_b_const_i32(&B, "oshape", LG_DIMS(4), (const int32_t[]){1, 8, 10, 4});
    int t = qt("t", LG_INT8, LG_DIMS(1, 8, 10, 4), 0.04f, 3);
    lg_transpose_conv_options to;
    memset(&to, 0, sizeof to);
    to.padding = LG_PADDING_SAME;
    to.stride_w = to.stride_h = 2;
    lg_b_op_v(&B, LG_OP_TRANSPOSE_CONV, 3, LG_IDS(os, w, a, b), LG_IDS(t), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &to);
    int sz = lg_b_const_i32(&B, "size", LG_DIMS(2), (const int32_t[]){16, 20});
    int r = qt("r", LG_INT8, LG_DIMS(1, 16, 20, 4), 0.04f, 3);
    lg_resize_bilinear_options ro = {false, true};
    lg_b_op_v(&B, LG_OP_RESIZE_BILINEAR, 1, LG_IDS(t, sz), LG_IDS(r), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &ro);
    int al = qconst("alpha", LG_DIMS(1, 1, 4), 0.01f, 0, -30, 60, 2);
    int p = qt("p", LG_INT8, LG_DIMS(1, 16, 20, 4), 0.035f, -10);
    lg_b_op_v(&B, LG_OP_PRELU, 1, LG_IDS(r, al), LG_IDS(p), LG_OPTS_NONE, NULL);
    int y = qt("y", LG_INT8, LG_DIMS(1, 16, 20, 8), 0.035f, -10);
    lg_concatenation_options co = {3, 0};
    lg_b_op_v(&B, LG_OP_CONCATENATION, 1, LG_IDS(p, p), LG_IDS(y), LG_OPTS_CONCATENATION_OPTIONS, &co);
    io(x, y);
    tfl_max = 3;
}

/* ------------------------------------------------------------------ refused forms */

/* MAXIMUM of inputs with different quantizations: TFLite compares the raw integers */
static void r_maximum_mixed(void) {
    int x, a = base(&x), y = same("y", SH);
    int k = qconst("k", LG_DIMS(6), 0.1f, 3, -100, 100, 3);
    lg_b_op_v(&B, LG_OP_MAXIMUM, 1, LG_IDS(a, k), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}
/* RESIZE_BILINEAR whose output quantization differs from the input's */
static void r_bilinear_requant(void) {
    int x, a = base(&x), y = qt("y", LG_INT8, LG_DIMS(1, 8, 12, 6), 0.1f, Z0);
    int sz = lg_b_const_i32(&B, "size", LG_DIMS(2), (const int32_t[]){8, 12});
    lg_resize_bilinear_options o = {false, true};
    lg_b_op_v(&B, LG_OP_RESIZE_BILINEAR, 1, LG_IDS(a, sz), LG_IDS(y), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &o);
    io(x, y);
}
/* PADV2 whose constant_values do not share the output's zero point */
static void r_padv2_quant(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 6, 6, 6));
    int p = lg_b_const_i32(&B, "pads", LG_DIMS(4, 2), (const int32_t[]){0, 0, 1, 1, 0, 0, 0, 0});
    int8_t cv = 17;
    int c = lg_b_const(&B, "cv", LG_INT8, LG_SCALAR, &cv, 1);
    qset(c, S0, Z0 + 1);
    lg_b_op_v(&B, LG_OP_PADV2, 1, LG_IDS(a, p, c), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}
/* int8 CONCATENATION of inputs with different scales (TFLite's int8 kernel refuses it) */
static void r_concat_requant(void) {
    int x, a = base(&x), y = same("y", LG_DIMS(1, 4, 6, 9));
    int k = qconst("k", LG_DIMS(1, 4, 6, 3), 2 * S0, Z0, -128, 127, 1);
    lg_concatenation_options o = {3, 0};
    lg_b_op_v(&B, LG_OP_CONCATENATION, 1, LG_IDS(a, k), LG_IDS(y), LG_OPTS_CONCATENATION_OPTIONS, &o);
    io(x, y);
}
/* int16 LOGISTIC with a power-of-two input scale (2^-12: TFLite's gemmlowp path) */
static void r_logistic16_pot(void) { act16_model(LG_OP_LOGISTIC, 1.0f / 4096, 1.0f / 32768, LG_OPTS_NONE, NULL); }
/* RSQRT of negative values (input zero point 0, values down to -128) */
static void r_rsqrt_negative(void) { unary_model(LG_OP_RSQRT, LG_INT8, 0.02f, 0, 0.05f, -100, LG_OPTS_NONE, NULL); }
/* DIV by a constant holding its zero point */
static void r_div_zero(void) {
    int x, a = base(&x), y = qt("y", LG_INT8, SH, 0.06f, -4);
    int k = qconst("k", LG_DIMS(6), 0.02f, 5, 0, 10, 0);
    lg_div_options o = {LG_ACTIVATION_FUNCTION_TYPE_NONE};
    lg_b_op_v(&B, LG_OP_DIV, 1, LG_IDS(a, k), LG_IDS(y), LG_OPTS_DIV_OPTIONS, &o);
    io(x, y);
}

/* SQUARED_DIFFERENCE whose output scale needs a multiplier >= 1 (TFLite's TFLITE_CHECK) */
static void r_sqdiff_small_scale(void) {
    int x, a = base(&x), y = qt("y", LG_INT8, SH, 1e-7f, 0); /* (2 * 0.05)^2 / (2^14 * 1e-7) = 6.1 */
    int k = qconst("k", LG_DIMS(6), 0.04f, 5, -120, 120, 2);
    lg_b_op_v(&B, LG_OP_SQUARED_DIFFERENCE, 1, LG_IDS(a, k), LG_IDS(y), LG_OPTS_NONE, NULL);
    io(x, y);
}

/* refused by litegpu, with a word its one-line message must contain */
static const struct { const char *name; void (*fn)(void); const char *what; } refusals[] = {
    {"r2_maximum_mixed", r_maximum_mixed, "share their quantization"},
    {"r2_bilinear_requant", r_bilinear_requant, "does not requantize"},
    {"r2_padv2_quant", r_padv2_quant, "constant_values"},
    {"r2_concat_requant", r_concat_requant, "requires equal quantization"},
    {"r2_logistic16_pot", r_logistic16_pot, "power-of-two"},
    {"r2_rsqrt_negative", r_rsqrt_negative, "non-negative"},
    {"r2_div_zero", r_div_zero, "is zero"},
    {"r2_sqdiff_small_scale", r_sqdiff_small_scale, "too small"},
};

static const struct { const char *name; void (*fn)(void); } models[] = {
    {"q2_reshape", m_reshape}, {"q2_squeeze", m_squeeze}, {"q2_expand_dims", m_expand_dims},
    {"q2_transpose", m_transpose}, {"q2_slice", m_slice}, {"q2_strided_slice", m_strided_slice},
    {"q2_gather", m_gather}, {"q2_pad", m_pad}, {"q2_padv2", m_padv2}, {"q2_mirror_pad", m_mirror_pad},
    {"q2_space_to_depth", m_space_to_depth}, {"q2_depth_to_space", m_depth_to_space}, {"q2_split", m_split},
    {"q2_split_v", m_split_v}, {"q2_unpack_pack", m_unpack_pack}, {"q2_tile", m_tile},
    {"q2_broadcast_to", m_broadcast_to}, {"q2_maximum", m_maximum}, {"q2_minimum", m_minimum},
    {"q2_concat", m_concat},
    {"q2_bilinear", m_bilinear}, {"q2_bilinear_hp", m_bilinear_hp}, {"q2_bilinear_ac", m_bilinear_ac},
    {"q2_bilinear_u8", m_bilinear_u8}, {"q2_bilinear_u8_x8", m_bilinear_u8_x8}, {"q2_nearest", m_nearest},
    {"q2_nearest_hp", m_nearest_hp}, {"q2_nearest_ac", m_nearest_ac},
    {"q2_tconv", m_tconv}, {"q2_tconv_valid_relu", m_tconv_valid_relu}, {"q2_tconv_s3", m_tconv_s3}, {"q2_tconv_u8", m_tconv_u8},
    {"q2_gelu", m_gelu}, {"q2_gelu_approx", m_gelu_approx}, {"q2_gelu_u8", m_gelu_u8}, {"q2_rsqrt", m_rsqrt},
    {"q2_sqrt", m_sqrt}, {"q2_abs", m_abs}, {"q2_log", m_log},
    {"q2_sqdiff", m_sqdiff}, {"q2_div", m_div}, {"q2_div_wide", m_div_wide}, {"q2_prelu", m_prelu},
    {"q2_logistic16", m_logistic16}, {"q2_tanh16", m_tanh16}, {"q2_softmax16", m_softmax16},
    {"q2_gelu16", m_gelu16}, {"q2_rsqrt16", m_rsqrt16}, {"q2_log16", m_log16}, {"q2_sqrt16", m_sqrt16},
    {"q2_abs16", m_abs16}, {"q2_reduce_max", m_reduce_max}, {"q2_add16", m_add16}, {"q2_mul16", m_mul16},
    {"q2_bmm", m_bmm}, {"q2_bmm_const", m_bmm_const}, {"q2_bmm_ties", m_bmm_ties}, {"q2_bmm_ties_self", m_bmm_ties_self}, {"q2_block", m_block}, {"q2_seg", m_seg},
};

static int write_model(const char *dir, const char *name, void (*fn)(void)) {
    lg_error err;
    if (lg_model_new(NULL, NULL, &M, &err) != LG_OK) {
        fprintf(stderr, "make_quant_models2: %s\n", err.msg);
        return 0;
    }
    lg_builder_init(&B, M, 0);
    tfl_max = xnn_max = 0;
    out_scale = 0;
    fn();
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.tflite", dir, name);
    lg_write_options wo = {.force = true};
    lg_status st = B.status;
    if (st != LG_OK) err = B.err;
    else st = lg_tflite_write_file(M, path, &wo, &err);
    lg_model_free(M);
    if (st != LG_OK) fprintf(stderr, "make_quant_models2: %s: %s\n", name, err.msg);
    return st == LG_OK;
}

/* NAME arguments select models (default: all). Lines: "run NAME OUTPUT_SCALE TFLITE_MAX
   XNNPACK_MAX" and "refuse NAME WORDS..." */
static int wanted(int argc, char **argv, const char *name) {
    if (argc == 2) return 1;
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], name) == 0) return 1;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: make_quant_models2 DIR [NAME...]\n");
        return 2;
    }
    int bad = 0;
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
        if (!wanted(argc, argv, models[k].name)) continue;
        if (write_model(argv[1], models[k].name, models[k].fn))
            printf("run %s %.9g %d %d\n", models[k].name, out_scale, tfl_max, xnn_max);
        else
            bad = 1;
    }
    for (size_t k = 0; k < sizeof refusals / sizeof refusals[0]; k++) {
        if (!wanted(argc, argv, refusals[k].name)) continue;
        if (write_model(argv[1], refusals[k].name, refusals[k].fn))
            printf("refuse %s %s\n", refusals[k].name, refusals[k].what);
        else
            bad = 1;
    }
    return bad;
}
