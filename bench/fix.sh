#!/usr/bin/env bash
# bench/fix.sh [--record] [--runs N] -- what does `litegpu fix` cost, in units of one inference?
#
# On the largest models at hand: resnet50 converted from ONNX (bench/onnx_convert.sh --export
# makes build/bench/resnet50.onnx, 102 MB; its padded max-pool stem is a padv2-nonzero blocker,
# so fix rewrites one op, proves parity on 3 inputs and runs the fp16 hardening gate) and the
# corpus' face_detection_full_range_sparse (46 DENSIFYs folded) and pose_landmark_lite (ready:
# check + the hardening gate only). Per round, in a rotating order: `litegpu fix MODEL -o OUT
# --force` and `litegpu run MODEL` (one fp32 inference at 1 thread, load included), each a fresh
# process, wall time from /usr/bin/time. Reported: medians, and fix/run (how many inferences a
# fix costs). The machine is shared (2 cores): only the ratios, measured in one run, count.
set -euo pipefail
cd "$(dirname "$0")/.."
record=0; runs=3
while [ $# -gt 0 ]; do
    case "$1" in
        --record) record=1 ;;
        --runs) runs=$2; shift ;;
        *) echo "usage: bench/fix.sh [--record] [--runs N]" >&2; exit 2 ;;
    esac
    shift
done
make -s build/litegpu >/dev/null
scripts/fetch-corpus.sh build/corpus >/dev/null
mkdir -p build/bench
[ -f build/bench/resnet50.onnx ] || bench/onnx_convert.sh --export resnet50 >/dev/null
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cp build/litegpu "$T/litegpu"
build/litegpu convert build/bench/resnet50.onnx -o "$T/resnet50.tflite" >/dev/null
models=("$T/resnet50.tflite" build/corpus/face_detection_full_range_sparse.tflite build/corpus/pose_landmark_lite.tflite)
wall() { /usr/bin/time -f '%e' -o "$T/t" "$@" >/dev/null 2>&1 || true; cat "$T/t"; }
"$T/litegpu" fix "${models[0]}" -o "$T/warm.tflite" --force >/dev/null 2>&1 || true
{
echo "# bench/fix.sh, $(date -u +%Y-%m-%d), $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
printf '%-40s %10s %10s %8s  %s\n' model "fix s" "run s" "fix/run" "per round"
for m in "${models[@]}"; do
    fs=(); rs=(); ratios=()
    for ((r = 0; r < runs; r++)); do
        if [ $((r % 2)) = 0 ]; then
            f=$(wall "$T/litegpu" fix "$m" -o "$T/out.tflite" --force); u=$(wall "$T/litegpu" run "$m")
        else
            u=$(wall "$T/litegpu" run "$m"); f=$(wall "$T/litegpu" fix "$m" -o "$T/out.tflite" --force)
        fi
        fs+=("$f"); rs+=("$u"); ratios+=("$(awk -v a="$f" -v b="$u" 'BEGIN{printf "%.1f", a/b}')")
    done
    med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }
    mf=$(med "${fs[@]}"); mr=$(med "${rs[@]}")
    printf '%-40s %10s %10s %8s  %s\n' "$(basename "$m")" "$mf" "$mr" "$(awk -v a="$mf" -v b="$mr" 'BEGIN{printf "%.1f", a/b}')" "${ratios[*]}"
done
} | tee "$T/table.txt"
if [ "$record" = 1 ]; then
    out=bench/results/$(date -u +%Y-%m-%d)-fix.txt
    cp "$T/table.txt" "$out"
    echo "recorded $out"
fi
