'use strict';
// The typed step's inputs (policy, state, outcome, store reply) read and
// lowered in one pass: what `lower.x(plain(v, path), path)` gives, without
// its generic copy (issue 26: once the glue was fast, snapshot.cjs's copy
// and lower.cjs's checks were half of a step's time).
//
// The one pass takes an ordinary object (prototype Object.prototype or
// null) whose own enumerable keys are exactly the record's, every value of
// the type its field takes. It reads each field once, by name, and lowers
// what it read. Anything else goes the generic way, which never reads a
// field twice: once the pass has read a record's fields, the generic path
// gets the copy snapshot.cjs would have made of the values read (`plain` of
// each), so the same PolicyError comes out; before (not an ordinary object,
// other keys), it starts from the object itself.
//
// What differs, only when two fields are bad at once: snapshot.cjs reads
// fields in the object's key order, this pass in the record's, so of two
// throwing getters the other one may be named.
const lower = require('./lower.cjs');
const { plain } = require('./snapshot.cjs');
const { PolicyError } = require('./errors.cjs');

/** A record's field names, in the order this pass reads them. */
const record = (...list) => {
  const set = Object.create(null);
  for (const k of list) set[k] = true;
  return Object.freeze({ list: Object.freeze(list), set: Object.freeze(set) });
};
const POLICY = record('backoff', 'window_ms', 'hard_cap', 'budget');
const BACKOFF = record('base_ms', 'factor', 'cap_ms', 'jitter');
const BUDGET = record('ratio', 'window_ms', 'min_sample', 'sliding');
const STATE = record('event_id', 'endpoint_id', 'attempt', 'max_attempts', 'first_attempted_at_ms', 'credentials_refreshed');
const CLASSED = record(...STATE.list, 'class');
const HASHED = record(...STATE.list, 'class', 'policy_hash');
const STATUS = record('status');
const RESPONSE = record('status', 'retry_after_ms');
const TRANSPORT = record('error_kind');
const UNAVAILABLE = record('unavailable');
const ANSWERED = record('reserved', 'counts');
const COUNTS = record('current', 'previous');
const BUCKET = record('total', 'retries');
const JITTER = Object.freeze({ __proto__: null, none: 'none', full: 'full', equal: 'equal' });
const UNAVAILABLE_REPLY = Object.freeze({ tag: 'unavailable' });

/** The own enumerable keys of an ordinary object; null for anything else, or when asking threw (the generic path answers). */
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

/** `keys` (keysOf) are exactly `r`'s fields. */
function matches(keys, r) {
  if (keys === null || keys.length !== r.list.length) return false;
  for (let i = 0; i < keys.length; i++) if (r.set[keys[i]] !== true) return false;
  return true;
}

const exactly = (v, r) => matches(keysOf(v), r);

/** `object[key]`; a throw refused at the field's path, as snapshot.cjs refuses it. */
function read(object, key, path) {
  try {
    return object[key];
  } catch (e) {
    throw new PolicyError('invalid_input', `${path}.${key}`, `reading it threw: ${e && e.message}`);
  }
}

/** The copy snapshot.cjs makes of a record whose fields `r` were read as `values` (`undefined` dropped, as there). */
function copyOf(r, values, path, depth) {
  const out = {};
  for (let i = 0; i < values.length; i++) {
    if (values[i] !== undefined) out[r.list[i]] = plain(values[i], `${path}.${r.list[i]}`, depth + 1);
  }
  return out;
}

const isU64 = (v) => typeof v === 'number' && v >= 0 && v <= Number.MAX_SAFE_INTEGER && Number.isInteger(v);
const isU32 = (v) => typeof v === 'number' && v >= 0 && v <= 0xffffffff && Number.isInteger(v);
const isU16 = (v) => typeof v === 'number' && v >= 0 && v <= 0xffff && Number.isInteger(v);

/** policy: lower.policy(plain(v, path), path). */
function policy(v, path) {
  if (!exactly(v, POLICY)) return lower.policy(plain(v, path), path);
  const b = read(v, 'backoff', path);
  const windowMs = read(v, 'window_ms', path);
  const hardCap = read(v, 'hard_cap', path);
  const g = read(v, 'budget', path);
  if (!(exactly(b, BACKOFF) && exactly(g, BUDGET) && isU64(windowMs) && isU32(hardCap))) {
    return lower.policy(copyOf(POLICY, [b, windowMs, hardCap, g], path, 0), path);
  }
  const bp = `${path}.backoff`;
  const gp = `${path}.budget`;
  const bv = [read(b, 'base_ms', bp), read(b, 'factor', bp), read(b, 'cap_ms', bp), read(b, 'jitter', bp)];
  const gv = [read(g, 'ratio', gp), read(g, 'window_ms', gp), read(g, 'min_sample', gp), read(g, 'sliding', gp)];
  const jitter = typeof bv[3] === 'string' ? JITTER[bv[3]] : undefined;
  if (isU64(bv[0]) && typeof bv[1] === 'number' && isU64(bv[2]) && jitter !== undefined && typeof gv[0] === 'number' && isU64(gv[1]) && isU64(gv[2]) && typeof gv[3] === 'boolean') {
    return {
      backoff: { baseMs: bv[0], factor: bv[1], capMs: bv[2], jitter },
      windowMs,
      hardCap,
      budget: { ratio: gv[0], windowMs: gv[1], minSample: gv[2], sliding: gv[3] },
    };
  }
  const copy = { backoff: copyOf(BACKOFF, bv, bp, 1), window_ms: windowMs, hard_cap: hardCap, budget: copyOf(BUDGET, gv, gp, 1) };
  return lower.policy(copy, path);
}

/** state (a delivery state, no `class`): lower.state(plain(v, path), path). */
function state(v, path) {
  if (!exactly(v, STATE)) return lower.state(plain(v, path), path);
  const eventId = read(v, 'event_id', path);
  const endpointId = read(v, 'endpoint_id', path);
  const attempt = read(v, 'attempt', path);
  const maxAttempts = read(v, 'max_attempts', path);
  const first = read(v, 'first_attempted_at_ms', path);
  const refreshed = read(v, 'credentials_refreshed', path);
  if (typeof eventId === 'string' && typeof endpointId === 'string' && isU32(attempt) && isU32(maxAttempts) && isU64(first) && typeof refreshed === 'boolean') {
    return { eventId, endpointId, attempt, maxAttempts, firstAttemptedAtMs: first, credentialsRefreshed: refreshed };
  }
  return lower.state(copyOf(STATE, [eventId, endpointId, attempt, maxAttempts, first, refreshed], path, 0), path);
}

/**
 * RetryPolicy's state (with `class`, and `policy_hash` or not): `{snap, lowered}`,
 * `snap` the copy's `class` and `policy_hash` (RetryPolicy picks the policy by
 * them first), `lowered` the lowered state, or null: then `snap` is the whole
 * copy, for lower.state(snap, path, true) (the generic path).
 */
function classedState(v, path) {
  const keys = keysOf(v);
  const r = matches(keys, CLASSED) ? CLASSED : matches(keys, HASHED) ? HASHED : null;
  if (r === null) return { snap: plain(v, path), lowered: null };
  const values = r.list.map((k) => read(v, k, path));
  const [eventId, endpointId, attempt, maxAttempts, first, refreshed, cls, hash] = values;
  if (typeof eventId === 'string' && typeof endpointId === 'string' && isU32(attempt) && isU32(maxAttempts) && isU64(first) && typeof refreshed === 'boolean'
    && typeof cls === 'string' && (hash === undefined || hash === null || typeof hash === 'string')) {
    return {
      snap: { class: cls, policy_hash: hash },
      lowered: { eventId, endpointId, attempt, maxAttempts, firstAttemptedAtMs: first, credentialsRefreshed: refreshed },
    };
  }
  return { snap: copyOf(r, values, path, 0), lowered: null };
}

/** outcome: lower.outcome(plain(v, path), path). */
function outcome(v, path) {
  if (exactly(v, STATUS)) {
    const status = read(v, 'status', path);
    if (isU16(status)) return { tag: 'response', val: { status, retryAfterMs: undefined } };
    return lower.outcome(copyOf(STATUS, [status], path, 0), path);
  }
  if (exactly(v, RESPONSE)) {
    const status = read(v, 'status', path);
    const ra = read(v, 'retry_after_ms', path);
    if (isU16(status) && (ra === null || ra === undefined || isU64(ra))) return { tag: 'response', val: { status, retryAfterMs: ra ?? undefined } };
    return lower.outcome(copyOf(RESPONSE, [status, ra], path, 0), path);
  }
  if (exactly(v, TRANSPORT)) {
    const kind = read(v, 'error_kind', path);
    if (typeof kind === 'string') return { tag: 'transport-error', val: kind };
    return lower.outcome(copyOf(TRANSPORT, [kind], path, 0), path);
  }
  return lower.outcome(plain(v, path), path);
}

/** One bucket's counts at `path` (already known to be exactly {total, retries}), or undefined when a value is not a safe u64. */
function bucket(v, path, out) {
  out[0] = read(v, 'total', path);
  out[1] = read(v, 'retries', path);
  return isU64(out[0]) && isU64(out[1]) ? { total: out[0], retries: out[1] } : undefined;
}

/** reply (a store reply): lower.reply(plain(v, path), path). */
function reply(v, path) {
  if (exactly(v, UNAVAILABLE)) {
    const u = read(v, 'unavailable', path);
    if (u === true) return UNAVAILABLE_REPLY;
    return lower.reply(copyOf(UNAVAILABLE, [u], path, 0), path);
  }
  if (!exactly(v, ANSWERED)) return lower.reply(plain(v, path), path);
  const reserved = read(v, 'reserved', path);
  const counts = read(v, 'counts', path);
  const cp = `${path}.counts`;
  if (!(typeof reserved === 'boolean' && exactly(counts, COUNTS))) return lower.reply(copyOf(ANSWERED, [reserved, counts], path, 0), path);
  const current = read(counts, 'current', cp);
  const previous = read(counts, 'previous', cp);
  const generic = () => lower.reply({ reserved, counts: copyOf(COUNTS, [current, previous], cp, 1) }, path);
  if (!(exactly(current, BUCKET) && exactly(previous, BUCKET))) return generic();
  const c = [];
  const p = [];
  const cur = bucket(current, `${cp}.current`, c);
  const prev = bucket(previous, `${cp}.previous`, p);
  if (cur !== undefined && prev !== undefined) return { tag: 'answered', val: { reserved, counts: { current: cur, previous: prev } } };
  const copy = { current: copyOf(BUCKET, c, `${cp}.current`, 2), previous: copyOf(BUCKET, p, `${cp}.previous`, 2) };
  return lower.reply({ reserved, counts: copy }, path);
}

module.exports = { policy, state, classedState, outcome, reply };
