// RedisBudgetStore against a real redis-server started on a loopback port
// for this file (skipped, visibly, when redis-server is not installed): the
// fleet's script on the store protocol, ONE command per request, the same
// answers as the in-memory store (the core's rule), atomic under
// concurrency, NOSCRIPT recovery, the clock-skew check, and failing closed
// when Redis is unreachable or hangs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { haveRedis, freePort, startRedis } from './local-redis.mjs';
import { RedisBudgetStore, InMemoryBudgetStore, RetryPolicy, ManualClock, storeKey } from '@webhook/retry-policy';

const skip = haveRedis ? false : 'redis-server is not installed';
// Near Redis TIME (the skew check refuses a caller a quarter window off).
const T0 = Date.now();
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

before(async () => {
  if (!haveRedis) return;
  ({ port, server, redis } = await startRedis('redis-'));
  assert.equal(await redis.ping(), 'PONG');
});

after(async () => {
  if (redis) redis.disconnect();
  if (server) server.kill();
});

const state = (i, endpoint, attempt = 1) => ({
  class: 'ledger',
  event_id: `evt_${i}`,
  endpoint_id: endpoint,
  attempt,
  max_attempts: 16,
  first_attempted_at_ms: T0,
  credentials_refreshed: false,
});

/** `redis` with every command it is sent counted by name. */
function counting(client) {
  const sent = [];
  return {
    sent,
    evalsha: (...a) => (sent.push('evalsha'), client.evalsha(...a)),
    eval: (...a) => (sent.push('eval'), client.eval(...a)),
  };
}

const BUDGET = DOC.classes.ledger.budget;

test('every request is ONE command on the store key (EVAL first, then EVALSHA), and the ratio holds', { skip }, async () => {
  const client = counting(redis);
  const rp = new RetryPolicy(DOC, { store: new RedisBudgetStore(client), clock: new ManualClock(T0) });
  for (let i = 0; i < 30; i++) assert.equal((await rp.step(state(i, 'ep_a'), { status: 204 })).stop_reason, 'delivered');
  const reasons = [];
  for (let i = 0; i < 6; i++) reasons.push((await rp.step(state(100 + i, 'ep_a'), { status: 503 })).stop_reason);
  // Each failing first attempt is recorded and judged in one call (record_reserve).
  assert.deepEqual(reasons, [null, null, null, 'retry_budget_exhausted', 'retry_budget_exhausted', null]);
  // A new store's first request is an EVAL (caching the script), then EVALSHA only.
  assert.deepEqual(client.sent, ['eval', ...Array(35).fill('evalsha')]);
  const bucket = Math.floor(T0 / 60_000);
  const key = storeKey({ op: 'record', endpoint_id: 'ep_a', window_ms: 60_000, bucket });
  assert.equal(key, `rb:{e${Buffer.from('ep_a').toString('hex')}}:60000`);
  assert.deepEqual(await redis.hgetall(key), { [`t:${bucket}`]: '40', [`r:${bucket}`]: '4' });
  assert.ok((await redis.pttl(key)) > 0);
  assert.equal(rp.budgetDisagreements, 0);
});

test('the script answers every request exactly as the in-memory store (the core\'s rule) does', { skip }, async () => {
  const remote = new RedisBudgetStore(redis, { skewCheck: false });
  const local = new InMemoryBudgetStore();
  let seed = 42;
  const rnd = (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const budgets = [BUDGET, { ratio: 0.5, window_ms: 1000, min_sample: 3, sliding: true }, { ratio: 0.3, window_ms: 7_000, min_sample: 0, sliding: false }];
  let now = 1_000_000;
  for (let i = 0; i < 600; i++) {
    const budget = budgets[i % 3];
    now += rnd(3) === 0 ? rnd(budget.window_ms * 2) : 0;
    const request = { op: ['record', 'reserve', 'record_reserve'][rnd(3)], endpoint_id: `agree_${rnd(3)}`, window_ms: budget.window_ms, bucket: Math.floor(now / budget.window_ms) };
    assert.deepEqual(await remote.call(request, budget, now), local.call(request, budget, now), `request ${i}: ${JSON.stringify(request)}`);
  }
});

test('concurrent first attempts never reserve past the ratio', { skip }, async () => {
  const store = new RedisBudgetStore(redis);
  const rp = new RetryPolicy(DOC, { store, clock: new ManualClock(T0) });
  for (let i = 0; i < 100; i++) await rp.step(state(i, 'ep_b'), { status: 200 });
  const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => rp.step(state(200 + i, 'ep_b'), { status: 503 })));
  // The same 140 requests one by one through the in-memory store.
  const local = new RetryPolicy(DOC, { clock: new ManualClock(T0) });
  for (let i = 0; i < 100; i++) await local.step(state(i, 'ep_b'), { status: 200 });
  let expected = 0;
  for (let i = 0; i < 40; i++) if ((await local.step(state(200 + i, 'ep_b'), { status: 503 })).stop_reason === null) expected++;
  assert.equal(decisions.filter((d) => d.stop_reason === null).length, expected);
  assert.ok(expected > 5 && expected < 20, `${expected} retries`);
});

test('a flushed script is sent again as EVAL once, and nothing is counted twice', { skip }, async () => {
  const client = counting(redis);
  const store = new RedisBudgetStore(client);
  const request = { op: 'record', endpoint_id: 'ep_c', window_ms: 60_000, bucket: Math.floor(T0 / 60_000) };
  await store.call(request, BUDGET, T0);
  await redis.script('FLUSH');
  const r = await store.call(request, BUDGET, T0);
  assert.deepEqual(r.counts.current, { total: 2, retries: 0 });
  assert.deepEqual(client.sent, ['eval', 'evalsha', 'eval']);
  await store.call(request, BUDGET, T0);
  assert.deepEqual(client.sent, ['eval', 'evalsha', 'eval', 'evalsha']);
});

test('a caller whose clock is a quarter window off Redis TIME is refused (skew check), unless it is off', { skip }, async () => {
  const request = { op: 'reserve', endpoint_id: 'ep_s', window_ms: 60_000, bucket: Math.floor((T0 - 30_000) / 60_000) };
  await assert.rejects(new RedisBudgetStore(redis).call(request, BUDGET, T0 - 30_000), /skew/i);
  const r = await new RedisBudgetStore(redis, { skewCheck: false }).call(request, BUDGET, T0 - 30_000);
  assert.deepEqual(r, { reserved: false, counts: { current: { total: 0, retries: 0 }, previous: { total: 0, retries: 0 } } });
  const errors = [];
  const rp = new RetryPolicy(DOC, { store: new RedisBudgetStore(redis), clock: new ManualClock(T0 - 30_000), onStoreError: (e) => errors.push(e) });
  assert.equal((await rp.step(state(1, 'ep_s'), { status: 503 })).stop_reason, 'budget_unavailable');
  assert.equal(errors.length, 1);
});

test('an unreachable Redis makes retries budget_unavailable, and never stops a delivered first attempt', { skip }, async () => {
  const down = new Redis({ port: await freePort(), host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  const errors = [];
  const rp = new RetryPolicy(DOC, { store: new RedisBudgetStore(down), clock: new ManualClock(T0), onStoreError: (e, ctx) => errors.push(ctx.operation) });
  const d = await rp.step(state(1, 'ep_d'), { status: 503 });
  assert.equal(d.stop_reason, 'budget_unavailable');
  assert.equal(d.dead_letter.stop_reason, 'budget_unavailable');
  assert.equal((await rp.step(state(2, 'ep_d'), { status: 200 })).stop_reason, 'delivered');
  assert.deepEqual(errors, ['record_reserve', 'record']);
  down.disconnect();
});

test('a hung Redis (SIGSTOP) fails closed within the store timeout', { skip }, async () => {
  const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
  await client.ping();
  const rp = new RetryPolicy(DOC, { store: new RedisBudgetStore(client), clock: new ManualClock(T0), storeTimeoutMs: 100 });
  server.kill('SIGSTOP');
  try {
    const t = performance.now();
    assert.equal((await rp.step(state(1, 'ep_h'), { status: 503 })).stop_reason, 'budget_unavailable');
    assert.ok(performance.now() - t < 1000);
  } finally {
    server.kill('SIGCONT');
  }
  client.disconnect();
});

test('only maxmemory-policy noeviction keeps budget keys safe', async () => {
  const { evictionWarning, checkEviction } = await import('@webhook/retry-policy');
  assert.equal(evictionWarning('noeviction'), null);
  for (const p of ['allkeys-lru', 'volatile-lru', 'volatile-ttl']) assert.match(evictionWarning(p), new RegExp(`${p}.*noeviction`));
  assert.match(await checkEviction({ call: async () => ['maxmemory-policy', 'volatile-lru'] }), /volatile-lru/);
  assert.equal(await checkEviction({ call: async () => ['maxmemory-policy', 'noeviction'] }), null);
  assert.equal(await checkEviction({ call: async () => { throw new Error('ERR unknown command CONFIG'); } }), null);
  assert.equal(await checkEviction({ call: () => new Promise(() => {}) }, 20), null, 'a hung Redis does not hold the start');
});
