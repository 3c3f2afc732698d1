/* litegpu quantize (include/lg/quantize.h): choose the constants to store in fewer bits,
 * store them (quant_weights.c), record what was done, measure the result against the input
 * (quant_measure.c) and check it.
 *
 * The edits work on a copy whose tensor indices are the input's (lg_model_clone keeps them):
 * new constants and DEQUANTIZE ops are appended or inserted at the front, then the copy is
 * compacted, and the compaction's map ties every tensor of the result to the input's.
 */
#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/op_version.h"
#include "lg/graph.h"
#include "lg/ops.h"
#include "passes/quant_impl.h"
#include "passes/quant_measure.h"
#include "passes/quant_static.h"
#include "passes/quant_sweep.h"
#include "util/half.h"

static const char *const mode_names[LG_QUANT_MODE_COUNT] = {"fp16", "int8-weights", "int4-weights", "int8-dynamic",
                                                            "int8-static"};

const char *lg_quant_mode_name(lg_quant_mode m) {
    return (unsigned)m < LG_QUANT_MODE_COUNT ? mode_names[m] : "?";
}

int lg_quant_mode_from_name(const char *s) {
    for (int i = 0; s && i < LG_QUANT_MODE_COUNT; i++)
        if (strcmp(s, mode_names[i]) == 0) return i;
    return -1;
}

bool lg_quant_mode_supported(lg_quant_mode m) { return (unsigned)m < LG_QUANT_MODE_COUNT; }

/* What the GPU delegates do with each stored form: shared/reference/conversion-quantization-
   pruning.md, "What the GPU delegates do with quantized models" (LiteRT
   tflite/delegates/gpu/common/), and the DEQUANTIZE version limit measured on ML Drift. */
static const char gpu_fp16[] =
    "FLOAT16 constants read by DEQUANTIZE are folded by both GPU delegates at load (widened to the precision the "
    "delegate runs in): half the download, the same arithmetic as the float model";
static const char gpu_int[] =
    "the GPU delegates dequantize INT8/INT4 constant weights to float at load (DequantizeConstantTensor, per-channel "
    "aware): a smaller download, no int8 arithmetic; but both take DEQUANTIZE only up to version 3: per-tensor INT8 "
    "is version 2, per-channel INT8 version 5 and INT4 version 6, which ML Drift refuses (\"Max version supported: "
    "3\", LiteRT.js 2.5.3 WebGPU) and leaves on the CPU";

/* ------------------------------------------------------------------ context */

typedef struct qpat {
    int32_t code;        /* a builtin op name, or -1: a regex */
    regex_t re;
    bool compiled;
} qpat;

typedef struct qctx {
    const lg_model *src;
    lg_model *m;               /* the copy being edited */
    const lg_quant_options *o;
    lg_quant_report *r;
    lg_error *err;
    const lg_graph *g;         /* of src */
    qpat *pats;
    uint8_t *op_excluded;      /* per op of src */
    uint8_t *seen;             /* per tensor of src: handled (converted or skipped) */
    uint32_t n_inserted;       /* DEQUANTIZE ops inserted at the front of the copy */
    uint32_t cap_w, cap_s;
    int32_t *drop_ops;         /* DEQUANTIZE ops of src whose fp16 bias became a FLOAT32 constant */
    uint32_t n_drop;
} qctx;

static const lg_subgraph *ssg(const qctx *c) { return &c->src->subgraphs[0]; }

/* ------------------------------------------------------------------ report lists */

static lg_status grow(qctx *c, void **arr, uint32_t n, uint32_t *cap, size_t elem) {
    if (n < *cap) return LG_OK;
    uint32_t nc = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, (size_t)nc * elem);
    if (!p) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    *arr = p;
    *cap = nc;
    return LG_OK;
}

static lg_status add_skip(qctx *c, int32_t t, int32_t op, bool excluded, const char *fmt, ...) LGI_PRINTF(5, 6);
static lg_status add_skip(qctx *c, int32_t t, int32_t op, bool excluded, const char *fmt, ...) {
    lg_quant_report *r = c->r;
    LG_TRY(grow(c, (void **)&r->skipped, r->n_skipped, &c->cap_s, sizeof *r->skipped));
    lg_quant_skip *s = &r->skipped[r->n_skipped++];
    memset(s, 0, sizeof *s);
    s->tensor = t;
    s->op = op;
    s->excluded = excluded;
    const char *nm = ssg(c)->tensors[t].name;
    s->name = strdup(nm ? nm : "");
    if (!s->name) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof s->why, fmt, ap);
    va_end(ap);
    if (excluded) r->n_excluded++;
    return LG_OK;
}

static lg_quant_weight *add_weight(qctx *c, int32_t t, int32_t op) {
    lg_quant_report *r = c->r;
    if (grow(c, (void **)&r->weights, r->n_weights, &c->cap_w, sizeof *r->weights) != LG_OK) return NULL;
    lg_quant_weight *w = &r->weights[r->n_weights++];
    memset(w, 0, sizeof *w);
    w->tensor = t;
    w->op = op;
    w->code = lg_op_builtin(c->src, &ssg(c)->ops[op]);
    w->axis = -1;
    const char *nm = ssg(c)->tensors[t].name;
    w->name = strdup(nm ? nm : "");
    w->numel = lg_tensor_numel(&ssg(c)->tensors[t]);
    if (!w->name) {
        r->n_weights--;
        return NULL;
    }
    return w;
}

/* The name of the copy's tensor that now holds w's data. */
static lg_status set_stored(qctx *c, lg_quant_weight *w, int32_t t) {
    const char *nm = c->m->subgraphs[0].tensors[t].name;
    w->stored = strdup(nm ? nm : "");
    return w->stored ? LG_OK : lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
}

/* ------------------------------------------------------------------ checks before */

static bool is_int_storage(int t) {
    return t == LG_INT8 || t == LG_UINT8 || t == LG_INT16 || t == LG_INT4 || t == LG_INT2 || t == LG_UINT4;
}

/* A model with quantized tensors is refused: its weights are not float any more. */
static lg_status refuse_quantized(const lg_model *m, lg_error *err) {
    for (uint32_t s = 0; s < m->n_subgraphs; s++) {
        const lg_subgraph *sg = &m->subgraphs[s];
        for (uint32_t t = 0; t < sg->n_tensors; t++) {
            const lg_tensor *x = &sg->tensors[t];
            const lg_quant *q = x->quant;
            bool params = q && (q->n_scale || q->details_kind != LG_OPTS_NONE);
            if (!params) continue;
            bool cst = lg_tensor_is_const(m, s, (int32_t)t);
            if (cst && !is_int_storage(x->type)) continue; /* quantization on a float constant: nothing stored */
            return lgi_fail_at(err, LG_ERR_INVALID_ARG, (int32_t)s, -1, (int32_t)t,
                               "already quantized: %s tensor %u \"%s\" is %s with quantization parameters (quantize a float model)",
                               cst ? "constant" : "runtime", t, lgi_printable(x->name).s, lg_dtype_name(x->type));
        }
    }
    return LG_OK;
}

static lg_status check_options(const lg_quant_options *o, lg_error *err) {
    if ((unsigned)o->mode >= LG_QUANT_MODE_COUNT) return lgi_fail(err, LG_ERR_INVALID_ARG, "unknown quantization mode %d", (int)o->mode);
    if (!lg_quant_mode_supported(o->mode))
        return lgi_fail(err, LG_ERR_UNSUPPORTED, "%s is not implemented yet (implemented: fp16, int8-weights, int4-weights, int8-dynamic, int8-static)",
                        lg_quant_mode_name(o->mode));
    if (o->block_size) {
        uint32_t b = o->block_size;
        if (o->mode != LG_QUANT_INT4_WEIGHTS) return lgi_fail(err, LG_ERR_INVALID_ARG, "a block size goes with int4-weights");
        if (o->per_tensor) return lgi_fail(err, LG_ERR_INVALID_ARG, "a block size and per-tensor scales exclude each other");
        if (b < LG_QUANT_BLOCK_MIN || b > LG_QUANT_BLOCK_MAX || (b & (b - 1)))
            return lgi_fail(err, LG_ERR_INVALID_ARG, "block size %u: 32, 64, 128 or 256", b);
    }
    if (o->per_tensor && o->mode == LG_QUANT_FP16) return lgi_fail(err, LG_ERR_INVALID_ARG, "per-tensor scales go with int8/int4");
    if (o->n_exclude && !o->exclude) return lgi_fail(err, LG_ERR_INVALID_ARG, "exclude patterns: a count but no list");
    LG_TRY(lgq_sweep_check(o, err));
    return LG_OK;
}

/* ------------------------------------------------------------------ exclusion */

static int32_t builtin_named(const char *p) {
    char up[64];
    size_t n = strlen(p);
    if (n == 0 || n >= sizeof up) return -1;
    for (size_t i = 0; i <= n; i++) up[i] = (char)toupper((unsigned char)p[i]);
    return lg_builtin_from_name(up);
}

static lg_status compile_patterns(qctx *c) {
    const lg_quant_options *o = c->o;
    c->r->n_exclude = o->n_exclude;
    c->r->exclude_hits = calloc(o->n_exclude ? o->n_exclude : 1, sizeof *c->r->exclude_hits);
    c->pats = calloc(o->n_exclude ? o->n_exclude : 1, sizeof *c->pats);
    if (!c->r->exclude_hits || !c->pats) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    for (uint32_t k = 0; k < o->n_exclude; k++) {
        const char *p = o->exclude[k] ? o->exclude[k] : "";
        if (!p[0]) return lgi_fail(c->err, LG_ERR_INVALID_ARG, "exclude pattern %u is empty", k);
        c->pats[k].code = builtin_named(p);
        if (c->pats[k].code >= 0) continue;
        int rc = regcomp(&c->pats[k].re, p, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[128];
            regerror(rc, &c->pats[k].re, why, sizeof why);
            return lgi_fail(c->err, LG_ERR_INVALID_ARG, "exclude \"%s\" is neither an op name nor a regular expression: %s",
                            lgi_printable(p).s, why);
        }
        c->pats[k].compiled = true;
    }
    return LG_OK;
}

static void free_patterns(qctx *c) {
    for (uint32_t k = 0; c->pats && k < c->o->n_exclude; k++)
        if (c->pats[k].compiled) regfree(&c->pats[k].re);
    free(c->pats);
}

static void mark_excluded(qctx *c) {
    const lg_subgraph *sg = ssg(c);
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        int32_t code = lg_op_builtin(c->src, op);
        for (uint32_t k = 0; k < c->o->n_exclude; k++) {
            bool hit = c->pats[k].code >= 0 && c->pats[k].code == code;
            for (uint32_t j = 0; !hit && c->pats[k].compiled && j < op->n_outputs; j++) {
                int32_t t = op->outputs[j];
                const char *nm = t >= 0 ? sg->tensors[t].name : NULL;
                hit = nm && regexec(&c->pats[k].re, nm, 0, NULL, 0) == 0;
            }
            if (hit) {
                c->op_excluded[i] = 1;
                c->r->exclude_hits[k]++;
            }
        }
    }
}

/* The first op reading t that is excluded, or -1. */
static int32_t excluded_reader(const qctx *c, int32_t t) {
    uint32_t n = 0;
    const lg_use *u = lg_graph_uses(c->g, t, &n);
    for (uint32_t k = 0; k < n; k++)
        if (c->op_excluded[u[k].op]) return u[k].op;
    return -1;
}

/* ------------------------------------------------------------------ fp16 */

static lg_status do_fp16(qctx *c) {
    const lg_subgraph *sg = ssg(c);
    for (uint32_t t = 0; t < sg->n_tensors; t++) {
        const lg_tensor *x = &sg->tensors[t];
        if (!lg_tensor_is_const(c->src, 0, (int32_t)t) || x->is_variable) continue;
        uint32_t n_use = 0;
        const lg_use *u = lg_graph_uses(c->g, (int32_t)t, &n_use);
        if (!n_use || lg_graph_is_output(c->g, (int32_t)t)) continue;
        if (x->type == LG_FLOAT16) {
            c->r->n_already++;
            continue;
        }
        if (x->type != LG_FLOAT32) continue;
        int32_t ex = excluded_reader(c, (int32_t)t);
        if (ex >= 0) {
            LG_TRY(add_skip(c, (int32_t)t, ex, true, "read by excluded op %d %s", ex, lg_op_name(c->src, &sg->ops[ex])));
            continue;
        }
        if (x->sparsity) {
            LG_TRY(add_skip(c, (int32_t)t, u[0].op, false, "sparse (read through DENSIFY): kept as it is"));
            continue;
        }
        lg_quant_weight *w = add_weight(c, (int32_t)t, u[0].op);
        if (!w) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        const lg_buffer *b = lg_tensor_buffer(c->src, x);
        double ma = 0, me = 0;
        for (int64_t i = 0; i < w->numel; i++) {
            float f;
            memcpy(&f, b->data + 4 * i, 4);
            float h = lg_half_to_float(lgq_to_half(f));
            if (fabs((double)f) > ma) ma = fabs((double)f);
            if (isfinite(f) && fabs((double)f - h) > me) me = fabs((double)f - h);
        }
        w->from_type = LG_FLOAT32;
        w->to_type = LG_FLOAT16;
        w->bytes_before = (uint64_t)w->numel * 4;
        w->bytes_after = (uint64_t)w->numel * 2;
        w->max_abs = ma;
        w->max_err = me;
        int32_t h = -1;
        LG_TRY(lg_const_to_fp16(c->m, 0, (int32_t)t, c->n_inserted, &h, c->err));
        c->n_inserted++;
        LG_TRY(set_stored(c, w, h));
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ int8 / int4 weights */

/* The weight input of op i and its output-channel axis, or false. */
static bool weight_slot(const qctx *c, uint32_t i, uint32_t *slot, int32_t *axis) {
    const lg_op *op = &ssg(c)->ops[i];
    if (c->o->mode == LG_QUANT_INT8_DYNAMIC) return lgq_dyn_slot(c->src, ssg(c), i, slot, axis); /* quant_dynamic.c */
    switch (lg_op_builtin(c->src, op)) {
    case LG_OP_FULLY_CONNECTED: *slot = 1; *axis = 0; break;     /* [out, in] */
    case LG_OP_CONV_2D: *slot = 1; *axis = 0; break;             /* [out, kh, kw, in] */
    case LG_OP_DEPTHWISE_CONV_2D: *slot = 1; *axis = 3; break;   /* [1, kh, kw, out] */
    case LG_OP_TRANSPOSE_CONV: *slot = 1; *axis = 0; break;      /* [out, kh, kw, in] */
    case LG_OP_EMBEDDING_LOOKUP: *slot = 1; *axis = 0; break;    /* the table: a scale per row */
    case LG_OP_GATHER: {                                         /* the table: a scale per gathered slice */
        const lg_gather_options *g = op->opts_kind == LG_OPTS_GATHER_OPTIONS ? op->opts : NULL;
        int32_t a = g ? g->axis : 0;
        *slot = 0;
        int32_t p = op->n_inputs ? op->inputs[0] : -1;
        int32_t r = p >= 0 ? (int32_t)ssg(c)->tensors[p].rank : 0;
        *axis = a < 0 ? a + r : a;
        if (*axis < 0 || *axis >= r) return false;
        break;
    }
    default: return false;
    }
    return op->n_inputs > *slot && op->inputs[*slot] >= 0;
}

/* The float values of weight w: a FLOAT32 constant, or the output of a DEQUANTIZE of a
   FLOAT16 constant (*deq its op). NULL with *why when it is neither. */
static float *weight_values(qctx *c, int32_t w, int32_t *deq, int8_t *from, const char **why) {
    const lg_subgraph *sg = ssg(c);
    const lg_tensor *x = &sg->tensors[w];
    *deq = -1;
    int32_t src = w;
    if (!lg_tensor_is_const(c->src, 0, w)) {
        int32_t p = lg_graph_producer(c->g, w);
        const lg_op *op = p >= 0 ? &sg->ops[p] : NULL;
        if (!op || lg_op_builtin(c->src, op) != LG_OP_DEQUANTIZE || op->n_inputs != 1 || op->inputs[0] < 0 ||
            !lg_tensor_is_const(c->src, 0, op->inputs[0])) {
            *why = "computed at run time";
            return NULL;
        }
        src = op->inputs[0];
        if (sg->tensors[src].type != LG_FLOAT16) {
            *why = "already stored quantized";
            return NULL;
        }
        *deq = p;
    } else if (x->type != LG_FLOAT32) {
        *why = "not a float constant";
        return NULL;
    }
    const lg_tensor *s = &sg->tensors[src];
    if (s->sparsity) {
        *why = "sparse (read through DENSIFY): kept as it is";
        return NULL;
    }
    int64_t n = lg_tensor_numel(s);
    const lg_buffer *b = lg_tensor_buffer(c->src, s);
    uint64_t es = s->type == LG_FLOAT16 ? 2 : 4;
    if (n <= 0 || !b || b->size != (uint64_t)n * es) {
        *why = "empty or malformed constant";
        return NULL;
    }
    float *v = malloc((size_t)n * sizeof *v);
    if (!v) {
        *why = "out of memory";
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        if (es == 2) {
            v[i] = lg_half_to_float(lgi_rd_u16(b->data + 2 * i));
        } else {
            uint32_t u = lgi_rd_u32(b->data + 4 * i);
            memcpy(&v[i], &u, 4);
        }
        if (!isfinite(v[i])) {
            free(v);
            *why = "holds inf or NaN";
            return NULL;
        }
    }
    *from = (int8_t)s->type;
    return v;
}

/* Every reader of w takes it as its weight with this axis (and none is excluded): else why. */
static const char *readers_agree(const qctx *c, int32_t w, int32_t axis, int32_t *bad_op, bool *excluded) {
    uint32_t n = 0;
    const lg_use *u = lg_graph_uses(c->g, w, &n);
    *excluded = false;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t slot;
        int32_t a;
        *bad_op = u[k].op;
        if (c->op_excluded[u[k].op]) {
            *excluded = true;
            return "read by an excluded op";
        }
        if (!weight_slot(c, (uint32_t)u[k].op, &slot, &a) || slot != u[k].slot) return "also read as data";
        if (a != axis) return "read by ops with other channel axes";
    }
    if (lg_graph_is_output(c->g, w)) return "a graph output";
    return NULL;
}

/* w is a constant, or the output of a DEQUANTIZE of a constant: a weight to consider. */
static bool stored_weight(const qctx *c, int32_t w) {
    if (lg_tensor_is_const(c->src, 0, w)) return true;
    int32_t p = lg_graph_producer(c->g, w);
    const lg_op *op = p >= 0 ? &ssg(c)->ops[p] : NULL;
    return op && lg_op_builtin(c->src, op) == LG_OP_DEQUANTIZE && op->n_inputs == 1 && op->inputs[0] >= 0 &&
           lg_tensor_is_const(c->src, 0, op->inputs[0]);
}

static lg_status quantize_one(qctx *c, uint32_t op, int32_t w, int32_t axis) {
    const lg_subgraph *sg = ssg(c);
    if (!stored_weight(c, w)) return LG_OK; /* computed at run time (attention, a graph input): not a weight */
    int32_t bad_op = (int32_t)op;
    bool excluded = false;
    const char *why = readers_agree(c, w, axis, &bad_op, &excluded);
    if (why) {
        if (excluded) return add_skip(c, w, bad_op, true, "read by excluded op %d %s", bad_op, lg_op_name(c->src, &sg->ops[bad_op]));
        return add_skip(c, w, bad_op, false, "%s (op %d %s)", why, bad_op, lg_op_name(c->src, &sg->ops[bad_op]));
    }
    int32_t deq = -1;
    int8_t from = LG_FLOAT32;
    float *v = weight_values(c, w, &deq, &from, &why);
    if (!v) {
        if (why && strcmp(why, "out of memory") == 0) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        return add_skip(c, w, (int32_t)op, false, "%s", why);
    }
    const lg_tensor *x = &sg->tensors[w];
    lgq_form f;
    f.type = c->o->mode == LG_QUANT_INT4_WEIGHTS ? LG_INT4 : LG_INT8;
    f.axis = c->o->per_tensor ? -1 : axis;
    f.block = 0;
    if (c->o->block_size && x->rank == 2 && axis == 0 && x->shape[1] % (int32_t)c->o->block_size == 0) f.block = c->o->block_size;
    char dyn_why[160];
    if (c->o->mode == LG_QUANT_INT8_DYNAMIC && lgq_dyn_form(c->src, c->g, w, &f, dyn_why, sizeof dyn_why)) {
        free(v);
        return add_skip(c, w, (int32_t)op, false, "%s", dyn_why);
    }
    /* a weight whose stored form would not be smaller stays as it is (a FLOAT16 3x3 depthwise
       kernel: 9 values per channel take 18 B, INT8 9 B + a 4 B scale + an 8 B zero point) */
    const int64_t n = lg_tensor_numel(x);
    const uint64_t n_s = f.block ? (uint64_t)(n / f.block) : f.axis >= 0 ? (uint64_t)x->shape[f.axis] : 1;
    const uint64_t after = (f.type == LG_INT4 ? (uint64_t)(n + 1) / 2 : (uint64_t)n) + (f.block ? 2 : 12) * n_s;
    const uint64_t before = (uint64_t)n * (from == LG_FLOAT16 ? 2 : 4);
    if (after >= before) {
        free(v);
        return add_skip(c, w, (int32_t)op, false, "as %s it would take %llu B with its scales, not less than the %llu B it takes as %s",
                        lg_dtype_name(f.type), (unsigned long long)after, (unsigned long long)before, lg_dtype_name(from));
    }
    lgq_result res;
    lg_status st = lgq_store_weight(c->m, 0, w, v, &f, &res, c->err);
    free(v);
    if (st != LG_OK) return st;
    lg_quant_weight *rw = add_weight(c, w, (int32_t)op);
    if (!rw) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    rw->from_type = from;
    rw->to_type = (int8_t)f.type;
    rw->axis = f.block ? 0 : f.axis;
    rw->block = f.block;
    rw->n_scales = res.n_scales;
    rw->bytes_before = (uint64_t)rw->numel * (from == LG_FLOAT16 ? 2 : 4);
    rw->bytes_after = res.bytes;
    rw->max_abs = res.max_abs;
    rw->max_err = res.max_err;
    LG_TRY(set_stored(c, rw, res.qtensor));
    if (c->o->mode == LG_QUANT_INT8_DYNAMIC && lgq_dyn_direct(c->src, c->g, w, c->o->per_tensor)) {
        /* a hybrid op reads the INT8 constant itself; the fp16 weight's DEQUANTIZE goes */
        if (deq >= 0 && !c->drop_ops) c->drop_ops = malloc((sg->n_ops ? sg->n_ops : 1) * sizeof *c->drop_ops);
        if (deq >= 0 && !c->drop_ops) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
        if (deq >= 0) c->drop_ops[c->n_drop++] = deq;
        return lgq_dyn_connect(c->m, c->g, w, res.qtensor, c->n_inserted, c->err);
    }
    if (deq >= 0) /* the DEQUANTIZE of the fp16 constant reads the new one; the copy's op index is shifted */
        return lg_op_set_input(c->m, 0, (uint32_t)deq + c->n_inserted, 0, res.qtensor, c->err);
    c->m->subgraphs[0].tensors[w].buffer = 0; /* now computed by the DEQUANTIZE */
    LG_TRY(lg_op_insert(c->m, 0, c->n_inserted, LG_OP_DEQUANTIZE, NULL, 1, &res.qtensor, 1, &w, 1, LG_OPTS_NONE, NULL,
                        c->err));
    c->n_inserted++;
    return LG_OK;
}

/* The bias input of a weight op, or -1. */
static int32_t bias_of(const qctx *c, int32_t op) {
    const lg_op *o = &ssg(c)->ops[op];
    int32_t code = lg_op_builtin(c->src, o);
    uint32_t slot = code == LG_OP_TRANSPOSE_CONV ? 3 : (code == LG_OP_FULLY_CONNECTED || code == LG_OP_CONV_2D ||
                                                        code == LG_OP_DEPTHWISE_CONV_2D) ? 2 : 0;
    return slot && o->n_inputs > slot ? o->inputs[slot] : -1;
}

/* The FLOAT16 bias (a DEQUANTIZE of a FLOAT16 constant) of an op whose weights are now INT8/INT4
   becomes the FLOAT32 constant of the same values (exact: a half widens exactly) and its
   DEQUANTIZE goes: TFLite's weight-only form keeps biases float32, and LiteRT's CPU (XNNPACK)
   computes a convolution whose weights come from an INT8 DEQUANTIZE and whose bias from an
   fp16 DEQUANTIZE in another order than with a constant bias (measured: up to 3e-7 of the
   output apart on one conv, 6e-4 at the end of pose_landmark_lite), while both forms give
   the same numbers here. */
static lg_status widen_bias(qctx *c, int32_t op) {
    const lg_subgraph *sg = ssg(c);
    int32_t b = bias_of(c, op);
    if (b < 0 || c->seen[b] || lg_graph_is_output(c->g, b)) return LG_OK;
    c->seen[b] = 1;
    int32_t p = lg_graph_producer(c->g, b);
    const lg_op *d = p >= 0 ? &sg->ops[p] : NULL;
    if (!d || lg_op_builtin(c->src, d) != LG_OP_DEQUANTIZE || d->n_inputs != 1 || d->n_outputs != 1 || d->inputs[0] < 0)
        return LG_OK;
    const lg_tensor *h = &sg->tensors[d->inputs[0]];
    const lg_buffer *hb = lg_tensor_buffer(c->src, h);
    int64_t n = lg_tensor_numel(h);
    if (h->type != LG_FLOAT16 || h->sparsity || !hb || n < 0 || hb->size != (uint64_t)n * 2 || n != lg_tensor_numel(&sg->tensors[b]))
        return LG_OK;
    float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++) v[i] = lg_half_to_float(lgi_rd_u16(hb->data + 2 * i));
    lg_status st = lg_tensor_set_const(c->m, 0, b, LG_FLOAT32, v, (uint64_t)n * 4, c->err);
    free(v);
    LG_TRY(st);
    if (!c->drop_ops) c->drop_ops = malloc((sg->n_ops ? sg->n_ops : 1) * sizeof *c->drop_ops);
    if (!c->drop_ops) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    c->drop_ops[c->n_drop++] = p;
    c->r->n_bias_fp32++;
    return LG_OK;
}

static int cmp_desc(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x < y) - (x > y);
}

/* Remove the DEQUANTIZEs of the widened biases (the copy's indices: src's + n_inserted). */
static lg_status drop_bias_dequantize(qctx *c) {
    if (!c->n_drop) return LG_OK;
    qsort(c->drop_ops, c->n_drop, sizeof *c->drop_ops, cmp_desc);
    for (uint32_t k = 0; k < c->n_drop; k++)
        LG_TRY(lg_op_remove(c->m, 0, (uint32_t)c->drop_ops[k] + c->n_inserted, c->err));
    return LG_OK;
}

static lg_status do_weights(qctx *c) {
    const lg_subgraph *sg = ssg(c);
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        uint32_t slot;
        int32_t axis;
        if (!weight_slot(c, i, &slot, &axis)) continue;
        int32_t w = sg->ops[i].inputs[slot];
        if (c->seen[w]) continue;
        c->seen[w] = 1;
        const lg_tensor *x = &sg->tensors[w];
        if (x->rank < 1 || (uint32_t)axis >= x->rank) {
            LG_TRY(add_skip(c, w, (int32_t)i, false, "rank %u has no axis %d", x->rank, axis));
            continue;
        }
        uint32_t before = c->r->n_weights;
        LG_TRY(quantize_one(c, i, w, axis));
        if (c->r->n_weights == before) continue;
        uint32_t n_use = 0;
        const lg_use *u = lg_graph_uses(c->g, w, &n_use);
        for (uint32_t k = 0; k < n_use; k++) LG_TRY(widen_bias(c, u[k].op));
    }
    return drop_bias_dequantize(c);
}

/* ------------------------------------------------------------------ the result */

/* The "litegpu.quantize" metadata: what was done, and the calibration manifest (every file,
   however many: the string grows). */
static lg_status make_metadata(const qctx *c, char **out) {
    const lg_quant_options *o = c->o;
    lgq_str b = {0};
    const char *gran = o->mode == LG_QUANT_FP16 ? "none" : o->per_tensor ? "per-tensor" : o->block_size ? "blockwise" : "per-channel";
    lgq_str_put(&b, "{\"tool\":\"litegpu %s\",\"mode\":\"%s\",\"granularity\":\"%s\",\"block\":%u,\"n_weights\":%u,\"exclude\":[",
                lg_version(), lg_quant_mode_name(o->mode), gran, o->block_size, c->r->n_weights);
    for (uint32_t k = 0; k < o->n_exclude; k++) {
        lgq_str_put(&b, "%s\"", k ? "," : "");
        lgq_str_esc(&b, o->exclude[k]);
        lgq_str_put(&b, "\"");
    }
    lgq_str_put(&b, "],\"calibration\":[");
    for (uint32_t k = 0; k < o->n_calib_files; k++) {
        lgq_str_put(&b, "%s{\"path\":\"", k ? "," : "");
        lgq_str_esc(&b, o->calib_files[k].name);
        lgq_str_put(&b, "\",\"sha256\":\"");
        lgq_str_esc(&b, o->calib_files[k].sha256);
        lgq_str_put(&b, "\"}");
    }
    lgq_str_put(&b, "]");
    if (o->mode == LG_QUANT_INT8_STATIC)
        lgq_str_put(&b, ",\"range\":\"%s\",\"percentile\":%.17g,\"int8_io\":%s,\"n_calib_cases\":%u", lg_quant_range_name(c->r->range),
                    c->r->percentile, c->r->int8_io ? "true" : "false", c->r->n_calib_cases);
    if (c->r->swept) lgq_sweep_metadata(c->r, &b);
    lgq_str_put(&b, "}");
    if (b.nomem) {
        free(b.s);
        return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    }
    *out = b.s;
    return LG_OK;
}

/* Replace any earlier "litegpu.quantize" entry by the new one. */
static lg_status set_metadata(qctx *c) {
    lg_model *m = c->m;
    for (uint32_t i = 0; i < m->n_metadata;) {
        if (m->metadata[i].name && strcmp(m->metadata[i].name, "litegpu.quantize") == 0) {
            memmove(&m->metadata[i], &m->metadata[i + 1], (m->n_metadata - i - 1) * sizeof *m->metadata);
            m->n_metadata--;
        } else {
            i++;
        }
    }
    free(c->r->metadata);
    c->r->metadata = NULL;
    LG_TRY(make_metadata(c, &c->r->metadata));
    return lg_model_add_metadata(m, "litegpu.quantize", c->r->metadata, strlen(c->r->metadata), c->err);
}

/* Every op's version as TFLite's converter assigns it (DEQUANTIZE of INT8 per channel: 5...). */
static lg_status set_versions(lg_model *m, lg_error *err) {
    lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        int32_t code = lg_op_builtin(m, op);
        int v = lgi_op_version(m, sg, op);
        if (code != LG_OP_CUSTOM && v != m->opcodes[op->opcode_index].version)
            LG_TRY(lg_op_set_opcode(m, 0, i, code, NULL, v, err));
    }
    return LG_OK;
}

static uint64_t const_bytes(const lg_model *m) {
    uint64_t n = 0;
    uint8_t *seen = calloc(m->n_buffers ? m->n_buffers : 1, 1);
    const lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t t = 0; t < sg->n_tensors; t++) {
        uint32_t b = sg->tensors[t].buffer;
        if (!b || b >= m->n_buffers || !m->buffers[b].data) continue;
        if (seen && seen[b]) continue;
        if (seen) seen[b] = 1;
        n += m->buffers[b].size;
    }
    free(seen);
    return n;
}

static lg_status check_verdict(const lg_model *m, const lg_quant_options *o, bool *ready, uint32_t *blockers,
                               char *first, size_t n_first, lg_error *err) {
    lg_check_options co;
    memset(&co, 0, sizeof co);
    co.target = o->target;
    co.gpu = o->gpu;
    lg_check_report *cr = NULL;
    LG_TRY(lg_check_model(m, &co, &cr, err));
    *ready = cr->ready;
    *blockers = cr->n_blockers;
    if (first) {
        first[0] = 0;
        for (uint32_t i = 0; i < cr->n_findings; i++)
            if (cr->findings[i].rule->severity == LG_SEV_BLOCKER) {
                snprintf(first, n_first, "%s: op %d: %s", cr->findings[i].rule->id, cr->findings[i].op, cr->findings[i].reason);
                break;
            }
    }
    lg_check_report_free(cr);
    return LG_OK;
}

void lg_quant_report_free(lg_quant_report *r) {
    if (!r) return;
    for (uint32_t i = 0; r->weights && i < r->n_weights; i++) {
        free(r->weights[i].name);
        free(r->weights[i].stored);
    }
    for (uint32_t i = 0; r->skipped && i < r->n_skipped; i++) free(r->skipped[i].name);
    free(r->weights);
    free(r->skipped);
    free(r->exclude_hits);
    free(r->case_names);
    free(r->outputs);
    free(r->float_ops);
    free(r->layers);
    free(r->steps);
    free(r->metadata);
    free(r);
}

static void sum_weights(qctx *c) {
    for (uint32_t k = 0; k < c->r->n_weights; k++) {
        const lg_quant_weight *w = &c->r->weights[k];
        c->r->weights_before += w->bytes_before;
        c->r->weights_after += w->bytes_after;
        c->r->weights_fp32 += (uint64_t)w->numel * 4;
        c->r->n_params += w->numel;
    }
}

/* int8-static (quant_static.h): calibration and rewrite in quant_static*.c; the excluded ops
   stay float (their mask is the build's keep_float, LGQ_KEEP_EXCLUDED = 1). */
static lg_status static_edits(qctx *c, int32_t *map) {
    const lg_subgraph *sg = ssg(c);
    c->op_excluded = calloc(sg->n_ops ? sg->n_ops : 1, 1);
    if (!c->op_excluded) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    LG_TRY(compile_patterns(c));
    mark_excluded(c);
    if (c->o->target_error > 0) /* --target-error: the sensitivity sweep (quant_sweep.h) */
        LG_TRY(lgq_sweep_run(c->src, c->o, c->op_excluded, &c->m, map, c->r, c->err));
    else
        LG_TRY(lgq_static_run(c->src, c->o, c->op_excluded, &c->m, map, c->r, c->err));
    for (uint32_t k = 0; k < c->r->n_ops_float; k++) c->r->n_excluded += c->r->float_ops[k].excluded;
    sum_weights(c);
    return set_metadata(c);
}

static lg_status run_edits(qctx *c, int32_t *map) {
    const lg_subgraph *sg = ssg(c);
    c->op_excluded = calloc(sg->n_ops ? sg->n_ops : 1, 1);
    c->seen = calloc(sg->n_tensors ? sg->n_tensors : 1, 1);
    if (!c->op_excluded || !c->seen) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    LG_TRY(compile_patterns(c));
    mark_excluded(c);
    LG_TRY(lg_model_clone(c->src, &c->m, c->err));
    if (c->m->n_subgraphs != c->src->n_subgraphs || c->m->subgraphs[0].n_tensors != sg->n_tensors)
        return lgi_fail(c->err, LG_ERR_INTERNAL, "the copy of the model has other tensors");
    LG_TRY(c->o->mode == LG_QUANT_FP16 ? do_fp16(c) : do_weights(c));
    sum_weights(c);
    LG_TRY(set_metadata(c));
    uint32_t n_pre = c->m->subgraphs[0].n_tensors;
    int32_t *full = malloc((size_t)(n_pre ? n_pre : 1) * sizeof *full);
    if (!full) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    lg_status st = lg_model_compact(c->m, NULL, full, c->err);
    if (st == LG_OK) memcpy(map, full, (size_t)sg->n_tensors * sizeof *map); /* the input's tensors */
    free(full);
    LG_TRY(st);
    LG_TRY(set_versions(c->m, c->err));
    LG_TRY(lg_model_validate(c->m, c->err));
    return lg_model_validate_ops(c->m, c->err);
}

lg_status lg_quantize(const lg_model *m, const lg_quant_options *opt, lg_model **out, lg_quant_report **rep,
                      lg_error *err) {
    lgi_error_clear(err);
    if (out) *out = NULL;
    if (rep) *rep = NULL;
    if (!m || !opt || !out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_quantize: NULL argument");
    if (!m->n_subgraphs) return lgi_fail(err, LG_ERR_INVALID_ARG, "the model has no subgraph");
    LG_TRY(check_options(opt, err));
    LG_TRY(refuse_quantized(m, err));
    qctx c;
    memset(&c, 0, sizeof c);
    c.src = m;
    c.o = opt;
    c.err = err;
    c.r = calloc(1, sizeof *c.r);
    int32_t *map = calloc(m->subgraphs[0].n_tensors ? m->subgraphs[0].n_tensors : 1, sizeof *map);
    lg_graph *g = NULL;
    lg_status st = c.r && map ? LG_OK : lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    if (st == LG_OK) st = lg_graph_build(m, 0, &g, err);
    c.g = g;
    if (st == LG_OK) {
        lg_quant_report *r = c.r;
        r->mode = opt->mode;
        r->per_tensor = opt->per_tensor;
        r->block_size = opt->block_size;
        r->target = opt->target;
        r->gpu = opt->gpu;
        r->gpu_note = opt->mode == LG_QUANT_FP16          ? gpu_fp16
                      : opt->mode == LG_QUANT_INT8_STATIC  ? lgq_static_gpu_note()
                      : opt->mode == LG_QUANT_INT8_DYNAMIC ? lgq_dyn_gpu_note
                                                           : gpu_int;
        r->first_divergent_op = r->first_divergent_tensor = -1;
        st = opt->mode == LG_QUANT_INT8_STATIC ? static_edits(&c, map) : run_edits(&c, map);
    }
    if (st == LG_OK) {
        lg_quant_report *r = c.r;
        r->ops_before = m->subgraphs[0].n_ops;
        r->ops_after = c.m->subgraphs[0].n_ops;
        r->const_before = const_bytes(m);
        r->const_after = const_bytes(c.m);
        st = lgq_measure(m, c.m, map, opt, r, err);
    }
    if (st == LG_OK)
        st = check_verdict(m, opt, &c.r->ready_before, &c.r->blockers_before, NULL, 0, err);
    if (st == LG_OK)
        st = check_verdict(c.m, opt, &c.r->ready_after, &c.r->blockers_after, c.r->first_blocker,
                           sizeof c.r->first_blocker, err);
    lg_graph_free(g);
    free_patterns(&c);
    free(c.op_excluded);
    free(c.seen);
    free(c.drop_ops);
    free(map);
    if (st != LG_OK) {
        lg_model_free(c.m);
        lg_quant_report_free(c.r);
        return st;
    }
    *out = c.m;
    if (rep) *rep = c.r;
    else lg_quant_report_free(c.r);
    return LG_OK;
}
