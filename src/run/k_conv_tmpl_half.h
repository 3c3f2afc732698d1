/* Part of the conv family's vector template (k_conv_tmpl.h includes it; no include guard on
 * purpose: compiled once per target with KC(name), KC_VW and KC_F16C set): the half-precision
 * products (LG_PREC_F16): GEMMs and accumulations. */

/* ------------------------------------------------------------------ half GEMM */

/* bias (half-rounded add), clamp and store cnt <= KC_VW lanes */
static inline void KC(fin_h)(float *c, VF v, int64_t cnt, const float *bias, lgk_clamp cl) {
    float t[KC_VW] = {0};
    if (bias) {
        VF bv;
        if (cnt == KC_VW) {
            bv = KC(ld)(bias);
        } else {
            memcpy(t, bias, (size_t)cnt * 4);
            bv = KC(ld)(t);
        }
        v = KC(h)(v + bv);
    }
    if (cl.on) v = KC(clampv)(v, KC(splat)(cl.lo), KC(splat)(cl.hi));
    if (cnt == KC_VW) {
        KC(st)(c, v);
    } else {
        KC(st)(t, v);
        memcpy(c, t, (size_t)cnt * 4);
    }
}


static void KC(gemm_h)(int64_t M, int64_t N, int64_t K, const float *A, int64_t sam, int64_t sak,
                       const float *B, int64_t ldb, float *C, int64_t ldc, const float *bias, lgk_clamp cl) {
    const VF z = KC(splat)(0);
    int64_t m = 0;
    for (; m + 4 <= M; m += 4) {
        const float *a0 = A + m * sam, *a1 = a0 + sam, *a2 = a1 + sam, *a3 = a2 + sam;
        for (int64_t n = 0; n < N; n += 2 * KC_VW) {
            VF c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z;
            const float *b = B + n;
            if (n + KC_VW < N) {
                for (int64_t k = 0; k < K; k++, b += ldb) {
                    VF b0 = KC(ld)(b), b1 = KC(ld)(b + KC_VW);
                    VF x0 = KC(splat)(a0[k * sak]), x1 = KC(splat)(a1[k * sak]), x2 = KC(splat)(a2[k * sak]),
                       x3 = KC(splat)(a3[k * sak]);
                    KC_MACH(c00, x0, b0); KC_MACH(c01, x0, b1);
                    KC_MACH(c10, x1, b0); KC_MACH(c11, x1, b1);
                    KC_MACH(c20, x2, b0); KC_MACH(c21, x2, b1);
                    KC_MACH(c30, x3, b0); KC_MACH(c31, x3, b1);
                }
            } else {
                for (int64_t k = 0; k < K; k++, b += ldb) {
                    VF b0 = KC(ld)(b);
                    KC_MACH(c00, KC(splat)(a0[k * sak]), b0);
                    KC_MACH(c10, KC(splat)(a1[k * sak]), b0);
                    KC_MACH(c20, KC(splat)(a2[k * sak]), b0);
                    KC_MACH(c30, KC(splat)(a3[k * sak]), b0);
                }
            }
            int64_t w0 = KC(mini)(KC_VW, N - n), w1 = N - n - KC_VW;
            const float *bb = bias ? bias + n : NULL, *bb1 = bias ? bias + n + KC_VW : NULL;
            float *cr = C + m * ldc + n;
            KC(fin_h)(cr, c00, w0, bb, cl);
            KC(fin_h)(cr + ldc, c10, w0, bb, cl);
            KC(fin_h)(cr + 2 * ldc, c20, w0, bb, cl);
            KC(fin_h)(cr + 3 * ldc, c30, w0, bb, cl);
            if (w1 > 0) {
                w1 = KC(mini)(KC_VW, w1);
                KC(fin_h)(cr + KC_VW, c01, w1, bb1, cl);
                KC(fin_h)(cr + ldc + KC_VW, c11, w1, bb1, cl);
                KC(fin_h)(cr + 2 * ldc + KC_VW, c21, w1, bb1, cl);
                KC(fin_h)(cr + 3 * ldc + KC_VW, c31, w1, bb1, cl);
            }
        }
    }
    for (; m < M; m++) {
        const float *a0 = A + m * sam;
        for (int64_t n = 0; n < N; n += 4 * KC_VW) {
            VF c0 = z, c1 = z, c2 = z, c3 = z;
            const float *b = B + n;
            int64_t nv = (KC(mini)(4 * KC_VW, N - n) + KC_VW - 1) / KC_VW;
            if (nv == 4) {
                for (int64_t k = 0; k < K; k++, b += ldb) {
                    const VF x = KC(splat)(a0[k * sak]);
                    KC_MACH(c0, x, KC(ld)(b));
                    KC_MACH(c1, x, KC(ld)(b + KC_VW));
                    KC_MACH(c2, x, KC(ld)(b + 2 * KC_VW));
                    KC_MACH(c3, x, KC(ld)(b + 3 * KC_VW));
                }
            } else {
                for (int64_t k = 0; k < K; k++, b += ldb) {
                    const VF x = KC(splat)(a0[k * sak]);
                    KC_MACH(c0, x, KC(ld)(b));
                    if (nv > 1) KC_MACH(c1, x, KC(ld)(b + KC_VW));
                    if (nv > 2) KC_MACH(c2, x, KC(ld)(b + 2 * KC_VW));
                }
            }
            VF cs[4] = {c0, c1, c2, c3};
            for (int64_t j = 0; j < nv; j++) {
                int64_t o = n + j * KC_VW;
                KC(fin_h)(C + m * ldc + o, cs[j], KC(mini)(KC_VW, N - o), bias ? bias + o : NULL, cl);
            }
        }
    }
}

/* The half product over packed panels (lgk_cv_pack_b, as gemm): gemm_h's arithmetic (one
   rounding per multiply-add from 0, then h(acc + bias), clamp) with gemm's register tiling:
   6 rows x 16 columns (12 accumulators) on AVX2, 3 x 16 with 4-lane vectors. Rows past M
   repeat the last row (computed, not stored). */
#if KC_VW == 8
#define KC_HMR 6
#else
#define KC_HMR 3
#endif
#define KC_HNV (16 / KC_VW)
static void KC(gemm_hp)(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *Bp, float *C,
                        int64_t ldc, const float *bias, lgk_clamp cl) {
    const VF z = KC(splat)(0);
    for (int64_t m0 = 0; m0 < M; m0 += KC_HMR) {
        const int64_t mr = M - m0 < KC_HMR ? M - m0 : KC_HMR;
        const float *ar[KC_HMR];
        for (int r = 0; r < KC_HMR; r++) ar[r] = A + (m0 + (r < mr ? r : mr - 1)) * lda;
        const float *bp = Bp;
        for (int64_t j0 = 0; j0 < N;) {
            const int64_t rem = N - j0, pw = rem <= 8 ? 8 : 16, nv = pw / KC_VW;
            VF acc[KC_HMR][KC_HNV];
            const float *b = bp;
#if KC_VW == 8
            const float *a0 = ar[0], *a1 = ar[1], *a2 = ar[2], *a3 = ar[3], *a4 = ar[4], *a5 = ar[5];
            if (nv == 2) {
                VF c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z, c40 = z, c41 = z, c50 = z, c51 = z;
                for (int64_t k = 0; k < K; k++, b += 16) {
                    const VF b0 = KC(ld)(b), b1 = KC(ld)(b + 8);
                    VF x;
                    x = KC(splat)(a0[k]); KC_MACH(c00, x, b0); KC_MACH(c01, x, b1);
                    x = KC(splat)(a1[k]); KC_MACH(c10, x, b0); KC_MACH(c11, x, b1);
                    x = KC(splat)(a2[k]); KC_MACH(c20, x, b0); KC_MACH(c21, x, b1);
                    x = KC(splat)(a3[k]); KC_MACH(c30, x, b0); KC_MACH(c31, x, b1);
                    x = KC(splat)(a4[k]); KC_MACH(c40, x, b0); KC_MACH(c41, x, b1);
                    x = KC(splat)(a5[k]); KC_MACH(c50, x, b0); KC_MACH(c51, x, b1);
                }
                acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11; acc[2][0] = c20; acc[2][1] = c21;
                acc[3][0] = c30; acc[3][1] = c31; acc[4][0] = c40; acc[4][1] = c41; acc[5][0] = c50; acc[5][1] = c51;
            } else {
                VF c0 = z, c1 = z, c2 = z, c3 = z, c4 = z, c5 = z;
                for (int64_t k = 0; k < K; k++, b += 8) {
                    const VF b0 = KC(ld)(b);
                    KC_MACH(c0, KC(splat)(a0[k]), b0);
                    KC_MACH(c1, KC(splat)(a1[k]), b0);
                    KC_MACH(c2, KC(splat)(a2[k]), b0);
                    KC_MACH(c3, KC(splat)(a3[k]), b0);
                    KC_MACH(c4, KC(splat)(a4[k]), b0);
                    KC_MACH(c5, KC(splat)(a5[k]), b0);
                }
                acc[0][0] = c0; acc[1][0] = c1; acc[2][0] = c2; acc[3][0] = c3; acc[4][0] = c4; acc[5][0] = c5;
            }
#else
            const float *a0 = ar[0], *a1 = ar[1], *a2 = ar[2];
            if (nv == 4) {
                VF c00 = z, c01 = z, c02 = z, c03 = z, c10 = z, c11 = z, c12 = z, c13 = z;
                VF c20 = z, c21 = z, c22 = z, c23 = z;
                for (int64_t k = 0; k < K; k++, b += 16) {
                    const VF b0 = KC(ld)(b), b1 = KC(ld)(b + 4), b2 = KC(ld)(b + 8), b3 = KC(ld)(b + 12);
                    VF x;
                    x = KC(splat)(a0[k]); KC_MACH(c00, x, b0); KC_MACH(c01, x, b1); KC_MACH(c02, x, b2); KC_MACH(c03, x, b3);
                    x = KC(splat)(a1[k]); KC_MACH(c10, x, b0); KC_MACH(c11, x, b1); KC_MACH(c12, x, b2); KC_MACH(c13, x, b3);
                    x = KC(splat)(a2[k]); KC_MACH(c20, x, b0); KC_MACH(c21, x, b1); KC_MACH(c22, x, b2); KC_MACH(c23, x, b3);
                }
                acc[0][0] = c00; acc[0][1] = c01; acc[0][2] = c02; acc[0][3] = c03;
                acc[1][0] = c10; acc[1][1] = c11; acc[1][2] = c12; acc[1][3] = c13;
                acc[2][0] = c20; acc[2][1] = c21; acc[2][2] = c22; acc[2][3] = c23;
            } else {
                VF c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z;
                for (int64_t k = 0; k < K; k++, b += 8) {
                    const VF b0 = KC(ld)(b), b1 = KC(ld)(b + 4);
                    VF x;
                    x = KC(splat)(a0[k]); KC_MACH(c00, x, b0); KC_MACH(c01, x, b1);
                    x = KC(splat)(a1[k]); KC_MACH(c10, x, b0); KC_MACH(c11, x, b1);
                    x = KC(splat)(a2[k]); KC_MACH(c20, x, b0); KC_MACH(c21, x, b1);
                }
                acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11; acc[2][0] = c20; acc[2][1] = c21;
            }
#endif
            for (int64_t r = 0; r < mr; r++) {
                float *c = C + (m0 + r) * ldc + j0;
                for (int64_t v = 0; v < nv; v++) {
                    const int64_t cnt = rem - v * KC_VW;
                    if (cnt <= 0) break;
                    KC(fin_h)(c + v * KC_VW, acc[r][v], KC(mini)(KC_VW, cnt), bias ? bias + j0 + v * KC_VW : NULL, cl);
                }
            }
            bp += K * pw;
            j0 += pw;
        }
    }
}
#undef KC_HMR
#undef KC_HNV

/* The half product for 1-4 output columns (lgk_cv_gemm_hn): vectors run across rows (pixels)
   instead of columns, so no lane is wasted on padding; W is [N][K] (row n = output n). A block
   of G vectors of rows is transposed eight k at a time into xt, then every chain (row vector
   g, column n) takes its eight multiply-adds in k order: G*N independent chains. */
#define KC_HN_G 8
static inline __attribute__((always_inline)) void KC(gemm_hn_t)(int64_t M, int64_t K, const float *A, int64_t lda,
                                                                const float *W, float *C, int64_t ldc,
                                                                const float *bias, lgk_clamp cl, const int G,
                                                                const int N) {
    const int64_t R = (int64_t)G * KC_VW;
    const VF z = KC(splat)(0);
    float xt[8][KC_HN_G * KC_VW];
    const float *ar[KC_HN_G * KC_VW];
    for (int64_t m0 = 0; m0 < M; m0 += R) {
        for (int64_t r = 0; r < R; r++) ar[r] = A + (m0 + r < M ? m0 + r : M - 1) * lda;
        VF acc[KC_HN_G][4];
        for (int g = 0; g < G; g++)
            for (int n = 0; n < N; n++) acc[g][n] = z;
        for (int64_t k0 = 0; k0 < K; k0 += 8) {
            const int64_t kb = K - k0 < 8 ? K - k0 : 8;
#if KC_VW == 8
            if (kb == 8) {
                for (int g = 0; g < G; g++) {
                    VF x[8];
                    for (int j = 0; j < 8; j++) x[j] = KC(ld)(ar[g * 8 + j] + k0);
                    KC(tr8)(x);
                    for (int kk = 0; kk < 8; kk++) KC(st)(&xt[kk][g * 8], x[kk]);
                }
            } else
#endif
            {
                for (int64_t r = 0; r < R; r++)
                    for (int64_t kk = 0; kk < kb; kk++) xt[kk][r] = ar[r][k0 + kk];
            }
            for (int64_t kk = 0; kk < kb; kk++)
                for (int n = 0; n < N; n++) {
                    const VF wv = KC(splat)(W[n * K + k0 + kk]);
                    for (int g = 0; g < G; g++) KC_MACH(acc[g][n], KC(ld)(&xt[kk][g * KC_VW]), wv);
                }
        }
        for (int g = 0; g < G; g++)
            for (int n = 0; n < N; n++) {
                VF v = acc[g][n];
                if (bias) v = KC(h)(v + KC(splat)(bias[n]));
                if (cl.on) v = KC(clampv)(v, KC(splat)(cl.lo), KC(splat)(cl.hi));
                float t[KC_VW];
                KC(st)(t, v);
                for (int i = 0; i < KC_VW; i++) {
                    int64_t r = m0 + g * KC_VW + i;
                    if (r < M) C[r * ldc + n] = t[i];
                }
            }
    }
}
static void KC(gemm_hn)(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *W, float *C,
                        int64_t ldc, const float *bias, lgk_clamp cl) {
    switch (N) {
    case 1: KC(gemm_hn_t)(M, K, A, lda, W, C, ldc, bias, cl, 8, 1); break;
    case 2: KC(gemm_hn_t)(M, K, A, lda, W, C, ldc, bias, cl, 4, 2); break;
    case 3: KC(gemm_hn_t)(M, K, A, lda, W, C, ldc, bias, cl, 2, 3); break;
    default: KC(gemm_hn_t)(M, K, A, lda, W, C, ldc, bias, cl, 2, 4); break;
    }
}
#undef KC_HN_G

/* Four accumulations at once (lgk_cv_acc_h4): acc[p*n + j] = h(acc[p*n + j] + x[p*xs + k] * B[k*ldb + j])
   for p < 4, k < K in order, j < n (a multiple of 8): eight independent chains per step. */
static void KC(acc_h4)(float *acc, int64_t n, const float *x, int64_t xs, int64_t K, const float *B, int64_t ldb) {
    const float *x0 = x, *x1 = x + xs, *x2 = x + 2 * xs, *x3 = x + 3 * xs;
    float *a0 = acc, *a1 = acc + n, *a2 = acc + 2 * n, *a3 = acc + 3 * n;
    int64_t j = 0;
    for (; j + 2 * KC_VW <= n; j += 2 * KC_VW) {
        VF s00 = KC(ld)(a0 + j), s01 = KC(ld)(a0 + j + KC_VW), s10 = KC(ld)(a1 + j), s11 = KC(ld)(a1 + j + KC_VW);
        VF s20 = KC(ld)(a2 + j), s21 = KC(ld)(a2 + j + KC_VW), s30 = KC(ld)(a3 + j), s31 = KC(ld)(a3 + j + KC_VW);
        const float *b = B + j;
        for (int64_t k = 0; k < K; k++, b += ldb) {
            const VF b0 = KC(ld)(b), b1 = KC(ld)(b + KC_VW);
            VF v;
            v = KC(splat)(x0[k]); KC_MACH(s00, v, b0); KC_MACH(s01, v, b1);
            v = KC(splat)(x1[k]); KC_MACH(s10, v, b0); KC_MACH(s11, v, b1);
            v = KC(splat)(x2[k]); KC_MACH(s20, v, b0); KC_MACH(s21, v, b1);
            v = KC(splat)(x3[k]); KC_MACH(s30, v, b0); KC_MACH(s31, v, b1);
        }
        KC(st)(a0 + j, s00); KC(st)(a0 + j + KC_VW, s01); KC(st)(a1 + j, s10); KC(st)(a1 + j + KC_VW, s11);
        KC(st)(a2 + j, s20); KC(st)(a2 + j + KC_VW, s21); KC(st)(a3 + j, s30); KC(st)(a3 + j + KC_VW, s31);
    }
    for (; j < n; j += KC_VW) {
        VF s0 = KC(ld)(a0 + j), s1 = KC(ld)(a1 + j), s2 = KC(ld)(a2 + j), s3 = KC(ld)(a3 + j);
        const float *b = B + j;
        for (int64_t k = 0; k < K; k++, b += ldb) {
            const VF b0 = KC(ld)(b);
            KC_MACH(s0, KC(splat)(x0[k]), b0);
            KC_MACH(s1, KC(splat)(x1[k]), b0);
            KC_MACH(s2, KC(splat)(x2[k]), b0);
            KC_MACH(s3, KC(splat)(x3[k]), b0);
        }
        KC(st)(a0 + j, s0); KC(st)(a1 + j, s1); KC(st)(a2 + j, s2); KC(st)(a3 + j, s3);
    }
}

/* acc[j] = h(acc[j] + x[k] * B[k*ldb + j]) for k < K in order, j < n (n a multiple of 8) */
static void KC(acc_h)(float *acc, int64_t n, const float *x, int64_t K, const float *B, int64_t ldb) {
    int64_t j = 0;
    for (; j + 2 * KC_VW <= n; j += 2 * KC_VW) {
        VF s0 = KC(ld)(acc + j), s1 = KC(ld)(acc + j + KC_VW);
        const float *b = B + j;
        for (int64_t k = 0; k < K; k++, b += ldb) {
            const VF xk = KC(splat)(x[k]);
            KC_MACH(s0, xk, KC(ld)(b));
            KC_MACH(s1, xk, KC(ld)(b + KC_VW));
        }
        KC(st)(acc + j, s0);
        KC(st)(acc + j + KC_VW, s1);
    }
    for (; j < n; j += KC_VW) {
        VF s0 = KC(ld)(acc + j);
        const float *b = B + j;
        for (int64_t k = 0; k < K; k++, b += ldb) KC_MACH(s0, KC(splat)(x[k]), KC(ld)(b));
        KC(st)(acc + j, s0);
    }
}
