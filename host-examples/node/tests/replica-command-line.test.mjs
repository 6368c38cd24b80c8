// The replica's command line through the component's `replica-args`
// (examples/replica/args.mjs): the GENERATED usage texts and flag names
// answer --help, --version and an unknown flag before the artifact loads;
// every other judgement is the component's one line; the language extras
// this host declares are honoured, the others refused naming them.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { verify } from '@webhook/retry-policy';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPLICA = path.resolve(here, '../replica');
const { REPLICA_USAGE, REPLAY_USAGE } = createRequire(import.meta.url)('../lib/replica-usage.cjs');
const NO_ARTIFACT = { RETRY_POLICY_ARTIFACT: '/nonexistent/retry_policy.wasm' };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replica-cli-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const policy = path.join(dir, 'policy.json');
fs.writeFileSync(policy, JSON.stringify({ classes: { storm: { window_ms: 2000, hard_cap: 2, backoff: { base_ms: 5, factor: 2, cap_ms: 10, jitter: 'none' } } } }));
const BASE = ['--target', 'http://127.0.0.1:9/', '--endpoint-id', 'ep', '--events', '1', '--policy', policy];

function replica(args, env = {}) {
  return new Promise((resolve) => {
    execFile(REPLICA, args, { timeout: 30_000, env: { ...process.env, ...env } }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}

for (const [command, args, usage] of [['replica', [], REPLICA_USAGE], ['replica replay', ['replay'], REPLAY_USAGE]]) {
  test(`${command} --help and -h print the generated usage on stdout and exit 0 without loading the artifact`, async () => {
    for (const flag of ['--help', '-h']) {
      const r = await replica([...args, '--store', 'x', flag], NO_ARTIFACT);
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, usage, ''], `${command} ${flag}`);
    }
  });

  test(`${command} with a flag no command has exits 2 naming it before the artifact loads`, async () => {
    for (const bad of ['--no-such-flag', '--no-such-flag=1']) {
      const r = await replica([...args, bad], NO_ARTIFACT);
      assert.deepEqual([r.code, r.stdout, r.stderr], [2, '', `${command}: unknown argument ${JSON.stringify(bad)}\n`]);
    }
  });
}

test('replica replay --version prints the replica\'s version line without loading the artifact', async () => {
  const r = await replica(['replay', '--version'], NO_ARTIFACT);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^replica \(node \d+\.\d+\.\d+\) @webhook\/retry-policy \d+\.\d+\.\d+\n$/);
});

test('replica replay loads the artifact --artifact names: a missing one exits 2 naming it', async () => {
  const missing = path.join(dir, 'missing.wasm');
  const r = await replica(['replay', '--store', path.join(dir, 'j'), '--policy', policy, '--artifact', missing]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^replica replay: artifact_unreadable: .*missing\.wasm/);
});

test('a value the component refuses is its one line on stderr, prefixed "replica: ", and nothing is sent', async () => {
  const r = await replica([...BASE, '--drain-ms', '-1']);
  assert.deepEqual([r.code, r.stdout, r.stderr], [2, '', 'replica: --drain-ms: expected a whole number >= 0, got "-1"\n']);
});

test('a language extra this replica does not honour exits 2 naming it', async () => {
  for (const extra of [['--class', 'storm'], ['--connect-timeout-ms', '5'], ['--no-skew-check'], ['--watch-policy']]) {
    const r = await replica([...BASE, ...extra]);
    assert.equal(r.code, 2, extra.join(' '));
    assert.equal(r.stderr, `replica: ${extra[0]}: not supported by this language's replica (a language extra)\n`);
  }
});

test('--signing-secrets, the language extra this replica honours, signs every attempt', async () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const secrets = path.join(dir, 'secrets.json');
  fs.writeFileSync(secrets, JSON.stringify({ ep: secret }));
  const received = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const target = `http://127.0.0.1:${server.address().port}/`;
    const r = await replica(['--target', target, '--endpoint-id', 'ep', '--events', '2', '--policy', policy, '--allow-private-targets', `--signing-secrets=${secrets}`]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).stop_reasons.delivered, 2);
    assert.equal(received.length, 2);
    for (const { headers, body } of received) assert.ok(verify(secret, headers, body), JSON.stringify(headers));
  } finally {
    server.close();
  }
});
