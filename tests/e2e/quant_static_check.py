#!/usr/bin/env python3
"""Independent checks of `litegpu quantize --mode int8-static` files (stdlib only, no numpy).

usage:
  quant_static_check.py image SHAPE SEED OUT.npy
      A deterministic image-like float32 input of SHAPE (comma-separated, e.g. 1,224,224,3):
      smooth waves in [0, 1] plus a little noise from a 64-bit LCG seeded with SEED.
  quant_static_check.py form MODEL.tflite FLATC.json REPORT.json
      The written file (as flatc reads it) has the form int8-static promises:
       - every INT8 runtime tensor: one scale > 0, one zero point in [-128, 127];
       - a data-movement op (RESHAPE, TRANSPOSE, PAD, PADV2, MAX_POOL_2D, ...) on INT8 data
         gives its outputs its input's scale and zero point; a PADV2's pad value too;
       - CONCATENATION / PACK / MAXIMUM / MINIMUM on INT8: every input has the output's parameters;
       - LOGISTIC / SOFTMAX outputs 1/256, -128; TANH 1/128, 0;
       - CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED / TRANSPOSE_CONV on INT8: INT8 weights
         with zero points 0, an INT32 bias with zero points 0 and scale[c] = s_in * s_w[c];
       - no DEQUANTIZE feeds a QUANTIZE; the graph I/O is FLOAT32 (INT8 with --int8-io);
       - the QUANTIZE / DEQUANTIZE counts are the report's.
      flatc 2.0.8 prints floats with 6 decimals: the scales are read from MODEL.tflite itself
      (a minimal flatbuffers walk), compared exactly, products of float32 to 1e-6.
  quant_static_check.py clamps MODEL.tflite FLATC.json
      The clamps left and folded: prints "clamps=N fused=CODE:ACT:WHERE,..." with N the
      MAXIMUM / MINIMUM / RELU / RELU6 / RELU_N1_TO_1 / RELU_0_TO_1 ops of the file and, per
      INT8 CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED in op order, its fused activation and
      WHERE its integer bounds (TFLite's q(v) = zp + round(v / s), clamped) fall: "inside" when
      one is strictly inside [-128, 127] (the activation clamps more than int8 saturation),
      "edge" when both are -128 and 127.
  quant_static_check.py units MODEL.tflite FLATC.json REF_DIR TEST_DIR
      REF_DIR/output_K.npy against TEST_DIR/output_K.npy (float or INT8) in units of each
      output's scale (the scale of the INT8 tensor its DEQUANTIZE reads, or its own; an output
      a float op writes: absolute): prints
      "max U units (N of M values differ)" per output and the largest over all as the last line
      "worst U".
Exit 0 when every check holds, 1 otherwise (the failures are printed).
"""
import array, ast, json, math, struct, sys

MOVE = {'RESHAPE': 0, 'SQUEEZE': 0, 'EXPAND_DIMS': 0, 'TRANSPOSE': 0, 'SLICE': 0, 'STRIDED_SLICE': 0, 'GATHER': 0,
        'PAD': 0, 'PADV2': 0, 'MIRROR_PAD': 0, 'MAX_POOL_2D': 0, 'AVERAGE_POOL_2D': 0, 'RESIZE_NEAREST_NEIGHBOR': 0,
        'SPACE_TO_DEPTH': 0, 'DEPTH_TO_SPACE': 0, 'SPLIT': 1, 'SPLIT_V': 0, 'UNPACK': 0, 'RESIZE_BILINEAR': 0,
        'REDUCE_MAX': 0, 'REDUCE_MIN': 0}
JOIN = ('CONCATENATION', 'PACK', 'MAXIMUM', 'MINIMUM')
FIXED = {'LOGISTIC': (1 / 256, -128), 'SOFTMAX': (1 / 256, -128), 'TANH': (1 / 128, 0)}
WEIGHTED = {'CONV_2D': (0, 2), 'DEPTHWISE_CONV_2D': (0, 2), 'FULLY_CONNECTED': (0, 2), 'TRANSPOSE_CONV': (2, 3)}  # data, bias
CLAMPS = ('MAXIMUM', 'MINIMUM', 'RELU', 'RELU6', 'RELU_N1_TO_1', 'RELU_0_TO_1')
ACT_BOUNDS = {'RELU': (0.0, None), 'RELU6': (0.0, 6.0), 'RELU_N1_TO_1': (-1.0, 1.0)}


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


def image(shape, seed, out):
    dims = [int(d) for d in shape.split(',')]
    n = 1
    for d in dims:
        n *= d
    c = dims[-1]
    w = dims[-2] if len(dims) >= 2 else 1
    state = (int(seed) * 6364136223846793005 + 1442695040888963407) & (2 ** 64 - 1)
    vals = array.array('f')
    for i in range(n):
        ch, pix = i % c, i // c
        x, y = pix % w, pix // w
        state = (state * 6364136223846793005 + 1442695040888963407) & (2 ** 64 - 1)
        noise = ((state >> 40) / float(1 << 24)) - 0.5
        v = 0.5 + 0.3 * math.sin(0.07 * x * (1 + int(seed) % 3) + 0.5 * ch + int(seed)) * math.cos(0.05 * y + 0.3 * ch) \
            + 0.08 * noise
        vals.append(min(1.0, max(0.0, v)))
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (''.join('%d, ' % d for d in dims))
    header += ' ' * (63 - (10 + len(header)) % 64) + '\n'  # the data starts 64-byte aligned
    with open(out, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode('latin1'))
        f.write(vals.tobytes())
    return []


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def exact_scales(tflite):
    """Every tensor's quantization scales of subgraph 0, as float32, read from the file itself
    (flatc 2.0.8 prints floats with 6 decimals): Model.subgraphs (field 2) -> SubGraph.tensors
    (0) -> Tensor.quantization (4) -> QuantizationParameters.scale (2)."""
    b = open(tflite, 'rb').read()
    u32 = lambda p: struct.unpack_from('<I', b, p)[0]

    def field(t, i):
        vt = t - struct.unpack_from('<i', b, t)[0]
        n = struct.unpack_from('<H', b, vt)[0]
        if 4 + 2 * i >= n:
            return None
        off = struct.unpack_from('<H', b, vt + 4 + 2 * i)[0]
        return t + off if off else None

    def vec(p):
        v = p + u32(p)
        return v + 4, u32(v)

    root = u32(0)
    sgs, _ = vec(field(root, 2))
    sg = sgs + u32(sgs)
    ts, n = vec(field(sg, 0))
    out = []
    for i in range(n):
        t = ts + 4 * i + u32(ts + 4 * i)
        q = field(t, 4)
        sc = []
        if q is not None:
            qt = q + u32(q)
            f = field(qt, 2)
            if f is not None:
                v, k = vec(f)
                sc = list(struct.unpack_from('<%df' % k, b, v))
        out.append(tuple(sc))
    return out


class Model:
    def __init__(self, tflite, path):
        m = json.load(open(path))
        self.scales = exact_scales(tflite)
        self.sg = m['subgraphs'][0]
        self.t = self.sg['tensors']
        self.bufs = m['buffers']
        self.codes = [c.get('builtin_code', 'ADD') for c in m['operator_codes']]  # ADD (0) is the default
        self.ops = self.sg['operators']

    def code(self, op):
        return self.codes[op.get('opcode_index', 0)]

    def typ(self, i):
        return self.t[i].get('type', 'FLOAT32')

    def q(self, i):
        return self.t[i].get('quantization') or {}

    def params(self, i):
        q = self.q(i)
        return self.scales[i], tuple(q.get('zero_point', []))

    def const(self, i):
        b = self.t[i].get('buffer', 0)
        return b and len(self.bufs[b].get('data', [])) > 0


def form(tflite, flatc, report):
    m = Model(tflite, flatc)
    r = json.load(open(report))
    st = r['static']
    bad = []
    for i, t in enumerate(m.t):
        if m.typ(i) == 'INT8' and not m.const(i):
            s, z = m.params(i)
            if len(s) != 1 or len(z) != 1 or not (s[0] > 0 and math.isfinite(s[0])) or not -128 <= z[0] <= 127:
                bad.append('tensor %d %s: INT8 with scales %s zero points %s' % (i, t.get('name'), s, z))
    nq = nd = 0
    produced = {}
    for k, op in enumerate(m.ops):
        for o in op['outputs']:
            produced[o] = k
    for k, op in enumerate(m.ops):
        c = m.code(op)
        ins = [x for x in op.get('inputs', []) if x >= 0]
        outs = op['outputs']
        if c == 'QUANTIZE':
            p = produced.get(ins[0])
            if p is not None and m.code(m.ops[p]) == 'DEQUANTIZE':
                bad.append('op %d: QUANTIZE of a DEQUANTIZE output (a pair that cancels)' % k)
            if m.typ(ins[0]) == 'FLOAT32':
                nq += 1
        if c == 'DEQUANTIZE' and m.typ(ins[0]) == 'INT8' and not m.const(ins[0]):
            nd += 1
        if c in MOVE and m.typ(op['inputs'][MOVE[c]]) == 'INT8':
            want = m.params(op['inputs'][MOVE[c]])
            for o in outs:
                if m.params(o) != want:
                    bad.append('op %d %s: output %s has %s, its input %s' % (k, c, m.t[o].get('name'), m.params(o), want))
            if c == 'PADV2' and len(op['inputs']) > 2 and m.params(op['inputs'][2]) != want:
                bad.append('op %d PADV2: the pad value has %s, the data %s' % (k, m.params(op['inputs'][2]), want))
        if c in JOIN and m.typ(outs[0]) == 'INT8':
            for x in ins:
                if m.params(x) != m.params(outs[0]):
                    bad.append('op %d %s: input %s has %s, the output %s' % (k, c, m.t[x].get('name'), m.params(x),
                                                                             m.params(outs[0])))
        if c in FIXED and m.typ(outs[0]) == 'INT8':
            s, z = m.params(outs[0])
            if s[0] != FIXED[c][0] or z[0] != FIXED[c][1]:
                bad.append('op %d %s: output %s, %s, TFLite fixes %s' % (k, c, s, z, FIXED[c]))
        if c in WEIGHTED and m.typ(op['inputs'][WEIGHTED[c][0]]) == 'INT8':
            w = op['inputs'][1]
            ws, wz = m.params(w)
            if m.typ(w) != 'INT8' or any(z != 0 for z in wz):
                bad.append('op %d %s: weights %s zero points %s' % (k, c, m.typ(w), wz))
            bi = WEIGHTED[c][1]
            if len(op['inputs']) > bi and op['inputs'][bi] >= 0:
                b = op['inputs'][bi]
                bs, bz = m.params(b)
                sx = m.params(op['inputs'][WEIGHTED[c][0]])[0][0]
                if m.typ(b) != 'INT32' or any(z != 0 for z in bz) or len(bs) != len(ws):
                    bad.append('op %d %s: bias %s, %d scales (weights %d), zero points %s' % (k, c, m.typ(b), len(bs), len(ws), bz))
                else:
                    for j, (s1, s2) in enumerate(zip(bs, ws)):
                        if abs(s1 - f32(sx * s2)) > 1e-6 * abs(s1):
                            bad.append('op %d %s: bias scale %d %g != s_in %g x s_w %g' % (k, c, j, s1, sx, s2))
                            break
    io = 'INT8' if st['int8_io'] else 'FLOAT32'
    for i in list(m.sg.get('inputs', [])) + list(m.sg.get('outputs', [])):
        if m.typ(i) not in (io, 'INT32', 'INT64', 'BOOL'):
            bad.append('graph I/O tensor %d is %s, want %s' % (i, m.typ(i), io))
    if nq != st['n_quantize']:
        bad.append('%d QUANTIZE float -> int8, the report says %d' % (nq, st['n_quantize']))
    if nd != st['n_dequantize']:
        bad.append('%d DEQUANTIZE int8 -> float, the report says %d' % (nd, st['n_dequantize']))
    print('%d ops: %d int8, %d float; %d QUANTIZE, %d DEQUANTIZE, %d requantize' % (
        len(m.ops), st['n_ops_int8'], st['n_ops_float'], nq, nd, st['n_requantize']))
    return bad


def clamps(tflite, flatc):
    m = Model(tflite, flatc)
    n = sum(1 for op in m.ops if m.code(op) in CLAMPS)
    fused = []
    for op in m.ops:
        c = m.code(op)
        if c not in ('CONV_2D', 'DEPTHWISE_CONV_2D', 'FULLY_CONNECTED') or m.typ(op['outputs'][0]) != 'INT8':
            continue
        act = (op.get('builtin_options') or {}).get('fused_activation_function', 'NONE')
        where = ''
        if act in ACT_BOUNDS:
            y = op['outputs'][0]
            s = f32(m.params(y)[0][0])
            zp = m.params(y)[1][0]
            a, b = ACT_BOUNDS[act]
            lo = max(-128, zp + int(math.copysign(math.floor(abs(f32(a / s)) + 0.5), a)))
            hi = 127 if b is None else min(127, zp + int(math.copysign(math.floor(abs(f32(b / s)) + 0.5), b)))
            where = ':inside' if lo > -128 or hi < 127 else ':edge'
        fused.append('%s:%s%s' % (c, act, where))
    print('clamps=%d fused=%s' % (n, ','.join(fused)))
    return []


def units(tflite, flatc, ref_dir, test_dir):
    m = Model(tflite, flatc)
    produced = {}
    for op in m.ops:
        for o in op['outputs']:
            produced[o] = op
    worst = 0.0
    bad = []
    for k, t in enumerate(m.sg['outputs']):
        src = t
        op = produced.get(t)
        if m.typ(t) != 'INT8' and op is not None and m.code(op) == 'DEQUANTIZE':
            src = op['inputs'][0]
        s = m.params(src)[0]
        scale = s[0] if s else 1.0  # an output a float op writes: absolute differences
        _, a = load_npy('%s/output_%d.npy' % (ref_dir, k))
        _, b = load_npy('%s/output_%d.npy' % (test_dir, k))
        if len(a) != len(b):
            bad.append('output %d: %d vs %d values' % (k, len(a), len(b)))
            continue
        d = [abs(x - y) for x, y in zip(a, b)]
        u = max(d) / scale if d else 0.0
        worst = max(worst, u)
        print('output %d: max %.3g %s (%d of %d values differ)' % (k, u, 'units' if s else 'absolute (a float output)',
                                                                  sum(1 for x in d if x), len(d)))
    print('worst %.6g' % worst)
    return bad


def main():
    a = sys.argv
    if len(a) == 5 and a[1] == 'image':
        bad = image(a[2], a[3], a[4])
    elif len(a) == 5 and a[1] == 'form':
        bad = form(a[2], a[3], a[4])
    elif len(a) == 4 and a[1] == 'clamps':
        bad = clamps(a[2], a[3])
    elif len(a) == 6 and a[1] == 'units':
        bad = units(a[2], a[3], a[4], a[5])
    else:
        print(__doc__)
        return 2
    for b in bad:
        print('MISMATCH ' + b)
    return 1 if bad else 0


sys.exit(main())
