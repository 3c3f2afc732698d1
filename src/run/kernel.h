/* The interpreter's kernel interface (internal).
 *
 * A kernel is {builtin code, prepare, eval}. prepare() runs once at interpreter creation:
 * it checks input types and shapes, sets every output's shape and storage type, and may
 * ask for scratch memory and keep derived state. eval() computes. Neither allocates with
 * malloc; state comes from lgk_alloc (the interpreter's arena), scratch from scratch_bytes.
 *
 * Storage: every float tensor (FLOAT32, FLOAT16 in the file) is held as float32. In the f16
 * modes the interpreter rounds inputs, constants and each op's float outputs to half after
 * eval (in LG_PREC_F32_F16 not the tensors the delegate keeps in registers: fusion.c); inside
 * an op, LG_PREC_F16 follows the GPU delegate's F16 kernel for that op: where it accumulates in
 * ACCUM_FLT4/FLT (half: convolutions, fully connected, ADD_N, resize) every product and every
 * partial sum is rounded (lgk_mul / lgk_add / lgk_dot), so the sum overflows where a half
 * accumulator would; SUM/MEAN are k_reduce_half.c; where the delegate's kernel declares float
 * accumulators (average pool, softmax, cumsum, REDUCE_PROD) the kernel computes in fp32 and
 * the interpreter rounds the output once. Kernels that compute in fp32 regardless must say so
 * and cite the delegate's source.
 */
#ifndef LGI_RUN_KERNEL_H
#define LGI_RUN_KERNEL_H

#include <math.h>
#include <string.h>

#include "internal.h"
#include "lg/run.h"
#include "util/half.h"

typedef struct lgk_tensor {
    int32_t index;            /* tensor index in the subgraph */
    const lg_tensor *ir;      /* the model's tensor */
    lg_dtype type;            /* storage type (FLOAT32 for all float tensors) */
    int32_t shape[LG_MAX_RANK];
    uint32_t rank;
    int64_t numel;
    void *data;               /* current storage (const data may point into the model) */
    uint64_t nbytes;
    bool is_const;
    bool in_registers;        /* LG_PREC_F32_F16: the delegate merges its consumer into its
                                 producer's shader, so it is never stored as a half (fusion.c) */
} lgk_tensor;

typedef struct lgk_pool lgk_pool;
typedef struct lgk_ctx {
    lg_precision prec;
    lg_int_arith int_arith;   /* the quantized kernels' arithmetic (k_quant.h) */
    int threads;
    lgk_pool *pool;           /* NULL when single-threaded */
} lgk_ctx;
LG_INTERNAL lgk_pool *lgk_pool_new(int threads); /* NULL for threads <= 1 or on failure */
LG_INTERNAL void lgk_pool_free(lgk_pool *p);

typedef struct lgk_node {
    const lg_model *m;
    const lg_op *op;
    int32_t index;            /* op index */
    int32_t code;             /* builtin code (LG_OP_CUSTOM for custom ops) */
    const char *name;         /* builtin name or custom code */
    const void *opts;         /* op->opts (may be NULL) */
    lgk_tensor **in;          /* in[i] == NULL for an optional input that is absent */
    uint32_t n_in;
    lgk_tensor **out;
    uint32_t n_out;
    void *state;              /* set by prepare (allocate with lgk_alloc) */
    uint64_t scratch_bytes;   /* asked for by prepare */
    void *scratch;            /* given to eval */
    const lgk_ctx *ctx;
    lgi_arena *arena;
    const struct lgk_kernel *kernel; /* set by the interpreter */
    bool folded;              /* all inputs constant: computed once at create time */
    bool out_half;            /* LG_PREC_F16: eval stores halves in every output (lgk_claim_half) */
} lgk_node;

typedef lg_status (*lgk_fn)(lgk_node *n, lg_error *err);

typedef struct lgk_kernel {
    int32_t code;             /* builtin code */
    const char *custom;       /* custom op name when code == LG_OP_CUSTOM */
    lgk_fn prepare;
    lgk_fn eval;
} lgk_kernel;

/* Look up the kernel for an op; NULL if we have none. */
LG_INTERNAL const lgk_kernel *lgk_find(int32_t code, const char *custom);

/* The kernel families register through these tables (terminated by an entry whose eval is NULL). */
extern const lgk_kernel lgk_elementwise_kernels[];
extern const lgk_kernel lgk_conv_kernels[];
extern const lgk_kernel lgk_shape_kernels[];
extern const lgk_kernel lgk_reduce_kernels[];

/* ---- helpers for kernels (kernel.c) */

/* Error naming the op: "op 12 (CONV_2D): <what>". Never pass err->msg itself as an argument
   (the buffers overlap): copy it first. */
LG_INTERNAL lg_status lgk_fail(const lgk_node *n, lg_status st, lg_error *err, const char *fmt, ...)
    LGI_PRINTF(4, 5);
LG_INTERNAL void *lgk_alloc(lgk_node *n, size_t bytes);

/* Set output o's shape (and numel, nbytes) with storage type t. */
LG_INTERNAL lg_status lgk_set_output(lgk_node *n, uint32_t o, lg_dtype t, const int32_t *shape,
                                     uint32_t rank, lg_error *err);
/* FULLY_CONNECTED's output 0 (type t): keep_num_dims keeps x's shape with the last dimension
   (which must be `in`) replaced by `units`; otherwise [rows, units] (fully_connected.cc
   Prepare). The one place of this rule for the float, hybrid and integer kernels. */
LG_INTERNAL lg_status lgk_fc_set_output(lgk_node *n, const lgk_tensor *x, bool keep_num_dims, int64_t in,
                                        int64_t rows, int64_t units, lg_dtype t, lg_error *err);
/* Storage type for a model dtype: FLOAT32 for float types, else itself. */
static inline lg_dtype lgk_storage_type(int t) {
    return (t == LG_FLOAT32 || t == LG_FLOAT16 || t == LG_BFLOAT16 || t == LG_FLOAT64) ? LG_FLOAT32
                                                                                      : (lg_dtype)t;
}
/* Bytes per element of a storage type (BOOL 1). 0 for unsupported types. */
LG_INTERNAL uint32_t lgk_elem_size(lg_dtype t);
/* Read element i of an integer tensor (INT32/INT64/INT16/INT8/UINT8/BOOL) as int64. */
LG_INTERNAL int64_t lgk_get_int(const lgk_tensor *t, int64_t i);
/* A constant integer input as a list; returns LG_ERR_UNSUPPORTED via err if not constant. */
LG_INTERNAL lg_status lgk_const_ints(const lgk_node *n, uint32_t input, int64_t *out, uint32_t max,
                                     uint32_t *count, lg_error *err);

/* Strides (in elements) of t broadcast to the output shape (0 on broadcast dims). The shape
   rule itself is lg_broadcast (include/lg/ops.h). */
LG_INTERNAL void lgk_broadcast_strides(const lgk_tensor *t, const int32_t *out_shape, uint32_t out_rank,
                                       int64_t *strides);

/* Fused activation (ActivationFunctionType) applied to a value. */
static inline float lgk_act(int act, float v) {
    switch (act) {
    case 1: return v < 0 ? 0 : v;                                  /* RELU */
    case 2: return v < -1 ? -1 : v > 1 ? 1 : v;                     /* RELU_N1_TO_1 */
    case 3: return v < 0 ? 0 : v > 6 ? 6 : v;                       /* RELU6 */
    case 4: return tanhf(v);                                        /* TANH */
    case 5: return signbit(v) ? 1.0f : 0.0f;                        /* SIGN_BIT */
    default: return v;
    }
}

/* A kernel's prepare says its eval already stores every float output as halves in LG_PREC_F16
   (its last step is a rounding, or a clamp to half bounds), so the interpreter's rounding of the
   outputs after each op is skipped. The sanitizer build checks the claim after every op. */
static inline void lgk_claim_half(lgk_node *n) { n->out_half = n->ctx->prec == LG_PREC_F16; }

/* Arithmetic in the current precision. In LG_PREC_F16 each result is rounded to half. */
static inline float lgk_h(const lgk_ctx *c, float v) {
    return c->prec == LG_PREC_F16 ? lg_round_half(v) : v;
}
static inline float lgk_add(const lgk_ctx *c, float a, float b) { return lgk_h(c, a + b); }
static inline float lgk_mul(const lgk_ctx *c, float a, float b) { return lgk_h(c, a * b); }
/* acc + a*b. In LG_PREC_F16 one rounding to half: h(acc + a*b), the product and the sum
   formed in fp32 (no FMA instruction). For halves a and b the product is exact in fp32 (11 x 11
   significant bits), so this is the single rounding of a GPU's fp16 fused multiply-add, up to
   the fp32 rounding of the sum (it can matter only when that rounding lands on a tie between
   two halves, which is rare). */
static inline float lgk_mac(const lgk_ctx *c, float acc, float a, float b) {
    if (c->prec == LG_PREC_F16) return lg_round_half(acc + a * b);
    return acc + a * b;
}
/* Dot product of n elements with strides, accumulated in the current precision. */
LG_INTERNAL float lgk_dot(const lgk_ctx *c, const float *a, int64_t sa, const float *b, int64_t sb,
                          int64_t n);

/* Run fn(ud, begin, end) over [0, n) split across ctx->threads workers (deterministic:
   each index is computed by exactly one worker; results must not depend on the split).
   Runs inline when single-threaded or when n < 2 * grain. fn must not call it again. */
typedef void (*lgk_range_fn)(void *ud, int64_t begin, int64_t end);
LG_INTERNAL void lgk_parallel_for(const lgk_ctx *c, int64_t n, int64_t grain, lgk_range_fn fn, void *ud);

#endif
