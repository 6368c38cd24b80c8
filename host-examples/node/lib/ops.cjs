'use strict';
// The contract's operations as plain functions: plain data in the
// contract's shape in and out (snake_case fields, integer milliseconds as
// numbers or bigints). Each copies its arguments (snapshot.cjs), checks
// their WIT shapes (lower.cjs) and makes ONE call into the current
// artifact's component; every other check is the component's. The step's
// and the store's records take a one-pass road to the same result
// (read-step.cjs).
const { plain } = require('./snapshot.cjs');
const lower = require('./lower.cjs');
const read = require('./read-step.cjs');
const { call, callWithImports, STEP_PATHS } = require('./call.cjs');
const { artifact } = require('./artifact/current.cjs');
const { systemClock } = require('./clock.cjs');

const plan = (backoff, windowMs, hardCap) => {
  const b = lower.backoff(plain(backoff, 'backoff'), 'backoff');
  const w = lower.u64(plain(windowMs, 'window_ms'), 'window_ms');
  const h = lower.u32(plain(hardCap, 'hard_cap'), 'hard_cap');
  return lower.scheduleOut(call((api) => api.plan(b, w, h)));
};

const classifyStatus = (status) => {
  const s = lower.uint(plain(status, 'status'), 'status', 0xffff, 'invalid_status');
  return call((api) => api.classifyStatus(s));
};

const classifyError = (errorKind) => {
  const k = lower.str(plain(errorKind, 'error_kind'), 'error_kind');
  return call((api) => api.classifyError(k));
};

/**
 * The lowered policy, state and outcome of a step. Lowering refuses only
 * shapes (`invalid_input`; a status above 65535 is lowered as 65535, which
 * the component refuses as `invalid_status` after the policy), so the
 * component names the first of the contract's errors in its own order.
 */
function stepArgs(policy, state, outcome) {
  return [read.policy(policy, 'policy'), read.state(state, 'state'), read.outcome(outcome, 'outcome')];
}

/** The component's `evaluate` of lowered `[p, s, o]` at `nowMs`, on `on` (the artifact a step began on). */
function evaluateLowered([p, s, o], nowMs, on = artifact()) {
  const now = lower.u64(nowMs, 'now_ms');
  return call((api) => api.evaluate(p, s, o, now), on, STEP_PATHS);
}

/** The component's `settle` of lowered `[p, s, o]` at `nowMs`, `reply` in the contract's shape. */
function settleLowered([p, s, o], nowMs, reply, on = artifact()) {
  const now = lower.u64(nowMs, 'now_ms');
  const r = read.reply(reply, 'reply');
  return call((api) => api.settle(p, s, o, now, r), on, STEP_PATHS);
}

/** Gates 1-5 and the one store request this attempt needs: `{decision, store}`. */
const evaluate = (policy, state, outcome, nowMs) => lower.stepOut(evaluateLowered(stepArgs(policy, state, outcome), nowMs));

/** The decision once the store answered `reply`: `{decision, budget_disagreement}`. */
const settle = (policy, state, outcome, nowMs, reply) => lower.settlementOut(settleLowered(stepArgs(policy, state, outcome), nowMs, reply));

/** A Retry-After header value in ms from `nowMs`, or null when it is not usable. */
const retryAfter = (header, nowMs) => {
  const h = lower.str(plain(header, 'header'), 'header');
  const now = lower.u64(nowMs, 'now_ms');
  const ms = call((api) => api.parseRetryAfter(h, now));
  return ms === undefined ? null : lower.n(ms);
};

const storeKey = (request) => {
  const r = read.request(request, 'request');
  return call((api) => api.storeKey(r));
};

const EMPTY_HELD = Object.freeze({
  bucket: 0,
  current: Object.freeze({ total: 0, retries: 0 }),
  previous: Object.freeze({ total: 0, retries: 0 }),
});

/** An in-memory store's answer to `request` on what it `held`: `{reply, held}`. */
const storeApply = (request, budget, nowMs, held) => {
  const r = read.request(request, 'request');
  const b = read.budget(budget, 'budget');
  const now = lower.u64(nowMs, 'now_ms');
  const h = read.held(held, 'held');
  return lower.appliedOut(call((api) => api.storeApply(r, b, now, h)));
};

/** `v` when it is an object with the method `name`, else a TypeError naming `option` and `signature`. */
function withMethod(v, name, option, signature) {
  if (typeof v !== 'object' || v === null || typeof v[name] !== 'function') throw new TypeError(`decide: options.${option} must have a ${signature} method`);
  return v;
}

/** A clock (`{nowMs()}`) read once, checked: a bigint for the component. */
const readClock = (clock) => lower.u64(withMethod(clock, 'nowMs', 'clock', 'nowMs()').nowMs(), 'now_ms');

/**
 * The imports-driven step: ONE call into the component, which reads the
 * clock and makes at most one call to `store` (synchronous; an async store
 * uses RetryPolicy#step). A store that throws or answers badly is
 * `budget_unavailable` for a pending retry.
 */
const decide = (policy, state, outcome, { store, clock = systemClock, onStoreError } = {}) => {
  const [p, s, o] = stepArgs(policy, state, outcome);
  const st = withMethod(store, 'call', 'store', 'call(request, budget, nowMs)');
  const now = readClock(clock);
  return lower.decisionOut(callWithImports(now, st, onStoreError, (api) => api.decide(p, s, o)));
};

module.exports = {
  plan,
  classifyStatus,
  classifyError,
  decide,
  evaluate,
  settle,
  retryAfter,
  storeKey,
  storeApply,
  EMPTY_HELD,
  readClock,
  evaluateLowered,
  settleLowered,
};
