/* Numeric comparison: metrics, the precision lockstep, the two-model protocol. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lg/compare.h"

void lg_metrics_compute(const float *ref, const float *test, int64_t n, lg_metrics *o) {
    memset(o, 0, sizeof *o);
    o->n = n;
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0, sdd = 0;
    int64_t nf = 0;
    double best_r = -INFINITY, best_t = -INFINITY;
    o->ref_argmax = o->test_argmax = n ? 0 : -1;
    for (int64_t i = 0; i < n; i++) {
        double a = ref[i], b = test[i];
        if (isnan(a)) o->ref_nan++;
        else if (isinf(a)) o->ref_inf++;
        if (isnan(b)) o->test_nan++;
        else if (isinf(b)) o->test_inf++;
        if (!isnan(a) && a > best_r) { best_r = a; o->ref_argmax = i; }
        if (!isnan(b) && b > best_t) { best_t = b; o->test_argmax = i; }
        if (isfinite(a) && fabs(a) > o->ref_max_abs) o->ref_max_abs = fabs(a);
        if (isfinite(b) && fabs(b) > o->test_max_abs) o->test_max_abs = fabs(b);
        if (!isfinite(a) || !isfinite(b)) continue;
        double d = a - b;
        if (fabs(d) > o->max_abs) o->max_abs = fabs(d);
        sa += a; sb += b; saa += a * a; sbb += b * b; sab += a * b; sdd += d * d;
        nf++;
    }
    o->max_rel = o->ref_max_abs > 0 ? o->max_abs / o->ref_max_abs : (o->max_abs > 0 ? INFINITY : 0);
    o->nmse = saa > 0 ? sdd / saa : (sdd > 0 ? INFINITY : 0);
    if (saa == 0 && sbb == 0) o->cosine = 1;
    else if (saa == 0 || sbb == 0) o->cosine = 0;
    else o->cosine = sab / sqrt(saa * sbb);
    if (nf == 0) {
        o->pearson = n ? 0 : 1;
    } else {
        /* second pass around the means: stable near-constant data */
        double ma = sa / (double)nf, mb = sb / (double)nf, va = 0, vb = 0, cov = 0;
        for (int64_t i = 0; i < n; i++) {
            double a = ref[i], b = test[i];
            if (!isfinite(a) || !isfinite(b)) continue;
            va += (a - ma) * (a - ma);
            vb += (b - mb) * (b - mb);
            cov += (a - ma) * (b - mb);
        }
        if (va == 0 && vb == 0) o->pearson = sdd == 0 ? 1 : 0;
        else if (va == 0 || vb == 0) o->pearson = 0;
        else o->pearson = cov / sqrt(va * vb);
        if (o->pearson > 1) o->pearson = 1;
        if (o->pearson < -1) o->pearson = -1;
    }
    /* non-finite values where the reference has none: not correlated */
    if ((o->test_inf + o->test_nan) > (o->ref_inf + o->ref_nan)) {
        if (o->pearson > 0) o->pearson = 0;
        if (o->cosine > 0) o->cosine = 0;
        o->max_abs = o->max_rel = o->nmse = INFINITY; /* an unbounded error, not zero */
    }
}

/* ------------------------------------------------------------------ precision lockstep */

void lg_precision_report_free(lg_precision_report *r) {
    if (!r) return;
    free(r->tensors);
    free(r->overflows);
    free(r->outputs);
    free(r);
}

static int64_t nonfinite(const lg_metrics *m, int test) {
    return test ? m->test_inf + m->test_nan : m->ref_inf + m->ref_nan;
}

static int64_t any_nonfinite(const float *p, int64_t n) {
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) k += !isfinite(p[i]);
    return k;
}

static double max_abs_of(const float *p, int64_t n) {
    double m = 0;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(p[i]) && fabs(p[i]) > m) m = fabs(p[i]);
    return m;
}

/* How many values are summed into each output value of an op (0 if not a reduction). */
static int64_t reduced_count(const lg_model *m, const lg_subgraph *sg, const lg_op *op) {
    int32_t code = lg_op_builtin(m, op);
    if (op->n_inputs < 1 || op->inputs[0] < 0 || op->n_outputs < 1) return 0;
    const lg_tensor *in = &sg->tensors[op->inputs[0]], *out = &sg->tensors[op->outputs[0]];
    const lg_tensor *w = op->n_inputs > 1 && op->inputs[1] >= 0 ? &sg->tensors[op->inputs[1]] : NULL;
    int64_t ni = lg_tensor_numel(in), no = lg_tensor_numel(out);
    switch (code) {
    case LG_OP_MEAN: case LG_OP_SUM: return no > 0 ? ni / no : 0;
    case LG_OP_SOFTMAX: case LG_OP_LOG_SOFTMAX: case LG_OP_L2_NORMALIZATION:
        return in->rank ? in->shape[in->rank - 1] : 1;
    case LG_OP_CONV_2D: return w && w->rank == 4 ? (int64_t)w->shape[1] * w->shape[2] * w->shape[3] : 0;
    case LG_OP_DEPTHWISE_CONV_2D: return w && w->rank == 4 ? (int64_t)w->shape[1] * w->shape[2] : 0;
    case LG_OP_FULLY_CONNECTED: return w && w->rank == 2 ? w->shape[1] : 0;
    case LG_OP_BATCH_MATMUL: return in->rank ? in->shape[in->rank - 1] : 0;
    default: return 0;
    }
}

lg_status lg_compare_precision(const lg_model *m, const float *const *inputs, const lg_compare_options *opt,
                               lg_precision_report **out, lg_error *err) {
    lgi_error_clear(err);
    if (!out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_compare_precision: NULL argument");
    *out = NULL;
    lg_compare_options o = {LG_PREC_F16, 0.999, 0, 1};
    if (opt) o = *opt;
    if (o.corr_threshold <= 0) o.corr_threshold = 0.999;
    lg_run_options r1, r2;
    memset(&r1, 0, sizeof r1);
    r1.precision = LG_PREC_F32;
    r1.keep_all = true;
    r1.threads = o.threads;
    r2 = r1;
    r2.precision = o.precision;
    lg_interp *a = NULL, *b = NULL;
    lg_precision_report *rep = NULL;
    lg_status st;
    if ((st = lg_interp_create(m, &r1, &a, err)) != LG_OK) goto done;
    if ((st = lg_interp_create(m, &r2, &b, err)) != LG_OK) goto done;
    for (uint32_t i = 0; i < lg_interp_n_inputs(a); i++) {
        lg_tensor_view v;
        lg_interp_input(a, i, &v);
        if ((st = lg_interp_set_input(a, i, v.type, inputs[i], v.nbytes, err)) != LG_OK) goto done;
        if ((st = lg_interp_set_input(b, i, v.type, inputs[i], v.nbytes, err)) != LG_OK) goto done;
    }
    if ((st = lg_interp_invoke(a, err)) != LG_OK) goto done;
    if ((st = lg_interp_invoke(b, err)) != LG_OK) goto done;

    const lg_subgraph *sg = &m->subgraphs[0];
    rep = calloc(1, sizeof *rep);
    if (!rep) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory"); goto done; }
    rep->precision = o.precision;
    rep->corr_threshold = o.corr_threshold;
    rep->first_divergent_op = rep->first_divergent_tensor = -1;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < sg->n_ops; i++) cap += sg->ops[i].n_outputs;
    rep->tensors = calloc(cap ? cap : 1, sizeof *rep->tensors);
    rep->overflows = calloc(cap ? cap : 1, sizeof *rep->overflows);
    rep->outputs = calloc(sg->n_outputs ? sg->n_outputs : 1, sizeof *rep->outputs);
    if (!rep->tensors || !rep->overflows || !rep->outputs) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory"); goto done; }
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        for (uint32_t k = 0; k < op->n_outputs; k++) {
            lg_tensor_view va, vb;
            if (lg_interp_tensor(a, op->outputs[k], &va) != LG_OK || lg_interp_tensor(b, op->outputs[k], &vb) != LG_OK) continue;
            if (va.type != LG_FLOAT32 || !va.data || !vb.data) continue;
            lg_tensor_cmp *tc = &rep->tensors[rep->n_tensors++];
            tc->op = (int32_t)i;
            tc->tensor = va.index;
            tc->name = va.name;
            lg_metrics_compute(va.data, vb.data, va.numel, &tc->m);
            int new_nonfinite = nonfinite(&tc->m, 1) > nonfinite(&tc->m, 0);
            /* the origin of an overflow: no non-finite value among the op's float inputs */
            if (new_nonfinite) {
                int inputs_clean = 1;
                double in_max = 0;
                for (uint32_t q = 0; q < op->n_inputs; q++) {
                    lg_tensor_view ia, ib;
                    if (op->inputs[q] < 0 || lg_interp_tensor(b, op->inputs[q], &ib) != LG_OK) continue;
                    lg_interp_tensor(a, op->inputs[q], &ia);
                    if (ib.type != LG_FLOAT32 || !ib.data) continue;
                    if (any_nonfinite(ib.data, ib.numel)) inputs_clean = 0;
                    if (ia.data) {
                        double mx = max_abs_of(ia.data, ia.numel);
                        if (mx > in_max) in_max = mx;
                    }
                }
                if (inputs_clean) {
                    lg_overflow_event *e = &rep->overflows[rep->n_overflows++];
                    e->op = (int32_t)i;
                    e->tensor = va.index;
                    e->n_inf = nonfinite(&tc->m, 1) - nonfinite(&tc->m, 0);
                    e->ref_max_abs = tc->m.ref_max_abs;
                    e->input_max_abs = in_max;
                    e->reduced = reduced_count(m, sg, op);
                    int32_t code = lg_op_builtin(m, op);
                    if (code == LG_OP_MEAN) e->accum_estimate = tc->m.ref_max_abs * (double)e->reduced;
                    else if (code == LG_OP_SUM) e->accum_estimate = tc->m.ref_max_abs;
                    else if (e->reduced) e->accum_estimate = in_max * in_max * (double)e->reduced;
                }
            }
            if (rep->first_divergent_op < 0) {
                const char *why = NULL;
                char buf[160];
                if (new_nonfinite) {
                    snprintf(buf, sizeof buf, "%lld inf/NaN value(s) appear (f32 max |x| %.6g)",
                             (long long)(nonfinite(&tc->m, 1) - nonfinite(&tc->m, 0)), tc->m.ref_max_abs);
                    why = buf;
                } else if (va.numel >= 8 && tc->m.pearson < o.corr_threshold && tc->m.nmse > 1 - o.corr_threshold) {
                    snprintf(buf, sizeof buf, "correlation %.6f < %.6g (NMSE %.3g)", tc->m.pearson, o.corr_threshold,
                             tc->m.nmse);
                    why = buf;
                } else if (va.numel < 8 && tc->m.max_rel > (o.max_rel > 0 ? o.max_rel : 1e-2)) {
                    snprintf(buf, sizeof buf, "max relative error %.3g > %.3g", tc->m.max_rel, o.max_rel);
                    why = buf;
                }
                if (why) {
                    rep->first_divergent_op = (int32_t)i;
                    rep->first_divergent_tensor = va.index;
                    snprintf(rep->first_divergent_why, sizeof rep->first_divergent_why, "%s", why);
                }
            }
        }
    }
    rep->ok = true;
    rep->worst_output = -1;
    int worst_bad = 0;
    double worst_sev = 0;
    for (uint32_t k = 0; k < sg->n_outputs; k++) {
        lg_tensor_view va, vb;
        lg_interp_output(a, k, &va);
        lg_interp_output(b, k, &vb);
        lg_tensor_cmp *tc = &rep->outputs[rep->n_outputs++];
        tc->tensor = va.index;
        tc->name = va.name;
        tc->op = -1;
        if (va.type != LG_FLOAT32 || !va.data || !vb.data) continue;
        lg_metrics_compute(va.data, vb.data, va.numel, &tc->m);
        int bad = nonfinite(&tc->m, 1) > nonfinite(&tc->m, 0) ||
                  (va.numel >= 8 && tc->m.pearson < o.corr_threshold && tc->m.nmse > 1 - o.corr_threshold) ||
                  (va.numel < 8 && tc->m.max_rel > (o.max_rel > 0 ? o.max_rel : 1e-2)) ||
                  (o.max_rel > 0 && tc->m.max_rel > o.max_rel);
        if (bad) rep->ok = false;
        /* the worst output: a failing one before a passing one, then the one furthest from the
           test it is judged by (a correlation means nothing on fewer than 8 values: a single
           value that moved by 1e-4 has "correlation" 0) */
        double sev = va.numel >= 8 ? 1 - tc->m.pearson : tc->m.max_rel;
        if (nonfinite(&tc->m, 1) > nonfinite(&tc->m, 0)) sev = INFINITY;
        if (rep->worst_output < 0 || bad > worst_bad || (bad == worst_bad && sev > worst_sev)) {
            rep->worst_output = (int32_t)k;
            worst_bad = bad;
            worst_sev = sev;
        }
    }
    *out = rep;
    rep = NULL;
    st = LG_OK;
done:
    lg_interp_free(a);
    lg_interp_free(b);
    lg_precision_report_free(rep);
    return st;
}

/* ------------------------------------------------------------------ two models */

void lg_models_report_free(lg_models_report *r) {
    if (!r) return;
    for (uint32_t i = 0; i < r->n_cases; i++) {
        free(r->cases[i].outputs);
        free(r->cases[i].allclose);
        free(r->cases[i].argmax_equal);
    }
    free(r->cases);
    free(r);
}

lg_status lg_compare_models(const lg_model *ma, const lg_model *mb, const float *const *golden,
                            const lg_models_options *opt, lg_models_report **out, lg_error *err) {
    lgi_error_clear(err);
    if (!out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_compare_models: NULL argument");
    *out = NULL;
    lg_models_options o = {LG_PREC_F32, 8, 1, 1e-4, 1e-3, 1};
    if (opt) o = *opt;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = o.precision;
    ro.threads = o.threads;
    lg_interp *a = NULL, *b = NULL;
    lg_models_report *rep = NULL;
    float **bufs = NULL;      /* the inputs, through ma's allocator hook */
    size_t *buf_bytes = NULL;
    size_t bufs_bytes = 0;
    void *ud = NULL;
    lg_alloc_fn alloc = lgi_model_allocator(ma, &ud);
    uint32_t nin = 0;
    lg_status st;
    if ((st = lg_interp_create(ma, &ro, &a, err)) != LG_OK) goto done;
    if ((st = lg_interp_create(mb, &ro, &b, err)) != LG_OK) goto done;
    nin = lg_interp_n_inputs(a);
    uint32_t nout = lg_interp_n_outputs(a);
    if (nin != lg_interp_n_inputs(b) || nout != lg_interp_n_outputs(b)) {
        st = lgi_fail(err, LG_ERR_INVALID_ARG, "the models differ in interface: %u/%u inputs, %u/%u outputs", nin,
                      lg_interp_n_inputs(b), nout, lg_interp_n_outputs(b));
        goto done;
    }
    for (uint32_t i = 0; i < nin + nout; i++) {
        lg_tensor_view va, vb;
        if (i < nin) { lg_interp_input(a, i, &va); lg_interp_input(b, i, &vb); }
        else { lg_interp_output(a, i - nin, &va); lg_interp_output(b, i - nin, &vb); }
        int same = va.type == vb.type && va.rank == vb.rank;
        for (uint32_t d = 0; same && d < va.rank; d++) same = va.shape[d] == vb.shape[d];
        if (!same) {
            st = lgi_fail(err, LG_ERR_INVALID_ARG, "the models differ in interface: %s %u has a different type or shape",
                          i < nin ? "input" : "output", i < nin ? i : i - nin);
            goto done;
        }
        if (i < nin && va.type != LG_FLOAT32) {
            st = lgi_fail(err, LG_ERR_UNSUPPORTED, "input %u is %s: only float inputs are generated", i, lg_dtype_name(va.type));
            goto done;
        }
    }
    bufs_bytes = (nin ? nin : 1) * (sizeof *bufs + sizeof *buf_bytes);
    bufs = alloc(ud, NULL, 0, bufs_bytes);
    if (bufs) {
        memset(bufs, 0, bufs_bytes);
        buf_bytes = (size_t *)(bufs + (nin ? nin : 1));
    }
    rep = calloc(1, sizeof *rep);
    if (!bufs || !rep) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory"); goto done; }
    rep->n_outputs = nout;
    rep->cases = calloc(1 + o.n_random, sizeof *rep->cases);
    if (!rep->cases) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory"); goto done; }
    for (uint32_t i = 0; i < nin; i++) {
        lg_tensor_view v;
        lg_interp_input(a, i, &v);
        buf_bytes[i] = v.nbytes ? (size_t)v.nbytes : 4;
        bufs[i] = alloc(ud, NULL, 0, buf_bytes[i]);
        if (!bufs[i]) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory"); goto done; }
    }
    rep->ok = true;
    for (uint32_t c = 0; c <= o.n_random; c++) {
        lg_models_case *cs = &rep->cases[rep->n_cases++];
        if (c == 0) snprintf(cs->input, sizeof cs->input, "golden");
        else snprintf(cs->input, sizeof cs->input, "random:%llu", (unsigned long long)(o.seed + c - 1));
        for (uint32_t i = 0; i < nin; i++) {
            lg_tensor_view v;
            lg_interp_input(a, i, &v);
            if (c == 0 && golden && golden[i]) memcpy(bufs[i], golden[i], (size_t)v.nbytes);
            else if ((st = lg_fill_f32(c == 0 ? "half" : cs->input, bufs[i], v.numel, err)) != LG_OK) goto done;
            if ((st = lg_interp_set_input(a, i, v.type, bufs[i], v.nbytes, err)) != LG_OK) goto done;
            if ((st = lg_interp_set_input(b, i, v.type, bufs[i], v.nbytes, err)) != LG_OK) goto done;
        }
        if ((st = lg_interp_invoke(a, err)) != LG_OK) goto done;
        if ((st = lg_interp_invoke(b, err)) != LG_OK) goto done;
        cs->outputs = calloc(nout ? nout : 1, sizeof *cs->outputs);
        cs->allclose = calloc(nout ? nout : 1, sizeof *cs->allclose);
        cs->argmax_equal = calloc(nout ? nout : 1, sizeof *cs->argmax_equal);
        if (!cs->outputs || !cs->allclose || !cs->argmax_equal) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory"); goto done; }
        for (uint32_t k = 0; k < nout; k++) {
            lg_tensor_view va, vb;
            lg_interp_output(a, k, &va);
            lg_interp_output(b, k, &vb);
            if (va.type != LG_FLOAT32) {
                int same = va.nbytes == vb.nbytes && memcmp(va.data, vb.data, (size_t)va.nbytes) == 0;
                cs->allclose[k] = same;
                cs->argmax_equal[k] = same;
                cs->outputs[k].n = va.numel;
                cs->outputs[k].pearson = same ? 1 : 0;
            } else {
                const float *x = va.data, *y = vb.data;
                lg_metrics_compute(x, y, va.numel, &cs->outputs[k]);
                int close = 1;
                for (int64_t e = 0; e < va.numel && close; e++) {
                    if (isnan(x[e]) || isnan(y[e])) close = isnan(x[e]) && isnan(y[e]);
                    else if (isinf(x[e]) || isinf(y[e])) close = x[e] == y[e];
                    else close = fabs((double)x[e] - y[e]) <= o.atol + o.rtol * fabs((double)x[e]);
                }
                cs->allclose[k] = close;
                cs->argmax_equal[k] = cs->outputs[k].ref_argmax == cs->outputs[k].test_argmax;
            }
            if (!cs->allclose[k]) rep->n_allclose_fail++;
            if (!cs->argmax_equal[k]) rep->n_argmax_fail++;
            if (cs->outputs[k].max_abs > rep->worst_max_abs) rep->worst_max_abs = cs->outputs[k].max_abs;
            if (cs->outputs[k].max_rel > rep->worst_max_rel) rep->worst_max_rel = cs->outputs[k].max_rel;
        }
    }
    rep->ok = rep->n_allclose_fail == 0 && rep->n_argmax_fail == 0;
    *out = rep;
    rep = NULL;
    st = LG_OK;
done:
    if (bufs) {
        for (uint32_t i = 0; i < nin; i++)
            if (bufs[i]) alloc(ud, bufs[i], buf_bytes[i], 0);
        alloc(ud, bufs, bufs_bytes, 0);
    }
    lg_interp_free(a);
    lg_interp_free(b);
    lg_models_report_free(rep);
    return st;
}
