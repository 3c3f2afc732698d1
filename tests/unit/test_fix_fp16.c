/* fp16 hardening (src/passes/fix_fp16*.c): for each pattern a builder-made model that overflows
   or diverges in litegpu's emulated GPU fp16 (the instrument: lg_compare_precision, checked
   against the real ML Drift by bench/fp16_vs_webgpu.sh) and is within tolerance after the
   rewrite, with fp32 parity proved by the pass runner; the same pattern at |x| ~ 1 (a near
   miss) left unchanged in auto mode and rewritten in always mode. Values that can be derived
   by hand are. */
#include <stdlib.h>

#include "lg/check.h"
#include "lg/compare.h"
#include "lg/graph.h"
#include "lg/lg.h"
#include "lg/passes.h"
#include "lg/run.h"
#include "tf.h"
#include "util/half.h"

static lg_model *new_model(lg_builder *b) {
    lg_model *m = NULL;
    lg_error err;
    if (lg_model_new(NULL, NULL, &m, &err) != LG_OK) return NULL;
    lg_builder_init(b, m, 0);
    return m;
}

static void opts_of(int32_t code, lg_opts_kind *kind, void *buf, size_t *size) {
    *kind = LG_OPTS_NONE;
    *size = 0;
    switch (code) {
    case LG_OP_ADD: *kind = LG_OPTS_ADD_OPTIONS; *size = sizeof(lg_add_options); break;
    case LG_OP_SUB: *kind = LG_OPTS_SUB_OPTIONS; *size = sizeof(lg_sub_options); break;
    case LG_OP_MUL: *kind = LG_OPTS_MUL_OPTIONS; *size = sizeof(lg_mul_options); break;
    case LG_OP_DIV: *kind = LG_OPTS_DIV_OPTIONS; *size = sizeof(lg_div_options); break;
    case LG_OP_MAXIMUM: *kind = LG_OPTS_MAXIMUM_MINIMUM_OPTIONS; *size = sizeof(lg_maximum_minimum_options); break;
    case LG_OP_SQUARED_DIFFERENCE: *kind = LG_OPTS_SQUARED_DIFFERENCE_OPTIONS; *size = sizeof(lg_squared_difference_options); break;
    case LG_OP_POW: *kind = LG_OPTS_POW_OPTIONS; *size = sizeof(lg_pow_options); break;
    default: break;
    }
    if (*kind != LG_OPTS_NONE) lg_opts_init(*kind, buf, *size);
}

/* A binary/unary op writing a new tensor of `shape`. */
static int32_t op2(lg_builder *b, int32_t code, int32_t a, int32_t c, lg_dims shape, const char *name) {
    _Alignas(16) unsigned char buf[64];
    lg_opts_kind kind;
    size_t size;
    opts_of(code, &kind, buf, &size);
    int32_t y = lg_b_tensor(b, name, LG_FLOAT32, shape);
    if (c >= 0) lg_b_op_opts(b, code, LG_IDS(a, c), LG_IDS(y), kind, kind ? buf : NULL);
    else lg_b_op_opts(b, code, LG_IDS(a), LG_IDS(y), kind, kind ? buf : NULL);
    return y;
}

static int32_t reduce(lg_builder *b, int32_t code, int32_t x, lg_dims axes, bool keep, lg_dims shape,
                      const char *name) {
    lg_reducer_options ro;
    lg_opts_init(LG_OPTS_REDUCER_OPTIONS, &ro, sizeof ro);
    ro.keep_dims = keep;
    char an[64];
    snprintf(an, sizeof an, "%s/axes", name);
    const int32_t na = (int32_t)axes.n;
    int32_t ax = lg_b_const_i32(b, an, (lg_dims){&na, 1}, axes.v);
    int32_t y = lg_b_tensor(b, name, LG_FLOAT32, shape);
    lg_b_op_opts(b, code, LG_IDS(x, ax), LG_IDS(y), LG_OPTS_REDUCER_OPTIONS, &ro);
    return y;
}

static int32_t scalar_c(lg_builder *b, const char *name, float v) {
    return lg_b_const(b, name, LG_FLOAT32, LG_SCALAR, &v, 4);
}

/* The ops of subgraph 0 as builtin codes. */
static uint32_t codes(const lg_model *m, int32_t *out, uint32_t max) {
    uint32_t n = m->subgraphs[0].n_ops;
    for (uint32_t i = 0; i < n && i < max; i++) out[i] = lg_op_builtin(m, &m->subgraphs[0].ops[i]);
    return n;
}

static bool same_ops(const lg_model *a, const lg_model *b) {
    int32_t ca[256], cb[256];
    uint32_t na = codes(a, ca, 256), nb = codes(b, cb, 256);
    if (na != nb) return false;
    for (uint32_t i = 0; i < na && i < 256; i++)
        if (ca[i] != cb[i]) return false;
    return true;
}

static uint32_t count_code(const lg_model *m, int32_t code) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->subgraphs[0].n_ops; i++) n += lg_op_builtin(m, &m->subgraphs[0].ops[i]) == code;
    return n;
}

/* Blockers lg_check reports for target t (any GPU). */
static uint32_t blockers(const lg_model *m, lg_target t) {
    lg_check_options co = {t, 0, LG_GPU_ANY};
    lg_check_report *rep = NULL;
    lg_error err;
    if (lg_check_model(m, &co, &rep, &err) != LG_OK) return 999;
    uint32_t n = rep->n_blockers;
    lg_check_report_free(rep);
    return n;
}

/* The instrument on a whole model: the worst output of f16 against f32. */
static lg_verdict f16_verdict(const lg_model *m, const float *const *in) {
    lg_compare_options co;
    memset(&co, 0, sizeof co);
    co.precision = LG_PREC_F16;
    lg_precision_report *r = NULL;
    lg_error err;
    lg_verdict v;
    memset(&v, 0, sizeof v);
    v.severity = INFINITY;
    if (lg_compare_precision(m, in, &co, &r, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "compare: %s", err.msg);
        return v;
    }
    if (r->worst_output >= 0) v = r->outputs[r->worst_output].v;
    lg_precision_report_free(r);
    return v;
}

/* Run m once in precision p on one input; copies output 0 into y (n floats). */
static bool run1(const lg_model *m, lg_precision p, const float *x, float *y, int64_t n) {
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.precision = p;
    lg_interp *it = NULL;
    lg_error err;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) { tf_fail(__FILE__, __LINE__, "%s", err.msg); return false; }
    lg_tensor_view v;
    lg_interp_input(it, 0, &v);
    bool ok = lg_interp_set_input(it, 0, LG_FLOAT32, x, v.nbytes, &err) == LG_OK && lg_interp_invoke(it, &err) == LG_OK;
    if (ok) {
        lg_interp_output(it, 0, &v);
        ok = v.numel == n;
        if (ok) memcpy(y, v.data, (size_t)n * sizeof(float));
    }
    if (!ok) tf_fail(__FILE__, __LINE__, "run: %s", err.msg);
    lg_interp_free(it);
    return ok;
}

typedef struct hardened {
    lg_model *out;
    lg_harden_report *rep;
} hardened;

static void dump_report(const lg_harden_report *r) {
    if (!getenv("FP16_DUMP") || !r) return;
    fprintf(stderr, "report: %u items, %u hazards, %u rewritten; model %.4g -> %.4g; parity %d rel %.3g; ops %u -> %u\n",
            r->n_items, r->n_hazards, r->n_rewritten, r->model_before.score, r->model_after.score, r->parity_measured,
            r->parity_max_rel, r->ops_before, r->ops_after);
    for (uint32_t i = 0; i < r->n_items; i++) {
        const lg_harden_item *it = &r->items[i];
        fprintf(stderr, "  %s anchor %d extent %lld amax %.4g conv %d k %d: before score %.4g of%d max_abs %.4g pearson %.6f; "
                "after score %.4g of%d max_abs %.4g pearson %.6f; fix %u rewritten %d: %s\n",
                lg_fp16_pattern_name(it->kind), it->anchor_op, (long long)it->extent, it->input_max_abs, it->conv_op,
                it->conv_shift, it->before.score, it->before.overflow, it->before.max_abs, it->before.pearson,
                it->after.score, it->after.overflow, it->after.max_abs, it->after.pearson, it->fix, it->rewritten, it->why);
    }
}

static hardened harden_opt(const lg_model *m, lg_harden_mode mode, const float *x, const lg_harden_options *o) {
    hardened h = {NULL, NULL};
    const float *in[1] = {x};
    lg_error err;
    if (lg_harden_fp16_opt(m, mode, x ? in : NULL, o, &h.out, &h.rep, &err) != LG_OK)
        tf_fail(__FILE__, __LINE__, "lg_harden_fp16: %s", err.msg);
    dump_report(h.rep);
    return h;
}

static hardened harden(const lg_model *m, lg_harden_mode mode, const float *x) {
    return harden_opt(m, mode, x, NULL);
}

static hardened harden_approx(const lg_model *m, lg_harden_mode mode, const float *x) {
    lg_harden_options o;
    memset(&o, 0, sizeof o);
    o.allow_approx = true;
    return harden_opt(m, mode, x, &o);
}

static void hardened_free(hardened *h) {
    lg_model_free(h->out);
    lg_harden_report_free(h->rep);
}

/* ------------------------------------------------------------------ LayerNorm */

/* The NAFNet channel LayerNorm (examples/make_examples.c): y = (x - mean) * rsqrt(mean((x -
   mean)^2) + eps) * gamma + beta over the last axis, in our ONNX importer's form. */
static lg_model *layernorm_model(int32_t rows, int32_t c, float eps) {
    lg_builder b;
    lg_model *m = new_model(&b);
    float *gamma = malloc((size_t)c * sizeof *gamma), *beta = malloc((size_t)c * sizeof *beta);
    for (int i = 0; i < c; i++) {
        gamma[i] = 1.0f + (float)(i % 7) / 16.0f;
        beta[i] = (float)(i % 5) / 32.0f;
    }
    lg_dims full = LG_DIMS(1, rows, c), st = LG_DIMS(1, rows, 1);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, full);
    int32_t g = lg_b_const_f32(&b, "gamma", LG_DIMS(c), gamma);
    int32_t be = lg_b_const_f32(&b, "beta", LG_DIMS(c), beta);
    int32_t mu = reduce(&b, LG_OP_MEAN, x, LG_DIMS(2), true, st, "ln/mean");
    int32_t d = op2(&b, LG_OP_SUB, x, mu, full, "ln/centered");
    int32_t sq = op2(&b, LG_OP_MUL, d, d, full, "ln/sq");
    int32_t var = reduce(&b, LG_OP_MEAN, sq, LG_DIMS(2), true, st, "ln/var");
    int32_t ve = op2(&b, LG_OP_ADD, var, scalar_c(&b, "ln/eps", eps), st, "ln/var_eps");
    int32_t r = op2(&b, LG_OP_RSQRT, ve, -1, st, "ln/rstd");
    int32_t nr = op2(&b, LG_OP_MUL, d, r, full, "ln/normalized");
    int32_t sc = op2(&b, LG_OP_MUL, nr, g, full, "ln/scaled");
    int32_t y = op2(&b, LG_OP_ADD, sc, be, full, "y");
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    free(gamma);
    free(beta);
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* NAFNet's bottleneck magnitude: |x| up to amp (the example's input at amp 175). */
static float *wave(int64_t n, int64_t row, double amp) {
    float *x = malloc((size_t)n * sizeof *x);
    for (int64_t i = 0; i < n; i++) x[i] = (float)(amp * cos(0.37 * (double)i + 0.1 * (double)(i / row)));
    return x;
}

LG_TEST(fix_fp16_layernorm_512_overflows_then_fixed) {
    lg_model *m = layernorm_model(16, 512, 1e-6f);
    float *x = wave(16 * 512, 512, 175.0);
    const float *in[1] = {x};
    /* before: the variance's half sum of squares (512 x ~15k) is inf: rsqrt 0, output = beta */
    lg_verdict before = f16_verdict(m, in);
    CHECK(!before.pass && before.score > 0.5);
    hardened h = harden(m, LG_HARDEN_AUTO, x);
    if (!h.out) { free(x); lg_model_free(m); return; }
    CHECK_EQ_INT(h.rep->n_items, 1);
    const lg_harden_item *it = &h.rep->items[0];
    CHECK_EQ_INT(it->kind, LG_FP16_LAYER_NORM);
    CHECK_EQ_INT(it->extent, 512);
    CHECK(it->hazard && it->before.overflow && it->rewritten);
    CHECK_EQ_INT(it->fix, LG_FP16_FIX_SAFE_NORM);
    CHECK(it->after.measured && !it->after.diverges && it->after.score < 0.01);
    CHECK_NEAR(it->input_max_abs, 175.0, 0.5);
    /* fp32 parity proved by the runner on the |x| ~ 175 golden input and 2 random ones */
    CHECK(h.rep->parity_measured && h.rep->parity_cases == 3 && h.rep->parity_max_rel <= 1e-6);
    /* after, by the instrument */
    lg_verdict after = f16_verdict(h.out, in);
    CHECK(after.pass && after.score < 0.01);
    CHECK(!h.rep->model_before.measured || h.rep->model_before.diverges);
    CHECK(h.rep->model_after.measured && !h.rep->model_after.diverges);
    /* the graph: 18 new ops replace MEAN SUB MUL MEAN ADD RSQRT MUL; gamma and beta stay.
       S = 2^k with k = floor(log2(max(max|x|, 8))) - 2: ABS REDUCE_MAX MAXIMUM LOG MUL FLOOR SUB,
       1/S = POW(0.5, k), xs = x * (1/S); mean, xs - mean, its square, mean; eps * (1/S)^2 (two
       MULs), ADD, RSQRT, the product; then gamma and beta */
    static const int32_t want[] = {LG_OP_ABS, LG_OP_REDUCE_MAX, LG_OP_MAXIMUM, LG_OP_LOG, LG_OP_MUL, LG_OP_FLOOR,
                                   LG_OP_SUB, LG_OP_POW, LG_OP_MUL, LG_OP_MEAN, LG_OP_SUB, LG_OP_MUL, LG_OP_MEAN,
                                   LG_OP_MUL, LG_OP_MUL, LG_OP_ADD, LG_OP_RSQRT, LG_OP_MUL, LG_OP_MUL, LG_OP_ADD};
    int32_t got[64];
    uint32_t n = codes(h.out, got, 64);
    CHECK_EQ_INT(n, sizeof want / sizeof want[0]);
    for (uint32_t i = 0; i < n && i < sizeof want / sizeof want[0]; i++) CHECK_EQ_INT(got[i], want[i]);
    CHECK_EQ_INT(blockers(h.out, LG_TARGET_MLDRIFT), 0);
    CHECK_EQ_INT(blockers(h.out, LG_TARGET_CLASSIC), 0);
    /* the interface is unchanged */
    CHECK_STR(h.out->subgraphs[0].tensors[h.out->subgraphs[0].outputs[0]].name, "y");
    CHECK_STR(h.out->subgraphs[0].tensors[h.out->subgraphs[0].inputs[0]].name, "x");
    hardened_free(&h);
    free(x);
    lg_model_free(m);
}

/* Hand-derived: x = {-3000, -1000, 1000, 3000} over 4 channels. mean 0, var = (9e6 + 1e6 + 1e6
   + 9e6) / 4 = 5e6, y = x / sqrt(5e6) = {-3, -1, 1, 3} / sqrt(5) = {-1.341641, -0.447214,
   0.447214, 1.341641} (gamma 1 + i%7/16 = 1, 1.0625, 1.125, 1.1875; beta i%5/32 = 0, 1/32,
   2/32, 3/32). In f16 the square 9e6 is inf, rsqrt(inf) = 0 and y = beta; hardened, S = 3000/8
   = 375 and every value stays below 64. */
LG_TEST(fix_fp16_layernorm_hand_values) {
    lg_model *m = layernorm_model(1, 4, 1e-5f);
    const float x[4] = {-3000, -1000, 1000, 3000};
    const double r5 = 1.0 / sqrt(5.0);
    const double want[4] = {-3 * r5 * 1.0, -r5 * 1.0625 + 1.0 / 32, r5 * 1.125 + 2.0 / 32, 3 * r5 * 1.1875 + 3.0 / 32};
    float y[4];
    if (run1(m, LG_PREC_F16, x, y, 4)) {
        CHECK_NEAR(y[0], 0.0, 1e-6);          /* beta: the overflow */
        CHECK_NEAR(y[3], 3.0 / 32, 1e-3);
    }
    hardened h = harden(m, LG_HARDEN_AUTO, x);
    if (!h.out) { lg_model_free(m); return; }
    CHECK_EQ_INT(h.rep->n_rewritten, 1);
    if (run1(h.out, LG_PREC_F16, x, y, 4))
        for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], want[i], 4e-3); /* half: 11 bits */
    if (run1(h.out, LG_PREC_F32, x, y, 4))
        for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], want[i], 2e-6);
    hardened_free(&h);
    lg_model_free(m);
}

/* The near miss: the same LayerNorm at |x| ~ 1 is within tolerance in f16: auto leaves the
   model as it is, always rewrites it (and parity still holds). */
LG_TEST(fix_fp16_layernorm_near_miss) {
    lg_model *m = layernorm_model(16, 512, 1e-6f);
    float *x = wave(16 * 512, 512, 1.0);
    hardened h = harden(m, LG_HARDEN_AUTO, x);
    if (h.out) {
        CHECK_EQ_INT(h.rep->n_items, 1);
        CHECK(!h.rep->items[0].hazard && !h.rep->items[0].rewritten);
        CHECK(h.rep->items[0].before.measured && h.rep->items[0].before.score < 0.05);
        CHECK(same_ops(m, h.out));
        CHECK_EQ_INT(h.out->subgraphs[0].n_tensors, m->subgraphs[0].n_tensors);
    }
    hardened_free(&h);
    h = harden(m, LG_HARDEN_ALWAYS, x);
    if (h.out) {
        CHECK(h.rep->items[0].rewritten && !h.rep->items[0].after.diverges);
        CHECK_EQ_INT(count_code(h.out, LG_OP_REDUCE_MAX), 1);
        CHECK(h.rep->parity_measured && h.rep->parity_max_rel <= 1e-6);
    }
    hardened_free(&h);
    h = harden(m, LG_HARDEN_OFF, x);
    if (h.out) {
        CHECK(same_ops(m, h.out) && h.rep->n_items == 1 && !h.rep->items[0].before.measured);
    }
    hardened_free(&h);
    free(x);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ shared checks */

/* m diverges in f16 on x (the instrument), and auto mode rewrites match `which` of kind `kind`
   with the fix bits `fix`; afterwards f16 is within tolerance, fp32 parity <= 1e-6, the model
   has no blocker on either target, and its interface is the same. */
static hardened expect_fixed(const lg_model *m, const float *x, uint32_t which, lg_fp16_pattern kind, unsigned fix) {
    const float *in[1] = {x};
    lg_verdict before = f16_verdict(m, in);
    CHECK(!before.pass);
    hardened h = harden(m, LG_HARDEN_AUTO, x);
    if (!h.out) return h;
    CHECK(which < h.rep->n_items);
    if (which >= h.rep->n_items) return h;
    const lg_harden_item *it = &h.rep->items[which];
    CHECK_EQ_INT(it->kind, kind);
    CHECK(it->hazard && it->rewritten);
    CHECK_EQ_INT(it->fix, fix);
    CHECK(it->before.diverges && it->after.measured && !it->after.diverges && !it->after.overflow);
    CHECK(h.rep->parity_measured && h.rep->parity_max_rel <= 1e-6);
    lg_verdict after = f16_verdict(h.out, in);
    CHECK(after.pass);
    /* never a new blocker (an L2_NORMALIZATION, which no GPU delegate has, even loses one) */
    CHECK(blockers(h.out, LG_TARGET_MLDRIFT) <= blockers(m, LG_TARGET_MLDRIFT));
    CHECK(blockers(h.out, LG_TARGET_CLASSIC) <= blockers(m, LG_TARGET_CLASSIC));
    const lg_subgraph *a = &m->subgraphs[0], *b = &h.out->subgraphs[0];
    CHECK_EQ_INT(a->n_inputs, b->n_inputs);
    CHECK_EQ_INT(a->n_outputs, b->n_outputs);
    for (uint32_t i = 0; i < a->n_outputs && i < b->n_outputs; i++)
        CHECK_STR(b->tensors[b->outputs[i]].name, a->tensors[a->outputs[i]].name);
    return h;
}

/* The same pattern at a harmless magnitude: auto changes nothing, always rewrites every match
   (parity proved). */
static void expect_near_miss(const lg_model *m, const float *x, uint32_t n_items) {
    hardened h = harden(m, LG_HARDEN_AUTO, x);
    if (h.out) {
        CHECK_EQ_INT(h.rep->n_items, n_items);
        CHECK_EQ_INT(h.rep->n_hazards, 0);
        CHECK_EQ_INT(h.rep->n_rewritten, 0);
        CHECK(same_ops(m, h.out));
        for (uint32_t i = 0; i < h.rep->n_items; i++) CHECK(h.rep->items[i].before.measured && !h.rep->items[i].hazard);
    }
    hardened_free(&h);
    h = harden(m, LG_HARDEN_ALWAYS, x);
    if (h.out) {
        CHECK_EQ_INT(h.rep->n_rewritten, n_items);
        CHECK(!same_ops(m, h.out));
        CHECK(h.rep->parity_measured && h.rep->parity_max_rel <= 1e-6);
    }
    hardened_free(&h);
}

/* ------------------------------------------------------------------ the other LayerNorm forms */

/* torch/ONNX opset 13: MEAN, SUB, POW 2, MEAN, ADD eps, SQRT, DIV (no gamma). */
static lg_model *layernorm_pow_model(int32_t rows, int32_t c) {
    lg_builder b;
    lg_model *m = new_model(&b);
    lg_dims full = LG_DIMS(2, rows, c), st = LG_DIMS(2, rows, 1);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, full);
    int32_t mu = reduce(&b, LG_OP_MEAN, x, LG_DIMS(-1), true, st, "mean");
    int32_t d = op2(&b, LG_OP_SUB, x, mu, full, "d");
    int32_t sq = op2(&b, LG_OP_POW, d, scalar_c(&b, "two", 2.0f), full, "sq");
    int32_t var = reduce(&b, LG_OP_MEAN, sq, LG_DIMS(-1), true, st, "var");
    int32_t ve = op2(&b, LG_OP_ADD, var, scalar_c(&b, "eps", 1e-5f), st, "ve");
    int32_t s = op2(&b, LG_OP_SQRT, ve, -1, st, "std");
    int32_t y = op2(&b, LG_OP_DIV, d, s, full, "y");
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(fix_fp16_layernorm_pow_sqrt_div_form) {
    lg_model *m = layernorm_pow_model(8, 256);
    float *x = wave(2 * 8 * 256, 256, 175.0);
    hardened h = expect_fixed(m, x, 0, LG_FP16_LAYER_NORM, LG_FP16_FIX_SAFE_NORM);
    /* the root stays a SQRT and a DIV (the original's form); the only POW is 0.5^k */
    if (h.out) {
        CHECK_EQ_INT(count_code(h.out, LG_OP_POW), 1);
        CHECK_EQ_INT(count_code(h.out, LG_OP_SQRT), 1);
        CHECK_EQ_INT(count_code(h.out, LG_OP_DIV), 1); /* d / sqrt */
    }
    hardened_free(&h);
    free(x);
    float *small = wave(2 * 8 * 256, 256, 1.0);
    expect_near_miss(m, small, 1);
    free(small);
    lg_model_free(m);
}

/* The TF converter's keras LayerNormalization (tf.nn.moments + batch_normalization):
   mean, SQUARED_DIFFERENCE(x, mean), mean, ADD eps, RSQRT, r * gamma, x * rg + (beta - mean * rg).
   No single op is the normalized output: the rewrite replaces mean and rsqrt. */
static lg_model *layernorm_keras_model(int32_t rows, int32_t c) {
    lg_builder b;
    lg_model *m = new_model(&b);
    float *gamma = malloc((size_t)c * sizeof *gamma), *beta = malloc((size_t)c * sizeof *beta);
    for (int i = 0; i < c; i++) {
        gamma[i] = 0.5f + (float)(i % 9) / 8.0f;
        beta[i] = (float)(i % 3) - 1.0f;
    }
    lg_dims full = LG_DIMS(1, 1, rows, c), st = LG_DIMS(1, 1, rows, 1);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, full);
    int32_t g = lg_b_const_f32(&b, "gamma", LG_DIMS(c), gamma);
    int32_t be = lg_b_const_f32(&b, "beta", LG_DIMS(c), beta);
    int32_t mu = reduce(&b, LG_OP_MEAN, x, LG_DIMS(3), true, st, "moments/mean");
    int32_t sd = op2(&b, LG_OP_SQUARED_DIFFERENCE, x, mu, full, "moments/sqdiff");
    int32_t var = reduce(&b, LG_OP_MEAN, sd, LG_DIMS(3), true, st, "moments/variance");
    int32_t ve = op2(&b, LG_OP_ADD, var, scalar_c(&b, "eps", 1e-3f), st, "bn/add");
    int32_t r = op2(&b, LG_OP_RSQRT, ve, -1, st, "bn/rsqrt");
    int32_t rg = op2(&b, LG_OP_MUL, r, g, full, "bn/mul");
    int32_t xr = op2(&b, LG_OP_MUL, x, rg, full, "bn/mul_1");
    int32_t mr = op2(&b, LG_OP_MUL, mu, rg, full, "bn/mul_2");
    int32_t sb = op2(&b, LG_OP_SUB, be, mr, full, "bn/sub");
    int32_t y = op2(&b, LG_OP_ADD, xr, sb, full, "y");
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    free(gamma);
    free(beta);
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(fix_fp16_layernorm_keras_form) {
    lg_model *m = layernorm_keras_model(8, 512);
    float *x = wave(8 * 512, 512, 175.0);
    hardened h = expect_fixed(m, x, 0, LG_FP16_LAYER_NORM, LG_FP16_FIX_SAFE_NORM);
    if (h.out) {
        CHECK_EQ_INT(count_code(h.out, LG_OP_SQUARED_DIFFERENCE), 0);
        /* the tail x * rg + (beta - mean * rg) is kept: 3 MULs, SUB, ADD after the safe core */
        const lg_subgraph *sg = &h.out->subgraphs[0];
        CHECK_EQ_INT(lg_op_builtin(h.out, &sg->ops[sg->n_ops - 1]), LG_OP_ADD);
    }
    hardened_free(&h);
    free(x);
    float *small = wave(8 * 512, 512, 1.0);
    expect_near_miss(m, small, 1);
    free(small);
    lg_model_free(m);
}

/* litert-torch's native_layer_norm goes through mhlo's unfused batch_norm_training
   (odml_torch/lowerings/_layer_norm.py; XLA unfuse_batch_norm.cc): var = E[x^2] - E[x]^2,
   y = (x - E[x]) / sqrt(var + eps). */
static lg_model *layernorm_moment_model(int32_t rows, int32_t c) {
    lg_builder b;
    lg_model *m = new_model(&b);
    lg_dims full = LG_DIMS(1, rows, c), st = LG_DIMS(1, rows, 1);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, full);
    int32_t ex = reduce(&b, LG_OP_MEAN, x, LG_DIMS(2), true, st, "ex");
    int32_t x2 = op2(&b, LG_OP_MUL, x, x, full, "x2");
    int32_t ex2 = reduce(&b, LG_OP_MEAN, x2, LG_DIMS(2), true, st, "ex2");
    int32_t e2x = op2(&b, LG_OP_MUL, ex, ex, st, "e2x");
    int32_t var = op2(&b, LG_OP_SUB, ex2, e2x, st, "var");
    int32_t ve = op2(&b, LG_OP_ADD, var, scalar_c(&b, "eps", 1e-5f), st, "ve");
    int32_t s = op2(&b, LG_OP_SQRT, ve, -1, st, "std");
    int32_t d = op2(&b, LG_OP_SUB, x, ex, full, "d");
    int32_t y = op2(&b, LG_OP_DIV, d, s, full, "y");
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(fix_fp16_layernorm_moment_form) {
    lg_model *m = layernorm_moment_model(8, 512);
    float *x = wave(8 * 512, 512, 175.0);
    hardened h = expect_fixed(m, x, 0, LG_FP16_LAYER_NORM, LG_FP16_FIX_SAFE_NORM);
    hardened_free(&h);
    free(x);
    float *small = wave(8 * 512, 512, 1.0);
    expect_near_miss(m, small, 1);
    free(small);
    lg_model_free(m);
}

/* Not a norm: rsqrt(mean(x * z) + eps) of two different tensors (no square). Never matched. */
LG_TEST(fix_fp16_not_a_norm_left_alone) {
    lg_builder b;
    lg_model *m = new_model(&b);
    lg_dims full = LG_DIMS(1, 16, 64);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, full);
    int32_t mu = reduce(&b, LG_OP_MEAN, x, LG_DIMS(2), true, LG_DIMS(1, 16, 1), "mean");
    int32_t d = op2(&b, LG_OP_SUB, x, mu, full, "d");
    int32_t sq = op2(&b, LG_OP_MUL, d, x, full, "sq");
    int32_t var = reduce(&b, LG_OP_MEAN, sq, LG_DIMS(1), true, LG_DIMS(1, 1, 64), "var");
    int32_t ve = op2(&b, LG_OP_ADD, var, scalar_c(&b, "eps", 1e-5f), LG_DIMS(1, 1, 64), "ve");
    int32_t r = op2(&b, LG_OP_RSQRT, ve, -1, LG_DIMS(1, 1, 64), "r");
    int32_t y = op2(&b, LG_OP_MUL, d, r, full, "y");
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    float *xv = wave(16 * 64, 64, 300.0);
    hardened h = harden(m, LG_HARDEN_ALWAYS, xv);
    if (h.out) {
        CHECK_EQ_INT(h.rep->n_items, 0);
        CHECK(same_ops(m, h.out));
    }
    hardened_free(&h);
    free(xv);
    lg_model_free(m);
}

/* ------------------------------------------------------------------ RMSNorm, ScaleNorm, L2 */

/* The ONNX fixture's RMSNorm (tests/fixtures/onnx/gen.py, as our importer lowers it):
   x * (1 / sqrt(mean(x^2) + eps)) * weight, x^2 as POW(x, 2). */
static lg_model *rmsnorm_model(int32_t rows, int32_t c) {
    lg_builder b;
    lg_model *m = new_model(&b);
    float *w = malloc((size_t)c * sizeof *w);
    for (int i = 0; i < c; i++) w[i] = 0.5f + (float)(i % 11) / 10.0f;
    lg_dims full = LG_DIMS(1, rows, c), st = LG_DIMS(1, rows, 1);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, full);
    int32_t wt = lg_b_const_f32(&b, "weight", LG_DIMS(c), w);
    int32_t sq = op2(&b, LG_OP_POW, x, scalar_c(&b, "two", 2.0f), full, "rms/pow");
    int32_t ms = reduce(&b, LG_OP_MEAN, sq, LG_DIMS(2), true, st, "rms/mean");
    int32_t ve = op2(&b, LG_OP_ADD, ms, scalar_c(&b, "eps", 1e-6f), st, "rms/add");
    int32_t s = op2(&b, LG_OP_SQRT, ve, -1, st, "rms/sqrt");
    int32_t inv = op2(&b, LG_OP_DIV, scalar_c(&b, "one", 1.0f), s, st, "rms/inv");
    int32_t nr = op2(&b, LG_OP_MUL, x, inv, full, "rms/normalized");
    int32_t y = op2(&b, LG_OP_MUL, nr, wt, full, "y");
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    free(w);
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* RTMPose's ScaleNorm input reaches |274|: its square 75076 is already past 65504. */
LG_TEST(fix_fp16_rmsnorm_274) {
    lg_model *m = rmsnorm_model(8, 256);
    float *x = wave(8 * 256, 256, 274.0);
    hardened h = expect_fixed(m, x, 0, LG_FP16_RMS_NORM, LG_FP16_FIX_SAFE_NORM);
    if (h.out) {
        CHECK(h.rep->items[0].before.overflow);
        CHECK_EQ_INT(count_code(h.out, LG_OP_POW), 1); /* 0.5^k only: the square is xs * xs */
        CHECK_EQ_INT(count_code(h.out, LG_OP_REDUCE_MAX), 1);
    }
    hardened_free(&h);
    /* fp16 storage with fp32 arithmetic (f32_f16, the delegate's fusion emulated): the square
       74000 is stored as a half (MEAN is not fused into its producer), inf, and fixed the same */
    lg_harden_options o;
    memset(&o, 0, sizeof o);
    o.precision = LG_PREC_F32_F16;
    h = harden_opt(m, LG_HARDEN_AUTO, x, &o);
    if (h.out) {
        CHECK_EQ_INT(h.rep->precision, LG_PREC_F32_F16);
        CHECK(h.rep->items[0].hazard && h.rep->items[0].before.overflow && h.rep->items[0].rewritten);
        CHECK(!h.rep->items[0].after.diverges && !h.rep->model_after.diverges);
    }
    hardened_free(&h);
    free(x);
    float *small = wave(8 * 256, 256, 1.0);
    expect_near_miss(m, small, 1);
    free(small);
    lg_model_free(m);
}

/* Hand-derived RMSNorm: x = {300, -300, 300, -300}: mean(x^2) = 90000, y = x / 300 * w =
   {0.5, -0.6, 0.7, -0.8} (w = 0.5 + i/10). In f16 the square 90000 is inf and y = 0. */
LG_TEST(fix_fp16_rmsnorm_hand_values) {
    lg_model *m = rmsnorm_model(1, 4);
    const float x[4] = {300, -300, 300, -300}, want[4] = {0.5f, -0.6f, 0.7f, -0.8f};
    float y[4];
    if (run1(m, LG_PREC_F16, x, y, 4)) CHECK_NEAR(y[0], 0.0, 1e-6);
    hardened h = harden(m, LG_HARDEN_AUTO, x);
    if (h.out && run1(h.out, LG_PREC_F16, x, y, 4))
        for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], want[i], 1e-3);
    if (h.out && run1(h.out, LG_PREC_F32, x, y, 4))
        for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], want[i], 1e-6);
    hardened_free(&h);
    lg_model_free(m);
}

/* RTMPose's ScaleNorm as exported: x / max(sqrt(sum(x^2)) * dim^-0.5, eps) * g. The root is
   scaled and clamped by later ops the match does not own: the rewrite replaces the sqrt. */
static lg_model *scalenorm_model(int32_t rows, int32_t c) {
    lg_builder b;
    lg_model *m = new_model(&b);
    lg_dims full = LG_DIMS(1, rows, c), st = LG_DIMS(1, rows, 1);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, full);
    int32_t sq = op2(&b, LG_OP_MUL, x, x, full, "sn/sq");
    int32_t ss = reduce(&b, LG_OP_SUM, sq, LG_DIMS(2), true, st, "sn/sum");
    int32_t s = op2(&b, LG_OP_SQRT, ss, -1, st, "sn/norm");
    int32_t k = op2(&b, LG_OP_MUL, s, scalar_c(&b, "scale", 1.0f / sqrtf((float)c)), st, "sn/scaled");
    int32_t cl = op2(&b, LG_OP_MAXIMUM, k, scalar_c(&b, "eps", 1e-5f), st, "sn/clamp");
    int32_t nr = op2(&b, LG_OP_DIV, x, cl, full, "sn/div");
    int32_t y = op2(&b, LG_OP_MUL, nr, scalar_c(&b, "g", 1.5f), full, "y");
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(fix_fp16_scalenorm_replaces_the_root) {
    lg_model *m = scalenorm_model(8, 256);
    float *x = wave(8 * 256, 256, 274.0);
    hardened h = expect_fixed(m, x, 0, LG_FP16_L2_NORM, LG_FP16_FIX_SAFE_NORM);
    hardened_free(&h);
    free(x);
    float *small = wave(8 * 256, 256, 1.0);
    expect_near_miss(m, small, 1);
    free(small);
    lg_model_free(m);
}

/* L2_NORMALIZATION (x / max(sqrt(sum x^2), 1e-6), tflite reference l2normalization.h) and
   tf.math.l2_normalize's x * rsqrt(max(sum(x^2), eps)). */
static lg_model *l2_model(int32_t rows, int32_t c, bool op) {
    lg_builder b;
    lg_model *m = new_model(&b);
    lg_dims full = LG_DIMS(1, rows, c), st = LG_DIMS(1, rows, 1);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, full), y;
    if (op) {
        lg_l2_norm_options lo;
        lg_opts_init(LG_OPTS_L2_NORM_OPTIONS, &lo, sizeof lo);
        y = lg_b_tensor(&b, "y", LG_FLOAT32, full);
        lg_b_op_opts(&b, LG_OP_L2_NORMALIZATION, LG_IDS(x), LG_IDS(y), LG_OPTS_L2_NORM_OPTIONS, &lo);
    } else {
        int32_t sq = op2(&b, LG_OP_SQUARE, x, -1, full, "l2/sq");
        int32_t ss = reduce(&b, LG_OP_SUM, sq, LG_DIMS(-1), true, st, "l2/sum");
        int32_t mx = op2(&b, LG_OP_MAXIMUM, ss, scalar_c(&b, "eps", 1e-12f), st, "l2/max");
        int32_t r = op2(&b, LG_OP_RSQRT, mx, -1, st, "l2/rsqrt");
        y = op2(&b, LG_OP_MUL, x, r, full, "y");
    }
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(fix_fp16_l2_norm_op_and_decomposed) {
    for (int op = 0; op < 2; op++) {
        lg_model *m = l2_model(4, 128, op);
        /* |x| ~ 40 over 128 channels: sum of squares ~ 1e5 > 65504 */
        float *x = wave(4 * 128, 128, 40.0);
        hardened h = expect_fixed(m, x, 0, LG_FP16_L2_NORM, LG_FP16_FIX_SAFE_NORM);
        if (h.out) CHECK_EQ_INT(count_code(h.out, LG_OP_L2_NORMALIZATION), 0);
        hardened_free(&h);
        free(x);
        float *small = wave(4 * 128, 128, 1.0);
        expect_near_miss(m, small, 1);
        free(small);
        lg_model_free(m);
    }
}

/* ------------------------------------------------------------------ InstanceNorm, SE, conv */

/* InstanceNorm over H, W of NHWC [1, h, w, c]: the means reduce axes {1, 2}; affine per channel. */
static lg_model *instnorm_model(int32_t h, int32_t w, int32_t c) {
    lg_builder b;
    lg_model *m = new_model(&b);
    float sc[8], bi[8];
    for (int i = 0; i < c && i < 8; i++) { sc[i] = 1.0f + 0.25f * (float)i; bi[i] = 0.1f * (float)i; }
    lg_dims full = LG_DIMS(1, h, w, c), st = LG_DIMS(1, 1, 1, c);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, full);
    int32_t g = lg_b_const_f32(&b, "in/scale", LG_DIMS(c), sc);
    int32_t be = lg_b_const_f32(&b, "in/bias", LG_DIMS(c), bi);
    int32_t mu = reduce(&b, LG_OP_MEAN, x, LG_DIMS(1, 2), true, st, "in/mean");
    int32_t d = op2(&b, LG_OP_SUB, x, mu, full, "in/d");
    int32_t sq = op2(&b, LG_OP_MUL, d, d, full, "in/sq");
    int32_t var = reduce(&b, LG_OP_MEAN, sq, LG_DIMS(1, 2), true, st, "in/var");
    int32_t ve = op2(&b, LG_OP_ADD, var, scalar_c(&b, "in/eps", 1e-5f), st, "in/ve");
    int32_t r = op2(&b, LG_OP_RSQRT, ve, -1, st, "in/r");
    int32_t nr = op2(&b, LG_OP_MUL, d, r, full, "in/normalized");
    int32_t sc2 = op2(&b, LG_OP_MUL, nr, g, full, "in/scaled");
    int32_t y = op2(&b, LG_OP_ADD, sc2, be, full, "y");
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* A feature map: a smooth pattern of amplitude amp over [1, h, w, c], channel k offset by
   offset * (1 + spread * k). */
static float *image_ch(int32_t h, int32_t w, int32_t c, double amp, double offset, double spread) {
    float *x = malloc((size_t)h * w * c * sizeof *x);
    for (int32_t i = 0; i < h; i++)
        for (int32_t j = 0; j < w; j++)
            for (int32_t k = 0; k < c; k++)
                x[((size_t)i * w + j) * c + k] =
                    (float)(offset * (1 + spread * k) +
                            amp * sin(0.05 * i + 0.3 * k) * cos(0.07 * j - 0.2 * k + 0.01 * i * j / (w + 1.0)));
    return x;
}

static float *image(int32_t h, int32_t w, int32_t c, double amp, double offset) {
    return image_ch(h, w, c, amp, offset, 0.0);
}

static bool has_finding(const lg_model *m, lg_target t, const char *rule) {
    lg_check_options co = {t, 0, LG_GPU_ANY};
    lg_check_report *rep = NULL;
    lg_error err;
    if (lg_check_model(m, &co, &rep, &err) != LG_OK) return false;
    bool found = false;
    for (uint32_t i = 0; i < rep->n_findings; i++)
        if (strcmp(rep->findings[i].rule->id, rule) == 0) found = true;
    lg_check_report_free(rep);
    return found;
}

/* Every MEAN/SUM/REDUCE_MAX of m reduces one axis. */
static bool single_axis_reductions(const lg_model *m) {
    const lg_subgraph *sg = &m->subgraphs[0];
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        int32_t code = lg_op_builtin(m, &sg->ops[i]);
        if ((code == LG_OP_MEAN || code == LG_OP_SUM || code == LG_OP_REDUCE_MAX) &&
            lg_tensor_numel(&sg->tensors[sg->ops[i].inputs[1]]) != 1)
            return false;
    }
    return true;
}

LG_TEST(fix_fp16_instancenorm_256x256) {
    lg_model *m = instnorm_model(256, 256, 2);
    /* |x| ~ 175: the square 3e4 is summed per work-group thread (1024 values each) past 65504 */
    float *x = image(256, 256, 2, 175.0, 0.0);
    const float *in[1] = {x};
    /* the exact safe norm keeps the original's multi-axis means (same fp32 sums, scaled by 2^-k) */
    hardened h = expect_fixed(m, x, 0, LG_FP16_INSTANCE_NORM, LG_FP16_FIX_SAFE_NORM);
    if (h.out) {
        CHECK_EQ_INT(h.rep->items[0].extent, 65536);
        CHECK(h.rep->items[0].before.overflow);
        CHECK(h.rep->parity_exact_max_rel <= 1e-6 && h.rep->n_approx == 0);
        CHECK_EQ_INT(count_code(h.out, LG_OP_REDUCE_MAX), 2); /* over W then H: exact in any order */
        CHECK_EQ_INT(count_code(h.out, LG_OP_MEAN), 2);
        /* Mali's multi-axis rule is left to the split (or the large-reduce pass) */
        CHECK(has_finding(m, LG_TARGET_MLDRIFT, "large-multi-axis-reduce"));
        CHECK(has_finding(h.out, LG_TARGET_MLDRIFT, "large-multi-axis-reduce"));
    }
    hardened_free(&h);
    /* always + allow_approx: the two-stage form, every reduction single-axis (MODNet's
       SafeInstanceNorm); parity within the split's bound, the exact pass still <= 1e-6 */
    h = harden_approx(m, LG_HARDEN_ALWAYS, x);
    if (h.out) {
        CHECK_EQ_INT(h.rep->items[0].fix, LG_FP16_FIX_SAFE_NORM | LG_FP16_FIX_TWO_STAGE);
        CHECK(h.rep->items[0].rewritten && !h.rep->items[0].after.diverges);
        CHECK_EQ_INT(h.rep->n_approx, 1);
        CHECK(h.rep->parity_measured && h.rep->parity_max_rel <= 1e-4);
        CHECK_EQ_INT(count_code(h.out, LG_OP_REDUCE_MAX), 2);
        CHECK_EQ_INT(count_code(h.out, LG_OP_MEAN), 4);
        CHECK(single_axis_reductions(h.out));
        CHECK(!has_finding(h.out, LG_TARGET_MLDRIFT, "large-multi-axis-reduce"));
        CHECK_EQ_INT(blockers(h.out, LG_TARGET_MLDRIFT), 0);
        CHECK_EQ_INT(blockers(h.out, LG_TARGET_CLASSIC), 0);
        CHECK(f16_verdict(h.out, in).pass);
    }
    hardened_free(&h);
    free(x);
    float *small = image(256, 256, 2, 1.0, 0.0);
    expect_near_miss(m, small, 1);
    free(small);
    lg_model_free(m);
}

/* A squeeze-excite pool as litert-torch writes x.mean((2, 3)) on a large map: SUM over H, W,
   times 1/n, then the excitation (a 1x1 FC and LOGISTIC) scaling x. LiteRT#9249: the half SUM
   is inf on GPU, the block's output NaN. */
static lg_model *se_model(int32_t h, int32_t w, int32_t c) {
    lg_builder b;
    lg_model *m = new_model(&b);
    float wt[64], bias[8];
    for (int i = 0; i < c * c && i < 64; i++) wt[i] = (float)((i * 37) % 11 - 5) / 20.0f;
    for (int i = 0; i < c && i < 8; i++) bias[i] = 0.05f * (float)i;
    lg_dims full = LG_DIMS(1, h, w, c), st = LG_DIMS(1, 1, 1, c);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, full);
    int32_t sum = reduce(&b, LG_OP_SUM, x, LG_DIMS(1, 2), true, st, "se/sum");
    int32_t mean = op2(&b, LG_OP_MUL, sum, scalar_c(&b, "se/inv_n", 1.0f / (float)(h * w)), st, "se/mean");
    int32_t flat = lg_b_tensor(&b, "se/flat", LG_FLOAT32, LG_DIMS(1, c));
    int32_t shp = lg_b_const_i32(&b, "se/shape", LG_DIMS(2), (const int32_t[]){1, c});
    lg_reshape_options ro;
    lg_opts_init(LG_OPTS_RESHAPE_OPTIONS, &ro, sizeof ro);
    lg_b_op_opts(&b, LG_OP_RESHAPE, LG_IDS(mean, shp), LG_IDS(flat), LG_OPTS_RESHAPE_OPTIONS, &ro);
    int32_t wc = lg_b_const_f32(&b, "se/w", LG_DIMS(c, c), wt), bc = lg_b_const_f32(&b, "se/b", LG_DIMS(c), bias);
    int32_t fc = lg_b_tensor(&b, "se/fc", LG_FLOAT32, LG_DIMS(1, c));
    lg_fully_connected_options fo;
    lg_opts_init(LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo, sizeof fo);
    lg_b_op_opts(&b, LG_OP_FULLY_CONNECTED, LG_IDS(flat, wc, bc), LG_IDS(fc), LG_OPTS_FULLY_CONNECTED_OPTIONS, &fo);
    int32_t gate = op2(&b, LG_OP_LOGISTIC, fc, -1, LG_DIMS(1, c), "se/gate");
    int32_t g4 = lg_b_tensor(&b, "se/gate4", LG_FLOAT32, st);
    int32_t shp4 = lg_b_const_i32(&b, "se/shape4", LG_DIMS(4), (const int32_t[]){1, 1, 1, c});
    lg_b_op_opts(&b, LG_OP_RESHAPE, LG_IDS(gate, shp4), LG_IDS(g4), LG_OPTS_RESHAPE_OPTIONS, &ro);
    int32_t y = op2(&b, LG_OP_MUL, x, g4, full, "y");
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

LG_TEST(fix_fp16_squeeze_excite_sum) {
    lg_model *m = se_model(128, 128, 8);
    /* post-ReLU activations ~ 6..16 on average over 16384 positions: the SUMs are 1e5..2.6e5 */
    float *x = image_ch(128, 128, 8, 5.0, 6.0, 0.25);
    const float *in[1] = {x};
    CHECK(!f16_verdict(m, in).pass);
    /* exact: SUM * (1/16384) = MEAN * (16384 / 16384), the same fp32 sum inside; the f16 MEAN
       scales each work-group thread's partial sum before adding them, so no inf */
    hardened h = expect_fixed(m, x, 0, LG_FP16_GLOBAL_REDUCE, LG_FP16_FIX_SUM_AS_MEAN);
    if (h.out) {
        const lg_harden_item *it = &h.rep->items[0];
        CHECK_EQ_INT(it->extent, 16384);
        CHECK(it->before.overflow && it->before.score == INFINITY);
        CHECK(h.rep->parity_max_rel <= 1e-6 && h.rep->n_approx == 0);
        CHECK_EQ_INT(count_code(h.out, LG_OP_SUM), 0);
        CHECK_EQ_INT(count_code(h.out, LG_OP_MEAN), 1);
        CHECK_EQ_INT(count_code(h.out, LG_OP_MUL), 1); /* n * (1/n) = 1 exactly: only x * gate */
    }
    hardened_free(&h);
    /* always + allow_approx: the mean over W, then over H (the seed's mean(3).mean(2)) */
    h = harden_approx(m, LG_HARDEN_ALWAYS, x);
    if (h.out) {
        const lg_harden_item *it = &h.rep->items[0];
        CHECK_EQ_INT(it->fix, LG_FP16_FIX_SUM_AS_MEAN | LG_FP16_FIX_TWO_STAGE);
        CHECK(it->rewritten && !it->after.diverges && !it->after.overflow);
        CHECK(h.rep->parity_measured && h.rep->parity_max_rel <= 1e-4);
        CHECK_EQ_INT(count_code(h.out, LG_OP_SUM), 0);
        CHECK_EQ_INT(count_code(h.out, LG_OP_MEAN), 2);
        CHECK(single_axis_reductions(h.out));
        CHECK(f16_verdict(h.out, in).pass);
        CHECK_EQ_INT(blockers(h.out, LG_TARGET_MLDRIFT), 0);
    }
    hardened_free(&h);
    free(x);
    float *small = image_ch(128, 128, 8, 0.5, 0.5, 0.25);
    expect_near_miss(m, small, 1);
    free(small);
    lg_model_free(m);
}

/* A SUM whose value itself is past the half range (2e5): no rewrite can store it in fp16, so
   auto refuses (and says why); the model is unchanged. */
LG_TEST(fix_fp16_sum_beyond_half_range_refused) {
    lg_builder b;
    lg_model *m = new_model(&b);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1, 128, 128, 2));
    int32_t y = reduce(&b, LG_OP_SUM, x, LG_DIMS(1, 2), false, LG_DIMS(1, 2), "y");
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    float *xv = image(128, 128, 2, 2.0, 12.0);
    hardened h = harden(m, LG_HARDEN_AUTO, xv);
    if (h.out) {
        CHECK_EQ_INT(h.rep->n_items, 1);
        CHECK(h.rep->items[0].hazard && !h.rep->items[0].rewritten);
        CHECK(strstr(h.rep->items[0].why, "beyond the half range") != NULL);
        CHECK(same_ops(m, h.out));
    }
    hardened_free(&h);
    free(xv);
    lg_model_free(m);
}

/* TransformerNet's block: CONV_2D (3x3, SAME, bias) whose output reaches |~5000|, then an
   InstanceNorm over H, W. Weights FLOAT32, or FLOAT16 behind a DEQUANTIZE (TFLite's fp16 form). */
#define CV_H 16
#define CV_W 16
#define CV_C 8
static float cv_weight(int o, int ky, int kx, int i, double amp) {
    return (float)(amp * ((o * 7 + ky * 5 + kx * 3 + i * 11) % 13) / 12.0); /* 0..amp */
}

static lg_model *conv_in_model(double amp, bool fp16) {
    lg_builder b;
    lg_model *m = new_model(&b);
    static float w[CV_C * 9 * CV_C];
    static uint16_t w16[CV_C * 9 * CV_C];
    float bias[CV_C];
    for (int o = 0; o < CV_C; o++) {
        bias[o] = (float)(amp * (o - 3.5) / 4.0);
        for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++)
                for (int i = 0; i < CV_C; i++) {
                    int at = ((o * 3 + ky) * 3 + kx) * CV_C + i;
                    w[at] = cv_weight(o, ky, kx, i, amp);
                    w16[at] = lg_float_to_half(w[at]);
                }
    }
    lg_dims full = LG_DIMS(1, CV_H, CV_W, CV_C), st = LG_DIMS(1, 1, 1, CV_C);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, full), wt;
    if (fp16) {
        int32_t wh = lg_b_const(&b, "conv/w16", LG_FLOAT16, LG_DIMS(CV_C, 3, 3, CV_C), w16, sizeof w16);
        wt = lg_b_tensor(&b, "conv/w", LG_FLOAT32, LG_DIMS(CV_C, 3, 3, CV_C));
        lg_b_op(&b, LG_OP_DEQUANTIZE, LG_IDS(wh), LG_IDS(wt));
    } else {
        wt = lg_b_const_f32(&b, "conv/w", LG_DIMS(CV_C, 3, 3, CV_C), w);
    }
    int32_t bt = lg_b_const_f32(&b, "conv/b", LG_DIMS(CV_C), bias);
    int32_t cv = lg_b_tensor(&b, "conv/out", LG_FLOAT32, full);
    lg_conv2d_options co;
    lg_opts_init(LG_OPTS_CONV2D_OPTIONS, &co, sizeof co);
    co.padding = 0; /* SAME */
    co.stride_w = co.stride_h = 1;
    lg_b_op_opts(&b, LG_OP_CONV_2D, LG_IDS(x, wt, bt), LG_IDS(cv), LG_OPTS_CONV2D_OPTIONS, &co);
    int32_t mu = reduce(&b, LG_OP_MEAN, cv, LG_DIMS(1, 2), true, st, "in/mean");
    int32_t d = op2(&b, LG_OP_SUB, cv, mu, full, "in/d");
    int32_t sq = op2(&b, LG_OP_MUL, d, d, full, "in/sq");
    int32_t var = reduce(&b, LG_OP_MEAN, sq, LG_DIMS(1, 2), true, st, "in/var");
    int32_t ve = op2(&b, LG_OP_ADD, var, scalar_c(&b, "in/eps", 1e-5f), st, "in/ve");
    int32_t r = op2(&b, LG_OP_RSQRT, ve, -1, st, "in/r");
    int32_t y = op2(&b, LG_OP_MUL, d, r, full, "y");
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    CHECK_EQ_INT(b.status, LG_OK);
    return m;
}

/* max |conv(x) + b| by a direct loop (SAME padding, stride 1), in double */
static double conv_amax(const float *x, double amp) {
    double mx = 0;
    for (int y = 0; y < CV_H; y++)
        for (int xx = 0; xx < CV_W; xx++)
            for (int o = 0; o < CV_C; o++) {
                double acc = amp * (o - 3.5) / 4.0;
                for (int ky = 0; ky < 3; ky++)
                    for (int kx = 0; kx < 3; kx++) {
                        int iy = y + ky - 1, ix = xx + kx - 1;
                        if (iy < 0 || iy >= CV_H || ix < 0 || ix >= CV_W) continue;
                        for (int i = 0; i < CV_C; i++)
                            acc += (double)cv_weight(o, ky, kx, i, amp) * x[(iy * CV_W + ix) * CV_C + i];
                    }
                if (fabs(acc) > mx) mx = fabs(acc);
            }
    return mx;
}

static float const_f32_at(const lg_model *m, int32_t t, int64_t i) {
    const lg_tensor *x = &m->subgraphs[0].tensors[t];
    const lg_buffer *b = lg_tensor_buffer(m, x);
    float v = NAN;
    if (b && x->type == LG_FLOAT32) memcpy(&v, b->data + 4 * i, 4);
    else if (b && x->type == LG_FLOAT16) { uint16_t h; memcpy(&h, b->data + 2 * i, 2); v = lg_half_to_float(h); }
    return v;
}

LG_TEST(fix_fp16_conv_rescale_before_instancenorm) {
    for (int fp16 = 0; fp16 < 2; fp16++) {
        const double amp = 140.0;
        lg_model *m = conv_in_model(amp, fp16);
        float *x = image(CV_H, CV_W, CV_C, 1.0, 0.25);
        double amax = conv_amax(x, amp);
        CHECK(amax > 2000 && amax < 10000); /* the seed's |~5000| */
        long k = lround(log2(amax / 10.0));  /* weights times 2^-k: the output near |10| */
        hardened h = expect_fixed(m, x, 0, LG_FP16_INSTANCE_NORM, LG_FP16_FIX_CONV_RESCALE);
        if (h.out) {
            const lg_harden_item *it = &h.rep->items[0];
            CHECK(it->before.overflow);
            CHECK_EQ_INT(it->conv_op, fp16 ? 1 : 0);
            CHECK_EQ_INT(it->conv_shift, k);
            /* bit-exact: powers of two commute with every rounding */
            CHECK(h.rep->parity_max_rel == 0);
            /* same ops: the norm is untouched, the conv reads scaled constants */
            CHECK(same_ops(m, h.out));
            const lg_subgraph *a = &m->subgraphs[0], *b = &h.out->subgraphs[0];
            uint32_t ci = fp16 ? 1 : 0;
            int32_t wa = a->ops[ci].inputs[1], wb = b->ops[ci].inputs[1];
            if (fp16) { wa = a->ops[0].inputs[0]; wb = b->ops[0].inputs[0]; }
            for (int64_t i = 0; i < CV_C * 9 * CV_C; i += 37)
                CHECK(const_f32_at(h.out, wb, i) == ldexpf(const_f32_at(m, wa, i), (int)-k));
            for (int64_t i = 0; i < CV_C; i++)
                CHECK(const_f32_at(h.out, b->ops[ci].inputs[2], i) == ldexpf(const_f32_at(m, a->ops[ci].inputs[2], i), (int)-k));
            /* eps: 1e-5 * 2^-2k, so that IN_eps(x) = IN_{eps / a^2}(x / a) exactly */
            const lg_op *add = &b->ops[ci + 5]; /* conv, MEAN, SUB, MUL, MEAN, ADD */
            CHECK_EQ_INT(lg_op_builtin(h.out, add), LG_OP_ADD);
            CHECK(const_f32_at(h.out, add->inputs[1], 0) == ldexpf(1e-5f, (int)(-2 * k)));
            CHECK_EQ_INT(count_code(h.out, LG_OP_DEQUANTIZE), fp16 ? 1 : 0);
        }
        hardened_free(&h);
        /* always: the rescale and the safe norm on top */
        h = harden(m, LG_HARDEN_ALWAYS, x);
        if (h.out) {
            CHECK_EQ_INT(h.rep->items[0].fix, LG_FP16_FIX_CONV_RESCALE | LG_FP16_FIX_SAFE_NORM);
            CHECK(h.rep->parity_max_rel <= 1e-6 && !h.rep->items[0].after.diverges);
        }
        hardened_free(&h);
        free(x);
        lg_model_free(m);
        /* the near miss: a conv whose output stays ~|1|; no conv rescale offered at all */
        lg_model *m2 = conv_in_model(0.02, fp16);
        float *x2 = image(CV_H, CV_W, CV_C, 1.0, 0.25);
        expect_near_miss(m2, x2, 1);
        h = harden(m2, LG_HARDEN_ALWAYS, x2);
        if (h.out) CHECK_EQ_INT(h.rep->items[0].fix, LG_FP16_FIX_SAFE_NORM);
        hardened_free(&h);
        free(x2);
        lg_model_free(m2);
    }
}

/* ------------------------------------------------------------------ interface and input sets */

/* An ONNX LayerNormalization with its Mean and InvStdDev outputs used as graph outputs: every
   output keeps its tensor and name; the statistics get their exact equivalents (mean_s * S,
   rsqrt_s / S). */
LG_TEST(fix_fp16_layernorm_statistics_as_outputs) {
    lg_builder b;
    lg_model *m = new_model(&b);
    lg_dims full = LG_DIMS(1, 8, 256), st = LG_DIMS(1, 8, 1);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, full);
    int32_t mu = reduce(&b, LG_OP_MEAN, x, LG_DIMS(2), true, st, "mean");
    int32_t d = op2(&b, LG_OP_SUB, x, mu, full, "d");
    int32_t sq = op2(&b, LG_OP_MUL, d, d, full, "sq");
    int32_t var = reduce(&b, LG_OP_MEAN, sq, LG_DIMS(2), true, st, "var");
    int32_t ve = op2(&b, LG_OP_ADD, var, scalar_c(&b, "eps", 1e-5f), st, "ve");
    int32_t r = op2(&b, LG_OP_RSQRT, ve, -1, st, "inv_std");
    int32_t y = op2(&b, LG_OP_MUL, d, r, full, "y");
    lg_b_io(&b, LG_IDS(x), LG_IDS(y, mu, r));
    CHECK_EQ_INT(b.status, LG_OK);
    float *xv = wave(8 * 256, 256, 300.0);
    hardened h = expect_fixed(m, xv, 0, LG_FP16_LAYER_NORM, LG_FP16_FIX_SAFE_NORM);
    if (h.out) {
        const lg_subgraph *o = &h.out->subgraphs[0];
        CHECK_EQ_INT(o->n_outputs, 3);
        CHECK_STR(o->tensors[o->outputs[1]].name, "mean");
        CHECK_STR(o->tensors[o->outputs[2]].name, "inv_std");
        /* the original statistics' ops are gone (nothing reads them): one MEAN of x, none of x^2 */
        CHECK_EQ_INT(count_code(h.out, LG_OP_MEAN), 2);
        CHECK_EQ_INT(count_code(h.out, LG_OP_RSQRT), 1);
        /* hand check of the outputs in fp32: mean of a row of wave() and its inverse std */
        lg_run_options ro;
        memset(&ro, 0, sizeof ro);
        lg_interp *it = NULL;
        lg_error err;
        if (lg_interp_create(h.out, &ro, &it, &err) == LG_OK) {
            lg_tensor_view v;
            lg_interp_input(it, 0, &v);
            CHECK_OK(lg_interp_set_input(it, 0, LG_FLOAT32, xv, v.nbytes, &err), &err);
            CHECK_OK(lg_interp_invoke(it, &err), &err);
            for (int row = 0; row < 8; row++) {
                double s1 = 0, s2 = 0;
                for (int k = 0; k < 256; k++) s1 += xv[row * 256 + k];
                double mean = s1 / 256;
                for (int k = 0; k < 256; k++) s2 += (xv[row * 256 + k] - mean) * (xv[row * 256 + k] - mean);
                lg_interp_output(it, 1, &v);
                CHECK_NEAR(((const float *)v.data)[row], mean, 1e-4);
                lg_interp_output(it, 2, &v);
                CHECK_NEAR(((const float *)v.data)[row], 1.0 / sqrt(s2 / 256 + 1e-5), 1e-8);
            }
            lg_interp_free(it);
        }
    }
    hardened_free(&h);
    free(xv);
    lg_model_free(m);
}

/* Several input sets (--calib): a match is hazardous when it is on any set. The first set is
   harmless, the second overflows. */
LG_TEST(fix_fp16_calibration_sets) {
    lg_model *m = layernorm_model(16, 512, 1e-6f);
    float *small = wave(16 * 512, 512, 1.0), *big = wave(16 * 512, 512, 175.0);
    const float *set2[1] = {big};
    const float *const *cases[1] = {set2};
    lg_harden_options o;
    memset(&o, 0, sizeof o);
    o.cases = cases;
    o.n_cases = 1;
    hardened h = harden_opt(m, LG_HARDEN_AUTO, small, &o);
    if (h.out) {
        CHECK_EQ_INT(h.rep->n_cases, 2);
        CHECK(h.rep->items[0].hazard && h.rep->items[0].rewritten);
        CHECK(h.rep->items[0].before.overflow);
        /* the whole-model figures are on the first set, harmless both before and after */
        CHECK(!h.rep->model_before.diverges && !h.rep->model_after.diverges);
        const float *in[1] = {big};
        CHECK(!f16_verdict(m, in).pass);
        CHECK(f16_verdict(h.out, in).pass);
    }
    hardened_free(&h);
    /* the first set alone: nothing */
    h = harden(m, LG_HARDEN_AUTO, small);
    if (h.out) CHECK(same_ops(m, h.out));
    hardened_free(&h);
    free(small);
    free(big);
    lg_model_free(m);
}

/* No input given: the "random:1" fill (|x| < 1): a LayerNorm then has no hazard. Bad mode
   and NULL arguments are refused with a message. */
LG_TEST(fix_fp16_default_input_and_arguments) {
    lg_model *m = layernorm_model(4, 64, 1e-5f);
    hardened h = harden(m, LG_HARDEN_AUTO, NULL);
    if (h.out) {
        CHECK_EQ_INT(h.rep->n_items, 1);
        CHECK(h.rep->items[0].before.measured && !h.rep->items[0].hazard);
        CHECK(same_ops(m, h.out));
    }
    hardened_free(&h);
    lg_model *out = NULL;
    lg_harden_report *rep = NULL;
    lg_error err;
    CHECK_EQ_INT(lg_harden_fp16(m, (lg_harden_mode)7, NULL, &out, &rep, &err), LG_ERR_INVALID_ARG);
    CHECK(out == NULL && rep == NULL && strstr(err.msg, "mode") != NULL);
    CHECK_EQ_INT(lg_harden_fp16(NULL, LG_HARDEN_AUTO, NULL, &out, &rep, &err), LG_ERR_INVALID_ARG);
    CHECK_STR(lg_harden_mode_name(LG_HARDEN_ALWAYS), "always");
    CHECK_EQ_INT(lg_harden_mode_from_name("auto"), LG_HARDEN_AUTO);
    CHECK_EQ_INT(lg_harden_mode_from_name("sometimes"), -1);
    CHECK_STR(lg_fp16_pattern_name(LG_FP16_GLOBAL_REDUCE), "global-reduce");
    lg_model_free(m);
}

/* The safe norm's limit: a row of zero variance at |x| = 100 (S = 32). eps / S^2 = 1e-6 / 1024
   is below the smallest half, so rsqrt(0 + 0) = inf and 0 * inf = NaN on that row, where the
   original gave beta. The gate sees it on these inputs: neither auto nor always applies it. */
LG_TEST(fix_fp16_zero_variance_row_refused) {
    lg_model *m = layernorm_model(16, 512, 1e-6f);
    float *x = wave(16 * 512, 512, 175.0);
    for (int i = 0; i < 512; i++) x[3 * 512 + i] = 100.0f;
    for (int mode = LG_HARDEN_AUTO; mode <= LG_HARDEN_ALWAYS; mode++) {
        hardened h = harden(m, (lg_harden_mode)mode, x);
        if (h.out) {
            const lg_harden_item *it = &h.rep->items[0];
            CHECK(it->hazard && !it->rewritten);
            CHECK(it->after.measured && it->after.overflow);
            CHECK(strstr(it->why, "zero variance") != NULL);
            CHECK(same_ops(m, h.out));
        }
        hardened_free(&h);
    }
    free(x);
    lg_model_free(m);
}

/* The passes on their own (the registry, no measurements): harden-fp16 rewrites every norm
   exactly (no conv rescale: that needs a measured magnitude), and a second run finds nothing
   (the rewritten form never matches again); harden-fp16-split takes the multi-axis ones. */
LG_TEST(fix_fp16_registry_passes_alone) {
    const lg_pass *exact = lg_pass_find("harden-fp16"), *split = lg_pass_find("harden-fp16-split");
    CHECK(exact && exact->exact && split && !split->exact && split->bound > 1e-6);
    if (!exact || !split) return;
    lg_model *m = instnorm_model(32, 32, 2);
    lg_pass_run_options o;
    memset(&o, 0, sizeof o);
    o.prove = true;
    o.n_random = 2;
    lg_model *a = NULL, *b = NULL, *c = NULL;
    lg_pass_report *ra = NULL, *rb = NULL, *rc = NULL;
    lg_error err;
    CHECK_OK(lg_passes_run(m, &exact, 1, 4, &o, &a, &ra, &err), &err);
    if (a) {
        CHECK_EQ_INT(ra->passes[0].delta.applied, 1);
        CHECK(ra->passes[0].parity_measured && ra->passes[0].max_rel <= 1e-6);
        CHECK_OK(lg_passes_run(a, &exact, 1, 4, &o, &b, &rb, &err), &err);
        if (b) {
            CHECK_EQ_INT(rb->passes[0].delta.applied, 0);
            CHECK(same_ops(a, b));
        }
    }
    CHECK_OK(lg_passes_run(m, &split, 1, 4, &o, &c, &rc, &err), &err);
    if (c) {
        CHECK_EQ_INT(rc->passes[0].delta.applied, 1);
        CHECK(single_axis_reductions(c));
        CHECK(rc->passes[0].max_rel <= split->bound);
    }
    lg_pass_report_free(ra);
    lg_pass_report_free(rb);
    lg_pass_report_free(rc);
    lg_model_free(a);
    lg_model_free(b);
    lg_model_free(c);
    /* a LayerNorm (one axis) is nothing for the split */
    lg_model *ln = layernorm_model(4, 64, 1e-5f);
    CHECK_OK(lg_passes_run(ln, &split, 1, 1, &o, &a, &ra, &err), &err);
    if (a) CHECK(same_ops(ln, a));
    lg_pass_report_free(ra);
    lg_model_free(a);
    lg_model_free(ln);
    lg_model_free(m);
}
