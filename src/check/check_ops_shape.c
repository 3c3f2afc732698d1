/* Per-op rules of the ops that move data without arithmetic: padding, reshapes, slicing,
   transposes, tiling, gathers, splits, depth/space rearrangements, resizes. See rules.def for
   each rule's source. */
#include "check/check_impl.h"

/* The PAD/PADV2 layout WebGPU gets wrong: rank-3 data with a first dimension > 1, or a
   rank-4 padding of the batch axis. */
static void check_pad_layout(ck *c, const opx *x) {
    const lg_op *op = x->op;
    char s1[64];
    const lg_tensor *d = lgc_T(c, op->inputs[0]);
    int64_t b0 = 0, a0 = 0;
    int pads_batch = lgc_const_int(c, op->inputs[1], 0, &b0) && lgc_const_int(c, op->inputs[1], 1, &a0) && (b0 || a0);
    if ((d->rank == 3 && d->shape[0] > 1) || (d->rank == 4 && pads_batch)) {
        lg_finding *f = lgc_add(c, R_WEBGPU_PAD_LAYOUT, x, NULL, "%s of %s %s", x->name, lgc_shp(c, op->inputs[0], s1, sizeof s1),
                            d->rank == 3 ? "(a rank-3 tensor with a first dimension > 1)" : "pads the batch axis");
        lgc_with_tensor(f, op->inputs[0]);
    }
}

static void check_padv2_value(ck *c, const opx *x) {
    double v = 0;
    int32_t cv = x->op->inputs[2];
    if (c->is_const[cv] && lgc_const_float(c, cv, 0, &v) && v != 0) {
        lg_finding *f = lgc_add(c, R_PADV2_NONZERO, x, NULL, "PADV2 pads with %g", v);
        lgc_with_tensor(f, cv);
    } else if (!c->is_const[cv]) {
        lgc_add(c, R_OP_PARAMS, x, NULL, "PADV2 constant value must be a constant float scalar");
    }
}

/* PAD, PADV2, MIRROR_PAD. */
void lgc_rule_pad(ck *c, const opx *x) {
    const lg_op *op = x->op;
    int32_t code = x->code;
    char s1[64];
    if (x->n_rt != 1 || op->n_outputs != 1)
        lgc_add(c, R_INPUT_COUNT, x, NULL, "%s has %d runtime inputs; the GPU takes 1", x->name, x->n_rt);
    if (op->n_inputs >= 2 && op->inputs[1] >= 0) {
        lgc_need_static(c, x, 1, "paddings");
        const lg_tensor *p = lgc_T(c, op->inputs[1]);
        if (!(p->rank == 2 && (p->shape[0] == 4 || p->shape[0] == 3) && p->shape[1] == 2)) {
            lg_finding *f = lgc_add(c, R_PAD_SHAPE, x, NULL, "%s paddings %s: the GPU takes 4x2 or 3x2 (rank-3 or rank-4 data)",
                                x->name, lgc_shp(c, op->inputs[1], s1, sizeof s1));
            lgc_with_tensor(f, op->inputs[1]);
        }
    }
    if ((code == LG_OP_PAD || code == LG_OP_PADV2) && op->n_inputs >= 2 && op->inputs[0] >= 0 && op->inputs[1] >= 0 &&
        c->is_const[op->inputs[1]])
        check_pad_layout(c, x);
    if (code == LG_OP_MIRROR_PAD) {
        lg_mirror_pad_options d;
        const lg_mirror_pad_options *o = lgc_opts(op, LG_OPTS_MIRROR_PAD_OPTIONS, &d, sizeof d);
        if (o->mode != 0) lgc_add(c, R_MIRROR_PAD_MODE, x, NULL, "MIRROR_PAD mode SYMMETRIC");
    }
    if (code == LG_OP_PADV2 && op->n_inputs >= 3 && op->inputs[2] >= 0) check_padv2_value(c, x);
}

void lgc_rule_reshape(ck *c, const opx *x) {
    if (x->n_rt != 1 || x->op->n_outputs != 1)
        lgc_add(c, R_INPUT_COUNT, x, NULL, "RESHAPE has %d runtime inputs; the GPU takes 1 (the shape must be constant)", x->n_rt);
    lgc_need_static(c, x, 1, "shape");
}

static void check_strided_slice(ck *c, const opx *x) {
    const lg_op *op = x->op;
    lg_strided_slice_options d;
    const lg_strided_slice_options *o = lgc_opts(op, LG_OPTS_STRIDED_SLICE_OPTIONS, &d, sizeof d);
    if ((o->ellipsis_mask || o->new_axis_mask || o->shrink_axis_mask))
        lgc_add(c, R_STRIDED_SLICE_MASKS, x, NULL, "STRIDED_SLICE ellipsis_mask %d new_axis_mask %d shrink_axis_mask %d",
            o->ellipsis_mask, o->new_axis_mask, o->shrink_axis_mask);
    if (op->n_inputs >= 4 && op->inputs[3] >= 0 && c->is_const[op->inputs[3]]) {
        for (int64_t i = 0; i < lgc_numel_of(c, op->inputs[3]) && i < 8; i++) {
            int64_t s;
            if (lgc_const_int(c, op->inputs[3], (uint32_t)i, &s) && s <= 0) {
                lgc_add(c, s == 0 ? R_OP_PARAMS : R_STRIDED_SLICE_REVERSE, x, NULL,
                    s == 0 ? "STRIDED_SLICE stride 0 on axis %lld" : "Reverse slices are not supported: stride %lld on axis %lld",
                    s == 0 ? (long long)i : (long long)s, (long long)i);
                break;
            }
        }
    }
}

/* SLICE, STRIDED_SLICE. */
void lgc_rule_slice(ck *c, const opx *x) {
    const lg_op *op = x->op;
    int32_t code = x->code;
    char s1[64];
    int32_t in = op->n_inputs ? op->inputs[0] : -1;
    if (in < 0) return;
    uint32_t r = lgc_T(c, in)->rank;
    /* ML Drift checks SLICE in its own parser and STRIDED_SLICE with its own compat copy:
       both take rank 1-4 (rank-1/2 STRIDED_SLICE seen delegated and exact on WebGPU) */
    int ml = c->target == LG_TARGET_MLDRIFT, ml_slice = ml && code == LG_OP_SLICE;
    if (ml ? (r < 1 || r > 4) : (r != 3 && r != 4)) {
        lg_finding *f = lgc_add(c, R_SLICE_RANK, x, NULL, "%s input %s has rank %u (the GPU takes %s)", x->name,
                            lgc_shp(c, in, s1, sizeof s1), r, ml ? "1-4" : "3 or 4");
        lgc_with_tensor(f, in);
    }
    if (ml_slice && c->is_const[in]) lgc_add(c, R_OP_PARAMS, x, NULL, "%s input must be a runtime tensor", x->name);
    for (uint32_t k = 1; k < op->n_inputs; k++)
        lgc_need_static(c, x, k, k == 1 ? "begin" : k == 2 ? (code == LG_OP_SLICE ? "size" : "end") : "strides");
    if (code == LG_OP_STRIDED_SLICE) check_strided_slice(c, x);
}

void lgc_rule_transpose(ck *c, const opx *x) {
    const lg_op *op = x->op;
    lgc_need_io(c, x, 1, -1, 1);
    lgc_need_static(c, x, 1, "permutation");
    if (op->n_inputs >= 2 && op->inputs[1] >= 0) {
        int64_t n = lgc_numel_of(c, op->inputs[1]);
        if (n < 2 || n > 4) {
            lg_finding *f = lgc_add(c, R_TRANSPOSE_PERM, x, NULL, "TRANSPOSE permutation of length %lld", (long long)n);
            lgc_with_tensor(f, op->inputs[1]);
        }
    }
}

void lgc_rule_tile(ck *c, const opx *x) {
    lgc_need_io(c, x, 1, -1, 1);
    lgc_need_static(c, x, 1, "multiples");
}

void lgc_rule_gather(ck *c, const opx *x) {
    const lg_op *op = x->op;
    char s1[64];
    if (!((x->n_rt == 2 && x->n_const == 0) || (x->n_rt == 1 && x->n_const == 1)) || op->n_outputs != 1) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "GATHER has %d runtime and %d constant inputs", x->n_rt, x->n_const);
        return;
    }
    if (lgc_T(c, op->inputs[1])->rank != 1 || lgc_T(c, op->inputs[1])->type != LG_INT32) {
        lg_finding *f = lgc_add(c, R_OP_PARAMS, x, NULL, "GATHER indices %s %s: must be 1-D INT32",
                            lg_dtype_name(lgc_T(c, op->inputs[1])->type), lgc_shp(c, op->inputs[1], s1, sizeof s1));
        lgc_with_tensor(f, op->inputs[1]);
    } else if (c->is_const[op->inputs[1]] && lgc_numel_of(c, op->inputs[1]) >= 2) {
        lg_finding *f = lgc_add(c, R_GATHER_CONST_INDICES, x, NULL, "GATHER with %lld constant indices",
                            (long long)lgc_numel_of(c, op->inputs[1]));
        lgc_with_tensor(f, op->inputs[1]);
    }
    if (c->target == LG_TARGET_MLDRIFT && lgc_T(c, op->inputs[0])->type != lgc_T(c, op->outputs[0])->type)
        lgc_add(c, R_OP_PARAMS, x, NULL, "GATHER input and output types differ");
}

void lgc_rule_split_v(ck *c, const opx *x) {
    if (c->target == LG_TARGET_MLDRIFT && !(x->n_rt == 1 && x->n_const == 2))
        lgc_add(c, R_INPUT_COUNT, x, NULL, "SPLIT_V has %d runtime and %d constant inputs; ML Drift takes 1 + 2", x->n_rt, x->n_const);
}

/* DEPTH_TO_SPACE, SPACE_TO_DEPTH. */
void lgc_rule_space_depth(ck *c, const opx *x) {
    const lg_op *op = x->op;
    lgc_need_io(c, x, 1, 0, 1);
    int d2s = x->code == LG_OP_DEPTH_TO_SPACE;
    lg_opts_kind kind = d2s ? LG_OPTS_DEPTH_TO_SPACE_OPTIONS : LG_OPTS_SPACE_TO_DEPTH_OPTIONS;
    union { lg_depth_to_space_options d2s; lg_space_to_depth_options s2d; } d;
    int bs = d2s ? ((const lg_depth_to_space_options *)lgc_opts(op, kind, &d, sizeof d.d2s))->block_size
                 : ((const lg_space_to_depth_options *)lgc_opts(op, kind, &d, sizeof d.s2d))->block_size;
    char note[128], s1[64];
    if (bs <= 1)
        lgc_add(c, R_OP_PARAMS, x, NULL, "%s block_size %d: %s%s", x->name, bs, bs == 1 ? "is a no-op" : "must be > 1",
            lgc_opts_note(op, kind, note, sizeof note));
    /* seen on WebGPU: a batch above 1 computes zeros (rules.def webgpu-space-depth-batch) */
    int32_t in = op->n_inputs ? op->inputs[0] : -1;
    if (in >= 0 && lgc_T(c, in)->rank == 4 && lgc_T(c, in)->shape[0] > 1) {
        lg_finding *f = lgc_add(c, R_WEBGPU_SPACE_DEPTH_BATCH, x, NULL, "%s of %s: batch %d > 1 returns zeros on WebGPU",
                            x->name, lgc_shp(c, in, s1, sizeof s1), lgc_T(c, in)->shape[0]);
        lgc_with_tensor(f, in);
    }
}

/* RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR. */
void lgc_rule_resize(ck *c, const opx *x) {
    const lg_op *op = x->op;
    lgc_need_io(c, x, 1, -1, 1);
    lgc_need_static(c, x, 1, "size");
    if (x->code == LG_OP_RESIZE_BILINEAR) {
        lg_resize_bilinear_options d;
        const lg_resize_bilinear_options *o = lgc_opts(op, LG_OPTS_RESIZE_BILINEAR_OPTIONS, &d, sizeof d);
        if (o->align_corners && o->half_pixel_centers)
            lgc_add(c, R_RESIZE_FLAGS, x, NULL, "If half_pixel_centers is True, align_corners must be False.");
        else if (o->align_corners)
            lgc_add(c, R_RESIZE_ALIGN_CORNERS, x, NULL, "RESIZE_BILINEAR with align_corners=True");
    }
}

void lgc_rule_reverse_v2(ck *c, const opx *x) {
    lgc_need_io(c, x, 1, 1, 1);
    lgc_need_const_i32(c, x, 1, "axes");
}

void lgc_rule_dynamic_update_slice(ck *c, const opx *x) {
    const lg_op *op = x->op;
    if (x->n_in != 3) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "DYNAMIC_UPDATE_SLICE has %d inputs; the GPU takes 3", x->n_in);
        return;
    }
    if (c->target == LG_TARGET_MLDRIFT && c->is_const[op->inputs[2]])
        lgc_add(c, R_OP_PARAMS, x, NULL, "DYNAMIC_UPDATE_SLICE start indices must be a runtime tensor");
    if (lgc_T(c, op->inputs[0])->type != lgc_T(c, op->inputs[1])->type || lgc_T(c, op->inputs[1])->rank != lgc_T(c, op->inputs[0])->rank)
        lgc_add(c, R_OP_PARAMS, x, NULL, "DYNAMIC_UPDATE_SLICE operand and update must have the same type and rank");
    if (lgc_T(c, op->inputs[2])->rank != 1 || lgc_T(c, op->inputs[2])->type != LG_INT32)
        lgc_add(c, R_OP_PARAMS, x, NULL, "DYNAMIC_UPDATE_SLICE start indices must be 1-D INT32");
}

void lgc_rule_embedding_lookup(ck *c, const opx *x) {
    const lg_op *op = x->op;
    if (x->n_in != 2 || op->n_outputs != 1) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "EMBEDDING_LOOKUP has %d inputs; the GPU takes 2", x->n_in);
        return;
    }
    const lg_tensor *ids = lgc_T(c, op->inputs[0]), *val = lgc_T(c, op->inputs[1]), *out = lgc_T(c, op->outputs[0]);
    int ok = ids->rank == 1 && val->rank >= 2 && val->rank == out->rank;
    for (uint32_t i = 1; ok && i < val->rank; i++) ok = val->shape[i] == out->shape[i];
    int vt = val->type;
    if (!(vt == LG_INT8 || vt == LG_INT4 || vt == LG_INT2 || vt == LG_FLOAT32)) ok = 0;
    if (!ok) lgc_add(c, R_OP_PARAMS, x, NULL, "EMBEDDING_LOOKUP needs 1-D ids, a value table of rank >= 2 matching the output, of type FLOAT32/INT8/INT4/INT2");
    else if (c->target == LG_TARGET_MLDRIFT && vt != LG_FLOAT32 && (!val->quant || !val->quant->n_scale))
        lgc_add(c, R_OP_PARAMS, x, NULL, "EMBEDDING_LOOKUP: Empty quantization params (a %s table needs scales)", lg_dtype_name(vt));
}

void lgc_rule_broadcast_in_dim(ck *c, const opx *x) { lgc_need_io(c, x, 1, 1, -1); }
