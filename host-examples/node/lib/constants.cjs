'use strict';
// The contract's names: the WIT enums' cases (wit/retry-policy.wit), in WIT
// order, snake_cased as the contract spells them. tests/constants.test.mjs
// reads the WIT and fails when these differ.
const freeze = (a) => Object.freeze(a);

module.exports = {
  STOP_REASONS: freeze(['delivered', 'terminal_response', 'max_attempts_exhausted', 'retry_window_elapsed', 'retry_budget_exhausted', 'budget_unavailable']),
  STORE_OPS: freeze(['record', 'reserve', 'record_reserve']),
  ERROR_CODES: freeze([
    'invalid_backoff', 'invalid_hard_cap', 'invalid_window', 'invalid_budget', 'invalid_state', 'invalid_status',
    'invalid_input', 'invalid_document', 'unknown_event_class', 'invalid_retry_index', 'document_too_large',
  ]),
  OUTCOME_CLASSES: freeze(['success', 'retryable', 'terminal']),
  JITTER_MODES: freeze(['none', 'full', 'equal']),
  /** The newest vector format this package runs (formats 1 and 2). */
  CONTRACT_FORMAT: 2,
};
