/* Reference kernels: selection and type conversion.
 *
 *   SELECT      condition (BOOL) of x's shape, or a scalar, or rank 1 matching x's first
 *               dimension (whole rows); x and y of one shape
 *   SELECT_V2   condition, x and y broadcast together (numpy rules)
 *   CAST        between FLOAT32, FLOAT16 (held as float32, rounded to half on output),
 *               INT64, INT32, INT16, UINT16, UINT32, INT8, UINT8, BOOL. Float -> integer
 *               truncates toward zero; out of range it saturates to the 32-bit (64-bit for
 *               INT64) range and narrower types keep the low bits, NaN gives 0 (what
 *               static_cast compiles to on an ARM64 phone; C++ leaves it undefined).
 *               Integer -> narrower integer keeps the low bits; -> BOOL is x != 0.
 *   ZEROS_LIKE  zeros of the input's shape and type
 *   DEQUANTIZE  FLOAT16 -> FLOAT32 exactly; INT8/UINT8/INT16 and packed INT4 affine, per
 *               tensor (float)(double(scale) * (q - zero_point)) or per channel along
 *               quantized_dimension scale[c] * (float)(q - zero_point[c]), as TFLite (INT4
 *               unpacked to int8 first, as TFLite does); INT8/INT4 blockwise as ML Drift
 *   QUANTIZE    float -> INT8/UINT8/INT16, per tensor or per channel:
 *               round_half_away(x / scale) + zero_point, clamped; NaN gives raw 0.
 *               Requantization (integer input) is refused.
 */
#include "run/k_elementwise.h"

/* ------------------------------------------------------------------ SELECT / SELECT_V2 */

typedef struct sel_state {
    lgk_ew_plan plan;   /* over (condition, x, y) */
    int rank_one;       /* SELECT: condition picks whole blocks of x / y */
    int64_t outer, inner;
    uint32_t esize;
} sel_state;

#define SEL_DEF(NAME, T)                                                                       \
    static void NAME(const lgk_ew_plan *p, const uint8_t *restrict c, const void *vx,         \
                     const void *vy, void *vo) {                                               \
        const T *restrict x = vx;                                                              \
        const T *restrict y = vy;                                                              \
        T *restrict o = vo;                                                                    \
        if (p->kind == LGK_EW_SAME) {                                                          \
            EW_LOOP(p->numel, o[i] = c[i] ? x[i] : y[i]);                                      \
            return;                                                                            \
        }                                                                                      \
        const int64_t len = p->dim[p->rank - 1];                                               \
        const int64_t rows = p->numel / len;                                                   \
        const int64_t sc = p->st[0][p->rank - 1], sx = p->st[1][p->rank - 1],                  \
                      sy = p->st[2][p->rank - 1];                                              \
        int64_t idx[LG_MAX_RANK] = {0}, off[LGK_EW_MAX_IN] = {0};                              \
        for (int64_t r = 0; r < rows; r++) {                                                   \
            const uint8_t *cr = c + off[0];                                                    \
            const T *xr = x + off[1], *yr = y + off[2];                                        \
            T *orow = o + r * len;                                                             \
            for (int64_t i = 0; i < len; i++) orow[i] = cr[i * sc] ? xr[i * sx] : yr[i * sy];  \
            lgk_ew_next_row(p, idx, off);                                                      \
        }                                                                                      \
    }
SEL_DEF(sel8, uint8_t)
SEL_DEF(sel16, uint16_t)
SEL_DEF(sel32, uint32_t)
SEL_DEF(sel64, uint64_t)

static int same_shape(const lgk_tensor *a, const lgk_tensor *b) {
    if (a->rank != b->rank) return 0;
    for (uint32_t d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d]) return 0;
    return 1;
}

static int select_type_ok(const lgk_tensor *t) {
    if (lgk_ew_is_float(t)) return 1;
    switch (t->type) {
    case LG_BOOL: case LG_UINT8: case LG_INT8: case LG_INT16: case LG_INT32: case LG_INT64: return 1;
    default: return 0;
    }
}

lg_status lgk_ew_select_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgk_ew_arity(n, 3, 3, err));
    const lgk_tensor *c = n->in[0], *x = n->in[1], *y = n->in[2];
    if (c->type != LG_BOOL)
        return lgk_fail(n, LG_ERR_FORMAT, err, "condition (tensor %d) is %s, expected BOOL", c->index,
                        lg_dtype_name(c->ir->type));
    if (x->type != y->type || lgk_ew_is_float(x) != lgk_ew_is_float(y))
        return lgk_fail(n, LG_ERR_FORMAT, err, "x (tensor %d) is %s but y (tensor %d) is %s", x->index,
                        lg_dtype_name(x->ir->type), y->index, lg_dtype_name(y->ir->type));
    if (!select_type_ok(x)) return lgk_ew_bad_type(n, x, "FLOAT32, FLOAT16, BOOL, UINT8, INT8, INT16, INT32, INT64", err);
    sel_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    s->esize = lgk_elem_size(x->type);
    const lgk_tensor *ins[3] = {c, x, y};
    int32_t shape[LG_MAX_RANK];
    uint32_t rank;
    int plan = 1;
    if (n->code == LG_OP_SELECT_V2) {
        LG_TRY(lgk_ew_broadcast(n, ins, 3, shape, &rank, err));
    } else {
        if (!same_shape(x, y))
            return lgk_fail(n, LG_ERR_FORMAT, err, "x (tensor %d) and y (tensor %d) differ in shape", x->index,
                            y->index);
        rank = x->rank;
        memcpy(shape, x->shape, sizeof shape);
        if (same_shape(c, x)) {
            plan = 1;
        } else if (c->rank == 0 || (c->rank == 1 && x->rank >= 1 && c->shape[0] == x->shape[0])) {
            plan = 0;
            s->rank_one = 1;
            s->outer = c->numel;
            s->inner = s->outer ? x->numel / s->outer : 0;
        } else {
            return lgk_fail(n, LG_ERR_FORMAT, err,
                            "condition (tensor %d) must have x's shape, be a scalar, or be rank 1 of x's "
                            "first dimension", c->index);
        }
    }
    LG_TRY(lgk_ew_out_type(n, x->type, err));
    LG_TRY(lgk_set_output(n, 0, x->type, shape, rank, err)); /* checks the size first */
    if (plan) lgk_ew_plan_init(&s->plan, ins, 3, shape, rank);
    else s->plan.kind = n->out[0]->numel ? LGK_EW_GENERAL : LGK_EW_EMPTY;
    n->state = s;
    return LG_OK;
}

lg_status lgk_ew_select_eval(lgk_node *n, lg_error *err) {
    const sel_state *s = n->state;
    if (s->plan.kind == LGK_EW_EMPTY) return LG_OK;
    LG_TRY(lgk_ew_have_data(n, err));
    const uint8_t *c = n->in[0]->data;
    const uint8_t *x = n->in[1]->data, *y = n->in[2]->data;
    uint8_t *o = n->out[0]->data;
    if (s->rank_one) {
        const size_t blk = (size_t)s->inner * s->esize;
        for (int64_t i = 0; i < s->outer; i++)
            memcpy(o + (size_t)i * blk, (c[i] ? x : y) + (size_t)i * blk, blk);
        return LG_OK;
    }
    switch (s->esize) {
    case 1: sel8(&s->plan, c, x, y, o); break;
    case 2: sel16(&s->plan, c, x, y, o); break;
    case 4: sel32(&s->plan, c, x, y, o); break;
    default: sel64(&s->plan, c, x, y, o); break;
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ CAST */

enum { K_F, K_I32, K_I64, K_U8, K_I8, K_I16, K_U16, K_U32, K_BOOL, K_BAD };

/* The cast class of a tensor's model type; FLOAT16 is a float held as float32. */
static int cast_kind(const lgk_tensor *t) {
    switch (t->ir ? t->ir->type : (int)t->type) {
    case LG_FLOAT32: case LG_FLOAT16: return t->type == LG_FLOAT32 ? K_F : K_BAD;
    case LG_INT32: return K_I32;
    case LG_INT64: return K_I64;
    case LG_UINT8: return K_U8;
    case LG_INT8: return K_I8;
    case LG_INT16: return K_I16;
    case LG_UINT16: return K_U16;
    case LG_UINT32: return K_U32;
    case LG_BOOL: return K_BOOL;
    default: return K_BAD;
    }
}

typedef struct cast_state {
    int from, to;
    int in_half, out_half; /* model type FLOAT16: values are halves */
} cast_state;

static inline uint32_t f2u32(float v) {
    if (!(v > 0.0f)) return 0; /* NaN, negative, zero */
    if (v >= 4294967296.0f) return UINT32_MAX;
    return (uint32_t)v;
}

/* from an integer type (V is the value read, as int64) to every type */
#define CAST_FROM_INT(TI, V)                                                                   \
    do {                                                                                       \
        const TI *restrict x = vin;                                                            \
        switch (s->to) {                                                                       \
        case K_F: { float *restrict o = vout; EW_LOOP(cnt, o[i] = (float)(V)); break; }       \
        case K_I32: { int32_t *restrict o = vout; EW_LOOP(cnt, o[i] = (int32_t)(V)); break; } \
        case K_I64: { int64_t *restrict o = vout; EW_LOOP(cnt, o[i] = (int64_t)(V)); break; } \
        case K_U8: { uint8_t *restrict o = vout; EW_LOOP(cnt, o[i] = (uint8_t)(V)); break; }  \
        case K_I8: { int8_t *restrict o = vout; EW_LOOP(cnt, o[i] = (int8_t)(V)); break; }    \
        case K_I16: { int16_t *restrict o = vout; EW_LOOP(cnt, o[i] = (int16_t)(V)); break; } \
        case K_U16: { uint16_t *restrict o = vout; EW_LOOP(cnt, o[i] = (uint16_t)(V)); break; } \
        case K_U32: { uint32_t *restrict o = vout; EW_LOOP(cnt, o[i] = (uint32_t)(V)); break; } \
        default: { uint8_t *restrict o = vout; EW_LOOP(cnt, o[i] = (uint8_t)((V) != 0)); break; } \
        }                                                                                      \
    } while (0)

/* from float (V is the value read) to every type */
#define CAST_FROM_FLOAT(V)                                                                     \
    do {                                                                                       \
        const float *restrict x = vin;                                                         \
        switch (s->to) {                                                                       \
        case K_F: { float *restrict o = vout; EW_LOOP(cnt, o[i] = (V)); break; }              \
        case K_I32: { int32_t *restrict o = vout; EW_LOOP(cnt, o[i] = lgk_ew_f2i32(V)); break; } \
        case K_I64: { int64_t *restrict o = vout; EW_LOOP(cnt, o[i] = lgk_ew_f2i64(V)); break; } \
        case K_U8: { uint8_t *restrict o = vout; EW_LOOP(cnt, o[i] = (uint8_t)lgk_ew_f2i32(V)); break; } \
        case K_I8: { int8_t *restrict o = vout; EW_LOOP(cnt, o[i] = (int8_t)lgk_ew_f2i32(V)); break; } \
        case K_I16: { int16_t *restrict o = vout; EW_LOOP(cnt, o[i] = (int16_t)lgk_ew_f2i32(V)); break; } \
        case K_U16: { uint16_t *restrict o = vout; EW_LOOP(cnt, o[i] = (uint16_t)lgk_ew_f2i32(V)); break; } \
        case K_U32: { uint32_t *restrict o = vout; EW_LOOP(cnt, o[i] = f2u32(V)); break; }    \
        default: { uint8_t *restrict o = vout; EW_LOOP(cnt, o[i] = (uint8_t)((V) != 0.0f)); break; } \
        }                                                                                      \
    } while (0)

lg_status lgk_ew_cast_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgk_ew_arity(n, 1, 1, err));
    const lgk_tensor *x = n->in[0], *o = n->out[0];
    const char *supported = "FLOAT32, FLOAT16, INT64, INT32, INT16, UINT16, UINT32, INT8, UINT8, BOOL";
    int from = cast_kind(x);
    if (from == K_BAD) return lgk_ew_bad_type(n, x, supported, err);
    int ot = o->ir ? o->ir->type : (int)o->type;
    lgk_tensor probe = *o;
    probe.type = lgk_storage_type(ot);
    int to = cast_kind(&probe);
    if (to == K_BAD)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output type %s (tensor %d) is not supported; supported: %s",
                        lg_dtype_name(ot), o->index, supported);
    LG_TRY(lgk_set_output(n, 0, probe.type, x->shape, x->rank, err));
    cast_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    s->from = from;
    s->to = to;
    s->in_half = from == K_F && x->ir && x->ir->type == LG_FLOAT16;
    s->out_half = to == K_F && ot == LG_FLOAT16;
    n->state = s;
    return LG_OK;
}

lg_status lgk_ew_cast_eval(lgk_node *n, lg_error *err) {
    const cast_state *s = n->state;
    const int64_t cnt = n->out[0]->numel;
    if (cnt == 0) return LG_OK;
    LG_TRY(lgk_ew_have_data(n, err));
    const void *vin = n->in[0]->data;
    void *vout = n->out[0]->data;
    switch (s->from) {
    case K_F:
        /* a FLOAT16 tensor holds halves; in LG_PREC_F32 an upstream op may have left more bits */
        if (s->in_half) CAST_FROM_FLOAT(lg_round_half(x[i]));
        else CAST_FROM_FLOAT(x[i]);
        break;
    case K_I32: CAST_FROM_INT(int32_t, x[i]); break;
    case K_I64: CAST_FROM_INT(int64_t, x[i]); break;
    case K_U8: CAST_FROM_INT(uint8_t, x[i]); break;
    case K_I8: CAST_FROM_INT(int8_t, x[i]); break;
    case K_I16: CAST_FROM_INT(int16_t, x[i]); break;
    case K_U16: CAST_FROM_INT(uint16_t, x[i]); break;
    case K_U32: CAST_FROM_INT(uint32_t, x[i]); break;
    default: CAST_FROM_INT(uint8_t, x[i] != 0); break;
    }
    if (s->out_half) {
        /* to FLOAT16: round to nearest even half, in every precision mode (int64 -> half goes
           through float, as Eigen::half's constructor does) */
        float *o = vout;
        for (int64_t i = 0; i < cnt; i++) o[i] = lg_round_half(o[i]);
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ ZEROS_LIKE */

lg_status lgk_ew_zeros_like_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgk_ew_arity(n, 1, 1, err));
    const lgk_tensor *x = n->in[0];
    if (!lgk_ew_is_float(x) && x->type != LG_INT32 && x->type != LG_INT64 && x->type != LG_INT16 &&
        x->type != LG_INT8 && x->type != LG_UINT8 && x->type != LG_BOOL)
        return lgk_ew_bad_type(n, x, "FLOAT32, FLOAT16, INT64, INT32, INT16, INT8, UINT8, BOOL", err);
    LG_TRY(lgk_ew_out_type(n, x->type, err));
    return lgk_set_output(n, 0, x->type, x->shape, x->rank, err);
}

lg_status lgk_ew_zeros_like_eval(lgk_node *n, lg_error *err) {
    LG_TRY(lgk_ew_have_data(n, err));
    if (n->out[0]->nbytes) memset(n->out[0]->data, 0, (size_t)n->out[0]->nbytes);
    return LG_OK;
}

/* ------------------------------------------------------------------ quantization parameters */

typedef struct qparams {
    int per_channel;
    float scale;            /* per tensor */
    int64_t zp;
    const float *scales;    /* per channel: n_ch values (the model's) */
    int32_t *zps;           /* per channel (arena) */
    int64_t outer, n_ch, inner;
} qparams;

/* Read the affine quantization of t into q (per tensor or per channel). */
static lg_status read_quant(lgk_node *n, const lgk_tensor *t, const char *what, qparams *q, lg_error *err) {
    memset(q, 0, sizeof *q);
    const lg_quant *qu = t->ir ? t->ir->quant : NULL;
    if (!qu || !qu->n_scale || !qu->scale)
        return lgk_fail(n, LG_ERR_FORMAT, err, "%s (tensor %d) has no quantization scale", what, t->index);
    if (qu->details_kind != LG_OPTS_NONE)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "%s (tensor %d) uses custom quantization details", what,
                        t->index);
    if (qu->zero_point && qu->n_zero_point != qu->n_scale && qu->n_zero_point != 1)
        return lgk_fail(n, LG_ERR_FORMAT, err, "%s (tensor %d) has %u scales but %u zero points", what, t->index,
                        qu->n_scale, qu->n_zero_point);
    for (uint32_t k = 0; qu->zero_point && k < qu->n_zero_point; k++)
        if (qu->zero_point[k] < INT32_MIN || qu->zero_point[k] > INT32_MAX)
            return lgk_fail(n, LG_ERR_FORMAT, err, "%s (tensor %d): zero point %lld is out of range", what,
                            t->index, (long long)qu->zero_point[k]);
    if (qu->n_scale == 1) {
        q->scale = qu->scale[0];
        q->zp = qu->zero_point && qu->n_zero_point ? qu->zero_point[0] : 0;
        return LG_OK;
    }
    int32_t qd = qu->quantized_dimension;
    if (qd < 0 || (uint32_t)qd >= t->rank || t->shape[qd] != (int32_t)qu->n_scale)
        return lgk_fail(n, LG_ERR_FORMAT, err, "%s (tensor %d): %u scales do not match quantized dimension %d",
                        what, t->index, qu->n_scale, qd);
    q->per_channel = 1;
    q->scales = qu->scale;
    q->n_ch = qu->n_scale;
    q->zps = lgk_alloc(n, (size_t)q->n_ch * sizeof(int32_t));
    if (!q->zps) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    for (int64_t c = 0; c < q->n_ch; c++)
        q->zps[c] = !qu->zero_point || !qu->n_zero_point ? 0
                  : (int32_t)qu->zero_point[qu->n_zero_point == 1 ? 0 : c];
    q->outer = 1;
    q->inner = 1;
    for (int32_t d = 0; d < qd; d++) q->outer *= t->shape[d];
    for (uint32_t d = (uint32_t)qd + 1; d < t->rank; d++) q->inner *= t->shape[d];
    return LG_OK;
}

/* ------------------------------------------------------------------ DEQUANTIZE */

/* Blockwise quantization (schema BlockwiseQuantization): the scales (and zero points, when
   given) are constant tensors of the subgraph, one per (channel along quantized_dimension,
   block of block_size along the last axis); every other axis shares them. This is ML Drift's
   BlockwiseDequantize (ml_drift/common/util.h: scale index (o, 0, ..., 0, l / group_size),
   result static_cast<float>(scale * (val - zero_point))). TFLite's own DEQUANTIZE kernel
   (tflite/kernels/dequantize.h) reads affine parameters only: on a blockwise tensor it has no
   scale and LiteRT's CPU returns zeros (measured with LiteRT.js 2.5.3), so litegpu quantize
   does not write this form; the interpreter runs it as the schema and ML Drift define it. */
typedef struct blockq {
    int64_t block;           /* elements per block along the last axis (0: not blockwise) */
    float *scales;           /* per (channel, block), converted to float (arena) */
    int32_t *zps;            /* per (channel, block), or NULL (zero) */
    int64_t outer, n_ch, mid, len; /* input as [outer, n_ch, mid, len]: len the last axis */
} blockq;

typedef struct deq_state {
    qparams q;
    blockq bq;
    int half;           /* FLOAT16 input */
    int8_t *unpacked;   /* INT4 input: TFLite's UnpackPackedIntToInt8 target (arena) */
} deq_state;

/* Per tensor TFLite computes (float)(double(scale) * (q - zero_point)). While |q - zp| < 2^24
   the float product is the same number (the double product of a 24-bit scale and a 24-bit
   integer is exact, and both round once), so that case runs in float, vectorized. */
#define DEQ_FNS(S, T)                                                                          \
    static void deq_f_##S(const T *restrict x, float *restrict o, int64_t n, float sc, int32_t zp) { \
        EW_LOOP(n, o[i] = sc * (float)((int32_t)x[i] - zp));                                   \
    }                                                                                          \
    static void deq_d_##S(const T *restrict x, float *restrict o, int64_t n, double sc, int64_t zp) { \
        for (int64_t i = 0; i < n; i++) o[i] = (float)(sc * (double)((int64_t)x[i] - zp));     \
    }                                                                                          \
    static void deq_c_##S(const T *restrict x, float *restrict o, int64_t n, float sc, int32_t zp) { \
        for (int64_t i = 0; i < n; i++) o[i] = sc * (float)((int64_t)x[i] - zp);               \
    }                                                                                          \
    static void deq_##S(const qparams *q, const void *vx, float *o, int64_t cnt) {             \
        const T *x = vx;                                                                       \
        if (!q->per_channel) {                                                                 \
            if (q->zp > -(1 << 23) && q->zp < (1 << 23))                                       \
                deq_f_##S(x, o, cnt, q->scale, (int32_t)q->zp);                                \
            else                                                                               \
                deq_d_##S(x, o, cnt, q->scale, q->zp);                                         \
            return;                                                                            \
        }                                                                                      \
        /* TFLite: scale[c] * (val - zero_point[c]) in float */                                \
        for (int64_t a = 0; a < q->outer; a++)                                                 \
            for (int64_t c = 0; c < q->n_ch; c++) {                                            \
                const int64_t base = (a * q->n_ch + c) * q->inner;                             \
                if (q->zps[c] > -(1 << 23) && q->zps[c] < (1 << 23))                           \
                    deq_f_##S(x + base, o + base, q->inner, q->scales[c], q->zps[c]);          \
                else                                                                           \
                    deq_c_##S(x + base, o + base, q->inner, q->scales[c], q->zps[c]);          \
            }                                                                                  \
    }
DEQ_FNS(i8, int8_t)
DEQ_FNS(u8, uint8_t)
DEQ_FNS(i16, int16_t)

/* TFLite's UnpackPackedIntToInt8 (tflite/kernels/internal/portable_tensor_utils.cc) for 4
   bits: element 2i is the low nibble of byte i, element 2i+1 the high one, both sign-extended;
   an odd count leaves the last byte's high nibble unused. */
static inline int8_t sext4(unsigned nib) { return (int8_t)((int)((nib & 15u) ^ 8u) - 8); }
static void unpack_int4(const uint8_t *restrict src, int64_t n, int8_t *restrict dst) {
    for (int64_t i = 0; i < n / 2; i++) {
        dst[2 * i] = sext4(src[i]);
        dst[2 * i + 1] = sext4((unsigned)src[i] >> 4);
    }
    if (n % 2) dst[n - 1] = sext4(src[n / 2]);
}

/* The subgraph holding the node's op (the blockwise parameters name tensors of it). */
static const lg_subgraph *node_subgraph(const lgk_node *n) {
    for (uint32_t s = 0; s < n->m->n_subgraphs; s++) {
        const lg_subgraph *sg = &n->m->subgraphs[s];
        if (sg->n_ops && n->op >= sg->ops && n->op < sg->ops + sg->n_ops) return sg;
    }
    return NULL;
}

/* The constant tensor `idx` of the op's subgraph with exactly `want` elements, or NULL and err. */
static const lg_tensor *block_param(lgk_node *n, const lgk_tensor *x, int32_t idx, int64_t want, const char *what,
                                    const lg_buffer **buf, lg_error *err) {
    const lg_subgraph *sg = node_subgraph(n);
    const lg_tensor *t = sg && idx >= 0 && (uint32_t)idx < sg->n_tensors ? &sg->tensors[idx] : NULL;
    const lg_buffer *b = t ? lg_tensor_buffer(n->m, t) : NULL;
    int bits = t ? lg_dtype_bits(t->type) : 0;
    if (!t || !b || t->sparsity || bits <= 0 || lg_tensor_numel(t) != want ||
        b->size != (uint64_t)(want * bits + 7) / 8) {
        lgk_fail(n, LG_ERR_FORMAT, err, "input (tensor %d): blockwise %s tensor %d is not a dense constant of %lld values",
                 x->index, what, idx, (long long)want);
        return NULL;
    }
    *buf = b;
    return t;
}

static lg_status read_blockwise(lgk_node *n, const lgk_tensor *x, blockq *bq, lg_error *err) {
    const lg_quant *qu = x->ir->quant;
    const lg_blockwise_quantization *d = qu->details;
    int32_t qd = qu->quantized_dimension, r = (int32_t)x->rank;
    if (!d || d->block_size <= 0 || r < 2 || qd < 0 || qd >= r - 1 || x->shape[r - 1] % d->block_size)
        return lgk_fail(n, LG_ERR_FORMAT, err,
                        "input (tensor %d): blockwise quantization with block size %d, quantized dimension %d does not fit its shape",
                        x->index, d ? d->block_size : 0, qd);
    bq->block = d->block_size;
    bq->outer = bq->mid = 1;
    for (int32_t k = 0; k < qd; k++) bq->outer *= x->shape[k];
    for (int32_t k = qd + 1; k < r - 1; k++) bq->mid *= x->shape[k];
    bq->n_ch = x->shape[qd];
    bq->len = x->shape[r - 1];
    const int64_t ns = bq->n_ch * (bq->len / bq->block);
    const lg_buffer *b = NULL;
    const lg_tensor *st = block_param(n, x, d->scales, ns, "scale", &b, err);
    if (!st) return err ? err->status : LG_ERR_FORMAT;
    if (st->type != LG_FLOAT16 && st->type != LG_FLOAT32)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "input (tensor %d): blockwise scales of type %s (FLOAT16 or FLOAT32)",
                        x->index, lg_dtype_name(st->type));
    bq->scales = lgk_alloc(n, (size_t)ns * sizeof(float));
    if (!bq->scales) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    for (int64_t k = 0; k < ns; k++) {
        if (st->type == LG_FLOAT16) {
            bq->scales[k] = lg_half_to_float(lgi_rd_u16(b->data + 2 * k));
        } else {
            uint32_t u = lgi_rd_u32(b->data + 4 * k);
            memcpy(&bq->scales[k], &u, 4);
        }
    }
    if (d->zero_points < 0) return LG_OK;
    const lg_tensor *zt = block_param(n, x, d->zero_points, ns, "zero point", &b, err);
    if (!zt) return err ? err->status : LG_ERR_FORMAT;
    if (zt->type != LG_INT32 && zt->type != LG_INT8)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "input (tensor %d): blockwise zero points of type %s (INT32 or INT8)",
                        x->index, lg_dtype_name(zt->type));
    bq->zps = lgk_alloc(n, (size_t)ns * sizeof(int32_t));
    if (!bq->zps) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    for (int64_t k = 0; k < ns; k++)
        bq->zps[k] = zt->type == LG_INT8 ? (int8_t)b->data[k] : (int32_t)lgi_rd_u32(b->data + 4 * k);
    return LG_OK;
}

/* static_cast<float>(scale[s] * (val - zero_point[s])): a float times an int, in float. */
static void deq_block(const blockq *bq, const int8_t *restrict x, float *restrict o) {
    const int64_t nb = bq->len / bq->block;
    for (int64_t a = 0; a < bq->outer; a++)
        for (int64_t c = 0; c < bq->n_ch; c++)
            for (int64_t mm = 0; mm < bq->mid; mm++) {
                const int64_t base = ((a * bq->n_ch + c) * bq->mid + mm) * bq->len;
                for (int64_t l = 0; l < bq->len; l++) {
                    const int64_t s = c * nb + l / bq->block;
                    const int32_t zp = bq->zps ? bq->zps[s] : 0;
                    o[base + l] = bq->scales[s] * (float)((int32_t)x[base + l] - zp);
                }
            }
}

lg_status lgk_ew_dequantize_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgk_ew_arity(n, 1, 1, err));
    const lgk_tensor *x = n->in[0];
    deq_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    const lg_quant *qu = x->ir ? x->ir->quant : NULL;
    if (lgk_ew_is_float(x) && x->ir->type == LG_FLOAT16) {
        s->half = 1;
    } else if (x->type == LG_INT8 || x->type == LG_UINT8 || x->type == LG_INT16 || x->type == LG_INT4) {
        if (x->type == LG_INT4) {
            /* packed: only a constant holds INT4 (the interpreter keeps its bytes as stored) */
            if (!x->is_const || x->nbytes != (uint64_t)(x->numel + 1) / 2)
                return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "input (tensor %d): INT4 is supported as packed constant data only",
                                x->index);
            s->unpacked = lgk_alloc(n, (size_t)x->numel);
            if (!s->unpacked) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
        }
        if (qu && qu->details_kind == LG_QDETAILS_BLOCKWISE_QUANTIZATION && (x->type == LG_INT8 || x->type == LG_INT4))
            LG_TRY(read_blockwise(n, x, &s->bq, err));
        else
            LG_TRY(read_quant(n, x, "input", &s->q, err));
    } else {
        return lgk_ew_bad_type(n, x, "FLOAT16, INT8, UINT8, INT16, INT4", err);
    }
    LG_TRY(lgk_ew_out_type(n, LG_FLOAT32, err));
    LG_TRY(lgk_set_output(n, 0, LG_FLOAT32, x->shape, x->rank, err));
    n->state = s;
    return LG_OK;
}

lg_status lgk_ew_dequantize_eval(lgk_node *n, lg_error *err) {
    const deq_state *s = n->state;
    const int64_t cnt = n->out[0]->numel;
    if (cnt == 0) return LG_OK;
    LG_TRY(lgk_ew_have_data(n, err));
    float *o = n->out[0]->data;
    if (s->half) {
        const float *restrict x = n->in[0]->data;
        if (n->in[0]->is_const) {
            memcpy(o, x, (size_t)cnt * sizeof(float)); /* converted from half at load: exact */
        } else {
            for (int64_t i = 0; i < cnt; i++) o[i] = lg_round_half(x[i]);
        }
        return LG_OK;
    }
    const void *x = n->in[0]->data;
    if (n->in[0]->type == LG_INT4) {
        unpack_int4(x, cnt, s->unpacked);
        x = s->unpacked;
    }
    if (s->bq.block) {
        deq_block(&s->bq, x, o);
        return LG_OK;
    }
    switch (n->in[0]->type) {
    case LG_INT8: case LG_INT4: deq_i8(&s->q, x, o, cnt); break;
    case LG_UINT8: deq_u8(&s->q, x, o, cnt); break;
    default: deq_i16(&s->q, x, o, cnt); break;
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ QUANTIZE */

typedef struct quant_state {
    qparams q;
    double qmin, qmax;
} quant_state;

/* TFLite's AffineQuantize: TfLiteRound(val / (float)scale) in float, then in double
   + zero_point and clamped; a NaN gives raw 0 (what the conversion yields on x86-64 and ARM). */
static inline int32_t quant1(float v, float scale, double zp, double lo, double hi) {
    double d = (double)roundf(v / scale) + zp;
    if (d != d) return 0;
    d = d < lo ? lo : d;
    d = d > hi ? hi : d;
    return (int32_t)d;
}

#define QUANT_LOOPS(T)                                                                         \
    do {                                                                                       \
        T *restrict o = n->out[0]->data;                                                       \
        if (!q->per_channel) {                                                                 \
            const float sc = q->scale;                                                         \
            const double zp = (double)q->zp;                                                   \
            for (int64_t i = 0; i < cnt; i++) o[i] = (T)quant1(x[i], sc, zp, lo, hi);          \
            break;                                                                             \
        }                                                                                      \
        for (int64_t a = 0; a < q->outer; a++)                                                 \
            for (int64_t c = 0; c < q->n_ch; c++) {                                            \
                const float sc = q->scales[c];                                                 \
                const double zp = (double)q->zps[c];                                           \
                const int64_t base = (a * q->n_ch + c) * q->inner;                             \
                for (int64_t i = 0; i < q->inner; i++)                                         \
                    o[base + i] = (T)quant1(x[base + i], sc, zp, lo, hi);                      \
            }                                                                                  \
    } while (0)

lg_status lgk_ew_quantize_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgk_ew_arity(n, 1, 1, err));
    const lgk_tensor *x = n->in[0], *o = n->out[0];
    if (!lgk_ew_is_float(x)) {
        if (x->type == LG_INT8 || x->type == LG_UINT8 || x->type == LG_INT16)
            return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                            "requantization (%s input, tensor %d) is not implemented",
                            lg_dtype_name(x->ir->type), x->index);
        return lgk_ew_bad_type(n, x, "FLOAT32, FLOAT16", err);
    }
    int ot = o->ir ? o->ir->type : (int)o->type;
    quant_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    switch (ot) {
    case LG_INT8: s->qmin = -128; s->qmax = 127; break;
    case LG_UINT8: s->qmin = 0; s->qmax = 255; break;
    case LG_INT16: s->qmin = -32768; s->qmax = 32767; break;
    default:
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output type %s (tensor %d) is not supported; supported: "
                        "INT8, UINT8, INT16", lg_dtype_name(ot), o->index);
    }
    /* the output's quantization, checked against the input's shape (the output's shape is set
       below and equals it) */
    lgk_tensor probe = *o;
    probe.rank = x->rank;
    memcpy(probe.shape, x->shape, sizeof probe.shape);
    LG_TRY(read_quant(n, &probe, "output", &s->q, err));
    LG_TRY(lgk_set_output(n, 0, (lg_dtype)ot, x->shape, x->rank, err));
    n->state = s;
    return LG_OK;
}

lg_status lgk_ew_quantize_eval(lgk_node *n, lg_error *err) {
    const quant_state *s = n->state;
    const int64_t cnt = n->out[0]->numel;
    if (cnt == 0) return LG_OK;
    LG_TRY(lgk_ew_have_data(n, err));
    const float *restrict x = n->in[0]->data;
    const qparams *q = &s->q;
    const double lo = s->qmin, hi = s->qmax;
    switch (n->out[0]->type) {
    case LG_INT8: QUANT_LOOPS(int8_t); break;
    case LG_UINT8: QUANT_LOOPS(uint8_t); break;
    default: QUANT_LOOPS(int16_t); break;
    }
    return LG_OK;
}
