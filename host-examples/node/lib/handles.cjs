'use strict';
// The component handles of ONE compiled policy (ABI 0.3 `compile`), one per
// instance it ran on: a handle lives in the instance that compiled it (each
// has its own table, at most 65535 live), so a call on another instance (a
// spare of the same artifact, or an artifact swapped in) compiles there
// first, lazily, and never uses a handle from elsewhere. When a call lands
// on another artifact's instances, the handles held on the previous
// artifact's are discarded (a step still running on the old artifact
// compiles there again if it needs to).
//
// Released by `release()` (CompiledPolicy.close); a FinalizationRegistry
// releases the handles of a policy collected without a close. Neither may
// reference the CompiledPolicy itself: the registry holds this object.
const { PolicyError } = require('./errors.cjs');
const { OWNER } = require('./artifact/instance.cjs');

class Handles {
  #policy; // jco shapes
  #health;
  #byApi = new Map(); // instance (jco's policy object) -> handle
  #owner = null; // the Instances (artifact) the handles in #byApi belong to
  #released = false;

  constructor(policy, health) {
    this.#policy = policy;
    this.#health = health;
  }

  /** The handle on `api`, compiled there on first use (throws the component's refusal as jco's error). */
  on(api) {
    let h = this.#byApi.get(api);
    if (h !== undefined) return h;
    if (this.#released) throw new PolicyError('invalid_input', 'handle', 'the compiled policy was closed');
    const owner = api[OWNER];
    if (owner !== this.#owner) {
      this.#discardAll(); // another artifact now: the old one's handles go
      this.#owner = owner;
    }
    h = api.compile(this.#policy, this.#health);
    this.#byApi.set(api, h);
    return h;
  }

  /** Live handles (tests, metrics). */
  get size() {
    return this.#byApi.size;
  }

  get released() {
    return this.#released;
  }

  /** Discard every handle; any later call is refused. Idempotent. */
  release() {
    this.#released = true;
    this.#discardAll();
  }

  #discardAll() {
    for (const [api, h] of this.#byApi) api[OWNER]?.discard(api, h);
    this.#byApi.clear();
  }
}

/** Releases the handles of a CompiledPolicy the program dropped without close(). */
const finalizer = new FinalizationRegistry((handles) => handles.release());

module.exports = { Handles, finalizer };
