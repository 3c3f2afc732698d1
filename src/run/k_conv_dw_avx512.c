/* The depthwise conv and pooling loops of the conv family's template (k_conv_tmpl_dw.h) compiled
 * for x86-64 CPUs with AVX-512F: 16-lane vectors over channels. lgk_cv_dw_rows and
 * lgk_cv_pool_rows (k_conv_simd.c) call them when lgk_simd_avx512() and the op has at least 16
 * channels (fewer would go through the template's padded one-pixel path).
 *
 * The template computes every output channel with the same fp32 operations in the same order
 * whatever the width (k_conv_tmpl.h), so these give the bits of the AVX2 and portable builds:
 * the taps of a depthwise output in XNNPACK's order, the average pool's chunks of 9, the half
 * multiply-add as an FMA (exact for half operands, as in the AVX2 build), the half rounding by
 * the AVX-512 form of F16C's conversions (round to nearest even, as _mm256_cvtps_ph). */
#include <string.h>

#include "run/k_conv.h"

/* Every product and sum is its own fp32 operation: GCC in ISO C mode does not contract a*b+c
   into an FMA; clang does by default, so say it. */
#ifdef __clang__
#pragma clang fp contract(off)
#endif

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#ifdef __clang__
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
#define KC(name) name##_avx512
#define KC_VW 16
#define KC_F16C 1
#define KC_DW_ONLY 1
#include "run/k_conv_tmpl.h"
#undef KC
#undef KC_VW
#undef KC_F16C
#undef KC_DW_ONLY

void lgk_cv_dw_rows_avx512(const lgk_dw_args *a, int64_t r0, int64_t r1) { dw_rows_avx512(a, r0, r1); }

void lgk_cv_pool_rows_avx512(const lgk_pool_args *a, int64_t r0, int64_t r1) { pool_rows_avx512(a, r0, r1); }

#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
typedef int lgk_conv_dw_avx512_unused; /* ISO C: a translation unit is not empty */
#endif
