// One `send` action of the delivery engine (docs/engine.md section 4 step 6)
// made on the wire (http-client.mjs), signed when a signer is given, and its
// end as the engine's `result` input. The window's edge: `now <
// start_before_ms` is checked again immediately before the request is
// written (after DNS, connect and the TLS handshake); past it nothing is
// written and the result is `not_started`.
import { TRANSPORT_KINDS as K } from '@webhook/retry-policy';
import { post, createAgent, errorKind, NotSentError } from './http-client.mjs';

/** A response as the engine's result fields, its `Retry-After` raw (the engine parses it). */
export function resultOf(res) {
  if (!(Number.isInteger(res.status) && res.status >= 100 && res.status <= 599)) return { error_kind: K.UNEXPECTED_STATUS };
  const h = res.headers?.['retry-after'];
  const retryAfter = Array.isArray(h) ? h[0] : h;
  return retryAfter === undefined ? { status: res.status } : { status: res.status, retry_after: String(retryAfter) };
}

export class Sender {
  #agents;
  #allowPrivate;
  #deadlineMs;
  #signer;
  #metrics;
  #nowMs;

  /**
   * `nowMs()`: the driver's clock (the engine's time); `metrics`: in_flight and
   * the delivery duration histogram (the host's own); `signer`: signer.mjs or null.
   */
  constructor({ nowMs, metrics, attemptDeadlineMs, allowPrivateTargets = false, ca = [], signer = null }) {
    this.#nowMs = nowMs;
    this.#metrics = metrics;
    this.#deadlineMs = attemptDeadlineMs;
    this.#allowPrivate = allowPrivateTargets === true;
    this.#signer = signer;
    this.#agents = { http: createAgent({ allowPrivate: this.#allowPrivate }), https: createAgent({ allowPrivate: this.#allowPrivate, https: true, ca }) };
  }

  /**
   * Make the attempt of `send` (the engine's action). Resolves the result
   * fields ({status, retry_after?} | {error_kind} | {not_started: true}); never rejects.
   */
  async attempt(send) {
    const { event_id: id, attempt } = send;
    const body = send.body_b64 == null ? JSON.stringify({ event_id: id, attempt }) : Buffer.from(send.body_b64, 'base64');
    const mayWrite = () => this.#nowMs() < send.start_before_ms;
    try {
      if (this.#nowMs() >= send.start_before_ms) return { not_started: true };
      const headers = { 'content-type': 'application/json', 'webhook-id': id, 'x-event-id': id, 'x-attempt': String(attempt) };
      if (this.#signer !== null) {
        if (send.refresh_credentials) await this.#signer.refresh(send.endpoint_id);
        Object.assign(headers, await this.#signer.headers(send.endpoint_id, id, body));
      }
      this.#metrics.inFlight(1);
      try {
        const res = await post(send.target, {
          headers,
          body,
          deadlineMs: this.#deadlineMs,
          allowPrivate: this.#allowPrivate,
          agents: this.#agents,
          mayWrite,
          observe: (seconds) => this.#metrics.time('webhook_delivery_duration_seconds', seconds),
        });
        return resultOf(res);
      } finally {
        this.#metrics.inFlight(-1);
      }
    } catch (err) {
      if (err instanceof NotSentError) return { not_started: true };
      return { error_kind: errorKind(err) };
    }
  }

  /** Close idle keep-alive connections (and cut any still in use). */
  close() {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }
}
