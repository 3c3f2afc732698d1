/* Shared by the quantized-model generators (make_quant_models.c, make_quant_models2.c,
   make_hybrid_models.c): the builder and model being written, and setting a tensor's
   quantization (a failure is kept in the builder's status, as lg_builder does). */
#ifndef LG_TESTS_QUANT_BUILDER_H
#define LG_TESTS_QUANT_BUILDER_H

#include <stdlib.h>

#include "lg/lg.h"

static lg_builder B;
static lg_model *M;

/* Per-tensor scale s and zero point zp on tensor t. */
static inline void qset(int t, float s, int64_t zp) {
    if (B.status != LG_OK || t < 0) return;
    lg_error e;
    lg_status st = lg_tensor_set_quant(M, 0, (uint32_t)t, &s, &zp, 1, 0, &e);
    if (st != LG_OK) { B.status = st; B.err = e; }
}

/* n symmetric scales (zero points 0) along dimension dim. */
static inline void qset_pc(int t, const float *s, uint32_t n, int32_t dim) {
    if (B.status != LG_OK || t < 0) return;
    int64_t *zp = calloc(n, sizeof *zp);
    if (!zp) { B.status = LG_ERR_NOMEM; return; }
    lg_error e;
    lg_status st = lg_tensor_set_quant(M, 0, (uint32_t)t, s, zp, n, dim, &e);
    free(zp);
    if (st != LG_OK) { B.status = st; B.err = e; }
}

/* An int8/uint8 activation tensor with scale s and zero point zp. */
static inline int qt(const char *name, lg_dtype ty, lg_dims shape, float s, int64_t zp) {
    int t = lg_b_tensor(&B, name, ty, shape);
    qset(t, s, zp);
    return t;
}

#endif
