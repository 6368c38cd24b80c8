'use strict';
// Copy a caller's value into plain data before it crosses into WebAssembly.
//
// Why: serde-wasm-bindgen reads objects from inside a wasm call. A getter or
// a Proxy trap that throws there would unwind through wasm frames and leave
// the module's shadow stack unbalanced. Reading everything here, in plain
// JavaScript, means nothing user-defined runs during a wasm call.
//
// This is not validation: field names, types and ranges are checked by the
// Rust codec. Only what cannot be data at all (functions, symbols, binary
// buffers, non-string Map keys, throwing getters, nesting deeper than
// MAX_DEPTH, bigints outside 64 bits) is refused here, as `invalid_input`
// with the field path.
const { PolicyError } = require('./errors.cjs');

const MAX_DEPTH = 32;

function refuse(path, detail) {
  return new PolicyError('invalid_input', path, detail);
}

function child(path, key) {
  return path ? `${path}.${key}` : key;
}

function plain(value, path = '', depth = 0) {
  const t = typeof value;
  if (t === 'function' || t === 'symbol') {
    throw refuse(path, `expected JSON-like data, got a ${t}`);
  }
  if (t === 'bigint' && (value < -(2n ** 63n) || value >= 2n ** 64n)) {
    throw refuse(path, 'expected an integer below 2^64, got a larger bigint');
  }
  if (t !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) throw refuse(path, `nested deeper than ${MAX_DEPTH} levels`);
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    throw refuse(path, 'expected JSON-like data, got binary data');
  }
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = plain(read(value, i, path), `${path}[${i}]`, depth + 1);
    return out;
  }
  let entries;
  try {
    entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  } catch (e) {
    throw refuse(path, `reading it threw: ${e && e.message}`);
  }
  const out = {};
  for (const [k, v] of entries) {
    if (typeof k !== 'string') throw refuse(path, 'map keys must be strings');
    // As in JSON.stringify: a property set to undefined is absent.
    if (v === undefined) continue;
    out[k] = plain(v, child(path, k), depth + 1);
  }
  return out;
}

function read(array, i, path) {
  try {
    return array[i];
  } catch (e) {
    throw refuse(`${path}[${i}]`, `reading it threw: ${e && e.message}`);
  }
}

module.exports = { plain, MAX_DEPTH };
