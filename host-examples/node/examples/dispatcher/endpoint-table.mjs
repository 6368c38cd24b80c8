// Per replica, per endpoint, in memory only (docs/health-dispatch.md
// section 1): the newest store reply's health view, the release pacer, and
// the admissions counted in the class budget's buckets, and when this
// replica may make its next probe call to the endpoint. Bounded: at most
// 10,000 endpoints, the least recently used dropped beyond (a dropped view
// is a missing view: the gate fails open; a dropped pacer is a new one).
// Nothing here decides: the rate is the component's `normal-per-s`.
import { normalPerS } from '@webhook/retry-policy';

export const MAX_ENDPOINTS = 10_000;
const newPacer = () => ({ tokens: 0, updated_ms: 0, normal_per_s: 0 });

export class EndpointTable {
  #max;
  #entries = new Map(); // endpoint_id -> {view, pacer, admissions}; Map order = recency

  constructor(maxEndpoints = MAX_ENDPOINTS) {
    this.#max = maxEndpoints;
  }

  get size() {
    return this.#entries.size;
  }

  /** The endpoint's entry, made most recently used (created when new). */
  entry(endpointId) {
    let e = this.#entries.get(endpointId);
    if (e !== undefined) {
      this.#entries.delete(endpointId);
    } else {
      // probeBusyUntilMs / probing: one probe call per replica, endpoint and probe window (section 2)
      e = { view: null, pacer: newPacer(), admissions: { bucket: 0, current: 0, previous: 0 }, probeBusyUntilMs: 0, probing: false };
      if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value);
    }
    this.#entries.set(endpointId, e);
    return e;
  }

  /** Keep a store reply's view unless the kept one is newer (`as_of_ms`). */
  keepView(endpointId, view) {
    if (view === null || view === undefined) return;
    const e = this.entry(endpointId);
    if (e.view === null || view.as_of_ms >= e.view.as_of_ms) e.view = view;
  }

  /** A new event admitted to the endpoint (first attempt; replays do not count). */
  countAdmission(endpointId, budget, nowMs) {
    const a = this.#rolled(this.entry(endpointId), budget, nowMs);
    a.current += 1;
  }

  /** The pacer to hand `gate` / `after-probe` at `nowMs`: its normal_per_s set from the admissions (rolled first). */
  pacerFor(endpointId, budget, nowMs) {
    const e = this.entry(endpointId);
    const a = this.#rolled(e, budget, nowMs);
    return { ...e.pacer, normal_per_s: normalPerS(budget, nowMs, a.current, a.previous) };
  }

  /** Keep the pacer a `gate` / `after-probe` answer returned. */
  keepPacer(endpointId, pacer) {
    this.entry(endpointId).pacer = pacer;
  }

  /** The admissions rolled to `nowMs`'s bucket: the next bucket moves current to previous, a later one zeroes both. */
  #rolled(e, budget, nowMs) {
    const a = e.admissions;
    const bucket = Math.floor(nowMs / budget.window_ms);
    if (bucket === a.bucket + 1) {
      a.previous = a.current;
      a.current = 0;
    } else if (bucket > a.bucket + 1) {
      a.previous = 0;
      a.current = 0;
    }
    if (bucket > a.bucket) a.bucket = bucket;
    return a;
  }
}
