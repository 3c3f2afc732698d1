/* lg/prune.h on builder-made models: every group kind and a near-miss each, the surgery's
   constants checked value by value, parameter counts and the masked equivalence by hand. */
#include <math.h>
#include <string.h>

#include "lg/lg.h"
#include "lg/prune.h"
#include "lg/run.h"
#include "tf.h"
#include "util/half.h"

static lg_model *new_model(lg_builder *b) {
    lg_model *m = NULL; lg_error e;
    if (lg_model_new(NULL, NULL, &m, &e) != LG_OK) return NULL;
    lg_builder_init(b, m, 0);
    return m;
}

static lg_model *done(lg_builder *b) {
    if (b->status != LG_OK) { lg_model_free(b->m); return NULL; }
    return b->m;
}

static int fc(lg_builder *b, const char *name, int x, int out, int in, const float *w, const float *bias, lg_dims oshape) {
    char nw[64], nb[64];
    snprintf(nw, sizeof nw, "%s.w", name); snprintf(nb, sizeof nb, "%s.b", name);
    int wt = lg_b_const_f32(b, nw, LG_DIMS(out, in), w);
    int bt = lg_b_const_f32(b, nb, LG_DIMS(out), bias);
    int y = lg_b_tensor(b, name, LG_FLOAT32, oshape);
    lg_fully_connected_options fo;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
    fo.keep_num_dims = oshape.n > 2;
    lg_b_op_opts(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, wt, bt), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    return y;
}

/* 1x1 CONV_2D, stride 1, SAME, on [1,2,2,in]. */
static int conv1x1(lg_builder *b, const char *name, int x, int out, int in_g, const float *w, const float *bias) {
    char nw[64], nb[64];
    snprintf(nw, sizeof nw, "%s.w", name); snprintf(nb, sizeof nb, "%s.b", name);
    int wt = lg_b_const_f32(b, nw, LG_DIMS(out, 1, 1, in_g), w);
    int bt = lg_b_const_f32(b, nb, LG_DIMS(out), bias);
    int y = lg_b_tensor(b, name, LG_FLOAT32, LG_DIMS(1, 2, 2, out));
    lg_conv2d_options co;
    lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &co, sizeof co);
    co.padding = LG_PADDING_SAME; co.stride_w = co.stride_h = 1;
    lg_b_op_opts(b, LG_OP_CONV_2D, LG_IDS(x, wt, bt), LG_IDS(y), LG_OPTS_CONV2D_OPTIONS, &co);
    return y;
}

static const float *const_data(const lg_model *m, const char *name, int32_t *shape, uint32_t *rank) {
    const lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t i = 0; i < sg->n_tensors; i++)
        if (sg->tensors[i].name && !strcmp(sg->tensors[i].name, name)) {
            const lg_buffer *bf = lg_tensor_buffer(m, &sg->tensors[i]);
            *rank = sg->tensors[i].rank;
            memcpy(shape, sg->tensors[i].shape, sizeof(int32_t) * *rank);
            return bf ? (const float *)(const void *)bf->data : NULL;
        }
    return NULL;
}

/* Runs a one-input one-output model on x; y gets n outputs. */
static bool run1(const lg_model *m, const float *x, uint64_t nx, float *y, int64_t n) {
    lg_interp *it = NULL; lg_error e; lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    if (lg_interp_create(m, &ro, &it, &e) != LG_OK) return false;
    bool ok = lg_interp_set_input(it, 0, LG_FLOAT32, x, nx * 4, &e) == LG_OK && lg_interp_invoke(it, &e) == LG_OK;
    lg_tensor_view v;
    if (ok) ok = lg_interp_output(it, 0, &v) == LG_OK && v.numel == n;
    if (ok) memcpy(y, v.data, (size_t)n * 4);
    lg_interp_free(it);
    return ok;
}

/* ---------------------------------------------------------------- FFN */

/* x[1,4] -> FC1 (3x4) -> h -> RELU -> r -> FC2 (2x3) -> y. W1 rows have norms 1, 3, 2.
   extra_out also makes h a model output. */
static lg_model *ffn_model(bool extra_out) {
    lg_builder b;
    if (!new_model(&b)) return NULL;
    static const float w1[12] = {1, 0, 0, 0, 0, 3, 0, 0, 0, 0, 2, 0}, b1[3] = {0.5f, -1, 2};
    static const float w2[6] = {1, 2, 3, 4, 5, 6}, b2[2] = {0.25f, -0.25f};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int h = fc(&b, "h", x, 3, 4, w1, b1, LG_DIMS(1, 3));
    int r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(1, 3));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(h), LG_IDS(r));
    int y = fc(&b, "y", r, 2, 3, w2, b2, LG_DIMS(1, 2));
    if (extra_out) lg_b_io(&b, LG_IDS(x), LG_IDS(y, h));
    else lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    return done(&b);
}

LG_TEST(prune_ffn_group_and_surgery) {
    lg_model *m = ffn_model(false);
    CHECK(m != NULL);
    if (!m) return;
    lg_prune_groups *gs = NULL; lg_error e;
    CHECK_OK(lg_prune_groups_find(m, &gs, &e), &e);
    if (!gs) { lg_model_free(m); return; }
    CHECK_EQ_INT(gs->n_groups, 2);
    const lg_prune_group *g = &gs->groups[0];
    CHECK_STR(g->kind, "ffn");
    CHECK(g->prunable && !g->fixed);
    CHECK_EQ_INT(g->n_units, 3);
    CHECK_EQ_INT(g->unit, 1);
    /* one hidden channel: a W1 row (4) + a b1 entry (1) + a W2 column (2) = 7 */
    CHECK_EQ_INT(g->params_per_unit, 7);
    /* W1, b1 producers; h, r transparent; W2 consumer */
    CHECK_EQ_INT(g->n_members, 5);
    int n_prod = 0, n_cons = 0, n_tr = 0;
    for (uint32_t i = 0; i < g->n_members; i++) {
        n_prod += g->members[i].role == LG_PRUNE_PRODUCER;
        n_cons += g->members[i].role == LG_PRUNE_CONSUMER;
        n_tr += g->members[i].role == LG_PRUNE_TRANSPARENT;
    }
    CHECK_EQ_INT(n_prod, 2); CHECK_EQ_INT(n_cons, 1); CHECK_EQ_INT(n_tr, 2);
    /* the head FC feeds the model output: fixed */
    CHECK(gs->groups[1].fixed && !gs->groups[1].prunable);

    /* magnitude: row norms 1, 3, 2 -> keep 2 = {1, 2} */
    double sc[3];
    CHECK_OK(lg_prune_importance_magnitude(m, g, sc, &e), &e);
    CHECK_NEAR(sc[0], 1, 1e-12); CHECK_NEAR(sc[1], 3, 1e-12); CHECK_NEAR(sc[2], 2, 1e-12);
    uint32_t keep[2];
    CHECK_OK(lg_prune_top_k(sc, 3, 2, keep, &e), &e);
    CHECK_EQ_INT(keep[0], 1); CHECK_EQ_INT(keep[1], 2);

    lg_prune_sel sel = {.group = 0, .keep = keep, .n_keep = 2};
    lg_model *p = NULL, *mk = NULL;
    CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_PHYSICAL, &p, &e), &e);
    CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_MASKED, &mk, &e), &e);
    if (p && mk) {
        int32_t shape[8]; uint32_t rank;
        const float *w1 = const_data(p, "h.w", shape, &rank);
        CHECK(w1 && rank == 2 && shape[0] == 2 && shape[1] == 4);
        if (w1) { CHECK(w1[1] == 3 && w1[0] == 0); CHECK(w1[6] == 2); }  /* rows 1 and 2 of W1 */
        const float *b1 = const_data(p, "h.b", shape, &rank);
        CHECK(b1 && shape[0] == 2);
        if (b1) { CHECK(b1[0] == -1); CHECK(b1[1] == 2); }
        const float *w2 = const_data(p, "y.w", shape, &rank);
        CHECK(w2 && shape[0] == 2 && shape[1] == 2);
        if (w2) { CHECK(w2[0] == 2 && w2[1] == 3 && w2[2] == 5 && w2[3] == 6); } /* columns 1, 2 */
        const float *w2m = const_data(mk, "y.w", shape, &rank);
        CHECK(w2m && shape[1] == 3);
        if (w2m) { CHECK(w2m[0] == 0 && w2m[1] == 2 && w2m[3] == 0 && w2m[5] == 6); } /* column 0 zeroed */
        /* 23 -> 16 parameters: W1 8 + b1 2 + W2 4 + b2 2 */
        uint64_t removed = 0;
        CHECK_OK(lg_prune_expected_params(m, gs, &sel, 1, &removed, &e), &e);
        CHECK_EQ_INT(removed, 7);
        /* x = [1, 1, 1, 1]: h = [1.5, 2, 4], r = h; y = W2 r + b2 = [1.5+4+12+.25, 6+10+24-.25] =
           [17.75, 39.75]; pruned (channels 1, 2): [4+12+.25, 10+24-.25] = [16.25, 33.75]. */
        const float x[4] = {1, 1, 1, 1};
        float yo[2], yp[2], ym[2];
        CHECK(run1(m, x, 4, yo, 2) && run1(p, x, 4, yp, 2) && run1(mk, x, 4, ym, 2));
        CHECK_NEAR(yo[0], 17.75, 1e-5); CHECK_NEAR(yo[1], 39.75, 1e-5);
        CHECK_NEAR(yp[0], 16.25, 1e-5); CHECK_NEAR(yp[1], 33.75, 1e-5);
        CHECK_NEAR(ym[0], yp[0], 1e-6); CHECK_NEAR(ym[1], yp[1], 1e-6);
    }
    /* the handbook's masking: W1 row 0 and b1[0] zeroed; ReLU(0) = 0 so y equals the pruned
       model's [16.25, 33.75] */
    lg_model *mr = NULL;
    CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_MASKED_ROWS, &mr, &e), &e);
    if (mr) {
        int32_t shape[8]; uint32_t rank;
        const float *w1 = const_data(mr, "h.w", shape, &rank), *b1 = const_data(mr, "h.b", shape, &rank);
        CHECK(w1 && b1 && shape[0] == 3);
        if (w1 && b1) { CHECK(w1[0] == 0 && w1[5] == 3 && b1[0] == 0 && b1[1] == -1); }
        const float x[4] = {1, 1, 1, 1};
        float yr[2];
        CHECK(run1(mr, x, 4, yr, 2));
        CHECK_NEAR(yr[0], 16.25, 1e-5); CHECK_NEAR(yr[1], 33.75, 1e-5);
    }
    lg_model_free(mr);
    lg_model_free(p); lg_model_free(mk);
    /* refusals: the fixed group, a keep list out of order, keeping none */
    uint32_t bad[2] = {2, 1};
    lg_prune_sel s2 = {.group = 1, .keep = keep, .n_keep = 1};
    CHECK(lg_prune_apply(m, gs, &s2, 1, LG_PRUNE_PHYSICAL, &p, &e) == LG_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "fixed") != NULL);
    lg_prune_sel s3 = {.group = 0, .keep = bad, .n_keep = 2};
    CHECK(lg_prune_apply(m, gs, &s3, 1, LG_PRUNE_PHYSICAL, &p, &e) == LG_ERR_INVALID_ARG);
    lg_prune_sel s4 = {.group = 0, .keep = keep, .n_keep = 0};
    CHECK(lg_prune_apply(m, gs, &s4, 1, LG_PRUNE_PHYSICAL, &p, &e) == LG_ERR_INVALID_ARG);
    lg_prune_groups_free(gs);
    lg_model_free(m);
}

/* near-miss: the hidden tensor is also a model output -> the FFN group is fixed */
LG_TEST(prune_ffn_feeding_output_is_fixed) {
    lg_model *m = ffn_model(true);
    CHECK(m != NULL);
    if (!m) return;
    lg_prune_groups *gs = NULL; lg_error e;
    CHECK_OK(lg_prune_groups_find(m, &gs, &e), &e);
    if (gs) {
        CHECK(gs->groups[0].fixed);
        CHECK(!gs->groups[0].prunable);
        CHECK(strstr(gs->groups[0].why, "model output") != NULL);
    }
    lg_prune_groups_free(gs);
    lg_model_free(m);
}

/* ---------------------------------------------------------------- residual */

/* x[1,4] -> FC_a -> a; a -> FC_b -> b; s = ADD(a, other) -> FC_c (2x4) -> y, other = b (the
   residual), x (a model input), EXP(x) (no prunable producer), a [4] constant or a [1] one. */
enum { OTHER_B, OTHER_X, OTHER_EXP, OTHER_CONST4, OTHER_CONST1 };
static lg_model *residual_model(int other) {
    lg_builder b;
    if (!new_model(&b)) return NULL;
    float w[16], bias[4] = {0.1f, 0.2f, 0.3f, 0.4f}, wc[8] = {1, 2, 3, 4, 5, 6, 7, 8}, bc[2] = {0, 0};
    for (int i = 0; i < 16; i++) w[i] = (float)((i * 7) % 5) - 2;
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int a = fc(&b, "a", x, 4, 4, w, bias, LG_DIMS(1, 4));
    int o = -1;
    if (other == OTHER_B) o = fc(&b, "b", a, 4, 4, w, bias, LG_DIMS(1, 4));
    else if (other == OTHER_X) o = x;
    else if (other == OTHER_EXP) { o = lg_b_tensor(&b, "e", LG_FLOAT32, LG_DIMS(1, 4)); lg_b_op(&b, LG_OP_EXP, LG_IDS(x), LG_IDS(o)); }
    else if (other == OTHER_CONST4) o = lg_b_const_f32(&b, "k4", LG_DIMS(4), bias);
    else o = lg_b_const_f32(&b, "k1", LG_DIMS(1), bias);
    int s = lg_b_tensor(&b, "s", LG_FLOAT32, LG_DIMS(1, 4));
    lg_b_op(&b, LG_OP_ADD, LG_IDS(a, o), LG_IDS(s));
    int y = fc(&b, "y", s, 2, 4, wc, bc, LG_DIMS(1, 2));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    return done(&b);
}

LG_TEST(prune_residual_add_couples) {
    lg_model *m = residual_model(OTHER_B);
    CHECK(m != NULL);
    if (!m) return;
    lg_prune_groups *gs = NULL; lg_error e;
    CHECK_OK(lg_prune_groups_find(m, &gs, &e), &e);
    if (!gs) { lg_model_free(m); return; }
    /* FC_a and FC_b merge into one group (plus the fixed head) */
    CHECK_EQ_INT(gs->n_groups, 2);
    const lg_prune_group *g = &gs->groups[0];
    CHECK_STR(g->kind, "residual");
    CHECK(g->prunable && g->residual);
    CHECK_EQ_INT(g->n_producers, 2);
    /* per channel: W_a row 4 + b_a 1 + W_b row 4 + b_b 1 + W_b column 4 + W_c column 2 = 16 */
    CHECK_EQ_INT(g->params_per_unit, 16);
    uint32_t keep[2] = {0, 3};
    lg_prune_sel sel = {.group = 0, .keep = keep, .n_keep = 2};
    lg_model *p = NULL, *mk = NULL;
    CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_PHYSICAL, &p, &e), &e);
    CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_MASKED, &mk, &e), &e);
    uint64_t removed = 0;
    CHECK_OK(lg_prune_expected_params(m, gs, &sel, 1, &removed, &e), &e);
    /* W_a 16->8, b_a 4->2, W_b 16->4 (2x2), b_b 4->2, W_c 8->4: 8+2+12+2+4 = 28 */
    CHECK_EQ_INT(removed, 28);
    if (p && mk) {
        int32_t shape[8]; uint32_t rank;
        const float *wb = const_data(p, "b.w", shape, &rank);
        CHECK(wb && shape[0] == 2 && shape[1] == 2);
        /* W[i][j] = ((4i+j)*7 % 5) - 2: kept rows/cols {0,3}: W00=-2, W03=(21%5)-2=-1,
           W30=(84%5)-2=2, W33=(105%5)-2=-2 */
        if (wb) { CHECK(wb[0] == -2 && wb[1] == -1 && wb[2] == 2 && wb[3] == -2); }
        const float x[4] = {0.5f, -1, 2, 0.25f};
        float yp[2], ym[2];
        CHECK(run1(p, x, 4, yp, 2) && run1(mk, x, 4, ym, 2));
        CHECK_NEAR(yp[0], ym[0], 1e-5 * fabs(ym[0]) + 1e-6);
        CHECK_NEAR(yp[1], ym[1], 1e-5 * fabs(ym[1]) + 1e-6);
    }
    lg_model_free(p); lg_model_free(mk);
    lg_prune_groups_free(gs);
    lg_model_free(m);
}

/* near-misses: the residual operand is a model input, or comes from an op that is not a
   prunable producer: refused, naming the op; broadcast constants are not couplings */
LG_TEST(prune_residual_near_misses) {
    const int others[4] = {OTHER_X, OTHER_EXP, OTHER_CONST4, OTHER_CONST1};
    for (int k = 0; k < 4; k++) {
        lg_model *m = residual_model(others[k]);
        CHECK(m != NULL);
        if (!m) continue;
        lg_prune_groups *gs = NULL; lg_error e;
        CHECK_OK(lg_prune_groups_find(m, &gs, &e), &e);
        if (gs) {
            const lg_prune_group *g = &gs->groups[0];
            if (others[k] == OTHER_X) { CHECK(!g->prunable); CHECK(strstr(g->why, "model input") != NULL); CHECK(strstr(g->why, "op 1 (ADD)") != NULL); }
            if (others[k] == OTHER_EXP) { CHECK(!g->prunable); CHECK(strstr(g->why, "(EXP)") != NULL); }
            if (others[k] == OTHER_CONST4) {
                CHECK(g->prunable);
                bool sliced = false;
                for (uint32_t i = 0; i < g->n_members; i++) sliced |= g->members[i].role == LG_PRUNE_SLICED;
                CHECK(sliced);
                CHECK_EQ_INT(g->params_per_unit, 4 + 1 + 1 + 2); /* row, bias, the [4] constant, W_c column */
            }
            if (others[k] == OTHER_CONST1) { CHECK(g->prunable); CHECK_EQ_INT(g->params_per_unit, 4 + 1 + 2); }
        }
        lg_prune_groups_free(gs);
        lg_model_free(m);
    }
}

/* ---------------------------------------------------------------- concat */

/* x[1,4] -> FC_a (2) -> a, FC_b (3) -> b; c = CONCAT(a, b, axis 1) [1,5] -> FC_y (2x5) -> y */
LG_TEST(prune_concat_offsets) {
    lg_builder b;
    lg_model *m = new_model(&b);
    CHECK(m != NULL);
    if (!m) return;
    float w[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, bias[3] = {0, 0, 0};
    float wy[10] = {0, 1, 2, 3, 4, 10, 11, 12, 13, 14}, by[2] = {0, 0};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int a = fc(&b, "a", x, 2, 4, w, bias, LG_DIMS(1, 2));
    int bb = fc(&b, "b", x, 3, 4, w, bias, LG_DIMS(1, 3));
    int c = lg_b_tensor(&b, "c", LG_FLOAT32, LG_DIMS(1, 5));
    lg_concatenation_options co;
    lg_opts_init(LG_OPTS_CONCATENATION_OPTIONS, &co, sizeof co);
    co.axis = 1;
    lg_b_op_opts(&b, LG_OP_CONCATENATION, LG_IDS(a, bb), LG_IDS(c), LG_OPTS_CONCATENATION_OPTIONS, &co);
    int y = fc(&b, "y", c, 2, 5, wy, by, LG_DIMS(1, 2));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    m = done(&b);
    CHECK(m != NULL);
    if (!m) return;
    lg_prune_groups *gs = NULL; lg_error e;
    CHECK_OK(lg_prune_groups_find(m, &gs, &e), &e);
    if (gs) {
        CHECK_EQ_INT(gs->n_groups, 3);
        CHECK_STR(gs->groups[1].kind, "concat");
        CHECK(gs->groups[0].prunable && gs->groups[1].prunable);
        /* group of b: the consumer column member sits at offset 2 */
        bool off2 = false;
        for (uint32_t i = 0; i < gs->groups[1].n_members; i++)
            off2 |= gs->groups[1].members[i].role == LG_PRUNE_CONSUMER && gs->groups[1].members[i].offset == 2;
        CHECK(off2);
        /* prune b to its channels {0, 2}: the concat's column 3 (= 2 + 1) goes from W_y */
        uint32_t keep[2] = {0, 2};
        lg_prune_sel sel = {.group = 1, .keep = keep, .n_keep = 2};
        lg_model *p = NULL;
        CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_PHYSICAL, &p, &e), &e);
        if (p) {
            int32_t shape[8]; uint32_t rank;
            const float *wp = const_data(p, "y.w", shape, &rank);
            CHECK(wp && shape[0] == 2 && shape[1] == 4);
            if (wp) { CHECK(wp[0] == 0 && wp[1] == 1 && wp[2] == 2 && wp[3] == 4 && wp[4] == 10 && wp[7] == 14); }
        }
        lg_model_free(p);
    }
    lg_prune_groups_free(gs);
    lg_model_free(m);
}

/* ---------------------------------------------------------------- depthwise, grouped */

/* x[1,2,2,4] -> CONV_a (4 -> 4) -> a -> MID -> m -> CONV_y (4 -> 2) -> y;
   MID = DEPTHWISE 1x1 (multiplier 1), or a grouped CONV_2D 1x1 with filters [4,1,1,2]
   (groups = 4 / 2 = 2). */
static lg_model *mid_model(bool depthwise) {
    lg_builder b;
    if (!new_model(&b)) return NULL;
    float wa[16], ba[4] = {1, 2, 3, 4}, wm[8] = {1, 2, 3, 4, 5, 6, 7, 8}, bm[4] = {0.5f, 0.25f, 0.125f, 1};
    float wy[8] = {1, 1, 1, 1, 2, 2, 2, 2}, by[2] = {0, 0};
    for (int i = 0; i < 16; i++) wa[i] = (float)(i % 4 == i / 4);
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 4));
    int a = conv1x1(&b, "a", x, 4, 4, wa, ba);
    int mid;
    if (depthwise) {
        int wt = lg_b_const_f32(&b, "m.w", LG_DIMS(1, 1, 1, 4), wm);
        int bt = lg_b_const_f32(&b, "m.b", LG_DIMS(4), bm);
        mid = lg_b_tensor(&b, "m", LG_FLOAT32, LG_DIMS(1, 2, 2, 4));
        lg_depthwise_conv2d_options dw;
        lg_opts_init(LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &dw, sizeof dw);
        dw.padding = LG_PADDING_SAME; dw.stride_w = dw.stride_h = 1; dw.depth_multiplier = 1;
        lg_b_op_opts(&b, LG_OP_DEPTHWISE_CONV_2D, LG_IDS(a, wt, bt), LG_IDS(mid), LG_OPTS_DEPTHWISE_CONV2D_OPTIONS, &dw);
    } else {
        mid = conv1x1(&b, "m", a, 4, 2, wm, bm);
    }
    int y = conv1x1(&b, "y", mid, 2, 4, wy, by);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    return done(&b);
}

LG_TEST(prune_depthwise_carries_channels) {
    lg_model *m = mid_model(true);
    CHECK(m != NULL);
    if (!m) return;
    lg_prune_groups *gs = NULL; lg_error e;
    CHECK_OK(lg_prune_groups_find(m, &gs, &e), &e);
    if (gs) {
        const lg_prune_group *g = &gs->groups[0];
        CHECK_STR(g->kind, "depthwise");
        CHECK(g->prunable && g->depthwise);
        CHECK_EQ_INT(g->n_units, 4);
        /* per channel: CONV_a row 4 + bias 1, depthwise filter 1 + bias 1, CONV_y column 2 = 9 */
        CHECK_EQ_INT(g->params_per_unit, 9);
        uint32_t keep[2] = {1, 3};
        lg_prune_sel sel = {.group = 0, .keep = keep, .n_keep = 2};
        lg_model *p = NULL;
        CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_PHYSICAL, &p, &e), &e);
        if (p) {
            int32_t shape[8]; uint32_t rank;
            const float *wm = const_data(p, "m.w", shape, &rank);
            CHECK(wm && shape[3] == 2);
            if (wm) { CHECK(wm[0] == 2 && wm[1] == 4); }
            const float *bm = const_data(p, "m.b", shape, &rank);
            if (bm) { CHECK(bm[0] == 0.25f && bm[1] == 1); }
        }
        lg_model_free(p);
    }
    lg_prune_groups_free(gs);
    lg_model_free(m);
}

LG_TEST(prune_grouped_conv_whole_groups) {
    lg_model *m = mid_model(false);
    CHECK(m != NULL);
    if (!m) return;
    lg_prune_groups *gs = NULL; lg_error e;
    CHECK_OK(lg_prune_groups_find(m, &gs, &e), &e);
    if (gs) {
        /* CONV_a's group crosses the grouped conv: 2 conv groups of 2 channels */
        const lg_prune_group *g = &gs->groups[0];
        CHECK_STR(g->kind, "grouped");
        CHECK(g->prunable);
        CHECK_EQ_INT(g->n_units, 2);
        CHECK_EQ_INT(g->unit, 2);
        /* the grouped conv is no producer of its own: groups = CONV_a's, CONV_y's (fixed) */
        CHECK_EQ_INT(gs->n_groups, 2);
        uint32_t keep[1] = {1};
        lg_prune_sel sel = {.group = 0, .keep = keep, .n_keep = 1};
        lg_model *p = NULL, *mk = NULL;
        CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_PHYSICAL, &p, &e), &e);
        CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_MASKED, &mk, &e), &e);
        if (p && mk) {
            int32_t shape[8]; uint32_t rank;
            const float *wm = const_data(p, "m.w", shape, &rank);
            /* conv group 1 = output filters 2, 3 (each reading input channels 2, 3) */
            CHECK(wm && shape[0] == 2 && shape[3] == 2);
            if (wm) { CHECK(wm[0] == 5 && wm[3] == 8); }
            const float *wy = const_data(p, "y.w", shape, &rank);
            CHECK(wy && shape[3] == 2);
            float x[16], yp[8], ym[8];
            for (int i = 0; i < 16; i++) x[i] = (float)i / 8 - 1;
            CHECK(run1(p, x, 16, yp, 8) && run1(mk, x, 16, ym, 8));
            for (int i = 0; i < 8; i++) CHECK_NEAR(yp[i], ym[i], 1e-5);
        }
        lg_model_free(p); lg_model_free(mk);
    }
    lg_prune_groups_free(gs);
    lg_model_free(m);
}

/* ---------------------------------------------------------------- heads */

/* Decomposed attention, width 4, 2 heads of 2, 3 tokens: q/k/v FC -> RESHAPE [1,3,2,2] ->
   TRANSPOSE; BATCH_MATMUL(q, k^T) -> SOFTMAX -> BATCH_MATMUL(., v) -> TRANSPOSE -> RESHAPE
   [1,3,4] -> FC_o -> y. */
static int heads_split(lg_builder *b, const char *name, int t, const int32_t *perm, lg_dims oshape) {
    char n1[64], n2[64], n3[64];
    snprintf(n1, sizeof n1, "%s.shape", name); snprintf(n2, sizeof n2, "%s.perm", name); snprintf(n3, sizeof n3, "%s.r", name);
    const int32_t sh[4] = {1, 3, 2, 2};
    int s = lg_b_const_i32(b, n1, LG_DIMS(4), sh);
    int r = lg_b_tensor(b, n3, LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    lg_b_op(b, LG_OP_RESHAPE, LG_IDS(t, s), LG_IDS(r));
    int p = lg_b_const_i32(b, n2, LG_DIMS(4), perm);
    int o = lg_b_tensor(b, name, LG_FLOAT32, oshape);
    lg_b_op(b, LG_OP_TRANSPOSE, LG_IDS(r, p), LG_IDS(o));
    return o;
}

/* fused: one FC 4 -> 12 (weights = the three of the split form stacked) and three
   STRIDED_SLICEs [0,4), [4,8), [8,12) of its last axis, as a fused QKV projection. */
static int slice_last(lg_builder *b, const char *name, int t, int32_t from, int32_t to) {
    char n1[64], n2[64], n3[64];
    snprintf(n1, sizeof n1, "%s.begin", name); snprintf(n2, sizeof n2, "%s.end", name); snprintf(n3, sizeof n3, "%s.strides", name);
    const int32_t bv[3] = {0, 0, from}, ev[3] = {1, 3, to}, sv[3] = {1, 1, 1};
    int bt = lg_b_const_i32(b, n1, LG_DIMS(3), bv), et = lg_b_const_i32(b, n2, LG_DIMS(3), ev);
    int st = lg_b_const_i32(b, n3, LG_DIMS(3), sv);
    int y = lg_b_tensor(b, name, LG_FLOAT32, LG_DIMS(1, 3, to - from));
    lg_strided_slice_options so;
    memset(&so, 0, sizeof so);
    lg_b_op_opts(b, LG_OP_STRIDED_SLICE, LG_IDS(t, bt, et, st), LG_IDS(y), LG_OPTS_STRIDED_SLICE_OPTIONS, &so);
    return y;
}

static lg_model *heads_model_ex(bool fused) {
    lg_builder b;
    if (!new_model(&b)) return NULL;
    float w[16], bias[4] = {0.1f, -0.1f, 0.2f, -0.2f}, z[4] = {0, 0, 0, 0};
    for (int i = 0; i < 16; i++) w[i] = (float)((i * 5) % 7) / 7 - 0.4f;
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 3, 4));
    int q, k, v;
    if (fused) {
        float w3[48], b3[12];
        for (int i = 0; i < 48; i++) w3[i] = w[i % 16];
        for (int i = 0; i < 12; i++) b3[i] = i / 4 == 1 ? 0 : bias[i % 4];
        int qkv = fc(&b, "qkv", x, 12, 4, w3, b3, LG_DIMS(1, 3, 12));
        q = slice_last(&b, "q", qkv, 0, 4);
        k = slice_last(&b, "k", qkv, 4, 8);
        v = slice_last(&b, "v", qkv, 8, 12);
    } else {
        q = fc(&b, "q", x, 4, 4, w, bias, LG_DIMS(1, 3, 4));
        k = fc(&b, "k", x, 4, 4, w, z, LG_DIMS(1, 3, 4));
        v = fc(&b, "v", x, 4, 4, w, bias, LG_DIMS(1, 3, 4));
    }
    const int32_t p0213[4] = {0, 2, 1, 3}, p0231[4] = {0, 2, 3, 1};
    int qh = heads_split(&b, "qh", q, p0213, LG_DIMS(1, 2, 3, 2));
    int kh = heads_split(&b, "kh", k, p0231, LG_DIMS(1, 2, 2, 3));
    int vh = heads_split(&b, "vh", v, p0213, LG_DIMS(1, 2, 3, 2));
    int s = lg_b_tensor(&b, "s", LG_FLOAT32, LG_DIMS(1, 2, 3, 3));
    lg_b_op(&b, LG_OP_BATCH_MATMUL, LG_IDS(qh, kh), LG_IDS(s));
    int sm = lg_b_tensor(&b, "sm", LG_FLOAT32, LG_DIMS(1, 2, 3, 3));
    lg_softmax_options so = {.beta = 1};
    lg_b_op_opts(&b, LG_OP_SOFTMAX, LG_IDS(s), LG_IDS(sm), LG_OPTS_SOFTMAX_OPTIONS, &so);
    int av = lg_b_tensor(&b, "av", LG_FLOAT32, LG_DIMS(1, 2, 3, 2));
    lg_b_op(&b, LG_OP_BATCH_MATMUL, LG_IDS(sm, vh), LG_IDS(av));
    int pt = lg_b_const_i32(&b, "back.perm", LG_DIMS(4), p0213);
    int at = lg_b_tensor(&b, "at", LG_FLOAT32, LG_DIMS(1, 3, 2, 2));
    lg_b_op(&b, LG_OP_TRANSPOSE, LG_IDS(av, pt), LG_IDS(at));
    const int32_t sh3[3] = {1, 3, 4};
    int s3 = lg_b_const_i32(&b, "back.shape", LG_DIMS(3), sh3);
    int mg = lg_b_tensor(&b, "merged", LG_FLOAT32, LG_DIMS(1, 3, 4));
    lg_b_op(&b, LG_OP_RESHAPE, LG_IDS(at, s3), LG_IDS(mg));
    int y = fc(&b, "y", mg, 4, 4, w, bias, LG_DIMS(1, 3, 4));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    return done(&b);
}

LG_TEST(prune_attention_heads) {
    lg_model *m = heads_model_ex(false);
    CHECK(m != NULL);
    if (!m) return;
    lg_prune_groups *gs = NULL; lg_error e;
    CHECK_OK(lg_prune_groups_find(m, &gs, &e), &e);
    if (gs) {
        /* q, k, v coupled through the two BATCH_MATMULs' head axis; y fixed */
        CHECK_EQ_INT(gs->n_groups, 2);
        const lg_prune_group *g = &gs->groups[0];
        CHECK_STR(g->kind, "heads");
        CHECK(g->prunable && g->heads);
        CHECK_EQ_INT(g->n_producers, 3);
        CHECK_EQ_INT(g->n_units, 2);
        CHECK_EQ_INT(g->unit, 2);
        /* per head: q/k/v 2 rows of 4 + 2 biases each = 30, FC_o 2 columns of 4 = 8: 38 */
        CHECK_EQ_INT(g->params_per_unit, 38);
        uint32_t keep[1] = {1};
        lg_prune_sel sel = {.group = 0, .keep = keep, .n_keep = 1};
        lg_model *p = NULL, *mk = NULL;
        CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_PHYSICAL, &p, &e), &e);
        CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_MASKED, &mk, &e), &e);
        if (p && mk) {
            int32_t shape[8]; uint32_t rank;
            const float *wq = const_data(p, "q.w", shape, &rank);
            CHECK(wq && shape[0] == 2 && shape[1] == 4);
            /* rows 2, 3 of w: w[8] = (40 % 7)/7 - 0.4 = 5/7 - 0.4 */
            if (wq) CHECK_NEAR(wq[0], 5.0 / 7 - 0.4, 1e-6);
            const float *wo = const_data(p, "y.w", shape, &rank);
            CHECK(wo && shape[0] == 4 && shape[1] == 2);
            /* y.w columns 2, 3: row 0 = w[2], w[3] = (10%7)/7-.4, (15%7)/7-.4 */
            if (wo) { CHECK_NEAR(wo[0], 3.0 / 7 - 0.4, 1e-6); CHECK_NEAR(wo[1], 1.0 / 7 - 0.4, 1e-6); }
            float x[12], yp[12], ym[12];
            for (int i = 0; i < 12; i++) x[i] = (float)((i * 3) % 5) / 5 - 0.5f;
            CHECK(run1(p, x, 12, yp, 12) && run1(mk, x, 12, ym, 12));
            for (int i = 0; i < 12; i++) CHECK_NEAR(yp[i], ym[i], 1e-5);
        }
        lg_model_free(p); lg_model_free(mk);
    }
    lg_prune_groups_free(gs);
    lg_model_free(m);
}

/* The fused form: the three slices are producers of their own, coupled into one heads group;
   keeping head 1 keeps rows 2, 3, 6, 7, 10, 11 of the fused weights, and each slice's begin/end
   become [0,2), [2,4), [4,6). The split and the fused model compute the same function, so the
   pruned fused model equals the pruned split one. */
LG_TEST(prune_fused_qkv_slices) {
    lg_model *m = heads_model_ex(true), *ms = heads_model_ex(false);
    CHECK(m && ms);
    if (!m || !ms) { lg_model_free(m); lg_model_free(ms); return; }
    lg_prune_groups *gs = NULL, *gss = NULL; lg_error e;
    CHECK_OK(lg_prune_groups_find(m, &gs, &e), &e);
    CHECK_OK(lg_prune_groups_find(ms, &gss, &e), &e);
    if (gs && gss) {
        CHECK_EQ_INT(gs->n_groups, 2);
        const lg_prune_group *g = &gs->groups[0];
        CHECK_STR(g->kind, "heads");
        CHECK(g->prunable);
        CHECK_EQ_INT(g->n_producers, 3);
        CHECK_EQ_INT(g->n_units, 2);
        CHECK_EQ_INT(g->params_per_unit, 38);   /* as the split form */
        uint32_t keep[1] = {1};
        lg_prune_sel sel = {.group = 0, .keep = keep, .n_keep = 1};
        lg_model *p = NULL, *ps = NULL;
        CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_PHYSICAL, &p, &e), &e);
        CHECK_OK(lg_prune_apply(ms, gss, &sel, 1, LG_PRUNE_PHYSICAL, &ps, &e), &e);
        if (p && ps) {
            int32_t shape[8]; uint32_t rank;
            const float *w3 = const_data(p, "qkv.w", shape, &rank);
            CHECK(w3 && shape[0] == 6 && shape[1] == 4);
            /* row 2 of the fused weights (w[8..11]) first, then rows 3, 6 (= w row 2 again) */
            if (w3) { CHECK_NEAR(w3[0], 5.0 / 7 - 0.4, 1e-6); CHECK_NEAR(w3[8], 5.0 / 7 - 0.4, 1e-6); }
            const int32_t *kb = (const int32_t *)(const void *)const_data(p, "prune/slice_2_begin", shape, &rank);
            const int32_t *ke = (const int32_t *)(const void *)const_data(p, "prune/slice_2_end", shape, &rank);
            CHECK(kb && ke);
            if (kb && ke) { CHECK_EQ_INT(kb[2], 2); CHECK_EQ_INT(ke[2], 4); }
            float x[12], yf[12], ys[12];
            for (int i = 0; i < 12; i++) x[i] = (float)((i * 3) % 5) / 5 - 0.5f;
            CHECK(run1(p, x, 12, yf, 12) && run1(ps, x, 12, ys, 12));
            for (int i = 0; i < 12; i++) CHECK_NEAR(yf[i], ys[i], 1e-5);
        }
        lg_model_free(p); lg_model_free(ps);
    }
    lg_prune_groups_free(gs); lg_prune_groups_free(gss);
    lg_model_free(m); lg_model_free(ms);
}

/* near-miss: a RESHAPE that merges another axis into the channel axis, and a GATHER on the
   channels: refused with the op named */
LG_TEST(prune_reshape_mixing_refused) {
    for (int k = 0; k < 2; k++) {
        lg_builder b;
        lg_model *m = new_model(&b);
        CHECK(m != NULL);
        if (!m) return;
        float w[16], bias[4] = {0, 0, 0, 0};
        for (int i = 0; i < 16; i++) w[i] = (float)i;
        int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 4));
        int a = fc(&b, "a", x, 4, 4, w, bias, LG_DIMS(1, 2, 4));
        int r;
        if (k == 0) {
            const int32_t sh[2] = {1, 8};
            int s = lg_b_const_i32(&b, "shape", LG_DIMS(2), sh);
            r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(1, 8));
            lg_b_op(&b, LG_OP_RESHAPE, LG_IDS(a, s), LG_IDS(r));
        } else {
            const int32_t idx[2] = {0, 3};
            int s = lg_b_const_i32(&b, "idx", LG_DIMS(2), idx);
            r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(1, 2, 2));
            lg_gather_options go = {.axis = 2};
            lg_b_op_opts(&b, LG_OP_GATHER, LG_IDS(a, s), LG_IDS(r), LG_OPTS_GATHER_OPTIONS, &go);
        }
        int y = lg_b_tensor(&b, "y", LG_FLOAT32, k == 0 ? LG_DIMS(1, 8) : LG_DIMS(1, 2, 2));
        lg_b_op(&b, LG_OP_RELU, LG_IDS(r), LG_IDS(y));
        lg_b_io(&b, LG_IDS(x), LG_IDS(y));
        m = done(&b);
        CHECK(m != NULL);
        if (!m) return;
        lg_prune_groups *gs = NULL; lg_error e;
        CHECK_OK(lg_prune_groups_find(m, &gs, &e), &e);
        if (gs) {
            CHECK_EQ_INT(gs->n_groups, 1);
            CHECK(!gs->groups[0].prunable && !gs->groups[0].fixed);
            CHECK(strstr(gs->groups[0].why, k == 0 ? "op 1 (RESHAPE): mixes" : "op 1 (GATHER)") != NULL);
            uint32_t keep[1] = {0};
            lg_prune_sel sel = {.group = 0, .keep = keep, .n_keep = 1};
            lg_model *p = NULL;
            CHECK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_PHYSICAL, &p, &e) == LG_ERR_INVALID_ARG);
            CHECK(strstr(e.msg, "not prunable") != NULL && p == NULL);
        }
        lg_prune_groups_free(gs);
        lg_model_free(m);
    }
}

/* the kept set: the k largest, ties to the lower index, ascending */
LG_TEST(prune_top_k_ties) {
    const double s[4] = {1, 3, 3, 2}, t[3] = {5, 5, 5}, nn[3] = {NAN, 1, 2};
    uint32_t k[3]; lg_error e;
    CHECK_OK(lg_prune_top_k(s, 4, 2, k, &e), &e);
    CHECK_EQ_INT(k[0], 1); CHECK_EQ_INT(k[1], 2);
    CHECK_OK(lg_prune_top_k(s, 4, 3, k, &e), &e);
    CHECK_EQ_INT(k[0], 1); CHECK_EQ_INT(k[1], 2); CHECK_EQ_INT(k[2], 3);
    CHECK_OK(lg_prune_top_k(t, 3, 1, k, &e), &e);
    CHECK_EQ_INT(k[0], 0);
    CHECK_OK(lg_prune_top_k(t, 3, 2, k, &e), &e);
    CHECK_EQ_INT(k[0], 0); CHECK_EQ_INT(k[1], 1);
    CHECK_OK(lg_prune_top_k(nn, 3, 2, k, &e), &e);   /* the NaN loses */
    CHECK_EQ_INT(k[0], 1); CHECK_EQ_INT(k[1], 2);
    CHECK(lg_prune_top_k(s, 4, 5, k, &e) == LG_ERR_INVALID_ARG);
}

/* ---------------------------------------------------------------- FLOAT16 weights */

/* The FFN of ffn_model with every weight and bias stored FLOAT16 behind a DEQUANTIZE (the
   form `convert --weights fp16` writes). The values are exact in half precision. */
static int fc16(lg_builder *b, const char *name, int x, int out, int in, const float *w, const float *bias, lg_dims oshape) {
    char nw[64], nb[64], nw16[64], nb16[64];
    snprintf(nw, sizeof nw, "%s.w", name); snprintf(nb, sizeof nb, "%s.b", name);
    snprintf(nw16, sizeof nw16, "%s.w16", name); snprintf(nb16, sizeof nb16, "%s.b16", name);
    uint16_t hw[64], hb[16];
    for (int i = 0; i < out * in; i++) hw[i] = lg_float_to_half(w[i]);
    for (int i = 0; i < out; i++) hb[i] = lg_float_to_half(bias[i]);
    int w16 = lg_b_const(b, nw16, LG_FLOAT16, LG_DIMS(out, in), hw, (uint64_t)(out * in) * 2);
    int b16 = lg_b_const(b, nb16, LG_FLOAT16, LG_DIMS(out), hb, (uint64_t)out * 2);
    int wt = lg_b_tensor(b, nw, LG_FLOAT32, LG_DIMS(out, in));
    int bt = lg_b_tensor(b, nb, LG_FLOAT32, LG_DIMS(out));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(w16), LG_IDS(wt));
    lg_b_op(b, LG_OP_DEQUANTIZE, LG_IDS(b16), LG_IDS(bt));
    int y = lg_b_tensor(b, name, LG_FLOAT32, oshape);
    lg_b_op(b, LG_OP_FULLY_CONNECTED, LG_IDS(x, wt, bt), LG_IDS(y));
    return y;
}

LG_TEST(prune_fp16_weights_through_dequantize) {
    lg_builder b;
    lg_model *m = new_model(&b);
    CHECK(m != NULL);
    if (!m) return;
    static const float w1[12] = {1, 0, 0, 0, 0, 3, 0, 0, 0, 0, 2, 0}, b1[3] = {0.5f, -1, 2};
    static const float w2[6] = {1, 2, 3, 4, 5, 6}, b2[2] = {0.25f, -0.25f};
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int h = fc16(&b, "h", x, 3, 4, w1, b1, LG_DIMS(1, 3));
    int r = lg_b_tensor(&b, "r", LG_FLOAT32, LG_DIMS(1, 3));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(h), LG_IDS(r));
    int y = fc16(&b, "y", r, 2, 3, w2, b2, LG_DIMS(1, 2));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    m = done(&b);
    CHECK(m != NULL);
    if (!m) return;
    lg_prune_groups *gs = NULL; lg_error e;
    CHECK_OK(lg_prune_groups_find(m, &gs, &e), &e);
    if (gs) {
        const lg_prune_group *g = &gs->groups[0];
        CHECK(g->prunable);
        CHECK_EQ_INT(g->n_units, 3);
        /* the FLOAT16 constants are the parameters: 4 + 1 + 2 per channel, as in FLOAT32 */
        CHECK_EQ_INT(g->params_per_unit, 7);
        double sc[3];
        CHECK_OK(lg_prune_importance_magnitude(m, g, sc, &e), &e);
        CHECK_NEAR(sc[0], 1, 1e-12); CHECK_NEAR(sc[1], 3, 1e-12); CHECK_NEAR(sc[2], 2, 1e-12);
        uint32_t keep[2] = {1, 2};
        lg_prune_sel sel = {.group = 0, .keep = keep, .n_keep = 2};
        lg_model *p = NULL;
        CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_PHYSICAL, &p, &e), &e);
        if (p) {
            const lg_subgraph *sg = &p->subgraphs[0];
            for (uint32_t i = 0; i < sg->n_tensors; i++) {
                const lg_tensor *t = &sg->tensors[i];
                if (!t->name || strcmp(t->name, "y.w16")) continue;
                const lg_buffer *bf = lg_tensor_buffer(p, t);
                CHECK(t->type == LG_FLOAT16 && t->shape[0] == 2 && t->shape[1] == 2 && bf && bf->size == 8);
                if (bf) {
                    const uint16_t *hv = (const uint16_t *)(const void *)bf->data;
                    CHECK(lg_half_to_float(hv[0]) == 2 && lg_half_to_float(hv[1]) == 3 && lg_half_to_float(hv[3]) == 6);
                }
            }
            /* as in prune_ffn_group_and_surgery: y = [16.25, 33.75] on x = 1 */
            const float xv[4] = {1, 1, 1, 1};
            float yp[2];
            CHECK(run1(p, xv, 4, yp, 2));
            CHECK_NEAR(yp[0], 16.25, 1e-5); CHECK_NEAR(yp[1], 33.75, 1e-5);
        }
        lg_model_free(p);
    }
    lg_prune_groups_free(gs);
    lg_model_free(m);
}

/* ---------------------------------------------------------------- gated FFN (SPLIT) */

/* x[1,4] -> FC 4 -> 6 -> SPLIT(axis 1, 2) -> gate g, value v -> MUL(LOGISTIC(g), v) -> FC 3 -> 2.
   The two halves are producers of their own, coupled by the MUL (the handbook: "corresponding
   hidden channels must be removed from both branches and the downstream projection"). */
LG_TEST(prune_gated_ffn_split) {
    lg_builder b;
    lg_model *m = new_model(&b);
    CHECK(m != NULL);
    if (!m) return;
    float w[24], bias[6] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}, w2[6] = {1, 2, 3, 4, 5, 6}, b2[2] = {0, 0};
    for (int i = 0; i < 24; i++) w[i] = (float)i / 10;
    int x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int u = fc(&b, "u", x, 6, 4, w, bias, LG_DIMS(1, 6));
    const int32_t ax[1] = {1};
    int at = lg_b_const_i32(&b, "axis", LG_SCALAR, ax);
    int g = lg_b_tensor(&b, "g", LG_FLOAT32, LG_DIMS(1, 3)), v = lg_b_tensor(&b, "v", LG_FLOAT32, LG_DIMS(1, 3));
    lg_split_options so = {.num_splits = 2};
    lg_b_op_opts(&b, LG_OP_SPLIT, LG_IDS(at, u), LG_IDS(g, v), LG_OPTS_SPLIT_OPTIONS, &so);
    int sg = lg_b_tensor(&b, "sg", LG_FLOAT32, LG_DIMS(1, 3));
    lg_b_op(&b, LG_OP_LOGISTIC, LG_IDS(g), LG_IDS(sg));
    int h = lg_b_tensor(&b, "h", LG_FLOAT32, LG_DIMS(1, 3));
    lg_b_op(&b, LG_OP_MUL, LG_IDS(sg, v), LG_IDS(h));
    int y = fc(&b, "y", h, 2, 3, w2, b2, LG_DIMS(1, 2));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    m = done(&b);
    CHECK(m != NULL);
    if (!m) return;
    lg_prune_groups *gs = NULL; lg_error e;
    CHECK_OK(lg_prune_groups_find(m, &gs, &e), &e);
    if (gs) {
        CHECK_EQ_INT(gs->n_groups, 2);
        const lg_prune_group *gr = &gs->groups[0];
        CHECK_STR(gr->kind, "coupled");
        CHECK(gr->prunable);
        CHECK_EQ_INT(gr->n_producers, 2);
        CHECK_EQ_INT(gr->n_units, 3);
        /* per hidden channel: a gate row and a value row (4 + 1 each) and a W2 column (2) */
        CHECK_EQ_INT(gr->params_per_unit, 12);
        uint32_t keep[2] = {0, 2};
        lg_prune_sel sel = {.group = 0, .keep = keep, .n_keep = 2};
        lg_model *p = NULL, *mk = NULL;
        CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_PHYSICAL, &p, &e), &e);
        CHECK_OK(lg_prune_apply(m, gs, &sel, 1, LG_PRUNE_MASKED, &mk, &e), &e);
        if (p && mk) {
            int32_t shape[8]; uint32_t rank;
            const float *wu = const_data(p, "u.w", shape, &rank), *bu = const_data(p, "u.b", shape, &rank);
            CHECK(wu && bu && shape[0] == 4);
            /* rows 0, 2 (gate) and 3, 5 (value): first entries 0, 0.8, 1.2, 2.0 */
            if (wu) { CHECK_NEAR(wu[0], 0, 1e-6); CHECK_NEAR(wu[4], 0.8, 1e-6); CHECK_NEAR(wu[8], 1.2, 1e-6); CHECK_NEAR(wu[12], 2.0, 1e-6); }
            if (bu) { CHECK_NEAR(bu[1], 0.3, 1e-6); CHECK_NEAR(bu[2], 0.4, 1e-6); }
            const float xv[4] = {1, -1, 0.5f, 2};
            float yp[2], ym[2];
            CHECK(run1(p, xv, 4, yp, 2) && run1(mk, xv, 4, ym, 2));
            CHECK_NEAR(yp[0], ym[0], 1e-5); CHECK_NEAR(yp[1], ym[1], 1e-5);
        }
        lg_model_free(p); lg_model_free(mk);
    }
    lg_prune_groups_free(gs);
    lg_model_free(m);
}
