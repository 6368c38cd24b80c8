// Standard Webhooks signing (lib/signing.cjs) and the dispatcher's signer.
// The vector is the specification's reference JavaScript library's own
// test ("sign function works" and the TestPayload fixture in
// standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts,
// commit 10d3e46d720c4e5861a792bec25792a04ad4e2b3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { sign, signatureHeaders, verify, WebhookVerificationError, RetryPolicy, ManualClock } from '@webhook/retry-policy';
import { Signer, fileSigner } from '../examples/dispatcher/signer.mjs';
import { Dispatcher, virtualScheduler } from '../examples/dispatcher/dispatcher.mjs';
import { Metrics } from '../examples/dispatcher/metrics.mjs';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TS = 1614265330;
const BODY = '{"test": 2432232314}';
const EXPECTED = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

test('the published Standard Webhooks vector signs to the published signature, with or without whsec_', () => {
  assert.equal(sign(SECRET, ID, TS, BODY), EXPECTED);
  assert.equal(sign(SECRET.slice('whsec_'.length), ID, TS, Buffer.from(BODY)), EXPECTED);
});

test('verify accepts the vector inside the tolerance window and refuses it outside', () => {
  const headers = { 'webhook-id': ID, 'webhook-timestamp': String(TS), 'webhook-signature': EXPECTED };
  assert.equal(verify(SECRET, headers, BODY, { nowS: TS + 10 }), true);
  assert.throws(() => verify(SECRET, headers, BODY, { nowS: TS + 301 }), /too old/);
  assert.throws(() => verify(SECRET, headers, BODY, { nowS: TS - 301 }), /too new/);
  assert.throws(() => verify(SECRET, headers, `${BODY} `, { nowS: TS }), WebhookVerificationError);
});

test('verify refuses missing headers, a bad timestamp, partial and foreign-version signatures', () => {
  const good = { 'webhook-id': ID, 'webhook-timestamp': String(TS), 'webhook-signature': EXPECTED };
  for (const name of Object.keys(good)) {
    const h = { ...good };
    delete h[name];
    assert.throws(() => verify(SECRET, h, BODY, { nowS: TS }), WebhookVerificationError, name);
  }
  const bad = (sig, ts = String(TS)) => () => verify(SECRET, { ...good, 'webhook-signature': sig, 'webhook-timestamp': ts }, BODY, { nowS: TS });
  assert.throws(bad(EXPECTED, 'hello'), /invalid timestamp/);
  assert.throws(bad(EXPECTED.slice(0, 8)), WebhookVerificationError);
  assert.throws(bad('v1,'), WebhookVerificationError);
  assert.throws(bad(`v2,${EXPECTED.slice(3)}`), WebhookVerificationError);
  assert.throws(bad('v1,dawfeoifkpqwoekfpqoekf'), WebhookVerificationError);
});

test('during a rotation every secret signs and a receiver holding either one verifies', () => {
  const NEW = `whsec_${Buffer.from('a brand new key of 24 b!').toString('base64')}`;
  const h = signatureHeaders([NEW, SECRET], ID, TS, BODY);
  assert.equal(h['webhook-signature'].split(' ').length, 2);
  assert.equal(h['webhook-signature'].split(' ')[1], EXPECTED);
  assert.equal(verify(NEW, h, BODY, { nowS: TS }), true);
  assert.equal(verify([SECRET], h, BODY, { nowS: TS }), true);
  assert.throws(() => verify(`whsec_${Buffer.from('someone else').toString('base64')}`, h, BODY, { nowS: TS }), WebhookVerificationError);
});

test('a malformed secret is refused without echoing it', () => {
  for (const s of ['', 'whsec_', 'whsec_not base64!!', null, 42]) {
    assert.throws(() => sign(s, ID, TS, BODY), (e) => e instanceof TypeError && (typeof s !== 'string' || s.length < 7 || !e.message.includes(s)));
  }
});

test('a 401 makes the dispatcher reload the secret and sign the retry with the rotated one', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signer-'));
  const file = path.join(dir, 'secrets.json');
  const OLD = `whsec_${Buffer.from('the old key').toString('base64')}`;
  const NEW = `whsec_${Buffer.from('the new key').toString('base64')}`;
  fs.writeFileSync(file, JSON.stringify({ ep: OLD }));
  const seen = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let ok = false;
      try {
        ok = verify(NEW, req.headers, Buffer.concat(chunks), { nowS: Math.floor(Date.now() / 1000) });
      } catch {}
      seen.push({ ok, attempt: req.headers['x-attempt'], id: req.headers['webhook-id'] });
      // The receiver rotated first: the old secret no longer verifies; the dispatcher's file catches up.
      if (!ok) fs.writeFileSync(file, JSON.stringify({ ep: `${NEW} ${OLD}` }));
      res.writeHead(ok ? 204 : 401).end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const clock = new ManualClock(Date.now());
    const policy = new RetryPolicy({ classes: { n: { window_ms: 60_000, backoff: { base_ms: 100, factor: 2, cap_ms: 1000, jitter: 'full' } } } }, { clock });
    const dispatcher = new Dispatcher(policy, { metrics: new Metrics(), scheduler: virtualScheduler(clock), allowPrivateTargets: true, signer: fileSigner(file) });
    const d = await dispatcher.deliver({ id: 'evt_sig', class: 'n', endpoint_id: 'ep', url: `http://127.0.0.1:${server.address().port}/`, body: { a: 1 } });
    assert.equal(d.stop_reason, 'delivered');
    assert.deepEqual(seen, [{ ok: false, attempt: '1', id: 'evt_sig' }, { ok: true, attempt: '2', id: 'evt_sig' }]);
    dispatcher.close();
  } finally {
    server.close();
  }
});

test('an endpoint without a secret gets no unsigned request', async () => {
  const signer = new Signer(async () => []);
  await assert.rejects(signer.headers('ep', 'id', '{}'), /no signing secret/);
});
