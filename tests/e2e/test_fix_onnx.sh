#!/usr/bin/env bash
# The seed's patterns as PyTorch exports (tests/fixtures/onnx/, gen.py) through `litegpu
# convert` then `litegpu fix --split` (mldrift, every GPU family's rules): each must end READY
# (exit 0: one model, or a split whose GPU parts are all ready), and `litegpu run` on the
# result (the fixed model, or OUT.split.json's chain) must match PyTorch's outputs within
# 1e-4 of the output magnitude with correlation >= 0.99999 (tests/fixtures/onnx/compare.py).
# Integer outputs (top-k indices) exactly.
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
F=tests/fixtures/onnx
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
mapfile -t rows < <(tail -n +2 "$F/manifest.tsv")
for row in "${rows[@]}"; do
    IFS=$'\t' read -r name file opset ins outs covers sha <<<"$row"
    n=${file%.onnx}
    if ! "$LG" convert "$F/$file" -o "$T/$n.tflite" >/dev/null 2>"$T/err"; then bad "$file: convert" "$(cat "$T/err")"; continue; fi
    "$LG" fix "$T/$n.tflite" -o "$T/$n.fixed.tflite" --split >"$T/$n.fix.txt" 2>"$T/err"; rc=$?
    if [ "$rc" != 0 ]; then bad "$file: fix --split" "exit $rc: $(grep -A3 '^left' "$T/$n.fix.txt" | head -c 400) $(head -c 200 "$T/err")"; continue; fi
    run="$T/$n.fixed.tflite"; how="ready"
    if [ -f "$T/$n.fixed.split.json" ]; then run="$T/$n.fixed.split.json"; how="split ($(grep -o '[0-9]* parts\?' "$T/$n.fix.txt" | head -n 1))"; fi
    args=(); k=0
    for spec in $ins; do args+=(--input "$k=$F/$name.input_$k.npy"); k=$((k + 1)); done
    if ! "$LG" run "$run" "${args[@]}" --out-dir "$T/$n.out" >/dev/null 2>"$T/err"; then bad "$file: run" "$(cat "$T/err")"; continue; fi
    good=1; detail=""
    k=0
    for spec in $outs; do
        if ! r=$(python3 "$F/compare.py" "$F/$name.output_$k.npy" "$T/$n.out/output_$k.npy" 1e-4 0.99999 2>&1); then good=0; detail="output_$k: $r"; fi
        k=$((k + 1))
    done
    passes=$(grep -E '^  [a-z0-9-]+ +\(.*[0-9] rewrites?,' "$T/$n.fix.txt" | awk '{print $1}' | sort -u | paste -sd, -)
    if [ "$good" = 1 ]; then ok "$file: $how after fix (${passes:-no rewrite}), matches PyTorch"
    else bad "$file: fixed model vs PyTorch" "$detail"; fi
done
echo "fix_onnx: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
