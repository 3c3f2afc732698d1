#!/usr/bin/env bash
# `litegpu convert --optimize` (the exact passes of src/passes) against independent oracles:
#  - examples/cleanup_net.tflite: 6 ops -> 1 ADD (the MEAN of constants folded, the inverse
#    transpose pair, the * 1 and the same-shape reshape removed); check READY on both targets
#    afterwards (it blocks the MEAN before); LiteRT.js runs original and optimized and their
#    outputs agree within 1e-6 of the output magnitude on the half and pattern inputs;
#  - the five corpus models: never more ops, check never more blockers (both targets),
#    LiteRT.js outputs within 1e-6 of the original's;
#  - byte-identical output for identical input; --json; usage errors.
set -u
cd "$(dirname "$0")/../.."
LG=build/litegpu
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }

nops() { "$LG" info --json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["subgraphs"][0]["n_ops"])'; }
blockers() { "$LG" check --json --target "$2" "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["n_blockers"])'; }

# ---- the cleanup example
src=examples/cleanup_net.tflite
if "$LG" convert "$src" -o "$T/clean.tflite" --optimize >"$T/clean.txt" 2>"$T/clean.err"; then
    ok "cleanup_net optimizes"
    n=$(nops "$T/clean.tflite")
    [ "$n" = 1 ] && ok "cleanup_net: 6 ops -> 1" || bad "cleanup_net: 6 ops -> 1" "got $n"
    op=$("$LG" info --json "$T/clean.tflite" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(",".join(sorted(o["op"] for o in d["subgraphs"][0]["ops"])))' 2>/dev/null)
    [ "$op" = ADD ] && ok "cleanup_net: the op left is the ADD" || bad "cleanup_net: the op left is the ADD" "$op"
    grep -q "fold-constants     1 rewrite: 1 op removed, 1 tensor folded" "$T/clean.txt" \
        && ok "cleanup_net: report names the fold" || bad "cleanup_net: report names the fold" "$(cat "$T/clean.txt")"
    for t in mldrift classic; do
        "$LG" check --target "$t" "$src" >/dev/null; rb=$?
        "$LG" check --target "$t" "$T/clean.tflite" >/dev/null; ra=$?
        [ "$rb" = 1 ] && [ "$ra" = 0 ] && ok "cleanup_net: check $t NOT READY -> READY" \
            || bad "cleanup_net: check $t NOT READY -> READY" "exit $rb -> $ra"
    done
else
    bad "cleanup_net optimizes" "$(cat "$T/clean.err")"
fi

# ---- the corpus
models=(face_detection_short_range face_detection_full_range_sparse selfie_segmentation
        hand_landmark_lite pose_landmark_lite)
mkdir -p "$T/opt"
for m in "${models[@]}"; do
    src=build/corpus/$m.tflite
    [ -f "$src" ] || { bad "$m present" "missing $src (make corpus)"; continue; }
    if ! "$LG" convert "$src" -o "$T/opt/$m.tflite" --optimize >/dev/null 2>"$T/$m.err"; then
        bad "$m optimizes" "$(cat "$T/$m.err")"; continue
    fi
    b=$(nops "$src"); a=$(nops "$T/opt/$m.tflite")
    [ "$a" -le "$b" ] && ok "$m: $b -> $a ops (never more)" || bad "$m: never more ops" "$b -> $a"
    for t in mldrift classic; do
        bb=$(blockers "$src" "$t"); ba=$(blockers "$T/opt/$m.tflite" "$t")
        [ "$ba" -le "$bb" ] && ok "$m: check $t blockers $bb -> $ba" || bad "$m: check $t never worse" "$bb -> $ba"
    done
done
"$LG" convert build/corpus/pose_landmark_lite.tflite -o "$T/again.tflite" --optimize >/dev/null 2>&1
cmp -s "$T/again.tflite" "$T/opt/pose_landmark_lite.tflite" && ok "optimize is byte-deterministic" \
    || bad "optimize is byte-deterministic"

# ---- LiteRT.js: original vs optimized outputs
orig=(examples/cleanup_net.tflite); new=("$T/clean.tflite")
for m in "${models[@]}"; do orig+=("build/corpus/$m.tflite"); new+=("$T/opt/$m.tflite"); done
mkdir -p "$T/rt-new-in"
for f in "${new[@]}"; do [ -f "$f" ] && cp "$f" "$T/rt-new-in/$(basename "$f" | sed 's/^clean/cleanup_net/')"; done
if node --no-liftoff peers/litert_run.js --fill half,pattern --out "$T/out-orig" "${orig[@]}" >/dev/null 2>"$T/rt1.err" \
   && node --no-liftoff peers/litert_run.js --fill half,pattern --out "$T/out-new" "$T"/rt-new-in/*.tflite >/dev/null 2>"$T/rt2.err"; then
    for m in cleanup_net "${models[@]}"; do
        for fill in half pattern; do
            good=1; n=0
            for f in "$T/out-orig/$m/$fill"/output_*.npy; do
                [ -f "$f" ] || { good=0; break; }
                n=$((n + 1))
                python3 tests/e2e/npy_compare.py "$f" "$T/out-new/$m/$fill/$(basename "$f")" 1e-6 >/dev/null || good=0
            done
            [ "$good" = 1 ] && [ "$n" -gt 0 ] && ok "$m: LiteRT.js outputs unchanged ($fill, $n outputs, <= 1e-6)" \
                || bad "$m: LiteRT.js outputs unchanged ($fill)"
        done
    done
else
    bad "litert.js runs" "$(cat "$T/rt1.err" "$T/rt2.err" | head -n 5)"
fi

# ---- JSON and usage
if "$LG" convert examples/cleanup_net.tflite -o "$T/j.tflite" --optimize --json >"$T/j.json" 2>/dev/null && \
   python3 - "$T/j.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
o = d["optimize"]
assert d["verb"] == "convert" and d["ok"] is True and o["n_ops_before"] == 6 and o["n_ops_after"] == 1, o
names = [p["pass"] for p in o["passes"]]
assert names[:5] == ["fold-constants", "remove-identities", "merge-reshapes", "cancel-transposes", "remove-dead"], names
f = o["passes"][0]
assert f["n_rewrites"] == 1 and f["n_tensors_folded"] == 1 and f["parity"]["max_rel"] <= 1e-6, f
assert o["passes"][2]["parity"] is None  # merge-reshapes did nothing: no parity to report
PY
then ok "--optimize --json"; else bad "--optimize --json" "$(head -c 300 "$T/j.json")"; fi
"$LG" convert examples/cleanup_net.tflite -o "$T/u.tflite" --no-prove >/dev/null 2>"$T/u.err"
[ $? = 2 ] && grep -q "goes with --optimize" "$T/u.err" && ok "--no-prove alone is a usage error" \
    || bad "--no-prove alone is a usage error"
echo "optimize: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
