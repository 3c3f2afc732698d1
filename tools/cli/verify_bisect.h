/* verify --bisect: the model with every float intermediate tapped as an output runs on ML
   Drift; each tap's GPU value is judged against LiteRT's CPU value (the judge compare uses)
   and the first op, in run order, whose output diverges is named. Tapping makes the delegate
   store each tensor (no fusion across a tap), so a divergence that only a fused kernel makes
   can vanish: the report says when no tap diverges but an output does. */
#ifndef LG_CLI_VERIFY_BISECT_H
#define LG_CLI_VERIFY_BISECT_H
#include <stdbool.h>
#include "json.h"
#include "json_parse.h"
#include "lg/compare.h"

/* One output of a harness report (its gpu_file/cpu_file under dir) judged CPU -> GPU.
   0, or -1 when the files are missing or unreadable. (cmd_verify.c) */
int cli_verify_judge(const jv *o, const char *dir, double corr, lg_metrics *m, lg_verdict *vd,
                     bool *pearson_defined);

/* Print (text or into j) the bisect of rep, the harness report of tapped (orig's outputs
   first, then the taps). Returns 1 when nothing diverges, 0 when something does. */
int cli_bisect_report(const char *path, const lg_model *tapped, uint32_t n_orig_outputs, const jv *rep,
                      const char *dir, const char *prec, double corr, json_w *j);
#endif
