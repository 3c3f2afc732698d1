#!/usr/bin/env bash
# Model Explorer overlays (`compare --overlay`, `check --overlay`, issue 15 item 2):
#  - the schema checker (tests/e2e/overlay_schema.py, written from Model Explorer's sources)
#    passes the documented examples and fails each broken form;
#  - on every development model (build/corpus, examples) and on the fp16-failure model
#    (examples/layernorm_512 on its README input), the overlays pass the checker, every graph
#    id and key names a graph and an op of the model as flatc reads it, and the values are the
#    verb's own --json figures: compare's per-op severity (the largest over the op's outputs),
#    check's worst finding severity per op;
#  - hand-derived on layernorm_512 (README "compare"): ops 3 (MEAN) and 4 (ADD) are where
#    inf appears, so their value is "new inf/NaN"; ops 5..8 fail (severity > 1); 0..2 pass;
#  - an existing overlay is refused without --force and replaced with it; a symbolic link is
#    refused even with --force; no temporary file is left; --overlay with two models and
#    --force without --overlay are usage errors.
# Env: LG (default build/litegpu).
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
SCHEMA=${SCHEMA:-tests/data/tflite-schema-flatc2.fbs}
CHK=tests/e2e/overlay_schema.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "overlay: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }

[ -x "$LG" ] || { bad "build" "$LG not built"; finish; }
[ -f "$SCHEMA" ] || { bad "reference schema" "missing $SCHEMA"; finish; }
command -v flatc >/dev/null || { bad "flatc" "not installed"; finish; }

# ---- the checker itself: the docs' own examples pass, each broken form fails
good() { # name json
    printf '%s' "$2" >"$T/doc.json"
    if out=$("$PY" "$CHK" "$T/doc.json" 2>&1); then ok "checker accepts $1"; else bad "checker accepts $1" "$out"; fi
}
broken() { # name json expected-words
    printf '%s' "$2" >"$T/doc.json"
    if out=$("$PY" "$CHK" "$T/doc.json" 2>&1); then bad "checker rejects $1" "passed"
    elif grep -q "$3" <<<"$out"; then ok "checker rejects $1"
    else bad "checker rejects $1" "$out"; fi
}
# node_data_builder.py's thresholds example (10 red, 50 blue, 100 yellow), one graph's data
good "one graph's data with thresholds" '{"results": {"0": {"value": 5}, "a/b": {"value": 70}}, "thresholds": [{"value": 10, "bgColor": "red"}, {"value": 50, "bgColor": "blue"}, {"value": 100, "bgColor": "yellow"}]}'
good "graph id -> data with a gradient" '{"main": {"results": {"1": {"value": 0.5, "bgColor": "#aabb00"}}, "gradient": [{"stop": 0, "bgColor": "#00ff00"}, {"stop": 1, "bgColor": "red"}]}}'
good "string values" '{"main": {"name": "x", "results": {"3": {"value": "blocker"}}, "showExpandedSummaryOnGroupNode": true}}'
broken "no results" '{"main": {"thresholds": []}}' '"results" (an object) is required'
broken "a result without value" '{"main": {"results": {"0": {"bgColor": "red"}}}}' '"value" is required'
broken "a null value" '{"main": {"results": {"0": {"value": null}}}}' 'not a number, string or boolean'
broken "NaN" '{"main": {"results": {"0": {"value": NaN}}}}' 'NaN is not JSON'
broken "decreasing thresholds" '{"main": {"results": {}, "thresholds": [{"value": 50, "bgColor": "red"}, {"value": 10, "bgColor": "blue"}]}}' 'thresholds must increase'
broken "a threshold without colour" '{"main": {"results": {}, "thresholds": [{"value": 1}]}}' 'bgColor (a colour) is required'
broken "a gradient without stop 1" '{"main": {"results": {}, "gradient": [{"stop": 0, "bgColor": "red"}, {"stop": 0.5, "bgColor": "blue"}]}}' 'needs stops 0 and 1'
broken "an unknown key" '{"main": {"results": {"0": {"value": 1, "label": "x"}}}}' "unknown key 'label'"
broken "a repeated key" '{"main": {"results": {"0": {"value": 1}, "0": {"value": 2}}}}' 'appears twice'
# keys against a model (examples/layernorm_512: one subgraph "main", 9 ops)
printf '%s' '{"main": {"results": {"9": {"value": 1}}}}' >"$T/doc.json"
if out=$("$PY" "$CHK" "$T/doc.json" --model examples/layernorm_512.tflite --schema "$SCHEMA" 2>&1); then bad "checker rejects op 9 of a 9-op model" "passed"
elif grep -q "neither an op node id (0..8)" <<<"$out"; then ok "checker rejects op 9 of a 9-op model"; else bad "checker rejects op 9 of a 9-op model" "$out"; fi
printf '%s' '{"serving_default": {"results": {"0": {"value": 1}}}}' >"$T/doc.json"
if out=$("$PY" "$CHK" "$T/doc.json" --model examples/layernorm_512.tflite --schema "$SCHEMA" 2>&1); then bad "checker rejects an unknown graph id" "passed"
elif grep -q "no such graph" <<<"$out"; then ok "checker rejects an unknown graph id"; else bad "checker rejects an unknown graph id" "$out"; fi
printf '%s' '{"main": {"results": {"8": {"value": 1}, "ln/variance": {"value": 2}}}}' >"$T/doc.json"
if out=$("$PY" "$CHK" "$T/doc.json" --model examples/layernorm_512.tflite --schema "$SCHEMA" 2>&1); then ok "checker accepts op 8 and an op output tensor name"
else bad "checker accepts op 8 and an op output tensor name" "$out"; fi

# ---- the verbs' overlays equal their --json
cat >"$T/same.py" <<'EOF'
# same.py MODE OVERLAY JSON: the overlay's values are the verb's --json figures.
import json, math, sys
mode, ov_path, js_path = sys.argv[1:4]
ov = json.load(open(ov_path)); js = json.load(open(js_path))
(gid, g), = ov.items()
res = {k: r['value'] for k, r in g['results'].items()}
want = {}
if mode == 'compare':
    per_op = {}
    for t in js['tensors']:
        per_op.setdefault(t['op'], []).append(t)
    for op, ts in per_op.items():
        # the severity is null exactly when it is not a number: new inf/NaN (infinite) or n/a
        if any(t['severity'] is None and t['test_inf'] + t['test_nan'] > t['ref_inf'] + t['ref_nan'] for t in ts):
            want[str(op)] = 'new inf/NaN'
        else:
            nums = [t['severity'] for t in ts if t['severity'] is not None]
            want[str(op)] = max(nums) if nums else 'n/a'
else:
    rank = {'blocker': 0, 'warning': 1}
    for f in js['findings']:
        if f['op'] is None or f['op'] < 0:
            continue
        k = str(f['op'])
        if k not in want or rank[f['severity']] < rank[want[k]]:
            want[k] = f['severity']
errs = []
if set(res) != set(want):
    errs.append('keys differ: only overlay %s, only json %s' % (sorted(set(res) - set(want))[:5], sorted(set(want) - set(res))[:5]))
for k in set(res) & set(want):
    if res[k] != want[k]:
        errs.append('op %s: overlay %r, json %r' % (k, res[k], want[k]))
if errs:
    print('; '.join(errs[:5])); sys.exit(1)
print('%d ops' % len(res))
EOF

verb_overlay() { # verb label model [args...]: B.VERB.json and B.VERB.ov, same exit code
    local verb=$1 label=$2 m=$3; shift 3
    local b; b=$T/$(basename "$m" .tflite)$label
    "$LG" "$verb" "$m" "$@" --json >"$b.$verb.json" 2>"$b.err"
    local rc=$?
    "$LG" "$verb" "$m" "$@" --overlay "$b.$verb.ov" >/dev/null 2>>"$b.err"
    if [ $? -ne "$rc" ] || [ ! -s "$b.$verb.ov" ]; then bad "$label$m $verb --overlay" "$(head -c 300 "$b.err")"; return 1; fi
}
values() { # verb label model
    local b; b=$T/$(basename "$3" .tflite)$2
    if out=$("$PY" "$T/same.py" "$1" "$b.$1.ov" "$b.$1.json" 2>&1); then ok "$2$3 $1 overlay = --json ($out)"
    else bad "$2$3 $1 overlay = --json" "$out"; fi
}
one() { # label model [compare args...]: compare and check overlays, one flatc read of the model
    local label=$1 m=$2; shift 2
    local b; b=$T/$(basename "$m" .tflite)$label
    local files=()
    verb_overlay compare "$label" "$m" "$@" && files+=("$b.compare.ov")
    [ -z "$label" ] && verb_overlay check "$label" "$m" && files+=("$b.check.ov")
    [ ${#files[@]} -gt 0 ] || return
    if out=$("$PY" "$CHK" "${files[@]}" --model "$m" --schema "$SCHEMA" 2>&1); then ok "$label$m overlays: schema and keys ($(tr '\n' ' ' <<<"$out"))"
    else bad "$label$m overlays: schema and keys" "$(head -c 400 <<<"$out")"; fi
    for f in "${files[@]}"; do
        case $f in *.compare.ov) values compare "$label" "$m" ;; *.check.ov) values check "$label" "$m" ;; esac
    done
}
for m in build/corpus/*.tflite examples/*.tflite; do
    [ -f "$m" ] || continue
    one "" "$m"
done

# ---- bench --overlay: per-op avg ms of the same run's profile (bench --profile --json)
for m in build/corpus/face_detection_short_range.tflite examples/tiny_convnet.tflite examples/layernorm_512.tflite; do
    [ -f "$m" ] || continue
    b=$(basename "$m" .tflite)
    if ! "$LG" bench "$m" --runs 5 --warmup 1 --overlay "$T/$b.bench.ov" --json >"$T/$b.bench.json" 2>"$T/err"; then
        bad "bench --overlay $m" "$(head -c 300 "$T/err")"; continue
    fi
    if out=$("$PY" "$CHK" "$T/$b.bench.ov" --model "$m" --schema "$SCHEMA" 2>&1); then ok "bench $m overlay: schema and keys ($(tr '\n' ' ' <<<"$out"))"
    else bad "bench $m overlay: schema and keys" "$(head -c 400 <<<"$out")"; fi
    if out=$("$PY" - "$T/$b.bench.ov" "$T/$b.bench.json" 2>&1 <<'PYEOF'
import json, sys
ov = list(json.load(open(sys.argv[1])).values())[0]['results']
prof = json.load(open(sys.argv[2]))['profile']['ops']
want = {str(o['index']): o['avg_ms'] for o in prof if o['n_calls'] > 0}
assert set(ov) == set(want), 'keys %s vs executed ops %s' % (sorted(ov)[:5], sorted(want)[:5])
bad = [k for k in ov if abs(ov[k]['value'] - want[k]) > 1e-6 * max(abs(want[k]), 1e-9)]
assert not bad, 'values differ at %s' % bad[:5]
print('%d ops, the profile\'s avg_ms' % len(ov))
PYEOF
    ); then ok "bench $m overlay values: $out"; else bad "bench $m overlay values" "$(tail -n 2 <<<"$out")"; fi
done
"$LG" bench examples/tiny_convnet.tflite --force >/dev/null 2>"$T/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && ok "bench --force without --overlay: exit 2, one line" || bad "bench --force alone" "exit $rc"

# ---- key i is the flatbuffer's operator i (what the adapter names node "i"): the op kind flatc
# reads at that index is the op_name compare's --json gives the op
cat >"$T/ident.py" <<'PYEOF'
import json, os, re, subprocess, sys, tempfile
model, schema, cmp_json, ov = sys.argv[1:5]
body = re.search(r'enum BuiltinOperator : int32 \{(.*?)\}', open(schema).read(), re.S).group(1)
enum = {int(v): k for k, v in re.findall(r'^\s*([A-Z0-9_]+)\s*=\s*(-?\d+)', body, re.M)}
names = {k: v for v, k in enum.items()}
with tempfile.TemporaryDirectory() as d:
    subprocess.run(['flatc', '--json', '--strict-json', '--raw-binary', '-o', d, schema, '--', model], check=True)
    m = json.load(open(os.path.join(d, os.path.splitext(os.path.basename(model))[0] + '.json')))
def code(oc):  # TFLite GetBuiltinCode: the larger of builtin_code and deprecated_builtin_code
    b = oc.get('builtin_code', 'ADD')
    return max(names[b] if isinstance(b, str) else b, oc.get('deprecated_builtin_code', 0))
kinds = [enum.get(code(m['operator_codes'][op.get('opcode_index', 0)])) for op in m['subgraphs'][0]['operators']]
want = {str(t['op']): t['op_name'] for t in json.load(open(cmp_json))['tensors']}
keys = list(json.load(open(ov)).values())[0]['results']
bad = [(k, kinds[int(k)], want[k]) for k in keys if kinds[int(k)] != want[k]]
print('mismatch %s' % bad[:5] if bad else '%d keys' % len(keys))
sys.exit(1 if bad or not keys else 0)
PYEOF
for b in face_detection_short_range layernorm_512; do
    m=$(ls build/corpus/$b.tflite examples/$b.tflite 2>/dev/null | head -1)
    [ -n "$m" ] || continue
    if out=$("$PY" "$T/ident.py" "$m" "$SCHEMA" "$T/$b.compare.json" "$T/$b.compare.ov" 2>&1); then ok "$m: overlay key i is flatbuffer operator i ($out)"
    else bad "$m: overlay key i is flatbuffer operator i" "$out"; fi
done

# ---- the fp16 failure (README "compare"): where inf is born, and which ops fail
one "fp16-failure:" examples/layernorm_512.tflite --input x=examples/layernorm_input.npy
LN="$T/layernorm_512fp16-failure:.compare.ov"
if out=$("$PY" - "$LN" <<'EOF'
import json, sys
(g,) = json.load(open(sys.argv[1])).values()
v = {int(k): r['value'] for k, r in g['results'].items()}
num = lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)
errs = []
if sorted(v) != list(range(9)): errs.append('ops %s' % sorted(v))
for op in (3, 4):
    if v.get(op) != 'new inf/NaN' or g['results'][str(op)].get('bgColor') is None: errs.append('op %d: %r' % (op, v.get(op)))
for op in (5, 6, 7, 8):
    if not (num(v.get(op)) and v[op] > 1): errs.append('op %d should fail: %r' % (op, v.get(op)))
for op in (0, 1, 2):
    if not (num(v.get(op)) and v[op] <= 1): errs.append('op %d should pass: %r' % (op, v.get(op)))
th = [t['value'] for t in g['thresholds']]
if th[0] != 1: errs.append('first threshold %r (the pass/fail line is severity 1)' % th[0])
print('; '.join(errs)); sys.exit(1 if errs else 0)
EOF
); then ok "layernorm_512 f16: inf born at ops 3-4, ops 5-8 fail, 0-2 pass"; else bad "layernorm_512 f16 overlay" "$out"; fi
# near miss: in f32_f16 (fp32 arithmetic) the same model stays within tolerance: no op fails
"$LG" compare examples/layernorm_512.tflite --input x=examples/layernorm_input.npy -p f32_f16 --overlay "$T/ln32.ov" >/dev/null 2>&1
if "$PY" -c "
import json,sys
(g,)=json.load(open('$T/ln32.ov')).values()
bad=[k for k,r in g['results'].items() if not (isinstance(r['value'],(int,float)) and not isinstance(r['value'],bool) and r['value']<=1)]
sys.exit(1 if bad or len(g['results'])!=9 else 0)"; then ok "layernorm_512 f32_f16: every op within tolerance"; else bad "layernorm_512 f32_f16 overlay" "$(cat "$T/ln32.ov")"; fi

# ---- outputs: refused without --force, replaced with it, links refused, nothing left over
D=$T/out; mkdir -p "$D"
echo keep >"$D/o.json"
"$LG" check examples/blocked_net.tflite --overlay "$D/o.json" >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(cat "$D/o.json")" = keep ] && grep -q -- "--force" "$T/err"; then ok "check: existing overlay refused without --force"
else bad "check: existing overlay refused without --force" "rc $rc $(cat "$T/err")"; fi
"$LG" compare examples/tiny_convnet.tflite --overlay "$D/o.json" >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(cat "$D/o.json")" = keep ]; then ok "compare: existing overlay refused without --force"
else bad "compare: existing overlay refused without --force" "rc $rc"; fi
"$LG" check examples/blocked_net.tflite --overlay "$D/o.json" --force >/dev/null 2>"$T/err"
if [ $? -eq 1 ] && "$PY" "$CHK" "$D/o.json" >/dev/null; then ok "check --force replaces the overlay"; else bad "check --force replaces the overlay" "$(cat "$T/err")"; fi
ln -s o.json "$D/link.json"
"$LG" compare examples/tiny_convnet.tflite --overlay "$D/link.json" --force >/dev/null 2>"$T/err"
if [ $? -eq 2 ] && [ -L "$D/link.json" ]; then ok "a symbolic link is refused even with --force"; else bad "link refused" "$(cat "$T/err")"; fi
left=$(ls -A "$D" | grep -v -x -e o.json -e link.json)
if [ -z "$left" ]; then ok "no temporary file left"; else bad "no temporary file left" "$left"; fi
"$LG" compare examples/tiny_convnet.tflite examples/tiny_convnet.tflite --overlay "$D/two.json" >/dev/null 2>"$T/err"
if [ $? -eq 2 ] && [ ! -e "$D/two.json" ]; then ok "--overlay with two models is a usage error"; else bad "--overlay with two models" "$(cat "$T/err")"; fi
"$LG" check examples/blocked_net.tflite --force >/dev/null 2>"$T/err"
if [ $? -eq 2 ]; then ok "--force without --overlay is a usage error"; else bad "--force without --overlay"; fi
finish
