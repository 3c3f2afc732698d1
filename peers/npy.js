// npy.js -- NumPy .npy (format 1.0) writer and the deterministic input fills shared by the peer
// harnesses (peers/verify/verify.js; peers/litert_run.js carries the same code). Not a command.
//
//   const { FILLS, fillArray, npyBytes, writeNpy, typedArrayFor } = require('./npy.js');
//
// Fills, over each input's flat buffer (the page in peers/verify/page.mjs uses the same formulas):
//   half:    x[i] = 0.5
//   pattern: x[i] = ((i*7919 + 13) % 1009) / 1009      (exact integers in float64, then one division)
// .npy: little-endian, C order, header padded so the data starts 64-byte aligned; '<f4' for
// float32, '<i4' for int32, ...
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const FILLS = {
  half: () => 0.5,
  pattern: (i) => ((i * 7919 + 13) % 1009) / 1009,
};

// TypedArray class -> NumPy descr (little-endian; one-byte types use '|').
const NPY_DESCR = {
  Float32Array: '<f4', Float64Array: '<f8', Int32Array: '<i4', Uint32Array: '<u4',
  Int16Array: '<i2', Uint16Array: '<u2', Int8Array: '|i1', Uint8Array: '|u1',
  BigInt64Array: '<i8', BigUint64Array: '<u8',
};

// LiteRT.js dtype name -> TypedArray class.
const DTYPE_ARRAY = {
  float32: Float32Array, float64: Float64Array, int32: Int32Array, uint32: Uint32Array,
  int16: Int16Array, uint16: Uint16Array, int8: Int8Array, uint8: Uint8Array, bool: Uint8Array,
  int64: BigInt64Array, uint64: BigUint64Array,
};

function fillArray(n, fill) {
  const f = FILLS[fill];
  if (!f) throw new Error(`unknown fill '${fill}'`);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = f(i);
  return data;
}

// A typed array of LiteRT.js dtype `dtype` viewing a copy of the bytes in `buf` (a Buffer).
function typedArrayFor(dtype, buf) {
  const C = DTYPE_ARRAY[dtype];
  if (!C) throw new Error(`no typed array for dtype ${dtype}`);
  if (buf.byteLength % C.BYTES_PER_ELEMENT) throw new Error(`${buf.byteLength} bytes is not a whole number of ${dtype}`);
  const copy = new ArrayBuffer(buf.byteLength);
  new Uint8Array(copy).set(buf);
  return new C(copy);
}

function npyBytes(typed, shape) {
  if (os.endianness() !== 'LE') throw new Error('big-endian host: .npy writer assumes little-endian');
  const descr = NPY_DESCR[typed.constructor.name];
  if (!descr) throw new Error(`no .npy dtype for ${typed.constructor.name}`);
  const shapeStr = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeStr}, }`;
  const total = 10 + header.length + 1;                 // magic+version+len, header, '\n'
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n'; // pad so data starts 64-byte aligned
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), data]);
}

function writeNpy(dir, name, typed, shape) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, npyBytes(typed, shape));
  return file;
}

module.exports = { FILLS, NPY_DESCR, DTYPE_ARRAY, fillArray, typedArrayFor, npyBytes, writeNpy };
