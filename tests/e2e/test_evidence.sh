#!/usr/bin/env bash
# Evidence records (issue #14 item 6): convert, fix and quantize with --evidence DIR, and
# `litegpu evidence DIR`.
#  - each record verifies (exit 0) and `sha256sum -c SHA256SUMS` (coreutils, the independent
#    oracle) accepts it; hashlib (tests/e2e/evidence_check.py) recomputes every digest, and the
#    contract's baseline / candidate sha256 are sha256sum of the files the verb read and wrote;
#  - n_params is the hand count: RefactorNet 38,756 (tests/fixtures/refactor/README.md's
#    arithmetic, the handbook's baseline) before and after convert, and after int8-static
#    quantization (the same weights, stored in 8 bits); file sizes are stat's;
#  - the output error: 0 for convert (the .tflite is the imported ONNX); for quantize on the
#    128 eval inputs, max_abs and the argmax agreement equal quantize's own parity report
#    (src/passes/quant_measure.c, another implementation), ref_max_abs is max |PyTorch logits|
#    (eval_logits.npy) within 1e-4, and inputs_sha256 is numpy's digest of eval/*.npy;
#  - quantize --int8-io: the record quantizes the inputs and dequantizes the outputs; its error
#    equals quantize's parity, and the changed interface is recorded (not "held constant");
#  - fix's record's error on the pattern input is at most fix's own parity max_abs (3 inputs,
#    the pattern one among them);
#  - a model litegpu cannot run (a custom op): planned memory, latency and error are null, the
#    reason in known_limitations; a verb's malformed change/checks text is kept as a string;
#  - tampering: each file in turn with one bit flipped is detected and named (exit 1), and
#    sha256sum -c agrees; an added file and a deleted file are named; a forged record whose
#    SHA256SUMS was recomputed after editing the contract's candidate digest is still caught
#    (the contract's digest against the copy's), though sha256sum -c accepts it;
#  - refusals (exit 2, nothing written): a second run into the same folder, a folder that
#    exists as a file or as a symbolic link, --evidence-runs without --evidence or out of
#    range, fix --split with --evidence; evidence on a missing folder or a file;
#  - determinism: two runs into two folders give byte-identical contract.json (convert and
#    quantize); the timings live in measurements_timing.json (listed, not compared);
#  - --json: ok true with the record, ok false with the problems and no record;
#  - the refactoring verbs (prune, ablate, lowrank) write records that verify the same way,
#    with the handbook's parameter counts (RefactorNet FFN 96 -> 64: 26,276; one block
#    removed: 32,420) as the record's n_params after, and lowrank --all-fc --rank 8: each of
#    the 12 FFN layers r(m+n)+m = 8*128+96 = 1,120 for 3,168 and 8*128+32 = 1,056 for 3,104
#    (2,048 saved each), the 16->32 stem 8*48+32 = 416 for 544 (rank 8 is under its break-even
#    16*32/48 = 10.7), the 32->4 head kept (break-even 3.6): 38,756 - 24,576 - 128 = 14,052.
# Env: LG (default build/litegpu).
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
CHK=tests/e2e/evidence_check.py
F=tests/fixtures/refactor
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "evidence: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
[ -x "$LG" ] || { bad "build" "$LG not built"; finish; }

# verified NAME DIR BASELINE CANDIDATE [checker options]
verified() {
    local name="$1" d="$2" b="$3" c="$4"; shift 4
    "$LG" evidence "$d" >"$T/v.txt" 2>"$T/err"; local rc=$?
    if [ "$rc" = 0 ] && grep -q ': VERIFIED' "$T/v.txt"; then ok "$name: litegpu evidence verifies it"
    else bad "$name: litegpu evidence verifies it" "exit $rc: $(head -c 300 "$T/v.txt" "$T/err")"; fi
    if (cd "$d" && sha256sum --quiet -c SHA256SUMS) >"$T/s.txt" 2>&1; then ok "$name: sha256sum -c accepts it"
    else bad "$name: sha256sum -c accepts it" "$(head -c 300 "$T/s.txt")"; fi
    if "$PY" "$CHK" record "$d" "$b" "$c" "$@" >"$T/p.txt" 2>&1; then ok "$name: hashlib digests, sha256sum of input/output, sizes${*:+, $*}"
    else bad "$name: independent check" "$(head -c 600 "$T/p.txt")"; fi
}
field() { "$PY" "$CHK" field "$@" 2>/dev/null; }

# ---- convert: ONNX RefactorNet
"$LG" convert $F/refactornet.onnx -o "$T/r.tflite" --evidence "$T/ec" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" = 0 ] && ok "convert --evidence: exit 0" || bad "convert --evidence" "exit $rc: $(head -c 300 "$T/err")"
verified "convert record" "$T/ec" $F/refactornet.onnx "$T/r.tflite" --params 38756
got=$(field "$T/ec" measurements output_error 0 max_abs)
[ "$got" = 0 ] && ok "convert: output error 0 (the .tflite is the imported ONNX)" || bad "convert: output error" "max_abs $got"
got=$(field "$T/ec" one_primary_change source_format)
[ "$got" = '"onnx"' ] && ok "convert: the change names the source format" || bad "convert: change" "$got"
[ -f "$T/ec/baseline.onnx" ] && ok "convert: the ONNX baseline is copied as baseline.onnx" || bad "convert: baseline copy" "$(ls "$T/ec")"

# ---- quantize: int8-static, calibration and evaluation apart
"$LG" quantize "$T/r.tflite" -o "$T/q.tflite" --mode int8-static --calib $F/calib --eval $F/eval --evidence "$T/eq" \
    --evidence-runs 3 --json >"$T/q.json" 2>"$T/err"; rc=$?
[ "$rc" = 0 ] && ok "quantize --evidence: exit 0" || bad "quantize --evidence" "exit $rc: $(head -c 300 "$T/err")"
verified "quantize record" "$T/eq" "$T/r.tflite" "$T/q.tflite" --params 38756 --eval $F/eval
if "$PY" - "$T/eq/contract.json" "$T/q.json" $F/eval_logits.npy "$T/eq/measurements_timing.json" >"$T/p.txt" 2>&1 <<'EOF'
import json, sys
import numpy as np
c = json.load(open(sys.argv[1])); q = json.load(open(sys.argv[2])); logits = np.load(sys.argv[3])
t = json.load(open(sys.argv[4]))
o = c["measurements"]["output_error"][0]; p = q["parity"]["outputs"][0]
assert o["n_cases"] == 128 == p["n_cases"], (o["n_cases"], p["n_cases"])
assert abs(o["max_abs"] - p["max_abs"]) <= 1e-6 * p["max_abs"], (o["max_abs"], p["max_abs"])
assert o["argmax"] == {"n_equal": p["n_argmax_equal"], "n_rows": 128}, (o["argmax"], p["n_argmax_equal"])
ref = float(np.abs(logits).max())
assert abs(o["ref_max_abs"] - ref) <= 1e-4 * ref, (o["ref_max_abs"], ref)
assert o["max_abs"] > 0, "int8 changes the outputs"
assert c["measurements"]["evaluation_inputs"]["fitted_on"] is False
assert c["input_contract"]["same"] is True and c["input_contract"]["baseline"]["inputs"] == [{"name": "input", "dtype": "FLOAT32", "shape": [1, 16]}], c["input_contract"]
assert "model inputs and outputs (names, shapes, dtypes)" in c["held_constant"]
ch = c["one_primary_change"]
assert ch["mode"] == "int8-static" and ch["range"] == "minmax" and len(ch["calibration"]) == 64, ch
assert t["n_runs"] == 3 and t["before"]["median_ms"] > 0 and t["after"]["median_ms"] <= t["after"]["p95_ms"], t
print("max_abs %.6g (quantize %.6g), argmax %d/128, max |ref| %.6g (PyTorch %.6g)" % (o["max_abs"], p["max_abs"],
      o["argmax"]["n_equal"], o["ref_max_abs"], ref))
EOF
then ok "quantize: error equals quantize's parity, ref max = PyTorch's, 3 timed runs ($(cat "$T/p.txt"))"
else bad "quantize: measured error" "$(tail -n 2 "$T/p.txt")"; fi

# INT8 inputs and outputs (--int8-io): the record quantizes the inputs and dequantizes the
# outputs with their scales; the error must equal quantize's parity (which feeds the same way)
"$LG" quantize "$T/r.tflite" -o "$T/q8.tflite" --mode int8-static --int8-io --calib $F/calib --eval $F/eval --evidence "$T/eq8" \
    --json >"$T/q8.json" 2>"$T/err"; rc=$?
if [ "$rc" = 0 ] && "$PY" - "$T/eq8/contract.json" "$T/q8.json" >"$T/p.txt" 2>&1 <<'EOF2'
import json, sys
c = json.load(open(sys.argv[1])); q = json.load(open(sys.argv[2]))
assert q["static"]["int8_io"] is True
o = c["measurements"]["output_error"][0]; p = q["parity"]["outputs"][0]
assert abs(o["max_abs"] - p["max_abs"]) <= 1e-6 * p["max_abs"] and o["argmax"]["n_equal"] == p["n_argmax_equal"], (o, p)
ic = c["input_contract"]
assert ic["same"] is False and ic["candidate"]["inputs"][0]["dtype"] == "INT8" and ic["baseline"]["inputs"][0]["dtype"] == "FLOAT32", ic
assert not any("inputs and outputs" in h for h in c["held_constant"]), c["held_constant"]
assert any("interface was not held constant" in l for l in c["known_limitations"])
EOF2
then ok "quantize --int8-io: the record's error equals quantize's parity; the interface change is recorded, not held constant"; else bad "quantize --int8-io record" "exit $rc: $(tail -n 2 "$T/p.txt") $(head -c 200 "$T/err")"; fi

# ---- fix: a blocked model
"$LG" fix examples/blocked_net.tflite -o "$T/f.tflite" --evidence "$T/ef" --json >"$T/f.json" 2>"$T/err"; rc=$?
[ "$rc" -le 1 ] && ok "fix --evidence: exit $rc" || bad "fix --evidence" "exit $rc: $(head -c 300 "$T/err")"
verified "fix record" "$T/ef" examples/blocked_net.tflite "$T/f.tflite"
if "$PY" - "$T/ef/contract.json" "$T/f.json" >"$T/p.txt" 2>&1 <<'EOF'
import json, sys
c = json.load(open(sys.argv[1])); f = json.load(open(sys.argv[2]))
o = c["measurements"]["output_error"][0]
assert o["max_abs"] <= f["parity"]["max_abs"] * (1 + 1e-6), (o["max_abs"], f["parity"])
chk = {k["check"]: k for k in c["structural_checks"]}
assert chk["fp32_parity"]["max_abs"] == f["parity"]["max_abs"], chk
assert chk["check_verdict"]["before"]["n_blockers"] == f["before"]["n_blockers"], chk
passes = [s["pass"] for s in f["steps"]]
assert [p["pass"] for p in c["one_primary_change"]["passes"]] == passes, c["one_primary_change"]
EOF
then ok "fix: error <= fix's parity, checks and passes are fix's report"
else bad "fix: record content" "$(tail -n 2 "$T/p.txt")"; fi

# a model litegpu cannot run (a custom op, tests/tools/make_verify_models.c): null, with the reason
if cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Iinclude -Isrc -o "$T/mkv" \
       tests/tools/make_verify_models.c build/liblitegpu.a -lm 2>"$T/cc.err" && mkdir -p "$T/m" && "$T/mkv" "$T/m"; then
    "$LG" convert "$T/m/custom_myop.tflite" -o "$T/cu.tflite" --evidence "$T/ecu" >/dev/null 2>"$T/err"; rc=$?
    if [ "$rc" = 0 ] && "$LG" evidence "$T/ecu" >/dev/null && "$PY" - "$T/ecu/contract.json" "$T/ecu/measurements_timing.json" >"$T/p.txt" 2>&1 <<'EOF2'
import json, sys
c = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2])); m = c["measurements"]
assert m["planned_arena_bytes"] == {"before": None, "after": None}, m
assert m["output_error"] is None and m["evaluation_inputs"] is None, m
assert t["before"] is None and t["after"] is None, t
lim = " ".join(c["known_limitations"])
assert "cannot run it" in lim and "MyOp" in lim, lim
assert "latency is the reference" not in lim, lim
EOF2
    then ok "unrunnable model (custom op): measurements null, the reason in known_limitations"
    else bad "unrunnable model" "exit $rc: $(tail -n 2 "$T/p.txt") $(head -c 200 "$T/err")"; fi
else bad "unrunnable model" "cannot build tests/tools/make_verify_models.c: $(head -c 200 "$T/cc.err")"; fi

# a verb's malformed change / checks text (NaN printed with %g, a cut buffer): kept as strings,
# the contract stays valid JSON (tests/tools/evidence_writer.c calls cli_evidence_write directly)
if cc -std=c11 -Wall -Wextra -Werror -Iinclude -Itools/cli -o "$T/w" tests/tools/evidence_writer.c \
       $(ls build/obj/tools/cli/*.o | grep -v '/main\.o$') build/liblitegpu.a -llapack -lblas -lpthread -lm 2>"$T/cc.err"; then
    "$T/w" "$T/ew" examples/tiny_convnet.tflite examples/tiny_convnet.tflite '{"kind":"x","v":nan}' '[{"check":"a"}' >/dev/null 2>"$T/err"; rc=$?
    if [ "$rc" = 0 ] && "$LG" evidence "$T/ew" >/dev/null && "$PY" -c '
import json, sys
c = json.load(open(sys.argv[1]))
assert c["one_primary_change"] == {"unparsed": "{\"kind\":\"x\",\"v\":nan}"}, c["one_primary_change"]
assert c["structural_checks"] == [{"unparsed": "[{\"check\":\"a\"}"}], c["structural_checks"]
assert sum("not valid JSON" in l for l in c["known_limitations"]) == 2
' "$T/ew/contract.json" 2>"$T/p.txt"; then ok "malformed change/checks texts: kept as strings, a valid contract, two limitations"
    else bad "malformed texts" "exit $rc: $(tail -n 1 "$T/p.txt") $(head -c 200 "$T/err")"; fi
else bad "malformed texts" "cannot build tests/tools/evidence_writer.c: $(head -c 300 "$T/cc.err")"; fi

# ---- tampering: each file in turn, one bit flipped
for f in $(ls "$T/ec"); do
    [ -f "$T/ec/$f" ] || continue
    rm -rf "$T/x"; cp -a "$T/ec" "$T/x"
    "$PY" "$CHK" flip "$T/x/$f"
    "$LG" evidence "$T/x" >"$T/v.txt" 2>&1; rc=$?
    (cd "$T/x" && sha256sum --quiet -c SHA256SUMS) >/dev/null 2>&1; src=$?
    if [ "$rc" = 1 ] && grep -q "^  $f: " "$T/v.txt" && [ "$src" != 0 ]; then ok "tampered $f: detected and named (sha256sum -c fails too)"
    elif [ "$f" = SHA256SUMS ] && [ "$rc" = 1 ] && [ "$src" != 0 ] && grep -q 'NOT VERIFIED' "$T/v.txt"; then
        ok "tampered SHA256SUMS: detected ($(sed -n 2p "$T/v.txt" | head -c 100))"
    else bad "tampered $f" "exit $rc, sha256sum $src: $(head -c 300 "$T/v.txt")"; fi
done
# a digest in SHA256SUMS changed (its first hex digit): the file it lists is named
rm -rf "$T/x"; cp -a "$T/ec" "$T/x"
first=$(head -n 1 "$T/x/SHA256SUMS" | cut -c 67-)
"$PY" -c 'import sys; p=sys.argv[1]; s=open(p).read(); open(p,"w").write(("1" if s[0]=="0" else "0")+s[1:])' "$T/x/SHA256SUMS"
"$LG" evidence "$T/x" >"$T/v.txt" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "^  $first: digest mismatch" "$T/v.txt" && ok "a digest in SHA256SUMS changed: $first named" || bad "SHA256SUMS digest changed" "exit $rc: $(head -c 300 "$T/v.txt")"
rm -rf "$T/x"; cp -a "$T/ec" "$T/x"; echo extra >"$T/x/notes.txt"
"$LG" evidence "$T/x" >"$T/v.txt" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q '^  notes.txt: not listed' "$T/v.txt" && ok "added file: detected and named" || bad "added file" "exit $rc: $(head -c 300 "$T/v.txt")"
rm -rf "$T/x"; cp -a "$T/ec" "$T/x"; rm "$T/x/command.txt"
"$LG" evidence "$T/x" >"$T/v.txt" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q '^  command.txt: missing' "$T/v.txt" && ok "deleted file: detected and named" || bad "deleted file" "exit $rc: $(head -c 300 "$T/v.txt")"
rm -rf "$T/x"; cp -a "$T/ec" "$T/x"; rm "$T/x/SHA256SUMS"
"$LG" evidence "$T/x" >"$T/v.txt" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q '^  SHA256SUMS: missing' "$T/v.txt" && ok "deleted SHA256SUMS: detected" || bad "deleted SHA256SUMS" "exit $rc: $(head -c 300 "$T/v.txt")"
# a forger edits the contract's candidate digest and recomputes SHA256SUMS
rm -rf "$T/x"; cp -a "$T/ec" "$T/x"
sed -i -E 's/("candidate": \{"sha256": ")[0-9a-f]/\10/; s/("candidate": \{"sha256": ")0(0)/\11\2/' "$T/x/contract.json"
"$PY" "$CHK" resum "$T/x"
"$LG" evidence "$T/x" >"$T/v.txt" 2>&1; rc=$?
if (cd "$T/x" && sha256sum --quiet -c SHA256SUMS) >/dev/null 2>&1 && [ "$rc" = 1 ] && grep -q '^  candidate.tflite: digest mismatch' "$T/v.txt"
then ok "forged contract digest (SHA256SUMS recomputed): caught, though sha256sum -c accepts it"
else bad "forged contract digest" "exit $rc: $(head -c 300 "$T/v.txt")"; fi
"$LG" evidence "$T/x" --json >"$T/v.json" 2>&1
if "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ok"] is False and d["record"] is None and d["n_problems"] >= 1 and d["problems"][0]["path"] == "candidate.tflite", d' "$T/v.json" 2>"$T/p.txt"
then ok "evidence --json on a forged record: ok false, the problem, no record"; else bad "evidence --json forged" "$(tail -n 1 "$T/p.txt")"; fi
"$LG" evidence "$T/ec" --json >"$T/v.json" 2>&1; rc=$?
if [ "$rc" = 0 ] && "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["verb"]=="evidence" and d["ok"] is True and d["model"] is None and d["record"]["measurements"]["n_params"]["before"]==38756, d' "$T/v.json" 2>"$T/p.txt"
then ok "evidence --json on a good record: ok true with the record"; else bad "evidence --json good" "exit $rc $(tail -n 1 "$T/p.txt")"; fi

# ---- refusals: exit 2, nothing written
tree() { (cd "$1" && find . -type f -exec sha256sum {} + | sort); }
before=$(tree "$T/ec")
"$LG" convert $F/refactornet.onnx -o "$T/r2.tflite" --evidence "$T/ec" >"$T/out" 2>"$T/err"; rc=$?
if [ "$rc" = 2 ] && [ "$(tree "$T/ec")" = "$before" ] && [ ! -e "$T/r2.tflite" ] && grep -q 'exists' "$T/err"; then ok "second run into the same folder: refused, nothing changed, no model written"
else bad "second run into the same folder" "exit $rc: $(head -c 200 "$T/err")"; fi
echo x >"$T/afile"
"$LG" fix examples/blocked_net.tflite -o "$T/f2.tflite" --evidence "$T/afile" >/dev/null 2>"$T/err"; rc=$?
[ "$rc" = 2 ] && [ "$(cat "$T/afile")" = x ] && [ ! -e "$T/f2.tflite" ] && ok "folder that exists as a file: refused" || bad "folder as a file" "exit $rc"
ln -s "$T/nowhere" "$T/alink"
"$LG" quantize "$T/r.tflite" -o "$T/q2.tflite" --mode fp16 --evidence "$T/alink" >/dev/null 2>"$T/err"; rc=$?
[ "$rc" = 2 ] && [ ! -e "$T/nowhere" ] && [ ! -e "$T/q2.tflite" ] && ok "folder that is a dangling symbolic link: refused" || bad "folder as a link" "exit $rc"
ln -s "$T/ec" "$T/dirlink"
"$LG" convert $F/refactornet.onnx -o "$T/r3.tflite" --evidence "$T/dirlink" >/dev/null 2>"$T/err"; rc=$?
[ "$rc" = 2 ] && [ "$(tree "$T/ec")" = "$before" ] && ok "folder that is a link to a record: refused" || bad "folder as a link to a dir" "exit $rc"
for args in "--evidence-runs 3" "--evidence $T/n1 --evidence-runs 0" "--evidence $T/n2 --evidence-runs x"; do
    "$LG" convert $F/refactornet.onnx -o "$T/r4.tflite" $args >/dev/null 2>"$T/err"; rc=$?
    [ "$rc" = 2 ] && [ ! -e "$T/r4.tflite" ] && ok "convert $(echo "$args" | sed "s#$T/##"): refused" || bad "convert $args" "exit $rc"
done
"$LG" fix examples/blocked_net.tflite -o "$T/f3.tflite" --split --evidence "$T/n3" >/dev/null 2>"$T/err"; rc=$?
[ "$rc" = 2 ] && [ ! -e "$T/n3" ] && ok "fix --split --evidence: refused" || bad "fix --split --evidence" "exit $rc"
ls -d "$T"/*.tmp-* >/dev/null 2>&1 && bad "no temporary folder left" "$(ls -d "$T"/*.tmp-*)" || ok "no temporary folder left behind"
for a in "$T/none" "$T/afile" ""; do
    "$LG" evidence $a >/dev/null 2>"$T/err"; rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && ok "evidence $(basename "${a:-without-DIR}"): exit 2, one line" || bad "evidence $a" "exit $rc"
done

"$LG" convert $F/refactornet.onnx -o "$T/r5.tflite" --evidence "$T/es/" >/dev/null 2>"$T/err"; rc=$?
[ "$rc" = 0 ] && "$LG" evidence "$T/es" >/dev/null 2>&1 && ok "--evidence DIR/ (trailing slash) writes DIR" || bad "--evidence DIR/" "exit $rc: $(head -c 200 "$T/err")"

# ---- determinism: two runs into two folders
"$LG" convert $F/refactornet.onnx -o "$T/r.tflite" --force --evidence "$T/ec2" >/dev/null 2>&1
cmp -s "$T/ec/contract.json" "$T/ec2/contract.json" && ok "convert twice: byte-identical contract.json" || bad "convert determinism" "$(diff "$T/ec/contract.json" "$T/ec2/contract.json" | head -5)"
"$LG" quantize "$T/r.tflite" -o "$T/q.tflite" --force --mode int8-static --calib $F/calib --eval $F/eval --evidence "$T/eq2" --evidence-runs 3 >/dev/null 2>&1
cmp -s "$T/eq/contract.json" "$T/eq2/contract.json" && ok "quantize twice: byte-identical contract.json" || bad "quantize determinism" "$(diff "$T/eq/contract.json" "$T/eq2/contract.json" | head -5)"
grep -q measurements_timing.json "$T/eq2/SHA256SUMS" && ! grep -q median_ms "$T/eq2/contract.json" && ok "timings are in measurements_timing.json (listed), not in contract.json" || bad "timing file"

# ---- the refactoring verbs' records (RefactorNet, tests/fixtures/refactor/README.md's arithmetic)
"$LG" prune "$T/r.tflite" -o "$T/p.tflite" --ffn --keep 64 --evidence "$T/ep" --evidence-runs 1 >/dev/null 2>"$T/err" ||
    bad "prune --evidence" "$(head -c 300 "$T/err")"
verified "prune record" "$T/ep" "$T/r.tflite" "$T/p.tflite" --params 38756 26276
"$LG" ablate "$T/r.tflite" --calib $F/calib --eval $F/eval --remove 1 -o "$T/a.tflite" --evidence "$T/ea" \
    --evidence-runs 1 >/dev/null 2>"$T/err" || bad "ablate --evidence" "$(head -c 300 "$T/err")"
verified "ablate record" "$T/ea" "$T/r.tflite" "$T/a.tflite" --params 38756 32420 --eval $F/eval
"$LG" lowrank "$T/r.tflite" -o "$T/l.tflite" --all-fc --rank 8 --eval $F/eval --evidence "$T/el" --evidence-runs 1 \
    >/dev/null 2>"$T/err" || bad "lowrank --evidence" "$(head -c 300 "$T/err")"
verified "lowrank record" "$T/el" "$T/r.tflite" "$T/l.tflite" --params 38756 14052 --eval $F/eval

finish
