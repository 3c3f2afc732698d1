#!/usr/bin/env python3
"""Compare two .npy arrays in units of a quantization scale (stdlib only, no numpy).

usage: npy_units.py A.npy B.npy SCALE MAX_UNITS
float32 arrays (dequantized outputs): units = |A - B| / SCALE, rounded to the nearest integer
(a dequantized value is SCALE * integer, so the quotient is an integer up to float error);
integer arrays (int8/uint8/int32 outputs, SCALE ignored): units = |A - B|.
Prints "units_max=K n_diff=D of N"; exits 0 when the shapes match and K <= MAX_UNITS, else 1.
"""
import array, ast, struct, sys

CODES = {'<f4': 'f', '|i1': 'b', '|u1': 'B', '<i4': 'i', '<i2': 'h'}


def load(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:6] != b'\x93NUMPY':
        raise SystemExit('%s: not a .npy file' % path)
    if data[6] == 1:
        hlen, start = struct.unpack('<H', data[8:10])[0], 10
    else:
        hlen, start = struct.unpack('<I', data[8:12])[0], 12
    header = ast.literal_eval(data[start:start + hlen].decode('latin1'))
    code = CODES.get(header['descr'])
    if code is None or header['fortran_order']:
        raise SystemExit('%s: unsupported array %r' % (path, header))
    a = array.array(code)
    a.frombytes(data[start + hlen:])
    return tuple(header['shape']), code, a


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    sa, ca, a = load(sys.argv[1])
    sb, cb, b = load(sys.argv[2])
    scale, limit = float(sys.argv[3]), int(sys.argv[4])
    if sa != sb or len(a) != len(b):
        print('shape %s vs %s' % (sa, sb))
        return 1
    worst, ndiff = 0, 0
    for x, y in zip(a, b):
        if ca == 'f' or cb == 'f':
            if x != x or y != y:
                if (x != x) != (y != y):
                    print('NaN on one side only')
                    return 1
                continue
            u = int(round(abs(x - y) / scale))
        else:
            u = abs(int(x) - int(y))
        if u:
            ndiff += 1
        worst = max(worst, u)
    print('units_max=%d n_diff=%d of %d' % (worst, ndiff, len(a)))
    return 0 if worst <= limit else 1


if __name__ == '__main__':
    sys.exit(main())
