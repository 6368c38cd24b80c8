// The component's test-only `vector-case(format, case)` (wit/retry-policy.wit):
// one conformance case run inside the artifact by policy-core's own runner,
// for the ops whose functions ABI 1.0 no longer exports (delay, budget,
// decide of format 1, resume, and every format-3 op but parse_document).
// It runs on the current artifact (the package's copy, or
// RETRY_POLICY_ARTIFACT), as every other op of the runner does.
import { createRequire } from 'node:module';

const { artifact } = createRequire(import.meta.url)('../lib/artifact/current.cjs');

/**
 * `format`: the file's `format` value as JSON text; `caseText`: the case
 * `{name, op, input, expect}` as JSON text, numbers exactly as in the file.
 * Null when the component found the answer `expect`, else why not (its
 * `expected ... got ...`, or `broken vector: ...`).
 */
export function vectorCase(format, caseText) {
  try {
    artifact().run((api) => api.vectorCase(format, caseText));
    return null;
  } catch (e) {
    if (typeof e?.payload === 'string') return e.payload; // the component's err
    throw e;
  }
}
