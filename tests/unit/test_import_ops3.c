/* Importer: Trilu, Mod, GroupNormalization, Einsum (src/import/lower_index.c,
   lower_elementwise.c, lower_reduce.c, lower_einsum.c). Expected values derived by hand in
   the comments. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "test_import_util.h"
#include "tf.h"

static ti_model *trilu_model(int32_t dtype, int64_t upper, const int64_t *k) {
    ti_model *t = ti_new(14);
    ti_input(t, "x", dtype, (const int64_t[]){2, 3}, 2);
    if (k) ti_init(t, "k", LG_ONNX_INT64, NULL, 0, k);
    ti_node(t, "Trilu", k ? "x,k" : "x", "y");
    ti_attr_i(t, "upper", upper);
    ti_output(t, "y");
    return t;
}

/* x = [[1, inf, 3], [NaN, 5, 6]], upper, k = 1 keeps j - i >= 1: (0,1), (0,2), (1,2):
   [[0, inf, 3], [0, 0, 6]]. The NaN at (1, 0) must become 0 (a MUL by a 0/1 mask would give
   NaN: the near-miss), and no MUL is emitted. */
LG_TEST(import_trilu_upper_float_inf_nan) {
    ti_model *t = trilu_model(LG_ONNX_FLOAT, 1, (const int64_t[]){1});
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_SELECT_V2), 1);
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_MUL), 0);
        const float x[6] = {1, INFINITY, 3, NAN, 5, 6};
        const float *in[1] = {x};
        float y[6];
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 6), 0);
        const float want[6] = {0, INFINITY, 3, 0, 0, 6};
        for (int i = 0; i < 6; i++) CHECK(y[i] == want[i]);
    }
    lg_model_free(m);
    ti_free(t);
}

/* INT32 x = [[1, 2, 3], [4, 5, 6]], lower, default k = 0 keeps j <= i: [[1, 0, 0], [4, 5, 0]];
   the near-miss k = -1 keeps j <= i - 1 only: [[0, 0, 0], [4, 0, 0]]. */
static void trilu_int_check(const int64_t *k, const int32_t *want) {
    ti_model *t = trilu_model(LG_ONNX_INT32, 0, k);
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        const int32_t x[6] = {1, 2, 3, 4, 5, 6};
        const void *in[1] = {x};
        const lg_dtype ty[1] = {LG_INT32};
        int32_t y[6];
        CHECK_EQ_INT(ti_run_typed(m, in, ty, 1, 0, LG_INT32, y, 6), 0);
        for (int i = 0; i < 6; i++) CHECK_EQ_INT(y[i], want[i]);
    }
    lg_model_free(m);
    ti_free(t);
}

LG_TEST(import_trilu_lower_int) {
    trilu_int_check(NULL, (const int32_t[]){1, 0, 0, 4, 5, 0});
    trilu_int_check((const int64_t[]){-1}, (const int32_t[]){0, 0, 0, 4, 0, 0});
}

/* rank 1 is malformed; a runtime k is unsupported */
LG_TEST(import_trilu_bad) {
    ti_model *t = ti_new(14);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){3}, 1);
    ti_node(t, "Trilu", "x", "y");
    ti_output(t, "y");
    lg_model *m = NULL;
    lg_error err;
    CHECK_EQ_INT(ti_import(t, false, &m, NULL, &err), LG_ERR_FORMAT);
    lg_model_free(m);
    ti_free(t);
    t = ti_new(14);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){2, 3}, 2);
    ti_input(t, "k", LG_ONNX_INT64, NULL, 0);
    ti_node(t, "Trilu", "x,k", "y");
    ti_output(t, "y");
    m = NULL;
    CHECK_EQ_INT(ti_import(t, false, &m, NULL, &err), LG_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "computed at run time") != NULL);
    lg_model_free(m);
    ti_free(t);
}

static ti_model *mod_model(int32_t dtype, int64_t fmod) {
    ti_model *t = ti_new(13);
    ti_input(t, "a", dtype, (const int64_t[]){4}, 1);
    ti_input(t, "b", dtype, (const int64_t[]){4}, 1);
    ti_node(t, "Mod", "a,b", "y");
    ti_attr_i(t, "fmod", fmod);
    ti_output(t, "y");
    return t;
}

/* INT32 a = [7, -7, 7, -7], b = [3, 3, -3, -3]. fmod = 0 (the divisor's sign, Python %):
   [1, 2, -2, -1]; fmod = 1 (the dividend's sign, C %): [1, -1, 1, -1]. The near-miss: the
   two differ exactly where the signs of a and b differ. */
static void mod_int_check(int64_t fmod, const int32_t *want) {
    ti_model *t = mod_model(LG_ONNX_INT32, fmod);
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        const int32_t a[4] = {7, -7, 7, -7}, b[4] = {3, 3, -3, -3};
        const void *in[2] = {a, b};
        const lg_dtype ty[2] = {LG_INT32, LG_INT32};
        int32_t y[4];
        CHECK_EQ_INT(ti_run_typed(m, in, ty, 2, 0, LG_INT32, y, 4), 0);
        for (int i = 0; i < 4; i++) CHECK_EQ_INT(y[i], want[i]);
    }
    lg_model_free(m);
    ti_free(t);
}

LG_TEST(import_mod_int) {
    mod_int_check(0, (const int32_t[]){1, 2, -2, -1});
    mod_int_check(1, (const int32_t[]){1, -1, 1, -1});
}

/* float fmod = 1: a = [5.5, -5.5, 5.5, -5.5], b = [2, 2, -2, -2]: C fmodf gives
   [1.5, -1.5, 1.5, -1.5] exactly (the floor form would give [1.5, 0.5, -0.5, -1.5]).
   fmod = 0 on floats is malformed (ONNX requires fmod = 1). */
LG_TEST(import_mod_float_fmod) {
    ti_model *t = mod_model(LG_ONNX_FLOAT, 1);
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        const float a[4] = {5.5f, -5.5f, 5.5f, -5.5f}, b[4] = {2, 2, -2, -2};
        const float *in[2] = {a, b};
        float y[4];
        CHECK_EQ_INT(ti_run(m, in, 2, 0, y, 4), 0);
        const float want[4] = {1.5f, -1.5f, 1.5f, -1.5f};
        for (int i = 0; i < 4; i++) CHECK(y[i] == want[i]);
    }
    lg_model_free(m);
    ti_free(t);
    t = mod_model(LG_ONNX_FLOAT, 0);
    m = NULL;
    CHECK_EQ_INT(ti_import(t, false, &m, NULL, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "fmod") != NULL);
    lg_model_free(m);
    ti_free(t);
}

/* GroupNormalization, x [1, 4, 2] = channels [1, 3], [1, 3], [0, 0], [4, 4], 2 groups,
   epsilon 0. Group 0 (channels 0, 1) = [1, 3, 1, 3]: mean 2, variance 1 -> [-1, 1, -1, 1];
   group 1 = [0, 0, 4, 4]: mean 2, variance 4, 1/std 0.5 -> [-1, -1, 1, 1].
   Opset 21, per channel scale [1, 2, 3, 4], bias [0, 10, 20, 30]:
     [-1, 1], [8, 12], [17, 17], [34, 34].
   Opset 18, per group scale [1, 2], bias [0, 10] (the near-miss: same data, the other rule):
     [-1, 1], [-1, 1], [8, 8], [12, 12]. */
static ti_model *gn_model(int64_t opset, int64_t n_sb, const float *s, const float *b) {
    ti_model *t = ti_new(opset);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, 4, 2}, 3);
    ti_init(t, "s", LG_ONNX_FLOAT, (const int64_t[]){n_sb}, 1, s);
    ti_init(t, "b", LG_ONNX_FLOAT, (const int64_t[]){n_sb}, 1, b);
    ti_node(t, "GroupNormalization", "x,s,b", "y");
    ti_attr_i(t, "num_groups", 2);
    ti_attr_f(t, "epsilon", 0);
    ti_output(t, "y");
    return t;
}

static void gn_check(ti_model *t, const float *want) {
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        const float x[8] = {1, 3, 1, 3, 0, 0, 4, 4};
        const float *in[1] = {x};
        float y[8];
        CHECK_EQ_INT(ti_run(m, in, 1, 0, y, 8), 0);
        for (int i = 0; i < 8; i++) CHECK_NEAR(y[i], want[i], 1e-5);
    }
    lg_model_free(m);
    ti_free(t);
}

LG_TEST(import_groupnorm_per_channel_and_per_group) {
    gn_check(gn_model(21, 4, (const float[]){1, 2, 3, 4}, (const float[]){0, 10, 20, 30}),
             (const float[]){-1, 1, 8, 12, 17, 17, 34, 34});
    gn_check(gn_model(18, 2, (const float[]){1, 2}, (const float[]){0, 10}),
             (const float[]){-1, 1, -1, 1, 8, 8, 12, 12});
    /* a per-channel scale at opset 18 is malformed */
    ti_model *t = gn_model(18, 4, (const float[]){1, 2, 3, 4}, (const float[]){0, 10, 20, 30});
    lg_model *m = NULL;
    lg_error err;
    CHECK_EQ_INT(ti_import(t, false, &m, NULL, &err), LG_ERR_FORMAT);
    CHECK(strstr(err.msg, "per group") != NULL);
    lg_model_free(m);
    ti_free(t);
}

static ti_model *einsum_model(const char *eq, const int64_t *da, uint32_t ra, const int64_t *db, uint32_t rb) {
    ti_model *t = ti_new(12);
    ti_input(t, "a", LG_ONNX_FLOAT, da, ra);
    ti_input(t, "b", LG_ONNX_FLOAT, db, rb);
    ti_node(t, "Einsum", "a,b", "y");
    ti_attr_s(t, "equation", eq);
    ti_output(t, "y");
    return t;
}

static void einsum_check(ti_model *t, const float *a, const float *b, const float *want, int n) {
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(ti_import(t, false, &m, NULL, &err), &err);
    if (m) {
        CHECK_EQ_INT(ti_count_ops(m, LG_OP_BATCH_MATMUL), 1);
        const float *in[2] = {a, b};
        float y[8];
        CHECK_EQ_INT(ti_run(m, in, 2, 0, y, (size_t)n), 0);
        for (int i = 0; i < n; i++) CHECK_NEAR(y[i], want[i], 0);
    }
    lg_model_free(m);
    ti_free(t);
}

/* A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]]. "ij,kj->ki": y[k][i] = B[k] . A[i]:
   [[5+12, 15+24], [7+16, 21+32]] = [17, 39, 23, 53]; the near-miss "ij,kj->ik" is its
   transpose [17, 23, 39, 53]; implicit "ij,jk" is A B = [[5+14, 6+16], [15+28, 18+32]]
   = [19, 22, 43, 50]. Batched "bij,bjk->bik" with A [2, 1, 2] = [[1, 2]], [[3, 4]] and
   B [2, 2, 1] = [[5], [6]], [[7], [8]]: [1*5 + 2*6, 3*7 + 4*8] = [17, 53]. */
LG_TEST(import_einsum_matmul_family) {
    const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    const int64_t d22[2] = {2, 2};
    einsum_check(einsum_model("ij,kj->ki", d22, 2, d22, 2), a, b, (const float[]){17, 39, 23, 53}, 4);
    einsum_check(einsum_model("ij,kj->ik", d22, 2, d22, 2), a, b, (const float[]){17, 23, 39, 53}, 4);
    einsum_check(einsum_model("ij,jk", d22, 2, d22, 2), a, b, (const float[]){19, 22, 43, 50}, 4);
    einsum_check(einsum_model("bij,bjk->bik", (const int64_t[]){2, 1, 2}, 3, (const int64_t[]){2, 2, 1}, 3), a, b,
                 (const float[]){17, 53}, 2);
}

/* a diagonal (a letter repeated in a term) and a letter summed away in one operand: refused */
LG_TEST(import_einsum_refused) {
    const int64_t d22[2] = {2, 2};
    const char *eqs[2] = {"ii,ij->j", "ij,jk->k"};
    for (int i = 0; i < 2; i++) {
        ti_model *t = einsum_model(eqs[i], d22, 2, d22, 2);
        lg_model *m = NULL;
        lg_error err;
        CHECK_EQ_INT(ti_import(t, false, &m, NULL, &err), LG_ERR_UNSUPPORTED);
        CHECK(strstr(err.msg, "Einsum") != NULL);
        lg_model_free(m);
        ti_free(t);
    }
}
