'use strict';
// The contract's JavaScript shapes <-> the component's (jco's) shapes.
//
// In: a caller's value in the contract's shape: snake_case fields, integers
// as safe numbers or bigints, `null`/absent for none. Each field of the
// caller's object is read exactly once, before anything crosses into
// WebAssembly: an ordinary object (prototype Object.prototype or null) is
// read field by field here, a nested record by its own lowering; anything
// else (a Proxy, a Map, a class instance, a value that is not a record) is
// copied by snapshot.cjs first, which also refuses what cannot be data at
// all. Out: jco's shape (camelCase fields, a u64 as a safe-integer number
// or else a bigint, both of which jco stores; kebab-case enum cases,
// variants as {tag, val}). Only the WIT types' shapes and widths are
// checked here, each failure a PolicyError `invalid_input` at the field's
// path, except where a WIT type is narrower than the contract (an unknown
// jitter name: `invalid_backoff`). A status above 65535 is lowered as
// 65535, which the component refuses as `invalid_status` in the contract's
// validation order (the state is judged first), as policy-core's own codec
// does. Every range the contract gives meaning to (base_ms >= 1, ratio <= 1,
// status 100..=599 ...) is the component's call.
//
// Back: the component's answers in the contract's shape (u64 as a number,
// or a bigint above 2^53-1; snake_case enum cases).
const { PolicyError } = require('./errors.cjs');
const { plain } = require('./snapshot.cjs');

const MAX_SAFE = 9007199254740991;
const U64_MAX = 2n ** 64n - 1n;
const I64_MIN = -(2n ** 63n);

const fail = (path, detail, code = 'invalid_input') => new PolicyError(code, path, detail);
const at = (path, key) => (path ? `${path}.${key}` : key);
/** The path of field `key` of `path` (none: `path` itself), joined only for a refusal. */
const where = (path, key) => (key === undefined ? path : at(path, key));
const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/** The own enumerable keys of an ordinary object; null for anything else, or when asking threw (snapshot.cjs answers). */
function keysOf(v) {
  if (typeof v !== 'object' || v === null) return null;
  try {
    if (Array.isArray(v)) return null;
    const proto = Object.getPrototypeOf(v);
    return proto === Object.prototype || proto === null ? Object.keys(v) : null;
  } catch {
    return null;
  }
}

/**
 * A record's fields: `names` in the order `read(v)` reads them (a named load
 * each, where a loop over names would be a keyed one: several times
 * slower), the first `required` of them required, and those of `nested`
 * records of their own (lowered by their own functions).
 */
function shape(names, required, nested, read) {
  const set = Object.create(null);
  for (const k of names) set[k] = true;
  return Object.freeze({ names, required, nested: names.map((k) => nested.includes(k)), set, read });
}

/**
 * `v`'s fields in `r`'s order, each read once, refused as snapshot.cjs and
 * the record's field list refuse them: an ordinary object read here (a
 * value that is neither a record of its own nor a string, number, boolean,
 * bigint or null copied by snapshot.cjs), anything else copied whole by
 * snapshot.cjs first. A field whose reading throws: the object is copied by
 * snapshot.cjs, which names it.
 */
function take(v, path, depth, r) {
  let keys = keysOf(v);
  if (keys === null) {
    v = plain(v, path, depth);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw fail(path, `expected an object, got ${kind(v)}`);
    keys = Object.keys(v);
  }
  let i = 0;
  while (i < keys.length && keys[i] === r.names[i]) i++; // in the record's own order (the common case): no lookup
  for (; i < keys.length; i++) {
    if (r.set[keys[i]] !== true) {
      plain(v, path, depth); // what it refuses in any field comes first, as when the copy is checked
      throw fail(at(path, keys[i]), 'unknown field');
    }
  }
  let values;
  try {
    values = r.read(v);
  } catch {
    values = r.read(plain(v, path, depth)); // throws at the field that did
  }
  for (i = 0; i < values.length; i++) {
    const x = values[i];
    const t = typeof x;
    if (x === undefined) {
      // As in JSON.stringify: a property set to undefined is absent.
      if (i < r.required) throw fail(at(path, r.names[i]), 'missing field');
    } else if (!(t === 'string' || t === 'number' || t === 'boolean' || x === null || (t === 'object' && r.nested[i]) || (t === 'bigint' && x >= I64_MIN && x <= U64_MAX))) {
      values[i] = plain(x, at(path, r.names[i]), depth + 1);
    }
  }
  return values;
}

function uint(v, path, max, code = 'invalid_input', key = undefined) {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max) return v;
  if (typeof v === 'bigint' && v >= 0n && v <= BigInt(max)) return Number(v);
  const p = where(path, key);
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < 0) throw fail(p, `expected a non-negative integer, got ${v}`);
    if (v > MAX_SAFE) throw fail(p, `${v} is not a safe integer (pass a bigint)`);
    throw fail(p, `${v} does not fit in ${max.toString(2).length} bits`, code);
  }
  if (typeof v === 'bigint') {
    if (v < 0n) throw fail(p, `expected a non-negative integer, got ${v}n`);
    throw fail(p, `${v}n does not fit in ${max.toString(2).length} bits`, code);
  }
  throw fail(p, `expected a non-negative integer, got ${kind(v)}`);
}

/** A u64 for jco: a safe integer stays a number (no BigInt made per field; the glue stores it as is), else a bigint. */
function u64(v, path, key) {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'bigint') {
    if (v < 0n || v > U64_MAX) throw fail(where(path, key), `${v}n is outside 0..2^64-1`);
    return v;
  }
  return uint(v, path, MAX_SAFE, 'invalid_input', key); // throws the reason
}
const u32 = (v, path, key) => uint(v, path, 0xffffffff, 'invalid_input', key);
/** A whole number above 65535 -> 65535 (out of 100..=599 all the same); anything else as given, for `uint` to judge. */
const saturated16 = (v) => ((typeof v === 'number' && Number.isInteger(v) && v > 0xffff) || (typeof v === 'bigint' && v > 0xffffn) ? 0xffff : v);

function f64(v, path, key) {
  if (typeof v === 'number') return v; // NaN and infinities are the component's to refuse
  if (typeof v === 'bigint' && v >= -(2n ** 53n) && v <= 2n ** 53n) return Number(v);
  throw fail(where(path, key), `expected a number, got ${kind(v)}`);
}

function bool(v, path, key) {
  if (typeof v !== 'boolean') throw fail(where(path, key), `expected a boolean, got ${kind(v)}`);
  return v;
}

function str(v, path, key) {
  if (typeof v !== 'string') throw fail(where(path, key), `expected a string, got ${kind(v)}`);
  return v;
}

function oneOf(v, path, key, cases, code) {
  if (typeof v !== 'string') throw fail(where(path, key), `expected a string, got ${kind(v)}`);
  const c = cases[v];
  if (c === undefined) throw fail(where(path, key), `expected one of ${Object.keys(cases).join(', ')}, got ${JSON.stringify(v.slice(0, 80))}`, code);
  return c;
}

const JITTER = Object.freeze({ __proto__: null, none: 'none', full: 'full', equal: 'equal' });
const STORE_OP = Object.freeze({ __proto__: null, record: 'record', reserve: 'reserve', record_reserve: 'record-reserve' });
const NONE = [];
const BACKOFF = shape(['base_ms', 'factor', 'cap_ms', 'jitter'], 4, NONE, (v) => [v.base_ms, v.factor, v.cap_ms, v.jitter]);
const BUDGET = shape(['ratio', 'window_ms', 'min_sample', 'sliding'], 4, NONE, (v) => [v.ratio, v.window_ms, v.min_sample, v.sliding]);
const POLICY = shape(['backoff', 'window_ms', 'hard_cap', 'budget'], 4, ['backoff', 'budget'], (v) => [v.backoff, v.window_ms, v.hard_cap, v.budget]);
const STATE_FIELDS = ['event_id', 'endpoint_id', 'attempt', 'max_attempts', 'first_attempted_at_ms', 'credentials_refreshed'];
const STATE = shape(STATE_FIELDS, 6, NONE, (v) => [v.event_id, v.endpoint_id, v.attempt, v.max_attempts, v.first_attempted_at_ms, v.credentials_refreshed]);
/** RetryPolicy's state: also `class` and `policy_hash` (values 6 and 7; judged by RetryPolicy). */
const CLASSED = shape([...STATE_FIELDS, 'class', 'policy_hash'], 6, NONE, (v) => [
  v.event_id, v.endpoint_id, v.attempt, v.max_attempts, v.first_attempted_at_ms, v.credentials_refreshed, v.class, v.policy_hash,
]);
const OUTCOME = shape(['status', 'retry_after_ms', 'error_kind'], 0, NONE, (v) => [v.status, v.retry_after_ms, v.error_kind]);
const BUCKET = shape(['total', 'retries'], 2, NONE, (v) => [v.total, v.retries]);
const COUNTS = shape(['current', 'previous'], 2, ['current', 'previous'], (v) => [v.current, v.previous]);
const RESERVATION = shape(['reserved', 'counts'], 2, ['counts'], (v) => [v.reserved, v.counts]);
const REPLY = shape(['unavailable', 'reserved', 'counts'], 0, ['counts'], (v) => [v.unavailable, v.reserved, v.counts]);
const REQUEST = shape(['op', 'endpoint_id', 'window_ms', 'bucket'], 4, NONE, (v) => [v.op, v.endpoint_id, v.window_ms, v.bucket]);
const HELD = shape(['bucket', 'current', 'previous'], 3, ['current', 'previous'], (v) => [v.bucket, v.current, v.previous]);

function backoff(b, path, depth = 0) {
  const [baseMs, factor, capMs, jitter] = take(b, path, depth, BACKOFF);
  return {
    baseMs: u64(baseMs, path, 'base_ms'),
    factor: f64(factor, path, 'factor'),
    capMs: u64(capMs, path, 'cap_ms'),
    jitter: oneOf(jitter, path, 'jitter', JITTER, 'invalid_backoff'),
  };
}

function budget(g, path, depth = 0) {
  const [ratio, windowMs, minSample, sliding] = take(g, path, depth, BUDGET);
  return {
    ratio: f64(ratio, path, 'ratio'),
    windowMs: u64(windowMs, path, 'window_ms'),
    minSample: u64(minSample, path, 'min_sample'),
    sliding: bool(sliding, path, 'sliding'),
  };
}

function policy(p, path) {
  const [b, windowMs, hardCap, g] = take(p, path, 0, POLICY);
  return {
    backoff: backoff(b, at(path, 'backoff'), 1),
    windowMs: u64(windowMs, path, 'window_ms'),
    hardCap: u32(hardCap, path, 'hard_cap'),
    budget: budget(g, at(path, 'budget'), 1),
  };
}

/** A delivery state's six fields (values take() read) lowered. */
const stateOf = ([eventId, endpointId, attempt, maxAttempts, first, refreshed], path) => ({
  eventId: str(eventId, path, 'event_id'),
  endpointId: str(endpointId, path, 'endpoint_id'),
  attempt: u32(attempt, path, 'attempt'),
  maxAttempts: u32(maxAttempts, path, 'max_attempts'),
  firstAttemptedAtMs: u64(first, path, 'first_attempted_at_ms'),
  credentialsRefreshed: bool(refreshed, path, 'credentials_refreshed'),
});

/** A delivery state (without `class`: RetryPolicy reads its states with take(v, path, 0, CLASSED), then stateOf). */
const state = (s, path) => stateOf(take(s, path, 0, STATE), path);

function outcome(o, path) {
  const [status, ra, errorKind] = take(o, path, 0, OUTCOME);
  if (errorKind != null) {
    if (status != null || ra != null) throw fail(path, 'expected {status, retry_after_ms?} or {error_kind}, got both');
    return { tag: 'transport-error', val: str(errorKind, path, 'error_kind') };
  }
  if (status == null) throw fail(path, 'expected {status, retry_after_ms?} or {error_kind}, got neither');
  return {
    tag: 'response',
    val: { status: uint(saturated16(status), path, 0xffff, 'invalid_status', 'status'), retryAfterMs: ra == null ? undefined : u64(ra, path, 'retry_after_ms') },
  };
}

function bucketCounts(c, path, depth) {
  const [total, retries] = take(c, path, depth, BUCKET);
  return { total: u64(total, path, 'total'), retries: u64(retries, path, 'retries') };
}

function counts(c, path, depth) {
  const [current, previous] = take(c, path, depth, COUNTS);
  return { current: bucketCounts(current, at(path, 'current'), depth + 1), previous: bucketCounts(previous, at(path, 'previous'), depth + 1) };
}

/** A reservation's two fields (as take() read them) lowered. */
const reservationOf = (reserved, c, path) => ({ reserved: bool(reserved, path, 'reserved'), counts: counts(c, at(path, 'counts'), 1) });

function reservation(r, path) {
  const [reserved, c] = take(r, path, 0, RESERVATION);
  return reservationOf(reserved, c, path);
}

function reply(r, path) {
  const [unavailable, reserved, c] = take(r, path, 0, REPLY);
  if (unavailable != null) {
    if (unavailable !== true) throw fail(at(path, 'unavailable'), 'expected true');
    if (reserved != null || c != null) throw fail(path, 'expected {unavailable: true} or {reserved, counts}, got both');
    return { tag: 'unavailable' };
  }
  if (reserved === undefined) throw fail(at(path, 'reserved'), 'missing field');
  if (c === undefined) throw fail(at(path, 'counts'), 'missing field');
  return { tag: 'answered', val: reservationOf(reserved, c, path) };
}

function request(r, path) {
  const [op, endpointId, windowMs, bucket] = take(r, path, 0, REQUEST);
  return {
    op: oneOf(op, path, 'op', STORE_OP, 'invalid_input'),
    endpointId: str(endpointId, path, 'endpoint_id'),
    windowMs: u64(windowMs, path, 'window_ms'),
    bucket: u64(bucket, path, 'bucket'),
  };
}

function held(h, path) {
  const [bucket, current, previous] = take(h, path, 0, HELD);
  return {
    bucket: u64(bucket, path, 'bucket'),
    current: bucketCounts(current, at(path, 'current'), 1),
    previous: bucketCounts(previous, at(path, 'previous'), 1),
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
  take,
  CLASSED,
  stateOf,
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
