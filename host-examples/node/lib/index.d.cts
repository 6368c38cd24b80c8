// Types of @webhook/retry-policy. Field names are the conformance contract's
// (snake_case); every duration and instant is integer milliseconds (`*_ms`,
// Unix epoch for instants). Integer inputs may also be given as `bigint`
// (exact up to 2^64-1); numbers must be safe integers. Outputs are numbers
// (a value above 2^53-1, possible only from bigint inputs, comes back as a
// bigint).

/** How a delay is drawn beneath its ceiling `c`: `c`, uniform `[0, c]`, uniform `[c/2, c]`. */
export type Jitter = 'none' | 'full' | 'equal';
export type OutcomeClass = 'success' | 'retryable' | 'terminal';
export type StopReason =
  | 'delivered'
  | 'terminal_response'
  | 'max_attempts_exhausted'
  | 'retry_window_elapsed'
  | 'retry_budget_exhausted'
  | 'budget_unavailable';
/** Every stop reason but `delivered`: those carry a dead-letter record. */
export type DeadLetterReason = Exclude<StopReason, 'delivered'>;
export type ErrorCode =
  | 'invalid_backoff'
  | 'invalid_hard_cap'
  | 'invalid_window'
  | 'invalid_budget'
  | 'invalid_state'
  | 'invalid_status'
  | 'invalid_input'
  | 'invalid_document'
  | 'unknown_event_class';
export type LimitedBy = 'window' | 'hard_cap';
/** Transport error kinds the policy retries; any other string is terminal. */
export type RetryableErrorKind =
  | 'connect_timeout'
  | 'read_timeout'
  | 'write_timeout'
  | 'pool_timeout'
  | 'connect_error'
  | 'remote_protocol_error';
export type ErrorKind = RetryableErrorKind | 'unsupported_protocol' | 'invalid_url' | 'too_many_redirects' | (string & {});

export interface Backoff {
  /** Ceiling of retry 0 (the wait before attempt 2); `1 <= base_ms <= cap_ms`. */
  base_ms: number;
  /** Growth per retry, finite and `>= 1`. */
  factor: number;
  /** Largest ceiling, `<= 86_400_000`. */
  cap_ms: number;
  jitter: Jitter;
}

export interface Budget {
  /** Largest share of attempts that may be retries, in `(0, 1]`. */
  ratio: number;
  /** Bucket width, `>= 1`. */
  window_ms: number;
  /** Below this many (estimated) attempts every retry is allowed. */
  min_sample: number;
  /** Weight the previous bucket (sliding estimate) instead of fixed windows. */
  sliding: boolean;
}

/** The policy of one event class. */
export interface Policy {
  backoff: Backoff;
  /** The retry window: how long an event may stay undelivered; `<= 30 days`. */
  window_ms: number;
  /** Upper bound on planned attempts, `1..=100`. */
  hard_cap: number;
  budget: Budget;
}

/** What the host persisted about an event. */
export interface DeliveryState {
  event_id: string;
  endpoint_id: string;
  /** 1-based: the attempt just completed. */
  attempt: number;
  /** The max attempts the event was admitted under. */
  max_attempts: number;
  /** When the event was first accepted (persisted with it). */
  first_attempted_at_ms: number;
  /** Whether signing material was already force-refreshed for this event. */
  credentials_refreshed: boolean;
}

/** A DeliveryState that also names its event class (RetryPolicy). */
export interface ClassedDeliveryState extends DeliveryState {
  class: string;
}

/** An HTTP response (Retry-After already converted to milliseconds), or a transport error. */
export type AttemptOutcome = { status: number; retry_after_ms?: number | null } | { error_kind: ErrorKind };

export interface BucketCounts {
  /** Every attempt, first ones and retries. */
  total: number;
  retries: number;
}

/** The current bucket and the one before it, as read from the store. */
export interface BudgetCounts {
  current: BucketCounts;
  previous: BucketCounts;
}

export interface Schedule {
  max_attempts: number;
  expected_span_ms: number;
  /** Expected start of each attempt relative to the first: `[0, ...]`. */
  offsets_ms: number[];
  worst_case_span_ms: number;
  limited_by: LimitedBy;
}

/** The schedule an event is admitted under: persist it with the event. */
export interface Admission extends Schedule {
  class: string;
  policy_version: string;
  /** FNV-1a 64 fingerprint of the class policy, 16 hex digits. */
  policy_hash: string;
  first_attempted_at_ms: number;
  /** No attempt starts after this instant. */
  deadline_ms: number;
}

export interface DeadLetter {
  event_id: string;
  endpoint_id: string;
  attempts: number;
  elapsed_ms: number;
  stop_reason: DeadLetterReason;
}

export interface RetryDecision {
  stop_reason: null;
  disable_endpoint: false;
  retry: {
    delay_ms: number;
    /** Force-refresh signing material before the retry (401/403, once). */
    refresh_credentials: boolean;
  };
}

export interface DeliveredDecision {
  stop_reason: 'delivered';
  disable_endpoint: false;
}

export interface DeadLetterDecision {
  stop_reason: DeadLetterReason;
  /** 410 Gone: disable the endpoint. */
  disable_endpoint: boolean;
  dead_letter: DeadLetter;
}

/** Discriminated on `stop_reason`: `null` = retry. */
export type Decision = RetryDecision | DeliveredDecision | DeadLetterDecision;

/** Gates 1-5: decided, or only the budget (bucket of `now_ms`) remains. */
export type Step = { decision: DeliveredDecision | DeadLetterDecision } | { needs_budget: { window_ms: number; bucket: number } };

/** An event class in a policy document; `max_attempts` is refused (it is derived from the window). */
export interface EventClassDocument {
  window_ms: number;
  /** Default 16. */
  hard_cap?: number;
  backoff: Omit<Backoff, 'jitter'> & { jitter?: Jitter };
  /** Default: 10% over 60 s, floor 50, sliding; each field defaults alone. */
  budget?: Partial<Budget>;
}

export interface PolicyDocument {
  version?: string;
  classes: Record<string, EventClassDocument>;
}

/** A refused input. `code` is the SPEC code, `field` the dotted path ('' = the whole value). */
export declare class PolicyError extends Error {
  readonly name: 'PolicyError';
  readonly code: ErrorCode;
  readonly field: string;
  /** The sentence without the code and field. */
  readonly detail: string;
  constructor(code: ErrorCode, field: string, detail: string);
}

type U64 = number | bigint;

/** Derive max attempts and the schedule from a retry window. */
export declare function plan(backoff: Backoff, windowMs: U64, hardCap: U64): Schedule;
/** The jittered delay (ms) of retry `retryIndex` (0-based) for an event. */
export declare function delay(backoff: Backoff, eventId: string, retryIndex: U64): number;
export declare function classifyStatus(status: U64): OutcomeClass;
export declare function classifyError(errorKind: ErrorKind): Exclude<OutcomeClass, 'success'>;
/** Whether one more retry fits the budget given the counts read at `nowMs`. */
export declare function budgetAllows(budget: Budget, nowMs: U64, counts: BudgetCounts): boolean;
/**
 * The pure decision after an attempt. `budgetCounts`: what the store returned,
 * or `null` when it could not be read (then `budget_unavailable` whenever a
 * retry was otherwise due: the budget fails closed). Records nothing.
 */
export declare function decide(
  policy: Policy,
  state: DeliveryState,
  outcome: AttemptOutcome,
  nowMs: U64,
  budgetCounts: BudgetCounts | null,
): Decision;

/** A policy decoded and validated once: one wasm call per decision. */
export declare class CompiledPolicy {
  constructor(policy: Policy);
  decide(state: DeliveryState, outcome: AttemptOutcome, nowMs: U64, budgetCounts: BudgetCounts | null): Decision;
  /** Gates 1-5 only: read the store only when this returns `needs_budget`. */
  evaluate(state: DeliveryState, outcome: AttemptOutcome, nowMs: U64): Step;
  budgetBucket(nowMs: U64): { window_ms: number; bucket: number };
  toJSON(): Policy;
  /** Release the wasm-side policy now (otherwise the garbage collector does). */
  free(): void;
}
export declare function compilePolicy(policy: Policy): CompiledPolicy;

type MaybePromise<T> = T | Promise<T>;

/**
 * Where a RetryPolicy counts attempts per endpoint, in buckets
 * `floor(now_ms / window_ms)` computed by the policy. Sync or async.
 */
export interface BudgetStore {
  /** Counts of `bucket` and `bucket - 1`. Throw/reject when unreachable. */
  read(endpointId: string, windowMs: number, bucket: number): MaybePromise<BudgetCounts>;
  /** Count one attempt in `bucket` (and one retry if `isRetry`). */
  recordAttempt(endpointId: string, windowMs: number, bucket: number, isRetry: boolean): MaybePromise<void>;
  /**
   * Optional, atomic: if the budget allows, count the retry. `counts` are
   * those before the change (the policy re-checks them and must agree).
   */
  reserve?(
    endpointId: string,
    windowMs: number,
    bucket: number,
    nowMs: number,
    budget: Budget,
  ): MaybePromise<{ counts: BudgetCounts; reserved: boolean }>;
}

export interface Clock {
  /** Wall-clock milliseconds since the Unix epoch. */
  nowMs(): number;
}

export interface StoreErrorContext {
  operation: 'read' | 'recordAttempt' | 'reserve';
  endpointId: string;
}

export interface RetryPolicyOptions {
  /** Default: a new process-local InMemoryBudgetStore. */
  store?: BudgetStore;
  /** Default: systemClock. */
  clock?: Clock;
  /** Told about every store failure (the decision is `budget_unavailable` regardless). */
  onStoreError?: (error: unknown, context: StoreErrorContext) => void;
}

/**
 * A policy document with a clock and a budget store. The budget FAILS
 * CLOSED: when the store throws, rejects or answers malformed counts, the
 * decision is `budget_unavailable` (dead-lettered), never "allow".
 */
export declare class RetryPolicy {
  constructor(document: PolicyDocument | string, options?: RetryPolicyOptions);
  readonly version: string;
  readonly classes: string[];
  readonly store: BudgetStore;
  readonly clock: Clock;
  /** The schedule a new event of `eventClass` is admitted under (default: now). */
  admit(eventClass: string, nowMs?: U64): Admission;
  policy(eventClass: string): CompiledPolicy;
  /** Count a first attempt (resolves false when the store failed; never blocks delivery). */
  recordFirstAttempt(eventClass: string, endpointId: string): Promise<boolean>;
  /** The decision after an attempt, at `clock.nowMs()`; counts the retry it schedules. */
  afterAttempt(state: ClassedDeliveryState, outcome: AttemptOutcome): Promise<Decision>;
  /** Pure: as `decide`, for a state carrying its class. */
  decide(state: ClassedDeliveryState, outcome: AttemptOutcome, nowMs: U64, budgetCounts: BudgetCounts | null): Decision;
  evaluate(state: ClassedDeliveryState, outcome: AttemptOutcome, nowMs: U64): Step;
}

/** Process-local counts (the core's in-memory counter): right for one process only. */
export declare class InMemoryBudgetStore implements BudgetStore {
  read(endpointId: string, windowMs: number, bucket: number): BudgetCounts;
  recordAttempt(endpointId: string, windowMs: number, bucket: number, isRetry: boolean): void;
}

/** Minimal ioredis surface the Redis store uses. */
export interface RedisLike {
  script(subcommand: 'LOAD', script: string): Promise<unknown>;
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** The fleet's shared budget (fleet/budget.lua, keys `rb:{<endpoint_id>}:<window_ms>:<bucket>`). */
export declare class RedisBudgetStore implements BudgetStore {
  constructor(redis: RedisLike, options?: { script?: string });
  read(endpointId: string, windowMs: number, bucket: number): Promise<BudgetCounts>;
  recordAttempt(endpointId: string, windowMs: number, bucket: number, isRetry: boolean): Promise<void>;
  reserve(
    endpointId: string,
    windowMs: number,
    bucket: number,
    nowMs: number,
    budget: Budget,
  ): Promise<{ counts: BudgetCounts; reserved: boolean }>;
}
export declare function bucketKey(endpointId: string, windowMs: number, bucket: number): string;

export declare const systemClock: Clock;
/** A clock that moves only when told to. */
export declare class ManualClock implements Clock {
  constructor(nowMs?: number);
  nowMs(): number;
  set(nowMs: number): void;
  advance(byMs: number): void;
}

export declare const STOP_REASONS: readonly StopReason[];
export declare const ERROR_CODES: readonly ErrorCode[];
export declare const OUTCOME_CLASSES: readonly OutcomeClass[];
export declare const JITTER_MODES: readonly Jitter[];
/** Version of the decision contract (SPEC format) this build implements. */
export declare const CONTRACT_FORMAT: number;
