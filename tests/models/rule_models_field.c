/* The rule-trigger models (see rule_models.h), part 2: reductions, the field rules, CAST and
   comparisons, and the models of no one rule. Part 1 (rule_models.c) holds the data and the
   helpers. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rule_models.h"
#include "rule_models_impl.h"

/* ------------------------------------------------------------------ reductions */

/* op(x[in], constant INT32 axes) -> y[out], keep_dims false. */
static void reduce(lg_builder *b, int32_t op, lg_dims in, const int32_t *axes, uint32_t n_axes, lg_dims out) {
    lg_reducer_options ro = lgm_i_keep_dims(false);
    lg_dims ad = {(const int32_t[]){(int32_t)n_axes}, 1};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int ax = lg_b_const_i32(b, "axes", ad, axes);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    lg_b_op_opts(b, op, LG_IDS(x, ax), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

static const int32_t ax4 = 4, axm1 = -1, ax2 = 2, ax12[2] = {1, 2};

/* axis 4 of a rank-4 tensor: TFLite refuses (reduce.cc ResizeOutputTensor: "Invalid axis");
   y is written as if the last axis were reduced. */
void lgm_reduce_axes_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    reduce(b, LG_OP_MEAN, LG_DIMS(1, 8, 8, 4), &ax4, 1, LG_DIMS(1, 8, 8));
}

void lgm_reduce_axes_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    reduce(b, LG_OP_MEAN, LG_DIMS(1, 8, 8, 4), &axm1, 1, LG_DIMS(1, 8, 8));
}

/* MEAN/SUM over H,W of [1,256,256,8] (65536 elements per output) */
void lgm_large_multi_axis_reduce_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    reduce(b, LG_OP_MEAN, LG_DIMS(1, 256, 256, 8), ax12, 2, LG_DIMS(1, 8));
}

void lgm_large_multi_axis_reduce_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    reduce(b, LG_OP_SUM, LG_DIMS(1, 256, 256, 8), ax12, 2, LG_DIMS(1, 8));
}

/* 128 x 128 = 16384 elements */
void lgm_large_multi_axis_reduce_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    reduce(b, LG_OP_MEAN, LG_DIMS(1, 128, 128, 8), ax12, 2, LG_DIMS(1, 8));
}

/* one axis of 256 */
void lgm_large_multi_axis_reduce_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    reduce(b, LG_OP_MEAN, LG_DIMS(1, 256, 256, 8), &ax2, 1, LG_DIMS(1, 256, 8));
}

/* REDUCE_MAX */
void lgm_large_multi_axis_reduce_nearmiss3(lg_builder *b, lgm_io io) {
    (void)io;
    reduce(b, LG_OP_REDUCE_MAX, LG_DIMS(1, 256, 256, 8), ax12, 2, LG_DIMS(1, 8));
}

/* the fix: x.mean(2).mean(1) as two ops */
void lgm_large_multi_axis_reduce_nearmiss4(lg_builder *b, lgm_io io) {
    (void)io;
    lg_reducer_options ro = lgm_i_keep_dims(false);
    const int32_t a1 = 1;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 256, 256, 8));
    int a2t = lg_b_const_i32(b, "axis2", LG_DIMS(1), &ax2);
    int a1t = lg_b_const_i32(b, "axis1", LG_DIMS(1), &a1);
    int h = lg_b_tensor(b, "h", LG_FLOAT32, LG_DIMS(1, 256, 8));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(x, a2t), LG_IDS(h), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(h, a1t), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* ------------------------------------------------------------------ field rules */

void lgm_mali_transpose_conv_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_transpose_conv(b, LG_ACTIVATION_FUNCTION_TYPE_NONE, 0);
}

void lgm_mali_transpose_conv_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_transpose_conv(b, LG_ACTIVATION_FUNCTION_TYPE_NONE, 1);
}

void lgm_mali_transpose_conv_nearmiss(lg_builder *b, lgm_io io) { lgm_fused_activation_nearmiss4(b, io); }

/* MEAN (keep_dims, H,W: [1,1,1,4]) over constant latents (every input constant) added to
   x; near-miss: over RELU(x). */
static void const_only(lg_builder *b, int rt) {
    lg_reducer_options ro = lgm_i_keep_dims(true);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    int lat = rt ? lg_b_tensor(b, "h", LG_FLOAT32, LG_DIMS(1, 4, 4, 4)) : lg_b_const_f32(b, "latents", LG_DIMS(1, 4, 4, 4), lgm_i_wf);
    int ax = lg_b_const_i32(b, "axes", LG_DIMS(2), ax12);
    int mn = lg_b_tensor(b, "mean", LG_FLOAT32, LG_DIMS(1, 1, 1, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    if (rt) lg_b_op(b, LG_OP_RELU, LG_IDS(x), LG_IDS(lat));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(lat, ax), LG_IDS(mn), LG_OPTS_REDUCER_OPTIONS, &ro);
    lgm_i_binop(b, LG_OP_ADD, x, mn, y);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

void lgm_const_only_inputs_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    const_only(b, 0);
}

void lgm_const_only_inputs_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    const_only(b, 1);
}

/* PADV2 by 1 on H and W with value v ([1,10,10,4]) -> MAX_POOL_2D 3x3 VALID stride 1
   ((10 - 3) / 1 + 1 = 8: [1,8,8,4]). */
static void padv2_pool(lg_builder *b, float v) {
    lg_pool2d_options po;
    memset(&po, 0, sizeof po);
    po.padding = LG_PADDING_VALID;
    po.stride_w = po.stride_h = 1;
    po.filter_width = po.filter_height = 3;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int p = lg_b_const_i32(b, "paddings", LG_DIMS(4, 2), lgm_i_pad4_hw);
    int cv = lg_b_const_f32(b, "pad_value", LG_SCALAR, &v);
    int xp = lg_b_tensor(b, "xp", LG_FLOAT32, LG_DIMS(1, 10, 10, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_PADV2, LG_IDS(x, p, cv), LG_IDS(xp));
    lg_b_op_opts(b, LG_OP_MAX_POOL_2D, LG_IDS(xp), LG_IDS(y), LG_OPTS_POOL2D_OPTIONS, &po);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

void lgm_padv2_nonzero_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    padv2_pool(b, -INFINITY);
}

void lgm_padv2_nonzero_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    padv2_pool(b, 0.0f);
}

/* FULLY_CONNECTED [4,8] x [16,8]^T -> [4,16] (2-D), or with keep_num_dims [1,4,8] ->
   [1,4,16]; then MUL by a [1,1,16] LayerScale -> [1,4,16] (broadcast). */
static void fc_scale(lg_builder *b, int three_d) {
    lg_fully_connected_options fo;
    memset(&fo, 0, sizeof fo);
    fo.keep_num_dims = three_d;
    int x = three_d ? lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 8)) : lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(4, 8));
    int w = lg_b_const_f32(b, "w", LG_DIMS(16, 8), lgm_i_wf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(16), lgm_i_wf);
    int f = three_d ? lg_b_tensor(b, "f", LG_FLOAT32, LG_DIMS(1, 4, 16)) : lg_b_tensor(b, "f", LG_FLOAT32, LG_DIMS(4, 16));
    int g = lg_b_const_f32(b, "gamma", LG_DIMS(1, 1, 16), lgm_i_wf + 100);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 16));
    lg_b_op_opts(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w, bi), LG_IDS(f), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lgm_i_binop(b, LG_OP_MUL, f, g, y);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

void lgm_fc_2d_broadcast_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    fc_scale(b, 0);
}

void lgm_fc_2d_broadcast_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    fc_scale(b, 1);
}

/* x[1,4] -> TANH x n -> y (op i reads op i-1's output); with skip, op 6 is ADD(a5, a0). */
static void tanh_chain(lg_builder *b, int n, int skip) {
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int prev = x, a0 = -1;
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "a%d", i);
        int t = lg_b_tensor(b, name, LG_FLOAT32, LG_DIMS(1, 4));
        if (skip && i == 6) lgm_i_binop(b, LG_OP_ADD, prev, a0, t);
        else lg_b_op(b, LG_OP_TANH, LG_IDS(prev), LG_IDS(t));
        if (i == 0) a0 = t;
        prev = t;
    }
    lg_b_io(b, LG_IDS(x), LG_IDS(prev));
}

/* 10 ops, checked with --max-gpu-ops 4 (check_args): a chain over the default limit (1001
   ops) is fully delegated on WebGPU too, but SwiftShader spends ~85 s compiling its shaders,
   too slow for a test. The near-miss is the same chain under the default limit. */
void lgm_graph_size_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    tanh_chain(b, 10, 0);
}

/* the chain with a skip connection a0 -> op 6 */
void lgm_graph_size_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    tanh_chain(b, 10, 1);
}

void lgm_graph_size_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    tanh_chain(b, 10, 0);
}

/* ------------------------------------------------------------------ CAST and comparisons */

/* x[1,8,8,4] of type in -> CAST -> y of type out; with LGM_IO_LITERT an input or output
   that is neither float32 nor int32 is converted from/to float32 by another CAST. */
static void cast(lg_builder *b, lgm_io io, lg_dtype in, lg_dtype out) {
    int xin, yout;
    int x = lgm_i_typed_input(b, io, "x", in, LG_DIMS(1, 8, 8, 4), &xin);
    int h = lgm_i_typed_output(b, io, "y", out, LG_DIMS(1, 8, 8, 4), &yout);
    lg_b_op(b, LG_OP_CAST, LG_IDS(x), LG_IDS(h));
    int y = lgm_i_typed_output_end(b, "y", h, yout, LG_DIMS(1, 8, 8, 4));
    lg_b_io(b, LG_IDS(xin), LG_IDS(y));
}

/* x -> CMP(x, 0.5) -> n_casts x CAST(bool -> f32) [-> RELU when relu_after]; with no CAST
   the bool mask is the graph output. */
static void compare_chain(lg_builder *b, int32_t cmp, int n_casts, int relu_after) {
    const float half = 0.5f;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int th = lg_b_const_f32(b, "threshold", LG_DIMS(1), &half);
    int c = lg_b_tensor(b, "mask", LG_BOOL, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, cmp, LG_IDS(x, th), LG_IDS(c));
    int outs[2] = {c, c};
    for (int i = 0; i < n_casts; i++) {
        int f = lg_b_tensor(b, i ? "maskf2" : "maskf", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
        lg_b_op(b, LG_OP_CAST, LG_IDS(c), LG_IDS(f));
        outs[i] = f;
        if (relu_after) {
            int r = lg_b_tensor(b, i ? "r2" : "r", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
            lg_b_op(b, LG_OP_RELU, LG_IDS(f), LG_IDS(r));
            outs[i] = r;
        }
    }
    if (n_casts == 2) lg_b_io(b, LG_IDS(x), LG_IDS(outs[0], outs[1]));
    else lg_b_io(b, LG_IDS(x), LG_IDS(outs[0]));
}

/* cast-types and compare-consumer are classic-only: ML Drift skips the compatibility check
   for CAST and has no comparison-consumer rule, so every model of theirs is an ML Drift
   near-miss; the unit test asserts the classic triggers on them. */

/* FLOAT16 -> CAST -> INT32 (classic: "Not supported Cast case"); LGM_IO_LITERT: the FLOAT16
   made from a float32 input by a CAST first. */
void lgm_cast_types_nearmiss(lg_builder *b, lgm_io io) { cast(b, io, LG_FLOAT16, LG_INT32); }

/* INT32 graph input -> CAST -> f32 */
void lgm_cast_types_nearmiss2(lg_builder *b, lgm_io io) { cast(b, io, LG_INT32, LG_FLOAT32); }

/* LESS -> CAST -> graph output (classic: "Cast from bool not supported for outputs") */
void lgm_cast_types_nearmiss3(lg_builder *b, lgm_io io) {
    (void)io;
    compare_chain(b, LG_OP_LESS, 1, 0);
}

/* BOOL graph input -> CAST -> f32 (classic: a cast from bool must read a comparison) */
void lgm_cast_types_nearmiss4(lg_builder *b, lgm_io io) { cast(b, io, LG_BOOL, LG_FLOAT32); }

/* LESS -> CAST -> RELU: fine on both */
void lgm_cast_types_nearmiss5(lg_builder *b, lgm_io io) {
    (void)io;
    compare_chain(b, LG_OP_LESS, 1, 1);
}

/* GREATER feeding two CASTs (classic: "Not supported logical op case") */
void lgm_compare_consumer_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    compare_chain(b, LG_OP_GREATER, 2, 1);
}

/* the comparison's bool output is the graph output */
void lgm_compare_consumer_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    compare_chain(b, LG_OP_GREATER, 0, 0);
}

/* GREATER -> one CAST to f32 -> RELU: fine on both (= field-banned-op's trigger3) */
void lgm_compare_consumer_nearmiss3(lg_builder *b, lgm_io io) {
    (void)io;
    compare_chain(b, LG_OP_GREATER, 1, 1);
}

/* ------------------------------------------------------------------ int64-tensor, gather-const-indices, field-banned-op */

/* f32 -> CAST -> INT64 (LGM_IO_LITERT: -> CAST -> f32, LiteRT.js takes no INT64 output). */
void lgm_int64_tensor_trigger(lg_builder *b, lgm_io io) { cast(b, io, LG_FLOAT32, LG_INT64); }
void lgm_int64_tensor_nearmiss(lg_builder *b, lgm_io io) { cast(b, io, LG_FLOAT32, LG_INT32); }

/* GATHER on channels after a RELU: two constant indices {0, 2} */
void lgm_gather_const_indices_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_gather_channels(b, lgm_i_idx02, 2, 0);
}

/* x[in] -> GATHER(axis, constant indices {0, 2}) -> y[out], straight from the graph input. */
static void gather2(lg_builder *b, int axis, lg_dims in, lg_dims out) {
    lg_gather_options go = {axis, 0};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, in);
    int i = lg_b_const_i32(b, "idx", LG_DIMS(2), lgm_i_idx02);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, out);
    lg_b_op_opts(b, LG_OP_GATHER, LG_IDS(x, i), LG_IDS(y), LG_OPTS_GATHER_OPTIONS, &go);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* rows of a 2-D tensor; spatial (H) axis of a 4-D one */
void lgm_gather_const_indices_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    gather2(b, 0, LG_DIMS(8, 4), LG_DIMS(2, 4));
}

void lgm_gather_const_indices_trigger3(lg_builder *b, lgm_io io) {
    (void)io;
    gather2(b, 1, LG_DIMS(1, 8, 8, 4), LG_DIMS(1, 2, 8, 4));
}

/* one constant index {0}; runtime indices [2] */
void lgm_gather_const_indices_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_gather_channels(b, lgm_i_idx02, 1, 0);
}

void lgm_gather_const_indices_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_gather_channels(b, NULL, 2, 1);
}

/* SPLIT [1,4,4,8] in two along channels (the GLU form: [1,4,4,4] each), one half through a
   RELU. */
void lgm_field_banned_op_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    int32_t axis_v[1] = {3};
    lg_split_options so = {2};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, 8));
    int ax = lg_b_const_i32(b, "axis", LG_SCALAR, axis_v);
    int a = lg_b_tensor(b, "a", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    int g = lg_b_tensor(b, "g", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    lg_b_op_opts(b, LG_OP_SPLIT, LG_IDS(ax, x), LG_IDS(a, g), LG_OPTS_SPLIT_OPTIONS, &so);
    lg_b_op(b, LG_OP_RELU, LG_IDS(a), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y, g));
}

/* TOPK_V2 of [1,8], k = 2: values [1,2] and INT32 indices [1,2]. */
void lgm_field_banned_op_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    int32_t kv[1] = {2};
    int in = lg_b_tensor(b, "in", LG_FLOAT32, LG_DIMS(1, 8));
    int kk = lg_b_const_i32(b, "k", LG_SCALAR, kv);
    int v = lg_b_tensor(b, "v", LG_FLOAT32, LG_DIMS(1, 2));
    int ix = lg_b_tensor(b, "i", LG_INT32, LG_DIMS(1, 2));
    lg_b_op(b, LG_OP_TOPK_V2, LG_IDS(in, kk), LG_IDS(v, ix));
    lg_b_io(b, LG_IDS(in), LG_IDS(v, ix));
}

/* x -> GREATER(x, 0.5) -> CAST(bool -> f32) -> RELU: a comparison feeding one CAST. */
void lgm_field_banned_op_trigger3(lg_builder *b, lgm_io io) { lgm_compare_consumer_nearmiss3(b, io); }

void lgm_field_banned_op_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    lgm_i_unary(b, LG_OP_RELU, 1, LG_FLOAT32, LG_DIMS(1, 8));
}

/* ------------------------------------------------------------------ webgpu-space-depth-batch */

/* DEPTH_TO_SPACE (block 2) of x[n,2,2,12] -> [n,4,4,3], or SPACE_TO_DEPTH (block 2) of
   x[n,4,4,3] -> [n,2,2,12] (depth_to_space.cc / space_to_depth.cc: H and W times / by the
   block, C by / times its square). */
static void space_depth(lg_builder *b, int s2d, int n) {
    lg_depth_to_space_options d2 = {2};
    lg_space_to_depth_options s2 = {2};
    int x = s2d ? lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(n, 4, 4, 3)) : lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(n, 2, 2, 12));
    int y = s2d ? lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(n, 2, 2, 12)) : lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(n, 4, 4, 3));
    if (s2d) lg_b_op_opts(b, LG_OP_SPACE_TO_DEPTH, LG_IDS(x), LG_IDS(y), LG_OPTS_SPACE_TO_DEPTH_OPTIONS, &s2);
    else lg_b_op_opts(b, LG_OP_DEPTH_TO_SPACE, LG_IDS(x), LG_IDS(y), LG_OPTS_DEPTH_TO_SPACE_OPTIONS, &d2);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* batch 2: zeros on WebGPU */
void lgm_webgpu_space_depth_batch_trigger(lg_builder *b, lgm_io io) {
    (void)io;
    space_depth(b, 0, 2);
}

void lgm_webgpu_space_depth_batch_trigger2(lg_builder *b, lgm_io io) {
    (void)io;
    space_depth(b, 1, 2);
}

/* batch 1: exact */
void lgm_webgpu_space_depth_batch_nearmiss(lg_builder *b, lgm_io io) {
    (void)io;
    space_depth(b, 0, 1);
}

void lgm_webgpu_space_depth_batch_nearmiss2(lg_builder *b, lgm_io io) {
    (void)io;
    space_depth(b, 1, 1);
}

/* ------------------------------------------------------------------ models of no one rule */

/* A clean small CNN: CONV_2D 3x3 SAME [1,8,8,3] -> [1,8,8,4] (RELU6) -> MEAN H,W [1,4] ->
   FULLY_CONNECTED [10,4] -> [1,10] -> SOFTMAX. */
void lgm_clean_cnn(lg_builder *b, lgm_io io) {
    (void)io;
    lg_conv2d_options o = lgm_i_conv_opts(LG_ACTIVATION_FUNCTION_TYPE_RELU6);
    lg_reducer_options ro = lgm_i_keep_dims(false);
    lg_fully_connected_options fo;
    memset(&fo, 0, sizeof fo);
    lg_softmax_options so = {1.0f};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 3));
    int w = lg_b_const_f32(b, "w", LG_DIMS(4, 3, 3, 3), lgm_i_wf);
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(4), lgm_i_wf);
    int c = lg_b_tensor(b, "c", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int ax = lg_b_const_i32(b, "axes", LG_DIMS(2), ax12);
    int mn = lg_b_tensor(b, "mean", LG_FLOAT32, LG_DIMS(1, 4));
    int fw = lg_b_const_f32(b, "fc_w", LG_DIMS(10, 4), lgm_i_wf);
    int fb = lg_b_const_f32(b, "fc_b", LG_DIMS(10), lgm_i_wf);
    int lg = lg_b_tensor(b, "logits", LG_FLOAT32, LG_DIMS(1, 10));
    int y = lg_b_tensor(b, "probs", LG_FLOAT32, LG_DIMS(1, 10));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(c), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(c, ax), LG_IDS(mn), LG_OPTS_REDUCER_OPTIONS, &ro);
    lg_b_op_opts(b, LG_OP_FULLY_CONNECTED, LG_IDS(mn, fw, fb), LG_IDS(lg), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_op_opts(b, LG_OP_SOFTMAX, LG_IDS(lg), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}

/* DEQUANTIZE of an INT8 constant (scale 0.05) as CONV_2D weights: a real op, not folded. */
void lgm_dequantize_int8_conv(lg_builder *b, lgm_io io) {
    (void)io;
    int8_t w8[4 * 3 * 3 * 4];
    const float sc = 0.05f;
    for (int i = 0; i < (int)sizeof w8; i++) w8[i] = (int8_t)((i * 37) % 17 - 8);
    lg_conv2d_options o = lgm_i_conv_opts(0);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int wq = lg_b_const(b, "w8", LG_INT8, LG_DIMS(4, 3, 3, 4), w8, sizeof w8);
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(4, 3, 3, 4));
    int bi = lg_b_const_f32(b, "bias", LG_DIMS(4), lgm_i_wf);
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(wq), LG_IDS(w));
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, w, bi), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &o);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    lgm_i_quant(b, wq, &sc, 1, 0);
}

/* examples/make_examples.c's layernorm_512 (channel LayerNorm) with the input mapped in the
   graph to x * 350 - 175 (MUL then ADD by constants), so a [0, 1) fill reaches |x| ~ 175
   (the NAFNet fp16 case); for the delegate's fp16 numerics comparison. */
void lgm_fp16_layernorm(lg_builder *b, lgm_io io) {
    (void)io;
    enum { C = 512 };
    static float gamma[C], beta[C];
    for (int i = 0; i < C; i++) {
        gamma[i] = 1.0f + (float)(i % 7) / 16.0f;
        beta[i] = (float)(i % 5) / 32.0f;
    }
    int32_t axis_v[1] = {3};
    float eps_v = 1e-6f, scale_v = 350.0f, shift_v = -175.0f;
    lg_reducer_options keep = {true};
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int scale = lg_b_const_f32(b, "in/scale", LG_DIMS(1), &scale_v);
    int shift = lg_b_const_f32(b, "in/shift", LG_DIMS(1), &shift_v);
    int xs = lg_b_tensor(b, "in/scaled", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int xa = lg_b_tensor(b, "in/act", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int ax = lg_b_const_i32(b, "ln/axis", LG_DIMS(1), axis_v);
    int eps = lg_b_const_f32(b, "ln/eps", LG_DIMS(1), &eps_v);
    int g = lg_b_const_f32(b, "ln/gamma", LG_DIMS(C), gamma);
    int be = lg_b_const_f32(b, "ln/beta", LG_DIMS(C), beta);
    int mu = lg_b_tensor(b, "ln/mean", LG_FLOAT32, LG_DIMS(1, 4, 4, 1));
    int d = lg_b_tensor(b, "ln/centered", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int sq = lg_b_tensor(b, "ln/squared", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int var = lg_b_tensor(b, "ln/variance", LG_FLOAT32, LG_DIMS(1, 4, 4, 1));
    int ve = lg_b_tensor(b, "ln/variance_eps", LG_FLOAT32, LG_DIMS(1, 4, 4, 1));
    int r = lg_b_tensor(b, "ln/rstd", LG_FLOAT32, LG_DIMS(1, 4, 4, 1));
    int nrm = lg_b_tensor(b, "ln/normalized", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int sc = lg_b_tensor(b, "ln/scaled", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, C));
    lgm_i_binop(b, LG_OP_MUL, x, scale, xs);
    lgm_i_binop(b, LG_OP_ADD, xs, shift, xa);
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(xa, ax), LG_IDS(mu), LG_OPTS_REDUCER_OPTIONS, &keep);
    lg_b_op(b, LG_OP_SUB, LG_IDS(xa, mu), LG_IDS(d));
    lg_b_op(b, LG_OP_MUL, LG_IDS(d, d), LG_IDS(sq));
    lg_b_op_opts(b, LG_OP_MEAN, LG_IDS(sq, ax), LG_IDS(var), LG_OPTS_REDUCER_OPTIONS, &keep);
    lg_b_op(b, LG_OP_ADD, LG_IDS(var, eps), LG_IDS(ve));
    lg_b_op(b, LG_OP_RSQRT, LG_IDS(ve), LG_IDS(r));
    lg_b_op(b, LG_OP_MUL, LG_IDS(d, r), LG_IDS(nrm));
    lg_b_op(b, LG_OP_MUL, LG_IDS(nrm, g), LG_IDS(sc));
    lg_b_op(b, LG_OP_ADD, LG_IDS(sc, be), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
}
