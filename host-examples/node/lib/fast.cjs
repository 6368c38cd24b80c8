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
//
// The readers see exactly what the object path's snapshot (snapshot.cjs)
// copies: own enumerable properties (a field is read only once Object.keys
// has named it), each read once, never an inherited or non-enumerable one.
// The outputs are built from the scalars only, never from the caller's
// objects again.
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

/** The scalars of one step. */
function record() {
  return {
    eventId: '',
    endpointId: '',
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
}

// One shared record for the step in progress. A getter or Proxy trap that
// calls into the package while a step reads its input (re-entrancy) gets a
// fresh record of its own, so it cannot change the outer step's scalars.
// Nothing between `acquire` and `release` throws (the readers catch, the
// module answers a code); should the module itself fail (a trap), the
// shared record stays taken and later steps each take a fresh one: slower,
// never wrong.
const shared = record();
let busy = false;

/** The record for a step that is about to read its input; give it back with `release`. */
function acquire() {
  if (busy) return record();
  busy = true;
  return shared;
}

function release(r) {
  if (r === shared) busy = false;
}

/** `state`: the six contract fields (and `class`, `policy_hash` when `classed`), nothing else. */
function readState(r, state, classed) {
  try {
    return readStateNow(r, state, classed);
  } catch {
    return false; // a throwing getter or proxy: the object path reports it
  }
}

function readStateNow(r, state, classed) {
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
  // All six are own enumerable keys: each is read once, below.
  if (n !== 6) return false;
  const eventId = state.event_id;
  const endpointId = state.endpoint_id;
  const attempt = state.attempt;
  const maxAttempts = state.max_attempts;
  const firstMs = state.first_attempted_at_ms;
  const refreshed = state.credentials_refreshed;
  if (typeof eventId !== 'string' || typeof endpointId !== 'string' || typeof refreshed !== 'boolean') return false;
  r.eventId = eventId;
  r.endpointId = endpointId;
  r.attempt = num(attempt);
  r.maxAttempts = num(maxAttempts);
  r.firstMs = num(firstMs);
  r.refreshed = refreshed;
  return true;
}

/** `{status, retry_after_ms?}` or `{error_kind}` (`null` and `undefined` fields are absent, as in the codec). */
function readOutcome(r, outcome) {
  try {
    return readOutcomeNow(r, outcome);
  } catch {
    return false; // a throwing getter or proxy: the object path reports it
  }
}

function readOutcomeNow(r, outcome) {
  if (!isObject(outcome)) return false;
  let has = 0; // which fields are own enumerable keys: only those are read, once each
  for (const k of Object.keys(outcome)) {
    if (k === 'status') has |= 1;
    else if (k === 'retry_after_ms') has |= 2;
    else if (k === 'error_kind') has |= 4;
    else return false;
  }
  const status = has & 1 ? outcome.status : undefined;
  const ra = has & 2 ? outcome.retry_after_ms : undefined;
  const kind = has & 4 ? outcome.error_kind : undefined;
  if (kind == null) {
    if (status == null) return false;
    r.status = num(status);
    const ms = ra == null ? -1 : num(ra);
    // The module reads a negative as "none": a caller's negative must be refused instead.
    r.retryAfterMs = ra != null && ms < 0 ? NaN : ms;
    r.errorKind = undefined;
    return true;
  }
  if (status != null || ra != null || typeof kind !== 'string') return false;
  r.status = 0;
  r.retryAfterMs = -1;
  r.errorKind = kind;
  return true;
}

/** The scalars of `resume`, which has no outcome. */
function noOutcome(r) {
  r.status = 0;
  r.retryAfterMs = -1;
  r.errorKind = undefined;
}

/** Own keys of `o` are exactly `a` and `b`. */
function exactly(o, a, b) {
  let n = 0;
  for (const k of Object.keys(o)) {
    if (k !== a && k !== b) return false;
    n++;
  }
  return n === 2;
}

/** `{current: {total, retries}, previous: {total, retries}}`. */
function readCounts(r, c) {
  try {
    return readCountsNow(r, c);
  } catch {
    return false; // a throwing getter or proxy: the object path reports it
  }
}

function readCountsNow(r, c) {
  if (!isObject(c) || !exactly(c, 'current', 'previous')) return false;
  const cur = c.current;
  const prev = c.previous;
  if (!isObject(cur) || !isObject(prev) || !exactly(cur, 'total', 'retries') || !exactly(prev, 'total', 'retries')) return false;
  r.ct = num(cur.total);
  r.cr = num(cur.retries);
  r.pt = num(prev.total);
  r.pr = num(prev.retries);
  return true;
}

/** A store reply: `{unavailable: true}` (code 0) or `{reserved, counts}` (1 not reserved, 2 reserved). */
function readReply(r, reply) {
  try {
    return readReplyNow(r, reply);
  } catch {
    return false; // a throwing getter or proxy: the object path reports it
  }
}

function readReplyNow(r, reply) {
  if (!isObject(reply)) return false;
  let has = 0; // which fields are own enumerable keys: only those are read, once each
  for (const k of Object.keys(reply)) {
    if (k === 'unavailable') has |= 1;
    else if (k === 'reserved') has |= 2;
    else if (k === 'counts') has |= 4;
    else return false;
  }
  const unavailable = has & 1 ? reply.unavailable : undefined;
  const reserved = has & 2 ? reply.reserved : undefined;
  const counts = has & 4 ? reply.counts : undefined;
  if (unavailable != null) {
    if (unavailable !== true || reserved != null || counts != null) return false;
    r.reply = 0;
    return true;
  }
  if (typeof reserved !== 'boolean' || !readCountsNow(r, counts)) return false;
  r.reply = reserved ? 2 : 1;
  return true;
}

/** Budget counts for `decide`: `null` (store unreadable, code 0) or counts (1). */
function readBudgetCounts(r, c) {
  if (c === null) {
    r.reply = 0;
    return true;
  }
  r.reply = 1;
  return readCounts(r, c);
}

/**
 * The decision of code bits 0-3 (1 retry, 2 + i a stop), or null for 0.
 * Ids are given back as the module read them: a lone surrogate is U+FFFD,
 * as on the object path (the module's strings are UTF-8).
 */
function decisionOf(code, out, r) {
  const kind = code & 15;
  if (kind === 0) return null;
  if (kind === 1) {
    return { stop_reason: null, disable_endpoint: false, retry: { delay_ms: out[0], refresh_credentials: out[1] === 1 } };
  }
  const reason = STOP_REASONS[kind - 2];
  const d = { stop_reason: reason, disable_endpoint: out[2] === 1 };
  if (out[4] === 1) {
    d.dead_letter = {
      event_id: r.eventId.toWellFormed(),
      endpoint_id: r.endpointId.toWellFormed(),
      attempts: out[5],
      elapsed_ms: out[3],
      stop_reason: reason,
    };
  }
  return d;
}

/**
 * The store request of code bits 4-5, or null. Its window is the budget's:
 * `windowMs` exactly as the policy holds it (a bigint above 2^53-1, which
 * the f64 result buffer cannot carry); the bucket, at most `now_ms`, is
 * exact in the buffer (the fast path takes only a safe `now_ms`).
 */
function requestOf(code, out, r, windowMs) {
  const op = (code >> 4) & 3;
  return op === 0 ? null : { op: STORE_OPS[op - 1], endpoint_id: r.endpointId.toWellFormed(), window_ms: windowMs, bucket: out[7] };
}

module.exports = {
  num,
  isObject,
  acquire,
  release,
  readState,
  readOutcome,
  noOutcome,
  readReply,
  readBudgetCounts,
  decisionOf,
  requestOf,
};
