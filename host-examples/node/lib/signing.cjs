'use strict';
// Standard Webhooks signatures (https://www.standardwebhooks.com), on
// node:crypto (HMAC-SHA256, base64, timingSafeEqual):
//   webhook-id         the event id (the same on every retry)
//   webhook-timestamp  Unix seconds of this attempt
//   webhook-signature  "v1,<base64 HMAC-SHA256(key, `${id}.${timestamp}.${body}`)>"
//                      one per secret, space-separated, while a secret rotates
// A secret is "whsec_" + base64 of the key (the prefix is optional on input).
// `verify` is the receiver's half: tolerance window, constant-time compare.
// loaded on first use: most processes import the package without signing anything
const crypto = () => require('node:crypto');

const PREFIX = 'whsec_';
const DEFAULT_TOLERANCE_S = 300;

class WebhookVerificationError extends Error {
  constructor(message) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** The key bytes of a secret (never echoed in an error: it is a secret). */
function secretKey(secret) {
  if (Buffer.isBuffer(secret) || secret instanceof Uint8Array) {
    if (secret.length === 0) throw new TypeError('signing secret: empty');
    return Buffer.from(secret);
  }
  if (typeof secret !== 'string' || secret === '') throw new TypeError('signing secret: expected a non-empty whsec_ string');
  const text = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) throw new TypeError('signing secret: not base64');
  const key = Buffer.from(text, 'base64');
  if (key.length === 0) throw new TypeError('signing secret: empty key');
  return key;
}

function bytes(body) {
  return Buffer.isBuffer(body) || body instanceof Uint8Array ? Buffer.from(body) : Buffer.from(String(body), 'utf8');
}

function mac(key, id, timestamp, body) {
  return crypto().createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(bytes(body)).digest();
}

/** "v1,<base64>" for one secret. `timestamp` in Unix seconds (an integer). */
function sign(secret, id, timestamp, body) {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new TypeError('timestamp: expected Unix seconds');
  return `v1,${mac(secretKey(secret), String(id), timestamp, body).toString('base64')}`;
}

/** The three headers for an attempt, one signature per secret (newest first). */
function signatureHeaders(secrets, id, timestamp, body) {
  const list = Array.isArray(secrets) ? secrets : [secrets];
  if (list.length === 0) throw new TypeError('signing: no secret');
  return {
    'webhook-id': String(id),
    'webhook-timestamp': String(timestamp),
    'webhook-signature': list.map((s) => sign(s, id, timestamp, body)).join(' '),
  };
}

function header(headers, name) {
  const v = typeof headers?.get === 'function' ? headers.get(name) : headers?.[name] ?? headers?.[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Verify a received webhook: `secrets` one or several (a rotation),
 * `headers` (an object or Headers) with webhook-id/-timestamp/-signature,
 * `body` the raw bytes or text. Options: nowS (default now), toleranceS
 * (default 300). Returns true; throws WebhookVerificationError otherwise.
 */
function verify(secrets, headers, body, { nowS = Math.floor(Date.now() / 1000), toleranceS = DEFAULT_TOLERANCE_S } = {}) {
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const sig = header(headers, 'webhook-signature');
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sig !== 'string' || id === '' || sig === '') {
    throw new WebhookVerificationError('missing required headers');
  }
  if (!/^\d{1,15}$/.test(ts)) throw new WebhookVerificationError('invalid timestamp');
  const timestamp = Number(ts);
  if (timestamp < nowS - toleranceS) throw new WebhookVerificationError('message timestamp too old');
  if (timestamp > nowS + toleranceS) throw new WebhookVerificationError('message timestamp too new');
  const keys = (Array.isArray(secrets) ? secrets : [secrets]).map(secretKey);
  const offered = sig
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  let ok = false;
  for (const key of keys) {
    const expected = mac(key, id, timestamp, body);
    for (const o of offered) {
      // Compare every pair in constant time per pair (lengths are public).
      if (o.length === expected.length && crypto().timingSafeEqual(o, expected)) ok = true;
    }
  }
  if (!ok) throw new WebhookVerificationError('no matching signature found');
  return true;
}

module.exports = { sign, signatureHeaders, verify, WebhookVerificationError };
