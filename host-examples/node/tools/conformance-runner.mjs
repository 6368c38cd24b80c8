// Conformance runner: runs vector files (SPEC "Vector files", format 1)
// through the package's public API and compares every `expect`.
//
// A case fails when the result differs, when it throws something other
// than the expected PolicyError code, or when the vector itself is broken
// (unknown `op`, unknown or missing input field): those are reported with
// the file and case name, never skipped.
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import * as api from '@webhook/retry-policy';

/** Input fields of each op, exactly. */
export const OP_FIELDS = {
  plan: ['backoff', 'window_ms', 'hard_cap'],
  delay: ['backoff', 'event_id', 'retry_index'],
  classify_status: ['status'],
  classify_error: ['error_kind'],
  budget: ['budget', 'now_ms', 'current', 'previous'],
  decide: ['policy', 'state', 'outcome', 'now_ms', 'budget_counts'],
};

/** The pure-function path: what every dispatcher sees. */
export const PURE = {
  plan: (i) => api.plan(i.backoff, i.window_ms, i.hard_cap),
  delay: (i) => ({ delay_ms: api.delay(i.backoff, i.event_id, i.retry_index) }),
  classify_status: (i) => ({ outcome: api.classifyStatus(i.status) }),
  classify_error: (i) => ({ outcome: api.classifyError(i.error_kind) }),
  budget: (i) => ({ allows_retry: api.budgetAllows(i.budget, i.now_ms, { current: i.current, previous: i.previous }) }),
  decide: (i) => api.decide(i.policy, i.state, i.outcome, i.now_ms, i.budget_counts),
};

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

const show = (v) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

/** Run one case through `impl`; null when it passes, else what differed. */
export function runCase(c, impl = PURE) {
  if (typeof c !== 'object' || c === null) return 'case is not an object';
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
export function runDir(dir, impl = PURE) {
  const out = { passed: 0, failed: 0, failures: [] };
  const fail = (file, name, why) => {
    out.failed++;
    out.failures.push({ file, name, why });
  };
  for (const file of vectorFiles(dir)) {
    const base = path.basename(file);
    let doc;
    try {
      doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      fail(base, '(file)', `not valid JSON: ${e.message}`);
      continue;
    }
    if (doc === null || doc.format !== 1 || !Array.isArray(doc.cases)) {
      fail(base, '(file)', 'not a format-1 vector file (expected {"format": 1, "cases": [...]})');
      continue;
    }
    doc.cases.forEach((c, i) => {
      const name = typeof c?.name === 'string' ? c.name : `case #${i}`;
      const why = runCase(c, impl);
      if (why === null) out.passed++;
      else fail(base, name, why);
    });
  }
  return out;
}
