'use strict';
// The fast path's two halves in JavaScript: reading an input into the
// scalars `CompiledPolicy.step` takes, and building the output objects from
// the code and result buffer it answers with (wasm/npm/src/fast.rs).
//
// Every shape the types allow reads as scalars: integers as numbers or
// bigints, `retry_after_ms` absent, `undefined` or `null`, a state with the
// RetryPolicy's `class`. A reader answers `false` only for what the types
// do not allow (a missing or extra field, a string where a number belongs);
// values the scalars carry but the contract refuses (a fraction, a
// negative, NaN, a status of 999) are refused by the module itself. Either
// way the call goes to the object path, which gives the answer or the
// PolicyError: the fast path never makes an error of its own.
const { STOP_REASONS, STORE_OPS } = require('./native.cjs');

const MAX_SAFE = 9007199254740991n;

/** A number for the module (NaN when it is not one: the module refuses it). */
function num(x) {
  if (typeof x === 'number') return x;
  if (typeof x === 'bigint' && x >= 0n && x <= MAX_SAFE) return Number(x);
  return NaN;
}

function isObject(v) {
  return typeof v === 'object' && v !== null;
}

/** The scalars of one step; reused (one step at a time, synchronously). */
const s = {
  eventId: '',
  attempt: 0,
  maxAttempts: 0,
  firstMs: 0,
  refreshed: false,
  status: 0,
  retryAfterMs: -1,
  errorKind: undefined,
  reply: 0,
  ct: 0,
  cr: 0,
  pt: 0,
  pr: 0,
};

/** `state`: the six contract fields (and `class`, `policy_hash` when `classed`), nothing else. */
function readState(state, classed) {
  try {
    return readStateNow(state, classed);
  } catch {
    return false; // a throwing getter or proxy: the object path reports it
  }
}

function readStateNow(state, classed) {
  if (!isObject(state)) return false;
  let n = 0;
  for (const k of Object.keys(state)) {
    switch (k) {
      case 'event_id':
      case 'endpoint_id':
      case 'attempt':
      case 'max_attempts':
      case 'first_attempted_at_ms':
      case 'credentials_refreshed':
        n++;
        break;
      case 'class':
      case 'policy_hash':
        if (!classed) return false;
        break;
      default:
        return false;
    }
  }
  if (n !== 6 || typeof state.event_id !== 'string' || typeof state.endpoint_id !== 'string') return false;
  if (typeof state.credentials_refreshed !== 'boolean') return false;
  s.eventId = state.event_id;
  s.attempt = num(state.attempt);
  s.maxAttempts = num(state.max_attempts);
  s.firstMs = num(state.first_attempted_at_ms);
  s.refreshed = state.credentials_refreshed;
  return true;
}

/** `{status, retry_after_ms?}` or `{error_kind}` (`null` and `undefined` fields are absent, as in the codec). */
function readOutcome(outcome) {
  try {
    return readOutcomeNow(outcome);
  } catch {
    return false; // a throwing getter or proxy: the object path reports it
  }
}

function readOutcomeNow(outcome) {
  if (!isObject(outcome)) return false;
  for (const k of Object.keys(outcome)) {
    if (k !== 'status' && k !== 'retry_after_ms' && k !== 'error_kind') return false;
  }
  const { status, retry_after_ms: ra, error_kind: kind } = outcome;
  if (kind == null) {
    if (status == null) return false;
    s.status = num(status);
    const ms = ra == null ? -1 : num(ra);
    // The module reads a negative as "none": a caller's negative must be refused instead.
    s.retryAfterMs = ra != null && ms < 0 ? NaN : ms;
    s.errorKind = undefined;
    return true;
  }
  if (status != null || ra != null || typeof kind !== 'string') return false;
  s.status = 0;
  s.retryAfterMs = -1;
  s.errorKind = kind;
  return true;
}

function hasOnly(obj, a, b) {
  for (const k of Object.keys(obj)) if (k !== a && k !== b) return false;
  return true;
}

/** `{current: {total, retries}, previous: {total, retries}}`. */
function readCounts(c) {
  try {
    return readCountsNow(c);
  } catch {
    return false; // a throwing getter or proxy: the object path reports it
  }
}

function readCountsNow(c) {
  if (!isObject(c) || !hasOnly(c, 'current', 'previous')) return false;
  const { current: cur, previous: prev } = c;
  if (!isObject(cur) || !isObject(prev) || !hasOnly(cur, 'total', 'retries') || !hasOnly(prev, 'total', 'retries')) return false;
  s.ct = num(cur.total);
  s.cr = num(cur.retries);
  s.pt = num(prev.total);
  s.pr = num(prev.retries);
  return true;
}

/** A store reply: `{unavailable: true}` (code 0) or `{reserved, counts}` (1 not reserved, 2 reserved). */
function readReply(r) {
  try {
    return readReplyNow(r);
  } catch {
    return false; // a throwing getter or proxy: the object path reports it
  }
}

function readReplyNow(r) {
  if (!isObject(r)) return false;
  for (const k of Object.keys(r)) if (k !== 'unavailable' && k !== 'reserved' && k !== 'counts') return false;
  if (r.unavailable != null) {
    if (r.unavailable !== true || r.reserved != null || r.counts != null) return false;
    s.reply = 0;
    return true;
  }
  if (typeof r.reserved !== 'boolean' || !readCounts(r.counts)) return false;
  s.reply = r.reserved ? 2 : 1;
  return true;
}

/** Budget counts for `decide`: `null` (store unreadable, code 0) or counts (1). */
function readBudgetCounts(c) {
  if (c === null) {
    s.reply = 0;
    return true;
  }
  s.reply = 1;
  return readCounts(c);
}

/** The decision of code bits 0-3 (1 retry, 2 + i a stop), or null for 0. */
function decisionOf(code, out, state) {
  const kind = code & 15;
  if (kind === 0) return null;
  if (kind === 1) {
    return { stop_reason: null, disable_endpoint: false, retry: { delay_ms: out[0], refresh_credentials: out[1] === 1 } };
  }
  const reason = STOP_REASONS[kind - 2];
  const d = { stop_reason: reason, disable_endpoint: out[2] === 1 };
  if (out[4] === 1) {
    d.dead_letter = { event_id: state.event_id, endpoint_id: state.endpoint_id, attempts: out[5], elapsed_ms: out[3], stop_reason: reason };
  }
  return d;
}

/** The store request of code bits 4-5, or null. */
function requestOf(code, out, state) {
  const op = (code >> 4) & 3;
  return op === 0 ? null : { op: STORE_OPS[op - 1], endpoint_id: state.endpoint_id, window_ms: out[6], bucket: out[7] };
}

module.exports = { s, num, isObject, readState, readOutcome, readCounts, readReply, readBudgetCounts, decisionOf, requestOf };
