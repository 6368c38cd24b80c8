// The compiled fast path (scalars in, one wasm call) and the object path
// (serde-wasm-bindgen + the Rust codec) accept, refuse and decide exactly
// alike, on canonical inputs and on every kind of deviation from them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compilePolicy, decide, PolicyError } from '@webhook/retry-policy';

const policy = {
  backoff: { base_ms: 1000, factor: 1.7, cap_ms: 120_000, jitter: 'equal' },
  window_ms: 3_600_000,
  hard_cap: 20,
  budget: { ratio: 0.2, window_ms: 10_000, min_sample: 20, sliding: true },
};
const compiled = compilePolicy(policy);

function outcomeOf(f) {
  try {
    return { ok: f() };
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
    return { code: e.code, field: e.field };
  }
}

function makeRandom(seed) {
  return (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
}

const ODD_NUMBERS = [-1, 0.5, NaN, Infinity, 2 ** 53, 2 ** 32, 65_536, '7', 7n, null, undefined, true];

function randomCase(rnd) {
  const t0 = 1_700_000_000_000 + rnd(1_000_000);
  const state = {
    event_id: `evt_${rnd(1_000_000)}${'é'.repeat(rnd(3))}`,
    endpoint_id: `ep_${rnd(10)}`,
    attempt: rnd(25),
    max_attempts: rnd(22),
    first_attempted_at_ms: t0,
    credentials_refreshed: rnd(2) === 1,
  };
  const outcomes = [
    { status: [200, 204, 401, 403, 404, 408, 410, 429, 500, 503, 599, 99, 600][rnd(13)] },
    { status: 503, retry_after_ms: rnd(5) * 60_000 },
    { error_kind: ['connect_timeout', 'read_timeout', 'invalid_url', 'nope', ''][rnd(5)] },
  ];
  const outcome = { ...outcomes[rnd(outcomes.length)] };
  const nowMs = t0 + rnd(4_000_000) - 500_000;
  const total = rnd(60);
  let counts = rnd(8) === 0 ? null : { current: { total, retries: rnd(total + 1) }, previous: { total: rnd(60), retries: rnd(10) } };
  // Perturb one thing in a third of the cases.
  const args = { state, outcome, nowMs, counts };
  switch (rnd(3) === 0 ? rnd(9) : -1) {
    case 0: state[['attempt', 'max_attempts', 'first_attempted_at_ms'][rnd(3)]] = ODD_NUMBERS[rnd(ODD_NUMBERS.length)]; break;
    case 1: state.extra = 1; break;
    case 2: delete state[['event_id', 'endpoint_id', 'credentials_refreshed'][rnd(3)]]; break;
    case 3: outcome[['status', 'retry_after_ms', 'error_kind'][rnd(3)]] = ODD_NUMBERS[rnd(ODD_NUMBERS.length)]; break;
    case 4: args.nowMs = ODD_NUMBERS[rnd(ODD_NUMBERS.length)]; break;
    case 5: if (counts) counts.current.total = ODD_NUMBERS[rnd(ODD_NUMBERS.length)]; break;
    case 6: if (counts) counts.previous = { total: 1, retries: 0, more: 2 }; break;
    case 7: args.counts = undefined; break;
    case 8: state.credentials_refreshed = 'yes'; break;
  }
  return args;
}

test('the fast path and the object path agree on 20000 random and perturbed inputs', () => {
  const rnd = makeRandom(7);
  let decided = 0;
  for (let i = 0; i < 20_000; i++) {
    const c = randomCase(rnd);
    const viaObjects = outcomeOf(() => decide(policy, c.state, c.outcome, c.nowMs, c.counts));
    const viaFast = outcomeOf(() => compiled.decide(c.state, c.outcome, c.nowMs, c.counts));
    assert.deepEqual(viaFast, viaObjects, `case ${i}: ${JSON.stringify(c, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`);
    if (viaFast.ok) decided++;
  }
  assert.ok(decided > 10_000, `only ${decided} decided`);
});

test('evaluate says needs_budget exactly when a retry is otherwise due', () => {
  const rnd = makeRandom(99);
  let needs = 0;
  for (let i = 0; i < 5000; i++) {
    const c = randomCase(rnd);
    const step = outcomeOf(() => compiled.evaluate(c.state, c.outcome, c.nowMs));
    const closed = outcomeOf(() => decide(policy, c.state, c.outcome, c.nowMs, null));
    if (step.code !== undefined) {
      assert.deepEqual(step, closed);
      continue;
    }
    if (step.ok.needs_budget) {
      needs++;
      assert.equal(closed.ok.stop_reason, 'budget_unavailable');
      assert.equal(step.ok.needs_budget.window_ms, 10_000);
      if (typeof c.nowMs === 'number') assert.equal(step.ok.needs_budget.bucket, Math.floor(c.nowMs / 10_000));
    } else {
      assert.deepEqual(step.ok.decision, closed.ok);
      assert.notEqual(closed.ok.stop_reason, 'budget_unavailable');
    }
  }
  assert.ok(needs > 100, `only ${needs} needed the budget`);
});

test('results keep the contract key order (JSON text is identical on both paths)', () => {
  const state = { event_id: 'e', endpoint_id: 'p', attempt: 2, max_attempts: 3, first_attempted_at_ms: 0, credentials_refreshed: false };
  for (const outcome of [{ status: 410 }, { status: 200 }, { status: 503 }]) {
    const counts = { current: { total: 0, retries: 0 }, previous: { total: 0, retries: 0 } };
    assert.equal(JSON.stringify(compiled.decide(state, outcome, 5, counts)), JSON.stringify(decide(policy, state, outcome, 5, counts)));
  }
});

test('the result buffer survives the wasm memory growing between decisions', () => {
  const state = { event_id: 'x'.repeat(1 << 20), endpoint_id: 'p', attempt: 1, max_attempts: 3, first_attempted_at_ms: 0, credentials_refreshed: false };
  const counts = { current: { total: 0, retries: 0 }, previous: { total: 0, retries: 0 } };
  const before = compiled.decide({ ...state, event_id: 'a' }, { status: 503 }, 5, counts);
  for (let i = 0; i < 3; i++) compiled.decide({ ...state, event_id: state.event_id + i }, { status: 503 }, 5, counts);
  assert.deepEqual(compiled.decide({ ...state, event_id: 'a' }, { status: 503 }, 5, counts), before);
  assert.deepEqual(before, decide(policy, { ...state, event_id: 'a' }, { status: 503 }, 5, counts));
});
