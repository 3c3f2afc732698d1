#!/usr/bin/env bash
# The README tells the truth: its rule list is generated from the checker's own table, and
# every `$ litegpu ...` example in it is run and compared with the text
# (tests/e2e/readme_examples.py says how).
cd "$(dirname "$0")/../.." || exit 1
rules=$(scripts/readme-rules.sh --check); rrc=$?
echo "$rules"
ex=$(python3 tests/e2e/readme_examples.py .); erc=$?
echo "$ex"
p1=$(sed -nE 's/^readme: ([0-9]+) passed, ([0-9]+) failed$/\1/p' <<<"$rules"); f1=$(sed -nE 's/^readme: ([0-9]+) passed, ([0-9]+) failed$/\2/p' <<<"$rules")
p2=$(sed -nE 's/^readme_examples: ([0-9]+) passed, ([0-9]+) failed$/\1/p' <<<"$ex"); f2=$(sed -nE 's/^readme_examples: ([0-9]+) passed, ([0-9]+) failed$/\2/p' <<<"$ex")
p=$(( ${p1:-0} + ${p2:-0} )); f=$(( ${f1:-1} + ${f2:-1} ))
echo "readme: $p passed, $f failed"
[ "$rrc" -eq 0 ] && [ "$erc" -eq 0 ] && [ "$f" -eq 0 ]
