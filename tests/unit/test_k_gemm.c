/* The fp32 packed GEMM (lgk_cv_gemm, src/run/k_conv_simd.c and k_conv_avx512.c) on every vector
 * level this CPU has: portable 4 lanes, AVX2 (6x16 tiles) and AVX-512F (8x32 tiles, k in
 * cache blocks of 256), forced with lgk_simd_override. Each level must give the bits of one
 * chain per output, acc = bias; acc = acc + a*w for k ascending (a product and an add per
 * step), restated here as a scalar loop.
 *
 * The shapes cross every edge of the tiles: rows 1..17 and 49 (8-row tiles and their tails,
 * 6-row AVX2 tiles), columns 1..73 (two-panel tiles, a last 16- or 8-wide panel, masked
 * stores), k 0, 1, 255-257 and 600 (the AVX-512 cache blocks' boundary), strides past the
 * width (lda > K, ldc > N: the gaps must stay untouched). */
#include <stdlib.h>
#include <string.h>

#include "run/k_conv.h"
#include "run/simd.h"
#include "kt.h"
#include "tf.h"

/* the reference's products and sums are separate fp32 operations, as the kernels' */
#ifdef __clang__
#pragma clang fp contract(off)
#endif

#define check_bits(what, got, want, n) kt_check_f32(__FILE__, __LINE__, what, got, want, n, 0, KT_BITS)

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static float frand(void) { /* uniform [-1, 1) */
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((double)(rng >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
}

/* the levels to run: the portable code, then AVX2 and AVX-512 where this CPU has them;
   returns how many were set up in lv */
static int levels(int *lv) {
    int n = 0;
    lgk_simd_override(-1);
    int best = lgk_simd_level();
    for (int l = LGK_SIMD_PORTABLE; l <= best; l++) lv[n++] = l;
    return n;
}

/* C[m*ldc + n] = clamp(bias[n] + a*w + ... in k order), W[n*K + k] */
static void ref_gemm(int M, int N, int K, const float *A, int lda, const float *W, float *C, int ldc,
                     const float *bias, lgk_clamp cl) {
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            float acc = bias ? bias[n] : 0.0f;
            for (int k = 0; k < K; k++) {
                float p = A[m * lda + k] * W[n * K + k];
                acc = acc + p;
            }
            if (cl.on) {
                if (acc < cl.lo) acc = cl.lo;
                if (cl.hi < acc) acc = cl.hi;
            }
            C[m * ldc + n] = acc;
        }
}

/* run lgk_cv_gemm on level lv; C is prefilled with 7 (the gaps must keep it) */
static void run_gemm(int lv, int M, int N, int K, const float *A, int lda, const float *W, float *C, int ldc,
                     const float *bias, lgk_clamp cl) {
    float *bp = malloc((size_t)(lgk_cv_packed_floats(N, K) > 0 ? lgk_cv_packed_floats(N, K) : 1) * sizeof(float));
    lgk_cv_pack_b(W, K, 1, N, K, bp);
    for (int i = 0; i < M * ldc; i++) C[i] = 7;
    lgk_simd_override(lv);
    lgk_cv_gemm(M, N, K, A, lda, bp, C, ldc, bias, cl);
    lgk_simd_override(-1);
    free(bp);
}

LG_TEST(k_gemm_levels_vs_chain) {
    static const int Ms[] = {1, 2, 5, 6, 7, 8, 9, 13, 16, 17, 49};
    static const int Ns[] = {1, 5, 8, 9, 15, 16, 17, 24, 31, 32, 33, 40, 47, 48, 49, 64, 73};
    static const int Ks[] = {0, 1, 3, 255, 256, 257, 600};
    int lv[3], nl = levels(lv);
    CHECK(nl >= 1);
    int cases = 0;
    for (size_t mi = 0; mi < sizeof Ms / sizeof Ms[0]; mi++)
        for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++)
            for (size_t ki = 0; ki < sizeof Ks / sizeof Ks[0]; ki++) {
                int M = Ms[mi], N = Ns[ni], K = Ks[ki], lda = K + (int)(ki & 1) * 3, ldc = N + (int)(ni & 1) * 5;
                /* a third without bias, and the activations none / RELU / RELU6 in turn */
                int variant = (int)(mi + ni + ki);
                int hasb = variant % 3 != 0;
                lgk_clamp cl = {-INFINITY, INFINITY, 0};
                if (variant % 4 == 1) cl = (lgk_clamp){0, INFINITY, 1};
                if (variant % 4 == 2) cl = (lgk_clamp){0, 6, 1};
                float *A = malloc((size_t)(M * lda + 1) * sizeof(float)), *W = malloc((size_t)(N * K + 1) * sizeof(float));
                float *b = malloc((size_t)N * sizeof(float));
                float *want = malloc((size_t)M * ldc * sizeof(float)), *got = malloc((size_t)M * ldc * sizeof(float));
                /* magnitudes spread over 2^-6..2^6 so that a different order of the additions
                   changes low bits */
                for (int i = 0; i < M * lda; i++) A[i] = frand() * (float)(1 << (i % 13)) / 64.0f;
                for (int i = 0; i < N * K; i++) W[i] = frand();
                for (int i = 0; i < N; i++) b[i] = frand() * 4;
                for (int i = 0; i < M * ldc; i++) want[i] = 7;
                ref_gemm(M, N, K, A, lda, W, want, ldc, hasb ? b : NULL, cl);
                for (int l = 0; l < nl; l++) {
                    char what[96];
                    snprintf(what, sizeof what, "gemm level %d M %d N %d K %d lda %d ldc %d", lv[l], M, N, K, lda, ldc);
                    run_gemm(lv[l], M, N, K, A, lda, W, got, ldc, hasb ? b : NULL, cl);
                    check_bits(what, got, want, (int64_t)M * ldc);
                }
                cases++;
                free(A); free(W); free(b); free(want); free(got);
            }
    CHECK_EQ_INT(cases, 11 * 17 * 7);
}

LG_TEST(k_gemm_chain_across_cache_blocks) {
    /* K = 300 crosses the AVX-512 cache block at k = 256. Column n's weights are 1 at k = 0,
       256 and 299, 0 elsewhere; row m's inputs are 1 at k = 0, 1e8 at k = 256 and -1e8 at
       k = 299. One chain in k order: 0 + 1 = 1, then 1 + 1e8 = 1e8 (fp32's spacing at 1e8 is
       8: the 1 is lost), then 1e8 - 1e8 = 0. Partial sums per block combined at the end would
       give (1) + (1e8 - 1e8) = 1 instead: the result must be exactly 0 at every level. */
    enum { M = 9, N = 40, K = 300 };
    static float A[M * K], W[N * K], C[M * N], want[M * N];
    memset(A, 0, sizeof A);
    memset(W, 0, sizeof W);
    for (int m = 0; m < M; m++) {
        A[m * K] = 1;
        A[m * K + 256] = 1e8f;
        A[m * K + 299] = -1e8f;
    }
    for (int n = 0; n < N; n++) W[n * K] = W[n * K + 256] = W[n * K + 299] = 1;
    for (int i = 0; i < M * N; i++) want[i] = 0;
    lgk_clamp none = {-INFINITY, INFINITY, 0};
    int lv[3], nl = levels(lv);
    for (int l = 0; l < nl; l++) {
        run_gemm(lv[l], M, N, K, A, K, W, C, N, NULL, none);
        check_bits("one chain across k = 256", C, want, M * N);
    }
    /* the near miss: with the 1 after the cancelling pair (k = 299 -> 1, 0 -> 1e8 order
       reversed: 1e8 at k = 0, -1e8 at k = 256, 1 at k = 299) the chain keeps it: 1 */
    for (int m = 0; m < M; m++) {
        A[m * K] = 1e8f;
        A[m * K + 256] = -1e8f;
        A[m * K + 299] = 1;
    }
    for (int i = 0; i < M * N; i++) want[i] = 1;
    for (int l = 0; l < nl; l++) {
        run_gemm(lv[l], M, N, K, A, K, W, C, N, NULL, none);
        check_bits("one chain, the 1 last", C, want, M * N);
    }
}

LG_TEST(k_gemm_clamp_nan_and_signed_zero) {
    /* K = 0: the outputs are the bias. RELU keeps -0 (TFLite's std::max(-0, 0) returns its
       first argument: -0 < 0 is false) and NaN (every comparison with NaN is false); RELU6
       clamps 7 to 6 and -1 to 0. 24 columns: a 16-wide panel and an 8-wide one. */
    enum { N = 24 };
    float b[N], C[3 * N], want[3 * N], W[1] = {0}, A[3] = {0};
    for (int n = 0; n < N; n++) b[n] = n % 4 == 0 ? -0.0f : n % 4 == 1 ? NAN : n % 4 == 2 ? 7.0f : -1.0f;
    lgk_clamp relu = {0, INFINITY, 1}, relu6 = {0, 6, 1};
    int lv[3], nl = levels(lv);
    for (int l = 0; l < nl; l++) {
        for (int m = 0; m < 3; m++)
            for (int n = 0; n < N; n++) want[m * N + n] = n % 4 == 0 ? -0.0f : n % 4 == 1 ? NAN : n % 4 == 2 ? 7.0f : 0.0f;
        run_gemm(lv[l], 3, N, 0, A, 1, W, C, N, b, relu);
        check_bits("relu of the bias", C, want, 3 * N);
        for (int m = 0; m < 3; m++)
            for (int n = 0; n < N; n++) want[m * N + n] = n % 4 == 0 ? -0.0f : n % 4 == 1 ? NAN : n % 4 == 2 ? 6.0f : 0.0f;
        run_gemm(lv[l], 3, N, 0, A, 1, W, C, N, b, relu6);
        check_bits("relu6 of the bias", C, want, 3 * N);
    }
}

LG_TEST(k_gemm_simd_levels) {
    /* the override caps the level and -1 lifts the cap */
    lgk_simd_override(-1);
    int best = lgk_simd_level();
    CHECK(best >= LGK_SIMD_PORTABLE && best <= LGK_SIMD_AVX512);
    lgk_simd_override(LGK_SIMD_PORTABLE);
    CHECK_EQ_INT(lgk_simd_level(), LGK_SIMD_PORTABLE);
    CHECK_EQ_INT(lgk_simd_avx2(), 0);
    CHECK_EQ_INT(lgk_simd_avx512(), 0);
    lgk_simd_override(LGK_SIMD_AVX2);
    CHECK_EQ_INT(lgk_simd_level(), best < LGK_SIMD_AVX2 ? best : LGK_SIMD_AVX2);
    CHECK_EQ_INT(lgk_simd_avx512(), 0);
    lgk_simd_override(-1);
    CHECK_EQ_INT(lgk_simd_level(), best);
    CHECK_EQ_INT(lgk_simd_avx512(), best >= LGK_SIMD_AVX512);
}
