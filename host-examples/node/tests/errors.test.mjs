// Bad input from JavaScript is a PolicyError (SPEC code + field path), never
// a crash or a trap, and the module stays usable after any number of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '@webhook/retry-policy';

const { PolicyError, evaluate, settle, decide, plan, classifyStatus, classifyError, RetryPolicy, InMemoryBudgetStore, storeKey, retryAfter } = api;

const backoff = { base_ms: 2000, factor: 2.0, cap_ms: 300_000, jitter: 'full' };
const policy = { backoff, window_ms: 900_000, hard_cap: 16, budget: { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true } };
const state = { event_id: 'evt_1', endpoint_id: 'ep_42', attempt: 1, max_attempts: 13, first_attempted_at_ms: 1_700_000_000_000, credentials_refreshed: false };
const counts = { current: { total: 10, retries: 1 }, previous: { total: 10, retries: 1 } };
const NOW = 1_700_000_000_100;
const good = () => settle(policy, state, { status: 503 }, NOW, { reserved: true, counts }).decision;
const GOOD = { stop_reason: null, disable_endpoint: false, retry: { delay_ms: 8, refresh_credentials: false } };

const without = (obj, key) => Object.fromEntries(Object.entries(obj).filter(([k]) => k !== key));

/** [description, call, code, field] */
const CASES = [
  ['a missing policy field', () => evaluate(without(policy, 'hard_cap'), state, { status: 503 }, NOW), 'invalid_input', 'policy.hard_cap'],
  ['a missing state field', () => evaluate(policy, without(state, 'event_id'), { status: 503 }, NOW), 'invalid_input', 'state.event_id'],
  ['an unknown field', () => evaluate(policy, state, { status: 503, retry_after: 5 }, NOW), 'invalid_input', 'outcome.retry_after'],
  ['a string for a number', () => evaluate(policy, { ...state, attempt: '1' }, { status: 503 }, NOW), 'invalid_input', 'state.attempt'],
  ['a number for a string', () => evaluate(policy, { ...state, endpoint_id: 42 }, { status: 503 }, NOW), 'invalid_input', 'state.endpoint_id'],
  ['a number for a boolean', () => evaluate(policy, { ...state, credentials_refreshed: 0 }, { status: 503 }, NOW), 'invalid_input', 'state.credentials_refreshed'],
  ['NaN', () => evaluate(policy, state, { status: 503 }, NaN), 'invalid_input', 'now_ms'],
  ['Infinity', () => plan({ ...backoff, factor: Infinity }, 900_000, 16), 'invalid_backoff', 'backoff.factor'],
  ['NaN for a factor', () => evaluate({ ...policy, backoff: { ...backoff, factor: NaN } }, state, { status: 503 }, NOW), 'invalid_backoff', 'policy.backoff.factor'],
  ['max_attempts above 100', () => evaluate(policy, { ...state, max_attempts: 101 }, { status: 503 }, NOW), 'invalid_state', 'state.max_attempts'],
  ['a malformed store reply', () => settle(policy, state, { status: 503 }, NOW, { reserved: 1, counts }), 'invalid_input', 'reply.reserved'],
  ['a store reply with both shapes', () => settle(policy, state, { status: 503 }, NOW, { unavailable: true, reserved: true, counts }), 'invalid_input', 'reply'],
  ['a store request with an unknown op', () => storeKey({ op: 'read', endpoint_id: 'e', window_ms: 1, bucket: 0 }), 'invalid_input', 'request.op'],
  ['a Retry-After that is not a string', () => retryAfter(5, NOW), 'invalid_input', 'header'],
  ['a document above 1 MiB', () => new RetryPolicy(`{"classes": {}, "version": "${'x'.repeat(1 << 20)}"}`), 'document_too_large', ''],
  ['a negative number', () => plan(backoff, 900_000, -1), 'invalid_input', 'hard_cap'],
  ['a fraction', () => plan(backoff, 900_000, 1.5), 'invalid_input', 'hard_cap'],
  ['an unsafe integer', () => plan(backoff, 2 ** 60, 16), 'invalid_input', 'window_ms'],
  ['a bigint above 2^64-1', () => plan(backoff, 2n ** 64n, 16), 'invalid_input', 'window_ms'],
  ['a negative bigint', () => plan(backoff, -1n, 16), 'invalid_input', 'window_ms'],
  ['a bigint too big for u32', () => plan(backoff, 900_000, 2n ** 40n), 'invalid_input', 'hard_cap'],
  ['null for an object', () => evaluate(null, state, { status: 503 }, NOW), 'invalid_input', 'policy'],
  ['an array for an object', () => evaluate(policy, [state], { status: 503 }, NOW), 'invalid_input', 'state'],
  ['an undefined store reply', () => settle(policy, state, { status: 503 }, NOW, undefined), 'invalid_input', 'reply'],
  ['malformed budget counts', () => settle(policy, state, { status: 503 }, NOW, { reserved: true, counts: { current: { total: 1 }, previous: counts.previous } }), 'invalid_input', 'reply.counts.current.retries'],
  ['an outcome with both status and error_kind', () => evaluate(policy, state, { status: 503, error_kind: 'connect_error' }, NOW), 'invalid_input', 'outcome'],
  ['an outcome with neither', () => evaluate(policy, state, {}, NOW), 'invalid_input', 'outcome'],
  ['a function', () => classifyStatus(() => 503), 'invalid_input', 'status'],
  ['a symbol', () => classifyError(Symbol('x')), 'invalid_input', 'error_kind'],
  ['binary data', () => evaluate(policy, new Uint8Array(4), { status: 503 }, NOW), 'invalid_input', 'state'],
  ['a cyclic object', () => { const o = { ...state }; o.self = o; return evaluate(policy, o, { status: 503 }, NOW); }, 'invalid_input', `state${'.self'.repeat(32)}`],
  ['attempt 0', () => evaluate(policy, { ...state, attempt: 0 }, { status: 503 }, NOW), 'invalid_state', 'state.attempt'],
  ['status 600', () => evaluate(policy, state, { status: 600 }, NOW), 'invalid_status', 'outcome.status'],
  ['status 70000', () => classifyStatus(70_000), 'invalid_status', 'status'],
  ['hard_cap 0', () => evaluate({ ...policy, hard_cap: 0 }, state, { status: 503 }, NOW), 'invalid_hard_cap', 'policy.hard_cap'],
  ['factor 0.5', () => evaluate({ ...policy, backoff: { ...backoff, factor: 0.5 } }, state, { status: 503 }, NOW), 'invalid_backoff', 'policy.backoff.factor'],
  ['ratio 0', () => evaluate({ ...policy, budget: { ...policy.budget, ratio: 0 } }, state, { status: 503 }, NOW), 'invalid_budget', 'policy.budget.ratio'],
  ['a window above 30 days', () => plan(backoff, 2_592_000_001, 16), 'invalid_window', 'window_ms'],
  ['an unknown jitter', () => plan({ ...backoff, jitter: 'decorrelated' }, 900_000, 16), 'invalid_backoff', 'backoff.jitter'],
  ['a document that sets max_attempts', () => new RetryPolicy({ classes: { a: { window_ms: 1000, max_attempts: 3, backoff } } }), 'invalid_document', 'classes.a.max_attempts'],
  ['a document that is not JSON', () => new RetryPolicy('{"classes": '), 'invalid_document', ''],
  ['a document with NaN', () => new RetryPolicy({ classes: { a: { window_ms: NaN, backoff } } }), 'invalid_document', 'classes.a.window_ms'],
  ['an unknown event class', () => new RetryPolicy({ classes: { a: { window_ms: 1000, backoff } } }).admit('b', 0), 'unknown_event_class', 'class'],
];

for (const [what, call, code, field] of CASES) {
  test(`${what} throws PolicyError ${code} at \`${field}\``, () => {
    assert.throws(call, (e) => {
      assert.ok(e instanceof PolicyError, `not a PolicyError: ${e && e.stack}`);
      assert.ok(e instanceof Error);
      assert.equal(e.name, 'PolicyError');
      assert.equal(e.code, code, e.message);
      assert.equal(e.field, field, e.message);
      assert.ok(e.message.includes(code));
      return true;
    });
  });
}

test('the module stays usable after many rejected calls', () => {
  for (let round = 0; round < 200; round++) {
    for (const [, call] of CASES) assert.throws(call, PolicyError);
  }
  assert.deepEqual(good(), GOOD);
});

test('throwing getters and proxies are refused as invalid_input, without disturbing the module', () => {
  const getter = Object.defineProperty({ ...state }, 'attempt', { enumerable: true, get() { throw new Error('boom'); } });
  const proxy = new Proxy({}, { ownKeys() { throw new Error('trap'); } });
  for (let i = 0; i < 100; i++) {
    assert.throws(() => evaluate(policy, getter, { status: 503 }, NOW), { name: 'PolicyError', code: 'invalid_input' });
    assert.throws(() => evaluate(policy, proxy, { status: 503 }, NOW), { name: 'PolicyError', code: 'invalid_input', field: 'state' });
    assert.throws(() => decide(policy, getter, { status: 503 }, { store: new InMemoryBudgetStore() }), { name: 'PolicyError', code: 'invalid_input' });
  }
  assert.deepEqual(good(), GOOD);
});

// Deterministic garbage: every function gets random values of every JS type,
// nested at random; each call must return or throw a PolicyError, nothing else.
function garbage(rnd, depth = 0) {
  const pick = rnd(14);
  switch (pick) {
    case 0: return undefined;
    case 1: return null;
    case 2: return rnd(2) === 1;
    case 3: return [0, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 53, 2 ** 64, -0, 599, 1e308][rnd(11)];
    case 4: return [0n, -1n, 2n ** 63n, 2n ** 64n, 2n ** 70n][rnd(5)];
    case 5: return ['', 'full', 'evt_1', '\u{1F600}', '\ud800', 'x'.repeat(1000)][rnd(6)];
    case 6: return Symbol('s');
    case 7: return () => 1;
    case 8: return depth > 3 ? {} : { ...state, [['attempt', 'event_id', 'extra'][rnd(3)]]: garbage(rnd, depth + 1) };
    case 9: return depth > 3 ? [] : [garbage(rnd, depth + 1)];
    case 10: return depth > 3 ? {} : { ...policy, [['backoff', 'budget', 'window_ms', 'hard_cap'][rnd(4)]]: garbage(rnd, depth + 1) };
    case 11: return new Map([['status', 503]]);
    case 12: return { status: garbage(rnd, depth + 1), retry_after_ms: garbage(rnd, depth + 1) };
    default: return new Date(0);
  }
}

test('random garbage into every function only ever returns or throws PolicyError', () => {
  let seed = 12345;
  const rnd = (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const doc = new RetryPolicy({ classes: { n: { window_ms: 60_000, backoff } } });
  const imports = { store: new InMemoryBudgetStore(), clock: { nowMs: () => NOW } };
  const fns = [
    (g) => plan(g(), g(), g()),
    (g) => classifyStatus(g()),
    (g) => classifyError(g()),
    (g) => evaluate(g(), g(), g(), g()),
    (g) => settle(g(), g(), g(), g(), g()),
    (g) => decide(g(), g(), g(), imports),
    (g) => api.storeApply(g(), g(), g(), g()),
    (g) => api.storeKey(g()),
    (g) => api.retryAfter(g(), g()),
    (g) => api.loadHealthDocument(g()),
    (g) => doc.admit(g(), g()),
    (g) => doc.evaluate(g(), g(), g()),
    (g) => doc.settle(g(), g(), g(), g()),
    (g) => doc.decide(g(), g()),
    (g) => new RetryPolicy(g()),
  ];
  let thrown = 0;
  for (let i = 0; i < 5000; i++) {
    const fn = fns[i % fns.length];
    try {
      fn(() => garbage(rnd));
    } catch (e) {
      if (!(e instanceof PolicyError)) throw new Error(`call ${i} threw ${e && e.stack}`);
      thrown++;
    }
  }
  assert.ok(thrown > 4000, `only ${thrown} refusals`);
  assert.deepEqual(good(), GOOD);
});
