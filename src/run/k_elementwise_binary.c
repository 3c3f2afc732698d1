/* Reference kernels: binary elementwise ops with numpy broadcasting.
 *
 *   ADD SUB MUL DIV      float (fused RELU/RELU6/RELU_N1_TO_1), INT32, INT64 (DIV: INT32)
 *   MAXIMUM MINIMUM      float, INT8, UINT8, INT16, INT32, INT64 (raw values, as TFLite)
 *   POW                  float (powf), INT32 (negative exponents fail, as TFLite)
 *   SQUARED_DIFFERENCE   float, INT32
 *   FLOOR_DIV FLOOR_MOD  float, INT32, INT64 (a zero integer divisor fails; FLOOR_DIV also
 *                        fails on a zero float divisor, as TFLite does)
 *   ATAN2                float: atan2f(in0, in1)
 *   PRELU                float: x >= 0 ? x : x * alpha, alpha broadcast to x's shape
 *   EQUAL ... GREATER_EQUAL  float, INT16, INT32, INT64 (EQUAL/NOT_EQUAL also BOOL) -> BOOL
 *   LOGICAL_AND LOGICAL_OR   BOOL -> BOOL
 *
 * Quantized INT8/UINT8/INT16 arithmetic and comparisons (which rescale both inputs) are
 * refused with LG_ERR_UNSUPPORTED. Integer arithmetic wraps (two's complement), as TFLite's
 * does on every machine it runs on; INT32_MIN / -1 gives INT32_MIN (ARM's sdiv).
 */
#include "run/k_elementwise.h"

typedef struct ew_prm {
    float lo, hi;     /* float fused activation */
    int64_t ilo, ihi; /* integer fused activation (CalculateActivationRange<int32/int64>) */
} ew_prm;

/* Computes elements [begin, end) (LGK_EW_SAME and the scalar kinds) or rows [begin, end)
   (LGK_EW_GENERAL) of the output. */
typedef void (*ew_bin_fn)(const lgk_ew_plan *p, const void *a, const void *b, void *o, const ew_prm *prm,
                          int64_t begin, int64_t end);

enum { CHK_NONE, CHK_ZERO_F32, CHK_ZERO_I32, CHK_ZERO_I64, CHK_NEG_I32 };

typedef struct ew_bin_state {
    lgk_ew_plan plan;
    ew_bin_fn fn;
    ew_prm prm;
    int check; /* what the divisor / exponent (input 1) must not hold */
} ew_bin_state;

/* One function per (op, type): the same-shape, scalar and row loops with OP inlined. The
   loops live in three small functions with restrict parameters (see EW_LOOP). PRE declares
   what OP uses from prm. */
#define EW_BIN_DEF(NAME, TA, TO, PRE, OP)                                                       \
    static void NAME##_vv(const TA *restrict a, const TA *restrict b, TO *restrict o, int64_t n, \
                          const ew_prm *prm) {                                                  \
        PRE;                                                                                    \
        (void)prm;                                                                              \
        EW_LOOP(n, o[i] = OP(a[i], b[i]));                                                      \
    }                                                                                           \
    static void NAME##_vs(const TA *restrict a, const TA y, TO *restrict o, int64_t n,          \
                          const ew_prm *prm) {                                                  \
        PRE;                                                                                    \
        (void)prm;                                                                              \
        EW_LOOP(n, o[i] = OP(a[i], y));                                                         \
    }                                                                                           \
    static void NAME##_sv(const TA x, const TA *restrict b, TO *restrict o, int64_t n,          \
                          const ew_prm *prm) {                                                  \
        PRE;                                                                                    \
        (void)prm;                                                                              \
        EW_LOOP(n, o[i] = OP(x, b[i]));                                                         \
    }                                                                                           \
    static void NAME(const lgk_ew_plan *p, const void *va, const void *vb, void *vo,            \
                     const ew_prm *prm, int64_t begin, int64_t end) {                           \
        const TA *a = va, *b = vb;                                                              \
        TO *o = vo;                                                                             \
        switch (p->kind) {                                                                      \
        case LGK_EW_SAME: NAME##_vv(a + begin, b + begin, o + begin, end - begin, prm); return; \
        case LGK_EW_A_SCALAR: NAME##_sv(a[0], b + begin, o + begin, end - begin, prm); return;  \
        case LGK_EW_B_SCALAR: NAME##_vs(a + begin, b[0], o + begin, end - begin, prm); return;  \
        case LGK_EW_GENERAL: break;                                                             \
        default: return;                                                                        \
        }                                                                                       \
        const int64_t len = p->dim[p->rank - 1];                                                \
        const int inner = (p->st[0][p->rank - 1] != 0) | ((p->st[1][p->rank - 1] != 0) << 1);   \
        int64_t idx[LG_MAX_RANK], off[LGK_EW_MAX_IN];                                           \
        lgk_ew_row_start(p, begin, idx, off);                                                   \
        for (int64_t r = begin; r < end; r++) {                                                 \
            const TA *ar = a + off[0], *br = b + off[1];                                        \
            TO *orow = o + r * len;                                                             \
            if (inner == 3) NAME##_vv(ar, br, orow, len, prm);                                  \
            else if (inner == 1) NAME##_vs(ar, br[0], orow, len, prm);                          \
            else NAME##_sv(ar[0], br, orow, len, prm);                                          \
            lgk_ew_next_row(p, idx, off);                                                       \
        }                                                                                       \
    }

#define NOPRE (void)0
#define FACT const float lo = prm->lo, hi = prm->hi
#define IACT32 const int32_t lo = (int32_t)prm->ilo, hi = (int32_t)prm->ihi
#define IACT64 const int64_t lo = prm->ilo, hi = prm->ihi

/* ------------------------------------------------------------------ scalar helpers */

static inline int32_t clampi32(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline int64_t clampi64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline int32_t wadd32(int32_t x, int32_t y) { return (int32_t)((uint32_t)x + (uint32_t)y); }
static inline int32_t wsub32(int32_t x, int32_t y) { return (int32_t)((uint32_t)x - (uint32_t)y); }
static inline int32_t wmul32(int32_t x, int32_t y) { return (int32_t)((uint32_t)x * (uint32_t)y); }
static inline int64_t wadd64(int64_t x, int64_t y) { return (int64_t)((uint64_t)x + (uint64_t)y); }
static inline int64_t wsub64(int64_t x, int64_t y) { return (int64_t)((uint64_t)x - (uint64_t)y); }
static inline int64_t wmul64(int64_t x, int64_t y) { return (int64_t)((uint64_t)x * (uint64_t)y); }

/* truncating division; the divisor was checked non-zero */
static inline int32_t div32(int32_t x, int32_t y) {
    if (y == -1) return (int32_t)(0u - (uint32_t)x); /* INT32_MIN / -1 = INT32_MIN */
    return y ? x / y : 0;
}

/* TFLite: floor((double)x / (double)y); exact for integers (the quotient never rounds across an
   integer), here in integer arithmetic; INT_MIN / -1 saturates as the double->int cast does
   on ARM. */
static inline int32_t floordiv32(int32_t x, int32_t y) {
    if (y == 0) return 0;
    if (y == -1) return x == INT32_MIN ? INT32_MAX : -x;
    int32_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) q--;
    return q;
}
static inline int64_t floordiv64(int64_t x, int64_t y) {
    if (y == 0) return 0;
    if (y == -1) return x == INT64_MIN ? INT64_MAX : -x;
    int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) q--;
    return q;
}
/* TFLite's FloorMod: the truncated remainder, moved to the divisor's sign. */
static inline int32_t floormod32(int32_t x, int32_t y) {
    if (y == 0 || y == -1) return 0;
    int32_t r = x % y;
    return (r != 0 && ((y < 0) != (r < 0))) ? r + y : r;
}
static inline int64_t floormod64(int64_t x, int64_t y) {
    if (y == 0 || y == -1) return 0;
    int64_t r = x % y;
    return (r != 0 && ((y < 0) != (r < 0))) ? r + y : r;
}
static inline float floormodf(float x, float y) {
    float r = fmodf(x, y);
    return (r != 0 && ((y < 0) != (r < 0))) ? r + y : r;
}
static inline float floordivf(float x, float y) { return (float)floor((double)x / (double)y); }
/* TFLite's int32 POW: std::pow(int, int) is a double, converted back (saturating here). */
static inline int32_t powi32(int32_t x, int32_t y) { return lgk_ew_f2i32(pow((double)x, (double)y)); }
static inline float sqdiff(float x, float y) {
    const float d = x - y;
    return d * d;
}
static inline int32_t sqdiff32(int32_t x, int32_t y) {
    const uint32_t d = (uint32_t)x - (uint32_t)y;
    return (int32_t)(d * d);
}

/* ------------------------------------------------------------------ op bodies */

#define OP_ADD(x, y) ((x) + (y))
#define OP_SUB(x, y) ((x) - (y))
#define OP_MUL(x, y) ((x) * (y))
#define OP_DIV(x, y) ((x) / (y))
#define OP_ADD_A(x, y) lgk_ew_clampf((x) + (y), lo, hi)
#define OP_SUB_A(x, y) lgk_ew_clampf((x) - (y), lo, hi)
#define OP_MUL_A(x, y) lgk_ew_clampf((x) * (y), lo, hi)
#define OP_DIV_A(x, y) lgk_ew_clampf((x) / (y), lo, hi)
#define OP_MAX(x, y) ((x) > (y) ? (x) : (y))
#define OP_MIN(x, y) ((x) < (y) ? (x) : (y))
#define OP_POWF(x, y) powf((x), (y))
#define OP_ATAN2(x, y) atan2f((x), (y))
#define OP_PRELU(x, y) lgk_ew_self((x) >= 0.0f, (x), (x) * (y))

#define OP_IADD32(x, y) clampi32(wadd32((x), (y)), lo, hi)
#define OP_ISUB32(x, y) clampi32(wsub32((x), (y)), lo, hi)
#define OP_IMUL32(x, y) clampi32(wmul32((x), (y)), lo, hi)
#define OP_IDIV32(x, y) clampi32(div32((x), (y)), lo, hi)
#define OP_IADD64(x, y) clampi64(wadd64((x), (y)), lo, hi)
#define OP_ISUB64(x, y) clampi64(wsub64((x), (y)), lo, hi)
#define OP_IMUL64(x, y) clampi64(wmul64((x), (y)), lo, hi)

#define OP_EQ(x, y) ((uint8_t)((x) == (y)))
#define OP_NE(x, y) ((uint8_t)((x) != (y)))
#define OP_LT(x, y) ((uint8_t)((x) < (y)))
#define OP_LE(x, y) ((uint8_t)((x) <= (y)))
#define OP_GT(x, y) ((uint8_t)((x) > (y)))
#define OP_GE(x, y) ((uint8_t)((x) >= (y)))
#define OP_BEQ(x, y) ((uint8_t)(((x) != 0) == ((y) != 0)))
#define OP_BNE(x, y) ((uint8_t)(((x) != 0) != ((y) != 0)))
#define OP_AND(x, y) ((uint8_t)(((x) != 0) & ((y) != 0)))
#define OP_OR(x, y) ((uint8_t)(((x) != 0) | ((y) != 0)))

/* float */
EW_BIN_DEF(f_add, float, float, NOPRE, OP_ADD)
EW_BIN_DEF(f_sub, float, float, NOPRE, OP_SUB)
EW_BIN_DEF(f_mul, float, float, NOPRE, OP_MUL)
EW_BIN_DEF(f_div, float, float, NOPRE, OP_DIV)
EW_BIN_DEF(f_add_a, float, float, FACT, OP_ADD_A)
EW_BIN_DEF(f_sub_a, float, float, FACT, OP_SUB_A)
EW_BIN_DEF(f_mul_a, float, float, FACT, OP_MUL_A)
EW_BIN_DEF(f_div_a, float, float, FACT, OP_DIV_A)
EW_BIN_DEF(f_max, float, float, NOPRE, OP_MAX)
EW_BIN_DEF(f_min, float, float, NOPRE, OP_MIN)
EW_BIN_DEF(f_pow, float, float, NOPRE, OP_POWF)
EW_BIN_DEF(f_sqdiff, float, float, NOPRE, sqdiff)
EW_BIN_DEF(f_floordiv, float, float, NOPRE, floordivf)
EW_BIN_DEF(f_floormod, float, float, NOPRE, floormodf)
EW_BIN_DEF(f_atan2, float, float, NOPRE, OP_ATAN2)
EW_BIN_DEF(f_prelu, float, float, NOPRE, OP_PRELU)
/* int32 */
EW_BIN_DEF(i32_add, int32_t, int32_t, IACT32, OP_IADD32)
EW_BIN_DEF(i32_sub, int32_t, int32_t, IACT32, OP_ISUB32)
EW_BIN_DEF(i32_mul, int32_t, int32_t, IACT32, OP_IMUL32)
EW_BIN_DEF(i32_div, int32_t, int32_t, IACT32, OP_IDIV32)
EW_BIN_DEF(i32_max, int32_t, int32_t, NOPRE, OP_MAX)
EW_BIN_DEF(i32_min, int32_t, int32_t, NOPRE, OP_MIN)
EW_BIN_DEF(i32_pow, int32_t, int32_t, NOPRE, powi32)
EW_BIN_DEF(i32_sqdiff, int32_t, int32_t, NOPRE, sqdiff32)
EW_BIN_DEF(i32_floordiv, int32_t, int32_t, NOPRE, floordiv32)
EW_BIN_DEF(i32_floormod, int32_t, int32_t, NOPRE, floormod32)
/* int64 */
EW_BIN_DEF(i64_add, int64_t, int64_t, IACT64, OP_IADD64)
EW_BIN_DEF(i64_sub, int64_t, int64_t, IACT64, OP_ISUB64)
EW_BIN_DEF(i64_mul, int64_t, int64_t, IACT64, OP_IMUL64)
EW_BIN_DEF(i64_max, int64_t, int64_t, NOPRE, OP_MAX)
EW_BIN_DEF(i64_min, int64_t, int64_t, NOPRE, OP_MIN)
EW_BIN_DEF(i64_floordiv, int64_t, int64_t, NOPRE, floordiv64)
EW_BIN_DEF(i64_floormod, int64_t, int64_t, NOPRE, floormod64)
/* small integers: raw MAXIMUM / MINIMUM */
EW_BIN_DEF(i8_max, int8_t, int8_t, NOPRE, OP_MAX)
EW_BIN_DEF(i8_min, int8_t, int8_t, NOPRE, OP_MIN)
EW_BIN_DEF(u8_max, uint8_t, uint8_t, NOPRE, OP_MAX)
EW_BIN_DEF(u8_min, uint8_t, uint8_t, NOPRE, OP_MIN)
EW_BIN_DEF(i16_max, int16_t, int16_t, NOPRE, OP_MAX)
EW_BIN_DEF(i16_min, int16_t, int16_t, NOPRE, OP_MIN)
/* comparisons */
#define EW_CMP_DEFS(P, T)                                \
    EW_BIN_DEF(P##_eq, T, uint8_t, NOPRE, OP_EQ)         \
    EW_BIN_DEF(P##_ne, T, uint8_t, NOPRE, OP_NE)         \
    EW_BIN_DEF(P##_lt, T, uint8_t, NOPRE, OP_LT)         \
    EW_BIN_DEF(P##_le, T, uint8_t, NOPRE, OP_LE)         \
    EW_BIN_DEF(P##_gt, T, uint8_t, NOPRE, OP_GT)         \
    EW_BIN_DEF(P##_ge, T, uint8_t, NOPRE, OP_GE)
EW_CMP_DEFS(cf, float)
EW_CMP_DEFS(c16, int16_t)
EW_CMP_DEFS(c32, int32_t)
EW_CMP_DEFS(c64, int64_t)
EW_BIN_DEF(cb_eq, uint8_t, uint8_t, NOPRE, OP_BEQ)
EW_BIN_DEF(cb_ne, uint8_t, uint8_t, NOPRE, OP_BNE)
EW_BIN_DEF(b_and, uint8_t, uint8_t, NOPRE, OP_AND)
EW_BIN_DEF(b_or, uint8_t, uint8_t, NOPRE, OP_OR)

/* ------------------------------------------------------------------ prepare / eval */

enum { T_F, T_I32, T_I64, T_I8, T_U8, T_I16, T_BOOL, T_OTHER };

static int type_class(const lgk_tensor *t) {
    if (lgk_ew_is_float(t)) return T_F;
    switch (t->type) {
    case LG_INT32: return T_I32;
    case LG_INT64: return T_I64;
    case LG_INT8: return T_I8;
    case LG_UINT8: return T_U8;
    case LG_INT16: return T_I16;
    case LG_BOOL: return T_BOOL;
    default: return T_OTHER;
    }
}

/* The function for (op, type class, activation on); NULL if unsupported. *supported names the
   types the op takes, for the error message. */
static ew_bin_fn pick(int32_t code, int tc, int act_on, int *check, const char **supported) {
    *check = CHK_NONE;
#define CMP6(CODE, S)                                                                   \
    case LG_OP_##CODE:                                                                  \
        *supported = "FLOAT32, FLOAT16, INT16, INT32, INT64";                           \
        return tc == T_F ? cf_##S : tc == T_I16 ? c16_##S : tc == T_I32 ? c32_##S       \
             : tc == T_I64 ? c64_##S : NULL;
    switch (code) {
    case LG_OP_ADD:
        *supported = "FLOAT32, FLOAT16, INT32, INT64";
        return tc == T_F ? (act_on ? f_add_a : f_add) : tc == T_I32 ? i32_add : tc == T_I64 ? i64_add : NULL;
    case LG_OP_SUB:
        *supported = "FLOAT32, FLOAT16, INT32, INT64";
        return tc == T_F ? (act_on ? f_sub_a : f_sub) : tc == T_I32 ? i32_sub : tc == T_I64 ? i64_sub : NULL;
    case LG_OP_MUL:
        *supported = "FLOAT32, FLOAT16, INT32, INT64";
        return tc == T_F ? (act_on ? f_mul_a : f_mul) : tc == T_I32 ? i32_mul : tc == T_I64 ? i64_mul : NULL;
    case LG_OP_DIV:
        *supported = "FLOAT32, FLOAT16, INT32";
        if (tc == T_I32) *check = CHK_ZERO_I32;
        return tc == T_F ? (act_on ? f_div_a : f_div) : tc == T_I32 ? i32_div : NULL;
    case LG_OP_MAXIMUM:
        *supported = "FLOAT32, FLOAT16, INT8, UINT8, INT16, INT32, INT64";
        return tc == T_F ? f_max : tc == T_I32 ? i32_max : tc == T_I64 ? i64_max : tc == T_I8 ? i8_max
             : tc == T_U8 ? u8_max : tc == T_I16 ? i16_max : NULL;
    case LG_OP_MINIMUM:
        *supported = "FLOAT32, FLOAT16, INT8, UINT8, INT16, INT32, INT64";
        return tc == T_F ? f_min : tc == T_I32 ? i32_min : tc == T_I64 ? i64_min : tc == T_I8 ? i8_min
             : tc == T_U8 ? u8_min : tc == T_I16 ? i16_min : NULL;
    case LG_OP_POW:
        *supported = "FLOAT32, FLOAT16, INT32";
        if (tc == T_I32) *check = CHK_NEG_I32;
        return tc == T_F ? f_pow : tc == T_I32 ? i32_pow : NULL;
    case LG_OP_SQUARED_DIFFERENCE:
        *supported = "FLOAT32, FLOAT16, INT32";
        return tc == T_F ? f_sqdiff : tc == T_I32 ? i32_sqdiff : NULL;
    case LG_OP_FLOOR_DIV:
        *supported = "FLOAT32, FLOAT16, INT32, INT64";
        *check = tc == T_F ? CHK_ZERO_F32 : tc == T_I32 ? CHK_ZERO_I32 : CHK_ZERO_I64;
        return tc == T_F ? f_floordiv : tc == T_I32 ? i32_floordiv : tc == T_I64 ? i64_floordiv : NULL;
    case LG_OP_FLOOR_MOD:
        *supported = "FLOAT32, FLOAT16, INT32, INT64";
        *check = tc == T_I32 ? CHK_ZERO_I32 : tc == T_I64 ? CHK_ZERO_I64 : CHK_NONE;
        return tc == T_F ? f_floormod : tc == T_I32 ? i32_floormod : tc == T_I64 ? i64_floormod : NULL;
    case LG_OP_ATAN2:
        *supported = "FLOAT32, FLOAT16";
        return tc == T_F ? f_atan2 : NULL;
    case LG_OP_PRELU:
        *supported = "FLOAT32, FLOAT16";
        return tc == T_F ? f_prelu : NULL;
    CMP6(LESS, lt)
    CMP6(LESS_EQUAL, le)
    CMP6(GREATER, gt)
    CMP6(GREATER_EQUAL, ge)
    case LG_OP_EQUAL:
        *supported = "FLOAT32, FLOAT16, INT16, INT32, INT64, BOOL";
        return tc == T_F ? cf_eq : tc == T_I16 ? c16_eq : tc == T_I32 ? c32_eq : tc == T_I64 ? c64_eq
             : tc == T_BOOL ? cb_eq : NULL;
    case LG_OP_NOT_EQUAL:
        *supported = "FLOAT32, FLOAT16, INT16, INT32, INT64, BOOL";
        return tc == T_F ? cf_ne : tc == T_I16 ? c16_ne : tc == T_I32 ? c32_ne : tc == T_I64 ? c64_ne
             : tc == T_BOOL ? cb_ne : NULL;
    case LG_OP_LOGICAL_AND:
        *supported = "BOOL";
        return tc == T_BOOL ? b_and : NULL;
    case LG_OP_LOGICAL_OR:
        *supported = "BOOL";
        return tc == T_BOOL ? b_or : NULL;
    default:
        *supported = "none";
        return NULL;
    }
#undef CMP6
}

/* The fused activation of ADD/SUB/MUL/DIV (0 = NONE for the other ops). */
static lg_status fused_act(const lgk_node *n, int *act, lg_error *err) {
    const void *o = NULL;
    *act = LG_ACTIVATION_FUNCTION_TYPE_NONE;
    switch (n->code) {
    case LG_OP_ADD:
        LG_TRY(lgk_ew_opts(n, LG_OPTS_ADD_OPTIONS, &o, err));
        if (o) *act = ((const lg_add_options *)o)->fused_activation_function;
        break;
    case LG_OP_SUB:
        LG_TRY(lgk_ew_opts(n, LG_OPTS_SUB_OPTIONS, &o, err));
        if (o) *act = ((const lg_sub_options *)o)->fused_activation_function;
        break;
    case LG_OP_MUL:
        LG_TRY(lgk_ew_opts(n, LG_OPTS_MUL_OPTIONS, &o, err));
        if (o) *act = ((const lg_mul_options *)o)->fused_activation_function;
        break;
    case LG_OP_DIV:
        LG_TRY(lgk_ew_opts(n, LG_OPTS_DIV_OPTIONS, &o, err));
        if (o) *act = ((const lg_div_options *)o)->fused_activation_function;
        break;
    default: break;
    }
    return LG_OK;
}

static int is_bool_result(int32_t code) {
    switch (code) {
    case LG_OP_EQUAL: case LG_OP_NOT_EQUAL: case LG_OP_LESS: case LG_OP_LESS_EQUAL:
    case LG_OP_GREATER: case LG_OP_GREATER_EQUAL: case LG_OP_LOGICAL_AND: case LG_OP_LOGICAL_OR:
        return 1;
    default: return 0;
    }
}

lg_status lgk_ew_binary_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgk_ew_arity(n, 2, 2, err));
    const lgk_tensor *a = n->in[0], *b = n->in[1];
    int ta = type_class(a), tb = type_class(b);
    if (ta != tb || a->type != b->type)
        return lgk_fail(n, LG_ERR_FORMAT, err, "input types differ: %s (tensor %d) and %s (tensor %d)",
                        lg_dtype_name(a->ir->type), a->index, lg_dtype_name(b->ir->type), b->index);
    int act;
    LG_TRY(fused_act(n, &act, err));
    ew_prm prm;
    int on;
    LG_TRY(lgk_ew_act(n, act, &prm.lo, &prm.hi, &on, err));
    int check;
    const char *supported;
    ew_bin_fn fn = pick(n->code, ta, on, &check, &supported);
    if (!fn) return lgk_ew_bad_type(n, a, supported, err);
    /* CalculateActivationRange<int32/int64>: RELU [0, max], RELU6 [0, 6], RELU_N1_TO_1 [-1, 1] */
    int64_t imax = ta == T_I64 ? INT64_MAX : INT32_MAX, imin = ta == T_I64 ? INT64_MIN : INT32_MIN;
    prm.ilo = on ? (int64_t)prm.lo : imin;
    prm.ihi = on && !isinf(prm.hi) ? (int64_t)prm.hi : imax;

    int32_t shape[LG_MAX_RANK];
    uint32_t rank;
    const lgk_tensor *ins[2] = {a, b};
    LG_TRY(lgk_ew_broadcast(n, ins, 2, shape, &rank, err));
    if (rank > LG_MAX_RANK) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "rank %u > %d", rank, LG_MAX_RANK);
    if (n->code == LG_OP_PRELU) {
        /* TFLite: alpha broadcasts to the input, the output has the input's shape */
        int same = rank == a->rank;
        for (uint32_t d = 0; same && d < rank; d++) same = shape[d] == a->shape[d];
        if (!same)
            return lgk_fail(n, LG_ERR_FORMAT, err, "alpha (tensor %d) does not broadcast to the input's shape",
                            b->index);
    }
    lg_dtype ot = is_bool_result(n->code) ? LG_BOOL : a->type;
    LG_TRY(lgk_ew_out_type(n, ot, err));
    LG_TRY(lgk_set_output(n, 0, ot, shape, rank, err));
    ew_bin_state *s = lgk_alloc(n, sizeof *s);
    if (!s) return lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
    lgk_ew_plan_init(&s->plan, ins, 2, shape, rank);
    s->fn = fn;
    s->prm = prm;
    s->check = check;
    n->state = s;
    return LG_OK;
}

typedef struct bin_job {
    const ew_bin_state *s;
    const void *a, *b;
    void *o;
} bin_job;

static void bin_range(void *ud, int64_t begin, int64_t end) {
    const bin_job *j = ud;
    j->s->fn(&j->s->plan, j->a, j->b, j->o, &j->s->prm, begin, end);
}

lg_status lgk_ew_binary_eval(lgk_node *n, lg_error *err) {
    const ew_bin_state *s = n->state;
    if (s->plan.kind == LGK_EW_EMPTY) return LG_OK;
    LG_TRY(lgk_ew_have_data(n, err));
    const lgk_tensor *b = n->in[1];
    const int64_t nb = b->numel;
    int bad = 0;
    switch (s->check) {
    case CHK_ZERO_F32: { const float *x = b->data; for (int64_t i = 0; i < nb; i++) bad |= x[i] == 0.0f; break; }
    case CHK_ZERO_I32: { const int32_t *x = b->data; for (int64_t i = 0; i < nb; i++) bad |= x[i] == 0; break; }
    case CHK_ZERO_I64: { const int64_t *x = b->data; for (int64_t i = 0; i < nb; i++) bad |= x[i] == 0; break; }
    case CHK_NEG_I32: {
        const int32_t *x = b->data;
        for (int64_t i = 0; i < nb; i++) bad |= x[i] < 0;
        if (bad)
            return lgk_fail(n, LG_ERR_INVALID_ARG, err,
                            "a negative exponent in tensor %d (integer POW does not take them)", b->index);
        break;
    }
    default: break;
    }
    if (bad) return lgk_fail(n, LG_ERR_INVALID_ARG, err, "division by 0 (a zero in tensor %d)", b->index);
    bin_job j = {s, n->in[0]->data, b->data, n->out[0]->data};
    const lgk_ew_plan *p = &s->plan;
    if (p->kind == LGK_EW_GENERAL) {
        const int64_t len = p->dim[p->rank - 1], rows = p->numel / len;
        lgk_parallel_for(n->ctx, rows, LGK_EW_GRAIN / len + 1, bin_range, &j);
    } else {
        lgk_parallel_for(n->ctx, p->numel, LGK_EW_GRAIN, bin_range, &j);
    }
    return LG_OK;
}
