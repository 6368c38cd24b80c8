// The dispatcher example end to end over loopback HTTP: delivered, retried
// to a dead letter with its reason, 410 disabling the endpoint, transport
// errors, Retry-After through the core, hostile statuses, redirects not
// followed, reloaded events through resume, and the metrics.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { RetryPolicy, ManualClock } from '@webhook/retry-policy';
import { startEndpoints } from '../examples/dispatcher/endpoints.mjs';
import { Metrics, serveMetrics } from '../examples/dispatcher/metrics.mjs';
import { Dispatcher, virtualScheduler } from '../examples/dispatcher/dispatcher.mjs';
import { responseOutcome, errorOutcome } from '../examples/dispatcher/outcome.mjs';

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

function setup(options = {}, dispatcherOptions = {}) {
  const clock = new ManualClock(1_700_000_000_000);
  const metrics = new Metrics();
  const scheduler = virtualScheduler(clock);
  const policy = new RetryPolicy(DOC, { clock, ...options });
  // The local endpoints are on loopback: allowed explicitly (refused by default).
  const dispatcher = new Dispatcher(policy, { metrics, scheduler, attemptDeadlineMs: 5000, allowPrivateTargets: true, ...dispatcherOptions });
  return { clock, metrics, scheduler, dispatcher, policy };
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
  assert.equal(metrics.get('webhook_attempts_total', { kind: 'first' }), 1);
  assert.equal(metrics.get('webhook_attempts_total', { kind: 'retry' }), 7);
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

test('Retry-After goes through the core\'s parser; transport errors get contract names', () => {
  const { policy } = setup();
  const res = (status, retryAfter) => ({ status, headers: new Headers(retryAfter === undefined ? {} : { 'retry-after': retryAfter }) });
  const ra = (h) => policy.retryAfter(h, 4000);
  assert.deepEqual(responseOutcome(res(503, '120'), ra), { status: 503, retry_after_ms: 120_000 });
  assert.deepEqual(responseOutcome(res(503, 'Thu, 01 Jan 1970 00:00:10 GMT'), ra), { status: 503, retry_after_ms: 6000 });
  assert.deepEqual(responseOutcome(res(503, 'soon'), ra), { status: 503, retry_after_ms: null });
  assert.deepEqual(responseOutcome(res(503), ra), { status: 503, retry_after_ms: null });
  assert.deepEqual(responseOutcome(res(503, '99999999999999999999'), ra), { status: 503, retry_after_ms: 2 ** 53 - 1 });
  assert.deepEqual(responseOutcome(res(999), ra), { error_kind: 'unexpected_status' });
  assert.deepEqual(responseOutcome({ status: 99, headers: {} }, ra), { error_kind: 'unexpected_status' });
  assert.deepEqual(responseOutcome({ status: 503, headers: { 'retry-after': '120' } }, ra), { status: 503, retry_after_ms: 120_000 });
  const coded = (code) => errorOutcome(Object.assign(new Error('x'), { code }));
  assert.deepEqual(coded('ECONNREFUSED'), { error_kind: 'connect_error' });
  assert.deepEqual(coded('ENOTFOUND'), { error_kind: 'connect_error' });
  assert.deepEqual(coded('ECONNRESET'), { error_kind: 'remote_protocol_error' });
  assert.deepEqual(coded('HPE_HEADER_OVERFLOW'), { error_kind: 'remote_protocol_error' });
  assert.deepEqual(coded('HPE_INVALID_CONSTANT'), { error_kind: 'remote_protocol_error' });
  assert.deepEqual(coded('EDESTREFUSED'), { error_kind: 'destination_refused' });
  assert.deepEqual(coded('ERR_INVALID_URL'), { error_kind: 'invalid_url' });
  assert.deepEqual(coded('SOMETHING_NEW'), { error_kind: 'local_protocol_error' }); // unnamed: terminal, never retried blind
  assert.deepEqual(coded('ERR_INVALID_CHAR'), { error_kind: 'local_protocol_error' });
  assert.deepEqual(coded('CERT_HAS_EXPIRED'), { error_kind: 'tls_certificate' });
  assert.deepEqual(coded('ERR_SSL_WRONG_VERSION_NUMBER'), { error_kind: 'connect_error' });
});

test('hostile endpoints end in a dead letter, never a crash: status 999, a 20-digit Retry-After, a redirect', async () => {
  const { dispatcher } = setup();
  const weird = await dispatcher.deliver(event('s999', '/status-999'));
  assert.equal(weird.stop_reason, 'terminal_response');
  const huge = await dispatcher.deliver(event('huge', '/huge-retry-after'));
  assert.equal(huge.stop_reason, 'retry_window_elapsed');
  assert.equal(huge.dead_letter.attempts, 1);
  const before = endpoints.hits('/healthy');
  const redirected = await dispatcher.deliver(event('redir', '/redirect'));
  assert.equal(redirected.stop_reason, 'terminal_response');
  assert.equal(endpoints.hits('/healthy'), before, 'the redirect was followed');
});

test('an event reloaded from storage goes through resume: due ones continue, spent ones are dead-lettered', async () => {
  const { dispatcher, clock } = setup();
  const t0 = clock.nowMs();
  const saved = { class: 'notification', event_id: 'reloaded', endpoint_id: 'ep_r', attempt: 2, max_attempts: 8, first_attempted_at_ms: t0, credentials_refreshed: false };
  const d = await dispatcher.resume(event('reloaded', '/healthy'), saved);
  assert.equal(d.stop_reason, 'delivered');
  clock.advance(60_000); // exactly the window: elapsed >= window stops
  const late = await dispatcher.resume(event('late', '/healthy'), { ...saved, event_id: 'late' });
  assert.equal(late.stop_reason, 'retry_window_elapsed');
  assert.equal(late.dead_letter.attempts, 2);
  const spent = await dispatcher.resume(event('spent', '/healthy'), { ...saved, event_id: 'spent', attempt: 8, first_attempted_at_ms: clock.nowMs() });
  assert.equal(spent.stop_reason, 'max_attempts_exhausted');
});

test('a first attempt costs one store call (record_reserve when it fails), and a store outage never blocks delivery', async () => {
  const ops = [];
  const failing = { call: (request) => (ops.push(request.op), Promise.reject(new Error('down'))) };
  const { dispatcher } = setup({ store: failing });
  assert.equal((await dispatcher.deliver(event('ok2', '/healthy'))).stop_reason, 'delivered');
  assert.equal((await dispatcher.deliver(event('busy2', '/always-503'))).stop_reason, 'budget_unavailable');
  assert.deepEqual(ops, ['record', 'record_reserve']);
});

test('/metrics exposes webhook_budget_disagreements_total, counted by the library', async () => {
  const full = { current: { total: 100, retries: 100 }, previous: { total: 0, retries: 0 } };
  const { dispatcher, metrics } = setup({ store: { call: () => ({ reserved: true, counts: full }) } });
  await dispatcher.deliver(event('dis', '/always-503'));
  const text = await metrics.render();
  assert.match(text, /^# TYPE webhook_budget_disagreements_total counter$/m);
  assert.match(text, /^webhook_budget_disagreements_total 7$/m);
});

test('/metrics is bound to loopback unless a host is given', async () => {
  const server = await serveMetrics(new Metrics());
  try {
    assert.equal(server.address, '127.0.0.1');
    assert.match(await (await fetch(server.url)).text(), /^webhook_transport_errors_total\{kind="destination_refused"\} 0$/m);
  } finally {
    await server.close();
  }
});
