/* Reference kernels: unary elementwise ops (fp32 math, rounded once at the output by the
 * interpreter).
 *
 *   ABS NEG SIGN         float, INT32, INT64 (integers wrap: -INT_MIN = INT_MIN)
 *   EXP LOG SQRT RSQRT SQUARE SIN COS TANH FLOOR CEIL   float (libm's logf, sinf, ...;
 *                        RSQRT = 1 / sqrtf(x); EXP and TANH by the vectorizable Cephes
 *                        algorithms below, within 2 ulp)
 *   ROUND                float, half to even with TFLite's sign of zero (RoundToNearest)
 *   LOGISTIC             float, 1 / (1 + exp(-x)): fp32 arithmetic as XNNPACK's (below);
 *                        LG_PREC_F16 as TFLite's reference kernel: 1 above 16.619047, exp(x)
 *                        below -9, else 1 / (1 + exp(-x))
 *   RELU RELU6 RELU_N1_TO_1 RELU_0_TO_1   float clamps (NaN stays NaN)
 *   LEAKY_RELU           x > 0 ? x : x * alpha
 *   ELU                  x < 0 ? expm1f(x) : x
 *   HARD_SWISH           x * min(6, max(0, x + 3)) / 6; fp32 arithmetic as XNNPACK's (below)
 *   GELU                 approximate: 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)));
 *                        exact: 0.5x * erfc(-x / sqrt(2)) (TFLite's form, which avoids the
 *                        cancellation of 1 + erf(x / sqrt 2) for large negative x)
 *   LOGICAL_NOT          BOOL
 * Quantized (INT8/UINT8/INT16) activations are refused with LG_ERR_UNSUPPORTED.
 *
 * fp32 arithmetic (LG_PREC_F32, LG_PREC_F32_F16) of HARD_SWISH and LOGISTIC is XNNPACK's as
 * LiteRT.js runs it (wasm SIMD, no FMA), so that LiteRT.js's results are reproduced bit for bit
 * (checked op by op on the corpus models):
 *   HARD_SWISH  x * min(max(x * (1/6) + 0.5, 0), 1), 1/6 rounded to float (0x1.555556p-3):
 *               XNNPACK's f32-vhswish; the same function as TFLite's, rounded differently.
 *   LOGISTIC    XNNPACK's f32-vsigmoid "rr2_p5_div": e = exp(-|x|) by range reduction
 *               (n = round(-|x| log2 e) by a magic bias that also carries the exponent bias of
 *               s = 2^n, t = |x| + n ln2 with ln2 in two parts, a degree-5 polynomial p,
 *               e = s + (t s) p), f = e / (e + 1) = sigmoid(-|x|), 0 past |x| = 87.34 (where
 *               e would be subnormal); the result is f if x's sign bit is set, else 1 - f.
 *               This is the whole sigmoid, within 3.6 ulp for |x| <= 87.33: TFLite's reference
 *               kernel's cutoffs are approximations of it that XNNPACK (TFLite's default CPU
 *               path) does not make, and they differ from it by 1 ulp in (16.62, 17.33) (1 vs
 *               1 - 2^-24) and by the relative e^x below -9 (exp(x) vs e^x / (1 + e^x)).
 * LG_PREC_F16 keeps TFLite's reference expressions (f_hard_swish, f_logistic).
 */
#include "run/k_elementwise.h"
#include "run/simd.h"

/* Every product and sum is its own fp32 operation (XNNPACK's arithmetic on wasm has no FMA):
   GCC in ISO C mode does not contract a*b+c into an FMA; clang does by default, so say it. */
#ifdef __clang__
#pragma clang fp contract(off)
#endif

typedef struct ew_uprm {
    float alpha;
} ew_uprm;

typedef void (*ew_un_fn)(const void *x, void *o, int64_t n, const ew_uprm *prm);

typedef struct ew_un_state {
    ew_un_fn fn;
    ew_uprm prm;
    size_t isz, osz; /* element sizes */
} ew_un_state;

#define EW_UN_DEF(NAME, TI, TO, PRE, OP)                                                   \
    static void NAME##_k(const TI *restrict x, TO *restrict o, int64_t n, const ew_uprm *prm) { \
        PRE;                                                                               \
        (void)prm;                                                                         \
        EW_LOOP(n, o[i] = OP(x[i]));                                                       \
    }                                                                                      \
    static void NAME(const void *x, void *o, int64_t n, const ew_uprm *prm) {              \
        NAME##_k(x, o, n, prm);                                                            \
    }

/* The same for float -> float ops whose bodies are plain fp32 arithmetic (no libm calls),
   also compiled for AVX2 (8 lanes) and AVX-512F (16 lanes) on x86-64 and picked at run time
   (lgk_simd_level, simd.h: LITEGPU_SIMD caps it): each element gets the same operations in
   the same order whatever the width (no FMA, see the pragma above; divisions and square
   roots are correctly rounded in every instruction set), so every level gives the same bits.
   The wide loops go in blocks of 16 so that the vectorizer fills 16 lanes. */
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#ifdef __clang__
#define EW_T512 __attribute__((target("avx512f")))
#else
#define EW_T512 __attribute__((target("avx512f,prefer-vector-width=512")))
#endif
#define EW_LOOP16(n, BODY)                                                                 \
    do {                                                                                   \
        const int64_t n_ = (n);                                                            \
        int64_t b_ = 0;                                                                    \
        for (; b_ + 16 <= n_; b_ += 16)                                                    \
            for (int j_ = 0; j_ < 16; j_++) {                                              \
                const int64_t i = b_ + j_;                                                 \
                BODY;                                                                      \
            }                                                                              \
        for (int64_t i = b_; i < n_; i++) { BODY; }                                        \
    } while (0)
#define EW_UN_DEF_F(NAME, OP)                                                              \
    EW_UN_DEF(NAME##_p, float, float, NOPRE, OP)                                           \
    __attribute__((target("avx2"))) static void NAME##_k256(const float *restrict x,       \
                                                            float *restrict o, int64_t n) { \
        EW_LOOP16(n, o[i] = OP(x[i]));                                                     \
    }                                                                                      \
    EW_T512 static void NAME##_k512(const float *restrict x, float *restrict o, int64_t n) { \
        EW_LOOP16(n, o[i] = OP(x[i]));                                                     \
    }                                                                                      \
    static void NAME(const void *x, void *o, int64_t n, const ew_uprm *prm) {              \
        const int level = lgk_simd_level();                                                \
        if (level >= LGK_SIMD_AVX512) NAME##_k512(x, o, n);                                \
        else if (level >= LGK_SIMD_AVX2) NAME##_k256(x, o, n);                             \
        else NAME##_p(x, o, n, prm);                                                       \
    }
#else
#define EW_UN_DEF_F(NAME, OP) EW_UN_DEF(NAME, float, float, NOPRE, OP)
#endif

#define NOPRE (void)0
#define ALPHA const float alpha = prm->alpha

/* ------------------------------------------------------------------ scalar bodies */

static inline float f_rsqrt(float v) { return 1.0f / sqrtf(v); }
static inline float f_square(float v) { return v * v; }
static inline float f_relu(float v) { return v < 0.0f ? 0.0f : v; }
static inline float f_relu6(float v) { return lgk_ew_clampf(v, 0.0f, 6.0f); }
static inline float f_relu1(float v) { return lgk_ew_clampf(v, -1.0f, 1.0f); }
static inline float f_relu01(float v) { return lgk_ew_clampf(v, 0.0f, 1.0f); }
static inline float f_elu(float v) { return v < 0.0f ? expm1f(v) : v; }
static inline float f_hard_swish(float v) { return v * lgk_ew_clampf(v + 3.0f, 0.0f, 6.0f) / 6.0f; }
static inline float f_sign(float v) { return (float)((0.0f < v) - (v < 0.0f)); }
/* ---- exp and tanh that vectorize (libm's expf/tanhf are scalar calls: 4 and 13 ns a value
   here, 10-40x XNNPACK). Cephes' single-precision algorithms, branch-free: within 2 ulp of the
   correctly rounded result (tested against double libm over the whole range), inf, NaN and
   subnormal results as libm. */

static inline uint32_t f_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float f_from(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline float f_exp(float x) {
    /* NaN stays NaN; past the ends the result is 0 / inf (a ?: clamp here would stop GCC's
       if-conversion, the bit select does not) */
    x = lgk_ew_self(x < -104.0f, -104.0f, x);
    x = lgk_ew_self(x > 89.0f, 89.0f, x);
    /* n = round(x / ln 2) by the 1.5 * 2^23 trick; r = x - n ln 2 in two parts (Cody-Waite) */
    const float magic = 12582912.0f;
    const float t = x * 1.44269504088896341f + magic;
    const float nf = t - magic;
    const int32_t n = (int32_t)(f_bits(t) - f_bits(magic));
    float r = x - nf * 0.693359375f;
    r = r - nf * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float y = p * (r * r) + r + 1.0f;
    /* times 2^n in two exact steps (n in [-150, 128]), so that large and subnormal results
       round once */
    const int32_t n1 = n / 2, n2 = n - n1;
    const float s1 = f_from((uint32_t)(n1 + 127) << 23), s2 = f_from((uint32_t)(n2 + 127) << 23);
    return y * s1 * s2;
}

/* Cephes tanhf: an odd polynomial for |x| <= 0.625, else 1 - 2 / (exp(2|x|) + 1) */
static inline float f_tanh(float x) {
    const float ax = fabsf(x);
    const float z = x * x;
    float p = -5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    const float small = p * z * x + x;
    const float big = 1.0f - 2.0f / (f_exp(2.0f * ax) + 1.0f);
    const float sbig = f_from(f_bits(big) | (f_bits(x) & 0x80000000u));
    return lgk_ew_self(ax > 0.625f, sbig, small);
}

/* TFLite's reference: 1 above 16.619047, exp(x) below -9, else 1 / (1 + exp(-x)) */
static inline float f_logistic(float v) {
    const int low = v < -9.0f;
    const float e = f_exp(lgk_ew_self(low, v, -v));
    const float mid = lgk_ew_self(low, e, 1.0f / (1.0f + e));
    return lgk_ew_self(v > 16.619047164916992188f, 1.0f, mid);
}

/* ---- fp32 arithmetic as XNNPACK's (see the header comment; no FMA, see the pragma above) */

/* x * min(max(x * (1/6) + 0.5, 0), 1) */
static inline float f_hard_swish_xnn(float v) {
    const float g = v * 0x1.555556p-3f + 0.5f;
    return v * lgk_ew_clampf(g, 0.0f, 1.0f);
}

/* exp(-z) for z = |x| in [0, 87.34] (beyond that the exponent trick wraps: callers select
   something else), XNNPACK's rr2_p5 reduction and polynomial. */
static inline float f_exp_neg_xnn(float z) {
    const float magic = 0x1.8000FEp23f; /* 1.5 * 2^23 + 127: round to integer, biased exponent */
    float n = z * -0x1.715476p+0f + magic;
    const float s = f_from(f_bits(n) << 23); /* 2^n */
    n = n - magic;
    float t = n * 0x1.62E400p-1f + z; /* ln 2, high part */
    t = n * 0x1.7F7D1Cp-20f + t;      /* ln 2, low part */
    float p = t * -0x1.0F9F9Cp-7f + 0x1.573A1Ap-5f;
    p = t * p + -0x1.555A80p-3f;
    p = t * p + 0x1.FFFDC6p-2f;
    p = t * p + -0x1.FFFFF6p-1f;
    t = t * s;
    return t * p + s;
}

/* 1 / (1 + exp(-x)) as XNNPACK's f32-vsigmoid: f = e / (e + 1) = sigmoid(-|x|) with
   e = exp(-|x|) (0 past |x| = 87.34, where e would be subnormal), then f or 1 - f by x's sign
   bit. No cutoffs: it is the exact sigmoid, rounded. */
static inline float f_logistic_xnn(float v) {
    const float z = fabsf(v);
    const float e = f_exp_neg_xnn(z);
    const float f = lgk_ew_self(z > 0x1.5D589Ep+6f, 0.0f, e / (e + 1.0f));
    return lgk_ew_self(f_bits(v) >> 31, f, 1.0f - f);
}
/* TFLite's RoundToNearest: half to even; -0.4 -> +0 (not rintf's -0), -0 -> -0. */
static inline float f_round(float v) {
    const float f = floorf(v);
    const float d = v - f;
    if (d < 0.5f) return f;
    if (d == 0.5f && (int32_t)f % 2 == 0) return f; /* |f| < 2^23 here: the cast is exact */
    return f + 1.0f;
}
#define GELU_K ((float)(1.12837916709551257390 * 0.70710678118654752440)) /* sqrt(2/pi) */
static inline float f_gelu_tanh(float v) {
    return 0.5f * v * (1.0f + f_tanh(GELU_K * (v + 0.044715f * (v * v * v))));
}
static inline float f_gelu_erf(float v) { return 0.5f * v * erfcf(v * (float)-0.70710678118654752440); }

static inline int32_t i32_abs(int32_t v) { return v < 0 ? (int32_t)(0u - (uint32_t)v) : v; }
static inline int32_t i32_neg(int32_t v) { return (int32_t)(0u - (uint32_t)v); }
static inline int32_t i32_sign(int32_t v) { return (0 < v) - (v < 0); }
static inline int64_t i64_abs(int64_t v) { return v < 0 ? (int64_t)(0u - (uint64_t)v) : v; }
static inline int64_t i64_neg(int64_t v) { return (int64_t)(0u - (uint64_t)v); }
static inline int64_t i64_sign(int64_t v) { return (0 < v) - (v < 0); }
static inline uint8_t b_not(uint8_t v) { return (uint8_t)(v == 0); }

#define OP_NEG(v) (-(v))
#define OP_LEAKY(v) lgk_ew_self((v) > 0.0f, (v), (v) * alpha)

EW_UN_DEF(u_abs, float, float, NOPRE, fabsf)
EW_UN_DEF(u_neg, float, float, NOPRE, OP_NEG)
EW_UN_DEF_F(u_exp, f_exp)
EW_UN_DEF(u_log, float, float, NOPRE, logf)
EW_UN_DEF(u_sqrt, float, float, NOPRE, sqrtf)
EW_UN_DEF(u_rsqrt, float, float, NOPRE, f_rsqrt)
EW_UN_DEF(u_square, float, float, NOPRE, f_square)
EW_UN_DEF(u_sin, float, float, NOPRE, sinf)
EW_UN_DEF(u_cos, float, float, NOPRE, cosf)
EW_UN_DEF_F(u_tanh, f_tanh)
EW_UN_DEF_F(u_logistic, f_logistic)
EW_UN_DEF(u_relu, float, float, NOPRE, f_relu)
EW_UN_DEF(u_relu6, float, float, NOPRE, f_relu6)
EW_UN_DEF(u_relu1, float, float, NOPRE, f_relu1)
EW_UN_DEF(u_relu01, float, float, NOPRE, f_relu01)
EW_UN_DEF(u_leaky, float, float, ALPHA, OP_LEAKY)
EW_UN_DEF(u_elu, float, float, NOPRE, f_elu)
EW_UN_DEF_F(u_hard_swish, f_hard_swish)
EW_UN_DEF_F(u_hard_swish_xnn, f_hard_swish_xnn)
EW_UN_DEF_F(u_logistic_xnn, f_logistic_xnn)
EW_UN_DEF(u_gelu_tanh, float, float, NOPRE, f_gelu_tanh)
EW_UN_DEF(u_gelu_erf, float, float, NOPRE, f_gelu_erf)
EW_UN_DEF(u_floor, float, float, NOPRE, floorf)
EW_UN_DEF(u_ceil, float, float, NOPRE, ceilf)
EW_UN_DEF(u_round, float, float, NOPRE, f_round)
EW_UN_DEF(u_sign, float, float, NOPRE, f_sign)
EW_UN_DEF(u_abs32, int32_t, int32_t, NOPRE, i32_abs)
EW_UN_DEF(u_neg32, int32_t, int32_t, NOPRE, i32_neg)
EW_UN_DEF(u_sign32, int32_t, int32_t, NOPRE, i32_sign)
EW_UN_DEF(u_abs64, int64_t, int64_t, NOPRE, i64_abs)
EW_UN_DEF(u_neg64, int64_t, int64_t, NOPRE, i64_neg)
EW_UN_DEF(u_sign64, int64_t, int64_t, NOPRE, i64_sign)
EW_UN_DEF(u_not, uint8_t, uint8_t, NOPRE, b_not)

/* ------------------------------------------------------------------ prepare / eval */

static ew_un_fn pick_float(int32_t code, int f16) {
    switch (code) {
    case LG_OP_ABS: return u_abs;
    case LG_OP_NEG: return u_neg;
    case LG_OP_EXP: return u_exp;
    case LG_OP_LOG: return u_log;
    case LG_OP_SQRT: return u_sqrt;
    case LG_OP_RSQRT: return u_rsqrt;
    case LG_OP_SQUARE: return u_square;
    case LG_OP_SIN: return u_sin;
    case LG_OP_COS: return u_cos;
    case LG_OP_TANH: return u_tanh;
    case LG_OP_LOGISTIC: return f16 ? u_logistic : u_logistic_xnn;
    case LG_OP_RELU: return u_relu;
    case LG_OP_RELU6: return u_relu6;
    case LG_OP_RELU_N1_TO_1: return u_relu1;
    case LG_OP_RELU_0_TO_1: return u_relu01;
    case LG_OP_LEAKY_RELU: return u_leaky;
    case LG_OP_ELU: return u_elu;
    case LG_OP_HARD_SWISH: return f16 ? u_hard_swish : u_hard_swish_xnn;
    case LG_OP_FLOOR: return u_floor;
    case LG_OP_CEIL: return u_ceil;
    case LG_OP_ROUND: return u_round;
    case LG_OP_SIGN: return u_sign;
    default: return NULL; /* GELU is picked by its option */
    }
}

lg_status lgk_ew_unary_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgk_ew_arity(n, 1, 1, err));
    const lgk_tensor *x = n->in[0];
    ew_un_fn fn = NULL;
    ew_uprm prm = {0};
    const char *supported = "FLOAT32, FLOAT16";
    if (n->code == LG_OP_LOGICAL_NOT) {
        supported = "BOOL";
        if (x->type == LG_BOOL) fn = u_not;
    } else if (lgk_ew_is_float(x)) {
        fn = pick_float(n->code, n->ctx->prec == LG_PREC_F16);
        if (n->code == LG_OP_LEAKY_RELU) {
            const void *o;
            LG_TRY(lgk_ew_opts(n, LG_OPTS_LEAKY_RELU_OPTIONS, &o, err));
            prm.alpha = o ? ((const lg_leaky_relu_options *)o)->alpha : 0.0f;
        } else if (n->code == LG_OP_GELU) {
            const void *o;
            LG_TRY(lgk_ew_opts(n, LG_OPTS_GELU_OPTIONS, &o, err));
            fn = o && ((const lg_gelu_options *)o)->approximate ? u_gelu_tanh : u_gelu_erf;
        }
    } else if (n->code == LG_OP_ABS || n->code == LG_OP_NEG || n->code == LG_OP_SIGN) {
        supported = "FLOAT32, FLOAT16, INT32, INT64";
        if (x->type == LG_INT32)
            fn = n->code == LG_OP_ABS ? u_abs32 : n->code == LG_OP_NEG ? u_neg32 : u_sign32;
        else if (x->type == LG_INT64)
            fn = n->code == LG_OP_ABS ? u_abs64 : n->code == LG_OP_NEG ? u_neg64 : u_sign64;
    }
    if (!fn) return lgk_ew_bad_type(n, x, supported, err);
    LG_TRY(lgk_ew_out_type(n, x->type, err));
    LG_TRY(lgk_set_output(n, 0, x->type, x->shape, x->rank, err));
    ew_un_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    s->fn = fn;
    s->prm = prm;
    s->isz = lgk_elem_size(x->type);
    s->osz = lgk_elem_size(n->out[0]->type);
    n->state = s;
    return LG_OK;
}

typedef struct un_job {
    const ew_un_state *s;
    const uint8_t *x;
    uint8_t *o;
} un_job;

static void un_range(void *ud, int64_t begin, int64_t end) {
    const un_job *j = ud;
    j->s->fn(j->x + (size_t)begin * j->s->isz, j->o + (size_t)begin * j->s->osz, end - begin, &j->s->prm);
}

lg_status lgk_ew_unary_eval(lgk_node *n, lg_error *err) {
    const ew_un_state *s = n->state;
    const int64_t cnt = n->out[0]->numel;
    if (cnt == 0) return LG_OK;
    LG_TRY(lgk_ew_have_data(n, err));
    un_job j = {s, n->in[0]->data, n->out[0]->data};
    lgk_parallel_for(n->ctx, cnt, LGK_EW_GRAIN, un_range, &j);
    return LG_OK;
}
