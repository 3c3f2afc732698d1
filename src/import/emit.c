/* The lowering context's helpers (import_impl.h): values, tensors, constants, ops with
 * inferred shapes and eager constant folding, attributes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "import/import_impl.h"
#include "lg/graph.h"
#include "passes/passes_impl.h"

/* ------------------------------------------------------------------ errors */

static lg_status node_fail(li_ctx *c, lg_status st, const char *what, const char *fmt, va_list ap)
    LGI_PRINTF(4, 0);
static lg_status node_fail(li_ctx *c, lg_status st, const char *what, const char *fmt, va_list ap) {
    if (c->st != LG_OK) return c->st;
    char why[300];
    vsnprintf(why, sizeof why, fmt, ap);
    const lg_onnx_node *n = c->node;
    c->st = st;
    if (!n) {
        lgi_fail(c->err, st, "%s%s%s", what, *why ? ": " : "", why);
        return st;
    }
    const char *dom = n->domain.n ? n->domain.s : "ai.onnx";
    int dlen = n->domain.n ? (int)n->domain.n : 7;
    lgi_fail(c->err, st, "node %u \"%.*s\" (%.*s, domain %.*s, opset %lld): %s%s%s", c->node_index,
             LG_ONNX_STR(n->name), LG_ONNX_STR(n->op_type), dlen, dom, (long long)c->opset, what,
             *why ? ": " : "", why);
    return st;
}

lg_status li_unsupported(li_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lg_status st = node_fail(c, LG_ERR_UNSUPPORTED, "not supported", fmt, ap);
    va_end(ap);
    return st;
}

lg_status li_bad(li_ctx *c, lg_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lg_status r = node_fail(c, st, "invalid", fmt, ap);
    va_end(ap);
    return r;
}

void li_note(li_ctx *c, const char *fmt, ...) {
    lg_import_report *r = c->rep;
    if (!r || r->n_notes >= 256) return;
    char buf[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **nn = realloc(r->notes, (r->n_notes + 1) * sizeof *nn);
    if (!nn) return;
    r->notes = nn;
    r->notes[r->n_notes] = malloc(strlen(buf) + 1);
    if (!r->notes[r->n_notes]) return;
    strcpy(r->notes[r->n_notes++], buf);
}

int64_t li_norm_axis(int64_t a, int rank) { return a < 0 ? a + rank : a; }

/* ------------------------------------------------------------------ values */

static uint32_t str_hash(lg_onnx_str s) {
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < s.n; i++) h = (h ^ (uint8_t)s.s[i]) * 16777619u;
    return h;
}

static bool str_same(lg_onnx_str a, lg_onnx_str b) {
    return a.n == b.n && (a.n == 0 || memcmp(a.s, b.s, a.n) == 0);
}

li_val *li_find(li_ctx *c, lg_onnx_str name) {
    if (!c->cap_vals || !name.n) return NULL;
    uint32_t i = str_hash(name) & (c->cap_vals - 1);
    while (c->vals[i].t != -2) {
        if (str_same(c->vals[i].name, name)) return &c->vals[i];
        i = (i + 1) & (c->cap_vals - 1);
    }
    return NULL;
}

lg_status li_bind(li_ctx *c, lg_onnx_str name, int32_t t, int32_t onnx_type) {
    LI_TRY(c);
    if (!name.n) return LG_OK;
    if (2 * (c->n_vals + 1) > c->cap_vals) {
        uint32_t ncap = c->cap_vals ? 2 * c->cap_vals : 256;
        li_val *nv = malloc(ncap * sizeof *nv);
        if (!nv) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory (values)");
        for (uint32_t i = 0; i < ncap; i++) nv[i].t = -2;
        for (uint32_t i = 0; i < c->cap_vals; i++) {
            if (c->vals[i].t == -2) continue;
            uint32_t j = str_hash(c->vals[i].name) & (ncap - 1);
            while (nv[j].t != -2) j = (j + 1) & (ncap - 1);
            nv[j] = c->vals[i];
        }
        free(c->vals);
        c->vals = nv;
        c->cap_vals = ncap;
    }
    li_val *v = li_find(c, name);
    if (!v) {
        uint32_t i = str_hash(name) & (c->cap_vals - 1);
        while (c->vals[i].t != -2) i = (i + 1) & (c->cap_vals - 1);
        v = &c->vals[i];
        c->n_vals++;
    }
    v->name = name;
    v->t = t;
    v->onnx_type = onnx_type;
    return LG_OK;
}

const li_val *li_in(li_ctx *c, uint32_t k) {
    if (!c->node || k >= c->node->n_inputs || !c->node->inputs[k].n) return NULL;
    return li_find(c, c->node->inputs[k]);
}

const li_val *li_need(li_ctx *c, uint32_t k) {
    const li_val *v = li_in(c, k);
    if (!v && LI_OK(c)) li_bad(c, LG_ERR_FORMAT, "input %u is missing", k);
    return v;
}

bool li_has_out(li_ctx *c, uint32_t k) {
    return c->node && k < c->node->n_outputs && c->node->outputs[k].n;
}

lg_status li_out(li_ctx *c, uint32_t k, int32_t t, int32_t onnx_type) {
    LI_TRY(c);
    if (!li_has_out(c, k)) return LG_OK;
    if (t < 0) return li_bad(c, LG_ERR_INTERNAL, "output %u has no tensor", k);
    return li_bind(c, c->node->outputs[k], t, onnx_type);
}

/* ------------------------------------------------------------------ tensors */

lg_tensor *li_t(li_ctx *c, int32_t t) { return &c->m->subgraphs[0].tensors[t]; }
lg_shape li_shape(li_ctx *c, int32_t t) { return lg_shape_of_tensor(li_t(c, t), false); }
int li_rank(li_ctx *c, int32_t t) { return (int)li_t(c, t)->rank; }
int32_t li_dim(li_ctx *c, int32_t t, int d) { return li_t(c, t)->shape[d]; }
lg_dtype li_type(li_ctx *c, int32_t t) { return (lg_dtype)li_t(c, t)->type; }
bool li_is_const(li_ctx *c, int32_t t) { return t >= 0 && lg_tensor_is_const(c->m, 0, t); }

bool li_const_ints(li_ctx *c, int32_t t, int64_t *out, uint32_t max, uint32_t *n) {
    if (t < 0 || !li_is_const(c, t)) return false;
    const lg_tensor *x = li_t(c, t);
    if (lg_tensor_const_ints(c->m, x, out, max, n)) return true;
    /* float constants holding whole numbers (ONNX shape-like values in float tensors) */
    const lg_buffer *b = lg_tensor_buffer(c->m, x);
    int64_t cnt = lg_tensor_numel(x);
    if (x->type != LG_FLOAT32 || cnt < 0 || (uint64_t)cnt > max || (cnt && (!b || b->size != (uint64_t)cnt * 4)))
        return false;
    for (int64_t i = 0; i < cnt; i++) {
        float f;
        memcpy(&f, b->data + 4 * i, 4);
        out[i] = (int64_t)f;
    }
    *n = (uint32_t)cnt;
    return true;
}

const float *li_const_f32(li_ctx *c, int32_t t) {
    if (t < 0 || !li_is_const(c, t) || li_type(c, t) != LG_FLOAT32) return NULL;
    const lg_buffer *b = lg_tensor_buffer(c->m, li_t(c, t));
    static const float none[1] = {0};
    return b && b->size ? (const float *)(const void *)b->data : none;
}

int li_tfl_type(int32_t ot) {
    switch (ot) {
    case LG_ONNX_FLOAT: return LG_FLOAT32;
    case LG_ONNX_INT64: case LG_ONNX_INT32: return LG_INT32;
    case LG_ONNX_BOOL: return LG_BOOL;
    case LG_ONNX_UINT8: return LG_UINT8;
    case LG_ONNX_INT8: return LG_INT8;
    case LG_ONNX_INT16: return LG_INT16;
    default: return -1;
    }
}

int32_t li_onnx_type_of(lg_dtype t) {
    switch (t) {
    case LG_FLOAT32: return LG_ONNX_FLOAT;
    case LG_INT32: return LG_ONNX_INT32;
    case LG_BOOL: return LG_ONNX_BOOL;
    case LG_UINT8: return LG_ONNX_UINT8;
    case LG_INT8: return LG_ONNX_INT8;
    case LG_INT16: return LG_ONNX_INT16;
    case LG_INT64: return LG_ONNX_INT64;
    default: return LG_ONNX_UNDEFINED;
    }
}

/* ------------------------------------------------------------------ constants */

static const char *new_name(li_ctx *c, const char *what, char *buf, size_t n) {
    lg_onnx_str base = {0};
    if (c->node && c->node->n_outputs) base = c->node->outputs[0];
    snprintf(buf, n, "%.*s#%s%u", LG_ONNX_STR(base), what, c->name_seq++);
    return buf;
}

static bool dims32(li_ctx *c, const int64_t *dims, uint32_t rank, int32_t *out) {
    if (rank > LG_MAX_RANK) {
        li_unsupported(c, "rank %u above %d", rank, LG_MAX_RANK);
        return false;
    }
    for (uint32_t i = 0; i < rank; i++) {
        if (dims[i] < 0 || dims[i] > INT32_MAX) {
            li_bad(c, LG_ERR_FORMAT, "dimension %lld out of range", (long long)dims[i]);
            return false;
        }
        out[i] = (int32_t)dims[i];
    }
    return true;
}

int32_t li_konst(li_ctx *c, lg_dtype type, const int64_t *dims, uint32_t rank, const void *data,
                 uint64_t nbytes) {
    if (!LI_OK(c)) return -1;
    int32_t d[LG_MAX_RANK];
    if (!dims32(c, dims, rank, d)) return -1;
    char nm[300];
    int32_t idx = -1;
    static const uint8_t zero[8] = {0};
    if (!data) data = zero;
    if (lg_subgraph_add_const(c->m, 0, new_name(c, "k", nm, sizeof nm), type, d, rank, data,
                              nbytes, &idx, c->err) != LG_OK) {
        c->st = c->err ? c->err->status : LG_ERR_INTERNAL;
        if (c->st == LG_OK) c->st = LG_ERR_INTERNAL;
        return -1;
    }
    return idx;
}

int32_t li_kf32(li_ctx *c, const int64_t *dims, uint32_t rank, const float *data) {
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; i++) n *= (uint64_t)(dims[i] > 0 ? dims[i] : 0);
    return li_konst(c, LG_FLOAT32, dims, rank, data, 4 * n);
}

int32_t li_kf(li_ctx *c, float v) { return li_konst(c, LG_FLOAT32, NULL, 0, &v, 4); }

int32_t li_ki32(li_ctx *c, const int64_t *v, uint32_t n) {
    int32_t buf[64];
    if (n > 64) {
        li_unsupported(c, "%u values", n);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        buf[i] = v[i] > INT32_MAX ? INT32_MAX : v[i] < INT32_MIN ? INT32_MIN : (int32_t)v[i];
    int64_t d = n;
    return li_konst(c, LG_INT32, &d, 1, buf, 4ull * n);
}

int32_t li_ki(li_ctx *c, int64_t v) {
    int32_t x = (int32_t)v;
    return li_konst(c, LG_INT32, NULL, 0, &x, 4);
}

int32_t li_kscalar_like(li_ctx *c, int32_t t, double v) {
    if (!LI_OK(c)) return -1;
    switch (li_type(c, t)) {
    case LG_FLOAT32: return li_kf(c, (float)v);
    case LG_INT32: return li_ki(c, (int64_t)v);
    case LG_INT8: { int8_t x = (int8_t)v; return li_konst(c, LG_INT8, NULL, 0, &x, 1); }
    case LG_UINT8: { uint8_t x = (uint8_t)v; return li_konst(c, LG_UINT8, NULL, 0, &x, 1); }
    case LG_INT16: { int16_t x = (int16_t)v; return li_konst(c, LG_INT16, NULL, 0, &x, 2); }
    case LG_BOOL: { uint8_t x = v != 0; return li_konst(c, LG_BOOL, NULL, 0, &x, 1); }
    default: li_unsupported(c, "%s values", lg_dtype_name(li_type(c, t))); return -1;
    }
}

lg_status li_tensor_const(li_ctx *c, const lg_onnx_tensor *ot, int32_t *out, int32_t *onnx_type) {
    LI_TRY(c);
    lg_onnx_data d;
    if (lg_onnx_tensor_data(ot, &d, c->err) != LG_OK) return c->st = c->err ? c->err->status : LG_ERR_FORMAT;
    int ty = li_tfl_type(ot->data_type);
    if (ty < 0)
        return li_unsupported(c, "tensor \"%.*s\" of type %s", LG_ONNX_STR(ot->name),
                              lg_onnx_dtype_name(ot->data_type));
    *onnx_type = ot->data_type;
    if (ot->data_type != LG_ONNX_INT64) {
        *out = li_konst(c, (lg_dtype)ty, ot->dims, ot->n_dims, d.data, d.nbytes);
        return c->st;
    }
    int32_t *buf = malloc((size_t)(d.count ? d.count : 1) * 4);
    if (!buf) return c->st = lgi_fail(c->err, LG_ERR_NOMEM, "out of memory");
    const uint8_t *p = d.data;
    bool clamped = false;
    for (uint64_t i = 0; i < d.count; i++) {
        int64_t v = (int64_t)lgi_rd_u64(p + 8 * i);
        if (v > INT32_MAX || v < INT32_MIN) clamped = true;
        buf[i] = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
    }
    c->n_int64_narrowed++;
    if (clamped) c->n_int64_clamped++;
    *out = li_konst(c, LG_INT32, ot->dims, ot->n_dims, buf, 4 * d.count);
    free(buf);
    return c->st;
}

/* ------------------------------------------------------------------ ops */

static void note_lowering(li_ctx *c, int32_t code) {
    const char *nm = lg_builtin_name(code);
    size_t len = strlen(c->lowering);
    if (len + strlen(nm) + 4 >= sizeof c->lowering) return;
    snprintf(c->lowering + len, sizeof c->lowering - len, "%s%s", len ? " + " : "", nm);
}

static void fold_now(li_ctx *c, uint32_t opi) {
    lg_graph *g = NULL;
    lg_error e;
    if (lg_graph_build(c->m, 0, &g, &e) != LG_OK) return;
    lg_pass_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.fold_max_bytes = 64u << 20;
    ro.fold_max_growth = 4;
    lg_pass_delta d;
    memset(&d, 0, sizeof d);
    lg_pass_ctx pc = {c->m, 0, &ro, &d, &e};
    if (lgp_fold_constants.match(&pc, g, opi) && lgp_fold_constants.apply(&pc, g, opi) == LG_OK &&
        d.tensors_folded)
        c->n_folded++;
    lg_graph_free(g);
}

lg_status li_op_n(li_ctx *c, int32_t code, const int32_t *ins, uint32_t n_in, const void *opts,
                  const int *out_types, int32_t *outs, uint32_t n_out) {
    LI_TRY(c);
    const lg_op_info *e = lg_op_info_builtin(code);
    if (!e || n_out > 8) return li_bad(c, LG_ERR_INTERNAL, "op %d", code);
    for (uint32_t k = 0; k < n_in; k++)
        if (ins[k] < -1 || (ins[k] == -1 && !(e->optional_in & (1u << k))))
            return li_bad(c, LG_ERR_INTERNAL, "%s input %u unset", e->name, k);
    lg_opts_kind kind = opts ? e->opts_kind : LG_OPTS_NONE;
    for (uint32_t k = 0; k < n_out; k++) {
        char nm[300];
        int ty = out_types && out_types[k] >= 0 ? out_types[k] : (n_in && ins[0] >= 0 ? (int)li_type(c, ins[0]) : (int)LG_FLOAT32);
        if (lg_subgraph_add_tensor(c->m, 0, new_name(c, "", nm, sizeof nm), (lg_dtype)ty, NULL, 0,
                                   &outs[k], c->err) != LG_OK)
            return c->st = LG_ERR_INTERNAL;
    }
    int32_t opi = -1;
    if (lg_subgraph_add_op(c->m, 0, code, NULL, 1, ins, n_in, outs, n_out, kind, opts, &opi,
                           c->err) != LG_OK)
        return c->st = c->err && c->err->status ? c->err->status : LG_ERR_INTERNAL;
    lg_shape sh[8];
    int8_t ty[8];
    lg_error e2;
    if (lg_op_infer(c->m, 0, (uint32_t)opi, NULL, LG_INFER_STATIC, sh, ty, n_out, &e2) != LG_OK)
        return li_bad(c, LG_ERR_FORMAT, "%s", e2.msg);
    for (uint32_t k = 0; k < n_out; k++) {
        if (sh[k].rank < 0 || !lg_shape_is_static(&sh[k]))
            return li_unsupported(c, "%s output %u has a shape computed at run time (from an input that is not constant)", e->name, k);
        if (lg_tensor_set_shape(c->m, 0, outs[k], sh[k].dim, (uint32_t)sh[k].rank, c->err) != LG_OK)
            return c->st = LG_ERR_INTERNAL;
        if ((!out_types || out_types[k] < 0) && ty[k] >= 0) li_t(c, outs[k])->type = ty[k];
    }
    note_lowering(c, code);
    c->n_emitted++;
    bool all_const = n_in > 0;
    for (uint32_t k = 0; k < n_in; k++)
        if (ins[k] >= 0 && !li_is_const(c, ins[k])) all_const = false;
    if (all_const) fold_now(c, (uint32_t)opi);
    return LG_OK;
}

int32_t li_op(li_ctx *c, int32_t code, const int32_t *ins, uint32_t n_in, const void *opts, int out_type) {
    int32_t out = -1;
    int ot = out_type;
    if (li_op_n(c, code, ins, n_in, opts, &ot, &out, 1) != LG_OK) return -1;
    return out;
}

int32_t li_unary(li_ctx *c, int32_t code, int32_t x) {
    if (!LI_OK(c)) return -1;
    return li_op(c, code, &x, 1, NULL, -1);
}

int32_t li_binary(li_ctx *c, int32_t code, int32_t a, int32_t b) {
    if (!LI_OK(c)) return -1;
    int32_t ins[2] = {a, b};
    int ty = -1;
    if (code == LG_OP_EQUAL || code == LG_OP_NOT_EQUAL || code == LG_OP_LESS || code == LG_OP_LESS_EQUAL ||
        code == LG_OP_GREATER || code == LG_OP_GREATER_EQUAL)
        ty = LG_BOOL;
    return li_op(c, code, ins, 2, NULL, ty);
}

int32_t li_transpose(li_ctx *c, int32_t x, const int *perm, int rank) {
    if (!LI_OK(c)) return -1;
    int64_t p[LG_MAX_RANK];
    bool ident = true;
    for (int i = 0; i < rank; i++) {
        p[i] = perm[i];
        if (perm[i] != i) ident = false;
    }
    if (ident) return x;
    int32_t pt = li_ki32(c, p, (uint32_t)rank);
    return LI_OP(c, LG_OP_TRANSPOSE, NULL, -1, x, pt);
}

int32_t li_reshape(li_ctx *c, int32_t x, const int64_t *dims, uint32_t rank) {
    if (!LI_OK(c)) return -1;
    lg_shape s = li_shape(c, x);
    if ((uint32_t)s.rank == rank) {
        bool same = true;
        for (uint32_t i = 0; i < rank; i++)
            if (s.dim[i] != dims[i]) same = false;
        if (same) return x;
    }
    int32_t st = li_ki32(c, dims, rank);
    return LI_OP(c, LG_OP_RESHAPE, NULL, -1, x, st);
}

int32_t li_cast(li_ctx *c, int32_t x, lg_dtype to) {
    if (!LI_OK(c)) return -1;
    if (li_type(c, x) == to) return x;
    lg_cast_options o = {0};
    o.in_data_type = (int8_t)li_type(c, x);
    o.out_data_type = (int8_t)to;
    return li_op(c, LG_OP_CAST, &x, 1, &o, to);
}

int32_t li_to_nhwc(li_ctx *c, int32_t x) {
    int r = li_rank(c, x), p[LG_MAX_RANK];
    p[0] = 0;
    for (int i = 1; i < r - 1; i++) p[i] = i + 1;
    p[r - 1] = 1;
    return li_transpose(c, x, p, r);
}

int32_t li_to_nchw(li_ctx *c, int32_t x) {
    int r = li_rank(c, x), p[LG_MAX_RANK];
    p[0] = 0;
    p[1] = r - 1;
    for (int i = 2; i < r; i++) p[i] = i - 1;
    return li_transpose(c, x, p, r);
}

int32_t li_slice(li_ctx *c, int32_t x, const int64_t *b, const int64_t *e, const int64_t *s,
                 int32_t end_mask) {
    if (!LI_OK(c)) return -1;
    int r = li_rank(c, x);
    bool ident = end_mask == 0;
    for (int i = 0; i < r && ident; i++)
        if (b[i] != 0 || e[i] != li_dim(c, x, i) || s[i] != 1) ident = false;
    if (ident) return x;
    lg_strided_slice_options o;
    lg_opts_init(LG_OPTS_STRIDED_SLICE_OPTIONS, &o, sizeof o);
    o.end_mask = end_mask;
    int32_t tb = li_ki32(c, b, (uint32_t)r), te = li_ki32(c, e, (uint32_t)r), ts = li_ki32(c, s, (uint32_t)r);
    return LI_OP(c, LG_OP_STRIDED_SLICE, &o, -1, x, tb, te, ts);
}

/* ------------------------------------------------------------------ attributes */

const lg_onnx_attr *li_attr(const lg_onnx_node *n, const char *name) {
    for (uint32_t i = 0; i < n->n_attrs; i++)
        if (lg_onnx_str_eq(n->attrs[i].name, name)) return &n->attrs[i];
    return NULL;
}

int64_t li_attr_i(const lg_onnx_node *n, const char *name, int64_t def) {
    const lg_onnx_attr *a = li_attr(n, name);
    return a ? a->i : def;
}

float li_attr_f(const lg_onnx_node *n, const char *name, float def) {
    const lg_onnx_attr *a = li_attr(n, name);
    return a ? a->f : def;
}

int li_attr_ints(const lg_onnx_node *n, const char *name, int64_t *out, uint32_t max) {
    const lg_onnx_attr *a = li_attr(n, name);
    if (!a) return -1;
    uint32_t k = a->n_ints < max ? a->n_ints : max;
    for (uint32_t i = 0; i < k; i++) out[i] = a->ints[i];
    return (int)k;
}

int li_attr_floats(const lg_onnx_node *n, const char *name, float *out, uint32_t max) {
    const lg_onnx_attr *a = li_attr(n, name);
    if (!a) return -1;
    uint32_t k = a->n_floats < max ? a->n_floats : max;
    for (uint32_t i = 0; i < k; i++) out[i] = a->floats[i];
    return (int)k;
}

bool li_attr_is(const lg_onnx_node *n, const char *name, const char *s, const char *def) {
    const lg_onnx_attr *a = li_attr(n, name);
    if (!a) return def && strcmp(s, def) == 0;
    return lg_onnx_str_eq(a->s, s);
}

/* li_ops_gather before li_ops_reduce: its ArgMax/ArgMin (with select_last_index) win */
static const li_op_entry *const op_tables[] = {li_ops_gather, li_ops_scatter, li_ops_elementwise, li_ops_conv,
                                               li_ops_shape, li_ops_reduce, li_ops_resize, li_ops_index,
                                               li_ops_grid, li_ops_einsum};

/* The claimed (op type, opset range) pairs, merged per op type in name order, opsets capped
   at LG_ONNX_MAX_OPSET. */
uint32_t lg_onnx_claimed_ops(lg_onnx_claim *out, uint32_t max) {
    uint32_t n = 0;
    for (size_t t = 0; t < sizeof op_tables / sizeof op_tables[0]; t++)
        for (const li_op_entry *e = op_tables[t]; e->op_type; e++) {
            int lo = e->min_opset, hi = e->max_opset > LG_ONNX_MAX_OPSET ? LG_ONNX_MAX_OPSET : e->max_opset;
            uint32_t k = 0;
            while (k < n && strcmp(out[k].op_type, e->op_type) != 0) k++;
            if (k < n) {
                if (lo < out[k].min_opset) out[k].min_opset = lo;
                if (hi > out[k].max_opset) out[k].max_opset = hi;
                continue;
            }
            if (n == max) continue;
            /* insertion in name order */
            uint32_t at = n;
            while (at > 0 && strcmp(out[at - 1].op_type, e->op_type) > 0) {
                out[at] = out[at - 1];
                at--;
            }
            out[at].op_type = e->op_type;
            out[at].min_opset = lo;
            out[at].max_opset = hi;
            n++;
        }
    return n;
}

const li_op_entry *li_find_op(const char *op_type, uint32_t n, int64_t opset) {
    const li_op_entry *const *tables = op_tables;
    for (size_t t = 0; t < sizeof op_tables / sizeof op_tables[0]; t++)
        for (const li_op_entry *e = tables[t]; e->op_type; e++)
            if (strlen(e->op_type) == n && memcmp(e->op_type, op_type, n) == 0 &&
                opset >= e->min_opset && opset <= e->max_opset)
                return e;
    return NULL;
}
