/* litegpu tile (lg/tile.h): the ops that stop exact spatial tiling, and per output the
   receptive field, jump and halo from the demand walk (tile_map.c), plus the streaming state
   of a causal 1-D path. */
#include "refactor/tile_impl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *lg_tile_why_name(lg_tile_why w) {
    switch (w) {
    case LG_TILE_REDUCE_SPACE: return "reduce_over_space";
    case LG_TILE_ATTENTION: return "attention";
    case LG_TILE_FC_SPACE: return "fully_connected_over_space";
    case LG_TILE_RESHAPE_SPACE: return "reshape_merges_space";
    case LG_TILE_COORD_CONST: return "coordinate_dependent_constant";
    case LG_TILE_GATHER_SPACE: return "selects_positions";
    case LG_TILE_RESIZE_COORD: return "resize_coordinates";
    case LG_TILE_UNANALYSED: return "not_analysed";
    }
    return "?";
}

static uint32_t rk(const tile_ctx *c, int32_t t) {
    uint32_t r = c->sg->tensors[t].rank;
    return r > LG_MAX_RANK ? LG_MAX_RANK : r;
}

/* spatial bits an axis carries (size > 1 only) */
static tile_mask sp_axis(const tile_ctx *c, int32_t t, uint32_t a) {
    if (t < 0 || a >= rk(c, t) || c->sg->tensors[t].shape[a] <= 1) return 0;
    return c->label[t][a] & c->spatial;
}

static tile_mask sp_tensor(const tile_ctx *c, int32_t t) {
    tile_mask u = 0;
    if (t < 0 || tile_is_const(c, t)) return 0;
    for (uint32_t a = 0; a < rk(c, t); a++) u |= sp_axis(c, t, a);
    return u;
}

static int popcount(tile_mask m) {
    int n = 0;
    for (; m; m &= m - 1) n++;
    return n;
}

/* "input 0 axes 2,3" */
static void axes_text(const tile_ctx *c, tile_mask m, char *buf, size_t size) {
    size_t o = 0;
    int last_in = -1;
    buf[0] = 0;
    for (uint32_t k = 0; k < TILE_MAX_INPUTS * LG_MAX_RANK && o + 24 < size; k++) {
        if (!(m & ((tile_mask)1u << k))) continue;
        int in = (int)(k / LG_MAX_RANK);
        if (in != last_in)
            o += (size_t)snprintf(buf + o, size - o, "%sinput %d axis %u", o ? "; " : "", in, k % LG_MAX_RANK);
        else
            o += (size_t)snprintf(buf + o, size - o, ",%u", k % LG_MAX_RANK);
        last_in = in;
    }
    (void)c;
}

typedef struct brk {
    lg_tile_why why;
    int32_t tensor;
    char detail[160];
} brk;

static bool set_brk(brk *b, lg_tile_why why, int32_t t, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool set_brk(brk *b, lg_tile_why why, int32_t t, const char *fmt, ...) {
    va_list ap;
    b->why = why;
    b->tensor = t;
    va_start(ap, fmt);
    vsnprintf(b->detail, sizeof b->detail, fmt, ap);
    va_end(ap);
    return true;
}

static bool is_reduce(int32_t code) {
    return code == LG_OP_MEAN || code == LG_OP_SUM || code == LG_OP_REDUCE_MAX ||
           code == LG_OP_REDUCE_MIN || code == LG_OP_REDUCE_PROD || code == LG_OP_REDUCE_ANY ||
           code == LG_OP_REDUCE_ALL || code == LG_OP_ARG_MAX || code == LG_OP_ARG_MIN;
}

/* Ops whose index map tile_map_input knows, or which are per position along every axis
   they do not name (checked by the rules below). */
static bool known_op(const tile_ctx *c, const lg_op *op, int32_t code) {
    switch (code) {
    case LG_OP_CONV_2D: case LG_OP_DEPTHWISE_CONV_2D: case LG_OP_AVERAGE_POOL_2D:
    case LG_OP_MAX_POOL_2D: case LG_OP_L2_POOL_2D: case LG_OP_TRANSPOSE_CONV:
    case LG_OP_RESIZE_BILINEAR: case LG_OP_RESIZE_NEAREST_NEIGHBOR: case LG_OP_PAD:
    case LG_OP_PADV2: case LG_OP_MIRROR_PAD: case LG_OP_TRANSPOSE: case LG_OP_RESHAPE:
    case LG_OP_SQUEEZE: case LG_OP_EXPAND_DIMS: case LG_OP_CONCATENATION: case LG_OP_SPLIT:
    case LG_OP_SPLIT_V: case LG_OP_SLICE: case LG_OP_STRIDED_SLICE: case LG_OP_FULLY_CONNECTED:
    case LG_OP_BATCH_MATMUL: case LG_OP_SOFTMAX: case LG_OP_LOG_SOFTMAX:
    case LG_OP_L2_NORMALIZATION: case LG_OP_LOCAL_RESPONSE_NORMALIZATION: case LG_OP_QUANTIZE:
    case LG_OP_DEQUANTIZE: case LG_OP_CAST: case LG_OP_GATHER: case LG_OP_GATHER_ND:
        return true;
    default:
        break;
    }
    if (is_reduce(code)) return true;
    const lg_op_info *info = lg_op_info_of(c->m, op);
    return info && (info->flags & (LG_OPF_ELEMENTWISE | LG_OPF_BROADCAST)) &&
           !(info->flags & (LG_OPF_DYNAMIC | LG_OPF_STATEFUL | LG_OPF_SUBGRAPHS));
}

/* An operand constant that varies along an axis where another operand is spatial. */
static bool coord_const(const tile_ctx *c, const lg_op *op, brk *b) {
    int32_t out = op->outputs[0];
    uint32_t ro = rk(c, out);
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        if (t < 0 || !tile_is_const(c, t)) continue;
        uint32_t rc = rk(c, t);
        for (uint32_t a = 0; a < rc && rc <= ro; a++) {
            uint32_t oa = a + (ro - rc);
            if (c->sg->tensors[t].shape[a] > 1 && sp_axis(c, out, oa)) {
                char ax[96];
                axes_text(c, sp_axis(c, out, oa), ax, sizeof ax);
                return set_brk(b, LG_TILE_COORD_CONST, t,
                               "a constant that varies along a spatial axis (%s): a position "
                               "embedding, tile coordinates change the result", ax);
            }
        }
    }
    return false;
}

static bool rule_reduce(const tile_ctx *c, const lg_op *op, int32_t code, tile_mask lost, brk *b) {
    char ax[96];
    axes_text(c, lost, ax, sizeof ax);
    int32_t in = op->inputs[0];
    if (is_reduce(code))
        return set_brk(b, LG_TILE_REDUCE_SPACE, in,
                       "reduces over space (%s): global pooling, or norm statistics over space "
                       "(GroupNorm/InstanceNorm)", ax);
    if (code == LG_OP_FULLY_CONNECTED)
        return set_brk(b, LG_TILE_FC_SPACE, in, "contracts a spatial axis (%s): a dense layer over flattened space", ax);
    if (code == LG_OP_BATCH_MATMUL)
        return set_brk(b, LG_TILE_ATTENTION, in, "contracts positions (%s): attention mixes every position", ax);
    if (code == LG_OP_GATHER || code == LG_OP_GATHER_ND || code == LG_OP_SLICE || code == LG_OP_STRIDED_SLICE)
        return set_brk(b, LG_TILE_GATHER_SPACE, in, "selects fixed positions on a spatial axis (%s)", ax);
    if (code == LG_OP_AVERAGE_POOL_2D || code == LG_OP_MAX_POOL_2D || code == LG_OP_L2_POOL_2D ||
        code == LG_OP_CONV_2D || code == LG_OP_DEPTHWISE_CONV_2D) {
        bool pool = code != LG_OP_CONV_2D && code != LG_OP_DEPTHWISE_CONV_2D;
        for (int32_t a = 1; a <= 2; a++) {
            tile_kernel kr;
            if (sp_axis(c, in, (uint32_t)a) && tile_op_kernel(c, (uint32_t)(op - c->sg->ops), a, &kr) &&
                (int64_t)(kr.k - 1) * kr.d + 1 >= tile_dim(c, in, a))
                return pool ? set_brk(b, LG_TILE_REDUCE_SPACE, in, "global pooling: the window covers the whole spatial axis (%s)", ax)
                            : set_brk(b, LG_TILE_FC_SPACE, in, "a convolution whose window covers the whole spatial axis (%s): "
                                      "a dense layer over space", ax);
        }
        return false;
    }
    return set_brk(b, LG_TILE_UNANALYSED, in, "drops a spatial axis (%s)", ax);
}

/* Spatial bits of the axes a reduction reduces (a merged axis counts: GroupNorm's MEAN over
   [N, G, C/G*H*W]). */
static tile_mask reduced_space(const tile_ctx *c, const lg_op *op) {
    int64_t ax[LG_MAX_RANK];
    uint32_t n = 0;
    int32_t in = op->inputs[0];
    tile_mask u = 0;
    if (op->n_inputs < 2 || !tile_const_ints(c, op->inputs[1], ax, LG_MAX_RANK, &n)) return 0;
    for (uint32_t k = 0; k < n; k++) {
        int64_t a = ax[k] < 0 ? ax[k] + rk(c, in) : ax[k];
        if (a >= 0 && a < (int64_t)rk(c, in)) u |= sp_axis(c, in, (uint32_t)a);
    }
    return u;
}

/* The rules: does op i stop exact tiling? */
static bool op_breaks(const tile_ctx *c, uint32_t i, brk *b) {
    const lg_op *op = &c->sg->ops[i];
    int32_t code = lg_op_builtin(c->m, op);
    if (!op->n_outputs || op->outputs[0] < 0 || !op->n_inputs) return false;
    tile_mask in_sp = 0, out_sp = 0;
    int32_t in_t = -1;
    for (uint32_t k = 0; k < op->n_inputs; k++) {
        tile_mask s = sp_tensor(c, op->inputs[k]);
        if (s && in_t < 0) in_t = op->inputs[k];
        in_sp |= s;
    }
    if (!in_sp) return false;
    for (uint32_t k = 0; k < op->n_outputs; k++) out_sp |= sp_tensor(c, op->outputs[k]);
    int32_t in = op->inputs[0], out = op->outputs[0];
    char ax[96];
    if (!known_op(c, op, code))
        return set_brk(b, LG_TILE_UNANALYSED, in_t, "%s is not analysed along space", lg_op_name(c->m, op));
    tile_mask lost = in_sp & ~out_sp;
    if (is_reduce(code) && !lost) lost = reduced_space(c, op);
    if (lost && rule_reduce(c, op, code, lost, b)) return true;
    uint32_t ri = in >= 0 ? rk(c, in) : 0;
    switch (code) {
    case LG_OP_SOFTMAX: case LG_OP_LOG_SOFTMAX:
        if (ri && sp_axis(c, in, ri - 1)) {
            axes_text(c, sp_axis(c, in, ri - 1), ax, sizeof ax);
            return set_brk(b, LG_TILE_ATTENTION, in, "softmax over positions (%s): attention weights", ax);
        }
        return false;
    case LG_OP_L2_NORMALIZATION: case LG_OP_LOCAL_RESPONSE_NORMALIZATION:
        if (ri && sp_axis(c, in, ri - 1))
            return set_brk(b, LG_TILE_REDUCE_SPACE, in, "%s normalizes over a spatial axis", lg_op_name(c->m, op));
        return false;
    case LG_OP_FULLY_CONNECTED:
        if (ri && sp_axis(c, in, ri - 1))
            return set_brk(b, LG_TILE_FC_SPACE, in, "%s", "contracts a spatial axis: a dense layer over space");
        return false;
    case LG_OP_BATCH_MATMUL: {
        const lg_batch_mat_mul_options *o = op->opts_kind == LG_OPTS_BATCH_MAT_MUL_OPTIONS ? op->opts : NULL;
        int32_t bt = op->n_inputs > 1 ? op->inputs[1] : -1;
        uint32_t ka = o && o->adj_x ? ri - 2 : ri - 1;
        uint32_t rb = bt >= 0 ? rk(c, bt) : 0, kb = o && o->adj_y ? rb - 1 : rb - 2;
        if ((ri >= 2 && sp_axis(c, in, ka)) || (rb >= 2 && !tile_is_const(c, bt) && sp_axis(c, bt, kb)))
            return set_brk(b, LG_TILE_ATTENTION, sp_axis(c, in, ka) ? in : bt, "%s",
                           "a matrix product contracting positions: attention mixes every position");
        return false;
    }
    case LG_OP_CONCATENATION: {
        const lg_concatenation_options *o = op->opts;
        int32_t axis = o ? o->axis : 0, ro = (int32_t)rk(c, out);
        if (axis < 0) axis += ro;
        for (uint32_t k = 0; k < op->n_inputs && axis >= 0; k++)
            if (op->inputs[k] >= 0 && sp_axis(c, op->inputs[k], (uint32_t)axis))
                return set_brk(b, LG_TILE_UNANALYSED, op->inputs[k], "%s", "concatenates along a spatial axis");
        return false;
    }
    case LG_OP_SLICE: case LG_OP_STRIDED_SLICE:
        /* a crop or subsampling (begin + o*stride) is local; what is not such a map is not
           followed */
        for (uint32_t a = 0; a < ri && a < rk(c, out); a++) {
            int32_t bg, st;
            if (sp_axis(c, in, a) && c->sg->tensors[in].shape[a] != c->sg->tensors[out].shape[a] &&
                (popcount(c->label[in][a]) != 1 || !tile_slice_axis(c, i, (int32_t)a, &bg, &st)))
                return set_brk(b, LG_TILE_GATHER_SPACE, in, "%s", "cuts fixed positions of a spatial axis");
        }
        return false;
    case LG_OP_RESIZE_BILINEAR: case LG_OP_RESIZE_NEAREST_NEIGHBOR:
        for (int32_t a = 1; a <= 2; a++) {
            if (!sp_axis(c, in, (uint32_t)a)) continue;
            int32_t lo, hi;
            if (tile_map_input(c, i, 0, c->label[in][a], 0, 0, &lo, &hi) < 0 || popcount(c->label[in][a]) != 1)
                return set_brk(b, LG_TILE_RESIZE_COORD, in, "%s",
                               "align_corners or a non-integer scale: the interpolation depends on the full size");
        }
        return false;
    case LG_OP_CONV_2D: case LG_OP_DEPTHWISE_CONV_2D: case LG_OP_AVERAGE_POOL_2D:
    case LG_OP_MAX_POOL_2D: case LG_OP_L2_POOL_2D: case LG_OP_TRANSPOSE_CONV: {
        int32_t x = code == LG_OP_TRANSPOSE_CONV ? op->inputs[op->n_inputs > 2 ? 2 : 0] : in;
        for (uint32_t a = 1; a <= 2; a++)
            if (sp_axis(c, x, a) && popcount(c->label[x][a]) != 1)
                return set_brk(b, LG_TILE_UNANALYSED, x, "%s", "convolves an axis that merges space with another axis");
        return false;
    }
    case LG_OP_RESHAPE: case LG_OP_SQUEEZE: case LG_OP_EXPAND_DIMS:
        if (c->merge_src[out] >= 0 && c->merge_src[in] < 0) {
            tile_mask mixed = 0;
            for (uint32_t a = 0; a < rk(c, out); a++)
                if (sp_axis(c, out, a) && popcount(c->label[out][a]) != 1) mixed |= sp_axis(c, out, a);
            for (uint32_t a = 0; a < ri; a++)
                if (sp_axis(c, in, a) && popcount(c->label[in][a]) != 1) mixed = 0; /* already merged */
            if (!mixed) return false;
            axes_text(c, mixed, ax, sizeof ax);
            return set_brk(b, LG_TILE_RESHAPE_SPACE, in, "merges or splits a spatial axis with another (%s)", ax);
        }
        return false;
    default:
        break;
    }
    const lg_op_info *info = lg_op_info_of(c->m, op);
    return info && (info->flags & LG_OPF_BROADCAST) && coord_const(c, op, b);
}

/* ---------------------------------------------------------------- per output */

static void ancestors(const tile_ctx *c, int32_t t, bool *op_mark) {
    int32_t *stack = malloc(sizeof(int32_t) * (c->n_tensors + 1));
    bool *seen = calloc(c->n_tensors + 1, 1);
    if (!stack || !seen) { free(stack); free(seen); return; }
    uint32_t n = 0;
    stack[n++] = t;
    seen[t] = true;
    while (n) {
        int32_t x = stack[--n], p = c->producer[x];
        if (p < 0 || op_mark[p]) continue;
        op_mark[p] = true;
        const lg_op *op = &c->sg->ops[p];
        for (uint32_t k = 0; k < op->n_inputs; k++) {
            int32_t y = op->inputs[k];
            if (y >= 0 && !seen[y]) { seen[y] = true; stack[n++] = y; }
        }
    }
    free(stack);
    free(seen);
}

static void reset(int32_t *lo, int32_t *hi, uint32_t n) {
    for (uint32_t t = 0; t < n; t++) { lo[t] = INT32_MAX; hi[t] = INT32_MIN; }
}

static int64_t gcd64(int64_t a, int64_t b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) { int64_t r = a % b; a = b; b = r; }
    return a ? a : 1;
}

/* The jump: the slope of lo(o), measured over a long stretch P of (unclipped, virtual)
   output positions so the floor/ceil of upsamplers averages out, then the nearest fraction
   with a denominator up to 64 (the error of the slope is at most 2/P). */
static lg_status jump_of(const tile_ctx *c, int32_t out_t, int32_t in_t, tile_mask bit, int32_t n,
                         int32_t *lo, int32_t *hi, int64_t *jn, int64_t *jd, lg_error *err) {
    const int64_t P = 1 << 16;
    int64_t l[2];
    for (int k = 0; k < 2; k++) {
        reset(lo, hi, c->n_tensors);
        lo[out_t] = hi[out_t] = k ? (int32_t)P : 0;
        lg_status st = tile_demand(c, bit, lo, hi, false, false, err);
        if (st != LG_OK) return st;
        if (lo[in_t] > hi[in_t]) { *jn = *jd = 1; return LG_OK; }
        l[k] = lo[in_t];
    }
    (void)n;
    double x = (double)(l[1] - l[0]) / (double)P;
    for (int64_t d = 1; d <= 64; d++) {
        double q = x * (double)d, r = q - (double)(int64_t)(q + (q >= 0 ? 0.5 : -0.5));
        if (r < 0) r = -r;
        if (r <= (double)d * 4.0 / (double)P) {
            int64_t num = (int64_t)(q + (q >= 0 ? 0.5 : -0.5)), g = gcd64(num, d);
            *jn = num / g;
            *jd = d / g;
            return LG_OK;
        }
    }
    int64_t g = gcd64(l[1] - l[0], P);
    *jn = (l[1] - l[0]) / g;
    *jd = P / g;
    return LG_OK;
}

/* RF, jump and halos of one axis: the demand of every single output position. */
static lg_status axis_stats(const tile_ctx *c, int32_t out_t, tile_mask bit, lg_tile_axis *ax,
                            int32_t *lo, int32_t *hi, lg_error *err) {
    int32_t in_t = c->sg->inputs[ax->input];
    int32_t n = ax->out_size;
    int32_t lo0 = 0, lon = 0;
    int64_t rf = 0;
    int32_t *los = malloc(sizeof(int32_t) * (size_t)n), *his = malloc(sizeof(int32_t) * (size_t)n);
    if (!los || !his) { free(los); free(his); return lgi_fail(err, LG_ERR_NOMEM, "tile: out of memory"); }
    for (int32_t o = 0; o < n; o++) {
        reset(lo, hi, c->n_tensors);
        lo[out_t] = hi[out_t] = o;
        lg_status st = tile_demand(c, bit, lo, hi, false, false, err);
        if (st != LG_OK) { free(los); free(his); return st; }
        los[o] = lo[in_t];
        his[o] = hi[in_t];
        if (lo[in_t] > hi[in_t]) { los[o] = his[o] = 0; continue; }
        if (his[o] - los[o] + 1 > rf) rf = his[o] - los[o] + 1;
        if (o == 0) lo0 = los[o];
        lon = los[o];
    }
    (void)lo0; (void)lon;
    int64_t jn = 1, jd = 1;
    lg_status st = jump_of(c, out_t, in_t, bit, n, lo, hi, &jn, &jd, err);
    if (st != LG_OK) { free(los); free(his); return st; }
    ax->rf = (int32_t)rf;
    ax->jump_num = (int32_t)jn;
    ax->jump_den = (int32_t)jd;
    int64_t hl = INT64_MIN, hr = INT64_MIN;
    for (int32_t o = 0; o < n; o++) {
        /* o*J - lo, hi - o*J with J = jn/jd: ceil for the left, ceil for the right */
        int64_t l = tile_ceildiv((int64_t)o * ax->jump_num - (int64_t)los[o] * ax->jump_den, ax->jump_den);
        int64_t r = tile_ceildiv((int64_t)his[o] * ax->jump_den - (int64_t)o * ax->jump_num, ax->jump_den);
        if (l > hl) hl = l;
        if (r > hr) hr = r;
    }
    ax->halo_left = (int32_t)hl;
    ax->halo_right = (int32_t)hr;
    ax->causal = ax->halo_right == 0 && ax->halo_left > 0 && ax->jump_den == 1;
    free(los);
    free(his);
    return LG_OK;
}

static void streaming(const tile_ctx *c, const bool *mark, tile_mask bit, lg_tile_output *o) {
    o->streaming = true;
    for (uint32_t i = 0; i < c->sg->n_ops; i++) {
        if (!mark[i]) continue;
        const lg_op *op = &c->sg->ops[i];
        int32_t x = op->n_inputs ? op->inputs[0] : -1;
        int32_t a = tile_axis_of(c, x, bit);
        tile_kernel kr;
        if (a < 0 || !tile_op_kernel(c, i, a, &kr) || kr.k <= 1) continue;
        if (o->n_layers < LG_TILE_MAX_LAYERS) {
            lg_tile_layer *l = &o->layers[o->n_layers++];
            l->op = (int32_t)i;
            l->kernel = kr.k;
            l->dilation = kr.d;
            l->stride = kr.s;
            l->state_samples = (kr.k - 1) * kr.d;
            l->channels = tile_dim(c, x, 3);
            o->state_samples += l->state_samples;
            o->state_values += (int64_t)l->state_samples * l->channels;
        }
    }
}

static lg_status analyze_output(const tile_ctx *c, uint32_t k, const brk *br, const bool *has_br,
                                bool *mark, int32_t *lo, int32_t *hi, lg_tile_output *o, lg_error *err) {
    int32_t t = c->sg->outputs[k];
    o->tensor = t;
    o->name = c->sg->tensors[t].name;
    o->first = -1;
    memset(mark, 0, c->sg->n_ops ? c->sg->n_ops : 1);
    ancestors(c, t, mark);
    for (uint32_t i = 0; i < c->sg->n_ops; i++) {
        if (!mark[i] || !has_br[i]) continue;
        if (o->n_breakers < LG_TILE_MAX_BREAKERS) {
            lg_tile_breaker *b = &o->breakers[o->n_breakers];
            b->op = (int32_t)i;
            b->op_name = lg_op_name(c->m, &c->sg->ops[i]);
            b->tensor = br[i].tensor;
            b->tensor_name = br[i].tensor >= 0 ? c->sg->tensors[br[i].tensor].name : NULL;
            b->why = br[i].why;
            memcpy(b->detail, br[i].detail, sizeof b->detail);
            if (o->first < 0 && b->why != LG_TILE_RESHAPE_SPACE && b->why != LG_TILE_UNANALYSED)
                o->first = (int32_t)o->n_breakers;
        }
        o->n_breakers++;
    }
    for (uint32_t i = 0; o->first < 0 && i < o->n_breakers && i < LG_TILE_MAX_BREAKERS; i++)
        if (o->breakers[i].why == LG_TILE_UNANALYSED) o->first = (int32_t)i;
    if (o->n_breakers && o->first < 0) o->first = 0;
    o->exact = o->n_breakers == 0;
    static const char *hw[] = {"H", "W"};
    for (uint32_t bitn = 0; bitn < TILE_MAX_INPUTS * LG_MAX_RANK && o->n_axes < LG_TILE_MAX_AXES; bitn++) {
        tile_mask bit = (tile_mask)1u << bitn;
        if (!(c->spatial & bit)) continue;
        uint32_t input = bitn / LG_MAX_RANK, axis = bitn % LG_MAX_RANK;
        if (input >= c->sg->n_inputs) continue;
        int32_t in_t = c->sg->inputs[input];
        if (axis >= rk(c, in_t) || c->sg->tensors[in_t].shape[axis] <= 1) continue;
        lg_tile_axis *ax = &o->axes[o->n_axes++];
        memset(ax, 0, sizeof *ax);
        ax->input = (int32_t)input;
        ax->input_axis = (int32_t)axis;
        ax->in_size = c->sg->tensors[in_t].shape[axis];
        ax->out_axis = tile_axis_of(c, t, bit);
        ax->out_size = ax->out_axis >= 0 ? tile_dim(c, t, ax->out_axis) : 1;
        snprintf(ax->name, sizeof ax->name, "a%u", axis);
        if (!o->exact || ax->out_axis < 0) continue;
        lg_status st = axis_stats(c, t, bit, ax, lo, hi, err);
        if (st != LG_OK) return st;
    }
    /* names: two axes of one input are H, W (in order); one is T */
    uint32_t n_named = 0;
    for (uint32_t a = 0; a < o->n_axes; a++) n_named++;
    for (uint32_t a = 0; a < o->n_axes; a++)
        snprintf(o->axes[a].name, sizeof o->axes[a].name, "%s", n_named == 1 ? "T" : (a < 2 ? hw[a] : "?"));
    if (o->exact && o->n_axes == 1 && o->axes[0].causal)
        streaming(c, mark, TILE_BIT(o->axes[0].input, o->axes[0].input_axis), o);
    return LG_OK;
}

lg_status lg_tile_analyze(const lg_model *m, lg_tile_report **out, lg_error *err) {
    if (!out) return lgi_fail(err, LG_ERR_INVALID_ARG, "tile: no report pointer");
    *out = NULL;
    tile_ctx c;
    lg_status st = tile_ctx_init(&c, m, err);
    if (st != LG_OK) return st;
    for (uint32_t t = 0; t < c.n_tensors; t++)
        for (uint32_t a = 0; a < rk(&c, (int32_t)t); a++)
            if (c.sg->tensors[t].shape[a] < 0 ||
                (c.sg->tensors[t].shape_signature && a < c.sg->tensors[t].n_shape_signature &&
                 c.sg->tensors[t].shape_signature[a] < 0)) {
                tile_ctx_free(&c);
                return lgi_fail_at(err, LG_ERR_UNSUPPORTED, 0, -1, (int32_t)t,
                                   "tile: tensor %u (%s) has a dynamic shape: fix it first (convert/fix --input-shape)",
                                   t, c.sg->tensors[t].name ? c.sg->tensors[t].name : "");
            }
    uint32_t n_ops = c.sg->n_ops;
    brk *br = calloc(n_ops ? n_ops : 1, sizeof *br);
    bool *has = calloc(n_ops ? n_ops : 1, 1), *mark = calloc(n_ops ? n_ops : 1, 1);
    int32_t *lo = malloc(sizeof(int32_t) * (c.n_tensors + 1)), *hi = malloc(sizeof(int32_t) * (c.n_tensors + 1));
    lg_tile_report *r = calloc(1, sizeof *r);
    if (r) r->outputs = calloc(c.sg->n_outputs ? c.sg->n_outputs : 1, sizeof *r->outputs);
    if (!br || !has || !mark || !lo || !hi || !r || !r->outputs) {
        st = lgi_fail(err, LG_ERR_NOMEM, "tile: out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < n_ops; i++) has[i] = op_breaks(&c, i, &br[i]);
    r->n_outputs = c.sg->n_outputs;
    for (uint32_t k = 0; k < c.sg->n_outputs && st == LG_OK; k++)
        st = analyze_output(&c, k, br, has, mark, lo, hi, &r->outputs[k], err);
done:
    free(br);
    free(has);
    free(mark);
    free(lo);
    free(hi);
    tile_ctx_free(&c);
    if (st != LG_OK) { lg_tile_report_free(r); return st; }
    *out = r;
    return LG_OK;
}

void lg_tile_report_free(lg_tile_report *r) {
    if (!r) return;
    free(r->outputs);
    free(r);
}

lg_status lg_tile_input_crop(const lg_model *m, const lg_tile_report *r, uint32_t out,
                             const int32_t *o0, const int32_t *n, int32_t *lo_out, int32_t *hi_out,
                             lg_error *err) {
    if (!r || out >= r->n_outputs) return lgi_fail(err, LG_ERR_INVALID_ARG, "tile: no output %u", out);
    const lg_tile_output *o = &r->outputs[out];
    if (!o->exact) return lgi_fail(err, LG_ERR_INVALID_ARG, "tile: output %u is not exactly tileable", out);
    tile_ctx c;
    lg_status st = tile_ctx_init(&c, m, err);
    if (st != LG_OK) return st;
    int32_t *lo = malloc(sizeof(int32_t) * (c.n_tensors + 1)), *hi = malloc(sizeof(int32_t) * (c.n_tensors + 1));
    if (!lo || !hi) st = lgi_fail(err, LG_ERR_NOMEM, "tile: out of memory");
    for (uint32_t a = 0; a < o->n_axes && st == LG_OK; a++) {
        const lg_tile_axis *ax = &o->axes[a];
        lo_out[a] = hi_out[a] = 0;
        if (ax->out_axis < 0) continue;
        reset(lo, hi, c.n_tensors);
        lo[o->tensor] = o0[a];
        hi[o->tensor] = o0[a] + n[a] - 1;
        st = tile_demand(&c, TILE_BIT(ax->input, ax->input_axis), lo, hi, false, false, err);
        int32_t t = c.sg->inputs[ax->input];
        lo_out[a] = lo[t];
        hi_out[a] = hi[t];
    }
    free(lo);
    free(hi);
    tile_ctx_free(&c);
    return st;
}
