#!/usr/bin/env python3
"""Many LiteRT.js-vs-litegpu output comparisons in one process (stdlib only).

usage: peer_rel.py < TASKS        one task per line, tab-separated:
    LABEL  REF_DIR  TEST_DIR  TOL  WANT  [BASE_REF  BASE_TEST]
For every REF_DIR/output_*.npy: float32 outputs give rel = max|ref - test| / max|ref| (NaN
must meet NaN: a NaN on one side only fails the task), other dtypes must be identical (shape,
dtype, bytes). The task's figure is the worst rel over its outputs; it passes when that is <=
TOL. WANT is the wording of the bound; BASE_* (optional) is the float model's pair, whose
figure is quoted for context. Prints one "PASS ..." or "FAIL ..." line per task; exits 0.
"""
import array, ast, glob, math, os, struct, sys


def load(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:6] != b'\x93NUMPY':
        raise ValueError('%s: not a .npy file' % path)
    if data[6] == 1:
        hlen, start = struct.unpack('<H', data[8:10])[0], 10
    else:
        hlen, start = struct.unpack('<I', data[8:12])[0], 12
    header = ast.literal_eval(data[start:start + hlen].decode('latin1'))
    return header['descr'], tuple(header['shape']), header['fortran_order'], data[start + hlen:]


def rel_of(ref_dir, test_dir):
    """(worst rel, None) or (None, why)."""
    refs = sorted(glob.glob(os.path.join(ref_dir, 'output_*.npy')))
    if not refs:
        return None, 'no outputs in %s' % ref_dir
    worst = 0.0
    for ref in refs:
        k = os.path.basename(ref)
        try:
            da, sa, fa, ba = load(ref)
            db, sb, fb, bb = load(os.path.join(test_dir, k))
        except (OSError, ValueError) as e:
            return None, '%s: %s' % (k, e)
        if sa != sb or da != db or fa or fb:
            return None, '%s: %s %s vs %s %s' % (k, da, sa, db, sb)
        if da != '<f4':
            if ba != bb:
                return None, '%s: integers differ' % k
            continue
        a, b = array.array('f'), array.array('f')
        a.frombytes(ba)
        b.frombytes(bb)
        mag = max_abs = 0.0
        for x, y in zip(a, b):
            if math.isnan(x) or math.isnan(y):
                if not (math.isnan(x) and math.isnan(y)):
                    return None, '%s: NaN on one side only' % k
                continue
            mag = max(mag, abs(x))
            max_abs = max(max_abs, abs(x - y))
        rel = max_abs / mag if mag > 0 else (0.0 if max_abs == 0 else math.inf)
        worst = max(worst, rel)
    return worst, None


def main():
    base_cache = {}
    for line in sys.stdin:
        f = line.rstrip('\n').split('\t')
        if len(f) < 5:
            continue
        label, ref, test, tol, want = f[:5]
        rel, why = rel_of(ref, test)
        ctx = ''
        if len(f) >= 7:
            if f[5] not in base_cache:
                base_cache[f[5]] = rel_of(f[5], f[6])
            br, bw = base_cache[f[5]]
            ctx = ' (float model: %s)' % ('%.3g' % br if bw is None else bw)
        if why is None and rel <= float(tol):
            print('PASS %s: LiteRT.js runs it, litegpu run %s%s: %.3g of the output magnitude' % (label, want, ctx, rel))
        else:
            print('FAIL %s: litegpu run vs LiteRT.js (%s%s): %s' % (label, want, ctx, why if why else '%.3g' % rel))
    return 0


sys.exit(main())
