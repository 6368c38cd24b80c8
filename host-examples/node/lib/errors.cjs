'use strict';
// PolicyError: every refused input, with the SPEC error code and the
// offending field's dotted path. The checks themselves live in the Rust core
// (retry_policy_core::codec and the policy); this file only gives their
// verdict a JavaScript class.

class PolicyError extends Error {
  /**
   * @param {string} code  SPEC code, e.g. `invalid_backoff`, `invalid_input`
   * @param {string} field dotted path, e.g. `policy.backoff.factor` ('' = the whole value)
   * @param {string} detail a sentence for humans
   */
  constructor(code, field, detail) {
    super(field ? `${code} at \`${field}\`: ${detail}` : `${code}: ${detail}`);
    this.name = 'PolicyError';
    this.code = code;
    this.field = field;
    this.detail = detail;
  }
}

/** The error the wasm module threw, as a PolicyError (anything else unchanged). */
function fromWasm(e) {
  if (e instanceof Error && e.name === 'PolicyError' && !(e instanceof PolicyError) && typeof e.code === 'string') {
    return new PolicyError(e.code, String(e.field ?? ''), e.message);
  }
  return e;
}

/** Run `fn`, rethrowing the module's errors as PolicyError. */
function guarded(fn) {
  try {
    return fn();
  } catch (e) {
    throw fromWasm(e);
  }
}

module.exports = { PolicyError, fromWasm, guarded };
