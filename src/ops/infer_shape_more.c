/* Shape inference for padding, tiling, broadcasting, the shape producers (SHAPE, RANK,
 * FILL, RANGE, WHERE, ONE_HOT), scatter/segment ops, space/depth rearrangements, TOPK_V2,
 * UNIQUE, BITCAST, BUCKETIZE and DILATE. Each function follows the Prepare of the TFLite
 * kernel it names (tensorflow/lite/kernels/<file>.cc). */
#include <math.h>

#include "ops/infer_shape.h"

#define INTS_OR_RETURN(c, i, v, n, known)                                                      \
    do {                                                                                       \
        lg_status st_;                                                                         \
        (known) = lgis_ints((c), (i), (v), &(n), &st_);                                        \
        if (st_ != LG_OK) return st_;                                                          \
    } while (0)

/* A shape given by the values of constant 1-D input i (FILL's dims, SPARSE_TO_DENSE's
   output_shape, SCATTER_ND's shape, BROADCAST_TO's shape): every value >= 0. Not constant:
   its length as the rank, every dimension -1. */
static lg_status shape_from_input(lg_infer_ctx *c, uint32_t i, lg_shape *out) {
    int64_t v[LGIS_MAXV];
    uint32_t n;
    int known;
    INTS_OR_RETURN(c, i, v, n, known);
    *out = lgo_unknown();
    if (!known) {
        int32_t r = lgis_len(c, i);
        if (r >= 0 && r <= LG_MAX_RANK) *out = lgo_unknown_dims(r);
        return LG_OK;
    }
    if (n > LG_MAX_RANK) return LG_OK;
    lg_shape s = lgo_unknown_dims((int32_t)n);
    for (uint32_t k = 0; k < n; k++) {
        if (v[k] < 0 || v[k] > INT32_MAX)
            return lgo_fail(c, "input %u gives dimension %u = %lld", i, k, (long long)v[k]);
        s.dim[k] = (int32_t)v[k];
    }
    *out = s;
    return LG_OK;
}

/* ------------------------------------------------------------------ PAD, PADV2, MIRROR_PAD */

/* pad.cc ResizeOutputTensor / mirror_pad.cc: paddings is [rank, 2] (before, after per
   dimension); output = input + before + after. pad.cc refuses negative paddings. */
lg_status lgis_pad(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0);
    int64_t v[LGIS_MAXV];
    uint32_t n;
    int known;
    INTS_OR_RETURN(c, 1, v, n, known);
    c->out[0] = lgo_unknown();
    lg_shape ps = lgis_in(c, 1);
    int32_t rank = in.rank >= 0 ? in.rank : (ps.rank == 2 ? ps.dim[0] : -1);
    if (rank < 0 || rank > LG_MAX_RANK) return LG_OK;
    if (ps.rank >= 0 && (ps.rank != 2 || (ps.dim[0] >= 0 && ps.dim[0] != rank) ||
                         (ps.dim[1] >= 0 && ps.dim[1] != 2))) {
        char a[96];
        return lgo_fail(c, "paddings has shape %s, expected [%d,2]", lg_shape_str(&ps, a, sizeof a), rank);
    }
    lg_shape o = lgo_unknown_dims(rank);
    if (!known) {
        c->out[0] = o;
        return LG_OK;
    }
    if (n != 2u * (uint32_t)rank)
        return lgo_fail(c, "paddings has %u values for an input of rank %d", n, rank);
    for (int32_t d = 0; d < rank; d++) {
        int64_t before = v[2 * d], after = v[2 * d + 1];
        if (c->code != LG_OP_MIRROR_PAD && (before < 0 || after < 0))
            return lgo_fail(c, "padding of dimension %d is negative (%lld, %lld)", d,
                            (long long)before, (long long)after);
        if (in.rank < 0 || in.dim[d] < 0) continue;
        int64_t x = in.dim[d] + before + after;
        if (x < 0 || x > INT32_MAX)
            return lgo_fail(c, "dimension %d padded to %lld", d, (long long)x);
        o.dim[d] = (int32_t)x;
    }
    c->out[0] = o;
    return LG_OK;
}

/* ------------------------------------------------------------------ TILE, BROADCAST_TO, BROADCAST_ARGS */

/* tile.cc: one multiple per input dimension; output = input * multiples. */
lg_status lgis_tile(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0);
    int64_t v[LGIS_MAXV];
    uint32_t n;
    int known;
    INTS_OR_RETURN(c, 1, v, n, known);
    c->out[0] = lgo_unknown();
    int32_t rank = in.rank >= 0 ? in.rank : known ? (int32_t)n : lgis_len(c, 1);
    if (rank < 0 || rank > LG_MAX_RANK) return LG_OK;
    lg_shape o = lgo_unknown_dims(rank);
    if (known) {
        if ((int32_t)n != rank)
            return lgo_fail(c, "multiples has %u values for an input of rank %d", n, rank);
        for (int32_t d = 0; d < rank; d++) {
            if (v[d] < 0) return lgo_fail(c, "multiple %d is negative (%lld)", d, (long long)v[d]);
            if (in.rank < 0 || in.dim[d] < 0) continue;
            int64_t x = in.dim[d] * v[d];
            if (x > INT32_MAX) return lgo_fail(c, "dimension %d tiled to %lld", d, (long long)x);
            o.dim[d] = (int32_t)x;
        }
    }
    c->out[0] = o;
    return LG_OK;
}

/* broadcast_to.cc ResizeOutputTensor: the output is the shape input exactly; its rank is at
   least the input's and each input dimension (aligned at the end) is 1 or equal. */
lg_status lgis_broadcast_to(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0), s;
    LG_TRY(shape_from_input(c, 1, &s));
    c->out[0] = s;
    if (s.rank < 0 || in.rank < 0) return LG_OK;
    if (in.rank > s.rank)
        return lgo_fail(c, "the output rank %d is below the input rank %d", s.rank, in.rank);
    for (int32_t i = 0; i < in.rank; i++) {
        int32_t a = in.dim[in.rank - 1 - i], b = s.dim[s.rank - 1 - i];
        if (a >= 0 && b >= 0 && a != 1 && a != b) {
            char x[96], y[96];
            return lgo_fail(c, "input %s does not broadcast to %s", lg_shape_str(&in, x, sizeof x),
                            lg_shape_str(&s, y, sizeof y));
        }
    }
    return LG_OK;
}

/* broadcast_args.cc: two 1-D shapes; the output is 1-D of the longer length (its values
   are the broadcast shape, known only at run time). */
lg_status lgis_broadcast_args(lg_infer_ctx *c) {
    lg_shape a = lgis_in(c, 0), b = lgis_in(c, 1);
    if ((a.rank >= 0 && a.rank != 1) || (b.rank >= 0 && b.rank != 1))
        return lgo_fail(c, "both inputs must be 1-D shapes");
    int32_t la = lgis_len(c, 0), lb = lgis_len(c, 1);
    int32_t d = (la < 0 || lb < 0) ? -1 : la > lb ? la : lb;
    c->out[0] = lgo_shape(1, &d);
    return LG_OK;
}

/* ------------------------------------------------------------------ SHAPE, RANK, FILL, RANGE, WHERE */

/* shape.cc: [rank] of out_type (INT32 or INT64; any other value TFLite refuses at run time,
   so the type is then left to the model). */
lg_status lgis_shape(lg_infer_ctx *c) {
    const lg_shape_options *opt = (const lg_shape_options *)c->opts;
    lg_shape in = lgis_in(c, 0);
    int32_t r = in.rank;
    c->out[0] = lgo_shape(1, &r);
    c->out_type[0] = (opt->out_type == LG_INT32 || opt->out_type == LG_INT64) ? opt->out_type : -1;
    return LG_OK;
}

/* rank.cc: an INT32 scalar. */
lg_status lgis_rank(lg_infer_ctx *c) {
    c->out[0] = lgo_shape(0, NULL);
    c->out_type[0] = LG_INT32;
    return LG_OK;
}

/* fill.cc: the output shape is the dims input's values; the type is the value's. */
lg_status lgis_fill(lg_infer_ctx *c) {
    c->out_type[0] = lgo_has(c, 1) ? c->in[1].type : -1;
    lg_shape ds = lgis_in(c, 0);
    if (ds.rank >= 0 && ds.rank != 1) return lgo_fail(c, "dims must be 1-D");
    return shape_from_input(c, 0, &c->out[0]);
}

/* range.cc: 1-D of length ceil(|limit - start| / |delta|) (integers) or
   ceil(|(limit - start) / delta|) (float, computed in float as TFLite does); delta must be
   non-zero and point from start towards limit. */
lg_status lgis_range(lg_infer_ctx *c) {
    int32_t len = -1;
    c->out[0] = lgo_shape(1, &len);
    if (!lgo_has(c, 0)) return LG_OK;
    lg_status st;
    if (c->in[0].type == LG_FLOAT32 || c->in[0].type == LG_FLOAT16) {
        float v[3];
        for (uint32_t i = 0; i < 3; i++) {
            uint32_t n;
            if (!lgo_const_f32(c, i, &v[i], 1, &n, &st)) return st;
            if (n != 1) return lgo_fail(c, "input %u must hold one value", i);
        }
        float start = v[0], limit = v[1], delta = v[2];
        if (delta == 0.0f) return lgo_fail(c, "delta is zero");
        if (!((start >= limit && delta < 0) || (start <= limit && delta > 0)))
            return lgo_fail(c, "delta %g does not lead from %g to %g", (double)delta,
                            (double)start, (double)limit);
        float f = ceilf(fabsf((limit - start) / delta));
        if (!(f <= (float)INT32_MAX)) return lgo_fail(c, "the range is too long");
        len = (int32_t)f;
    } else {
        int64_t v[3];
        for (uint32_t i = 0; i < 3; i++)
            if (!lgo_const_int(c, i, &v[i], &st)) return st;
        int64_t start = v[0], limit = v[1], delta = v[2];
        if (delta == 0) return lgo_fail(c, "delta is zero");
        if (!((start >= limit && delta < 0) || (start <= limit && delta > 0)))
            return lgo_fail(c, "delta %lld does not lead from %lld to %lld", (long long)delta,
                            (long long)start, (long long)limit);
        int64_t span = limit > start ? limit - start : start - limit;
        int64_t ad = delta < 0 ? -delta : delta;
        int64_t n = (span + ad - 1) / ad;
        if (n > INT32_MAX) return lgo_fail(c, "the range is too long");
        len = (int32_t)n;
    }
    c->out[0] = lgo_shape(1, &len);
    return LG_OK;
}

/* where.cc: INT64 coordinates [number of true elements, rank]; the count is a run-time
   value. */
lg_status lgis_where(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0);
    int32_t d[2] = {-1, in.rank};
    c->out[0] = lgo_shape(2, d);
    c->out_type[0] = LG_INT64;
    return LG_OK;
}

/* ------------------------------------------------------------------ ONE_HOT, TOPK_V2, UNIQUE */

/* one_hot.cc: output rank = rank(indices) + 1, the depth dimension at axis (-1: last);
   the type is on_value's. */
lg_status lgis_one_hot(lg_infer_ctx *c) {
    const lg_one_hot_options *opt = (const lg_one_hot_options *)c->opts;
    lg_shape ix = lgis_in(c, 0);
    c->out[0] = lgo_unknown();
    c->out_type[0] = lgo_has(c, 2) ? c->in[2].type : -1;
    if (ix.rank < 0 || ix.rank + 1 > LG_MAX_RANK) return LG_OK;
    int32_t r = ix.rank + 1;
    int32_t axis = opt->axis == -1 ? ix.rank : opt->axis;
    if (axis < 0 || axis >= r) return lgo_fail(c, "axis %d is out of range for output rank %d", opt->axis, r);
    int64_t depth = -1;
    lg_status st;
    if (!lgo_const_int(c, 1, &depth, &st)) {
        if (st != LG_OK) return st;
        depth = -1;
    } else if (depth < 0 || depth > INT32_MAX) {
        return lgo_fail(c, "depth %lld is invalid", (long long)depth);
    }
    lg_shape o = lgo_unknown_dims(r);
    for (int32_t d = 0, k = 0; d < r; d++) o.dim[d] = d == axis ? (int32_t)depth : ix.dim[k++];
    c->out[0] = o;
    return LG_OK;
}

/* REVERSE_V2 (reverse.cc), REVERSE_SEQUENCE, MATRIX_SET_DIAG: the output has input 0's
   shape. */
lg_status lgis_same(lg_infer_ctx *c) {
    lgo_same_shape(c, 0, 0);
    return LG_OK;
}

/* topk_v2.cc ResizeOutput: input at least 1-D; both outputs are the input with the last
   dimension max(0, k); k above the last dimension is an error. Values have the input's
   type; the indices may be INT32 or INT16 (left to the model). */
lg_status lgis_topk(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0);
    lgo_all_unknown(c);
    c->out_type[0] = lgo_has(c, 0) ? c->in[0].type : -1;
    c->out_type[1] = -1;
    if (in.rank == 0) return lgo_fail(c, "the input must have at least one dimension");
    if (in.rank < 0) return LG_OK;
    int64_t k = -1;
    lg_status st;
    if (!lgo_const_int(c, 1, &k, &st)) {
        if (st != LG_OK) return st;
        k = -1;
    } else {
        int32_t last = in.dim[in.rank - 1];
        if (k > 0 && last >= 0 && k > last)
            return lgo_fail(c, "k = %lld is above the last dimension %d", (long long)k, last);
        if (k < 0) k = 0;
    }
    lg_shape o = in;
    o.dim[in.rank - 1] = (int32_t)k;
    c->out[0] = c->out[1] = o;
    return LG_OK;
}

/* unique.cc: a 1-D input; output 0 the unique values [?] (input type), output 1 the index
   of each input element (the input's shape, idx_out_type INT32 or INT64). */
lg_status lgis_unique(lg_infer_ctx *c) {
    const lg_unique_options *opt = (const lg_unique_options *)c->opts;
    lg_shape in = lgis_in(c, 0);
    if (in.rank >= 0 && in.rank != 1) return lgo_fail(c, "the input must be 1-D, it has rank %d", in.rank);
    int32_t d = -1;
    c->out[0] = lgo_shape(1, &d);
    c->out[1] = in.rank == 1 ? in : lgo_shape(1, &d);
    c->out_type[0] = lgo_has(c, 0) ? c->in[0].type : -1;
    c->out_type[1] = (opt->idx_out_type == LG_INT32 || opt->idx_out_type == LG_INT64) ? opt->idx_out_type : -1;
    return LG_OK;
}

/* ------------------------------------------------------------------ SPARSE_TO_DENSE, SCATTER_ND, EMBEDDING_LOOKUP */

/* sparse_to_dense.cc: the output shape is output_shape's values, the type values'. */
lg_status lgis_sparse_to_dense(lg_infer_ctx *c) {
    c->out_type[0] = lgo_has(c, 2) ? c->in[2].type : -1;
    return shape_from_input(c, 1, &c->out[0]);
}

/* scatter_nd.cc: inputs indices, updates, shape; the output is shape's values (type of
   updates). CheckShapes: updates = indices[:-1] + shape[indices[-1]:]. */
lg_status lgis_scatter_nd(lg_infer_ctx *c) {
    c->out_type[0] = lgo_has(c, 1) ? c->in[1].type : -1;
    lg_shape s;
    LG_TRY(shape_from_input(c, 2, &s));
    c->out[0] = s;
    lg_shape ix = lgis_in(c, 0), up = lgis_in(c, 1);
    if (s.rank < 0 || ix.rank < 1 || up.rank < 0 || !lg_shape_is_static(&s)) return LG_OK;
    int32_t outer = ix.rank - 1, depth = ix.dim[outer];
    if (depth < 0) return LG_OK;
    if (depth > s.rank) return lgo_fail(c, "index depth %d is above the output rank %d", depth, s.rank);
    if (up.rank != outer + s.rank - depth)
        return lgo_fail(c, "updates have rank %d, expected %d", up.rank, outer + s.rank - depth);
    for (int32_t i = 0; i < up.rank; i++) {
        int32_t want = i < outer ? ix.dim[i] : s.dim[depth + i - outer];
        if (up.dim[i] >= 0 && want >= 0 && up.dim[i] != want)
            return lgo_fail(c, "updates dimension %d is %d, expected %d", i, up.dim[i], want);
    }
    return LG_OK;
}

/* embedding_lookup.cc: ids 1-D, the table at least 2-D; output = [len(ids)] + table[1:]. */
lg_status lgis_embedding_lookup(lg_infer_ctx *c) {
    lg_shape ids = lgis_in(c, 0), t = lgis_in(c, 1);
    c->out[0] = lgo_unknown();
    if (ids.rank >= 0 && ids.rank != 1) return lgo_fail(c, "ids must be 1-D, not rank %d", ids.rank);
    if (t.rank >= 0 && t.rank < 2) return lgo_fail(c, "the table must be at least 2-D, not rank %d", t.rank);
    if (t.rank < 0) return LG_OK;
    lg_shape o = t;
    o.dim[0] = ids.rank == 1 ? ids.dim[0] : -1;
    c->out[0] = o;
    return LG_OK;
}

/* ------------------------------------------------------------------ DEPTH_TO_SPACE, SPACE_TO_DEPTH */

static lg_status nhwc_block(lg_infer_ctx *c, int32_t bs, lg_shape *in) {
    *in = lgis_in(c, 0);
    if (in->rank >= 0 && in->rank != 4) return lgo_fail(c, "the input must be 4-D (NHWC), not rank %d", in->rank);
    if (bs < 1) return lgo_fail(c, "block_size %d must be positive", bs);
    return LG_OK;
}

/* depth_to_space.cc: [b, h*bs, w*bs, c/(bs*bs)], c divisible by bs*bs. */
lg_status lgis_depth_to_space(lg_infer_ctx *c) {
    int32_t bs = ((const lg_depth_to_space_options *)c->opts)->block_size;
    lg_shape in;
    c->out[0] = lgo_unknown();
    LG_TRY(nhwc_block(c, bs, &in));
    if (in.rank < 0) return LG_OK;
    int64_t bb = (int64_t)bs * bs;
    if (in.dim[3] >= 0 && in.dim[3] % bb)
        return lgo_fail(c, "depth %d is not divisible by block_size^2 = %lld", in.dim[3], (long long)bb);
    lg_shape o = in;
    for (int d = 1; d <= 2; d++) {
        int64_t x = in.dim[d] < 0 ? -1 : (int64_t)in.dim[d] * bs;
        if (x > INT32_MAX) return lgo_fail(c, "dimension %d overflows", d);
        o.dim[d] = (int32_t)x;
    }
    o.dim[3] = in.dim[3] < 0 ? -1 : (int32_t)(in.dim[3] / bb);
    c->out[0] = o;
    return LG_OK;
}

/* space_to_depth.cc: [b, h/bs, w/bs, c*bs*bs], h and w divisible by bs. */
lg_status lgis_space_to_depth(lg_infer_ctx *c) {
    int32_t bs = ((const lg_space_to_depth_options *)c->opts)->block_size;
    lg_shape in;
    c->out[0] = lgo_unknown();
    LG_TRY(nhwc_block(c, bs, &in));
    if (in.rank < 0) return LG_OK;
    lg_shape o = in;
    for (int d = 1; d <= 2; d++) {
        if (in.dim[d] >= 0 && in.dim[d] % bs)
            return lgo_fail(c, "dimension %d of size %d is not divisible by block_size %d", d, in.dim[d], bs);
        o.dim[d] = in.dim[d] < 0 ? -1 : in.dim[d] / bs;
    }
    int64_t x = in.dim[3] < 0 ? -1 : (int64_t)in.dim[3] * bs * bs;
    if (x > INT32_MAX) return lgo_fail(c, "the depth overflows");
    o.dim[3] = (int32_t)x;
    c->out[0] = o;
    return LG_OK;
}

/* ------------------------------------------------------------------ BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND */

/* The block shape (input 1, [M]) and crops/paddings (input 2, [M, 2]) of a rank-r input
   with M = r - 2 spatial dimensions. *known is 0 when either is not constant. */
static lg_status block_args(lg_infer_ctx *c, int32_t rank, int64_t *block, int64_t *pads, int *known) {
    uint32_t nb = 0, np = 0;
    int bk, pk;
    int32_t m = rank - 2;
    *known = 0;
    if (m < 1) return lgo_fail(c, "the input must have rank 3 or 4, not %d", rank);
    INTS_OR_RETURN(c, 1, block, nb, bk);
    INTS_OR_RETURN(c, 2, pads, np, pk);
    if (bk && (int32_t)nb != m)
        return lgo_fail(c, "block_shape has %u values for %d spatial dimensions", nb, m);
    if (pk && (int32_t)np != 2 * m)
        return lgo_fail(c, "crops/paddings have %u values for %d spatial dimensions", np, m);
    if (bk)
        for (int32_t i = 0; i < m; i++)
            if (block[i] < 1) return lgo_fail(c, "block_shape[%d] = %lld", i, (long long)block[i]);
    if (pk)
        for (int32_t i = 0; i < 2 * m; i++)
            if (pads[i] < 0) return lgo_fail(c, "crops/paddings value %d is negative", i);
    *known = bk && pk;
    return LG_OK;
}

/* batch_to_space_nd.cc ResizeOutputTensor: batch / prod(block) (each step must divide),
   spatial[i] = in[i] * block[i] - crop_start - crop_end; the last dimension is kept. */
lg_status lgis_batch_to_space(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0);
    c->out[0] = lgo_unknown();
    if (in.rank < 0) return LG_OK;
    int64_t block[LGIS_MAXV], crops[LGIS_MAXV];
    int known;
    LG_TRY(block_args(c, in.rank, block, crops, &known));
    lg_shape o = lgo_unknown_dims(in.rank);
    o.dim[in.rank - 1] = in.dim[in.rank - 1];
    if (known) {
        int64_t batch = in.dim[0];
        for (int32_t i = 0; i < in.rank - 2; i++) {
            if (batch >= 0) {
                if (batch % block[i])
                    return lgo_fail(c, "batch %lld is not divisible by block_shape[%d] = %lld",
                                    (long long)batch, i, (long long)block[i]);
                batch /= block[i];
            }
            int32_t d = in.dim[i + 1];
            if (d < 0) continue;
            int64_t x = (int64_t)d * block[i] - crops[2 * i] - crops[2 * i + 1];
            if (x < 0 || x > INT32_MAX)
                return lgo_fail(c, "spatial dimension %d becomes %lld", i + 1, (long long)x);
            o.dim[i + 1] = (int32_t)x;
        }
        o.dim[0] = (int32_t)batch;
    }
    c->out[0] = o;
    return LG_OK;
}

/* space_to_batch_nd.cc ResizeOutputTensor: spatial[i] = (in[i] + pad_start + pad_end) /
   block[i] (must divide), batch * prod(block); the last dimension is kept. */
lg_status lgis_space_to_batch(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0);
    c->out[0] = lgo_unknown();
    if (in.rank < 0) return LG_OK;
    int64_t block[LGIS_MAXV], pads[LGIS_MAXV];
    int known;
    LG_TRY(block_args(c, in.rank, block, pads, &known));
    lg_shape o = lgo_unknown_dims(in.rank);
    o.dim[in.rank - 1] = in.dim[in.rank - 1];
    if (known) {
        int64_t batch = in.dim[0];
        for (int32_t i = 0; i < in.rank - 2; i++) {
            if (batch >= 0) batch *= block[i];
            if (batch > INT32_MAX) return lgo_fail(c, "the batch overflows");
            int32_t d = in.dim[i + 1];
            if (d < 0) continue;
            int64_t x = (int64_t)d + pads[2 * i] + pads[2 * i + 1];
            if (x % block[i])
                return lgo_fail(c, "padded spatial dimension %d (%lld) is not divisible by %lld",
                                i + 1, (long long)x, (long long)block[i]);
            o.dim[i + 1] = (int32_t)(x / block[i]);
        }
        o.dim[0] = (int32_t)batch;
    }
    c->out[0] = o;
    return LG_OK;
}

/* ------------------------------------------------------------------ MATRIX_DIAG, segments, DUS */

/* matrix_diag.cc: [..., N] -> [..., N, N]. */
lg_status lgis_matrix_diag(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0);
    c->out[0] = lgo_unknown();
    if (in.rank == 0) return lgo_fail(c, "the input must be at least 1-D");
    if (in.rank < 0 || in.rank + 1 > LG_MAX_RANK) return LG_OK;
    lg_shape o = in;
    o.dim[in.rank] = in.dim[in.rank - 1];
    o.rank = in.rank + 1;
    c->out[0] = o;
    return LG_OK;
}

/* segment_sum.cc ResizeOutputTensor: segment_ids is 1-D with one id per data row (sorted);
   output = [last id + 1] + data[1:]. The ids are data: the first dimension is known only
   when they are constant. */
lg_status lgis_segment_sum(lg_infer_ctx *c) {
    lg_shape d = lgis_in(c, 0), ids = lgis_in(c, 1);
    c->out[0] = lgo_unknown();
    if (ids.rank >= 0 && ids.rank != 1) return lgo_fail(c, "segment_ids must be 1-D");
    if (d.rank == 0) return lgo_fail(c, "data must be at least 1-D");
    if (d.rank < 0) return LG_OK;
    if (ids.rank == 1 && ids.dim[0] >= 0 && d.dim[0] >= 0 && ids.dim[0] != d.dim[0])
        return lgo_fail(c, "%d segment ids for %d data rows", ids.dim[0], d.dim[0]);
    int64_t v[LGIS_MAXV];
    uint32_t n = 0;
    lg_shape o = d;
    o.dim[0] = -1;
    /* st NULL: more than LGIS_MAXV constant ids reads as "not constant", not as an error */
    if (lgo_const_ints(c, 1, v, LGIS_MAXV, &n, NULL) && n > 0) {
        if (v[n - 1] < 0 || v[n - 1] >= INT32_MAX) return lgo_fail(c, "the last segment id is %lld", (long long)v[n - 1]);
        o.dim[0] = (int32_t)(v[n - 1] + 1);
    }
    c->out[0] = o;
    return LG_OK;
}

/* unsorted_segment.cc ResizeOutputTensor: segment_ids' shape is a prefix of data's;
   output = [num_segments] + data[rank(segment_ids):]; num_segments is one INT32 value. */
lg_status lgis_unsorted_segment(lg_infer_ctx *c) {
    lg_shape d = lgis_in(c, 0), ids = lgis_in(c, 1);
    c->out[0] = lgo_unknown();
    if (d.rank < 0 || ids.rank < 0) return LG_OK;
    if (ids.rank > d.rank) return lgo_fail(c, "segment_ids have rank %d, above data's %d", ids.rank, d.rank);
    for (int32_t i = 0; i < ids.rank; i++)
        if (ids.dim[i] >= 0 && d.dim[i] >= 0 && ids.dim[i] != d.dim[i])
            return lgo_fail(c, "segment_ids dimension %d is %d, data's %d", i, ids.dim[i], d.dim[i]);
    int64_t ns = -1;
    lg_status st;
    if (!lgo_const_int(c, 2, &ns, &st)) {
        if (st != LG_OK) return st;
        ns = -1;
    } else if (ns < 0 || ns > INT32_MAX) {
        return lgo_fail(c, "num_segments is %lld", (long long)ns);
    }
    lg_shape o = lgo_unknown_dims(d.rank - ids.rank + 1);
    o.dim[0] = (int32_t)ns;
    for (int32_t i = ids.rank; i < d.rank; i++) o.dim[i - ids.rank + 1] = d.dim[i];
    c->out[0] = o;
    return LG_OK;
}

/* dynamic_update_slice.cc Prepare: update has operand's rank, no dimension larger; one
   start index per dimension; the output is the operand's shape. */
lg_status lgis_dynamic_update_slice(lg_infer_ctx *c) {
    lg_shape op = lgis_in(c, 0), up = lgis_in(c, 1);
    c->out[0] = op;
    if (op.rank < 0 || up.rank < 0) return LG_OK;
    if (op.rank != up.rank) return lgo_fail(c, "update has rank %d, operand %d", up.rank, op.rank);
    for (int32_t i = 0; i < op.rank; i++)
        if (op.dim[i] >= 0 && up.dim[i] > op.dim[i])
            return lgo_fail(c, "update dimension %d (%d) is larger than the operand's (%d)", i,
                            up.dim[i], op.dim[i]);
    int32_t ns = lgis_len(c, 2);
    if (ns >= 0 && ns != op.rank)
        return lgo_fail(c, "%d start indices for rank %d", ns, op.rank);
    return LG_OK;
}

/* ------------------------------------------------------------------ BITCAST, BUCKETIZE, DILATE */

/* The stored type of output 0 of the op, or -1 (no model/op). */
static int out_tensor_type(const lg_infer_ctx *c) {
    if (!c->m || !c->op || c->op->n_outputs < 1) return -1;
    for (uint32_t s = 0; s < c->m->n_subgraphs; s++) {
        const lg_subgraph *sg = &c->m->subgraphs[s];
        if (!sg->n_ops || c->op < sg->ops || c->op >= sg->ops + sg->n_ops) continue;
        int32_t t = c->op->outputs[0];
        return t >= 0 && (uint32_t)t < sg->n_tensors ? sg->tensors[t].type : -1;
    }
    return -1;
}

/* bitcast.cc CalculateShape: same element size keeps the shape; a larger input element
   appends [in/out]; a smaller one requires the last dimension to be out/in and drops it. */
lg_status lgis_bitcast(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0);
    c->out[0] = lgo_unknown();
    int ot = out_tensor_type(c);
    if (in.rank < 0 || ot < 0 || !lgo_has(c, 0)) return LG_OK;
    int ib = lg_dtype_bits(c->in[0].type), ob = lg_dtype_bits(ot);
    if (ib < 8 || ob < 8) return LG_OK; /* sub-byte or sizeless types: not ours to judge */
    if (ib == ob) {
        c->out[0] = in;
    } else if (ib > ob) {
        if (in.rank + 1 > LG_MAX_RANK) return LG_OK;
        lg_shape o = in;
        o.dim[in.rank] = ib / ob;
        o.rank++;
        c->out[0] = o;
    } else {
        if (in.rank == 0) return lgo_fail(c, "a scalar cannot be bitcast to a wider type");
        int32_t last = in.dim[in.rank - 1];
        if (last >= 0 && last != ob / ib)
            return lgo_fail(c, "the last dimension is %d, bitcasting %s to %s needs %d", last,
                            lg_dtype_name(c->in[0].type), lg_dtype_name(ot), ob / ib);
        lg_shape o = in;
        o.rank--;
        c->out[0] = o;
    }
    return LG_OK;
}

/* bucketize.cc: same shape, INT32 bucket indices. */
lg_status lgis_bucketize(lg_infer_ctx *c) {
    c->out[0] = lgis_in(c, 0);
    c->out_type[0] = LG_INT32;
    return LG_OK;
}

/* dilate.cc SetupOutputTensor: one dilation (>= 1) per dimension; out = (in - 1) * d + 1. */
lg_status lgis_dilate(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0);
    int64_t v[LGIS_MAXV];
    uint32_t n;
    int known;
    INTS_OR_RETURN(c, 1, v, n, known);
    c->out[0] = lgo_unknown();
    if (in.rank == 0) return lgo_fail(c, "the input must be at least 1-D");
    if (in.rank < 0) return LG_OK;
    lg_shape o = lgo_unknown_dims(in.rank);
    if (known) {
        if ((int32_t)n != in.rank)
            return lgo_fail(c, "dilations has %u values for an input of rank %d", n, in.rank);
        for (int32_t d = 0; d < in.rank; d++) {
            if (v[d] < 1) return lgo_fail(c, "dilation %d is %lld (must be >= 1)", d, (long long)v[d]);
            if (in.dim[d] < 0) continue;
            int64_t x = ((int64_t)in.dim[d] - 1) * v[d] + 1;
            if (x < 0 || x > INT32_MAX) return lgo_fail(c, "dimension %d dilates to %lld", d, (long long)x);
            o.dim[d] = (int32_t)x;
        }
    }
    c->out[0] = o;
    return LG_OK;
}
