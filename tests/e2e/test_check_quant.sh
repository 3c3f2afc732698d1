#!/usr/bin/env bash
# Holds `litegpu check --target mldrift --gpu webgpu` to the real ML Drift delegate (LiteRT.js
# WebGPU in headless Chromium, peers/verify/verify.js) on quantized models, in ONE browser
# session (fp32, `half` input; the harness fills non-float inputs with zeros):
#  - the rule models of the quantized-model rules (tests/models/quant_check_models.c via
#    tests/tools/make_check_quant_models.c: dequantize-const-shape, fc-runtime-weights-bias,
#    quant-graph-output, op-version-understated, a trigger and near-misses each);
#  - the full-integer models of tests/tools/make_quant_models.c (int8/uint8 one-op models and a
#    small network, float I/O through QUANTIZE/DEQUANTIZE);
#  - the real uint8 Coral SSD MobileNet v2 (build/quant, its detection post-processing custom op
#    cut by tests/tools/cut_custom.c: uint8 in, uint8 out, a quant-graph-output trigger) and the
#    same with its outputs DEQUANTIZEd to float (the rule's fix, a near-miss);
#  - the corpus quantized by `litegpu quantize --mode int8-weights`: --per-tensor (hand_landmark_lite
#    is the dequantize-const-shape trigger of the issue: its FULLY_CONNECTED weights [63,672]),
#    hand_landmark_lite with --exclude FULLY_CONNECTED (the rule's fix, a near-miss), and
#    per-channel (DEQUANTIZE version 5: op-version).
# check's "ok" (READY) is compared with the delegate's "fully on the GPU" as cmd_verify.c judges it
# (tests/e2e/delegate_verdict.py, the comparison of test_check_vs_delegate.sh). A disagreement is
# a FAIL, except the ones documented below (models check blocks on purpose: the delegate takes
# them and computes them wrong; the table fails if one stops differing). Agreement is printed.
# A missing Chromium, peers/node_modules or the SSD file is a FAILURE, not a skip.
# Prints PASS/FAIL per model and "check_quant: N passed, N failed". Env: CC (default cc).
set -u
cd "$(dirname "$0")/../.." || exit 2
CC=${CC:-cc}
LG=${LG:-build/litegpu}
FLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Wall -Wextra -Wshadow -Wstrict-prototypes
       -Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wvla -Werror"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "check_quant: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
t_start=$(date +%s)

# ---- preconditions: each missing piece is a failure ----
[ -x /usr/bin/chromium ] || bad "chromium" "/usr/bin/chromium is missing (make verify-deps)"
for p in playwright-core @litertjs/core; do
    [ -f "peers/node_modules/$p/package.json" ] || bad "peers/node_modules/$p" "not installed (make verify-deps)"
done
if [ ! -x "$LG" ] || [ ! -f build/liblitegpu.a ]; then bad "build" "$LG or build/liblitegpu.a not built (make all)"; fi
SSD=build/quant/ssd_mobilenet_v2_quant.tflite
[ -f "$SSD" ] || bad "real model" "$SSD is missing: run scripts/fetch-quant-corpus.sh"
[ "$fail" -eq 0 ] || finish

# ---- the models ----
for tool in make_check_quant_models make_quant_models cut_custom; do
    extra=""; [ "$tool" = make_check_quant_models ] && extra=tests/models/quant_check_models.c
    # shellcheck disable=SC2086  # FLAGS and extra are word lists
    if ! "$CC" $FLAGS -O2 -o "$T/$tool" "tests/tools/$tool.c" $extra build/liblitegpu.a -lm 2>"$T/cc.err"; then
        bad "compile $tool" "$(head -c 600 "$T/cc.err")"; finish
    fi
done
mkdir -p "$T/m"
if ! "$T/cut_custom" "$SSD" "$T/m/ssd_cut.tflite" TFLite_Detection_PostProcess 2>"$T/cut.err"; then
    bad "cut the SSD's post-processing" "$(cat "$T/cut.err")"; finish
fi
if ! "$T/make_check_quant_models" "$T/m" "$T/m/ssd_cut.tflite" "$T/m/ssd_cut_float.tflite" 2>"$T/mk.err"; then
    bad "make_check_quant_models" "$(cat "$T/mk.err")"; finish
fi
if ! "$T/make_quant_models" "$T/m" >"$T/scales.txt" 2>"$T/mq.err"; then
    bad "make_quant_models" "$(cat "$T/mq.err")"; finish
fi
man=$T/m/manifest.tsv
while read -r name _; do printf '%s.tflite\t-\tmodel\t\n' "$name" >>"$man"; done <"$T/scales.txt"
printf 'ssd_cut.tflite\tquant-graph-output\ttrigger\t\n' >>"$man"
printf 'ssd_cut_float.tflite\tquant-graph-output\tnearmiss\t\n' >>"$man"
# quantize VARIANT CORPUS_MODEL RULE KIND ARGS...
quantize() {
    local out=$1 base=$2 rule=$3 kind=$4; shift 4
    if "$LG" quantize "build/corpus/$base.tflite" -o "$T/m/$out.tflite" --mode int8-weights "$@" >"$T/q.log" 2>&1; then
        printf '%s.tflite\t%s\t%s\t\n' "$out" "$rule" "$kind" >>"$man"
    else
        bad "quantize $out" "$(tail -n 2 "$T/q.log")"
    fi
}
quantize hand_landmark_lite.int8pt hand_landmark_lite dequantize-const-shape trigger --per-tensor
quantize hand_landmark_lite.int8pt_fcfloat hand_landmark_lite dequantize-const-shape nearmiss --per-tensor --exclude FULLY_CONNECTED
quantize hand_landmark_lite.int8pc hand_landmark_lite op-version trigger
for b in face_detection_short_range selfie_segmentation pose_landmark_lite; do
    quantize "$b.int8pt" "$b" - model --per-tensor
done
n_models=$(($(wc -l <"$man") - 1))
ok "$n_models quantized models written"

# ---- check's prediction, model by model ----
models=()
: >"$T/check.tsv"
while IFS=$'\t' read -r file _rule _kind _args; do
    [ "$file" = file ] && continue
    models+=("$T/m/$file")
    "$LG" check --target mldrift --gpu webgpu --json "$T/m/$file" >"$T/m/$file.check.json" 2>"$T/m/$file.check.err"
    printf '%s\t%s\t%s\n' "$file" "$?" "$T/m/$file.check.json" >>"$T/check.tsv"
done <"$man"

# ---- the delegate's verdict: one browser for the batch ----
t0=$(date +%s)
node --no-liftoff peers/verify/verify.js --precision fp32 --fill half --runs 0 --timeout-ms 60000 \
    --out "$T/out" "${models[@]}" >"$T/v.jsonl" 2>"$T/v.err"
rc=$?
secs=$(( $(date +%s) - t0 ))
# exit 3: some model could not be processed (a timeout: delegate_verdict.py fails it unless
# documented as not-judged); anything else but 0 is fatal
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    bad "harness" "exit $rc; stderr: $(head -c 600 "$T/v.err")"
    finish
fi
ok "harness batch of ${#models[@]} models (exit $rc, ${secs} s)"

# ---- the comparison ----
# The documented differences: models check blocks on purpose because the delegate takes them
# whole and computes them wrong (each must still differ, and its GPU output must still differ
# from the CPU's; any other difference fails):
#  - FULLY_CONNECTED with runtime weights and a non-zero constant bias: ML Drift drops the bias;
#  - TRANSPOSE_CONV + RELU stored at version 3 (its activation needs 4): check judges it on the
#    computed version (op-version); ML Drift reads the stored one and ignores the activation.
tab=$'\t'
cat >"$T/documented.tsv" <<EOF
file${tab}rule${tab}side${tab}gpu_output${tab}reason
fc-runtime-weights-bias__trigger.tflite${tab}fc-runtime-weights-bias${tab}check-blocks${tab}differs${tab}weights a graph input, bias [-0.3,-0.2,-0.1,0]: delegated whole, every output off by its bias
fc-runtime-weights-bias__trigger2.tflite${tab}fc-runtime-weights-bias${tab}check-blocks${tab}differs${tab}INT8 [1,8] weights through DEQUANTIZE, bias -0.3: GPU -0.16, CPU -0.46
op-version-understated__nearmiss3.tflite${tab}op-version-understated${tab}check-blocks${tab}differs${tab}TRANSPOSE_CONV with a fused RELU stored at version 3: delegated by its stored version and computed without the activation; check blocks it (op-version on the computed 4)
EOF
n_doc=$(($(wc -l <"$T/documented.tsv") - 1))
if ! "$LG" check --list-rules --json >"$T/rules.json" 2>"$T/rules.err"; then
    bad "check --list-rules --json" "$(head -c 300 "$T/rules.err")"
    finish
fi
python3 tests/e2e/delegate_verdict.py "$man" "$T/check.tsv" "$T/v.jsonl" "$T/documented.tsv" "$T/rules.json" >"$T/verdict" 2>&1
vrc=$?
while IFS= read -r line; do
    case "$line" in
        "PASS "*) ok "${line#PASS }" ;;
        "FAIL "*) bad "${line#FAIL }" ;;
        *) echo "$line" ;;
    esac
done <"$T/verdict"
if [ "$vrc" -ne 0 ] && ! grep -q '^FAIL ' "$T/verdict"; then
    bad "delegate_verdict.py" "exit $vrc: $(tail -n 3 "$T/verdict" | tr '\n' ' ')"
fi
# every judged model agrees but the documented ones
if a=$(grep -o '^agreement: [0-9]* of [0-9]* judged' "$T/verdict"); then
    # shellcheck disable=SC2086  # a is "agreement: A of J judged"
    set -- $a
    [ $(( $4 - $2 )) -le "$n_doc" ] && ok "agreement $2 of $4 judged (the $n_doc documented differences apart: all)" ||
        bad "agreement" "$2 of $4 judged: more than the $n_doc documented differences"
else
    bad "agreement" "no agreement line from delegate_verdict.py"
fi
echo "time: $(( $(date +%s) - t_start )) s"
finish
