/* Split models on disk: OUT.split.json (written by `fix --split`) names the parts in run
   order and the tensors passing between them; `run` and `compare` take it where they take a
   model. Format (one object):
     {"litegpu_split": 1, "model": SOURCE, "target": T,
      "inputs": [NAME...], "outputs": [NAME...],          the whole chain's interface
      "parts": [{"file": F, "place": "gpu"|"cpu", "n_ops": N, "ok": READY,
                 "inputs": [NAME...], "outputs": [NAME...]}...]}
   A part's file is relative to the JSON's folder (no absolute path, no ".."). */
#ifndef LG_CLI_CHAIN_FILE_H
#define LG_CLI_CHAIN_FILE_H
#include <stdbool.h>
#include "cli.h"
#include "lg/run.h"

typedef struct cli_chain {
    lg_model **models;
    cli_file *files;
    uint32_t n;
    const char **in_names, **out_names;
    uint32_t n_in, n_out;
    void *root;           /* the parsed JSON (jv) */
    lg_chain *chain;
    uint32_t n_ops;       /* ops over every part */
} cli_chain;

/* Does path look like a split JSON (its first non-blank byte is '{')? */
bool cli_is_split_file(const char *path);
/* Load the parts and make the chain. 0 or CLI_ERROR (printed). */
int cli_chain_open(const char *path, const lg_run_options *ro, cli_chain *c);
void cli_chain_close(cli_chain *c);
/* A model file or a split JSON as a chain (a model: the direct one-part chain). */
int cli_exec_open(const char *path, const lg_run_options *ro, cli_chain *c);
#endif
