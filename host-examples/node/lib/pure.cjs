'use strict';
// The pure functions of the contract (one per conformance `op`). Inputs and
// outputs are plain data in the contract's shape: snake_case fields, integer
// milliseconds. Every check happens in the Rust core.
const { raw } = require('./native.cjs');
const { guarded } = require('./errors.cjs');
const { plain } = require('./snapshot.cjs');

/** Derive max attempts and the schedule from a retry window. */
function plan(backoff, windowMs, hardCap) {
  return guarded(() => raw.plan(plain(backoff, 'backoff'), plain(windowMs, 'window_ms'), plain(hardCap, 'hard_cap')));
}

/** The jittered delay (ms) of retry `retryIndex` (0-based) for an event. */
function delay(backoff, eventId, retryIndex) {
  return guarded(() => raw.delay(plain(backoff, 'backoff'), plain(eventId, 'event_id'), plain(retryIndex, 'retry_index')));
}

/** `success`, `retryable` or `terminal` for an HTTP status (100..=599). */
function classifyStatus(status) {
  return guarded(() => raw.classifyStatus(plain(status, 'status')));
}

/** `retryable` or `terminal` for a transport error kind (unknown kinds: terminal). */
function classifyError(errorKind) {
  return guarded(() => raw.classifyError(plain(errorKind, 'error_kind')));
}

/** Whether one more retry fits the budget, given the counts read at `nowMs`. */
function budgetAllows(budget, nowMs, counts) {
  return guarded(() => raw.budgetAllows(plain(budget, 'budget'), plain(nowMs, 'now_ms'), plain(counts, 'counts')));
}

/**
 * The pure decision after an attempt. `budgetCounts` is what the store
 * returned, or `null` when it could not be read (the decision is then
 * `budget_unavailable` whenever a retry was otherwise due: fail closed).
 * For many decisions under one policy, `compilePolicy(policy).decide` is
 * much faster.
 */
function decide(policy, state, outcome, nowMs, budgetCounts) {
  return guarded(() =>
    raw.decide(
      plain(policy, 'policy'),
      plain(state, 'state'),
      plain(outcome, 'outcome'),
      plain(nowMs, 'now_ms'),
      plain(budgetCounts, 'budget_counts'),
    ),
  );
}

module.exports = { plan, delay, classifyStatus, classifyError, budgetAllows, decide };
