#!/usr/bin/env bash
# Regenerate (default) or check (--check) the rule table in README.md from the table the
# checker uses (`litegpu check --list-rules --markdown`), between the rules:begin/end markers.
set -euo pipefail
cd "$(dirname "$0")/.."
LG=${LG:-build/litegpu}
table=$("$LG" check --list-rules --markdown)
new=$(awk -v table="$table" '
    /<!-- rules:begin -->/ { print; print table; skip = 1; next }
    /<!-- rules:end -->/ { skip = 0 }
    !skip { print }' README.md)
if [ "${1:-}" = "--check" ]; then
    if [ "$new" = "$(cat README.md)" ]; then echo "readme: 1 passed, 0 failed"; exit 0; fi
    echo "FAIL README.md's rule table differs from 'litegpu check --list-rules --markdown' (run scripts/readme-rules.sh)"
    echo "readme: 0 passed, 1 failed"
    exit 1
fi
printf '%s\n' "$new" > README.md.tmp && mv README.md.tmp README.md
