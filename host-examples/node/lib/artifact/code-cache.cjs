'use strict';
// A V8 code cache for jco's glue (lib/component/glue.cjs, ~93 KiB of
// JavaScript; issue 20, cold start). Node 20 has no portable cache of a
// compiled WebAssembly.Module (its Liftoff compile of the main module is
// ~1 ms anyway); what a fresh process can skip is parsing and lazily
// compiling the glue's functions. Directory: $WEBHOOK_RETRY_POLICY_CACHE,
// else ~/.cache/webhook-retry-policy ('off' or '0': no cache), shared in
// name with the Rust, Go and Python hosts.
//
// One entry per V8 version and architecture, holding the glue's source
// beside V8's data: used only when the stored source equals the file's
// byte for byte (V8's own check covers its version and flags, not the
// source's content). Written to a temporary file and renamed, after the
// first instance ran the glue (so the data covers the functions it called).
// A missing, unreadable, corrupt, stale or rejected entry means compiling
// as usual and rewriting it; nothing here ever fails a load.
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const CACHE_ENV = 'WEBHOOK_RETRY_POLICY_CACHE';
const MAGIC = 'wrp-glue-cc-1\n';

/** The cache directory, or null (off, or no home). */
function cacheDir(value = process.env[CACHE_ENV] ?? '') {
  if (value === 'off' || value === '0') return null;
  if (value !== '') return value;
  const home = require('node:os').homedir();
  return home ? path.join(home, '.cache', 'webhook-retry-policy') : null;
}

const entryName = () => `glue-v8-${process.versions.v8}-${process.arch}.bin`;

/** The cached V8 data for `source` in `file`, or undefined. */
function readEntry(file, source) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  const head = MAGIC.length + 4;
  if (bytes.length < head || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return undefined;
  const sourceLength = bytes.readUInt32LE(MAGIC.length);
  if (head + sourceLength > bytes.length || !source.equals(bytes.subarray(head, head + sourceLength))) return undefined;
  return bytes.subarray(head + sourceLength);
}

function writeEntry(file, source, data) {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const length = Buffer.alloc(4);
    length.writeUInt32LE(source.length);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, Buffer.concat([Buffer.from(MAGIC, 'latin1'), length, source, data]));
    fs.renameSync(tmp, file);
  } catch {
    // A read-only or full cache directory: the next process compiles again.
  }
}

/**
 * Require the CommonJS module `file` through the code cache in `dir`
 * (default: cacheDir()). Returns {exports, save()}: save() writes the entry
 * when it was missing or refused, after the code ran (call it once).
 */
function requireCached(file, dir = cacheDir()) {
  if (dir === null) return { exports: require(file), save() {} };
  const source = fs.readFileSync(file);
  const entry = path.join(dir, entryName());
  const cachedData = readEntry(entry, source);
  let script;
  try {
    script = new vm.Script(Module.wrap(source.toString('utf8')), { filename: file, cachedData });
  } catch {
    return { exports: require(file), save() {} };
  }
  const module = { exports: {}, id: file, filename: file, loaded: false };
  script.runInThisContext().call(module.exports, module.exports, Module.createRequire(file), module, file, path.dirname(file));
  module.loaded = true;
  const fresh = cachedData === undefined || script.cachedDataRejected === true;
  return { exports: module.exports, save: () => fresh && writeEntry(entry, source, script.createCachedData()) };
}

module.exports = { requireCached, cacheDir, readEntry, entryName, CACHE_ENV };
