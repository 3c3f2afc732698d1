/* Edits of a subgraph: insert and remove ops, set an op's tensors, options and opcode,
   replace the uses of a tensor, set a tensor's shape or constant data.

   Copy-on-write: an op's tensor lists, a subgraph's inputs/outputs and a tensor's shape are
   const arrays that may be the lgi_empty_vec sentinel or shared; an edit never writes
   through them but puts a fresh copy from the model's arena in their place (the old one is
   released with the model). Constant data (which may point into a mapped file) is never
   written: lg_tensor_set_const adds a new buffer. Struct arrays the model owns (ops,
   tensors, signature tensor maps) are edited in place.

   Every check comes before the first change, so an edit that fails leaves the model as it
   was. */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "ir/schema_gen.h"
#include "lg/graph.h"

static lg_status nomem(const lg_model *m, lg_error *err, const char *what) {
    if (m->priv->arena.over_limit)
        return lgi_fail(err, LG_ERR_LIMIT, "model memory limit reached while %s", what);
    return lgi_fail(err, LG_ERR_NOMEM, "out of memory while %s", what);
}

static lg_status get_sg(lg_model *m, uint32_t sg, lg_subgraph **out, lg_error *err) {
    if (!m || !m->priv) return lgi_fail(err, LG_ERR_INVALID_ARG, "no model given");
    if (sg >= m->n_subgraphs)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u of %u", sg, m->n_subgraphs);
    if (err) err->subgraph = (int32_t)sg;
    *out = &m->subgraphs[sg];
    return LG_OK;
}

static lg_status get_op(lg_model *m, uint32_t sg, uint32_t op, lg_subgraph **out,
                        lg_error *err) {
    LG_TRY(get_sg(m, sg, out, err));
    if (op >= (*out)->n_ops)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u: op %u of %u", sg, op,
                        (*out)->n_ops);
    if (err) err->op = (int32_t)op;
    return LG_OK;
}

static lg_status get_tensor(lg_model *m, uint32_t sg, int32_t t, lg_subgraph **out,
                            lg_error *err) {
    LG_TRY(get_sg(m, sg, out, err));
    if (t < 0 || (uint32_t)t >= (*out)->n_tensors)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u: tensor %d of %u", sg, t,
                        (*out)->n_tensors);
    if (err) err->tensor = t;
    return LG_OK;
}

/* A tensor reference of op `op`: -1 only where optional. */
static lg_status check_ref(const lg_subgraph *s, uint32_t sg, uint32_t op, const char *op_name,
                           const char *what, uint32_t slot, int32_t t, int optional,
                           lg_error *err) {
    if ((optional && t == -1) || (t >= 0 && (uint32_t)t < s->n_tensors)) return LG_OK;
    return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u op %u (%s): %s %u refers to tensor %d "
                    "of %u", sg, op, op_name, what, slot, t, s->n_tensors);
}

static lg_status check_refs(const lg_subgraph *s, uint32_t sg, uint32_t op, const char *op_name,
                            const char *what, const int32_t *ids, uint32_t n, int optional,
                            lg_error *err) {
    if (n && !ids)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u op %u (%s): %u %ss but no array",
                        sg, op, op_name, n, what);
    for (uint32_t k = 0; k < n; k++)
        LG_TRY(check_ref(s, sg, op, op_name, what, k, ids[k], optional, err));
    return LG_OK;
}

/* A fresh arena copy of n ids (the sentinel for n == 0); NULL on allocation failure. */
static int32_t *copy_ids(lg_model *m, const int32_t *ids, uint32_t n) {
    if (n == 0) return (int32_t *)(uintptr_t)lgi_empty_vec; /* never written: n is 0 */
    return lgi_arena_memdup(&m->priv->arena, ids, (size_t)n * sizeof(int32_t));
}

/* ---------------------------------------------------------------- ops */

lg_status lg_op_insert(lg_model *m, uint32_t sg, uint32_t at, int32_t builtin,
                       const char *custom_code, int32_t version, const int32_t *inputs,
                       uint32_t n_inputs, const int32_t *outputs, uint32_t n_outputs,
                       lg_opts_kind opts_kind, const void *opts, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_sg(m, sg, &s, err));
    if (at > s->n_ops)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u: insert at %u of %u ops", sg, at,
                        s->n_ops);
    /* checked here too so that a message names the op by the index it was to get */
    const char *name = lg_builtin_name(builtin);
    if (builtin == LG_OP_CUSTOM && custom_code) name = custom_code;
    if (name) {
        LG_TRY(check_refs(s, sg, at, name, "input", inputs, n_inputs, 1, err));
        LG_TRY(check_refs(s, sg, at, name, "output", outputs, n_outputs, 0, err));
    }
    int32_t idx;
    LG_TRY(lg_subgraph_add_op(m, sg, builtin, custom_code, version, inputs, n_inputs, outputs,
                              n_outputs, opts_kind, opts, &idx, err));
    s = &m->subgraphs[sg];
    lg_op op = s->ops[idx];
    memmove(&s->ops[at + 1], &s->ops[at], (size_t)((uint32_t)idx - at) * sizeof(lg_op));
    s->ops[at] = op;
    return LG_OK;
}

lg_status lg_op_remove(lg_model *m, uint32_t sg, uint32_t op, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_op(m, sg, op, &s, err));
    memmove(&s->ops[op], &s->ops[op + 1], (size_t)(s->n_ops - op - 1) * sizeof(lg_op));
    s->n_ops--;
    memset(&s->ops[s->n_ops], 0, sizeof(lg_op));
    return LG_OK;
}

/* Set input (input != 0) or output `slot` of an op to tensor t (-1 only for an input). */
static lg_status set_slot(lg_model *m, uint32_t sg, uint32_t op, uint32_t slot, int32_t t,
                          int input, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_op(m, sg, op, &s, err));
    lg_op *o = &s->ops[op];
    const char *what = input ? "input" : "output";
    const int32_t **ids = input ? &o->inputs : &o->outputs;
    uint32_t n = input ? o->n_inputs : o->n_outputs;
    if (slot >= n)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u op %u (%s): %s %u of %u", sg, op,
                        lg_op_name(m, o), what, slot, n);
    LG_TRY(check_ref(s, sg, op, lg_op_name(m, o), what, slot, t, input, err));
    int32_t *v = copy_ids(m, *ids, n);
    if (!v) return nomem(m, err, input ? "setting an op input" : "setting an op output");
    v[slot] = t;
    *ids = v;
    return LG_OK;
}

lg_status lg_op_set_input(lg_model *m, uint32_t sg, uint32_t op, uint32_t slot, int32_t t,
                          lg_error *err) {
    return set_slot(m, sg, op, slot, t, 1, err);
}

lg_status lg_op_set_inputs(lg_model *m, uint32_t sg, uint32_t op, const int32_t *inputs,
                           uint32_t n_inputs, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_op(m, sg, op, &s, err));
    lg_op *o = &s->ops[op];
    LG_TRY(check_refs(s, sg, op, lg_op_name(m, o), "input", inputs, n_inputs, 1, err));
    int32_t *v = copy_ids(m, inputs, n_inputs);
    if (!v) return nomem(m, err, "setting op inputs");
    o->inputs = v;
    o->n_inputs = n_inputs;
    return LG_OK;
}

lg_status lg_op_set_output(lg_model *m, uint32_t sg, uint32_t op, uint32_t slot, int32_t t,
                           lg_error *err) {
    return set_slot(m, sg, op, slot, t, 0, err);
}

lg_status lg_op_set_options(lg_model *m, uint32_t sg, uint32_t op, lg_opts_kind kind,
                            const void *opts, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_op(m, sg, op, &s, err));
    lg_op *o = &s->ops[op];
    if (kind == LG_OPTS_NONE) {
        if (opts)
            return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u op %u (%s): options given "
                            "without an options kind", sg, op, lg_op_name(m, o));
        o->opts_kind = LG_OPTS_NONE;
        o->opts = NULL;
        o->opts_present = 0;
        return LG_OK;
    }
    /* the same test as lg_subgraph_add_op: an op options table, not quantization details */
    if (!lgi_opts_table(kind) || (int)kind >= LG_QDETAILS_CUSTOM_QUANTIZATION)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u op %u (%s): unknown options kind "
                        "%d", sg, op, lg_op_name(m, o), (int)kind);
    void *c = lgi_opts_clone(&m->priv->arena, kind, opts);
    if (!c) return nomem(m, err, "copying operator options");
    o->opts_kind = kind;
    o->opts = c;
    o->opts_present = 0; /* not from a file: the writer stores what differs from defaults */
    return LG_OK;
}

lg_status lg_op_set_opcode(lg_model *m, uint32_t sg, uint32_t op, int32_t builtin,
                           const char *custom_code, int32_t version, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_op(m, sg, op, &s, err));
    uint32_t oc;
    LG_TRY(lg_model_opcode(m, builtin, custom_code, version, &oc, err));
    m->subgraphs[sg].ops[op].opcode_index = oc;
    return LG_OK;
}

/* ---------------------------------------------------------------- tensors */

static uint32_t count_in(const int32_t *ids, uint32_t n, int32_t t) {
    uint32_t c = 0;
    for (uint32_t k = 0; k < n; k++) c += ids[k] == t;
    return c;
}

/* Copy ids with every `from` replaced by `to`; NULL on allocation failure. */
static const int32_t *replaced(lg_model *m, const int32_t *ids, uint32_t n, int32_t from,
                               int32_t to) {
    int32_t *v = copy_ids(m, ids, n);
    if (!v) return NULL;
    for (uint32_t k = 0; k < n; k++)
        if (v[k] == from) v[k] = to;
    return v;
}

/* The copies are made first (staged on the hook's scratch), then committed, so that an
   allocation failure changes nothing. */
lg_status lg_tensor_replace_uses(lg_model *m, uint32_t sg, int32_t from, int32_t to,
                                 unsigned flags, uint32_t *n_replaced, lg_error *err) {
    lgi_error_clear(err);
    if (n_replaced) *n_replaced = 0;
    lg_subgraph *s = NULL;
    LG_TRY(get_tensor(m, sg, from, &s, err));
    int outs = (flags & LG_REPLACE_OUTPUTS) != 0;
    if (!(to >= 0 && (uint32_t)to < s->n_tensors) && !(to == -1 && !outs))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u: replacing tensor %d by tensor %d "
                        "of %u", sg, from, to, s->n_tensors);
    if (flags & ~(unsigned)LG_REPLACE_OUTPUTS)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u: unknown replace flags 0x%x", sg,
                        flags);
    for (uint32_t i = 0; i < s->n_ops; i++)
        if (s->ops[i].n_inputs && !s->ops[i].inputs)
            return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u op %u: inputs but no array",
                            sg, i);
    /* stage: one pointer per op, plus the subgraph outputs */
    size_t bytes = ((size_t)s->n_ops + 1) * sizeof(const int32_t *);
    const int32_t **stage = lgi_model_malloc(m, bytes);
    if (!stage) return lgi_fail(err, LG_ERR_NOMEM, "out of memory while replacing tensor uses");
    uint32_t count = 0;
    lg_status st = LG_OK;
    for (uint32_t i = 0; i <= s->n_ops && st == LG_OK; i++) {
        const int32_t *ids = i < s->n_ops ? s->ops[i].inputs : s->outputs;
        uint32_t n = i < s->n_ops ? s->ops[i].n_inputs : (outs ? s->n_outputs : 0);
        uint32_t c = ids ? count_in(ids, n, from) : 0;
        stage[i] = NULL;
        if (!c) continue;
        count += c;
        stage[i] = replaced(m, ids, n, from, to);
        if (!stage[i]) st = nomem(m, err, "replacing tensor uses");
    }
    if (st == LG_OK) {
        for (uint32_t i = 0; i < s->n_ops; i++)
            if (stage[i]) s->ops[i].inputs = stage[i];
        if (stage[s->n_ops]) s->outputs = stage[s->n_ops];
        for (uint32_t g = 0; outs && g < m->n_signatures; g++) {
            lg_signature *sig = &m->signatures[g];
            if (sig->subgraph_index != sg || !sig->outputs) continue;
            for (uint32_t k = 0; k < sig->n_outputs; k++)
                if (sig->outputs[k].tensor_index == (uint32_t)from) {
                    sig->outputs[k].tensor_index = (uint32_t)to;
                    count++;
                }
        }
        if (n_replaced) *n_replaced = count;
    }
    lgi_model_mfree(m, stage, bytes);
    return st;
}

lg_status lg_tensor_set_shape(lg_model *m, uint32_t sg, int32_t t, const int32_t *shape,
                              uint32_t rank, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_tensor(m, sg, t, &s, err));
    lg_tensor *x = &s->tensors[t];
    if (rank && !shape)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u tensor %d (\"%s\"): rank %u but no "
                        "shape", sg, t, x->name ? x->name : "", rank);
    for (uint32_t d = 0; d < rank; d++)
        if (shape[d] < 0)
            return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u tensor %d (\"%s\"): dimension "
                            "%u is %d (dynamic dimensions go in the shape signature)", sg, t,
                            x->name ? x->name : "", d, shape[d]);
    const int32_t *v = copy_ids(m, shape, rank);
    if (!v) return nomem(m, err, "setting a tensor shape");
    x->shape = v;
    x->rank = rank;
    x->has_rank = true;
    if (x->shape_signature && x->n_shape_signature != rank) {
        x->shape_signature = NULL;
        x->n_shape_signature = 0;
    }
    return LG_OK;
}

lg_status lg_tensor_set_name(lg_model *m, uint32_t sg, int32_t t, const char *name, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_tensor(m, sg, t, &s, err));
    char *d = name ? lgi_arena_strdup(&m->priv->arena, name) : NULL;
    if (name && !d) return nomem(m, err, "naming a tensor");
    s->tensors[t].name = d;
    return LG_OK;
}

lg_status lg_tensor_set_const(lg_model *m, uint32_t sg, int32_t t, lg_dtype type,
                              const void *data, uint64_t nbytes, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_tensor(m, sg, t, &s, err));
    const lg_tensor *x = &s->tensors[t];
    const char *nm = x->name ? x->name : "";
    if ((int)type < 0 || (int)type >= LG_DTYPE_COUNT)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u tensor %d (\"%s\"): unknown type %d",
                        sg, t, nm, (int)type);
    int bits = lg_dtype_bits((int)type);
    if (bits > 0) { /* the size rule of lg_subgraph_add_const and lg_model_validate */
        int64_t numel = lg_tensor_numel(x);
        if (numel < 0 || (uint64_t)numel > (UINT64_MAX - 7) / (uint64_t)bits)
            return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u tensor %d (\"%s\"): bad shape",
                            sg, t, nm);
        uint64_t want = ((uint64_t)numel * (uint64_t)bits + 7) / 8;
        if (nbytes != want)
            return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u tensor %d (\"%s\"): %llu bytes "
                            "of data, the shape needs %llu (%lld x %s)", sg, t, nm,
                            (unsigned long long)nbytes, (unsigned long long)want,
                            (long long)numel, lg_dtype_name((int)type));
    }
    if (!data && nbytes)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "subgraph %u tensor %d (\"%s\"): no data", sg, t,
                        nm);
    static const uint8_t none[1];
    uint32_t b;
    LG_TRY(lg_model_add_buffer(m, data ? data : none, nbytes, &b, err));
    lg_tensor *w = &m->subgraphs[sg].tensors[t];
    w->buffer = b;
    w->type = (int8_t)type;
    w->sparsity = NULL;
    w->external_buffer = 0;
    return LG_OK;
}

lg_status lg_tensor_clear_quant(lg_model *m, uint32_t sg, int32_t t, lg_error *err) {
    lgi_error_clear(err);
    lg_subgraph *s = NULL;
    LG_TRY(get_tensor(m, sg, t, &s, err));
    s->tensors[t].quant = NULL;
    return LG_OK;
}
