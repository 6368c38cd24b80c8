// One `store_call` action of the delivery engine (docs/engine.md section 6):
// ONE script call through RedisBudgetStore, bounded by --store-timeout-ms,
// its end fed back as the engine's `store` input (`{reply}`: the script's
// integers, or `{failed: true}`) and its duration observed
// (webhook_budget_store_duration_seconds); what the reply means is the engine's.

/** The reply as the engine takes it: an array of safe integers, else null. */
const integers = (reply) => (Array.isArray(reply) && reply.every(Number.isSafeInteger) ? reply : null);

export class StoreCaller {
  #store;
  #metrics;
  #timeoutMs;
  #onError;

  /** `store`: a RedisBudgetStore; `onError(message)`: a failed call, said (rate-limited by the caller). */
  constructor({ store, metrics, timeoutMs, onError = () => {} }) {
    this.#store = store;
    this.#metrics = metrics;
    this.#timeoutMs = timeoutMs;
    this.#onError = onError;
  }

  /** Make `call` (the engine's action); resolves the store answer's fields, never rejects. */
  answer(call) {
    const t0 = performance.now();
    return new Promise((resolve) => {
      let done = false;
      const settle = (fields) => {
        if (done) return; // a reply after the timeout decides nothing
        done = true;
        clearTimeout(timer);
        this.#metrics.time('webhook_budget_store_duration_seconds', (performance.now() - t0) / 1000);
        resolve(fields);
      };
      const timer = setTimeout(() => {
        this.#onError(`${call.argv[0]} timed out after ${this.#timeoutMs} ms`);
        settle({ failed: true });
      }, this.#timeoutMs);
      let pending;
      try {
        pending = Promise.resolve(this.#store.command(call.key, call.argv));
      } catch (e) {
        pending = Promise.reject(e);
      }
      pending.then(
        (raw) => {
          const reply = integers(raw);
          if (reply === null) this.#onError(`${call.argv[0]}: a reply that is not integers: ${JSON.stringify(raw)?.slice(0, 200)}`);
          settle(reply === null ? { failed: true } : { reply });
        },
        (e) => {
          if (!done) this.#onError(`${call.argv[0]}: ${e?.message ?? e}`);
          settle({ failed: true });
        },
      );
    });
  }
}
