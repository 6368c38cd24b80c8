// The API of @webhook/retry-policy. The data types (Policy, DeliveryState,
// Decision, StoreRequest, ...) are generated from wit/ into types.d.cts;
// this file declares only the functions and classes that use them.
// Integer inputs may be numbers (safe integers) or bigints; outputs are
// numbers (a value above 2^53-1, possible only from bigint inputs, comes
// back as a bigint).
import type {
  Int,
  Backoff,
  Budget,
  Policy,
  DeliveryState,
  AttemptOutcome,
  Schedule,
  OutcomeClass,
  Decision,
  Step,
  StoreReply,
  Settlement,
  StoreRequest,
  Reservation,
  HeldBuckets,
  Applied,
  Admission,
  ErrorCode,
  StopReason,
  StoreOp,
  Jitter,
  HealthDocument,
} from './types.cjs';

export type * from './types.cjs';

declare global {
  interface SymbolConstructor {
    /** DeliveryEngine closes on it (`using`); Node defines it (as @types/node declares). */
    readonly dispose: unique symbol;
  }
}

/** A DeliveryState that also names its event class (RetryPolicy). */
export type ClassedDeliveryState<N extends Int = number> = DeliveryState<N> & {
  class: string;
  /** The admission's policy_hash: the state keeps that document's policy across a reload. */
  policy_hash?: string;
};

/** An event class in a policy document; `max_attempts` is refused (it is derived from the window). */
export interface EventClassDocument {
  window_ms: Int;
  /** Default 16. */
  hard_cap?: Int;
  backoff: Omit<Backoff<Int>, 'jitter'> & { jitter?: Jitter };
  /** Default: 10% over 60 s, floor 50, sliding; each field defaults alone. */
  budget?: Partial<Budget<Int>>;
}

/** A policy document (at most 1 MiB as text). */
export interface PolicyDocument {
  version?: string;
  classes: Record<string, EventClassDocument>;
}

/** A refused input. `code` is the contract's code, `field` the dotted path ('' = the whole value). */
export declare class PolicyError extends Error {
  readonly name: 'PolicyError';
  readonly code: ErrorCode;
  readonly field: string;
  /** The sentence without the code and field. */
  readonly detail: string;
  constructor(code: ErrorCode, field: string, detail: string);
}

/** Derive max attempts and the schedule from a retry window. */
export declare function plan(backoff: Backoff<Int>, windowMs: Int, hardCap: Int): Schedule;
export declare function classifyStatus(status: Int): OutcomeClass;
export declare function classifyError(errorKind: string): Exclude<OutcomeClass, 'success'>;
/** What the component's imports answer during `decide`. */
export interface DecideImports {
  /** Answers the one store call synchronously (an async store goes through RetryPolicy#step). */
  store: SyncBudgetStore;
  /** Default: systemClock. Read once, before the call. */
  clock?: Clock;
  /** Told about a store call that threw or answered badly (the pending retry is then `budget_unavailable`). */
  onStoreError?: (error: unknown, request: StoreRequest) => void;
}
/**
 * The whole step in ONE call into the component (its `decide`): it reads
 * the clock and makes at most one store call through its imports.
 */
export declare function decide(policy: Policy<Int>, state: DeliveryState<Int>, outcome: AttemptOutcome<Int>, imports: DecideImports): Decision;
/** Gates 1-5 and the one store request this attempt needs. */
export declare function evaluate(policy: Policy<Int>, state: DeliveryState<Int>, outcome: AttemptOutcome<Int>, nowMs: Int): Step;
/** The decision once the store answered the request from `evaluate`. */
export declare function settle(
  policy: Policy<Int>,
  state: DeliveryState<Int>,
  outcome: AttemptOutcome<Int>,
  nowMs: Int,
  reply: StoreReply<Int>,
): Settlement;
/** A Retry-After header value (as received) in ms from `nowMs`; `null` when unusable. */
export declare function retryAfter(header: string, nowMs: Int): number | null;
/** The key a shared store files the request's endpoint and bucket width under. */
export declare function storeKey(request: StoreRequest<Int>): string;
/** An in-memory store's answer to `request` on what it holds (write `held` back). */
export declare function storeApply(request: StoreRequest<Int>, budget: Budget<Int>, nowMs: Int, held: HeldBuckets<Int>): Applied;
/** What an in-memory store holds for an endpoint it has not seen. */
export declare const EMPTY_HELD: Readonly<HeldBuckets>;

/** A format-3 document (format 2 with optional `health` sections; object or JSON text) through the component's load-health-document. */
export declare function loadHealthDocument(document: object | string): HealthDocument;
/** The current artifact's embedded document (format 2 or 3, read by its load-health-document), or null when it embeds none. */
export interface EmbeddedDocument {
  /** Its JSON text, as embedded. */
  readonly text: string;
  /** Whether a class has a `health` section (format 3). */
  readonly hasHealth: boolean;
  /** As loadHealthDocument gives it, health sections included. */
  readonly document: HealthDocument;
}
export declare function embeddedDocument(): EmbeddedDocument | null;

/**
 * Where a RetryPolicy counts attempts per endpoint: answers each request
 * from `evaluate` in ONE atomic call (sync or async). Throw or reject when
 * unreachable: the retry then fails closed.
 */
export interface BudgetStore {
  call(request: StoreRequest, budget: Budget, nowMs: number): Reservation<Int> | Promise<Reservation<Int>>;
}
/** A store that answers at once: what the component's `budget-store.call` import needs (`decide`). */
export interface SyncBudgetStore extends BudgetStore {
  call(request: StoreRequest, budget: Budget, nowMs: number): Reservation<Int>;
}

export interface Clock {
  /** Wall-clock milliseconds since the Unix epoch. */
  nowMs(): number;
}

export interface StoreErrorContext {
  operation: StoreOp;
  endpointId: string;
  /** The call did not answer within `storeTimeoutMs`. */
  timedOut: boolean;
}

export interface BudgetDisagreement {
  request: StoreRequest;
  reply: Reservation<Int>;
  decision: Decision;
}

export interface RetryPolicyOptions {
  /** Default: a new process-local InMemoryBudgetStore. */
  store?: BudgetStore;
  /** Default: systemClock. */
  clock?: Clock;
  /** Longest wait for one store call, ms (default 250); then the reply is "unavailable". */
  storeTimeoutMs?: number;
  /** Told about every failed or timed-out store call (the decision fails closed regardless). */
  onStoreError?: (error: unknown, context: StoreErrorContext) => void;
  /** Told when the store's verdict differs from the policy's rule on its own counts (the store's stands). */
  onBudgetDisagreement?: (disagreement: BudgetDisagreement) => void;
}

/**
 * A policy document with a clock and a budget store: after each attempt,
 * `decide` (one call; the component asks the clock and a synchronous
 * store) or `step` (evaluate, at most ONE store call, sync or async,
 * settle). The budget FAILS CLOSED: a
 * store that throws, rejects, times out or answers malformed data makes a
 * pending retry `budget_unavailable`, never "allow"; a first attempt's
 * `record` failing changes nothing.
 */
export declare class RetryPolicy {
  /** `document` omitted (undefined or null): the artifact's embedded document, followed across artifact swaps (a format-3 one, with health sections, is refused: `invalid_document`). */
  constructor(document?: PolicyDocument | string | null, options?: RetryPolicyOptions);
  readonly version: string;
  readonly classes: string[];
  readonly store: BudgetStore;
  readonly clock: Clock;
  /** Store verdicts that differed from the policy's rule, so far. */
  readonly budgetDisagreements: number;
  /** States whose policy_hash named no document this process knows (judged by the current one). */
  readonly policyHashMisses: number;
  /** Swaps whose embedded document had health sections (format 3): this kept its document (a DeliveryEngine runs those). */
  readonly skippedHealthDocuments: number;
  /** Validate, then swap in a new document (a bad one keeps the current one and says why; never throws). */
  reload(document: PolicyDocument | string): ReloadResult;
  /** The schedule a new event of `eventClass` is admitted under (default: now). */
  admit(eventClass: string, nowMs?: Int): Admission;
  /** The class's policy, in the contract's shape (frozen). */
  policy(eventClass: string): Readonly<Policy>;
  /** The decision after an attempt, at `clock.nowMs()`: counts the attempt, reserves the retry it schedules (any store). */
  step(state: ClassedDeliveryState<Int>, outcome: AttemptOutcome<Int>): Promise<Decision>;
  /** The same in ONE call into the component, through its clock and store imports (the store must be synchronous). */
  decide(state: ClassedDeliveryState<Int>, outcome: AttemptOutcome<Int>): Decision;
  /** A Retry-After header in ms from now (`clock.nowMs()` by default); `null` when unusable. */
  retryAfter(header: string, nowMs?: Int): number | null;
  evaluate(state: ClassedDeliveryState<Int>, outcome: AttemptOutcome<Int>, nowMs: Int): Step;
  settle(state: ClassedDeliveryState<Int>, outcome: AttemptOutcome<Int>, nowMs: Int, reply: StoreReply<Int>): Settlement;
}

/** Process-local counts, each request answered by the component's `storeApply`: right for one process only. Synchronous. */
export declare class InMemoryBudgetStore implements SyncBudgetStore {
  call(request: StoreRequest, budget: Budget, nowMs: number): Reservation;
}

/** Minimal ioredis surface the Redis store uses. */
export interface RedisLike {
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

export interface RedisBudgetStoreOptions {
  /** The Lua source (default: the shipped fleet/budget.lua). */
  script?: string;
  /** Refuse (store error) when the caller's clock and Redis TIME differ by more than a quarter window (default true). */
  skewCheck?: boolean;
}

/** The fleet's shared budget: ONE command per request (EVAL first, then EVALSHA; EVAL again once on NOSCRIPT). */
export declare class RedisBudgetStore implements BudgetStore {
  constructor(redis: RedisLike, options?: RedisBudgetStoreOptions);
  call(request: StoreRequest, budget: Budget, nowMs: number): Promise<Reservation>;
  /** One script call as a DeliveryEngine `store_call` action gives it (`key`, `argv`): the script's raw reply. */
  command(key: string, argv: readonly string[]): Promise<unknown>;
}

/** Why `maxmemory-policy` `policy` lets Redis evict budget keys (counts silently reset), or null for `noeviction`. */
export declare function evictionWarning(policy: string): string | null;
/** Ask Redis (`CONFIG GET maxmemory-policy`, once, at start) and return the warning, or null (also when CONFIG is refused). */
export declare function checkEviction(redis: { call(...args: string[]): Promise<unknown> }, timeoutMs?: number): Promise<string | null>;

export type ReloadResult = { ok: true; version: string; previousVersion: string } | { ok: false; error: Error & { code?: string; field?: string } };
/** Reload `policy` whenever `file` changes (stat polling); `check()` reloads now. */
export declare function watchPolicyFile(
  policy: RetryPolicy,
  file: string,
  options?: { intervalMs?: number; onReload?: (result: ReloadResult, file: string) => void },
): { check(): Promise<ReloadResult>; close(): void };

/** A Standard Webhooks secret: "whsec_" + base64 of the key (prefix optional), or the key bytes. */
export type SigningSecret = string | Uint8Array;
/** "v1,<base64 HMAC-SHA256(key, `${id}.${timestamp}.${body}`)>"; `timestamp` in Unix seconds. */
export declare function sign(secret: SigningSecret, id: string, timestamp: number, body: string | Uint8Array): string;
/** webhook-id, webhook-timestamp and webhook-signature (one v1 signature per secret, space-separated). */
export declare function signatureHeaders(secrets: SigningSecret | SigningSecret[], id: string, timestamp: number, body: string | Uint8Array): {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};
/** The receiver's check (tolerance window, constant-time compare): true, or throws WebhookVerificationError. */
export declare function verify(
  secrets: SigningSecret | SigningSecret[],
  headers: Record<string, string | string[] | undefined> | { get(name: string): string | null },
  body: string | Uint8Array,
  options?: { nowS?: number; toleranceS?: number },
): true;
export declare class WebhookVerificationError extends Error {}

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
export declare const STORE_OPS: readonly StoreOp[];
/** Version of the decision contract (format) this build implements. */
export declare const CONTRACT_FORMAT: number;

/**
 * Why `address` (IPv4 or IPv6 text; a zone is ignored) may not be a webhook destination
 * (docs/destinations.md: `loopback`, `private`, ...), or null; the component's table.
 * Throws PolicyError `invalid_address` for a text that is no address.
 */
export declare function destinationRefusal(address: string): string | null;

export { DeliveryEngine, EngineConfig, EngineInput, EngineAnswer, EngineAction, EngineInputError, EngineErrorCode } from './delivery-engine.cjs';
export { TransportKind, TRANSPORT_KINDS, TRANSPORT_KIND_NAMES, TRANSPORT_KIND_CLASS } from './transport-kinds.cjs';
/** Following a policy shipped to the fleet through its Redis (docs/rollout.md). */
export * as rollout from './rollout/index.cjs';
export { RolloutError, RolloutErrorCode, ROLLOUT_ERROR_CODES } from './rollout/index.cjs';

// ---- the policy artifact (docs/artifact.md) ----

/** What an artifact is. */
export interface ArtifactInfo {
  /** sha256 of the whole file, 64 lowercase hex digits. */
  readonly sha256: string;
  /** The WIT package it implements: "webhook:retry-policy@1.0.0". */
  readonly abi: string;
  /** The embedded document's version, or null when it embeds none. */
  readonly document_version: string | null;
  /** The path it was read from, "embedded" (the package's copy), "bytes" (or a loadArtifact label, e.g. "redis"). */
  readonly source: string;
  /** Size in bytes. */
  readonly size: number;
  /** From its build section (webhook-retry-policy:build), or null. */
  readonly policy_core_version: string | null;
  readonly source_digest: string | null;
}
export type ArtifactErrorCode =
  | 'artifact_pin_invalid'
  | 'artifact_unreadable'
  | 'artifact_too_large'
  | 'artifact_sha256_mismatch'
  | 'artifact_invalid'
  | 'artifact_abi_mismatch'
  | 'artifact_self_test_failed'
  | 'artifact_document_invalid';
/** An artifact that cannot be loaded or swapped in. */
export declare class ArtifactError extends Error {
  readonly name: 'ArtifactError';
  readonly code: ArtifactErrorCode;
  /** The sentence without the code. */
  readonly detail: string;
  constructor(code: ArtifactErrorCode, message: string);
}
export declare const ARTIFACT_ERROR_CODES: readonly ArtifactErrorCode[];
export interface ArtifactOptions {
  /** The sha256 the file must have, 64 hex digits in either case (absent or '': RETRY_POLICY_ARTIFACT_SHA256 when set and not empty). */
  expectedSha256?: string;
  /** What bytes are called in ArtifactInfo.source and refusals (default "bytes"). */
  label?: string;
}
export type SwapResult = { ok: true; info: ArtifactInfo; previous: ArtifactInfo } | { ok: false; error: ArtifactError };
export type ArtifactEvent =
  | { kind: 'loaded'; info: ArtifactInfo }
  | { kind: 'swapped'; info: ArtifactInfo; previous: ArtifactInfo }
  | { kind: 'refused'; error: ArtifactError; source: string; info: ArtifactInfo };
/** Load (path, bytes, or nothing: RETRY_POLICY_ARTIFACT, else the package's copy) as the current artifact; throws ArtifactError. */
export declare function loadArtifact(source?: string | Uint8Array | null, options?: ArtifactOptions): ArtifactInfo;
/** Check, then swap in, another artifact; a refused one keeps the current one (never throws). */
export declare function swapArtifact(source: string | Uint8Array, options?: ArtifactOptions): SwapResult;
/** Poll `file` and swap when its sha256 differs; a refused file is reported once per sha256. */
export declare function watchArtifact(
  file: string,
  options?: ArtifactOptions & { intervalMs?: number; onSwap?: (result: SwapResult, file: string) => void },
): { check(): SwapResult | null; close(): void };
/** The current artifact (loaded on first use). */
export declare function artifactInfo(): ArtifactInfo;
/** A label of a metric family: its name and its closed set of values, or null when open. */
export interface MetricLabel {
  readonly name: string;
  readonly values: readonly string[] | null;
}
/** One family of the dispatcher's metrics (docs/metrics.md "The schema as data"). */
export interface MetricFamily {
  /** The sample name (a counter's with its `_total`), e.g. "webhook_attempts_total". */
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly help: string;
  readonly labels: readonly MetricLabel[];
  /** A histogram's bucket upper bounds in seconds (empty for the others). */
  readonly buckets_s: readonly number[];
  /** "engine": moved only by the engine's count and gauge actions; "host": by the host's own code. */
  readonly moved_by: 'engine' | 'host';
}
/** The current artifact's metric families, in docs/metrics.md's order (its metrics-schema export); throws ArtifactError. */
export declare function metricsSchema(): readonly MetricFamily[];
/** Hear every load, swap and refusal; returns a function that stops it. */
export declare function onArtifactChange(listener: (event: ArtifactEvent) => void): () => void;
/** `component` with one more custom section (a different, still valid artifact). */
export declare function appendCustomSection(component: Uint8Array, name: string, content: string | Uint8Array): Uint8Array;
/** "webhook:retry-policy@1.0.0" */
export declare const WIT_PACKAGE: string;
/** 4 */
export declare const ABI_VERSION: number;
