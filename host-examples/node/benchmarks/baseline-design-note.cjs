'use strict';
// ============================================================================
// BASELINE FOR THE BENCHMARK ONLY — NOT PART OF THE PACKAGE, NEVER USED BY IT.
//
// The design note's decision path ported to plain JS as a team would write
// it by hand: classification tables, the gates in the note's order, a full-
// jitter delay drawn with Math.random, the budget rule on counts already
// read. No validation, no determinism: the floor the package is compared with.
// ============================================================================
const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504, 507, 509]);
const TERMINAL_STATUS = new Set([400, 403, 404, 405, 406, 409, 410, 411, 413, 414, 415, 422, 451]);
const RETRYABLE_ERRORS = new Set(['connect_timeout', 'read_timeout', 'write_timeout', 'pool_timeout', 'connect_error', 'remote_protocol_error']);

function classify(outcome) {
  const s = outcome.status;
  if (s === undefined) return RETRYABLE_ERRORS.has(outcome.error_kind) ? 'retryable' : 'terminal';
  if (s >= 200 && s < 300) return 'success';
  if (RETRYABLE_STATUS.has(s)) return 'retryable';
  if (TERMINAL_STATUS.has(s)) return 'terminal';
  return s >= 500 && s < 600 ? 'retryable' : 'terminal';
}

function stop(reason, s, elapsed) {
  return {
    stop_reason: reason,
    dead_letter: { event_id: s.event_id, endpoint_id: s.endpoint_id, attempts: s.attempt, elapsed_ms: elapsed, stop_reason: reason },
  };
}

/** decide(policy, state, outcome, nowMs, counts): the note's stop_reason + the scheduled delay. */
function decide(p, s, outcome, nowMs, counts) {
  const cls = classify(outcome);
  const elapsed = nowMs - s.first_attempted_at_ms;
  if (cls === 'success') return { stop_reason: 'delivered' };
  if (cls === 'terminal') return stop('terminal_response', s, elapsed);
  if (s.attempt >= s.max_attempts) return stop('max_attempts_exhausted', s, elapsed);
  if (elapsed >= p.window_ms) return stop('retry_window_elapsed', s, elapsed);
  const b = p.budget;
  const total = counts.current.total + counts.previous.total;
  const retries = counts.current.retries + counts.previous.retries;
  if (total >= b.min_sample && !(retries < total * b.ratio)) return stop('retry_budget_exhausted', s, elapsed);
  const ceiling = Math.min(p.backoff.cap_ms, p.backoff.base_ms * p.backoff.factor ** (s.attempt - 1));
  return { stop_reason: null, retry: { delay_ms: Math.floor(Math.random() * ceiling) } };
}

module.exports = { decide };
