'use strict';
// RetryPolicy: a policy document (named event classes) with a clock and a
// budget store, for dispatchers. The decisions are the component's; this
// file only moves the one store call of each attempt, two ways: `decide`
// (ONE call into the component, which reads the clock and calls a
// synchronous store through its imports) and `step` (evaluate, at most ONE
// store call, sync or async, bounded by `storeTimeoutMs`, then settle; a
// store that throws, rejects or times out is `{unavailable: true}`: the
// budget fails closed). A step runs on the artifact it began on, even
// across a swap. Without a document, the policy follows the artifact's
// embedded document (`retry-policy bundle`) across swaps.
const { PolicyError } = require('./errors.cjs');
const { callHook } = require('./hook.cjs');
const lower = require('./lower.cjs');
const read = require('./read-step.cjs');
const { retryAfter, readClock, evaluateLowered, settleLowered } = require('./ops.cjs');
const { callWithImports } = require('./call.cjs');
const { loadDocument, admit, classPolicy } = require('./document.cjs');
const { artifact } = require('./artifact/current.cjs');
const { InMemoryBudgetStore, withTimeout, StoreTimeoutError } = require('./stores.cjs');
const { systemClock } = require('./clock.cjs');

const UNAVAILABLE = Object.freeze({ unavailable: true });
// Classes of earlier documents kept for events admitted under them
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
      + 'RetryPolicy runs format 2: run it with the delivery engine (DeliveryEngine, docs/engine.md)',
  );
}

function embeddedDocument() {
  const a = artifact();
  if (a.healthDocument === null) {
    throw new PolicyError('invalid_document', '', `no document given, and the artifact (sha256 ${a.info.sha256}) embeds none`);
  }
  if (a.hasHealth) throw formatThree(a);
  return a;
}

class RetryPolicy {
  #doc;
  #follows = null; // the artifact whose embedded document this follows, or null (a document was given)
  #classes = new Map(); // name -> {policy (the component's shape), budget (the contract's), hash} of the current document
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

  /** `document`: an object or its JSON text; omitted (undefined or null): the artifact's embedded document. */
  constructor(document, options = {}) {
    this.#store = option(options, 'store', (s) => isObject(s) && typeof s.call === 'function', null) ?? new InMemoryBudgetStore();
    this.#clock = option(options, 'clock', (c) => isObject(c) && typeof c.nowMs === 'function', systemClock);
    this.#timeoutMs = option(options, 'storeTimeoutMs', (t) => Number.isFinite(t) && t > 0, 250);
    this.#onStoreError = option(options, 'onStoreError', (f) => typeof f === 'function', () => {});
    this.#onDisagreement = option(options, 'onBudgetDisagreement', (f) => typeof f === 'function', () => {});
    if (document == null) {
      this.#follows = embeddedDocument();
      this.#doc = this.#follows.healthDocument;
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

  /** Swaps whose embedded document had health sections (format 3): this kept its document (a DeliveryEngine runs them). */
  get skippedHealthDocuments() {
    return this.#skipped;
  }

  /** States whose policy_hash named no document this process knows (judged by the current one). */
  get policyHashMisses() {
    return this.#hashMisses;
  }

  /**
   * Validate, then swap in a new document (README "Reload without restart");
   * a bad one is `{ok: false, error}`, never thrown. A document given here
   * pins it: the artifact's embedded one no longer applies.
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
        else if (a.healthDocument !== null) this.#use(a.healthDocument);
      }
    }
    return this.#doc;
  }

  /** The schedule a new event of `eventClass` is admitted under (persist it with the event, policy_hash included). */
  admit(eventClass, nowMs = this.#clock.nowMs()) {
    const admission = admit(this.#current(), eventClass, nowMs);
    this.#entry(eventClass, 'class'); // kept under its hash for a later reload
    return admission;
  }

  /** The class's policy in the contract's shape (throws `unknown_event_class`). */
  policy(eventClass) {
    return this.#entry(eventClass, 'class').json;
  }

  /** Gates 1-5 and the one store request this attempt needs: `{decision, store}`. */
  evaluate(state, outcome, nowMs) {
    return lower.stepOut(evaluateLowered(this.#args(state, outcome), nowMs));
  }

  /** The decision once the store answered `reply`: `{decision, budget_disagreement}`. */
  settle(state, outcome, nowMs, reply) {
    return lower.settlementOut(settleLowered(this.#args(state, outcome), nowMs, reply));
  }

  /** The whole step in ONE call into the component, through its clock and (synchronous) store imports. */
  decide(state, outcome) {
    const [p, s, o] = this.#args(state, outcome);
    const now = readClock(this.#clock);
    return lower.decisionOut(callWithImports(now, this.#store, this.#reportStoreError, (api) => api.decide(p, s, o)));
  }

  /** A Retry-After header value in ms from `nowMs`, or null (the component's parser). */
  retryAfter(header, nowMs = this.#clock.nowMs()) {
    return retryAfter(header, nowMs);
  }

  /** The decision after an attempt: evaluate, at most one store call (sync or async), settle. */
  async step(input, outcome) {
    const on = artifact(); // the whole step runs on this artifact, even if a swap lands meanwhile
    const args = this.#args(input, outcome);
    const entry = args[3];
    const nowMs = this.#clock.nowMs();
    const step = evaluateLowered(args, nowMs, on);
    const request = step.store === undefined ? null : lower.requestOut(step.store);
    if (step.decision !== undefined) {
      if (request !== null) await this.#call(request, entry.budget, nowMs);
      return lower.decisionOut(step.decision);
    }
    const reply = await this.#call(request, entry.budget, nowMs);
    let settled;
    try {
      settled = settleLowered(args, nowMs, reply, on);
    } catch (e) {
      // The inputs were good (evaluate took them): the store's answer was not.
      if (!(e instanceof PolicyError && e.field.startsWith('reply'))) throw e;
      this.#report(e, request, false);
      settled = settleLowered(args, nowMs, UNAVAILABLE, on);
    }
    const decision = lower.decisionOut(settled.decision);
    if (settled.budgetDisagreement) {
      this.#disagreements += 1;
      callHook(this.#onDisagreement, { request, reply, decision });
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
    callHook(this.#onStoreError, error, { operation: request.op, endpointId: request.endpoint_id, timedOut });
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
      const out = lower.policyOut(p);
      const json = Object.freeze({ ...out, backoff: Object.freeze(out.backoff), budget: Object.freeze(out.budget) });
      const hash = admit(doc, eventClass, 0).policy_hash;
      entry = { policy: p, json, budget: json.budget, hash };
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
    const { policy_hash: hash, class: eventClass } = state; // what #args read (a plain copy): reading runs no caller code
    if (hash === undefined || hash === null) return this.#entry(eventClass);
    if (typeof hash !== 'string') throw new PolicyError('invalid_input', 'state.policy_hash', 'expected a string');
    const kept = typeof eventClass === 'string' ? this.#byHash.get(`${eventClass}\n${hash}`) : undefined;
    if (kept !== undefined) return kept;
    const current = this.#entry(eventClass);
    if (current.hash !== hash) this.#hashMisses += 1;
    return current;
  }

  /**
   * The step's arguments lowered, and the entry of the policy the state was
   * admitted under: `[policy, state, outcome, entry]`. The state is read
   * once (read-step.cjs; else copied once, snapshot.cjs): `class` and
   * `policy_hash` are taken from what was read, and the same values are
   * lowered, so each field of the caller's object is read exactly once.
   */
  #args(state, outcome) {
    if (!isObject(state)) throw new PolicyError('invalid_input', 'state', 'expected an object');
    const { snap, lowered } = read.classedState(state, 'state');
    const entry = this.#entryFor(snap);
    return [entry.policy, lowered ?? lower.state(snap, 'state', true), read.outcome(outcome, 'outcome'), entry];
  }
}

module.exports = { RetryPolicy };
