// Property-based fuzzing (fast-check) of the package's boundary: every input
// shape lib/index.d.cts and lib/types.d.cts allow (numbers and bigints,
// `retry_after_ms` absent / undefined / null / number / bigint, `{error_kind}`
// outcomes, every StoreReply shape, states at 0, 1, 2^32-1, 2^53-1, 2^64-1)
// and hostile values (NaN, +-Infinity, -0, negatives, fractions, strings
// where numbers go, symbols, functions, throwing getters, proxies, huge
// strings, lone surrogates).
//
// Properties:
//   (a) RetryPolicy and the plain functions (evaluate/settle on plain
//       objects) give the same result or the same PolicyError code;
//   (b) nothing but a PolicyError is ever thrown, and after every refusal a
//       known-good call still gives the known answer;
//   (c) contract invariants: evaluate's store request (op table, endpoint,
//       window, bucket = floor(now / window)); settle retries iff the reply
//       reserved and gates 1-5 passed (otherwise evaluate's decision);
//       decide (one call, the clock and store imports) decides as evaluate,
//       the store, settle; retryAfter of ASCII digits is digits * 1000,
//       saturating at 2^53 - 1.
//
// CI: modest numRuns (about 10 s here). FUZZ_LONG=1 runs 30x as many
// cases (a few minutes); FUZZ_SEED=N replays a seed.
//
// This fuzzer's findings F-N1..F-N8, fixed in lib/, are kept as regression
// tests in tests/fuzz-findings.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import {
  RetryPolicy,
  InMemoryBudgetStore,
  evaluate,
  settle,
  decide,
  retryAfter,
  PolicyError,
  ERROR_CODES,
} from '@webhook/retry-policy';

const LONG = process.env.FUZZ_LONG === '1';
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const runs = (ci, long = ci * 30) => ({ numRuns: LONG ? long : ci, seed: SEED, endOnFailure: true, includeErrorInReport: true });

const stats = { calls: 0, refused: 0, mapStates: 0 };

const MAX_SAFE = 2 ** 53 - 1;
const U32 = 2 ** 32 - 1;
const U64 = 2n ** 64n - 1n;

// ---------------------------------------------------------------- helpers

/** `{ok}` or `{code, field}` for a PolicyError, `{crash}` for anything else. */
function call(f) {
  stats.calls++;
  try {
    return { ok: f() };
  } catch (e) {
    if (e instanceof PolicyError) {
      stats.refused++;
      return { code: e.code, field: e.field };
    }
    return { crash: e };
  }
}

function noCrash(r, what) {
  if ('crash' in r) {
    const e = r.crash;
    assert.fail(`${what} threw a non-PolicyError: ${e?.constructor?.name}: ${e?.message ?? String(e)}`);
  }
  if ('code' in r) assert.ok(ERROR_CODES.includes(r.code), `${what}: unknown code ${r.code}`);
}

function same(a, b, what) {
  noCrash(a, what);
  noCrash(b, what);
  assert.deepStrictEqual(a, b, what);
}

/** The same result, or the same code (the field may differ). */
const fieldDiffs = new Map();
function sameCode(a, b, what) {
  noCrash(a, what);
  noCrash(b, what);
  if ('code' in a && 'code' in b && a.code === b.code && a.field !== b.field) {
    const k = `${a.code}: ${a.field} vs ${b.field}`;
    fieldDiffs.set(k, (fieldDiffs.get(k) ?? 0) + 1);
    return;
  }
  assert.deepStrictEqual(a, b, what);
}

// ---------------------------------------------------------------- policies

const policies = [
  {
    backoff: { base_ms: 1000, factor: 2, cap_ms: 60_000, jitter: 'full' },
    window_ms: 3_600_000,
    hard_cap: 20,
    budget: { ratio: 0.5, window_ms: 10_000, min_sample: 0, sliding: true },
  },
  {
    // boundaries: base = cap = one day, factor 1, window 30 days, hard cap 100, ratio 1, bucket width 1
    backoff: { base_ms: 86_400_000, factor: 1, cap_ms: 86_400_000, jitter: 'none' },
    window_ms: 2_592_000_000,
    hard_cap: 100,
    budget: { ratio: 1, window_ms: 1, min_sample: 0, sliding: false },
  },
  {
    // bigints, the smallest ratio, a bucket width of 2^64-1, min_sample 2^64-1
    backoff: { base_ms: 1n, factor: 1.0000000000000002, cap_ms: 1n, jitter: 'equal' },
    window_ms: 0n,
    hard_cap: 1n,
    budget: { ratio: Number.MIN_VALUE, window_ms: U64, min_sample: U64, sliding: true },
  },
  {
    // a bucket width of exactly 2^53-1 (the largest a number carries)
    backoff: { base_ms: 500, factor: 3, cap_ms: 3_600_000, jitter: 'full' },
    window_ms: 600_000,
    hard_cap: 30,
    budget: { ratio: 0.25, window_ms: BigInt(MAX_SAFE), min_sample: 5, sliding: false },
  },
  {
    backoff: { base_ms: 250, factor: 1e308, cap_ms: 86_400_000, jitter: 'equal' },
    window_ms: 900_000,
    hard_cap: 16,
    budget: { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true },
  },
  {
    backoff: { base_ms: 2000, factor: 1.5, cap_ms: 300_000, jitter: 'full' },
    window_ms: 86_400_000n,
    hard_cap: 2,
    budget: { ratio: 0.3, window_ms: U32, min_sample: 1, sliding: false },
  },
].map((policy) => {
  const document = { version: 'fuzz', classes: { c: { window_ms: policy.window_ms, hard_cap: policy.hard_cap, backoff: policy.backoff, budget: policy.budget } } };
  return { policy, retry: new RetryPolicy(document) };
});

// ---------------------------------------------------------------- the known-good call

const GOOD = {
  state: { event_id: 'evt_good', endpoint_id: 'ep_good', attempt: 2, max_attempts: 10, first_attempted_at_ms: 1_000, credentials_refreshed: false },
  outcome: { status: 503 },
  now: 5_000,
  reply: { reserved: true, counts: { current: { total: 3, retries: 1 }, previous: { total: 0, retries: 0 } } },
};
const GOOD_ANSWER = settle(policies[0].policy, GOOD.state, GOOD.outcome, GOOD.now, GOOD.reply);
assert.equal(GOOD_ANSWER.decision.stop_reason, null);

function stillUsable() {
  const p = policies[0];
  assert.deepStrictEqual(settle(p.policy, GOOD.state, GOOD.outcome, GOOD.now, GOOD.reply), GOOD_ANSWER, 'plain settle after a refusal');
  assert.deepStrictEqual(
    p.retry.settle({ ...GOOD.state, class: 'c' }, GOOD.outcome, GOOD.now, GOOD.reply),
    GOOD_ANSWER,
    'RetryPolicy after a refusal',
  );
}

/**
 * A call into the package from inside a getter: it must not change the
 * outer call's answer (compared across paths), nor its own. (A throw here
 * would be the getter's, refused by the outer call: so a wrong answer is
 * recorded, and checked after each case.)
 */
let reentryWrong = 0;
function reenter() {
  let r;
  try {
    r = evaluate(policies[1].policy, REENTER.state, REENTER.outcome, REENTER.now);
  } catch (e) {
    r = e;
  }
  if (!isDeepStrictEqual(r, REENTER.answer)) reentryWrong++;
}
const REENTER = { state: { ...GOOD.state, event_id: 'evt_inner', attempt: 3 }, outcome: { status: 500 }, now: 7_000 };
REENTER.answer = evaluate(policies[1].policy, REENTER.state, REENTER.outcome, REENTER.now);

// ---------------------------------------------------------------- value generators

const HUGE = 'x'.repeat(1 << 20);
const HUGE_WIDE = '\u00e9\ud83d\ude00'.repeat(100_000);

/** Hostile values where a number belongs. */
const hostileNumber = fc.constantFrom(
  NaN, Infinity, -Infinity, -0, -1, -(2 ** 53), 0.5, 1.5, 99.999, 2 ** 53, 2 ** 53 + 2, 2 ** 64, 1e300, Number.MIN_VALUE, -Number.MIN_VALUE,
  2n ** 64n, 2n ** 70n, -1n, -(2n ** 63n), -(2n ** 63n) - 1n,
  '7', '', '1e3', '0x10', ' 1', HUGE,
  null, true, false, {}, [], [1], { valueOf: () => 1 }, new Date(0), Object(5), Symbol('n'), () => 1,
);
/** Boundary integers as numbers or bigints. */
const boundaryInt = fc.constantFrom(0, 1, 2, U32, U32 + 1, MAX_SAFE, 0n, 1n, BigInt(U32), BigInt(MAX_SAFE), 2n ** 53n, 2n ** 63n, U64);

/** An integer from `good`, as a number or a bigint; sometimes a boundary, sometimes hostile. */
function intField(good, hostile = 1) {
  return fc.oneof(
    { weight: 12, arbitrary: fc.tuple(good, fc.boolean()).map(([n, big]) => (big ? BigInt(n) : n)) },
    { weight: 2, arbitrary: boundaryInt },
    { weight: hostile, arbitrary: hostileNumber },
  );
}

const hostileString = fc.constantFrom('\ud800', 'a\udfffb', '\udc00\ud800', '\u0000', '\ufeff', 'evt\u2028', HUGE, HUGE_WIDE, 5, 5n, null, true, {}, [], Symbol('s'));
function strField(prefix) {
  return fc.oneof(
    { weight: 8, arbitrary: fc.nat(50).map((n) => `${prefix}${n}`) },
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 1, arbitrary: hostileString },
  );
}
const boolField = fc.oneof({ weight: 12, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constantFrom(0, 1, 'true', null, undefined, {}) });

const T0 = 1_700_000_000_000;
const instant = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: T0 - 10_000_000, max: T0 + 10_000_000 }) },
  { weight: 2, arbitrary: fc.nat(100_000) },
  { weight: 1, arbitrary: fc.maxSafeNat() },
);

// An object is a recipe (entries + a mutation), built fresh for every call so
// that getters and proxies start from scratch each time.
const MUTATIONS = [
  'none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'none',
  'extra', 'delete', 'undefined', 'throwing-getter', 'non-enumerable', 'proxy', 'proxy-throwing-ownKeys', 'proxy-throwing-get',
  'map', 'array', 'inherited', 'null', 'string', 'frozen', 'null-prototype', 'symbol-key',
  'proxy-throwing-getPrototypeOf', 'revoked-proxy', 're-entrant-getter',
];
// Every mutation applies to states, outcomes, replies, counts and policies
// alike (inherited and non-enumerable fields too: finding F-N3).
const mutation = fc.record({ kind: fc.constantFrom(...MUTATIONS), at: fc.nat(20) });

function build(entries, mut) {
  const o = {};
  for (const [k, v] of entries) o[k] = typeof v === 'function' && v.build ? v.build() : v;
  const keys = Object.keys(o);
  const key = keys.length ? keys[mut.at % keys.length] : 'k';
  const boom = () => {
    throw new Error('boom from a getter');
  };
  switch (mut.kind) {
    case 'none':
      return o;
    case 'extra':
      return { ...o, extra_field: 1 };
    case 'delete':
      delete o[key];
      return o;
    case 'undefined':
      o[key] = undefined;
      return o;
    case 'throwing-getter':
      Object.defineProperty(o, key, { enumerable: true, configurable: true, get: boom });
      return o;
    case 'non-enumerable':
      Object.defineProperty(o, key, { enumerable: false, value: o[key] });
      return o;
    case 'proxy':
      return new Proxy(o, {});
    case 'proxy-throwing-ownKeys':
      return new Proxy(o, { ownKeys: boom });
    case 'proxy-throwing-get':
      return new Proxy(o, { get: (t, k) => (k === key ? boom() : t[k]) });
    case 'proxy-throwing-getPrototypeOf':
      return new Proxy(o, { getPrototypeOf: boom });
    case 'revoked-proxy': {
      const { proxy, revoke } = Proxy.revocable(o, {});
      revoke();
      return proxy;
    }
    case 're-entrant-getter': {
      // a getter that calls into the package (findings F-N1, F-N2): the
      // value it returns is the same on every read
      const value = o[key];
      Object.defineProperty(o, key, {
        enumerable: true,
        get() {
          reenter();
          return value;
        },
      });
      return o;
    }
    case 'map':
      return new Map(Object.entries(o));
    case 'array':
      return Object.values(o);
    case 'inherited':
      return Object.create(o);
    case 'null':
      return null;
    case 'string':
      try {
        return JSON.stringify(o, (_k, v) => (typeof v === 'bigint' ? String(v) : v)) ?? 'x';
      } catch {
        return 'x'; // a nested throwing getter or proxy
      }
    case 'frozen':
      return Object.freeze(o);
    case 'null-prototype':
      return Object.assign(Object.create(null), o);
    case 'symbol-key':
      o[Symbol('s')] = 1;
      return o;
    default:
      throw new Error(mut.kind);
  }
}

/** A recipe: build(recipe) makes the object. */
const recipe = (entries, mut) => {
  const f = () => build(entries, mut);
  f.build = f;
  f.mut = mut.kind;
  return f;
};

const stateArb = fc
  .record({
    event_id: strField('evt_'),
    endpoint_id: strField('ep_'),
    attempt: intField(fc.nat(102)),
    max_attempts: intField(fc.nat(102)),
    first_attempted_at_ms: intField(instant),
    credentials_refreshed: boolField,
    mut: mutation,
  })
  .map(({ mut, ...fields }) => ({ fields, mut }));

const statusArb = fc.oneof(
  fc.constantFrom(99, 100, 101, 199, 200, 204, 299, 300, 304, 399, 400, 401, 403, 404, 408, 409, 410, 425, 429, 499, 500, 502, 503, 504, 599, 600, 65535, 65536, 70000),
  fc.nat(1000),
);
const retryAfterArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant('absent') },
  { weight: 2, arbitrary: fc.constantFrom(null, undefined) },
  { weight: 6, arbitrary: intField(fc.oneof(fc.nat(600_000), fc.maxSafeNat())) },
);
const kindArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('connect_timeout', 'read_timeout', 'write_timeout', 'pool_timeout', 'connect_error', 'remote_protocol_error', 'invalid_url', 'tls_error', '') },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: hostileString },
);
const outcomeArb = fc.oneof(
  { weight: 6, arbitrary: fc.record({ status: intField(statusArb), ra: retryAfterArb }).map(({ status, ra }) => (ra === 'absent' ? [['status', status]] : [['status', status], ['retry_after_ms', ra]])) },
  { weight: 3, arbitrary: kindArb.map((k) => [['error_kind', k]]) },
  // both shapes at once, or neither
  { weight: 1, arbitrary: fc.record({ status: intField(statusArb), kind: kindArb }).map(({ status, kind }) => [['status', status], ['error_kind', kind]]) },
  { weight: 1, arbitrary: fc.constantFrom([['error_kind', 'read_timeout'], ['retry_after_ms', null]], [['error_kind', null], ['status', 503]], []) },
);
const outcomeRecipe = fc.tuple(outcomeArb, mutation).map(([entries, mut]) => ({ entries, mut }));

const countsArb = fc
  .record({
    ct: intField(fc.nat(200)),
    cr: intField(fc.nat(200)),
    pt: intField(fc.nat(200)),
    pr: intField(fc.nat(200)),
    m0: mutation,
    m1: mutation,
    m2: mutation,
  })
  .map(({ ct, cr, pt, pr, m0, m1, m2 }) =>
    recipe(
      [
        ['current', recipe([['total', ct], ['retries', cr]], m1)],
        ['previous', recipe([['total', pt], ['retries', pr]], m2)],
      ],
      m0,
    ),
  );

const replyArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'unavailable', entries: [['unavailable', true]] }) },
  { weight: 6, arbitrary: fc.tuple(fc.boolean(), countsArb).map(([reserved, counts]) => ({ kind: reserved ? 'reserved' : 'refused', entries: [['reserved', reserved], ['counts', counts]] })) },
  {
    weight: 1,
    arbitrary: fc.tuple(countsArb, fc.constantFrom(false, 1, 'true', null, undefined)).chain(([counts, odd]) =>
      fc.constantFrom(
        { kind: 'odd', entries: [['unavailable', false]] },
        { kind: 'odd', entries: [['unavailable', odd]] },
        { kind: 'odd', entries: [['unavailable', true], ['reserved', true], ['counts', counts]] },
        { kind: 'odd', entries: [['reserved', true]] },
        { kind: 'odd', entries: [['reserved', odd], ['counts', counts]] },
        { kind: 'odd', entries: [] },
      ),
    ),
  },
);
const replyRecipe = fc.tuple(replyArb, mutation).map(([r, mut]) => ({ ...r, mut }));

const caseArb = fc.record({
  pi: fc.nat(policies.length - 1),
  state: stateArb,
  outcome: outcomeRecipe,
  now: fc.oneof({ weight: 8, arbitrary: intField(instant) }, { weight: 1, arbitrary: fc.constant('near') }),
  nearBy: fc.integer({ min: -1000, max: 4_000_000 }),
  reply: replyRecipe,
});

/** The inputs of one call, built fresh. `classed` adds RetryPolicy's `class`. */
function inputs(c, classed) {
  const stateEntries = Object.entries(c.state.fields);
  if (classed) stateEntries.push(['class', 'c']);
  // the mutation picks among the contract's six fields (never `class`)
  const state = build(stateEntries, { ...c.state.mut, at: c.state.mut.at % 6 });
  const outcome = build(c.outcome.entries, c.outcome.mut);
  const reply = build(c.reply.entries, c.reply.mut);
  let now = c.now;
  if (now === 'near') {
    const f = c.state.fields.first_attempted_at_ms;
    now = typeof f === 'number' && Number.isSafeInteger(f) ? Math.max(0, f + c.nearBy) : T0;
  }
  return { state, outcome, reply, now };
}

function toBig(x) {
  return typeof x === 'bigint' ? x : BigInt(x);
}

/** The integer a valid input field holds (a number or a bigint). */
function intOf(x) {
  return typeof x === 'bigint' ? x : BigInt(x);
}

// ---------------------------------------------------------------- (a) (b) (c): the two steps

test('RetryPolicy == plain functions on every input shape; only PolicyErrors; invariants of evaluate/settle', () => {
  stats.calls = stats.refused = 0;
  fc.assert(
    fc.property(caseArb, (c) => {
      const P = policies[c.pi];
      const ops = {
        evaluate: [(i) => P.retry.evaluate(i.state, i.outcome, i.now), (i) => evaluate(P.policy, i.state, i.outcome, i.now)],
        settle: [(i) => P.retry.settle(i.state, i.outcome, i.now, i.reply), (i) => settle(P.policy, i.state, i.outcome, i.now, i.reply)],
      };
      const results = {};
      let refused = false;
      for (const [op, [classed, object]] of Object.entries(ops)) {
        const b = call(() => classed(inputs(c, true)));
        const o = call(() => object(inputs(c, false)));
        // Lone surrogates in ids: the same U+FFFD on both paths (finding F-N6).
        // RetryPolicy resolves `state.class` first: a state that is no object
        // with a class is refused there, with another field than the object
        // path's. A state that throws when read is refused like any other
        // (finding F-N5). A Map state is data to both: RetryPolicy reads
        // `class` from the same snapshot the step lowers.
        if (c.state.mut.kind === 'map') stats.mapStates++;
        sameCode(b, o, `${op}: RetryPolicy vs object path`);
        results[op] = o;
        refused ||= 'code' in o;
      }
      // (c) evaluate's store request
      const ev = results.evaluate;
      if ('ok' in ev) {
        const { fields } = c.state;
        const i = inputs(c, false);
        const { decision, store } = ev.ok;
        assert.ok(decision === null || decision.stop_reason !== null, 'evaluate decides only stops');
        const first = intOf(fields.attempt) === 1n;
        const op = decision === null ? (first ? 'record_reserve' : 'reserve') : first ? 'record' : null;
        assert.equal(store?.op ?? null, op, 'store op by the table');
        if (store !== null) {
          const w = intOf(P.policy.budget.window_ms);
          // the state's endpoint, as the module's UTF-8 string holds it (a lone surrogate is U+FFFD)
          assert.equal(store.endpoint_id, String(fields.endpoint_id).toWellFormed(), "the state's endpoint");
          assert.equal(toBig(store.window_ms), w);
          assert.equal(toBig(store.bucket), intOf(i.now) / w, 'bucket = floor(now_ms / window_ms)');
          for (const v of [store.window_ms, store.bucket]) {
            assert.equal(typeof v, toBig(v) <= BigInt(MAX_SAFE) ? 'number' : 'bigint', 'numbers up to 2^53-1, bigints above');
          }
        }
        // settle: evaluate's decision if a gate fired; else a retry iff reserved
        const st = results.settle;
        if ('ok' in st) {
          if (decision !== null) {
            assert.deepStrictEqual(st.ok.decision, decision, 'settle after a fired gate');
            assert.equal(st.ok.budget_disagreement, false);
          } else {
            assert.equal(st.ok.decision.stop_reason === null, c.reply.kind === 'reserved', 'settle retries iff reserved');
            if (c.reply.kind === 'unavailable') assert.equal(st.ok.decision.stop_reason, 'budget_unavailable');
            if (c.reply.kind === 'refused') assert.equal(st.ok.decision.stop_reason, 'retry_budget_exhausted');
          }
        }
      }
      // (b) the module is still usable after a refusal
      if (refused) stillUsable();
      assert.equal(reentryWrong, 0, 'a re-entrant call from a getter answered wrongly');
    }),
    runs(1500),
  );
  console.log(`# steps: ${stats.calls} calls, ${stats.refused} refused`);
  console.log(`# Map states (data to both paths): ${stats.mapStates}`);
  for (const [k, n] of fieldDiffs) console.log(`# RetryPolicy, same code, other field: ${k} (${n})`);
});

// ---------------------------------------------------------------- policies themselves

const factorArb = fc.oneof(
  fc.constantFrom(1, 1.0000000000000002, 1.5, 2, 10, 1e308, Number.MAX_VALUE, 0.9999999999999999, 0, -1, NaN, Infinity, -0),
  fc.double({ min: 1, max: 4, noNaN: true }),
);
const ratioArb = fc.oneof(fc.constantFrom(Number.MIN_VALUE, 1e-9, 0.1, 0.5, 1, 1.0000000000000002, 0, -0, -0.1, NaN, Infinity), fc.double({ min: 0, max: 1, noNaN: true }));
const policyArb = fc
  .record({
    base: intField(fc.oneof(fc.integer({ min: 1, max: 5000 }), fc.constantFrom(0, 86_400_000, 86_400_001))),
    factor: fc.oneof({ weight: 10, arbitrary: factorArb }, { weight: 1, arbitrary: hostileNumber }),
    cap: intField(fc.oneof(fc.integer({ min: 1, max: 600_000 }), fc.constantFrom(86_400_000, 86_400_001))),
    jitter: fc.oneof({ weight: 10, arbitrary: fc.constantFrom('none', 'full', 'equal') }, { weight: 1, arbitrary: fc.constantFrom('Full', '', 'random', null, 1) }),
    window: intField(fc.oneof(fc.nat(10_000_000), fc.constantFrom(2_592_000_000, 2_592_000_001))),
    hardCap: intField(fc.constantFrom(0, 1, 2, 16, 99, 100, 101)),
    ratio: fc.oneof({ weight: 10, arbitrary: ratioArb }, { weight: 1, arbitrary: hostileNumber }),
    bw: intField(fc.oneof(fc.integer({ min: 1, max: 120_000 }), fc.constant(0))),
    ms: intField(fc.nat(100)),
    sliding: boolField,
    bm: mutation,
    pm: mutation,
    state: stateArb,
    outcome: outcomeRecipe,
    now: intField(instant),
  })
  .map((r) => ({
    ...r,
    policy: recipe(
      [
        ['backoff', recipe([['base_ms', r.base], ['factor', r.factor], ['cap_ms', r.cap], ['jitter', r.jitter]], r.bm)],
        ['window_ms', r.window],
        ['hard_cap', r.hardCap],
        ['budget', recipe([['ratio', r.ratio], ['window_ms', r.bw], ['min_sample', r.ms], ['sliding', r.sliding]], { kind: 'none', at: 0 })],
      ],
      r.pm,
    ),
  }));

test('random policies: evaluate only returns or refuses with a PolicyError, and decide (one call) decides as evaluate, the store, settle', () => {
  fc.assert(
    fc.property(policyArb, (r) => {
      const st = () => build(Object.entries(r.state.fields), r.state.mut);
      const oc = () => build(r.outcome.entries, r.outcome.mut);
      const o = call(() => evaluate(r.policy(), st(), oc(), r.now));
      noCrash(o, 'evaluate');
      const calls = [];
      const memory = new InMemoryBudgetStore();
      const store = { call: (request, budget, nowMs) => (calls.push({ request, budget, nowMs }), memory.call(request, budget, nowMs)) };
      const d = call(() => decide(r.policy(), st(), oc(), { store, clock: { nowMs: () => r.now } }));
      noCrash(d, 'decide');
      if ('code' in o) {
        // the same refusal: decide checks its inputs in evaluate's order (the clock where evaluate takes now_ms)
        assert.deepStrictEqual(d, o, 'decide refuses as evaluate does');
        assert.equal(calls.length, 0, 'no store call for refused inputs');
        stillUsable();
        return;
      }
      const { decision, store: request } = o.ok;
      assert.deepStrictEqual(calls.map((x) => x.request), request === null ? [] : [request], "decide's one store call is evaluate's request");
      let want = decision;
      if (decision === null) {
        const reply = new InMemoryBudgetStore().call(request, calls[0].budget, calls[0].nowMs);
        want = settle(r.policy(), st(), oc(), r.now, reply).decision;
      }
      assert.deepStrictEqual(d, { ok: want }, 'decide == evaluate, the store, settle');
    }),
    runs(1500),
  );
});

// ---------------------------------------------------------------- Retry-After

const SAT = 2n ** 53n - 1n;
const ws = fc.string({ unit: fc.constantFrom(' ', '\t'), maxLength: 3 });
const digits = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 20 }),
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 400 }),
  fc.constantFrom('9007199254740', '9007199254741', '9007199254740991', '18446744073709551615', '18446744073709551616', '0', '00000000000000000000000001'),
);

test('retryAfter: ASCII digits are digits * 1000, saturating at 2^53 - 1; anything else null or a number, never a throw', () => {
  fc.assert(
    fc.property(ws, digits, ws, intField(instant, 0), (pre, d, post, now) => {
      const r = call(() => retryAfter(`${pre}${d}${post}`, now));
      noCrash(r, 'retryAfter');
      const want = BigInt(d) * 1000n;
      assert.deepStrictEqual(r, { ok: Number(want > SAT ? SAT : want) });
    }),
    runs(3000),
  );
  const headerArb = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.tuple(fc.constantFrom('', '+', '-', ' ', '\n', '\u00a0', '\u0660'), digits, fc.constantFrom('', '.5', 'e3', 's', '\r', '\u00a0')).map((p) => p.join('')),
    fc.constantFrom('Sun, 06 Nov 1994 08:49:37 GMT', 'Sun, 06 Nov 1994 08:49:60 GMT', 'Sun, 29 Feb 2023 00:00:00 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Fri, 31 Dec 9999 23:59:59 GMT', HUGE, HUGE_WIDE, '\ud800', '1\udc00'),
  );
  fc.assert(
    fc.property(fc.oneof({ weight: 8, arbitrary: headerArb }, { weight: 1, arbitrary: hostileString }), intField(instant), (h, now) => {
      const r = call(() => retryAfter(h, now));
      noCrash(r, 'retryAfter');
      const r2 = call(() => policies[0].retry.retryAfter(h, now));
      same(r2, r, 'RetryPolicy.retryAfter vs retryAfter');
      if ('ok' in r) {
        assert.ok(r.ok === null || (Number.isSafeInteger(r.ok) && r.ok >= 0), `a delay or null: ${r.ok}`);
      } else {
        assert.equal(r.code, 'invalid_input');
        stillUsable();
      }
    }),
    runs(3000),
  );
});
