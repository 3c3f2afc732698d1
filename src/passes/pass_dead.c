/* remove-dead: ops none of whose outputs is read by an op or is a graph output. Ops with side
 * effects (variables, subgraph calls, random numbers) and ops litegpu does not know stay. */
#include "passes/passes_impl.h"

static bool dead_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    const lg_op_info *e = lg_op_info_of(c->m, op);
    if (!e || (e->flags & (LG_OPF_STATEFUL | LG_OPF_SUBGRAPHS | LG_OPF_RANDOM))) return false;
    if (lg_op_builtin(c->m, op) == LG_OP_CUSTOM && e->code != LG_OP_CUSTOM) return false;
    for (uint32_t k = 0; k < op->n_outputs; k++) {
        int32_t t = op->outputs[k];
        if (t < 0) continue;
        uint32_t n = 0;
        lg_graph_uses(g, t, &n);
        if (n || lg_graph_is_output(g, t) || lgp_tensor(c, t)->is_variable) return false;
    }
    return true;
}

static lg_status dead_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    LG_TRY(lg_op_remove(c->m, c->sg, i, c->err));
    c->delta->applied++;
    c->delta->ops_removed++;
    return LG_OK;
}

const lg_pass lgp_remove_dead = {
    "remove-dead", "drop ops whose outputs nothing reads (then unused tensors and buffers)",
    {NULL}, true, 0, dead_match, dead_apply, false};
