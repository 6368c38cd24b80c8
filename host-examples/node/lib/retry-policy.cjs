'use strict';
// RetryPolicy: a policy document (named event classes) with a clock and a
// budget store, for dispatchers. The decisions are the Rust core's; this
// file only sequences the I/O around them:
//
//   afterAttempt(state, outcome):
//     1. gates 1-5 (success, terminal, attempts, window, delay past window)
//        at clock.nowMs(); if one fires, that is the decision (no store I/O);
//     2. otherwise the budget decides: store.reserve() when the store has it
//        (Redis: check + count in one atomic round trip), else store.read()
//        then, for a retry, store.recordAttempt(isRetry = true);
//     3. any store failure (throw, rejection, malformed counts) makes the
//        decision `budget_unavailable`: the budget FAILS CLOSED. There is
//        deliberately no fail-open switch (SPEC: a store outage must not
//        degrade to "always allow"); the dead letter's stop_reason tells an
//        operator which events to replay once the store is back.
const { raw } = require('./native.cjs');
const { PolicyError, guarded } = require('./errors.cjs');
const { plain } = require('./snapshot.cjs');
const { CompiledPolicy } = require('./compiled.cjs');
const { InMemoryBudgetStore, systemClock } = require('./stores.cjs');

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

class RetryPolicy {
  #doc;
  #classes = new Map(); // name -> {policy: CompiledPolicy, budget}
  #store;
  #clock;
  #onStoreError;

  /**
   * @param document a policy document (object) or its JSON text
   * @param options  {store, clock, onStoreError}: defaults are a process-local
   *   InMemoryBudgetStore, the system clock, and ignoring store errors (they
   *   still turn the decision into `budget_unavailable`).
   */
  constructor(document, options = {}) {
    const { store = new InMemoryBudgetStore(), clock = systemClock, onStoreError = () => {} } = options;
    if (!isObject(store) || typeof store.read !== 'function' || typeof store.recordAttempt !== 'function') {
      throw new TypeError('RetryPolicy: options.store must have read() and recordAttempt()');
    }
    if (!isObject(clock) || typeof clock.nowMs !== 'function') {
      throw new TypeError('RetryPolicy: options.clock must have nowMs()');
    }
    if (typeof onStoreError !== 'function') throw new TypeError('RetryPolicy: options.onStoreError must be a function');
    this.#doc = loadDocument(document);
    this.#store = store;
    this.#clock = clock;
    this.#onStoreError = onStoreError;
  }

  /** The document's version label. */
  get version() {
    return this.#doc.version;
  }

  /** The event class names, in document order. */
  get classes() {
    return this.#doc.classes;
  }

  get store() {
    return this.#store;
  }

  get clock() {
    return this.#clock;
  }

  /** The schedule a new event of `eventClass` is admitted under (persist it with the event). */
  admit(eventClass, nowMs = this.#clock.nowMs()) {
    return guarded(() => this.#doc.admit(plain(eventClass, 'class'), plain(nowMs, 'now_ms')));
  }

  /** The class's policy, compiled (throws `unknown_event_class`). */
  policy(eventClass) {
    return this.#entry(eventClass, 'class').policy;
  }

  /** The pure decision for a state carrying its `class` (see `decide`). */
  decide(state, outcome, nowMs, budgetCounts) {
    return this.#policyFor(state)._decide(state, outcome, nowMs, budgetCounts, true);
  }

  /** Gates 1-5 for a state carrying its `class` (see CompiledPolicy#evaluate). */
  evaluate(state, outcome, nowMs) {
    return this.#policyFor(state)._evaluate(state, outcome, nowMs, true);
  }

  /**
   * Count a first attempt to `endpointId` (call it when sending attempt 1;
   * retries are counted by afterAttempt). Resolves false, after reporting
   * to onStoreError, when the store failed: a first attempt is never
   * blocked by the budget store.
   */
  async recordFirstAttempt(eventClass, endpointId) {
    const { policy } = this.#entry(eventClass, 'class');
    const nowMs = this.#clock.nowMs();
    const { window_ms: windowMs, bucket } = policy.budgetBucket(nowMs);
    try {
      await this.#store.recordAttempt(endpointId, windowMs, bucket, false);
      return true;
    } catch (e) {
      this.#report(e, 'recordAttempt', endpointId);
      return false;
    }
  }

  /**
   * The decision after an attempt, at clock.nowMs(), reading the store only
   * when every other gate allows a retry, and counting the retry it
   * schedules (do not count it again when sending it).
   */
  async afterAttempt(state, outcome) {
    const policy = this.#policyFor(state);
    const nowMs = this.#clock.nowMs();
    const step = policy._evaluate(state, outcome, nowMs, true);
    if (step.decision !== undefined) return step.decision;
    const { window_ms: windowMs, bucket } = step.needs_budget;
    const endpointId = state.endpoint_id;
    const store = this.#store;
    const closed = () => policy._decide(state, outcome, nowMs, null, true);

    if (typeof store.reserve === 'function') {
      let reply;
      try {
        reply = await store.reserve(endpointId, windowMs, bucket, nowMs, this.#entry(state.class).budget);
      } catch (e) {
        this.#report(e, 'reserve', endpointId);
        return closed();
      }
      const decision = this.#decideWith(policy, state, outcome, nowMs, isObject(reply) ? reply.counts : undefined, 'reserve');
      const reserved = isObject(reply) && reply.reserved === true;
      if ((decision.retry !== undefined) !== reserved) {
        this.#report(new Error(`store reserve answered reserved=${reserved}, the policy decided ${decision.stop_reason ?? 'retry'}`), 'reserve', endpointId);
        return decision.retry !== undefined ? closed() : decision;
      }
      return decision;
    }

    let counts;
    try {
      counts = await store.read(endpointId, windowMs, bucket);
    } catch (e) {
      this.#report(e, 'read', endpointId);
      return closed();
    }
    const decision = this.#decideWith(policy, state, outcome, nowMs, counts, 'read');
    if (decision.retry === undefined) return decision;
    try {
      await store.recordAttempt(endpointId, windowMs, bucket, true);
    } catch (e) {
      this.#report(e, 'recordAttempt', endpointId);
      return closed();
    }
    return decision;
  }

  /** Decide with the store's counts; malformed counts are a store failure. */
  #decideWith(policy, state, outcome, nowMs, counts, operation) {
    try {
      return policy._decide(state, outcome, nowMs, counts === null ? undefined : counts, true);
    } catch (e) {
      if (!(e instanceof PolicyError && e.field.startsWith('budget_counts'))) throw e;
      this.#report(e, operation, state.endpoint_id);
      return policy._decide(state, outcome, nowMs, null, true);
    }
  }

  #report(error, operation, endpointId) {
    try {
      this.#onStoreError(error, { operation, endpointId });
    } catch {
      // A failing error hook must not change the decision.
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
      entry = { policy, budget: policy.toJSON().budget };
      this.#classes.set(eventClass, entry);
    }
    return entry;
  }

  #policyFor(state) {
    if (!isObject(state)) throw new PolicyError('invalid_input', 'state', 'expected an object');
    return this.#entry(state.class).policy;
  }
}

module.exports = { RetryPolicy };
