#!/usr/bin/env bash
# `litegpu check` end to end on small models written with the builder API
# (tests/tools/make_check_models.c and the shared test-model library tests/models/rule_models*.c,
# compiled here against build/liblitegpu.a):
#  - exit codes: 0 ready (warnings allowed), 1 blocked, 2 missing/empty/corrupt file or bad usage;
#  - --json parses and carries the stable fields (rule, severity, target, op, op_name, tensors,
#    reason, fix, source_kind, source; summary.ops/gpu_ops/blockers/warnings), consistent
#    with the exit code;
#  - --explain works for every id of --list-rules --json, and --explain nope exits 2;
#  - --target classic and the default (mldrift) differ on RELU_0_TO_1.
# The model checks also run under the ASan/UBSan build when it exists.
# Env: LG (default build/litegpu), LG_SAN (default build/san/litegpu), CC (default cc).
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
LG_SAN=${LG_SAN:-build/san/litegpu}
CC=${CC:-cc}
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "check_cli: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }

if [ ! -x "$LG" ] || [ ! -f build/liblitegpu.a ]; then
    bad "build" "$LG or build/liblitegpu.a not built (make all)"
    finish
fi
if ! "$CC" -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Iinclude -Isrc \
        -o "$T/make_check_models" tests/tools/make_check_models.c tests/models/rule_models*.c \
        build/liblitegpu.a -lm 2>"$T/cc.err"; then
    bad "compile make_check_models" "$(head -c 600 "$T/cc.err")"
    finish
fi
mkdir -p "$T/m"
if "$T/make_check_models" "$T/m" 2>"$T/mk.err"; then ok "make_check_models"; else
    bad "make_check_models" "$(cat "$T/mk.err")"
    finish
fi
M=$T/m

bins=("$LG")
[ -x "$LG_SAN" ] && bins+=("$LG_SAN")

# expect_rc NAME WANT CMD...: exit code WANT, nothing on stderr for 0/1, no sanitizer report.
expect_rc() {
    local name="$1" want="$2"; shift 2
    local b rc tag
    for b in "${bins[@]}"; do
        tag="$name"; [ "$b" = "$LG_SAN" ] && tag="$name [asan]"
        "$b" "$@" >"$T/out" 2>"$T/err"
        rc=$?
        if [ "$rc" -ne "$want" ]; then bad "$tag" "exit $rc, want $want; stderr: $(head -c 300 "$T/err")"
        elif grep -qE 'Sanitizer|runtime error' "$T/err"; then bad "$tag" "$(head -c 300 "$T/err")"
        elif [ "$want" -ne 2 ] && [ -s "$T/err" ]; then bad "$tag" "stderr: $(head -c 300 "$T/err")"
        else ok "$tag"; fi
    done
}

# expect_err NAME CMD...: exit 2, one stderr line "litegpu: error: ...", nothing on stdout.
expect_err() {
    local name="$1"; shift
    local b rc tag
    for b in "${bins[@]}"; do
        tag="$name"; [ "$b" = "$LG_SAN" ] && tag="$name [asan]"
        "$b" "$@" >"$T/out" 2>"$T/err"
        rc=$?
        if [ "$rc" -ne 2 ]; then bad "$tag" "exit $rc, want 2"
        elif [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -q '^litegpu: error: ' "$T/err"; then
            bad "$tag" "stderr: $(head -c 300 "$T/err")"
        elif [ -s "$T/out" ]; then bad "$tag" "stdout not empty"
        else ok "$tag"; fi
    done
}

# ---- exit codes
for t in mldrift classic; do
    expect_rc "clean model, $t: exit 0" 0 check --target "$t" "$M/clean.tflite"
    expect_rc "blocked model, $t: exit 1" 1 check --target "$t" "$M/blocked.tflite"
    expect_rc "warning-only model, $t: exit 0" 0 check --target "$t" "$M/warn.tflite"
    expect_rc "clean model --json, $t: exit 0" 0 check --json --target "$t" "$M/clean.tflite"
    expect_rc "blocked model --json, $t: exit 1" 1 check --json --target "$t" "$M/blocked.tflite"
done
expect_rc "clean model, default target: exit 0" 0 check "$M/clean.tflite"
expect_rc "--max-gpu-ops 2 on the clean model (a warning): exit 0" 0 check --max-gpu-ops 2 "$M/clean.tflite"

: >"$T/empty.tflite"
head -c 100 "$M/clean.tflite" >"$T/truncated.tflite"
printf 'this is not a tflite model, just some text\n' >"$T/text.tflite"
cp "$M/clean.tflite" "$T/corrupt.tflite"
printf '\xff\xff\xff\x7f' | dd of="$T/corrupt.tflite" bs=1 seek=0 conv=notrunc 2>/dev/null
expect_err "missing file: exit 2" check "$T/nope.tflite"
expect_err "empty file: exit 2" check "$T/empty.tflite"
expect_err "truncated file: exit 2" check "$T/truncated.tflite"
expect_err "text file: exit 2" check "$T/text.tflite"
expect_err "corrupt root offset: exit 2" check "$T/corrupt.tflite"
expect_err "missing file --json: exit 2" check --json "$T/nope.tflite"
expect_err "directory: exit 2" check "$T"
expect_err "no model: exit 2" check
expect_err "unknown target: exit 2" check --target nope "$M/clean.tflite"
expect_err "--explain nope: exit 2" check --explain nope

# ---- text output
"$LG" check "$M/clean.tflite" >"$T/txt" 2>&1
if grep -q 'READY for mldrift' "$T/txt" && ! grep -q 'NOT READY' "$T/txt"; then ok "text: clean is READY"; else bad "text: clean is READY" "$(head -n 3 "$T/txt")"; fi
"$LG" check --target classic "$M/blocked.tflite" >"$T/txt" 2>&1
if grep -q 'NOT READY for classic' "$T/txt" && grep -q '^op-unsupported ' "$T/txt" && grep -q 'op 2 GATHER_ND' "$T/txt"; then
    ok "text: blocked names op-unsupported at op 2 GATHER_ND"
else
    bad "text: blocked names op-unsupported at op 2 GATHER_ND" "$(head -n 8 "$T/txt")"
fi

# ---- --json: parses, stable fields, consistent with the exit code
# json_check NAME FILE EXITCODE TARGET PYTHON-ASSERTIONS (d = the document)
json_check() {
    local name="$1" file="$2" rc="$3" target="$4" extra="$5"
    if "$PY" - "$file" "$rc" "$target" "$extra" >"$T/py.out" 2>&1 <<'EOF'
import json, sys
path, rc, target, extra = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
d = json.load(open(path))
for k in ("verb", "model", "ok", "target", "summary", "findings", "partitions"):
    assert k in d, "missing key %s" % k
assert d["target"] == target and d["verb"] == "check", d["target"]
assert "ready" not in d, "check keeps no separate ready key"
s = d["summary"]
for k in ("n_ops", "n_gpu_ops", "n_folded_ops", "n_cpu_ops", "n_blockers", "n_warnings"):
    assert isinstance(s.get(k), int) and s[k] >= 0, "summary.%s: %r" % (k, s.get(k))
assert s["n_gpu_ops"] + s["n_folded_ops"] + s["n_cpu_ops"] == s["n_ops"]
assert d["ok"] == (s["n_blockers"] == 0), "ok vs blockers"
assert rc == (0 if d["ok"] else 1), "exit %d vs ok %s" % (rc, d["ok"])
# every op is in exactly one partition (folded ones in none), each listed in ascending order
seen = [o for p in d["partitions"] for o in p["ops"]]
assert len(seen) == len(set(seen)) == s["n_ops"] - s["n_folded_ops"], "partition op lists"
for p in d["partitions"]:
    assert p["ops"] == sorted(p["ops"]) and len(p["ops"]) == p["n_ops"], p
    assert not p["ops"] or (p["first_op"] <= p["ops"][0] and p["ops"][-1] <= p["last_op"]), p
nb = nw = 0
for f in d["findings"]:
    for k in ("rule", "severity", "target", "op", "op_name", "tensors", "reason", "fix", "source_kind", "source"):
        assert k in f, "finding lacks %s: %r" % (k, f)
    assert f["severity"] in ("blocker", "warning"), f["severity"]
    assert f["target"] == target
    assert isinstance(f["op"], int) and f["op"] >= -1 and f["op"] < s["n_ops"]
    assert (f["op_name"] is None) == (f["op"] == -1), f
    assert isinstance(f["tensors"], list)
    for t in f["tensors"]:
        for k in ("index", "name", "dtype", "shape", "constant"):
            assert k in t, "tensor lacks %s" % k
    for k in ("rule", "reason", "fix", "source_kind", "source"):
        assert isinstance(f[k], str) and f[k], "empty %s" % k
    nb += f["severity"] == "blocker"
    nw += f["severity"] == "warning"
assert (nb, nw) == (s["n_blockers"], s["n_warnings"]), "counts %r vs summary" % ((nb, nw),)
def has(rule, op):
    return any(f["rule"] == rule and f["op"] == op for f in d["findings"])
exec(extra)
EOF
    then ok "$name"; else bad "$name" "$(tail -n 3 "$T/py.out")"; fi
}

for t in mldrift classic; do
    "$LG" check --json --target "$t" "$M/clean.tflite" >"$T/j" 2>/dev/null; rc=$?
    json_check "json: clean, $t" "$T/j" "$rc" "$t" \
        'assert d["findings"] == [] and s["n_ops"] == 4 and s["n_gpu_ops"] == 4 and s["n_blockers"] == 0 and s["n_warnings"] == 0'
    "$LG" check --json --target "$t" "$M/blocked.tflite" >"$T/j" 2>/dev/null; rc=$?
    json_check "json: blocked, $t" "$T/j" "$rc" "$t" \
        'assert has("op-unsupported", 2) and not d["ok"]
f = [f for f in d["findings"] if f["rule"] == "op-unsupported"][0]
assert f["op_name"] == "GATHER_ND" and f["severity"] == "blocker" and f["source_kind"] == "delegate-source"
assert s["n_ops"] == 4 and s["n_blockers"] == 1'
    "$LG" check --json --target "$t" "$M/warn.tflite" >"$T/j" 2>/dev/null; rc=$?
    json_check "json: warning-only, $t" "$T/j" "$rc" "$t" \
        'assert d["ok"] and has("resize-align-corners", 0) and s["n_warnings"] == 1 and s["n_blockers"] == 0
f = d["findings"][0]
assert f["severity"] == "warning" and f["op_name"] == "RESIZE_BILINEAR"'
done
"$LG" check --json --target classic "$M/blocked.tflite" >"$T/j" 2>/dev/null; rc=$?
json_check "json: classic delegates only the largest GPU partition" "$T/j" "$rc" classic \
    'p = d["partitions"]
assert [(x["kind"], x["delegated"]) for x in p] == [("gpu", True), ("cpu", False), ("gpu", False)], p
assert s["n_gpu_ops"] == 2'
"$LG" check --json --max-gpu-ops 2 "$M/clean.tflite" >"$T/j" 2>/dev/null; rc=$?
json_check "json: graph-size warning with --max-gpu-ops 2" "$T/j" "$rc" mldrift \
    'g = [f for f in d["findings"] if f["rule"] == "graph-size"]
assert len(g) == 1 and g[0]["severity"] == "warning" and 0 <= g[0]["op"] < 4 and d["ok"]'

# ---- --target classic vs the default (mldrift) on RELU_0_TO_1
"$LG" check --json "$M/relu01.tflite" >"$T/j" 2>/dev/null; rc=$?
json_check "relu01, default target (mldrift): op-no-compat-case, exit 1" "$T/j" "$rc" mldrift \
    'assert rc == 1 and has("op-no-compat-case", 0) and d["findings"][0]["op_name"] == "RELU_0_TO_1"'
"$LG" check --json --target classic "$M/relu01.tflite" >"$T/j" 2>/dev/null; rc=$?
json_check "relu01, classic: ready, exit 0" "$T/j" "$rc" classic \
    'assert rc == 0 and d["findings"] == [] and s["n_gpu_ops"] == 1'
expect_rc "relu01 text, default target: exit 1" 1 check "$M/relu01.tflite"
expect_rc "relu01 text, classic: exit 0" 0 check -t classic "$M/relu01.tflite"

# ---- --list-rules --json and --explain for every rule
"$LG" check --list-rules --json >"$T/rules.json" 2>"$T/err"; rc=$?
if [ "$rc" -eq 0 ] && "$PY" -c 'import json,sys; json.load(sys.stdin)' <"$T/rules.json" 2>/dev/null; then
    ok "--list-rules --json parses"
else
    bad "--list-rules --json parses" "exit $rc: $(head -c 300 "$T/err")"
fi
ids=$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verb"] == "check" and d["model"] is None and d["ok"] is True and d["n_rules"] == len(d["rules"]), d.keys()
for r in d["rules"]:
    assert "id" not in r, "a rule is named by rule, never id"
    assert r["severity"] in ("blocker", "warning") and r["targets"] and r["source_kind"] and r["fix"] and r["title"], r
    print(r["rule"])' "$T/rules.json" 2>"$T/err")
n_def=$(grep -c '^RULE(' src/check/rules.def)
n_ids=$(printf '%s\n' "$ids" | grep -c .)
if [ "$n_ids" -eq "$n_def" ] && [ "$n_ids" -gt 0 ]; then ok "--list-rules --json lists all $n_def rules of rules.def"
else bad "--list-rules --json lists all rules" "$n_ids ids, rules.def has $n_def; $(head -c 200 "$T/err")"; fi
explain_bad=""
for id in $ids; do
    "$LG" check --explain "$id" >"$T/x" 2>"$T/err"; rc=$?
    if [ "$rc" -ne 0 ] || [ -s "$T/err" ] || ! head -n 1 "$T/x" | grep -q "^$id (" \
        || ! grep -q '^source: ' "$T/x" || ! grep -q '^fix: ' "$T/x"; then
        explain_bad="$explain_bad $id"
    fi
done
if [ -z "$explain_bad" ] && [ -n "$ids" ]; then ok "--explain works for every listed rule ($n_ids)"
else bad "--explain works for every listed rule" "failed for:$explain_bad"; fi
xj_bad=""
for id in $ids; do
    "$LG" check --explain "$id" --json >"$T/xj" 2>"$T/err"; rc=$?
    if [ "$rc" -ne 0 ] || [ -s "$T/err" ] || ! "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verb"] == "check" and d["model"] is None and d["ok"] is True and d["rule"] == sys.argv[2]
assert d["title"] and d["doc"] and d["fix"] and d["severity"] in ("blocker", "warning")' "$T/xj" "$id" 2>/dev/null; then
        xj_bad="$xj_bad $id"
    fi
done
if [ -z "$xj_bad" ] && [ -n "$ids" ]; then ok "--explain RULE --json is a JSON report for every listed rule"
else bad "--explain --json" "failed for:$xj_bad"; fi

# ---- options a mode does not take are errors
expect_err "--markdown without --list-rules: exit 2" check --markdown "$M/clean.tflite"
expect_err "--explain with a MODEL: exit 2" check --explain graph-size "$M/clean.tflite"
expect_err "--list-rules with --target: exit 2" check --list-rules --target classic
expect_err "--explain with --list-rules: exit 2" check --explain graph-size --list-rules
expect_err "--markdown with --json: exit 2" check --list-rules --markdown --json

"$LG" check --list-rules >"$T/lr" 2>&1; rc=$?
if [ "$rc" -eq 0 ] && [ "$(grep -c . "$T/lr")" -eq "$n_def" ]; then ok "--list-rules text: one line per rule"
else bad "--list-rules text" "exit $rc, $(grep -c . "$T/lr") lines"; fi

# ---- the graph-size warning suggests a real op, never a folded DEQUANTIZE.
# examples/tiny_convnet: ops 0-7 are the DEQUANTIZEs of its fp16 weights (folded), then
# 8 CONV_2D, 9 DEPTHWISE_CONV_2D, 10 CONV_2D, 11 MEAN, 12 FULLY_CONNECTED, 13 SOFTMAX
# (examples/make_examples.c). The cut goes among those 6 real ops, k in [max(1, 6/4), 3*6/4]
# = 1..4 (before ops 9..12); each such cut has one activation crossing it (the previous op's
# output; the folded weights are constants), so the tie goes to the middle, k = 3: op 11 MEAN.
"$LG" check --json --max-gpu-ops 2 examples/tiny_convnet.tflite >"$T/j" 2>/dev/null; rc=$?
json_check "graph-size on tiny_convnet suggests op 11 MEAN, not a folded DEQUANTIZE" "$T/j" "$rc" mldrift \
    'g = [f for f in d["findings"] if f["rule"] == "graph-size"]
assert len(g) == 1 and g[0]["op"] == 11 and g[0]["op_name"] == "MEAN", g
assert "before op 11 (MEAN): 1 tensor(s) cross" in g[0]["fix"], g[0]["fix"]'

# ---- partitions: JSON lists each partition's ops; the text ranges never overlap.
# blocked_net on classic: ops 0-4 CPU, 5 GPU, 6 CPU, 7 GPU (not the largest), 8 CPU, in this
# order because op 5 (RESIZE_BILINEAR) and op 7 (MEAN) are the GPU-able ones between blockers.
"$LG" check --json --target classic examples/blocked_net.tflite >"$T/j" 2>/dev/null; rc=$?
json_check "blocked_net classic: partition op lists" "$T/j" "$rc" classic \
    'assert [(p["kind"], p["ops"]) for p in d["partitions"]] == [("cpu", [0, 1, 2, 3, 4]), ("gpu", [5]), ("cpu", [6]), ("gpu", [7]), ("cpu", [8])], d["partitions"]'
ranges_disjoint() {
    "$PY" - "$1" <<'EOF2'
import re, sys
spans = []
for line in open(sys.argv[1]):
    m = re.match(r"  partition \d+: ops? (.*?)(?: \(|, \.\.\.)", line)
    if not m:
        continue
    for r in m.group(1).split(", "):
        a, _, b = r.partition("-")
        spans.append((int(a), int(b or a)))
spans.sort()
assert spans, "no partition lines"
for (a0, b0), (a1, b1) in zip(spans, spans[1:]):
    assert b0 < a1, "ranges overlap: %d-%d and %d-%d" % (a0, b0, a1, b1)
EOF2
}
"$LG" check --target classic examples/blocked_net.tflite >"$T/txt" 2>&1
if grep -q '^  partition 0: ops 0-4 (5 ops), CPU$' "$T/txt" && grep -q '^  partition 3: op 7 (1 op), GPU-able' "$T/txt" \
   && ranges_disjoint "$T/txt" 2>"$T/err"; then ok "text: blocked_net partitions as disjoint op ranges"
else bad "text: blocked_net partitions as disjoint op ranges" "$(grep partition "$T/txt" | head -n 5) $(cat "$T/err")"; fi
"$LG" check build/corpus/face_detection_full_range_sparse.tflite >"$T/txt" 2>&1
if [ ! -f build/corpus/face_detection_full_range_sparse.tflite ]; then bad "corpus" "face_detection_full_range_sparse missing"
elif ranges_disjoint "$T/txt" 2>"$T/err"; then ok "text: sparse corpus model partitions never overlap"
else bad "text: sparse corpus model partitions never overlap" "$(grep partition "$T/txt" | head -n 5) $(cat "$T/err")"; fi

# ---- the demo models (examples/): regenerated byte-identical, clean one READY, blocked one
#      shows its blockers at the ops examples/make_examples.c documents
if "$CC" -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Iinclude -Isrc \
        -o "$T/make_examples" examples/make_examples.c build/liblitegpu.a -lpthread -lm 2>"$T/cc.err" \
    && mkdir -p "$T/ex" && "$T/make_examples" "$T/ex" 2>"$T/err"; then
    for f in tiny_convnet blocked_net layernorm_512 cleanup_net; do
        if cmp -s "$T/ex/$f.tflite" "examples/$f.tflite"; then ok "examples/$f.tflite is what make_examples writes"
        else bad "examples/$f.tflite is what make_examples writes" "regenerate: make_examples examples"; fi
    done
    "$T/make_examples" "$T/ex" 2>/dev/null
    if cmp -s "$T/ex/tiny_convnet.tflite" "examples/tiny_convnet.tflite" && \
       cmp -s "$T/ex/blocked_net.tflite" "examples/blocked_net.tflite"; then ok "make_examples: a second run (over existing files) gives the same bytes"
    else bad "make_examples: a second run gives the same bytes"; fi
else
    bad "build and run examples/make_examples.c" "$(head -c 400 "$T/cc.err" "$T/err" 2>/dev/null)"
fi
for t in mldrift classic; do
    "$LG" check --json --target "$t" examples/tiny_convnet.tflite >"$T/j" 2>/dev/null; rc=$?
    json_check "examples/tiny_convnet, $t: READY, fp16 weights folded" "$T/j" "$rc" "$t" \
        'assert d["ok"] and d["findings"] == [] and s["n_folded_ops"] == 8 and s["n_gpu_ops"] == 6'
    "$LG" check --json --target "$t" examples/blocked_net.tflite >"$T/j" 2>/dev/null; rc=$?
    json_check "examples/blocked_net, $t: the documented blockers" "$T/j" "$rc" "$t" \
        'assert not d["ok"]
for rule, op in (("op-unsupported", 0), ("op-version", 1), ("mali-transpose-conv", 1), ("tensor-rank", 2),
                 ("resize-align-corners", 5), ("padv2-nonzero", 6), ("large-multi-axis-reduce", 8)):
    assert has(rule, op), (rule, op)'
done

finish
