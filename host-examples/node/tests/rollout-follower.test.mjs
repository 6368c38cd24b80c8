// The package's RolloutFollower (docs/rollout.md "What a replica does"; its
// decisions are the component's, its store calls and swap this host's)
// against a private redis-server on loopback: it follows a publish, and
// every refusal keeps the running artifact and is reported once, with its
// code, in the log and in the status record; Redis down changes nothing.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { rollout, loadArtifact, artifactInfo } from '@webhook/retry-policy';
import { haveRedis, startRedis } from './local-redis.mjs';
import { SHIPPED, OTHER, sha, signingKey, signature, publishArtifact, setRecord, statusOf, artifactKey } from './rollout-fixtures.mjs';

const skip = haveRedis ? false : 'redis-server is not installed';
const key = signingKey();
const stranger = signingKey();
const trusted = rollout.readTrust(key.publicPem);
let local;
let redis;

before(async () => {
  if (skip) return;
  local = await startRedis('rollout-follower-');
  redis = local.redis;
});
after(() => {
  redis?.disconnect();
  local?.server.kill();
});
beforeEach(async () => {
  if (skip) return;
  await redis.flushdb();
  loadArtifact(SHIPPED); // the process's artifact, as a replica starts
});

/** A follower on `client` (default the test's Redis) whose log lines are kept in `lines`. */
function follower(client = redis, extra = {}) {
  const lines = [];
  const f = new rollout.RolloutFollower({ redis: client, trusted, replicaId: 'node-a', log: (l) => lines.push(l), timeoutMs: 1000, ...extra });
  return { f, lines };
}

/** A client that counts HMGET calls (the artifact fetch) and otherwise is `redis`. */
function counting() {
  const calls = { hmget: 0 };
  const client = {
    pipeline: () => redis.pipeline(),
    hstrlen: (...a) => redis.hstrlen(...a),
    hmgetBuffer: (...a) => {
      calls.hmget += 1;
      return redis.hmgetBuffer(...a);
    },
  };
  return { client, calls };
}

test('a follower swaps in the published stable artifact on its tick and reports it in its next status record', { skip }, async () => {
  const b = await publishArtifact(redis, OTHER, key);
  await setRecord(redis, { epoch: 1, stable: b });
  let finished = { events: 5, dead_letters: 1 };
  const { f, lines } = follower(redis, { counts: () => finished });
  const result = await f.tick();
  assert.equal(result.kind, 'swapped');
  assert.equal(artifactInfo().sha256, sha(OTHER));
  assert.equal(artifactInfo().source, 'redis');
  finished = { events: 8, dead_letters: 2 };
  assert.equal((await f.tick()).kind, 'done');
  const status = await statusOf(redis, 'node-a');
  assert.deepEqual(f.lastStatus, status);
  assert.deepEqual(Object.keys(status), ['replica_id', 'language', 'host', 'pid', 'artifact_sha256', 'document_version', 'since_ms', 'events', 'dead_letters', 'seen_ms', 'epoch', 'refusal']);
  assert.equal(status.artifact_sha256, sha(OTHER));
  assert.equal(status.epoch, 1);
  assert.equal(status.language, 'node');
  assert.equal(status.refusal, null);
  assert.deepEqual([status.events, status.dead_letters], [3, 1], 'counted since the swap');
  assert.ok(status.seen_ms >= status.since_ms);
  assert.deepEqual(lines, []);
  f.close();
});

test('a record naming the running artifact settles its epoch without fetching anything', { skip }, async () => {
  await setRecord(redis, { epoch: 3, stable: sha(SHIPPED) });
  const { client, calls } = counting();
  const { f } = follower(client);
  assert.deepEqual(await f.tick(), { kind: 'done' });
  assert.deepEqual(await f.tick(), { kind: 'done' });
  assert.equal((await statusOf(redis, 'node-a')).epoch, 3, 'settled, as the next status record says');
  assert.equal(calls.hmget, 0);
  f.close();
});

test('no record published keeps the running artifact and settles nothing', { skip }, async () => {
  const { f } = follower();
  assert.equal((await f.tick()).kind, 'done');
  assert.equal((await f.tick()).kind, 'done');
  assert.equal(f.lastStatus.epoch, 0);
  assert.equal(artifactInfo().sha256, sha(SHIPPED));
  f.close();
});

/** Publish with `setup`, tick three times: one refusal with `code`, logged once, the artifact kept. */
async function refusedOnce(setup, code, { client = redis } = {}) {
  const desiredSha = await setup();
  const { f, lines } = follower(client);
  const first = await f.tick();
  assert.equal(first.kind, 'refused', JSON.stringify(first));
  assert.equal(first.refusal.code, code);
  assert.equal((await f.tick()).kind, 'done');
  assert.equal((await f.tick()).kind, 'done');
  assert.equal(artifactInfo().sha256, sha(SHIPPED), 'the running artifact is kept');
  assert.equal(lines.length, 1, lines.join('\n'));
  const prefix = `policy artifact refused source=redis sha256=${desiredSha ?? 'none'} code=${code}: `;
  assert.ok(lines[0].startsWith(prefix), lines[0]);
  assert.ok(lines[0].endsWith(`; keeping sha256=${sha(SHIPPED)}`), lines[0]);
  const status = await statusOf(redis, 'node-a');
  assert.equal(status.refusal.code, code);
  assert.equal(status.refusal.sha256, desiredSha);
  assert.equal(status.artifact_sha256, sha(SHIPPED));
  f.close();
  return f;
}

test('a signature over another digest is refused once as rollout_signature_invalid', { skip }, async () => {
  await refusedOnce(async () => {
    const b = await publishArtifact(redis, OTHER, key, { fields: { signature: signature(key, sha(SHIPPED)) } });
    await setRecord(redis, { epoch: 2, stable: b });
    return b;
  }, 'rollout_signature_invalid');
});

test('an artifact signed by a key that is not trusted is refused once as rollout_key_unknown', { skip }, async () => {
  await refusedOnce(async () => {
    const b = await publishArtifact(redis, OTHER, stranger);
    await setRecord(redis, { epoch: 2, stable: b });
    return b;
  }, 'rollout_key_unknown');
});

test('an artifact over 4 MiB is refused from HSTRLEN as artifact_too_large and never fetched', { skip }, async () => {
  const { client, calls } = counting();
  const big = Buffer.alloc(4 * 1024 * 1024 + 1, 7);
  await refusedOnce(async () => {
    const b = await publishArtifact(redis, big, key);
    await setRecord(redis, { epoch: 2, stable: b });
    return b;
  }, 'artifact_too_large', { client });
  assert.equal(calls.hmget, 0, 'the bytes were never fetched');
});

test('a record naming an artifact that is not stored is refused once as rollout_artifact_missing', { skip }, async () => {
  await refusedOnce(async () => {
    await setRecord(redis, { epoch: 2, stable: sha(OTHER) });
    return sha(OTHER);
  }, 'rollout_artifact_missing');
});

test('an artifact hash without its signature field is refused as rollout_artifact_missing', { skip }, async () => {
  await refusedOnce(async () => {
    const b = await publishArtifact(redis, OTHER, key);
    await redis.hdel(artifactKey(b), 'signature');
    await setRecord(redis, { epoch: 2, stable: b });
    return b;
  }, 'rollout_artifact_missing');
});

test('a record that is not canonical is refused once as rollout_record_invalid', { skip }, async () => {
  await refusedOnce(async () => {
    await setRecord(redis, `{"v":1, "epoch":2,"stable":"${sha(OTHER)}","canary":null,"previous":[]}`);
    return null;
  }, 'rollout_record_invalid');
});

test('signed bytes stored under another sha256 are refused as artifact_sha256_mismatch', { skip }, async () => {
  await refusedOnce(async () => {
    const under = sha(Buffer.from('not the artifact'));
    await publishArtifact(redis, OTHER, key, { under });
    await setRecord(redis, { epoch: 2, stable: under });
    return under;
  }, 'artifact_sha256_mismatch');
});

test('signed bytes that are no component are refused by the load checks as artifact_invalid', { skip }, async () => {
  await refusedOnce(async () => {
    const b = await publishArtifact(redis, Buffer.from('not a component'), key);
    await setRecord(redis, { epoch: 2, stable: b });
    return b;
  }, 'artifact_invalid');
});

test('a refused artifact is retried when the record changes, and a fixed publish is then swapped in', { skip }, async () => {
  const b = await publishArtifact(redis, OTHER, key, { fields: { signature: signature(key, sha(SHIPPED)) } });
  await setRecord(redis, { epoch: 2, stable: b });
  const { f, lines } = follower();
  assert.equal((await f.tick()).kind, 'refused');
  await publishArtifact(redis, OTHER, key);
  assert.equal((await f.tick()).kind, 'done', 'the same epoch is not retried');
  await setRecord(redis, { epoch: 3, stable: b, previous: [sha(SHIPPED)] });
  assert.equal((await f.tick()).kind, 'swapped');
  assert.equal(artifactInfo().sha256, sha(OTHER));
  assert.equal(lines.length, 1);
  assert.equal(f.refusal.code, 'rollout_signature_invalid', 'the latest refusal stays reported');
  f.close();
});

test('a store failure while fetching leaves the epoch unsettled and the next tick fetches again', { skip }, async () => {
  const b = await publishArtifact(redis, OTHER, key);
  await setRecord(redis, { epoch: 1, stable: b });
  let fail = true;
  const client = {
    pipeline: () => redis.pipeline(),
    hstrlen: (...a) => (fail ? Promise.reject(new Error('connection lost')) : redis.hstrlen(...a)),
    hmgetBuffer: (...a) => redis.hmgetBuffer(...a),
  };
  const { f, lines } = follower(client);
  assert.equal((await f.tick()).kind, 'store_failed');
  fail = false;
  assert.equal((await f.tick()).kind, 'swapped', 'fetched again: the epoch was left unsettled');
  assert.equal((await f.tick()).kind, 'done');
  assert.equal(f.lastStatus.epoch, 1);
  assert.deepEqual(lines.map((l) => l.split(',')[0]), ['rollout: store unreachable', 'rollout: store reachable again'], lines.join('\n'));
  f.close();
});

test('Redis down keeps the running artifact, settles nothing and logs the failure once', { skip }, async () => {
  const own = await startRedis('rollout-down-');
  const b = await publishArtifact(own.redis, OTHER, key);
  await setRecord(own.redis, { epoch: 1, stable: b });
  // A fail-fast client, as the replica's: nothing queued while disconnected.
  const { default: Redis } = await import('ioredis');
  const client = new Redis({ port: own.port, host: '127.0.0.1', enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
  client.on('error', () => {});
  await new Promise((r) => client.once('ready', r));
  own.redis.disconnect();
  own.server.kill();
  await new Promise((r) => own.server.once('exit', r));
  const { f, lines } = follower(client);
  for (let i = 0; i < 3; i++) assert.equal((await f.tick()).kind, 'store_failed');
  assert.equal(artifactInfo().sha256, sha(SHIPPED));
  assert.equal(f.lastStatus.epoch, 0);
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], new RegExp(`^rollout: store unreachable, keeping sha256=${sha(SHIPPED)}, retrying every tick: `));
  f.close();
  client.disconnect();
});

test('a follower on a Redis Cluster client connected as the replica connects (one-node cluster on loopback) follows a publish through one hash tag', { skip }, async () => {
  const { spawn } = await import('node:child_process');
  const { freePort } = await import('./local-redis.mjs');
  const { connectRedis } = await import('../examples/replica/redis-client.mjs');
  const os = await import('node:os');
  const fs = await import('node:fs');
  const port = await freePort();
  const dir = fs.mkdtempSync(`${os.tmpdir()}/rollout-cluster-`);
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-announce-ip', '127.0.0.1',
    '--cluster-config-file', `${dir}/nodes.conf`, '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const { default: Redis } = await import('ioredis');
  const admin = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
  admin.on('error', () => {});
  let cluster = null;
  try {
    for (let i = 0; i < 100; i++) {
      try {
        await admin.connect();
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    await admin.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    for (let i = 0; i < 100 && !/cluster_state:ok/.test(await admin.call('CLUSTER', 'INFO')); i++) await new Promise((r) => setTimeout(r, 50));
    cluster = await connectRedis(`redis://127.0.0.1:${port}`, () => {}, { cluster: true });
    for (let i = 0; i < 100 && cluster.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
    const b = await publishArtifact(cluster, OTHER, key);
    await setRecord(cluster, { epoch: 1, stable: b });
    const { f } = follower(cluster);
    assert.equal((await f.tick()).kind, 'swapped');
    assert.equal(artifactInfo().sha256, sha(OTHER));
    assert.equal((await f.tick()).kind, 'done');
    assert.equal((await statusOf(cluster, 'node-a')).artifact_sha256, sha(OTHER));
    f.close();
  } finally {
    cluster?.disconnect();
    admin.disconnect();
    server.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('readTrustFile reads a regular file and refuses a directory, a device and a file over 1 MiB unread', async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const dir = fs.mkdtempSync(`${os.tmpdir()}/rollout-trust-`);
  try {
    fs.writeFileSync(`${dir}/ok.pem`, key.publicPem);
    assert.deepEqual(rollout.readTrustFile(`${dir}/ok.pem`).keyIds, [key.keyId]);
    fs.writeFileSync(`${dir}/big.pem`, Buffer.alloc(rollout.MAX_TRUST_FILE_BYTES + 1, 0x61));
    for (const [file, why] of [[dir, /not a regular file/], ['/dev/zero', /not a regular file/], [`${dir}/big.pem`, /more than 1048576 bytes/], [`${dir}/none.pem`, /cannot read it/]]) {
      assert.throws(() => rollout.readTrustFile(file), (e) => e.code === 'rollout_trust_invalid' && e.message.includes(file) && why.test(e.message), file);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
