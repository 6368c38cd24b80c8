// Run: node examples/dispatcher/durable.mjs --journal FILE --target URL --events N
//        [--concurrency C] [--allow-private-targets] [--compact-every K]
// The dispatcher on its crash-safe journal (journal.mjs): recovers the
// journal (a torn last record is cut off), resumes every event accepted and
// not finished (through the policy's `resume`), then accepts events
// "evt-<seq>" up to N (the next sequence number survives restarts), each
// fsynced before its first attempt and finished with an fsynced `done`.
// Kill it at any moment (SIGKILL) and start it again: no event is lost or
// finished twice (tests/journal.test.mjs). Prints one JSON line at the end.
import { RetryPolicy } from '@webhook/retry-policy';
import { Dispatcher } from './dispatcher.mjs';
import { Journal } from './journal.mjs';
import { Metrics } from './metrics.mjs';
import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode('durable');

const DOCUMENT = {
  version: 'durable-1',
  classes: { notification: { window_ms: 5000, hard_cap: 4, backoff: { base_ms: 10, factor: 2, cap_ms: 100, jitter: 'full' } } },
};

function flags(argv) {
  const o = { concurrency: 4, allowPrivate: false, compactEvery: 50 };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    if (f === '--allow-private-targets') o.allowPrivate = true;
    else if (['--journal', '--target', '--events', '--concurrency', '--compact-every'].includes(f) && i + 1 < argv.length) o[f.slice(2)] = argv[++i];
    else throw new Error(`unknown argument ${JSON.stringify(f)}`);
  }
  if (!o.journal || !o.target || !/^\d+$/.test(o.events ?? '')) throw new Error('usage: durable.mjs --journal FILE --target URL --events N');
  return { ...o, events: Number(o.events), concurrency: Number(o.concurrency), compactEvery: Number(o['compact-every'] ?? o.compactEvery) };
}

let opts;
try {
  opts = flags(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`durable: ${e.message}\n`);
  process.exit(2);
}
const journal = new Journal(opts.journal, { compactEvery: opts.compactEvery });
const policy = new RetryPolicy(DOCUMENT);
const metrics = new Metrics();
const dispatcher = new Dispatcher(policy, { metrics, journal, allowPrivateTargets: opts.allowPrivate, attemptDeadlineMs: 2000 });
const recovered = journal.recovered;
const stops = {};
const count = (d) => {
  stops[d.stop_reason] = (stops[d.stop_reason] ?? 0) + 1;
  dispatcher.deadLetters.length = 0;
};

const resumed = journal.pending();
await Promise.all(resumed.map(({ event, state }) => dispatcher.resume(event, state).then(count)));
let accepted = 0;
async function worker() {
  while (journal.nextSeq < opts.events) {
    const seq = journal.nextSeq;
    const event = { id: `evt-${seq}`, class: 'notification', endpoint_id: 'ep_durable', url: opts.target, body: { seq } };
    accepted += 1;
    count(await dispatcher.deliver(event)); // accept (fsync) happens before deliver's first await
  }
}
await Promise.all(Array.from({ length: opts.concurrency }, worker));
dispatcher.close();
journal.close();
process.stdout.write(`${JSON.stringify({ recovered_records: recovered.records, torn_bytes: recovered.tornBytes, resumed: resumed.length, accepted, stop_reasons: stops })}\n`);
