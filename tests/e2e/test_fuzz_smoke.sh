#!/usr/bin/env bash
# test_fuzz_smoke.sh -- a short, bounded libFuzzer run of the .tflite reader.
#
# Builds build/fuzz/fuzz_tflite_read (clang, libFuzzer + ASan + UBSan; see the Makefile) and
# runs it for FUZZ_SMOKE_SECONDS (default 30) seeded with the real models (build/corpus) and
# examples/, with the dictionary fuzz/dict/tflite.dict. New inputs go to a temp dir; a
# finding (crash-*, timeout-*, oom-*, leak-*) is kept in build/fuzz/artifacts/ and fails the
# test. Replay one with `build/fuzz/fuzz_tflite_read build/fuzz/artifacts/crash-...`.
# Longer runs: `make fuzz FUZZ_SECONDS=600`.
set -uo pipefail
cd "$(dirname "$0")/../.."

secs="${FUZZ_SMOKE_SECONDS:-30}"
bin=build/fuzz/fuzz_tflite_read
art=build/fuzz/artifacts
passed=0 failed=0
finish() { echo "fuzz-smoke: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

start=$(date +%s)
mkdir -p build
# the Makefile rule does not list the shared harness header among its prerequisites
[ -e "$bin" ] && [ tests/tools/lg_harness.h -nt "$bin" ] && rm -f "$bin"
if ! make -s "$bin" >build/fuzz-build.log 2>&1; then
    tail -n 20 build/fuzz-build.log
    echo "FAIL build $bin (log: build/fuzz-build.log)"
    failed=1; finish
fi

seeds=()
for d in build/corpus examples; do
    compgen -G "$d/*.tflite" >/dev/null && seeds+=("$d")
done
if [ "${#seeds[@]}" -eq 0 ]; then
    echo "FAIL no seed models (run scripts/fetch-corpus.sh)"
    failed=1; finish
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$art"
before=$(ls "$art" | wc -l)
log="$tmp/fuzz.log"
# -rss_limit_mb also caps single mallocs (malloc_limit_mb defaults to it).
"$bin" -seed="${FUZZ_SEED:-1}" -dict=fuzz/dict/tflite.dict -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$art/" -print_final_stats=1 "$tmp" "${seeds[@]}" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
after=$(ls "$art" | wc -l)
if [ "$rc" -eq 0 ] && [ "$after" -eq "$before" ] && [ -n "$runs" ]; then
    echo "PASS fuzz_tflite_read: $runs inputs in ${secs}s, no finding"
    passed=1
else
    grep -E 'property broken|ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -n 20
    echo "FAIL fuzz_tflite_read exited $rc after ${runs:-?} inputs; findings in $art/ (full log below)"
    tail -n 60 "$log"
    failed=1
fi
echo "fuzz-smoke took $(( $(date +%s) - start ))s"
finish
