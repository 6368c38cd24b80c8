// The V8 code cache of jco's glue (lib/artifact/code-cache.cjs, issue 20):
// the directory the variable names ('off'/'0': none), an entry used only for
// the same source, a corrupt or foreign entry ignored and rewritten, and a
// fresh process that writes the entry and a second one that decides with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { requireCached, cacheDir, readEntry, entryName } = require('../lib/artifact/code-cache.cjs');
const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(here, '..');
const GLUE = path.join(pkg, 'lib', 'component', 'glue.cjs');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'wrp-code-cache-'));

test("'off' and '0' turn the cache off; a path names its directory; nothing set means ~/.cache/webhook-retry-policy", () => {
  assert.equal(cacheDir('off'), null);
  assert.equal(cacheDir('0'), null);
  assert.equal(cacheDir('/some/where'), '/some/where');
  assert.equal(cacheDir(''), path.join(os.homedir(), '.cache', 'webhook-retry-policy'));
});

test('the glue required through the cache exports what a plain require does, and the saved entry is used by the next load', () => {
  const dir = tmp();
  const first = requireCached(GLUE, dir);
  assert.deepEqual(Object.keys(first.exports).sort(), Object.keys(require(GLUE)).sort());
  assert.equal(typeof first.exports.instantiate, 'function');
  first.save();
  const source = fs.readFileSync(GLUE);
  const data = readEntry(path.join(dir, entryName()), source);
  assert.ok(data !== undefined && data.length > 0, 'the entry holds V8 data for this source');
  const before = fs.statSync(path.join(dir, entryName())).mtimeMs;
  const second = requireCached(GLUE, dir);
  second.save(); // accepted data: nothing rewritten
  assert.equal(fs.statSync(path.join(dir, entryName())).mtimeMs, before);
  assert.equal(typeof second.exports.instantiate, 'function');
});

test('a corrupt entry is ignored, the glue still loads, and the entry is rewritten', () => {
  const dir = tmp();
  const entry = path.join(dir, entryName());
  fs.writeFileSync(entry, 'not a cache entry');
  const loaded = requireCached(GLUE, dir);
  assert.equal(typeof loaded.exports.instantiate, 'function');
  loaded.save();
  assert.ok(readEntry(entry, fs.readFileSync(GLUE)) !== undefined);
});

test("an entry written for another source is not used for this one", () => {
  const dir = tmp();
  const other = path.join(dir, 'other.cjs');
  fs.writeFileSync(other, "'use strict';\nmodule.exports = { answer: () => 42 };\n");
  const loaded = requireCached(other, dir);
  assert.equal(loaded.exports.answer(), 42);
  loaded.save();
  assert.equal(readEntry(path.join(dir, entryName()), fs.readFileSync(GLUE)), undefined);
});

test('a fresh process writes the entry after its first decision, the next decides with it, and off writes nothing', () => {
  const probe = "import { classifyStatus } from '@webhook/retry-policy'; console.log(classifyStatus(503));";
  const run = (env) => execFileSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: pkg, encoding: 'utf8', env: { ...process.env, ...env } }).trim();
  const dir = tmp();
  assert.equal(run({ WEBHOOK_RETRY_POLICY_CACHE: dir }), 'retryable');
  assert.ok(readEntry(path.join(dir, entryName()), fs.readFileSync(GLUE)) !== undefined);
  assert.equal(run({ WEBHOOK_RETRY_POLICY_CACHE: dir }), 'retryable');
  const home = tmp();
  assert.equal(run({ HOME: home, WEBHOOK_RETRY_POLICY_CACHE: 'off' }), 'retryable');
  assert.deepEqual(fs.readdirSync(home), []);
  assert.equal(run({ HOME: home, WEBHOOK_RETRY_POLICY_CACHE: '' }), 'retryable');
  assert.ok(fs.existsSync(path.join(home, '.cache', 'webhook-retry-policy', entryName())));
});
