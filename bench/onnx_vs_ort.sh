#!/usr/bin/env bash
# bench/onnx_vs_ort.sh -- converted torchvision models: `litegpu bench` against onnxruntime-node.
#
#   bench/onnx_vs_ort.sh [--record] [--runs N] [--sweeps S] [--models "resnet18 mobilenet_v2 ..."] [--profile]
#                        [--baseline BIN] [--avx2] [--out FILE.json]
#
# Issue #10's goal: litegpu bench on the converted .tflite at most onnxruntime-node's time on the
# .onnx (ratio <= 1.0), both on 1 thread.
# Models (default resnet18 mobilenet_v2 mobilenet_v3_large efficientnet_b0; resnet50 also works):
# exported by `bench/onnx_convert.sh --export` into build/bench/NAME.onnx (torchvision, seeded
# random weights, 1x3x224x224, opset 17; never committed), then converted here with
# `litegpu convert NAME.onnx -o NAME.tflite` (the default conversion: NCHW kept at the boundary).
#
# One sweep = for each model, two fresh processes back to back, in an order that rotates from
# model to model and sweep to sweep:
#     build/bench/litegpu-ort bench NAME.tflite --json --threads 1 --fill half   (fp32)
#     node peers/ort_bench.js --threads 1 --fill half NAME.onnx   (CPU EP, intra_op_num_threads 1,
#                                       inter-op 1, sequential, graph optimization level all)
# Each: input all 0.5, warm-up >= 5 runs and >= 1.5 s, then N (default 20) timed runs; each reports
# its median and p95 (nearest rank). S (default 3) sweeps; the table shows the median of the S
# medians (and of the S p95s); the ratio litegpu/ort is of those medians, and per sweep too (the
# tools ran seconds apart there: its spread shows the noise); the geometric mean over the models.
# Peak RSS: each tool's own (getrusage / process.resourceUsage), started via `sh -c '... & wait'`
# so that it is not floored at Python's RSS (bench/README.md).
# The litegpu binary timed is a copy of build/litegpu taken at the start.
# --profile then shows where litegpu's time goes, per op type: a small C program (written to
# build/bench/op_profile.c from this script, linked against build/liblitegpu.a) times each op
# through the interpreter's tap (lg/run.h: called after every op), 1 thread, input 0.5, 10 warm-up
# runs and 21 timed runs, medians (its own run, not interleaved: shares, not a ratio).
# --baseline BIN also times another litegpu binary (e.g. an older build) in the same sweeps: it
# converts each NAME.onnx itself (build/bench/NAME.baseline.tflite) and runs `BIN bench` on that,
# so the table shows before/after ratios measured side by side. --avx2 also times this build with
# LITEGPU_SIMD=avx2 (the vector code a CPU without AVX-512 runs; same bits).
# --record writes bench/results/<date>-onnx-vs-ort.json (--out FILE.json: that file instead).
# Never part of `make test`.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
. bench/lib.sh

record=0 runs=20 sweeps=3 profile=0 names="resnet18 mobilenet_v2 mobilenet_v3_large efficientnet_b0"
baseline="" avx2=0 out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --record) record=1 ;;
        --runs|-n) runs="$2"; shift ;;
        --sweeps) sweeps="$2"; shift ;;
        --models) names="$2"; shift ;;
        --profile) profile=1 ;;
        --baseline) baseline="$2"; shift ;;
        --avx2) avx2=1 ;;
        --out) out="$2"; shift ;;
        -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
case "$runs$sweeps" in *[!0-9]*|"") die "--runs and --sweeps take positive integers" ;; esac
[ "$runs" -ge 1 ] && [ "$sweeps" -ge 1 ] || die "--runs and --sweeps take positive integers"
command -v node >/dev/null || die "node not found (scripts/install-deps.sh installs it)"
[ -d peers/node_modules/onnxruntime-node ] || die "onnxruntime-node missing: run \`npm ci\` in peers/ (scripts/install-deps.sh)"
make -s build/litegpu build/liblitegpu.a || die "build failed"
mkdir -p build/bench && cp build/litegpu build/bench/litegpu-ort || die "cannot copy build/litegpu"
if [ -n "$baseline" ]; then
    [ -x "$baseline" ] || die "--baseline $baseline is not an executable"
    cp "$baseline" build/bench/litegpu-baseline || die "cannot copy $baseline"
fi
# shellcheck disable=SC2086
bash bench/onnx_convert.sh --export $names || die "export failed"
models=()
for n in $names; do
    build/bench/litegpu-ort convert "build/bench/$n.onnx" -o "build/bench/$n.tflite" --force >/dev/null \
        || die "litegpu convert build/bench/$n.onnx failed"
    if [ -n "$baseline" ]; then
        build/bench/litegpu-baseline convert "build/bench/$n.onnx" -o "build/bench/$n.baseline.tflite" --force >/dev/null \
            || die "$baseline convert build/bench/$n.onnx failed"
    fi
    models+=("build/bench/$n")
done

status=0
/usr/bin/python3 - "$record" "$runs" "$sweeps" "${baseline:+1}" "$avx2" "$out" "${models[@]}" <<'PY' || status=$?
import datetime, json, math, os, platform, subprocess, sys, time

record, runs, sweeps = sys.argv[1] == "1", int(sys.argv[2]), int(sys.argv[3])
has_base, has_avx2, out = sys.argv[4] == "1", sys.argv[5] == "1", sys.argv[6]
models = sys.argv[7:]
cli = "build/bench/litegpu-ort"
WARMUP, MIN_WARMUP_MS, THREADS, FILL = 5, 1500, 1, "half"
NAMES = ["litegpu", "ort"] + (["baseline"] if has_base else []) + (["avx2"] if has_avx2 else [])

def tools(stem):
    common = ["--runs", str(runs), "--warmup", str(WARMUP), "--min-warmup-ms", str(MIN_WARMUP_MS), "--fill", FILL]
    return {
        "litegpu": [cli, "bench", stem + ".tflite", "--json", "--threads", str(THREADS)] + common,
        "ort": ["node", "peers/ort_bench.js", "--threads", str(THREADS)] + common + [stem + ".onnx"],
        "baseline": ["build/bench/litegpu-baseline", "bench", stem + ".baseline.tflite", "--json", "--threads",
                     str(THREADS)] + common,
        "avx2": ["env", "LITEGPU_SIMD=avx2", cli, "bench", stem + ".tflite", "--json", "--threads", str(THREADS)] + common,
    }

sys.path.insert(0, "bench")
from sweep import interleaved, median, rss, run, sh  # noqa: E402

samples, sweep_load, elapsed, load_start, load_end = interleaved(models, NAMES, tools, sweeps, 20)

results, failed = [], False
for stem in models:
    r = {"model": os.path.basename(stem), "onnx_bytes": os.path.getsize(stem + ".onnx"),
         "tflite_bytes": os.path.getsize(stem + ".tflite"), "tools": {}}
    for name in NAMES:
        xs = samples[stem][name]
        ok = [x for x in xs if x["ok"]]
        failed |= len(ok) < len(xs)
        t = {"argv": " ".join(tools(stem)[name]), "sweeps_ok": len(ok), "errors": sorted({x["error"] for x in xs if not x["ok"]})}
        if ok:
            t.update({"sweep_medians_ms": [round(x["median_ms"], 3) for x in ok],
                      "median_ms": round(median([x["median_ms"] for x in ok]), 3),
                      "sweep_p95_ms": [round(x["p95_ms"], 3) for x in ok],
                      "p95_ms": round(median([x["p95_ms"] for x in ok]), 3),
                      "min_ms": round(min(x["min_ms"] for x in ok), 3),
                      "threads": ok[0].get("threads"), "peak_rss_bytes": max(rss(x) for x in ok)})
            if "memory" in ok[0]:
                t["planned_peak_live_bytes"] = ok[0]["memory"]["peak_live_bytes"]
            if "ort" in ok[0]:
                t["onnxruntime_node"] = ok[0]["ort"]
        r["tools"][name] = t
    T = r["tools"]
    r["litegpu_over_ort"] = (round(T["litegpu"]["median_ms"] / T["ort"]["median_ms"], 3)
                             if "median_ms" in T["litegpu"] and "median_ms" in T["ort"] else None)
    r["litegpu_over_ort_per_sweep"] = [round(a["median_ms"] / b["median_ms"], 3)
                                       for a, b in zip(samples[stem]["litegpu"], samples[stem]["ort"]) if a["ok"] and b["ok"]]
    for extra in NAMES[2:]:
        r[extra + "_over_ort"] = (round(T[extra]["median_ms"] / T["ort"]["median_ms"], 3)
                                  if "median_ms" in T[extra] and "median_ms" in T["ort"] else None)
        r[extra + "_over_ort_per_sweep"] = [round(a["median_ms"] / b["median_ms"], 3)
                                            for a, b in zip(samples[stem][extra], samples[stem]["ort"]) if a["ok"] and b["ok"]]
    results.append(r)

print(f"\nwarm medians, median of {sweeps} interleaved sweeps; {runs} timed runs each after >= {WARMUP} runs"
      f" and >= {MIN_WARMUP_MS / 1000:g} s of warm-up; 1 thread; input all 0.5")
print("| model              | litegpu ms | p95   | ort ms | p95   | litegpu/ort | litegpu/ort per sweep        | litegpu RSS MiB | ort RSS MiB |")
print("|--------------------|-----------:|------:|-------:|------:|------------:|------------------------------|----------------:|------------:|")
f = lambda x, fmt: "-" if x is None else format(x, fmt)
for r in results:
    L, O = r["tools"]["litegpu"], r["tools"]["ort"]
    ps = ", ".join(f"{x:.2f}" for x in r["litegpu_over_ort_per_sweep"])
    print(f"| {r['model']:<18} | {f(L.get('median_ms'), '10.2f')} | {f(L.get('p95_ms'), '5.1f')} | {f(O.get('median_ms'), '6.2f')} |"
          f" {f(O.get('p95_ms'), '5.1f')} | {f(r['litegpu_over_ort'], '11.2f')} | {ps:<28} |"
          f" {f(L.get('peak_rss_bytes') and L['peak_rss_bytes'] / 1048576, '15.1f')} | {f(O.get('peak_rss_bytes') and O['peak_rss_bytes'] / 1048576, '11.1f')} |")
qs = [r["litegpu_over_ort"] for r in results if r["litegpu_over_ort"]]
summary = {}
if qs:
    summary = {"litegpu_over_ort_geomean": round(math.exp(sum(map(math.log, qs)) / len(qs)), 3),
               "litegpu_over_ort_max": max(qs), "models_at_or_under_1": sum(q <= 1.0 for q in qs)}
    print(f"litegpu / ort: geometric mean {summary['litegpu_over_ort_geomean']:.2f}, max {max(qs):.2f};"
          f" <= 1.0 on {summary['models_at_or_under_1']} of {len(qs)} models")
for extra in NAMES[2:]:
    label = {"baseline": "the baseline binary (its own conversion)", "avx2": "this build with LITEGPU_SIMD=avx2"}[extra]
    print(f"\n{label} / ort, same sweeps:")
    for r in results:
        L, E = r["tools"]["litegpu"], r["tools"][extra]
        ps = ", ".join(f"{x:.2f}" for x in r[extra + "_over_ort_per_sweep"])
        print(f"| {r['model']:<18} | {extra} {f(E.get('median_ms'), '8.2f')} ms | {extra}/ort {f(r[extra + '_over_ort'], '5.2f')}"
              f" | per sweep {ps:<28} | litegpu/{extra} {f(L.get('median_ms') and E.get('median_ms') and L['median_ms'] / E['median_ms'], '5.2f')} |")
    es = [r[extra + "_over_ort"] for r in results if r[extra + "_over_ort"]]
    if es:
        summary[extra + "_over_ort_geomean"] = round(math.exp(sum(map(math.log, es)) / len(es)), 3)
        print(f"{extra} / ort: geometric mean {summary[extra + '_over_ort_geomean']:.2f}")
print(f"{elapsed:.0f} s; load average {load_start[0]:.2f} at start, {load_end[0]:.2f} at end ({os.cpu_count()} CPUs)")

if record:
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git": sh("git rev-parse --short HEAD 2>/dev/null") or "unknown",
        "git_dirty": bool(sh("git status --porcelain --untracked-files=no -- src include tools 2>/dev/null")),
        "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"),
        "cpu_family_model": sh("grep -m2 -E '^(cpu family|model)\\s' /proc/cpuinfo | cut -d: -f2 | tr -d ' ' | paste -sd/"),
        "avx512f": "avx512f" in sh("grep -m1 '^flags' /proc/cpuinfo"), "nproc": os.cpu_count(),
        "kernel": platform.release(), "cc": sh("cc --version | head -n 1"),
        "loadavg_at_start": [round(x, 2) for x in load_start], "loadavg_at_end": [round(x, 2) for x in load_end],
        "loadavg_after_each_sweep": sweep_load, "elapsed_s": round(elapsed),
        "node": sh("node --version"),
        "onnxruntime_node": sh("node -p \"require('./peers/node_modules/onnxruntime-node/package.json').version\""),
        "torch": sh("/usr/bin/python3 -c 'import torch, torchvision; print(torch.__version__, torchvision.__version__)'"),
    }
    config = {"runs": runs, "sweeps": sweeps, "warmup_runs": WARMUP, "min_warmup_ms": MIN_WARMUP_MS,
              "threads": THREADS, "fill": FILL, "tools": NAMES,
              "order": "per model: " + ", ".join(NAMES) + "; rotated per model and sweep"}
    if has_base:
        config["baseline_binary_sha256"] = sh("sha256sum build/bench/litegpu-baseline | cut -c1-64")
    path = out or f"bench/results/{datetime.date.today().isoformat()}-onnx-vs-ort.json"
    with open(path, "w") as fo:
        json.dump({"env": env, "config": config, "summary": summary, "results": results}, fo, indent=2)
        fo.write("\n")
    print(f"\nrecorded {path}")
sys.exit(1 if failed else 0)
PY

[ "$profile" = 1 ] || exit "$status"
cat > build/bench/op_profile.c <<'EOF'
/* op_profile.c -- written by bench/onnx_vs_ort.sh --profile: where `litegpu bench` spends its
   time, per op type. The interpreter's tap (lg/run.h) is called after each op; the time between
   two taps is that op's (the first op's from the start of invoke). 1 thread, input all 0.5,
   10 warm-up runs, then R runs; per op type: ops, total ms per run (median over runs of the sum),
   share of the run. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lg/lg.h"
#include "lg/run.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
typedef struct { double last; double *op_ms; } prof;
static int tap(void *ud, int32_t op, const lg_tensor_view *o, uint32_t n) {
    (void)o; (void)n;
    prof *p = ud;
    double t = now_ms();
    p->op_ms[op] += t - p->last;
    p->last = t;
    return 0;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: op_profile MODEL.tflite RUNS\n"); return 2; }
    int runs = atoi(argv[2]);
    lg_error err;
    lg_model *m = NULL;
    if (lg_tflite_read_file(argv[1], NULL, &m, &err) != LG_OK) { fprintf(stderr, "%s\n", err.msg); return 1; }
    const lg_subgraph *sg = &m->subgraphs[0];
    prof p = {0, calloc(sg->n_ops, sizeof(double))};
    lg_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.threads = 1;
    ro.tap = tap;
    ro.tap_ud = &p;
    lg_interp *it = NULL;
    if (lg_interp_create(m, &ro, &it, &err) != LG_OK) { fprintf(stderr, "%s\n", err.msg); return 1; }
    for (uint32_t i = 0; i < lg_interp_n_inputs(it); i++) {
        lg_tensor_view v;
        lg_interp_input(it, i, &v);
        float *x = malloc((size_t)v.numel * sizeof *x);
        for (int64_t k = 0; k < v.numel; k++) x[k] = 0.5f;
        if (lg_interp_set_input(it, i, LG_FLOAT32, x, (uint64_t)v.numel * 4, &err) != LG_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        free(x);
    }
    /* names: op type per op; totals per type per run */
    const char *names[256];
    int n_names = 0, *type_of = calloc(sg->n_ops, sizeof(int)), count[256] = {0};
    for (uint32_t i = 0; i < sg->n_ops; i++) {
        const char *s = lg_op_name(m, &sg->ops[i]);
        int k = 0;
        while (k < n_names && strcmp(names[k], s)) k++;
        if (k == n_names && n_names < 256) names[n_names++] = s;
        type_of[i] = k;
        count[k]++;
    }
    double *per = calloc((size_t)runs * 256, sizeof(double)), *tot = calloc((size_t)runs, sizeof(double));
    for (int r = -10; r < runs; r++) {
        memset(p.op_ms, 0, sg->n_ops * sizeof(double));
        double t0 = p.last = now_ms();
        if (lg_interp_invoke(it, &err) != LG_OK) { fprintf(stderr, "%s\n", err.msg); return 1; }
        if (r < 0) continue;
        tot[r] = now_ms() - t0;
        for (uint32_t i = 0; i < sg->n_ops; i++) per[r * 256 + type_of[i]] += p.op_ms[i];
    }
    qsort(tot, (size_t)runs, sizeof(double), cmp);
    double med_tot = tot[runs / 2];
    printf("{\"model\":\"%s\",\"run_ms\":%.3f,\"ops\":[", argv[1], med_tot);
    double *col = calloc((size_t)runs, sizeof(double));
    for (int k = 0; k < n_names; k++) {
        for (int r = 0; r < runs; r++) col[r] = per[r * 256 + k];
        qsort(col, (size_t)runs, sizeof(double), cmp);
        printf("%s{\"op\":\"%s\",\"n\":%d,\"ms\":%.3f}", k ? "," : "", names[k], count[k], col[runs / 2]);
    }
    printf("]}\n");
    lg_interp_free(it);
    lg_model_free(m);
    return 0;
}
EOF
cc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude -o build/bench/op_profile build/bench/op_profile.c \
    build/liblitegpu.a -lpthread -lm || die "cannot build build/bench/op_profile"
echo
for stem in "${models[@]}"; do
    build/bench/op_profile "$stem.tflite" 21 || die "op_profile $stem.tflite failed"
done > build/bench/op_profile.jsonl
/usr/bin/python3 - build/bench/op_profile.jsonl <<'PY'
import json, os, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    t = r["run_ms"]
    ops = sorted(r["ops"], key=lambda o: -o["ms"])
    top = ", ".join(f"{o['op']} x{o['n']} {o['ms']:.2f} ms ({100 * o['ms'] / t:.0f}%)" for o in ops if o["ms"] >= 0.02 * t)
    print(f"profile {os.path.basename(r['model'])}: {t:.2f} ms per run; {top}")
PY
exit "$status"
