/* reduce-rank: DEPTH_TO_SPACE / SPACE_TO_DEPTH for a region that is exactly one, and the
 * chosen plan written into the graph (see fix_rank.h).
 *
 * DEPTH_TO_SPACE is proved, not pattern-matched: a region that is a chain of RESHAPEs and
 * TRANSPOSEs from one rank <= 4 tensor X to one rank-4 tensor Y moves every element of X to
 * one place in Y; walking that chain back from each element of Y gives the element of X it
 * holds, and the op is used only when that map is TFLite's DEPTH_TO_SPACE of X viewed as
 * [B, H, W, C*r*r] (DCR order, reference_ops DepthToSpace / depth_to_space.cc:
 * out[b, h*r + i, w*r + j, c] = in[b, h, w, (i*r + j)*C + c]), or SPACE_TO_DEPTH of a rank-4
 * X (its inverse, space_to_depth.cc) viewed as Y, on every element. The NHWC PixelShuffle
 * (and Swin's window partition / reverse, which are the same permutations) pass; an ONNX
 * DepthToSpace in CRD order on NCHW data does not (it is split instead). Batch 1 only (see
 * lgrk_pixel_plan). */
#include <stdlib.h>

#include "check/op_version.h"
#include "passes/fix_rank.h"

/* ------------------------------------------------------------------ DEPTH_TO_SPACE */

/* The flat index in the chain's input of the element at flat index j of its output. */
static int64_t chain_src(const rk_region *r, int64_t j) {
    for (int32_t k = (int32_t)r->no - 1; k >= 0; k--) {
        const rk_op *o = &r->o[k];
        if (o->kind != K_TRANSPOSE) continue; /* a RESHAPE keeps the flat index */
        const rk_tensor *ti = &r->t[o->in[0]], *to = &r->t[o->out];
        int64_t idx[LG_MAX_RANK], in_idx[LG_MAX_RANK], rem = j;
        for (int32_t d = (int32_t)to->rank - 1; d >= 0; d--) {
            idx[d] = rem % to->shape[d];
            rem /= to->shape[d];
        }
        for (uint32_t i = 0; i < to->rank; i++) in_idx[o->v[i]] = idx[i];
        j = 0;
        for (uint32_t d = 0; d < ti->rank; d++) j = j * ti->shape[d] + in_idx[d];
    }
    return j;
}

/* Is the chain DEPTH_TO_SPACE (d2s) or SPACE_TO_DEPTH with block b, for NHWC shape s (Y's for
   DEPTH_TO_SPACE, X's for SPACE_TO_DEPTH)? */
static bool proves(const rk_region *r, bool d2s, const int32_t *s, int64_t b) {
    int64_t N = s[0], H = s[1], W = s[2], C = s[3];
    if (d2s) { /* Y = [N, H, W, C]; X viewed as [N, H/b, W/b, C*b*b] */
        for (int64_t n = 0, j = 0; n < N; n++)
            for (int64_t h = 0; h < H; h++)
                for (int64_t w = 0; w < W; w++)
                    for (int64_t c = 0; c < C; c++, j++) {
                        int64_t src = ((n * (H / b) + h / b) * (W / b) + w / b) * (C * b * b) +
                                      ((h % b) * b + w % b) * C + c;
                        if (chain_src(r, j) != src) return false;
                    }
        return true;
    }
    /* X = [N, H, W, C]; Y viewed as [N, H/b, W/b, C*b*b] */
    int64_t Co = C * b * b;
    for (int64_t n = 0, j = 0; n < N; n++)
        for (int64_t h = 0; h < H / b; h++)
            for (int64_t w = 0; w < W / b; w++)
                for (int64_t c = 0; c < Co; c++, j++) {
                    int64_t off = c / C, src = ((n * H + h * b + off / b) * W + w * b + off % b) * C + c % C;
                    if (chain_src(r, j) != src) return false;
                }
    return true;
}

/* The chain X -> ... -> Y of RESHAPE/TRANSPOSE ops, or false. */
static bool chain(const rk_region *r, int32_t *x, int32_t *y) {
    *x = *y = -1;
    for (uint32_t t = 0; t < r->nt; t++) {
        uint8_t role = r->t[t].role;
        if (role == RK_CONST) return false;
        if (role == RK_IN) {
            if (*x >= 0) return false;
            *x = (int32_t)t;
        }
        if (role == RK_OUT) {
            if (*y >= 0) return false;
            *y = (int32_t)t;
        }
    }
    if (*x < 0 || *y < 0 || r->no == 0 || lgrk_numel(&r->t[*x]) > RK_MAX_ELEMS) return false;
    int32_t cur = *x;
    for (uint32_t k = 0; k < r->no; k++) {
        const rk_op *o = &r->o[k];
        if ((o->kind != K_RESHAPE && o->kind != K_TRANSPOSE) || o->in[0] != cur) return false;
        cur = o->out;
    }
    return cur == *y;
}

static bool same(const int32_t *a, uint32_t ra, const int32_t *b, uint32_t rb) {
    return ra == rb && memcmp(a, b, ra * sizeof *a) == 0;
}

/* X (shape xs) -> [RESHAPE to xv] -> code(block b) -> yv -> [RESHAPE to Y]. */
static lg_status pixel_low(const rk_region *r, int32_t x, int32_t y, int32_t code, int32_t b,
                           const int32_t *xv, const int32_t *yv, rk_low *l, lg_error *err) {
    const rk_tensor *tx = &r->t[x], *ty = &r->t[y];
    int32_t src = r->o[0].src;
    int32_t lx = lgrk_low_tensor(l, tx, tx->shape, tx->rank, tx->gid, false);
    if (lx >= 0 && !same(xv, 4, tx->shape, tx->rank)) {
        int32_t v = lgrk_low_tensor(l, tx, xv, 4, -1, false);
        int32_t op = v < 0 ? -1 : lgrk_low_op(l, LG_OP_RESHAPE, src, &lx, 1, v);
        if (op >= 0) lgrk_low_vec(l, op, xv, 4);
        lx = op < 0 ? -1 : v;
    }
    bool direct = same(yv, 4, ty->shape, ty->rank);
    int32_t ly = lx < 0 ? -1 : lgrk_low_tensor(l, ty, yv, 4, direct ? ty->gid : -1, false);
    int32_t op = ly < 0 ? -1 : lgrk_low_op(l, code, src, &lx, 1, ly);
    if (op >= 0) l->o[op].axis = b;
    if (op >= 0 && !direct) {
        int32_t lz = lgrk_low_tensor(l, ty, ty->shape, ty->rank, ty->gid, false);
        op = lz < 0 ? -1 : lgrk_low_op(l, LG_OP_RESHAPE, src, &ly, 1, lz);
        if (op >= 0) lgrk_low_vec(l, op, ty->shape, ty->rank);
    }
    if (op < 0) return lgi_fail(err, LG_ERR_NOMEM, "reduce-rank: out of memory");
    for (uint32_t k = 0; k < l->no; k++) l->o[k].live = true;
    l->n_live = l->no;
    return LG_OK;
}

lg_status lgrk_pixel_plan(const lg_pass_ctx *c, const rk_region *r, rk_low *l, bool *ok,
                          lg_error *err) {
    (void)c;
    memset(l, 0, sizeof *l);
    *ok = false;
    int32_t x, y;
    if (!chain(r, &x, &y)) return LG_OK;
    const rk_tensor *tx = &r->t[x], *ty = &r->t[y];
    for (int d2s = 1; d2s >= 0; d2s--) {
        const rk_tensor *t = d2s ? ty : tx;
        /* batch 1 only: ML Drift's WebGPU backend runs DEPTH_TO_SPACE and SPACE_TO_DEPTH of a
           batch > 1 fully delegated and writes zeros (litegpu verify, f32, 2x2x2x12 and
           2x4x4x3; batch 1 matches the CPU); a batch > 1 takes the grouping's TRANSPOSE */
        if (t->rank != 4 || t->shape[0] != 1) continue;
        const int32_t *s = t->shape;
        for (int32_t b = 2; b <= s[1] && b <= s[2]; b++) {
            if (s[1] % b || s[2] % b || !proves(r, d2s, s, b)) continue;
            int32_t v[4] = {s[0], s[1] / b, s[2] / b, s[3] * b * b};
            *ok = true;
            if (d2s) return pixel_low(r, x, y, LG_OP_DEPTH_TO_SPACE, b, v, s, l, err);
            return pixel_low(r, x, y, LG_OP_SPACE_TO_DEPTH, b, s, v, l, err);
        }
    }
    return LG_OK;
}

/* ------------------------------------------------------------------ writing the plan */

static lg_status copy_quant(lg_pass_ctx *c, int32_t from, int32_t to) {
    const lg_quant *qz = lgp_tensor(c, from)->quant;
    if (!qz || !qz->n_scale) return LG_OK;
    float scale = qz->scale[0];
    int64_t zp = qz->n_zero_point ? qz->zero_point[0] : 0;
    return lg_tensor_set_quant(c->m, c->sg, (uint32_t)to, &scale, &zp, 1, 0, c->err);
}

static void name_of(const lg_pass_ctx *c, int32_t like, const char *what, uint32_t k, char *buf,
                    size_t n) {
    const char *nm = lgp_tensor(c, like)->name;
    snprintf(buf, n, "%.150s/%s%u", nm ? nm : "t", what, k);
}

/* Constant data for lowered tensor lt: the slab of its constant. */
static lg_status make_const(lg_pass_ctx *c, const rk_ltensor *lt, uint32_t k, int32_t *out) {
    const lg_tensor *src = lgp_tensor(c, lt->cgid);
    char name[200];
    name_of(c, lt->like, "rank", k, name, sizeof name);
    if (lt->cdim < 0) { /* the same bytes in another shape: share the buffer */
        uint32_t buf = src->buffer;
        LG_TRY(lg_subgraph_add_tensor(c->m, c->sg, name, (lg_dtype)src->type, lt->shape, lt->rank,
                                      out, c->err));
        c->m->subgraphs[c->sg].tensors[*out].buffer = buf;
        return copy_quant(c, lt->cgid, *out);
    }
    size_t eb = (size_t)lg_dtype_bits(src->type) / 8;
    int64_t outer = 1, inner = 1, n = lt->cshape[lt->cdim]; /* the slab of the data as viewed */
    for (int32_t d = 0; d < lt->cdim; d++) outer *= lt->cshape[d];
    for (uint32_t d = (uint32_t)lt->cdim + 1; d < lt->crank; d++) inner *= lt->cshape[d];
    uint8_t *data = malloc((size_t)(outer * inner) * eb);
    if (!data) return lgi_fail(c->err, LG_ERR_NOMEM, "reduce-rank: out of memory");
    const uint8_t *from = c->m->buffers[src->buffer].data;
    for (int64_t o = 0; o < outer; o++)
        memcpy(data + (size_t)(o * inner) * eb, from + (size_t)((o * n + lt->cidx) * inner) * eb,
               (size_t)inner * eb);
    lg_status st = lg_subgraph_add_const(c->m, c->sg, name, (lg_dtype)src->type, lt->shape, lt->rank,
                                         data, (uint64_t)(outer * inner) * eb, out, c->err);
    free(data);
    LG_TRY(st);
    return copy_quant(c, lt->cgid, *out);
}

/* Graph tensors for the live lowered tensors (gt[k], -1 when unused). */
static lg_status make_tensors(lg_pass_ctx *c, const rk_low *l, int32_t *gt) {
    uint8_t *used = calloc(l->nt ? l->nt : 1, 1);
    if (!used) return lgi_fail(c->err, LG_ERR_NOMEM, "reduce-rank: out of memory");
    for (uint32_t i = 0; i < l->no; i++) {
        if (!l->o[i].live) continue;
        used[l->o[i].out] = 1;
        for (uint32_t k = 0; k < l->o[i].n_in; k++) used[l->o[i].in[k]] = 1;
    }
    lg_status st = LG_OK;
    for (uint32_t k = 0; k < l->nt && st == LG_OK; k++) {
        const rk_ltensor *lt = &l->t[k];
        gt[k] = lt->gid;
        if (!used[k] || lt->gid >= 0) continue;
        if (lt->is_const) {
            st = make_const(c, lt, k, &gt[k]);
            continue;
        }
        char name[200];
        name_of(c, lt->like, "rank", k, name, sizeof name);
        st = lg_subgraph_add_tensor(c->m, c->sg, name, (lg_dtype)lgp_tensor(c, lt->like)->type, lt->shape,
                                    lt->rank, &gt[k], c->err);
        if (st == LG_OK) st = copy_quant(c, lt->like, gt[k]);
    }
    free(used);
    return st;
}

/* The options of a lowered op: the original op's for the ops that keep their meaning, the
   new axis / keep_dims / block size otherwise. */
static lg_opts_kind options(const rk_lop *o, void *buf, size_t size) {
    memset(buf, 0, size);
    switch (o->code) {
    case LG_OP_RESHAPE: case LG_OP_TRANSPOSE: case LG_OP_SLICE: return LG_OPTS_NONE;
    case LG_OP_STRIDED_SLICE:
        lg_opts_init(LG_OPTS_STRIDED_SLICE_OPTIONS, buf, sizeof(lg_strided_slice_options));
        return LG_OPTS_STRIDED_SLICE_OPTIONS;
    case LG_OP_CONCATENATION: { /* no fused activation: reading the region made it an op */
        lg_concatenation_options *co = buf;
        lg_opts_init(LG_OPTS_CONCATENATION_OPTIONS, co, sizeof *co);
        co->axis = o->axis;
        return LG_OPTS_CONCATENATION_OPTIONS;
    }
    case LG_OP_GATHER: {
        lg_gather_options *go = buf;
        lg_opts_init(LG_OPTS_GATHER_OPTIONS, go, sizeof *go);
        go->axis = o->axis;
        return LG_OPTS_GATHER_OPTIONS;
    }
    case LG_OP_MEAN: case LG_OP_SUM: case LG_OP_REDUCE_MAX: case LG_OP_REDUCE_MIN:
    case LG_OP_REDUCE_PROD: case LG_OP_REDUCE_ANY: case LG_OP_REDUCE_ALL: {
        lg_reducer_options *ro = buf;
        lg_opts_init(LG_OPTS_REDUCER_OPTIONS, ro, sizeof *ro);
        ro->keep_dims = o->axis != 0;
        return LG_OPTS_REDUCER_OPTIONS;
    }
    case LG_OP_DEPTH_TO_SPACE:
        ((lg_depth_to_space_options *)buf)->block_size = o->axis;
        return LG_OPTS_DEPTH_TO_SPACE_OPTIONS;
    case LG_OP_SPACE_TO_DEPTH:
        ((lg_space_to_depth_options *)buf)->block_size = o->axis;
        return LG_OPTS_SPACE_TO_DEPTH_OPTIONS;
    default:
        return LG_OPTS_NONE; /* elementwise, SOFTMAX, BATCH_MATMUL: the original op's (below) */
    }
}

static lg_status insert_op(lg_pass_ctx *c, const rk_lop *o, const int32_t *gt, uint32_t k) {
    int32_t in[RK_MAX_IN + 3];
    uint32_t n = 0;
    for (uint32_t j = 0; j < o->n_in; j++) in[n++] = gt[o->in[j]];
    static const char *what[3] = {"shape", "param", "param"};
    for (uint32_t v = 0; v < o->n_vec; v++) {
        char name[200];
        snprintf(name, sizeof name, "%.150s/%s%u_%u", lgp_tensor(c, gt[o->out])->name ? lgp_tensor(c, gt[o->out])->name : "t",
                 what[v], k, v);
        int32_t shape[1] = {(int32_t)o->len[v]};
        static const int32_t none[1] = {0};
        LG_TRY(lg_subgraph_add_const(c->m, c->sg, name, LG_INT32, shape, 1, o->len[v] ? o->vec[v] : none,
                                     4ull * o->len[v], &in[n++], c->err));
    }
    union {
        lg_concatenation_options a;
        lg_gather_options b;
        lg_reducer_options r;
        lg_strided_slice_options s;
        lg_depth_to_space_options d;
        lg_space_to_depth_options e;
    } buf;
    lg_opts_kind kind = options(o, &buf, sizeof buf);
    const void *opts = kind == LG_OPTS_NONE ? NULL : &buf;
    bool keep = kind == LG_OPTS_NONE && o->code != LG_OP_RESHAPE && o->code != LG_OP_TRANSPOSE &&
                o->code != LG_OP_SLICE && o->src >= 0;
    if (keep) { /* the original op's options, read after the inserts above moved nothing */
        const lg_op *src = lgp_op(c, (uint32_t)o->src);
        kind = src->opts_kind;
        opts = src->opts;
    }
    uint32_t at = c->m->subgraphs[c->sg].n_ops;
    return lg_op_insert(c->m, c->sg, at, o->code, NULL, 1, in, n, &gt[o->out], 1, kind, opts, c->err);
}

static int cmp_desc(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

lg_status lgrk_emit(lg_pass_ctx *c, const rk_low *l, const int32_t *ops, uint32_t n_ops) {
    int32_t *gt = malloc((l->nt ? l->nt : 1) * sizeof *gt);
    int32_t *dead = malloc((n_ops ? n_ops : 1) * sizeof *dead);
    lg_status st = gt && dead ? LG_OK : lgi_fail(c->err, LG_ERR_NOMEM, "reduce-rank: out of memory");
    if (st == LG_OK) st = make_tensors(c, l, gt);
    uint32_t n_new = 0;
    for (uint32_t i = 0; i < l->no && st == LG_OK; i++)
        if (l->o[i].live) {
            st = insert_op(c, &l->o[i], gt, i);
            n_new++;
        }
    if (st == LG_OK) {
        memcpy(dead, ops, n_ops * sizeof *dead);
        qsort(dead, n_ops, sizeof *dead, cmp_desc);
        for (uint32_t k = 0; k < n_ops && st == LG_OK; k++)
            st = lg_op_remove(c->m, c->sg, (uint32_t)dead[k], c->err);
    }
    /* the versions TFLite's converter would give the new ops (all at the end now) */
    lg_subgraph *s = &c->m->subgraphs[c->sg];
    for (uint32_t i = s->n_ops - n_new; st == LG_OK && i < s->n_ops; i++) {
        int v = lgi_op_version(c->m, s, &s->ops[i]);
        if (v != c->m->opcodes[s->ops[i].opcode_index].version)
            st = lg_op_set_opcode(c->m, c->sg, i, lg_op_builtin(c->m, &s->ops[i]), NULL, v, c->err);
        s = &c->m->subgraphs[c->sg];
    }
    if (st == LG_OK) st = lg_subgraph_toposort(c->m, c->sg, NULL, c->err);
    free(gt);
    free(dead);
    return st;
}
