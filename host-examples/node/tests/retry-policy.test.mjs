// RetryPolicy: documents, admission, and afterAttempt's I/O around the
// core's decision — store read only when needed, the scheduled retry
// recorded, async stores, and the budget failing closed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RetryPolicy, InMemoryBudgetStore, ManualClock, PolicyError, decide } from '@webhook/retry-policy';

const T0 = 1_700_000_000_000;
const DOC = {
  version: '2026-11-30',
  classes: {
    notification: { window_ms: 900_000, backoff: { base_ms: 2000, factor: 2.0, cap_ms: 300_000, jitter: 'full' } },
    ledger: {
      window_ms: 86_400_000,
      hard_cap: 16,
      backoff: { base_ms: 2000, factor: 2.0, cap_ms: 300_000 },
      budget: { ratio: 0.1, window_ms: 60_000, min_sample: 0, sliding: true },
    },
  },
};

function stateOf(overrides = {}) {
  return {
    class: 'notification',
    event_id: 'evt_1',
    endpoint_id: 'ep_1',
    attempt: 1,
    max_attempts: 13,
    first_attempted_at_ms: T0,
    credentials_refreshed: false,
    ...overrides,
  };
}

/** A store that logs every call, optionally async and failing. */
function spyStore({ counts = { current: { total: 0, retries: 0 }, previous: { total: 0, retries: 0 } }, async = false, fail = {} } = {}) {
  const calls = [];
  const answer = (op, value) => {
    if (fail[op]) {
      const e = new Error(`${op} down`);
      if (async) return Promise.reject(e);
      throw e;
    }
    return async ? new Promise((r) => setImmediate(() => r(value))) : value;
  };
  return {
    calls,
    read(...args) {
      calls.push(['read', ...args]);
      return answer('read', typeof counts === 'function' ? counts() : counts);
    },
    recordAttempt(...args) {
      calls.push(['recordAttempt', ...args]);
      return answer('recordAttempt', undefined);
    },
  };
}

test('a document loads from an object or JSON text, with its version and classes', () => {
  for (const doc of [DOC, JSON.stringify(DOC)]) {
    const rp = new RetryPolicy(doc);
    assert.equal(rp.version, '2026-11-30');
    assert.deepEqual([...rp.classes].sort(), ['ledger', 'notification']);
    assert.deepEqual(rp.policy('ledger').toJSON().budget, { ratio: 0.1, window_ms: 60_000, min_sample: 0, sliding: true });
    assert.deepEqual(rp.policy('notification').toJSON().budget, { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true });
    assert.equal(rp.policy('notification').toJSON().hard_cap, 16);
  }
});

test('admit derives the schedule from the window and defaults to the clock', () => {
  const rp = new RetryPolicy(DOC, { clock: new ManualClock(T0) });
  const a = rp.admit('notification');
  assert.equal(a.class, 'notification');
  assert.equal(a.policy_version, '2026-11-30');
  assert.match(a.policy_hash, /^[0-9a-f]{16}$/);
  assert.equal(a.first_attempted_at_ms, T0);
  assert.equal(a.deadline_ms, T0 + 900_000);
  assert.equal(a.max_attempts, 13);
  assert.equal(a.limited_by, 'window');
  assert.equal(rp.admit('notification', 5).first_attempted_at_ms, 5);
  assert.throws(() => rp.admit('billing'), { code: 'unknown_event_class', field: 'class' });
});

test('afterAttempt does not touch the store when an earlier gate decides', async () => {
  const store = spyStore();
  const rp = new RetryPolicy(DOC, { store, clock: new ManualClock(T0 + 100) });
  assert.equal((await rp.afterAttempt(stateOf(), { status: 204 })).stop_reason, 'delivered');
  const gone = await rp.afterAttempt(stateOf(), { status: 410 });
  assert.equal(gone.stop_reason, 'terminal_response');
  assert.equal(gone.disable_endpoint, true);
  assert.equal((await rp.afterAttempt(stateOf({ attempt: 13 }), { status: 503 })).stop_reason, 'max_attempts_exhausted');
  assert.deepEqual(store.calls, []);
});

for (const async of [false, true]) {
  test(`afterAttempt reads the counts, decides, and records the retry it schedules (${async ? 'async' : 'sync'} store)`, async () => {
    const store = spyStore({ async });
    const clock = new ManualClock(T0 + 100);
    const rp = new RetryPolicy(DOC, { store, clock });
    const state = stateOf();
    const d = await rp.afterAttempt(state, { status: 503 });
    const { class: _class, ...plainState } = state;
    const zero = { current: { total: 0, retries: 0 }, previous: { total: 0, retries: 0 } };
    const want = decide(rp.policy('notification').toJSON(), plainState, { status: 503 }, T0 + 100, zero);
    assert.deepEqual(d, want);
    assert.equal(d.stop_reason, null);
    const bucket = Math.floor((T0 + 100) / 60_000);
    assert.deepEqual(store.calls, [
      ['read', 'ep_1', 60_000, bucket],
      ['recordAttempt', 'ep_1', 60_000, bucket, true],
    ]);
  });

  test(`a store that fails to read makes the decision budget_unavailable (${async ? 'rejects' : 'throws'})`, async () => {
    const errors = [];
    const store = spyStore({ async, fail: { read: true } });
    const rp = new RetryPolicy(DOC, { store, clock: new ManualClock(T0 + 100), onStoreError: (e, ctx) => errors.push([e.message, ctx]) });
    const d = await rp.afterAttempt(stateOf(), { status: 503 });
    assert.equal(d.stop_reason, 'budget_unavailable');
    assert.deepEqual(d.dead_letter, { event_id: 'evt_1', endpoint_id: 'ep_1', attempts: 1, elapsed_ms: 100, stop_reason: 'budget_unavailable' });
    assert.deepEqual(errors, [['read down', { operation: 'read', endpointId: 'ep_1' }]]);
    assert.deepEqual(store.calls.map((c) => c[0]), ['read']);
  });

  test(`a store that fails to record the retry makes the decision budget_unavailable (${async ? 'async' : 'sync'})`, async () => {
    const store = spyStore({ async, fail: { recordAttempt: true } });
    const rp = new RetryPolicy(DOC, { store, clock: new ManualClock(T0 + 100) });
    const d = await rp.afterAttempt(stateOf(), { status: 503 });
    assert.equal(d.stop_reason, 'budget_unavailable');
  });
}

test('malformed counts from a store are a store failure: budget_unavailable, reported', async () => {
  for (const counts of [undefined, null, { current: { total: -1, retries: 0 }, previous: { total: 0, retries: 0 } }, { current: {} }, 'many']) {
    const errors = [];
    const store = spyStore({ counts: () => counts });
    const rp = new RetryPolicy(DOC, { store, clock: new ManualClock(T0 + 100), onStoreError: (e) => errors.push(e) });
    const d = await rp.afterAttempt(stateOf(), { status: 503 });
    assert.equal(d.stop_reason, 'budget_unavailable', JSON.stringify(counts));
    assert.equal(errors.length, 1);
    assert.deepEqual(store.calls.map((c) => c[0]), ['read']);
  }
});

test('a throwing onStoreError hook does not change the decision', async () => {
  const rp = new RetryPolicy(DOC, {
    store: spyStore({ fail: { read: true } }),
    clock: new ManualClock(T0 + 100),
    onStoreError: () => {
      throw new Error('hook');
    },
  });
  assert.equal((await rp.afterAttempt(stateOf(), { status: 503 })).stop_reason, 'budget_unavailable');
});

test('the in-memory store enforces the budget across events to one endpoint', async () => {
  const clock = new ManualClock(T0);
  const store = new InMemoryBudgetStore();
  const rp = new RetryPolicy(DOC, { store, clock });
  // ledger: 10% of attempts may be retries, no sample floor.
  for (let i = 0; i < 30; i++) assert.equal(await rp.recordFirstAttempt('ledger', 'ep_9'), true);
  const reasons = [];
  for (let i = 0; i < 10; i++) {
    const d = await rp.afterAttempt(stateOf({ class: 'ledger', event_id: `evt_${i}`, endpoint_id: 'ep_9', first_attempted_at_ms: T0, max_attempts: 16 }), { status: 503 });
    reasons.push(d.stop_reason);
  }
  // A retry fits while (retries + 1) <= 0.1 * (total + 1), each retry also an attempt:
  // (0+1) <= 3.1, (1+1) <= 3.2, (2+1) <= 3.3, then (3+1) > 3.4.
  const retries = reasons.filter((r) => r === null).length;
  assert.equal(retries, 3, reasons.join(','));
  assert.ok(reasons.slice(retries).every((r) => r === 'retry_budget_exhausted'), reasons.join(','));
  const counts = store.read('ep_9', 60_000, Math.floor(T0 / 60_000));
  assert.deepEqual(counts.current, { total: 30 + retries, retries });
});

test('states must name a known class; bad states are PolicyErrors (the promise rejects)', async () => {
  const rp = new RetryPolicy(DOC);
  await assert.rejects(rp.afterAttempt(stateOf({ class: 'billing' }), { status: 503 }), { code: 'unknown_event_class', field: 'state.class' });
  await assert.rejects(rp.afterAttempt(stateOf({ class: undefined }), { status: 503 }), { code: 'invalid_input', field: 'state.class' });
  await assert.rejects(rp.afterAttempt(stateOf({ attempt: 0 }), { status: 503 }), { code: 'invalid_state', field: 'state.attempt' });
  await assert.rejects(rp.afterAttempt(stateOf({ attempt: '1' }), { status: 503 }), { code: 'invalid_input', field: 'state.attempt' });
  await assert.rejects(rp.afterAttempt(null, { status: 503 }), PolicyError);
});

test('pure decide and evaluate on a RetryPolicy take the class from the state', () => {
  const rp = new RetryPolicy(DOC);
  const zero = { current: { total: 0, retries: 0 }, previous: { total: 0, retries: 0 } };
  assert.equal(rp.decide(stateOf(), { status: 503 }, T0 + 1, zero).stop_reason, null);
  assert.equal(rp.decide(stateOf(), { status: 503 }, T0 + 1, null).stop_reason, 'budget_unavailable');
  assert.deepEqual(rp.evaluate(stateOf(), { status: 503 }, T0 + 1), { needs_budget: { window_ms: 60_000, bucket: Math.floor((T0 + 1) / 60_000) } });
  // The object path (a bigint instant) gives the same answers.
  assert.equal(rp.decide(stateOf(), { status: 503 }, BigInt(T0 + 1), null).stop_reason, 'budget_unavailable');
});

test('a store with reserve() is used instead of read + record, and must agree with the policy', async () => {
  const calls = [];
  const mk = (reserved, counts) => ({
    read: () => assert.fail('read must not be called'),
    recordAttempt: () => assert.fail('recordAttempt must not be called'),
    async reserve(...args) {
      calls.push(args);
      return { counts, reserved };
    },
  });
  const zero = { current: { total: 0, retries: 0 }, previous: { total: 0, retries: 0 } };
  const full = { current: { total: 100, retries: 100 }, previous: { total: 0, retries: 0 } };
  const clock = new ManualClock(T0 + 100);
  let rp = new RetryPolicy(DOC, { store: mk(true, zero), clock });
  assert.equal((await rp.afterAttempt(stateOf(), { status: 503 })).stop_reason, null);
  assert.deepEqual(calls[0], ['ep_1', 60_000, Math.floor((T0 + 100) / 60_000), T0 + 100, { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true }]);
  rp = new RetryPolicy(DOC, { store: mk(false, full), clock });
  assert.equal((await rp.afterAttempt(stateOf(), { status: 503 })).stop_reason, 'retry_budget_exhausted');
  // Disagreement (store did not reserve, policy would retry): fail closed.
  const errors = [];
  rp = new RetryPolicy(DOC, { store: mk(false, zero), clock, onStoreError: (e) => errors.push(e) });
  assert.equal((await rp.afterAttempt(stateOf(), { status: 503 })).stop_reason, 'budget_unavailable');
  assert.equal(errors.length, 1);
});

test('options are checked when the policy is built', () => {
  assert.throws(() => new RetryPolicy(DOC, { store: {} }), TypeError);
  assert.throws(() => new RetryPolicy(DOC, { clock: Date }), TypeError);
});
