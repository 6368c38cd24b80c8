// An artifact's embedded document may be format 3 (docs/artifact.md
// "Loading", step 6): it is read with the artifact's own
// load-health-document, its health sections are exposed (embeddedDocument,
// Artifact.healthDocument), an invalid one is artifact_document_invalid
// naming the field, and a replica or a HealthPolicy given no document runs
// them as --policy's would (a 429's pause holds); a swap brings the new
// document's health to new events. A format-2 embedded document holds nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { ArtifactError, PolicyError, RetryPolicy, appendCustomSection, embeddedDocument, swapArtifact } from '@webhook/retry-policy';

const require = createRequire(import.meta.url);
const { loadArtifact } = require('../lib/artifact/load.cjs');
const here = path.dirname(fileURLToPath(import.meta.url));
const SHIPPED = fs.readFileSync(path.resolve(here, '../lib/retry_policy.wasm'));
const REPLICA = path.resolve(here, '../replica');
const HOLD_REASONS = ['paused', 'circuit_open', 'probe_refused', 'release_pacing', 'budget_refused'];

const storm = (health) => ({
  window_ms: 4000,
  hard_cap: 6,
  backoff: { base_ms: 50, factor: 2.0, cap_ms: 200, jitter: 'none' },
  budget: { ratio: 1.0, window_ms: 60_000, min_sample: 0, sliding: true },
  ...(health === undefined ? {} : { health }),
});
const doc = (version, health, name = 'storm') => ({ version, classes: { [name]: storm(health) } });
/** The shipped artifact with `document` embedded (what `retry-policy bundle` writes). */
const bundle = (document) => appendCustomSection(SHIPPED, 'webhook-retry-policy:document', JSON.stringify(document));

/** Run `f` with `bytes` as the current artifact, then the shipped one again. */
async function onArtifact(bytes, f) {
  const r = swapArtifact(bytes);
  assert.ok(r.ok, r.error?.message);
  try {
    await f();
  } finally {
    assert.ok(swapArtifact(SHIPPED).ok);
  }
}

let dir;
let server;
let base;
const hitsByPath = new Map();

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-health-'));
  // Each path's first request is a 429 with Retry-After: 1, every later one 204.
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const n = (hitsByPath.get(req.url) ?? 0) + 1;
      hitsByPath.set(req.url, n);
      if (n === 1) res.writeHead(429, { 'retry-after': '1' }).end();
      else res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(() => {
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('an artifact embedding a format-3 document loads and exposes its health sections', () => {
  const a = loadArtifact(bundle(doc('f3-1', { cache_ms: 1000 })));
  assert.equal(a.info.document_version, 'f3-1');
  assert.equal(a.hasHealth, true);
  const [c] = a.healthDocument.classes;
  assert.equal(c.name, 'storm');
  assert.ok(c.health !== undefined, 'the health section is kept');
  assert.match(c.policyHash, /^[0-9a-f]{16}$/);
  const plain = loadArtifact(bundle(doc('f2-1')));
  assert.equal(plain.hasHealth, false);
  assert.equal(plain.healthDocument.classes[0].health, undefined);
});

test('embeddedDocument() gives the current artifact\'s document with its health sections, and null when it embeds none', () =>
  onArtifact(bundle(doc('f3-2', { cache_ms: 2000 })), () => {
    const e = embeddedDocument();
    assert.equal(e.hasHealth, true);
    assert.equal(e.text, JSON.stringify(doc('f3-2', { cache_ms: 2000 })));
    assert.equal(e.document.version, 'f3-2');
    assert.equal(e.document.classes[0].health.cache_ms, 2000);
    assert.ok(swapArtifact(SHIPPED).ok);
    assert.equal(embeddedDocument(), null);
  }));

test('an invalid health section in the embedded document is artifact_document_invalid naming its field path', () => {
  for (const [cache, why] of [[0, /must be in 1\.\.=60000/], ['a', /got a string/]]) {
    assert.throws(() => loadArtifact(bundle(doc('bad', { cache_ms: cache }, 'x')))
      , (e) => {
        assert.ok(e instanceof ArtifactError, String(e?.stack));
        assert.equal(e.code, 'artifact_document_invalid');
        assert.match(e.message, /classes\.x\.health\.cache_ms/);
        assert.match(e.message, why);
        return true;
      });
  }
  // a swap to it is refused and the current artifact stays
  const r = swapArtifact(bundle(doc('bad', { cache_ms: 0 }, 'x')));
  assert.equal(r.ok, false);
  assert.equal(r.error.code, 'artifact_document_invalid');
  assert.equal(embeddedDocument(), null);
});

test('a RetryPolicy given no document refuses an embedded format-3 document instead of dropping its health sections', () =>
  onArtifact(bundle(doc('f3-3', {})), () => {
    assert.throws(() => new RetryPolicy(), (e) => e instanceof PolicyError && e.code === 'invalid_document' && e.field === 'classes.storm.health');
  }));

test('a RetryPolicy following a format-2 embedded document keeps it at a swap to a format-3 one, and counts the skip', () =>
  onArtifact(bundle(doc('f2-d')), () => {
    const p = new RetryPolicy();
    assert.ok(swapArtifact(bundle(doc('f3-e', {}))).ok);
    assert.equal(p.version, 'f2-d');
    assert.equal(p.skippedHealthDocuments, 1);
  }));

const runReplica = (args) => new Promise((resolve) => {
  execFile(REPLICA, [...args, '--allow-private-targets'], { timeout: 30_000 }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
});

// Two workers: the 429 answers one event's first attempt; the events
// started after it meet the pause at their gate (format 3) or are sent (format 2).
const EVENTS = 6;

async function replicaOn(name, document, urlPath) {
  const file = path.join(dir, `${name}.wasm`);
  fs.writeFileSync(file, bundle(document));
  const r = await runReplica(['--target', `${base}${urlPath}`, '--endpoint-id', `ep-${name}`, '--events', String(EVENTS), '--concurrency', '2', '--artifact', file]);
  assert.equal(r.code, 0, r.stderr);
  return { s: JSON.parse(r.stdout), r };
}

test('a replica with no --policy on an embedded format-3 document holds on a 429 Retry-After (a paused hold), then delivers', async () => {
  const { s, r } = await replicaOn('f3', doc('f3-replica', {}), '/f3');
  assert.deepEqual(Object.keys(s.holds), HOLD_REASONS);
  assert.ok(s.holds.paused >= 1, r.stdout);
  assert.equal(s.stop_reasons.delivered, EVENTS, r.stdout);
  assert.match(r.stderr, /document_version=f3-replica/);
});

test('a replica with no --policy on an embedded format-2 document makes no hold on the same 429', async () => {
  const { s, r } = await replicaOn('f2', doc('f2-replica'), '/f2');
  assert.deepEqual(s.holds, Object.fromEntries(HOLD_REASONS.map((k) => [k, 0])), r.stdout);
  assert.equal(s.stop_reasons.delivered, EVENTS, r.stdout);
});

const until = async (what, f, ms = 20_000) => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/**
 * A replica without --policy on the artifact file embedding `from`, watched
 * every 50 ms; its endpoint holds the first request until the replica has
 * logged a swap to the file embedding `to`. Returns {code, summary, stderr, versionAfter}
 * (versionAfter: the document_version /metrics names after the swap).
 */
async function swapMidRun(name, from, to) {
  const file = path.join(dir, `${name}.wasm`);
  fs.writeFileSync(file, bundle(from));
  let release;
  const released = new Promise((r) => (release = r));
  const hold = http.createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      await released;
      res.writeHead(204).end();
    });
  });
  await new Promise((r) => hold.listen(0, '127.0.0.1', r));
  const child = spawn(REPLICA, [
    '--target', `http://127.0.0.1:${hold.address().port}/hook`, '--endpoint-id', `ep-${name}`, '--events', '3', '--concurrency', '1',
    '--artifact', file, '--watch-artifact-ms', '50', '--metrics-addr', '127.0.0.1:0', '--allow-private-targets',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((r) => child.on('exit', (code) => r(code)));
  try {
    const url = await until('the metrics line', () => /metrics on (\S+)/.exec(stderr)?.[1]);
    fs.writeFileSync(`${file}.new`, bundle(to));
    fs.renameSync(`${file}.new`, file);
    await until('the swap line', () => /policy artifact swapped /.test(stderr));
    const metrics = await (await fetch(url)).text();
    const versionAfter = /webhook_policy_info\{[^}]*document_version="([^"]*)"/.exec(metrics)?.[1];
    release();
    const code = await exited;
    return { code, summary: code === 0 ? JSON.parse(stdout.trim()) : null, stderr, versionAfter };
  } finally {
    release();
    child.kill();
    await new Promise((r) => hold.close(r));
  }
}

test('a replica on an embedded format-3 document takes the swapped-in format-3 document for new events', { timeout: 30_000 }, async () => {
  const r = await swapMidRun('swap-33', doc('f3-before', {}), doc('f3-after', { cache_ms: 5000 }));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.versionAfter, 'f3-after');
  assert.equal(r.summary.stop_reasons.delivered, 3);
  assert.doesNotMatch(r.stderr, /not applied/);
});

test('a replica started on an embedded format-2 document takes a swapped-in format-3 one for new events: a new engine resumes the old one\'s snapshot', { timeout: 30_000 }, async () => {
  const r = await swapMidRun('swap-23', doc('f2-before'), doc('f3-after', {}));
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /the new artifact's engine resumed the old one's snapshot \(\d+ open events\)/);
  assert.match(r.stderr, /policy artifact swapped .* document_version=f3-after/);
  assert.equal(r.versionAfter, 'f3-after');
  assert.equal(r.summary.stop_reasons.delivered, 3);
  assert.doesNotMatch(r.stderr, /not applied/);
});
