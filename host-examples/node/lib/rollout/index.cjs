'use strict';
// `rollout` of @webhook/retry-policy: following a policy shipped to the
// fleet through its Redis (docs/rollout.md). The record reader and the
// canary rule (record.cjs), the trust file and the signature (trust.cjs),
// the follower's tick (follower.cjs). Types: index.d.cts beside it.
const { RolloutError, ROLLOUT_ERROR_CODES } = require('../errors.cjs');
const record = require('./record.cjs');
const trust = require('./trust.cjs');
const { RolloutFollower, REDIS_SOURCE } = require('./follower.cjs');

module.exports = {
  bucket: record.bucket,
  readRecord: record.readRecord,
  canonicalRecord: record.canonicalRecord,
  desired: record.desired,
  readTrust: trust.readTrust,
  readTrustFile: trust.readTrustFile,
  verify: trust.verify,
  keyIdOf: trust.keyIdOf,
  signedMessage: trust.signedMessage,
  TrustedKeys: trust.TrustedKeys,
  RolloutFollower,
  RolloutError,
  ROLLOUT_ERROR_CODES,
  SIGNED_MESSAGE_PREFIX: trust.SIGNED_MESSAGE_PREFIX,
  STATE_KEY: record.STATE_KEY,
  REPLICAS_KEY: record.REPLICAS_KEY,
  artifactKey: record.artifactKey,
  MAX_RECORD_BYTES: record.MAX_RECORD_BYTES,
  MAX_TRUST_FILE_BYTES: trust.MAX_TRUST_FILE_BYTES,
  REDIS_SOURCE,
};
