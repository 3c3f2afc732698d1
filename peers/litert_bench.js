#!/usr/bin/env node
// litert_bench.js -- time .tflite models on LiteRT.js CPU (wasm + XNNPACK): the speed peer of
// `litegpu bench`.
//
// Usage:
//   node --no-liftoff peers/litert_bench.js [--runs N] [--warmup W] [--min-warmup-ms MS]
//                                           [--fill half|pattern] [-v] MODEL [MODEL ...]
//
//   --runs N           timed runs per model (default 20)
//   --warmup W         warm-up runs at least (default 5)
//   --min-warmup-ms MS warm up for at least this long too (default 1500). V8 needs both: without
//                      --no-liftoff and this warm-up the same model measured 3-21 ms (peers.md).
//   --fill F           input fill (default half): half x[i] = 0.5; pattern x[i] = ((i*7919+13)%1009)/1009
//   -v                 pass the runtime's own log lines through to stderr
//
// LiteRT.js is loaded once (peers/litert_node.js); each model is compiled with accelerator 'wasm'
// and its input tensors are made once (a Tensor made from a Float32Array is copied into the wasm
// heap at construction; run() uses it in place). One timed run = model.run(inputs) + toTypedArray()
// on every output (copies the outputs out of the wasm heap), as an application would use it; the
// output tensors are deleted after the clock stops.
//
// stdout: one JSON line per model:
//   {"model":..,"ok":true,"runs":N,"warmup_runs":W,"warmup_ms":..,"median_ms":..,"p95_ms":..,
//    "min_ms":..,"compile_ms":..,"first_run_ms":..,"threads":1,"glue":"litert_wasm_compat_internal.js",
//    "process_peak_rss_bytes":..}   (node's own maxRSS so far: covers the models before it too)
//   {"model":..,"ok":false,"error":".."}
// p95 is nearest-rank, as in `litegpu bench`.
//
// threads is 1 because of what is loaded, not because of an option: litert_node.js calls
// loadLiteRt(dir) without {threads: true}, so LiteRT.js loads litert_wasm_internal.js (relaxed
// SIMD) or litert_wasm_compat_internal.js (plain SIMD; Node 20's V8 lacks relaxed SIMD), and
// neither is a threads build: no SharedArrayBuffer, no pthread workers (only
// litert_wasm_threaded_internal.js has them). "glue" records which file was loaded; the script
// refuses to report if it is the threaded one.
// Exit code: 0 all ok, 3 some model failed, 2 usage error, 1 LiteRT.js could not be loaded.
'use strict';
const fs = require('node:fs');
const { performance } = require('node:perf_hooks');
const { captureConsole, loadLiteRtNode } = require('./litert_node.js');
const { FILLS } = require('./npy.js');

const USAGE = 'usage: node --no-liftoff peers/litert_bench.js [--runs N] [--warmup W] [--min-warmup-ms MS] [--fill half|pattern] [-v] MODEL [MODEL ...]';


function usageError(msg) {
  process.stderr.write(`litert_bench: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { runs: 20, warmup: 5, minWarmupMs: 1500, fill: 'half', verbose: false, models: [] };
  const num = (a, s, min, int) => {
    const x = Number(s);
    if (s === '' || !Number.isFinite(x) || x < min || (int && !Number.isInteger(x))) usageError(`${a} takes a number >= ${min}`);
    return x;
  };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i], val = null;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) { val = a.slice(eq + 1); a = a.slice(0, eq); }
    const next = () => (val !== null ? val : i + 1 < argv.length ? argv[++i] : usageError(`${a} needs a value`));
    if (a === '--runs' || a === '-n') opts.runs = num(a, next(), 1, true);
    else if (a === '--warmup') opts.warmup = num(a, next(), 0, true);
    else if (a === '--min-warmup-ms') opts.minWarmupMs = num(a, next(), 0, false);
    else if (a === '--fill') {
      opts.fill = next();
      if (!(opts.fill in FILLS)) usageError(`unknown fill '${opts.fill}'`);
    } else if (a === '-v' || a === '--verbose') opts.verbose = true;
    else if (a === '-h' || a === '--help') { process.stdout.write(USAGE + '\n'); process.exit(0); }
    else if (a === '--') { opts.models.push(...argv.slice(i + 1)); break; }
    else if (a.startsWith('-')) usageError(`unknown option '${a}'`);
    else opts.models.push(a);
  }
  if (!opts.models.length) usageError('no MODEL given');
  return opts;
}

let errorSink = [];   // ERROR lines printed by the runtime since the last reset

function pct(sorted, p) { // nearest rank
  const k = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[k];
}
function median(sorted) {
  const m = sorted.length >> 1;
  return sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
}
const r3 = (x) => Math.round(x * 1000) / 1000;

async function benchModel(litert, modelPath, opts) {
  let bytes;
  try { bytes = fs.readFileSync(modelPath); } catch (e) { return { model: modelPath, ok: false, error: `cannot read model: ${e.message}` }; }
  errorSink = [];
  const t0 = performance.now();
  let model;
  try {
    model = await litert.loadAndCompile(new Uint8Array(bytes), { accelerator: 'wasm' });
  } catch (e) {
    return { model: modelPath, ok: false, error: errorSink.concat(String(e && e.message || e)).join('; ') };
  }
  const compileMs = performance.now() - t0;
  const inputs = [];
  try {
    for (const d of model.getInputDetails()) {
      const shape = Array.from(d.shape);
      if (d.dtype !== 'float32') throw new Error(`input ${d.index} has dtype ${d.dtype}; only float32 inputs are supported`);
      if (shape.some((x) => !(x > 0))) throw new Error(`input ${d.index} has dynamic shape [${shape}]`);
      const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
      const f = FILLS[opts.fill];
      for (let i = 0; i < data.length; i++) data[i] = f(i);
      inputs.push(new litert.Tensor(data, shape));
    }
    if (errorSink.length) throw new Error(errorSink.join('; '));
    // One run: run() + read every output; returns a checksum so the reads cannot be dropped.
    let sink = 0;
    const free = (outs) => { for (const t of outs) t.delete(); };
    const once = async () => {
      const outs = await model.run(inputs);
      try {
        for (const t of outs) sink += t.toTypedArray().length;
      } catch (e) {
        free(outs);
        throw e;
      }
      return outs;
    };
    let a = performance.now();
    free(await once());
    const firstMs = performance.now() - a;
    if (errorSink.length) throw new Error(errorSink.join('; '));
    let warm = 0;
    const ws = performance.now();
    while (warm < opts.warmup || performance.now() - ws < opts.minWarmupMs) { free(await once()); warm++; }
    const warmMs = performance.now() - ws;
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
    return {
      model: modelPath, ok: true, runs: opts.runs, warmup_runs: warm, warmup_ms: r3(warmMs),
      median_ms: r3(median(ts)), p95_ms: r3(pct(ts, 95)), min_ms: r3(ts[0]),
      compile_ms: r3(compileMs), first_run_ms: r3(firstMs), threads: 1,
    };
  } catch (e) {
    return { model: modelPath, ok: false, error: String(e && e.message || e) };
  } finally {
    for (const t of inputs) t.delete();
    model.delete();
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  captureConsole({ verbose: opts.verbose, onError: (line) => errorSink.push(line) });
  const { litert, glue } = await loadLiteRtNode('litert_bench');
  if (opts.verbose) process.stderr.write(`litert_bench: loaded ${glue}\n`);
  if (/threaded/.test(glue || '')) {
    process.stderr.write(`litert_bench: loaded the threads build ${glue}; this benchmark reports single-thread times only\n`);
    process.exit(1);
  }
  let failed = false;
  for (const m of opts.models) {
    const r = await benchModel(litert, m, opts);
    if (r.ok) {
      r.glue = glue;
      // This process's peak RSS so far (node + the wasm heap; covers earlier models too).
      r.process_peak_rss_bytes = process.resourceUsage().maxRSS * 1024;
    }
    process.stdout.write(JSON.stringify(r) + '\n');
    if (!r.ok) { failed = true; process.stderr.write(`litert_bench: ${r.model} FAILED: ${r.error}\n`); }
  }
  process.exitCode = failed ? 3 : 0;
}

main().catch((e) => { process.stderr.write(`litert_bench: ${e && e.stack || e}\n`); process.exit(1); });
