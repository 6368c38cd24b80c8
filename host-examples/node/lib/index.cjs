'use strict';
// @webhook/retry-policy — the webhook retry policy for Node dispatchers.
// One WebAssembly build of the Rust policy core decides, for every failed
// delivery, deliver / retry after how long / stop and dead-letter with which
// reason, exactly as the Python, Go and Rust dispatchers of the fleet do.
// Types: index.d.cts (API) and types.d.cts (generated from wit/).
// Semantics: the conformance contract (formats 1 and 2).
const native = require('./native.cjs');
const { PolicyError } = require('./errors.cjs');
const ops = require('./ops.cjs');
const { CompiledPolicy, compilePolicy } = require('./compiled.cjs');
const { RetryPolicy } = require('./retry-policy.cjs');
const { InMemoryBudgetStore, ManualClock, systemClock } = require('./stores.cjs');
const { RedisBudgetStore, evictionWarning, checkEviction } = require('./redis-store.cjs');
const signing = require('./signing.cjs');
const { watchPolicyFile } = require('./reload.cjs');

module.exports = {
  plan: ops.plan,
  delay: ops.delay,
  classifyStatus: ops.classifyStatus,
  classifyError: ops.classifyError,
  budgetAllows: ops.budgetAllows,
  decide: ops.decide,
  evaluate: ops.evaluate,
  settle: ops.settle,
  resume: ops.resume,
  retryAfter: ops.retryAfter,
  storeKey: ops.storeKey,
  storeApply: ops.storeApply,
  EMPTY_HELD: ops.EMPTY_HELD,
  compilePolicy,
  CompiledPolicy,
  RetryPolicy,
  InMemoryBudgetStore,
  RedisBudgetStore,
  evictionWarning,
  checkEviction,
  ManualClock,
  systemClock,
  PolicyError,
  watchPolicyFile,
  sign: signing.sign,
  signatureHeaders: signing.signatureHeaders,
  verify: signing.verify,
  WebhookVerificationError: signing.WebhookVerificationError,
  STOP_REASONS: native.STOP_REASONS,
  STORE_OPS: native.STORE_OPS,
  ERROR_CODES: native.ERROR_CODES,
  OUTCOME_CLASSES: native.OUTCOME_CLASSES,
  JITTER_MODES: native.JITTER_MODES,
  CONTRACT_FORMAT: native.CONTRACT_FORMAT,
};
