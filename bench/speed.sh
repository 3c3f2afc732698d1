#!/usr/bin/env bash
# bench/speed.sh -- how fast is the reference interpreter, against LiteRT.js (wasm, XNNPACK)?
#
#   bench/speed.sh [--record] [--runs N] [--sweeps S] [--models "a b c"] [--peer-relaxed-simd]
#
# Models: the 5 development models in build/corpus/ (`make corpus` fetches them) and
# pose_landmark_heavy.tflite (fetched into build/bench/ as bench/run.sh does, bench/lib.sh; left
# out with a note if it cannot be fetched). --models takes paths or bare names
# (pose_landmark_lite, pose_landmark_heavy, ...).
#
# One sweep = for each model, these four runs, each a fresh process, interleaved in an order
# that rotates from model to model and sweep to sweep (machine noise then hits all alike):
#     build/litegpu bench MODEL --json --precision f32     --threads 1   (the goal's fp32 time)
#     node --no-liftoff peers/litert_bench.js MODEL                      (the peer, 1 thread)
#     build/litegpu bench MODEL --json --precision f16     --threads 1   (emulated GPU fp16)
#     build/litegpu bench MODEL --json --precision f32_f16 --threads 1   (fp16 storage, fp32 math)
# (build/litegpu is built, then copied to build/bench/litegpu-speed and the copy is timed, so a
# rebuild during the sweeps cannot change what is measured.) Each: input all 0.5, warm-up
# >= 5 runs and >= 1.5 s (V8 needs it, see peers.md; the same for all), then N (default 20)
# timed runs; each reports its median. S (default 3) sweeps; the table shows the median of
# the S medians. Ratios are of those medians:
#     litegpu f32 / LiteRT.js   (goal: <= 1.0)      f16 / f32   (goal: <= 3)     f32_f16 / f32
# Memory: litegpu's planned peak of live activations (f32) and each process's own peak RSS
# (getrusage / process.resourceUsage; the tools are started through `sh -c '... & wait'`
# because a process forked from Python inherits Python's RSS high-water mark).
# LiteRT.js is single-threaded here: it loads a non-threads wasm build (peers/litert_bench.js
# says why); litegpu runs with --threads 1 (OpenBLAS is set to 1 thread).
# --peer-relaxed-simd runs node with --experimental-wasm-relaxed-simd, so LiteRT.js loads its
# relaxed-SIMD build (what a current browser gets) instead of the plain-SIMD one Node 20 picks.
# --record also writes bench/results/<date>-speed.json. Never part of `make test`.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
. bench/lib.sh

record=0 runs=20 sweeps=3 names="" relaxed=0
while [ $# -gt 0 ]; do
    case "$1" in
        --record) record=1 ;;
        --runs|-n) runs="$2"; shift ;;
        --sweeps) sweeps="$2"; shift ;;
        --models) names="$2"; shift ;;
        --peer-relaxed-simd) relaxed=1 ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) echo "bench: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
case "$runs$sweeps" in *[!0-9]*|"") die "--runs and --sweeps take positive integers" ;; esac
[ "$runs" -ge 1 ] && [ "$sweeps" -ge 1 ] || die "--runs and --sweeps take positive integers"

command -v python3 >/dev/null || die "python3 not found"
command -v node >/dev/null || die "node not found (scripts/install-deps.sh installs it)"
[ -d peers/node_modules/@litertjs/core ] || die "LiteRT.js missing: run \`npm ci\` in peers/ (scripts/install-deps.sh)"
make -s all || die "build failed"
# Time a private copy: a `make` run by someone else during the sweeps must not swap the binary.
mkdir -p build/bench && cp build/litegpu build/bench/litegpu-speed || die "cannot copy build/litegpu"

models=()
if [ -z "$names" ]; then
    ls build/corpus/*.tflite >/dev/null 2>&1 || make -s corpus || die "cannot fetch the corpus (make corpus)"
    models=(build/corpus/*.tflite)
    if fetch_heavy; then models+=("$HEAVY"); else echo "bench: leaving out $HEAVY_FILE (cannot fetch it)" >&2; fi
else
    for a in $names; do
        b="${a%.tflite}"
        if [ -f "$a" ]; then models+=("$a")
        elif [ "$b" = "${HEAVY_FILE%.tflite}" ]; then fetch_heavy || exit 1; models+=("$HEAVY")
        elif [ -f "build/corpus/$b.tflite" ]; then models+=("build/corpus/$b.tflite")
        elif [ -f "build/bench/$b.tflite" ]; then models+=("build/bench/$b.tflite")
        else die "no model '$a' (not a file, not in build/corpus/ or build/bench/)"
        fi
    done
fi

python3 - "$record" "$runs" "$sweeps" "$relaxed" "${models[@]}" <<'PY'
import datetime, json, math, os, platform, subprocess, sys, time

record, runs, sweeps, relaxed = sys.argv[1] == "1", int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
models = sys.argv[5:]
cli = "build/bench/litegpu-speed"  # a copy of build/litegpu made just before
WARMUP, MIN_WARMUP_MS, THREADS, FILL = 5, 1500, 1, "half"
node = ["node", "--no-liftoff"] + (["--experimental-wasm-relaxed-simd"] if relaxed else [])

def tools(model):
    common = ["--runs", str(runs), "--warmup", str(WARMUP), "--min-warmup-ms", str(MIN_WARMUP_MS)]
    lg = lambda p: [cli, "bench", model, "--json", "--precision", p, "--threads", str(THREADS), "--fill", FILL] + common
    return {
        "f32": lg("f32"),
        "litert": node + ["peers/litert_bench.js", "--fill", FILL] + common + [model],
        "f16": lg("f16"),
        "f32_f16": lg("f32_f16"),
    }
NAMES = ["f32", "litert", "f16", "f32_f16"]

sys.path.insert(0, "bench")
from sweep import interleaved, median, rss, run, sh  # noqa: E402

samples, sweep_load, elapsed, load_start, load_end = interleaved(models, NAMES, tools, sweeps, 36)

results, failed = [], False
for model in models:
    r = {"model": os.path.basename(model), "bytes": os.path.getsize(model), "tools": {}, "ratios": {}}
    for name in NAMES:
        xs = samples[model][name]
        ok = [x for x in xs if x["ok"]]
        if len(ok) < len(xs):
            failed = True
        t = {"argv": " ".join(tools(model)[name]), "sweeps_ok": len(ok),
             "errors": sorted({x["error"] for x in xs if not x["ok"]})}
        if ok:
            t.update({
                "sweep_medians_ms": [round(x["median_ms"], 3) for x in ok],
                "median_ms": round(median([x["median_ms"] for x in ok]), 3),
                "sweep_p95_ms": [round(x["p95_ms"], 3) for x in ok],
                "min_ms": round(min(x["min_ms"] for x in ok), 3),
                "threads": ok[0].get("threads"),
                "peak_rss_bytes": max(rss(x) for x in ok),
            })
            if "memory" in ok[0]:
                t["planned_peak_live_bytes"] = ok[0]["memory"]["peak_live_bytes"]
                t["planned_arena_bytes"] = ok[0]["memory"]["arena_bytes"]
                t["peak_op_name"] = ok[0]["memory"]["peak_op_name"]
                t["converted_const_bytes"] = ok[0]["memory"]["converted_bytes"]
            if "glue" in ok[0]:
                t["glue"] = ok[0]["glue"]
        r["tools"][name] = t
    T = r["tools"]
    def ratio(a, b):
        return round(T[a]["median_ms"] / T[b]["median_ms"], 3) if "median_ms" in T[a] and "median_ms" in T[b] else None
    r["ratios"] = {"f32_over_litert": ratio("f32", "litert"), "f16_over_f32": ratio("f16", "f32"),
                   "f32_f16_over_f32": ratio("f32_f16", "f32")}
    # the same ratio within each sweep (the tools ran back to back there): its spread shows the noise
    def per_sweep(a, b):
        xa, xb = samples[model][a], samples[model][b]
        return [round(x["median_ms"] / y["median_ms"], 3) for x, y in zip(xa, xb) if x["ok"] and y["ok"]]
    r["ratios_per_sweep"] = {"f32_over_litert": per_sweep("f32", "litert"), "f16_over_f32": per_sweep("f16", "f32"),
                             "f32_f16_over_f32": per_sweep("f32_f16", "f32")}
    results.append(r)

def f(x, fmt):
    return "-" if x is None else format(x, fmt)
mib = lambda b: None if b is None else b / 1048576
head = ["model", "litegpu f32 ms", "LiteRT.js ms", "f32/LiteRT.js", "f16 ms", "f16/f32", "f32_f16/f32",
        "planned peak act. MiB", "peak RSS MiB", "LiteRT.js RSS MiB"]
rows = []
for r in results:
    T, q = r["tools"], r["ratios"]
    rows.append([r["model"].replace(".tflite", ""), f(T["f32"].get("median_ms"), ".2f"), f(T["litert"].get("median_ms"), ".2f"),
                 f(q["f32_over_litert"], ".2f"), f(T["f16"].get("median_ms"), ".2f"), f(q["f16_over_f32"], ".2f"),
                 f(q["f32_f16_over_f32"], ".2f"), f(mib(T["f32"].get("planned_peak_live_bytes")), ".2f"),
                 f(mib(T["f32"].get("peak_rss_bytes")), ".1f"), f(mib(T["litert"].get("peak_rss_bytes")), ".1f")])
w = [max(len(h), *(len(x[i]) for x in rows)) for i, h in enumerate(head)]
line = lambda cells: "| " + " | ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(cells)) + " |"
glue = next((r["tools"]["litert"].get("glue") for r in results if r["tools"]["litert"].get("glue")), "?")
print(f"\nwarm medians, median of {sweeps} interleaved sweeps; {runs} timed runs each after >= {WARMUP} runs"
      f" and >= {MIN_WARMUP_MS / 1000:g} s of warm-up; 1 thread; input all 0.5; LiteRT.js glue {glue}")
print(line(head))
print("|" + "|".join(("-" * (x + 1) + ":") if i else "-" * (x + 2) for i, x in enumerate(w)) + "|")
for row in rows:
    print(line(row))
qs = [r["ratios"]["f32_over_litert"] for r in results if r["ratios"]["f32_over_litert"]]
hs = [r["ratios"]["f16_over_f32"] for r in results if r["ratios"]["f16_over_f32"]]
summary = {}
if qs:
    summary["f32_over_litert_geomean"] = round(math.exp(sum(map(math.log, qs)) / len(qs)), 3)
    summary["f32_over_litert_max"] = max(qs)
    summary["models_at_or_under_1"] = sum(q <= 1.0 for q in qs)
    print(f"litegpu f32 / LiteRT.js: geometric mean {summary['f32_over_litert_geomean']:.2f}, max {max(qs):.2f};"
          f" <= 1.0 on {summary['models_at_or_under_1']} of {len(qs)} models")
if hs:
    summary["f16_over_f32_max"] = max(hs)
    summary["f16_models_at_or_under_3"] = sum(h <= 3.0 for h in hs)
    print(f"f16 / f32: max {max(hs):.2f}; <= 3 on {summary['f16_models_at_or_under_3']} of {len(hs)} models")
print(f"{elapsed:.0f} s; load average {load_start[0]:.2f} at start, {load_end[0]:.2f} at end ({os.cpu_count()} CPUs)")

if record:
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git": sh("git rev-parse --short HEAD 2>/dev/null") or "unknown",
        "git_dirty": bool(sh("git status --porcelain --untracked-files=no 2>/dev/null")),
        "git_untracked_sources": int(sh("git status --porcelain --untracked-files=all -- src tools include 2>/dev/null | grep -c '^??'") or 0),
        "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"),
        "nproc": os.cpu_count(),
        "kernel": platform.release(),
        "loadavg_at_start": [round(x, 2) for x in load_start],
        "loadavg_at_end": [round(x, 2) for x in load_end],
        "loadavg_after_each_sweep": sweep_load,
        "elapsed_s": round(elapsed),
        "cc": sh("cc --version | head -n 1"),
        "litegpu": sh(f"{cli} --version"),
        "litegpu_sha256": sh(f"sha256sum {cli} | cut -c1-16"),
        "node": sh("node --version"),
        "node_flags": node[1:],
        "litertjs": sh("node -p \"require('./peers/node_modules/@litertjs/core/package.json').version\""),
        "litertjs_glue": glue,
    }
    config = {"runs": runs, "sweeps": sweeps, "warmup_runs": WARMUP, "min_warmup_ms": MIN_WARMUP_MS,
              "threads": THREADS, "fill": FILL, "order": "per model: " + ", ".join(NAMES) + ", rotated per model and sweep"}
    os.makedirs("bench/results", exist_ok=True)
    path = f"bench/results/{datetime.date.today().isoformat()}-speed.json"
    with open(path, "w") as fo:
        json.dump({"env": env, "config": config, "summary": summary, "results": results}, fo, indent=2)
        fo.write("\n")
    print(f"\nrecorded {path}")
sys.exit(1 if failed else 0)
PY
