// Conformance runner: runs vector files (the contract's "Vector files",
// formats 1 and 2, format 3's health vectors: conformance-health.mjs, and
// the delivery engine's trace files: conformance-engine.mjs)
// through the package's public API and compares every `expect`. Every op
// goes through an exported function of the package.
//
// A case fails when the result differs, when it throws something other
// than the expected PolicyError code, or when the vector itself is broken
// (unknown `op`, unknown or missing input field): those are reported with
// the file and case name, never skipped.
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import * as api from '@webhook/retry-policy';
import { HEALTH_FORMAT, HEALTH_FILE_FIELDS, runHealthCase } from './conformance-health.mjs';
import { ENGINE_FORMAT, brokenTraceFile, runEngineCase } from './conformance-engine.mjs';
import { readJson, showJson } from './exact-json.mjs';

/** Input fields of each op, exactly. */
export const OP_FIELDS = {
  plan: ['backoff', 'window_ms', 'hard_cap'],
  delay: ['backoff', 'event_id', 'retry_index'],
  classify_status: ['status'],
  classify_error: ['error_kind'],
  budget: ['budget', 'now_ms', 'current', 'previous'],
  decide: ['policy', 'state', 'outcome', 'now_ms', 'budget_counts'],
  evaluate: ['policy', 'state', 'outcome', 'now_ms'],
  settle: ['policy', 'state', 'outcome', 'now_ms', 'reply'],
  resume: ['policy', 'state', 'now_ms'],
  retry_after: ['header', 'now_ms'],
};

/** The pure-function path: what every dispatcher sees. */
export const PURE = {
  plan: (i) => api.plan(i.backoff, i.window_ms, i.hard_cap),
  delay: (i) => ({ delay_ms: api.delay(i.backoff, i.event_id, i.retry_index) }),
  classify_status: (i) => ({ outcome: api.classifyStatus(i.status) }),
  classify_error: (i) => ({ outcome: api.classifyError(i.error_kind) }),
  budget: (i) => ({ allows_retry: api.budgetAllows(i.budget, i.now_ms, { current: i.current, previous: i.previous }) }),
  decide: (i) => api.decideWith(i.policy, i.state, i.outcome, i.now_ms, i.budget_counts),
  evaluate: (i) => api.evaluate(i.policy, i.state, i.outcome, i.now_ms),
  settle: (i) => api.settle(i.policy, i.state, i.outcome, i.now_ms, i.reply),
  resume: (i) => api.resume(i.policy, i.state, i.now_ms),
  retry_after: (i) => ({ retry_after_ms: api.retryAfter(i.header, i.now_ms) }),
};

/**
 * The imports the component asks during `decide` for a vector's inputs: a
 * clock at `now_ms`, and a synchronous store that answers with the vector's
 * counts (none: it fails, as an unreadable store does) and the verdict the
 * component's own budget rule gives on them (`budgetAllows`), so the
 * imports-driven step must give the pure decision.
 */
export function vectorImports(i) {
  return {
    clock: { nowMs: () => i.now_ms },
    store: {
      call(request, budget, nowMs) {
        if (i.budget_counts === null) throw new Error('store unreadable (the vector has no counts)');
        const counts = i.budget_counts;
        const reserved = request.op !== 'record' && api.budgetAllows(budget, nowMs, counts);
        return { reserved, counts };
      },
    },
  };
}

/** `decide` vectors through the imports-driven step (one call; the component asks the clock and the store). */
export const IMPORTS = {
  ...PURE,
  decide: (i) => api.decide(i.policy, i.state, i.outcome, vectorImports(i)),
};

/**
 * The compiled path (a policy checked and converted once): what a
 * dispatcher's RetryPolicy runs. Ops without a policy are the plain ones.
 */
export function compiledImpl() {
  const compiled = (i) => new api.CompiledPolicy(i.policy);
  return {
    ...PURE,
    decide: (i) => compiled(i).decideWith(i.state, i.outcome, i.now_ms, i.budget_counts),
    evaluate: (i) => compiled(i).evaluate(i.state, i.outcome, i.now_ms),
    settle: (i) => compiled(i).settle(i.state, i.outcome, i.now_ms, i.reply),
    resume: (i) => compiled(i).resume(i.state, i.now_ms),
  };
}

/** Why `input` is not a valid input of `op`, or null. */
export function brokenInput(op, input) {
  const fields = OP_FIELDS[op];
  if (fields === undefined) return `unknown op ${JSON.stringify(op)}`;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return 'input is not an object';
  const unknown = Object.keys(input).filter((k) => !fields.includes(k));
  if (unknown.length) return `unknown input field(s): ${unknown.join(', ')}`;
  const missing = fields.filter((k) => !Object.hasOwn(input, k));
  if (missing.length) return `missing input field(s): ${missing.join(', ')}`;
  return null;
}

const show = showJson;

/** A vector file's value, integers above 2^53 - 1 exact (BigInt: the package's shape for such a u64). */
export const readVectorFile = (file) => readJson(fs.readFileSync(file, 'utf8'));

/** Run one case through `impl`; null when it passes, else what differed. */
export function runCase(c, impl = PURE) {
  if (typeof c !== 'object' || c === null) return 'case is not an object';
  const extra = Object.keys(c).filter((k) => !['name', 'op', 'input', 'expect'].includes(k));
  if (extra.length) return `broken vector: unknown case field(s): ${extra.join(', ')}`;
  const broken = brokenInput(c.op, c.input);
  if (broken) return `broken vector: ${broken}`;
  const expect = c.expect;
  if (typeof expect !== 'object' || expect === null) return 'broken vector: expect is not an object';
  let got;
  try {
    got = impl[c.op](c.input);
  } catch (e) {
    if (!(e instanceof api.PolicyError)) return `threw ${e && e.name}: ${e && e.message}`;
    if (Object.hasOwn(expect, 'error') && e.code === expect.error) return null;
    return `expected ${show(expect)}, got error ${e.code} (${e.message})`;
  }
  if (Object.hasOwn(expect, 'error')) return `expected error ${expect.error}, got ${show(got)}`;
  return isDeepStrictEqual(got, expect) ? null : `expected ${show(expect)}, got ${show(got)}`;
}

/** Every `*.json` file of `dir`, sorted. */
export function vectorFiles(dir) {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.join(dir, f));
}

/**
 * Run every vector file of `dir`. Returns {passed, failed, failures}, each
 * failure `{file, name, why}` (a file that cannot be read counts once).
 */
export function runDir(dir, impls = [PURE]) {
  const out = { passed: 0, failed: 0, failures: [] };
  const fail = (file, name, why) => {
    out.failed++;
    out.failures.push({ file, name, why });
  };
  for (const file of vectorFiles(dir)) {
    const base = path.basename(file);
    let doc;
    try {
      doc = readVectorFile(file);
    } catch (e) {
      fail(base, '(file)', `not valid JSON: ${e.message}`);
      continue;
    }
    if (doc !== null && doc.format === ENGINE_FORMAT) {
      const broken = brokenTraceFile(doc);
      if (broken !== null) {
        fail(base, '(file)', `broken trace file: ${broken}`);
        continue;
      }
      doc.cases.forEach((c, i) => {
        const why = runEngineCase(c);
        if (why === null) out.passed++;
        else fail(base, typeof c?.name === 'string' ? c.name : `case #${i}`, why);
      });
      continue;
    }
    if (doc !== null && doc.format === HEALTH_FORMAT && Array.isArray(doc.cases)) {
      const extra = Object.keys(doc).filter((k) => !HEALTH_FILE_FIELDS.includes(k));
      if (extra.length) {
        fail(base, '(file)', `broken vector file: unknown field(s): ${extra.join(', ')}`);
        continue;
      }
      doc.cases.forEach((c, i) => {
        const why = runHealthCase(c);
        if (why === null) out.passed++;
        else fail(base, typeof c?.name === 'string' ? c.name : `case #${i}`, why);
      });
      continue;
    }
    if (doc === null || (doc.format !== 1 && doc.format !== 2) || !Array.isArray(doc.cases)) {
      fail(base, '(file)', `not a vector file (expected {"format": 1, 2 or "${HEALTH_FORMAT}", "cases": [...]})`);
      continue;
    }
    const extra = Object.keys(doc).filter((k) => !['format', 'suite', 'cases'].includes(k));
    if (extra.length) {
      fail(base, '(file)', `broken vector file: unknown field(s): ${extra.join(', ')}`);
      continue;
    }
    doc.cases.forEach((c, i) => {
      const name = typeof c?.name === 'string' ? c.name : `case #${i}`;
      let why = null;
      for (const impl of impls) why ??= runCase(c, impl);
      if (why === null) out.passed++;
      else fail(base, name, why);
    });
  }
  return out;
}
