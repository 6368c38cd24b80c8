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

/**
 * The object path's input, copied (snapshot.cjs), with `class` and
 * `policy_hash` taken off the state copy when `classed`: a state that cannot
 * be read is refused there, as a PolicyError like any other input.
 */
function snapshot(input, classed) {
  const data = plain(input, '', -1);
  if (classed && f.isObject(data.state) && !Array.isArray(data.state)) {
    const { class: _class, policy_hash: _hash, ...rest } = data.state;
    data.state = rest;
  }
  return data;
}

/** A policy the module compiled already (RetryPolicy's classes); `instanceof` runs a Proxy's trap. */
function isRaw(policy) {
  try {
    return policy instanceof raw.CompiledPolicy;
  } catch {
    return false; // the snapshot refuses it
  }
}

class CompiledPolicy {
  #raw;
  #windowMs; // the budget's window as the contract gives it (a bigint above 2^53-1)

  /** Decode and validate `policy` ({backoff, window_ms, hard_cap, budget}). */
  constructor(policy) {
    this.#raw = isRaw(policy) ? policy : guarded(() => new raw.CompiledPolicy(plain(policy, 'policy')));
    this.#windowMs = this.#raw.toValue().budget.window_ms;
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
  //
  // Each step reads its inputs once into its own scalar record (fast.cjs
  // acquire), makes one wasm call and builds its answer from that record and
  // the result buffer; no caller code runs between the call and the answer.
  // `undefined`: the fast path cannot answer, the object path will.
  _evaluate(state, outcome, nowMs, classed) {
    const r = f.acquire();
    let answer;
    if (f.readState(r, state, classed) && f.readOutcome(r, outcome)) {
      const code = this.#step(r, EVALUATE, nowMs);
      if (code !== REFUSED) {
        const out = outBuffer();
        answer = { decision: f.decisionOf(code, out, r), store: f.requestOf(code, out, r, this.#windowMs) };
      }
    }
    f.release(r);
    return answer ?? this.#object('evaluate', { state, outcome, now_ms: nowMs }, classed);
  }

  _settle(state, outcome, nowMs, reply, classed) {
    const r = f.acquire();
    let answer;
    if (f.readState(r, state, classed) && f.readOutcome(r, outcome) && f.readReply(r, reply)) {
      const code = this.#step(r, SETTLE, nowMs);
      if (code !== REFUSED) answer = { decision: f.decisionOf(code, outBuffer(), r), budget_disagreement: (code & 64) !== 0 };
    }
    f.release(r);
    return answer ?? this.#object('settle', { state, outcome, now_ms: nowMs, reply }, classed);
  }

  _decide(state, outcome, nowMs, counts, classed) {
    const r = f.acquire();
    const read = f.readState(r, state, classed) && f.readOutcome(r, outcome) && f.readBudgetCounts(r, counts);
    const code = read ? this.#step(r, DECIDE, nowMs) : REFUSED;
    const decision = code === REFUSED ? undefined : f.decisionOf(code, outBuffer(), r);
    f.release(r);
    return code === REFUSED ? this.#object('decide', { state, outcome, now_ms: nowMs, budget_counts: counts }, classed) : decision;
  }

  _resume(state, nowMs, classed) {
    const r = f.acquire();
    let answer;
    if (f.readState(r, state, classed)) {
      f.noOutcome(r);
      const code = this.#step(r, RESUME, nowMs);
      if (code !== REFUSED) answer = code === 0 ? { due: true } : f.decisionOf(code, outBuffer(), r);
    }
    f.release(r);
    return answer ?? this.#object('resume', { state, now_ms: nowMs }, classed);
  }

  #step(r, mode, nowMs) {
    return this.#raw.step(
      mode,
      r.eventId,
      r.attempt,
      r.maxAttempts,
      r.firstMs,
      r.refreshed,
      r.status,
      r.retryAfterMs,
      r.errorKind,
      f.num(nowMs),
      r.reply,
      r.ct,
      r.cr,
      r.pt,
      r.pr,
    );
  }

  #object(op, input, classed) {
    return guarded(() => this.#raw.run(op, snapshot(input, classed)));
  }
}

/** Decode and validate a policy once, for many steps. */
function compilePolicy(policy) {
  return new CompiledPolicy(policy);
}

module.exports = { CompiledPolicy, compilePolicy };
