'use strict';
// One call into the current artifact: `f(api)` on one of its instances, the
// component's policy-error (jco's ComponentError) rethrown as a PolicyError.
const { artifact } = require('./artifact/current.cjs');
const { policyError } = require('./lower.cjs');

/** The component's refusal as a PolicyError; anything else unchanged. */
function converted(e) {
  const p = e?.payload;
  return p !== undefined && p !== null && typeof p.code === 'string' ? policyError(p) : e;
}

/** `f(api)` on the current artifact (or `on`, an artifact a step began on). */
function call(f, on = artifact()) {
  try {
    return on.run(f);
  } catch (e) {
    throw converted(e);
  }
}

/** `f(api)` with the clock answering `nowMs` (bigint) and the store `store` (imports-driven decide). */
function callWithImports(nowMs, store, onStoreError, f, on = artifact()) {
  try {
    return on.withImports(nowMs, store, onStoreError, f);
  } catch (e) {
    throw converted(e);
  }
}

module.exports = { call, callWithImports, converted };
