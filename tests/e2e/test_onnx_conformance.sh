#!/usr/bin/env bash
# ONNX's own conformance data (Debian libonnx-testdata): every case of node/, pytorch-converted/,
# pytorch-operator/ and simple/ is converted with the importer (tests/tools/onnx2tflite.c), run
# with `build/litegpu run` on test_data_set_0's inputs (turned into .npy by
# tests/tools/onnx_tensor_npy.c) and each output compared with output_K.pb elementwise within
# |a - e| <= 1e-7 + 1e-3 |e| (the ONNX backend tests' tolerances; NaN equals NaN).
# When an op needs a parameter constant (Reshape's shape, Resize's scales, Slice's starts...)
# and the test passes it as a graph input, every input but the first is frozen to its test
# value (--const-input) and the case is counted as "with parameter inputs frozen".
# A case that does not convert must fail cleanly: exit 2 with one line on stderr. Anything
# else (a crash, several lines, a run failure on a converted model, a wrong answer) fails.
# Prints per folder "N converted and match, N unsupported (clean), N wrong/crash" and
# "onnx_conformance: N passed, N failed" (failed = wrong, crashed or unclean).
# Env: ONNX_TESTDATA (default /usr/share/libonnx-testdata/data), JOBS (default 2),
#      VERBOSE=1 lists each case's result.
set -u
cd "$(dirname "$0")/../.."
D=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
JOBS=${JOBS:-2}
if [ ! -d "$D/node" ]; then
    # scripts/install-deps.sh installs it: missing data is a failure, never a skip
    echo "FAIL $D not found (scripts/install-deps.sh installs Debian libonnx-testdata)"
    echo "onnx_conformance: 0 passed, 1 failed"
    exit 1
fi
if [ ! -x build/litegpu ] || [ ! -f build/liblitegpu.a ]; then
    echo "FAIL build/litegpu or build/liblitegpu.a missing (make build/litegpu)"
    echo "onnx_conformance: 0 passed, 1 failed"
    exit 1
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for tool in onnx2tflite onnx_tensor_npy; do
    if ! cc -std=c11 -O1 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -o "$T/$tool" "tests/tools/$tool.c" \
        build/liblitegpu.a -lm -lpthread 2>"$T/cc.err"; then
        echo "FAIL cannot build tests/tools/$tool.c"; cat "$T/cc.err"
        echo "onnx_conformance: 0 passed, 1 failed"
        exit 1
    fi
done
export T

# one case: prints "FOLDER CASE RESULT detail" with RESULT match | unsupported | wrong | crash
run_case() {
    local dir="$1" folder name w rc lines
    folder=$(basename "$(dirname "$dir")")
    name=$(basename "$dir")
    w="$T/w/$folder/$name"
    mkdir -p "$w"
    local ds="$dir/test_data_set_0" frozen="" fz=() k=0 inp
    "$T/onnx2tflite" --print-inputs "$dir/model.onnx" "$w/m.tflite" >"$w/inputs" 2>"$w/err"
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q "computed at run time" "$w/err" && [ "$(wc -l <"$w/inputs")" -gt 1 ]; then
        # a parameter the op needs constant (Reshape's shape, Resize's scales...) is a graph
        # input in the test: freeze every input but the first to its test value and retry
        while IFS= read -r inp; do
            [ "$k" -gt 0 ] && [ -f "$ds/input_$k.pb" ] && fz+=(--const-input "$inp=$ds/input_$k.pb")
            k=$((k + 1))
        done <"$w/inputs"
        frozen="-frozen"
        "$T/onnx2tflite" "${fz[@]}" --print-inputs "$dir/model.onnx" "$w/m.tflite" >"$w/inputs" 2>"$w/err"
        rc=$?
    fi
    if [ "$rc" -ne 0 ]; then
        lines=$(wc -l <"$w/err")
        if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ]; then
            echo "$folder $name unsupported $(head -c 200 "$w/err")"
        else
            echo "$folder $name crash convert exit $rc, $lines lines: $(head -c 200 "$w/err" | tr '\n' ' ')"
        fi
        return
    fi
    local args=() conv=()
    k=0
    while IFS= read -r inp; do
        [ -f "$ds/input_$k.pb" ] || break
        conv+=("$ds/input_$k.pb" "$w/in_$k.npy")
        args+=(--input "$inp=$w/in_$k.npy")
        k=$((k + 1))
    done <"$w/inputs"
    if [ "${#conv[@]}" -gt 0 ] && ! "$T/onnx_tensor_npy" "${conv[@]}" 2>"$w/err"; then
        echo "$folder $name crash input conversion: $(head -c 200 "$w/err")"
        return
    fi
    if ! build/litegpu run "$w/m.tflite" "${args[@]}" --out-dir "$w/out" >"$w/run.out" 2>"$w/err"; then
        echo "$folder $name crash run: $(head -c 200 "$w/err" | tr '\n' ' ')"
        return
    fi
    local cmp=() o=0
    while [ -f "$ds/output_$o.pb" ]; do
        cmp+=("$ds/output_$o.pb" "$w/out/output_$o.npy")
        o=$((o + 1))
    done
    if [ ! -f "$w/out/output_$((o - 1)).npy" ] || [ -f "$w/out/output_$o.npy" ]; then
        echo "$folder $name wrong output count (expected $o)"
        return
    fi
    if "$T/onnx_tensor_npy" --compare "${cmp[@]}" >"$w/cmp" 2>&1; then
        echo "$folder $name match$frozen"
    else
        echo "$folder $name wrong $(head -n 2 "$w/cmp" | tr '\n' ' ' | head -c 300)"
    fi
    rm -rf "$w"
}
export -f run_case

for folder in node pytorch-converted pytorch-operator simple; do
    ls -d "$D/$folder"/*/
done | xargs -P "$JOBS" -I{} bash -c 'run_case "$1"' _ {} >"$T/results" 2>"$T/xargs.err"

pass=0
fail=0
for folder in node pytorch-converted pytorch-operator simple; do
    m=$(awk -v f="$folder" '$1 == f && ($3 == "match" || $3 == "match-frozen")' "$T/results" | wc -l)
    z=$(awk -v f="$folder" '$1 == f && $3 == "match-frozen"' "$T/results" | wc -l)
    u=$(awk -v f="$folder" '$1 == f && $3 == "unsupported"' "$T/results" | wc -l)
    b=$(awk -v f="$folder" '$1 == f && $3 != "match" && $3 != "match-frozen" && $3 != "unsupported"' "$T/results" | wc -l)
    echo "$folder: $m converted and match ($z with parameter inputs frozen), $u unsupported (clean), $b wrong/crash"
    pass=$((pass + m + u))
    fail=$((fail + b))
done
awk '$3 != "match" && $3 != "match-frozen" && $3 != "unsupported" {print "FAIL " $0}' "$T/results" | sort
# The claim: every case of an op `convert --list-onnx-ops` lists (at its opsets) converts,
# unless it is refused for one of the documented reasons (README "ONNX input"): a tensor type
# litegpu does not compute (DOUBLE, FLOAT16, BFLOAT16, STRING, UINT16-64...: at the graph
# boundary, or as a Cast's or EyeLike's target), an empty tensor, a non-tensor input, a
# parameter computed at run time, a training form, a mode outside the claim (GridSample
# bicubic and reflection padding, Resize tf_crop_and_resize), or a model that imports no
# ai.onnx opset. Any other refusal of a claimed op
# is a failure (the claim would be wrong).
build/litegpu convert --list-onnx-ops >"$T/claimed"
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
"$PY" - "$T/results" "$T/claimed" >"$T/claims" <<'PY'
import re, sys, collections
claimed = {}
for line in open(sys.argv[2]):
    op, rng = line.split()
    lo, hi = rng.split("-")
    claimed[op] = (int(lo), int(hi))
types = r'(DOUBLE|FLOAT16|BFLOAT16|STRING|UINT16|UINT32|UINT64|COMPLEX64|COMPLEX128|FLOAT8\w*|INT4|UINT4)\b'
allowed = [("tensor type not computed", r'(input "[^"]*": type |Cast to |dtype )' + types),
           ("empty tensor", r'input "[^"]*": dimension \d+ is 0|an empty slice'),
           ("mode outside the claim", r'\((GridSample|Resize), [^)]*\): not supported: (mode "bicubic"|padding_mode "reflection"|coordinate_transformation_mode "tf_crop_and_resize")'),
           ("not a tensor", r'not a tensor \(sequence, map or optional\)'),
           ("no ai.onnx opset", r'the model imports no ai\.onnx opset'),
           ("computed at run time", r'computed at run time'),
           ("training form", r'training|random dropout|is_test=0')]
counts = collections.Counter()
bad = []
for line in open(sys.argv[1]):
    f = line.split(" ", 3)
    if len(f) < 4 or f[2] != "unsupported":
        continue
    msg = f[3]
    m = re.search(r'node \d+ "[^"]*" \(([A-Za-z0-9_]+), domain ([^,]+), opset (\d+)\): not supported', msg)
    if m and not (m.group(2) == "ai.onnx" and m.group(1) in claimed and claimed[m.group(1)][0] <= int(m.group(3)) <= claimed[m.group(1)][1]):
        counts["op not claimed"] += 1
        continue
    for name, rx in allowed:
        if re.search(rx, msg):
            counts[name] += 1
            break
    else:
        bad.append("%s %s: %s" % (f[0], f[1], msg.strip()))
for k in sorted(counts):
    print("refused: %s: %d" % (k, counts[k]))
for b in bad:
    print("FAIL a claimed op refused for an undocumented reason: " + b)
sys.exit(1 if bad else 0)
PY
cat "$T/claims"
fail=$((fail + $(grep -c '^FAIL' "$T/claims")))
pass=$((pass + 1))
if [ "${VERBOSE:-0}" = 1 ]; then sort "$T/results"; fi
if [ -n "${KEEP_RESULTS:-}" ]; then cp "$T/results" "$KEEP_RESULTS"; fi
echo "onnx_conformance: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
