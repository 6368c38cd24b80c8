'use strict';
// The component container reader (docs/artifact.md, loading step 3): the
// header, the top-level sections walked to the end of the file (id byte,
// LEB128 size, body), custom sections by name, and the main core module
// (the one core module section whose exports include `cabi_realloc`).
// Nothing here runs WebAssembly: the main module's bytes are compiled by
// lib/artifact/load.cjs. Its inverse, `appendCustomSection`, writes a
// valid component with one more custom section (tests, bundles).
const { ArtifactError } = require('../errors.cjs');

const COMPONENT_HEADER = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00);
const MODULE_HEADER = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
const CUSTOM = 0;
const CORE_MODULE = 1;
const MODULE_EXPORTS = 7;
const MAX_SECTION_ID = 12;

const invalid = (message) => new ArtifactError('artifact_invalid', message);
// Made on first use: a fatal TextDecoder loads ICU's converter (~10 ms at import otherwise).
let decoder = null;
const utf8 = () => (decoder ??= new TextDecoder('utf-8', { fatal: true }));

/** Unsigned LEB128 (u32) at `at`: [value, next offset]; throws at the end of `bytes`. */
function leb(bytes, at, end, what) {
  let value = 0;
  for (let shift = 0, i = at; shift < 35; shift += 7, i++) {
    if (i >= end) throw invalid(`truncated ${what} at byte ${at}`);
    const b = bytes[i];
    value += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) {
      if (value > 0xffffffff) throw invalid(`${what} at byte ${at} does not fit in 32 bits`);
      return [value, i + 1];
    }
  }
  throw invalid(`${what} at byte ${at} is longer than 5 bytes`);
}

/** A name (LEB128 length + UTF-8): [name, next offset]. */
function name(bytes, at, end, what) {
  const [len, start] = leb(bytes, at, end, `${what} length`);
  if (start + len > end) throw invalid(`${what} at byte ${at} runs past its section (${len} bytes)`);
  const raw = bytes.subarray(start, start + len);
  if (len <= 256 && raw.every((b) => b < 0x80)) return [String.fromCharCode(...raw), start + len]; // short ASCII: no decoder needed
  try {
    return [utf8().decode(raw), start + len];
  } catch {
    throw invalid(`${what} at byte ${at} is not UTF-8`);
  }
}

/** Sections of `bytes` after an 8-byte header, as [{id, start, end, offset}]. */
function sections(bytes, header, what) {
  if (bytes.length < 8 || !header.every((b, i) => bytes[i] === b)) {
    const found = Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
    const want = Array.from(header, (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw invalid(`${what}: expected the header ${want} at byte 0, found ${found || 'nothing'}`);
  }
  const out = [];
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at];
    const [size, start] = leb(bytes, at + 1, bytes.length, `${what} section size`);
    if (start + size > bytes.length) {
      throw invalid(`${what}: the section at byte ${at} (id ${id}) claims ${size} bytes, ${bytes.length - start} remain`);
    }
    out.push({ id, offset: at, start, end: start + size });
    at = start + size;
  }
  return out;
}

/** Export names of a core module (its export section, id 7). */
function moduleExports(bytes) {
  const names = [];
  for (const s of sections(bytes, MODULE_HEADER, 'core module')) {
    if (s.id !== MODULE_EXPORTS) continue;
    let [count, at] = leb(bytes, s.start, s.end, 'export count');
    for (; count > 0; count--) {
      let n;
      [n, at] = name(bytes, at, s.end, 'export name');
      [, at] = leb(bytes, at + 1, s.end, 'export index'); // kind byte, then index
      names.push(n);
    }
  }
  return names;
}

/**
 * Read a component: {custom: Map(name -> Uint8Array), main: Uint8Array (the
 * main core module's bytes), mainExports: string[]}. Throws ArtifactError
 * `artifact_invalid` naming what was wrong and at which byte.
 */
function readComponent(input) {
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  const custom = new Map();
  const mains = [];
  for (const s of sections(bytes, COMPONENT_HEADER, 'component')) {
    if (s.id > MAX_SECTION_ID) throw invalid(`unknown section id ${s.id} at byte ${s.offset}`);
    if (s.id === CUSTOM) {
      const [n, at] = name(bytes, s.start, s.end, 'custom section name');
      if (custom.has(n)) throw invalid(`a second custom section \`${n}\` at byte ${s.offset} (at most one of each)`);
      custom.set(n, bytes.subarray(at, s.end));
    } else if (s.id === CORE_MODULE) {
      const module = bytes.subarray(s.start, s.end);
      let exports;
      try {
        exports = moduleExports(module);
      } catch (e) {
        throw invalid(`the core module at byte ${s.offset}: ${e.detail}`);
      }
      if (exports.includes('cabi_realloc')) mains.push({ module, exports, offset: s.offset });
    }
  }
  if (mains.length !== 1) {
    const where = mains.map((m) => m.offset).join(', ');
    throw invalid(
      mains.length === 0
        ? 'no core module exports `cabi_realloc` (no main module)'
        : `${mains.length} core modules export \`cabi_realloc\` (at bytes ${where}); expected one main module`,
    );
  }
  return { custom, main: mains[0].module, mainExports: mains[0].exports };
}

function lebBytes(n) {
  const out = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

/** `component` with a custom section `name` holding `content` appended (the reader's inverse). */
function appendCustomSection(component, sectionName, content) {
  const nameBytes = new TextEncoder().encode(sectionName);
  const body = [...lebBytes(nameBytes.length), ...nameBytes];
  const data = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  const head = Uint8Array.from([CUSTOM, ...lebBytes(body.length + data.length), ...body]);
  const out = new Uint8Array(component.length + head.length + data.length);
  out.set(component, 0);
  out.set(head, component.length);
  out.set(data, component.length + head.length);
  return out;
}

module.exports = { readComponent, moduleExports, appendCustomSection, utf8 };
