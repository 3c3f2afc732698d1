/* lg_model_clone: a deep copy of a model, made by writing it to memory and reading it back
   (so the copy is exactly what a file of the model would hold, verified like any file). */
#include <stdlib.h>
#include "internal.h"

lg_status lg_model_clone(const lg_model *m, lg_model **out, lg_error *err) {
    lgi_error_clear(err);
    if (!m || !out) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_model_clone: NULL argument");
    *out = NULL;
    void *buf = NULL;
    size_t size = 0;
    LG_TRY(lg_tflite_write_mem(m, NULL, &buf, &size, err));
    lg_read_options ro = {0};
    if (m->priv) {
        ro.alloc = m->priv->alloc;
        ro.alloc_ud = m->priv->alloc_ud;
    }
    ro.name = "model copy";
    lg_status st = lg_tflite_read_mem(buf, size, &ro, out, err);
    if (st != LG_OK) {
        free(buf);
        return st;
    }
    (*out)->priv->owned_buf = buf; /* lives as long as the copy */
    return LG_OK;
}
