// Every case of tests/vectors-artifact/artifact.json (its `about` says how a
// case runs): the file made in a temporary directory, the environment set,
// the artifact loaded, the outcome compared. Each case is its own test,
// named by the case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { loadArtifact, EMBEDDED_PATH, MAX_ARTIFACT_BYTES } = require('../lib/artifact/load.cjs');
const { ArtifactError } = require('../lib/errors.cjs');

const doc = JSON.parse(fs.readFileSync(new URL('../../../tests/vectors-artifact/artifact.json', import.meta.url), 'utf8'));
const SHIPPED = new Uint8Array(fs.readFileSync(EMBEDDED_PATH));
const ENV = ['RETRY_POLICY_ARTIFACT', 'RETRY_POLICY_ARTIFACT_SHA256'];
const CASE_FIELDS = ['name', 'file', 'via', 'env', 'pin', 'expect', 'source'];
const FILE_FIELDS = {
  shipped: [], shipped_prefix: ['bytes'], zeros: ['bytes'], sparse: ['bytes'], text: ['text'],
  missing: [], directory: [], device: ['path'], fifo: [],
};
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'artifact-vectors-'));
process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));

const unknown = (o, known) => Object.keys(o).filter((k) => !known.includes(k));

test('the vectors have only known fields and this host\'s cap', () => {
  assert.deepEqual(unknown(doc, ['about', 'cap_bytes', 'cases']), []);
  assert.equal(doc.cap_bytes, MAX_ARTIFACT_BYTES);
  assert.ok(doc.cases.length >= 40, `${doc.cases.length} cases`);
  for (const c of doc.cases) {
    assert.deepEqual(unknown(c, CASE_FIELDS), [], c.name);
    if (c.file) {
      assert.ok(c.file.kind in FILE_FIELDS, `${c.name}: kind ${c.file.kind}`);
      assert.deepEqual(unknown(c.file, ['kind', ...FILE_FIELDS[c.file.kind]]), [], c.name);
    }
    assert.deepEqual(unknown(c.env ?? {}, ENV), [], c.name);
  }
});

/** The file `spec` describes at `file`: {file, bytes (or null), watchdog (a fifo's, or null)}. */
function make(spec, file) {
  let bytes = null;
  switch (spec.kind) {
    case 'shipped': bytes = SHIPPED; break;
    case 'shipped_prefix': bytes = SHIPPED.subarray(0, spec.bytes); break;
    case 'zeros': bytes = new Uint8Array(spec.bytes); break;
    case 'text': bytes = new TextEncoder().encode(spec.text); break;
    case 'sparse': fs.closeSync(fs.openSync(file, 'w')); fs.truncateSync(file, spec.bytes); break;
    case 'directory': fs.mkdirSync(file); break;
    case 'device': return { file: spec.path, bytes: null, watchdog: null };
    case 'fifo': {
      execFileSync('mkfifo', [file]);
      // After 5 s, open it for writing and close it: a loader blocked on it then reads an empty file.
      const watchdog = spawn('sh', ['-c', 'sleep 5; : > "$0"', file], { stdio: 'ignore' });
      return { file, bytes: null, watchdog };
    }
    case 'missing': break;
    default: throw new Error(`unknown kind ${spec.kind}`);
  }
  if (bytes !== null) fs.writeFileSync(file, bytes);
  return { file, bytes, watchdog: null };
}

doc.cases.forEach((c, i) => {
  test(c.name, () => {
    const dir = fs.mkdtempSync(path.join(root, `${i}-`));
    const made = c.file ? make(c.file, path.join(dir, 'artifact.wasm')) : { file: null, bytes: null, watchdog: null };
    const subst = (s) => {
      if (s.includes('{path}')) s = s.replaceAll('{path}', made.file);
      if (/\{sha256\}/i.test(s)) {
        assert.ok(made.bytes !== null, `${c.name}: a digest of a file without bytes`);
        const d = crypto.createHash('sha256').update(made.bytes).digest('hex');
        s = s.replaceAll('{sha256}', d).replaceAll('{SHA256}', d.toUpperCase()).replaceAll('{Sha256}', d.slice(0, 32).toUpperCase() + d.slice(32));
      }
      return s;
    };
    const saved = ENV.map((k) => process.env[k]);
    for (const k of ENV) delete process.env[k];
    for (const [k, v] of Object.entries(c.env ?? {})) process.env[k] = subst(v);
    const source = { path: made.file, bytes: made.bytes, default: undefined }[c.via];
    assert.ok(c.via === 'default' || source != null, `${c.name}: via ${c.via} does not fit the file`);
    let outcome;
    let loaded = null;
    try {
      loaded = loadArtifact(source, c.pin === undefined ? {} : { expectedSha256: subst(c.pin) });
      outcome = 'ok';
    } catch (e) {
      outcome = e instanceof ArtifactError ? e.code : `not an ArtifactError: ${e}`;
      if (outcome !== c.expect) outcome += ` (${e.message})`;
    } finally {
      made.watchdog?.kill();
      ENV.forEach((k, j) => (saved[j] === undefined ? delete process.env[k] : (process.env[k] = saved[j])));
    }
    assert.equal(outcome, c.expect, `${c.name}: expected ${c.expect}, got ${outcome}`);
    if (loaded !== null && c.source !== undefined) {
      assert.equal(loaded.info.source, { path: made.file, bytes: 'bytes', embedded: 'embedded' }[c.source], c.name);
    }
  });
});
