#!/usr/bin/env node
// ort_bench.js -- time .onnx models on onnxruntime-node (CPU execution provider): the ONNX speed
// peer of `litegpu bench` on the converted .tflite (issue #10; bench/onnx_vs_ort.sh drives it).
//
// Usage:
//   node peers/ort_bench.js [--runs N] [--warmup W] [--min-warmup-ms MS] [--threads T]
//                           [--opt all|basic|extended|disabled] [--fill half|pattern] MODEL [MODEL ...]
//
//   --runs N           timed runs per model (default 20)
//   --warmup W         warm-up runs at least (default 5)
//   --min-warmup-ms MS warm up for at least this long too (default 1500; the same warm-up rule as
//                      peers/litert_bench.js and `litegpu bench --min-warmup-ms`)
//   --threads T        intra-op threads (default 1); inter-op threads are always 1 and the
//                      execution mode sequential
//   --opt L            graph optimization level (default all: what users run)
//   --fill F           input fill (default half): half x[i] = 0.5; pattern x[i] = ((i*7919+13)%1009)/1009
//
// Each model gets one InferenceSession (CPU EP); its float32 inputs (static shapes) are made once.
// One timed run = await session.run(feeds) + touching every output's data (onnxruntime-node hands
// the outputs back as JS typed arrays already copied out of the native tensors, so run() is the
// whole cost; the checksum keeps the reads live), as an application would use it.
//
// stdout: one JSON line per model:
//   {"model":..,"ok":true,"runs":N,"warmup_runs":W,"warmup_ms":..,"median_ms":..,"p95_ms":..,
//    "min_ms":..,"load_ms":..,"first_run_ms":..,"threads":T,"opt":..,"ort":"1.30.0",
//    "process_peak_rss_bytes":..}   (node's own maxRSS so far: covers the models before it too)
//   {"model":..,"ok":false,"error":".."}
// p95 is nearest-rank, as in `litegpu bench`.
// Exit code: 0 all ok, 3 some model failed, 2 usage error, 1 onnxruntime-node missing.
'use strict';
const { performance } = require('node:perf_hooks');
const { FILLS, fillArray } = require('./npy.js');

const USAGE = 'usage: node peers/ort_bench.js [--runs N] [--warmup W] [--min-warmup-ms MS] [--threads T] ' +
  '[--opt all|basic|extended|disabled] [--fill half|pattern] MODEL [MODEL ...]';

function usageError(msg) {
  process.stderr.write(`ort_bench: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { runs: 20, warmup: 5, minWarmupMs: 1500, threads: 1, opt: 'all', fill: 'half', models: [] };
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
    if (a === '--runs' || a === '-n') o.runs = num(a, next(), 1, true);
    else if (a === '--warmup') o.warmup = num(a, next(), 0, true);
    else if (a === '--min-warmup-ms') o.minWarmupMs = num(a, next(), 0, false);
    else if (a === '--threads') o.threads = num(a, next(), 1, true);
    else if (a === '--opt') {
      o.opt = next();
      if (!['all', 'basic', 'extended', 'disabled'].includes(o.opt)) usageError(`unknown --opt '${o.opt}'`);
    } else if (a === '--fill') {
      o.fill = next();
      if (!(o.fill in FILLS)) usageError(`unknown fill '${o.fill}'`);
    } else if (a === '-h' || a === '--help') { process.stdout.write(USAGE + '\n'); process.exit(0); }
    else if (a === '--') { o.models.push(...argv.slice(i + 1)); break; }
    else if (a.startsWith('-')) usageError(`unknown option '${a}'`);
    else o.models.push(a);
  }
  if (!o.models.length) usageError('no MODEL given');
  return o;
}

function pct(sorted, p) { // nearest rank
  const k = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[k];
}
function median(sorted) {
  const m = sorted.length >> 1;
  return sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
}
const r3 = (x) => Math.round(x * 1000) / 1000;

function makeFeeds(ort, session, fill) {
  const feeds = {};
  for (const name of session.inputNames) {
    const m = session.inputMetadata && session.inputMetadata.find((x) => x.name === name);
    if (!m || !m.isTensor || m.type !== 'float32' || !m.shape.every((d) => typeof d === 'number' && d > 0)) {
      throw new Error(`input '${name}': only float32 inputs with a static shape are supported`);
    }
    const n = m.shape.reduce((a, b) => a * b, 1);
    feeds[name] = new ort.Tensor('float32', fillArray(n, fill), m.shape);
  }
  return feeds;
}

async function benchModel(ort, modelPath, o) {
  const t0 = performance.now();
  let session;
  try {
    session = await ort.InferenceSession.create(modelPath, {
      executionProviders: ['cpu'], intraOpNumThreads: o.threads, interOpNumThreads: 1,
      executionMode: 'sequential', graphOptimizationLevel: o.opt, logSeverityLevel: 3,
    });
  } catch (e) {
    return { model: modelPath, ok: false, error: String((e && e.message) || e).split('\n')[0] };
  }
  const loadMs = performance.now() - t0;
  try {
    const feeds = makeFeeds(ort, session, o.fill);
    let sink = 0;
    const once = async () => {
      const outs = await session.run(feeds);
      for (const name of session.outputNames) sink += outs[name].data.length;
    };
    let a = performance.now();
    await once();
    const firstMs = performance.now() - a;
    let warm = 0;
    const ws = performance.now();
    while (warm < o.warmup || performance.now() - ws < o.minWarmupMs) { await once(); warm++; }
    const warmMs = performance.now() - ws;
    const ts = [];
    for (let i = 0; i < o.runs; i++) {
      a = performance.now();
      await once();
      ts.push(performance.now() - a);
    }
    if (!(sink > 0)) throw new Error('no output read');
    ts.sort((x, y) => x - y);
    return {
      model: modelPath, ok: true, runs: o.runs, warmup_runs: warm, warmup_ms: r3(warmMs),
      median_ms: r3(median(ts)), p95_ms: r3(pct(ts, 95)), min_ms: r3(ts[0]),
      load_ms: r3(loadMs), first_run_ms: r3(firstMs), threads: o.threads, opt: o.opt,
    };
  } catch (e) {
    return { model: modelPath, ok: false, error: String((e && e.message) || e).split('\n')[0] };
  } finally {
    if (session && session.release) await session.release();
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  let ort, version = null;
  try {
    ort = require('onnxruntime-node');
    version = require('onnxruntime-node/package.json').version;
  } catch (e) {
    process.stderr.write(`ort_bench: cannot load onnxruntime-node (run npm ci in peers/): ${e.message}\n`);
    process.exit(1);
  }
  let failed = false;
  for (const m of o.models) {
    const r = await benchModel(ort, m, o);
    if (r.ok) {
      r.ort = version;
      r.process_peak_rss_bytes = process.resourceUsage().maxRSS * 1024;
    }
    process.stdout.write(JSON.stringify(r) + '\n');
    if (!r.ok) { failed = true; process.stderr.write(`ort_bench: ${r.model} FAILED: ${r.error}\n`); }
  }
  process.exitCode = failed ? 3 : 0;
}

main().catch((e) => { process.stderr.write(`ort_bench: ${e && e.stack || e}\n`); process.exit(1); });
