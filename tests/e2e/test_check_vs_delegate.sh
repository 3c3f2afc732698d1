#!/usr/bin/env bash
# Holds `litegpu check --target mldrift --gpu webgpu` to the real ML Drift delegate (LiteRT.js WebGPU in
# headless Chromium, peers/verify/verify.js): every rule model of tests/tools/make_rule_models.c
# (a trigger and a near-miss per rule that applies to ML Drift, plus variants) is checked, then
# run through the delegate in ONE browser session (fp32, `half` input), and check's "ok" (READY) is
# compared with the delegate's "fully on the GPU" (judged as cmd_verify.c judges it; the
# comparison is tests/e2e/delegate_verdict.py). Every model where the two differ must be listed
# in tests/e2e/check_vs_webgpu.tsv with the side and the reason (a field rule the WebGPU backend
# does not enforce as Mali does, a check bug awaiting its fix, a model the harness cannot run), and
# every listed difference must still happen; agreement must be >= 95% of the judged models.
# check runs for the WebGPU family (--gpu webgpu): the Mali-only field rules do not apply, so
# their triggers must not report them (delegate_verdict.py reads each rule's families from
# `check --list-rules --json`).
# Prints PASS/FAIL per model and "check_vs_delegate: N passed, N failed".
# A missing Chromium or peers/node_modules is a FAILURE, not a skip (install: make verify-deps).
# Env: CC (default cc).
set -u
cd "$(dirname "$0")/../.." || exit 2
CC=${CC:-cc}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "check_vs_delegate: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
t_start=$(date +%s)

# ---- preconditions: each missing piece is a failure ----
[ -x /usr/bin/chromium ] || bad "chromium" "/usr/bin/chromium is missing (make verify-deps)"
for p in playwright-core @litertjs/core; do
    [ -f "peers/node_modules/$p/package.json" ] || bad "peers/node_modules/$p" "not installed (make verify-deps)"
done
if [ ! -x build/litegpu ] || [ ! -f build/liblitegpu.a ]; then bad "build" "build/litegpu or build/liblitegpu.a not built (make all)"; fi
[ -f tests/e2e/check_vs_webgpu.tsv ] || bad "check_vs_webgpu.tsv" "missing"
[ "$fail" -eq 0 ] || finish

# ---- the rule models ----
if ! "$CC" -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Iinclude -Isrc \
        -o "$T/make_rule_models" tests/tools/make_rule_models.c tests/models/rule_models*.c build/liblitegpu.a -lm 2>"$T/cc.err"; then
    bad "compile make_rule_models" "$(head -c 600 "$T/cc.err")"
    finish
fi
mkdir -p "$T/m"
if "$T/make_rule_models" "$T/m" 2>"$T/mk.err"; then ok "make_rule_models"; else
    bad "make_rule_models" "$(cat "$T/mk.err")"
    finish
fi

# ---- check's prediction, model by model ----
models=()
: >"$T/check.tsv"
while IFS=$'\t' read -r file _rule _kind args; do
    [ "$file" = file ] && continue
    models+=("$T/m/$file")
    # shellcheck disable=SC2086  # check_args is a word list
    build/litegpu check --target mldrift --gpu webgpu --json $args "$T/m/$file" >"$T/m/$file.check.json" 2>"$T/m/$file.check.err"
    printf '%s\t%s\t%s\n' "$file" "$?" "$T/m/$file.check.json" >>"$T/check.tsv"
done <"$T/m/manifest.tsv"
if [ "${#models[@]}" -eq 0 ]; then bad "manifest" "no models"; finish; fi
ok "check ran on ${#models[@]} rule models"

# ---- the delegate's verdict: one browser for the batch ----
t0=$(date +%s)
node --no-liftoff peers/verify/verify.js --precision fp32 --fill half --runs 0 --timeout-ms 60000 \
    --out "$T/out" "${models[@]}" >"$T/v.jsonl" 2>"$T/v.err"
rc=$?
secs=$(( $(date +%s) - t0 ))
# exit 3: some model could not be processed (the table documents which); anything else but 0 is fatal
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    bad "harness" "exit $rc; stderr: $(head -c 600 "$T/v.err")"
    finish
fi
ok "harness batch of ${#models[@]} models (exit $rc, ${secs} s)"

# ---- the comparison ----
if ! build/litegpu check --list-rules --json >"$T/rules.json" 2>"$T/rules.err"; then
    bad "check --list-rules --json" "$(head -c 300 "$T/rules.err")"
    finish
fi
python3 tests/e2e/delegate_verdict.py "$T/m/manifest.tsv" "$T/check.tsv" "$T/v.jsonl" \
    tests/e2e/check_vs_webgpu.tsv "$T/rules.json" >"$T/verdict" 2>&1
vrc=$?
while IFS= read -r line; do
    case "$line" in
        "PASS "*) ok "${line#PASS }" ;;
        "FAIL "*) bad "${line#FAIL }" ;;
        *) echo "$line" ;;
    esac
done <"$T/verdict"
if [ "$vrc" -ne 0 ] && ! grep -q '^FAIL ' "$T/verdict"; then
    bad "delegate_verdict.py" "exit $vrc: $(tail -n 3 "$T/verdict" | tr '\n' ' ')"
fi
echo "time: $(( $(date +%s) - t_start )) s"
finish
