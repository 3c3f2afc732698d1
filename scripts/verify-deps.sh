#!/usr/bin/env bash
# verify-deps.sh -- install what `litegpu verify` needs: Debian's chromium (/usr/bin/chromium) and
# peers/node_modules (@litertjs/core, playwright-core). It is scripts/install-deps.sh, which
# installs those along with the rest of the project's dependencies (idempotent; silent when
# everything is present). `make verify-deps` runs this script.
set -euo pipefail
exec "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/install-deps.sh" "$@"
