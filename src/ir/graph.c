/* The graph index (producers, uses, consumers of a subgraph's tensors) and the stable
   topological sort. Edits are in graph_edit.c, compaction in graph_compact.c.

   Both allocate only through the model's allocator hook (never the arena, never malloc):
   an lg_graph is one block, the sort's temporaries are freed before it returns. */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "lg/graph.h"

/* flag bits per tensor */
#define F_INPUT 1u
#define F_OUTPUT 2u
#define F_MULTI 4u

struct lg_graph {
    lg_alloc_fn alloc;
    void *ud;
    size_t bytes;         /* the whole block, for the free */
    uint32_t n_tensors;
    uint32_t n_multi;
    int32_t *producer;    /* [n_tensors] first producer or -1 */
    uint32_t *use_start;  /* [n_tensors + 1] CSR offsets into uses */
    lg_use *uses;         /* sorted by tensor, then op, then slot */
    uint32_t *n_cons;     /* [n_tensors] distinct consuming ops */
    uint8_t *flags;       /* [n_tensors] F_* */
};

/* Round up to 16 so that every array in the block is aligned. */
static uint64_t al16(uint64_t n) { return (n + 15) & ~(uint64_t)15; }

static lg_status op_fail(const lg_model *m, const lg_subgraph *s, uint32_t sgi, uint32_t i,
                         lg_error *err, const char *what, uint32_t k, int32_t t) {
    lg_status st = lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u op %u (%s): %s %u refers to "
                            "tensor %d of %u", sgi, i, lg_op_name(m, &s->ops[i]), what, k, t,
                            s->n_tensors);
    if (err) { err->subgraph = (int32_t)sgi; err->op = (int32_t)i; }
    return st;
}

/* Every tensor reference of the subgraph's ops and inputs/outputs is in range. */
static lg_status check_refs(const lg_model *m, uint32_t sgi, uint64_t *n_uses, lg_error *err) {
    const lg_subgraph *s = &m->subgraphs[sgi];
    uint64_t uses = 0;
    for (uint32_t i = 0; i < s->n_ops; i++) {
        const lg_op *op = &s->ops[i];
        if ((op->n_inputs && !op->inputs) || (op->n_outputs && !op->outputs))
            return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u op %u: a tensor list has a "
                            "count but no data", sgi, i);
        for (uint32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k];
            if (t == -1) continue;
            if (t < 0 || (uint32_t)t >= s->n_tensors)
                return op_fail(m, s, sgi, i, err, "input", k, t);
            uses++;
        }
        for (uint32_t k = 0; k < op->n_outputs; k++) {
            int32_t t = op->outputs[k];
            if (t < 0 || (uint32_t)t >= s->n_tensors)
                return op_fail(m, s, sgi, i, err, "output", k, t);
        }
    }
    const int32_t *io[2] = {s->inputs, s->outputs};
    uint32_t nio[2] = {s->n_inputs, s->n_outputs};
    for (int l = 0; l < 2; l++)
        for (uint32_t k = 0; k < nio[l]; k++)
            if (!io[l] || io[l][k] < 0 || (uint32_t)io[l][k] >= s->n_tensors)
                return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u: %s %u refers to tensor %d "
                                "of %u", sgi, l ? "output" : "input", k, io[l] ? io[l][k] : -1,
                                s->n_tensors);
    *n_uses = uses;
    return LG_OK;
}

static lg_status check_sg(const lg_model *m, uint32_t sg, lg_error *err) {
    if (!m || !m->priv) return lgi_fail(err, LG_ERR_INVALID_ARG, "no model given");
    if (sg >= m->n_subgraphs)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u of %u", sg, m->n_subgraphs);
    return LG_OK;
}

static void fill_index(lg_graph *g, const lg_subgraph *s) {
    uint32_t nt = s->n_tensors;
    for (uint32_t t = 0; t < nt; t++) g->producer[t] = -1;
    /* producers, first in op order; a second producing op marks the tensor */
    for (uint32_t i = 0; i < s->n_ops; i++) {
        const lg_op *op = &s->ops[i];
        for (uint32_t k = 0; k < op->n_outputs; k++) {
            int32_t t = op->outputs[k];
            if (g->producer[t] == -1) g->producer[t] = (int32_t)i;
            else if (g->producer[t] != (int32_t)i && !(g->flags[t] & F_MULTI)) {
                g->flags[t] |= F_MULTI;
                g->n_multi++;
            }
        }
    }
    /* uses: count, prefix sums, then fill in op/slot order (so each list comes out sorted) */
    for (uint32_t i = 0; i < s->n_ops; i++)
        for (uint32_t k = 0; k < s->ops[i].n_inputs; k++)
            if (s->ops[i].inputs[k] >= 0) g->use_start[s->ops[i].inputs[k] + 1]++;
    for (uint32_t t = 0; t < nt; t++) g->use_start[t + 1] += g->use_start[t];
    uint32_t *cursor = g->n_cons; /* borrowed, recomputed below */
    for (uint32_t t = 0; t < nt; t++) cursor[t] = g->use_start[t];
    for (uint32_t i = 0; i < s->n_ops; i++)
        for (uint32_t k = 0; k < s->ops[i].n_inputs; k++) {
            int32_t t = s->ops[i].inputs[k];
            if (t < 0) continue;
            g->uses[cursor[t]].op = (int32_t)i;
            g->uses[cursor[t]].slot = k;
            cursor[t]++;
        }
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t n = 0;
        for (uint32_t u = g->use_start[t]; u < g->use_start[t + 1]; u++)
            if (u == g->use_start[t] || g->uses[u].op != g->uses[u - 1].op) n++;
        g->n_cons[t] = n;
    }
    for (uint32_t k = 0; k < s->n_inputs; k++) g->flags[s->inputs[k]] |= F_INPUT;
    for (uint32_t k = 0; k < s->n_outputs; k++) g->flags[s->outputs[k]] |= F_OUTPUT;
}

lg_status lg_graph_build(const lg_model *m, uint32_t sg, lg_graph **out, lg_error *err) {
    lgi_error_clear(err);
    if (!out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_graph_build: no output pointer");
    *out = NULL;
    LG_TRY(check_sg(m, sg, err));
    uint64_t n_uses;
    LG_TRY(check_refs(m, sg, &n_uses, err));
    const lg_subgraph *s = &m->subgraphs[sg];
    uint64_t nt = s->n_tensors;
    uint64_t o_prod = al16(sizeof(lg_graph)), o_start = o_prod + al16(nt * 4);
    uint64_t o_uses = o_start + al16((nt + 1) * 4), o_cons = o_uses + al16(n_uses * sizeof(lg_use));
    uint64_t o_flags = o_cons + al16(nt * 4), total = o_flags + al16(nt);
    if (total > SIZE_MAX)
        return lgi_fail(err, LG_ERR_LIMIT, "subgraph %u: graph index too large", sg);
    uint8_t *blk = lgi_model_malloc(m, (size_t)total);
    if (!blk)
        return lgi_fail(err, LG_ERR_NOMEM, "subgraph %u: out of memory building the graph index",
                        sg);
    memset(blk, 0, (size_t)total);
    lg_graph *g = (lg_graph *)(void *)blk;
    g->alloc = m->priv->alloc;
    g->ud = m->priv->alloc_ud;
    g->bytes = (size_t)total;
    g->n_tensors = s->n_tensors;
    g->producer = (int32_t *)(void *)(blk + o_prod);
    g->use_start = (uint32_t *)(void *)(blk + o_start);
    g->uses = (lg_use *)(void *)(blk + o_uses);
    g->n_cons = (uint32_t *)(void *)(blk + o_cons);
    g->flags = blk + o_flags;
    fill_index(g, s);
    *out = g;
    return LG_OK;
}

void lg_graph_free(lg_graph *g) {
    if (g) g->alloc(g->ud, g, g->bytes, 0);
}

static int in_range(const lg_graph *g, int32_t t) {
    return g && t >= 0 && (uint32_t)t < g->n_tensors;
}

int32_t lg_graph_producer(const lg_graph *g, int32_t t) {
    return in_range(g, t) ? g->producer[t] : -1;
}

const lg_use *lg_graph_uses(const lg_graph *g, int32_t t, uint32_t *n) {
    uint32_t c = in_range(g, t) ? g->use_start[t + 1] - g->use_start[t] : 0;
    if (n) *n = c;
    return c ? &g->uses[g->use_start[t]] : NULL;
}

uint32_t lg_graph_n_consumers(const lg_graph *g, int32_t t) {
    return in_range(g, t) ? g->n_cons[t] : 0;
}

bool lg_graph_is_input(const lg_graph *g, int32_t t) {
    return in_range(g, t) && (g->flags[t] & F_INPUT);
}

bool lg_graph_is_output(const lg_graph *g, int32_t t) {
    return in_range(g, t) && (g->flags[t] & F_OUTPUT);
}

uint32_t lg_graph_n_multi_produced(const lg_graph *g) { return g ? g->n_multi : 0; }

/* A buffer with a data vector (NULL = none). An empty vector still counts: a 0-element
   constant (e.g. RESHAPE's shape [] for a scalar) is a constant. Variables are not. */
bool lg_tensor_is_const(const lg_model *m, uint32_t sg, int32_t t) {
    if (!m || sg >= m->n_subgraphs) return false;
    const lg_subgraph *s = &m->subgraphs[sg];
    if (t < 0 || (uint32_t)t >= s->n_tensors) return false;
    const lg_tensor *x = &s->tensors[t];
    if (x->is_variable || x->buffer == 0 || x->buffer >= m->n_buffers) return false;
    return m->buffers[x->buffer].data != NULL;
}

/* ---------------------------------------------------------------- topological sort */

typedef struct topo {
    const lg_model *m;
    const lg_subgraph *s;
    uint32_t sgi, n;
    int32_t *prod;     /* [n_tensors] the producing op or -1 */
    uint32_t *indeg;   /* [n] edges from ops not yet placed */
    uint32_t *start;   /* [n + 1] CSR of edges by producer */
    uint32_t *heap;    /* [n] ready ops, min-heap on index */
    uint32_t *order;   /* [n] the new order: order[k] = old index */
    uint32_t *edges;   /* [n_edges] consumer op of each edge */
    size_t blk_bytes, edge_bytes;
    void *blk;
} topo;

static void heap_push(uint32_t *h, uint32_t *n, uint32_t v) {
    uint32_t i = (*n)++;
    while (i > 0 && h[(i - 1) / 2] > v) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
}

static uint32_t heap_pop(uint32_t *h, uint32_t *n) {
    uint32_t top = h[0], v = h[--(*n)], i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && h[c + 1] < h[c]) c++;
        if (h[c] >= v) break;
        h[i] = h[c];
        i = c;
    }
    if (*n) h[i] = v;
    return top;
}

static lg_status topo_fail(topo *t, lg_error *err, uint32_t op, const char *what) {
    lg_status st = lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u op %u (%s): %s", t->sgi, op,
                            lg_op_name(t->m, &t->s->ops[op]), what);
    if (err) { err->subgraph = (int32_t)t->sgi; err->op = (int32_t)op; }
    return st;
}

/* Producers; a tensor produced by two ops is an error. */
static lg_status topo_producers(topo *t, lg_error *err) {
    const lg_subgraph *s = t->s;
    for (uint32_t i = 0; i < s->n_tensors; i++) t->prod[i] = -1;
    for (uint32_t i = 0; i < t->n; i++)
        for (uint32_t k = 0; k < s->ops[i].n_outputs; k++) {
            int32_t x = s->ops[i].outputs[k];
            if (t->prod[x] != -1 && t->prod[x] != (int32_t)i) {
                char what[96];
                snprintf(what, sizeof what, "output tensor %d is also produced by op %d", x,
                         t->prod[x]);
                lg_status st = topo_fail(t, err, i, what);
                if (err) err->tensor = x;
                return st;
            }
            t->prod[x] = (int32_t)i;
        }
    return LG_OK;
}

/* Every input's producer comes earlier. */
static int topo_sorted(const topo *t) {
    for (uint32_t i = 0; i < t->n; i++)
        for (uint32_t k = 0; k < t->s->ops[i].n_inputs; k++) {
            int32_t x = t->s->ops[i].inputs[k];
            if (x >= 0 && t->prod[x] >= (int32_t)i) return 0;
        }
    return 1;
}

/* Edges producer -> consumer, one per input entry (a self-edge keeps its op unplaced). */
static lg_status topo_edges(topo *t, lg_error *err) {
    const lg_subgraph *s = t->s;
    uint64_t ne = 0;
    for (uint32_t i = 0; i < t->n; i++)
        for (uint32_t k = 0; k < s->ops[i].n_inputs; k++) {
            int32_t x = s->ops[i].inputs[k];
            if (x >= 0 && t->prod[x] >= 0) {
                t->start[t->prod[x] + 1]++;
                t->indeg[i]++;
                ne++;
            }
        }
    if (ne * 4 > SIZE_MAX)
        return lgi_fail(err, LG_ERR_LIMIT, "subgraph %u: too many edges", t->sgi);
    t->edge_bytes = (size_t)ne * 4;
    t->edges = lgi_model_malloc(t->m, t->edge_bytes);
    if (!t->edges)
        return lgi_fail(err, LG_ERR_NOMEM, "subgraph %u: out of memory sorting the ops", t->sgi);
    for (uint32_t i = 0; i < t->n; i++) t->start[i + 1] += t->start[i];
    uint32_t *cur = t->order; /* borrowed as cursors, overwritten by the sort */
    for (uint32_t i = 0; i < t->n; i++) cur[i] = t->start[i];
    for (uint32_t i = 0; i < t->n; i++)
        for (uint32_t k = 0; k < s->ops[i].n_inputs; k++) {
            int32_t x = s->ops[i].inputs[k];
            if (x >= 0 && t->prod[x] >= 0) t->edges[cur[t->prod[x]]++] = i;
        }
    return LG_OK;
}

/* Kahn's algorithm, lowest original index first. Returns the number of ops placed. */
static uint32_t topo_kahn(topo *t) {
    uint32_t nh = 0, placed = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (t->indeg[i] == 0) heap_push(t->heap, &nh, i);
    while (nh) {
        uint32_t i = heap_pop(t->heap, &nh);
        t->order[placed++] = i;
        for (uint32_t e = t->start[i]; e < t->start[i + 1]; e++)
            if (--t->indeg[t->edges[e]] == 0) heap_push(t->heap, &nh, t->edges[e]);
    }
    return placed;
}

/* An op on a cycle: every unplaced op reads a tensor of another unplaced op; walking back
   n times from any of them must end inside a cycle (pigeonhole). */
static uint32_t topo_cycle_op(const topo *t) {
    uint32_t r = 0;
    while (r < t->n && t->indeg[r] == 0) r++;
    for (uint32_t step = 0; step < t->n; step++) {
        const lg_op *op = &t->s->ops[r];
        for (uint32_t k = 0; k < op->n_inputs; k++) {
            int32_t x = op->inputs[k];
            if (x >= 0 && t->prod[x] >= 0 && t->indeg[t->prod[x]] > 0) {
                r = (uint32_t)t->prod[x];
                break;
            }
        }
    }
    return r;
}

static lg_status topo_apply(topo *t, lg_subgraph *s, bool *changed, lg_error *err) {
    size_t bytes = (size_t)t->n * sizeof(lg_op);
    lg_op *tmp = lgi_model_malloc(t->m, bytes);
    if (!tmp)
        return lgi_fail(err, LG_ERR_NOMEM, "subgraph %u: out of memory sorting the ops", t->sgi);
    memcpy(tmp, s->ops, bytes);
    bool moved = false;
    for (uint32_t k = 0; k < t->n; k++) {
        s->ops[k] = tmp[t->order[k]];
        if (t->order[k] != k) moved = true;
    }
    lgi_model_mfree(t->m, tmp, bytes);
    if (changed) *changed = moved;
    return LG_OK;
}

static lg_status topo_run(topo *t, lg_subgraph *s, bool *changed, lg_error *err) {
    LG_TRY(topo_producers(t, err));
    if (topo_sorted(t)) return LG_OK;
    LG_TRY(topo_edges(t, err));
    if (topo_kahn(t) < t->n)
        return topo_fail(t, err, topo_cycle_op(t), "is on a cycle (it depends on its own output)");
    return topo_apply(t, s, changed, err);
}

lg_status lg_subgraph_toposort(lg_model *m, uint32_t sg, bool *changed, lg_error *err) {
    lgi_error_clear(err);
    if (changed) *changed = false;
    LG_TRY(check_sg(m, sg, err));
    uint64_t n_uses;
    LG_TRY(check_refs(m, sg, &n_uses, err));
    lg_subgraph *s = &m->subgraphs[sg];
    topo t;
    memset(&t, 0, sizeof t);
    t.m = m;
    t.s = s;
    t.sgi = sg;
    t.n = s->n_ops;
    uint64_t nt = s->n_tensors, n = s->n_ops;
    uint64_t total = al16(nt * 4) + al16(n * 4) * 4 + al16((n + 1) * 4);
    if (total > SIZE_MAX) return lgi_fail(err, LG_ERR_LIMIT, "subgraph %u: too large to sort", sg);
    t.blk_bytes = (size_t)total;
    uint8_t *b = t.blk = lgi_model_malloc(m, t.blk_bytes);
    if (!b) return lgi_fail(err, LG_ERR_NOMEM, "subgraph %u: out of memory sorting the ops", sg);
    memset(b, 0, t.blk_bytes);
    t.prod = (int32_t *)(void *)b;
    b += al16(nt * 4);
    t.indeg = (uint32_t *)(void *)b;
    b += al16(n * 4);
    t.heap = (uint32_t *)(void *)b;
    b += al16(n * 4);
    t.order = (uint32_t *)(void *)b;
    b += al16(n * 4);
    t.start = (uint32_t *)(void *)b;
    lg_status st = topo_run(&t, s, changed, err);
    lgi_model_mfree(m, t.edges, t.edge_bytes);
    lgi_model_mfree(m, t.blk, t.blk_bytes);
    return st;
}
