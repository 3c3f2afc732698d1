/* litegpu report: the two inline SVG charts (see report_html.h).

   Both share one x axis, the op index in run order: x(op) = X0 + op * (X1 - X0) / (n_ops - 1)
   (the middle for one op). Each chart is ONE polyline however many ops the model has (a
   5,000-op model is one element of ~80 KB, not 5,000), and the axis mapping is written on the
   <svg> as data-* attributes (data-x0, data-x1, data-y0, data-y1, data-log-lo/hi or data-max)
   so a reader (tests/e2e/report_check.py) can turn every point back into its number. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_html.h"

enum { W = 960, H = 300, X0 = 70, X1 = W - 20, Y0 = 18, Y1 = H - 40 };

static double xpos(uint32_t n_ops, int32_t op) {
    if (n_ops <= 1) return (X0 + X1) / 2.0;
    return X0 + (double)op * (X1 - X0) / (double)(n_ops - 1);
}

uint32_t rpt_curve_points(const lg_precision_report *r, int32_t *ops, double *scores) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_tensors; i++) {
        double s = r->tensors[i].v.score;
        if (isnan(s)) s = INFINITY;
        if (n && ops[n - 1] == r->tensors[i].op) {
            if (s > scores[n - 1]) scores[n - 1] = s;
            continue;
        }
        ops[n] = r->tensors[i].op;
        scores[n] = s;
        n++;
    }
    return n;
}

const char *rpt_bytes(char *buf, size_t n, uint64_t b) {
    if (b < 1024) snprintf(buf, n, "%llu B", (unsigned long long)b);
    else if (b < 1048576) snprintf(buf, n, "%.1f KiB", (double)b / 1024.0);
    else snprintf(buf, n, "%.2f MiB", (double)b / 1048576.0);
    return buf;
}

static void x_axis(FILE *f, uint32_t n_ops) {
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", X0, Y1, X1, Y1);
    uint32_t last = n_ops ? n_ops - 1 : 0, prev = UINT32_MAX;
    for (int k = 0; k <= 4; k++) {
        uint32_t op = (uint32_t)((uint64_t)last * (uint64_t)k / 4);
        if (op == prev) continue;
        prev = op;
        double x = xpos(n_ops, (int32_t)op);
        fprintf(f, "<line class=\"tick\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/>"
                   "<text class=\"tl\" x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%u</text>\n",
                x, Y1, x, Y1 + 5, x, Y1 + 18, op);
    }
    fprintf(f, "<text class=\"al\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">op index (run order)</text>\n",
            (X0 + X1) / 2, H - 6);
}

/* ---- (c) the fp16 error curve */

typedef struct logscale {
    double lo, hi; /* log10 of the bottom and top of the plot */
} logscale;

static double ylog(const logscale *s, double v) {
    double l = v > 0 && isfinite(v) ? log10(v) : v > 0 ? s->hi : s->lo;
    if (l < s->lo) l = s->lo;
    if (l > s->hi) l = s->hi;
    return Y0 + (s->hi - l) / (s->hi - s->lo) * (Y1 - Y0);
}

/* Decades from the smallest positive score (at most 1e-9 down) to the largest finite one or
   ten times the tolerance, whichever is higher; 0 plots at the bottom, inf at the top. */
static logscale scale_of(const double *sc, uint32_t n, double tol) {
    double mn = INFINITY, mx = tol * 10;
    for (uint32_t i = 0; i < n; i++) {
        if (sc[i] > 0 && sc[i] < mn) mn = sc[i];
        if (isfinite(sc[i]) && sc[i] > mx) mx = sc[i];
    }
    logscale s;
    s.lo = isfinite(mn) ? floor(log10(mn)) : floor(log10(tol)) - 3;
    if (s.lo < -9) s.lo = -9;
    s.hi = ceil(log10(mx));
    if (s.hi <= s.lo) s.hi = s.lo + 1;
    return s;
}

static void error_markers(FILE *f, const rpt_data *d, const logscale *s) {
    const lg_precision_report *r = d->cmp;
    const lg_subgraph *sg = &d->cur.m->subgraphs[0];
    if (r->first_divergent_op >= 0) {
        double x = xpos(d->n_ops, r->first_divergent_op);
        fprintf(f, "<line class=\"first-divergent\" data-op=\"%d\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/>\n",
                r->first_divergent_op, x, Y0, x, Y1);
        int right = x > (X0 + X1) / 2.0;
        fprintf(f, "<text class=\"fdl\" x=\"%.2f\" y=\"%d\" text-anchor=\"%s\">first divergent: op %d ", right ? x - 4 : x + 4,
                Y0 + 12, right ? "end" : "start", r->first_divergent_op);
        rpt_esc(f, lg_op_name(d->cur.m, &sg->ops[r->first_divergent_op]));
        fprintf(f, "</text>\n");
    }
    if (r->n_overflows) {
        /* one path for every event: a downward triangle on the top edge at its op */
        fprintf(f, "<path class=\"overflows\" data-ops=\"");
        for (uint32_t i = 0; i < r->n_overflows; i++) fprintf(f, "%s%d", i ? " " : "", r->overflows[i].op);
        fprintf(f, "\" d=\"");
        for (uint32_t i = 0; i < r->n_overflows; i++)
            fprintf(f, "M%.2f %dl-5 -9h10z", xpos(d->n_ops, r->overflows[i].op), Y0);
        fprintf(f, "\"/>\n");
    }
    (void)s;
}

void rpt_svg_error_curve(FILE *f, const rpt_data *d, rpt_stats *st) {
    const lg_precision_report *r = d->cmp;
    uint32_t cap = r->n_tensors ? r->n_tensors : 1;
    int32_t *ops = malloc(cap * sizeof *ops);
    double *sc = malloc(cap * sizeof *sc);
    if (!ops || !sc) { free(ops); free(sc); fprintf(f, "<p>out of memory drawing the curve</p>\n"); return; }
    uint32_t n_all = rpt_curve_points(r, ops, sc), n = 0;
    /* exact ops (score 0: a folded fp16 weight, a copy) are left off the line, so it does not
       drop to the floor between every two ops; the page counts them */
    for (uint32_t i = 0; i < n_all; i++)
        if (sc[i] != 0) { ops[n] = ops[i]; sc[n] = sc[i]; n++; }
    logscale s = scale_of(sc, n, r->judge.tol);
    fprintf(f, "<svg class=\"chart\" id=\"error-curve\" viewBox=\"0 0 %d %d\" role=\"img\" "
               "aria-label=\"per-op judge score, log scale\" data-n-ops=\"%u\" data-x0=\"%d\" data-x1=\"%d\" "
               "data-y0=\"%d\" data-y1=\"%d\" data-log-lo=\"%g\" data-log-hi=\"%g\" data-n-exact=\"%u\">\n",
            W, H, d->n_ops, X0, X1, Y0, Y1, s.lo, s.hi, n_all - n);
    for (double e = s.lo; e <= s.hi + 1e-9; e += 1) {
        double y = Y0 + (s.hi - e) / (s.hi - s.lo) * (Y1 - Y0);
        fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"/>"
                   "<text class=\"tl\" x=\"%d\" y=\"%.2f\" text-anchor=\"end\">1e%d</text>\n",
                X0, y, X1, y, X0 - 6, y + 4, (int)e);
    }
    double yt = ylog(&s, r->judge.tol);
    fprintf(f, "<line class=\"tol\" data-tol=\"%g\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"/>"
               "<text class=\"toll\" x=\"%d\" y=\"%.2f\" text-anchor=\"end\">tolerance %g</text>\n",
            r->judge.tol, X0, yt, X1, yt, X1, yt - 4, r->judge.tol);
    x_axis(f, d->n_ops);
    fprintf(f, "<text class=\"al\" transform=\"translate(14 %d) rotate(-90)\" text-anchor=\"middle\">"
               "rms error / output std</text>\n", (Y0 + Y1) / 2);
    fprintf(f, "<polyline class=\"curve\" data-n-points=\"%u\" points=\"", n);
    for (uint32_t i = 0; i < n; i++) fprintf(f, "%s%.2f,%.2f", i ? " " : "", xpos(d->n_ops, ops[i]), ylog(&s, sc[i]));
    fprintf(f, "\"/>\n");
    error_markers(f, d, &s);
    fprintf(f, "</svg>\n");
    st->n_curve_points = n;
    st->n_exact_ops = n_all - n;
    free(ops);
    free(sc);
}

/* ---- (d) the activation-memory timeline */

void rpt_svg_memory(FILE *f, const rpt_data *d, rpt_stats *st) {
    const lg_mem_plan *p = d->plan;
    const lg_subgraph *sg = &d->cur.m->subgraphs[0];
    double mx = p->peak_live_bytes ? (double)p->peak_live_bytes : 1;
    char b[32];
    fprintf(f, "<svg class=\"chart\" id=\"memory\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"live activation "
               "bytes per op\" data-n-ops=\"%u\" data-x0=\"%d\" data-x1=\"%d\" data-y0=\"%d\" data-y1=\"%d\" "
               "data-max=\"%llu\">\n",
            W, H, d->n_ops, X0, X1, Y0, Y1, (unsigned long long)p->peak_live_bytes);
    for (int k = 0; k <= 4; k++) {
        double y = Y1 - k * (Y1 - Y0) / 4.0;
        fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"/>"
                   "<text class=\"tl\" x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n",
                X0, y, X1, y, X0 - 6, y + 4, rpt_bytes(b, sizeof b, (uint64_t)(mx * k / 4)));
    }
    x_axis(f, d->n_ops);
    uint32_t n = p->live_bytes ? d->n_ops : 0;
    fprintf(f, "<polyline class=\"mem\" data-n-points=\"%u\" points=\"", n);
    for (uint32_t op = 0; op < n; op++)
        fprintf(f, "%s%.2f,%.2f", op ? " " : "", xpos(d->n_ops, (int32_t)op),
                Y1 - (double)p->live_bytes[op] / mx * (Y1 - Y0));
    fprintf(f, "\"/>\n");
    if (p->peak_op >= 0) {
        double x = xpos(d->n_ops, p->peak_op);
        int right = x > (X0 + X1) / 2.0;
        fprintf(f, "<circle class=\"peak\" data-op=\"%d\" data-bytes=\"%llu\" cx=\"%.2f\" cy=\"%d\" r=\"5\"/>\n",
                p->peak_op, (unsigned long long)p->peak_live_bytes, x, Y0);
        fprintf(f, "<text class=\"fdl\" x=\"%.2f\" y=\"%d\" text-anchor=\"%s\">peak %s at op %d ", right ? x - 8 : x + 8,
                Y0 + 4, right ? "end" : "start", rpt_bytes(b, sizeof b, p->peak_live_bytes), p->peak_op);
        rpt_esc(f, lg_op_name(d->cur.m, &sg->ops[p->peak_op]));
        fprintf(f, "</text>\n");
    }
    fprintf(f, "</svg>\n");
    st->n_mem_points = n;
}
