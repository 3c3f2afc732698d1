/* lg_check_model on ops whose options are not the table their code takes, or absent.

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
#include <stdio.h>
#include <string.h>

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
    lg_check_options opt = {t, 0};
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
