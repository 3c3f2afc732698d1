#!/usr/bin/env python3
"""Independent figures for `litegpu quantize --target-error` (stdlib only, no numpy).

Every figure is recomputed from .npy files that `litegpu run --out-dir` wrote for the float
and the quantized model on the same inputs, never from the report's own numbers.

usage:
  quant_target_check.py figures REPORT.json REF_DIR TEST_DIR [LABELS.txt]
      REF_DIR/NAME/output_K.npy (the float model) and TEST_DIR/NAME/output_K.npy (the written
      model), NAME every case of the report's parity list, in order (a case "000.npy" is read
      from the folder "000": `litegpu run --out-dir` refuses a name ending in .npy). Computes per output
      sum f^2, sum (q - f)^2 (pairs with a non-finite side left out), SNR, argmax agreement,
      and E = max over outputs of sqrt(sum (q - f)^2 / sum f^2); with LABELS (line i: the true
      class of case i) the accuracy of both models (argmax of output 0). Checks them against
      the report: parity snr_db (to 1e-6 dB) and n_argmax_equal per output, and target.error
      (relative 1e-9) when the report has one (target_error). Prints one line of figures.
  quant_target_check.py error REF_DIR TEST_DIR NAME...
      E of TEST against REF over the cases NAME... (prints it, %.9g).
  quant_target_check.py oracle REF_DIR LOGITS.npy NAME...
      REF_DIR/NAME/output_0.npy against row i of LOGITS.npy (PyTorch's logits): per row
      max |ref - got| <= 1e-4 max |ref| and the same argmax.
  quant_target_check.py metadata MODEL.tflite
      The "litegpu.quantize" JSON stored in the file (found in its bytes), as one line.
  quant_target_check.py ere TEXT
      TEXT as an anchored POSIX extended regular expression matching only itself.
Exit 0 when every check holds, 1 otherwise (MISMATCH lines say which).
"""
import array, ast, json, math, os, struct, sys


def load_npy(path):
    with open(path, 'rb') as f:
        data = f.read()
    major = data[6]
    hlen, start = (struct.unpack('<H', data[8:10])[0], 10) if major == 1 else (struct.unpack('<I', data[8:12])[0], 12)
    header = ast.literal_eval(data[start:start + hlen].decode('latin1'))
    kinds = {'<f4': 'f', '<i4': 'i', '<i8': 'q', '|i1': 'b', '|u1': 'B'}
    a = array.array(kinds[header['descr']])
    a.frombytes(data[start + hlen:])
    return tuple(header['shape']), a


def outputs_of(d):
    ks = sorted(int(f[7:-4]) for f in os.listdir(d) if f.startswith('output_') and f.endswith('.npy'))
    return [load_npy(os.path.join(d, 'output_%d.npy' % k)) for k in ks]


def argmax(a):
    best, bv = -1, None
    for i, v in enumerate(a):
        if v != v:
            continue
        if best < 0 or v > bv:
            best, bv = i, v
    return best


def case_dir(d, name):
    """The run folder of case NAME: DIR/NAME, without a .npy suffix (run refuses such a folder)."""
    return os.path.join(d, name[:-4] if name.endswith('.npy') else name)


def sums(ref_dir, test_dir, names):
    """Per output: [ref2, err2, n_argmax_equal, float?]; the argmaxes of output 0 per case."""
    acc = None
    am = []
    for name in names:
        ro, to = outputs_of(case_dir(ref_dir, name)), outputs_of(case_dir(test_dir, name))
        if len(ro) != len(to) or not ro:
            raise SystemExit('MISMATCH %s: %d outputs against %d' % (name, len(ro), len(to)))
        if acc is None:
            acc = [[0.0, 0.0, 0, r[1].typecode == 'f'] for r in ro]
        for k, ((rs, r), (ts, t)) in enumerate(zip(ro, to)):
            for x, y in zip(r, t):
                if not (math.isfinite(x) and math.isfinite(y)):
                    continue
                acc[k][0] += x * x
                acc[k][1] += (x - y) * (x - y)
            acc[k][2] += argmax(r) == argmax(t)
        am.append((argmax(ro[0][1]), argmax(to[0][1])))
    return acc, am


def err_of(acc):
    e = 0.0
    for ref2, err2, _, is_float in acc:
        if not is_float:
            continue
        x = math.sqrt(err2 / ref2) if ref2 > 0 else (0.0 if err2 == 0 else math.inf)
        e = max(e, x)
    return e


def figures(report, ref_dir, test_dir, labels=None):
    r = json.load(open(report))
    p = r['parity']
    names = p['cases']
    acc, am = sums(ref_dir, test_dir, names)
    bad = []
    for k, o in enumerate(p['outputs']):
        ref2, err2, n_eq, _ = acc[k]
        snr = 10 * math.log10(ref2 / err2) if err2 > 0 and ref2 > 0 else None
        if (snr is None) != (o['snr_db'] is None) or (snr is not None and abs(snr - o['snr_db']) > 1e-6):
            bad.append('MISMATCH output %d SNR: computed %s, report %s' % (k, snr, o['snr_db']))
        if n_eq != o['n_argmax_equal']:
            bad.append('MISMATCH output %d argmax: computed %d, report %d' % (k, n_eq, o['n_argmax_equal']))
    e = err_of(acc)
    t = r.get('target_error')
    if t:
        # the report prints 9 significant digits (tools/cli/json.c "%.9g"): half a unit of the
        # ninth digit, plus summation-order rounding of the double sums
        tol = (0.5 * 10 ** (math.floor(math.log10(e)) - 8) if e > 0 else 0) + 1e-12 * e
        if not (abs(e - t['error']) <= tol):
            bad.append('MISMATCH E: computed %.9g, report %.9g' % (e, t['error']))
    line = 'E %.6g (%.2f dB), argmax %d/%d' % (e, -20 * math.log10(e) if e > 0 else math.inf, acc[0][2], len(names))
    if labels:
        lab = [int(x) for x in open(labels).read().split()]
        if len(lab) != len(names):
            bad.append('MISMATCH %d labels for %d cases' % (len(lab), len(names)))
        else:
            a_ref = sum(1 for (ra, _), l in zip(am, lab) if ra == l)
            a_test = sum(1 for (_, ta), l in zip(am, lab) if ta == l)
            line += ', accuracy float %d/%d, quantized %d/%d' % (a_ref, len(lab), a_test, len(lab))
    print(line)
    for b in bad:
        print(b)
    return 1 if bad else 0


def oracle(ref_dir, logits, names):
    shape, v = load_npy(logits)
    n = shape[1]
    bad = 0
    for i, name in enumerate(names):
        got = outputs_of(case_dir(ref_dir, name))[0][1]
        ref = v[i * n:(i + 1) * n]
        scale = max(abs(x) for x in ref)
        worst = max(abs(a - b) for a, b in zip(ref, got))
        if worst > 1e-4 * scale or argmax(ref) != argmax(got):
            print('MISMATCH %s: max |pytorch - litegpu| %.3g of %.3g' % (name, worst, scale))
            bad += 1
    print('%d/%d float runs match PyTorch' % (len(names) - bad, len(names)))
    return 1 if bad else 0


def metadata(model):
    data = open(model, 'rb').read()
    i = data.find(b'{"tool":"litegpu')
    if i < 0:
        print('MISMATCH no litegpu.quantize metadata in %s' % model)
        return 1
    obj, _ = json.JSONDecoder().raw_decode(data[i:].decode('utf-8', 'replace'))
    print(json.dumps(obj))
    return 0


def ere(text):
    return '^' + ''.join('\\' + c if c in '.[]()*+?{}|^$\\' else c for c in text) + '$'


def main(argv):
    if len(argv) >= 4 and argv[1] == 'figures':
        return figures(argv[2], argv[3], argv[4], argv[5] if len(argv) > 5 else None)
    if len(argv) >= 4 and argv[1] == 'error':
        acc, _ = sums(argv[2], argv[3], argv[4:])
        print('%.9g' % err_of(acc))
        return 0
    if len(argv) >= 4 and argv[1] == 'oracle':
        return oracle(argv[2], argv[3], argv[4:])
    if len(argv) == 3 and argv[1] == 'metadata':
        return metadata(argv[2])
    if len(argv) == 3 and argv[1] == 'ere':
        print(ere(argv[2]))
        return 0
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
