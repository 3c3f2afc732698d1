/* litegpu quantize int8-static (src/passes/quant_static.h): TFLite's asymmetric parameters
   against hand-derived numbers, and lg_quantize on small builder models whose calibration
   values give known ranges: the scales and zero points written, the per-channel weights and
   INT32 biases, the -inf PADV2 before a MAX_POOL (and its near misses), the fixed outputs of
   LOGISTIC / TANH / SOFTMAX, concatenation groups and requantization, float islands,
   exclusion, int8 I/O, the keep_float interface, progress and refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lg/graph.h"
#include "lg/quantize.h"
#include "lg/run.h"
#include "passes/quant_calib.h"
#include "passes/quant_static.h"
#include "tf.h"

/* ------------------------------------------------------------------ parameters */

LG_TEST(qstatic_asym_params_tflite_formula) {
    float s;
    int32_t z;
    /* [-1, 3]: scale 4 / 255; zp = -128 - (-1) / (4/255) = -128 + 63.75 = -64.25 -> -64 */
    lgq_asym_params(-1, 3, &s, &z);
    CHECK(s == 4.0f / 255.0f);
    CHECK_EQ_INT(z, -64);
    /* [-1.5, 253.5]: scale 1, zp = -128 + 1.5 = -126.5: half away from zero -> -127 (half to
       even would give -126) */
    lgq_asym_params(-1.5, 253.5, &s, &z);
    CHECK(s == 1.0f);
    CHECK_EQ_INT(z, -127);
    /* a range without 0 is widened to hold it: [2, 5] -> [0, 5], zp -128; [-5, -2] -> [-5, 0],
       zp = -128 + 255 = 127 */
    lgq_asym_params(2, 5, &s, &z);
    CHECK(s == 5.0f / 255.0f);
    CHECK_EQ_INT(z, -128);
    lgq_asym_params(-5, -2, &s, &z);
    CHECK(s == 5.0f / 255.0f);
    CHECK_EQ_INT(z, 127);
}

LG_TEST(qstatic_asym_params_degenerate_width) {
    float s;
    int32_t z;
    /* [0, 0] (a constant-zero tensor): the minimal width 1e-4 on the positive side */
    lgq_asym_params(0, 0, &s, &z);
    CHECK(s == (float)LGQ_MIN_WIDTH / 255.0f);
    CHECK_EQ_INT(z, -128);
    /* [-3e-5, 0]: widened on the negative side: [-1e-4, 0], zp 127 */
    lgq_asym_params(-3e-5, 0, &s, &z);
    CHECK(s == (float)LGQ_MIN_WIDTH / 255.0f);
    CHECK_EQ_INT(z, 127);
    /* near miss: [0, 2e-4] is wide enough and stays */
    lgq_asym_params(0, 2e-4, &s, &z);
    CHECK(s == 2e-4f / 255.0f);
    /* NaN bounds (a tensor never seen finite) count as 0 */
    lgq_asym_params(NAN, NAN, &s, &z);
    CHECK(s > 0 && isfinite(s));
}

/* ------------------------------------------------------------------ helpers */

static int32_t find_tensor(const lg_model *m, const char *name) {
    const lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t t = 0; t < sg->n_tensors; t++)
        if (sg->tensors[t].name && strcmp(sg->tensors[t].name, name) == 0) return (int32_t)t;
    return -1;
}

static uint32_t count_ops(const lg_model *m, int32_t code) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++) n += lg_op_builtin(m, &m->subgraphs[0].ops[i]) == code;
    return n;
}

/* Tensor `name` of m is INT8 with one scale s and zero point z. */
static bool has_params(const lg_model *m, const char *name, float s, int32_t z) {
    int32_t t = find_tensor(m, name);
    if (t < 0) return false;
    const lg_tensor *x = &m->subgraphs[0].tensors[t];
    const lg_quant *q = x->quant;
    return x->type == LG_INT8 && q && q->n_scale == 1 && q->scale[0] == s && q->n_zero_point == 1 && q->zero_point[0] == z;
}

/* No DEQUANTIZE output is read by a QUANTIZE (a pair that cancels). */
static bool no_cancelling_pair(const lg_model *m) {
    const lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        if (lg_op_builtin(m, &sg->ops[i]) != LG_OP_QUANTIZE) continue;
        for (uint32_t j = 0; j < sg->n_ops; j++)
            if (lg_op_builtin(m, &sg->ops[j]) == LG_OP_DEQUANTIZE && sg->ops[j].outputs[0] == sg->ops[i].inputs[0]) return false;
    }
    return true;
}

static lg_quant_options static_opts(const void *const *const *cases, uint32_t n) {
    lg_quant_options o;
    memset(&o, 0, sizeof o);
    o.mode = LG_QUANT_INT8_STATIC;
    o.cases = cases;
    o.n_cases = n;
    return o;
}

static lg_model *new_model(lg_builder *b) {
    lg_model *m = NULL;
    lg_error e;
    if (lg_model_new(NULL, NULL, &m, &e) != LG_OK) return NULL;
    lg_builder_init(b, m, 0);
    return m;
}

static lg_model *finish(lg_builder *b, lg_model *m) {
    if (b->status == LG_OK) return m;
    lg_model_free(m);
    return NULL;
}

/* ------------------------------------------------------------------ FC: weights, bias, I/O */

/* x [1,4] -> FULLY_CONNECTED (w [2,4] = [[1,0,0,0],[0,0,0,0.5]], b [0.25, -0.5]) -> y [1,2]. */
static lg_model *fc_model(void) {
    lg_builder b;
    lg_model *m = new_model(&b);
    if (!m) return NULL;
    static const float w[8] = {1, 0, 0, 0, 0, 0, 0, 0.5f}, bias[2] = {0.25f, -0.5f};
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t wt = lg_b_const_f32(&b, "fc/w", LG_DIMS(2, 4), w);
    int32_t bt = lg_b_const_f32(&b, "fc/b", LG_DIMS(2), bias);
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 2));
    lg_fully_connected_options fo;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, wt, bt), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    return finish(&b, m);
}

/* One case x = [-1, 0, 0.5, 3]: x in [-1, 3] (scale 4/255, zp -64 as above); y = [x0 + 0.25,
   0.5 x3 - 0.5] = [-0.75, 1]: scale 1.75 / 255, zp = -128 + 0.75 / (1.75/255) = -128 +
   109.29 -> -19. */
static const float fc_x[4] = {-1, 0, 0.5f, 3};
static const void *const fc_case[1] = {fc_x};
static const void *const *const fc_cases[1] = {fc_case};

LG_TEST(qstatic_fc_params_weights_bias) {
    lg_model *m = fc_model(), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = static_opts(fc_cases, 1);
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (!q || !r) goto out;
    const float sx = 4.0f / 255.0f;
    /* float I/O: QUANTIZE x -> x_int8, FC, y_int8 -> DEQUANTIZE -> y (the interface unchanged) */
    CHECK(has_params(q, "x_int8", sx, -64));
    CHECK(has_params(q, "y_int8", 1.75f / 255.0f, -19));
    CHECK_EQ_INT(q->subgraphs[0].n_ops, 3);
    CHECK_EQ_INT(count_ops(q, LG_OP_QUANTIZE), 1);
    CHECK_EQ_INT(count_ops(q, LG_OP_DEQUANTIZE), 1);
    CHECK_EQ_INT(q->subgraphs[0].tensors[q->subgraphs[0].inputs[0]].type, LG_FLOAT32);
    CHECK_EQ_INT(q->subgraphs[0].tensors[q->subgraphs[0].outputs[0]].type, LG_FLOAT32);
    /* weights per output channel: row 0 max 1 -> scale 1/127, q 127; row 1 max 0.5 -> 0.5/127 */
    int32_t wt = find_tensor(q, "fc/w_int8");
    CHECK(wt >= 0);
    if (wt >= 0) {
        const lg_tensor *w = &q->subgraphs[0].tensors[wt];
        CHECK(w->quant && w->quant->n_scale == 2 && w->quant->scale[0] == 1.0f / 127.0f && w->quant->scale[1] == 0.5f / 127.0f);
        const int8_t *d = (const int8_t *)lg_tensor_buffer(q, w)->data;
        CHECK_EQ_INT(d[0], 127);
        CHECK_EQ_INT(d[7], 127);
        CHECK_EQ_INT(d[3], 0);
    }
    /* bias INT32, scale s_x * s_w[c]: 0.25 / (4/255 / 127) = 0.25 x 8096.25 = 2024.06 -> 2024;
       -0.5 / (4/255 x 0.5/127) = -0.5 x 16192.5 = -8096.25 -> -8096; zero points 0 */
    int32_t bt = find_tensor(q, "fc/b_int32");
    CHECK(bt >= 0);
    if (bt >= 0) {
        const lg_tensor *bb = &q->subgraphs[0].tensors[bt];
        CHECK_EQ_INT(bb->type, LG_INT32);
        CHECK(bb->quant && bb->quant->n_scale == 2 && bb->quant->scale[0] == sx * (1.0f / 127.0f) &&
              bb->quant->scale[1] == sx * (0.5f / 127.0f));
        CHECK(bb->quant && bb->quant->zero_point && bb->quant->zero_point[0] == 0 && bb->quant->zero_point[1] == 0);
        const uint8_t *d = lg_tensor_buffer(q, bb)->data;
        int32_t b0, b1;
        memcpy(&b0, d, 4);
        memcpy(&b1, d + 4, 4);
        CHECK_EQ_INT(b0, 2024);
        CHECK_EQ_INT(b1, -8096);
    }
    CHECK_EQ_INT(r->n_weights, 1);
    CHECK_EQ_INT(r->weights_after, 8 + 12 * 2); /* data + a float scale and a long zero point each */
    CHECK_EQ_INT(r->n_bias_int32, 1);
    CHECK_EQ_INT(r->n_ops_int8, 1);
    CHECK_EQ_INT(r->n_ops_float, 0);
    CHECK_EQ_INT(r->n_quantize, 1);
    CHECK_EQ_INT(r->n_dequantize, 1);
    CHECK(r->measured);
    /* the float FC weights and bias are gone (nothing reads them) */
    CHECK(find_tensor(q, "fc/w") < 0);
out:
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(qstatic_fc_per_tensor_and_int8_io) {
    lg_model *m = fc_model(), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = static_opts(fc_cases, 1);
    o.per_tensor = true;
    o.int8_io = true;
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (!q || !r) goto out;
    /* INT8 I/O: the graph's own x and y carry the parameters; no boundary op at all */
    CHECK(has_params(q, "x", 4.0f / 255.0f, -64));
    CHECK(has_params(q, "y", 1.75f / 255.0f, -19));
    CHECK_EQ_INT(q->subgraphs[0].n_ops, 1);
    CHECK_EQ_INT(r->n_quantize + r->n_dequantize, 0);
    /* per tensor: one weight scale 1 / 127 (max |w| 1); bias 1 scale s_x / 127:
       -0.5 / (4/255/127) = -4048.125 -> -4048 */
    int32_t wt = find_tensor(q, "fc/w_int8"), bt = find_tensor(q, "fc/b_int32");
    CHECK(wt >= 0 && bt >= 0);
    if (wt >= 0 && bt >= 0) {
        const lg_tensor *w = &q->subgraphs[0].tensors[wt];
        CHECK(w->quant && w->quant->n_scale == 1 && w->quant->scale[0] == 1.0f / 127.0f);
        CHECK_EQ_INT(((const int8_t *)lg_tensor_buffer(q, w)->data)[7], 64); /* 0.5 x 127 = 63.5 -> 64 */
        const lg_tensor *bb = &q->subgraphs[0].tensors[bt];
        CHECK(bb->quant && bb->quant->n_scale == 1);
        int32_t b1;
        memcpy(&b1, lg_tensor_buffer(q, bb)->data + 4, 4);
        CHECK_EQ_INT(b1, -4048);
    }
    /* the measurement quantizes the float case for the INT8 input and dequantizes the output:
       y within a few steps of the float [-0.75, 1] */
    CHECK(r->measured);
    CHECK(r->n_outputs == 1 && r->outputs[0].max_abs < 3 * 1.75 / 255);
out:
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(qstatic_needs_calibration) {
    lg_model *m = fc_model(), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_options o = static_opts(NULL, 0);
    CHECK_EQ_INT(lg_quantize(m, &o, &q, NULL, &e), LG_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "int8-static needs calibration inputs (--calib DIR)") != NULL);
    CHECK(q == NULL);
    /* a bad percentile */
    o = static_opts(fc_cases, 1);
    o.range = LG_RANGE_PERCENTILE;
    o.percentile = 20;
    CHECK_EQ_INT(lg_quantize(m, &o, &q, NULL, &e), LG_ERR_INVALID_ARG);
    lg_model_free(m);
}

LG_TEST(qstatic_refuses_quantized_model) {
    lg_model *m = fc_model(), *q = NULL, *q2 = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_options o = static_opts(fc_cases, 1);
    o.no_measure = true;
    CHECK_OK(lg_quantize(m, &o, &q, NULL, &e), &e);
    if (q) {
        CHECK_EQ_INT(lg_quantize(q, &o, &q2, NULL, &e), LG_ERR_INVALID_ARG);
        CHECK(strstr(e.msg, "already quantized") != NULL);
    }
    lg_model_free(q);
    lg_model_free(m);
}

static uint32_t n_progress;
static void count_progress(void *ud, const char *what, uint64_t done, uint64_t total) {
    (void)ud;
    if (strcmp(what, "calibrate") == 0 && done <= total) n_progress++;
}

LG_TEST(qstatic_progress_and_deterministic) {
    lg_model *m = fc_model(), *q1 = NULL, *q2 = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    static const float x2[4] = {1, 2, -0.5f, 0};
    const void *const case2[1] = {x2};
    const void *const *const cases[2] = {fc_case, case2};
    lg_quant_options o = static_opts(cases, 2);
    o.progress = count_progress;
    n_progress = 0;
    CHECK_OK(lg_quantize(m, &o, &q1, NULL, &e), &e);
    CHECK_EQ_INT(n_progress, 2); /* min-max: one pass, once per case */
    n_progress = 0;
    o.range = LG_RANGE_PERCENTILE;
    CHECK_OK(lg_quantize(m, &o, &q2, NULL, &e), &e);
    CHECK_EQ_INT(n_progress, 4); /* a histogram pass too */
    lg_model_free(q2);
    q2 = NULL;
    o.range = LG_RANGE_MINMAX;
    CHECK_OK(lg_quantize(m, &o, &q2, NULL, &e), &e);
    if (q1 && q2) { /* the same input and options: the same bytes */
        void *b1 = NULL, *b2 = NULL;
        size_t n1 = 0, n2 = 0;
        lg_write_options wo;
        memset(&wo, 0, sizeof wo);
        CHECK_OK(lg_tflite_write_mem(q1, &wo, &b1, &n1, &e), &e);
        CHECK_OK(lg_tflite_write_mem(q2, &wo, &b2, &n2, &e), &e);
        CHECK(n1 == n2 && b1 && b2 && memcmp(b1, b2, n1) == 0);
        free(b1);
        free(b2);
    }
    lg_model_free(q1);
    lg_model_free(q2);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ PADV2 + MAX_POOL */

/* x [1,2,2,1] -> PADV2 (1 each side of H and W, constant_values pad) -> [1,4,4,1] ->
   MAX_POOL_2D 2x2 stride 2 VALID -> y [1,2,2,1]: each window holds one x value and three pads. */
static lg_model *pad_pool_model(float pad) {
    lg_builder b;
    lg_model *m = new_model(&b);
    if (!m) return NULL;
    static const int32_t pads[8] = {0, 0, 1, 1, 1, 1, 0, 0};
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2, 2, 1));
    int32_t p = lg_b_const_i32(&b, "pads", LG_DIMS(4, 2), pads);
    int32_t cv = lg_b_const_f32(&b, "pad_value", LG_SCALAR, &pad);
    int32_t xp = lg_b_tensor(&b, "padded", LG_FLOAT32, LG_DIMS(1, 4, 4, 1));
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 2, 2, 1));
    lg_b_op(&b, LG_OP_PADV2, LG_IDS(x, p, cv), LG_IDS(xp));
    lg_pool2d_options po;
    lg_opts_init(LG_OPTS_POOL2D_OPTIONS, &po, sizeof po);
    po.padding = LG_PADDING_VALID;
    po.stride_w = po.stride_h = 2;
    po.filter_width = po.filter_height = 2;
    lg_b_op_opts(&b, LG_OP_MAX_POOL_2D, LG_IDS(xp), LG_IDS(y), LG_OPTS_POOL2D_OPTIONS, &po);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    return finish(&b, m);
}

/* x = [-2, -1, 0.5, 1.5]: scale 3.5 / 255, zp = -128 + 2 / (3.5/255) = -128 + 145.71 -> 18;
   quantized: -2 -> -145.71 -> -146 + 18 = -128; -1 -> -72.86 -> -73 + 18 = -55;
   0.5 -> 36.43 -> 36 + 18 = 54; 1.5 -> 109.29 -> 109 + 18 = 127. */
static const float pp_x[4] = {-2, -1, 0.5f, 1.5f};
static const void *const pp_case[1] = {pp_x};
static const void *const *const pp_cases[1] = {pp_case};

/* Quantize pad_pool_model(pad) with int8 I/O, check the parameters, run it on the quantized
   x and return the output bytes in out[4]; the pad value's byte in *padq. */
static void run_pad_pool(float pad, int8_t *out, int8_t *padq) {
    lg_model *m = pad_pool_model(pad), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = static_opts(pp_cases, 1);
    o.int8_io = true;
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (!q || !r) goto out;
    const float s = 3.5f / 255.0f;
    /* the padded tensor and the pool's output take x's parameters: the pad value never sets a
       range (a -inf would make the scale infinite, -1000 would make it 290x coarser) */
    CHECK(has_params(q, "x", s, 18));
    CHECK(has_params(q, "padded", s, 18));
    CHECK(has_params(q, "y", s, 18));
    CHECK(has_params(q, "pad_value_int8", s, 18));
    CHECK_EQ_INT(r->n_ops_int8, 2);
    int32_t pv = find_tensor(q, "pad_value_int8");
    if (pv >= 0) *padq = *(const int8_t *)lg_tensor_buffer(q, &q->subgraphs[0].tensors[pv])->data;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_interp *it = NULL;
    CHECK_OK(lg_interp_create(q, &ro, &it, &e), &e);
    if (it) {
        const int8_t xq[4] = {-128, -55, 54, 127};
        CHECK_OK(lg_interp_set_input(it, 0, LG_INT8, xq, 4, &e), &e);
        CHECK_OK(lg_interp_invoke(it, &e), &e);
        lg_tensor_view v;
        if (lg_interp_output(it, 0, &v) == LG_OK && v.type == LG_INT8) memcpy(out, v.data, 4);
        lg_interp_free(it);
    }
out:
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(qstatic_padv2_neg_inf_before_max_pool) {
    int8_t y[4] = {0, 0, 0, 0}, pq = 0;
    /* -inf is clamped to -128, below every x: the pool gives x back */
    run_pad_pool(-INFINITY, y, &pq);
    CHECK_EQ_INT(pq, -128);
    const int8_t want[4] = {-128, -55, 54, 127};
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(y[i], want[i]);
    /* a finite pad far below the range: the same */
    memset(y, 0, 4);
    run_pad_pool(-1000.0f, y, &pq);
    CHECK_EQ_INT(pq, -128);
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(y[i], want[i]);
}

LG_TEST(qstatic_padv2_value_inside_range_near_miss) {
    /* near miss: a pad value 0.5 inside the range is quantized (54), not clamped, and wins
       the windows of -2 and -1: y = [54, 54, 54, 127] */
    int8_t y[4] = {0, 0, 0, 0}, pq = 0;
    run_pad_pool(0.5f, y, &pq);
    CHECK_EQ_INT(pq, 54);
    const int8_t want[4] = {54, 54, 54, 127};
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(y[i], want[i]);
}

/* ------------------------------------------------------------------ fixed outputs, concatenation */

static lg_add_options add_opts(void) {
    lg_add_options ao;
    lg_opts_init(LG_OPTS_ADD_OPTIONS, &ao, sizeof ao);
    return ao;
}

/* x [1,4] -> a = ADD(x, x) -> LOGISTIC / TANH / SOFTMAX -> three outputs. */
static lg_model *fixed_model(void) {
    lg_builder b;
    lg_model *m = new_model(&b);
    if (!m) return NULL;
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t s = lg_b_tensor(&b, "sig", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t t = lg_b_tensor(&b, "tanh", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t sm = lg_b_tensor(&b, "soft", LG_FLOAT32, LG_DIMS(1, 4));
    lg_add_options ao = add_opts();
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(x, x), LG_IDS(a), LG_OPTS_ADD_OPTIONS, &ao);
    lg_b_op(&b, LG_OP_LOGISTIC, LG_IDS(a), LG_IDS(s));
    lg_b_op(&b, LG_OP_TANH, LG_IDS(a), LG_IDS(t));
    lg_softmax_options so;
    lg_opts_init(LG_OPTS_SOFTMAX_OPTIONS, &so, sizeof so);
    so.beta = 1.0f;
    lg_b_op_opts(&b, LG_OP_SOFTMAX, LG_IDS(a), LG_IDS(sm), LG_OPTS_SOFTMAX_OPTIONS, &so);
    lg_b_io(&b, LG_IDS(x), LG_IDS(s, t, sm));
    return finish(&b, m);
}

LG_TEST(qstatic_fixed_output_params) {
    lg_model *m = fixed_model(), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    /* x = [-1, 0.5, 0.75, 0.25]: a = [-2, 1, 1.5, 0.5]: a's own range [-2, 1.5] (scale 3.5/255,
       zp 18 as above); the outputs' ranges would give other parameters (sigmoid in [0.12,
       0.82]) but TFLite fixes them: LOGISTIC and SOFTMAX 1/256, -128; TANH 1/128, 0 */
    static const float x[4] = {-1, 0.5f, 0.75f, 0.25f};
    const void *const c0[1] = {x};
    const void *const *const cases[1] = {c0};
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = static_opts(cases, 1);
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (!q || !r) goto out;
    CHECK(has_params(q, "a", 3.5f / 255.0f, 18));
    CHECK(has_params(q, "sig_int8", 1.0f / 256.0f, -128));
    CHECK(has_params(q, "soft_int8", 1.0f / 256.0f, -128));
    CHECK(has_params(q, "tanh_int8", 1.0f / 128.0f, 0));
    CHECK_EQ_INT(r->n_ops_int8, 4);
    CHECK_EQ_INT(r->n_dequantize, 3);
    /* the int8 model runs and stays close: sigmoid / softmax within 2 steps of 1/256 */
    CHECK(r->measured && r->n_outputs == 3);
    if (r->n_outputs == 3) {
        CHECK(r->outputs[0].max_abs < 2.0 / 256);
        CHECK(r->outputs[2].max_abs < 2.0 / 256);
    }
out:
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

/* x [1,2], y [1,2] -> a = ADD(x, x), b = ADD(y, y) (or LOGISTIC(a) when `sig`) ->
   CONCATENATION(a', b) axis 1 -> cat [1,4]. */
static lg_model *concat_model(bool sig) {
    lg_builder b;
    lg_model *m = new_model(&b);
    if (!m) return NULL;
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 2));
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 2));
    int32_t a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, 2));
    int32_t bb = lg_b_tensor(&b, "b", LG_FLOAT32, LG_DIMS(1, 2));
    int32_t cat = lg_b_tensor(&b, "cat", LG_FLOAT32, LG_DIMS(1, 4));
    lg_add_options ao = add_opts();
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(x, x), LG_IDS(a), LG_OPTS_ADD_OPTIONS, &ao);
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(y, y), LG_IDS(bb), LG_OPTS_ADD_OPTIONS, &ao);
    int32_t first = a;
    if (sig) {
        first = lg_b_tensor(&b, "sig", LG_FLOAT32, LG_DIMS(1, 2));
        lg_b_op(&b, LG_OP_LOGISTIC, LG_IDS(a), LG_IDS(first));
    }
    lg_concatenation_options co;
    lg_opts_init(LG_OPTS_CONCATENATION_OPTIONS, &co, sizeof co);
    co.axis = 1;
    lg_b_op_opts(&b, LG_OP_CONCATENATION, LG_IDS(first, bb), LG_IDS(cat), LG_OPTS_CONCATENATION_OPTIONS, &co);
    lg_b_io(&b, LG_IDS(x, y), LG_IDS(cat));
    return finish(&b, m);
}

/* x = [-1, 0.5] (a = [-2, 1]), y = [0, 1.75] (b = [0, 3.5]) */
static const float cc_x[2] = {-1, 0.5f}, cc_y[2] = {0, 1.75f};
static const void *const cc_case[2] = {cc_x, cc_y};
static const void *const *const cc_cases[1] = {cc_case};

LG_TEST(qstatic_concat_unifies_ranges) {
    lg_model *m = concat_model(false), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = static_opts(cc_cases, 1);
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (!q || !r) goto out;
    /* alone a would be [-2, 1] (scale 3/255, zp 42), b [0, 3.5] (zp -128); concatenation.cc
       wants both equal to the output's: the union [-2, 3.5]: scale 5.5/255, zp = -128 +
       2 / (5.5/255) = -128 + 92.73 -> -35, on a, b and cat, with no requantization */
    const float s = 5.5f / 255.0f;
    CHECK(has_params(q, "a", s, -35));
    CHECK(has_params(q, "b", s, -35));
    CHECK(has_params(q, "cat_int8", s, -35));
    CHECK_EQ_INT(r->n_requantize, 0);
    CHECK_EQ_INT(count_ops(q, LG_OP_QUANTIZE), 2); /* the two graph inputs */
out:
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(qstatic_concat_requantizes_fixed_input) {
    lg_model *m = concat_model(true), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = static_opts(cc_cases, 1);
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (!q || !r) goto out;
    /* the LOGISTIC output keeps 1/256, -128 and is requantized into the join's parameters:
       the union of b [0, 3.5] and sigmoid([-2, 1]) = [0.12, 0.73] is [0, 3.5]: scale
       3.5/255, zp -128 */
    const float s = 3.5f / 255.0f;
    CHECK(has_params(q, "sig", 1.0f / 256.0f, -128));
    CHECK(has_params(q, "sig_requant", s, -128));
    CHECK(has_params(q, "b", s, -128));
    CHECK(has_params(q, "cat_int8", s, -128));
    CHECK_EQ_INT(r->n_requantize, 1);
    CHECK_EQ_INT(count_ops(q, LG_OP_QUANTIZE), 3); /* two inputs + the requantization */
    /* the int8 concatenation runs (inputs with the output's parameters) */
    CHECK(r->measured);
out:
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ float islands, exclude */

/* x [1,4] -> a = ADD(x, x) -> EXP (no int8 kernel) -> e -> RELU -> f -> g = ADD(f, f) -> out */
static lg_model *island_model(void) {
    lg_builder b;
    lg_model *m = new_model(&b);
    if (!m) return NULL;
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t ex = lg_b_tensor(&b, "e", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t f = lg_b_tensor(&b, "f", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t g = lg_b_tensor(&b, "g", LG_FLOAT32, LG_DIMS(1, 4));
    lg_add_options ao = add_opts();
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(x, x), LG_IDS(a), LG_OPTS_ADD_OPTIONS, &ao);
    lg_b_op(&b, LG_OP_EXP, LG_IDS(a), LG_IDS(ex));
    lg_b_op(&b, LG_OP_RELU, LG_IDS(ex), LG_IDS(f));
    lg_b_op_opts(&b, LG_OP_ADD, LG_IDS(f, f), LG_IDS(g), LG_OPTS_ADD_OPTIONS, &ao);
    lg_b_io(&b, LG_IDS(x), LG_IDS(g));
    return finish(&b, m);
}

static const float is_x[4] = {-1, 0.5f, 0.75f, 0.25f};
static const void *const is_case[1] = {is_x};
static const void *const *const is_cases[1] = {is_case};

LG_TEST(qstatic_float_island_boundaries) {
    lg_model *m = island_model(), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = static_opts(is_cases, 1);
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (!q || !r) goto out;
    /* QUANTIZE x, ADD, DEQUANTIZE a, EXP, RELU (follows its float input: no pair around it),
       QUANTIZE f, ADD, DEQUANTIZE g: 8 ops, one boundary op per crossing */
    CHECK_EQ_INT(q->subgraphs[0].n_ops, 8);
    CHECK_EQ_INT(r->n_quantize, 2);
    CHECK_EQ_INT(r->n_dequantize, 2);
    CHECK_EQ_INT(r->n_ops_int8, 2);
    CHECK_EQ_INT(r->n_ops_float, 2);
    CHECK(no_cancelling_pair(q));
    if (r->n_ops_float == 2) {
        CHECK_EQ_INT(r->float_ops[0].code, LG_OP_EXP);
        CHECK(strstr(r->float_ops[0].why, "no EXP kernel") != NULL);
        CHECK(!r->float_ops[0].excluded);
        CHECK_EQ_INT(r->float_ops[1].code, LG_OP_RELU);
        CHECK(strstr(r->float_ops[1].why, "input stays float") != NULL);
    }
    /* a keeps its INT8 form (the ADD writes it), the EXP reads a_float */
    CHECK(find_tensor(q, "a_float") >= 0);
    CHECK_EQ_INT(q->subgraphs[0].tensors[find_tensor(q, "a")].type, LG_INT8);
    CHECK_EQ_INT(q->subgraphs[0].tensors[find_tensor(q, "e")].type, LG_FLOAT32);
    CHECK(find_tensor(q, "f_int8") >= 0);
out:
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(qstatic_exclude_keeps_float) {
    lg_model *m = island_model(), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    const char *ex[1] = {"ADD"};
    lg_quant_options o = static_opts(is_cases, 1);
    o.exclude = ex;
    o.n_exclude = 1;
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (q && r) {
        /* both ADDs excluded: nothing is int8, no boundary op; the RELU follows its float input */
        CHECK_EQ_INT(r->n_ops_int8, 0);
        CHECK_EQ_INT(r->n_excluded, 2);
        CHECK_EQ_INT(r->exclude_hits[0], 2);
        CHECK_EQ_INT(count_ops(q, LG_OP_QUANTIZE) + count_ops(q, LG_OP_DEQUANTIZE), 0);
        CHECK(r->n_ops_float == 4 && r->float_ops[0].excluded && strstr(r->float_ops[0].why, "excluded") != NULL);
    }
    lg_quant_report_free(r);
    lg_model_free(q);
    r = NULL;
    q = NULL;
    /* near miss: a regex on output names that matches only the second ADD ("g") */
    const char *ex2[1] = {"^g$"};
    o.exclude = ex2;
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (q && r) {
        CHECK_EQ_INT(r->n_ops_int8, 1);
        CHECK_EQ_INT(r->n_excluded, 1);
        CHECK_EQ_INT(r->exclude_hits[0], 1);
    }
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(qstatic_keep_float_mask_and_build_many) {
    /* the sweep's interface: calibrate once, build with any subset kept float */
    lg_model *m = island_model(), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lgq_calib *cal = NULL;
    lg_quant_options o = static_opts(is_cases, 1);
    CHECK_OK(lgq_calibrate(m, &o, &cal, &e), &e);
    if (!cal) goto out;
    /* exact ranges: a = [-2, 1.5]; e = exp(a) in [0.135, 4.48] */
    int32_t a = find_tensor(m, "a"), ex = find_tensor(m, "e");
    CHECK(cal->seen[a] && cal->min[a] == -2 && cal->max[a] == 1.5);
    CHECK_NEAR(cal->max[ex], exp(1.5), 1e-5);
    int32_t *map = calloc(m->subgraphs[0].n_tensors, sizeof *map);
    const uint8_t keep[4] = {0, 0, 0, LGQ_KEEP_CALLER}; /* the last ADD */
    for (int round = 0; round < 2 && map; round++) {
        lg_quant_report rep;
        memset(&rep, 0, sizeof rep);
        CHECK_OK(lgq_static_build(m, cal, round ? keep : NULL, &o, &q, map, &rep, &e), &e);
        CHECK_EQ_INT(rep.n_ops_int8, round ? 1 : 2);
        if (round && rep.n_ops_float == 3) {
            CHECK_EQ_INT(rep.float_ops[2].op, 3);
            CHECK(strstr(rep.float_ops[2].why, "kept float by the caller") != NULL);
        }
        /* map: the input's a is the result's INT8 a */
        CHECK(map[a] >= 0 && q && q->subgraphs[0].tensors[map[a]].type == LG_INT8);
        free(rep.float_ops);
        for (uint32_t k = 0; k < rep.n_weights; k++) {
            free(rep.weights[k].name);
            free(rep.weights[k].stored);
        }
        free(rep.weights);
        lg_model_free(q);
        q = NULL;
    }
    free(map);
out:
    lgq_calib_free(cal);
    lg_model_free(m);
}
