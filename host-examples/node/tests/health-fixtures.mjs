// Fixtures of the format-3 dispatcher tests: a one-class document with a
// health section, and a dispatcher on it with virtual time (virtual-time.mjs),
// an in-memory store that records each call's op, and a scriptable receiver.
import { ManualClock, InMemoryBudgetStore } from '@webhook/retry-policy';
import { Metrics } from '../examples/dispatcher/metrics.mjs';
import { Dispatcher } from '../examples/dispatcher/dispatcher.mjs';
import { HealthPolicy } from '../examples/dispatcher/health-policy.mjs';
import { eventScheduler, startReceiver } from './virtual-time.mjs';

export const T0 = 1_796_180_000_000;
export const healthDoc = (health = {}, budget = { ratio: 1.0, window_ms: 60_000, min_sample: 0, sliding: true }, windowMs = 600_000) => ({
  version: 'h-1',
  classes: {
    storm: { window_ms: windowMs, hard_cap: 30, backoff: { base_ms: 1000, factor: 2.0, cap_ms: 4000, jitter: 'none' }, budget, health },
  },
});

/** A dispatcher on a format-3 document, virtual time, a store that counts its calls by op. */
export function setup(doc, respond, dispatcherOptions = {}, clock = new ManualClock(T0)) {
  const metrics = new Metrics();
  const scheduler = eventScheduler(clock);
  const inner = new InMemoryBudgetStore();
  const ops = [];
  const store = { answer: (c, nowMs) => (ops.push(c.op), inner.answer(c, nowMs)) };
  const policy = new HealthPolicy(doc, { store, clock });
  return startReceiver(clock, respond).then((receiver) => {
    const dispatcher = new Dispatcher(policy, { metrics, scheduler, attemptDeadlineMs: 5000, allowPrivateTargets: true, ...dispatcherOptions });
    const deliver = (id, path = '/r') => scheduler.track(dispatcher.deliver({ id, class: 'storm', endpoint_id: 'ep-1', url: receiver.url(path), body: { id } }));
    const resume = (rec) => scheduler.track(dispatcher.resumeRecord(rec));
    const close = async () => {
      dispatcher.close();
      await receiver.close();
      policy.close();
    };
    return { clock, metrics, scheduler, dispatcher, receiver, ops, deliver, resume, close, policy };
  });
}

