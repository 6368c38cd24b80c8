'use strict';
// The wasm module (built by scripts/build-wasm into lib/wasm/) and the
// names it defines. Internal: the public API is lib/index.cjs.
const raw = require('./wasm/retry_policy.js');

module.exports = {
  raw,
  /** Stop reasons in the order of `decideFast` codes 1..=6. */
  STOP_REASONS: Object.freeze(raw.stopReasons()),
  ERROR_CODES: Object.freeze(raw.errorCodes()),
  OUTCOME_CLASSES: Object.freeze(raw.outcomeClasses()),
  JITTER_MODES: Object.freeze(raw.jitterModes()),
  CONTRACT_FORMAT: raw.contractFormat(),
};
