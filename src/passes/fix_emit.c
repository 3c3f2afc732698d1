/* What the `fix` passes' rewrites are built from (fix_emit.h): new tensors, constants and
 * ops, reshapes, slicing along one axis, broadcasting by TILE. */
#include <stdlib.h>

#include "passes/fix_emit.h"

static void name_of(const lg_pass_ctx *c, int32_t t, const char *suffix, char *buf, size_t n) {
    const char *base = t >= 0 ? lgp_tensor(c, t)->name : NULL;
    if (base && *base) snprintf(buf, n, "%.150s/%s", base, suffix);
    else snprintf(buf, n, "t%d/%s", t, suffix);
}

bool fx_per_axis(const lg_tensor *t) {
    return t->quant && (t->quant->n_scale > 1 || t->quant->n_zero_point > 1);
}

static bool dims_are(const lg_tensor *t, const int32_t *shape, uint32_t rank);

bool fx_same_shape(const lg_tensor *a, const lg_tensor *b) { return dims_are(a, b->shape, b->rank); }

static bool dims_are(const lg_tensor *t, const int32_t *shape, uint32_t rank) {
    if (t->rank != rank) return false;
    for (uint32_t d = 0; d < rank; d++)
        if (t->shape[d] != shape[d]) return false;
    return true;
}

bool fx_dynamic(const lg_tensor *t) {
    for (uint32_t d = 0; d < t->n_shape_signature; d++)
        if (t->shape_signature[d] < 0) return true;
    return false;
}

/* like's per-tensor quantization onto t (values copied first: adding may move tensors). */
static lg_status copy_quant(lg_pass_ctx *c, int32_t like, int32_t t) {
    const lg_quant *q = lgp_tensor(c, like)->quant;
    if (!q || !q->n_scale || q->n_scale > 1 || lgp_tensor(c, like)->type != lgp_tensor(c, t)->type)
        return LG_OK;
    float scale = q->scale[0];
    int64_t zp = q->n_zero_point ? q->zero_point[0] : 0;
    return lg_tensor_set_quant(c->m, c->sg, (uint32_t)t, &scale, &zp, 1, 0, c->err);
}

lg_status fx_tensor(lg_pass_ctx *c, int32_t like, const char *suffix, int type, const int32_t *shape,
                    uint32_t rank, int32_t *out) {
    char name[200];
    name_of(c, like, suffix, name, sizeof name);
    LG_TRY(lg_subgraph_add_tensor(c->m, c->sg, name, (lg_dtype)type, shape, rank, out, c->err));
    return like >= 0 ? copy_quant(c, like, *out) : LG_OK;
}

lg_status fx_const(lg_pass_ctx *c, int32_t near, const char *suffix, lg_dtype type, const int32_t *shape,
                   uint32_t rank, const void *data, uint64_t nbytes, int32_t *out) {
    char name[200];
    name_of(c, near, suffix, name, sizeof name);
    return lg_subgraph_add_const(c->m, c->sg, name, type, shape, rank, data, nbytes, out, c->err);
}

lg_status fx_ints(lg_pass_ctx *c, int32_t near, const char *suffix, const int32_t *v, uint32_t n,
                  int32_t *out) {
    int32_t shape[1] = {(int32_t)n};
    return fx_const(c, near, suffix, LG_INT32, shape, 1, v, 4ull * n, out);
}

lg_status fx_scalar(lg_pass_ctx *c, int32_t near, const char *suffix, float v, int32_t *out) {
    return fx_const(c, near, suffix, LG_FLOAT32, NULL, 0, &v, 4, out);
}

lg_status fx_op(lg_pass_ctx *c, int32_t code, const int32_t *in, uint32_t n_in, const int32_t *out,
                uint32_t n_out, const void *opts) {
    const lg_op_info *e = lg_op_info_builtin(code);
    lg_opts_kind kind = opts && e ? e->opts_kind : LG_OPTS_NONE;
    LG_TRY(lg_subgraph_add_op(c->m, c->sg, code, NULL, 1, in, n_in, out, n_out, kind, opts, NULL,
                              c->err));
    c->delta->ops_added++;
    return LG_OK;
}

lg_status fx_unary(lg_pass_ctx *c, int32_t code, int32_t x, int32_t out, int32_t *res) {
    if (out < 0) {
        const lg_tensor *t = lgp_tensor(c, x);
        int32_t shape[LG_MAX_RANK];
        memcpy(shape, t->shape, t->rank * sizeof shape[0]);
        LG_TRY(fx_tensor(c, x, lg_builtin_name(code), t->type, shape, t->rank, &out));
    }
    *res = out;
    return fx_op(c, code, &x, 1, &out, 1, NULL);
}

lg_status fx_binary(lg_pass_ctx *c, int32_t code, int32_t a, int32_t b, int32_t like, int32_t out,
                    int32_t *res) {
    if (out < 0) {
        const lg_tensor *t = lgp_tensor(c, like);
        int32_t shape[LG_MAX_RANK];
        memcpy(shape, t->shape, t->rank * sizeof shape[0]);
        LG_TRY(fx_tensor(c, like, lg_builtin_name(code), t->type, shape, t->rank, &out));
    }
    *res = out;
    return fx_op(c, code, (const int32_t[]){a, b}, 2, &out, 1, NULL);
}

lg_status fx_reshape(lg_pass_ctx *c, int32_t x, const int32_t *shape, uint32_t rank, int32_t out,
                     int32_t *res) {
    if (lg_tensor_is_const(c->m, c->sg, x) && out < 0) {
        const lg_tensor *t = lgp_tensor(c, x);
        const lg_buffer *b = &c->m->buffers[t->buffer];
        LG_TRY(fx_const(c, x, "reshaped", (lg_dtype)t->type, shape, rank, b->data, b->size, res));
        return copy_quant(c, x, *res);
    }
    if (out < 0) LG_TRY(fx_tensor(c, x, "reshaped", lgp_tensor(c, x)->type, shape, rank, &out));
    int32_t st = -1;
    LG_TRY(fx_ints(c, out, "shape", shape, rank, &st));
    *res = out;
    return fx_op(c, LG_OP_RESHAPE, (const int32_t[]){x, st}, 2, &out, 1, NULL);
}

lg_status fx_done(lg_pass_ctx *c, uint32_t replaced) {
    if (replaced != UINT32_MAX) {
        LG_TRY(lg_op_remove(c->m, c->sg, replaced, c->err));
        c->delta->ops_removed++;
    }
    LG_TRY(lg_subgraph_toposort(c->m, c->sg, NULL, c->err));
    c->delta->applied++;
    return LG_OK;
}

/* ------------------------------------------------------------------ slicing */

void fx_split_dims(const lg_tensor *t, uint32_t a, uint32_t b, int64_t *outer, int64_t *mid,
                   int64_t *inner) {
    *outer = *mid = *inner = 1;
    for (uint32_t d = 0; d < t->rank; d++) {
        int64_t *p = d < a ? outer : d < b ? mid : inner;
        *p *= t->shape[d];
    }
}

uint32_t fx_runs(const int64_t *idx, int64_t n, fx_piece *pieces, uint32_t max) {
    uint32_t np = 0;
    for (int64_t i = 0; i < n;) {
        if (np == max) return max + 1;
        fx_piece p = {idx[i], 1, 1};
        if (i + 1 < n && idx[i + 1] > idx[i]) {
            p.step = idx[i + 1] - idx[i];
            while (i + p.n < n && idx[i + p.n] - idx[i + p.n - 1] == p.step) p.n++;
        }
        pieces[np++] = p;
        i += p.n;
    }
    return np;
}

lg_status fx_slicing_view(lg_pass_ctx *c, int32_t x, uint32_t a, uint32_t b, int32_t *view,
                          uint32_t *axis) {
    const lg_tensor *t = lgp_tensor(c, x);
    if (b == a + 1 && a >= 1 && (t->rank == 3 || t->rank == 4) && t->shape[0] == 1) {
        *view = x;
        *axis = a;
        return LG_OK;
    }
    int64_t outer, mid, inner;
    fx_split_dims(t, a, b, &outer, &mid, &inner);
    int32_t shape[4] = {1, (int32_t)outer, (int32_t)mid, (int32_t)inner};
    *axis = 2;
    return fx_reshape(c, x, shape, 4, -1, view);
}

lg_status fx_slice(lg_pass_ctx *c, int32_t view, uint32_t axis, const fx_piece *p, const char *suffix,
                   int32_t out, int32_t *res) {
    const lg_tensor *t = lgp_tensor(c, view);
    uint32_t r = t->rank;
    int32_t begin[LG_MAX_RANK], size[LG_MAX_RANK], end[LG_MAX_RANK], stride[LG_MAX_RANK];
    for (uint32_t d = 0; d < r; d++) {
        begin[d] = 0;
        size[d] = end[d] = t->shape[d];
        stride[d] = 1;
    }
    begin[axis] = (int32_t)p->begin;
    size[axis] = (int32_t)p->n;
    end[axis] = (int32_t)(p->begin + (p->n - 1) * p->step + 1);
    stride[axis] = (int32_t)p->step;
    if (out < 0) LG_TRY(fx_tensor(c, view, suffix, t->type, size, r, &out));
    *res = out;
    int32_t bt = -1, st = -1, et = -1;
    LG_TRY(fx_ints(c, out, "begin", begin, r, &bt));
    if (p->step == 1 || p->n == 1) {
        LG_TRY(fx_ints(c, out, "size", size, r, &st));
        return fx_op(c, LG_OP_SLICE, (const int32_t[]){view, bt, st}, 3, &out, 1, NULL);
    }
    LG_TRY(fx_ints(c, out, "end", end, r, &et));
    LG_TRY(fx_ints(c, out, "strides", stride, r, &st));
    lg_strided_slice_options so;
    lg_opts_init(LG_OPTS_STRIDED_SLICE_OPTIONS, &so, sizeof so);
    return fx_op(c, LG_OP_STRIDED_SLICE, (const int32_t[]){view, bt, et, st}, 4, &out, 1, &so);
}

lg_status fx_gather_pieces(lg_pass_ctx *c, int32_t view, uint32_t axis, const fx_piece *p, uint32_t n,
                           int32_t out) {
    const lg_tensor *tv = lgp_tensor(c, view);
    int32_t shape[LG_MAX_RANK];
    uint32_t r = tv->rank;
    memcpy(shape, tv->shape, r * sizeof shape[0]);
    shape[axis] = 0;
    for (uint32_t k = 0; k < n; k++) shape[axis] += (int32_t)p[k].n;
    bool direct = dims_are(lgp_tensor(c, out), shape, r);
    /* the joined pieces: out itself when its shape is the view's, else a tensor to reshape */
    int32_t joined = direct ? out : -1;
    if (n > 1 && joined < 0) LG_TRY(fx_tensor(c, out, "joined", tv->type, shape, r, &joined));
    int32_t parts[FX_MAX_PIECES];
    for (uint32_t k = 0; k < n; k++) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "slice%u", k);
        LG_TRY(fx_slice(c, view, axis, &p[k], suffix, n == 1 ? joined : -1, &parts[k]));
    }
    if (n > 1) {
        lg_concatenation_options co;
        lg_opts_init(LG_OPTS_CONCATENATION_OPTIONS, &co, sizeof co);
        co.axis = (int32_t)axis;
        LG_TRY(fx_op(c, LG_OP_CONCATENATION, parts, n, &joined, 1, &co));
    } else {
        joined = parts[0];
    }
    if (joined == out) return LG_OK;
    const lg_tensor *to = lgp_tensor(c, out);
    int32_t os[LG_MAX_RANK];
    memcpy(os, to->shape, to->rank * sizeof os[0]);
    int32_t res;
    return fx_reshape(c, joined, os, to->rank, out, &res);
}

/* ------------------------------------------------------------------ broadcasting */

bool fx_broadcasts_to(const lg_tensor *x, const lg_tensor *out) {
    if (x->rank > out->rank) return false;
    uint32_t lead = out->rank - x->rank;
    for (uint32_t d = 0; d < x->rank; d++)
        if (x->shape[d] != 1 && x->shape[d] != out->shape[lead + d]) return false;
    return true;
}

lg_status fx_broadcast(lg_pass_ctx *c, int32_t x, int32_t out) {
    const lg_tensor *tx = lgp_tensor(c, x), *to = lgp_tensor(c, out);
    uint32_t r = to->rank, lead = r - tx->rank;
    int32_t shape[LG_MAX_RANK], mult[LG_MAX_RANK];
    bool tile = false;
    for (uint32_t d = 0; d < r; d++) {
        shape[d] = d < lead ? 1 : tx->shape[d - lead];
        mult[d] = shape[d] == to->shape[d] ? 1 : to->shape[d];
        tile |= mult[d] != 1;
    }
    int32_t v = x;
    if (lead) LG_TRY(fx_reshape(c, x, shape, r, tile ? -1 : out, &v));
    if (!tile) {
        if (v == out) return LG_OK;
        /* same shape, no tile: a plain copy is a RESHAPE to the same shape */
        int32_t os[LG_MAX_RANK];
        memcpy(os, to->shape, r * sizeof os[0]);
        return fx_reshape(c, v, os, r, out, &v);
    }
    int32_t mt = -1;
    LG_TRY(fx_ints(c, out, "multiples", mult, r, &mt));
    return fx_op(c, LG_OP_TILE, (const int32_t[]){v, mt}, 2, &out, 1, NULL);
}
