'use strict';
// A policy checked and converted once (lower.cjs): every step under it
// (evaluate, settle, decideWith, decide, resume) lowers only the state, the
// outcome and the reply, then makes ONE call into the current artifact.
const { plain } = require('./snapshot.cjs');
const lower = require('./lower.cjs');
const { call, callWithImports, STEP_PATHS } = require('./call.cjs');
const { artifact } = require('./artifact/current.cjs');
const { readClock, syncStore, checkPolicy } = require('./ops.cjs');
const { systemClock } = require('./clock.cjs');

const LOWERED = Symbol('lowered policy');

/** A document's class handed over by RetryPolicy (a revoked Proxy is not: the snapshot refuses it). */
function isLowered(policy) {
  try {
    return policy !== null && typeof policy === 'object' && Object.hasOwn(policy, LOWERED);
  } catch {
    return false;
  }
}

class CompiledPolicy {
  #p; // the policy in the component's shape
  #json;

  /** Check `policy` ({backoff, window_ms, hard_cap, budget}) and convert it once. */
  constructor(policy) {
    if (isLowered(policy)) {
      this.#p = policy[LOWERED]; // a document's class (RetryPolicy): checked by load-document
    } else {
      this.#p = lower.policy(plain(policy, 'policy'), 'policy');
      checkPolicy(this.#p);
    }
    this.#json = lower.policyOut(this.#p);
  }

  /** The policy in the contract's shape. */
  toJSON() {
    return this.#json;
  }

  /** Gates 1-5 and the one store request this attempt needs: `{decision, store}`. */
  evaluate(state, outcome, nowMs) {
    return this._evaluate(state, outcome, nowMs, false);
  }

  /** The decision once the store answered `reply`: `{decision, budget_disagreement}`. */
  settle(state, outcome, nowMs, reply) {
    return this._settle(state, outcome, nowMs, reply, false);
  }

  /** The format-1 pure decision with the counts read (`null`: store unreadable, fails closed). */
  decideWith(state, outcome, nowMs, budgetCounts) {
    return this._decideWith(state, outcome, nowMs, budgetCounts, false);
  }

  _decideWith(state, outcome, nowMs, budgetCounts, classed) {
    const s = lower.state(plain(state, 'state'), 'state', classed);
    const o = lower.outcome(plain(outcome, 'outcome'), 'outcome');
    const now = lower.u64(plain(nowMs, 'now_ms'), 'now_ms');
    if (budgetCounts === undefined) throw lower.fail('budget_counts', 'missing (pass null when the store could not be read)');
    const c = budgetCounts === null ? undefined : lower.counts(plain(budgetCounts, 'budget_counts'), 'budget_counts');
    const p = this.#p;
    return lower.decisionOut(call((api) => api.decideWith(p, s, o, now, c), artifact(), STEP_PATHS));
  }

  /** The imports-driven step: one call; the component reads `clock` and calls the synchronous `store` at most once. */
  decide(state, outcome, { store, clock = systemClock, onStoreError } = {}) {
    return this._decide(state, outcome, syncStore(store), clock, onStoreError, false);
  }

  /** An event reloaded from storage (`state.attempt` = attempts made): `{due: true}` or a stop. */
  resume(state, nowMs) {
    return this._resume(state, nowMs, false);
  }

  /** Nothing to release (kept for callers of the earlier API). */
  free() {}

  // Internal (RetryPolicy): `classed` states carry `class` and `policy_hash`;
  // `on`: the artifact a step began on.
  _evaluate(state, outcome, nowMs, classed, on) {
    const s = lower.state(plain(state, 'state'), 'state', classed);
    const o = lower.outcome(plain(outcome, 'outcome'), 'outcome');
    const now = lower.u64(plain(nowMs, 'now_ms'), 'now_ms');
    const p = this.#p;
    return lower.stepOut(call((api) => api.evaluate(p, s, o, now), on ?? artifact(), STEP_PATHS));
  }

  _settle(state, outcome, nowMs, reply, classed, on) {
    const s = lower.state(plain(state, 'state'), 'state', classed);
    const o = lower.outcome(plain(outcome, 'outcome'), 'outcome');
    const now = lower.u64(plain(nowMs, 'now_ms'), 'now_ms');
    const r = lower.reply(plain(reply, 'reply'), 'reply');
    const p = this.#p;
    return lower.settlementOut(call((api) => api.settle(p, s, o, now, r), on ?? artifact(), STEP_PATHS));
  }

  _decide(state, outcome, store, clock, onStoreError, classed) {
    const s = lower.state(plain(state, 'state'), 'state', classed);
    const o = lower.outcome(plain(outcome, 'outcome'), 'outcome');
    const now = readClock(clock);
    const p = this.#p;
    return lower.decisionOut(callWithImports(now, store, onStoreError, (api) => api.decide(p, s, o)));
  }

  _resume(state, nowMs, classed) {
    const s = lower.state(plain(state, 'state'), 'state', classed);
    const now = lower.u64(plain(nowMs, 'now_ms'), 'now_ms');
    const p = this.#p;
    return lower.resumptionOut(call((api) => api.resume(p, s, now), artifact(), STEP_PATHS));
  }
}

/** Check and convert a policy once, for many steps. */
function compilePolicy(policy) {
  return new CompiledPolicy(policy);
}

/** A CompiledPolicy of a policy already in the component's shape (a loaded document's class). */
function fromLowered(p) {
  return new CompiledPolicy({ [LOWERED]: p });
}

module.exports = { CompiledPolicy, compilePolicy, fromLowered };
