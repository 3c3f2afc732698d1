/* Shape inference of the elementwise rows (elementwise.def) and the STABLEHLO_* rows
 * (stablehlo.def). Rules follow the LiteRT kernels' Prepare functions (tflite/kernels/,
 * cited per function) and, for the StableHLO ops LiteRT does not run, the StableHLO
 * specification's shape constraints. Broadcasting goes through lgo_broadcast, the one rule
 * of the tree. */
#include <limits.h>

#include "ops/infer_elementwise.h"

/* ------------------------------------------------------------------ helpers */

static const char *shp(const lg_shape *s, char *buf, size_t n) { return lg_shape_str(s, buf, n); }

/* Fold shape s (of input i) into acc, which must end up as one shape: same rank, and every
   dimension equal where both are known (an unknown takes the known one). */
static lg_status merge_same(const lg_infer_ctx *c, lg_shape *acc, const lg_shape *s, uint32_t i) {
    if (s->rank < 0) return LG_OK;
    if (acc->rank < 0) {
        *acc = *s;
        return LG_OK;
    }
    char a[96], b[96];
    if (acc->rank != s->rank)
        return lgo_fail(c, "input %u has shape %s, the others %s (they must have one shape)", i,
                        shp(s, a, sizeof a), shp(acc, b, sizeof b));
    for (int32_t d = 0; d < s->rank; d++) {
        if (acc->dim[d] < 0) acc->dim[d] = s->dim[d];
        else if (s->dim[d] >= 0 && s->dim[d] != acc->dim[d])
            return lgo_fail(c, "input %u has shape %s, the others %s (they must have one shape)",
                            i, shp(s, a, sizeof a), shp(acc, b, sizeof b));
    }
    return LG_OK;
}

/* Element k of a vector of int64 ([long]) options. */
static int64_t vec_i64(const lg_vec *v, uint32_t k) {
    int64_t x;
    memcpy(&x, (const uint8_t *)v->data + 8u * k, 8);
    return x;
}

/* The stored shape (with its signature's dynamic dimensions) of output o of the op, for the
   StableHLO ops whose result shape is only written on the output tensor (reshape, iota,
   broadcast_in_dim, rng_bit_generator). Unknown when the op is not in a model. */
static lg_shape stored_out(const lg_infer_ctx *c, uint32_t o) {
    if (!c->m || !c->op || o >= c->op->n_outputs) return lgo_unknown();
    for (uint32_t s = 0; s < c->m->n_subgraphs; s++) {
        const lg_subgraph *sg = &c->m->subgraphs[s];
        if (!sg->n_ops || c->op < sg->ops || c->op >= sg->ops + sg->n_ops) continue;
        int32_t t = c->op->outputs[o];
        if (t < 0 || (uint32_t)t >= sg->n_tensors) return lgo_unknown();
        return lg_shape_of_tensor(&sg->tensors[t], true);
    }
    return lgo_unknown();
}

static lg_shape in_shape(const lg_infer_ctx *c, uint32_t i) {
    return lgo_has(c, i) ? c->in[i].shape : lgo_unknown();
}

static void set_out(lg_infer_ctx *c, uint32_t o, lg_shape s) {
    if (o < c->n_out) c->out[o] = s;
}

static void set_type(lg_infer_ctx *c, uint32_t o, int type) {
    if (o < c->n_out) c->out_type[o] = (int8_t)type;
}

/* A dimension computed in 64 bits back to a shape dimension. */
static lg_status dim32(const lg_infer_ctx *c, int64_t v, int32_t d, int32_t *out) {
    if (v > INT32_MAX) return lgo_fail(c, "output dimension %d would be %lld", d, (long long)v);
    *out = (int32_t)v;
    return LG_OK;
}

/* ------------------------------------------------------------------ TFLite builtins */

/* Unary ops and the ops whose output is the input's shape: activations.cc GenericPrepare
   (ResizeTensor(output, TfLiteIntArrayCopy(input->dims))), elementwise.cc, exp.cc, neg.cc,
   floor.cc, ceil.cc, round.cc, sign.cc, zeros_like.cc, cast.cc, quantize.cc, dequantize.cc,
   fake_quant.cc, l2norm.cc, densify.cc (the output is the dense shape, which is the sparse
   input's stored shape). */
lg_status lgo_ew_unary(lg_infer_ctx *c) {
    lgo_same_shape(c, 0, 0);
    return LG_OK;
}

/* Binary ops with numpy broadcasting: add.cc, sub.cc, mul.cc, div.cc, pow.cc, floor_div.cc,
   floor_mod.cc, maximum_minimum.cc, squared_difference.cc, atan2.cc, bitwise_xor.cc,
   right_shift.cc, comparisons.cc, logical.cc: CalculateShapeForBroadcast when the shapes
   differ. */
lg_status lgo_ew_binary(lg_infer_ctx *c) {
    lg_shape a = in_shape(c, 0), b = in_shape(c, 1), o;
    LG_TRY(lgo_broadcast(c, &a, &b, &o));
    set_out(c, 0, o);
    return LG_OK;
}

/* activations.cc PreluPrepare: output = broadcast(input, alpha), then
   TF_LITE_ENSURE(HaveSameShapes(input, output)): alpha may not grow the input. */
lg_status lgo_ew_prelu(lg_infer_ctx *c) {
    lg_shape x = in_shape(c, 0), alpha = in_shape(c, 1), o;
    LG_TRY(lgo_broadcast(c, &x, &alpha, &o));
    if (x.rank >= 0 && o.rank >= 0) {
        char a[96], b[96];
        if (o.rank != x.rank)
            return lgo_fail(c, "alpha %s broadcasts the input %s to rank %d",
                            shp(&alpha, a, sizeof a), shp(&x, b, sizeof b), (int)o.rank);
        for (int32_t d = 0; d < x.rank; d++) {
            if (x.dim[d] >= 0 && o.dim[d] >= 0 && x.dim[d] != o.dim[d])
                return lgo_fail(c, "alpha %s grows the input %s along dimension %d",
                                shp(&alpha, a, sizeof a), shp(&x, b, sizeof b), (int)d);
            if (x.dim[d] < 0) x.dim[d] = o.dim[d];
        }
        o = x;
    }
    set_out(c, 0, o);
    return LG_OK;
}

/* add_n.cc: every input HaveSameShapes as input 0; output = input 0's shape. */
lg_status lgo_ew_add_n(lg_infer_ctx *c) {
    lg_shape acc = lgo_unknown();
    for (uint32_t i = 0; i < c->n_in; i++) {
        lg_shape s = in_shape(c, i);
        LG_TRY(merge_same(c, &acc, &s, i));
    }
    set_out(c, 0, acc);
    return LG_OK;
}

/* select.cc SelectPrepare, kVersionOne: x and y have one shape; the condition has that shape
   too, or is a scalar, or is rank 1 with dimension 0 of x's. Output = x's shape and type. */
lg_status lgo_ew_select(lg_infer_ctx *c) {
    lg_shape cond = in_shape(c, 0), xy = in_shape(c, 1), y = in_shape(c, 2);
    LG_TRY(merge_same(c, &xy, &y, 2));
    if (cond.rank >= 0 && xy.rank >= 0 && cond.rank != 0 && !lg_shape_compatible(&cond, &xy)) {
        bool rank_one = cond.rank == 1 && xy.rank >= 1 &&
                        (cond.dim[0] < 0 || xy.dim[0] < 0 || cond.dim[0] == xy.dim[0]);
        if (!rank_one) {
            char a[96], b[96];
            return lgo_fail(c, "condition %s is neither of x's shape %s, a scalar, nor rank 1 "
                            "matching its dimension 0", shp(&cond, a, sizeof a),
                            shp(&xy, b, sizeof b));
        }
    }
    set_out(c, 0, xy);
    if (lgo_has(c, 1)) set_type(c, 0, c->in[1].type);
    return LG_OK;
}

/* select.cc, kVersionTwo: CalculateShapeForBroadcast(condition, x, y). Output type = x's. */
lg_status lgo_ew_select_v2(lg_infer_ctx *c) {
    lg_shape cond = in_shape(c, 0), x = in_shape(c, 1), y = in_shape(c, 2), t, o;
    LG_TRY(lgo_broadcast(c, &cond, &x, &t));
    LG_TRY(lgo_broadcast(c, &t, &y, &o));
    set_out(c, 0, o);
    if (lgo_has(c, 1)) set_type(c, 0, c->in[1].type);
    return LG_OK;
}

/* cast.cc: output = input's shape. The kernel never reads CastOptions (its Prepare says
   "existing models, where params is not specified"), so the type is taken from them only
   when they are plainly filled in: the op carries CastOptions, in_data_type is the input's
   type, and they are not the all-default FLOAT32 -> FLOAT32 pair (which an empty table
   also reads as). Otherwise the stored type stands. */
lg_status lgo_ew_cast(lg_infer_ctx *c) {
    lgo_same_shape(c, 0, 0);
    set_type(c, 0, -1);
    if (!c->op || c->op->opts_kind != LG_OPTS_CAST_OPTIONS || !c->op->opts || !lgo_has(c, 0))
        return LG_OK;
    const lg_cast_options *o = (const lg_cast_options *)c->opts;
    if (o->in_data_type == c->in[0].type &&
        !(o->in_data_type == LG_FLOAT32 && o->out_data_type == LG_FLOAT32))
        set_type(c, 0, o->out_data_type);
    return LG_OK;
}

/* complex_support.cc: output = input's shape; COMPLEX64 -> FLOAT32, COMPLEX128 -> FLOAT64. */
lg_status lgo_ew_complex(lg_infer_ctx *c) {
    lgo_same_shape(c, 0, 0);
    int t = lgo_has(c, 0) ? c->in[0].type : -1;
    set_type(c, 0, t == LG_COMPLEX64 ? LG_FLOAT32 : t == LG_COMPLEX128 ? LG_FLOAT64 : -1);
    return LG_OK;
}

/* activations.cc SoftmaxPrepare: TF_LITE_ENSURE(NumDimensions(input) >= 1). */
lg_status lgo_ew_softmax(lg_infer_ctx *c) {
    lg_shape x = in_shape(c, 0);
    if (x.rank == 0) return lgo_fail(c, "the input is a scalar (rank >= 1 needed)");
    set_out(c, 0, x);
    return LG_OK;
}

/* local_response_norm.cc: TF_LITE_ENSURE_EQ(NumDimensions(input), 4). */
lg_status lgo_ew_lrn(lg_infer_ctx *c) {
    lg_shape x = in_shape(c, 0);
    if (x.rank >= 0 && x.rank != 4) {
        char a[96];
        return lgo_fail(c, "the input %s is not 4-D", shp(&x, a, sizeof a));
    }
    set_out(c, 0, x);
    return LG_OK;
}

/* reduce.cc GetOutputShape / ResolveAxisForShape: a rank-0 input gives a scalar whatever
   the axes; negative axes count from the end; out of range is an error; duplicates count
   once; keep_dims keeps reduced dimensions as 1, otherwise they are removed. Axes not
   constant: the kernel resizes at run time; the rank is still known with keep_dims. */
lg_status lgo_ew_reduce(lg_infer_ctx *c) {
    const lg_reducer_options *opt = (const lg_reducer_options *)c->opts;
    lg_shape x = in_shape(c, 0);
    if (x.rank < 0) {
        set_out(c, 0, lgo_unknown());
        return LG_OK;
    }
    if (x.rank == 0) {
        set_out(c, 0, lgo_shape(0, NULL));
        return LG_OK;
    }
    int64_t axes[512];
    uint32_t n = 0;
    lg_status st;
    if (!lgo_const_ints(c, 1, axes, 512, &n, &st)) {
        LG_TRY(st);
        set_out(c, 0, opt->keep_dims ? lgo_unknown_dims(x.rank) : lgo_unknown());
        return LG_OK;
    }
    bool red[LG_MAX_RANK] = {false};
    for (uint32_t k = 0; k < n; k++) {
        int32_t a;
        LG_TRY(lgo_axis(c, axes[k], x.rank, &a));
        red[a] = true;
    }
    lg_shape o = lgo_shape(0, NULL);
    for (int32_t d = 0; d < x.rank; d++) {
        if (!red[d]) o.dim[o.rank++] = x.dim[d];
        else if (opt->keep_dims) o.dim[o.rank++] = 1;
    }
    set_out(c, 0, o);
    return LG_OK;
}

/* arg_min_max.cc: the axis input holds one value (ReadAndNormalizeAxis: negative counts from
   the end, must be in range); the reduced dimension must not be empty; output = the input
   without that dimension; its type is the options' output_type (INT32 or INT64). */
lg_status lgo_ew_arg_minmax(lg_infer_ctx *c) {
    if (c->op && c->op->opts) {
        int8_t ot = c->code == LG_OP_ARG_MAX ? ((const lg_arg_max_options *)c->opts)->output_type
                                             : ((const lg_arg_min_options *)c->opts)->output_type;
        if (ot == LG_INT32 || ot == LG_INT64) set_type(c, 0, ot);
    }
    lg_shape x = in_shape(c, 0);
    if (x.rank < 0) {
        set_out(c, 0, lgo_unknown());
        return LG_OK;
    }
    if (x.rank == 0) return lgo_fail(c, "the input is a scalar (no axis to reduce)");
    int64_t v;
    lg_status st;
    if (!lgo_const_int(c, 1, &v, &st)) {
        LG_TRY(st);
        set_out(c, 0, lgo_unknown_dims(x.rank - 1));
        return LG_OK;
    }
    int32_t a;
    LG_TRY(lgo_axis(c, v, x.rank, &a));
    if (x.dim[a] == 0) return lgo_fail(c, "axis %d is empty", (int)a);
    lg_shape o = lgo_shape(0, NULL);
    for (int32_t d = 0; d < x.rank; d++)
        if (d != a) o.dim[o.rank++] = x.dim[d];
    set_out(c, 0, o);
    return LG_OK;
}

/* cumsum.cc: NumDimensions(input) >= 1, one axis value (checked in range in Eval), output =
   input's shape. */
lg_status lgo_ew_cumsum(lg_infer_ctx *c) {
    lg_shape x = in_shape(c, 0);
    if (x.rank == 0) return lgo_fail(c, "the input is a scalar (rank >= 1 needed)");
    int64_t v;
    lg_status st;
    if (lgo_const_int(c, 1, &v, &st) && x.rank > 0) {
        int32_t a;
        LG_TRY(lgo_axis(c, v, x.rank, &a));
    } else {
        LG_TRY(st);
    }
    set_out(c, 0, x);
    return LG_OK;
}

/* ------------------------------------------------------------------ STABLEHLO_* */

/* Elementwise StableHLO ops: the operands have one shape (no implicit broadcasting;
   stablehlo_elementwise.cc ElementwisePrepare checks every dimension equal). */
lg_status lgo_hlo_same(lg_infer_ctx *c) {
    lg_shape acc = lgo_unknown();
    for (uint32_t i = 0; i < c->n_in; i++) {
        lg_shape s = in_shape(c, i);
        LG_TRY(merge_same(c, &acc, &s, i));
    }
    set_out(c, 0, acc);
    return LG_OK;
}

/* clamp(min, operand, max): min and max are scalars or of the operand's shape (spec C1). */
lg_status lgo_hlo_clamp(lg_infer_ctx *c) {
    lg_shape acc = in_shape(c, 1);
    for (uint32_t i = 0; i < 3; i += 2) {
        lg_shape s = in_shape(c, i);
        if (s.rank != 0) LG_TRY(merge_same(c, &acc, &s, i));
    }
    set_out(c, 0, acc);
    if (lgo_has(c, 1)) set_type(c, 0, c->in[1].type);
    return LG_OK;
}

/* select(pred, on_true, on_false): on_true and on_false of one shape, pred a scalar or of
   that shape (spec C1-C2); the result is on_true's type. */
lg_status lgo_hlo_select(lg_infer_ctx *c) {
    lg_shape acc = in_shape(c, 1), f = in_shape(c, 2), p = in_shape(c, 0);
    LG_TRY(merge_same(c, &acc, &f, 2));
    if (p.rank != 0) LG_TRY(merge_same(c, &acc, &p, 0));
    set_out(c, 0, acc);
    if (lgo_has(c, 1)) set_type(c, 0, c->in[1].type);
    return LG_OK;
}

/* Output 0 has input 0's shape (dynamic_update_slice: the operand's). */
lg_status lgo_hlo_first(lg_infer_ctx *c) {
    lgo_same_shape(c, 0, 0);
    return LG_OK;
}

/* reshape: the result shape is only written on the output tensor; the element counts must
   agree (spec C1). */
lg_status lgo_hlo_reshape(lg_infer_ctx *c) {
    lg_shape x = in_shape(c, 0), o = stored_out(c, 0);
    int64_t a = lg_shape_numel(&x), b = lg_shape_numel(&o);
    if (a >= 0 && b >= 0 && a != b) {
        char s1[96], s2[96];
        return lgo_fail(c, "reshape of %s (%lld elements) to %s (%lld elements)",
                        shp(&x, s1, sizeof s1), (long long)a, shp(&o, s2, sizeof s2),
                        (long long)b);
    }
    set_out(c, 0, o);
    return LG_OK;
}

/* transpose: result dimension i = operand dimension permutation[i]; permutation is a
   permutation of [0, rank) (spec C2). */
lg_status lgo_hlo_transpose(lg_infer_ctx *c) {
    const lg_stablehlo_transpose_options *opt = (const lg_stablehlo_transpose_options *)c->opts;
    lg_shape x = in_shape(c, 0);
    uint32_t n = opt->permutation.data ? opt->permutation.n : 0;
    if (x.rank >= 0 && n != (uint32_t)x.rank)
        return lgo_fail(c, "permutation has %u entries for an input of rank %d", n, (int)x.rank);
    if (n > LG_MAX_RANK) {
        set_out(c, 0, lgo_unknown());
        return LG_OK;
    }
    bool seen[LG_MAX_RANK] = {false};
    lg_shape o = lgo_unknown_dims((int32_t)n);
    for (uint32_t i = 0; i < n; i++) {
        int64_t p = vec_i64(&opt->permutation, i);
        if (p < 0 || p >= (int64_t)n || seen[p])
            return lgo_fail(c, "permutation entry %u (%lld) is out of range or repeated", i,
                            (long long)p);
        seen[p] = true;
        o.dim[i] = x.rank >= 0 ? x.dim[p] : -1;
    }
    set_out(c, 0, o);
    return LG_OK;
}

/* concatenate: one rank, equal dimensions except `dimension`, which adds up (spec C1-C6). */
lg_status lgo_hlo_concatenate(lg_infer_ctx *c) {
    const lg_stablehlo_concatenate_options *opt =
        (const lg_stablehlo_concatenate_options *)c->opts;
    lg_shape acc = lgo_unknown();
    uint32_t first = 0;
    for (uint32_t i = 0; i < c->n_in && acc.rank < 0; i++)
        if (in_shape(c, i).rank >= 0) {
            acc = in_shape(c, i);
            first = i;
        }
    if (acc.rank < 0) {
        set_out(c, 0, lgo_unknown());
        return LG_OK;
    }
    int32_t axis;
    LG_TRY(lgo_axis(c, opt->dimension, acc.rank, &axis));
    int64_t sum = 0;
    bool known = true;
    for (uint32_t i = 0; i < c->n_in; i++) {
        lg_shape s = in_shape(c, i);
        if (s.rank < 0) {
            known = false;
            continue;
        }
        char a[96], b[96];
        if (s.rank != acc.rank)
            return lgo_fail(c, "input %u has shape %s, input %u %s (ranks differ)", i,
                            shp(&s, a, sizeof a), first, shp(&acc, b, sizeof b));
        for (int32_t d = 0; d < s.rank; d++) {
            if (d == axis) continue;
            if (acc.dim[d] < 0) acc.dim[d] = s.dim[d];
            else if (s.dim[d] >= 0 && s.dim[d] != acc.dim[d])
                return lgo_fail(c, "input %u has shape %s, input %u %s (dimension %d differs)",
                                i, shp(&s, a, sizeof a), first, shp(&acc, b, sizeof b), (int)d);
        }
        if (s.dim[axis] < 0) known = false;
        else sum += s.dim[axis];
    }
    if (known) LG_TRY(dim32(c, sum, axis, &acc.dim[axis]));
    else acc.dim[axis] = -1;
    set_out(c, 0, acc);
    return LG_OK;
}

/* broadcast_in_dim: the result shape is the output tensor's; broadcast_dimensions has one
   entry per operand dimension, each a distinct result dimension where the operand's size is
   1 or the result's (spec C2-C6). */
lg_status lgo_hlo_broadcast_in_dim(lg_infer_ctx *c) {
    const lg_stablehlo_broadcast_in_dim_options *opt =
        (const lg_stablehlo_broadcast_in_dim_options *)c->opts;
    lg_shape x = in_shape(c, 0), o = stored_out(c, 0);
    uint32_t n = opt->broadcast_dimensions.data ? opt->broadcast_dimensions.n : 0;
    if (x.rank >= 0 && n != (uint32_t)x.rank)
        return lgo_fail(c, "broadcast_dimensions has %u entries for an operand of rank %d", n,
                        (int)x.rank);
    if (x.rank >= 0 && o.rank >= 0) {
        bool seen[LG_MAX_RANK] = {false};
        for (uint32_t i = 0; i < n; i++) {
            int64_t d = vec_i64(&opt->broadcast_dimensions, i);
            if (d < 0 || d >= o.rank || seen[d])
                return lgo_fail(c, "broadcast_dimensions entry %u (%lld) is out of range for "
                                "rank %d or repeated", i, (long long)d, (int)o.rank);
            seen[d] = true;
            int32_t xd = x.dim[i], od = o.dim[d];
            if (xd >= 0 && od >= 0 && xd != 1 && xd != od)
                return lgo_fail(c, "operand dimension %u (%d) cannot broadcast to result "
                                "dimension %lld (%d)", i, (int)xd, (long long)d, (int)od);
        }
    }
    set_out(c, 0, o);
    return LG_OK;
}

/* slice: result dimension d = ceil((limit - start) / stride), with 0 <= start <= limit <=
   operand dimension and stride > 0 (spec C2-C5). Empty strides read as 1s. */
lg_status lgo_hlo_slice(lg_infer_ctx *c) {
    const lg_stablehlo_slice_options *opt = (const lg_stablehlo_slice_options *)c->opts;
    lg_shape x = in_shape(c, 0);
    uint32_t n = opt->start_indices.data ? opt->start_indices.n : 0;
    uint32_t nl = opt->limit_indices.data ? opt->limit_indices.n : 0;
    uint32_t ns = opt->strides.data ? opt->strides.n : 0;
    if ((x.rank >= 0 && n != (uint32_t)x.rank) || nl != n || (ns != n && ns != 0))
        return lgo_fail(c, "start/limit/strides have %u/%u/%u entries for an input of rank %d",
                        n, nl, ns, (int)x.rank);
    if (n > LG_MAX_RANK) {
        set_out(c, 0, lgo_unknown());
        return LG_OK;
    }
    lg_shape o = lgo_unknown_dims((int32_t)n);
    for (uint32_t d = 0; d < n; d++) {
        int64_t s = vec_i64(&opt->start_indices, d), l = vec_i64(&opt->limit_indices, d);
        int64_t st = ns ? vec_i64(&opt->strides, d) : 1;
        int64_t dim = x.rank >= 0 ? x.dim[d] : -1;
        if (s < 0 || l < s || st <= 0 || (dim >= 0 && l > dim))
            return lgo_fail(c, "dimension %u: start %lld, limit %lld, stride %lld do not fit "
                            "size %lld", d, (long long)s, (long long)l, (long long)st,
                            (long long)dim);
        LG_TRY(dim32(c, (l - s + st - 1) / st, (int32_t)d, &o.dim[d]));
    }
    set_out(c, 0, o);
    return LG_OK;
}

/* pad: result dimension = low + d + (d - 1) * interior + high (d > 0), interior >= 0
   (stablehlo_pad.cc PadData::Setup; spec C2-C4, negative edges crop). A negative result is
   a contradiction. */
lg_status lgo_hlo_pad(lg_infer_ctx *c) {
    const lg_stablehlo_pad_options *opt = (const lg_stablehlo_pad_options *)c->opts;
    lg_shape x = in_shape(c, 0);
    uint32_t n = opt->edge_padding_low.data ? opt->edge_padding_low.n : 0;
    uint32_t nh = opt->edge_padding_high.data ? opt->edge_padding_high.n : 0;
    uint32_t ni = opt->interior_padding.data ? opt->interior_padding.n : 0;
    if ((x.rank >= 0 && n != (uint32_t)x.rank) || nh != n || ni != n)
        return lgo_fail(c, "low/high/interior padding have %u/%u/%u entries for an input of "
                        "rank %d", n, nh, ni, (int)x.rank);
    if (n > LG_MAX_RANK) {
        set_out(c, 0, lgo_unknown());
        return LG_OK;
    }
    lg_shape o = lgo_unknown_dims((int32_t)n);
    for (uint32_t d = 0; d < n; d++) {
        int64_t lo = vec_i64(&opt->edge_padding_low, d), hi = vec_i64(&opt->edge_padding_high, d);
        int64_t in = vec_i64(&opt->interior_padding, d);
        if (in < 0) return lgo_fail(c, "dimension %u: interior padding %lld", d, (long long)in);
        if (x.rank < 0 || x.dim[d] < 0) continue;
        int64_t v = (int64_t)x.dim[d] + (x.dim[d] > 0 ? (x.dim[d] - 1) * in : 0) + lo + hi;
        if (v < 0)
            return lgo_fail(c, "dimension %u: size %d padded by %lld/%lld is negative", d,
                            (int)x.dim[d], (long long)lo, (long long)hi);
        LG_TRY(dim32(c, v, (int32_t)d, &o.dim[d]));
    }
    set_out(c, 0, o);
    return LG_OK;
}

/* iota: the result shape is the output tensor's; iota_dimension must be one of its
   dimensions (spec C1). */
lg_status lgo_hlo_iota(lg_infer_ctx *c) {
    const lg_stablehlo_iota_options *opt = (const lg_stablehlo_iota_options *)c->opts;
    lg_shape o = stored_out(c, 0);
    if (o.rank >= 0 && (opt->iota_dimension < 0 || opt->iota_dimension >= o.rank))
        return lgo_fail(c, "iota_dimension %lld is out of range for rank %d",
                        (long long)opt->iota_dimension, (int)o.rank);
    set_out(c, 0, o);
    return LG_OK;
}

/* Check one list of dimension numbers of dot_general against a rank: in range, distinct. */
static lg_status dims_ok(const lg_infer_ctx *c, const lg_vec *v, int32_t rank, const char *what,
                         bool *used) {
    uint32_t n = v->data ? v->n : 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t d = vec_i64(v, i);
        if (d < 0 || d >= rank || used[d])
            return lgo_fail(c, "%s entry %u (%lld) is out of range for rank %d or repeated",
                            what, i, (long long)d, (int)rank);
        used[d] = true;
    }
    return LG_OK;
}

/* dot_general: result = batch dimensions, then lhs's free dimensions, then rhs's (spec
   C1-C12 and the result shape rule); batch and contracting sizes must agree. */
lg_status lgo_hlo_dot_general(lg_infer_ctx *c) {
    const lg_stablehlo_dot_general_options *opt = (const lg_stablehlo_dot_general_options *)c->opts;
    lg_shape l = in_shape(c, 0), r = in_shape(c, 1);
    set_out(c, 0, lgo_unknown());
    if (l.rank < 0 || r.rank < 0) return LG_OK;
    const lg_vec *lb = &opt->lhs_batching_dimensions, *rb = &opt->rhs_batching_dimensions;
    const lg_vec *lc = &opt->lhs_contracting_dimensions, *rc = &opt->rhs_contracting_dimensions;
    uint32_t nb = lb->data ? lb->n : 0, nc = lc->data ? lc->n : 0;
    if (nb != (rb->data ? rb->n : 0) || nc != (rc->data ? rc->n : 0))
        return lgo_fail(c, "lhs and rhs have different numbers of batching or contracting "
                        "dimensions");
    bool lu[LG_MAX_RANK] = {false}, ru[LG_MAX_RANK] = {false};
    LG_TRY(dims_ok(c, lb, l.rank, "lhs_batching_dimensions", lu));
    LG_TRY(dims_ok(c, lc, l.rank, "lhs_contracting_dimensions", lu));
    LG_TRY(dims_ok(c, rb, r.rank, "rhs_batching_dimensions", ru));
    LG_TRY(dims_ok(c, rc, r.rank, "rhs_contracting_dimensions", ru));
    lg_shape o = lgo_shape(0, NULL);
    for (uint32_t k = 0; k < nb + nc; k++) {
        int64_t a = k < nb ? vec_i64(lb, k) : vec_i64(lc, k - nb);
        int64_t b = k < nb ? vec_i64(rb, k) : vec_i64(rc, k - nb);
        int32_t da = l.dim[a], db = r.dim[b];
        if (da >= 0 && db >= 0 && da != db)
            return lgo_fail(c, "%s dimension: lhs %lld has %d, rhs %lld has %d",
                            k < nb ? "batching" : "contracting", (long long)a, (int)da,
                            (long long)b, (int)db);
        if (k < nb) o.dim[o.rank++] = da >= 0 ? da : db;
    }
    int32_t free_l = l.rank - (int32_t)(nb + nc), free_r = r.rank - (int32_t)(nb + nc);
    if (o.rank + free_l + free_r > LG_MAX_RANK) return LG_OK;
    for (int32_t d = 0; d < l.rank; d++)
        if (!lu[d]) o.dim[o.rank++] = l.dim[d];
    for (int32_t d = 0; d < r.rank; d++)
        if (!ru[d]) o.dim[o.rank++] = r.dim[d];
    set_out(c, 0, o);
    return LG_OK;
}

/* dynamic_slice: the result is slice_sizes, one per operand dimension, each within it
   (spec C2, C4, C5); the start indices only move the window. */
lg_status lgo_hlo_dynamic_slice(lg_infer_ctx *c) {
    const lg_stablehlo_dynamic_slice_options *opt =
        (const lg_stablehlo_dynamic_slice_options *)c->opts;
    lg_shape x = in_shape(c, 0);
    uint32_t n = opt->slice_sizes.data ? opt->slice_sizes.n : 0;
    if (x.rank >= 0 && n != (uint32_t)x.rank)
        return lgo_fail(c, "slice_sizes has %u entries for an operand of rank %d", n,
                        (int)x.rank);
    if (n > LG_MAX_RANK) {
        set_out(c, 0, lgo_unknown());
        return LG_OK;
    }
    lg_shape o = lgo_unknown_dims((int32_t)n);
    for (uint32_t d = 0; d < n; d++) {
        int64_t s = vec_i64(&opt->slice_sizes, d);
        if (s < 0 || (x.rank >= 0 && x.dim[d] >= 0 && s > x.dim[d]))
            return lgo_fail(c, "slice size %lld does not fit dimension %u (%d)", (long long)s, d,
                            x.rank >= 0 ? (int)x.dim[d] : -1);
        LG_TRY(dim32(c, s, (int32_t)d, &o.dim[d]));
    }
    set_out(c, 0, o);
    return LG_OK;
}

/* scatter(inputs[N], scatter_indices, updates[N]) -> N results of the inputs' shapes
   (spec C1 and the result rule; stablehlo_scatter.cc: 3 inputs -> 1 output, the operand's
   shape). Another operand count is left unknown. */
lg_status lgo_hlo_scatter(lg_infer_ctx *c) {
    lgo_all_unknown(c);
    if (c->n_in != 2 * c->n_out + 1) return LG_OK;
    for (uint32_t i = 0; i < c->n_out; i++) lgo_same_shape(c, i, i);
    return LG_OK;
}

/* reduce(inputs[N], init_values[N]) -> N results: the inputs without `dimensions` (distinct,
   in range; spec C4-C5 and the result rule). */
lg_status lgo_hlo_reduce(lg_infer_ctx *c) {
    const lg_stablehlo_reduce_options *opt = (const lg_stablehlo_reduce_options *)c->opts;
    lgo_all_unknown(c);
    if (c->n_in != 2 * c->n_out) return LG_OK;
    for (uint32_t i = 0; i < c->n_out; i++) {
        lg_shape x = in_shape(c, i);
        if (x.rank < 0) continue;
        bool red[LG_MAX_RANK] = {false};
        LG_TRY(dims_ok(c, &opt->dimensions, x.rank, "dimensions", red));
        lg_shape o = lgo_shape(0, NULL);
        for (int32_t d = 0; d < x.rank; d++)
            if (!red[d]) o.dim[o.rank++] = x.dim[d];
        set_out(c, i, o);
    }
    return LG_OK;
}

/* sort(inputs[N]) -> N results of the inputs' shapes and types (spec C1-C2). */
lg_status lgo_hlo_sort(lg_infer_ctx *c) {
    lgo_all_unknown(c);
    if (c->n_in != c->n_out) return LG_OK;
    for (uint32_t i = 0; i < c->n_out; i++) lgo_same_shape(c, i, i);
    return LG_OK;
}

/* rng_bit_generator.cc: the new state has the initial state's shape (HaveSameShapes), the
   output keeps its stored ("static") shape. */
lg_status lgo_hlo_rng_bit_generator(lg_infer_ctx *c) {
    lgo_same_shape(c, 0, 0);
    set_out(c, 1, stored_out(c, 1));
    return LG_OK;
}
