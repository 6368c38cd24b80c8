// The window's edge (docs/replica.md): no attempt is started at or after
// first_attempt_ms + window_ms. The dispatcher re-checks the deadline
// after the wait and immediately before writing the request (after the
// store call, DNS, connect and handshake); an attempt past it is not sent,
// not counted, and the event stops retry_window_elapsed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { RetryPolicy, ManualClock } from '@webhook/retry-policy';
import { Metrics } from '../examples/dispatcher/metrics.mjs';
import { Dispatcher, virtualScheduler } from '../examples/dispatcher/dispatcher.mjs';
import { post, NotSentError } from '../examples/dispatcher/http-client.mjs';

const WINDOW_MS = 10_000;
const DOC = { classes: { n: { window_ms: WINDOW_MS, hard_cap: 8, backoff: { base_ms: 1000, factor: 2.0, cap_ms: 4000, jitter: 'none' } } } };
const servers = [];
const sockets = new Set();
after(() => {
  for (const s of sockets) s.destroy(); // keep-alive connections of a failed test must not hold the run
  servers.forEach((s) => s.close());
});

/** A raw HTTP endpoint answering 503 and counting connections and requests. */
async function endpoint() {
  const seen = { connections: 0, requests: 0, bytes: 0 };
  const server = net.createServer((socket) => {
    seen.connections += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('data', (d) => {
      seen.bytes += d.length;
      seen.requests += (d.toString('latin1').match(/^POST /gm) ?? []).length;
      socket.write('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${server.address().port}/hook`, seen };
}

function setup({ scheduler, signer = null } = {}) {
  const clock = new ManualClock(1_700_000_000_000);
  const metrics = new Metrics();
  const policy = new RetryPolicy(DOC, { clock });
  const dispatcher = new Dispatcher(policy, { metrics, scheduler: scheduler?.(clock) ?? virtualScheduler(clock), allowPrivateTargets: true, signer, attemptDeadlineMs: 3000 });
  return { clock, metrics, dispatcher };
}

test('post asks mayWrite once the connection is up and, refused, writes not one byte', async () => {
  const { url, seen } = await endpoint();
  let calls = 0;
  let connectedWhenAsked = null;
  const err = await post(url, {
    body: '{}',
    allowPrivate: true,
    mayWrite: () => {
      calls += 1;
      connectedWhenAsked = seen.connections;
      return false;
    },
  }).catch((e) => e);
  assert.ok(err instanceof NotSentError, String(err));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(calls, 1);
  assert.equal(connectedWhenAsked, 1, 'asked after the connection was made');
  assert.equal(seen.bytes, 0);
});

test('a retry whose wait ends past the window is not sent and stops retry_window_elapsed', async () => {
  const { url, seen } = await endpoint();
  // The wait overshoots: the clock lands past the window's end.
  const late = (clock) => ({ sleep: async (ms) => clock.advance(ms + WINDOW_MS) });
  const { dispatcher, metrics } = setup({ scheduler: late });
  const d = await dispatcher.deliver({ id: 'e1', class: 'n', endpoint_id: 'ep', url });
  assert.equal(d.stop_reason, 'retry_window_elapsed');
  assert.equal(d.dead_letter.attempts, 1);
  assert.equal(seen.requests, 1, 'only the first attempt was sent');
  assert.equal(metrics.total('webhook_attempts_total'), 1);
  dispatcher.close();
});

test('a window that closes between the wait and the write (here: while signing) sends nothing more', async () => {
  const { url, seen } = await endpoint();
  let clockRef;
  let signed = 0;
  const signer = {
    // The second attempt's preparation takes the clock to the window's end exactly.
    headers: async () => {
      signed += 1;
      if (signed === 2) clockRef.set(firstAt + WINDOW_MS);
      return {};
    },
    refresh: async () => {},
  };
  let firstAt;
  const { dispatcher, clock, metrics } = setup({ signer });
  clockRef = clock;
  firstAt = clock.nowMs();
  const d = await dispatcher.deliver({ id: 'e2', class: 'n', endpoint_id: 'ep', url });
  assert.equal(d.stop_reason, 'retry_window_elapsed');
  assert.equal(d.dead_letter.attempts, 1, 'the attempt that was not sent is not counted');
  assert.equal(seen.requests, 1);
  assert.equal(metrics.get('webhook_attempts_total', { kind: 'retry' }), 0);
  assert.equal(metrics.get('webhook_deadletter_total', { stop_reason: 'retry_window_elapsed' }), 1);
  dispatcher.close();
});

test('one ms before the edge the retry is still sent', async () => {
  const { url, seen } = await endpoint();
  let firstAt;
  let clockRef;
  let signed = 0;
  const signer = {
    headers: async () => {
      signed += 1;
      if (signed === 2) clockRef.set(firstAt + WINDOW_MS - 1);
      return {};
    },
    refresh: async () => {},
  };
  const { dispatcher, clock } = setup({ signer });
  clockRef = clock;
  firstAt = clock.nowMs();
  const d = await dispatcher.deliver({ id: 'e3', class: 'n', endpoint_id: 'ep', url });
  assert.equal(seen.requests, 2, 'the second attempt went out before the edge');
  assert.equal(d.stop_reason, 'retry_window_elapsed');
  assert.equal(d.dead_letter.attempts, 2);
  dispatcher.close();
});
