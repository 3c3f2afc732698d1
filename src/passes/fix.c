/* `fix`: check -> the passes that remove the blockers found -> re-validate, prove -> repeat
 * (include/lg/fix.h). The rules every pass removes are declared by the pass (lg_pass.removes);
 * the rules no pass removes say why in lg_fix_why (fix_why.c). */
#include <math.h>
#include <stdlib.h>

#include "lg/compare.h"
#include "lg/fix.h"
#include "lg/run.h"
#include "passes/passes_impl.h"

#define MAX_FIX_PASSES 64u

static uint32_t n_ops0(const lg_model *m) { return m->n_subgraphs ? m->subgraphs[0].n_ops : 0; }

static lg_status run_check(const lg_model *m, const lg_fix_options *o, lg_check_report **r,
                           lg_error *err) {
    lg_check_options co;
    memset(&co, 0, sizeof co);
    co.target = o->target;
    co.gpu = o->gpu;
    return lg_check_model(m, &co, r, err);
}

/* A finding of the rule that fix should act on: a blocker, or a warning with o->warnings. */
static bool has_finding(const lg_check_report *r, const char *rule, const lg_fix_options *o) {
    for (uint32_t i = 0; i < r->n_findings; i++)
        if ((r->findings[i].rule->severity == LG_SEV_BLOCKER || o->warnings) &&
            strcmp(r->findings[i].rule->id, rule) == 0)
            return true;
    return false;
}

/* The passes that remove a blocker of r (registry order), and for each the rules it is run
   for. Cleanup passes (fold-constants, remove-dead) follow. */
/* A pass the caller asked for by name runs in the first round. */
static bool in_list_name(const lg_fix_options *o, const char *name, bool first_round) {
    for (uint32_t i = 0; first_round && i < o->n_passes; i++)
        if (o->passes[i] && strcmp(o->passes[i], name) == 0) return true;
    return false;
}

static uint32_t select_passes(const lg_check_report *r, const lg_fix_options *o, bool first_round,
                              const lg_pass **out, const char *(*rules)[4]) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < lg_pass_count() && n < MAX_FIX_PASSES - 2; i++) {
        const lg_pass *p = lg_pass_at(i);
        if (!p->exact && !p->reorders && !o->allow_approx) continue;
        uint32_t k = 0;
        for (uint32_t j = 0; j < 4 && p->removes[j]; j++)
            if (has_finding(r, p->removes[j], o) && k < 3) rules[n][k++] = p->removes[j];
        if (!k && !in_list_name(o, p->name, first_round)) continue;
        rules[n][k] = NULL;
        out[n++] = p;
    }
    return n;
}

static bool in_list(const lg_pass *const *ps, uint32_t n, const lg_pass *p) {
    for (uint32_t i = 0; i < n; i++)
        if (ps[i] == p) return true;
    return false;
}

static lg_status grow(void **p, uint32_t *cap, uint32_t n, size_t size, lg_error *err) {
    if (n < *cap) return LG_OK;
    uint32_t nc = *cap ? *cap * 2 : 16;
    void *q = realloc(*p, (size_t)nc * size);
    if (!q) return lgi_fail(err, LG_ERR_NOMEM, "out of memory for the fix report");
    *p = q;
    *cap = nc;
    return LG_OK;
}

/* Record the passes of one round that rewrote something, and their sites. */
static lg_status record_round(lg_fix_report *rep, uint32_t round, lg_pass_report *pr,
                              const lg_pass *const *sel, const char *(*rules)[4], uint32_t n_sel,
                              uint32_t *cap_steps, uint32_t *cap_rw, lg_error *err) {
    for (uint32_t i = 0; i < pr->n_passes; i++) {
        lg_pass_result *res = &pr->passes[i];
        if (!res->delta.applied) continue;
        const char *const *rr = NULL;
        for (uint32_t k = 0; k < n_sel; k++)
            if (strcmp(sel[k]->name, res->pass) == 0) rr = rules[k];
        LG_TRY(grow((void **)&rep->steps, cap_steps, rep->n_steps, sizeof *rep->steps, err));
        lg_fix_step *s = &rep->steps[rep->n_steps++];
        memset(s, 0, sizeof *s);
        s->round = round;
        s->result = *res;
        s->result.sites = NULL;
        s->result.n_sites = 0;
        for (uint32_t k = 0; rr && k < 3 && rr[k]; k++) s->rules[k] = rr[k];
        for (uint32_t k = 0; k < res->n_sites; k++) {
            LG_TRY(grow((void **)&rep->rewrites, cap_rw, rep->n_rewrites, sizeof *rep->rewrites, err));
            lg_fix_rewrite *w = &rep->rewrites[rep->n_rewrites++];
            memset(w, 0, sizeof *w);
            w->round = round;
            w->pass = res->pass;
            w->exact = res->exact;
            w->site = res->sites[k];
            for (uint32_t q = 0; q < 3 && s->rules[q]; q++) w->rules[q] = s->rules[q];
        }
    }
    return LG_OK;
}

/* The blockers left in r, with why no rewrite removed them. */
static lg_status record_left(lg_fix_report *rep, const lg_model *m, const lg_check_report *r,
                             const lg_pass_report *last, lg_error *err) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_findings; i++) n += r->findings[i].rule->severity == LG_SEV_BLOCKER;
    if (!n) return LG_OK;
    rep->left = calloc(n, sizeof *rep->left);
    if (!rep->left) return lgi_fail(err, LG_ERR_NOMEM, "out of memory for the fix report");
    for (uint32_t i = 0; i < r->n_findings; i++) {
        const lg_finding *f = &r->findings[i];
        if (f->rule->severity != LG_SEV_BLOCKER) continue;
        lg_fix_left *l = &rep->left[rep->n_left++];
        l->rule = f->rule->id;
        l->op = f->op;
        if (f->op >= 0 && (uint32_t)f->op < n_ops0(m)) {
            const char *nm = lg_op_name(m, &m->subgraphs[0].ops[f->op]);
            snprintf(l->op_name, sizeof l->op_name, "%s", nm ? nm : "?");
        }
        snprintf(l->reason, sizeof l->reason, "%s", f->reason);
        bool has_pass = false;
        for (uint32_t p = 0; p < lg_pass_count(); p++) {
            const lg_pass *ps = lg_pass_at(p);
            for (uint32_t k = 0; k < 4 && ps->removes[k]; k++) has_pass |= strcmp(ps->removes[k], l->rule) == 0;
        }
        /* a pass exists and said why it declined (its last skip note) */
        const char *note = NULL;
        for (uint32_t p = 0; last && p < last->n_passes; p++) {
            const lg_pass *ps = lg_pass_find(last->passes[p].pass);
            for (uint32_t k = 0; ps && k < 4 && ps->removes[k]; k++)
                if (strcmp(ps->removes[k], l->rule) == 0 && last->passes[p].delta.skipped && last->passes[p].delta.note[0])
                    note = last->passes[p].delta.note;
        }
        const char *why = lg_fix_why(l->rule);
        l->declined = note != NULL;
        if (note)
            snprintf(l->why, sizeof l->why, "%s declined: %s", l->rule, note);
        else if (why && (has_pass || !lg_fix_rule_covered(l->rule)))
            snprintf(l->why, sizeof l->why, "%s", why);
        else
            snprintf(l->why, sizeof l->why, "no rewrite in this build removes %s", l->rule);
    }
    return LG_OK;
}

/* End-to-end fp32 parity of fixed against orig. */
static void parity(const lg_model *orig, const lg_model *fixed, const lg_fix_options *o,
                   lg_fix_report *rep) {
    if (o->no_prove) {
        snprintf(rep->parity_note, sizeof rep->parity_note, "not measured (--no-prove)");
        return;
    }
    lg_models_options mo;
    memset(&mo, 0, sizeof mo);
    mo.precision = LG_PREC_F32;
    mo.n_random = o->n_random ? o->n_random : 2;
    mo.seed = o->seed;
    mo.threads = o->threads;
    lg_models_report *mr = NULL;
    lg_error e;
    if (lg_compare_models(orig, fixed, o->golden, &mo, &mr, &e) != LG_OK) {
        snprintf(rep->parity_note, sizeof rep->parity_note, "not measured: %.140s", e.msg);
        return;
    }
    rep->parity_measured = true;
    rep->n_cases = mr->n_cases;
    rep->min_pearson = 1;
    for (uint32_t k = 0; k < mr->n_cases; k++)
        for (uint32_t q = 0; q < mr->n_outputs; q++) {
            const lg_metrics *mt = &mr->cases[k].outputs[q];
            if (mt->max_abs > rep->max_abs) rep->max_abs = mt->max_abs;
            double rel = mt->ref_max_abs > 0 ? mt->max_abs / mt->ref_max_abs : mt->max_abs;
            if (mt->ref_nan + mt->ref_inf != mt->test_nan + mt->test_inf) rel = INFINITY;
            if (rel > rep->max_rel) rep->max_rel = rel;
            if (!isnan(mt->pearson) && mt->pearson < rep->min_pearson) rep->min_pearson = mt->pearson;
        }
    lg_models_report_free(mr);
}

static lg_status fix_loop(const lg_model *m, const lg_fix_options *o, lg_model **cur,
                          lg_fix_report *rep, lg_pass_report **last, lg_error *err) {
    lg_pass_run_options po;
    memset(&po, 0, sizeof po);
    po.prove = !o->no_prove;
    po.n_random = o->n_random ? o->n_random : 2;
    po.seed = o->seed;
    po.golden = o->golden;
    po.threads = o->threads;
    po.io_int32 = o->io_int32;
    uint32_t cap_steps = 0, cap_rw = 0;
    for (uint32_t round = 1; round <= LG_FIX_MAX_ROUNDS; round++) {
        lg_check_report *cr = NULL;
        LG_TRY(run_check(*cur ? *cur : m, o, &cr, err));
        const lg_pass *sel[MAX_FIX_PASSES];
        const char *rules[MAX_FIX_PASSES][4];
        bool act = !cr->ready || (o->warnings && cr->n_warnings) || (round == 1 && o->n_passes);
        uint32_t n = act ? select_passes(cr, o, round == 1, sel, rules) : 0;
        lg_check_report_free(cr);
        if (!n) break;
        uint32_t n_run = n;
        const lg_pass *cleanup[] = {&lgp_fold_constants, &lgp_remove_dead};
        for (uint32_t k = 0; k < 2; k++)
            if (!in_list(sel, n_run, cleanup[k])) sel[n_run++] = cleanup[k];
        lg_model *next = NULL;
        lg_pass_report *pr = NULL;
        LG_TRY(lg_passes_run(*cur ? *cur : m, sel, n_run, 4, &po, &next, &pr, err));
        bool changed = false;
        for (uint32_t i = 0; i < pr->n_passes; i++)
            for (uint32_t k = 0; k < n; k++)
                if (pr->passes[i].delta.applied && strcmp(pr->passes[i].pass, sel[k]->name) == 0)
                    changed = true;
        lg_status st = changed ? record_round(rep, round, pr, sel, rules, n, &cap_steps, &cap_rw, err) : LG_OK;
        lg_pass_report_free(*last);
        *last = pr;
        if (st != LG_OK || !changed) {
            lg_model_free(next);
            return st;
        }
        rep->rounds = round;
        lg_model_free(*cur);
        *cur = next;
    }
    return LG_OK;
}

/* fp16 hardening of *cur (after the rule passes): rewritten norms replace it. A model the
   interpreter cannot run is not hardened (said in harden_note), not an error. */
static lg_status harden(const lg_fix_options *o, lg_model **cur, lg_fix_report *rep, lg_error *err) {
    lg_harden_options ho;
    memset(&ho, 0, sizeof ho);
    ho.allow_approx = o->allow_approx;
    ho.cases = o->cases;
    ho.n_cases = o->n_cases;
    ho.n_random = o->n_random ? o->n_random : 2;
    ho.seed = o->seed;
    ho.threads = o->threads;
    lg_model *h = NULL;
    lg_error e2;
    lg_status st = lg_harden_fp16_opt(*cur, o->harden, o->golden, &ho, &h, &rep->harden, &e2);
    if (st == LG_ERR_UNSUPPORTED) {
        snprintf(rep->harden_note, sizeof rep->harden_note, "not hardened: %.140s", e2.msg);
        return LG_OK;
    }
    if (st != LG_OK) {
        if (err) *err = e2;
        return st;
    }
    if (rep->harden->n_rewritten) {
        lg_model_free(*cur);
        *cur = h;
        rep->ops_after = n_ops0(h);
    } else {
        lg_model_free(h);
    }
    return LG_OK;
}

static int32_t input_named(const lg_model *m, const char *name) {
    const lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t k = 0; name && k < sg->n_inputs; k++) {
        const char *nm = sg->tensors[sg->inputs[k]].name;
        if (nm && strcmp(nm, name) == 0) return (int32_t)k;
    }
    return -1;
}

/* --input-shape and --freeze on a copy of m: static shapes set, frozen inputs made constants
   (and taken out of the inputs), every shape re-inferred in op order. */
static lg_status apply_inputs(const lg_model *m, const lg_fix_options *o, lg_model **out, lg_error *err) {
    lg_model *w = NULL;
    LG_TRY(lg_model_clone(m, &w, err));
    lg_status st = LG_OK;
    lg_subgraph *sg = &w->subgraphs[0];
    for (uint32_t i = 0; i < o->n_shapes && st == LG_OK; i++) {
        int32_t k = input_named(w, o->shapes[i].name);
        if (k < 0) {
            st = lgi_fail(err, LG_ERR_INVALID_ARG, "--input-shape: the model has no input \"%s\"", o->shapes[i].name);
            break;
        }
        int32_t t = sg->inputs[k], d[LG_MAX_RANK];
        const lg_tensor *x = &sg->tensors[t];
        if (o->shapes[i].rank != x->rank || x->rank > LG_MAX_RANK) {
            st = lgi_fail(err, LG_ERR_INVALID_ARG, "--input-shape %s: rank %u, the input has rank %u", o->shapes[i].name,
                          o->shapes[i].rank, x->rank);
            break;
        }
        for (uint32_t q = 0; q < x->rank; q++) {
            int32_t sig = x->shape_signature && q < x->n_shape_signature ? x->shape_signature[q] : x->shape[q];
            d[q] = (int32_t)o->shapes[i].dims[q];
            if (sig >= 0 && sig != d[q])
                st = lgi_fail(err, LG_ERR_INVALID_ARG, "--input-shape %s: dimension %u is %d, not dynamic (given %d)",
                              o->shapes[i].name, q, sig, d[q]);
        }
        if (st == LG_OK) st = lg_tensor_set_shape(w, 0, t, d, x->rank, err);
        if (st == LG_OK) st = lg_tensor_set_shape_signature(w, 0, (uint32_t)t, d, x->rank, err);
    }
    for (uint32_t i = 0; i < o->n_freeze && st == LG_OK; i++) {
        int32_t k = input_named(w, o->freeze[i].name);
        if (k < 0) {
            st = lgi_fail(err, LG_ERR_INVALID_ARG, "--freeze: the model has no input \"%s\"", o->freeze[i].name);
            break;
        }
        int32_t t = sg->inputs[k];
        const lg_tensor *x = &sg->tensors[t];
        uint64_t want = ((uint64_t)lg_tensor_numel(x) * (uint64_t)lg_dtype_bits(x->type) + 7) / 8;
        if (o->freeze[i].type != (lg_dtype)x->type || o->freeze[i].nbytes != want) {
            st = lgi_fail(err, LG_ERR_INVALID_ARG, "--freeze %s: %s of %llu bytes given, the input is %s of %llu",
                          o->freeze[i].name, lg_dtype_name(o->freeze[i].type), (unsigned long long)o->freeze[i].nbytes,
                          lg_dtype_name((lg_dtype)x->type), (unsigned long long)want);
            break;
        }
        st = lg_tensor_set_const(w, 0, t, (lg_dtype)x->type, o->freeze[i].data, o->freeze[i].nbytes, err);
        int32_t ins[256];
        uint32_t n = 0;
        for (uint32_t q = 0; q < sg->n_inputs && n < 256; q++)
            if (sg->inputs[q] != t) ins[n++] = sg->inputs[q];
        if (st == LG_OK) st = lg_subgraph_set_io(w, 0, ins, n, sg->outputs, sg->n_outputs, err);
        sg = &w->subgraphs[0];
    }
    /* every tensor an op computes: its inferred shape when fully known */
    if (st == LG_OK && (o->n_shapes || o->n_freeze)) {
        lg_shape *sh = calloc((size_t)sg->n_tensors + 1, sizeof *sh);
        if (!sh) st = lgi_fail(err, LG_ERR_NOMEM, "out of memory for the shapes");
        /* constants (frozen inputs too) give their values to shape inference: fold first */
        if (st == LG_OK) st = lg_model_infer_shapes(w, 0, LG_INFER_STATIC, sh, err);
        for (uint32_t t = 0; st == LG_OK && t < sg->n_tensors; t++) {
            const lg_tensor *x = &sg->tensors[t];
            if (lg_tensor_is_const(w, 0, (int32_t)t) || sh[t].rank != (int)x->rank) continue;
            int32_t d[LG_MAX_RANK];
            bool known = true, same = true;
            for (int q = 0; q < sh[t].rank; q++) {
                known &= sh[t].dim[q] >= 0;
                d[q] = (int32_t)sh[t].dim[q];
                same &= d[q] == x->shape[q] && (!x->shape_signature || x->shape_signature[q] == d[q]);
            }
            if (!known || same) continue;
            st = lg_tensor_set_shape(w, 0, (int32_t)t, d, x->rank, err);
            if (st == LG_OK) st = lg_tensor_set_shape_signature(w, 0, t, d, x->rank, err);
        }
        free(sh);
    }
    if (st == LG_OK) st = lg_model_validate(w, err);
    if (st != LG_OK) {
        lg_model_free(w);
        return st;
    }
    *out = w;
    return LG_OK;
}

lg_status lg_fix(const lg_model *m, const lg_fix_options *opt, lg_model **out,
                 lg_fix_report **rep_out, lg_error *err) {
    lgi_error_clear(err);
    if (!m || !out || !rep_out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_fix: NULL argument");
    *out = NULL;
    *rep_out = NULL;
    lg_fix_options o;
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    for (uint32_t i = 0; i < o.n_passes; i++)
        if (!o.passes || !o.passes[i] || !lg_pass_find(o.passes[i]))
            return lgi_fail(err, LG_ERR_INVALID_ARG, "no pass is named \"%s\" (litegpu help fix lists them)",
                            o.passes && o.passes[i] ? o.passes[i] : "");
    lg_model *given = NULL; /* m with --input-shape / --freeze applied */
    if (o.n_shapes || o.n_freeze) {
        LG_TRY(apply_inputs(m, &o, &given, err));
        m = given;
    }
    lg_fix_report *rep = calloc(1, sizeof *rep);
    if (!rep) {
        lg_model_free(given);
        return lgi_fail(err, LG_ERR_NOMEM, "out of memory for the fix report");
    }
    rep->n_shaped = o.n_shapes;
    rep->n_frozen = o.n_freeze;
    rep->target = o.target;
    rep->gpu = o.gpu;
    rep->ops_before = n_ops0(m);
    lg_check_report *cr = NULL;
    lg_status st = run_check(m, &o, &cr, err);
    if (st == LG_OK) {
        rep->blockers_before = cr->n_blockers;
        rep->warnings_before = cr->n_warnings;
        rep->ready_before = cr->ready;
        lg_check_report_free(cr);
        cr = NULL;
    }
    lg_model *cur = NULL;
    lg_pass_report *last = NULL;
    if (st == LG_OK) st = fix_loop(m, &o, &cur, rep, &last, err);
    if (st == LG_OK && !cur) st = lg_model_clone(m, &cur, err);
    if (st == LG_OK && o.harden != LG_HARDEN_OFF) st = harden(&o, &cur, rep, err);
    if (st == LG_OK) st = run_check(cur, &o, &cr, err);
    if (st == LG_OK) {
        rep->blockers_after = cr->n_blockers;
        rep->warnings_after = cr->n_warnings;
        rep->ready_after = cr->ready;
        rep->ops_after = n_ops0(cur);
        st = record_left(rep, cur, cr, last, err);
    }
    lg_check_report_free(cr);
    lg_pass_report_free(last);
    if (st == LG_OK) {
        if (rep->n_steps || (rep->harden && rep->harden->n_rewritten) || o.n_shapes || o.n_freeze)
            parity(m, cur, &o, rep);
        else
            snprintf(rep->parity_note, sizeof rep->parity_note, "nothing changed");
    }
    lg_model_free(given);
    if (st != LG_OK) {
        lg_model_free(cur);
        lg_fix_report_free(rep);
        return st;
    }
    *out = cur;
    *rep_out = rep;
    return LG_OK;
}

void lg_fix_report_free(lg_fix_report *r) {
    if (!r) return;
    lg_harden_report_free(r->harden);
    free(r->steps);
    free(r->rewrites);
    free(r->left);
    free(r);
}
