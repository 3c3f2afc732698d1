/* lg_lowrank on builder-made FULLY_CONNECTED and CONV_2D models: hand-derived outputs, ranks,
   spectra, break-even arithmetic, and the near misses that must be left alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lg/graph.h"
#include "lg/lowrank.h"
#include "lg/run.h"
#include "tf.h"

/* An exactly rank-2 4x3 matrix: rows r1 = [1,0,1], r2 = [0,1,1], r3 = r1 + r2, r4 = 2 r1 + r2. */
static const float W_RANK2[12] = {1, 0, 1, 0, 1, 1, 1, 1, 2, 2, 1, 3};
static const float BIAS4[4] = {0.1f, 0.2f, 0.3f, 0.4f};
/* x = [0.5, -1, 2]: W x = [2.5, 1, 3.5, 6]; + bias = [2.6, 1.2, 3.8, 6.4]. */
static const float X3[3] = {0.5f, -1, 2};
static const float Y_RANK2[4] = {2.6f, 1.2f, 3.8f, 6.4f};

/* x [1,3] -> FULLY_CONNECTED (w [4,3] constant, bias [4] or none, act) -> y [1,4]. */
static lg_model *fc_model(const float *w, int m, int n, bool bias, int8_t act) {
    lg_model *md = NULL;
    lg_error e;
    if (lg_model_new(NULL, NULL, &md, &e) != LG_OK) return NULL;
    lg_builder b;
    lg_builder_init(&b, md, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, n));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, m));
    int wt = lg_b_const_f32(&b, "w", LG_DIMS(m, n), w);
    float *bv = calloc((size_t)m, sizeof(float));
    for (int i = 0; i < m && i < 4; i++) bv[i] = BIAS4[i];
    int bt = bias ? lg_b_const_f32(&b, "b", LG_DIMS(m), bv) : -1;
    free(bv);
    lg_fully_connected_options fo;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
    fo.fused_activation_function = act;
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, wt, bt), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    if (b.status != LG_OK) {
        lg_model_free(md);
        return NULL;
    }
    return md;
}

/* Run model md on x (one input, n floats), copy output 0 (n_out floats) into y. */
static int run1(const lg_model *md, const float *x, int n, float *y, int n_out) {
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_interp *it = NULL;
    lg_error e;
    if (lg_interp_create(md, &ro, &it, &e) != LG_OK) return -1;
    int rc = lg_interp_set_input(it, 0, LG_FLOAT32, x, sizeof(float) * (uint64_t)n, &e) == LG_OK &&
                     lg_interp_invoke(it, &e) == LG_OK ? 0 : -1;
    lg_tensor_view v;
    if (!rc && lg_interp_output(it, 0, &v) == LG_OK && v.numel == n_out) memcpy(y, v.data, sizeof(float) * (size_t)n_out);
    else rc = -1;
    lg_interp_free(it);
    return rc;
}

static lg_lowrank_options opts_rank(int32_t op, int32_t rank, bool force) {
    lg_lowrank_options o;
    memset(&o, 0, sizeof o);
    o.op = op;
    o.all_fc = op < 0;
    o.rank = rank;
    o.force_rank = force;
    return o;
}

LG_TEST(lowrank_rank2_matrix_reproduced_at_rank2) {
    lg_model *md = fc_model(W_RANK2, 4, 3, true, 0), *q = NULL;
    CHECK(md != NULL);
    lg_lowrank_options o = opts_rank(0, 2, true); /* 2 >= break-even 12/7: forced */
    lg_lowrank_report *r = NULL;
    lg_error e;
    CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
    if (!q) { lg_model_free(md); return; }
    CHECK_EQ_INT(r->n_replaced, 1);
    const lg_lowrank_layer *l = &r->layers[0];
    CHECK_EQ_INT(l->m, 4);
    CHECK_EQ_INT(l->n, 3);
    CHECK_EQ_INT(l->rank, 2);
    CHECK_NEAR(l->break_even, 12.0 / 7.0, 1e-12);
    CHECK_EQ_INT(l->params_before, 16); /* 4*3 + 4 */
    CHECK_EQ_INT(l->params_after, 18);  /* 2*(4+3) + 4 */
    CHECK_EQ_INT(l->n_spectrum, 3);
    CHECK(l->spectrum[2] < 1e-6);       /* rank 2: the third singular value is 0 */
    CHECK_NEAR(l->energy_kept, 1.0, 1e-12);
    CHECK(l->recon_error < 1e-6);
    CHECK_EQ_INT(q->subgraphs[0].n_ops, 2);
    float y[4] = {0};
    CHECK(run1(q, X3, 3, y, 4) == 0);
    for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], Y_RANK2[i], 1e-5);
    lg_lowrank_report_free(r);
    lg_model_free(q);
    lg_model_free(md);
}

/* Without force the same rank 2 is above break-even 12/7: left alone, the reason given. */
LG_TEST(lowrank_above_break_even_left_alone) {
    lg_model *md = fc_model(W_RANK2, 4, 3, true, 0), *q = NULL;
    lg_lowrank_options o = opts_rank(-1, 2, false);
    lg_lowrank_report *r = NULL;
    lg_error e;
    CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
    if (!q) { lg_model_free(md); return; }
    CHECK_EQ_INT(r->n_layers, 1);
    CHECK_EQ_INT(r->n_replaced, 0);
    CHECK(strstr(r->layers[0].why, "break-even") != NULL);
    CHECK_EQ_INT(q->subgraphs[0].n_ops, 1);
    CHECK_EQ_INT(r->n_params_before, 16);
    CHECK_EQ_INT(r->n_params_after, 16);
    lg_lowrank_report_free(r);
    lg_model_free(q);
    lg_model_free(md);
}

/* Full rank of a rank-3 matrix reproduces it: W = [[2,0,1],[1,3,0],[0,1,4],[1,1,1]],
   x = [0.5,-1,2]: W x = [3, -2.5, 7, 1.5]; with RELU and bias [.1,.2,.3,.4]: [3.1, 0, 7.3, 1.9].
   The activation stays on the second op, none on the first. */
LG_TEST(lowrank_full_rank_reproduces_with_activation) {
    const float w[12] = {2, 0, 1, 1, 3, 0, 0, 1, 4, 1, 1, 1};
    const float want[4] = {3.1f, 0, 7.3f, 1.9f};
    lg_model *md = fc_model(w, 4, 3, true, LG_ACTIVATION_FUNCTION_TYPE_RELU), *q = NULL;
    lg_lowrank_options o = opts_rank(0, 99, true); /* clamped to min(4,3) = 3 */
    lg_lowrank_report *r = NULL;
    lg_error e;
    CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
    if (!q) { lg_model_free(md); return; }
    CHECK_EQ_INT(r->layers[0].rank, 3);
    float y[4] = {0};
    CHECK(run1(q, X3, 3, y, 4) == 0);
    for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], want[i], 1e-5);
    const lg_subgraph *sg = &q->subgraphs[0];
    CHECK_EQ_INT(sg->n_ops, 2);
    const lg_fully_connected_options *o1 = sg->ops[0].opts, *o2 = sg->ops[1].opts;
    CHECK_EQ_INT(o1->fused_activation_function, LG_ACTIVATION_FUNCTION_TYPE_NONE);
    CHECK_EQ_INT(o2->fused_activation_function, LG_ACTIVATION_FUNCTION_TYPE_RELU);
    CHECK(sg->ops[0].n_inputs < 3 || sg->ops[0].inputs[2] == -1); /* no bias on the first */
    CHECK(sg->ops[1].n_inputs == 3 && sg->ops[1].inputs[2] >= 0);
    /* shapes: A [3,3], B [4,3], the intermediate [1,3] */
    CHECK_EQ_INT(sg->tensors[sg->ops[0].inputs[1]].shape[0], 3);
    CHECK_EQ_INT(sg->tensors[sg->ops[1].inputs[1]].shape[0], 4);
    CHECK_EQ_INT(sg->tensors[sg->ops[1].inputs[1]].shape[1], 3);
    /* the metadata names the layer */
    bool found = false;
    for (uint32_t i = 0; i < q->n_metadata; i++) found |= strcmp(q->metadata[i].name, "litegpu.lowrank") == 0;
    CHECK(found);
    CHECK(strstr(r->metadata, "\"rank\":3") != NULL);
    lg_lowrank_report_free(r);
    lg_model_free(q);
    lg_model_free(md);
}

/* W = diag(4,2,1) padded with a zero row (4x3): singular values 4, 2, 1; cumulative energies
   16/21 = 0.7619, 20/21 = 0.9524, 1. */
LG_TEST(lowrank_energy_picks_hand_rank) {
    const float w[12] = {4, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0};
    const double energies[6] = {0.5, 0.76, 0.77, 0.95, 0.96, 1.0};
    const int32_t want[6] = {1, 1, 2, 2, 3, 3};
    lg_model *md = fc_model(w, 4, 3, false, 0);
    for (int k = 0; k < 6; k++) {
        lg_lowrank_options o;
        memset(&o, 0, sizeof o);
        o.op = 0;
        o.energy = energies[k];
        lg_model *q = NULL;
        lg_lowrank_report *r = NULL;
        lg_error e;
        CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
        if (!r) continue;
        const lg_lowrank_layer *l = &r->layers[0];
        CHECK_EQ_INT(l->rank, want[k]);
        CHECK_NEAR(l->spectrum[0], 4, 1e-12);
        CHECK_NEAR(l->spectrum[1], 2, 1e-12);
        CHECK_NEAR(l->spectrum[2], 1, 1e-12);
        if (want[k] == 1) { /* 1 < 12/7: replaced; 7 weights against 12 */
            CHECK(l->replaced);
            CHECK_NEAR(l->energy_kept, 16.0 / 21.0, 1e-12);
            CHECK_NEAR(l->recon_error, sqrt(5.0 / 21.0), 1e-6);
            CHECK_EQ_INT(l->params_after, 7);
            CHECK_EQ_INT(r->n_params_after, 7);
        } else {
            CHECK(!l->replaced); /* 2 and 3 are above break-even */
        }
        lg_lowrank_report_free(r);
        lg_model_free(q);
    }
    lg_model_free(md);
}

/* m = 96, n = 32: break-even 96*32/128 = 24. Rank 24: 24*128 = 3072 = 96*32, not below;
   rank 23: 2944 < 3072, replaced. --min-saving 0.05 refuses 23 (saves 128/3072 = 4.2%). */
LG_TEST(lowrank_break_even_96x32) {
    float *w = malloc(sizeof(float) * 96 * 32);
    for (int i = 0; i < 96 * 32; i++) w[i] = (float)((i * 7919 + 13) % 1009) / 1009.0f - 0.5f;
    lg_model *md = fc_model(w, 96, 32, false, 0);
    free(w);
    const int32_t ranks[2] = {24, 23};
    for (int k = 0; k < 3; k++) {
        lg_lowrank_options o = opts_rank(0, ranks[k == 0 ? 0 : 1], false);
        if (k == 2) o.min_saving = 0.05;
        lg_model *q = NULL;
        lg_lowrank_report *r = NULL;
        lg_error e;
        CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
        if (!r) continue;
        const lg_lowrank_layer *l = &r->layers[0];
        CHECK_NEAR(l->break_even, 24.0, 0);
        CHECK_EQ_INT(l->params_before, 3072);
        CHECK_EQ_INT(l->params_after, k == 0 ? 3072 : 2944);
        CHECK_EQ_INT(l->replaced, k == 1);
        if (k == 2) CHECK(strstr(l->why, "less than") != NULL);
        lg_lowrank_report_free(r);
        lg_model_free(q);
    }
    lg_model_free(md);
}

/* FC over tokens [1,5,3], keep_num_dims: the intermediate is [1,5,r] and the output [1,5,4];
   without keep_num_dims [5,r] and [5,4]. Outputs equal the original's (full rank). */
LG_TEST(lowrank_fc_tokens_shapes) {
    for (int keep = 0; keep < 2; keep++) {
        lg_model *md = NULL, *q = NULL;
        lg_error e;
        CHECK_OK(lg_model_new(NULL, NULL, &md, &e), &e);
        lg_builder b;
        lg_builder_init(&b, md, 0);
        int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 5, 3));
        int y = keep ? lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 5, 4)) : lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(5, 4));
        int wt = lg_b_const_f32(&b, "w", LG_DIMS(4, 3), W_RANK2);
        lg_fully_connected_options fo;
        lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
        fo.keep_num_dims = keep;
        lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, wt, -1), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
        lg_b_io(&b, LG_IDS(x), LG_IDS(y));
        CHECK(b.status == LG_OK);
        lg_lowrank_options o = opts_rank(0, 2, true);
        lg_lowrank_report *r = NULL;
        CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
        if (q) {
            const lg_subgraph *sg = &q->subgraphs[0];
            const lg_tensor *mid = &sg->tensors[sg->ops[0].outputs[0]];
            CHECK_EQ_INT(mid->rank, keep ? 3 : 2);
            CHECK_EQ_INT(mid->shape[mid->rank - 1], 2);
            CHECK_EQ_INT(mid->shape[keep ? 1 : 0], 5);
            /* token t = [t, 1, -t] */
            float xin[15], y0[20], y1[20];
            for (int t = 0; t < 5; t++) { xin[3 * t] = (float)t; xin[3 * t + 1] = 1; xin[3 * t + 2] = (float)-t; }
            CHECK(run1(md, xin, 15, y0, 20) == 0);
            CHECK(run1(q, xin, 15, y1, 20) == 0);
            /* hand: row1 [1,0,1]: t - t = 0; row2 [0,1,1]: 1 - t; row3 [1,1,2]: t+1-2t = 1-t;
               row4 [2,1,3]: 2t+1-3t = 1-t */
            for (int t = 0; t < 5; t++) {
                const float want[4] = {0, 1.0f - (float)t, 1.0f - (float)t, 1.0f - (float)t};
                for (int i = 0; i < 4; i++) {
                    CHECK_NEAR(y0[4 * t + i], want[i], 1e-6);
                    CHECK_NEAR(y1[4 * t + i], want[i], 1e-5);
                }
            }
        }
        lg_lowrank_report_free(r);
        lg_model_free(q);
        lg_model_free(md);
    }
}

/* x [1,2,2,3] -> CONV_2D (w [4,kh,kw,3], bias, stride s) -> y. */
static lg_model *conv_model(int k, int stride, const float *w) {
    lg_model *md = NULL;
    lg_error e;
    if (lg_model_new(NULL, NULL, &md, &e) != LG_OK) return NULL;
    lg_builder b;
    lg_builder_init(&b, md, 0);
    int o = stride == 1 ? 2 : 1;
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 3));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, o, o, 4));
    float *wv = calloc((size_t)(4 * k * k * 3), sizeof(float));
    for (int i = 0; i < 4 * k * k * 3; i++) wv[i] = w ? w[i % 12] : (float)(i % 5) - 2;
    int wt = lg_b_const_f32(&b, "w", LG_DIMS(4, k, k, 3), wv);
    free(wv);
    int bt = lg_b_const_f32(&b, "b", LG_DIMS(4), BIAS4);
    lg_conv2d_options co;
    lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &co, sizeof co);
    co.padding = LG_PADDING_SAME;
    co.stride_h = co.stride_w = stride;
    lg_b_op_opts(&b, LG_OP_CONV_2D, LG_IDS(x, wt, bt), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &co);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    if (b.status != LG_OK) {
        lg_model_free(md);
        return NULL;
    }
    return md;
}

/* A 1x1 conv with the rank-2 weight at rank 2 (forced): two 1x1 convs, the first with a zero
   bias [2]; every pixel gives W x + b (pixel p = X3 * (p + 1): W x scales with p + 1). */
LG_TEST(lowrank_conv1x1_two_convs) {
    lg_model *md = conv_model(1, 1, W_RANK2), *q = NULL;
    CHECK(md != NULL);
    lg_lowrank_options o;
    memset(&o, 0, sizeof o);
    o.op = -1;
    o.all_conv1x1 = true;
    o.rank = 2;
    o.force_rank = true;
    lg_lowrank_report *r = NULL;
    lg_error e;
    CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
    if (!q) { lg_model_free(md); return; }
    CHECK_EQ_INT(r->n_replaced, 1);
    CHECK_EQ_INT(r->layers[0].params_after, 2 * 7 + 2 + 4); /* factors, the zero bias, the bias */
    const lg_subgraph *sg = &q->subgraphs[0];
    CHECK_EQ_INT(sg->n_ops, 2);
    CHECK_EQ_INT(lg_op_builtin(q, &sg->ops[0]), LG_OP_CONV_2D);
    CHECK_EQ_INT(lg_op_builtin(q, &sg->ops[1]), LG_OP_CONV_2D);
    CHECK_EQ_INT(sg->tensors[sg->ops[0].inputs[1]].shape[0], 2);
    CHECK_EQ_INT(sg->tensors[sg->ops[0].inputs[1]].shape[3], 3);
    CHECK_EQ_INT(sg->tensors[sg->ops[1].inputs[1]].shape[3], 2);
    float x[12], y[16];
    for (int p = 0; p < 4; p++)
        for (int c = 0; c < 3; c++) x[p * 3 + c] = X3[c] * (float)(p + 1);
    CHECK(run1(q, x, 12, y, 16) == 0);
    for (int p = 0; p < 4; p++)
        for (int i = 0; i < 4; i++) CHECK_NEAR(y[p * 4 + i], (Y_RANK2[i] - BIAS4[i]) * (float)(p + 1) + BIAS4[i], 1e-5);
    lg_lowrank_report_free(r);
    lg_model_free(q);
    lg_model_free(md);
}

/* Near misses, each named: a 3x3 conv, a 1x1 conv with stride 2, an FC with runtime weights,
   a weight read by two FCs. With --op each is an error naming the reason; in a sweep each is
   listed (the 3x3 conv is not a 1x1 candidate at all) and nothing changes. */
LG_TEST(lowrank_near_misses_left_alone) {
    lg_error e;
    lg_model *q = NULL;
    lg_lowrank_report *r = NULL;
    lg_model *c3 = conv_model(3, 1, NULL), *c1s2 = conv_model(1, 2, NULL);
    lg_lowrank_options o = opts_rank(0, 1, false);
    CHECK(lg_lowrank(c3, &o, &q, &r, &e) == LG_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "3x3, not 1x1") != NULL);
    CHECK(q == NULL && r == NULL);
    CHECK(lg_lowrank(c1s2, &o, &q, &r, &e) == LG_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "stride 2x2") != NULL || strstr(e.msg, "stride is 2x2") != NULL);
    memset(&o, 0, sizeof o);
    o.op = -1;
    o.all_conv1x1 = true;
    o.rank = 1;
    CHECK_OK(lg_lowrank(c3, &o, &q, &r, &e), &e);
    if (r) CHECK_EQ_INT(r->n_layers, 0);
    lg_lowrank_report_free(r);
    lg_model_free(q);
    CHECK_OK(lg_lowrank(c1s2, &o, &q, &r, &e), &e);
    if (r) {
        CHECK_EQ_INT(r->n_layers, 1);
        CHECK_EQ_INT(r->n_replaced, 0);
        CHECK(strstr(r->layers[0].why, "stride") != NULL);
    }
    lg_lowrank_report_free(r);
    lg_model_free(q);
    lg_model_free(c3);
    lg_model_free(c1s2);

    /* runtime weights: x [1,3], w [4,3] both inputs */
    lg_model *md = NULL;
    CHECK_OK(lg_model_new(NULL, NULL, &md, &e), &e);
    lg_builder b;
    lg_builder_init(&b, md, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 3));
    int w = lg_b_tensor(&b, "w_runtime", LG_FLOAT32, LG_DIMS(4, 3));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w, -1), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x, w), LG_IDS(y));
    CHECK(b.status == LG_OK);
    o = opts_rank(0, 1, false);
    CHECK(lg_lowrank(md, &o, &q, &r, &e) == LG_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "not a constant") != NULL);
    o = opts_rank(-1, 1, false);
    CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
    if (r) {
        CHECK_EQ_INT(r->n_layers, 1);
        CHECK_EQ_INT(r->n_replaced, 0);
    }
    lg_lowrank_report_free(r);
    lg_model_free(q);
    lg_model_free(md);

    /* a shared weight: two FCs read the same constant */
    md = NULL;
    CHECK_OK(lg_model_new(NULL, NULL, &md, &e), &e);
    lg_builder_init(&b, md, 0);
    x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 3));
    int wt = lg_b_const_f32(&b, "w_shared", LG_DIMS(4, 3), W_RANK2);
    int y1 = lg_b_tensor(&b, "y1", LG_FLOAT32, LG_DIMS(1, 4)), y2 = lg_b_tensor(&b, "y2", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, wt, -1), LG_IDS(y1));
    lg_b_op(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, wt, -1), LG_IDS(y2));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y1, y2));
    CHECK(b.status == LG_OK);
    o = opts_rank(1, 1, false);
    CHECK(lg_lowrank(md, &o, &q, &r, &e) == LG_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "shared") != NULL);
    o = opts_rank(-1, 1, false);
    CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
    if (r) {
        CHECK_EQ_INT(r->n_layers, 2);
        CHECK_EQ_INT(r->n_replaced, 0);
        CHECK(strstr(r->layers[0].why, "shared") != NULL);
        CHECK(strstr(r->layers[1].why, "shared") != NULL);
    }
    if (q) CHECK_EQ_INT(q->subgraphs[0].n_ops, 2);
    lg_lowrank_report_free(r);
    lg_model_free(q);
    lg_model_free(md);
}

/* x [1,3] -> FC(DEQUANTIZE(w_fp16 [4,3]) , no bias) -> y (an fp16 model's form); with
   second_reader a second FC reads the DEQUANTIZE's output too. */
static lg_model *fp16_model(bool second_reader) {
    lg_model *md = NULL;
    lg_error e;
    if (lg_model_new(NULL, NULL, &md, &e) != LG_OK) return NULL;
    lg_builder b;
    lg_builder_init(&b, md, 0);
    const uint16_t h[12] = {0x3c00, 0, 0x3c00, 0, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x4000, 0x4000, 0x3c00, 0x4200}; /* W_RANK2 in half */
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 3));
    int wh = lg_b_const(&b, "w_fp16", LG_FLOAT16, LG_DIMS(4, 3), h, sizeof h);
    int w = lg_b_tensor(&b, "w", LG_FLOAT32, LG_DIMS(4, 3));
    int y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 4)), y2 = lg_b_tensor(&b, "y2", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(&b, LG_OP_DEQUANTIZE, LG_IDS(wh), LG_IDS(w));
    lg_b_op(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w, -1), LG_IDS(y));
    if (second_reader) lg_b_op(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w, -1), LG_IDS(y2));
    if (second_reader) lg_b_io(&b, LG_IDS(x), LG_IDS(y, y2));
    else lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    if (b.status != LG_OK) {
        lg_model_free(md);
        return NULL;
    }
    return md;
}

/* FLOAT16 weights read through DEQUANTIZE: factored from the halves, the factors FLOAT16 +
   DEQUANTIZE, the old DEQUANTIZE gone: DEQUANTIZE(A), DEQUANTIZE(B), FC, FC. The output is
   W x (= Y_RANK2 - bias: [2.5, 1, 3.5, 6]) up to the factors' rounding to half (relative
   2^-11 per entry: 1e-2 on these values). */
LG_TEST(lowrank_fp16_weight_through_dequantize) {
    lg_model *md = fp16_model(false), *q = NULL;
    lg_lowrank_report *r = NULL;
    lg_error e;
    CHECK(md != NULL);
    lg_lowrank_options o = opts_rank(1, 2, true);
    CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
    if (q) {
        CHECK_EQ_INT(r->layers[0].weight_type, LG_FLOAT16);
        CHECK(r->layers[0].replaced);
        CHECK(r->layers[0].recon_error > 0 && r->layers[0].recon_error < 2e-3); /* half-rounded factors */
        const lg_subgraph *sg = &q->subgraphs[0];
        CHECK_EQ_INT(sg->n_ops, 4);
        int n_deq = 0, n_fc = 0;
        for (uint32_t i = 0; i < sg->n_ops; i++) {
            int32_t code = lg_op_builtin(q, &sg->ops[i]);
            n_deq += code == LG_OP_DEQUANTIZE;
            n_fc += code == LG_OP_FULLY_CONNECTED;
            if (code == LG_OP_DEQUANTIZE) CHECK_EQ_INT(sg->tensors[sg->ops[i].inputs[0]].type, LG_FLOAT16);
        }
        CHECK_EQ_INT(n_deq, 2);
        CHECK_EQ_INT(n_fc, 2);
        float y[4] = {0};
        CHECK(run1(q, X3, 3, y, 4) == 0);
        for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], Y_RANK2[i] - BIAS4[i], 1e-2);
        CHECK(r->n_params_before == 12 && r->n_params_after == 14); /* the FLOAT16 constants */
    }
    lg_lowrank_report_free(r);
    lg_model_free(q);
    lg_model_free(md);
    /* the near miss: the DEQUANTIZE's output read by two FCs is shared */
    md = fp16_model(true);
    CHECK(lg_lowrank(md, &o, &q, &r, &e) == LG_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "shared") != NULL);
    lg_model_free(md);
}

/* Two weight tensors on one buffer (a deduplicating converter's output): each tensor has one
   reader, but factoring one would change the other's data: refused, both ways. */
LG_TEST(lowrank_shared_buffer_refused) {
    lg_model *md = NULL, *q = NULL;
    lg_lowrank_report *r = NULL;
    lg_error e;
    CHECK_OK(lg_model_new(NULL, NULL, &md, &e), &e);
    lg_builder b;
    lg_builder_init(&b, md, 0);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 3));
    int w1 = lg_b_const_f32(&b, "w1", LG_DIMS(4, 3), W_RANK2), w2 = lg_b_const_f32(&b, "w2", LG_DIMS(4, 3), W_RANK2);
    int y1 = lg_b_tensor(&b, "y1", LG_FLOAT32, LG_DIMS(1, 4)), y2 = lg_b_tensor(&b, "y2", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w1, -1), LG_IDS(y1));
    lg_b_op(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, w2, -1), LG_IDS(y2));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y1, y2));
    CHECK(b.status == LG_OK);
    lg_lowrank_options o = opts_rank(0, 1, false);
    CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e); /* the near miss first: separate buffers factor */
    if (r) CHECK_EQ_INT(r->n_replaced, 1);
    lg_lowrank_report_free(r);
    lg_model_free(q);
    md->subgraphs[0].tensors[w2].buffer = md->subgraphs[0].tensors[w1].buffer;
    CHECK(lg_lowrank(md, &o, &q, &r, &e) == LG_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "2 tensors the buffer") != NULL);
    o = opts_rank(1, 1, false);
    CHECK(lg_lowrank(md, &o, &q, &r, &e) == LG_ERR_INVALID_ARG);
    lg_model_free(md);
}

/* m = 43, n = 21: break-even 903/64 = 14.11. Rank 14 is below it: an FC factors (14*64 = 896
   < 903 weights, + 43 bias: 939 < 946), but a 1x1 conv's first layer needs a zero bias of 14:
   14*65 + 43 = 953 >= 946, so the conv is left alone and says why. */
LG_TEST(lowrank_conv_zero_bias_break_even) {
    float *w = malloc(sizeof(float) * 43 * 21), *bias = calloc(43, sizeof(float));
    for (int i = 0; i < 43 * 21; i++) w[i] = (float)((i * 7919 + 13) % 1009) / 1009.0f - 0.5f;
    for (int code = 0; code < 2; code++) {
        lg_model *md = NULL, *q = NULL;
        lg_lowrank_report *r = NULL;
        lg_error e;
        CHECK_OK(lg_model_new(NULL, NULL, &md, &e), &e);
        lg_builder b;
        lg_builder_init(&b, md, 0);
        if (code == 0) {
            int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 21)), y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 43));
            int wt = lg_b_const_f32(&b, "w", LG_DIMS(43, 21), w), bt = lg_b_const_f32(&b, "b", LG_DIMS(43), bias);
            lg_b_op(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, wt, bt), LG_IDS(y));
            lg_b_io(&b, LG_IDS(x), LG_IDS(y));
        } else {
            int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 1, 1, 21)), y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 1, 1, 43));
            int wt = lg_b_const_f32(&b, "w", LG_DIMS(43, 1, 1, 21), w), bt = lg_b_const_f32(&b, "b", LG_DIMS(43), bias);
            lg_conv2d_options co;
            lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &co, sizeof co);
            co.padding = LG_PADDING_VALID;
            co.stride_h = co.stride_w = 1;
            lg_b_op_opts(&b, LG_OP_CONV_2D, LG_IDS(x, wt, bt), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &co);
            lg_b_io(&b, LG_IDS(x), LG_IDS(y));
        }
        CHECK(b.status == LG_OK);
        lg_lowrank_options o = opts_rank(0, 14, false);
        CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
        if (r) {
            const lg_lowrank_layer *l = &r->layers[0];
            CHECK_NEAR(l->break_even, 903.0 / 64.0, 1e-12);
            CHECK_EQ_INT(l->params_before, 946);
            CHECK_EQ_INT(l->params_after, code == 0 ? 939 : 953);
            CHECK_EQ_INT(l->replaced, code == 0);
            if (code == 1) CHECK(strstr(l->why, "zero bias") != NULL);
        }
        lg_lowrank_report_free(r);
        lg_model_free(q);
        lg_model_free(md);
    }
    free(w);
    free(bias);
}

/* The refit: inputs on one line x = t v, v = [1, -1, 0.5]. At rank 1 the factored layer maps
   them to a scalar mid = t (A v); the ridge refit (lambda 0) of B and the bias on 4 such cases
   then reproduces W x + b exactly on that line: W v = [1.5, -0.5, 1, 2.5], so x = 5 v gives
   [7.5, -2.5, 5, 12.5] + [0.1, 0.2, 0.3, 0.4] = [7.6, -2.3, 5.3, 12.9]. Without the refit the
   rank-1 layer misses it (the near miss); a conv is not refitted and says why. */
LG_TEST(lowrank_refit_recovers_on_a_line) {
    lg_model *md = fc_model(W_RANK2, 4, 3, true, 0), *q = NULL;
    const float v[3] = {1, -1, 0.5f}, t[4] = {1, 2, -1, 3}, want[4] = {7.6f, -2.3f, 5.3f, 12.9f};
    float xs[4][3], x5[3];
    const float *sets[4][1];
    const void *const *cases[4];
    for (int k = 0; k < 4; k++) {
        for (int j = 0; j < 3; j++) xs[k][j] = t[k] * v[j];
        sets[k][0] = xs[k];
        cases[k] = (const void *const *)sets[k];
    }
    for (int j = 0; j < 3; j++) x5[j] = 5 * v[j];
    for (int refit = 0; refit < 2; refit++) {
        lg_lowrank_options o = opts_rank(0, 1, false);
        if (refit) {
            o.refit_cases = cases;
            o.n_refit_cases = 4;
            o.refit_lambda = 0;
        }
        lg_lowrank_report *r = NULL;
        lg_error e;
        CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
        if (!q) continue;
        const lg_lowrank_layer *l = &r->layers[0];
        CHECK_EQ_INT(l->refitted, refit);
        float y[4] = {0};
        CHECK(run1(q, x5, 3, y, 4) == 0);
        double worst = 0;
        for (int i = 0; i < 4; i++) worst = fmax(worst, fabs(y[i] - want[i]));
        if (refit) {
            CHECK(l->refit_before > 0.01);
            CHECK(l->refit_after < 1e-5);
            CHECK(worst < 1e-4);
            CHECK_EQ_INT(r->n_params_after, 11); /* 1*(4+3) + 4: the refit keeps the shapes */
            CHECK(strstr(r->metadata, "\"refitted\":true") != NULL);
        } else {
            CHECK(worst > 0.01);
            CHECK(isnan(l->refit_before));
        }
        lg_lowrank_report_free(r);
        lg_model_free(q);
        q = NULL;
    }
    lg_model_free(md);
    /* a 1x1 conv: factored, not refitted */
    md = conv_model(1, 1, W_RANK2);
    float xc[4][12];
    const float *csets[4][1];
    const void *const *ccases[4];
    for (int k = 0; k < 4; k++) {
        for (int j = 0; j < 12; j++) xc[k][j] = (float)((k * 12 + j) % 7) - 3;
        csets[k][0] = xc[k];
        ccases[k] = (const void *const *)csets[k];
    }
    lg_lowrank_options o;
    memset(&o, 0, sizeof o);
    o.op = 0;
    o.rank = 1;
    o.refit_cases = ccases;
    o.n_refit_cases = 4;
    o.refit_lambda = 1e-3;
    lg_lowrank_report *r = NULL;
    lg_error e;
    CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
    if (r) {
        CHECK(r->layers[0].replaced && !r->layers[0].refitted);
        CHECK(strstr(r->layers[0].refit_why, "FULLY_CONNECTED") != NULL);
    }
    lg_lowrank_report_free(r);
    lg_model_free(q);
    lg_model_free(md);
}

/* The relative output error is per output: y1 = 100 x (3 values, up to ~86 on the pattern
   input), y2 = W_RANK2 x (up to 3.0159 = 2*0.01288 + 0.86125 + 3*0.70961). Only y2's FC is
   factored (rank 1): the error is y2's alone, so rel = max|dy2| / max|y2| (> 0.1), not
   max|dy2| / 86 as a pooled magnitude would give. */
LG_TEST(lowrank_measure_relative_per_output) {
    lg_model *md = NULL, *q = NULL;
    lg_lowrank_report *r = NULL;
    lg_error e;
    CHECK_OK(lg_model_new(NULL, NULL, &md, &e), &e);
    lg_builder b;
    lg_builder_init(&b, md, 0);
    const float w1[9] = {100, 0, 0, 0, 100, 0, 0, 0, 100};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 3));
    int y1 = lg_b_tensor(&b, "y1", LG_FLOAT32, LG_DIMS(1, 3)), y2 = lg_b_tensor(&b, "y2", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, lg_b_const_f32(&b, "w1", LG_DIMS(3, 3), w1), -1), LG_IDS(y1));
    lg_b_op(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, lg_b_const_f32(&b, "w2", LG_DIMS(4, 3), W_RANK2), -1), LG_IDS(y2));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y1, y2));
    CHECK(b.status == LG_OK);
    lg_lowrank_options o = opts_rank(1, 1, false);
    CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
    if (q) {
        lg_lowrank_error le;
        CHECK_OK(lg_lowrank_measure(md, q, NULL, 0, &le, &e), &e);
        CHECK_NEAR(le.ref_max_abs, 100.0 * 869.0 / 1009.0, 1e-3); /* y1's 86.125: the pooled max */
        CHECK_NEAR(le.rel, le.max_abs / (2 * 13.0 / 1009 + 869.0 / 1009 + 3 * 716.0 / 1009), 1e-5);
        CHECK(le.rel > 0.1);
    }
    lg_lowrank_report_free(r);
    lg_model_free(q);
    lg_model_free(md);
}

/* Bad options are refused; the same call twice gives the same bytes. */
LG_TEST(lowrank_options_and_determinism) {
    lg_model *md = fc_model(W_RANK2, 4, 3, true, 0), *q = NULL, *q2 = NULL;
    lg_lowrank_report *r = NULL, *r2 = NULL;
    lg_error e;
    lg_lowrank_options o;
    memset(&o, 0, sizeof o);
    o.op = -1;
    o.rank = 1;
    CHECK(lg_lowrank(md, &o, &q, &r, &e) == LG_ERR_INVALID_ARG); /* no layers named */
    o = opts_rank(5, 1, false);
    CHECK(lg_lowrank(md, &o, &q, &r, &e) == LG_ERR_INVALID_ARG); /* op out of range */
    o = opts_rank(0, 0, false);
    o.energy = 1.5;
    CHECK(lg_lowrank(md, &o, &q, &r, &e) == LG_ERR_INVALID_ARG);
    o = opts_rank(0, 0, true);
    o.energy = 0.9;
    CHECK(lg_lowrank(md, &o, &q, &r, &e) == LG_ERR_INVALID_ARG); /* force without a rank */
    o = opts_rank(0, 1, false);
    CHECK_OK(lg_lowrank(md, &o, &q, &r, &e), &e);
    CHECK_OK(lg_lowrank(md, &o, &q2, &r2, &e), &e);
    void *b1 = NULL, *b2 = NULL;
    size_t n1 = 0, n2 = 0;
    if (q && q2) {
        CHECK_OK(lg_tflite_write_mem(q, NULL, &b1, &n1, &e), &e);
        CHECK_OK(lg_tflite_write_mem(q2, NULL, &b2, &n2, &e), &e);
        CHECK(n1 == n2 && b1 && b2 && memcmp(b1, b2, n1) == 0);
        /* the output error through lg_lowrank_measure: rank 1 of a rank-2 matrix is not exact */
        lg_lowrank_error le;
        CHECK_OK(lg_lowrank_measure(md, q, NULL, 0, &le, &e), &e);
        CHECK(le.max_abs > 1e-3);
        /* x = the pattern [13, 869, 716] / 1009 = [0.0129, 0.8613, 0.7096]: W x + b =
           [0.823, 1.771, 2.593, 3.416], argmax 3. Rank 1: W^T W = [[6,3,9],[3,3,6],[9,6,15]],
           top eigenvector ~ v = [0.605, 0.395, 1] (power iteration from [1,1,2], twice);
           W_1 x = W v (v.x) / (v.v) = [1.605, 1.395, 3.0, 4.605] * 1.0576 / 1.522, + b =
           [1.215, 1.169, 2.385, 3.600]: argmax 3 too. */
        CHECK_EQ_INT(le.n_argmax_equal, 1);
        CHECK_OK(lg_lowrank_measure(md, md, NULL, 0, &le, &e), &e);
        CHECK_NEAR(le.max_abs, 0, 0);
        CHECK_EQ_INT(le.n_argmax_equal, 1);
        CHECK_EQ_INT(le.n_cases, 1);
    }
    free(b1);
    free(b2);
    lg_lowrank_report_free(r);
    lg_lowrank_report_free(r2);
    lg_model_free(q);
    lg_model_free(q2);
    lg_model_free(md);
}
