'use strict';
// The trust file of a fleet rollout (docs/rollout.md "Keys"). This host only
// reads the file (a regular file of at most 1 MiB, refused unread
// otherwise); its PEM blocks, the Ed25519 keys and their ids are read by the
// component (`rollout-open`, policy-core/src/rollout/trust.rs).
const { RolloutError } = require('../errors.cjs');
const { readRegularFile } = require('../artifact/read-file.cjs');
const { openFollower } = require('./wire.cjs');

/** The largest trust file read, in bytes (a few keys take a few hundred). */
const MAX_TRUST_FILE_BYTES = 1024 * 1024;

/** A trust file's text and the ids of its keys, as the component read them. */
class TrustedKeys {
  /** @param {string} pem the trust file's text; @param {string[]} keyIds */
  constructor(pem, keyIds) {
    this.pem = pem;
    this.keyIds = Object.freeze([...keyIds]);
    Object.freeze(this);
  }
}

/**
 * Read a trust file's text (PEM PUBLIC KEY blocks, Ed25519) through the
 * current artifact's `rollout-open`. Throws RolloutError
 * `rollout_trust_invalid` when the component refuses it.
 */
function readTrust(text) {
  if (typeof text !== 'string') throw new TypeError('readTrust: expected the trust file text');
  const probe = { replica_id: 'trust-check', language: 'node', host: '', pid: 0, trust_pem: text, since_ms: 0 };
  return new TrustedKeys(text, openFollower(probe).key_ids);
}

/**
 * The text of the trust file at `file` (a regular file of at most 1 MiB,
 * opened without blocking: a fifo or a device is refused unread), not yet
 * read for keys. Throws RolloutError `rollout_trust_invalid` naming the file.
 */
function readTrustText(file) {
  const refuse = (why) => new RolloutError('rollout_trust_invalid', `${file}: ${why}`);
  const bytes = readRegularFile(file, MAX_TRUST_FILE_BYTES, {
    unreadable: (why) => refuse(`cannot read it: ${why}`),
    notFile: () => refuse('not a regular file'),
    tooLarge: () => refuse(`more than ${MAX_TRUST_FILE_BYTES} bytes`),
  });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
}

/** readTrust of the file at `file` (readTrustText); a refusal names the file. */
function readTrustFile(file) {
  const text = readTrustText(file);
  try {
    return readTrust(text);
  } catch (e) {
    throw e instanceof RolloutError ? new RolloutError(e.code, `${file}: ${e.detail}`) : e;
  }
}

module.exports = { MAX_TRUST_FILE_BYTES, TrustedKeys, readTrust, readTrustText, readTrustFile };
