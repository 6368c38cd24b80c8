// The dispatcher's HTTP client against misbehaving raw-socket endpoints
// (the full suite is tests/hostile/ at the repo root), and destinations:
// which addresses are refused, that the checked address is the one
// connected to, and that a refusal is a terminal, counted stop.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { post, MAX_BODY_PREFIX_BYTES } from '../examples/dispatcher/http-client.mjs';
import { refusal, checkedLookup } from '../examples/dispatcher/destination.mjs';

const servers = [];
after(() => servers.forEach((s) => s.close()));

/** A raw TCP endpoint: `onConnection(socket)` after the request head arrives. */
async function raw(onConnection) {
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => onConnection(socket));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${server.address().port}/hook`;
}

const send = (url, options = {}) => post(url, { body: '{}', allowPrivate: true, deadlineMs: 1000, ...options }).then(
  (res) => ({ status: res.status }),
  (err) => ({ kind: err.kind }),
);

test('a body far beyond 64 KiB is cut after the prefix and the status still counts', async () => {
  let sent = 0;
  const url = await raw((s) => {
    s.write('HTTP/1.1 200 OK\r\ncontent-length: 2147483648\r\n\r\n');
    const chunk = Buffer.alloc(64 * 1024, 120);
    const pump = () => {
      while (sent < 64 * 1024 * 1024 && s.write(chunk)) sent += chunk.length;
      if (sent < 64 * 1024 * 1024) s.once('drain', pump);
    };
    pump();
  });
  assert.deepEqual(await send(url), { status: 200 });
  assert.ok(sent < 64 * 1024 * 1024, `the client kept reading: ${sent} bytes sent`);
  assert.ok(MAX_BODY_PREFIX_BYTES === 64 * 1024);
});

test('an endless header line is a remote_protocol_error, not a memory leak', async () => {
  const url = await raw((s) => {
    s.write('HTTP/1.1 200 OK\r\nx-endless: ');
    const chunk = 'a'.repeat(65536);
    const pump = () => {
      while (!s.destroyed && s.write(chunk));
      if (!s.destroyed) s.once('drain', pump);
    };
    pump();
  });
  assert.deepEqual(await send(url), { kind: 'remote_protocol_error' });
});

test('a drip is cut by the attempt deadline as a read_timeout', async () => {
  const url = await raw((s) => {
    const bytes = Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    let i = 0;
    const timer = setInterval(() => i < bytes.length && s.write(bytes.subarray(i, ++i)), 100);
    s.on('close', () => clearInterval(timer));
  });
  const t0 = performance.now();
  assert.deepEqual(await send(url, { deadlineMs: 300 }), { kind: 'read_timeout' });
  assert.ok(performance.now() - t0 < 1500);
});

test('waiting for a socket of a full pool past the deadline is a pool_timeout, the held one a read_timeout', async () => {
  const url = await raw(() => {}); // reads the request, never answers
  const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 1 }) };
  try {
    const [held, queued] = await Promise.all([send(url, { agents, deadlineMs: 400 }), send(url, { agents, deadlineMs: 200 })]);
    assert.deepEqual(held, { kind: 'read_timeout' });
    assert.deepEqual(queued, { kind: 'pool_timeout' });
  } finally {
    agents.http.destroy();
  }
});

test('bytes that are not HTTP and a reset before the answer are remote_protocol_error', async () => {
  assert.deepEqual(await send(await raw((s) => s.end('\x00\xffSSH-2.0-OpenSSH_9.2\r\n\r\n'))), { kind: 'remote_protocol_error' });
  assert.deepEqual(await send(await raw((s) => s.resetAndDestroy())), { kind: 'remote_protocol_error' });
});

test('a status outside 100-599 is returned as it is and a redirect is never followed', async () => {
  assert.deepEqual(await send(await raw((s) => s.end('HTTP/1.1 999 Whatever\r\ncontent-length: 0\r\n\r\n'))), { status: 999 });
  let stolen = 0;
  const thief = await raw((s) => (stolen++, s.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n')));
  assert.deepEqual(await send(await raw((s) => s.end(`HTTP/1.1 307 Temporary Redirect\r\nlocation: ${thief}\r\ncontent-length: 0\r\n\r\n`))), { status: 307 });
  assert.equal(stolen, 0);
});

test('a refused connection is a connect_error and a bad URL is invalid_url', async () => {
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  assert.deepEqual(await send(`http://127.0.0.1:${port}/`), { kind: 'connect_error' });
  assert.deepEqual(await send('not a url'), { kind: 'invalid_url' });
  assert.deepEqual(await send('ftp://example.com/'), { kind: 'unsupported_protocol' });
});

test('every case of tests/vectors-destination/destinations.json is judged as the table says', () => {
  const doc = JSON.parse(fs.readFileSync(new URL('../../../tests/vectors-destination/destinations.json', import.meta.url), 'utf8'));
  for (const k of Object.keys(doc)) assert.ok(['table', 'cases'].includes(k), `unknown top-level field ${k}`);
  assert.ok(doc.cases.length > 0);
  for (const c of doc.cases) {
    for (const k of Object.keys(c)) assert.ok(['name', 'address', 'expect', 'reason'].includes(k), `${c.name}: unknown field ${k}`);
    assert.ok(['allowed', 'refused'].includes(c.expect), `${c.name}: expect ${c.expect}`);
    const want = c.expect === 'refused' ? c.reason : null;
    assert.ok(want !== undefined && want !== '', `${c.name}: a refused case names its reason`);
    assert.equal(refusal(c.address), want, `case ${JSON.stringify(c.name)} (${c.address})`);
  }
  assert.equal(refusal('not an ip'), 'unparsable');
});

test('the lookup hook resolves once and hands the checked address to the connection', async () => {
  let calls = 0;
  const resolve = (host, opts, cb) => (calls++, cb(null, [{ address: '93.184.216.34', family: 4 }]));
  const lookup = checkedLookup({ resolve });
  const one = await new Promise((r) => lookup('example.test', {}, (err, address, family) => r({ err, address, family })));
  assert.deepEqual(one, { err: null, address: '93.184.216.34', family: 4 });
  const rebinding = checkedLookup({ resolve: (h, o, cb) => cb(null, [{ address: '8.8.8.8', family: 4 }, { address: '10.0.0.5', family: 4 }]) });
  const refused = await new Promise((r) => rebinding('evil.test', { all: true }, (err) => r(err)));
  assert.equal(refused.code, 'EDESTREFUSED');
  assert.equal(calls, 1);
});

