/* lg_model_clone: a deep copy of a model, made by writing it to memory and reading it back
   (so the copy is exactly what a file of the model would hold, verified like any file).

   Constant data is shared, not copied, where it can be: a buffer whose bytes lie in storage
   the model keeps alive (a block of its own, the file it was read from, the image of an
   earlier copy: ir/store.c) is written to the image as an empty vector, and the copy's buffer
   then points at the same bytes and keeps their storage alive. Constant data is immutable
   (every edit makes a new buffer: lg_buffer_set_data, lg_tensor_set_const), so the two models
   stay independent: either may be edited or freed first. The rest (small data in the model's
   arena, bytes the caller of lg_tflite_read_mem owns) is copied as before. The copy's buffer
   fields are then exactly what the full round trip gives: the writer makes every layout
   decision from the real sizes, and only the payload bytes are left out. */
#include <stdlib.h>
#include "internal.h"
#include "io/tflite/io_internal.h"

/* Which buffers of m can be shared: omit[i] set, src[i] the hold of their bytes. */
static lg_status plan_sharing(const lg_model *m, uint8_t *omit, lgi_hold_ref **src,
                              uint64_t *shared, lg_error *err) {
    *shared = 0;
    uint32_t nh = m->priv->n_holds;
    if (!nh) return LG_OK;
    lgi_hold_ref **idx = lgi_holds_sorted(m);
    if (!idx) return lgi_fail(err, LG_ERR_NOMEM, "out of memory copying the model");
    for (uint32_t i = 0; i < m->n_buffers; i++) {
        const lg_buffer *b = &m->buffers[i];
        if (!b->data || !b->size) continue;
        lgi_hold_ref *r = lgi_hold_find(idx, nh, b->data, b->size);
        if (!r) continue;
        omit[i] = 1;
        src[i] = r;
        *shared += b->size;
    }
    lgi_model_mfree(m, idx, (size_t)nh * sizeof *idx);
    return LG_OK;
}

/* Point the copy's left-out buffers at m's bytes and keep their storage alive (each hold
   once: taken[k] for m's hold k). */
static lg_status share(const lg_model *m, lg_model *c, const uint8_t *omit, lgi_hold_ref **src,
                       lg_error *err) {
    if (c->n_buffers != m->n_buffers)
        return lgi_fail(err, LG_ERR_INTERNAL, "model copy: %u buffers read back of %u", c->n_buffers,
                        m->n_buffers);
    uint8_t *taken = calloc(m->priv->n_holds ? m->priv->n_holds : 1, 1);
    if (!taken) return lgi_fail(err, LG_ERR_NOMEM, "out of memory copying the model");
    lg_status st = LG_OK;
    for (uint32_t i = 0; i < m->n_buffers && st == LG_OK; i++) {
        if (!omit[i]) continue;
        size_t k = (size_t)(src[i] - m->priv->holds);
        if (!taken[k]) st = lgi_hold_share(c, src[i]->h, err);
        taken[k] = 1;
        c->buffers[i].data = m->buffers[i].data;
        c->buffers[i].size = m->buffers[i].size;
    }
    free(taken);
    return st;
}

lg_status lg_model_clone(const lg_model *m, lg_model **out, lg_error *err) {
    lgi_error_clear(err);
    if (!m || !out || !m->priv) return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_model_clone: NULL argument");
    *out = NULL;
    size_t nb = m->n_buffers ? m->n_buffers : 1;
    uint8_t *omit = calloc(nb, 1);
    lgi_hold_ref **src = calloc(nb, sizeof *src);
    uint64_t shared = 0;
    lg_status st = omit && src ? LG_OK : lgi_fail(err, LG_ERR_NOMEM, "out of memory copying the model");
    if (st == LG_OK) st = plan_sharing(m, omit, src, &shared, err);
    void *buf = NULL;
    size_t size = 0;
    if (st == LG_OK) st = lgi_tflite_write_mem_omit(m, NULL, omit, &buf, &size, err);
    lg_model *c = NULL;
    if (st == LG_OK) {
        lg_read_options ro = {0};
        ro.alloc = m->priv->alloc;
        ro.alloc_ud = m->priv->alloc_ud;
        ro.name = "model copy";
        /* the reader's default limit, from the size of the whole file, not of the image */
        ro.max_ir_bytes = ((uint64_t)64 << 20) + 16 * ((uint64_t)size + shared);
        st = lgi_tflite_read_mem_unvalidated(buf, size, &ro, &c, err);
    }
    if (st == LG_OK) {
        st = lgi_hold_malloc(c, buf, size, err); /* the image lives as long as the copy */
        if (st == LG_OK) buf = NULL;
    }
    if (st == LG_OK) st = share(m, c, omit, src, err);
    if (st == LG_OK) st = lgi_tflite_read_validate(c, "model copy", err);
    free(omit);
    free(src);
    free(buf);
    if (st != LG_OK) {
        lg_model_free(c);
        return st;
    }
    *out = c;
    return LG_OK;
}
