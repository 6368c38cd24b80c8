'use strict';
// Clocks: what a RetryPolicy (and the imports-driven decide, through the
// component's `clock.now-ms` import) reads time from.

/** Wall-clock milliseconds since the Unix epoch (`Date.now()`). */
const systemClock = Object.freeze({ nowMs: () => Date.now() });

/** A clock that moves only when told to (tests, simulations). */
class ManualClock {
  #nowMs;
  constructor(nowMs = 0) {
    this.#nowMs = nowMs;
  }
  nowMs() {
    return this.#nowMs;
  }
  set(nowMs) {
    this.#nowMs = nowMs;
  }
  advance(byMs) {
    this.#nowMs += byMs;
  }
}

module.exports = { systemClock, ManualClock };
