/* Shared by the test model generators (tests/tools/make_*_models.c): build a model with the
   sticky builder and write it (replacing an existing file). Prints one line on failure. */
#ifndef LG_TESTS_MODEL_WRITER_H
#define LG_TESTS_MODEL_WRITER_H
#include <stdio.h>

#include "lg/lg.h"

/* Returns 0, or 1 after printing "WHO: PATH: what went wrong". */
static inline int lgt_write_model(const char *who, const char *path, void (*build)(lg_builder *)) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) {
        fprintf(stderr, "%s: %s\n", who, err.msg);
        return 1;
    }
    lg_builder b;
    lg_builder_init(&b, m, 0);
    build(&b);
    lg_write_options wo = {.force = true};
    lg_status st = b.status;
    if (st != LG_OK) err = b.err;
    else st = lg_tflite_write_file(m, path, &wo, &err);
    lg_model_free(m);
    if (st != LG_OK) {
        fprintf(stderr, "%s: %s: %s\n", who, path, err.msg);
        return 1;
    }
    return 0;
}
#endif
