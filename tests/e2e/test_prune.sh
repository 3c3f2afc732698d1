#!/usr/bin/env bash
# `litegpu prune` (issue #14 items 1-2) on the converted refactor fixtures and ONNX models:
#  - parameter counts equal the handbook's arithmetic (tests/fixtures/refactor/README.md):
#    RefactorNet --ffn --keep 64: 38,756 -> 26,276; SplitSelfAttention --heads --keep 2:
#    4,224 -> 2,128; ConvPair --conv --keep 6: 663 -> 333; and the count predicted from the
#    group maps equals lg_model_learned_params of the written model everywhere;
#  - --list: RefactorNet's six FFN groups of 96 channels at 32+1+32 = 65 params per channel,
#    its residual stream refused at the LayerNorm's MEAN, its head fixed; the attention's one
#    heads group of 4 heads of 8 at 3*(8*32+8) + 8*32 = 1,048 params per head;
#  - the masked equivalence (the report's max|pruned - masked| / max|masked|) <= 1e-5;
#  - the retained channels equal an independent numpy computation from the ONNX weights for
#    magnitude, activation and act-weight (prune_check.py) and are stored in the metadata;
#  - shufflenet_v2 (concat + channel shuffle: the shuffled groups are refused), regnet_y
#    (grouped convs, squeeze-excite), mobilenet_v2 (depthwise, residual adds), resnet_2stage
#    (residual adds) --conv --ratio 0.25 each give a smaller valid model;
#  - vit_tiny's fused QKV (STRIDED_SLICEs) --heads --keep 2: 24,042 -> 19,946; FLOAT16 weights
#    behind DEQUANTIZE: tiny_convnet 618 -> 222, RefactorNet (--weights fp16) 38,756 -> 26,276,
#    and the deployed hand_landmark_lite (build/corpus) --conv --ratio 0.25;
#  - LiteRT.js runs every written model and litegpu run equals it within 1e-5 of each
#    output's magnitude;
#  - --refit lowers RefactorNet's output error on eval/ (pruned to 64, magnitude), and so does
#    --lambda auto (chosen on half of calib/; act-weight);
#  - refusals (exit 2, one line): a group that is not prunable (named op and why), a fixed
#    group, a model with no prunable heads, --keep past the group, --importance activation
#    without --calib, an existing OUT without --force, a second --evidence into one folder.
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
R=tests/fixtures/refactor
F=tests/fixtures/onnx
CHK="/usr/bin/python3 tests/e2e/prune_check.py"
CMP=tests/e2e/npy_compare.py
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "prune: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
# jq-free JSON field access
jget() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {'d': d}))" "$@"; }

[ -x "$LG" ] || { bad "build" "$LG missing"; finish; }
for n in refactornet attention convpair; do
    "$LG" convert "$R/$n.onnx" -o "$T/$n.tflite" >/dev/null 2>"$T/err" || bad "$n: convert" "$(head -c 300 "$T/err")"
done
for n in shufflenet_v2 regnet_y mobilenet_v2 resnet_2stage squeezenet fused_qkv_attention vit_tiny; do
    "$LG" convert "$F/$n.op17.onnx" -o "$T/$n.tflite" >/dev/null 2>"$T/err" || bad "$n: convert" "$(head -c 300 "$T/err")"
done
written=()

# ---- --list
"$LG" prune "$T/refactornet.tflite" --list --json >"$T/list.json" 2>"$T/err" || bad "refactornet --list" "$(head -c 300 "$T/err")"
v=$(jget "$T/list.json" "[(g['kind'], g['n_channels'], g['n_params_per_unit'], g['prunable']) for g in d['groups'] if g['kind'] == 'ffn' and not g['fixed']]")
[ "$v" = "$(/usr/bin/python3 -c "print([('ffn', 96, 65, True)] * 6)")" ] &&
    ok "refactornet --list: six FFN groups of 96, 65 params per channel" || bad "refactornet --list ffn" "$v"
v=$(jget "$T/list.json" "[(g['kind'], g['prunable'], g['why']) for g in d['groups'] if g['kind'] == 'residual']")
grep -q "MEAN): reduces over the channel axis" <<<"$v" && ok "refactornet --list: the residual stream refused at the LayerNorm MEAN" || bad "residual refusal" "$v"
v=$(jget "$T/list.json" "[g['fixed'] for g in d['groups']][-1]")
[ "$v" = "True" ] && ok "refactornet --list: the head (model output) is fixed" || bad "head fixed" "$v"
"$LG" prune "$T/attention.tflite" --list --json >"$T/alist.json" 2>"$T/err" || bad "attention --list" "$(head -c 300 "$T/err")"
v=$(jget "$T/alist.json" "[(g['kind'], g['n_units'], g['unit'], g['n_producers'], g['n_params_per_unit']) for g in d['groups'] if g['prunable']]")
[ "$v" = "[('heads', 4, 8, 3, 1048)]" ] && ok "attention --list: one heads group, 4 heads of 8, q/k/v coupled, 1,048 per head" || bad "attention --list" "$v"

# ---- the handbook's three figures
prune_case() { # name model want_before want_after args...
    local name=$1 model=$2 wb=$3 wa=$4; shift 4
    if ! "$LG" prune "$T/$model.tflite" -o "$T/$name.tflite" "$@" --json >"$T/$name.json" 2>"$T/err"; then
        bad "$name: prune" "$(head -c 300 "$T/err")"; return
    fi
    written+=("$name")
    local v
    v=$(jget "$T/$name.json" "(d['n_params_before'], d['n_params_after'], d['n_params_expected'], d['masked_equivalence']['rel'] <= 1e-5, d['ok'])")
    if [ -n "$wb" ]; then
        [ "$v" = "($wb, $wa, $wa, True, True)" ] && ok "$name: params $wb -> $wa (= the shapes), masked equivalence <= 1e-5" ||
            bad "$name: params/proof" "$v"
    else
        /usr/bin/python3 -c "import sys; b,a,e,m,o=eval(sys.argv[1]); sys.exit(0 if a < b and a == e and m and o else 1)" "$v" &&
            ok "$name: smaller ($v), = the shapes, masked equivalence <= 1e-5" || bad "$name: params/proof" "$v"
    fi
}
prune_case rn64 refactornet 38756 26276 --ffn --keep 64
prune_case at2 attention 4224 2128 --heads --keep 2
prune_case cp6 convpair 663 333 --conv --keep 6
# the handbook's fourth figure: one block removed (ablate, 32,420) and FFN 96 -> 64 in the
# five left: 5 * 4,256 + 544 + 64 + 132 = 22,020
if "$LG" ablate "$T/refactornet.tflite" --remove-block 5 -o "$T/rn_ab.tflite" >/dev/null 2>"$T/err"; then
    prune_case both rn_ab 32420 22020 --ffn --keep 64
else bad "ablate --remove-block 5" "$(head -c 300 "$T/err")"; fi
# squeezenet: the fire modules' expand convs concatenated (concat groups at offsets)
for n in shufflenet_v2 regnet_y mobilenet_v2 resnet_2stage squeezenet; do prune_case "${n}_p" "$n" "" "" --conv --ratio 0.25; done
# vit_tiny: a fused QKV projection (FC 32 -> 96, no bias) split by three STRIDED_SLICEs; per
# head q/k/v rows 3*8*32 + out-projection columns 8*32 = 1,024; two layers of 4 heads keeping
# 2: 24,042 - 2*2*1,024 = 19,946
prune_case vit_h2 vit_tiny 24042 19946 --heads --keep 2
# FLOAT16 weights read through DEQUANTIZE (the deployed fp16 form). tiny_convnet: conv1
# [8,3,3,3]+8 = 224, depthwise [1,3,3,8]+8 = 80, conv2 [16,1,1,8]+16 = 144, fc [10,16]+10 = 170:
# 618; keeping 4 of conv1's 8 and 4 of conv2's 16: 4*27+4 + 4*9+4 + 4*4+4 + 10*4+10 = 222.
cp examples/tiny_convnet.tflite "$T/tiny.tflite"
prune_case tiny4 tiny 618 222 --conv --keep 4
"$LG" convert "$R/refactornet.onnx" -o "$T/rn16.tflite" --weights fp16 >/dev/null 2>&1
prune_case rn16_64 rn16 38756 26276 --ffn --keep 64
# a deployed MediaPipe model (FLOAT16 weights, empty quantization tables on its constants)
cp build/corpus/hand_landmark_lite.tflite "$T/hand.tflite"
prune_case hand_p hand "" "" --conv --ratio 0.25

# group kinds on the real models (the handbook's warning cases)
for pair in "regnet_y grouped" "regnet_y residual" "mobilenet_v2 depthwise" "mobilenet_v2 residual" "resnet_2stage residual"; do
    set -- $pair
    "$LG" prune "$T/$1.tflite" --list --json >"$T/l.json" 2>/dev/null
    v=$(jget "$T/l.json" "len([g for g in d['groups'] if g['kind'] == '$2' and g['prunable']])")
    [ "${v:-0}" -gt 0 ] && ok "$1: $v prunable $2 group(s)" || bad "$1: no prunable $2 group"
done
"$LG" prune "$T/shufflenet_v2.tflite" --list --json >"$T/l.json" 2>/dev/null
v=$(jget "$T/l.json" "sorted(set(g['why'].split(':')[0].split()[-1] for g in d['groups'] if g['kind'] == 'concat'))")
[ "$v" = "['(RESHAPE)']" ] && ok "shufflenet_v2: the concat groups are refused at the channel shuffle's RESHAPE" || bad "shufflenet concat" "$v"

# ---- importance against numpy, metadata
for imp in magnitude activation act-weight; do
    if "$LG" prune "$T/refactornet.tflite" -o "$T/rn_$imp.tflite" --ffn --keep 64 --importance "$imp" --calib "$R/calib" --json \
        >"$T/rn_$imp.json" 2>"$T/err"; then
        out=$($CHK importance "$R/refactornet.onnx" "$R/calib" "$T/rn_$imp.json" "$imp" 2>&1) &&
            ok "refactornet --importance $imp: retained = numpy's top 64 per block" || bad "importance $imp" "$(head -c 300 <<<"$out")"
    else bad "importance $imp: prune" "$(head -c 300 "$T/err")"; fi
done
m=$($CHK meta "$T/rn_magnitude.tflite")
v=$(/usr/bin/python3 -c "import json,sys; a=json.loads(sys.argv[1]); b=json.load(open(sys.argv[2])); print([g['retained'] for g in a['groups']] == [g['retained'] for g in b['groups']])" "$m" "$T/rn_magnitude.json")
[ "$v" = "True" ] && ok "metadata litegpu.prune holds the report's retained indices" || bad "metadata" "$v"
"$LG" prune "$T/refactornet.tflite" -o "$T/rn_again.tflite" --ffn --keep 64 >/dev/null 2>&1
cmp -s "$T/rn_again.tflite" "$T/rn64.tflite" && ok "the same command writes the same bytes" || bad "determinism"
"$LG" prune "$T/refactornet.tflite" -o "$T/rn_round.tflite" --ffn --ratio 0.3 --round-to 8 --json >"$T/round.json" 2>&1
v=$(jget "$T/round.json" "sorted(set(g['n_kept'] for g in d['groups']))")
# 96 - floor(0.3 * 96) = 68 kept, rounded up to a multiple of 8: 72
[ "$v" = "[72]" ] && ok "--ratio 0.3 --round-to 8 keeps 72 of 96" || bad "round-to" "$v"

# ---- refit
if "$LG" prune "$T/refactornet.tflite" -o "$T/rn_refit.tflite" --ffn --keep 64 --calib "$R/calib" --refit --eval "$R/eval" --json \
    >"$T/refit.json" 2>"$T/err"; then
    written+=(rn_refit)
    v=$(jget "$T/refit.json" "(d['eval']['rel_l2_before'], d['eval']['rel_l2_after'])")
    /usr/bin/python3 -c "import sys; b,a=eval(sys.argv[1]); sys.exit(0 if a < b else 1)" "$v" &&
        ok "--refit lowers the eval output error (rel L2 before, after: $v)" || bad "refit" "$v"
    # the refit's replaced weight buffers are dropped: the same bytes as without the refit
    [ "$(wc -c <"$T/rn_refit.tflite")" -eq "$(wc -c <"$T/rn64.tflite")" ] &&
        ok "--refit writes no stale buffers (size $(wc -c <"$T/rn_refit.tflite") = the plain pruned model's)" || bad "refit size"
else bad "refit: prune" "$(head -c 300 "$T/err")"; fi

if "$LG" prune "$T/refactornet.tflite" -o "$T/rn_auto.tflite" --ffn --keep 64 --importance act-weight --calib "$R/calib" --refit \
    --lambda auto --eval "$R/eval" --json >"$T/auto.json" 2>"$T/err"; then
    v=$(jget "$T/auto.json" "(d['refit']['lambda_auto'], d['eval']['rel_l2_before'], d['eval']['rel_l2_after'])")
    /usr/bin/python3 -c "import sys; t,b,a=eval(sys.argv[1]); sys.exit(0 if t and a < b else 1)" "$v" &&
        ok "--lambda auto (held-out half of --calib) lowers the eval error (act-weight: $v)" || bad "lambda auto" "$v"
else bad "lambda auto: prune" "$(head -c 300 "$T/err")"; fi

# ---- LiteRT.js runs every written model; litegpu run equals it
paths=(); for n in "${written[@]}"; do paths+=("$T/$n.tflite"); done
if node --no-liftoff peers/litert_run.js --fill pattern --out "$T/lrt" "${paths[@]}" >"$T/lrt.log" 2>&1; then
    for n in "${written[@]}"; do
        "$LG" run "$T/$n.tflite" --fill pattern --out-dir "$T/lg_$n" >/dev/null 2>"$T/err" || { bad "$n: litegpu run" "$(head -c 200 "$T/err")"; continue; }
        good=1
        for o in "$T/lrt/$n/pattern"/output_*.npy; do
            python3 "$CMP" "$o" "$T/lg_$n/$(basename "$o")" 1e-5 >"$T/cmp" 2>&1 || { good=0; bad "$n: LiteRT.js vs litegpu" "$(cat "$T/cmp")"; }
        done
        [ -e "$T/lrt/$n/pattern/output_0.npy" ] || { good=0; bad "$n: LiteRT.js wrote no output"; }
        [ $good = 1 ] && ok "$n: LiteRT.js runs it, litegpu run equals it within 1e-5"
    done
else bad "LiteRT.js" "$(tail -c 300 "$T/lrt.log")"; fi

# ---- refusals
refuse() { # name pattern args...
    local name=$1 pat=$2; shift 2
    "$LG" prune "$@" >"$T/out" 2>"$T/err"; local rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$pat" "$T/err"; then ok "refused: $name"
    else bad "refused: $name" "rc=$rc $(head -c 300 "$T/err")"; fi
}
g_res=$(jget "$T/list.json" "[g['group'] for g in d['groups'] if g['kind'] == 'residual'][0]")
refuse "a group that is not prunable" "not prunable" "$T/refactornet.tflite" -o "$T/r1.tflite" --group "$g_res" --keep 16
refuse "a fixed group" "fixed (model output)" "$T/refactornet.tflite" -o "$T/r2.tflite" --group 7 --keep 2
refuse "no prunable heads (fused QKV)" "RESHAPE" "$T/fused_qkv_attention.tflite" -o "$T/r3.tflite" --heads --keep 2
refuse "--keep past the group" "cannot keep 100" "$T/refactornet.tflite" -o "$T/r4.tflite" --ffn --keep 100
refuse "activation without --calib" "needs --calib" "$T/refactornet.tflite" -o "$T/r5.tflite" --ffn --keep 64 --importance activation
refuse "an existing OUT without --force" "exists" "$T/refactornet.tflite" -o "$T/rn64.tflite" --ffn --keep 64
"$LG" prune "$T/convpair.tflite" -o "$T/ev.tflite" --conv --keep 6 --evidence "$T/ev" --evidence-runs 1 >/dev/null 2>"$T/err" &&
    [ -f "$T/ev/contract.json" ] && (cd "$T/ev" && sha256sum -c --quiet SHA256SUMS) && grep -q '"retained"' "$T/ev/contract.json" &&
    "$LG" evidence "$T/ev" >/dev/null 2>>"$T/err" &&
    ok "--evidence writes a record litegpu evidence verifies, with the retained indices" || bad "evidence" "$(head -c 300 "$T/err")"
refuse "a second --evidence into one folder" "ev" "$T/convpair.tflite" -o "$T/ev2.tflite" --conv --keep 6 --evidence "$T/ev"
finish
