/* sink-transposes: move a TRANSPOSE below the layout-agnostic ops it feeds, so that it meets
 * its inverse and both vanish (issue #10: the ONNX importer wraps every NHWC-only op in
 * NCHW->NHWC / NHWC->NCHW transposes; this pass removes the pairs between them).
 *
 * Notation (TFLite transpose.cc, the schema): y = TRANSPOSE(a, p) has y.shape[i] =
 * a.shape[p[i]]; q = p^-1 (q[p[i]] = i). An op X reading y = T_p(a) is rewritten to read a,
 * and a transpose T_po goes on its output: X(T_p(a), ...) = T_po(X'(a, ...)), where
 *
 *  - elementwise ops (the op table's LG_OPF_ELEMENTWISE: unary ops, activations, CAST,
 *    QUANTIZE/DEQUANTIZE, binary ops with broadcasting, comparisons, SELECT_V2, PRELU, ADD_N):
 *    po = p, and each other input is brought to a's layout (transposed by q): another
 *    TRANSPOSE(p) output reads its own source; a constant is permuted here, after padding it
 *    to rank r with leading 1s, as broadcasting aligns trailing dims (a per-channel [C,1,1]
 *    bias of an NCHW tensor becomes [C] for the NHWC one); a one-element tensor stays; a
 *    runtime tensor of rank r gets a TRANSPOSE(q) (which counts as an added transpose);
 *    an input made by a one-input elementwise op U from a TRANSPOSE(p) output (U's output
 *    read by X alone) moves with X: U reads the transpose's source, its output takes the
 *    source's layout. This is the diamond of SiLU, x * sigmoid(x) (torch exports it as Mul of
 *    x and Sigmoid(x); EfficientNet has 49 of them, on every feature map and inside every
 *    squeeze-excite block): the transpose feeds both LOGISTIC and MUL, so neither op alone
 *    can take it (each move would leave it for the other and add one), both together can;
 *  - CONCATENATION: the same, with axis -> p[axis];
 *  - MEAN, SUM, REDUCE_PROD/MAX/MIN/ANY/ALL: axes A -> p(A). With keep_dims po = p; without,
 *    po is p restricted to the kept dims (the identity for a global pool of NCHW: no
 *    transpose is left at all). SUM/MEAN/PROD only when p keeps the order of the reduced
 *    dims, so every output folds its inputs in the same order (reduce.cc and k_reduce.c fold
 *    in increasing input index order);
 *  - PAD, PADV2, MIRROR_PAD: the paddings of dim i go to dim p[i];
 *  - RESHAPE, when p moves only 1-sized dims (T_p(a) has a's memory order): the RESHAPE
 *    reads a, nothing is put on its output.
 *
 * Consumers of X's output that are TRANSPOSE(po^-1) cancel: their readers read X' output
 * instead (when one of them writes a graph output, X' writes that tensor, so the model's
 * interface keeps its tensors and names).
 *
 * The count: a move removes the transposes that fed only X and the cancelled consumers, and
 * adds T_po (unless nothing else reads X's output) and the TRANSPOSE(q)s of runtime inputs.
 * It is made when the number of TRANSPOSE ops drops, or when it stays, nothing is inserted,
 * and the moved transpose can go on by the same rule (looking ahead along its only consumer)
 * to a move that drops it. So the number of TRANSPOSE ops never grows, a transpose that
 * cannot reach its inverse stays where it is, and every move either lowers the count or
 * moves a transpose strictly down the graph (the pass terminates).
 *
 * Exactness: elementwise ops (and the one-input ops moving with them), CONCATENATION, the pads,
 * RESHAPE, MAX/MIN/ANY/ALL and SUM/PROD compute the same values bit for bit (the same
 * operations on the same operands, in the same order).
 * MEAN differs only in its final scaling: litegpu's kernel (like XNNPACK, see k_reduce.c)
 * multiplies by 1/count when the innermost dim is kept and divides by count otherwise, so a
 * MEAN over H,W of NCHW moved to NHWC can differ by 1 ulp; the runner's parity proof bounds
 * it (1e-6 of the output magnitude). Tensors with per-axis quantization or dynamic shapes,
 * custom and StableHLO ops are left alone. */
#include <stdlib.h>

#include "passes/passes_impl.h"

#define MAX_IN 64       /* inputs of a rewritten op (ADD_N, CONCATENATION) */
#define MAX_CANCEL 64   /* cancelled consumers counted per move */
#define LOOKAHEAD 64    /* moves looked ahead through when a move keeps the count */

typedef struct perm {
    int32_t v[LG_MAX_RANK];
    uint32_t n;
} perm;

static bool perm_identity(const perm *p) {
    for (uint32_t k = 0; k < p->n; k++)
        if (p->v[k] != (int32_t)k) return false;
    return true;
}

static bool perm_equal(const perm *a, const perm *b) {
    if (a->n != b->n) return false;
    for (uint32_t k = 0; k < a->n; k++)
        if (a->v[k] != b->v[k]) return false;
    return true;
}

static perm perm_inverse(const perm *p) {
    perm q;
    memset(&q, 0, sizeof q);
    q.n = p->n;
    for (uint32_t i = 0; i < p->n; i++) q.v[p->v[i]] = (int32_t)i;
    return q;
}

static bool per_axis(const lg_tensor *t) {
    return t->quant && (t->quant->n_scale > 1 || t->quant->n_zero_point > 1);
}

static bool dynamic(const lg_tensor *t) {
    for (uint32_t d = 0; d < t->n_shape_signature; d++)
        if (t->shape_signature[d] < 0) return true;
    return false;
}

/* Op i is TRANSPOSE by a constant permutation of its input's rank, type and quantization
   unchanged: the permutation into *p. */
static bool transpose_of(const lg_pass_ctx *c, uint32_t i, perm *p) {
    if (lgp_code(c, i) != LG_OP_TRANSPOSE) return false;
    const lg_op *op = lgp_op(c, i);
    if (op->n_inputs != 2 || op->n_outputs != 1 || op->inputs[0] < 0 || op->outputs[0] < 0)
        return false;
    int64_t v[LG_MAX_RANK];
    uint32_t n = 0;
    if (!lgp_const_ints(c, op->inputs[1], v, LG_MAX_RANK, &n) || n == 0) return false;
    const lg_tensor *x = lgp_tensor(c, op->inputs[0]), *y = lgp_tensor(c, op->outputs[0]);
    if (x->rank != n || y->rank != n || x->type != y->type || !lg_tensor_same_quant(x, y) || per_axis(x))
        return false;
    unsigned seen = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (v[k] < 0 || v[k] >= (int64_t)n || (seen & (1u << v[k]))) return false;
        seen |= 1u << v[k];
        p->v[k] = (int32_t)v[k];
    }
    p->n = n;
    return true;
}

/* The source a when t = TRANSPOSE(a, p), else -1. */
static int32_t transposed_src(const lg_pass_ctx *c, const lg_graph *g, int32_t t, const perm *p) {
    int32_t pr = lg_graph_producer(g, t);
    perm pp;
    if (pr < 0 || !transpose_of(c, (uint32_t)pr, &pp) || !perm_equal(&pp, p)) return -1;
    return lgp_op(c, (uint32_t)pr)->inputs[0];
}

/* Op z is TRANSPOSE(y, po^-1) whose output is not a graph output (or may be, with
   allow_output: then X' writes that output tensor itself): it cancels against a T_po on y. */
static bool is_cancel(const lg_pass_ctx *c, const lg_graph *g, uint32_t z, int32_t y,
                      const perm *po, bool allow_output) {
    perm pz;
    if (!transpose_of(c, z, &pz) || lgp_op(c, z)->inputs[0] != y) return false;
    perm q = perm_inverse(po);
    return perm_equal(&pz, &q) && (allow_output || !lg_graph_is_output(g, lgp_op(c, z)->outputs[0]));
}

/* Every use of t is by op x (uses by TRANSPOSE(cancel_p^-1) not counted when cancel_p is
   given: they cancel), and t is not a graph output. */
static bool only_used_by(const lg_pass_ctx *c, const lg_graph *g, int32_t t, uint32_t x,
                         const perm *cancel_p) {
    if (lg_graph_is_output(g, t)) return false;
    uint32_t n = 0;
    const lg_use *u = lg_graph_uses(g, t, &n);
    for (uint32_t k = 0; k < n; k++) {
        if (u[k].op == (int32_t)x) continue;
        if (cancel_p && is_cancel(c, g, (uint32_t)u[k].op, t, cancel_p, false)) continue;
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------ one move */

enum { IN_SRC, IN_VIRT, IN_KEEP, IN_CONST, IN_INSERT, IN_AXES, IN_PADS, IN_CHAIN };
enum { MV_EW, MV_CONCAT, MV_REDUCE, MV_RESHAPE, MV_PAD };

typedef struct move {
    uint32_t x;                  /* the op the transposes move below */
    int kind;
    perm p, po;                  /* the sunk permutation, the one put on the output */
    bool po_identity;            /* nothing goes on the output: X keeps writing y */
    uint32_t n_in;
    uint8_t in[MAX_IN];          /* IN_* per input slot */
    int32_t src[MAX_IN];         /* IN_SRC: the transpose's source; IN_CHAIN: U's (-1: vt) */
    int32_t chain[MAX_IN];       /* IN_CHAIN: the one-input elementwise op U writing the input */
    int32_t drop[MAX_IN];        /* transpose ops that feed only X */
    uint32_t n_drop;
    bool virt_dropped;           /* lookahead: the moved (virtual) transpose dies */
    int32_t cancel[MAX_CANCEL];  /* consumers of y that cancel */
    uint32_t n_cancel;
    int32_t write;               /* a cancelled consumer's graph output X' writes, or -1 */
    bool out_t;                  /* T_po is needed on the output */
    uint32_t n_insert;
    int32_t axis;                /* CONCAT: the new axis */
    int32_t axes[LG_MAX_RANK];   /* REDUCE: the new axes */
    uint32_t n_axes;
    int64_t pads[2 * LG_MAX_RANK]; /* PAD: the new paddings ([r,2], row p[i] = row i) */
    int32_t yshape[LG_MAX_RANK]; /* X' output shape */
    uint32_t yrank;
    int delta;                   /* change in the number of TRANSPOSE ops */
} move;

/* Op u is one of the move's IN_CHAIN ops. */
static bool is_chain_op(const move *mv, int32_t u) {
    for (uint32_t s = 0; s < mv->n_in; s++)
        if (mv->in[s] == IN_CHAIN && mv->chain[s] == u) return true;
    return false;
}

/* Every use of t is by X or by one of the move's IN_CHAIN ops (uses by TRANSPOSE(cancel_p^-1)
   not counted when cancel_p is given: they cancel), and t is not a graph output. */
static bool only_used_by_move(const lg_pass_ctx *c, const lg_graph *g, int32_t t, const move *mv,
                              const perm *cancel_p) {
    if (lg_graph_is_output(g, t)) return false;
    uint32_t n = 0;
    const lg_use *u = lg_graph_uses(g, t, &n);
    for (uint32_t k = 0; k < n; k++) {
        if (u[k].op == (int32_t)mv->x || is_chain_op(mv, u[k].op)) continue;
        if (cancel_p && is_cancel(c, g, (uint32_t)u[k].op, t, cancel_p, false)) continue;
        return false;
    }
    return true;
}

/* Input t of X (rank r) is written by a one-input elementwise op U whose input is vt or a
   TRANSPOSE(p) output, and only X reads t: U's op index, and in *src the tensor U will read
   (the transpose's source; -1 for vt). Else -1. */
static int32_t chain_of(const lg_pass_ctx *c, const lg_graph *g, int32_t t, uint32_t x, int32_t vt,
                        const perm *p, int32_t *src) {
    int32_t u = lg_graph_producer(g, t);
    if (u < 0 || u == (int32_t)x) return -1;
    const lg_op *op = lgp_op(c, (uint32_t)u);
    const lg_op_info *e = lg_op_info_of(c->m, op);
    int32_t code = lgp_code(c, (uint32_t)u);
    if (!e || !(e->flags & LG_OPF_ELEMENTWISE) || code < 0 || code == LG_OP_CUSTOM ||
        e->family == LG_FAM_STABLEHLO || op->n_inputs != 1 || op->n_outputs != 1 || op->inputs[0] < 0)
        return -1;
    const lg_tensor *tt = lgp_tensor(c, t), *ti = lgp_tensor(c, op->inputs[0]);
    if (tt->rank != p->n || ti->rank != p->n || tt->is_variable || per_axis(tt) || per_axis(ti) ||
        dynamic(tt) || dynamic(ti) || !only_used_by(c, g, t, x, NULL))
        return -1;
    if (op->inputs[0] == vt) {
        *src = -1;
        return u;
    }
    *src = transposed_src(c, g, op->inputs[0], p);
    return *src >= 0 ? u : -1;
}

static bool is_reduce(int32_t code) {
    return code == LG_OP_MEAN || code == LG_OP_SUM || code == LG_OP_REDUCE_PROD ||
           code == LG_OP_REDUCE_MAX || code == LG_OP_REDUCE_MIN || code == LG_OP_REDUCE_ANY ||
           code == LG_OP_REDUCE_ALL;
}

/* A constant whose bytes can be permuted: dense, whole-byte elements, size as its shape. */
static bool const_permutable(const lg_pass_ctx *c, int32_t t) {
    const lg_tensor *x = lgp_tensor(c, t);
    int bits = lg_dtype_bits(x->type);
    int64_t n = lg_tensor_numel(x);
    if (bits <= 0 || bits % 8 || n < 0 || x->sparsity || x->buffer >= c->m->n_buffers) return false;
    const lg_buffer *b = &c->m->buffers[x->buffer];
    return b->data && b->size == (uint64_t)n * (uint64_t)(bits / 8);
}

/* Classify X's data inputs (slots < n_data); false if one cannot follow. */
static bool classify_inputs(const lg_pass_ctx *c, const lg_graph *g, const lg_op_info *e,
                            int32_t vt, uint32_t n_data, move *mv) {
    const lg_op *op = lgp_op(c, mv->x);
    uint32_t r = mv->p.n;
    bool any = false;
    for (uint32_t s = 0; s < n_data; s++) {
        int32_t t = op->inputs[s];
        if (t < 0) return false;
        const lg_tensor *tt = lgp_tensor(c, t);
        if (per_axis(tt) || dynamic(tt)) return false;
        if (t == vt) {
            mv->in[s] = IN_VIRT;
            any = true;
            continue;
        }
        int32_t src = transposed_src(c, g, t, &mv->p);
        if (src >= 0) {
            mv->in[s] = IN_SRC;
            mv->src[s] = src;
            any = true;
            continue;
        }
        int32_t u = mv->kind == MV_EW ? chain_of(c, g, t, mv->x, vt, &mv->p, &src) : -1;
        if (u >= 0) {
            mv->in[s] = IN_CHAIN;
            mv->chain[s] = u;
            mv->src[s] = src;
            any = true;
            continue;
        }
        if (mv->kind == MV_REDUCE || mv->kind == MV_RESHAPE || mv->kind == MV_PAD || tt->rank > r)
            return false;
        if (lg_tensor_numel(tt) == 1) {
            mv->in[s] = IN_KEEP; /* one element: the same under any permutation */
        } else if (lg_tensor_is_const(c->m, c->sg, t)) {
            if ((!(e->flags & LG_OPF_BROADCAST) && tt->rank != r) || !const_permutable(c, t))
                return false;
            mv->in[s] = IN_CONST;
        } else {
            if (tt->rank != r) return false;
            mv->in[s] = IN_INSERT;
            mv->n_insert++;
        }
    }
    return any;
}

/* a.shape, from X's transposed input (a.shape[p[i]] = in.shape[i]). */
static void source_shape(const lg_pass_ctx *c, const move *mv, int32_t *ashape) {
    const lg_tensor *in = lgp_tensor(c, lgp_op(c, mv->x)->inputs[0]);
    for (uint32_t i = 0; i < mv->p.n; i++) ashape[mv->p.v[i]] = in->shape[i];
}

static bool reduce_rule(const lg_pass_ctx *c, int32_t code, move *mv) {
    const lg_op *op = lgp_op(c, mv->x);
    uint32_t r = mv->p.n;
    int64_t ax[2 * LG_MAX_RANK];
    uint32_t nax = 0;
    if (op->n_inputs != 2 || !lgp_const_ints(c, op->inputs[1], ax, 2 * LG_MAX_RANK, &nax))
        return false;
    unsigned A = 0, pA = 0;
    for (uint32_t k = 0; k < nax; k++) {
        int64_t v = ax[k] < 0 ? ax[k] + (int64_t)r : ax[k];
        if (v < 0 || v >= (int64_t)r) return false;
        A |= 1u << v;
    }
    if (!A) return false;
    int32_t last = -1;
    for (uint32_t i = 0; i < r; i++) {
        if (!(A & (1u << i))) continue;
        bool order_free = code != LG_OP_SUM && code != LG_OP_MEAN && code != LG_OP_REDUCE_PROD;
        if (!order_free && mv->p.v[i] < last) return false; /* the fold order would change */
        last = mv->p.v[i];
        pA |= 1u << mv->p.v[i];
    }
    bool keep = op->opts_kind == LG_OPTS_REDUCER_OPTIONS && op->opts &&
                ((const lg_reducer_options *)op->opts)->keep_dims;
    int32_t ashape[LG_MAX_RANK];
    source_shape(c, mv, ashape);
    mv->n_axes = 0;
    for (uint32_t j = 0; j < r; j++)
        if (pA & (1u << j)) mv->axes[mv->n_axes++] = (int32_t)j;
    if (keep) {
        mv->po = mv->p;
        mv->yrank = r;
        for (uint32_t j = 0; j < r; j++) mv->yshape[j] = (pA & (1u << j)) ? 1 : ashape[j];
        return true;
    }
    /* kept dims: Ry of the input (in order), Ra of the source; po[k] = position of p[Ry[k]]
       in Ra */
    int32_t pos[LG_MAX_RANK];
    uint32_t na = 0, ny = 0;
    for (uint32_t j = 0; j < r; j++)
        if (!(pA & (1u << j))) {
            pos[j] = (int32_t)na;
            mv->yshape[na++] = ashape[j];
        }
    mv->po.n = 0;
    for (uint32_t i = 0; i < r; i++)
        if (!(A & (1u << i))) mv->po.v[ny++] = pos[mv->p.v[i]];
    mv->po.n = ny;
    mv->yrank = na;
    return true;
}

static bool concat_rule(const lg_pass_ctx *c, move *mv) {
    const lg_op *op = lgp_op(c, mv->x);
    int32_t r = (int32_t)mv->p.n, axis = 0;
    if (op->opts_kind == LG_OPTS_CONCATENATION_OPTIONS && op->opts)
        axis = ((const lg_concatenation_options *)op->opts)->axis;
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) return false;
    mv->axis = mv->p.v[axis];
    return true;
}

/* PAD/PADV2/MIRROR_PAD: the paddings of dim i go to dim p[i] (the pad value, the mode stay). */
static bool pad_rule(const lg_pass_ctx *c, move *mv) {
    const lg_op *op = lgp_op(c, mv->x);
    int64_t v[2 * LG_MAX_RANK];
    uint32_t n = 0, r = mv->p.n;
    if (op->n_inputs < 2 || !lgp_const_ints(c, op->inputs[1], v, 2 * LG_MAX_RANK, &n) || n != 2 * r)
        return false;
    int8_t type = lgp_tensor(c, op->inputs[1])->type;
    for (uint32_t k = 0; k < n; k++)
        if (type == LG_INT32 && (v[k] < INT32_MIN || v[k] > INT32_MAX)) return false;
    for (uint32_t i = 0; i < r; i++) {
        mv->pads[2 * mv->p.v[i]] = v[2 * i];
        mv->pads[2 * mv->p.v[i] + 1] = v[2 * i + 1];
    }
    mv->in[1] = IN_PADS;
    return true;
}

/* The transposed input moves only 1-sized dims: T_p(a) is a in memory. */
static bool reshape_rule(const lg_pass_ctx *c, move *mv) {
    const lg_op *op = lgp_op(c, mv->x);
    if (op->n_inputs > 1 && op->inputs[1] == op->inputs[0]) return false;
    const lg_tensor *in = lgp_tensor(c, op->inputs[0]);
    int32_t last = -1;
    for (uint32_t i = 0; i < mv->p.n; i++) {
        if (in->shape[i] == 1) continue;
        if (mv->p.v[i] < last) return false;
        last = mv->p.v[i];
    }
    mv->po_identity = true;
    return true;
}

/* The move of the TRANSPOSE(p) outputs among X's inputs (and of vt, a tensor taken to be
   TRANSPOSE(p) of something: the lookahead's moved transpose) below X, and its count. */
static bool eval(const lg_pass_ctx *c, const lg_graph *g, uint32_t x, const perm *p, int32_t vt,
                 move *mv) {
    memset(mv, 0, sizeof *mv);
    const lg_op *op = lgp_op(c, x);
    const lg_op_info *e = lg_op_info_of(c->m, op);
    int32_t code = lgp_code(c, x);
    if (!e || code < 0 || code == LG_OP_CUSTOM || e->family == LG_FAM_STABLEHLO) return false;
    if (op->n_outputs != 1 || op->outputs[0] < 0 || op->n_inputs == 0 || op->n_inputs > MAX_IN)
        return false;
    int32_t y = op->outputs[0];
    const lg_tensor *ty = lgp_tensor(c, y);
    if (ty->is_variable || per_axis(ty) || dynamic(ty)) return false;
    mv->x = x;
    mv->write = -1;
    mv->p = *p;
    mv->n_in = op->n_inputs;
    uint32_t r = p->n;
    if (code == LG_OP_CONCATENATION) mv->kind = MV_CONCAT;
    else if (is_reduce(code)) mv->kind = MV_REDUCE;
    else if (code == LG_OP_RESHAPE) mv->kind = MV_RESHAPE;
    else if (code == LG_OP_PAD || code == LG_OP_PADV2 || code == LG_OP_MIRROR_PAD) mv->kind = MV_PAD;
    else if (e->flags & LG_OPF_ELEMENTWISE) mv->kind = MV_EW;
    else return false;
    uint32_t n_data = mv->kind == MV_EW || mv->kind == MV_CONCAT ? op->n_inputs : 1;
    for (uint32_t s = n_data; s < op->n_inputs; s++)
        mv->in[s] = mv->kind == MV_REDUCE ? IN_AXES : IN_KEEP;
    if (!classify_inputs(c, g, e, vt, n_data, mv)) return false;
    if (mv->kind == MV_EW || mv->kind == MV_CONCAT || mv->kind == MV_PAD) {
        if (ty->rank != r || (mv->kind == MV_CONCAT && !concat_rule(c, mv)) ||
            (mv->kind == MV_PAD && !pad_rule(c, mv)))
            return false;
        mv->po = *p;
        mv->yrank = r;
        for (uint32_t i = 0; i < r; i++) mv->yshape[p->v[i]] = ty->shape[i];
    } else if (mv->kind == MV_REDUCE) {
        if (!reduce_rule(c, code, mv)) return false;
    } else if (!reshape_rule(c, mv)) {
        return false;
    }
    if (!mv->po_identity) mv->po_identity = perm_identity(&mv->po);
    /* the count: the transposes read by X and its chain ops (IN_CHAIN) only are dropped */
    for (uint32_t s = 0; s < n_data; s++) {
        bool virt = mv->in[s] == IN_VIRT || (mv->in[s] == IN_CHAIN && mv->src[s] < 0);
        if (virt && !mv->virt_dropped) mv->virt_dropped = only_used_by_move(c, g, vt, mv, p);
        if (mv->in[s] != IN_SRC && (mv->in[s] != IN_CHAIN || mv->src[s] < 0)) continue;
        int32_t t = mv->in[s] == IN_SRC ? op->inputs[s] : lgp_op(c, (uint32_t)mv->chain[s])->inputs[0];
        int32_t pr = lg_graph_producer(g, t);
        bool seen = false;
        for (uint32_t k = 0; k < mv->n_drop; k++) seen |= mv->drop[k] == pr;
        if (!seen && only_used_by_move(c, g, t, mv, NULL)) mv->drop[mv->n_drop++] = pr;
    }
    if (!mv->po_identity) {
        mv->out_t = lg_graph_is_output(g, y);
        uint32_t n = 0;
        const lg_use *u = lg_graph_uses(g, y, &n);
        for (uint32_t k = 0; k < n; k++) {
            if (k && u[k].op == u[k - 1].op) continue;
            uint32_t z = (uint32_t)u[k].op;
            if (mv->n_cancel < MAX_CANCEL && is_cancel(c, g, z, y, &mv->po, mv->write < 0)) {
                mv->cancel[mv->n_cancel++] = u[k].op;
                int32_t zo = lgp_op(c, z)->outputs[0];
                if (lg_graph_is_output(g, zo)) mv->write = zo;
            } else {
                mv->out_t = true;
            }
        }
    }
    mv->delta = (int)mv->out_t + (int)mv->n_insert - (int)mv->n_drop - (int)mv->virt_dropped -
                (int)mv->n_cancel;
    return true;
}

/* The move below the consumer of vt that every other consumer of vt (cancelling ones aside)
   moves with as its IN_CHAIN op: the only consumer, or X of a diamond X(vt, U(vt)). */
static bool next_move(const lg_pass_ctx *c, const lg_graph *g, int32_t vt, const perm *p, move *mv) {
    uint32_t n = 0;
    const lg_use *u = lg_graph_uses(g, vt, &n);
    for (uint32_t k = 0; k < n; k++) {
        if ((k && u[k].op == u[k - 1].op) || is_cancel(c, g, (uint32_t)u[k].op, vt, p, false)) continue;
        if (!eval(c, g, (uint32_t)u[k].op, p, vt, mv)) continue;
        bool all = true;
        for (uint32_t j = 0; j < n && all; j++)
            all = u[j].op == u[k].op || is_chain_op(mv, u[j].op) ||
                  is_cancel(c, g, (uint32_t)u[j].op, vt, p, false);
        if (all) return true;
    }
    return false;
}

/* After a move that kept the count, the transpose now on vt goes on: along its only
   consumer (its cancelling consumers and the ops moving with that consumer aside), moves that
   keep the count and insert nothing, up to one that lowers it. */
static bool continues(const lg_pass_ctx *c, const lg_graph *g, int32_t vt, perm p) {
    move mv;
    for (uint32_t depth = 0; depth < LOOKAHEAD; depth++) {
        if (lg_graph_is_output(g, vt) || !next_move(c, g, vt, &p, &mv)) return false;
        uint32_t z = mv.x;
        if (mv.delta < 0) return true;
        if (mv.delta > 0 || mv.n_insert || !mv.out_t) return false;
        vt = lgp_op(c, (uint32_t)z)->outputs[0];
        p = mv.po;
    }
    return false;
}

/* The first consumer of TRANSPOSE op i the transpose can move below. */
static bool find_move(const lg_pass_ctx *c, const lg_graph *g, uint32_t i, move *mv) {
    perm p;
    if (!transpose_of(c, i, &p) || perm_identity(&p)) return false;
    uint32_t n = 0;
    const lg_use *u = lg_graph_uses(g, lgp_op(c, i)->outputs[0], &n);
    for (uint32_t k = 0; k < n; k++) {
        if (k && u[k].op == u[k - 1].op) continue;
        if (!eval(c, g, (uint32_t)u[k].op, &p, -1, mv)) continue;
        if (mv->delta < 0) return true;
        if (mv->delta == 0 && !mv->n_insert && mv->out_t &&
            continues(c, g, lgp_op(c, mv->x)->outputs[0], mv->po))
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------ the rewrite */

static void name_of(const lg_pass_ctx *c, int32_t t, const char *suffix, char *buf, size_t size) {
    const char *n = lgp_tensor(c, t)->name;
    snprintf(buf, size, "%.150s/%s", n ? n : "t", suffix);
}

/* Give tensor `to` the per-tensor quantization of `from` (if any). */
static lg_status copy_quant(lg_pass_ctx *c, int32_t from, int32_t to) {
    const lg_quant *qz = lgp_tensor(c, from)->quant;
    if (!qz || !qz->n_scale) return LG_OK;
    float scale = qz->scale[0];
    int64_t zp = qz->n_zero_point ? qz->zero_point[0] : 0;
    return lg_tensor_set_quant(c->m, c->sg, (uint32_t)to, &scale, &zp, 1, 0, c->err);
}

static lg_status perm_const(lg_pass_ctx *c, const perm *p, int32_t near, int32_t *out) {
    char name[200];
    name_of(c, near, "perm", name, sizeof name);
    int32_t shape[1] = {(int32_t)p->n};
    return lg_subgraph_add_const(c->m, c->sg, name, LG_INT32, shape, 1, p->v, p->n * 4u, out,
                                 c->err);
}

/* Constant t (rank <= r) brought to the source layout: padded to rank r with leading 1s,
   transposed by q (out[o] = in[i], i[q[j]] = o[j]), leading 1s dropped again when the op
   broadcasts. */
static lg_status permuted_const(lg_pass_ctx *c, int32_t t, const perm *q, bool strip, int32_t *out) {
    const lg_tensor *x = lgp_tensor(c, t);
    uint32_t r = q->n, lead = r - x->rank, eb = (uint32_t)lg_dtype_bits(x->type) / 8;
    int64_t fs[LG_MAX_RANK], st[LG_MAX_RANK], os[LG_MAX_RANK], n = lg_tensor_numel(x);
    for (uint32_t d = 0; d < r; d++) fs[d] = d < lead ? 1 : x->shape[d - lead];
    for (int d = (int)r - 1, s = 1; d >= 0; d--) {
        st[d] = s;
        s *= (int)fs[d];
    }
    for (uint32_t j = 0; j < r; j++) os[j] = fs[q->v[j]];
    uint8_t *data = malloc((size_t)(n > 0 ? n : 1) * eb);
    if (!data) return lgi_fail(c->err, LG_ERR_NOMEM, "sink-transposes: out of memory");
    const uint8_t *from = c->m->buffers[x->buffer].data;
    int64_t o[LG_MAX_RANK] = {0};
    for (int64_t k = 0; k < n; k++) {
        int64_t off = 0;
        for (uint32_t j = 0; j < r; j++) off += o[j] * st[q->v[j]];
        memcpy(data + k * eb, from + off * eb, eb);
        for (int j = (int)r - 1; j >= 0; j--) { /* odometer over the output index */
            if (++o[j] < os[j]) break;
            o[j] = 0;
        }
    }
    uint32_t skip = 0;
    while (strip && skip + 1 < r && os[skip] == 1) skip++;
    int32_t shape[LG_MAX_RANK];
    for (uint32_t j = skip; j < r; j++) shape[j - skip] = (int32_t)os[j];
    char name[200];
    name_of(c, t, "transposed", name, sizeof name);
    lg_status st2 = lg_subgraph_add_const(c->m, c->sg, name, (lg_dtype)x->type, shape, r - skip,
                                          data, (uint64_t)n * eb, out, c->err);
    free(data);
    LG_TRY(st2);
    return copy_quant(c, t, *out);
}

/* A new tensor like t (type, quantization) with the given shape. */
static lg_status tensor_like(lg_pass_ctx *c, int32_t t, const char *suffix, const int32_t *shape,
                             uint32_t rank, int32_t *out) {
    char name[200];
    name_of(c, t, suffix, name, sizeof name);
    LG_TRY(lg_subgraph_add_tensor(c->m, c->sg, name, (lg_dtype)lgp_tensor(c, t)->type, shape,
                                  rank, out, c->err));
    return copy_quant(c, t, *out);
}

static lg_status add_transpose(lg_pass_ctx *c, int32_t version, int32_t in, int32_t perm_t,
                               int32_t out) {
    return lg_subgraph_add_op(c->m, c->sg, LG_OP_TRANSPOSE, NULL, version, (int32_t[]){in, perm_t},
                              2, (int32_t[]){out}, 1, LG_OPTS_NONE, NULL, NULL, c->err);
}

/* Runtime input b brought to the source layout by a new TRANSPOSE(b, q). */
static lg_status insert_transpose(lg_pass_ctx *c, int32_t version, int32_t b, const perm *q,
                                  int32_t *qt, int32_t *out) {
    if (*qt < 0) LG_TRY(perm_const(c, q, b, qt));
    int32_t shape[LG_MAX_RANK];
    const lg_tensor *tb = lgp_tensor(c, b);
    for (uint32_t j = 0; j < q->n; j++) shape[j] = tb->shape[q->v[j]];
    LG_TRY(tensor_like(c, b, "transposed", shape, q->n, out));
    return add_transpose(c, version, b, *qt, *out);
}

/* Chain op U (IN_CHAIN) reads src, the transpose's source, and its output t takes the
   source's layout (t.shape[p[i]] = old t.shape[i]); X keeps reading t. */
static lg_status move_chain_op(lg_pass_ctx *c, const perm *p, int32_t u, int32_t src) {
    int32_t t = lgp_op(c, (uint32_t)u)->outputs[0];
    const lg_tensor *tt = lgp_tensor(c, t);
    if (lgp_op(c, (uint32_t)u)->inputs[0] == src) return LG_OK; /* a second slot reading t */
    int32_t shape[LG_MAX_RANK];
    for (uint32_t i = 0; i < p->n; i++) shape[p->v[i]] = tt->shape[i];
    bool sig = tt->n_shape_signature != 0;
    LG_TRY(lg_op_set_inputs(c->m, c->sg, (uint32_t)u, &src, 1, c->err));
    LG_TRY(lg_tensor_set_shape(c->m, c->sg, t, shape, p->n, c->err));
    if (sig) LG_TRY(lg_tensor_set_shape_signature(c->m, c->sg, (uint32_t)t, shape, p->n, c->err));
    return LG_OK;
}

static lg_status new_inputs(lg_pass_ctx *c, const move *mv, int32_t version, int32_t *in) {
    const lg_op_info *e = lg_op_info_of(c->m, lgp_op(c, mv->x));
    perm q = perm_inverse(&mv->p);
    int32_t qt = -1;
    for (uint32_t s = 0; s < mv->n_in; s++) {
        switch (mv->in[s]) {
        case IN_SRC: in[s] = mv->src[s]; break;
        case IN_CHAIN: LG_TRY(move_chain_op(c, &mv->p, mv->chain[s], mv->src[s])); break;
        case IN_CONST:
            LG_TRY(permuted_const(c, in[s], &q, (e->flags & LG_OPF_BROADCAST) != 0, &in[s]));
            break;
        case IN_INSERT: LG_TRY(insert_transpose(c, version, in[s], &q, &qt, &in[s])); break;
        case IN_AXES: {
            char name[200];
            name_of(c, in[s], "sunk", name, sizeof name);
            int32_t shape[1] = {(int32_t)mv->n_axes};
            LG_TRY(lg_subgraph_add_const(c->m, c->sg, name, LG_INT32, shape, 1, mv->axes,
                                         mv->n_axes * 4u, &in[s], c->err));
            break;
        }
        case IN_PADS: {
            char name[200];
            name_of(c, in[s], "sunk", name, sizeof name);
            int32_t shape[2] = {(int32_t)mv->p.n, 2}, p32[2 * LG_MAX_RANK];
            bool wide = lgp_tensor(c, in[s])->type == LG_INT64;
            for (uint32_t k = 0; k < 2 * mv->p.n; k++) p32[k] = (int32_t)mv->pads[k];
            LG_TRY(lg_subgraph_add_const(c->m, c->sg, name, wide ? LG_INT64 : LG_INT32, shape, 2,
                                         wide ? (const void *)mv->pads : (const void *)p32,
                                         2 * mv->p.n * (wide ? 8u : 4u), &in[s], c->err));
            break;
        }
        default: break;
        }
    }
    return LG_OK;
}

/* X' writes y2 and T_po(y2) -> yt serves the readers of y that do not cancel. When y is not
   a graph output, y2 is y itself, reshaped, and yt a new tensor: the tensors that survive
   keep their names. A graph output keeps its tensor: y2 is the output of a cancelled
   TRANSPOSE that is a graph output (mv->write), or a new tensor. */
static lg_status rewire_output(lg_pass_ctx *c, const lg_graph *g, const move *mv, int32_t version) {
    int32_t y = lgp_op(c, mv->x)->outputs[0], y2 = mv->write, yt = y, pt = -1;
    if (y2 < 0 && !lg_graph_is_output(g, y)) {
        if (mv->out_t) {
            const lg_tensor *ty = lgp_tensor(c, y);
            int32_t shape[LG_MAX_RANK];
            memcpy(shape, ty->shape, ty->rank * sizeof shape[0]);
            LG_TRY(tensor_like(c, y, "transposed", shape, ty->rank, &yt));
            LG_TRY(lg_tensor_replace_uses(c->m, c->sg, y, yt, 0, NULL, c->err));
        }
        bool sig = lgp_tensor(c, y)->n_shape_signature != 0;
        LG_TRY(lg_tensor_set_shape(c->m, c->sg, y, mv->yshape, mv->yrank, c->err));
        if (sig)
            LG_TRY(lg_tensor_set_shape_signature(c->m, c->sg, (uint32_t)y, mv->yshape, mv->yrank,
                                                 c->err));
        y2 = y;
    } else if (y2 < 0) {
        LG_TRY(tensor_like(c, y, "sunk", mv->yshape, mv->yrank, &y2));
    }
    if (y2 != y) LG_TRY(lg_op_set_output(c->m, c->sg, mv->x, 0, y2, c->err));
    for (uint32_t k = 0; k < mv->n_cancel; k++) {
        int32_t zo = lgp_op(c, (uint32_t)mv->cancel[k])->outputs[0];
        if (zo != y2) LG_TRY(lg_tensor_replace_uses(c->m, c->sg, zo, y2, 0, NULL, c->err));
    }
    if (!mv->out_t) return LG_OK;
    LG_TRY(perm_const(c, &mv->po, y, &pt));
    return add_transpose(c, version, y2, pt, yt);
}

static int cmp_desc(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static lg_status sink_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    move mv;
    if (!find_move(c, g, i, &mv)) return LG_OK;
    uint32_t x = mv.x;
    int32_t version = c->m->opcodes[lgp_op(c, i)->opcode_index].version;
    int32_t in[MAX_IN];
    memcpy(in, lgp_op(c, x)->inputs, mv.n_in * sizeof in[0]);
    LG_TRY(new_inputs(c, &mv, version, in));
    LG_TRY(lg_op_set_inputs(c->m, c->sg, x, in, mv.n_in, c->err));
    if (mv.kind == MV_CONCAT) {
        lg_concatenation_options co;
        lg_opts_init(LG_OPTS_CONCATENATION_OPTIONS, &co, sizeof co);
        const lg_op *op = lgp_op(c, x);
        if (op->opts_kind == LG_OPTS_CONCATENATION_OPTIONS && op->opts)
            co = *(const lg_concatenation_options *)op->opts;
        co.axis = mv.axis;
        LG_TRY(lg_op_set_options(c->m, c->sg, x, LG_OPTS_CONCATENATION_OPTIONS, &co, c->err));
    }
    if (!mv.po_identity) LG_TRY(rewire_output(c, g, &mv, version));
    int32_t dead[MAX_IN + MAX_CANCEL];
    uint32_t nd = 0;
    for (uint32_t k = 0; k < mv.n_drop; k++) dead[nd++] = mv.drop[k];
    for (uint32_t k = 0; k < mv.n_cancel; k++) dead[nd++] = mv.cancel[k];
    qsort(dead, nd, sizeof dead[0], cmp_desc);
    for (uint32_t k = 0; k < nd; k++) LG_TRY(lg_op_remove(c->m, c->sg, (uint32_t)dead[k], c->err));
    LG_TRY(lg_subgraph_toposort(c->m, c->sg, NULL, c->err));
    c->delta->applied++;
    c->delta->ops_removed += nd;
    c->delta->ops_added += (uint32_t)mv.out_t + mv.n_insert;
    return LG_OK;
}

static bool sink_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    move mv;
    return find_move(c, g, i, &mv);
}

const lg_pass lgp_sink_transposes = {
    "sink-transposes",
    "move transposes below layout-agnostic ops until they meet their inverse; never adds one",
    {NULL}, true, 0, sink_match, sink_apply, false};
