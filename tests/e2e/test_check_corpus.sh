#!/usr/bin/env bash
# `litegpu check` on the five real corpus models, per target, against verdicts reasoned from
# the delegates' rules (shared/reference/gpu-delegate-rules.md) and what peers.md saw on the
# real ML Drift delegate (WebGPU). Each expectation says why.
set -u
cd "$(dirname "$0")/../.."
LG=build/litegpu
C=build/corpus
pass=0; fail=0
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

# expect MODEL TARGET EXIT READY BLOCKERS RULES(comma list of blocker rule ids, or -) WHY
expect() {
    local model=$1 target=$2 want_rc=$3 want_ready=$4 want_blockers=$5 want_rules=$6 why=$7
    local out="$T/$model.$target.json" rc
    "$LG" check "$C/$model.tflite" --target "$target" --json >"$out" 2>"$T/err"
    rc=$?
    local got
    got=$(python3 - "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rules = sorted({f["rule"] for f in r["findings"] if f["severity"] == "blocker"})
print(str(r["ok"]).lower(), r["summary"]["n_blockers"], ",".join(rules) or "-")
PY
)
    if [ "$rc" = "$want_rc" ] && [ "$got" = "$want_ready $want_blockers $want_rules" ]; then
        echo "PASS $model $target: $why"; pass=$((pass + 1))
    else
        echo "FAIL $model $target: exit $rc, got '$got', want '$want_ready $want_blockers $want_rules' ($why)"
        fail=$((fail + 1))
    fi
}

for t in mldrift classic; do
    expect face_detection_short_range $t 0 true 0 - \
        "CONV_2D/DEPTHWISE/ADD/RELU/PAD/MAX_POOL/RESHAPE/CONCATENATION all parse; DEQUANTIZE of fp16 weights is folded"
    expect selfie_segmentation $t 0 true 0 - \
        "custom Convolution2DTransposeBias is supported by name; HARD_SWISH, AVERAGE_POOL_2D, MUL, LOGISTIC parse"
    expect hand_landmark_lite $t 0 true 0 - \
        "FULLY_CONNECTED with constant weights, single MEAN with const axes, all rank <= 4"
    expect pose_landmark_lite $t 0 true 0 - \
        "RESIZE_BILINEAR with half_pixel_centers but not align_corners is accepted"
done
expect face_detection_full_range_sparse mldrift 1 false 92 op-params,op-unsupported \
    "ML Drift has no DENSIFY parser (46 DENSIFY ops), and rejects the 46 DEQUANTIZE ops that read them ('Dequantize for Densify is not supported', seen on the real delegate)"
expect face_detection_full_range_sparse classic 0 true 0 - \
    "the classic delegate parses DENSIFY (0 runtime inputs), and the DEQUANTIZE after it runs on the GPU"

# The blockers name each DENSIFY op (op-unsupported) and each DEQUANTIZE of one (op-params).
n=$(python3 -c '
import json,sys
r=json.load(open(sys.argv[1]))
d=sum(1 for f in r["findings"] if f["rule"]=="op-unsupported" and f["op_name"]=="DENSIFY")
q=sum(1 for f in r["findings"] if f["rule"]=="op-params" and f["op_name"]=="DEQUANTIZE" and "Densify" in f["reason"])
print(d, q, len(r["findings"]))' "$T/face_detection_full_range_sparse.mldrift.json")
if [ "$n" = "46 46 92" ]; then echo "PASS sparse: 46 DENSIFY + 46 DEQUANTIZE-of-DENSIFY blockers, nothing else"; pass=$((pass + 1));
else echo "FAIL sparse: DENSIFY, DEQUANTIZE, total = $n"; fail=$((fail + 1)); fi

echo "check_corpus: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
