// The storm simulation of tools/policy-tools (src/sim/run.rs), in the page,
// on the npm package's wasm: one endpoint with a failure pattern, Poisson
// traffic of one class, N replicas with a shared or per-replica in-memory
// store. Every decision is the package's: CompiledPolicy.evaluate, one
// storeApply (the in-memory store's rule), CompiledPolicy.settle. Virtual
// clock, seeded, so the same controls always draw the same storm.
(function (root) {
  'use strict';
  const DEAD = ['terminal_response', 'max_attempts_exhausted', 'retry_window_elapsed', 'retry_budget_exhausted', 'budget_unavailable'];
  const START = 1700000040000;
  const LATENCY = 40;

  function rng(seed) {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  class Heap {
    constructor() { this.a = []; }
    push(x) {
      const a = this.a; a.push(x);
      let i = a.length - 1;
      while (i > 0) { const p = (i - 1) >> 1; if (less(a[i], a[p])) { [a[i], a[p]] = [a[p], a[i]]; i = p; } else break; }
    }
    pop() {
      const a = this.a; const top = a[0]; const last = a.pop();
      if (a.length) {
        a[0] = last; let i = 0;
        for (;;) {
          const l = 2 * i + 1, r = l + 1; let m = i;
          if (l < a.length && less(a[l], a[m])) m = l;
          if (r < a.length && less(a[r], a[m])) m = r;
          if (m === i) break; [a[i], a[m]] = [a[m], a[i]]; i = m;
        }
      }
      return top;
    }
    get size() { return this.a.length; }
  }
  const less = (x, y) => x.t < y.t || (x.t === y.t && x.seq < y.seq);

  function answer(pattern, tMs) {
    const s = Math.floor(tMs / 1000);
    switch (pattern) {
      case 'healthy': return { status: 200 };
      case 'always_503': return { status: 503 };
      case 'flapping': return { status: s % 60 < 30 ? 200 : 503 };
      case 'rate_limited': return { status: 429, retry_after: '30' };
      case 'outage': return { status: s >= 60 && s < 240 ? 503 : 200 };
      default: throw new Error(`unknown failure pattern ${pattern}`);
    }
  }

  /**
   * opts: {policy (a Policy, defaults filled), maxAttempts, ratePerS, durationS,
   *        replicas, scope: 'shared'|'per_replica', pattern, seed}
   * Returns {seconds: [{attempts, retries, failing, dead: {...}, delivered}], totals}.
   */
  function simulate(rp, opts) {
    const policy = opts.policy;
    const compiled = rp.compilePolicy(policy);
    const rand = rng(opts.seed ?? 1);
    const heap = new Heap();
    let seq = 0;
    const push = (t, kind, ev) => heap.push({ t, seq: seq++, kind, ev });
    const end = opts.durationS * 1000;
    const hardEnd = end + 1800 * 1000;
    const meanGap = 1000 / opts.ratePerS;
    const gap = () => Math.max(1, Math.round(-Math.log(1 - rand()) * meanGap));
    push(gap(), 'arrive', null);
    const held = new Map();
    const seconds = [];
    const at = (t) => {
      const s = Math.floor(t / 1000);
      while (seconds.length <= s) seconds.push({ attempts: 0, retries: 0, delivered: 0, dead: Object.fromEntries(DEAD.map((d) => [d, 0])) });
      return seconds[s];
    };
    const totals = { events: 0, attempts: 0, retries: 0, delivered: 0, dead: Object.fromEntries(DEAD.map((d) => [d, 0])), calls: 0, firstStops: [] };
    let n = 0;
    while (heap.size) {
      const { t, kind, ev } = heap.pop();
      if (t > hardEnd) break;
      const now = START + t;
      if (kind === 'arrive') {
        if (t >= end) continue;
        n++;
        const e = {
          state: { event_id: `evt-ep-${n}`, endpoint_id: 'ep', attempt: 1, max_attempts: opts.maxAttempts, first_attempted_at_ms: now, credentials_refreshed: false },
          replica: Math.floor(rand() * opts.replicas),
          outcome: null,
        };
        totals.events++;
        push(t, 'attempt', e);
        push(t + gap(), 'arrive', null);
      } else if (kind === 'attempt') {
        const retry = ev.state.attempt > 1;
        const s = at(t);
        s.attempts++; s.retries += retry ? 1 : 0;
        totals.attempts++; totals.retries += retry ? 1 : 0;
        const a = answer(opts.pattern, t);
        let ra = null;
        if (a.retry_after) { totals.calls++; ra = rp.retryAfter(a.retry_after, now); }
        ev.outcome = ra === null ? { status: a.status } : { status: a.status, retry_after_ms: ra };
        push(t + LATENCY, 'response', ev);
      } else {
        totals.calls++;
        const step = compiled.evaluate(ev.state, ev.outcome, now);
        let decision = step.decision;
        if (step.store) {
          const key = `${opts.scope === 'shared' ? 0 : ev.replica}|${step.store.window_ms}`;
          totals.calls++;
          const applied = rp.storeApply(step.store, policy.budget, now, held.get(key) ?? rp.EMPTY_HELD);
          held.set(key, applied.held);
          if (!decision) {
            totals.calls++;
            decision = compiled.settle(ev.state, ev.outcome, now, applied.reply).decision;
          }
        }
        if (decision.stop_reason === null) {
          ev.state = { ...ev.state, attempt: ev.state.attempt + 1 };
          push(t + decision.retry.delay_ms, 'attempt', ev);
        } else {
          const s = at(t);
          if (decision.stop_reason === 'delivered') { s.delivered++; totals.delivered++; }
          else {
            s.dead[decision.stop_reason]++; totals.dead[decision.stop_reason]++;
            if (totals.firstStops.length < 60) totals.firstStops.push(decision.stop_reason);
          }
        }
      }
    }
    compiled.free();
    return { seconds, totals };
  }

  root.PlaygroundSim = { simulate, DEAD };
})(globalThis);
