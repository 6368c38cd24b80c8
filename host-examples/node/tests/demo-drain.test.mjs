// The example dispatcher's demo (examples/dispatcher/main.mjs) with
// --journal: a run to the end journals every event's final record; a
// SIGTERM while the always-503 event waits for its retry (--real-time)
// drains: exit 0, no new event taken (evt_gone never admitted), the waiting
// event pending in the journal (synced, lock removed) and readable by the
// format-1 reader with its admitted policy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readJournalFile } from '../examples/dispatcher/journal.mjs';

const DEMO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../examples/dispatcher/main.mjs');
const tmp = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'demo-drain-')), 'demo.journal');

/** Run the demo; once stdout matches `after`, wait `delayMs` and send `signal`. */
function demo(args, { after = null, delayMs = 0, signal = 'SIGTERM' } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [DEMO, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (d) => {
      stdout += d;
      if (after !== null && !sent && after.test(stdout)) {
        sent = true;
        setTimeout(() => child.kill(signal), delayMs);
      }
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code, sig) => resolve({ code, signal: sig, stdout, stderr }));
  });
}

const statuses = (file) => Object.fromEntries(readJournalFile(file).map((r) => [r.event_id, [r.status, r.stop_reason]]));

test('the demo journals each event to its stop when it runs to the end', { timeout: 30_000 }, async () => {
  const file = tmp();
  const r = await demo(['--journal', file]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(statuses(file), {
    evt_ok: ['delivered', 'delivered'],
    evt_busy: ['dead_lettered', 'max_attempts_exhausted'],
    evt_gone: ['dead_lettered', 'terminal_response'],
  });
  assert.ok(!fs.existsSync(`${file}.lock`));
});

test('SIGTERM drains the demo: exit 0, no new event, the waiting event pending in the journal', { timeout: 30_000 }, async () => {
  const file = tmp();
  const r = await demo(['--real-time', '--journal', file, '--drain-ms', '2000'], { after: /evt_ok -> delivered/, delayMs: 300 });
  assert.equal(r.signal, null, `killed by ${r.signal}: no drain handler`);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /evt_busy -> pending/);
  assert.match(r.stdout, /drained \(SIGTERM\): 2 event\(s\) ran, 1 left pending/);
  assert.doesNotMatch(r.stdout, /evt_gone/);
  const events = readJournalFile(file); // the policy of each record checked against its hash
  assert.deepEqual(events.map((e) => [e.event_id, e.status]), [['evt_ok', 'delivered'], ['evt_busy', 'pending']]);
  const busy = events[1];
  assert.ok(busy.attempts >= 1 && busy.last_outcome === '503', JSON.stringify(busy));
  assert.ok(busy.next_attempt_at_ms > busy.first_attempted_at_ms, 'its retry is scheduled');
  assert.ok(!fs.existsSync(`${file}.lock`), 'the drain removes the lock');
});
