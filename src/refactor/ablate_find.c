/* lg_ablate_find and lg_ablate_bypass (lg/ablate.h): removable residual blocks y = x + F(x) of
   subgraph 0 and their bypass (every use of y replaced by x, the dead ops removed, compacted).
   The rules are the handbook's preconditions for removing a block (seed 001, chapter 4,
   "Problem and preconditions": the input and output contracts match, no second output). */
#include "refactor/ablate_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/graph.h"
#include "lg/info.h"
#include "lg/ops.h"

const char *lg_ablate_metric_name(lg_ablate_metric k) {
    switch (k) {
    case LG_ABLATE_KL: return "kl";
    case LG_ABLATE_MSE: return "mse";
    case LG_ABLATE_ARGMAX: return "argmax";
    }
    return "?";
}

int lg_ablate_metric_from_name(const char *s) {
    if (!s) return -1;
    for (int k = 0; k < LG_ABLATE_N_METRICS; k++)
        if (strcmp(s, lg_ablate_metric_name((lg_ablate_metric)k)) == 0) return k;
    return -1;
}

/* ---------------------------------------------------------------- helpers */

typedef struct fctx {
    const lg_model *m;
    const lg_subgraph *sg;
    const lg_graph *g;
    uint8_t *desc, *anc, *inf; /* per op */
    uint8_t *constcomp;        /* per op: computed from constants only (DEQUANTIZE of a weight) */
    int32_t *stack;
} fctx;

static const char *tname(const lg_subgraph *sg, int32_t t) {
    const char *n = t >= 0 && (uint32_t)t < sg->n_tensors ? sg->tensors[t].name : NULL;
    return n ? n : "";
}

static bool is_const(const fctx *c, int32_t t) { return lg_tensor_is_const(c->m, 0, t); }

static bool is_param(const fctx *c, int32_t t) {
    if (t < 0 || !is_const(c, t)) return false;
    const lg_tensor *tt = &c->sg->tensors[t];
    return lg_tensor_weight_type(tt) && lg_tensor_numel(tt) >= 2;
}

/* Ops reached from tensor x, among ops before `limit`. */
static void mark_desc(fctx *c, int32_t x, uint32_t limit) {
    memset(c->desc, 0, c->sg->n_ops);
    uint32_t sp = 0;
    c->stack[sp++] = x;
    while (sp) {
        int32_t t = c->stack[--sp];
        uint32_t n = 0;
        const lg_use *u = lg_graph_uses(c->g, t, &n);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t op = (uint32_t)u[k].op;
            if (op >= limit || c->desc[op]) continue;
            c->desc[op] = 1;
            const lg_op *o = &c->sg->ops[op];
            for (uint32_t j = 0; j < o->n_outputs; j++)
                if (o->outputs[j] >= 0) c->stack[sp++] = o->outputs[j];
        }
    }
}

/* Ops that tensor b is computed from. */
static void mark_anc(fctx *c, int32_t b) {
    memset(c->anc, 0, c->sg->n_ops);
    uint32_t sp = 0;
    c->stack[sp++] = b;
    while (sp) {
        int32_t t = c->stack[--sp];
        int32_t p = lg_graph_producer(c->g, t);
        if (p < 0 || c->anc[p]) continue;
        c->anc[p] = 1;
        const lg_op *o = &c->sg->ops[p];
        for (uint32_t j = 0; j < o->n_inputs; j++)
            if (o->inputs[j] >= 0) c->stack[sp++] = o->inputs[j];
    }
}

/* Ops computed from constants only (every input a constant or such an op's output, no state,
   no randomness): a weight's DEQUANTIZE in an fp16 model, a folded-away transpose. */
static void mark_constcomp(fctx *c) {
    const lg_subgraph *sg = c->sg;
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *o = &sg->ops[i];
        const lg_op_info *e = lg_op_info_of(c->m, o);
        bool cc = e && !(e->flags & (LG_OPF_STATEFUL | LG_OPF_SUBGRAPHS | LG_OPF_RANDOM)) && o->n_inputs > 0;
        for (uint32_t j = 0; j < o->n_inputs && cc; j++) {
            int32_t t = o->inputs[j];
            if (t < 0 || is_const(c, t)) continue;
            int32_t p = lg_graph_producer(c->g, t);
            cc = p >= 0 && (uint32_t)p < i && c->constcomp[p];
        }
        c->constcomp[i] = cc;
    }
}

/* F's constant feeders: ops computed from constants whose outputs only F reads (the weight's
   DEQUANTIZE) belong to F, so the bypass removes exactly F. Backward in op order, so a chain
   (DEQUANTIZE -> RESHAPE -> F) joins whole. */
static uint32_t add_feeders(fctx *c, uint32_t limit) {
    const lg_subgraph *sg = c->sg;
    uint32_t added = 0;
    for (uint32_t i = limit; i-- > 0;) {
        if (c->inf[i] || !c->constcomp[i]) continue;
        const lg_op *o = &sg->ops[i];
        bool feeds = o->n_outputs > 0;
        for (uint32_t j = 0; j < o->n_outputs && feeds; j++) {
            int32_t t = o->outputs[j];
            if (t < 0) continue;
            uint32_t nu = 0;
            const lg_use *u = lg_graph_uses(c->g, t, &nu);
            feeds = nu > 0 && !lg_graph_is_output(c->g, t);
            for (uint32_t k = 0; k < nu && feeds; k++) feeds = c->inf[u[k].op];
        }
        if (feeds) c->inf[i] = 1, added++;
    }
    return added;
}

/* F = ops reached from x that b is computed from, with their constant feeders; their count. */
static uint32_t mark_f(fctx *c, int32_t x, int32_t b, uint32_t limit) {
    mark_desc(c, x, limit);
    mark_anc(c, b);
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->sg->n_ops; i++) {
        c->inf[i] = c->desc[i] && c->anc[i];
        n += c->inf[i];
    }
    return n ? n + add_feeders(c, limit) : 0;
}

static bool same_shape(const lg_tensor *a, const lg_tensor *b) {
    if (a->rank != b->rank) return false;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i]) return false;
    return true;
}

static void shape_text(const lg_tensor *t, char *buf, size_t n) {
    size_t p = (size_t)snprintf(buf, n, "[");
    for (uint32_t i = 0; i < t->rank && p < n; i++) p += (size_t)snprintf(buf + p, n - p, "%s%d", i ? "," : "", t->shape[i]);
    if (p < n) snprintf(buf + p, n - p, "]");
}

/* Why F's internals are not private to it, or NULL (why is written). */
static bool f_private(const fctx *c, uint32_t add, int32_t b, char *why, size_t n) {
    const lg_subgraph *sg = c->sg;
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        if (!c->inf[i]) continue;
        const lg_op *o = &sg->ops[i];
        for (uint32_t j = 0; j < o->n_outputs; j++) {
            int32_t t = o->outputs[j];
            if (t < 0) continue;
            if (lg_graph_is_output(c->g, t)) {
                snprintf(why, n, "tensor \"%s\" inside F (op %u %s) is a model output", tname(sg, t), i, lg_op_name(c->m, o));
                return false;
            }
            uint32_t nu = 0;
            const lg_use *u = lg_graph_uses(c->g, t, &nu);
            for (uint32_t k = 0; k < nu; k++) {
                uint32_t q = (uint32_t)u[k].op;
                if (c->inf[q] || (q == add && t == b)) continue;
                snprintf(why, n, "tensor \"%s\" inside F (op %u %s) is also read by op %u %s outside the block", tname(sg, t), i,
                         lg_op_name(c->m, o), q, lg_op_name(c->m, &sg->ops[q]));
                return false;
            }
        }
    }
    return true;
}

/* F's inputs from outside: constants, x, or tensors something outside F reads too. */
static bool f_inputs(const fctx *c, int32_t x, char *why, size_t n) {
    const lg_subgraph *sg = c->sg;
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        if (!c->inf[i]) continue;
        const lg_op *o = &sg->ops[i];
        const lg_op_info *e = lg_op_info_of(c->m, o);
        if (!e || (e->flags & (LG_OPF_STATEFUL | LG_OPF_SUBGRAPHS))) {
            snprintf(why, n, "op %u %s inside F has state, calls subgraphs or is unknown", i, lg_op_name(c->m, o));
            return false;
        }
        for (uint32_t j = 0; j < o->n_inputs; j++) {
            int32_t t = o->inputs[j];
            if (t < 0 || t == x || is_const(c, t) || sg->tensors[t].is_variable || lg_graph_is_input(c->g, t)) continue;
            int32_t p = lg_graph_producer(c->g, t);
            if (p >= 0 && c->inf[p]) continue;
            bool other = lg_graph_is_output(c->g, t);
            uint32_t nu = 0;
            const lg_use *u = lg_graph_uses(c->g, t, &nu);
            for (uint32_t k = 0; k < nu && !other; k++) other = !c->inf[u[k].op];
            if (!other) {
                snprintf(why, n, "F reads tensor \"%s\", computed outside the block and read by nothing else (the bypass "
                         "would remove ops outside the block)", tname(sg, t));
                return false;
            }
        }
    }
    return true;
}

static bool f_has_params(const fctx *c) {
    for (uint32_t i = 0; i < c->sg->n_ops; i++) {
        if (!c->inf[i]) continue;
        const lg_op *o = &c->sg->ops[i];
        for (uint32_t j = 0; j < o->n_inputs; j++)
            if (is_param(c, o->inputs[j])) return true;
    }
    return false;
}

/* Learned parameters of the buffers that only F's ops read (every tensor of the buffer, in
   every subgraph, read by F only); the first tensor of a buffer counts it, as info.c. */
static uint64_t f_params(const fctx *c) {
    const lg_model *m = c->m;
    uint64_t total = 0;
    for (uint32_t i = 0; i < c->sg->n_ops; i++) {
        if (!c->inf[i]) continue;
        const lg_op *o = &c->sg->ops[i];
        for (uint32_t j = 0; j < o->n_inputs; j++) {
            int32_t t = o->inputs[j];
            if (t < 0 || !is_const(c, t)) continue;
            uint32_t buf = c->sg->tensors[t].buffer;
            bool only_f = true, first = true, counted_before = false;
            const lg_tensor *claim = NULL;
            for (uint32_t s = 0; s < m->n_subgraphs && only_f; s++)
                for (uint32_t k = 0; k < m->subgraphs[s].n_tensors && only_f; k++) {
                    const lg_tensor *tt = &m->subgraphs[s].tensors[k];
                    if (tt->buffer != buf) continue;
                    if (first) claim = tt, first = false;
                    if (s != 0) { only_f = false; break; }
                    if (lg_graph_is_output(c->g, (int32_t)k)) only_f = false;
                    uint32_t nu = 0;
                    const lg_use *u = lg_graph_uses(c->g, (int32_t)k, &nu);
                    for (uint32_t q = 0; q < nu; q++)
                        if (!c->inf[u[q].op]) only_f = false;
                }
            /* count each buffer once: skip it if an earlier input of F (in op, slot order) has it */
            for (uint32_t i2 = 0; i2 <= i && !counted_before; i2++) {
                if (!c->inf[i2]) continue;
                const lg_op *o2 = &c->sg->ops[i2];
                uint32_t lim = i2 == i ? j : o2->n_inputs;
                for (uint32_t j2 = 0; j2 < lim; j2++) {
                    int32_t t2 = o2->inputs[j2];
                    if (t2 >= 0 && is_const(c, t2) && c->sg->tensors[t2].buffer == buf) counted_before = true;
                }
            }
            if (only_f && !counted_before && claim && lg_tensor_weight_type(claim) && lg_tensor_numel(claim) >= 2)
                total += (uint64_t)lg_tensor_numel(claim);
        }
    }
    return total;
}

typedef struct kind_count { const char *name; uint32_t n; } kind_count;

static int kind_cmp(const void *a, const void *b) {
    const kind_count *x = a, *y = b;
    if (x->n != y->n) return x->n > y->n ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void f_kinds(const fctx *c, char *buf, size_t n) {
    kind_count k[64];
    uint32_t nk = 0;
    for (uint32_t i = 0; i < c->sg->n_ops; i++) {
        if (!c->inf[i]) continue;
        const char *nm = lg_op_name(c->m, &c->sg->ops[i]);
        uint32_t j = 0;
        while (j < nk && strcmp(k[j].name, nm) != 0) j++;
        if (j == nk && nk < 64) k[nk++] = (kind_count){nm, 0};
        if (j < nk) k[j].n++;
    }
    qsort(k, nk, sizeof *k, kind_cmp);
    size_t p = 0;
    buf[0] = 0;
    for (uint32_t j = 0; j < nk && p + 1 < n; j++) p += (size_t)snprintf(buf + p, n - p, "%s%s %u", j ? ", " : "", k[j].name, k[j].n);
}

/* ---------------------------------------------------------------- one ADD */

typedef enum { ADD_NONE, ADD_SKIP, ADD_BLOCK } add_kind;

/* A tensor computed from constants only (a DEQUANTIZE'd bias). */
static bool const_valued(const fctx *c, int32_t t) {
    int32_t p = lg_graph_producer(c->g, t);
    return p >= 0 && c->constcomp[p];
}

/* Classify ADD op a. ADD_NONE: an operand is a constant (a bias, GELU's 1 +): not a candidate. */
static add_kind classify(fctx *c, uint32_t a, int32_t *x_out, int32_t *b_out, char *why, size_t n) {
    const lg_subgraph *sg = c->sg;
    const lg_op *op = &sg->ops[a];
    if (op->n_inputs != 2 || op->n_outputs != 1 || op->inputs[0] < 0 || op->inputs[1] < 0 || op->outputs[0] < 0) return ADD_NONE;
    int32_t p = op->inputs[0], q = op->inputs[1], y = op->outputs[0];
    if (is_const(c, p) || is_const(c, q) || const_valued(c, p) || const_valued(c, q)) return ADD_NONE;
    int32_t x = p, b = q;
    if (p == q) {
        snprintf(why, n, "both operands are the same tensor (x + x)");
        return ADD_SKIP;
    }
    if (mark_f(c, x, b, a) == 0) {
        x = q, b = p;
        if (mark_f(c, x, b, a) == 0) {
            snprintf(why, n, "two independent branches: neither operand is computed from the other");
            return ADD_SKIP;
        }
    }
    *x_out = x, *b_out = b;
    const lg_tensor *tx = &sg->tensors[x], *tb = &sg->tensors[b], *ty = &sg->tensors[y];
    if (!same_shape(tx, tb) || !same_shape(tx, ty)) {
        char s1[64], s2[64];
        shape_text(tx, s1, sizeof s1);
        shape_text(tb, s2, sizeof s2);
        snprintf(why, n, "operand shapes differ: x \"%s\" %s, F(x) \"%s\" %s (a broadcast, no identity bypass)", tname(sg, x), s1,
                 tname(sg, b), s2);
        return ADD_SKIP;
    }
    if (tx->type != ty->type || tx->type != tb->type || !lg_tensor_same_quant(tx, ty)) {
        snprintf(why, n, "x and y differ in type or quantization");
        return ADD_SKIP;
    }
    if (op->opts_kind == LG_OPTS_ADD_OPTIONS && op->opts && ((const lg_add_options *)op->opts)->fused_activation_function) {
        static const char *const acts[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"}; /* the schema's enum */
        int act = ((const lg_add_options *)op->opts)->fused_activation_function;
        snprintf(why, n, "fused activation %s: act(x + F(x)) has no identity bypass", act >= 0 && act <= 5 ? acts[act] : "?");
        return ADD_SKIP;
    }
    if (!f_private(c, a, b, why, n) || !f_inputs(c, x, why, n)) return ADD_SKIP;
    if (!f_has_params(c)) {
        snprintf(why, n, "F holds no parameters (a block of parameter-free ops only)");
        return ADD_SKIP;
    }
    if (lg_graph_is_output(c->g, y) && (lg_graph_is_input(c->g, x) || lg_graph_is_output(c->g, x))) {
        snprintf(why, n, "y is a model output and x a model input or output: the bypass would merge two interface tensors");
        return ADD_SKIP;
    }
    uint32_t nu = 0;
    lg_graph_uses(c->g, y, &nu);
    if (!nu && !lg_graph_is_output(c->g, y)) {
        snprintf(why, n, "nothing reads the ADD's output");
        return ADD_SKIP;
    }
    return ADD_BLOCK;
}

/* ---------------------------------------------------------------- the list */

void lg_ablate_list_free(lg_ablate_list *l) {
    if (!l) return;
    free(l->blocks);
    free(l->skipped);
    free(l->in_f_);
    free(l);
}

bool lg_ablate_nested(const lg_ablate_list *l, uint32_t inner, uint32_t outer) {
    if (!l || inner >= l->n_blocks || outer >= l->n_blocks || inner == outer) return false;
    return l->in_f_[(size_t)outer * l->n_ops + (uint32_t)l->blocks[inner].add_op] != 0;
}

static lg_status grow(void **p, uint32_t n, size_t size, lg_error *err) {
    if (n & (n - 1)) return LG_OK; /* capacity doubles at powers of two */
    void *q = realloc(*p, (size_t)(n ? 2 * n : 1) * size);
    if (!q) return lgi_fail(err, LG_ERR_NOMEM, "ablate: out of memory");
    *p = q;
    return LG_OK;
}

static lg_status add_block(fctx *c, lg_ablate_list *l, uint32_t a, int32_t x, int32_t b, lg_error *err) {
    const lg_subgraph *sg = c->sg;
    LG_TRY(grow((void **)&l->blocks, l->n_blocks, sizeof *l->blocks, err));
    uint8_t *f = realloc(l->in_f_, (size_t)(l->n_blocks + 1) * sg->n_ops);
    if (!f) return lgi_fail(err, LG_ERR_NOMEM, "ablate: out of memory");
    l->in_f_ = f;
    memcpy(f + (size_t)l->n_blocks * sg->n_ops, c->inf, sg->n_ops);
    lg_ablate_block *k = &l->blocks[l->n_blocks];
    memset(k, 0, sizeof *k);
    k->id = l->n_blocks;
    k->add_op = (int32_t)a;
    k->x = x, k->fx = b, k->y = sg->ops[a].outputs[0];
    snprintf(k->name, sizeof k->name, "%s", tname(sg, k->y));
    snprintf(k->x_name, sizeof k->x_name, "%s", tname(sg, x));
    for (uint32_t i = 0; i < sg->n_ops; i++) k->n_ops += c->inf[i];
    f_kinds(c, k->kinds, sizeof k->kinds);
    k->params_f = f_params(c);
    k->parent = -1;
    for (int i = 0; i < LG_ABLATE_N_METRICS; i++) k->calib[i] = k->eval[i] = NAN;
    l->n_blocks++;
    return LG_OK;
}

static lg_status add_skip(const fctx *c, lg_ablate_list *l, uint32_t a, const char *why, lg_error *err) {
    LG_TRY(grow((void **)&l->skipped, l->n_skipped, sizeof *l->skipped, err));
    lg_ablate_skip *s = &l->skipped[l->n_skipped++];
    s->add_op = (int32_t)a;
    snprintf(s->name, sizeof s->name, "%s", tname(c->sg, c->sg->ops[a].outputs[0]));
    snprintf(s->why, sizeof s->why, "%s", why);
    return LG_OK;
}

/* Parents and depths from the F sets. */
static void nest(lg_ablate_list *l) {
    for (uint32_t i = 0; i < l->n_blocks; i++) {
        lg_ablate_block *k = &l->blocks[i];
        for (uint32_t j = 0; j < l->n_blocks; j++) {
            if (!lg_ablate_nested(l, i, j)) continue;
            k->depth++;
            if (k->parent < 0 || l->blocks[j].n_ops < l->blocks[k->parent].n_ops) k->parent = (int32_t)j;
        }
    }
}

/* params of each block: the learned parameters of m minus those of m with the block bypassed. */
static lg_status block_params(const lg_model *m, lg_ablate_list *l, lg_error *err) {
    uint64_t before = 0;
    LG_TRY(lg_model_learned_params(m, &before, err));
    for (uint32_t i = 0; i < l->n_blocks; i++) {
        lg_model *c = NULL;
        LG_TRY(lg_ablate_bypass(m, l, &i, 1, &c, err));
        uint64_t after = 0;
        lg_status st = lg_model_learned_params(c, &after, err);
        lg_model_free(c);
        LG_TRY(st);
        l->blocks[i].params = before - after;
    }
    return LG_OK;
}

lg_status lg_ablate_find(const lg_model *m, lg_ablate_list **out, lg_error *err) {
    if (out) *out = NULL;
    if (!m || !out || m->n_subgraphs == 0) return lgi_fail(err, LG_ERR_INVALID_ARG, "ablate: no model (or no subgraph)");
    const lg_subgraph *sg = &m->subgraphs[0];
    lg_graph *g = NULL;
    LG_TRY(lg_graph_build(m, 0, &g, err));
    fctx c = {m, sg, g, NULL, NULL, NULL, NULL, NULL};
    size_t nops = sg->n_ops ? sg->n_ops : 1;
    c.desc = calloc(nops, 1), c.anc = calloc(nops, 1), c.inf = calloc(nops, 1), c.constcomp = calloc(nops, 1);
    /* every tensor is pushed at most once per producer/use edge: the edges bound the stack */
    size_t edges = 1;
    for (uint32_t i = 0; i < sg->n_ops; i++) edges += sg->ops[i].n_inputs + sg->ops[i].n_outputs;
    c.stack = malloc(edges * sizeof *c.stack);
    lg_ablate_list *l = calloc(1, sizeof *l);
    lg_status st = LG_OK;
    if (!c.desc || !c.anc || !c.inf || !c.constcomp || !c.stack || !l) st = lgi_fail(err, LG_ERR_NOMEM, "ablate: out of memory");
    if (l) l->n_ops = sg->n_ops;
    if (st == LG_OK) mark_constcomp(&c);
    for (uint32_t a = 0; st == LG_OK && a < sg->n_ops; a++) {
        if (lg_op_builtin(m, &sg->ops[a]) != LG_OP_ADD) continue;
        int32_t x = -1, b = -1;
        char why[256] = "";
        add_kind k = classify(&c, a, &x, &b, why, sizeof why);
        if (k == ADD_BLOCK) st = add_block(&c, l, a, x, b, err);
        else if (k == ADD_SKIP) st = add_skip(&c, l, a, why, err);
    }
    free(c.desc), free(c.anc), free(c.inf), free(c.constcomp), free(c.stack);
    lg_graph_free(g);
    if (st == LG_OK) {
        nest(l);
        st = block_params(m, l, err);
    }
    if (st != LG_OK) {
        lg_ablate_list_free(l);
        return st;
    }
    *out = l;
    return LG_OK;
}

/* ---------------------------------------------------------------- the bypass */

static bool sg_is_output(const lg_subgraph *sg, int32_t t) {
    for (uint32_t i = 0; i < sg->n_outputs; i++)
        if (sg->outputs[i] == t) return true;
    return false;
}

static bool sg_is_input(const lg_subgraph *sg, int32_t t) {
    for (uint32_t i = 0; i < sg->n_inputs; i++)
        if (sg->inputs[i] == t) return true;
    return false;
}

/* Replace y by x (the model's outputs too; a y that is an output gives its name to x). */
static lg_status rewire(lg_model *m, const lg_ablate_block *k, lg_error *err) {
    const lg_subgraph *sg = &m->subgraphs[0];
    if (sg_is_output(sg, k->y)) {
        if (sg_is_input(sg, k->x) || sg_is_output(sg, k->x))
            return lgi_fail(err, LG_ERR_INVALID_ARG, "ablate: block %u: y \"%s\" is a model output and x \"%s\" an interface tensor",
                            k->id, k->name, k->x_name);
        char name[512];
        snprintf(name, sizeof name, "%s", tname(sg, k->y));
        LG_TRY(lg_tensor_set_name(m, 0, k->x, name, err));
    }
    return lg_tensor_replace_uses(m, 0, k->y, k->x, LG_REPLACE_OUTPUTS, NULL, err);
}

/* Remove the ops nothing reads (in one backward sweep: an op lives when an output is a model
   output, a variable, or read by a live op; ops with state or unknown ones always live, as
   the remove-dead pass). */
static lg_status remove_dead(lg_model *m, lg_error *err) {
    lg_subgraph *sg = &m->subgraphs[0];
    uint8_t *need = calloc(sg->n_tensors ? sg->n_tensors : 1, 1);
    uint8_t *live = calloc(sg->n_ops ? sg->n_ops : 1, 1);
    if (!need || !live) {
        free(need), free(live);
        return lgi_fail(err, LG_ERR_NOMEM, "ablate: out of memory");
    }
    for (uint32_t i = 0; i < sg->n_outputs; i++)
        if (sg->outputs[i] >= 0 && (uint32_t)sg->outputs[i] < sg->n_tensors) need[sg->outputs[i]] = 1;
    for (uint32_t i = sg->n_ops; i-- > 0;) {
        const lg_op *o = &sg->ops[i];
        const lg_op_info *e = lg_op_info_of(m, o);
        bool l = !e || (e->flags & (LG_OPF_STATEFUL | LG_OPF_SUBGRAPHS | LG_OPF_RANDOM)) ||
                 (lg_op_builtin(m, o) == LG_OP_CUSTOM && e->code != LG_OP_CUSTOM);
        for (uint32_t j = 0; j < o->n_outputs && !l; j++) {
            int32_t t = o->outputs[j];
            if (t >= 0 && (need[t] || sg->tensors[t].is_variable)) l = true;
        }
        live[i] = l;
        for (uint32_t j = 0; l && j < o->n_inputs; j++)
            if (o->inputs[j] >= 0) need[o->inputs[j]] = 1;
    }
    lg_status st = LG_OK;
    for (uint32_t i = sg->n_ops; st == LG_OK && i-- > 0;)
        if (!live[i]) st = lg_op_remove(m, 0, i, err);
    free(need), free(live);
    return st;
}

static int cmp_add_desc(const void *a, const void *b) {
    const lg_ablate_block *x = *(const lg_ablate_block *const *)a, *y = *(const lg_ablate_block *const *)b;
    return x->add_op > y->add_op ? -1 : x->add_op < y->add_op ? 1 : 0;
}

lg_status lg_ablate_bypass(const lg_model *m, const lg_ablate_list *l, const uint32_t *ids, uint32_t n, lg_model **out,
                           lg_error *err) {
    if (out) *out = NULL;
    if (!m || !l || !out || (n && !ids)) return lgi_fail(err, LG_ERR_INVALID_ARG, "ablate: bypass: bad arguments");
    if (m->n_subgraphs == 0 || m->subgraphs[0].n_ops != l->n_ops)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "ablate: bypass: the block list was made for another model");
    const lg_ablate_block **ks = calloc(n ? n : 1, sizeof *ks);
    if (!ks) return lgi_fail(err, LG_ERR_NOMEM, "ablate: out of memory");
    uint32_t nk = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (ids[i] >= l->n_blocks) {
            free(ks);
            return lgi_fail(err, LG_ERR_INVALID_ARG, "ablate: no block %u (the model has %u)", ids[i], l->n_blocks);
        }
        bool covered = false; /* inside another chosen block, or given twice */
        for (uint32_t j = 0; j < n && !covered; j++)
            covered = lg_ablate_nested(l, ids[i], ids[j]) || (j < i && ids[j] == ids[i]);
        if (!covered) ks[nk++] = &l->blocks[ids[i]];
    }
    /* later ADDs first: y of one block may be x of the next, so its uses are rewired again */
    qsort(ks, nk, sizeof *ks, cmp_add_desc);
    lg_model *c = NULL;
    lg_status st = lg_model_clone(m, &c, err);
    /* the block list holds tensor and op indices of m: the copy must keep them */
    if (st == LG_OK && (c->subgraphs[0].n_tensors != m->subgraphs[0].n_tensors || c->subgraphs[0].n_ops != m->subgraphs[0].n_ops))
        st = lgi_fail(err, LG_ERR_INTERNAL, "ablate: the model's copy renumbered its tensors");
    for (uint32_t i = 0; st == LG_OK && i < nk; i++) st = rewire(c, ks[i], err);
    free(ks);
    if (st == LG_OK) st = remove_dead(c, err);
    if (st == LG_OK) st = lg_model_compact(c, NULL, NULL, err);
    if (st == LG_OK) st = lg_model_validate(c, err);
    if (st == LG_OK) st = lg_model_validate_ops(c, err);
    if (st != LG_OK) {
        lgi_error_prefix(err, "ablate: bypass: ");
        lg_model_free(c);
        return st;
    }
    *out = c;
    return LG_OK;
}
