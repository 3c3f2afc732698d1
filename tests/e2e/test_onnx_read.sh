#!/usr/bin/env bash
# test_onnx_read.sh -- the ONNX reader (include/lg/onnx.h) on real and hostile files.
#
#  1. Builds tests/tools/onnx_read.c and tests/tools/onnx_sweep.c against the sanitized
#     library objects (build/san/src/**/*.o, ASan + UBSan), like test_malformed.sh.
#  2. Every model.onnx of ONNX's conformance data (Debian libonnx-testdata, under
#     $ONNX_DATA/{node,pytorch-converted,pytorch-operator,simple,real}) reads and validates;
#     counts per folder, any failure named.
#  3. Oracle: for every model (or every ONNX_ORACLE_EVERY-th, default 1), node count, op types,
#     initializer names/types/dims and graph I/O names equal Debian python3-onnx's own parse
#     (/usr/bin/python3: the first python3 on PATH may be a build without Debian's packages).
#  4. The test_data_set_0/{input,output}_*.pb of the tensor-typed cases (same sampling), read with
#     lg_onnx_read_tensor_mem: name, type, dims and the SHA-256 of the data equal those of
#     onnx.numpy_helper.to_array's bytes.
#  5. Hostile external data: absolute path, "..", a symlink out of the folder, offset+length
#     past the end, a 2 GB length, and --no-external: exit 2 with one line naming the model,
#     no sanitizer report; the benign control reads (exit 0).
#  6. onnx_sweep on 4 conformance files: every truncation and ONNX_MUTATIONS (default 10000)
#     seeded mutations each, under ASan/UBSan, every third read again with one allocation
#     failing.
# Prints PASS/FAIL lines and "onnx-read: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."

ONNX_DATA="${ONNX_DATA:-/usr/share/libonnx-testdata/data}"
EVERY="${ONNX_ORACLE_EVERY:-1}"
MUT="${ONNX_MUTATIONS:-10000}"
PY=/usr/bin/python3
passed=0 failed=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
finish() { echo "onnx-read: total $(( $(date +%s) - t0 ))s"; echo "onnx-read: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }
t0=$(date +%s)
export ASAN_OPTIONS="exitcode=86:detect_leaks=1:max_allocation_size_mb=2048:hard_rss_limit_mb=4096:allocator_may_return_null=0"
export UBSAN_OPTIONS="exitcode=87:print_stacktrace=1:halt_on_error=1"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- 1. build
tool=build/san/onnx_read
sweep=build/san/onnx_sweep
if printf '%s\n' \
    "$tool: tests/tools/onnx_read.c \$(SLIB_OBJ)" \
    "	\$(CC) \$(BASEFLAGS) -O1 -g \$(SAN) -o \$@ tests/tools/onnx_read.c \$(SLIB_OBJ) \$(LDLIBS)" \
    "$sweep: tests/tools/onnx_sweep.c tests/tools/onnx_harness.h tests/tools/lg_harness.h \$(SLIB_OBJ)" \
    "	\$(CC) \$(BASEFLAGS) -O1 -g \$(SAN) -o \$@ tests/tools/onnx_sweep.c \$(SLIB_OBJ) \$(LDLIBS)" |
   make -s -f Makefile -f - "$tool" "$sweep" >"$tmp/build.log" 2>&1; then
    pass "build $tool and $sweep (ASan + UBSan)"
else
    tail -n 30 "$tmp/build.log"
    fail "build"
    finish
fi
if [ ! -d "$ONNX_DATA/node" ]; then
    fail "no ONNX conformance data in $ONNX_DATA (Debian package libonnx-testdata; scripts/install-deps.sh)"
    finish
fi

# ---------------------------------------------------------------- 2. conformance models
all="$tmp/models.txt"
: >"$all"
for d in node pytorch-converted pytorch-operator simple real; do
    models=$(find "$ONNX_DATA/$d" -name model.onnx 2>/dev/null | sort)
    n=$(printf '%s' "$models" | grep -c . || true)
    if [ "$n" -eq 0 ]; then
        echo "note: $d: no model.onnx (the Debian package ships only data.json download stubs there)"
        continue
    fi
    printf '%s\n' "$models" >>"$all"
    printf '%s\n' "$models" | xargs "$tool" >"$tmp/$d.out" 2>"$tmp/$d.err"
    rc=$?
    ok=$(grep -c '^OK ' "$tmp/$d.out")
    if [ "$rc" -eq 0 ] && [ "$ok" -eq "$n" ] && [ ! -s "$tmp/$d.err" ]; then
        pass "conformance $d: $ok of $n models read and validate"
    else
        grep -v '^OK ' "$tmp/$d.out" | head -n 20 | sed 's/^/    /'
        head -n 20 "$tmp/$d.err" | sed 's/^/    /'
        fail "conformance $d: $ok of $n models read (exit $rc)"
    fi
done

# ---------------------------------------------------------------- 3. oracle: python3-onnx
if ! "$PY" -c 'import onnx, onnx.numpy_helper' 2>/dev/null; then
    fail "oracle: $PY cannot import onnx (Debian package python3-onnx)"
    finish
fi
awk -v e="$EVERY" '(NR - 1) % e == 0' "$all" >"$tmp/sample.txt"
ns=$(wc -l <"$tmp/sample.txt")
xargs "$tool" --dump <"$tmp/sample.txt" | sed -E 's/^OK (.*): ir .*/== \1/' >"$tmp/ours.txt"
"$PY" - "$tmp/sample.txt" >"$tmp/theirs.txt" 2>"$tmp/py.err" <<'EOF'
import sys, onnx
from onnx import TensorProto
for path in open(sys.argv[1]).read().split():
    m = onnx.load(path)
    g = m.graph
    print("== " + path)
    print("nodes %d" % len(g.node))
    for n in g.node:
        print("op %s:%s" % (n.domain, n.op_type))
    for t in g.initializer:
        print("init %s %s [%s]" % (t.name, TensorProto.DataType.Name(t.data_type), ",".join(str(d) for d in t.dims)))
    for v in g.input:
        print("input " + v.name)
    for v in g.output:
        print("output " + v.name)
EOF
if [ -s "$tmp/theirs.txt" ] && diff "$tmp/theirs.txt" "$tmp/ours.txt" >"$tmp/oracle.diff"; then
    pass "oracle: $ns models: node counts, op types, initializers (name, type, dims), graph I/O names equal python3-onnx's"
else
    head -n 20 "$tmp/oracle.diff" "$tmp/py.err" | sed 's/^/    /'
    fail "oracle: $ns sampled models differ from python3-onnx (diff above: < python, > ours)"
fi

# ---------------------------------------------------------------- 4. serialized tensors
# tensor-typed cases only: sequence/optional cases store other protos in their .pb files, so
# python picks the files whose graph input/output (input_K: the K-th graph input that is not
# an initializer) has a tensor type
"$PY" - "$all" "$EVERY" >"$tmp/pbs.txt" 2>"$tmp/pick.err" <<'EOF'
import sys, os, glob, re, onnx
every = int(sys.argv[2])
files = []
for path in open(sys.argv[1]).read().split():
    g = onnx.load(path).graph
    inits = {t.name for t in g.initializer}
    ios = {"input": [v for v in g.input if v.name not in inits], "output": list(g.output)}
    for pb in sorted(glob.glob(os.path.join(os.path.dirname(path), "test_data_set_0", "*put_*.pb"))):
        kind, k = re.match(r"(input|output)_(\d+)\.pb", os.path.basename(pb)).groups()
        vs = ios[kind]
        if int(k) < len(vs) and vs[int(k)].type.HasField("tensor_type"):
            files.append(pb)
print("\n".join(f for i, f in enumerate(files) if i % every == 0))
EOF
npb=$(wc -l <"$tmp/pbs.txt")
xargs "$tool" --tensor <"$tmp/pbs.txt" >"$tmp/t_ours.txt"
trc=$?
"$PY" - "$tmp/pbs.txt" >"$tmp/t_theirs.txt" 2>"$tmp/tpy.err" <<'EOF'
import sys, hashlib, struct
import numpy as np
from onnx import TensorProto, numpy_helper
for path in open(sys.argv[1]).read().split():
    t = TensorProto()
    t.ParseFromString(open(path, "rb").read())
    if t.data_type == TensorProto.BFLOAT16:  # to_array widens it to float32: use the bits
        data = t.raw_data if t.raw_data else np.array(t.int32_data, dtype=np.uint16).tobytes()
    elif t.data_type == TensorProto.STRING:
        data = b"".join(struct.pack("<Q", len(s)) + s for s in t.string_data)
    else:
        data = np.ascontiguousarray(numpy_helper.to_array(t)).tobytes()
    print("tensor %s %s [%s] sha256 %s" % (t.name, TensorProto.DataType.Name(t.data_type),
          ",".join(str(d) for d in t.dims), hashlib.sha256(data).hexdigest()))
EOF
if [ "$trc" -eq 0 ] && [ -s "$tmp/t_theirs.txt" ] && diff "$tmp/t_theirs.txt" "$tmp/t_ours.txt" >"$tmp/t.diff"; then
    pass "tensors: $npb input/output .pb files: name, type, dims and data bytes equal numpy_helper's"
else
    head -n 20 "$tmp/t.diff" "$tmp/tpy.err" | sed 's/^/    /'
    fail "tensors: $npb sampled .pb files (exit $trc; diff above: < python, > ours)"
fi

# ---------------------------------------------------------------- 5. hostile external data
ext="$tmp/ext"
mkdir -p "$ext/m"
"$PY" - "$ext" <<'EOF'
import sys, struct, onnx
from onnx import helper, TensorProto
d = sys.argv[1]
open(d + "/m/w.bin", "wb").write(struct.pack("<4f", 1, 2, 3, 4))
open(d + "/secret.bin", "wb").write(struct.pack("<4f", 5, 6, 7, 8))
def model(name, loc, offset=None, length=None):
    t = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[4], data_location=TensorProto.EXTERNAL)
    for k, v in (("location", loc), ("offset", offset), ("length", length)):
        if v is not None:
            e = t.external_data.add(); e.key = k; e.value = str(v)
    g = helper.make_graph([helper.make_node("Relu", ["W"], ["y"])], "g", [],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [t])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    open("%s/m/%s.onnx" % (d, name), "wb").write(m.SerializeToString())
model("ok", "w.bin", 0, 16)
model("absolute", d + "/m/w.bin")
model("dotdot", "../secret.bin")
model("dotdot_inner", "sub/../../secret.bin")
model("symlink_out", "link.bin")
model("past_end", "w.bin", 8, 16)
model("length_2gb", "w.bin", 0, 2 * 1024**3)
model("offset_huge", "w.bin", 2**64 - 1, 16)
EOF
ln -s ../secret.bin "$ext/m/link.bin"
if out=$("$tool" "$ext/m/ok.onnx" 2>&1) && [[ "$out" == OK* ]]; then
    pass "external data: the benign control reads ($out)"
else
    fail "external data: the benign control: $out"
fi
for c in absolute dotdot dotdot_inner symlink_out past_end length_2gb offset_huge; do
    f="$ext/m/$c.onnx"
    out=$("$tool" "$f" 2>&1)
    rc=$?
    lines=$(printf '%s\n' "$out" | grep -c .)
    if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [[ "$out" == "$f: "* ]]; then
        pass "external data $c: exit 2, one line: ${out#"$f: "}"
    else
        printf '%s\n' "$out" | head -n 10 | sed 's/^/    /'
        fail "external data $c: exit $rc, $lines lines"
    fi
done
out=$("$tool" --no-external "$ext/m/ok.onnx" 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && [[ "$out" == *"no_external"* ]]; then pass "external data refused with --no-external"; else fail "--no-external: exit $rc: $out"; fi

# ---------------------------------------------------------------- 6. truncations and mutations
seeds=("$ONNX_DATA/pytorch-operator/test_operator_conv/model.onnx"
       "$ONNX_DATA/node/test_layer_normalization_3d_axis_negative_1_epsilon_expanded/model.onnx"
       "$ONNX_DATA/node/test_loop11/model.onnx"
       "$ONNX_DATA/node/test_if/model.onnx")
mkdir -p build/onnx-sweep-failures
for s in "${seeds[@]}"; do
    name=$(basename "$(dirname "$s")")
    out=$(timeout 300 "$sweep" -t 100000 -m "$MUT" -s "${ONNX_SEED:-1}" -i 3 --save build/onnx-sweep-failures "$s" 2>&1)
    rc=$?
    summary=$(printf '%s\n' "$out" | grep -E '^model.onnx \(' | tail -n 1)
    if [ "$rc" -eq 0 ] && [ -n "$summary" ]; then
        pass "sweep $name: ${summary#model.onnx }"
    else
        printf '%s\n' "$out" | grep -E 'FAIL|ERROR|SUMMARY|runtime error|saved' | head -n 20 | sed 's/^/    /'
        fail "sweep $name (exit $rc; failing variants in build/onnx-sweep-failures/)"
    fi
done
finish
