#!/usr/bin/env bash
# `litegpu quantize` (issue #13, storage modes) on the five corpus models and on every ONNX
# fixture (tests/fixtures/onnx/, through `litegpu convert`; embedding and topk, whose INT64
# inputs LiteRT.js does not take, through `litegpu fix --io-int32` as well), in fp16,
# int8-weights and int4-weights:
#  - sizes: every weight the report lists is found by flatc (an independent flatbuffers
#    reader) in the written file with the bytes the mode says (FLOAT16 2n, INT8 n, INT4
#    ceil(n/2)) plus 4 B per scale and 8 B per zero point, one each per output channel, and the
#    report's totals are those sums (tests/e2e/quant_check.py sizes);
#  - LiteRT.js loads and runs every quantized file and `litegpu run` equals it: bit for bit
#    in fp16 and int8 on the four corpus models where the float model is bit-exact (every
#    corpus model but the sparse face detector: XNNPACK's sparse path), within 1e-5 of each
#    output's magnitude elsewhere (the float models' own bound; fp16 constants move XNNPACK's
#    partitions, which changes a MEAN's summation order); INT4 within 1e-3 (XNNPACK's INT4
#    weight path sums in its own order: measured up to 2.6e-4, pose_landmark_lite's
#    segmentation output);
#  - the report's SNR, cosine, max abs error and argmax agreement equal an independent
#    computation from `litegpu run`'s outputs of both models on the same three inputs
#    (corpus models; quant_check.py figures);
#  - `litegpu check` agrees with the report's verdict after; fp16 outputs of ready models stay
#    ready; the real ML Drift delegate (`litegpu verify`) agrees with check on every quantized
#    corpus model and runs the fp16 ones fully on the GPU;
#  - the calibration manifest (file names, sha256) is in the report and the metadata;
#    --exclude keeps matching ops in float;
#  - bad input is exit 2 with one line: an empty, mismatched or wrong-shape --calib, a model
#    already quantized, a mode not implemented yet, --block.
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
F=tests/fixtures/onnx
C=build/corpus
SCHEMA=${SCHEMA:-tests/data/tflite-schema-flatc2.fbs}
CHK=tests/e2e/quant_check.py
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "quantize: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
modes=(fp16 int8-weights int4-weights)
corpus=(face_detection_short_range face_detection_full_range_sparse selfie_segmentation hand_landmark_lite
        pose_landmark_lite)
exact_corpus=" face_detection_short_range selfie_segmentation hand_landmark_lite pose_landmark_lite "

[ -x "$LG" ] || { bad "build" "$LG missing"; finish; }
[ -f "$SCHEMA" ] || { bad "schema" "$SCHEMA missing"; finish; }
for m in "${corpus[@]}"; do [ -f "$C/$m.tflite" ] || { bad "corpus" "$C/$m.tflite missing"; finish; }; done

# ---- the models: the corpus, and the fixtures converted
mkdir -p "$T/base" "$T/q" "$T/flatc"
for m in "${corpus[@]}"; do cp "$C/$m.tflite" "$T/base/$m.tflite"; done
for f in "$F"/*.onnx; do
    n=$(basename "$f" .onnx)
    if ! "$LG" convert "$f" -o "$T/base/$n.tflite" >/dev/null 2>"$T/err"; then bad "$n: convert" "$(head -c 300 "$T/err")"; continue; fi
    if grep -q 'INT64' <("$LG" info "$T/base/$n.tflite" | grep -E '^  (input|output) '); then
        "$LG" fix "$T/base/$n.tflite" -o "$T/base/$n.i32.tflite" --io-int32 >/dev/null 2>"$T/err" ||
            { bad "$n: fix --io-int32" "$(head -c 300 "$T/err")"; }
        rm -f "$T/base/$n.tflite"
    fi
done
bases=(); for b in "$T"/base/*.tflite; do bases+=("$(basename "$b" .tflite)"); done
[ "${#bases[@]}" -ge 40 ] && ok "${#bases[@]} models (5 corpus, the rest converted fixtures)" || bad "models" "only ${#bases[@]}"

# ---- quantize every model in every mode; sizes against flatc's reading of the file
for b in "${bases[@]}"; do
    for mode in "${modes[@]}"; do
        q="$b.$mode"
        if ! "$LG" quantize "$T/base/$b.tflite" -o "$T/q/$q.tflite" --mode "$mode" --json >"$T/q/$q.json" 2>"$T/err"; then
            bad "$q: quantize" "$(head -c 300 "$T/err")"; continue
        fi
        if ! flatc --json --strict-json --raw-binary -o "$T/flatc" "$SCHEMA" -- "$T/q/$q.tflite" 2>"$T/err"; then
            bad "$q: flatc" "$(head -c 300 "$T/err")"; continue
        fi
        if r=$(python3 "$CHK" sizes "$T/q/$q.json" "$T/flatc/$q.json" 2>&1); then ok "$q sizes: $(head -n 1 <<<"$r")"
        else bad "$q sizes" "$(grep MISMATCH <<<"$r" | head -n 3)"; fi
        rm -f "$T/flatc/$q.json"
    done
done

# ---- LiteRT.js runs every file; litegpu run equals it
all=("$T"/base/*.tflite "$T"/q/*.tflite)
node --no-liftoff peers/litert_run.js --fill pattern --out "$T/peer" "${all[@]}" >"$T/peer.jsonl" 2>"$T/peer.err"
lg_run() { # MODEL NAME: litegpu run with the peer's inputs (integer inputs: its zeros)
    local args=() k in
    for in in "$T/peer/$2/pattern"/input_*.npy; do k=$(basename "$in" .npy); args+=(--input "${k#input_}=$in"); done
    "$LG" run "$1" "${args[@]}" --out "$T/lg/$2" >/dev/null 2>"$T/err"
}
mkdir -p "$T/lg"
: >"$T/tasks"
for b in "${bases[@]}"; do
    if [ ! -d "$T/peer/$b/pattern" ]; then bad "$b: LiteRT.js" "$(grep -F "\"$T/base/$b.tflite\"" "$T/peer.jsonl" | head -c 300)"; continue; fi
    lg_run "$T/base/$b.tflite" "$b" || { bad "$b: litegpu run" "$(cat "$T/err")"; continue; }
    for mode in "${modes[@]}"; do
        q="$b.$mode"
        [ -f "$T/q/$q.tflite" ] || continue
        if [ ! -d "$T/peer/$q/pattern" ]; then bad "$q: LiteRT.js does not run it" "$(grep -F "/$q.tflite\"" "$T/peer.jsonl" | head -c 300)"; continue; fi
        lg_run "$T/q/$q.tflite" "$q" || { bad "$q: litegpu run" "$(cat "$T/err")"; continue; }
        if [ "$mode" = int4-weights ]; then tol=1e-3; want="within 1e-3"
        elif [[ "$exact_corpus" == *" $b "* ]]; then tol=0; want="bit-exact"
        else tol=1e-5; want="within 1e-5"; fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$q" "$T/peer/$q/pattern" "$T/lg/$q" "$tol" "$want" \
            "$T/peer/$b/pattern" "$T/lg/$b" >>"$T/tasks"
    done
done
# one process compares every pair (tests/e2e/peer_rel.py: worst output rel, NaN must meet NaN)
python3 tests/e2e/peer_rel.py <"$T/tasks" >"$T/rel.txt" 2>&1 || bad "peer_rel.py" "$(tail -n 2 "$T/rel.txt")"
cat "$T/rel.txt"
pass=$((pass + $(grep -c '^PASS' "$T/rel.txt"))); fail=$((fail + $(grep -c '^FAIL' "$T/rel.txt")))
[ "$(wc -l <"$T/tasks")" -eq "$(grep -cE '^(PASS|FAIL)' "$T/rel.txt")" ] || bad "peer_rel.py" "not every pair was judged"

# ---- the report's figures from the two models' outputs (corpus), and check after
for b in "${corpus[@]}"; do
    for c in pattern random:1 random:2; do
        mkdir -p "$T/fig/$b"
        "$LG" run "$T/base/$b.tflite" --fill "$c" --out "$T/fig/$b/$c" >/dev/null 2>&1 || bad "$b: run --fill $c"
    done
    for mode in "${modes[@]}"; do
        q="$b.$mode"
        [ -f "$T/q/$q.tflite" ] || continue
        mkdir -p "$T/fig/$q"
        for c in pattern random:1 random:2; do
            "$LG" run "$T/q/$q.tflite" --fill "$c" --out "$T/fig/$q/$c" >/dev/null 2>&1 || bad "$q: run --fill $c"
        done
        if r=$(python3 "$CHK" figures "$T/q/$q.json" "$T/fig/$b" "$T/fig/$q" pattern random:1 random:2 2>&1); then
            ok "$q report figures: $(tr '\n' ';' <<<"$r")"
        else
            bad "$q report figures" "$(grep MISMATCH <<<"$r" | head -n 3)"
        fi
    done
done
for b in "${bases[@]}"; do
    "$LG" check "$T/base/$b.tflite" >/dev/null 2>&1; base_rc=$?
    for mode in "${modes[@]}"; do
        q="$b.$mode"
        [ -f "$T/q/$q.json" ] || continue
        "$LG" check "$T/q/$q.tflite" >/dev/null 2>&1; rc=$?
        said=$(python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['check']['after']['ok']))" "$T/q/$q.json")
        if { [ "$said" = 1 ] && [ "$rc" = 0 ]; } || { [ "$said" = 0 ] && [ "$rc" = 1 ]; }; then :
        else bad "$q: check exit $rc, the report says ok=$said"; continue; fi
        if [ "$mode" = fp16 ] && [ "$base_rc" = 0 ] && [ "$rc" != 0 ]; then bad "$q: the fp16 model is not ready any more"; continue; fi
    done
done
ok "check agrees with every report's verdict after; fp16 keeps every ready model ready"

# ---- ML Drift (LiteRT.js WebGPU) on the quantized corpus: it agrees with check
vq=(); for b in "${corpus[@]}"; do for mode in "${modes[@]}"; do vq+=("$T/q/$b.$mode.tflite"); done; done
"$LG" verify "${vq[@]}" >"$T/verify.txt" 2>&1; vrc=$?
if [ "$vrc" = 2 ]; then bad "verify" "$(tail -n 2 "$T/verify.txt")"
else
    grep -q "^15 model(s): .*; check agrees with the delegate on 15 of the 15 judged" "$T/verify.txt" &&
        ok "ML Drift: check agrees with the delegate on all 15 quantized corpus models" ||
        bad "ML Drift vs check" "$(tail -n 1 "$T/verify.txt")"
    for b in face_detection_short_range selfie_segmentation hand_landmark_lite pose_landmark_lite; do
        grep -q "$b.fp16.tflite on ML Drift .*: FULLY ON THE GPU" "$T/verify.txt" && ok "$b.fp16: fully on ML Drift" ||
            bad "$b.fp16 on ML Drift" "$(grep "$b.fp16.tflite on ML Drift" "$T/verify.txt")"
    done
    n=$(grep -c 'rejected: DEQUANTIZE: Max version supported: 3. Requested version [56]' "$T/verify.txt")
    [ "$n" -ge 10 ] && ok "ML Drift refuses the per-channel INT8 (v5) and INT4 (v6) DEQUANTIZE ($n models), as check says" ||
        bad "ML Drift DEQUANTIZE versions" "$n models"
fi

# ---- calibration manifest, exclude
E=examples/tiny_convnet.tflite
mkdir -p "$T/cal"
for s in 1 2; do "$LG" run "$E" --fill "random:$s" --out "$T/cal.$s" >/dev/null && cp "$T/cal.$s/input_0.npy" "$T/cal/set$s.npy"; done
if "$LG" quantize "$E" -o "$T/cal.tflite" --mode int8-weights --calib "$T/cal" --json >"$T/cal.json" 2>"$T/err"; then
    want=$(cd "$T/cal" && sha256sum set1.npy set2.npy | awk '{print $2 "=" $1}' | paste -sd, -)
    got=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(','.join(f['path']+'='+f['sha256'] for f in r['calibration']))" "$T/cal.json")
    md=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); m=json.loads(r['metadata']); print(','.join(f['path']+'='+f['sha256'] for f in m['calibration']))" "$T/cal.json")
    cases=$(python3 -c "import json,sys; print(','.join(json.load(open(sys.argv[1]))['parity']['cases']))" "$T/cal.json")
    stored=$("$LG" info "$T/cal.tflite" | grep -c 'litegpu.quantize')
    [ "$got" = "$want" ] && [ "$md" = "$want" ] && [ "$cases" = "set1.npy,set2.npy" ] && [ "$stored" = 1 ] &&
        ok "--calib: the sets are the parity inputs, their sha256 in the report and the metadata" ||
        bad "--calib manifest" "report $got, metadata $md, sha256sum $want, cases $cases, info $stored"
else bad "--calib" "$(cat "$T/err")"; fi
if "$LG" quantize "$E" -o "$T/ex.tflite" --mode int8-weights --exclude CONV_2D --exclude '^nothing$' --json >"$T/ex.json" 2>"$T/err"; then
    r=$(python3 -c "
import json,sys
r=json.load(open(sys.argv[1]))
print(r['weights']['n_weights'], r['weights']['n_excluded'], [t['op_name'] for t in r['weights']['tensors']], [e['n_ops'] for e in r['exclude']])" "$T/ex.json")
    i8=$("$LG" info "$T/ex.tflite" --json | python3 -c "import json,sys; print(sum(d['params'] for d in json.load(sys.stdin)['weights']['by_dtype'] if d['dtype']=='INT8'))")
    # the two CONV_2D stay FLOAT16 (excluded); the 3x3 depthwise too (INT8 would not be smaller);
    # the FC's [10,16] weights become INT8; '^nothing$' matches no op
    [ "$r" = "1 2 ['FULLY_CONNECTED'] [2, 0]" ] && [ "$i8" = 160 ] &&
        ok "--exclude CONV_2D: both convs stay FLOAT16, the FC weights (160 params) INT8; a regex matching nothing excludes nothing" ||
        bad "--exclude" "$r, INT8 params $i8"
else bad "--exclude" "$(cat "$T/err")"; fi

# ---- bad input: exit 2, one line
two() { # NAME COMMAND...: exit 2 with exactly one stderr line
    local name="$1"; shift
    "$@" >"$T/o" 2>"$T/e"; local rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <"$T/e")" = 1 ] && ok "$name: exit 2: $(cat "$T/e")" || bad "$name" "exit $rc: $(head -c 300 "$T/e")"
}
mkdir -p "$T/empty" "$T/wrong" "$T/sub/s1"
"$LG" run "$E" --out "$T/w" >/dev/null && cp "$T/w/output_0.npy" "$T/wrong/a.npy"
cp "$T/cal/set1.npy" "$T/sub/s1/image.npy"
two "empty calibration folder" "$LG" quantize "$E" -o "$T/x.tflite" --mode int8-weights --calib "$T/empty"
two "calibration folder of subfolders for a one-input model" "$LG" quantize "$E" -o "$T/x.tflite" --mode int8-weights --calib "$T/sub"
two "calibration .npy of the wrong shape" "$LG" quantize "$E" -o "$T/x.tflite" --mode int8-weights --calib "$T/wrong"
two "--input of the wrong shape" "$LG" quantize "$E" -o "$T/x.tflite" --mode fp16 --input "image=$T/wrong/a.npy"
two "a model already quantized" "$LG" quantize "$T/cal.tflite" -o "$T/x.tflite" --mode int4-weights
two "int8-static without --calib" "$LG" quantize "$E" -o "$T/x.tflite" --mode int8-static
two "--block (blockwise INT4 does not run on LiteRT)" "$LG" quantize "$E" -o "$T/x.tflite" --mode int4-weights --block 32
two "a bad exclude pattern" "$LG" quantize "$E" -o "$T/x.tflite" --mode fp16 --exclude '('
two "the input as the output" "$LG" quantize "$E" -o "$E" --mode fp16
[ ! -e "$T/x.tflite" ] && ok "no output written by a refused run" || bad "a refused run wrote $T/x.tflite"
finish
