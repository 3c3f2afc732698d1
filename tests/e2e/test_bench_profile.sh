#!/usr/bin/env bash
# `litegpu bench --profile` (issue #15 item 3): per-op timing as LiteRT's benchmark_model prints
# it, on the development models (build/corpus, examples, three converted ONNX fixtures).
# Per model, from the JSON (bench_profile_check.py derives everything from the per-op rows, not
# from the report's own summaries):
#  - one row per op in run order; n_calls is n_runs or 0 (an op folded at prepare, 0 ms);
#  - percent = avg / sum * 100, cdf = the running sum of percent ending at 100;
#  - top = the 10 executed ops by avg_ms (ties: the lower index), recomputed here;
#  - by_type = the executed ops grouped by op type (count, sum of avg_ms), sorted by time;
#  - the per-op sum is within 10% of run_median_ms, which is the report's median_ms (the wall
#    time of whole runs, profiling on) -- the ops tile the run;
#  - the profiling overhead: median with --profile vs a run without (reported, not judged:
#    2 cores shared by several engineers make a few-percent figure noise);
# and: the text report has benchmark_model's sections in order with one Run Order row per op;
# --threads 2 still adds up (per-op wall time); near misses: without --profile there is no
# "profile" key and no profile text; too many runs x ops for the per-run table is refused
# (exit 2) rather than allocated.
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
PY=/usr/bin/python3
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "bench_profile: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
[ -x "$LG" ] || { bad "build" "$LG missing"; finish; }

cat >"$T/check.py" <<'EOF'
import json, sys
# argv: MODEL PROFILED.json [PROFILED.json PLAIN.json ...]: the first profiled report is checked;
# the overhead is the lowest median with --profile over the lowest without (alternating rounds)
want_model, prof_path = sys.argv[1], sys.argv[2]
r = json.load(open(prof_path))
more = [json.load(open(f)) for f in sys.argv[3:]]
profs = [r] + [x for x in more if 'profile' in x]
plains = [x for x in more if 'profile' not in x]
errs = []
def need(c, msg):
    if not c: errs.append(msg)
# near miss: every report made without --profile has no "profile" key (files alternate)
need(len(plains) == (len(more) + 1) // 2, 'a report without --profile has a profile key')
need(r.get('verb') == 'bench' and r.get('ok') is True and r.get('model') == want_model, 'common keys')
p = r.get('profile')
if not p:
    print('no profile key'); sys.exit(1)
ops, runs = p['ops'], p['n_runs']
need(runs == r['n_runs'], 'n_runs %s vs %s' % (runs, r['n_runs']))
need(len(ops) == p['n_ops'] and [o['index'] for o in ops] == list(range(len(ops))), 'one row per op in order')
need(all(o['n_calls'] in (0, runs) for o in ops), 'n_calls is n_runs or 0')
need(all(o['avg_ms'] == 0 for o in ops if o['n_calls'] == 0), 'a folded op has 0 ms')
ex = [o for o in ops if o['n_calls']]
need(len(ex) == p['n_ops_executed'], 'n_ops_executed')
s = sum(o['avg_ms'] for o in ops)
need(abs(s - p['sum_ms']) <= 1e-6 * max(s, 1e-9) + 1e-9, 'sum_ms %r vs %r' % (p['sum_ms'], s))
cdf = 0.0
for o in ops:
    pc = o['avg_ms'] * 100.0 / s
    cdf += pc
    need(abs(o['percent'] - pc) < 1e-6 and abs(o['cdf_percent'] - cdf) < 1e-6, 'percent/cdf of op %d' % o['index'])
need(abs(cdf - 100.0) < 1e-6, 'cdf ends at 100')
top = [o['index'] for o in sorted(ex, key=lambda o: (-o['avg_ms'], o['index']))][:10]
need(p['top'] == top, 'top %r vs %r' % (p['top'], top))
groups = {}
for o in ex:
    g = groups.setdefault(o['op'], [0, 0.0]); g[0] += 1; g[1] += o['avg_ms']
bt = p['by_type']
need(sorted((t['op'], t['count']) for t in bt) == sorted((k, v[0]) for k, v in groups.items()), 'by_type counts')
# (the JSON prints 9 significant digits: a sum of rounded values differs by ~1e-8 relative)
need(all(abs(t['avg_ms'] - groups[t['op']][1]) <= 1e-9 + 1e-6 * groups[t['op']][1] for t in bt if t['op'] in groups), 'by_type avg_ms')
need(all(bt[i]['avg_ms'] >= bt[i + 1]['avg_ms'] for i in range(len(bt) - 1)), 'by_type sorted by time')
need(not bt or abs(bt[-1]['cdf_percent'] - 100.0) < 1e-6, 'by_type cdf ends at 100')
med = p['run_median_ms']
need(med == r['median_ms'], 'run_median_ms is median_ms')
ratio = p['sum_ms'] / med
need(0.9 <= ratio <= 1.1, 'per-op sum %.4f ms vs run median %.4f ms (%.1f%%)' % (p['sum_ms'], med, 100 * ratio))
# the same claim with no selection of runs: the mean over ALL timed runs of each run's per-op
# sum against the mean of bench's own wall clock around each invoke (two clocks, one set)
ar = p['sum_mean_all_runs_ms'] / p['run_mean_ms']
need(0.9 <= ar <= 1.0 + 1e-9, 'all runs: per-op sum mean %.4f ms vs run mean %.4f ms (%.1f%%)' % (p['sum_mean_all_runs_ms'], p['run_mean_ms'], 100 * ar))
if plains:
    pm, qm = min(x['median_ms'] for x in profs), min(x['median_ms'] for x in plains)
    print('FIGURE %s: ops %d (%d run), sum %.3f ms, run median %.3f ms (%.1f%%), averaged %d of %d runs; '
          'best median over %d rounds with --profile %.3f ms, without %.3f ms (overhead %+.1f%%)' % (want_model,
          len(ops), len(ex), p['sum_ms'], med, 100 * ratio, p['n_runs_averaged'], runs, len(plains), pm, qm,
          100.0 * (pm / qm - 1)))
else:
    print('FIGURE %s: sum %.3f ms, run median %.3f ms (%.1f%%)' % (want_model, p['sum_ms'], med, 100 * ratio))
for e in errs: print('  ' + e)
sys.exit(1 if errs else 0)
EOF

# three ONNX fixtures, converted with convert's defaults
models=(build/corpus/*.tflite examples/*.tflite)
for f in convnext_block.op17 efficientnet_b0_trunc.op17 fused_qkv_attention.op17; do
    if "$LG" convert "tests/fixtures/onnx/$f.onnx" -o "$T/$f.tflite" >"$T/conv.out" 2>&1; then
        models+=("$T/$f.tflite")
    else
        bad "convert $f" "$(head -c 300 "$T/conv.out")"
    fi
done

for m in "${models[@]}"; do
    b=$(basename "$m" .tflite)
    files=(); err=
    for round in 1 2 3; do # alternating, for the overhead on a shared machine
        "$LG" bench "$m" --profile --json -n 20 --warmup 3 >"$T/$b.prof$round.json" 2>"$T/err" || err="--profile: $(head -c 300 "$T/err")"
        "$LG" bench "$m" --json -n 20 --warmup 3 >"$T/$b.plain$round.json" 2>"$T/err" || err="$(head -c 300 "$T/err")"
        files+=("$T/$b.prof$round.json" "$T/$b.plain$round.json")
    done
    [ -z "$err" ] || { bad "$b: bench" "$err"; continue; }
    if $PY "$T/check.py" "$m" "${files[@]}" >"$T/chk" 2>&1; then
        ok "$b: profile adds up and its tables follow from the rows"; grep FIGURE "$T/chk"
    else
        bad "$b" "$(tr '\n' ' ' <"$T/chk" | head -c 600)"
    fi
done

# the text layout: benchmark_model's sections, in order; one Run Order row per op
m=build/corpus/selfie_segmentation.tflite
"$LG" bench "$m" --profile -n 5 --warmup 1 >"$T/text" 2>&1
n_ops=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["profile"]["n_ops"])' "$T/selfie_segmentation.prof1.json" 2>/dev/null)
n_exec=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["profile"]["n_ops_executed"])' "$T/selfie_segmentation.prof1.json" 2>/dev/null)
if $PY - "$T/text" "${n_ops:-0}" "${n_exec:-0}" <<'EOF'
import re, sys
t = open(sys.argv[1]).read().split('\n'); n_ops, n_exec = int(sys.argv[2]), int(sys.argv[3])
heads = ['Operator-wise Profiling Info for Regular Benchmark Runs:',
         '============================== Run Order ==============================',
         '============================== Top by Computation Time ==============================',
         'Number of nodes executed: %d' % n_exec,
         '============================== Summary by node type ==============================']
at = [t.index(h) for h in heads]
assert at == sorted(at), at
cols = ['[node type]', '[start]', '[first]', '[avg ms]', '[%]', '[cdf%]', '[mem KB]', '[times called]', '[Name]']
assert t[at[1] + 1].split() == ' '.join(cols).split(), t[at[1] + 1]
rows = t[at[1] + 2:at[2] - 1]
assert len(rows) == n_ops and all(re.search(r'\]:\d+$', r) for r in rows), (len(rows), n_ops)
assert [int(r.rsplit(':', 1)[1]) for r in rows] == list(range(n_ops))
top = t[at[2] + 2:at[3] - 1]
assert 1 <= len(top) <= 10, len(top)
assert t[at[4] + 1].split() == '[Node type] [count] [avg ms] [avg %] [cdf %] [mem KB] [times called]'.split()
assert any(l.startswith('Timings (microseconds): count=5 first=') for l in t)
assert any(l.startswith('per-op sum ') for l in t)
EOF
then ok "text: benchmark_model's sections in order, $n_ops run-order rows"; else bad "text layout" "$(head -c 400 "$T/text")"; fi
# near miss: no --profile, no profile text
if "$LG" bench "$m" -n 2 --warmup 0 | grep -q "Operator-wise"; then bad "no profile text without --profile"; else ok "no profile text without --profile"; fi

# --threads 2: per-op wall time still tiles the run
m=build/corpus/pose_landmark_lite.tflite
if "$LG" bench "$m" --profile --json --threads 2 -n 20 --warmup 3 >"$T/thr.json" 2>"$T/err" &&
   $PY "$T/check.py" "$m" "$T/thr.json" >"$T/chk" 2>&1; then
    ok "--threads 2: the per-op wall times add up"; grep FIGURE "$T/chk"
else
    bad "--threads 2" "$(cat "$T/chk" "$T/err" | tr '\n' ' ' | head -c 400)"
fi

# too many runs x ops for the per-run table: refused, exit 2, before any timed run
"$LG" bench "$m" --profile -n 100000 --warmup 0 >"$T/out" 2>"$T/err"; rc=$?
if [ "$rc" -eq 2 ] && grep -q "too many" "$T/err"; then ok "--profile with 100000 runs x ops: refused"; else bad "too many runs" "rc $rc $(head -c 200 "$T/err")"; fi
finish
