#!/usr/bin/python3
"""Checks for tests/e2e/test_tile.sh (Debian's /usr/bin/python3 with numpy).

usage:
  tile_check.py report JSON OUT CHECK...     assert facts of `litegpu tile --json` for output OUT;
                                              each CHECK is PATH=VALUE, PATH dotted into the output
                                              object ("axes.0.rf=5", "exact=true",
                                              "first_inexact.op_name=MEAN", "whys~attention": some
                                              breaker has why attention)
  tile_check.py impulse BASE.npy POS AMP OUT.npy   write BASE with AMP added at flat index POS
  tile_check.py changed A.npy B.npy AXIS LO HI     the positions along AXIS where A and B differ:
                                              all inside [LO, HI], and LO or HI itself among
                                              them (the receptive field reaches its edge);
                                              prints them
The expected values are the test's hand arithmetic, never the tool's output.
"""
import json
import sys

import numpy as np


def get(obj, path):
    for part in path.split('.'):
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]
    return obj


def report(args):
    d = json.load(open(args[0]))
    out = [o for o in d['outputs'] if o['index'] == int(args[1])][0]
    bad = 0
    for chk in args[2:]:
        if '~' in chk:
            key, want = chk.split('~', 1)
            if key == 'whys':
                got = [b['why'] for b in out['breakers']]
                ok = want in got
            else:
                got = get(out, key)
                ok = want in str(got)
        else:
            key, want = chk.split('=', 1)
            got = get(out, key)
            ok = json.dumps(got, separators=(',', ':')) == want or str(got) == want
        if not ok:
            print('%s: got %r' % (chk, got))
            bad += 1
    return 1 if bad else 0


def impulse(args):
    a = np.load(args[0]).astype(np.float32)
    flat = a.reshape(-1)
    flat[int(args[1])] += np.float32(float(args[2]))
    np.save(args[3], a)
    return 0


def changed(args):
    a, b = np.load(args[0]), np.load(args[1])
    axis, lo, hi = int(args[2]), int(args[3]), int(args[4])
    diff = np.abs(a.astype(np.float64) - b.astype(np.float64)) > 0
    other = tuple(i for i in range(diff.ndim) if i != axis)
    pos = sorted(int(p) for p in np.nonzero(diff.any(axis=other))[0])
    print('changed along axis %d: %s' % (axis, pos))
    if not pos:
        return 1
    if pos[0] < lo or pos[-1] > hi:
        return 1
    return 0 if (lo in pos or hi in pos) else 1


if __name__ == '__main__':
    sys.exit({'report': report, 'impulse': impulse, 'changed': changed}[sys.argv[1]](sys.argv[2:]))
