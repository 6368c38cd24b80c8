'use strict';
// The contract's JavaScript shapes <-> the component's (jco's) shapes.
//
// In: plain data (snapshot.cjs copied it) in the contract's shape: snake_case
// fields, integers as safe numbers or bigints, `null`/absent for none. Out:
// jco's shape (camelCase fields, a u64 as a safe-integer number or else a
// bigint, both of which jco stores; kebab-case enum cases, variants as
// {tag, val}). The typed step's inputs take a faster road to the same
// result (read-step.cjs), which falls back to these. Only the WIT types' shapes and widths are checked
// here, each failure a PolicyError `invalid_input` at the field's path,
// except where a WIT type is narrower than the contract (an unknown jitter
// name: `invalid_backoff`). A status above 65535 is lowered as 65535, which
// the component refuses as `invalid_status` in the contract's validation
// order (the state is judged first), as policy-core's own codec does. Every range the contract gives meaning to
// (base_ms >= 1, ratio <= 1, status 100..=599 ...) is the component's call.
//
// Back: the component's answers in the contract's shape (u64 as a number,
// or a bigint above 2^53-1; snake_case enum cases).
const { PolicyError } = require('./errors.cjs');

const MAX_SAFE = 9007199254740991;
const U64_MAX = 2n ** 64n - 1n;

const fail = (path, detail, code = 'invalid_input') => new PolicyError(code, path, detail);
const at = (path, key) => (path ? `${path}.${key}` : key);
const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/** `v` is an object with exactly the `required` fields and any of `optional`. */
function fields(v, path, required, optional = []) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw fail(path, `expected an object, got ${kind(v)}`);
  for (const k of Object.keys(v)) {
    if (!required.includes(k) && !optional.includes(k)) throw fail(at(path, k), 'unknown field');
  }
  for (const k of required) if (v[k] === undefined) throw fail(at(path, k), 'missing field');
}

function uint(v, path, max, code = 'invalid_input') {
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < 0) throw fail(path, `expected a non-negative integer, got ${v}`);
    if (v > MAX_SAFE) throw fail(path, `${v} is not a safe integer (pass a bigint)`);
    if (v > max) throw fail(path, `${v} does not fit in ${max.toString(2).length} bits`, code);
    return v;
  }
  if (typeof v === 'bigint') {
    if (v < 0n) throw fail(path, `expected a non-negative integer, got ${v}n`);
    if (v > BigInt(max)) throw fail(path, `${v}n does not fit in ${max.toString(2).length} bits`, code);
    return Number(v);
  }
  throw fail(path, `expected a non-negative integer, got ${kind(v)}`);
}

/** A u64 for jco: a safe integer stays a number (no BigInt made per field; the glue stores it as is), else a bigint. */
function u64(v, path) {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'bigint') {
    if (v < 0n || v > U64_MAX) throw fail(path, `${v}n is outside 0..2^64-1`);
    return v;
  }
  return uint(v, path, MAX_SAFE); // throws the reason
}
const u32 = (v, path) => uint(v, path, 0xffffffff);
/** A whole number above 65535 -> 65535 (out of 100..=599 all the same); anything else as given, for `uint` to judge. */
const saturated16 = (v) => ((typeof v === 'number' && Number.isInteger(v) && v > 0xffff) || (typeof v === 'bigint' && v > 0xffffn) ? 0xffff : v);

function f64(v, path) {
  if (typeof v === 'number') return v; // NaN and infinities are the component's to refuse
  if (typeof v === 'bigint' && v >= -(2n ** 53n) && v <= 2n ** 53n) return Number(v);
  throw fail(path, `expected a number, got ${kind(v)}`);
}

function bool(v, path) {
  if (typeof v !== 'boolean') throw fail(path, `expected a boolean, got ${kind(v)}`);
  return v;
}

function str(v, path) {
  if (typeof v !== 'string') throw fail(path, `expected a string, got ${kind(v)}`);
  return v;
}

function oneOf(v, path, cases, code) {
  if (typeof v !== 'string') throw fail(path, `expected a string, got ${kind(v)}`);
  const c = cases[v];
  if (c === undefined) throw fail(path, `expected one of ${Object.keys(cases).join(', ')}, got ${JSON.stringify(v.slice(0, 80))}`, code);
  return c;
}

const JITTER = { none: 'none', full: 'full', equal: 'equal' };
const STORE_OP = { record: 'record', reserve: 'reserve', record_reserve: 'record-reserve' };

function backoff(v, path) {
  fields(v, path, ['base_ms', 'factor', 'cap_ms', 'jitter']);
  return {
    baseMs: u64(v.base_ms, at(path, 'base_ms')),
    factor: f64(v.factor, at(path, 'factor')),
    capMs: u64(v.cap_ms, at(path, 'cap_ms')),
    jitter: oneOf(v.jitter, at(path, 'jitter'), JITTER, 'invalid_backoff'),
  };
}

function budget(v, path) {
  fields(v, path, ['ratio', 'window_ms', 'min_sample', 'sliding']);
  return {
    ratio: f64(v.ratio, at(path, 'ratio')),
    windowMs: u64(v.window_ms, at(path, 'window_ms')),
    minSample: u64(v.min_sample, at(path, 'min_sample')),
    sliding: bool(v.sliding, at(path, 'sliding')),
  };
}

function policy(v, path) {
  fields(v, path, ['backoff', 'window_ms', 'hard_cap', 'budget']);
  return {
    backoff: backoff(v.backoff, at(path, 'backoff')),
    windowMs: u64(v.window_ms, at(path, 'window_ms')),
    hardCap: u32(v.hard_cap, at(path, 'hard_cap')),
    budget: budget(v.budget, at(path, 'budget')),
  };
}

const STATE = ['event_id', 'endpoint_id', 'attempt', 'max_attempts', 'first_attempted_at_ms', 'credentials_refreshed'];
const CLASSED = ['class', 'policy_hash'];

/** A delivery state; `classed`: RetryPolicy's states also carry `class` and `policy_hash`. */
function state(v, path, classed = false) {
  fields(v, path, STATE, classed ? CLASSED : []);
  return {
    eventId: str(v.event_id, at(path, 'event_id')),
    endpointId: str(v.endpoint_id, at(path, 'endpoint_id')),
    attempt: u32(v.attempt, at(path, 'attempt')),
    maxAttempts: u32(v.max_attempts, at(path, 'max_attempts')),
    firstAttemptedAtMs: u64(v.first_attempted_at_ms, at(path, 'first_attempted_at_ms')),
    credentialsRefreshed: bool(v.credentials_refreshed, at(path, 'credentials_refreshed')),
  };
}

function outcome(v, path) {
  fields(v, path, [], ['status', 'retry_after_ms', 'error_kind']);
  const { status, retry_after_ms: ra, error_kind: errorKind } = v;
  if (errorKind != null) {
    if (status != null || ra != null) throw fail(path, 'expected {status, retry_after_ms?} or {error_kind}, got both');
    return { tag: 'transport-error', val: str(errorKind, at(path, 'error_kind')) };
  }
  if (status == null) throw fail(path, 'expected {status, retry_after_ms?} or {error_kind}, got neither');
  return {
    tag: 'response',
    val: { status: uint(saturated16(status), at(path, 'status'), 0xffff, 'invalid_status'), retryAfterMs: ra == null ? undefined : u64(ra, at(path, 'retry_after_ms')) },
  };
}

function bucketCounts(v, path) {
  fields(v, path, ['total', 'retries']);
  return { total: u64(v.total, at(path, 'total')), retries: u64(v.retries, at(path, 'retries')) };
}

function counts(v, path) {
  fields(v, path, ['current', 'previous']);
  return { current: bucketCounts(v.current, at(path, 'current')), previous: bucketCounts(v.previous, at(path, 'previous')) };
}

function reservation(v, path) {
  fields(v, path, ['reserved', 'counts']);
  return { reserved: bool(v.reserved, at(path, 'reserved')), counts: counts(v.counts, at(path, 'counts')) };
}

function reply(v, path) {
  fields(v, path, [], ['unavailable', 'reserved', 'counts']);
  if (v.unavailable != null) {
    if (v.unavailable !== true) throw fail(at(path, 'unavailable'), 'expected true');
    if (v.reserved != null || v.counts != null) throw fail(path, 'expected {unavailable: true} or {reserved, counts}, got both');
    return { tag: 'unavailable' };
  }
  return { tag: 'answered', val: reservation(v, path) };
}

function request(v, path) {
  fields(v, path, ['op', 'endpoint_id', 'window_ms', 'bucket']);
  return {
    op: oneOf(v.op, at(path, 'op'), STORE_OP, 'invalid_input'),
    endpointId: str(v.endpoint_id, at(path, 'endpoint_id')),
    windowMs: u64(v.window_ms, at(path, 'window_ms')),
    bucket: u64(v.bucket, at(path, 'bucket')),
  };
}

function held(v, path) {
  fields(v, path, ['bucket', 'current', 'previous']);
  return {
    bucket: u64(v.bucket, at(path, 'bucket')),
    current: bucketCounts(v.current, at(path, 'current')),
    previous: bucketCounts(v.previous, at(path, 'previous')),
  };
}

// ---- the component's answers, in the contract's shape ----

/** A u64 as a number, or a bigint above 2^53-1. */
const n = (b) => (b <= 9007199254740991n ? Number(b) : b);
// kebab-case WIT names -> the contract's snake_case, looked up (a hot path: every decision)
const SNAKE = new Map();
const snake = (s) => {
  let v = SNAKE.get(s);
  if (v === undefined) {
    v = s.replaceAll('-', '_');
    if (SNAKE.size < 256) SNAKE.set(s, v);
  }
  return v;
};

const scheduleOut = (s) => ({
  max_attempts: s.maxAttempts,
  expected_span_ms: n(s.expectedSpanMs),
  offsets_ms: Array.from(s.offsetsMs, n),
  worst_case_span_ms: n(s.worstCaseSpanMs),
  limited_by: snake(s.limitedBy),
});

function stopOut(s) {
  const reason = snake(s.reason);
  const d = { stop_reason: reason, disable_endpoint: s.disableEndpoint };
  const dl = s.deadLetter;
  if (dl !== undefined) {
    d.dead_letter = { event_id: dl.eventId, endpoint_id: dl.endpointId, attempts: dl.attempts, elapsed_ms: n(dl.elapsedMs), stop_reason: snake(dl.stopReason) };
  }
  return d;
}

function decisionOut(d) {
  if (d.tag === 'retry') {
    return { stop_reason: null, disable_endpoint: false, retry: { delay_ms: n(d.val.delayMs), refresh_credentials: d.val.refreshCredentials } };
  }
  return stopOut(d.val);
}

const countsOut = (c) => ({
  current: { total: n(c.current.total), retries: n(c.current.retries) },
  previous: { total: n(c.previous.total), retries: n(c.previous.retries) },
});

const requestOut = (r) => ({ op: snake(r.op), endpoint_id: r.endpointId, window_ms: n(r.windowMs), bucket: n(r.bucket) });

const stepOut = (s) => ({
  decision: s.decision === undefined ? null : decisionOut(s.decision),
  store: s.store === undefined ? null : requestOut(s.store),
});

const settlementOut = (s) => ({ decision: decisionOut(s.decision), budget_disagreement: s.budgetDisagreement });
const reservationOut = (r) => ({ reserved: r.reserved, counts: countsOut(r.counts) });
const appliedOut = (a) => ({
  reply: reservationOut(a.reply),
  held: { bucket: n(a.held.bucket), ...countsOut(a.held) },
});

const admissionOut = (a) => ({
  class: a.class,
  policy_version: a.policyVersion,
  policy_hash: a.policyHash,
  first_attempted_at_ms: n(a.firstAttemptedAtMs),
  deadline_ms: n(a.deadlineMs),
  ...scheduleOut(a.schedule),
});

const budgetOut = (b) => ({ ratio: b.ratio, window_ms: n(b.windowMs), min_sample: n(b.minSample), sliding: b.sliding });
const policyOut = (p) => ({
  backoff: { base_ms: n(p.backoff.baseMs), factor: p.backoff.factor, cap_ms: n(p.backoff.capMs), jitter: p.backoff.jitter },
  window_ms: n(p.windowMs),
  hard_cap: p.hardCap,
  budget: budgetOut(p.budget),
});

/** The component's policy-error (jco's ComponentError payload) as a PolicyError. */
const policyError = (e) => new PolicyError(snake(e.code), e.field, e.message);

module.exports = {
  fail,
  uint,
  u64,
  u32,
  str,
  backoff,
  budget,
  policy,
  state,
  outcome,
  reservation,
  reply,
  request,
  held,
  n,
  snake,
  scheduleOut,
  decisionOut,
  stepOut,
  settlementOut,
  appliedOut,
  admissionOut,
  requestOut,
  budgetOut,
  policyOut,
  policyError,
};
