/* litegpu quantize int8-static --target-error (src/passes/quant_sweep.c): the error metric and
   the dB conversions against hand-derived numbers, and the sweep on a builder model where one
   layer is ruined by int8 by construction:

       x [1,4] -> FC_A -> a [1,4] -> SLICE (channels 1..3) -> s [1,3] -> FC_B -> y [1,2]

   FC_A writes a0 = K x0 and a1..a3 = x1..x3 (K = 1000: an outlier channel); the SLICE drops
   a0, FC_B computes y = [s0 + s1, s1 - s2] (biases 0). In int8 the SLICE's output takes its
   input's parameters (a data-movement op), so when FC_A is int8 the three small channels are
   quantized with a's range [-K, K], whose step 2K / 255 = 7.8 swallows them: s becomes
   exactly 0 and so does y, an output error E of exactly 1. FC_B alone in int8 quantizes s
   with its own small range and loses little. So FC_A must rank first and be the one layer
   kept float; with K = 1 (no outlier: the near miss) every layer stays int8. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lg/quantize.h"
#include "passes/quant_sweep.h"
#include "tf.h"

/* ------------------------------------------------------------------ the metric */

LG_TEST(qsweep_metric_and_db) {
    /* sqrt(err2 / ref2): sqrt(1 / 4) = 0.5; an exact output 0; a zero reference: 0 when exact,
       +inf otherwise (never meets a target) */
    CHECK(lgq_output_error(4, 1) == 0.5);
    CHECK(lgq_output_error(4, 0) == 0);
    CHECK(lgq_output_error(0, 0) == 0);
    CHECK(isinf(lgq_output_error(0, 1e-30)));
    /* E = 10^(-SNR / 20): 20 dB -> 0.1, 40 dB -> 0.01, 0 dB -> 1; back: 0.001 -> 60 dB */
    CHECK(fabs(lg_quant_error_from_db(20) - 0.1) < 1e-15);
    CHECK(fabs(lg_quant_error_from_db(40) - 0.01) < 1e-15);
    CHECK(lg_quant_error_from_db(0) == 1);
    CHECK(fabs(lg_quant_error_to_db(0.001) - 60) < 1e-12);
    CHECK(isinf(lg_quant_error_to_db(0)));
    CHECK(strcmp(lg_quant_sensitivity_name(LG_SENS_ALONE), "alone") == 0);
    CHECK_EQ_INT(lg_quant_sensitivity_from_name("leave-one-out"), LG_SENS_WITHOUT);
    CHECK_EQ_INT(lg_quant_sensitivity_from_name("alone"), LG_SENS_ALONE);
    CHECK_EQ_INT(lg_quant_sensitivity_from_name("greedy"), -1);
}

LG_TEST(qsweep_str_grows_and_escapes) {
    lgq_str b = {0};
    for (int i = 0; i < 500; i++) lgq_str_put(&b, "%03d,", i % 1000); /* 2000 characters: past any first guess */
    lgq_str_esc(&b, "a\"b\\c\n");
    CHECK(!b.nomem && b.s != NULL);
    if (b.s) {
        CHECK_EQ_INT((long long)b.len, 2000 + 13); /* a \" b \\ c \u000a: 1 + 2 + 1 + 2 + 1 + 6 */
        CHECK(strncmp(b.s, "000,001,", 8) == 0);
        CHECK(strcmp(b.s + 2000 - 4, "499,a\\\"b\\\\c\\u000a") == 0);
    }
    free(b.s);
}

/* ------------------------------------------------------------------ the model */

static lg_model *outlier_model(float k) {
    lg_model *m = NULL;
    lg_error e;
    if (lg_model_new(NULL, NULL, &m, &e) != LG_OK) return NULL;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    const float wa[16] = {k, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, ba[4] = {0, 0, 0, 0};
    static const float wb[6] = {1, 1, 0, 0, 1, -1}, bb[2] = {0, 0};
    static const int32_t begin[2] = {0, 1}, size[2] = {1, 3};
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t wat = lg_b_const_f32(&b, "A/w", LG_DIMS(4, 4), wa), bat = lg_b_const_f32(&b, "A/b", LG_DIMS(4), ba);
    int32_t a = lg_b_tensor(&b, "a", LG_FLOAT32, LG_DIMS(1, 4));
    int32_t bg = lg_b_const_i32(&b, "begin", LG_DIMS(2), begin), sz = lg_b_const_i32(&b, "size", LG_DIMS(2), size);
    int32_t s = lg_b_tensor(&b, "s", LG_FLOAT32, LG_DIMS(1, 3));
    int32_t wbt = lg_b_const_f32(&b, "B/w", LG_DIMS(2, 3), wb), bbt = lg_b_const_f32(&b, "B/b", LG_DIMS(2), bb);
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, LG_DIMS(1, 2));
    lg_fully_connected_options fo;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(x, wat, bat), LG_IDS(a), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_slice_options so;
    lg_opts_init(LG_OPTS_SLICE_OPTIONS, &so, sizeof so);
    lg_b_op_opts(&b, LG_OP_SLICE, LG_IDS(a, bg, sz), LG_IDS(s), LG_OPTS_SLICE_OPTIONS, &so);
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(s, wbt, bbt), LG_IDS(y), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    if (b.status == LG_OK) return m;
    lg_model_free(m);
    return NULL;
}

/* Two cases: x0 = +-1 (a0 = +-K: a's range [-K, K]); x1..x3 in [-1, 1], so s in [-1, 1] and
   y = [x1 + x2, x2 - x3] = [0.25, -1.25] and [-0.25, 0.25]: sum y^2 = 1.75. */
static const float x_1[4] = {1, 0.5f, -0.25f, 1}, x_2[4] = {-1, -1, 0.75f, 0.5f};
static const void *const case_1[1] = {x_1}, *const case_2[1] = {x_2};
static const void *const *const two_cases[2] = {case_1, case_2};

static lg_quant_options sweep_opts(double target) {
    lg_quant_options o;
    memset(&o, 0, sizeof o);
    o.mode = LG_QUANT_INT8_STATIC;
    o.cases = two_cases;
    o.n_cases = 2;
    o.target_error = target;
    return o;
}

static uint32_t count_ops(const lg_model *m, int32_t code) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++) n += lg_op_builtin(m, &m->subgraphs[0].ops[i]) == code;
    return n;
}

/* The "litegpu.quantize" metadata of m as a string (a buffer holds no terminating NUL). */
static const char *metadata(const lg_model *m) {
    static char buf[16384];
    for (uint32_t i = 0; i < m->n_metadata; i++)
        if (m->metadata[i].name && strcmp(m->metadata[i].name, "litegpu.quantize") == 0) {
            const lg_buffer *b = &m->buffers[m->metadata[i].buffer];
            size_t n = b->size < sizeof buf - 1 ? (size_t)b->size : sizeof buf - 1;
            memcpy(buf, b->data, n);
            buf[n] = 0;
            return buf;
        }
    return NULL;
}

/* E of FC_B alone in int8, bounded by hand: s in [-1, 1] gets scale 2/255 (zero point -1,
   0 exact), an error of at most half a step, 1/255, per value; the weights +-1 are exact
   (scale 1/127, q 127); y in [-1.25, 0.25] gets scale 1.5/255, half a step 0.75/255. So
   |y error| <= 2 x 1/255 + 0.75/255 = 0.0108 per value, four values: E <= sqrt(4 x 0.0108^2
   / 1.75) = 0.0163. */
#define E_B_BOUND 0.0163

LG_TEST(qsweep_outlier_layer_ranks_first_and_alone_is_kept_float) {
    lg_model *m = outlier_model(1000), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = sweep_opts(0.05);
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (!q || !r) goto out;
    CHECK(r->swept);
    CHECK_EQ_INT(r->sensitivity, LG_SENS_ALONE); /* the default */
    CHECK_EQ_INT(r->n_layers, 2);                /* the two FCs; the SLICE follows its input */
    CHECK_EQ_INT(r->sweep_cases, 2);
    CHECK(!r->sweep_on_eval);
    if (r->n_layers != 2) goto out;
    /* FC_A (op 0) alone: s quantized with a's step 7.8 -> exactly 0 (zero point -1 holds 0):
       y = 0, E = sqrt(1.75 / 1.75) = 1 exactly; FC_B (op 2) alone within the bound */
    CHECK_EQ_INT(r->layers[0].op, 0);
    CHECK_EQ_INT(r->layers[0].rank, 1);
    CHECK(r->layers[0].err_alone == 1.0);
    CHECK(isnan(r->layers[0].err_without)); /* not measured by this method */
    CHECK_EQ_INT(r->layers[1].op, 2);
    CHECK(r->layers[1].err_alone > 0 && r->layers[1].err_alone <= E_B_BOUND);
    /* all int8: the SLICE's output has a's parameters again: y = 0, E = 1 */
    CHECK(r->error_int8 == 1.0);
    /* k = 0 fails, k = 1 (FC_A float) meets: one layer kept, the written model's E is FC_B's */
    CHECK(r->target_met);
    CHECK_EQ_INT(r->n_kept, 1);
    CHECK(r->layers[0].kept_float && !r->layers[1].kept_float);
    CHECK(r->error == r->layers[1].err_alone);
    CHECK_EQ_INT(r->n_steps, 2);
    if (r->n_steps == 2) {
        CHECK(r->steps[0].k == 0 && !r->steps[0].met && r->steps[0].error == 1.0);
        CHECK(r->steps[1].k == 1 && r->steps[1].met);
    }
    /* builds: all int8, one per layer (k = 1 is FC_B's alone model: not built again) */
    CHECK_EQ_INT(r->n_builds, 3);
    CHECK_EQ_INT((long long)r->n_runs, 2 * 4); /* the float reference and 3 models, 2 cases each */
    /* the written model: FC_A float (one FLOAT32 FC), FC_B int8; the report says why */
    CHECK_EQ_INT(count_ops(q, LG_OP_FULLY_CONNECTED), 2);
    CHECK_EQ_INT(r->n_ops_int8, 1);
    bool why = false;
    for (uint32_t i = 0; i < r->n_ops_float; i++)
        if (r->float_ops[i].op == 0) why = strstr(r->float_ops[i].why, "rank 1 of 2") != NULL;
    CHECK(why);
    /* the parity figure of the written model is the sweep's E: 10^(-SNR/20) */
    CHECK(r->measured && r->n_outputs == 1);
    if (r->measured && r->n_outputs == 1)
        CHECK(fabs(lg_quant_error_from_db(r->outputs[0].snr_db) - r->error) <= 1e-9 * r->error);
    /* the metadata records the target and the op kept float */
    const char *md = metadata(q);
    CHECK(md && strstr(md, "\"target_met\":true") && strstr(md, "\"kept_float\":[{\"op\":0,\"name\":\"a\"}]") &&
          strstr(md, "\"sensitivity\":\"alone\""));
out:
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(qsweep_leave_one_out_ranks_the_same_layer_first) {
    lg_model *m = outlier_model(1000), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = sweep_opts(0.05);
    o.sensitivity = LG_SENS_WITHOUT;
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (r && r->n_layers == 2) {
        /* without FC_A: FC_B alone int8 (<= the bound); without FC_B: FC_A alone int8 (1) */
        CHECK_EQ_INT(r->layers[0].op, 0);
        CHECK(r->layers[0].err_without > 0 && r->layers[0].err_without <= E_B_BOUND);
        CHECK(r->layers[1].err_without == 1.0);
        CHECK(isnan(r->layers[0].err_alone));
        CHECK(r->target_met && r->n_kept == 1 && r->layers[0].kept_float);
        CHECK_EQ_INT(r->n_builds, 3); /* k = 1 is FC_A's leave-one-out model */
    } else {
        CHECK(false);
    }
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(qsweep_near_misses_keep_none) {
    lg_error e;
    /* no outlier (K = 1): a in [-1, 1], so the SLICE's inherited range is s's own. All int8:
       x, a (= s) each rounded by at most half of 2/255, y by half of 1.5/255: |y error| <=
       2 x 2/255 + 0.75/255 = 0.0186, E <= sqrt(4 x 0.0186^2 / 1.75) = 0.028, within 0.05:
       k = 0, nothing kept, one step */
    lg_model *m = outlier_model(1), *q = NULL;
    lg_quant_report *r = NULL;
    lg_quant_options o = sweep_opts(0.05);
    CHECK(m != NULL);
    if (m) CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (r) {
        CHECK(r->target_met);
        CHECK_EQ_INT(r->n_kept, 0);
        CHECK(r->error_int8 < 0.05 && r->error == r->error_int8);
        CHECK_EQ_INT(r->n_steps, 1);
        CHECK(!r->layers[0].kept_float && !r->layers[1].kept_float);
        CHECK_EQ_INT(r->n_ops_int8, 3);
    }
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
    /* the outlier model with a target just under its all-int8 error of exactly 1: still k = 1 */
    m = outlier_model(1000);
    q = NULL;
    r = NULL;
    o = sweep_opts(0.999);
    if (m) CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (r) CHECK(r->target_met && r->n_kept == 1 && r->steps[0].error > 0.999);
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

LG_TEST(qsweep_unreachable_target_is_a_result) {
    /* int8 I/O: x and y stay INT8 whatever is kept float, so their rounding remains. With both
       layers float: x at scale 2/255, zero point -1 ([-1, 1]); y at scale 1.5/255, zero point
       round(-128 + 1.25 / (1.5/255)) = round(84.5) = 85 ([-1.25, 0.25]). Case 1: x1..x3 ->
       0.50196, -0.25098, 0.99608; y = [0.25098, -1.24706] -> q 127, -127 -> [0.24706, -1.24706]
       against [0.25, -1.25]; case 2: x -> -0.99608, 0.75294, 0.50196; y = [-0.24314, 0.25098]
       -> q 44, 127 -> [-0.24118, 0.24706] against [-0.25, 0.25]. sum err^2 = 1.038e-4, E =
       sqrt(1.038e-4 / 1.75) = 0.0077: far above 1e-6 */
    lg_model *m = outlier_model(1000), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_report *r = NULL;
    lg_quant_options o = sweep_opts(1e-6);
    o.int8_io = true;
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    if (r) {
        CHECK(!r->target_met);
        bool tried_all = false;
        double best = INFINITY;
        for (uint32_t k = 0; k < r->n_steps; k++) {
            CHECK(!r->steps[k].met);
            if (r->steps[k].k == 2) {
                tried_all = true;
                CHECK(fabs(r->steps[k].error - 0.0077) < 0.0001);
            }
            if (r->steps[k].error < best) best = r->steps[k].error;
        }
        CHECK(tried_all);
        CHECK(r->error == best); /* the model written: the smallest error measured */
        CHECK(r->steps[0].k == 0 && r->steps[0].error == r->error_int8);
        const char *md = q ? metadata(q) : NULL;
        CHECK(md && strstr(md, "\"target_met\":false"));
    }
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}

static uint32_t n_sens, n_search_end;
static void count_progress(void *ud, const char *what, uint64_t done, uint64_t total) {
    (void)ud;
    if (strcmp(what, "sensitivity") == 0 && done <= total && total == 2) n_sens++;
    if (strcmp(what, "search") == 0 && done == total) n_search_end++;
}

LG_TEST(qsweep_progress_deterministic_and_refusals) {
    lg_model *m = outlier_model(1000), *q1 = NULL, *q2 = NULL;
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    lg_quant_options o = sweep_opts(0.05);
    o.progress = count_progress;
    n_sens = n_search_end = 0;
    CHECK_OK(lg_quantize(m, &o, &q1, NULL, &e), &e);
    CHECK_EQ_INT(n_sens, 2);
    CHECK_EQ_INT(n_search_end, 1);
    CHECK_OK(lg_quantize(m, &o, &q2, NULL, &e), &e);
    if (q1 && q2) {
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
    /* refusals: a target outside (0, 1), with another mode, an unknown measure */
    lg_model *q = NULL;
    o = sweep_opts(1.0);
    CHECK_EQ_INT(lg_quantize(m, &o, &q, NULL, &e), LG_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "(0, 1)") != NULL);
    o = sweep_opts(-0.1);
    CHECK_EQ_INT(lg_quantize(m, &o, &q, NULL, &e), LG_ERR_INVALID_ARG);
    o = sweep_opts(0.05);
    o.mode = LG_QUANT_INT8_WEIGHTS;
    CHECK_EQ_INT(lg_quantize(m, &o, &q, NULL, &e), LG_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "int8-static") != NULL);
    o = sweep_opts(0.05);
    o.sensitivity = (lg_quant_sensitivity)7;
    CHECK_EQ_INT(lg_quantize(m, &o, &q, NULL, &e), LG_ERR_INVALID_ARG);
    o = sweep_opts(0.05);
    o.n_cases = 0;
    o.cases = NULL;
    CHECK_EQ_INT(lg_quantize(m, &o, &q, NULL, &e), LG_ERR_INVALID_ARG); /* calibration needs cases */
    CHECK(q == NULL);
    lg_model_free(m);
}

/* The metadata holds the whole calibration manifest, however long (it was cut at 2 KB). */
LG_TEST(qsweep_metadata_not_cut) {
    lg_model *m = outlier_model(1), *q = NULL;
    CHECK(m != NULL);
    if (!m) return;
    enum { N = 60 };
    static lg_quant_file files[N];
    static char names[N][16];
    static const char hex[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "%03d.npy", i);
        files[i].name = names[i];
        files[i].sha256 = hex;
    }
    lg_error e;
    lg_quant_options o = sweep_opts(0);
    o.calib_files = files;
    o.n_calib_files = N; /* 60 x 90 characters: past 2048 */
    lg_quant_report *r = NULL;
    CHECK_OK(lg_quantize(m, &o, &q, &r, &e), &e);
    const char *md = q ? metadata(q) : NULL;
    CHECK(md && strlen(md) > 60 * 90);
    CHECK(md && strstr(md, "{\"path\":\"059.npy\",\"sha256\":\"0123") != NULL);
    CHECK(md && md[strlen(md) - 1] == '}' && strstr(md, "...") == NULL);
    CHECK(r && r->metadata && md && strcmp(r->metadata, md) == 0);
    lg_quant_report_free(r);
    lg_model_free(q);
    lg_model_free(m);
}
