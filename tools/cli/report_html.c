/* litegpu report: the self-contained HTML page (see report_html.h). Sections: the model at a
   glance (lg_info), the GPU check and its findings (lg_check), the per-op fp16 error curve
   (lg_compare_precision), the activation-memory timeline (lg_interp_mem_plan), the latency by
   op type, and before/after. Long tables keep their first rows visible and fold the rest
   into <details> (no script: the page runs none). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_html.h"

#ifndef ROWS_SHOWN
#define ROWS_SHOWN 100 /* rows of a long table before the rest folds into <details> */
#endif

void rpt_esc(FILE *f, const char *s) {
    if (!s) return;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if (*p < 0x20 && *p != '\n' && *p != '\t') fputs("\xEF\xBF\xBD", f);
            else if (*p == 0x7f) fputs("\xEF\xBF\xBD", f);
            else fputc(*p, f);
        }
    }
}

static const char CSS[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1040px;"
    "padding:16px 24px;color:#1d2430;background:#fff}\n"
    "h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:2px solid #dde3ea;"
    "padding-bottom:4px}\n"
    "table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}th,td{border:1px solid #d5dbe3;"
    "padding:3px 7px;text-align:left;vertical-align:top}th{background:#eef2f6}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}code,.mono{font-family:ui-monospace,"
    "Menlo,Consolas,monospace;font-size:12px;word-break:break-all}\n"
    "td.rule code{word-break:normal;white-space:nowrap}\n"
    ".ok{color:#0a7a2f;font-weight:600}.bad{color:#b3261e;font-weight:600}.warn{color:#8a5a00}\n"
    ".summary{background:#f4f7fa;border:1px solid #dde3ea;padding:8px 12px;border-radius:6px}\n"
    "svg.chart{width:100%;height:auto;background:#fbfcfd;border:1px solid #e3e8ee}\n"
    "svg .axis{stroke:#55606e;stroke-width:1}svg .tick{stroke:#55606e}svg .grid{stroke:#e6eaef}\n"
    "svg text{font:11px system-ui,sans-serif;fill:#3b4654}svg .al{font-size:12px}\n"
    "svg .curve{fill:none;stroke:#1f5fbf;stroke-width:1.3;stroke-linejoin:round}\n"
    "svg .mem{fill:none;stroke:#6b3fb0;stroke-width:1.5}svg .tol{stroke:#e08a00;stroke-dasharray:6 4}\n"
    "svg .toll{fill:#a36400}svg .first-divergent{stroke:#c62828;stroke-width:2}svg .fdl{fill:#c62828;"
    "font-weight:600}svg .overflows{fill:#c62828}svg .peak{fill:#c62828}\n"
    "details{margin:4px 0 10px}summary{cursor:pointer;color:#1f5fbf}pre{white-space:pre-wrap;"
    "background:#f4f7fa;padding:8px;border:1px solid #dde3ea}\n"
    "footer{margin-top:32px;color:#6b7580;font-size:12px}\n";

/* x as %.3g (fixed6: %.6f), or n/a (NaN), inf */
static void num_or_na(FILE *f, bool fixed6, double x) {
    if (isnan(x)) fputs("n/a", f);
    else if (isinf(x)) fputs(x > 0 ? "inf" : "-inf", f);
    else if (fixed6) fprintf(f, "%.6f", x);
    else fprintf(f, "%.3g", x);
}

static void shape(FILE *f, const int32_t *s, uint32_t rank) {
    fputc('[', f);
    for (uint32_t i = 0; i < rank; i++) fprintf(f, "%s%d", i ? "," : "", s[i]);
    fputc(']', f);
}

static const char *op_name(const rpt_data *d, int32_t op) {
    return op >= 0 && (uint32_t)op < d->n_ops ? lg_op_name(d->cur.m, &d->cur.m->subgraphs[0].ops[op]) : "";
}

static const char *tname(const lg_model *m, int32_t t) {
    const lg_subgraph *sg = &m->subgraphs[0];
    return t >= 0 && (uint32_t)t < sg->n_tensors && sg->tensors[t].name ? sg->tensors[t].name : "";
}

/* Table rows past ROWS_SHOWN: close the table, open a <details> and a second table with the
   same head (class cls), so every row stays in a table of that class. */
static void fold(FILE *f, uint32_t i, uint32_t n, const char *cls, const char *head) {
    if (i != ROWS_SHOWN || n <= ROWS_SHOWN) return;
    fprintf(f, "</table>\n<details><summary>%u more rows</summary>\n<table class=\"%s\">%s\n", n - ROWS_SHOWN, cls, head);
}
static void fold_end(FILE *f, uint32_t n) {
    fputs("</table>\n", f);
    if (n > ROWS_SHOWN) fputs("</details>\n", f);
}

/* ---- (a) the model at a glance */

static void io_rows(FILE *f, const char *kind, const lg_info_io *io, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        fprintf(f, "<tr><td>%s</td><td class=\"n\">%u</td><td class=\"mono\">", kind, io[i].index);
        rpt_esc(f, io[i].name);
        fprintf(f, "</td><td>%s</td><td class=\"mono\">", lg_dtype_name((lg_dtype)io[i].dtype));
        shape(f, io[i].shape, io[i].rank);
        fprintf(f, "</td></tr>\n");
    }
}

static void census_table(FILE *f, const lg_info_subgraph *sg) {
    const char *head = "<tr><th>op</th><th class=\"n\">count</th></tr>";
    fprintf(f, "<table class=\"census\" id=\"census\">%s\n", head);
    for (uint32_t i = 0; i < sg->n_ops_census; i++) {
        fold(f, i, sg->n_ops_census, "census", head);
        fprintf(f, "<tr><td>");
        rpt_esc(f, sg->ops[i].name);
        fprintf(f, "</td><td class=\"n\">%u</td></tr>\n", sg->ops[i].count);
    }
    fold_end(f, sg->n_ops_census);
}

static void section_model(FILE *f, const rpt_data *d) {
    const lg_info *in = d->cur.info;
    char b[32];
    fprintf(f, "<h2 id=\"model\">Model</h2>\n");
    if (!in) { fprintf(f, "<p class=\"bad\">no summary: "); rpt_esc(f, d->cur.error); fprintf(f, "</p>\n"); return; }
    fprintf(f, "<table class=\"kv\" id=\"glance\">\n<tr><th>file</th><td class=\"mono\">");
    rpt_esc(f, d->cur.path);
    fprintf(f, "</td></tr>\n<tr><th>size</th><td><span id=\"size\">%llu</span> bytes (%s)</td></tr>\n",
            (unsigned long long)in->file_size, rpt_bytes(b, sizeof b, in->file_size));
    fprintf(f, "<tr><th>sha256</th><td class=\"mono\" id=\"sha256\">%s</td></tr>\n", in->sha256_hex);
    fprintf(f, "<tr><th>schema version</th><td>%u</td></tr>\n", in->schema_version);
    if (in->description) {
        fprintf(f, "<tr><th>description</th><td>");
        rpt_esc(f, in->description);
        fprintf(f, "</td></tr>\n");
    }
    if (in->n_subgraphs) {
        const lg_info_subgraph *sg = &in->subgraphs[0];
        fprintf(f, "<tr><th>subgraphs</th><td>%u</td></tr>\n<tr><th>ops (subgraph 0)</th><td id=\"n-ops\">%u</td></tr>\n"
                   "<tr><th>tensors</th><td id=\"n-tensors\">%u</td></tr>\n",
                in->n_subgraphs, sg->n_ops, sg->n_tensors);
    }
    fprintf(f, "<tr><th>weights</th><td>%llu parameters, %s in %u buffers</td></tr>\n",
            (unsigned long long)in->weights.params, rpt_bytes(b, sizeof b, in->weights.bytes), in->weights.n_buffers);
    if (in->n_metadata) {
        fprintf(f, "<tr><th>metadata</th><td>");
        for (uint32_t i = 0; i < in->n_metadata; i++) {
            fprintf(f, "%s<code>", i ? ", " : "");
            rpt_esc(f, in->metadata[i].name);
            fprintf(f, "</code> (%llu B)", (unsigned long long)in->metadata[i].bytes);
        }
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
    if (!in->n_subgraphs) return;
    const lg_info_subgraph *sg = &in->subgraphs[0];
    fprintf(f, "<table id=\"io\"><tr><th></th><th class=\"n\">#</th><th>name</th><th>type</th><th>shape</th></tr>\n");
    io_rows(f, "input", sg->inputs, sg->n_inputs);
    io_rows(f, "output", sg->outputs, sg->n_outputs);
    fprintf(f, "</table>\n");
    if (sg->n_ops_census > 16) fprintf(f, "<details><summary>op census: %u op types</summary>\n", sg->n_ops_census);
    else fprintf(f, "<p>op census:</p>\n");
    census_table(f, sg);
    if (sg->n_ops_census > 16) fprintf(f, "</details>\n");
}

/* ---- (b) the check */

static void verdict_line(FILE *f, const lg_check_report *r, bool with_id) {
    fprintf(f, "<span class=\"%s\"%s>%s</span> for %s%s%s: %u blocker(s), %u warning(s); %u of %u ops "
               "on the GPU, %u on the CPU, %u folded",
            r->ready ? "ok" : "bad", with_id ? " id=\"check-verdict\"" : "", r->ready ? "READY" : "NOT READY", lg_target_name(r->target),
            r->gpu != LG_GPU_ANY ? " on " : "", r->gpu != LG_GPU_ANY ? lg_gpu_name(r->gpu) : "", r->n_blockers,
            r->n_warnings, r->n_gpu_ops, r->n_ops, r->n_cpu_ops, r->n_folded_ops);
}

static void section_check(FILE *f, const rpt_data *d, rpt_stats *st) {
    const lg_check_report *r = d->cur.check;
    fprintf(f, "<h2 id=\"check\">GPU check</h2>\n");
    if (!r) { fprintf(f, "<p class=\"bad\">no check: "); rpt_esc(f, d->cur.error); fprintf(f, "</p>\n"); return; }
    fprintf(f, "<p>");
    verdict_line(f, r, true);
    fprintf(f, ". <code>litegpu check --explain RULE</code> documents a rule; <code>litegpu fix</code> rewrites what it can.</p>\n");
    st->n_findings = r->n_findings;
    if (!r->n_findings) { fprintf(f, "<p>No findings.</p>\n"); return; }
    const char *head = "<tr><th class=\"n\">#</th><th>rule</th><th>severity</th><th class=\"n\">op</th><th>op name</th>"
                       "<th>message</th><th>fix</th></tr>";
    fprintf(f, "<table class=\"findings\" id=\"findings\">%s\n", head);
    for (uint32_t i = 0; i < r->n_findings; i++) {
        const lg_finding *x = &r->findings[i];
        fold(f, i, r->n_findings, "findings", head);
        fprintf(f, "<tr><td class=\"n\">%u</td><td class=\"rule\"><code>%s</code></td><td class=\"%s\">%s</td><td class=\"n\">%d</td><td>", i,
                x->rule->id, x->rule->severity == LG_SEV_BLOCKER ? "bad" : "warn", lg_severity_name(x->rule->severity),
                x->op);
        rpt_esc(f, x->op >= 0 ? op_name(d, x->op) : "");
        fprintf(f, "</td><td>");
        rpt_esc(f, x->reason);
        fprintf(f, "</td><td>");
        rpt_esc(f, x->fix);
        fprintf(f, "</td></tr>\n");
    }
    fold_end(f, r->n_findings);
}

/* ---- (c) the emulated GPU precision */

static int cmp_score_desc(const void *a, const void *b) {
    const lg_tensor_cmp *x = *(const lg_tensor_cmp *const *)a, *y = *(const lg_tensor_cmp *const *)b;
    double sx = isnan(x->v.score) ? INFINITY : x->v.score, sy = isnan(y->v.score) ? INFINITY : y->v.score;
    if (sx != sy) return sx > sy ? -1 : 1;
    return x->tensor - y->tensor;
}

/* A tensor's row; output >= 0: a graph output (its index in place of the op) */
static void tensor_row(FILE *f, const rpt_data *d, const lg_tensor_cmp *t, int output) {
    fprintf(f, "<tr><td class=\"n\">%d</td><td>", output >= 0 ? output : t->op);
    if (output < 0) rpt_esc(f, op_name(d, t->op));
    fprintf(f, "</td><td class=\"n\">%d</td><td class=\"mono\">", t->tensor);
    rpt_esc(f, t->name);
    fprintf(f, "</td><td class=\"n\">");
    num_or_na(f, false, t->v.score);
    fprintf(f, "</td><td class=\"n\">");
    num_or_na(f, false, t->m.max_rel);
    fprintf(f, "</td><td class=\"n\">");
    num_or_na(f, true, t->m.pearson);
    fprintf(f, "</td><td class=\"n\">%lld</td><td class=\"%s\">%s</td></tr>\n", (long long)(t->m.test_inf + t->m.test_nan),
            t->v.pass ? "ok" : "bad", t->v.pass ? "ok" : "fails");
}

static const char TENSOR_HEAD[] = "<tr><th class=\"n\">op</th><th>op name</th><th class=\"n\">tensor</th><th>name</th>"
                                  "<th class=\"n\">score</th><th class=\"n\">max_rel</th><th class=\"n\">pearson</th>"
                                  "<th class=\"n\">inf/nan</th><th>judge</th></tr>";

static void worst_tensors(FILE *f, const rpt_data *d) {
    const lg_precision_report *r = d->cmp;
    uint32_t n = r->n_tensors;
    const lg_tensor_cmp **v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return;
    for (uint32_t i = 0; i < n; i++) v[i] = &r->tensors[i];
    qsort(v, n, sizeof *v, cmp_score_desc);
    uint32_t k = n < 20 ? n : 20;
    fprintf(f, "<details%s><summary>the %u tensors with the highest scores</summary>\n<table id=\"worst\">%s\n",
            n <= 20 ? " open" : "", k, TENSOR_HEAD);
    for (uint32_t i = 0; i < k; i++) tensor_row(f, d, v[i], -1);
    fprintf(f, "</table></details>\n");
    free(v);
}

static void overflow_table(FILE *f, const rpt_data *d) {
    const lg_precision_report *r = d->cmp;
    if (!r->n_overflows) { fprintf(f, "<p>No overflow event (no inf/NaN born in the emulated run where f32 is finite).</p>\n"); return; }
    const char *head = "<tr><th class=\"n\">op</th><th>op name</th><th class=\"n\">tensor</th><th>name</th>"
                       "<th class=\"n\">inf/NaN</th><th class=\"n\">f32 max |x|</th><th class=\"n\">inputs max |x|</th>"
                       "<th class=\"n\">reduced</th></tr>";
    fprintf(f, "<p>Overflow events (inf/NaN born in the op, finite in f32; half's largest value is 65504), marked "
               "&#9660; on the curve:</p>\n<table class=\"overflows\" id=\"overflows\">%s\n", head);
    for (uint32_t i = 0; i < r->n_overflows; i++) {
        const lg_overflow_event *e = &r->overflows[i];
        fold(f, i, r->n_overflows, "overflows", head);
        fprintf(f, "<tr><td class=\"n\">%d</td><td>", e->op);
        rpt_esc(f, op_name(d, e->op));
        fprintf(f, "</td><td class=\"n\">%d</td><td class=\"mono\">", e->tensor);
        rpt_esc(f, tname(d->cur.m, e->tensor));
        fprintf(f, "</td><td class=\"n\">%lld</td><td class=\"n\">%.6g</td><td class=\"n\">%.6g</td><td class=\"n\">%lld</td></tr>\n",
                (long long)e->n_inf, e->ref_max_abs, e->input_max_abs, (long long)e->reduced);
    }
    fold_end(f, r->n_overflows);
}

static void section_precision(FILE *f, const rpt_data *d, rpt_stats *st) {
    const lg_precision_report *r = d->cmp;
    fprintf(f, "<h2 id=\"precision\">Emulated GPU precision</h2>\n");
    if (!r) { fprintf(f, "<p class=\"bad\">not measured: "); rpt_esc(f, d->run_error); fprintf(f, "</p>\n"); return; }
    fprintf(f, "<p>f32 against <b>%s</b> (%s) on ", lg_precision_name(r->precision),
            r->precision == LG_PREC_F16 ? "half storage and arithmetic, each kernel's own accumulator"
                                        : "half storage, fp32 arithmetic");
    for (uint32_t i = 0; i < d->n_inputs; i++) {
        fprintf(f, "%s<code>", i ? ", " : "");
        rpt_esc(f, d->input_names[i]);
        fprintf(f, "</code> = <code>");
        rpt_esc(f, d->input_sources[i]);
        fprintf(f, "</code>");
    }
    fprintf(f, ". Verdict: <span id=\"precision-verdict\" class=\"%s\">%s</span>", r->ok ? "ok" : "bad",
            r->ok ? "WITHIN TOLERANCE" : "DIVERGES");
    if (r->worst_output >= 0) {
        const lg_tensor_cmp *o = &r->outputs[r->worst_output];
        fprintf(f, "; worst output %d <code>", r->worst_output);
        rpt_esc(f, o->name);
        fprintf(f, "</code>: score ");
        num_or_na(f, false, o->v.score);
        fprintf(f, " (%s", "");
        num_or_na(f, false, o->v.severity);
        fprintf(f, "x its tolerance)");
    }
    fprintf(f, ".</p>\n<p>Each point is an op (run order) and its worst output tensor's score: rms(f16 - f32) / the f32 "
               "output's std (its magnitude when constant, at least 2<sup>-14</sup>), on a log scale; an op passes when "
               "its score is at most the tolerance %g and it makes no new inf/NaN (inf plots at the top; "
               "<code>litegpu compare</code> judges the same way).</p>\n", r->judge.tol);
    rpt_svg_error_curve(f, d, st);
    if (st->n_exact_ops)
        fprintf(f, "<p>%u op(s) are exact in %s (score 0: folded fp16 weights, copies) and are not drawn.</p>\n",
                st->n_exact_ops, lg_precision_name(r->precision));
    if (r->first_divergent_op >= 0) {
        fprintf(f, "<p id=\"first-divergent\" data-op=\"%d\" data-tensor=\"%d\"><b class=\"bad\">First divergent op: %d ",
                r->first_divergent_op, r->first_divergent_tensor, r->first_divergent_op);
        rpt_esc(f, op_name(d, r->first_divergent_op));
        fprintf(f, "</b>, tensor %d <code>", r->first_divergent_tensor);
        rpt_esc(f, tname(d->cur.m, r->first_divergent_tensor));
        fprintf(f, "</code>: ");
        rpt_esc(f, r->first_divergent_why);
        fprintf(f, "</p>\n");
    } else {
        fprintf(f, "<p id=\"first-divergent\" data-op=\"-1\" class=\"ok\">No op diverges.</p>\n");
    }
    overflow_table(f, d);
    worst_tensors(f, d);
    fprintf(f, "<p>The graph outputs:</p>\n<table id=\"outputs\"><tr><th class=\"n\">output</th><th></th><th class=\"n\">"
               "tensor</th><th>name</th><th class=\"n\">score</th><th class=\"n\">max_rel</th><th class=\"n\">pearson</th>"
               "<th class=\"n\">inf/nan</th><th>judge</th></tr>\n");
    for (uint32_t k = 0; k < r->n_outputs; k++) tensor_row(f, d, &r->outputs[k], (int)k);
    fprintf(f, "</table>\n");
}

/* ---- (d) memory */

static void section_memory(FILE *f, const rpt_data *d, rpt_stats *st) {
    const lg_mem_plan *p = d->plan;
    char b1[32], b2[32], b3[32];
    fprintf(f, "<h2 id=\"memory-plan\">Activation memory</h2>\n");
    if (!p) { fprintf(f, "<p class=\"bad\">not planned: "); rpt_esc(f, d->run_error); fprintf(f, "</p>\n"); return; }
    fprintf(f, "<p>The interpreter's plan (tensor lifetimes, buffers reused greedily by size as TFLite's arena planner "
               "does; <code>litegpu bench</code> prints the same): arena <span id=\"arena-bytes\" data-bytes=\"%llu\">%s</span>, "
               "peak live <span id=\"peak-bytes\" data-bytes=\"%llu\">%s</span> at op <span id=\"peak-op\">%d</span> ",
            (unsigned long long)p->arena_bytes, rpt_bytes(b1, sizeof b1, p->arena_bytes),
            (unsigned long long)p->peak_live_bytes, rpt_bytes(b2, sizeof b2, p->peak_live_bytes), p->peak_op);
    rpt_esc(f, op_name(d, p->peak_op));
    fprintf(f, " with %u tensors live; constants %s mapped from the file.</p>\n", p->n_peak_tensors,
            rpt_bytes(b3, sizeof b3, p->const_bytes));
    rpt_svg_memory(f, d, st);
    if (p->n_peak_tensors) {
        fprintf(f, "<details><summary>the %u tensors live at the peak</summary>\n<table id=\"peak-tensors\"><tr><th class=\"n\">"
                   "tensor</th><th>name</th><th>shape</th><th>type</th></tr>\n", p->n_peak_tensors);
        const lg_subgraph *sg = &d->cur.m->subgraphs[0];
        for (uint32_t i = 0; i < p->n_peak_tensors && i < 200; i++) {
            const lg_tensor *t = &sg->tensors[p->peak_tensors[i]];
            fprintf(f, "<tr><td class=\"n\">%d</td><td class=\"mono\">", p->peak_tensors[i]);
            rpt_esc(f, t->name);
            fprintf(f, "</td><td class=\"mono\">");
            shape(f, t->shape, t->rank);
            fprintf(f, "</td><td>%s</td></tr>\n", lg_dtype_name(t->type));
        }
        fprintf(f, "</table></details>\n");
    }
}

/* ---- (e) latency */

static int cmp_op_ms(const void *a, const void *b, void *ud) {
    const double *ms = ud;
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    if (ms[x] != ms[y]) return ms[x] > ms[y] ? -1 : 1;
    return x - y;
}

static void top_ops(FILE *f, const rpt_data *d) {
    uint32_t n = d->n_ops, k = n < 15 ? n : 15;
    int32_t *ix = malloc((n ? n : 1) * sizeof *ix);
    if (!ix) return;
    for (uint32_t i = 0; i < n; i++) ix[i] = (int32_t)i;
    /* a selection of the k largest (k is small) */
    for (uint32_t i = 0; i < k; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if (cmp_op_ms(&ix[j], &ix[i], d->op_ms) < 0) { int32_t t = ix[i]; ix[i] = ix[j]; ix[j] = t; }
    fprintf(f, "<details><summary>the %u slowest ops</summary>\n<table id=\"top-ops\"><tr><th class=\"n\">op</th><th>op name"
               "</th><th>first output</th><th class=\"n\">ms</th><th class=\"n\">%%</th></tr>\n", k);
    const lg_subgraph *sg = &d->cur.m->subgraphs[0];
    for (uint32_t i = 0; i < k; i++) {
        const lg_op *op = &sg->ops[ix[i]];
        fprintf(f, "<tr><td class=\"n\">%d</td><td>", ix[i]);
        rpt_esc(f, lg_op_name(d->cur.m, op));
        fprintf(f, "</td><td class=\"mono\">");
        if (op->n_outputs) rpt_esc(f, tname(d->cur.m, op->outputs[0]));
        fprintf(f, "</td><td class=\"n\">%.4f</td><td class=\"n\">%.1f</td></tr>\n", d->op_ms[ix[i]],
                d->op_ms_sum > 0 ? 100 * d->op_ms[ix[i]] / d->op_ms_sum : 0);
    }
    fprintf(f, "</table></details>\n");
    free(ix);
}

static void section_latency(FILE *f, const rpt_data *d) {
    fprintf(f, "<h2 id=\"latency\">Latency</h2>\n");
    if (!d->plan) { fprintf(f, "<p class=\"bad\">not measured: "); rpt_esc(f, d->run_error); fprintf(f, "</p>\n"); return; }
    fprintf(f, "<p>The reference interpreter on this machine (f32, one thread; not the phone): whole run median "
               "<span id=\"run-ms\">%.3f</span> ms.", d->run_ms);
    if (!d->op_ms || !d->n_by_type) { fprintf(f, " No per-op times.</p>\n"); return; }
    fprintf(f, " By op type (as LiteRT's <code>benchmark_model</code> summarizes): ");
    rpt_esc(f, d->time_source);
    fprintf(f, " (mean of %u runs; their sum %.3f ms per run).</p>\n", d->n_time_runs, d->op_ms_sum);
    fprintf(f, "<table id=\"by-type\"><tr><th>op type</th><th class=\"n\">count</th><th class=\"n\">ms</th>"
               "<th class=\"n\">avg ms</th><th class=\"n\">%%</th><th class=\"n\">cdf %%</th></tr>\n");
    double cdf = 0;
    for (uint32_t i = 0; i < d->n_by_type; i++) {
        const rpt_type_time *t = &d->by_type[i];
        double pc = d->op_ms_sum > 0 ? 100 * t->ms / d->op_ms_sum : 0;
        cdf += pc;
        fprintf(f, "<tr><td>");
        rpt_esc(f, t->op);
        fprintf(f, "</td><td class=\"n\">%u</td><td class=\"n\">%.4f</td><td class=\"n\">%.4f</td><td class=\"n\">%.2f</td>"
                   "<td class=\"n\">%.2f</td></tr>\n",
                t->count, t->ms, t->count ? t->ms / t->count : 0, pc, cdf);
    }
    fprintf(f, "</table>\n");
    top_ops(f, d);
}

/* ---- (f) before / after */

static uint32_t census_count(const lg_info *in, const char *op) {
    if (!in || !in->n_subgraphs) return 0;
    const lg_info_subgraph *sg = &in->subgraphs[0];
    for (uint32_t i = 0; i < sg->n_ops_census; i++)
        if (strcmp(sg->ops[i].name, op) == 0) return sg->ops[i].count;
    return 0;
}

static void ba_cell_check(FILE *f, const rpt_model *x) {
    fprintf(f, "<td>");
    if (x->check) fprintf(f, "<span class=\"%s\">%s</span>, %u blocker(s), %u warning(s)", x->check->ready ? "ok" : "bad",
                          x->check->ready ? "READY" : "NOT READY", x->check->n_blockers, x->check->n_warnings);
    else rpt_esc(f, x->error);
    fprintf(f, "</td>");
}

static void ba_row_u(FILE *f, const char *what, uint64_t a, uint64_t b) {
    fprintf(f, "<tr><th>%s</th><td class=\"n\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">%+lld</td></tr>\n", what,
            (unsigned long long)a, (unsigned long long)b, (long long)b - (long long)a);
}

static void ba_census(FILE *f, const lg_info *a, const lg_info *b) {
    fprintf(f, "<table id=\"ba-census\"><tr><th>op</th><th class=\"n\">before</th><th class=\"n\">after</th>"
               "<th class=\"n\">change</th></tr>\n");
    const lg_info *both[2] = {a, b};
    for (int w = 0; w < 2; w++) {
        if (!both[w] || !both[w]->n_subgraphs) continue;
        const lg_info_subgraph *sg = &both[w]->subgraphs[0];
        for (uint32_t i = 0; i < sg->n_ops_census; i++) {
            const char *op = sg->ops[i].name;
            if (w == 1 && census_count(a, op)) continue; /* listed with before's */
            uint32_t ca = census_count(a, op), cb = census_count(b, op);
            fprintf(f, "<tr><td>");
            rpt_esc(f, op);
            fprintf(f, "</td><td class=\"n\">%u</td><td class=\"n\">%u</td><td class=\"n\">%+d</td></tr>\n", ca, cb,
                    (int)cb - (int)ca);
        }
    }
    fprintf(f, "</table>\n");
}

static void section_before_after(FILE *f, const rpt_data *d) {
    if (!d->before.path && !d->writer) return;
    fprintf(f, "<h2 id=\"before-after\">Before / after</h2>\n");
    if (d->writer) {
        fprintf(f, "<p>This model was written by <code>litegpu %s</code> (its metadata <code>", strchr(d->writer, '.') + 1);
        rpt_esc(f, d->writer);
        fprintf(f, "</code>):</p>\n<pre id=\"writer-metadata\">");
        rpt_esc(f, d->writer_json);
        fprintf(f, "</pre>\n");
        if (!d->before.path)
            fprintf(f, "<p>The metadata does not name the original model: <code>litegpu report MODEL --before ORIGINAL</code> "
                       "puts the two side by side.</p>\n");
    }
    if (!d->before.path) return;
    const lg_info *a = d->before.info, *b = d->cur.info;
    fprintf(f, "<table id=\"ba\"><tr><th></th><th>before</th><th>after</th><th>change</th></tr>\n<tr><th>file</th><td class=\"mono\">");
    rpt_esc(f, d->before.path);
    fprintf(f, "</td><td class=\"mono\">");
    rpt_esc(f, d->cur.path);
    fprintf(f, "</td><td></td></tr>\n<tr><th>check</th>");
    ba_cell_check(f, &d->before);
    ba_cell_check(f, &d->cur);
    fprintf(f, "<td></td></tr>\n");
    if (a && b) {
        ba_row_u(f, "size (bytes)", a->file_size, b->file_size);
        if (a->n_subgraphs && b->n_subgraphs) {
            ba_row_u(f, "ops", a->subgraphs[0].n_ops, b->subgraphs[0].n_ops);
            ba_row_u(f, "tensors", a->subgraphs[0].n_tensors, b->subgraphs[0].n_tensors);
        }
        ba_row_u(f, "weight bytes", a->weights.bytes, b->weights.bytes);
        ba_row_u(f, "parameters", a->weights.params, b->weights.params);
    }
    if (d->before.check && d->cur.check) {
        ba_row_u(f, "blockers", d->before.check->n_blockers, d->cur.check->n_blockers);
        ba_row_u(f, "warnings", d->before.check->n_warnings, d->cur.check->n_warnings);
        ba_row_u(f, "ops on the GPU", d->before.check->n_gpu_ops, d->cur.check->n_gpu_ops);
    }
    fprintf(f, "</table>\n");
    if (a && b) ba_census(f, a, b);
}

/* ---- the page */

static void summary_box(FILE *f, const rpt_data *d) {
    char b[32];
    fprintf(f, "<div class=\"summary\" id=\"summary\"><b>At a glance.</b> ");
    if (d->cur.check) verdict_line(f, d->cur.check, false);
    else fprintf(f, "check: n/a");
    fprintf(f, ".<br>");
    if (d->cmp) {
        fprintf(f, "%s: <span class=\"%s\">%s</span>", lg_precision_name(d->cmp->precision), d->cmp->ok ? "ok" : "bad",
                d->cmp->ok ? "within tolerance" : "diverges");
        if (d->cmp->first_divergent_op >= 0) {
            fprintf(f, ", first at op %d ", d->cmp->first_divergent_op);
            rpt_esc(f, op_name(d, d->cmp->first_divergent_op));
        }
        fprintf(f, "; %u overflow event(s)", d->cmp->n_overflows);
    } else {
        fprintf(f, "precision: not measured");
    }
    if (d->plan)
        fprintf(f, ".<br>Peak activations %s at op %d; whole run %.2f ms (f32, reference interpreter)",
                rpt_bytes(b, sizeof b, d->plan->peak_live_bytes), d->plan->peak_op, d->run_ms);
    fprintf(f, ".</div>\n");
}

int rpt_write_html(FILE *f, const rpt_data *d, rpt_stats *st) {
    memset(st, 0, sizeof *st);
    const char *base = strrchr(d->cur.path, '/');
    base = base ? base + 1 : d->cur.path;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<meta name=\"generator\" content=\"litegpu %s\">\n<title>litegpu report: ",
            lg_version());
    rpt_esc(f, base);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>litegpu report: <span class=\"mono\">", CSS);
    rpt_esc(f, base);
    fprintf(f, "</span></h1>\n");
    summary_box(f, d);
    section_model(f, d);
    section_check(f, d, st);
    section_precision(f, d, st);
    section_memory(f, d, st);
    section_latency(f, d);
    section_before_after(f, d);
    fprintf(f, "<footer>Written by litegpu %s (<code>litegpu report</code>). A self-contained page: inline CSS and SVG, "
               "no script, nothing fetched.</footer>\n</body>\n</html>\n",
            lg_version());
    return ferror(f) ? -1 : 0;
}
