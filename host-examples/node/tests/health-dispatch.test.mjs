// Format 3 in the dispatcher (docs/health-dispatch.md section 2) over
// loopback HTTP with virtual time: pauses, the circuit and its probe, the
// budget hold and its wake, the window's end while held.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { T0, healthDoc, setup } from './health-fixtures.mjs';

test('a 429 with Retry-After pauses the endpoint: no request before the instant, the held events delivered after it', async () => {
  const pauseEnds = T0 + 30_000;
  const t = await setup(healthDoc(), (_p, _now, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '30' } } : { status: 204 }));
  try {
    const first = t.deliver('e1');
    await t.scheduler.idle(); // e1's 429 is answered, its retry asleep
    const rest = [t.deliver('e2'), t.deliver('e3')];
    const runs = t.scheduler.run();
    const results = await Promise.all([first, ...rest]);
    await runs;
    assert.deepEqual(results.map((d) => d.stop_reason), ['delivered', 'delivered', 'delivered']);
    const [r1, ...later] = t.receiver.requests;
    assert.deepEqual([r1.event_id, r1.at_ms], ['e1', T0]);
    assert.equal(later.length, 3);
    for (const r of later) assert.ok(r.at_ms >= pauseEnds, `${r.event_id} sent at +${r.at_ms - T0} ms, inside the pause`);
    assert.equal(t.metrics.get('webhook_holds_total', { reason: 'paused' }), 2);
    assert.equal(t.metrics.heldNow, 0);
    assert.equal(t.metrics.get('webhook_attempts_total', { kind: 'first' }), 3);
  } finally {
    await t.close();
  }
});

const CIRCUIT = { cache_ms: 60_000, circuit: { failure_ratio: 0.5, min_sample: 2, cooldown_ms: 5000, cooldown_max_ms: 20_000, probes: 1, probe_interval_ms: 1000 } };

test('failures open the circuit, first attempts are held, a granted probe that succeeds closes it and held events leave paced', async () => {
  const upAt = T0 + 8000; // the endpoint fails (503, no Retry-After) until then
  const t = await setup(healthDoc(CIRCUIT), (_p, now) => ({ status: now < upAt ? 503 : 204 }));
  try {
    const early = [t.deliver('e1'), t.deliver('e2')];
    await t.scheduler.idle(); // both failed at T0: 2 of 2 attempts failed, the circuit opens
    const late = [t.deliver('e3'), t.deliver('e4'), t.deliver('e5')];
    const runs = t.scheduler.run();
    const results = await Promise.all([...early, ...late]);
    await runs;
    assert.deepEqual(results.map((d) => d.stop_reason), Array(5).fill('delivered'));
    console.log(`circuit: requests ${JSON.stringify(t.receiver.requests.map((r) => [r.event_id, r.at_ms - T0]))}`);
    // While open, only granted probes reach the endpoint, one per probe window at most.
    const granted = t.metrics.get('webhook_probe_calls_total', { granted: 'true' });
    const whileDown = t.receiver.requests.filter((r) => r.at_ms > T0 && r.at_ms < upAt);
    assert.equal(whileDown.length, granted - 1, 'every request while the circuit was open was a granted probe (the last one, after upAt, closed it)');
    assert.equal(new Set(whileDown.map((r) => Math.floor(r.at_ms / 1000))).size, whileDown.length, 'one probe per window');
    // The new events (first attempts) were held while open: none sent before the circuit's first probe.
    for (const id of ['e3', 'e4', 'e5']) assert.ok(t.receiver.requests.find((r) => r.event_id === id).at_ms >= T0 + 5000);
    assert.ok(t.metrics.get('webhook_holds_total', { reason: 'circuit_open' }) >= 3);
    assert.ok(t.metrics.get('webhook_probe_calls_total', { granted: 'true' }) >= 2);
    assert.ok(t.metrics.get('webhook_holds_total', { reason: 'release_pacing' }) >= 1, 'held events leave paced');
    // Paced: held events leave at most floor_per_s (1/s) after the first token.
    const released = t.receiver.requests.filter((r) => r.at_ms >= upAt).map((r) => r.at_ms).sort((a, b) => a - b);
    assert.ok(released[released.length - 1] - released[0] >= 1000 * (released.length - 2), `released too fast: ${released.map((x) => x - T0)}`);
    assert.equal(t.metrics.heldNow, 0);
  } finally {
    await t.close();
  }
});

test('a budget refusal holds instead of dead-lettering and the wake makes one reserve', async () => {
  const budget = { ratio: 0.1, window_ms: 60_000, min_sample: 0, sliding: false };
  const upAt = T0 + 500;
  const t = await setup(healthDoc({ circuit: null }, budget), (p, now) => ({ status: p === '/ok' || now >= upAt ? 204 : 503 }));
  try {
    const ok = [];
    for (let i = 0; i < 4; i++) ok.push(await t.deliver(`ok${i}`, '/ok')); // 4 first attempts in the budget
    const d = t.deliver('e1', '/flaky');
    await t.scheduler.idle(); // its first attempt failed, its retry refused (1 of 5 > 0.1): held
    assert.equal(t.metrics.get('webhook_holds_total', { reason: 'budget_refused' }), 1);
    for (let i = 4; i < 24; i++) ok.push(await t.deliver(`ok${i}`, '/ok')); // the budget grows meanwhile
    const runs = t.scheduler.run();
    const result = await d;
    await runs;
    assert.equal(result.stop_reason, 'delivered');
    assert.equal(t.metrics.get('webhook_deadletter_total', { stop_reason: 'retry_budget_exhausted' }), 0);
    const holds = t.metrics.get('webhook_holds_total', { reason: 'budget_refused' });
    const wakes = t.metrics.get('webhook_wake_calls_total');
    assert.ok(holds >= 1, `holds ${holds}`);
    assert.ok(wakes >= 1, `wakes ${wakes}`);
    // every wake made exactly one reserve, and no other reserve was made (the first attempt's is record_reserve)
    assert.equal(t.ops.filter((op) => op === 'reserve').length, wakes);
    assert.equal(t.metrics.heldNow, 0);
  } finally {
    await t.close();
  }
});

test('an event held past its window is dead-lettered retry_window_elapsed with held_ms', async () => {
  const t = await setup(healthDoc({}, undefined, 20_000), () => ({ status: 429, headers: { 'retry-after': '600' } }));
  try {
    const d = t.deliver('e1');
    await t.scheduler.idle();
    const d2 = t.deliver('e2'); // held by the pause until past its window
    const runs = t.scheduler.run();
    const [r1, r2] = await Promise.all([d, d2]);
    await runs;
    assert.equal(r2.stop_reason, 'retry_window_elapsed');
    const dl = t.dispatcher.deadLetters.find((x) => x.event_id === 'e2');
    assert.equal(dl.attempts, 0);
    assert.equal(dl.held_ms, 20_000, 'held from admission to the window end');
    assert.equal(t.receiver.requests.filter((r) => r.event_id === 'e2').length, 0);
    assert.ok(['retry_window_elapsed', 'max_attempts_exhausted'].includes(r1.stop_reason));
    assert.equal(t.metrics.heldNow, 0);
  } finally {
    await t.close();
  }
});
