// RedisBudgetStore against a real redis-server started on a loopback port
// for this file (skipped, visibly, when redis-server is not installed):
// the fleet's script and keys, atomic reserve under concurrency, NOSCRIPT
// recovery, and failing closed when Redis is unreachable.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Redis from 'ioredis';
import { RedisBudgetStore, RetryPolicy, ManualClock, bucketKey, budgetAllows } from '@webhook/retry-policy';

const vectors = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../tests/vectors');
const haveRedis = spawnSync('redis-server', ['--version']).status === 0;
const skip = haveRedis ? false : 'redis-server is not installed';
const T0 = 1_700_000_000_000;
const DOC = {
  classes: {
    ledger: {
      window_ms: 86_400_000,
      backoff: { base_ms: 2000, factor: 2.0, cap_ms: 300_000 },
      budget: { ratio: 0.1, window_ms: 60_000, min_sample: 0, sliding: true },
    },
  },
};
let server;
let redis;
let port;

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = s.address();
      s.close(() => resolve(p));
    });
  });
}

before(async () => {
  if (!haveRedis) return;
  port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-'));
  server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
  for (let i = 0; i < 100; i++) {
    try {
      await redis.connect();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  assert.equal(await redis.ping(), 'PONG');
});

after(async () => {
  if (redis) redis.disconnect();
  if (server) server.kill();
});

const state = (i, endpoint) => ({
  class: 'ledger',
  event_id: `evt_${i}`,
  endpoint_id: endpoint,
  attempt: 1,
  max_attempts: 16,
  first_attempted_at_ms: T0,
  credentials_refreshed: false,
});

test('first attempts and reserved retries land in the fleet keys; the ratio holds', { skip }, async () => {
  const store = new RedisBudgetStore(redis);
  const rp = new RetryPolicy(DOC, { store, clock: new ManualClock(T0) });
  for (let i = 0; i < 30; i++) assert.equal(await rp.recordFirstAttempt('ledger', 'ep_a'), true);
  const reasons = [];
  for (let i = 0; i < 6; i++) reasons.push((await rp.afterAttempt(state(i, 'ep_a'), { status: 503 })).stop_reason);
  assert.deepEqual(reasons, [null, null, null, 'retry_budget_exhausted', 'retry_budget_exhausted', 'retry_budget_exhausted']);
  const key = bucketKey('ep_a', 60_000, Math.floor(T0 / 60_000));
  assert.equal(key, `rb:{ep_a}:60000:${Math.floor(T0 / 60_000)}`);
  assert.deepEqual(await redis.hgetall(key), { t: '33', r: '3' });
  assert.ok((await redis.pttl(key)) > 0);
});

test('concurrent afterAttempt calls never reserve past the ratio', { skip }, async () => {
  const store = new RedisBudgetStore(redis);
  const rp = new RetryPolicy(DOC, { store, clock: new ManualClock(T0) });
  for (let i = 0; i < 100; i++) await rp.recordFirstAttempt('ledger', 'ep_b');
  const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => rp.afterAttempt(state(i, 'ep_b'), { status: 503 })));
  const retries = decisions.filter((d) => d.stop_reason === null).length;
  // (r + 1) <= 0.1 * (100 + r + 1) holds up to r = 10.
  assert.equal(retries, 11);
  assert.equal(decisions.length - retries, 29);
});

test('the script agrees with the policy on every budget vector', { skip }, async () => {
  const store = new RedisBudgetStore(redis);
  let n = 0;
  for (const f of fs.readdirSync(vectors).filter((x) => x.endsWith('.json'))) {
    for (const c of JSON.parse(fs.readFileSync(path.join(vectors, f), 'utf8')).cases) {
      if (c.op !== 'budget' || c.expect.error) continue;
      const { budget, now_ms: now, current, previous } = c.input;
      const endpoint = `vec_${n++}`;
      const bucket = Math.floor(now / budget.window_ms);
      await redis.hset(bucketKey(endpoint, budget.window_ms, bucket), 't', current.total, 'r', current.retries);
      await redis.hset(bucketKey(endpoint, budget.window_ms, bucket - 1), 't', previous.total, 'r', previous.retries);
      const { counts, reserved } = await store.reserve(endpoint, budget.window_ms, bucket, now, budget);
      assert.deepEqual(counts, { current, previous }, c.name);
      assert.equal(reserved, c.expect.allows_retry, c.name);
      assert.equal(budgetAllows(budget, now, counts), reserved, c.name);
    }
  }
  assert.ok(n > 50, `only ${n} budget vectors`);
});

test('a flushed script is sent again (NOSCRIPT)', { skip }, async () => {
  const store = new RedisBudgetStore(redis);
  await store.recordAttempt('ep_c', 1000, 5, false);
  await redis.script('FLUSH');
  await store.recordAttempt('ep_c', 1000, 5, true);
  assert.deepEqual(await store.read('ep_c', 1000, 6), { current: { total: 0, retries: 0 }, previous: { total: 2, retries: 1 } });
});

test('an unreachable Redis makes retries budget_unavailable (fails closed)', { skip }, async () => {
  const down = new Redis({ port: await freePort(), host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  const errors = [];
  const rp = new RetryPolicy(DOC, { store: new RedisBudgetStore(down), clock: new ManualClock(T0), onStoreError: (e, ctx) => errors.push(ctx.operation) });
  const d = await rp.afterAttempt(state(1, 'ep_d'), { status: 503 });
  assert.equal(d.stop_reason, 'budget_unavailable');
  assert.equal(d.dead_letter.stop_reason, 'budget_unavailable');
  assert.deepEqual(errors, ['reserve']);
  assert.equal(await rp.recordFirstAttempt('ledger', 'ep_d'), false);
  down.disconnect();
});
