#!/usr/bin/env python3
"""Compare two .npy float32 arrays (stdlib only, no numpy).

usage: npy_compare.py A.npy B.npy REL_TOL
Prints max_abs, the largest |A| and their ratio; exits 0 if max|A-B| <= REL_TOL * max|A|
(and the shapes match and neither side has NaN where the other has a number), else 1.
"""
import array, ast, math, struct, sys


def load(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:6] != b'\x93NUMPY':
        raise SystemExit('%s: not a .npy file' % path)
    major = data[6]
    if major == 1:
        hlen = struct.unpack('<H', data[8:10])[0]
        start = 10
    else:
        hlen = struct.unpack('<I', data[8:12])[0]
        start = 12
    header = ast.literal_eval(data[start:start + hlen].decode('latin1'))
    if header['descr'] != '<f4' or header['fortran_order']:
        raise SystemExit('%s: expected little-endian float32 C-order, got %r' % (path, header))
    a = array.array('f')
    a.frombytes(data[start + hlen:])
    return tuple(header['shape']), a


def main():
    sa, a = load(sys.argv[1])
    sb, b = load(sys.argv[2])
    tol = float(sys.argv[3])
    if sa != sb or len(a) != len(b):
        print('shape %s vs %s' % (sa, sb))
        return 1
    max_abs = 0.0
    mag = 0.0
    bad = 0
    for x, y in zip(a, b):
        if math.isnan(x) or math.isnan(y):
            if not (math.isnan(x) and math.isnan(y)):
                bad += 1
            continue
        mag = max(mag, abs(x))
        max_abs = max(max_abs, abs(x - y))
    rel = max_abs / mag if mag > 0 else (0.0 if max_abs == 0 else math.inf)
    print('shape %s max_abs %.3g max|ref| %.4g rel %.3g nan-mismatch %d' % (sa, max_abs, mag, rel, bad))
    return 0 if bad == 0 and max_abs <= tol * mag else 1


sys.exit(main())
