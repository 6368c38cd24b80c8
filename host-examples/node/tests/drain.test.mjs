// SIGTERM / SIGINT drain of the replica (docs/replica.md): against a slow
// local endpoint, a signal mid-run ends the run with exit 0 within
// --drain-ms + 2 s, the summary says "drained": true, every admitted event
// is either stopped or pending, and no (event_id, attempt) reaches the
// endpoint twice; an attempt still running at the drain deadline is
// abandoned (counted as made, its event pending); a second signal is ignored.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPLICA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../replica');
const TRANSPORT_KINDS = JSON.parse(fs.readFileSync(new URL('../../../fleet/transport-kinds.json', import.meta.url), 'utf8')).kinds.map((k) => k.kind);
let dir;
let policy;
const servers = [];

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'drain-test-'));
  policy = path.join(dir, 'policy.json');
  fs.writeFileSync(policy, JSON.stringify({
    classes: { storm: { window_ms: 60_000, hard_cap: 6, backoff: { base_ms: 100, factor: 2.0, cap_ms: 400, jitter: 'none' }, budget: { ratio: 0.5, window_ms: 60_000, min_sample: 10_000, sliding: true } } },
  }));
});

after(() => {
  for (const s of servers) s.closeAllConnections?.(), s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** An endpoint answering 503 after `delayMs` (Infinity: never), recording every (event id, attempt). */
async function slowEndpoint(delayMs) {
  const received = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(`${req.headers['x-event-id']}#${req.headers['x-attempt']}`);
      if (Number.isFinite(delayMs)) setTimeout(() => res.writeHead(503).end(), delayMs);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${server.address().port}/slow`, received };
}

/**
 * Start the replica, send `signals` (names) once `when()` is true (polled;
 * the replica is up and sending), resolve {code, summary, stderr, exitMs (after the first signal)}.
 */
function drained(args, { when = () => false, signals = ['SIGTERM'] }) {
  return new Promise((resolve) => {
    const child = spawn(REPLICA, [...args, '--allow-private-targets'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let signalledAt = null;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setInterval(() => {
      if (signals.length === 0 || !when()) return;
      clearInterval(timer);
      signalledAt = performance.now();
      for (const s of signals) child.kill(s);
    }, 20);
    child.on('exit', (code) => {
      clearInterval(timer);
      const lines = stdout.split('\n').filter((l) => l.trim() !== '');
      resolve({ code, lines, summary: lines.length === 1 ? JSON.parse(lines[0]) : null, stderr, exitMs: performance.now() - signalledAt });
    });
  });
}

const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);
const noDuplicates = (received) => assert.equal(new Set(received).size, received.length, `an (event_id, attempt) was sent twice: ${received.join(' ')}`);

test('SIGTERM mid-run drains: exit 0 within drain-ms + 2 s, events = stopped + pending, no attempt sent twice', { timeout: 30_000 }, async () => {
  const endpoint = await slowEndpoint(150);
  const drainMs = 1000;
  const { code, lines, summary: s, stderr, exitMs } = await drained(
    ['--target', endpoint.url, '--endpoint-id', 'ep-drain', '--events', '200', '--concurrency', '8', '--policy', policy, '--drain-ms', String(drainMs)],
    { when: () => endpoint.received.length >= 30 },
  );
  assert.equal(code, 0, stderr);
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.ok(exitMs < drainMs + 2000, `exited ${Math.round(exitMs)} ms after SIGTERM`);
  assert.equal(s.drained, true);
  assert.ok(s.events > 0 && s.events < 200, `the signal stopped admission: ${s.events} events`);
  assert.equal(s.events, sum(s.stop_reasons) + s.pending);
  assert.ok(s.pending > 0, 'events waiting for a retry stay pending');
  assert.deepEqual(Object.keys(s.transport_errors), TRANSPORT_KINDS);
  assert.equal(s.attempts, s.first_attempts + s.retries);
  assert.equal(s.attempts, endpoint.received.length, 'every attempt counted reached the endpoint (none was abandoned)');
  assert.ok(Number.isInteger(s.store_errors) && Number.isInteger(s.budget_disagreements));
  noDuplicates(endpoint.received);
  assert.match(stderr, /SIGTERM: draining/);
});

test('an attempt still running at the drain deadline is abandoned: counted as made, its event pending; a second signal is ignored', { timeout: 120_000 }, async () => {
  const endpoint = await slowEndpoint(Infinity); // never answers
  const drainMs = 300;
  // The hung attempts would hold a replica that waited for them until their
  // attempt deadline (60 s); one that abandons them at the drain deadline
  // exits long before. The bound is that difference, not a wall-clock slack
  // after --drain-ms (a loaded CI machine once missed drain-ms + 2 s), and
  // the replica's own log below says the deadline, not an answer, ended the
  // drain.
  const attemptDeadlineMs = 60_000;
  const { code, summary: s, stderr, exitMs } = await drained(
    ['--target', endpoint.url, '--endpoint-id', 'ep-hang', '--events', '10', '--concurrency', '3', '--policy', policy, '--drain-ms', String(drainMs),
      '--attempt-deadline-ms', String(attemptDeadlineMs)],
    { when: () => endpoint.received.length >= 3, signals: ['SIGINT', 'SIGTERM'] },
  );
  assert.equal(code, 0, stderr);
  assert.ok(exitMs >= drainMs - 50, `exited ${Math.round(exitMs)} ms after the signal, before --drain-ms ${drainMs}`);
  assert.ok(exitMs < attemptDeadlineMs / 2, `exited ${Math.round(exitMs)} ms after the signal: it waited for the hung attempts`);
  assert.equal(s.drained, true);
  assert.equal(s.events, 3);
  assert.equal(s.pending, 3);
  assert.equal(sum(s.stop_reasons), 0);
  assert.equal(s.attempts, 3, 'the abandoned attempts count as made');
  noDuplicates(endpoint.received);
  // The two signals are sent back to back: when both are pending at once the
  // process may see them in either order (CI saw SIGTERM first). The promise
  // is order-free: the first one drains, the other is ignored.
  const first = /(SIGINT|SIGTERM): draining/.exec(stderr);
  assert.ok(first, stderr);
  const other = first[1] === 'SIGINT' ? 'SIGTERM' : 'SIGINT';
  assert.match(stderr, new RegExp(`${other} ignored: already draining`));
  assert.equal(stderr.match(/: draining/g).length, 1, 'one drain only');
  assert.match(stderr, /3 attempt\(s\) still running at 300 ms abandoned/);
});

test('a run that ends without a signal says drained false and pending 0', { timeout: 30_000 }, async () => {
  const endpoint = await slowEndpoint(0);
  const { code, summary: s } = await drained(['--target', endpoint.url, '--endpoint-id', 'ep-plain', '--events', '2', '--policy', policy, '--drain-ms', '0'], { signals: [] });
  assert.equal(code, 0);
  assert.equal(s.drained, false);
  assert.equal(s.pending, 0);
  assert.equal(s.events, sum(s.stop_reasons));
});

test('a negative or non-numeric --drain-ms exits 2 naming the flag', { timeout: 30_000 }, async () => {
  for (const bad of ['-1', 'soon']) {
    const { code, lines, stderr } = await drained(['--target', 'http://127.0.0.1:1/', '--endpoint-id', 'e', '--events', '1', '--policy', policy, '--drain-ms', bad], { signals: [] });
    assert.equal(code, 2);
    assert.equal(lines.length, 0);
    assert.match(stderr, /--drain-ms/);
  }
});
