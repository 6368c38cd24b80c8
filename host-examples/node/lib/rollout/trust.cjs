'use strict';
// The signature of a published artifact (docs/rollout.md "The signature"):
// the trust file's Ed25519 public keys, their key ids, and the check of a
// signature over "webhook-retry-policy artifact v1\n<sha256 hex>". Ed25519
// and the SubjectPublicKeyInfo DER are node:crypto's (OpenSSL's); the PEM
// armour is read strictly here (standard base64 only, canonical).
const crypto = require('node:crypto');
const { RolloutError } = require('../errors.cjs');
const { readRegularFile } = require('../artifact/read-file.cjs');

/** The largest trust file read, in bytes (a few keys take a few hundred). */
const MAX_TRUST_FILE_BYTES = 1024 * 1024;

const SIGNED_MESSAGE_PREFIX = 'webhook-retry-policy artifact v1\n';
const SIGNATURE_BASE64 = /^[A-Za-z0-9+/]{86}==$/;
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END ([A-Z0-9 ]+)-----/g;
const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]+-----/g;
const BASE64_BODY = /^[A-Za-z0-9+/]*={0,2}$/;

const trustInvalid = (why) => new RolloutError('rollout_trust_invalid', why);

/** The message an artifact's signature covers (its sha256, 64 lowercase hex digits). */
function signedMessage(artifactSha256) {
  return Buffer.from(`${SIGNED_MESSAGE_PREFIX}${artifactSha256}`, 'ascii');
}

/** A key id: the first 16 lowercase hex digits of sha256 of the raw 32-byte public key. */
function keyIdOf(publicKey) {
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url');
  return crypto.createHash('sha256').update(raw).digest('hex').slice(0, 16);
}

/** Standard base64 (with padding, no other characters) decoded, or null when it is not canonical. */
function strictBase64(text) {
  if (!BASE64_BODY.test(text) || text.length % 4 !== 0) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
}

/** The trusted public keys, by key id (in the trust file's order). */
class TrustedKeys {
  #keys;

  /** @param {Map<string, crypto.KeyObject>} keys */
  constructor(keys) {
    this.#keys = keys;
    Object.freeze(this);
  }

  /** The key ids, in the file's order. */
  get keyIds() {
    return [...this.#keys.keys()];
  }

  /** The key of `keyId`, or undefined. */
  get(keyId) {
    return this.#keys.get(keyId);
  }
}

/**
 * Read a trust file's text: one or more `-----BEGIN PUBLIC KEY-----` PEM
 * blocks (SubjectPublicKeyInfo, Ed25519), text that is not a PEM block
 * ignored, the same key twice one key. Throws RolloutError
 * `rollout_trust_invalid` for a text without such a block, or with any
 * block that is not an Ed25519 public key (a private key, a certificate,
 * another algorithm, damaged base64, no END line), even beside good ones.
 */
function readTrust(text) {
  if (typeof text !== 'string') throw new TypeError('readTrust: expected the trust file text');
  const keys = new Map();
  let n = 0;
  for (const m of text.matchAll(PEM_BLOCK)) {
    n += 1;
    const [, label, body, end] = m;
    if (label !== 'PUBLIC KEY' || end !== label) {
      throw trustInvalid(`block ${n} is "${label}"${end !== label ? ` ended by "${end}"` : ''}; expected only PUBLIC KEY blocks (Ed25519, openssl pkey -pubout)`);
    }
    const der = strictBase64(body.replace(/[\r\n\t ]/g, ''));
    if (der === null) throw trustInvalid(`block ${n} is not standard base64`);
    let key;
    try {
      key = crypto.createPublicKey({ key: der, format: 'der', type: 'spki' });
    } catch (e) {
      throw trustInvalid(`block ${n} is not a SubjectPublicKeyInfo (${e.message})`);
    }
    if (key.asymmetricKeyType !== 'ed25519') throw trustInvalid(`block ${n} is a ${key.asymmetricKeyType} key; expected Ed25519`);
    keys.set(keyIdOf(key), key);
  }
  if (n === 0) throw trustInvalid('no -----BEGIN PUBLIC KEY----- block');
  const begun = text.match(PEM_BEGIN)?.length ?? 0;
  if (begun !== n) throw trustInvalid(`${begun - n} block(s) without their -----END----- line`);
  return new TrustedKeys(keys);
}

/**
 * Read the trust file at `file` (a regular file of at most 1 MiB, opened
 * without blocking: a fifo or a device is refused unread) and its keys
 * (readTrust). Throws RolloutError `rollout_trust_invalid` naming the file.
 */
function readTrustFile(file) {
  const refuse = (why) => trustInvalid(`${file}: ${why}`);
  const bytes = readRegularFile(file, MAX_TRUST_FILE_BYTES, {
    unreadable: (why) => refuse(`cannot read it: ${why}`),
    notFile: () => refuse('not a regular file'),
    tooLarge: () => refuse(`more than ${MAX_TRUST_FILE_BYTES} bytes`),
  });
  try {
    return readTrust(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'));
  } catch (e) {
    throw e instanceof RolloutError ? refuse(e.detail) : e;
  }
}

/**
 * Check a published artifact's signature: `keyId` names a key of
 * `trusted`, `signatureBase64` is 88 characters of standard base64 of 64
 * bytes, and it verifies (Ed25519) over signedMessage(`artifactSha256`).
 * Returns true; throws RolloutError `rollout_key_unknown` or
 * `rollout_signature_invalid`.
 */
function verify(trusted, keyId, signatureBase64, artifactSha256) {
  if (!(trusted instanceof TrustedKeys)) throw new TypeError('verify: expected TrustedKeys (readTrust)');
  const key = typeof keyId === 'string' ? trusted.get(keyId) : undefined;
  if (key === undefined) {
    throw new RolloutError('rollout_key_unknown', `key_id ${JSON.stringify(String(keyId).slice(0, 80))} is none of the trusted keys (${trusted.keyIds.join(', ')})`);
  }
  const bad = (why) => new RolloutError('rollout_signature_invalid', why);
  if (typeof signatureBase64 !== 'string' || !SIGNATURE_BASE64.test(signatureBase64)) {
    throw bad('the signature is not 88 characters of standard base64 (with padding) of 64 bytes');
  }
  const signature = strictBase64(signatureBase64);
  if (signature === null || signature.length !== 64) throw bad('the signature is not the canonical base64 of 64 bytes');
  if (!crypto.verify(null, signedMessage(artifactSha256), key, signature)) {
    throw bad(`the signature does not verify with key ${keyId} over sha256 ${artifactSha256}`);
  }
  return true;
}

module.exports = { SIGNED_MESSAGE_PREFIX, MAX_TRUST_FILE_BYTES, signedMessage, keyIdOf, readTrust, readTrustFile, verify, TrustedKeys };
