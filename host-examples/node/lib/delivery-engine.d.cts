// Types of lib/delivery-engine.cjs: the delivery engine (docs/engine.md)
// driven through the component, JSON batches in, actions out. The shapes
// are the engine's wire (docs/engine.md sections 1, 2 and 14).
import type { ErrorCode } from './types.cjs';

/** An integer of the wire: a number (a bigint only up to 2^53 - 1; pass JSON text beyond). */
type Ms = number | bigint;

/** docs/engine.md section 1. */
export interface EngineConfig {
  /** The current policy document (format 2 or 3), an object or its JSON text. */
  document: object | string;
  /** Default 64. */
  max_in_flight?: number;
  /** Default 100,000. */
  max_events?: Ms;
  /** Default none: open events (pending and held) at once for admissions; past it an `admit` is `at_capacity` and changes nothing (resume and replay are not bounded). */
  max_open?: Ms;
  /** Default 10,000. */
  max_endpoints?: Ms;
  /** Default false: the engine answers its own store calls (no `store_call` action). */
  memory_store?: boolean;
  /** Default true. */
  skew_check?: boolean;
  /** Default true; false: resume, replay and journal, never send (docs/engine.md section 1). */
  dispatch?: boolean;
  /** Default true; false: no `journal` or `journal_compact` actions. */
  journal?: boolean;
}

/** One input (docs/engine.md section 2); every input carries `now_ms`. */
export type EngineInput =
  | { op: 'tick' | 'drain'; now_ms: Ms }
  | { op: 'admit'; now_ms: Ms; event_id: string; endpoint_id: string; target: string; class: string; body_b64?: string }
  | { op: 'result'; now_ms: Ms; event_id: string; attempt: number; status: number; retry_after?: string }
  | { op: 'result'; now_ms: Ms; event_id: string; attempt: number; error_kind: string }
  | { op: 'result'; now_ms: Ms; event_id: string; attempt: number; not_started: true }
  | { op: 'store'; now_ms: Ms; call_id: number; reply: number[] }
  | { op: 'store'; now_ms: Ms; call_id: number; failed: true }
  | { op: 'replay'; now_ms: Ms; endpoint_id?: string; stop_reason?: string; from_ms?: Ms; to_ms?: Ms; limit?: Ms }
  | { op: 'resume'; now_ms: Ms; journal: string; copy?: boolean }
  | { op: 'snapshot'; now_ms: Ms }
  | { op: 'swap'; now_ms: Ms; document: object | string };

/** The codes of an input the engine refuses (docs/engine.md section 2), and the policy codes. */
export type EngineErrorCode =
  | ErrorCode
  | 'time_went_backwards'
  | 'duplicate_event'
  | 'unknown_event'
  | 'unexpected_result'
  | 'unknown_call'
  | 'draining'
  | 'at_capacity'
  | 'engine_full'
  | 'resume_too_late'
  | 'engine_busy'
  | 'journal_unsupported'
  | 'journal_corrupt'
  | 'journal_record_invalid';

/** A refused input of a batch: its index, code and message; it changed nothing. */
export interface EngineInputError {
  index: number;
  error: EngineErrorCode;
  message: string;
}

/** One action (docs/engine.md section 14): `action` names it, the other fields are that action's. */
export interface EngineAction {
  action:
    | 'journal'
    | 'journal_truncate'
    | 'journal_compact'
    | 'send'
    | 'store_call'
    | 'delivered'
    | 'dead_letter'
    | 'hold'
    | 'count'
    | 'gauge'
    | 'replayed'
    | 'drained'
    | 'resumed'
    | 'snapshot'
    | 'warn';
  [field: string]: unknown;
}

/** What a batch caused, in order. */
export interface EngineAnswer {
  outputs: EngineAction[];
  errors: EngineInputError[];
  /** When to send the next `tick` (ms), or null. */
  timeout_ms: number | null;
}

/**
 * A delivery engine in the current artifact's component. Errors of the
 * component (a refused config, a batch that is not a JSON array, a closed
 * engine) are thrown as PolicyError with the engine's code; refused inputs
 * are in the answer's `errors`.
 */
export declare class DeliveryEngine {
  /** Open an engine on `config` (an object or its JSON text); throws PolicyError when refused. */
  constructor(config: EngineConfig | string);
  /** Same as the constructor. */
  static open(config: EngineConfig | string): DeliveryEngine;
  /** Feed a batch (an array of inputs, or its JSON text) in one crossing. */
  feed(inputs: readonly EngineInput[] | string): EngineAnswer;
  /** `resume` from the journal's bytes (or its text) at `nowMs`. */
  resume(nowMs: Ms, journal: Uint8Array | string): EngineAnswer;
  /** Forget the engine (idempotent); later calls throw PolicyError (invalid_input at `handle`). */
  close(): void;
  [Symbol.dispose](): void;
}
