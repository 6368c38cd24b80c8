// Conformance runner: runs vector files (the contract's "Vector files",
// formats 1 and 2, format 3's health vectors: conformance-health.mjs, and
// the delivery engine's trace files: conformance-engine.mjs) through the
// component and compares every `expect`.
//
// The ops whose function ABI 1.0 exports run through the package's public
// API (plan, classify_status, classify_error, evaluate, settle,
// retry_after); the others (delay, budget, decide of format 1, resume) run
// inside the component through its test-only `vector-case`, handed the
// case's JSON text with every number exactly as the file wrote it
// (exact-json.mjs: a u64 above 2^53 never goes through a double).
//
// A case fails when the result differs, when it throws something other
// than the expected PolicyError code, or when the vector itself is broken
// (unknown `op`, unknown or missing input field; for a `vector-case` op the
// component judges the input's fields): those are reported with the file
// and case name, never skipped.
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import * as api from '@webhook/retry-policy';
import { HEALTH_FORMAT, HEALTH_FILE_FIELDS, runHealthCase } from './conformance-health.mjs';
import { ENGINE_FORMAT, brokenTraceFile, runEngineCase } from './conformance-engine.mjs';
import { readRaw, values, exactText, showJson } from './exact-json.mjs';
import { vectorCase } from './vector-case.mjs';

/** Input fields of each op the package binds, exactly. */
export const OP_FIELDS = {
  plan: ['backoff', 'window_ms', 'hard_cap'],
  classify_status: ['status'],
  classify_error: ['error_kind'],
  evaluate: ['policy', 'state', 'outcome', 'now_ms'],
  settle: ['policy', 'state', 'outcome', 'now_ms', 'reply'],
  retry_after: ['header', 'now_ms'],
};

/** The ops of formats 1 and 2 run inside the component (`vector-case`). */
export const VECTOR_CASE_OPS = ['delay', 'budget', 'decide', 'resume'];

/** The ops through the package's functions: what every dispatcher sees. */
export const PURE = {
  plan: (i) => api.plan(i.backoff, i.window_ms, i.hard_cap),
  classify_status: (i) => ({ outcome: api.classifyStatus(i.status) }),
  classify_error: (i) => ({ outcome: api.classifyError(i.error_kind) }),
  evaluate: (i) => api.evaluate(i.policy, i.state, i.outcome, i.now_ms),
  settle: (i) => api.settle(i.policy, i.state, i.outcome, i.now_ms, i.reply),
  retry_after: (i) => ({ retry_after_ms: api.retryAfter(i.header, i.now_ms) }),
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

/** A vector file's value, integers above 2^53 - 1 exact (BigInt: the package's shape for such a u64). */
export const readVectorFile = (file) => values(readRaw(fs.readFileSync(file, 'utf8')));

/**
 * Run one case of a format-1 or -2 file, as read (exact-json.mjs readRaw);
 * `format`: the file's `format` value as JSON text. Null when it passes,
 * else what differed.
 */
export function runCase(raw, format = '2') {
  const c = values(raw);
  if (typeof c !== 'object' || c === null || Array.isArray(c)) return 'case is not an object';
  const extra = Object.keys(c).filter((k) => !['name', 'op', 'input', 'expect'].includes(k));
  if (extra.length) return `broken vector: unknown case field(s): ${extra.join(', ')}`;
  if (VECTOR_CASE_OPS.includes(c.op)) return vectorCase(format, exactText(raw));
  const broken = brokenInput(c.op, c.input);
  if (broken) return `broken vector: ${broken}`;
  const expect = c.expect;
  if (typeof expect !== 'object' || expect === null) return 'broken vector: expect is not an object';
  let got;
  try {
    got = PURE[c.op](c.input);
  } catch (e) {
    if (!(e instanceof api.PolicyError)) return `threw ${e && e.name}: ${e && e.message}`;
    if (Object.hasOwn(expect, 'error') && e.code === expect.error) return null;
    return `expected ${showJson(expect)}, got error ${e.code} (${e.message})`;
  }
  if (Object.hasOwn(expect, 'error')) return `expected error ${expect.error}, got ${showJson(got)}`;
  return isDeepStrictEqual(got, expect) ? null : `expected ${showJson(expect)}, got ${showJson(got)}`;
}

/** Every `*.json` file of `dir`, sorted. */
export function vectorFiles(dir) {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.join(dir, f));
}

/** The runner of a file's cases (`run(rawCase)`: null or why it failed), or why the file is not a vector file. */
function fileRunner(raw, doc) {
  if (doc !== null && doc.format === ENGINE_FORMAT) {
    const broken = brokenTraceFile(doc);
    return broken === null ? { run: (c) => runEngineCase(values(c)) } : { broken: `broken trace file: ${broken}` };
  }
  const health = doc !== null && doc.format === HEALTH_FORMAT;
  if (doc === null || !(health || doc.format === 1 || doc.format === 2) || !Array.isArray(doc.cases)) {
    return { broken: `not a vector file (expected {"format": 1, 2 or "${HEALTH_FORMAT}", "cases": [...]})` };
  }
  const extra = Object.keys(doc).filter((k) => !(health ? HEALTH_FILE_FIELDS : ['format', 'suite', 'cases']).includes(k));
  if (extra.length) return { broken: `broken vector file: unknown field(s): ${extra.join(', ')}` };
  const format = exactText(raw.format);
  return { run: health ? (c) => runHealthCase(c, format) : (c) => runCase(c, format) };
}

/**
 * Run every vector file of `dir`. Returns {passed, failed, failures}, each
 * failure `{file, name, why}` (a file that cannot be read counts once).
 */
export function runDir(dir) {
  const out = { passed: 0, failed: 0, failures: [] };
  const fail = (file, name, why) => {
    out.failed++;
    out.failures.push({ file, name, why });
  };
  for (const file of vectorFiles(dir)) {
    const base = path.basename(file);
    let raw;
    try {
      raw = readRaw(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      fail(base, '(file)', `not valid JSON: ${e.message}`);
      continue;
    }
    const doc = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? { ...raw, format: values(raw.format) } : null;
    const { run, broken } = fileRunner(raw, doc);
    if (broken !== undefined) {
      fail(base, '(file)', broken);
      continue;
    }
    raw.cases.forEach((c, i) => {
      const why = run(c);
      if (why === null) out.passed++;
      else fail(base, typeof c?.name === 'string' ? c.name : `case #${i}`, why);
    });
  }
  return out;
}
