// The journal writer (format 1, docs/journal.md): a new journal's header and
// mode, records readable by the reader, group commit, a torn tail cut before
// an append, the pid lock's stale rule, and compaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { RetryPolicy } from '@webhook/retry-policy';
import { Journal, JournalError, COMPACT_MIN_RECORDS, readJournalFile } from '../examples/dispatcher/journal.mjs';
import { admittedRecord, FORMAT } from '../examples/dispatcher/journal-record.mjs';

const tmp = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'journal-')), 'events.journal');
const POLICY = new RetryPolicy({ version: 'j-1', classes: { storm: { window_ms: 60_000, hard_cap: 4, backoff: { base_ms: 100, factor: 2.0, cap_ms: 400, jitter: 'full' } } } });

function record(i, status = 'pending') {
  const event = { id: `ev-${i}`, endpoint_id: 'ep-1', url: 'https://hooks.example.com/x?token=t', class: 'storm' };
  const rec = admittedRecord(event, POLICY.admit('storm', 1_000), POLICY.policy('storm').toJSON(), 1_000, Buffer.from(`{"i":${i}}`));
  if (status !== 'pending') {
    const reason = status === 'delivered' ? 'delivered' : 'max_attempts_exhausted';
    Object.assign(rec, { status, attempts: 1, stop_reason: reason, finished_at_ms: 2_000 });
    if (status === 'dead_lettered') rec.dead_letter = { event_id: rec.event_id, endpoint_id: 'ep-1', attempts: 1, elapsed_ms: 1_000, stop_reason: reason };
  }
  return rec;
}

const lines = (file) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l.slice(9)));

test('a new journal starts with its format-2 header, has mode 0600, and its records read back', async () => {
  const file = tmp();
  const j = new Journal(file, { nowMs: 1234 });
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  await Promise.all([j.append(record(1)), j.append(record(2)), j.append(record(1, 'delivered'))]); // one group commit may cover all three
  await j.close();
  assert.deepEqual(lines(file)[0], { v: 2, type: 'header', format: FORMAT, created_at_ms: 1234 });
  const events = readJournalFile(file);
  assert.deepEqual(events.map((r) => [r.event_id, r.status]), [['ev-1', 'delivered'], ['ev-2', 'pending']]);
  assert.ok(!fs.existsSync(`${file}.lock`), 'close removes the lock');
});

test('a torn tail is cut before the next append, so the file stays readable', async () => {
  const file = tmp();
  let j = new Journal(file);
  await j.append(record(1));
  await j.close();
  fs.appendFileSync(file, '1234abcd {"v":1,"type":"ev'); // died mid-write
  j = new Journal(file);
  assert.equal(j.tornBytes, 26);
  await j.append(record(2));
  await j.close();
  assert.deepEqual(readJournalFile(file).map((r) => r.event_id), ['ev-1', 'ev-2']);
});

test('a second writer is refused with journal_locked naming the holder', async () => {
  const file = tmp();
  const j = new Journal(file);
  assert.throws(() => new Journal(file), (e) => e instanceof JournalError && e.code === 'journal_locked' && e.message.includes(`pid ${process.pid}`));
  await j.close();
});

test('a lock left by a killed writer of this host is stale and taken over', async () => {
  const file = tmp();
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: Number(dead), host: os.hostname(), started_at_ms: 1 }));
  const j = new Journal(file);
  assert.equal(JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8')).pid, process.pid);
  await j.close();
});

test('a lock of another host, or one that is not JSON, is never guessed stale', () => {
  const file = tmp();
  fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 999_999_999, host: `not-${os.hostname()}`, started_at_ms: 1 }));
  assert.throws(() => new Journal(file), (e) => e.code === 'journal_locked' && e.message.includes('not-'));
  fs.writeFileSync(`${file}.lock`, '12345');
  assert.throws(() => new Journal(file), (e) => e.code === 'journal_locked' && e.message.includes('unreadable holder'));
});

test('compaction keeps the newest record of each pending or dead-lettered event and drops delivered ones', async () => {
  const file = tmp();
  const j = new Journal(file);
  await j.append(record(0));
  await j.append(record(1, 'dead_lettered'));
  for (let i = 2; j.compactions === 0; i++) {
    assert.ok(i < 2 * COMPACT_MIN_RECORDS, 'no compaction');
    await j.append(record(i));
    await j.append(record(i, 'delivered'));
  }
  assert.ok(j.records < 10, `${j.records} records after compaction`);
  await j.close();
  assert.ok(!fs.existsSync(`${file}.compact`));
  const after = readJournalFile(file);
  // ev-0 and ev-1 kept; of the others only the last one is left (compacted while pending, then delivered)
  assert.deepEqual(after.slice(0, 2).map((r) => [r.event_id, r.status]), [['ev-0', 'pending'], ['ev-1', 'dead_lettered']]);
  assert.equal(after.length, 3);
  assert.equal(lines(file)[0].type, 'header');
});

test('a leftover .compact is deleted at open and the journal is read whole', async () => {
  const file = tmp();
  let j = new Journal(file);
  await j.append(record(1));
  await j.close();
  fs.writeFileSync(`${file}.compact`, 'half a compaction');
  j = new Journal(file);
  assert.ok(!fs.existsSync(`${file}.compact`));
  assert.equal(j.events().length, 1);
  await j.close();
});

test('an append after close is journal_io, not a crash', async () => {
  const j = new Journal(tmp());
  await j.close();
  await assert.rejects(j.append(record(1)), (e) => e instanceof JournalError && e.code === 'journal_io');
});
