// HTTPS targets (docs/replica.md "HTTPS"): verified against the platform's
// roots plus --ca-file; a certificate that fails verification is the
// terminal kind tls_certificate, another handshake failure connect_error;
// the connection goes to the checked address while the name verified is the
// URL's. Certificates are made at test time (tls-fixtures.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { post, createAgent } from '../examples/dispatcher/http-client.mjs';
import { readCaFile, trustedCas, CaFileError } from '../examples/dispatcher/trust.mjs';
import { makeCertificates, httpsServer } from './tls-fixtures.mjs';

const REPLICA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../replica');
let certs;
let good; // serves the 127.0.0.1 certificate
let wrongName; // serves the other.invalid certificate

before(async () => {
  certs = makeCertificates();
  good = await httpsServer(certs.loopback);
  wrongName = await httpsServer(certs.other);
});

after(async () => {
  await good.close();
  await wrongName.close();
  certs.cleanup();
});

const send = (url, ca) => {
  const agents = { https: createAgent({ allowPrivate: true, https: true, ca }) };
  return post(url, { body: '{}', allowPrivate: true, deadlineMs: 3000, agents }).then(
    (res) => ({ status: res.status }),
    (err) => ({ kind: err.kind }),
  ).finally(() => agents.https.destroy());
};

test('an https target whose certificate chains to the --ca-file CA is delivered', async () => {
  const before = good.hits();
  assert.deepEqual(await send(good.url, [certs.ca]), { status: 200 });
  assert.equal(good.hits(), before + 1);
});

test('without the CA the same target is tls_certificate and nothing is sent', async () => {
  const before = good.hits();
  assert.deepEqual(await send(good.url, []), { kind: 'tls_certificate' });
  assert.equal(good.hits(), before);
});

test('a certificate for another name is tls_certificate even with the CA trusted', async () => {
  assert.deepEqual(await send(wrongName.url, [certs.ca]), { kind: 'tls_certificate' });
  assert.equal(wrongName.hits(), 0);
});

test('a host name is verified against the URL name while the connection goes to the address the guard checked', async () => {
  const named = await httpsServer(certs.localhost);
  try {
    const url = named.url.replace('127.0.0.1', 'localhost');
    const resolved = [];
    const agent = createAgent({ allowPrivate: true, https: true, ca: [certs.ca] });
    const origLookup = agent.options.lookup;
    agent.options.lookup = (host, o, cb) => origLookup(host, { ...o, family: 4 }, (err, address, family) => {
      if (!err) resolved.push(typeof address === 'string' ? address : address[0].address);
      cb(err, address, family);
    });
    const res = await post(url, { body: '{}', allowPrivate: true, deadlineMs: 3000, agents: { https: agent } });
    agent.destroy();
    assert.equal(res.status, 200);
    assert.deepEqual(resolved, ['127.0.0.1'], 'connected through the checked lookup');
    // The same server by its IP: the certificate names localhost only.
    assert.deepEqual(await send(named.url, [certs.ca]), { kind: 'tls_certificate' });
    // Without --allow-private-targets the guard refuses the name before any handshake.
    const guarded = { https: createAgent({ https: true, ca: [certs.ca] }) };
    const refused = await post(url, { body: '{}', deadlineMs: 3000, agents: guarded }).catch((e) => e.kind);
    guarded.https.destroy();
    assert.equal(refused, 'destination_refused');
    assert.equal(named.hits(), 1);
  } finally {
    await named.close();
  }
});

test('a handshake that fails for another reason than the certificate is connect_error', async () => {
  const plain = net.createServer((s) => {
    s.on('error', () => {});
    s.once('data', () => s.end('HTTP/1.1 400 Bad Request\r\n\r\n')); // not TLS at all
  });
  await new Promise((r) => plain.listen(0, '127.0.0.1', r));
  try {
    assert.deepEqual(await send(`https://127.0.0.1:${plain.address().port}/`, [certs.ca]), { kind: 'connect_error' });
  } finally {
    plain.close();
  }
});

test('the trusted CAs are the platform roots plus the file, not the file alone', () => {
  const cas = trustedCas([certs.ca]);
  assert.ok(cas.length > 1);
  assert.equal(cas.at(-1), certs.ca);
  assert.ok(cas.length - 1 >= 100, 'the platform roots are kept');
  assert.equal(trustedCas([]), null, "no extra CA: node's default roots");
});

test('a CA file that is missing, empty of certificates or corrupt is refused naming the file', () => {
  const empty = path.join(certs.dir, 'empty.pem');
  fs.writeFileSync(empty, 'no certificate here\n');
  const corrupt = path.join(certs.dir, 'corrupt.pem');
  fs.writeFileSync(corrupt, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  for (const file of [path.join(certs.dir, 'missing.pem'), empty, corrupt]) {
    assert.throws(() => readCaFile(file), (e) => e instanceof CaFileError && e.message.includes(file));
  }
  assert.deepEqual(readCaFile(certs.caFile), [certs.ca.trim()]);
});

function runReplica(args) {
  return new Promise((resolve) => {
    execFile(REPLICA, [...args, '--allow-private-targets'], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

test('the replica delivers to an https target with --ca-file and dead-letters tls_certificate without it', async () => {
  const policy = path.join(certs.dir, 'policy.json');
  fs.writeFileSync(policy, JSON.stringify({ classes: { storm: { window_ms: 3000, hard_cap: 4, backoff: { base_ms: 5, factor: 2.0, cap_ms: 20, jitter: 'full' } } } }));
  const common = ['--endpoint-id', 'ep-tls', '--events', '3', '--policy', policy];
  const ok = await runReplica(['--target', good.url, '--ca-file', certs.caFile, ...common]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).stop_reasons.delivered, 3);
  const before = good.hits();
  const refused = await runReplica(['--target', good.url, ...common]);
  assert.equal(refused.code, 0, refused.stderr);
  const s = JSON.parse(refused.stdout);
  assert.equal(s.stop_reasons.terminal_response, 3);
  assert.equal(s.attempts, 3, 'terminal: one attempt each');
  assert.equal(good.hits(), before, 'nothing reached the server');
  const named = await runReplica(['--target', wrongName.url, '--ca-file', certs.caFile, ...common]);
  assert.equal(JSON.parse(named.stdout).stop_reasons.terminal_response, 3);
});

test('the replica exits 2 naming the file for an unreadable or certificate-less --ca-file', async () => {
  const empty = path.join(certs.dir, 'none.pem');
  fs.writeFileSync(empty, '');
  for (const file of [path.join(certs.dir, 'absent.pem'), empty]) {
    const { code, stdout, stderr } = await runReplica(['--target', good.url, '--endpoint-id', 'e', '--events', '1', '--ca-file', file]);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.ok(stderr.includes(`--ca-file ${file}`), stderr);
  }
});
