/* Shape inference for reshaping, slicing, gathering, joining and splitting ops. Each
 * function follows the Prepare/ResizeOutputTensor of the TFLite kernel it names
 * (tensorflow/lite/kernels/<file>.cc, the same files under tflite/kernels/ in LiteRT).
 * Unknown dimensions (-1) propagate; a dimension decided by a value input that is not
 * constant is -1. */
#include "ops/infer_shape.h"

/* Read constant integer input i into v/n; `known` says whether it is constant. Returns
   from the caller on a malformed constant. */
#define INTS_OR_RETURN(c, i, v, n, known)                                                      \
    do {                                                                                       \
        lg_status st_;                                                                         \
        (known) = lgis_ints((c), (i), (v), &(n), &st_);                                        \
        if (st_ != LG_OK) return st_;                                                          \
    } while (0)

/* ------------------------------------------------------------------ RESHAPE */

/* Resolve a requested shape v[0..n) (one -1 allowed) against the input's element count,
   as reshape.cc ResizeOutput: the -1 becomes (product of the input's non-zero dims) /
   (product of the other requested non-zero dims), or 0 when the input is empty and the
   other requested dims are not; then the element counts must agree. */
static lg_status reshape_resolve(lg_infer_ctx *c, const lg_shape *in, const int64_t *v, uint32_t n) {
    lg_shape o = lgo_unknown_dims((int32_t)n);
    int stretch = -1;
    int64_t nz_out = 1, num_out = 1;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i] == -1) {
            if (stretch >= 0) return lgo_fail(c, "the new shape has more than one -1 (dimensions %d and %u)", stretch, i);
            stretch = (int)i;
            continue;
        }
        if (v[i] < -1 || v[i] > INT32_MAX)
            return lgo_fail(c, "the new shape has dimension %u = %lld", i, (long long)v[i]);
        o.dim[i] = (int32_t)v[i];
        if (v[i]) nz_out *= v[i];
        num_out *= v[i];
        if (nz_out > INT32_MAX || num_out > INT32_MAX)
            return lgo_fail(c, "the new shape has more than 2^31 elements");
    }
    int64_t num_in = lg_shape_numel(in);
    if (num_in < 0) {
        c->out[0] = o; /* the stretch dimension (if any) stays -1 */
        return LG_OK;
    }
    if (stretch >= 0) {
        int64_t nz_in = 1;
        for (int32_t d = 0; d < in->rank; d++)
            if (in->dim[d]) nz_in *= in->dim[d];
        int64_t s = (num_in == 0 && num_out != 0) ? 0 : nz_in / nz_out;
        o.dim[stretch] = (int32_t)s;
        num_out *= s;
    }
    if (num_in != num_out) {
        char a[96], b[96];
        return lgo_fail(c, "cannot reshape %s (%lld elements) to %s (%lld elements)",
                        lg_shape_str(in, a, sizeof a), (long long)num_in,
                        lg_shape_str(&o, b, sizeof b), (long long)num_out);
    }
    c->out[0] = o;
    return LG_OK;
}

/* reshape.cc GetOutputShape: the shape input when there are 2 inputs and it is a 1-D INT32
   tensor, otherwise ReshapeOptions.new_shape (a legacy [0] means a scalar). A non-constant
   shape input gives its length as the rank, every dimension -1. */
lg_status lgis_reshape(lg_infer_ctx *c) {
    const lg_reshape_options *opt = (const lg_reshape_options *)c->opts;
    lg_shape in = lgis_in(c, 0);
    int64_t v[LGIS_MAXV];
    uint32_t n = 0;
    c->out[0] = lgo_unknown();
    if (c->n_in == 2 && lgo_has(c, 1)) {
        lg_shape ss = c->in[1].shape;
        if (ss.rank < 0) return LG_OK; /* cannot tell whether the shape input is used */
        if (ss.rank == 1 && c->in[1].type == LG_INT32) {
            int known;
            INTS_OR_RETURN(c, 1, v, n, known);
            if (!known) {
                c->out[0] = ss.dim[0] >= 0 && ss.dim[0] <= LG_MAX_RANK ? lgo_unknown_dims(ss.dim[0])
                                                                     : lgo_unknown();
                return LG_OK;
            }
            if (n > LG_MAX_RANK) return LG_OK;
            return reshape_resolve(c, &in, v, n);
        }
    }
    if (!opt->new_shape.data) {
        /* no shape input and no new_shape: TFLite reshapes to a scalar (num_dimensions 0);
           with an unusable shape input we do not hold the model to that */
        if (c->n_in == 2) return LG_OK;
        return reshape_resolve(c, &in, v, 0);
    }
    n = opt->new_shape.n;
    if (n > LG_MAX_RANK) return LG_OK;
    const int32_t *ns = (const int32_t *)opt->new_shape.data;
    for (uint32_t i = 0; i < n; i++) v[i] = ns[i];
    if (n == 1 && v[0] == 0) n = 0; /* legacy scalar */
    return reshape_resolve(c, &in, v, n);
}

/* ------------------------------------------------------------------ SQUEEZE, EXPAND_DIMS */

/* squeeze.cc: squeeze_dims empty removes every dimension of size 1 (so an unknown dimension
   makes the rank unknown); otherwise each listed axis (in [-rank, rank)) must be 1. */
lg_status lgis_squeeze(lg_infer_ctx *c) {
    const lg_squeeze_options *opt = (const lg_squeeze_options *)c->opts;
    lg_shape in = lgis_in(c, 0);
    c->out[0] = lgo_unknown();
    if (in.rank < 0) return LG_OK;
    bool drop[LG_MAX_RANK] = {false};
    uint32_t nsq = opt->squeeze_dims.data ? opt->squeeze_dims.n : 0;
    if (nsq == 0) {
        for (int32_t d = 0; d < in.rank; d++) {
            if (in.dim[d] < 0) return LG_OK;
            drop[d] = in.dim[d] == 1;
        }
    } else {
        const int32_t *sd = (const int32_t *)opt->squeeze_dims.data;
        for (uint32_t k = 0; k < nsq; k++) {
            int32_t a;
            LG_TRY(lgo_axis(c, sd[k], in.rank, &a));
            if (in.dim[a] >= 0 && in.dim[a] != 1)
                return lgo_fail(c, "cannot squeeze dimension %d of size %d", a, in.dim[a]);
            drop[a] = true;
        }
    }
    lg_shape o = lgo_unknown_dims(0);
    for (int32_t d = 0; d < in.rank; d++)
        if (!drop[d]) o.dim[o.rank++] = in.dim[d];
    c->out[0] = o;
    return LG_OK;
}

/* expand_dims.cc: axis (one value) in [-rank-1, rank]; a negative axis counts from rank+1. */
lg_status lgis_expand_dims(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0);
    c->out[0] = lgo_unknown();
    if (in.rank < 0) return LG_OK;
    if (in.rank + 1 > LG_MAX_RANK) return LG_OK;
    int64_t axis;
    lg_status st;
    if (!lgo_const_int(c, 1, &axis, &st)) {
        if (st != LG_OK) return st;
        c->out[0] = lgo_unknown_dims(in.rank + 1);
        return LG_OK;
    }
    if (axis < 0) axis += in.rank + 1;
    if (axis < 0 || axis > in.rank)
        return lgo_fail(c, "axis out of range for a tensor of rank %d", in.rank);
    lg_shape o = lgo_unknown_dims(in.rank + 1);
    for (int32_t d = 0, k = 0; d <= in.rank; d++) o.dim[d] = d == axis ? 1 : in.dim[k++];
    c->out[0] = o;
    return LG_OK;
}

/* ------------------------------------------------------------------ TRANSPOSE */

/* transpose.cc: perm has one entry per input dimension, each in [0, rank) (a negative entry
   is taken modulo rank here, more permissive than TFLite); output[i] = input[perm[i]]. */
lg_status lgis_transpose(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0);
    int64_t v[LGIS_MAXV];
    uint32_t n;
    int known;
    INTS_OR_RETURN(c, 1, v, n, known);
    c->out[0] = lgo_unknown();
    if (!known) {
        int32_t r = in.rank >= 0 ? in.rank : lgis_len(c, 1);
        if (r >= 0 && r <= LG_MAX_RANK) c->out[0] = lgo_unknown_dims(r);
        return LG_OK;
    }
    if (in.rank < 0) {
        if (n <= LG_MAX_RANK) c->out[0] = lgo_unknown_dims((int32_t)n);
        return LG_OK;
    }
    if ((int32_t)n != in.rank)
        return lgo_fail(c, "perm has %u entries for an input of rank %d", n, in.rank);
    lg_shape o = lgo_unknown_dims(in.rank);
    for (uint32_t i = 0; i < n; i++) {
        int32_t a;
        LG_TRY(lgo_axis(c, v[i], in.rank, &a));
        o.dim[i] = in.dim[a];
    }
    c->out[0] = o;
    return LG_OK;
}

/* ------------------------------------------------------------------ STRIDED_SLICE */

/* The index arrays of one strided slice over the effective input (input plus new axes),
   built as strided_slice.cc BuildStridedSliceParams does. */
typedef struct ss_params {
    int32_t dims;                       /* effective dims */
    int32_t size[LG_MAX_RANK];          /* effective input shape (-1 unknown) */
    int64_t start[LG_MAX_RANK], stop[LG_MAX_RANK], stride[LG_MAX_RANK];
    bool start_known[LG_MAX_RANK], stop_known[LG_MAX_RANK], stride_known[LG_MAX_RANK];
    int32_t orig[LG_MAX_RANK];          /* index into begin/end/strides, or -1 */
    uint32_t begin_mask, end_mask, shrink_mask;
} ss_params;

static inline bool bit(uint32_t mask, int i) { return i >= 0 && i < 32 && (mask >> i) & 1u; }

/* Returns 0 when the effective rank exceeds LG_MAX_RANK (the output is then unknown). */
static int ss_build(const lg_strided_slice_options *o, const lg_shape *in, int32_t count,
                    const int64_t *b, bool bk, const int64_t *e, bool ek, const int64_t *s,
                    bool sk, ss_params *p) {
    uint32_t ell = (uint32_t)o->ellipsis_mask, nam = (uint32_t)o->new_axis_mask;
    int num_add = 0;
    for (int i = 0; i < count; i++)
        if (!bit(ell, i) && bit(nam, i)) num_add++;
    int dims = in->rank + num_add;
    if (dims > LG_MAX_RANK) return 0;
    memset(p, 0, sizeof *p);
    p->dims = dims;
    uint32_t eff_ell = 0, eff_new = 0;
    int ell_start = dims, expanded = 0;
    for (int i = 0; i < dims;) {
        if (bit(ell, i)) {
            ell_start = i;
            int end = i + 1 + num_add + in->rank - count;
            if (end > dims) end = dims;
            if (end < i + 1) end = i + 1;
            expanded = end - ell_start - 1;
            for (; i < end; i++) eff_ell |= 1u << i;
            continue;
        }
        if (bit(nam, i - expanded)) eff_new |= 1u << i;
        i++;
    }
    int added_ell = 0, added_axes = 0;
    for (int i = 0; i < dims; i++) {
        p->orig[i] = -1;
        p->stride[i] = 1;
        p->start_known[i] = p->stop_known[i] = p->stride_known[i] = true;
        if (bit(eff_ell, i)) {
            added_ell = i - ell_start > 0 ? i - ell_start : 0;
            p->begin_mask |= 1u << i;
            p->end_mask |= 1u << i;
            p->size[i] = in->dim[i - added_axes];
        } else if (bit(eff_new, i)) {
            p->start[i] = 0;
            p->stop[i] = 1;
            p->size[i] = 1;
            added_axes++;
        } else if (i >= count + expanded) {
            p->begin_mask |= 1u << i;
            p->end_mask |= 1u << i;
            p->size[i] = in->dim[i - added_axes];
        } else {
            int k = i - added_ell;
            p->orig[i] = k;
            p->start[i] = bk ? b[k] : 0;
            p->stop[i] = ek ? e[k] : 0;
            p->stride[i] = sk ? s[k] : 1;
            p->start_known[i] = bk;
            p->stop_known[i] = ek;
            p->stride_known[i] = sk;
            if (bit((uint32_t)o->begin_mask, k)) p->begin_mask |= 1u << i;
            if (bit((uint32_t)o->end_mask, k)) p->end_mask |= 1u << i;
            if (bit((uint32_t)o->shrink_axis_mask, k)) p->shrink_mask |= 1u << i;
            p->size[i] = in->dim[i - added_axes];
        }
    }
    return 1;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v > hi ? hi : v < lo ? lo : v; }

/* reference/strided_slice.h StartForAxis / EndForAxis (offset handled by the caller). */
static int64_t ss_start(const ss_params *p, int i) {
    int64_t n = p->size[i], st = p->start[i], stride = p->stride[i];
    if (st < 0) st += n;
    st = stride > 0 ? clamp64(st, 0, n) : clamp64(st, -1, n - 1);
    if (bit(p->begin_mask, i)) st = stride > 0 ? 0 : n - 1;
    return st;
}

static int64_t ss_end(const ss_params *p, int i) {
    int64_t n = p->size[i], en = p->stop[i], stride = p->stride[i];
    if (en < 0) en += n;
    en = stride > 0 ? clamp64(en, 0, n) : clamp64(en, -1, n - 1);
    if (bit(p->end_mask, i)) en = stride > 0 ? n : -1;
    return en;
}

/* strided_slice.cc ResizeOutputTensor: the extent of one effective axis, rounded up by the
   stride; 0 when it runs against the stride. -1 when an input it needs is unknown. */
static int32_t ss_extent(const ss_params *p, int i, bool offset, const int64_t *e, bool ek,
                         int32_t count) {
    if (!p->stride_known[i]) return -1;
    int64_t stride = p->stride[i], span;
    if (offset) {
        /* TFLite reads end[idx] with the effective index here */
        if (!ek || i >= count) return -1;
        span = e[i];
    } else {
        bool need_b = !bit(p->begin_mask, i), need_e = !bit(p->end_mask, i);
        if ((need_b && !p->start_known[i]) || (need_e && !p->stop_known[i]) || p->size[i] < 0)
            return -1;
        int64_t b = ss_start(p, i);
        span = ss_end(p, i) - b;
    }
    if ((span < 0) != (stride < 0)) return 0;
    int64_t d = stride < 0 ? (span + 1) / stride + 1 : (span == 0 ? 0 : (span - 1) / stride + 1);
    return d > INT32_MAX ? -1 : (int32_t)d;
}

/* strided_slice.cc: begin/end/strides are 1-D INT32 of the same length (at most 31); the
   masks are folded into the effective index arrays (ellipsis expands to the unspecified
   dimensions, new_axis adds a size-1 dimension, shrink_axis drops one); with offset, end
   holds sizes and begin need not be constant. */
lg_status lgis_strided_slice(lg_infer_ctx *c) {
    const lg_strided_slice_options *o = (const lg_strided_slice_options *)c->opts;
    lg_shape in = lgis_in(c, 0);
    int64_t b[LGIS_MAXV], e[LGIS_MAXV], s[LGIS_MAXV];
    uint32_t nb = 0, ne = 0, ns = 0;
    int bk, ek, sk;
    INTS_OR_RETURN(c, 1, b, nb, bk);
    INTS_OR_RETURN(c, 2, e, ne, ek);
    INTS_OR_RETURN(c, 3, s, ns, sk);
    c->out[0] = lgo_unknown();
    int32_t count = bk ? (int32_t)nb : ek ? (int32_t)ne : sk ? (int32_t)ns : lgis_len(c, 1);
    if (bk && ek && nb != ne)
        return lgo_fail(c, "begin has %u values and end %u", nb, ne);
    if (sk && (int32_t)ns < count)
        return lgo_fail(c, "strides has %u values for %d begin values", ns, count);
    if (in.rank < 0 || count < 0) return LG_OK;
    if ((bk && (int32_t)nb != count) || (ek && (int32_t)ne != count))
        return lgo_fail(c, "begin and end have different lengths");
    if (sk)
        for (int32_t k = 0; k < count; k++) {
            if (s[k] == 0) return lgo_fail(c, "stride %d is zero", k);
            if (s[k] <= INT32_MIN) return lgo_fail(c, "stride %d is INT32_MIN", k);
        }
    ss_params p;
    if (!ss_build(o, &in, count, b, bk, e, ek, s, sk, &p)) return LG_OK;
    lg_shape out = lgo_unknown_dims(0);
    for (int i = 0; i < p.dims; i++) {
        if (bit(p.shrink_mask, i)) continue;
        out.dim[out.rank++] = ss_extent(&p, i, o->offset, e, ek, count);
    }
    c->out[0] = out;
    return LG_OK;
}

/* ------------------------------------------------------------------ SLICE */

/* slice.cc ResizeOutputShape: begin and size are 1-D with one value per input dimension;
   size -1 means "to the end" (dim - begin), otherwise begin + size must fit. */
lg_status lgis_slice(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0);
    int64_t b[LGIS_MAXV], sz[LGIS_MAXV];
    uint32_t nb = 0, ns = 0;
    int bk, sk;
    INTS_OR_RETURN(c, 1, b, nb, bk);
    INTS_OR_RETURN(c, 2, sz, ns, sk);
    c->out[0] = lgo_unknown();
    if (bk && sk && nb != ns) return lgo_fail(c, "begin has %u values and size %u", nb, ns);
    int32_t r = in.rank >= 0 ? in.rank : sk ? (int32_t)ns : bk ? (int32_t)nb : lgis_len(c, 2);
    if (r < 0 || r > LG_MAX_RANK) return LG_OK;
    if ((bk && (int32_t)nb != r) || (sk && (int32_t)ns != r))
        return lgo_fail(c, "begin/size have %u values for an input of rank %d", sk ? ns : nb, r);
    lg_shape o = lgo_unknown_dims(r);
    for (int32_t d = 0; d < r; d++) {
        int32_t n = in.rank >= 0 ? in.dim[d] : -1;
        if (bk && (b[d] < 0 || (n >= 0 && b[d] > n)))
            return lgo_fail(c, "begin %lld is out of range for dimension %d of size %d",
                            (long long)b[d], d, n);
        if (!sk) continue;
        if (sz[d] < 0) {
            if (sz[d] != -1) return lgo_fail(c, "size %lld of dimension %d is invalid", (long long)sz[d], d);
            if (bk && n >= 0) o.dim[d] = (int32_t)(n - b[d]);
            continue;
        }
        if (bk && n >= 0 && b[d] + sz[d] > n)
            return lgo_fail(c, "begin %lld + size %lld exceed dimension %d of size %d",
                            (long long)b[d], (long long)sz[d], d, n);
        if (sz[d] > INT32_MAX) return lgo_fail(c, "size %lld is too large", (long long)sz[d]);
        o.dim[d] = (int32_t)sz[d];
    }
    c->out[0] = o;
    return LG_OK;
}

/* ------------------------------------------------------------------ GATHER, GATHER_ND */

/* gather.cc Prepare: axis (negative: + rank(params)) in [0, rank(params)); batch_dims
   (negative: + rank(indices)) with 0 <= batch_dims <= axis, batch_dims < rank(params),
   batch_dims <= rank(indices), the leading batch dims equal; output = params[:axis] +
   indices[batch_dims:] + params[axis+1:]. */
lg_status lgis_gather(lg_infer_ctx *c) {
    const lg_gather_options *opt = (const lg_gather_options *)c->opts;
    lg_shape p = lgis_in(c, 0), ix = lgis_in(c, 1);
    c->out[0] = lgo_unknown();
    if (p.rank < 0 || ix.rank < 0) return LG_OK;
    int32_t axis;
    LG_TRY(lgo_axis(c, opt->axis, p.rank, &axis));
    int64_t bd = opt->batch_dims;
    if (bd < 0) bd += ix.rank;
    if (bd < 0 || bd > axis || bd >= p.rank || bd > ix.rank)
        return lgo_fail(c, "batch_dims %d is out of range (axis %d, params rank %d, indices rank %d)",
                        opt->batch_dims, axis, p.rank, ix.rank);
    lg_shape o = lgo_unknown_dims(0);
    for (int32_t i = 0; i < bd; i++)
        if (p.dim[i] >= 0 && ix.dim[i] >= 0 && p.dim[i] != ix.dim[i])
            return lgo_fail(c, "batch dimension %d differs: params %d, indices %d", i, p.dim[i], ix.dim[i]);
    int32_t r = p.rank + ix.rank - 1 - (int32_t)bd;
    if (r > LG_MAX_RANK) return LG_OK;
    for (int32_t i = 0; i < axis; i++) o.dim[o.rank++] = p.dim[i] >= 0 ? p.dim[i] : (i < bd ? ix.dim[i] : -1);
    for (int32_t i = (int32_t)bd; i < ix.rank; i++) o.dim[o.rank++] = ix.dim[i];
    for (int32_t i = axis + 1; i < p.rank; i++) o.dim[o.rank++] = p.dim[i];
    c->out[0] = o;
    return LG_OK;
}

/* gather_nd.cc Prepare: params and indices at least 1-D, indices' last dimension (the index
   depth) at most rank(params); output = indices[:-1] + params[depth:]. */
lg_status lgis_gather_nd(lg_infer_ctx *c) {
    lg_shape p = lgis_in(c, 0), ix = lgis_in(c, 1);
    c->out[0] = lgo_unknown();
    if (p.rank == 0) return lgo_fail(c, "params must be at least a vector");
    if (ix.rank == 0) return lgo_fail(c, "indices must be at least a vector");
    if (p.rank < 0 || ix.rank < 0) return LG_OK;
    int32_t nd = ix.dim[ix.rank - 1];
    if (nd < 0) return LG_OK;
    if (nd > p.rank)
        return lgo_fail(c, "index depth %d is above the params rank %d", nd, p.rank);
    int32_t r = ix.rank - 1 + p.rank - nd;
    if (r > LG_MAX_RANK) return LG_OK;
    lg_shape o = lgo_unknown_dims(0);
    for (int32_t i = 0; i < ix.rank - 1; i++) o.dim[o.rank++] = ix.dim[i];
    for (int32_t i = nd; i < p.rank; i++) o.dim[o.rank++] = p.dim[i];
    c->out[0] = o;
    return LG_OK;
}

/* ------------------------------------------------------------------ CONCATENATION, PACK */

/* concatenation.cc Prepare: every input has the same rank, axis (negative: + rank) in
   [0, rank), every dimension but the axis equal; the axis dimension is the sum. */
lg_status lgis_concat(lg_infer_ctx *c) {
    const lg_concatenation_options *opt = (const lg_concatenation_options *)c->opts;
    c->out[0] = lgo_unknown();
    int32_t rank = -1;
    for (uint32_t i = 0; i < c->n_in; i++) {
        lg_shape s = lgis_in(c, i);
        if (s.rank < 0) continue;
        if (rank >= 0 && s.rank != rank)
            return lgo_fail(c, "input %u has rank %d, input 0 rank %d", i, s.rank, rank);
        rank = s.rank;
    }
    if (rank < 0) return LG_OK;
    int32_t axis;
    LG_TRY(lgo_axis(c, opt->axis, rank, &axis));
    lg_shape o = lgo_unknown_dims(rank);
    int64_t sum = 0;
    for (uint32_t i = 0; i < c->n_in; i++) {
        lg_shape s = lgis_in(c, i);
        if (s.rank < 0) {
            sum = -1;
            continue;
        }
        for (int32_t d = 0; d < rank; d++) {
            if (d == axis) {
                sum = (sum < 0 || s.dim[d] < 0) ? -1 : sum + s.dim[d];
                if (sum > INT32_MAX) return lgo_fail(c, "the axis dimension overflows");
            } else if (s.dim[d] >= 0) {
                if (o.dim[d] >= 0 && o.dim[d] != s.dim[d])
                    return lgo_fail(c, "input %u has dimension %d = %d, another input %d", i, d,
                                    s.dim[d], o.dim[d]);
                o.dim[d] = s.dim[d];
            }
        }
    }
    o.dim[axis] = (int32_t)sum;
    c->out[0] = o;
    return LG_OK;
}

/* Merge every input's shape into one (all must agree); rank -1 if none is known. */
static lg_status same_shapes(lg_infer_ctx *c, uint32_t first, uint32_t last, lg_shape *out) {
    lg_shape m = lgo_unknown();
    for (uint32_t i = first; i < last; i++) {
        lg_shape s = lgis_in(c, i);
        if (s.rank < 0) continue;
        if (m.rank < 0) {
            m = s;
            continue;
        }
        if (!lg_shape_compatible(&m, &s)) {
            char a[96], b[96];
            return lgo_fail(c, "input %u has shape %s, an earlier input %s", i,
                            lg_shape_str(&s, a, sizeof a), lg_shape_str(&m, b, sizeof b));
        }
        for (int32_t d = 0; d < m.rank; d++)
            if (m.dim[d] < 0) m.dim[d] = s.dim[d];
    }
    *out = m;
    return LG_OK;
}

/* pack.cc Prepare: values_count == the number of inputs, all of one shape; axis (negative:
   + rank + 1) in [0, rank]; the output inserts a dimension of values_count at axis. */
lg_status lgis_pack(lg_infer_ctx *c) {
    const lg_pack_options *opt = (const lg_pack_options *)c->opts;
    c->out[0] = lgo_unknown();
    if (opt->values_count > 0 && (uint32_t)opt->values_count != c->n_in)
        return lgo_fail(c, "values_count is %d but the op has %u inputs", opt->values_count, c->n_in);
    lg_shape s = lgo_unknown();
    LG_TRY(same_shapes(c, 0, c->n_in, &s));
    if (s.rank < 0 || s.rank + 1 > LG_MAX_RANK) return LG_OK;
    int64_t axis = opt->axis;
    if (axis < 0) axis += s.rank + 1;
    if (axis < 0 || axis > s.rank)
        return lgo_fail(c, "axis %d is out of range for inputs of rank %d", opt->axis, s.rank);
    lg_shape o = lgo_unknown_dims(s.rank + 1);
    for (int32_t d = 0, k = 0; d <= s.rank; d++)
        o.dim[d] = d == axis ? (int32_t)c->n_in : s.dim[k++];
    c->out[0] = o;
    return LG_OK;
}

/* ------------------------------------------------------------------ UNPACK, SPLIT, SPLIT_V */

/* unpack.cc Prepare: axis (negative: + rank) in [0, rank); num outputs == input[axis];
   each output is the input without the axis. */
lg_status lgis_unpack(lg_infer_ctx *c) {
    const lg_unpack_options *opt = (const lg_unpack_options *)c->opts;
    lg_shape in = lgis_in(c, 0);
    lgo_all_unknown(c);
    if (in.rank < 0) return LG_OK;
    int32_t axis;
    LG_TRY(lgo_axis(c, opt->axis, in.rank, &axis));
    if (opt->num > 0 && (uint32_t)opt->num != c->n_out)
        return lgo_fail(c, "num is %d but the op has %u outputs", opt->num, c->n_out);
    if (in.dim[axis] >= 0 && (uint32_t)in.dim[axis] != c->n_out)
        return lgo_fail(c, "%u outputs for dimension %d of size %d", c->n_out, axis, in.dim[axis]);
    lg_shape o = lgo_unknown_dims(0);
    for (int32_t d = 0; d < in.rank; d++)
        if (d != axis) o.dim[o.rank++] = in.dim[d];
    for (uint32_t k = 0; k < c->n_out; k++) c->out[k] = o;
    return LG_OK;
}

/* Every output = in with dimension axis replaced by sizes[k] (-1: unknown). */
static void split_outputs(lg_infer_ctx *c, const lg_shape *in, int32_t axis, const int32_t *sizes) {
    for (uint32_t k = 0; k < c->n_out; k++) {
        lg_shape o = *in;
        o.dim[axis] = sizes ? sizes[k] : -1;
        c->out[k] = o;
    }
}

/* split.cc: input 0 is the axis (a constant scalar), input 1 the value; the axis dimension
   must divide evenly by the number of outputs (num_splits). A non-constant axis leaves every
   dimension unknown. */
lg_status lgis_split(lg_infer_ctx *c) {
    const lg_split_options *opt = (const lg_split_options *)c->opts;
    lg_shape in = lgis_in(c, 1);
    lgo_all_unknown(c);
    for (uint32_t k = 0; k < c->n_out; k++) c->out_type[k] = lgo_has(c, 1) ? c->in[1].type : -1;
    if (opt->num_splits > 0 && (uint32_t)opt->num_splits != c->n_out)
        return lgo_fail(c, "num_splits is %d but the op has %u outputs", opt->num_splits, c->n_out);
    if (in.rank < 0) return LG_OK;
    int64_t av;
    lg_status st;
    if (!lgo_const_int(c, 0, &av, &st)) {
        if (st != LG_OK) return st;
        for (uint32_t k = 0; k < c->n_out; k++) c->out[k] = lgo_unknown_dims(in.rank);
        return LG_OK;
    }
    int32_t axis;
    LG_TRY(lgo_axis(c, av, in.rank, &axis));
    int32_t n = in.dim[axis];
    if (n >= 0 && n % (int32_t)c->n_out)
        return lgo_fail(c, "dimension %d of size %d does not split evenly in %u", axis, n, c->n_out);
    int32_t sz[1] = {n >= 0 ? n / (int32_t)c->n_out : -1};
    for (uint32_t k = 0; k < c->n_out; k++) {
        lg_shape o = in;
        o.dim[axis] = sz[0];
        c->out[k] = o;
    }
    return LG_OK;
}

/* split_v.cc: input 0 the value, input 1 size_splits (one per output, at most one -1, which
   takes the rest), input 2 the axis (constant scalar); without a -1 the sizes must sum to
   the axis dimension. */
lg_status lgis_split_v(lg_infer_ctx *c) {
    lg_shape in = lgis_in(c, 0);
    lgo_all_unknown(c);
    if (in.rank < 0) return LG_OK;
    int64_t av;
    lg_status st;
    if (!lgo_const_int(c, 2, &av, &st)) {
        if (st != LG_OK) return st;
        for (uint32_t k = 0; k < c->n_out; k++) c->out[k] = lgo_unknown_dims(in.rank);
        return LG_OK;
    }
    int32_t axis;
    LG_TRY(lgo_axis(c, av, in.rank, &axis));
    int64_t v[LGIS_MAXV];
    uint32_t n;
    int known;
    INTS_OR_RETURN(c, 1, v, n, known);
    if (!known) {
        split_outputs(c, &in, axis, NULL);
        return LG_OK;
    }
    if (n != c->n_out) return lgo_fail(c, "size_splits has %u values for %u outputs", n, c->n_out);
    int32_t sizes[LGIS_MAXV];
    int minus = -1;
    int64_t sum = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (v[k] == -1) {
            if (minus >= 0) return lgo_fail(c, "size_splits has more than one -1");
            minus = (int)k;
            sizes[k] = -1;
            continue;
        }
        if (v[k] < 0 || v[k] > INT32_MAX) return lgo_fail(c, "size_splits[%u] = %lld", k, (long long)v[k]);
        sizes[k] = (int32_t)v[k];
        sum += v[k];
    }
    int32_t total = in.dim[axis];
    if (total >= 0) {
        if (minus >= 0) {
            if (sum > total)
                return lgo_fail(c, "size_splits sum to %lld, above dimension %d of size %d",
                                (long long)sum, axis, total);
            sizes[minus] = (int32_t)(total - sum);
        } else if (sum != total) {
            return lgo_fail(c, "size_splits sum to %lld, dimension %d has size %d", (long long)sum,
                            axis, total);
        }
    }
    split_outputs(c, &in, axis, sizes);
    return LG_OK;
}
