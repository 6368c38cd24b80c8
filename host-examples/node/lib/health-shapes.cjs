'use strict';
// ABI 0.3's values (the compiled step and format 3, docs/health.md) between
// the contract's JavaScript shapes (lib/types.d.cts: snake_case, variants
// tagged by `action`) and jco's (camelCase, bigints for u64, {tag, val}).
// Same rules as lower.cjs: only WIT shapes and widths are checked here, as
// `invalid_input` at the field's path; every range is the component's call.
const lower = require('./lower.cjs');

const { fail, u64, u32, str, n, snake } = lower;
const at = (path, key) => (path ? `${path}.${key}` : key);
const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

function fields(v, path, required, optional = []) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw fail(path, `expected an object, got ${kind(v)}`);
  for (const k of Object.keys(v)) {
    if (!required.includes(k) && !optional.includes(k)) throw fail(at(path, k), 'unknown field');
  }
  for (const k of required) if (v[k] === undefined) throw fail(at(path, k), 'missing field');
}

function f64(v, path) {
  if (typeof v === 'number') return v;
  throw fail(path, `expected a number, got ${kind(v)}`);
}

function bool(v, path) {
  if (typeof v !== 'boolean') throw fail(path, `expected a boolean, got ${kind(v)}`);
  return v;
}

function oneOf(v, path, cases) {
  if (typeof v !== 'string' || !Object.hasOwn(cases, v)) {
    throw fail(path, `expected one of ${Object.keys(cases).join(', ')}, got ${typeof v === 'string' ? JSON.stringify(v.slice(0, 80)) : kind(v)}`);
  }
  return cases[v];
}

const CALL_OP = { record: 'record', reserve: 'reserve', record_reserve: 'record-reserve', report: 'report', probe: 'probe' };
const HEALTH_OUTCOME = { success: 'success', failure: 'failure', none: 'none' };

// ---- in: the contract's shapes -> jco's ----

function circuit(v, path) {
  fields(v, path, ['failure_ratio', 'min_sample', 'cooldown_ms', 'cooldown_max_ms', 'probes', 'probe_interval_ms']);
  return {
    failureRatio: f64(v.failure_ratio, at(path, 'failure_ratio')),
    minSample: u64(v.min_sample, at(path, 'min_sample')),
    cooldownMs: u64(v.cooldown_ms, at(path, 'cooldown_ms')),
    cooldownMaxMs: u64(v.cooldown_max_ms, at(path, 'cooldown_max_ms')),
    probes: u32(v.probes, at(path, 'probes')),
    probeIntervalMs: u64(v.probe_interval_ms, at(path, 'probe_interval_ms')),
  };
}

const optCircuit = (v, path) => (v == null ? undefined : circuit(v, path));

function release(v, path) {
  fields(v, path, ['multiple', 'floor_per_s']);
  return { multiple: f64(v.multiple, at(path, 'multiple')), floorPerS: f64(v.floor_per_s, at(path, 'floor_per_s')) };
}

/** A `health` section in the WIT's flat shape ({hold_budget_refusals, pause_max_ms, circuit, release, cache_ms}). */
function health(v, path) {
  fields(v, path, ['hold_budget_refusals', 'pause_max_ms', 'release', 'cache_ms'], ['circuit']);
  return {
    holdBudgetRefusals: bool(v.hold_budget_refusals, at(path, 'hold_budget_refusals')),
    pauseMaxMs: u64(v.pause_max_ms, at(path, 'pause_max_ms')),
    circuit: optCircuit(v.circuit, at(path, 'circuit')),
    release: release(v.release, at(path, 'release')),
    cacheMs: u64(v.cache_ms, at(path, 'cache_ms')),
  };
}

function view(v, path) {
  fields(v, path, ['paused_until_ms', 'opened_at_ms', 'cooldown_ms', 'closed_at_ms', 'as_of_ms']);
  return {
    pausedUntilMs: u64(v.paused_until_ms, at(path, 'paused_until_ms')),
    openedAtMs: u64(v.opened_at_ms, at(path, 'opened_at_ms')),
    cooldownMs: u64(v.cooldown_ms, at(path, 'cooldown_ms')),
    closedAtMs: u64(v.closed_at_ms, at(path, 'closed_at_ms')),
    asOfMs: u64(v.as_of_ms, at(path, 'as_of_ms')),
  };
}

function pacer(v, path) {
  fields(v, path, ['tokens', 'updated_ms', 'normal_per_s']);
  return {
    tokens: f64(v.tokens, at(path, 'tokens')),
    updatedMs: u64(v.updated_ms, at(path, 'updated_ms')),
    normalPerS: f64(v.normal_per_s, at(path, 'normal_per_s')),
  };
}

function gateEvent(v, path) {
  fields(v, path, ['event_id', 'endpoint_id', 'attempts', 'first_attempted_at_ms', 'held', 'held_ms']);
  return {
    eventId: str(v.event_id, at(path, 'event_id')),
    endpointId: str(v.endpoint_id, at(path, 'endpoint_id')),
    attempts: u32(v.attempts, at(path, 'attempts')),
    firstAttemptedAtMs: u64(v.first_attempted_at_ms, at(path, 'first_attempted_at_ms')),
    held: bool(v.held, at(path, 'held')),
    heldMs: u64(v.held_ms, at(path, 'held_ms')),
  };
}

function wake(v, path) {
  fields(v, path, ['event_id', 'endpoint_id', 'attempts', 'first_attempted_at_ms', 'refusals']);
  return {
    eventId: str(v.event_id, at(path, 'event_id')),
    endpointId: str(v.endpoint_id, at(path, 'endpoint_id')),
    attempts: u32(v.attempts, at(path, 'attempts')),
    firstAttemptedAtMs: u64(v.first_attempted_at_ms, at(path, 'first_attempted_at_ms')),
    refusals: u32(v.refusals, at(path, 'refusals')),
  };
}

const callOp = (v, path) => oneOf(v, path, CALL_OP);
const healthOutcome = (v, path) => oneOf(v, path, HEALTH_OUTCOME);

function healthCall(v, path) {
  fields(v, path, ['outcome', 'pause_until_ms', 'probe'], ['circuit']);
  return {
    outcome: healthOutcome(v.outcome, at(path, 'outcome')),
    pauseUntilMs: u64(v.pause_until_ms, at(path, 'pause_until_ms')),
    probe: bool(v.probe, at(path, 'probe')),
    circuit: optCircuit(v.circuit, at(path, 'circuit')),
  };
}

/** A store call (as `advance` or `call-for` gave it); `action` (an advance result's tag) is ignored. */
function storeCall(v, path) {
  fields(v, path, ['op', 'key', 'endpoint_id', 'bucket', 'budget'], ['health', 'action']);
  return {
    op: callOp(v.op, at(path, 'op')),
    key: str(v.key, at(path, 'key')),
    endpointId: str(v.endpoint_id, at(path, 'endpoint_id')),
    bucket: u64(v.bucket, at(path, 'bucket')),
    budget: lower.budget(v.budget, at(path, 'budget')),
    health: v.health == null ? undefined : healthCall(v.health, at(path, 'health')),
  };
}

function healthState(v, path) {
  fields(v, path, ['failures', 'paused_until_ms', 'opened_at_ms', 'cooldown_ms', 'probe_window', 'probes_granted', 'closed_at_ms']);
  const f = v.failures;
  const fp = at(path, 'failures');
  fields(f, fp, ['bucket', 'current', 'previous']);
  return {
    failures: { bucket: u64(f.bucket, at(fp, 'bucket')), current: u64(f.current, at(fp, 'current')), previous: u64(f.previous, at(fp, 'previous')) },
    pausedUntilMs: u64(v.paused_until_ms, at(path, 'paused_until_ms')),
    openedAtMs: u64(v.opened_at_ms, at(path, 'opened_at_ms')),
    cooldownMs: u64(v.cooldown_ms, at(path, 'cooldown_ms')),
    probeWindow: u64(v.probe_window, at(path, 'probe_window')),
    probesGranted: u32(v.probes_granted, at(path, 'probes_granted')),
    closedAtMs: u64(v.closed_at_ms, at(path, 'closed_at_ms')),
  };
}

/** What an in-memory store holds for one key: {buckets, health}. */
function heldHealth(v, path) {
  fields(v, path, ['buckets', 'health']);
  return { buckets: lower.held(v.buckets, at(path, 'buckets')), health: healthState(v.health, at(path, 'health')) };
}

// ---- out: jco's answers -> the contract's shapes ----

const circuitOut = (c) => ({
  failure_ratio: c.failureRatio,
  min_sample: n(c.minSample),
  cooldown_ms: n(c.cooldownMs),
  cooldown_max_ms: n(c.cooldownMaxMs),
  probes: c.probes,
  probe_interval_ms: n(c.probeIntervalMs),
});

const healthOut = (h) => ({
  hold_budget_refusals: h.holdBudgetRefusals,
  pause_max_ms: n(h.pauseMaxMs),
  circuit: h.circuit === undefined ? null : circuitOut(h.circuit),
  release: { multiple: h.release.multiple, floor_per_s: h.release.floorPerS },
  cache_ms: n(h.cacheMs),
});

const viewOut = (v) => ({
  paused_until_ms: n(v.pausedUntilMs),
  opened_at_ms: n(v.openedAtMs),
  cooldown_ms: n(v.cooldownMs),
  closed_at_ms: n(v.closedAtMs),
  as_of_ms: n(v.asOfMs),
});

const pacerOut = (p) => ({ tokens: p.tokens, updated_ms: n(p.updatedMs), normal_per_s: p.normalPerS });

const deadLetterOut = (dl) => ({ event_id: dl.eventId, endpoint_id: dl.endpointId, attempts: dl.attempts, elapsed_ms: n(dl.elapsedMs), stop_reason: snake(dl.stopReason) });

function gateVerdictOut(v) {
  switch (v.tag) {
    case 'hold':
      return { action: 'hold', until_ms: n(v.val.untilMs), reason: snake(v.val.reason) };
    case 'stop':
      return { action: 'stop', dead_letter: deadLetterOut(v.val.deadLetter), held_ms: n(v.val.heldMs) };
    default:
      return { action: snake(v.tag) }; // send, send_probe, probe
  }
}

const gateAnswerOut = (a) => ({ verdict: gateVerdictOut(a.verdict), pacer: pacerOut(a.pacer) });

const storeCallOut = (c) => ({
  op: snake(c.op),
  key: c.key,
  endpoint_id: c.endpointId,
  bucket: n(c.bucket),
  budget: { ratio: c.budget.ratio, window_ms: n(c.budget.windowMs), min_sample: n(c.budget.minSample), sliding: c.budget.sliding },
  health:
    c.health === undefined
      ? null
      : { outcome: c.health.outcome, pause_until_ms: n(c.health.pauseUntilMs), probe: c.health.probe, circuit: c.health.circuit === undefined ? null : circuitOut(c.health.circuit) },
});

/** `{action: 'decided', decision, call}` or `{action: 'needs_store', ...call}`. */
function advanceOut(r) {
  if (r.tag === 'decided') {
    return { action: 'decided', decision: lower.decisionOut(r.val.decision), call: r.val.call === undefined ? null : storeCallOut(r.val.call) };
  }
  return { action: 'needs_store', ...storeCallOut(r.val) };
}

function verdictOut(v) {
  if (v.tag === 'hold') return { action: 'hold', until_ms: n(v.val.untilMs), refresh_credentials: v.val.refreshCredentials };
  if (v.tag === 'retry') return { action: 'retry', delay_ms: n(v.val.delayMs), refresh_credentials: v.val.refreshCredentials };
  return { action: 'stop', ...lower.decisionOut(v) };
}

const finishedOut = (f) => ({ verdict: verdictOut(f.verdict), budget_disagreement: f.budgetDisagreement });

function wakeVerdictOut(v) {
  if (v.tag === 'send') return { action: 'send' };
  if (v.tag === 'hold') return { action: 'hold', until_ms: n(v.val.untilMs), refusals: v.val.refusals };
  return { action: 'stop', ...deadLetterOut(v.val) };
}

const pacedOut = (p) => ({
  verdict: p.verdict.tag === 'send' ? { action: 'send' } : { action: 'wait', value: n(p.verdict.val) },
  pacer: pacerOut(p.pacer),
});

const callReplyOut = (r) => ({
  reservation: r.reservation === undefined ? null : lower.reservationOut(r.reservation),
  granted: r.granted === undefined ? null : r.granted,
  view: r.view === undefined ? null : viewOut(r.view),
});

const heldHealthOut = (h) => {
  const s = h.health;
  return {
    buckets: { bucket: n(h.buckets.bucket), ...lower.countsOut(h.buckets) },
    health: {
      failures: { bucket: n(s.failures.bucket), current: n(s.failures.current), previous: n(s.failures.previous) },
      paused_until_ms: n(s.pausedUntilMs),
      opened_at_ms: n(s.openedAtMs),
      cooldown_ms: n(s.cooldownMs),
      probe_window: n(s.probeWindow),
      probes_granted: s.probesGranted,
      closed_at_ms: n(s.closedAtMs),
    },
  };
};

const callAppliedOut = (a) => ({ reply: callReplyOut(a.reply), held: heldHealthOut(a.held) });

const healthDocumentOut = (d) => ({
  version: d.version,
  classes: d.classes.map((c) => ({
    name: c.name,
    policy: lower.policyOut(c.policy),
    health: c.health === undefined ? null : healthOut(c.health),
    policy_hash: c.policyHash,
    hash_words: Array.from(c.hashWords, n),
  })),
});

module.exports = {
  health,
  view,
  pacer,
  release,
  gateEvent,
  wake,
  callOp,
  storeCall,
  heldHealth,
  healthOut,
  gateAnswerOut,
  advanceOut,
  finishedOut,
  wakeVerdictOut,
  pacedOut,
  storeCallOut,
  callAppliedOut,
  healthDocumentOut,
};
