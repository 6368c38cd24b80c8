'use strict';
// Copy a caller's value into plain data before it crosses into WebAssembly.
//
// Why: the caller's objects are read once, here, in plain JavaScript: a
// getter or Proxy trap runs before any call into WebAssembly (nothing
// user-defined runs during one), and what is lowered (lower.cjs) is this
// copy, which cannot change under it.
//
// This is not validation: field names, types and widths are checked by
// lower.cjs, ranges by the component. Only what cannot be data at all (functions, symbols, binary
// buffers, non-string Map keys, throwing getters, nesting deeper than
// MAX_DEPTH, bigints outside 64 bits) is refused here, as `invalid_input`
// with the field path.
//
// A document is different (plainDocument): its depth is the component's
// rule (load-document and load-health-document refuse a value deeper than
// 32 levels with the field "", before anything else), so its copy refuses
// no depth: a container found at depth 33 is copied as `null`, a value at
// depth 33 all the same, which the component then refuses as too deep.
// The copy stays bounded (a cycle ends there too).
const { PolicyError } = require('./errors.cjs');

const MAX_DEPTH = 32;

function refuse(path, detail) {
  return new PolicyError('invalid_input', path, detail);
}

function child(path, key) {
  return path ? `${path}.${key}` : key;
}

function plain(value, path = '', depth = 0, cut = false) {
  const t = typeof value;
  if (t === 'function' || t === 'symbol') {
    throw refuse(path, `expected JSON-like data, got a ${t}`);
  }
  if (t === 'bigint' && (value < -(2n ** 63n) || value >= 2n ** 64n)) {
    throw refuse(path, 'expected an integer below 2^64, got a larger bigint');
  }
  if (t !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) {
    if (!cut) throw refuse(path, `nested deeper than ${MAX_DEPTH} levels`);
    if (depth > MAX_DEPTH) return null; // still a value at depth 33: the component's refusal
  }
  // What a value is, asked without running caller code (brand checks, not
  // `instanceof`, which runs a Proxy's getPrototypeOf trap: the fast path
  // never asks for a prototype either); a revoked Proxy throws, as can
  // reading the entries: refused as a PolicyError, never thrown on.
  let kind;
  let entries;
  try {
    kind = kindOf(value);
    if (kind === 'array') entries = value.length;
    else if (kind === 'map') entries = [...Map.prototype.entries.call(value)];
    else if (kind === 'object') entries = Object.keys(value);
  } catch (e) {
    throw refuse(path, `reading it threw: ${e && e.message}`);
  }
  if (kind === 'object') {
    // each own enumerable field read once, a throwing one refused at its path
    const out = {};
    for (const k of entries) {
      const v = read(value, k, path);
      // As in JSON.stringify: a property set to undefined is absent. A
      // string, number or boolean is copied as it is (the common case: no
      // recursion, no path string built).
      const t = typeof v;
      if (t === 'string' || t === 'number' || t === 'boolean' || v === null) out[k] = v;
      else if (v !== undefined) out[k] = plain(v, child(path, k), depth + 1, cut);
    }
    return out;
  }
  if (kind === 'binary') throw refuse(path, 'expected JSON-like data, got binary data');
  if (kind === 'array') {
    // (a Proxy of an array can claim any length)
    if (!Number.isSafeInteger(entries) || entries < 0) throw refuse(path, 'expected an array length');
    const out = new Array(entries);
    for (let i = 0; i < entries; i++) out[i] = plain(read(value, i, path, `${path}[${i}]`), `${path}[${i}]`, depth + 1, cut);
    return out;
  }
  const out = {};
  for (const [k, v] of entries) {
    if (typeof k !== 'string') throw refuse(path, 'map keys must be strings');
    // As in JSON.stringify: a property set to undefined is absent.
    if (v === undefined) continue;
    out[k] = plain(v, child(path, k), depth + 1, cut);
  }
  return out;
}

// Brand checks in plain ECMAScript (no `node:util`, so the same file runs in
// the browser playground): a built-in getter called on a value without the
// internal slot throws a TypeError and runs no Proxy trap.
const byteLength = (C) => C && Object.getOwnPropertyDescriptor(C.prototype, 'byteLength').get;
const BRANDS = [byteLength(globalThis.ArrayBuffer), byteLength(globalThis.SharedArrayBuffer)].filter(Boolean);
const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size').get;

function has(getter, value) {
  try {
    getter.call(value);
    return true;
  } catch {
    return false;
  }
}

function kindOf(value) {
  if (Array.isArray(value)) return 'array';
  // The common case without a throw (each brand check below throws for a
  // non-match, ~10 us apiece): a plain object literal. A Proxy's
  // getPrototypeOf trap may run here; one that throws leaves the question to
  // the brand checks, which run no trap (finding F-N4).
  let proto;
  try {
    proto = Object.getPrototypeOf(value);
  } catch {
    proto = undefined;
  }
  if (proto === Object.prototype || proto === null) return 'object';
  if (ArrayBuffer.isView(value) || BRANDS.some((g) => has(g, value))) return 'binary';
  return has(mapSize, value) ? 'map' : 'object';
}

/** `object[key]`; a throw is refused at `at` (default: the field's path, built only then). */
function read(object, key, path, at) {
  try {
    return object[key];
  } catch (e) {
    throw refuse(at ?? child(path, key), `reading it threw: ${e && e.message}`);
  }
}

/** A document's copy: plain(), except that its depth is left to the component (see above). */
const plainDocument = (value) => plain(value, '', 0, true);

module.exports = { plain, plainDocument, MAX_DEPTH };
