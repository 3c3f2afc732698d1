/*
 * onnx_harness.h -- the properties every ONNX read must satisfy, shared by the libFuzzer
 * target (fuzz/fuzz_onnx_read.c) and the mutation sweep (tests/tools/onnx_sweep.c).
 *
 * oxh_check(data, size, ...) reads one input with lg_onnx_read_mem (no base folder: external
 * data is refused) and lg_onnx_read_tensor_mem, through the metering allocator hook of
 * lg_harness.h, and checks:
 *   - rejection: *out stays NULL, the status is FORMAT, LIMIT, NOMEM or UNSUPPORTED, err.status
 *     matches, err.msg is one non-empty line without control characters;
 *   - acceptance: every pointer reachable from the model is readable (ASan checks the reads),
 *     counts > 0 never come with NULL pointers, lg_onnx_tensor_data succeeds on every tensor
 *     and its bytes are read, lg_onnx_validate is OK again;
 *   - memory: never more than `cap` live bytes through the hook, right old sizes, nothing
 *     left after lg_onnx_model_free;
 *   - allocation failure (optional): failing one allocation of the same read gives
 *     LG_ERR_NOMEM with a message and no leak.
 * Returns 0 when all hold, otherwise 1 with r->why saying which property broke.
 */
#ifndef ONNX_HARNESS_H
#define ONNX_HARNESS_H

#include "lg/onnx.h"
#include "lg_harness.h"

typedef struct oxh_result {
    lg_status st;           /* model read */
    lg_status tst;          /* tensor read */
    unsigned long calls;
    size_t peak;
    int injected;           /* an injected failure gave NOMEM */
    char msg[512];
    char why[768];
} oxh_result;

static inline int oxh_fail(oxh_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int oxh_fail(oxh_result *r, const char *fmt, ...) {
    if (!r->why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->why, sizeof r->why, fmt, ap);
        va_end(ap);
    }
    return 1;
}

typedef struct oxh_sum { uint64_t h; oxh_result *r; int bad; } oxh_sum;

static inline void oxh_bytes(oxh_sum *s, const void *p, uint64_t n, const char *what) {
    if (n && !p) {
        s->bad = oxh_fail(s->r, "%s: %llu bytes behind a NULL pointer", what, (unsigned long long)n);
        return;
    }
    const unsigned char *b = (const unsigned char *)p;
    for (uint64_t i = 0; i < n; i++) s->h = (s->h ^ b[i]) * 1099511628211ull;
}
static inline void oxh_str(oxh_sum *s, lg_onnx_str x) { oxh_bytes(s, x.s, x.n, "string"); }

static inline void oxh_tensor(oxh_sum *s, const lg_onnx_tensor *t) {
    oxh_str(s, t->name);
    oxh_bytes(s, t->dims, (uint64_t)t->n_dims * 8, "dims");
    lg_onnx_data d;
    lg_error err;
    if (lg_onnx_tensor_data(t, &d, &err) != LG_OK) {
        s->bad = oxh_fail(s->r, "lg_onnx_tensor_data failed on an accepted tensor: %s", err.msg);
        return;
    }
    oxh_bytes(s, d.data, d.nbytes, "tensor data");
    for (uint32_t i = 0; i < d.n_strings; i++) oxh_str(s, d.strings[i]);
    for (uint32_t i = 0; i < t->n_external_data; i++) {
        oxh_str(s, t->external_data[i].key);
        oxh_str(s, t->external_data[i].value);
    }
}

static inline void oxh_vi(oxh_sum *s, const lg_onnx_value_info *v) {
    oxh_str(s, v->name);
    if (v->type.n_dims && !v->type.dims) { s->bad = oxh_fail(s->r, "type dims NULL"); return; }
    for (uint32_t i = 0; i < v->type.n_dims; i++) oxh_str(s, v->type.dims[i].param);
}

static inline void oxh_graph(oxh_sum *s, const lg_onnx_graph *g, int depth) {
    if (depth > 200) { s->bad = oxh_fail(s->r, "graphs nested deeper than 200"); return; }
    oxh_str(s, g->name);
#define OXH_ARR(p, n) if ((n) && !(p)) { s->bad = oxh_fail(s->r, "%s: %u elements behind NULL", #p, (unsigned)(n)); return; }
    OXH_ARR(g->nodes, g->n_nodes);
    OXH_ARR(g->initializers, g->n_initializers);
    OXH_ARR(g->inputs, g->n_inputs);
    OXH_ARR(g->outputs, g->n_outputs);
    OXH_ARR(g->value_info, g->n_value_info);
    for (uint32_t i = 0; i < g->n_initializers; i++) oxh_tensor(s, &g->initializers[i]);
    for (uint32_t i = 0; i < g->n_inputs; i++) oxh_vi(s, &g->inputs[i]);
    for (uint32_t i = 0; i < g->n_outputs; i++) oxh_vi(s, &g->outputs[i]);
    for (uint32_t i = 0; i < g->n_value_info; i++) oxh_vi(s, &g->value_info[i]);
    for (uint32_t i = 0; i < g->n_nodes && !s->bad; i++) {
        const lg_onnx_node *n = &g->nodes[i];
        oxh_str(s, n->name); oxh_str(s, n->op_type); oxh_str(s, n->domain);
        OXH_ARR(n->inputs, n->n_inputs);
        OXH_ARR(n->outputs, n->n_outputs);
        OXH_ARR(n->attrs, n->n_attrs);
        for (uint32_t k = 0; k < n->n_inputs; k++) oxh_str(s, n->inputs[k]);
        for (uint32_t k = 0; k < n->n_outputs; k++) oxh_str(s, n->outputs[k]);
        for (uint32_t k = 0; k < n->n_attrs; k++) {
            const lg_onnx_attr *a = &n->attrs[k];
            oxh_str(s, a->name); oxh_str(s, a->ref_attr_name); oxh_str(s, a->s);
            oxh_bytes(s, a->floats, (uint64_t)a->n_floats * 4, "floats");
            oxh_bytes(s, a->ints, (uint64_t)a->n_ints * 8, "ints");
            OXH_ARR(a->strings, a->n_strings);
            OXH_ARR(a->tensors, a->n_tensors);
            OXH_ARR(a->graphs, a->n_graphs);
            for (uint32_t j = 0; j < a->n_strings; j++) oxh_str(s, a->strings[j]);
            if (a->t) oxh_tensor(s, a->t);
            for (uint32_t j = 0; j < a->n_tensors; j++) oxh_tensor(s, &a->tensors[j]);
            if (a->g) oxh_graph(s, a->g, depth + 1);
            for (uint32_t j = 0; j < a->n_graphs; j++) oxh_graph(s, &a->graphs[j], depth + 1);
        }
    }
#undef OXH_ARR
}

static inline int oxh_msg_ok(const lg_error *e, lg_status st, oxh_result *r, const char *what) {
    if (e->status != st) return oxh_fail(r, "%s: err.status %d but returned %d", what, e->status, st);
    if (!e->msg[0]) return oxh_fail(r, "%s: rejected with an empty message", what);
    for (const char *p = e->msg; *p; p++)
        if ((unsigned char)*p < 0x20) return oxh_fail(r, "%s: message has a control character: %s", what, e->msg);
    return 0;
}

/* One read (model or tensor) with meter m; checks everything but injection. */
static inline int oxh_one(const uint8_t *data, size_t size, int tensor, lgh_meter *m, lg_status *st_out,
                          oxh_result *r) {
    lg_onnx_read_options o;
    memset(&o, 0, sizeof o);
    o.alloc = lgh_meter_alloc;
    o.alloc_ud = m;
    lg_onnx_model *mo = (lg_onnx_model *)(uintptr_t)1;
    lg_error err;
    const char *what = tensor ? "tensor read" : "model read";
    lg_status st = tensor ? lg_onnx_read_tensor_mem(data, size, &o, &mo, &err)
                          : lg_onnx_read_mem(data, size, &o, &mo, &err);
    *st_out = st;
    r->calls = m->calls; /* the read's own allocations (the checks below allocate too) */
    if (st != LG_OK) {
        if (mo) return oxh_fail(r, "%s: rejected but *out is not NULL", what);
        if (st != LG_ERR_FORMAT && st != LG_ERR_LIMIT && st != LG_ERR_NOMEM && st != LG_ERR_UNSUPPORTED)
            return oxh_fail(r, "%s: rejected with status %s: %s", what, lg_status_str(st), err.msg);
        if (oxh_msg_ok(&err, st, r, what)) return 1;
        if (!tensor) snprintf(r->msg, sizeof r->msg, "%s", err.msg);
    } else {
        oxh_sum s = {1469598103934665603ull, r, 0};
        if (tensor) {
            if (!mo->tensor) return oxh_fail(r, "tensor read: no tensor");
            oxh_tensor(&s, mo->tensor);
        } else {
            if (!mo->graph) return oxh_fail(r, "model read: no graph");
            for (uint32_t i = 0; i < mo->n_opsets; i++) oxh_str(&s, mo->opsets[i].domain);
            for (uint32_t i = 0; i < mo->n_metadata; i++) { oxh_str(&s, mo->metadata[i].key); oxh_str(&s, mo->metadata[i].value); }
            oxh_str(&s, mo->producer_name); oxh_str(&s, mo->doc_string);
            oxh_graph(&s, mo->graph, 0);
            if (!s.bad && lg_onnx_validate(mo, &err) != LG_OK)
                s.bad = oxh_fail(r, "lg_onnx_validate failed on an accepted model: %s", err.msg);
        }
        lg_onnx_model_free(mo);
        if (s.bad) return 1;
    }
    if (m->bad_osize) return oxh_fail(r, "%s: wrong old size %zu (handed out %zu)", what, m->bad_osize_got, m->bad_osize_want);
    if (m->live) return oxh_fail(r, "%s: %zu bytes still held after free", what, m->live);
    return 0;
}

static inline int oxh_check(const uint8_t *data, size_t size, size_t cap, unsigned long inject, oxh_result *r) {
    memset(r, 0, sizeof *r);
    lgh_meter m;
    lgh_meter_init(&m, cap);
    if (oxh_one(data, size, 0, &m, &r->st, r)) return 1;
    if (m.over_cap) return oxh_fail(r, "the reader asked for more than %zu bytes at once", cap);
    unsigned long calls = r->calls;
    r->peak = m.peak;
    lgh_meter tm;
    lgh_meter_init(&tm, cap);
    if (oxh_one(data, size, 1, &tm, &r->tst, r)) return 1;
    r->calls = calls;
    if (inject && calls) {
        lgh_meter im;
        lgh_meter_init(&im, cap);
        im.fail_at = 1 + inject % calls;
        lg_status ist;
        oxh_result tmp;
        memset(&tmp, 0, sizeof tmp);
        if (oxh_one(data, size, 0, &im, &ist, &tmp)) return oxh_fail(r, "with allocation %lu failing: %s", im.fail_at, tmp.why);
        /* a failing allocation must be NOMEM, unless the read failed before reaching it */
        if (im.injected && ist != LG_ERR_NOMEM)
            return oxh_fail(r, "allocation %lu of %lu failed but the read returned %s", im.fail_at, calls,
                            lg_status_str(ist));
        r->injected = im.injected;
    }
    return 0;
}

#endif
