/* All 2^32 floats: lg_round_half(x) == lg_half_to_float(lg_float_to_half(x)), bit for bit.
   About 20 s; run with `make check-half-exhaustive` (not part of make test). */
#include <stdio.h>
#include "util/half.h"

int main(void) {
    unsigned long bad = 0;
    for (uint64_t i = 0; i < (1ull << 32); i++) {
        uint32_t b = (uint32_t)i;
        float f, a, c;
        memcpy(&f, &b, 4);
        a = lg_round_half(f);
        c = lg_half_to_float(lg_float_to_half(f));
        if (memcmp(&a, &c, 4) != 0 && bad++ < 5) printf("mismatch at 0x%08x\n", b);
    }
    printf("half_exhaustive: %lu mismatches over 2^32 floats\n", bad);
    return bad != 0;
}
