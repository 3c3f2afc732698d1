#!/usr/bin/env bash
# In --precision f16 the conv family (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED) and
# RESIZE_BILINEAR say their outputs are already halves (lgk_claim_half), and the interpreter
# skips rounding them again. The sanitizer build (-DLG_CHECK_HALF_CLAIMS) checks every claimed
# output value after every op and fails with exit 2 naming the op. Here:
#  - every corpus model and every example model runs in f16 on two inputs under that build:
#    no claim is false (exit 0), and the outputs equal the normal build's bit for bit;
#  - the check can fire: LG_TEST_CLAIM_ALL=1 makes every op claim, and the first op whose
#    outputs are not halves (an fp32 function rounded only by the interpreter) is reported.
# Env: LG (default build/litegpu), LGSAN (default build/san/litegpu).
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
LGSAN=${LGSAN:-build/san/litegpu}
CORPUS=${CORPUS:-build/corpus}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }

models=("$CORPUS"/*.tflite examples/*.tflite)
[ "${#models[@]}" -ge 8 ] || bad "models" "expected 5 corpus + 3 example models, found ${#models[@]}"
for m in "${models[@]}"; do
    b=$(basename "$m" .tflite)
    for fill in pattern random:7; do
        d="$T/$b-${fill%%:*}"
        if ASAN_OPTIONS=detect_leaks=1 "$LGSAN" run "$m" --precision f16 --fill "$fill" --out "$d-san" >"$T/o" 2>"$T/e"; then
            "$LG" run "$m" --precision f16 --fill "$fill" --out "$d-opt" >/dev/null 2>&1
            same=1
            for f in "$d-san"/*.npy; do cmp -s "$f" "$d-opt/$(basename "$f")" || same=0; done
            ls "$d-san"/*.npy >/dev/null 2>&1 || same=0
            if [ "$same" = 1 ]; then ok "$b $fill: claims hold, outputs equal the optimized build's"
            else bad "$b $fill" "sanitizer build's outputs differ from the optimized build's"; fi
        else
            bad "$b $fill" "$(head -c 300 "$T/e")"
        fi
    done
done

# near miss: every op claims; layernorm_512 has a RSQRT / DIV whose fp32 result is no half
if LG_TEST_CLAIM_ALL=1 "$LGSAN" run examples/layernorm_512.tflite --precision f16 --fill pattern >/dev/null 2>"$T/e"; then
    bad "false claims are caught" "exit 0"
else
    rc=$?
    if [ "$rc" = 2 ] && grep -q "is not a half" "$T/e" && [ "$(wc -l <"$T/e")" = 1 ]; then
        ok "false claims are caught: $(cat "$T/e")"
    else
        bad "false claims are caught" "exit $rc: $(head -c 300 "$T/e")"
    fi
fi
# and the hook is inert in f32 (no claims there)
if LG_TEST_CLAIM_ALL=1 "$LGSAN" run examples/layernorm_512.tflite --precision f32 --fill pattern >/dev/null 2>"$T/e"; then
    ok "no claims in f32"
else
    bad "no claims in f32" "$(head -c 300 "$T/e")"
fi

echo "f16_claims: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
