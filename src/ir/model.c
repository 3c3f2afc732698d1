/* The IR's model object: allocation, release and small look-ups. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ir/schema_gen.h"

const int32_t lgi_empty_vec[1] = {0};

const char *lg_version(void) { return LG_VERSION_STRING; }

lg_status lgi_model_alloc(lg_alloc_fn alloc, void *ud, uint64_t limit, lg_model **out,
                          lg_error *err) {
    if (!alloc) alloc = lgi_default_alloc;
    lg_model *m = alloc(ud, NULL, 0, sizeof *m);
    lgi_model_priv *p = alloc(ud, NULL, 0, sizeof *p);
    if (!m || !p) {
        if (m) alloc(ud, m, sizeof *m, 0);
        if (p) alloc(ud, p, sizeof *p, 0);
        return lgi_fail(err, LG_ERR_NOMEM, "out of memory allocating a model");
    }
    memset(m, 0, sizeof *m);
    memset(p, 0, sizeof *p);
    p->alloc = alloc;
    p->alloc_ud = ud;
    lgi_arena_init(&p->arena, alloc, ud, limit);
    m->priv = p;
    *out = m;
    return LG_OK;
}

lg_alloc_fn lgi_model_allocator(const lg_model *m, void **ud) {
    const lgi_model_priv *p = m ? m->priv : NULL;
    *ud = p && p->alloc ? p->alloc_ud : NULL;
    return p && p->alloc ? p->alloc : lgi_default_alloc;
}

void lg_model_free(lg_model *m) {
    if (!m) return;
    lgi_model_priv *p = m->priv;
    lg_alloc_fn alloc = p ? p->alloc : lgi_default_alloc;
    void *ud = p ? p->alloc_ud : NULL;
    if (p) {
        lgi_arena_free(&p->arena);
        lgi_holds_release(m);
        alloc(ud, p, sizeof *p, 0);
    }
    alloc(ud, m, sizeof *m, 0);
}

static const char *const dtype_names[LG_DTYPE_COUNT] = {
    "FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64", "STRING", "BOOL", "INT16", "COMPLEX64",
    "INT8", "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE", "VARIANT", "UINT32", "UINT16",
    "INT4", "BFLOAT16", "INT2", "UINT4", "FLOAT8_E4M3FN", "FLOAT8_E5M2",
};
static const unsigned char dtype_bits[LG_DTYPE_COUNT] = {
    32, 16, 32, 8, 64, 0, 8, 16, 64, 8, 64, 128, 64, 0, 0, 32, 16, 4, 16, 2, 4, 8, 8,
};

const char *lg_dtype_name(int dtype) {
    if (dtype < 0 || dtype >= LG_DTYPE_COUNT) return "?";
    return dtype_names[dtype];
}

int lg_dtype_bits(int dtype) {
    if (dtype < 0 || dtype >= LG_DTYPE_COUNT) return 0;
    return dtype_bits[dtype];
}

int32_t lg_op_builtin(const lg_model *m, const lg_op *op) {
    if (op->opcode_index >= m->n_opcodes) return -1;
    return m->opcodes[op->opcode_index].builtin;
}

const char *lg_op_name(const lg_model *m, const lg_op *op) {
    if (op->opcode_index >= m->n_opcodes) return "?";
    const lg_opcode *oc = &m->opcodes[op->opcode_index];
    if (oc->builtin == LG_OP_CUSTOM) return oc->custom_code ? oc->custom_code : "CUSTOM";
    const char *n = lg_builtin_name(oc->builtin);
    return n ? n : "?";
}

int64_t lg_tensor_numel(const lg_tensor *t) {
    int64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++) {
        int64_t d = t->shape[i];
        if (d < 0) return -1;
        if (d != 0 && n > INT64_MAX / d) return -1;
        n *= d;
    }
    return n;
}

const lg_buffer *lg_tensor_buffer(const lg_model *m, const lg_tensor *t) {
    if (t->buffer == 0 || t->buffer >= m->n_buffers) return NULL;
    const lg_buffer *b = &m->buffers[t->buffer];
    if (!b->data || b->size == 0) return NULL;
    return b;
}

bool lg_tensor_same_quant(const lg_tensor *a, const lg_tensor *b) {
    const lg_quant *qa = a->quant, *qb = b->quant;
    uint32_t na = qa ? qa->n_scale : 0, nb = qb ? qb->n_scale : 0;
    if (na != nb) return false;
    for (uint32_t i = 0; i < na; i++)
        if (qa->scale[i] != qb->scale[i]) return false;
    if (na > 1 && qa->quantized_dimension != qb->quantized_dimension) return false;
    uint32_t za = qa ? qa->n_zero_point : 0, zb = qb ? qb->n_zero_point : 0;
    for (uint32_t i = 0; i < (za > zb ? za : zb); i++) {
        int64_t x = i < za ? qa->zero_point[i] : 0, y = i < zb ? qb->zero_point[i] : 0;
        if (x != y) return false;
    }
    return true;
}
