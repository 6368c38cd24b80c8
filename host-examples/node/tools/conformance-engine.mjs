// Engine trace files (tests/vectors/engine-*.json, format
// "webhook-retry-policy/engine-trace 1", docs/engine.md section 14) through
// the package's DeliveryEngine, so through the COMPONENT: for each case, open
// an engine on its config, feed each step's input alone, and compare the
// first refused input's code with `error` (absent: none), the actions with
// `expect` (exactly, in order) and the timeout with `timeout_ms`, when
// given. Close the engine. Unknown fields in a file, a case or a step are
// refused as a broken trace. As the Rust runner
// (host-examples/rust/src/conformance_engine.rs), steps are numbered from 0.
import * as api from '@webhook/retry-policy';
import { sameJson, showJson } from './exact-json.mjs';

export const ENGINE_FORMAT = 'webhook-retry-policy/engine-trace 1';
export const ENGINE_FILE_FIELDS = ['format', 'spec', 'regenerate', 'cases'];
const CASE_FIELDS = ['name', 'comment', 'config', 'steps'];
const STEP_FIELDS = ['input', 'expect', 'error', 'timeout_ms'];

/** Why `v` is not an object of only `fields`, or null. */
function broken(v, fields, what) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return `${what}: not an object`;
  const unknown = Object.keys(v).filter((k) => !fields.includes(k));
  return unknown.length ? `${what}: unknown field(s) ${unknown.join(', ')}` : null;
}

/** Why a trace file's top level is broken, or null. */
export function brokenTraceFile(doc) {
  return broken(doc, ENGINE_FILE_FIELDS, 'file') ?? (Array.isArray(doc.cases) ? null : 'cases: expected an array');
}

/** What differs in one step's answer, or null. */
function stepDiffers(step, got) {
  const error = got.errors[0]?.error ?? null;
  const want = Object.hasOwn(step, 'error') ? step.error : null;
  if (error !== want) return `error ${showJson(error)}, expected ${showJson(want)}${got.errors[0] ? ` (${got.errors[0].message})` : ''}`;
  if (Object.hasOwn(step, 'expect') && !sameJson(got.outputs, step.expect)) {
    return `actions ${showJson(got.outputs)}, expected ${showJson(step.expect)}`;
  }
  if (Object.hasOwn(step, 'timeout_ms') && !sameJson(got.timeout_ms, step.timeout_ms)) {
    return `timeout_ms ${showJson(got.timeout_ms)}, expected ${showJson(step.timeout_ms)}`;
  }
  return null;
}

/** Run one case; null when it passes, else what failed (naming the step). */
export function runEngineCase(c) {
  const why = broken(c, CASE_FIELDS, 'case') ?? (Array.isArray(c.steps) ? null : 'steps: expected an array');
  if (why !== null) return `broken trace: ${why}`;
  let engine;
  try {
    engine = api.DeliveryEngine.open(showJson(c.config));
  } catch (e) {
    return `config refused: ${e?.name} ${e?.message}`;
  }
  try {
    for (const [i, step] of c.steps.entries()) {
      const bad = broken(step, STEP_FIELDS, `step ${i}`);
      if (bad !== null) return `broken trace: ${bad}`;
      let got;
      try {
        got = engine.feed(showJson([step.input]));
      } catch (e) {
        return `step ${i}: threw ${e?.name} ${e?.message}`;
      }
      const differs = stepDiffers(step, got);
      if (differs !== null) return `step ${i}: ${differs}`;
    }
    return null;
  } finally {
    engine.close();
  }
}
