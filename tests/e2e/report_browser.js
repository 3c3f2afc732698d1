// Opens litegpu report pages in headless Chromium (playwright-core from peers/node_modules, as
// peers/verify/verify.js drives it) and prints one JSON line per page:
//   {"page", "requests": [urls other than the page itself], "errors": [console errors and page
//    errors], "distinct_pixels": N (distinct RGBA values of a full-page screenshot), "width", "height"}
// Every request that is not the page itself is aborted and counted. The screenshot is decoded
// here (PNG: zlib inflate + the five row filters), so "non-blank" is counted, not assumed.
// usage: node tests/e2e/report_browser.js SHOT_DIR PAGE.html [PAGE.html ...]
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { chromium } = require(path.join(__dirname, '../../peers/node_modules/playwright-core'));

// RGBA rows of a PNG (8-bit RGB or RGBA, non-interlaced: what Chromium writes).
function decodePng(buf) {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let off = 8, w = 0, h = 0, ctype = 0, depth = 0;
  const idat = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off), type = buf.toString('latin1', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') { w = data.readUInt32BE(0); h = data.readUInt32BE(4); depth = data[8]; ctype = data[9]; }
    if (type === 'IDAT') idat.push(data);
    off += 12 + len;
  }
  if (depth !== 8 || (ctype !== 2 && ctype !== 6)) throw new Error(`PNG depth ${depth} type ${ctype} not handled`);
  const bpp = ctype === 6 ? 4 : 3, stride = w * bpp;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const out = Buffer.alloc(h * stride);
  for (let y = 0; y < h; y++) {
    const f = raw[y * (stride + 1)], src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = out.subarray(y * stride, (y + 1) * stride), prev = y ? out.subarray((y - 1) * stride, y * stride) : null;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? row[i - bpp] : 0, b = prev ? prev[i] : 0, c = prev && i >= bpp ? prev[i - bpp] : 0;
      let p;
      switch (f) {
        case 0: p = 0; break;
        case 1: p = a; break;
        case 2: p = b; break;
        case 3: p = (a + b) >> 1; break;
        case 4: { const q = a + b - c, pa = Math.abs(q - a), pb = Math.abs(q - b), pc = Math.abs(q - c);
          p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c; break; }
        default: throw new Error(`PNG filter ${f}`);
      }
      row[i] = (src[i] + p) & 255;
    }
  }
  return { w, h, bpp, data: out };
}

function distinctPixels(png) {
  const seen = new Set();
  for (let i = 0; i < png.data.length; i += png.bpp) {
    let v = 0;
    for (let k = 0; k < png.bpp; k++) v = v * 256 + png.data[i + k];
    seen.add(v);
  }
  return seen.size;
}

async function main() {
  const [shotDir, ...pages] = process.argv.slice(2);
  if (!shotDir || !pages.length) { console.error('usage: node report_browser.js SHOT_DIR PAGE.html...'); process.exit(2); }
  const browser = await chromium.launch({
    executablePath: process.env.LITEGPU_CHROMIUM || '/usr/bin/chromium', headless: true, timeout: 60000,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run',
           '--disable-sync', '--dns-prefetch-disable', '--host-resolver-rules=MAP * ~NOTFOUND'],
  });
  try {
    for (const p of pages) {
      const url = 'file://' + path.resolve(p);
      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      const page = await context.newPage();
      const requests = [], errors = [];
      page.on('request', (r) => { if (r.url() !== url) requests.push(r.url()); });
      await context.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(url, { waitUntil: 'load' });
      const shot = path.join(shotDir, path.basename(p).replace(/\.html$/, '') + '.png');
      await page.screenshot({ path: shot, fullPage: true });
      const png = decodePng(fs.readFileSync(shot));
      console.log(JSON.stringify({ page: p, requests, errors, distinct_pixels: distinctPixels(png), width: png.w,
                                   height: png.h, screenshot: shot }));
      await context.close();
    }
  } finally {
    await browser.close();
  }
}
main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
