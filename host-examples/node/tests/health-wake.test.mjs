// A budget-held wake's `reserve` reply gates the send once more
// (docs/health-dispatch.md step 3, draft 3 item 2): two dispatchers (two
// replicas, each its own endpoint table) on one shared in-memory store, with
// virtual time and loopback HTTP. B's receiver asks for a pause while A's
// event is held by the budget, so A learns of the pause only from its wake's
// own `reserve` reply, and must hold on it, keeping the reservation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock, InMemoryBudgetStore } from '@webhook/retry-policy';
import { Metrics } from '../examples/dispatcher/metrics.mjs';
import { Dispatcher } from '../examples/dispatcher/dispatcher.mjs';
import { HealthPolicy } from '../examples/dispatcher/health-policy.mjs';
import { T0 } from './health-fixtures.mjs';
import { eventScheduler, startReceiver } from './virtual-time.mjs';

const HOLD_MS = 800; // the budget hold (backoff base, factor 1)
const PAUSE_S = 3;
// ratio 0.1 over min_sample 1: A's first retry (1 of 1) is refused and held;
// B's 20 first attempts meanwhile make A's wake reserve (1 of 21) allowed.
const DOC = {
  version: 'h-wake',
  classes: {
    storm: {
      window_ms: 20_000,
      hard_cap: 10,
      backoff: { base_ms: HOLD_MS, factor: 1.0, cap_ms: HOLD_MS, jitter: 'none' },
      budget: { ratio: 0.1, window_ms: 60_000, min_sample: 1, sliding: false },
      health: { hold_budget_refusals: true, pause: { max_ms: 600_000 }, circuit: null, release: { multiple: 1.0, floor_per_s: 1000.0 }, cache_ms: 60_000 },
    },
  },
};

/** One replica: its own HealthPolicy, endpoint table and metrics, on the shared store (each op counted). */
function replica(clock, scheduler, store, receiver, path) {
  const metrics = new Metrics();
  const ops = [];
  const counted = { answer: (c, nowMs) => (ops.push(c.op), store.answer(c, nowMs)) };
  const policy = new HealthPolicy(DOC, { store: counted, clock });
  const dispatcher = new Dispatcher(policy, { metrics, scheduler, attemptDeadlineMs: 5000, allowPrivateTargets: true });
  const deliver = (id) => scheduler.track(dispatcher.deliver({ id, class: 'storm', endpoint_id: 'ep-1', url: receiver.url(path), body: { id } }));
  const close = () => {
    dispatcher.close();
    policy.close();
  };
  return { metrics, ops, deliver, close };
}

test("a woken budget-held retry holds on the pause its own reserve reply shows and keeps the reservation", async () => {
  const clock = new ManualClock(T0);
  const scheduler = eventScheduler(clock);
  const store = new InMemoryBudgetStore();
  // A's first request fails (503, no pause); B's 20th is a 429 asking for a 3 s pause.
  const receiver = await startReceiver(clock, (path, _now, n) => {
    if (path === '/a') return { status: n === 1 ? 503 : 204 };
    return n === 20 ? { status: 429, headers: { 'retry-after': String(PAUSE_S) } } : { status: 204 };
  });
  const a = replica(clock, scheduler, store, receiver, '/a');
  const b = replica(clock, scheduler, store, receiver, '/b');
  try {
    const da = a.deliver('a1');
    await scheduler.idle(); // A's first attempt failed at T0, its retry refused by the budget: held
    assert.equal(a.metrics.get('webhook_holds_total', { reason: 'budget_refused' }), 1);
    clock.set(T0 + 100); // B's events come while A is held; A's view (its T0 reply) shows no pause
    const db = [];
    for (let i = 0; i < 19; i++) db.push(await b.deliver(`b${i}`));
    const last = b.deliver('b19'); // the 429: B pauses the endpoint in the shared store
    await scheduler.idle();
    const pauseAt = receiver.requests.find((r) => r.path === '/b' && r.attempt === 1 && r.event_id === 'b19').at_ms;
    const runs = scheduler.run();
    const [ra, rb] = await Promise.all([da, last]);
    await runs;
    assert.deepEqual([ra.stop_reason, rb.stop_reason, ...db.map((d) => d.stop_reason)], Array(21).fill('delivered'));
    const toA = receiver.requests.filter((r) => r.path === '/a');
    assert.equal(toA.length, 2, "A's event: its first attempt and one retry");
    assert.ok(toA[1].at_ms >= pauseAt + PAUSE_S * 1000, `A's retry went ${toA[1].at_ms - pauseAt} ms after B's 429 asked for ${PAUSE_S} s`);
    assert.equal(a.metrics.get('webhook_holds_total', { reason: 'budget_refused' }), 1);
    assert.equal(a.metrics.get('webhook_holds_total', { reason: 'paused' }), 1, 'held on its reserve reply\'s pause');
    assert.equal(a.metrics.get('webhook_wake_calls_total'), 1, 'the reservation was kept: no second reserve');
    assert.equal(a.ops.filter((op) => op === 'reserve').length, 1);
    assert.equal(a.metrics.heldNow, 0);
  } finally {
    a.close();
    b.close();
    await receiver.close();
  }
});
