// Journal format 2 in the writer (docs/journal.md, "Journal format 2"):
// compaction keeps held events and dead letters not replayed, and drops
// replayed dead letters with delivered events; a v1 journal keeps its
// header and gets v2 records; a record with an expanded health section
// reads back and checks against its policy_hash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Journal, COMPACT_MIN_RECORDS, readJournalFile } from '../examples/dispatcher/journal.mjs';
import { admittedRecord, recordLine, asV2 } from '../examples/dispatcher/journal-record.mjs';
import { HealthPolicy } from '../examples/dispatcher/health-policy.mjs';

const tmp = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'journal2-')), 'events.journal');
const DOC = { version: 'j-2', classes: { storm: { window_ms: 60_000, hard_cap: 4, backoff: { base_ms: 100, factor: 2.0, cap_ms: 400, jitter: 'full' }, health: { cache_ms: 500 } } } };
const POLICY = new HealthPolicy(DOC, { clock: { nowMs: () => 1_000 } });

function record(id, status = 'pending', extra = {}) {
  const c = POLICY.compiled('storm');
  const rec = admittedRecord({ id, endpoint_id: 'ep-1', url: 'https://hooks.example.com/x', class: 'storm' }, POLICY.admit('storm', 1_000), c.toJSON(), 1_000, null, c.health);
  if (status === 'held') Object.assign(rec, { status, held_until_ms: 5_000, hold_reason: 'paused', held_since_ms: 1_000 });
  if (status === 'delivered' || status === 'dead_lettered') {
    const reason = status === 'delivered' ? 'delivered' : 'retry_window_elapsed';
    Object.assign(rec, { status, attempts: 1, stop_reason: reason, finished_at_ms: 2_000 });
    if (status === 'dead_lettered') rec.dead_letter = { event_id: id, endpoint_id: 'ep-1', attempts: 1, elapsed_ms: 1_000, stop_reason: reason };
  }
  return { ...rec, ...extra };
}

test('compaction keeps held events and dead letters not replayed, and drops replayed dead letters with delivered events', async () => {
  const file = tmp();
  const j = new Journal(file);
  await j.append(record('held'));
  await j.append(record('held', 'held'));
  await j.append(record('dl-kept', 'dead_lettered'));
  await j.append(record('dl-marked', 'dead_lettered'));
  await j.append(record('dl-marked', 'dead_lettered', { replayed_as: 'dl-marked~r1' }));
  await j.append(record('dl-derived', 'dead_lettered'));
  await j.append(record('dl-derived~r1', 'delivered', { replay_of: 'dl-derived' })); // its replay, delivered: the commit stands
  for (let i = 0; j.compactions === 0; i++) {
    assert.ok(i < 2 * COMPACT_MIN_RECORDS, 'no compaction');
    await j.append(record(`ev-${i}`));
    await j.append(record(`ev-${i}`, 'delivered'));
  }
  await j.close();
  const kept = readJournalFile(file).map((r) => [r.event_id, r.status]);
  assert.deepEqual(kept.slice(0, 2), [['held', 'held'], ['dl-kept', 'dead_lettered']]);
  assert.ok(!kept.some(([id]) => id.startsWith('dl-marked') || id.startsWith('dl-derived')), JSON.stringify(kept));
});

test('a v1 journal keeps its v1 header and gets v2 records; a v1 record is written back as v2 with the zero fields', async () => {
  const file = tmp();
  const v1 = { ...record('old') };
  for (const k of ['held_until_ms', 'hold_reason', 'held_since_ms', 'held_ms', 'needs_reserve', 'wake_refusals', 'replay_of', 'replayed_dead_letter', 'replayed_as']) delete v1[k];
  delete v1.policy.health;
  v1.v = 1;
  v1.policy_hash = new HealthPolicy({ version: 'j-2', classes: { storm: v1.policy } }, { clock: { nowMs: () => 0 } }).admit('storm', 0).policy_hash;
  fs.writeFileSync(file, Buffer.concat([recordLine({ v: 1, type: 'header', format: 'webhook-retry-policy/journal', created_at_ms: 1 }), recordLine(v1)]));
  const j = new Journal(file);
  await j.append(asV2({ ...j.event('old'), attempts: 1 }));
  await j.close();
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l.slice(9)));
  assert.deepEqual(lines.map((l) => l.v), [1, 1, 2]);
  assert.deepEqual([lines[2].held_ms, lines[2].hold_reason, lines[2].replay_of], [0, null, null]);
  assert.equal(readJournalFile(file)[0].attempts, 1);
});

test("a record's expanded health section reads back, and a changed section no longer hashes to its policy_hash", () => {
  const file = tmp();
  const rec = record('h', 'held');
  assert.deepEqual(rec.policy.health.pause, { max_ms: 600_000 });
  const header = recordLine({ v: 2, type: 'header', format: 'webhook-retry-policy/journal', created_at_ms: 1 });
  fs.writeFileSync(file, Buffer.concat([header, recordLine(rec)]));
  assert.deepEqual(readJournalFile(file)[0].policy, rec.policy);
  const changed = structuredClone(rec);
  changed.policy.health.cache_ms = 501;
  fs.writeFileSync(file, Buffer.concat([header, recordLine(changed)]));
  assert.throws(() => readJournalFile(file), (e) => e.code === 'journal_record_invalid' && e.field === 'policy');
});
