#!/usr/bin/env bash
# bench/quantize.sh -- what does `litegpu quantize` cost on the largest model we have?
#
#   bench/quantize.sh [--record] [--runs N] [--no-phases]
#
# Issue #13's benchmark "quantize time on the largest model". The model: torchvision resnet50
# (102 MB of fp32 weights), exported by bench/onnx_convert.sh --export resnet50 into
# build/bench/resnet50.onnx (reused when there) and converted here with `litegpu convert` to
# build/bench/resnet50.tflite (102 MB): the largest float model at hand (the ONNX fixtures in
# tests/fixtures/onnx are < 1 MB, the corpus' largest 27.7 MB).
#
# Modes: fp16, int8-weights, int4-weights, and int8-dynamic / int8-static when they are
# implemented: a mode is timed only if `litegpu quantize --help`'s usage line lists it after
# --mode (today: "--mode fp16|int8-weights|int4-weights"); otherwise the script prints a
# "skip" line. int8-static gets --calib build/bench/quant-calib (8 .npy inputs [1,3,224,224],
# uniform [0,1), written here by a fixed-seed generator; the folder is made in any case).
#
# One round = these commands, each a fresh process, in an order that rotates every round, after
# one warm-up round (the model is then in the page cache):
#     sha256sum resnet50.tflite                       (reference 1: reading every byte once)
#     litegpu run resnet50.tflite --threads 1         (reference 2: one fp32 inference, load and
#                                                      prepare included)
#     litegpu quantize resnet50.tflite -o OUT --mode M --force     (per mode)
# The CLI has no flag to skip its parity runs, so the verb is timed whole: read, the rewrite,
# the parity runs against the float model (3 inputs: pattern, random:1, random:2), check before
# and after, write + fsync. N (default 5) rounds; wall time spawn to exit, CPU time (user +
# system) and peak RSS from /usr/bin/time. Reported: median and min seconds, median CPU seconds,
# quantize / sha256sum and quantize / run (median over median; for run also in CPU time), the
# per-round ratios (their spread shows the noise), median peak RSS and peak RSS / file size.
#
# Phases (unless --no-phases): bench/quant_phases.c, built here against build/liblitegpu.a,
# runs the CLI's steps through the API with lg_quant_options.no_measure for the rewrite alone
# (3 runs per mode, medians): read, the float model's interpreter (the CLI makes one for the
# inputs' shapes), the rewrite (checks included), the whole lg_quantize, write.
# --record writes bench/results/<date>-quantize.md. Never part of `make test`.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
. bench/lib.sh

record=0 runs=5 phases=1
while [ $# -gt 0 ]; do
    case "$1" in
        --record) record=1 ;;
        --runs|-n) runs="$2"; shift ;;
        --no-phases) phases=0 ;;
        -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
case "$runs" in *[!0-9]*|""|0) die "--runs takes a positive integer" ;; esac
[ -x /usr/bin/time ] || die "/usr/bin/time not found (Debian package time)"
command -v sha256sum >/dev/null || die "sha256sum not found"
make -s build/litegpu build/liblitegpu.a || die "build failed"
mkdir -p build/bench && cp build/litegpu build/bench/litegpu-quantize || die "cannot copy build/litegpu"
LG=build/bench/litegpu-quantize
[ -f build/bench/resnet50.onnx ] || bench/onnx_convert.sh --export resnet50 || die "cannot export resnet50"
model=build/bench/resnet50.tflite
"$LG" convert build/bench/resnet50.onnx -o "$model" --force >/dev/null || die "cannot convert resnet50.onnx"

# the modes quantize implements: those its usage line lists after --mode
listed=" $("$LG" quantize --help | sed -n '1s/.*--mode \([^ ]*\).*/\1/p' | tr '|' ' ') "
modes=()
for m in fp16 int8-weights int4-weights int8-dynamic int8-static; do
    case "$listed" in
        *" $m "*) modes+=("$m") ;;
        *) echo "bench: skip --mode $m: not listed by \`litegpu quantize --help\` (usage:$listed)" ;;
    esac
done
[ ${#modes[@]} -gt 0 ] || die "quantize lists no mode"

# the calibration folder for int8-static: 8 inputs [1,3,224,224] float32, uniform [0, 1)
calib=build/bench/quant-calib
python3 - "$calib" <<'PY' || die "cannot write $calib"
import array, os, random, sys
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
shape = (1, 3, 224, 224)
n = 1 * 3 * 224 * 224
for k in range(8):
    path = os.path.join(d, f"calib_{k}.npy")
    if os.path.exists(path):
        continue
    rng = random.Random(1000 + k)
    head = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % ", ".join(map(str, shape))
    head += " " * (63 - (10 + len(head)) % 64) + "\n"          # data 64-byte aligned
    data = array.array("f", (rng.random() for _ in range(n)))
    if sys.byteorder != "little":
        data.byteswap()
    with open(path + ".tmp", "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(head).to_bytes(2, "little") + head.encode("latin1") + data.tobytes())
    os.replace(path + ".tmp", path)
PY

if [ "$phases" = 1 ]; then
    cc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude -o build/bench/quant_phases bench/quant_phases.c \
        build/liblitegpu.a -lpthread -lm || die "cannot build build/bench/quant_phases"
fi

python3 - "$record" "$runs" "$model" "$phases" "$LG" "$calib" "${modes[@]}" <<'PY'
import datetime, json, os, platform, subprocess, sys, time

record, runs, model, phases, lg, calib = sys.argv[1] == "1", int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1", sys.argv[5], sys.argv[6]
modes = sys.argv[7:]
def qcmd(m):
    c = [lg, "quantize", model, "-o", f"build/bench/quant-out-{m}.tflite", "--mode", m, "--force"]
    return c + (["--calib", calib] if m == "int8-static" else [])
CMDS = {"sha256sum": ["sha256sum", model], "run": [lg, "run", model, "--threads", "1"]}
for m in modes:
    CMDS[f"quantize {m}"] = qcmd(m)

def run(argv):
    """-> (wall s, peak RSS bytes, CPU s = user + system), or None when the command fails (printed)."""
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "LGTIME %M %U %S"] + argv, capture_output=True, text=True)
    s = time.perf_counter() - t
    line = [x for x in p.stderr.splitlines() if x.startswith("LGTIME ")]
    if p.returncode != 0 or not line:
        msg = [x for x in p.stderr.splitlines() if not x.startswith("LGTIME")]
        print(f"bench: {' '.join(argv)} failed (exit {p.returncode}): {' '.join(msg)[-300:]}", file=sys.stderr)
        return None
    f = line[-1].split()
    return s, int(f[1]) * 1024, float(f[2]) + float(f[3])

def median(xs):
    s = sorted(xs)
    k = len(s) // 2
    return s[k] if len(s) % 2 else (s[k - 1] + s[k]) / 2

def sh(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, shell=True).stdout.strip()

size = os.path.getsize(model)
load_start = os.getloadavg()
t_start = time.time()
for n in list(CMDS):  # warm-up round; a mode that fails here is skipped (it prints why)
    if run(CMDS[n]) is None:
        if not n.startswith("quantize "):
            sys.exit(f"bench: the reference {n} failed")
        print(f"bench: skip {n}: it failed in the warm-up round", file=sys.stderr)
        del CMDS[n]
NAMES = list(CMDS)
samples = {n: [] for n in NAMES}
for r in range(runs):
    k = r % len(NAMES)
    for n in NAMES[k:] + NAMES[:k]:
        res = run(CMDS[n])
        if res is None:
            sys.exit(f"bench: {n} failed in round {r + 1}")
        samples[n].append(res)
        print(f"  round {r + 1}/{runs}  {n:<24} {res[0]:7.3f} s {res[1] / 1048576:7.1f} MiB  CPU {res[2]:.2f} s", file=sys.stderr)

res = {}
for n in NAMES:
    ts = [x[0] for x in samples[n]]
    ms = [x[1] for x in samples[n]]
    cs = [x[2] for x in samples[n]]
    res[n] = {"argv": " ".join(CMDS[n]), "s": ts, "median_s": median(ts), "min_s": min(ts), "peak_rss": median(ms),
              "cpu_s": median(cs)}
for n in NAMES:
    for ref in ("sha256sum", "run"):
        res[n][f"x_{ref}"] = res[n]["median_s"] / res[ref]["median_s"]
        res[n][f"x_{ref}_rounds"] = [a[0] / b[0] for a, b in zip(samples[n], samples[ref])]
        res[n][f"x_{ref}_cpu"] = res[n]["cpu_s"] / res[ref]["cpu_s"] if res[ref]["cpu_s"] > 0 else float("nan")
    res[n]["rss_over_file"] = res[n]["peak_rss"] / size

phase_rows = {}
if phases:
    for m in modes:
        if f"quantize {m}" not in CMDS:
            continue
        argv = ["build/bench/quant_phases", model, f"build/bench/quant-phases-{m}.tflite", m]
        if m == "int8-static":
            argv += ["--calib", calib]
        reps = []
        for _ in range(3):
            # through sh: a child forked from Python inherits Python's ru_maxrss (bench/README.md)
            p = subprocess.run(["sh", "-c", '"$@" & wait $!', "sh"] + argv, capture_output=True, text=True)
            if p.returncode:
                sys.exit(f"bench: quant_phases {m} failed: {p.stderr.strip()}")
            reps.append([json.loads(x) for x in p.stdout.splitlines()])
        phase_rows[m] = [{"step": st["step"], "ms": median([r[i]["ms"] for r in reps]),
                          "rss_mib": median([r[i]["rss_mib"] for r in reps]),
                          "peak_mib": median([r[i]["peak_mib"] for r in reps])} for i, st in enumerate(reps[0])]
elapsed = time.time() - t_start
load_end = os.getloadavg()

out = []
P = out.append
P(f"Model: `{model}` ({size:,} bytes = {size / 1048576:.1f} MiB, sha256 {sh(f'sha256sum {model} | cut -c1-16')}...),"
  f" converted from build/bench/resnet50.onnx (sha256 {sh('sha256sum build/bench/resnet50.onnx | cut -c1-16')}...).")
P("")
P(f"{runs} interleaved rounds (rotating order) after a warm-up round; each command a fresh process; wall time spawn to"
  " exit, and CPU time (user + system), from `/usr/bin/time -f '%M %U %S'` with the peak RSS; medians."
  " x sha256sum and x run: this median wall time over the reference's; x run CPU: the same with CPU times"
  " (less sensitive to waiting for a core on a loaded machine); per round: the wall ratio within each round.")
P("")
W = max(15, 6 * runs)
P(f"| command                | median s | min s | CPU s | x sha256sum | x run | x run CPU | {'x run per round':<{W}} | peak RSS MiB | RSS / file |")
P(f"|------------------------|---------:|------:|------:|------------:|------:|----------:|{'-' * (W + 2)}|-------------:|-----------:|")
for n in NAMES:
    r = res[n]
    pr = ", ".join(f"{x:.1f}" for x in r["x_run_rounds"])
    P(f"| {n:<22} | {r['median_s']:8.3f} | {r['min_s']:5.3f} | {r['cpu_s']:5.2f} | {r['x_sha256sum']:11.2f} | {r['x_run']:5.2f} |"
      f" {r['x_run_cpu']:9.2f} | {pr:<{W}} | {r['peak_rss'] / 1048576:12.1f} | {r['rss_over_file']:10.2f} |")
P("")
P("Commands:")
P("")
for n in NAMES:
    P(f"    {res[n]['argv']}")
if phase_rows:
    P("")
    P("Phases (`build/bench/quant_phases MODEL OUT MODE`, median of 3 runs): step, wall ms, resident MiB after it,"
      " peak MiB so far. \"measure\" = quantize - rewrite.")
    for m, rows in phase_rows.items():
        P("")
        P(f"`{m}`:")
        P("")
        P("| step                                                     |    ms | RSS MiB | peak MiB |")
        P("|----------------------------------------------------------|------:|--------:|---------:|")
        for p in rows:
            P(f"| {p['step']:<56} | {p['ms']:5.0f} | {p['rss_mib']:7.1f} | {p['peak_mib']:8.1f} |")
        rw = [p["ms"] for p in rows if p["step"].startswith("rewrite")][0]
        qa = [p["ms"] for p in rows if p["step"].startswith("quantize")][0]
        P(f"| measure (quantize - rewrite)                             | {qa - rw:5.0f} |         |          |")
P("")
P(f"{elapsed:.0f} s; load average {load_start[0]:.2f} at the start, {load_end[0]:.2f} at the end ({os.cpu_count()} CPUs)")
text = "\n".join(out)
print("\n" + text)

if record:
    cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip()
    fam = sh("grep -m2 -E '^(cpu family|model)\\s' /proc/cpuinfo | cut -d: -f2 | tr -d ' ' | paste -sd/")
    git = sh("git rev-parse --short HEAD") or "unknown"
    dirty = " (with uncommitted changes in src/ include/ tools/)" if sh("git status --porcelain --untracked-files=no -- src include tools") else ""
    head = [f"# {datetime.date.today().isoformat()}: `litegpu quantize` time and memory (issue #13, Benchmarks)", "",
            f"`bench/quantize.sh --runs {runs}{'' if phases else ' --no-phases'} --record`.", "",
            f"Machine: {cpu} (cpu family/model {fam}), {os.cpu_count()} cores, Linux {platform.release()},"
            f" {sh('cc --version | head -n 1')}, {sh('sha256sum --version | head -n 1')}; revision {git}{dirty};"
            f" shared machine, load average {load_start[0]:.2f} -> {load_end[0]:.2f}.", ""]
    path = f"bench/results/{datetime.date.today().isoformat()}-quantize.md"
    with open(path, "w") as fo:
        fo.write("\n".join(head) + "\n" + text + "\n")
    print(f"\nrecorded {path}")
PY
