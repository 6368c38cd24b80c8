// Types of `rollout` (lib/rollout/index.cjs): following a policy shipped to
// the fleet through its Redis (docs/rollout.md).
import type { ArtifactInfo, ArtifactError } from '../index.cjs';

export type RolloutErrorCode =
  | 'rollout_record_invalid'
  | 'rollout_trust_invalid'
  | 'rollout_key_unknown'
  | 'rollout_signature_invalid'
  | 'rollout_artifact_missing';
/** A rollout record, trust file, key, signature or published artifact refused. */
export declare class RolloutError extends Error {
  readonly name: 'RolloutError';
  readonly code: RolloutErrorCode;
  /** The sentence without the code. */
  readonly detail: string;
  constructor(code: RolloutErrorCode, message: string);
}
export declare const ROLLOUT_ERROR_CODES: readonly RolloutErrorCode[];

/** The rollout record (docs/rollout.md "The rollout record"). */
export interface RolloutRecord {
  readonly v: 1;
  /** 1 to 2^53 - 1; every change of the record increases it by one. */
  readonly epoch: number;
  /** sha256 (64 lowercase hex digits) of the stable artifact. */
  readonly stable: string;
  readonly canary: { readonly sha256: string; readonly percent: number } | null;
  /** At most 5 sha256s, newest first. */
  readonly previous: readonly string[];
}
/** The bucket of a replica id: first 4 bytes of sha256(UTF-8), big-endian, modulo 100. */
export declare function bucket(replicaId: string): number;
/** Read a record text (or its UTF-8 bytes); throws RolloutError `rollout_record_invalid` unless it is a valid record in its canonical text. */
export declare function readRecord(text: string | Uint8Array): RolloutRecord;
/** The canonical text of a record. */
export declare function canonicalRecord(record: RolloutRecord): string;
/** The sha256 the replica `replicaId` runs under `record` (the canary's when its bucket is below the percent). */
export declare function desired(record: RolloutRecord, replicaId: string): string;

/** The trusted Ed25519 public keys of a trust file. */
export declare class TrustedKeys {
  private constructor();
  /** Key ids (16 lowercase hex digits), in the file's order. */
  readonly keyIds: string[];
}
/** Read a trust file's text (PEM PUBLIC KEY blocks, Ed25519); throws RolloutError `rollout_trust_invalid`. */
export declare function readTrust(text: string): TrustedKeys;
/** Read the trust file at `file` (a regular file, at most 1 MiB, never blocking on a fifo); throws RolloutError `rollout_trust_invalid` naming it. */
export declare function readTrustFile(file: string): TrustedKeys;
export declare const MAX_TRUST_FILE_BYTES: number;
/** True, or throws RolloutError `rollout_key_unknown` / `rollout_signature_invalid`. */
export declare function verify(trusted: TrustedKeys, keyId: string, signatureBase64: string, artifactSha256: string): true;
/** "webhook-retry-policy artifact v1\n" */
export declare const SIGNED_MESSAGE_PREFIX: string;
/** The bytes an artifact's signature covers: the prefix, then its sha256 in hex. */
export declare function signedMessage(artifactSha256: string): Uint8Array;
/** The key id of a node:crypto Ed25519 public KeyObject. */
export declare function keyIdOf(publicKey: object): string;

export declare const STATE_KEY: 'retry-policy:{rollout}:state';
export declare const REPLICAS_KEY: 'retry-policy:{rollout}:replicas';
export declare function artifactKey(sha256: string): string;
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
export type TickResult =
  | { kind: 'store_failed' | 'unsettled'; error: unknown }
  | { kind: 'none' | 'unchanged' }
  | { kind: 'settled'; epoch: number }
  | { kind: 'swapped'; epoch: number; info: ArtifactInfo }
  | { kind: 'refused'; epoch: number; refusal: Refusal };
export interface FollowerOptions {
  /** An ioredis client or Cluster (pipeline, hstrlen, hmgetBuffer). */
  redis: object;
  trusted: TrustedKeys;
  /** 1 to 200 bytes of UTF-8. */
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
/** The follower of docs/rollout.md "What a replica does". */
export declare class RolloutFollower {
  constructor(options: FollowerOptions);
  /** The last epoch settled (0 before any). */
  readonly epoch: number;
  /** The latest refusal since start, or null. */
  readonly refusal: Refusal | null;
  status(): StatusRecord;
  /** One tick (never rejects; ticks never overlap). */
  tick(): Promise<TickResult>;
  /** Tick every `intervalMs` in the background. */
  start(intervalMs: number): void;
  stop(): void;
  close(): void;
}
