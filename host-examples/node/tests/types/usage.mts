// Compiled (never run) by tests/types.test.mjs with `tsc --strict --noEmit`:
// a user's ESM TypeScript against the package's published types. The lines
// marked as expected errors must stay errors: they prove the types are not `any`.
import {
  RetryPolicy,
  evaluate,
  settle,
  retryAfter,
  storeKey,
  storeApply,
  EMPTY_HELD,
  plan,
  PolicyError,
  InMemoryBudgetStore,
  RedisBudgetStore,
  ManualClock,
  type Decision,
  type Policy,
  type StopReason,
  type BudgetStore,
  type StoreRequest,
  type Reservation,
  type Step,
  type Settlement,
  type ErrorCode,
  type HealthDocument,
  loadHealthDocument,
  embeddedDocument,
  DeliveryEngine,
  type EngineAnswer,
  type EngineErrorCode,
  decide,
  artifactInfo,
  metricsSchema,
  type MetricFamily,
  swapArtifact,
  watchArtifact,
  onArtifactChange,
  loadArtifact,
  ArtifactError,
  RolloutError,
  type RolloutErrorCode,
  rollout,
  appendCustomSection,
  type ArtifactInfo,
  type SwapResult,
  type ArtifactErrorCode,
  TRANSPORT_KINDS,
  TRANSPORT_KIND_NAMES,
  type TransportKind,
} from '@webhook/retry-policy';

const policy: Policy = {
  backoff: { base_ms: 2000, factor: 2, cap_ms: 300_000, jitter: 'full' },
  window_ms: 900_000,
  hard_cap: 16,
  budget: { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true },
};
const state = {
  event_id: 'evt_1',
  endpoint_id: 'ep_1',
  attempt: 1,
  max_attempts: 13,
  first_attempted_at_ms: 0,
  credentials_refreshed: false,
};

export function describe(d: Decision): string {
  if (d.stop_reason === null) return `retry in ${d.retry.delay_ms} ms`;
  if (d.stop_reason === 'delivered') return 'delivered';
  const reason: StopReason = d.dead_letter.stop_reason;
  return `dead-letter ${d.dead_letter.event_id}: ${reason}`;
}

const store = new InMemoryBudgetStore();
describe(decide(policy, state, { status: 503, retry_after_ms: 1000 }, { store }));
describe(decide(policy, state, { status: 503, retry_after_ms: null }, { store, clock: new ManualClock(100) }));
describe(decide(policy, { ...state, first_attempted_at_ms: 0n }, { error_kind: 'connect_timeout' }, { store }));
plan(policy.backoff, 900_000, 16).limited_by satisfies 'window' | 'hard_cap';

// The step: evaluate -> one store call -> settle.
const step: Step = evaluate(policy, state, { status: 503 }, 100);
if (step.store !== null) {
  const key: string = storeKey(step.store);
  const applied = storeApply(step.store, policy.budget, 100, EMPTY_HELD);
  const s: Settlement = settle(policy, state, { status: 503 }, 100, applied.reply);
  void [key, s.budget_disagreement, describe(s.decision)];
}
settle(policy, state, { status: 503 }, 100, { unavailable: true });
const ms: number | null = retryAfter('120', 0);
void ms;

// @ts-expect-error jitter modes are string literals
const bad: Policy = { ...policy, backoff: { ...policy.backoff, jitter: 'decorrelated' } };
void bad;
// @ts-expect-error an outcome is a status or an error kind
evaluate(policy, state, { code: 503 }, 100);
// @ts-expect-error a store reply is {unavailable: true} or {reserved, counts}
settle(policy, state, { status: 503 }, 100, { unavailable: false });
// @ts-expect-error store ops are string literals
storeKey({ op: 'read', endpoint_id: 'e', window_ms: 1, bucket: 0 });

const asyncStore: BudgetStore = {
  async call(request: StoreRequest): Promise<Reservation> {
    void request.bucket;
    return { reserved: true, counts: { current: { total: 0, retries: 0 }, previous: { total: 0, retries: 0 } } };
  },
};
const rp = new RetryPolicy({ classes: { n: { window_ms: 60_000, backoff: { base_ms: 100, factor: 2, cap_ms: 1000 } } } }, {
  store: asyncStore,
  clock: new ManualClock(0),
  storeTimeoutMs: 100,
  onStoreError: (e, ctx) => void [e, ctx.operation, ctx.timedOut],
  onBudgetDisagreement: (d) => void [d.request.op, d.reply.reserved],
});
new RetryPolicy('{"classes":{}}', { store: new InMemoryBudgetStore() });
declare const redisClient: { evalsha(...a: unknown[]): Promise<unknown>; eval(...a: unknown[]): Promise<unknown> };
new RetryPolicy('{"classes":{}}', { store: new RedisBudgetStore(redisClient, { skewCheck: false }) });
// The imports-driven step: one call, the component asks the clock and a synchronous store.
describe(decide(policy, state, { status: 503 }, { store: new InMemoryBudgetStore(), clock: new ManualClock(100) }));
// @ts-expect-error decide needs a synchronous store
decide(policy, state, { status: 503 }, { store: asyncStore });
const synced = new RetryPolicy(null, { store: new InMemoryBudgetStore() });
void synced.decide({ ...state, class: 'n' }, { status: 503 });

// The artifact.
const info: ArtifactInfo = artifactInfo();
void [info.sha256, info.abi, info.document_version, info.source];
const swapped: SwapResult = swapArtifact('retry_policy.wasm', { expectedSha256: info.sha256 });
if (!swapped.ok) {
  const code: ArtifactErrorCode = swapped.error.code;
  void code;
}
const watch = watchArtifact('retry_policy.wasm', { intervalMs: 500, onSwap: (r) => void r.ok });
watch.close();
onArtifactChange((e) => void (e.kind === 'swapped' ? e.previous.sha256 : e.info.sha256))();
void [loadArtifact, ArtifactError, appendCustomSection(new Uint8Array(8), 'x', '{}')];
const families: readonly MetricFamily[] = metricsSchema();
for (const f of families) void [f.name, f.help, f.buckets_s.length, f.labels.map((l) => l.values?.length ?? 0)];
// @ts-expect-error a family's type is one of counter, gauge, histogram
const summary: MetricFamily['type'] = 'summary';
void summary;

export async function run(): Promise<void> {
  const d = await rp.step({ ...state, class: 'n' }, { status: 500 });
  describe(d);
  const n: Readonly<Policy> = rp.policy('n');
  void [n.budget.window_ms, rp.retryAfter('Sun, 06 Nov 1994 08:49:37 GMT'), rp.budgetDisagreements];
  try {
    rp.admit('nope');
  } catch (e) {
    if (e instanceof PolicyError) {
      const code: ErrorCode = e.code;
      void [code, e.field];
    }
  }
}

const tlsKind: TransportKind = TRANSPORT_KINDS.TLS_CERTIFICATE;
const kindNames: readonly TransportKind[] = TRANSPORT_KIND_NAMES;
// @ts-expect-error a transport kind is one of the table's names
const misspelt: TransportKind = 'tls_error';
void [tlsKind, kindNames, misspelt];

// Format-3 documents: loaded by the component (the delivery engine runs them).
{
  const loaded: HealthDocument = loadHealthDocument('{"classes":{}}');
  const embedded = embeddedDocument();
  void [loaded.classes.map((c) => [c.policy_hash, c.health?.cache_ms]), embedded?.hasHealth, embedded?.document.version];
  // @ts-expect-error a document is an object or its JSON text
  loadHealthDocument(42);
}

// The delivery engine: typed inputs in, typed answers out.
{
  const engine = new DeliveryEngine({ document: '{"classes":{}}', memory_store: true, max_open: 2 });
  const answer: EngineAnswer = engine.feed([{ op: 'admit', now_ms: 1, event_id: 'e', endpoint_id: 'p', target: 'https://x', class: 'n' }]);
  const code: EngineErrorCode | undefined = answer.errors[0]?.error;
  void [code, answer.outputs.map((o) => o.action), answer.timeout_ms, engine.resume(2n, new Uint8Array()).errors];
  // @ts-expect-error a result has a status, an error_kind or not_started
  engine.feed([{ op: 'result', now_ms: 3, event_id: 'e', attempt: 1 }]);
  engine.close();
}

// The fleet rollout (docs/rollout.md): typed trust, follower and refusals.
{
  const trusted: rollout.TrustedKeys = rollout.readTrust('');
  const ids: readonly string[] = rollout.readTrustFile('trust.pem').keyIds;
  const text: string = rollout.readTrustText('trust.pem');
  try {
    rollout.readTrust('');
  } catch (e) {
    if (e instanceof RolloutError) {
      const code: RolloutErrorCode = e.code;
      // @ts-expect-error a rollout code is one of the doc's codes
      const wrong: RolloutErrorCode = 'rollout_unknown';
      void [code, wrong];
    }
  }
  const follower = new rollout.RolloutFollower({ redis: {}, trusted, replicaId: 'node-a', timeoutMs: 250 });
  const result: rollout.TickResult = await follower.tick();
  const status: rollout.StatusRecord | null = follower.lastStatus;
  if (result.kind === 'refused') void result.refusal.code;
  if (result.kind === 'swapped') void result.info.sha256;
  // @ts-expect-error the replica id is a string
  new rollout.RolloutFollower({ redis: {}, trusted, replicaId: 7 });
  void [ids, text, status?.epoch];
}
