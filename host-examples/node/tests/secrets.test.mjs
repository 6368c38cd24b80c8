// Secrets stay secret: no query string, userinfo, Authorization value,
// signing secret or Redis password in dead-letter records, metrics, logs or
// error messages of the dispatcher example and the replica.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { redactText } from '../examples/dispatcher/redact.mjs';

const REPLICA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../replica');
const SECRETS = ['hunter2', 'tok3n', 'pa55', 'c2VjcmV0IGtleQ'];
const clean = (what, text) => {
  for (const s of SECRETS) assert.ok(!String(text).includes(s), `${what} leaks ${s}: ${text}`);
};
const DOC = { classes: { n: { window_ms: 60_000, hard_cap: 3, backoff: { base_ms: 100, factor: 2, cap_ms: 1000, jitter: 'full' } } } };

function replica(args, env = {}) {
  return new Promise((resolve) => execFile(REPLICA, args, { timeout: 30_000, env: { ...process.env, ...env } }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr })));
}

test('redaction blanks passwords, query strings, whsec_ keys and Authorization values', () => {
  const text = redactText('redis://u:hunter2@h:1/0 http://h/x?token=tok3n whsec_c2VjcmV0IGtleQ== Authorization: Bearer pa55');
  clean('redactText', text);
});

test('the replica never prints a Redis password or a target\'s token, in usage errors or logs', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-'));
  const policy = path.join(dir, 'p.json');
  fs.writeFileSync(policy, JSON.stringify({ classes: { storm: DOC.classes.n } }));
  const bad = await replica(['--target', 'ftp://u:pa55@h/?token=tok3n', '--endpoint-id', 'e', '--events', '1', '--policy', policy]);
  assert.equal(bad.code, 2);
  clean('usage error', bad.stderr);
  const badRedis = await replica(['--target', 'http://127.0.0.1:1/', '--endpoint-id', 'e', '--events', '1', '--policy', policy, '--redis', 'http://:hunter2@127.0.0.1:1/0']);
  assert.equal(badRedis.code, 2);
  clean('usage error', badRedis.stderr);
  const down = await replica(['--target', 'http://127.0.0.1:1/?token=tok3n', '--endpoint-id', 'e', '--events', '2', '--policy', policy, '--redis', 'redis://:hunter2@127.0.0.1:1/0', '--allow-private-targets']);
  assert.equal(down.code, 0, down.stderr);
  assert.match(down.stderr, /redis/);
  clean('replica stderr', down.stderr);
  clean('replica stdout', down.stdout);
});
