/* Shape family: the ops that are one strided box copy from input 0 to output 0, with the
 * box (shape, byte strides, start offset) derived once at prepare: TRANSPOSE, SLICE,
 * STRIDED_SLICE, TILE, BROADCAST_TO, REVERSE_V2, SPACE_TO_DEPTH, DEPTH_TO_SPACE. */
#include "run/k_shape.h"

typedef struct box_state {
    uint32_t rank, es;
    int64_t shape[LGKS_BOX_MAX];
    int64_t ss[LGKS_BOX_MAX]; /* source byte strides */
    int64_t ds[LGKS_BOX_MAX]; /* destination byte strides */
    int64_t src_off;          /* byte offset of the box's first element in the input */
} box_state;

static const void *opts_of(const lgk_node *n, lg_opts_kind kind) {
    return n->op->opts_kind == kind ? n->opts : NULL;
}

static box_state *box_new(lgk_node *n, const lgk_tensor *in, lg_error *err) {
    box_state *s = lgk_alloc(n, sizeof *s);
    if (!s) {
        lgk_fail(n, LG_ERR_NOMEM, err, "out of memory");
        return NULL;
    }
    s->es = lgk_elem_size(in->type);
    n->state = s;
    return s;
}

/* Destination strides for a box written densely in its own order. */
static void box_dense_dst(box_state *s) {
    int64_t st = s->es;
    for (int i = (int)s->rank - 1; i >= 0; i--) {
        s->ds[i] = st;
        st *= s->shape[i];
    }
}

lg_status lgks_box_eval(lgk_node *n, lg_error *err) {
    (void)err;
    const box_state *s = n->state;
    lgk_tensor *out = n->out[0];
    if (out->numel == 0) return LG_OK;
    lgks_copy(out->data, (const uint8_t *)n->in[0]->data + s->src_off, s->shape, s->ss, s->ds, s->rank, s->es);
    return LG_OK;
}

static lg_status check_out_dim(const lgk_node *n, int64_t v, lg_error *err) {
    if (v < 0 || v > INT32_MAX) return lgk_fail(n, LG_ERR_LIMIT, err, "output dimension %lld is out of range", (long long)v);
    return LG_OK;
}

/* ------------------------------------------------------------------ TRANSPOSE */

lg_status lgks_transpose_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 2, 2, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    LG_TRY(lgks_out_like(n, 0, in, err));
    int64_t perm[LG_MAX_RANK];
    uint32_t cnt = 0;
    LG_TRY(lgk_const_ints(n, 1, perm, LG_MAX_RANK, &cnt, err));
    if (cnt != in->rank) return lgk_fail(n, LG_ERR_FORMAT, err, "perm has %u values for rank %u", cnt, in->rank);
    uint8_t seen[LG_MAX_RANK] = {0};
    for (uint32_t k = 0; k < cnt; k++) {
        if (perm[k] < 0 || perm[k] >= (int64_t)cnt || seen[perm[k]])
            return lgk_fail(n, LG_ERR_FORMAT, err, "perm is not a permutation of 0..%u", cnt ? cnt - 1 : 0);
        seen[perm[k]] = 1;
    }
    box_state *s = box_new(n, in, err);
    if (!s) return LG_ERR_NOMEM;
    int64_t ist[LG_MAX_RANK];
    lgks_strides(in->shape, in->rank, ist);
    int32_t out[LG_MAX_RANK];
    s->rank = cnt;
    for (uint32_t k = 0; k < cnt; k++) {
        out[k] = in->shape[perm[k]];
        s->shape[k] = out[k];
        s->ss[k] = ist[perm[k]] * s->es;
    }
    box_dense_dst(s);
    return lgk_set_output(n, 0, in->type, out, cnt, err);
}

/* ------------------------------------------------------------------ SLICE */

lg_status lgks_slice_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 3, 3, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    LG_TRY(lgks_out_like(n, 0, in, err));
    int64_t begin[LG_MAX_RANK], size[LG_MAX_RANK];
    uint32_t nb = 0, nsz = 0;
    LG_TRY(lgk_const_ints(n, 1, begin, LG_MAX_RANK, &nb, err));
    LG_TRY(lgk_const_ints(n, 2, size, LG_MAX_RANK, &nsz, err));
    if (nb != in->rank || nsz != in->rank)
        return lgk_fail(n, LG_ERR_FORMAT, err, "begin and size have %u and %u values for rank %u", nb, nsz, in->rank);
    box_state *s = box_new(n, in, err);
    if (!s) return LG_ERR_NOMEM;
    int64_t ist[LG_MAX_RANK];
    lgks_strides(in->shape, in->rank, ist);
    int32_t out[LG_MAX_RANK];
    s->rank = in->rank;
    for (uint32_t d = 0; d < in->rank; d++) {
        int64_t dim = in->shape[d], b = begin[d], sz = size[d] == -1 ? dim - begin[d] : size[d];
        if (b < 0 || b > dim) return lgk_fail(n, LG_ERR_FORMAT, err, "begin[%u] = %lld is out of range for dim %lld", d,
                                              (long long)b, (long long)dim);
        if (sz < 0 || b + sz > dim)
            return lgk_fail(n, LG_ERR_FORMAT, err, "size[%u] = %lld is out of range (begin %lld, dim %lld)", d,
                            (long long)size[d], (long long)b, (long long)dim);
        out[d] = (int32_t)sz;
        s->shape[d] = sz;
        s->ss[d] = ist[d] * s->es;
        s->src_off += b * ist[d] * s->es;
    }
    box_dense_dst(s);
    return lgk_set_output(n, 0, in->type, out, in->rank, err);
}

/* ------------------------------------------------------------------ STRIDED_SLICE */

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v > hi ? hi : v < lo ? lo : v; }

/* Follows TFLite's strided_slice.cc (BuildStridedSliceParams: ellipsis and new axes become
   an "effective" input shape with begin/end masks) and reference StartForAxis/EndForAxis. */
lg_status lgks_strided_slice_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 4, 4, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    LG_TRY(lgks_out_like(n, 0, in, err));
    const lg_strided_slice_options *o = opts_of(n, LG_OPTS_STRIDED_SLICE_OPTIONS);
    uint32_t begin_mask = o ? (uint32_t)o->begin_mask : 0, end_mask = o ? (uint32_t)o->end_mask : 0;
    uint32_t ellipsis_mask = o ? (uint32_t)o->ellipsis_mask : 0, new_axis_mask = o ? (uint32_t)o->new_axis_mask : 0;
    uint32_t shrink_mask = o ? (uint32_t)o->shrink_axis_mask : 0;
    bool offset = o && o->offset;
    for (uint32_t i = 1; i < 4; i++)
        if (n->in[i]->rank != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "input %u must be a vector", i);
    int64_t bv[32], ev[32], sv[32];
    uint32_t nb = 0, ne = 0, ns = 0;
    LG_TRY(lgk_const_ints(n, 1, bv, 31, &nb, err));
    LG_TRY(lgk_const_ints(n, 2, ev, 31, &ne, err));
    LG_TRY(lgk_const_ints(n, 3, sv, 31, &ns, err));
    if (nb != ne || nb != ns)
        return lgk_fail(n, LG_ERR_FORMAT, err, "begin, end and strides have %u, %u and %u values", nb, ne, ns);
    for (uint32_t i = 0; i < nb; i++)
        if (bv[i] < INT32_MIN || bv[i] > INT32_MAX || ev[i] < INT32_MIN || ev[i] > INT32_MAX || sv[i] <= INT32_MIN ||
            sv[i] > INT32_MAX)
            return lgk_fail(n, LG_ERR_FORMAT, err, "index %u: begin/end/stride out of the int32 range", i);
    const int begin_count = (int)nb, input_dims = (int)in->rank;
    int num_add_axis = 0;
    for (int i = 0; i < begin_count; i++)
        if (!((1u << i) & ellipsis_mask) && ((1u << i) & new_axis_mask)) num_add_axis++;
    const int eff = input_dims + num_add_axis;
    if (eff > LG_MAX_RANK) return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "effective rank %d > %d", eff, LG_MAX_RANK);

    /* effective ellipsis and new-axis masks */
    uint32_t eff_ell = 0, eff_new = 0;
    int ell_start = eff, expanded = 0;
    for (int i = 0; i < eff;) {
        if ((1u << i) & ellipsis_mask) {
            ell_start = i;
            int hi = i + 1 + num_add_axis + input_dims - begin_count;
            if (hi > eff) hi = eff;
            int ell_end = i + 1 > hi ? i + 1 : hi;
            expanded = ell_end - ell_start - 1;
            for (; i < ell_end; i++) eff_ell |= 1u << i;
            continue;
        }
        if (i - expanded >= 0 && i - expanded < 32 && ((1u << (i - expanded)) & new_axis_mask)) eff_new |= 1u << i;
        i++;
    }
    int64_t start[LG_MAX_RANK], stop[LG_MAX_RANK], stride[LG_MAX_RANK], eshape[LG_MAX_RANK];
    int orig_of[LG_MAX_RANK];
    uint32_t bm = 0, em = 0, sm = 0;
    int added_ellipsis = 0, added_axes = 0;
    for (int i = 0; i < eff; i++) {
        uint32_t bit = 1u << i;
        start[i] = stop[i] = 0;
        stride[i] = 1;
        orig_of[i] = -1;
        if (eff_new & bit && !(eff_ell & bit)) {
            stop[i] = 1;
            eshape[i] = 1;
            added_axes++;
            continue;
        }
        int src_dim = i - added_axes;
        if (src_dim < 0 || src_dim >= input_dims)
            return lgk_fail(n, LG_ERR_FORMAT, err, "masks do not fit the input rank %d", input_dims);
        eshape[i] = in->shape[src_dim];
        if (eff_ell & bit) {
            added_ellipsis = i - ell_start > 0 ? i - ell_start : 0;
            bm |= bit;
            em |= bit;
        } else if (i >= begin_count + expanded) {
            bm |= bit;
            em |= bit;
        } else {
            int oi = i - added_ellipsis;
            if (oi < 0 || oi >= begin_count)
                return lgk_fail(n, LG_ERR_FORMAT, err, "masks do not fit %d indices", begin_count);
            orig_of[i] = oi;
            start[i] = bv[oi];
            stop[i] = ev[oi];
            stride[i] = sv[oi];
            if (begin_mask & (1u << oi)) bm |= bit;
            if (end_mask & (1u << oi)) em |= bit;
            if (shrink_mask & (1u << oi)) sm |= bit;
        }
    }
    box_state *s = box_new(n, in, err);
    if (!s) return LG_ERR_NOMEM;
    int64_t est[LG_MAX_RANK], st = 1;
    for (int i = eff - 1; i >= 0; i--) {
        est[i] = st;
        st *= eshape[i];
    }
    int32_t out[LG_MAX_RANK];
    uint32_t r = 0;
    int empty = 0;
    s->rank = (uint32_t)eff;
    for (int i = 0; i < eff; i++) {
        uint32_t bit = 1u << i;
        int64_t size = eshape[i], str = stride[i];
        if (str == 0) return lgk_fail(n, LG_ERR_FORMAT, err, "stride %d is 0", orig_of[i]);
        int64_t b = start[i];
        if (b < 0) b += size;
        b = str > 0 ? clamp64(b, 0, size) : clamp64(b, -1, size - 1);
        if (bm & bit) b = str > 0 ? 0 : size - 1;
        int64_t count;
        if (sm & bit) {
            /* one element at b (TFLite leaves the output unwritten for a negative stride
               here; TF takes the element) */
            if (b < 0 || b >= size)
                return lgk_fail(n, LG_ERR_FORMAT, err, "shrunk index %lld is out of range for dim %lld", (long long)start[i],
                                (long long)size);
            count = 1;
        } else {
            int64_t e = stop[i];
            if (offset) e += b;
            if (e < 0) e += size;
            e = str > 0 ? clamp64(e, 0, size) : clamp64(e, -1, size - 1);
            if (em & bit) e = str > 0 ? size : -1;
            int64_t dim = e - b;
            if ((dim < 0) != (str < 0)) count = 0;
            else if (str < 0) count = (dim + 1) / str + 1;
            else count = dim == 0 ? 0 : (dim - 1) / str + 1;
            if (offset) {
                /* TFLite sizes the output from end[] alone in offset mode; a slice that runs
                   past the input would leave part of it unwritten */
                int64_t want = -1;
                if (i < begin_count) {
                    int64_t d2 = ev[i];
                    if ((d2 < 0) != (str < 0)) want = 0;
                    else if (str < 0) want = (d2 + 1) / str + 1;
                    else want = d2 == 0 ? 0 : (d2 - 1) / str + 1;
                }
                if (want != count)
                    return lgk_fail(n, LG_ERR_UNSUPPORTED, err,
                                    "offset slice of dim %d gives %lld elements but TFLite sizes it %lld", i,
                                    (long long)count, (long long)want);
            }
            LG_TRY(check_out_dim(n, count, err));
            out[r++] = (int32_t)count;
        }
        if (count == 0) empty = 1;
        s->shape[i] = count;
        s->ss[i] = str * est[i] * s->es;
        if (count > 0) s->src_off += b * est[i] * s->es;
    }
    if (empty) s->src_off = 0;
    box_dense_dst(s);
    return lgk_set_output(n, 0, in->type, out, r, err);
}

/* ------------------------------------------------------------------ TILE, BROADCAST_TO */

lg_status lgks_tile_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 2, 2, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    LG_TRY(lgks_out_like(n, 0, in, err));
    int64_t m[LG_MAX_RANK];
    uint32_t cnt = 0;
    LG_TRY(lgk_const_ints(n, 1, m, LG_MAX_RANK, &cnt, err));
    if (cnt != in->rank) return lgk_fail(n, LG_ERR_FORMAT, err, "multiples has %u values for rank %u", cnt, in->rank);
    box_state *s = box_new(n, in, err);
    if (!s) return LG_ERR_NOMEM;
    int32_t out[LG_MAX_RANK];
    for (uint32_t d = 0; d < cnt; d++) {
        if (m[d] < 0) return lgk_fail(n, LG_ERR_FORMAT, err, "multiples[%u] is %lld", d, (long long)m[d]);
        if (m[d] > INT32_MAX) return lgk_fail(n, LG_ERR_LIMIT, err, "multiples[%u] is %lld", d, (long long)m[d]);
        int64_t v = m[d] * in->shape[d];
        LG_TRY(check_out_dim(n, v, err));
        out[d] = (int32_t)v;
    }
    int64_t ist[LG_MAX_RANK], ost[LG_MAX_RANK];
    lgks_strides(in->shape, in->rank, ist);
    lgks_strides(out, in->rank, ost);
    /* output index along d = copy * in_dim + k: two box dims per input dim */
    s->rank = 2 * cnt;
    for (uint32_t d = 0; d < cnt; d++) {
        s->shape[2 * d] = m[d];
        s->ss[2 * d] = 0;
        s->ds[2 * d] = (int64_t)in->shape[d] * ost[d] * s->es;
        s->shape[2 * d + 1] = in->shape[d];
        s->ss[2 * d + 1] = ist[d] * s->es;
        s->ds[2 * d + 1] = ost[d] * s->es;
    }
    return lgk_set_output(n, 0, in->type, out, cnt, err);
}

lg_status lgks_broadcast_to_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 2, 2, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    LG_TRY(lgks_out_like(n, 0, in, err));
    if (n->in[1]->rank != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "the shape input must be a vector");
    if (n->in[1]->numel > LG_MAX_RANK)
        return lgk_fail(n, LG_ERR_UNSUPPORTED, err, "output rank %lld > %d", (long long)n->in[1]->numel, LG_MAX_RANK);
    int64_t want[LG_MAX_RANK];
    uint32_t r = 0;
    LG_TRY(lgk_const_ints(n, 1, want, LG_MAX_RANK, &r, err));
    if (r < in->rank) return lgk_fail(n, LG_ERR_FORMAT, err, "output rank %u is below the input rank %u", r, in->rank);
    box_state *s = box_new(n, in, err);
    if (!s) return LG_ERR_NOMEM;
    int64_t ist[LG_MAX_RANK];
    lgks_strides(in->shape, in->rank, ist);
    int32_t out[LG_MAX_RANK];
    s->rank = r;
    for (uint32_t k = 0; k < r; k++) {
        LG_TRY(check_out_dim(n, want[k], err));
        out[k] = (int32_t)want[k];
        s->shape[k] = want[k];
        int j = (int)k - (int)(r - in->rank);
        if (j < 0) {
            s->ss[k] = 0;
        } else if (in->shape[j] == want[k]) {
            s->ss[k] = ist[j] * s->es;
        } else if (in->shape[j] == 1) {
            s->ss[k] = 0;
        } else {
            return lgk_fail(n, LG_ERR_FORMAT, err, "input dim %d (%d) does not broadcast to %lld", j, in->shape[j],
                            (long long)want[k]);
        }
    }
    box_dense_dst(s);
    return lgk_set_output(n, 0, in->type, out, r, err);
}

/* ------------------------------------------------------------------ REVERSE_V2 */

lg_status lgks_reverse_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 2, 2, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    LG_TRY(lgks_out_like(n, 0, in, err));
    if (n->in[1]->rank != 1) return lgk_fail(n, LG_ERR_FORMAT, err, "axis must be a vector");
    int64_t ax[LG_MAX_RANK];
    uint32_t cnt = 0;
    if (n->in[1]->numel > (int64_t)in->rank)
        return lgk_fail(n, LG_ERR_FORMAT, err, "%lld axes for rank %u", (long long)n->in[1]->numel, in->rank);
    LG_TRY(lgk_const_ints(n, 1, ax, LG_MAX_RANK, &cnt, err));
    uint8_t rev[LG_MAX_RANK] = {0};
    for (uint32_t i = 0; i < cnt; i++) {
        int64_t a = ax[i] < 0 ? ax[i] + in->rank : ax[i];
        if (a < 0 || a >= (int64_t)in->rank)
            return lgk_fail(n, LG_ERR_FORMAT, err, "axis %lld is out of range for rank %u", (long long)ax[i], in->rank);
        if (rev[a]) return lgk_fail(n, LG_ERR_FORMAT, err, "axis %lld is given twice", (long long)ax[i]);
        rev[a] = 1;
    }
    box_state *s = box_new(n, in, err);
    if (!s) return LG_ERR_NOMEM;
    int64_t ist[LG_MAX_RANK];
    lgks_strides(in->shape, in->rank, ist);
    s->rank = in->rank;
    for (uint32_t d = 0; d < in->rank; d++) {
        s->shape[d] = in->shape[d];
        s->ss[d] = (rev[d] ? -ist[d] : ist[d]) * s->es;
        if (rev[d] && in->shape[d] > 0) s->src_off += (int64_t)(in->shape[d] - 1) * ist[d] * s->es;
    }
    if (in->numel == 0) s->src_off = 0;
    box_dense_dst(s);
    return lgk_set_output(n, 0, in->type, in->shape, in->rank, err);
}

/* ------------------------------------------------------------------ SPACE_TO_DEPTH, DEPTH_TO_SPACE */

lg_status lgks_space_to_depth_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 1, 1, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    LG_TRY(lgks_out_like(n, 0, in, err));
    const lg_space_to_depth_options *o = opts_of(n, LG_OPTS_SPACE_TO_DEPTH_OPTIONS);
    int64_t b = o ? o->block_size : 0;
    if (in->rank != 4) return lgk_fail(n, LG_ERR_FORMAT, err, "input rank %u (expected 4, NHWC)", in->rank);
    if (b < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "block_size is %lld", (long long)b);
    int64_t N = in->shape[0], H = in->shape[1], W = in->shape[2], C = in->shape[3];
    if (H % b || W % b)
        return lgk_fail(n, LG_ERR_FORMAT, err, "height %lld and width %lld must be multiples of block_size %lld",
                        (long long)H, (long long)W, (long long)b);
    LG_TRY(check_out_dim(n, C * b * b, err));
    box_state *s = box_new(n, in, err);
    if (!s) return LG_ERR_NOMEM;
    /* output (n, h, w, bh, bw, c) <- input (n, h*b + bh, w*b + bw, c) */
    const int64_t shp[6] = {N, H / b, W / b, b, b, C};
    const int64_t ss[6] = {H * W * C, b * W * C, b * C, W * C, C, 1};
    s->rank = 6;
    for (int k = 0; k < 6; k++) {
        s->shape[k] = shp[k];
        s->ss[k] = ss[k] * s->es;
    }
    box_dense_dst(s);
    int32_t out[4] = {(int32_t)N, (int32_t)(H / b), (int32_t)(W / b), (int32_t)(C * b * b)};
    return lgk_set_output(n, 0, in->type, out, 4, err);
}

lg_status lgks_depth_to_space_prepare(lgk_node *n, lg_error *err) {
    LG_TRY(lgks_counts(n, 1, 1, 1, 1, err));
    const lgk_tensor *in = n->in[0];
    LG_TRY(lgks_out_like(n, 0, in, err));
    const lg_depth_to_space_options *o = opts_of(n, LG_OPTS_DEPTH_TO_SPACE_OPTIONS);
    int64_t b = o ? o->block_size : 0;
    if (in->rank != 4) return lgk_fail(n, LG_ERR_FORMAT, err, "input rank %u (expected 4, NHWC)", in->rank);
    if (b < 1) return lgk_fail(n, LG_ERR_FORMAT, err, "block_size is %lld", (long long)b);
    int64_t N = in->shape[0], H = in->shape[1], W = in->shape[2], C = in->shape[3];
    if (b > INT32_MAX / b || C % (b * b))
        return lgk_fail(n, LG_ERR_FORMAT, err, "depth %lld must be a multiple of block_size^2 (%lld)", (long long)C,
                        (long long)b * b);
    int64_t Co = C / (b * b);
    LG_TRY(check_out_dim(n, H * b, err));
    LG_TRY(check_out_dim(n, W * b, err));
    box_state *s = box_new(n, in, err);
    if (!s) return LG_ERR_NOMEM;
    /* DCR: output (n, h*b + bh, w*b + bw, c) <- input (n, h, w, (bh*b + bw)*Co + c) */
    const int64_t shp[6] = {N, H, b, W, b, Co};
    const int64_t ss[6] = {H * W * C, W * C, b * Co, C, Co, 1};
    s->rank = 6;
    for (int k = 0; k < 6; k++) {
        s->shape[k] = shp[k];
        s->ss[k] = ss[k] * s->es;
    }
    box_dense_dst(s);
    int32_t out[4] = {(int32_t)N, (int32_t)(H * b), (int32_t)(W * b), (int32_t)Co};
    return lgk_set_output(n, 0, in->type, out, 4, err);
}
