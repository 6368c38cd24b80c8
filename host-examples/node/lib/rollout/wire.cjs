'use strict';
// The component's follower (docs/rollout.md "The follower in the
// component"): `rollout-open` and `rollout-step`, called on the artifact
// the process runs now (after a swap, the new one: the state text the
// host keeps carries the follower over). Their JSON texts in and out; the
// component's `code: sentence` errors as RolloutError.
const { artifact } = require('../artifact/current.cjs');
const { RolloutError } = require('../errors.cjs');

/** `f(api)` on the current artifact; the component's refusal as RolloutError. */
function call(f) {
  try {
    return JSON.parse(artifact().run(f));
  } catch (e) {
    if (typeof e?.payload !== 'string') throw e;
    const at = e.payload.indexOf(': ');
    throw at < 0 ? new RolloutError('rollout_input_invalid', e.payload) : new RolloutError(e.payload.slice(0, at), e.payload.slice(at + 2));
  }
}

/** `rollout-open(config)` -> {state, key_ids}. */
function openFollower(config) {
  const text = JSON.stringify(config);
  return call((api) => api.rolloutOpen(text));
}

/** `rollout-step(state, input)` -> {state, call, log, refused, swapped}. */
function stepFollower(state, input) {
  const text = JSON.stringify(input);
  return call((api) => api.rolloutStep(state, text));
}

module.exports = { openFollower, stepFollower };
