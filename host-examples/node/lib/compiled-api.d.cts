// The compiled policy of ABI 0.3 (lib/compiled.cjs, lib/handles.cjs) and
// format 3's functions (lib/health-ops.cjs), re-exported by index.d.cts.
import type {
  Int,
  Budget,
  Policy,
  DeliveryState,
  AttemptOutcome,
  BudgetCounts,
  Decision,
  Step,
  StoreReply,
  Settlement,
  Resumption,
  Admission,
  Health,
  HealthView,
  HealthDocument,
  HealthOutcome,
  Pacer,
  Release,
  GateEvent,
  GateAnswer,
  Wake,
  WakeVerdict,
  CallOp,
  StoreCall,
  AdvanceResult,
  Finished,
  HeldHealth,
  CallApplied,
  Paced,
} from './types.cjs';
import type { DecideImports } from './index.cjs';

/** Options of compilePolicy: a format-3 `health` section (every field given), or none. */
export interface CompileOptions {
  health?: Health<Int> | null;
}

/**
 * A policy checked, converted and compiled once (ABI 0.3 `compile`): the
 * compiled calls name a component handle and lower only the state, the
 * outcome, the time and the reply. One handle per component instance the
 * policy ran on, compiled lazily there; released by close() (also free()
 * and `using`), or by a FinalizationRegistry when the policy is collected
 * unclosed. After close() the compiled calls throw PolicyError
 * `invalid_input` at `handle`; the 0.2 methods keep working.
 */
export declare class CompiledPolicy {
  constructor(policy: Policy<Int>, options?: CompileOptions);
  /** After an attempt: decided (one call in all) or the store call to make before finish. */
  advance(state: DeliveryState<Int>, outcome: AttemptOutcome<Int>, nowMs: Int, options?: { probe?: boolean }): AdvanceResult;
  /** The verdict once the store answered advance's call. */
  finish(state: DeliveryState<Int>, outcome: AttemptOutcome<Int>, nowMs: Int, reply: StoreReply<Int>): Finished;
  /** The gate before every send (format 3; without a section: the window, then send). */
  gate(event: GateEvent<Int>, view: HealthView<Int> | null, pacer: Pacer<Int>, nowMs: Int): GateAnswer;
  /** The gate once the `probe` call answered. */
  afterProbe(event: GateEvent<Int>, granted: boolean, view: HealthView<Int>, pacer: Pacer<Int>, nowMs: Int): GateAnswer;
  /** A budget-held retry's wake, once its `reserve` call answered. */
  settleWake(wake: Wake<Int>, reply: StoreReply<Int>, nowMs: Int): WakeVerdict;
  /** A store call not tied to an attempt: `reserve` (a wake) or `probe`. */
  callFor(op: CallOp, endpointId: string, nowMs: Int): StoreCall;
  /** The admission of a new event (the hash covers the health section). */
  admit(eventClass: string, policyVersion: string, nowMs: Int): Admission;
  evaluate(state: DeliveryState<Int>, outcome: AttemptOutcome<Int>, nowMs: Int): Step;
  settle(state: DeliveryState<Int>, outcome: AttemptOutcome<Int>, nowMs: Int, reply: StoreReply<Int>): Settlement;
  decideWith(state: DeliveryState<Int>, outcome: AttemptOutcome<Int>, nowMs: Int, budgetCounts: BudgetCounts<Int> | null): Decision;
  decide(state: DeliveryState<Int>, outcome: AttemptOutcome<Int>, imports: DecideImports): Decision;
  resume(state: DeliveryState<Int>, nowMs: Int): Resumption;
  toJSON(): Policy;
  /** The health section, or null (format 2). */
  readonly health: Health | null;
  /** close() was called. */
  readonly closed: boolean;
  /** Discard the component handles now (idempotent). */
  close(): void;
  /** close() (the earlier API's name). */
  free(): void;
  [Symbol.dispose](): void;
}
export declare function compilePolicy(policy: Policy<Int>, options?: CompileOptions): CompiledPolicy;

/** A format-3 document's classes, each compiled once; close() releases them all. */
export interface CompiledDocument {
  readonly version: string;
  readonly classes: ReadonlyMap<string, CompiledPolicy>;
  /** Each class's policy_hash (covers its section). */
  readonly hashes: ReadonlyMap<string, string>;
  close(): void;
  [Symbol.dispose](): void;
}
/** A format-3 document (object or JSON text) through the component's load-health-document. */
export declare function loadHealthDocument(document: object | string): HealthDocument;
export declare function compileDocument(document: object | string): CompiledDocument;
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
/** An in-memory store's answer to a 0.3 store call on what it holds for the call's key (write `held` back). */
export declare function applyCall(call: StoreCall<Int>, nowMs: Int, held: HeldHealth<Int>): CallApplied;
/** What an in-memory store holds for a key it has not seen. */
export declare const EMPTY_HELD_HEALTH: Readonly<HeldHealth>;
/** Release pacing alone. */
export declare function pace(release: Release, pacer: Pacer<Int>, nowMs: Int): Paced;
/** A replica's admission rate to an endpoint, per second. */
export declare function normalPerS(budget: Budget<Int>, nowMs: Int, current: Int, previous: Int): number;
/** The health class of an outcome. */
export declare function healthOutcome(outcome: AttemptOutcome<Int>): HealthOutcome;
/** When the pause an outcome asks for ends (0: none). */
export declare function pauseUntil(health: Health<Int>, outcome: AttemptOutcome<Int>, nowMs: Int): number;
