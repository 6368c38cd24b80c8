// The replica's fleet budget over an ACL user and over TLS (rediss://),
// against Debian's redis-server started here on loopback ports (skipped,
// visibly, when it is not installed): the right user and password work, a
// wrong password fails closed; TLS with --ca-file works, without the CA it
// fails closed (budget_unavailable), never unverified.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync, execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { makeCertificates } from './tls-fixtures.mjs';
import { redisOptions } from '../examples/replica/redis-client.mjs';

const REPLICA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../replica');
const haveRedis = spawnSync('redis-server', ['--version']).status === 0;
const skip = haveRedis ? false : 'redis-server is not installed';
const servers = [];
let certs;
let target;
let endpoint;
let aclPort;
let tlsPort;
let policy;

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startRedis(args, port) {
  const child = spawn('redis-server', ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', certs.dir, ...args], { stdio: 'ignore' });
  servers.push(child);
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not listen on ${port}`);
}

before(async () => {
  if (!haveRedis) return;
  certs = makeCertificates();
  aclPort = await freePort();
  await startRedis(['--port', String(aclPort), '--user', 'default', 'off', '--user', 'fleet', 'on', '>s3cret', '~*', '&*', '+@all'], aclPort);
  tlsPort = await freePort();
  await startRedis(['--port', '0', '--tls-port', String(tlsPort), '--tls-cert-file', certs.loopback.certFile, '--tls-key-file', certs.loopback.keyFile,
    '--tls-ca-cert-file', certs.caFile, '--tls-auth-clients', 'no'], tlsPort);
  endpoint = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(503).end());
  });
  await new Promise((r) => endpoint.listen(0, '127.0.0.1', r));
  target = `http://127.0.0.1:${endpoint.address().port}/hook`;
  policy = path.join(certs.dir, 'policy.json');
  fs.writeFileSync(policy, JSON.stringify({
    classes: { storm: { window_ms: 3000, hard_cap: 3, backoff: { base_ms: 5, factor: 2.0, cap_ms: 20, jitter: 'full' }, budget: { ratio: 0.5, window_ms: 60_000, min_sample: 1000, sliding: true } } },
  }));
});

after(async () => {
  for (const s of servers) s.kill('SIGTERM');
  if (endpoint) await new Promise((r) => endpoint.close(r));
  certs?.cleanup();
});

function replica(redisUrl, extra = []) {
  return new Promise((resolve) => {
    execFile(REPLICA, ['--target', target, '--endpoint-id', 'ep-acl', '--events', '4', '--concurrency', '2', '--policy', policy, '--redis', redisUrl, '--allow-private-targets', ...extra],
      { timeout: 60_000 }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, summary: stdout ? JSON.parse(stdout) : null, stderr }));
  });
}

test('the URL gives ioredis the ACL user, the db and, for rediss, the platform roots plus the CA file', () => {
  const plain = redisOptions('redis://fleet:p%40ss@127.0.0.1:6380/2');
  assert.deepEqual(plain, { host: '127.0.0.1', port: 6380, username: 'fleet', password: 'p@ss', db: 2 });
  assert.deepEqual(redisOptions('redis://nopass@h:1'), { host: 'h', port: 1, username: 'nopass', password: '' });
  assert.deepEqual(redisOptions('rediss://h:1').tls, {}, "no --ca-file: node's default roots, verified");
  const tls = redisOptions('rediss://h:1', ['PEM']).tls;
  assert.equal(tls.ca.at(-1), 'PEM');
  assert.ok(tls.ca.length > 100, 'the platform roots are kept');
  assert.equal(tls.rejectUnauthorized, undefined, 'verification is never turned off');
});

test('an ACL user with its password gets the fleet budget: one store call per attempt that needs it', { skip }, async () => {
  const { code, summary, stderr } = await replica(`redis://fleet:s3cret@127.0.0.1:${aclPort}/0`);
  assert.equal(code, 0, stderr);
  assert.equal(summary.stop_reasons.max_attempts_exhausted, 4, JSON.stringify(summary));
  // One EVALSHA per attempt whose retry needs the budget (the last one, at hard_cap, needs none).
  assert.equal(summary.redis_round_trips, summary.attempts - summary.events);
  assert.equal(summary.stop_reasons.budget_unavailable, 0);
});

test('a wrong ACL password fails closed: every event budget_unavailable after one attempt', { skip }, async () => {
  const { code, summary, stderr } = await replica(`redis://fleet:wrong@127.0.0.1:${aclPort}/0`);
  assert.equal(code, 0, stderr);
  assert.equal(summary.stop_reasons.budget_unavailable, 4, JSON.stringify(summary));
  assert.equal(summary.attempts, 4);
  assert.equal(summary.redis_round_trips, 0);
  assert.doesNotMatch(stderr, /wrong@/, 'the password is not logged');
});

test('rediss:// with --ca-file gets the fleet budget over TLS', { skip }, async () => {
  const { code, summary, stderr } = await replica(`rediss://127.0.0.1:${tlsPort}/0`, ['--ca-file', certs.caFile]);
  assert.equal(code, 0, stderr);
  assert.equal(summary.stop_reasons.max_attempts_exhausted, 4, JSON.stringify(summary));
  assert.equal(summary.redis_round_trips, summary.attempts - summary.events);
});

test('rediss:// without the CA fails closed: the certificate is not trusted, nothing is skipped', { skip }, async () => {
  const { code, summary, stderr } = await replica(`rediss://127.0.0.1:${tlsPort}/0`);
  assert.equal(code, 0, stderr);
  assert.equal(summary.stop_reasons.budget_unavailable, 4, JSON.stringify(summary));
  assert.equal(summary.redis_round_trips, 0);
  assert.match(stderr, /certificate/i);
});
