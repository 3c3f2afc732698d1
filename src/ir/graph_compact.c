/* Compaction: drop the tensors, buffers and opcodes nothing refers to and renumber the rest
   in their old order.

   Three phases so that a failure changes nothing:
     1. check every index the model holds (so the maps below can be indexed blindly) and
        build the old -> new maps (scratch from the model's allocator hook);
     2. make the remapped copies of the const index arrays (op tensor lists, subgraph
        inputs/outputs, metadata_buffer) in the model's arena, staged, not yet installed;
     3. commit: install the copies, move the kept structs down, remap the in-place indices
        (tensor.buffer, op.opcode_index, signature tensor maps, metadata buffers).
   A failure in 1 or 2 frees the scratch and leaves the model as it was (arena copies made
   so far are released with the model). After the commit, the blocks of constant data no
   buffer points into any more (removed buffers, data replaced by lg_buffer_set_data) are
   released (ir/store.c), with scratch allocated in phase 1. */
#include <string.h>
#include "internal.h"
#include "lg/graph.h"

typedef struct cctx {
    lg_model *m;
    lg_error *err;
    int32_t *tmap;         /* all subgraphs' tensor maps, subgraph s at tbase[s] */
    size_t *tbase;         /* [n_subgraphs] */
    int32_t *bmap, *omap;  /* buffers, opcodes */
    const int32_t **stage; /* per subgraph: 3 per op + inputs + outputs; then metadata_buffer */
    size_t *sbase;         /* [n_subgraphs] first stage slot of subgraph s */
    size_t n_stage;
    size_t bytes[7];
    void *blocks[7];       /* scratch; 6: the storage release's (ir/store.c) */
} cctx;

static lg_status bad(cctx *c, const char *what, uint32_t s, uint32_t i, uint32_t k, int64_t x,
                     uint64_t n) {
    return lgi_fail(c->err, LG_ERR_INVALID_ARG, "compact: subgraph %u %s (item %u, entry %u) "
                    "refers to %lld of %llu", s, what, i, k, (long long)x, (unsigned long long)n);
}

/* The blockwise quantization of t (its scales and zero points are tensors of the subgraph,
   kept and renumbered with t), or NULL. */
static lg_blockwise_quantization *blockwise(const lg_tensor *t) {
    if (!t->quant || t->quant->details_kind != LG_QDETAILS_BLOCKWISE_QUANTIZATION) return NULL;
    return t->quant->details;
}

static lg_status check_ids(cctx *c, const char *what, uint32_t s, uint32_t i, const int32_t *ids,
                           uint32_t n, int optional, uint32_t limit) {
    if (n && !ids) return bad(c, what, s, i, 0, -1, limit);
    for (uint32_t k = 0; k < n; k++)
        if (!((optional && ids[k] == -1) || (ids[k] >= 0 && (uint32_t)ids[k] < limit)))
            return bad(c, what, s, i, k, ids[k], limit);
    return LG_OK;
}

/* Phase 1a: every index in range. */
static lg_status check_all(cctx *c) {
    const lg_model *m = c->m;
    for (uint32_t s = 0; s < m->n_subgraphs; s++) {
        const lg_subgraph *g = &m->subgraphs[s];
        if ((g->n_tensors && !g->tensors) || (g->n_ops && !g->ops))
            return bad(c, "arrays", s, 0, 0, -1, 0);
        for (uint32_t t = 0; t < g->n_tensors; t++) {
            if (g->tensors[t].buffer >= m->n_buffers)
                return bad(c, "tensor buffer", s, t, 0, g->tensors[t].buffer, m->n_buffers);
            const lg_blockwise_quantization *bw = blockwise(&g->tensors[t]);
            if (bw && !(bw->scales >= 0 && (uint32_t)bw->scales < g->n_tensors))
                return bad(c, "tensor blockwise scales", s, t, 0, bw->scales, g->n_tensors);
            if (bw && !(bw->zero_points == -1 || (bw->zero_points >= 0 && (uint32_t)bw->zero_points < g->n_tensors)))
                return bad(c, "tensor blockwise zero points", s, t, 0, bw->zero_points, g->n_tensors);
        }
        for (uint32_t i = 0; i < g->n_ops; i++) {
            const lg_op *op = &g->ops[i];
            if (op->opcode_index >= m->n_opcodes)
                return bad(c, "op opcode", s, i, 0, op->opcode_index, m->n_opcodes);
            LG_TRY(check_ids(c, "op input", s, i, op->inputs, op->n_inputs, 1, g->n_tensors));
            LG_TRY(check_ids(c, "op output", s, i, op->outputs, op->n_outputs, 0, g->n_tensors));
            LG_TRY(check_ids(c, "op intermediate", s, i, op->intermediates, op->n_intermediates,
                             0, g->n_tensors));
        }
        LG_TRY(check_ids(c, "input", s, 0, g->inputs, g->n_inputs, 0, g->n_tensors));
        LG_TRY(check_ids(c, "output", s, 0, g->outputs, g->n_outputs, 0, g->n_tensors));
    }
    for (uint32_t i = 0; i < m->n_signatures; i++) {
        const lg_signature *sig = &m->signatures[i];
        if (sig->subgraph_index >= m->n_subgraphs)
            return bad(c, "signature", sig->subgraph_index, i, 0, sig->subgraph_index,
                       m->n_subgraphs);
        uint32_t nt = m->subgraphs[sig->subgraph_index].n_tensors;
        const lg_tensor_map *l[2] = {sig->inputs, sig->outputs};
        uint32_t nl[2] = {sig->n_inputs, sig->n_outputs};
        for (int k = 0; k < 2; k++) {
            if (nl[k] && !l[k]) return bad(c, "signature", sig->subgraph_index, i, 0, -1, nt);
            for (uint32_t j = 0; j < nl[k]; j++)
                if (l[k][j].tensor_index >= nt)
                    return bad(c, "signature tensor", sig->subgraph_index, i, j,
                               l[k][j].tensor_index, nt);
        }
    }
    for (uint32_t i = 0; i < m->n_metadata; i++)
        if (m->metadata[i].buffer >= m->n_buffers)
            return bad(c, "metadata buffer", 0, i, 0, m->metadata[i].buffer, m->n_buffers);
    return check_ids(c, "metadata_buffer", 0, 0, m->metadata_buffer, m->n_metadata_buffer, 0,
                     m->n_buffers);
}

static void *scratch(cctx *c, int slot, uint64_t n, size_t elem) {
    if (n > (SIZE_MAX - 16) / elem) return NULL;
    c->bytes[slot] = (size_t)n * elem;
    c->blocks[slot] = lgi_model_malloc(c->m, c->bytes[slot]);
    return c->blocks[slot];
}

static void free_scratch(cctx *c) {
    for (int i = 0; i < 7; i++) lgi_model_mfree(c->m, c->blocks[i], c->bytes[i]);
}

static void mark(int32_t *map, const int32_t *ids, uint32_t n) {
    for (uint32_t k = 0; k < n; k++)
        if (ids[k] >= 0) map[ids[k]] = 1;
}

/* Marked entries (1) get new indices in old order; the rest -1. Returns the kept count. */
static uint32_t number(int32_t *map, uint32_t n) {
    uint32_t next = 0;
    for (uint32_t i = 0; i < n; i++) map[i] = map[i] ? (int32_t)next++ : -1;
    return next;
}

/* Phase 1b: the maps. */
static lg_status build_maps(cctx *c) {
    lg_model *m = c->m;
    uint64_t total_t = 0, total_stage = 1;
    for (uint32_t s = 0; s < m->n_subgraphs; s++) {
        total_t += m->subgraphs[s].n_tensors;
        total_stage += 3 * (uint64_t)m->subgraphs[s].n_ops + 2;
    }
    c->tmap = scratch(c, 0, total_t, sizeof(int32_t));
    c->tbase = scratch(c, 1, m->n_subgraphs, sizeof(size_t));
    c->bmap = scratch(c, 2, m->n_buffers, sizeof(int32_t));
    c->omap = scratch(c, 3, m->n_opcodes, sizeof(int32_t));
    c->stage = scratch(c, 4, total_stage, sizeof(const int32_t *));
    c->sbase = scratch(c, 5, m->n_subgraphs, sizeof(size_t));
    size_t gc = lgi_holds_gc_scratch(m);
    if (gc) scratch(c, 6, gc, 1);
    if (!c->tmap || !c->tbase || !c->bmap || !c->omap || !c->stage || !c->sbase || (gc && !c->blocks[6]))
        return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory while compacting the model");
    memset(c->tmap, 0, c->bytes[0]);
    memset(c->bmap, 0, c->bytes[2]);
    memset(c->omap, 0, c->bytes[3]);
    memset((void *)c->stage, 0, c->bytes[4]);
    c->n_stage = (size_t)total_stage;
    size_t tb = 0, sb = 0;
    for (uint32_t s = 0; s < m->n_subgraphs; s++) {
        const lg_subgraph *g = &m->subgraphs[s];
        c->tbase[s] = tb;
        c->sbase[s] = sb;
        tb += g->n_tensors;
        sb += 3 * (size_t)g->n_ops + 2;
        int32_t *tm = c->tmap + c->tbase[s];
        for (uint32_t i = 0; i < g->n_ops; i++) {
            const lg_op *op = &g->ops[i];
            mark(tm, op->inputs, op->n_inputs);
            mark(tm, op->outputs, op->n_outputs);
            mark(tm, op->intermediates, op->n_intermediates);
            c->omap[op->opcode_index] = 1;
        }
        mark(tm, g->inputs, g->n_inputs);
        mark(tm, g->outputs, g->n_outputs);
    }
    for (uint32_t i = 0; i < m->n_signatures; i++) {
        const lg_signature *sig = &m->signatures[i];
        int32_t *tm = c->tmap + c->tbase[sig->subgraph_index];
        for (uint32_t j = 0; j < sig->n_inputs; j++) tm[sig->inputs[j].tensor_index] = 1;
        for (uint32_t j = 0; j < sig->n_outputs; j++) tm[sig->outputs[j].tensor_index] = 1;
    }
    if (m->n_buffers) c->bmap[0] = 1; /* the empty sentinel always stays */
    for (uint32_t s = 0; s < m->n_subgraphs; s++) {
        const lg_subgraph *g = &m->subgraphs[s];
        int32_t *tm = c->tmap + c->tbase[s];
        for (uint32_t t = 0; t < g->n_tensors; t++) {
            const lg_blockwise_quantization *bw = tm[t] ? blockwise(&g->tensors[t]) : NULL;
            if (bw) tm[bw->scales] = 1;
            if (bw && bw->zero_points >= 0) tm[bw->zero_points] = 1;
        }
        number(tm, g->n_tensors);
        for (uint32_t t = 0; t < g->n_tensors; t++)
            if (tm[t] >= 0) c->bmap[g->tensors[t].buffer] = 1;
    }
    for (uint32_t i = 0; i < m->n_metadata; i++) c->bmap[m->metadata[i].buffer] = 1;
    mark(c->bmap, m->metadata_buffer, m->n_metadata_buffer);
    number(c->bmap, m->n_buffers);
    number(c->omap, m->n_opcodes);
    return LG_OK;
}

/* A remapped arena copy of ids in *out, or NULL there when no entry changes. */
static lg_status remap_copy(cctx *c, const int32_t *ids, uint32_t n, const int32_t *map,
                            const int32_t **out) {
    *out = NULL;
    uint32_t k = 0;
    while (k < n && (ids[k] < 0 || map[ids[k]] == ids[k])) k++;
    if (k == n) return LG_OK;
    int32_t *v = lgi_arena_memdup(&c->m->priv->arena, ids, (size_t)n * sizeof(int32_t));
    if (!v) {
        if (c->m->priv->arena.over_limit)
            return lgi_fail(c->err, LG_ERR_LIMIT, "model memory limit reached while compacting");
        return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory while compacting the model");
    }
    for (; k < n; k++)
        if (v[k] >= 0) v[k] = map[v[k]];
    *out = v;
    return LG_OK;
}

/* Phase 2: the staged copies. */
static lg_status stage_copies(cctx *c) {
    lg_model *m = c->m;
    for (uint32_t s = 0; s < m->n_subgraphs; s++) {
        const lg_subgraph *g = &m->subgraphs[s];
        const int32_t *tm = c->tmap + c->tbase[s];
        const int32_t **st = c->stage + c->sbase[s];
        for (uint32_t i = 0; i < g->n_ops; i++) {
            const lg_op *op = &g->ops[i];
            LG_TRY(remap_copy(c, op->inputs, op->n_inputs, tm, &st[3 * i]));
            LG_TRY(remap_copy(c, op->outputs, op->n_outputs, tm, &st[3 * i + 1]));
            LG_TRY(remap_copy(c, op->intermediates, op->n_intermediates, tm, &st[3 * i + 2]));
        }
        LG_TRY(remap_copy(c, g->inputs, g->n_inputs, tm, &st[3 * (size_t)g->n_ops]));
        LG_TRY(remap_copy(c, g->outputs, g->n_outputs, tm, &st[3 * (size_t)g->n_ops + 1]));
    }
    return remap_copy(c, m->metadata_buffer, m->n_metadata_buffer, c->bmap,
                      &c->stage[c->n_stage - 1]);
}

/* Phase 3 for one subgraph; returns the number of tensors removed. */
static uint32_t commit_subgraph(cctx *c, uint32_t s) {
    lg_subgraph *g = &c->m->subgraphs[s];
    const int32_t *tm = c->tmap + c->tbase[s];
    const int32_t **st = c->stage + c->sbase[s];
    for (uint32_t i = 0; i < g->n_ops; i++) {
        lg_op *op = &g->ops[i];
        if (st[3 * i]) op->inputs = st[3 * i];
        if (st[3 * i + 1]) op->outputs = st[3 * i + 1];
        if (st[3 * i + 2]) op->intermediates = st[3 * i + 2];
        op->opcode_index = (uint32_t)c->omap[op->opcode_index];
    }
    if (st[3 * (size_t)g->n_ops]) g->inputs = st[3 * (size_t)g->n_ops];
    if (st[3 * (size_t)g->n_ops + 1]) g->outputs = st[3 * (size_t)g->n_ops + 1];
    uint32_t kept = 0;
    for (uint32_t t = 0; t < g->n_tensors; t++) {
        if (tm[t] < 0) continue;
        g->tensors[tm[t]] = g->tensors[t];
        g->tensors[tm[t]].buffer = (uint32_t)c->bmap[g->tensors[t].buffer];
        lg_blockwise_quantization *bw = blockwise(&g->tensors[tm[t]]);
        if (bw) {
            bw->scales = tm[bw->scales];
            if (bw->zero_points >= 0) bw->zero_points = tm[bw->zero_points];
        }
        kept++;
    }
    uint32_t removed = g->n_tensors - kept;
    if (removed) memset(&g->tensors[kept], 0, (size_t)removed * sizeof(lg_tensor));
    g->n_tensors = kept;
    return removed;
}

static void commit(cctx *c, lg_compact_stats *stats) {
    lg_model *m = c->m;
    lg_compact_stats cs = {0, 0, 0};
    for (uint32_t s = 0; s < m->n_subgraphs; s++) cs.tensors_removed += commit_subgraph(c, s);
    for (uint32_t i = 0; i < m->n_signatures; i++) {
        lg_signature *sig = &m->signatures[i];
        const int32_t *tm = c->tmap + c->tbase[sig->subgraph_index];
        for (uint32_t j = 0; j < sig->n_inputs; j++)
            sig->inputs[j].tensor_index = (uint32_t)tm[sig->inputs[j].tensor_index];
        for (uint32_t j = 0; j < sig->n_outputs; j++)
            sig->outputs[j].tensor_index = (uint32_t)tm[sig->outputs[j].tensor_index];
    }
    for (uint32_t i = 0; i < m->n_metadata; i++)
        m->metadata[i].buffer = (uint32_t)c->bmap[m->metadata[i].buffer];
    if (c->stage[c->n_stage - 1]) m->metadata_buffer = c->stage[c->n_stage - 1];
    uint32_t kb = 0, ko = 0;
    for (uint32_t b = 0; b < m->n_buffers; b++)
        if (c->bmap[b] >= 0) m->buffers[kb++] = m->buffers[b];
    for (uint32_t o = 0; o < m->n_opcodes; o++)
        if (c->omap[o] >= 0) m->opcodes[ko++] = m->opcodes[o];
    cs.buffers_removed = m->n_buffers - kb;
    cs.opcodes_removed = m->n_opcodes - ko;
    m->n_buffers = kb;
    m->n_opcodes = ko;
    if (stats) *stats = cs;
}

lg_status lg_model_compact(lg_model *m, lg_compact_stats *stats, int32_t *tensor_map_sg0,
                           lg_error *err) {
    lgi_error_clear(err);
    if (stats) memset(stats, 0, sizeof *stats);
    if (!m || !m->priv) return lgi_fail(err, LG_ERR_INVALID_ARG, "no model given");
    if ((m->n_subgraphs && !m->subgraphs) || (m->n_buffers && !m->buffers) ||
        (m->n_opcodes && !m->opcodes) || (m->n_signatures && !m->signatures) ||
        (m->n_metadata && !m->metadata))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "compact: a model array has a count but no data");
    cctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.err = err;
    lg_status st = check_all(&c);
    if (st == LG_OK) st = build_maps(&c);
    if (st == LG_OK) st = stage_copies(&c);
    if (st == LG_OK) {
        if (tensor_map_sg0 && m->n_subgraphs)
            memcpy(tensor_map_sg0, c.tmap, (size_t)m->subgraphs[0].n_tensors * sizeof(int32_t));
        commit(&c, stats);
        /* the data of the buffers removed (and data replaced earlier) is given back */
        lgi_holds_gc(m, c.blocks[6]);
    }
    free_scratch(&c);
    return st;
}
