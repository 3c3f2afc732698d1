/* op-version-computed: an op whose stored version is higher than the one its features need
 * (lgi_op_version, the converter's own rules in src/check/op_version.c) gets the computed
 * version. The version is metadata: TFLite picks the kernel by the op's features, and the
 * delegates refuse a version above their maximum (CheckMaxSupportedOpVersion), so an
 * over-declared version blocks a model for nothing (rules.def op-version, trigger 2: RELU
 * stored at version 3, computed 1). Exact: no value changes. Custom ops have no computed
 * version and are left alone. */
#include "check/op_version.h"
#include "passes/passes_impl.h"

static bool ver_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    const lg_subgraph *sg = &c->m->subgraphs[c->sg];
    const lg_op *op = &sg->ops[i];
    int32_t code = lgp_code(c, i);
    if (code < 0 || code == LG_OP_CUSTOM || op->opcode_index >= c->m->n_opcodes) return false;
    int v = lgi_op_version(c->m, sg, op);
    return v >= 1 && c->m->opcodes[op->opcode_index].version > v;
}

static lg_status ver_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    const lg_subgraph *sg = &c->m->subgraphs[c->sg];
    int v = lgi_op_version(c->m, sg, &sg->ops[i]);
    LG_TRY(lg_op_set_opcode(c->m, c->sg, i, lgp_code(c, i), NULL, v, c->err));
    c->delta->applied++;
    return LG_OK;
}

const lg_pass lgp_op_version_computed = {
    "op-version-computed", "an op stored at a higher version than its features need -> the computed version",
    {"op-version", NULL}, true, 0, ver_match, ver_apply, false};
