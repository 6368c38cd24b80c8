// The follower on the replica's own rediss:// connection with an ACL user
// and --ca-file's CA (examples/replica/redis-client.mjs), against Debian's
// redis-server with TLS on a loopback port: a publish is followed; without
// the CA the store is never trusted, so the tick fails and nothing changes.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { rollout, loadArtifact, artifactInfo } from '@webhook/retry-policy';
import { connectRedis } from '../examples/replica/redis-client.mjs';
import { makeCertificates } from './tls-fixtures.mjs';
import { haveRedis, freePort } from './local-redis.mjs';
import { SHIPPED, OTHER, sha, signingKey, publishArtifact, setRecord, statusOf } from './rollout-fixtures.mjs';

const skip = haveRedis ? false : 'redis-server is not installed';
const key = signingKey();
let certs;
let server;
let port;

before(async () => {
  if (skip) return;
  certs = makeCertificates();
  port = await freePort();
  server = spawn('redis-server', ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', certs.dir, '--port', '0', '--tls-port', String(port),
    '--tls-cert-file', certs.loopback.certFile, '--tls-key-file', certs.loopback.keyFile, '--tls-ca-cert-file', certs.caFile, '--tls-auth-clients', 'no',
    '--user', 'default', 'off', '--user', 'fleet', 'on', '>s3cret', '~*', '&*', '+@all'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
});
after(() => {
  server?.kill();
  certs?.cleanup();
});
beforeEach(() => {
  if (!skip) loadArtifact(SHIPPED);
});

const url = () => `rediss://fleet:s3cret@127.0.0.1:${port}`;

test('a follower on a rediss:// connection as ACL user fleet, trusting --ca-file, follows a publish', { skip }, async () => {
  const redis = await connectRedis(url(), () => {}, { ca: [certs.ca] });
  try {
    const b = await publishArtifact(redis, OTHER, key);
    await setRecord(redis, { epoch: 1, stable: b });
    const f = new rollout.RolloutFollower({ redis, trusted: rollout.readTrust(key.publicPem), replicaId: 'node-tls', timeoutMs: 1000 });
    assert.equal((await f.tick()).kind, 'swapped');
    assert.equal(artifactInfo().sha256, sha(OTHER));
    assert.equal((await f.tick()).kind, 'done');
    assert.equal((await statusOf(redis, 'node-tls')).artifact_sha256, sha(OTHER));
    f.close();
  } finally {
    redis.disconnect();
  }
});

test('without the CA the rediss:// store is not trusted: the tick fails and the running artifact stays', { skip }, async () => {
  const lines = [];
  const redis = await connectRedis(url(), () => {}, { ca: [] });
  try {
    const f = new rollout.RolloutFollower({ redis, trusted: rollout.readTrust(key.publicPem), replicaId: 'node-tls', timeoutMs: 500, log: (l) => lines.push(l) });
    assert.equal((await f.tick()).kind, 'store_failed');
    assert.equal((await f.tick()).kind, 'store_failed');
    assert.equal(artifactInfo().sha256, sha(SHIPPED));
    assert.equal(lines.length, 1, lines.join('\n'));
    f.close();
  } finally {
    redis.disconnect();
  }
});
