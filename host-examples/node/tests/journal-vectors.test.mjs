// Journal formats 1 and 2 (docs/journal.md): every case of
// tests/vectors-journal (journal.json, journal2.json) through the writer's
// open path (lock, read, torn tail cut, header) and the component's `resume`
// under each record's own policy (held records too). Unknown fields of a
// case are refused; a failing case is named. Prints N of N per file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { resume } from '@webhook/retry-policy';
import { Journal, JournalError } from '../examples/dispatcher/journal.mjs';

const VECTORS = new URL('../../../tests/vectors-journal/journal.json', import.meta.url);
const { cases } = JSON.parse(fs.readFileSync(VECTORS, 'utf8'));
const VECTORS2 = new URL('../../../tests/vectors-journal/journal2.json', import.meta.url);
const file2 = JSON.parse(fs.readFileSync(VECTORS2, 'utf8'));
const FORMAT2 = 'webhook-retry-policy/journal-vectors 2';

function only(obj, allowed, name) {
  const unknown = Object.keys(obj).filter((k) => !allowed.includes(k));
  assert.deepEqual(unknown, [], `case ${name}: unknown fields ${unknown.join(', ')}`);
}

function verdict(rec, nowMs) {
  if (rec.status !== 'pending' && rec.status !== 'held') return null;
  const state = { event_id: rec.event_id, endpoint_id: rec.endpoint_id, attempt: rec.attempts, max_attempts: rec.max_attempts, first_attempted_at_ms: rec.first_attempted_at_ms, credentials_refreshed: rec.credentials_refreshed };
  const { health, ...policy } = rec.policy; // resume judges the window and the attempts
  const r = resume(policy, state, nowMs);
  return r.due === true ? 'due' : r.stop_reason;
}

async function runCase(c, dir, format = 1) {
  const { name } = c;
  only(c, ['name', 'lines', 'now_ms', 'expect'], name);
  const data = Buffer.from(c.lines.join(''), 'utf8');
  const file = path.join(dir, `case-${zlib.crc32(name).toString(16).padStart(8, '0')}.journal`);
  fs.writeFileSync(file, data);
  const { expect } = c;
  if ('error' in expect) {
    only(expect, ['error', 'line'], name);
    let err = null;
    try {
      await new Journal(file).close();
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof JournalError, `${name}: opened, want ${expect.error} at line ${expect.line}${err ? `; threw ${err}` : ''}`);
    assert.deepEqual([err.code, err.line], [expect.error, expect.line], `${name}: ${err.message}`);
    assert.ok(fs.readFileSync(file).equals(data), `${name}: a refused journal was changed`);
    assert.ok(!fs.existsSync(`${file}.lock`), `${name}: a refused open left its lock`);
    return;
  }
  only(expect, ['torn_bytes', 'events'], name);
  const j = new Journal(file);
  try {
    assert.equal(j.tornBytes, expect.torn_bytes, `${name}: torn bytes`);
    const kept = data.subarray(0, data.length - j.tornBytes);
    const onDisk = fs.readFileSync(file);
    assert.ok(onDisk.subarray(0, kept.length).equals(kept), `${name}: the good prefix changed`);
    assert.equal(onDisk.length > kept.length, kept.length === 0, `${name}: not cut back (or no header written to an empty journal)`);
    const got = {};
    for (const r of j.events()) {
      got[r.event_id] = { status: r.status, attempts: r.attempts, resume: verdict(r, c.now_ms) };
      if (format === 2) Object.assign(got[r.event_id], { held_ms: r.held_ms ?? 0, held_until_ms: r.held_until_ms ?? 0, replayed_as: j.replayedAs(r.event_id) });
    }
    assert.deepEqual(got, expect.events, `${name}: events`);
  } finally {
    await j.close();
  }
}

test('every journal vector passes through the open path and resume', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-vectors-'));
  const failed = [];
  try {
    for (const c of cases) {
      try {
        await runCase(c, dir);
      } catch (e) {
        failed.push(`${c.name}: ${e.message}`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`journal vectors: ${cases.length - failed.length} of ${cases.length} pass`);
  assert.ok(cases.length >= 40, `only ${cases.length} cases`);
  assert.deepEqual(failed, []);
});

test('every journal format 2 vector passes through the open path and resume', async () => {
  only(file2, ['format', 'spec', 'regenerate', 'cases'], 'journal2.json');
  assert.equal(file2.format, FORMAT2);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-vectors2-'));
  const failed = [];
  try {
    for (const c of file2.cases) {
      try {
        await runCase(c, dir, 2);
      } catch (e) {
        failed.push(`${c.name}: ${e.message}`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`journal format 2 vectors: ${file2.cases.length - failed.length} of ${file2.cases.length} pass`);
  assert.ok(file2.cases.length >= 30, `only ${file2.cases.length} cases`);
  assert.deepEqual(failed, []);
});

test('a vector runner refuses a case with an unknown field', async () => {
  await assert.rejects(() => runCase({ ...cases[0], extra: 1 }, os.tmpdir()), /unknown fields extra/);
});
