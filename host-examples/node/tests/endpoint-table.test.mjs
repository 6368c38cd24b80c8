// The per-endpoint table of a format-3 dispatcher (docs/health-dispatch.md
// section 1): bounded (least recently used dropped), the newest view kept,
// admissions counted in the budget's buckets and rolled forward.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EndpointTable } from '../examples/dispatcher/endpoint-table.mjs';

test('the endpoint table keeps at most its bound (least recently used dropped), the newest view, and admissions rolled per bucket', () => {
  const t = new EndpointTable(3);
  for (const ep of ['a', 'b', 'c']) t.entry(ep);
  t.entry('a'); // a is now the most recent
  t.keepView('d', { paused_until_ms: 0, opened_at_ms: 0, cooldown_ms: 0, closed_at_ms: 0, as_of_ms: 10 });
  assert.equal(t.size, 3);
  assert.equal(t.entry('b').view, null, 'b was dropped: a new entry');
  t.keepView('d', { paused_until_ms: 5, opened_at_ms: 0, cooldown_ms: 0, closed_at_ms: 0, as_of_ms: 9 });
  assert.equal(t.entry('d').view.as_of_ms, 10, 'an older reply does not replace the view');
  const budget = { ratio: 0.1, window_ms: 1000, min_sample: 0, sliding: false };
  t.countAdmission('a', budget, 5_000);
  t.countAdmission('a', budget, 5_500);
  assert.deepEqual(t.entry('a').admissions, { bucket: 5, current: 2, previous: 0 });
  assert.equal(t.pacerFor('a', budget, 6_100).normal_per_s, 0, 'not sliding: the previous bucket weighs 0');
  assert.deepEqual(t.entry('a').admissions, { bucket: 6, current: 0, previous: 2 });
  t.countAdmission('a', budget, 9_000);
  assert.deepEqual(t.entry('a').admissions, { bucket: 9, current: 1, previous: 0 });
  assert.equal(t.pacerFor('a', budget, 9_000).normal_per_s, 1);
});
