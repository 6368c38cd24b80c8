'use strict';
// The contract's operations as plain functions: plain data in the
// contract's shape in and out (snake_case fields, integer milliseconds),
// every check in the Rust core. Each is one `run(op, input)` of the module
// with the vector's input shape, except `storeApply`, which takes the
// scalar fast path for every shape its types allow (an in-memory store
// calls it on every attempt).
const { raw, outBuffer } = require('./native.cjs');
const { guarded } = require('./errors.cjs');
const { plain } = require('./snapshot.cjs');
const { num, isObject } = require('./fast.cjs');

const run = (op, input) => guarded(() => raw.run(op, plain(input, '', -1)));

const plan = (backoff, windowMs, hardCap) => run('plan', { backoff, window_ms: windowMs, hard_cap: hardCap });
const delay = (backoff, eventId, retryIndex) => run('delay', { backoff, event_id: eventId, retry_index: retryIndex }).delay_ms;
const classifyStatus = (status) => run('classify_status', { status }).outcome;
const classifyError = (errorKind) => run('classify_error', { error_kind: errorKind }).outcome;
const budgetAllows = (budget, nowMs, counts) =>
  run('budget', { budget, now_ms: nowMs, current: counts?.current, previous: counts?.previous }).allows_retry;
const decide = (policy, state, outcome, nowMs, budgetCounts) =>
  run('decide', { policy, state, outcome, now_ms: nowMs, budget_counts: budgetCounts });
const evaluate = (policy, state, outcome, nowMs) => run('evaluate', { policy, state, outcome, now_ms: nowMs });
const settle = (policy, state, outcome, nowMs, reply) => run('settle', { policy, state, outcome, now_ms: nowMs, reply });
const resume = (policy, state, nowMs) => run('resume', { policy, state, now_ms: nowMs });
const retryAfter = (header, nowMs) => run('retry_after', { header, now_ms: nowMs }).retry_after_ms;
const storeKey = (request) => run('store_key', { request });

const OPS = { record: 1, reserve: 2, record_reserve: 3 };
const EMPTY_HELD = Object.freeze({
  bucket: 0,
  current: Object.freeze({ total: 0, retries: 0 }),
  previous: Object.freeze({ total: 0, retries: 0 }),
});

/** Own keys of `o` are exactly `names` (in any order). */
function exactly(o, names) {
  if (!isObject(o)) return false;
  const keys = Object.keys(o);
  return keys.length === names.length && keys.every((k) => names.includes(k));
}
const REQUEST = ['op', 'endpoint_id', 'window_ms', 'bucket'];
const BUDGET = ['ratio', 'window_ms', 'min_sample', 'sliding'];
const HELD = ['bucket', 'current', 'previous'];
const COUNTS = ['total', 'retries'];

function canonicalApply(request, budget, held) {
  return (
    exactly(request, REQUEST) &&
    typeof request.endpoint_id === 'string' &&
    OPS[request.op] !== undefined &&
    exactly(budget, BUDGET) &&
    typeof budget.ratio === 'number' &&
    typeof budget.sliding === 'boolean' &&
    exactly(held, HELD) &&
    exactly(held.current, COUNTS) &&
    exactly(held.previous, COUNTS)
  );
}

/** An in-memory store's answer to `request` on what it `held`: `{reply, held}`. */
function storeApply(request, budget, nowMs, held) {
  if (canonicalApply(request, budget, held)) {
    const { current: c, previous: p } = held;
    const reserved = raw.storeApplyFast(
      OPS[request.op],
      num(request.window_ms),
      num(request.bucket),
      num(nowMs),
      budget.ratio,
      num(budget.window_ms),
      num(budget.min_sample),
      budget.sliding,
      num(held.bucket),
      num(c.total),
      num(c.retries),
      num(p.total),
      num(p.retries),
    );
    if (reserved !== 128) {
      const o = outBuffer();
      return {
        reply: {
          reserved: reserved === 1,
          counts: { current: { total: o[0], retries: o[1] }, previous: { total: o[2], retries: o[3] } },
        },
        held: { bucket: o[4], current: { total: o[5], retries: o[6] }, previous: { total: o[7], retries: o[8] } },
      };
    }
  }
  return run('store_apply', { request, budget, now_ms: nowMs, held });
}

module.exports = {
  run,
  plan,
  delay,
  classifyStatus,
  classifyError,
  budgetAllows,
  decide,
  evaluate,
  settle,
  resume,
  retryAfter,
  storeKey,
  storeApply,
  EMPTY_HELD,
};
