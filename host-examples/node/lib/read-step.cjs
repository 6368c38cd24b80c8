'use strict';
// The typed step's inputs (policy, state, outcome, store reply, and the
// store's own request, budget and held counts) read and lowered in one
// pass: what `lower.x(plain(v, path), path)` gives, without its generic
// copy (issue 26: once the glue was fast, snapshot.cjs's copy and
// lower.cjs's checks were half of a step's time).
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
const RESERVATION = record('reserved', 'counts');
const COUNTS = record('current', 'previous');
const BUCKET = record('total', 'retries');
const REQUEST = record('op', 'endpoint_id', 'window_ms', 'bucket');
const HELD = record('bucket', 'current', 'previous');
const JITTER = Object.freeze({ __proto__: null, none: 'none', full: 'full', equal: 'equal' });
const STORE_OP = Object.freeze({ __proto__: null, record: 'record', reserve: 'reserve', record_reserve: 'record-reserve' });
const UNAVAILABLE_REPLY = Object.freeze({ tag: 'unavailable' });
const U64_MAX = 2n ** 64n - 1n;

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
  let i = 0;
  while (i < keys.length && keys[i] === r.list[i]) i++; // in the record's own order (the common case): no lookup
  for (; i < keys.length; i++) if (r.set[keys[i]] !== true) return false;
  return true;
}

const exactly = (v, r) => matches(keysOf(v), r);

/** A field whose reading threw, refused at its path as snapshot.cjs refuses it. */
const threw = (path, key, e) => new PolicyError('invalid_input', `${path}.${key}`, `reading it threw: ${e && e.message}`);

/** `object[key]`, a throw refused (threw). The records below read theirs in one `try` each, naming the field being read. */
function read(object, key, path) {
  try {
    return object[key];
  } catch (e) {
    throw threw(path, key, e);
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

// Values the one pass lowers itself (lower.cjs lowers them the same way);
// a u32 or u16 given as a bigint is lowered as a number, as lower.uint does.
const isU64 = (v) => (typeof v === 'number' ? v >= 0 && v <= Number.MAX_SAFE_INTEGER && Number.isInteger(v) : typeof v === 'bigint' && v >= 0n && v <= U64_MAX);
const uintOf = (v, max) => (typeof v === 'number' ? (v >= 0 && v <= max && Number.isInteger(v) ? v : -1) : typeof v === 'bigint' && v >= 0n && v <= BigInt(max) ? Number(v) : -1);

// The records below are read field by field with literal names (a named
// load each, where a loop over names would be a keyed one); what was read
// is kept for the copy only when the record cannot be lowered. A lowered
// u64, f64, bool, string or jitter is the value read, unchanged.

/** backoff (known to be exactly its record): its lowered form, or undefined with `values` filled for the copy. */
function backoffOf(b, path, values) {
  let baseMs, factor, capMs, name;
  let at = 'base_ms';
  try {
    baseMs = b.base_ms;
    at = 'factor';
    factor = b.factor;
    at = 'cap_ms';
    capMs = b.cap_ms;
    at = 'jitter';
    name = b.jitter;
  } catch (e) {
    throw threw(path, at, e);
  }
  const jitter = typeof name === 'string' ? JITTER[name] : undefined;
  if (isU64(baseMs) && typeof factor === 'number' && isU64(capMs) && jitter !== undefined) return { baseMs, factor, capMs, jitter };
  values.push(baseMs, factor, capMs, name);
  return undefined;
}

/** budget (known to be exactly its record): its lowered form, or undefined with `values` filled for the copy. */
function budgetOf(g, path, values) {
  let ratio, windowMs, minSample, sliding;
  let at = 'ratio';
  try {
    ratio = g.ratio;
    at = 'window_ms';
    windowMs = g.window_ms;
    at = 'min_sample';
    minSample = g.min_sample;
    at = 'sliding';
    sliding = g.sliding;
  } catch (e) {
    throw threw(path, at, e);
  }
  if (typeof ratio === 'number' && isU64(windowMs) && isU64(minSample) && typeof sliding === 'boolean') return { ratio, windowMs, minSample, sliding };
  values.push(ratio, windowMs, minSample, sliding);
  return undefined;
}

/** A bucket's values as read: `values` (bucketOf filled them), or those of the lowered `bucket`. */
const read2 = (bucket, values) => (bucket === undefined ? values : [bucket.total, bucket.retries]);

/** One bucket's counts (known to be exactly {total, retries}): lowered, or undefined with `values` filled. */
function bucketOf(v, path, values) {
  let total, retries;
  let at = 'total';
  try {
    total = v.total;
    at = 'retries';
    retries = v.retries;
  } catch (e) {
    throw threw(path, at, e);
  }
  if (isU64(total) && isU64(retries)) return { total, retries };
  values.push(total, retries);
  return undefined;
}

/** policy: lower.policy(plain(v, path), path). */
function policy(v, path) {
  if (!exactly(v, POLICY)) return lower.policy(plain(v, path), path);
  let b, windowMs, hardCapIn, g;
  let at = 'backoff';
  try {
    b = v.backoff;
    at = 'window_ms';
    windowMs = v.window_ms;
    at = 'hard_cap';
    hardCapIn = v.hard_cap;
    at = 'budget';
    g = v.budget;
  } catch (e) {
    throw threw(path, at, e);
  }
  const hardCap = uintOf(hardCapIn, 0xffffffff);
  if (!(exactly(b, BACKOFF) && exactly(g, BUDGET) && isU64(windowMs) && hardCap >= 0)) return lower.policy(copyOf(POLICY, [b, windowMs, hardCapIn, g], path, 0), path);
  const bv = [];
  const gv = [];
  const backoff = backoffOf(b, `${path}.backoff`, bv);
  const budget = budgetOf(g, `${path}.budget`, gv);
  if (backoff !== undefined && budget !== undefined) return { backoff, windowMs, hardCap, budget };
  // the copy: what was read (a lowered record's values are the values read)
  const lb = backoff ?? {};
  const lg = budget ?? {};
  if (backoff !== undefined) bv.push(lb.baseMs, lb.factor, lb.capMs, lb.jitter);
  if (budget !== undefined) gv.push(lg.ratio, lg.windowMs, lg.minSample, lg.sliding);
  const copy = { backoff: copyOf(BACKOFF, bv, `${path}.backoff`, 1), window_ms: windowMs, hard_cap: hardCapIn, budget: copyOf(BUDGET, gv, `${path}.budget`, 1) };
  return lower.policy(copy, path);
}

/** budget (the store's argument): lower.budget(plain(v, path), path). */
function budget(v, path) {
  if (!exactly(v, BUDGET)) return lower.budget(plain(v, path), path);
  const values = [];
  return budgetOf(v, path, values) ?? lower.budget(copyOf(BUDGET, values, path, 0), path);
}

/** The six fields of a state read from `v`: lowered, or undefined with `values` filled for the copy. */
function stateOf(v, path, values) {
  let eventId, endpointId, attemptIn, maxIn, first, refreshed;
  let at = 'event_id';
  try {
    eventId = v.event_id;
    at = 'endpoint_id';
    endpointId = v.endpoint_id;
    at = 'attempt';
    attemptIn = v.attempt;
    at = 'max_attempts';
    maxIn = v.max_attempts;
    at = 'first_attempted_at_ms';
    first = v.first_attempted_at_ms;
    at = 'credentials_refreshed';
    refreshed = v.credentials_refreshed;
  } catch (e) {
    throw threw(path, at, e);
  }
  const attempt = uintOf(attemptIn, 0xffffffff);
  const maxAttempts = uintOf(maxIn, 0xffffffff);
  if (typeof eventId === 'string' && typeof endpointId === 'string' && attempt >= 0 && maxAttempts >= 0 && isU64(first) && typeof refreshed === 'boolean') {
    return { eventId, endpointId, attempt, maxAttempts, firstAttemptedAtMs: first, credentialsRefreshed: refreshed };
  }
  values.push(eventId, endpointId, attemptIn, maxIn, first, refreshed);
  return undefined;
}

/** state (a delivery state, no `class`): lower.state(plain(v, path), path). */
function state(v, path) {
  if (!exactly(v, STATE)) return lower.state(plain(v, path), path);
  const values = [];
  return stateOf(v, path, values) ?? lower.state(copyOf(STATE, values, path, 0), path);
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
  const values = [];
  const lowered = stateOf(v, path, values);
  let cls;
  let hash;
  let at = 'class';
  try {
    cls = v.class;
    at = 'policy_hash';
    if (r === HASHED) hash = v.policy_hash;
  } catch (e) {
    throw threw(path, at, e);
  }
  if (lowered !== undefined && typeof cls === 'string' && (hash === undefined || hash === null || typeof hash === 'string')) {
    return { snap: { class: cls, policy_hash: hash }, lowered };
  }
  // (the state's fields were good: their lowered values stand in for those read, a bigint count as its number)
  if (lowered !== undefined) values.push(lowered.eventId, lowered.endpointId, lowered.attempt, lowered.maxAttempts, lowered.firstAttemptedAtMs, lowered.credentialsRefreshed);
  values.push(cls);
  if (r === HASHED) values.push(hash);
  return { snap: copyOf(r, values, path, 0), lowered: null };
}

/** outcome: lower.outcome(plain(v, path), path). */
function outcome(v, path) {
  const keys = keysOf(v);
  if (matches(keys, STATUS) || matches(keys, RESPONSE)) {
    const r = keys.length === 1 ? STATUS : RESPONSE;
    let statusIn;
    let ra;
    let at = 'status';
    try {
      statusIn = v.status;
      at = 'retry_after_ms';
      if (r === RESPONSE) ra = v.retry_after_ms;
    } catch (e) {
      throw threw(path, at, e);
    }
    const status = uintOf(statusIn, 0xffff);
    if (status >= 0 && (ra === null || ra === undefined || isU64(ra))) return { tag: 'response', val: { status, retryAfterMs: ra ?? undefined } };
    return lower.outcome(copyOf(r, r === RESPONSE ? [statusIn, ra] : [statusIn], path, 0), path);
  }
  if (matches(keys, TRANSPORT)) {
    const kind = read(v, 'error_kind', path);
    if (typeof kind === 'string') return { tag: 'transport-error', val: kind };
    return lower.outcome(copyOf(TRANSPORT, [kind], path, 0), path);
  }
  return lower.outcome(plain(v, path), path);
}

/** What a record's one pass read when it cannot lower it: the copy, for the generic path. */
class Copy {
  constructor(value) {
    this.value = value;
  }
}

/** A reservation `{reserved, counts}` known to be exactly its record: lowered, or a Copy. */
function reservationOf(v, path) {
  let reserved, counts;
  let at = 'reserved';
  try {
    reserved = v.reserved;
    at = 'counts';
    counts = v.counts;
  } catch (e) {
    throw threw(path, at, e);
  }
  if (!(typeof reserved === 'boolean' && exactly(counts, COUNTS))) return new Copy(copyOf(RESERVATION, [reserved, counts], path, 0));
  const cp = `${path}.counts`;
  let current, previous;
  let at2 = 'current';
  try {
    current = counts.current;
    at2 = 'previous';
    previous = counts.previous;
  } catch (e) {
    throw threw(cp, at2, e);
  }
  if (!(exactly(current, BUCKET) && exactly(previous, BUCKET))) return new Copy({ reserved, counts: copyOf(COUNTS, [current, previous], cp, 1) });
  const c = [];
  const p = [];
  const cur = bucketOf(current, `${cp}.current`, c);
  const prev = bucketOf(previous, `${cp}.previous`, p);
  if (cur !== undefined && prev !== undefined) return { reserved, counts: { current: cur, previous: prev } };
  return new Copy({ reserved, counts: { current: copyOf(BUCKET, read2(cur, c), `${cp}.current`, 2), previous: copyOf(BUCKET, read2(prev, p), `${cp}.previous`, 2) } });
}

/** reply (a store reply): lower.reply(plain(v, path), path). */
function reply(v, path) {
  const keys = keysOf(v);
  if (matches(keys, UNAVAILABLE)) {
    const u = read(v, 'unavailable', path);
    return u === true ? UNAVAILABLE_REPLY : lower.reply(copyOf(UNAVAILABLE, [u], path, 0), path);
  }
  if (!matches(keys, RESERVATION)) return lower.reply(plain(v, path), path);
  const r = reservationOf(v, path);
  return r instanceof Copy ? lower.reply(r.value, path) : { tag: 'answered', val: r };
}

/** reservation (a synchronous store's answer): lower.reservation(plain(v, path), path). */
function reservation(v, path) {
  if (!exactly(v, RESERVATION)) return lower.reservation(plain(v, path), path);
  const r = reservationOf(v, path);
  return r instanceof Copy ? lower.reservation(r.value, path) : r;
}

/** request (a store request): lower.request(plain(v, path), path). */
function request(v, path) {
  if (!exactly(v, REQUEST)) return lower.request(plain(v, path), path);
  let opName, endpointId, windowMs, bucket;
  let at = 'op';
  try {
    opName = v.op;
    at = 'endpoint_id';
    endpointId = v.endpoint_id;
    at = 'window_ms';
    windowMs = v.window_ms;
    at = 'bucket';
    bucket = v.bucket;
  } catch (e) {
    throw threw(path, at, e);
  }
  const op = typeof opName === 'string' ? STORE_OP[opName] : undefined;
  if (op !== undefined && typeof endpointId === 'string' && isU64(windowMs) && isU64(bucket)) return { op, endpointId, windowMs, bucket };
  return lower.request(copyOf(REQUEST, [opName, endpointId, windowMs, bucket], path, 0), path);
}

/** held (what a store holds for an endpoint): lower.held(plain(v, path), path). */
function held(v, path) {
  if (!exactly(v, HELD)) return lower.held(plain(v, path), path);
  let bucket, current, previous;
  let at = 'bucket';
  try {
    bucket = v.bucket;
    at = 'current';
    current = v.current;
    at = 'previous';
    previous = v.previous;
  } catch (e) {
    throw threw(path, at, e);
  }
  if (!(isU64(bucket) && exactly(current, BUCKET) && exactly(previous, BUCKET))) return lower.held(copyOf(HELD, [bucket, current, previous], path, 0), path);
  const c = [];
  const p = [];
  const cur = bucketOf(current, `${path}.current`, c);
  const prev = bucketOf(previous, `${path}.previous`, p);
  if (cur !== undefined && prev !== undefined) return { bucket, current: cur, previous: prev };
  return lower.held({ bucket, current: copyOf(BUCKET, read2(cur, c), `${path}.current`, 1), previous: copyOf(BUCKET, read2(prev, p), `${path}.previous`, 1) }, path);
}

module.exports = { policy, budget, state, classedState, outcome, reply, reservation, request, held };
