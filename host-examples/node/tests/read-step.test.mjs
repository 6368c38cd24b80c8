// lib/read-step.cjs (issue 26) reads the typed step's inputs in one pass;
// what it gives must be what the generic road gives, `lower.x(plain(v))`,
// for every shape: good values, a bad value in any field (nested ones too),
// a field missing, extra or set to undefined, a throwing getter, a Proxy, a
// Map, an array, a null-prototype object, a class instance; and it must
// read every field exactly once, as snapshot.cjs does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const read = require('../lib/read-step.cjs');
const lower = require('../lib/lower.cjs');
const { plain } = require('../lib/snapshot.cjs');

const bucket = () => ({ total: 3, retries: 1 });
const GOOD = {
  policy: () => ({
    backoff: { base_ms: 1000, factor: 2, cap_ms: 60_000, jitter: 'full' },
    window_ms: 3_600_000,
    hard_cap: 20,
    budget: { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true },
  }),
  state: () => ({ event_id: 'evt_1', endpoint_id: 'ep_1', attempt: 2, max_attempts: 10, first_attempted_at_ms: 1_000, credentials_refreshed: false }),
  classed: () => ({ event_id: 'evt_1', endpoint_id: 'ep_1', attempt: 2, max_attempts: 10, first_attempted_at_ms: 1_000, credentials_refreshed: false, class: 'c', policy_hash: 'h' }),
  outcome: () => ({ status: 503, retry_after_ms: 1000 }),
  transport: () => ({ error_kind: 'connect_timeout' }),
  reply: () => ({ reserved: true, counts: { current: bucket(), previous: bucket() } }),
  unavailable: () => ({ unavailable: true }),
  reservation: () => ({ reserved: false, counts: { current: bucket(), previous: bucket() } }),
  request: () => ({ op: 'record_reserve', endpoint_id: 'ep_1', window_ms: 60_000, bucket: 5 }),
  budget: () => ({ ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: false }),
  held: () => ({ bucket: 5, current: bucket(), previous: bucket() }),
};

/** The generic road for each record, and the one pass (RetryPolicy's state: what it picks the policy by, and the lowered state). */
const picked = (snap) => (snap !== null && typeof snap === 'object' ? { class: snap.class, policy_hash: snap.policy_hash } : snap);
const classedGeneric = (v, path) => {
  const snap = plain(v, path);
  return { snap: picked(snap), lowered: lower.state(snap, path, true) };
};
const classedRead = (v, path) => {
  const { snap, lowered } = read.classedState(v, path);
  return { snap: picked(snap), lowered: lowered ?? lower.state(snap, path, true) };
};
const ROADS = {
  policy: [read.policy, (v, p) => lower.policy(plain(v, p), p)],
  state: [read.state, (v, p) => lower.state(plain(v, p), p)],
  classed: [classedRead, classedGeneric],
  outcome: [read.outcome, (v, p) => lower.outcome(plain(v, p), p)],
  transport: [read.outcome, (v, p) => lower.outcome(plain(v, p), p)],
  reply: [read.reply, (v, p) => lower.reply(plain(v, p), p)],
  unavailable: [read.reply, (v, p) => lower.reply(plain(v, p), p)],
  reservation: [read.reservation, (v, p) => lower.reservation(plain(v, p), p)],
  request: [read.request, (v, p) => lower.request(plain(v, p), p)],
  budget: [read.budget, (v, p) => lower.budget(plain(v, p), p)],
  held: [read.held, (v, p) => lower.held(plain(v, p), p)],
};

const ODD = [undefined, null, -1, -0, 0, 1, 1.5, NaN, Infinity, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, 2 ** 53, -1n, 0n, 7n, 2n ** 32n, 2n ** 64n - 1n, 2n ** 64n, '', 'x', 'none', 'record', true, false, {}, [], [1], () => 1, Symbol('s'), new Map([['total', 1]]), new Date(0), new Uint8Array(2), { a: { b: { c: 1 } } }];

/** `{ok}` or the PolicyError's code, field and message; anything else thrown fails the test. */
function outcomeOf(f) {
  try {
    return { ok: f() };
  } catch (e) {
    if (e?.name !== 'PolicyError') throw e;
    return { code: e.code, field: e.field, message: e.message };
  }
}

/** Every path to a field of `v` (nested records too). */
const pathsOf = (v, pre = []) => Object.entries(v).flatMap(([k, x]) => [[...pre, k], ...(x !== null && typeof x === 'object' ? pathsOf(x, [...pre, k]) : [])]);

/** `make()` with the field at `path` changed by `f(parent, key)`. */
function changed(make, path, f) {
  const v = make();
  let parent = v;
  for (const k of path.slice(0, -1)) parent = parent[k];
  f(parent, path[path.length - 1]);
  return v;
}

/** Variants of a record: each field set to each odd value, deleted, a getter that throws, and the record's odd containers. */
function variants(make) {
  const out = [['good', make]];
  for (const path of pathsOf(make())) {
    const at = path.join('.');
    for (const odd of ODD) out.push([`${at} = ${typeof odd === 'symbol' ? 'symbol' : String(odd)}`, () => changed(make, path, (o, k) => { o[k] = odd; })]);
    out.push([`${at} deleted`, () => changed(make, path, (o, k) => { delete o[k]; })]);
    out.push([`${at} beside an extra field`, () => changed(make, path, (o) => { o.extra = 1; })]);
    out.push([`${at} throws when read`, () => changed(make, path, (o, k) => Object.defineProperty(o, k, { enumerable: true, get() { throw new Error('boom'); } }))]);
    out.push([`${at} in a Proxy`, () => changed(make, path, (o, k) => { o[k] = o[k] !== null && typeof o[k] === 'object' ? new Proxy(o[k], {}) : o[k]; })]);
    out.push([`${at} in a Map`, () => changed(make, path, (o, k) => { o[k] = o[k] !== null && typeof o[k] === 'object' ? new Map(Object.entries(o[k])) : o[k]; })]);
    out.push([`${at} with a null prototype`, () => changed(make, path, (o, k) => { o[k] = o[k] !== null && typeof o[k] === 'object' ? Object.assign(Object.create(null), o[k]) : o[k]; })]);
    out.push([`${at} a class instance`, () => changed(make, path, (o, k) => { o[k] = o[k] !== null && typeof o[k] === 'object' ? Object.assign(new (class Rec {})(), o[k]) : o[k]; })]);
  }
  out.push(['the record reversed', () => Object.fromEntries(Object.entries(make()).reverse())]);
  out.push(['a Proxy', () => new Proxy(make(), {})]);
  out.push(['a Proxy whose getPrototypeOf throws', () => new Proxy(make(), { getPrototypeOf() { throw new Error('trap'); } })]);
  out.push(['a Proxy whose ownKeys throws', () => new Proxy(make(), { ownKeys() { throw new Error('trap'); } })]);
  out.push(['a Map', () => new Map(Object.entries(make()))]);
  out.push(['an array', () => Object.values(make())]);
  for (const odd of [undefined, null, 0, 'x', () => 1]) out.push([`${String(odd)}`, () => odd]);
  return out;
}

for (const [name, make] of Object.entries(GOOD)) {
  test(`the one-pass reader of a ${name} gives what plain() + lower give, or the same PolicyError, for every variant`, () => {
    const [fast, generic] = ROADS[name];
    let compared = 0;
    for (const [what, build] of variants(make)) {
      assert.deepStrictEqual(outcomeOf(() => fast(build(), name)), outcomeOf(() => generic(build(), name)), `${name}: ${what}`);
      compared += 1;
    }
    assert.ok(compared > 50, `${compared} variants`);
  });
}

test('the one-pass reader reads every field once, as the generic copy does', () => {
  for (const [name, make] of Object.entries(GOOD)) {
    const [fast] = ROADS[name];
    for (const path of pathsOf(make())) {
      let reads = 0;
      const v = changed(make, path, (o, k) => {
        const value = o[k];
        Object.defineProperty(o, k, { enumerable: true, get() { reads += 1; return value; } });
      });
      outcomeOf(() => fast(v, name));
      assert.equal(reads, 1, `${name}.${path.join('.')} read ${reads} times`);
    }
  }
});
