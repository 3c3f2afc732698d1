/* calib_cmp: how much of the real GPU delegate's error does our emulation explain?
 *
 *   calib_cmp NAME GPU.npy CPU.npy F32.npy EMU.npy
 *
 * GPU: the delegate's fp16 output (litegpu verify --precision fp16 --out), CPU: LiteRT's CPU
 * output of the same run, F32 / EMU: `litegpu run --precision f32` / `f32_f16` on the same
 * input. Prints one line (key=value, for bench/calibration.sh and tests/e2e/test_calibration.sh):
 *
 *   d_f32      max |gpu - f32|          rms_f32   rms(gpu - f32)
 *   d_emu      max |gpu - emu|          rms_emu   rms(gpu - emu)
 *   explained  1 - rms_emu / rms_f32    (1: the emulation predicts the delegate exactly; 0: no
 *              better than fp32; < 0: worse). NaN when the delegate equals f32 exactly.
 *   corr       Pearson correlation of (emu - f32) with (gpu - f32): do the errors we predict
 *              point the way the delegate's do?
 *   verify     lg_judge(CPU, GPU) passes (what `verify` judges), compare: lg_judge(F32, EMU)
 *              passes (what `compare --precision f32_f16` judges), agree = both the same.
 * Exit 0, or 2 on an unreadable file or mismatched sizes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lg/compare.h"
#include "lg/npy.h"

static float *load(const char *path, int64_t *n) {
    lg_npy a;
    lg_error err;
    float *f = NULL;
    if (lg_npy_read_file(path, &a, &err) != LG_OK) {
        fprintf(stderr, "calib_cmp: %s\n", err.msg);
        return NULL;
    }
    if (lg_npy_to_f32(&a, &f, &err) != LG_OK) fprintf(stderr, "calib_cmp: %s: %s\n", path, err.msg);
    *n = a.numel;
    lg_npy_free(&a);
    return f;
}

static double rms_diff(const float *a, const float *b, int64_t n, double *max_abs) {
    double s = 0, mx = 0;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(a[i]) || !isfinite(b[i])) continue;
        double d = (double)a[i] - b[i];
        s += d * d;
        if (fabs(d) > mx) mx = fabs(d);
        k++;
    }
    *max_abs = mx;
    return k ? sqrt(s / (double)k) : NAN;
}

/* Pearson correlation of (x - r) with (y - r). */
static double err_corr(const float *r, const float *x, const float *y, int64_t n) {
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(r[i]) || !isfinite(x[i]) || !isfinite(y[i])) continue;
        double a = (double)x[i] - r[i], b = (double)y[i] - r[i];
        sx += a; sy += b; sxx += a * a; syy += b * b; sxy += a * b;
        k++;
    }
    if (k < 2) return NAN;
    double vx = sxx - sx * sx / (double)k, vy = syy - sy * sy / (double)k;
    return vx > 0 && vy > 0 ? (sxy - sx * sy / (double)k) / sqrt(vx * vy) : NAN;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: calib_cmp NAME GPU.npy CPU.npy F32.npy EMU.npy\n");
        return 2;
    }
    int64_t n[4];
    float *v[4];
    for (int i = 0; i < 4; i++)
        if (!(v[i] = load(argv[2 + i], &n[i]))) return 2;
    for (int i = 1; i < 4; i++)
        if (n[i] != n[0]) {
            fprintf(stderr, "calib_cmp: %s has %lld values, %s %lld\n", argv[2 + i], (long long)n[i], argv[2],
                    (long long)n[0]);
            return 2;
        }
    const float *gpu = v[0], *cpu = v[1], *f32 = v[2], *emu = v[3];
    double d_f32, d_emu;
    double r_f32 = rms_diff(gpu, f32, n[0], &d_f32), r_emu = rms_diff(gpu, emu, n[0], &d_emu);
    double explained = r_f32 > 0 ? 1.0 - r_emu / r_f32 : NAN;
    double corr = err_corr(f32, emu, gpu, n[0]);
    lg_verdict vv, vc;
    lg_judge_values(cpu, gpu, n[0], NULL, NULL, &vv);
    lg_judge_values(f32, emu, n[0], NULL, NULL, &vc);
    printf("%s n=%lld d_f32=%.4g d_emu=%.4g rms_f32=%.4g rms_emu=%.4g explained=%.3f corr=%.3f "
           "verify=%s verify_score=%.3g compare=%s compare_score=%.3g agree=%s\n",
           argv[1], (long long)n[0], d_f32, d_emu, r_f32, r_emu, explained, corr, vv.pass ? "pass" : "fail",
           vv.score, vc.pass ? "pass" : "fail", vc.score, vv.pass == vc.pass ? "yes" : "no");
    for (int i = 0; i < 4; i++) free(v[i]);
    return 0;
}
