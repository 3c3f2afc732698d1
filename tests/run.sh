#!/usr/bin/env bash
# Runs every test suite and prints one closing line "N passed, N failed" (the sum over
# suites). Each suite prints its own "<suite>: N passed, N failed" line and exits non-zero
# on failure; a suite that exits non-zero without such a line counts as one failure.
# Usage: tests/run.sh [PATTERN]   (only e2e scripts whose name contains PATTERN)
set -u
cd "$(dirname "$0")/.."
pattern="${1:-}"
total_pass=0
total_fail=0
failed_suites=()
log_dir=build/test-logs
mkdir -p "$log_dir"

run_suite() {
    local name="$1"; shift
    local log="$log_dir/$name.log"
    local start end rc line p f
    start=$(date +%s)
    "$@" >"$log" 2>&1
    rc=$?
    end=$(date +%s)
    line=$(grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -n "$line" ]; then
        p=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
        f=$(sed -E 's/.*passed, ([0-9]+) failed.*/\1/' <<<"$line")
    else
        p=0; f=0
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    printf '%-28s %4d passed %3d failed  (%ds)\n' "$name" "$p" "$f" "$((end - start))"
    if [ "$f" -ne 0 ]; then
        failed_suites+=("$name")
        echo "---- $log (failures) ----"
        grep -E 'FAIL|error|ERROR|Sanitizer|runtime error' "$log" | head -n 40
        echo "----"
    fi
}

if [ -z "$pattern" ]; then
    run_suite generated make -s check-gen
    run_suite unit build/test_unit
    run_suite unit-asan-ubsan build/san/test_unit
fi
for t in tests/e2e/test_*.sh; do
    [ -e "$t" ] || continue
    n=$(basename "$t" .sh)
    n=${n#test_}
    if [ -n "$pattern" ] && [[ "$n" != *"$pattern"* ]]; then continue; fi
    run_suite "$n" bash "$t"
done

if [ "${#failed_suites[@]}" -ne 0 ]; then
    echo "failed suites: ${failed_suites[*]} (logs in $log_dir/)"
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
