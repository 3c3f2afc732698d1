#!/usr/bin/env bash
# test_malformed.sh -- hostile and broken .tflite files, under ASan + UBSan.
#
#  1. Builds tests/tools/malformed_sweep.c against the sanitized library objects
#     (build/san/src/**/*.o, made by the Makefile's ASan/UBSan rule) and build/san/litegpu.
#  2. Handcrafted files (malformed_sweep --nasty: empty, 4 bytes, "xxxxTFL3", root offset past
#     the end, self-referencing vtables, vector length 0xFFFFFFFF, strings without NUL, many
#     tables sharing one huge vector...) and the regression files in tests/data/malformed/:
#     each read once through the library; the expectation is in the file name
#     (NAME.format.tflite must give LG_ERR_FORMAT, NAME.reject.tflite any rejection, ...).
#  3. Every corpus model (build/corpus): MALFORMED_TRUNCATIONS truncations (default 300) and
#     MALFORMED_MUTATIONS seeded random mutations (default 2000, seed MALFORMED_SEED=1), each
#     read, and when accepted validated, summarized (lg_info_compute), written and read back;
#     every second variant is read again with one allocation failing (must give NOMEM).
#  4. The sanitized CLI on 40 mutated/truncated copies of each model plus the files of step 2:
#     `litegpu info F` and `litegpu convert F -o OUT` must exit 0 or 2, never a signal or a
#     sanitizer report, and on exit 2 print exactly one line on stderr.
# Any sanitizer report, hang (one read > 2 s) or broken property is a FAIL. Failing variants
# are saved in build/malformed/failures/ (replay: build/san/malformed_sweep --as-is FILE).
# Prints PASS/FAIL lines, the time of each step, and "malformed: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."

MUT="${MALFORMED_MUTATIONS:-2000}"
TRUNC="${MALFORMED_TRUNCATIONS:-300}"
SEED="${MALFORMED_SEED:-1}"
CLI_VARIANTS="${MALFORMED_CLI_VARIANTS:-40}"
JOBS="${MALFORMED_JOBS:-2}"

passed=0 failed=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
finish() {
    echo "malformed: total $(( $(date +%s) - t_start ))s"
    echo "malformed: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}
t_start=$(date +%s)
t_step=$t_start
step_done() { local now; now=$(date +%s); echo "-- $1: $((now - t_step))s"; t_step=$now; }

# Sanitizer reports exit 86 (ASan) / 87 (UBSan), never 0/1/2. A single allocation over 2 GiB
# is an ASan report (allocation-size-too-big), and so is an RSS over 4 GiB: "unbounded
# allocation" shows up as a finding instead of swapping the machine.
export ASAN_OPTIONS="exitcode=86:detect_leaks=1:max_allocation_size_mb=2048:hard_rss_limit_mb=4096:allocator_may_return_null=0:handle_abort=1"
export UBSAN_OPTIONS="exitcode=87:print_stacktrace=1:halt_on_error=1"

out=build/malformed
fails="$out/failures"
mkdir -p "$out"
rm -rf "$fails"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- 1. build
# The sweep's rule is not in the Makefile; it is given here, on top of the Makefile, so that
# it reuses its flags, its sanitized library objects (SLIB_OBJ) and its link libraries.
sweep=build/san/malformed_sweep
cli=build/san/litegpu
if printf '%s\n' \
    "$sweep: tests/tools/malformed_sweep.c tests/tools/lg_harness.h \$(SLIB_OBJ)" \
    "	\$(CC) \$(BASEFLAGS) -O1 -g \$(SAN) -o \$@ tests/tools/malformed_sweep.c \$(SLIB_OBJ) \$(LDLIBS)" |
   make -s -f Makefile -f - "$sweep" "$cli" >"$out/build.log" 2>&1; then
    pass "build $sweep and $cli (ASan + UBSan)"
else
    tail -n 30 "$out/build.log"
    fail "build (log: $out/build.log)"
    finish
fi
step_done build

# ---------------------------------------------------------------- 2. handcrafted + regressions
nasty="$tmp/nasty"
if ! "$sweep" --nasty "$nasty"; then fail "malformed_sweep --nasty"; finish; fi
files=()
for f in "$nasty"/*.tflite; do # the committed copy of a generated file wins
    [ -e "tests/data/malformed/$(basename "$f")" ] || files+=("$f")
done
compgen -G "tests/data/malformed/*.tflite" >/dev/null && files+=(tests/data/malformed/*.tflite)
# one process per file, so that a crash or hang names its file and spares the others
logs="$tmp/logs"
mkdir -p "$logs"
printf '%s\0' "${files[@]}" |
    xargs -0 -P "$JOBS" -I{} sh -c \
        'l="$1/$(basename "$4")"; timeout 120 "$2" --save "$3" --as-is "$4" >"$l.log" 2>&1; echo "$?" >"$l.rc"' _ \
        "$logs" "$sweep" "$fails" {}
for f in "${files[@]}"; do
    name=$(basename "$f")
    rc=$(cat "$logs/$name.rc" 2>/dev/null || echo "?")
    line=$(grep -E '^(PASS|FAIL) ' "$logs/$name.log" | tail -n 1)
    f="$logs/$name"
    if [ "$rc" = 0 ] && [[ "$line" == PASS* ]]; then
        pass "library: ${line#PASS }"
    else
        grep -E '^FAIL |ERROR|SUMMARY|runtime error|HANG|CRASH' "$f.log" | head -n 8 | sed 's/^/    /'
        [ "$rc" = 124 ] && echo "    killed after 120 s"
        fail "library: $name (exit $rc; log kept in $fails/$name.log)"
        mkdir -p "$fails" && cp "$f.log" "$fails/" 2>/dev/null
    fi
done
step_done "handcrafted and regression files (${#files[@]})"

# ---------------------------------------------------------------- 3. corpus sweep
models=()
compgen -G "build/corpus/*.tflite" >/dev/null && models=(build/corpus/*.tflite)
if [ "${#models[@]}" -eq 0 ]; then
    fail "no corpus models in build/corpus (run scripts/fetch-corpus.sh)"
    finish
fi
printf '%s\0' "${models[@]}" |
    xargs -0 -P "$JOBS" -I{} sh -c \
        'l="$1/$(basename "$2").sweep"; timeout 600 "$3" -i 2 -m "$4" -t "$5" -s "$6" --save "$7" "$2" >"$l" 2>&1; echo "$?" >"$l.rc"' _ \
        "$tmp" {} "$sweep" "$MUT" "$TRUNC" "$SEED" "$fails"
for m in "${models[@]}"; do
    l="$tmp/$(basename "$m").sweep"
    rc=$(cat "$l.rc" 2>/dev/null || echo "?")
    summary=$(grep -E '^[^ ]+\.tflite \([0-9]+ bytes\): ' "$l" | tail -n 1)
    if [ "$rc" = 0 ] && [ -n "$summary" ]; then
        pass "sweep: $summary"
    else
        grep -E '^FAIL |ERROR|SUMMARY|runtime error|HANG|CRASH|saved' "$l" | head -n 20 | sed 's/^/    /'
        [ -n "$summary" ] && echo "    $summary"
        fail "sweep: $(basename "$m") (exit $rc; full log in $fails/$(basename "$l").log)"
        mkdir -p "$fails" && cp "$l" "$fails/$(basename "$l").log"
    fi
done
step_done "corpus sweep (${#models[@]} models x ($TRUNC truncations + $MUT mutations))"

# ---------------------------------------------------------------- 4. the CLI
cdir="$tmp/cli"
mkdir -p "$cdir" "$tmp/out"
if ! "$sweep" -s "$SEED" --emit "$cdir" "$CLI_VARIANTS" "${models[@]}"; then
    fail "malformed_sweep --emit"
    finish
fi
cp "${files[@]}" "$cdir/"
# check_cli FILE: prints "ok" or one "FAIL ..." line per broken expectation
check_cli() {
    local f="$1" cli="$2" outdir="$3" name rc n err why
    ulimit -f $((512 * 1024)) # KiB: a runaway writer gets SIGXFSZ instead of filling the disk
    name=$(basename "$f")
    err="$f.err"
    for verb in info convert; do
        if [ "$verb" = info ]; then
            timeout 30 "$cli" info "$f" >"$f.out" 2>"$err"
        else
            timeout 30 "$cli" convert "$f" -o "$outdir/$name" --force >"$f.out" 2>"$err"
        fi
        rc=$?
        n=$(wc -l <"$err")
        if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
            case "$rc" in
                124) why="killed after 30 s" ;;
                153) why="SIGXFSZ: tried to write a file over 512 MiB" ;;
                86|87) why="sanitizer report" ;;
                *) why=""; [ "$rc" -gt 128 ] && why="signal $((rc - 128))" ;;
            esac
            echo "FAIL cli: litegpu $verb $name exited $rc${why:+ ($why)}: $(grep -m1 -E 'ERROR|runtime error|internal error' "$err" || head -c 200 "$err" | tr '\n' '|')"
            cp "$f" "$f.err" "$4/" 2>/dev/null
        elif [ "$rc" -eq 2 ] && { [ "$n" -ne 1 ] || [ ! -s "$err" ]; }; then
            echo "FAIL cli: litegpu $verb $name exited 2 with $n lines on stderr (want 1): $(head -c 300 "$err" | tr '\n' '|')"
        elif [ "$rc" -eq 0 ] && [ "$verb" = info ] && [ ! -s "$f.out" ]; then
            echo "FAIL cli: litegpu info $name exited 0 but printed nothing"
        elif [ "$rc" -eq 0 ] && [ "$verb" = convert ] && [ ! -s "$outdir/$name" ]; then
            echo "FAIL cli: litegpu convert $name exited 0 but wrote no output"
        else
            echo "ok $verb $rc $name"
        fi
        rm -f "$outdir/$name"
    done
}
export -f check_cli
mkdir -p "$fails"
find "$cdir" -name '*.tflite' -print0 | sort -z |
    xargs -0 -P "$JOBS" -I{} bash -c 'check_cli "$@"' _ {} "$cli" "$tmp/out" "$fails" >"$tmp/cli.log" 2>&1
n_files=$(find "$cdir" -name '*.tflite' | wc -l)
n_ok=$(grep -c '^ok ' "$tmp/cli.log")
n_rej=$(grep -c '^ok [a-z]* 2 ' "$tmp/cli.log")
grep '^FAIL ' "$tmp/cli.log" | sort
bad_files=$(grep '^FAIL ' "$tmp/cli.log" | sed -E 's/^FAIL cli: litegpu [a-z]+ ([^ ]+) .*/\1/' | sort -u | wc -l)
if [ $((n_ok + $(grep -c '^FAIL ' "$tmp/cli.log"))) -ne $((2 * n_files)) ]; then
    tail -n 20 "$tmp/cli.log"
    fail "cli: expected $((2 * n_files)) results, got $n_ok ok"
fi
good_files=$((n_files - bad_files))
passed=$((passed + good_files))
failed=$((failed + bad_files))
if [ "$bad_files" -eq 0 ]; then
    echo "PASS cli: info + convert on $n_files files ($n_ok runs, $n_rej exited 2 with one stderr line, the rest 0)"
else
    echo "FAIL cli: $bad_files of $n_files files broke an expectation (lines above)"
fi
step_done "cli on $n_files files"

rmdir "$fails" 2>/dev/null
finish
