/* lg_check_model on ops whose options are not the table their code takes, or absent, and
   lg_check_model from two threads at once.

   Options: an op's options are read only as the struct of the kind its code takes
   (src/check/check_util.c lgc_opts); a table of another kind, or none, reads as that
   struct's schema defaults (shared/reference/tflite-schema.fbs), as TFLite's parsers see a
   zeroed params struct when builtin_options_as_<Kind>() is NULL. The defaults used below,
   from the schema:
     table Pool2DOptions { padding; stride_w:int; stride_h:int; filter_width:int;
                           filter_height:int; fused_activation_function; }   -> all 0
     table SoftmaxOptions { beta: float; }                                   -> beta 0
   so AVERAGE_POOL_2D reads kernel 0x0 stride 0x0 (op-params: kernel and stride must be > 0,
   gpu_compatibility.cc CheckKernelsAndStrides) and SOFTMAX beta 0 (softmax-beta: beta must
   be 1). Before the guard, check cast the 2-byte AddOptions to Pool2DOptions and
   SoftmaxOptions and read past it (a kernel of 0xBEBEBEBE under ASan, a garbage beta). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check/check_impl.h"
#include "lg/check.h"
#include "lg/lg.h"
#include "tf.h"

/* ------------------------------------------------------------------ helpers */

typedef struct mk {
    lg_model *m;
    lg_builder b;
} mk;

static lg_builder *mk_begin(mk *k) {
    lg_error err;
    k->m = NULL;
    if (lg_model_new(NULL, NULL, &k->m, &err) != LG_OK) k->m = NULL;
    lg_builder_init(&k->b, k->m, 0);
    return &k->b;
}

static lg_model *mk_end(mk *k) {
    if (k->b.status != LG_OK) {
        tf_fail(__FILE__, __LINE__, "building the model failed: %s", k->b.err.msg);
        lg_model_free(k->m);
        return NULL;
    }
    return k->m;
}

static lg_check_report *check_on(const lg_model *m, lg_target t) {
    lg_check_options opt = {t, 0, LG_GPU_ANY};
    lg_check_report *r = NULL;
    lg_error err;
    if (!m) return NULL;
    if (lg_check_model(m, &opt, &r, &err) != LG_OK) {
        tf_fail(__FILE__, __LINE__, "lg_check_model failed: %s", err.msg);
        return NULL;
    }
    return r;
}

/* On both targets: exactly one finding, rule `id` about op 0 with this reason. */
static void expect_only(int line, const lg_model *m, const char *id, const char *reason) {
    for (int t = 0; t < LG_TARGET_COUNT; t++) {
        lg_check_report *r = check_on(m, (lg_target)t);
        if (!r) return;
        if (r->n_findings != 1 || strcmp(r->findings[0].rule->id, id) != 0 || r->findings[0].op != 0 ||
            strcmp(r->findings[0].reason, reason) != 0) {
            tf_fail(__FILE__, line, "%s: expected only %s about op 0: \"%s\"; got %u finding(s)",
                    lg_target_name((lg_target)t), id, reason, r->n_findings);
            for (uint32_t i = 0; i < r->n_findings; i++)
                fprintf(stderr, "      %s op %d: %s\n", r->findings[i].rule->id, r->findings[i].op,
                        r->findings[i].reason);
        }
        lg_check_report_free(r);
    }
}

static void expect_clean(int line, const lg_model *m) {
    for (int t = 0; t < LG_TARGET_COUNT; t++) {
        lg_check_report *r = check_on(m, (lg_target)t);
        if (!r) return;
        if (r->n_findings || !r->ready)
            tf_fail(__FILE__, line, "%s: expected no finding, got %u (first: %s)", lg_target_name((lg_target)t),
                    r->n_findings, r->n_findings ? r->findings[0].reason : "");
        lg_check_report_free(r);
    }
}

enum { OPTS_GOOD, OPTS_WRONG_KIND, OPTS_NONE };

/* [1,8,8,4] -> AVERAGE_POOL_2D -> [1,4,4,4], with a 2x2/2 Pool2DOptions, an AddOptions
   (fused activation SIGN_BIT, which must not be read either), or no options. */
static lg_model *pool_model(int how) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    lg_pool2d_options po;
    memset(&po, 0, sizeof po);
    po.padding = LG_PADDING_VALID;
    po.stride_w = po.stride_h = 2;
    po.filter_width = po.filter_height = 2;
    lg_add_options ao;
    memset(&ao, 0, sizeof ao);
    ao.fused_activation_function = LG_ACTIVATION_FUNCTION_TYPE_SIGN_BIT;
    if (how == OPTS_GOOD) lg_b_op_opts(b, LG_OP_AVERAGE_POOL_2D, LG_IDS(x), LG_IDS(y), LG_OPTS_POOL2D_OPTIONS, &po);
    else if (how == OPTS_WRONG_KIND) lg_b_op_opts(b, LG_OP_AVERAGE_POOL_2D, LG_IDS(x), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &ao);
    else lg_b_op(b, LG_OP_AVERAGE_POOL_2D, LG_IDS(x), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    return mk_end(&k);
}

/* [1,10] -> SOFTMAX -> [1,10], with SoftmaxOptions beta 1, an AddOptions, or none. */
static lg_model *softmax_model(int how) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 10));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 10));
    lg_softmax_options so = {1.0f};
    lg_add_options ao;
    memset(&ao, 0, sizeof ao);
    if (how == OPTS_GOOD) lg_b_op_opts(b, LG_OP_SOFTMAX, LG_IDS(x), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
    else if (how == OPTS_WRONG_KIND) lg_b_op_opts(b, LG_OP_SOFTMAX, LG_IDS(x), LG_IDS(y), LG_OPTS_ADD_OPTIONS, &ao);
    else lg_b_op(b, LG_OP_SOFTMAX, LG_IDS(x), LG_IDS(y));
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    return mk_end(&k);
}

/* ------------------------------------------------------------------ options */

/* AVERAGE_POOL_2D carrying AddOptions: the Pool2DOptions defaults (kernel 0x0 stride 0x0),
   not the bytes after the AddOptions; no fused-activation finding from AddOptions'
   SIGN_BIT. Near-miss: real Pool2DOptions 2x2/2 is clean. */
LG_TEST(check_opts_pool_wrong_kind) {
    lg_model *m = pool_model(OPTS_WRONG_KIND);
    if (m) expect_only(__LINE__, m, "op-params",
                       "AVERAGE_POOL_2D kernel 0x0 stride 0x0: kernel and stride must be > 0 "
                       "(the op carries AddOptions, not Pool2DOptions: the schema's defaults)");
    lg_model_free(m);
    m = pool_model(OPTS_GOOD);
    if (m) expect_clean(__LINE__, m);
    lg_model_free(m);
}

/* AVERAGE_POOL_2D with no options stored: the same defaults. */
LG_TEST(check_opts_pool_absent) {
    lg_model *m = pool_model(OPTS_NONE);
    if (m) expect_only(__LINE__, m, "op-params",
                       "AVERAGE_POOL_2D kernel 0x0 stride 0x0: kernel and stride must be > 0 "
                       "(no Pool2DOptions stored: the schema's defaults)");
    lg_model_free(m);
}

/* SOFTMAX carrying AddOptions: beta is SoftmaxOptions' default 0, not a float read from the
   2-byte AddOptions. Near-miss: SoftmaxOptions beta 1 is clean. */
LG_TEST(check_opts_softmax_wrong_kind) {
    lg_model *m = softmax_model(OPTS_WRONG_KIND);
    if (m) expect_only(__LINE__, m, "softmax-beta",
                       "SOFTMAX beta 0 (the op carries AddOptions, not SoftmaxOptions: the schema's defaults)");
    lg_model_free(m);
    m = softmax_model(OPTS_GOOD);
    if (m) expect_clean(__LINE__, m);
    lg_model_free(m);
}

LG_TEST(check_opts_softmax_absent) {
    lg_model *m = softmax_model(OPTS_NONE);
    if (m) expect_only(__LINE__, m, "softmax-beta", "SOFTMAX beta 0 (no SoftmaxOptions stored: the schema's defaults)");
    lg_model_free(m);
}

/* ------------------------------------------------------------------ op sets */

/* The op sets are constant tables. Their sizes, from rules.def's op-unsupported doc ("The
   classic parser takes 81 codes, ML Drift 100 plus STABLEHLO_COMPOSITE") and the 97 case
   labels of gpu_compatibility.cc (CUSTOM included). */
LG_TEST(check_opts_op_set_sizes) {
    int compat = 0, classic = 0, mldrift = 0;
    for (int32_t op = 0; op <= LG_OP_MAX; op++) {
        compat += lgc_compat_has(op);
        classic += lgc_parser_takes(LG_TARGET_CLASSIC, op);
        mldrift += lgc_parser_takes(LG_TARGET_MLDRIFT, op);
    }
    CHECK_EQ_INT(compat, 97);
    CHECK_EQ_INT(classic, 81);
    CHECK_EQ_INT(mldrift, 101);
    /* one op of each difference: ROUND is ML Drift's only, RELU_0_TO_1 not in the compat
       list but taken by both parsers, DENSIFY in the compat list but ML Drift's parser
       lacks it */
    CHECK(lgc_parser_takes(LG_TARGET_MLDRIFT, LG_OP_ROUND) && !lgc_parser_takes(LG_TARGET_CLASSIC, LG_OP_ROUND));
    CHECK(!lgc_compat_has(LG_OP_RELU_0_TO_1) && lgc_parser_takes(LG_TARGET_CLASSIC, LG_OP_RELU_0_TO_1) &&
          lgc_parser_takes(LG_TARGET_MLDRIFT, LG_OP_RELU_0_TO_1));
    CHECK(lgc_compat_has(LG_OP_DENSIFY) && !lgc_parser_takes(LG_TARGET_MLDRIFT, LG_OP_DENSIFY));
}

/* ------------------------------------------------------------------ threads */

/* Why two reports differ ("" when they do not). */
static const char *report_diff(const lg_check_report *a, const lg_check_report *b) {
    if (!a || !b) return "a check failed";
    if (a->n_findings != b->n_findings) return "finding count";
    if (a->ready != b->ready || a->n_gpu_ops != b->n_gpu_ops || a->n_cpu_ops != b->n_cpu_ops ||
        a->n_folded_ops != b->n_folded_ops || a->n_supported_ops != b->n_supported_ops ||
        a->n_blockers != b->n_blockers || a->n_warnings != b->n_warnings)
        return "summary counts";
    for (uint32_t i = 0; i < a->n_findings; i++) {
        const lg_finding *x = &a->findings[i], *y = &b->findings[i];
        if (x->rule != y->rule || x->op != y->op || x->n_tensors != y->n_tensors ||
            strcmp(x->reason, y->reason) != 0 || strcmp(x->fix, y->fix) != 0)
            return "a finding";
    }
    if (a->n_partitions != b->n_partitions) return "partitions";
    for (uint32_t p = 0; p < a->n_partitions; p++) {
        const lg_partition *x = &a->partitions[p], *y = &b->partitions[p];
        if (x->first_op != y->first_op || x->last_op != y->last_op || x->n_ops != y->n_ops ||
            x->gpu != y->gpu || x->delegated != y->delegated ||
            memcmp(x->ops, y->ops, x->n_ops * sizeof *x->ops) != 0)
            return "partitions";
    }
    if (memcmp(a->op_place, b->op_place, a->n_ops) != 0) return "op places";
    return "";
}

#define N_ROUNDS 20

typedef struct worker {
    const lg_model *m;
    pthread_barrier_t *start;
    lg_check_report *first[LG_TARGET_COUNT]; /* the thread's first report per target */
    const char *diff;                        /* first difference seen, or NULL */
} worker;

static void *run_worker(void *arg) {
    worker *w = arg;
    pthread_barrier_wait(w->start);
    for (int round = 0; round < N_ROUNDS; round++)
        for (int t = 0; t < LG_TARGET_COUNT; t++) {
            lg_check_options opt = {(lg_target)t, 0, LG_GPU_ANY};
            lg_check_report *r = NULL;
            lg_error err;
            if (lg_check_model(w->m, &opt, &r, &err) != LG_OK) r = NULL;
            if (!w->first[t]) {
                w->first[t] = r;
                if (!r && !w->diff) w->diff = "a check failed";
                continue;
            }
            const char *d = report_diff(w->first[t], r);
            if (*d && !w->diff) w->diff = d;
            lg_check_report_free(r);
        }
    return NULL;
}

/* Two threads check the same model at once, both targets, 20 rounds each: every report
   equals the thread's first, and both threads' first reports equal a sequential run. The
   model gives each target different findings: AVERAGE_POOL_2D 2x2/2 (clean), ROUND (no
   classic parser: op-unsupported on classic), SOFTMAX beta 0.5 (softmax-beta). */
LG_TEST(check_opts_concurrent_checks) {
    mk k;
    lg_builder *b = mk_begin(&k);
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 8, 8, 4));
    int p = lg_b_tensor(b, "p", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    int r = lg_b_tensor(b, "r", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 4, 4, 4));
    lg_pool2d_options po;
    memset(&po, 0, sizeof po);
    po.stride_w = po.stride_h = 2;
    po.filter_width = po.filter_height = 2;
    lg_softmax_options so = {0.5f};
    lg_b_op_opts(b, LG_OP_AVERAGE_POOL_2D, LG_IDS(x), LG_IDS(p), LG_OPTS_POOL2D_OPTIONS, &po);
    lg_b_op(b, LG_OP_ROUND, LG_IDS(p), LG_IDS(r));
    lg_b_op_opts(b, LG_OP_SOFTMAX, LG_IDS(r), LG_IDS(y), LG_OPTS_SOFTMAX_OPTIONS, &so);
    lg_b_io(b, LG_IDS(x), LG_IDS(y));
    lg_model *m = mk_end(&k);
    if (!m) return;

    pthread_barrier_t start;
    CHECK_EQ_INT(pthread_barrier_init(&start, NULL, 2), 0);
    worker w[2];
    memset(w, 0, sizeof w);
    pthread_t th[2];
    int started = 0;
    for (int i = 0; i < 2; i++) {
        w[i].m = m;
        w[i].start = &start;
        if (pthread_create(&th[i], NULL, run_worker, &w[i]) == 0) started++;
    }
    CHECK_EQ_INT(started, 2);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);

    for (int t = 0; t < LG_TARGET_COUNT; t++) {
        lg_check_report *ref = check_on(m, (lg_target)t);
        /* the reference itself, derived from the model: softmax-beta on both targets, and
           op-unsupported for ROUND (op 1) on classic only */
        if (ref) {
            CHECK_EQ_INT(ref->n_findings, t == LG_TARGET_CLASSIC ? 2 : 1);
            CHECK(!ref->ready);
        }
        for (int i = 0; i < 2; i++) {
            if (w[i].diff) tf_fail(__FILE__, __LINE__, "thread %d: reports differ across rounds: %s", i, w[i].diff);
            const char *d = report_diff(ref, w[i].first[t]);
            if (*d) tf_fail(__FILE__, __LINE__, "thread %d, %s: differs from the sequential run: %s", i,
                            lg_target_name((lg_target)t), d);
            lg_check_report_free(w[i].first[t]);
        }
        lg_check_report_free(ref);
    }
    lg_model_free(m);
}
