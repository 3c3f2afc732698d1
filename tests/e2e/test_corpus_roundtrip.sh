#!/usr/bin/env bash
# Round trip of the five real corpus models through `litegpu convert`:
#  1. the rewritten file's flatc JSON dump equals the original's (same tensors, ops, options,
#     buffers' bytes), with flatc (Debian flatbuffers-compiler) as the independent reader;
#  2. converting twice gives identical bytes, and converting the output again is a fixed point;
#  3. LiteRT.js (peers/litert_run.js) runs the rewritten file and its outputs are
#     bit-identical to the original's on the `half` and `pattern` inputs.
set -u
cd "$(dirname "$0")/../.."
SCHEMA=${SCHEMA:-tests/data/tflite-schema-flatc2.fbs}
LG=build/litegpu
CORPUS=build/corpus
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
# the reference schema (a copy of TFLite's, tests/data/): one line when missing
if [ ! -f "$SCHEMA" ]; then
    bad "reference schema" "missing $SCHEMA (flatc reads the TFLite schema from tests/data/)"
    echo "corpus_roundtrip: $pass passed, $fail failed"
    exit 1
fi

models=(face_detection_short_range face_detection_full_range_sparse selfie_segmentation
        hand_landmark_lite pose_landmark_lite)
for m in "${models[@]}"; do
    src="$CORPUS/$m.tflite"
    if [ ! -f "$src" ]; then bad "$m present" "missing $src (run scripts/fetch-corpus.sh)"; continue; fi
    mkdir -p "$T/$m"
    if ! "$LG" convert "$src" -o "$T/$m/a.tflite" >/dev/null 2>"$T/$m/err"; then
        bad "$m convert" "$(cat "$T/$m/err")"; continue
    fi
    "$LG" convert "$src" -o "$T/$m/b.tflite" >/dev/null 2>&1
    if cmp -s "$T/$m/a.tflite" "$T/$m/b.tflite"; then ok "$m deterministic"; else bad "$m deterministic"; fi
    "$LG" convert "$T/$m/a.tflite" -o "$T/$m/c.tflite" >/dev/null 2>&1
    if cmp -s "$T/$m/a.tflite" "$T/$m/c.tflite"; then ok "$m fixed point"; else bad "$m fixed point"; fi
    for mode in plain defaults; do
        extra=(); [ "$mode" = defaults ] && extra=(--defaults-json)
        mkdir -p "$T/$m/j1-$mode" "$T/$m/j2-$mode"
        flatc --json --strict-json --raw-binary "${extra[@]}" -o "$T/$m/j1-$mode" "$SCHEMA" -- "$src" 2>/dev/null
        flatc --json --strict-json --raw-binary "${extra[@]}" -o "$T/$m/j2-$mode" "$SCHEMA" -- "$T/$m/a.tflite" 2>/dev/null
        j1="$T/$m/j1-$mode/$m.json"; j2="$T/$m/j2-$mode/a.json"
        if [ -s "$j1" ] && [ -s "$j2" ] && cmp -s "$j1" "$j2"; then ok "$m flatc json ($mode)"
        else bad "$m flatc json ($mode)" "$(diff "$j1" "$j2" 2>&1 | head -n 5 | tr '\n' ' ')"; fi
    done
done

# LiteRT.js on originals and rewrites, one node process for all.
mkdir -p "$T/rt"
for m in "${models[@]}"; do
    [ -f "$T/$m/a.tflite" ] && cp "$T/$m/a.tflite" "$T/rt/$m.tflite"
done
orig=(); for m in "${models[@]}"; do orig+=("$CORPUS/$m.tflite"); done
if node --no-liftoff peers/litert_run.js --fill half,pattern --out "$T/out-orig" \
        "${orig[@]}" >/dev/null 2>"$T/rt-orig.err" \
   && node --no-liftoff peers/litert_run.js --fill half,pattern --out "$T/out-rt" \
        "$T"/rt/*.tflite >/dev/null 2>"$T/rt-new.err"; then
    for m in "${models[@]}"; do
        for fill in half pattern; do
            a="$T/out-orig/$m/$fill"
            b="$T/out-rt/$m/$fill"
            n=$(ls "$a"/output_*.npy 2>/dev/null | wc -l)
            same=1
            [ "$n" -gt 0 ] || same=0
            for f in "$a"/output_*.npy; do
                cmp -s "$f" "$b/$(basename "$f")" || same=0
            done
            if [ "$same" = 1 ]; then ok "$m litert.js bit-identical ($fill, $n outputs)"
            else bad "$m litert.js bit-identical ($fill)"; fi
        done
    done
else
    bad "litert.js runs" "$(cat "$T/rt-orig.err" "$T/rt-new.err" | head -n 5)"
fi
echo "corpus_roundtrip: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
