#!/usr/bin/env bash
# More full-integer kernels against LiteRT.js (peers/litert_run.js), compared in units of the
# output's quantization scale (the second half of test_run_quant.sh's coverage):
#  1. tests/tools/make_quant_models2.c writes one-op int8 / uint8 / int16 models for the
#     data-movement ops (RESHAPE ... CONCATENATION on int8), RESIZE_BILINEAR / NEAREST_NEIGHBOR,
#     TRANSPOSE_CONV, GELU, RSQRT, SQRT, ABS, LOG, SQUARED_DIFFERENCE, DIV, PRELU,
#     MAXIMUM / MINIMUM, int16 LOGISTIC / TANH / SOFTMAX / GELU / ADD / MUL, BATCH_MATMUL (two
#     activations; activations x constant), a transformer-ish block (FC, BATCH_MATMUL, SOFTMAX,
#     ADD, GELU) and a decoder head (TRANSPOSE_CONV, RESIZE_BILINEAR, PRELU, CONCATENATION).
#     Their input is UINT8 (LiteRT.js fills it), converted exactly to int8; every output leaves
#     through DEQUANTIZE;
#  2. LiteRT.js runs them on the `half` and `pattern` fills; `litegpu run` takes the same
#     uint8 inputs (the peer's input_0.npy);
#  3. --int-arith xnnpack: every output equals LiteRT.js exactly;
#     --int-arith tflite: exact, except where the generator allows more (the ops LiteRT.js
#     hands to XNNPACK: RESIZE_BILINEAR, TRANSPOSE_CONV, FULLY_CONNECTED, BATCH_MATMUL, ADD
#     round differently from TFLite's reference kernels: 1 unit one op, 3 in the networks);
#  4. the refused forms: `litegpu run` exits 2 with one line naming the op and the reason, in
#     both arithmetics; what LiteRT.js does with each is printed (INFO), not judged.
# Prints PASS/FAIL lines and "run_quant2: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
FLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Wall -Wextra -Wshadow -Wstrict-prototypes
       -Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wvla -Werror"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "run_quant2: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }

if ! make -s build/liblitegpu.a >"$T/make.log" 2>&1; then bad "build liblitegpu.a" "$(tail -n 3 "$T/make.log")"; finish; fi
# shellcheck disable=SC2086
if cc $FLAGS -O2 -o "$T/gen" tests/tools/make_quant_models2.c build/liblitegpu.a -lm 2>"$T/cc.log"; then ok "build make_quant_models2"
else bad "build make_quant_models2" "$(head -n 3 "$T/cc.log")"; finish; fi
mkdir -p "$T/m"
if "$T/gen" "$T/m" >"$T/list.txt" 2>"$T/gen.log"; then ok "write models"
else bad "write models" "$(cat "$T/gen.log")"; finish; fi

files=(); while read -r kind name _; do [ "$kind" = run ] && files+=("$T/m/$name.tflite"); done <"$T/list.txt"
if ! node --no-liftoff peers/litert_run.js --fill half,pattern --out "$T/peer" "${files[@]}" >"$T/peer.log" 2>&1; then
    bad "litert.js runs the models" "$(grep -m3 FAILED "$T/peer.log")"; finish
fi
ok "litert.js runs ${#files[@]} models"

# run NAME FILL ARITH SCALE MAX_UNITS: litegpu on the peer's input; every output goes to the
# comparison list (LABEL PEER.npy OURS.npy SCALE MAX_UNITS), judged below in one python process
run() {
    local name=$1 fill=$2 arith=$3 scale=$4 limit=$5 out="$T/lg/$3/$1/$2" f k
    mkdir -p "$out"
    if ! "$LG" run "$T/m/$name.tflite" --int-arith "$arith" -i "0=$T/peer/$name/$fill/input_0.npy" --out "$out" \
        >"$T/run.log" 2>&1; then
        bad "$name $fill $arith" "litegpu run: $(cat "$T/run.log")"; return
    fi
    for f in "$T/peer/$name/$fill"/output_*.npy; do
        k=$(basename "$f" .npy)
        echo "$name/$fill/$arith/$k $f $out/$k.npy $scale $limit" >>"$T/pairs.txt"
    done
}
: >"$T/pairs.txt"
while read -r kind name scale tfl xnn; do
    [ "$kind" = run ] || continue
    for fill in half pattern; do
        run "$name" "$fill" xnnpack "$scale" "$xnn"
        run "$name" "$fill" tflite "$scale" "$tfl"
    done
done <"$T/list.txt"
# npy_units.py's comparison (units = |a - b| / scale rounded, for every pair)
while read -r verdict label res; do
    if [ "$verdict" = ok ]; then ok "$label: $res"; else bad "$label" "$res"; fi
done < <(python3 - "$T/pairs.txt" <<'PY'
import sys
sys.path.insert(0, 'tests/e2e')
from npy_units import load
for line in open(sys.argv[1]):
    label, a, b, scale, limit = line.split()
    try:
        sa, ca, x = load(a)
        sb, cb, y = load(b)
    except SystemExit as e:
        print('bad', label, e)
        continue
    if sa != sb:
        print('bad', label, 'shape %s vs %s' % (sa, sb))
        continue
    units = [int(round(abs(p - q) / float(scale))) for p, q in zip(x, y)]
    worst, nd = max(units, default=0), sum(1 for u in units if u)
    res = '(<= %s units) units_max=%d n_diff=%d of %d' % (limit, worst, nd, len(units))
    print('ok' if worst <= int(limit) else 'bad', label, res)
PY
)

# the refused forms (uint8 inputs: the [1,4,6,6] pattern input of q2_maximum)
u8in="$T/peer/q2_maximum/pattern/input_0.npy"
while read -r kind name what; do
    [ "$kind" = refuse ] || continue
    for arith in tflite xnnpack; do
        if "$LG" run "$T/m/$name.tflite" --int-arith "$arith" -i "0=$u8in" --fill pattern --force --out "$T/r" \
            >"$T/run.log" 2>&1; then
            bad "$name $arith refused" "litegpu run succeeded"
        else
            rc=$?
            if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/run.log")" -eq 1 ] && grep -q "$what" "$T/run.log"; then
                ok "$name $arith refused: $(cat "$T/run.log")"
            else
                bad "$name $arith refused (exit 2, one line with '$what')" "exit $rc: $(head -c 300 "$T/run.log")"
            fi
        fi
    done
    node --no-liftoff peers/litert_run.js --fill pattern --out "$T/rpeer" "$T/m/$name.tflite" >"$T/rpeer.log" 2>/dev/null
    if grep -q '"ok":true' "$T/rpeer.log"; then peer="runs it"
    else peer="fails: $(grep -o '"error":"[^"]\{0,160\}' "$T/rpeer.log" | head -n 1 | cut -c10-)"; fi
    echo "INFO $name: LiteRT.js $peer"
done <"$T/list.txt"
finish
