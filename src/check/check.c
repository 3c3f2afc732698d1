/* litegpu check: the GPU delegates' rules applied to a model, op by op, then the
 * partitioning the delegate would do. Rules and their documentation live in rules.def.
 *
 * The model of the delegate:
 *  - DEQUANTIZE of a FLOAT16 constant is folded (FP16GraphPartitionHelper remaps consumers to
 *    the fp16 constant), so its output counts as constant and the op itself is "folded".
 *  - An op is supported when no blocker finding names it. Ops are then split into
 *    alternating GPU/CPU subsets in dependency order, as TFLite's
 *    PartitionGraphIntoIndependentNodeSubsets does; the classic delegate takes the largest
 *    GPU subset (max_delegated_partitions = 1), CompiledModel GPU needs all ops on the GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/op_version.h"
#include "internal.h"
#include "lg/check.h"
#include "util/half.h"

/* ------------------------------------------------------------------ rule table */

enum {
#define RULE(sym, id, sev, tg, kind, src, title, fix, doc) R_##sym,
#include "check/rules.def"
#undef RULE
    R_COUNT
};

static const lg_rule_info rule_table[R_COUNT] = {
#define RULE(sym, id, sev, tg, kind, src, title, fix, doc) {id, sev, tg, kind, src, title, fix, doc},
#include "check/rules.def"
#undef RULE
};

const lg_rule_info *lg_rules(uint32_t *n) {
    if (n) *n = R_COUNT;
    return rule_table;
}

const lg_rule_info *lg_rule_find(const char *id) {
    for (int i = 0; i < R_COUNT; i++)
        if (strcmp(rule_table[i].id, id) == 0) return &rule_table[i];
    return NULL;
}

const char *lg_target_name(lg_target t) {
    return t == LG_TARGET_CLASSIC ? "classic" : t == LG_TARGET_MLDRIFT ? "mldrift" : "?";
}

int lg_target_from_name(const char *name) {
    if (strcmp(name, "mldrift") == 0) return LG_TARGET_MLDRIFT;
    if (strcmp(name, "classic") == 0) return LG_TARGET_CLASSIC;
    return -1;
}

const char *lg_severity_name(lg_severity s) { return s == LG_SEV_BLOCKER ? "blocker" : "warning"; }

/* ------------------------------------------------------------------ op sets */

/* gpu_compatibility.cc case labels (97, CUSTOM included). */
static const int32_t compat_ops[] = {
    LG_OP_ABS, LG_OP_ADD, LG_OP_ADD_N, LG_OP_ATAN2, LG_OP_AVERAGE_POOL_2D, LG_OP_BATCH_MATMUL,
    LG_OP_BITCAST, LG_OP_CAST, LG_OP_CEIL, LG_OP_CONCATENATION, LG_OP_CONV_2D, LG_OP_COS,
    LG_OP_CUMSUM, LG_OP_CUSTOM, LG_OP_DENSIFY, LG_OP_DEPTHWISE_CONV_2D, LG_OP_DEPTH_TO_SPACE,
    LG_OP_DEQUANTIZE, LG_OP_DIV, LG_OP_DYNAMIC_UPDATE_SLICE, LG_OP_ELU, LG_OP_EMBEDDING_LOOKUP,
    LG_OP_EQUAL, LG_OP_EXP, LG_OP_FLOOR, LG_OP_FLOOR_DIV, LG_OP_FLOOR_MOD, LG_OP_FULLY_CONNECTED,
    LG_OP_GATHER, LG_OP_GELU, LG_OP_GREATER, LG_OP_GREATER_EQUAL, LG_OP_HARD_SWISH,
    LG_OP_LEAKY_RELU, LG_OP_LESS, LG_OP_LESS_EQUAL, LG_OP_LOG, LG_OP_LOGICAL_AND,
    LG_OP_LOGICAL_NOT, LG_OP_LOGICAL_OR, LG_OP_LOGISTIC, LG_OP_LSTM, LG_OP_MAXIMUM,
    LG_OP_MAX_POOL_2D, LG_OP_MEAN, LG_OP_MINIMUM, LG_OP_MIRROR_PAD, LG_OP_MUL, LG_OP_NEG,
    LG_OP_NOT_EQUAL, LG_OP_ONE_HOT, LG_OP_PACK, LG_OP_PAD, LG_OP_PADV2, LG_OP_POW, LG_OP_PRELU,
    LG_OP_QUANTIZE, LG_OP_REDUCE_ALL, LG_OP_REDUCE_ANY, LG_OP_REDUCE_MAX, LG_OP_REDUCE_MIN,
    LG_OP_REDUCE_PROD, LG_OP_RELU, LG_OP_RELU6, LG_OP_RELU_N1_TO_1, LG_OP_RESHAPE,
    LG_OP_RESIZE_BILINEAR, LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_OP_REVERSE_V2, LG_OP_RIGHT_SHIFT,
    LG_OP_ROUND, LG_OP_RSQRT, LG_OP_SELECT, LG_OP_SELECT_V2, LG_OP_SIGN, LG_OP_SIN, LG_OP_SLICE,
    LG_OP_SOFTMAX, LG_OP_SPACE_TO_DEPTH, LG_OP_SPLIT, LG_OP_SPLIT_V, LG_OP_SQRT, LG_OP_SQUARE,
    LG_OP_SQUARED_DIFFERENCE, LG_OP_STABLEHLO_BROADCAST_IN_DIM, LG_OP_STABLEHLO_CBRT,
    LG_OP_STABLEHLO_CLAMP, LG_OP_STABLEHLO_REMAINDER, LG_OP_STABLEHLO_SHIFT_LEFT,
    LG_OP_STRIDED_SLICE, LG_OP_SUB, LG_OP_SUM, LG_OP_TANH, LG_OP_TILE, LG_OP_TOPK_V2,
    LG_OP_TRANSPOSE, LG_OP_TRANSPOSE_CONV,
};
/* The classic parser: compat minus these, plus RELU_0_TO_1 and UNPACK (81 codes). */
static const int32_t classic_minus[] = {
    LG_OP_ATAN2, LG_OP_BITCAST, LG_OP_CEIL, LG_OP_DYNAMIC_UPDATE_SLICE, LG_OP_EMBEDDING_LOOKUP,
    LG_OP_LOGICAL_NOT, LG_OP_LOGICAL_OR, LG_OP_REDUCE_ALL, LG_OP_REDUCE_ANY, LG_OP_REVERSE_V2,
    LG_OP_RIGHT_SHIFT, LG_OP_ROUND, LG_OP_STABLEHLO_BROADCAST_IN_DIM, LG_OP_STABLEHLO_CBRT,
    LG_OP_STABLEHLO_CLAMP, LG_OP_STABLEHLO_REMAINDER, LG_OP_STABLEHLO_SHIFT_LEFT, LG_OP_TOPK_V2,
};
/* ML Drift: compat minus DENSIFY, plus these (100 codes + STABLEHLO_COMPOSITE). */
static const int32_t mldrift_plus[] = {
    LG_OP_ARG_MAX, LG_OP_BITWISE_XOR, LG_OP_RELU_0_TO_1, LG_OP_UNPACK, LG_OP_STABLEHLO_COMPOSITE,
};

typedef struct opsets {
    uint8_t compat[LG_OP_MAX + 1];
    uint8_t parser[LG_TARGET_COUNT][LG_OP_MAX + 1];
} opsets;

static void opsets_init(opsets *s) {
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < sizeof compat_ops / sizeof compat_ops[0]; i++) {
        s->compat[compat_ops[i]] = 1;
        s->parser[LG_TARGET_CLASSIC][compat_ops[i]] = 1;
        s->parser[LG_TARGET_MLDRIFT][compat_ops[i]] = 1;
    }
    for (size_t i = 0; i < sizeof classic_minus / sizeof classic_minus[0]; i++)
        s->parser[LG_TARGET_CLASSIC][classic_minus[i]] = 0;
    s->parser[LG_TARGET_CLASSIC][LG_OP_RELU_0_TO_1] = 1;
    s->parser[LG_TARGET_CLASSIC][LG_OP_UNPACK] = 1;
    s->parser[LG_TARGET_MLDRIFT][LG_OP_DENSIFY] = 0;
    for (size_t i = 0; i < sizeof mldrift_plus / sizeof mldrift_plus[0]; i++)
        s->parser[LG_TARGET_MLDRIFT][mldrift_plus[i]] = 1;
}

/* Max op versions (CheckMaxSupportedOpVersion); 0 = no version check. */
static int max_version(lg_target t, int32_t op) {
    int c = t == LG_TARGET_CLASSIC;
    switch (op) {
    case LG_OP_ADD: case LG_OP_ADD_N: return c ? 2 : 6;
    case LG_OP_MUL: return c ? 3 : 8;
    case LG_OP_SUB: case LG_OP_DIV: case LG_OP_POW: case LG_OP_SQUARED_DIFFERENCE:
    case LG_OP_ATAN2: case LG_OP_FLOOR_MOD: case LG_OP_RIGHT_SHIFT:
        return 2;
    case LG_OP_FLOOR_DIV: return c ? 2 : 3;
    case LG_OP_MAXIMUM: case LG_OP_MINIMUM: return c ? 2 : 4;
    case LG_OP_EQUAL: case LG_OP_NOT_EQUAL: case LG_OP_GREATER: case LG_OP_GREATER_EQUAL:
    case LG_OP_LESS: case LG_OP_LESS_EQUAL: case LG_OP_LOGICAL_AND: case LG_OP_LOGICAL_OR:
        return 2;
    case LG_OP_ABS: return c ? 2 : 5;
    case LG_OP_GELU: return c ? 2 : 3;
    case LG_OP_COS: case LG_OP_ELU: case LG_OP_EXP: case LG_OP_FLOOR: case LG_OP_LOG:
    case LG_OP_LOGISTIC: case LG_OP_NEG: case LG_OP_RSQRT: case LG_OP_SIGN: case LG_OP_SIN:
    case LG_OP_SQRT: case LG_OP_SQUARE: case LG_OP_TANH: case LG_OP_CEIL: case LG_OP_ROUND:
    case LG_OP_LOGICAL_NOT:
        return 2;
    case LG_OP_AVERAGE_POOL_2D: case LG_OP_MAX_POOL_2D: return 2;
    case LG_OP_CONCATENATION: return c ? 2 : 6;
    case LG_OP_CONV_2D: case LG_OP_DEPTHWISE_CONV_2D: return 6;
    case LG_OP_CUMSUM: return 1;
    case LG_OP_DEPTH_TO_SPACE: case LG_OP_SPACE_TO_DEPTH: return c ? 0 : 2;
    case LG_OP_DEQUANTIZE: return 3;
    case LG_OP_QUANTIZE: return 2;
    case LG_OP_FULLY_CONNECTED: return c ? 9 : 14;
    case LG_OP_GATHER: return c ? 1 : 0;
    case LG_OP_LSTM: return 4;
    case LG_OP_PAD: case LG_OP_PADV2: case LG_OP_MIRROR_PAD: return c ? 2 : 5;
    case LG_OP_PRELU: return 1;
    case LG_OP_RELU: case LG_OP_RELU6: case LG_OP_LEAKY_RELU: case LG_OP_RELU_N1_TO_1:
    case LG_OP_RELU_0_TO_1:
        return 2;
    case LG_OP_RESHAPE: return 1;
    case LG_OP_RESIZE_BILINEAR: case LG_OP_RESIZE_NEAREST_NEIGHBOR: return 3;
    case LG_OP_SELECT: case LG_OP_SELECT_V2: return 1;
    case LG_OP_SLICE: return c ? 2 : 8;
    case LG_OP_SOFTMAX: return c ? 2 : 4;
    case LG_OP_STRIDED_SLICE: return c ? 4 : 2;
    case LG_OP_TOPK_V2: case LG_OP_ONE_HOT: return 1;
    case LG_OP_TRANSPOSE: return c ? 4 : 9;
    case LG_OP_TRANSPOSE_CONV: return 3;
    default: return 0;
    }
}

/* What to do instead of an op the GPU has no parser for (the seed's catalog). */
static const char *fix_for_unsupported(int32_t op) {
    switch (op) {
    case LG_OP_GATHER_ND:
        return "remove the GATHER_ND at the source: strided subsample x[..., ::2, ::2] -> "
               "AVERAGE_POOL_2D(k=1, s=2); grid_sample -> tent-matmul; reflect/replicate pad -> "
               "zero PAD; bake position tables as constants";
    case LG_OP_BROADCAST_TO:
        return "CONCATENATION of the operand (or TILE), or fold the broadcast into the consumer's "
               "own broadcasting";
    case LG_OP_SQUEEZE: case LG_OP_EXPAND_DIMS:
        return "RESHAPE with a constant shape (exact)";
    case LG_OP_LOG_SOFTMAX: return "SOFTMAX then LOG, or move the log-softmax to the host";
    case LG_OP_SHAPE: case LG_OP_FILL: case LG_OP_RANGE: case LG_OP_ZEROS_LIKE:
        return "bake constant: the value depends only on static shapes";
    case LG_OP_WHERE: case LG_OP_SCATTER_ND: case LG_OP_NON_MAX_SUPPRESSION_V4:
    case LG_OP_NON_MAX_SUPPRESSION_V5: case LG_OP_ARG_MIN: case LG_OP_UNIQUE:
        return "split the graph here and run this part on the CPU (host-side post-processing)";
    case LG_OP_TOPK_V2: case LG_OP_ARG_MAX:
        return "end the GPU graph before the top-k/arg-max and do it on the host";
    case LG_OP_DENSIFY:
        return "store the weights dense (densify at export) so no DENSIFY op remains";
    case LG_OP_L2_NORMALIZATION:
        return "x * RSQRT(SUM(x*x)) with a scale-before-square (SafeRMS) form";
    case LG_OP_SPACE_TO_BATCH_ND: case LG_OP_BATCH_TO_SPACE_ND:
        return "use a dilated CONV_2D instead of the space-to-batch wrapping";
    case LG_OP_CONV_3D: case LG_OP_CONV_3D_TRANSPOSE:
        return "fold the depth axis into channels and use CONV_2D";
    case LG_OP_POW: return "exp(y * log(x)) with the base clamped to > 0";
    case LG_OP_ATAN2: case LG_OP_CEIL: case LG_OP_ROUND: case LG_OP_REVERSE_V2:
        return "re-author with ops the classic delegate takes, or target CompiledModel GPU";
    case LG_OP_UNIDIRECTIONAL_SEQUENCE_LSTM: case LG_OP_UNIDIRECTIONAL_SEQUENCE_RNN:
    case LG_OP_WHILE: case LG_OP_IF: case LG_OP_CALL_ONCE:
        return "unroll the loop at export, or split the graph and run this part on the CPU";
    default:
        return "split the graph here and run this part on the CPU, or re-author the op";
    }
}

/* ------------------------------------------------------------------ context */

typedef struct ck {
    const lg_model *m;
    const lg_subgraph *sg;
    uint32_t sg_index;
    lg_target target;
    const opsets *sets;
    uint8_t *is_const;      /* per tensor: constant (buffer data, or folded fp16 DEQUANTIZE) */
    int32_t *producer;      /* per tensor: producing op or -1 */
    uint32_t *n_consumers;  /* per tensor */
    uint8_t *folded;        /* per op */
    uint8_t *blocked;       /* per op: has a blocker */
    lg_finding *f;
    uint32_t n_f, cap_f;
    lg_status oom;
} ck;

/* The op being checked. */
typedef struct opx {
    const lg_op *op;
    int32_t idx;
    int32_t code;
    const char *name;
    int n_in;               /* non-optional inputs */
    int n_rt, n_const;      /* runtime / constant among them */
    int32_t in[16];         /* first non-optional inputs */
} opx;

static const lg_tensor *T(const ck *c, int32_t i) { return &c->sg->tensors[i]; }

static lg_finding *add(ck *c, int rule, const opx *x, const char *fix, const char *fmt, ...)
    LGI_PRINTF(5, 6);
static lg_finding *add(ck *c, int rule, const opx *x, const char *fix, const char *fmt, ...) {
    const lg_rule_info *ri = &rule_table[rule];
    if (!(ri->targets & LG_TARGET_BIT(c->target))) return NULL;
    if (c->n_f == c->cap_f) {
        uint32_t nc = c->cap_f ? 2 * c->cap_f : 32;
        lg_finding *nf = realloc(c->f, nc * sizeof *nf);
        if (!nf) { c->oom = LG_ERR_NOMEM; return NULL; }
        c->f = nf;
        c->cap_f = nc;
    }
    lg_finding *f = &c->f[c->n_f++];
    memset(f, 0, sizeof *f);
    f->rule = ri;
    f->subgraph = (int32_t)c->sg_index;
    f->op = x ? x->idx : -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->reason, sizeof f->reason, fmt, ap);
    va_end(ap);
    snprintf(f->fix, sizeof f->fix, "%s", fix ? fix : ri->fix);
    if (x && ri->severity == LG_SEV_BLOCKER) c->blocked[x->idx] = 1;
    return f;
}

static void with_tensor(lg_finding *f, int32_t t) {
    if (f && f->n_tensors < 4 && t >= 0) f->tensors[f->n_tensors++] = t;
}

/* Shape as "[1,8,8,3]". */
static const char *shp(const ck *c, int32_t t, char *buf, size_t n) {
    const lg_tensor *x = T(c, t);
    size_t k = 0;
    k += (size_t)snprintf(buf + k, n - k, "[");
    for (uint32_t i = 0; i < x->rank && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? "," : "", x->shape[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
    return buf;
}

static const char *tname(const ck *c, int32_t t) {
    const char *n = T(c, t)->name;
    return n ? n : "";
}

/* Read element i of a constant integer tensor (INT32 or INT64). */
static int const_int(const ck *c, int32_t t, uint32_t i, int64_t *v) {
    const lg_tensor *x = T(c, t);
    const lg_buffer *b = lg_tensor_buffer(c->m, x);
    if (!b) return 0;
    if (x->type == LG_INT32 && (uint64_t)(i + 1) * 4 <= b->size) {
        *v = (int32_t)lgi_rd_u32(b->data + 4 * (size_t)i);
        return 1;
    }
    if (x->type == LG_INT64 && (uint64_t)(i + 1) * 8 <= b->size) {
        *v = (int64_t)lgi_rd_u64(b->data + 8 * (size_t)i);
        return 1;
    }
    return 0;
}

static int const_float(const ck *c, int32_t t, uint32_t i, double *v) {
    const lg_tensor *x = T(c, t);
    const lg_buffer *b = lg_tensor_buffer(c->m, x);
    if (!b) {
        /* the output of a folded DEQUANTIZE: read its FLOAT16 constant */
        int32_t p = c->producer[t];
        if (p >= 0 && c->folded[p] && c->sg->ops[p].n_inputs == 1) return const_float(c, c->sg->ops[p].inputs[0], i, v);
        return 0;
    }
    if (x->type == LG_FLOAT32 && (uint64_t)(i + 1) * 4 <= b->size) {
        uint32_t u = lgi_rd_u32(b->data + 4 * (size_t)i);
        float f;
        memcpy(&f, &u, 4);
        *v = f;
        return 1;
    }
    if (x->type == LG_FLOAT16 && (uint64_t)(i + 1) * 2 <= b->size) {
        *v = lg_half_to_float(lgi_rd_u16(b->data + 2 * (size_t)i));
        return 1;
    }
    return 0;
}

static int64_t numel_of(const ck *c, int32_t t) { return lg_tensor_numel(T(c, t)); }

/* ------------------------------------------------------------------ shared checks */

static int act_ok(int a) { return a >= 0 && a <= 4 ? 1 : a == 5 ? 0 : a == 6 ? 1 : 0; }
/* ActivationFunctionType: NONE 0, RELU 1, RELU_N1_TO_1 2, RELU6 3, TANH 4, SIGN_BIT 5.
   SIGMOID is not in the schema enum; gpu_compatibility.cc lists it by the C enum value 6. */

static int fused_activation_of(const lg_op *op, int *act) {
    if (!op->opts) return 0;
    switch (op->opts_kind) {
    case LG_OPTS_CONV2D_OPTIONS: *act = ((const lg_conv2d_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_DEPTHWISE_CONV2D_OPTIONS: *act = ((const lg_depthwise_conv2d_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_POOL2D_OPTIONS: *act = ((const lg_pool2d_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_FULLY_CONNECTED_OPTIONS: *act = ((const lg_fully_connected_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_CONCATENATION_OPTIONS: *act = ((const lg_concatenation_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_ADD_OPTIONS: *act = ((const lg_add_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_MUL_OPTIONS: *act = ((const lg_mul_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_SUB_OPTIONS: *act = ((const lg_sub_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_DIV_OPTIONS: *act = ((const lg_div_options *)op->opts)->fused_activation_function; return 1;
    case LG_OPTS_TRANSPOSE_CONV_OPTIONS: *act = ((const lg_transpose_conv_options *)op->opts)->fused_activation_function; return 1;
    default: return 0;
    }
}

static const char *act_name(int a) {
    static const char *const n[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"};
    return a >= 0 && a <= 5 ? n[a] : "unknown";
}

static int is_compare(int32_t op) {
    return op == LG_OP_EQUAL || op == LG_OP_NOT_EQUAL || op == LG_OP_GREATER ||
           op == LG_OP_GREATER_EQUAL || op == LG_OP_LESS || op == LG_OP_LESS_EQUAL;
}

static int is_logical(int32_t op) {
    return op == LG_OP_LOGICAL_AND || op == LG_OP_LOGICAL_OR || op == LG_OP_LOGICAL_NOT ||
           op == LG_OP_BITWISE_XOR;
}

/* ML Drift IsIntSupportedOp. */
static int ml_int_op(int32_t op) {
    switch (op) {
    case LG_OP_ABS: case LG_OP_ADD: case LG_OP_ATAN2: case LG_OP_COS: case LG_OP_DIV:
    case LG_OP_FLOOR_DIV: case LG_OP_FLOOR_MOD: case LG_OP_MAXIMUM: case LG_OP_MINIMUM:
    case LG_OP_MUL: case LG_OP_NEG: case LG_OP_REDUCE_MAX: case LG_OP_REDUCE_MIN:
    case LG_OP_REDUCE_PROD: case LG_OP_RIGHT_SHIFT: case LG_OP_SIGN: case LG_OP_SIN:
    case LG_OP_STABLEHLO_CLAMP: case LG_OP_SUB: case LG_OP_SUM: case LG_OP_STABLEHLO_REMAINDER:
    case LG_OP_TILE:
        return 1;
    default: return 0;
    }
}

/* ML Drift SupportAllPrecisionOp. */
static int ml_all_precision_op(int32_t op) {
    switch (op) {
    case LG_OP_STABLEHLO_BROADCAST_IN_DIM: case LG_OP_BITCAST: case LG_OP_CAST:
    case LG_OP_CONCATENATION: case LG_OP_DYNAMIC_UPDATE_SLICE: case LG_OP_GATHER:
    case LG_OP_PACK: case LG_OP_PAD: case LG_OP_PADV2: case LG_OP_RESHAPE: case LG_OP_REVERSE_V2:
    case LG_OP_SELECT: case LG_OP_SELECT_V2: case LG_OP_SLICE: case LG_OP_STRIDED_SLICE:
    case LG_OP_TRANSPOSE:
        return 1;
    default: return 0;
    }
}

static int is_float(int t) { return t == LG_FLOAT32 || t == LG_FLOAT16; }
static int is_q8(int t) { return t == LG_INT8 || t == LG_UINT8; }
static int is_int(int t) { return t == LG_INT8 || t == LG_INT16 || t == LG_INT32 || t == LG_UINT8 ||
                                  t == LG_UINT16 || t == LG_UINT32; }

/* Is dtype t allowed for a runtime input (in = 1) or output (in = 0) of op on the target? */
static int dtype_ok(const ck *c, int32_t op, int t, int in, int input_pos) {
    if (t == LG_INT64) return 1; /* reported by the int64-tensor field rule */
    if (is_float(t)) return 1;
    if (c->target == LG_TARGET_CLASSIC) {
        if (is_q8(t)) return 1; /* quantized ops are enabled by default */
        if (!in && t == LG_BOOL && is_compare(op)) return 1;
        if (op == LG_OP_CAST && (t == LG_BOOL || t == LG_INT32)) return 1;
        if (op == LG_OP_ONE_HOT && in && t == LG_INT32) return 1;
        if ((op == LG_OP_SELECT || op == LG_OP_SELECT_V2) && in && t == LG_BOOL) return 1;
        if (op == LG_OP_LOGICAL_AND && t == LG_BOOL) return 1;
        if (op == LG_OP_GATHER && in && t == LG_INT32) return 1;
        return 0;
    }
    /* ML Drift (bool tensors and quantized ops assumed enabled, as CompiledModel sets them) */
    if (in && (is_q8(t) || t == LG_INT4 || t == LG_INT2)) return 1;
    if (!in && is_q8(t)) return 1;
    if (!in && t == LG_INT32 && (op == LG_OP_ARG_MAX || op == LG_OP_TOPK_V2)) return 1;
    if ((op == LG_OP_REDUCE_ALL || op == LG_OP_REDUCE_ANY) && t == LG_BOOL) return 1;
    if (in && t == LG_INT32 &&
        (op == LG_OP_EMBEDDING_LOOKUP || op == LG_OP_ONE_HOT || op == LG_OP_DYNAMIC_UPDATE_SLICE))
        return 1;
    if (is_compare(op) && ((in && (is_int(t) || t == LG_BOOL)) || (!in && t == LG_BOOL))) return 1;
    if (is_logical(op) && (t == LG_BOOL || t == LG_INT8 || t == LG_INT16 || t == LG_INT32)) return 1;
    if (ml_int_op(op) && (t == LG_INT8 || t == LG_INT16 || t == LG_INT32)) return 1;
    if (ml_all_precision_op(op) && (is_int(t) || t == LG_BOOL || t == LG_BFLOAT16)) return 1;
    if ((op == LG_OP_SELECT || op == LG_OP_SELECT_V2) && in && input_pos == 0 && t == LG_BOOL) return 1;
    return 0;
}

/* numpy broadcast compatibility of two shapes */
static int np_broadcastable(const lg_tensor *a, const lg_tensor *b) {
    uint32_t n = a->rank > b->rank ? a->rank : b->rank;
    for (uint32_t i = 0; i < n; i++) {
        int32_t da = i < a->rank ? a->shape[a->rank - 1 - i] : 1;
        int32_t db = i < b->rank ? b->shape[b->rank - 1 - i] : 1;
        if (da != db && da != 1 && db != 1) return 0;
    }
    return 1;
}

static void check_broadcast(ck *c, const opx *x) {
    if (x->op->n_inputs < 2 || x->op->inputs[0] < 0 || x->op->inputs[1] < 0) return;
    int32_t ia = x->op->inputs[0], ib = x->op->inputs[1];
    const lg_tensor *a = T(c, ia), *b = T(c, ib);
    char s1[64], s2[64];
    if (a->rank == b->rank || a->rank <= 1 || b->rank <= 1) {
        if (!np_broadcastable(a, b)) {
            lg_finding *f = add(c, R_BROADCAST, x, NULL, "shapes %s and %s do not broadcast",
                                shp(c, ia, s1, sizeof s1), shp(c, ib, s2, sizeof s2));
            with_tensor(f, ia);
            with_tensor(f, ib);
        }
        return;
    }
    const lg_tensor *hi = a->rank > b->rank ? a : b, *lo = a->rank > b->rank ? b : a;
    int ok;
    if (c->target == LG_TARGET_CLASSIC) {
        ok = 0;
        if (hi->rank == 4 && lo->rank == 3 && hi->shape[0] == 1 && np_broadcastable(hi, lo)) ok = 1;
        if (hi->rank == 4 && lo->rank == 2 && lo->shape[0] == 1 && lo->shape[1] == 1) ok = 1;
        if (hi->rank == 4 && lo->rank == 2 && lo->shape[0] == hi->shape[0] &&
            lo->shape[1] == hi->shape[3])
            ok = 1;
    } else {
        ok = hi->rank <= 4 && np_broadcastable(hi, lo);
    }
    if (!ok) {
        lg_finding *f = add(c, R_BROADCAST, x, NULL, "%s %s and %s: %s",
                            x->name, shp(c, ia, s1, sizeof s1), shp(c, ib, s2, sizeof s2),
                            c->target == LG_TARGET_CLASSIC
                                ? "the classic delegate only broadcasts 4D+3D (batch 1), 4D+[1,1] "
                                  "and 4D [b,h,w,c]+2D [b,c]"
                                : "not a numpy broadcast of rank <= 4 operands");
        with_tensor(f, ia);
        with_tensor(f, ib);
    }
}

/* Exactly (rt runtime inputs, cst constant inputs, outs outputs); -1 = any. */
static int need_io(ck *c, const opx *x, int rt, int cst, int outs) {
    int bad = (rt >= 0 && x->n_rt != rt) || (cst >= 0 && x->n_const != cst) ||
              (outs >= 0 && (int)x->op->n_outputs != outs);
    if (bad) {
        char want[96] = "";
        size_t k = 0;
        if (rt >= 0) k += (size_t)snprintf(want + k, sizeof want - k, "%d runtime", rt);
        if (cst >= 0) k += (size_t)snprintf(want + k, sizeof want - k, "%s%d constant", k ? ", " : "", cst);
        if (outs >= 0) snprintf(want + k, sizeof want - k, "%s%d output(s)", k ? ", " : "", outs);
        add(c, R_INPUT_COUNT, x, NULL, "%s has %d runtime and %d constant input(s), %u output(s); the GPU takes %s",
            x->name, x->n_rt, x->n_const, x->op->n_outputs, want);
        return 0;
    }
    return 1;
}

/* Input position k (among all inputs, optional included) is constant INT32. */
static int need_const_i32(ck *c, const opx *x, uint32_t k, const char *what) {
    if (k >= x->op->n_inputs || x->op->inputs[k] < 0) {
        add(c, R_CONST_AXES, x, NULL, "%s has no %s input", x->name, what);
        return 0;
    }
    int32_t t = x->op->inputs[k];
    if (!c->is_const[t]) {
        lg_finding *f = add(c, R_CONST_AXES, x, NULL, "%s is only supported with constant %s (tensor %d \"%s\" is computed at run time)",
                            x->name, what, t, tname(c, t));
        with_tensor(f, t);
        return 0;
    }
    if (T(c, t)->type != LG_INT32) {
        lg_finding *f = add(c, R_CONST_AXES, x, NULL, "%s supports int32 tensor for %s (tensor %d is %s)", x->name, what,
                            t, lg_dtype_name(T(c, t)->type));
        with_tensor(f, t);
        return 0;
    }
    return 1;
}

/* A shape-determining input computed at run time makes the graph dynamic. */
static void need_static(ck *c, const opx *x, uint32_t k, const char *what) {
    if (k < x->op->n_inputs && x->op->inputs[k] >= 0 && !c->is_const[x->op->inputs[k]]) {
        int32_t t = x->op->inputs[k];
        lg_finding *f = add(c, R_DYNAMIC_TENSOR, x, NULL,
                            "%s's %s (tensor %d \"%s\") is computed at run time, so its output "
                            "shape is dynamic", x->name, what, t, tname(c, t));
        with_tensor(f, t);
    }
}

/* ------------------------------------------------------------------ per-op rules */

static void check_conv_like(ck *c, const opx *x) {
    if (x->n_rt < 1 || x->n_rt > 2 || x->op->n_outputs != 1) {
        add(c, R_INPUT_COUNT, x, NULL, "%s has %d runtime input(s) and %u output(s); convolutions take 1-2 runtime inputs and 1 output",
            x->name, x->n_rt, x->op->n_outputs);
    } else if (x->n_rt == 1 && (x->op->n_inputs < 2 || x->op->inputs[1] < 0)) {
        add(c, R_INPUT_COUNT, x, NULL, "%s has no weights input", x->name);
    }
}

static void check_op(ck *c, const opx *x) {
    const lg_op *op = x->op;
    int32_t code = x->code;
    char s1[64], s2[64];
    int act;
    if (fused_activation_of(op, &act) && !act_ok(act)) {
        lg_finding *f = add(c, R_FUSED_ACTIVATION, x, NULL, "%s has fused activation %s (%d)", x->name, act_name(act), act);
        (void)f;
    }
    switch (code) {
    case LG_OP_ABS: case LG_OP_CEIL: case LG_OP_COS: case LG_OP_ELU: case LG_OP_EXP:
    case LG_OP_FLOOR: case LG_OP_GELU: case LG_OP_LOG: case LG_OP_LOGICAL_NOT:
    case LG_OP_LOGISTIC: case LG_OP_NEG: case LG_OP_ROUND: case LG_OP_RSQRT: case LG_OP_SIGN:
    case LG_OP_SIN: case LG_OP_SQRT: case LG_OP_SQUARE: case LG_OP_TANH: case LG_OP_HARD_SWISH:
    case LG_OP_STABLEHLO_CBRT:
        need_io(c, x, 1, 0, 1);
        break;
    case LG_OP_RELU: case LG_OP_RELU6: case LG_OP_LEAKY_RELU: case LG_OP_RELU_N1_TO_1:
    case LG_OP_RELU_0_TO_1:
        if (c->target == LG_TARGET_MLDRIFT) need_io(c, x, 1, 0, 1);
        break;
    case LG_OP_ADD: case LG_OP_MUL:
        if (x->n_in != 2)
            add(c, R_INPUT_COUNT, x, NULL, "%s has %d inputs; the GPU takes exactly 2", x->name, x->n_in);
        if (op->n_inputs == 2) check_broadcast(c, x);
        if (c->target == LG_TARGET_MLDRIFT && x->n_rt == 2) {
            for (int i = 0; i < 2; i++)
                if (T(c, x->in[i])->rank > 5) {
                    lg_finding *f = add(c, R_BROADCAST, x, NULL, "%s operand %s has rank > 5", x->name,
                                        shp(c, x->in[i], s1, sizeof s1));
                    with_tensor(f, x->in[i]);
                }
        }
        break;
    case LG_OP_ADD_N:
        if (x->n_in != 2) add(c, R_INPUT_COUNT, x, NULL, "ADD_N has %d inputs; the GPU takes exactly 2", x->n_in);
        break;
    case LG_OP_SUB: case LG_OP_DIV: case LG_OP_ATAN2: case LG_OP_FLOOR_DIV: case LG_OP_FLOOR_MOD:
    case LG_OP_MAXIMUM: case LG_OP_MINIMUM: case LG_OP_POW: case LG_OP_SQUARED_DIFFERENCE:
    case LG_OP_RIGHT_SHIFT: case LG_OP_STABLEHLO_REMAINDER: case LG_OP_STABLEHLO_SHIFT_LEFT:
    case LG_OP_EQUAL: case LG_OP_NOT_EQUAL: case LG_OP_GREATER: case LG_OP_GREATER_EQUAL:
    case LG_OP_LESS: case LG_OP_LESS_EQUAL: case LG_OP_LOGICAL_AND: case LG_OP_LOGICAL_OR:
    case LG_OP_BITWISE_XOR:
        if (!((x->n_rt == 2 && x->n_const == 0) || (x->n_rt == 1 && x->n_const == 1)) ||
            op->n_outputs != 1)
            add(c, R_INPUT_COUNT, x, NULL, "Op can only handle 1 or 2 operand(s): %s has %d runtime and %d constant inputs",
                x->name, x->n_rt, x->n_const);
        if (c->target == LG_TARGET_MLDRIFT && op->n_inputs >= 2 && op->inputs[0] >= 0 &&
            op->inputs[0] == op->inputs[1]) {
            lg_finding *f = add(c, R_IDENTICAL_INPUTS, x, NULL,
                                "No support of few identical inputs in the same operation: %s(x, x) on tensor %d \"%s\"",
                                x->name, op->inputs[0], tname(c, op->inputs[0]));
            with_tensor(f, op->inputs[0]);
        }
        if (op->n_inputs >= 2 && op->inputs[0] >= 0 && op->inputs[1] >= 0 &&
            !np_broadcastable(T(c, op->inputs[0]), T(c, op->inputs[1]))) {
            lg_finding *f = add(c, R_BROADCAST, x, NULL, "Inputs dimensions sizes don't match, broadcasting isn't applicable: %s and %s",
                                shp(c, op->inputs[0], s1, sizeof s1), shp(c, op->inputs[1], s2, sizeof s2));
            with_tensor(f, op->inputs[0]);
            with_tensor(f, op->inputs[1]);
        }
        if (c->target == LG_TARGET_CLASSIC && is_compare(code)) {
            /* exactly 1 consumer, a CAST/SELECT/SELECT_V2 producing float */
            int32_t out = op->n_outputs ? op->outputs[0] : -1;
            int ok = 0;
            if (out >= 0 && c->n_consumers[out] == 1) {
                for (uint32_t j = 0; j < c->sg->n_ops; j++) {
                    const lg_op *u = &c->sg->ops[j];
                    int uses = 0;
                    for (uint32_t k = 0; k < u->n_inputs; k++) uses |= u->inputs[k] == out;
                    if (!uses) continue;
                    int32_t uc = lg_op_builtin(c->m, u);
                    if ((uc == LG_OP_CAST || uc == LG_OP_SELECT || uc == LG_OP_SELECT_V2) &&
                        u->n_outputs == 1 && u->outputs[0] >= 0 && is_float(T(c, u->outputs[0])->type))
                        ok = 1;
                }
            }
            if (!ok) {
                lg_finding *f = add(c, R_COMPARE_CONSUMER, x, NULL,
                                    "Not supported logical op case: %s output %d has %u consumer(s); the classic delegate needs exactly one CAST/SELECT producing float",
                                    x->name, out, out >= 0 ? c->n_consumers[out] : 0);
                with_tensor(f, out);
            }
        }
        break;
    case LG_OP_AVERAGE_POOL_2D: case LG_OP_MAX_POOL_2D: {
        need_io(c, x, 1, 0, 1);
        const lg_pool2d_options *o = op->opts;
        if (!o) { add(c, R_OP_PARAMS, x, NULL, "%s has no options", x->name); break; }
        if (o->filter_height <= 0 || o->filter_width <= 0 || o->stride_h <= 0 || o->stride_w <= 0)
            add(c, R_OP_PARAMS, x, NULL, "%s kernel %dx%d stride %dx%d: kernel and stride must be > 0", x->name,
                o->filter_height, o->filter_width, o->stride_h, o->stride_w);
        break;
    }
    case LG_OP_BATCH_MATMUL:
        if (x->n_in != 2 || op->n_outputs != 1) {
            add(c, R_INPUT_COUNT, x, NULL, "BATCH_MATMUL has %d inputs and %u outputs; the GPU takes 2 and 1", x->n_in, op->n_outputs);
            break;
        }
        if (x->n_rt == 1) {
            int32_t b = op->inputs[1];
            if (!c->is_const[b]) {
                add(c, R_OP_PARAMS, x, NULL, "Not supported batched mat mul case: the constant operand must be the second input");
            } else {
                uint32_t r = T(c, b)->rank;
                int ok = c->target == LG_TARGET_CLASSIC ? r == 2 : (r >= 2 && r <= 4);
                if (!ok) {
                    lg_finding *f = add(c, R_OP_PARAMS, x, NULL, "Not supported batched mat mul case: constant operand %s has rank %u (the %s delegate takes %s)",
                                        shp(c, b, s1, sizeof s1), r, lg_target_name(c->target),
                                        c->target == LG_TARGET_CLASSIC ? "rank 2" : "rank 2-4");
                    with_tensor(f, b);
                }
            }
        } else if (x->n_rt != 2) {
            add(c, R_INPUT_COUNT, x, NULL, "BATCH_MATMUL with %d runtime inputs", x->n_rt);
        }
        break;
    case LG_OP_BITCAST:
        need_io(c, x, 1, 0, 1);
        break;
    case LG_OP_CAST: {
        int32_t in = op->n_inputs ? op->inputs[0] : -1, out = op->n_outputs ? op->outputs[0] : -1;
        if (c->target == LG_TARGET_MLDRIFT) {
            need_io(c, x, 1, 0, 1);
            break;
        }
        if (!need_io(c, x, 1, 0, 1) || in < 0 || out < 0) break;
        int ti = T(c, in)->type, to = T(c, out)->type;
        int ok = (ti == LG_BOOL && is_float(to)) || (is_float(ti) && to == LG_BOOL) ||
                 ((ti == LG_FLOAT32 || ti == LG_INT32) && (to == LG_FLOAT32 || to == LG_INT32));
        if (!ok) {
            lg_finding *f = add(c, R_CAST_TYPES, x, NULL, "Not supported Cast case: %s -> %s", lg_dtype_name(ti), lg_dtype_name(to));
            with_tensor(f, in);
            with_tensor(f, out);
        } else if (ti == LG_BOOL) {
            int32_t p = c->producer[in];
            int from_cmp = p >= 0 && is_compare(lg_op_builtin(c->m, &c->sg->ops[p])) && c->n_consumers[in] == 1;
            int is_out = 0;
            for (uint32_t k = 0; k < c->sg->n_outputs; k++) is_out |= c->sg->outputs[k] == out;
            if (!from_cmp || is_out) {
                lg_finding *f = add(c, R_CAST_TYPES, x, NULL, "%s",
                                    is_out ? "Cast from bool not supported for outputs"
                                           : "a cast from bool must read a single comparison op with one consumer");
                with_tensor(f, in);
            }
        }
        break;
    }
    case LG_OP_CONCATENATION:
        /* no options is fine: TFLite's parser allocates default params */
        break;
    case LG_OP_CONV_2D: {
        check_conv_like(c, x);
        const lg_conv2d_options *o = op->opts;
        if (o && (o->stride_h <= 0 || o->stride_w <= 0 || o->dilation_h_factor <= 0 || o->dilation_w_factor <= 0))
            add(c, R_OP_PARAMS, x, NULL, "CONV_2D stride %dx%d dilation %dx%d: must be > 0", o->stride_h, o->stride_w,
                o->dilation_h_factor, o->dilation_w_factor);
        if (c->target == LG_TARGET_MLDRIFT && op->n_inputs > 0 && op->inputs[0] >= 0 && c->is_const[op->inputs[0]])
            add(c, R_OP_PARAMS, x, NULL, "CONV_2D input must be a runtime tensor");
        if (c->target == LG_TARGET_CLASSIC && op->n_inputs >= 2 && op->inputs[1] >= 0 && op->inputs[0] >= 0 &&
            !c->is_const[op->inputs[1]]) {
            const lg_tensor *w = T(c, op->inputs[1]), *in = T(c, op->inputs[0]);
            if (w->rank == 4 && in->rank == 4 && w->shape[3] != in->shape[3])
                add(c, R_OP_PARAMS, x, NULL, "No support of CONVOLUTION_2D with runtime grouped weights (weights in-channels %d, input channels %d)",
                    w->shape[3], in->shape[3]);
        }
        break;
    }
    case LG_OP_CUMSUM:
        if (x->n_in != 2 || op->n_outputs != 1) {
            add(c, R_INPUT_COUNT, x, NULL, "CUMSUM has %d inputs, %u outputs; the GPU takes 2 and 1", x->n_in, op->n_outputs);
            break;
        }
        if (!is_float(T(c, op->inputs[0])->type) || T(c, op->outputs[0])->type != T(c, op->inputs[0])->type)
            add(c, R_OP_PARAMS, x, NULL, "CUMSUM needs a float input and an output of the same type");
        need_const_i32(c, x, 1, "axis");
        break;
    case LG_OP_DENSIFY:
        need_io(c, x, 0, -1, 1);
        break;
    case LG_OP_DEPTHWISE_CONV_2D: {
        check_conv_like(c, x);
        const lg_depthwise_conv2d_options *o = op->opts;
        if (o && (o->stride_h <= 0 || o->stride_w <= 0 || o->dilation_h_factor <= 0 || o->dilation_w_factor <= 0))
            add(c, R_OP_PARAMS, x, NULL, "DEPTHWISE_CONV_2D stride %dx%d dilation %dx%d: must be > 0", o->stride_h,
                o->stride_w, o->dilation_h_factor, o->dilation_w_factor);
        if (op->n_inputs < 2 || op->n_outputs < 1 || op->inputs[0] < 0 || op->inputs[1] < 0) break;
        const lg_tensor *in = T(c, op->inputs[0]), *w = T(c, op->inputs[1]), *out = T(c, op->outputs[0]);
        int dm = o ? o->depth_multiplier : 1;
        const char *why = NULL;
        char buf[160];
        if (in->rank != 4 || w->rank != 4 || out->rank != 4) why = "input, filter and output must be rank 4";
        else if (in->shape[0] != out->shape[0]) why = "input and output batch differ";
        else if (w->shape[3] != out->shape[3]) why = "filter.dims[3] != output channels";
        else if (dm > 0 && out->shape[3] != in->shape[3] * dm) {
            snprintf(buf, sizeof buf, "output channels %d != input channels %d x depth_multiplier %d", out->shape[3], in->shape[3], dm);
            why = buf;
        } else if (op->n_inputs > 2 && op->inputs[2] >= 0 && numel_of(c, op->inputs[2]) != out->shape[3])
            why = "bias size != output channels";
        if (why) {
            lg_finding *f = add(c, R_DEPTHWISE_SHAPE, x, NULL, "DEPTHWISE_CONV_2D %s -> %s: %s", shp(c, op->inputs[0], s1, sizeof s1),
                                shp(c, op->outputs[0], s2, sizeof s2), why);
            with_tensor(f, op->inputs[0]);
            with_tensor(f, op->inputs[1]);
        }
        break;
    }
    case LG_OP_DEPTH_TO_SPACE: case LG_OP_SPACE_TO_DEPTH: {
        need_io(c, x, 1, 0, 1);
        int bs = 0;
        if (op->opts && code == LG_OP_DEPTH_TO_SPACE) bs = ((const lg_depth_to_space_options *)op->opts)->block_size;
        if (op->opts && code == LG_OP_SPACE_TO_DEPTH) bs = ((const lg_space_to_depth_options *)op->opts)->block_size;
        if (bs <= 1) add(c, R_OP_PARAMS, x, NULL, "%s block_size %d: %s", x->name, bs, bs == 1 ? "is a no-op" : "must be > 1");
        break;
    }
    case LG_OP_DEQUANTIZE: {
        if (x->n_in != 1 || op->n_outputs != 1) {
            add(c, R_INPUT_COUNT, x, NULL, "DEQUANTIZE has %d inputs, %u outputs; the GPU takes 1 and 1", x->n_in, op->n_outputs);
            break;
        }
        int32_t in = op->inputs[0];
        if (c->target == LG_TARGET_MLDRIFT && c->producer[in] >= 0 &&
            lg_op_builtin(c->m, &c->sg->ops[c->producer[in]]) == LG_OP_DENSIFY) {
            lg_finding *f = add(c, R_OP_PARAMS, x, "store the weights dense (densify at export): no DENSIFY, no DEQUANTIZE of it",
                                "Dequantize for Densify is not supported (its input comes from DENSIFY op %d)", c->producer[in]);
            with_tensor(f, in);
        }
        if (T(c, in)->type == LG_INT16) {
            lg_finding *f = add(c, R_OP_PARAMS, x, NULL, "DEQUANTIZE of an INT16 tensor");
            with_tensor(f, in);
        }
        if (c->target == LG_TARGET_MLDRIFT) {
            if (c->is_const[in] && (T(c, in)->rank < 2 || T(c, in)->rank > 4)) {
                lg_finding *f = add(c, R_OP_PARAMS, x, NULL, "DEQUANTIZE of a constant of rank %u (ML Drift takes rank 2-4)", T(c, in)->rank);
                with_tensor(f, in);
            }
            if (!c->is_const[in] && T(c, in)->quant && T(c, in)->quant->n_scale > 1) {
                lg_finding *f = add(c, R_OP_PARAMS, x, NULL, "DEQUANTIZE of a per-channel quantized runtime tensor");
                with_tensor(f, in);
            }
        }
        break;
    }
    case LG_OP_QUANTIZE:
        need_io(c, x, 1, 0, 1);
        if (op->n_outputs && op->outputs[0] >= 0 &&
            (!T(c, op->outputs[0])->quant || !T(c, op->outputs[0])->quant->n_scale))
            add(c, R_OP_PARAMS, x, NULL, "QUANTIZE output has no quantization parameters");
        break;
    case LG_OP_DYNAMIC_UPDATE_SLICE:
        if (x->n_in != 3) { add(c, R_INPUT_COUNT, x, NULL, "DYNAMIC_UPDATE_SLICE has %d inputs; the GPU takes 3", x->n_in); break; }
        if (c->target == LG_TARGET_MLDRIFT && c->is_const[op->inputs[2]])
            add(c, R_OP_PARAMS, x, NULL, "DYNAMIC_UPDATE_SLICE start indices must be a runtime tensor");
        if (T(c, op->inputs[0])->type != T(c, op->inputs[1])->type || T(c, op->inputs[1])->rank != T(c, op->inputs[0])->rank)
            add(c, R_OP_PARAMS, x, NULL, "DYNAMIC_UPDATE_SLICE operand and update must have the same type and rank");
        if (T(c, op->inputs[2])->rank != 1 || T(c, op->inputs[2])->type != LG_INT32)
            add(c, R_OP_PARAMS, x, NULL, "DYNAMIC_UPDATE_SLICE start indices must be 1-D INT32");
        break;
    case LG_OP_EMBEDDING_LOOKUP: {
        if (x->n_in != 2 || op->n_outputs != 1) { add(c, R_INPUT_COUNT, x, NULL, "EMBEDDING_LOOKUP has %d inputs; the GPU takes 2", x->n_in); break; }
        const lg_tensor *ids = T(c, op->inputs[0]), *val = T(c, op->inputs[1]), *out = T(c, op->outputs[0]);
        int ok = ids->rank == 1 && val->rank >= 2 && val->rank == out->rank;
        for (uint32_t i = 1; ok && i < val->rank; i++) ok = val->shape[i] == out->shape[i];
        int vt = val->type;
        if (!(vt == LG_INT8 || vt == LG_INT4 || vt == LG_INT2 || vt == LG_FLOAT32)) ok = 0;
        if (!ok) add(c, R_OP_PARAMS, x, NULL, "EMBEDDING_LOOKUP needs 1-D ids, a value table of rank >= 2 matching the output, of type FLOAT32/INT8/INT4/INT2");
        else if (c->target == LG_TARGET_MLDRIFT && vt != LG_FLOAT32 && (!val->quant || !val->quant->n_scale))
            add(c, R_OP_PARAMS, x, NULL, "EMBEDDING_LOOKUP: Empty quantization params (a %s table needs scales)", lg_dtype_name(vt));
        break;
    }
    case LG_OP_FULLY_CONNECTED: {
        const lg_fully_connected_options *o = op->opts;
        if (x->n_in < 1 || op->inputs[0] < 0) { add(c, R_INPUT_COUNT, x, NULL, "FULLY_CONNECTED has no input"); break; }
        if (x->n_rt > 2) add(c, R_INPUT_COUNT, x, NULL, "FULLY_CONNECTED has %d runtime inputs; the GPU takes at most 2", x->n_rt);
        if (c->is_const[op->inputs[0]]) add(c, R_OP_PARAMS, x, NULL, "FULLY_CONNECTED input 0 is constant; it must be computed at run time");
        if (o && o->weights_format != 0) add(c, R_OP_PARAMS, x, NULL, "FULLY_CONNECTED weights_format %d is not DEFAULT", o->weights_format);
        if (o && o->keep_num_dims && op->n_outputs && T(c, op->inputs[0])->rank != T(c, op->outputs[0])->rank)
            add(c, R_OP_PARAMS, x, NULL, "FULLY_CONNECTED keep_num_dims needs input rank == output rank");
        if (c->target == LG_TARGET_CLASSIC && op->n_inputs >= 2 && op->inputs[1] >= 0) {
            const lg_tensor *in = T(c, op->inputs[0]), *w = T(c, op->inputs[1]);
            if (in->rank >= 1 && w->rank == 2 && in->shape[in->rank - 1] != w->shape[1])
                add(c, R_OP_PARAMS, x, NULL, "Amount of input channels should match weights width (%d vs %d)",
                    in->shape[in->rank - 1], w->shape[1]);
        }
        break;
    }
    case LG_OP_GATHER:
        if (!((x->n_rt == 2 && x->n_const == 0) || (x->n_rt == 1 && x->n_const == 1)) || op->n_outputs != 1) {
            add(c, R_INPUT_COUNT, x, NULL, "GATHER has %d runtime and %d constant inputs", x->n_rt, x->n_const);
            break;
        }
        if (T(c, op->inputs[1])->rank != 1 || T(c, op->inputs[1])->type != LG_INT32) {
            lg_finding *f = add(c, R_OP_PARAMS, x, NULL, "GATHER indices %s %s: must be 1-D INT32",
                                lg_dtype_name(T(c, op->inputs[1])->type), shp(c, op->inputs[1], s1, sizeof s1));
            with_tensor(f, op->inputs[1]);
        } else if (c->is_const[op->inputs[1]] && numel_of(c, op->inputs[1]) >= 2) {
            lg_finding *f = add(c, R_GATHER_CONST_INDICES, x, NULL, "GATHER with %lld constant indices",
                                (long long)numel_of(c, op->inputs[1]));
            with_tensor(f, op->inputs[1]);
        }
        if (c->target == LG_TARGET_MLDRIFT && T(c, op->inputs[0])->type != T(c, op->outputs[0])->type)
            add(c, R_OP_PARAMS, x, NULL, "GATHER input and output types differ");
        break;
    case LG_OP_LSTM:
        if (!(x->n_in == 20 || x->n_in == 24 || (x->n_rt == 3 && x->n_const == 2)))
            add(c, R_OP_PARAMS, x, NULL, "LSTM with %d inputs: the GPU takes the full kernel (20/24 inputs) or the basic kernel (3 runtime + 2 constant)", x->n_in);
        break;
    case LG_OP_MEAN: case LG_OP_SUM: case LG_OP_REDUCE_MAX: case LG_OP_REDUCE_MIN:
    case LG_OP_REDUCE_PROD: case LG_OP_REDUCE_ALL: case LG_OP_REDUCE_ANY: {
        need_io(c, x, 1, 1, 1);
        if (!need_const_i32(c, x, 1, "axes")) break;
        int32_t in = op->inputs[0], ax = op->inputs[1];
        uint32_t r = T(c, in)->rank;
        int64_t n = numel_of(c, ax), extent = 1;
        int n_axes = 0;
        uint32_t seen = 0;
        for (int64_t i = 0; i < n && i < 16; i++) {
            int64_t a;
            if (!const_int(c, ax, (uint32_t)i, &a)) break;
            if (a < 0) a += r;
            if (a < 0 || a >= (int64_t)r || r > 4 || r < 1) {
                lg_finding *f = add(c, R_REDUCE_AXES, x, NULL, "%s axis %lld on an input of rank %u", x->name, (long long)a, r);
                with_tensor(f, in);
                break;
            }
            if (!(seen & (1u << a))) {
                seen |= 1u << a;
                n_axes++;
                extent *= T(c, in)->shape[a];
            }
        }
        if ((code == LG_OP_MEAN || code == LG_OP_SUM) && n_axes >= 2 && extent >= 65536) {
            lg_finding *f = add(c, R_LARGE_MULTI_AXIS_REDUCE, x, NULL, "%s over %d axes reduces %lld elements of %s at once (>= 65536)",
                                x->name, n_axes, (long long)extent, shp(c, in, s1, sizeof s1));
            with_tensor(f, in);
        }
        break;
    }
    case LG_OP_PAD: case LG_OP_PADV2: case LG_OP_MIRROR_PAD: {
        if (x->n_rt != 1 || op->n_outputs != 1)
            add(c, R_INPUT_COUNT, x, NULL, "%s has %d runtime inputs; the GPU takes 1", x->name, x->n_rt);
        if (op->n_inputs >= 2 && op->inputs[1] >= 0) {
            need_static(c, x, 1, "paddings");
            const lg_tensor *p = T(c, op->inputs[1]);
            if (!(p->rank == 2 && (p->shape[0] == 4 || p->shape[0] == 3) && p->shape[1] == 2)) {
                lg_finding *f = add(c, R_PAD_SHAPE, x, NULL, "%s paddings %s: the GPU takes 4x2 or 3x2 (rank-3 or rank-4 data)",
                                    x->name, shp(c, op->inputs[1], s1, sizeof s1));
                with_tensor(f, op->inputs[1]);
            }
        }
        if ((code == LG_OP_PAD || code == LG_OP_PADV2) && op->n_inputs >= 2 && op->inputs[0] >= 0 && op->inputs[1] >= 0 &&
            c->is_const[op->inputs[1]]) {
            const lg_tensor *d = T(c, op->inputs[0]);
            int64_t b0 = 0, a0 = 0;
            int pads_batch = const_int(c, op->inputs[1], 0, &b0) && const_int(c, op->inputs[1], 1, &a0) && (b0 || a0);
            if ((d->rank == 3 && d->shape[0] > 1) || (d->rank == 4 && pads_batch)) {
                lg_finding *f = add(c, R_WEBGPU_PAD_LAYOUT, x, NULL, "%s of %s %s", x->name, shp(c, op->inputs[0], s1, sizeof s1),
                                    d->rank == 3 ? "(a rank-3 tensor with a first dimension > 1)" : "pads the batch axis");
                with_tensor(f, op->inputs[0]);
            }
        }
        if (code == LG_OP_MIRROR_PAD && op->opts && ((const lg_mirror_pad_options *)op->opts)->mode != 0)
            add(c, R_MIRROR_PAD_MODE, x, NULL, "MIRROR_PAD mode SYMMETRIC");
        if (code == LG_OP_PADV2 && op->n_inputs >= 3 && op->inputs[2] >= 0) {
            double v = 0;
            int32_t cv = op->inputs[2];
            if (c->is_const[cv] && const_float(c, cv, 0, &v) && v != 0) {
                lg_finding *f = add(c, R_PADV2_NONZERO, x, NULL, "PADV2 pads with %g", v);
                with_tensor(f, cv);
            } else if (!c->is_const[cv]) {
                add(c, R_OP_PARAMS, x, NULL, "PADV2 constant value must be a constant float scalar");
            }
        }
        break;
    }
    case LG_OP_PACK: case LG_OP_UNPACK: case LG_OP_PRELU: case LG_OP_SPLIT:
        break;
    case LG_OP_SPLIT_V:
        if (c->target == LG_TARGET_MLDRIFT && !(x->n_rt == 1 && x->n_const == 2))
            add(c, R_INPUT_COUNT, x, NULL, "SPLIT_V has %d runtime and %d constant inputs; ML Drift takes 1 + 2", x->n_rt, x->n_const);
        break;
    case LG_OP_ONE_HOT: {
        if (c->target == LG_TARGET_MLDRIFT ? x->n_in < 4 : x->n_in != 4) {
            add(c, R_INPUT_COUNT, x, NULL, "ONE_HOT has %d inputs; the GPU takes 4", x->n_in);
            break;
        }
        if (op->n_outputs != 1) { add(c, R_INPUT_COUNT, x, NULL, "ONE_HOT has %u outputs", op->n_outputs); break; }
        const lg_tensor *ids = T(c, op->inputs[0]), *out = T(c, op->outputs[0]);
        int axis = op->opts ? ((const lg_one_hot_options *)op->opts)->axis : -1;
        if (axis != -1 && axis != (int)out->rank - 1)
            add(c, R_OP_PARAMS, x, NULL, "ONE_HOT axis %d: only -1 (the last dimension) is supported", axis);
        if (c->target == LG_TARGET_MLDRIFT) {
            /* ML Drift skips the shared check; its own parser checks the axis and 4-D ids */
            if (ids->rank == 4 && ids->shape[3] != 1)
                add(c, R_OP_PARAMS, x, NULL, "ONE_HOT 4-D indices need dims[3] == 1");
            break;
        }
        if (ids->type != LG_INT32) add(c, R_OP_PARAMS, x, NULL, "ONE_HOT indices must be INT32");
        if (!c->is_const[op->inputs[2]] || !c->is_const[op->inputs[3]] || numel_of(c, op->inputs[2]) != 1 ||
            numel_of(c, op->inputs[3]) != 1)
            add(c, R_OP_PARAMS, x, NULL, "ONE_HOT on/off values must be constant scalars");
        for (uint32_t d = 0; d + 1 < out->rank; d++) {
            int batch = out->rank > 3 && d == 0;
            if (!batch && out->shape[d] != 1) {
                add(c, R_OP_PARAMS, x, NULL, "ONE_HOT output %s: only the batch and channel dimensions may be larger than 1",
                    shp(c, op->outputs[0], s1, sizeof s1));
                break;
            }
        }
        break;
    }
    case LG_OP_RESHAPE:
        if (x->n_rt != 1 || op->n_outputs != 1)
            add(c, R_INPUT_COUNT, x, NULL, "RESHAPE has %d runtime inputs; the GPU takes 1 (the shape must be constant)", x->n_rt);
        need_static(c, x, 1, "shape");
        break;
    case LG_OP_RESIZE_BILINEAR: case LG_OP_RESIZE_NEAREST_NEIGHBOR:
        need_io(c, x, 1, -1, 1);
        need_static(c, x, 1, "size");
        if (code == LG_OP_RESIZE_BILINEAR && op->opts) {
            const lg_resize_bilinear_options *o = op->opts;
            if (o->align_corners && o->half_pixel_centers)
                add(c, R_RESIZE_FLAGS, x, NULL, "If half_pixel_centers is True, align_corners must be False.");
            else if (o->align_corners)
                add(c, R_RESIZE_ALIGN_CORNERS, x, NULL, "RESIZE_BILINEAR with align_corners=True");
        }
        break;
    case LG_OP_REVERSE_V2:
        need_io(c, x, 1, 1, 1);
        need_const_i32(c, x, 1, "axes");
        break;
    case LG_OP_SELECT: case LG_OP_SELECT_V2: {
        if (x->n_in != 3 || op->n_outputs != 1) { add(c, R_INPUT_COUNT, x, NULL, "%s has %d inputs; the GPU takes 3", x->name, x->n_in); break; }
        const lg_tensor *cond = T(c, op->inputs[0]), *out = T(c, op->outputs[0]);
        if (!(cond->type == LG_BOOL || is_float(cond->type)))
            add(c, R_OP_PARAMS, x, NULL, "%s condition is %s (BOOL/FLOAT16/FLOAT32 only)", x->name, lg_dtype_name(cond->type));
        if (!np_broadcastable(cond, out))
            add(c, R_OP_PARAMS, x, NULL, "%s condition %s does not broadcast to the output %s", x->name,
                shp(c, op->inputs[0], s1, sizeof s1), shp(c, op->outputs[0], s2, sizeof s2));
        for (int k = 1; k <= 2; k++) {
            int32_t t = op->inputs[k];
            const lg_tensor *v = T(c, t);
            int same = v->rank == out->rank;
            for (uint32_t i = 0; same && i < v->rank; i++) same = v->shape[i] == out->shape[i];
            if (!same && numel_of(c, t) != 1) {
                lg_finding *f = add(c, R_OP_PARAMS, x, NULL, "%s %s value %s must equal the output shape %s or be a scalar",
                                    x->name, k == 1 ? "true" : "false", shp(c, t, s1, sizeof s1), shp(c, op->outputs[0], s2, sizeof s2));
                with_tensor(f, t);
            } else if (c->target == LG_TARGET_CLASSIC && v->rank == 2 && !c->is_const[t] && numel_of(c, t) != 1) {
                add(c, R_OP_PARAMS, x, NULL, "2-D if/else tensor only supported if constant");
            }
        }
        break;
    }
    case LG_OP_SLICE: case LG_OP_STRIDED_SLICE: {
        int32_t in = op->n_inputs ? op->inputs[0] : -1;
        if (in < 0) break;
        uint32_t r = T(c, in)->rank;
        /* ML Drift checks SLICE in its own parser and STRIDED_SLICE with its own compat copy:
           both take rank 1-4 (rank-1/2 STRIDED_SLICE seen delegated and exact on WebGPU) */
        int ml = c->target == LG_TARGET_MLDRIFT, ml_slice = ml && code == LG_OP_SLICE;
        if (ml ? (r < 1 || r > 4) : (r != 3 && r != 4)) {
            lg_finding *f = add(c, R_SLICE_RANK, x, NULL, "%s input %s has rank %u (the GPU takes %s)", x->name,
                                shp(c, in, s1, sizeof s1), r, ml ? "1-4" : "3 or 4");
            with_tensor(f, in);
        }
        if (ml_slice && c->is_const[in]) add(c, R_OP_PARAMS, x, NULL, "%s input must be a runtime tensor", x->name);
        for (uint32_t k = 1; k < op->n_inputs; k++) need_static(c, x, k, k == 1 ? "begin" : k == 2 ? (code == LG_OP_SLICE ? "size" : "end") : "strides");
        if (code == LG_OP_STRIDED_SLICE) {
            const lg_strided_slice_options *o = op->opts;
            if (o && (o->ellipsis_mask || o->new_axis_mask || o->shrink_axis_mask))
                add(c, R_STRIDED_SLICE_MASKS, x, NULL, "STRIDED_SLICE ellipsis_mask %d new_axis_mask %d shrink_axis_mask %d",
                    o->ellipsis_mask, o->new_axis_mask, o->shrink_axis_mask);
            if (op->n_inputs >= 4 && op->inputs[3] >= 0 && c->is_const[op->inputs[3]]) {
                for (int64_t i = 0; i < numel_of(c, op->inputs[3]) && i < 8; i++) {
                    int64_t s;
                    if (const_int(c, op->inputs[3], (uint32_t)i, &s) && s <= 0) {
                        add(c, s == 0 ? R_OP_PARAMS : R_STRIDED_SLICE_REVERSE, x, NULL,
                            s == 0 ? "STRIDED_SLICE stride 0 on axis %lld" : "Reverse slices are not supported: stride %lld on axis %lld",
                            s == 0 ? (long long)i : (long long)s, (long long)i);
                        break;
                    }
                }
            }
        }
        break;
    }
    case LG_OP_SOFTMAX:
        need_io(c, x, 1, 0, 1);
        if (op->opts && ((const lg_softmax_options *)op->opts)->beta != 1.0f)
            add(c, R_SOFTMAX_BETA, x, NULL, "SOFTMAX beta %g", (double)((const lg_softmax_options *)op->opts)->beta);
        break;
    case LG_OP_TILE:
        need_io(c, x, 1, -1, 1);
        need_static(c, x, 1, "multiples");
        break;
    case LG_OP_TOPK_V2:
        if (x->n_rt != 1 || op->n_outputs != 2)
            add(c, R_INPUT_COUNT, x, NULL, "TOPK_V2 has %d runtime inputs and %u outputs; the GPU takes 1 and 2", x->n_rt, op->n_outputs);
        if (op->n_inputs >= 2 && op->inputs[1] >= 0 && (!c->is_const[op->inputs[1]] || numel_of(c, op->inputs[1]) != 1))
            add(c, R_OP_PARAMS, x, NULL, "TOPK_V2 k must be a constant scalar");
        break;
    case LG_OP_TRANSPOSE:
        need_io(c, x, 1, -1, 1);
        need_static(c, x, 1, "permutation");
        if (op->n_inputs >= 2 && op->inputs[1] >= 0) {
            int64_t n = numel_of(c, op->inputs[1]);
            if (n < 2 || n > 4) {
                lg_finding *f = add(c, R_TRANSPOSE_PERM, x, NULL, "TRANSPOSE permutation of length %lld", (long long)n);
                with_tensor(f, op->inputs[1]);
            }
        }
        break;
    case LG_OP_TRANSPOSE_CONV: {
        if (x->n_in < 3) { add(c, R_INPUT_COUNT, x, NULL, "TRANSPOSE_CONV has %d inputs", x->n_in); break; }
        const lg_transpose_conv_options *o = op->opts;
        if (o && (o->stride_h <= 0 || o->stride_w <= 0))
            add(c, R_OP_PARAMS, x, NULL, "TRANSPOSE_CONV stride %dx%d must be > 0", o->stride_h, o->stride_w);
        need_static(c, x, 0, "output shape");
        lg_finding *f = add(c, R_MALI_TRANSPOSE_CONV, x, NULL, "TRANSPOSE_CONV %s -> %s",
                            shp(c, op->inputs[2], s1, sizeof s1), op->n_outputs ? shp(c, op->outputs[0], s2, sizeof s2) : "?");
        with_tensor(f, op->inputs[2]);
        break;
    }
    case LG_OP_STABLEHLO_BROADCAST_IN_DIM:
        need_io(c, x, 1, 1, -1);
        break;
    case LG_OP_STABLEHLO_CLAMP:
        need_io(c, x, 3, 0, -1);
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------------ custom ops */

static int custom_supported(lg_target t, const char *name) {
    static const char *const both[] = {"Convolution2DTransposeBias", "MaxPoolingWithArgmax2D",
                                       "MaxUnpooling2D", "Resampler"};
    static const char *const ml[] = {"custom_call.GroupNorm", "custom_call.LayerNorm",
                                     "custom_call.RmsNorm", "custom_call.PixelShuffle",
                                     "custom_call.absolute_positional_embedding",
                                     "custom_call.rotary_positional_embedding"};
    if (!name) return 0;
    for (size_t i = 0; i < sizeof both / sizeof both[0]; i++)
        if (strcmp(name, both[i]) == 0) return 1;
    if (t == LG_TARGET_MLDRIFT)
        for (size_t i = 0; i < sizeof ml / sizeof ml[0]; i++)
            if (strcmp(name, ml[i]) == 0) return 1;
    return 0;
}

static int composite_supported(const char *name) {
    static const char *const ok[] = {"odml.group_norm", "odml.rms_norm", "odml.scaled_dot_product_attention",
                                     "custom_call.rotary_positional_embedding", "odml.cache_update", "odml.rope",
                                     "odml.runtime_bmm", "odml.sdpa_transposed", "moe"};
    if (!name) return 0;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(name, ok[i]) == 0) return 1;
    return 0;
}

static int field_banned(int32_t op) {
    switch (op) {
    case LG_OP_GATHER: case LG_OP_TOPK_V2: case LG_OP_PACK: case LG_OP_SPLIT: case LG_OP_SPLIT_V:
    case LG_OP_CAST: case LG_OP_SELECT: case LG_OP_SELECT_V2:
        return 1;
    default:
        return is_compare(op);
    }
}

/* ------------------------------------------------------------------ partitioning */

/* TFLite's PartitionGraphIntoIndependentNodeSubsets: repeatedly sweep the ops in order,
   taking every op whose inputs are ready and whose kind matches the current subset's. */
static lg_status partition(ck *c, const uint8_t *supported, lg_check_report *rep) {
    const lg_subgraph *sg = c->sg;
    uint32_t n = sg->n_ops;
    uint8_t *ready = calloc(sg->n_tensors ? sg->n_tensors : 1, 1);
    uint8_t *done = calloc(n ? n : 1, 1);
    int32_t *subset = malloc((n ? n : 1) * sizeof(int32_t));
    lg_partition *parts = NULL;
    uint32_t n_parts = 0;
    if (!ready || !done || !subset) goto oom;
    for (uint32_t t = 0; t < sg->n_tensors; t++) ready[t] = c->producer[t] < 0;
    uint32_t remaining = n;
    while (remaining) {
        int kind = -1;
        uint32_t count = 0, first = UINT32_MAX, last = 0;
        for (;;) {
            int progress = 0;
            for (uint32_t i = 0; i < n; i++) {
                if (done[i]) continue;
                const lg_op *op = &sg->ops[i];
                int ok = 1;
                for (uint32_t k = 0; k < op->n_inputs && ok; k++)
                    if (op->inputs[k] >= 0 && op->inputs[k] < (int32_t)sg->n_tensors) ok = ready[op->inputs[k]];
                if (!ok) continue;
                if (kind < 0) kind = supported[i];
                if (supported[i] != kind) continue;
                done[i] = 1;
                remaining--;
                subset[i] = (int32_t)n_parts;
                for (uint32_t k = 0; k < op->n_outputs; k++)
                    if (op->outputs[k] >= 0 && op->outputs[k] < (int32_t)sg->n_tensors) ready[op->outputs[k]] = 1;
                if (!c->folded[i]) count++;
                if (i < first) first = i;
                if (i > last) last = i;
                progress = 1;
            }
            if (!progress) break;
        }
        if (kind < 0) {
            /* ops whose inputs are never produced (a cycle or bad graph): one CPU subset */
            kind = 0;
            for (uint32_t i = 0; i < n; i++)
                if (!done[i]) {
                    done[i] = 1;
                    remaining--;
                    subset[i] = (int32_t)n_parts;
                    count++;
                    if (i < first) first = i;
                    if (i > last) last = i;
                }
        }
        lg_partition *np = realloc(parts, (n_parts + 1) * sizeof *np);
        if (!np) goto oom;
        parts = np;
        parts[n_parts].first_op = first;
        parts[n_parts].last_op = last;
        parts[n_parts].n_ops = count;
        parts[n_parts].gpu = kind == 1;
        parts[n_parts].delegated = false;
        n_parts++;
    }
    /* which GPU subsets the delegate takes */
    int best = -1;
    for (uint32_t p = 0; p < n_parts; p++) {
        if (!parts[p].gpu || parts[p].n_ops == 0) continue;
        rep->n_gpu_partitions++;
        if (best < 0 || parts[p].n_ops > parts[(uint32_t)best].n_ops) best = (int)p;
    }
    for (uint32_t p = 0; p < n_parts; p++) {
        if (!parts[p].gpu) continue;
        /* classic: only the largest (max_delegated_partitions = 1); ML Drift: all of them,
           though CompiledModel refuses anything short of full residency */
        parts[p].delegated = c->target == LG_TARGET_MLDRIFT ? true : (int)p == best;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = (uint32_t)subset[i];
        if (c->folded[i]) rep->op_place[i] = LG_PLACE_FOLDED;
        else rep->op_place[i] = parts[p].gpu && parts[p].delegated ? LG_PLACE_GPU : LG_PLACE_CPU;
    }
    rep->partitions = parts;
    rep->n_partitions = n_parts;
    free(ready);
    free(done);
    free(subset);
    return LG_OK;
oom:
    free(ready);
    free(done);
    free(subset);
    free(parts);
    return LG_ERR_NOMEM;
}

/* The split point for a too-large graph: the op boundary near the middle where the fewest
   tensors cross (produced before, consumed at or after). */
static void suggest_split(ck *c, lg_check_report *rep, uint32_t max_ops) {
    const lg_subgraph *sg = c->sg;
    uint32_t n = sg->n_ops;
    if (rep->n_gpu_ops <= max_ops || n < 4) return;
    int32_t *last_use = malloc((sg->n_tensors ? sg->n_tensors : 1) * sizeof(int32_t));
    if (!last_use) { c->oom = LG_ERR_NOMEM; return; }
    for (uint32_t t = 0; t < sg->n_tensors; t++) last_use[t] = -1;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < sg->ops[i].n_inputs; k++) {
            int32_t t = sg->ops[i].inputs[k];
            if (t >= 0 && t < (int32_t)sg->n_tensors) last_use[t] = (int32_t)i;
        }
    for (uint32_t k = 0; k < sg->n_outputs; k++)
        if (sg->outputs[k] >= 0 && sg->outputs[k] < (int32_t)sg->n_tensors) last_use[sg->outputs[k]] = (int32_t)n;
    uint32_t best = n / 2, best_cross = UINT32_MAX;
    for (uint32_t cut = n / 4; cut <= 3 * n / 4; cut++) {
        uint32_t cross = 0;
        for (uint32_t t = 0; t < sg->n_tensors; t++) {
            int32_t p = c->producer[t];
            if (c->is_const[t] && p < 0) continue;
            if (p < (int32_t)cut && last_use[t] >= (int32_t)cut) cross++;
        }
        uint32_t dist = cut > n / 2 ? cut - n / 2 : n / 2 - cut;
        uint32_t bdist = best > n / 2 ? best - n / 2 : n / 2 - best;
        if (cross < best_cross || (cross == best_cross && dist < bdist)) {
            best_cross = cross;
            best = cut;
        }
    }
    free(last_use);
    char fix[200];
    snprintf(fix, sizeof fix, "split the graph before op %u (%s): %u tensor(s) cross there; run the two "
             "parts as two models", best, lg_op_name(c->m, &sg->ops[best]), best_cross);
    add(c, R_GRAPH_SIZE, NULL, fix, "%u ops would be delegated (more than %u); whole-graph shader "
        "compilation may fail on Mali", rep->n_gpu_ops, max_ops);
    if (c->n_f) c->f[c->n_f - 1].op = (int32_t)best;
}

/* ------------------------------------------------------------------ driver */

static int cmp_finding(const void *a, const void *b) {
    const lg_finding *x = a, *y = b;
    if (x->op != y->op) return x->op < y->op ? -1 : 1;
    if (x->rule != y->rule) return x->rule < y->rule ? -1 : 1;
    return 0;
}

void lg_check_report_free(lg_check_report *r) {
    if (!r) return;
    free(r->findings);
    free(r->partitions);
    free(r->op_place);
    free(r);
}

lg_status lg_check_model(const lg_model *m, const lg_check_options *opt, lg_check_report **out,
                         lg_error *err) {
    lgi_error_clear(err);
    if (!m || !out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_check_model: NULL argument");
    *out = NULL;
    LG_TRY(lg_model_validate(m, err));
    if (m->n_subgraphs == 0) return lgi_fail(err, LG_ERR_INVALID_ARG, "the model has no subgraph");
    lg_target target = opt ? opt->target : LG_TARGET_MLDRIFT;
    if ((unsigned)target >= LG_TARGET_COUNT) return lgi_fail(err, LG_ERR_INVALID_ARG, "unknown target %d", (int)target);
    uint32_t max_ops = opt && opt->max_gpu_ops ? opt->max_gpu_ops : 900;

    static opsets sets;
    static int sets_ready;
    if (!sets_ready) { opsets_init(&sets); sets_ready = 1; }

    ck c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.sg = &m->subgraphs[0];
    c.target = target;
    c.sets = &sets;
    const lg_subgraph *sg = c.sg;
    uint32_t nt = sg->n_tensors ? sg->n_tensors : 1, no = sg->n_ops ? sg->n_ops : 1;
    lg_check_report *rep = calloc(1, sizeof *rep);
    c.is_const = calloc(nt, 1);
    c.producer = malloc(nt * sizeof(int32_t));
    c.n_consumers = calloc(nt, sizeof(uint32_t));
    c.folded = calloc(no, 1);
    c.blocked = calloc(no, 1);
    uint8_t *supported = calloc(no, 1);
    if (rep) rep->op_place = calloc(no, 1);
    lg_status st = LG_OK;
    if (!rep || !c.is_const || !c.producer || !c.n_consumers || !c.folded || !c.blocked || !supported ||
        !rep->op_place) {
        st = lgi_fail(err, LG_ERR_NOMEM, "out of memory checking the model");
        goto done;
    }
    rep->target = target;
    rep->n_ops = sg->n_ops;

    for (uint32_t t = 0; t < sg->n_tensors; t++) {
        c.producer[t] = -1;
        c.is_const[t] = lg_tensor_buffer(m, &sg->tensors[t]) != NULL;
    }
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        for (uint32_t k = 0; k < op->n_outputs; k++)
            if (op->outputs[k] >= 0 && c.producer[op->outputs[k]] < 0) c.producer[op->outputs[k]] = (int32_t)i;
        for (uint32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0) c.n_consumers[op->inputs[k]]++;
    }
    for (uint32_t k = 0; k < sg->n_outputs; k++)
        if (sg->outputs[k] >= 0) c.n_consumers[sg->outputs[k]]++;
    /* fp16 weights: DEQUANTIZE of a FLOAT16 constant is folded by the delegate */
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        if (lg_op_builtin(m, op) != LG_OP_DEQUANTIZE || op->n_inputs != 1 || op->n_outputs != 1) continue;
        int32_t in = op->inputs[0];
        if (in >= 0 && c.is_const[in] && sg->tensors[in].type == LG_FLOAT16) {
            c.folded[i] = 1;
            if (op->outputs[0] >= 0) c.is_const[op->outputs[0]] = 1;
        }
    }

    /* model-level */
    for (uint32_t k = 0; k < sg->n_inputs; k++) {
        int32_t t = sg->inputs[k];
        const lg_tensor *x = &sg->tensors[t];
        for (uint32_t d = 0; d < x->n_shape_signature; d++)
            if (x->shape_signature[d] < 0) {
                char s1[64];
                lg_finding *f = add(&c, R_DYNAMIC_INPUT, NULL, NULL, "input %d \"%s\" %s has a dynamic dimension %u (shape_signature -1)",
                                    t, tname(&c, t), shp(&c, t, s1, sizeof s1), d);
                with_tensor(f, t);
                break;
            }
    }

    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        opx x;
        memset(&x, 0, sizeof x);
        x.op = op;
        x.idx = (int32_t)i;
        x.code = lg_op_builtin(m, op);
        x.name = lg_op_name(m, op);
        for (uint32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k];
            if (t < 0) continue;
            if (x.n_in < 16) x.in[x.n_in] = t;
            x.n_in++;
            if (c.is_const[t]) x.n_const++;
            else x.n_rt++;
        }
        if (c.folded[i]) continue;
        char s1[64];

        /* which parser */
        if (x.code == LG_OP_CUSTOM) {
            const char *cc = m->opcodes[op->opcode_index].custom_code;
            if (!custom_supported(target, cc))
                add(&c, R_CUSTOM_OP_UNSUPPORTED, &x, NULL, "Not supported custom op %s", cc ? cc : "(no name)");
        } else if (!sets.parser[target][x.code]) {
            add(&c, R_OP_UNSUPPORTED, &x, fix_for_unsupported(x.code), "%s: Operation is not supported%s", x.name,
                target == LG_TARGET_CLASSIC && sets.parser[LG_TARGET_MLDRIFT][x.code] ? " (ML Drift takes it)" :
                target == LG_TARGET_MLDRIFT && sets.parser[LG_TARGET_CLASSIC][x.code] ? " (the classic delegate takes it)" : "");
        } else if (target == LG_TARGET_MLDRIFT && !sets.compat[x.code] && x.code != LG_OP_ARG_MAX &&
                   x.code != LG_OP_UNPACK && x.code != LG_OP_STABLEHLO_COMPOSITE) {
            add(&c, R_OP_NO_COMPAT_CASE, &x, NULL, "Not supported op %s", x.name);
        }

        if (x.code == LG_OP_STABLEHLO_COMPOSITE && target == LG_TARGET_MLDRIFT) {
            const lg_stablehlo_composite_options *co =
                op->opts_kind == LG_OPTS_STABLEHLO_COMPOSITE_OPTIONS ? op->opts : NULL;
            const char *nm = co ? co->name : NULL;
            if (!composite_supported(nm))
                add(&c, R_CUSTOM_OP_UNSUPPORTED, &x, "lower the composite to its decomposition (builtin ops) at export",
                    "Not supported composite %s", nm ? nm : "(no name)");
        }
        if (field_banned(x.code) && sets.parser[target][x.code])
            add(&c, R_FIELD_BANNED_OP, &x, NULL, "%s: the field notes saw it keep models off the phone's GPU", x.name);

        /* version */
        int maxv = max_version(target, x.code);
        if (maxv > 0 && x.code != LG_OP_CUSTOM) {
            int stored = op->opcode_index < m->n_opcodes ? m->opcodes[op->opcode_index].version : 1;
            char why[128];
            int computed = lgi_op_version_reason(m, sg, op, why, sizeof why);
            int v = stored > computed ? stored : computed;
            if (v > maxv) {
                const char *fix = NULL;
                if (computed > maxv && x.code == LG_OP_TRANSPOSE_CONV)
                    fix = "unfuse the activation: TRANSPOSE_CONV without activation, then a RELU op (version 3); "
                          "on Mali, use the ZeroStuff transposed conv instead";
                else if (computed > maxv && strstr(why, "FLOAT16"))
                    fix = "keep runtime tensors FLOAT32 (store weights as FLOAT16 + DEQUANTIZE, which the delegate folds)";
                else if (computed <= maxv)
                    fix = "the file stores a higher version than the op's properties need: re-export, or set the "
                          "opcode version to the computed one";
                add(&c, R_OP_VERSION, &x, fix, "%s version %d > max %d (stored %d; computed %d: %s)", x.name, v, maxv,
                    stored, computed, why);
            }
        }

        /* tensors: rank, dtype, int64, per-channel quant */
        for (uint32_t k = 0; k < op->n_inputs + op->n_outputs; k++) {
            int is_in = k < op->n_inputs;
            int32_t t = is_in ? op->inputs[k] : op->outputs[k - op->n_inputs];
            if (t < 0) continue;
            const lg_tensor *tt = &sg->tensors[t];
            if (tt->rank >= 5) {
                lg_finding *f = add(&c, R_TENSOR_RANK, &x, NULL, "Tensor dimensions must be less than 5. %s %s (tensor %d \"%s\")",
                                    is_in ? "input" : "output", shp(&c, t, s1, sizeof s1), t, tname(&c, t));
                with_tensor(f, t);
            }
            if (c.is_const[t] && is_in) continue;
            if (tt->type == LG_INT64) {
                lg_finding *f = add(&c, R_INT64_TENSOR, &x, NULL, "Tensor type(INT64) is not supported: %s %d \"%s\"",
                                    is_in ? "input" : "output", t, tname(&c, t));
                with_tensor(f, t);
            } else if (x.code != LG_OP_CUSTOM && sets.parser[target][x.code] &&
                       !dtype_ok(&c, x.code, tt->type, is_in, (int)k)) {
                lg_finding *f = add(&c, R_TENSOR_DTYPE, &x, NULL, "Tensor type(%s) is not supported: %s %d \"%s\" of %s",
                                    lg_dtype_name(tt->type), is_in ? "input" : "output", t, tname(&c, t), x.name);
                with_tensor(f, t);
            }
            if (tt->quant && tt->quant->n_scale > 1 && is_q8(tt->type)) {
                lg_finding *f = add(&c, R_QUANT_PER_CHANNEL_RUNTIME, &x, NULL, "Unsupported quantization scale size: runtime tensor %d \"%s\" has %u scales",
                                    t, tname(&c, t), tt->quant->n_scale);
                with_tensor(f, t);
            }
        }

        /* field rules that look at the whole op */
        if (x.n_in > 0 && x.n_rt == 0 && x.code != LG_OP_DENSIFY && x.code != LG_OP_DEQUANTIZE) {
            add(&c, R_CONST_ONLY_INPUTS, &x, NULL, "%s: all %d input(s) are constant (\"Expected 1 const input tensor(s), but node has %d const input(s)\")",
                x.name, x.n_in, x.n_const);
        }
        if ((x.code == LG_OP_MUL || x.code == LG_OP_ADD) && op->n_inputs == 2) {
            for (int k = 0; k < 2; k++) {
                int32_t a = op->inputs[k], b = op->inputs[1 - k];
                if (a < 0 || b < 0) continue;
                int32_t p = c.producer[a];
                if (p < 0 || lg_op_builtin(m, &sg->ops[p]) != LG_OP_FULLY_CONNECTED) continue;
                const lg_tensor *fa = &sg->tensors[a], *fb = &sg->tensors[b];
                if (fa->rank == 2 && fa->shape[0] > 1 && fb->rank >= 3) {
                    char s2[64];
                    lg_finding *f = add(&c, R_FC_2D_BROADCAST, &x, NULL,
                                        "FULLY_CONNECTED (op %d) output %s (read as {%d,1,1,%d}) meets %s %s",
                                        p, shp(&c, a, s1, sizeof s1), fa->shape[0], fa->shape[1], x.name, shp(&c, b, s2, sizeof s2));
                    with_tensor(f, a);
                    with_tensor(f, b);
                }
            }
        }

        if (x.code != LG_OP_CUSTOM) check_op(&c, &x);
        if (c.oom) break;
    }
    if (c.oom) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory checking the model"); goto done; }

    for (uint32_t i = 0; i < sg->n_ops; i++) supported[i] = c.folded[i] || !c.blocked[i];
    st = partition(&c, supported, rep);
    if (st != LG_OK) { lgi_fail(err, st, "out of memory partitioning the model"); goto done; }
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        if (rep->op_place[i] == LG_PLACE_GPU) rep->n_gpu_ops++;
        else if (rep->op_place[i] == LG_PLACE_FOLDED) rep->n_folded_ops++;
        else rep->n_cpu_ops++;
        if (!c.folded[i] && supported[i]) rep->n_supported_ops++;
    }
    suggest_split(&c, rep, max_ops);
    if (c.oom) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory checking the model"); goto done; }

    if (c.n_f) qsort(c.f, c.n_f, sizeof *c.f, cmp_finding);
    for (uint32_t i = 0; i < c.n_f; i++) {
        if (c.f[i].rule->severity == LG_SEV_BLOCKER) rep->n_blockers++;
        else rep->n_warnings++;
    }
    rep->findings = c.f;
    rep->n_findings = c.n_f;
    c.f = NULL;
    rep->ready = rep->n_blockers == 0;
    *out = rep;
    rep = NULL;
done:
    free(c.is_const);
    free(c.producer);
    free(c.n_consumers);
    free(c.folded);
    free(c.blocked);
    free(c.f);
    free(supported);
    lg_check_report_free(rep);
    return st;
}
