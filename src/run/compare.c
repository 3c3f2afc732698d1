/* Numeric comparison: the precision lockstep and the two-model protocol (the metrics and the
 * judging rule are in judge.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lg/compare.h"

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
    lg_compare_options o = {LG_PREC_F16, 0, 0, 1, 0, 0};
    if (opt) o = *opt;
    lg_judge_options jo = {o.tol > 0 ? o.tol : LG_JUDGE_TOL, o.floor > 0 ? o.floor : LG_JUDGE_FLOOR,
                           o.corr_threshold > 0 && o.corr_threshold < 1 ? o.corr_threshold : 0,
                           o.max_rel > 0 ? o.max_rel : 0};
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
    rep->corr_threshold = jo.corr;
    rep->judge = jo;
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
            lg_judge_values(va.data, vb.data, va.numel, &jo, &tc->m, &tc->v);
            int new_nonfinite = tc->v.new_nonfinite;
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
            if (rep->first_divergent_op < 0 && !tc->v.pass) {
                rep->first_divergent_op = (int32_t)i;
                rep->first_divergent_tensor = va.index;
                snprintf(rep->first_divergent_why, sizeof rep->first_divergent_why, "%s", tc->v.why);
            }
        }
    }
    rep->ok = true;
    rep->worst_output = -1;
    for (uint32_t k = 0; k < sg->n_outputs; k++) {
        lg_tensor_view va, vb;
        lg_interp_output(a, k, &va);
        lg_interp_output(b, k, &vb);
        lg_tensor_cmp *tc = &rep->outputs[rep->n_outputs++];
        tc->tensor = va.index;
        tc->name = va.name;
        tc->op = -1;
        if (va.type != LG_FLOAT32 || !va.data || !vb.data) {
            tc->v.pass = true; /* not judged: integer outputs (the interpreter keeps them exact) */
            continue;
        }
        lg_judge_values(va.data, vb.data, va.numel, &jo, &tc->m, &tc->v);
        if (!tc->v.pass) rep->ok = false;
        if (tc->v.flat_ref) rep->n_flat_outputs++;
        /* the worst output: the furthest past (or nearest to) its own threshold */
        if (rep->worst_output < 0 || tc->v.severity > rep->outputs[rep->worst_output].v.severity)
            rep->worst_output = (int32_t)k;
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

/* "float32 [1, 64, 64, 3] \"x\"" for an interface mismatch. */
static void describe(const lg_tensor_view *v, char *buf, size_t size) {
    size_t k = (size_t)snprintf(buf, size, "%s [", lg_dtype_name(v->type));
    for (uint32_t d = 0; d < v->rank && k < size; d++)
        k += (size_t)snprintf(buf + k, size - k, "%s%lld", d ? ", " : "", (long long)v->shape[d]);
    if (k < size) snprintf(buf + k, size - k, "]%s%.40s%s", v->name ? " \"" : "", v->name ? v->name : "", v->name ? "\"" : "");
}

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

/* Both chains on the same inputs (ma's allocator hook for the input buffers). */
static lg_status compare_chains(const lg_model *ma, lg_chain *a, lg_chain *b, const float *const *golden,
                                const lg_models_options *opt, lg_models_report **out, lg_error *err) {
    lg_models_options o = {LG_PREC_F32, 8, 1, 1e-4, 1e-3, 1, LG_INT_TFLITE};
    if (opt) o = *opt;
    lg_models_report *rep = NULL;
    float **bufs = NULL;      /* the inputs, through ma's allocator hook */
    size_t *buf_bytes = NULL;
    size_t bufs_bytes = 0;
    void *ud = NULL;
    lg_alloc_fn alloc = lgi_model_allocator(ma, &ud);
    uint32_t nin = 0;
    lg_status st;
    nin = lg_chain_n_inputs(a);
    uint32_t nout = lg_chain_n_outputs(a);
    if (nin != lg_chain_n_inputs(b) || nout != lg_chain_n_outputs(b)) {
        st = lgi_fail(err, LG_ERR_INVALID_ARG, "the models differ in interface: %u/%u inputs, %u/%u outputs", nin,
                      lg_chain_n_inputs(b), nout, lg_chain_n_outputs(b));
        goto done;
    }
    for (uint32_t i = 0; i < nin + nout; i++) {
        lg_tensor_view va, vb;
        if (i < nin) { lg_chain_input(a, i, &va); lg_chain_input(b, i, &vb); }
        else { lg_chain_output(a, i - nin, &va); lg_chain_output(b, i - nin, &vb); }
        int same = va.type == vb.type && va.rank == vb.rank;
        for (uint32_t d = 0; same && d < va.rank; d++) same = va.shape[d] == vb.shape[d];
        if (!same) {
            char sa[96], sb[96];
            describe(&va, sa, sizeof sa);
            describe(&vb, sb, sizeof sb);
            st = lgi_fail(err, LG_ERR_INVALID_ARG, "the models differ in interface: %s %u is %s in the first, %s in the second",
                          i < nin ? "input" : "output", i < nin ? i : i - nin, sa, sb);
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
        lg_chain_input(a, i, &v);
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
            lg_chain_input(a, i, &v);
            if (c == 0 && golden && golden[i]) memcpy(bufs[i], golden[i], (size_t)v.nbytes);
            else if ((st = lg_fill_f32(c == 0 ? "pattern" : cs->input, bufs[i], v.numel, err)) != LG_OK) goto done;
            if ((st = lg_chain_set_input(a, i, v.type, bufs[i], v.nbytes, err)) != LG_OK) goto done;
            if ((st = lg_chain_set_input(b, i, v.type, bufs[i], v.nbytes, err)) != LG_OK) goto done;
        }
        if ((st = lg_chain_invoke(a, err)) != LG_OK) goto done;
        if ((st = lg_chain_invoke(b, err)) != LG_OK) goto done;
        cs->outputs = calloc(nout ? nout : 1, sizeof *cs->outputs);
        cs->allclose = calloc(nout ? nout : 1, sizeof *cs->allclose);
        cs->argmax_equal = calloc(nout ? nout : 1, sizeof *cs->argmax_equal);
        if (!cs->outputs || !cs->allclose || !cs->argmax_equal) { st = lgi_fail(err, LG_ERR_NOMEM, "out of memory"); goto done; }
        for (uint32_t k = 0; k < nout; k++) {
            lg_tensor_view va, vb;
            lg_chain_output(a, k, &va);
            lg_chain_output(b, k, &vb);
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
    lg_models_report_free(rep);
    return st;
}

static lg_run_options run_opts(const lg_models_options *opt) {
    lg_models_options o = {LG_PREC_F32, 8, 1, 1e-4, 1e-3, 1, LG_INT_TFLITE};
    if (opt) o = *opt;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = o.precision;
    ro.threads = o.threads;
    ro.int_arith = o.int_arith;
    return ro;
}

lg_status lg_compare_models(const lg_model *ma, const lg_model *mb, const float *const *golden,
                            const lg_models_options *opt, lg_models_report **out, lg_error *err) {
    lgi_error_clear(err);
    if (!out || !ma || !mb) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_compare_models: NULL argument");
    *out = NULL;
    lg_run_options ro = run_opts(opt);
    lg_chain *a = NULL, *b = NULL;
    lg_status st = lg_chain_create(&ma, 1, NULL, 0, NULL, 0, &ro, &a, err);
    if (st == LG_OK) st = lg_chain_create(&mb, 1, NULL, 0, NULL, 0, &ro, &b, err);
    if (st == LG_OK) st = compare_chains(ma, a, b, golden, opt, out, err);
    lg_chain_free(a);
    lg_chain_free(b);
    return st;
}

lg_status lg_compare_chains(const lg_model *alloc_from, lg_chain *a, lg_chain *b, const float *const *golden,
                            const lg_models_options *opt, lg_models_report **out, lg_error *err) {
    lgi_error_clear(err);
    if (!out || !alloc_from || !a || !b) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_compare_chains: NULL argument");
    *out = NULL;
    return compare_chains(alloc_from, a, b, golden, opt, out, err);
}
