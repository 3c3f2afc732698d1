/* litegpu report: the data a report holds (gathered by cmd_report.c from the library's info,
   check, compare and memory plan) and the self-contained HTML writer (report_html.c, with the
   SVG charts in report_svg.c). The page loads nothing: inline CSS and SVG, no script, and a
   Content-Security-Policy that forbids every fetch, so a mailed report cannot reach the
   network. Every string from a model (tensor names, descriptions, metadata) is HTML-escaped. */
#ifndef LG_CLI_REPORT_HTML_H
#define LG_CLI_REPORT_HTML_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lg/check.h"
#include "lg/compare.h"
#include "lg/info.h"
#include "lg/run.h"

/* One model at a glance: its summary and GPU check (either may be NULL, with why). */
typedef struct rpt_model {
    const char *path;
    const lg_model *m;
    lg_info *info;
    lg_check_report *check;
    char error[520];            /* why info or check is missing ("" otherwise) */
} rpt_model;

/* The latency of one op type (the by-type table, as benchmark_model prints it). */
typedef struct rpt_type_time {
    const char *op;             /* op name (the model's strings) */
    uint32_t count;
    double ms;                  /* total per run over the ops of this type */
} rpt_type_time;

typedef struct rpt_data {
    rpt_model cur;
    rpt_model before;           /* --before ORIGINAL (path NULL when not given) */
    const char *writer;         /* "litegpu.quantize" / "litegpu.fix" / ... metadata name, or NULL */
    char *writer_json;          /* its content (owned, NUL-terminated), or NULL */
    /* inputs of the runs */
    uint32_t n_inputs;
    const char **input_names;   /* per input (the model's strings) */
    const char **input_sources; /* per input: the .npy file or the fill */
    /* (c) the fp16 error curve */
    const lg_precision_report *cmp; /* NULL when compare could not run (run_error says why) */
    /* (d), (e): the f32 interpreter */
    const lg_mem_plan *plan;    /* NULL when the model cannot run */
    uint32_t n_ops;             /* ops of subgraph 0 */
    char run_error[520];
    double run_ms;              /* median whole run (f32, no tap) */
    uint32_t n_time_runs;       /* runs the per-op times average over */
    double *op_ms;              /* per op: mean ms per run from the tap's timestamps (NULL: none) */
    double op_ms_sum;           /* their sum (the run with the tap) */
    const char *time_source;    /* how op_ms was measured (one sentence) */
    rpt_type_time *by_type;     /* filled by rpt_profile_by_type (cmd_report.c) */
    uint32_t n_by_type;
} rpt_data;

/* Figures of the written page (the --json summary and the tests read them). */
typedef struct rpt_stats {
    uint32_t n_curve_points;    /* ops with a point on the error curve */
    uint32_t n_exact_ops;       /* ops with float outputs and score 0, left off the curve */
    uint32_t n_mem_points;
    uint32_t n_findings;
} rpt_stats;

/* The page. 0, or -1 on a write error. */
int rpt_write_html(FILE *f, const rpt_data *d, rpt_stats *st);

/* ---- pieces shared by report_html.c and report_svg.c */
/* s HTML-escaped (& < > " '), control characters as U+FFFD; NULL writes nothing. */
void rpt_esc(FILE *f, const char *s);
/* The error curve: one point per op that produced float tensors (the op's worst judge score,
   log scale), the tolerance line, the first divergent op and the overflow events marked. */
void rpt_svg_error_curve(FILE *f, const rpt_data *d, rpt_stats *st);
/* The activation-memory timeline: live bytes per op, the peak op marked. */
void rpt_svg_memory(FILE *f, const rpt_data *d, rpt_stats *st);
/* The curve's points: per op that produced float tensors (r->tensors, in op order), the op and
   its worst judge score (the largest over its tensors; NaN, no finite pair, counts as +inf).
   ops and scores hold r->n_tensors entries; returns the number of points. */
uint32_t rpt_curve_points(const lg_precision_report *r, int32_t *ops, double *scores);
/* Bytes as "12.3 KiB". */
const char *rpt_bytes(char *buf, size_t n, uint64_t b);

#endif
