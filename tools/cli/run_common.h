/* Inputs and output folders for run, compare and bench. */
#ifndef LG_CLI_RUN_COMMON_H
#define LG_CLI_RUN_COMMON_H
#include <stdbool.h>
#include "lg/run.h"

typedef struct cli_inputs {
    void **data;      /* per input: data in the input's storage type (float32 for floats) */
    uint32_t n;
} cli_inputs;

/* Inputs for it: --input NAME=FILE.npy (name or index), the rest filled with fill
   ("half" if NULL). Returns 0 or CLI_ERROR (printed). */
int cli_inputs_make(const lg_interp *it, const char *const *specs, int n_specs, const char *fill,
                    cli_inputs *in);
int cli_inputs_set(lg_interp *it, const cli_inputs *in);
void cli_inputs_free(cli_inputs *in);
/* Create dir, or accept an existing empty one (or any with force). 0 or CLI_ERROR. */
int cli_out_dir(const char *dir, bool force);
#endif
