// page.mjs -- runs inside headless Chromium for peers/verify/verify.js (not a command).
//
// verify.js calls, through page.evaluate:
//   await window.lgBoot()            -> {ok, error, adapter, jspi, device}
//       requests a WebGPU adapter (for its description), captures the console, loads LiteRT.js
//       (the JSPI build when the engine has WebAssembly.Suspending; the non-JSPI build fails on
//       partially delegated models with "Asyncify is not defined") and checks that LiteRT.js made
//       its default WebGPU device.
//   await window.lgVerify({model, fill, precision, runs, key})  -> result object (see below)
//       compiles the model on WebGPU (ML Drift) and on LiteRT's wasm CPU, runs both on the same
//       inputs, POSTs every output's raw bytes to /out/<key>/<gpu|cpu>/<k>.
//
// Inputs come from the server (/fill/<fill>/<n>, float32 bytes made by peers/npy.js) so there is
// one definition of the fills. Non-float32 inputs are filled with zeros.
//
// Console capture: console.log/info/warn/error/debug are replaced before LiteRT.js loads (its
// Emscripten glue binds console.* when it is evaluated). Everything printed goes into the current
// phase's list as {level, text}, one entry per line, with '%c' styling removed. The originals are
// not called, so whatever verify.js sees through Playwright's console events came from elsewhere
// (the browser itself, e.g. WebGPU validation warnings).
import * as litert from '@litertjs/core';

let sink = null;                      // array of {level, text} for the current phase, or null
const orphan = [];                    // lines printed outside any phase (load time)

function formatArgs(args) {
  const parts = [];
  let rest = args;
  if (typeof args[0] === 'string' && /%[csdifoO%]/.test(args[0])) {
    let k = 1;
    const fmt = args[0].replace(/%([csdifoO%])/g, (m, c) => {
      if (c === '%') return '%';
      if (k >= args.length) return m;
      const v = args[k++];
      if (c === 'c') return '';
      if (c === 'd' || c === 'i') return String(Math.trunc(Number(v)));
      if (c === 'f') return String(Number(v));
      return show(v);
    });
    parts.push(fmt);
    rest = args.slice(k);
  } else {
    parts.push(...(args.length ? [show(args[0])] : []));
    rest = args.slice(1);
  }
  for (const v of rest) parts.push(show(v));
  return parts.join(' ');
}

function show(v) {
  if (typeof v === 'string') return v;
  if (v instanceof Error) return v.message ? `${v.name}: ${v.message}` : String(v);
  try { return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v); } catch { return String(v); }
}

function captureConsole() {
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    console[level] = (...args) => {
      const text = formatArgs(args);
      const dst = sink || orphan;
      for (const line of text.split('\n')) if (line.trim() !== '') dst.push({ level, text: line.replace(/\s+$/, '') });
    };
  }
}

function errText(e) {
  if (e == null) return String(e);
  if (e instanceof Error) return e.message ? `${e.name}: ${e.message}` : e.name;
  return String(e);
}

window.lgBoot = async function lgBoot() {
  const out = { ok: false, error: null, adapter: null, jspi: false, device: false, load_log: orphan };
  try {
    if (!('gpu' in navigator)) { out.error = 'navigator.gpu is missing (WebGPU disabled; Chromium needs --enable-unsafe-webgpu)'; return out; }
    const adapter = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) { out.error = 'navigator.gpu.requestAdapter() returned null (no WebGPU adapter)'; return out; }
    const info = adapter.info || {};
    out.adapter = {
      vendor: info.vendor || '', architecture: info.architecture || '', device: info.device || '',
      description: info.description || '',
      is_fallback: !!(info.isFallbackAdapter ?? adapter.isFallbackAdapter),
      features: [...adapter.features].sort(),
      shader_f16: adapter.features.has('shader-f16'),
    };
    captureConsole();
    out.jspi = typeof WebAssembly === 'object' && 'Suspending' in WebAssembly;
    await litert.loadLiteRt('/pkg/@litertjs/core/wasm/', out.jspi ? { jspi: true } : {});
    out.device = !!litert.getWebGpuDevice();
    if (!out.device) { out.error = 'LiteRT.js could not create its WebGPU device'; return out; }
    out.ok = true;
  } catch (e) {
    out.error = `cannot load LiteRT.js: ${errText(e)}`;
  }
  return out;
};

async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`GET ${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

const ZERO_ARRAYS = {
  int32: Int32Array, uint32: Uint32Array, int16: Int16Array, uint16: Uint16Array, int8: Int8Array,
  uint8: Uint8Array, bool: Uint8Array, float64: Float64Array, int64: BigInt64Array,
};

async function makeInputs(details, fill) {
  const meta = [], arrays = [];
  for (const d of details) {
    const shape = Array.from(d.shape);
    if (shape.some((x) => !(x > 0))) throw new Error(`input ${d.index} has dynamic shape [${shape}]`);
    const n = shape.reduce((a, b) => a * b, 1);
    let data;
    if (d.dtype === 'float32') {
      const b = await fetchBytes(`/fill/${fill}/${n}`);
      data = new Float32Array(b.buffer, b.byteOffset, n);
    } else if (ZERO_ARRAYS[d.dtype]) {
      data = new ZERO_ARRAYS[d.dtype](n);
    } else {
      throw new Error(`input ${d.index} has unsupported dtype ${d.dtype}`);
    }
    meta.push({ index: meta.length, name: d.name, shape, dtype: d.dtype, filled: d.dtype === 'float32' ? 'fill' : 'zeros' });
    arrays.push({ data, shape });
  }
  return { meta, arrays };
}

function tensors(arrays) {
  return arrays.map(({ data, shape }) => new litert.Tensor(data, shape));
}

function del(objs) {
  for (const o of objs) { try { o && o.delete(); } catch { /* already gone */ } }
}

async function post(url, typed) {
  const r = await fetch(url, { method: 'POST', body: new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength) });
  if (!r.ok) throw new Error(`POST ${url}: HTTP ${r.status}`);
}

function maxAbsDiff(a, b) {
  if (!a || !b || a.length !== b.length) return null;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(Number(a[i]) - Number(b[i]));
    if (Number.isNaN(d)) { if (!(Number.isNaN(Number(a[i])) && Number.isNaN(Number(b[i])))) return Infinity; } else if (d > m) m = d;
  }
  return m;
}

// Runs `model` once: returns {outs: [{shape, dtype, location, data}], ms} (time of run() plus reading
// every output back with await tensor.data(), so GPU work is finished when the clock stops).
async function runOnce(model, arrays) {
  const ins = tensors(arrays);
  let outs = [];
  try {
    const t0 = performance.now();
    outs = await model.run(ins);
    const res = [];
    for (const t of outs) {
      let location = null;
      try { location = t.accelerator; } catch (e) { location = `unknown (${errText(e)})`; }
      res.push({ shape: Array.from(t.type.layout.dimensions), dtype: t.type.dtype, location, data: await t.data() });
    }
    return { outs: res, ms: performance.now() - t0 };
  } finally {
    del(outs); del(ins);
  }
}

function median(xs) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

// Result fields (verify.js adds the parsed ones):
//   compiled, compile_error, fully_accelerated, compile_ms, first_run_ms, run_ms, run_ms_all,
//   run_error, repeat_max_abs_diff (largest change of any output between the first and last GPU run),
//   inputs [{index,name,shape,dtype,filled}], outputs [{index,shape,dtype,location}],
//   cpu_ok, cpu_error, cpu_compile_ms, cpu_run_ms, gpu_log, cpu_log [{level,text}], threw (an
//   exception other than a compile error happened: verify.js reloads the page before the next model).
window.lgVerify = async function lgVerify({ model, fill, precision, runs, key }) {
  const r = {
    compiled: false, compile_error: null, fully_accelerated: false, compile_ms: null,
    first_run_ms: null, run_ms: null, run_ms_all: [], run_error: null, repeat_max_abs_diff: null,
    inputs: [], outputs: [], cpu_ok: false, cpu_error: null, cpu_compile_ms: null, cpu_run_ms: null,
    gpu_log: [], cpu_log: [], threw: false,
  };
  const bytes = await fetchBytes(model);
  let inputs;

  // ---- GPU: ML Drift through LiteRT.js WebGPU ----
  sink = r.gpu_log;
  let gm = null;
  try {
    let t0 = performance.now();
    try {
      gm = await litert.loadAndCompile(bytes, { accelerator: 'webgpu', gpuOptions: { precision } });
      r.compiled = true;
    } catch (e) {
      r.compile_error = errText(e);
      r.threw = true;
    }
    r.compile_ms = performance.now() - t0;
    if (gm) {
      r.fully_accelerated = !!gm.isFullyAccelerated;
      inputs = await makeInputs(gm.getInputDetails(), fill);
      r.inputs = inputs.meta;
      try {
        const first = await runOnce(gm, inputs.arrays);
        r.first_run_ms = first.ms;
        r.outputs = first.outs.map((o, k) => ({ index: k, shape: o.shape, dtype: o.dtype, location: o.location }));
        for (let k = 0; k < first.outs.length; k++) await post(`/out/${key}/gpu/${k}`, first.outs[k].data);
        let last = first;
        for (let i = 0; i < runs; i++) {
          last = await runOnce(gm, inputs.arrays);
          r.run_ms_all.push(last.ms);
        }
        r.run_ms = median(r.run_ms_all);
        if (runs > 0) {
          r.repeat_max_abs_diff = 0;
          for (let k = 0; k < first.outs.length; k++) {
            const d = maxAbsDiff(first.outs[k].data, last.outs[k].data);
            r.repeat_max_abs_diff = d === null || r.repeat_max_abs_diff === null ? null : Math.max(r.repeat_max_abs_diff, d);
          }
        }
      } catch (e) {
        r.run_error = errText(e);
        r.threw = true;
      }
    }
  } finally {
    del([gm]);
  }

  // ---- CPU reference: LiteRT wasm (XNNPACK) in the same page ----
  sink = r.cpu_log;
  let cm = null;
  try {
    const t0 = performance.now();
    cm = await litert.loadAndCompile(bytes, { accelerator: 'wasm' });
    r.cpu_compile_ms = performance.now() - t0;
    if (!inputs) { inputs = await makeInputs(cm.getInputDetails(), fill); r.inputs = inputs.meta; }
    const ref = await runOnce(cm, inputs.arrays);
    r.cpu_run_ms = ref.ms;
    r.cpu_outputs = ref.outs.map((o, k) => ({ index: k, shape: o.shape, dtype: o.dtype }));
    for (let k = 0; k < ref.outs.length; k++) await post(`/out/${key}/cpu/${k}`, ref.outs[k].data);
    r.cpu_ok = !r.cpu_log.some((l) => /^ERROR\b/.test(l.text));
    if (!r.cpu_ok) r.cpu_error = r.cpu_log.filter((l) => /^ERROR\b/.test(l.text)).map((l) => l.text).join('; ');
  } catch (e) {
    r.cpu_error = errText(e);
    r.threw = true;
  } finally {
    del([cm]);
    sink = null;
  }
  return r;
};

window.lgReady = true;
