/* The pass runner: apply passes on a copy of the model to a fixpoint, re-validate and
 * re-infer after each, prove parity against the original (see include/lg/passes.h). */
#include <math.h>
#include <stdlib.h>

#include "lg/compare.h"
#include "lg/ops.h"
#include "lg/run.h"
#include "passes/passes_impl.h"

#define DEFAULT_FOLD_MAX_BYTES ((uint64_t)16 << 20)
#define EXACT_BOUND 1e-6

static lg_pass_run_options defaults(const lg_pass_run_options *o) {
    lg_pass_run_options d;
    memset(&d, 0, sizeof d);
    if (o) d = *o;
    if (!d.fold_max_bytes) d.fold_max_bytes = DEFAULT_FOLD_MAX_BYTES;
    if (d.fold_max_growth <= 0) d.fold_max_growth = 4.0;
    return d;
}

/* One pass over subgraph sg: scan, and after each rewrite rebuild the index and rescan from
   the same position (ops before it cannot newly match: passes only look forward from the op
   they match or at its producers, which come earlier and were already tried... except when
   a rewrite enables an earlier match, so a final full scan confirms the fixpoint). */
/* Append the site of a rewrite at op i (before it happens) to r. */
static lg_status add_site(lg_pass_ctx *c, lg_pass_result *r, uint32_t *cap, uint32_t i) {
    if (r->n_sites == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 8;
        lg_pass_site *n = realloc(r->sites, nc * sizeof *n);
        if (!n) return lgi_fail(c->err, LG_ERR_NOMEM, "out of memory for the pass report");
        r->sites = n;
        *cap = nc;
    }
    const lg_op *op = &c->m->subgraphs[c->sg].ops[i];
    lg_pass_site *s = &r->sites[r->n_sites];
    memset(s, 0, sizeof *s);
    s->subgraph = c->sg;
    s->op = i;
    s->code = lg_op_builtin(c->m, op);
    if (op->n_outputs > 0 && op->outputs[0] >= 0) {
        const char *nm = c->m->subgraphs[c->sg].tensors[op->outputs[0]].name;
        snprintf(s->tensor, sizeof s->tensor, "%s", nm ? nm : "");
    }
    return LG_OK;
}

static lg_status run_one(lg_pass_ctx *c, const lg_pass *p, lg_pass_result *r, uint32_t *cap) {
    uint32_t guard = 0;
    for (;;) {
        bool any = false;
        uint32_t i = 0;
        while (i < c->m->subgraphs[c->sg].n_ops) {
            lg_graph *g = NULL;
            LG_TRY(lg_graph_build(c->m, c->sg, &g, c->err));
            bool hit = false;
            for (; i < c->m->subgraphs[c->sg].n_ops; i++) {
                if (!p->match(c, g, i)) continue;
                uint32_t applied = c->delta->applied, skipped = c->delta->skipped;
                lg_pass_site site_before;
                lg_status st = add_site(c, r, cap, i);
                if (st == LG_OK) {
                    site_before = r->sites[r->n_sites];
                    st = p->apply(c, g, i);
                }
                if (st != LG_OK) {
                    lg_graph_free(g);
                    return st;
                }
                if (c->delta->applied != applied) {
                    r->sites[r->n_sites++] = site_before;
                    hit = true;
                    break;
                }
                if (c->delta->skipped == skipped) c->delta->skipped++; /* apply declined */
            }
            lg_graph_free(g);
            if (!hit) break;
            any = true;
            if (++guard > 100000)
                return lgi_fail(c->err, LG_ERR_INTERNAL, "pass %s does not reach a fixpoint",
                                p->name);
        }
        if (!any) return LG_OK;
        c->delta->skipped = 0; /* recount declines on the confirming scan */
    }
}

static void result_parity_na(lg_pass_result *r, const char *why) {
    r->parity_measured = false;
    snprintf(r->parity_note, sizeof r->parity_note, "%s", why);
}

/* Parity of work against orig on the golden and random inputs, into r. */
/* budget: the sum of the bounds of every pass applied so far, this one included (the parity
   is measured against the runner's input, so earlier passes' errors are in it: errors add at
   most, and a pass is held to its own bound on top of what came before). */
static lg_status prove(const lg_model *orig, const lg_model *work, const lg_pass_run_options *o,
                       const lg_pass *p, double budget, lg_pass_result *r, lg_error *err) {
    lg_models_options mo;
    memset(&mo, 0, sizeof mo);
    mo.precision = LG_PREC_F32;
    mo.n_random = o->n_random;
    mo.seed = o->seed;
    mo.atol = 0;
    mo.rtol = 0;
    mo.threads = o->threads;
    lg_models_report *mr = NULL;
    lg_error e2;
    /* the golden input: the caller's, else the "pattern" fill (a constant input is degenerate
       for every normalization) */
    const lg_subgraph *sg0 = &orig->subgraphs[0];
    float *gold[64] = {0};
    const float *const *golden = o->golden;
    if (!golden && sg0->n_inputs <= 64) {
        for (uint32_t i = 0; i < sg0->n_inputs; i++) {
            int64_t n = lg_tensor_numel(&sg0->tensors[sg0->inputs[i]]);
            gold[i] = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
            if (!gold[i] || lg_fill_f32("pattern", gold[i], n > 0 ? n : 0, NULL) != LG_OK) {
                for (uint32_t k = 0; k <= i; k++) free(gold[k]);
                return lgi_fail(err, LG_ERR_NOMEM, "out of memory for the golden input");
            }
        }
        golden = (const float *const *)gold;
    }
    lg_status st = lg_compare_models(orig, work, golden, &mo, &mr, &e2);
    for (uint32_t i = 0; i < 64; i++) free(gold[i]);
    if (st != LG_OK) {
        char why[160];
        snprintf(why, sizeof why, "not measured: %.140s", e2.msg);
        result_parity_na(r, why);
        return LG_OK;
    }
    r->parity_measured = true;
    r->n_cases = mr->n_cases;
    r->max_abs = 0;
    r->max_rel = 0;
    r->min_pearson = 1;
    for (uint32_t k = 0; k < mr->n_cases; k++)
        for (uint32_t o2 = 0; o2 < mr->n_outputs; o2++) {
            const lg_metrics *mt = &mr->cases[k].outputs[o2];
            if (mt->max_abs > r->max_abs) r->max_abs = mt->max_abs;
            double rel = mt->ref_max_abs > 0 ? mt->max_abs / mt->ref_max_abs : mt->max_abs;
            if (mt->ref_nan + mt->ref_inf != mt->test_nan + mt->test_inf) rel = INFINITY;
            if (!mr->cases[k].allclose[o2] && mt->max_abs == 0) rel = INFINITY; /* non-float */
            if (rel > r->max_rel) r->max_rel = rel;
            if (mt->pearson < r->min_pearson) r->min_pearson = mt->pearson;
        }
    lg_models_report_free(mr);
    if (!(r->max_rel <= budget))
        return lgi_fail(err, LG_ERR_INTERNAL,
                        "pass %s broke parity: max error %.3g of the output magnitude (bound %.1g, "
                        "with the passes before it)", p->name, r->max_rel, budget);
    return LG_OK;
}

static lg_status grow_results(lg_pass_report *rep, uint32_t *cap, lg_error *err) {
    if (rep->n_passes < *cap) return LG_OK;
    uint32_t nc = *cap ? *cap * 2 : 8;
    lg_pass_result *n = realloc(rep->passes, nc * sizeof *n);
    if (!n) return lgi_fail(err, LG_ERR_NOMEM, "out of memory for the pass report");
    rep->passes = n;
    *cap = nc;
    return LG_OK;
}

static uint32_t n_ops(const lg_model *m) {
    uint32_t n = 0;
    for (uint32_t s = 0; s < m->n_subgraphs; s++) n += m->subgraphs[s].n_ops;
    return n;
}

static uint32_t n_tensors(const lg_model *m) {
    uint32_t n = 0;
    for (uint32_t s = 0; s < m->n_subgraphs; s++) n += m->subgraphs[s].n_tensors;
    return n;
}

static lg_status validate_all(const lg_model *m, const lg_pass *p, lg_error *err) {
    lg_status st = lg_model_validate(m, err);
    if (st == LG_OK) st = lg_model_validate_ops(m, err);
    if (st != LG_OK && err) {
        char tmp[sizeof err->msg];
        memcpy(tmp, err->msg, sizeof tmp);
        tmp[sizeof tmp - 64] = 0;
        snprintf(err->msg, sizeof err->msg, "after pass %.40s: %.440s", p->name, tmp);
        err->status = LG_ERR_INTERNAL;
        return LG_ERR_INTERNAL;
    }
    return st;
}

lg_status lg_passes_run(const lg_model *m, const lg_pass *const *passes, uint32_t n_passes,
                        uint32_t max_rounds, const lg_pass_run_options *opt, lg_model **out,
                        lg_pass_report **rep_out, lg_error *err) {
    lgi_error_clear(err);
    if (!m || !out || !rep_out || (n_passes && !passes))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_passes_run: NULL argument");
    *out = NULL;
    *rep_out = NULL;
    lg_pass_run_options o = defaults(opt);
    lg_model *w = NULL;
    LG_TRY(lg_model_clone(m, &w, err));
    lg_pass_report *rep = calloc(1, sizeof *rep);
    if (!rep) {
        lg_model_free(w);
        return lgi_fail(err, LG_ERR_NOMEM, "out of memory for the pass report");
    }
    rep->ops_before = n_ops(m);
    rep->tensors_before = n_tensors(m);
    rep->buffers_before = m->n_buffers;
    uint32_t cap = 0;
    lg_status st = LG_OK;
    if (max_rounds == 0) max_rounds = 1;
    double budget = 0; /* the parity bound so far (see prove) */
    for (uint32_t round = 0; round < max_rounds && st == LG_OK; round++) {
        bool changed = false;
        rep->rounds = round + 1;
        for (uint32_t k = 0; k < n_passes && st == LG_OK; k++) {
            const lg_pass *p = passes[k];
            lg_pass_result r;
            memset(&r, 0, sizeof r);
            r.pass = p->name;
            r.exact = p->exact;
            r.reorders = p->reorders;
            r.bound = p->exact ? EXACT_BOUND : p->bound;
            r.ops_before = n_ops(w);
            uint32_t site_cap = 0;
            for (uint32_t s = 0; s < w->n_subgraphs && st == LG_OK; s++) {
                lg_pass_ctx c = {w, s, &o, &r.delta, err};
                st = run_one(&c, p, &r, &site_cap);
            }
            if (st == LG_OK && r.delta.applied) {
                lg_compact_stats cs;
                st = lg_model_compact(w, &cs, NULL, err);
            }
            if (st != LG_OK) {
                free(r.sites);
                break;
            }
            r.ops_after = n_ops(w);
            if (r.delta.applied) {
                changed = true;
                st = validate_all(w, p, err);
                budget += p->exact ? EXACT_BOUND : p->bound;
                if (st == LG_OK && o.prove) st = prove(m, w, &o, p, budget, &r, err);
            } else {
                result_parity_na(&r, "nothing changed");
            }
            /* report a pass in the first round always, later rounds only when it did something */
            if (st == LG_OK && (round == 0 || r.delta.applied)) {
                if ((st = grow_results(rep, &cap, err)) == LG_OK) rep->passes[rep->n_passes++] = r;
                else free(r.sites);
            } else {
                free(r.sites);
            }
        }
        if (!changed) break;
    }
    if (st != LG_OK) {
        lg_pass_report_free(rep);
        lg_model_free(w);
        return st;
    }
    rep->ops_after = n_ops(w);
    rep->tensors_after = n_tensors(w);
    rep->buffers_after = w->n_buffers;
    *out = w;
    *rep_out = rep;
    return LG_OK;
}

void lg_pass_report_free(lg_pass_report *r) {
    if (!r) return;
    for (uint32_t i = 0; i < r->n_passes; i++) free(r->passes[i].sites);
    free(r->passes);
    free(r);
}

lg_status lg_optimize(const lg_model *m, const lg_pass_run_options *opt, lg_model **out,
                      lg_pass_report **rep, lg_error *err) {
    lg_pass_run_options o;
    if (opt) {
        o = *opt;
    } else {
        memset(&o, 0, sizeof o);
        o.prove = true;
        o.n_random = 2;
    }
    const lg_pass *pipeline[] = {&lgp_fold_constants, &lgp_remove_identities, &lgp_merge_reshapes,
                                 &lgp_cancel_transposes, &lgp_remove_dead, &lgp_sink_transposes};
    return lg_passes_run(m, pipeline, sizeof pipeline / sizeof pipeline[0], 8, &o, out, rep, err);
}
