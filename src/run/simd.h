/* The run-time SIMD layer shared by the kernel families (internal): which vector code this CPU
 * runs, the vectorized half rounding (the interpreter's fp16 storage emulation) and the half
 * bilinear row of RESIZE_BILINEAR. simd.c compiles its loops twice from simd_vec.h: portable
 * width-4 vectors (SSE2 / NEON) and, on x86-64 CPUs that have them, AVX2 + F16C + FMA; the
 * conv family's template (k_conv_tmpl.h) builds on the same simd_vec.h and dispatches on
 * lgk_simd_avx2(). Every variant computes the same bits. */
#ifndef LGI_RUN_SIMD_H
#define LGI_RUN_SIMD_H

#include <stdint.h>

#include "internal.h"

/* The vector code levels, each including the one before: portable 4-lane vectors (SSE2 /
   NEON), AVX2 + F16C + FMA (every vector loop of the run-time code), AVX-512F (the fp32 GEMM,
   k_conv_avx512.c; the other loops stay AVX2). */
enum { LGK_SIMD_PORTABLE = 0, LGK_SIMD_AVX2 = 1, LGK_SIMD_AVX512 = 2 };
/* The level that runs: the CPU's, capped by the environment variable LITEGPU_SIMD (portable,
   avx2 or avx512, read once per process) and by lgk_simd_override. */
LG_INTERNAL int lgk_simd_level(void);
/* 1 when the AVX2 + F16C + FMA code runs (level >= LGK_SIMD_AVX2). */
LG_INTERNAL int lgk_simd_avx2(void);
/* 1 when the AVX-512F fp32 GEMM runs (level >= LGK_SIMD_AVX512). */
LG_INTERNAL int lgk_simd_avx512(void);
/* Tests: -1 removes the cap (the best code the CPU and LITEGPU_SIMD allow, the default);
   LGK_SIMD_PORTABLE forces the portable code (4-lane vectors, software half rounding),
   LGK_SIMD_AVX2 caps at AVX2 (what a CPU without AVX-512 runs). Not thread-safe with running
   interpreters. */
LG_INTERNAL void lgk_simd_override(int level);

/* Round n floats to half and back in place, bit-identical to lg_round_half.
   variant: 0 = the best this CPU has, 1 = portable vectors, 2 = F16C (falls back to 1 when
   the CPU lacks it); for tests. Returns the variant used. */
LG_INTERNAL int lgk_simd_round_half(float *p, int64_t n, int variant);

/* One output row of a half-precision bilinear resize (LG_PREC_F16), NHWC with C channels: for
   each ox < ow and channel k, with v_yx = row_y[x_x[ox]*C + k] and t = dx[ox]:
     top = h(v00 + h(v01 - v00)*t), bot = h(v10 + h(v11 - v10)*t), o = h(top + h(bot - top)*dy). */
LG_INTERNAL void lgk_simd_bilerp_row_h(float *o, const float *row0, const float *row1, const int32_t *x0,
                                       const int32_t *x1, const float *dx, float dy, int64_t ow, int64_t C);

#endif
