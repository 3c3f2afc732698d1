#!/usr/bin/env node
// bench/litert_qbench.js -- used by bench/quant_run.sh: peers/litert_bench.js's timing loop
// (LiteRT.js CPU, wasm + XNNPACK, single-threaded build) for models with integer inputs, which
// litert_bench.js refuses ("only float32 inputs are supported"). Everything else is that script's:
// the same loader (peers/litert_node.js), compile with accelerator 'wasm', inputs made once, one
// timed run = model.run(inputs) + toTypedArray() on every output, warm-up of at least W runs and
// MS milliseconds, nearest-rank p95.
//
//   node --no-liftoff bench/litert_qbench.js [--runs N] [--warmup W] [--min-warmup-ms MS]
//                                            [--fill half|pattern] MODEL [MODEL ...]
//
// Inputs, as peers/litert_run.js makes them: float32 x[i] = f(i); uint8
// min(255, floor(256 * f(i))) (half -> 128); other integer types zeros. f is the fill of
// peers/npy.js. stdout: one JSON line per model, the fields of litert_bench.js.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const peers = path.join(__dirname, '..', 'peers');
const { captureConsole, loadLiteRtNode } = require(path.join(peers, 'litert_node.js'));
const { FILLS, DTYPE_ARRAY } = require(path.join(peers, 'npy.js'));

function usage(msg) {
  process.stderr.write(`litert_qbench: ${msg}\nusage: node --no-liftoff bench/litert_qbench.js [--runs N] [--warmup W] [--min-warmup-ms MS] [--fill half|pattern] MODEL...\n`);
  process.exit(2);
}
const opts = { runs: 20, warmup: 5, minWarmupMs: 1500, fill: 'half', models: [] };
{
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i++) {
    const num = () => { const x = Number(a[++i]); if (!Number.isFinite(x) || x < 0) usage(`${a[i - 1]} takes a number`); return x; };
    if (a[i] === '--runs') opts.runs = Math.max(1, num());
    else if (a[i] === '--warmup') opts.warmup = num();
    else if (a[i] === '--min-warmup-ms') opts.minWarmupMs = num();
    else if (a[i] === '--fill') { opts.fill = a[++i]; if (!(opts.fill in FILLS)) usage(`unknown fill '${opts.fill}'`); }
    else if (a[i].startsWith('-')) usage(`unknown option '${a[i]}'`);
    else opts.models.push(a[i]);
  }
  if (!opts.models.length) usage('no MODEL given');
}

let errorSink = [];
const median = (s) => (s.length % 2 ? s[s.length >> 1] : (s[(s.length >> 1) - 1] + s[s.length >> 1]) / 2);
const pct = (s, p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
const r3 = (x) => Math.round(x * 1000) / 1000;

function inputData(d, fill) {
  const shape = Array.from(d.shape);
  if (shape.some((x) => !(x > 0))) throw new Error(`input ${d.index} has dynamic shape [${shape}]`);
  const n = shape.reduce((x, y) => x * y, 1), f = FILLS[fill];
  if (d.dtype === 'float32') { const x = new Float32Array(n); for (let i = 0; i < n; i++) x[i] = f(i); return [x, shape]; }
  if (d.dtype === 'uint8') { const x = new Uint8Array(n); for (let i = 0; i < n; i++) x[i] = Math.min(255, Math.floor(256 * f(i))); return [x, shape]; }
  const C = DTYPE_ARRAY[d.dtype];
  if (!C || C === BigInt64Array || C === BigUint64Array) throw new Error(`input ${d.index} has dtype ${d.dtype}`);
  return [new C(n), shape];
}

async function bench(litert, file) {
  errorSink = [];
  const t0 = performance.now();
  const model = await litert.loadAndCompile(new Uint8Array(fs.readFileSync(file)), { accelerator: 'wasm' });
  const compileMs = performance.now() - t0;
  const inputs = [];
  try {
    for (const d of model.getInputDetails()) inputs.push(new litert.Tensor(...inputData(d, opts.fill)));
    if (errorSink.length) throw new Error(errorSink.join('; '));
    let sink = 0;
    const free = (outs) => { for (const t of outs) t.delete(); };
    const once = async () => {
      const outs = await model.run(inputs);
      for (const t of outs) sink += t.toTypedArray().length;
      return outs;
    };
    let a = performance.now();
    free(await once());
    const firstMs = performance.now() - a;
    let warm = 0;
    const ws = performance.now();
    while (warm < opts.warmup || performance.now() - ws < opts.minWarmupMs) { free(await once()); warm++; }
    const ts = [];
    for (let i = 0; i < opts.runs; i++) {
      a = performance.now();
      const outs = await once();
      ts.push(performance.now() - a);
      free(outs);
    }
    if (errorSink.length) throw new Error(errorSink.join('; '));
    if (!(sink > 0)) throw new Error('no output read');
    ts.sort((x, y) => x - y);
    return { model: file, ok: true, runs: opts.runs, warmup_runs: warm, median_ms: r3(median(ts)), p95_ms: r3(pct(ts, 95)),
             min_ms: r3(ts[0]), compile_ms: r3(compileMs), first_run_ms: r3(firstMs), threads: 1, fill: opts.fill };
  } finally {
    for (const t of inputs) t.delete();
    model.delete();
  }
}

(async () => {
  captureConsole({ verbose: false, onError: (line) => errorSink.push(line) });
  const { litert, glue } = await loadLiteRtNode('litert_qbench');
  if (/threaded/.test(glue || '')) { process.stderr.write(`litert_qbench: loaded the threads build ${glue}\n`); process.exit(1); }
  let failed = false;
  for (const m of opts.models) {
    let r;
    try { r = await bench(litert, m); } catch (e) { r = { model: m, ok: false, error: String(e && e.message || e) }; }
    if (r.ok) { r.glue = glue; r.process_peak_rss_bytes = process.resourceUsage().maxRSS * 1024; }
    process.stdout.write(JSON.stringify(r) + '\n');
    if (!r.ok) { failed = true; process.stderr.write(`litert_qbench: ${m} FAILED: ${r.error}\n`); }
  }
  process.exitCode = failed ? 3 : 0;
})().catch((e) => { process.stderr.write(`litert_qbench: ${e && e.stack || e}\n`); process.exit(1); });
