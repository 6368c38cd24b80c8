'use strict';
// RetryPolicy: a policy document (named event classes) with a clock and a
// budget store, for dispatchers. The decisions are the component's; this
// file only moves the one store call of each attempt, two ways:
//
//   decide(state, outcome): ONE call into the component, which reads the
//     clock and calls the (synchronous) store through its imports;
//   step(state, outcome), for async stores (Redis), on the class's
//   compiled handle (ABI 0.3: one component call when `advance` decides,
//   two when the store answers):
//     1. advance at clock.nowMs(): `decided {decision, call}` or
//        `needs-store(call)`;
//     2. at most ONE store call, `store.call(request, budget, nowMs)` (Redis:
//        one EVALSHA), bounded by `storeTimeoutMs` (default 250 ms); a
//        throw, rejection or timeout is the reply `{unavailable: true}`.
//        The store call maps 1:1 onto the store request of 0.2 (op,
//        endpoint_id, window_ms = budget.window_ms, bucket), so every
//        BudgetStore keeps working unchanged;
//     3. a decided attempt keeps its decision whatever the store said (its
//        `record` is still awaited, as before); otherwise finish turns the
//        reply into the decision: unavailable fails closed
//        (`budget_unavailable`), and the store's verdict stands when it
//        differs from the rule on the counts it reports
//        (`budget_disagreement`, counted and reported).
//   The step runs on the artifact it began on, even across a swap (a
//   handle is compiled per instance: lib/handles.cjs).
//
// Without a document, the policy follows the artifact's embedded document
// (`retry-policy bundle`), reloading it when a swap brings another.
const { PolicyError } = require('./errors.cjs');
const { plain } = require('./snapshot.cjs');
const lower = require('./lower.cjs');
const { CompiledPolicy, fromLowered } = require('./compiled.cjs');
const { retryAfter } = require('./ops.cjs');
const { loadDocument, admit, classPolicy } = require('./document.cjs');
const { artifact } = require('./artifact/current.cjs');
const { InMemoryBudgetStore, systemClock, withTimeout, StoreTimeoutError } = require('./stores.cjs');

const UNAVAILABLE = Object.freeze({ unavailable: true });
// Compiled classes of earlier documents kept for events admitted under them
// (keyed by class and policy_hash); the oldest are dropped beyond this.
const MAX_KEPT_POLICIES = 256;

function isObject(v) {
  return typeof v === 'object' && v !== null;
}

function option(options, name, check, fallback) {
  const v = options[name];
  if (v === undefined) return fallback;
  if (!check(v)) throw new TypeError(`RetryPolicy: options.${name} is not valid`);
  return v;
}

/** An embedded format-3 document is not run as format 2: its health sections must not be dropped in silence. */
function formatThree(a) {
  const c = a.healthDocument.classes.find((k) => k.health !== undefined);
  return new PolicyError(
    'invalid_document',
    `classes.${c.name}.health`,
    `the artifact's embedded document (version ${a.info.document_version}) has health sections (format 3); `
      + 'RetryPolicy runs format 2: run it with the health send loop (HealthPolicy given no document, docs/health-dispatch.md)',
  );
}

function embeddedDocument() {
  const a = artifact();
  if (a.document === null) {
    throw new PolicyError('invalid_document', '', `no document given, and the artifact (sha256 ${a.info.sha256}) embeds none`);
  }
  if (a.hasHealth) throw formatThree(a);
  return a;
}

class RetryPolicy {
  #doc;
  #follows = null; // the artifact whose embedded document this follows, or null (a document was given)
  #classes = new Map(); // name -> {policy: CompiledPolicy, budget, hash} of the current document
  #byHash = new Map(); // `${class}\n${policy_hash}` -> the same, for every document admitted under (bounded)
  #hashMisses = 0;
  #store;
  #clock;
  #timeoutMs;
  #onStoreError;
  #onDisagreement;
  #disagreements = 0;
  #skipped = 0;
  #reportStoreError = (e, request) => this.#report(e, request, false);

  /**
   * @param document a policy document (object) or its JSON text; omitted
   *   (undefined or null): the artifact's embedded document
   * @param options  {store, clock, storeTimeoutMs, onStoreError, onBudgetDisagreement}
   */
  constructor(document, options = {}) {
    this.#store = option(options, 'store', (s) => isObject(s) && typeof s.call === 'function', null) ?? new InMemoryBudgetStore();
    this.#clock = option(options, 'clock', (c) => isObject(c) && typeof c.nowMs === 'function', systemClock);
    this.#timeoutMs = option(options, 'storeTimeoutMs', (t) => Number.isFinite(t) && t > 0, 250);
    this.#onStoreError = option(options, 'onStoreError', (f) => typeof f === 'function', () => {});
    this.#onDisagreement = option(options, 'onBudgetDisagreement', (f) => typeof f === 'function', () => {});
    if (document == null) {
      this.#follows = embeddedDocument();
      this.#doc = this.#follows.document;
    } else {
      this.#doc = loadDocument(document);
    }
  }

  get version() {
    return this.#current().version;
  }

  /** The class names, in document order. */
  get classes() {
    return this.#current().classes.map((c) => c.name);
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

  /** Swaps whose embedded document had health sections (format 3): this kept its document (a HealthPolicy runs them). */
  get skippedHealthDocuments() {
    return this.#skipped;
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
   * A document given here pins it: the artifact's embedded one no longer applies.
   */
  reload(document) {
    let doc;
    try {
      doc = loadDocument(document);
    } catch (e) {
      if (e instanceof PolicyError) return { ok: false, error: e };
      return { ok: false, error: new PolicyError('invalid_document', '', String(e?.message ?? e)) };
    }
    const previousVersion = this.#current().version;
    this.#follows = null;
    this.#use(doc);
    return { ok: true, version: doc.version, previousVersion };
  }

  #use(doc) {
    this.#doc = doc;
    this.#classes = new Map();
  }

  /** The current document: the artifact's, when this follows it and a swap brought another. */
  #current() {
    if (this.#follows !== null) {
      const a = artifact();
      if (a !== this.#follows) {
        this.#follows = a;
        if (a.hasHealth) this.#skipped += 1;
        else if (a.document !== null && a.documentText !== null) this.#use(a.document);
      }
    }
    return this.#doc;
  }

  /** The schedule a new event of `eventClass` is admitted under (persist it with the event, policy_hash included). */
  admit(eventClass, nowMs = this.#clock.nowMs()) {
    const admission = admit(this.#current(), eventClass, nowMs);
    this.#entry(eventClass, 'class'); // compiled and kept under its hash for a later reload
    return admission;
  }

  /** The class's policy, compiled (throws `unknown_event_class`). */
  policy(eventClass) {
    return this.#entry(eventClass, 'class').policy;
  }

  evaluate(state, outcome, nowMs) {
    const snap = snapshot(state);
    return this.#policyFor(snap)._evaluate(snap, outcome, nowMs, true);
  }

  settle(state, outcome, nowMs, reply) {
    const snap = snapshot(state);
    return this.#policyFor(snap)._settle(snap, outcome, nowMs, reply, true);
  }

  /** The format-1 pure decision at `nowMs` on the counts read (`null`: store unreadable). */
  decideWith(state, outcome, nowMs, budgetCounts) {
    const snap = snapshot(state);
    return this.#policyFor(snap)._decideWith(snap, outcome, nowMs, budgetCounts, true);
  }

  /**
   * The whole step in ONE call into the component: it reads this policy's
   * clock and calls its store once, through the component's imports. The
   * store must answer synchronously (InMemoryBudgetStore does); a store that
   * throws or answers a Promise is `budget_unavailable` for a pending retry.
   */
  decide(state, outcome) {
    const snap = snapshot(state);
    return this.#policyFor(snap)._decide(snap, outcome, this.#store, this.#clock, this.#reportStoreError, true);
  }

  /** An event reloaded from storage: `{due: true}` or the stop it has reached. */
  resume(state, nowMs = this.#clock.nowMs()) {
    const snap = snapshot(state);
    return this.#policyFor(snap)._resume(snap, nowMs, true);
  }

  /** A Retry-After header value in ms from `nowMs`, or null (the component's parser). */
  retryAfter(header, nowMs = this.#clock.nowMs()) {
    return retryAfter(header, nowMs);
  }

  /** The decision after an attempt: advance, at most one store call (sync or async), finish. */
  async step(input, outcome) {
    const state = snapshot(input);
    const entry = isObject(state) ? this.#entryFor(state) : this.#entry(undefined);
    const on = artifact(); // the whole step runs on this artifact, even if a swap lands meanwhile
    const nowMs = this.#clock.nowMs();
    const s = lower.state(state, 'state', true);
    const o = lower.outcome(plain(outcome, 'outcome'), 'outcome');
    const now = lower.u64(plain(nowMs, 'now_ms'), 'now_ms');
    const r = entry.policy._advance(s, o, now, false, on);
    if (r.tag === 'decided') {
      if (r.val.call !== undefined) await this.#call(requestOf(r.val.call), entry.budget, nowMs);
      return lower.decisionOut(r.val.decision);
    }
    const request = requestOf(r.val);
    const reply = await this.#call(request, entry.budget, nowMs);
    let finished;
    try {
      finished = entry.policy._finish(s, o, now, lower.reply(plain(reply, 'reply'), 'reply'), on);
    } catch (e) {
      // The inputs were good (advance took them): the store's answer was not.
      if (!(e instanceof PolicyError && e.field.startsWith('reply'))) throw e;
      this.#report(e, request, false);
      finished = entry.policy._finish(s, o, now, { tag: 'unavailable' }, on);
    }
    const decision = decisionOf(finished.verdict);
    if (finished.budgetDisagreement) {
      this.#disagreements += 1;
      try {
        this.#onDisagreement({ request, reply, decision });
      } catch {
        // A failing hook must not change the decision.
      }
    }
    return decision;
  }

  /** The store's reply to `request`, or UNAVAILABLE when it throws, rejects or times out. */
  async #call(request, budget, nowMs) {
    try {
      const answer = this.#store.call(request, budget, nowMs);
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
    const doc = this.#current();
    let entry = this.#classes.get(eventClass);
    if (entry === undefined) {
      const p = classPolicy(doc, eventClass);
      if (p === undefined) {
        const names = doc.classes.map((c) => c.name).join(', ');
        throw new PolicyError('unknown_event_class', field, `no event class \`${eventClass}\` (defined: ${names})`);
      }
      const policy = fromLowered(p);
      const hash = admit(doc, eventClass, 0).policy_hash;
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

/** A format-2 store call as 0.2's store request (what every BudgetStore answers). */
function requestOf(c) {
  if (c.op !== 'record' && c.op !== 'reserve' && c.op !== 'record-reserve') {
    throw new PolicyError('invalid_input', 'call.op', `a ${c.op} call needs a format-3 store (this policy has no health section)`);
  }
  return { op: lower.snake(c.op), endpoint_id: c.endpointId, window_ms: lower.n(c.budget.windowMs), bucket: lower.n(c.bucket) };
}

/** A format-2 verdict (retry or stop) as the contract's decision. */
function decisionOf(v) {
  if (v.tag === 'hold') throw new PolicyError('invalid_input', 'verdict', 'a hold needs a health section (format 3)');
  return lower.decisionOut(v);
}

/**
 * The state copied once (snapshot.cjs): RetryPolicy reads `class` and
 * `policy_hash` from the copy, and the step lowers the same copy, so each
 * field of the caller's object is read exactly once. A value that is not
 * an object stays as it is (refused at `state`).
 */
function snapshot(state) {
  return isObject(state) ? plain(state, 'state') : state;
}

module.exports = { RetryPolicy };
