// A webhook dispatcher on @webhook/retry-policy: admit each event under its
// class, POST it with fetch, ask the policy after every attempt, sleep the
// delay it returns, and dead-letter with its stop reason. The only policy
// here is the package's; this file is I/O and bookkeeping.
import { RetryPolicy } from '@webhook/retry-policy';
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
   * @param {RetryPolicy} policy
   * @param {{metrics: import('./metrics.mjs').Metrics, scheduler?: {sleep(ms: number): Promise<void>}, timeoutMs?: number}} options
   */
  constructor(policy, { metrics, scheduler = realScheduler, timeoutMs = 10_000 }) {
    this.#policy = policy;
    this.#metrics = metrics;
    this.#scheduler = scheduler;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Deliver one event `{id, class, endpoint_id, url, body}` to the end.
   * Resolves to the final decision.
   */
  async deliver(event) {
    const admission = this.#policy.admit(event.class);
    // What a real dispatcher persists with the event (and reloads after a restart).
    const state = {
      class: event.class,
      event_id: event.id,
      endpoint_id: event.endpoint_id,
      attempt: 1,
      max_attempts: admission.max_attempts,
      first_attempted_at_ms: admission.first_attempted_at_ms,
      credentials_refreshed: false,
    };
    await this.#policy.recordFirstAttempt(event.class, event.endpoint_id);
    for (;;) {
      const outcome = await this.#attempt(event);
      const decision = await this.#policy.afterAttempt(state, outcome);
      if (decision.stop_reason === null) {
        await this.#scheduler.sleep(decision.retry.delay_ms);
        state.attempt += 1;
        state.credentials_refreshed ||= decision.retry.refresh_credentials;
        continue;
      }
      if (decision.stop_reason === 'delivered') {
        this.#metrics.inc('webhook_delivered_total');
      } else {
        this.#metrics.inc('webhook_deadletter_total', { stop_reason: decision.stop_reason });
        this.deadLetters.push({ ...decision.dead_letter, class: event.class, url: event.url, disable_endpoint: decision.disable_endpoint });
        if (decision.disable_endpoint) this.disabledEndpoints.add(event.endpoint_id);
      }
      return decision;
    }
  }

  async #attempt(event) {
    this.#metrics.inc('webhook_attempts_total');
    try {
      const res = await fetch(event.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': event.id },
        body: JSON.stringify(event.body ?? {}),
        redirect: 'follow',
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      await res.arrayBuffer();
      return responseOutcome(res, this.#policy.clock.nowMs());
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
