#!/usr/bin/env bash
# `litegpu ablate` (issue #14 item 4) on the converted refactor fixture RefactorNet (the handbook
# lab's residual MLP: six pre-norm residual FFN blocks), resnet_2stage and vit_tiny:
#  - RefactorNet: exactly 6 blocks, in order, each chained to the previous one, each holding
#    6,336 parameters (the fixture README's hand arithmetic: LayerNorm 64 + up 32*96+96 = 3,168 +
#    down 96*32+32 = 3,104), the difference of lg_model_learned_params equal to the constants only
#    F reads; --remove 1 gives n_params 32,420 and --remove 2 26,084 (38,756 - 2 * 6,336), the
#    handbook's figures; the metadata "litegpu.ablate" is in OUT; the evidence record verifies;
#  - the eval figures of the --remove 1 candidate (--metric argmax --eval eval/) equal an
#    independent computation (tests/e2e/ablate_check.py: PyTorch's eval_logits.npy for the
#    original, the candidate run by `litegpu run` on each eval input): argmax exactly, kl / mse
#    within 1e-3 relative;
#  - the warning that ablation losses do not add, and the measured combination next to the sum;
#  - resnet_2stage: the two identity-shortcut blocks (BasicBlock 16: 2 * (16*16*9+16) = 4,640;
#    Bottleneck 32-8-32: 32*8+8 + 8*8*9+8 + 8*32+32 = 1,136) and the downsample ADD reported as
#    two independent branches; vit_tiny: 2 attention residuals (LayerNorm 2*32 + in_proj
#    32*96 (its zero bias is folded away by convert) + out_proj 32*32+32 = 4,192) and 2 MLP
#    residuals (64 + 32*64+64 + 64*32+32 = 4,256);
#  - hand_landmark_lite (fp16 weights behind DEQUANTIZE): 9 blocks, their weights' DEQUANTIZEs
#    inside F, each block's parameter difference = the constants only F reads;
#  - LiteRT.js runs every written model and equals `litegpu run` within 1e-5 of each output's
#    magnitude (fills half and pattern);
#  - refusals: an existing OUT, --remove past the blocks, -o without --remove, an existing
#    --evidence folder, an unknown metric: exit 2, one line.
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
R=tests/fixtures/refactor
O=tests/fixtures/onnx
CMP=tests/e2e/npy_compare.py
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "ablate: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
[ -x "$LG" ] || { bad "build" "$LG missing"; finish; }

for src in "$R/refactornet.onnx" "$O/resnet_2stage.op17.onnx" "$O/vit_tiny.op17.onnx"; do
    n=$(basename "$src" .onnx); n=${n%.op17}
    "$LG" convert "$src" -o "$T/$n.tflite" >/dev/null 2>"$T/err" || { bad "convert $n" "$(head -c 300 "$T/err")"; finish; }
done

# jq-like assertions: pyassert NAME FILE 'python expression over d'
pyassert() {
    if "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); r=eval(sys.argv[2]); sys.exit(0 if r is True else "got %r" % (r,))' \
        "$2" "$3" 2>"$T/pyerr"; then ok "$1"; else bad "$1" "$(tail -n 1 "$T/pyerr")"; fi
}

# ---- RefactorNet: the six blocks
"$LG" ablate "$T/refactornet.tflite" --calib "$R/calib" --eval "$R/eval" --json >"$T/list.json" 2>"$T/err" ||
    bad "refactornet ablate --json" "$(head -c 300 "$T/err")"
pyassert "refactornet: exactly 6 blocks, none skipped" "$T/list.json" 'd["n_blocks"] == 6 and len(d["blocks"]) == 6 and d["skipped"] == []'
pyassert "refactornet: blocks in order, /blocks.i/Add_1 each, x of block i+1 = y of block i" "$T/list.json" \
    'all(b["name"].startswith("/blocks.%d/Add_1_output_0" % i) for i, b in enumerate(d["blocks"])) and all(d["blocks"][i+1]["x"] == d["blocks"][i]["name"] for i in range(5)) or [b["name"] for b in d["blocks"]]'
pyassert "refactornet: each block holds 6336 parameters (difference = constants only F reads)" "$T/list.json" \
    'all(b["n_params"] == 6336 and b["n_params_f"] == 6336 and b["parent"] is None for b in d["blocks"]) or [(b["n_params"], b["n_params_f"]) for b in d["blocks"]]'
pyassert "refactornet: n_params 38756, 64 calib and 128 eval inputs" "$T/list.json" \
    'd["n_params"] == 38756 and d["n_calib"] == 64 and d["n_eval"] == 128 and d["verb"] == "ablate" and d["ok"] is True'
pyassert "refactornet: table sorted by kl ascending, every figure finite" "$T/list.json" \
    '[d["blocks"][i]["calib"]["kl"] for i in d["ranking"]] == sorted(b["calib"]["kl"] for b in d["blocks"]) and all(b["eval"]["argmax"] is not None for b in d["blocks"])'

# ---- --remove 1 (argmax on eval), with an evidence record
"$LG" ablate "$T/refactornet.tflite" --calib "$R/calib" --eval "$R/eval" --metric argmax --remove 1 -o "$T/r1.tflite" \
    --evidence "$T/ev" --json >"$T/r1.json" 2>"$T/err" || bad "refactornet --remove 1" "$(head -c 300 "$T/err")"
pyassert "--remove 1: n_params 38756 -> 32420 (the handbook's figure)" "$T/r1.json" \
    'd["removal"]["n_params_before"] == 38756 and d["removal"]["n_params_after"] == 32420 and len(d["removal"]["blocks"]) == 1'
pyassert "--remove 1: the block removed is rank 1 by argmax; its single figures are the candidate's" "$T/r1.json" \
    'd["removal"]["blocks"][0] == d["ranking"][0] and d["blocks"][d["ranking"][0]]["eval"] == d["removal"]["eval"]'
if "$LG" info "$T/r1.tflite" --json 2>/dev/null | grep -q '"litegpu.ablate"'; then ok "--remove 1: metadata litegpu.ablate in OUT"
else bad "--remove 1: metadata litegpu.ablate in OUT"; fi
if [ -f "$T/ev/contract.json" ] && (cd "$T/ev" && sha256sum -c --quiet SHA256SUMS >/dev/null 2>&1) &&
    grep -q '"kind": *"ablate"' "$T/ev/contract.json"; then ok "--evidence: a record whose SHA256SUMS verify, change kind ablate"
else bad "--evidence record" "$(ls "$T/ev" 2>&1 | tr '\n' ' ')"; fi
mkdir -p "$T/r1eval"
for f in "$R"/eval/*.npy; do
    b=$(basename "$f" .npy)
    "$LG" run "$T/r1.tflite" --input "0=$f" --out-dir "$T/r1eval/$b" >/dev/null 2>"$T/err" || { bad "run r1 on eval/$b" "$(head -c 200 "$T/err")"; break; }
done
if "$PY" tests/e2e/ablate_check.py "$T/r1.json" "$R/eval_logits.npy" "$T/r1eval" >"$T/chk" 2>&1; then
    ok "--remove 1: eval argmax/kl/mse = independent computation ($(cat "$T/chk"))"
else bad "--remove 1: eval figures vs independent computation" "$(tail -n 2 "$T/chk")"; fi

# ---- --remove 2 (text): losses do not add; --remove-block 0
"$LG" ablate "$T/refactornet.tflite" --calib "$R/calib" --remove 2 -o "$T/r2.tflite" >"$T/r2.txt" 2>"$T/err" || bad "--remove 2" "$(head -c 300 "$T/err")"
if grep -q 'ablation losses do not add' "$T/r2.txt" && grep -q 'n_params 38756 -> 26084 (-12672)' "$T/r2.txt" &&
    grep -qE 'measured kl [0-9.e-]+ on calibration; the sum of the single losses [0-9.e-]+' "$T/r2.txt"; then
    ok "--remove 2: the warning, n_params 26084, measured next to the sum ($(grep -o 'measured kl.*' "$T/r2.txt"))"
else bad "--remove 2 text" "$(head -c 600 "$T/r2.txt")"; fi
"$LG" ablate "$T/refactornet.tflite" --calib "$R/calib" --remove-block 0 -o "$T/rb0.tflite" --json >"$T/rb0.json" 2>"$T/err" || bad "--remove-block 0" "$(head -c 300 "$T/err")"
pyassert "--remove-block 0: block 0 removed, n_params 32420" "$T/rb0.json" 'd["removal"]["blocks"] == [0] and d["removal"]["n_params_after"] == 32420'

# ---- resnet_2stage and vit_tiny
"$LG" ablate "$T/resnet_2stage.tflite" --remove 1 -o "$T/rn1.tflite" --json >"$T/rn.json" 2>"$T/err" || bad "resnet --remove 1" "$(head -c 300 "$T/err")"
pyassert "resnet_2stage: 2 identity-shortcut blocks (4640, 1136 parameters)" "$T/rn.json" \
    '[(b["name"].split("#")[0], b["n_params"], b["n_params_f"]) for b in d["blocks"]] == [("/layer1/Add_output_0", 4640, 4640), ("/layer2/layer2.1/Add_output_0", 1136, 1136)] or [(b["name"], b["n_params"]) for b in d["blocks"]]'
pyassert "resnet_2stage: the downsample ADD is two independent branches" "$T/rn.json" \
    'len(d["skipped"]) == 1 and d["skipped"][0]["name"].startswith("/layer2/layer2.0/Add_output_0") and "two independent branches" in d["skipped"][0]["why"]'
"$LG" ablate "$T/vit_tiny.tflite" --remove 1 -o "$T/vt1.tflite" --json >"$T/vt.json" 2>"$T/err" || bad "vit --remove 1" "$(head -c 300 "$T/err")"
pyassert "vit_tiny: 2 attention residuals (4192) and 2 MLP residuals (4256), in order" "$T/vt.json" \
    '[(b["name"].split("#")[0], b["n_params"], b["n_params_f"]) for b in d["blocks"]] == [("/encoder/layers/encoder_layer_%d/Add%s_output_0" % (i // 2, "_1" if i % 2 else ""), 4256 if i % 2 else 4192, 4256 if i % 2 else 4192) for i in range(4)] or [(b["name"], b["n_params"]) for b in d["blocks"]]'
pyassert "vit_tiny: n_params after = before - the removed block's" "$T/vt.json" \
    'd["removal"]["n_params_after"] == 24042 - d["blocks"][d["removal"]["blocks"][0]]["n_params"] and d["n_params"] == 24042'

# ---- an fp16-weight corpus model (weights behind DEQUANTIZE: F takes its weights' DEQUANTIZEs)
HL=build/corpus/hand_landmark_lite.tflite
if [ -f "$HL" ]; then
    "$LG" ablate "$HL" --remove 1 -o "$T/hl1.tflite" --json >"$T/hl.json" 2>"$T/err" || bad "hand_landmark_lite --remove 1" "$(head -c 300 "$T/err")"
    pyassert "hand_landmark_lite: 9 blocks, each F's DEQUANTIZEs inside it, params difference = constants only F reads" "$T/hl.json" \
        'd["n_blocks"] == 9 and all(b["n_params"] == b["n_params_f"] > 0 and "DEQUANTIZE" in b["kinds"] for b in d["blocks"]) and d["removal"]["n_params_after"] == d["n_params"] - d["blocks"][d["removal"]["blocks"][0]]["n_params"]'
else bad "corpus" "$HL missing"; fi

# ---- LiteRT.js runs every written model; litegpu run equals it
models=()
for n in r1 r2 rb0 rn1 vt1 hl1; do [ -f "$T/$n.tflite" ] && models+=("$T/$n.tflite"); done
if node --no-liftoff peers/litert_run.js --fill half,pattern --out "$T/js" "${models[@]}" >"$T/js.log" 2>"$T/err"; then
    nbad=0; worst=""
    for mf in "${models[@]}"; do
        n=$(basename "$mf" .tflite)
        for fill in half pattern; do
            grep -q "\"model\":\"[^\"]*$n.tflite\",\"fill\":\"$fill\",\"ok\":true" "$T/js.log" || { nbad=$((nbad + 1)); worst="$worst $n/$fill:js-failed"; continue; }
            "$LG" run "$mf" --fill "$fill" --out-dir "$T/lg_${n}_$fill" >/dev/null 2>&1 || { nbad=$((nbad + 1)); worst="$worst $n/$fill:run"; continue; }
            for js in "$T/js/$n/$fill"/output_*.npy; do
                k=$(basename "$js")
                "$PY" "$CMP" "$js" "$T/lg_${n}_$fill/$k" 1e-5 >"$T/c" 2>&1 || { nbad=$((nbad + 1)); worst="$worst $n/$fill/$k:$(tr '\n' ' ' <"$T/c")"; }
            done
        done
    done
    if [ "$nbad" = 0 ]; then ok "LiteRT.js runs all ${#models[@]} written models; litegpu run equals it within 1e-5 (half, pattern)"
    else bad "LiteRT.js vs litegpu run" "$worst"; fi
else bad "LiteRT.js" "$(head -c 300 "$T/err")"; fi

# ---- refusals: exit 2, one line, nothing on stdout
refuse() {
    local name="$1"; shift
    "$LG" ablate "$@" >"$T/out" 2>"$T/err"; local rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q '^litegpu: error: ' "$T/err" && [ ! -s "$T/out" ]; then ok "$name ($(cut -c1-110 "$T/err"))"
    else bad "$name" "exit $rc: $(head -c 200 "$T/err")"; fi
}
refuse "an existing OUT without --force" "$T/refactornet.tflite" --remove 1 -o "$T/r1.tflite"
refuse "--remove 7 of 6 blocks" "$T/refactornet.tflite" --remove 7 -o "$T/r7.tflite"
refuse "-o without --remove" "$T/refactornet.tflite" -o "$T/rx.tflite"
refuse "an existing --evidence folder" "$T/refactornet.tflite" --remove 1 -o "$T/ry.tflite" --evidence "$T/ev"
refuse "--metric bogus" "$T/refactornet.tflite" --metric bogus
[ -e "$T/r7.tflite" ] || [ -e "$T/ry.tflite" ] && bad "refused runs wrote nothing" || ok "refused runs wrote nothing"
finish
