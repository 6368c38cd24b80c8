// Format-3 vector files (tests/vectors/format3-*.json, format
// "webhook-retry-policy/health-vectors 1", docs/health.md section 7) through
// the COMPONENT: parse_document through the package's loadHealthDocument
// (load-health-document, the one format-3 function ABI 1.0 exports), every
// other op through the component's `vector-case` (tools/vector-case.mjs),
// which decodes the case, runs it and compares it with `expect` itself (an
// unknown input field is its broken vector). parse_document's result is put
// in the vectors' shape and compared with `expect` as policy-core's runner
// does (numbers by exact value: exact-json.mjs; every field), except that an
// expected error without a `field` pins only the code (docs/health.md
// section 7). Unknown fields in a file, a case or parse_document's input,
// and unknown ops, are refused here as a broken vector.
import * as api from '@webhook/retry-policy';
import { sameJson, showJson, values, exactText } from './exact-json.mjs';
import { vectorCase } from './vector-case.mjs';

export const HEALTH_FORMAT = 'webhook-retry-policy/health-vectors 1';
export const HEALTH_FILE_FIELDS = ['format', 'suite', 'spec', 'regenerate', 'cases'];
/** The ops run inside the component (`vector-case`). */
export const HEALTH_VECTOR_CASE_OPS = ['apply', 'gate', 'after_probe', 'settle', 'health_outcome', 'pause_until', 'pace', 'normal_per_s'];

/** Why `v` is not an object of exactly `fields`, or null. */
function notExactly(v, fields, what) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return `${what} is not an object`;
  const unknown = Object.keys(v).filter((k) => !fields.includes(k));
  if (unknown.length) return `unknown ${what} field(s): ${unknown.join(', ')}`;
  const missing = fields.filter((k) => !Object.hasOwn(v, k));
  return missing.length ? `missing ${what} field(s): ${missing.join(', ')}` : null;
}

const hex16 = (w) => BigInt(w).toString(16).padStart(16, '0');

/** The package's section back in the vectors' shape. */
function sectionOut(h) {
  const { pause_max_ms: maxMs, ...rest } = h;
  return { hold_budget_refusals: rest.hold_budget_refusals, pause: { max_ms: maxMs }, circuit: rest.circuit, release: rest.release, cache_ms: rest.cache_ms };
}

const parseDocument = (i) => ({
  classes: api.loadHealthDocument(i.document).classes.map((c) => ({
    name: c.name,
    health: c.health === null ? null : sectionOut(c.health),
    hash_words: c.health === null ? null : c.hash_words.map(hex16),
    policy_hash: c.policy_hash,
  })),
});

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

/** One format-3 case, as read (exact-json.mjs readRaw): null when it passes, else what differed. */
export function runHealthCase(raw, format = JSON.stringify(HEALTH_FORMAT)) {
  const c = values(raw);
  const broken = notExactly(c, ['name', 'op', 'input', 'expect'], 'case');
  if (broken !== null) return `broken vector: ${broken}`;
  if (HEALTH_VECTOR_CASE_OPS.includes(c.op)) return vectorCase(format, exactText(raw));
  if (c.op !== 'parse_document') return `broken vector: unknown op ${JSON.stringify(c.op)}`;
  const input = notExactly(c.input, ['document'], 'input');
  if (input !== null) return `broken vector: ${input}`;
  let got;
  try {
    got = parseDocument(c.input);
  } catch (e) {
    if (!(e instanceof api.PolicyError)) return `threw ${e && e.name}: ${e && e.message}`;
    got = { error: e.code, field: e.field };
  }
  return answers(got, c.expect) ? null : `expected ${showJson(c.expect)}, got ${showJson(got)}`;
}
