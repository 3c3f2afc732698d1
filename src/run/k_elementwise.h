/* The elementwise kernel family (internal).
 *
 * Files: k_elementwise.c (the table, the broadcast plan, shared checks, ADD_N),
 * k_elementwise_binary.c (arithmetic with numpy broadcasting, comparisons, logical ops, PRELU),
 * k_elementwise_unary.c (math functions and activations), k_elementwise_convert.c (SELECT,
 * SELECT_V2, CAST, ZEROS_LIKE, DEQUANTIZE, QUANTIZE).
 *
 * Arithmetic is fp32 and rounded once at the output by the interpreter (these ops have no
 * reduction), except ADD_N, whose running sum goes through lgk_add (a half accumulator in
 * LG_PREC_F16). Integer tensors are computed natively with two's-complement wrap-around.
 *
 * Broadcasting: prepare() builds an lgk_ew_plan. The output shape's dimensions of size 1
 * are dropped and neighbouring dimensions that every input walks the same way (all
 * contiguous, or broadcast) are merged, so most real cases become one of three tight loops:
 * same shape, a scalar operand, or rows (the innermost merged dimension) with a per-row
 * pointer step. Loops are written in blocks of 8 (EW_LOOP) so that GCC's -O2 cost model
 * vectorizes them. Binary and unary ops on large tensors are split across the worker threads
 * (lgk_parallel_for) by elements or rows; every element is computed the same way whatever the
 * split, so results do not depend on the thread count.
 */
#ifndef LGI_RUN_K_ELEMENTWISE_H
#define LGI_RUN_K_ELEMENTWISE_H

#include "run/kernel.h"

#define LGK_EW_MAX_IN 3

enum {
    LGK_EW_EMPTY = 0,     /* the output has no elements: nothing to do */
    LGK_EW_SAME = 1,      /* every input has the output's shape (also: 1 element) */
    LGK_EW_A_SCALAR = 2,  /* two inputs: the first is one element, the second the output's shape */
    LGK_EW_B_SCALAR = 3,  /* two inputs: the second is one element */
    LGK_EW_GENERAL = 4,   /* rows of dim[rank-1] elements */
};

typedef struct lgk_ew_plan {
    int kind;
    int n_in;
    uint32_t rank;                             /* merged rank (>= 1 for LGK_EW_GENERAL) */
    int64_t numel;                             /* output elements */
    int64_t dim[LG_MAX_RANK];                  /* merged output dimensions, outermost first */
    int64_t st[LGK_EW_MAX_IN][LG_MAX_RANK];    /* element strides of each input (0 = broadcast) */
} lgk_ew_plan;

/* Output shape of broadcasting n_in tensors (numpy rules); fails with LG_ERR_FORMAT naming the
   tensors when they do not broadcast. */
LG_INTERNAL lg_status lgk_ew_broadcast(const lgk_node *n, const lgk_tensor *const *in, int n_in,
                                       int32_t *shape, uint32_t *rank, lg_error *err);
/* Build the plan for inputs in[0..n_in) broadcast to shape/rank. */
LG_INTERNAL void lgk_ew_plan_init(lgk_ew_plan *p, const lgk_tensor *const *in, int n_in,
                                  const int32_t *shape, uint32_t rank);
/* Advance the multi-index idx over dims [0, rank-1) (the row loop) and the n_in offsets. */
static inline void lgk_ew_next_row(const lgk_ew_plan *p, int64_t *idx, int64_t *off) {
    for (int d = (int)p->rank - 2; d >= 0; d--) {
        idx[d]++;
        for (int k = 0; k < p->n_in; k++) off[k] += p->st[k][d];
        if (idx[d] < p->dim[d]) return;
        for (int k = 0; k < p->n_in; k++) off[k] -= p->st[k][d] * p->dim[d];
        idx[d] = 0;
    }
}

/* Set idx / off for the start of row `row` (rows are the output's dims [0, rank-1)). */
static inline void lgk_ew_row_start(const lgk_ew_plan *p, int64_t row, int64_t *idx, int64_t *off) {
    for (int k = 0; k < p->n_in; k++) off[k] = 0;
    for (int d = (int)p->rank - 2; d >= 0; d--) {
        idx[d] = row % p->dim[d];
        row /= p->dim[d];
        for (int k = 0; k < p->n_in; k++) off[k] += idx[d] * p->st[k][d];
    }
}

/* Elements per task when an op is split across worker threads (lgk_parallel_for): large
   enough that the hand-off costs little next to the work. */
#define LGK_EW_GRAIN 16384

/* ---- shared prepare checks (k_elementwise.c) */

/* The op's options if it carries options of that kind, else NULL (zeroed defaults apply);
   options of another kind fail with LG_ERR_FORMAT. */
LG_INTERNAL lg_status lgk_ew_opts(const lgk_node *n, lg_opts_kind kind, const void **opts, lg_error *err);
/* Exactly n_in inputs (all present, or fewer if min_in < n_in) and one output, which must not
   also be an input. */
LG_INTERNAL lg_status lgk_ew_arity(const lgk_node *n, uint32_t min_in, uint32_t max_in, lg_error *err);
/* Storage type of a float tensor we can compute (model type FLOAT32 or FLOAT16); 0 if t is
   not such a tensor. */
static inline int lgk_ew_is_float(const lgk_tensor *t) {
    return t->ir && (t->ir->type == LG_FLOAT32 || t->ir->type == LG_FLOAT16) && t->type == LG_FLOAT32;
}
/* Fail unless the model declares output 0 with storage type want. */
LG_INTERNAL lg_status lgk_ew_out_type(const lgk_node *n, lg_dtype want, lg_error *err);
/* Fail (LG_ERR_UNSUPPORTED) naming the input type. */
LG_INTERNAL lg_status lgk_ew_bad_type(const lgk_node *n, const lgk_tensor *t, const char *supported,
                                      lg_error *err);
/* Fused activation as a clamp: NONE, RELU, RELU_N1_TO_1, RELU6. TANH and SIGN_BIT are
   refused (TFLite's CPU kernels ignore them, GPU delegates apply them). NONE clamps nothing:
   an overflow stays inf, as in XNNPACK and on the GPU (TFLite's builtin kernels would clamp
   it to +-FLT_MAX). */
LG_INTERNAL lg_status lgk_ew_act(const lgk_node *n, int act, float *lo, float *hi, int *on, lg_error *err);
/* Eval-time guard: every input with elements has data (a tensor no op produces has none). */
LG_INTERNAL lg_status lgk_ew_have_data(const lgk_node *n, lg_error *err);

/* ---- the families' entry points */
LG_INTERNAL lg_status lgk_ew_binary_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_ew_binary_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_ew_unary_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_ew_unary_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_ew_select_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_ew_select_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_ew_cast_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_ew_cast_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_ew_zeros_like_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_ew_zeros_like_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_ew_dequantize_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_ew_dequantize_eval(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_ew_quantize_prepare(lgk_node *n, lg_error *err);
LG_INTERNAL lg_status lgk_ew_quantize_eval(lgk_node *n, lg_error *err);

/* ---- loop helpers */

/* for (i = 0; i < n; i++) BODY, in blocks of 8 so that GCC -O2 (whose "very cheap" cost
   model refuses loops of unknown trip count) vectorizes the fixed 8-iteration inner loop.
   BODY sees `i`. GCC only does so when the pointers are restrict-qualified *parameters* of
   the function holding the loop (restrict locals are not enough), hence the small typed
   loop functions throughout the family. */
#define EW_LOOP(n, BODY)                                                                   \
    do {                                                                                   \
        const int64_t n_ = (n);                                                            \
        int64_t b_ = 0;                                                                    \
        for (; b_ + 8 <= n_; b_ += 8)                                                      \
            for (int j_ = 0; j_ < 8; j_++) {                                               \
                const int64_t i = b_ + j_;                                                 \
                BODY;                                                                      \
            }                                                                              \
        for (int64_t i = b_; i < n_; i++) { BODY; }                                        \
    } while (0)

/* Clamp that keeps NaN (as TFLite's std::min(std::max(x, lo), hi) does). */
static inline float lgk_ew_clampf(float v, float lo, float hi) {
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

/* c ? a : b on the bits, which GCC -O2 vectorizes (a plain ?: between two computed floats it
   does not; SSE2 has no blend). Same result as the ternary for every input. */
static inline float lgk_ew_self(int c, float a, float b) {
    uint32_t ua, ub;
    memcpy(&ua, &a, 4);
    memcpy(&ub, &b, 4);
    const uint32_t m = 0u - (uint32_t)c;
    const uint32_t r = (ua & m) | (ub & ~m);
    float f;
    memcpy(&f, &r, 4);
    return f;
}

/* Float to int conversions with defined results where C leaves them undefined: truncate
   toward zero, NaN -> 0, saturate (what an ARM64 phone's fcvtzs does). */
static inline int64_t lgk_ew_f2i64(double x) {
    if (x != x) return 0;
    if (x >= 9223372036854775808.0) return INT64_MAX;
    if (x < -9223372036854775808.0) return INT64_MIN;
    return (int64_t)x;
}
static inline int32_t lgk_ew_f2i32(double x) {
    if (x != x) return 0;
    if (x >= 2147483648.0) return INT32_MAX;
    if (x <= -2147483649.0) return INT32_MIN;
    return (int32_t)x;
}

#endif
