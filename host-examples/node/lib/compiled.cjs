'use strict';
// A policy checked and converted once (lower.cjs), and compiled into the
// component (ABI 0.3 `compile`): a u32 handle per instance (lib/handles.cjs).
//   * The compiled step (advance, finish) and format 3's calls (gate,
//     afterProbe, settleWake, callFor, admit) name the handle: each lowers
//     only the state, the outcome, the time and the reply, ONE call each.
//   * The 0.2 steps (evaluate, settle, decideWith, decide, resume) pass the
//     lowered policy record, ONE call each, as before.
// The handles are released by close() (also `using`, Symbol.dispose, and
// free()); a policy collected without a close has them released by a
// FinalizationRegistry, at a time the garbage collector picks.
const { plain } = require('./snapshot.cjs');
const lower = require('./lower.cjs');
const shapes = require('./health-shapes.cjs');
const { call, callWithImports, STEP_PATHS } = require('./call.cjs');
const { artifact } = require('./artifact/current.cjs');
const { readClock, syncStore, checkPolicy } = require('./ops.cjs');
const { systemClock } = require('./clock.cjs');
const { Handles, finalizer } = require('./handles.cjs');

const LOWERED = Symbol('lowered policy');
const HEALTH = Symbol('lowered health section');
const NO_OPTIONS = Object.freeze({});
const stateArg = (state, classed) => lower.state(plain(state, 'state'), 'state', classed);
const outcomeArg = (outcome) => lower.outcome(plain(outcome, 'outcome'), 'outcome');
const nowArg = (nowMs) => lower.u64(plain(nowMs, 'now_ms'), 'now_ms');

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
  #h; // its health section in the component's shape, or undefined (format 2)
  #json;
  #handles;

  /**
   * Check `policy` ({backoff, window_ms, hard_cap, budget}) and, if given,
   * `options.health` (a section with every field: {hold_budget_refusals,
   * pause_max_ms, circuit, release, cache_ms}) and convert them once. The
   * component handle is compiled on the first compiled call (advance,
   * gate, ...), or here when a section is given (a refused one throws).
   */
  constructor(policy, options = NO_OPTIONS) {
    if (isLowered(policy)) {
      this.#p = policy[LOWERED]; // a document's class: checked by load-document
      this.#h = policy[HEALTH];
    } else {
      this.#p = lower.policy(plain(policy, 'policy'), 'policy');
      checkPolicy(this.#p);
      const h = plain(options?.health ?? null, 'health');
      this.#h = h === null ? undefined : shapes.health(h, 'health');
    }
    this.#json = lower.policyOut(this.#p);
    this.#handles = new Handles(this.#p, this.#h);
    finalizer.register(this, this.#handles, this.#handles);
    // Compiled on the first compiled call (the 0.2 methods never hold a
    // handle); a section is compiled now, so a refused one throws here.
    const handles = this.#handles;
    if (this.#h !== undefined && !isLowered(policy)) call((api) => handles.on(api), artifact(), STEP_PATHS);
  }

  /** The policy in the contract's shape. */
  toJSON() {
    return this.#json;
  }

  /** The health section (format 3), or null. */
  get health() {
    return this.#h === undefined ? null : shapes.healthOut(this.#h);
  }

  /** close() was called: the compiled calls are refused (the 0.2 steps still run). */
  get closed() {
    return this.#handles.released;
  }

  /**
   * After an attempt: `{action: 'decided', decision, call}` (ONE call in all;
   * make `call`, if any, without waiting on it) or `{action: 'needs_store',
   * ...storeCall}` (make the call, then `finish` with its reply).
   * `options.probe`: the attempt was sent as a granted probe (format 3).
   */
  advance(state, outcome, nowMs, { probe = false } = NO_OPTIONS) {
    const s = stateArg(state, false);
    const o = outcomeArg(outcome);
    const now = nowArg(nowMs);
    return shapes.advanceOut(this._advance(s, o, now, probe === true));
  }

  /** The verdict once the store answered `advance`'s call: `{verdict: {action: retry|hold|stop, ...}, budget_disagreement}`. */
  finish(state, outcome, nowMs, reply) {
    const s = stateArg(state, false);
    const o = outcomeArg(outcome);
    const now = nowArg(nowMs);
    return shapes.finishedOut(this._finish(s, o, now, lower.reply(plain(reply, 'reply'), 'reply')));
  }

  /** The gate before a send: `{verdict: send|send_probe|probe|hold|stop, pacer}` (`view`: null when none is cached). */
  gate(event, view, pacer, nowMs) {
    const e = shapes.gateEvent(plain(event, 'event'), 'event');
    const v = view == null ? undefined : shapes.view(plain(view, 'view'), 'view');
    const p = shapes.pacer(plain(pacer, 'pacer'), 'pacer');
    const now = nowArg(nowMs);
    return shapes.gateAnswerOut(this.#run((api, h) => api.gate(h, e, v, p, now)));
  }

  /** The gate once the `probe` call answered (`granted`, and the reply's view). */
  afterProbe(event, granted, view, pacer, nowMs) {
    const e = shapes.gateEvent(plain(event, 'event'), 'event');
    const g = plain(granted, 'granted');
    if (typeof g !== 'boolean') throw lower.fail('granted', 'expected a boolean');
    const v = shapes.view(plain(view, 'view'), 'view');
    const p = shapes.pacer(plain(pacer, 'pacer'), 'pacer');
    const now = nowArg(nowMs);
    return shapes.gateAnswerOut(this.#run((api, h) => api.afterProbe(h, e, g, v, p, now)));
  }

  /** A budget-held retry's wake once its `reserve` answered: `{action: send|hold|stop, ...}`. */
  settleWake(wake, reply, nowMs) {
    const w = shapes.wake(plain(wake, 'wake'), 'wake');
    const r = lower.reply(plain(reply, 'reply'), 'reply');
    const now = nowArg(nowMs);
    return shapes.wakeVerdictOut(this.#run((api, h) => api.settleWake(h, w, r, now)));
  }

  /** A store call not tied to an attempt: `reserve` (a wake) or `probe` (the gate asked). */
  callFor(op, endpointId, nowMs) {
    const o = shapes.callOp(plain(op, 'op'), 'op');
    const e = lower.str(plain(endpointId, 'endpoint_id'), 'endpoint_id');
    const now = nowArg(nowMs);
    return shapes.storeCallOut(this.#run((api, h) => api.callFor(h, o, e, now)));
  }

  /** The admission of a new event (`admit-compiled`: the hash covers the health section). */
  admit(eventClass, policyVersion, nowMs) {
    const c = lower.str(plain(eventClass, 'class'), 'class');
    const v = lower.str(plain(policyVersion, 'policy_version'), 'policy_version');
    const now = nowArg(nowMs);
    return lower.admissionOut(this.#run((api, h) => api.admitCompiled(h, c, v, now)));
  }

  /** Discard the component handles now (idempotent); later compiled calls are refused. */
  close() {
    finalizer.unregister(this.#handles);
    this.#handles.release();
  }

  /** `using p = compilePolicy(...)`: close() at the end of the block. */
  [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
    this.close();
  }

  #run(f, on) {
    const handles = this.#handles;
    return call((api) => f(api, handles.on(api)), on ?? artifact(), STEP_PATHS);
  }

  // Internal (RetryPolicy.step): lowered arguments in, jco's values out.
  _advance(s, o, now, probe, on) {
    return this.#run((api, h) => api.advance(h, s, o, probe, now), on);
  }

  _finish(s, o, now, r, on) {
    return this.#run((api, h) => api.finish(h, s, o, now, r), on);
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

  /** close() (the earlier API's name). */
  free() {
    this.close();
  }

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

/** Check, convert and compile a policy (and its `options.health` section) once, for many steps. */
function compilePolicy(policy, options) {
  return new CompiledPolicy(policy, options);
}

/** A CompiledPolicy of a policy (and section) already in the component's shape (a loaded document's class). */
function fromLowered(p, health) {
  return new CompiledPolicy({ [LOWERED]: p, [HEALTH]: health });
}

module.exports = { CompiledPolicy, compilePolicy, fromLowered };
