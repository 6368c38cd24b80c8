// A resumed run offered an id its journal already holds (the replica's ids
// are `<lang>-<pid>-<i>`: a reused pid): the engine refuses the admission
// `duplicate_event` and changes nothing, so the driver must not either. The
// resumed event stays open and pending until it stops, counted once (as
// resumed); the run does not finish while it waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { DeliveryEngine } from '@webhook/retry-policy';
import { Driver } from '../examples/dispatcher/driver.mjs';
import { Sender } from '../examples/dispatcher/send.mjs';
import { Metrics } from '../examples/dispatcher/metrics.mjs';

// A retry waits an hour: the resumed event is still waiting when the test drains.
const DOC = { version: 'dup-1', classes: { storm: { window_ms: 7_200_000, hard_cap: 3, backoff: { base_ms: 3_600_000, factor: 2.0, cap_ms: 3_600_000, jitter: 'none' }, budget: { ratio: 1.0, window_ms: 60_000, min_sample: 0, sliding: true } } } };

test('an admission refused duplicate_event leaves the resumed event open, counted once, and the run waits for it', async (t) => {
  const seen = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(req.headers['x-event-id']);
      res.writeHead(204).end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const target = `http://127.0.0.1:${server.address().port}/hook`;

  // A journal from an earlier run: d0 answered 503, its retry an hour away.
  const earlier = new DeliveryEngine({ document: DOC, memory_store: true });
  const now = Date.now();
  const lines = [];
  const feed = (inputs) => lines.push(...earlier.feed(inputs).outputs.filter((o) => o.action === 'journal').map((o) => o.line));
  feed([{ op: 'admit', now_ms: now - 1000, event_id: 'd0', endpoint_id: 'ep', target, class: 'storm' }]);
  feed([{ op: 'result', now_ms: now - 990, event_id: 'd0', attempt: 1, status: 503 }]);
  earlier.close();

  const metrics = new Metrics();
  const engine = new DeliveryEngine({ document: DOC, memory_store: true, max_open: 4 });
  const logs = [];
  const ids = ['d0', 'd1', 'd2'];
  let driver;
  const sender = new Sender({ nowMs: () => driver.nowMs(), metrics, attemptDeadlineMs: 5000, allowPrivateTargets: true });
  driver = new Driver({
    engine, sender, metrics, log: (l) => logs.push(l), concurrency: 4,
    nextEvent: () => (ids.length > 0 ? { event_id: ids.shift(), endpoint_id: 'ep', target, class: 'storm' } : null),
  });
  assert.equal(driver.resume(Buffer.from(lines.join('')), { own: true }), null);
  assert.equal(driver.resumed, 1);
  const ran = driver.run();
  let settled = null;
  ran.then((r) => { settled = r; });
  // Until d1 and d2 are delivered (10 s at most), then drain: d0 still waits for its retry.
  for (let i = 0; i < 1000 && (driver.stopReasons.get('delivered') ?? 0) < 2; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(driver.stopReasons.get('delivered'), 2, 'd1 and d2 delivered');
  assert.equal(settled, null, 'the run went on: the resumed d0 is still open');
  driver.drain(2000);
  const result = await ran;
  driver.close();
  engine.close();
  assert.equal(result.how, 'drained');
  assert.equal(driver.open, 1, 'd0 is pending');
  assert.equal(driver.admitted, 2, 'the refused admission is no event of this run');
  assert.equal(driver.resumed, 1);
  assert.deepEqual(seen.sort(), ['d1', 'd2'], 'd0 was not sent again');
  assert.equal(logs.filter((l) => /duplicate_event/.test(l)).length, 1, logs.join('\n'));
});
