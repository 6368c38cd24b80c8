// The dispatcher on a format-1 journal (docs/journal.md): every attempt
// finds its event's record already in the journal (admitted, or its retry
// scheduled) and the stop is journaled before the dead letter is reported;
// a journaled record is resumed under its own policy, not the dispatcher's
// document; appends waiting together share an fdatasync (group commit).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { RetryPolicy, ManualClock } from '@webhook/retry-policy';
import { Metrics } from '../examples/dispatcher/metrics.mjs';
import { Dispatcher, virtualScheduler } from '../examples/dispatcher/dispatcher.mjs';
import { Journal, readJournalFile } from '../examples/dispatcher/journal.mjs';
import { admittedRecord, hashDocument } from '../examples/dispatcher/journal-record.mjs';

const tmp = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dispatcher-journal-')), 'events.journal');
const doc = (windowMs) => ({ version: `w${windowMs}`, classes: { notification: { window_ms: windowMs, hard_cap: 4, backoff: { base_ms: 1000, factor: 2.0, cap_ms: 4000, jitter: 'none' } } } });
const servers = [];
after(() => servers.forEach((s) => s.close()));

/** An endpoint answering `status`; `onRequest(eventId, attempt)` runs before it answers. */
async function endpoint(status, onRequest) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      onRequest(req.headers['x-event-id'], Number(req.headers['x-attempt']));
      res.writeHead(status).end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${server.address().port}/hook`;
}

function setup(document, journal) {
  const clock = new ManualClock(1_800_000_000_000);
  const policy = new RetryPolicy(document, { clock });
  const admittedPolicy = (rec) => new RetryPolicy(hashDocument(rec), { clock });
  const dispatcher = new Dispatcher(policy, { metrics: new Metrics(), scheduler: virtualScheduler(clock), allowPrivateTargets: true, journal, admittedPolicy });
  return { clock, policy, dispatcher };
}

test('each attempt finds its event journaled first, and the stop is journaled before the dead letter is reported', async () => {
  const file = tmp();
  const journal = new Journal(file);
  const seen = []; // [attempt, attempts in the journal when it arrived]
  const url = await endpoint(503, (id, attempt) => seen.push([attempt, readJournalFile(file).find((r) => r.event_id === id)?.attempts ?? null]));
  const { dispatcher } = setup(doc(60_000), journal);
  const d = await dispatcher.deliver({ id: 'ev-1', class: 'notification', endpoint_id: 'ep', url: `${url}?token=secret`, body: { n: 1 } });
  assert.equal(d.stop_reason, 'max_attempts_exhausted');
  assert.deepEqual(seen, [[1, 0], [2, 1], [3, 2], [4, 3]], 'attempt n finds the record of n - 1 attempts');
  const [rec] = readJournalFile(file);
  assert.equal(rec.status, 'dead_lettered');
  assert.equal(rec.attempts, 4);
  assert.deepEqual(rec.dead_letter, { event_id: 'ev-1', endpoint_id: 'ep', attempts: 4, elapsed_ms: rec.dead_letter.elapsed_ms, stop_reason: 'max_attempts_exhausted' });
  assert.equal(rec.target, url, 'a stopped record keeps no query');
  assert.equal(Buffer.from(rec.body_b64, 'base64').toString(), '{"n":1}');
  await journal.close();
});

test('a journaled record is resumed under its own policy, not the dispatcher\'s document', async () => {
  const file = tmp();
  const journal = new Journal(file);
  const got = [];
  const url = await endpoint(503, (id, attempt) => got.push(`${id}#${attempt}`));
  const { dispatcher, clock } = setup(doc(500), journal); // the current document: a 500 ms window
  const long = new RetryPolicy(doc(60_000));
  const event = { id: 'ev-long', class: 'notification', endpoint_id: 'ep', url };
  const rec = admittedRecord(event, long.admit('notification', clock.nowMs() - 2_000), long.policy('notification').toJSON(), 0, Buffer.from('{"payload":true}'));
  Object.assign(rec, { attempts: 1, last_outcome: '503', next_attempt_at_ms: clock.nowMs() - 1_000 });
  const d = await dispatcher.resumeRecord(rec);
  assert.equal(d.stop_reason, 'max_attempts_exhausted', 'under a 500 ms window it would have stopped at once');
  assert.deepEqual(got, ['ev-long#2', 'ev-long#3', 'ev-long#4']);
  const [after] = readJournalFile(file);
  assert.deepEqual([after.policy.window_ms, after.policy_hash, after.first_attempted_at_ms], [60_000, rec.policy_hash, rec.first_attempted_at_ms]);
  await journal.close();
});

test('appends waiting together share an fdatasync (group commit)', async () => {
  const journal = new Journal(tmp());
  const policy = new RetryPolicy(doc(60_000));
  const recs = Array.from({ length: 50 }, (_, i) => admittedRecord({ id: `ev-${i}`, class: 'notification', endpoint_id: 'ep', url: 'https://hooks.example.com/' }, policy.admit('notification', 1), policy.policy('notification').toJSON(), 1, null));
  await Promise.all(recs.map((r) => journal.append(r)));
  assert.ok(journal.syncs >= 1 && journal.syncs <= 2, `${journal.syncs} fdatasyncs for 50 appends waiting together`);
  await journal.close();
});
