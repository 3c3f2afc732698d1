/* lg_lowrank_measure (lg/lowrank.h): the output error of one model against another, both run
   by the fp32 reference interpreter on the same inputs. */
#include "lg/lowrank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lg/run.h"

/* Input i of both interpreters from data (float32), or the pattern fill when data is NULL. */
static lg_status set_input(lg_interp *ia, lg_interp *ib, uint32_t i, const float *data, lg_error *err) {
    lg_tensor_view va, vb;
    LG_TRY(lg_interp_input(ia, i, &va));
    LG_TRY(lg_interp_input(ib, i, &vb));
    if (va.type != LG_FLOAT32 || vb.type != LG_FLOAT32 || va.numel != vb.numel)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "input %u: the two models differ, or it is not FLOAT32 (%s)", i, lg_dtype_name(va.type));
    float *fill = NULL;
    if (!data) {
        fill = malloc(sizeof(float) * (size_t)(va.numel ? va.numel : 1));
        if (!fill) return lgi_fail(err, LG_ERR_NOMEM, "out of memory");
        lg_status st = lg_fill_f32("pattern", fill, va.numel, err);
        if (st != LG_OK) {
            free(fill);
            return st;
        }
        data = fill;
    }
    uint64_t nb = sizeof(float) * (uint64_t)va.numel;
    lg_status st = lg_interp_set_input(ia, i, LG_FLOAT32, data, nb, err);
    if (st == LG_OK) st = lg_interp_set_input(ib, i, LG_FLOAT32, data, nb, err);
    free(fill);
    return st;
}

static int64_t argmax(const float *p, int64_t n) {
    int64_t best = 0;
    for (int64_t k = 1; k < n; k++)
        if (p[k] > p[best]) best = k;
    return best;
}

/* Accumulate |b - a| and |a| over every FLOAT32 output, and per output (out_abs, out_ref:
   n_outputs each); count the case when every argmax agrees. */
static lg_status compare_outputs(const lg_interp *ia, const lg_interp *ib, lg_lowrank_error *e, double *out_abs,
                                 double *out_ref, lg_error *err) {
    bool same = true;
    uint32_t n = lg_interp_n_outputs(ia);
    if (n != lg_interp_n_outputs(ib)) return lgi_fail(err, LG_ERR_INVALID_ARG, "the models have %u and %u outputs", n, lg_interp_n_outputs(ib));
    for (uint32_t o = 0; o < n; o++) {
        lg_tensor_view va, vb;
        LG_TRY(lg_interp_output(ia, o, &va));
        LG_TRY(lg_interp_output(ib, o, &vb));
        if (va.type != LG_FLOAT32) continue;
        if (vb.type != LG_FLOAT32 || va.numel != vb.numel)
            return lgi_fail(err, LG_ERR_INVALID_ARG, "output %u: %lld values against %lld", o, (long long)va.numel, (long long)vb.numel);
        const float *pa = va.data, *pb = vb.data;
        for (int64_t k = 0; k < va.numel; k++) {
            double d = fabs((double)pb[k] - (double)pa[k]), r = fabs((double)pa[k]);
            if (isnan(d)) d = INFINITY;
            if (d > e->max_abs) e->max_abs = d;
            if (r > e->ref_max_abs) e->ref_max_abs = r;
            if (d > out_abs[o]) out_abs[o] = d;
            if (r > out_ref[o]) out_ref[o] = r;
        }
        if (va.numel > 0) same &= argmax(pa, va.numel) == argmax(pb, vb.numel);
    }
    e->n_argmax_equal += same;
    return LG_OK;
}

lg_status lg_lowrank_measure(const lg_model *a, const lg_model *b, const float *const *const *cases, uint32_t n_cases,
                             lg_lowrank_error *out, lg_error *err) {
    lgi_error_clear(err);
    if (!a || !b || !out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_lowrank_measure: NULL argument");
    memset(out, 0, sizeof *out);
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = LG_PREC_F32;
    lg_interp *ia = NULL, *ib = NULL;
    LG_TRY(lg_interp_create(a, &ro, &ia, err));
    lg_status st = lg_interp_create(b, &ro, &ib, err);
    if (st == LG_OK && lg_interp_n_inputs(ia) != lg_interp_n_inputs(ib))
        st = lgi_fail(err, LG_ERR_INVALID_ARG, "the models have %u and %u inputs", lg_interp_n_inputs(ia), lg_interp_n_inputs(ib));
    const uint32_t n = cases ? n_cases : 1, n_out = ia ? lg_interp_n_outputs(ia) : 0;
    double *out_abs = calloc(n_out ? n_out : 1, sizeof(double)), *out_ref = calloc(n_out ? n_out : 1, sizeof(double));
    if (st == LG_OK && (!out_abs || !out_ref)) st = lgi_fail(err, LG_ERR_NOMEM, "out of memory");
    for (uint32_t k = 0; st == LG_OK && k < n; k++) {
        for (uint32_t i = 0; st == LG_OK && i < lg_interp_n_inputs(ia); i++)
            st = set_input(ia, ib, i, cases ? cases[k][i] : NULL, err);
        if (st == LG_OK) st = lg_interp_invoke(ia, err);
        if (st == LG_OK) st = lg_interp_invoke(ib, err);
        if (st == LG_OK) st = compare_outputs(ia, ib, out, out_abs, out_ref, err);
    }
    lg_interp_free(ia);
    lg_interp_free(ib);
    /* the worst output's max |b - a| / max |a| (an output whose reference is all zero counts
       only if b differs there: then +inf) */
    out->rel = NAN;
    for (uint32_t o = 0; st == LG_OK && o < n_out; o++) {
        double q = out_ref[o] > 0 ? out_abs[o] / out_ref[o] : out_abs[o] > 0 ? INFINITY : NAN;
        if (!isnan(q) && (isnan(out->rel) || q > out->rel)) out->rel = q;
    }
    free(out_abs);
    free(out_ref);
    if (st != LG_OK) return st;
    out->n_cases = n;
    return LG_OK;
}
