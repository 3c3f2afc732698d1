#!/usr/bin/env bash
# Peer parity of `litegpu run` (fp32) with LiteRT.js on the five corpus models, on the `half`
# and `pattern` inputs: every output's max abs difference must be at most 1e-5 of its
# largest magnitude (tfjs-tflite and LiteRT.js agree to 3.9e-5 of it, peers.md). The test
# runs LiteRT.js itself; it reads no stored numbers.
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
C=build/corpus
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
models=(face_detection_short_range face_detection_full_range_sparse selfie_segmentation
        hand_landmark_lite pose_landmark_lite)
paths=(); for m in "${models[@]}"; do paths+=("$C/$m.tflite"); done
if ! node --no-liftoff peers/litert_run.js --fill half,pattern --out "$T/peer" "${paths[@]}" >"$T/peer.log" 2>&1; then
    echo "FAIL litert.js could not run the corpus: $(tail -n 3 "$T/peer.log")"
    echo "run_peers: 0 passed, 1 failed"; exit 1
fi
for m in "${models[@]}"; do
    for fill in half pattern; do
        out="$T/lg/$m/$fill"
        mkdir -p "$(dirname "$out")"
        if ! "$LG" run "$C/$m.tflite" --fill "$fill" --out "$out" >"$T/run.log" 2>&1; then
            echo "FAIL $m $fill: litegpu run: $(cat "$T/run.log")"; fail=$((fail + 1)); continue
        fi
        for ref in "$T/peer/$m/$fill"/output_*.npy; do
            k=$(basename "$ref")
            if res=$(python3 tests/e2e/npy_compare.py "$ref" "$out/$k" 1e-5); then
                echo "PASS $m $fill $k: $res"; pass=$((pass + 1))
            else
                echo "FAIL $m $fill $k: $res"; fail=$((fail + 1))
            fi
        done
    done
done
echo "run_peers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
