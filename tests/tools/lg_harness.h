/*
 * lg_harness.h -- the properties every .tflite read must satisfy, shared by the libFuzzer
 * target (fuzz/fuzz_tflite_read.c) and the malformed-input sweep (tests/tools/malformed_sweep.c).
 *
 * lgh_check_input(data, size, ...) reads one input through lg_tflite_read_mem with a metering
 * allocator hook and checks:
 *   - rejection: *out stays NULL, the status is LG_ERR_FORMAT, LG_ERR_LIMIT or LG_ERR_NOMEM,
 *     err.status matches, err.msg is one non-empty line without control characters;
 *   - acceptance: every pointer reachable from the model is readable (names are NUL-terminated,
 *     shapes and constant data lie in valid memory: ASan checks the reads), counts > 0 never
 *     come with NULL pointers, lg_model_validate is OK, lg_tflite_write_mem succeeds with at
 *     most 64 MiB + 16 x the input's size (the reader's default memory cap: sharing must not
 *     amplify), its output reads back and re-writes to identical bytes;
 *   - memory: the reader never holds more than `cap` live bytes through the hook, passes the
 *     right old size when it frees or reallocates, and gives back everything on free;
 *   - allocation failure (optional): failing one allocation of the same read gives
 *     LG_ERR_NOMEM with a message and no leak.
 * It returns 0 when all hold, otherwise 1 with r->why saying which property broke.
 *
 * Header-only (static inline) so that both programs build from their own single source file.
 */
#ifndef LG_HARNESS_H
#define LG_HARNESS_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"

/* ---------------------------------------------------------------- metering allocator */

typedef struct lgh_meter {
    size_t cap;              /* refuse (return NULL) when live bytes would pass this */
    size_t live, peak;       /* bytes currently held through the hook, and the maximum */
    unsigned long calls;     /* allocating calls (malloc or realloc), counted from 1 */
    unsigned long fail_at;   /* fail this allocating call (0 = never) */
    int over_cap;            /* a request was refused because of cap */
    int injected;            /* the injected failure happened */
    int bad_osize;           /* osize disagreed with the size we handed out */
    size_t bad_osize_got, bad_osize_want;
} lgh_meter;

#define LGH_HDR 16 /* keeps the 16-byte alignment of malloc */

static inline void lgh_meter_init(lgh_meter *m, size_t cap) {
    memset(m, 0, sizeof *m);
    m->cap = cap;
}

static inline void *lgh_meter_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    lgh_meter *m = (lgh_meter *)ud;
    unsigned char *h = ptr ? (unsigned char *)ptr - LGH_HDR : NULL;
    size_t old = 0;
    if (h) {
        memcpy(&old, h, sizeof old);
        if (osize != old && !m->bad_osize) {
            m->bad_osize = 1;
            m->bad_osize_got = osize;
            m->bad_osize_want = old;
        }
    }
    if (nsize == 0) {
        if (h) { m->live -= old; free(h); }
        return NULL;
    }
    m->calls++;
    if (m->fail_at && m->calls == m->fail_at) { m->injected = 1; return NULL; }
    if (nsize > m->cap || m->live - old > m->cap - nsize) { m->over_cap = 1; return NULL; }
    if (nsize > SIZE_MAX - LGH_HDR) return NULL;
    unsigned char *nh = (unsigned char *)realloc(h, nsize + LGH_HDR);
    if (!nh) return NULL;
    memcpy(nh, &nsize, sizeof nsize);
    m->live = m->live - old + nsize;
    if (m->live > m->peak) m->peak = m->live;
    return nh + LGH_HDR;
}

/* ---------------------------------------------------------------- results */

typedef struct lgh_result {
    lg_status st;            /* status of the read of the input itself */
    int rejected_injected;   /* the allocation-failure read gave LG_ERR_NOMEM */
    size_t peak;             /* max live bytes through the hook during that read */
    unsigned long calls;     /* allocating calls during that read */
    size_t out_size;         /* bytes written (accepted inputs) */
    double read_ms;          /* wall time of that read */
    char msg[512];           /* the reader's message on rejection */
    char why[768];           /* non-empty when a property broke */
} lgh_result;

typedef struct lgh_options {
    size_t cap;              /* allocation cap through the hook */
    unsigned long inject;    /* 0 = no failure injection; else selects which allocation fails */
    /* Optional extra check on accepted models (e.g. the CLI's info computation). Returns 0
       when fine, otherwise writes why. */
    int (*extra)(const lg_model *m, char *why, size_t why_size);
    double (*now_ms)(void);  /* optional clock for read_ms */
} lgh_options;

static inline int lgh_fail(lgh_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int lgh_fail(lgh_result *r, const char *fmt, ...) {
    if (!r->why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->why, sizeof r->why, fmt, ap);
        va_end(ap);
    }
    return 1;
}

/* ---------------------------------------------------------------- model walk */

/* Read what the model points to, summed into a checksum so that the reads stay; ASan and
   UBSan check them. Returns 1 (and fills r->why) when a count > 0 comes with a NULL pointer.
   Element vectors (shapes, indices...) are read whole: the reader copies them into its
   arena, so their total is bounded by its memory cap. */
#define LGH_VEC(p, n, what)                                                              \
    do {                                                                                 \
        if ((n) > 0 && !(p)) return lgh_fail(r, "accepted model: %s has count %lu but no data", \
                                             (what), (unsigned long)(n));                \
        for (uint64_t i_ = 0; i_ < (uint64_t)(n); i_++) *acc += (uint64_t)(p)[i_];       \
    } while (0)
#define LGH_FVEC(p, n, what)                                                             \
    do {                                                                                 \
        if ((n) > 0 && !(p)) return lgh_fail(r, "accepted model: %s has count %lu but no data", \
                                             (what), (unsigned long)(n));                \
        for (uint64_t i_ = 0; i_ < (uint64_t)(n); i_++) { float f_ = (p)[i_];           \
            uint32_t u_; memcpy(&u_, &f_, 4); *acc += u_; }                              \
    } while (0)

/* Byte blocks (constant data, custom options) may point into the file and be shared by many
   parents, so only their first and last bytes are read: enough for ASan to see a block that
   runs past its allocation, and bounded by the number of parents, not their total size. */
#define LGH_BYTES(p, n, what)                                                            \
    do {                                                                                 \
        if ((n) > 0 && !(p)) return lgh_fail(r, "accepted model: %s has count %lu but no data", \
                                             (what), (unsigned long)(n));                \
        if ((n) > 0) *acc += (uint64_t)(p)[0] + (uint64_t)(p)[(n) - 1];                  \
    } while (0)

/* Strings are read whole (strlen: ASan sees a missing terminator), each distinct pointer
   once per walk as far as a small cache tells, so that one long name shared by many
   tensors costs its length once. */
typedef struct lgh_strcache { const char *seen[1024]; } lgh_strcache;
static lgh_strcache lgh_sc_;

static inline void lgh_str(const char *s, uint64_t *acc) {
    if (!s) return;
    size_t h = ((uintptr_t)s >> 4) % 1024;
    if (lgh_sc_.seen[h] == s) return;
    lgh_sc_.seen[h] = s;
    *acc += strlen(s);
}

static inline int lgh_touch(const lg_model *m, lgh_result *r, uint64_t *acc) {
    memset(&lgh_sc_, 0, sizeof lgh_sc_);
    lgh_str(m->description, acc);
    if (m->n_opcodes && !m->opcodes) return lgh_fail(r, "accepted model: opcodes missing");
    for (uint32_t i = 0; i < m->n_opcodes; i++) {
        const lg_opcode *oc = &m->opcodes[i];
        lgh_str(oc->custom_code, acc);
        const char *bn = lg_builtin_name(oc->builtin);
        lgh_str(bn, acc);
    }
    if (m->n_subgraphs && !m->subgraphs) return lgh_fail(r, "accepted model: subgraphs missing");
    for (uint32_t s = 0; s < m->n_subgraphs; s++) {
        const lg_subgraph *sg = &m->subgraphs[s];
        lgh_str(sg->name, acc);
        LGH_VEC(sg->inputs, sg->n_inputs, "subgraph inputs");
        LGH_VEC(sg->outputs, sg->n_outputs, "subgraph outputs");
        if (sg->n_tensors && !sg->tensors) return lgh_fail(r, "accepted model: tensors missing");
        for (uint32_t t = 0; t < sg->n_tensors; t++) {
            const lg_tensor *te = &sg->tensors[t];
            lgh_str(te->name, acc);
            LGH_VEC(te->shape, te->rank, "tensor shape");
            LGH_VEC(te->shape_signature, te->n_shape_signature, "tensor shape_signature");
            *acc += (uint64_t)lg_tensor_numel(te);
            *acc += (uint64_t)lg_dtype_bits(te->type);
            lgh_str(lg_dtype_name(te->type), acc);
            const lg_buffer *b = lg_tensor_buffer(m, te);
            if (b && b->size) *acc += b->data ? b->data[0] : 0;
            if (te->quant) {
                const lg_quant *q = te->quant;
                LGH_FVEC(q->min, q->n_min, "quant min");
                LGH_FVEC(q->max, q->n_max, "quant max");
                LGH_FVEC(q->scale, q->n_scale, "quant scale");
                LGH_VEC(q->zero_point, q->n_zero_point, "quant zero_point");
            }
            if (te->sparsity) {
                const lg_sparsity *sp = te->sparsity;
                LGH_VEC(sp->traversal_order, sp->n_traversal_order, "sparsity traversal_order");
                LGH_VEC(sp->block_map, sp->n_block_map, "sparsity block_map");
                if (sp->n_dim_metadata && !sp->dim_metadata)
                    return lgh_fail(r, "accepted model: dim_metadata missing");
                for (uint32_t d = 0; d < sp->n_dim_metadata; d++) {
                    const lg_dim_meta *dm = &sp->dim_metadata[d];
                    LGH_VEC(dm->segments, dm->n_segments, "sparsity segments");
                    LGH_VEC(dm->indices, dm->n_indices, "sparsity indices");
                }
            }
            if (te->n_variant_tensors && !te->variant_tensors)
                return lgh_fail(r, "accepted model: variant_tensors missing");
            for (uint32_t v = 0; v < te->n_variant_tensors; v++)
                LGH_VEC(te->variant_tensors[v].shape, te->variant_tensors[v].rank, "variant shape");
        }
        if (sg->n_ops && !sg->ops) return lgh_fail(r, "accepted model: ops missing");
        for (uint32_t o = 0; o < sg->n_ops; o++) {
            const lg_op *op = &sg->ops[o];
            LGH_VEC(op->inputs, op->n_inputs, "op inputs");
            LGH_VEC(op->outputs, op->n_outputs, "op outputs");
            LGH_VEC(op->intermediates, op->n_intermediates, "op intermediates");
            LGH_VEC(op->mutating_variable_inputs, op->n_mutating_variable_inputs,
                    "op mutating_variable_inputs");
            LGH_BYTES(op->custom_options, op->n_custom_options, "op custom_options");
            lgh_str(lg_op_name(m, op), acc);
            lgh_str(lg_opts_name(op->opts_kind), acc);
            *acc += (uint64_t)lg_op_builtin(m, op);
            if (op->opts_kind != LG_OPTS_NONE && !op->opts)
                return lgh_fail(r, "accepted model: op %u has an options kind but no options", o);
        }
    }
    if (m->n_buffers && !m->buffers) return lgh_fail(r, "accepted model: buffers missing");
    for (uint32_t b = 0; b < m->n_buffers; b++)
        LGH_BYTES(m->buffers[b].data, m->buffers[b].size, "buffer data");
    LGH_VEC(m->metadata_buffer, m->n_metadata_buffer, "metadata_buffer");
    if (m->n_metadata && !m->metadata) return lgh_fail(r, "accepted model: metadata missing");
    for (uint32_t i = 0; i < m->n_metadata; i++) lgh_str(m->metadata[i].name, acc);
    if (m->n_signatures && !m->signatures) return lgh_fail(r, "accepted model: signatures missing");
    for (uint32_t i = 0; i < m->n_signatures; i++) {
        const lg_signature *sd = &m->signatures[i];
        lgh_str(sd->key, acc);
        if ((sd->n_inputs && !sd->inputs) || (sd->n_outputs && !sd->outputs))
            return lgh_fail(r, "accepted model: signature maps missing");
        for (uint32_t j = 0; j < sd->n_inputs; j++) lgh_str(sd->inputs[j].name, acc);
        for (uint32_t j = 0; j < sd->n_outputs; j++) lgh_str(sd->outputs[j].name, acc);
    }
    if (m->n_external_buffer_groups && !m->external_buffer_groups)
        return lgh_fail(r, "accepted model: external_buffer_groups missing");
    for (uint32_t i = 0; i < m->n_external_buffer_groups; i++)
        lgh_str(m->external_buffer_groups[i].name, acc);
    if (m->n_external_buffers && !m->external_buffers)
        return lgh_fail(r, "accepted model: external_buffers missing");
    for (uint32_t i = 0; i < m->n_external_buffers; i++) lgh_str(m->external_buffers[i].packing, acc);
    return 0;
}

static volatile uint64_t lgh_sink;

/* ---------------------------------------------------------------- the checks */

static inline int lgh_check_rejection(lg_status st, const lg_model *m, const lg_error *err,
                                      const char *what, lgh_result *r) {
    if (m) return lgh_fail(r, "%s: status %s but the model pointer was set", what, lg_status_str(st));
    if (st != LG_ERR_FORMAT && st != LG_ERR_LIMIT && st != LG_ERR_NOMEM)
        return lgh_fail(r, "%s: unexpected status %d (%s)", what, (int)st, lg_status_str(st));
    if (err->status != st)
        return lgh_fail(r, "%s: returned %s but err.status is %s", what, lg_status_str(st),
                        lg_status_str(err->status));
    if (!memchr(err->msg, 0, sizeof err->msg)) return lgh_fail(r, "%s: err.msg not terminated", what);
    if (!err->msg[0]) return lgh_fail(r, "%s: %s with an empty message", what, lg_status_str(st));
    /* One printable line: names from the file must be escaped, or a hostile file could add
       lines (or terminal escapes) to the one-line error the CLI prints. */
    for (const char *c = err->msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return lgh_fail(r, "%s: message has control character 0x%02x at %d: \"%s\"", what,
                            (unsigned char)*c, (int)(c - err->msg), err->msg);
    return 0;
}

static inline int lgh_check_meter(const lgh_meter *mt, const char *what, lgh_result *r) {
    if (mt->bad_osize)
        return lgh_fail(r, "%s: allocator hook got osize %zu for a block of %zu bytes", what,
                        mt->bad_osize_got, mt->bad_osize_want);
    if (mt->over_cap)
        return lgh_fail(r, "%s: asked the allocator for more than the cap of %zu bytes "
                        "(peak %zu): the reader's own limit did not stop it", what, mt->cap, mt->peak);
    return 0;
}

static inline int lgh_check_input(const uint8_t *data, size_t size, const lgh_options *o,
                                  lgh_result *r) {
    memset(r, 0, sizeof *r);
    lgh_meter mt;
    lgh_meter_init(&mt, o->cap);
    lg_read_options ro;
    memset(&ro, 0, sizeof ro);
    ro.alloc = lgh_meter_alloc;
    ro.alloc_ud = &mt;
    lg_model *m = NULL;
    lg_error err;
    memset(&err, 0x55, sizeof err);
    double t0 = o->now_ms ? o->now_ms() : 0;
    lg_status st = lg_tflite_read_mem(data, size, &ro, &m, &err);
    r->read_ms = o->now_ms ? o->now_ms() - t0 : 0;
    r->st = st;
    r->peak = mt.peak;
    r->calls = mt.calls;
    if (lgh_check_meter(&mt, "read", r)) { lg_model_free(m); return 1; }
    if (st != LG_OK) {
        if (memchr(err.msg, 0, sizeof err.msg)) snprintf(r->msg, sizeof r->msg, "%s", err.msg);
        if (lgh_check_rejection(st, m, &err, "read", r)) { lg_model_free(m); return 1; }
        if (mt.live) return lgh_fail(r, "read: rejected (%s) but %zu bytes not freed", err.msg, mt.live);
    } else {
        if (!m) return lgh_fail(r, "read: LG_OK but no model");
        uint64_t acc = 0;
        int bad = lgh_touch(m, r, &acc);
        lgh_sink += acc;
        lg_error e2;
        if (!bad && lg_model_validate(m, &e2) != LG_OK)
            bad = lgh_fail(r, "accepted model fails lg_model_validate: %s", e2.msg);
        if (!bad && o->extra) bad = o->extra(m, r->why, sizeof r->why);
        void *w1 = NULL, *w2 = NULL;
        size_t n1 = 0, n2 = 0;
        lg_model *m2 = NULL;
        lgh_meter mt2;
        lgh_meter_init(&mt2, o->cap);
        if (!bad && lg_tflite_write_mem(m, NULL, &w1, &n1, &e2) != LG_OK)
            bad = lgh_fail(r, "accepted model fails to write: %s", e2.msg);
        r->out_size = n1;
        /* A model is about as big written as read; a much bigger output means the file
           shared one block among many parents and the reader let the sharing through. */
        if (!bad && n1 / 16 > ((size_t)64 << 20) / 16 + size)
            bad = lgh_fail(r, "accepted %zu-byte input writes as %zu bytes (more than 64 MiB + "
                           "16 x its size): shared blocks amplified", size, n1);
        if (!bad) {
            lg_read_options ro2 = ro;
            ro2.alloc_ud = &mt2;
            lg_status st2 = lg_tflite_read_mem(w1, n1, &ro2, &m2, &e2);
            if (lgh_check_meter(&mt2, "re-read", r)) bad = 1;
            else if (st2 != LG_OK)
                bad = lgh_fail(r, "written model fails to read back (%s): %s", lg_status_str(st2), e2.msg);
        }
        if (!bad && lg_model_validate(m2, &e2) != LG_OK)
            bad = lgh_fail(r, "re-read model fails lg_model_validate: %s", e2.msg);
        if (!bad && lg_tflite_write_mem(m2, NULL, &w2, &n2, &e2) != LG_OK)
            bad = lgh_fail(r, "re-read model fails to write: %s", e2.msg);
        if (!bad && (n1 != n2 || memcmp(w1, w2, n1) != 0)) {
            size_t at = 0;
            while (at < n1 && at < n2 && ((uint8_t *)w1)[at] == ((uint8_t *)w2)[at]) at++;
            bad = lgh_fail(r, "round trip not stable: write(read(write(m))) differs from write(m) "
                           "(%zu vs %zu bytes, first difference at %zu)", n1, n2, at);
        }
        lg_model_free(m2);
        if (!bad && mt2.live) bad = lgh_fail(r, "re-read model: %zu bytes not freed", mt2.live);
        free(w1);
        free(w2);
        lg_model_free(m);
        if (!bad && lgh_check_meter(&mt, "free", r)) bad = 1;
        if (!bad && mt.live) bad = lgh_fail(r, "lg_model_free left %zu bytes allocated", mt.live);
        if (bad) return 1;
    }

    /* One more read of the same input with one allocation failing. */
    if (o->inject && r->calls > 0) {
        lgh_meter mi;
        lgh_meter_init(&mi, o->cap);
        mi.fail_at = 1 + o->inject % r->calls;
        ro.alloc_ud = &mi;
        lg_model *mm = NULL;
        memset(&err, 0x55, sizeof err);
        lg_status sti = lg_tflite_read_mem(data, size, &ro, &mm, (o->inject & 1) ? NULL : &err);
        if (lgh_check_meter(&mi, "read with a failing allocation", r)) { lg_model_free(mm); return 1; }
        if (!mi.injected) {
            lg_model_free(mm);
            return lgh_fail(r, "read with allocation %lu failing: not reached on a second read "
                            "(the reader is not deterministic?)", mi.fail_at);
        }
        if (sti != LG_ERR_NOMEM) {
            lg_model_free(mm);
            return lgh_fail(r, "read with allocation %lu of %lu failing: status %s, expected %s",
                            mi.fail_at, r->calls, lg_status_str(sti), lg_status_str(LG_ERR_NOMEM));
        }
        if (!(o->inject & 1) &&
            lgh_check_rejection(sti, mm, &err, "read with a failing allocation", r))
            return 1;
        if (mm) { lg_model_free(mm); return lgh_fail(r, "NOMEM read set the model pointer"); }
        if (mi.live)
            return lgh_fail(r, "read with allocation %lu failing: %zu bytes not freed", mi.fail_at, mi.live);
        r->rejected_injected = 1;
    }
    return 0;
}

#endif
