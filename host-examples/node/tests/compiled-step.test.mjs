// The compiled policy of ABI 0.3: a component handle per instance, owned
// by CompiledPolicy (close, Symbol.dispose, free), and RetryPolicy.step on
// it: ONE component call when `advance` decides, TWO when the store
// answers, with the store adapters' 0.2 request unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import { createRequire } from 'node:module';
import { compilePolicy, compileDocument, loadHealthDocument, RetryPolicy, ManualClock, PolicyError, swapArtifact, applyCall, EMPTY_HELD_HEALTH } from '@webhook/retry-policy';

const require = createRequire(import.meta.url);
const { Artifact, EMBEDDED_PATH } = require('../lib/artifact/load.cjs');

const T0 = 1_700_000_000_000;
const POLICY = {
  backoff: { base_ms: 1000, factor: 2.0, cap_ms: 60_000, jitter: 'none' },
  window_ms: 900_000,
  hard_cap: 16,
  budget: { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: false },
};
const HEALTH = {
  hold_budget_refusals: true,
  pause_max_ms: 600_000,
  circuit: null,
  release: { multiple: 1.0, floor_per_s: 1.0 },
  cache_ms: 1000,
};
const DOC = { version: 'v1', classes: { n: { window_ms: 900_000, backoff: { base_ms: 1000, factor: 2.0, cap_ms: 60_000, jitter: 'none' } } } };
const STATE = { event_id: 'ev-1', endpoint_id: 'ep-1', attempt: 2, max_attempts: 13, first_attempted_at_ms: T0, credentials_refreshed: false };
const REFUSED = { reserved: false, counts: { current: { total: 200, retries: 40 }, previous: { total: 0, retries: 0 } } };

/** Component calls made by `f` (every call goes through Artifact#run). */
async function componentCalls(f) {
  const original = Artifact.prototype.run;
  let n = 0;
  Artifact.prototype.run = function run(g) {
    n += 1;
    return original.call(this, g);
  };
  try {
    return { value: await f(), calls: n };
  } finally {
    Artifact.prototype.run = original;
  }
}

/** A store in plain JavaScript (no component call of its own) that logs each request and reserves. */
function loggingStore() {
  const requests = [];
  return {
    requests,
    call(request) {
      requests.push(request);
      return { reserved: request.op !== 'record', counts: { current: { total: 1, retries: 0 }, previous: { total: 0, retries: 0 } } };
    },
  };
}

test('a step that advance decides is one component call, and its record still reaches the store in the 0.2 shape', async () => {
  const store = loggingStore();
  const rp = new RetryPolicy(DOC, { store, clock: new ManualClock(T0 + 1000) });
  await rp.step({ ...STATE, class: 'n', attempt: 1 }, { status: 200 }); // compiles the class
  store.requests.length = 0;
  const { value, calls } = await componentCalls(() => rp.step({ ...STATE, class: 'n', attempt: 1 }, { status: 200 }));
  assert.equal(value.stop_reason, 'delivered');
  assert.equal(calls, 1);
  assert.deepEqual(store.requests, [{ op: 'record', endpoint_id: 'ep-1', window_ms: 60_000, bucket: Math.floor((T0 + 1000) / 60_000) }]);
});

test('a step the store must answer is two component calls (advance, finish) around one store call', async () => {
  const store = loggingStore();
  const rp = new RetryPolicy(DOC, { store, clock: new ManualClock(T0 + 1000) });
  await rp.step({ ...STATE, class: 'n' }, { status: 503 });
  store.requests.length = 0;
  const { value, calls } = await componentCalls(() => rp.step({ ...STATE, class: 'n' }, { status: 503 }));
  assert.deepEqual(value.retry, { delay_ms: 2000, refresh_credentials: false });
  assert.equal(calls, 2);
  assert.deepEqual(store.requests.map((r) => r.op), ['reserve']);
});

test('the step decides as the 0.2 evaluate/settle path on the same store answers', async () => {
  const rp = new RetryPolicy(DOC, { store: { call: () => REFUSED }, clock: new ManualClock(T0 + 5000) });
  const d = await rp.step({ ...STATE, class: 'n' }, { status: 503 });
  const s = rp.settle({ ...STATE, class: 'n' }, { status: 503 }, T0 + 5000, REFUSED);
  assert.deepEqual(d, s.decision);
  assert.equal(d.stop_reason, 'retry_budget_exhausted');
});

test('a class is compiled once per document, and a reload compiles anew', () => {
  const rp = new RetryPolicy(DOC);
  const first = rp.policy('n');
  assert.equal(rp.policy('n'), first);
  assert.ok(rp.reload({ ...DOC, version: 'v2' }).ok);
  assert.notEqual(rp.policy('n'), first);
});

test('a policy without a section takes no handle until its first compiled call', () => {
  const require = createRequire(import.meta.url);
  const { Handles } = require('../lib/handles.cjs');
  const original = Handles.prototype.on;
  let compiled = 0;
  Handles.prototype.on = function on(api) {
    compiled += 1;
    return original.call(this, api);
  };
  try {
    const p = compilePolicy(POLICY);
    p.evaluate(STATE, { status: 503 }, T0 + 1000);
    assert.equal(compiled, 0);
    p.advance(STATE, { status: 503 }, T0 + 1000);
    assert.equal(compiled, 1);
    p.close();
  } finally {
    Handles.prototype.on = original;
  }
});

test('close() discards the handle: later compiled calls are refused, the 0.2 steps still run', () => {
  const p = compilePolicy(POLICY);
  assert.equal(p.advance(STATE, { status: 503 }, T0 + 1000).action, 'needs_store');
  p.close();
  p.close(); // idempotent
  assert.equal(p.closed, true);
  assert.throws(() => p.advance(STATE, { status: 503 }, T0 + 1000), (e) => e instanceof PolicyError && e.code === 'invalid_input' && e.field === 'handle');
  assert.equal(p.evaluate(STATE, { status: 503 }, T0 + 1000).store.op, 'reserve');
});

test('Symbol.dispose and free() close the policy too', () => {
  const a = compilePolicy(POLICY);
  a[Symbol.dispose]();
  assert.equal(a.closed, true);
  const b = compilePolicy(POLICY);
  b.free();
  assert.equal(b.closed, true);
});

test('closed policies free their component handles: 70000 compile/close cycles stay under the 65535-handle table', () => {
  // a health section compiles at construction: each cycle takes a handle and gives it back
  for (let i = 0; i < 70_000; i++) compilePolicy(POLICY, { health: HEALTH }).close();
  assert.equal(compilePolicy(POLICY).advance(STATE, { status: 200 }, T0).action, 'decided');
});

test('after an artifact swap the policy compiles on the new instance and never uses the old handle', () => {
  const p = compilePolicy(POLICY);
  const before = p.advance(STATE, { status: 503 }, T0 + 1000);
  assert.ok(swapArtifact(fs.readFileSync(EMBEDDED_PATH)).ok);
  assert.deepEqual(p.advance(STATE, { status: 503 }, T0 + 1000), before);
  p.close();
});

test('a health section is compiled with the policy: a refused retry is held, and a refused section throws at compile', () => {
  const p = compilePolicy(POLICY, { health: HEALTH });
  assert.deepEqual(p.health, HEALTH);
  assert.deepEqual(p.finish(STATE, { status: 503 }, T0 + 5000, REFUSED), {
    verdict: { action: 'hold', until_ms: T0 + 7000, refresh_credentials: false },
    budget_disagreement: false,
  });
  p.close();
  assert.throws(() => compilePolicy(POLICY, { health: { ...HEALTH, cache_ms: 0 } }), PolicyError);
  assert.throws(() => compilePolicy(POLICY, { health: { ...HEALTH, extra: 1 } }), (e) => e.code === 'invalid_input' && e.field === 'health.extra');
});

test('a format-3 call from advance is answered by applyCall (the in-memory rule) with a health view', () => {
  const p = compilePolicy(POLICY, { health: HEALTH });
  const r = p.advance(STATE, { status: 503 }, T0 + 1000);
  assert.equal(r.action, 'needs_store');
  assert.equal(r.health.outcome, 'failure');
  const { reply, held } = applyCall(r, T0 + 1000, EMPTY_HELD_HEALTH);
  assert.equal(reply.reservation.reserved, true);
  assert.equal(reply.view.as_of_ms, T0 + 1000);
  assert.equal(held.buckets.current.retries, 1);
  p.close();
});

test('a compiled policy dropped without close() has its handle discarded by the finalizer (70000 dropped, gc between)', () => {
  const script = `
    const { compilePolicy } = require(${JSON.stringify(require.resolve('../lib/index.cjs'))});
    const P = ${JSON.stringify(POLICY)};
    const H = ${JSON.stringify(HEALTH)};
    (async () => {
      for (let i = 0; i < 70000; i++) {
        compilePolicy(P, { health: H }); // dropped at once
        if (i % 5000 === 4999) { globalThis.gc(); await new Promise((r) => setTimeout(r, 10)); }
      }
      console.log('ok');
    })().catch((e) => { console.log(e.code, e.field); process.exit(1); });`;
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' });
  assert.equal(r.stdout.trim(), 'ok', r.stderr);
});

test('compileDocument compiles each class of a format-3 document once, with the hash load-health-document gives', () => {
  const doc = {
    version: 'h1',
    health: { cache_ms: 2000 },
    classes: { a: { window_ms: 900_000, backoff: { base_ms: 1000, factor: 2.0, cap_ms: 60_000 } }, b: { window_ms: 60_000, backoff: { base_ms: 500, factor: 2.0, cap_ms: 5000 }, health: { circuit: null } } },
  };
  const loaded = loadHealthDocument(doc);
  const compiledDoc = compileDocument(doc);
  assert.deepEqual([...compiledDoc.classes.keys()], ['a', 'b']);
  for (const c of loaded.classes) {
    const p = compiledDoc.classes.get(c.name);
    assert.deepEqual(p.health, c.health);
    assert.equal(compiledDoc.hashes.get(c.name), c.policy_hash);
    assert.equal(p.admit(c.name, 'h1', T0).policy_hash, c.policy_hash);
  }
  assert.equal(loaded.classes[0].health.cache_ms, 2000);
  assert.equal(loaded.classes[1].health.circuit, null);
  compiledDoc.close();
  assert.ok([...compiledDoc.classes.values()].every((p) => p.closed));
});

test('RetryPolicy.step on the handle decides as the 0.2 path (evaluate, store, settle) on 4096 varied steps, store requests included', async () => {
  const { workload, DOCUMENT } = await import('../benchmarks/workload.mjs');
  const clock = new ManualClock(T0);
  let answer = null;
  const seen = [];
  const store = { call: (request) => (seen.push(request), answer) };
  const rp = new RetryPolicy(DOCUMENT, { store, clock });
  const differ = [];
  for (const c of workload()) {
    const state = { class: 'bench', ...c.state };
    clock.set(c.nowMs);
    answer = c.reply;
    seen.length = 0;
    const got = await rp.step(state, c.outcome);
    const stepRequests = [...seen];
    const s = rp.evaluate(state, c.outcome, c.nowMs);
    const want = s.decision ?? rp.settle(state, c.outcome, c.nowMs, answer).decision;
    const wantRequests = s.store === null ? [] : [s.store];
    if (!isDeepStrictEqual([got, stepRequests], [want, wantRequests])) differ.push({ c, got, want, stepRequests, wantRequests });
  }
  assert.deepEqual(differ.slice(0, 3), []);
});
