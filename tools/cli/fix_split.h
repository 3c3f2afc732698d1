/* fix --split: the fixed model as GPU and CPU parts on disk with OUT.split.json
   (chain_file.h has the format), and the chain's parity against the original. */
#ifndef LG_CLI_FIX_SPLIT_H
#define LG_CLI_FIX_SPLIT_H
#include "json.h"
#include "lg/check.h"
#include "lg/split.h"

typedef struct cli_split_out {
    lg_split *split;
    char (*files)[4096];      /* per part: the path written */
    uint32_t n_boundary;      /* tensors passing between parts */
    bool all_gpu_ready;
    bool parity_measured;
    char parity_note[160];
    uint32_t n_cases;
    double max_abs, max_rel;
} cli_split_out;

/* The split file's path for OUT ("x.tflite" -> "x.split.json"). */
void cli_split_json_path(const char *out, char *buf, size_t n);
/* Split fixed, write the parts and the JSON next to out, prove the chain against orig.
   0 or CLI_ERROR (printed). */
int cli_fix_split(const char *model_path, const lg_model *orig, const lg_model *fixed,
                  const lg_check_options *co, const char *out, bool force, cli_split_out *r);
void cli_split_out_free(cli_split_out *r);
void cli_split_text(const cli_split_out *r, const char *json_path);
void cli_split_json(json_w *j, const cli_split_out *r, const char *json_path);
#endif
