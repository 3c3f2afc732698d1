#!/usr/bin/env bash
# `make demo`: litegpu's main jobs on the models committed in examples/ and tests/fixtures/onnx/.
# tiny_convnet.tflite is a clean fp16-weight CNN; blocked_net.tflite carries blockers users
# meet (TRANSPOSE_CONV with a fused activation, a rank-5 channel shuffle, GATHER_ND, a
# PADV2 -inf max-pool, a 65k-element two-axis MEAN); layernorm_512.tflite is the seed's fp16
# LayerNorm overflow; cleanup_net.tflite holds exporter leftovers for --optimize. They come
# from examples/make_examples.c. resnet_2stage is a PyTorch export (tests/fixtures/onnx/). The
# demo fails if a verdict changes (tests/e2e/test_demo.sh runs it).
set -u
cd "$(dirname "$0")/.."
LG=build/litegpu
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
expect() { # expect CODE command...
    local want=$1; shift
    local args=("$@")
    step "litegpu ${args[*]:1}"
    "$@"
    local rc=$?
    if [ "$rc" -ne "$want" ]; then echo "demo: expected exit code $want, got $rc" >&2; exit 1; fi
    echo "(exit code $rc)"
}
expect 0 "$LG" info examples/tiny_convnet.tflite
expect 0 "$LG" check examples/tiny_convnet.tflite
expect 1 "$LG" check examples/blocked_net.tflite
expect 1 "$LG" check examples/blocked_net.tflite --gpu webgpu
expect 0 "$LG" check --explain padv2-nonzero
expect 0 "$LG" run examples/tiny_convnet.tflite --fill pattern
expect 0 "$LG" compare examples/tiny_convnet.tflite --precision f16 --fill pattern
# a NAFNet-style LayerNorm on an activation with |x| ~ 175: the fp16 variance overflows
expect 1 "$LG" compare examples/layernorm_512.tflite --input x=examples/layernorm_input.npy
expect 0 "$LG" compare examples/layernorm_512.tflite --input x=examples/layernorm_input.npy --precision f32_f16
# exact graph clean-up, proved against the original
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
expect 0 "$LG" convert examples/cleanup_net.tflite -o "$T/clean.tflite" --optimize
# an ONNX model from PyTorch: converted with its NCHW contract, then checked
expect 0 "$LG" convert tests/fixtures/onnx/resnet_2stage.op17.onnx -o "$T/resnet.tflite"
expect 1 "$LG" check "$T/resnet.tflite"
# the real ML Drift delegate (LiteRT.js WebGPU in headless Chromium) judges both models
expect 1 "$LG" verify examples/tiny_convnet.tflite examples/blocked_net.tflite
echo
echo "demo: ok"
