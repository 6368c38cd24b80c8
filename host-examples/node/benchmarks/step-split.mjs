// Where the typed step's time goes (issue 26): the package's evaluate and
// settle split into their parts, measured in one run on the bench's inputs
// (workload.mjs), medians:
//
//   * the inputs read and lowered: the one pass (lib/read-step.cjs) beside
//     the generic road it replaced (snapshot.cjs's copy + lower.cjs);
//   * the call through jco's glue with arguments already lowered;
//   * the answer converted back (lower.stepOut, lower.settlementOut).
//
//   node benchmarks/step-split.mjs
//   node --cpu-prof benchmarks/step-split.mjs --profile   # 2,000,000 of jco's evaluate alone, for a CPU profile
import { createRequire } from 'node:module';
import { POLICY, workload, nsPerCall } from './workload.mjs';

const require = createRequire(import.meta.url);
const ops = require('../lib/ops.cjs');
const lower = require('../lib/lower.cjs');
const read = require('../lib/read-step.cjs');
const { plain } = require('../lib/snapshot.cjs');
const { artifact } = require('../lib/artifact/current.cjs');

const cases = workload();
const jco = artifact().run((api) => api); // the primary instance's interface, for this measurement only
const lowered = cases.map((c) => ({
  p: read.policy(POLICY, 'policy'),
  s: read.state(c.state, 'state'),
  o: read.outcome(c.outcome, 'outcome'),
  now: c.nowMs,
  r: read.reply(c.reply, 'reply'),
}));

if (process.argv.includes('--profile')) {
  let sink = 0;
  for (let i = 0; i < 2_000_000; i++) {
    const l = lowered[i % lowered.length];
    if (jco.evaluate(l.p, l.s, l.o, l.now) === null) sink += 1;
  }
  console.log(`2,000,000 evaluate calls through jco's glue (${sink})`);
  process.exit(0);
}

const evaluated = lowered.map((l) => jco.evaluate(l.p, l.s, l.o, l.now));
const settled = lowered.map((l) => jco.settle(l.p, l.s, l.o, l.now, l.r));
const needsSettle = evaluated.filter((e) => e.decision === undefined).length;

const rows = [
  ['**the step: evaluate + settle (settle when evaluate names a store call)**', (c) => ops.evaluate(POLICY, c.state, c.outcome, c.nowMs).decision ?? ops.settle(POLICY, c.state, c.outcome, c.nowMs, c.reply).decision, cases],
  ['evaluate(policy, state, outcome, now)', (c) => ops.evaluate(POLICY, c.state, c.outcome, c.nowMs), cases],
  ['settle(policy, state, outcome, now, reply)', (c) => ops.settle(POLICY, c.state, c.outcome, c.nowMs, c.reply), cases],
  ['  policy read + lowered, one pass (read-step)', () => read.policy(POLICY, 'policy'), cases],
  ['  the same, generic road (plain + lower.policy)', () => lower.policy(plain(POLICY, 'policy'), 'policy'), cases],
  ['  state, one pass', (c) => read.state(c.state, 'state'), cases],
  ['  the same, generic road', (c) => lower.state(plain(c.state, 'state'), 'state'), cases],
  ['  outcome, one pass', (c) => read.outcome(c.outcome, 'outcome'), cases],
  ['  the same, generic road', (c) => lower.outcome(plain(c.outcome, 'outcome'), 'outcome'), cases],
  ['  store reply, one pass', (c) => read.reply(c.reply, 'reply'), cases],
  ['  the same, generic road', (c) => lower.reply(plain(c.reply, 'reply'), 'reply'), cases],
  ["  jco's evaluate, arguments lowered", (l) => jco.evaluate(l.p, l.s, l.o, l.now), lowered],
  ["  jco's settle, arguments lowered", (l) => jco.settle(l.p, l.s, l.o, l.now, l.r), lowered],
  ['  evaluate answer back (lower.stepOut)', (e) => lower.stepOut(e), evaluated],
  ['  settle answer back (lower.settlementOut)', (e) => lower.settlementOut(e), settled],
];
console.log(`node ${process.version}; ${cases.length} distinct inputs replayed (${needsSettle} of them need settle), medians`);
console.log('| part | µs |');
console.log('|---|---:|');
for (const [what, f, cs] of rows) console.log(`| ${what} | ${(nsPerCall(f, cs) / 1000).toFixed(3)} |`);
