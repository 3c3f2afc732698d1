#!/usr/bin/env bash
# `make demo` must keep working: run scripts/demo.sh (every step's exit code is asserted by the
# script itself, so a changed verdict or a refused option fails it).
cd "$(dirname "$0")/../.." || exit 1
if out=$(bash scripts/demo.sh 2>&1) && grep -q "^demo: ok$" <<<"$out"; then
    echo "PASS make demo"
    echo "demo: 1 passed, 0 failed"
    exit 0
fi
echo "$out" | tail -n 20
echo "FAIL make demo (scripts/demo.sh)"
echo "demo: 0 passed, 1 failed"
exit 1
