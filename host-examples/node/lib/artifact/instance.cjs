'use strict';
// One loaded artifact's running instances: the main core module compiled
// once, instantiated through jco's glue (lib/component/glue.cjs) with the
// two imports the component was designed around, `clock.now-ms` and
// `budget-store.call`.
//
// The imports answer from the call in progress (`withImports`): the clock
// from a time read and checked before the call entered WebAssembly, the
// store through the caller's synchronous store, its answer checked here,
// inside jco's `try`, so a bad or throwing store becomes the component's
// `err` (budget-unavailable), never an exception unwinding through wasm.
//
// Re-entrancy: a call made while another is running on this artifact (a
// store that calls back into the package, a hook) runs on a spare instance
// of the same module. A trap (which Rust's panic=abort makes of any bug)
// leaves an instance in an unknown state, so that instance is replaced.
// jco's glue (93 KiB of JavaScript) is parsed when the first artifact loads,
// not at import, through the V8 code cache (code-cache.cjs), written one
// turn of the event loop after the first load (its first decisions ran).
const GLUE = require('node:path').join(__dirname, '..', 'component', 'glue.cjs');
let glue = null;
function jco() {
  if (glue === null) {
    const loaded = require('./code-cache.cjs').requireCached(GLUE);
    glue = loaded.exports;
    setImmediate(loaded.save);
  }
  return glue;
}
const lower = require('../lower.cjs');
const read = require('../read-step.cjs');

let adapters = null;
function adapterModules() {
  if (adapters === null) {
    adapters = {};
    for (const [name, b64] of Object.entries(jco().ADAPTERS)) adapters[name] = new WebAssembly.Module(Buffer.from(b64, 'base64'));
  }
  return adapters;
}

class Instances {
  #module;
  #primary = null;
  #spares = [];
  #depth = 0;
  /** What the imports answer during one imports-driven call: {nowMs (a checked bigint), store, onStoreError}, or null. */
  imports = null;

  /** @param {WebAssembly.Module} module the artifact's main core module */
  constructor(module) {
    this.#module = module;
  }

  #memories = new Set(); // the main instances' linear memories (memoryBytes)

  #create() {
    const mods = { 'retry_policy.core.wasm': this.#module, ...adapterModules() };
    const instantiateCore = (module, importObject) => {
      const instance = new WebAssembly.Instance(module, importObject);
      if (module === this.#module) this.#memories.add(instance.exports.memory);
      return instance;
    };
    return jco().instantiate(
      (name) => mods[name],
      {
        'webhook:retry-policy/clock': { nowMs: () => this.#nowMs() },
        'webhook:retry-policy/budget-store': { call: (request, budget, nowMs) => this.#storeCall(request, budget, nowMs) },
      },
      instantiateCore,
    ).policy;
  }

  /** Bytes of linear memory held by the instances made so far (plateau tests). */
  memoryBytes() {
    let n = 0;
    for (const m of this.#memories) n += m.buffer.byteLength;
    return n;
  }

  #nowMs() {
    // Set before the call (withImports); a component that asks outside one gets 0.
    return this.imports === null ? 0n : this.imports.nowMs;
  }

  #storeCall(request, budget, nowMs) {
    const imp = this.imports;
    if (imp === null) throw 'no budget store for this call';
    const req = lower.requestOut(request);
    try {
      const answer = imp.store.call(req, lower.budgetOut(budget), lower.n(nowMs));
      if (answer !== null && typeof answer === 'object' && typeof answer.then === 'function') {
        answer.then(undefined, () => {}); // never an unhandled rejection
        throw new TypeError('the budget store answered with a Promise: decide needs a synchronous store (use step for an async one)');
      }
      return read.reservation(answer, 'reply');
    } catch (e) {
      if (imp.onStoreError) imp.onStoreError(e, req);
      throw String(e?.message ?? e); // jco: the import's `err`
    }
  }

  /** Run `f(api)` on a free instance. */
  run(f) {
    if (this.#depth > 0) return this.#runSpare(f);
    const api = (this.#primary ??= this.#create());
    this.#depth = 1;
    try {
      return f(api);
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) this.#drop(api);
      throw e;
    } finally {
      this.#depth = 0;
    }
  }

  /** `f` on a spare instance (a nested call), with `imports` (null: a nested call has none of its own) for its duration. */
  #runSpare(f, imports = null) {
    const api = this.#spares.pop() ?? this.#create();
    const outer = this.imports;
    this.imports = imports;
    let ok = false;
    try {
      const out = f(api);
      ok = true;
      return out;
    } catch (e) {
      ok = !(e instanceof WebAssembly.RuntimeError);
      throw e;
    } finally {
      this.imports = outer;
      if (ok) this.#spares.push(api);
      else this.#drop(api);
    }
  }

  #drop(api) {
    if (api === this.#primary) this.#primary = null;
    // its memory stays counted until collected; a trapped instance is rare
  }

  /** `f(api)` with the imports answering from `nowMs` and `store` (the imports-driven decide). */
  withImports(nowMs, store, onStoreError, f) {
    const imports = { nowMs, store, onStoreError };
    if (this.#depth > 0) return this.#runSpare(f, imports); // nested: a spare instance, with these imports
    this.imports = imports;
    try {
      return this.run(f);
    } finally {
      this.imports = null;
    }
  }
}

module.exports = { Instances, adapterModules };
