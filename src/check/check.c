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
#include "check/check_impl.h"
#include "util/half.h"

/* ------------------------------------------------------------------ rule table */


const lg_rule_info lgc_rule_table[R_COUNT] = {
#define RULE(sym, id, sev, tg, kind, src, title, fix, doc) {id, sev, tg, kind, src, title, fix, doc},
#include "check/rules.def"
#undef RULE
};

const lg_rule_info *lg_rules(uint32_t *n) {
    if (n) *n = R_COUNT;
    return lgc_rule_table;
}

const lg_rule_info *lg_rule_find(const char *id) {
    for (int i = 0; i < R_COUNT; i++)
        if (strcmp(lgc_rule_table[i].id, id) == 0) return &lgc_rule_table[i];
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

/* ------------------------------------------------------------------ context helpers */
const lg_tensor *lgc_T(const ck *c, int32_t i) { return &c->sg->tensors[i]; }

lg_finding *lgc_add(ck *c, int rule, const opx *x, const char *fix, const char *fmt, ...) {
    const lg_rule_info *ri = &lgc_rule_table[rule];
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

void lgc_with_tensor(lg_finding *f, int32_t t) {
    if (f && f->n_tensors < 4 && t >= 0) f->tensors[f->n_tensors++] = t;
}

/* Shape as "[1,8,8,3]". */
const char *lgc_shp(const ck *c, int32_t t, char *buf, size_t n) {
    const lg_tensor *x = lgc_T(c, t);
    size_t k = 0;
    k += (size_t)snprintf(buf + k, n - k, "[");
    for (uint32_t i = 0; i < x->rank && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? "," : "", x->shape[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
    return buf;
}

const char *lgc_tname(const ck *c, int32_t t) {
    const char *n = lgc_T(c, t)->name;
    return n ? n : "";
}

/* Read element i of a constant integer tensor (INT32 or INT64). */
int lgc_const_int(const ck *c, int32_t t, uint32_t i, int64_t *v) {
    const lg_tensor *x = lgc_T(c, t);
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

int lgc_const_float(const ck *c, int32_t t, uint32_t i, double *v) {
    const lg_tensor *x = lgc_T(c, t);
    const lg_buffer *b = lg_tensor_buffer(c->m, x);
    if (!b) {
        /* the output of a folded DEQUANTIZE: read its FLOAT16 constant */
        int32_t p = c->producer[t];
        if (p >= 0 && c->folded[p] && c->sg->ops[p].n_inputs == 1) return lgc_const_float(c, c->sg->ops[p].inputs[0], i, v);
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

int64_t lgc_numel_of(const ck *c, int32_t t) { return lg_tensor_numel(lgc_T(c, t)); }

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
        return lgc_is_compare(op);
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
    lgc_add(c, R_GRAPH_SIZE, NULL, fix, "%u ops would be delegated (more than %u); whole-graph shader "
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
                lg_finding *f = lgc_add(&c, R_DYNAMIC_INPUT, NULL, NULL, "input %d \"%s\" %s has a dynamic dimension %u (shape_signature -1)",
                                    t, lgc_tname(&c, t), lgc_shp(&c, t, s1, sizeof s1), d);
                lgc_with_tensor(f, t);
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
                lgc_add(&c, R_CUSTOM_OP_UNSUPPORTED, &x, NULL, "Not supported custom op %s", cc ? cc : "(no name)");
        } else if (!sets.parser[target][x.code]) {
            lgc_add(&c, R_OP_UNSUPPORTED, &x, fix_for_unsupported(x.code), "%s: Operation is not supported%s", x.name,
                target == LG_TARGET_CLASSIC && sets.parser[LG_TARGET_MLDRIFT][x.code] ? " (ML Drift takes it)" :
                target == LG_TARGET_MLDRIFT && sets.parser[LG_TARGET_CLASSIC][x.code] ? " (the classic delegate takes it)" : "");
        } else if (target == LG_TARGET_MLDRIFT && !sets.compat[x.code] && x.code != LG_OP_ARG_MAX &&
                   x.code != LG_OP_UNPACK && x.code != LG_OP_STABLEHLO_COMPOSITE) {
            lgc_add(&c, R_OP_NO_COMPAT_CASE, &x, NULL, "Not supported op %s", x.name);
        }

        if (x.code == LG_OP_STABLEHLO_COMPOSITE && target == LG_TARGET_MLDRIFT) {
            const lg_stablehlo_composite_options *co =
                op->opts_kind == LG_OPTS_STABLEHLO_COMPOSITE_OPTIONS ? op->opts : NULL;
            const char *nm = co ? co->name : NULL;
            if (!composite_supported(nm))
                lgc_add(&c, R_CUSTOM_OP_UNSUPPORTED, &x, "lower the composite to its decomposition (builtin ops) at export",
                    "Not supported composite %s", nm ? nm : "(no name)");
        }
        if (field_banned(x.code) && sets.parser[target][x.code])
            lgc_add(&c, R_FIELD_BANNED_OP, &x, NULL, "%s: the field notes saw it keep models off the phone's GPU", x.name);

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
                lgc_add(&c, R_OP_VERSION, &x, fix, "%s version %d > max %d (stored %d; computed %d: %s)", x.name, v, maxv,
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
                lg_finding *f = lgc_add(&c, R_TENSOR_RANK, &x, NULL, "Tensor dimensions must be less than 5. %s %s (tensor %d \"%s\")",
                                    is_in ? "input" : "output", lgc_shp(&c, t, s1, sizeof s1), t, lgc_tname(&c, t));
                lgc_with_tensor(f, t);
            }
            if (c.is_const[t] && is_in) continue;
            if (tt->type == LG_INT64) {
                lg_finding *f = lgc_add(&c, R_INT64_TENSOR, &x, NULL, "Tensor type(INT64) is not supported: %s %d \"%s\"",
                                    is_in ? "input" : "output", t, lgc_tname(&c, t));
                lgc_with_tensor(f, t);
            } else if (x.code != LG_OP_CUSTOM && sets.parser[target][x.code] &&
                       !lgc_dtype_ok(&c, x.code, tt->type, is_in, (int)k)) {
                lg_finding *f = lgc_add(&c, R_TENSOR_DTYPE, &x, NULL, "Tensor type(%s) is not supported: %s %d \"%s\" of %s",
                                    lg_dtype_name(tt->type), is_in ? "input" : "output", t, lgc_tname(&c, t), x.name);
                lgc_with_tensor(f, t);
            }
            if (tt->quant && tt->quant->n_scale > 1 && lgc_is_q8(tt->type)) {
                lg_finding *f = lgc_add(&c, R_QUANT_PER_CHANNEL_RUNTIME, &x, NULL, "Unsupported quantization scale size: runtime tensor %d \"%s\" has %u scales",
                                    t, lgc_tname(&c, t), tt->quant->n_scale);
                lgc_with_tensor(f, t);
            }
        }

        /* field rules that look at the whole op */
        if (x.n_in > 0 && x.n_rt == 0 && x.code != LG_OP_DENSIFY && x.code != LG_OP_DEQUANTIZE) {
            lgc_add(&c, R_CONST_ONLY_INPUTS, &x, NULL, "%s: all %d input(s) are constant (\"Expected 1 const input tensor(s), but node has %d const input(s)\")",
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
                    lg_finding *f = lgc_add(&c, R_FC_2D_BROADCAST, &x, NULL,
                                        "FULLY_CONNECTED (op %d) output %s (read as {%d,1,1,%d}) meets %s %s",
                                        p, lgc_shp(&c, a, s1, sizeof s1), fa->shape[0], fa->shape[1], x.name, lgc_shp(&c, b, s2, sizeof s2));
                    lgc_with_tensor(f, a);
                    lgc_with_tensor(f, b);
                }
            }
        }

        if (x.code != LG_OP_CUSTOM) lgc_check_op(&c, &x);
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
