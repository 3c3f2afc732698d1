/* fp32 <-> fp16: all 65,536 halves against the compiler's _Float16 (an independent
   implementation), round-to-nearest-even ties and hand-derived edge values. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tf.h"
#include "util/half.h"

LG_TEST(half_all_65536_against_compiler) {
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        _Float16 ref;
        uint16_t hh = (uint16_t)h;
        memcpy(&ref, &hh, 2);
        float want = (float)ref, got = lg_half_to_float(hh);
        if (isnan(want)) {
            if (!isnan(got)) bad++;
            continue;
        }
        if (memcmp(&want, &got, 4) != 0) bad++;
        if (lg_float_to_half(got) != hh) bad++;          /* exact round trip */
        _Float16 back = (_Float16)got;
        uint16_t bb;
        memcpy(&bb, &back, 2);
        if (bb != lg_float_to_half(got)) bad++;
    }
    CHECK_EQ_INT(bad, 0);
}

LG_TEST(half_random_floats_round_like_compiler) {
    uint64_t s = 12345;
    int bad = 0;
    for (int i = 0; i < 2000000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t bits = (uint32_t)(s >> 32);
        float f;
        memcpy(&f, &bits, 4);
        if (isnan(f)) continue;
        _Float16 r = (_Float16)f;
        uint16_t rb;
        memcpy(&rb, &r, 2);
        if (lg_float_to_half(f) != rb) bad++;
    }
    CHECK_EQ_INT(bad, 0);
}

LG_TEST(half_hand_goldens) {
    CHECK_EQ_INT(lg_float_to_half(65504.0f), 0x7bff);          /* largest half */
    CHECK_EQ_INT(lg_float_to_half(65519.99f), 0x7bff);         /* below the rounding midpoint */
    CHECK_EQ_INT(lg_float_to_half(65520.0f), 0x7c00);          /* midpoint ties to even: inf */
    CHECK_EQ_INT(lg_float_to_half(-65520.0f), 0xfc00);
    CHECK_EQ_INT(lg_float_to_half(1.0f), 0x3c00);
    CHECK_EQ_INT(lg_float_to_half(1.0f + 1.0f / 2048.0f), 0x3c00); /* tie -> even (down) */
    CHECK_EQ_INT(lg_float_to_half(1.0f + 3.0f / 2048.0f), 0x3c02); /* tie -> even (up) */
    CHECK_EQ_INT(lg_float_to_half(ldexpf(1.0f, -24)), 0x0001);     /* smallest subnormal */
    CHECK_EQ_INT(lg_float_to_half(ldexpf(1.0f, -25)), 0x0000);     /* tie with 0 -> even 0 */
    CHECK_EQ_INT(lg_float_to_half(ldexpf(1.5f, -25)), 0x0001);
    CHECK_EQ_INT(lg_float_to_half(ldexpf(1.0f, -14)), 0x0400);     /* smallest normal */
    CHECK_EQ_INT(lg_float_to_half(-0.0f), 0x8000);
    CHECK_EQ_INT(lg_float_to_half(INFINITY), 0x7c00);
    CHECK(isnan(lg_half_to_float(lg_float_to_half(NAN))));
    CHECK_NEAR(lg_half_to_float(0x3555), 0.333251953125, 0);
    CHECK_NEAR(lg_round_half(175.3f), 175.25, 0);                   /* spacing 0.125 in [128,256) */
    CHECK(isinf(lg_round_half(175.0f * 175.0f * 512.0f)));
}

/* The branch-free lg_round_half equals lg_half_to_float(lg_float_to_half(x)). Every float
   near a half boundary (all 2^24 floats in [2^-26, 2^-13] cover the subnormal range and the
   normal threshold; the rest are sampled); tests/tools/half_exhaustive.c checks all 2^32. */
LG_TEST(half_round_matches_conversion) {
    int bad = 0;
    for (uint32_t b = 0x32800000u; b <= 0x39000000u; b += 1) { /* 2^-26 .. 2^-13 */
        float f;
        memcpy(&f, &b, 4);
        float a = lg_round_half(f), c = lg_half_to_float(lg_float_to_half(f));
        if (memcmp(&a, &c, 4)) bad++;
    }
    uint64_t s = 99;
    for (int i = 0; i < 4000000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t b = (uint32_t)(s >> 32);
        float f;
        memcpy(&f, &b, 4);
        float a = lg_round_half(f), c = lg_half_to_float(lg_float_to_half(f));
        if (memcmp(&a, &c, 4)) bad++;
    }
    for (uint32_t b = 0x477fe000u; b <= 0x47800000u; b++) {   /* around 65504..65536 */
        float f;
        memcpy(&f, &b, 4);
        float a = lg_round_half(f), c = lg_half_to_float(lg_float_to_half(f));
        if (memcmp(&a, &c, 4)) bad++;
    }
    CHECK_EQ_INT(bad, 0);
}
