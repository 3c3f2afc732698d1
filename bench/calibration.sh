#!/usr/bin/env bash
# bench/calibration.sh [--record] -- how much of the real GPU delegate's fp16 error does our
# f32_f16 emulation explain? For every corpus model, run ML Drift (LiteRT.js WebGPU on
# SwiftShader: fp16 storage, fp32 arithmetic) with `litegpu verify --precision fp16 --fill
# pattern --out`, then `litegpu run` in f32 and f32_f16 on the very input the delegate got, and
# print per output (tests/tools/calib_cmp.c):
#   d_f32 / d_emu   max |gpu - f32| / max |gpu - f32_f16|
#   explained       1 - rms(gpu - f32_f16) / rms(gpu - f32)  (1: predicted exactly, 0: no
#                   better than fp32, < 0: worse)
#   corr            correlation of (f32_f16 - f32) with (gpu - f32)
#   verify/compare  lg_judge(CPU, GPU) and lg_judge(f32, f32_f16): the verdicts of `verify
#                   --precision fp16` and `compare --precision f32_f16`, and whether they agree.
# face_detection_full_range_sparse is not fully delegated (DENSIFY runs on the CPU): its GPU
# numbers vary run to run and are printed but marked "(partial)".
# --record writes bench/results/DATE-calibration.md.
set -euo pipefail
cd "$(dirname "$0")/.."
record=0
[ "${1:-}" = "--record" ] && record=1
make -s build/litegpu build/liblitegpu.a >/dev/null
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cc -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -o "$T/calib_cmp" tests/tools/calib_cmp.c build/liblitegpu.a -lm
models=(face_detection_short_range face_detection_full_range_sparse selfie_segmentation
        hand_landmark_lite pose_landmark_lite)
paths=(); for m in "${models[@]}"; do paths+=("build/corpus/$m.tflite"); done
build/litegpu verify --precision fp16 --fill pattern --out "$T/gpu" "${paths[@]}" >"$T/verify.txt" 2>&1 || true
{
    for m in "${models[@]}"; do
        d="$T/gpu/$m"
        [ -f "$d/input_0.npy" ] || { echo "$m: no delegate output"; continue; }
        mkdir -p "$T/lg/$m"
        for p in f32 f32_f16; do
            build/litegpu run "build/corpus/$m.tflite" --input "0=$d/input_0.npy" --precision "$p" --out "$T/lg/$m/$p" >/dev/null
        done
        tag=""; grep -q "^build/corpus/$m.tflite .*NOT FULLY ON THE GPU" "$T/verify.txt" && tag=" (partial)"
        for g in "$d"/gpu/output_*.npy; do
            f=$(basename "$g")
            echo "$("$T/calib_cmp" "$m/${f%.npy}" "$g" "$d/cpu/$f" "$T/lg/$m/f32/$f" "$T/lg/$m/f32_f16/$f")$tag"
        done
    done
} | tee "$T/table.txt"
if [ "$record" = 1 ]; then
    out="bench/results/$(date +%F)-calibration.md"
    { echo "# $(date -u +%FT%TZ), git $(git rev-parse --short HEAD): litegpu f32_f16 (and f32) vs ML Drift WebGPU fp16, pattern input (bench/calibration.sh)"
      echo; echo '```'; cat "$T/table.txt"; echo '```'; } > "$out"
    echo "recorded $out"
fi
