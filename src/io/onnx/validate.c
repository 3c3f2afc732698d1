/* lg_onnx_validate: the graph-level checks (lg/onnx.h), after the wire-level ones of the
   reader. Rules from the ONNX IR spec (docs/IR.md, "Graphs" and "Names Within a Graph"):
   value names are in single static assignment form, nodes are topologically sorted (an
   input names a graph input, an initializer or the output of an earlier node), the empty
   name marks an absent optional input or output, and a subgraph (an If/Loop/Scan body) may
   read the values of the graphs that enclose it, as far as they are defined at its node.
   Memory for the name sets comes from the model's allocator hook and is freed before
   returning. */
#include <stdio.h>
#include <string.h>

#include "io/onnx/wire.h"

typedef struct vscope {
    const struct vscope *parent;
    lg_onnx_str *slot;
    uint64_t cap, n;
} vscope;

typedef struct vctx {
    lg_alloc_fn af;
    void *ud;
    lg_error *err;
    char path[448];
    size_t plen;
} vctx;

static uint64_t hash(lg_onnx_str s) {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < s.n; i++) h = (h ^ (uint8_t)s.s[i]) * 1099511628211ull;
    return h;
}

static int same(lg_onnx_str a, lg_onnx_str b) { return a.n == b.n && (a.n == 0 || memcmp(a.s, b.s, a.n) == 0); }

static int scope_has(const vscope *sc, lg_onnx_str s) {
    for (; sc; sc = sc->parent) {
        uint64_t i = hash(s) & (sc->cap - 1);
        while (sc->slot[i].s) {
            if (same(sc->slot[i], s)) return 1;
            i = (i + 1) & (sc->cap - 1);
        }
    }
    return 0;
}

/* Add s to sc (local only); returns 0 if it was already there. */
static int scope_add(vscope *sc, lg_onnx_str s) {
    uint64_t i = hash(s) & (sc->cap - 1);
    while (sc->slot[i].s) {
        if (same(sc->slot[i], s)) return 0;
        i = (i + 1) & (sc->cap - 1);
    }
    sc->slot[i] = s;
    sc->n++;
    return 1;
}

static size_t vpush(vctx *v, const char *fmt, ...) LGI_PRINTF(2, 3);
static size_t vpush(vctx *v, const char *fmt, ...) {
    size_t old = v->plen;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(v->path + v->plen, sizeof v->path - v->plen, fmt, ap);
    va_end(ap);
    if (n > 0) v->plen += (size_t)n;
    if (v->plen >= sizeof v->path) v->plen = sizeof v->path - 1;
    return old;
}
static void vpop(vctx *v, size_t old) { v->plen = old; v->path[old] = 0; }

static lg_status vbad(vctx *v, const char *fmt, ...) LGI_PRINTF(2, 3);
static lg_status vbad(vctx *v, const char *fmt, ...) {
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return lgi_fail_at(v->err, LG_ERR_FORMAT, -1, -1, -1, "%s: %s", v->path, what);
}

/* Name for messages: cut and escaped. */
typedef struct vname { char s[90]; } vname;
static vname pn(lg_onnx_str x) {
    vname o;
    size_t k = 0;
    for (uint32_t i = 0; i < x.n && k + 8 < sizeof o.s; i++) {
        unsigned char c = (unsigned char)x.s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') o.s[k++] = (char)c;
        else k += (size_t)snprintf(o.s + k, sizeof o.s - k, "\\x%02x", c);
    }
    if (k + 8 >= sizeof o.s) k += (size_t)snprintf(o.s + k, sizeof o.s - k, "...");
    o.s[k] = 0;
    return o;
}

static lg_status check_tensor(vctx *v, const lg_onnx_tensor *t) {
    uint64_t count, nbytes;
    if (t->data_type <= 0 || t->data_type >= LG_ONNX_DTYPE_COUNT)
        return vbad(v, "tensor \"%s\" has data type %d", pn(t->name).s, t->data_type);
    if (!ox_tensor_size(t->data_type, t->dims, t->n_dims, &count, &nbytes) || count != t->count)
        return vbad(v, "tensor \"%s\": dims (%u) do not give its element count %llu", pn(t->name).s, t->n_dims,
                    (unsigned long long)t->count);
    if (t->data_type == LG_ONNX_STRING) {
        if (t->n_strings != count)
            return vbad(v, "tensor \"%s\" has %u strings, dims need %llu", pn(t->name).s, t->n_strings,
                        (unsigned long long)count);
        return LG_OK;
    }
    if (t->nbytes != nbytes || (nbytes && !t->data))
        return vbad(v, "tensor \"%s\" has %llu bytes of data, dims (%llu %s elements) need %llu", pn(t->name).s,
                    (unsigned long long)t->nbytes, (unsigned long long)count, lg_onnx_dtype_name(t->data_type),
                    (unsigned long long)nbytes);
    return LG_OK;
}

static lg_status check_graph(vctx *v, const lg_onnx_graph *g, const vscope *parent);

static lg_status check_node(vctx *v, const lg_onnx_node *n, vscope *sc) {
    if (!n->op_type.n) return vbad(v, "node has no op_type");
    for (uint32_t i = 0; i < n->n_inputs; i++) {
        if (!n->inputs[i].n) continue; /* an absent optional input */
        if (!scope_has(sc, n->inputs[i]))
            return vbad(v, "input %u \"%s\" is not a graph input, an initializer or an earlier node's output",
                        i, pn(n->inputs[i]).s);
    }
    for (uint32_t i = 0; i < n->n_attrs; i++) {
        const lg_onnx_attr *a = &n->attrs[i];
        size_t old = vpush(v, ".attribute[%u] \"%s\"", i, pn(a->name).s);
        if (!a->name.n) return vbad(v, "attribute has no name");
        if (a->t) LG_TRY(check_tensor(v, a->t));
        for (uint32_t k = 0; k < a->n_tensors; k++) LG_TRY(check_tensor(v, &a->tensors[k]));
        if (a->g) {
            size_t o2 = vpush(v, ".g");
            LG_TRY(check_graph(v, a->g, sc));
            vpop(v, o2);
        }
        for (uint32_t k = 0; k < a->n_graphs; k++) {
            size_t o2 = vpush(v, ".graphs[%u]", k);
            LG_TRY(check_graph(v, &a->graphs[k], sc));
            vpop(v, o2);
        }
        vpop(v, old);
    }
    for (uint32_t i = 0; i < n->n_outputs; i++) {
        if (!n->outputs[i].n) continue; /* an absent optional output */
        if (!scope_add(sc, n->outputs[i]))
            return vbad(v, "output %u \"%s\" is already a graph input, an initializer or another node's output "
                        "(values are assigned once)", i, pn(n->outputs[i]).s);
    }
    return LG_OK;
}

static lg_status check_graph_body(vctx *v, const lg_onnx_graph *g, vscope *sc) {
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        if (!g->inputs[i].name.n) return vbad(v, "input %u has no name", i);
        if (!scope_add(sc, g->inputs[i].name))
            return vbad(v, "input %u \"%s\" appears twice", i, pn(g->inputs[i].name).s);
    }
    for (uint32_t i = 0; i < g->n_initializers; i++) {
        const lg_onnx_tensor *t = &g->initializers[i];
        size_t old = vpush(v, ".initializer[%u]", i);
        if (!t->name.n) return vbad(v, "initializer has no name");
        LG_TRY(check_tensor(v, t));
        vpop(v, old);
        /* an initializer may also be listed as a graph input (required before IR 4) */
        int is_input = 0;
        if (scope_has(&(vscope){NULL, sc->slot, sc->cap, sc->n}, t->name)) {
            for (uint32_t k = 0; k < g->n_inputs && !is_input; k++) is_input = same(g->inputs[k].name, t->name);
            if (!is_input) return vbad(v, "initializer %u \"%s\" appears twice", i, pn(t->name).s);
        } else {
            scope_add(sc, t->name);
        }
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const lg_onnx_node *n = &g->nodes[i];
        size_t old = vpush(v, ".node[%u] (%s)", i, pn(n->op_type).s);
        LG_TRY(check_node(v, n, sc));
        vpop(v, old);
    }
    for (uint32_t i = 0; i < g->n_outputs; i++) {
        if (!g->outputs[i].name.n) return vbad(v, "output %u has no name", i);
        if (!scope_has(sc, g->outputs[i].name))
            return vbad(v, "output %u \"%s\" is not produced by the graph", i, pn(g->outputs[i].name).s);
    }
    return LG_OK;
}

static lg_status check_graph(vctx *v, const lg_onnx_graph *g, const vscope *parent) {
    uint64_t names = (uint64_t)g->n_inputs + g->n_initializers;
    for (uint32_t i = 0; i < g->n_nodes; i++) names += g->nodes[i].n_outputs;
    uint64_t cap = 16;
    while (cap < 2 * names) cap *= 2;
    if (cap > SIZE_MAX / sizeof(lg_onnx_str))
        return lgi_fail(v->err, LG_ERR_NOMEM, "%s: out of memory", v->path);
    size_t bytes = (size_t)cap * sizeof(lg_onnx_str);
    lg_onnx_str *slot = v->af(v->ud, NULL, 0, bytes);
    if (!slot) return lgi_fail(v->err, LG_ERR_NOMEM, "%s: out of memory", v->path);
    memset(slot, 0, bytes);
    /* the empty name is never stored, so s == NULL marks an empty slot */
    vscope sc = {parent, slot, cap, 0};
    lg_status st = check_graph_body(v, g, &sc);
    v->af(v->ud, slot, bytes, 0);
    return st;
}

lg_status lg_onnx_validate(const lg_onnx_model *m, lg_error *err) {
    if (!m) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_onnx_validate: model is NULL");
    if (!m->graph) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_onnx_validate: the model has no graph");
    vctx v;
    memset(&v, 0, sizeof v);
    v.af = m->priv ? m->priv->arena.alloc : lgi_default_alloc;
    v.ud = m->priv ? m->priv->arena.ud : NULL;
    v.err = err;
    vpush(&v, "graph");
    return check_graph(&v, m->graph, NULL);
}
