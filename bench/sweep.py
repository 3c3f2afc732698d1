"""Shared by the bench scripts' Python parts (bench/speed.sh, bench/onnx_vs_ort.sh): one tool
run -> its JSON report, medians, and the interleaved sweeps (every sweep rotates the tools'
order per model, so no tool always runs on a warmer or cooler machine)."""
import json, os, subprocess, sys, time


def run(argv):
    """One tool run -> its JSON report. Started via sh (fork from a small process), so that the
    tool's own peak RSS is not floored at this Python process's RSS."""
    p = subprocess.run(["sh", "-c", '"$@" & wait $!', "sh"] + argv, capture_output=True, text=True)
    try:
        r = json.loads(p.stdout) if p.returncode == 0 else None  # one JSON object, on one line or many
    except ValueError:
        r = None
    if not isinstance(r, dict) or not r.get("ok", True):
        err = r.get("error") if isinstance(r, dict) else (p.stderr.strip().splitlines() or ["no JSON report"])[-1]
        return {"ok": False, "error": f"exit {p.returncode}: {err}"}
    r.setdefault("ok", True)
    return r


def median(xs):
    s = sorted(xs)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, shell=True).stdout.strip()
    except OSError:
        return ""


def rss(r):
    """Peak RSS bytes reported by the tool itself."""
    return r["memory"]["peak_rss_bytes"] if "memory" in r else r.get("process_peak_rss_bytes")


def interleaved(models, names, tools, sweeps, width=36):
    """Run every tool on every model, `sweeps` times, rotating the order. Returns (samples,
    sweep_load, elapsed, load_start, load_end); samples[model][name] is the list of reports."""
    load_start = os.getloadavg()
    samples = {m: {t: [] for t in names} for m in models}
    sweep_load = []
    t_start = time.time()
    for s in range(sweeps):
        for mi, model in enumerate(models):
            cmds = tools(model)
            k = (s + mi) % len(names)
            for name in names[k:] + names[:k]:
                r = run(cmds[name])
                samples[model][name].append(r)
                msg = f"{r['median_ms']:.2f} ms" if r["ok"] else "FAILED " + r["error"]
                print(f"  sweep {s + 1}/{sweeps}  {os.path.basename(model):<{width}} {name:<8} {msg}", file=sys.stderr)
        sweep_load.append(round(os.getloadavg()[0], 2))
        print(f"  sweep {s + 1}/{sweeps} done, load average {sweep_load[-1]:.2f}", file=sys.stderr)
    return samples, sweep_load, time.time() - t_start, load_start, os.getloadavg()
