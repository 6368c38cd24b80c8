// Standard Webhooks signing (lib/signing.cjs) and the dispatcher's signer.
// The vector is the specification's reference JavaScript library's own
// test ("sign function works" and the TestPayload fixture in
// standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts,
// commit 10d3e46d720c4e5861a792bec25792a04ad4e2b3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sign, signatureHeaders, verify, WebhookVerificationError } from '@webhook/retry-policy';
import { Signer } from '../examples/dispatcher/signer.mjs';

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


test('an endpoint without a secret gets no unsigned request', async () => {
  const signer = new Signer(async () => []);
  await assert.rejects(signer.headers('ep', 'id', '{}'), /no signing secret/);
});
