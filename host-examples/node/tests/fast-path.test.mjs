// The compiled fast path (scalars in, one wasm call) and the object path
// (serde-wasm-bindgen + the Rust codec) accept, refuse and decide exactly
// alike, on canonical inputs and on every kind of deviation from them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { compilePolicy, decide, evaluate, settle, resume, storeApply, EMPTY_HELD, PolicyError } from '@webhook/retry-policy';

// The module instance the package runs (same require cache): count the calls
// that leave the fast path for the object path.
const raw = createRequire(import.meta.url)('../lib/wasm/retry_policy.js');
let objectPathCalls = 0;
for (const proto of [raw.CompiledPolicy.prototype]) {
  const run = proto.run;
  proto.run = function (...args) {
    objectPathCalls++;
    return run.apply(this, args);
  };
}

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
    { status: 429, retry_after_ms: null },
    { status: 503n, retry_after_ms: BigInt(rnd(3) * 1000) },
    { status: 503, retry_after_ms: undefined },
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

const reply = (c, rnd) =>
  c.counts == null ? { unavailable: true } : { reserved: rnd(2) === 1, counts: c.counts };

test('evaluate, settle and resume agree with the plain functions on 20000 random and perturbed inputs', () => {
  const rnd = makeRandom(99);
  let store = 0;
  for (let i = 0; i < 20_000; i++) {
    const c = randomCase(rnd);
    const r = reply(c, rnd);
    const show = () => `case ${i}: ${JSON.stringify({ ...c, r }, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`;
    const step = outcomeOf(() => compiled.evaluate(c.state, c.outcome, c.nowMs));
    assert.deepEqual(step, outcomeOf(() => evaluate(policy, c.state, c.outcome, c.nowMs)), show());
    if (step.ok?.store) store++;
    assert.deepEqual(outcomeOf(() => compiled.settle(c.state, c.outcome, c.nowMs, r)), outcomeOf(() => settle(policy, c.state, c.outcome, c.nowMs, r)), show());
    assert.deepEqual(outcomeOf(() => compiled.resume(c.state, c.nowMs)), outcomeOf(() => resume(policy, c.state, c.nowMs)), show());
  }
  assert.ok(store > 1000, `only ${store} store requests`);
});

test('every input shape the types allow stays on the fast path', () => {
  const state = { event_id: 'e', endpoint_id: 'p', attempt: 1, max_attempts: 5, first_attempted_at_ms: 0, credentials_refreshed: false };
  const bigState = { ...state, attempt: 1n, max_attempts: 5n, first_attempted_at_ms: 0n };
  const counts = { current: { total: 0, retries: 0 }, previous: { total: 0, retries: 0 } };
  const bigCounts = { current: { total: 0n, retries: 0n }, previous: { total: 0n, retries: 0n } };
  const outcomes = [
    { status: 503 },
    { status: 503, retry_after_ms: 1000 },
    { status: 503, retry_after_ms: null },
    { status: 503, retry_after_ms: undefined },
    { status: 503n, retry_after_ms: 1000n },
    { error_kind: 'connect_timeout' },
  ];
  objectPathCalls = 0;
  for (const s of [state, bigState]) {
    for (const o of outcomes) {
      for (const now of [5, 5n]) {
        compiled.evaluate(s, o, now);
        for (const rep of [{ unavailable: true }, { reserved: true, counts }, { reserved: false, counts: bigCounts }]) compiled.settle(s, o, now, rep);
        for (const bc of [counts, bigCounts, null]) compiled.decide(s, o, now, bc);
      }
    }
    compiled.resume({ ...s, attempt: 0 }, 5);
  }
  assert.equal(objectPathCalls, 0);
  // A refused input does take the object path, which names the field.
  assert.throws(() => compiled.decide({ ...state, attempt: 0 }, { status: 503 }, 5, null), { code: 'invalid_state', field: 'state.attempt' });
  assert.equal(objectPathCalls, 1);
});

test('storeApply answers alike for every input shape, and rolls buckets forward', () => {
  const budget = policy.budget;
  const request = { op: 'record_reserve', endpoint_id: 'p', window_ms: 10_000, bucket: 7 };
  const a = storeApply(request, budget, 70_001, EMPTY_HELD);
  const b = storeApply({ ...request, bucket: 7n, window_ms: 10_000n }, { ...budget, min_sample: 20n }, 70_001n, { ...EMPTY_HELD, bucket: 0n });
  assert.deepEqual(a, b);
  assert.deepEqual(a, {
    reply: { reserved: true, counts: { current: { total: 1, retries: 0 }, previous: { total: 0, retries: 0 } } },
    held: { bucket: 7, current: { total: 2, retries: 1 }, previous: { total: 0, retries: 0 } },
  });
  const later = storeApply({ ...request, op: 'record', bucket: 8 }, budget, 80_000, a.held);
  assert.deepEqual(later.held, { bucket: 8, current: { total: 1, retries: 0 }, previous: { total: 2, retries: 1 } });
  assert.throws(() => storeApply({ ...request, op: 'read' }, budget, 1, EMPTY_HELD), { code: 'invalid_input', field: 'request.op' });
  assert.throws(() => storeApply(request, { ...budget, ratio: 2 }, 1, EMPTY_HELD), { code: 'invalid_budget', field: 'budget.ratio' });
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
