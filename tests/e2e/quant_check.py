#!/usr/bin/env python3
"""Independent checks of `litegpu quantize --json` (stdlib only, no numpy).

usage:
  quant_check.py same A.npy B.npy        the same shape, type and values (integer outputs)
  quant_check.py sizes REPORT.json OUT.flatc.json
      Every weight the report lists is found in the flatc dump of the written file (flatc is
      an independent flatbuffers reader) under its stored name (NAME_fp16 / NAME_int8 /
      NAME_int4): its type, its data bytes (FLOAT16 2 x n, INT8 n, INT4 ceil(n / 2): two per
      byte), its scales (one per channel along the reported axis, or one) and zero points
      (as many, all 0) must be what the mode says, and
          bytes_after = data + 4 x scales + 8 x zero points
      (the schema's float and long vectors) for each weight and summed, as the report says.
      Prints the totals and the ratio to the weights as FLOAT32.
  figures REPORT.json REF_DIR TEST_DIR CASE...
      REF_DIR/CASE/output_K.npy (the input model) and TEST_DIR/CASE/output_K.npy (the quantized
      one), written by `litegpu run`: the SNR, cosine, max abs error and argmax agreement over
      the cases, computed here, must equal the report's (relative 1e-8: the JSON prints 9 significant digits).
Exit 0 when every check holds, 1 otherwise (the failures are printed).
"""
import array, ast, json, math, struct, sys


def load_npy(path):
    with open(path, 'rb') as f:
        data = f.read()
    major = data[6]
    hlen, start = (struct.unpack('<H', data[8:10])[0], 10) if major == 1 else (struct.unpack('<I', data[8:12])[0], 12)
    header = ast.literal_eval(data[start:start + hlen].decode('latin1'))
    kinds = {'<f4': 'f', '<i4': 'i', '<i8': 'q', '|i1': 'b', '|u1': 'B', '|b1': 'B'}
    a = array.array(kinds[header['descr']])
    a.frombytes(data[start + hlen:])
    return tuple(header['shape']), a


def prod(s):
    n = 1
    for d in s:
        n *= d
    return n


def sizes(report, dump):
    r = json.load(open(report))
    m = json.load(open(dump))
    sg = m['subgraphs'][0]
    tensors = {t.get('name', ''): t for t in sg['tensors']}
    bufs = m['buffers']
    suffix = {'FLOAT16': '_fp16', 'INT8': '_int8', 'INT4': '_int4'}
    bad = []
    total = 0
    for w in r['weights']['tensors']:
        to = w['to']
        stored = w['stored']
        if not stored.endswith(suffix[to]) or stored[:-len(suffix[to])] != w['name']:
            bad.append('%s: stored as %r, not NAME%s' % (w['name'], stored, suffix[to]))
        t = tensors.get(stored)
        if t is None:
            bad.append('%s: no tensor %r in the file' % (w['name'], stored))
            continue
        if t.get('type', 'FLOAT32') != to:
            bad.append('%s: stored as %s, the report says %s' % (stored, t.get('type', 'FLOAT32'), to))
        n = prod(t['shape'])
        if n != w['n_params']:
            bad.append('%s: %d elements, the report says %d' % (stored, n, w['n_params']))
        data = len(bufs[t['buffer']].get('data', []))
        want = {'FLOAT16': 2 * n, 'INT8': n, 'INT4': (n + 1) // 2}[to]
        if data != want:
            bad.append('%s: %d data bytes, %s of %d elements takes %d' % (stored, data, to, n, want))
        q = t.get('quantization') or {}
        scales, zps = q.get('scale', []), q.get('zero_point', [])
        if to == 'FLOAT16':
            if scales or zps:
                bad.append('%s: FLOAT16 with quantization parameters' % stored)
        else:
            axis = w['axis']
            want_s = t['shape'][axis] if axis is not None else 1
            if len(scales) != want_s or len(zps) != want_s:
                bad.append('%s: %d scales, %d zero points; %s wants %d' % (stored, len(scales), len(zps),
                                                                           'axis %s' % axis, want_s))
            if any(z != 0 for z in zps):
                bad.append('%s: a zero point is not 0' % stored)
            if axis is not None and len(scales) > 1 and q.get('quantized_dimension', 0) != axis:
                bad.append('%s: quantized_dimension %s, the report says %s' % (stored, q.get('quantized_dimension', 0), axis))
        b = data + 4 * len(scales) + 8 * len(zps)
        if b != w['bytes_after']:
            bad.append('%s: %d B stored, the report says %d' % (stored, b, w['bytes_after']))
        total += b
    if total != r['weights']['bytes_after']:
        bad.append('total %d B, the report says %d' % (total, r['weights']['bytes_after']))
    fp32 = r['weights']['bytes_fp32']
    print('%d weights %d -> %d B, %.4gx of FLOAT32 (%d B)' % (len(r['weights']['tensors']), r['weights']['bytes_before'],
                                                           total, total / fp32 if fp32 else float('nan'), fp32))
    return bad


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-8 * max(abs(a), abs(b)) + 1e-12  # the JSON holds 9 significant digits


def figures(report, ref_dir, test_dir, cases):
    r = json.load(open(report))
    bad = []
    for o in r['parity']['outputs']:
        k = o['index']
        ref2 = err2 = dot = test2 = 0.0
        max_abs = 0.0
        agree = 0
        for c in cases:
            _, a = load_npy('%s/%s/output_%d.npy' % (ref_dir, c, k))
            _, b = load_npy('%s/%s/output_%d.npy' % (test_dir, c, k))
            for x, y in zip(a, b):
                if not (math.isfinite(x) and math.isfinite(y)):
                    continue
                ref2 += x * x
                err2 += (x - y) ** 2
                dot += x * y
                test2 += y * y
                max_abs = max(max_abs, abs(x - y))
            fa = [(v, i) for i, v in enumerate(a) if not math.isnan(v)]
            fb = [(v, i) for i, v in enumerate(b) if not math.isnan(v)]
            ia = max(fa, key=lambda p: (p[0], -p[1]))[1] if fa else -1
            ib = max(fb, key=lambda p: (p[0], -p[1]))[1] if fb else -1
            agree += ia == ib
        snr = None if ref2 <= 0 else (None if err2 == 0 else 10 * math.log10(ref2 / err2))
        cos = dot / math.sqrt(ref2 * test2) if ref2 > 0 and test2 > 0 else None
        for name, mine, theirs in (('snr_db', snr, o['snr_db']), ('cosine', cos, o['cosine']),
                                   ('max_abs', max_abs, o['max_abs'])):
            if not close(mine, theirs):
                bad.append('output %d %s: computed %r, the report says %r' % (k, name, mine, theirs))
        if agree != o['n_argmax_equal'] or len(cases) != o['n_cases']:
            bad.append('output %d argmax: %d of %d agree here, the report says %d of %d' % (
                k, agree, len(cases), o['n_argmax_equal'], o['n_cases']))
        print('output %d: SNR %s dB, cosine %s, max abs %.3g, argmax %d/%d' % (
            k, 'inf' if snr is None else '%.2f' % snr, 'n/a' if cos is None else '%.6f' % cos, max_abs, agree, len(cases)))
    return bad


def same(a, b):
    sa, x = load_npy(a)
    sb, y = load_npy(b)
    if sa != sb or x.typecode != y.typecode or list(x) != list(y):
        return ['%s and %s differ (%s %s, %s %s)' % (a, b, sa, x.typecode, sb, y.typecode)]
    return []


def main():
    if len(sys.argv) == 4 and sys.argv[1] == 'same':
        bad = same(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == 'sizes':
        bad = sizes(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 6 and sys.argv[1] == 'figures':
        bad = figures(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    else:
        print(__doc__)
        return 2
    for b in bad:
        print('MISMATCH ' + b)
    return 1 if bad else 0


if __name__ == '__main__':  # hybrid_check.py imports sizes and figures
    sys.exit(main())
