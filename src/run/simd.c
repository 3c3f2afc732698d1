/* The shared SIMD layer (simd.h): CPU detection and override, and the loops of simd_tmpl.h for
   two targets (portable 4 lanes; AVX2 + F16C + FMA on x86-64), picked at run time. The AVX-512F
   level is used by the fp32 GEMM alone (k_conv_avx512.c). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "run/simd.h"
#include "util/half.h"

/* Every product and sum below is its own fp32 operation: GCC in ISO C mode does not contract
   a*b+c into an FMA; clang does by default, so say it. */
#ifdef __clang__
#pragma clang fp contract(off)
#endif

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define LGK_SIMD_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define LGK_SIMD_X86 0
#endif

/* portable: 4 lanes */
#define KC(name) name##_v4
#define KC_VW 4
#define KC_F16C 0
#include "run/simd_tmpl.h"
#undef KC
#undef KC_VW
#undef KC_F16C

#if LGK_SIMD_X86
#ifdef __clang__
#pragma clang attribute push(__attribute__((target("avx2,f16c,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,f16c,fma")
#endif
#define KC(name) name##_avx2
#define KC_VW 8
#define KC_F16C 1
#include "run/simd_tmpl.h"
#undef KC
#undef KC_VW
#undef KC_F16C
#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

/* CPU features, asked once (cpuid traps in VMs): the level this CPU has (LGK_SIMD_*). The
   compiler's checks include the OS's support of the YMM / ZMM state; F16C is CPUID.1:ECX bit 29,
   FMA bit 12. Racing first calls store the same value. The environment variable LITEGPU_SIMD
   (portable, avx2, avx512) caps the level for a process; lgk_simd_override caps it for tests. */
static atomic_int cpu_state = -1;
static atomic_int cpu_override = -1;
static int env_cap(void) {
    const char *e = getenv("LITEGPU_SIMD");
    if (!e) return LGK_SIMD_AVX512;
    if (!strcmp(e, "portable")) return LGK_SIMD_PORTABLE;
    if (!strcmp(e, "avx2")) return LGK_SIMD_AVX2;
    return LGK_SIMD_AVX512; /* "avx512" or anything else: no cap */
}
static int detect_cpu(void) {
    if (!__builtin_cpu_supports("avx2")) return LGK_SIMD_PORTABLE;
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 29) & (c >> 12) & 1u)) return LGK_SIMD_PORTABLE;
    int v = __builtin_cpu_supports("avx512f") ? LGK_SIMD_AVX512 : LGK_SIMD_AVX2;
    int cap = env_cap();
    return v < cap ? v : cap;
}
int lgk_simd_level(void) {
    int v = atomic_load_explicit(&cpu_state, memory_order_relaxed);
    if (v < 0) {
        v = detect_cpu();
        atomic_store_explicit(&cpu_state, v, memory_order_relaxed);
    }
    int o = atomic_load_explicit(&cpu_override, memory_order_relaxed);
    return o >= 0 && o < v ? o : v;
}
int lgk_simd_avx2(void) { return lgk_simd_level() >= LGK_SIMD_AVX2; }
int lgk_simd_avx512(void) { return lgk_simd_level() >= LGK_SIMD_AVX512; }
#define DISPATCH(name, ...)                            \
    do {                                               \
        if (lgk_simd_avx2()) name##_avx2(__VA_ARGS__); \
        else name##_v4(__VA_ARGS__);                   \
    } while (0)

#else
int lgk_simd_level(void) { return LGK_SIMD_PORTABLE; }
int lgk_simd_avx2(void) { return 0; }
int lgk_simd_avx512(void) { return 0; }
#define DISPATCH(name, ...) name##_v4(__VA_ARGS__)
#endif

void lgk_simd_override(int level) {
#if LGK_SIMD_X86
    atomic_store_explicit(&cpu_override, level, memory_order_relaxed);
#else
    (void)level;
#endif
}

void lgk_simd_bilerp_row_h(float *o, const float *row0, const float *row1, const int32_t *x0, const int32_t *x1,
                           const float *dx, float dy, int64_t ow, int64_t C) {
    DISPATCH(bilerp_row_h, o, row0, row1, x0, x1, dx, dy, ow, C);
}

int lgk_simd_round_half(float *p, int64_t n, int variant) {
#if LGK_SIMD_X86
    if (variant != 1 && lgk_simd_avx2()) {
        round_half_avx2(p, n);
        return 2;
    }
#endif
    round_half_v4(p, n);
    return 1;
}
