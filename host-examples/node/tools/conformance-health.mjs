// Format-3 vector files (tests/vectors/format3-*.json, format
// "webhook-retry-policy/health-vectors 1", docs/health.md section 7) through
// the package's public API, so through the COMPONENT: parse_document via
// loadHealthDocument; apply via applyCall, call by call; gate, after_probe,
// settle and settle_wake on a policy compiled with the case's section
// (compilePolicy, closed after); pace, normal_per_s, health_outcome and
// pause_until through their functions. Each result is put in the vectors'
// shape and compared with `expect` as policy-core/tests/health_vectors.rs
// does (numbers by exact value, integers above 2^53 too: exact-json.mjs;
// every field), except that an expected error without a `field` pins only
// the code (docs/health.md section 7). Unknown fields in a file, a case, an
// input or a call are refused as a broken vector.
import * as api from '@webhook/retry-policy';
import { sameJson, showJson } from './exact-json.mjs';

export const HEALTH_FORMAT = 'webhook-retry-policy/health-vectors 1';
export const HEALTH_FILE_FIELDS = ['format', 'suite', 'spec', 'regenerate', 'cases'];

/** Input fields of each op, exactly (as the Rust reference's `run`). */
const OP_FIELDS = {
  parse_document: ['document'],
  apply: ['section', 'budget', 'held', 'calls'],
  gate: ['policy', 'health', 'event', 'view', 'pacer', 'now_ms'],
  after_probe: ['policy', 'health', 'event', 'granted', 'view', 'pacer', 'now_ms'],
  settle: ['policy', 'health', 'state', 'outcome', 'now_ms', 'reply'],
  settle_wake: ['policy', 'wake', 'reply', 'now_ms'],
  health_outcome: ['outcome'],
  pause_until: ['health', 'outcome', 'now_ms'],
  pace: ['release', 'pacer', 'calls'],
  normal_per_s: ['budget', 'now_ms', 'current', 'previous'],
};
const SECTION_FIELDS = ['hold_budget_refusals', 'pause', 'circuit', 'release', 'cache_ms'];
const REQUEST_FIELDS = ['op', 'bucket', 'outcome', 'pause_until_ms', 'probe'];

class BrokenVector extends Error {}

function exactly(v, fields, what) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BrokenVector(`${what} is not an object`);
  const unknown = Object.keys(v).filter((k) => !fields.includes(k));
  if (unknown.length) throw new BrokenVector(`unknown ${what} field(s): ${unknown.join(', ')}`);
  const missing = fields.filter((k) => !Object.hasOwn(v, k));
  if (missing.length) throw new BrokenVector(`missing ${what} field(s): ${missing.join(', ')}`);
}

/** A vector's section ({..., pause: {max_ms}}) in the package's shape ({..., pause_max_ms}); null stays null. */
function section(s, what) {
  if (s === null) return null;
  exactly(s, SECTION_FIELDS, what);
  exactly(s.pause, ['max_ms'], `${what}.pause`);
  const { pause, ...rest } = s;
  return { ...rest, pause_max_ms: pause.max_ms };
}

/** The package's section back in the vectors' shape. */
function sectionOut(h) {
  const { pause_max_ms: maxMs, ...rest } = h;
  return { hold_budget_refusals: rest.hold_budget_refusals, pause: { max_ms: maxMs }, circuit: rest.circuit, release: rest.release, cache_ms: rest.cache_ms };
}

const hex16 = (w) => BigInt(w).toString(16).padStart(16, '0');

function withCompiled(policy, health, f) {
  const compiled = api.compilePolicy(policy, { health });
  try {
    return f(compiled);
  } finally {
    compiled.close();
  }
}

function gateOut(answer) {
  const v = answer.verdict;
  let decision;
  if (v.action === 'send' || v.action === 'send_probe') decision = { action: 'send', probe: v.action === 'send_probe' };
  else if (v.action === 'stop') decision = { action: 'stop', stop_reason: v.dead_letter.stop_reason, dead_letter: v.dead_letter, held_ms: v.held_ms };
  else decision = v;
  return { decision, pacer: answer.pacer };
}

function verdictOut(v) {
  const { action, ...rest } = v;
  if (action === 'hold') return { hold: rest };
  if (action === 'retry') return { stop_reason: null, disable_endpoint: false, retry: rest };
  return rest;
}

function wakeOut(v) {
  if (v.action !== 'stop') return v;
  const { action, ...deadLetter } = v;
  return { action, stop_reason: deadLetter.stop_reason, dead_letter: deadLetter };
}

function apply(i) {
  const health = section(i.section, 'section');
  if (health === null) throw new BrokenVector('an apply case has a section');
  let held = i.held;
  const replies = [];
  for (const [n, c] of i.calls.entries()) {
    exactly(c, ['now_ms', 'request'], `calls[${n}]`);
    exactly(c.request, REQUEST_FIELDS, `calls[${n}].request`);
    const { op, bucket, outcome, pause_until_ms: pauseUntilMs, probe } = c.request;
    // key and endpoint_id are not read by apply-call
    const call = { op, key: '', endpoint_id: '', bucket, budget: i.budget, health: { outcome, pause_until_ms: pauseUntilMs, probe, circuit: health.circuit } };
    const out = api.applyCall(call, c.now_ms, held);
    replies.push(out.reply);
    held = out.held;
  }
  return { replies, held };
}

const RUN = {
  parse_document: (i) => ({
    classes: api.loadHealthDocument(i.document).classes.map((c) => ({
      name: c.name,
      health: c.health === null ? null : sectionOut(c.health),
      hash_words: c.health === null ? null : c.hash_words.map(hex16),
      policy_hash: c.policy_hash,
    })),
  }),
  apply,
  gate: (i) => withCompiled(i.policy, section(i.health, 'health'), (p) => gateOut(p.gate(i.event, i.view, i.pacer, i.now_ms))),
  after_probe: (i) => withCompiled(i.policy, section(i.health, 'health'), (p) => gateOut(p.afterProbe(i.event, i.granted, i.view, i.pacer, i.now_ms))),
  settle: (i) =>
    withCompiled(i.policy, section(i.health, 'health'), (p) => {
      const f = p.finish(i.state, i.outcome, i.now_ms, i.reply);
      return { decision: verdictOut(f.verdict), budget_disagreement: f.budget_disagreement };
    }),
  settle_wake: (i) => withCompiled(i.policy, null, (p) => wakeOut(p.settleWake(i.wake, i.reply, i.now_ms))),
  health_outcome: (i) => ({ outcome: api.healthOutcome(i.outcome) }),
  pause_until: (i) => ({ pause_until_ms: api.pauseUntil(section(i.health, 'health'), i.outcome, i.now_ms) }),
  pace: (i) => {
    let pacer = i.pacer;
    const results = [];
    for (const now of i.calls) {
      const out = api.pace(i.release, pacer, now);
      results.push(out.verdict.action === 'send' ? { action: 'send' } : { action: 'wait', until_ms: out.verdict.value });
      pacer = out.pacer;
    }
    return { results, pacer };
  },
  normal_per_s: (i) => ({ normal_per_s: api.normalPerS(i.budget, i.now_ms, i.current, i.previous) }),
};

/**
 * Whether `got` answers `expect`: equal as JSON values, except that an
 * expected error without a `field` pins only the code (where the path of a
 * refused op input starts is each host's reading; a document's refusal
 * always names its path).
 */
function answers(got, expect) {
  const codeOnly = typeof expect === 'object' && expect !== null && Object.hasOwn(expect, 'error') && !Object.hasOwn(expect, 'field');
  if (codeOnly && typeof got === 'object' && got !== null && Object.hasOwn(got, 'error')) {
    const { field: _field, ...code } = got;
    return sameJson(code, expect);
  }
  return sameJson(got, expect);
}

/** One format-3 case: null when it passes, else what differed. */
export function runHealthCase(c) {
  try {
    exactly(c, ['name', 'op', 'input', 'expect'], 'case');
    const fields = OP_FIELDS[c.op];
    if (fields === undefined) throw new BrokenVector(`unknown op ${JSON.stringify(c.op)}`);
    exactly(c.input, fields, 'input');
  } catch (e) {
    return `broken vector: ${e.message}`;
  }
  let got;
  try {
    got = RUN[c.op](c.input);
  } catch (e) {
    if (e instanceof BrokenVector) return `broken vector: ${e.message}`;
    if (!(e instanceof api.PolicyError)) return `threw ${e && e.name}: ${e && e.message}`;
    got = { error: e.code, field: e.field };
  }
  return answers(got, c.expect) ? null : `expected ${showJson(c.expect)}, got ${showJson(got)}`;
}
