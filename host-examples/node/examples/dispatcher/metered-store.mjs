// A budget store seen by the metrics (docs/metrics.md): every call timed in
// webhook_budget_store_duration_seconds, from the request to the reply or
// the error (a NOSCRIPT fallback inside it is the same call; a call still
// unanswered at the store timeout is observed then, as the policy gives up
// on it), and every verdict `reserved = false` counted in
// webhook_budget_refusals_total. The replies pass through unchanged.

/**
 * `store` (anything with call(request, budget, nowMs)) wrapped for
 * `metrics`; `timeoutMs` is the RetryPolicy's store timeout.
 */
export function meteredStore(store, metrics, { timeoutMs = 250 } = {}) {
  const seconds = (t0) => (performance.now() - t0) / 1000;
  // `record` asks for no reservation: only reserve and record_reserve can refuse a retry.
  const asks = (request) => request?.op === 'reserve' || request?.op === 'record_reserve';
  const refusedFor = (request) => (reply) => {
    if (asks(request) && reply !== null && typeof reply === 'object' && reply.reserved === false) metrics.inc('webhook_budget_refusals_total');
    return reply;
  };
  // A sync answer is observed at once; a promise when it settles or at the store timeout, whichever is first.
  const timed = (answer, t0, refused) => {
    if (typeof answer?.then !== 'function') {
      metrics.time('webhook_budget_store_duration_seconds', seconds(t0));
      return refused(answer);
    }
    let observed = false;
    const observe = () => {
      if (!observed) metrics.time('webhook_budget_store_duration_seconds', seconds(t0));
      observed = true;
    };
    const timer = setTimeout(observe, timeoutMs);
    timer.unref?.();
    return answer.then(
      (reply) => {
        clearTimeout(timer);
        const late = observed;
        observe();
        return late ? reply : refused(reply); // a reply after the timeout decides nothing
      },
      (e) => {
        clearTimeout(timer);
        observe();
        throw e;
      },
    );
  };
  return {
    /** A whole store call (ABI 0.3): timed the same way; a refused reservation of a reserving op counted. */
    answer(storeCall, nowMs) {
      const t0 = performance.now();
      const refused = refusedFor(storeCall);
      const onReply = (reply) => {
        if (reply !== null && typeof reply === 'object') refused(reply.reservation);
        return reply;
      };
      let answer;
      try {
        answer = store.answer(storeCall, nowMs);
      } catch (e) {
        metrics.time('webhook_budget_store_duration_seconds', seconds(t0));
        throw e;
      }
      return timed(answer, t0, onReply);
    },
    call(request, budget, nowMs) {
      const t0 = performance.now();
      let answer;
      try {
        answer = store.call(request, budget, nowMs);
      } catch (e) {
        metrics.time('webhook_budget_store_duration_seconds', seconds(t0));
        throw e;
      }
      return timed(answer, t0, refusedFor(request));
    },
  };
}
