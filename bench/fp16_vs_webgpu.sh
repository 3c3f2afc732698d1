#!/usr/bin/env bash
# bench/fp16_vs_webgpu.sh [--record] -- which of litegpu's precision modes does the real ML
# Drift delegate's fp16 (LiteRT.js WebGPU on SwiftShader) match? For the five corpus models
# and a LayerNorm whose activations reach |x| ~ 175, run the delegate with precision fp16 and
# `litegpu run` in f16, f32_f16 and f32 on the same `pattern` input, and print the Pearson
# correlation (and max relative error) of each of our outputs against the delegate's.
set -euo pipefail
cd "$(dirname "$0")/.."
record=0
[ "${1:-}" = "--record" ] && record=1
make -s all >/dev/null
scripts/fetch-corpus.sh build/corpus >/dev/null
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cc -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -o "$T/mk" tests/tools/make_rule_models.c build/liblitegpu.a -lm
mkdir -p "$T/rules" && "$T/mk" "$T/rules" >/dev/null
models=(build/corpus/face_detection_short_range.tflite build/corpus/selfie_segmentation.tflite
        build/corpus/hand_landmark_lite.tflite build/corpus/pose_landmark_lite.tflite
        "$T/rules/fp16__layernorm.tflite")
node --no-liftoff peers/verify/verify.js --precision fp16 --fill pattern --out "$T/gpu" -- "${models[@]}" >"$T/gpu.jsonl" 2>"$T/gpu.err"
for m in "${models[@]}"; do
    n=$(basename "$m" .tflite)
    mkdir -p "$T/lg/$n"
    for p in f16 f32_f16 f32; do
        build/litegpu run "$m" --fill pattern --precision "$p" --out "$T/lg/$n/$p" >/dev/null
    done
done
python3 - "$T" "${models[@]}" <<'PY' | tee "$T/table.txt"
import array, ast, json, math, os, struct, sys
T = sys.argv[1]
def load(path):
    d = open(path, 'rb').read()
    hl = struct.unpack('<H', d[8:10])[0] if d[6] == 1 else struct.unpack('<I', d[8:12])[0]
    st = 10 if d[6] == 1 else 12
    a = array.array('f'); a.frombytes(d[st + hl:]); return a
def metrics(ref, x):
    pairs = [(r, v) for r, v in zip(ref, x) if math.isfinite(r)]
    if any(not math.isfinite(v) for _, v in pairs): return "non-finite"
    n = len(pairs); mr = sum(r for r, _ in pairs) / n; mv = sum(v for _, v in pairs) / n
    sr = sum((r - mr) ** 2 for r, _ in pairs); sv = sum((v - mv) ** 2 for _, v in pairs)
    cov = sum((r - mr) * (v - mv) for r, v in pairs)
    corr = cov / math.sqrt(sr * sv) if sr > 0 and sv > 0 else float('nan')
    mag = max(abs(r) for r, _ in pairs) or 1.0
    rel = max(abs(r - v) for r, v in pairs) / mag
    return f"{corr:.6f} ({rel:.2g})"
reports = [json.loads(l) for l in open(os.path.join(T, 'gpu.jsonl')) if l.startswith('{')]
print("| model / output | ours f16 | ours f32_f16 | ours f32 |")
print("|---|---|---|---|")
for rep, m in zip(reports, sys.argv[2:]):
    n = os.path.basename(m)[:-7]
    for o in rep["outputs"]:
        g = o["gpu_file"] if o["gpu_file"].startswith('/') else os.path.join(T, 'gpu', o["gpu_file"])
        gpu = load(g)
        cells = [metrics(gpu, load(os.path.join(T, 'lg', n, p, f"output_{o['index']}.npy"))) for p in ("f16", "f32_f16", "f32")]
        print(f"| {n} {o['index']} | " + " | ".join(cells) + " |")
PY
if [ "$record" = 1 ]; then
    out="bench/results/$(date +%F)-fp16-vs-webgpu.md"
    { echo "# $(date -u +%FT%TZ), git $(git rev-parse --short HEAD): correlation (max rel error) of litegpu run vs ML Drift WebGPU fp16, pattern input"; cat "$T/table.txt"; } > "$out"
    echo "recorded $out"
fi
