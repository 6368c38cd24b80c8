// The dispatcher as a driver of the delivery engine (examples/dispatcher/
// driver.mjs): a real engine (memory store) and real HTTP to a loopback
// receiver. What the engine decides is its trace vectors' business
// (tests/vectors/engine-*.json); here: that the driver does the I/O the actions ask
// for, in the order docs/engine.md requires.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { DeliveryEngine, verify } from '@webhook/retry-policy';
import { Driver } from '../examples/dispatcher/driver.mjs';
import { Sender } from '../examples/dispatcher/send.mjs';
import { Metrics } from '../examples/dispatcher/metrics.mjs';
import { JournalFile } from '../examples/dispatcher/journal-file.mjs';
import { fileSigner } from '../examples/dispatcher/signer.mjs';

const MAIN = new URL('../examples/replica/main.mjs', import.meta.url).pathname;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'driver-'));
const servers = [];
after(() => servers.forEach((s) => s.close()));

const doc = (windowMs = 5_000, hardCap = 4) => ({ version: 'd-1', classes: { storm: { window_ms: windowMs, hard_cap: hardCap, backoff: { base_ms: 20, factor: 2.0, cap_ms: 40, jitter: 'none' }, budget: { ratio: 1.0, window_ms: 60_000, min_sample: 0, sliding: true } } } });

/** A receiver answering `respond(req, n)` -> [status, headers]; records every request. */
async function receiver(respond) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      requests.push({ headers: req.headers, body });
      const [status, headers = {}] = respond(req, requests.length);
      res.writeHead(status, headers).end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${server.address().port}/hook`, requests };
}

/** Run `events` events to their end through a Driver; returns {result, driver, metrics}. */
async function run({ target, events = 1, document = doc(), allowPrivateTargets = true, signer = null, journal = null }) {
  const metrics = new Metrics();
  const engine = new DeliveryEngine({ document, max_in_flight: 4, max_open: 4, memory_store: true });
  let n = 0;
  let driver;
  const sender = new Sender({ nowMs: () => driver.nowMs(), metrics, attemptDeadlineMs: 2000, allowPrivateTargets, signer });
  driver = new Driver({
    engine, journal, sender, metrics, log: () => {}, concurrency: 4,
    nextEvent: () => (n < events ? { event_id: `e${n++}`, endpoint_id: 'ep', target, class: 'storm' } : null),
  });
  try {
    return { result: await driver.run(), driver, metrics };
  } finally {
    driver.close();
    engine.close();
  }
}

test('a healthy receiver gets one POST per event with the contract body and headers, and the events are delivered', async () => {
  const r = await receiver(() => [204]);
  const { result, driver, metrics } = await run({ target: r.url, events: 3 });
  assert.equal(result.how, 'finished');
  assert.equal(driver.stopReasons.get('delivered'), 3);
  assert.equal(metrics.get('webhook_attempts_total', { kind: 'first' }), 3);
  assert.deepEqual(r.requests.map((q) => JSON.parse(q.body)).sort((a, b) => a.event_id.localeCompare(b.event_id)), [0, 1, 2].map((i) => ({ event_id: `e${i}`, attempt: 1 })));
  for (const q of r.requests) assert.equal(q.headers['x-event-id'], JSON.parse(q.body).event_id);
});

test('a loopback target without allowPrivateTargets is a terminal destination_refused, counted, never connected to', async () => {
  const r = await receiver(() => [204]);
  const { driver, metrics } = await run({ target: r.url, allowPrivateTargets: false });
  assert.equal(driver.stopReasons.get('terminal_response'), 1);
  assert.equal(metrics.get('webhook_transport_errors_total', { kind: 'destination_refused' }), 1);
  assert.equal(r.requests.length, 0);
});

test('hostile answers end in a dead letter, never a crash: status 999 (unexpected_status), a redirect, a 20-digit Retry-After', async () => {
  for (const [respond, reason] of [
    [() => [999], 'terminal_response'],
    [() => [302, { location: 'http://127.0.0.1:1/' }], 'terminal_response'],
    [() => [503, { 'retry-after': '99999999999999999999' }], 'retry_window_elapsed'],
  ]) {
    const r = await receiver(respond);
    const { driver } = await run({ target: r.url, document: doc(300) });
    assert.deepEqual([...driver.stopReasons], [[reason, 1]], `${r.requests.length} requests`);
  }
});

test('a 401 makes the driver reload the secret and sign the retry with the rotated one; no secret: nothing sent unsigned', async () => {
  const file = path.join(dir, 'secrets.json');
  const old = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const rotated = 'whsec_dGhpcyBpcyB0aGUgcm90YXRlZCBzZWNyZXQ=';
  fs.writeFileSync(file, JSON.stringify({ ep: old }));
  const r = await receiver((req, n) => {
    if (n === 1) fs.writeFileSync(file, JSON.stringify({ ep: rotated })); // rotated while the first attempt is answered
    return [n === 1 ? 401 : 204];
  });
  const { driver } = await run({ target: r.url, signer: fileSigner(file) });
  assert.equal(driver.stopReasons.get('delivered'), 1);
  const [first, second] = r.requests;
  assert.ok(verify(old, first.headers, first.body));
  assert.ok(verify(rotated, second.headers, second.body));
  fs.writeFileSync(file, JSON.stringify({}));
  const none = await receiver(() => [204]);
  const { metrics } = await run({ target: none.url, signer: fileSigner(file), document: doc(200) });
  assert.equal(none.requests.length, 0);
  assert.ok(metrics.get('webhook_transport_errors_total', { kind: 'credentials_unavailable' }) >= 1);
});

test('each attempt is journaled (and synced) before its request reaches the receiver', async () => {
  const file = path.join(dir, 'order.journal');
  const journal = new JournalFile(file);
  const seen = [];
  const r = await receiver((req) => {
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l.slice(9)));
    const mine = lines.filter((x) => x.event_id === req.headers['x-event-id']).at(-1);
    seen.push([Number(req.headers['x-attempt']), mine.attempts]);
    return [seen.length < 3 ? 503 : 204];
  });
  await run({ target: r.url, journal });
  await journal.close();
  assert.deepEqual(seen, [[1, 1], [2, 2], [3, 3]]);
  assert.ok(!fs.existsSync(`${file}.lock`));
});

test('replica replay prints one JSON line and exits 0; a bad flag or an unreadable policy exits 2 and writes nothing', async () => {
  const file = path.join(dir, 'replay.journal');
  const policy = path.join(dir, 'replay-policy.json');
  fs.writeFileSync(policy, JSON.stringify(doc(1_000)));
  // Two dead letters written by the engine: b terminal (a 400), a past its window.
  const e = new DeliveryEngine({ document: doc(1_000), memory_store: true });
  const t = 1_800_000_000_000;
  const lines = [];
  const feed = (inputs) => lines.push(...e.feed(inputs).outputs.filter((o) => o.action === 'journal').map((o) => o.line));
  feed([{ op: 'admit', now_ms: t, event_id: 'a', endpoint_id: 'ep-1', target: 'https://a.example/', class: 'storm' }, { op: 'admit', now_ms: t, event_id: 'b', endpoint_id: 'ep-2', target: 'https://b.example/', class: 'storm' }]);
  feed([{ op: 'result', now_ms: t + 10, event_id: 'a', attempt: 1, status: 503 }, { op: 'result', now_ms: t + 10, event_id: 'b', attempt: 1, status: 400 }]);
  feed([{ op: 'result', now_ms: t + 2_000, event_id: 'a', attempt: 2, status: 503 }]);
  e.close();
  fs.writeFileSync(file, lines.join(''));
  const replay = (...args) => spawnSync(process.execPath, [MAIN, 'replay', ...args], { encoding: 'utf8', timeout: 30_000 });
  const ok = replay('--store', file, '--policy', policy, '--reason', 'terminal_response', '--now-ms', String(t + 5_000));
  assert.equal(ok.status, 0, ok.stderr);
  assert.deepEqual(ok.stdout.trim().split('\n').map((l) => JSON.parse(l)), [{ replayed: 1, already_replayed: 0, skipped_no_class: 0, ids: ['b~r1'] }]);
  const size = fs.statSync(file).size;
  for (const bad of [['--store', file, '--policy', policy, '--limit', '-1'], ['--store', file, '--policy', `${policy}.missing`], ['--store', file, '--policy', policy, '--bogus', '1'], ['--policy', policy]]) {
    const r = replay(...bad);
    assert.equal(r.status, 2, `${bad.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.equal(r.stdout, '');
  }
  assert.equal(fs.statSync(file).size, size, 'the failed runs wrote nothing');
  const again = replay('--store', file, '--policy', policy, '--now-ms', String(t + 5_500));
  assert.deepEqual(JSON.parse(again.stdout), { replayed: 1, already_replayed: 1, skipped_no_class: 0, ids: ['a~r1'] });
});

test('an artifact swap is a new engine: the old one drains, its snapshot is resumed there, and a waiting event goes on with its next attempt number', async () => {
  const r = await receiver((req, n) => [n === 1 ? 503 : 204]);
  const metrics = new Metrics();
  const slow = { version: 'd-2', classes: { storm: { ...doc().classes.storm, backoff: { base_ms: 300, factor: 2.0, cap_ms: 300, jitter: 'none' } } } };
  const first = new DeliveryEngine({ document: slow, max_in_flight: 4, max_open: 1, memory_store: true });
  const logs = [];
  let driver;
  let n = 0;
  const sender = new Sender({ nowMs: () => driver.nowMs(), metrics, attemptDeadlineMs: 2000, allowPrivateTargets: true });
  driver = new Driver({
    engine: first, sender, metrics, log: (l) => logs.push(l), concurrency: 1,
    nextEvent: () => (n < 1 ? { event_id: `e${n++}`, endpoint_id: 'ep', target: r.url, class: 'storm' } : null),
  });
  const done = driver.run();
  while (r.requests.length < 1) await new Promise((res) => setTimeout(res, 5)); // attempt 1 answered 503: the retry waits 300 ms
  await new Promise((res) => setTimeout(res, 50));
  driver.swapArtifact(() => new DeliveryEngine({ document: doc(), max_in_flight: 4, max_open: 1, memory_store: true }));
  const result = await done;
  driver.close();
  driver.engine.close();
  assert.equal(result.how, 'finished');
  assert.notEqual(driver.engine, first);
  assert.ok(logs.some((l) => /resumed the old one's snapshot \(1 open events\)/.test(l)), logs.join('\n'));
  assert.deepEqual(r.requests.map((q) => q.headers['x-attempt']), ['1', '2']);
  assert.equal(driver.stopReasons.get('delivered'), 1);
});
