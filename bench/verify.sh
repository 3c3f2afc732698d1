#!/usr/bin/env bash
# bench/verify.sh [--record] -- how long `litegpu verify` takes on the five corpus models in
# one browser session (ML Drift on Chromium's software WebGPU adapter), fp32 and fp16, and
# the per-model first run (shader compilation) and warm run times the harness reports.
set -euo pipefail
cd "$(dirname "$0")/.."
record=0
[ "${1:-}" = "--record" ] && record=1
make -s all >/dev/null
scripts/fetch-corpus.sh build/corpus >/dev/null
models=(face_detection_short_range face_detection_full_range_sparse selfie_segmentation hand_landmark_lite pose_landmark_lite)
paths=(); for m in "${models[@]}"; do paths+=("build/corpus/$m.tflite"); done
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
for prec in fp32 fp16; do
    s=$(date +%s.%N)
    build/litegpu verify --json --precision "$prec" "${paths[@]}" >"$T/$prec.json" 2>/dev/null || true
    e=$(date +%s.%N)
    python3 - "$T/$prec.json" "$prec" "$s" "$e" <<'PY' | tee -a "$T/summary.txt"
import json, sys
r = json.load(open(sys.argv[1])); prec = sys.argv[2]; wall = float(sys.argv[4]) - float(sys.argv[3])
print(f"verify --precision {prec}: {len(r['models'])} models in {wall:.1f} s (one browser session)")
for m in r["models"]:
    print(f"  {m['model'].split('/')[-1]:<42} first run {m['first_run_ms']:8.0f} ms  warm run {m['run_ms']:7.0f} ms"
          f"  fully on GPU: {m['fully_on_gpu']}")
PY
done
if [ "$record" = 1 ]; then
    out="bench/results/$(date +%F)-verify.txt"
    { echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, git $(git rev-parse --short HEAD)"; cat "$T/summary.txt"; } > "$out"
    echo "recorded $out"
fi
