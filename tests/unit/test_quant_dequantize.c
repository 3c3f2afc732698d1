/* DEQUANTIZE of packed INT4 (per tensor, per channel) and of blockwise INT8/INT4, and the IR
   keeping a blockwise tensor's scales tensor through compaction and validation. Expected
   values are derived by hand in the comments: TFLite's UnpackPackedIntToInt8 puts element 2i in
   the low nibble of byte i (sign-extended), 2i+1 in the high one; per channel
   scale[c] * (q - zp[c]) in float; blockwise (ML Drift's BlockwiseDequantize) the scale of
   (channel, last-axis index / block). */
#include <stdlib.h>

#include "internal.h"
#include "lg/graph.h"
#include "lg/run.h"
#include "tf.h"

/* A model: constant `q` (type, shape, bytes) -> DEQUANTIZE -> output y (FLOAT32). Returns the
   constant's tensor index through *qt. */
static lg_model *deq_model(lg_dtype type, lg_dims shape, const void *bytes, uint64_t nbytes, int32_t *qt) {
    lg_model *m = NULL;
    lg_error e;
    if (lg_model_new(NULL, NULL, &m, &e) != LG_OK) return NULL;
    lg_builder b;
    lg_builder_init(&b, m, 0);
    int32_t x = lg_b_tensor(&b, "x", LG_FLOAT32, LG_DIMS(1));
    int32_t q = lg_b_const(&b, "q", type, shape, bytes, nbytes);
    int32_t y = lg_b_tensor(&b, "y", LG_FLOAT32, shape);
    lg_b_op(&b, LG_OP_DEQUANTIZE, LG_IDS(q), LG_IDS(y));
    lg_b_io(&b, LG_IDS(x), LG_IDS(y));
    if (b.status != LG_OK) {
        lg_model_free(m);
        return NULL;
    }
    *qt = q;
    return m;
}

/* Run m (its only input is a dummy [1]) and copy output 0 (n floats) into out. */
static lg_status run_out(const lg_model *m, float *out, int64_t n, lg_error *e) {
    lg_interp *it = NULL;
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    lg_status st = lg_interp_create(m, &ro, &it, e);
    float one = 1;
    if (st == LG_OK) st = lg_interp_set_input(it, 0, LG_FLOAT32, &one, 4, e);
    if (st == LG_OK) st = lg_interp_invoke(it, e);
    lg_tensor_view v;
    if (st == LG_OK) st = lg_interp_output(it, 0, &v);
    if (st == LG_OK && v.numel == n) memcpy(out, v.data, (size_t)n * 4);
    else if (st == LG_OK) st = LG_ERR_INTERNAL;
    lg_interp_free(it);
    return st;
}

/* Blockwise quantization details on tensor qt: scales tensor s, zero points z (-1: none). */
static void set_blockwise(lg_model *m, int32_t qt, int32_t s, int32_t z, int32_t block, int32_t qdim) {
    lg_quant *q = lgi_arena_alloc(&m->priv->arena, sizeof *q);
    lg_blockwise_quantization *bw = lgi_arena_alloc(&m->priv->arena, sizeof *bw);
    bw->scales = s;
    bw->zero_points = z;
    bw->block_size = block;
    q->details_kind = LG_QDETAILS_BLOCKWISE_QUANTIZATION;
    q->details = bw;
    q->quantized_dimension = qdim;
    m->subgraphs[0].tensors[qt].quant = q;
}

LG_TEST(quant_dequantize_int4_per_tensor_odd_count) {
    /* 5 elements in 3 bytes: 0x8F = low 0xF (-1), high 0x8 (-8); 0x17 = low 7, high 1;
       0xA3 = low 3 (the high nibble 0xA is padding and must be ignored).
       q = [-1, -8, 7, 1, 3], scale 0.5, zero point 1: (q - 1) * 0.5 = [-1, -4.5, 3, 0, 1] */
    const uint8_t p[3] = {0x8F, 0x17, 0xA3};
    int32_t qt = -1;
    lg_model *m = deq_model(LG_INT4, LG_DIMS(5), p, 3, &qt);
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    const float s = 0.5f;
    const int64_t z = 1;
    CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)qt, &s, &z, 1, 0, &e), &e);
    float got[5];
    CHECK_OK(run_out(m, got, 5, &e), &e);
    const float want[5] = {-1, -4.5f, 3, 0, 1};
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(got[i] == want[i], 1);
    lg_model_free(m);
}

LG_TEST(quant_dequantize_int4_per_channel) {
    /* [2, 3] along axis 0: bytes 0x21 -> 1, 2; 0xD3 -> 3, -3; 0xF9 -> -7, -1.
       row 0 = [1, 2, 3] * 0.25 = [0.25, 0.5, 0.75]; row 1 = [-3, -7, -1] * 2 = [-6, -14, -2]. */
    const uint8_t p[3] = {0x21, 0xD3, 0xF9};
    int32_t qt = -1;
    lg_model *m = deq_model(LG_INT4, LG_DIMS(2, 3), p, 3, &qt);
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    const float s[2] = {0.25f, 2.0f};
    CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)qt, s, NULL, 2, 0, &e), &e);
    float got[6];
    CHECK_OK(run_out(m, got, 6, &e), &e);
    const float want[6] = {0.25f, 0.5f, 0.75f, -6, -14, -2};
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(got[i] == want[i], 1);
    lg_model_free(m);
    /* near miss: the same bytes as INT8 [3] are three values, not six */
    m = deq_model(LG_INT8, LG_DIMS(3), p, 3, &qt);
    CHECK(m != NULL);
    if (!m) return;
    const float one = 1;
    CHECK_OK(lg_tensor_set_quant(m, 0, (uint32_t)qt, &one, NULL, 1, 0, &e), &e);
    CHECK_OK(run_out(m, got, 3, &e), &e);
    CHECK_EQ_INT(got[0], 0x21);
    CHECK_EQ_INT(got[1], (int8_t)0xD3);
    lg_model_free(m);
}

LG_TEST(quant_dequantize_blockwise_int8_and_int4) {
    /* [2, 4] blocks of 2 along the last axis: scales [2, 2] (FLOAT16) = [[1, 2], [0.5, 4]]
       (0x3C00, 0x4000, 0x3800, 0x4400), zero points none.
       q = [[1, 2, 3, 4], [-1, -2, -3, -4]] -> [[1, 2, 6, 8], [-0.5, -1, -12, -16]]. */
    const int8_t q8[8] = {1, 2, 3, 4, -1, -2, -3, -4};
    const uint16_t hs[4] = {0x3C00, 0x4000, 0x3800, 0x4400};
    const float want[8] = {1, 2, 6, 8, -0.5f, -1, -12, -16};
    for (int four = 0; four < 2; four++) {
        /* INT4 of the same values: bytes (lo, hi) 0x21, 0x43, 0xEF, 0xCD */
        const uint8_t p4[4] = {0x21, 0x43, 0xEF, 0xCD};
        int32_t qt = -1;
        lg_model *m = four ? deq_model(LG_INT4, LG_DIMS(2, 4), p4, 4, &qt) : deq_model(LG_INT8, LG_DIMS(2, 4), q8, 8, &qt);
        CHECK(m != NULL);
        if (!m) return;
        lg_error e;
        int32_t s = -1;
        CHECK_OK(lg_subgraph_add_const(m, 0, "scales", LG_FLOAT16, (const int32_t[]){2, 2}, 2, hs, 8, &s, &e), &e);
        set_blockwise(m, qt, s, -1, 2, 0);
        float got[8];
        CHECK_OK(run_out(m, got, 8, &e), &e);
        for (int i = 0; i < 8; i++) CHECK_EQ_INT(got[i] == want[i], 1);
        /* with zero points [[1, 0], [0, -1]] (INT32): [[0, 1, 6, 8], [-0.5, -1, -8, -12]] */
        const int32_t zp[4] = {1, 0, 0, -1};
        int32_t z = -1;
        CHECK_OK(lg_subgraph_add_const(m, 0, "zp", LG_INT32, (const int32_t[]){2, 2}, 2, zp, 16, &z, &e), &e);
        set_blockwise(m, qt, s, z, 2, 0);
        CHECK_OK(run_out(m, got, 8, &e), &e);
        const float wz[8] = {0, 1, 6, 8, -0.5f, -1, -8, -12};
        for (int i = 0; i < 8; i++) CHECK_EQ_INT(got[i] == wz[i], 1);
        /* near miss: a block that does not divide the last axis is refused */
        set_blockwise(m, qt, s, -1, 3, 0);
        CHECK(run_out(m, got, 8, &e) == LG_ERR_FORMAT);
        CHECK(strstr(e.msg, "block size 3") != NULL);
        lg_model_free(m);
    }
}

LG_TEST(quant_dequantize_blockwise_shares_scales_across_middle_axes) {
    /* [2, 2, 2] with quantized dimension 0 and blocks of 2 along the last axis: scales [2, 1]
       (one block per channel), shared by both rows of the middle axis: channel 0 x1, channel 1 x2.
       q = 1..8 -> [1, 2, 3, 4, 10, 12, 14, 16] */
    const int8_t q8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const uint16_t hs[2] = {0x3C00, 0x4000};
    int32_t qt = -1;
    lg_model *m = deq_model(LG_INT8, LG_DIMS(2, 2, 2), q8, 8, &qt);
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    int32_t s = -1;
    CHECK_OK(lg_subgraph_add_const(m, 0, "scales", LG_FLOAT16, (const int32_t[]){2, 1}, 2, hs, 4, &s, &e), &e);
    set_blockwise(m, qt, s, -1, 2, 0);
    float got[8];
    CHECK_OK(run_out(m, got, 8, &e), &e);
    const float want[8] = {1, 2, 3, 4, 10, 12, 14, 16};
    for (int i = 0; i < 8; i++) CHECK_EQ_INT(got[i] == want[i], 1);
    lg_model_free(m);
}

LG_TEST(quant_blockwise_survives_compaction_and_round_trip) {
    const int8_t q8[4] = {1, 2, 3, 4};
    const uint16_t hs[2] = {0x3C00, 0x4000};
    int32_t qt = -1;
    lg_model *m = deq_model(LG_INT8, LG_DIMS(1, 4), q8, 4, &qt);
    CHECK(m != NULL);
    if (!m) return;
    lg_error e;
    int32_t dead = -1, s = -1;
    /* an unused tensor before the scales: compaction removes it and renumbers the scales */
    CHECK_OK(lg_subgraph_add_tensor(m, 0, "dead", LG_FLOAT32, (const int32_t[]){1}, 1, &dead, &e), &e);
    CHECK_OK(lg_subgraph_add_const(m, 0, "scales", LG_FLOAT16, (const int32_t[]){1, 2}, 2, hs, 4, &s, &e), &e);
    set_blockwise(m, qt, s, -1, 2, 0);
    lg_compact_stats cs;
    CHECK_OK(lg_model_compact(m, &cs, NULL, &e), &e);
    CHECK_EQ_INT(cs.tensors_removed, 1);
    const lg_blockwise_quantization *bw = m->subgraphs[0].tensors[qt].quant->details;
    CHECK_EQ_INT(bw->scales, s - 1);
    CHECK_STR(m->subgraphs[0].tensors[bw->scales].name, "scales");
    /* written and read back (the clone): the same values */
    lg_model *c = NULL;
    CHECK_OK(lg_model_clone(m, &c, &e), &e);
    float got[4];
    if (c) CHECK_OK(run_out(c, got, 4, &e), &e);
    const float want[4] = {1, 2, 6, 8};
    for (int i = 0; c && i < 4; i++) CHECK_EQ_INT(got[i] == want[i], 1);
    lg_model_free(c);
    /* a scales index out of range is refused by validation */
    ((lg_blockwise_quantization *)m->subgraphs[0].tensors[qt].quant->details)->scales = 99;
    CHECK(lg_model_validate(m, &e) == LG_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "blockwise quantization scales tensor 99") != NULL);
    lg_model_free(m);
}
