#!/usr/bin/env node
// litert_run.js -- run .tflite models on LiteRT.js CPU (wasm + XNNPACK) and dump .npy files.
//
// Usage:
//   node --no-liftoff peers/litert_run.js --fill half|pattern[,..] --out DIR [-v] MODEL [MODEL ...]
//
//   --fill F   input fill, repeatable or comma-separated (half, pattern). Each float32 input
//              tensor's flat buffer is filled with  half:    x[i] = 0.5
//                                                   pattern: x[i] = ((i*7919 + 13) % 1009) / 1009
//              integer inputs (int32, int8, ...; not int64) are zeros, as verify's page fills them
//   --out DIR  writes DIR/<model basename without .tflite>/<fill>/{input,output}_<k>.npy
//              (NumPy format 1.0, little-endian, C order; '<f4' for float32, '<i4' for int32, ...)
//   -v         pass the runtime's own log lines through to stderr
//
// stdout: one JSON line per (model, fill):
//   {"model":..,"fill":..,"ok":true,"inputs":[..],"outputs":[{"index":k,"shape":[..],"dtype":"float32","file":..}]}
//   {"model":..,"fill":..,"ok":false,"error":".."}
// Exit code: 0 all ok, 3 some model failed, 2 usage error, 1 LiteRT.js could not be loaded.
//
// Node setup (see shared/reference/peers.md and peers/litert_node.js, which does the loading):
// LiteRT.js is built for browsers, so we pose as a web worker. Trap: a model LiteRT.js cannot
// prepare does not throw; it prints "ERROR: ..." and run() returns garbage. We capture all
// console output and treat any line starting with ERROR as failure of the current model.
// Requires `npm ci` in peers/ (scripts/install-deps.sh does it).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { captureConsole, loadLiteRtNode } = require('./litert_node.js');
const { DTYPE_ARRAY, FILLS, writeNpy } = require('./npy.js');

const USAGE = 'usage: node --no-liftoff peers/litert_run.js --fill half|pattern[,..] --out DIR [-v] MODEL [MODEL ...]';



function usageError(msg) {
  process.stderr.write(`litert_run: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { fills: [], out: null, verbose: false, models: [] };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i], val = null;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) { val = a.slice(eq + 1); a = a.slice(0, eq); }
    const next = () => (val !== null ? val : i + 1 < argv.length ? argv[++i] : usageError(`${a} needs a value`));
    if (a === '--fill') {
      for (const f of next().split(',').filter(Boolean)) {
        if (!(f in FILLS)) usageError(`unknown fill '${f}'`);
        if (!opts.fills.includes(f)) opts.fills.push(f);
      }
    } else if (a === '--out') opts.out = next();
    else if (a === '-v' || a === '--verbose') opts.verbose = true;
    else if (a === '-h' || a === '--help') { process.stdout.write(USAGE + '\n'); process.exit(0); }
    else if (a === '--') { opts.models.push(...argv.slice(i + 1)); break; }
    else if (a.startsWith('-')) usageError(`unknown option '${a}'`);
    else opts.models.push(a);
  }
  if (!opts.fills.length) usageError('--fill is required');
  if (!opts.out) usageError('--out is required');
  if (!opts.models.length) usageError('no MODEL given');
  return opts;
}

// ---- console capture (litert_node.js): runtime messages go to stderr (with -v); ERROR lines are recorded. ----
let errorSink = [];   // ERROR lines seen since the last reset

// float32 inputs take the fill's values; uint8 inputs (quantized models) take
// min(255, floor(256 * value)): half -> 128, pattern -> floor(256 * ((i*7919 + 13) % 1009) / 1009).
function makeInput(detail, fill) {
  const shape = Array.from(detail.shape);
  if (shape.some((d) => !(d > 0))) throw new Error(`input ${detail.index} has dynamic shape [${shape}]`);
  const n = shape.reduce((a, b) => a * b, 1);
  const f = FILLS[fill];
  if (detail.dtype === 'uint8') {
    const data = new Uint8Array(n);
    for (let i = 0; i < n; i++) data[i] = Math.min(255, Math.floor(256 * f(i)));
    return { data, shape, dtype: 'uint8' };
  }
  if (detail.dtype !== 'float32') {
    // other integer inputs (token ids, indices) get zeros, as peers/verify/page.mjs fills them
    const C = DTYPE_ARRAY[detail.dtype];
    if (!C || C === BigInt64Array || C === BigUint64Array)
      throw new Error(`input ${detail.index} has dtype ${detail.dtype}; only float32 and integer inputs are supported`);
    return { data: new C(n), shape, dtype: detail.dtype };
  }
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = f(i);
  return { data, shape, dtype: 'float32' };
}

// Compile one model, run it with each fill; returns one result object per fill.
async function runModel(litert, modelPath, fills, outRoot) {
  const name = path.basename(modelPath).replace(/\.tflite$/, '');
  const fail = (error) => fills.map((fill) => ({ model: modelPath, fill, ok: false, error }));
  let bytes;
  try { bytes = fs.readFileSync(modelPath); } catch (e) { return fail(`cannot read model: ${e.message}`); }

  errorSink = [];
  let model;
  try {
    model = await litert.loadAndCompile(new Uint8Array(bytes), { accelerator: 'wasm' });
  } catch (e) {
    return fail(errorSink.concat(String(e && e.message || e)).join('; '));
  }
  const compileErrors = errorSink;
  const results = [];
  try {
    for (const fill of fills) {
      const res = { model: modelPath, fill, ok: false };
      const dir = path.join(outRoot, name, fill);
      fs.mkdirSync(dir, { recursive: true });
      for (const f of fs.readdirSync(dir)) if (/^(input|output)_\d+\.npy$/.test(f)) fs.unlinkSync(path.join(dir, f));
      errorSink = compileErrors.slice();
      const inputs = [], outputs = [];
      try {
        const ins = model.getInputDetails().map((d) => makeInput(d, fill));
        for (const { data, shape } of ins) inputs.push(new litert.Tensor(data, shape));
        if (!errorSink.length) outputs.push(...await model.run(inputs));
        if (errorSink.length) throw new Error(errorSink.join('; '));
        res.inputs = ins.map(({ data, shape, dtype }, k) => ({
          index: k, shape, dtype, file: writeNpy(dir, `input_${k}.npy`, data, shape) }));
        res.outputs = outputs.map((t, k) => {
          const data = t.toTypedArray();
          const shape = Array.from(t.type.layout.dimensions);
          return { index: k, shape, dtype: t.type.dtype, file: writeNpy(dir, `output_${k}.npy`, data, shape) };
        });
        if (errorSink.length) throw new Error(errorSink.join('; ')); // anything printed while reading
        res.ok = true;
      } catch (e) {
        delete res.inputs; delete res.outputs;
        res.error = String(e && e.message || e);
      } finally {
        for (const t of inputs.concat(outputs)) t.delete();
      }
      results.push(res);
    }
  } finally {
    model.delete();
  }
  return results;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (os.endianness() !== 'LE') throw new Error('big-endian host: .npy writer assumes little-endian');
  captureConsole({ verbose: opts.verbose, onError: (line) => errorSink.push(line) });
  const { litert, glue } = await loadLiteRtNode('litert_run');
  if (opts.verbose) process.stderr.write(`litert_run: loaded ${glue}\n`);

  let failed = false;
  for (const m of opts.models) {
    for (const r of await runModel(litert, m, opts.fills, opts.out)) {
      process.stdout.write(JSON.stringify(r) + '\n');
      if (!r.ok) { failed = true; process.stderr.write(`litert_run: ${r.model} (${r.fill}) FAILED: ${r.error}\n`); }
    }
  }
  process.exitCode = failed ? 3 : 0;
}

main().catch((e) => { process.stderr.write(`litert_run: ${e && e.stack || e}\n`); process.exit(1); });
