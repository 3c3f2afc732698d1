/* lg_tile_analyze / lg_tile_verify (lg/tile.h) on builder-made stacks. Every expected value is
   hand arithmetic, written next to the check. Backward recursion from one output position:
   a layer with kernel k, stride s, dilation d, padding before p maps output [a,b] to input
   [a*s - p, b*s - p + (k-1)*d]; RF = hi - lo + 1; jump J = product of strides; halo left =
   o*J - lo, right = hi - o*J. TFLite SAME: p = max((out-1)*s + (k-1)*d + 1 - in, 0) / 2. */
#include "tf.h"

#include <stdlib.h>

#include "lg/lg.h"
#include "lg/tile.h"

typedef struct stk {
    lg_model *m;
    lg_builder b;
    int32_t cur;      /* the current activation tensor */
    int32_t h, w, c;  /* its shape [1,h,w,c] */
    int n;
} stk;

static void stk_new(stk *s, int32_t h, int32_t w, int32_t c) {
    lg_error err;
    CHECK_OK(lg_model_new(NULL, NULL, &s->m, &err), &err);
    lg_builder_init(&s->b, s->m, 0);
    s->h = h; s->w = w; s->c = c; s->n = 0;
    s->cur = lg_b_tensor(&s->b, "x", LG_FLOAT32, LG_DIMS(1, h, w, c));
}

static float *weights(int n, int seed) {
    float *v = malloc(sizeof(float) * (size_t)n);
    uint32_t st = (uint32_t)seed * 2654435761u + 1;
    for (int i = 0; i < n; i++) {
        st = st * 1664525u + 1013904223u;
        v[i] = (float)((st >> 8) & 0xffff) / 65536.0f - 0.5f;
    }
    return v;
}

static int32_t out_size(int32_t in, int32_t k, int32_t s, int32_t d, bool same) {
    return same ? (in + s - 1) / s : (in - (k - 1) * d - 1) / s + 1;
}

/* conv k x k (kh x kw), stride s, dilation d, SAME or VALID, cout channels */
static void stk_conv(stk *s, int32_t kh, int32_t kw, int32_t st, int32_t d, bool same, int32_t cout) {
    char nm[32];
    float *wv = weights(cout * kh * kw * s->c, ++s->n), *bv = weights(cout, 100 + s->n);
    snprintf(nm, sizeof nm, "w%d", s->n);
    int wt = lg_b_const_f32(&s->b, nm, LG_DIMS(cout, kh, kw, s->c), wv);
    snprintf(nm, sizeof nm, "b%d", s->n);
    int bt = lg_b_const_f32(&s->b, nm, LG_DIMS(cout), bv);
    int32_t oh = out_size(s->h, kh, st, d, same), ow = out_size(s->w, kw, st, d, same);
    snprintf(nm, sizeof nm, "y%d", s->n);
    int y = lg_b_tensor(&s->b, nm, LG_FLOAT32, LG_DIMS(1, oh, ow, cout));
    lg_conv2d_options co;
    lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &co, sizeof co);
    co.padding = same ? LG_PADDING_SAME : LG_PADDING_VALID;
    co.stride_h = co.stride_w = st;
    co.dilation_h_factor = co.dilation_w_factor = d;
    co.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_RELU;
    lg_b_op_opts(&s->b, LG_OP_CONV_2D, LG_IDS(s->cur, wt, bt), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &co);
    free(wv);
    free(bv);
    s->cur = y; s->h = oh; s->w = ow; s->c = cout;
}

static void stk_pool(stk *s, int32_t k, int32_t st, bool same) {
    char nm[32];
    snprintf(nm, sizeof nm, "p%d", ++s->n);
    int32_t oh = out_size(s->h, k, st, 1, same), ow = out_size(s->w, k, st, 1, same);
    int y = lg_b_tensor(&s->b, nm, LG_FLOAT32, LG_DIMS(1, oh, ow, s->c));
    lg_pool2d_options po;
    lg_opts_init(LG_OPTS_POOL2D_OPTIONS, &po, sizeof po);
    po.padding = same ? LG_PADDING_SAME : LG_PADDING_VALID;
    po.stride_h = po.stride_w = st;
    po.filter_height = po.filter_width = k;
    lg_b_op_opts(&s->b, LG_OP_MAX_POOL_2D, LG_IDS(s->cur), LG_IDS(y), LG_OPTS_POOL2D_OPTIONS, &po);
    s->cur = y; s->h = oh; s->w = ow;
}

/* a binary op with a constant of shape cshape (broadcast) */
static void stk_binary_const(stk *s, int32_t code, lg_dims cshape) {
    char nm[32];
    int64_t n = 1;
    for (uint32_t i = 0; i < cshape.n; i++) n *= cshape.v[i];
    float *v = weights((int)n, 50 + s->n);
    snprintf(nm, sizeof nm, "k%d", ++s->n);
    int k = lg_b_const_f32(&s->b, nm, cshape, v);
    snprintf(nm, sizeof nm, "e%d", s->n);
    int y = lg_b_tensor(&s->b, nm, LG_FLOAT32, LG_DIMS(1, s->h, s->w, s->c));
    lg_b_op(&s->b, code, LG_IDS(s->cur, k), LG_IDS(y));
    free(v);
    s->cur = y;
}

/* MEAN over axes, keep_dims; then SUB from the activation (a norm's centring) */
static void stk_mean_sub(stk *s, lg_dims axes) {
    char nm[32];
    snprintf(nm, sizeof nm, "ax%d", ++s->n);
    int ax = lg_b_const_i32(&s->b, nm, LG_DIMS((int32_t)axes.n), axes.v);
    int32_t mh = s->h, mw = s->w, mc = s->c;
    for (uint32_t i = 0; i < axes.n; i++) {
        if (axes.v[i] == 1) mh = 1;
        if (axes.v[i] == 2) mw = 1;
        if (axes.v[i] == 3) mc = 1;
    }
    snprintf(nm, sizeof nm, "mean%d", s->n);
    int mt = lg_b_tensor(&s->b, nm, LG_FLOAT32, LG_DIMS(1, mh, mw, mc));
    lg_reducer_options ro = {.keep_dims = true};
    lg_b_op_opts(&s->b, LG_OP_MEAN, LG_IDS(s->cur, ax), LG_IDS(mt), LG_OPTS_REDUCER_OPTIONS, &ro);
    snprintf(nm, sizeof nm, "sub%d", s->n);
    int y = lg_b_tensor(&s->b, nm, LG_FLOAT32, LG_DIMS(1, s->h, s->w, s->c));
    lg_b_op(&s->b, LG_OP_SUB, LG_IDS(s->cur, mt), LG_IDS(y));
    s->cur = y;
}

/* PAD along axis 2 (W) only: before, after */
static void stk_pad_w(stk *s, int32_t before, int32_t after) {
    char nm[32];
    snprintf(nm, sizeof nm, "pads%d", ++s->n);
    int pc = lg_b_const_i32(&s->b, nm, LG_DIMS(4, 2), (const int32_t[]){0, 0, 0, 0, before, after, 0, 0});
    snprintf(nm, sizeof nm, "pad%d", s->n);
    int y = lg_b_tensor(&s->b, nm, LG_FLOAT32, LG_DIMS(1, s->h, s->w + before + after, s->c));
    lg_b_op(&s->b, LG_OP_PAD, LG_IDS(s->cur, pc), LG_IDS(y));
    s->cur = y;
    s->w += before + after;
}

static lg_tile_report *stk_analyze(stk *s) {
    lg_b_io(&s->b, LG_IDS(0), LG_IDS(s->cur));
    CHECK_EQ_INT(s->b.status, LG_OK);
    if (s->b.status != LG_OK) { puts(s->b.err.msg); return NULL; }
    lg_tile_report *r = NULL;
    lg_error err;
    CHECK_OK(lg_tile_analyze(s->m, &r, &err), &err);
    if (r) CHECK_EQ_INT(r->n_outputs, 1);
    return r;
}

static void check_axis(const lg_tile_axis *a, int rf, int jn, int jd, int hl, int hr) {
    CHECK_EQ_INT(a->rf, rf);
    CHECK_EQ_INT(a->jump_num, jn);
    CHECK_EQ_INT(a->jump_den, jd);
    CHECK_EQ_INT(a->halo_left, hl);
    CHECK_EQ_INT(a->halo_right, hr);
}

static void verify_max(stk *s, lg_tile_report *r, int32_t tile, double *max_abs, uint32_t *n_tiles) {
    lg_tile_verify_options vo;
    memset(&vo, 0, sizeof vo);
    for (int a = 0; a < LG_TILE_MAX_AXES; a++) vo.tile[a] = tile;
    lg_tile_verify_result vr;
    lg_error err;
    *max_abs = -1;
    CHECK_OK(lg_tile_verify(s->m, r, &vo, &vr, &err), &err);
    *max_abs = vr.max_abs;
    *n_tiles = vr.n_tiles;
}

LG_TEST(tile_three_3x3_convs) {
    /* three 3x3 stride-1 SAME convs: each pads 1 before (total (16-1)+2+1-16 = 2, /2 = 1);
       output o -> [o-1, o+1] -> [o-2, o+2] -> [o-3, o+3]: RF 1+2+2+2 = 7, halo 3/3, jump 1 */
    stk s;
    stk_new(&s, 16, 16, 2);
    for (int i = 0; i < 3; i++) stk_conv(&s, 3, 3, 1, 1, true, 3);
    lg_tile_report *r = stk_analyze(&s);
    if (r) {
        const lg_tile_output *o = &r->outputs[0];
        CHECK(o->exact);
        CHECK_EQ_INT(o->first, -1);
        CHECK_EQ_INT(o->n_axes, 2);
        check_axis(&o->axes[0], 7, 1, 1, 3, 3);
        check_axis(&o->axes[1], 7, 1, 1, 3, 3);
        CHECK(!o->streaming);
        /* a 4x4 tile at (4,4) needs rows 4-3 .. 7+3 = [1,10]: (4-1)*1 + 7 = 10 */
        int32_t o0[2] = {4, 4}, n[2] = {4, 4}, lo[2], hi[2];
        lg_error err;
        CHECK_OK(lg_tile_input_crop(s.m, r, 0, o0, n, lo, hi, &err), &err);
        CHECK_EQ_INT(lo[0], 1);
        CHECK_EQ_INT(hi[0], 10);
        /* the tiled run with that halo reproduces the full output (16 tiles of 4x4) */
        double mx;
        uint32_t nt;
        verify_max(&s, r, 4, &mx, &nt);
        CHECK_EQ_INT(nt, 16);
        CHECK(mx >= 0 && mx <= 1e-6);
        verify_max(&s, r, 3, &mx, &nt); /* 6 x 6 tiles, the last ones partial (16 = 5*3 + 1) */
        CHECK_EQ_INT(nt, 36);
        CHECK(mx >= 0 && mx <= 1e-6);
    }
    lg_tile_report_free(r);
    lg_model_free(s.m);
}

LG_TEST(tile_stride2_then_3x3) {
    /* 3x3 s2 SAME on 16 -> 8 (total (8-1)*2+3-16 = 1, pad before 0), then 3x3 s1 SAME (pad 1):
       o -> [o-1, o+1] -> [2(o-1), 2(o+1)+2] = [2o-2, 2o+4]: RF 7, jump 2, halo 2 left / 4 right */
    stk s;
    stk_new(&s, 16, 16, 1);
    stk_conv(&s, 3, 3, 2, 1, true, 2);
    stk_conv(&s, 3, 3, 1, 1, true, 2);
    lg_tile_report *r = stk_analyze(&s);
    if (r) {
        const lg_tile_output *o = &r->outputs[0];
        CHECK(o->exact);
        check_axis(&o->axes[0], 7, 2, 1, 2, 4);
        CHECK_EQ_INT(o->axes[0].out_size, 8);
        /* input tile of a 3-wide output tile: (3-1)*2 + 7 = 11 */
        int32_t o0[2] = {2, 2}, n[2] = {3, 3}, lo[2], hi[2];
        lg_error err;
        CHECK_OK(lg_tile_input_crop(s.m, r, 0, o0, n, lo, hi, &err), &err);
        CHECK_EQ_INT(hi[0] - lo[0] + 1, 11);
        CHECK_EQ_INT(lo[0], 2); /* 2*2 - 2 */
        double mx;
        uint32_t nt;
        verify_max(&s, r, 3, &mx, &nt);
        CHECK_EQ_INT(nt, 9);
        CHECK(mx >= 0 && mx <= 1e-6);
    }
    lg_tile_report_free(r);
    lg_model_free(s.m);
}

LG_TEST(tile_dilation_and_pool) {
    /* 3x3 dilation 2 SAME: (k-1)*d = 4, RF 5 per layer; two layers: 1 + 4 + 4 = 9, halo 4/4 */
    stk s;
    stk_new(&s, 16, 16, 1);
    stk_conv(&s, 3, 3, 1, 2, true, 1);
    lg_tile_report *r = stk_analyze(&s);
    if (r) check_axis(&r->outputs[0].axes[0], 5, 1, 1, 2, 2);
    lg_tile_report_free(r);
    lg_model_free(s.m);
    stk_new(&s, 16, 16, 1);
    stk_conv(&s, 3, 3, 1, 2, true, 1);
    stk_conv(&s, 3, 3, 1, 2, true, 1);
    r = stk_analyze(&s);
    if (r) check_axis(&r->outputs[0].axes[1], 9, 1, 1, 4, 4);
    lg_tile_report_free(r);
    lg_model_free(s.m);
    /* max pool 2x2 s2 VALID, then 3x3 SAME: o -> [o-1, o+1] -> [2o-2, 2o+3]: RF 6, jump 2,
       halo 2 left / 3 right; a padded (SAME) 3x3/2 max pool after a 3x3 conv verifies too */
    stk_new(&s, 16, 16, 1);
    stk_pool(&s, 2, 2, false);
    stk_conv(&s, 3, 3, 1, 1, true, 1);
    r = stk_analyze(&s);
    if (r) {
        CHECK(r->outputs[0].exact);
        check_axis(&r->outputs[0].axes[0], 6, 2, 1, 2, 3);
    }
    lg_tile_report_free(r);
    lg_model_free(s.m);
    stk_new(&s, 15, 15, 1);
    stk_conv(&s, 3, 3, 1, 1, true, 2);
    stk_pool(&s, 3, 2, true); /* 15 -> 8: total (8-1)*2+3-15 = 2, pad 1: [2o-1, 2o+1] */
    r = stk_analyze(&s);
    if (r) {
        /* conv: [2o-2, 2o+2]: RF 5, jump 2, halo 2/2 */
        check_axis(&r->outputs[0].axes[0], 5, 2, 1, 2, 2);
        double mx;
        uint32_t nt;
        verify_max(&s, r, 3, &mx, &nt);
        CHECK(mx >= 0 && mx <= 1e-6);
    }
    lg_tile_report_free(r);
    lg_model_free(s.m);
}

LG_TEST(tile_transpose_conv) {
    /* TRANSPOSE_CONV kernel 3, stride 2, VALID, 8 -> (8-1)*2+3 = 17: output o = 2i + j, j < 3,
       so i in [ceil((o-2)/2), floor(o/2)]: o even -> 2 inputs, odd -> 1: RF 2; lo(0) = -1,
       lo(16) = 7: jump 8/16 = 1/2; halo left max(o/2 - lo) = 1 (o = 0), right max(hi - o/2)
       = 0 (rounded up) */
    stk s;
    stk_new(&s, 8, 8, 1);
    int os = lg_b_const_i32(&s.b, "oshape", LG_DIMS(4), (const int32_t[]){1, 17, 17, 1});
    float wv[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    int wt = lg_b_const_f32(&s.b, "tw", LG_DIMS(1, 3, 3, 1), wv);
    int y = lg_b_tensor(&s.b, "ty", LG_FLOAT32, LG_DIMS(1, 17, 17, 1));
    lg_transpose_conv_options to;
    lg_opts_init(LG_OPTS_TRANSPOSE_CONV_OPTIONS, &to, sizeof to);
    to.padding = LG_PADDING_VALID;
    to.stride_h = to.stride_w = 2;
    lg_b_op_opts(&s.b, LG_OP_TRANSPOSE_CONV, LG_IDS(os, wt, s.cur), LG_IDS(y), LG_OPTS_TRANSPOSE_CONV_OPTIONS, &to);
    s.cur = y;
    lg_tile_report *r = stk_analyze(&s);
    if (r) {
        CHECK(r->outputs[0].exact);
        check_axis(&r->outputs[0].axes[0], 2, 1, 2, 1, 0);
        CHECK(!r->outputs[0].axes[0].causal); /* an upsampler is not causal streaming */
        CHECK(!r->outputs[0].streaming);
    }
    lg_tile_report_free(r);
    lg_model_free(s.m);
}

LG_TEST(tile_causal_streaming) {
    /* [1,1,T,C]: PAD 4 before, conv 1x5 VALID d1; PAD 8 before, conv 1x5 VALID d2.
       o -> [o-8, o] (conv2: o + 8 - 8 .. o + 8 in the padded, minus 8) -> [o-12, o]:
       RF 1 + 4 + 8 = 13, halo 12 left / 0 right, state (5-1)*1 + (5-1)*2 = 4 + 8 = 12 samples,
       x 3 channels = 36 values. Near-miss: symmetric padding 2/2 is not causal. */
    stk s;
    stk_new(&s, 1, 32, 3);
    stk_pad_w(&s, 4, 0);
    stk_conv(&s, 1, 5, 1, 1, false, 3);
    stk_pad_w(&s, 8, 0);
    stk_conv(&s, 1, 5, 1, 2, false, 3);
    CHECK_EQ_INT(s.w, 32);
    lg_tile_report *r = stk_analyze(&s);
    if (r) {
        const lg_tile_output *o = &r->outputs[0];
        CHECK(o->exact);
        CHECK_EQ_INT(o->n_axes, 1); /* H has size 1 */
        check_axis(&o->axes[0], 13, 1, 1, 12, 0);
        CHECK(o->axes[0].causal);
        CHECK(o->streaming);
        CHECK_EQ_INT(o->n_layers, 2);
        CHECK_EQ_INT(o->layers[0].state_samples, 4);
        CHECK_EQ_INT(o->layers[1].state_samples, 8);
        CHECK_EQ_INT(o->state_samples, 12);
        CHECK_EQ_INT(o->state_values, 36);
        double mx;
        uint32_t nt;
        verify_max(&s, r, 5, &mx, &nt); /* chunks of 5: 7 chunks, the last of 2 */
        CHECK_EQ_INT(nt, 7);
        CHECK(mx >= 0 && mx <= 1e-6);
    }
    lg_tile_report_free(r);
    lg_model_free(s.m);
    stk_new(&s, 1, 32, 3);
    stk_pad_w(&s, 2, 2);
    stk_conv(&s, 1, 5, 1, 1, false, 3);
    r = stk_analyze(&s);
    if (r) {
        check_axis(&r->outputs[0].axes[0], 5, 1, 1, 2, 2);
        CHECK(!r->outputs[0].axes[0].causal);
        CHECK(!r->outputs[0].streaming);
    }
    lg_tile_report_free(r);
    lg_model_free(s.m);
}

LG_TEST(tile_near_misses) {
    /* a per-pixel MUL by a per-channel constant [1,1,1,C] and a MEAN over channels only keep
       exact tiling (RF of the conv alone: 3) */
    stk s;
    stk_new(&s, 8, 8, 4);
    stk_conv(&s, 3, 3, 1, 1, true, 4);
    stk_binary_const(&s, LG_OP_MUL, LG_DIMS(1, 1, 1, 4));
    stk_mean_sub(&s, LG_DIMS(3));
    lg_tile_report *r = stk_analyze(&s);
    if (r) {
        CHECK(r->outputs[0].exact);
        CHECK_EQ_INT(r->outputs[0].n_breakers, 0);
        check_axis(&r->outputs[0].axes[0], 3, 1, 1, 1, 1);
    }
    lg_tile_report_free(r);
    lg_model_free(s.m);
    /* a constant that varies over H ([1,8,1,1], a position embedding) breaks it */
    stk_new(&s, 8, 8, 4);
    stk_conv(&s, 3, 3, 1, 1, true, 4);
    stk_binary_const(&s, LG_OP_ADD, LG_DIMS(1, 8, 1, 1));
    r = stk_analyze(&s);
    if (r) {
        CHECK(!r->outputs[0].exact);
        CHECK_EQ_INT(r->outputs[0].first, 0);
        CHECK_EQ_INT(r->outputs[0].breakers[0].op, 1);
        CHECK_EQ_INT(r->outputs[0].breakers[0].why, LG_TILE_COORD_CONST);
    }
    lg_tile_report_free(r);
    lg_model_free(s.m);
    /* a MEAN over H,W (InstanceNorm's centring) breaks it: named first, and the tiled run
       (each tile's own mean) differs from the full one */
    stk_new(&s, 8, 8, 2);
    stk_conv(&s, 3, 3, 1, 1, true, 2);
    stk_mean_sub(&s, LG_DIMS(1, 2));
    stk_conv(&s, 3, 3, 1, 1, true, 2);
    r = stk_analyze(&s);
    if (r) {
        const lg_tile_output *o = &r->outputs[0];
        CHECK(!o->exact);
        CHECK_EQ_INT(o->n_breakers, 1);
        CHECK_EQ_INT(o->breakers[o->first].op, 1); /* conv 0, MEAN 1, SUB 2, conv 3 */
        CHECK_STR(o->breakers[o->first].op_name, "MEAN");
        CHECK_EQ_INT(o->breakers[o->first].why, LG_TILE_REDUCE_SPACE);
        double mx;
        uint32_t nt;
        verify_max(&s, r, 4, &mx, &nt);
        CHECK_EQ_INT(nt, 4);
        CHECK(mx > 1e-3);
    }
    lg_tile_report_free(r);
    lg_model_free(s.m);
}

LG_TEST(tile_sequence_attention) {
    /* [N,T,C] with no conv: T is the spatial axis. A SOFTMAX over the channels is per
       position (exact); a SOFTMAX over T (the last axis after a transpose) is attention. */
    lg_model *m;
    lg_error err;
    CHECK_OK(lg_model_new(NULL, NULL, &m, &err), &err);
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 6, 4));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 6, 4));
    lg_softmax_options so = {.beta = 1};
    lg_b_op_opts(&b, LG_OP_SOFTMAX, LG_IDS(x), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
    int perm = lg_b_const_i32(&b, "perm", LG_DIMS(3), (const int32_t[]){0, 2, 1});
    int z = lg_b_tensor(&b, "z", LG_FLOAT32, LG_DIMS(1, 4, 6));
    lg_b_op(&b, LG_OP_TRANSPOSE, LG_IDS(y, perm), LG_IDS(z));
    int u = lg_b_tensor(&b, "u", LG_FLOAT32, LG_DIMS(1, 4, 6));
    lg_b_op_opts(&b, LG_OP_SOFTMAX, LG_IDS(z), LG_IDS(u), LG_OPTS_SOFTMAX_OPTIONS, &so);
    lg_b_io(&b, LG_IDS(x), LG_IDS(z, u));
    CHECK_EQ_INT(b.status, LG_OK);
    lg_tile_report *r = NULL;
    CHECK_OK(lg_tile_analyze(m, &r, &err), &err);
    if (r) {
        CHECK(r->outputs[0].exact);
        CHECK_EQ_INT(r->outputs[0].n_axes, 1);
        CHECK_EQ_INT(r->outputs[0].axes[0].input_axis, 1);
        CHECK_EQ_INT(r->outputs[0].axes[0].out_axis, 2); /* moved by the transpose */
        check_axis(&r->outputs[0].axes[0], 1, 1, 1, 0, 0);
        CHECK(!r->outputs[1].exact);
        CHECK_EQ_INT(r->outputs[1].breakers[0].op, 2);
        CHECK_EQ_INT(r->outputs[1].breakers[0].why, LG_TILE_ATTENTION);
    }
    lg_tile_report_free(r);
    lg_model_free(m);
}

LG_TEST(tile_strided_slice_and_reshapes) {
    /* 3x3 SAME conv, then STRIDED_SLICE [:, ::2, ::2, :] (out o reads in 2o), then 3x3 SAME:
       o -> [o-1, o+1] -> [2o-2, 2o+2] -> [2o-3, 2o+3]: RF 7, jump 2, halo 3/3; the cut
       sub-models reproduce it */
    stk s;
    stk_new(&s, 12, 12, 2);
    stk_conv(&s, 3, 3, 1, 1, true, 2);
    int bc = lg_b_const_i32(&s.b, "sb", LG_DIMS(4), (const int32_t[]){0, 0, 0, 0});
    int ec = lg_b_const_i32(&s.b, "se", LG_DIMS(4), (const int32_t[]){1, 12, 12, 2});
    int sc = lg_b_const_i32(&s.b, "ss", LG_DIMS(4), (const int32_t[]){1, 2, 2, 1});
    int y = lg_b_tensor(&s.b, "sub", LG_FLOAT32, LG_DIMS(1, 6, 6, 2));
    lg_strided_slice_options so;
    lg_opts_init(LG_OPTS_STRIDED_SLICE_OPTIONS, &so, sizeof so);
    lg_b_op_opts(&s.b, LG_OP_STRIDED_SLICE, LG_IDS(s.cur, bc, ec, sc), LG_IDS(y), LG_OPTS_STRIDED_SLICE_OPTIONS, &so);
    s.cur = y; s.h = s.w = 6;
    stk_conv(&s, 3, 3, 1, 1, true, 2);
    lg_tile_report *r = stk_analyze(&s);
    if (r) {
        CHECK(r->outputs[0].exact);
        check_axis(&r->outputs[0].axes[0], 7, 2, 1, 3, 3);
        double mx;
        uint32_t nt;
        verify_max(&s, r, 2, &mx, &nt);
        CHECK_EQ_INT(nt, 9);
        CHECK(mx >= 0 && mx <= 1e-6);
    }
    lg_tile_report_free(r);
    lg_model_free(s.m);
    /* near-miss: a RESHAPE that splits only the channels ([1,8,8,8] -> [1,8,8,2,4]) and a MEAN
       over the last (channel) axis keep exactness; flattening H,W into one axis ([1,64,8])
       and a MEAN over it is named: the MEAN first, the RESHAPE listed (a layout change) */
    for (int flat = 0; flat < 2; flat++) {
        stk_new(&s, 8, 8, 8);
        stk_conv(&s, 3, 3, 1, 1, true, 8);
        int sh = flat ? lg_b_const_i32(&s.b, "shape", LG_DIMS(3), (const int32_t[]){1, 64, 8})
                      : lg_b_const_i32(&s.b, "shape", LG_DIMS(5), (const int32_t[]){1, 8, 8, 2, 4});
        int rs = flat ? lg_b_tensor(&s.b, "rs", LG_FLOAT32, LG_DIMS(1, 64, 8))
                      : lg_b_tensor(&s.b, "rs", LG_FLOAT32, LG_DIMS(1, 8, 8, 2, 4));
        lg_b_op(&s.b, LG_OP_RESHAPE, LG_IDS(s.cur, sh), LG_IDS(rs));
        int ax = lg_b_const_i32(&s.b, "ax", LG_DIMS(1), (const int32_t[]){flat ? 1 : 4});
        int mt = flat ? lg_b_tensor(&s.b, "m", LG_FLOAT32, LG_DIMS(1, 1, 8))
                      : lg_b_tensor(&s.b, "m", LG_FLOAT32, LG_DIMS(1, 8, 8, 2, 1));
        lg_reducer_options ro = {.keep_dims = true};
        lg_b_op_opts(&s.b, LG_OP_MEAN, LG_IDS(rs, ax), LG_IDS(mt), LG_OPTS_REDUCER_OPTIONS, &ro);
        s.cur = mt;
        r = stk_analyze(&s);
        if (r && !flat) {
            CHECK(r->outputs[0].exact);
            CHECK_EQ_INT(r->outputs[0].n_axes, 2);
            check_axis(&r->outputs[0].axes[1], 3, 1, 1, 1, 1);
        }
        if (r && flat) {
            const lg_tile_output *o = &r->outputs[0];
            CHECK(!o->exact);
            CHECK_EQ_INT(o->n_breakers, 2);
            CHECK_EQ_INT(o->breakers[0].why, LG_TILE_RESHAPE_SPACE);
            CHECK_EQ_INT(o->first, 1);
            CHECK_STR(o->breakers[o->first].op_name, "MEAN");
        }
        lg_tile_report_free(r);
        lg_model_free(s.m);
    }
}

/* RESIZE (size [oh, ow]) of the current activation */
static void stk_resize(stk *s, int32_t code, int32_t oh, int32_t ow, bool align) {
    char nm[32];
    snprintf(nm, sizeof nm, "rsz%d", ++s->n);
    int sz = lg_b_const_i32(&s->b, nm, LG_DIMS(2), (const int32_t[]){oh, ow});
    snprintf(nm, sizeof nm, "ry%d", s->n);
    int y = lg_b_tensor(&s->b, nm, LG_FLOAT32, LG_DIMS(1, oh, ow, s->c));
    if (code == LG_OP_RESIZE_BILINEAR) {
        lg_resize_bilinear_options o = {.align_corners = align};
        lg_b_op_opts(&s->b, code, LG_IDS(s->cur, sz), LG_IDS(y), LG_OPTS_RESIZE_BILINEAR_OPTIONS, &o);
    } else {
        lg_resize_nearest_neighbor_options o = {.align_corners = align};
        lg_b_op_opts(&s->b, code, LG_IDS(s->cur, sz), LG_IDS(y), LG_OPTS_RESIZE_NEAREST_NEIGHBOR_OPTIONS, &o);
    }
    s->cur = y; s->h = oh; s->w = ow;
}

LG_TEST(tile_resize) {
    /* 2x upsampling (no half-pixel centres) then a 3x3 SAME conv: conv o -> [o-1, o+1];
       nearest in = floor(x/2): [floor((o-1)/2), floor((o+1)/2)], 2 inputs for every o: RF 2;
       bilinear reads floor(x/2) and the next: [floor((o-1)/2), floor((o+1)/2) + 1]: RF 3, one
       more pixel of halo; jump 1/2 for both. align_corners: named (coordinates scale by
       (in-1)/(out-1), the full size). */
    static const int32_t codes[2] = {LG_OP_RESIZE_NEAREST_NEIGHBOR, LG_OP_RESIZE_BILINEAR};
    for (int k = 0; k < 2; k++) {
        stk s;
        stk_new(&s, 8, 8, 1);
        stk_resize(&s, codes[k], 16, 16, false);
        stk_conv(&s, 3, 3, 1, 1, true, 1);
        lg_tile_report *r = stk_analyze(&s);
        if (r) {
            CHECK(r->outputs[0].exact);
            CHECK_EQ_INT(r->outputs[0].axes[0].rf, k ? 3 : 2);
            CHECK_EQ_INT(r->outputs[0].axes[0].jump_num, 1);
            CHECK_EQ_INT(r->outputs[0].axes[0].jump_den, 2);
        }
        lg_tile_report_free(r);
        lg_model_free(s.m);
        stk_new(&s, 8, 8, 1);
        stk_resize(&s, codes[k], 16, 16, true);
        r = stk_analyze(&s);
        if (r) {
            CHECK(!r->outputs[0].exact);
            CHECK_EQ_INT(r->outputs[0].breakers[0].why, LG_TILE_RESIZE_COORD);
        }
        lg_tile_report_free(r);
        lg_model_free(s.m);
    }
}

LG_TEST(tile_branches_max_per_side) {
    /* [1,1,32,2]: branch A = PAD 4 before + conv 1x5 VALID (reads [o-4, o]: halo 4/0), branch B
       = PAD 2 after + conv 1x3 VALID (reads [o, o+2]: halo 0/2); ADD: each side is the max
       over the branches: halo 4 left / 2 right, RF 4 + 2 + 1 = 7 (not max(5, 3) = 5) */
    stk s;
    stk_new(&s, 1, 32, 2);
    int x = s.cur;
    stk_pad_w(&s, 4, 0);
    stk_conv(&s, 1, 5, 1, 1, false, 2);
    int a = s.cur;
    s.cur = x; s.w = 32; s.c = 2;
    stk_pad_w(&s, 0, 2);
    stk_conv(&s, 1, 3, 1, 1, false, 2);
    int bb = s.cur;
    int y = lg_b_tensor(&s.b, "sum", LG_FLOAT32, LG_DIMS(1, 1, 32, 2));
    lg_b_op(&s.b, LG_OP_ADD, LG_IDS(a, bb), LG_IDS(y));
    s.cur = y;
    lg_tile_report *r = stk_analyze(&s);
    if (r) {
        CHECK(r->outputs[0].exact);
        check_axis(&r->outputs[0].axes[0], 7, 1, 1, 4, 2);
        CHECK(!r->outputs[0].axes[0].causal);
        double mx;
        uint32_t nt;
        verify_max(&s, r, 5, &mx, &nt);
        CHECK_EQ_INT(nt, 7);
        CHECK(mx >= 0 && mx <= 1e-6);
    }
    lg_tile_report_free(r);
    lg_model_free(s.m);
}
