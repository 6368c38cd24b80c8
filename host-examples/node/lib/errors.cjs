'use strict';
// The package's error classes. PolicyError: every refused input, with the
// contract's error code and the offending field's dotted path (the checks
// live in the component and in lib/lower.cjs). ArtifactError: an artifact
// that cannot be loaded or swapped in (docs/artifact.md "Error codes").
// RolloutError: a fleet rollout's trust file, or an input of the
// component's follower, refused (docs/rollout.md).

class PolicyError extends Error {
  /**
   * @param {string} code  contract code, e.g. `invalid_backoff`, `invalid_input`
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

const ARTIFACT_ERROR_CODES = Object.freeze([
  'artifact_pin_invalid',
  'artifact_unreadable',
  'artifact_too_large',
  'artifact_sha256_mismatch',
  'artifact_invalid',
  'artifact_abi_mismatch',
  'artifact_self_test_failed',
  'artifact_document_invalid',
]);

/** An error with a `code` and a `detail` (what was expected and what was found), named after its class. */
class CodedError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.name = new.target.name;
    this.code = code;
    this.detail = message;
  }
}

/** `code`: one of ARTIFACT_ERROR_CODES. */
class ArtifactError extends CodedError {}

const ROLLOUT_ERROR_CODES = Object.freeze([
  'rollout_record_invalid',
  'rollout_trust_invalid',
  'rollout_key_unknown',
  'rollout_signature_invalid',
  'rollout_artifact_missing',
  'rollout_input_invalid',
]);

/** `code`: one of ROLLOUT_ERROR_CODES. */
class RolloutError extends CodedError {}

module.exports = { PolicyError, ArtifactError, ARTIFACT_ERROR_CODES, RolloutError, ROLLOUT_ERROR_CODES };
