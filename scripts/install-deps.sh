#!/usr/bin/env bash
# install-deps.sh -- install what litegpu's build and tests need on Debian 12 (idempotent).
#
#   scripts/install-deps.sh            # as root (or with sudo available)
#   LG_SKIP_APT=1 scripts/install-deps.sh   # skip the apt part, only set up peers/node_modules
#
# apt: flatbuffers-compiler (flatc JSON dumps), clang, libclang-rt-14-dev (libFuzzer, sanitizers),
#      libonnx-testdata (ONNX's own backend conformance suite, /usr/share/libonnx-testdata/data/,
#      for the reader's and the importer's tests; about 21 MB installed) and python3-onnx (the
#      independent parser tests/e2e/test_onnx_read.sh compares the reader with, run with
#      /usr/bin/python3), liblapack-dev (reference LAPACK + BLAS: dgesdd, dposv for refit/lowrank),
#      chromium if /usr/bin/chromium is missing (the WebGPU oracle, peers/verify/verify.js: about
#      122 MB to download, 414 MB installed, ~20 s here),
#      xxd if missing, nodejs/npm only if `node`/`npm` are not on PATH. `apt-get update` runs only
#      when something is missing.
# npm: `npm ci` in peers/ when a dependency pinned in peers/package.json (@litertjs/core, the
#      LiteRT.js peer runtime; playwright-core, which drives Chromium; onnxruntime-node, the ONNX
#      oracle run by peers/ort_run.js, whose GPU-library download peers/.npmrc skips) is missing
#      there or at another version.
# Not installed: python3-torch, python3-torchvision (about 800 MB, ~2 min). Only
#      tests/fixtures/onnx/gen.py needs them, to regenerate the committed ONNX fixtures; the tests
#      read the committed files. To regenerate: apt-get install python3-torch python3-torchvision
#      python3-onnx, then /usr/bin/python3 tests/fixtures/onnx/gen.py.
# When everything is present it prints nothing and takes well under a second.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { echo "install-deps: $*" >&2; exit 1; }
installed() { [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]; }

if [[ "${LG_SKIP_APT:-0}" != 1 ]]; then
  missing=()
  for p in flatbuffers-compiler clang libclang-rt-14-dev libonnx-testdata python3-onnx liblapack-dev man-db pkgconf; do
    installed "$p" || missing+=("$p")
  done
  [[ -x /usr/bin/chromium ]] || missing+=(chromium)
  command -v xxd >/dev/null || missing+=(xxd)
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
  if ((${#missing[@]})); then
    sudo=()
    if [[ "$(id -u)" != 0 ]]; then
      command -v sudo >/dev/null || die "need root to install: ${missing[*]}"
      sudo=(sudo)
    fi
    echo "install-deps: apt-get install ${missing[*]}"
    log="$(mktemp)"
    export DEBIAN_FRONTEND=noninteractive
    if ! { "${sudo[@]}" apt-get update -q &&
           "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
      tail -n 20 "$log" >&2
      rm -f "$log"
      die "apt-get failed for: ${missing[*]}"
    fi
    rm -f "$log"
  fi
fi

peers="$repo_root/peers"
# Every dependency pinned in peers/package.json installed at exactly that version?
peers_ok() {
  command -v node >/dev/null || return 1
  (cd "$peers" && node -e '
    const deps = require("./package.json").dependencies || {};
    for (const [name, want] of Object.entries(deps)) {
      let got = null;
      try { got = require("./node_modules/" + name + "/package.json").version; } catch (e) {}
      if (got !== want) process.exit(1);
    }' 2>/dev/null)
}
if ! peers_ok; then
  command -v npm >/dev/null || die "npm not found on PATH"
  echo "install-deps: npm ci in peers/"
  (cd "$peers" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || die "npm ci in peers/ failed"
fi
