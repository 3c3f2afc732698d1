#!/usr/bin/env node
// verify.js -- the real GPU delegate as an oracle: LiteRT.js WebGPU (ML Drift) in headless Chromium.
//
// Usage:
//   node peers/verify/verify.js --precision fp32|fp16 --fill half|pattern [--out DIR]
//        [--timeout-ms N] [--runs N] [--chromium PATH] [-v] MODEL [MODEL ...]
//
//   --precision P   gpuOptions.precision for the WebGPU compile (fp16: fp16 storage, see below)
//   --fill F        input fill over each float32 input's flat buffer (peers/npy.js):
//                     half: x[i] = 0.5    pattern: x[i] = ((i*7919 + 13) % 1009) / 1009
//                   non-float32 inputs are filled with zeros
//   --out DIR       writes DIR/<model basename without .tflite>/{input_K.npy, gpu/output_K.npy,
//                   cpu/output_K.npy} (NumPy 1.0, little-endian). Default: a new temp directory.
//   --timeout-ms N  per model (GPU compile + runs + CPU reference), default 180000
//   --runs N        warm GPU runs after the first, for run_ms (median), default 3
//   --chromium P    browser binary, default $LITEGPU_CHROMIUM or /usr/bin/chromium (Debian's);
//                   $LITEGPU_CHROMIUM_FLAGS adds flags (space-separated; for experiments)
//   -v              copy the page's log lines to stderr as they are parsed
//
// One headless Chromium (playwright-core) serves the whole batch. The page, LiteRT.js's JS/wasm
// files (peers/node_modules) and the model bytes come from a small HTTP server on 127.0.0.1 (an
// ephemeral port; no other host is ever contacted). For each model the page compiles it with
// {accelerator: 'webgpu', gpuOptions: {precision}}, runs it once (first_run_ms: includes shader
// compilation), then --runs more times (run_ms: median; each time is run() plus reading all outputs
// back with await tensor.data()), then compiles and runs it on LiteRT's wasm CPU as the reference.
//
// stdout: ONE JSON line per model, fields always present:
//   model, precision, fill, ok (false: the harness could not process the model), error,
//   timed_out (the model took longer than --timeout-ms: error says so),
//   compiled, compile_error, fully_accelerated (CompiledModel.isFullyAccelerated, as reported),
//   all_on_gpu (compiled && fully_accelerated && every output on 'webgpu' && nothing rejected &&
//   no ERROR line && no run_error), output_locations ['webgpu'|'wasm', ...],
//   gpu_ops, cpu_ops (from "N operations will run on the GPU, and the remaining M operations will
//   run on the CPU." or "No operations will run on the GPU, and all M operations will run on the
//   CPU."; both null when the delegate printed neither, i.e. when it took the whole graph),
//   rejected [{op, message}] (the lines after "Following operations are not supported by GPU
//   delegate:", verbatim and in order; a bare "OP:" line gives message "", e.g. DENSIFY's model
//   prints "DEQUANTIZE:" then "DEQUANTIZE: Dequantize for Densify is not supported"),
//   errors [every GPU-phase line starting with ERROR], not_fully_compiled ("Model not
//   fully compiled for webgpu"), static_sized_only ("... only supports static-sized tensors"),
//   int64_unsupported ("Tensor type(INT64) is not supported"), run_error, repeat_max_abs_diff
//   (largest change of any GPU output between the first and the last run: partially delegated
//   models were seen to vary), log [GPU-phase lines: compile and runs; the first model after a
//   page load also carries LiteRT's environment set-up lines], browser_log [messages the browser
//   itself printed meanwhile], inputs [{index, name, shape, dtype, filled, file}],
//   outputs [{index, shape, dtype, location, gpu_file, cpu_file (null when the CPU reference
//   failed: cpu_ok false), max_abs_diff, max_abs_cpu, rel_diff (max_abs_diff / max_abs_cpu;
//   null when non-finite values disagree), gpu_nonfinite, cpu_nonfinite}],
//   cpu_ok (the CPU reference ran and printed no ERROR line; it does not throw on an unresolved
//   custom op, it prints ERROR and returns garbage), cpu_error, cpu_log, compile_ms, first_run_ms,
//   run_ms, run_ms_all, cpu_compile_ms,
//   cpu_run_ms, model_ms (wall time for the model), adapter {vendor, architecture, device,
//   description, is_fallback, features, shader_f16}, jspi.
// Exit: 0 every model was processed (whatever the verdict), 3 some model could not be processed
// (unreadable, timed out, page or browser crashed: the batch goes on in a fresh page), 2 usage, 4 the oracle is unavailable (no Chromium, no
// WebGPU adapter, packages missing: one stderr line says to run `make verify-deps`), 1 internal error.
//
// Facts this relies on (shared/reference/peers.md, last section): Chromium needs --enable-unsafe-webgpu
// for navigator.gpu.requestAdapter() to return the SwiftShader adapter; rejection is not thrown but
// printed through console.error; for a rank-5 ADD isFullyAccelerated stays true and only the outputs'
// location ('wasm') and the log tell; with precision fp16 this adapter stores fp16 but computes fp32.
'use strict';
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { fillArray, typedArrayFor, writeNpy } = require('../npy.js');

const ME = 'verify';
const USAGE = 'usage: node peers/verify/verify.js --precision fp32|fp16 --fill half|pattern [--out DIR] [--timeout-ms N] [--runs N] [--chromium PATH] [-v] MODEL [MODEL ...]';
const INSTALL_HINT = 'install it with `make verify-deps` (scripts/verify-deps.sh)';
const PEERS = path.resolve(__dirname, '..');
const PKG_ROOT = path.join(PEERS, 'node_modules');
const LITERT_DIR = path.join(PKG_ROOT, '@litertjs', 'core');
const BOOT_TIMEOUT_MS = 120000;   // start page + load LiteRT.js + WebGPU device (about 1 s seen)

function usageError(msg) {
  process.stderr.write(`${ME}: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

function unavailable(msg) {
  process.stderr.write(`${ME}: oracle unavailable: ${msg}; ${INSTALL_HINT}\n`);
  process.exitCode = 4;
  const err = new Error(msg);
  err.unavailable = true;
  return err;
}

function parseArgs(argv) {
  const opts = {
    precision: null, fill: null, out: null, timeoutMs: 180000, runs: 3,
    chromium: process.env.LITEGPU_CHROMIUM || '/usr/bin/chromium', verbose: false, models: [],
  };
  const int = (a, s, min) => {
    if (!/^\d+$/.test(s) || Number(s) < min) usageError(`${a} needs an integer >= ${min}, got '${s}'`);
    return Number(s);
  };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i], val = null;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) { val = a.slice(eq + 1); a = a.slice(0, eq); }
    const next = () => (val !== null ? val : i + 1 < argv.length ? argv[++i] : usageError(`${a} needs a value`));
    if (a === '--precision') {
      opts.precision = next();
      if (!['fp32', 'fp16'].includes(opts.precision)) usageError(`unknown precision '${opts.precision}'`);
    } else if (a === '--fill') {
      opts.fill = next();
      if (!['half', 'pattern'].includes(opts.fill)) usageError(`unknown fill '${opts.fill}'`);
    } else if (a === '--out') opts.out = next();
    else if (a === '--timeout-ms') opts.timeoutMs = int(a, next(), 1);
    else if (a === '--runs') opts.runs = int(a, next(), 0);
    else if (a === '--chromium') opts.chromium = next();
    else if (a === '-v' || a === '--verbose') opts.verbose = true;
    else if (a === '-h' || a === '--help') { process.stdout.write(USAGE + '\n'); process.exit(0); }
    else if (a === '--') { opts.models.push(...argv.slice(i + 1)); break; }
    else if (a.startsWith('-') && a !== '-') usageError(`unknown option '${a}'`);
    else opts.models.push(a);
  }
  if (!opts.precision) usageError('--precision is required');
  if (!opts.fill) usageError('--fill is required');
  if (!opts.models.length) usageError('no MODEL given');
  return opts;
}

// ---- log parsing (GPU phase) ----
const RE_ERROR = /^\s*ERROR\b/;
const RE_UNSUPPORTED_HEAD = /Following operations are not supported by GPU delegate:/;
// An op line is "OP: reason" or a bare "OP:" (seen: "DEQUANTIZE:" before "DEQUANTIZE: Dequantize
// for Densify is not supported"); both are kept, the bare one with message "".
const RE_OP_LINE = /^\s*(?:ERROR:\s*)?([A-Z][A-Z0-9_]*):(?:\s+(.*?))?\s*$/;
const RE_SPLIT = /(\d+) operations? will run on the GPU, and the remaining (\d+) operations? will run on the CPU/;
const RE_NONE = /No operations will run on the GPU, and all (\d+) operations? will run on the CPU/;

function parseLog(lines) {
  const p = {
    gpu_ops: null, cpu_ops: null, rejected: [], errors: [], not_fully_compiled: false,
    static_sized_only: false, int64_unsupported: false,
  };
  let inList = false;
  for (const line of lines) {
    if (RE_ERROR.test(line)) p.errors.push(line.trim());
    if (/Model not fully compiled for webgpu/.test(line)) p.not_fully_compiled = true;
    if (/static-sized tensors/.test(line)) p.static_sized_only = true;
    if (/Tensor type\(INT64\) is not supported/.test(line)) p.int64_unsupported = true;
    const s = RE_SPLIT.exec(line);
    if (s) { p.gpu_ops = Number(s[1]); p.cpu_ops = Number(s[2]); inList = false; continue; }
    const z = RE_NONE.exec(line);
    if (z) { p.gpu_ops = 0; p.cpu_ops = Number(z[1]); inList = false; continue; }
    if (RE_UNSUPPORTED_HEAD.test(line)) { inList = true; continue; }
    if (inList) {
      const m = RE_OP_LINE.exec(line);
      if (m) { p.rejected.push({ op: m[1], message: m[2] || '' }); continue; }
      inList = false;
    }
  }
  return p;
}

// ---- comparison of one output pair ----
function compare(gpu, cpu) {
  const r = { max_abs_diff: null, max_abs_cpu: null, rel_diff: null, gpu_nonfinite: null, cpu_nonfinite: null };
  if (!gpu || !cpu) return r;
  const count = (a) => { let n = 0; for (const v of a) if (!Number.isFinite(Number(v))) n++; return n; };
  r.gpu_nonfinite = count(gpu);
  r.cpu_nonfinite = count(cpu);
  if (gpu.length !== cpu.length) return r;
  let d = 0, m = 0, bad = false;
  for (let i = 0; i < gpu.length; i++) {
    const g = Number(gpu[i]), c = Number(cpu[i]);
    if (Number.isFinite(c) && Math.abs(c) > m) m = Math.abs(c);
    if (!Number.isFinite(g) || !Number.isFinite(c)) { if (!(Object.is(g, c) || (Number.isNaN(g) && Number.isNaN(c)))) bad = true; continue; }
    if (Math.abs(g - c) > d) d = Math.abs(g - c);
  }
  r.max_abs_diff = bad ? null : d;  // null (JSON has no Infinity) when non-finite values disagree
  r.max_abs_cpu = m;
  r.rel_diff = bad ? null : m > 0 ? d / m : d;
  return r;
}

// ---- HTTP server on 127.0.0.1 ----
const MIME = { '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.map': 'application/json', '.json': 'application/json' };

function startServer(state) {
  const send = (res, code, body, type) => {
    res.writeHead(code, { 'Content-Type': type || 'text/plain', 'Cache-Control': 'no-store' });
    res.end(body);
  };
  const sendFile = (res, file) => {
    fs.readFile(file, (err, data) => {
      if (err) return send(res, 404, `not found: ${path.basename(file)}\n`);
      send(res, 200, data, MIME[path.extname(file)] || 'application/octet-stream');
    });
  };
  const server = http.createServer((req, res) => {
    let url;
    try { url = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname); } catch { return send(res, 400, 'bad url\n'); }
    let m;
    if (req.method === 'POST' && (m = /^\/out\/(\d+)\/(gpu|cpu)\/(\d+)$/.exec(url))) {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => { state.outputs.set(`${m[1]}/${m[2]}/${m[3]}`, Buffer.concat(chunks)); send(res, 200, 'ok\n'); });
      return undefined;
    }
    if (req.method !== 'GET') return send(res, 405, 'method not allowed\n');
    if (url === '/' || url === '/page.html') return sendFile(res, path.join(__dirname, 'page.html'));
    if (url === '/page.mjs') return sendFile(res, path.join(__dirname, 'page.mjs'));
    if (url === '/favicon.ico') return send(res, 204, '');
    if ((m = /^\/model\/(\d+)$/.exec(url))) {
      const file = state.models.get(m[1]);
      return file ? sendFile(res, file) : send(res, 404, 'no such model\n');
    }
    if ((m = /^\/fill\/(half|pattern)\/(\d+)$/.exec(url))) {
      const n = Number(m[2]);
      if (n > (1 << 28)) return send(res, 413, 'too large\n');
      const a = fillArray(n, m[1]);
      return send(res, 200, Buffer.from(a.buffer, a.byteOffset, a.byteLength), 'application/octet-stream');
    }
    if ((m = /^\/pkg\/(@litertjs\/(?:core|wasm-utils)\/(?:dist|wasm)\/[A-Za-z0-9_.-]+)$/.exec(url))) {
      return sendFile(res, path.join(PKG_ROOT, ...m[1].split('/')));
    }
    return send(res, 404, 'not found\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(Object.assign(new Error(`${what} timed out after ${ms} ms`), { timeout: true })), ms); }),
  ]).finally(() => clearTimeout(timer));
}

// ---- the browser session ----
class Session {
  constructor(opts, baseUrl) {
    this.opts = opts; this.baseUrl = baseUrl;
    this.context = null; this.page = null; this.boot = null; this.browserLog = []; this.userDataDir = null;
  }

  async launch(playwright) {
    this.userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'litegpu-verify-profile-'));
    try {
      this.context = await playwright.chromium.launchPersistentContext(this.userDataDir, {
        executablePath: this.opts.chromium,
        headless: true,
        timeout: 60000,
        args: [
          '--no-sandbox', '--enable-unsafe-webgpu',
          // The machine's network is closed: keep Chromium from trying to reach anything. Even with
          // the background-networking flags it still looked up accounts.google.com and
          // update.googleapis.com through the system resolver; the resolver rule answers every
          // name lookup with NOTFOUND locally (the page is on a literal 127.0.0.1).
          '--disable-quic', '--no-first-run', '--disable-background-networking',
          '--disable-component-update', '--disable-sync', '--dns-prefetch-disable',
          '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
          ...(process.env.LITEGPU_CHROMIUM_FLAGS || '').split(/\s+/).filter(Boolean),
        ],
      });
    } catch (e) {
      throw unavailable(`cannot start Chromium (${this.opts.chromium}): ${String(e && e.message || e).split('\n')[0]}`);
    }
    await this.openPage();
  }

  // Opens a fresh page and loads LiteRT.js in it. Throws an `unavailable` error when WebGPU or
  // LiteRT.js cannot be had.
  async openPage() {
    if (this.page) { try { await this.page.close(); } catch { /* crashed */ } }
    const page = await this.context.newPage();
    this.page = page;
    page.on('console', (msg) => { if (page === this.page) this.browserLog.push(`${msg.type()}: ${msg.text()}`); });
    page.on('pageerror', (e) => { if (page === this.page) this.browserLog.push(`pageerror: ${e && e.message || e}`); });
    page.on('crash', () => { if (page === this.page) this.browserLog.push('crash: the page crashed'); });
    const said = () => this.browserLog.slice(-3).join(' | ') || 'nothing';
    await withTimeout((async () => {
      await page.goto(`${this.baseUrl}/page.html`, { waitUntil: 'load', timeout: BOOT_TIMEOUT_MS });
      await page.waitForFunction(() => window.lgReady === true, null, { timeout: BOOT_TIMEOUT_MS });
    })(), BOOT_TIMEOUT_MS, 'loading the page').catch((e) => {
      throw unavailable(`the verify page did not load (${String(e && e.message || e).split('\n')[0]}; browser said: ${said()})`);
    });
    const boot = await withTimeout(page.evaluate(() => window.lgBoot()), BOOT_TIMEOUT_MS, 'loading LiteRT.js').catch((e) => {
      throw unavailable(`${String(e && e.message || e).split('\n')[0]} (browser said: ${said()})`);
    });
    if (!boot.ok) throw unavailable(boot.error || 'LiteRT.js did not load');
    this.boot = boot;
  }

  async close() {
    try { if (this.context) await this.context.close(); } catch { /* already gone */ }
    this.context = null; this.page = null;
    if (this.userDataDir) fs.rmSync(this.userDataDir, { recursive: true, force: true });
    this.userDataDir = null;
  }
}

function baseResult(opts, model) {
  return {
    model, precision: opts.precision, fill: opts.fill, ok: false, error: null, timed_out: false,
    compiled: false, compile_error: null, fully_accelerated: false, all_on_gpu: false,
    output_locations: [], gpu_ops: null, cpu_ops: null, rejected: [], errors: [],
    not_fully_compiled: false, static_sized_only: false, int64_unsupported: false,
    run_error: null, repeat_max_abs_diff: null, log: [], browser_log: [], inputs: [], outputs: [],
    cpu_ok: false, cpu_error: null, cpu_log: [],
    compile_ms: null, first_run_ms: null, run_ms: null, run_ms_all: [], cpu_compile_ms: null,
    cpu_run_ms: null, model_ms: null, adapter: null, jspi: null,
  };
}

const round = (x) => (x == null ? x : Math.round(x * 10) / 10);

function uniqueDirName(modelPath, used) {
  const base = path.basename(modelPath).replace(/\.tflite$/i, '') || 'model';
  let name = base;
  for (let k = 2; used.has(name); k++) name = `${base}_${k}`;
  used.add(name);
  return name;
}

async function verifyOne(session, state, opts, modelPath, key, dirName) {
  const res = baseResult(opts, modelPath);
  const t0 = Date.now();
  res.adapter = session.boot.adapter;
  res.jspi = session.boot.jspi;
  try {
    fs.accessSync(modelPath, fs.constants.R_OK);
    if (!fs.statSync(modelPath).isFile()) throw new Error('not a regular file');
  } catch (e) {
    res.error = `cannot read model: ${e.message}`;
    return { res, reload: false };
  }
  state.models.set(key, path.resolve(modelPath));
  for (const k of [...state.outputs.keys()]) if (k.startsWith(`${key}/`)) state.outputs.delete(k);
  session.browserLog = [];

  let r;
  try {
    r = await withTimeout(
      session.page.evaluate((a) => window.lgVerify(a), { model: `/model/${key}`, fill: opts.fill, precision: opts.precision, runs: opts.runs, key }),
      opts.timeoutMs, `model ${path.basename(modelPath)}`);
  } catch (e) {
    res.error = String(e && e.message || e).split('\n')[0];
    res.timed_out = !!(e && e.timeout);
    res.browser_log = session.browserLog.slice();
    res.model_ms = Date.now() - t0;
    return { res, reload: true };
  } finally {
    state.models.delete(key);
  }

  const gpuLines = r.gpu_log.map((l) => l.text);
  Object.assign(res, parseLog(gpuLines));
  res.log = gpuLines;
  res.cpu_log = r.cpu_log.map((l) => l.text);
  res.browser_log = session.browserLog.slice();
  for (const f of ['compiled', 'compile_error', 'fully_accelerated', 'run_error', 'repeat_max_abs_diff', 'cpu_ok', 'cpu_error']) res[f] = r[f];
  for (const f of ['compile_ms', 'first_run_ms', 'run_ms', 'cpu_compile_ms', 'cpu_run_ms']) res[f] = round(r[f]);
  res.run_ms_all = r.run_ms_all.map(round);
  res.output_locations = r.outputs.map((o) => o.location);
  if (opts.verbose) for (const l of r.gpu_log) process.stderr.write(`${ME}: [${dirName}] ${l.level}: ${l.text}\n`);

  // Files: DIR/<name>/input_K.npy, gpu/output_K.npy, cpu/output_K.npy
  const dir = path.join(opts.out, dirName);
  for (const sub of ['', 'gpu', 'cpu']) {
    const d = path.join(dir, sub);
    fs.mkdirSync(d, { recursive: true });
    for (const f of fs.readdirSync(d)) if (/^(input|output)_\d+\.npy$/.test(f)) fs.unlinkSync(path.join(d, f));
  }
  res.inputs = r.inputs.map((inp) => {
    const n = inp.shape.reduce((a, b) => a * b, 1);
    const data = inp.dtype === 'float32' ? fillArray(n, opts.fill) : null;
    return { ...inp, file: data ? writeNpy(dir, `input_${inp.index}.npy`, data, inp.shape) : null };
  });
  const nOut = Math.max(r.outputs.length, (r.cpu_outputs || []).length);
  for (let k = 0; k < nOut; k++) {
    const go = r.outputs[k], co = (r.cpu_outputs || [])[k];
    const meta = go || co;
    const load = (side, o) => {
      const buf = state.outputs.get(`${key}/${side}/${k}`);
      return o && buf ? typedArrayFor(o.dtype, buf) : null;
    };
    // A CPU run that printed ERROR lines returned garbage (peers.md): no reference file then.
    const g = load('gpu', go), c = r.cpu_ok ? load('cpu', co) : null;
    res.outputs.push({
      index: k, shape: meta.shape, dtype: meta.dtype, location: go ? go.location : null,
      gpu_file: g ? writeNpy(path.join(dir, 'gpu'), `output_${k}.npy`, g, go.shape) : null,
      cpu_file: c ? writeNpy(path.join(dir, 'cpu'), `output_${k}.npy`, c, co.shape) : null,
      ...compare(g, c),
    });
  }
  for (const k of [...state.outputs.keys()]) if (k.startsWith(`${key}/`)) state.outputs.delete(k);
  res.all_on_gpu = res.compiled && res.fully_accelerated && res.output_locations.length > 0 &&
    res.output_locations.every((l) => l === 'webgpu') && !res.rejected.length && !res.errors.length &&
    !res.not_fully_compiled && !res.run_error;
  res.ok = true;
  res.model_ms = Date.now() - t0;
  return { res, reload: !!r.threw };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));

  // ---- is the oracle here? ----
  let playwright;
  try { playwright = require(path.join(PKG_ROOT, 'playwright-core')); } catch (e) {
    throw unavailable('playwright-core is not installed in peers/node_modules');
  }
  for (const f of ['dist/index.js', 'wasm/litert_wasm_jspi_internal.wasm', '../wasm-utils/dist/index.js']) {
    if (!fs.existsSync(path.join(LITERT_DIR, f))) throw unavailable(`@litertjs/core is not installed in peers/node_modules (missing ${f})`);
  }
  try { fs.accessSync(opts.chromium, fs.constants.X_OK); } catch {
    throw unavailable(`no Chromium at ${opts.chromium}`);
  }

  if (!opts.out) opts.out = fs.mkdtempSync(path.join(os.tmpdir(), 'litegpu-verify-'));
  fs.mkdirSync(opts.out, { recursive: true });

  const state = { models: new Map(), outputs: new Map() };
  const server = await startServer(state);
  const baseUrl = `http://127.0.0.1:${server.address().port}`;
  const session = new Session(opts, baseUrl);
  const cleanup = async () => { await session.close(); server.close(); };
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => { cleanup().finally(() => process.exit(130)); });

  let failed = false;
  try {
    const tBatch = Date.now();
    await session.launch(playwright);
    if (opts.verbose) process.stderr.write(`${ME}: browser up in ${Date.now() - tBatch} ms, adapter ${JSON.stringify(session.boot.adapter)}, jspi ${session.boot.jspi}\n`);
    const used = new Set();
    for (let i = 0; i < opts.models.length; i++) {
      const m = opts.models[i];
      let out;
      try {
        out = await verifyOne(session, state, opts, m, String(i), uniqueDirName(m, used));
      } catch (e) {
        if (e && e.unavailable) throw e;
        const res = baseResult(opts, m);
        res.error = `harness error: ${String(e && e.message || e).split('\n')[0]}`;
        out = { res, reload: true };
      }
      process.stdout.write(JSON.stringify(out.res) + '\n');
      if (!out.res.ok) { failed = true; process.stderr.write(`${ME}: ${m}: NOT PROCESSED: ${out.res.error}\n`); }
      if (out.reload && i + 1 < opts.models.length) {
        // A fresh page (fresh LiteRT.js) after any exception or timeout; if even that fails (the
        // browser is gone), a fresh browser; if that fails, the oracle is unavailable (exit 4).
        try { await session.openPage(); } catch (e) {
          if (e && e.unavailable) throw e;
          await session.close();
          await session.launch(playwright);
        }
      }
    }
    if (opts.verbose) process.stderr.write(`${ME}: batch of ${opts.models.length} in ${Date.now() - tBatch} ms\n`);
  } finally {
    await cleanup();
  }
  process.exitCode = failed ? 3 : 0;
}

main().catch((e) => {
  if (e && e.unavailable) { process.exitCode = 4; return; }
  process.stderr.write(`${ME}: internal error: ${e && e.stack || e}\n`);
  process.exitCode = 1;
});
