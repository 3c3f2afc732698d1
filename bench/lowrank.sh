#!/usr/bin/env bash
# bench/lowrank.sh -- the latency effect of `litegpu lowrank` (issue #14's benchmark; the
# handbook, seed 001 chapter 8: "Two small matrix multiplications can be slower than one
# optimized large multiplication ... determine the net result by measurement rather than
# parameter arithmetic").
#
#   bench/lowrank.sh [--record] [--runs N] [--sweeps S]
#
# Models (converted here with `litegpu convert` into a temporary folder):
#   RefactorNet (tests/fixtures/refactor/refactornet.onnx, 38,756 parameters) and the lowrank
#   candidates --all-fc at ranks 4, 8, 16, 23 (the FFN FCs' break-even is 24) and at full rank
#   (--rank 96 --force-rank: every FC n -> min(m,n) -> m, more parameters, the same function);
#   vit_tiny (tests/fixtures/onnx/vit_tiny.op17.onnx) and --all-fc --energy 0.9 / 0.99 and
#   --rank 8; hand_landmark_lite (build/corpus, an fp16 model: FLOAT16 weights + DEQUANTIZE)
#   and --all-fc --all-1x1 --energy 0.99 / 0.9 (a tenth of the runs: it takes milliseconds);
#   prune (since it landed): RefactorNet --ffn --keep 64 (the handbook's 96 -> 64, 26,276
#   parameters) and --keep 32, vit_tiny --ffn --keep 32. The output error column is `litegpu
#   compare MODEL OUT`'s pattern case for both verbs (max abs over max |ref|, worst output).
# Each model: n_params (lowrank's report: lg_model_learned_params), file size, the output
# error lowrank reports on the pattern input (max abs / max |ref|), then per sweep
#   build/litegpu bench MODEL --threads 1 --runs N --warmup 50   (median, p95, planned peak
#                                                                 activation memory)
#   node --no-liftoff peers/litert_bench.js --runs N MODEL...    (LiteRT.js wasm + XNNPACK, one
#                                                                 thread; >= 1.5 s warm-up each)
# The litegpu runs go model by model in an order that rotates every sweep; LiteRT.js takes the
# models of a sweep in one process (it loads once), also rotated. Reported: the median over the
# sweeps of each tool's median and p95 (ms), and "vs base": the median over the sweeps of the
# sweep's own candidate / base ratio (robust to a load that drifts between sweeps). --record writes bench/results/<date>-refactor-latency.md. Never part of make test.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
. bench/lib.sh

record=0; runs=2000; sweeps=3
while [ $# -gt 0 ]; do
    case "$1" in
        --record) record=1 ;;
        --runs) runs=$2; shift ;;
        --sweeps) sweeps=$2; shift ;;
        *) die "unknown option $1 (--record, --runs N, --sweeps S)" ;;
    esac
    shift
done
[ -x build/litegpu ] || die "build/litegpu missing (make build/litegpu)"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
LG="$T/litegpu"; cp build/litegpu "$LG"   # a rebuild during the sweeps cannot change it

"$LG" convert tests/fixtures/refactor/refactornet.onnx -o "$T/refactornet.tflite" >/dev/null
"$LG" convert tests/fixtures/onnx/vit_tiny.op17.onnx -o "$T/vit_tiny.tflite" >/dev/null
variants=(  # name base verb args
    "refactornet.r4 refactornet lowrank --all-fc --rank 4"
    "refactornet.r8 refactornet lowrank --all-fc --rank 8"
    "refactornet.r16 refactornet lowrank --all-fc --rank 16"
    "refactornet.r23 refactornet lowrank --all-fc --rank 23"
    "refactornet.full refactornet lowrank --all-fc --rank 96 --force-rank"
    "refactornet.prune64 refactornet prune --ffn --keep 64"
    "refactornet.prune32 refactornet prune --ffn --keep 32"
    "vit_tiny.e90 vit_tiny lowrank --all-fc --energy 0.9"
    "vit_tiny.e99 vit_tiny lowrank --all-fc --energy 0.99"
    "vit_tiny.r8 vit_tiny lowrank --all-fc --rank 8"
    "vit_tiny.prune32 vit_tiny prune --ffn --keep 32"
    "hand_landmark_lite.e99 hand_landmark_lite lowrank --all-fc --all-1x1 --energy 0.99"
    "hand_landmark_lite.e90 hand_landmark_lite lowrank --all-fc --all-1x1 --energy 0.9"
)
cp build/corpus/hand_landmark_lite.tflite "$T/hand_landmark_lite.tflite" || die "build/corpus/hand_landmark_lite.tflite missing"
runs_of() { case "$1" in hand_landmark_lite*) echo $((runs / 10 > 20 ? runs / 10 : 20)) ;; *) echo "$runs" ;; esac; }
models=()
for b in refactornet vit_tiny hand_landmark_lite; do
    models+=("$b")
    for v in "${variants[@]}"; do
        read -r name base verb args <<<"$v"
        [ "$base" = "$b" ] || continue
        # shellcheck disable=SC2086
        "$LG" "$verb" "$T/$base.tflite" -o "$T/$name.tflite" $args --json >"$T/$name.$verb.json"
        # the output error on the pattern input, for both verbs the same way: compare's first case
        "$LG" compare "$T/$base.tflite" "$T/$name.tflite" --json >"$T/$name.compare.json" 2>/dev/null || true
        models+=("$name")
    done
done
cp /proc/loadavg "$T/load0"
for s in $(seq 1 "$sweeps"); do
    n=${#models[@]}; order=()
    for k in $(seq 0 $((n - 1))); do order+=("${models[$(((k + s) % n))]}"); done
    echo "bench: sweep $s/$sweeps" >&2
    for mname in "${order[@]}"; do
        "$LG" bench "$T/$mname.tflite" --threads 1 --runs "$(runs_of "$mname")" --warmup 50 --json >"$T/$mname.lg.$s.json"
    done
    small=(); big=()
    for mname in "${order[@]}"; do case "$mname" in hand_landmark_lite*) big+=("$T/$mname.tflite") ;; *) small+=("$T/$mname.tflite") ;; esac; done
    node --no-liftoff peers/litert_bench.js --runs "$runs" "${small[@]}" >"$T/peer.$s.jsonl" 2>/dev/null
    node --no-liftoff peers/litert_bench.js --runs "$(runs_of hand_landmark_lite)" "${big[@]}" >>"$T/peer.$s.jsonl" 2>/dev/null
done

out="$T/table.md"
python3 - "$T" "$sweeps" "$runs" "${models[@]}" >"$out" <<'PY'
import json, os, statistics, sys, platform
T, sweeps, runs, models = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
def med(xs): return statistics.median(xs)
peer = {}
for s in range(1, sweeps + 1):
    for line in open(os.path.join(T, 'peer.%d.jsonl' % s)):
        j = json.loads(line)
        name = os.path.basename(j['model'])[:-7]
        if j.get('ok'): peer.setdefault(name, []).append(j)
rows = {}
for m in models:
    lg = [json.load(open(os.path.join(T, '%s.lg.%d.json' % (m, s)))) for s in range(1, sweeps + 1)]
    base = m.split('.')[0]
    lr, pr = os.path.join(T, m + '.lowrank.json'), os.path.join(T, m + '.prune.json')
    if os.path.exists(lr) or os.path.exists(pr):
        j = json.load(open(lr if os.path.exists(lr) else pr))
        params = j['n_params_after']
        replaced = ('%d/%d' % (j['n_replaced'], j['n_layers'])) if os.path.exists(lr) else 'prune: %d groups' % j['n_groups']
        c = json.load(open(os.path.join(T, m + '.compare.json')))['cases'][0]['outputs']
        err = max(o['max_abs'] / o['ref_max_abs'] for o in c if o['ref_max_abs'])
        size = j['size']
    else:
        params = replaced = err = None
        size = os.path.getsize(os.path.join(T, m + '.tflite'))
    rows[m] = dict(base=base, params=params, replaced=replaced, err=err, size=size,
                   lg_med=med([x['median_ms'] for x in lg]), lg_p95=med([x['p95_ms'] for x in lg]),
                   lg_all=[x['median_ms'] for x in lg], pr_all=[x['median_ms'] for x in peer.get(m, [])],
                   peak=lg[0]['memory']['peak_live_bytes'], n_ops=None,
                   pr_med=med([x['median_ms'] for x in peer.get(m, [])]) if m in peer else float('nan'),
                   pr_p95=med([x['p95_ms'] for x in peer.get(m, [])]) if m in peer else float('nan'))
# the base models' parameter counts: from any candidate's report
for m, r in rows.items():
    if r['params'] is None:
        for c, rc in rows.items():
            for verb in ('lowrank', 'prune'):
                f = os.path.join(T, '%s.%s.json' % (c, verb))
                if rc['base'] == m and os.path.exists(f) and r['params'] is None:
                    r['params'] = json.load(open(f))['n_params_before']
print('| model | layers replaced (lowrank) or groups pruned | n_params | params vs base | file bytes | output error (max abs / max |ref|, pattern; litegpu compare) | litegpu median ms | p95 | vs base | LiteRT.js median ms | p95 | vs base | planned peak B |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
def ratio(a, b):  # the median over the sweeps of the sweep's own ratio (tools seconds apart)
    q = [x / y for x, y in zip(a, b) if y]
    return med(q) if q and len(a) == len(b) else float('nan')
for m in models:
    r = rows[m]; b = rows[r['base']]
    f = lambda x, p='%.4f': ('n/a' if x is None or x != x else p % x)
    r['lg_ratio'], r['pr_ratio'] = ratio(r['lg_all'], b['lg_all']), ratio(r['pr_all'], b['pr_all'])
    print('| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %d |' % (
        m, r['replaced'] or '-', '{:,}'.format(r['params']), f(r['params'] / b['params'], '%.3f'), r['size'],
        f(r['err'], '%.3g'), f(r['lg_med']), f(r['lg_p95']), f(r['lg_ratio'], '%.2f'),
        f(r['pr_med'], '%.3f'), f(r['pr_p95'], '%.3f'), f(r['pr_ratio'], '%.2f'), r['peak']))
print()
print('Each sweep\'s medians (ms), litegpu | LiteRT.js -- the spread is the noise of a shared machine:')
print()
print('| model | litegpu per sweep | LiteRT.js per sweep |')
print('|---|---|---|')
for m in models:
    lg = [json.load(open(os.path.join(T, '%s.lg.%d.json' % (m, s))))['median_ms'] for s in range(1, sweeps + 1)]
    pr = [x['median_ms'] for x in peer.get(m, [])]
    print('| %s | %s | %s |' % (m, ' / '.join('%.4f' % x for x in lg), ' / '.join('%.3f' % x for x in pr)))
print()
print('Load average (1 min) before / after: %s / %s.' % (open(os.path.join(T, 'load0')).read().split()[0], open('/proc/loadavg').read().split()[0]))
print('"vs base" is the median over the sweeps of each sweep\'s own ratio (candidate median / base median, measured seconds apart), which a load that drifts between sweeps moves less than a ratio of medians.')
print('hand_landmark_lite*: %d timed runs per sweep.' % max(runs // 10, 20))
print('%d sweeps of %d timed runs per model and tool (litegpu: 50 warm-up runs; LiteRT.js: >= 5 runs and 1.5 s), one thread; the medians are medians over the sweeps.' % (sweeps, runs))
print('Host: %s, %s, %d CPUs (shared).' % (platform.machine(), open('/proc/cpuinfo').read().split('model name')[1].split(':')[1].split('\n')[0].strip() if 'model name' in open('/proc/cpuinfo').read() else '?', os.cpu_count()))
PY
cat "$out"
if [ "$record" -eq 1 ]; then
    dst="bench/results/$(date -u +%Y-%m-%d)-refactor-latency.md"
    {
        echo "# Refactoring latency: lowrank (bench/lowrank.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD))"
        echo
        cat "$out"
    } >"$dst"
    echo "bench: wrote $dst" >&2
fi
