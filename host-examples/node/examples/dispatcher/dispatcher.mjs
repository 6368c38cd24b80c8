// A webhook dispatcher on @webhook/retry-policy: admit each event under its
// class, POST it with fetch, ask the policy after every attempt (the policy
// makes the attempt's one budget-store call: a first attempt's record and
// the retry's reservation are ONE call), sleep the delay it returns, and
// dead-letter with its stop reason. An event reloaded from storage goes
// through `resume` first. The only policy here is the package's; this file
// is I/O and bookkeeping.
import { responseOutcome, errorOutcome } from './outcome.mjs';

/** Real sleeping; tests use a virtual scheduler that moves a ManualClock instead. */
export const realScheduler = { sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

export class Dispatcher {
  #policy;
  #metrics;
  #scheduler;
  #timeoutMs;
  /** Dead-letter records, each {...dead_letter, class, url, disable_endpoint}. */
  deadLetters = [];
  /** Endpoints a 410 Gone disabled. */
  disabledEndpoints = new Set();

  /**
   * @param {import('@webhook/retry-policy').RetryPolicy} policy
   * @param {{metrics: import('./metrics.mjs').Metrics, scheduler?: {sleep(ms: number): Promise<void>}, timeoutMs?: number}} options
   */
  constructor(policy, { metrics, scheduler = realScheduler, timeoutMs = 10_000 }) {
    this.#policy = policy;
    this.#metrics = metrics;
    this.#scheduler = scheduler;
    this.#timeoutMs = timeoutMs;
    // The library counts store verdicts that differ from the policy's rule.
    metrics.observe('webhook_budget_disagreements_total', () => policy.budgetDisagreements);
  }

  /**
   * Deliver one new event `{id, class, endpoint_id, url, body}` to the end.
   * Resolves to the final decision.
   */
  async deliver(event) {
    const admission = this.#policy.admit(event.class);
    // What a real dispatcher persists with the event (and reloads after a restart).
    const state = {
      class: event.class,
      event_id: event.id,
      endpoint_id: event.endpoint_id,
      attempt: 0,
      max_attempts: admission.max_attempts,
      first_attempted_at_ms: admission.first_attempted_at_ms,
      credentials_refreshed: false,
    };
    return this.#run(event, state);
  }

  /**
   * Continue an event reloaded from storage: `state` as persisted, its
   * `attempt` the number of attempts already made. The policy's `resume`
   * says whether it may be attempted again.
   */
  async resume(event, state) {
    const r = this.#policy.resume(state);
    if (r.due !== true) return this.#finish(event, r);
    return this.#run(event, { ...state });
  }

  async #run(event, state) {
    for (;;) {
      state.attempt += 1;
      const outcome = await this.#attempt(event);
      const decision = await this.#policy.afterAttempt(state, outcome);
      if (decision.stop_reason !== null) return this.#finish(event, decision);
      await this.#scheduler.sleep(decision.retry.delay_ms);
      state.credentials_refreshed ||= decision.retry.refresh_credentials;
    }
  }

  #finish(event, decision) {
    if (decision.stop_reason === 'delivered') {
      this.#metrics.inc('webhook_delivered_total');
    } else {
      this.#metrics.inc('webhook_deadletter_total', { stop_reason: decision.stop_reason });
      this.deadLetters.push({ ...decision.dead_letter, class: event.class, url: event.url, disable_endpoint: decision.disable_endpoint });
      if (decision.disable_endpoint) this.disabledEndpoints.add(event.endpoint_id);
    }
    return decision;
  }

  async #attempt(event) {
    this.#metrics.inc('webhook_attempts_total');
    try {
      const res = await fetch(event.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': event.id },
        body: JSON.stringify(event.body ?? {}),
        // A redirect is the endpoint's answer, never followed (3xx: terminal).
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      await res.arrayBuffer();
      return responseOutcome(res, (header) => this.#policy.retryAfter(header));
    } catch (err) {
      return errorOutcome(err);
    }
  }
}

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
