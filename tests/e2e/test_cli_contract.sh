#!/usr/bin/env bash
# One interface across verbs (issue #12):
#  - help: `litegpu help help` works; every verb's help names every option of its flag table
#    (parsed from tools/cli/cmd_<verb>.c: {"--name", "-a" | NULL, ...}), and -h/--help;
#  - an option a verb does not take is an error: exit 2, one stderr line, nothing on stdout;
#  - precision: fp32/f32, fp16/f16 and f32_f16 are accepted, the canonical name is printed;
#  - --json: every verb's report is one object with "verb" (the verb), "model" (the path as
#    given; null for check --list-rules/--explain and for verify with several models) and
#    "ok" (true exactly when the exit code is 0); counts are n_* (no "ops"/"blockers"/"id"),
#    on every verb (info, convert, check, fix, taps, quantize, run, compare in both modes, bench, verify).
# Env: LG (default build/litegpu).
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
MODEL=examples/tiny_convnet.tflite
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "cli_contract: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
[ -x "$LG" ] || { bad "build" "$LG not built"; finish; }

verbs=(info convert check fix taps quantize prune lowrank ablate tile evidence report run compare bench verify)

# ---- help
"$LG" help help >"$T/hh" 2>"$T/err"; rc=$?
if [ "$rc" = 0 ] && [ ! -s "$T/err" ] && head -n 1 "$T/hh" | grep -q '^usage: litegpu help \[VERB\]$'; then ok "help help"
else bad "help help" "exit $rc: $(head -c 200 "$T/err")"; fi
for v in "${verbs[@]}"; do
    src=tools/cli/cmd_$v.c
    [ -f "$src" ] || { bad "$v flag table" "$src missing"; continue; }
    "$LG" help "$v" >"$T/h" 2>"$T/err" || { bad "help $v" "$(cat "$T/err")"; continue; }
    # the flag table's names and aliases
    flags=$(grep -oE '\{"--[a-z0-9-]+", ("-[a-zA-Z]"|NULL)' "$src" | sed -E 's/\{"(--[a-z0-9-]+)", "?([^"]*)"?/\1 \2/' | sed 's/ NULL$//')
    [ -n "$flags" ] || { bad "$v flag table" "no flags found in $src"; continue; }
    missing=""
    for f in $flags --help -h; do
        grep -qE "(^|[][ ,|(])$f([][ =,|)]|$)" "$T/h" || missing="$missing $f"
    done
    if [ -z "$missing" ]; then ok "help $v names every option it accepts ($(echo $flags | wc -w) in its table)"
    else bad "help $v names every option it accepts" "missing:$missing"; fi
done

# ---- options a verb does not take
# expect_err NAME CMD...: exit 2, one stderr line "litegpu: error: ...", nothing on stdout
expect_err() {
    local name="$1"; shift
    "$LG" "$@" >"$T/out" 2>"$T/err"; local rc=$?
    if [ "$rc" -ne 2 ]; then bad "$name" "exit $rc, want 2"
    elif [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -q '^litegpu: error: ' "$T/err"; then bad "$name" "stderr: $(head -c 300 "$T/err")"
    elif [ -s "$T/out" ]; then bad "$name" "stdout not empty"
    else ok "$name"; fi
}
for v in "${verbs[@]}"; do expect_err "$v --bogus" "$v" --bogus "$MODEL"; done
expect_err "info --target (check's option)" info --target classic "$MODEL"
expect_err "convert --precision (run's option)" convert "$MODEL" -o "$T/x.tflite" --precision f16
expect_err "bench --out (run's option)" bench "$MODEL" --out "$T/o"
expect_err "check --threads (run's option)" check "$MODEL" --threads 2
expect_err "verify --dump-all (run's option)" verify "$MODEL" --dump-all "$T/d"
expect_err "convert --no-prove without --optimize" convert "$MODEL" -o "$T/x.tflite" --no-prove
expect_err "fix --precision (run's option)" fix "$MODEL" -o "$T/x.tflite" --precision f16
expect_err "fix without -o" fix "$MODEL"
expect_err "quantize without --mode" quantize "$MODEL" -o "$T/x.tflite"
expect_err "quantize --precision (run's option)" quantize "$MODEL" -o "$T/x.tflite" --mode fp16 --precision f16
expect_err "taps --tensors and --every" taps "$MODEL" -o "$T/x.tflite" --tensors a --every 2
expect_err "help --bogus" help --bogus
[ -e "$T/x.tflite" ] && bad "refused convert wrote nothing" || ok "refused convert wrote nothing"

# ---- precision spellings: both accepted, the canonical one printed
for spell in "fp32 f32" "f32 f32" "fp16 f16" "f16 f16" "f32_f16 f32_f16"; do
    set -- $spell
    "$LG" bench "$MODEL" --runs 1 --warmup 0 --precision "$1" --json >"$T/b.json" 2>"$T/err"; rc=$?
    got=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["precision"])' "$T/b.json" 2>/dev/null)
    if [ "$rc" = 0 ] && [ "$got" = "$2" ]; then ok "bench --precision $1 reports $2"; else bad "bench --precision $1" "exit $rc, precision '$got'"; fi
    "$LG" run "$MODEL" --precision "$1" >"$T/r.txt" 2>"$T/err"; rc=$?
    if [ "$rc" = 0 ] && grep -q " in $2\$" "$T/r.txt"; then ok "run --precision $1 prints $2"; else bad "run --precision $1" "exit $rc: $(head -n 1 "$T/r.txt") $(head -c 200 "$T/err")"; fi
done
expect_err "bench --precision fp64" bench "$MODEL" --precision fp64

# ---- the common keys of every --json report
# jcheck NAME WANT_VERB WANT_MODEL(- = null) EXIT FILE
jcheck() {
    if "$PY" - "$2" "$3" "$4" "$5" >"$T/py" 2>&1 <<'EOF'
import json, sys
verb, model, rc, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
d = json.load(open(path))
assert isinstance(d, dict), "one object"
for k in ("verb", "model", "ok"):
    assert k in d, "missing %s" % k
assert d["verb"] == verb, d["verb"]
assert d["model"] == (None if model == "-" else model), d["model"]
assert d["ok"] is (rc == 0), "ok %r vs exit %d" % (d["ok"], rc)
# old spellings are gone: file/input/ready/id and bare counts
def walk(x, where):
    if isinstance(x, dict):
        for k, v in x.items():
            assert k not in ("file", "input", "ready", "id", "blockers", "warnings", "buffers", "check_agrees",
                             "models_ok", "models_checked", "gpu_ops", "cpu_ops", "folded_ops"), "old key %s at %s" % (k, where)
            walk(v, where + "." + k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            walk(v, "%s[%d]" % (where, i))
walk(d, "$")
if "precision" in d:
    assert d["precision"] in ("f32", "f16", "f32_f16"), d["precision"]
EOF
    then ok "$1"; else bad "$1" "$(tail -n 1 "$T/py")"; fi
}
run_json() { # NAME VERB MODEL(- = null) CMD...
    local name="$1" verb="$2" model="$3"; shift 3
    "$LG" "$@" >"$T/j.json" 2>"$T/err"; local rc=$?
    if [ "$rc" -gt 1 ]; then bad "$name" "exit $rc: $(head -c 300 "$T/err")"; return; fi
    jcheck "$name" "$verb" "$model" "$rc" "$T/j.json"
}
run_json "info --json" info "$MODEL" info --json "$MODEL"
run_json "convert --json" convert "$MODEL" convert "$MODEL" -o "$T/c.tflite" --json
run_json "convert --optimize --json" convert examples/cleanup_net.tflite convert examples/cleanup_net.tflite -o "$T/o.tflite" --optimize --json
run_json "check --json (ready)" check "$MODEL" check --json "$MODEL"
run_json "check --json (not ready: ok false, exit 1)" check examples/blocked_net.tflite check --json examples/blocked_net.tflite
run_json "check --list-rules --json" check - check --list-rules --json
run_json "check --explain --json" check - check --explain graph-size --json
run_json "fix --json (ready)" fix "$MODEL" fix "$MODEL" -o "$T/f1.tflite" --json
run_json "fix --json (still blocked: ok false, exit 1)" fix examples/blocked_net.tflite fix examples/blocked_net.tflite -o "$T/f2.tflite" --json
run_json "taps --json" taps "$MODEL" taps "$MODEL" -o "$T/t1.tflite" --json
run_json "quantize --json" quantize "$MODEL" quantize "$MODEL" -o "$T/q1.tflite" --mode int8-weights --json
run_json "lowrank --json" lowrank "$MODEL" lowrank "$MODEL" -o "$T/l1.tflite" --all-fc --all-1x1 --energy 0.9 --json
run_json "ablate --json" ablate "$MODEL" ablate "$MODEL" --json
run_json "bench --json" bench "$MODEL" bench "$MODEL" --runs 2 --warmup 0 --json
run_json "run --json" run "$MODEL" run "$MODEL" --json
run_json "compare --json (precision)" compare "$MODEL" compare "$MODEL" --json
run_json "tile --json" tile "$MODEL" tile "$MODEL" --json
run_json "report --json" report "$MODEL" report "$MODEL" -o "$T/r.html" --json
run_json "compare --json (diverges: ok false, exit 1)" compare examples/layernorm_512.tflite compare examples/layernorm_512.tflite --input x=examples/layernorm_input.npy --json
run_json "compare --json (two models)" compare "$MODEL" compare "$MODEL" "$MODEL" --random 1 --json
run_json "prune --list --json" prune "$MODEL" prune "$MODEL" --list --json
run_json "verify --json (one model)" verify "$MODEL" verify "$MODEL" --json
run_json "verify --json (two models: model null)" verify - verify "$MODEL" examples/blocked_net.tflite --json
"$LG" fix "$MODEL" -o "$T/e.tflite" --evidence "$T/ev" >/dev/null 2>&1
run_json "evidence --json (a record: model null)" evidence - evidence "$T/ev" --json

finish
