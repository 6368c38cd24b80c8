// The replica on a format-3 document (docs/health-dispatch.md section 6):
// a budget refusal holds instead of dead-lettering, every hold is in the
// summary (holds by reason, zeros included; held; probe_calls), a held
// event leaves its hold with no store call (docs/health.md draft 6), and a
// held event whose window ends is retry_window_elapsed.
// A format-2 document's summary carries the same fields at zero.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPLICA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../replica');
const HOLD_REASONS = ['paused', 'circuit_open', 'probe_refused', 'release_pacing', 'budget_refused'];
let server;
let target;
let hits = 0;
let dir;

const policy = (name, health) => {
  const file = path.join(dir, name);
  const storm = { window_ms: 1500, hard_cap: 6, backoff: { base_ms: 100, factor: 2.0, cap_ms: 400, jitter: 'none' }, budget: { ratio: 0.01, window_ms: 60_000, min_sample: 0, sliding: true } };
  if (health !== undefined) storm.health = health;
  fs.writeFileSync(file, JSON.stringify({ version: 'replica-health', classes: { storm } }));
  return file;
};

const run = (args) => new Promise((resolve) => {
  execFile(REPLICA, [...args, '--allow-private-targets'], { timeout: 60_000 }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
});

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replica-health-'));
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits += 1;
      res.writeHead(503).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${server.address().port}/hook`;
});

after(() => {
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a budget-refused retry is held, leaves its hold with no store call, and holds again on each refusal until its window ends', async () => {
  const before = hits;
  const r = await run(['--target', target, '--endpoint-id', 'ep-h', '--events', '4', '--concurrency', '4', '--policy', policy('h.json', { circuit: null })]);
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(s.holds), HOLD_REASONS);
  assert.equal(s.stop_reasons.retry_window_elapsed, 4, r.stdout);
  assert.equal(s.stop_reasons.retry_budget_exhausted, 0, 'held, not dead-lettered');
  assert.equal(hits - before, s.attempts, 'every attempt reached the endpoint');
  // each refused retry holds once and is sent when its hold ends (its retry's
  // delay): more attempts than events, every one refused again (ratio 0.01)
  assert.ok(s.attempts > 4, r.stdout);
  assert.ok(s.holds.budget_refused >= 4 && s.holds.budget_refused <= s.attempts, r.stdout);
  assert.deepEqual([s.held, s.pending, s.probe_calls], [0, 0, 0]);
});

test('a format-2 document runs as before, its summary with every hold field at zero', async () => {
  const r = await run(['--target', target, '--endpoint-id', 'ep-2', '--events', '3', '--concurrency', '3', '--policy', policy('p.json')]);
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.stop_reasons.retry_budget_exhausted, 3, r.stdout);
  assert.deepEqual([s.holds, s.held, s.probe_calls], [Object.fromEntries(HOLD_REASONS.map((k) => [k, 0])), 0, 0]);
});
