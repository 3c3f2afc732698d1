#!/usr/bin/env bash
# `litegpu info --json` on the five real corpus models, checked against
#  (a) the census stated in corpus.md, hard-coded below;
#  (b) an independent census computed from flatc's JSON dump of the same file by
#      tests/e2e/info_census.py (stdlib python: op counts by builtin name, custom ops,
#      tensor count, max rank, inputs/outputs, constant bytes and params by dtype, metadata,
#      plus size and sha256 from hashlib).
# Also: the text output names every op of the census and the sha256 that sha256sum gives.
# A missing reference schema (or flatc) is one FAIL line saying what is missing, not flatc's usage.
# Env: LG (default build/litegpu), PYTHON (default /usr/bin/python3 or python3), SCHEMA.
set -u
cd "$(dirname "$0")/../.."
SCHEMA=${SCHEMA:-tests/data/tflite-schema-flatc2.fbs}
LG=${LG:-build/litegpu}
CORPUS=${CORPUS:-build/corpus}
PY=${PYTHON:-}
if [ -z "$PY" ]; then
    if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=python3; fi
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }

# Run the python checker; count its PASS/FAIL lines.
run_checks() {
    local out
    out=$("$PY" tests/e2e/info_census.py "$@" 2>&1)
    local rc=$?
    [ -n "$out" ] && echo "$out"
    local p f
    p=$(grep -c '^PASS ' <<<"$out")
    f=$(grep -c '^FAIL ' <<<"$out")
    pass=$((pass + p)); fail=$((fail + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then bad "checker $1 ($*)" "exit $rc"; fi
}

# corpus.md, model by model (all: one subgraph, rank <= 4, float32 I/O, FLOAT16 weights
# each dequantized).
common=(subgraphs=1 "max_rank<=4" io_dtype=FLOAT32 weights_dtype=FLOAT16 has=DEQUANTIZE)
declare -A facts=(
  [face_detection_short_range]="ops=164 has=DEQUANTIZE,CONV_2D,DEPTHWISE_CONV_2D,ADD,RELU,PAD,MAX_POOL_2D,RESHAPE,CONCATENATION in=1,128,128,3 out=1,896,16;1,896,1"
  [face_detection_full_range_sparse]="ops=388 has=DENSIFY,DEPTH_TO_SPACE,RESIZE_BILINEAR,PAD in=1,192,192,3"
  [selfie_segmentation]="ops=246 has=HARD_SWISH,AVERAGE_POOL_2D,MUL,LOGISTIC,RESIZE_BILINEAR custom=Convolution2DTransposeBias:1 in=1,256,256,3 out=1,256,256,1"
  [hand_landmark_lite]="ops=167 has=FULLY_CONNECTED,MEAN,MAX_POOL_2D,LOGISTIC in=1,224,224,3 out=1,63;1,1;1,1;1,63"
  [pose_landmark_lite]="ops=305 has=RESIZE_BILINEAR n_out=5 out_has=1,256,256,1;1,64,64,39"
)
models=(face_detection_short_range face_detection_full_range_sparse selfie_segmentation
        hand_landmark_lite pose_landmark_lite)

if [ ! -x "$LG" ]; then bad "litegpu binary" "$LG not built"; fi
have_flatc=1
if [ ! -f "$SCHEMA" ]; then
    bad "reference schema" "missing $SCHEMA (the flatc census reads the TFLite schema from tests/data/)"
    have_flatc=0
elif ! command -v flatc >/dev/null 2>&1; then
    bad "flatc" "not installed (the flatc census needs it)"
    have_flatc=0
fi
for m in "${models[@]}"; do
    src="$CORPUS/$m.tflite"
    if [ ! -f "$src" ]; then bad "$m present" "missing $src (run scripts/fetch-corpus.sh)"; continue; fi
    [ -x "$LG" ] || continue
    if ! "$LG" info --json "$src" >"$T/$m.json" 2>"$T/$m.err"; then
        bad "$m info --json" "$(head -c 300 "$T/$m.err")"; continue
    fi
    if [ -s "$T/$m.err" ]; then bad "$m info --json quiet stderr" "$(head -c 300 "$T/$m.err")"; else ok "$m info --json"; fi
    # shellcheck disable=SC2086  # facts are space-separated words
    run_checks expect "$T/$m.json" "$m" "${common[@]}" ${facts[$m]}

    mkdir -p "$T/flatc-$m"
    if [ "$have_flatc" = 0 ]; then
        :
    elif flatc --json --strict-json --raw-binary -o "$T/flatc-$m" "$SCHEMA" -- "$src" 2>"$T/$m.flatc.err" \
       && [ -s "$T/flatc-$m/$m.json" ]; then
        run_checks flatc "$T/$m.json" "$T/flatc-$m/$m.json" "$SCHEMA" "$src"
    else
        bad "$m flatc dump" "$(head -c 300 "$T/$m.flatc.err")"
    fi

    # text output: the sha256sum digest, and every op of the census by name
    if "$LG" info "$src" >"$T/$m.txt" 2>"$T/$m.txt.err"; then
        sum=$(sha256sum "$src" | cut -d' ' -f1)
        if grep -q "sha256 $sum" "$T/$m.txt"; then ok "$m text sha256"; else bad "$m text sha256"; fi
        missing=$("$PY" -c 'import json,sys
d=json.load(open(sys.argv[1])); t=open(sys.argv[2]).read()
print(" ".join(e["op"] + " " + str(e["count"]) for s in d["subgraphs"] for e in s["ops"]
               if (e["op"] + " " + str(e["count"])) not in t))' "$T/$m.json" "$T/$m.txt")
        if [ -z "$missing" ]; then ok "$m text op census"; else bad "$m text op census" "$missing"; fi
    else
        bad "$m info (text)" "$(head -c 300 "$T/$m.txt.err")"
    fi
done

echo "corpus_info: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
