// The replica's rollout flags (docs/replica.md): --artifact-from-redis,
// --trust-key, --replica-id, --rollout-poll-ms and their exit-2 rules (the
// component's, through replica-args; the trust file read by this host).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { replicaOptions, UsageError } from '../examples/replica/args.mjs';
import { signingKey } from './rollout-fixtures.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPLICA = path.resolve(here, '../replica');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollout-flags-'));
const trust = path.join(dir, 'trust.pem');
fs.writeFileSync(trust, signingKey().publicPem);
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const BASE = ['--target', 'http://127.0.0.1:9/', '--endpoint-id', 'ep', '--events', '0'];
const FOLLOW = [...BASE, '--redis', 'redis://127.0.0.1:6379', '--artifact-from-redis', '--trust-key', trust];
const refused = (argv, pattern) => assert.throws(() => replicaOptions(argv), (e) => e instanceof UsageError && pattern.test(e.message), argv.join(' '));

test('--artifact-from-redis with --redis and --trust-key parses, with the defaults of docs/replica.md', () => {
  const opts = replicaOptions(FOLLOW);
  assert.equal(opts.artifact_from_redis, true);
  assert.deepEqual([opts.trust_key, opts.trusted.pem], [trust, fs.readFileSync(trust, 'utf8')], 'read, its keys read by the component');
  assert.equal(opts.trusted.keyIds.length, 1);
  assert.equal(opts.rollout_poll_ms, 500);
  assert.equal(opts.replica_id, `node-${os.hostname()}-${process.pid}`);
  const cluster = replicaOptions([...BASE, '--redis-cluster', 'redis://127.0.0.1:7000', '--artifact-from-redis', '--trust-key', trust, '--replica-id', 'réplica-ü', '--rollout-poll-ms', '50']);
  assert.deepEqual([cluster.replica_id, cluster.rollout_poll_ms], ['réplica-ü', 50]);
  assert.equal(replicaOptions(BASE).artifact_from_redis, false);
  assert.equal(replicaOptions(BASE).trusted, null);
});

test('--artifact-from-redis without a Redis, without --trust-key, or with --watch-artifact-ms is a usage error', () => {
  refused([...BASE, '--artifact-from-redis', '--trust-key', trust], /needs --redis or --redis-cluster/);
  refused([...BASE, '--redis', 'redis://127.0.0.1:6379', '--artifact-from-redis'], /needs --trust-key/);
  refused([...FOLLOW, '--artifact', path.join(here, '../lib/retry_policy.wasm'), '--watch-artifact-ms', '100'], /exclusive/);
  refused([...BASE, '--trust-key', trust], /--trust-key is only for --artifact-from-redis/);
  refused([...FOLLOW, '--artifact-from-redis'], /given twice/);
});

test('--replica-id is 1 to 200 bytes of UTF-8 and --rollout-poll-ms 50 to 60000', () => {
  refused([...FOLLOW, '--replica-id', ''], /--replica-id/);
  refused([...FOLLOW, '--replica-id', 'ü'.repeat(101)], /--replica-id: .*got 202/);
  assert.equal(replicaOptions([...FOLLOW, '--replica-id', 'x'.repeat(200)]).replica_id.length, 200);
  for (const bad of ['49', '60001', '-1', '1e3', '']) refused([...FOLLOW, '--rollout-poll-ms', bad], /--rollout-poll-ms/);
  assert.equal(replicaOptions([...FOLLOW, '--rollout-poll-ms', '60000']).rollout_poll_ms, 60000);
});

test('a trust file that is unreadable, not a regular file, holds no PEM block or a non-Ed25519 key exits 2 with one line naming it and rollout_trust_invalid', () => {
  const bad = path.join(dir, 'bad.pem');
  fs.writeFileSync(bad, '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE5/OdFux6o2d8VCNWgvkkz+x4xLPl\n3GfOZExoQwORDYE/BoNWh2QjGklKJT61b4vKM1kfg8FHhnZhhth0Y3NRiA==\n-----END PUBLIC KEY-----\n');
  const empty = path.join(dir, 'empty.pem');
  fs.writeFileSync(empty, '');
  for (const file of [bad, empty, path.join(dir, 'missing.pem'), dir, '/dev/zero']) {
    const proc = spawnSync(REPLICA, [...BASE, '--redis', 'redis://127.0.0.1:9', '--artifact-from-redis', '--trust-key', file], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(proc.status, 2, proc.stderr);
    assert.equal(proc.stdout, '');
    const lines = proc.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, proc.stderr);
    assert.ok(lines[0].includes(file) && lines[0].includes('rollout_trust_invalid'), lines[0]);
  }
});

test('the replica --help names the four rollout flags', () => {
  const out = spawnSync(REPLICA, ['--help'], { encoding: 'utf8', timeout: 30_000 }).stdout;
  for (const flag of ['--artifact-from-redis', '--trust-key', '--replica-id', '--rollout-poll-ms']) assert.ok(out.includes(flag), flag);
});
