// The follower's driver loop (lib/rollout/follower.cjs) on a fake store in
// memory, no Redis: it makes the calls the component names, in order, with
// the doc's keys and bounds, feeds each answer back, swaps the fetched
// bytes in, keeps the state text across a swap, and turns a store that
// fails or never answers into a tick that settles nothing.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { rollout, loadArtifact, artifactInfo } from '@webhook/retry-policy';
import { SHIPPED, OTHER, sha, signingKey, signature, artifactKey } from './rollout-fixtures.mjs';

const key = signingKey();
const stranger = signingKey();
const trusted = rollout.readTrust(key.publicPem);
const NEVER = new Promise(() => {});

/** A store in memory with ioredis's surface; `calls` records each command, `fail` names commands that fail, `hang` those never answered. */
function fakeRedis() {
  const hashes = new Map();
  const strings = new Map();
  const calls = [];
  const fail = new Set();
  const hang = new Set();
  const reply = (name, args, f) => {
    calls.push([name, ...args]);
    if (hang.has(name)) return NEVER;
    return fail.has(name) ? Promise.reject(new Error(`${name} refused by the test`)) : Promise.resolve().then(f);
  };
  const field = (k, f) => hashes.get(k)?.[f] ?? null;
  return {
    calls, fail, hang, hashes, strings,
    pipeline() {
      const ops = [];
      const p = {
        hset: (k, f, v) => ops.push(['hset', [k, f], () => hashes.set(k, { ...hashes.get(k), [f]: Buffer.from(v) }) && 1]) && p,
        getrangeBuffer: (k, from, to) => ops.push(['getrange', [k, from, to], () => (strings.get(k) ?? Buffer.alloc(0)).subarray(from, to + 1)]) && p,
        exec: () => reply('pipeline', ops.map(([name, args]) => [name, ...args]), () => ops.map(([, , op]) => [null, op()])),
      };
      return p;
    },
    hstrlen: (k, f) => reply('hstrlen', [k, f], () => field(k, f)?.length ?? 0),
    hmgetBuffer: (k, ...fs) => reply('hmget', [k, ...fs], () => fs.map((f) => field(k, f))),
  };
}

/** Put `bytes` signed by `by` under its sha256 and a record naming it as stable at `epoch`. */
function publish(redis, bytes, epoch, by = key) {
  const digest = sha(bytes);
  redis.hashes.set(artifactKey(digest), { bytes: Buffer.from(bytes), signature: Buffer.from(signature(by, digest)), key_id: Buffer.from(by.keyId) });
  redis.strings.set(rollout.STATE_KEY, Buffer.from(`{"v":1,"epoch":${epoch},"stable":"${digest}","canary":null,"previous":[]}`));
  return digest;
}

function follower(redis, extra = {}) {
  const lines = [];
  const f = new rollout.RolloutFollower({ redis, trusted, replicaId: 'node-a', log: (l) => lines.push(l), timeoutMs: 50, ...extra });
  return { f, lines };
}

beforeEach(() => loadArtifact(SHIPPED));

test('a tick makes the component\'s calls in order with the doc\'s keys, swaps the fetched bytes in, and the next tick fetches nothing', async () => {
  const redis = fakeRedis();
  const b = publish(redis, OTHER, 1);
  const { f, lines } = follower(redis);
  const result = await f.tick();
  assert.equal(result.kind, 'swapped', JSON.stringify(result));
  assert.equal(result.sha256, b);
  assert.deepEqual([artifactInfo().sha256, artifactInfo().source], [b, 'redis']);
  assert.deepEqual(redis.calls.map((c) => c[0]), ['pipeline', 'hstrlen', 'hmget']);
  assert.deepEqual(redis.calls[0][1].slice(0, 3), ['hset', rollout.REPLICAS_KEY, 'node-a']);
  assert.deepEqual(redis.calls[0][2], ['getrange', rollout.STATE_KEY, 0, 4096]);
  assert.deepEqual(redis.calls[1], ['hstrlen', artifactKey(b), 'bytes']);
  assert.deepEqual(redis.calls[2], ['hmget', artifactKey(b), 'bytes', 'signature', 'key_id']);
  assert.deepEqual(await f.tick(), { kind: 'done' });
  assert.equal(redis.calls.length, 4, 'one pipelined round trip, nothing fetched');
  const written = JSON.parse(redis.hashes.get(rollout.REPLICAS_KEY)['node-a']);
  assert.deepEqual(written, f.lastStatus);
  assert.deepEqual([written.artifact_sha256, written.epoch, written.refusal], [b, 1, null]);
  assert.deepEqual(lines, []);
});

test('a record longer than 4,096 bytes is read no further than 4,097 and refused once as rollout_record_invalid', async () => {
  const redis = fakeRedis();
  redis.strings.set(rollout.STATE_KEY, Buffer.alloc(10_000, 0x20));
  const { f, lines } = follower(redis);
  const result = await f.tick();
  assert.equal(result.kind, 'refused');
  assert.deepEqual([result.refusal.sha256, result.refusal.code], [null, 'rollout_record_invalid']);
  assert.equal((await f.tick()).kind, 'done', 'the same text is not reported again');
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], /^policy artifact refused source=redis sha256=none code=rollout_record_invalid: /);
});

test('a failing HMGET settles nothing: logged, the next tick fetches again and swaps, and says the store is back', async () => {
  const redis = fakeRedis();
  const b = publish(redis, OTHER, 1);
  redis.fail.add('hmget');
  const { f, lines } = follower(redis);
  const failed = await f.tick();
  assert.equal(failed.kind, 'store_failed');
  assert.match(failed.error, /^HMGET: hmget refused by the test/);
  assert.equal(artifactInfo().sha256, sha(SHIPPED));
  redis.fail.clear();
  assert.equal((await f.tick()).kind, 'swapped');
  assert.equal(artifactInfo().sha256, b);
  assert.deepEqual(lines.map((l) => l.split(',')[0]), ['rollout: store unreachable', 'rollout: store reachable again'], lines.join('\n'));
});

test('a fetch that fails at every tick while the record answers is logged once, and the store back once', async () => {
  const redis = fakeRedis();
  publish(redis, OTHER, 1);
  redis.fail.add('hmget');
  const { f, lines } = follower(redis);
  for (let i = 0; i < 3; i++) assert.equal((await f.tick()).kind, 'store_failed');
  redis.fail.clear();
  assert.equal((await f.tick()).kind, 'swapped');
  assert.deepEqual(lines.map((l) => l.split(',')[0]), ['rollout: store unreachable', 'rollout: store reachable again'], lines.join('\n'));
});

test('a swap made outside the follower restarts the status\'s since_ms and counts once it is told', async () => {
  const redis = fakeRedis();
  let counts = { events: 2, dead_letters: 1 };
  let now = 1000;
  const { f } = follower(redis, { counts: () => counts, nowMs: () => now });
  await f.tick();
  assert.deepEqual([f.lastStatus.since_ms, f.lastStatus.events], [1000, 2]);
  now = 2000;
  loadArtifact(OTHER);
  f.artifactSwapped();
  counts = { events: 3, dead_letters: 1 };
  now = 3000;
  await f.tick();
  assert.deepEqual([f.lastStatus.since_ms, f.lastStatus.events, f.lastStatus.dead_letters], [2000, 1, 0]);
});

test('a store down for three ticks is logged once, not at every tick', async () => {
  const redis = fakeRedis();
  publish(redis, OTHER, 1);
  redis.fail.add('pipeline');
  const { f, lines } = follower(redis);
  for (let i = 0; i < 3; i++) assert.equal((await f.tick()).kind, 'store_failed');
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], new RegExp(`^rollout: store unreachable, keeping sha256=${sha(SHIPPED)}, retrying every tick: HSET \\+ GETRANGE: pipeline refused`));
});

test('a store that never answers is a store failure after the call\'s bound (the fetch\'s own, fetchTimeoutMs)', async () => {
  const redis = fakeRedis();
  publish(redis, OTHER, 1);
  redis.hang.add('hmget');
  const { f } = follower(redis, { fetchTimeoutMs: 120 });
  const started = Date.now();
  const result = await f.tick();
  assert.equal(result.kind, 'store_failed');
  assert.equal(result.error, 'HMGET: no answer within 120 ms');
  assert.ok(Date.now() - started >= 100);
  redis.hang.clear();
  redis.hang.add('pipeline');
  assert.deepEqual(await f.tick(), { kind: 'store_failed', error: 'HSET + GETRANGE: no answer within 50 ms' });
});

test('the state text outlives the swap: a refusal made on the old artifact is still in the status record the new one writes', async () => {
  const redis = fakeRedis();
  const refusedSha = publish(redis, Buffer.from('signed by a stranger'), 1, stranger);
  const { f } = follower(redis);
  assert.equal((await f.tick()).kind, 'refused');
  publish(redis, OTHER, 2);
  assert.equal((await f.tick()).kind, 'swapped');
  assert.equal((await f.tick()).kind, 'done');
  const status = f.lastStatus;
  assert.deepEqual([status.artifact_sha256, status.epoch], [sha(OTHER), 2]);
  assert.deepEqual([status.refusal.sha256, status.refusal.code], [refusedSha, 'rollout_key_unknown']);
});

test('a follower on a replica id the component refuses is a RolloutError rollout_input_invalid', () => {
  assert.throws(() => follower(fakeRedis(), { replicaId: 'x'.repeat(201) }), (e) => e instanceof rollout.RolloutError && e.code === 'rollout_input_invalid');
});
