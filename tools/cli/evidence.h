/* Evidence records (issue #14 item 6): one folder holding the handbook's experiment contract
   (seed 001, chapter 16, "A reusable experiment contract") filled by a verb that wrote a model.

   Layout of DIR (every file but SHA256SUMS is listed in SHA256SUMS, `sha256sum -c` format):
     contract.json     the contract: baseline/candidate sha256, the one primary change, checks,
                       measurements (parameters, file sizes, planned activation memory, output
                       error of the candidate against the baseline on the evaluation inputs),
                       known limitations, decision "not_evaluated", rollback artifact.
                       Byte-identical for the same inputs and flags (no clock, no timing).
     measurements_timing.json  latency median / p95 of both models (reference interpreter,
                       fp32, one thread): wall-clock, so it varies run to run; listed in
                       SHA256SUMS but outside the determinism of contract.json
     environment.json  tool version, compiler, OS, CPU model (no date)
     command.txt       the exact argv, one argument per line
     baseline.<ext>    a copy of the input model (.tflite or .onnx)
     candidate.tflite  a copy of the written model
     SHA256SUMS
   The folder is written as DIR.tmp-XXXXXX and renamed to DIR at the end; an existing DIR (a
   folder, a file or a symbolic link) is refused. `litegpu evidence DIR` verifies a record. */
#ifndef LG_CLI_EVIDENCE_H
#define LG_CLI_EVIDENCE_H
#include <stdbool.h>
#include <stddef.h>
#include "cli.h"

typedef struct cli_evidence {
    const char *dir;          /* must not exist */
    const char *verb;         /* "fix" */
    int argc; char **argv;    /* the verb's argv as received (argv[0] = verb name) */
    const char *baseline;     /* input model path */
    const char *candidate;    /* written model path */
    const char *hypothesis;   /* one sentence, or NULL */
    const char *change_json;  /* a JSON object text: the one primary change + parameters; NULL = {} */
    const char *checks_json;  /* a JSON array text: structural checks + figures; NULL = [] */
    const char *calib;        /* evaluation inputs folder (recorded), or NULL */
    /* ---- added fields (zero = the default) */
    const cli_onnx_options *onnx; /* an ONNX baseline is imported with these for the measurements
                                     (convert's flags); NULL: convert's defaults */
    int runs;                 /* timed runs per model for the latency (0: 5), after 1 warm-up */
    bool calib_is_fit;        /* the evaluation inputs are the ones the change was fitted on
                                 (calibration): recorded as a limitation */
    const char *recovery;     /* the recovery applied (e.g. "least-squares refit of the consumer on
                                 DIR"), or NULL: "none" */
} cli_evidence;

/* Write the record. CLI_OK (0), or CLI_ERROR (2) with one line printed. Measures both models
   first (evidence_measure.c); a measurement that cannot be made is null with its reason in
   known_limitations. Prints nothing on success. */
int cli_evidence_write(const cli_evidence *e);

/* 0 when dir may be created (does not exist), or CLI_ERROR printed. Call before the work. */
int cli_evidence_check(const char *dir);

/* --evidence DIR [--evidence-runs N] of a verb, before the work: dir NULL with runs_s given is
   a usage error; otherwise cli_evidence_check(dir) and N (1..1000) into *runs (0 when not
   given). CLI_OK or CLI_ERROR (printed). */
int cli_evidence_begin(const char *dir, const char *runs_s, int *runs);

/* sha256 (hex) and size of a file: 0, or -1 when it cannot be read. */
int cli_evidence_file_sha(const char *path, char hex[65], size_t *size);

/* ---- the records of convert, fix and quantize (evidence_verbs.c): the change and the checks
   from the library's report of the run, then cli_evidence_write. CLI_OK or CLI_ERROR. */
struct lg_pass_report;
struct lg_fix_report;
struct lg_quant_report;
struct lg_quant_file;
/* oo: the ONNX import flags, NULL for a .tflite input; rep: --optimize's report or NULL */
int cli_evidence_convert(const char *dir, int runs, int argc, char **argv, const char *in, const char *out,
                         const cli_onnx_options *oo, bool optimize, bool external, const struct lg_pass_report *rep);
typedef struct cli_evidence_fix_flags {
    const char *dir; int runs; int argc; char **argv;
    const char *model, *out, *calib;
    bool allow_approx, warnings, io_int32;
    const char *outputs;
    const char *const *shapes; int n_shapes;
    const char *const *freezes; int n_freezes;
} cli_evidence_fix_flags;
int cli_evidence_fix(const cli_evidence_fix_flags *f, const struct lg_fix_report *r);
typedef struct cli_evidence_quantize_flags {
    const char *dir; int runs; int argc; char **argv;
    const char *model, *out, *calib, *eval;
    const char *const *exclude;                 /* r->n_exclude patterns */
    const struct lg_quant_file *calib_files; unsigned n_calib_files;
} cli_evidence_quantize_flags;
int cli_evidence_quantize(const cli_evidence_quantize_flags *f, const struct lg_quant_report *r);

/* change_json / checks_json text built with the JSON writer (one line: open the top container
   with json_obj_open_flat / json_arr_open_flat):
       cli_jtext t; if (cli_jtext_open(&t)) ...; json_obj_open_flat(&t.j); ... json_obj_close(&t.j);
       char *text = cli_jtext_close(&t);   // malloc'd (free), NULL when out of memory */
#include "json.h"
typedef struct cli_jtext { FILE *f; char *buf; size_t len; json_w j; } cli_jtext;
int cli_jtext_open(cli_jtext *t);    /* 0, or CLI_ERROR printed */
char *cli_jtext_close(cli_jtext *t);

/* ---- measurements (evidence_measure.c), for the writer */
#define EV_MAX_LIMITS 24
typedef struct ev_side {
    bool loaded;              /* the model was read (and imported) */
    bool have_params; unsigned long long n_params;
    bool runs;                /* an interpreter could be made */
    unsigned long long arena_bytes, peak_live_bytes;
    bool have_latency; double median_ms, p95_ms, min_ms, first_ms;
} ev_side;

typedef struct ev_output {
    char name[128];
    long long numel;
    unsigned n_cases;
    double max_abs, ref_max_abs, max_rel, rms; /* max_rel NaN: the reference is all zero */
    bool vector;              /* last dimension > 1: argmax compared per row */
    long long argmax_equal, argmax_rows;
} ev_output;

typedef struct ev_measure {
    ev_side before, after;
    int runs;                 /* timed runs per model */
    bool have_error;          /* output error measured */
    ev_output *outputs; unsigned n_outputs;
    const char *eval_source;  /* "folder" or "pattern fill" */
    unsigned n_cases;
    char inputs_sha256[65];   /* of the float32 input data fed, set by set, input by input */
    char limits[EV_MAX_LIMITS][400]; unsigned n_limits;
    char *interface_json;     /* {"baseline": {inputs, outputs}, "candidate": ..., "same": b} (malloc'd) or NULL */
    bool same_interface;      /* names, dtypes and shapes of the inputs and outputs equal */
    bool change_ok, checks_ok; /* the verb's texts are a JSON object / array (else kept as strings) */
} ev_measure;

void ev_measure_run(const cli_evidence *e, ev_measure *m);
void ev_measure_free(ev_measure *m);
/* The "measurements" object and the timing file's object, written at indent 2 / 0. */
void ev_measure_write(FILE *f, const cli_evidence *e, const ev_measure *m, size_t bsize, size_t csize);
void ev_timing_write(FILE *f, const ev_measure *m);
#endif
