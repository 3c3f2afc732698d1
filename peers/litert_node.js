// litert_node.js -- load LiteRT.js (the CPU wasm build, XNNPACK) in Node. Shared by litert_run.js
// and litert_bench.js; not a command.
//
//   const { captureConsole, loadLiteRtNode } = require('./litert_node.js');
//   captureConsole({ verbose, onError: (line) => ... });   // first: before the glue is evaluated
//   const { litert, glue } = await loadLiteRtNode('litert_run');  // exits 1 if it cannot load
//
// Node setup (see shared/reference/peers.md): LiteRT.js is built for browsers, so we pose as a
// web worker: globalThis.self, and an importScripts() that evaluates the Emscripten glue with
// require/__dirname/__filename in scope and publishes its ModuleFactory. Trap: a model LiteRT.js
// cannot prepare does not throw; it prints "ERROR: ..." and run() returns garbage. captureConsole
// routes all console output through one hook and hands every line starting with ERROR to onError.
//
// Which wasm build: loadLiteRt(dir) without {threads: true} picks litert_wasm_internal.js when the
// engine has relaxed SIMD, else litert_wasm_compat_internal.js; neither is a threads build (only
// litert_wasm_threaded_internal.js uses SharedArrayBuffer/pthreads). `glue` names the file loaded.
// Requires `npm ci` in peers/ (scripts/install-deps.sh does it).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const util = require('node:util');
const vm = require('node:vm');
const { createRequire } = require('node:module');
const { fileURLToPath } = require('node:url');

// ---- console capture: runtime messages go to stderr (with verbose); ERROR lines to onError. ----
function captureConsole({ verbose = false, onError = () => {} } = {}) {
  const hook = (...args) => {
    const text = util.format(...args);
    // Harmless in Node: LiteRT.js probes for WebGPU at load time (message includes a stack).
    if (text.startsWith('Failed to create default WebGPU device') && text.includes('navigator is not defined')) return;
    for (const line of text.split('\n')) if (line.startsWith('ERROR')) onError(line.trim());
    if (verbose) process.stderr.write(text + '\n');
  };
  // Must run before the glue is evaluated: Emscripten binds console.log/error at startup.
  for (const k of ['log', 'info', 'warn', 'error', 'debug']) console[k] = hook;
}

// ---- pose as a web worker so LiteRT.js can load its Emscripten glue in Node. ----
let loadedGlue = null;
function installWorkerShim() {
  globalThis.self = globalThis;
  globalThis.importScripts = (url) => {
    const file = String(url).startsWith('file:') ? fileURLToPath(url) : String(url);
    const code = fs.readFileSync(file, 'utf8');
    const wrapper = `(function (require, __dirname, __filename) {${code}\nreturn ModuleFactory;\n})`;
    const fn = vm.runInThisContext(wrapper, { filename: file });
    globalThis.ModuleFactory = fn(createRequire(file), path.dirname(file), file);
    loadedGlue = path.basename(file);
  };
}

// Installs the shim, imports @litertjs/core and loads its wasm from peers/node_modules. On failure
// prints "<name>: cannot load LiteRT.js ..." and exits 1. Returns { litert, glue }.
async function loadLiteRtNode(name) {
  installWorkerShim();
  const wasmDir = path.join(__dirname, 'node_modules', '@litertjs', 'core', 'wasm') + path.sep;
  let litert;
  try {
    litert = await import('@litertjs/core');
    await litert.loadLiteRt(wasmDir);
  } catch (e) {
    process.stderr.write(`${name}: cannot load LiteRT.js from ${wasmDir} (run \`npm ci\` in peers/): ${e && e.message || e}\n`);
    process.exit(1);
  }
  return { litert, glue: loadedGlue };
}

module.exports = { captureConsole, loadLiteRtNode };
