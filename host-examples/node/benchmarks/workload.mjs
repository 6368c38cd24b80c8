// The benchmark's inputs: WORKLOAD_SIZE distinct delivery steps (event ids
// of 12-40 characters, a mix of 2xx / 5xx with and without Retry-After /
// 410 / 401 / transport errors, attempts 1..16, budget counts around the
// threshold), replayed in order, and the timing loop.
export const POLICY = {
  backoff: { base_ms: 2000, factor: 2.0, cap_ms: 300_000, jitter: 'full' },
  window_ms: 900_000,
  hard_cap: 16,
  budget: { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true },
};
export const DOCUMENT = {
  classes: { bench: { window_ms: 900_000, hard_cap: 16, backoff: { base_ms: 2000, factor: 2.0, cap_ms: 300_000, jitter: 'full' } } },
};
const WORKLOAD_SIZE = 4096;

export function workload() {
  let seed = 0x2545f491;
  const rnd = (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const outcomes = [
    { status: 503 },
    { status: 500 },
    { status: 429, retry_after_ms: 30_000 },
    { status: 204 },
    { status: 410 },
    { status: 401 },
    { error_kind: 'connect_timeout' },
    { error_kind: 'invalid_url' },
  ];
  const t0 = 1_700_000_000_000;
  return Array.from({ length: WORKLOAD_SIZE }, (_, i) => {
    const idLen = 12 + rnd(29);
    const state = {
      event_id: `evt_${i.toString(36)}_${'x'.repeat(idLen)}`.slice(0, idLen),
      endpoint_id: `ep_${rnd(200)}`,
      attempt: 1 + rnd(16),
      max_attempts: 13,
      first_attempted_at_ms: t0,
      credentials_refreshed: rnd(2) === 1,
    };
    const total = 40 + rnd(200);
    const counts = { current: { total, retries: rnd(Math.ceil(total / 8)) }, previous: { total: 100 + rnd(100), retries: rnd(20) } };
    return { state, outcome: outcomes[rnd(outcomes.length)], nowMs: t0 + rnd(1_000_000), counts, reply: { reserved: rnd(4) !== 0, counts } };
  });
}

/** Median ns per call of `fn` over `cases` (synchronous). */
export function nsPerCall(fn, cases, { iterations = 200_000, rounds = 7 } = {}) {
  const n = cases.length;
  let sink = 0;
  for (let i = 0; i < 20_000; i++) sink += fn(cases[i % n]) === null ? 1 : 0; // warm-up
  const times = [];
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) sink += fn(cases[i % n]) === null ? 1 : 0;
    times.push(Number(process.hrtime.bigint() - t) / iterations);
  }
  if (sink < 0) console.log(sink);
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** Median ns per call of an async `fn` (awaited one at a time). */
export async function nsPerAsyncCall(fn, cases, { iterations = 50_000, rounds = 5 } = {}) {
  const n = cases.length;
  for (let i = 0; i < 5000; i++) await fn(cases[i % n]);
  const times = [];
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) await fn(cases[i % n]);
    times.push(Number(process.hrtime.bigint() - t) / iterations);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
