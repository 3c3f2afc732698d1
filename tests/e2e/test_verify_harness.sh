#!/usr/bin/env bash
# The WebGPU oracle harness (peers/verify/verify.js: LiteRT.js WebGPU = ML Drift, in headless
# Chromium on the SwiftShader adapter) on the five corpus models and three builder models
# (tests/tools/make_verify_models.c), fp32, `pattern` input, one browser for the batch:
#  - face_detection_full_range_sparse is NOT fully delegated: DENSIFY rejected, the GPU/CPU op
#    split and "Model not fully compiled for webgpu" parsed;
#  - the other four are all on the GPU (every output on 'webgpu', no rejection, no ERROR line) and
#    agree with LiteRT's wasm CPU: max|gpu-cpu| <= 1e-4 of max|cpu| per output (pose_landmark_lite
#    outputs 1 and 2 <= 2e-3: peers.md saw its segmentation output at 1.6e-3), checked on the
#    written .npy files by npy_compare.py;
#  - logsoftmax: "LOG_SOFTMAX: Operation is not supported.", 1 op on the GPU and 2 on the CPU;
#  - rank5_add: the trap: isFullyAccelerated stays true, the output lands in 'wasm', and the log
#    says "ADD: Tensor dimensions must be less than 5."; rank4_add (the control) is on the GPU, exact;
#  - every output, gpu and cpu, is written as a float32 .npy of the reported shape;
#  - the batch takes under 120 s; exit codes: 3 for an unreadable model (the others still run),
#    4 with one stderr line naming `make verify-deps` when there is no Chromium, 2 for bad usage.
# A missing Chromium or peers/node_modules is a FAILURE, not a skip (install: make verify-deps).
# Env: CC (default cc).
set -u
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
C=build/corpus
V=peers/verify/verify.js
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "verify_harness: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }

corpus=(face_detection_short_range face_detection_full_range_sparse selfie_segmentation
        hand_landmark_lite pose_landmark_lite)
small=(logsoftmax rank5_add rank4_add)

# ---- preconditions: each missing piece is a failure ----
[ -x /usr/bin/chromium ] && ok "chromium present" || bad "chromium" "/usr/bin/chromium is missing (make verify-deps)"
for p in playwright-core @litertjs/core; do
    [ -f "peers/node_modules/$p/package.json" ] && ok "peers/node_modules/$p" ||
        bad "peers/node_modules/$p" "not installed (make verify-deps)"
done
for m in "${corpus[@]}"; do [ -f "$C/$m.tflite" ] || bad "corpus" "$C/$m.tflite missing (make corpus)"; done
[ -f build/liblitegpu.a ] || bad "build" "build/liblitegpu.a not built (make all)"
[ "$fail" -eq 0 ] || finish

if ! "$CC" -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Iinclude -Isrc \
        -o "$T/make_verify_models" tests/tools/make_verify_models.c build/liblitegpu.a -lm 2>"$T/cc.err"; then
    bad "compile make_verify_models" "$(head -c 600 "$T/cc.err")"
    finish
fi
mkdir -p "$T/m"
if "$T/make_verify_models" "$T/m" 2>"$T/mk.err"; then ok "make_verify_models"; else
    bad "make_verify_models" "$(cat "$T/mk.err")"
    finish
fi

# ---- the batch ----
paths=()
for m in "${corpus[@]}"; do paths+=("$C/$m.tflite"); done
for m in "${small[@]}"; do paths+=("$T/m/$m.tflite"); done
t0=$(date +%s%N)
node "$V" --precision fp32 --fill pattern --out "$T/out" "${paths[@]}" >"$T/v.jsonl" 2>"$T/v.err"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ "$rc" -ne 0 ]; then
    bad "batch exit code" "exit $rc, want 0; stderr: $(head -c 600 "$T/v.err")"
    finish
fi
ok "batch of ${#paths[@]} models ran (exit 0, ${ms} ms)"
[ "$ms" -lt 120000 ] && ok "batch under 120 s" || bad "batch time" "${ms} ms"

# Facts from the JSON lines: prints PASS/FAIL lines, then the output files to check numerically
# as "NUM model index tol gpu_file cpu_file".
/usr/bin/python3 - "$T/v.jsonl" "${#paths[@]}" >"$T/facts" 2>&1 <<'EOF' || echo "FAIL fact checker crashed: $(tail -n 3 "$T/facts" | tr '\n' ' ')" >>"$T/facts"
import ast, json, os, struct, sys

lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
want_n = int(sys.argv[2])
def check(name, cond, why=''):
    print(('PASS ' if cond else 'FAIL ') + name + ('' if cond else ': ' + why))

check('one JSON line per model', len(lines) == want_n, '%d lines, want %d' % (len(lines), want_n))
by = {os.path.basename(d['model'])[:-len('.tflite')]: d for d in lines}
FIELDS = ['model', 'precision', 'fill', 'ok', 'error', 'compiled', 'compile_error', 'fully_accelerated',
          'all_on_gpu', 'output_locations', 'gpu_ops', 'cpu_ops', 'rejected', 'errors', 'log', 'outputs',
          'compile_ms', 'first_run_ms', 'run_ms', 'adapter', 'cpu_ok']

def npy_shape(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:6] != b'\x93NUMPY' or data[6] != 1:
        return None, 'not a .npy v1 file'
    hlen = struct.unpack('<H', data[8:10])[0]
    h = ast.literal_eval(data[10:10 + hlen].decode('latin1'))
    n = 1
    for s in h['shape']:
        n *= s
    if h['descr'] != '<f4' or h['fortran_order'] or len(data) - 10 - hlen != 4 * n:
        return None, 'header %r, %d data bytes' % (h, len(data) - 10 - hlen)
    return list(h['shape']), None

for name, d in sorted(by.items()):
    missing = [f for f in FIELDS if f not in d]
    check('%s: fields' % name, not missing, 'missing %s' % missing)
    check('%s: processed' % name, d['ok'] and d['precision'] == 'fp32' and d['fill'] == 'pattern',
          '%s' % d.get('error'))
    check('%s: compiled' % name, d['compiled'] and d['compile_error'] is None, str(d['compile_error']))
    check('%s: adapter' % name, (d['adapter'] or {}).get('vendor') == 'google', str(d['adapter']))
    check('%s: timings' % name, all(isinstance(d[k], (int, float)) and d[k] >= 0 for k in ('compile_ms', 'first_run_ms', 'run_ms')),
          'compile %s first %s run %s' % (d['compile_ms'], d['first_run_ms'], d['run_ms']))
    files_ok, why = bool(d['outputs']), 'no outputs'
    for o in d['outputs']:
        for side in ('gpu_file', 'cpu_file'):
            if not o.get(side):
                files_ok, why = False, 'output %d has no %s' % (o['index'], side)
                continue
            shape, err = npy_shape(o[side])
            if err or shape != o['shape']:
                files_ok, why = False, '%s: %s' % (o[side], err or 'shape %s, JSON says %s' % (shape, o['shape']))
    check('%s: %d outputs written as float32 .npy (gpu and cpu)' % (name, len(d['outputs'])), files_ok, why)

full = ['face_detection_short_range', 'selfie_segmentation', 'hand_landmark_lite', 'pose_landmark_lite', 'rank4_add']
for name in full:
    d = by.get(name)
    if not d:
        check('%s: present' % name, False, 'no JSON line')
        continue
    check('%s: all on the GPU' % name,
          d['fully_accelerated'] and d['all_on_gpu'] and d['output_locations'] and
          all(l == 'webgpu' for l in d['output_locations']) and not d['rejected'] and not d['errors'] and
          d['gpu_ops'] is None and d['cpu_ops'] is None,
          'fully %s locations %s rejected %s errors %s ops %s/%s' % (d['fully_accelerated'], d['output_locations'],
                                                                    d['rejected'], d['errors'], d['gpu_ops'], d['cpu_ops']))
    for o in d['outputs']:
        tol = 2e-3 if name == 'pose_landmark_lite' and o['index'] in (1, 2) else 1e-4
        if name == 'rank4_add':
            tol = 0.0
        print('NUM %s %d %g %s %s' % (name, o['index'], tol, o['gpu_file'], o['cpu_file']))

d = by.get('face_detection_full_range_sparse')
if d:
    ops = [r['op'] for r in d['rejected']]
    check('sparse: NOT fully accelerated', d['fully_accelerated'] is False and not d['all_on_gpu'] and d['not_fully_compiled'],
          'fully %s all_on_gpu %s not_fully_compiled %s' % (d['fully_accelerated'], d['all_on_gpu'], d['not_fully_compiled']))
    check('sparse: DENSIFY rejected', {'op': 'DENSIFY', 'message': 'Operation is not supported.'} in d['rejected'], str(d['rejected']))
    check('sparse: GPU/CPU op split parsed', isinstance(d['gpu_ops'], int) and d['gpu_ops'] > 0 and isinstance(d['cpu_ops'], int) and d['cpu_ops'] > 0,
          '%s/%s' % (d['gpu_ops'], d['cpu_ops']))
    check('sparse: ERROR header recorded', 'ERROR: Following operations are not supported by GPU delegate:' in d['errors'], str(d['errors']))
else:
    check('sparse: present', False, 'no JSON line')

d = by.get('logsoftmax')
if d:
    check('logsoftmax: rejected LOG_SOFTMAX', d['rejected'] == [{'op': 'LOG_SOFTMAX', 'message': 'Operation is not supported.'}], str(d['rejected']))
    check('logsoftmax: 1 op on the GPU, 2 on the CPU', (d['gpu_ops'], d['cpu_ops']) == (1, 2), '%s/%s' % (d['gpu_ops'], d['cpu_ops']))
    check('logsoftmax: not fully accelerated', d['fully_accelerated'] is False and d['not_fully_compiled'] and not d['all_on_gpu'],
          'fully %s not_fully_compiled %s' % (d['fully_accelerated'], d['not_fully_compiled']))
else:
    check('logsoftmax: present', False, 'no JSON line')

d = by.get('rank5_add')
if d:
    rej = d['rejected']
    check('rank5_add: ADD rejected for rank 5', len(rej) == 1 and rej[0]['op'] == 'ADD' and
          rej[0]['message'].startswith('Tensor dimensions must be less than 5.'), str(rej))
    check('rank5_add: the trap: isFullyAccelerated true, output in wasm', d['fully_accelerated'] is True and
          d['output_locations'] == ['wasm'] and not d['all_on_gpu'], 'fully %s locations %s all_on_gpu %s' % (
          d['fully_accelerated'], d['output_locations'], d['all_on_gpu']))
    check('rank5_add: no op on the GPU', (d['gpu_ops'], d['cpu_ops']) == (0, 1), '%s/%s' % (d['gpu_ops'], d['cpu_ops']))
else:
    check('rank5_add: present', False, 'no JSON line')
EOF
while read -r kind rest; do
    case "$kind" in
        PASS) ok "$rest" ;;
        FAIL) bad "$rest" ;;
        NUM)
            read -r name k tol g c <<<"$rest"
            if res=$(python3 tests/e2e/npy_compare.py "$c" "$g" "$tol" 2>&1); then ok "$name output_$k gpu vs cpu <= $tol: $res"
            else bad "$name output_$k gpu vs cpu <= $tol" "$res"; fi ;;
        *) bad "fact checker" "$kind $rest" ;;
    esac
done <"$T/facts"

# ---- exit codes ----
node "$V" --precision fp32 --fill half --out "$T/out2" "$T/m/nope.tflite" "$T/m/rank4_add.tflite" >"$T/e3.jsonl" 2>"$T/e3.err"
rc=$?
if [ "$rc" -eq 3 ] && [ "$(wc -l <"$T/e3.jsonl")" -eq 2 ] &&
   /usr/bin/python3 -c 'import json,sys; a,b=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(not (a["ok"] is False and a["error"] and b["ok"] and b["all_on_gpu"]))' "$T/e3.jsonl"; then
    ok "unreadable model: exit 3, the next model still processed"
else
    bad "unreadable model" "exit $rc, stdout $(head -c 300 "$T/e3.jsonl"), stderr $(head -c 300 "$T/e3.err")"
fi
node "$V" --precision fp32 --fill half --chromium "$T/no-chromium" "$T/m/rank4_add.tflite" >"$T/e4.out" 2>"$T/e4.err"
rc=$?
if [ "$rc" -eq 4 ] && [ ! -s "$T/e4.out" ] && [ "$(wc -l <"$T/e4.err")" -eq 1 ] && grep -q 'make verify-deps' "$T/e4.err"; then
    ok "no Chromium: exit 4, one stderr line naming make verify-deps"
else
    bad "no Chromium" "exit $rc, stderr $(head -c 300 "$T/e4.err")"
fi
node "$V" --precision fp64 --fill half "$T/m/rank4_add.tflite" >"$T/e2.out" 2>"$T/e2.err"
rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$T/e2.out" ] && ok "bad usage: exit 2" || bad "bad usage" "exit $rc"

finish
