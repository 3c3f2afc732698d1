/* Part of the conv family's vector template (k_conv_tmpl.h includes it; no include guard on
 * purpose: compiled once per target with KC(name), KC_VW and KC_F16C set): the fp32 GEMMs (XNNPACK's order, one chain or "c4") and the fp32 transposed conv. */

/* ------------------------------------------------------------------ fp32 GEMM */

/* C[m*ldc + n] = clamp(bias[n] + sum_k A[m*lda + k] * W(n, k)), W packed by lgk_cv_pack_b in
   panels of 16 columns (the last one 8 or 16 wide, zero padded): panel-major, then k, then
   the panel's columns. Each output is one chain acc = bias (or 0); acc = acc + a*w for k
   ascending, a product and an add per step (no FMA), which is what XNNPACK computes on wasm
   SIMD, so fp32 results match LiteRT.js bit for bit. Register tiles: 6 rows x 16 columns
   (8 lanes) or 3 x 16 (4 lanes); rows past M repeat the last row and are not stored. */
#if KC_VW == 8
#define KC_MR 6
#else
#define KC_MR 3
#endif
#define KC_NV (16 / KC_VW) /* vectors across a 16-wide panel */


static void KC(gemm)(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *Bp, float *C,
                     int64_t ldc, const float *bias, lgk_clamp cl) {
    const VF z = KC(splat)(0), lo = KC(splat)(cl.lo), hi = KC(splat)(cl.hi);
    for (int64_t m0 = 0; m0 < M; m0 += KC_MR) {
        const int64_t mr = M - m0 < KC_MR ? M - m0 : KC_MR;
        const float *ar[KC_MR];
        for (int r = 0; r < KC_MR; r++) ar[r] = A + (m0 + (r < mr ? r : mr - 1)) * lda;
        const float *bp = Bp;
        for (int64_t j0 = 0; j0 < N;) {
            const int64_t rem = N - j0, pw = rem <= 8 ? 8 : 16, nv = pw / KC_VW; /* vectors in the panel */
            VF init[KC_NV], acc[KC_MR][KC_NV];
            for (int v = 0; v < KC_NV; v++) init[v] = bias && v < nv ? KC(ld_part)(bias + j0 + v * KC_VW, rem - v * KC_VW) : z;
            const float *b = bp;
#if KC_VW == 8
            const float *a0 = ar[0], *a1 = ar[1], *a2 = ar[2], *a3 = ar[3], *a4 = ar[4], *a5 = ar[5];
            if (nv == 2) {
                VF c00 = init[0], c01 = init[1], c10 = init[0], c11 = init[1], c20 = init[0], c21 = init[1];
                VF c30 = init[0], c31 = init[1], c40 = init[0], c41 = init[1], c50 = init[0], c51 = init[1];
                for (int64_t k = 0; k < K; k++, b += 16) {
                    const VF b0 = KC(ld)(b), b1 = KC(ld)(b + 8);
                    VF x;
                    x = KC(splat)(a0[k]); c00 = c00 + x * b0; c01 = c01 + x * b1;
                    x = KC(splat)(a1[k]); c10 = c10 + x * b0; c11 = c11 + x * b1;
                    x = KC(splat)(a2[k]); c20 = c20 + x * b0; c21 = c21 + x * b1;
                    x = KC(splat)(a3[k]); c30 = c30 + x * b0; c31 = c31 + x * b1;
                    x = KC(splat)(a4[k]); c40 = c40 + x * b0; c41 = c41 + x * b1;
                    x = KC(splat)(a5[k]); c50 = c50 + x * b0; c51 = c51 + x * b1;
                }
                acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11; acc[2][0] = c20; acc[2][1] = c21;
                acc[3][0] = c30; acc[3][1] = c31; acc[4][0] = c40; acc[4][1] = c41; acc[5][0] = c50; acc[5][1] = c51;
            } else {
                VF c0 = init[0], c1 = init[0], c2 = init[0], c3 = init[0], c4 = init[0], c5 = init[0];
                for (int64_t k = 0; k < K; k++, b += 8) {
                    const VF b0 = KC(ld)(b);
                    c0 = c0 + KC(splat)(a0[k]) * b0;
                    c1 = c1 + KC(splat)(a1[k]) * b0;
                    c2 = c2 + KC(splat)(a2[k]) * b0;
                    c3 = c3 + KC(splat)(a3[k]) * b0;
                    c4 = c4 + KC(splat)(a4[k]) * b0;
                    c5 = c5 + KC(splat)(a5[k]) * b0;
                }
                acc[0][0] = c0; acc[1][0] = c1; acc[2][0] = c2; acc[3][0] = c3; acc[4][0] = c4; acc[5][0] = c5;
            }
#else
            const float *a0 = ar[0], *a1 = ar[1], *a2 = ar[2];
            if (nv == 4) {
                VF c00 = init[0], c01 = init[1], c02 = init[2], c03 = init[3];
                VF c10 = init[0], c11 = init[1], c12 = init[2], c13 = init[3];
                VF c20 = init[0], c21 = init[1], c22 = init[2], c23 = init[3];
                for (int64_t k = 0; k < K; k++, b += 16) {
                    const VF b0 = KC(ld)(b), b1 = KC(ld)(b + 4), b2 = KC(ld)(b + 8), b3 = KC(ld)(b + 12);
                    VF x;
                    x = KC(splat)(a0[k]); c00 = c00 + x * b0; c01 = c01 + x * b1; c02 = c02 + x * b2; c03 = c03 + x * b3;
                    x = KC(splat)(a1[k]); c10 = c10 + x * b0; c11 = c11 + x * b1; c12 = c12 + x * b2; c13 = c13 + x * b3;
                    x = KC(splat)(a2[k]); c20 = c20 + x * b0; c21 = c21 + x * b1; c22 = c22 + x * b2; c23 = c23 + x * b3;
                }
                acc[0][0] = c00; acc[0][1] = c01; acc[0][2] = c02; acc[0][3] = c03;
                acc[1][0] = c10; acc[1][1] = c11; acc[1][2] = c12; acc[1][3] = c13;
                acc[2][0] = c20; acc[2][1] = c21; acc[2][2] = c22; acc[2][3] = c23;
            } else {
                VF c00 = init[0], c01 = init[1], c10 = init[0], c11 = init[1], c20 = init[0], c21 = init[1];
                for (int64_t k = 0; k < K; k++, b += 8) {
                    const VF b0 = KC(ld)(b), b1 = KC(ld)(b + 4);
                    VF x;
                    x = KC(splat)(a0[k]); c00 = c00 + x * b0; c01 = c01 + x * b1;
                    x = KC(splat)(a1[k]); c10 = c10 + x * b0; c11 = c11 + x * b1;
                    x = KC(splat)(a2[k]); c20 = c20 + x * b0; c21 = c21 + x * b1;
                }
                acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11; acc[2][0] = c20; acc[2][1] = c21;
            }
#endif
            for (int64_t r = 0; r < mr; r++) {
                float *c = C + (m0 + r) * ldc + j0;
                for (int64_t v = 0; v < nv; v++) {
                    VF o = acc[r][v];
                    if (cl.on) o = KC(clampv)(o, lo, hi);
                    KC(st_part)(c + v * KC_VW, o, rem - v * KC_VW);
                }
            }
            bp += K * pw;
            j0 += pw;
        }
    }
}
#undef KC_MR
#undef KC_NV

/* The same product with XNNPACK's "c4" arithmetic (see lgk_cv_gemm_c4): per output four
   partial sums, p[0] = bias, p[1..3] = 0; k runs through segments of seg values (a conv's
   taps), each in groups of 4 with value j of a group added to p[j] (a group's missing values,
   and in a last partial group those whose weight is 0, add +0); the output
   (p[0] + p[2]) + (p[1] + p[3]). Two rows x one vector of columns per step. */
static void KC(gemm_c4)(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *Bp, float *C,
                        int64_t ldc, const float *bias, lgk_clamp cl, int64_t seg) {
    const VF z = KC(splat)(0), lo = KC(splat)(cl.lo), hi = KC(splat)(cl.hi);
    for (int64_t m0 = 0; m0 < M; m0 += 3) {
        const int64_t mr = M - m0 < 3 ? M - m0 : 3;
        const float *a0 = A + m0 * lda, *a1 = a0 + (mr > 1 ? lda : 0), *a2 = a0 + (mr > 2 ? 2 : mr - 1) * lda;
        const float *bp = Bp;
        for (int64_t j0 = 0; j0 < N;) {
            const int64_t rem = N - j0, pw = rem <= 8 ? 8 : 16, nv = pw / KC_VW;
            for (int64_t v = 0; v < nv; v++) {
                const int64_t cnt = rem - v * KC_VW;
                if (cnt <= 0) break;
                const VF b0 = bias ? KC(ld_part)(bias + j0 + v * KC_VW, cnt) : z;
                /* pRJ: row R, partial sum J */
                VF p00 = b0, p01 = z, p02 = z, p03 = z, p10 = b0, p11 = z, p12 = z, p13 = z;
                VF p20 = b0, p21 = z, p22 = z, p23 = z;
                const float *bcol = bp + v * KC_VW;
                for (int64_t s0 = 0; s0 < K; s0 += seg) {
                    int64_t g = 0;
                    for (; g + 4 <= seg; g += 4) {
                        const int64_t k = s0 + g;
                        const float *bk = bcol + k * pw;
                        VF w = KC(ld)(bk);
                        p00 = p00 + KC(splat)(a0[k]) * w; p10 = p10 + KC(splat)(a1[k]) * w; p20 = p20 + KC(splat)(a2[k]) * w;
                        w = KC(ld)(bk + pw);
                        p01 = p01 + KC(splat)(a0[k + 1]) * w; p11 = p11 + KC(splat)(a1[k + 1]) * w; p21 = p21 + KC(splat)(a2[k + 1]) * w;
                        w = KC(ld)(bk + 2 * pw);
                        p02 = p02 + KC(splat)(a0[k + 2]) * w; p12 = p12 + KC(splat)(a1[k + 2]) * w; p22 = p22 + KC(splat)(a2[k + 2]) * w;
                        w = KC(ld)(bk + 3 * pw);
                        p03 = p03 + KC(splat)(a0[k + 3]) * w; p13 = p13 + KC(splat)(a1[k + 3]) * w; p23 = p23 + KC(splat)(a2[k + 3]) * w;
                    }
                    if (g < seg) { /* a last partial group */
                        VF q0[4], q1[4], q2[4];
                        for (int64_t j = 0; j < 4; j++) {
                            q0[j] = q1[j] = q2[j] = z;
                            if (g + j < seg) {
                                const int64_t k = s0 + g + j;
                                const VF w = KC(ld)(bcol + k * pw);
                                const VI nz = w != z;
                                q0[j] = KC(sel)(nz, KC(splat)(a0[k]) * w, z);
                                q1[j] = KC(sel)(nz, KC(splat)(a1[k]) * w, z);
                                q2[j] = KC(sel)(nz, KC(splat)(a2[k]) * w, z);
                            }
                        }
                        p00 = p00 + q0[0]; p01 = p01 + q0[1]; p02 = p02 + q0[2]; p03 = p03 + q0[3];
                        p10 = p10 + q1[0]; p11 = p11 + q1[1]; p12 = p12 + q1[2]; p13 = p13 + q1[3];
                        p20 = p20 + q2[0]; p21 = p21 + q2[1]; p22 = p22 + q2[2]; p23 = p23 + q2[3];
                    }
                }
                VF r[3] = {(p00 + p02) + (p01 + p03), (p10 + p12) + (p11 + p13), (p20 + p22) + (p21 + p23)};
                for (int64_t i = 0; i < mr; i++) {
                    VF o = r[i];
                    if (cl.on) o = KC(clampv)(o, lo, hi);
                    KC(st_part)(C + (m0 + i) * ldc + j0 + v * KC_VW, o, cnt);
                }
            }
            bp += K * pw;
            j0 += pw;
        }
    }
}

/* fp32 transposed conv as a gather, XNNPACK's arithmetic: each output acc = bias, then the
   taps that reach it with ky, then kx ascending, each tap's channels in order: one chain
   (seq), or four partial sums per tap's channel groups (c4, < 8 outputs; see gemm_c4).
   Vectorized over output channels with wt = the weights as [tap][ic][ocp]. */
/* one output pixel, vectorized over output channels */
static inline void KC(tconv_px)(const lgk_tconv_args *a, const float *in, const float *wt, int64_t ocp, const float *bias,
                                lgk_clamp cl, int c4, int64_t b, int64_t oy, int64_t ox) {
    const VF z = KC(splat)(0), lo = KC(splat)(cl.lo), hi = KC(splat)(cl.hi);
    const int64_t ic = a->ic, oc = a->oc;
    float *o = a->out + ((b * a->oh + oy) * a->ow + ox) * oc;
    int64_t c0 = 0;
    if (!c4) /* chains: 4 vectors of output channels at a time (independent chains) */
        for (; c0 + 4 * KC_VW <= oc; c0 += 4 * KC_VW) {
            VF q0 = bias ? KC(ld)(bias + c0) : z, q1 = bias ? KC(ld)(bias + c0 + KC_VW) : z;
            VF q2 = bias ? KC(ld)(bias + c0 + 2 * KC_VW) : z, q3 = bias ? KC(ld)(bias + c0 + 3 * KC_VW) : z;
            for (int64_t ky = 0; ky < a->kh; ky++) {
                const int64_t ty = oy + a->ph - ky;
                if (ty < 0 || ty % a->sh || ty / a->sh >= a->h) continue;
                for (int64_t kx = 0; kx < a->kw; kx++) {
                    const int64_t tx = ox + a->pw - kx;
                    if (tx < 0 || tx % a->sw || tx / a->sw >= a->w_) continue;
                    const float *x = in + ((b * a->h + ty / a->sh) * a->w_ + tx / a->sw) * ic;
                    const float *w = wt + (ky * a->kw + kx) * ic * ocp + c0;
                    for (int64_t c = 0; c < ic; c++, w += ocp) {
                        const VF xv = KC(splat)(x[c]);
                        q0 = q0 + xv * KC(ld)(w);
                        q1 = q1 + xv * KC(ld)(w + KC_VW);
                        q2 = q2 + xv * KC(ld)(w + 2 * KC_VW);
                        q3 = q3 + xv * KC(ld)(w + 3 * KC_VW);
                    }
                }
            }
            if (cl.on) {
                q0 = KC(clampv)(q0, lo, hi);
                q1 = KC(clampv)(q1, lo, hi);
                q2 = KC(clampv)(q2, lo, hi);
                q3 = KC(clampv)(q3, lo, hi);
            }
            KC(st)(o + c0, q0);
            KC(st)(o + c0 + KC_VW, q1);
            KC(st)(o + c0 + 2 * KC_VW, q2);
            KC(st)(o + c0 + 3 * KC_VW, q3);
        }
    for (; c0 < oc; c0 += KC_VW) {
        const int64_t cnt = oc - c0;
        const VF b0 = bias ? KC(ld_part)(bias + c0, cnt) : z;
        VF p0 = b0, p1 = z, p2 = z, p3 = z;
        for (int64_t ky = 0; ky < a->kh; ky++) {
            const int64_t ty = oy + a->ph - ky;
            if (ty < 0 || ty % a->sh) continue;
            const int64_t iy = ty / a->sh;
            if (iy >= a->h) continue;
            for (int64_t kx = 0; kx < a->kw; kx++) {
                const int64_t tx = ox + a->pw - kx;
                if (tx < 0 || tx % a->sw) continue;
                const int64_t ix = tx / a->sw;
                if (ix >= a->w_) continue;
                const float *x = in + ((b * a->h + iy) * a->w_ + ix) * ic;
                const float *w = wt + (ky * a->kw + kx) * ic * ocp + c0;
                if (!c4) {
                    for (int64_t c = 0; c < ic; c++) p0 = p0 + KC(splat)(x[c]) * KC(ld)(w + c * ocp);
                    continue;
                }
                int64_t c = 0;
                for (; c + 4 <= ic; c += 4) {
                    p0 = p0 + KC(splat)(x[c]) * KC(ld)(w + c * ocp);
                    p1 = p1 + KC(splat)(x[c + 1]) * KC(ld)(w + (c + 1) * ocp);
                    p2 = p2 + KC(splat)(x[c + 2]) * KC(ld)(w + (c + 2) * ocp);
                    p3 = p3 + KC(splat)(x[c + 3]) * KC(ld)(w + (c + 3) * ocp);
                }
                if (c < ic) {
                    VF q[4] = {z, z, z, z};
                    for (int64_t j = 0; c + j < ic; j++) {
                        const VF wv = KC(ld)(w + (c + j) * ocp);
                        q[j] = KC(sel)(wv != z, KC(splat)(x[c + j]) * wv, z);
                    }
                    p0 = p0 + q[0]; p1 = p1 + q[1]; p2 = p2 + q[2]; p3 = p3 + q[3];
                }
            }
        }
        VF v = c4 ? (p0 + p2) + (p1 + p3) : p0;
        if (cl.on) v = KC(clampv)(v, lo, hi);
        KC(st_part)(o + c0, v, cnt);
    }
}

#if KC_VW == 8
/* 8 outputs of one row and x phase (ox = ox0 + j*sw) with all their taps inside the image,
   for up to 4 output channels: lanes across the pixels, through tap8 (w: [oc][kh][kw][ic]) */
static inline void KC(tconv8)(const lgk_tconv_args *a, const float *in, const float *w, const float *bias, lgk_clamp cl,
                              int c4, int64_t b, int64_t oy, int64_t ox0) {
    const int64_t ic = a->ic, oc = a->oc, taps = a->kh * a->kw;
    VF acc[16];
    for (int64_t o = 0; o < oc; o++) {
        VF bv = KC(splat)(bias ? bias[o] : 0.0f);
        if (c4) {
            acc[o * 4] = bv;
            acc[o * 4 + 1] = acc[o * 4 + 2] = acc[o * 4 + 3] = KC(splat)(0);
        } else {
            acc[o] = bv;
        }
    }
    for (int64_t ky = 0; ky < a->kh; ky++) {
        const int64_t ty = oy + a->ph - ky;
        if (ty < 0 || ty % a->sh || ty / a->sh >= a->h) continue;
        const int64_t iy = ty / a->sh;
        for (int64_t kx = 0; kx < a->kw; kx++) {
            const int64_t tx = ox0 + a->pw - kx;
            if (tx < 0 || tx % a->sw) continue;
            const int64_t ix = tx / a->sw; /* lane j reads ix + j */
            const float *base = in + ((b * a->h + iy) * a->w_ + ix) * ic;
            if (c4) KC(tap8)(acc, base, ic, ic, w + (ky * a->kw + kx) * ic, taps * ic, oc, 1);
            else KC(tap8)(acc, base, ic, ic, w + (ky * a->kw + kx) * ic, taps * ic, oc, 0);
        }
    }
    for (int64_t o = 0; o < oc; o++) {
        VF v = c4 ? (acc[o * 4] + acc[o * 4 + 2]) + (acc[o * 4 + 1] + acc[o * 4 + 3]) : acc[o];
        if (cl.on) v = KC(clampv)(v, KC(splat)(cl.lo), KC(splat)(cl.hi));
        float t[8];
        KC(st)(t, v);
        for (int j = 0; j < 8; j++) a->out[((b * a->oh + oy) * a->ow + ox0 + j * a->sw) * oc + o] = t[j];
    }
}
#endif

/* fp32 transposed conv as a gather, XNNPACK's arithmetic: each output acc = bias, then the
   taps that reach it with ky, then kx ascending, each tap's channels in order: one chain
   (seq), or four partial sums per tap's channel groups (c4, < 8 outputs; see gemm_c4).
   Vectorized over output channels with wt = the weights as [tap][ic][ocp]; with at most 4
   output channels (AVX2), over 8 pixels of a row sharing their taps (w: the raw weights). */
static void KC(tconv_rows)(const lgk_tconv_args *a, const float *in, const float *w, const float *wt, int64_t ocp,
                           const float *bias, lgk_clamp cl, int c4, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; r++) {
        const int64_t b = r / a->oh, oy = r % a->oh;
#if KC_VW == 8
        if (a->oc <= 4) {
            /* per x phase: outputs ox = px + j*sw share the kx taps; a block of 8 is fast when
               every tap's input column is inside the row for all 8 */
            for (int64_t px = 0; px < a->sw && px < a->ow; px++) {
                int64_t n = (a->ow - px + a->sw - 1) / a->sw, j = 0;
                while (j < n) {
                    int inside = j + 8 <= n;
                    for (int64_t kx = 0; inside && kx < a->kw; kx++) {
                        int64_t t0 = px + j * a->sw + a->pw - kx; /* tx of the first lane */
                        if (t0 % a->sw) continue;                 /* (t0 % sw is the same for all lanes) */
                        int64_t i0 = t0 / a->sw;
                        if (t0 < 0 || i0 + 7 >= a->w_) inside = 0;
                    }
                    if (inside) {
                        KC(tconv8)(a, in, w, bias, cl, c4, b, oy, px + j * a->sw);
                        j += 8;
                    } else {
                        KC(tconv_px)(a, in, wt, ocp, bias, cl, c4, b, oy, px + j * a->sw);
                        j++;
                    }
                }
            }
            continue;
        }
#else
        (void)w;
#endif
        for (int64_t ox = 0; ox < a->ow; ox++) KC(tconv_px)(a, in, wt, ocp, bias, cl, c4, b, oy, ox);
    }
}
