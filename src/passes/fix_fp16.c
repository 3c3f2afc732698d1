/* fp16 hardening: lg_harden_fp16 (include/lg/passes.h, "fp16 hardening"). The gate
 * (fix_fp16_gate.c) decides per match; the chosen rewrites are then applied to the whole model
 * by the pass runner, which proves fp32 parity (golden: the first input set) as for every pass. */
#include <math.h>
#include <stdlib.h>

#include "lg/compare.h"
#include "lg/run.h"
#include "passes/fix_fp16.h"

/* ------------------------------------------------------------------ names */

const char *lg_harden_mode_name(lg_harden_mode m) {
    switch (m) {
    case LG_HARDEN_OFF: return "off";
    case LG_HARDEN_AUTO: return "auto";
    case LG_HARDEN_ALWAYS: return "always";
    default: return "?";
    }
}

int lg_harden_mode_from_name(const char *s) {
    if (!s) return -1;
    if (strcmp(s, "off") == 0) return LG_HARDEN_OFF;
    if (strcmp(s, "auto") == 0) return LG_HARDEN_AUTO;
    if (strcmp(s, "always") == 0) return LG_HARDEN_ALWAYS;
    return -1;
}

const char *lg_fp16_pattern_name(lg_fp16_pattern k) {
    static const char *const names[LG_FP16_PATTERN_COUNT] = {"layer-norm", "instance-norm", "rms-norm", "l2-norm",
                                                             "global-reduce"};
    return (unsigned)k < LG_FP16_PATTERN_COUNT ? names[k] : "?";
}


/* ------------------------------------------------------------------ lg_harden_fp16 */

static void error_of_model(const lg_precision_report *r, lg_fp16_error *e) {
    memset(e, 0, sizeof *e);
    for (uint32_t k = 0; k < r->n_outputs; k++) {
        const lg_tensor_cmp *tc = &r->outputs[k];
        if (tc->m.n) lgp_fp16_worst_of(e, &tc->m, &tc->v);
    }
}

static lg_status model_error(const lgp_fp16_gate *gt, const lg_model *m, lg_fp16_error *e, lg_error *err) {
    lg_compare_options co;
    memset(&co, 0, sizeof co);
    co.precision = gt->prec;
    co.threads = gt->threads;
    co.tol = gt->jo.tol;
    co.floor = gt->jo.floor;
    lg_precision_report *r = NULL;
    LG_TRY(lg_compare_precision(m, gt->cases[0], &co, &r, err));
    error_of_model(r, e);
    lg_precision_report_free(r);
    return LG_OK;
}

static uint32_t count_ops(const lg_model *m) { return m->n_subgraphs ? m->subgraphs[0].n_ops : 0; }

/* Apply the rewritten items to m through the runner (parity proved). */
static lg_status apply_all(const lgp_fp16_gate *gt, const lgp_hazard *hz, uint32_t n, const lg_harden_options *o,
                           lg_model **out,
                           lg_harden_report *rep, lg_error *err) {
    lgp_fp16_pick *picks = calloc(n ? n : 1, sizeof *picks);
    if (!picks) return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    uint32_t np = 0;
    for (uint32_t i = 0; i < n; i++)
        if (hz[i].item.rewritten)
            picks[np++] = (lgp_fp16_pick){hz[i].anchor_t, hz[i].item.fix, hz[i].item.conv_shift, false};
    lg_status st;
    if (!np) {
        free(picks);
        return lg_model_clone(gt->m, out, err);
    }
    struct lgp_fp16_sel sel = {picks, np};
    lg_pass_run_options po;
    memset(&po, 0, sizeof po);
    po.prove = true;
    po.n_random = o && o->n_random ? o->n_random : 2;
    po.seed = o ? o->seed : 0;
    po.threads = gt->threads;
    po.golden = gt->cases[0];
    po.fp16_sel = &sel;
    const lg_pass *passes[2] = {&lgp_harden_fp16, &lgp_harden_fp16_split};
    lg_pass_report *pr = NULL;
    st = lg_passes_run(gt->m, passes, 2, 1, &po, out, &pr, err);
    for (uint32_t i = 0; st == LG_OK && i < pr->n_passes; i++) {
        const lg_pass_result *r = &pr->passes[i];
        if (!r->parity_measured) continue;
        rep->parity_measured = true;
        rep->parity_cases = r->n_cases;
        if (r->max_abs > rep->parity_max_abs) rep->parity_max_abs = r->max_abs;
        if (r->max_rel > rep->parity_max_rel) rep->parity_max_rel = r->max_rel;
        if (r->exact) rep->parity_exact_max_rel = r->max_rel;
    }
    lg_pass_report_free(pr);
    free(picks);
    return st;
}

static float **default_inputs(const lg_model *m, lg_error *err) {
    const lg_subgraph *sg = &m->subgraphs[0];
    float **in = calloc(sg->n_inputs ? sg->n_inputs : 1, sizeof *in);
    if (!in) return NULL;
    for (uint32_t i = 0; i < sg->n_inputs; i++) {
        int64_t n = lg_tensor_numel(&sg->tensors[sg->inputs[i]]);
        in[i] = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
        if (!in[i] || lg_fill_f32("random:1", in[i], n > 0 ? n : 0, err) != LG_OK) {
            for (uint32_t k = 0; k <= i; k++) free(in[k]);
            free(in);
            return NULL;
        }
    }
    return in;
}

void lg_harden_report_free(lg_harden_report *r) {
    if (!r) return;
    free(r->items);
    free(r);
}

lg_status lg_harden_fp16_opt(const lg_model *m, lg_harden_mode mode, const float *const *inputs,
                             const lg_harden_options *opt, lg_model **out, lg_harden_report **rep_out,
                             lg_error *err) {
    lgi_error_clear(err);
    if (!m || !out || !rep_out || !m->n_subgraphs)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_harden_fp16: NULL argument or no subgraph");
    if ((unsigned)mode > LG_HARDEN_ALWAYS)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_harden_fp16: bad mode %d", (int)mode);
    *out = NULL;
    *rep_out = NULL;
    lgp_fp16_gate gt;
    memset(&gt, 0, sizeof gt);
    gt.m = m;
    gt.mode = mode;
    gt.prec = opt && opt->precision == LG_PREC_F32_F16 ? LG_PREC_F32_F16 : LG_PREC_F16;
    gt.jo.tol = opt && opt->tol > 0 ? opt->tol : LG_JUDGE_TOL;
    gt.jo.floor = opt && opt->floor > 0 ? opt->floor : LG_JUDGE_FLOOR;
    gt.threads = opt ? opt->threads : 1;
    gt.allow_approx = opt && opt->allow_approx;
    float **dflt = NULL;
    if (!inputs) {
        if (!(dflt = default_inputs(m, err)))
            return err && err->status ? err->status : lgi_fail(err, LG_ERR_NOMEM, "out of memory");
        inputs = (const float *const *)dflt;
    }
    uint32_t extra = opt ? opt->n_cases : 0;
    const float *const **cases = calloc(1 + extra, sizeof *cases);
    lg_harden_report *rep = calloc(1, sizeof *rep);
    lgp_hazard *hz = NULL;
    uint32_t n = 0;
    lg_status st = cases && rep ? LG_OK : lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    if (st == LG_OK) {
        cases[0] = inputs;
        for (uint32_t k = 0; k < extra; k++) cases[1 + k] = opt->cases[k];
        gt.cases = (const float *const *const *)cases;
        gt.n_cases = 1 + extra;
        rep->mode = mode;
        rep->precision = gt.prec;
        rep->n_cases = mode == LG_HARDEN_OFF ? 0 : gt.n_cases;
        rep->ops_before = count_ops(m);
        st = lgp_fp16_hazards(&gt, &hz, &n, err);
    }
    if (st == LG_OK) st = apply_all(&gt, hz, n, opt, out, rep, err);
    if (st == LG_OK && mode != LG_HARDEN_OFF) st = model_error(&gt, m, &rep->model_before, err);
    if (st == LG_OK && mode != LG_HARDEN_OFF) st = model_error(&gt, *out, &rep->model_after, err);
    if (st == LG_OK) {
        rep->items = calloc(n ? n : 1, sizeof *rep->items);
        if (!rep->items) st = lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < n && st == LG_OK; i++) {
        rep->items[rep->n_items++] = hz[i].item;
        rep->n_hazards += hz[i].item.hazard;
        rep->n_rewritten += hz[i].item.rewritten;
        rep->n_approx += hz[i].item.rewritten && (hz[i].item.fix & LG_FP16_FIX_TWO_STAGE);
    }
    if (st == LG_OK) rep->ops_after = count_ops(*out);
    free(hz);
    free(cases);
    if (dflt) {
        for (uint32_t i = 0; i < m->subgraphs[0].n_inputs; i++) free(dflt[i]);
        free(dflt);
    }
    if (st != LG_OK) {
        lg_model_free(*out);
        *out = NULL;
        lg_harden_report_free(rep);
        return st;
    }
    *rep_out = rep;
    return LG_OK;
}

lg_status lg_harden_fp16(const lg_model *m, lg_harden_mode mode, const float *const *inputs, lg_model **out,
                         lg_harden_report **rep, lg_error *err) {
    return lg_harden_fp16_opt(m, mode, inputs, NULL, out, rep, err);
}
