// Compiled (never run) by tests/types.test.mjs with `tsc --noEmit`: a user's
// ESM TypeScript against the package's published types. The lines marked
// as expected errors must stay errors: they prove the types are not `any`.
import {
  RetryPolicy,
  compilePolicy,
  decide,
  plan,
  PolicyError,
  InMemoryBudgetStore,
  ManualClock,
  type Decision,
  type Policy,
  type StopReason,
  type BudgetStore,
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

describe(decide(policy, state, { status: 503, retry_after_ms: 1000 }, 100, null));
describe(compilePolicy(policy).decide(state, { error_kind: 'connect_timeout' }, 100n, null));
plan(policy.backoff, 900_000, 16).limited_by satisfies 'window' | 'hard_cap';

// @ts-expect-error jitter modes are string literals
const bad: Policy = { ...policy, backoff: { ...policy.backoff, jitter: 'decorrelated' } };
void bad;
// @ts-expect-error an outcome is a status or an error kind
decide(policy, state, { code: 503 }, 100, null);

const asyncStore: BudgetStore = {
  async read() {
    return { current: { total: 0, retries: 0 }, previous: { total: 0, retries: 0 } };
  },
  async recordAttempt() {},
};
const rp = new RetryPolicy({ classes: { n: { window_ms: 60_000, backoff: { base_ms: 100, factor: 2, cap_ms: 1000 } } } }, {
  store: asyncStore,
  clock: new ManualClock(0),
  onStoreError: (e, ctx) => void [e, ctx.operation],
});
new RetryPolicy('{"classes":{}}', { store: new InMemoryBudgetStore() });
export async function run(): Promise<void> {
  const d = await rp.afterAttempt({ ...state, class: 'n' }, { status: 500 });
  describe(d);
  try {
    rp.admit('nope');
  } catch (e) {
    if (e instanceof PolicyError) {
      const code: 'unknown_event_class' | string = e.code;
      void [code, e.field];
    }
  }
}
