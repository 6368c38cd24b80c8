// Journal format 1 (docs/journal.md): every case of tests/vectors-journal
// through the writer's open path (lock, read, torn tail cut, header) and the
// component's `resume` under each record's own policy. Unknown fields of a
// case are refused; a failing case is named. Prints N of N.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { resume } from '@webhook/retry-policy';
import { Journal, JournalError } from '../examples/dispatcher/journal.mjs';

const VECTORS = new URL('../../../tests/vectors-journal/journal.json', import.meta.url);
const { cases: allCases } = JSON.parse(fs.readFileSync(VECTORS, 'utf8'));
// Format-1 cases that journal format 2 overrules (docs/journal.md, "Journal
// format 2": a reader accepts a v2 header, and a v2 record carries the v2
// fields); journal2.json pins the format-2 reading of both.
const SUPERSEDED = new Set(['a header with v 2 is refused', 'an event with v 2 is refused']);
const cases = allCases.filter((c) => !SUPERSEDED.has(c.name));

function only(obj, allowed, name) {
  const unknown = Object.keys(obj).filter((k) => !allowed.includes(k));
  assert.deepEqual(unknown, [], `case ${name}: unknown fields ${unknown.join(', ')}`);
}

function verdict(rec, nowMs) {
  if (rec.status !== 'pending') return null;
  const state = { event_id: rec.event_id, endpoint_id: rec.endpoint_id, attempt: rec.attempts, max_attempts: rec.max_attempts, first_attempted_at_ms: rec.first_attempted_at_ms, credentials_refreshed: rec.credentials_refreshed };
  const r = resume(rec.policy, state, nowMs);
  return r.due === true ? 'due' : r.stop_reason;
}

async function runCase(c, dir) {
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
    for (const r of j.events()) got[r.event_id] = { status: r.status, attempts: r.attempts, resume: verdict(r, c.now_ms) };
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
  console.log(`journal vectors: ${cases.length - failed.length} of ${cases.length} pass (${allCases.length - cases.length} format-1 cases overruled by format 2 not run)`);
  assert.ok(cases.length >= 40, `only ${cases.length} cases`);
  assert.deepEqual(failed, []);
});

test('a vector runner refuses a case with an unknown field', async () => {
  await assert.rejects(() => runCase({ ...cases[0], extra: 1 }, os.tmpdir()), /unknown fields extra/);
});
