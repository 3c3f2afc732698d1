#!/usr/bin/env node
// ort_run.js -- run one .onnx model with onnxruntime-node (CPU) on given .npy inputs and write its
// outputs as .npy: the independent ONNX-side oracle for the ONNX importer (issue #10).
//
// Usage:
//   node peers/ort_run.js MODEL.onnx --out DIR [--input [NAME|INDEX=]FILE.npy]... [--fill half|pattern]
//                         [--threads N] [--opt all|basic|extended|disabled]
//
//   --input F      an input from a NumPy .npy file (format 1.x/2.x, C order, little-endian):
//                  NAME=FILE or INDEX=FILE binds it to that model input; a bare FILE takes the
//                  next unbound input in the model's order. Its dtype and shape must be the
//                  input's where the model states them (a symbolic dim takes the file's size).
//   --fill F       float32 inputs not given with --input are filled (peers/npy.js formulas:
//                  half 0.5, pattern ((i*7919+13)%1009)/1009); without it every input is required
//   --out DIR      writes DIR/output_K.npy for the model's K-th output (created if missing)
//   --threads N    intra-op threads (default 1: the reference run is single-threaded)
//   --opt L        graph optimization level (default all, what users run; disabled runs the
//                  graph node by node, as exported)
//
// stdout: one JSON line {"model":..,"ok":true,"outputs":[{"index":k,"name":..,"dtype":..,
//   "shape":[..],"file":..}]} or {"model":..,"ok":false,"error":".."}.
// Exit code: 0 ok, 3 the model failed to load or run, 2 usage error, 1 onnxruntime-node missing.
//
// onnxruntime-node@1.30.0 is pinned in peers/package.json; its install script would download GPU
// libraries from a host that cannot be reached, so peers/.npmrc sets onnxruntime-node-install=skip
// (the CPU library ships inside the package; shared/reference/peers.md).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { FILLS, fillArray, npyBytes } = require('./npy.js');

const USAGE = 'usage: node peers/ort_run.js MODEL.onnx --out DIR [--input [NAME|INDEX=]FILE.npy]... ' +
  '[--fill half|pattern] [--threads N] [--opt all|basic|extended|disabled]';

function usageError(msg) {
  process.stderr.write(`ort_run: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { model: null, out: null, inputs: [], fill: null, threads: 1, opt: 'all' };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i], val = null;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) { val = a.slice(eq + 1); a = a.slice(0, eq); }
    const next = () => (val !== null ? val : i + 1 < argv.length ? argv[++i] : usageError(`${a} needs a value`));
    if (a === '--out' || a === '-o') o.out = next();
    else if (a === '--input' || a === '-i') o.inputs.push(next());
    else if (a === '--fill') { o.fill = next(); if (!(o.fill in FILLS)) usageError(`unknown fill '${o.fill}'`); }
    else if (a === '--threads') {
      o.threads = Number(next());
      if (!Number.isInteger(o.threads) || o.threads < 1) usageError('--threads needs a positive integer');
    } else if (a === '--opt') {
      o.opt = next();
      if (!['all', 'basic', 'extended', 'disabled'].includes(o.opt)) usageError(`unknown --opt '${o.opt}'`);
    } else if (a === '-h' || a === '--help') { process.stdout.write(USAGE + '\n'); process.exit(0); }
    else if (a.startsWith('-')) usageError(`unknown option '${a}'`);
    else if (o.model === null) o.model = a;
    else usageError(`unexpected argument '${a}' (one model per run)`);
  }
  if (!o.model) usageError('no model given');
  if (!o.out) usageError('--out is required');
  return o;
}

// .npy descr -> [onnxruntime tensor type, TypedArray class]
const NPY_TYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '<f2': ['float16', Uint16Array],
  '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array], '<i2': ['int16', Int16Array],
  '|i1': ['int8', Int8Array], '<u8': ['uint64', BigUint64Array], '<u4': ['uint32', Uint32Array],
  '<u2': ['uint16', Uint16Array], '|u1': ['uint8', Uint8Array], '|b1': ['bool', Uint8Array],
};

// Parse a .npy file: {type, data (TypedArray copy), dims}. Throws naming the file on anything odd.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  const bad = (why) => { throw new Error(`${file}: ${why}`); };
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') bad('not a .npy file');
  const major = buf[6];
  let hlen, start;
  if (major === 1) { hlen = buf.readUInt16LE(8); start = 10; }
  else if (major === 2 || major === 3) { if (buf.length < 12) bad('truncated header'); hlen = buf.readUInt32LE(8); start = 12; }
  else bad(`unsupported .npy version ${major}`);
  if (start + hlen > buf.length) bad('truncated header');
  const header = buf.toString('latin1', start, start + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const fortran = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shape) bad(`unreadable header ${JSON.stringify(header.trim())}`);
  if (fortran[1] === 'True') bad('Fortran-order arrays are not supported');
  const t = NPY_TYPES[descr[1]];
  if (!t) bad(`unsupported dtype ${descr[1]}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  if (dims.some((d) => !Number.isInteger(d) || d < 0)) bad(`bad shape (${shape[1]})`);
  const count = dims.reduce((a, b) => a * b, 1);
  const body = buf.subarray(start + hlen);
  if (body.length !== count * t[1].BYTES_PER_ELEMENT) {
    bad(`${body.length} data bytes for shape [${dims}] of ${descr[1]} (want ${count * t[1].BYTES_PER_ELEMENT})`);
  }
  const copy = new ArrayBuffer(body.length);
  new Uint8Array(copy).set(body);
  return { type: t[0], data: new t[1](copy), dims };
}

// The model's stated dims for input `name` (numbers, or strings/null for symbolic ones).
function inputMeta(session, name) {
  const m = session.inputMetadata && session.inputMetadata.find((x) => x.name === name);
  return m && m.isTensor ? m : null;
}

function bindInputs(ort, session, opts) {
  const names = session.inputNames;
  const feeds = {};
  let nextFree = 0;
  for (const spec of opts.inputs) {
    const eq = spec.indexOf('=');
    let name = null, file = spec;
    if (eq > 0 && !spec.slice(0, eq).includes('/')) {
      const key = spec.slice(0, eq);
      file = spec.slice(eq + 1);
      if (/^[0-9]+$/.test(key)) {
        if (Number(key) >= names.length) throw new Error(`input index ${key}: the model has ${names.length} inputs`);
        name = names[Number(key)];
      } else if (names.includes(key)) name = key;
      else throw new Error(`no input named '${key}' (the model's inputs: ${names.join(', ')})`);
    } else {
      while (nextFree < names.length && names[nextFree] in feeds) nextFree++;
      if (nextFree >= names.length) throw new Error(`${file}: more input files than model inputs (${names.length})`);
      name = names[nextFree];
    }
    if (name in feeds) throw new Error(`input '${name}' given twice`);
    const a = readNpy(file);
    const meta = inputMeta(session, name);
    if (meta) {
      if (meta.type && meta.type !== a.type) throw new Error(`${file}: ${a.type} for input '${name}' of type ${meta.type}`);
      const want = meta.shape || [];
      const fits = want.length === a.dims.length && want.every((d, k) => typeof d !== 'number' || d === a.dims[k]);
      if (!fits) throw new Error(`${file}: shape [${a.dims}] for input '${name}' of shape [${want}]`);
    }
    feeds[name] = new ort.Tensor(a.type, a.data, a.dims);
  }
  for (const name of names) {
    if (name in feeds) continue;
    const meta = inputMeta(session, name);
    if (!opts.fill) throw new Error(`input '${name}' not given (use --input or --fill)`);
    if (!meta || meta.type !== 'float32' || !meta.shape.every((d) => typeof d === 'number')) {
      throw new Error(`input '${name}': --fill needs a float32 input with a static shape`);
    }
    const n = meta.shape.reduce((a, b) => a * b, 1);
    feeds[name] = new ort.Tensor('float32', fillArray(n, opts.fill), meta.shape);
  }
  return feeds;
}

function writeOutput(dir, k, tensor) {
  let bytes = npyBytes(tensor.data, tensor.dims);
  if (tensor.type === 'bool') {   // npy.js writes a Uint8Array as '|u1'; same length, so patch it
    bytes = Buffer.from(bytes.toString('latin1').replace("'descr': '|u1'", "'descr': '|b1'"), 'latin1');
  }
  const file = path.join(dir, `output_${k}.npy`);
  fs.writeFileSync(file, bytes);
  return file;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    process.stderr.write(`ort_run: cannot load onnxruntime-node (run npm ci in peers/): ${e.message}\n`);
    process.exit(1);
  }
  try {
    const session = await ort.InferenceSession.create(opts.model, {
      executionProviders: ['cpu'], intraOpNumThreads: opts.threads, interOpNumThreads: 1,
      graphOptimizationLevel: opts.opt, logSeverityLevel: 3,
    });
    const feeds = bindInputs(ort, session, opts);
    const results = await session.run(feeds);
    fs.mkdirSync(opts.out, { recursive: true });
    const outputs = session.outputNames.map((name, k) => {
      const t = results[name];
      return { index: k, name, dtype: t.type, shape: t.dims, file: writeOutput(opts.out, k, t) };
    });
    process.stdout.write(JSON.stringify({ model: opts.model, ok: true, outputs }) + '\n');
  } catch (e) {
    const msg = String((e && e.message) || e).split('\n')[0];
    process.stdout.write(JSON.stringify({ model: opts.model, ok: false, error: msg }) + '\n');
    process.exit(3);
  }
}

main();
