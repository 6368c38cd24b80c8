'use strict';
// `rollout` of @webhook/retry-policy: following a policy shipped to the
// fleet through its Redis (docs/rollout.md). The record reader and the
// canary rule (record.cjs), the trust file and the signature (trust.cjs),
// the follower's tick (follower.cjs). Types: index.d.cts beside it.
const { RolloutError, ROLLOUT_ERROR_CODES } = require('../errors.cjs');
const { RolloutFollower, REDIS_SOURCE } = require('./follower.cjs');

module.exports = { ...require('./record.cjs'), ...require('./trust.cjs'), RolloutFollower, RolloutError, ROLLOUT_ERROR_CODES, REDIS_SOURCE };
