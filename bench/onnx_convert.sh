#!/usr/bin/env bash
# bench/onnx_convert.sh -- how fast and how lean is `litegpu convert X.onnx`, against sha256sum?
#
#   bench/onnx_convert.sh [--record] [--runs N] [--model NAME] [--no-phases]
#   bench/onnx_convert.sh --export NAME...      # only export build/bench/NAME.onnx (used by
#                                               # bench/onnx_vs_ort.sh too)
#
# Issue #10's goal: convert time <= 3x `sha256sum` of the same .onnx, peak RSS <= 1.5x its size.
# The model (default resnet50: the largest torchvision classifier we export, 102 MB) is exported
# here, at bench time, never committed: torchvision NAME(weights=None) with torch seeded by
# crc32(NAME), eval(), input 1x3x224x224, opset 17, torch.onnx.export's constant folding, with
# Debian's /usr/bin/python3 (python3-torch 1.13, python3-torchvision 0.14). Models: resnet18,
# resnet50, mobilenet_v2, mobilenet_v3_large, efficientnet_b0. An existing build/bench/NAME.onnx
# is reused (delete it to re-export; the JSON records its sha256).
#
# One round = these commands, each a fresh process, in an order that rotates every round:
#     sha256sum NAME.onnx                                                  (the floor)
#     litegpu convert NAME.onnx -o OUT --force                             (read, import with the
#                                              exact passes inside, no parity runs; write + fsync)
#     litegpu convert NAME.onnx -o OUT --force --optimize --no-prove       (the pipeline again)
#     litegpu convert NAME.onnx -o OUT --force --optimize                  (again, with parity runs)
# after one warm-up round (the .onnx is then in the page cache). N (default 5) rounds; wall time
# and peak RSS come from /usr/bin/time -f '%e %M' (the child's ru_maxrss; /usr/bin/time is a small
# process, so the figure is not floored at Python's RSS). Reported: median and min wall time,
# median peak RSS, the ratios convert/sha256sum (time) and peak RSS/file size.
# The binary timed is a copy of build/litegpu taken at the start.
#
# Phases (unless --no-phases): a small C program (written to build/bench/convert_phases.c from
# this script and linked against build/liblitegpu.a) does what the CLI does step by step and
# prints each step's wall time, resident set after it and the peak so far; run 3 times, medians.
# --record writes bench/results/<date>-onnx-convert.json. Never part of `make test`.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
. bench/lib.sh

PY=/usr/bin/python3   # Debian's interpreter: the pyenv python3 first on PATH lacks torch

export_models() {
    [ -x "$PY" ] || die "$PY not found (Debian python3 with python3-torch, python3-torchvision)"
    mkdir -p build/bench || die "cannot create build/bench"
    "$PY" - "$@" <<'PY'
import os, sys, zlib
try:
    import torch, torchvision
except ImportError as e:
    sys.exit(f"bench: cannot import torch/torchvision with {sys.executable}: {e}")
NAMES = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0"]
torch.set_num_threads(1)
for name in sys.argv[1:]:
    if name not in NAMES:
        sys.exit(f"bench: unknown model {name} (one of {', '.join(NAMES)})")
    path = f"build/bench/{name}.onnx"
    if os.path.exists(path):
        continue
    torch.manual_seed(zlib.crc32(name.encode()))
    model = getattr(torchvision.models, name)(weights=None).eval()
    x = torch.rand(1, 3, 224, 224)
    tmp = path + ".tmp"
    with torch.no_grad():
        torch.onnx.export(model, x, tmp, opset_version=17, input_names=["input"], output_names=["logits"],
                          do_constant_folding=True)
    os.replace(tmp, path)
    print(f"bench: exported {path} ({os.path.getsize(path)} bytes)", file=sys.stderr)
PY
}

record=0 runs=5 name=resnet50 phases=1
while [ $# -gt 0 ]; do
    case "$1" in
        --export) shift; [ $# -gt 0 ] || die "--export needs model names"; export_models "$@"; exit 0 ;;
        --record) record=1 ;;
        --runs|-n) runs="$2"; shift ;;
        --model) name="$2"; shift ;;
        --no-phases) phases=0 ;;
        -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
case "$runs" in *[!0-9]*|""|0) die "--runs takes a positive integer" ;; esac
[ -x /usr/bin/time ] || die "/usr/bin/time not found (Debian package time)"
command -v sha256sum >/dev/null || die "sha256sum not found"
make -s build/litegpu build/liblitegpu.a || die "build failed"
mkdir -p build/bench && cp build/litegpu build/bench/litegpu-convert || die "cannot copy build/litegpu"
export_models "$name"
model="build/bench/$name.onnx"

if [ "$phases" = 1 ]; then
    cat > build/bench/convert_phases.c <<'EOF'
/* convert_phases.c -- written by bench/onnx_convert.sh: the steps of `litegpu convert X.onnx`
   (tools/cli/cmd_convert.c + convert_onnx.c) one by one, through the library API. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lg/import.h"
#include "lg/lg.h"
#include "lg/onnx.h"
#include "lg/passes.h"
#include "lg/util.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static double rss_mib(void) { /* resident now */
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
        fclose(f);
    }
    return (double)res * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
}
static double peak_mib(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024.0;
}
static double t0;
static void phase(const char *name) {
    printf("{\"phase\":\"%s\",\"ms\":%.2f,\"rss_mib\":%.1f,\"peak_mib\":%.1f}\n", name, now_ms() - t0,
           rss_mib(), peak_mib());
    fflush(stdout);
    t0 = now_ms();
}
static int fail(const char *what, const lg_error *e) {
    fprintf(stderr, "convert_phases: %s: %s\n", what, e->msg);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: convert_phases IN.onnx OUT.tflite\n");
        return 2;
    }
    lg_error err;
    t0 = now_ms();
    /* the CLI first maps the file and hashes it (the digest goes into the metadata) */
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) { perror(argv[1]); return 1; }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) { perror("mmap"); return 1; }
    uint8_t d[32];
    char hex[65];
    lg_sha256(map, (size_t)st.st_size, d);
    lg_hex(d, sizeof d, hex);
    munmap(map, (size_t)st.st_size);
    close(fd);
    phase("map + lg_sha256");
    lg_onnx_model *om = NULL;
    if (lg_onnx_read_file(argv[1], NULL, &om, &err) != LG_OK) return fail("read", &err);
    phase("lg_onnx_read_file");
    lg_import_options io;
    memset(&io, 0, sizeof io);
    io.sha256_hex = hex;
    io.no_optimize = true;
    lg_model *raw = NULL;
    lg_import_report *rep = NULL;
    if (lg_onnx_import(om, &io, &raw, &rep, &err) != LG_OK) return fail("import", &err);
    lg_import_report_free(rep);
    phase("lg_onnx_import, no_optimize (lowering)");
    lg_onnx_model_free(om); /* the CLI frees it right after the import too */
    om = NULL;
    phase("lg_onnx_model_free (the mapped .onnx)");
    /* lg_optimize's first step (passes/runner.c): a deep copy, serialized and read back */
    lg_model *cl = NULL;
    if (lg_model_clone(raw, &cl, &err) != LG_OK) return fail("clone", &err);
    lg_model_free(cl);
    phase("lg_model_clone alone");
    lg_pass_run_options po;
    memset(&po, 0, sizeof po);
    po.n_random = 1;
    lg_model *m = NULL;
    lg_pass_report *pr = NULL;
    if (lg_optimize(raw, &po, &m, &pr, &err) != LG_OK) return fail("optimize", &err);
    lg_pass_report_free(pr);
    lg_model_free(raw);
    phase("lg_optimize, no prove (clone included)");
    if (lg_model_validate(m, &err) != LG_OK) return fail("validate", &err);
    phase("lg_model_validate");
    void *buf = NULL;
    size_t size = 0;
    if (lg_tflite_write_mem(m, NULL, &buf, &size, &err) != LG_OK) return fail("write_mem", &err);
    free(buf);
    phase("lg_tflite_write_mem alone");
    lg_write_options wo = {.force = true};
    if (lg_tflite_write_file(m, argv[2], &wo, &err) != LG_OK) return fail("write", &err);
    phase("lg_tflite_write_file (serialize, write, fsync, rename)");
    lg_model_free(m);
    phase("lg_model_free (the lowered model)");
    /* for comparison: the default import in one call, as the CLI runs it (optimize inside) */
    if (lg_onnx_read_file(argv[1], NULL, &om, &err) != LG_OK) return fail("read", &err);
    t0 = now_ms();
    io.no_optimize = false;
    if (lg_onnx_import(om, &io, &m, &rep, &err) != LG_OK) return fail("import", &err);
    lg_import_report_free(rep);
    phase("lg_onnx_import, default (what the CLI calls)");
    lg_model_free(m);
    lg_onnx_model_free(om);
    return 0;
}
EOF
    cc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude -o build/bench/convert_phases build/bench/convert_phases.c \
        build/liblitegpu.a -lpthread -lm || die "cannot build build/bench/convert_phases"
fi

"$PY" - "$record" "$runs" "$model" "$phases" <<'PY'
import datetime, json, os, platform, subprocess, sys, time

record, runs, model, phases = sys.argv[1] == "1", int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
cli = "build/bench/litegpu-convert"
out = "build/bench/onnx-convert-out.tflite"
CMDS = {
    "sha256sum": ["sha256sum", model],
    "convert": [cli, "convert", model, "-o", out, "--force"],
    "convert --optimize --no-prove": [cli, "convert", model, "-o", out, "--force", "--optimize", "--no-prove"],
    "convert --optimize": [cli, "convert", model, "-o", out, "--force", "--optimize"],
}
NAMES = list(CMDS)

def run(argv):
    """-> (wall ms, peak RSS bytes). Wall time from spawn to exit here (perf_counter: /usr/bin/time's
    %e has 10 ms steps); the peak RSS is the child's, from /usr/bin/time's %M."""
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "LGTIME %M"] + argv, capture_output=True, text=True)
    ms = (time.perf_counter() - t) * 1000
    line = [x for x in p.stderr.splitlines() if x.startswith("LGTIME ")]
    if p.returncode != 0 or not line:
        sys.exit(f"bench: {' '.join(argv)} failed (exit {p.returncode}): {p.stderr.strip()[-300:]}")
    return ms, int(line[-1].split()[1]) * 1024

def median(xs):
    s = sorted(xs)
    k = len(s) // 2
    return s[k] if len(s) % 2 else (s[k - 1] + s[k]) / 2

def sh(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, shell=True).stdout.strip()

size = os.path.getsize(model)
load_start = os.getloadavg()
t_start = time.time()
for n in NAMES:  # warm-up round: the file in the page cache, the binaries loaded once
    run(CMDS[n])
samples = {n: [] for n in NAMES}
for r in range(runs):
    k = r % len(NAMES)
    for n in NAMES[k:] + NAMES[:k]:
        samples[n].append(run(CMDS[n]))
        print(f"  round {r + 1}/{runs}  {n:<30} {samples[n][-1][0]:7.0f} ms {samples[n][-1][1] / 1048576:7.1f} MiB", file=sys.stderr)

res = {}
for n in NAMES:
    ts = [t for t, _ in samples[n]]
    ms = [m for _, m in samples[n]]
    res[n] = {"argv": " ".join(CMDS[n]), "wall_ms": [round(t, 1) for t in ts], "median_ms": round(median(ts), 1),
              "min_ms": round(min(ts), 1), "peak_rss_bytes": int(median(ms))}
base = res["sha256sum"]["median_ms"]
# the ratio within each round too (the commands ran seconds apart there): its spread shows the noise
for n in NAMES:
    res[n]["time_over_sha256sum"] = round(res[n]["median_ms"] / base, 2)
    res[n]["time_over_sha256sum_per_round"] = [round(a[0] / b[0], 2) for a, b in zip(samples[n], samples["sha256sum"])]
    res[n]["rss_over_file"] = round(res[n]["peak_rss_bytes"] / size, 2)

phase_rows = []
if phases:
    reps = []
    for _ in range(3):
        p = subprocess.run(["build/bench/convert_phases", model, "build/bench/onnx-convert-phases.tflite"],
                           capture_output=True, text=True)
        if p.returncode:
            sys.exit(f"bench: convert_phases failed: {p.stderr.strip()}")
        reps.append([json.loads(x) for x in p.stdout.splitlines()])
    for i, ph in enumerate(reps[0]):
        phase_rows.append({"phase": ph["phase"], "ms": round(median([r[i]["ms"] for r in reps]), 1),
                           "ms_each": [r[i]["ms"] for r in reps],
                           "rss_mib": median([r[i]["rss_mib"] for r in reps]),
                           "peak_mib": median([r[i]["peak_mib"] for r in reps])})
elapsed = time.time() - t_start
load_end = os.getloadavg()

print(f"\n{os.path.basename(model)}: {size} bytes ({size / 1048576:.1f} MiB); {runs} interleaved rounds after a warm-up round; medians")
print("| command                         | wall ms (median) | min ms | x sha256sum | x sha256sum per round        | peak RSS MiB | RSS / file |")
print("|---------------------------------|-----------------:|-------:|------------:|------------------------------|-------------:|-----------:|")
for n in NAMES:
    r = res[n]
    pr = ", ".join(f"{x:.2f}" for x in r["time_over_sha256sum_per_round"])
    print(f"| {n:<31} | {r['median_ms']:16.0f} | {r['min_ms']:6.0f} | {r['time_over_sha256sum']:11.2f} | {pr:<28} |"
          f" {r['peak_rss_bytes'] / 1048576:12.1f} | {r['rss_over_file']:10.2f} |")
c = res["convert"]
print(f"goal: convert <= 3x sha256sum: {c['time_over_sha256sum']:.2f}x ({'met' if c['time_over_sha256sum'] <= 3 else 'NOT met'});"
      f" peak RSS <= 1.5x file: {c['rss_over_file']:.2f}x ({'met' if c['rss_over_file'] <= 1.5 else 'NOT met'})")
if phase_rows:
    print("\nphases (build/bench/convert_phases, median of 3): step, wall ms, resident MiB after it, peak MiB so far")
    for p in phase_rows:
        print(f"  {p['phase']:<56} {p['ms']:8.1f} ms {p['rss_mib']:8.1f} {p['peak_mib']:8.1f}")
print(f"{elapsed:.0f} s; load average {load_start[0]:.2f} at start, {load_end[0]:.2f} at end ({os.cpu_count()} CPUs)")

if record:
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git": sh("git rev-parse --short HEAD 2>/dev/null") or "unknown",
        "git_dirty": bool(sh("git status --porcelain --untracked-files=no -- src include tools 2>/dev/null")),
        "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"),
        "cpu_family_model": sh("grep -m2 -E '^(cpu family|model)\\s' /proc/cpuinfo | cut -d: -f2 | tr -d ' ' | paste -sd/"),
        "avx512f": "avx512f" in sh("grep -m1 '^flags' /proc/cpuinfo"),
        "nproc": os.cpu_count(), "kernel": platform.release(),
        "loadavg_at_start": [round(x, 2) for x in load_start], "loadavg_at_end": [round(x, 2) for x in load_end],
        "elapsed_s": round(elapsed), "cc": sh("cc --version | head -n 1"),
        "sha256sum": sh("sha256sum --version | head -n 1"), "filesystem": sh(f"df -T {os.path.dirname(out)} | tail -n 1 | awk '{{print $2}}'"),
        "torch": sh("/usr/bin/python3 -c 'import torch, torchvision; print(torch.__version__, torchvision.__version__)'"),
    }
    doc = {"env": env, "model": {"file": model, "bytes": size, "sha256": sh(f"sha256sum {model} | cut -c1-64")},
           "config": {"runs": runs, "order": "rotating per round, after one warm-up round"},
           "results": res, "phases": phase_rows}
    path = f"bench/results/{datetime.date.today().isoformat()}-onnx-convert.json"
    with open(path, "w") as fo:
        json.dump(doc, fo, indent=2)
        fo.write("\n")
    print(f"\nrecorded {path}")
PY
