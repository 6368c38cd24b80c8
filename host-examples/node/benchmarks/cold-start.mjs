// Cold start: a fresh `node` process imports the package (read + compile +
// instantiate the wasm) and makes its first decision. Prints the ms from
// just before the import to just after the decision (the process's own
// boot, ~20-40 ms of Node itself, is not the package's and is reported apart).
// WEBHOOK_RETRY_POLICY_CACHE places (or, 'off', turns off) the glue's code cache.
const t0 = performance.now();
const cpu0 = process.cpuUsage(); // CPU time too: less sensitive than wall time to a busy machine
const { evaluate, settle } = await import('@webhook/retry-policy');
const t1 = performance.now();
const policy = {
  backoff: { base_ms: 2000, factor: 2, cap_ms: 300_000, jitter: 'full' },
  window_ms: 900_000,
  hard_cap: 16,
  budget: { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true },
};
const state = { event_id: 'e', endpoint_id: 'p', attempt: 1, max_attempts: 13, first_attempted_at_ms: 0, credentials_refreshed: false };
const step = evaluate(policy, state, { status: 503 }, 5);
settle(policy, state, { status: 503 }, 5, { reserved: true, counts: { current: { total: 0, retries: 0 }, previous: { total: 0, retries: 0 } } });
const t2 = performance.now();
const cpu = process.cpuUsage(cpu0);
process.stdout.write(JSON.stringify({ import_ms: t1 - t0, first_step_ms: t2 - t1, total_ms: t2 - t0, cpu_ms: (cpu.user + cpu.system) / 1000, boot_ms: t0, ok: step.store !== null }));
