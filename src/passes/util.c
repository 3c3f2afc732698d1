/* Helpers shared by the passes. */
#include <stdarg.h>
#include <stdlib.h>

#include "passes/passes_impl.h"
#include "util/half.h"

bool lgp_same_layout(const lg_tensor *a, const lg_tensor *b) {
    if (a->type != b->type || a->rank != b->rank) return false;
    for (uint32_t d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d]) return false;
    return lg_tensor_same_quant(a, b);
}

static const lg_buffer *const_buf(const lg_pass_ctx *c, int32_t t) {
    if (t < 0 || (uint32_t)t >= c->m->subgraphs[c->sg].n_tensors) return NULL;
    const lg_tensor *x = lgp_tensor(c, t);
    if (!x->buffer || x->sparsity || x->buffer >= c->m->n_buffers) return NULL;
    const lg_buffer *b = &c->m->buffers[x->buffer];
    return b->data ? b : NULL;
}

bool lgp_const_all_equal(const lg_pass_ctx *c, int32_t t, float v) {
    const lg_buffer *b = const_buf(c, t);
    if (!b) return false;
    const lg_tensor *x = lgp_tensor(c, t);
    if (x->quant && (x->quant->n_scale || x->quant->n_zero_point)) return false;
    int64_t n = lg_tensor_numel(x);
    if (n <= 0) return false;
    if (x->type == LG_FLOAT32 && b->size == (uint64_t)n * 4) {
        for (int64_t i = 0; i < n; i++) {
            uint32_t u = lgi_rd_u32(b->data + 4 * i);
            float f;
            memcpy(&f, &u, 4);
            if (f != v) return false;
        }
        return true;
    }
    if (x->type == LG_FLOAT16 && b->size == (uint64_t)n * 2) {
        for (int64_t i = 0; i < n; i++)
            if (lg_half_to_float(lgi_rd_u16(b->data + 2 * i)) != v) return false;
        return true;
    }
    return false;
}

bool lgp_const_ints(const lg_pass_ctx *c, int32_t t, int64_t *out, uint32_t max, uint32_t *n) {
    *n = 0;
    if (t < 0 || (uint32_t)t >= c->m->subgraphs[c->sg].n_tensors) return false;
    return lg_tensor_const_ints(c->m, lgp_tensor(c, t), out, max, n);
}

void lgp_skip(lg_pass_ctx *c, const char *fmt, ...) {
    va_list ap;
    c->delta->skipped++;
    va_start(ap, fmt);
    vsnprintf(c->delta->note, sizeof c->delta->note, fmt, ap);
    va_end(ap);
}

lg_status lgp_bypass(lg_pass_ctx *c, const lg_graph *g, uint32_t op, int32_t in, bool *done) {
    *done = false;
    int32_t out = lgp_op(c, op)->outputs[0];
    if (!lgp_same_layout(lgp_tensor(c, in), lgp_tensor(c, out))) return LG_OK;
    if (!lg_graph_is_output(g, out)) {
        LG_TRY(lg_tensor_replace_uses(c->m, c->sg, out, in, 0, NULL, c->err));
        LG_TRY(lg_op_remove(c->m, c->sg, op, c->err));
        *done = true;
        return LG_OK;
    }
    /* out is a graph output: let in's producer write it, so the interface keeps its tensors */
    int32_t p = lg_graph_producer(g, in);
    uint32_t n_uses = 0;
    lg_graph_uses(g, in, &n_uses);
    if (p < 0 || n_uses != 1 || lg_graph_is_output(g, in) || lg_graph_is_input(g, in))
        return LG_OK;
    const lg_op *po = lgp_op(c, (uint32_t)p);
    for (uint32_t k = 0; k < po->n_outputs; k++) {
        if (po->outputs[k] != in) continue;
        LG_TRY(lg_op_set_output(c->m, c->sg, (uint32_t)p, k, out, c->err));
        LG_TRY(lg_op_remove(c->m, c->sg, op, c->err));
        *done = true;
        return LG_OK;
    }
    return LG_OK;
}
