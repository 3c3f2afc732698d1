/* The conv family's vector loops (k_conv_tmpl.h) for two targets, dispatched on the CPU
   (lgk_simd_avx2, simd.c). */
#include <string.h>

#include "run/k_conv.h"

/* Every product and sum below is its own fp32 operation: GCC in ISO C mode does not contract
   a*b+c into an FMA; clang does by default, so say it. */
#ifdef __clang__
#pragma clang fp contract(off)
#endif

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define LGK_CV_X86 1
#include <immintrin.h>
#else
#define LGK_CV_X86 0
#endif

/* portable: 4 lanes */
#define KC(name) name##_v4
#define KC_VW 4
#define KC_F16C 0
#include "run/k_conv_tmpl.h"
#undef KC
#undef KC_VW
#undef KC_F16C

#if LGK_CV_X86
#ifdef __clang__
#pragma clang attribute push(__attribute__((target("avx2,f16c,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,f16c,fma")
#endif
#define KC(name) name##_avx2
#define KC_VW 8
#define KC_F16C 1
#include "run/k_conv_tmpl.h"
#undef KC
#undef KC_VW
#undef KC_F16C
#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#define DISPATCH(name, ...)                            \
    do {                                               \
        if (lgk_simd_avx2()) name##_avx2(__VA_ARGS__); \
        else name##_v4(__VA_ARGS__);                   \
    } while (0)

#else
#define DISPATCH(name, ...) name##_v4(__VA_ARGS__)
#endif

void lgk_cv_pack_b(const float *w, int64_t sn, int64_t sk, int64_t n, int64_t k, float *bp) {
    for (int64_t j0 = 0; j0 < n;) {
        int64_t rem = n - j0, pw = rem <= 8 ? 8 : 16, cnt = rem < pw ? rem : pw;
        for (int64_t kk = 0; kk < k; kk++) {
            float *dst = bp + kk * pw;
            for (int64_t jj = 0; jj < cnt; jj++) dst[jj] = w[(j0 + jj) * sn + kk * sk];
            for (int64_t jj = cnt; jj < pw; jj++) dst[jj] = 0;
        }
        bp += k * pw;
        j0 += pw;
    }
}

void lgk_cv_gemm_c4(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *bp, float *C,
                    int64_t ldc, const float *bias, lgk_clamp cl, int64_t seg) {
    if (M <= 0 || N <= 0) return;
    DISPATCH(gemm_c4, M, N, K, A, lda, bp, C, ldc, bias, cl, seg > 0 ? seg : 1);
}

void lgk_cv_gemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *bp, float *C, int64_t ldc,
                 const float *bias, lgk_clamp cl) {
    if (M <= 0 || N <= 0) return;
#if LGK_CV_X86
    if (lgk_simd_avx512()) {
        lgk_cv_gemm_avx512(M, N, K, A, lda, bp, C, ldc, bias, cl);
        return;
    }
#endif
    DISPATCH(gemm, M, N, K, A, lda, bp, C, ldc, bias, cl);
}

void lgk_cv_bias_act(float *y, int64_t rows, int64_t n, int64_t ldy, const float *bias, lgk_clamp cl) {
    if (!bias && !cl.on) return;
    DISPATCH(bias_act, y, rows, n, ldy, bias, cl);
}

void lgk_cv_gemm_h(int64_t M, int64_t N, int64_t K, const float *A, int64_t sam, int64_t sak, const float *B,
                   int64_t ldb, float *C, int64_t ldc, const float *bias, lgk_clamp cl) {
    if (M <= 0 || N <= 0) return;
    DISPATCH(gemm_h, M, N, K, A, sam, sak, B, ldb, C, ldc, bias, cl);
}

void lgk_cv_gemm_hp(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *bp, float *C,
                    int64_t ldc, const float *bias, lgk_clamp cl) {
    if (M <= 0 || N <= 0) return;
    DISPATCH(gemm_hp, M, N, K, A, lda, bp, C, ldc, bias, cl);
}

void lgk_cv_gemm_hn(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *W, float *C,
                    int64_t ldc, const float *bias, lgk_clamp cl) {
    if (M <= 0 || N <= 0) return;
    DISPATCH(gemm_hn, M, N, K, A, lda, W, C, ldc, bias, cl);
}

void lgk_cv_acc_h(float *acc, int64_t n, const float *x, int64_t K, const float *B, int64_t ldb) {
    DISPATCH(acc_h, acc, n, x, K, B, ldb);
}

void lgk_cv_acc_h4(float *acc, int64_t n, const float *x, int64_t xs, int64_t K, const float *B, int64_t ldb) {
    DISPATCH(acc_h4, acc, n, x, xs, K, B, ldb);
}

void lgk_cv_im2col(const lgk_im2col_args *a, int64_t p0, int64_t mt, float *col) { DISPATCH(im2col, a, p0, mt, col); }

void lgk_cv_conv_dot(const lgk_im2col_args *a, const float *w, int64_t N, const float *bias, lgk_clamp cl,
                     float *out, int64_t ldo, int64_t p0, int64_t p1, float *colbuf) {
    DISPATCH(conv_dot, a, w, N, bias, cl, out, ldo, p0, p1, colbuf);
}

void lgk_cv_dw_rows(const lgk_dw_args *a, int64_t r0, int64_t r1) {
#if LGK_CV_X86
    if (a->c * a->mult >= 16 && lgk_simd_avx512()) {
        lgk_cv_dw_rows_avx512(a, r0, r1);
        return;
    }
#endif
    DISPATCH(dw_rows, a, r0, r1);
}

void lgk_cv_pool_rows(const lgk_pool_args *a, int64_t r0, int64_t r1) {
#if LGK_CV_X86
    if (a->c >= 16 && lgk_simd_avx512()) {
        lgk_cv_pool_rows_avx512(a, r0, r1);
        return;
    }
#endif
    DISPATCH(pool_rows, a, r0, r1);
}

void lgk_cv_tconv_rows(const lgk_tconv_args *a, const float *in, const float *w, const float *wt, int64_t ocp,
                       const float *bias, lgk_clamp cl, int c4, int64_t r0, int64_t r1) {
    DISPATCH(tconv_rows, a, in, w, wt, ocp, bias, cl, c4, r0, r1);
}
