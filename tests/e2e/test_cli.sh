#!/usr/bin/env bash
# The CLI's contract: usage and input errors exit 2 with exactly one line on stderr
# ("litegpu: error: ..."); --version; help for every verb; info and convert on bad inputs
# (missing, empty, text, directory, truncated and corrupted models: never a crash);
# convert refuses an existing output, --force replaces it, and it never writes over its
# input. Error cases also run under the ASan/UBSan build when it exists.
# Env: LG (default build/litegpu), LG_SAN (default build/san/litegpu).
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
LG_SAN=${LG_SAN:-build/san/litegpu}
MODEL=${MODEL:-build/corpus/face_detection_short_range.tflite}
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }

bins=("$LG")
[ -x "$LG_SAN" ] && bins+=("$LG_SAN")

# expect_err NAME PATTERN CMD...: exit 2, nothing on stdout, one stderr line
# "litegpu: error: ..." that matches PATTERN (an extended regex). Run with each binary.
expect_err() {
    local name="$1" pat="$2"; shift 2
    local b rc nl
    for b in "${bins[@]}"; do
        "$b" "$@" >"$T/out" 2>"$T/err"
        rc=$?
        nl=$(wc -l <"$T/err")
        local tag="$name"; [ "$b" = "$LG_SAN" ] && tag="$name [asan]"
        if [ "$rc" -ne 2 ]; then bad "$tag" "exit $rc, want 2; stderr: $(head -c 300 "$T/err")"
        elif [ "$nl" -ne 1 ]; then bad "$tag" "$nl stderr lines: $(head -c 300 "$T/err")"
        elif ! grep -qE "^litegpu: error: .*$pat" "$T/err"; then bad "$tag" "stderr: $(cat "$T/err")"
        elif [ -s "$T/out" ]; then bad "$tag" "stdout not empty"
        else ok "$tag"; fi
    done
}

if [ ! -x "$LG" ]; then bad "litegpu binary" "$LG not built"; echo "cli: $pass passed, $fail failed"; exit 1; fi

# ---- usage errors
expect_err "no arguments" "no verb" 
expect_err "unknown verb" "unknown verb 'frobnicate'" frobnicate
expect_err "unknown global option" "unknown option '--bogus'" --bogus
expect_err "--version with an argument" "version" --version extra
expect_err "help for an unknown verb" "unknown verb 'nope'" help nope
expect_err "help with two verbs" "too many" help info convert
expect_err "info without MODEL" "missing MODEL.*usage: litegpu info" info
expect_err "info with two models" "unexpected argument" info a.tflite b.tflite
expect_err "info unknown option" "unknown option '--frob'.*usage: litegpu info" info --frob x.tflite
expect_err "info --json=value" "takes no value" info --json=yes x.tflite
expect_err "convert without IN" "missing IN" convert -o "$T/o.tflite"
expect_err "convert without -o" "missing -o OUT" convert "$MODEL"
expect_err "convert -o without value" "needs a value" convert "$MODEL" -o
expect_err "convert unknown option" "unknown option '-x'" convert "$MODEL" -o "$T/o.tflite" -x

# ---- --version and help
out=$("$LG" --version 2>"$T/err"); rc=$?
if [ "$rc" -eq 0 ] && [ "$out" = "litegpu 0.1.0" ] && [ ! -s "$T/err" ]; then ok "--version"; else bad "--version" "rc $rc: $out"; fi
"$LG" help >"$T/help" 2>"$T/err"; rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && grep -q '^usage: litegpu VERB' "$T/help"; then ok "help"; else bad "help" "rc $rc"; fi
for alias in --help -h; do
    "$LG" "$alias" >"$T/h2" 2>&1
    if cmp -s "$T/help" "$T/h2"; then ok "$alias = help"; else bad "$alias = help"; fi
done
for verb in info convert; do
    if grep -qE "^  $verb " "$T/help"; then ok "help lists $verb"; else bad "help lists $verb"; fi
    "$LG" help "$verb" >"$T/hv" 2>"$T/err"; rc=$?
    if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && head -n 1 "$T/hv" | grep -q "^usage: litegpu $verb "; then
        ok "help $verb"
    else
        bad "help $verb" "rc $rc: $(head -n 1 "$T/hv")"
    fi
    for flag in --help -h; do
        "$LG" "$verb" "$flag" >"$T/hv2" 2>&1; rc=$?
        if [ "$rc" -eq 0 ] && cmp -s "$T/hv" "$T/hv2"; then ok "$verb $flag"; else bad "$verb $flag" "rc $rc"; fi
    done
done

# ---- bad inputs, for both verbs
: >"$T/empty.tflite"
printf 'hello, this is a text file\nnot a model\n' >"$T/text.tflite"
printf '\x08\x07\x12\x07pytorch\x1a\x031.0' >"$T/model.onnx"
mkdir -p "$T/dir.tflite"
have_model=0
if [ -f "$MODEL" ]; then
    have_model=1
    head -c 100 "$MODEL" >"$T/trunc.tflite"
    head -c $(( $(stat -c %s "$MODEL") / 2 )) "$MODEL" >"$T/half.tflite"
    # TFL3 identifier but a root offset far past the end
    { printf '\xff\xff\xff\x7fTFL3'; head -c 200 /dev/zero; } >"$T/badroot.tflite"
    # the real model with a stretch of its flatbuffer tables overwritten
    cp "$MODEL" "$T/corrupt.tflite"
    printf '\xff%.0s' $(seq 1 64) | dd of="$T/corrupt.tflite" bs=1 seek=40 conv=notrunc 2>/dev/null
else
    bad "corpus model present" "missing $MODEL (run scripts/fetch-corpus.sh)"
fi
for verb in info convert; do
    args=(); [ "$verb" = convert ] && args=(-o "$T/never.tflite")
    expect_err "$verb missing file" "no/such\.tflite: cannot open" "$verb" "$T/no/such.tflite" "${args[@]}"
    expect_err "$verb empty file" "empty" "$verb" "$T/empty.tflite" "${args[@]}"
    expect_err "$verb text file" "unknown model format" "$verb" "$T/text.tflite" "${args[@]}"
    # a graph-less ONNX file: info says to convert it first; convert reads it and refuses it
    if [ "$verb" = info ]; then expect_err "$verb onnx file" "ONNX model: convert it first" "$verb" "$T/model.onnx"
    else expect_err "$verb onnx file" "model.onnx: has no graph" "$verb" "$T/model.onnx" "${args[@]}"; fi
    expect_err "$verb directory" "is a directory" "$verb" "$T/dir.tflite" "${args[@]}"
    if [ "$have_model" = 1 ]; then
        for f in trunc half badroot corrupt; do
            expect_err "$verb $f model" "$f\.tflite" "$verb" "$T/$f.tflite" "${args[@]}"
        done
    fi
    if [ -e "$T/never.tflite" ]; then bad "$verb errors write nothing"; else ok "$verb errors write nothing"; fi
done

# ---- info on a good model, and file names that need escaping
if [ "$have_model" = 1 ]; then
    "$LG" info "$MODEL" >"$T/info.txt" 2>"$T/err"; rc=$?
    if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && grep -q "sha256 $(sha256sum "$MODEL" | cut -d' ' -f1)" "$T/info.txt"; then
        ok "info text"; else bad "info text" "rc $rc"; fi
    odd="$T/odd"$'\n'$'\xff'"\"name.tflite"
    cp "$MODEL" "$odd"
    "$LG" info --json "$odd" >"$T/odd.json" 2>"$T/err"; rc=$?
    if [ "$rc" -eq 0 ] && "$PY" -c 'import json,sys
d=json.load(open(sys.argv[1], encoding="utf-8"))
assert d["model"].endswith("odd\n\ufffd\"name.tflite"), d["model"]' "$T/odd.json" 2>"$T/pyerr"; then
        ok "info --json escapes the file name"
    else
        bad "info --json escapes the file name" "rc $rc $(head -c 300 "$T/pyerr")"
    fi
    "$LG" info "$odd" >"$T/odd.txt" 2>&1
    if [ "$(wc -l <"$T/odd.txt")" -eq "$(wc -l <"$T/info.txt")" ]; then ok "info text keeps one line per item"
    else bad "info text keeps one line per item"; fi
    expect_err "error line stays one line" "cannot open" info "$T/missing"$'\n'"name.tflite"
fi

# ---- convert
if [ "$have_model" = 1 ]; then
    out="$T/out.tflite"
    "$LG" convert "$MODEL" -o "$out" >"$T/conv" 2>"$T/err"; rc=$?
    sum=$(sha256sum "$out" 2>/dev/null | cut -d' ' -f1)
    size=$(stat -c %s "$out" 2>/dev/null)
    if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && [ "$(cat "$T/conv")" = "wrote $out ($size bytes, sha256 $sum)" ]; then
        ok "convert writes and reports"
    else
        bad "convert writes and reports" "rc $rc: $(cat "$T/conv" "$T/err")"
    fi
    if "$LG" info "$out" >/dev/null 2>&1; then ok "convert output reads back"; else bad "convert output reads back"; fi

    before=$(sha256sum "$out" | cut -d' ' -f1)
    expect_err "convert refuses an existing output" "exists.*--force" convert "$MODEL" -o "$out"
    after=$(sha256sum "$out" | cut -d' ' -f1)
    if [ "$before" = "$after" ]; then ok "refused output untouched"; else bad "refused output untouched"; fi

    echo "old" >"$T/old.tflite"
    "$LG" convert "$MODEL" -o "$T/old.tflite" --force >/dev/null 2>"$T/err"; rc=$?
    if [ "$rc" -eq 0 ] && cmp -s "$T/old.tflite" "$out"; then ok "convert --force replaces"; else bad "convert --force replaces" "rc $rc $(cat "$T/err")"; fi

    "$LG" convert --json --output="$T/j.tflite" "$MODEL" >"$T/conv.json" 2>"$T/err"; rc=$?
    if [ "$rc" -eq 0 ] && "$PY" -c 'import json,sys,hashlib
d=json.load(open(sys.argv[1])); b=open(sys.argv[2],"rb").read()
assert d["verb"]=="convert" and d["ok"] is True and d["model"]==sys.argv[3]
assert d["output"]==sys.argv[2] and d["size"]==len(b) and d["sha256"]==hashlib.sha256(b).hexdigest()' \
        "$T/conv.json" "$T/j.tflite" "$MODEL" 2>"$T/pyerr"; then ok "convert --json"; else bad "convert --json" "rc $rc $(head -c 300 "$T/pyerr")"; fi

    "$LG" convert "$MODEL" -o "$T/ext.tflite" --external-buffers >/dev/null 2>"$T/err"; rc=$?
    if [ "$rc" -eq 0 ] && "$LG" info "$T/ext.tflite" >/dev/null 2>&1; then ok "convert --external-buffers"
    else bad "convert --external-buffers" "rc $rc $(cat "$T/err")"; fi

    # never over the input: same path, another spelling, a symlink, a hard link; even with --force
    mkdir -p "$T/sub"
    cp "$MODEL" "$T/sub/in.tflite"
    ln -s in.tflite "$T/sub/link.tflite"
    ln "$T/sub/in.tflite" "$T/sub/hard.tflite"
    insum=$(sha256sum "$T/sub/in.tflite" | cut -d' ' -f1)
    expect_err "convert refuses in == out" "input" convert "$T/sub/in.tflite" -o "$T/sub/in.tflite" --force
    expect_err "convert refuses in == out (other spelling)" "input" convert "$T/sub/in.tflite" -o "$T/sub/../sub/./in.tflite" --force
    expect_err "convert refuses out = symlink to in" "input" convert "$T/sub/in.tflite" -o "$T/sub/link.tflite" --force
    expect_err "convert refuses out = hard link to in" "input" convert "$T/sub/in.tflite" -o "$T/sub/hard.tflite" --force
    lg_abs="$(cd "$(dirname "$LG")" && pwd)/$(basename "$LG")"
    (cd "$T/sub" && "$lg_abs" convert in.tflite -o "$T/sub/in.tflite" --force >/dev/null 2>&1); rc=$?
    if [ "$rc" -eq 2 ]; then ok "convert refuses in == out (relative vs absolute)"; else bad "convert refuses in == out (relative vs absolute)" "rc $rc"; fi
    if [ "$(sha256sum "$T/sub/in.tflite" | cut -d' ' -f1)" = "$insum" ]; then ok "input untouched"; else bad "input untouched"; fi
    expect_err "convert into a missing directory" "no/dir" convert "$MODEL" -o "$T/no/dir/x.tflite"
    expect_err "convert onto a directory" "is a directory" convert "$MODEL" -o "$T/dir.tflite" --force
    leftovers=$(find "$T/sub" -name '*.tmp*' -o -name '.*tflite*' | wc -l)
    if [ "$leftovers" -eq 0 ]; then ok "no temporary files left"; else bad "no temporary files left" "$(ls -a "$T/sub")"; fi
fi

# ---- compare: --threads is checked, and the report does not depend on it
expect_err "compare --threads 0" "--threads takes 1..256" compare examples/tiny_convnet.tflite --threads 0
expect_err "compare --threads x (two models)" "--threads takes 1..256" compare examples/tiny_convnet.tflite examples/tiny_convnet.tflite --threads x
for mode in "examples/layernorm_512.tflite --input x=examples/layernorm_input.npy" \
            "$MODEL --fill pattern" "$MODEL $MODEL --random 2"; do
    # shellcheck disable=SC2086
    "$LG" compare $mode --json >"$T/c1.json" 2>/dev/null; r1=$?
    # shellcheck disable=SC2086
    "$LG" compare $mode --json --threads 3 >"$T/c3.json" 2>/dev/null; r3=$?
    if [ "$r1" -le 1 ] && [ "$r1" = "$r3" ] && [ -s "$T/c1.json" ] && cmp -s "$T/c1.json" "$T/c3.json"; then
        ok "compare $mode: --threads 3 gives the same report (exit $r1)"
    else
        bad "compare $mode: --threads 3" "exit $r1 vs $r3, reports differ or empty"
    fi
done

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
