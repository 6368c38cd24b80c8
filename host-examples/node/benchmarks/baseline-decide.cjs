'use strict';
// ============================================================================
// BASELINE FOR THE BENCHMARK ONLY — NOT PART OF THE PACKAGE, NEVER USED BY IT.
//
// A plain JavaScript port of the policy's `decide` (SPEC "Decide", "Backoff",
// "Retry budget"), written the way a Node team would without the wasm
// package, so `npm run bench` can show what one wasm call per decision costs
// against it. u64 hashing uses BigInt (the straightforward port). It
// validates the policy and state ranges like the core does, but trusts the
// input's shape (no unknown-field or type checks). tests/baseline.test.mjs
// checks it against the decide vectors, so the comparison is like for like.
// ============================================================================

const MASK64 = (1n << 64n) - 1n;
const RETRYABLE_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504, 507, 509]);
const TERMINAL_STATUSES = new Set([400, 403, 404, 405, 406, 409, 410, 411, 413, 414, 415, 422, 451]);
const RETRYABLE_ERRORS = new Set([
  'connect_timeout',
  'read_timeout',
  'write_timeout',
  'pool_timeout',
  'connect_error',
  'remote_protocol_error',
]);
const encoder = new TextEncoder();

function fnv1a64(bytes) {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & MASK64;
  return h;
}

function splitmix64(x) {
  x = (x + 0x9e3779b97f4a7c15n) & MASK64;
  let z = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

function ceilingMs(b, i) {
  let p = 1.0;
  for (let k = 0; k < i; k++) {
    const next = p * b.factor;
    if (next === p) break;
    p = next;
    if (b.base_ms * p >= b.cap_ms) return b.cap_ms;
  }
  const raw = b.base_ms * p;
  return !Number.isFinite(raw) || raw >= b.cap_ms ? b.cap_ms : Math.floor(raw);
}

function delayMs(b, eventId, i) {
  const c = ceilingMs(b, i);
  const lo = b.jitter === 'none' ? c : b.jitter === 'full' ? 0 : Math.floor(c / 2);
  const draw = splitmix64(fnv1a64(encoder.encode(eventId)) ^ BigInt(i));
  return lo + Number(draw % BigInt(c - lo + 1));
}

function fail(code, field) {
  const e = new Error(`${code} at ${field}`);
  e.code = code;
  throw e;
}

function validate(p, s) {
  const b = p.backoff;
  if (!(b.base_ms >= 1)) fail('invalid_backoff', 'backoff.base_ms');
  if (b.cap_ms > 86_400_000) fail('invalid_backoff', 'backoff.cap_ms');
  if (b.base_ms > b.cap_ms) fail('invalid_backoff', 'backoff.base_ms');
  if (!Number.isFinite(b.factor) || !(b.factor >= 1)) fail('invalid_backoff', 'backoff.factor');
  if (!['none', 'full', 'equal'].includes(b.jitter)) fail('invalid_backoff', 'backoff.jitter');
  if (!(p.hard_cap >= 1 && p.hard_cap <= 100)) fail('invalid_hard_cap', 'hard_cap');
  if (p.window_ms > 2_592_000_000) fail('invalid_window', 'window_ms');
  if (!(p.budget.ratio > 0 && p.budget.ratio <= 1)) fail('invalid_budget', 'budget.ratio');
  if (p.budget.window_ms < 1) fail('invalid_budget', 'budget.window_ms');
  if (s.attempt < 1) fail('invalid_state', 'state.attempt');
  if (s.max_attempts < 1 || s.max_attempts > 100) fail('invalid_state', 'state.max_attempts');
}

function allowsRetry(g, nowMs, c) {
  const w = g.sliding ? (g.window_ms - (nowMs % g.window_ms)) / g.window_ms : 0.0;
  const estTotal = c.current.total + c.previous.total * w;
  const estRetries = c.current.retries + c.previous.retries * w;
  if (estTotal < g.min_sample) return true;
  return estRetries + 1.0 <= g.ratio * (estTotal + 1.0);
}

function stop(reason, disable, s, elapsed) {
  const d = { stop_reason: reason, disable_endpoint: disable };
  if (reason !== 'delivered') {
    d.dead_letter = {
      event_id: s.event_id,
      endpoint_id: s.endpoint_id,
      attempts: s.attempt,
      elapsed_ms: elapsed,
      stop_reason: reason,
    };
  }
  return d;
}

/** decide(policy, state, outcome, nowMs, budgetCounts | null), with `delayFn(backoff, eventId, retryIndex)`. */
const makeDecide = (delayFn) => function decide(policy, s, outcome, nowMs, counts) {
  validate(policy, s);
  let cls;
  const status = outcome.status;
  if (status !== undefined) {
    if (!(status >= 100 && status <= 599)) fail('invalid_status', 'outcome.status');
    if (status >= 200 && status <= 299) cls = 'success';
    else if (RETRYABLE_STATUSES.has(status)) cls = 'retryable';
    else if (TERMINAL_STATUSES.has(status)) cls = 'terminal';
    else cls = status >= 500 ? 'retryable' : 'terminal';
  } else {
    cls = RETRYABLE_ERRORS.has(outcome.error_kind) ? 'retryable' : 'terminal';
  }
  let refresh = false;
  if (status === 401 || status === 403) {
    if (s.credentials_refreshed) cls = 'terminal';
    else [cls, refresh] = ['retryable', true];
  }
  const elapsed = Math.max(0, nowMs - s.first_attempted_at_ms);
  if (cls === 'success') return stop('delivered', false, s, elapsed);
  if (cls === 'terminal') return stop('terminal_response', status === 410, s, elapsed);
  if (s.attempt >= s.max_attempts) return stop('max_attempts_exhausted', false, s, elapsed);
  if (elapsed >= policy.window_ms) return stop('retry_window_elapsed', false, s, elapsed);
  let delay = delayFn(policy.backoff, s.event_id, s.attempt - 1);
  if (outcome.retry_after_ms !== undefined && outcome.retry_after_ms !== null) delay = Math.max(delay, outcome.retry_after_ms);
  if (elapsed + delay > policy.window_ms) return stop('retry_window_elapsed', false, s, elapsed);
  if (counts === null) return stop('budget_unavailable', false, s, elapsed);
  if (!allowsRetry(policy.budget, nowMs, counts)) return stop('retry_budget_exhausted', false, s, elapsed);
  return { stop_reason: null, disable_endpoint: false, retry: { delay_ms: delay, refresh_credentials: refresh } };
};

module.exports = { decide: makeDecide(delayMs), makeDecide, ceilingMs, delayMs };
