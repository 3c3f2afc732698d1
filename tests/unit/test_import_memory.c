/* The importer's memory handling (src/import/import.c "memory while lowering"): the copy of
   an initializer is released once the last node reading it is lowered, and only then; with
   --weights fp16 the float copies are let go as they are converted. These cases make the
   release run (batches of 1 MiB: the weights here are 1 MiB each) and check that what is
   still needed is kept: a weight read again later under another name (Identity), a weight
   that is a graph output. Expected values are derived by hand in the comments. */
#include <stdlib.h>
#include <string.h>

#include "lg/lg.h"
#include "test_import_util.h"
#include "tf.h"

enum { C = 512 }; /* channels: a [C, C, 1, 1] float weight is exactly 1 MiB */

/* k times the identity, [C, C, 1, 1] */
static float *eye(float k) {
    float *w = calloc((size_t)C * C, sizeof *w);
    for (int i = 0; w && i < C; i++) w[(size_t)i * C + i] = k;
    return w;
}

/* x [1, C, 1, 2]: x[c][0][j] = (c - 256) + 0.5 j.
     node 0  Conv(x, U)      a = 2x            U = 2 I: last read here, released
     node 1  Identity(W)     W2 (the same tensor as W)
     node 2  Conv(a, W)      b = a = 2x        W = I: its own last read, but W2 is bound to it
     node 3  Relu(b)         r = max(0, 2x)
     node 4  Conv(r, W2)     y = r             W2 = I: if W had been released this would fail
     node 5  Conv(r, V)      z = 3r            V = 3 I, read last here but also a graph output
   outputs y, V and z. */
static ti_model *chain(void) {
    ti_model *t = ti_new(13);
    ti_input(t, "x", LG_ONNX_FLOAT, (const int64_t[]){1, C, 1, 2}, 4);
    const int64_t wd[4] = {C, C, 1, 1};
    float *u = eye(2), *w = eye(1), *v = eye(3);
    ti_init(t, "U", LG_ONNX_FLOAT, wd, 4, u);
    ti_init(t, "W", LG_ONNX_FLOAT, wd, 4, w);
    ti_init(t, "V", LG_ONNX_FLOAT, wd, 4, v);
    free(u);
    free(w);
    free(v);
    ti_node(t, "Conv", "x,U", "a");
    ti_node(t, "Identity", "W", "W2");
    ti_node(t, "Conv", "a,W", "b");
    ti_node(t, "Relu", "b", "r");
    ti_node(t, "Conv", "r,W2", "y");
    ti_node(t, "Conv", "r,V", "z");
    ti_output(t, "y");
    ti_output(t, "V");
    ti_output(t, "z");
    return t;
}

static void check_chain(const lg_model *m) {
    float *x = malloc(sizeof(float) * C * 2), *y = malloc(sizeof(float) * C * 2);
    float *v = malloc(sizeof(float) * C * C);
    if (!x || !y || !v) {
        CHECK(0);
        free(x), free(y), free(v);
        return;
    }
    for (int c = 0; c < C; c++)
        for (int j = 0; j < 2; j++) x[c * 2 + j] = (float)(c - 256) + 0.5f * (float)j;
    const float *in[1] = {x};
    CHECK_EQ_INT(ti_run(m, in, 1, 0, y, (size_t)C * 2), 0);
    int bad = 0;
    for (int c = 0; c < C; c++)
        for (int j = 0; j < 2; j++) {
            float want = 2 * x[c * 2 + j] > 0 ? 2 * x[c * 2 + j] : 0; /* relu(2x), exact */
            if (y[c * 2 + j] != want) bad++;
        }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(ti_run(m, in, 1, 1, v, (size_t)C * C), 0);
    bad = 0;
    for (int i = 0; i < C; i++)
        for (int k = 0; k < C; k++)
            if (v[(size_t)i * C + k] != (i == k ? 3.0f : 0.0f)) bad++;
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(ti_run(m, in, 1, 2, y, (size_t)C * 2), 0);
    bad = 0;
    for (int c = 0; c < C; c++)
        for (int j = 0; j < 2; j++) {
            float want = 2 * x[c * 2 + j] > 0 ? 6 * x[c * 2 + j] : 0; /* 3 relu(2x), exact */
            if (y[c * 2 + j] != want) bad++;
        }
    CHECK_EQ_INT(bad, 0);
    free(x);
    free(y);
    free(v);
}

LG_TEST(import_memory_release_keeps_what_is_still_read) {
    for (int raw = 0; raw < 2; raw++) {
        ti_model *t = chain();
        lg_model *m = NULL;
        lg_error err;
        CHECK_OK(ti_import(t, raw, &m, NULL, &err), &err);
        if (m) {
            CHECK_EQ_INT(ti_count_ops(m, LG_OP_CONV_2D), 4);
            /* the weights are constants (no TRANSPOSE of a runtime weight): 4 convs, 1 relu */
            CHECK_EQ_INT(ti_count_ops(m, LG_OP_RELU), 1);
            check_chain(m);
        }
        lg_model_free(m);
        ti_free(t);
    }
}

/* --weights fp16: 1, 2, 3 and 0 are exact in FLOAT16, so the results are the same; the float
   constants of 16 elements or more (the convs' weights and 512 biases, V) are
   FLOAT16 + DEQUANTIZE: no float weight of C*C elements is left. */
LG_TEST(import_memory_fp16_lets_float_weights_go) {
    ti_model *t = chain();
    lg_import_options o;
    memset(&o, 0, sizeof o);
    o.weights_fp16 = true;
    o.sha256_hex = "00";
    lg_model *m = NULL;
    lg_error err;
    CHECK_OK(lg_onnx_import(ti_model_of(t), &o, &m, NULL, &err), &err);
    if (m) {
        CHECK(ti_count_ops(m, LG_OP_DEQUANTIZE) >= 4); /* the weights + at least one bias */
        const lg_subgraph *sg = &m->subgraphs[0];
        int big_f32 = 0;
        for (uint32_t i = 0; i < sg->n_tensors; i++) {
            const lg_tensor *x = &sg->tensors[i];
            if (x->type == LG_FLOAT32 && lg_tensor_buffer(m, x) && lg_tensor_numel(x) >= (int64_t)C * C) big_f32++;
        }
        CHECK_EQ_INT(big_f32, 0);
        check_chain(m);
    }
    lg_model_free(m);
    ti_free(t);
}
