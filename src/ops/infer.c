/* Shape inference driver and op-level validation: lg_op_infer, lg_model_infer_shapes,
 * lg_model_validate_ops, the shape helpers and the one broadcast rule of the tree. */
#include <stdlib.h>

#include "ir/schema_gen.h"
#include "ops/ops_impl.h"
#include "util/half.h"

/* ------------------------------------------------------------------ shapes */

lg_shape lg_shape_of_tensor(const lg_tensor *t, bool signature) {
    lg_shape s = lgo_unknown();
    if (!t || t->rank > LG_MAX_RANK || (t->rank && !t->shape)) return s;
    if (t->rank == 0 && !t->has_rank && t->n_shape_signature == 0) {
        /* the schema: has_rank false and no dimensions = rank unknown. Writers of old files
           never set has_rank, so a rank-0 tensor without it is unknown, not a scalar. */
        return s;
    }
    s.rank = (int32_t)t->rank;
    for (uint32_t d = 0; d < t->rank; d++) s.dim[d] = t->shape[d];
    if (signature && t->n_shape_signature == t->rank && t->shape_signature)
        for (uint32_t d = 0; d < t->rank; d++)
            if (t->shape_signature[d] < 0) s.dim[d] = -1;
    return s;
}

int64_t lg_shape_numel(const lg_shape *s) {
    if (s->rank < 0) return -1;
    int64_t n = 1;
    for (int32_t d = 0; d < s->rank; d++) {
        if (s->dim[d] < 0) return -1;
        if (s->dim[d] && n > INT64_MAX / s->dim[d]) return -1;
        n *= s->dim[d];
    }
    return n;
}

bool lg_shape_is_static(const lg_shape *s) {
    if (s->rank < 0) return false;
    for (int32_t d = 0; d < s->rank; d++)
        if (s->dim[d] < 0) return false;
    return true;
}

const char *lg_shape_str(const lg_shape *s, char *buf, size_t size) {
    if (!size) return buf;
    if (s->rank < 0) {
        snprintf(buf, size, "[?]");
        return buf;
    }
    size_t k = (size_t)snprintf(buf, size, "[");
    for (int32_t d = 0; d < s->rank && k < size; d++) {
        if (s->dim[d] < 0) k += (size_t)snprintf(buf + k, size - k, "%s?", d ? "," : "");
        else k += (size_t)snprintf(buf + k, size - k, "%s%d", d ? "," : "", s->dim[d]);
    }
    if (k < size) snprintf(buf + k, size - k, "]");
    return buf;
}

bool lg_shape_compatible(const lg_shape *a, const lg_shape *b) {
    if (a->rank < 0 || b->rank < 0) return true;
    if (a->rank != b->rank) return false;
    for (int32_t d = 0; d < a->rank; d++)
        if (a->dim[d] >= 0 && b->dim[d] >= 0 && a->dim[d] != b->dim[d]) return false;
    return true;
}

lg_status lg_broadcast(const lg_shape *a, const lg_shape *b, lg_shape *out, lg_error *err) {
    if (a->rank < 0 || b->rank < 0) {
        *out = lgo_unknown();
        return LG_OK;
    }
    int32_t r = a->rank > b->rank ? a->rank : b->rank;
    lg_shape o;
    memset(&o, 0, sizeof o);
    o.rank = r;
    for (int32_t i = 0; i < r; i++) {
        int32_t da = i < a->rank ? a->dim[a->rank - 1 - i] : 1;
        int32_t db = i < b->rank ? b->dim[b->rank - 1 - i] : 1;
        int32_t v;
        if (da == db) v = da;
        else if (da == 1) v = db;
        else if (db == 1) v = da;
        else if (da < 0) v = db;      /* unknown against d > 1: must be d (or 1) */
        else if (db < 0) v = da;
        else {
            char sa[96], sb[96];
            return lgi_fail(err, LG_ERR_INVALID_ARG,
                            "shapes %s and %s do not broadcast (dimension %d: %d vs %d)",
                            lg_shape_str(a, sa, sizeof sa), lg_shape_str(b, sb, sizeof sb),
                            (int)(r - 1 - i), da, db);
        }
        o.dim[r - 1 - i] = v;
    }
    *out = o;
    return LG_OK;
}

/* ------------------------------------------------------------------ helpers for infer functions */

/* The index of c->op in its subgraph, or -1. */
static int32_t ctx_op_index(const lg_infer_ctx *c) {
    if (!c->op || !c->m) return -1;
    for (uint32_t s = 0; s < c->m->n_subgraphs; s++) {
        const lg_subgraph *sg = &c->m->subgraphs[s];
        if (sg->n_ops && c->op >= sg->ops && c->op < sg->ops + sg->n_ops)
            return (int32_t)(c->op - sg->ops);
    }
    return -1;
}

/* "op 3 (CONV_2D): what", or "CONV_2D: what" for an op outside the model, through the one
   formatting core (util/status.c); err->op is the op's index (-1 outside). */
lg_status lgo_fail(const lg_infer_ctx *c, const char *fmt, ...) {
    if (!c->err) return LG_ERR_INVALID_ARG;
    int32_t idx = ctx_op_index(c);
    va_list ap;
    va_start(ap, fmt);
    lgi_failv(c->err, LG_ERR_INVALID_ARG, LGI_KEEP, idx, LGI_KEEP, fmt, ap);
    va_end(ap);
    c->err->msg[360] = 0; /* the reason keeps its first 360 characters */
    lgi_pname pn = lgi_printable(c->name);
    if (idx >= 0) lgi_error_prefix(c->err, "op %d (%s): ", idx, pn.s);
    else lgi_error_prefix(c->err, "%s: ", pn.s);
    return LG_ERR_INVALID_ARG;
}

lg_status lgo_broadcast(const lg_infer_ctx *c, const lg_shape *a, const lg_shape *b,
                        lg_shape *out) {
    lg_error e;
    if (lg_broadcast(a, b, out, &e) == LG_OK) return LG_OK;
    return lgo_fail(c, "%s", e.msg);
}

lg_shape lgo_shape(int32_t rank, const int32_t *dims) {
    lg_shape s = lgo_unknown();
    if (rank < 0 || rank > LG_MAX_RANK) return s;
    s.rank = rank;
    for (int32_t d = 0; d < rank; d++) s.dim[d] = dims ? dims[d] : -1;
    return s;
}

lg_shape lgo_unknown_dims(int32_t rank) { return lgo_shape(rank, NULL); }

void lgo_all_unknown(lg_infer_ctx *c) {
    for (uint32_t o = 0; o < c->n_out; o++) c->out[o] = lgo_unknown();
}

void lgo_same_shape(lg_infer_ctx *c, uint32_t o, uint32_t i) {
    if (o >= c->n_out) return;
    c->out[o] = lgo_has(c, i) ? c->in[i].shape : lgo_unknown();
    if (lgo_has(c, i)) c->out_type[o] = c->in[i].type;
}

static int int_elem(int8_t type, const uint8_t *p, uint64_t i, int64_t *v) {
    switch (type) {
    case LG_INT32: *v = (int32_t)lgi_rd_u32(p + 4 * i); return 1;
    case LG_INT64: *v = (int64_t)lgi_rd_u64(p + 8 * i); return 1;
    case LG_INT16: *v = (int16_t)lgi_rd_u16(p + 2 * i); return 1;
    case LG_UINT16: *v = lgi_rd_u16(p + 2 * i); return 1;
    case LG_UINT32: *v = lgi_rd_u32(p + 4 * i); return 1;
    case LG_INT8: *v = (int8_t)p[i]; return 1;
    case LG_UINT8: case LG_BOOL: *v = p[i]; return 1;
    default: return 0;
    }
}

bool lg_tensor_const_ints(const lg_model *m, const lg_tensor *t, int64_t *out, uint32_t max,
                          uint32_t *n) {
    *n = 0;
    if (!m || !t || !t->buffer || t->sparsity || t->buffer >= m->n_buffers) return false;
    const lg_buffer *b = &m->buffers[t->buffer];
    int64_t cnt = lg_tensor_numel(t);
    int bits = lg_dtype_bits(t->type);
    int64_t probe;
    if (!b->data || cnt < 0 || (uint64_t)cnt > max || bits < 8 ||
        b->size != (uint64_t)cnt * (uint64_t)(bits / 8) || (cnt && !int_elem(t->type, b->data, 0, &probe)))
        return false;
    for (int64_t k = 0; k < cnt; k++) int_elem(t->type, b->data, (uint64_t)k, &out[k]);
    *n = (uint32_t)cnt;
    return true;
}

int lgo_const_ints(const lg_infer_ctx *c, uint32_t i, int64_t *out, uint32_t max, uint32_t *count,
                   lg_status *st) {
    if (st) *st = LG_OK;
    *count = 0;
    if (!lgo_has(c, i) || !c->in[i].data) return 0;
    const lg_infer_arg *a = &c->in[i];
    int bits = lg_dtype_bits(a->type);
    int64_t dummy;
    if (bits < 8 || !int_elem(a->type, (const uint8_t *)a->data, 0, &dummy)) {
        if (a->nbytes == 0 && lg_shape_numel(&a->shape) == 0) return 1; /* empty: no values */
        if (st) *st = lgo_fail(c, "input %u must be an integer tensor, not %s", i, lg_dtype_name(a->type));
        return 0;
    }
    uint64_t n = a->nbytes / (uint64_t)(bits / 8);
    int64_t want = lg_shape_numel(&a->shape);
    if (want >= 0 && (uint64_t)want != n) {
        if (st) *st = lgo_fail(c, "input %u has %llu values for shape of %lld elements", i,
                               (unsigned long long)n, (long long)want);
        return 0;
    }
    if (n > max) {
        if (st) *st = lgo_fail(c, "input %u has %llu values (at most %u expected)", i,
                               (unsigned long long)n, max);
        return 0;
    }
    for (uint64_t k = 0; k < n; k++) int_elem(a->type, (const uint8_t *)a->data, k, &out[k]);
    *count = (uint32_t)n;
    return 1;
}

int lgo_const_int(const lg_infer_ctx *c, uint32_t i, int64_t *v, lg_status *st) {
    uint32_t n = 0;
    int64_t tmp[1];
    if (!lgo_const_ints(c, i, tmp, 1, &n, st)) return 0;
    if (n != 1) {
        if (st) *st = lgo_fail(c, "input %u must hold one value, not %u", i, n);
        return 0;
    }
    *v = tmp[0];
    return 1;
}

int lgo_const_f32(const lg_infer_ctx *c, uint32_t i, float *out, uint32_t max, uint32_t *count,
                  lg_status *st) {
    if (st) *st = LG_OK;
    *count = 0;
    if (!lgo_has(c, i) || !c->in[i].data) return 0;
    const lg_infer_arg *a = &c->in[i];
    const uint8_t *p = a->data;
    uint64_t es = a->type == LG_FLOAT32 ? 4 : a->type == LG_FLOAT16 ? 2 : 0;
    if (!es) {
        if (st) *st = lgo_fail(c, "input %u must be a float tensor, not %s", i, lg_dtype_name(a->type));
        return 0;
    }
    uint64_t n = a->nbytes / es;
    if (n > max) {
        if (st) *st = lgo_fail(c, "input %u has %llu values (at most %u expected)", i,
                               (unsigned long long)n, max);
        return 0;
    }
    for (uint64_t k = 0; k < n; k++) {
        if (es == 4) {
            uint32_t u = lgi_rd_u32(p + 4 * k);
            memcpy(&out[k], &u, 4);
        } else {
            out[k] = lg_half_to_float(lgi_rd_u16(p + 2 * k));
        }
    }
    *count = (uint32_t)n;
    return 1;
}

lg_status lgo_axis(const lg_infer_ctx *c, int64_t axis, int32_t rank, int32_t *out) {
    if (rank < 0) return lgo_fail(c, "axis %lld of a tensor of unknown rank", (long long)axis);
    if (axis < -(int64_t)rank || axis >= (int64_t)rank)
        return lgo_fail(c, "axis %lld is out of range for rank %d", (long long)axis, rank);
    *out = (int32_t)(axis < 0 ? axis + rank : axis);
    return LG_OK;
}

int32_t lgo_window_out(int32_t in, int32_t k, int32_t stride, int32_t dilation, int padding) {
    if (in < 0 || k < 0 || stride <= 0) return -1;
    if (dilation <= 0) dilation = 1;
    if (padding == LG_PADDING_SAME) return (int32_t)(((int64_t)in + stride - 1) / stride);
    int64_t eff = ((int64_t)k - 1) * dilation + 1;
    int64_t n = ((int64_t)in - eff + stride) / stride;
    return n < 0 ? 0 : (int32_t)n;
}

/* ------------------------------------------------------------------ lg_op_infer */

/* "2", "1 to 3" or "at least 1": an arity range for a message. */
static const char *arity_text(uint32_t min, uint32_t max, char *buf, size_t size) {
    if (max == LG_ARITY_ANY) snprintf(buf, size, "at least %u", min);
    else if (min == max) snprintf(buf, size, "%u", min);
    else snprintf(buf, size, "%u to %u", min, max);
    return buf;
}

static bool arity_ok(uint32_t n, uint32_t min, uint32_t max) {
    return n >= min && (max == LG_ARITY_ANY || n <= max);
}


/* Options for an infer function: the op's own when they are of the table's kind, else the
   schema's defaults in buf (which must hold any options struct). */
static lg_status infer_opts(const lg_model *m, const lg_op *op, const lg_op_info *e, void *buf,
                            size_t bufsize, const void **opts, lg_error *err) {
    *opts = buf;
    memset(buf, 0, bufsize);
    if (!op) return LG_OK;
    if (op->opts_kind != LG_OPTS_NONE && op->opts_kind != e->opts_kind) {
        const char *have = lg_opts_name(op->opts_kind), *want = lg_opts_name(e->opts_kind);
        return lgi_fail(err, LG_ERR_INVALID_ARG, "%s carries %s options, it takes %s",
                        lgi_printable(lg_op_name(m, op)).s, have ? have : "unknown", want ? want : "none");
    }
    if (e->opts_kind == LG_OPTS_NONE) return LG_OK;
    if (op->opts && op->opts_kind == e->opts_kind) {
        *opts = op->opts;
        return LG_OK;
    }
    const lgi_table_desc *t = lgi_opts_table(e->opts_kind);
    if (!t || t->size > bufsize)
        return lgi_fail(err, LG_ERR_INTERNAL, "%s: no defaults for options kind %d",
                        lg_op_name(m, op), (int)e->opts_kind);
    return lg_opts_init(e->opts_kind, buf, t->size);
}

typedef union opts_buf { char c[1024]; double d; void *p; int64_t i; } opts_buf;

lg_status lg_op_infer(const lg_model *m, uint32_t sgi, uint32_t opi, const lg_shape *in_shapes,
                      int flags, lg_shape *out, int8_t *out_type, uint32_t max_out,
                      lg_error *err) {
    lgi_error_clear(err);
    if (!m || sgi >= m->n_subgraphs || opi >= m->subgraphs[sgi].n_ops || !out || !out_type)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_op_infer: bad arguments");
    const lg_subgraph *sg = &m->subgraphs[sgi];
    const lg_op *op = &sg->ops[opi];
    if (op->n_outputs > max_out)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "op %u (%s): %u outputs, room for %u", opi,
                        lgi_printable(lg_op_name(m, op)).s, op->n_outputs, max_out);
    for (uint32_t o = 0; o < op->n_outputs; o++) {
        out[o] = lgo_unknown();
        out_type[o] = -1;
    }
    const lg_op_info *e = lg_op_info_of(m, op);
    if (!e || !e->infer) return LG_OK;
    if (!arity_ok(op->n_inputs, e->min_in, e->max_in) || !arity_ok(op->n_outputs, e->min_out, e->max_out))
        return lgi_fail(err, LG_ERR_INVALID_ARG, "op %u (%s): %u inputs and %u outputs, it takes "
                        "%u..%u and %u..%u", opi, lgi_printable(lg_op_name(m, op)).s, op->n_inputs, op->n_outputs,
                        e->min_in, e->max_in, e->min_out, e->max_out);
    lg_infer_arg stack_args[16];
    lg_infer_arg *args = stack_args;
    if (op->n_inputs > 16) {
        args = calloc(op->n_inputs, sizeof *args);
        if (!args) return lgi_fail(err, LG_ERR_NOMEM, "out of memory inferring op %u", opi);
    }
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        lg_infer_arg *a = &args[k];
        memset(a, 0, sizeof *a);
        int32_t ti = op->inputs[k];
        if (ti < 0 || (uint32_t)ti >= sg->n_tensors) {
            a->type = -1;
            a->shape = lgo_unknown();
            continue;
        }
        const lg_tensor *t = &sg->tensors[ti];
        a->type = t->type;
        a->shape = in_shapes ? in_shapes[k] : lg_shape_of_tensor(t, flags & LG_INFER_SIGNATURE);
        const lg_buffer *b = t->buffer < m->n_buffers ? &m->buffers[t->buffer] : NULL;
        if (t->buffer && b && b->data && !t->sparsity) {
            a->data = b->data;
            a->nbytes = b->size;
        }
    }
    opts_buf ob;
    lg_infer_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.op = op;
    c.code = lg_op_builtin(m, op);
    c.name = lg_op_name(m, op);
    c.in = args;
    c.n_in = op->n_inputs;
    c.out = out;
    c.out_type = out_type;
    c.n_out = op->n_outputs;
    c.err = err;
    lg_status st = infer_opts(m, op, e, &ob, sizeof ob, &c.opts, err);
    if (st == LG_OK) st = e->infer(&c);
    if (st == LG_OK) {
        for (uint32_t o = 0; o < op->n_outputs; o++) {
            if (e->dtype == LG_DT_SAME && op->n_inputs && args[0].type >= 0) out_type[o] = args[0].type;
            else if (e->dtype == LG_DT_BOOL) out_type[o] = LG_BOOL;
            else if (e->dtype != LG_DT_BY_INFER) out_type[o] = -1;
            if (out[o].rank > LG_MAX_RANK) out[o] = lgo_unknown();
        }
    } else if (err && err->op < 0) {
        err->op = (int32_t)opi;
    }
    if (args != stack_args) free(args);
    return st;
}

/* ------------------------------------------------------------------ whole subgraphs */

#define MAX_IO 64

static lg_status gather_in_shapes(const lg_subgraph *sg, const lg_op *op, const lg_shape *shapes,
                                  lg_shape **buf, lg_shape *stack, uint32_t nstack, lg_error *err) {
    *buf = stack;
    if (op->n_inputs > nstack) {
        *buf = calloc(op->n_inputs, sizeof **buf);
        if (!*buf) return lgi_fail(err, LG_ERR_NOMEM, "out of memory inferring shapes");
    }
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        (*buf)[k] = t >= 0 && (uint32_t)t < sg->n_tensors ? shapes[t] : lgo_unknown();
    }
    return LG_OK;
}

lg_status lg_model_infer_shapes(const lg_model *m, uint32_t sgi, int flags, lg_shape *shapes,
                                lg_error *err) {
    lgi_error_clear(err);
    if (!m || sgi >= m->n_subgraphs || !shapes)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "lg_model_infer_shapes: bad arguments");
    const lg_subgraph *sg = &m->subgraphs[sgi];
    for (uint32_t t = 0; t < sg->n_tensors; t++)
        shapes[t] = lg_shape_of_tensor(&sg->tensors[t], flags & LG_INFER_SIGNATURE);
    lg_shape stack_in[MAX_IO], outs[MAX_IO];
    int8_t types[MAX_IO];
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const lg_op *op = &sg->ops[i];
        if (op->n_outputs > MAX_IO) continue; /* left as stored */
        lg_shape *ins;
        LG_TRY(gather_in_shapes(sg, op, shapes, &ins, stack_in, MAX_IO, err));
        lg_status st = lg_op_infer(m, sgi, i, ins, flags, outs, types, MAX_IO, err);
        if (ins != stack_in) free(ins);
        LG_TRY(st);
        for (uint32_t o = 0; o < op->n_outputs; o++) {
            int32_t t = op->outputs[o];
            if (t < 0 || (uint32_t)t >= sg->n_tensors || outs[o].rank < 0) continue;
            /* inference refines the stored shape: an unknown inferred dimension keeps the
               stored one (when the ranks agree) */
            lg_shape st_shape = shapes[t];
            if (st_shape.rank == outs[o].rank)
                for (int32_t d = 0; d < outs[o].rank; d++)
                    if (outs[o].dim[d] < 0) outs[o].dim[d] = st_shape.dim[d];
            shapes[t] = outs[o];
        }
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ validation */

static lg_status check_arity(const lg_model *m, uint32_t s, uint32_t i, const lg_op *op,
                             const lg_op_info *e, lg_error *err) {
    lgi_pname pn = lgi_printable(lg_op_name(m, op));
    const char *nm = pn.s;
    char want[32];
    if (!arity_ok(op->n_inputs, e->min_in, e->max_in))
        return lgi_fail_at(err, LG_ERR_INVALID_ARG, (int32_t)s, (int32_t)i, LGI_KEEP,
                           "subgraph %u op %u (%s): %u inputs, it takes %s", s, i, nm,
                           op->n_inputs, arity_text(e->min_in, e->max_in, want, sizeof want));
    if (!arity_ok(op->n_outputs, e->min_out, e->max_out))
        return lgi_fail_at(err, LG_ERR_INVALID_ARG, (int32_t)s, (int32_t)i, LGI_KEEP,
                           "subgraph %u op %u (%s): %u outputs, it takes %s", s, i, nm,
                           op->n_outputs, arity_text(e->min_out, e->max_out, want, sizeof want));
    for (uint32_t k = 0; k < op->n_inputs && k < 32; k++)
        if (op->inputs[k] < 0 && !(e->optional_in & (1u << k)))
            return lgi_fail_at(err, LG_ERR_INVALID_ARG, (int32_t)s, (int32_t)i, LGI_KEEP,
                               "subgraph %u op %u (%s): input %u is absent (-1) but is not "
                               "optional", s, i, nm, k);
    return LG_OK;
}

static lg_status check_shapes(const lg_model *m, uint32_t s, uint32_t i, const lg_op *op,
                              lg_error *err) {
    const lg_subgraph *sg = &m->subgraphs[s];
    lg_shape outs[MAX_IO];
    int8_t types[MAX_IO];
    if (op->n_outputs > MAX_IO) return LG_OK;
    lg_error e2;
    lg_status st = lg_op_infer(m, s, i, NULL, LG_INFER_SIGNATURE, outs, types, MAX_IO, &e2);
    if (st != LG_OK)
        return lgi_fail_at(err, st, (int32_t)s, (int32_t)i, e2.tensor, "subgraph %u %.480s", s, e2.msg);
    for (uint32_t o = 0; o < op->n_outputs; o++) {
        int32_t ti = op->outputs[o];
        if (ti < 0 || (uint32_t)ti >= sg->n_tensors) continue;
        const lg_tensor *t = &sg->tensors[ti];
        lg_shape stored = lg_shape_of_tensor(t, true);
        if (!lg_shape_compatible(&stored, &outs[o])) {
            char a[128], b[128];
            return lgi_fail_at(err, LG_ERR_INVALID_ARG, (int32_t)s, (int32_t)i, ti,
                               "subgraph %u op %u (%s): output %u (tensor %d \"%s\") is "
                               "stored as %s but its inputs give %s",
                               s, i, lgi_printable(lg_op_name(m, op)).s, o, ti,
                               lgi_printable(t->name).s, lg_shape_str(&stored, a, sizeof a),
                               lg_shape_str(&outs[o], b, sizeof b));
        }
        if (types[o] >= 0 && types[o] != t->type) {
            return lgi_fail_at(err, LG_ERR_INVALID_ARG, (int32_t)s, (int32_t)i, ti,
                               "subgraph %u op %u (%s): output %u (tensor %d \"%s\") is "
                               "stored as %s but the op gives %s",
                               s, i, lgi_printable(lg_op_name(m, op)).s, o, ti,
                               lgi_printable(t->name).s, lg_dtype_name(t->type),
                               lg_dtype_name(types[o]));
        }
    }
    return LG_OK;
}

lg_status lg_model_validate_ops(const lg_model *m, lg_error *err) {
    lgi_error_clear(err);
    if (!m) return lgi_fail(err, LG_ERR_INVALID_ARG, "no model given");
    for (uint32_t s = 0; s < m->n_subgraphs; s++) {
        const lg_subgraph *sg = &m->subgraphs[s];
        for (uint32_t i = 0; i < sg->n_ops; i++) {
            const lg_op *op = &sg->ops[i];
            const lg_op_info *e = lg_op_info_of(m, op);
            if (!e) continue; /* an op litegpu does not know: nothing to hold it to */
            if (op->opts_kind != LG_OPTS_NONE && op->opts_kind != e->opts_kind) {
                const char *have = lg_opts_name(op->opts_kind), *want = lg_opts_name(e->opts_kind);
                return lgi_fail_at(err, LG_ERR_INVALID_ARG, (int32_t)s, (int32_t)i, LGI_KEEP,
                                   "subgraph %u op %u (%s): carries %s, it takes %s", s, i,
                                   lgi_printable(lg_op_name(m, op)).s,
                                   have ? have : "unknown options", want ? want : "no options");
            }
            /* both name the subgraph and the op in err */
            LG_TRY(check_arity(m, s, i, op, e, err));
            LG_TRY(check_shapes(m, s, i, op, err));
        }
    }
    return LG_OK;
}
