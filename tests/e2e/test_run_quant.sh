#!/usr/bin/env bash
# Full-integer quantized models: `litegpu run` against LiteRT.js (peers/litert_run.js) on the
# `half` and `pattern` fills, compared in units of the output's quantization scale.
#  1. tests/tools/make_quant_models.c writes int8/uint8 models with the builder (per-channel
#     int8 weights, float I/O through QUANTIZE / DEQUANTIZE), one per op plus a small network;
#  2. with --int-arith xnnpack (the arithmetic of the XNNPACK delegate LiteRT.js runs) every
#     output must equal LiteRT.js exactly, except MEAN (XNNPACK's float rescaling of the sum,
#     not reproduced: at most 1 unit);
#  3. with the default TFLite arithmetic, each one-op model must stay within 1 unit (where
#     XNNPACK's rounding differs from TFLite's fixed point; README "Quantized models");
#  4. the real uint8 model (Coral's SSD MobileNet v2, scripts/fetch-quant-corpus.sh; missing is
#     a failure, not a skip), its detection post-processing custom op cut off
#     (tests/tools/cut_custom.c), on uint8 inputs: exact with --int-arith xnnpack.
# Prints PASS/FAIL lines and "run_quant: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
FLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Wall -Wextra -Wshadow -Wstrict-prototypes
       -Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wvla -Werror"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "run_quant: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }

if ! make -s build/liblitegpu.a >"$T/make.log" 2>&1; then bad "build liblitegpu.a" "$(tail -n 3 "$T/make.log")"; finish; fi
for tool in make_quant_models cut_custom; do
    # shellcheck disable=SC2086
    if cc $FLAGS -O2 -o "$T/$tool" "tests/tools/$tool.c" build/liblitegpu.a -lm 2>"$T/cc.log"; then ok "build $tool"
    else bad "build $tool" "$(head -n 3 "$T/cc.log")"; finish; fi
done
mkdir -p "$T/m"
if "$T/make_quant_models" "$T/m" >"$T/m/scales.txt" 2>"$T/gen.log"; then ok "write models"
else bad "write models" "$(cat "$T/gen.log")"; finish; fi

files=(); while read -r name _; do files+=("$T/m/$name.tflite"); done <"$T/m/scales.txt"
if ! node --no-liftoff peers/litert_run.js --fill half,pattern --out "$T/peer" "${files[@]}" >"$T/peer.log" 2>&1; then
    bad "litert.js runs the quantized models" "$(grep -m3 FAILED "$T/peer.log")"; finish
fi
ok "litert.js runs ${#files[@]} quantized models"

# compare NAME FILL ARITH SCALE MAX_UNITS
compare() {
    local name=$1 fill=$2 arith=$3 scale=$4 limit=$5 out="$T/lg/$3/$1/$2" res
    mkdir -p "$(dirname "$out")"
    if ! "$LG" run "$T/m/$name.tflite" --int-arith "$arith" --fill "$fill" --out "$out" >"$T/run.log" 2>&1; then
        bad "$name $fill $arith" "litegpu run: $(cat "$T/run.log")"; return
    fi
    if res=$(python3 tests/e2e/npy_units.py "$T/peer/$name/$fill/output_0.npy" "$out/output_0.npy" "$scale" "$limit"); then
        ok "$name $fill $arith (<= $limit units): $res"
    else
        bad "$name $fill $arith (<= $limit units)" "$res"
    fi
}
while read -r name scale; do
    for fill in half pattern; do
        case $name in q_mean_*) lim=1 ;; *) lim=0 ;; esac
        compare "$name" "$fill" xnnpack "$scale" "$lim"
        # the network compounds per-op differences; the one-op models stay within 1 unit
        [ "$name" = q_net ] || compare "$name" "$fill" tflite "$scale" 1
    done
done <"$T/m/scales.txt"

# the real uint8 model
real=build/quant/ssd_mobilenet_v2_quant.tflite
if [ ! -f "$real" ]; then
    bad "real model" "$real is missing: run scripts/fetch-quant-corpus.sh"; finish
fi
if ! "$T/cut_custom" "$real" "$T/ssd.tflite" TFLite_Detection_PostProcess 2>"$T/cut.log"; then
    bad "cut the detection post-processing" "$(cat "$T/cut.log")"; finish
fi
if ! node --no-liftoff peers/litert_run.js --fill half,pattern --out "$T/peer" "$T/ssd.tflite" >"$T/peer.log" 2>&1; then
    bad "litert.js runs the SSD model" "$(grep -m3 FAILED "$T/peer.log")"; finish
fi
for fill in half pattern; do
    out="$T/lg/ssd/$fill"; mkdir -p "$(dirname "$out")"
    if ! "$LG" run "$T/ssd.tflite" --int-arith xnnpack -i "0=$T/peer/ssd/$fill/input_0.npy" --out "$out" >"$T/run.log" 2>&1; then
        bad "ssd $fill" "litegpu run: $(cat "$T/run.log")"; continue
    fi
    for k in 0 1; do
        if res=$(python3 tests/e2e/npy_units.py "$T/peer/ssd/$fill/output_$k.npy" "$out/output_$k.npy" 1 0); then
            ok "ssd_mobilenet_v2_quant $fill output_$k exact: $res"
        else
            bad "ssd_mobilenet_v2_quant $fill output_$k exact" "$res"
        fi
    done
    # run's own fill of a UINT8 input (cli_inputs_make: min(255, floor(256 f))) is the input
    # LiteRT.js was given: the outputs must be the same without --input
    out="$T/lg/ssd-fill/$fill"; mkdir -p "$(dirname "$out")"
    if "$LG" run "$T/ssd.tflite" --int-arith xnnpack --fill "$fill" --out "$out" >"$T/run.log" 2>&1 &&
       res=$(python3 tests/e2e/npy_units.py "$T/peer/ssd/$fill/output_0.npy" "$out/output_0.npy" 1 0); then
        ok "ssd --fill $fill (run's UINT8 fill) equals LiteRT.js: $res"
    else
        bad "ssd --fill $fill (run's UINT8 fill) equals LiteRT.js" "$(cat "$T/run.log") ${res:-}"
    fi
done
finish
