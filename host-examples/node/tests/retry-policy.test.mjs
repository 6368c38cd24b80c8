// RetryPolicy: documents, admission, and step's step flow —
// evaluate, at most one store call (with a timeout), settle — with sync and
// async stores, the budget failing closed, disagreements counted, resume and
// Retry-After through the core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RetryPolicy, InMemoryBudgetStore, ManualClock, PolicyError, storeApply, EMPTY_HELD } from '@webhook/retry-policy';

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

const ZERO = { current: { total: 0, retries: 0 }, previous: { total: 0, retries: 0 } };
const FULL = { current: { total: 100, retries: 100 }, previous: { total: 0, retries: 0 } };
const BUDGET = { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true };

/** A store that logs every request and answers `answer(request)` (sync, async, throwing, rejecting, hanging). */
function spyStore(answer = () => ({ reserved: true, counts: ZERO }), { async = false } = {}) {
  const calls = [];
  return {
    calls,
    call(request, budget, nowMs) {
      calls.push([request, budget, nowMs]);
      if (!async) return answer(request);
      return new Promise((resolve, reject) =>
        setImmediate(() => {
          try {
            resolve(answer(request));
          } catch (e) {
            reject(e);
          }
        }),
      );
    },
  };
}

const down = () => {
  throw new Error('store down');
};

test('a document loads from an object or JSON text, with its version and classes', () => {
  for (const doc of [DOC, JSON.stringify(DOC)]) {
    const rp = new RetryPolicy(doc);
    assert.equal(rp.version, '2026-11-30');
    assert.deepEqual([...rp.classes].sort(), ['ledger', 'notification']);
    assert.deepEqual(rp.policy('ledger').budget, { ratio: 0.1, window_ms: 60_000, min_sample: 0, sliding: true });
    assert.deepEqual(rp.policy('notification').budget, { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true });
    assert.equal(rp.policy('notification').hard_cap, 16);
    assert.ok(Object.isFrozen(rp.policy('notification').budget));
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

test('a first attempt that is decided is recorded once and keeps its decision', async () => {
  const clock = new ManualClock(T0 + 100);
  const store = spyStore(() => ({ reserved: false, counts: ZERO }));
  const rp = new RetryPolicy(DOC, { store, clock });
  const d = await rp.step(stateOf(), { status: 200 });
  assert.equal(d.stop_reason, 'delivered');
  assert.deepEqual(store.calls, [[{ op: 'record', endpoint_id: 'ep_1', window_ms: 60_000, bucket: Math.floor((T0 + 100) / 60_000) }, BUDGET, T0 + 100]]);
});

test('a failed record never changes a first attempt\'s decision', async () => {
  for (const async of [false, true]) {
    const errors = [];
    const rp = new RetryPolicy(DOC, { store: spyStore(down, { async }), clock: new ManualClock(T0), onStoreError: (e, ctx) => errors.push(ctx) });
    assert.equal((await rp.step(stateOf(), { status: 204 })).stop_reason, 'delivered');
    assert.equal((await rp.step(stateOf(), { status: 410 })).stop_reason, 'terminal_response');
    assert.deepEqual(errors, [
      { operation: 'record', endpointId: 'ep_1', timedOut: false },
      { operation: 'record', endpointId: 'ep_1', timedOut: false },
    ]);
  }
});

test('a decided retry attempt makes no store call at all', async () => {
  const store = spyStore();
  const rp = new RetryPolicy(DOC, { store, clock: new ManualClock(T0) });
  assert.equal((await rp.step(stateOf({ attempt: 2 }), { status: 200 })).stop_reason, 'delivered');
  assert.equal((await rp.step(stateOf({ attempt: 13 }), { status: 503 })).stop_reason, 'max_attempts_exhausted');
  assert.equal(store.calls.length, 0);
});

test('a first attempt that needs the budget makes ONE record_reserve call; a retry ONE reserve call', async () => {
  for (const async of [false, true]) {
    const store = spyStore(undefined, { async });
    const rp = new RetryPolicy(DOC, { store, clock: new ManualClock(T0 + 100) });
    assert.equal((await rp.step(stateOf(), { status: 503 })).stop_reason, null);
    assert.equal((await rp.step(stateOf({ attempt: 2 }), { status: 503 })).stop_reason, null);
    assert.deepEqual(store.calls.map(([r]) => r.op), ['record_reserve', 'reserve']);
  }
});

test('the store\'s verdict stands: not reserved is retry_budget_exhausted', async () => {
  const rp = new RetryPolicy(DOC, { store: spyStore(() => ({ reserved: false, counts: FULL })), clock: new ManualClock(T0) });
  assert.equal((await rp.step(stateOf(), { status: 503 })).stop_reason, 'retry_budget_exhausted');
  assert.equal(rp.budgetDisagreements, 0);
});

test('a store that disagrees with the rule on its own counts is obeyed, counted and reported', async () => {
  const seen = [];
  const rp = new RetryPolicy(DOC, {
    store: spyStore(() => ({ reserved: true, counts: FULL })),
    clock: new ManualClock(T0),
    onBudgetDisagreement: (d) => seen.push(d),
  });
  assert.equal((await rp.step(stateOf(), { status: 503 })).stop_reason, null);
  assert.equal(rp.budgetDisagreements, 1);
  assert.equal(seen.length, 1);
  assert.equal(seen[0].request.op, 'record_reserve');
  assert.equal(seen[0].decision.stop_reason, null);
});

test('a store that throws, rejects or answers malformed data fails closed: budget_unavailable, reported', async () => {
  const answers = [down, () => ({ reserved: 'yes', counts: ZERO }), () => ({ counts: ZERO }), () => null, () => 42];
  for (const async of [false, true]) {
    for (const answer of answers) {
      const errors = [];
      const rp = new RetryPolicy(DOC, { store: spyStore(answer, { async }), clock: new ManualClock(T0), onStoreError: (e) => errors.push(e) });
      assert.equal((await rp.step(stateOf(), { status: 503 })).stop_reason, 'budget_unavailable', String(answer));
      assert.equal(errors.length, 1, String(answer));
    }
  }
});

test('a store call that hangs times out after storeTimeoutMs and fails closed', async () => {
  const hung = { call: () => new Promise(() => {}) };
  const errors = [];
  const rp = new RetryPolicy(DOC, { store: hung, clock: new ManualClock(T0), storeTimeoutMs: 30, onStoreError: (e, ctx) => errors.push(ctx) });
  const t = performance.now();
  assert.equal((await rp.step(stateOf(), { status: 503 })).stop_reason, 'budget_unavailable');
  const took = performance.now() - t;
  assert.ok(took >= 25 && took < 1000, `took ${took} ms`);
  assert.deepEqual(errors, [{ operation: 'record_reserve', endpointId: 'ep_1', timedOut: true }]);
  // A hung record of a decided first attempt costs the timeout, never the delivery.
  assert.equal((await rp.step(stateOf(), { status: 200 })).stop_reason, 'delivered');
});

test('the default store timeout is 250 ms', async () => {
  const rp = new RetryPolicy(DOC, { store: { call: () => new Promise(() => {}) }, clock: new ManualClock(T0) });
  const t = performance.now();
  assert.equal((await rp.step(stateOf(), { status: 503 })).stop_reason, 'budget_unavailable');
  const took = performance.now() - t;
  assert.ok(took >= 240 && took < 2000, `took ${took} ms`);
});

test('a throwing hook does not change the decision', async () => {
  const boom = () => {
    throw new Error('hook');
  };
  let rp = new RetryPolicy(DOC, { store: spyStore(down), clock: new ManualClock(T0), onStoreError: boom });
  assert.equal((await rp.step(stateOf(), { status: 503 })).stop_reason, 'budget_unavailable');
  rp = new RetryPolicy(DOC, { store: spyStore(() => ({ reserved: true, counts: FULL })), clock: new ManualClock(T0), onBudgetDisagreement: boom });
  assert.equal((await rp.step(stateOf(), { status: 503 })).stop_reason, null);
});

test('the in-memory store enforces the budget across events to one endpoint', async () => {
  const clock = new ManualClock(T0);
  const store = new InMemoryBudgetStore();
  const rp = new RetryPolicy(DOC, { store, clock });
  // ledger: 10% of attempts may be retries, no sample floor. 30 delivered first attempts...
  for (let i = 0; i < 30; i++) {
    assert.equal((await rp.step(stateOf({ class: 'ledger', event_id: `ok_${i}`, endpoint_id: 'ep_9', max_attempts: 16 }), { status: 200 })).stop_reason, 'delivered');
  }
  // ...then 10 failing first attempts, each recorded and judged in one call.
  const reasons = [];
  for (let i = 0; i < 10; i++) {
    const d = await rp.step(stateOf({ class: 'ledger', event_id: `evt_${i}`, endpoint_id: 'ep_9', max_attempts: 16 }), { status: 503 });
    reasons.push(d.stop_reason);
  }
  // Judged with the attempt counted: (r + 1) <= 0.1 * (t + 1), t = every attempt so far.
  // t=31: 1 <= 3.2 yes; t=33: 2 <= 3.4; t=35: 3 <= 3.6; t=37: 4 > 3.8; t=38: 4 > 3.9; t=39: 4 <= 4.0; then no.
  const R = null;
  const X = 'retry_budget_exhausted';
  assert.deepEqual(reasons, [R, R, R, X, X, R, X, X, X, X]);
  const retries = 4;
  assert.equal(rp.budgetDisagreements, 0);
  // What it holds is what storeApply says it holds.
  const bucket = Math.floor(T0 / 60_000);
  const probe = store.call({ op: 'record', endpoint_id: 'ep_9', window_ms: 60_000, bucket }, BUDGET, T0);
  assert.deepEqual(probe.counts.current, { total: 40 + retries + 1, retries });
  assert.deepEqual(storeApply({ op: 'record', endpoint_id: 'other', window_ms: 60_000, bucket }, BUDGET, T0, EMPTY_HELD).reply.counts.current, { total: 1, retries: 0 });
});

test('states must name a known class; bad states are PolicyErrors (the promise rejects)', async () => {
  const rp = new RetryPolicy(DOC);
  await assert.rejects(rp.step(stateOf({ class: 'billing' }), { status: 503 }), { code: 'unknown_event_class', field: 'state.class' });
  await assert.rejects(rp.step(stateOf({ class: undefined }), { status: 503 }), { code: 'invalid_input', field: 'state.class' });
  await assert.rejects(rp.step(stateOf({ attempt: 0 }), { status: 503 }), { code: 'invalid_state', field: 'state.attempt' });
  await assert.rejects(rp.step(stateOf({ attempt: '1' }), { status: 503 }), { code: 'invalid_input', field: 'state.attempt' });
  await assert.rejects(rp.step(null, { status: 503 }), PolicyError);
});

test('pure evaluate and settle on a RetryPolicy take the class from the state', () => {
  const rp = new RetryPolicy(DOC);
  assert.equal(rp.settle(stateOf(), { status: 503 }, T0 + 1, { reserved: true, counts: ZERO }).decision.stop_reason, null);
  assert.deepEqual(rp.evaluate(stateOf(), { status: 503 }, T0 + 1), {
    decision: null,
    store: { op: 'record_reserve', endpoint_id: 'ep_1', window_ms: 60_000, bucket: Math.floor((T0 + 1) / 60_000) },
  });
  assert.deepEqual(rp.settle(stateOf(), { status: 503 }, T0 + 1, { unavailable: true }).decision.stop_reason, 'budget_unavailable');
  // A bigint beyond 2^53 is taken as it is.
  assert.equal(rp.evaluate(stateOf(), { status: 503 }, 2n ** 60n).decision.stop_reason, 'retry_window_elapsed');
});

test('Retry-After goes through the core: digits, HTTP dates, and garbage (a 20-digit value does not crash)', () => {
  const rp = new RetryPolicy(DOC, { clock: new ManualClock(784_111_777_000) });
  assert.equal(rp.retryAfter('120'), 120_000);
  assert.equal(rp.retryAfter(' 7\t'), 7000);
  assert.equal(rp.retryAfter('Sun, 06 Nov 1994 08:49:37 GMT'), 0);
  assert.equal(rp.retryAfter('Sun, 06 Nov 1994 08:49:47 GMT'), 10_000);
  assert.equal(rp.retryAfter('99999999999999999999'), 2 ** 53 - 1);
  for (const bad of ['-1', '1.5', '²', '', 'soon', 'Sunday, 06-Nov-94 08:49:37 GMT']) assert.equal(rp.retryAfter(bad), null, bad);
});

test('options are checked when the policy is built', () => {
  assert.throws(() => new RetryPolicy(DOC, { store: {} }), TypeError);
  assert.throws(() => new RetryPolicy(DOC, { clock: Date }), TypeError);
  assert.throws(() => new RetryPolicy(DOC, { storeTimeoutMs: 0 }), TypeError);
  assert.throws(() => new RetryPolicy(DOC, { onBudgetDisagreement: 1 }), TypeError);
});

