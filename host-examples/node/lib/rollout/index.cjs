'use strict';
// `rollout` of @webhook/retry-policy: following a policy shipped to the
// fleet through its Redis (docs/rollout.md). The follower itself runs in the
// component (wire.cjs); this host reads the trust file (trust.cjs), makes
// the store calls (store.cjs) and drives the steps (follower.cjs). Types:
// index.d.cts beside it.
const { RolloutError, ROLLOUT_ERROR_CODES } = require('../errors.cjs');
const { RolloutFollower, REDIS_SOURCE } = require('./follower.cjs');
const { STATE_KEY, REPLICAS_KEY, MAX_RECORD_BYTES } = require('./store.cjs');

module.exports = {
  ...require('./trust.cjs'), RolloutFollower, RolloutError, ROLLOUT_ERROR_CODES, REDIS_SOURCE, STATE_KEY, REPLICAS_KEY, MAX_RECORD_BYTES,
};
