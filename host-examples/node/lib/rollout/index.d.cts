// Types of `rollout` (lib/rollout/index.cjs): following a policy shipped to
// the fleet through its Redis (docs/rollout.md). The record, the canary
// rule, the trust file's keys and the signature are the component's
// (rollout-open, rollout-step); this package reads the trust file, makes
// the store calls and swaps the artifact in.
import type { ArtifactInfo, ArtifactError } from '../index.cjs';

export type RolloutErrorCode =
  | 'rollout_record_invalid'
  | 'rollout_trust_invalid'
  | 'rollout_key_unknown'
  | 'rollout_signature_invalid'
  | 'rollout_artifact_missing'
  | 'rollout_input_invalid';
/** A trust file refused, or an input the component's follower refused (a replica id out of range). */
export declare class RolloutError extends Error {
  readonly name: 'RolloutError';
  readonly code: RolloutErrorCode;
  /** The sentence without the code. */
  readonly detail: string;
  constructor(code: RolloutErrorCode, message: string);
}
export declare const ROLLOUT_ERROR_CODES: readonly RolloutErrorCode[];

/** A trust file's text and the ids of its Ed25519 keys, as the component read them. */
export declare class TrustedKeys {
  private constructor();
  /** The trust file's text. */
  readonly pem: string;
  /** Key ids (16 lowercase hex digits), in the file's order. */
  readonly keyIds: readonly string[];
}
/** Read a trust file's text (PEM PUBLIC KEY blocks, Ed25519) through the current artifact; throws RolloutError `rollout_trust_invalid`. */
export declare function readTrust(text: string): TrustedKeys;
/** The text of the trust file at `file` (a regular file, at most 1 MiB, never blocking on a fifo); throws RolloutError `rollout_trust_invalid` naming it. */
export declare function readTrustText(file: string): string;
/** readTrust of the file at `file`; throws RolloutError `rollout_trust_invalid` naming it. */
export declare function readTrustFile(file: string): TrustedKeys;
export declare const MAX_TRUST_FILE_BYTES: number;

export declare const STATE_KEY: 'retry-policy:{rollout}:state';
export declare const REPLICAS_KEY: 'retry-policy:{rollout}:replicas';
/** GETRANGE's last index: at most 4,097 bytes of the record are read. */
export declare const MAX_RECORD_BYTES: 4096;
/** ArtifactInfo.source of an artifact swapped in from Redis. */
export declare const REDIS_SOURCE: 'redis';

export interface Refusal {
  /** The desired sha256 refused (null when the record itself was refused). */
  sha256: string | null;
  code: RolloutErrorCode | ArtifactError['code'];
  message: string;
  at_ms: number;
}
/** A replica's status record (docs/rollout.md "The status record"). */
export interface StatusRecord {
  replica_id: string;
  language: string;
  host: string;
  pid: number;
  artifact_sha256: string;
  document_version: string;
  since_ms: number;
  events: number;
  dead_letters: number;
  seen_ms: number;
  epoch: number;
  refusal: Refusal | null;
}
/**
 * What a tick did: `done` (nothing published, the record unchanged, or
 * settled on what runs), a swap, a refusal (logged once), a store call that
 * failed (nothing settled), or `error`: the component refused an input
 * (a bug of this host; logged).
 */
export type TickResult =
  | { kind: 'done' }
  | { kind: 'swapped'; sha256: string; info: ArtifactInfo }
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'store_failed'; error: string }
  | { kind: 'error'; error: unknown };
export interface FollowerOptions {
  /** An ioredis client or Cluster (pipeline, hstrlen, hmgetBuffer). */
  redis: object;
  trusted: TrustedKeys;
  /** 1 to 200 bytes of UTF-8 (else RolloutError `rollout_input_invalid`). */
  replicaId: string;
  /** Default 'node'. */
  language?: string;
  /** Default os.hostname(). */
  host?: string;
  /** One command's bound (default 250 ms). */
  timeoutMs?: number;
  /** The artifact fetch's bound (default max(timeoutMs, 5000) ms). */
  fetchTimeoutMs?: number | null;
  /** The document version decided with (default: the artifact's embedded one). */
  documentVersion?: (() => string | null) | null;
  /** Cumulative events finished and dead-lettered (default zeros). */
  counts?: (() => { events: number; dead_letters: number }) | null;
  log?: (line: string) => void;
  /** Told every refusal, after its log line. */
  onRefusal?: (refusal: Refusal) => void;
  /** Unix ms (default Date.now). */
  nowMs?: () => number;
}
/** The follower of docs/rollout.md "What a replica does", driving the component's. */
export declare class RolloutFollower {
  constructor(options: FollowerOptions);
  /** The latest refusal since start, or null. */
  readonly refusal: Refusal | null;
  /** The status record the last tick wrote, or null before any. */
  readonly lastStatus: StatusRecord | null;
  /** One tick (never rejects; ticks never overlap). */
  tick(): Promise<TickResult>;
  /** The artifact was swapped another way (swapArtifact, a file watch): the status's since_ms and counts start again now. */
  artifactSwapped(): void;
  /** Tick every `intervalMs` in the background. */
  start(intervalMs: number): void;
  stop(): void;
  close(): void;
}
