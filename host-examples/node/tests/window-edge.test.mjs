// The window's edge (docs/replica.md): no attempt is started at or after
// first_attempt_ms + window_ms. The dispatcher re-checks the deadline
// after the wait and immediately before writing the request (after the
// store call, DNS, connect and handshake); an attempt past it is not sent,
// not counted, and the event stops retry_window_elapsed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Sender } from '../examples/dispatcher/send.mjs';
import { Metrics } from '../examples/dispatcher/metrics.mjs';
import { post, NotSentError } from '../examples/dispatcher/http-client.mjs';

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


/** The engine's `send` action for `url`, to start before `startBeforeMs` (the driver's clock). */
const sendAction = (url, startBeforeMs) => ({ action: 'send', event_id: 'e1', attempt: 2, endpoint_id: 'ep', target: url, body_b64: null, first_attempted_at_ms: 0, start_before_ms: startBeforeMs, refresh_credentials: false, probe: false });

test('a send whose start_before_ms has passed when the connection is up writes nothing and is not_started', async () => {
  const { url, seen } = await endpoint();
  let now = 1_000;
  // The clock passes the edge while connecting (as a wait, a store call or DNS would).
  const sender = new Sender({ nowMs: () => now++, metrics: new Metrics(), attemptDeadlineMs: 3000, allowPrivateTargets: true });
  try {
    assert.deepEqual(await sender.attempt(sendAction(url, 1_001)), { not_started: true }); // checked at 1000, then at 1001 before the write
    assert.equal(seen.bytes, 0, 'not one byte written');
    assert.deepEqual(await sender.attempt(sendAction(url, now)), { not_started: true }, 'at the edge: not started, not even connected');
  } finally {
    sender.close();
  }
});

test('one ms before the edge the attempt is still sent and its status is the result', async () => {
  const { url, seen } = await endpoint();
  const now = 1_000;
  const sender = new Sender({ nowMs: () => now, metrics: new Metrics(), attemptDeadlineMs: 3000, allowPrivateTargets: true });
  try {
    assert.deepEqual(await sender.attempt(sendAction(url, now + 1)), { status: 503 });
    assert.equal(seen.requests, 1);
  } finally {
    sender.close();
  }
});
