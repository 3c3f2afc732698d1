/* Cutting a model into parts: cut at chosen outputs, taps, the GPU/CPU split
 * (include/lg/split.h). Every part is a copy of the model with the ops of other parts
 * removed, its interface set, compacted and re-validated. */
#include <stdio.h>
#include <stdlib.h>

#include "lg/graph.h"
#include "lg/split.h"
#include "passes/passes_impl.h"

typedef struct ids {
    int32_t *v;
    uint32_t n;
} ids;

static bool is_const(const lg_model *m, int32_t t) {
    const lg_tensor *x = &m->subgraphs[0].tensors[t];
    return x->buffer && x->buffer < m->n_buffers && m->buffers[x->buffer].data != NULL;
}

static bool in_ids(const int32_t *v, uint32_t n, int32_t t) {
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == t) return true;
    return false;
}

/* producer[t]: the op of subgraph 0 writing t, or -1. */
static int32_t *producers(const lg_model *m, lg_error *err) {
    const lg_subgraph *sg = &m->subgraphs[0];
    int32_t *p = malloc(((size_t)sg->n_tensors + 1) * sizeof *p);
    if (!p) {
        lgi_fail(err, LG_ERR_NOMEM, "out of memory for the tensor producers");
        return NULL;
    }
    for (uint32_t t = 0; t < sg->n_tensors; t++) p[t] = -1;
    for (uint32_t i = 0; i < sg->n_ops; i++)
        for (uint32_t k = 0; k < sg->ops[i].n_outputs; k++) {
            int32_t t = sg->ops[i].outputs[k];
            if (t >= 0 && (uint32_t)t < sg->n_tensors) p[t] = (int32_t)i;
        }
    return p;
}

/* The interface of the part made of the ops with keep[i] (see split.h for the order). */
static lg_status part_io(const lg_model *m, const bool *keep, ids *in, ids *out, lg_error *err) {
    const lg_subgraph *sg = &m->subgraphs[0];
    uint32_t nt = sg->n_tensors;
    uint8_t *made = calloc((size_t)nt + 1, 1), *read = calloc((size_t)nt + 1, 1),
            *read_else = calloc((size_t)nt + 1, 1);
    in->v = malloc(((size_t)nt + sg->n_inputs + 1) * sizeof(int32_t));
    out->v = malloc(((size_t)nt + sg->n_outputs + 1) * sizeof(int32_t));
    in->n = out->n = 0;
    lg_status st = LG_OK;
    if (!made || !read || !read_else || !in->v || !out->v) {
        st = lgi_fail(err, LG_ERR_NOMEM, "out of memory for a part's interface");
        goto done;
    }
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        for (uint32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k];
            if (t < 0 || (uint32_t)t >= nt) continue;
            if (keep[i]) read[t] = 1;
            else read_else[t] = 1;
        }
        if (keep[i])
            for (uint32_t k = 0; k < op->n_outputs; k++)
                if (op->outputs[k] >= 0 && (uint32_t)op->outputs[k] < nt) made[op->outputs[k]] = 1;
    }
    for (uint32_t k = 0; k < sg->n_inputs; k++) {
        int32_t t = sg->inputs[k];
        if (t >= 0 && (uint32_t)t < nt && read[t] && !in_ids(in->v, in->n, t)) in->v[in->n++] = t;
    }
    for (uint32_t t = 0; t < nt; t++)
        if (read[t] && !made[t] && !is_const(m, (int32_t)t) && !sg->tensors[t].is_variable &&
            !in_ids(in->v, in->n, (int32_t)t) && !in_ids(sg->inputs, sg->n_inputs, (int32_t)t))
            in->v[in->n++] = (int32_t)t;
    for (uint32_t k = 0; k < sg->n_outputs; k++) {
        int32_t t = sg->outputs[k];
        if (t >= 0 && (uint32_t)t < nt && made[t] && !in_ids(out->v, out->n, t)) out->v[out->n++] = t;
    }
    for (uint32_t t = 0; t < nt; t++)
        if (made[t] && read_else[t] && !in_ids(out->v, out->n, (int32_t)t)) out->v[out->n++] = (int32_t)t;
done:
    free(made);
    free(read);
    free(read_else);
    return st;
}

/* A copy of m with only the ops keep[] marks, and the given interface. */
static lg_status extract(const lg_model *m, const bool *keep, const ids *in, const ids *out,
                         lg_model **res, lg_error *err) {
    lg_model *w = NULL;
    LG_TRY(lg_model_clone(m, &w, err));
    lg_status st = LG_OK;
    for (uint32_t i = m->subgraphs[0].n_ops; i-- > 0 && st == LG_OK;)
        if (!keep[i]) st = lg_op_remove(w, 0, i, err);
    if (st == LG_OK) st = lg_subgraph_set_io(w, 0, in->v, in->n, out->v, out->n, err);
    if (st == LG_OK) {
        w->n_signatures = 0; /* they describe the whole model */
        lg_compact_stats cs;
        st = lg_model_compact(w, &cs, NULL, err);
    }
    if (st == LG_OK) st = lg_model_validate(w, err);
    if (st == LG_OK) st = lg_model_validate_ops(w, err);
    if (st != LG_OK) {
        lg_model_free(w);
        return st;
    }
    *res = w;
    return LG_OK;
}

static lg_status need_sg0(const lg_model *m, lg_error *err) {
    if (!m || !m->n_subgraphs) return lgi_fail(err, LG_ERR_INVALID_ARG, "the model has no subgraph");
    return LG_OK;
}

/* ------------------------------------------------------------------ cut */

static int32_t find_name(const lg_model *m, const char *name, lg_error *err) {
    const lg_subgraph *sg = &m->subgraphs[0];
    int32_t hit = -1;
    for (uint32_t t = 0; t < sg->n_tensors; t++) {
        if (!sg->tensors[t].name || strcmp(sg->tensors[t].name, name) != 0) continue;
        if (hit >= 0) {
            lgi_fail(err, LG_ERR_INVALID_ARG, "tensor name \"%s\" is not unique (tensors %d and %u)", name, hit, t);
            return -2;
        }
        hit = (int32_t)t;
    }
    if (hit < 0) lgi_fail(err, LG_ERR_INVALID_ARG, "no tensor is named \"%s\"", name);
    return hit;
}

lg_status lg_model_cut(const lg_model *m, const char *const *names, uint32_t n, lg_model **out,
                       lg_error *err) {
    lgi_error_clear(err);
    if (!out || (n && !names)) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_model_cut: NULL argument");
    *out = NULL;
    LG_TRY(need_sg0(m, err));
    if (!n) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_model_cut: no output named");
    const lg_subgraph *sg = &m->subgraphs[0];
    ids o = {malloc(((size_t)n + 1) * sizeof(int32_t)), 0};
    bool *keep = calloc((size_t)sg->n_ops + 1, sizeof *keep);
    bool *need = calloc((size_t)sg->n_tensors + 1, sizeof *need);
    int32_t *prod = producers(m, err);
    ids in = {NULL, 0}, io_out = {NULL, 0};
    lg_status st = LG_OK;
    if (!o.v || !keep || !need || !prod) {
        st = prod ? lgi_fail(err, LG_ERR_NOMEM, "out of memory for the cut") : LG_ERR_NOMEM;
        goto done;
    }
    for (uint32_t k = 0; k < n; k++) {
        int32_t t = find_name(m, names[k], err);
        if (t < 0) {
            st = LG_ERR_INVALID_ARG;
            goto done;
        }
        if (prod[t] < 0 && !in_ids(sg->inputs, sg->n_inputs, t)) {
            st = lgi_fail(err, LG_ERR_INVALID_ARG, "tensor \"%s\" is not computed by an op (a constant?)", names[k]);
            goto done;
        }
        if (in_ids(o.v, o.n, t)) {
            st = lgi_fail(err, LG_ERR_INVALID_ARG, "tensor \"%s\" is named twice", names[k]);
            goto done;
        }
        o.v[o.n++] = t;
        need[t] = true;
    }
    /* ops in reverse order: an op is kept when one of its outputs is needed */
    for (uint32_t i = sg->n_ops; i-- > 0;) {
        const lg_op *op = &sg->ops[i];
        for (uint32_t k = 0; k < op->n_outputs && !keep[i]; k++)
            if (op->outputs[k] >= 0 && need[op->outputs[k]]) keep[i] = true;
        if (!keep[i]) continue;
        for (uint32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0 && (uint32_t)op->inputs[k] < sg->n_tensors) need[op->inputs[k]] = true;
    }
    st = part_io(m, keep, &in, &io_out, err);
    if (st == LG_OK) {
        /* a named tensor that is a graph input passes straight through */
        for (uint32_t k = 0; k < o.n; k++)
            if (in_ids(sg->inputs, sg->n_inputs, o.v[k]) && !in_ids(in.v, in.n, o.v[k])) in.v[in.n++] = o.v[k];
        st = extract(m, keep, &in, &o, out, err);
    }
done:
    free(in.v);
    free(io_out.v);
    free(o.v);
    free(keep);
    free(need);
    free(prod);
    return st;
}

/* ------------------------------------------------------------------ taps */

lg_status lg_model_taps(const lg_model *m, const int32_t *tensors, uint32_t n, lg_model **out,
                        uint32_t *n_added, lg_error *err) {
    lgi_error_clear(err);
    if (!out || (n && !tensors)) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_model_taps: NULL argument");
    *out = NULL;
    if (n_added) *n_added = 0;
    LG_TRY(need_sg0(m, err));
    const lg_subgraph *sg = &m->subgraphs[0];
    int32_t *prod = producers(m, err);
    if (!prod) return LG_ERR_NOMEM;
    /* tensors computed at run time: produced by an op with a runtime input (constant-folded
       values such as DEQUANTIZE of fp16 weights are not tapped) */
    bool *rt = calloc((size_t)sg->n_tensors + 1, sizeof *rt);
    int32_t *outs = malloc(((size_t)sg->n_tensors + sg->n_outputs + 1) * sizeof *outs);
    lg_status st = LG_OK;
    if (!rt || !outs) {
        st = lgi_fail(err, LG_ERR_NOMEM, "out of memory for the taps");
        goto done;
    }
    for (uint32_t k = 0; k < sg->n_inputs; k++)
        if (sg->inputs[k] >= 0) rt[sg->inputs[k]] = true;
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        bool any = false;
        for (uint32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0 && (rt[op->inputs[k]] || sg->tensors[op->inputs[k]].is_variable)) any = true;
        for (uint32_t k = 0; k < op->n_outputs; k++)
            if (op->outputs[k] >= 0) rt[op->outputs[k]] = any || op->n_inputs == 0;
    }
    uint32_t no = 0;
    for (uint32_t k = 0; k < sg->n_outputs; k++) outs[no++] = sg->outputs[k];
    uint32_t first = no;
    if (n) {
        for (uint32_t k = 0; k < n; k++) {
            int32_t t = tensors[k];
            if (t < 0 || (uint32_t)t >= sg->n_tensors) {
                st = lgi_fail(err, LG_ERR_INVALID_ARG, "tap: tensor %d of %u", t, sg->n_tensors);
                goto done;
            }
            if (prod[t] >= 0 && !in_ids(outs, no, t)) outs[no++] = t;
        }
    } else {
        for (uint32_t t = 0; t < sg->n_tensors; t++) {
            int8_t ty = sg->tensors[t].type;
            if (prod[t] >= 0 && rt[t] && (ty == LG_FLOAT32 || ty == LG_FLOAT16) && !in_ids(outs, no, (int32_t)t))
                outs[no++] = (int32_t)t;
        }
    }
    lg_model *w = NULL;
    st = lg_model_clone(m, &w, err);
    if (st == LG_OK) st = lg_subgraph_set_io(w, 0, sg->inputs, sg->n_inputs, outs, no, err);
    if (st == LG_OK) {
        w->n_signatures = 0;
        *out = w;
        if (n_added) *n_added = no - first;
    } else {
        lg_model_free(w);
    }
done:
    free(prod);
    free(rt);
    free(outs);
    return st;
}

/* ------------------------------------------------------------------ split */

static lg_status blocked_ops(const lg_model *m, const lg_check_options *opt, bool *blocked,
                             lg_error *err) {
    lg_check_report *r = NULL;
    LG_TRY(lg_check_model(m, opt, &r, err));
    for (uint32_t i = 0; i < r->n_findings; i++) {
        const lg_finding *f = &r->findings[i];
        if (f->rule->severity == LG_SEV_BLOCKER && f->op >= 0 && (uint32_t)f->op < m->subgraphs[0].n_ops)
            blocked[f->op] = true;
    }
    lg_check_report_free(r);
    return LG_OK;
}

/* part[i] = the part index of op i: alternating maximal GPU and CPU sets of ready ops. */
static lg_status schedule(const lg_model *m, const bool *blocked, const int32_t *prod,
                          int32_t *part, uint32_t *n_parts, bool *part_gpu, lg_error *err) {
    const lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t i = 0; i < sg->n_ops; i++) part[i] = -1;
    uint32_t done = 0, np = 0;
    bool gpu = true;
    uint32_t idle = 0;
    while (done < sg->n_ops) {
        uint32_t added = 0;
        for (uint32_t i = 0; i < sg->n_ops; i++) {
            if (part[i] >= 0 || blocked[i] == gpu) continue;
            bool ready = true;
            const lg_op *op = &sg->ops[i];
            for (uint32_t k = 0; k < op->n_inputs && ready; k++) {
                int32_t t = op->inputs[k];
                if (t >= 0 && (uint32_t)t < sg->n_tensors && prod[t] >= 0 && part[prod[t]] < 0) ready = false;
            }
            if (!ready) continue;
            part[i] = (int32_t)np;
            added++;
        }
        if (added) {
            part_gpu[np++] = gpu;
            done += added;
            idle = 0;
        } else if (++idle > 2) {
            return lgi_fail(err, LG_ERR_INTERNAL, "split: the ops cannot be ordered (a cycle?)");
        }
        gpu = !gpu;
    }
    *n_parts = np;
    return LG_OK;
}

/* Give every tensor crossing parts, and every graph input/output, a unique non-empty name. */
static lg_status name_boundary(lg_model *w, const int32_t *part, const int32_t *prod,
                               uint32_t *n_renamed, lg_error *err) {
    lg_subgraph *sg = &w->subgraphs[0];
    uint32_t nt = sg->n_tensors;
    bool *cross = calloc((size_t)nt + 1, sizeof *cross);
    if (!cross) return lgi_fail(err, LG_ERR_NOMEM, "out of memory for the split");
    for (uint32_t i = 0; i < sg->n_ops; i++)
        for (uint32_t k = 0; k < sg->ops[i].n_inputs; k++) {
            int32_t t = sg->ops[i].inputs[k];
            if (t >= 0 && (uint32_t)t < nt && prod[t] >= 0 && part[prod[t]] != part[i]) cross[t] = true;
        }
    for (uint32_t k = 0; k < sg->n_inputs; k++) if (sg->inputs[k] >= 0) cross[sg->inputs[k]] = true;
    for (uint32_t k = 0; k < sg->n_outputs; k++) if (sg->outputs[k] >= 0) cross[sg->outputs[k]] = true;
    lg_status st = LG_OK;
    for (uint32_t t = 0; t < nt && st == LG_OK; t++) {
        if (!cross[t]) continue;
        const char *nm = sg->tensors[t].name;
        bool bad = !nm || !nm[0];
        for (uint32_t u = 0; u < nt && !bad; u++)
            if (u != t && sg->tensors[u].name && strcmp(sg->tensors[u].name, nm) == 0) bad = true;
        if (!bad) continue;
        char buf[48];
        snprintf(buf, sizeof buf, "litegpu/split/t%u", t);
        st = lg_tensor_set_name(w, 0, (int32_t)t, buf, err);
        (*n_renamed)++;
        sg = &w->subgraphs[0];
    }
    free(cross);
    return st;
}

static lg_status make_parts(const lg_model *w, const int32_t *part, uint32_t np, const bool *part_gpu,
                            const lg_check_options *opt, lg_split *s, lg_error *err) {
    const lg_subgraph *sg = &w->subgraphs[0];
    bool *keep = malloc(((size_t)sg->n_ops + 1) * sizeof *keep);
    if (!keep) return lgi_fail(err, LG_ERR_NOMEM, "out of memory for the split");
    lg_status st = LG_OK;
    for (uint32_t p = 0; p < np && st == LG_OK; p++) {
        lg_split_part *sp = &s->parts[s->n_parts];
        memset(sp, 0, sizeof *sp);
        sp->gpu = part_gpu[p];
        for (uint32_t i = 0; i < sg->n_ops; i++) {
            keep[i] = part[i] == (int32_t)p;
            sp->n_ops += keep[i];
        }
        sp->ops = malloc(((size_t)sp->n_ops + 1) * sizeof *sp->ops);
        if (!sp->ops) {
            st = lgi_fail(err, LG_ERR_NOMEM, "out of memory for the split");
            break;
        }
        for (uint32_t i = 0, k = 0; i < sg->n_ops; i++)
            if (keep[i]) sp->ops[k++] = i;
        s->n_parts++;
        ids in = {NULL, 0}, out = {NULL, 0};
        st = part_io(w, keep, &in, &out, err);
        if (st == LG_OK) st = extract(w, keep, &in, &out, &sp->model, err);
        free(in.v);
        free(out.v);
        if (st == LG_OK && sp->gpu) {
            lg_check_report *r = NULL;
            st = lg_check_model(sp->model, opt, &r, err);
            if (st == LG_OK) {
                sp->ready = r->ready;
                sp->n_blockers = r->n_blockers;
                lg_check_report_free(r);
            }
        }
        if (sp->gpu) s->n_gpu_ops += sp->n_ops;
        else s->n_cpu_ops += sp->n_ops;
    }
    free(keep);
    return st;
}

static char *dup_name(const char *n) {
    size_t l = strlen(n);
    char *d = malloc(l + 1);
    if (d) memcpy(d, n, l + 1);
    return d;
}

static lg_status io_names(const lg_model *w, lg_split *s, lg_error *err) {
    const lg_subgraph *sg = &w->subgraphs[0];
    s->input_names = calloc((size_t)sg->n_inputs + 1, sizeof *s->input_names);
    s->output_names = calloc((size_t)sg->n_outputs + 1, sizeof *s->output_names);
    if (!s->input_names || !s->output_names) return lgi_fail(err, LG_ERR_NOMEM, "out of memory for the split");
    for (uint32_t k = 0; k < sg->n_inputs; k++) {
        if (!(s->input_names[k] = dup_name(sg->tensors[sg->inputs[k]].name))) return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
        s->n_inputs++;
    }
    for (uint32_t k = 0; k < sg->n_outputs; k++) {
        if (!(s->output_names[k] = dup_name(sg->tensors[sg->outputs[k]].name))) return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
        s->n_outputs++;
    }
    return LG_OK;
}

/* GPU parts smaller than min_ops (when more than one part) go to the CPU: each GPU/CPU
   boundary costs a copy and a sync, more than a few ops gain. Returns whether any moved. */
static bool drop_small_gpu_parts(const lg_model *m, bool *blocked, const int32_t *part, uint32_t np,
                                 const bool *part_gpu, uint32_t min_ops) {
    if (np <= 1) return false;
    bool moved = false;
    uint32_t n_ops = m->subgraphs[0].n_ops;
    for (uint32_t p = 0; p < np; p++) {
        if (!part_gpu[p]) continue;
        uint32_t n = 0;
        for (uint32_t i = 0; i < n_ops; i++) n += part[i] == (int32_t)p;
        if (n >= min_ops) continue;
        for (uint32_t i = 0; i < n_ops; i++)
            if (part[i] == (int32_t)p) blocked[i] = true;
        moved = true;
    }
    return moved;
}

lg_status lg_split_model(const lg_model *m, const lg_check_options *opt, uint32_t min_gpu_ops,
                         lg_split **out, lg_error *err) {
    lgi_error_clear(err);
    if (!out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_split_model: NULL argument");
    *out = NULL;
    LG_TRY(need_sg0(m, err));
    lg_check_options co;
    memset(&co, 0, sizeof co);
    if (opt) co = *opt;
    uint32_t n_ops = m->subgraphs[0].n_ops;
    bool *blocked = calloc((size_t)n_ops + 1, sizeof *blocked);
    bool *part_gpu = calloc((size_t)n_ops + 1, sizeof *part_gpu);
    int32_t *part = malloc(((size_t)n_ops + 1) * sizeof *part);
    int32_t *prod = producers(m, err);
    lg_split *s = calloc(1, sizeof *s);
    lg_model *w = NULL;
    lg_status st = LG_OK;
    uint32_t np = 0;
    if (!blocked || !part_gpu || !part || !prod || !s) {
        st = prod ? lgi_fail(err, LG_ERR_NOMEM, "out of memory for the split") : LG_ERR_NOMEM;
        goto done;
    }
    st = blocked_ops(m, &co, blocked, err);
    if (st == LG_OK) st = schedule(m, blocked, prod, part, &np, part_gpu, err);
    if (!min_gpu_ops) min_gpu_ops = LG_SPLIT_MIN_GPU_OPS;
    for (int k = 0; k < 64 && st == LG_OK && drop_small_gpu_parts(m, blocked, part, np, part_gpu, min_gpu_ops); k++)
        st = schedule(m, blocked, prod, part, &np, part_gpu, err);
    if (st == LG_OK) st = lg_model_clone(m, &w, err);
    if (st == LG_OK) st = name_boundary(w, part, prod, &s->n_renamed, err);
    if (st == LG_OK) st = io_names(w, s, err);
    if (st == LG_OK) {
        s->parts = calloc((size_t)np + 1, sizeof *s->parts);
        if (!s->parts) st = lgi_fail(err, LG_ERR_NOMEM, "out of memory for the split");
    }
    if (st == LG_OK) st = make_parts(w, part, np, part_gpu, &co, s, err);
done:
    free(blocked);
    free(part_gpu);
    free(part);
    free(prod);
    lg_model_free(w);
    if (st != LG_OK) {
        lg_split_free(s);
        return st;
    }
    *out = s;
    return LG_OK;
}

void lg_split_free(lg_split *s) {
    if (!s) return;
    for (uint32_t i = 0; i < s->n_parts; i++) {
        lg_model_free(s->parts[i].model);
        free(s->parts[i].ops);
    }
    free(s->parts);
    for (uint32_t i = 0; i < s->n_inputs; i++) free(s->input_names[i]);
    for (uint32_t i = 0; i < s->n_outputs; i++) free(s->output_names[i]);
    free(s->input_names);
    free(s->output_names);
    free(s);
}
