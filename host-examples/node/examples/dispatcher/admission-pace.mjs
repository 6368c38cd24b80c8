// When the driver may admit its next event (docs/replica.md: --rate,
// --deadline-ms): the k-th admission (k from 0) no earlier than
// k * 1000 / rate ms after the run starts admitting (the instant the first
// admission is asked for: so the first admission's own delay, under load,
// is not caught up by a burst of the next ones), none at or after the
// deadline. Times are performance.now() milliseconds (monotonic).

/** The longest timer Node arms (2^31 - 1 ms); a longer wait is re-checked then. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export class AdmissionPace {
  #startMs = null;
  #ratePerS;
  #deadlineAt;

  /**
   * ratePerS: admissions per second (a finite number > 0) or null (no
   * pacing); deadlineAt: admit nothing from this instant on (Infinity: no
   * deadline).
   */
  constructor({ ratePerS = null, deadlineAt = Infinity }) {
    if (ratePerS !== null && !(Number.isFinite(ratePerS) && ratePerS > 0)) {
      throw new RangeError(`admission rate: expected a finite number > 0, got ${ratePerS}`);
    }
    this.#ratePerS = ratePerS;
    this.#deadlineAt = deadlineAt;
  }

  /**
   * For the k-th admission at nowMs: 0 (admit it now), a whole number of
   * ms > 0 to wait before asking again (never past the deadline), or null
   * (the deadline passed: admit nothing more). The first call's nowMs is the origin.
   */
  wait(k, nowMs) {
    if (nowMs >= this.#deadlineAt) return null;
    if (this.#ratePerS === null) return 0;
    this.#startMs ??= nowMs;
    const due = this.#startMs + (k * 1000) / this.#ratePerS;
    if (nowMs >= due) return 0;
    return Math.min(LONGEST_TIMER_MS, Math.max(1, Math.ceil(Math.min(due, this.#deadlineAt) - nowMs)));
  }
}
