/* Dependency groups for structured pruning (lg/prune.h): from every producer (FC, dense
   CONV_2D) the channel axis is followed forward through the graph. Each tensor of a group maps
   base channel b to axis indices [off + b*p/q, off + (b+1)*p/q) (p/q reduced); a unit is a
   block of `unit` base channels, unit being the lcm of every q, so that every member's range
   is whole indices (heads, conv groups). Binary ops whose other operand is a runtime tensor
   of the full channel size couple two groups (a residual ADD, q.k^T on the head axis): the
   couplings are resolved at the end with a union-find, requiring the same map on both sides.

   Op rules follow TFLite's kernels (tensorflow/lite/kernels/): FULLY_CONNECTED weights
   [out, in] (fully_connected.cc), CONV_2D OHWI with groups = input channels / filter input
   channels (conv.cc), DEPTHWISE_CONV_2D [1, kh, kw, in*multiplier], output channel
   c*multiplier+m reads input channel c (depthwise_conv.cc), CONCATENATION along `axis`
   (concatenation.cc), BATCH_MATMUL [.., M, K] x [.., K, N] with adj_x/adj_y (batch_matmul.cc). */
#include "lg/graph.h"
#include "lg/prune.h"
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gb {
    lg_prune_member *mem; uint32_t n, cap;
    int32_t *seen;           /* per tensor: member index (runtime tensors), -1 */
    bool prunable, fixed, heads, concat, grouped, depthwise, residual, conv, nomem;
    char why[256];
    uint32_t n_base, block, n_src;
    int32_t src_op;
} gb;

typedef struct coupling {
    uint32_t g;
    int32_t op, other, axis, off, p, q;
} coupling;

typedef struct ctx {
    const lg_model *m;
    const lg_subgraph *sg;
    lg_graph *gr;
    gb *gs; uint32_t n_gs;
    coupling *cp; uint32_t n_cp, cap_cp;
    int32_t *work; uint32_t n_work, cap_work;
    bool nomem;
} ctx;

static int64_t gcd64(int64_t a, int64_t b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) { int64_t t = a % b; a = b; b = t; }
    return a ? a : 1;
}
static uint32_t lcm32(uint32_t a, uint32_t b) { return (uint32_t)((int64_t)a / gcd64(a, b) * b); }

static const lg_tensor *T(const ctx *c, int32_t t) { return &c->sg->tensors[t]; }
static const char *tname(const ctx *c, int32_t t) { return T(c, t)->name ? T(c, t)->name : ""; }
static int32_t dim(const ctx *c, int32_t t, int32_t a) {
    const lg_tensor *tt = T(c, t);
    return a >= 0 && (uint32_t)a < tt->rank ? tt->shape[a] : -1;
}
static const lg_op *OP(const ctx *c, int32_t op) { return &c->sg->ops[op]; }
static int32_t code(const ctx *c, int32_t op) { return lg_op_builtin(c->m, OP(c, op)); }
static bool is_const(const ctx *c, int32_t t) { return t >= 0 && lg_tensor_is_const(c->m, 0, t); }
/* Quantization parameters that say something (converters store empty tables on float
   constants: no scale, no zero point, no details). */
static bool quantized(const lg_tensor *t) {
    return t->quant && (t->quant->n_scale || t->quant->n_zero_point || t->quant->details_kind != LG_OPTS_NONE);
}
/* A weight stored as FLOAT16 and read through DEQUANTIZE (convert --weights-fp16, quantize
   --mode fp16): the constant behind t, or -1. */
static int32_t deq_source(const ctx *c, int32_t t) {
    if (t < 0 || is_const(c, t)) return -1;
    int32_t p = lg_graph_producer(c->gr, t);
    if (p < 0 || lg_op_builtin(c->m, &c->sg->ops[p]) != LG_OP_DEQUANTIZE || c->sg->ops[p].n_inputs != 1) return -1;
    int32_t s = c->sg->ops[p].inputs[0];
    const lg_tensor *ts = s >= 0 ? &c->sg->tensors[s] : NULL;
    if (!ts || !is_const(c, s) || ts->type != LG_FLOAT16 || quantized(ts) || ts->sparsity) return -1;
    return s;
}
/* A constant, or a FLOAT16 constant through DEQUANTIZE. */
static bool is_weight(const ctx *c, int32_t t) { return is_const(c, t) || deq_source(c, t) >= 0; }

static void fail(gb *g, const ctx *c, int32_t op, const char *fmt, ...) LGI_PRINTF(4, 5);
static void fail(gb *g, const ctx *c, int32_t op, const char *fmt, ...) {
    if (!g->prunable) return;
    g->prunable = false;
    int n = 0;
    if (op >= 0) n = snprintf(g->why, sizeof g->why, "op %d (%s): ", (int)op, lg_op_name(c->m, OP(c, op)));
    if (n < 0 || (size_t)n >= sizeof g->why) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->why + n, sizeof g->why - (size_t)n, fmt, ap);
    va_end(ap);
}

static int32_t push_member(gb *g, lg_prune_member mb) {
    if (g->n == g->cap) {
        uint32_t cap = g->cap ? g->cap * 2 : 16;
        lg_prune_member *p = realloc(g->mem, cap * sizeof *p);
        if (!p) { g->nomem = true; return -1; }
        g->mem = p; g->cap = cap;
    }
    g->mem[g->n] = mb;
    return (int32_t)g->n++;
}

static void reduce(int32_t *p, int32_t *q) {
    int64_t d = gcd64(*p, *q);
    *p = (int32_t)(*p / d); *q = (int32_t)(*q / d);
}

/* Checks that the base channels fit in the axis: off + n_base*p/q <= dim. */
static bool fits(const ctx *c, gb *g, int32_t op, int32_t t, int32_t axis, int32_t off, int32_t p, int32_t q) {
    int32_t d = dim(c, t, axis);
    if (d < 0 || (int64_t)off * q + (int64_t)g->n_base * p > (int64_t)d * q) {
        fail(g, c, op, "tensor \"%s\": the channel map does not fit axis %d", tname(c, t), (int)axis);
        return false;
    }
    return true;
}

static void add_runtime(ctx *c, gb *g, int32_t op, int32_t t, int32_t axis, int32_t off, int32_t p, int32_t q) {
    reduce(&p, &q);
    if (!fits(c, g, op, t, axis, off, p, q)) return;
    int32_t s = g->seen[t];
    if (s >= 0) {
        const lg_prune_member *o = &g->mem[s];
        if (o->axis != axis || o->offset != off || o->p_ != p || o->q_ != q)
            fail(g, c, op, "tensor \"%s\" is reached with two different channel maps", tname(c, t));
        return;
    }
    g->block = lcm32(g->block, (uint32_t)q);
    lg_prune_member mb = {.op = op, .slot = -1, .tensor = t, .axis = axis, .offset = off,
                          .p_ = p, .q_ = q, .role = LG_PRUNE_TRANSPARENT};
    int32_t i = push_member(g, mb);
    if (i < 0) return;
    g->seen[t] = i;
    if (lg_graph_is_output(c->gr, t)) g->fixed = true;
    if (c->n_work == c->cap_work) {
        uint32_t cap = c->cap_work ? c->cap_work * 2 : 64;
        int32_t *w = realloc(c->work, cap * sizeof *w);
        if (!w) { c->nomem = true; return; }
        c->work = w; c->cap_work = cap;
    }
    c->work[c->n_work++] = i;
}

static void add_const(ctx *c, gb *g, int32_t op, int32_t slot, int32_t axis, int32_t off, int32_t p,
                      int32_t q, lg_prune_role role) {
    int32_t t = OP(c, op)->inputs[slot];
    reduce(&p, &q);
    int32_t src = deq_source(c, t);
    if (src >= 0) {
        /* the DEQUANTIZE output (a runtime tensor: its shape shrinks) and the FLOAT16 constant */
        if (!fits(c, g, op, t, axis, off, p, q)) return;
        g->block = lcm32(g->block, (uint32_t)q);
        lg_prune_member mb = {.op = op, .slot = slot, .tensor = t, .axis = axis, .offset = off,
                              .p_ = p, .q_ = q, .role = role};
        push_member(g, mb);
        mb.op = lg_graph_producer(c->gr, t);
        mb.slot = 0;
        mb.tensor = src;
        push_member(g, mb);
        return;
    }
    const lg_tensor *tt = T(c, t);
    if (tt->type != LG_FLOAT32 || quantized(tt) || tt->sparsity) {
        fail(g, c, op, "constant \"%s\" is not dense FLOAT32 (%s)", tname(c, t), lg_dtype_name(tt->type));
        return;
    }
    if (!fits(c, g, op, t, axis, off, p, q)) return;
    g->block = lcm32(g->block, (uint32_t)q);
    lg_prune_member mb = {.op = op, .slot = slot, .tensor = t, .axis = axis, .offset = off,
                          .p_ = p, .q_ = q, .role = role};
    push_member(g, mb);
}

static void add_coupling(ctx *c, uint32_t gi, int32_t op, int32_t other, int32_t axis, int32_t off,
                         int32_t p, int32_t q) {
    reduce(&p, &q);
    if (c->n_cp == c->cap_cp) {
        uint32_t cap = c->cap_cp ? c->cap_cp * 2 : 16;
        coupling *n = realloc(c->cp, cap * sizeof *n);
        if (!n) { c->nomem = true; return; }
        c->cp = n; c->cap_cp = cap;
    }
    c->cp[c->n_cp++] = (coupling){gi, op, other, axis, off, p, q};
}

/* Another operand `o` of op, aligned from the right with the channel tensor (rank r, axis a):
   broadcast along the channel (fine), a per-channel constant (sliced), or a runtime tensor
   of the full size (coupled). */
static void other_operand(ctx *c, uint32_t gi, int32_t op, int32_t slot, int32_t r, const lg_prune_member *mb) {
    gb *g = &c->gs[gi];
    int32_t o = OP(c, op)->inputs[slot];
    if (o < 0) return;
    int32_t ro = (int32_t)T(c, o)->rank, oa = mb->axis - (r - ro);
    int32_t d = oa >= 0 ? dim(c, o, oa) : 1, full = dim(c, mb->tensor, mb->axis);
    if (oa < 0 || (d == 1 && full != 1)) return;
    if (d != full) {
        fail(g, c, op, "operand \"%s\" has %d entries on the channel axis, not %d or 1", tname(c, o), (int)d, (int)full);
        return;
    }
    if (is_weight(c, o)) add_const(c, g, op, (int32_t)slot, oa, mb->offset, mb->p_, mb->q_, LG_PRUNE_SLICED);
    else add_coupling(c, gi, op, o, oa, mb->offset, mb->p_, mb->q_);
}

static bool const_i32(const ctx *c, int32_t t, const int32_t **v, uint32_t *n) {
    if (!is_const(c, t) || T(c, t)->type != LG_INT32) return false;
    const lg_buffer *b = lg_tensor_buffer(c->m, T(c, t));
    if (!b) return false;
    *v = (const int32_t *)(const void *)b->data;
    *n = (uint32_t)(b->size / 4);
    return true;
}

/* A STRIDED_SLICE that takes the range [*b, *e) of axis a of its input and every other axis
   whole (strides 1; no ellipsis, new-axis or shrink masks; no offset): strided_slice.cc's
   begin/end rules for these (negative values count from the end, then clamped). */
static bool slice_range(const ctx *c, int32_t op, int32_t a, int32_t *b, int32_t *e) {
    const lg_op *o = OP(c, op);
    if (code(c, op) != LG_OP_STRIDED_SLICE || o->n_inputs != 4) return false;
    const lg_strided_slice_options *so = o->opts_kind == LG_OPTS_STRIDED_SLICE_OPTIONS ? o->opts : NULL;
    if (so && (so->ellipsis_mask || so->new_axis_mask || so->shrink_axis_mask || so->offset)) return false;
    int32_t x = o->inputs[0], r = (int32_t)T(c, x)->rank;
    const int32_t *bv, *ev, *sv;
    uint32_t nb, ne, ns;
    if (!const_i32(c, o->inputs[1], &bv, &nb) || !const_i32(c, o->inputs[2], &ev, &ne) ||
        !const_i32(c, o->inputs[3], &sv, &ns) || nb != (uint32_t)r || ne != (uint32_t)r || ns != (uint32_t)r)
        return false;
    for (int32_t i = 0; i < r; i++) {
        int32_t d = dim(c, x, i);
        if (sv[i] != 1 || d < 0) return false;
        int32_t bi = so && (so->begin_mask >> i & 1) ? 0 : bv[i];
        int32_t ei = so && (so->end_mask >> i & 1) ? d : ev[i];
        if (bi < 0) bi += d;
        if (ei < 0) ei += d;
        bi = bi < 0 ? 0 : bi > d ? d : bi;
        ei = ei < 0 ? 0 : ei > d ? d : ei;
        if (i != a && (bi != 0 || ei != d)) return false;
        if (i == a) { *b = bi; *e = ei; }
    }
    return *e > *b;
}

/* SPLIT's axis (its constant first input, negative counted from the end), or -1. */
static int32_t split_axis(const ctx *c, int32_t op, int32_t rank) {
    const lg_op *o = OP(c, op);
    const int32_t *ax; uint32_t n;
    if (code(c, op) != LG_OP_SPLIT || o->n_inputs != 2 || !const_i32(c, o->inputs[0], &ax, &n) || n != 1) return -1;
    return ax[0] < 0 ? ax[0] + rank : ax[0];
}

static bool in_list(int32_t code_, const int32_t *list, size_t n) {
    for (size_t i = 0; i < n; i++) if (list[i] == code_) return true;
    return false;
}

static const int32_t unary_ops[] = {
    LG_OP_RELU, LG_OP_RELU6, LG_OP_RELU_N1_TO_1, LG_OP_RELU_0_TO_1, LG_OP_LOGISTIC, LG_OP_TANH,
    LG_OP_GELU, LG_OP_HARD_SWISH, LG_OP_ABS, LG_OP_NEG, LG_OP_EXP, LG_OP_LOG, LG_OP_SQRT,
    LG_OP_RSQRT, LG_OP_SQUARE, LG_OP_SIN, LG_OP_COS, LG_OP_FLOOR, LG_OP_CEIL, LG_OP_ROUND,
    LG_OP_SIGN, LG_OP_ELU, LG_OP_LEAKY_RELU};
static const int32_t binary_ops[] = {
    LG_OP_ADD, LG_OP_SUB, LG_OP_MUL, LG_OP_DIV, LG_OP_MINIMUM, LG_OP_MAXIMUM, LG_OP_POW,
    LG_OP_SQUARED_DIFFERENCE, LG_OP_FLOOR_DIV, LG_OP_FLOOR_MOD, LG_OP_PRELU};
static const int32_t reduce_ops[] = {LG_OP_MEAN, LG_OP_SUM, LG_OP_REDUCE_MAX, LG_OP_REDUCE_MIN,
                                     LG_OP_REDUCE_PROD};
static const int32_t spatial_ops[] = {LG_OP_AVERAGE_POOL_2D, LG_OP_MAX_POOL_2D, LG_OP_L2_POOL_2D,
                                      LG_OP_RESIZE_BILINEAR, LG_OP_RESIZE_NEAREST_NEIGHBOR};
#define N_(a) (sizeof(a) / sizeof((a)[0]))

/* RESHAPE / SQUEEZE / EXPAND_DIMS: where the channel axis goes. */
static void follow_reshape(ctx *c, gb *g, int32_t op, const lg_prune_member *mb) {
    int32_t in = mb->tensor, out = OP(c, op)->outputs[0];
    const lg_tensor *ti = T(c, in), *to = T(c, out);
    int32_t a = mb->axis, ch = ti->shape[a];
    int64_t pre = 1;
    for (int32_t i = 0; i < a; i++) pre *= ti->shape[i];
    int64_t acc = 1;
    /* the channel axis kept whole (unit axes added or removed around it) */
    for (uint32_t j = 0; j < to->rank && acc <= pre; acc *= to->shape[j], j++)
        if (acc == pre && to->shape[j] == ch) { add_runtime(c, g, op, out, (int32_t)j, mb->offset, mb->p_, mb->q_); return; }
    acc = 1;
    for (uint32_t j = 0; j < to->rank; j++) {
        if (acc == pre) {
            if (j + 1 < to->rank && to->shape[j] > 1 && to->shape[j + 1] > 1 &&
                (int64_t)to->shape[j] * to->shape[j + 1] == ch) {
                int32_t d = to->shape[j + 1];
                if (mb->offset % d) { fail(g, c, op, "the split into heads of %d cuts the channel offset %d", (int)d, (int)mb->offset); return; }
                g->heads = true;
                add_runtime(c, g, op, out, (int32_t)j, mb->offset / d, mb->p_, mb->q_ * d);
                return;
            }
            if ((uint32_t)a + 1 < ti->rank && (int64_t)to->shape[j] == (int64_t)ch * ti->shape[a + 1]) {
                int32_t d = ti->shape[a + 1];
                add_runtime(c, g, op, out, (int32_t)j, mb->offset * d, mb->p_ * d, mb->q_);
                return;
            }
        }
        acc *= to->shape[j];
        if (acc > pre) break;
    }
    fail(g, c, op, "mixes the channel axis of \"%s\" with other axes", tname(c, in));
}

static void follow_bmm(ctx *c, uint32_t gi, int32_t op, int32_t slot, const lg_prune_member *mb) {
    gb *g = &c->gs[gi];
    const lg_op *o = OP(c, op);
    bool adj_x = false, adj_y = false;
    if (o->opts_kind == LG_OPTS_BATCH_MAT_MUL_OPTIONS && o->opts) {
        const lg_batch_mat_mul_options *bo = o->opts;
        adj_x = bo->adj_x; adj_y = bo->adj_y;
    }
    int32_t r = (int32_t)T(c, mb->tensor)->rank, out = o->outputs[0], ro = (int32_t)T(c, out)->rank;
    int32_t a = mb->axis, oa;
    if (a < r - 2) {
        other_operand(c, gi, op, 1 - slot, r, mb);
        oa = ro - (r - a);
    } else if (slot == 0 && a == (adj_x ? r - 1 : r - 2)) {
        oa = ro - 2;
    } else if (slot == 1 && a == (adj_y ? r - 2 : r - 1)) {
        oa = ro - 1;
    } else {
        fail(g, c, op, "contracts over the channel axis");
        return;
    }
    add_runtime(c, g, op, out, oa, mb->offset, mb->p_, mb->q_);
}

static void follow_conv(ctx *c, uint32_t gi, int32_t op, int32_t slot, const lg_prune_member *mb, bool depthwise) {
    gb *g = &c->gs[gi];
    const lg_op *o = OP(c, op);
    if (slot != 0 || mb->axis != 3 || T(c, mb->tensor)->rank != 4) {
        fail(g, c, op, "the channels are not its NHWC input channels");
        return;
    }
    int32_t w = o->inputs[1], cin = dim(c, mb->tensor, 3);
    if (w < 0 || !is_weight(c, w) || T(c, w)->rank != 4) { fail(g, c, op, "its filter is not a constant"); return; }
    int32_t wo = dim(c, w, 0), wi = dim(c, w, 3), bias = o->n_inputs > 2 ? o->inputs[2] : -1;
    if (bias >= 0 && !is_weight(c, bias)) { fail(g, c, op, "its bias is not a constant"); return; }
    if (!depthwise && wi == cin) {
        add_const(c, g, op, 1, 3, mb->offset, mb->p_, mb->q_, LG_PRUNE_CONSUMER);
        return;
    }
    int32_t ig, og;
    if (depthwise) {
        if (cin <= 0 || wi % cin) { fail(g, c, op, "filter depth %d is not a multiple of %d inputs", (int)wi, (int)cin); return; }
        ig = 1; og = wi / cin;
        g->depthwise = true;
    } else {
        if (wi <= 0 || cin % wi || wo % (cin / wi)) { fail(g, c, op, "%d input channels do not make groups of %d", (int)cin, (int)wi); return; }
        ig = wi; og = wo / (cin / wi);
        g->grouped = true;
    }
    if (mb->offset % ig) { fail(g, c, op, "the channel offset %d cuts a conv group of %d", (int)mb->offset, (int)ig); return; }
    /* whole conv groups: the constraint comes from the map onto the group index */
    int32_t p = mb->p_, q = mb->q_ * ig;
    reduce(&p, &q);
    g->block = lcm32(g->block, (uint32_t)q);
    int32_t off = mb->offset / ig * og, po = mb->p_ * og, qo = mb->q_ * ig;
    add_const(c, g, op, 1, depthwise ? 3 : 0, off, po, qo, LG_PRUNE_SLICED);
    if (bias >= 0) add_const(c, g, op, 2, 0, off, po, qo, LG_PRUNE_SLICED);
    add_runtime(c, g, op, o->outputs[0], 3, off, po, qo);
}

static void follow_use(ctx *c, uint32_t gi, int32_t op, uint32_t slot, const lg_prune_member *mb) {
    gb *g = &c->gs[gi];
    const lg_op *o = OP(c, op);
    int32_t k = code(c, op), r = (int32_t)T(c, mb->tensor)->rank, a = mb->axis;
    int32_t out = o->n_outputs ? o->outputs[0] : -1;
    if (k == LG_OP_FULLY_CONNECTED) {
        int32_t w = o->inputs[1];
        if (slot != 0) { fail(g, c, op, "the channels are its weights"); return; }
        if (a != r - 1 || w < 0 || !is_weight(c, w) || T(c, w)->rank != 2 || dim(c, w, 1) != dim(c, mb->tensor, a)) {
            fail(g, c, op, "the channels are not its input features (constant weights [out, in])");
            return;
        }
        add_const(c, g, op, 1, 1, mb->offset, mb->p_, mb->q_, LG_PRUNE_CONSUMER);
    } else if (k == LG_OP_CONV_2D || k == LG_OP_DEPTHWISE_CONV_2D) {
        follow_conv(c, gi, op, (int32_t)slot, mb, k == LG_OP_DEPTHWISE_CONV_2D);
    } else if (in_list(k, unary_ops, N_(unary_ops)) && o->n_outputs == 1) {
        add_runtime(c, g, op, out, a, mb->offset, mb->p_, mb->q_);
    } else if (in_list(k, binary_ops, N_(binary_ops)) && o->n_inputs == 2 && o->n_outputs == 1) {
        other_operand(c, gi, op, 1 - (int32_t)slot, r, mb);
        int32_t ro = (int32_t)T(c, out)->rank;
        add_runtime(c, g, op, out, ro - (r - a), mb->offset, mb->p_, mb->q_);
    } else if (k == LG_OP_TRANSPOSE && slot == 0) {
        const int32_t *perm; uint32_t n;
        if (!const_i32(c, o->inputs[1], &perm, &n) || n != (uint32_t)r) { fail(g, c, op, "its permutation is not a constant"); return; }
        for (uint32_t j = 0; j < n; j++)
            if (perm[j] == a) { add_runtime(c, g, op, out, (int32_t)j, mb->offset, mb->p_, mb->q_); return; }
        fail(g, c, op, "bad permutation");
    } else if ((k == LG_OP_RESHAPE || k == LG_OP_SQUEEZE || k == LG_OP_EXPAND_DIMS) && slot == 0) {
        follow_reshape(c, g, op, mb);
    } else if (k == LG_OP_CONCATENATION) {
        const lg_concatenation_options *co = o->opts;
        int32_t ax = co ? co->axis : 0;
        if (ax < 0) ax += r;
        if (ax == a) {
            int32_t off = mb->offset;
            for (uint32_t i = 0; i < slot; i++) off += dim(c, o->inputs[i], a);
            g->concat = true;
            add_runtime(c, g, op, out, a, off, mb->p_, mb->q_);
        } else {
            for (uint32_t i = 0; i < o->n_inputs; i++)
                if (i != slot) other_operand(c, gi, op, (int32_t)i, r, mb);
            add_runtime(c, g, op, out, a, mb->offset, mb->p_, mb->q_);
        }
    } else if (in_list(k, reduce_ops, N_(reduce_ops)) && slot == 0) {
        const int32_t *ax; uint32_t n;
        if (!const_i32(c, o->inputs[1], &ax, &n)) { fail(g, c, op, "its axes are not a constant"); return; }
        int32_t below = 0;
        for (uint32_t i = 0; i < n; i++) {
            int32_t x = ax[i] < 0 ? ax[i] + r : ax[i];
            if (x == a) { fail(g, c, op, "reduces over the channel axis"); return; }
            if (x < a) below++;
        }
        const lg_reducer_options *ro = o->opts;
        add_runtime(c, g, op, out, ro && ro->keep_dims ? a : a - below, mb->offset, mb->p_, mb->q_);
    } else if (in_list(k, spatial_ops, N_(spatial_ops)) && slot == 0) {
        if (r != 4 || a != 3) { fail(g, c, op, "the channels are not its NHWC channel axis"); return; }
        add_runtime(c, g, op, out, a, mb->offset, mb->p_, mb->q_);
    } else if ((k == LG_OP_PAD || k == LG_OP_PADV2 || k == LG_OP_MIRROR_PAD) && slot == 0) {
        const int32_t *pd; uint32_t n;
        if (!const_i32(c, o->inputs[1], &pd, &n) || n != (uint32_t)(2 * r) || pd[2 * a] || pd[2 * a + 1]) {
            fail(g, c, op, "pads the channel axis (or its paddings are not a constant)");
            return;
        }
        add_runtime(c, g, op, out, a, mb->offset, mb->p_, mb->q_);
    } else if ((k == LG_OP_SOFTMAX || k == LG_OP_LOG_SOFTMAX) && slot == 0) {
        if (a == r - 1) { fail(g, c, op, "normalizes over the channel axis"); return; }
        add_runtime(c, g, op, out, a, mb->offset, mb->p_, mb->q_);
    } else if (k == LG_OP_STRIDED_SLICE && slot == 0) {
        int32_t sb = 0, se = 0;
        if (!slice_range(c, op, a, &sb, &se)) { fail(g, c, op, "slices the channels of \"%s\" (not followed)", tname(c, mb->tensor)); return; }
        if (sb != 0 || se != dim(c, mb->tensor, a)) { fail(g, c, op, "takes channels %d..%d of \"%s\" only", (int)sb, (int)se - 1, tname(c, mb->tensor)); return; }
        add_runtime(c, g, op, out, a, mb->offset, mb->p_, mb->q_);
    } else if (k == LG_OP_SPLIT && slot == 1) {
        if (split_axis(c, op, r) == a || split_axis(c, op, r) < 0) { fail(g, c, op, "splits the channel axis (not followed)"); return; }
        for (uint32_t i = 0; i < o->n_outputs; i++) add_runtime(c, g, op, o->outputs[i], a, mb->offset, mb->p_, mb->q_);
    } else if (k == LG_OP_BATCH_MATMUL && o->n_inputs == 2) {
        follow_bmm(c, gi, op, (int32_t)slot, mb);
    } else {
        fail(g, c, op, "consumes the channels of \"%s\" (not followed)", tname(c, mb->tensor));
    }
}

/* A producer: FULLY_CONNECTED with constant FLOAT32 weights [out, in], CONV_2D with dense
   constant filters (groups 1). Returns the channel count or 0. */
static int32_t producer_channels(const ctx *c, int32_t op, bool *conv) {
    const lg_op *o = OP(c, op);
    int32_t k = code(c, op);
    if ((k != LG_OP_FULLY_CONNECTED && k != LG_OP_CONV_2D) || o->n_inputs < 2 || o->n_outputs != 1) return 0;
    int32_t w = o->inputs[1], x = o->inputs[0], out = o->outputs[0];
    if (w < 0 || x < 0 || !is_weight(c, w) || T(c, w)->type != LG_FLOAT32 || quantized(T(c, w))) return 0;
    if (T(c, out)->type != LG_FLOAT32 || T(c, out)->rank < 1) return 0;
    if (o->n_inputs > 2 && o->inputs[2] >= 0 && !is_weight(c, o->inputs[2])) return 0;
    if (k == LG_OP_FULLY_CONNECTED) {
        if (T(c, w)->rank != 2) return 0;
        *conv = false;
    } else {
        if (T(c, w)->rank != 4 || T(c, x)->rank != 4 || dim(c, w, 3) != dim(c, x, 3)) return 0;
        *conv = true;
    }
    int32_t n = dim(c, w, 0);
    return n == dim(c, out, (int32_t)T(c, out)->rank - 1) ? n : 0;
}

static void run_work(ctx *c, uint32_t gi);

/* A producer whose output is read only by STRIDED_SLICEs of disjoint channel ranges (a fused
   QKV projection split into q, k and v), or by one SPLIT of the channel axis (a gated FFN's
   fused gate and value projection): each part is a producer of its own (rows [begin, end) of
   the weights): up to n parts into b[], e[], the slicing op sl[] and its output so[]; 0 when
   it is not one. */
static uint32_t virtual_slices(const ctx *c, int32_t op, int32_t *b, int32_t *e, int32_t *sl, int32_t *so, uint32_t n) {
    int32_t out = OP(c, op)->outputs[0], a = (int32_t)T(c, out)->rank - 1;
    uint32_t nu = 0;
    const lg_use *u = lg_graph_uses(c->gr, out, &nu);
    if (nu == 0 || nu > n || lg_graph_is_output(c->gr, out)) return 0;
    if (nu == 1 && u[0].slot == 1 && split_axis(c, u[0].op, a + 1) == a) {
        const lg_op *sp = OP(c, u[0].op);
        int32_t d = dim(c, out, a), k = (int32_t)sp->n_outputs;
        if (k < 2 || (uint32_t)k > n || d % k) return 0;
        for (int32_t i = 0; i < k; i++) {
            b[i] = i * (d / k); e[i] = (i + 1) * (d / k);
            sl[i] = u[0].op; so[i] = sp->outputs[i];
        }
        return (uint32_t)k;
    }
    for (uint32_t i = 0; i < nu; i++) {
        if (u[i].slot != 0 || !slice_range(c, u[i].op, a, &b[i], &e[i])) return 0;
        if (b[i] == 0 && e[i] == dim(c, out, a)) return 0;
        for (uint32_t j = 0; j < i; j++)
            if (b[i] < e[j] && b[j] < e[i]) return 0;
        sl[i] = u[i].op;
        so[i] = OP(c, u[i].op)->outputs[0];
    }
    return nu;
}

static void build_virtual(ctx *c, uint32_t gi, int32_t op, int32_t sl, int32_t so, int32_t b) {
    gb *g = &c->gs[gi];
    const lg_op *o = OP(c, op);
    int32_t out = o->outputs[0], a = (int32_t)T(c, out)->rank - 1;
    add_const(c, g, op, 1, 0, b, 1, 1, LG_PRUNE_PRODUCER);
    if (o->n_inputs > 2 && o->inputs[2] >= 0) add_const(c, g, op, 2, 0, b, 1, 1, LG_PRUNE_PRODUCER);
    /* the producer's output, cut at the part's offset, not followed: its other parts are
       other producers */
    lg_prune_member mb = {.op = op, .slot = -1, .tensor = out, .axis = a, .offset = b, .p_ = 1, .q_ = 1,
                          .role = LG_PRUNE_TRANSPARENT};
    int32_t k = push_member(g, mb);
    if (k >= 0) g->seen[out] = k;
    c->n_work = 0;
    add_runtime(c, g, sl, so, a, 0, 1, 1);
    run_work(c, gi);
}

static void build_group(ctx *c, uint32_t gi, int32_t op) {
    gb *g = &c->gs[gi];
    const lg_op *o = OP(c, op);
    int32_t out = o->outputs[0];
    add_const(c, g, op, 1, 0, 0, 1, 1, LG_PRUNE_PRODUCER);
    if (o->n_inputs > 2 && o->inputs[2] >= 0) add_const(c, g, op, 2, 0, 0, 1, 1, LG_PRUNE_PRODUCER);
    c->n_work = 0;
    add_runtime(c, g, op, out, (int32_t)T(c, out)->rank - 1, 0, 1, 1);
    run_work(c, gi);
}

static void run_work(ctx *c, uint32_t gi) {
    gb *g = &c->gs[gi];
    for (uint32_t w = 0; w < c->n_work && !c->nomem && !g->nomem; w++) {
        lg_prune_member mb = g->mem[c->work[w]];
        uint32_t n = 0;
        const lg_use *u = lg_graph_uses(c->gr, mb.tensor, &n);
        for (uint32_t i = 0; i < n; i++) {
            follow_use(c, gi, u[i].op, u[i].slot, &mb);
            if (g->nomem) break;
        }
    }
}

/* ---------------------------------------------------------------- merging */

static uint32_t uf_find(uint32_t *par, uint32_t i) {
    while (par[i] != i) { par[i] = par[par[i]]; i = par[i]; }
    return i;
}

static bool same_map(const lg_prune_member *a, int32_t axis, int32_t off, int32_t p, int32_t q) {
    return a->axis == axis && a->offset == off && a->p_ == p && a->q_ == q;
}

static void resolve_couplings(ctx *c, uint32_t *par) {
    for (uint32_t i = 0; i < c->n_cp; i++) {
        const coupling *k = &c->cp[i];
        bool found = false;
        for (uint32_t h = 0; h < c->n_gs && !found; h++) {
            int32_t s = c->gs[h].seen[k->other];
            if (s < 0) continue;
            if (!same_map(&c->gs[h].mem[s], k->axis, k->off, k->p, k->q)) continue;
            found = true;
            int32_t kc = code(c, k->op);
            if (kc == LG_OP_ADD || kc == LG_OP_SUB) c->gs[k->g].residual = c->gs[h].residual = true;
            uint32_t ra = uf_find(par, k->g), rb = uf_find(par, h);
            if (ra != rb) par[ra < rb ? rb : ra] = ra < rb ? ra : rb;
        }
        if (found) continue;
        int32_t pr = lg_graph_producer(c->gr, k->other);
        if (pr < 0)
            fail(&c->gs[k->g], c, k->op, "operand \"%s\" is a model input, not a prunable producer", tname(c, k->other));
        else
            fail(&c->gs[k->g], c, k->op, "operand \"%s\" comes from op %d (%s), not from a prunable producer with the same channels",
                 tname(c, k->other), (int)pr, lg_op_name(c->m, OP(c, pr)));
    }
}

static bool member_dup(const gb *g, const lg_prune_member *mb) {
    for (uint32_t i = 0; i < g->n; i++) {
        const lg_prune_member *o = &g->mem[i];
        if (o->tensor == mb->tensor && o->op == mb->op && o->slot == mb->slot && o->role == mb->role &&
            same_map(o, mb->axis, mb->offset, mb->p_, mb->q_))
            return true;
    }
    return false;
}

/* Fold group h into group r (its root). */
static void merge_into(ctx *c, gb *r, gb *h) {
    for (uint32_t i = 0; i < h->n && !r->nomem; i++) {
        const lg_prune_member *mb = &h->mem[i];
        if (mb->role == LG_PRUNE_TRANSPARENT && r->seen[mb->tensor] >= 0) {
            const lg_prune_member *o = &r->mem[r->seen[mb->tensor]];
            if (same_map(o, mb->axis, mb->offset, mb->p_, mb->q_) || member_dup(r, mb)) continue;
            /* another range of the same axis (the q, k and v slices of one fused projection) */
            if (o->axis != mb->axis || o->p_ != mb->p_ || o->q_ != mb->q_) {
                fail(r, c, mb->op, "tensor \"%s\" is reached with two different channel maps", tname(c, mb->tensor));
                continue;
            }
            push_member(r, *mb);
            continue;
        }
        if (member_dup(r, mb)) continue;
        int32_t k = push_member(r, *mb);
        if (k >= 0 && mb->role == LG_PRUNE_TRANSPARENT) r->seen[mb->tensor] = k;
    }
    if (!h->prunable && r->prunable) { r->prunable = false; memcpy(r->why, h->why, sizeof r->why); }
    r->fixed |= h->fixed; r->heads |= h->heads; r->concat |= h->concat; r->grouped |= h->grouped;
    r->depthwise |= h->depthwise; r->residual |= h->residual;
    r->conv |= h->conv;
    r->block = lcm32(r->block, h->block);
    r->n_src += h->n_src;
    if (h->n_base != r->n_base) fail(r, c, h->src_op, "couples %u channels with %u", h->n_base, r->n_base);
}

/* Every use of a sliced constant must be in the group (a shared filter would break). */
static void check_shared_consts(ctx *c, gb *g) {
    for (uint32_t i = 0; i < g->n && g->prunable; i++) {
        const lg_prune_member *mb = &g->mem[i];
        if (mb->role == LG_PRUNE_TRANSPARENT) continue;
        uint32_t n = 0;
        const lg_use *u = lg_graph_uses(c->gr, mb->tensor, &n);
        for (uint32_t k = 0; k < n; k++) {
            bool in = false;
            for (uint32_t j = 0; j < g->n && !in; j++)
                in = g->mem[j].role != LG_PRUNE_TRANSPARENT && g->mem[j].op == u[k].op &&
                     g->mem[j].slot == (int32_t)u[k].slot;
            if (!in) {
                fail(g, c, u[k].op, "constant \"%s\" is also read outside the group", tname(c, mb->tensor));
                break;
            }
        }
    }
}

static uint64_t params_per_unit(const ctx *c, const gb *g) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const lg_prune_member *mb = &g->mem[i];
        if (mb->role == LG_PRUNE_TRANSPARENT || !is_const(c, mb->tensor)) continue;
        bool dup = false;
        for (uint32_t j = 0; j < i && !dup; j++)
            dup = g->mem[j].tensor == mb->tensor && g->mem[j].axis == mb->axis && g->mem[j].offset == mb->offset &&
                  g->mem[j].role != LG_PRUNE_TRANSPARENT;
        if (dup) continue;
        int64_t numel = lg_tensor_numel(T(c, mb->tensor));
        int32_t d = dim(c, mb->tensor, mb->axis);
        if (numel < 2 || d <= 0) continue;
        n += (uint64_t)(numel / d) * (uint64_t)mb->width;
    }
    return n;
}

/* One word, the most constraining feature first; the flags say the rest. A split that is
   not followed to a prunable end is not called heads. */
static const char *kind_of(const gb *g) {
    if (g->heads && (g->prunable || g->fixed)) return "heads";
    if (g->concat) return "concat";
    if (g->grouped) return "grouped";
    if (g->residual) return "residual";
    if (g->n_src > 1) return "coupled";
    if (g->depthwise) return "depthwise";
    return g->conv ? "conv" : "ffn";
}

/* ---------------------------------------------------------------- public */

void lg_prune_groups_free(lg_prune_groups *g) {
    if (!g) return;
    if (g->groups) for (uint32_t i = 0; i < g->n_groups; i++) free(g->groups[i].members);
    free(g->groups);
    free(g);
}

const char *lg_prune_role_name(lg_prune_role r) {
    switch (r) {
    case LG_PRUNE_PRODUCER: return "producer rows";
    case LG_PRUNE_CONSUMER: return "consumer columns";
    case LG_PRUNE_TRANSPARENT: return "transparent";
    case LG_PRUNE_SLICED: return "sliced constant";
    }
    return "?";
}

static void ctx_free(ctx *c) {
    if (c->gs) for (uint32_t i = 0; i < c->n_gs; i++) { free(c->gs[i].mem); free(c->gs[i].seen); }
    free(c->gs); free(c->cp); free(c->work);
    lg_graph_free(c->gr);
}

static lg_status publish(ctx *c, uint32_t *par, lg_prune_groups **out, lg_error *err) {
    lg_prune_groups *res = calloc(1, sizeof *res);
    uint32_t n_roots = 0;
    for (uint32_t i = 0; i < c->n_gs; i++) n_roots += uf_find(par, i) == i;
    if (!res || !(res->groups = calloc(n_roots ? n_roots : 1, sizeof *res->groups))) {
        free(res);
        return lgi_fail(err, LG_ERR_NOMEM, "prune: out of memory");
    }
    for (uint32_t i = 0; i < c->n_gs; i++) {
        if (uf_find(par, i) != i) continue;
        gb *g = &c->gs[i];
        lg_prune_group *pg = &res->groups[res->n_groups];
        pg->id = res->n_groups++;
        if (g->block == 0 || g->n_base % g->block) fail(g, c, g->src_op, "units of %u channels do not divide %u", g->block, g->n_base);
        uint32_t unit = g->block ? g->block : 1;
        pg->unit = unit;
        pg->n_base = g->n_base;
        pg->n_units = g->n_base / unit;
        pg->n_producers = g->n_src;
        pg->conv = g->conv; pg->heads = g->heads && (g->prunable || g->fixed);
        pg->concat = g->concat; pg->grouped = g->grouped; pg->depthwise = g->depthwise;
        pg->residual = g->residual;
        for (uint32_t k = 0; k < g->n; k++) {
            lg_prune_member *mb = &g->mem[k];
            mb->width = (int32_t)((int64_t)unit * mb->p_ / mb->q_);
        }
        pg->members = g->mem; pg->n_members = g->n;
        g->mem = NULL;
        pg->params_per_unit = params_per_unit(c, &(gb){.mem = pg->members, .n = pg->n_members});
        pg->prunable = g->prunable && !g->fixed;
        pg->fixed = g->fixed;
        if (g->fixed && g->prunable) snprintf(pg->why, sizeof pg->why, "fixed (model output)");
        else memcpy(pg->why, g->why, sizeof pg->why);
        pg->kind = kind_of(g);
    }
    *out = res;
    return LG_OK;
}

lg_status lg_prune_groups_find(const lg_model *m, lg_prune_groups **out, lg_error *err) {
    if (!out) return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: no output");
    *out = NULL;
    if (!m || m->n_subgraphs == 0) return lgi_fail(err, LG_ERR_INVALID_ARG, "prune: the model has no subgraph");
    ctx c = {.m = m, .sg = &m->subgraphs[0]};
    lg_status st = lg_graph_build(m, 0, &c.gr, err);
    if (st != LG_OK) return st;
    uint32_t n_src = 0;
    bool conv;
    enum { MAX_SLICES = 16 };
    int32_t vb[MAX_SLICES], ve[MAX_SLICES], vs[MAX_SLICES], vo[MAX_SLICES];
    for (uint32_t i = 0; i < c.sg->n_ops; i++) {
        if (producer_channels(&c, (int32_t)i, &conv) <= 0) continue;
        uint32_t nv = virtual_slices(&c, (int32_t)i, vb, ve, vs, vo, MAX_SLICES);
        n_src += nv ? nv : 1;
    }
    c.gs = calloc(n_src ? n_src : 1, sizeof *c.gs);
    uint32_t *par = calloc(n_src ? n_src : 1, sizeof *par);
    if (!c.gs || !par) { free(par); ctx_free(&c); return lgi_fail(err, LG_ERR_NOMEM, "prune: out of memory"); }
    for (uint32_t i = 0; i < c.sg->n_ops && !c.nomem; i++) {
        int32_t n = producer_channels(&c, (int32_t)i, &conv);
        if (n <= 0) continue;
        uint32_t nv = virtual_slices(&c, (int32_t)i, vb, ve, vs, vo, MAX_SLICES);
        for (uint32_t v = 0; v < (nv ? nv : 1) && !c.nomem; v++) {
            gb *g = &c.gs[c.n_gs];
            g->seen = malloc(sizeof(int32_t) * (c.sg->n_tensors ? c.sg->n_tensors : 1));
            if (!g->seen) { c.nomem = true; break; }
            for (uint32_t t = 0; t < c.sg->n_tensors; t++) g->seen[t] = -1;
            g->prunable = true; g->block = 1; g->n_src = 1; g->conv = conv;
            g->n_base = nv ? (uint32_t)(ve[v] - vb[v]) : (uint32_t)n;
            g->src_op = (int32_t)i;
            par[c.n_gs] = c.n_gs;
            if (nv) build_virtual(&c, c.n_gs++, (int32_t)i, vs[v], vo[v], vb[v]);
            else build_group(&c, c.n_gs++, (int32_t)i);
            if (g->nomem) c.nomem = true;
        }
    }
    if (!c.nomem) {
        resolve_couplings(&c, par);
        for (uint32_t i = 0; i < c.n_gs && !c.nomem; i++) {
            uint32_t r = uf_find(par, i);
            if (r != i) { merge_into(&c, &c.gs[r], &c.gs[i]); c.nomem |= c.gs[r].nomem; }
        }
        for (uint32_t i = 0; i < c.n_gs; i++)
            if (uf_find(par, i) == i) check_shared_consts(&c, &c.gs[i]);
    }
    st = c.nomem ? lgi_fail(err, LG_ERR_NOMEM, "prune: out of memory") : publish(&c, par, out, err);
    free(par);
    ctx_free(&c);
    return st;
}

int32_t lg_prune_first_consumer(const lg_prune_group *g) {
    for (uint32_t i = 0; g && i < g->n_members; i++)
        if (g->members[i].role == LG_PRUNE_CONSUMER && g->members[i].slot == 1) return (int32_t)i;
    return -1;
}
