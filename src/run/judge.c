/* The metrics of one tensor against its reference and the judging rule (lg/compare.h), shared
 * by compare's precision mode and verify (GPU output against the CPU one). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lg/compare.h"

/* Sums over the pairs where both values are finite. */
typedef struct sums {
    double sa, sb, saa, sbb, sab, sdd;
    int64_t nf;
} sums;

static void first_pass(const float *ref, const float *test, int64_t n, lg_metrics *o, sums *s) {
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
        s->sa += a; s->sb += b; s->saa += a * a; s->sbb += b * b; s->sab += a * b; s->sdd += d * d;
        s->nf++;
    }
}

/* Second pass around the means (stable on near-constant data): std of ref and Pearson. */
static void second_pass(const float *ref, const float *test, int64_t n, lg_metrics *o, const sums *s) {
    double ma = s->sa / (double)s->nf, mb = s->sb / (double)s->nf, va = 0, vb = 0, cov = 0;
    for (int64_t i = 0; i < n; i++) {
        double a = ref[i], b = test[i];
        if (!isfinite(a) || !isfinite(b)) continue;
        va += (a - ma) * (a - ma);
        vb += (b - mb) * (b - mb);
        cov += (a - ma) * (b - mb);
    }
    o->ref_mean = ma;
    o->ref_std = sqrt(va / (double)s->nf);
    if (s->nf < 2 || va == 0 || vb == 0) {
        o->pearson = NAN; /* a correlation needs two sides that vary */
    } else {
        o->pearson = cov / sqrt(va * vb);
        if (o->pearson > 1) o->pearson = 1;
        if (o->pearson < -1) o->pearson = -1;
    }
}

void lg_metrics_compute(const float *ref, const float *test, int64_t n, lg_metrics *o) {
    memset(o, 0, sizeof *o);
    o->n = n;
    sums s;
    memset(&s, 0, sizeof s);
    first_pass(ref, test, n, o, &s);
    o->n_finite = s.nf;
    o->rms = s.nf ? sqrt(s.sdd / (double)s.nf) : 0;
    o->max_rel = o->ref_max_abs > 0 ? o->max_abs / o->ref_max_abs : NAN;
    o->nmse = s.saa > 0 ? s.sdd / s.saa : NAN;
    o->cosine = s.saa > 0 && s.sbb > 0 ? s.sab / sqrt(s.saa * s.sbb) : NAN;
    if (s.nf) second_pass(ref, test, n, o, &s);
    else o->pearson = o->ref_mean = o->ref_std = NAN;
    /* non-finite values where the reference has none: not correlated, an unbounded error */
    if ((o->test_inf + o->test_nan) > (o->ref_inf + o->ref_nan)) {
        if (o->pearson > 0) o->pearson = 0;
        if (o->cosine > 0) o->cosine = 0;
        o->max_abs = o->max_rel = o->nmse = o->rms = INFINITY;
    }
}

/* ------------------------------------------------------------------ the judging rule */

const char *lg_verdict_scale_kind(const lg_verdict *v, const lg_judge_options *opt) {
    double floor = opt && opt->floor > 0 ? opt->floor : LG_JUDGE_FLOOR;
    return v->scale <= floor ? "scale floor" : v->constant_ref ? "magnitude" : "std";
}

void lg_judge(const lg_metrics *m, const lg_judge_options *opt, lg_verdict *v) {
    lg_judge_options o = {LG_JUDGE_TOL, LG_JUDGE_FLOOR, 0, 0};
    if (opt) o = *opt;
    if (!(o.tol > 0)) o.tol = LG_JUDGE_TOL;
    if (!(o.floor > 0)) o.floor = LG_JUDGE_FLOOR;
    memset(v, 0, sizeof *v);
    v->tol = o.tol;
    v->new_nonfinite = m->test_inf + m->test_nan > m->ref_inf + m->ref_nan;
    v->constant_ref = m->n_finite > 0 && !(m->ref_std > 0);
    v->flat_ref = m->n > 1 && m->n_finite > 0 &&
                  (!(m->ref_std > o.floor) || m->ref_std < m->ref_max_abs * (1.0 / 2048));
    double spread = v->constant_ref ? m->ref_max_abs : m->ref_std;
    v->scale = spread > o.floor ? spread : o.floor;
    if (v->new_nonfinite) {
        v->score = v->severity = INFINITY;
        snprintf(v->why, sizeof v->why, "%lld inf/NaN value(s) appear (f32 max |x| %.6g)",
                 (long long)(m->test_inf + m->test_nan - m->ref_inf - m->ref_nan), m->ref_max_abs);
        return;
    }
    v->score = m->rms / v->scale;
    v->severity = v->score / o.tol;
    if (v->severity > 1)
        snprintf(v->why, sizeof v->why, "rms error %.3g is %.3g x the output's %s %.3g (tolerance %g)", m->rms,
                 v->score, lg_verdict_scale_kind(v, &o), v->scale, o.tol);
    /* the optional criteria: Pearson (defined, >= 8 values) and max_rel */
    if (o.corr > 0 && o.corr < 1 && m->n >= 8 && !isnan(m->pearson)) {
        double s = (1 - m->pearson) / (1 - o.corr);
        if (s > v->severity) {
            v->severity = s;
            if (s > 1)
                snprintf(v->why, sizeof v->why, "correlation %.9g < %.9g", m->pearson, o.corr);
        }
    }
    if (o.max_rel > 0 && !isnan(m->max_rel)) {
        double s = m->max_rel / o.max_rel;
        if (s > v->severity) {
            v->severity = s;
            if (s > 1)
                snprintf(v->why, sizeof v->why, "max relative error %.3g > %.9g", m->max_rel, o.max_rel);
        }
    }
    v->pass = !(v->severity > 1);
    if (v->pass) v->why[0] = 0;
}

void lg_judge_values(const float *ref, const float *test, int64_t n, const lg_judge_options *opt, lg_metrics *m,
                     lg_verdict *out) {
    lg_metrics tmp;
    if (!m) m = &tmp;
    lg_metrics_compute(ref, test, n, m);
    lg_judge(m, opt, out);
}
