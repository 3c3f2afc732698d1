/* litegpu tile: axis labels (which model-input axis each tensor axis carries), each op's
   index map along one axis, and the demand (interval) walk from an output back to the
   inputs. Used by the analysis (tile.c) and the tiled verification (tile_verify.c). */
#include "refactor/tile_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lg/graph.h"

bool tile_is_const(const tile_ctx *c, int32_t t) {
    return t >= 0 && lg_tensor_is_const(c->m, 0, t);
}

int32_t tile_dim(const tile_ctx *c, int32_t t, int32_t axis) {
    const lg_tensor *x = &c->sg->tensors[t];
    return (axis >= 0 && (uint32_t)axis < x->rank) ? x->shape[axis] : 1;
}

static uint32_t rank_of(const tile_ctx *c, int32_t t) {
    uint32_t r = c->sg->tensors[t].rank;
    return r > LG_MAX_RANK ? LG_MAX_RANK : r;
}

int32_t tile_axis_of(const tile_ctx *c, int32_t t, tile_mask b) {
    if (t < 0) return -1;
    for (uint32_t a = 0; a < rank_of(c, t); a++)
        if (c->label[t][a] == b && c->sg->tensors[t].shape[a] > 1) return (int32_t)a;
    return -1;
}

bool tile_const_ints(const tile_ctx *c, int32_t t, int64_t *v, uint32_t max, uint32_t *n) {
    if (t < 0 || !tile_is_const(c, t)) return false;
    return lg_tensor_const_ints(c->m, &c->sg->tensors[t], v, max, n);
}

/* ---------------------------------------------------------------- labels */

static int32_t first_input(const lg_op *op) { return op->n_inputs ? op->inputs[0] : -1; }

/* Right-aligned copy (broadcasting): an output axis takes an input axis' label when the sizes
   are equal, or (same rank) when the input axis is not 1 (PAD, SLICE, resize change sizes). */
static void label_aligned(tile_ctx *c, const lg_op *op, int32_t out) {
    uint32_t ro = rank_of(c, out);
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        if (t < 0 || tile_is_const(c, t)) continue;
        uint32_t ri = rank_of(c, t);
        if (ri > ro) continue;
        for (uint32_t a = 0; a < ri; a++) {
            uint32_t oa = a + (ro - ri);
            int32_t di = c->sg->tensors[t].shape[a], dout = c->sg->tensors[out].shape[oa];
            if (di == dout || (ri == ro && di != 1)) c->label[out][oa] |= c->label[t][a];
        }
    }
}

static void label_transpose(tile_ctx *c, const lg_op *op, int32_t out) {
    int64_t perm[LG_MAX_RANK];
    uint32_t n = 0;
    int32_t in = first_input(op);
    if (op->n_inputs < 2 || !tile_const_ints(c, op->inputs[1], perm, LG_MAX_RANK, &n) ||
        n != rank_of(c, out))
        return;
    for (uint32_t a = 0; a < n; a++)
        if (perm[a] >= 0 && perm[a] < (int64_t)rank_of(c, in)) c->label[out][a] = c->label[in][perm[a]];
}

static bool same_shape(const tile_ctx *c, int32_t a, int32_t b) {
    const lg_tensor *x = &c->sg->tensors[a], *y = &c->sg->tensors[b];
    if (x->rank != y->rank) return false;
    for (uint32_t i = 0; i < x->rank; i++)
        if (x->shape[i] != y->shape[i]) return false;
    return true;
}

/* RESHAPE/SQUEEZE/EXPAND_DIMS: walk the output axes consuming the input axes in order (size-1
   axes skipped). An output axis made of exactly one whole input axis carries its label; one
   made of several (a merge) gets the union; a piece of a split input axis gets its label with
   TILE_SPLIT (not pure). The output of a merge or split remembers the tensor before it
   (merge_src); a reshape back to that tensor's shape restores its labels. */
static void label_reshape(tile_ctx *c, int32_t in, int32_t out) {
    int32_t src = c->merge_src[in];
    if (src >= 0 && same_shape(c, src, out)) {
        memcpy(c->label[out], c->label[src], sizeof c->label[out]);
        return;
    }
    const int32_t *di = c->sg->tensors[in].shape, *dout = c->sg->tensors[out].shape;
    uint32_t ri = rank_of(c, in), ro = rank_of(c, out), i = 0;
    int64_t rem = ri ? di[0] : 1;
    bool merged = false, lost = false;
    for (uint32_t o = 0; o < ro; o++) {
        int64_t need = dout[o];
        tile_mask u = 0;
        int parts = 0;
        bool whole = true;
        while (need > 1 && !lost) {
            while (i < ri && rem == 1) { i++; rem = i < ri ? di[i] : 1; }
            if (i >= ri) { lost = true; break; }
            bool fresh = rem == di[i];
            u |= c->label[in][i];
            parts++;
            if (rem % need == 0) {
                if (!fresh || rem != need) whole = false;
                rem /= need;
                need = 1;
            } else if (need % rem == 0) {
                if (!fresh) whole = false;
                need /= rem;
                rem = 1;
            } else {
                lost = true;
            }
        }
        if (lost) { u = 0; for (uint32_t a = 0; a < ri; a++) u |= c->label[in][a]; whole = false; parts = 2; }
        if (dout[o] > 1 && (parts != 1 || !whole)) merged = true;
        c->label[out][o] = (parts == 1 && whole) || dout[o] <= 1 ? u : (parts == 1 ? u | TILE_SPLIT : u);
    }
    if (merged) c->merge_src[out] = src >= 0 ? src : in;
}

static void label_reduce(tile_ctx *c, const lg_op *op, int32_t out) {
    int64_t ax[LG_MAX_RANK];
    uint32_t n = 0;
    int32_t in = first_input(op);
    uint32_t ri = rank_of(c, in);
    bool red[LG_MAX_RANK] = {false};
    if (op->n_inputs >= 2 && tile_const_ints(c, op->inputs[1], ax, LG_MAX_RANK, &n))
        for (uint32_t k = 0; k < n; k++) {
            int64_t a = ax[k] < 0 ? ax[k] + ri : ax[k];
            if (a >= 0 && a < (int64_t)ri) red[a] = true;
        }
    bool keep = rank_of(c, out) == ri;
    for (uint32_t a = 0, o = 0; a < ri; a++) {
        if (red[a]) { if (keep) o++; continue; }
        if (o < rank_of(c, out)) c->label[out][o++] = c->label[in][a];
    }
}

static void label_op(tile_ctx *c, const lg_op *op) {
    int32_t code = lg_op_builtin(c->m, op);
    if (!op->n_outputs || op->outputs[0] < 0) return;
    int32_t out = op->outputs[0], in = first_input(op);
    if (in < 0) return;
    switch (code) {
    case LG_OP_TRANSPOSE: label_transpose(c, op, out); return;
    case LG_OP_RESHAPE: case LG_OP_SQUEEZE: case LG_OP_EXPAND_DIMS:
        label_reshape(c, in, out);
        return;
    case LG_OP_CONV_2D: case LG_OP_DEPTHWISE_CONV_2D: case LG_OP_AVERAGE_POOL_2D:
    case LG_OP_MAX_POOL_2D: case LG_OP_L2_POOL_2D: case LG_OP_RESIZE_BILINEAR:
    case LG_OP_RESIZE_NEAREST_NEIGHBOR: case LG_OP_TRANSPOSE_CONV: {
        int32_t x = code == LG_OP_TRANSPOSE_CONV ? (op->n_inputs > 2 ? op->inputs[2] : -1) : in;
        if (x < 0 || rank_of(c, x) != 4 || rank_of(c, out) != 4) return;
        for (int a = 0; a < 3; a++) c->label[out][a] = c->label[x][a];
        return;
    }
    case LG_OP_MEAN: case LG_OP_SUM: case LG_OP_REDUCE_MAX: case LG_OP_REDUCE_MIN:
    case LG_OP_REDUCE_PROD: case LG_OP_REDUCE_ANY: case LG_OP_REDUCE_ALL: case LG_OP_ARG_MAX:
    case LG_OP_ARG_MIN:
        label_reduce(c, op, out);
        return;
    case LG_OP_FULLY_CONNECTED: {
        uint32_t ri = rank_of(c, in), ro = rank_of(c, out);
        if (ri == ro) {
            for (uint32_t a = 0; a + 1 < ro; a++) c->label[out][a] = c->label[in][a];
        } else if (ro == 2) {
            for (uint32_t a = 0; a + 1 < ri; a++) c->label[out][0] |= c->label[in][a];
        }
        return;
    }
    case LG_OP_BATCH_MATMUL: {
        int32_t b = op->n_inputs > 1 ? op->inputs[1] : -1;
        const lg_batch_mat_mul_options *bo = op->opts;
        bool ax = bo && op->opts_kind == LG_OPTS_BATCH_MAT_MUL_OPTIONS && bo->adj_x;
        bool ay = bo && op->opts_kind == LG_OPTS_BATCH_MAT_MUL_OPTIONS && bo->adj_y;
        uint32_t ra = rank_of(c, in), ro = rank_of(c, out);
        if (ra < 2 || ro < 2) return;
        for (uint32_t a = 0; a + 2 < ro && a + 2 < ra; a++) c->label[out][a + (ro - ra)] = c->label[in][a];
        c->label[out][ro - 2] = c->label[in][ax ? ra - 1 : ra - 2];
        if (b >= 0 && !tile_is_const(c, b) && rank_of(c, b) >= 2) {
            uint32_t rb = rank_of(c, b);
            c->label[out][ro - 1] = c->label[b][ay ? rb - 2 : rb - 1];
        }
        return;
    }
    case LG_OP_GATHER: {
        const lg_gather_options *go = op->opts;
        int32_t axis = go ? go->axis : 0, bd = go ? go->batch_dims : 0;
        uint32_t ri = rank_of(c, in);
        int32_t idx = op->n_inputs > 1 ? op->inputs[1] : -1;
        if (axis < 0) axis += (int32_t)ri;
        if (axis < 0 || idx < 0) return;
        uint32_t nidx = rank_of(c, idx) - (uint32_t)(bd > 0 ? bd : 0), o = 0;
        for (int32_t a = 0; a < axis && o < rank_of(c, out); a++) c->label[out][o++] = c->label[in][a];
        o += nidx;
        for (uint32_t a = (uint32_t)axis + 1; a < ri && o < rank_of(c, out); a++)
            c->label[out][o++] = c->label[in][a];
        return;
    }
    case LG_OP_CONCATENATION: {
        label_aligned(c, op, out);
        const lg_concatenation_options *co = op->opts;
        int32_t axis = co ? co->axis : 0, ro = (int32_t)rank_of(c, out);
        if (axis < 0) axis += ro;
        if (axis < 0 || axis >= ro) return;
        for (uint32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0 && (int32_t)rank_of(c, op->inputs[k]) == ro)
                c->label[out][axis] |= c->label[op->inputs[k]][axis];
        return;
    }
    default:
        break;
    }
    label_aligned(c, op, out);
    for (uint32_t k = 1; k < op->n_outputs; k++)
        if (op->outputs[k] >= 0 && rank_of(c, op->outputs[k]) == rank_of(c, out))
            memcpy(c->label[op->outputs[k]], c->label[out], sizeof c->label[out]);
    /* elementwise ops keep the memory of a merge (GroupNorm: reshape, x - mean, reshape back) */
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        if (t >= 0 && c->merge_src[t] >= 0 && same_shape(c, t, out)) { c->merge_src[out] = c->merge_src[t]; break; }
    }
}

static bool is_spatial_op(int32_t code) {
    return code == LG_OP_CONV_2D || code == LG_OP_DEPTHWISE_CONV_2D ||
           code == LG_OP_AVERAGE_POOL_2D || code == LG_OP_MAX_POOL_2D || code == LG_OP_L2_POOL_2D ||
           code == LG_OP_TRANSPOSE_CONV || code == LG_OP_RESIZE_BILINEAR ||
           code == LG_OP_RESIZE_NEAREST_NEIGHBOR;
}

/* The spatial input axes: those reaching a conv/pool/resize at H or W with size > 1; a
   model with none: H,W of rank-4 inputs (NHWC), T of rank-3 ([N,T,C]). */
static void find_spatial(tile_ctx *c) {
    for (uint32_t i = 0; i < c->sg->n_ops; i++) {
        const lg_op *op = &c->sg->ops[i];
        int32_t code = lg_op_builtin(c->m, op);
        if (!is_spatial_op(code)) continue;
        int32_t x = code == LG_OP_TRANSPOSE_CONV ? (op->n_inputs > 2 ? op->inputs[2] : -1) : first_input(op);
        if (x < 0 || rank_of(c, x) != 4) continue;
        for (int a = 1; a <= 2; a++)
            if (c->sg->tensors[x].shape[a] > 1) c->spatial |= c->label[x][a];
    }
    if (c->spatial) return;
    for (uint32_t k = 0; k < c->sg->n_inputs && k < TILE_MAX_INPUTS; k++) {
        int32_t t = c->sg->inputs[k];
        uint32_t r = rank_of(c, t);
        if (r == 4) c->spatial |= TILE_BIT(k, 1) | TILE_BIT(k, 2);
        else if (r == 3) c->spatial |= TILE_BIT(k, 1);
    }
}

lg_status tile_ctx_init(tile_ctx *c, const lg_model *m, lg_error *err) {
    memset(c, 0, sizeof *c);
    if (!m || m->n_subgraphs == 0) return lgi_fail(err, LG_ERR_INVALID_ARG, "tile: no subgraph");
    c->m = m;
    c->sg = &m->subgraphs[0];
    c->n_tensors = c->sg->n_tensors;
    size_t n = c->n_tensors ? c->n_tensors : 1;
    c->label = calloc(n, sizeof *c->label);
    c->merge_src = malloc(n * sizeof *c->merge_src);
    c->producer = malloc(n * sizeof *c->producer);
    if (!c->label || !c->merge_src || !c->producer) {
        tile_ctx_free(c);
        return lgi_fail(err, LG_ERR_NOMEM, "tile: out of memory");
    }
    for (uint32_t t = 0; t < c->n_tensors; t++) c->merge_src[t] = c->producer[t] = -1;
    for (uint32_t i = 0; i < c->sg->n_ops; i++) {
        const lg_op *op = &c->sg->ops[i];
        for (uint32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= (int32_t)c->n_tensors)
                return lgi_fail_at(err, LG_ERR_INVALID_ARG, 0, (int32_t)i, op->inputs[k],
                                   "tile: op %u input %u out of range", i, k);
        for (uint32_t k = 0; k < op->n_outputs; k++) {
            int32_t t = op->outputs[k];
            if (t >= (int32_t)c->n_tensors)
                return lgi_fail_at(err, LG_ERR_INVALID_ARG, 0, (int32_t)i, t, "tile: op %u output out of range", i);
            if (t >= 0 && c->producer[t] < 0) c->producer[t] = (int32_t)i;
        }
    }
    for (uint32_t k = 0; k < c->sg->n_inputs && k < TILE_MAX_INPUTS; k++) {
        int32_t t = c->sg->inputs[k];
        if (t < 0 || t >= (int32_t)c->n_tensors) continue;
        for (uint32_t a = 0; a < rank_of(c, t); a++) c->label[t][a] = TILE_BIT(k, a);
    }
    for (uint32_t i = 0; i < c->sg->n_ops; i++) label_op(c, &c->sg->ops[i]);
    find_spatial(c);
    return LG_OK;
}

void tile_ctx_free(tile_ctx *c) {
    free(c->label);
    free(c->merge_src);
    free(c->producer);
    c->label = NULL;
    c->merge_src = c->producer = NULL;
}

/* ---------------------------------------------------------------- per-op maps */

/* SAME: pad_total = max((out-1)*s + (k-1)*d + 1 - in, 0), before = total/2 (TFLite
   kernels/padding.h ComputePaddingWithOffset); VALID: 0. */
static void kernel_pad(tile_kernel *kr, int32_t in, int32_t out) {
    if (!kr->same) { kr->pad_before = kr->pad_after = 0; return; }
    int64_t total = (int64_t)(out - 1) * kr->s + (int64_t)(kr->k - 1) * kr->d + 1 - in;
    if (total < 0) total = 0;
    kr->pad_before = (int32_t)(total / 2);
    kr->pad_after = (int32_t)(total - total / 2);
}

bool tile_op_kernel(const tile_ctx *c, uint32_t i, int32_t axis, tile_kernel *kr) {
    const lg_op *op = &c->sg->ops[i];
    int32_t code = lg_op_builtin(c->m, op);
    if (axis != 1 && axis != 2) return false;
    memset(kr, 0, sizeof *kr);
    kr->d = 1;
    bool h = axis == 1;
    if (code == LG_OP_CONV_2D || code == LG_OP_DEPTHWISE_CONV_2D) {
        if (op->n_inputs < 2 || op->inputs[1] < 0 || rank_of(c, op->inputs[1]) != 4) return false;
        kr->k = tile_dim(c, op->inputs[1], axis); /* [O,kh,kw,I] and [1,kh,kw,O] */
        if (code == LG_OP_CONV_2D && op->opts_kind == LG_OPTS_CONV2D_OPTIONS) {
            const lg_conv2d_options *o = op->opts;
            kr->s = h ? o->stride_h : o->stride_w;
            kr->d = h ? o->dilation_h_factor : o->dilation_w_factor;
            kr->same = o->padding == LG_PADDING_SAME;
        } else if (code == LG_OP_DEPTHWISE_CONV_2D && op->opts_kind == LG_OPTS_DEPTHWISE_CONV2D_OPTIONS) {
            const lg_depthwise_conv2d_options *o = op->opts;
            kr->s = h ? o->stride_h : o->stride_w;
            kr->d = h ? o->dilation_h_factor : o->dilation_w_factor;
            kr->same = o->padding == LG_PADDING_SAME;
        } else {
            return false;
        }
    } else if (code == LG_OP_AVERAGE_POOL_2D || code == LG_OP_MAX_POOL_2D || code == LG_OP_L2_POOL_2D) {
        if (op->opts_kind != LG_OPTS_POOL2D_OPTIONS) return false;
        const lg_pool2d_options *o = op->opts;
        kr->k = h ? o->filter_height : o->filter_width;
        kr->s = h ? o->stride_h : o->stride_w;
        kr->same = o->padding == LG_PADDING_SAME;
    } else {
        return false;
    }
    if (kr->s < 1) kr->s = 1;
    if (kr->d < 1) kr->d = 1;
    if (kr->k < 1) kr->k = 1;
    kernel_pad(kr, tile_dim(c, op->inputs[0], axis), tile_dim(c, op->outputs[0], axis));
    return true;
}

/* TRANSPOSE_CONV: output o = i*s + j - pad_before, j < k; SAME pad from the output size as
   in a conv from output to input: total = max((in-1)*s + k - out, 0) (TFLite
   kernels/transpose_conv.cc, ComputePaddingHeightWidth on the output shape). */
static int map_transpose_conv(const tile_ctx *c, const lg_op *op, int32_t axis, int32_t olo,
                              int32_t ohi, int32_t *ilo, int32_t *ihi) {
    if (op->opts_kind != LG_OPTS_TRANSPOSE_CONV_OPTIONS || op->n_inputs < 3 || axis < 1 || axis > 2)
        return -1;
    const lg_transpose_conv_options *o = op->opts;
    int32_t k = tile_dim(c, op->inputs[1], axis), s = axis == 1 ? o->stride_h : o->stride_w;
    if (s < 1) s = 1;
    int32_t in = tile_dim(c, op->inputs[2], axis), out = tile_dim(c, op->outputs[0], axis), pb = 0;
    if (o->padding == LG_PADDING_SAME) {
        int64_t total = (int64_t)(in - 1) * s + k - out;
        pb = total > 0 ? (int32_t)(total / 2) : 0;
    }
    *ilo = tile_ceildiv((int64_t)olo + pb - (k - 1), s);
    *ihi = tile_floordiv((int64_t)ohi + pb, s);
    return 1;
}

/* RESIZE with an integer scale s = out/in (tensorflow/lite/kernels/internal/reference:
   nearest in = floor((o + 0.5*hp) * in/out) = floor(o/s) for an integer s; bilinear
   x = (o + 0.5)/s - 0.5 with half_pixel_centers, o/s without, taps floor(x), floor(x)+1). */
static int map_resize(const tile_ctx *c, const lg_op *op, int32_t code, int32_t axis, int32_t olo,
                      int32_t ohi, int32_t *ilo, int32_t *ihi) {
    int32_t in = tile_dim(c, op->inputs[0], axis), out = tile_dim(c, op->outputs[0], axis);
    if (in < 1 || out % in != 0) return -1;
    int32_t s = out / in;
    bool hp = false;
    if (code == LG_OP_RESIZE_BILINEAR && op->opts_kind == LG_OPTS_RESIZE_BILINEAR_OPTIONS) {
        const lg_resize_bilinear_options *o = op->opts;
        if (o->align_corners) return -1;
        hp = o->half_pixel_centers;
    } else if (code == LG_OP_RESIZE_NEAREST_NEIGHBOR && op->opts_kind == LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS) {
        const lg_resize_nearest_neighbor_options *o = op->opts;
        if (o->align_corners) return -1;
    }
    if (code == LG_OP_RESIZE_NEAREST_NEIGHBOR) {
        *ilo = tile_floordiv(olo, s);
        *ihi = tile_floordiv(ohi, s);
    } else if (hp) { /* floor((2o + 1 - s) / 2s) */
        *ilo = tile_floordiv(2 * (int64_t)olo + 1 - s, 2 * (int64_t)s);
        *ihi = tile_floordiv(2 * (int64_t)ohi + 1 - s, 2 * (int64_t)s) + 1;
    } else {
        *ilo = tile_floordiv(olo, s);
        *ihi = tile_floordiv(ohi, s) + 1;
    }
    return 1;
}

bool tile_slice_axis(const tile_ctx *c, uint32_t i, int32_t axis, int32_t *begin, int32_t *stride) {
    const lg_op *op = &c->sg->ops[i];
    int32_t code = lg_op_builtin(c->m, op);
    int32_t in = op->n_inputs ? op->inputs[0] : -1, out = op->n_outputs ? op->outputs[0] : -1;
    if ((code != LG_OP_SLICE && code != LG_OP_STRIDED_SLICE) || in < 0 || out < 0 || op->n_inputs < 3 ||
        rank_of(c, in) != rank_of(c, out) || axis < 0 || (uint32_t)axis >= rank_of(c, in))
        return false;
    int64_t bv[LG_MAX_RANK], sv[LG_MAX_RANK];
    uint32_t nb = 0, ns = 0;
    if (!tile_const_ints(c, op->inputs[1], bv, LG_MAX_RANK, &nb) || nb != rank_of(c, in)) return false;
    int64_t bg = bv[axis], st = 1;
    if (code == LG_OP_STRIDED_SLICE) {
        if (op->n_inputs < 4 || !tile_const_ints(c, op->inputs[3], sv, LG_MAX_RANK, &ns) || ns != nb) return false;
        const lg_strided_slice_options *o = op->opts_kind == LG_OPTS_STRIDED_SLICE_OPTIONS ? op->opts : NULL;
        if (o && (o->ellipsis_mask || o->new_axis_mask || o->shrink_axis_mask || o->offset)) return false;
        st = sv[axis];
        if (o && (o->begin_mask >> axis) & 1) bg = 0;
    }
    if (st < 1) return false;
    if (bg < 0) bg += tile_dim(c, in, axis);
    if (bg < 0 || bg >= tile_dim(c, in, axis)) return false;
    *begin = (int32_t)bg;
    *stride = (int32_t)st;
    return true;
}

int tile_map_input(const tile_ctx *c, uint32_t i, uint32_t slot, tile_mask b, int32_t olo,
                   int32_t ohi, int32_t *ilo, int32_t *ihi) {
    const lg_op *op = &c->sg->ops[i];
    int32_t t = op->inputs[slot];
    if (t < 0 || tile_is_const(c, t)) return 0;
    int32_t ia = tile_axis_of(c, t, b);
    if (ia < 0) return 0;
    int32_t oa = tile_axis_of(c, op->outputs[0], b);
    int32_t code = lg_op_builtin(c->m, op);
    tile_kernel kr;
    switch (code) {
    case LG_OP_CONV_2D: case LG_OP_DEPTHWISE_CONV_2D: case LG_OP_AVERAGE_POOL_2D:
    case LG_OP_MAX_POOL_2D: case LG_OP_L2_POOL_2D:
        if (slot != 0 || ia != oa || !tile_op_kernel(c, i, ia, &kr)) return -1;
        *ilo = (int32_t)((int64_t)olo * kr.s - kr.pad_before);
        *ihi = (int32_t)((int64_t)ohi * kr.s - kr.pad_before + (int64_t)(kr.k - 1) * kr.d);
        return 1;
    case LG_OP_TRANSPOSE_CONV:
        if (slot != 2 || ia != oa) return -1;
        return map_transpose_conv(c, op, ia, olo, ohi, ilo, ihi);
    case LG_OP_RESIZE_BILINEAR: case LG_OP_RESIZE_NEAREST_NEIGHBOR:
        if (slot != 0 || ia != oa) return -1;
        return map_resize(c, op, code, ia, olo, ohi, ilo, ihi);
    case LG_OP_SLICE: case LG_OP_STRIDED_SLICE: {
        int32_t bg, st;
        if (slot != 0) return 0;
        if (ia != oa) return -1;
        if (tile_dim(c, t, ia) == tile_dim(c, op->outputs[0], oa)) { *ilo = olo; *ihi = ohi; return 1; }
        if (!tile_slice_axis(c, i, ia, &bg, &st)) return -1;
        *ilo = (int32_t)(bg + (int64_t)olo * st); /* out o reads in begin + o*stride */
        *ihi = (int32_t)(bg + (int64_t)ohi * st);
        return 1;
    }
    case LG_OP_PAD: case LG_OP_PADV2: case LG_OP_MIRROR_PAD: {
        int64_t p[2 * LG_MAX_RANK];
        uint32_t n = 0;
        if (slot != 0) return 0;
        if (op->n_inputs < 2 || !tile_const_ints(c, op->inputs[1], p, 2 * LG_MAX_RANK, &n) ||
            (uint32_t)(2 * ia + 1) >= n)
            return -1;
        *ilo = (int32_t)(olo - p[2 * ia]);
        *ihi = (int32_t)(ohi - p[2 * ia]);
        return 1;
    }
    default:
        /* per-position along this axis (elementwise, transpose, reshape carrying it...) */
        *ilo = olo;
        *ihi = ohi;
        return 1;
    }
}

static void hull(int32_t *lo, int32_t *hi, int32_t t, int32_t a, int32_t b) {
    if (a < lo[t]) lo[t] = a;
    if (b > hi[t]) hi[t] = b;
}

lg_status tile_demand(const tile_ctx *c, tile_mask b, int32_t *lo, int32_t *hi, bool clip,
                      bool full_if_none, lg_error *err) {
    for (int32_t i = (int32_t)c->sg->n_ops - 1; i >= 0; i--) {
        const lg_op *op = &c->sg->ops[i];
        int32_t olo = INT32_MAX, ohi = INT32_MIN;
        for (uint32_t k = 0; k < op->n_outputs; k++) {
            int32_t t = op->outputs[k];
            if (t < 0) continue;
            int32_t a = tile_axis_of(c, t, b);
            if (a < 0) continue;
            if (clip && full_if_none && lo[t] > hi[t]) { lo[t] = 0; hi[t] = tile_dim(c, t, a) - 1; }
            if (clip) {
                if (lo[t] < 0) lo[t] = 0;
                if (hi[t] > tile_dim(c, t, a) - 1) hi[t] = tile_dim(c, t, a) - 1;
            }
            if (lo[t] <= hi[t]) {
                if (lo[t] < olo) olo = lo[t];
                if (hi[t] > ohi) ohi = hi[t];
            }
        }
        if (olo > ohi) {
            /* a reshape back to a tensor before a merge (GroupNorm's groups): the demand on
               the restored axes is a demand on that tensor */
            continue;
        }
        int32_t code = lg_op_builtin(c->m, op);
        if ((code == LG_OP_RESHAPE || code == LG_OP_SQUEEZE || code == LG_OP_EXPAND_DIMS) &&
            op->n_inputs && op->inputs[0] >= 0 && c->merge_src[op->inputs[0]] >= 0 &&
            tile_axis_of(c, op->inputs[0], b) < 0) {
            int32_t s = c->merge_src[op->inputs[0]];
            if (tile_axis_of(c, s, b) >= 0) hull(lo, hi, s, olo, ohi);
            continue;
        }
        for (uint32_t k = 0; k < op->n_inputs; k++) {
            int32_t ilo, ihi;
            int r = tile_map_input(c, (uint32_t)i, k, b, olo, ohi, &ilo, &ihi);
            if (r < 0)
                return lgi_fail_at(err, LG_ERR_UNSUPPORTED, 0, i, op->inputs[k],
                                   "tile: op %d (%s): cannot map its spatial axis", i, lg_op_name(c->m, op));
            if (r > 0) hull(lo, hi, op->inputs[k], ilo, ihi);
        }
    }
    if (clip)
        for (uint32_t k = 0; k < c->sg->n_inputs; k++) {
            int32_t t = c->sg->inputs[k], a = tile_axis_of(c, t, b);
            if (t < 0 || a < 0) continue;
            if (full_if_none && lo[t] > hi[t]) { lo[t] = 0; hi[t] = tile_dim(c, t, a) - 1; }
            if (lo[t] < 0) lo[t] = 0;
            if (hi[t] > tile_dim(c, t, a) - 1) hi[t] = tile_dim(c, t, a) - 1;
        }
    return LG_OK;
}
