'use strict';
// @webhook/retry-policy — the webhook retry policy for Node dispatchers.
// One WebAssembly build of the Rust policy core decides, for every failed
// delivery, deliver / retry after how long / stop and dead-letter with which
// reason, exactly as the Python, Go and Rust dispatchers of the fleet do.
// Types: index.d.cts. Semantics: the conformance contract (SPEC format 1).
const { STOP_REASONS, ERROR_CODES, OUTCOME_CLASSES, JITTER_MODES, CONTRACT_FORMAT } = require('./native.cjs');
const { PolicyError } = require('./errors.cjs');
const { plan, delay, classifyStatus, classifyError, budgetAllows, decide } = require('./pure.cjs');
const { CompiledPolicy, compilePolicy } = require('./compiled.cjs');
const { RetryPolicy } = require('./retry-policy.cjs');
const { InMemoryBudgetStore, ManualClock, systemClock } = require('./stores.cjs');
const { RedisBudgetStore, bucketKey } = require('./redis-store.cjs');

module.exports = {
  plan,
  delay,
  classifyStatus,
  classifyError,
  budgetAllows,
  decide,
  compilePolicy,
  CompiledPolicy,
  RetryPolicy,
  InMemoryBudgetStore,
  RedisBudgetStore,
  bucketKey,
  ManualClock,
  systemClock,
  PolicyError,
  STOP_REASONS,
  ERROR_CODES,
  OUTCOME_CLASSES,
  JITTER_MODES,
  CONTRACT_FORMAT,
};
