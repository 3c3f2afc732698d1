#!/usr/bin/env bash
# Models made by the builder and written by our writer run on LiteRT.js and compute what
# they should:
#  1. tests/tools/make_builder_models.c (public API only, built against build/liblitegpu.a
#     with the Makefile's warning flags) writes ADD + constant, CONV_2D + bias + RELU (SAME),
#     FULLY_CONNECTED + SOFTMAX, and the conv again with external buffers;
#  2. flatc (an independent flatbuffers implementation) parses each file;
#  3. peers/litert_run.js runs each on the `half` and `pattern` inputs;
#  4. a python3 script (no numpy) reads the .npy inputs and outputs, recomputes the expected
#     outputs with plain loops from the same weight formulas, and compares:
#     max |got - want| <= 1e-5 * max |want|.
# Prints PASS/FAIL lines and "builder_litert: N passed, N failed"; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.."
SCHEMA=${SCHEMA:-tests/data/tflite-schema-flatc2.fbs}
FLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Wall -Wextra -Wshadow -Wstrict-prototypes
       -Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wvla -Werror"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
# the reference schema (a copy of TFLite's, tests/data/): one line when missing
if [ ! -f "$SCHEMA" ]; then
    bad "reference schema" "missing $SCHEMA (flatc reads the TFLite schema from tests/data/)"
    echo "builder_litert: $pass passed, $fail failed"
    exit 1
fi
finish() { echo "builder_litert: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }

models=(add_const conv_relu conv_relu_external fc_softmax)

if ! make -s build/liblitegpu.a >"$T/make.log" 2>&1; then
    bad "build liblitegpu.a" "$(tail -n 5 "$T/make.log" | tr '\n' ' ')"; finish
fi
# shellcheck disable=SC2086
if cc $FLAGS -O2 -o "$T/make_builder_models" tests/tools/make_builder_models.c \
      build/liblitegpu.a -lm 2>"$T/cc.log"; then
    ok "build make_builder_models"
else
    bad "build make_builder_models" "$(head -n 5 "$T/cc.log" | tr '\n' ' ')"; finish
fi
mkdir -p "$T/models"
if "$T/make_builder_models" "$T/models" 2>"$T/gen.log"; then ok "write models"
else bad "write models" "$(cat "$T/gen.log")"; finish; fi

files=()
for m in "${models[@]}"; do
    f="$T/models/$m.tflite"
    files+=("$f")
    mkdir -p "$T/json"
    if flatc --json --strict-json --raw-binary -o "$T/json" "$SCHEMA" -- "$f" 2>"$T/flatc.log" &&
       [ -s "$T/json/$m.json" ]; then
        ok "$m flatc parses"
    else
        bad "$m flatc parses" "$(head -n 3 "$T/flatc.log" | tr '\n' ' ')"
    fi
done

node --no-liftoff peers/litert_run.js --fill half,pattern --out "$T/run" "${files[@]}" \
    >"$T/run.jsonl" 2>"$T/run.err"
rc=$?
if [ "$rc" -eq 0 ]; then ok "litert runs all models"
else bad "litert runs all models" "exit $rc: $(grep -v WebGPU "$T/run.err" | head -n 3 | tr '\n' ' ')"; fi

python3 - "$T/run" "${models[@]}" >"$T/check.out" 2>&1 <<'EOF'
import ast, math, os, struct, sys

root, models = sys.argv[1], sys.argv[2:]

def load_npy(path):
    b = open(path, 'rb').read()
    if b[:6] != b'\x93NUMPY':
        raise ValueError('not a .npy file')
    if b[6] == 1:
        hl, off = struct.unpack('<H', b[8:10])[0], 10
    else:
        hl, off = struct.unpack('<I', b[8:12])[0], 12
    hdr = ast.literal_eval(b[off:off + hl].decode('latin1'))
    if hdr['descr'] != '<f4' or hdr['fortran_order']:
        raise ValueError('unexpected dtype %r' % hdr['descr'])
    shape = tuple(hdr['shape'])
    n = 1
    for d in shape:
        n *= d
    data = struct.unpack('<%df' % n, b[off + hl:off + hl + 4 * n])
    return shape, list(data)

def add_const(x):
    c = [0.5, -1.25, 2.0]
    return (1, 2, 2, 3), [x[i] + c[i % 3] for i in range(12)]

def conv_relu(x):
    # x NHWC [1,3,3,2], w OHWI [4,3,3,2], SAME padding (1 on each side), stride 1
    w = [((i * 37) % 23 - 11) / 8.0 for i in range(4 * 3 * 3 * 2)]
    b = [o / 4.0 - 0.375 for o in range(4)]
    y = []
    for oy in range(3):
        for ox in range(3):
            for o in range(4):
                acc = b[o]
                for ky in range(3):
                    for kx in range(3):
                        iy, ix = oy + ky - 1, ox + kx - 1
                        if not (0 <= iy < 3 and 0 <= ix < 3):
                            continue
                        for i in range(2):
                            acc += x[(iy * 3 + ix) * 2 + i] * w[((o * 3 + ky) * 3 + kx) * 2 + i]
                y.append(max(acc, 0.0))
    return (1, 3, 3, 4), y

def fc_softmax(x):
    W = [((i * 29) % 17 - 8) / 16.0 for i in range(5 * 8)]
    b = [(o - 2) / 8.0 for o in range(5)]
    h = [b[o] + sum(x[i] * W[o * 8 + i] for i in range(8)) for o in range(5)]
    mx = max(h)
    e = [math.exp(v - mx) for v in h]
    s = sum(e)
    return (1, 5), [v / s for v in e]

expected = {'add_const': add_const, 'conv_relu': conv_relu,
            'conv_relu_external': conv_relu, 'fc_softmax': fc_softmax}
for m in models:
    for fill in ('half', 'pattern'):
        name = '%s %s' % (m, fill)
        d = os.path.join(root, m, fill)
        try:
            _, x = load_npy(os.path.join(d, 'input_0.npy'))
            shape, got = load_npy(os.path.join(d, 'output_0.npy'))
        except Exception as ex:
            print('FAIL %s: %s' % (name, ex))
            continue
        wshape, want = expected[m](x)
        if shape != wshape:
            print('FAIL %s: output shape %s, expected %s' % (name, shape, wshape))
            continue
        scale = max(abs(v) for v in want)
        err = max(abs(g - w) for g, w in zip(got, want))
        if err <= 1e-5 * max(scale, 1e-30) and all(math.isfinite(g) for g in got):
            print('PASS %s (max abs diff %.3g, scale %.3g)' % (name, err, scale))
        else:
            print('FAIL %s: max abs diff %.3g, scale %.3g' % (name, err, scale))
EOF
cat "$T/check.out"
pass=$((pass + $(grep -c '^PASS' "$T/check.out")))
fail=$((fail + $(grep -c '^FAIL' "$T/check.out")))
want=$(( ${#models[@]} * 2 ))
got=$(grep -c '^PASS\|^FAIL' "$T/check.out")
if [ "$got" -ne "$want" ]; then bad "checker ran" "$(tail -n 3 "$T/check.out" | tr '\n' ' ')"; fi
finish
