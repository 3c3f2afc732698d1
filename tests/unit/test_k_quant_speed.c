/* The packed int8 / uint8 kernels (src/run/k_quant_gemm*.c through k_quant_conv.c) against a
 * plain reference written here: TFLite's definition of each op, one output at a time,
 *   acc = bias[c] + sum over the taps inside the input of (w - w_zp) * (x - x_zp)   (int64, then
 *         wrapped to int32 as TFLite's int32 accumulator)
 *   TFLite:  MultiplyByQuantizedMultiplier(acc, QuantizeMultiplier(real)) + zp, clamped
 *            (gemmlowp's SaturatingRoundingDoublingHighMul with its nudge and truncating
 *            division, RoundingDivideByPOT; quantization_util.cc, common.h)
 *   XNNPACK: lrintf(clamp(float(acc) * scale, lo - zp, hi - zp)) + zp (the fp32 requantization
 *            of its qs8 / qu8 microkernels)
 * with the activation ranges of kernel_util.cc CalculateActivationRangeQuantized (TFLite) and
 * the delegate's lrintf(clamp(a / scale + zp)) (XNNPACK). Random shapes (odd channel counts,
 * several weight panels, strides, dilations, SAME / VALID, groups, depth multipliers, batches),
 * int8 per tensor and per channel, uint8 with weight zero points, every fused activation, with
 * and without bias, one and two threads; each at every code level (portable, AVX2, AVX-512,
 * AVX-512 VNNI, as far as the CPU has them) and in both arithmetics: every output must be equal.
 * Plus the vector requantization on extreme accumulators, an accumulator that wraps int32, and
 * a hand-derived case of the zero-point folding under padding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kt.h"
#include "lg/lg.h"
#include "lg/run.h"
#include "run/k_quant_gemm.h"
#include "run/simd.h"
#include "tf.h"

/* ------------------------------------------------------------------ the reference arithmetic */

/* QuantizeMultiplier (quantization_util.cc): frexp, the Q31 significand rounded half away from
   zero, 2^31 carried into the exponent, exponents below -31 flushed to zero */
static void ref_qm(double m, int32_t *qm, int *shift) {
    *qm = 0;
    *shift = 0;
    if (m == 0) return;
    int e;
    double q = frexp(m, &e);
    long long f = llround(q * 2147483648.0);
    if (f == 2147483648LL) { f /= 2; e++; }
    if (e < -31) { e = 0; f = 0; }
    *qm = (int32_t)f;
    *shift = e;
}

/* gemmlowp fixedpoint.h, as written there */
static int32_t ref_srdhm(int32_t a, int32_t b) {
    if (a == b && a == INT32_MIN) return INT32_MAX;
    long long ab = (long long)a * b;
    long long nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    return (int32_t)((ab + nudge) / (1LL << 31));
}
static int32_t ref_rdbpot(int32_t x, int e) {
    int32_t mask = (int32_t)((1LL << e) - 1), rem = x & mask, thr = (mask >> 1) + (x < 0);
    return (x >> e) + (rem > thr);
}
static int32_t ref_mbqm(int32_t x, int32_t qm, int shift) {
    int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return ref_rdbpot(ref_srdhm((int32_t)((uint32_t)x << left), qm), right);
}

/* one output's requantization in both arithmetics */
typedef struct ref_rq {
    int xnn;
    int32_t zp, lo, hi;
} ref_rq;
static int32_t ref_out(const ref_rq *r, int32_t acc, double real, float fs) {
    if (r->xnn) {
        float y = (float)acc * fs;
        float a = (float)(r->lo - r->zp), b = (float)(r->hi - r->zp);
        y = y < a ? a : y > b ? b : y;
        return (int32_t)lrintf(y) + r->zp;
    }
    int32_t qm;
    int sh;
    ref_qm(real, &qm, &sh);
    /* TFLite adds the output offset in int32 (wrapping on its targets) */
    int32_t v = (int32_t)((uint32_t)ref_mbqm(acc, qm, sh) + (uint32_t)r->zp);
    return v < r->lo ? r->lo : v > r->hi ? r->hi : v;
}

/* the fused activation's clamp */
static void ref_act(int xnn, int act, lg_dtype t, float scale, int32_t zp, int32_t *lo, int32_t *hi) {
    int32_t qmin = t == LG_UINT8 ? 0 : -128, qmax = t == LG_UINT8 ? 255 : 127;
    *lo = qmin;
    *hi = qmax;
    if (act == LG_ACTIVATION_FUNCTION_TYPE_NONE) return;
    float a = act == LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1 ? -1.0f : 0.0f;
    float b = act == LG_ACTIVATION_FUNCTION_TYPE_RELU6 ? 6.0f : act == LG_ACTIVATION_FUNCTION_TYPE_RELU ? INFINITY : 1.0f;
    if (xnn) {
        float fa = fminf(fmaxf(a / scale + (float)zp, (float)qmin), (float)qmax);
        float fb = fminf(fmaxf(b / scale + (float)zp, (float)qmin), (float)qmax);
        *lo = (int32_t)lrintf(fa);
        *hi = (int32_t)lrintf(fb);
        return;
    }
    int32_t qa = zp + (int32_t)roundf(a / scale);
    *lo = qa > qmin ? qa : qmin;
    if (b != INFINITY) {
        int32_t qb = zp + (int32_t)roundf(b / scale);
        *hi = qb < qmax ? qb : qmax;
    }
}

/* ------------------------------------------------------------------ random cases */

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}
static int ri(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }
static float rf(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() % 100000) / 100000.0f; }

enum { OP_CONV, OP_DW, OP_FC };

typedef struct qcase {
    int op;
    lg_dtype t;
    int per_ch, bias, act, threads;
    int nb, ih, iw, ic, oc, fh, fw, fic, sh, sw, dh, dw, pad, dm; /* conv / dw */
    int m, k;                                                     /* fc: [m, k] x [oc, k] */
    int oh, ow;
    /* data */
    void *x, *w;
    int32_t *b;
    float in_s, out_s, *ws;
    int64_t in_zp, out_zp, *wzp; /* per weight scale */
    int nws;
} qcase;

static int64_t out_dim(int pad, int in, int f, int s, int d) {
    int eff = (f - 1) * d + 1;
    if (pad == LG_PADDING_SAME) return (in + s - 1) / s;
    return in >= eff ? (in - eff + s) / s : 0;
}
static int lead(int s, int d, int in, int f, int out) {
    int total = (out - 1) * s + (f - 1) * d + 1 - in;
    return total > 0 ? total / 2 : 0;
}

static int32_t xat(const qcase *c, int64_t i) {
    return c->t == LG_UINT8 ? ((const uint8_t *)c->x)[i] : ((const int8_t *)c->x)[i];
}
static int32_t wat(const qcase *c, int64_t i) {
    return c->t == LG_UINT8 ? ((const uint8_t *)c->w)[i] : ((const int8_t *)c->w)[i];
}

static void fill_bytes(void *p, int64_t n, lg_dtype t) {
    for (int64_t i = 0; i < n; i++) {
        int v = ri(0, 255);
        if (t == LG_UINT8) ((uint8_t *)p)[i] = (uint8_t)v;
        else ((int8_t *)p)[i] = (int8_t)(v - 128);
    }
}

/* the weights' element count and the depth of one output's sum */
static int64_t w_numel(const qcase *c) {
    if (c->op == OP_CONV) return (int64_t)c->oc * c->fh * c->fw * c->fic;
    if (c->op == OP_DW) return (int64_t)c->fh * c->fw * c->oc;
    return (int64_t)c->oc * c->k;
}
static int64_t depth(const qcase *c) {
    return c->op == OP_CONV ? (int64_t)c->fh * c->fw * c->fic : c->op == OP_DW ? (int64_t)c->fh * c->fw : c->k;
}
static int64_t x_numel(const qcase *c) {
    return c->op == OP_FC ? (int64_t)c->m * c->k : (int64_t)c->nb * c->ih * c->iw * c->ic;
}
static int64_t y_numel(const qcase *c) {
    return c->op == OP_FC ? (int64_t)c->m * c->oc : (int64_t)c->nb * c->oh * c->ow * c->oc;
}

static void make_data(qcase *c) {
    c->x = malloc((size_t)x_numel(c));
    c->w = malloc((size_t)w_numel(c));
    c->b = malloc((size_t)c->oc * sizeof(int32_t));
    fill_bytes(c->x, x_numel(c), c->t);
    fill_bytes(c->w, w_numel(c), c->t);
    for (int i = 0; i < c->oc; i++) c->b[i] = ri(-40000, 40000);
    c->nws = c->per_ch ? c->oc : 1;
    c->ws = malloc((size_t)c->nws * sizeof(float));
    c->wzp = malloc((size_t)c->nws * sizeof(int64_t));
    for (int i = 0; i < c->nws; i++) {
        c->ws[i] = rf(0.002f, 0.02f);
        c->wzp[i] = c->t == LG_UINT8 ? ri(0, 255) : 0;
    }
    c->in_s = rf(0.004f, 0.05f);
    c->in_zp = c->t == LG_UINT8 ? ri(0, 255) : ri(-128, 127);
    c->out_zp = c->t == LG_UINT8 ? ri(0, 255) : ri(-128, 127);
    /* outputs spread over the type's range: |acc| ~ sqrt(K) * 74^2 (uniform bytes) */
    c->out_s = c->in_s * c->ws[0] * sqrtf((float)depth(c)) * 74.0f * 74.0f / 64.0f * rf(0.3f, 3.0f);
}

static void free_data(qcase *c) {
    free(c->x);
    free(c->w);
    free(c->b);
    free(c->ws);
    free(c->wzp);
}

/* the reference output of every element */
static void reference(const qcase *c, int xnn, int64_t *want) {
    ref_rq r = {xnn, (int32_t)c->out_zp, 0, 0};
    ref_act(xnn, c->act, c->t, c->out_s, (int32_t)c->out_zp, &r.lo, &r.hi);
    const int fp = c->op == OP_FC ? !c->per_ch : c->t == LG_UINT8; /* the scale product in float */
    for (int64_t o = 0; o < y_numel(c); o++) {
        const int ch = (int)(o % c->oc);
        const int wi = c->per_ch ? ch : 0;
        const int32_t wz = (int32_t)c->wzp[wi], xz = (int32_t)c->in_zp;
        int64_t acc = c->bias ? c->b[ch] : 0;
        if (c->op == OP_FC) {
            const int64_t row = o / c->oc;
            for (int k = 0; k < c->k; k++) acc += (int64_t)(wat(c, (int64_t)ch * c->k + k) - wz) * (xat(c, row * c->k + k) - xz);
        } else {
            const int64_t pix = o / c->oc, ox = pix % c->ow, oy = (pix / c->ow) % c->oh, b = pix / ((int64_t)c->ow * c->oh);
            const int ph = lead(c->sh, c->dh, c->ih, c->fh, c->oh), pw = lead(c->sw, c->dw, c->iw, c->fw, c->ow);
            const int groups = c->op == OP_CONV ? c->ic / c->fic : 1, g = c->op == OP_CONV ? ch / (c->oc / groups) : 0;
            for (int fy = 0; fy < c->fh; fy++)
                for (int fx = 0; fx < c->fw; fx++) {
                    const int64_t iy = oy * c->sh - ph + fy * c->dh, ix = ox * c->sw - pw + fx * c->dw;
                    if (iy < 0 || iy >= c->ih || ix < 0 || ix >= c->iw) continue;
                    const int64_t xb = ((b * c->ih + iy) * c->iw + ix) * c->ic;
                    if (c->op == OP_DW) {
                        acc += (int64_t)(wat(c, ((int64_t)fy * c->fw + fx) * c->oc + ch) - wz) * (xat(c, xb + ch / c->dm) - xz);
                        continue;
                    }
                    for (int k = 0; k < c->fic; k++)
                        acc += (int64_t)(wat(c, (((int64_t)ch * c->fh + fy) * c->fw + fx) * c->fic + k) - wz) *
                               (xat(c, xb + g * c->fic + k) - xz);
                }
        }
        const float ws = c->ws[wi];
        const double real = fp ? (double)(c->in_s * ws) / (double)c->out_s : (double)c->in_s * (double)ws / (double)c->out_s;
        want[o] = ref_out(&r, (int32_t)(uint32_t)(uint64_t)acc, real, c->in_s * ws / c->out_s);
    }
}

/* ------------------------------------------------------------------ running the op */

typedef struct built {
    lg_conv2d_options co;
    lg_depthwise_conv2d_options dwo;
    lg_fully_connected_options fo;
    float bs[1];
    int64_t z[1];
    float bscale[1024];
    int64_t bzp[1024];
    int64_t izp[1], ozp[1];
    float is[1], os[1];
    kt_op op;
} built;

static void build(const qcase *c, built *B) {
    memset(B, 0, sizeof *B);
    B->izp[0] = c->in_zp;
    B->ozp[0] = c->out_zp;
    B->is[0] = c->in_s;
    B->os[0] = c->out_s;
    for (int i = 0; i < c->oc && i < 1024; i++) {
        B->bscale[i] = c->in_s * c->ws[c->per_ch ? i : 0];
        B->bzp[i] = 0;
    }
    kt_op *k = &B->op;
    k->n_in = c->bias ? 3 : 2;
    k->n_out = 1;
    kt_tensor *x = &k->in[0], *w = &k->in[1], *b = &k->in[2], *y = &k->out[0];
    x->type = y->type = w->type = c->t;
    x->data = c->x;
    x->scale = B->is; x->zp = B->izp; x->nq = 1;
    y->scale = B->os; y->zp = B->ozp; y->nq = 1;
    w->data = c->w;
    w->is_const = 1;
    w->scale = c->ws; w->zp = c->wzp; w->nq = (uint32_t)c->nws;
    b->type = LG_INT32;
    b->data = c->b;
    b->is_const = 1;
    b->scale = B->bscale; b->zp = B->bzp; b->nq = (uint32_t)c->nws;
    b->shape = (lg_dims){&c->oc, 1};
    static int32_t xs[4], wsh[4], ys[4]; /* the builder copies the shapes */
    if (c->op == OP_FC) {
        xs[0] = c->m; xs[1] = c->k;
        wsh[0] = c->oc; wsh[1] = c->k;
        ys[0] = c->m; ys[1] = c->oc;
        x->shape = (lg_dims){xs, 2};
        w->shape = (lg_dims){wsh, 2};
        y->shape = (lg_dims){ys, 2};
        w->qdim = 0;
        B->fo.fused_activation_function = (int8_t)c->act;
        k->code = LG_OP_FULLY_CONNECTED;
        k->kind = LG_OPTS_FULLY_CONNECTED_OPTIONS;
        k->opts = &B->fo;
        return;
    }
    xs[0] = c->nb; xs[1] = c->ih; xs[2] = c->iw; xs[3] = c->ic;
    ys[0] = c->nb; ys[1] = c->oh; ys[2] = c->ow; ys[3] = c->oc;
    x->shape = (lg_dims){xs, 4};
    y->shape = (lg_dims){ys, 4};
    w->shape = (lg_dims){wsh, 4};
    if (c->op == OP_CONV) {
        wsh[0] = c->oc; wsh[1] = c->fh; wsh[2] = c->fw; wsh[3] = c->fic;
        w->qdim = 0;
        lg_conv2d_options *o = &B->co;
        o->padding = (int8_t)c->pad;
        o->stride_h = c->sh; o->stride_w = c->sw;
        o->dilation_h_factor = c->dh; o->dilation_w_factor = c->dw;
        o->fused_activation_function = (int8_t)c->act;
        k->code = LG_OP_CONV_2D;
        k->kind = LG_OPTS_CONV2D_OPTIONS;
        k->opts = o;
    } else {
        wsh[0] = 1; wsh[1] = c->fh; wsh[2] = c->fw; wsh[3] = c->oc;
        w->qdim = 3;
        lg_depthwise_conv2d_options *o = &B->dwo;
        o->padding = (int8_t)c->pad;
        o->stride_h = c->sh; o->stride_w = c->sw;
        o->dilation_h_factor = c->dh; o->dilation_w_factor = c->dw;
        o->depth_multiplier = c->dm;
        o->fused_activation_function = (int8_t)c->act;
        k->code = LG_OP_DEPTHWISE_CONV_2D;
        k->kind = LG_OPTS_DEPTHWISE_CONV2D_OPTIONS;
        k->opts = o;
    }
}

/* runs the op; returns 1 and the outputs in got (as int64) */
static int run_case(const char *file, int line, const char *what, const qcase *c, lg_int_arith a, int64_t *got) {
    built B;
    build(c, &B);
    kt_model t;
    kt_init(&t);
    kt_add_op(&t, &B.op);
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.int_arith = a;
    ro.threads = c->threads;
    lg_interp *it = NULL;
    lg_error err;
    memset(&err, 0, sizeof err);
    int ok = t.b.status == LG_OK && lg_interp_create(t.m, &ro, &it, &err) == LG_OK;
    if (ok) {
        lg_tensor_view v;
        lg_interp_input(it, 0, &v);
        ok = lg_interp_set_input(it, 0, v.type, c->x, v.nbytes, &err) == LG_OK && lg_interp_invoke(it, &err) == LG_OK;
    }
    if (ok) {
        lg_tensor_view v;
        lg_interp_output(it, 0, &v);
        if (v.numel != y_numel(c)) {
            tf_fail(file, line, "%s: %lld outputs, expected %lld", what, (long long)v.numel, (long long)y_numel(c));
            ok = 0;
        }
        for (int64_t i = 0; ok && i < v.numel; i++)
            got[i] = c->t == LG_UINT8 ? ((const uint8_t *)v.data)[i] : ((const int8_t *)v.data)[i];
    } else {
        tf_fail(file, line, "%s: run failed: %s", what, t.b.status != LG_OK ? t.b.err.msg : err.msg);
    }
    lg_interp_free(it);
    kt_free(&t);
    return ok;
}

/* the code levels: portable, AVX2, AVX-512 without and with VNNI (what the CPU lacks runs the
   level below it) */
static const char *const level_names[4] = {"portable", "avx2", "avx512", "avx512-vnni"};
static void set_level(int l) {
    lgk_simd_override(l == 0 ? LGK_SIMD_PORTABLE : l == 1 ? LGK_SIMD_AVX2 : -1);
    lgq_simd_vnni_override(l == 3);
}
static void reset_level(void) {
    lgk_simd_override(-1);
    lgq_simd_vnni_override(1);
}

static void describe(const qcase *c, char *buf, size_t n) {
    static const char *ops[3] = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"};
    if (c->op == OP_FC)
        snprintf(buf, n, "%s %s%s [%d,%d]x[%d,%d] act %d bias %d threads %d", ops[c->op], lg_dtype_name(c->t),
                 c->per_ch ? " per-channel" : "", c->m, c->k, c->oc, c->k, c->act, c->bias, c->threads);
    else
        snprintf(buf, n, "%s %s%s in [%d,%d,%d,%d] oc %d filter %dx%d fic %d stride %dx%d dilation %dx%d %s dm %d "
                 "act %d bias %d threads %d", ops[c->op], lg_dtype_name(c->t), c->per_ch ? " per-channel" : "", c->nb,
                 c->ih, c->iw, c->ic, c->oc, c->fh, c->fw, c->fic, c->sh, c->sw, c->dh, c->dw,
                 c->pad == LG_PADDING_SAME ? "SAME" : "VALID", c->dm, c->act, c->bias, c->threads);
}

/* every level and arithmetic against the reference; the number of outputs compared */
static int64_t check_case(const char *file, int line, qcase *c) {
    make_data(c);
    const int64_t n = y_numel(c);
    int64_t *want = malloc((size_t)(n ? n : 1) * sizeof(int64_t)), *got = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    char what[400];
    int64_t compared = 0;
    for (int xnn = 0; xnn < 2; xnn++) {
        reference(c, xnn, want);
        for (int l = 0; l < 4; l++) {
            set_level(l);
            char d[300];
            describe(c, d, sizeof d);
            snprintf(what, sizeof what, "%s, %s, %s", d, xnn ? "xnnpack" : "tflite", level_names[l]);
            if (!run_case(file, line, what, c, xnn ? LG_INT_XNNPACK : LG_INT_TFLITE, got)) continue;
            for (int64_t i = 0; i < n; i++)
                if (got[i] != want[i]) {
                    tf_fail(file, line, "%s: output %lld (channel %lld) is %lld, expected %lld", what, (long long)i,
                            (long long)(i % c->oc), (long long)got[i], (long long)want[i]);
                    break;
                }
            compared += n;
        }
    }
    reset_level();
    free(want);
    free(got);
    free_data(c);
    return compared;
}

static const int acts[4] = {LG_ACTIVATION_FUNCTION_TYPE_NONE, LG_ACTIVATION_FUNCTION_TYPE_RELU,
                            LG_ACTIVATION_FUNCTION_TYPE_RELU6, LG_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1};

static void common(qcase *c, int op, int i) {
    memset(c, 0, sizeof *c);
    c->op = op;
    c->t = i % 3 == 0 ? LG_UINT8 : LG_INT8;
    c->per_ch = c->t == LG_INT8 && i % 3 == 1;
    c->bias = i % 5 != 4;
    c->act = acts[i % 4];
    c->threads = i % 7 == 3 ? 2 : 1;
}

static void geometry(qcase *c) {
    c->oh = (int)out_dim(c->pad, c->ih, c->fh, c->sh, c->dh);
    c->ow = (int)out_dim(c->pad, c->iw, c->fw, c->sw, c->dw);
}

LG_TEST(k_quant_speed_conv_random_exact) {
    int64_t compared = 0;
    for (int i = 0; i < 48; i++) {
        qcase c;
        common(&c, OP_CONV, i);
        c.nb = i % 6 == 5 ? 2 : 1;
        c.ih = ri(1, 9);
        c.iw = ri(1, 9);
        const int kinds = i % 4; /* 0: 1x1 stride 1, 1: 3x3, 2: random, 3: grouped */
        c.fh = kinds == 0 ? 1 : kinds == 1 ? 3 : ri(1, 4);
        c.fw = kinds == 0 ? 1 : kinds == 1 ? 3 : ri(1, 4);
        c.sh = kinds == 0 ? 1 : ri(1, 2);
        c.sw = kinds == 0 ? 1 : ri(1, 2);
        c.dh = kinds == 2 ? ri(1, 2) : 1;
        c.dw = kinds == 2 ? ri(1, 2) : 1;
        c.pad = i % 2 ? LG_PADDING_SAME : LG_PADDING_VALID;
        const int groups = kinds == 3 ? ri(2, 3) : 1;
        c.fic = ri(1, kinds == 0 ? 70 : 19);
        c.ic = c.fic * groups;
        c.oc = groups * ri(1, i % 8 == 0 ? 40 : 24);
        c.dm = 1;
        geometry(&c);
        compared += check_case(__FILE__, __LINE__, &c);
    }
    /* a deep one: 3x3 x 121 channels = 1089 (odd) taps, the activation tile shorter than the
       output rows (several tiles per piece), 3 weight panels */
    qcase c;
    common(&c, OP_CONV, 1);
    c.nb = 1; c.ih = 7; c.iw = 8; c.ic = c.fic = 121; c.oc = 37; c.fh = c.fw = 3;
    c.sh = c.sw = c.dh = c.dw = 1; c.pad = LG_PADDING_SAME; c.dm = 1;
    geometry(&c);
    compared += check_case(__FILE__, __LINE__, &c);
    CHECK(compared > 100000);
}

LG_TEST(k_quant_speed_depthwise_random_exact) {
    int64_t compared = 0;
    for (int i = 0; i < 40; i++) {
        qcase c;
        common(&c, OP_DW, i);
        c.nb = i % 6 == 5 ? 2 : 1;
        c.ih = ri(1, 10);
        c.iw = ri(1, 10);
        c.fh = i % 3 ? 3 : ri(1, 5);
        c.fw = i % 3 ? 3 : ri(1, 5);
        c.sh = ri(1, 2);
        c.sw = ri(1, 2);
        c.dh = i % 4 == 2 ? 2 : 1;
        c.dw = i % 4 == 2 ? ri(1, 3) : 1;
        c.pad = i % 2 ? LG_PADDING_SAME : LG_PADDING_VALID;
        c.dm = i % 5 == 3 ? ri(2, 3) : 1;
        /* channels: under 8, odd, past 32 and 64 (the vector blocks and their tails) */
        static const int chans[8] = {1, 3, 8, 17, 32, 45, 64, 83};
        c.ic = chans[i % 8];
        c.oc = c.ic * c.dm;
        c.fic = 1;
        geometry(&c);
        compared += check_case(__FILE__, __LINE__, &c);
    }
    CHECK(compared > 50000);
}

LG_TEST(k_quant_speed_fully_connected_random_exact) {
    int64_t compared = 0;
    for (int i = 0; i < 24; i++) {
        qcase c;
        common(&c, OP_FC, i);
        c.m = ri(1, 20);
        c.k = ri(1, 300);
        c.oc = ri(1, 80);
        compared += check_case(__FILE__, __LINE__, &c);
    }
    CHECK(compared > 10000);
}

/* An accumulator past int32: uint8 weights 0 at zero point 255 (w - wz = -255) times inputs 255
   at zero point 0, 40000 times: -255 * 255 * 40000 = -2,601,000,000, which TFLite's int32
   accumulator wraps to 1,693,967,296. The reference wraps the same way; the packed kernels
   wrap in their int32 lanes. */
LG_TEST(k_quant_speed_accumulator_wraps_like_int32) {
    qcase c;
    common(&c, OP_FC, 0);
    c.t = LG_UINT8;
    c.m = 2; c.k = 40000; c.oc = 3; c.bias = 0;
    make_data(&c);
    memset(c.x, 255, (size_t)x_numel(&c));
    memset(c.w, 0, (size_t)w_numel(&c));
    c.wzp[0] = 255;
    c.in_zp = 0;
    c.out_zp = 0;
    c.ws[0] = 1.0f / 1024;
    c.in_s = 1.0f / 1024;
    c.out_s = 1.0f / 16384; /* real multiplier 2^-6: 1693967296 / 64 = 26468239 -> clamped 255 */
    c.act = LG_ACTIVATION_FUNCTION_TYPE_NONE;
    int64_t want[6], got[6];
    const int64_t wrapped = (int64_t)(int32_t)(uint32_t)(uint64_t)(-255LL * 255 * 40000);
    CHECK_EQ_INT(wrapped, 1693967296);
    for (int xnn = 0; xnn < 2; xnn++) {
        reference(&c, xnn, want);
        CHECK_EQ_INT(want[0], 255); /* the wrapped sum is positive: saturates high */
        for (int l = 0; l < 4; l++) {
            set_level(l);
            if (run_case(__FILE__, __LINE__, level_names[l], &c, xnn ? LG_INT_XNNPACK : LG_INT_TFLITE, got))
                for (int i = 0; i < 6; i++) CHECK_EQ_INT(got[i], want[i]);
        }
    }
    /* near miss: with an int64 accumulator the sum would be negative and clamp to 0 */
    CHECK(-255LL * 255 * 40000 < 0);
    reset_level();
    free_data(&c);
}

/* Hand-derived: uint8 CONV_2D 3x3 SAME on a 1x1 input x = 12 (zero point 10), every weight 5 at
   zero point 3, bias 1, scales 1 (real multiplier 1): only the centre tap is inside, acc =
   1 + (5 - 3) * (12 - 10) = 5 -> 5 in both arithmetics. Near miss: if the 8 taps outside read 0
   instead of being skipped, each would add (5 - 3) * (0 - 10) = -20: acc = -155 -> clamped 0. */
LG_TEST(k_quant_speed_padding_zero_point_folded) {
    const uint8_t x[1] = {12}, w[9] = {5, 5, 5, 5, 5, 5, 5, 5, 5};
    const int32_t b[1] = {1};
    const float one[1] = {1.0f};
    const int64_t zx[1] = {10}, zw[1] = {3}, z0[1] = {0};
    lg_conv2d_options co;
    memset(&co, 0, sizeof co);
    co.padding = LG_PADDING_SAME;
    co.stride_w = co.stride_h = co.dilation_w_factor = co.dilation_h_factor = 1;
    kt_op c = {LG_OP_CONV_2D, LG_OPTS_CONV2D_OPTIONS, &co, 3, {
        {LG_UINT8, LG_DIMS(1, 1, 1, 1), x, 0, one, zx, 1, 0},
        {LG_UINT8, LG_DIMS(1, 3, 3, 1), w, 1, one, zw, 1, 0},
        {LG_INT32, LG_DIMS(1), b, 1, one, z0, 1, 0},
    }, 1, {{LG_UINT8, LG_DIMS(1, 1, 1, 1), NULL, 0, one, z0, 1, 0}}};
    for (int l = 0; l < 4; l++) {
        set_level(l);
        for (int a = 0; a < 2; a++) {
            kt_model t;
            kt_init(&t);
            kt_add_op(&t, &c);
            lg_run_options ro;
            memset(&ro, 0, sizeof ro);
            ro.int_arith = a ? LG_INT_XNNPACK : LG_INT_TFLITE;
            lg_interp *it = NULL;
            lg_error err;
            CHECK_OK(lg_interp_create(t.m, &ro, &it, &err), &err);
            if (it) {
                CHECK_OK(lg_interp_set_input(it, 0, LG_UINT8, x, 1, &err), &err);
                CHECK_OK(lg_interp_invoke(it, &err), &err);
                lg_tensor_view v;
                lg_interp_output(it, 0, &v);
                CHECK_EQ_INT(((const uint8_t *)v.data)[0], 5);
                lg_interp_free(it);
            }
            kt_free(&t);
        }
    }
    reset_level();
}

/* The vector requantization (rq8 / rq16) against the reference on the accumulators where the
   rounding rules differ: the int32 extremes, 0, +-1, exact ties of every right shift, values
   around them; left shifts that wrap; multipliers from 0 to 2^31 - 1. */
LG_TEST(k_quant_speed_requantize_extremes) {
    enum { N = 64 * 3 };
    static const double reals[] = {0.5, 0.75, 1.0 - 1e-9, 1e-9, 0.0, 1.0 / 3, 3.7, 100.0, 1e6, 0x1p-31, 0x1p-32};
    int32_t acc[N];
    int64_t tested = 0;
    for (size_t ri_ = 0; ri_ < sizeof reals / sizeof reals[0]; ri_++) {
        for (int u8 = 0; u8 < 2; u8++) {
            /* per-channel arrays padded to a multiple of 32, as the kernels have them */
            float fs[N];
            int32_t mult[N], lsh[N], rsh[N];
            double real[N];
            for (int i = 0; i < N; i++) {
                real[i] = reals[ri_] * (1.0 + (double)(i % 7) / 8.0);
                int32_t qm;
                int sh;
                ref_qm(real[i], &qm, &sh);
                if (sh > 30) { qm = 1 << 30; sh = 30; real[i] = ldexp(0.5, 30); }
                mult[i] = qm;
                lsh[i] = sh > 0 ? sh : 0;
                rsh[i] = sh > 0 ? 0 : -sh;
                fs[i] = (float)real[i];
                /* ties of the right shift e: (2j + 1) * 2^(e - 1), and the extremes */
                const int e = rsh[i] ? rsh[i] : 1;
                switch (i % 8) {
                case 0: acc[i] = INT32_MIN; break;
                case 1: acc[i] = INT32_MAX; break;
                case 2: acc[i] = (i & 16) ? 1 : -1; break;
                case 3: acc[i] = 0; break;
                case 4: {
                    int64_t v = (int64_t)(2 * (i / 8) + 1) << (e - 1);
                    acc[i] = (int32_t)(uint32_t)(uint64_t)((i & 8) ? -v : v);
                    break;
                }
                default: acc[i] = (int32_t)(rnd() ^ (rnd() << 16)); break;
                }
            }
            for (int xnn = 0; xnn < 2; xnn++) {
                int32_t zp = u8 ? 128 : -5;
                lgq_rq q;
                memset(&q, 0, sizeof q);
                q.xnn = xnn;
                q.fs = fs;
                q.mult = mult;
                q.lsh = lsh;
                q.rsh = rsh;
                q.zp = zp;
                q.lo = u8 ? 3 : -128;
                q.hi = u8 ? 250 : 127;
                q.flo = (float)(q.lo - zp) - 1.0f;
                q.fhi = (float)(q.hi - zp) + 1.0f;
                q.out_u8 = u8;
                ref_rq r = {xnn, zp, q.lo, q.hi};
                for (int l = 0; l < 3; l++) {
                    set_level(l == 2 ? 3 : l);
                    uint8_t out[N];
                    /* n = N - 5: the vector body and a tail */
                    lgq_requant_row(&q, 0, acc, N - 5, out);
                    for (int i = 0; i < N - 5; i++) {
                        /* fs here is float(real) for xnn; ref_out multiplies by fs directly */
                        int32_t want = ref_out(&r, acc[i], ldexp((double)mult[i], -31) * ldexp(1.0, lsh[i] - rsh[i]), fs[i]);
                        int32_t g = u8 ? out[i] : (int8_t)out[i];
                        if (g != want) {
                            tf_fail(__FILE__, __LINE__, "%s %s %s: acc %d mult %d shift +%d -%d fs %g: %d, expected %d",
                                    level_names[l == 2 ? 3 : l], xnn ? "xnnpack" : "tflite", u8 ? "uint8" : "int8",
                                    acc[i], mult[i], lsh[i], rsh[i], (double)fs[i], g, want);
                            break;
                        }
                        tested++;
                    }
                }
            }
        }
    }
    reset_level();
    CHECK(tested > 10000);
}

/* The packing is the same for every level, so an interpreter prepared at one level gives the
   same outputs when the level changes before an invoke (LITEGPU_SIMD is per process, the
   override per test, but nothing ties a prepared model to the level it was prepared at). */
LG_TEST(k_quant_speed_level_changes_after_prepare) {
    for (int op = 0; op < 3; op++) {
        qcase c;
        common(&c, op, 2);
        c.t = op == 1 ? LG_UINT8 : LG_INT8;
        c.per_ch = c.t == LG_INT8;
        c.nb = 1; c.ih = 6; c.iw = 7; c.ic = op == 1 ? 37 : 21; c.oc = op == 1 ? 37 : 35;
        c.fh = c.fw = 3; c.fic = c.ic; c.sh = c.sw = c.dh = c.dw = 1; c.dm = 1;
        c.pad = LG_PADDING_SAME;
        c.m = 5; c.k = 43;
        if (op != OP_FC) geometry(&c);
        make_data(&c);
        const int64_t n = y_numel(&c);
        int64_t *want = malloc((size_t)n * sizeof(int64_t));
        reference(&c, 1, want);
        built B;
        build(&c, &B);
        kt_model t;
        kt_init(&t);
        kt_add_op(&t, &B.op);
        lg_run_options ro;
        memset(&ro, 0, sizeof ro);
        ro.int_arith = LG_INT_XNNPACK;
        lg_interp *it = NULL;
        lg_error err;
        set_level(3);
        CHECK_OK(lg_interp_create(t.m, &ro, &it, &err), &err);
        for (int l = 3; it && l >= 0; l--) {
            set_level(l);
            CHECK_OK(lg_interp_set_input(it, 0, c.t, c.x, (uint64_t)x_numel(&c), &err), &err);
            CHECK_OK(lg_interp_invoke(it, &err), &err);
            lg_tensor_view v;
            lg_interp_output(it, 0, &v);
            int bad = 0;
            for (int64_t i = 0; i < n && !bad; i++) {
                int64_t g = c.t == LG_UINT8 ? ((const uint8_t *)v.data)[i] : ((const int8_t *)v.data)[i];
                if (g != want[i]) {
                    tf_fail(__FILE__, __LINE__, "op %d prepared at avx512-vnni, run at %s: output %lld is %lld, expected %lld",
                            op, level_names[l], (long long)i, (long long)g, (long long)want[i]);
                    bad = 1;
                }
            }
        }
        reset_level();
        lg_interp_free(it);
        kt_free(&t);
        free(want);
        free_data(&c);
    }
}
