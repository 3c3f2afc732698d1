#!/usr/bin/env bash
# Files and inputs (issue #12): the rules of lg.h "files" as the CLI's verbs see them.
#  1. outputs: an existing device node (a scratch /dev/null made with mknod), FIFO, symbolic
#     link or directory is refused even with --force, and left as it was; a regular file is
#     replaced only with --force (convert, run --out-dir/--dump-all).
#  2. inputs: /dev/zero, /dev/urandom and a FIFO are refused at once (timeout 5) by info,
#     check, run, compare and convert; --input x=DIR says "is a directory".
#  3. a failed run -o D / --dump-all D leaves no D (the retry works); run -o x.npy is refused
#     pointing at --out-dir.
#  4. outputs are 0666 & ~umask (0644 under 022, 0600 under 077), folders 0777 & ~umask.
#  5. .npy inputs of the wrong shape: NCHW, flat (accepted with --allow-flat), batch 2,
#     missing batch dimension, other: refused naming both shapes.
#  6. --fill random:SEED: bad seeds refused; the range is documented in run --help.
# Env: LG (default build/litegpu), LG_SAN (default build/san/litegpu).
set -u
cd "$(dirname "$0")/../.."
LG=${LG:-build/litegpu}
LG_SAN=${LG_SAN:-build/san/litegpu}
M=${MODEL:-build/corpus/hand_landmark_lite.tflite}   # input 0 "input_1" FLOAT32 [1,224,224,3]
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }

if [ ! -x "$LG" ]; then bad "litegpu binary" "$LG not built"; echo "files: $pass passed, $fail failed"; exit 1; fi
if [ ! -f "$M" ]; then bad "model" "$M missing"; echo "files: $pass passed, $fail failed"; exit 1; fi
bins=("$LG")
[ -x "$LG_SAN" ] && bins+=("$LG_SAN")

# expect_err NAME PATTERN CMD...: within 5 s, exit 2 with one stderr line
# "litegpu: error: ..." matching PATTERN (extended regex) and nothing on stdout.
expect_err() {
    local name="$1" pat="$2"; shift 2
    local b rc nl tag
    for b in "${bins[@]}"; do
        tag="$name"; [ "$b" = "$LG_SAN" ] && tag="$name [asan]"
        timeout 5 "$b" "$@" >"$T/out" 2>"$T/err" </dev/null
        rc=$?
        nl=$(wc -l <"$T/err")
        if [ "$rc" -eq 124 ]; then bad "$tag" "did not finish in 5 s"
        elif [ "$rc" -ne 2 ]; then bad "$tag" "exit $rc, want 2; stderr: $(head -c 300 "$T/err")"
        elif [ "$nl" -ne 1 ]; then bad "$tag" "$nl stderr lines: $(head -c 300 "$T/err")"
        elif ! grep -qE "^litegpu: error: .*$pat" "$T/err"; then bad "$tag" "stderr: $(cat "$T/err")"
        elif [ -s "$T/out" ]; then bad "$tag" "stdout not empty"
        else ok "$tag"; fi
    done
}
expect_ok() {
    local name="$1"; shift
    if "$LG" "$@" >"$T/out" 2>"$T/err"; then ok "$name"; else bad "$name" "exit $?: $(head -c 300 "$T/err")"; fi
}
kind() { stat -c %F "$1" 2>/dev/null; }
mode() { stat -c %a "$1" 2>/dev/null; }

# .npy writer: mknpy FILE d0,d1,... [fill value]  (float32, little-endian, C order; the
# header as numpy.save writes it: padded so that the data starts at a multiple of 64)
mknpy() {
    "$PY" - "$1" "$2" "${3:-0.5}" <<'EOF'
import struct, sys
path, dims, val = sys.argv[1], [int(d) for d in sys.argv[2].split(',') if d], float(sys.argv[3])
shape = '(' + ', '.join(map(str, dims)) + (',)' if len(dims) == 1 else ')')
d = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
pad = (64 - (10 + len(d) + 1) % 64) % 64
h = d + ' ' * pad + '\n'
n = 1
for x in dims: n *= x
with open(path, 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode())
    f.write(struct.pack('<f', val) * n)
EOF
}

# ---------------------------------------------------------------- 1. outputs
O="$T/o"; mkdir -p "$O"
if mknod "$O/null" c 1 3 2>/dev/null; then
    expect_err "convert -o DEVICE --force" "null: is a character device, not a regular file" convert "$M" -o "$O/null" --force
    [ "$(kind "$O/null")" = "character special file" ] && ok "device left a device" || bad "device left a device" "$(kind "$O/null")"
    expect_err "convert -o DEVICE (no --force)" "null: (is a character device|output exists)" convert "$M" -o "$O/null"
    [ "$(kind "$O/null")" = "character special file" ] && ok "device left a device (no --force)" || bad "device left a device (no --force)"
    expect_err "run --out-dir DEVICE" "exists and is not a folder \(a character device\)" run "$M" --out-dir "$O/null"
else
    bad "mknod" "cannot make a device node (not root?)"
fi
mkfifo "$O/fifo"
expect_err "convert -o FIFO --force" "fifo: is a FIFO, not a regular file" convert "$M" -o "$O/fifo" --force
[ "$(kind "$O/fifo")" = "fifo" ] && ok "FIFO left a FIFO" || bad "FIFO left a FIFO" "$(kind "$O/fifo")"
expect_err "run --dump-all FIFO" "exists and is not a folder \(a FIFO\)" run "$M" --dump-all "$O/fifo"
echo keep >"$O/target"
ln -s target "$O/link"
expect_err "convert -o SYMLINK --force" "link: is a symbolic link" convert "$M" -o "$O/link" --force
if [ -L "$O/link" ] && [ "$(cat "$O/target")" = keep ]; then ok "link and target unchanged"; else bad "link and target unchanged"; fi
mkdir "$O/adir"; ln -s adir "$O/dirlink"
expect_err "run --out-dir SYMLINK-to-folder" "dirlink: is a symbolic link" run "$M" --out-dir "$O/dirlink"
[ -z "$(ls -A "$O/adir")" ] && ok "linked folder left empty" || bad "linked folder left empty"
expect_err "convert -o DIRECTORY --force" "adir: is a directory" convert "$M" -o "$O/adir" --force
expect_err "run --out-dir FILE" "exists and is not a folder \(a regular file\)" run "$M" --out-dir "$O/target"
# near-misses: a regular file is refused without --force and replaced with it
expect_ok "convert -o NEW" convert "$M" -o "$O/m.tflite"
expect_err "convert -o EXISTING" "exists \(use --force" convert "$M" -o "$O/m.tflite"
echo junk >"$O/m.tflite"
expect_ok "convert -o EXISTING --force" convert "$M" -o "$O/m.tflite" --force
[ "$(head -c 8 "$O/m.tflite" | tail -c 4)" = TFL3 ] && ok "regular file replaced" || bad "regular file replaced"
# run --force into a folder whose output_0.npy is a symbolic link: refused, link intact
mkdir "$O/f1"; ln -s ../target "$O/f1/output_0.npy"
expect_err "run --force: a link inside the folder" "output_0.npy: is a symbolic link" run "$M" --out-dir "$O/f1" --force
if [ -L "$O/f1/output_0.npy" ] && [ "$(cat "$O/target")" = keep ]; then ok "link in folder unchanged"; else bad "link in folder unchanged"; fi

# ---------------------------------------------------------------- 2. inputs
mkfifo "$T/in.fifo"
for verb in info check run convert; do
    args=(); [ "$verb" = convert ] && args=(-o "$T/never.tflite")
    expect_err "$verb /dev/zero" "/dev/zero: is a character device, not a regular file" "$verb" /dev/zero "${args[@]}"
    expect_err "$verb /dev/urandom" "/dev/urandom: is a character device" "$verb" /dev/urandom "${args[@]}"
    expect_err "$verb FIFO" "in.fifo: is a FIFO, not a regular file" "$verb" "$T/in.fifo" "${args[@]}"
done
expect_err "compare /dev/zero" "/dev/zero: is a character device" compare /dev/zero
[ ! -e "$T/never.tflite" ] && ok "convert wrote nothing" || bad "convert wrote nothing"
mkdir "$T/npydir"
expect_err "--input x=DIR" "npydir: is a directory$" run "$M" --input "0=$T/npydir"
expect_err "--input x=/dev/zero" "/dev/zero: is a character device" run "$M" --input "0=/dev/zero"
expect_err "--input x=FIFO" "in.fifo: is a FIFO" run "$M" --input "0=$T/in.fifo"

# ---------------------------------------------------------------- 3. failed runs leave nothing
R="$T/r"; mkdir "$R"
mknpy "$T/nchw.npy" 1,3,224,224
mknpy "$T/nhwc.npy" 1,224,224,3
expect_err "run -o D, bad input" "NCHW" run "$M" -o "$R/D" --input "0=$T/nchw.npy"
[ ! -e "$R/D" ] && ok "failed run -o D leaves no D" || bad "failed run -o D leaves no D" "$(ls -la "$R/D")"
expect_err "run --dump-all D, bad input" "NCHW" run "$M" --dump-all "$R/DD" --input "0=$T/nchw.npy"
[ ! -e "$R/DD" ] && ok "failed --dump-all D leaves no D" || bad "failed --dump-all D leaves no D" "$(ls -la "$R/DD")"
[ -z "$(ls -A "$R")" ] && ok "no temporary folder left behind" || bad "no temporary folder left behind" "$(ls -A "$R")"
expect_ok "retry run -o D" run "$M" -o "$R/D" --input "0=$T/nhwc.npy"
expect_ok "retry --dump-all D" run "$M" --dump-all "$R/DD" --input "0=$T/nhwc.npy"
if [ -f "$R/D/output_0.npy" ] && [ -f "$R/D/input_0.npy" ]; then ok "D holds the outputs"; else bad "D holds the outputs"; fi
if "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if len(d['tensors']) > 100 else 1)" "$R/DD/manifest.json"; then
    ok "manifest.json complete"; else bad "manifest.json complete"; fi
n_files=$(ls "$R/DD" | grep -c '^t[0-9]*\.npy$')
n_listed=$("$PY" -c "import json,sys; print(len(json.load(open(sys.argv[1]))['tensors']))" "$R/DD/manifest.json")
[ "$n_files" = "$n_listed" ] && ok "manifest lists every dumped file" || bad "manifest lists every dumped file" "$n_files vs $n_listed"
expect_err "run -o D again (not empty)" "D: exists and is not empty \(use --force" run "$M" -o "$R/D"
echo mine >"$R/D/notes.txt"
expect_ok "run -o D --force" run "$M" -o "$R/D" --force
[ "$(cat "$R/D/notes.txt")" = mine ] && ok "--force leaves other files alone" || bad "--force leaves other files alone"
mkdir "$R/E"
expect_ok "run --out-dir into an empty folder" run "$M" --out-dir "$R/E/"
[ -f "$R/E/output_3.npy" ] && ok "empty folder filled" || bad "empty folder filled"
expect_ok "--out-dir and --dump-all the same folder" run "$M" --out-dir "$R/S" --dump-all "$R/S"
if [ -f "$R/S/output_0.npy" ] && [ -f "$R/S/manifest.json" ]; then ok "shared folder holds both"; else bad "shared folder holds both"; fi
expect_err "run -o x.npy" "--out-dir takes a folder .*not a file name like '.*x.npy'" run "$M" -o "$R/x.npy"
[ ! -e "$R/x.npy" ] && ok "no folder x.npy" || bad "no folder x.npy"
expect_err "--out-dir and -o" "given twice" run "$M" -o "$R/a" --out-dir "$R/b"

# ---------------------------------------------------------------- 4. modes
(umask 022; "$LG" run "$M" --out-dir "$T/m022" >/dev/null 2>&1; "$LG" convert "$M" -o "$T/m022.tflite" >/dev/null 2>&1)
(umask 077; "$LG" run "$M" --out-dir "$T/m077" >/dev/null 2>&1; "$LG" convert "$M" -o "$T/m077.tflite" >/dev/null 2>&1)
[ "$(mode "$T/m022")" = 755 ] && ok "folder 0755 under umask 022" || bad "folder 0755 under umask 022" "$(mode "$T/m022")"
[ "$(mode "$T/m022/output_0.npy")" = 644 ] && ok "npy 0644 under umask 022" || bad "npy 0644 under umask 022" "$(mode "$T/m022/output_0.npy")"
[ "$(mode "$T/m022.tflite")" = 644 ] && ok "tflite 0644 under umask 022" || bad "tflite 0644 under umask 022" "$(mode "$T/m022.tflite")"
[ "$(mode "$T/m077")" = 700 ] && ok "folder 0700 under umask 077" || bad "folder 0700 under umask 077" "$(mode "$T/m077")"
[ "$(mode "$T/m077/output_0.npy")" = 600 ] && ok "npy 0600 under umask 077" || bad "npy 0600 under umask 077" "$(mode "$T/m077/output_0.npy")"
[ "$(mode "$T/m077.tflite")" = 600 ] && ok "tflite 0600 under umask 077" || bad "tflite 0600 under umask 077" "$(mode "$T/m077.tflite")"
(umask 002; "$LG" run "$M" --dump-all "$T/m002" >/dev/null 2>&1)
[ "$(mode "$T/m002/manifest.json")" = 664 ] && ok "manifest 0664 under umask 002" || bad "manifest 0664 under umask 002" "$(mode "$T/m002/manifest.json")"

# ---------------------------------------------------------------- 5. shapes
mknpy "$T/flat.npy" 150528
mknpy "$T/b2.npy" 2,224,224,3
mknpy "$T/nob.npy" 224,224,3
mknpy "$T/odd.npy" 1,224,672,1
mknpy "$T/small.npy" 7,7
expect_err "NCHW for NHWC" 'input 0 "input_1" is \[1,224,224,3\], the file holds \(1, 3, 224, 224\): a NCHW array\? transpose it to NHWC' run "$M" --input "0=$T/nchw.npy"
expect_err "flat array" 'is \[1,224,224,3\], the file holds \(150528,\): a flat array.*--allow-flat' run "$M" --input "input_1=$T/flat.npy"
expect_err "batch 2" 'is \[1,224,224,3\], the file holds \(2, 224, 224, 3\): a batch of 2, the model.s batch is fixed at 1' run "$M" --input "0=$T/b2.npy"
expect_err "no batch dimension" 'the file holds \(224, 224, 3\): the batch dimension is missing' run "$M" --input "0=$T/nob.npy"
expect_err "same count, other shape" 'is \[1,224,224,3\], the file holds \(1, 224, 672, 1\): the same number of elements' run "$M" --input "0=$T/odd.npy"
expect_err "other count" 'is \[1,224,224,3\] \(150528 elements\), the file holds \(7, 7\) \(49 elements\)' run "$M" --input "0=$T/small.npy"
expect_err "input given twice" "given twice" run "$M" --input "0=$T/nhwc.npy" --input "input_1=$T/nhwc.npy"
# near-misses: the right shape runs; a flat array runs with --allow-flat and gives the same
# outputs as the shaped one (both all 0.5, C order)
expect_ok "NHWC accepted" run "$M" --input "0=$T/nhwc.npy" --out-dir "$T/s1"
expect_ok "flat with --allow-flat" run "$M" --input "0=$T/flat.npy" --allow-flat --out-dir "$T/s2"
cmp -s "$T/s1/output_0.npy" "$T/s2/output_0.npy" && ok "flat and shaped agree" || bad "flat and shaped agree"

# ---------------------------------------------------------------- 6. fill seeds
for s in -1 +1 "" " 1" 1x 0x10 18446744073709551616 99999999999999999999; do
    expect_err "--fill random:'$s'" "random:SEED takes a decimal seed 0..18446744073709551615" run "$M" --fill "random:$s"
done
expect_ok "--fill random:18446744073709551615" run "$M" --fill random:18446744073709551615 --out-dir "$T/r1"
expect_ok "--fill random:1" run "$M" --fill random:1 --out-dir "$T/r2"
cmp -s "$T/r1/output_0.npy" "$T/r2/output_0.npy" && bad "different seeds differ" || ok "different seeds differ"
"$LG" run --help >"$T/help" 2>&1
grep -q 'uniform in \[-1, 1)' "$T/help" && ok "run --help gives the random range" || bad "run --help gives the random range"
grep -q -- '--out-dir DIR' "$T/help" && ok "run --help names --out-dir" || bad "run --help names --out-dir"

echo "files: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
