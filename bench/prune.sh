#!/usr/bin/env bash
# bench/prune.sh -- does pruning make the deployed model faster? (issue #14's benchmark; the
# handbook's warning: parameter counts do not predict latency.)
#
#   bench/prune.sh [--record] [--rounds N]
#
# Models: RefactorNet (tests/fixtures/refactor, FFN 96 -> 64 / 48 / 32 in every block), the
# converted mobilenet_v2 and resnet_2stage fixtures (tests/fixtures/onnx, every prunable conv
# group at --ratio 0.25 and 0.5, each also with --round-to 8: widths a multiple of 8, as SIMD
# kernels like). Each candidate is written by `litegpu prune` (magnitude importance).
# Timing: `litegpu bench --runs 50 --warmup 10 --threads 1` (the reference interpreter) and
# LiteRT.js CPU (peers/litert_bench.js, wasm + XNNPACK, one thread, --runs 50), the original
# and its candidates measured in rotating order, N rounds (default 3); reported: the median over
# rounds of each tool's median ms, and after / before ratios per tool. Parameters are the
# report's n_params (lg_model_learned_params). Never part of `make test`.
# --record writes bench/results/<date>-prune.md.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
. bench/lib.sh
record=0; rounds=3
while [ $# -gt 0 ]; do
    case "$1" in
        --record) record=1 ;;
        --rounds) rounds="$2"; shift ;;
        *) die "unknown option $1 (usage: bench/prune.sh [--record] [--rounds N])" ;;
    esac
    shift
done
LG=build/litegpu
[ -x "$LG" ] || die "$LG not built (make)"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

# name|source|prune args ("" = the original)
cases=(
    "refactornet|tests/fixtures/refactor/refactornet.onnx|"
    "refactornet ffn 64|tests/fixtures/refactor/refactornet.onnx|--ffn --keep 64"
    "refactornet ffn 48|tests/fixtures/refactor/refactornet.onnx|--ffn --keep 48"
    "refactornet ffn 32|tests/fixtures/refactor/refactornet.onnx|--ffn --keep 32"
    "mobilenet_v2|tests/fixtures/onnx/mobilenet_v2.op17.onnx|"
    "mobilenet_v2 conv 0.25|tests/fixtures/onnx/mobilenet_v2.op17.onnx|--conv --ratio 0.25"
    "mobilenet_v2 conv 0.25 round 8|tests/fixtures/onnx/mobilenet_v2.op17.onnx|--conv --ratio 0.25 --round-to 8"
    "mobilenet_v2 conv 0.5|tests/fixtures/onnx/mobilenet_v2.op17.onnx|--conv --ratio 0.5"
    "mobilenet_v2 conv 0.5 round 8|tests/fixtures/onnx/mobilenet_v2.op17.onnx|--conv --ratio 0.5 --round-to 8"
    "resnet_2stage|tests/fixtures/onnx/resnet_2stage.op17.onnx|"
    "resnet_2stage conv 0.25|tests/fixtures/onnx/resnet_2stage.op17.onnx|--conv --ratio 0.25"
    "resnet_2stage conv 0.5|tests/fixtures/onnx/resnet_2stage.op17.onnx|--conv --ratio 0.5"
    "resnet_2stage conv 0.5 round 8|tests/fixtures/onnx/resnet_2stage.op17.onnx|--conv --ratio 0.5 --round-to 8"
)
files=(); names=(); params=(); bases=()
i=0
for c in "${cases[@]}"; do
    IFS='|' read -r name src args <<<"$c"
    base="$T/$(basename "$src" .onnx).tflite"
    [ -f "$base" ] || "$LG" convert "$src" -o "$base" >/dev/null || die "convert $src failed"
    if [ -z "$args" ]; then
        f="$base"
        p="?"   # the next candidate's n_params_before
    else
        f="$T/c$i.tflite"
        # shellcheck disable=SC2086
        "$LG" prune "$base" -o "$f" $args --json >"$T/c$i.json" || die "prune $name failed"
        p=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["n_params_after"])' "$T/c$i.json")
        before=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["n_params_before"])' "$T/c$i.json")
        for q in "${!files[@]}"; do [ "${files[$q]}" = "$base" ] && params[$q]=$before; done
    fi
    files+=("$f"); names+=("$name"); params+=("$p"); bases+=("$base")
    i=$((i + 1))
done

n=${#files[@]}
for r in $(seq 1 "$rounds"); do
    for k in $(seq 0 $((n - 1))); do
        j=$(( (k + r) % n ))
        "$LG" bench "${files[$j]}" --runs 50 --warmup 10 --threads 1 --json |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])' >>"$T/lg.$j"
    done
    # LiteRT.js: all models in one process, rotated
    order=(); for k in $(seq 0 $((n - 1))); do order+=("${files[$(( (k + r) % n ))]}"); done
    node --no-liftoff peers/litert_bench.js --runs 50 "${order[@]}" 2>/dev/null >"$T/js.$r" || true
    python3 - "$T/js.$r" "$T" "${files[@]}" <<'PY'
import json, sys
lines, tmp, files = sys.argv[1], sys.argv[2], sys.argv[3:]
for line in open(lines):
    d = json.loads(line)
    if d.get("ok"):
        k = files.index(d["model"])
        open("%s/js.m%d" % (tmp, k), "a").write("%s\n" % d["median_ms"])
PY
done

python3 - "$T" "$rounds" "${names[@]}" -- "${params[@]}" -- "${bases[@]}" -- "${files[@]}" >"$T/table.md" <<'PY'
import os, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
rest = sys.argv[3:]
def take():
    global rest
    i = rest.index("--") if "--" in rest else len(rest)
    v, rest = rest[:i], rest[i + 1:]
    return v
names, params, bases, files = take(), take(), take(), take()
def med(path):
    if not os.path.exists(path):
        return None
    return statistics.median(float(x) for x in open(path))
lg = [med("%s/lg.%d" % (tmp, k)) for k in range(len(files))]
js = [med("%s/js.m%d" % (tmp, k)) for k in range(len(files))]
print("| model | n_params | params after/before | litegpu ms | after/before | LiteRT.js ms | after/before |")
print("|---|---:|---:|---:|---:|---:|---:|")
for k, name in enumerate(names):
    b = files.index(bases[k])
    def ratio(v):
        return "%.2fx" % (v[k] / v[b]) if v[k] and v[b] else "n/a"
    def ms(v):
        return "%.4f" % v[k] if v[k] else "n/a"
    pr = "%.2fx" % (int(params[k]) / int(params[b]))
    print("| %s | %s | %s | %s | %s | %s | %s |" % (name, params[k], pr, ms(lg), ratio(lg), ms(js), ratio(js)))
print()
print("Medians over %d rounds of each tool's median of 50 timed runs, one thread." % rounds)
PY
cat "$T/table.md"
if [ "$record" = 1 ]; then
    out="bench/results/$(date +%Y-%m-%d)-prune.md"
    {
        echo "# prune: latency before and after (bench/prune.sh, $(date -u +%Y-%m-%dT%H:%MZ))"
        echo
        echo "Host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)."
        echo
        cat "$T/table.md"
    } >"$out"
    echo "bench: wrote $out"
fi
