'use strict';
// A policy decoded and validated once, held by the wasm module: every step
// under it (evaluate, settle, decide, resume) is one wasm call with scalars
// in and out (lib/fast.cjs). Whatever the fast path cannot answer goes to
// the object path (serde-wasm-bindgen + the Rust codec), which answers or
// throws the PolicyError.
const { raw, outBuffer } = require('./native.cjs');
const { guarded } = require('./errors.cjs');
const { plain } = require('./snapshot.cjs');
const f = require('./fast.cjs');

const REFUSED = 128;
const EVALUATE = 0;
const SETTLE = 1;
const DECIDE = 2;
const RESUME = 3;
const { s } = f;

/** `state` without its `class` and `policy_hash` fields (a copy), for the object path. */
function unclassed(state, classed) {
  if (!classed || !f.isObject(state)) return state;
  const { class: _class, policy_hash: _hash, ...rest } = state;
  return rest;
}

class CompiledPolicy {
  #raw;

  /** Decode and validate `policy` ({backoff, window_ms, hard_cap, budget}). */
  constructor(policy) {
    this.#raw = policy instanceof raw.CompiledPolicy ? policy : guarded(() => new raw.CompiledPolicy(plain(policy, 'policy')));
  }

  /** The policy in the contract's shape. */
  toJSON() {
    return this.#raw.toValue();
  }

  /** Gates 1-5 and the one store request this attempt needs: `{decision, store}`. */
  evaluate(state, outcome, nowMs) {
    return this._evaluate(state, outcome, nowMs, false);
  }

  /** The decision once the store answered `reply`: `{decision, budget_disagreement}`. */
  settle(state, outcome, nowMs, reply) {
    return this._settle(state, outcome, nowMs, reply, false);
  }

  /** The format-1 decision with the counts read (`null`: store unreadable, fails closed). */
  decide(state, outcome, nowMs, budgetCounts) {
    return this._decide(state, outcome, nowMs, budgetCounts, false);
  }

  /** An event reloaded from storage (`state.attempt` = attempts made): `{due: true}` or a stop. */
  resume(state, nowMs) {
    return this._resume(state, nowMs, false);
  }

  /** Release the wasm-side policy now (otherwise the garbage collector does). */
  free() {
    this.#raw.free();
  }

  // Internal (RetryPolicy): `classed` states carry a `class` field that the
  // caller has already resolved to this policy.
  _evaluate(state, outcome, nowMs, classed) {
    if (f.readState(state, classed) && f.readOutcome(outcome)) {
      const code = this.#step(EVALUATE, nowMs);
      if (code !== REFUSED) {
        const out = outBuffer();
        return { decision: f.decisionOf(code, out, state), store: f.requestOf(code, out, state) };
      }
    }
    return this.#object('evaluate', { state: unclassed(state, classed), outcome, now_ms: nowMs });
  }

  _settle(state, outcome, nowMs, reply, classed) {
    if (f.readState(state, classed) && f.readOutcome(outcome) && f.readReply(reply)) {
      const code = this.#step(SETTLE, nowMs);
      if (code !== REFUSED) {
        return { decision: f.decisionOf(code, outBuffer(), state), budget_disagreement: (code & 64) !== 0 };
      }
    }
    return this.#object('settle', { state: unclassed(state, classed), outcome, now_ms: nowMs, reply });
  }

  _decide(state, outcome, nowMs, counts, classed) {
    if (f.readState(state, classed) && f.readOutcome(outcome) && f.readBudgetCounts(counts)) {
      const code = this.#step(DECIDE, nowMs);
      if (code !== REFUSED) return f.decisionOf(code, outBuffer(), state);
    }
    return this.#object('decide', { state: unclassed(state, classed), outcome, now_ms: nowMs, budget_counts: counts });
  }

  _resume(state, nowMs, classed) {
    if (f.readState(state, classed)) {
      s.status = 0;
      s.retryAfterMs = -1;
      s.errorKind = undefined;
      const code = this.#step(RESUME, nowMs);
      if (code !== REFUSED) return code === 0 ? { due: true } : f.decisionOf(code, outBuffer(), state);
    }
    return this.#object('resume', { state: unclassed(state, classed), now_ms: nowMs });
  }

  #step(mode, nowMs) {
    return this.#raw.step(
      mode,
      s.eventId,
      s.attempt,
      s.maxAttempts,
      s.firstMs,
      s.refreshed,
      s.status,
      s.retryAfterMs,
      s.errorKind,
      f.num(nowMs),
      s.reply,
      s.ct,
      s.cr,
      s.pt,
      s.pr,
    );
  }

  #object(op, input) {
    return guarded(() => this.#raw.run(op, plain(input, '', -1)));
  }
}

/** Decode and validate a policy once, for many steps. */
function compilePolicy(policy) {
  return new CompiledPolicy(policy);
}

module.exports = { CompiledPolicy, compilePolicy };
