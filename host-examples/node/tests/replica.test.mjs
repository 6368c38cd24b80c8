// The replica executable (REPLICA contract) against a local always-503
// server, in-memory budget: one JSON line on stdout, every event ends in
// exactly one stop reason, attempts match what the server received; bad
// arguments exit 2 with a clear message and nothing on stdout. Without
// --policy the document is the one the artifact embeds (retry-policy bundle).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { appendCustomSection } from '@webhook/retry-policy';

const REPLICA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../replica');
const SHIPPED_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../lib/retry_policy.wasm');
const STOP_REASONS = ['delivered', 'max_attempts_exhausted', 'retry_budget_exhausted', 'budget_unavailable', 'terminal_response', 'retry_window_elapsed'];
let server;
let target;
let hits = 0;
let dir;

function writePolicy(name, budget) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify({
    version: 'replica-test',
    classes: { storm: { window_ms: 3000, hard_cap: 4, backoff: { base_ms: 5, factor: 2.0, cap_ms: 20, jitter: 'full' }, budget } },
  }));
  return file;
}

function runReplica(args) {
  return new Promise((resolve) => {
    // The test endpoints are on loopback, refused by default: allowed explicitly.
    execFile(REPLICA, [...args, '--allow-private-targets'], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replica-test-'));
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits += 1;
      res.statusCode = 503;
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  target = `http://127.0.0.1:${server.address().port}/storm`;
});

after(async () => {
  await new Promise((r) => server.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the replica against an always-503 endpoint prints one JSON line where every event has exactly one stop reason', async () => {
  // A generous budget (min_sample above the attempt count): every event runs out of attempts.
  const policy = writePolicy('generous.json', { ratio: 0.1, window_ms: 60_000, min_sample: 1000, sliding: true });
  const before = hits;
  const { code, stdout, stderr } = await runReplica(['--target', target, '--endpoint-id', 'ep-test', '--events', '40', '--concurrency', '4', '--policy', policy]);
  assert.equal(code, 0, stderr);
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 1, stdout);
  const s = JSON.parse(lines[0]);
  assert.equal(s.host, 'node');
  assert.equal(s.events, 40);
  assert.equal(s.first_attempts, 40);
  assert.deepEqual(Object.keys(s.stop_reasons).sort(), [...STOP_REASONS].sort());
  assert.equal(Object.values(s.stop_reasons).reduce((a, b) => a + b, 0), s.events);
  assert.equal(s.attempts, s.first_attempts + s.retries);
  assert.equal(s.attempts, hits - before, 'attempts reported = requests the server received');
  // hard_cap 4 and at most 5+10+20 ms of sleeping: the window never ends first.
  assert.equal(s.stop_reasons.max_attempts_exhausted, 40);
  assert.equal(s.retries, 40 * 3);
  assert.equal(s.redis_round_trips, 0);
  assert.ok(Number.isInteger(s.elapsed_ms) && s.elapsed_ms >= 0);
});

test('with a 1% budget and no sample floor every one of 25 events is dead-lettered as retry_budget_exhausted after one attempt', async () => {
  const policy = writePolicy('none.json', { ratio: 0.01, window_ms: 60_000, min_sample: 0, sliding: false });
  const { code, stdout, stderr } = await runReplica(['--target', target, '--endpoint-id', 'ep-none', '--events', '25', '--policy', policy]);
  assert.equal(code, 0, stderr);
  const s = JSON.parse(stdout);
  assert.equal(s.stop_reasons.retry_budget_exhausted, 25);
  assert.equal(s.attempts, 25);
  assert.equal(s.retries, 0);
});

test('a deadline of 0 ms starts no events and still prints the summary', async () => {
  const policy = writePolicy('deadline.json', { ratio: 0.1, window_ms: 60_000, min_sample: 1000, sliding: true });
  const { code, stdout } = await runReplica(['--target', target, '--endpoint-id', 'ep-d', '--events', '1000', '--policy', policy, '--deadline-ms', '0']);
  assert.equal(code, 0);
  const s = JSON.parse(stdout);
  assert.equal(s.events, 0);
  assert.equal(s.attempts, 0);
});

for (const [flag, expected] of [
  ['--version', /^replica \(node \d+\.\d+\.\d+\) @webhook\/retry-policy \d+\.\d+\.\d+\n$/],
  ['--help', /^usage: replica --target URL --endpoint-id ID --events N \[flags\]\n[\s\S]*--drain-ms N/],
]) {
  test(`${flag} prints on stdout and exits 0 without loading the artifact`, async () => {
    const { code, stdout, stderr } = await new Promise((resolve) => {
      execFile(REPLICA, [flag], { env: { ...process.env, RETRY_POLICY_ARTIFACT: '/nonexistent/artifact.wasm' } },
        (error, out, err) => resolve({ code: error ? error.code : 0, stdout: out, stderr: err }));
    });
    assert.equal(code, 0, stderr);
    assert.match(stdout, expected);
    assert.equal(stderr, '');
  });
}

test('the artifact\'s load line names the version of the --policy document, as /metrics does', async () => {
  const { code, stderr } = await runReplica(['--target', target, '--endpoint-id', 'ep-version', '--events', '1',
    '--policy', writePolicy('version.json', undefined)]);
  assert.equal(code, 0, stderr);
  assert.match(stderr, /policy artifact loaded sha256=[0-9a-f]{64} abi=\S+ document_version=replica-test source=/);
});

for (const [name, args, message] of [
  ['an unknown flag', ['--bogus', '1'], /unknown argument "--bogus"/],
  ['a missing --events', ['--target', 'http://127.0.0.1:1/', '--endpoint-id', 'e', '--policy', '/dev/null'], /--events is required/],
  ['a negative --events', ['--target', 'http://127.0.0.1:1/', '--endpoint-id', 'e', '--events', '-1', '--policy', '/dev/null'], /^replica: --events: expected a whole number >= 0, got "-1"$/m],
  ['a zero --concurrency', ['--target', 'http://127.0.0.1:1/', '--endpoint-id', 'e', '--events', '1', '--concurrency', '0', '--policy', '/dev/null'], /^replica: --concurrency: expected a whole number from 1 to 65535, got "0"$/m],
  ['a non-http --target', ['--target', 'ftp://x/', '--endpoint-id', 'e', '--events', '1', '--policy', '/dev/null'], /^replica: --target: expected an http:\/\/ or https:\/\/ URL with a host, got "ftp:\/\/x\/"$/m],
  ['a non-redis --redis', ['--target', 'http://127.0.0.1:1/', '--endpoint-id', 'e', '--events', '1', '--policy', '/dev/null', '--redis', 'http://x'], /^replica: --redis: expected a redis:\/\/ or rediss:\/\/ URL with a host, got "http:\/\/x"$/m],
  ['a --metrics-addr without a port', ['--target', 'http://127.0.0.1:1/', '--endpoint-id', 'e', '--events', '1', '--policy', '/dev/null', '--metrics-addr', '127.0.0.1'], /^replica: --metrics-addr: expected HOST:PORT .*, got "127\.0\.0\.1"$/m],
  ['a --metrics-addr port above 65535', ['--target', 'http://127.0.0.1:1/', '--endpoint-id', 'e', '--events', '1', '--policy', '/dev/null', '--metrics-addr', '127.0.0.1:70000'], /^replica: --metrics-addr: expected HOST:PORT .*, got "127\.0\.0\.1:70000"$/m],
  ['a missing policy file', ['--target', 'http://127.0.0.1:1/', '--endpoint-id', 'e', '--events', '1', '--policy', '/nonexistent/p.json'], /--policy: cannot read/],
  ['an unreadable artifact', ['--target', 'http://127.0.0.1:1/', '--endpoint-id', 'e', '--events', '1', '--artifact', '/nonexistent/a.wasm'], /artifact_unreadable|\/nonexistent\/a\.wasm/],
]) {
  test(`${name} exits 2 with a clear message and nothing on stdout`, async () => {
    const { code, stdout, stderr } = await runReplica(args);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(stderr, message);
  });
}

test('without --policy the replica runs the document embedded in the artifact and logs its version', async () => {
  const file = path.join(dir, 'bundled.wasm');
  fs.writeFileSync(file, appendCustomSection(fs.readFileSync(SHIPPED_PATH), 'webhook-retry-policy:document', JSON.stringify({
    version: 'bundled-replica',
    classes: { storm: { window_ms: 3000, hard_cap: 3, backoff: { base_ms: 5, factor: 2.0, cap_ms: 20, jitter: 'full' } } },
  })));
  const { code, stdout, stderr } = await runReplica(['--target', target, '--endpoint-id', 'ep-bundled', '--events', '5', '--artifact', file]);
  assert.equal(code, 0, stderr);
  const s = JSON.parse(stdout);
  assert.equal(s.events, 5);
  assert.equal(Object.values(s.stop_reasons).reduce((a, b) => a + b, 0), 5);
  assert.ok(s.attempts > 5, 'the embedded class retries the always-503 endpoint');
  assert.ok(s.attempts <= 15, `hard_cap 3 of the embedded class: ${stdout}`);
  assert.match(stderr, /policy artifact loaded sha256=[0-9a-f]{64} abi=\S+ document_version=bundled-replica /);
});

test('without --policy an artifact that embeds no document exits 2 with a clear message and nothing on stdout', async () => {
  const { code, stdout, stderr } = await runReplica(['--target', target, '--endpoint-id', 'e', '--events', '1', '--artifact', SHIPPED_PATH]);
  assert.equal(code, 2);
  assert.equal(stdout, '');
  assert.match(stderr, /no --policy FILE given, and the artifact \(sha256 [0-9a-f]{64}, source \S+\) embeds no policy document .*pass --policy FILE/);
});

test('a policy document without the "storm" class exits 2 naming unknown_event_class', async () => {
  const file = path.join(dir, 'other.json');
  fs.writeFileSync(file, JSON.stringify({ classes: { other: { window_ms: 1000, backoff: { base_ms: 5, factor: 2.0, cap_ms: 50 } } } }));
  const { code, stdout, stderr } = await runReplica(['--target', target, '--endpoint-id', 'e', '--events', '1', '--policy', file]);
  assert.equal(code, 2);
  assert.equal(stdout, '');
  assert.match(stderr, /unknown_event_class/);
});

test('with --redis pointing at a port nobody listens on the budget fails closed: every event is budget_unavailable after one attempt', async () => {
  const closed = http.createServer();
  await new Promise((r) => closed.listen(0, '127.0.0.1', r));
  const port = closed.address().port;
  await new Promise((r) => closed.close(r)); // the port is now (very likely) free: connections are refused
  const policy = writePolicy('closed.json', { ratio: 0.1, window_ms: 60_000, min_sample: 1000, sliding: true });
  const { code, stdout, stderr } = await runReplica(['--target', target, '--endpoint-id', 'ep-closed', '--events', '20', '--concurrency', '4', '--policy', policy, '--redis', `redis://127.0.0.1:${port}/0`]);
  assert.equal(code, 0, stderr);
  const s = JSON.parse(stdout);
  assert.equal(s.stop_reasons.budget_unavailable, 20);
  assert.equal(s.attempts, 20);
  assert.equal(s.redis_round_trips, 0);
  assert.match(stderr, /redis/);
});
