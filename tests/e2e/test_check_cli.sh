#!/usr/bin/env bash
# `litegpu check` end to end on small models written with the builder API
# (tests/tools/make_check_models.c and the shared test-model library tests/models/rule_models*.c,
# compiled here against build/liblitegpu.a):
#  - exit codes: 0 ready (warnings allowed), 1 blocked, 2 missing/empty/corrupt file or bad usage;
#  - --json parses and carries the stable fields (rule, severity, target, op, op_name, tensors,
#    reason, fix, source_kind, source; summary.ops/gpu_ops/blockers/warnings), consistent
#    with the exit code;
#  - --explain works for every id of --list-rules --json, and --explain nope exits 2;
#  - --target classic and the default (mldrift) differ on RELU_0_TO_1;
#  - --gpu any|mali|adreno|webgpu: the family's verdict (blocked_net's Mali findings present
#    with mali and any, absent with adreno/webgpu; TRANSPOSE_CONV with bias READY on classic
#    for adreno), "gpu"/"gpus" in the JSON, the families in --list-rules and --explain, and
#    --gpu any byte-identical to no --gpu.
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
# json_check NAME FILE EXITCODE TARGET PYTHON-ASSERTIONS [GPU] (d = the document; GPU: any)
json_check() {
    local name="$1" file="$2" rc="$3" target="$4" extra="$5" gpu="${6:-any}"
    if "$PY" - "$file" "$rc" "$target" "$extra" "$gpu" >"$T/py.out" 2>&1 <<'EOF'
import json, sys
path, rc, target, extra, gpu = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
d = json.load(open(path))
for k in ("verb", "model", "ok", "target", "gpu", "summary", "findings", "partitions"):
    assert k in d, "missing key %s" % k
assert d["target"] == target and d["verb"] == "check", d["target"]
assert d["gpu"] == gpu, "gpu %r, want %r" % (d["gpu"], gpu)
assert isinstance(d["summary"].get("n_other_gpu_findings"), int), "summary.n_other_gpu_findings"
assert gpu != "any" or d["summary"]["n_other_gpu_findings"] == 0, "any leaves nothing out"
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
    for k in ("rule", "severity", "target", "gpus", "op", "op_name", "tensors", "reason", "fix", "source_kind", "source"):
        assert k in f, "finding lacks %s: %r" % (k, f)
    assert f["gpus"] and set(f["gpus"]) <= {"mali", "adreno", "webgpu"}, f["gpus"]
    assert gpu == "any" or gpu in f["gpus"], "a %s finding for %s" % (f["gpus"], gpu)
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
    assert r["gpus"] and set(r["gpus"]) <= {"mali", "adreno", "webgpu"}, r
    assert r["source_kind"] != "delegate-source" or r["gpus"] == ["mali", "adreno", "webgpu"], r
    print(r["rule"])' "$T/rules.json" 2>"$T/err")
n_def=$(grep -c '^RULE(' src/check/rules.def)
n_ids=$(printf '%s\n' "$ids" | grep -c .)
if [ "$n_ids" -eq "$n_def" ] && [ "$n_ids" -gt 0 ]; then ok "--list-rules --json lists all $n_def rules of rules.def"
else bad "--list-rules --json lists all rules" "$n_ids ids, rules.def has $n_def; $(head -c 200 "$T/err")"; fi
explain_bad=""
for id in $ids; do
    "$LG" check --explain "$id" >"$T/x" 2>"$T/err"; rc=$?
    if [ "$rc" -ne 0 ] || [ -s "$T/err" ] || ! head -n 1 "$T/x" | grep -q "^$id (" \
        || ! grep -q '^source: ' "$T/x" || ! grep -q '^fix: ' "$T/x" || ! grep -qE '^gpus:    (all|mali|webgpu)' "$T/x"; then
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
assert d["title"] and d["doc"] and d["fix"] and d["severity"] in ("blocker", "warning")
assert d["gpus"] and d["gpus_note"], "gpus"' "$T/xj" "$id" 2>/dev/null; then
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
expect_err "--list-rules with --gpu: exit 2" check --list-rules --gpu mali
expect_err "--explain with --gpu: exit 2" check --explain graph-size --gpu mali

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

# ---- --gpu: each GPU family's verdict (tests/unit/test_check_gpu.c has the rule-by-rule cases)
expect_err "--gpu nope: exit 2" check --gpu nope "$M/clean.tflite"
expect_err "--gpu MALI (names are lower case): exit 2" check --gpu MALI "$M/clean.tflite"
expect_err "--gpu webgpu --target classic (no WebGPU backend): exit 2" check --gpu webgpu --target classic "$M/clean.tflite"
for g in any mali adreno webgpu; do
    expect_rc "clean model, --gpu $g: exit 0" 0 check --gpu "$g" "$M/clean.tflite"
done
# --gpu any is the default: the same bytes as no --gpu, text and JSON
for t in mldrift classic; do
    for f in "$M/blocked.tflite" "$M/warn.tflite" examples/blocked_net.tflite; do
        "$LG" check --target "$t" "$f" >"$T/a" 2>&1; "$LG" check --target "$t" --gpu any "$f" >"$T/b" 2>&1
        "$LG" check --json --target "$t" "$f" >"$T/aj" 2>&1; "$LG" check --json --target "$t" --gpu any "$f" >"$T/bj" 2>&1
        if cmp -s "$T/a" "$T/b" && cmp -s "$T/aj" "$T/bj"; then ok "--gpu any = no --gpu: $(basename "$f"), $t"
        else bad "--gpu any = no --gpu: $(basename "$f"), $t"; fi
    done
done
# blocked_net (examples/make_examples.c): 10 blockers and 1 warning for any and mali; three of
# the blockers (mali-transpose-conv op 1, padv2-nonzero op 6, large-multi-axis-reduce op 8)
# and the warning (resize-align-corners op 5) are Mali's field rules, so adreno and webgpu
# have 7 blockers, 0 warnings and 4 findings left out; the TRANSPOSE_CONV's op-version (v4,
# fused RELU) is the source's and stays everywhere.
for g in any mali adreno webgpu; do
    case $g in any|mali) want='10 1 0 True' ;; *) want='7 0 4 False' ;; esac
    "$LG" check --json --gpu "$g" examples/blocked_net.tflite >"$T/j" 2>/dev/null; rc=$?
    json_check "blocked_net --gpu $g: blockers, warnings, left out = $want" "$T/j" "$rc" mldrift '
s = d["summary"]
mali_rules = {"mali-transpose-conv": 1, "padv2-nonzero": 6, "large-multi-axis-reduce": 8, "resize-align-corners": 5}
got = "%d %d %d %s" % (s["n_blockers"], s["n_warnings"], s["n_other_gpu_findings"], all(has(r, o) for r, o in mali_rules.items()))
assert got == "'"$want"'", got
assert not any(has(r, o) for r, o in mali_rules.items()) or got.endswith("True")
assert has("op-version", 1) and has("op-unsupported", 0) and not d["ok"]
for f in d["findings"]:
    assert (f["gpus"] == ["mali"]) == (f["rule"] in mali_rules), f' "$g"
done
"$LG" check --gpu mali examples/blocked_net.tflite >"$T/txt" 2>&1
if head -n 1 "$T/txt" | grep -q '^examples/blocked_net.tflite: NOT READY for mldrift on mali: 10 blocker(s), 1 warning(s); ' \
   && grep -q '^mali-transpose-conv (blocker, 1; mali only): TRANSPOSE_CONV is rejected on Mali$' "$T/txt" \
   && grep -q '^op-version (blocker, 1): ' "$T/txt" && ! grep -q '^not applied' "$T/txt"; then
    ok "text --gpu mali: the verdict names the family, a Mali rule says it is Mali's"
else bad "text --gpu mali" "$(head -n 2 "$T/txt")"; fi
"$LG" check --gpu adreno examples/blocked_net.tflite >"$T/txt" 2>&1
if head -n 1 "$T/txt" | grep -q 'NOT READY for mldrift on adreno: 7 blocker(s), 0 warning(s)' \
   && ! grep -qE '^(mali-transpose-conv|padv2-nonzero|large-multi-axis-reduce|resize-align-corners) ' "$T/txt" \
   && grep -q '^not applied: 4 finding(s) of rules for other GPU families only (--gpu any applies every rule)$' "$T/txt" \
   && grep -q 'fix: unfuse the activation: TRANSPOSE_CONV without activation, then a RELU op (version 3)$' "$T/txt"; then
    ok "text --gpu adreno: no Mali finding, 4 left out, no Mali advice in the fix"
else bad "text --gpu adreno" "$(head -n 2 "$T/txt"; grep -E 'not applied|unfuse' "$T/txt")"; fi
"$LG" check examples/blocked_net.tflite >"$T/txt" 2>&1
if head -n 1 "$T/txt" | grep -q 'NOT READY for mldrift: 10 blocker' && grep -q '^mali-transpose-conv (blocker, 1): ' "$T/txt" \
   && ! grep -q ' on any' "$T/txt"; then ok "text, default (any): unchanged verdict line and rule headers"
else bad "text, default (any)" "$(head -n 1 "$T/txt")"; fi
# The issue's case: TRANSPOSE_CONV v3 with bias (tests/models lgm_mali_transpose_conv_trigger2)
# is in the source of both delegates; only Mali rejects it. FC 2-D x [1,1,16] MUL: Mali and
# WebGPU (computed wrong there) block it, Adreno has only the source, which ML Drift passes.
if "$CC" -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Iinclude -Isrc \
        -o "$T/make_rule_models" tests/tools/make_rule_models.c tests/models/rule_models*.c \
        build/liblitegpu.a -lm 2>"$T/cc.err" && mkdir -p "$T/r" && "$T/make_rule_models" "$T/r" 2>"$T/mk.err"; then
    R=$T/r
    for t in classic mldrift; do
        expect_rc "TRANSPOSE_CONV with bias, $t --gpu adreno: exit 0" 0 check --target "$t" --gpu adreno "$R/mali-transpose-conv__trigger2.tflite"
        expect_rc "TRANSPOSE_CONV with bias, $t --gpu mali: exit 1" 1 check --target "$t" --gpu mali "$R/mali-transpose-conv__trigger2.tflite"
        expect_rc "TRANSPOSE_CONV with bias, $t --gpu any: exit 1" 1 check --target "$t" "$R/mali-transpose-conv__trigger2.tflite"
    done
    expect_rc "TRANSPOSE_CONV with bias, --gpu webgpu: exit 0" 0 check --gpu webgpu "$R/mali-transpose-conv__trigger2.tflite"
    expect_rc "TRANSPOSE_CONV near-miss, --gpu mali: exit 0" 0 check --gpu mali "$R/mali-transpose-conv__nearmiss.tflite"
    "$LG" check --json --target classic --gpu adreno "$R/mali-transpose-conv__trigger2.tflite" >"$T/j" 2>/dev/null; rc=$?
    json_check "TRANSPOSE_CONV with bias, classic --gpu adreno: every op on the GPU, 1 left out" "$T/j" "$rc" classic \
        'assert d["ok"] and d["findings"] == [] and s["n_gpu_ops"] == s["n_ops"] and s["n_other_gpu_findings"] == 1' adreno
    for g in mali webgpu adreno; do
        case $g in adreno) w=0 ;; *) w=1 ;; esac
        expect_rc "FC 2-D + broadcast MUL, --gpu $g: exit $w" "$w" check --gpu "$g" "$R/fc-2d-broadcast__trigger.tflite"
    done
    "$LG" check --json --gpu webgpu "$R/fc-2d-broadcast__trigger.tflite" >"$T/j" 2>/dev/null; rc=$?
    json_check "FC 2-D + broadcast MUL, --gpu webgpu: gpus mali, webgpu" "$T/j" "$rc" mldrift \
        'f = [f for f in d["findings"] if f["rule"] == "fc-2d-broadcast"]
assert len(f) == 1 and f[0]["gpus"] == ["mali", "webgpu"], f' webgpu
    "$LG" check --gpu webgpu "$R/fc-2d-broadcast__trigger.tflite" >"$T/txt" 2>&1
    if grep -q '^fc-2d-broadcast (blocker, 1; mali and webgpu only): ' "$T/txt" && grep -q 'NOT READY for mldrift on webgpu: ' "$T/txt"; then
        ok "text --gpu webgpu: a Mali+WebGPU rule says so"
    else bad "text --gpu webgpu: a Mali+WebGPU rule says so" "$(grep -E 'READY|fc-2d' "$T/txt")"; fi
    expect_rc "GATHER with constant indices, --gpu webgpu: exit 1" 1 check --gpu webgpu "$R/gather-const-indices__trigger.tflite"
    expect_rc "GATHER with constant indices, --gpu mali: exit 0" 0 check --gpu mali "$R/gather-const-indices__trigger.tflite"
else
    bad "build and run make_rule_models" "$(head -c 400 "$T/cc.err" "$T/mk.err" 2>/dev/null)"
fi
# the families in the rule listings
"$LG" check --list-rules --markdown >"$T/md" 2>&1
if head -n 1 "$T/md" | grep -q '^| rule | severity | targets | gpus | source kind |' \
   && grep -q '^| `mali-transpose-conv` | blocker | both | mali | ' "$T/md" \
   && grep -q '^| `tensor-rank` | blocker | both | all | ' "$T/md" \
   && grep -q '^| `fc-2d-broadcast` | blocker | both | mali, webgpu | ' "$T/md"; then ok "--list-rules --markdown: the gpus column"
else bad "--list-rules --markdown: the gpus column" "$(head -n 1 "$T/md")"; fi
if grep -qE '^gather-const-indices +blocker +mldrift +webgpu +GATHER' "$T/lr" && grep -qE '^op-unsupported +blocker +both +all +' "$T/lr"; then
    ok "--list-rules text: the gpus column"
else bad "--list-rules text: the gpus column" "$(head -n 2 "$T/lr")"; fi
"$LG" check --explain padv2-nonzero >"$T/x" 2>&1
if grep -q '^gpus:    mali: seen on a Pixel 8a (Mali); not on WebGPU' "$T/x"; then ok "--explain: the families and why"
else bad "--explain: the families and why" "$(grep gpus "$T/x")"; fi

finish
