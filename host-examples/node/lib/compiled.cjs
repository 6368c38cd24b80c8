'use strict';
// A policy decoded and validated once, held by the wasm module; decisions
// under it cost one wasm call each.
//
// Fast path: when the state, outcome and counts have exactly the canonical
// shape (own keys exactly the contract's fields, typeof number/string/
// boolean), their fields go to the module as scalars and the result comes
// back as numbers in a small shared buffer: no object conversion, one call.
// Anything else — a missing or extra field, a string where a number belongs,
// a bigint, a fraction, a negative number, an invalid state — is handed to
// the object path (serde-wasm-bindgen + the Rust codec), which computes the
// answer or throws the PolicyError. The fast path never makes an error of
// its own, so both paths refuse and accept exactly the same inputs.
const { raw, STOP_REASONS } = require('./native.cjs');
const { guarded } = require('./errors.cjs');
const { plain } = require('./snapshot.cjs');

// `decideFast` codes and result slots: see wasm/npm/src/compiled.rs.
const NEEDS_BUDGET = 7;
const COUNTS_NONE = 0;
const COUNTS_GIVEN = 1;
const COUNTS_EVALUATE_ONLY = 2;
const OUT_DELAY_MS = 0;
const OUT_REFRESH_CREDENTIALS = 1;
const OUT_DISABLE_ENDPOINT = 2;
const OUT_ELAPSED_MS = 3;
const OUT_HAS_DEAD_LETTER = 4;
const OUT_ATTEMPTS = 5;
const OUT_WINDOW_MS = 6;
const OUT_BUCKET = 7;

const memory = raw.wasmMemory();

/** Own enumerable keys are exactly `count` names, all in `names`. */
function hasExactly(obj, names, count) {
  const keys = Object.keys(obj);
  if (keys.length !== count) return false;
  for (let i = 0; i < count; i++) if (!names.has(keys[i])) return false;
  return true;
}

const STATE_FIELDS = new Set([
  'event_id',
  'endpoint_id',
  'attempt',
  'max_attempts',
  'first_attempted_at_ms',
  'credentials_refreshed',
]);
const CLASSED_STATE_FIELDS = new Set([...STATE_FIELDS, 'class']);
const OUTCOME_FIELDS = new Set(['status', 'retry_after_ms']);
const ERROR_OUTCOME_FIELDS = new Set(['error_kind']);
const BUCKET_FIELDS = new Set(['total', 'retries']);
const COUNTS_FIELDS = new Set(['current', 'previous']);

function isObject(v) {
  return typeof v === 'object' && v !== null;
}

function canonicalState(s, classed) {
  return (
    isObject(s) &&
    typeof s.event_id === 'string' &&
    typeof s.endpoint_id === 'string' &&
    typeof s.attempt === 'number' &&
    typeof s.max_attempts === 'number' &&
    typeof s.first_attempted_at_ms === 'number' &&
    typeof s.credentials_refreshed === 'boolean' &&
    (classed ? hasExactly(s, CLASSED_STATE_FIELDS, 7) : hasExactly(s, STATE_FIELDS, 6))
  );
}

function canonicalBucket(b) {
  return isObject(b) && typeof b.total === 'number' && typeof b.retries === 'number' && hasExactly(b, BUCKET_FIELDS, 2);
}

function canonicalCounts(c) {
  return isObject(c) && canonicalBucket(c.current) && canonicalBucket(c.previous) && hasExactly(c, COUNTS_FIELDS, 2);
}

class CompiledPolicy {
  #raw;
  #out = null;

  /** Decode and validate `policy` ({backoff, window_ms, hard_cap, budget}). */
  constructor(policy) {
    this.#raw = policy instanceof raw.CompiledPolicy ? policy : guarded(() => new raw.CompiledPolicy(plain(policy, 'policy')));
  }

  /** The policy in the contract's shape. */
  toJSON() {
    return this.#raw.toValue();
  }

  /**
   * The pure decision under this policy. `budgetCounts`: the store's counts,
   * or `null` when it could not be read (fails closed: `budget_unavailable`).
   */
  decide(state, outcome, nowMs, budgetCounts) {
    const mode = budgetCounts === null ? COUNTS_NONE : COUNTS_GIVEN;
    const fast = this.#fast(state, outcome, nowMs, mode, budgetCounts, false);
    if (fast !== undefined) return fast;
    return guarded(() =>
      this.#raw.decide(plain(state, 'state'), plain(outcome, 'outcome'), plain(nowMs, 'now_ms'), plain(budgetCounts, 'budget_counts')),
    );
  }

  /**
   * Gates 1-5 only: `{decision}` when they decide, or
   * `{needs_budget: {window_ms, bucket}}` when only the budget remains, so a
   * host reads its store only then.
   */
  evaluate(state, outcome, nowMs) {
    return this._evaluate(state, outcome, nowMs, false);
  }

  /** The budget bucket of `nowMs`: `{window_ms, bucket}`. */
  budgetBucket(nowMs) {
    return guarded(() => this.#raw.budgetBucket(plain(nowMs, 'now_ms')));
  }

  /** Release the wasm-side policy now (otherwise the garbage collector does). */
  free() {
    this.#raw.free();
  }

  // Internal (used by RetryPolicy): `classed` states carry a `class` field
  // that the caller has already resolved to this policy.
  _evaluate(state, outcome, nowMs, classed) {
    const fast = this.#fast(state, outcome, nowMs, COUNTS_EVALUATE_ONLY, null, classed);
    if (fast !== undefined) return fast;
    return guarded(() => this.#raw.evaluate(plain(unclassed(state, classed), 'state'), plain(outcome, 'outcome'), plain(nowMs, 'now_ms')));
  }

  _decide(state, outcome, nowMs, budgetCounts, classed) {
    if (!classed) return this.decide(state, outcome, nowMs, budgetCounts);
    const mode = budgetCounts === null ? COUNTS_NONE : COUNTS_GIVEN;
    const fast = this.#fast(state, outcome, nowMs, mode, budgetCounts, true);
    if (fast !== undefined) return fast;
    return guarded(() =>
      this.#raw.decide(
        plain(unclassed(state, true), 'state'),
        plain(outcome, 'outcome'),
        plain(nowMs, 'now_ms'),
        plain(budgetCounts, 'budget_counts'),
      ),
    );
  }

  #buffer() {
    // A view is detached (length 0) once the module's memory grows.
    if (this.#out === null || this.#out.length === 0) {
      this.#out = new Float64Array(memory.buffer, this.#raw.outPtr(), 8);
    }
    return this.#out;
  }

  /** The fast path, or `undefined` to use the object path (which also reports throwing getters). */
  #fast(state, outcome, nowMs, mode, counts, classed) {
    try {
      return this.#tryFast(state, outcome, nowMs, mode, counts, classed);
    } catch {
      return undefined;
    }
  }

  #tryFast(state, outcome, nowMs, mode, counts, classed) {
    if (typeof nowMs !== 'number' || !canonicalState(state, classed) || !isObject(outcome)) return undefined;
    let status = 0;
    let retryAfterMs = -1;
    let errorKind;
    if (typeof outcome.error_kind === 'string' && hasExactly(outcome, ERROR_OUTCOME_FIELDS, 1)) {
      errorKind = outcome.error_kind;
    } else if (typeof outcome.status === 'number') {
      const ra = outcome.retry_after_ms;
      if (ra === undefined ? !hasExactly(outcome, OUTCOME_FIELDS, 1) : typeof ra !== 'number' || !hasExactly(outcome, OUTCOME_FIELDS, 2)) {
        return undefined;
      }
      status = outcome.status;
      if (ra !== undefined) {
        // A negative value means "none" to the module: leave it to the object path.
        if (ra < 0) return undefined;
        retryAfterMs = ra;
      }
    } else {
      return undefined;
    }
    let ct = 0;
    let cr = 0;
    let pt = 0;
    let pr = 0;
    if (mode === COUNTS_GIVEN) {
      if (!canonicalCounts(counts)) return undefined;
      ct = counts.current.total;
      cr = counts.current.retries;
      pt = counts.previous.total;
      pr = counts.previous.retries;
    }
    const code = this.#raw.decideFast(
      state.event_id,
      state.attempt,
      state.max_attempts,
      state.first_attempted_at_ms,
      state.credentials_refreshed,
      status,
      retryAfterMs,
      errorKind,
      nowMs,
      mode,
      ct,
      cr,
      pt,
      pr,
    );
    const out = this.#buffer();
    if (code === 0) {
      return {
        stop_reason: null,
        disable_endpoint: false,
        retry: { delay_ms: out[OUT_DELAY_MS], refresh_credentials: out[OUT_REFRESH_CREDENTIALS] === 1 },
      };
    }
    if (code === NEEDS_BUDGET) {
      return { needs_budget: { window_ms: out[OUT_WINDOW_MS], bucket: out[OUT_BUCKET] } };
    }
    const reason = STOP_REASONS[code - 1];
    if (reason === undefined) return undefined; // REFUSED: the object path reports it
    const decision = { stop_reason: reason, disable_endpoint: out[OUT_DISABLE_ENDPOINT] === 1 };
    if (out[OUT_HAS_DEAD_LETTER] === 1) {
      decision.dead_letter = {
        event_id: state.event_id,
        endpoint_id: state.endpoint_id,
        attempts: out[OUT_ATTEMPTS],
        elapsed_ms: out[OUT_ELAPSED_MS],
        stop_reason: reason,
      };
    }
    return mode === COUNTS_EVALUATE_ONLY ? { decision } : decision;
  }
}

/** `state` without its `class` field (a copy), for the object path. */
function unclassed(state, classed) {
  if (!classed || !isObject(state)) return state;
  const { class: _class, ...rest } = state;
  return rest;
}

/** Decode and validate a policy once, for many decisions. */
function compilePolicy(policy) {
  return new CompiledPolicy(policy);
}

module.exports = { CompiledPolicy, compilePolicy };
