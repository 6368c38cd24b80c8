// Two Node replicas follow a fleet rollout (docs/rollout.md) through a
// private redis-server on loopback: started during a 40% canary, each runs
// what the canary rule says for its id before its first event (node-b,
// bucket 34: the canary; node-a, bucket 44: stable); a promote moves
// node-a; an artifact signed by an untrusted key is refused once by each,
// which keep what they run; Redis going down leaves both running to the
// end of their events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { appendCustomSection } from '@webhook/retry-policy';
import { haveRedis, startRedis, freePort } from './local-redis.mjs';
import { SHIPPED, OTHER, sha, signingKey, publishArtifact, setRecord, statusOf } from './rollout-fixtures.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPLICA = path.resolve(here, '../replica');
const EVENTS = 4;

const until = async (what, f, ms = 20_000) => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

const count = (text, needle) => text.split(needle).length - 1;

test('replicas follow a canary by bucket before their first event, then a promote; an untrusted artifact is refused once; Redis down keeps them running', { skip: haveRedis ? false : 'redis-server is not installed', timeout: 90_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replica-rollout-'));
  const local = await startRedis('replica-rollout-');
  const { redis } = local;
  const key = signingKey();
  const trust = path.join(dir, 'trust.pem');
  fs.writeFileSync(trust, `# the policy team's key\n${key.publicPem}`);
  const policy = path.join(dir, 'policy.json');
  fs.writeFileSync(policy, JSON.stringify({
    version: 'rollout-test',
    classes: { storm: { window_ms: 60_000, hard_cap: 4, backoff: { base_ms: 5, factor: 2.0, cap_ms: 20, jitter: 'full' } } },
  }));
  const A = await publishArtifact(redis, SHIPPED, key);
  const B = await publishArtifact(redis, OTHER, key);
  await setRecord(redis, { epoch: 2, stable: A, canary: { sha256: B, percent: 40 } });

  // The endpoint holds every request until released; it notes each replica's stderr at its first request.
  let release;
  const released = new Promise((r) => (release = r));
  const replicas = {};
  const server = http.createServer((req, res) => {
    const r = replicas[req.url.slice(1)];
    r.atFirstRequest ??= r.stderr;
    req.resume();
    req.on('end', async () => {
      await released;
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const start = (id) => {
    const child = spawn(REPLICA, [
      '--target', `http://127.0.0.1:${server.address().port}/${id}`, '--endpoint-id', 'ep_rollout', '--events', String(EVENTS),
      '--concurrency', String(EVENTS), '--policy', policy, '--allow-private-targets', '--metrics-addr', '127.0.0.1:0',
      '--redis', `redis://127.0.0.1:${local.port}`, '--artifact-from-redis', '--trust-key', trust,
      '--replica-id', id, '--rollout-poll-ms', '50',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    const r = { child, stdout: '', stderr: '', atFirstRequest: null };
    child.stdout.on('data', (d) => (r.stdout += d));
    child.stderr.on('data', (d) => (r.stderr += d));
    r.exited = new Promise((done) => child.on('exit', (code) => done(code)));
    replicas[id] = r;
    return r;
  };
  const a = start('node-a');
  const b = start('node-b');
  const infoSha = async (r) => {
    const url = /metrics on (\S+)/.exec(r.stderr)?.[1];
    if (url === undefined) return null;
    return /webhook_policy_info\{artifact_sha256="([0-9a-f]{64})"/.exec(await (await fetch(url)).text())?.[1] ?? null;
  };
  const status = (id) => statusOf(redis, id);
  const reloads = async (r, result) => {
    const text = await (await fetch(/metrics on (\S+)/.exec(r.stderr)[1])).text();
    return Number(new RegExp(`^webhook_policy_reloads_total\\{result="${result}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  };
  try {
    // The canary rule, on the first tick, before any event.
    await until('both replicas settled on epoch 2', async () => (await status('node-a'))?.epoch === 2 && (await status('node-b'))?.epoch === 2);
    assert.equal((await status('node-b')).artifact_sha256, B, 'node-b (bucket 34) runs the 40% canary');
    assert.equal((await status('node-a')).artifact_sha256, A, 'node-a (bucket 44) runs stable');
    await until('a first request from each', () => a.atFirstRequest !== null && b.atFirstRequest !== null);
    // A first-tick swap is in the "loaded" line only, neither logged as a swap nor counted.
    assert.ok(b.atFirstRequest.includes(`policy artifact loaded sha256=${B} abi=webhook:retry-policy@1.0.0 document_version=rollout-test source=redis`), b.atFirstRequest);
    assert.ok(a.atFirstRequest.includes(`policy artifact loaded sha256=${A} abi=webhook:retry-policy@1.0.0 document_version=rollout-test source=embedded`), a.atFirstRequest);
    assert.ok(!a.stderr.includes('policy artifact swapped') && !b.stderr.includes('policy artifact swapped'), a.stderr + b.stderr);
    assert.equal(await until('node-b /metrics', () => infoSha(b)), B);
    assert.equal(await reloads(b, 'applied'), 0);

    // Promote: the canary becomes stable; node-a follows.
    await setRecord(redis, { epoch: 3, stable: B, previous: [A] });
    await until('node-a runs B', async () => (await status('node-a'))?.artifact_sha256 === B && (await status('node-a')).epoch === 3);
    assert.equal(await infoSha(a), B, "node-a's /metrics names the new sha256");
    assert.ok(a.stderr.includes(`policy artifact swapped sha256=${A} -> ${B} abi=webhook:retry-policy@1.0.0 document_version=rollout-test source=redis`), a.stderr);
    assert.equal(await reloads(a, 'applied'), 1);
    assert.equal((await status('node-b')).artifact_sha256, B);

    // An artifact signed by a key nobody trusts: refused once by each, B kept.
    const C = await publishArtifact(redis, appendCustomSection(SHIPPED, 'rollout-test', 'a third build'), signingKey());
    await setRecord(redis, { epoch: 4, stable: C, previous: [B, A] });
    for (const id of ['node-a', 'node-b']) {
      await until(`${id} refuses C`, async () => (await status(id))?.refusal?.code === 'rollout_key_unknown');
      const s = await status(id);
      assert.equal(s.refusal.sha256, C);
      assert.equal(s.artifact_sha256, B);
      assert.equal(s.epoch, 4);
    }
    await new Promise((r) => setTimeout(r, 300)); // six more ticks
    for (const r of [a, b]) {
      assert.equal(count(r.stderr, `policy artifact refused source=redis sha256=${C} code=rollout_key_unknown: `), 1, r.stderr);
      assert.ok(r.stderr.includes(`; keeping sha256=${B}`), r.stderr);
      assert.equal(await infoSha(r), B);
      assert.equal(await reloads(r, 'refused'), 1);
    }

    // Redis goes down: both keep running and finish their events.
    redis.disconnect();
    local.server.kill();
    await new Promise((r) => setTimeout(r, 300));
    release();
    for (const r of [a, b]) {
      assert.equal(await r.exited, 0, r.stderr);
      const summary = JSON.parse(r.stdout.trim());
      assert.equal(summary.events, EVENTS);
      assert.equal(summary.stop_reasons.delivered, EVENTS, r.stdout);
      assert.equal(count(r.stderr, 'rollout: store unreachable, keeping sha256='), 1, r.stderr);
    }
  } finally {
    release();
    for (const r of Object.values(replicas)) r.child.kill();
    redis.disconnect();
    local.server.kill();
    await new Promise((r) => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a replica whose first tick finds Redis down starts on its local artifact, then follows the publish once Redis is up and counts events since the swap', { skip: haveRedis ? false : 'redis-server is not installed', timeout: 90_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replica-rollout-down-'));
  const key = signingKey();
  const trust = path.join(dir, 'trust.pem');
  fs.writeFileSync(trust, key.publicPem);
  const policy = path.join(dir, 'policy.json');
  fs.writeFileSync(policy, JSON.stringify({
    version: 'rollout-down',
    classes: { storm: { window_ms: 60_000, hard_cap: 4, backoff: { base_ms: 5, factor: 2.0, cap_ms: 20, jitter: 'full' } } },
  }));
  const port = await freePort();
  // Event i: i % 4 == 1 delivered, == 2 dead-lettered (410, terminal), once released; the others held to the end.
  let release;
  const released = new Promise((r) => (release = r));
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    const i = Number(/-(\d+)$/.exec(req.headers['x-event-id'])[1]);
    req.resume();
    req.on('end', async () => {
      await released;
      if (i % 4 === 1) res.end();
      else if (i % 4 === 2) res.writeHead(410).end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const child = spawn(REPLICA, [
    '--target', `http://127.0.0.1:${server.address().port}/`, '--endpoint-id', 'ep_down', '--events', '8', '--concurrency', '8',
    '--policy', policy, '--allow-private-targets', '--redis', `redis://127.0.0.1:${port}`, '--artifact-from-redis', '--trust-key', trust,
    '--replica-id', 'node-down', '--rollout-poll-ms', '50', '--store-timeout-ms', '100',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let local = null;
  try {
    await until('8 requests on the local artifact', () => requests === 8);
    assert.match(stderr, new RegExp(`policy artifact loaded sha256=${sha(SHIPPED)} .*source=embedded`));
    assert.equal(count(stderr, 'rollout: store unreachable, keeping sha256='), 1, stderr);
    assert.ok(!stderr.includes('swapped'), stderr);

    local = await startRedis('replica-rollout-down-', port);
    const B = await publishArtifact(local.redis, OTHER, key);
    await setRecord(local.redis, { epoch: 1, stable: B });
    await until('node-down runs B', async () => (await statusOf(local.redis, 'node-down'))?.artifact_sha256 === B);
    assert.match(stderr, /rollout: store reachable again/);
    assert.ok(stderr.includes(`policy artifact swapped sha256=${sha(SHIPPED)} -> ${B} `), stderr);
    const before = await statusOf(local.redis, 'node-down');
    assert.deepEqual([before.epoch, before.events, before.dead_letters, before.refusal], [1, 0, 0, null]);

    release();
    const after = await until('4 events finished since the swap', async () => {
      const st = await statusOf(local.redis, 'node-down');
      return st.events === 4 ? st : null;
    });
    assert.equal(after.dead_letters, 2);
    assert.equal(after.since_ms, before.since_ms);
    assert.equal(after.document_version, 'rollout-down');
    assert.equal(child.exitCode, null, 'still running its 4 held events');
  } finally {
    release();
    child.kill('SIGKILL');
    local?.redis.disconnect();
    local?.server.kill();
    await new Promise((r) => server.close(r));
    server.closeAllConnections?.();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
