#!/usr/bin/env bash
# test_fuzz_smoke.sh -- short, bounded libFuzzer runs of the .tflite and the ONNX readers.
#
# Builds build/fuzz/fuzz_tflite_read and build/fuzz/fuzz_onnx_read (clang, libFuzzer + ASan +
# UBSan; see the Makefile) and runs them for FUZZ_SMOKE_SECONDS in all (default 30):
# ONNX_FUZZ_SMOKE_SECONDS (default 10) for the ONNX reader, the rest for the .tflite reader.
# Seeds: the real models (build/corpus) and examples/ with the dictionary
# fuzz/dict/tflite.dict for .tflite; a few ONNX conformance models (Debian libonnx-testdata,
# the Makefile's ONNX_SEEDS) for ONNX. New inputs go to a temp dir; a finding (crash-*,
# timeout-*, oom-*, leak-*) is kept in build/fuzz/artifacts/ and fails the test. Replay one
# with `build/fuzz/fuzz_tflite_read build/fuzz/artifacts/crash-...` (or fuzz_onnx_read).
# Longer runs: `make fuzz FUZZ_SECONDS=600`.
set -uo pipefail
cd "$(dirname "$0")/../.."

total="${FUZZ_SMOKE_SECONDS:-30}"
onnx_secs="${ONNX_FUZZ_SMOKE_SECONDS:-10}"
[ "$onnx_secs" -ge "$total" ] && onnx_secs=$(( total / 3 ))
tflite_secs=$(( total - onnx_secs ))
art=build/fuzz/artifacts
onnx_data="${ONNX_DATA:-/usr/share/libonnx-testdata/data}"
passed=0 failed=0
finish() { echo "fuzz-smoke took $(( $(date +%s) - start ))s"; echo "fuzz-smoke: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

start=$(date +%s)
mkdir -p build "$art"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# build BIN HEADERS...: make the target (the Makefile rules do not list every shared header)
build() {
    local bin="$1" h; shift
    for h in "$@"; do [ -e "$bin" ] && [ "$h" -nt "$bin" ] && rm -f "$bin"; done
    if ! make -s "$bin" >"build/fuzz-build-$(basename "$bin").log" 2>&1; then
        tail -n 20 "build/fuzz-build-$(basename "$bin").log"
        echo "FAIL build $bin (log: build/fuzz-build-$(basename "$bin").log)"
        failed=$((failed + 1))
        return 1
    fi
}

# run NAME BIN SECS EXTRA_ARGS... -- SEED_DIRS...
run() {
    local name="$1" bin="$2" secs="$3" args=() seeds=() log rc runs before after
    shift 3
    while [ "$#" -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
    shift
    seeds=("$@")
    mkdir -p "$tmp/$name"
    log="$tmp/$name.log"
    before=$(ls "$art" | wc -l)
    # -rss_limit_mb also caps single mallocs (malloc_limit_mb defaults to it).
    "$bin" -seed="${FUZZ_SEED:-1}" "${args[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$art/" -print_final_stats=1 "$tmp/$name" "${seeds[@]}" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    after=$(ls "$art" | wc -l)
    if [ "$rc" -eq 0 ] && [ "$after" -eq "$before" ] && [ -n "$runs" ]; then
        echo "PASS $name: $runs inputs in ${secs}s, no finding"
        passed=$((passed + 1))
    else
        grep -E 'property broken|ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -n 20
        echo "FAIL $name exited $rc after ${runs:-?} inputs; findings in $art/ (full log below)"
        tail -n 60 "$log"
        failed=$((failed + 1))
    fi
}

# ---- the .tflite reader
bin=build/fuzz/fuzz_tflite_read
if build "$bin" tests/tools/lg_harness.h; then
    seeds=()
    for d in build/corpus examples; do
        compgen -G "$d/*.tflite" >/dev/null && seeds+=("$d")
    done
    if [ "${#seeds[@]}" -eq 0 ]; then
        echo "FAIL no seed models (run scripts/fetch-corpus.sh)"
        failed=$((failed + 1))
    else
        run fuzz_tflite_read "$bin" "$tflite_secs" -dict=fuzz/dict/tflite.dict -- "${seeds[@]}"
    fi
fi

# ---- the ONNX reader
bin=build/fuzz/fuzz_onnx_read
if build "$bin" tests/tools/onnx_harness.h tests/tools/lg_harness.h; then
    mkdir -p "$tmp/onnx_seeds"
    for s in $(make -s --no-print-directory -f Makefile -f - print-onnx-seeds <<<'print-onnx-seeds: ; @echo $(ONNX_SEEDS)'); do
        [ -e "$onnx_data/$s/model.onnx" ] && cp "$onnx_data/$s/model.onnx" "$tmp/onnx_seeds/$(echo "$s" | tr / _).onnx"
    done
    if ! compgen -G "$tmp/onnx_seeds/*.onnx" >/dev/null; then
        echo "FAIL no ONNX seed models in $onnx_data (Debian package libonnx-testdata)"
        failed=$((failed + 1))
    else
        run fuzz_onnx_read "$bin" "$onnx_secs" -- "$tmp/onnx_seeds"
    fi
fi
finish
