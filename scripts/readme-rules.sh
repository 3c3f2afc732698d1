#!/usr/bin/env bash
# Regenerate (default) or check (--check) the generated tables in README.md: the rule
# table from the checker's own table (`litegpu check --list-rules --markdown`, between the
# rules:begin/end markers) and the fix table from the passes and fix_why.c (`litegpu fix
# --list --markdown`, between the fix:begin/end markers), and the ONNX op table (`litegpu
# convert --list-onnx-ops --markdown`, onnx-ops:begin/end).
set -euo pipefail
cd "$(dirname "$0")/.."
LG=${LG:-build/litegpu}
rules=$("$LG" check --list-rules --markdown)
fix=$("$LG" fix --list --markdown)
onnx=$("$LG" convert --list-onnx-ops --markdown)
new=$(awk -v rules="$rules" -v fix="$fix" -v onnx="$onnx" '
    /<!-- rules:begin -->/ { print; print rules; skip = 1; next }
    /<!-- rules:end -->/ { skip = 0 }
    /<!-- fix:begin -->/ { print; print fix; skip = 1; next }
    /<!-- fix:end -->/ { skip = 0 }
    /<!-- onnx-ops:begin -->/ { print; print onnx; skip = 1; next }
    /<!-- onnx-ops:end -->/ { skip = 0 }
    !skip { print }' README.md)
if [ "${1:-}" = "--check" ]; then
    if [ "$new" = "$(cat README.md)" ]; then echo "readme: 1 passed, 0 failed"; exit 0; fi
    echo "FAIL README.md's rule or fix table differs from 'litegpu check --list-rules --markdown' / 'litegpu fix --list --markdown' (run scripts/readme-rules.sh)"
    echo "readme: 0 passed, 1 failed"
    exit 1
fi
printf '%s\n' "$new" > README.md.tmp && mv README.md.tmp README.md
