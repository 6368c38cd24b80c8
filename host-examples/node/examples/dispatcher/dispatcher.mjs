// A webhook dispatcher on @webhook/retry-policy: admit each event under its
// class, POST it (http-client.mjs: bounded deadline, header and body caps,
// no redirects, checked destinations; signed when a signer is given), ask the policy after every attempt (the policy
// makes the attempt's one budget-store call: a first attempt's record and
// the retry's reservation are ONE call), sleep the delay it returns, and
// dead-letter with its stop reason. An event reloaded from storage goes
// through `resume` first. The only policy here is the package's; this file
// is I/O and bookkeeping.
import { setMaxListeners } from 'node:events';
import { responseOutcome, errorOutcome } from './outcome.mjs';
import { post, createAgent, NotSentError, DEFAULT_ATTEMPT_DEADLINE_MS } from './http-client.mjs';
import { safeTarget } from './redact.mjs';
import { TRANSPORT_KINDS as K } from '@webhook/retry-policy';
import { JournalError } from './journal.mjs';
import { admittedRecord, recordBody, stoppedRecord, asV2 } from './journal-record.mjs';
import { HealthPolicy, bare } from './health-policy.mjs';
import { EndpointTable } from './endpoint-table.mjs';
import { runHealth } from './health-loop.mjs';

/**
 * Real sleeping; tests use a virtual scheduler that moves a ManualClock
 * instead. `signal` (an AbortSignal) ends the sleep early: a drain.
 */
export const realScheduler = {
  sleep: (ms, signal) => new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  }),
};

/**
 * What `deliver`/`resume` resolve to for an event a drain left unfinished:
 * no stop reason, `attempts` made so far (its journal resumes it).
 */
export const pendingResult = (attempts) => ({ stop_reason: null, pending: true, attempts });

export class Dispatcher {
  #policy;
  #metrics;
  #scheduler;
  #deadlineMs;
  #allowPrivate;
  #agents;
  #signer;
  #journal;
  #admittedPolicy;
  #onJournalError;
  #policies = new Set(); // every RetryPolicy deciding here: the current one and those resumed events were admitted under
  #drain = new AbortController();
  #health = null; // a HealthPolicy (format 3 document): every event runs health-loop.mjs
  #table = new EndpointTable(); // per endpoint: view, pacer, admissions (format 3)
  /** Dead-letter records, each {...dead_letter, class, target, disable_endpoint, error_kind?} (target: no query, no userinfo). */
  deadLetters = [];
  /** Endpoints a 410 Gone disabled. */
  disabledEndpoints = new Set();

  /**
   * @param {import('@webhook/retry-policy').RetryPolicy} policy
   * @param {{metrics: import('./metrics.mjs').Metrics, scheduler?: {sleep(ms: number): Promise<void>},
   *   attemptDeadlineMs?: number, allowPrivateTargets?: boolean, signer?: import('./signer.mjs').Signer}} options
   *   attemptDeadlineMs: the total deadline of one attempt (default 30 s);
   *   allowPrivateTargets: deliver to loopback/private/link-local targets too (local development only);
   *   signer: signs every attempt (Standard Webhooks) and reloads secrets on refresh_credentials;
   *   journal: a Journal (journal.mjs, format 2): each event's record is on disk when it is admitted
   *     (before its first attempt), after each retry decision (before the wait) and when it stops
   *     (before the dead letter is reported); a failed write goes to onJournalError and the run goes on;
   *   admittedPolicy: (record) -> the RetryPolicy of a journaled record's own `policy` (resumeRecord);
   *   ca: PEM CAs trusted for https:// targets in addition to the platform's roots (trust.mjs).
   */
  constructor(policy, { metrics, scheduler = realScheduler, attemptDeadlineMs = DEFAULT_ATTEMPT_DEADLINE_MS, allowPrivateTargets = false, signer = null, journal = null, admittedPolicy = null, onJournalError = null, ca = [] }) {
    this.#journal = journal;
    this.#admittedPolicy = admittedPolicy;
    this.#onJournalError = onJournalError ?? ((e) => process.stderr.write(`dispatcher: ${e.message}\n`));
    this.#policies.add(policy);
    if (policy instanceof HealthPolicy) this.#health = policy;
    setMaxListeners(0, this.#drain.signal); // every event waiting for a retry listens for the drain
    this.#policy = policy;
    this.#metrics = metrics;
    this.#scheduler = scheduler;
    this.#deadlineMs = attemptDeadlineMs;
    this.#allowPrivate = allowPrivateTargets === true;
    this.#agents = { http: createAgent({ allowPrivate: this.#allowPrivate }), https: createAgent({ allowPrivate: this.#allowPrivate, https: true, ca }) };
    this.#signer = signer;
    // The library counts store verdicts that differ from the policy's rule.
    metrics.observe('webhook_budget_disagreements_total', () => this.budgetDisagreements);
  }

  /**
   * Deliver one new event `{id, class, endpoint_id, url, body}` to the end.
   * Resolves to the final decision.
   */
  async deliver(event) {
    if (this.#health !== null) return this.#deliverHealth(event);
    const policy = this.#policy;
    const admission = policy.admit(event.class);
    // What a real dispatcher persists with the event (and reloads after a restart).
    const state = {
      class: event.class,
      event_id: event.id,
      endpoint_id: event.endpoint_id,
      attempt: 0,
      max_attempts: admission.max_attempts,
      first_attempted_at_ms: admission.first_attempted_at_ms,
      credentials_refreshed: false,
      policy_hash: admission.policy_hash, // keeps this policy across a reload
    };
    let rec = null;
    if (this.#journal !== null) {
      rec = admittedRecord(event, admission, policy.policy(event.class).toJSON(), admission.first_attempted_at_ms, bodyOf(event));
      await this.#persist(rec); // on disk before the first attempt
    }
    return this.#run(event, state, policy, rec);
  }

  /**
   * Continue a journaled event (journal format 1 or 2), admitted here or by any
   * other dispatcher: decided under its own recorded `policy` (admittedPolicy),
   * never the current document; waits for its next_attempt_at_ms (a drain
   * ends the wait: pendingResult), then `resume` says whether it may be
   * attempted again. Its payload is `body_b64` when recorded.
   */
  async resumeRecord(record) {
    if (this.#health !== null) return this.#resumeHealth(record);
    if (this.#admittedPolicy === null) throw new TypeError('Dispatcher: resumeRecord needs the admittedPolicy option');
    const rec = asV2(structuredClone(record)); // written back as format 2
    const policy = this.#admittedPolicy(rec);
    this.#policies.add(policy);
    const event = { id: rec.event_id, class: rec.class, endpoint_id: rec.endpoint_id, url: rec.target, payload: recordBody(rec), body: { event_id: rec.event_id, class: rec.class } };
    const state = {
      class: rec.class,
      event_id: rec.event_id,
      endpoint_id: rec.endpoint_id,
      attempt: rec.attempts,
      max_attempts: rec.max_attempts,
      first_attempted_at_ms: rec.first_attempted_at_ms,
      credentials_refreshed: rec.credentials_refreshed,
      policy_hash: rec.policy_hash,
    };
    const waitMs = rec.next_attempt_at_ms - policy.clock.nowMs();
    if (waitMs > 0 && !this.draining) await this.#scheduler.sleep(waitMs, this.#drain.signal);
    if (this.draining) return pendingResult(state.attempt);
    const r = policy.resume(state);
    if (r.due !== true) return this.#finish(event, r, null, rec);
    return this.#run(event, state, policy, rec);
  }

  /** A new event under a format-3 document: admitted (admit-compiled), journaled, counted for the pacer, then the send loop. */
  async #deliverHealth(event) {
    const policy = this.#health;
    const compiled = policy.compiled(event.class);
    const admission = policy.admit(event.class);
    const rec = admittedRecord(event, admission, compiled.toJSON(), admission.first_attempted_at_ms, bodyOf(event), compiled.health);
    await this.#persist(rec); // on disk before the first attempt
    if (compiled.health !== null) this.#table.countAdmission(event.endpoint_id, compiled.toJSON().budget, admission.first_attempted_at_ms);
    const state = { event_id: event.id, endpoint_id: event.endpoint_id, attempt: 0, max_attempts: admission.max_attempts, first_attempted_at_ms: admission.first_attempted_at_ms, credentials_refreshed: false };
    return runHealth(this.#healthHost(), { event, state, compiled, rec });
  }

  /**
   * A journaled event (pending or held, journal format 1 or 2) under a
   * format-3 document: its own recorded policy; `resume` first (a stop is
   * its dead letter, held_ms counting the span up to now), then it waits
   * until its held_until_ms (held) or next_attempt_at_ms, then the send loop.
   */
  async #resumeHealth(record) {
    const policy = this.#health;
    const rec = asV2(structuredClone(record));
    const compiled = policy.admittedPolicy(rec);
    const event = { id: rec.event_id, class: rec.class, endpoint_id: rec.endpoint_id, url: rec.target, payload: recordBody(rec), body: { event_id: rec.event_id, class: rec.class } };
    const state = { event_id: rec.event_id, endpoint_id: rec.endpoint_id, attempt: rec.attempts, max_attempts: rec.max_attempts, first_attempted_at_ms: rec.first_attempted_at_ms, credentials_refreshed: rec.credentials_refreshed };
    const nowMs = policy.clock.nowMs();
    const r = compiled.resume(bare(state), nowMs);
    if (r.due !== true) {
      const heldMs = rec.held_ms + (rec.status === 'held' ? Math.max(0, nowMs - rec.held_since_ms) : 0);
      rec.held_ms = heldMs;
      return this.#finish(event, r, null, rec, heldMs);
    }
    const dueAtMs = rec.status === 'held' ? rec.held_until_ms : rec.next_attempt_at_ms;
    return runHealth(this.#healthHost(), { event, state, compiled, rec, dueAtMs });
  }

  /** What health-loop.mjs moves values through. */
  #healthHost() {
    const d = this;
    return {
      policy: this.#health,
      table: this.#table,
      metrics: this.#metrics,
      persist: (rec) => this.#persist(rec),
      sleep: (ms) => this.#scheduler.sleep(ms, this.#drain.signal),
      get draining() {
        return d.draining;
      },
      attempt: (event, state, step, rec) => this.#attempt(event, state, step, rec),
      finish: (event, decision, outcome, rec, heldMs) => this.#finish(event, decision, outcome, rec, heldMs),
      refresh: async (endpointId) => {
        if (this.#signer !== null) await this.#signer.refresh(endpointId);
      },
    };
  }

  /** Budget-store verdicts that differed from the rule, over every policy deciding here. */
  get budgetDisagreements() {
    let n = 0;
    for (const p of this.#policies) n += p.budgetDisagreements;
    return n;
  }

  /** Journal `rec` (resolves once on disk); a failed write is reported and the run goes on (the journal stays whole). */
  async #persist(rec) {
    if (this.#journal === null) return; // --resume without --store: nothing journaled here
    try {
      await this.#journal.append(rec);
    } catch (e) {
      if (!(e instanceof JournalError)) throw e;
      this.#onJournalError(e, rec);
    }
  }

  /**
   * Continue an event reloaded from storage: `state` as persisted, its
   * `attempt` the number of attempts already made. The policy's `resume`
   * says whether it may be attempted again.
   */
  async resume(event, state) {
    const r = this.#policy.resume(state);
    if (r.due !== true) return this.#finish(event, r);
    return this.#run(event, { ...state }, this.#policy, null);
  }

  /**
   * Drain (docs/replica.md): start no new attempt from now on; an event
   * waiting for a retry stops waiting and resolves pendingResult; attempts
   * in progress finish and are settled by the policy as usual.
   */
  drain() {
    this.#drain.abort();
  }

  get draining() {
    return this.#drain.signal.aborted;
  }

  /** Close idle keep-alive connections (and cut any still in use). */
  close() {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  async #run(event, state, policy, rec) {
    for (;;) {
      if (this.draining) return pendingResult(state.attempt); // no new attempt during a drain
      const closed = this.#closed(policy, state, state.attempt); // the window's edge, before connecting
      if (closed !== null) return this.#finish(event, closed, null, rec);
      state.attempt += 1;
      const outcome = await this.#attempt(event, state, policy, rec);
      if (outcome.notSent) return this.#finish(event, outcome.decision, null, rec); // the window closed before the request was written
      const decision = await policy.step(state, outcome);
      if (decision.stop_reason !== null) return this.#finish(event, decision, outcome, rec);
      if (rec !== null) {
        // the retry is scheduled once its record is on disk
        rec.attempts = state.attempt;
        rec.last_outcome = outcomeText(outcome);
        rec.credentials_refreshed ||= decision.retry.refresh_credentials;
        rec.next_attempt_at_ms = policy.clock.nowMs() + decision.retry.delay_ms;
        await this.#persist(rec);
      }
      if (this.draining) return pendingResult(state.attempt);
      await this.#scheduler.sleep(decision.retry.delay_ms, this.#drain.signal);
      if (this.draining) return pendingResult(state.attempt);
      if (decision.retry.refresh_credentials && this.#signer !== null) await this.#signer.refresh(event.endpoint_id);
      state.credentials_refreshed ||= decision.retry.refresh_credentials;
    }
  }

  /**
   * The window's edge (docs/replica.md): the stop the policy gives this
   * event now if it may not be attempted any more (its window is over),
   * else null. `made`: attempts already made.
   */
  #closed(policy, state, made) {
    const r = policy.resume({ ...state, attempt: made });
    return r.due === true ? null : r;
  }

  async #finish(event, decision, outcome = null, rec = null, heldMs = 0) {
    if (rec !== null) {
      const attempts = rec.attempts + (outcome === null ? 0 : 1); // an outcome: the attempt that stopped it
      Object.assign(rec, stoppedRecord(decision, attempts, outcome === null ? rec.last_outcome : outcomeText(outcome), Date.now(), safeTarget(rec.target)));
      await this.#persist(rec); // on disk before the dead letter is reported
    }
    if (decision.stop_reason === 'delivered') {
      this.#metrics.inc('webhook_delivered_total');
    } else {
      this.#metrics.inc('webhook_deadletter_total', { stop_reason: decision.stop_reason });
      const record = { ...decision.dead_letter, class: event.class, target: safeTarget(event.url), disable_endpoint: decision.disable_endpoint };
      if (heldMs > 0) record.held_ms = heldMs; // a held event's dead letter (format 3)
      if (outcome?.error_kind !== undefined) record.error_kind = outcome.error_kind;
      this.deadLetters.push(record);
      if (decision.disable_endpoint) this.disabledEndpoints.add(event.endpoint_id);
    }
    return decision;
  }

  /**
   * Attempts in progress: `count()` -> {rec, attempt, policy} (the count is
   * taken when the request is written or the attempt ends, whichever is first).
   */
  #open = new Map();

  /**
   * The drain's deadline passed: every attempt still in progress is
   * abandoned and counted as made; a journaled event's record says so
   * (attempts made, no response in time: read_timeout, due now; its line is
   * written before this returns: Journal.close() syncs it). Returns how many there were.
   */
  abandon() {
    const n = this.#open.size;
    for (const [count, { rec, attempt, policy }] of this.#open) {
      count();
      if (rec !== null) this.#persist({ ...rec, attempts: attempt, last_outcome: K.READ_TIMEOUT, next_attempt_at_ms: policy.clock.nowMs() });
    }
    this.#open.clear();
    return n;
  }

  async #attempt(event, state, policy, rec) {
    const attempt = state.attempt;
    const body = bodyOf(event);
    let counted = false;
    const count = () => {
      if (!counted) this.#metrics.inc('webhook_attempts_total', { kind: attempt === 1 ? 'first' : 'retry' });
      counted = true;
    };
    this.#open.set(count, { rec, attempt, policy });
    // The window's edge: checked again immediately before the request is
    // written (after the wait, the store call, DNS, connect and handshake).
    let closed = null;
    const mayWrite = () => {
      closed = this.#closed(policy, state, attempt - 1);
      if (closed === null) count();
      return closed === null;
    };
    let outcome;
    try {
      const headers = {
        'content-type': 'application/json',
        'webhook-id': event.id,
        'x-event-id': event.id,
        'x-attempt': String(attempt),
      };
      if (this.#signer !== null) Object.assign(headers, await this.#signer.headers(event.endpoint_id, event.id, body));
      this.#metrics.inFlight(1);
      let res;
      try {
        res = await post(event.url, {
          headers,
          body,
          deadlineMs: this.#deadlineMs,
          allowPrivate: this.#allowPrivate,
          agents: this.#agents,
          mayWrite,
          observe: (seconds) => this.#metrics.time('webhook_delivery_duration_seconds', seconds),
        });
      } finally {
        this.#metrics.inFlight(-1);
      }
      outcome = responseOutcome(res, (header) => policy.retryAfter(header));
      if (outcome.status === 410) this.#metrics.inc('webhook_endpoint_disable_signals_total');
    } catch (err) {
      if (err instanceof NotSentError) {
        this.#open.delete(count); // not sent: not an attempt made
        return { notSent: true, decision: closed };
      }
      outcome = errorOutcome(err);
    }
    count();
    this.#open.delete(count);
    if (outcome.error_kind !== undefined) this.#metrics.inc('webhook_transport_errors_total', { kind: outcome.error_kind });
    return outcome;
  }
}

/** The payload of an event: its journaled bytes, else its `body` as JSON. */
const bodyOf = (event) => event.payload ?? JSON.stringify(event.body ?? {});

/** A journal record's `last_outcome`: the status code ("503") or the transport kind. */
const outcomeText = (outcome) => (outcome.error_kind !== undefined ? outcome.error_kind : String(outcome.status));

/** Sleeps by advancing a ManualClock: a whole retry window passes in milliseconds. */
export function virtualScheduler(clock) {
  const slept = [];
  return {
    slept,
    sleep: async (ms) => {
      slept.push(ms);
      clock.advance(ms);
    },
  };
}
