// The imports-driven decide: ONE call into the component, which reads the
// host's clock and calls the host's (synchronous) store once through its
// imports. It decides like evaluate -> store -> settle; a store that
// throws, answers badly or answers a Promise fails a pending retry closed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decide, evaluate, settle, RetryPolicy, InMemoryBudgetStore, ManualClock, PolicyError } from '@webhook/retry-policy';

const policy = {
  backoff: { base_ms: 1000, factor: 2, cap_ms: 60_000, jitter: 'full' },
  window_ms: 3_600_000,
  hard_cap: 20,
  budget: { ratio: 0.1, window_ms: 60_000, min_sample: 5, sliding: true },
};
const T0 = 1_700_000_000_000;
const state = (attempt, id = 'evt_1') => ({ event_id: id, endpoint_id: 'ep_1', attempt, max_attempts: 10, first_attempted_at_ms: T0, credentials_refreshed: false });
const counts = { current: { total: 100, retries: 1 }, previous: { total: 100, retries: 1 } };

/** A store that records its calls and answers `answer(request)`. */
function recording(answer) {
  const calls = [];
  return { calls, call: (request, budget, nowMs) => (calls.push({ request, budget, nowMs }), answer(request)) };
}

test('decide makes exactly one store call with the clock\'s now and the policy\'s budget, and retries when it reserved', () => {
  const store = recording(() => ({ reserved: true, counts }));
  const d = decide(policy, state(2), { status: 503 }, { store, clock: new ManualClock(T0 + 5000) });
  assert.equal(d.stop_reason, null);
  assert.equal(store.calls.length, 1);
  const [{ request, budget, nowMs }] = store.calls;
  assert.deepEqual(request, { op: 'reserve', endpoint_id: 'ep_1', window_ms: 60_000, bucket: Math.floor((T0 + 5000) / 60_000) });
  assert.deepEqual(budget, policy.budget);
  assert.equal(nowMs, T0 + 5000);
  const step = evaluate(policy, state(2), { status: 503 }, T0 + 5000);
  assert.deepEqual(step.store, request);
  assert.deepEqual(d, settle(policy, state(2), { status: 503 }, T0 + 5000, { reserved: true, counts }).decision);
});

test('a store that refuses the reservation stops the event as retry_budget_exhausted', () => {
  const store = recording(() => ({ reserved: false, counts: { current: { total: 100, retries: 50 }, previous: { total: 100, retries: 50 } } }));
  const d = decide(policy, state(2), { status: 503 }, { store, clock: new ManualClock(T0 + 5000) });
  assert.equal(d.stop_reason, 'retry_budget_exhausted');
});

test('a delivered first attempt is recorded once and delivered whatever the store says', () => {
  const store = recording(() => {
    throw new Error('down');
  });
  const d = decide(policy, state(1), { status: 200 }, { store, clock: new ManualClock(T0) });
  assert.equal(d.stop_reason, 'delivered');
  assert.deepEqual(store.calls.map((c) => c.request.op), ['record']);
});

test('a store that throws, answers malformed data or a Promise fails a pending retry closed, and onStoreError hears it', () => {
  const bad = [
    () => {
      throw new Error('connection refused');
    },
    () => ({ reserved: 'yes', counts }),
    () => ({ reserved: true, counts: { current: { total: -1, retries: 0 }, previous: { total: 0, retries: 0 } } }),
    () => null,
    () => Promise.resolve({ reserved: true, counts }),
  ];
  for (const answer of bad) {
    const errors = [];
    const d = decide(policy, state(2), { status: 503 }, { store: { call: answer }, clock: new ManualClock(T0 + 5000), onStoreError: (e) => errors.push(e) });
    assert.equal(d.stop_reason, 'budget_unavailable', String(answer));
    assert.equal(errors.length, 1, String(answer));
  }
  // and the component is still fine afterwards
  assert.equal(decide(policy, state(2), { status: 503 }, { store: recording(() => ({ reserved: true, counts })), clock: new ManualClock(T0 + 5000) }).stop_reason, null);
});

test('an in-memory store serves decide (its store-apply call runs while decide is in the component) and counts like step', async () => {
  const clock = new ManualClock(T0);
  const a = new RetryPolicy({ version: 'x', classes: { c: { window_ms: 3_600_000, backoff: policy.backoff, budget: { ratio: 0.1, window_ms: 60_000, min_sample: 5, sliding: false } } } }, { clock, store: new InMemoryBudgetStore() });
  const b = new RetryPolicy({ version: 'x', classes: { c: { window_ms: 3_600_000, backoff: policy.backoff, budget: { ratio: 0.1, window_ms: 60_000, min_sample: 5, sliding: false } } } }, { clock, store: new InMemoryBudgetStore() });
  const viaDecide = [];
  const viaStep = [];
  for (let i = 0; i < 40; i++) {
    const s = { ...state(1 + (i % 3), `evt_${i}`), class: 'c' };
    const o = { status: i % 4 === 0 ? 200 : 503 };
    viaDecide.push(a.decide(s, o));
    viaStep.push(await b.step(s, o));
    clock.advance(100);
  }
  assert.deepEqual(viaDecide, viaStep);
  assert.ok(viaDecide.some((d) => d.stop_reason === 'retry_budget_exhausted'), 'the budget tripped');
});

test('bad inputs to decide are PolicyErrors before the store is asked', () => {
  const store = recording(() => ({ reserved: true, counts }));
  assert.throws(() => decide(policy, { ...state(2), attempt: 0 }, { status: 503 }, { store, clock: new ManualClock(T0) }), (e) => e instanceof PolicyError && e.code === 'invalid_state' && e.field === 'state.attempt');
  assert.throws(() => decide({ ...policy, hard_cap: 0 }, state(2), { status: 503 }, { store, clock: new ManualClock(T0) }), (e) => e instanceof PolicyError && e.code === 'invalid_hard_cap' && e.field === 'policy.hard_cap');
  assert.throws(() => decide(policy, state(2), { status: 503 }, { store, clock: { nowMs: () => NaN } }), (e) => e instanceof PolicyError && e.field === 'now_ms');
  assert.equal(store.calls.length, 0);
  assert.throws(() => decide(policy, state(2), { status: 503 }, {}), TypeError);
});
