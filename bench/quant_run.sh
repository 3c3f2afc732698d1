#!/usr/bin/env bash
# bench/quant_run.sh -- int8 inference latency: litegpu's integer kernels against LiteRT.js on
# the same files, same run, one thread.
#
#   bench/quant_run.sh [--record] [--sweeps S] [--runs-ssd N] [--runs-net N] [--fill F] [--no-profile]
#
# Issue #13's benchmark "int8 run latency against LiteRT.js on the same int8 file". Models:
#   ssd   the real Coral uint8 SSD MobileNet v2 (build/quant/ssd_mobilenet_v2_quant.tflite,
#         scripts/fetch-quant-corpus.sh) with its TFLite_Detection_PostProcess custom op cut off
#         by tests/tools/cut_custom.c, as tests/e2e/test_run_quant.sh does (outputs: the raw box
#         encodings and class scores; UINT8 input [1,300,300,3]);
#   q_net the int8 network of tests/tools/make_quant_models.c (float input [1,8,8,3] ->
#         QUANTIZE -> CONV_2D -> DEPTHWISE_CONV_2D -> ADD -> AVERAGE_POOL_2D -> FULLY_CONNECTED ->
#         SOFTMAX -> DEQUANTIZE: tiny, so it measures per-op overhead more than arithmetic).
# Tools, each a fresh process, one thread, input fill F (default pattern; a UINT8 input gets
# min(255, floor(256 * f(i))), as peers/litert_run.js makes it):
#   litert     node --no-liftoff bench/litert_qbench.js: peers/litert_bench.js's loop (LiteRT.js
#              2.5.3 CPU, wasm + XNNPACK, its single-threaded build) taking integer inputs too,
#              which litert_bench.js refuses;
#   lg-tflite  build/bench/quant_bench --int-arith tflite  (TFLite's fixed-point arithmetic)
#   lg-xnnpack build/bench/quant_bench --int-arith xnnpack (XNNPACK's: bit-exact with LiteRT.js)
#              bench/quant_bench.c is `litegpu bench`'s loop (tools/cli/cmd_bench.c: set the
#              inputs + invoke per timed run) through the API, because the verb has no
#              --int-arith and fills FLOAT32 inputs only;
#   and on q_net, whose input is float, the verbs themselves as a cross-check of the two copies:
#   bench      build/bench/litegpu-qrun bench --threads 1 (TFLite arithmetic)
#   litert_bench  node --no-liftoff peers/litert_bench.js.
# Every tool warms up for >= 5 runs and >= 1.5 s (V8 needs it, peers.md), then times N runs
# (ssd 11, q_net 201) and reports its median. A sweep runs, per model, the tools back to back in
# an order that rotates from sweep to sweep; S sweeps (default 3). Reported: the median of the
# sweep medians per tool, ratio = litegpu median / LiteRT.js median (and the ratio within each
# sweep, where the two ran seconds apart: its spread shows the noise).
# Profile (unless --no-profile): quant_bench --profile on ssd (time per op type through the
# interpreter's tap, with multiply-adds and GMAC/s, and the slowest ops), both arithmetics.
# --record writes bench/results/<date>-quant-run.md. Never part of `make test`.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
. bench/lib.sh

record=0 sweeps=3 runs_ssd=11 runs_net=201 fill=pattern profile=1
while [ $# -gt 0 ]; do
    case "$1" in
        --record) record=1 ;;
        --sweeps) sweeps="$2"; shift ;;
        --runs-ssd) runs_ssd="$2"; shift ;;
        --runs-net) runs_net="$2"; shift ;;
        --fill) fill="$2"; shift ;;
        --no-profile) profile=0 ;;
        -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
for v in "$sweeps" "$runs_ssd" "$runs_net"; do case "$v" in *[!0-9]*|""|0) die "counts take positive integers" ;; esac; done
case "$fill" in half|pattern) ;; *) die "--fill takes half or pattern" ;; esac
real=build/quant/ssd_mobilenet_v2_quant.tflite
[ -f "$real" ] || die "$real is missing: run scripts/fetch-quant-corpus.sh"
[ -d peers/node_modules ] || die "peers/node_modules is missing (scripts/install-deps.sh)"
make -s build/litegpu build/liblitegpu.a || die "build failed"
mkdir -p build/bench/qrun && cp build/litegpu build/bench/litegpu-qrun || die "cannot copy build/litegpu"
FLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Wall -Wextra -Werror -O2"
for t in tests/tools/make_quant_models tests/tools/cut_custom bench/quant_bench; do
    # shellcheck disable=SC2086
    cc $FLAGS -o "build/bench/$(basename "$t")" "$t.c" build/liblitegpu.a -lpthread -lm || die "cannot build $t.c"
done
build/bench/make_quant_models build/bench/qrun >build/bench/qrun/scales.txt || die "make_quant_models failed"
build/bench/cut_custom "$real" build/bench/qrun/ssd.tflite TFLite_Detection_PostProcess || die "cut_custom failed"

python3 - "$record" "$sweeps" "$runs_ssd" "$runs_net" "$fill" "$profile" <<'PY'
import datetime, json, os, platform, subprocess, sys, time

record, sweeps, runs_ssd, runs_net, fill, profile = sys.argv[1] == "1", int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6] == "1"
MODELS = {"ssd": ("build/bench/qrun/ssd.tflite", runs_ssd), "q_net": ("build/bench/qrun/q_net.tflite", runs_net)}
WARM = ["--warmup", "5", "--min-warmup-ms", "1500"]
def tools(path, runs):
    n = ["--runs", str(runs)]
    t = {"litert": ["node", "--no-liftoff", "bench/litert_qbench.js", "--fill", fill] + n + WARM + [path],
         "lg-tflite": ["build/bench/quant_bench", path, "--int-arith", "tflite", "--fill", fill] + n + WARM,
         "lg-xnnpack": ["build/bench/quant_bench", path, "--int-arith", "xnnpack", "--fill", fill] + n + WARM}
    if path.endswith("q_net.tflite"):
        t["bench"] = ["build/bench/litegpu-qrun", "bench", path, "--threads", "1", "--fill", fill, "--json"] + n + WARM
        t["litert_bench"] = ["node", "--no-liftoff", "peers/litert_bench.js", "--fill", fill] + n + WARM + [path]
    return t

def run(argv):
    p = subprocess.run(["sh", "-c", '"$@" & wait $!', "sh"] + argv, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"bench: {' '.join(argv)} failed (exit {p.returncode}): {p.stderr.strip()[-400:]}")
    txt = p.stdout.strip()
    try:
        d = json.loads(txt)                      # litegpu bench --json: one indented object
    except ValueError:
        d = json.loads(txt.splitlines()[-1])     # the others: one JSON line
    if d.get("ok") is False:
        sys.exit(f"bench: {' '.join(argv)}: {d.get('error')}")
    return d

def median(xs):
    s = sorted(xs)
    k = len(s) // 2
    return s[k] if len(s) % 2 else (s[k - 1] + s[k]) / 2

def sh(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, shell=True).stdout.strip()

def litert_version():
    try:
        with open("peers/node_modules/@litertjs/core/package.json") as f:
            return json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        return "?"

load_start = os.getloadavg()
t_start = time.time()
per = {m: {} for m in MODELS}
argvs = {}
for s in range(sweeps):
    for mi, (m, (path, runs)) in enumerate(MODELS.items()):
        t = tools(path, runs)
        argvs[m] = t
        names = list(t)
        k = (s + mi) % len(names)
        for n in names[k:] + names[:k]:
            d = run(t[n])
            per[m].setdefault(n, []).append(d)
            print(f"  sweep {s + 1}/{sweeps}  {m:<6} {n:<12} median {d['median_ms']:9.4f} ms", file=sys.stderr)

out = []
P = out.append
P(f"{sweeps} sweeps; per sweep and model every tool once, back to back, in an order rotating per sweep; each a"
  f" fresh process, 1 thread, fill `{fill}`, warm-up >= 5 runs and >= 1.5 s, then N timed runs (ssd {runs_ssd},"
  f" q_net {runs_net}); the table: the median of the sweep medians. Ratio = litegpu / LiteRT.js"
  " (`bench/litert_qbench.js`; on q_net `bench` / `peers/litert_bench.js` too).")
P("")
W1, W2 = max(16, 8 * sweeps), max(9, 6 * sweeps)
P(f"| model | tool         | median ms | {'sweep medians ms':<{W1}} | x LiteRT.js | {'per sweep':<{W2}} | peak RSS MiB |")
P(f"|-------|--------------|----------:|{'-' * (W1 + 2)}|------------:|{'-' * (W2 + 2)}|-------------:|")
summary = {}
for m in MODELS:
    ref = {n: median([d["median_ms"] for d in per[m][n]]) for n in per[m]}
    summary[m] = ref
    for n in per[m]:
        peer = "litert_bench" if n == "bench" else "litert"
        ratio = ref[n] / ref[peer] if not n.startswith("litert") else None
        each = [a["median_ms"] / b["median_ms"] for a, b in zip(per[m][n], per[m][peer])] if ratio else []
        rss = median([d.get("peak_rss_bytes", d.get("process_peak_rss_bytes", 0)) for d in per[m][n]])
        if n == "bench":
            rss = median([d["memory"]["peak_rss_bytes"] for d in per[m][n]])
        sw = ", ".join(f"{d['median_ms']:.4g}" for d in per[m][n])
        P(f"| {m:<5} | {n:<12} | {ref[n]:9.4g} | {sw:<{W1}} | {(f'{ratio:.2f}' if ratio else '-'):>11} |"
          f" {', '.join(f'{x:.2f}' for x in each):<{W2}} | {rss / 1048576:12.1f} |")
P("")
P("Commands (the last sweep's):")
P("")
for m in MODELS:
    for n, a in argvs[m].items():
        P(f"    {' '.join(a)}")

if profile:
    P("")
    P("Profile: `build/bench/quant_bench build/bench/qrun/ssd.tflite --profile --runs 5 --warmup 2 --int-arith A`"
      " (the interpreter's tap after each op; per op type the median over the runs of its summed time).")
    for a in ("tflite", "xnnpack"):
        d = run(["build/bench/quant_bench", MODELS["ssd"][0], "--int-arith", a, "--fill", fill, "--runs", "5",
                 "--warmup", "2", "--profile"])
        tot = sum(o["ms"] for o in d["ops"])
        P("")
        P(f"`--int-arith {a}`: run median {d['median_ms']:.1f} ms")
        P("")
        P("| op type            | ops |     ms | share | multiply-adds | GMAC/s |")
        P("|--------------------|----:|-------:|------:|--------------:|-------:|")
        for o in sorted(d["ops"], key=lambda o: -o["ms"]):
            g = f"{o['macs'] / o['ms'] / 1e6:.2f}" if o["macs"] and o["ms"] > 0 else "-"
            P(f"| {o['op']:<18} | {o['n']:3d} | {o['ms']:6.1f} | {100 * o['ms'] / tot:4.1f}% | {o['macs']:13,.0f} | {g:>6} |")
        P("")
        P("slowest ops: " + "; ".join(f"op {o['index']} {o['op']} -> {o['out']}: {o['ms']:.1f} ms,"
                                      f" {o['macs'] / o['ms'] / 1e6:.2f} GMAC/s" for o in d["top_ops"][:6]))
    macs = sum(o["macs"] for o in d["ops"])
    P("")
    P(f"The whole model: {macs / 1e6:.0f} M multiply-adds; LiteRT.js's median {summary['ssd']['litert']:.1f} ms is"
      f" {macs / summary['ssd']['litert'] / 1e6:.1f} GMAC/s, litegpu's (xnnpack) {summary['ssd']['lg-xnnpack']:.1f} ms"
      f" {macs / summary['ssd']['lg-xnnpack'] / 1e6:.2f} GMAC/s.")

elapsed = time.time() - t_start
load_end = os.getloadavg()
P("")
P(f"{elapsed:.0f} s; load average {load_start[0]:.2f} at the start, {load_end[0]:.2f} at the end ({os.cpu_count()} CPUs)")
text = "\n".join(out)
print("\n" + text)

if record:
    cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip()
    fam = sh("grep -m2 -E '^(cpu family|model)\\s' /proc/cpuinfo | cut -d: -f2 | tr -d ' ' | paste -sd/")
    git = sh("git rev-parse --short HEAD") or "unknown"
    dirty = " (with uncommitted changes in src/ include/ tools/)" if sh("git status --porcelain --untracked-files=no -- src include tools") else ""
    glue = per["ssd"]["litert"][-1].get("glue", "?")
    head = [f"# {datetime.date.today().isoformat()}: int8 inference, litegpu against LiteRT.js (issue #13, Benchmarks)", "",
            f"`bench/quant_run.sh --sweeps {sweeps} --runs-ssd {runs_ssd} --runs-net {runs_net} --fill {fill}"
            f"{'' if profile else ' --no-profile'} --record`.", "",
            f"Machine: {cpu} (cpu family/model {fam}), {os.cpu_count()} cores, Linux {platform.release()},"
            f" {sh('cc --version | head -n 1')}, Node {sh('node --version')}, @litertjs/core"
            f" {litert_version()} (glue {glue});"
            f" revision {git}{dirty}; shared machine, load average {load_start[0]:.2f} -> {load_end[0]:.2f}.", "",
            f"Models: `build/bench/qrun/ssd.tflite` ({os.path.getsize(MODELS['ssd'][0]):,} bytes, sha256"
            f" {sh('sha256sum build/bench/qrun/ssd.tflite | cut -c1-16')}...: {MODELS['ssd'][0]} is"
            " build/quant/ssd_mobilenet_v2_quant.tflite without TFLite_Detection_PostProcess), `build/bench/qrun/q_net.tflite`"
            f" ({os.path.getsize(MODELS['q_net'][0]):,} bytes, tests/tools/make_quant_models.c).", ""]
    path = f"bench/results/{datetime.date.today().isoformat()}-quant-run.md"
    with open(path, "w") as fo:
        fo.write("\n".join(head) + "\n" + text + "\n")
    print(f"\nrecorded {path}")
PY
