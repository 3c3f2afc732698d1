#!/usr/bin/env bash
# bench/run.sh -- how fast and how lean are `litegpu info` and `check` on the largest model we have?
#
#   bench/run.sh [--record] [-n N] [MODEL...]
#
# Default model: pose_landmark_heavy.tflite (27.7 MB, the largest MediaPipe model in the npm
# registry's @mediapipe packages), fetched once into build/bench/ with `npm pack` and checked
# against its sha256 (bench/lib.sh). For each model, after one warm-up run of each command (so
# every run reads the file from the page cache), N (default 11) rounds run, interleaved and in
# rotating order:
#     build/litegpu info MODEL                      (reads, validates, summarizes, hashes)
#     sha256sum MODEL                               (the floor: read every byte once)
#     build/litegpu convert MODEL -o OUT --force    (read + write + fsync)
# and each run's wall time and peak RSS are measured (wait4 rusage; no `time` package needed).
# Prints median and p90 wall time, median peak RSS, info/sha256sum time ratio and info RSS
# against the file size. --record also writes bench/results/<date>-info.json (commit it as
# evidence). Never part of `make test`; `make bench` runs it.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
. bench/lib.sh

record=0 n=11 models=()
while [ $# -gt 0 ]; do
    case "$1" in
        --record) record=1 ;;
        -n) n="$2"; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        -*) echo "bench: unknown option $1" >&2; exit 2 ;;
        *) models+=("$1") ;;
    esac
    shift
done

command -v python3 >/dev/null || die "python3 not found"
command -v sha256sum >/dev/null || die "sha256sum not found"

mkdir -p build/bench
if [ "${#models[@]}" -eq 0 ]; then
    fetch_heavy || exit 1
    models=("$HEAVY")
fi

make -s build/litegpu || die "build failed"

python3 - "$record" "$n" "${models[@]}" <<'PY'
import datetime, json, os, platform, subprocess, sys, time

record, n, models = sys.argv[1] == "1", int(sys.argv[2]), sys.argv[3:]
cli = "build/litegpu"
out = "build/bench/convert-out.tflite"

def run(argv):
    """Wall seconds and peak RSS (KiB) of one run; stdout discarded, stderr kept on failure."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"bench: {' '.join(argv)} exited {code}: {err.strip()}")
    return wall, ru.ru_maxrss

def pct(xs, q):
    s = sorted(xs)
    k = max(0, min(len(s) - 1, -(-int(q * 100) * len(s) // 100) - 1))  # nearest rank
    return s[k]

def median(xs):
    s = sorted(xs)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2

def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, shell=True).stdout.strip()
    except OSError:
        return ""

results = []
for model in models:
    size = os.path.getsize(model)
    cmds = {
        "info": [cli, "info", model],
        "sha256sum": ["sha256sum", model],
        "convert": [cli, "convert", model, "-o", out, "--force"],
        "check": [cli, "check", model],
    }
    names = list(cmds)
    for name in names:  # warm-up: page cache, dynamic loader
        run(cmds[name])
    samples = {name: [] for name in names}
    for i in range(n):  # interleaved, rotating order
        for j in range(len(names)):
            name = names[(i + j) % len(names)]
            samples[name].append(run(cmds[name]))
    if os.path.exists(out):
        os.unlink(out)
    r = {"model": os.path.basename(model), "bytes": size, "runs": n, "commands": {}}
    for name in names:
        walls = [w for w, _ in samples[name]]
        rss = [m for _, m in samples[name]]
        r["commands"][name] = {
            "argv": " ".join(cmds[name]),
            "wall_ms_median": round(median(walls) * 1e3, 2),
            "wall_ms_p90": round(pct(walls, 0.9) * 1e3, 2),
            "wall_ms_min": round(min(walls) * 1e3, 2),
            "rss_kib_median": int(median(rss)),
            "rss_kib_max": max(rss),
        }
    c = r["commands"]
    r["ratios"] = {
        "info_over_sha256sum_time": round(c["info"]["wall_ms_median"] / c["sha256sum"]["wall_ms_median"], 3),
        "info_rss_over_file_size": round(c["info"]["rss_kib_median"] * 1024 / size, 3),
        "convert_over_sha256sum_time": round(c["convert"]["wall_ms_median"] / c["sha256sum"]["wall_ms_median"], 3),
        "convert_rss_over_file_size": round(c["convert"]["rss_kib_median"] * 1024 / size, 3),
        "check_over_sha256sum_time": round(c["check"]["wall_ms_median"] / c["sha256sum"]["wall_ms_median"], 3),
    }
    results.append(r)

    print(f"\n{r['model']}  ({size / 1e6:.1f} MB, {n} interleaved runs after one warm-up each)")
    print(f"  {'command':<12}{'median ms':>11}{'p90 ms':>10}{'min ms':>10}{'peak RSS MiB':>14}")
    for name in names:
        x = c[name]
        print(f"  {name:<12}{x['wall_ms_median']:>11.1f}{x['wall_ms_p90']:>10.1f}{x['wall_ms_min']:>10.1f}"
              f"{x['rss_kib_median'] / 1024:>14.1f}")
    q = r["ratios"]
    print(f"  info / sha256sum time: {q['info_over_sha256sum_time']:.2f}x;"
          f" info peak RSS / file size: {q['info_rss_over_file_size']:.2f}")
    print(f"  check / sha256sum time: {q['check_over_sha256sum_time']:.2f}x (check touches no weights)")
    print(f"  convert / sha256sum time: {q['convert_over_sha256sum_time']:.2f}x;"
          f" convert peak RSS / file size: {q['convert_rss_over_file_size']:.2f}")

if record:
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git": sh("git rev-parse --short HEAD 2>/dev/null") or "unknown",
        "git_dirty": bool(sh("git status --porcelain --untracked-files=no 2>/dev/null")),
        "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"),
        "nproc": os.cpu_count(),
        "kernel": platform.release(),
        "loadavg_at_end": round(os.getloadavg()[0], 2),
        "cc": sh("cc --version | head -n 1"),
        "litegpu": sh(f"{cli} --version"),
    }
    os.makedirs("bench/results", exist_ok=True)
    path = f"bench/results/{datetime.date.today().isoformat()}-info.json"
    with open(path, "w") as f:
        json.dump({"env": env, "results": results}, f, indent=2)
        f.write("\n")
    print(f"\nrecorded {path}")
PY
