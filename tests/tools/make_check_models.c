/* make_check_models DIR: writes the small models tests/e2e/test_check_cli.sh runs
 * `litegpu check` on, taken from the shared test-model library (tests/models/rule_models*.c):
 *
 *   clean.tflite    lgm_clean_cnn: conv 3x3 (RELU6) -> MEAN over H,W -> FULLY_CONNECTED ->
 *                   SOFTMAX: ready on both targets
 *   blocked.tflite  lgm_op_unsupported_trigger3: conv -> RELU -> GATHER_ND -> conv: GATHER_ND
 *                   has no GPU parser (op-unsupported, op 2), on both targets
 *   relu01.tflite   lgm_op_no_compat_case_trigger: RELU_0_TO_1: the classic delegate takes it,
 *                   ML Drift does not (op-no-compat-case)
 *   warn.tflite     lgm_resize_align_corners_trigger: RESIZE_BILINEAR with align_corners=True:
 *                   a warning only (ready)
 *
 * Exit status 0, or 1 with one line on stderr. */
#include <stdio.h>

#include "../models/rule_models.h"
#include "lg/lg.h"

static int write_model(const char *dir, const char *name, lgm_build_fn build) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    lg_error err;
    lg_model *m = lgm_build(build, LGM_IO_ANY, &err);
    lg_status st = m ? LG_OK : err.status;
    lg_write_options wo = {.force = true};
    if (m) st = lg_tflite_write_file(m, path, &wo, &err);
    lg_model_free(m);
    if (st != LG_OK) {
        fprintf(stderr, "make_check_models: %s: %s\n", path, err.msg);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_check_models DIR\n");
        return 1;
    }
    int rc = 0;
    rc |= write_model(argv[1], "clean.tflite", lgm_clean_cnn);
    rc |= write_model(argv[1], "blocked.tflite", lgm_op_unsupported_trigger3);
    rc |= write_model(argv[1], "relu01.tflite", lgm_op_no_compat_case_trigger);
    rc |= write_model(argv[1], "warn.tflite", lgm_resize_align_corners_trigger);
    return rc;
}
