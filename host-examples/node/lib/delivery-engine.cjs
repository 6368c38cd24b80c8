'use strict';
// DeliveryEngine: the component's delivery engine (docs/engine.md), a
// sans-IO state machine, driven from Node. This file only moves JSON across
// the boundary (engine-open, engine-feed, engine-resume, engine-close: one
// crossing per batch); the engine decides everything.
//
// An engine lives in ONE instance of the artifact it was opened on (the
// current one then: the package's copy, RETRY_POLICY_ARTIFACT, or what
// loadArtifact/swapArtifact installed): a later swap does not move it, and
// if that instance is replaced after a trap the engine is gone (a typed
// error says so). Errors of the component (a refused config, a batch that
// is not a JSON array, a closed engine) are PolicyErrors carrying the
// engine's code; an input the engine refuses inside a batch is reported in
// the answer's `errors` ({index, error, message}) and changed nothing.
const { PolicyError } = require('./errors.cjs');
const { artifact } = require('./artifact/current.cjs');
const lower = require('./lower.cjs');

/** The component's error text `{"error", "message"}` as a PolicyError (its message kept as the engine wrote it). */
function engineError(text) {
  let code = 'invalid_input';
  let message = String(text);
  try {
    const v = JSON.parse(text);
    if (typeof v?.error === 'string' && typeof v.message === 'string') [code, message] = [v.error, v.message];
  } catch {
    // not the engine's JSON: keep the text as the message
  }
  // The engine writes `code at field: detail` or `code: detail`.
  const m = message.startsWith(code) ? /^ at `?([^`:]*)`?: ([^]*)$|^: ([^]*)$/.exec(message.slice(code.length)) : null;
  if (m === null) return new PolicyError(code, '', message);
  return m[3] === undefined ? new PolicyError(code, m[1], m[2]) : new PolicyError(code, '', m[3]);
}

/** `value` as JSON text (a string is taken as JSON text already); bigints as integers while exact in a double. */
function toJson(value, what) {
  if (typeof value === 'string') return value;
  let text;
  try {
    text = JSON.stringify(value, (key, v) => {
      if (typeof v !== 'bigint') return v;
      if (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
      throw new PolicyError('invalid_input', key || what, `${v}n is beyond 2^53 - 1: pass the ${what} as JSON text to keep it exact`);
    });
  } catch (e) {
    throw e instanceof PolicyError ? e : new PolicyError('invalid_input', what, `not JSON-serializable: ${e?.message}`);
  }
  if (typeof text !== 'string') throw new PolicyError('invalid_input', what, `expected an object or JSON text, got ${typeof value}`);
  return text;
}

/** The engine's answer: `{outputs, errors, timeout_ms}` (integers read by JSON.parse). */
const answer = (text) => JSON.parse(text);

const released = new FinalizationRegistry(({ on, api, handle }) => {
  try {
    on.run((a) => a === api && a.engineClose(handle));
  } catch {
    // the artifact or its instance went: the engine went with it
  }
});

class DeliveryEngine {
  #on; // the artifact the engine was opened on
  #api; // the instance (jco's `policy` object) that holds it
  #handle;
  #closed = false;

  /**
   * Open an engine on `config` (docs/engine.md section 1: `{document,
   * max_in_flight?, max_events?, max_open?, max_endpoints?, memory_store?, skew_check?}`),
   * an object or its JSON text. Throws PolicyError when the engine refuses it.
   */
  constructor(config) {
    const text = toJson(config, 'config');
    this.#on = artifact();
    this.#handle = this.#on.run((api) => {
      this.#api = api;
      try {
        return api.engineOpen(text);
      } catch (e) {
        throw typeof e?.payload === 'string' ? engineError(e.payload) : e;
      }
    });
    released.register(this, { on: this.#on, api: this.#api, handle: this.#handle }, this);
  }

  /** Same as `new DeliveryEngine(config)`. */
  static open(config) {
    return new DeliveryEngine(config);
  }

  #cross(f) {
    return this.#on.run((api) => {
      if (api !== this.#api) {
        throw new PolicyError('invalid_input', 'handle', 'the engine\'s instance is not available (replaced after a trap, or in a call now)');
      }
      try {
        return answer(f(api, this.#handle));
      } catch (e) {
        throw typeof e?.payload === 'string' ? engineError(e.payload) : e;
      }
    });
  }

  /**
   * Feed a batch of inputs (docs/engine.md section 2: an array of
   * `{op, now_ms, ...}`, or its JSON text) in ONE crossing; every action they
   * caused, in order: `{outputs, errors, timeout_ms}`.
   */
  feed(inputs) {
    const text = toJson(inputs, 'inputs');
    return this.#cross((api, h) => api.engineFeed(h, text));
  }

  /** `resume` from a journal's bytes (a Uint8Array, or its text) at `nowMs`; answered as `feed`. */
  resume(nowMs, journal) {
    const now = lower.u64(nowMs, 'now_ms');
    const bytes = typeof journal === 'string' ? Buffer.from(journal, 'utf8') : journal;
    if (!(bytes instanceof Uint8Array)) throw new PolicyError('invalid_input', 'journal', 'expected a Uint8Array or a string');
    return this.#cross((api, h) => api.engineResume(h, now, bytes));
  }

  /** Forget the engine (idempotent); later calls are refused by the component (invalid_input at `handle`). */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    released.unregister(this);
    this.#on.run((api) => api === this.#api && api.engineClose(this.#handle));
  }

  /** `using engine = new DeliveryEngine(...)`: close() at the end of the block. */
  [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
    this.close();
  }
}

module.exports = { DeliveryEngine };
