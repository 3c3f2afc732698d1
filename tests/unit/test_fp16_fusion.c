/* The delegate's elementwise fusion in LG_PREC_F32_F16 (src/run/fusion.c): a tensor whose only
 * consumer is a linkable (elementwise) op reading it as the delegate's input 0 is kept in fp32
 * registers, not stored as a half.
 *
 * Hand-derived values. x = 1 and c = 2^-11 are halves; t = x + c = 1 + 2^-11 is exact in fp32
 * but lies exactly halfway between the halves 1 and 1 + 2^-10, so storing it as a half gives 1
 * (ties to even). y = t + (-1) is then 2^-11 (a half: 2^-11 is normal) when t stays in
 * registers, and 0 when t was stored. */
#include <math.h>

#include "kt.h"
#include "tf.h"

#define KEPT 0.00048828125f /* 2^-11: t was kept in fp32 */
#define STORED 0.0f         /* t was rounded to 1 */

typedef enum { CHAIN, T_IS_OUTPUT, TWO_USES, ADD_SWAPPED, SUB_SLOT1, THREE_CHAIN } shape_kind;

/* Build the graph for `kind`, run it in precision p, and return y (output 0). */
static float run_case(shape_kind kind, lg_precision p) {
    kt_model t;
    kt_init(&t);
    lg_builder *b = &t.b;
    float one = 1.0f, minus_one = -1.0f, c_v = KEPT;
    int x = lg_b_tensor(b, "x", LG_FLOAT32, LG_DIMS(1, 1, 1, 4));
    int z = lg_b_tensor(b, "z", LG_FLOAT32, LG_DIMS(1, 1, 1, 4));
    int c = lg_b_const_f32(b, "c", LG_DIMS(1), &c_v);
    int m1 = lg_b_const_f32(b, "minus_one", LG_DIMS(1), &minus_one);
    int p1 = lg_b_const_f32(b, "one", LG_DIMS(1), &one);
    int tt = lg_b_tensor(b, "t", LG_FLOAT32, LG_DIMS(1, 1, 1, 4));
    int y = lg_b_tensor(b, "y", LG_FLOAT32, LG_DIMS(1, 1, 1, 4));
    int w = lg_b_tensor(b, "w", LG_FLOAT32, LG_DIMS(1, 1, 1, 4));
    lg_b_op(b, LG_OP_ADD, LG_IDS(x, c), LG_IDS(tt)); /* op 0: t = x + 2^-11 */
    switch (kind) {
    case CHAIN: /* y = t - 1: t's only use, input 0 of a linkable op -> in registers */
    case T_IS_OUTPUT: /* the same, but t is also a graph output -> stored */
        lg_b_op(b, LG_OP_ADD, LG_IDS(tt, m1), LG_IDS(y));
        lg_b_io(b, LG_IDS(x, z), kind == CHAIN ? LG_IDS(y) : LG_IDS(y, tt));
        break;
    case TWO_USES: /* t also feeds a second op -> stored */
        lg_b_op(b, LG_OP_ADD, LG_IDS(tt, m1), LG_IDS(y));
        lg_b_op(b, LG_OP_MUL, LG_IDS(tt, p1), LG_IDS(w));
        lg_b_io(b, LG_IDS(x, z), LG_IDS(y, w));
        break;
    case ADD_SWAPPED: /* y = z + t with z = -1: TFLite's input 1, but the latest written of an
                         ADD without broadcasting goes first -> in registers */
        lg_b_op(b, LG_OP_ADD, LG_IDS(z, tt), LG_IDS(y));
        lg_b_io(b, LG_IDS(x, z), LG_IDS(y));
        break;
    case SUB_SLOT1: /* y = z - t with z = 1: t is input 1 of a SUB (no reordering) -> stored,
                       y = 1 - 1 = 0 (kept, it would be -2^-11) */
        lg_b_op(b, LG_OP_SUB, LG_IDS(z, tt), LG_IDS(y));
        lg_b_io(b, LG_IDS(x, z), LG_IDS(y));
        break;
    case THREE_CHAIN: /* t -> MUL by 1 -> ADD -1: both intermediates in registers */
        lg_b_op(b, LG_OP_MUL, LG_IDS(tt, p1), LG_IDS(w));
        lg_b_op(b, LG_OP_ADD, LG_IDS(w, m1), LG_IDS(y));
        lg_b_io(b, LG_IDS(x, z), LG_IDS(y));
        break;
    }
    float xin[4] = {1, 1, 1, 1};
    float zin[4];
    for (int i = 0; i < 4; i++) zin[i] = kind == SUB_SLOT1 ? 1.0f : -1.0f;
    const void *inputs[2] = {xin, zin};
    float got = NAN;
    CHECK_OK(t.b.status, &t.b.err);
    if (kt_run(&t, p, 1, inputs) == LG_OK) {
        const float *o = kt_f32(&t, 0);
        if (o) got = o[0];
        /* every element alike */
        for (int i = 1; o && i < 4; i++) CHECK(o[i] == o[0]);
    } else {
        CHECK_OK(t.st, &t.err);
    }
    kt_free(&t);
    return got;
}

LG_TEST(fp16_fusion_chain_keeps_intermediate_in_registers) {
    CHECK(run_case(CHAIN, LG_PREC_F32_F16) == KEPT);
    CHECK(run_case(THREE_CHAIN, LG_PREC_F32_F16) == KEPT);
}

LG_TEST(fp16_fusion_graph_output_is_stored) {
    CHECK(run_case(T_IS_OUTPUT, LG_PREC_F32_F16) == STORED);
}

LG_TEST(fp16_fusion_two_consumers_are_stored) {
    CHECK(run_case(TWO_USES, LG_PREC_F32_F16) == STORED);
}

LG_TEST(fp16_fusion_add_links_latest_written_input) {
    CHECK(run_case(ADD_SWAPPED, LG_PREC_F32_F16) == KEPT);
    /* SUB keeps TFLite's order: t is input 1, stored, so y = 1 - 1 */
    CHECK(run_case(SUB_SLOT1, LG_PREC_F32_F16) == STORED);
}

LG_TEST(fp16_fusion_only_in_f32_f16) {
    /* f16 computes every op in half (registers are halves): t rounds to 1 either way */
    CHECK(run_case(CHAIN, LG_PREC_F16) == STORED);
    /* f32 never rounds */
    CHECK(run_case(CHAIN, LG_PREC_F32) == KEPT);
    CHECK(run_case(T_IS_OUTPUT, LG_PREC_F32) == KEPT);
}
