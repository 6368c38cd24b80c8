// The three rewrites scripts/faster-glue.cjs makes of jco's glue (issue 26)
// keep what jco's glue does: memory views rebuilt when the guest's memory
// grows, short ASCII strings written byte by byte (anything else through
// TextEncoder), u64 numbers stored as two 32-bit halves (anything else as a
// BigInt). Each test here fails on a glue with the matching rewrite broken
// (host-examples/node/README.md "Where a step's time goes" says how each
// was shown).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { evaluate, settle } from '@webhook/retry-policy';

const require = createRequire(import.meta.url);
const { faster } = require('../scripts/faster-glue.cjs');

const POLICY = {
  backoff: { base_ms: 1000, factor: 2, cap_ms: 60_000, jitter: 'none' },
  window_ms: 3_600_000,
  hard_cap: 20,
  budget: { ratio: 0.5, window_ms: 1000, min_sample: 0, sliding: true },
};
const state = (over = {}) => ({ event_id: 'evt_1', endpoint_id: 'ep_1', attempt: 1, max_attempts: 10, first_attempted_at_ms: 1_000, credentials_refreshed: false, ...over });
/** A state whose step stops with a dead letter (max_attempts reached): the ids come back from the guest. */
const exhausted = (over = {}) => state({ attempt: 3, max_attempts: 3, ...over });

test('ids of every length around the ASCII fast path (0..257 and longer), and with non-ASCII anywhere, reach the component and come back unchanged', () => {
  const ascii = (n) => Array.from({ length: n }, (_, i) => String.fromCharCode(0x20 + (i % 95))).join('');
  const ids = [];
  for (const n of [0, 1, 2, 7, 64, 255, 256, 257, 1000]) ids.push(ascii(n));
  for (const odd of ['\u007f', '\u0080', 'é', '\u00ff', '\u0100', '\u{1F600}', '\ufeff']) {
    ids.push(`${odd}evt`, `ev${odd}t`, `evt${odd}`, ascii(255) + odd, odd + ascii(256));
  }
  for (const id of ids) {
    const request = evaluate(POLICY, state({ endpoint_id: id }), { status: 503 }, 5_000).store;
    assert.equal(request.endpoint_id, id, `store request endpoint_id of length ${id.length}`);
    const dead = evaluate(POLICY, exhausted({ event_id: id, endpoint_id: id }), { status: 503 }, 5_000).decision.dead_letter;
    assert.equal(dead.event_id, id, `dead letter event_id of length ${id.length}`);
    assert.equal(dead.endpoint_id, id, `dead letter endpoint_id of length ${id.length}`);
    const kind = evaluate(POLICY, state(), { error_kind: id }, 5_000);
    assert.ok(kind.decision !== undefined, 'an error kind of any content is judged');
  }
  // a lone surrogate is not ASCII: TextEncoder makes it U+FFFD, as jco's glue always did
  assert.equal(evaluate(POLICY, state({ endpoint_id: 'a\ud800' }), { status: 503 }, 5_000).store.endpoint_id, 'a\ufffd');
});

test('u64 fields at 2^32 - 1, 2^32, 2^53 - 1 and as bigints up to 2^64 - 1 reach the component exactly', () => {
  const nows = [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 52 + 3, 2 ** 53 - 1, 2n ** 53n, 2n ** 63n + 5n, 2n ** 64n - 1n];
  for (const now of nows) {
    const n = BigInt(now);
    // the store request's bucket is floor(now / budget.window_ms), computed by the component
    const request = evaluate(POLICY, state({ first_attempted_at_ms: now }), { status: 503 }, now).store;
    const bucket = n / 1000n;
    assert.equal(BigInt(request.bucket), bucket, `bucket at now ${now}`);
    assert.equal(typeof request.bucket, bucket > BigInt(Number.MAX_SAFE_INTEGER) ? 'bigint' : 'number');
    // a dead letter's elapsed_ms is now - first_attempted_at_ms, both u64 fields of the arguments
    for (const back of [0n, 1n, 4_294_967_296n, 1_000_000_007n]) {
      if (back > n) continue;
      const first = n - back <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n - back) : n - back;
      const dead = evaluate(POLICY, exhausted({ first_attempted_at_ms: first }), { status: 503 }, now).decision.dead_letter;
      if (dead === undefined) continue; // past the window: another reason, no elapsed to check
      assert.equal(BigInt(dead.elapsed_ms), back, `elapsed from ${first} to ${now}`);
    }
  }
  // the policy's u64s: a cap above one day is refused, also when its low 32 bits alone would be a valid cap
  for (const cap of [2 ** 32 + 1000, 2 ** 33 + 60_000, 2 ** 53 - 1, 2n ** 63n + 1000n, 2n ** 64n - 1n]) {
    const policy = { ...POLICY, backoff: { ...POLICY.backoff, cap_ms: cap } };
    assert.throws(() => evaluate(policy, state(), { status: 503 }, 5_000), { code: 'invalid_backoff', field: 'policy.backoff.cap_ms' }, `cap_ms ${cap}`);
  }
});

test('a step whose ids make the guest grow its memory mid-call decides as one with short ids, and the next step too', () => {
  const before = evaluate(POLICY, exhausted(), { status: 503 }, 5_000).decision;
  for (const mib of [1, 2, 4, 8]) {
    const big = 'x'.repeat(mib * 1024 * 1024);
    const grown = evaluate(POLICY, exhausted({ event_id: big }), { status: 503 }, 5_000).decision;
    assert.equal(grown.dead_letter.event_id.length, big.length);
    assert.ok(grown.dead_letter.event_id === big, `the ${mib} MiB id comes back unchanged`);
    assert.deepEqual({ ...grown, dead_letter: { ...grown.dead_letter, event_id: 'evt_1' } }, before);
    assert.deepEqual(evaluate(POLICY, exhausted(), { status: 503 }, 5_000).decision, before, 'the step after the growth');
  }
});

test('faster-glue refuses a jco output it does not recognise instead of rewriting it half-way', () => {
  assert.throws(() => faster('function instantiate() {}'), /faster-glue: .* u64 stores have the expected shape/);
  const store = '  dataView(memory0).setBigInt64(ptr0 + 0, toUint64(v), true);\n';
  assert.throws(() => faster(store), /faster-glue: expected 1 of/);
  assert.throws(() => faster(`${store}  dataView(memory0).setBigInt64(ptr0 + 8, BigInt(v), true);\n`), /1 of jco's 2 u64 stores/);
});
