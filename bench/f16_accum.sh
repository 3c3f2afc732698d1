#!/usr/bin/env bash
# bench/f16_accum.sh [--record] -- the verdict of `litegpu compare MODEL --precision f16` on the
# five corpus models and the examples, with the pattern input and with random:1 (compare's
# default), one line per model: verdict, worst output and its score, the first divergent op and
# the first overflow event. The per-op accumulation rules these verdicts rest on are in
# README.md, "The GPU we emulate". --record writes bench/results/DATE-f16-accum.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
record=0
[ "${1:-}" = "--record" ] && record=1
make -s build/litegpu >/dev/null
models=(build/corpus/face_detection_short_range.tflite build/corpus/face_detection_full_range_sparse.tflite
        build/corpus/selfie_segmentation.tflite build/corpus/hand_landmark_lite.tflite
        build/corpus/pose_landmark_lite.tflite examples/tiny_convnet.tflite examples/blocked_net.tflite
        examples/cleanup_net.tflite examples/layernorm_512.tflite)
run() {
    local m=$1 fill=$2 out
    out=$(build/litegpu compare "$m" --precision f16 "${@:3}" --threads 2 2>&1 || true)
    local verdict worst first ovf
    verdict=$(sed -n 's/^verdict: \([A-Z_]*\).*/\1/p' <<<"$out")
    worst=$(sed -n 's/^verdict: [A-Z_]*; worst output \(.*\)$/\1/p' <<<"$out" | cut -c1-90)
    first=$(sed -n 's/^first divergent op: \([0-9]* [A-Z_0-9a-z]*\).*/\1/p' <<<"$out")
    ovf=$( (grep -A1 '^overflow events' <<<"$out" || true) | sed -n '2s/^ *op \([0-9]* [A-Z_0-9a-z]*\).*/\1/p')
    printf '%-36s %-8s %-9s %-22s %-24s %s\n' "$(basename "$m" .tflite)" "$fill" "${verdict:-ERROR}" \
        "${first:--}" "${ovf:--}" "${worst:--}"
}
T=$(mktemp); trap 'rm -f "$T"' EXIT
{
    printf '%-36s %-8s %-9s %-22s %-24s %s\n' model input verdict "first divergent op" "first overflow" "worst output"
    for m in "${models[@]}"; do
        run "$m" pattern --fill pattern
        run "$m" random:1
        if [ "$(basename "$m")" = layernorm_512.tflite ]; then run "$m" file --input 0=examples/layernorm_input.npy; fi
    done
} | tee "$T"
if [ $record = 1 ]; then
    mkdir -p bench/results
    dst="bench/results/$(date +%Y-%m-%d)-f16-accum.txt"
    { echo "# bench/f16_accum.sh, $(git rev-parse --short HEAD)"; cat "$T"; } >"$dst"
    echo "wrote $dst"
fi
