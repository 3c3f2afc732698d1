#!/usr/bin/env bash
# `litegpu lowrank` (issue #14 item 3) on converted fixtures:
#  - RefactorNet (tests/fixtures/refactor, 14 FULLY_CONNECTED) at full rank (--force-rank: full
#    rank is above break-even) reproduces the model: the report's output error on the pattern
#    input and the 128 eval inputs <= 1e-5 of the output magnitude, and `litegpu run` of OUT on
#    refactornet.input.npy equals PyTorch's refactornet.output.npy within the fixture's 1e-4;
#  - an ONNX MODEL is imported as convert does: the same bytes as lowrank of the converted file;
#  - RefactorNet at rank 8: n_params equal the hand arithmetic (below), per-layer break-even 24
#    and parameters 3168 -> 1120 / 3104 -> 1056 for the FFN FCs, the head left alone;
#  - --refit (least squares on the 64 calib inputs) lowers the error on the 128 eval inputs;
#  - ViT (vit_tiny) --all-fc --energy 0.9: each replaced layer's rank is the smallest r whose
#    energy reaches 0.9, recomputed here from the reported spectrum; the reported output error
#    equals LiteRT.js's difference between MODEL and OUT on the same pattern input;
#  - mobilenet_v2's pointwise convs (--all-1x1): two CONV_2D each, LiteRT.js runs them;
#  - an fp16 model (hand_landmark_lite, FLOAT16 weights through DEQUANTIZE): factors stored the
#    same way, the op count by hand, LiteRT.js runs it;
#  - LiteRT.js runs every written model and `litegpu run` equals it within 1e-5 relative;
#  - metadata "litegpu.lowrank" in OUT; identical runs give identical bytes;
#  - --evidence writes a record whose SHA256SUMS verify; a second run into it is refused;
#  - bad input is exit 2 with one line.
#
# Hand arithmetic, RefactorNet (README of tests/fixtures/refactor: 38,756 parameters). An FC
# m x n with bias at rank r holds r*(m+n) + m parameters instead of m*n + m:
#   FFN up 96x32: 3168 -> 8*128 + 96 = 1120 (saves 2048); down 32x96: 3104 -> 8*128 + 32 = 1056
#   (saves 2048); stem 32x16: 544 -> 8*48 + 32 = 416 (saves 128); head 4x32: rank 8 clamps to 4,
#   4*36 + 4 = 148 > 132: left alone (break-even 128/36 = 3.56).
#   The 12 FFN FCs only (--min-saving 0.5 leaves the stem, 128/544 = 23.5%, alone):
#     38756 - 12*2048 = 14180.   Every FC (--all-fc --rank 8): 14180 - 128 = 14052.
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
R=tests/fixtures/refactor
F=tests/fixtures/onnx
CMP=tests/e2e/npy_compare.py
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "lowrank: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
jq_py() { # FILE PYTHON-EXPR (j = the JSON): prints the value
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}
check_py() { # NAME FILE PYTHON-EXPR: PASS when the expression is true
    local v
    v=$(jq_py "$2" "$3" 2>&1)
    if [ "$v" = True ]; then ok "$1"; else bad "$1" "$v"; fi
}

mkdir -p "$T/m"
"$LG" convert "$R/refactornet.onnx" -o "$T/rn.tflite" >/dev/null 2>"$T/err" || { bad "convert refactornet" "$(cat "$T/err")"; finish; }
"$LG" convert "$F/vit_tiny.op17.onnx" -o "$T/vit.tflite" >/dev/null 2>"$T/err" || { bad "convert vit_tiny" "$(cat "$T/err")"; finish; }
"$LG" convert "$F/mobilenet_v2.op17.onnx" -o "$T/mb2.tflite" >/dev/null 2>"$T/err" || { bad "convert mobilenet_v2" "$(cat "$T/err")"; finish; }

# ---- RefactorNet at full rank: the implementation test of chapter 8
if "$LG" lowrank "$T/rn.tflite" -o "$T/m/rn_full.tflite" --all-fc --rank 96 --force-rank --calib "$R/calib" --eval "$R/eval" --json >"$T/full.json" 2>"$T/err"; then
    check_py "refactornet full rank: 14 FCs replaced, each at min(m,n)" "$T/full.json" \
        "j['n_replaced'] == 14 and all(l['rank'] == min(l['m'], l['n']) for l in j['layers'])"
    check_py "refactornet full rank: output error <= 1e-5 of the output magnitude (pattern, 64 calib and 128 eval inputs, apart; every argmax agrees)" "$T/full.json" \
        "all(j['error'][k]['rel'] <= 1e-5 for k in ('pattern', 'calib', 'eval')) and (j['error']['calib']['n_cases'], j['error']['eval']['n_cases']) == (64, 128) and (j['error']['calib']['n_argmax_equal'], j['error']['eval']['n_argmax_equal']) == (64, 128)"
    check_py "refactornet full rank: ||W - W_r|| / ||W|| <= 1e-6 per layer" "$T/full.json" "max(l['recon_error'] for l in j['layers']) <= 1e-6"
    check_py "refactornet full rank: n_params 38756 before (the handbook's baseline)" "$T/full.json" "j['n_params_before'] == 38756"
    if "$LG" run "$T/m/rn_full.tflite" --input "input=$R/refactornet.input.npy" --out-dir "$T/rn_full_run" >/dev/null 2>"$T/err" &&
       r=$(python3 "$CMP" "$R/refactornet.output.npy" "$T/rn_full_run/output_0.npy" 1e-4); then
        ok "refactornet full rank: litegpu run equals PyTorch's output ($r)"
    else bad "refactornet full rank vs PyTorch" "${r:-$(cat "$T/err")}"; fi
else bad "lowrank refactornet full rank" "$(cat "$T/err")"; fi

# ---- RefactorNet at rank 8: the hand arithmetic
if "$LG" lowrank "$T/rn.tflite" -o "$T/m/rn_r8_ffn.tflite" --all-fc --rank 8 --min-saving 0.5 --json >"$T/r8f.json" 2>"$T/err"; then
    check_py "refactornet rank 8, FFN FCs only: n_params 38756 -> 14180" "$T/r8f.json" "(j['n_params_before'], j['n_params_after'], j['n_replaced']) == (38756, 14180, 12)"
    check_py "refactornet rank 8: FFN up 96x32 break-even 24, 3168 -> 1120; down 32x96 3104 -> 1056" "$T/r8f.json" \
        "all(l['break_even'] == 24 and (l['params_before'], l['params_after']) == ((3168, 1120) if l['m'] == 96 else (3104, 1056)) for l in j['layers'] if l['replaced'])"
    check_py "refactornet rank 8: the stem (saves 23.5%) and the head (above break-even 3.56) left alone, the reason given" "$T/r8f.json" \
        "[(l['m'], l['n'], 'less than' in l['why']) for l in j['layers'] if not l['replaced']] == [(32, 16, True), (4, 32, False)] and 'break-even' in j['layers'][-1]['why']"
    check_py "refactornet rank 8: ||W - W_r|| / ||W|| of the stored factors = sqrt(sum_{i>=8} s_i^2 / sum s_i^2) of the spectrum (1e-6)" "$T/r8f.json" \
        "all(abs(l['recon_error'] - (sum(s*s for s in l['spectrum'][8:]) / sum(s*s for s in l['spectrum'])) ** 0.5) <= 1e-6 for l in j['layers'] if l['replaced'])"
else bad "lowrank refactornet rank 8 ffn" "$(cat "$T/err")"; fi
if "$LG" lowrank "$T/rn.tflite" -o "$T/m/rn_r8.tflite" --all-fc --rank 8 >"$T/r8.txt" 2>"$T/err"; then
    if grep -q '^n_params 38756 -> 14052;' "$T/r8.txt" && grep -q 'break-even 24,' "$T/r8.txt"; then ok "refactornet rank 8, every FC: n_params 38756 -> 14052 (text report)"
    else bad "refactornet rank 8 text" "$(grep n_params "$T/r8.txt")"; fi
    "$LG" lowrank "$T/rn.tflite" -o "$T/m/rn_r8_again.tflite" --all-fc --rank 8 >/dev/null 2>&1
    if cmp -s "$T/m/rn_r8.tflite" "$T/m/rn_r8_again.tflite"; then ok "refactornet rank 8: two runs give identical bytes"; else bad "lowrank output not deterministic"; fi
    rm -f "$T/m/rn_r8_again.tflite"
    "$LG" lowrank "$R/refactornet.onnx" -o "$T/rn_r8_onnx.tflite" --all-fc --rank 8 >/dev/null 2>&1
    if cmp -s "$T/m/rn_r8.tflite" "$T/rn_r8_onnx.tflite"; then ok "an ONNX MODEL gives the bytes of lowrank on its conversion"; else bad "lowrank of the .onnx differs"; fi
    if "$LG" info "$T/m/rn_r8.tflite" | grep -q '"litegpu.lowrank"'; then ok "OUT holds metadata \"litegpu.lowrank\""; else bad "no litegpu.lowrank metadata"; fi
else bad "lowrank refactornet rank 8" "$(cat "$T/err")"; fi

# ---- recovery without training: --refit on the 64 calib inputs, measured on the 128 eval ones
if "$LG" lowrank "$T/rn.tflite" -o "$T/m/rn_r8_refit.tflite" --all-fc --rank 8 --min-saving 0.5 --calib "$R/calib" --refit --eval "$R/eval" --json >"$T/refit.json" 2>"$T/err" &&
   "$LG" lowrank "$T/rn.tflite" -o "$T/rn_r8_eval.tflite" --all-fc --rank 8 --min-saving 0.5 --eval "$R/eval" --json >"$T/norefit.json" 2>>"$T/err"; then
    check_py "refactornet rank 8 --refit: the 12 FFN layers refitted, each layer's error on the refit inputs lower; n_params still 14180" "$T/refit.json" \
        "sum(l['refitted'] for l in j['layers']) == 12 and all(l['refit_after'] < l['refit_before'] for l in j['layers'] if l['refitted']) and j['n_params_after'] == 14180 and j['refit']['cases'].endswith('calib')"
    check_py "refactornet rank 8 --refit lowers the error on the 128 eval inputs (kept apart) and keeps more decisions than the SVD factors alone" "$T/refit.json" \
        "(lambda n: j['error']['eval']['rel'] < n['error']['eval']['rel'] and j['error']['eval']['n_argmax_equal'] > n['error']['eval']['n_argmax_equal'])(json.load(open('$T/norefit.json')))"
else bad "lowrank --refit" "$(cat "$T/err")"; fi

# ---- ViT: --energy 0.9 on every FC; ranks recomputed from the reported spectrum
if "$LG" lowrank "$T/vit.tflite" -o "$T/m/vit_e90.tflite" --all-fc --energy 0.9 --json >"$T/vit.json" 2>"$T/err"; then
    check_py "vit_tiny --energy 0.9: each rank is the smallest r with sum_{i<r} s_i^2 >= 0.9 sum s_i^2 (from the spectrum)" "$T/vit.json" \
        "all(l['rank'] == next(r for r in range(1, len(l['spectrum']) + 1) if sum(s*s for s in l['spectrum'][:r]) >= 0.9 * sum(s*s for s in l['spectrum'])) for l in j['layers']) and len(j['layers']) == 9"
    check_py "vit_tiny --energy 0.9: replaced layers are those below break-even, the others say so" "$T/vit.json" \
        "j['n_replaced'] >= 1 and all(l['replaced'] == (l['rank'] * (l['m'] + l['n']) < l['m'] * l['n']) for l in j['layers']) and all('break-even' in l['why'] for l in j['layers'] if not l['replaced'])"
else bad "lowrank vit_tiny" "$(cat "$T/err")"; fi

# ---- mobilenet_v2: pointwise convs
if "$LG" lowrank "$T/mb2.tflite" -o "$T/m/mb2_1x1.tflite" --all-1x1 --energy 0.9 --min-saving 0.1 --json >"$T/mb2.json" 2>"$T/err"; then
    check_py "mobilenet_v2 --all-1x1 --energy 0.9: pointwise convs replaced, each saving >= 10%" "$T/mb2.json" \
        "j['n_replaced'] >= 1 and all(l['op_name'] == 'CONV_2D' for l in j['layers']) and all(1 - l['params_after'] / l['params_before'] >= 0.1 for l in j['layers'] if l['replaced']) and j['n_ops_after'] == j['n_ops_before'] + j['n_replaced']"
else bad "lowrank mobilenet_v2" "$(cat "$T/err")"; fi

# ---- an fp16 model (FLOAT16 weights + DEQUANTIZE): hand_landmark_lite from build/corpus
H=build/corpus/hand_landmark_lite.tflite
if [ -f "$H" ] && "$LG" lowrank "$H" -o "$T/m/hand_1x1.tflite" --all-fc --all-1x1 --energy 0.9 --json >"$T/hand.json" 2>"$T/err"; then
    check_py "hand_landmark_lite (fp16) --energy 0.9: FLOAT16 weights factored; ops + 2 per FC (DEQUANTIZE A, B, FC; old DEQUANTIZE gone), + 3 per conv (and its zero bias)" "$T/hand.json" \
        "j['n_replaced'] >= 1 and all(l['weight_type'] == 'FLOAT16' for l in j['layers'] if l['replaced']) and j['n_ops_after'] == j['n_ops_before'] + sum(3 if l['op_name'] == 'CONV_2D' else 2 for l in j['layers'] if l['replaced'])"
else bad "lowrank hand_landmark_lite" "$(cat "$T/err" 2>/dev/null)"; fi

# ---- LiteRT.js runs every written model; litegpu run equals it
models=("$T"/rn.tflite "$T"/vit.tflite "$T"/mb2.tflite "$T"/m/*.tflite)
node --no-liftoff peers/litert_run.js --fill pattern --out "$T/peer" "${models[@]}" >"$T/peer.jsonl" 2>"$T/peer.err"
mkdir -p "$T/lg"
for f in "$T"/m/*.tflite; do
    b=$(basename "$f" .tflite); r=""
    if [ ! -f "$T/peer/$b/pattern/output_0.npy" ]; then bad "$b: LiteRT.js does not run it" "$(grep -F "/$b.tflite\"" "$T/peer.jsonl" | head -c 300)"; continue; fi
    if "$LG" run "$f" --input "0=$T/peer/$b/pattern/input_0.npy" --out-dir "$T/lg/$b" >/dev/null 2>"$T/err"; then
        good=1; r=""
        for o in "$T/peer/$b/pattern"/output_*.npy; do
            r="$r $(basename "$o" .npy): $(python3 "$CMP" "$o" "$T/lg/$b/$(basename "$o")" 1e-5)" || good=0
        done
        [ $good -eq 1 ] && ok "$b: LiteRT.js runs it, litegpu run equals it on every output ($r)" || bad "$b: litegpu run vs LiteRT.js" "$r"
    else bad "$b: litegpu run" "$(cat "$T/err")"; fi
done
# the reported output error (pattern) against LiteRT.js's MODEL vs OUT
err_vs_peer() { # JSON BASE OUT-NAME: |reported max abs - LiteRT.js's| <= 1e-5 of the output magnitude
    local v
    v=$(python3 - "$1" "$T/peer/$2/pattern/output_0.npy" "$T/peer/$3/pattern/output_0.npy" <<'PY'
import ast, json, struct, sys
def load(p):
    d = open(p, 'rb').read()
    h = struct.unpack('<H', d[8:10])[0]
    hd = ast.literal_eval(d[10:10 + h].decode('latin1'))
    assert hd['descr'] == '<f4'
    b = d[10 + h:]
    return struct.unpack('<%df' % (len(b) // 4), b)
got = json.load(open(sys.argv[1]))['error']['pattern']['max_abs']
a, b = load(sys.argv[2]), load(sys.argv[3])
want = max(abs(x - y) for x, y in zip(a, b)); mag = max(abs(x) for x in a)
print('%s %.9g %.9g' % ('ok' if abs(got - want) <= 1e-5 * mag else 'bad', got, want))
PY
)
    case "$v" in
        ok*) ok "$3: reported max abs output error equals LiteRT.js's MODEL vs OUT (reported, LiteRT.js: ${v#ok })" ;;
        *) bad "$3: reported output error vs LiteRT.js's" "$v" ;;
    esac
}
[ -f "$T/vit.json" ] && err_vs_peer "$T/vit.json" vit vit_e90
[ -f "$T/r8f.json" ] && err_vs_peer "$T/r8f.json" rn rn_r8_ffn

# ---- evidence
if "$LG" lowrank "$T/rn.tflite" -o "$T/m2.tflite" --all-fc --rank 8 --eval "$R/eval" --evidence "$T/ev" --evidence-runs 2 --json >"$T/ev.json" 2>"$T/err" &&
   (cd "$T/ev" && sha256sum -c --quiet SHA256SUMS) >/dev/null 2>&1 && "$LG" evidence "$T/ev" >/dev/null 2>&1 && grep -q '"kind": *"lowrank"' "$T/ev/contract.json" &&
   python3 -c "import json,sys; c=json.load(open(sys.argv[1])); k={x['check']: x for x in c['structural_checks']}; sys.exit(0 if k['parameter_count']['ok'] and k['parameter_count']['expected_after'] == 14052 and k['factor_error_equals_spectrum']['ok'] and c['one_primary_change']['rank'] == 8 else 1)" "$T/ev/contract.json"; then
    ok "--evidence: a record that litegpu evidence and sha256sum -c verify, the change kind lowrank, the checks parameter_count (14052) and factor_error_equals_spectrum pass"
else bad "--evidence" "$(cat "$T/err"; ls "$T/ev" 2>&1)"; fi
# the record's own measurement (tools/cli/evidence_measure.c, another implementation) of the
# output error on the same 128 eval inputs equals lowrank's
if python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))['measurements']['output_error'][0]; j = json.load(open(sys.argv[2]))['error']['eval']
sys.exit(0 if abs(c['max_abs'] - j['max_abs']) <= 1e-6 * c['ref_max_abs'] and c['argmax']['n_equal'] == j['n_argmax_equal'] and c['n_cases'] == j['n_cases'] == 128 else 1)" "$T/ev/contract.json" "$T/ev.json" 2>/dev/null; then
    ok "--evidence: the record's output error on the 128 eval inputs (max abs, argmax agreement) equals lowrank's report"
else bad "evidence output error vs lowrank's" "$(jq_py "$T/ev.json" "j['error']['eval']" 2>&1)"; fi
"$LG" lowrank "$T/rn.tflite" -o "$T/m3.tflite" --all-fc --rank 8 --evidence "$T/ev" >/dev/null 2>"$T/err"
rc=$?; [ $rc -eq 2 ] && grep -q 'exists' "$T/err" && [ ! -f "$T/m3.tflite" ] && ok "--evidence into an existing folder: refused before the work (exit 2)" || bad "evidence folder reuse" "rc $rc $(cat "$T/err")"

# ---- bad input: exit 2, one line
refuse() { # NAME EXPECTED-TEXT ARGS...
    local name=$1 want=$2; shift 2
    "$LG" lowrank "$@" >/dev/null 2>"$T/err"; local rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$want" "$T/err"; then ok "refused: $name"; else bad "refused: $name" "rc $rc $(cat "$T/err")"; fi
}
refuse "--op on a non-FC op" "only FULLY_CONNECTED and 1x1 CONV_2D" "$T/rn.tflite" -o "$T/x.tflite" --op 1 --rank 2
refuse "an existing OUT without --force" "exists" "$T/rn.tflite" -o "$T/m/rn_r8.tflite" --all-fc --rank 8
refuse "--rank and --energy together" "one of --rank" "$T/rn.tflite" -o "$T/x.tflite" --all-fc --rank 8 --energy 0.9
refuse "--force-rank without --rank" "--force-rank goes with --rank" "$T/rn.tflite" -o "$T/x.tflite" --all-fc --energy 0.9 --force-rank
refuse "--energy 1.5" "in (0, 1]" "$T/rn.tflite" -o "$T/x.tflite" --all-fc --energy 1.5
refuse "no layers named" "--op N, --all-fc or --all-1x1" "$T/rn.tflite" -o "$T/x.tflite" --rank 8
refuse "--refit without --calib" "--refit fits on --calib" "$T/rn.tflite" -o "$T/x.tflite" --all-fc --rank 8 --refit
finish
