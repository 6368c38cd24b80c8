// A policy document with format-3 `health` sections for the dispatcher
// (docs/health-dispatch.md): loaded with `load-health-document` (which reads
// format 2 too), each class compiled once (a handle), admitted with
// `admit-compiled`; journaled records compiled from their own `policy`
// (health included). Its store answers whole store calls (`answer`),
// bounded by the store timeout; a failed or late call is null (the caller
// reads it as unavailable). Nothing here decides.
import { compileDocument, loadHealthDocument, embeddedDocument, artifactInfo, retryAfter, PolicyError } from '@webhook/retry-policy';

/** A store call that did not answer within the store timeout. */
class StoreTimeoutError extends Error {
  constructor(ms) {
    super(`budget store did not answer within ${ms} ms`);
    this.name = 'StoreTimeoutError';
  }
}
import { hashDocument } from './journal-record.mjs';

const MAX_ADMITTED_DOCUMENTS = 256;

/** Whether a document (object or JSON text) has a class with a `health` section (a PolicyError when it is refused). */
export function hasHealth(document) {
  return loadHealthDocument(document).classes.some((c) => c.health !== null);
}

function withTimeout(promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The artifact's embedded document text (docs/artifact.md step 6), or a PolicyError when it embeds none. */
function embeddedText() {
  const e = embeddedDocument();
  if (e === null) {
    const { sha256 } = artifactInfo();
    throw new PolicyError('invalid_document', '', `no document given, and the artifact (sha256 ${sha256}) embeds none`);
  }
  return e.text;
}

export class HealthPolicy {
  #doc;
  #follows = null; // the info of the artifact whose embedded document this follows, or null (a document was given)
  #store;
  #timeoutMs;
  #onStoreError;
  #admitted = new Map(); // one-class document text -> compiled document (journaled records)
  /** The clock every decision reads ({nowMs()}). */
  clock;
  /** Store replies whose verdict differed from the rule (the store's stands). */
  budgetDisagreements = 0;

  /**
   * @param document a policy document (object or JSON text), format 2 or 3;
   *   omitted (undefined or null): the artifact's embedded document (its
   *   health sections included), followed across artifact swaps: new events
   *   are admitted under the new artifact's document, events in flight keep
   *   the class they began on, journaled ones their own `policy`
   * @param options {store (with answer(call, nowMs); none: admission and replay only), clock, storeTimeoutMs, onStoreError(e, {operation, endpointId, timedOut})}
   */
  constructor(document, { store = null, clock, storeTimeoutMs = 250, onStoreError = () => {} }) {
    if (store !== null && typeof store?.answer !== 'function') throw new TypeError('HealthPolicy: the store must answer whole store calls (answer(call, nowMs))');
    if (document == null) {
      this.#follows = artifactInfo();
      this.#doc = compileDocument(embeddedText());
    } else {
      this.#doc = compileDocument(document);
    }
    this.#store = store;
    this.clock = clock;
    this.#timeoutMs = storeTimeoutMs;
    this.#onStoreError = onStoreError;
  }

  /** Whether this follows the artifact's embedded document (it was given none). */
  get followsArtifact() {
    return this.#follows !== null;
  }

  get version() {
    return this.#current().version ?? null;
  }

  get classes() {
    return [...this.#current().classes.keys()];
  }

  /**
   * The current document: the artifact's, when this follows it and a swap
   * brought another (an artifact that embeds none keeps the one followed).
   * The replaced document is not closed (an event in flight may still run
   * on its classes): its handles go with it (FinalizationRegistry).
   */
  #current() {
    if (this.#follows !== null) {
      const info = artifactInfo(); // one frozen object per loaded artifact
      if (info !== this.#follows) {
        this.#follows = info;
        const e = embeddedDocument();
        if (e !== null) this.#doc = compileDocument(e.text);
      }
    }
    return this.#doc;
  }

  /** The class's CompiledPolicy (throws `unknown_event_class`). */
  compiled(eventClass) {
    const p = this.#current().classes.get(eventClass);
    if (p === undefined) throw new PolicyError('unknown_event_class', 'class', `no event class \`${eventClass}\` (defined: ${this.classes.join(', ')})`);
    return p;
  }

  /** A new event's admission (`admit-compiled` on the class's handle). */
  admit(eventClass, nowMs = this.clock.nowMs()) {
    const compiled = this.compiled(eventClass);
    return compiled.admit(eventClass, this.#doc.version ?? '', nowMs);
  }

  /** The CompiledPolicy of a journaled record's own `policy` (its `health` included), one per distinct document. */
  admittedPolicy(rec) {
    const text = hashDocument(rec);
    let doc = this.#admitted.get(text);
    if (doc === undefined) {
      doc = compileDocument(text);
      this.#admitted.set(text, doc);
      // Bounded; an evicted document is not closed (an event may still run on it): its handles go with it (FinalizationRegistry).
      if (this.#admitted.size > MAX_ADMITTED_DOCUMENTS) this.#admitted.delete(this.#admitted.keys().next().value);
    }
    return doc.classes.get(rec.class);
  }

  /** What the policy of every step exposes to the dispatcher's attempt: its clock, `retryAfter` and `resume`. */
  stepView(compiled) {
    const clock = this.clock;
    return {
      clock,
      retryAfter: (header) => retryAfter(header, clock.nowMs()),
      resume: (state) => compiled.resume(bare(state), clock.nowMs()),
    };
  }

  /** A store call's reply `{reservation, granted, view}`, or null when it failed or timed out (reported). */
  async call(storeCall, nowMs) {
    try {
      if (this.#store === null) throw new TypeError('HealthPolicy: no store given');
      const answer = this.#store.answer(storeCall, nowMs);
      return typeof answer?.then === 'function' ? await withTimeout(answer, this.#timeoutMs) : answer;
    } catch (e) {
      try {
        this.#onStoreError(e, { operation: storeCall.op, endpointId: storeCall.endpoint_id, timedOut: e instanceof StoreTimeoutError });
      } catch {
        // a failing hook changes nothing
      }
      return null;
    }
  }

  close() {
    this.#doc.close();
    for (const d of this.#admitted.values()) d.close();
    this.#admitted.clear();
  }
}

/** A delivery state as the compiled calls take it (no class, no policy_hash). */
export const bare = (s) => ({
  event_id: s.event_id,
  endpoint_id: s.endpoint_id,
  attempt: s.attempt,
  max_attempts: s.max_attempts,
  first_attempted_at_ms: s.first_attempted_at_ms,
  credentials_refreshed: s.credentials_refreshed,
});
