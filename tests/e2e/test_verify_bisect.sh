#!/usr/bin/env bash
# `litegpu verify --bisect`: every float intermediate tapped, run on the real ML Drift delegate
# (LiteRT.js WebGPU in headless Chromium), each tap judged GPU vs CPU. On the model WebGPU is
# known to compute wrong (fc-2d-broadcast__trigger: the [4,16] FULLY_CONNECTED output read as
# {4,1,1,16} against a [1,1,16] scale, tests/e2e/check_vs_webgpu.tsv) it names op 0
# FULLY_CONNECTED, the first op whose output differs, and exits 1; on a model that runs right
# (examples/tiny_convnet.tflite, hand_landmark_lite) no tap diverges and it exits 0.
# A missing oracle is an error, never a skip.
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
if ! cc -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -o "$T/mk" tests/tools/make_rule_models.c \
        tests/models/rule_models*.c build/liblitegpu.a -lm 2>"$T/cc.err" || ! mkdir -p "$T/r" || ! "$T/mk" "$T/r" >/dev/null; then
    bad "build the rule models" "$(head -c 300 "$T/cc.err")"
    # verify --out with a relative folder judges the outputs (the harness names its files relative
# to the working directory: a regression once read them under the folder twice)
( cd "$T" && "$OLDPWD/$LG" verify "$OLDPWD/examples/tiny_convnet.tflite" --out vo >"$T/vo.txt" 2>&1 ); rc=$?
if [ "$rc" = 0 ] && grep -q 'outputs match the CPU' "$T/vo.txt" && grep -q '^  output 0: GPU vs CPU' "$T/vo.txt" && [ -f "$T/vo/tiny_convnet/gpu/output_0.npy" ]
then ok "verify --out (relative folder): outputs judged, files kept"; else bad "verify --out relative" "exit $rc: $(head -c 300 "$T/vo.txt")"; fi
echo "verify_bisect: $pass passed, $fail failed"; exit 1
fi
"$LG" verify "$T/r/fc-2d-broadcast__trigger.tflite" --bisect >"$T/t.txt" 2>"$T/t.err"; rc=$?
if [ "$rc" = 1 ] && grep -q 'bisect over 1 tap(s): first divergent op 0 FULLY_CONNECTED$' "$T/t.txt" \
   && grep -q '^  output 0: DIFFERS' "$T/t.txt"; then ok "fc-2d-broadcast trigger: names op 0 FULLY_CONNECTED, exit 1"
else bad "fc-2d-broadcast trigger" "exit $rc: $(cat "$T/t.txt" "$T/t.err" | head -c 500)"; fi
"$LG" verify "$T/r/fc-2d-broadcast__trigger.tflite" --bisect --json >"$T/t.json" 2>/dev/null
if python3 -c '
import json,sys
r=json.load(open(sys.argv[1])); m=r["models"][0]; b=m["bisect"]
assert r["verb"]=="verify" and r["ok"] is False and m["ok"] is False
assert b["compiled"] is True and b["n_taps"]==1 and b["outputs_ok"] is False
f=b["first_divergent"]; assert f["op"]==0 and f["op_name"]=="FULLY_CONNECTED" and f["ok"] is False and f["score"]>0.05
' "$T/t.json" 2>"$T/py.err"; then ok "fc-2d-broadcast trigger --json: first_divergent is op 0, outputs_ok false"
else bad "fc-2d-broadcast trigger --json" "$(tail -n 2 "$T/py.err")"; fi
for m in examples/tiny_convnet.tflite build/corpus/hand_landmark_lite.tflite; do
    "$LG" verify "$m" --bisect >"$T/c.txt" 2>"$T/c.err"; rc=$?
    if [ "$rc" = 0 ] && grep -q 'no tapped op diverges$' "$T/c.txt" && ! grep -q DIFFERS "$T/c.txt"; then
        ok "$(basename "$m"): $(grep -o 'bisect over [0-9]* tap(s)' "$T/c.txt"), none diverges, exit 0"
    else bad "$(basename "$m") bisect" "exit $rc: $(cat "$T/c.txt" "$T/c.err" | head -c 400)"; fi
done
"$LG" verify examples/tiny_convnet.tflite examples/blocked_net.tflite --bisect >/dev/null 2>"$T/e"; rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$T/e")" = 1 ]; then ok "--bisect with two models: usage error"; else bad "--bisect two models" "exit $rc"; fi
# verify --out with a relative folder judges the outputs (the harness names its files relative
# to the working directory: a regression once read them under the folder twice)
( cd "$T" && "$OLDPWD/$LG" verify "$OLDPWD/examples/tiny_convnet.tflite" --out vo >"$T/vo.txt" 2>&1 ); rc=$?
if [ "$rc" = 0 ] && grep -q 'outputs match the CPU' "$T/vo.txt" && grep -q '^  output 0: GPU vs CPU' "$T/vo.txt" && [ -f "$T/vo/tiny_convnet/gpu/output_0.npy" ]
then ok "verify --out (relative folder): outputs judged, files kept"; else bad "verify --out relative" "exit $rc: $(head -c 300 "$T/vo.txt")"; fi
echo "verify_bisect: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
