/* litegpu tile --verify (lg_tile_verify, lg/tile.h): a real tiled run. For each output tile,
   a copy of the model is cut to the tile: every tensor's spatial extent becomes the region the
   tile needs (the clipped demand walk of tile_map.c), SAME convolutions become VALID with an
   explicit zero PAD applied only where the tile's region passes the image border (the
   handbook, chapter 9: "padding at the original image boundary, not at every internal tile
   boundary"), the model's own PAD ops are cut the same way, a SLICE feeds a consumer that
   needs less than its producer computes, and RESHAPE targets follow the new extents. The cut
   model runs on the crop of the input and its output is compared with the full run's tile. */
#include "refactor/tile_impl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lg/graph.h"
#include "lg/run.h"

typedef struct cut {
    const tile_ctx *c;
    uint32_t n_ax;
    tile_mask bit[LG_TILE_MAX_AXES];
    int32_t *lo[LG_TILE_MAX_AXES], *hi[LG_TILE_MAX_AXES]; /* per tensor: the clipped region */
    int32_t (*shape)[LG_MAX_RANK];                         /* per tensor: its cut shape */
} cut;

static uint32_t rk(const tile_ctx *c, int32_t t) {
    uint32_t r = c->sg->tensors[t].rank;
    return r > LG_MAX_RANK ? LG_MAX_RANK : r;
}

static int popc(tile_mask m) {
    int n = 0;
    for (; m; m &= m - 1) n++;
    return n;
}

/* The cut shape of every tensor: a pure axis takes its region's length; a merged axis (a
   GroupNorm group axis) scales by the regions of the tensor before the merge. */
static lg_status cut_shapes(cut *k, lg_error *err) {
    const tile_ctx *c = k->c;
    for (uint32_t t = 0; t < c->n_tensors; t++) {
        uint32_t r = rk(c, (int32_t)t);
        for (uint32_t a = 0; a < r; a++) k->shape[t][a] = c->sg->tensors[t].shape[a];
        if (tile_is_const(c, (int32_t)t)) continue;
        for (uint32_t a = 0; a < r; a++) {
            tile_mask l = c->label[t][a];
            int32_t d = c->sg->tensors[t].shape[a];
            if (d <= 1) continue;
            for (uint32_t x = 0; x < k->n_ax; x++) {
                if (!(l & k->bit[x])) continue;
                if (l == k->bit[x]) {
                    if (k->lo[x][t] <= k->hi[x][t]) k->shape[t][a] = k->hi[x][t] - k->lo[x][t] + 1;
                    continue;
                }
                int32_t s = c->merge_src[t];
                int32_t sa = s >= 0 ? tile_axis_of(c, s, k->bit[x]) : -1;
                if (sa < 0 || popc(l & ~TILE_SPLIT) < 2 || (l & TILE_SPLIT))
                    return lgi_fail_at(err, LG_ERR_UNSUPPORTED, 0, c->producer[t], (int32_t)t,
                                       "tile verify: tensor %u (%s) mixes a spatial axis with another: cannot cut it",
                                       t, c->sg->tensors[t].name ? c->sg->tensors[t].name : "");
                int32_t old = c->sg->tensors[s].shape[sa], nw = k->hi[x][s] - k->lo[x][s] + 1;
                if (k->shape[t][a] % old != 0)
                    return lgi_fail_at(err, LG_ERR_UNSUPPORTED, 0, c->producer[t], (int32_t)t,
                                       "tile verify: tensor %u: merged axis %d not divisible", t, a);
                k->shape[t][a] = k->shape[t][a] / old * nw;
            }
        }
    }
    return LG_OK;
}

/* The region op `op` needs of input `slot` along analysed axis x: N (unclipped) from the
   op's output region. false when the slot has no such axis. */
static bool need_of(const cut *k, uint32_t op, uint32_t slot, uint32_t x, int32_t *nlo, int32_t *nhi) {
    const tile_ctx *c = k->c;
    const lg_op *o = &c->sg->ops[op];
    int32_t olo = INT32_MAX, ohi = INT32_MIN;
    for (uint32_t j = 0; j < o->n_outputs; j++) {
        int32_t t = o->outputs[j];
        if (t < 0 || tile_axis_of(c, t, k->bit[x]) < 0 || k->lo[x][t] > k->hi[x][t]) continue;
        if (k->lo[x][t] < olo) olo = k->lo[x][t];
        if (k->hi[x][t] > ohi) ohi = k->hi[x][t];
    }
    if (olo > ohi) return false;
    return tile_map_input(c, op, slot, k->bit[x], olo, ohi, nlo, nhi) > 0;
}

static lg_status add_i32_const(lg_model *m, const char *name, const int32_t *v, uint32_t n, bool matrix,
                               int32_t *out, lg_error *err) {
    int32_t shape[2] = {matrix ? (int32_t)(n / 2) : (int32_t)n, 2};
    return lg_subgraph_add_const(m, 0, name, LG_INT32, shape, matrix ? 2 : 1, v, sizeof(int32_t) * n, out, err);
}

/* Insert before op `at` an op code(x, const...) -> new tensor of shape; returns the tensor. */
static lg_status insert_op(lg_model *m, uint32_t at, int32_t code, int32_t x, const int32_t *consts,
                           uint32_t n_consts, const int32_t *shape, uint32_t rank, lg_opts_kind kind,
                           const void *opts, int32_t *y, lg_error *err) {
    lg_status st = lg_subgraph_add_tensor(m, 0, "tile_cut", LG_FLOAT32, shape, rank, y, err);
    if (st != LG_OK) return st;
    int32_t ins[4] = {x, -1, -1, -1};
    for (uint32_t i = 0; i < n_consts && i < 3; i++) ins[1 + i] = consts[i];
    return lg_op_insert(m, 0, at, code, NULL, 1, ins, 1 + n_consts, y, 1, kind, opts, err);
}

typedef struct slot_plan {
    bool slice, pad;
    int32_t begin[LG_MAX_RANK], size[LG_MAX_RANK], pads[2 * LG_MAX_RANK];
} slot_plan;

static lg_status plan_slot(const cut *k, uint32_t op, uint32_t slot, slot_plan *p) {
    const tile_ctx *c = k->c;
    int32_t t = c->sg->ops[op].inputs[slot];
    uint32_t r = rk(c, t);
    memset(p, 0, sizeof *p);
    for (uint32_t a = 0; a < r; a++) p->size[a] = k->shape[t][a];
    for (uint32_t x = 0; x < k->n_ax; x++) {
        int32_t ia = tile_axis_of(c, t, k->bit[x]), nlo, nhi;
        if (ia < 0 || !need_of(k, op, slot, x, &nlo, &nhi)) continue;
        int32_t dim = c->sg->tensors[t].shape[ia];
        int32_t clo = nlo < 0 ? 0 : nlo, chi = nhi > dim - 1 ? dim - 1 : nhi;
        p->begin[ia] = clo - k->lo[x][t];
        p->size[ia] = chi - clo + 1;
        if (p->begin[ia] != 0 || p->size[ia] != k->shape[t][ia]) p->slice = true;
        p->pads[2 * ia] = clo - nlo;
        p->pads[2 * ia + 1] = nhi - chi;
        if (p->pads[2 * ia] || p->pads[2 * ia + 1]) p->pad = true;
    }
    return LG_OK;
}

static lg_status unsupported(const tile_ctx *c, uint32_t op, const char *why, lg_error *err) {
    return lgi_fail_at(err, LG_ERR_UNSUPPORTED, 0, (int32_t)op, -1, "tile verify: op %u (%s): %s", op,
                       lg_op_name(c->m, &c->sg->ops[op]), why);
}

/* A SLICE/STRIDED_SLICE in the cut model reads a tensor already cut to what it needs
   (plan_slot): along each cut axis it starts at 0 and keeps its stride. */
static lg_status cut_slice(const cut *k, lg_model *mc, uint32_t i, uint32_t at, lg_error *err) {
    const tile_ctx *c = k->c;
    const lg_op *op0 = &c->sg->ops[i];
    int32_t code = lg_op_builtin(c->m, op0), in = op0->inputs[0], out = op0->outputs[0];
    uint32_t r = rk(c, in), n = 0;
    int64_t bv[LG_MAX_RANK], ev[LG_MAX_RANK];
    int32_t nb[LG_MAX_RANK], ne[LG_MAX_RANK];
    bool changed = false;
    if (op0->n_inputs < 3 || !tile_const_ints(c, op0->inputs[1], bv, LG_MAX_RANK, &n) || n != r ||
        !tile_const_ints(c, op0->inputs[2], ev, LG_MAX_RANK, &n) || n != r)
        return unsupported(c, i, "begin/end are not constants", err);
    const lg_strided_slice_options *so =
        op0->opts_kind == LG_OPTS_STRIDED_SLICE_OPTIONS ? op0->opts : NULL;
    lg_strided_slice_options o2;
    memset(&o2, 0, sizeof o2);
    if (so) o2 = *so;
    for (uint32_t a = 0; a < r; a++) { nb[a] = (int32_t)bv[a]; ne[a] = (int32_t)ev[a]; }
    for (uint32_t x = 0; x < k->n_ax; x++) {
        int32_t ia = tile_axis_of(c, in, k->bit[x]), bg = 0, stp = 1;
        if (ia < 0) continue;
        if (tile_dim(c, in, ia) != tile_dim(c, out, ia) && !tile_slice_axis(c, i, ia, &bg, &stp))
            return unsupported(c, i, "not a crop or subsampling along the axis", err);
        int32_t len = k->shape[out][ia];
        nb[ia] = 0;
        ne[ia] = code == LG_OP_SLICE ? len : (len - 1) * stp + 1;
        if (so) {
            o2.begin_mask &= ~(1 << ia);
            o2.end_mask &= ~(1 << ia);
        }
        changed = true;
    }
    if (!changed) return LG_OK;
    int32_t bc, ec;
    lg_status st;
    if ((st = add_i32_const(mc, "tile_begin", nb, r, false, &bc, err)) != LG_OK ||
        (st = add_i32_const(mc, "tile_end", ne, r, false, &ec, err)) != LG_OK ||
        (st = lg_op_set_input(mc, 0, at, 1, bc, err)) != LG_OK || (st = lg_op_set_input(mc, 0, at, 2, ec, err)) != LG_OK)
        return st;
    if (so) st = lg_op_set_options(mc, 0, at, LG_OPTS_STRIDED_SLICE_OPTIONS, &o2, err);
    return st;
}

/* Rewrite op i of the cut model mc (ops after i already done: inserting before i keeps them). */
static lg_status cut_op(const cut *k, lg_model *mc, uint32_t i, lg_error *err) {
    const tile_ctx *c = k->c;
    const lg_op *op0 = &c->sg->ops[i];
    int32_t code = lg_op_builtin(c->m, op0);
    lg_status st = LG_OK;
    if (code == LG_OP_TRANSPOSE_CONV || code == LG_OP_RESIZE_BILINEAR || code == LG_OP_RESIZE_NEAREST_NEIGHBOR) {
        for (uint32_t x = 0; x < k->n_ax; x++)
            if (tile_axis_of(c, op0->outputs[0], k->bit[x]) >= 0)
                return unsupported(c, i, "upsampling is not cut by this verifier", err);
    }
    /* RESHAPE targets follow the cut shape of the output */
    if ((code == LG_OP_RESHAPE) && op0->n_outputs) {
        int32_t out = op0->outputs[0];
        uint32_t r = rk(c, out);
        if (memcmp(k->shape[out], c->sg->tensors[out].shape, sizeof(int32_t) * r) != 0) {
            if (op0->n_inputs > 1 && op0->inputs[1] >= 0 &&
                (st = lg_tensor_set_const(mc, 0, op0->inputs[1], LG_INT32, k->shape[out], sizeof(int32_t) * r, err)) != LG_OK)
                return st;
            if (op0->opts_kind == LG_OPTS_RESHAPE_OPTIONS) {
                lg_reshape_options ro;
                memset(&ro, 0, sizeof ro);
                ro.new_shape.data = k->shape[out];
                ro.new_shape.n = r;
                if ((st = lg_op_set_options(mc, 0, i, LG_OPTS_RESHAPE_OPTIONS, &ro, err)) != LG_OK) return st;
            }
        }
    }
    int32_t at = (int32_t)i; /* op i's position in mc: each op inserted before it moves it */
    for (uint32_t slot = 0; slot < op0->n_inputs; slot++) {
        int32_t x = op0->inputs[slot];
        if (x < 0 || tile_is_const(c, x)) continue;
        slot_plan p;
        if ((st = plan_slot(k, i, slot, &p)) != LG_OK) return st;
        uint32_t r = rk(c, x);
        int32_t cur = x;
        bool is_pad = code == LG_OP_PAD || code == LG_OP_PADV2 || code == LG_OP_MIRROR_PAD;
        if (p.slice) {
            int32_t bc, sc, y;
            if ((st = add_i32_const(mc, "tile_begin", p.begin, r, false, &bc, err)) != LG_OK ||
                (st = add_i32_const(mc, "tile_size", p.size, r, false, &sc, err)) != LG_OK)
                return st;
            int32_t cs[2] = {bc, sc};
            if ((st = insert_op(mc, (uint32_t)at, LG_OP_SLICE, cur, cs, 2, p.size, r, LG_OPTS_NONE, NULL, &y, err)) != LG_OK)
                return st;
            at++;
            if ((st = lg_op_set_input(mc, 0, (uint32_t)at, slot, y, err)) != LG_OK) return st;
            cur = y;
        }
        if (is_pad && slot == 0) {
            /* the model's own padding: keep it only where the region passes the border */
            int64_t old[2 * LG_MAX_RANK];
            uint32_t n = 0;
            if (!tile_const_ints(c, op0->inputs[1], old, 2 * LG_MAX_RANK, &n) || n != 2 * r)
                return unsupported(c, i, "paddings are not a constant", err);
            int32_t np[2 * LG_MAX_RANK];
            for (uint32_t a = 0; a < 2 * r; a++) np[a] = (int32_t)old[a];
            for (uint32_t x2 = 0; x2 < k->n_ax; x2++) {
                int32_t ia = tile_axis_of(c, x, k->bit[x2]);
                if (ia < 0) continue;
                np[2 * ia] = p.pads[2 * ia];
                np[2 * ia + 1] = p.pads[2 * ia + 1];
                if (code == LG_OP_MIRROR_PAD && (np[2 * ia] >= p.size[ia] || np[2 * ia + 1] >= p.size[ia]))
                    return unsupported(c, i, "a mirror pad wider than the tile", err);
            }
            int32_t pc;
            if ((st = add_i32_const(mc, "tile_pads", np, 2 * r, true, &pc, err)) != LG_OK ||
                (st = lg_op_set_input(mc, 0, (uint32_t)at, 1, pc, err)) != LG_OK)
                return st;
            continue;
        }
        if (!p.pad) {
            if (code == LG_OP_CONV_2D || code == LG_OP_DEPTHWISE_CONV_2D || code == LG_OP_AVERAGE_POOL_2D ||
                code == LG_OP_MAX_POOL_2D || code == LG_OP_L2_POOL_2D) {
                /* SAME with nothing to pad: VALID on the cut tensor */
                const lg_op *oc = &mc->subgraphs[0].ops[at];
                if (oc->opts_kind == LG_OPTS_CONV2D_OPTIONS) {
                    lg_conv2d_options o = *(const lg_conv2d_options *)oc->opts;
                    o.padding = LG_PADDING_VALID;
                    st = lg_op_set_options(mc, 0, (uint32_t)at, oc->opts_kind, &o, err);
                } else if (oc->opts_kind == LG_OPTS_DEPTHWISE_CONV2D_OPTIONS) {
                    lg_depthwise_conv2d_options o = *(const lg_depthwise_conv2d_options *)oc->opts;
                    o.padding = LG_PADDING_VALID;
                    st = lg_op_set_options(mc, 0, (uint32_t)at, oc->opts_kind, &o, err);
                } else if (oc->opts_kind == LG_OPTS_POOL2D_OPTIONS) {
                    lg_pool2d_options o = *(const lg_pool2d_options *)oc->opts;
                    o.padding = LG_PADDING_VALID;
                    st = lg_op_set_options(mc, 0, (uint32_t)at, oc->opts_kind, &o, err);
                }
                if (st != LG_OK) return st;
            }
            continue;
        }
        /* the region passes the border: the op's own SAME padding, made explicit */
        int32_t padded[LG_MAX_RANK];
        for (uint32_t a = 0; a < r; a++) padded[a] = p.size[a] + p.pads[2 * a] + p.pads[2 * a + 1];
        const lg_op *oc = &mc->subgraphs[0].ops[at];
        float fill = 0;
        if (code == LG_OP_MAX_POOL_2D) fill = -FLT_MAX; /* SAME max pool ignores the outside */
        else if (code != LG_OP_CONV_2D && code != LG_OP_DEPTHWISE_CONV_2D)
            return unsupported(c, i, "its padding at the border is not zero padding (average/L2 pool "
                                     "counts only the inside)", err);
        if (oc->opts_kind == LG_OPTS_CONV2D_OPTIONS) {
            lg_conv2d_options o = *(const lg_conv2d_options *)oc->opts;
            if (o.padding != LG_PADDING_SAME) return unsupported(c, i, "VALID but the region passes the border", err);
            o.padding = LG_PADDING_VALID;
            st = lg_op_set_options(mc, 0, (uint32_t)at, oc->opts_kind, &o, err);
        } else if (oc->opts_kind == LG_OPTS_DEPTHWISE_CONV2D_OPTIONS) {
            lg_depthwise_conv2d_options o = *(const lg_depthwise_conv2d_options *)oc->opts;
            if (o.padding != LG_PADDING_SAME) return unsupported(c, i, "VALID but the region passes the border", err);
            o.padding = LG_PADDING_VALID;
            st = lg_op_set_options(mc, 0, (uint32_t)at, oc->opts_kind, &o, err);
        } else if (oc->opts_kind == LG_OPTS_POOL2D_OPTIONS) {
            lg_pool2d_options o = *(const lg_pool2d_options *)oc->opts;
            o.padding = LG_PADDING_VALID;
            st = lg_op_set_options(mc, 0, (uint32_t)at, oc->opts_kind, &o, err);
        } else {
            return unsupported(c, i, "unexpected options", err);
        }
        if (st != LG_OK) return st;
        int32_t pc, y;
        if ((st = add_i32_const(mc, "tile_pads", p.pads, 2 * r, true, &pc, err)) != LG_OK) return st;
        if (fill == 0) {
            int32_t cs[1] = {pc};
            st = insert_op(mc, (uint32_t)at, LG_OP_PAD, cur, cs, 1, padded, r, LG_OPTS_PAD_OPTIONS, NULL, &y, err);
        } else {
            int32_t vc;
            if ((st = lg_subgraph_add_const(mc, 0, "tile_fill", LG_FLOAT32, NULL, 0, &fill, sizeof fill, &vc, err)) != LG_OK)
                return st;
            int32_t cs[2] = {pc, vc};
            st = insert_op(mc, (uint32_t)at, LG_OP_PADV2, cur, cs, 2, padded, r, LG_OPTS_PAD_V2_OPTIONS, NULL, &y, err);
        }
        if (st != LG_OK) return st;
        at++;
        if ((st = lg_op_set_input(mc, 0, (uint32_t)at, slot, y, err)) != LG_OK) return st;
    }
    if (code == LG_OP_SLICE || code == LG_OP_STRIDED_SLICE) return cut_slice(k, mc, i, (uint32_t)at, err);
    return LG_OK;
}

/* Copy the box [lo, lo+n) of a row-major tensor of shape full into dst (shape n), or back. */
static void box_copy(const float *src, const int32_t *full, const int32_t *lo, const int32_t *n, uint32_t r,
                     float *dst, bool to_box) {
    int32_t idx[LG_MAX_RANK] = {0};
    int64_t total = 1;
    for (uint32_t a = 0; a < r; a++) total *= n[a];
    for (int64_t e = 0; e < total; e++) {
        int64_t off = 0;
        for (uint32_t a = 0; a < r; a++) off = off * full[a] + lo[a] + idx[a];
        if (to_box) dst[e] = src[off];
        for (int32_t a = (int32_t)r - 1; a >= 0; a--) {
            if (++idx[a] < n[a]) break;
            idx[a] = 0;
        }
    }
}

static lg_status run_model(const lg_model *m, const float *in, uint64_t in_bytes, uint32_t out,
                           float **res, int64_t *n_res, lg_error *err) {
    lg_interp *it = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_status st = lg_interp_create(m, &ro, &it, err);
    if (st == LG_OK) st = lg_interp_set_input(it, 0, LG_FLOAT32, in, in_bytes, err);
    if (st == LG_OK) st = lg_interp_invoke(it, err);
    lg_tensor_view v;
    if (st == LG_OK && (st = lg_interp_output(it, out, &v)) == LG_OK) {
        if (v.type != LG_FLOAT32) st = lgi_fail(err, LG_ERR_UNSUPPORTED, "tile verify: output %u is not float", out);
        else if (!(*res = malloc(sizeof(float) * (size_t)(v.numel ? v.numel : 1)))) st = lgi_fail(err, LG_ERR_NOMEM, "tile: out of memory");
        else { memcpy(*res, v.data, sizeof(float) * (size_t)v.numel); *n_res = v.numel; }
    }
    lg_interp_free(it);
    return st;
}

/* Cut, run and compare one tile. */
static lg_status one_tile(cut *k, const lg_model *m, const lg_tile_output *o, uint32_t out_index,
                          const int32_t *t0, const int32_t *tn, const float *input, const float *full,
                          lg_tile_verify_result *res, lg_error *err) {
    const tile_ctx *c = k->c;
    lg_status st = LG_OK;
    for (uint32_t x = 0; x < k->n_ax; x++) {
        for (uint32_t t = 0; t < c->n_tensors; t++) { k->lo[x][t] = INT32_MAX; k->hi[x][t] = INT32_MIN; }
        k->lo[x][o->tensor] = t0[x];
        k->hi[x][o->tensor] = t0[x] + tn[x] - 1;
        if ((st = tile_demand(c, k->bit[x], k->lo[x], k->hi[x], true, true, err)) != LG_OK) return st;
    }
    if ((st = cut_shapes(k, err)) != LG_OK) return st;
    lg_model *mc = NULL;
    if ((st = lg_model_clone(m, &mc, err)) != LG_OK) return st;
    for (uint32_t t = 0; t < c->n_tensors && st == LG_OK; t++) {
        uint32_t r = rk(c, (int32_t)t);
        if (tile_is_const(c, (int32_t)t) || memcmp(k->shape[t], c->sg->tensors[t].shape, sizeof(int32_t) * r) == 0)
            continue;
        st = lg_tensor_set_shape(mc, 0, (int32_t)t, k->shape[t], r, err);
        if (st == LG_OK && mc->subgraphs[0].tensors[t].shape_signature)
            st = lg_tensor_set_shape_signature(mc, 0, t, k->shape[t], r, err);
    }
    for (int32_t i = (int32_t)c->sg->n_ops - 1; i >= 0 && st == LG_OK; i--) st = cut_op(k, mc, (uint32_t)i, err);
    if (st == LG_OK && (st = lg_model_validate_ops(mc, err)) != LG_OK) {
        lg_error e2 = *err;
        st = lgi_fail(err, LG_ERR_UNSUPPORTED, "tile verify: the cut model does not validate: %s", e2.msg);
    }
    /* the input crop */
    int32_t in_t = c->sg->inputs[0], out_t = o->tensor;
    uint32_t ri = rk(c, in_t), ro = rk(c, out_t);
    int32_t lo_in[LG_MAX_RANK] = {0}, lo_out[LG_MAX_RANK] = {0};
    int64_t n_crop = 1, n_sub = 1;
    for (uint32_t a = 0; a < ri; a++) n_crop *= k->shape[in_t][a];
    for (uint32_t a = 0; a < ro; a++) n_sub *= k->shape[out_t][a];
    for (uint32_t x = 0; x < k->n_ax; x++) {
        int32_t a = tile_axis_of(c, in_t, k->bit[x]);
        if (a >= 0) lo_in[a] = k->lo[x][in_t];
        a = tile_axis_of(c, out_t, k->bit[x]);
        if (a >= 0) lo_out[a] = k->lo[x][out_t];
    }
    float *crop = st == LG_OK ? malloc(sizeof(float) * (size_t)n_crop) : NULL, *sub = NULL, *ref = NULL;
    int64_t n_got = 0;
    if (st == LG_OK && !crop) st = lgi_fail(err, LG_ERR_NOMEM, "tile: out of memory");
    if (st == LG_OK) {
        box_copy(input, c->sg->tensors[in_t].shape, lo_in, k->shape[in_t], ri, crop, true);
        st = run_model(mc, crop, sizeof(float) * (uint64_t)n_crop, out_index, &sub, &n_got, err);
    }
    if (st == LG_OK && n_got != n_sub)
        st = lgi_fail(err, LG_ERR_INTERNAL, "tile verify: the cut model's output has %lld elements, the tile %lld",
                      (long long)n_got, (long long)n_sub);
    if (st == LG_OK && !(ref = malloc(sizeof(float) * (size_t)n_sub))) st = lgi_fail(err, LG_ERR_NOMEM, "tile: out of memory");
    if (st == LG_OK) {
        box_copy(full, c->sg->tensors[out_t].shape, lo_out, k->shape[out_t], ro, ref, true);
        for (int64_t e = 0; e < n_sub; e++) {
            double d = fabs((double)ref[e] - (double)sub[e]);
            if (!(d <= res->max_abs)) res->max_abs = isnan(d) ? INFINITY : (d > res->max_abs ? d : res->max_abs);
        }
        res->n_tiles++;
        if (n_crop > res->max_crop_elems) res->max_crop_elems = n_crop;
    }
    free(crop);
    free(sub);
    free(ref);
    lg_model_free(mc);
    return st;
}

lg_status lg_tile_verify(const lg_model *m, const lg_tile_report *r, const lg_tile_verify_options *opt,
                         lg_tile_verify_result *res, lg_error *err) {
    if (!m || !r || !opt || !res || opt->output >= r->n_outputs)
        return lgi_fail(err, LG_ERR_INVALID_ARG, "tile verify: bad arguments");
    memset(res, 0, sizeof *res);
    const lg_tile_output *o = &r->outputs[opt->output];
    tile_ctx c;
    lg_status st = tile_ctx_init(&c, m, err);
    if (st != LG_OK) return st;
    cut k;
    memset(&k, 0, sizeof k);
    k.c = &c;
    int32_t tn[LG_TILE_MAX_AXES], n_t[LG_TILE_MAX_AXES], t0[LG_TILE_MAX_AXES] = {0};
    const lg_tensor *in = c.sg->n_inputs ? &c.sg->tensors[c.sg->inputs[0]] : NULL;
    if (c.sg->n_inputs != 1 || !in || in->type != LG_FLOAT32)
        st = lgi_fail(err, LG_ERR_UNSUPPORTED, "tile verify: needs one float32 input (the model has %u)", c.sg->n_inputs);
    for (uint32_t a = 0; a < o->n_axes && st == LG_OK; a++) {
        if (o->axes[a].out_axis < 0) continue;
        uint32_t x = k.n_ax++;
        k.bit[x] = TILE_BIT(o->axes[a].input, o->axes[a].input_axis);
        int32_t size = o->axes[a].out_size, t = opt->tile[a] > 0 ? opt->tile[a] : (size + 1) / 2;
        tn[x] = t > size ? size : t;
        n_t[x] = (size + tn[x] - 1) / tn[x];
    }
    if (st == LG_OK && k.n_ax == 0)
        st = lgi_fail(err, LG_ERR_UNSUPPORTED,
                      "tile verify: no axis of output %u follows a spatial input axis (space is reduced "
                      "or mixed away before it)", opt->output);
    /* an inexact model is cut as a naive tiler would cut it only across reductions (each
       tile takes its own statistics) and layout reshapes; other breakers cannot be cut */
    for (uint32_t i = 0; i < o->n_breakers && i < LG_TILE_MAX_BREAKERS && st == LG_OK; i++) {
        const lg_tile_breaker *b = &o->breakers[i];
        if (b->why != LG_TILE_REDUCE_SPACE && b->why != LG_TILE_RESHAPE_SPACE)
            st = lgi_fail_at(err, LG_ERR_UNSUPPORTED, 0, b->op, b->tensor,
                             "tile verify: op %d (%s, %s) cannot be cut into tiles", b->op, b->op_name,
                             lg_tile_why_name(b->why));
    }
    int64_t n_in = in ? lg_tensor_numel(in) : 0;
    float *input = NULL, *full = NULL;
    int64_t n_full = 0;
    size_t nt = c.n_tensors + 1;
    k.shape = st == LG_OK ? malloc(sizeof *k.shape * nt) : NULL;
    for (uint32_t x = 0; x < k.n_ax; x++) {
        k.lo[x] = malloc(sizeof(int32_t) * nt);
        k.hi[x] = malloc(sizeof(int32_t) * nt);
        if (!k.lo[x] || !k.hi[x]) k.shape = (free(k.shape), NULL);
    }
    if (st == LG_OK && (!k.shape || !(input = malloc(sizeof(float) * (size_t)(n_in ? n_in : 1)))))
        st = lgi_fail(err, LG_ERR_NOMEM, "tile: out of memory");
    if (st == LG_OK) {
        if (opt->input) memcpy(input, opt->input, sizeof(float) * (size_t)n_in);
        else st = lg_fill_f32("pattern", input, n_in, err);
    }
    if (st == LG_OK) st = run_model(m, input, sizeof(float) * (uint64_t)n_in, opt->output, &full, &n_full, err);
    if (st == LG_OK) {
        res->full_input_elems = n_in;
        for (int64_t e = 0; e < n_full; e++)
            if (fabs(full[e]) > res->ref_max_abs) res->ref_max_abs = fabs(full[e]);
    }
    /* every tile of the grid, odometer order */
    while (st == LG_OK) {
        int32_t len[LG_TILE_MAX_AXES];
        for (uint32_t x = 0; x < k.n_ax; x++) {
            int32_t size = o->axes[0].out_size;
            for (uint32_t a = 0, y = 0; a < o->n_axes; a++)
                if (o->axes[a].out_axis >= 0 && y++ == x) size = o->axes[a].out_size;
            len[x] = t0[x] + tn[x] > size ? size - t0[x] : tn[x];
        }
        int32_t start[LG_TILE_MAX_AXES];
        for (uint32_t x = 0; x < k.n_ax; x++) start[x] = t0[x];
        st = one_tile(&k, m, o, opt->output, start, len, input, full, res, err);
        uint32_t x = 0;
        for (; x < k.n_ax; x++) {
            t0[x] += tn[x];
            if (t0[x] / tn[x] < n_t[x]) break;
            t0[x] = 0;
        }
        if (x == k.n_ax) break;
    }
    res->max_rel = res->ref_max_abs > 0 ? res->max_abs / res->ref_max_abs : 0;
    free(input);
    free(full);
    free(k.shape);
    for (uint32_t x = 0; x < k.n_ax; x++) { free(k.lo[x]); free(k.hi[x]); }
    tile_ctx_free(&c);
    return st;
}
