// --rate N (admissions per second; a contract flag, docs/replica.md "Flags"):
// the k-th event (k from 0) is admitted no earlier than k * 1000 / N ms
// after the run starts (its first admission), with --deadline-ms still
// ending admissions. The
// rule itself on AdmissionPace (exact, no clock); the replica against a
// loopback endpoint answering 200 with lower bounds only; bad values exit 2.
// The spread is measured from the first ADMISSION (the journal's
// first_attempted_at_ms, the replica's wall clock): the first request's own
// arrival is late by its cold path (the engine's and the HTTP client's first
// calls), under load by 100 ms and more, so first-to-last ARRIVAL is not a
// load-free bound (measured: 287 to 437 ms with three replicas at once).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AdmissionPace } from '../examples/dispatcher/admission-pace.mjs';

const REPLICA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../replica');
let server;
let target;
let arrivals = []; // Date.now() of every request received (the replica's journal uses the same wall clock)
let dir;
let policy;

const run = (args) => new Promise((resolve) => {
  execFile(REPLICA, [...args, '--allow-private-targets'], { timeout: 60_000 }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
});

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replica-rate-'));
  policy = path.join(dir, 'policy.json');
  fs.writeFileSync(policy, JSON.stringify({
    version: 'replica-rate',
    classes: { storm: { window_ms: 3000, hard_cap: 4, backoff: { base_ms: 5, factor: 2.0, cap_ms: 20, jitter: 'full' } } },
  }));
  server = http.createServer((req, res) => {
    arrivals.push(Date.now());
    req.resume();
    req.on('end', () => res.end());
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  target = `http://127.0.0.1:${server.address().port}/rate`;
});

after(async () => {
  await new Promise((r) => server.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the pace admits the k-th event at k * 1000 / N ms after the start and never waits past the deadline', () => {
  const pace = new AdmissionPace({ ratePerS: 20, deadlineAt: 1000 + 220 });
  assert.equal(pace.wait(0, 1000), 0, 'the first admission is the origin');
  assert.equal(pace.wait(1, 1000), 50);
  assert.equal(pace.wait(1, 1049.5), 1, 'a part of a millisecond left waits one');
  assert.equal(pace.wait(1, 1050), 0);
  assert.equal(pace.wait(3, 1020), 130);
  assert.equal(pace.wait(9, 1100), 120, 'due at 1450, the deadline at 1220 comes first');
  assert.equal(pace.wait(2, 1220), null, 'at the deadline nothing more is admitted');
  const unpaced = new AdmissionPace({});
  assert.equal(unpaced.wait(1_000_000, 0), 0);
  const slow = new AdmissionPace({ ratePerS: 1e-300 });
  assert.equal(slow.wait(0, 0), 0);
  assert.equal(slow.wait(1, 0), 2 ** 31 - 1, 'a wait beyond the longest timer is re-checked then');
  assert.throws(() => new AdmissionPace({ ratePerS: 0 }), RangeError);
});

test('with --events 10 --rate 20 the last admission and the last request come at least 400 ms after the first admission', async () => {
  arrivals = [];
  const journal = path.join(dir, 'rate.journal');
  const { code, stdout, stderr } = await run(['--target', target, '--endpoint-id', 'ep-rate', '--events', '10', '--rate', '20',
    '--concurrency', '10', '--policy', policy, '--store', journal]);
  assert.equal(code, 0, stderr);
  const s = JSON.parse(stdout);
  assert.equal(s.stop_reasons.delivered, 10);
  assert.equal(arrivals.length, 10);
  const admitted = new Map();
  for (const line of fs.readFileSync(journal, 'utf8').split('\n')) {
    const r = line === '' ? {} : JSON.parse(line.slice(9)); // `<crc> <json>` (docs/journal.md)
    if (typeof r.first_attempted_at_ms === 'number') admitted.set(r.event_id, r.first_attempted_at_ms);
  }
  assert.equal(admitted.size, 10, 'every event journaled with its admission instant');
  const first = Math.min(...admitted.values());
  // 9 gaps of 50 ms from the first admission (the origin), 50 ms of slack.
  const admissions = Math.max(...admitted.values()) - first;
  assert.ok(admissions >= 400, `first to last admission: ${admissions} ms`);
  // A request arrives after its admission, whatever the load: the endpoint saw the spread too.
  const requests = Math.max(...arrivals) - first;
  assert.ok(requests >= 400, `first admission to last request: ${requests} ms`);
});

test('with --rate 20 --deadline-ms 220 at most 5 events are admitted and a slow rate still ends at the deadline', async () => {
  const paced = await run(['--target', target, '--endpoint-id', 'ep-rate-d', '--events', '100', '--rate', '20', '--deadline-ms', '220', '--policy', policy]);
  assert.equal(paced.code, 0, paced.stderr);
  assert.ok(JSON.parse(paced.stdout).events <= 5, paced.stdout);
  // The second event would be due after 1000 s: the run ends at the deadline, not then.
  const slow = await run(['--target', target, '--endpoint-id', 'ep-rate-s', '--events', '3', '--rate', '0.001', '--deadline-ms', '200', '--policy', policy]);
  assert.equal(slow.code, 0, slow.stderr);
  assert.ok(JSON.parse(slow.stdout).events <= 1, slow.stdout);
});

for (const value of ['0', 'abc', '-5', 'Infinity', '1e400', '']) {
  test(`--rate ${JSON.stringify(value)} exits 2 with one line naming --rate and nothing on stdout`, async () => {
    const { code, stdout, stderr } = await run(['--target', target, '--endpoint-id', 'e', '--events', '1', '--rate', value, '--policy', policy]);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(stderr.split('\n')[0], /^replica: --rate: expected a finite number > 0, got /);
  });
}

test('--help mentions --rate N', async () => {
  const { code, stdout } = await run(['--help']);
  assert.equal(code, 0);
  assert.match(stdout, /^ {2}--rate N +admit at most N events per second/m);
});
