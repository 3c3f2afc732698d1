/* `fix` passes for slices and pads of forms a delegate refuses (issue #11; the operand forms are
 * in fix_shape.c). Each fires only where src/check reports a rule it names, and each is exact:
 * the rewrites only move values.
 *
 *  slice-plain        SLICE / STRIDED_SLICE that a delegate refuses for
 *                       slice-rank             an input of rank 1 or 2 (the classic delegate's
 *                                              shared check takes rank 3-4; check_ops_shape.c
 *                                              lgc_rule_slice),
 *                       strided-slice-masks    an ellipsis, new-axis or shrink-axis mask
 *                                              (gpu_compatibility.cc: all three must be 0),
 *                       strided-slice-reverse  a negative stride ("Reverse slices are not
 *                                              supported", check_strided_slice)
 *                     -> [RESHAPE to rank 4: [n] -> [1,n,1,1], [a,b] -> [1,a,b,1]], one SLICE
 *                     (all strides 1) or STRIDED_SLICE (positive strides, no masks) taking the
 *                     same elements in ascending order, then per reversed axis its elements
 *                     as single-element SLICEs in reverse order joined by CONCATENATION (at
 *                     most 16 per axis), then RESHAPE to the op's output shape (the dims shrink
 *                     removes, new-axis adds). What the op takes is read off the op itself: run
 *                     alone on its input's element indices (litegpu's interpreter, TFLite's
 *                     strided_slice.cc semantics for masks, offsets and clamping; fp32 holds
 *                     indices exactly up to 2^24), its output must be a product of one
 *                     arithmetic progression per input axis (begin, step != 0, count), which
 *                     every SLICE/STRIDED_SLICE is; anything else is left alone. A rank-5 input
 *                     is left to reduce-rank (the RESHAPE would read a rank-5 tensor too).
 *  pad-rank4          PAD / PADV2 / MIRROR_PAD that a delegate refuses or computes wrong for
 *                       pad-shape              data of rank 1 or 2 (paddings must be 4x2 or 3x2;
 *                                              lgc_rule_pad),
 *                       webgpu-pad-layout      (PAD/PADV2, ML Drift on WebGPU) rank-3 data with a
 *                                              first dimension > 1, or a padded batch axis of
 *                                              rank-4 data (check_pad_layout)
 *                     -> RESHAPE to a rank-4 [B,H,W,C] view in which every padded dim is H or W
 *                     and the batch is not padded, the pad there, RESHAPE to the output shape.
 *                     With one padded dim p: [1, (dims before p), d_p, (dims after p)], padded
 *                     on W. With two, p < q: [(dims before p), d_p * m, d_q, (dims after q)],
 *                     m the product of the dims between them, padded on H by (before_p * m,
 *                     after_p * m) and on W as q: padding the outer dim of a merged run by k
 *                     rows is padding the merged dim by k * (the run's inner size) elements,
 *                     the same values in the same places (MIRROR_PAD only when m = 1: a mirror
 *                     of merged rows would reverse inside them). [1,8,8,4] and [2,8,8,4]
 *                     padded on H and W are exact on WebGPU (rules.def webgpu-pad-layout). Three
 *                     or more padded dims, and pads with no padded dim, are left alone. */
#include <stdlib.h>

#include "passes/fix_emit.h"
#include "passes/fix_util.h"

#define MAX_REVERSE 16 /* elements of one reversed axis (one SLICE each) */

static bool is_const(const lg_pass_ctx *c, int32_t t) { return lg_tensor_is_const(c->m, c->sg, t); }

static bool plain(const lg_pass_ctx *c, int32_t t) {
    return t >= 0 && (uint32_t)t < c->m->subgraphs[c->sg].n_tensors && !fx_dynamic(lgp_tensor(c, t)) &&
           lg_tensor_numel(lgp_tensor(c, t)) > 0 && !fx_per_axis(lgp_tensor(c, t));
}

static bool dims_equal(const int32_t *a, uint32_t ra, const lg_tensor *t) {
    if (ra != t->rank) return false;
    for (uint32_t d = 0; d < ra; d++)
        if (a[d] != t->shape[d]) return false;
    return true;
}

/* The rank-4 view of x of rank 1-2 (left-aligned after the batch), or x's own dims. */
static uint32_t view_dims(const lg_tensor *t, int32_t *v, uint32_t *shift) {
    if (t->rank >= 3) {
        memcpy(v, t->shape, t->rank * sizeof v[0]);
        *shift = 0;
        return t->rank;
    }
    v[0] = v[1] = v[2] = v[3] = 1;
    for (uint32_t d = 0; d < t->rank; d++) v[d + 1] = t->shape[d];
    *shift = 1;
    return 4;
}

/* ================================================================== slice-plain */

typedef struct splan {
    int32_t x, y;
    uint32_t rank;
    int64_t begin[4], step[4], n[4]; /* per input axis: begin, begin + step, ... (n of them) */
} splan;

static const lg_strided_slice_options *ss_opts(const lg_op *op) {
    return op->opts && op->opts_kind == LG_OPTS_STRIDED_SLICE_OPTIONS ? op->opts : NULL;
}

/* Does check_ops_shape.c report slice-rank (classic), strided-slice-masks or
   strided-slice-reverse on op i? A stride 0 (op-params, refused by TFLite) is not ours. */
static bool slice_fires(const lg_pass_ctx *c, uint32_t i, uint32_t rank) {
    const lg_op *op = lgp_op(c, i);
    if (rank == 1 || rank == 2) return true;
    if (lgp_code(c, i) != LG_OP_STRIDED_SLICE) return false;
    const lg_strided_slice_options *o = ss_opts(op);
    if (o && (o->ellipsis_mask || o->new_axis_mask || o->shrink_axis_mask)) return true;
    int64_t s[8];
    uint32_t n = 0;
    if (!lgp_const_ints(c, op->inputs[3], s, 8, &n)) return false;
    for (uint32_t k = 0; k < n; k++)
        if (s[k] <= 0) return s[k] < 0;
    return false;
}

/* The op's inputs and output as this pass takes them. */
static bool slice_candidate(const lg_pass_ctx *c, uint32_t i) {
    const lg_op *op = lgp_op(c, i);
    int32_t code = lgp_code(c, i);
    uint32_t want = code == LG_OP_SLICE ? 3 : code == LG_OP_STRIDED_SLICE ? 4 : 0;
    if (!want || op->n_inputs != want || op->n_outputs != 1) return false;
    int32_t x = op->inputs[0], y = op->outputs[0];
    if (!plain(c, x) || !plain(c, y) || is_const(c, x) || !lgf_is_float(c, x) || !lgf_is_float(c, y)) return false;
    const lg_tensor *tx = lgp_tensor(c, x);
    if (tx->rank < 1 || tx->rank > 4 || lg_tensor_numel(tx) > ((int64_t)1 << 24)) return false;
    for (uint32_t k = 1; k < want; k++)
        if (op->inputs[k] < 0 || !is_const(c, op->inputs[k])) return false;
    return slice_fires(c, i, tx->rank);
}

/* Fit the element map m (k entries, input flat indices) as one progression per axis of x. */
static bool fit_plan(splan *p, const lg_tensor *tx, const float *m, int64_t k) {
    uint32_t r = tx->rank;
    int64_t stride[4], seen_n[4] = {0, 0, 0, 0};
    stride[r - 1] = 1;
    for (int d = (int)r - 2; d >= 0; d--) stride[d] = stride[d + 1] * tx->shape[d + 1];
    int64_t total = lg_tensor_numel(tx), sum = 0;
    for (uint32_t d = 0; d < r; d++) sum += tx->shape[d];
    uint8_t *seen = calloc((size_t)sum, 1), *ax[4]; /* per axis: which coordinates occur */
    if (!seen) return false;
    for (uint32_t d = 0, at = 0; d < r; at += (uint32_t)tx->shape[d], d++) ax[d] = seen + at;
    bool ok = true;
    for (int64_t q = 0; q < k && ok; q++) {
        int64_t e = (int64_t)m[q];
        ok = (float)e == m[q] && e >= 0 && e < total;
        for (uint32_t d = 0; ok && d < r; d++) {
            int64_t cd = e / stride[d] % tx->shape[d];
            if (!ax[d][cd]) seen_n[d]++;
            ax[d][cd] = 1;
        }
    }
    free(seen);
    int64_t prod = 1;
    for (uint32_t d = 0; ok && d < r; d++) prod *= seen_n[d];
    if (!ok || prod != k) return false;
    int64_t inner = 1;
    for (int d = (int)r - 1; d >= 0; d--) {
        p->n[d] = seen_n[d];
        p->begin[d] = (int64_t)m[0] / stride[d] % tx->shape[d];
        p->step[d] = p->n[d] > 1 ? (int64_t)m[inner] / stride[d] % tx->shape[d] - p->begin[d] : 1;
        if (p->step[d] == 0) return false;
        inner *= p->n[d];
    }
    for (int64_t q = 0; q < k; q++) { /* every element where the progressions put it */
        int64_t want = 0, rest = q;
        for (int d = (int)r - 1; d >= 0; d--) {
            want += (p->begin[d] + p->step[d] * (rest % p->n[d])) * stride[d];
            rest /= p->n[d];
        }
        if ((float)want != m[q]) return false;
    }
    return true;
}

static bool parse_slice(const lg_pass_ctx *c, uint32_t i, splan *p, char *why, size_t nwhy) {
    if (!slice_candidate(c, i)) return false;
    const lg_op *op = lgp_op(c, i);
    memset(p, 0, sizeof *p);
    p->x = op->inputs[0];
    p->y = op->outputs[0];
    const lg_tensor *tx = lgp_tensor(c, p->x);
    p->rank = tx->rank;
    int64_t nx = lg_tensor_numel(tx), k = 0;
    float *iota = malloc((size_t)nx * sizeof(float)), *m = NULL;
    if (!iota) return false;
    for (int64_t q = 0; q < nx; q++) iota[q] = (float)q;
    bool ok = lgf_eval_op(c, i, 0, iota, &m, &k) && k == lg_tensor_numel(lgp_tensor(c, p->y)) && fit_plan(p, tx, m, k);
    free(iota);
    free(m);
    if (!ok) {
        snprintf(why, nwhy, "op %u: its element map is not one progression per axis", i);
        return false;
    }
    uint32_t pieces = 0;
    for (uint32_t d = 0; d < p->rank; d++) {
        if (p->step[d] > 0 || p->n[d] == 1) continue;
        if (p->n[d] > MAX_REVERSE) {
            snprintf(why, nwhy, "op %u: a reversal of %lld elements (at most %d single-element slices)", i,
                     (long long)p->n[d], MAX_REVERSE);
            return false;
        }
        pieces += (uint32_t)p->n[d];
    }
    if (pieces > FX_MAX_PIECES) {
        snprintf(why, nwhy, "op %u: reversals of %u elements in all (at most %d slices)", i, pieces, FX_MAX_PIECES);
        return false;
    }
    return true;
}

static bool slice_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    return slice_candidate(c, i);
}

/* SLICE (every step 1) or STRIDED_SLICE (positive steps, no masks) of v: begin b, step s, n
   elements per axis, into out (a new tensor when out < 0); *res the result. */
static lg_status emit_slice(lg_pass_ctx *c, int32_t v, uint32_t r, const int64_t *b, const int64_t *s,
                            const int64_t *n, int32_t out, int32_t *res) {
    int32_t begin[4], size[4], end[4], stride[4];
    bool unit = true;
    for (uint32_t d = 0; d < r; d++) {
        begin[d] = (int32_t)b[d];
        size[d] = (int32_t)n[d];
        stride[d] = n[d] > 1 ? (int32_t)s[d] : 1;
        end[d] = (int32_t)(b[d] + (n[d] - 1) * stride[d] + 1);
        unit &= stride[d] == 1;
    }
    if (out < 0) LG_TRY(fx_tensor(c, v, "slice", lgp_tensor(c, v)->type, size, r, &out));
    *res = out;
    int32_t bt = -1, st = -1, et = -1;
    LG_TRY(fx_ints(c, out, "begin", begin, r, &bt));
    if (unit) {
        LG_TRY(fx_ints(c, out, "size", size, r, &st));
        return fx_op(c, LG_OP_SLICE, (const int32_t[]){v, bt, st}, 3, &out, 1, NULL);
    }
    LG_TRY(fx_ints(c, out, "end", end, r, &et));
    LG_TRY(fx_ints(c, out, "strides", stride, r, &st));
    lg_strided_slice_options so;
    lg_opts_init(LG_OPTS_STRIDED_SLICE_OPTIONS, &so, sizeof so);
    return fx_op(c, LG_OP_STRIDED_SLICE, (const int32_t[]){v, bt, et, st}, 4, &out, 1, &so);
}

/* z reversed along axis a (n elements): single-element slices in reverse order, joined, into
   out (its shape: z's, or the final output's, which fx_gather_pieces reshapes to). */
static lg_status emit_reverse(lg_pass_ctx *c, int32_t z, uint32_t a, int32_t out) {
    int32_t view = -1;
    uint32_t axis = 0;
    LG_TRY(fx_slicing_view(c, z, a, a + 1, &view, &axis));
    int64_t n = lgp_tensor(c, z)->shape[a];
    fx_piece p[MAX_REVERSE];
    for (int64_t k = 0; k < n; k++) p[k] = (fx_piece){n - 1 - k, 1, 1};
    return fx_gather_pieces(c, view, axis, p, (uint32_t)n, out);
}

static lg_status slice_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    splan p;
    char why[160] = "";
    if (!parse_slice(c, i, &p, why, sizeof why)) {
        if (why[0]) lgp_skip(c, "%s", why);
        return LG_OK;
    }
    const lg_tensor *tx = lgp_tensor(c, p.x);
    int32_t vshape[4], yshape[LG_MAX_RANK];
    uint32_t shift = 0, vr = view_dims(tx, vshape, &shift), yr = lgp_tensor(c, p.y)->rank;
    memcpy(yshape, lgp_tensor(c, p.y)->shape, yr * sizeof yshape[0]);
    /* the ascending slice in the view's axes, and which axes are reversed afterwards */
    int64_t vb[4] = {0, 0, 0, 0}, vs[4] = {1, 1, 1, 1}, vn[4];
    int32_t zshape[4];
    bool rev[4] = {false, false, false, false}, identity = true, any_rev = false;
    for (uint32_t a = 0; a < vr; a++) vn[a] = vshape[a];
    for (uint32_t d = 0; d < p.rank; d++) {
        uint32_t a = d + shift;
        rev[a] = p.step[d] < 0 && p.n[d] > 1;
        any_rev |= rev[a];
        vn[a] = p.n[d];
        vs[a] = rev[a] ? -p.step[d] : p.step[d];
        vb[a] = rev[a] ? p.begin[d] + (p.n[d] - 1) * p.step[d] : p.begin[d];
        identity &= vb[a] == 0 && vn[a] == vshape[a] && (vs[a] == 1 || vn[a] == 1);
    }
    for (uint32_t a = 0; a < vr; a++) zshape[a] = (int32_t)vn[a];
    int32_t res = -1;
    if (identity && !any_rev) { /* only masks: the op is a RESHAPE */
        LG_TRY(fx_reshape(c, p.x, yshape, yr, p.y, &res));
        return fx_done(c, i);
    }
    int32_t v = p.x, z = -1;
    if (shift) LG_TRY(fx_reshape(c, p.x, vshape, vr, -1, &v));
    if (identity) {
        z = v;
    } else {
        bool last = !any_rev && dims_equal(zshape, vr, lgp_tensor(c, p.y));
        LG_TRY(emit_slice(c, v, vr, vb, vs, vn, last ? p.y : -1, &z));
        if (last) return fx_done(c, i);
    }
    uint32_t last_rev = 0;
    for (uint32_t a = 0; a < vr; a++)
        if (rev[a]) last_rev = a;
    for (uint32_t a = 0; any_rev && a < vr; a++) {
        if (!rev[a]) continue;
        int32_t out = p.y;
        if (a != last_rev) LG_TRY(fx_tensor(c, p.y, "reversed", lgp_tensor(c, z)->type, zshape, vr, &out));
        LG_TRY(emit_reverse(c, z, a, out));
        z = out;
    }
    if (z != p.y) LG_TRY(fx_reshape(c, z, yshape, yr, p.y, &res));
    return fx_done(c, i);
}

const lg_pass lgp_slice_plain = {
    "slice-plain",
    "SLICE/STRIDED_SLICE of rank 1-2, with masks or negative strides -> rank-4 SLICE/STRIDED_SLICE "
    "[+ reversed single-element SLICEs + CONCATENATION] + RESHAPE",
    {"slice-rank", "strided-slice-masks", "strided-slice-reverse", NULL}, true, 0, slice_match, slice_apply, false};

/* ================================================================== pad-rank4 */

typedef struct pplan {
    int32_t x, y, value; /* value: PADV2's constant, or -1 */
    int32_t view[4];
    int32_t pads[8];     /* the view's paddings, [4,2] */
} pplan;

/* Does check_ops_shape.c report pad-shape or webgpu-pad-layout on op i (x of rank r, pads
   before/after per dim)? */
static bool pad_fires(int32_t code, const lg_tensor *tx, const int64_t *pads) {
    if (tx->rank == 1 || tx->rank == 2) return true; /* paddings [1,2] / [2,2] */
    if (code == LG_OP_MIRROR_PAD) return false;
    return (tx->rank == 3 && tx->shape[0] > 1) || (tx->rank == 4 && (pads[0] || pads[1]));
}

static bool pad_candidate(const lg_pass_ctx *c, uint32_t i, int64_t *pads) {
    const lg_op *op = lgp_op(c, i);
    int32_t code = lgp_code(c, i);
    uint32_t want = code == LG_OP_PADV2 ? 3 : (code == LG_OP_PAD || code == LG_OP_MIRROR_PAD) ? 2 : 0;
    if (!want || op->n_inputs != want || op->n_outputs != 1) return false;
    int32_t x = op->inputs[0];
    if (!plain(c, x) || !plain(c, op->outputs[0]) || is_const(c, x) || op->inputs[1] < 0 || !is_const(c, op->inputs[1]))
        return false;
    if (code == LG_OP_PADV2 && (op->inputs[2] < 0 || !is_const(c, op->inputs[2]))) return false;
    const lg_tensor *tx = lgp_tensor(c, x);
    uint32_t n = 0;
    if (tx->rank < 1 || tx->rank > 4 || !lgp_const_ints(c, op->inputs[1], pads, 8, &n) || n != 2 * tx->rank)
        return false;
    for (uint32_t k = 0; k < n; k++)
        if (pads[k] < 0) return false;
    return pad_fires(code, tx, pads);
}

/* The rank-4 view (module comment); false with why when there is none. */
static bool parse_pad(const lg_pass_ctx *c, uint32_t i, pplan *p, char *why, size_t nwhy) {
    int64_t pads[8];
    if (!pad_candidate(c, i, pads)) return false;
    const lg_op *op = lgp_op(c, i);
    memset(p, 0, sizeof *p);
    p->x = op->inputs[0];
    p->y = op->outputs[0];
    p->value = lgp_code(c, i) == LG_OP_PADV2 ? op->inputs[2] : -1;
    const lg_tensor *tx = lgp_tensor(c, p->x);
    uint32_t r = tx->rank, np = 0, pd[4];
    for (uint32_t d = 0; d < r; d++)
        if (pads[2 * d] || pads[2 * d + 1]) pd[np++] = d;
    if (np == 0 || np > 2) {
        snprintf(why, nwhy, "op %u: %u padded dims (a rank-4 view pads 1 or 2 on H and W)", i, np);
        return false;
    }
    int64_t pre = 1, mid = 1, post = 1;
    for (uint32_t d = 0; d < pd[0]; d++) pre *= tx->shape[d];
    uint32_t last = pd[np - 1];
    for (uint32_t d = pd[0] + 1; np == 2 && d < last; d++) mid *= tx->shape[d];
    for (uint32_t d = last + 1; d < r; d++) post *= tx->shape[d];
    if (np == 2 && mid > 1 && lgp_code(c, i) == LG_OP_MIRROR_PAD) {
        snprintf(why, nwhy, "op %u: MIRROR_PAD of dims %u and %u with dims between (a merged mirror is not one)", i, pd[0],
                 pd[1]);
        return false;
    }
    if (np == 1) {
        int32_t v[4] = {1, (int32_t)pre, tx->shape[last], (int32_t)post};
        memcpy(p->view, v, sizeof v);
        p->pads[4] = (int32_t)pads[2 * last];
        p->pads[5] = (int32_t)pads[2 * last + 1];
    } else {
        int32_t v[4] = {(int32_t)pre, (int32_t)(tx->shape[pd[0]] * mid), tx->shape[last], (int32_t)post};
        memcpy(p->view, v, sizeof v);
        p->pads[2] = (int32_t)(pads[2 * pd[0]] * mid);
        p->pads[3] = (int32_t)(pads[2 * pd[0] + 1] * mid);
        p->pads[4] = (int32_t)pads[2 * last];
        p->pads[5] = (int32_t)pads[2 * last + 1];
    }
    return true;
}

static bool pad_match(const lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    int64_t pads[8];
    return pad_candidate(c, i, pads);
}

static lg_status pad_apply(lg_pass_ctx *c, const lg_graph *g, uint32_t i) {
    (void)g;
    pplan p;
    char why[160] = "";
    if (!parse_pad(c, i, &p, why, sizeof why)) {
        if (why[0]) lgp_skip(c, "%s", why);
        return LG_OK;
    }
    const lg_op *op = lgp_op(c, i);
    int32_t code = lgp_code(c, i);
    lg_mirror_pad_options mo;
    lg_opts_init(LG_OPTS_MIRROR_PAD_OPTIONS, &mo, sizeof mo);
    if (code == LG_OP_MIRROR_PAD && op->opts && op->opts_kind == LG_OPTS_MIRROR_PAD_OPTIONS) memcpy(&mo, op->opts, sizeof mo);
    const lg_tensor *ty = lgp_tensor(c, p.y);
    int32_t yshape[LG_MAX_RANK], zshape[4], v = -1, pt = -1, z = -1, res = -1;
    uint32_t yr = ty->rank;
    memcpy(yshape, ty->shape, yr * sizeof yshape[0]);
    for (uint32_t a = 0; a < 4; a++) zshape[a] = p.view[a] + p.pads[2 * a] + p.pads[2 * a + 1];
    LG_TRY(fx_reshape(c, p.x, p.view, 4, -1, &v));
    int32_t pshape[2] = {4, 2};
    LG_TRY(fx_const(c, p.y, "paddings4", LG_INT32, pshape, 2, p.pads, sizeof p.pads, &pt));
    LG_TRY(fx_tensor(c, p.y, "padded4", lgp_tensor(c, p.y)->type, zshape, 4, &z));
    int32_t in[3] = {v, pt, p.value};
    LG_TRY(fx_op(c, code, in, p.value >= 0 ? 3 : 2, &z, 1, code == LG_OP_MIRROR_PAD ? &mo : NULL));
    LG_TRY(fx_reshape(c, z, yshape, yr, p.y, &res));
    return fx_done(c, i);
}

const lg_pass lgp_pad_rank4 = {
    "pad-rank4", "PAD/PADV2/MIRROR_PAD of rank 1-2 data, rank-3 data of a first dim > 1, or a padded batch -> "
                 "a rank-4 view padded on H/W + RESHAPE",
    {"pad-shape", "webgpu-pad-layout", NULL}, true, 0, pad_match, pad_apply, false};
