#!/usr/bin/env bash
# Shape inference (the op table, src/ops) against the interpreter's computed shapes and the
# stored shapes, on every tensor of the five corpus models and the example models
# (tests/tools/infer_check.c). Every model must be fully consistent.
set -u
cd "$(dirname "$0")/../.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! cc -std=c11 -O1 -Iinclude -o "$T/infer_check" tests/tools/infer_check.c build/liblitegpu.a -lm -lpthread 2>"$T/cc.err"; then
    echo "FAIL compile infer_check: $(head -c 600 "$T/cc.err")"
    echo "shapes: 0 passed, 1 failed"
    exit 1
fi
models=(build/corpus/*.tflite examples/*.tflite)
if [ "${#models[@]}" -lt 7 ] || [ ! -e "${models[0]}" ]; then
    echo "FAIL: expected the 5 corpus models (make corpus) and the examples, found ${#models[@]}"
    echo "shapes: 0 passed, 1 failed"
    exit 1
fi
out=$("$T/infer_check" "${models[@]}")
rc=$?
echo "$out"
# the last line of infer_check is the suite's own "N passed, N failed" line, renamed
echo "$out" | tail -n 1 | sed 's/^infer_check:/shapes:/'
exit $rc
