/* make_rule_models DIR: writes one small .tflite per rule case of `litegpu check` that applies to
 * the ML Drift target, for tests/e2e/test_check_vs_delegate.sh to run through check and through
 * the real ML Drift delegate (LiteRT.js WebGPU, peers/verify/verify.js):
 *
 *   <rule-id>__trigger.tflite, __trigger2 ...   check --target mldrift reports the rule
 *   <rule-id>__nearmiss.tflite, __nearmiss2 ... a close model it must not report
 *   manifest.tsv                                 "file<TAB>rule<TAB>kind<TAB>check_args" (kind:
 *                                                trigger|nearmiss; check_args: extra `litegpu check`
 *                                                arguments, e.g. graph-size's --max-gpu-ops 4),
 *                                                one line per model above, after a header line
 *   fp16__layernorm.tflite                       not in the manifest: lgm_fp16_layernorm, for the
 *                                                fp16 numerics comparison
 *
 * The models are the LGM_DELEGATE ones of the shared library tests/models/rule_models.c (the
 * unit tests of tests/unit/test_check_rules.c assert check's findings on the same models),
 * built with LGM_IO_LITERT: graph inputs and outputs of the types LiteRT.js feeds and reads,
 * float32 and int32 (its compile refuses FLOAT16, INT8, BOOL and INT64 graph I/O: "Element
 * type FLOAT16 is not supported."), real constant data, and a DENSIFY input with sparsity
 * parameters. Some triggers are models TFLite itself refuses (LGM_INVALID: non-broadcastable
 * ADD, LOGISTIC with 2 inputs, stride 0, axis 4 of a rank-4 tensor), and align_corners with
 * half_pixel_centers too: the rule can only fire on such models, and the delegate's verdict is
 * then the failed compile. The classic-only rules (cast-types, compare-consumer) get near-misses
 * only: ML Drift skips the CAST compatibility check and has no comparison-consumer rule.
 *
 * Exit status 0, or 1 with one line on stderr per failing model. */
#include <stdio.h>
#include <string.h>

#include "../models/rule_models.h"
#include "lg/lg.h"

/* Returns 0, or 1 after printing "make_rule_models: PATH: what went wrong". */
static int write_model(const char *path, lgm_build_fn fn, int invalid) {
    lg_error err;
    lg_model *m = lgm_build(fn, LGM_IO_LITERT, &err);
    if (!m) {
        fprintf(stderr, "make_rule_models: %s: %s\n", path, err.msg);
        return 1;
    }
    lg_write_options wo = {.force = true, .unchecked_ops = invalid != 0};
    lg_status st = lg_tflite_write_file(m, path, &wo, &err);
    lg_model_free(m);
    if (st != LG_OK) {
        fprintf(stderr, "make_rule_models: %s: %s\n", path, err.msg);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_rule_models DIR\n");
        return 1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/manifest.tsv", argv[1]);
    FILE *man = fopen(path, "w");
    if (!man) {
        fprintf(stderr, "make_rule_models: cannot write %s\n", path);
        return 1;
    }
    fprintf(man, "file\trule\tkind\tcheck_args\n");
    int rc = 0;
    for (size_t i = 0; i < lgm_n_cases; i++) {
        const lgm_case *c = &lgm_cases[i];
        if (!(c->flags & LGM_DELEGATE)) continue;
        char file[256];
        snprintf(file, sizeof file, "%s__%s.tflite", c->rule, c->variant);
        snprintf(path, sizeof path, "%s/%s", argv[1], file);
        if (write_model(path, c->build, (c->flags & LGM_INVALID) != 0)) {
            rc = 1;
            continue;
        }
        /* kind "invalid": a trigger TFLite itself refuses, so litegpu's reader refuses the file
           (check exits 2) and the delegate must not take it either */
        fprintf(man, "%s\t%s\t%s\t%s\n", file, c->rule,
                (c->flags & LGM_INVALID) ? "invalid"
                : strncmp(c->variant, "trigger", 7) == 0 ? "trigger" : "nearmiss",
                c->check_args ? c->check_args : "");
    }
    if (fclose(man) != 0) {
        fprintf(stderr, "make_rule_models: cannot write the manifest\n");
        rc = 1;
    }
    snprintf(path, sizeof path, "%s/fp16__layernorm.tflite", argv[1]);
    rc |= write_model(path, lgm_fp16_layernorm, 0);
    return rc;
}
