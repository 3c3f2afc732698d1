#!/usr/bin/env python3
"""Independent checks of an int8-dynamic file (stdlib only), read through flatc's JSON dump.

usage:
  hybrid_check.py form REPORT.json OUT.flatc.json [--per-tensor]
      The form TFLite's dynamic-range converter writes (tflite/converter/transforms/
      prepare_quantize_dynamic_range.cc, quantize.cc; versions from tools/versioning/
      op_version.cc, re-derived here from the types, not read from litegpu):
      - an op that reads an INT8 constant directly is CONV_2D, DEPTHWISE_CONV_2D,
        FULLY_CONNECTED or BATCH_MATMUL (a hybrid op); its zero points are 0; FULLY_CONNECTED
        and BATCH_MATMUL have asymmetric_quantize_inputs; its version is TFLite's:
          CONV_2D 5 with a scale per output channel, else 2; DEPTHWISE_CONV_2D 6 (per channel),
          else 4; FULLY_CONNECTED 12 per channel, else 6 without a bias input, 5 with
          keep_num_dims, else 9 (asymmetric); BATCH_MATMUL 4;
        per channel unless --per-tensor (BATCH_MATMUL always per tensor); a DEPTHWISE_CONV_2D
        with --per-tensor reads its weights through DEQUANTIZE;
      - a DEQUANTIZE of an INT8 constant feeds only TRANSPOSE_CONV, GATHER, EMBEDDING_LOOKUP
        (or, with --per-tensor, DEPTHWISE_CONV_2D);
      - every quantized weight the report lists has 1024 elements or more; a float weight of
        a hybrid-capable op with 1024 or more is listed as skipped with a reason, and every
        "fewer than the 1024" reason names a count below 1024.
      Prints one summary line; exit 0 when all hold, 1 otherwise (each failure printed).
  hybrid_check.py batch LIST
      One check per line of LIST (whitespace-separated fields; DIRs hold output_K.npy):
        form LABEL REPORT DUMP [--per-tensor]    the above
        notform LABEL REPORT DUMP                the above must fail (a near miss)
        sizes LABEL REPORT DUMP                  quant_check.py sizes
        figures LABEL REPORT REF TEST C1,C2,..   quant_check.py figures
        exact LABEL PEER TEST                    every output bit for bit (rel 0)
        float LABEL PEER TEST FPEER FTEST        rel <= max(4 x the float model's rel, 1e-6)
        within LABEL PEER TEST TOL               rel <= TOL
        info LABEL PEER TEST FTEST               prints the smallest SNR of TEST and FTEST vs PEER
        gpu LABEL GPU CPU DEQ                    rel(GPU, DEQ) <= 1e-6 and rel(CPU, DEQ) > 1e-4
      where rel = max over outputs of max |a - b| / max |a|. Prints PASS / FAIL lines and
      "batch: N passed, N failed"; exit 1 when any failed.
"""
import io, json, math, os, re, sys
from contextlib import redirect_stdout


def prod(s):
    n = 1
    for d in s:
        n *= d
    return n


def form(report, dump, per_tensor):
    r = json.load(open(report))
    m = json.load(open(dump))
    sg = m['subgraphs'][0]
    T = sg['tensors']
    bufs = m['buffers']
    codes = [(c.get('builtin_code', 'ADD'), c.get('version', 1)) for c in m['operator_codes']]
    const = lambda t: t >= 0 and T[t].get('buffer', 0) > 0 and len(bufs[T[t]['buffer']].get('data', [])) > 0
    ttype = lambda t: T[t].get('type', 'FLOAT32')
    producer = {}
    for i, op in enumerate(sg['operators']):
        for o in op.get('outputs', []):
            producer[o] = i
    bad = []
    hybrid = {'CONV_2D', 'DEPTHWISE_CONV_2D', 'FULLY_CONNECTED', 'BATCH_MATMUL'}
    n_hyb = {}
    skipped = {s['name']: s['why'] for s in r['weights']['skipped']}
    for i, op in enumerate(sg['operators']):
        code, ver = codes[op.get('opcode_index', 0)]
        ins = op.get('inputs', [])
        o = op.get('builtin_options', {})
        for slot, t in enumerate(ins):
            if t < 0 or not const(t) or ttype(t) != 'INT8' or code == 'DEQUANTIZE':
                continue
            if code not in hybrid:
                bad.append('op %d %s reads INT8 constant %d directly' % (i, code, t))
                continue
            q = T[t].get('quantization', {})
            sc, zp, shape = q.get('scale', []), q.get('zero_point', []), T[t]['shape']
            if any(z != 0 for z in zp):
                bad.append('op %d %s: INT8 weights with zero points %s' % (i, code, zp[:4]))
            axis = {'CONV_2D': 0, 'DEPTHWISE_CONV_2D': 3, 'FULLY_CONNECTED': 0}.get(code)
            want_n = shape[axis] if axis is not None and not per_tensor else 1
            if len(sc) != want_n or (want_n > 1 and q.get('quantized_dimension', 0) != axis):
                bad.append('op %d %s: %d scales on dimension %d, want %d' % (i, code, len(sc),
                                                                         q.get('quantized_dimension', 0), want_n))
            if code == 'CONV_2D':
                want = 5 if len(sc) == shape[0] and shape[0] > 0 and len(sc) > 1 else 2
            elif code == 'DEPTHWISE_CONV_2D':
                want = 6 if len(sc) == shape[3] else 4
                if per_tensor:
                    bad.append('op %d: a --per-tensor DEPTHWISE_CONV_2D reads INT8 directly' % i)
            elif code == 'FULLY_CONNECTED':
                if not o.get('asymmetric_quantize_inputs', False):
                    bad.append('op %d FULLY_CONNECTED without asymmetric_quantize_inputs' % i)
                if len(sc) == shape[0]:
                    want = 12
                elif len(ins) == 2:
                    want = 6
                elif o.get('keep_num_dims', False):
                    want = 5
                else:
                    want = 9
            else:
                if not o.get('asymmetric_quantize_inputs', False):
                    bad.append('op %d BATCH_MATMUL without asymmetric_quantize_inputs' % i)
                want = 4
            if ver != want:
                bad.append('op %d %s: version %d, TFLite gives %d' % (i, code, ver, want))
            n_hyb[code] = n_hyb.get(code, 0) + 1
        # DEQUANTIZE of INT8 feeding ops
        for t in ins:
            p = producer.get(t)
            if p is None:
                continue
            pop = sg['operators'][p]
            if codes[pop.get('opcode_index', 0)][0] != 'DEQUANTIZE':
                continue
            src = pop['inputs'][0]
            if ttype(src) == 'INT8':
                ok = {'TRANSPOSE_CONV', 'GATHER', 'EMBEDDING_LOOKUP'} | ({'DEPTHWISE_CONV_2D'} if per_tensor else set())
                if code not in ok:
                    bad.append('op %d %s reads an INT8 DEQUANTIZE (hybrid ops read INT8 directly)' % (i, code))
        # float weights of hybrid-capable ops left as they were
        if code in hybrid and len(ins) > 1 and ins[1] >= 0:
            w = ins[1]
            src = w
            if not const(w) and w in producer and codes[sg['operators'][producer[w]].get('opcode_index', 0)][0] == 'DEQUANTIZE':
                src = sg['operators'][producer[w]]['inputs'][0]
            if const(src) and ttype(src) in ('FLOAT32', 'FLOAT16') and prod(T[src]['shape']) >= 1024:
                if code == 'BATCH_MATMUL' and const(ins[0]):
                    continue
                if T[w].get('name') not in skipped and T[src].get('name') not in skipped:
                    bad.append('op %d %s: float weights %r of %d elements, not quantized and not reported skipped' %
                               (i, code, T[w].get('name'), prod(T[src]['shape'])))
    for w in r['weights']['tensors']:
        if w['n_params'] < 1024:
            bad.append('%s: quantized with %d elements (< 1024)' % (w['name'], w['n_params']))
    n_small = 0
    for name, why in skipped.items():
        mm = re.match(r'(\d+) elements, fewer than the 1024', why)
        if mm:
            n_small += 1
            if int(mm.group(1)) >= 1024:
                bad.append('%s: skipped as small with %s elements' % (name, mm.group(1)))
    for b in bad:
        print('MISMATCH ' + b)
    print('hybrid ops %s, %d weights INT8, %d kept float (< 1024), %d skipped in all' %
          (','.join('%s %d' % kv for kv in sorted(n_hyb.items())) or 'none', len(r['weights']['tensors']), n_small,
           len(skipped)))
    return 0 if not bad else 1


def outputs(d):
    return sorted(f for f in os.listdir(d) if f.startswith('output_') and f.endswith('.npy'))


def rel(ref_dir, test_dir):
    """max over outputs of max|a - b| / max|a| (inf when shapes or NaNs disagree)"""
    from quant_check import load_npy
    worst = 0.0
    names = outputs(ref_dir)
    if not names or names != outputs(test_dir):
        return float('inf')
    for f in names:
        sa, a = load_npy(os.path.join(ref_dir, f))
        sb, b = load_npy(os.path.join(test_dir, f))
        if sa != sb:
            return float('inf')
        mx = max((abs(x) for x in a if math.isfinite(x)), default=0.0)
        d = 0.0
        for x, y in zip(a, b):
            if math.isnan(x) != math.isnan(y):
                return float('inf')
            if x != y and not (math.isnan(x) and math.isnan(y)):
                d = max(d, abs(x - y))
        if d > 0:
            worst = max(worst, d / mx if mx > 0 else float('inf'))
    return worst


def snr(ref_dir, test_dir):
    from quant_check import load_npy
    worst = float('inf')
    for f in outputs(ref_dir):
        _, a = load_npy(os.path.join(ref_dir, f))
        _, b = load_npy(os.path.join(test_dir, f))
        s = sum(x * x for x in a)
        e = sum((x - y) ** 2 for x, y in zip(a, b))
        if e > 0 and s > 0:
            worst = min(worst, 10 * math.log10(s / e))
    return worst


def batch(path):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import quant_check
    n_pass = n_fail = 0

    def result(good, label, text):
        nonlocal n_pass, n_fail
        print('%s %s: %s' % ('PASS' if good else 'FAIL', label, text))
        if good:
            n_pass += 1
        else:
            n_fail += 1

    for line in open(path):
        f = line.split()
        if not f:
            continue
        kind, label, a = f[0], f[1], f[2:]
        try:
            if kind in ('form', 'notform'):
                buf = io.StringIO()
                with redirect_stdout(buf):
                    rc = form(a[0], a[1], '--per-tensor' in a[2:])
                out = buf.getvalue().strip().splitlines()
                if kind == 'form':
                    result(rc == 0, label, out[-1] if rc == 0 else '; '.join(out[:3]))
                else:
                    result(rc != 0, label, 'fails the dynamic form check (%d mismatches)' % (len(out) - 1))
            elif kind in ('sizes', 'figures'):
                buf = io.StringIO()
                with redirect_stdout(buf):
                    bad = quant_check.sizes(a[0], a[1]) if kind == 'sizes' else \
                        quant_check.figures(a[0], a[1], a[2], a[3].split(','))
                text = buf.getvalue().strip().replace('\n', '; ')
                result(not bad, label, text if not bad else '; '.join(bad[:3]))
            elif kind == 'exact':
                r = rel(a[0], a[1])
                result(r == 0, label, 'bit-exact' if r == 0 else 'rel %.3g' % r)
            elif kind == 'float':
                r, fr = rel(a[0], a[1]), rel(a[2], a[3])
                tol = max(4 * fr, 1e-6)
                result(r <= tol, label, 'rel %.3g, within max(4 x the float model\'s %.3g, 1e-6)' % (r, fr))
            elif kind == 'within':
                r = rel(a[0], a[1])
                result(r <= float(a[2]), label, 'rel %.3g (tolerance %s)' % (r, a[2]))
            elif kind == 'info':
                print('INFO %s: smallest SNR vs LiteRT.js: %.1f dB, the float model %.1f dB' %
                      (label, snr(a[0], a[1]), snr(a[0], a[2])))
            elif kind == 'gpu':
                g, c = rel(a[0], a[2]), rel(a[1], a[2])
                result(g <= 1e-6 and c > 1e-4, label,
                       'GPU vs the float op on the dequantized weights %.3g; the CPU\'s hybrid result %.3g away' % (g, c))
            else:
                result(False, label, 'unknown check %r' % kind)
        except Exception as e:  # a missing file is a failure of that check, not of the batch
            result(False, label, '%s: %s' % (type(e).__name__, e))
    print('batch: %d passed, %d failed' % (n_pass, n_fail))
    return 0 if n_fail == 0 else 1


if __name__ == '__main__':
    if len(sys.argv) >= 4 and sys.argv[1] == 'form':
        sys.exit(form(sys.argv[2], sys.argv[3], '--per-tensor' in sys.argv[4:]))
    if len(sys.argv) == 3 and sys.argv[1] == 'batch':
        sys.exit(batch(sys.argv[2]))
    sys.stderr.write(__doc__)
    sys.exit(2)
