'use strict';
// RetryPolicy: a policy document (named event classes) with a clock and a
// budget store, for dispatchers. The decisions are the Rust core's; this
// file only moves the one store call of each attempt:
//
//   afterAttempt(state, outcome):
//     1. evaluate at clock.nowMs(): `{decision, store}`;
//     2. at most ONE store call, `store.apply(request)` (Redis: one EVALSHA),
//        bounded by `storeTimeoutMs` (default 250 ms); a throw, rejection or
//        timeout is the reply `{unavailable: true}`;
//     3. a decided attempt keeps its decision whatever the store said (a
//        first attempt's failed `record` never stops it); otherwise settle
//        turns the reply into the decision: unavailable fails closed
//        (`budget_unavailable`; deliberately no fail-open switch), and the
//        store's verdict stands when it differs from the rule on the counts
//        it reports (`budget_disagreement`, counted and reported).
const { raw } = require('./native.cjs');
const { PolicyError, guarded } = require('./errors.cjs');
const { plain } = require('./snapshot.cjs');
const { CompiledPolicy } = require('./compiled.cjs');
const { retryAfter } = require('./ops.cjs');
const { InMemoryBudgetStore, systemClock, withTimeout, StoreTimeoutError } = require('./stores.cjs');

const UNAVAILABLE = Object.freeze({ unavailable: true });
// Compiled classes of earlier documents kept for events admitted under them
// (keyed by class and policy_hash); the oldest are dropped beyond this.
const MAX_KEPT_POLICIES = 256;

function isObject(v) {
  return typeof v === 'object' && v !== null;
}

function loadDocument(document) {
  if (typeof document === 'string') return guarded(() => new raw.Document(document));
  try {
    return guarded(() => new raw.Document(plain(document)));
  } catch (e) {
    // A document that is not data at all is a malformed document.
    if (e instanceof PolicyError && e.code === 'invalid_input') throw new PolicyError('invalid_document', e.field, e.detail);
    throw e;
  }
}

function option(options, name, check, fallback) {
  const v = options[name];
  if (v === undefined) return fallback;
  if (!check(v)) throw new TypeError(`RetryPolicy: options.${name} is not valid`);
  return v;
}

class RetryPolicy {
  #doc;
  #classes = new Map(); // name -> {policy: CompiledPolicy, budget, hash} of the current document
  #byHash = new Map(); // `${class}\n${policy_hash}` -> the same, for every document admitted under (bounded)
  #hashMisses = 0;
  #store;
  #clock;
  #timeoutMs;
  #onStoreError;
  #onDisagreement;
  #disagreements = 0;

  /**
   * @param document a policy document (object) or its JSON text
   * @param options  {store, clock, storeTimeoutMs, onStoreError, onBudgetDisagreement}
   */
  constructor(document, options = {}) {
    this.#store = option(options, 'store', (s) => isObject(s) && typeof s.apply === 'function', null) ?? new InMemoryBudgetStore();
    this.#clock = option(options, 'clock', (c) => isObject(c) && typeof c.nowMs === 'function', systemClock);
    this.#timeoutMs = option(options, 'storeTimeoutMs', (t) => Number.isFinite(t) && t > 0, 250);
    this.#onStoreError = option(options, 'onStoreError', (f) => typeof f === 'function', () => {});
    this.#onDisagreement = option(options, 'onBudgetDisagreement', (f) => typeof f === 'function', () => {});
    this.#doc = loadDocument(document);
  }

  get version() {
    return this.#doc.version;
  }

  get classes() {
    return this.#doc.classes;
  }

  get store() {
    return this.#store;
  }

  get clock() {
    return this.#clock;
  }

  get budgetDisagreements() {
    return this.#disagreements;
  }

  /** States whose policy_hash named no document this process knows (judged by the current one). */
  get policyHashMisses() {
    return this.#hashMisses;
  }

  /**
   * Swap in a new document without a restart. It is validated first: a bad
   * one keeps the current document and is reported, never thrown:
   * `{ok: false, error}` (a PolicyError with code and field). On success,
   * `{ok: true, version, previousVersion}`: new events are admitted under
   * the new document, while a state carrying the `policy_hash` it was
   * admitted under keeps that document's schedule, backoff and budget.
   */
  reload(document) {
    let doc;
    try {
      doc = loadDocument(document);
    } catch (e) {
      if (e instanceof PolicyError) return { ok: false, error: e };
      return { ok: false, error: new PolicyError('invalid_document', '', String(e?.message ?? e)) };
    }
    const previousVersion = this.#doc.version;
    this.#doc = doc;
    this.#classes = new Map();
    return { ok: true, version: doc.version, previousVersion };
  }

  /** The schedule a new event of `eventClass` is admitted under (persist it with the event, policy_hash included). */
  admit(eventClass, nowMs = this.#clock.nowMs()) {
    const admission = guarded(() => this.#doc.admit(plain({ class: eventClass, now_ms: nowMs })));
    this.#entry(eventClass, 'class'); // compiled and kept under its hash for a later reload
    return admission;
  }

  /** The class's policy, compiled (throws `unknown_event_class`). */
  policy(eventClass) {
    return this.#entry(eventClass, 'class').policy;
  }

  evaluate(state, outcome, nowMs) {
    return this.#policyFor(state)._evaluate(state, outcome, nowMs, true);
  }

  settle(state, outcome, nowMs, reply) {
    return this.#policyFor(state)._settle(state, outcome, nowMs, reply, true);
  }

  decide(state, outcome, nowMs, budgetCounts) {
    return this.#policyFor(state)._decide(state, outcome, nowMs, budgetCounts, true);
  }

  /** An event reloaded from storage: `{due: true}` or the stop it has reached. */
  resume(state, nowMs = this.#clock.nowMs()) {
    return this.#policyFor(state)._resume(state, nowMs, true);
  }

  /** A Retry-After header value in ms from `nowMs`, or null (the core's parser). */
  retryAfter(header, nowMs = this.#clock.nowMs()) {
    return retryAfter(header, nowMs);
  }

  /** The decision after an attempt: evaluate, at most one store call, settle. */
  async afterAttempt(state, outcome) {
    const entry = isObject(state) ? this.#entryFor(state) : this.#entry(undefined);
    const nowMs = this.#clock.nowMs();
    const step = entry.policy._evaluate(state, outcome, nowMs, true);
    if (step.store === null) return step.decision;
    const reply = await this.#call(step.store, entry.budget, nowMs);
    if (step.decision !== null) return step.decision;
    let settled;
    try {
      settled = entry.policy._settle(state, outcome, nowMs, reply, true);
    } catch (e) {
      // The inputs were good (evaluate took them): the store's answer was not.
      if (!(e instanceof PolicyError && e.field.startsWith('reply'))) throw e;
      this.#report(e, step.store, false);
      settled = entry.policy._settle(state, outcome, nowMs, UNAVAILABLE, true);
    }
    if (settled.budget_disagreement) {
      this.#disagreements += 1;
      try {
        this.#onDisagreement({ request: step.store, reply, decision: settled.decision });
      } catch {
        // A failing hook must not change the decision.
      }
    }
    return settled.decision;
  }

  /** The store's reply to `request`, or UNAVAILABLE when it throws, rejects or times out. */
  async #call(request, budget, nowMs) {
    try {
      const answer = this.#store.apply(request, budget, nowMs);
      return typeof answer?.then === 'function' ? await withTimeout(answer, this.#timeoutMs) : answer;
    } catch (e) {
      this.#report(e, request, e instanceof StoreTimeoutError);
      return UNAVAILABLE;
    }
  }

  #report(error, request, timedOut) {
    try {
      this.#onStoreError(error, { operation: request.op, endpointId: request.endpoint_id, timedOut });
    } catch {
      // A failing hook must not change the decision.
    }
  }

  #entry(eventClass, field = 'state.class') {
    if (typeof eventClass !== 'string') {
      throw new PolicyError('invalid_input', field, eventClass == null ? 'missing field' : 'expected a string');
    }
    let entry = this.#classes.get(eventClass);
    if (entry === undefined) {
      let compiled;
      try {
        compiled = guarded(() => this.#doc.compile(eventClass));
      } catch (e) {
        if (e instanceof PolicyError) throw new PolicyError(e.code, field, e.detail);
        throw e;
      }
      const policy = new CompiledPolicy(compiled);
      const hash = this.#doc.admit(plain({ class: eventClass, now_ms: 0 })).policy_hash;
      entry = { policy, budget: Object.freeze(policy.toJSON().budget), hash };
      this.#classes.set(eventClass, entry);
      const key = `${eventClass}\n${hash}`;
      this.#byHash.delete(key);
      this.#byHash.set(key, entry);
      if (this.#byHash.size > MAX_KEPT_POLICIES) this.#byHash.delete(this.#byHash.keys().next().value);
    }
    return entry;
  }

  /** The policy a state was admitted under (its policy_hash), else the current document's. */
  #entryFor(state) {
    // each read once; a getter or Proxy trap that throws is refused as invalid_input
    let at = 'state.policy_hash';
    let hash;
    let eventClass;
    try {
      hash = state.policy_hash;
      at = 'state.class';
      eventClass = state.class;
    } catch (e) {
      throw new PolicyError('invalid_input', at, `reading it threw: ${e && e.message}`);
    }
    if (hash === undefined || hash === null) return this.#entry(eventClass);
    if (typeof hash !== 'string') throw new PolicyError('invalid_input', 'state.policy_hash', 'expected a string');
    const kept = typeof eventClass === 'string' ? this.#byHash.get(`${eventClass}\n${hash}`) : undefined;
    if (kept !== undefined) return kept;
    const current = this.#entry(eventClass);
    if (current.hash !== hash) this.#hashMisses += 1;
    return current;
  }

  #policyFor(state) {
    if (!isObject(state)) throw new PolicyError('invalid_input', 'state', 'expected an object');
    return this.#entryFor(state).policy;
  }
}

module.exports = { RetryPolicy };
