// A document's depth is the component's rule (policy-core json::MAX_DEPTH:
// a value deeper than 32 levels is refused as invalid_document at "",
// before anything else): an object document is copied and written as JSON
// text, never refused for its depth in JavaScript, so it is refused exactly
// as its text is (the differential's regression parse_document/5/1488).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadHealthDocument, RetryPolicy, PolicyError } from '@webhook/retry-policy';

const CLASS = { window_ms: 60_000, backoff: { base_ms: 1000, factor: 2.0, cap_ms: 1000, jitter: 'full' } };

/** `{x: {x: ... 1}}` whose innermost value is `levels` below it. */
function nest(levels) {
  let v = 1;
  for (let i = 0; i < levels; i++) v = { x: v };
  return v;
}

/** A format-3 document whose deepest value sits at `depth` (root 0; classes.b.health.circuit is at 4). */
const deepHealth = (depth) => ({ classes: { a: CLASS, b: { ...CLASS, health: { cache_ms: 1000, circuit: nest(depth - 4) } } } });

/** A format-2 document whose deepest value sits at `depth` (classes.a.extra is at 3). */
const deepPolicy = (depth) => ({ classes: { a: { ...CLASS, extra: nest(depth - 3) } } });

function refusal(f) {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof PolicyError, `${e && e.stack}`);
    return { error: e.code, field: e.field };
  }
  return 'accepted';
}

test('a format-3 document deeper than 32 levels is invalid_document at "", as an object and as text', () => {
  for (const depth of [33, 34, 35, 40, 64]) {
    const doc = deepHealth(depth);
    assert.deepEqual(refusal(() => loadHealthDocument(doc)), { error: 'invalid_document', field: '' }, `depth ${depth}`);
    assert.deepEqual(refusal(() => loadHealthDocument(JSON.stringify(doc))), { error: 'invalid_document', field: '' }, `depth ${depth} (text)`);
  }
});

test('an object document and its JSON text are refused alike at every depth from 28 to 40', () => {
  for (let depth = 28; depth <= 40; depth++) {
    for (const [load, doc] of [
      [loadHealthDocument, deepHealth(depth)],
      [(d) => new RetryPolicy(d), deepPolicy(depth)],
    ]) {
      const asObject = refusal(() => load(doc));
      assert.notEqual(asObject, 'accepted', `depth ${depth}`);
      assert.deepEqual(asObject, refusal(() => load(JSON.stringify(doc))), `depth ${depth}`);
      // at most 32 deep: the component's refusal names the bad field, not the depth
      if (depth <= 32) assert.notEqual(asObject.field, '', `depth ${depth}`);
      else assert.equal(asObject.field, '', `depth ${depth}`);
    }
  }
});

test('a cyclic document is refused as invalid_document, never a stack overflow', () => {
  const loop = { window_ms: 60_000 };
  loop.self = loop;
  assert.deepEqual(refusal(() => loadHealthDocument({ classes: { a: loop } })), { error: 'invalid_document', field: '' });
  assert.deepEqual(refusal(() => new RetryPolicy({ classes: { a: loop } })), { error: 'invalid_document', field: '' });
});
