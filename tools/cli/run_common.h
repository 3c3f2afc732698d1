/* Inputs and output folders for run, compare, bench and verify. */
#ifndef LG_CLI_RUN_COMMON_H
#define LG_CLI_RUN_COMMON_H
#include <stdbool.h>
#include "lg/run.h"

typedef struct cli_inputs {
    void **data;      /* per input: data in the input's storage type (float32 for floats) */
    uint32_t n;
} cli_inputs;

/* Inputs for it: --input NAME=FILE.npy (name or index), the rest filled with fill
   ("half" if NULL). A file's shape must be the input's: a different shape with the same
   element count (a NCHW array for an NHWC input) is refused naming both shapes, and a flat
   (rank-1) array is taken in C order only with allow_flat (run --allow-flat). Returns 0 or
   CLI_ERROR (printed). */
int cli_inputs_make_ex(const lg_interp *it, const char *const *specs, int n_specs, const char *fill,
                       bool allow_flat, cli_inputs *in);
/* The same for a chain's inputs (a split model), and for any list of input views. */
int cli_inputs_make_chain(const lg_chain *c, const char *const *specs, int n_specs, const char *fill,
                          bool allow_flat, cli_inputs *in);
int cli_inputs_make_views(const lg_tensor_view *views, uint32_t n, const char *const *specs, int n_specs,
                          const char *fill, bool allow_flat, cli_inputs *in);
/* The same with allow_flat false. */
int cli_inputs_make(const lg_interp *it, const char *const *specs, int n_specs, const char *fill,
                    cli_inputs *in);
int cli_inputs_set(lg_interp *it, const cli_inputs *in);
int cli_inputs_set_chain(lg_chain *c, const cli_inputs *in);
void cli_inputs_free(cli_inputs *in);

/* ---- calibration sets (--calib DIR): for a model with one input, every .npy file in DIR is
   one input set; with several inputs, every subfolder of DIR is one set holding NAME.npy per
   input (by name or index: 0.npy). Sets in name order; at most max_sets. Each set's arrays are
   checked like --input. Returns 0 or CLI_ERROR (printed). */
typedef struct cli_calib {
    cli_inputs *sets;
    uint32_t n;
    const float *const **ptrs; /* per set: its float data per input (for the library) */
    char (*names)[256];        /* per set: the file or subfolder name */
} cli_calib;
/* Where input i (view v) got its data: the last --input spec NAME=FILE or INDEX=FILE naming it
   (its FILE), else fill. */
const char *cli_input_source(const lg_tensor_view *v, uint32_t i, const char *const *specs, int n_specs,
                             const char *fill);

/* ---- timing (bench, evidence records): a monotonic clock in ms, and the statistics of a set of
   timed runs: sorts t[0..n) ascending, then the median (mean of the middle two when n is even),
   the nearest-rank 95th percentile (p95 = t[ceil(0.95 n) - 1]) and the minimum. */
double cli_now_ms(void);
void cli_time_stats(double *t, int n, double *median, double *p95, double *min);

int cli_calib_load(const lg_tensor_view *views, uint32_t n_inputs, const char *dir, uint32_t max_sets,
                   cli_calib *c);
void cli_calib_free(cli_calib *c);

/* ---- output folders, made all at once: the files go into a temporary folder next to the
   target (".NAME.litegpu-XXXXXX", mode 0777 & ~umask), which becomes the target on commit.
   A run that fails leaves nothing behind (abort removes the temporary folder), so a retry is
   never refused. The target may not exist (it is created by a rename), or be an empty folder,
   or, with force, a non-empty one: then the new files are moved into it one by one at commit
   (existing files of the same name replaced under the rules of cli_output_check; the rest are
   left alone). A symbolic link, or anything that is not a folder, is refused. */
typedef struct cli_outdir {
    char path[4096];   /* the target, as given (trailing slashes removed) */
    char work[4096];   /* write the files here (cli_outdir_file) */
    bool force;
    bool active;       /* work exists and is ours */
} cli_outdir;

/* Check the target and create the temporary folder. 0 or CLI_ERROR (printed). */
int cli_outdir_begin(cli_outdir *od, const char *dir, bool force);
/* "work/name" into buf (n bytes); returns buf. */
const char *cli_outdir_file(const cli_outdir *od, const char *name, char *buf, size_t n);
/* Move the files into place. 0 or CLI_ERROR (printed; the temporary folder is removed). */
int cli_outdir_commit(cli_outdir *od);
/* Remove the temporary folder and everything in it (no-op if not active). */
void cli_outdir_abort(cli_outdir *od);

/* The old check-only form, kept for callers not yet moved to cli_outdir: create dir, or
   accept an existing empty one (or any with force); a link or non-folder is refused.
   0 or CLI_ERROR. */
int cli_out_dir(const char *dir, bool force);
#endif
