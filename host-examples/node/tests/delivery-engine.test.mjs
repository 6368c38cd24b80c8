// DeliveryEngine (lib/delivery-engine.cjs): the component's delivery engine
// (docs/engine.md) driven through the package. The wrapper only moves JSON;
// these tests check that what crosses comes back whole, that refusals keep
// the engine's codes, and that the engine runs on the package's artifact.
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeliveryEngine, PolicyError, ArtifactError, InMemoryBudgetStore, ManualClock, decide } from '@webhook/retry-policy';

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const T = 1_800_000_000_000;
const DOCUMENT = {
  version: 't1',
  classes: { n: { window_ms: 60_000, hard_cap: 4, backoff: { base_ms: 1000, factor: 2.0, cap_ms: 60_000, jitter: 'none' } } },
};
const admit = (id, nowMs = T) => ({ op: 'admit', now_ms: nowMs, event_id: id, endpoint_id: 'ep-1', target: 'https://hooks.example.com/ep-1', class: 'n' });
const result = (id, attempt, nowMs, status) => ({ op: 'result', now_ms: nowMs, event_id: id, attempt, status });
const actions = (answer) => answer.outputs.filter((o) => o.action !== 'journal' && o.action !== 'count');
const journal = (answer) => answer.outputs.filter((o) => o.action === 'journal').map((o) => o.line);

// Engines opened by a test, closed after it (Node 20 has no `using`).
const open = [];
const opened = (engine) => (open.push(engine), engine);
afterEach(() => open.splice(0).forEach((e) => e.close()));

/** `f()` throws a PolicyError with `code` (and `field`); returns it. */
function refused(f, code, field) {
  let error;
  assert.throws(f, (e) => {
    error = e;
    return e instanceof PolicyError;
  });
  assert.equal(error.code, code, error.message);
  if (field !== undefined) assert.equal(error.field, field, error.message);
  return error;
}

test('a 503 then a 200 through feed (memory_store) delivers the event on its second attempt', () => {
  const engine = opened(DeliveryEngine.open({ document: DOCUMENT, memory_store: true }));
  const first = engine.feed([admit('ev-1')]);
  assert.deepEqual(first.errors, []);
  assert.deepEqual(actions(first).map((o) => [o.action, o.attempt]), [['send', 1]]);
  assert.equal(first.timeout_ms, null);

  const failed = engine.feed([result('ev-1', 1, T + 10, 503)]);
  assert.deepEqual(failed.errors, []);
  assert.deepEqual(actions(failed), [], 'memory_store: no store_call crosses');
  assert.equal(failed.timeout_ms, T + 10 + 1000, 'the retry is due after base_ms');

  const due = engine.feed([{ op: 'tick', now_ms: failed.timeout_ms }]);
  assert.deepEqual(actions(due).map((o) => [o.action, o.event_id, o.attempt]), [['send', 'ev-1', 2]]);

  const ok = engine.feed([result('ev-1', 2, T + 2000, 200)]);
  assert.deepEqual(actions(ok), [{ action: 'delivered', event_id: 'ev-1', attempts: 2 }]);
  assert.deepEqual(ok.errors, []);
  assert.equal(ok.timeout_ms, null);
});

test('an input the engine refuses comes back as its code in errors, and the rest of the batch still runs', () => {
  const engine = opened(DeliveryEngine.open({ document: DOCUMENT, memory_store: true }));
  engine.feed([admit('ev-1')]);
  const answer = engine.feed([{ op: 'tick', now_ms: T - 1 }, result('nope', 1, T + 1, 200), admit('ev-1', T + 2), result('ev-1', 1, T + 3, 200)]);
  assert.deepEqual(answer.errors.map((e) => [e.index, e.error]), [[0, 'time_went_backwards'], [1, 'unknown_event'], [2, 'duplicate_event']]);
  assert.match(answer.errors[0].message, /^time_went_backwards: now_ms 1799999999999 is before 1800000000000/);
  assert.deepEqual(actions(answer), [{ action: 'delivered', event_id: 'ev-1', attempts: 1 }]);
});

test('a closed engine is refused with a PolicyError carrying the engine\'s code, and closing twice is harmless', () => {
  const engine = DeliveryEngine.open({ document: DOCUMENT, memory_store: true });
  engine.feed([admit('ev-1')]);
  engine.close();
  engine.close();
  const e = refused(() => engine.feed([{ op: 'tick', now_ms: T }]), 'invalid_input', 'handle');
  assert.match(e.detail, /not a live engine/);
  refused(() => engine.resume(T, new Uint8Array()), 'invalid_input', 'handle');
  // Its slot is reused by the next engine, whose handle differs: the stale one stays refused.
  const next = opened(DeliveryEngine.open({ document: DOCUMENT }));
  assert.deepEqual(next.feed([]).errors, []);
  refused(() => engine.feed([]), 'invalid_input', 'handle');
});

test('a refused config or batch is a PolicyError with the engine\'s code and field', () => {
  refused(() => DeliveryEngine.open({ document: DOCUMENT, max_in_flight: 0 }), 'invalid_input', 'max_in_flight');
  refused(() => DeliveryEngine.open({ document: DOCUMENT, memory: true }), 'invalid_input', 'memory');
  refused(() => DeliveryEngine.open({ document: '{' }), 'invalid_document', '');
  const factor = { classes: { n: { window_ms: 60_000, backoff: { base_ms: 1000, factor: 0.5, cap_ms: 1000 } } } };
  refused(() => DeliveryEngine.open({ document: factor }), 'invalid_backoff', 'classes.n.backoff.factor');
  const engine = opened(DeliveryEngine.open(JSON.stringify({ document: DOCUMENT })));
  refused(() => engine.feed('{}'), 'invalid_input', '');
  refused(() => engine.feed('[1'), 'invalid_document', '');
  refused(() => engine.feed(undefined), 'invalid_input', 'inputs');
  const cycle = [];
  cycle.push(cycle);
  refused(() => engine.feed(cycle), 'invalid_input', 'inputs');
  refused(() => DeliveryEngine.open(), 'invalid_input', 'config');
});

test('integers cross exactly: a safe bigint as a number, one beyond 2^53 - 1 refused unless passed as JSON text', () => {
  const engine = opened(DeliveryEngine.open({ document: DOCUMENT, memory_store: true }));
  assert.deepEqual(actions(engine.feed([admit('ev-1', BigInt(T))])).map((o) => o.action), ['send']);
  refused(() => engine.feed([{ op: 'tick', now_ms: 2n ** 60n }]), 'invalid_input', 'now_ms');
  const answer = engine.feed(`[{"op":"tick","now_ms":${2n ** 60n}}]`);
  assert.deepEqual(answer.errors, [], 'the engine takes a u64 as JSON text');
  refused(() => engine.resume(-1, ''), 'invalid_input', 'now_ms');
  refused(() => engine.resume(T, 42), 'invalid_input', 'journal');
});

test('resume from the journal bytes of one engine gives another engine its pending event', () => {
  const a = opened(DeliveryEngine.open({ document: DOCUMENT, memory_store: true }));
  const lines = journal(a.feed([admit('ev-1')]));
  const retry = a.feed([result('ev-1', 1, T + 10, 503)]);
  lines.push(...journal(retry));

  const b = opened(DeliveryEngine.open({ document: DOCUMENT, memory_store: true }));
  const resumed = b.resume(T + 20, Buffer.from(lines.join('')));
  assert.deepEqual(resumed.errors, []);
  assert.equal(resumed.timeout_ms, retry.timeout_ms, 'the retry is due when it was in the first engine');
  const due = b.feed([{ op: 'tick', now_ms: retry.timeout_ms }]);
  assert.deepEqual(actions(due).map((o) => [o.action, o.event_id, o.attempt]), [['send', 'ev-1', 2]]);
  b.feed([admit('ev-2', retry.timeout_ms)]);
  assert.equal(b.resume(retry.timeout_ms, '').errors[0].error, 'resume_too_late', 'a resume after an admission');
});

test('an engine fed from inside another call on its instance (a store callback) is refused, never re-entered', () => {
  const engine = opened(DeliveryEngine.open({ document: DOCUMENT, memory_store: true }));
  const memory = new InMemoryBudgetStore();
  let inside = null;
  const store = {
    call(request, budget, nowMs) {
      try {
        engine.feed([admit('ev-inside')]);
      } catch (e) {
        inside = e;
      }
      return memory.call(request, budget, nowMs);
    },
  };
  const policy = { window_ms: 60_000, hard_cap: 4, backoff: DOCUMENT.classes.n.backoff, budget: { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true } };
  const state = { event_id: 'd', endpoint_id: 'ep-1', attempt: 1, max_attempts: 4, first_attempted_at_ms: T, credentials_refreshed: false };
  decide(policy, state, { status: 503 }, { store, clock: new ManualClock(T + 5) });
  assert.ok(inside instanceof PolicyError, `the store saw ${inside}`);
  assert.equal(inside.field, 'handle');
  assert.match(inside.detail, /instance is not available/);
  // Outside the call, the engine is whole and never saw the refused batch.
  assert.deepEqual(actions(engine.feed([admit('ev-inside', T + 6)])).map((o) => o.action), ['send']);
});

test('the engine loads through the package\'s artifact loader: RETRY_POLICY_ARTIFACT names the file', () => {
  const script = `
    const { DeliveryEngine, artifactInfo } = require('@webhook/retry-policy');
    try {
      const e = DeliveryEngine.open(${JSON.stringify(JSON.stringify({ document: DOCUMENT }))});
      console.log(JSON.stringify({ source: artifactInfo().source, errors: e.feed([]).errors }));
    } catch (err) { console.log(JSON.stringify({ name: err.name, code: err.code })); }`;
  const run = (artifactPath) =>
    JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: pkg, encoding: 'utf8', env: { ...process.env, RETRY_POLICY_ARTIFACT: artifactPath } }));
  const copy = path.join(pkg, 'lib', 'retry_policy.wasm');
  assert.deepEqual(run(copy), { source: copy, errors: [] });
  const missing = run(path.join(pkg, 'no-such-artifact.wasm'));
  assert.equal(missing.name, ArtifactError.name);
  assert.equal(missing.code, 'artifact_unreadable');
});
