/* Shared pieces of the litegpu CLI: the verb table, error reporting, option parsing and
   model input. The CLI is a client of the public API (include/lg/) only.

   Exit codes: 0 ok, 1 findings (verbs that report problems), 2 usage or input error.
   Every error is one line on stderr: "litegpu: error: <msg>". */
#ifndef LG_CLI_H
#define LG_CLI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "lg/lg.h"

enum { CLI_OK = 0, CLI_FINDINGS = 1, CLI_ERROR = 2 };

typedef struct cli_verb cli_verb;
/* argv[0] is the verb name; returns the exit code. */
typedef int (*cli_verb_fn)(const cli_verb *v, int argc, char **argv);

struct cli_verb {
    const char *name;
    cli_verb_fn fn;
    const char *summary;  /* one line (no newline) for `litegpu help` */
    const char *usage;    /* "litegpu info MODEL [--json]" */
    const char *help;     /* the rest of `litegpu help VERB`: arguments and options */
};

/* verbs (cmd_*.c) */
int cmd_info(const cli_verb *v, int argc, char **argv);
int cmd_convert(const cli_verb *v, int argc, char **argv);
int cmd_check(const cli_verb *v, int argc, char **argv);
int cmd_fix(const cli_verb *v, int argc, char **argv);
int cmd_quantize(const cli_verb *v, int argc, char **argv);
int cmd_lowrank(const cli_verb *v, int argc, char **argv);
int cmd_ablate(const cli_verb *v, int argc, char **argv);
int cmd_taps(const cli_verb *v, int argc, char **argv);
int cmd_run(const cli_verb *v, int argc, char **argv);
int cmd_compare(const cli_verb *v, int argc, char **argv);
int cmd_bench(const cli_verb *v, int argc, char **argv);
int cmd_verify(const cli_verb *v, int argc, char **argv);
int cmd_evidence(const cli_verb *v, int argc, char **argv);
int cmd_tile(const cli_verb *v, int argc, char **argv);
int cmd_prune(const cli_verb *v, int argc, char **argv);
int cmd_report(const cli_verb *v, int argc, char **argv);
extern const char cli_prune_summary[], cli_prune_usage[], cli_prune_help[]; /* cmd_prune.c */

/* run's usage line and help (cmd_run.c), for its entry in the verb table (main.c). */
extern const char cli_run_usage[];
extern const char cli_run_help[];

/* Prints "litegpu: error: <msg>" and returns CLI_ERROR. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, with " (usage: <v->usage>)" appended. */
int cli_usage_error(const cli_verb *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error from the library, naming path when the message does not already. */
int cli_lib_error(const char *path, const lg_error *err);
void cli_verb_help(const cli_verb *v, FILE *f);
/* A file name in text output: as is when it is plain printable ASCII without quotes or
   backslashes, otherwise quoted and escaped (so the line stays one line). */
void cli_write_path(FILE *f, const char *path);

/* ---- ONNX import for convert (tools/cli/convert_onnx.c) */
typedef struct lg_import_report lg_import_report;
typedef struct json_w json_w;
typedef struct cli_onnx_options {
    const char *const *shapes; int n_shapes;   /* --input-shape NAME=d0,d1,... */
    bool nhwc_io;
    bool weights_fp16;
    bool report;                               /* print every node's lowering */
    bool json;                                 /* the report as JSON (before convert's own) */
} cli_onnx_options;
/* Read and import an ONNX file into *m; *rep (lg_import_report_free) says how each node was
   lowered. CLI_OK, or CLI_ERROR with one line printed (an unsupported node: its name, op
   type, domain and opset; with o->report the whole report first). */
int cli_onnx_import(const char *path, const cli_onnx_options *o, lg_model **m,
                    lg_import_report **rep);
void cli_onnx_report_text(const lg_import_report *r);
/* A model from a .tflite, or an ONNX file imported with convert's defaults (fix, quantize). */
int cli_load_model(const char *path, lg_model **m);
/* --input-shape NAME=D0,D1,... into name_buf and dims_buf (up to 8 dims). 0 or CLI_ERROR (printed). */
int cli_parse_shape(const char *spec, char *name_buf, size_t name_size, int64_t *dims_buf, uint32_t *rank);
void cli_onnx_report_json(json_w *j, const lg_import_report *r); /* an "import" key */

/* ---- options: a verb lists its flags; everything else that does not start with '-' is
   positional. "--" ends the options. --help / -h prints the verb's help. */
typedef struct cli_flag {
    const char *name;     /* "--json" */
    const char *alias;    /* "-o", or NULL */
    bool *set;            /* boolean flag: set to true */
    const char **value;   /* flag with a value ("-o OUT", "--output=OUT"); NULL if boolean */
    const char **list;    /* repeatable flag with a value: values appended here (value NULL) */
    int *n_list;
    int max_list;
} cli_flag;

/* Returns -1 to go on, or an exit code to return now (help shown: 0; error printed: 2). */
int cli_parse(const cli_verb *v, int argc, char **argv, const cli_flag *flags,
              const char **pos, int max_pos, int *n_pos);

/* ---- model input */
typedef enum cli_format { CLI_FORMAT_UNKNOWN = 0, CLI_FORMAT_TFLITE, CLI_FORMAT_ONNX } cli_format;

/* What a file's first bytes say it is. */
cli_format cli_format_detect(const uint8_t *p, size_t n);

/* A whole input file in memory, mapped. Only regular files are read (lg.h "files"). */
typedef struct cli_file {
    const char *path;
    const uint8_t *data;
    size_t size;
    void *map;            /* mmap address */
} cli_file;

/* The format of a model file from its first bytes: CLI_FORMAT_TFLITE or CLI_FORMAT_ONNX, or
   -1 with one error line printed (unreadable, empty, unknown). */
int cli_model_format(const char *path);

/* Open and map path. Returns 0, or prints one error line and returns CLI_ERROR. */
int cli_file_open(const char *path, cli_file *f);
void cli_file_close(cli_file *f);

/* Map path, check its format and read the model from the mapping. On success the caller
   frees *m (first) and then closes f. Returns 0 or CLI_ERROR (error printed). */
int cli_model_load(const char *path, cli_file *f, lg_model **m);

/* Check that path holds a model format we read, without reading it all. Returns 0 or
   CLI_ERROR (error printed). */
int cli_model_check_format(const char *path);

/* ---- outputs: every verb that writes a file goes through these (or through the library's
   writers, which apply the same rule, lg_output_check in lg.h "files"): an existing regular
   file is replaced only with force; a symbolic link, device (/dev/null), FIFO, socket or
   directory is refused even with force. Files get mode 0666 & ~umask (0644 under umask 022).
   For output folders see cli_outdir in run_common.h. */

/* True when writing out would replace in: the same canonical path, or (when out exists) the
   same file under another name (a hard link). Verbs that write a model refuse it. */
bool cli_same_file(const char *in, const char *out);

/* Write m to out atomically (lg_tflite_write_file: force replaces an existing regular file,
   external stores large buffers after the flatbuffer), then the size and sha256 (hex, 64
   characters) of what is on disk. CLI_OK, or CLI_ERROR with one line printed. */
int cli_write_model(const lg_model *m, const char *out, bool force, bool external, size_t *size, char hex[65]);

/* 0 when path may be written, or CLI_ERROR (printed). Call it before the work, so that a
   refused output fails fast. */
int cli_output_check(const char *path, bool force);
/* Check, then create/truncate path for writing (not atomic: for files inside a folder being
   made, e.g. cli_outdir's). Returns an fd, or -1 (printed). In a forked child, too. */
int cli_output_open(const char *path, bool force);
/* The same as a stdio stream ("w"), or NULL (printed). */
FILE *cli_output_fopen(const char *path, bool force);

#endif
