'use strict';
// One call into the current artifact: `f(api)` on one of its instances, the
// component's policy-error (jco's ComponentError) rethrown as a PolicyError.
//
// The component names a field relative to the value it checked (`hard_cap`,
// `attempt`); this package's errors name it from the caller's arguments
// (`policy.hard_cap`, `state.attempt`), as its earlier builds did: `paths`
// maps an error code to the argument it is about.
const { artifact } = require('./artifact/current.cjs');
const { PolicyError } = require('./errors.cjs');
const { snake } = require('./lower.cjs');

/** A step's arguments: policy codes are about `policy`, state codes about `state`. */
const STEP_PATHS = Object.freeze({
  invalid_backoff: 'policy',
  invalid_hard_cap: 'policy',
  invalid_window: 'policy',
  invalid_budget: 'policy',
  invalid_state: 'state',
});
const NO_PATHS = Object.freeze({});

/** The component's refusal as a PolicyError; anything else unchanged. */
function converted(e, paths = NO_PATHS) {
  const p = e?.payload;
  if (p === undefined || p === null || typeof p.code !== 'string') return e;
  const code = snake(p.code);
  const arg = paths[code];
  const field = arg === undefined || p.field === arg || p.field.startsWith(`${arg}.`) ? p.field : p.field ? `${arg}.${p.field}` : arg;
  return new PolicyError(code, field, p.message);
}

/** `f(api)` on the current artifact (or `on`, an artifact a step began on). */
function call(f, on = artifact(), paths = NO_PATHS) {
  try {
    return on.run(f);
  } catch (e) {
    throw converted(e, paths);
  }
}

/** `f(api)` with the clock answering `nowMs` (bigint) and the store `store` (imports-driven decide). */
function callWithImports(nowMs, store, onStoreError, f, on = artifact()) {
  try {
    return on.withImports(nowMs, store, onStoreError, f);
  } catch (e) {
    throw converted(e, STEP_PATHS);
  }
}

module.exports = { call, callWithImports, STEP_PATHS };
