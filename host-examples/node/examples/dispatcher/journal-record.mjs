// Journal formats 1 and 2 (docs/journal.md): the `<crc> <json>\n` line, the
// header, the event record with its admitted `policy` (format 2: with its
// expanded `health` section, and the hold and replay fields), and the one
// error class. Read: v1 and v2 records and headers; written: v2.
//
// Records are read strictly: every field of the spec's table with its type
// and nothing else; an unknown field is `journal_record_invalid` naming it
// (a reader that dropped it would write the event back without it).
import zlib from 'node:zlib';
import { STOP_REASONS, JITTER_MODES } from '@webhook/retry-policy';

export const FORMAT = 'webhook-retry-policy/journal';
export const STATUSES = Object.freeze(['pending', 'delivered', 'dead_lettered']);
export const STATUSES_V2 = Object.freeze([...STATUSES, 'held']);
export const HOLD_REASONS = Object.freeze(['paused', 'circuit_open', 'probe_refused', 'release_pacing', 'budget_refused']);
/** The fields a v2 event record adds to v1's, at their zero values (a format-2 event's). */
export const V2_ZERO = Object.freeze({
  held_until_ms: 0,
  hold_reason: null,
  held_since_ms: 0,
  held_ms: 0,
  needs_reserve: false,
  wake_refusals: 0,
  replay_of: null,
  replayed_dead_letter: null,
  replayed_as: null,
});
export const JOURNAL_ERROR_CODES = Object.freeze(['journal_unsupported', 'journal_corrupt', 'journal_record_invalid', 'journal_locked', 'journal_io']);

/** A journal refused or a write that failed: `code` (JOURNAL_ERROR_CODES), `line` and `field` where the spec gives them. */
export class JournalError extends Error {
  constructor(code, message, { line = null, field = null } = {}) {
    const where = line === null ? '' : `line ${line}: `;
    const what = field === null ? '' : `\`${field}\`: `;
    super(`${code}: ${where}${what}${message}`);
    this.name = 'JournalError';
    this.code = code;
    this.line = line;
    this.field = field;
  }
}

const invalid = (line, field, why) => new JournalError('journal_record_invalid', why, { line, field });

/** CRC-32 (zlib's) of `bytes` as 8 lowercase hex digits. */
export const crcHex = (bytes) => zlib.crc32(bytes).toString(16).padStart(8, '0');

/** One record as a complete line (a Buffer): `<crc> <json>\n`. */
export function recordLine(record) {
  const json = Buffer.from(JSON.stringify(record), 'utf8');
  return Buffer.concat([Buffer.from(`${crcHex(json)} `, 'latin1'), json, Buffer.from('\n')]);
}

export const header = (createdAtMs) => ({ v: 2, type: 'header', format: FORMAT, created_at_ms: createdAtMs });

/** A record as format 2 writes it: a v1 record gains the v2 fields at their zero values. */
export const asV2 = (rec) => (rec.v === 2 ? rec : { ...V2_ZERO, ...rec, v: 2 });

/** The one-class document whose `admit` gives the hash a record's `policy` must have. */
export const hashDocument = (rec) => JSON.stringify({ version: rec.policy_version, classes: { [rec.class]: rec.policy } });

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const uint = (v) => Number.isSafeInteger(v) && v >= 0; // above 2^53 a JS number is not exact: refused
const U32 = 2 ** 32 - 1;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Reads the fields of one JSON object, each once; `done()` refuses the rest. */
class Fields {
  #left;
  constructor(value, prefix, line) {
    this.prefix = prefix;
    this.line = line;
    if (!isObject(value)) throw invalid(line, prefix.replace(/\.$/, '') || 'record', 'must be a JSON object');
    this.#left = new Map(Object.entries(value));
  }

  err(k, why) {
    return invalid(this.line, this.prefix + k, why);
  }

  has(k) {
    return this.#left.has(k);
  }

  take(k) {
    if (!this.#left.has(k)) throw this.err(k, 'is missing');
    const v = this.#left.get(k);
    this.#left.delete(k);
    return v;
  }

  text(k) {
    const v = this.take(k);
    if (typeof v !== 'string') throw this.err(k, 'must be a string');
    return v;
  }

  uint(k, max = Number.MAX_SAFE_INTEGER) {
    const v = this.take(k);
    if (!uint(v)) throw this.err(k, 'must be a non-negative integer (at most 2^53 - 1)');
    if (v > max) throw this.err(k, 'is too large');
    return v;
  }

  number(k) {
    const v = this.take(k);
    if (typeof v !== 'number' || !Number.isFinite(v)) throw this.err(k, 'must be a number');
    return v;
  }

  flag(k) {
    const v = this.take(k);
    if (typeof v !== 'boolean') throw this.err(k, 'must be true or false');
    return v;
  }

  reason(k, nullable) {
    const v = this.take(k);
    if (v === null && nullable) return null;
    if (!STOP_REASONS.includes(v)) throw this.err(k, 'is not a stop reason');
    return v;
  }

  optText(k) {
    const v = this.take(k);
    if (v !== null && typeof v !== 'string') throw this.err(k, 'must be a string or null');
    return v;
  }

  done(format = 1) {
    for (const k of this.#left.keys()) throw this.err(k, `is not a field of journal format ${format}`);
  }
}

/** `v` (other than 1: journal_unsupported) and `type` of a parsed record. */
export function recordKind(v, line) {
  if (!isObject(v)) throw invalid(line, 'record', 'must be a JSON object');
  if (!Object.hasOwn(v, 'v')) throw invalid(line, 'v', 'is missing');
  if (v.v !== 1 && v.v !== 2) throw new JournalError('journal_unsupported', `record version \`v\` ${JSON.stringify(v.v)}, not 1 or 2`, { line });
  if (typeof v.type !== 'string') throw invalid(line, 'type', 'must be a string');
  return v.type;
}

export function checkHeader(v, line) {
  const f = new Fields(v, '', line);
  f.take('v');
  f.take('type');
  const format = f.text('format');
  if (format !== FORMAT) throw new JournalError('journal_unsupported', `format \`${format}\`, not \`${FORMAT}\``, { line });
  f.uint('created_at_ms');
  f.done();
}

function parseHealth(value, line) {
  const h = new Fields(value, 'policy.health.', line);
  const out = { hold_budget_refusals: h.flag('hold_budget_refusals') };
  const p = new Fields(h.take('pause'), 'policy.health.pause.', line);
  out.pause = { max_ms: p.uint('max_ms') };
  p.done(2);
  const c = h.take('circuit');
  if (c === null) {
    out.circuit = null;
  } else {
    const f = new Fields(c, 'policy.health.circuit.', line);
    out.circuit = {
      failure_ratio: f.number('failure_ratio'),
      min_sample: f.uint('min_sample'),
      cooldown_ms: f.uint('cooldown_ms'),
      cooldown_max_ms: f.uint('cooldown_max_ms'),
      probes: f.uint('probes', U32),
      probe_interval_ms: f.uint('probe_interval_ms'),
    };
    f.done(2);
  }
  const r = new Fields(h.take('release'), 'policy.health.release.', line);
  out.release = { multiple: r.number('multiple'), floor_per_s: r.number('floor_per_s') };
  r.done(2);
  out.cache_ms = h.uint('cache_ms');
  h.done(2);
  return out;
}

function parsePolicy(value, line, version = 1) {
  const f = new Fields(value, 'policy.', line);
  const out = { window_ms: f.uint('window_ms'), hard_cap: f.uint('hard_cap', U32) };
  const b = new Fields(f.take('backoff'), 'policy.backoff.', line);
  out.backoff = { base_ms: b.uint('base_ms'), factor: b.number('factor'), cap_ms: b.uint('cap_ms'), jitter: b.text('jitter') };
  if (!JITTER_MODES.includes(out.backoff.jitter)) throw b.err('jitter', 'is not none, full or equal');
  b.done();
  const g = new Fields(f.take('budget'), 'policy.budget.', line);
  out.budget = { ratio: g.number('ratio'), window_ms: g.uint('window_ms'), min_sample: g.uint('min_sample'), sliding: g.flag('sliding') };
  g.done();
  if (version === 2 && f.has('health')) out.health = parseHealth(f.take('health'), line);
  f.done(version);
  return out;
}

function parseDeadLetter(value, line, prefix = 'dead_letter.') {
  if (value === null) return null;
  const d = new Fields(value, prefix, line);
  const out = {
    event_id: d.text('event_id'),
    endpoint_id: d.text('endpoint_id'),
    attempts: d.uint('attempts', U32),
    elapsed_ms: d.uint('elapsed_ms'),
    stop_reason: d.reason('stop_reason', false),
  };
  d.done();
  return out;
}

/** A validated event record: a new plain object in the journal's own shape. */
export function parseEvent(v, line) {
  const f = new Fields(v, '', line);
  const rec = { v: f.take('v'), type: f.take('type') };
  for (const k of ['event_id', 'endpoint_id', 'target', 'class', 'policy_version', 'policy_hash']) rec[k] = f.text(k);
  if (!/^[0-9a-f]{16}$/.test(rec.policy_hash)) throw f.err('policy_hash', 'must be 16 lowercase hex digits');
  rec.policy = parsePolicy(f.take('policy'), line, rec.v);
  rec.first_attempted_at_ms = f.uint('first_attempted_at_ms');
  rec.deadline_ms = f.uint('deadline_ms');
  rec.max_attempts = f.uint('max_attempts', U32);
  const offsets = f.take('offsets_ms');
  if (!Array.isArray(offsets) || !offsets.every(uint)) throw f.err('offsets_ms', 'must be an array of non-negative integers');
  rec.offsets_ms = [...offsets];
  rec.attempts = f.uint('attempts', U32);
  rec.credentials_refreshed = f.flag('credentials_refreshed');
  rec.next_attempt_at_ms = f.uint('next_attempt_at_ms');
  rec.status = f.text('status');
  if (!(rec.v === 2 ? STATUSES_V2 : STATUSES).includes(rec.status)) throw f.err('status', `is not ${rec.v === 2 ? 'pending, held' : 'pending'}, delivered or dead_lettered`);
  rec.last_outcome = f.text('last_outcome');
  rec.stop_reason = f.reason('stop_reason', true);
  rec.dead_letter = parseDeadLetter(f.take('dead_letter'), line);
  rec.disable_endpoint = f.flag('disable_endpoint');
  rec.finished_at_ms = f.uint('finished_at_ms');
  if (f.has('body_b64')) {
    rec.body_b64 = f.text('body_b64');
    if (!BASE64.test(rec.body_b64)) throw f.err('body_b64', 'must be standard base64 with padding');
  }
  if (rec.v === 2) parseV2Fields(f, rec, line);
  f.done(rec.v);
  return rec;
}

/** Format 2's hold and replay fields (every one required in a v2 record). */
function parseV2Fields(f, rec, line) {
  rec.held_until_ms = f.uint('held_until_ms');
  rec.hold_reason = f.optText('hold_reason');
  if (rec.hold_reason !== null && !HOLD_REASONS.includes(rec.hold_reason)) throw f.err('hold_reason', `is not one of ${HOLD_REASONS.join(', ')}`);
  if ((rec.hold_reason !== null) !== (rec.status === 'held')) throw f.err('hold_reason', 'must be non-null exactly when the status is held');
  rec.held_since_ms = f.uint('held_since_ms');
  rec.held_ms = f.uint('held_ms');
  rec.needs_reserve = f.flag('needs_reserve');
  rec.wake_refusals = f.uint('wake_refusals', U32);
  rec.replay_of = f.optText('replay_of');
  const dl = f.take('replayed_dead_letter');
  rec.replayed_dead_letter = parseDeadLetter(dl, line, 'replayed_dead_letter.');
  rec.replayed_as = f.optText('replayed_as');
}

/** The payload a record carries (`body_b64`), or null (the dispatcher derives it). */
export const recordBody = (rec) => (rec.body_b64 === undefined ? null : Buffer.from(rec.body_b64, 'base64'));

/**
 * The fields that change when an event stops (`decision`: the policy's stop,
 * with `dead_letter` and `disable_endpoint`). `target`: the URL without
 * userinfo or query (a stopped event is never sent again).
 */
export function stoppedRecord(decision, attempts, lastOutcome, nowMs, target) {
  return {
    held_until_ms: 0,
    hold_reason: null,
    held_since_ms: 0,
    status: decision.stop_reason === 'delivered' ? 'delivered' : 'dead_lettered',
    attempts,
    last_outcome: lastOutcome,
    stop_reason: decision.stop_reason,
    dead_letter: decision.dead_letter ?? null,
    disable_endpoint: decision.disable_endpoint === true,
    finished_at_ms: nowMs,
    target,
  };
}

/**
 * A new event's first record: pending, no attempt yet, due now.
 * `admission`: RetryPolicy.admit's; `policy`: the class policy fully expanded (CompiledPolicy.toJSON()).
 */
export function admittedRecord({ id, endpoint_id: endpointId, url, class: eventClass }, admission, policy, nowMs, body, health = null) {
  const rec = {
    v: 2,
    type: 'event',
    event_id: id,
    endpoint_id: endpointId,
    target: url,
    class: eventClass,
    policy_version: admission.policy_version,
    policy_hash: admission.policy_hash,
    policy: {
      window_ms: policy.window_ms,
      hard_cap: policy.hard_cap,
      backoff: { base_ms: policy.backoff.base_ms, factor: policy.backoff.factor, cap_ms: policy.backoff.cap_ms, jitter: policy.backoff.jitter },
      budget: { ratio: policy.budget.ratio, window_ms: policy.budget.window_ms, min_sample: policy.budget.min_sample, sliding: policy.budget.sliding },
    },
    first_attempted_at_ms: admission.first_attempted_at_ms,
    deadline_ms: admission.deadline_ms,
    max_attempts: admission.max_attempts,
    offsets_ms: [...admission.offsets_ms],
    attempts: 0,
    credentials_refreshed: false,
    next_attempt_at_ms: nowMs,
    status: 'pending',
    last_outcome: '',
    stop_reason: null,
    dead_letter: null,
    disable_endpoint: false,
    finished_at_ms: 0,
    ...V2_ZERO,
  };
  if (health !== null) rec.policy.health = expandedHealth(health);
  if (body !== null && body !== undefined) rec.body_b64 = Buffer.from(body).toString('base64');
  return rec;
}

/** A health section as a journal (and a document) spells it, from the compiled policy's flat one (pause_max_ms). */
export function expandedHealth(h) {
  const c = h.circuit;
  return {
    hold_budget_refusals: h.hold_budget_refusals,
    pause: { max_ms: h.pause_max_ms ?? h.pause.max_ms },
    circuit: c === null ? null : { failure_ratio: c.failure_ratio, min_sample: c.min_sample, cooldown_ms: c.cooldown_ms, cooldown_max_ms: c.cooldown_max_ms, probes: c.probes, probe_interval_ms: c.probe_interval_ms },
    release: { multiple: h.release.multiple, floor_per_s: h.release.floor_per_s },
    cache_ms: h.cache_ms,
  };
}
