'use strict';
// The wasm module (built by scripts/build-wasm into lib/wasm/) and the
// names it defines. Internal: the public API is lib/index.cjs.
const raw = require('./wasm/retry_policy.js');

const memory = raw.wasmMemory();
let out = new Float64Array(memory.buffer, raw.outPtr(), 10);

module.exports = {
  raw,
  /** The fast path's result buffer (re-made when the module's memory grows and detaches it). */
  outBuffer() {
    if (out.length === 0) out = new Float64Array(memory.buffer, raw.outPtr(), 10);
    return out;
  },
  /** Stop reasons in the order of the fast path's codes (2 + i). */
  STOP_REASONS: Object.freeze(raw.stopReasons()),
  /** Store ops in the order of the fast path's codes (1 + i). */
  STORE_OPS: Object.freeze(raw.storeOps()),
  ERROR_CODES: Object.freeze(raw.errorCodes()),
  OUTCOME_CLASSES: Object.freeze(raw.outcomeClasses()),
  JITTER_MODES: Object.freeze(raw.jitterModes()),
  CONTRACT_FORMAT: raw.contractFormat(),
};
