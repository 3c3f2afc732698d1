#!/usr/bin/env bash
# The refactor fixtures (tests/fixtures/refactor, Debian-PyTorch exports) through litegpu
# convert + run against PyTorch's own outputs (check.sh), counted as one suite.
set -u
cd "$(dirname "$0")/../.."
out=$(bash tests/fixtures/refactor/check.sh 2>&1); rc=$?
printf '%s\n' "$out"
pass=$(grep -c '^PASS' <<<"$out"); fail=$(grep -c '^FAIL' <<<"$out")
if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi
echo "refactor_fixtures: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
