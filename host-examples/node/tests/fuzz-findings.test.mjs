// Regression tests for the findings F-N1..F-N8 of the boundary fuzzer
// (tests/fuzz-boundary.test.mjs), fixed in lib/fast.cjs, lib/compiled.cjs
// (both since deleted: ABI 1.0 has no compiled policy), lib/snapshot.cjs and
// lib/retry-policy.cjs. Each test failed before its fix; they now hold the
// two paths that remain, the plain functions and RetryPolicy, to the same
// answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RetryPolicy, evaluate, settle, decide, InMemoryBudgetStore, PolicyError, ERROR_CODES } from '@webhook/retry-policy';

const U64 = 2n ** 64n - 1n;
const MAX_SAFE = 2 ** 53 - 1;


const POLICY = {
  backoff: { base_ms: 1000, factor: 2, cap_ms: 60_000, jitter: 'full' },
  window_ms: 3_600_000,
  hard_cap: 20,
  budget: { ratio: 0.5, window_ms: 10_000, min_sample: 0, sliding: true },
};
const document = (policy) => ({ version: 'findings', classes: { c: policy } });
const retry = new RetryPolicy(document(POLICY));

const GOOD = {
  state: { event_id: 'evt_good', endpoint_id: 'ep_good', attempt: 2, max_attempts: 10, first_attempted_at_ms: 1_000, credentials_refreshed: false },
  outcome: { status: 503 },
  now: 5_000,
  reply: { reserved: true, counts: { current: { total: 3, retries: 1 }, previous: { total: 0, retries: 0 } } },
};
const GOOD_ANSWER = settle(POLICY, GOOD.state, GOOD.outcome, GOOD.now, GOOD.reply);
assert.equal(GOOD_ANSWER.decision.stop_reason, null);
const classed = (state) => ({ ...state, class: 'c' });
/** decide's imports: a clock at 7000 and a fresh in-memory store. */
const imports = () => ({ store: new InMemoryBudgetStore(), clock: { nowMs: () => 7_000 } });

/** `{ok}` or `{code, field}` for a PolicyError, `{crash}` for anything else. */
function call(f) {
  try {
    return { ok: f() };
  } catch (e) {
    if (e instanceof PolicyError) return { code: e.code, field: e.field };
    return { crash: e };
  }
}

function noCrash(r, what) {
  if ('crash' in r) assert.fail(`${what} threw a non-PolicyError: ${r.crash?.constructor?.name}: ${r.crash?.message ?? String(r.crash)}`);
  if ('code' in r) assert.ok(ERROR_CODES.includes(r.code), `${what}: unknown code ${r.code}`);
}

function stillUsable() {
  assert.deepStrictEqual(settle(POLICY, GOOD.state, GOOD.outcome, GOOD.now, GOOD.reply), GOOD_ANSWER);
  assert.deepStrictEqual(retry.settle(classed(GOOD.state), GOOD.outcome, GOOD.now, GOOD.reply), GOOD_ANSWER);
}

/** A copy of `o` whose every field (nested objects too) is a getter that counts its reads in `reads`, by dotted path. */
function counted(o, reads, path = '') {
  const c = {};
  for (const [k, v] of Object.entries(o)) {
    const p = path ? `${path}.${k}` : k;
    const value = typeof v === 'object' && v !== null ? counted(v, reads, p) : v;
    reads[p] = 0;
    Object.defineProperty(c, k, {
      enumerable: true,
      get() {
        reads[p]++;
        return value;
      },
    });
  }
  return c;
}

// F-N1. A getter or Proxy trap that calls into the package while the fast
// path reads its input (re-entrancy) overwrote the fast path's shared
// scalars (lib/fast.cjs): the outer call then decided on a mix of the two
// inputs (CompiledPolicy.settle gave delay 1821 ms where the object path
// gives 1144 ms). Now a step that starts while another reads its input
// takes a fresh scalar record of its own.
test('finding F-N1: a re-entrant getter does not change the fast path\'s answer', () => {
  const other = { ...GOOD.state, event_id: 'evt_other', attempt: 3 };
  const otherAnswer = evaluate(POLICY, other, { status: 500 }, 7_000);
  const reenter = [
    ['evaluate', () => evaluate(POLICY, other, { status: 500 }, 7_000), otherAnswer],
    ['RetryPolicy.evaluate', () => retry.evaluate(classed(other), { status: 500 }, 7_000), otherAnswer],
    ['decide', () => decide(POLICY, other, { status: 429, retry_after_ms: 9 }, imports()), decide(POLICY, other, { status: 429, retry_after_ms: 9 }, imports())],
  ];
  const inputs = () => ({ state: { ...GOOD.state }, outcome: { ...GOOD.outcome }, reply: { ...GOOD.reply, counts: { ...GOOD.reply.counts, current: { ...GOOD.reply.counts.current } } } });
  const fields = [['state', 'max_attempts'], ['state', 'event_id'], ['outcome', 'retry_after_ms'], ['reply', 'reserved'], ['current', 'total']];
  for (const [name, inner, innerAnswer] of reenter) {
    for (const [where, field] of fields) {
      const i = inputs();
      const target = where === 'current' ? i.reply.counts.current : i[where];
      const value = target[field];
      let innerResult;
      Object.defineProperty(target, field, {
        enumerable: true,
        get() {
          innerResult = inner();
          return value;
        },
      });
      for (const [outer, f] of [['settle', () => settle(POLICY, i.state, i.outcome, GOOD.now, i.reply)], ['RetryPolicy', () => retry.settle(Object.assign(i.state, { class: 'c' }), i.outcome, GOOD.now, i.reply)]]) {
        innerResult = undefined;
        assert.deepStrictEqual(f(), GOOD_ANSWER, `${outer}.settle, ${name} in a getter on ${where}.${field}`);
        assert.deepStrictEqual(innerResult, innerAnswer, `the re-entrant ${name} (getter on ${where}.${field})`);
      }
    }
  }
  // Two levels deep: a getter whose re-entrant call meets a re-entrant getter.
  const deep = { ...other };
  Object.defineProperty(deep, 'attempt', { enumerable: true, get: () => (settle(POLICY, GOOD.state, GOOD.outcome, GOOD.now, GOOD.reply), 3) });
  const state = { ...GOOD.state };
  Object.defineProperty(state, 'first_attempted_at_ms', { enumerable: true, get: () => (evaluate(POLICY, deep, { status: 500 }, 7_000), 1_000) });
  assert.deepStrictEqual(settle(POLICY, state, GOOD.outcome, GOOD.now, GOOD.reply), GOOD_ANSWER, 'two levels of re-entrancy');
  stillUsable();
});

// F-N2. The fast path read the caller's state again after the wasm call
// (decisionOf: `state.event_id`, `state.endpoint_id` for the dead letter;
// readState read event_id twice): a getter that throws on a later read
// escaped as a plain Error, and a getter whose value changes made the dead
// letter name another event than the one whose jitter was drawn.
test('finding F-N2: the fast path reads each input field once (no raw Error from a later read)', () => {
  let reads = 0;
  const state = { ...GOOD.state, attempt: 10 }; // max_attempts_exhausted: a dead letter
  Object.defineProperty(state, 'event_id', {
    enumerable: true,
    get() {
      if (++reads > 1) throw new Error('boom on a later read');
      return 'evt_good';
    },
  });
  const r = call(() => settle(POLICY, state, GOOD.outcome, GOOD.now, GOOD.reply));
  noCrash(r, 'settle');
  assert.equal(r.ok.decision.dead_letter.event_id, 'evt_good');
  reads = 0;
  const classedState = Object.defineProperty(classed(state), 'event_id', Object.getOwnPropertyDescriptor(state, 'event_id'));
  reads = 0; // the copy above read it once
  assert.deepStrictEqual(call(() => retry.settle(classedState, GOOD.outcome, GOOD.now, GOOD.reply)), r);

  // Every field of every input, read exactly once by an answer (a dead
  // letter, a store request, a retry).
  const cases = [
    ['settle, dead letter', { ...GOOD.state, attempt: 10 }, GOOD.outcome, GOOD.reply, (st, oc, rp) => settle(POLICY, st, oc, GOOD.now, rp)],
    ['settle, retry', GOOD.state, { status: 503, retry_after_ms: 10 }, GOOD.reply, (st, oc, rp) => settle(POLICY, st, oc, GOOD.now, rp)],
    ['settle, unavailable', GOOD.state, { status: 500 }, { unavailable: true }, (st, oc, rp) => settle(POLICY, st, oc, GOOD.now, rp)],
    ['evaluate, store request', { ...GOOD.state, attempt: 1 }, { error_kind: 'read_timeout' }, null, (st, oc) => evaluate(POLICY, st, oc, GOOD.now)],
    ['decide', GOOD.state, GOOD.outcome, null, (st, oc) => decide(POLICY, st, oc, imports())],
    ['RetryPolicy.settle', classed({ ...GOOD.state, attempt: 10 }), GOOD.outcome, GOOD.reply, (st, oc, rp) => retry.settle(st, oc, GOOD.now, rp)],
  ];
  for (const [name, st, oc, rp, f] of cases) {
    const counts = {};
    const args = [st, oc, rp].map((x, i) => (x === null ? null : counted(x, counts, ['state', 'outcome', 'reply'][i])));
    const answer = f(...args);
    // `class` is RetryPolicy's (read once to choose the policy), not the step's
    for (const [field, n] of Object.entries(counts)) assert.equal(n, 1, `${name}: ${field} read ${n} times`);
    assert.deepStrictEqual(answer, f(st, oc, rp), `${name}: the answer of the plain input`);
  }
});

// F-N3. The fast path's readers checked the own enumerable keys
// (Object.keys) but read the fields with plain property access, which also
// sees inherited and non-enumerable properties; the object path copies own
// enumerable properties only (snapshot.cjs, Object.entries). Found on an
// `Object.create({error_kind})` outcome: CompiledPolicy.evaluate decided,
// evaluate() refused it. Now the readers read inside the Object.keys loop.
test('finding F-N3: inherited or non-enumerable fields are read alike by both paths', () => {
  const hidden = (o, k, v) => Object.defineProperty(o, k, { value: v, enumerable: false });
  const cases = [
    ['inherited outcome', GOOD.state, Object.create({ error_kind: 'read_timeout' }), GOOD.reply],
    ['inherited retry_after_ms', GOOD.state, Object.assign(Object.create({ retry_after_ms: 600_000 }), { status: 503 }), GOOD.reply],
    ['non-enumerable retry_after_ms', GOOD.state, hidden({ status: 503 }, 'retry_after_ms', 600_000), GOOD.reply],
    ['non-enumerable error_kind', GOOD.state, hidden({}, 'error_kind', 'read_timeout'), GOOD.reply],
    ['inherited reply', GOOD.state, GOOD.outcome, Object.create({ unavailable: true })],
    ['non-enumerable unavailable', GOOD.state, GOOD.outcome, hidden({}, 'unavailable', true)],
    ['inherited counts', GOOD.state, GOOD.outcome, { reserved: true, counts: { current: Object.create({ total: 1, retries: 0 }), previous: { total: 0, retries: 0 } } }],
    ['non-enumerable previous', GOOD.state, GOOD.outcome, { reserved: true, counts: hidden({ current: { total: 1, retries: 0 } }, 'previous', { total: 0, retries: 0 }) }],
    ['inherited state', Object.create(GOOD.state), GOOD.outcome, GOOD.reply],
  ];
  const failures = [];
  for (const [name, state, outcome, reply] of cases) {
    const o = call(() => settle(POLICY, state, outcome, GOOD.now, reply));
    noCrash(o, name);
    for (const [path, f] of [
      ['RetryPolicy', () => retry.settle(Object.assign(Object.create(state), { ...state, class: 'c' }), outcome, GOOD.now, reply)],
    ]) {
      const a = call(f);
      try {
        assert.deepStrictEqual(a, o);
      } catch {
        failures.push(`${path}, ${name}: ${JSON.stringify(a)} vs settle ${JSON.stringify(o)}`);
      }
    }
  }
  assert.deepStrictEqual(failures, []);
});

// F-N4. snapshot.cjs `plain` caught a throwing ownKeys or get trap but not
// a throwing getPrototypeOf trap (`instanceof Map`, outside its try), nor did
// CompiledPolicy's constructor (`instanceof raw.CompiledPolicy`): such a
// Proxy escaped every entry point as a plain Error. Now the snapshot asks
// what a value is with brand checks (node:util types), which run no trap:
// the prototype is never asked for, on either path, so the Proxy is read as
// the data it holds, alike on both paths. A Proxy that cannot be asked at
// all (revoked) or whose length throws is refused as invalid_input.
test('finding F-N4: a Proxy whose getPrototypeOf throws is never a raw Error (read alike on both paths)', () => {
  const boom = () => {
    throw new Error('boom from a trap');
  };
  const trap = (o) => new Proxy(o, { getPrototypeOf: boom });
  const revoked = (o) => {
    const { proxy, revoke } = Proxy.revocable(o, {});
    revoke();
    return proxy;
  };
  const lengthTrap = new Proxy([1], { get: (t, k) => (k === 'length' ? boom() : t[k]) });
  const reply = (counts) => ({ reserved: true, counts });
  const alike = [
    ['state', () => [trap({ ...GOOD.state }), GOOD.outcome, GOOD.reply]],
    ['outcome', () => [GOOD.state, trap({ ...GOOD.outcome }), GOOD.reply]],
    ['reply', () => [GOOD.state, GOOD.outcome, trap({ ...GOOD.reply })]],
    ['counts', () => [GOOD.state, GOOD.outcome, reply(trap({ ...GOOD.reply.counts }))]],
  ];
  for (const [name, args] of alike) {
    const [st, oc, rp] = args();
    assert.deepStrictEqual(call(() => settle(POLICY, st, oc, GOOD.now, rp)), { ok: GOOD_ANSWER }, `object path, a trap on the ${name}`);
  }
  assert.deepStrictEqual(call(() => retry.settle(trap(classed(GOOD.state)), GOOD.outcome, GOOD.now, GOOD.reply)), { ok: GOOD_ANSWER }, 'RetryPolicy');
  for (const p of [trap({ ...POLICY }), { ...POLICY, backoff: trap({ ...POLICY.backoff }) }]) {
    assert.deepStrictEqual(call(() => evaluate(p, GOOD.state, GOOD.outcome, GOOD.now)), call(() => evaluate(POLICY, GOOD.state, GOOD.outcome, GOOD.now)));
  }
  const doc = call(() => new RetryPolicy(trap(document(POLICY))));
  noCrash(doc, 'RetryPolicy of a trapped document');
  const refused = [
    ['RetryPolicy, a revoked Proxy', () => retry.evaluate(classed(GOOD.state), revoked({ status: 503 }), GOOD.now), 'outcome'],
    ['evaluate, a revoked Proxy', () => evaluate(POLICY, revoked({ ...GOOD.state }), GOOD.outcome, GOOD.now), 'state'],
    ['evaluate, a revoked Proxy policy', () => evaluate(revoked({ ...POLICY }), GOOD.state, GOOD.outcome, GOOD.now), 'policy'],
    ['an array Proxy whose length throws', () => evaluate(POLICY, GOOD.state, lengthTrap, GOOD.now), 'outcome'],
  ];
  for (const [name, f, field] of refused) assert.deepStrictEqual(call(f), { code: 'invalid_input', field }, name);
  stillUsable();
});

// F-N5. RetryPolicy.evaluate/settle/decide (and step, and the resume since deleted) copied
// the state without its `class` (an object rest spread) outside `guarded`
// and the snapshot's try: a state with a throwing getter, Proxy get trap or
// ownKeys trap escaped as the getter's own Error. Now `class` is taken off
// the snapshot's copy, and RetryPolicy reads `class` and `policy_hash` once,
// guarded. Since the component build, the snapshot reads each field on its
// own and names the one that threw (`state.attempt`), on every path.
test('finding F-N5: RetryPolicy refuses a state that throws when read with a PolicyError', async () => {
  const boom = () => {
    throw new Error('boom from a getter');
  };
  const states = [
    ['a throwing getter', Object.defineProperty(classed(GOOD.state), 'attempt', { enumerable: true, get: boom }), 'state.attempt'],
    ['a throwing get trap', new Proxy(classed(GOOD.state), { get: (t, k) => (k === 'max_attempts' ? boom() : t[k]) }), 'state.max_attempts'],
    ['a throwing ownKeys trap', new Proxy(classed(GOOD.state), { ownKeys: boom }), 'state'],
    ['a throwing class getter', Object.defineProperty({ ...GOOD.state }, 'class', { enumerable: true, get: boom }), 'state.class'],
    ['a throwing policy_hash getter', Object.defineProperty(classed(GOOD.state), 'policy_hash', { enumerable: true, get: boom }), 'state.policy_hash'],
  ];
  for (const [name, state, field] of states) {
    const want = { code: 'invalid_input', field };
    assert.deepStrictEqual(call(() => retry.evaluate(state, GOOD.outcome, GOOD.now)), want, `evaluate, ${name}`);
    assert.deepStrictEqual(call(() => retry.settle(state, GOOD.outcome, GOOD.now, GOOD.reply)), want, `settle, ${name}`);
    assert.deepStrictEqual(call(() => retry.decide(state, GOOD.outcome)), want, `decide, ${name}`);
    await assert.rejects(retry.step(state, GOOD.outcome), (e) => e instanceof PolicyError && e.code === 'invalid_input' && e.field === field, `step, ${name}`);
    if (field !== 'state.class' && field !== 'state.policy_hash') {
      // the same refusal as the object path's for the same state
      assert.deepStrictEqual(call(() => settle(POLICY, state, GOOD.outcome, GOOD.now, GOOD.reply)), want, `object path, ${name}`);
    }
  }
  stillUsable();
});

// F-N6. A dead letter's event_id/endpoint_id and a store request's
// endpoint_id: the fast path copied the caller's JS string, the object path
// returns the module's (UTF-8) string, in which a lone surrogate is U+FFFD:
// '\udc00\ud800' vs '\ufffd\ufffd'. (The jitter and the budget key are the
// U+FFFD bytes on both paths.) Now the fast path gives the well-formed form.
test('finding F-N6: a dead letter names the event alike on both paths (lone surrogates)', () => {
  const ids = { event_id: '\udc00\ud800', endpoint_id: 'ep\ud800' };
  const dead = { ...GOOD.state, ...ids, attempt: 10 };
  const plain = call(() => settle(POLICY, dead, GOOD.outcome, GOOD.now, GOOD.reply));
  assert.deepStrictEqual([plain.ok.decision.dead_letter.event_id, plain.ok.decision.dead_letter.endpoint_id], ['\ufffd\ufffd', 'ep\ufffd']);
  assert.deepStrictEqual(call(() => retry.settle(classed(dead), GOOD.outcome, GOOD.now, GOOD.reply)), plain, 'RetryPolicy');

  const first = { ...GOOD.state, ...ids, attempt: 1 };
  const step = call(() => evaluate(POLICY, first, GOOD.outcome, GOOD.now));
  assert.deepStrictEqual(step, call(() => retry.evaluate(classed(first), GOOD.outcome, GOOD.now)), 'the store request');
  assert.equal(step.ok.store.endpoint_id, 'ep\ufffd');
  // well-formed ids come back as given (a surrogate pair is no lone surrogate)
  const pair = { ...GOOD.state, event_id: 'evt_\ud83d\ude00', endpoint_id: 'ep_\u00e9', attempt: 10 };
  assert.deepStrictEqual(settle(POLICY, pair, GOOD.outcome, GOOD.now, GOOD.reply).decision.dead_letter.event_id, 'evt_\ud83d\ude00');
});

// F-N7. A budget window_ms above 2^53-1 (a bigint, allowed by the types):
// the fast path's store request carried window_ms through its Float64Array
// result buffer, so 2^64-1 came back as the number 18446744073709552000
// where the object path gives the exact 18446744073709551615n. Now the
// request carries the policy's own window.
test('finding F-N7: a store request keeps window_ms above 2^53-1 exact (bigint)', () => {
  const state = { ...GOOD.state, attempt: 1 };
  for (const [w, type] of [[U64, 'bigint'], [2n ** 53n, 'bigint'], [BigInt(MAX_SAFE), 'number'], [MAX_SAFE, 'number'], [10_000n, 'number']]) {
    const policy = { ...POLICY, budget: { ...POLICY.budget, window_ms: w } };
    const plain = call(() => evaluate(policy, state, { status: 200 }, GOOD.now));
    assert.equal(typeof plain.ok.store.window_ms, type, `window ${w}`);
    assert.equal(BigInt(plain.ok.store.window_ms), BigInt(w), `window ${w}`);
    const rp = new RetryPolicy(document(policy));
    assert.deepStrictEqual(call(() => rp.evaluate(classed(state), { status: 200 }, GOOD.now)), plain, `RetryPolicy, window ${w}`);
  }
});

// F-N8: jco's glue decoded guest strings with a default TextDecoder, which
// drops a leading U+FEFF, so an endpoint id '\uFEFF' came back as '' in the
// store request (a different budget key from every other host's).
test('F-N8: ids that begin with U+FEFF come back unchanged in store requests and dead letters', () => {
  const p = {
    backoff: { base_ms: 2000, factor: 2, cap_ms: 300_000, jitter: 'full' },
    window_ms: 900_000,
    hard_cap: 16,
    budget: { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true },
  };
  const state = { event_id: '\uFEFFevt', endpoint_id: '\uFEFF', attempt: 1, max_attempts: 13, first_attempted_at_ms: 0, credentials_refreshed: false };
  assert.equal(evaluate(p, state, { status: 503 }, 5).store.endpoint_id, '\uFEFF');
  const stop = evaluate(p, { ...state, attempt: 13 }, { status: 503 }, 5).decision;
  assert.equal(stop.dead_letter.event_id, '\uFEFFevt');
  assert.equal(stop.dead_letter.endpoint_id, '\uFEFF');
});
