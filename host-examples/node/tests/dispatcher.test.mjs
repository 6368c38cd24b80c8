// The dispatcher example end to end over loopback HTTP: delivered, retried
// to a dead letter with its reason, 410 disabling the endpoint, transport
// errors, Retry-After, and the webhook_deadletter_total metric.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { RetryPolicy, ManualClock } from '@webhook/retry-policy';
import { startEndpoints } from '../examples/dispatcher/endpoints.mjs';
import { Metrics, serveMetrics } from '../examples/dispatcher/metrics.mjs';
import { Dispatcher, virtualScheduler } from '../examples/dispatcher/dispatcher.mjs';
import { retryAfterMs, errorOutcome } from '../examples/dispatcher/outcome.mjs';

const DOC = {
  classes: {
    notification: { window_ms: 60_000, hard_cap: 8, backoff: { base_ms: 500, factor: 2.0, cap_ms: 10_000, jitter: 'full' } },
  },
};
let endpoints;
before(async () => {
  endpoints = await startEndpoints();
});
after(async () => {
  await endpoints.close();
});

function setup() {
  const clock = new ManualClock(1_700_000_000_000);
  const metrics = new Metrics();
  const scheduler = virtualScheduler(clock);
  const dispatcher = new Dispatcher(new RetryPolicy(DOC, { clock }), { metrics, scheduler, timeoutMs: 5000 });
  return { clock, metrics, scheduler, dispatcher };
}

const event = (id, path, url) => ({ id, class: 'notification', endpoint_id: `ep_${id}`, url: url ?? endpoints.url(path) });

test('a healthy endpoint gets one attempt and the event is delivered', async () => {
  const { dispatcher, metrics } = setup();
  const before = endpoints.hits('/healthy');
  const d = await dispatcher.deliver(event('ok', '/healthy'));
  assert.equal(d.stop_reason, 'delivered');
  assert.equal(endpoints.hits('/healthy') - before, 1);
  assert.equal(metrics.get('webhook_delivered_total'), 1);
  assert.deepEqual(dispatcher.deadLetters, []);
});

test('an always-503 endpoint is retried, honouring Retry-After, until the policy dead-letters it', async () => {
  const { dispatcher, metrics, scheduler } = setup();
  const before = endpoints.hits('/always-503');
  const d = await dispatcher.deliver(event('busy', '/always-503'));
  assert.equal(d.stop_reason, 'max_attempts_exhausted');
  const [dl] = dispatcher.deadLetters;
  assert.equal(dl.event_id, 'busy');
  assert.equal(dl.stop_reason, 'max_attempts_exhausted');
  assert.equal(dl.attempts, 8);
  assert.equal(endpoints.hits('/always-503') - before, 8);
  assert.equal(scheduler.slept.length, 7);
  assert.ok(scheduler.slept.every((ms) => ms >= 1000), `Retry-After: 1 not honoured: ${scheduler.slept}`);
  assert.equal(metrics.get('webhook_deadletter_total', { stop_reason: 'max_attempts_exhausted' }), 1);
  assert.equal(metrics.get('webhook_attempts_total'), 8);
});

test('a 410 dead-letters at once and disables the endpoint', async () => {
  const { dispatcher, metrics } = setup();
  const d = await dispatcher.deliver(event('gone', '/gone'));
  assert.equal(d.stop_reason, 'terminal_response');
  assert.equal(d.disable_endpoint, true);
  assert.deepEqual([...dispatcher.disabledEndpoints], ['ep_gone']);
  assert.equal(dispatcher.deadLetters[0].attempts, 1);
  assert.equal(metrics.get('webhook_deadletter_total', { stop_reason: 'terminal_response' }), 1);
});

test('a refused connection is a retryable connect_error', async () => {
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const { dispatcher } = setup();
  const d = await dispatcher.deliver(event('refused', null, `http://127.0.0.1:${port}/hook`));
  assert.equal(d.stop_reason, 'max_attempts_exhausted');
  assert.equal(d.dead_letter.attempts, 8);
});

test('an unsupported URL scheme is terminal', async () => {
  const { dispatcher } = setup();
  const d = await dispatcher.deliver(event('ftp', null, 'ftp://127.0.0.1/hook'));
  assert.equal(d.stop_reason, 'terminal_response');
  assert.equal(d.dead_letter.attempts, 1);
});

test('/metrics exposes webhook_deadletter_total by stop_reason', async () => {
  const { dispatcher, metrics } = setup();
  await dispatcher.deliver(event('m1', '/gone'));
  await dispatcher.deliver(event('m2', '/gone'));
  await dispatcher.deliver(event('m3', '/always-503'));
  await dispatcher.deliver(event('m4', '/healthy'));
  const server = await serveMetrics(metrics);
  try {
    const text = await (await fetch(server.url)).text();
    assert.match(text, /^# TYPE webhook_deadletter_total counter$/m);
    assert.match(text, /^webhook_deadletter_total\{stop_reason="terminal_response"\} 2$/m);
    assert.match(text, /^webhook_deadletter_total\{stop_reason="max_attempts_exhausted"\} 1$/m);
    assert.match(text, /^webhook_delivered_total 1$/m);
  } finally {
    await server.close();
  }
});

test('Retry-After is read as seconds or an HTTP date; transport errors get contract names', () => {
  assert.equal(retryAfterMs('120', 0), 120_000);
  assert.equal(retryAfterMs('Thu, 01 Jan 1970 00:00:10 GMT', 4000), 6000);
  assert.equal(retryAfterMs('soon', 0), undefined);
  assert.deepEqual(errorOutcome(Object.assign(new Error('x'), { name: 'TimeoutError' })), { error_kind: 'read_timeout' });
  assert.deepEqual(errorOutcome(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })), { error_kind: 'connect_error' });
  assert.deepEqual(errorOutcome(new TypeError('fetch failed', { cause: new Error('redirect count exceeded') })), { error_kind: 'too_many_redirects' });
  assert.deepEqual(errorOutcome(new TypeError('fetch failed', { cause: new Error('unknown scheme') })), { error_kind: 'unsupported_protocol' });
  assert.deepEqual(errorOutcome(new TypeError('Failed to parse URL', { cause: Object.assign(new TypeError('Invalid URL'), { code: 'ERR_INVALID_URL' }) })), { error_kind: 'invalid_url' });
});
