// Compiled (never run) by tests/types.test.mjs: a CommonJS TypeScript user.
import retryPolicy = require('@webhook/retry-policy');

const d: retryPolicy.Decision = retryPolicy.decide(
  {
    backoff: { base_ms: 1, factor: 1, cap_ms: 1, jitter: 'none' },
    window_ms: 1,
    hard_cap: 1,
    budget: { ratio: 1, window_ms: 1, min_sample: 0, sliding: false },
  },
  { event_id: 'e', endpoint_id: 'p', attempt: 1, max_attempts: 1, first_attempted_at_ms: 0, credentials_refreshed: false },
  { status: 200 },
  { store: new retryPolicy.InMemoryBudgetStore() },
);
export const reason: retryPolicy.StopReason | null = d.stop_reason;
export const codes: readonly retryPolicy.ErrorCode[] = retryPolicy.ERROR_CODES;
export const ops: readonly retryPolicy.StoreOp[] = retryPolicy.STORE_OPS;
export const held: retryPolicy.HeldBuckets = retryPolicy.EMPTY_HELD;

const ctsKind: retryPolicy.TransportKind = retryPolicy.TRANSPORT_KINDS.CONNECT_TIMEOUT;
void ctsKind;

const trustedKeys: retryPolicy.rollout.TrustedKeys = retryPolicy.rollout.readTrust('');
export const rolloutCodes: readonly retryPolicy.RolloutErrorCode[] = retryPolicy.ROLLOUT_ERROR_CODES;
void trustedKeys.keyIds;
