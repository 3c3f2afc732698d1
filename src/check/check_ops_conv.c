/* Per-op rules of the convolutions, matrix products and pooling. See rules.def for each
   rule's source. */
#include <stdio.h>

#include "check/check_impl.h"

static void check_conv_like(ck *c, const opx *x) {
    if (x->n_rt < 1 || x->n_rt > 2 || x->op->n_outputs != 1) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "%s has %d runtime input(s) and %u output(s); convolutions take 1-2 runtime inputs and 1 output",
            x->name, x->n_rt, x->op->n_outputs);
    } else if (x->n_rt == 1 && (x->op->n_inputs < 2 || x->op->inputs[1] < 0)) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "%s has no weights input", x->name);
    }
}

void lgc_rule_conv_2d(ck *c, const opx *x) {
    const lg_op *op = x->op;
    check_conv_like(c, x);
    lg_conv2d_options d;
    const lg_conv2d_options *o = lgc_opts(op, LG_OPTS_CONV2D_OPTIONS, &d, sizeof d);
    char note[128];
    if (o->stride_h <= 0 || o->stride_w <= 0 || o->dilation_h_factor <= 0 || o->dilation_w_factor <= 0)
        lgc_add(c, R_OP_PARAMS, x, NULL, "CONV_2D stride %dx%d dilation %dx%d: must be > 0%s", o->stride_h, o->stride_w,
            o->dilation_h_factor, o->dilation_w_factor, lgc_opts_note(op, LG_OPTS_CONV2D_OPTIONS, note, sizeof note));
    if (c->target == LG_TARGET_MLDRIFT && op->n_inputs > 0 && op->inputs[0] >= 0 && c->is_const[op->inputs[0]])
        lgc_add(c, R_OP_PARAMS, x, NULL, "CONV_2D input must be a runtime tensor");
    if (c->target == LG_TARGET_CLASSIC && op->n_inputs >= 2 && op->inputs[1] >= 0 && op->inputs[0] >= 0 &&
        !c->is_const[op->inputs[1]]) {
        const lg_tensor *w = lgc_T(c, op->inputs[1]), *in = lgc_T(c, op->inputs[0]);
        if (w->rank == 4 && in->rank == 4 && w->shape[3] != in->shape[3])
            lgc_add(c, R_OP_PARAMS, x, NULL, "No support of CONVOLUTION_2D with runtime grouped weights (weights in-channels %d, input channels %d)",
                w->shape[3], in->shape[3]);
    }
}

void lgc_rule_depthwise_conv_2d(ck *c, const opx *x) {
    const lg_op *op = x->op;
    char s1[64], s2[64];
    check_conv_like(c, x);
    lg_depthwise_conv2d_options d;
    const lg_depthwise_conv2d_options *o = lgc_opts(op, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &d, sizeof d);
    char note[128];
    if (o->stride_h <= 0 || o->stride_w <= 0 || o->dilation_h_factor <= 0 || o->dilation_w_factor <= 0)
        lgc_add(c, R_OP_PARAMS, x, NULL, "DEPTHWISE_CONV_2D stride %dx%d dilation %dx%d: must be > 0%s", o->stride_h,
            o->stride_w, o->dilation_h_factor, o->dilation_w_factor,
            lgc_opts_note(op, LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, note, sizeof note));
    if (op->n_inputs < 2 || op->n_outputs < 1 || op->inputs[0] < 0 || op->inputs[1] < 0) return;
    const lg_tensor *in = lgc_T(c, op->inputs[0]), *w = lgc_T(c, op->inputs[1]), *out = lgc_T(c, op->outputs[0]);
    int dm = o->depth_multiplier; /* 0 (the default): not checked */
    const char *why = NULL;
    char buf[160];
    if (in->rank != 4 || w->rank != 4 || out->rank != 4) why = "input, filter and output must be rank 4";
    else if (in->shape[0] != out->shape[0]) why = "input and output batch differ";
    else if (w->shape[3] != out->shape[3]) why = "filter.dims[3] != output channels";
    else if (dm > 0 && out->shape[3] != in->shape[3] * dm) {
        snprintf(buf, sizeof buf, "output channels %d != input channels %d x depth_multiplier %d", out->shape[3], in->shape[3], dm);
        why = buf;
    } else if (op->n_inputs > 2 && op->inputs[2] >= 0 && lgc_numel_of(c, op->inputs[2]) != out->shape[3])
        why = "bias size != output channels";
    if (why) {
        lg_finding *f = lgc_add(c, R_DEPTHWISE_SHAPE, x, NULL, "DEPTHWISE_CONV_2D %s -> %s: %s", lgc_shp(c, op->inputs[0], s1, sizeof s1),
                            lgc_shp(c, op->outputs[0], s2, sizeof s2), why);
        lgc_with_tensor(f, op->inputs[0]);
        lgc_with_tensor(f, op->inputs[1]);
    }
}

void lgc_rule_transpose_conv(ck *c, const opx *x) {
    const lg_op *op = x->op;
    char s1[64], s2[64];
    if (x->n_in < 3) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "TRANSPOSE_CONV has %d inputs", x->n_in);
        return;
    }
    lg_transpose_conv_options d;
    const lg_transpose_conv_options *o = lgc_opts(op, LG_OPTS_TRANSPOSE_CONV_OPTIONS, &d, sizeof d);
    char note[128];
    if (o->stride_h <= 0 || o->stride_w <= 0)
        lgc_add(c, R_OP_PARAMS, x, NULL, "TRANSPOSE_CONV stride %dx%d must be > 0%s", o->stride_h, o->stride_w,
            lgc_opts_note(op, LG_OPTS_TRANSPOSE_CONV_OPTIONS, note, sizeof note));
    lgc_need_static(c, x, 0, "output shape");
    lg_finding *f = lgc_add(c, R_MALI_TRANSPOSE_CONV, x, NULL, "TRANSPOSE_CONV %s -> %s",
                        lgc_shp(c, op->inputs[2], s1, sizeof s1), op->n_outputs ? lgc_shp(c, op->outputs[0], s2, sizeof s2) : "?");
    lgc_with_tensor(f, op->inputs[2]);
}

void lgc_rule_fully_connected(ck *c, const opx *x) {
    const lg_op *op = x->op;
    lg_fully_connected_options d;
    const lg_fully_connected_options *o = lgc_opts(op, LG_OPTS_FULLY_CONNECTED_OPTIONS, &d, sizeof d);
    if (x->n_in < 1 || op->inputs[0] < 0) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "FULLY_CONNECTED has no input");
        return;
    }
    if (x->n_rt > 2) lgc_add(c, R_INPUT_COUNT, x, NULL, "FULLY_CONNECTED has %d runtime inputs; the GPU takes at most 2", x->n_rt);
    if (c->is_const[op->inputs[0]]) lgc_add(c, R_OP_PARAMS, x, NULL, "FULLY_CONNECTED input 0 is constant; it must be computed at run time");
    if (o->weights_format != 0) lgc_add(c, R_OP_PARAMS, x, NULL, "FULLY_CONNECTED weights_format %d is not DEFAULT", o->weights_format);
    if (o->keep_num_dims && op->n_outputs && lgc_T(c, op->inputs[0])->rank != lgc_T(c, op->outputs[0])->rank)
        lgc_add(c, R_OP_PARAMS, x, NULL, "FULLY_CONNECTED keep_num_dims needs input rank == output rank");
    if (c->target == LG_TARGET_CLASSIC && op->n_inputs >= 2 && op->inputs[1] >= 0) {
        const lg_tensor *in = lgc_T(c, op->inputs[0]), *w = lgc_T(c, op->inputs[1]);
        if (in->rank >= 1 && w->rank == 2 && in->shape[in->rank - 1] != w->shape[1])
            lgc_add(c, R_OP_PARAMS, x, NULL, "Amount of input channels should match weights width (%d vs %d)",
                in->shape[in->rank - 1], w->shape[1]);
    }
    lgc_rule_fc_runtime_weights(c, x);
}

void lgc_rule_batch_matmul(ck *c, const opx *x) {
    const lg_op *op = x->op;
    char s1[64];
    if (x->n_in != 2 || op->n_outputs != 1) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "BATCH_MATMUL has %d inputs and %u outputs; the GPU takes 2 and 1", x->n_in, op->n_outputs);
        return;
    }
    /* not a parser check: seen on WebGPU (rules.def identical-inputs) */
    if (c->target == LG_TARGET_MLDRIFT && op->inputs[0] >= 0 && op->inputs[0] == op->inputs[1]) {
        lg_finding *f = lgc_add(c, R_IDENTICAL_INPUTS, x, NULL,
                            "BATCH_MATMUL(x, x) on tensor %d \"%s\": webgpu-observed, not a parser check: ML "
                            "Drift never finishes it on WebGPU ([1,12,2,2] timed out), two distinct tensors run",
                            op->inputs[0], lgc_tname(c, op->inputs[0]));
        lgc_with_tensor(f, op->inputs[0]);
    }
    if (x->n_rt == 1) {
        int32_t b = op->inputs[1];
        if (!c->is_const[b]) {
            lgc_add(c, R_OP_PARAMS, x, NULL, "Not supported batched mat mul case: the constant operand must be the second input");
        } else {
            uint32_t r = lgc_T(c, b)->rank;
            int ok = c->target == LG_TARGET_CLASSIC ? r == 2 : (r >= 2 && r <= 4);
            if (!ok) {
                lg_finding *f = lgc_add(c, R_OP_PARAMS, x, NULL, "Not supported batched mat mul case: constant operand %s has rank %u (the %s delegate takes %s)",
                                    lgc_shp(c, b, s1, sizeof s1), r, lg_target_name(c->target),
                                    c->target == LG_TARGET_CLASSIC ? "rank 2" : "rank 2-4");
                lgc_with_tensor(f, b);
            }
        }
    } else if (x->n_rt != 2) {
        lgc_add(c, R_INPUT_COUNT, x, NULL, "BATCH_MATMUL with %d runtime inputs", x->n_rt);
    }
}

void lgc_rule_pool_2d(ck *c, const opx *x) {
    lgc_need_io(c, x, 1, 0, 1);
    lg_pool2d_options d;
    const lg_pool2d_options *o = lgc_opts(x->op, LG_OPTS_POOL2D_OPTIONS, &d, sizeof d);
    char note[128];
    if (o->filter_height <= 0 || o->filter_width <= 0 || o->stride_h <= 0 || o->stride_w <= 0)
        lgc_add(c, R_OP_PARAMS, x, NULL, "%s kernel %dx%d stride %dx%d: kernel and stride must be > 0%s", x->name,
            o->filter_height, o->filter_width, o->stride_h, o->stride_w,
            lgc_opts_note(x->op, LG_OPTS_POOL2D_OPTIONS, note, sizeof note));
}
