#!/usr/bin/python3
"""Independent checks for tests/e2e/test_prune.sh (Debian's python3 with onnx + numpy).

usage:
  prune_check.py meta MODEL.tflite                 print the "litegpu.prune" metadata JSON
                                                   found in the file's bytes
  prune_check.py importance ONNX CALIB REPORT.json IMPORTANCE
        RefactorNet only: recompute every FFN's channel scores from the ONNX weights with
        numpy (magnitude = L2 norm of up.weight's row; activation = mean |GELU(up(LN(h)))|
        over the calibration inputs, the forward pass written out here; act-weight = that x
        the L2 norm of down.weight's column), take the top k (ties to the lower index) and
        compare with the report's retained indices. A differing index is accepted only when
        the two channels' scores are within 1e-5 relative (a float near-tie).
Exit 0 when everything matches, 1 otherwise (one line per problem).
"""
import json
import math
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def meta(path):
    data = open(path, 'rb').read()
    key = b'{"version":1,"importance"'
    i = data.find(key)
    if i < 0:
        print('no litegpu.prune metadata in %s' % path)
        return 1
    depth, j = 0, i
    while j < len(data):
        c = data[j:j + 1]
        if c == b'{':
            depth += 1
        elif c == b'}':
            depth -= 1
            if depth == 0:
                break
        j += 1
    print(data[i:j + 1].decode())
    return 0


def gelu(x):
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def layer_norm(x, w, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * w + b


def importance(onnx_path, calib, report, kind):
    m = onnx.load(onnx_path)
    w = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in m.graph.initializer}
    xs = [np.load(os.path.join(calib, f)).astype(np.float64).reshape(-1) for f in sorted(os.listdir(calib))
          if f.endswith('.npy')]
    x = np.stack(xs)
    h = gelu(x @ w['stem.weight'].T + w['stem.bias'])
    scores = []
    for b in range(6):
        p = 'blocks.%d.' % b
        u = layer_norm(h, w[p + 'norm.weight'], w[p + 'norm.bias'])
        a = gelu(u @ w[p + 'up.weight'].T + w[p + 'up.bias'])
        h = h + a @ w[p + 'down.weight'].T + w[p + 'down.bias']
        if kind == 'magnitude':
            s = np.sqrt((w[p + 'up.weight'] ** 2).sum(axis=1))
        else:
            s = np.abs(a).mean(axis=0)
            if kind == 'act-weight':
                s = s * np.sqrt((w[p + 'down.weight'] ** 2).sum(axis=0))
        scores.append(s)
    rep = json.load(open(report))
    bad = 0
    groups = rep['groups']
    if len(groups) != 6:
        print('expected 6 FFN groups, the report has %d' % len(groups))
        return 1
    for b, g in enumerate(groups):
        s = scores[b]
        k = g['n_kept']
        order = sorted(range(len(s)), key=lambda i: (-s[i], i))
        want = sorted(order[:k])
        got = g['retained']
        if got == want:
            continue
        extra = sorted(set(got) - set(want))
        missing = sorted(set(want) - set(got))
        for i, j in zip(extra, missing):
            if abs(s[i] - s[j]) > 1e-5 * max(abs(s[i]), abs(s[j])):
                print('block %d: kept %d (score %.9g) instead of %d (score %.9g)' % (b, i, s[i], j, s[j]))
                bad += 1
        if len(extra) != len(missing):
            print('block %d: %d retained, expected %d' % (b, len(got), len(want)))
            bad += 1
    return 1 if bad else 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == 'meta':
        return meta(sys.argv[2])
    if len(sys.argv) == 6 and sys.argv[1] == 'importance':
        return importance(*sys.argv[2:])
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
