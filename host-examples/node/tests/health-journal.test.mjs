// Format 3's durable holds and replays (docs/health-dispatch.md sections 3
// and 4, journal format 2): a held event survives a restart and is
// delivered after resume; replay chooses by endpoint, reason and time range,
// writes `~r<n>` ids, replays nothing twice (even interrupted between its
// commit and its `replayed_as` record), and replays leave paced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ManualClock } from '@webhook/retry-policy';
import { Journal, readJournalFile } from '../examples/dispatcher/journal.mjs';
import { admittedRecord, stoppedRecord } from '../examples/dispatcher/journal-record.mjs';
import { HealthPolicy } from '../examples/dispatcher/health-policy.mjs';
import { replayDeadLetters, replayId } from '../examples/dispatcher/replay.mjs';
import { T0, healthDoc, setup } from './health-fixtures.mjs';

const tmp = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'health-journal-')), 'events.journal');
const MAIN = new URL('../examples/replica/main.mjs', import.meta.url).pathname;

test('a held event survives a restart (journal) and is delivered after resume', async () => {
  const file = tmp();
  const clock = new ManualClock(T0);
  const pauseEnds = T0 + 30_000;
  let journal = new Journal(file, { nowMs: T0 });
  const a = await setup(healthDoc(), (_p, _now, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '30' } } : { status: 204 }), { journal }, clock);
  try {
    const first = a.deliver('e1');
    await a.scheduler.idle();
    const held = a.deliver('e2'); // paused: held until the pause ends
    await a.scheduler.idle();
    a.dispatcher.drain(); // the process stops: both are left pending in the journal
    const results = await Promise.all([first, held]);
    assert.deepEqual(results.map((r) => r.pending), [true, true]);
    await journal.close();
  } finally {
    a.dispatcher.close();
    a.policy.close(); // the receiver stays: the records' target
  }
  const onDisk = Object.fromEntries(readJournalFile(file).map((r) => [r.event_id, r]));
  assert.equal(onDisk.e2.status, 'held');
  assert.deepEqual([onDisk.e2.hold_reason, onDisk.e2.held_until_ms, onDisk.e2.held_since_ms], ['paused', pauseEnds, T0]);
  clock.set(T0 + 10_000); // restarted before the pause ends
  journal = new Journal(file, { nowMs: clock.nowMs() });
  const b = await setup(healthDoc(), () => ({ status: 204 }), { journal }, clock);
  try {
    const runs = journal.events().filter((r) => r.status === 'pending' || r.status === 'held').map((r) => b.resume(r));
    const go = b.scheduler.run();
    const results = await Promise.all(runs);
    await go;
    assert.deepEqual(results.map((r) => r.stop_reason), ['delivered', 'delivered']);
    const e2 = a.receiver.requests.find((r) => r.event_id === 'e2');
    assert.ok(e2.at_ms >= pauseEnds, `e2 sent at +${e2.at_ms - T0} ms, before the pause's end`);
    await journal.close();
  } finally {
    await b.close();
    await a.receiver.close();
  }
  const after = Object.fromEntries(readJournalFile(file).map((r) => [r.event_id, r]));
  assert.equal(after.e2.status, 'delivered');
  assert.ok(after.e2.held_ms >= 30_000, `held_ms ${after.e2.held_ms}`);
});

/** A journal holding dead letters `[id, endpoint_id, stop_reason, finished_at_ms]` admitted under `doc`. */
async function deadLetters(file, doc, specs, url = 'http://127.0.0.1:9/x') {
  const policy = new HealthPolicy(doc, { clock: { nowMs: () => T0 } });
  const j = new Journal(file, { nowMs: T0 });
  for (const [id, ep, reason, at] of specs) {
    const c = policy.compiled('storm');
    const rec = admittedRecord({ id, endpoint_id: ep, url, class: 'storm' }, policy.admit('storm', T0), c.toJSON(), T0, Buffer.from(`{"id":"${id}"}`), c.health);
    await j.append(rec);
    const dl = { event_id: id, endpoint_id: ep, attempts: 1, elapsed_ms: at - T0, stop_reason: reason };
    await j.append({ ...rec, ...stoppedRecord({ stop_reason: reason, dead_letter: dl }, 1, '503', at, rec.target) });
  }
  policy.close();
  return j;
}

test('replay chooses dead letters by endpoint, reason and time range, in journal order, as <id>~r<n> under the current policy', async () => {
  const file = tmp();
  const j = await deadLetters(file, healthDoc(), [
    ['a', 'ep-1', 'retry_window_elapsed', T0 + 1000],
    ['b', 'ep-2', 'retry_window_elapsed', T0 + 2000],
    ['c', 'ep-1', 'max_attempts_exhausted', T0 + 3000],
    ['d~r1', 'ep-1', 'retry_window_elapsed', T0 + 4000],
    ['e', 'ep-1', 'retry_window_elapsed', T0 + 5000],
  ]);
  const current = new HealthPolicy(healthDoc({}, undefined, 900_000), { clock: { nowMs: () => T0 + 9000 } });
  try {
    const filter = { endpoint_id: 'ep-1', stop_reason: 'retry_window_elapsed', from_ms: T0 + 1000, to_ms: T0 + 5000 };
    const got = await replayDeadLetters(j, current, filter, T0 + 9000);
    assert.deepEqual(got, { replayed: 2, already_replayed: 0, skipped_no_class: 0, ids: ['a~r1', 'd~r2'] });
    const r = j.event('a~r1');
    assert.deepEqual([r.status, r.attempts, r.replay_of, r.replayed_dead_letter.event_id, r.next_attempt_at_ms, r.first_attempted_at_ms], ['pending', 0, 'a', 'a', T0 + 9000, T0 + 9000]);
    assert.equal(r.deadline_ms, T0 + 9000 + 900_000, "the current document's window");
    assert.equal(r.body_b64, Buffer.from('{"id":"a"}').toString('base64'));
    assert.equal(j.event('a').replayed_as, 'a~r1');
    // again: nothing is replayed twice
    const again = await replayDeadLetters(j, current, filter, T0 + 9500);
    assert.deepEqual(again, { replayed: 0, already_replayed: 2, skipped_no_class: 0, ids: [] });
    // a limit, and a class the current document lacks
    const other = new HealthPolicy({ version: 'o', classes: { other: healthDoc().classes.storm } }, { clock: { nowMs: () => T0 } });
    assert.deepEqual(await replayDeadLetters(j, other, { limit: 1 }, T0 + 9000), { replayed: 0, already_replayed: 1, skipped_no_class: 1, ids: [] }, 'a already, b skipped, then the limit');
    other.close();
    assert.equal(replayId('x~r9'), 'x~r10');
  } finally {
    current.close();
    await j.close();
  }
});

test('an interrupted replay (killed after its commit record, before the replayed_as record) replays nothing twice', async () => {
  const file = tmp();
  const j = await deadLetters(file, healthDoc(), [['a', 'ep-1', 'retry_window_elapsed', T0 + 1000], ['b', 'ep-1', 'retry_window_elapsed', T0 + 2000]]);
  const current = new HealthPolicy(healthDoc(), { clock: { nowMs: () => T0 } });
  try {
    assert.equal((await replayDeadLetters(j, current, {}, T0 + 5000)).replayed, 2);
  } finally {
    await j.close();
  }
  // The crash: the last line (b's replayed_as record) never reached the disk.
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  assert.equal(JSON.parse(lines.at(-1).slice(9)).replayed_as, 'b~r1');
  fs.writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n`);
  const k = new Journal(file);
  try {
    assert.equal(k.event('b').replayed_as, null);
    assert.equal(k.replayedAs('b'), 'b~r1', "derived from the replay's replay_of");
    assert.deepEqual(await replayDeadLetters(k, current, {}, T0 + 6000), { replayed: 0, already_replayed: 2, skipped_no_class: 0, ids: [] });
  } finally {
    current.close();
    await k.close();
  }
});

test('replays resumed leave paced: each is held at its first gate and spends a release token', async () => {
  const file = tmp();
  const clock = new ManualClock(T0 + 1000);
  const t = await setup(healthDoc(), () => ({ status: 204 }), {}, clock);
  const j = await deadLetters(file, healthDoc(), [['a', 'ep-1', 'retry_window_elapsed', T0], ['b', 'ep-1', 'retry_window_elapsed', T0], ['c', 'ep-1', 'retry_window_elapsed', T0]], t.receiver.url('/r'));
  const current = new HealthPolicy(healthDoc(), { clock: { nowMs: () => T0 } });
  await replayDeadLetters(j, current, {}, T0 + 1000);
  current.close();
  try {
    const runs = j.events().filter((r) => r.status === 'pending').map((r) => t.resume(r));
    const go = t.scheduler.run();
    const results = await Promise.all(runs);
    await go;
    assert.deepEqual(results.map((r) => r.stop_reason), ['delivered', 'delivered', 'delivered']);
    const at = t.receiver.requests.map((r) => r.at_ms - T0).sort((x, y) => x - y);
    assert.deepEqual(at, [1000, 2000, 3000], 'one release token per second (floor_per_s 1)');
    assert.ok(t.metrics.get('webhook_holds_total', { reason: 'release_pacing' }) >= 2);
    assert.equal(t.metrics.get('webhook_attempts_total', { kind: 'first' }), 3);
  } finally {
    await j.close();
    await t.close();
  }
});

test('replica replay prints one JSON line and exits 0; a bad flag or an unreadable policy exits 2', async () => {
  const file = tmp();
  const j = await deadLetters(file, healthDoc(), [['a', 'ep-1', 'retry_window_elapsed', T0 + 1000], ['b', 'ep-2', 'terminal_response', T0 + 2000]]);
  await j.close();
  const policyFile = path.join(path.dirname(file), 'policy.json');
  fs.writeFileSync(policyFile, JSON.stringify(healthDoc()));
  const run = (...args) => spawnSync(process.execPath, [MAIN, 'replay', ...args], { encoding: 'utf8', timeout: 30_000 });
  const ok = run('--store', file, '--policy', policyFile, '--reason', 'terminal_response', '--now-ms', String(T0 + 5000));
  assert.equal(ok.status, 0, ok.stderr);
  assert.deepEqual(ok.stdout.trim().split('\n').map((l) => JSON.parse(l)), [{ replayed: 1, already_replayed: 0, skipped_no_class: 0, ids: ['b~r1'] }]);
  for (const bad of [['--store', file, '--policy', policyFile, '--limit', '-1'], ['--store', file, '--policy', `${policyFile}.missing`], ['--store', file, '--policy', policyFile, '--bogus', '1'], ['--policy', policyFile]]) {
    const r = run(...bad);
    assert.equal(r.status, 2, `${bad.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.equal(r.stdout, '');
  }
  assert.equal(readJournalFile(file).filter((r) => r.replay_of !== null).length, 1, 'the failed runs wrote nothing');
});
