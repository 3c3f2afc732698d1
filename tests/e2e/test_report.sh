#!/usr/bin/env bash
# litegpu report: the page on every development model (build/corpus/*.tflite, examples/*.tflite,
# four of tests/fixtures/onnx converted) and on the fp16-failure model (layernorm_512 with its input: op 3 MEAN overflows), checked
#  - by tests/e2e/report_check.py: no script, no reference to anything outside, a CSP; the
#    glance (size, sha256, ops, census) = info --json; the findings table = check --json
#    (rule, severity, op, op name, message, fix, row by row); the curve = compare --json (one
#    polyline, one point per op, every point's x and y turned back into the op and its score),
#    the first divergent op and the overflow events marked; the memory timeline = bench --json
#    (peak op and bytes, one point per op, none above the peak); latency counts = the census;
#  - in headless Chromium (tests/e2e/report_browser.js, playwright-core as peers/verify uses
#    it): zero requests besides the page, zero console errors, a screenshot with many colours;
#  - near misses that must fail: a tampered page, a page that fetches, one that logs an error,
#    a blank one;
#  - a tensor named <script>alert(1)</script> (patched into pose_landmark_lite: the first
#    divergent tensor) shows as text and is never markup;
#  - before/after: quantize writes "litegpu.quantize"; report --before;
#  - a model the interpreter cannot run: the page without the run sections, saying why;
#  - usage errors (exit 2, one line), the --json summary's common keys.
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
PY=${PY:-python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "report: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
[ -x "$LG" ] || { bad "build" "$LG not built"; finish; }
t0=$(date +%s)

# page NAME MODEL [ARGS...]: the verbs' --json, the report, the checker
pages=()
page() {
    local n="$1" m="$2"; shift 2
    "$LG" info "$m" --json >"$T/$n.info.json" 2>"$T/err" || { bad "$n info" "$(head -c 200 "$T/err")"; return; }
    "$LG" check "$m" --json >"$T/$n.check.json" 2>"$T/err"; [ $? -le 1 ] || { bad "$n check" "$(head -c 200 "$T/err")"; return; }
    "$LG" compare "$m" "$@" --json >"$T/$n.cmp.json" 2>"$T/err"; [ $? -le 1 ] || { bad "$n compare" "$(head -c 200 "$T/err")"; return; }
    "$LG" bench "$m" --runs 1 --warmup 0 --json >"$T/$n.bench.json" 2>"$T/err" || { bad "$n bench" "$(head -c 200 "$T/err")"; return; }
    if ! "$LG" report "$m" -o "$T/$n.html" "$@" >"$T/$n.out" 2>"$T/err"; then bad "$n report" "$(head -c 300 "$T/err")"; return; fi
    pages+=("$T/$n.html")
    if "$PY" tests/e2e/report_check.py "$T/$n.html" --info "$T/$n.info.json" --check "$T/$n.check.json" \
            --compare "$T/$n.cmp.json" --bench "$T/$n.bench.json" >"$T/chk" 2>&1; then
        ok "$n: page = info, check, compare, bench --json ($(cat "$T/chk"))"
    else bad "$n: page vs the verbs' JSON" "$(tail -c 400 "$T/chk")"; fi
}
for m in build/corpus/*.tflite examples/*.tflite; do
    n=$(basename "$m" .tflite)
    [ "$n" = layernorm_512 ] && continue
    page "$n" "$m"
done
page layernorm_512 examples/layernorm_512.tflite --input x=examples/layernorm_input.npy
# ONNX fixtures, converted first: a transformer block with many findings, a convnet whose f16
# diverges late, ops with integer outputs (fewer curve points than ops), grid_sample
for n in swin_block mobilenet_v2 topk grid_sample; do
    if "$LG" convert "tests/fixtures/onnx/$n.op17.onnx" -o "$T/onnx_$n.tflite" >/dev/null 2>"$T/err"; then page "onnx_$n" "$T/onnx_$n.tflite"
    else bad "convert $n" "$(head -c 200 "$T/err")"; fi
done

# the fp16 failure: the curve marks op 3 (MEAN, the variance) and its overflow events
if "$PY" - "$T/layernorm_512.cmp.json" "$T/layernorm_512.html" >"$T/py" 2>&1 <<'EOF'
import json, sys, re
c = json.load(open(sys.argv[1])); h = open(sys.argv[2]).read()
assert c["first_divergent"]["op"] == 3 and c["first_divergent"]["op_name"] == "MEAN", c["first_divergent"]
assert c["overflows"] and c["overflows"][0]["op"] == 3, c["overflows"]
assert 'class="first-divergent" data-op="3"' in h and 'class="overflows" data-ops="3' in h
assert "DIVERGES" in h
EOF
then ok "layernorm_512: first divergent op 3 MEAN and its overflow marked"; else bad "layernorm_512 marks" "$(tail -n 2 "$T/py")"; fi

# ---- the checker fails on a page that disagrees (near misses)
if [ -f "$T/layernorm_512.html" ]; then
    L=layernorm_512
    args=(--info "$T/$L.info.json" --check "$T/$L.check.json" --compare "$T/$L.cmp.json" --bench "$T/$L.bench.json")
    sed 's/class="first-divergent" data-op="3"/class="first-divergent" data-op="4"/' "$T/$L.html" >"$T/t1.html"
    "$PY" tests/e2e/report_check.py "$T/t1.html" "${args[@]}" >/dev/null && bad "checker: moved first-divergent mark" "passed" || ok "checker refuses a moved first-divergent mark"
    # one curve point 1 px off
    "$PY" -c 'import re,sys; h=open(sys.argv[1]).read(); m=re.search(r"class=\"curve\"[^>]*points=\"([0-9.]+),([0-9.]+)", h); h=h[:m.start(2)]+"%.2f"%(float(m.group(2))+1)+h[m.end(2):]; open(sys.argv[2],"w").write(h)' "$T/$L.html" "$T/t2.html"
    "$PY" tests/e2e/report_check.py "$T/t2.html" "${args[@]}" >/dev/null && bad "checker: a point 1 px off" "passed" || ok "checker refuses a curve point 1 px off"
    sed 's/data-bytes="\([0-9]*\)" cx=/data-bytes="1\1" cx=/' "$T/$L.html" >"$T/t3.html"
    "$PY" tests/e2e/report_check.py "$T/t3.html" "${args[@]}" >/dev/null && bad "checker: wrong peak bytes" "passed" || ok "checker refuses a wrong peak"
fi
if [ -f "$T/blocked_net.html" ]; then
    B=blocked_net
    "$PY" -c 'import sys; h=open(sys.argv[1]).read(); i=h.index("<tr><td class=\"n\">3</td>"); j=h.index("</tr>", i)+5; open(sys.argv[2],"w").write(h[:i]+h[j:])' "$T/$B.html" "$T/t4.html"
    "$PY" tests/e2e/report_check.py "$T/t4.html" --info "$T/$B.info.json" --check "$T/$B.check.json" >/dev/null &&
        bad "checker: a finding dropped" "passed" || ok "checker refuses a findings table missing a row"
    n=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$T/$B.check.json")
    [ "$n" -ge 5 ] && ok "blocked_net: $n findings in the table" || bad "blocked_net findings" "$n"
fi

# ---- check's options go through: --target classic --gpu mali = check --target classic --gpu mali
"$LG" check examples/blocked_net.tflite --target classic --gpu mali --json >"$T/cm.check.json"
if "$LG" report examples/blocked_net.tflite --target classic --gpu mali -o "$T/cm.html" >/dev/null 2>"$T/err" &&
   "$PY" tests/e2e/report_check.py "$T/cm.html" --info "$T/blocked_net.info.json" --check "$T/cm.check.json" >"$T/chk" 2>&1 &&
   grep -q 'for classic on mali' "$T/cm.html"; then ok "report --target classic --gpu mali: the findings = check's with them"
else bad "report --target/--gpu" "$(cat "$T/err" "$T/chk" | tail -c 300)"; fi

# ---- an evil tensor name: pose_landmark_lite's first divergent tensor renamed in the file
# (its flatbuffer string shortened in place: the length prefix and a NUL; the rest is padding)
EVIL='<script>alert(1)</script>'
if "$PY" - build/corpus/pose_landmark_lite.tflite "$T/evil.tflite" "$EVIL" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
old = b"model_1/model/re_lu_67/Relu6;model_1/model/add_24/add"
new = sys.argv[3].encode()
i = d.find(old)
assert i > 0 and d.count(old) == 1 and struct.unpack("<I", d[i - 4:i])[0] == len(old) and len(new) < len(old)
d[i - 4:i] = struct.pack("<I", len(new)); d[i:i + len(new)] = new; d[i + len(new)] = 0
open(sys.argv[2], "wb").write(d)
EOF
then
    page evil "$T/evil.tflite"
    if "$PY" tests/e2e/report_check.py "$T/evil.html" --info "$T/evil.info.json" --compare "$T/evil.cmp.json" --evil "$EVIL" >"$T/chk" 2>&1 &&
       grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$T/evil.html" &&
       "$PY" -c 'import json,sys; assert json.load(open(sys.argv[1]))["first_divergent"]["name"] == sys.argv[2]' "$T/evil.cmp.json" "$EVIL"; then
        ok "a tensor named $EVIL is shown escaped (the first divergent tensor)"
    else bad "evil tensor name" "$(tail -c 300 "$T/chk")"; fi
else bad "patch the evil name" "pose_landmark_lite changed?"; fi

# ---- before/after: quantize writes litegpu.quantize
Q="$T/q.tflite"
if "$LG" quantize examples/tiny_convnet.tflite -o "$Q" --mode int8-weights >/dev/null 2>"$T/err"; then
    "$LG" info "$Q" --json >"$T/q.info.json"; "$LG" check "$Q" --json >"$T/q.check.json"
    "$LG" report "$Q" -o "$T/q_alone.html" >/dev/null 2>"$T/err" && pages+=("$T/q_alone.html")
    "$PY" tests/e2e/report_check.py "$T/q_alone.html" --info "$T/q.info.json" --writer litegpu.quantize >"$T/chk" 2>&1 &&
        grep -q -- '--before ORIGINAL' "$T/q_alone.html" && ok "quantized model: the page names litegpu.quantize and asks for --before" ||
        bad "writer metadata" "$(cat "$T/chk" "$T/err")"
    "$LG" report "$Q" --before examples/tiny_convnet.tflite -o "$T/q_ba.html" >/dev/null 2>"$T/err" && pages+=("$T/q_ba.html")
    "$PY" tests/e2e/report_check.py "$T/q_ba.html" --info "$T/q.info.json" --check "$T/q.check.json" --writer litegpu.quantize \
        --before-info "$T/tiny_convnet.info.json" --before-check "$T/tiny_convnet.check.json" >"$T/chk" 2>&1 &&
        ok "report --before: check verdicts, sizes, op census side by side = info/check --json" || bad "before/after" "$(cat "$T/chk" "$T/err")"
else bad "quantize" "$(cat "$T/err")"; fi
"$LG" report examples/blocked_net.tflite --before examples/tiny_convnet.tflite -o "$T/ba2.html" >/dev/null 2>&1
grep -q 'id="writer-metadata"' "$T/ba2.html" && bad "no writer metadata on a plain model" "shown" || ok "a plain model names no writer"

# ---- a model the interpreter cannot run (selfie_segmentation's custom op renamed): the page
# without the run sections, saying why; info and check still there
if "$PY" - build/corpus/selfie_segmentation.tflite "$T/norun.tflite" <<'EOF'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
old = b"Convolution2DTransposeBias"
i = d.find(old)
assert i > 0 and d.count(old) == 1
d[i:i + len(old)] = b"Convolution2DTransposeBiaX"
open(sys.argv[2], "wb").write(d)
EOF
then
    "$LG" info "$T/norun.tflite" --json >"$T/norun.info.json"; "$LG" check "$T/norun.tflite" --json >"$T/norun.check.json"
    if "$LG" report "$T/norun.tflite" -o "$T/norun.html" --json >"$T/norun.json" 2>"$T/err" &&
       "$PY" tests/e2e/report_check.py "$T/norun.html" --info "$T/norun.info.json" --check "$T/norun.check.json" >"$T/chk" 2>&1 &&
       ! grep -q 'id="error-curve"' "$T/norun.html" && grep -q 'not measured: op 244 (Convolution2DTransposeBiaX)' "$T/norun.html" &&
       grep -q '"not_measured": "op 244' "$T/norun.json"; then
        pages+=("$T/norun.html"); ok "a model the interpreter cannot run: info and check, the run sections say why"
    else bad "unrunnable model" "$(cat "$T/err" "$T/chk" | tail -c 300)"; fi
else bad "patch the custom op" "selfie_segmentation changed?"; fi

# ---- size on the largest development model
sz=$(stat -c %s "$T/pose_landmark_lite.html" 2>/dev/null || echo 0)
[ "$sz" -gt 10000 ] && [ "$sz" -lt 400000 ] && ok "pose_landmark_lite page: $sz bytes" || bad "pose_landmark_lite page size" "$sz"

# ---- the browser: every page, plus pages that must be caught
printf '<!DOCTYPE html><html><body><p>x</p><img src="http://192.0.2.1/x.png"></body></html>' >"$T/nm_fetch.html"
printf '<!DOCTYPE html><html><body><p>x</p><script>console.error("boom")</script></body></html>' >"$T/nm_error.html"
printf '<!DOCTYPE html><html><body style="background:#fff"></body></html>' >"$T/nm_blank.html"
mkdir -p "$T/shots"
if node tests/e2e/report_browser.js "$T/shots" "${pages[@]}" "$T/nm_fetch.html" "$T/nm_error.html" "$T/nm_blank.html" >"$T/br.jsonl" 2>"$T/br.err"; then
    "$PY" - "$T/br.jsonl" <<'EOF' >"$T/br.txt" 2>&1
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line); p = r["page"].rsplit("/", 1)[-1]
    if p == "nm_fetch.html":
        print(("PASS" if len(r["requests"]) == 1 else "FAIL") + " near miss: a page that fetches is counted (%d request)" % len(r["requests"]))
    elif p == "nm_error.html":
        print(("PASS" if r["errors"] else "FAIL") + " near miss: a console error is collected")
    elif p == "nm_blank.html":
        print(("PASS" if r["distinct_pixels"] == 1 else "FAIL") + " near miss: a blank page has %d colour" % r["distinct_pixels"])
    else:
        good = not r["requests"] and not r["errors"] and r["distinct_pixels"] >= 100
        print(("PASS" if good else "FAIL") + " chromium %s: %d requests, %d console errors, screenshot %dx%d with %d colours%s" % (
            p, len(r["requests"]), len(r["errors"]), r["width"], r["height"], r["distinct_pixels"],
            "" if good else " " + json.dumps(r["requests"] + r["errors"])[:300]))
EOF
    while read -r st rest; do if [ "$st" = PASS ]; then ok "$rest"; else bad "$rest"; fi; done <"$T/br.txt"
    [ "$(wc -l <"$T/br.jsonl")" -eq $(( ${#pages[@]} + 3 )) ] && ok "chromium opened all ${#pages[@]} pages" || bad "chromium pages" "$(wc -l <"$T/br.jsonl")"
else bad "chromium" "$(tail -c 400 "$T/br.err")"; fi

# ---- usage, --json
expect_err() {
    local name="$1"; shift
    "$LG" "$@" >"$T/out" 2>"$T/err"; local rc=$?
    if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q '^litegpu: error: ' "$T/err" && [ ! -s "$T/out" ]; then ok "$name"
    else bad "$name" "exit $rc: $(head -c 200 "$T/err")"; fi
}
expect_err "report without -o" report examples/tiny_convnet.tflite
expect_err "report over an existing file without --force" report examples/tiny_convnet.tflite -o "$T/tiny_convnet.html"
expect_err "report --target classic --gpu webgpu" report examples/tiny_convnet.tflite -o "$T/p.html" --target classic --gpu webgpu
expect_err "report --precision f32" report examples/tiny_convnet.tflite -o "$T/p.html" --precision f32
expect_err "report -o the model itself" report "$Q" -o "$Q" --force
expect_err "report with a bad --input" report examples/layernorm_512.tflite -o "$T/bi.html" --input x=/nonexistent.npy
[ -e "$T/p.html" ] || [ -e "$T/bi.html" ] && bad "refused reports wrote nothing" "a file was written" || ok "refused reports wrote nothing"
"$LG" report examples/tiny_convnet.tflite -o "$T/j.html" --precision f32_f16 --json >"$T/j.json" 2>"$T/err"; rc=$?
if [ "$rc" = 0 ] && "$PY" - "$T/j.json" "$T/j.html" <<'EOF' 2>"$T/py"
import json, os, sys
d = json.load(open(sys.argv[1]))
assert d["verb"] == "report" and d["model"] == "examples/tiny_convnet.tflite" and d["ok"] is True, d
assert d["precision"] == "f32_f16" and d["bytes"] == os.path.getsize(sys.argv[2]) and d["output"] == sys.argv[2], d
assert d["n_curve_points"] > 0 and d["n_memory_points"] == d["n_ops"] == 14, d
EOF
then ok "report --json: verb, model, ok, precision f32_f16, bytes = the file"; else bad "report --json" "exit $rc $(tail -n 1 "$T/py")"; fi

echo "took $(( $(date +%s) - t0 )) s"
finish
