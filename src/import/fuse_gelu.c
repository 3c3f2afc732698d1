/* The erf-GELU pattern torch.onnx.export emits for nn.GELU() (approximate="none"):
 *
 *     d = Div(x, 1.4142135)   (or Mul(x, 0.70710677))
 *     e = Erf(d)
 *     a = Add(e, 1)
 *     m = Mul(x, a)
 *     y = Mul(m, 0.5)
 *
 * lowered to one GELU (approximate false), whose reference form 0.5x * erfc(-x/sqrt 2) is
 * TFLite's (tensorflow/lite/kernels/gelu.cc) and is what the pattern computes in exact
 * arithmetic. Every intermediate must have that one consumer and not be a graph output;
 * operands of Add and Mul may come in either order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "import/import_impl.h"

static bool same(lg_onnx_str a, lg_onnx_str b) {
    return a.n == b.n && (a.n == 0 || memcmp(a.s, b.s, a.n) == 0);
}

/* The one node reading v (after node `from`), or -1 (none, several, or a graph output). */
int32_t li_sole_consumer(li_ctx *c, lg_onnx_str v, uint32_t from) {
    const lg_onnx_graph *g = c->g;
    for (uint32_t i = 0; i < g->n_outputs; i++)
        if (same(g->outputs[i].name, v)) return -1;
    int32_t found = -1;
    for (uint32_t i = from + 1; i < g->n_nodes; i++)
        for (uint32_t k = 0; k < g->nodes[i].n_inputs; k++)
            if (same(g->nodes[i].inputs[k], v)) {
                if (found >= 0 && found != (int32_t)i) return -1;
                found = (int32_t)i;
            }
    return found;
}

static bool const_near(li_ctx *c, lg_onnx_str name, double want, double tol) {
    const li_val *v = li_find(c, name);
    if (!v) return false;
    const float *f = li_const_f32(c, v->t);
    if (!f || lg_tensor_numel(li_t(c, v->t)) != 1) return false;
    return fabs((double)f[0] - want) <= tol;
}

static bool op_is(const lg_onnx_node *n, const char *t) {
    return lg_onnx_str_eq(n->op_type, t) && (n->domain.n == 0 || lg_onnx_str_eq(n->domain, "ai.onnx")) &&
           n->n_inputs == 2 && n->n_outputs >= 1;
}

/* The input of binary node n that is not `v` (which must be one of them), or an empty str. */
static lg_onnx_str other_input(const lg_onnx_node *n, lg_onnx_str v) {
    if (same(n->inputs[0], v)) return n->inputs[1];
    if (same(n->inputs[1], v)) return n->inputs[0];
    return (lg_onnx_str){NULL, 0};
}

bool li_try_gelu(li_ctx *c, uint32_t i) {
    const lg_onnx_graph *g = c->g;
    const lg_onnx_node *n0 = &g->nodes[i];
    bool div = op_is(n0, "Div");
    if (!div && !op_is(n0, "Mul")) return false;
    lg_onnx_str x = n0->inputs[0];
    if (!const_near(c, n0->inputs[1], div ? 1.4142135623730951 : 0.7071067811865476, 1e-6)) return false;
    const li_val *xv = li_find(c, x);
    if (!xv || li_type(c, xv->t) != LG_FLOAT32) return false;
    int32_t i1 = li_sole_consumer(c, n0->outputs[0], i);
    if (i1 < 0 || !lg_onnx_str_eq(g->nodes[i1].op_type, "Erf") || g->nodes[i1].n_outputs != 1) return false;
    int32_t i2 = li_sole_consumer(c, g->nodes[i1].outputs[0], (uint32_t)i1);
    if (i2 < 0 || !op_is(&g->nodes[i2], "Add")) return false;
    if (!const_near(c, other_input(&g->nodes[i2], g->nodes[i1].outputs[0]), 1.0, 0)) return false;
    int32_t i3 = li_sole_consumer(c, g->nodes[i2].outputs[0], (uint32_t)i2);
    if (i3 < 0 || !op_is(&g->nodes[i3], "Mul")) return false;
    if (!same(other_input(&g->nodes[i3], g->nodes[i2].outputs[0]), x)) return false;
    int32_t i4 = li_sole_consumer(c, g->nodes[i3].outputs[0], (uint32_t)i3);
    if (i4 < 0 || !op_is(&g->nodes[i4], "Mul")) return false;
    if (!const_near(c, other_input(&g->nodes[i4], g->nodes[i3].outputs[0]), 0.5, 0)) return false;

    lg_gelu_options o = {0};
    int32_t y = li_op(c, LG_OP_GELU, &xv->t, 1, &o, -1);
    if (y < 0) return true;
    li_bind(c, g->nodes[i4].outputs[0], y, xv->onnx_type);
    int32_t parts[4] = {i1, i2, i3, i4};
    for (int k = 0; k < 4; k++) {
        c->skip[parts[k]] = true;
        if (c->rep) {
            lg_import_node *e = &c->rep->nodes[parts[k]];
            char buf[200];
            snprintf(buf, sizeof buf, "%s -> (part of the erf-GELU at node %u)", e->op_type, i);
            free(e->lowering);
            e->lowering = malloc(strlen(buf) + 1);
            if (e->lowering) strcpy(e->lowering, buf);
        }
    }
    return true;
}
