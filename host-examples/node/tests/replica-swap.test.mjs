// A running replica switches policy artifacts mid-run through the file
// watch (docs/artifact.md): every event is accounted for, the log names the
// load and the swap, and /metrics shows webhook_policy_info with the new
// sha256 (the old series gone). The "other" artifact is the shipped
// component with one more custom section: a different, valid file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { appendCustomSection } from '@webhook/retry-policy';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPLICA = path.resolve(here, '../replica');
const SHIPPED = fs.readFileSync(path.resolve(here, '../lib/retry_policy.wasm'));
const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');

const until = async (what, f, ms = 20_000) => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('a running replica swaps artifacts through the file watch: a broken file is refused once, every event accounted, /metrics shows the new sha256', { timeout: 60_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replica-swap-'));
  const A = SHIPPED;
  const B = appendCustomSection(SHIPPED, 'replica-swap-test', 'another build');
  assert.notEqual(sha(A), sha(B));
  const file = path.join(dir, 'policy.wasm');
  fs.writeFileSync(file, A);
  const policy = path.join(dir, 'policy.json');
  fs.writeFileSync(policy, JSON.stringify({
    version: 'swap-test',
    classes: { storm: { window_ms: 60_000, hard_cap: 4, backoff: { base_ms: 5, factor: 2.0, cap_ms: 20, jitter: 'full' } } },
  }));

  // The endpoint answers the first 20 requests at once, then holds the rest until released (mid-run).
  let answered = 0;
  let release;
  const released = new Promise((r) => (release = r));
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      if (answered >= 20) await released;
      answered += 1;
      res.statusCode = answered % 3 === 0 ? 503 : 200;
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const EVENTS = 80;
  const child = spawn(REPLICA, [
    '--target', `http://127.0.0.1:${server.address().port}/hook`, '--endpoint-id', 'ep_swap', '--events', String(EVENTS),
    '--concurrency', '4', '--policy', policy, '--allow-private-targets',
    '--artifact', file, '--watch-artifact-ms', '50', '--metrics-addr', '127.0.0.1:0',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((r) => child.on('exit', (code) => r(code)));
  try {
    const url = await until('the metrics line', () => /metrics on (\S+)/.exec(stderr)?.[1]);
    const metrics = async () => (await fetch(url)).text();
    assert.match(await metrics(), new RegExp(`webhook_policy_info\\{artifact_sha256="${sha(A)}",abi="webhook:retry-policy@1.0.0",document_version="swap-test"\\} 1`));
    await until('20 answered requests', () => answered >= 20);

    // A broken deploy (truncated) is refused and logged once; A stays.
    fs.writeFileSync(`${file}.new`, A.subarray(0, 1000));
    fs.renameSync(`${file}.new`, file);
    await until('the refusal line', () => /policy artifact refused path=\S+ code=artifact_invalid: .*; keeping sha256=/.test(stderr));
    assert.match(await metrics(), new RegExp(`artifact_sha256="${sha(A)}"`));
    await new Promise((r) => setTimeout(r, 200)); // four more polls of the same file
    assert.equal(stderr.match(/policy artifact refused/g).length, 1, 'reported once per sha256');

    // Deploy B by rename, as deploys do.
    fs.writeFileSync(`${file}.new`, B);
    fs.renameSync(`${file}.new`, file);
    const after = await until('the new sha256 on /metrics', async () => {
      const text = await metrics();
      return text.includes(sha(B)) ? text : null;
    });
    assert.ok(!after.includes(sha(A)), 'the old series is gone');
    assert.equal(after.match(/^webhook_policy_info\{/gm).length, 1);
    release();

    assert.equal(await exited, 0, stderr);
    const summary = JSON.parse(stdout.trim());
    assert.equal(summary.events, EVENTS);
    const ended = Object.values(summary.stop_reasons).reduce((a, b) => a + b, 0);
    assert.equal(ended, EVENTS, `every event has one stop reason: ${stdout}`);
    assert.equal(summary.crashed, undefined);
    assert.match(stderr, new RegExp(`policy artifact loaded sha256=${sha(A)} abi=webhook:retry-policy@1\\.0\\.0 document_version=swap-test source=${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    assert.match(stderr, new RegExp(`policy artifact swapped sha256=${sha(A)} -> ${sha(B)} abi=\\S+ document_version=swap-test `));
  } finally {
    release();
    child.kill();
    await new Promise((r) => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
