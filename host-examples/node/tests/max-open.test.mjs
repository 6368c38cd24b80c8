// The bound on open events is the engine's `max_open` (= --concurrency,
// docs/engine.md section 1): the driver offers, with each batch's inputs, the
// admissions they may free; the engine refuses `at_capacity` those none freed
// (changing nothing) and the driver offers them again, in order. Here: never
// more open events than the concurrency, every refused admission admitted
// later, every event delivered exactly once; through the Driver (counted from
// the engine's own answers) and through the replica (seen by the receiver).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DeliveryEngine } from '@webhook/retry-policy';
import { Driver } from '../examples/dispatcher/driver.mjs';
import { Sender } from '../examples/dispatcher/send.mjs';
import { Metrics } from '../examples/dispatcher/metrics.mjs';

const REPLICA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../replica');
const EVENTS = 30;
const CONCURRENCY = 2;
const DOC = { version: 'max-open-1', classes: { storm: { window_ms: 30_000, hard_cap: 4, backoff: { base_ms: 20, factor: 2.0, cap_ms: 40, jitter: 'none' }, budget: { ratio: 1.0, window_ms: 60_000, min_sample: 0, sliding: true } } } };
const servers = [];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'max-open-'));
after(() => {
  servers.forEach((s) => s.close());
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * A receiver answering each event's first attempt 503 (the event stays open,
 * waiting for its retry) and later ones 204. `open` counts the events whose
 * first request came and whose 204 has not been sent: each is open in the
 * sender then, so its maximum is a lower bound of the sender's open events.
 */
async function receiver() {
  const seen = { requests: new Map(), open: 0, maxOpen: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['x-event-id'];
      const n = (seen.requests.get(id) ?? 0) + 1;
      seen.requests.set(id, n);
      if (n === 1) seen.maxOpen = Math.max(seen.maxOpen, ++seen.open);
      else seen.open -= 1;
      res.writeHead(n === 1 ? 503 : 204).end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${server.address().port}/hook`, seen };
}

/** An engine that counts, from its own answers, the events open after each batch and the admissions refused at_capacity. */
class CountingEngine extends DeliveryEngine {
  open = new Set();
  maxOpen = 0;
  atCapacity = 0;

  feed(inputs) {
    const answer = super.feed(inputs);
    const refused = new Set(answer.errors.map((e) => e.index));
    this.atCapacity += answer.errors.filter((e) => e.error === 'at_capacity').length;
    inputs.forEach((input, i) => input.op === 'admit' && !refused.has(i) && this.open.add(input.event_id));
    for (const o of answer.outputs) {
      if (o.action === 'delivered') this.open.delete(o.event_id);
      if (o.action === 'dead_letter') this.open.delete(o.dead_letter.event_id);
    }
    this.maxOpen = Math.max(this.maxOpen, this.open.size);
    return answer;
  }
}

test(`the driver never has more than its concurrency open; admissions refused at_capacity are offered again: ${EVENTS} events, each delivered once`, async () => {
  const r = await receiver();
  const metrics = new Metrics();
  const engine = new CountingEngine({ document: DOC, max_in_flight: CONCURRENCY, max_open: CONCURRENCY, memory_store: true });
  const logs = [];
  let n = 0;
  let driver;
  const sender = new Sender({ nowMs: () => driver.nowMs(), metrics, attemptDeadlineMs: 5000, allowPrivateTargets: true });
  driver = new Driver({
    engine, sender, metrics, log: (l) => logs.push(l), concurrency: CONCURRENCY,
    nextEvent: () => (n < EVENTS ? { event_id: `e${n++}`, endpoint_id: 'ep', target: r.url, class: 'storm' } : null),
  });
  const result = await driver.run();
  driver.close();
  engine.close();
  assert.equal(result.how, 'finished');
  assert.ok(engine.maxOpen <= CONCURRENCY, `${engine.maxOpen} open at once`);
  // A 503 stops no event: the admission offered with it is refused, so this path ran.
  assert.ok(engine.atCapacity >= 1, 'no admission was refused at_capacity');
  assert.deepEqual(logs, [], 'an at_capacity refusal is silent');
  assert.equal(driver.admitted, EVENTS);
  assert.equal(driver.open, 0);
  assert.deepEqual([...driver.stopReasons], [['delivered', EVENTS]]);
  assert.deepEqual([...r.seen.requests.keys()].sort(), Array.from({ length: EVENTS }, (_, i) => `e${i}`).sort());
  assert.ok([...r.seen.requests.values()].every((k) => k === 2), 'each event: one 503, then one 204');
  assert.equal(metrics.get('webhook_attempts_total', { kind: 'first' }), EVENTS);
});

test(`the replica with --concurrency ${CONCURRENCY}: ${EVENTS} events delivered exactly once, never more than ${CONCURRENCY} open at the receiver`, async () => {
  const r = await receiver();
  const policy = path.join(dir, 'policy.json');
  fs.writeFileSync(policy, JSON.stringify(DOC));
  const args = ['--target', r.url, '--endpoint-id', 'ep', '--events', String(EVENTS), '--concurrency', String(CONCURRENCY), '--policy', policy, '--allow-private-targets'];
  const { code, stdout, stderr } = await new Promise((resolve) => {
    execFile(REPLICA, args, { timeout: 60_000 }, (error, out, err) => resolve({ code: error ? error.code : 0, stdout: out, stderr: err }));
  });
  assert.equal(code, 0, stderr);
  const s = JSON.parse(stdout);
  assert.equal(s.events, EVENTS);
  assert.equal(s.stop_reasons.delivered, EVENTS);
  assert.equal(s.pending, 0);
  assert.equal(s.first_attempts, EVENTS);
  assert.equal(s.retries, EVENTS);
  assert.doesNotMatch(stderr, /at_capacity/);
  assert.ok(r.seen.maxOpen <= CONCURRENCY, `${r.seen.maxOpen} events open at once at the receiver`);
  assert.equal(r.seen.requests.size, EVENTS);
  assert.ok([...r.seen.requests.values()].every((k) => k === 2), 'each event: one 503, then one 204');
});
