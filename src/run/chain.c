/* Chains of models run in order, tensors passed by name (include/lg/run.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lg/run.h"

typedef struct slot {
    const char *name;        /* owned by a part model or the caller's list (outlives us) */
    lg_tensor_view view;     /* the value's shape/type; data points into buf */
    void *buf;
    uint64_t cap;
    bool set;
} slot;

struct lg_chain {
    bool direct;             /* one model, its own interface by index (no names needed) */
    lg_interp **its;
    uint32_t n_parts;
    slot *slots;             /* every distinct name: inputs first, then part outputs */
    uint32_t n_slots;
    uint32_t n_inputs;
    int32_t *out_slot;       /* per chain output */
    uint32_t n_outputs;
    int32_t **in_slot;       /* per part, per input: the slot it reads */
    int32_t **res_slot;      /* per part, per output: the slot it writes */
};

static int32_t find_slot(const lg_chain *c, const char *name) {
    for (uint32_t i = 0; i < c->n_slots; i++)
        if (strcmp(c->slots[i].name, name) == 0) return (int32_t)i;
    return -1;
}

void lg_chain_free(lg_chain *c) {
    if (!c) return;
    for (uint32_t p = 0; p < c->n_parts; p++) {
        lg_interp_free(c->its[p]);
        if (c->in_slot) free(c->in_slot[p]);
        if (c->res_slot) free(c->res_slot[p]);
    }
    for (uint32_t i = 0; i < c->n_slots; i++) free(c->slots[i].buf);
    free(c->its);
    free(c->in_slot);
    free(c->res_slot);
    free(c->slots);
    free(c->out_slot);
    free(c);
}

static lg_status wire_part(lg_chain *c, uint32_t p, lg_error *err) {
    lg_interp *it = c->its[p];
    uint32_t ni = lg_interp_n_inputs(it), no = lg_interp_n_outputs(it);
    c->in_slot[p] = malloc(((size_t)ni + 1) * sizeof(int32_t));
    c->res_slot[p] = malloc(((size_t)no + 1) * sizeof(int32_t));
    if (!c->in_slot[p] || !c->res_slot[p]) return lgi_fail(err, LG_ERR_NOMEM, "out of memory for the chain");
    for (uint32_t k = 0; k < ni; k++) {
        lg_tensor_view v;
        LG_TRY(lg_interp_input(it, k, &v));
        int32_t s = v.name ? find_slot(c, v.name) : -1;
        if (s < 0)
            return lgi_fail(err, LG_ERR_INVALID_ARG, "chain part %u: input %u \"%s\" is neither a chain input nor an earlier part's output",
                            p, k, v.name ? v.name : "");
        if (c->slots[s].view.rank == 0 && c->slots[s].view.numel == 0) c->slots[s].view = v; /* first reader */
        else if (c->slots[s].view.type != v.type || c->slots[s].view.numel != v.numel)
            return lgi_fail(err, LG_ERR_INVALID_ARG, "chain part %u: input \"%s\" is %s of %lld elements, the value passed is %s of %lld",
                            p, v.name, lg_dtype_name(v.type), (long long)v.numel,
                            lg_dtype_name(c->slots[s].view.type), (long long)c->slots[s].view.numel);
        c->in_slot[p][k] = s;
    }
    for (uint32_t k = 0; k < no; k++) {
        lg_tensor_view v;
        LG_TRY(lg_interp_output(it, k, &v));
        if (!v.name || !v.name[0])
            return lgi_fail(err, LG_ERR_INVALID_ARG, "chain part %u: output %u has no name", p, k);
        int32_t s = find_slot(c, v.name);
        if (s < 0) {
            s = (int32_t)c->n_slots++;
            memset(&c->slots[s], 0, sizeof c->slots[s]);
            c->slots[s].name = v.name;
        }
        c->slots[s].view = v;
        c->res_slot[p][k] = s;
    }
    return LG_OK;
}

lg_status lg_chain_create(const lg_model *const *parts, uint32_t n_parts,
                          const char *const *input_names, uint32_t n_inputs,
                          const char *const *output_names, uint32_t n_outputs,
                          const lg_run_options *opt, lg_chain **out, lg_error *err) {
    lgi_error_clear(err);
    if (!out || !parts || !n_parts || (n_inputs && !input_names) || (n_outputs && !output_names))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_chain_create: bad arguments");
    *out = NULL;
    lg_chain *c = calloc(1, sizeof *c);
    if (!c) return lgi_fail(err, LG_ERR_NOMEM, "out of memory for the chain");
    if (n_parts == 1 && !input_names && !output_names) {
        /* direct: the one model's interpreter, its options (taps too) as given */
        lg_run_options ro1;
        memset(&ro1, 0, sizeof ro1);
        if (opt) ro1 = *opt;
        c->direct = true;
        c->n_parts = 1;
        c->its = calloc(1, sizeof *c->its);
        lg_status st1 = c->its ? lg_interp_create(parts[0], &ro1, &c->its[0], err)
                               : lgi_fail(err, LG_ERR_NOMEM, "out of memory for the chain");
        if (st1 != LG_OK) {
            lg_chain_free(c);
            return st1;
        }
        *out = c;
        return LG_OK;
    }
    uint64_t cap = n_inputs;
    for (uint32_t p = 0; p < n_parts; p++) cap += parts[p] && parts[p]->n_subgraphs ? parts[p]->subgraphs[0].n_outputs : 0;
    c->its = calloc(n_parts, sizeof *c->its);
    c->in_slot = calloc(n_parts, sizeof *c->in_slot);
    c->res_slot = calloc(n_parts, sizeof *c->res_slot);
    c->slots = calloc((size_t)cap + 1, sizeof *c->slots);
    c->out_slot = calloc((size_t)n_outputs + 1, sizeof *c->out_slot);
    lg_status st = LG_OK;
    if (!c->its || !c->in_slot || !c->res_slot || !c->slots || !c->out_slot)
        st = lgi_fail(err, LG_ERR_NOMEM, "out of memory for the chain");
    c->n_parts = n_parts;
    for (uint32_t i = 0; i < n_inputs && st == LG_OK; i++) {
        if (!input_names[i] || find_slot(c, input_names[i]) >= 0)
            st = lgi_fail(err, LG_ERR_INVALID_ARG, "chain input %u: missing or repeated name", i);
        else c->slots[c->n_slots++].name = input_names[i];
    }
    c->n_inputs = n_inputs;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    if (opt) ro = *opt;
    ro.tap = NULL;
    ro.keep_all = false;
    for (uint32_t p = 0; p < n_parts && st == LG_OK; p++) {
        st = lg_interp_create(parts[p], &ro, &c->its[p], err);
        if (st == LG_OK) st = wire_part(c, p, err);
    }
    for (uint32_t i = 0; i < n_inputs && st == LG_OK; i++)
        if (c->slots[i].view.numel == 0 && c->slots[i].view.rank == 0 && !c->slots[i].view.name)
            st = lgi_fail(err, LG_ERR_INVALID_ARG, "chain input \"%s\" is read by no part", input_names[i]);
    for (uint32_t i = 0; i < n_outputs && st == LG_OK; i++) {
        int32_t s = output_names[i] ? find_slot(c, output_names[i]) : -1;
        if (s < (int32_t)n_inputs)
            st = lgi_fail(err, LG_ERR_INVALID_ARG, "chain output \"%s\" is computed by no part",
                          output_names[i] ? output_names[i] : "");
        else c->out_slot[i] = s;
    }
    c->n_outputs = n_outputs;
    /* value buffers for every slot */
    for (uint32_t i = 0; i < c->n_slots && st == LG_OK; i++) {
        c->slots[i].cap = c->slots[i].view.nbytes;
        c->slots[i].buf = malloc(c->slots[i].cap ? (size_t)c->slots[i].cap : 1);
        if (!c->slots[i].buf) st = lgi_fail(err, LG_ERR_NOMEM, "out of memory for the chain's values");
        c->slots[i].view.data = c->slots[i].buf;
    }
    if (st != LG_OK) {
        lg_chain_free(c);
        return st;
    }
    *out = c;
    return LG_OK;
}

uint32_t lg_chain_n_inputs(const lg_chain *c) {
    return !c ? 0 : c->direct ? lg_interp_n_inputs(c->its[0]) : c->n_inputs;
}
uint32_t lg_chain_n_outputs(const lg_chain *c) {
    return !c ? 0 : c->direct ? lg_interp_n_outputs(c->its[0]) : c->n_outputs;
}

const lg_interp *lg_chain_interp(const lg_chain *c, uint32_t part) {
    return c && part < c->n_parts ? c->its[part] : NULL;
}
uint32_t lg_chain_n_parts(const lg_chain *c) { return c ? c->n_parts : 0; }

lg_status lg_chain_input(const lg_chain *c, uint32_t i, lg_tensor_view *v) {
    if (c && c->direct) return lg_interp_input(c->its[0], i, v);
    if (!c || !v || i >= c->n_inputs) return LG_ERR_INVALID_ARG;
    *v = c->slots[i].view;
    v->data = NULL;
    return LG_OK;
}

lg_status lg_chain_set_input(lg_chain *c, uint32_t i, lg_dtype type, const void *data,
                             uint64_t nbytes, lg_error *err) {
    lgi_error_clear(err);
    if (c && c->direct) return lg_interp_set_input(c->its[0], i, type, data, nbytes, err);
    if (!c || i >= c->n_inputs || !data) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_chain_set_input: bad arguments");
    slot *s = &c->slots[i];
    if (type != s->view.type || nbytes != s->view.nbytes)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "chain input %u \"%s\": %s of %llu bytes given, it takes %s of %llu",
                        i, s->name, lg_dtype_name(type), (unsigned long long)nbytes, lg_dtype_name(s->view.type),
                        (unsigned long long)s->view.nbytes);
    memcpy(s->buf, data, (size_t)nbytes);
    s->set = true;
    return LG_OK;
}

lg_status lg_chain_invoke(lg_chain *c, lg_error *err) {
    lgi_error_clear(err);
    if (!c) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_chain_invoke: no chain");
    if (c->direct) return lg_interp_invoke(c->its[0], err);
    for (uint32_t i = 0; i < c->n_inputs; i++)
        if (!c->slots[i].set) return lgi_fail(err, LG_ERR_INVALID_ARG, "chain input %u \"%s\" is not set", i, c->slots[i].name);
    for (uint32_t p = 0; p < c->n_parts; p++) {
        lg_interp *it = c->its[p];
        for (uint32_t k = 0; k < lg_interp_n_inputs(it); k++) {
            const slot *s = &c->slots[c->in_slot[p][k]];
            LG_TRY(lg_interp_set_input(it, k, s->view.type, s->buf, s->view.nbytes, err));
        }
        lg_status st = lg_interp_invoke(it, err);
        if (st != LG_OK) {
            char tmp[sizeof err->msg];
            if (err) {
                memcpy(tmp, err->msg, sizeof tmp);
                tmp[sizeof tmp - 32] = 0;
                snprintf(err->msg, sizeof err->msg, "chain part %u: %.470s", p, tmp);
            }
            return st;
        }
        for (uint32_t k = 0; k < lg_interp_n_outputs(it); k++) {
            lg_tensor_view v;
            LG_TRY(lg_interp_output(it, k, &v));
            slot *s = &c->slots[c->res_slot[p][k]];
            if (v.nbytes > s->cap) return lgi_fail(err, LG_ERR_INTERNAL, "chain part %u output %u grew", p, k);
            memcpy(s->buf, v.data, (size_t)v.nbytes);
            s->view = v;
            s->view.data = s->buf;
        }
    }
    return LG_OK;
}

lg_status lg_chain_output(const lg_chain *c, uint32_t i, lg_tensor_view *v) {
    if (c && c->direct) return lg_interp_output(c->its[0], i, v);
    if (!c || !v || i >= c->n_outputs) return LG_ERR_INVALID_ARG;
    *v = c->slots[c->out_slot[i]].view;
    return LG_OK;
}
